/*
 * buf.c - growable byte buffer and bounded reader; see buf.h.
 */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

void sl_buf_init(sl_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void sl_buf_fini(sl_buf *b)
{
    if (b == NULL)
        return;
    free(b->data);
    sl_buf_init(b);
}

void sl_buf_reset(sl_buf *b)
{
    b->len = 0;
}

int sl_buf_reserve(sl_buf *b, size_t n)
{
    if (b->cap - b->len >= n)
        return 0;
    if (n > SIZE_MAX / 2 - b->len)
        return SL_ENOMEM;
    size_t cap = b->cap ? b->cap : 64;
    while (cap - b->len < n)
        cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (p == NULL)
        return SL_ENOMEM;
    b->data = p;
    b->cap = cap;
    return 0;
}

int sl_buf_put(sl_buf *b, const void *p, size_t n)
{
    if (n == 0)
        return 0;
    int rc = sl_buf_reserve(b, n);
    if (rc != 0)
        return rc;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

int sl_buf_put_u8(sl_buf *b, uint8_t v)
{
    return sl_buf_put(b, &v, 1);
}

int sl_buf_put_u32(sl_buf *b, uint32_t v)
{
    uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return sl_buf_put(b, t, 4);
}

int sl_buf_put_u64(sl_buf *b, uint64_t v)
{
    uint8_t t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    return sl_buf_put(b, t, 8);
}

int sl_buf_put_varu(sl_buf *b, uint64_t v)
{
    uint8_t t[10];
    size_t n = 0;
    while (v >= 0x80) {
        t[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    t[n++] = (uint8_t)v;
    return sl_buf_put(b, t, n);
}

int sl_buf_put_vari(sl_buf *b, int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    return sl_buf_put_varu(b, z);
}

int sl_buf_printf(sl_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return SL_EINVAL;
    int rc = sl_buf_reserve(b, (size_t)n + 1);
    if (rc != 0)
        return rc;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

void sl_reader_init(sl_reader *r, const void *p, size_t n)
{
    r->p = p;
    r->end = p == NULL ? r->p : r->p + n;
}

int sl_reader_get(sl_reader *r, void *out, size_t n)
{
    if (sl_reader_left(r) < n)
        return SL_ECORRUPT;
    memcpy(out, r->p, n);
    r->p += n;
    return 0;
}

const uint8_t *sl_reader_take(sl_reader *r, size_t n)
{
    if (sl_reader_left(r) < n)
        return NULL;
    const uint8_t *p = r->p;
    r->p += n;
    return p;
}

int sl_reader_u8(sl_reader *r, uint8_t *v)
{
    return sl_reader_get(r, v, 1);
}

int sl_reader_u32(sl_reader *r, uint32_t *v)
{
    const uint8_t *p = sl_reader_take(r, 4);
    if (p == NULL)
        return SL_ECORRUPT;
    *v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return 0;
}

int sl_reader_u64(sl_reader *r, uint64_t *v)
{
    const uint8_t *p = sl_reader_take(r, 8);
    if (p == NULL)
        return SL_ECORRUPT;
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--)
        x = (x << 8) | p[i];
    *v = x;
    return 0;
}

int sl_reader_varu(sl_reader *r, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (r->p >= r->end)
            return SL_ECORRUPT;
        uint8_t c = *r->p++;
        if (shift == 63 && c > 1)
            return SL_ECORRUPT;
        x |= (uint64_t)(c & 0x7f) << shift;
        if ((c & 0x80) == 0) {
            *v = x;
            return 0;
        }
    }
    return SL_ECORRUPT;
}

int sl_reader_vari(sl_reader *r, int64_t *v)
{
    uint64_t z;
    int rc = sl_reader_varu(r, &z);
    if (rc != 0)
        return rc;
    *v = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
    return 0;
}
