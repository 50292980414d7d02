/*
 * keycodec.c - order-preserving key encodings; see keycodec.h.
 */
#include "keycodec.h"

#include <string.h>

#include "common/util/error.h"

/* Escape bytes of sl_key_put_str: 00 -> 00 FF inside a string, 00 01 ends it. */
#define KEY_ESC  0x00
#define KEY_ZERO 0xFF
#define KEY_END  0x01

int sl_key_put_u32(sl_buf *b, uint32_t v)
{
    uint8_t p[SL_KEY_U32_LEN];
    sl_key_enc_u32(p, v);
    return sl_buf_put(b, p, sizeof(p));
}

int sl_key_put_u64(sl_buf *b, uint64_t v)
{
    uint8_t p[SL_KEY_U64_LEN];
    sl_key_enc_u64(p, v);
    return sl_buf_put(b, p, sizeof(p));
}

int sl_key_put_i32(sl_buf *b, int32_t v)
{
    uint8_t p[SL_KEY_U32_LEN];
    sl_key_enc_i32(p, v);
    return sl_buf_put(b, p, sizeof(p));
}

int sl_key_put_i64(sl_buf *b, int64_t v)
{
    uint8_t p[SL_KEY_U64_LEN];
    sl_key_enc_i64(p, v);
    return sl_buf_put(b, p, sizeof(p));
}

int sl_key_put_str(sl_buf *b, const void *s, size_t n)
{
    const uint8_t *p = s;
    size_t zeros = 0;
    for (size_t i = 0; i < n; i++)
        zeros += p[i] == 0;
    if (n > SIZE_MAX - zeros - 2)
        return SL_ENOMEM;
    int rc = sl_buf_reserve(b, n + zeros + 2);
    if (rc != 0)
        return rc;
    uint8_t *o = b->data + b->len;
    for (size_t i = 0; i < n; i++) {
        *o++ = p[i];
        if (p[i] == 0)
            *o++ = KEY_ZERO;
    }
    *o++ = KEY_ESC;
    *o++ = KEY_END;
    b->len = (size_t)(o - b->data);
    return 0;
}

int sl_key_get_u32(sl_reader *r, uint32_t *v)
{
    const uint8_t *p = sl_reader_take(r, SL_KEY_U32_LEN);
    if (p == NULL)
        return SL_ECORRUPT;
    *v = sl_key_dec_u32(p);
    return 0;
}

int sl_key_get_u64(sl_reader *r, uint64_t *v)
{
    const uint8_t *p = sl_reader_take(r, SL_KEY_U64_LEN);
    if (p == NULL)
        return SL_ECORRUPT;
    *v = sl_key_dec_u64(p);
    return 0;
}

int sl_key_get_i32(sl_reader *r, int32_t *v)
{
    const uint8_t *p = sl_reader_take(r, SL_KEY_U32_LEN);
    if (p == NULL)
        return SL_ECORRUPT;
    *v = sl_key_dec_i32(p);
    return 0;
}

int sl_key_get_i64(sl_reader *r, int64_t *v)
{
    const uint8_t *p = sl_reader_take(r, SL_KEY_U64_LEN);
    if (p == NULL)
        return SL_ECORRUPT;
    *v = sl_key_dec_i64(p);
    return 0;
}

int sl_key_get_str(sl_reader *r, sl_buf *out)
{
    const uint8_t *p = r->p;
    while (p < r->end) {
        const uint8_t *z = memchr(p, KEY_ESC, (size_t)(r->end - p));
        if (z == NULL || z + 1 >= r->end)
            return SL_ECORRUPT;
        int rc = sl_buf_put(out, p, (size_t)(z - p));
        if (rc != 0)
            return rc;
        if (z[1] == KEY_END) {
            r->p = z + 2;
            return 0;
        }
        if (z[1] != KEY_ZERO)
            return SL_ECORRUPT;
        rc = sl_buf_put_u8(out, 0);
        if (rc != 0)
            return rc;
        p = z + 2;
    }
    return SL_ECORRUPT;
}

int sl_key_successor(sl_buf *b)
{
    size_t n = b->len;
    while (n > 0 && b->data[n - 1] == 0xFF)
        n--;
    if (n == 0)
        return SL_ERANGE;
    b->data[n - 1]++;
    b->len = n;
    return 0;
}
