/*
 * buf.h - a growable byte buffer and a bounded reader over bytes.
 *
 * Encoders append to an sl_buf; decoders read through an sl_reader that never reads past
 * its end and reports truncation as SL_ECORRUPT, so every decoder is bounds-safe by
 * construction. Integers are little-endian; varints are LEB128 (unsigned) and zig-zag
 * LEB128 (signed), at most 10 bytes.
 */
#ifndef SL_BUF_H
#define SL_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable buffer. Callers embed it; zero-initialised memory is an empty buffer. */
typedef struct sl_buf {
    uint8_t *data; /* owned bytes, NULL while empty */
    size_t len;    /* bytes written */
    size_t cap;    /* bytes allocated */
} sl_buf;

void sl_buf_init(sl_buf *b);
/* Frees the bytes (NULL-safe) and leaves an empty buffer. */
void sl_buf_fini(sl_buf *b);
/* Sets len to 0, keeping the allocation. */
void sl_buf_reset(sl_buf *b);
/* Ensures room for n more bytes; returns 0 or SL_ENOMEM. */
int sl_buf_reserve(sl_buf *b, size_t n);
/* Appenders: return 0 or SL_ENOMEM (the buffer is unchanged on failure). */
int sl_buf_put(sl_buf *b, const void *p, size_t n);
int sl_buf_put_u8(sl_buf *b, uint8_t v);
int sl_buf_put_u32(sl_buf *b, uint32_t v);
int sl_buf_put_u64(sl_buf *b, uint64_t v);
int sl_buf_put_varu(sl_buf *b, uint64_t v);
int sl_buf_put_vari(sl_buf *b, int64_t v);
/* Appends printf-formatted text (no NUL is counted in len, but one is kept after it). */
int sl_buf_printf(sl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A bounded reader. Callers embed it. */
typedef struct sl_reader {
    const uint8_t *p;   /* next byte */
    const uint8_t *end; /* one past the last byte */
} sl_reader;

void sl_reader_init(sl_reader *r, const void *p, size_t n);
static inline size_t sl_reader_left(const sl_reader *r)
{
    return (size_t)(r->end - r->p);
}
/* Readers: return 0, or SL_ECORRUPT when the bytes run out or a varint is malformed. */
int sl_reader_get(sl_reader *r, void *out, size_t n);
/* Returns a pointer to the next n bytes and skips them, or NULL when fewer remain. */
const uint8_t *sl_reader_take(sl_reader *r, size_t n);
int sl_reader_u8(sl_reader *r, uint8_t *v);
int sl_reader_u32(sl_reader *r, uint32_t *v);
int sl_reader_u64(sl_reader *r, uint64_t *v);
int sl_reader_varu(sl_reader *r, uint64_t *v);
int sl_reader_vari(sl_reader *r, int64_t *v);

#endif
