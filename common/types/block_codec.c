/*
 * block_codec.c - the byte encoding of a block, for RPC payloads and stored records;
 * see sl_block_encode / sl_block_decode in block.h.
 *
 * The format is compact and cheap to produce: fixed-width data is copied as raw
 * little-endian arrays, so on the usual hosts encoding a column is one memcpy. The decoder
 * treats its input as hostile: every count is checked against what the remaining bytes can
 * hold before anything is allocated, so memory stays proportional to the input size.
 *
 * Version 1, all varints LEB128 (buf.h):
 *
 *   block   := u8 version=1, varu ncols, varu nrows, column * ncols
 *   column  := u8 type, varu width, u8 flags, [nulls], values
 *   flags   := bit 0 CONST (values hold one row standing for all nrows rows),
 *              bit 1 NULLS (a null bitmap follows); other bits must be zero
 *   m       := 1 for a CONST column, else nrows
 *   nulls   := ceil(m / 8) bytes, bit i (LSB first) set = row i is NULL
 *   values  := fixed width: m values of sl_type_size(type) bytes, little-endian,
 *                           BOOL as one byte 0 or 1, FLOAT/DOUBLE as IEEE-754 bits
 *              VARCHAR/NCHAR: m varu byte lengths, then the m strings' bytes back to back
 *
 * Width is 0 for fixed types and at most SL_VARCHAR_MAX for text. The encoder writes NULLS
 * only when a bit is really set and zeroes the padding bits, so encoding a decoded block
 * gives the same bytes again. Offsets are rebuilt from the lengths, so they are monotonic
 * and end at the heap size by construction.
 */
#include "block.h"

#include <string.h>

#define CODEC_VERSION 1
#define COL_F_CONST   0x01
#define COL_F_NULLS   0x02
#define COL_F_ALL     (COL_F_CONST | COL_F_NULLS)
/* Smallest column encoding: type, width and flags bytes. */
#define COL_MIN_BYTES 3

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_LITTLE_ENDIAN 0
#else
#define HOST_LITTLE_ENDIAN 1
#endif

/* Copies m values of size sz between host order and little-endian (either direction). */
static void copy_le(void *dst, const void *src, size_t m, size_t sz)
{
    if (HOST_LITTLE_ENDIAN || sz == 1) {
        memcpy(dst, src, m * sz);
        return;
    }
    const uint8_t *s = src;
    uint8_t *d = dst;
    for (size_t i = 0; i < m; i++)
        for (size_t k = 0; k < sz; k++)
            d[i * sz + k] = s[i * sz + sz - 1 - k];
}

/* True when one of the first m bits of bm is set. */
static bool bitmap_any(const uint8_t *bm, uint32_t m)
{
    uint32_t whole = m / 8;
    for (uint32_t i = 0; i < whole; i++)
        if (bm[i] != 0)
            return true;
    return (m & 7) != 0 && (bm[whole] & ((1u << (m & 7)) - 1)) != 0;
}

static int encode_column(const sl_column *c, uint32_t nrows, sl_buf *out)
{
    uint32_t m = c->is_const ? 1 : nrows;
    bool nulls = c->has_nulls && bitmap_any(c->nulls, m);
    uint8_t flags = (c->is_const ? COL_F_CONST : 0) | (nulls ? COL_F_NULLS : 0);
    int rc;
    if ((rc = sl_buf_put_u8(out, (uint8_t)c->type)) != 0 ||
        (rc = sl_buf_put_varu(out, c->width)) != 0 || (rc = sl_buf_put_u8(out, flags)) != 0)
        return rc;
    if (nulls) {
        size_t nb = ((size_t)m + 7) / 8;
        if ((rc = sl_buf_reserve(out, nb)) != 0)
            return rc;
        uint8_t *dst = out->data + out->len;
        memcpy(dst, c->nulls, nb);
        if (m & 7)
            dst[nb - 1] &= (uint8_t)((1u << (m & 7)) - 1);
        out->len += nb;
    }
    if (m == 0)
        return 0;

    if (!sl_type_is_var(c->type)) {
        size_t sz = sl_type_size(c->type), nb = (size_t)m * sz;
        if ((rc = sl_buf_reserve(out, nb)) != 0)
            return rc;
        uint8_t *dst = out->data + out->len;
        if (c->type == SL_T_BOOL) {
            /* Kernels may leave any non-zero byte for true; the format says 1. */
            const uint8_t *src = c->data;
            for (uint32_t i = 0; i < m; i++)
                dst[i] = src[i] != 0;
        } else {
            copy_le(dst, c->data, m, sz);
        }
        out->len += nb;
        return 0;
    }

    for (uint32_t i = 0; i < m; i++)
        if ((rc = sl_buf_put_varu(out, c->offsets[i + 1] - c->offsets[i])) != 0)
            return rc;
    uint32_t bytes = c->offsets[m] - c->offsets[0];
    return bytes > 0 ? sl_buf_put(out, c->heap + c->offsets[0], bytes) : 0;
}

int sl_block_encode(const sl_block *b, sl_buf *out)
{
    for (uint32_t i = 0; i < b->ncols; i++)
        if (b->cols[i].nrows != b->nrows)
            return SL_EINVAL;
    size_t start = out->len;
    int rc;
    if ((rc = sl_buf_put_u8(out, CODEC_VERSION)) != 0 ||
        (rc = sl_buf_put_varu(out, b->ncols)) != 0 || (rc = sl_buf_put_varu(out, b->nrows)) != 0)
        goto fail;
    for (uint32_t i = 0; i < b->ncols; i++)
        if ((rc = encode_column(&b->cols[i], b->nrows, out)) != 0)
            goto fail;
    return 0;
fail:
    /* Leave out as it was: a half-written block must not reach a reader. */
    out->len = start;
    return rc;
}

static int corrupt(sl_error *err, uint32_t col, const char *what)
{
    return sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed block, column %u: %s", col, what);
}

static int decode_column(sl_reader *r, uint32_t nrows, uint32_t ci, sl_block *out, sl_error *err)
{
    uint8_t type, flags;
    uint64_t width;
    if (sl_reader_u8(r, &type) != 0 || sl_reader_varu(r, &width) != 0 ||
        sl_reader_u8(r, &flags) != 0)
        return corrupt(err, ci, "truncated column header");
    if (type == SL_T_NULL || type >= SL_T__COUNT)
        return corrupt(err, ci, "unknown type");
    bool var = sl_type_is_var((sl_type)type);
    if (var ? width > SL_VARCHAR_MAX : width != 0)
        return corrupt(err, ci, "invalid width");
    if (flags & ~COL_F_ALL)
        return corrupt(err, ci, "unknown flags");
    uint32_t m = (flags & COL_F_CONST) ? 1 : nrows;

    const uint8_t *bm = NULL;
    size_t nb = ((size_t)m + 7) / 8;
    if ((flags & COL_F_NULLS) && (bm = sl_reader_take(r, nb)) == NULL)
        return corrupt(err, ci, "truncated null bitmap");

    int idx = sl_block_add_column(out, (sl_type)type, (uint32_t)width);
    if (idx < 0)
        return sl_error_set(err, idx, 0, 0, "out of memory decoding a block");
    sl_column *c = &out->cols[idx];
    int rc;

    if (!var) {
        size_t sz = sl_type_size(c->type);
        const uint8_t *src = sl_reader_take(r, (size_t)m * sz);
        if (src == NULL)
            return corrupt(err, ci, "truncated values");
        if (c->type == SL_T_BOOL)
            for (uint32_t i = 0; i < m; i++)
                if (src[i] > 1)
                    return corrupt(err, ci, "BOOL value other than 0 or 1");
        if (m > 0) {
            if ((rc = sl_column_reserve(c, m, 0)) != 0)
                return sl_error_set(err, rc, 0, 0, "out of memory decoding a block");
            copy_le(c->data, src, m, sz);
        }
    } else if (m > 0) {
        /* Every length takes at least one byte: m beyond the input is garbage, and the
         * offsets array allocated below stays proportional to the input. */
        if (m > sl_reader_left(r))
            return corrupt(err, ci, "more strings than bytes");
        if ((rc = sl_column_reserve(c, m, 0)) != 0)
            return sl_error_set(err, rc, 0, 0, "out of memory decoding a block");
        uint64_t total = 0;
        c->offsets[0] = 0;
        for (uint32_t i = 0; i < m; i++) {
            uint64_t len;
            if (sl_reader_varu(r, &len) != 0)
                return corrupt(err, ci, "truncated string length");
            /* The bytes follow all the lengths, so they must fit in what is left. */
            if (len > sl_reader_left(r) || total + len > sl_reader_left(r))
                return corrupt(err, ci, "string lengths exceed the input");
            total += len;
            c->offsets[i + 1] = (uint32_t)total;
        }
        const uint8_t *src = sl_reader_take(r, (size_t)total);
        if (src == NULL || total > UINT32_MAX)
            return corrupt(err, ci, "truncated string bytes");
        if (total > 0) {
            if ((rc = sl_column_reserve(c, m, (uint32_t)total)) != 0)
                return sl_error_set(err, rc, 0, 0, "out of memory decoding a block");
            memcpy(c->heap, src, (size_t)total);
        }
        c->heap_len = (uint32_t)total;
    }

    if (bm != NULL) {
        /* Only a bitmap with a set bit makes the column nullable; padding bits are
         * dropped, so the next encoding is canonical. */
        if (bitmap_any(bm, m)) {
            uint32_t first = 0;
            while (!((bm[first >> 3] >> (first & 7)) & 1))
                first++;
            if ((rc = sl_column_set_null(c, first)) != 0)
                return sl_error_set(err, rc, 0, 0, "out of memory decoding a block");
            memcpy(c->nulls, bm, nb);
            if (m & 7)
                c->nulls[nb - 1] &= (uint8_t)((1u << (m & 7)) - 1);
        }
    }
    c->is_const = (flags & COL_F_CONST) != 0;
    c->nrows = nrows;
    return 0;
}

int sl_block_decode(const void *p, size_t n, sl_block *out, sl_error *err)
{
    sl_reader r;
    uint8_t version;
    uint64_t ncols, nrows;
    int rc;
    /* sl_reader_init computes p + n, which is undefined for a NULL p even when n is 0. */
    sl_reader_init(&r, p != NULL ? p : (const void *)"", p != NULL ? n : 0);
    if (sl_reader_u8(&r, &version) != 0 || sl_reader_varu(&r, &ncols) != 0 ||
        sl_reader_varu(&r, &nrows) != 0) {
        rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed block: truncated header");
        goto fail;
    }
    if (version != CODEC_VERSION) {
        rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed block: unknown version %u", version);
        goto fail;
    }
    if (ncols > SL_BLOCK_DECODE_COLS_MAX || ncols > sl_reader_left(&r) / COL_MIN_BYTES) {
        rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed block: %llu columns",
                          (unsigned long long)ncols);
        goto fail;
    }
    if (nrows > SL_BLOCK_DECODE_ROWS_MAX) {
        rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed block: %llu rows",
                          (unsigned long long)nrows);
        goto fail;
    }
    for (uint32_t i = 0; i < (uint32_t)ncols; i++)
        if ((rc = decode_column(&r, (uint32_t)nrows, i, out, err)) != 0)
            goto fail;
    if (sl_reader_left(&r) != 0) {
        rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed block: %zu trailing bytes",
                          sl_reader_left(&r));
        goto fail;
    }
    out->nrows = (uint32_t)nrows;
    return 0;
fail:
    sl_block_fini(out);
    return rc;
}
