/*
 * keycodec.h - order-preserving key encodings for the kv stores.
 *
 * RocksDB orders keys bytewise (memcmp). Every Sluice store builds composite keys - (table
 * uid, first timestamp) for row blocks, version for the change log, (stream, slot, group,
 * window start) for window state - whose byte order must match the order of their fields.
 * These helpers give that property:
 *
 *   - unsigned integers are written big-endian at fixed width;
 *   - signed integers are written big-endian with the sign bit flipped, so negative values
 *     sort before positive ones (INT64_MIN encodes as 00..00, -1 as 7F FF.., 0 as 80 00..);
 *   - byte strings (names) are written with every 0x00 byte escaped as 00 FF and closed by
 *     00 01, so a string sorts like its bytes, a prefix sorts first, and a field after it
 *     cannot be confused with its tail.
 *
 * Concatenating encodings gives a key whose memcmp order is the lexicographic order of the
 * field tuple. Decoding reads through an sl_reader, so it is bounds-safe. The functions have
 * no state and are thread-safe. Note that this is not the little-endian sl_buf_put_u64 of
 * buf.h, which is for values, not keys.
 */
#ifndef SL_KEYCODEC_H
#define SL_KEYCODEC_H

#include <stddef.h>
#include <stdint.h>

#include "common/util/buf.h"

/* Bytes of the fixed-width encodings. */
#define SL_KEY_U32_LEN 4
#define SL_KEY_U64_LEN 8

/* Writes v big-endian into p[0..3] / p[0..7] (p needs that room). */
static inline void sl_key_enc_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void sl_key_enc_u64(uint8_t *p, uint64_t v)
{
    sl_key_enc_u32(p, (uint32_t)(v >> 32));
    sl_key_enc_u32(p + 4, (uint32_t)v);
}

/* Writes v with the sign bit flipped, big-endian, so memcmp order is numeric order. */
static inline void sl_key_enc_i32(uint8_t *p, int32_t v)
{
    sl_key_enc_u32(p, (uint32_t)v ^ UINT32_C(0x80000000));
}

static inline void sl_key_enc_i64(uint8_t *p, int64_t v)
{
    sl_key_enc_u64(p, (uint64_t)v ^ UINT64_C(0x8000000000000000));
}

/* Read back what the matching sl_key_enc_* wrote at p. */
static inline uint32_t sl_key_dec_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint64_t sl_key_dec_u64(const uint8_t *p)
{
    return (uint64_t)sl_key_dec_u32(p) << 32 | sl_key_dec_u32(p + 4);
}

static inline int32_t sl_key_dec_i32(const uint8_t *p)
{
    return (int32_t)(sl_key_dec_u32(p) ^ UINT32_C(0x80000000));
}

static inline int64_t sl_key_dec_i64(const uint8_t *p)
{
    return (int64_t)(sl_key_dec_u64(p) ^ UINT64_C(0x8000000000000000));
}

/* Append one encoded field to b. Return 0 or SL_ENOMEM (b is unchanged on failure). */
int sl_key_put_u32(sl_buf *b, uint32_t v);
int sl_key_put_u64(sl_buf *b, uint64_t v);
int sl_key_put_i32(sl_buf *b, int32_t v);
int sl_key_put_i64(sl_buf *b, int64_t v);
/* Appends the escaped, terminated form of the n bytes at s (borrowed; NULL when n is 0). */
int sl_key_put_str(sl_buf *b, const void *s, size_t n);

/* Read one encoded field from r. Return 0, or SL_ECORRUPT when r holds too few bytes (r is
 * then not advanced). */
int sl_key_get_u32(sl_reader *r, uint32_t *v);
int sl_key_get_u64(sl_reader *r, uint64_t *v);
int sl_key_get_i32(sl_reader *r, int32_t *v);
int sl_key_get_i64(sl_reader *r, int64_t *v);
/* Decodes a string field written by sl_key_put_str, appending its bytes to out. Returns 0,
 * SL_ECORRUPT (no terminator, bad escape; r is then not advanced, out may hold a partial
 * string) or SL_ENOMEM. */
int sl_key_get_str(sl_reader *r, sl_buf *out);

/*
 * Turns the key prefix in b into the smallest key greater than every key that starts with
 * it: drops trailing 0xFF bytes and increments the last byte left. Use the result as the
 * exclusive upper bound of a prefix scan or delete_range. Returns 0, or SL_ERANGE when b is
 * empty or all 0xFF (no such key exists: scan without an upper bound); b is then unchanged.
 */
int sl_key_successor(sl_buf *b);

#endif
