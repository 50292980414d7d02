/*
 * block.c - column vectors and blocks: growth, appends, reads, constants, gathers;
 * see block.h.
 *
 * Columns grow geometrically, so appending rows one at a time is amortised O(1) with no
 * allocation per row; bulk copies (append_rows, materialize) reserve once and then move
 * whole arrays. The null bitmap is allocated the first time a NULL is stored and its bits
 * are only meaningful while has_nulls is set: turning has_nulls on clears the bitmap, and
 * storing a non-NULL row clears its bit while has_nulls is on, so reset() never has to
 * touch the bitmap and columns without NULLs never pay for it.
 */
#include "block.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Largest capacity of a column: offsets hold cap+1 entries and row indexes are uint32. */
#define COLUMN_CAP_MAX (UINT32_MAX - 1)
/* First allocation of a growing column, in rows and in heap bytes. */
#define COLUMN_MIN_ROWS 8
#define COLUMN_MIN_HEAP 64

static size_t bitmap_bytes(uint64_t bits)
{
    return (size_t)((bits + 7) / 8);
}

static void bit_set(uint8_t *bm, uint32_t i)
{
    bm[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static void bit_clear(uint8_t *bm, uint32_t i)
{
    bm[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

/* Sets or clears bits [from, from+n) of bm. */
static void bits_fill(uint8_t *bm, uint32_t from, uint32_t n, bool on)
{
    uint32_t i = from, end = from + n;
    for (; i < end && (i & 7) != 0; i++)
        on ? bit_set(bm, i) : bit_clear(bm, i);
    if (end - i >= 8) {
        uint32_t whole = (end - i) / 8;
        memset(bm + i / 8, on ? 0xff : 0x00, whole);
        i += whole * 8;
    }
    for (; i < end; i++)
        on ? bit_set(bm, i) : bit_clear(bm, i);
}

/* Copies the element at base[0] into base[1..n), doubling the copied span each time. */
static void fill_elems(char *base, size_t size, uint32_t n)
{
    size_t done = 1;
    while (done < n) {
        size_t k = done < n - done ? done : n - done;
        memcpy(base + done * size, base, k * size);
        done += k;
    }
}

void sl_column_init(sl_column *c, sl_type t, uint32_t width)
{
    memset(c, 0, sizeof(*c));
    c->type = t;
    /* Width only means something for text; fixed types keep 0 so encodings agree. */
    c->width = sl_type_is_var(t) ? width : 0;
}

/* Forgets a borrowed view: the column becomes empty and owns nothing. */
static void column_drop_view(sl_column *c)
{
    c->nulls = NULL;
    c->data = NULL;
    c->offsets = NULL;
    c->heap = NULL;
    c->cap = 0;
    c->heap_cap = 0;
    c->heap_len = 0;
    c->nrows = 0;
    c->has_nulls = false;
    c->is_const = false;
    c->borrowed = false;
}

void sl_column_fini(sl_column *c)
{
    if (c == NULL)
        return;
    if (c->borrowed) {
        column_drop_view(c);
        return;
    }
    free(c->nulls);
    free(c->data);
    free(c->offsets);
    free(c->heap);
    sl_column_init(c, c->type, c->width);
}

static int column_own(sl_column *c);

void sl_column_reset(sl_column *c)
{
    if (c->borrowed)
        column_drop_view(c);
    c->nrows = 0;
    c->is_const = false;
    c->has_nulls = false;
    c->heap_len = 0;
}

static int column_grow_rows(sl_column *c, uint32_t nrows)
{
    if (c->borrowed) {
        int rc = column_own(c);
        if (rc != 0)
            return rc;
    }
    if (nrows > COLUMN_CAP_MAX)
        return SL_ENOMEM;
    uint64_t ncap = c->cap ? (uint64_t)c->cap * 2 : COLUMN_MIN_ROWS;
    if (ncap < nrows)
        ncap = nrows;
    if (ncap > COLUMN_CAP_MAX)
        ncap = COLUMN_CAP_MAX;

    /* Each array is replaced as soon as it is grown, so a failure midway leaves every
     * array at least cap rows long and the column consistent. */
    if (sl_type_is_var(c->type)) {
        uint32_t *off = realloc(c->offsets, (size_t)(ncap + 1) * sizeof(uint32_t));
        if (off == NULL)
            return SL_ENOMEM;
        if (c->offsets == NULL)
            off[0] = 0;
        c->offsets = off;
    } else {
        void *data = realloc(c->data, (size_t)ncap * sl_type_size(c->type));
        if (data == NULL)
            return SL_ENOMEM;
        c->data = data;
    }
    if (c->nulls != NULL) {
        size_t old = bitmap_bytes(c->cap), now = bitmap_bytes(ncap);
        uint8_t *bm = realloc(c->nulls, now);
        if (bm == NULL)
            return SL_ENOMEM;
        memset(bm + old, 0, now - old);
        c->nulls = bm;
    }
    c->cap = (uint32_t)ncap;
    return 0;
}

static int column_grow_heap(sl_column *c, uint32_t more)
{
    if (c->borrowed) {
        int rc = column_own(c);
        if (rc != 0)
            return rc;
    }
    uint64_t need = (uint64_t)c->heap_len + more;
    if (need <= c->heap_cap)
        return 0;
    if (need > UINT32_MAX)
        return SL_ENOMEM;
    uint64_t ncap = c->heap_cap ? (uint64_t)c->heap_cap * 2 : COLUMN_MIN_HEAP;
    if (ncap < need)
        ncap = need;
    if (ncap > UINT32_MAX)
        ncap = UINT32_MAX;
    char *heap = realloc(c->heap, (size_t)ncap);
    if (heap == NULL)
        return SL_ENOMEM;
    c->heap = heap;
    c->heap_cap = (uint32_t)ncap;
    return 0;
}

int sl_column_reserve(sl_column *c, uint32_t nrows, uint32_t heap_bytes)
{
    if (nrows > c->cap) {
        int rc = column_grow_rows(c, nrows);
        if (rc != 0)
            return rc;
    }
    if (sl_type_is_var(c->type) && heap_bytes > 0)
        return column_grow_heap(c, heap_bytes);
    return 0;
}

int sl_column_set_null(sl_column *c, uint32_t i)
{
    if (c->borrowed) {
        int rc = column_own(c);
        if (rc != 0)
            return rc;
    }
    assert(i < c->cap);
    if (c->nulls == NULL) {
        c->nulls = calloc(bitmap_bytes(c->cap), 1);
        if (c->nulls == NULL)
            return SL_ENOMEM;
    } else if (!c->has_nulls) {
        /* Bits left from before the last reset are stale. */
        memset(c->nulls, 0, bitmap_bytes(c->cap));
    }
    c->has_nulls = true;
    bit_set(c->nulls, i);
    return 0;
}

/* Makes room for one more row. */
static inline int column_room(sl_column *c)
{
    assert(!c->is_const);
    if (c->nrows < c->cap)
        return 0;
    if (c->nrows >= COLUMN_CAP_MAX)
        return SL_ENOMEM;
    return column_grow_rows(c, c->nrows + 1);
}

/* Marks row i not NULL; only needed while the bitmap is live. */
static inline void column_mark_valid(sl_column *c, uint32_t i)
{
    if (c->has_nulls)
        bit_clear(c->nulls, i);
}

/* Converts a double to an integer without undefined behaviour: NaN is 0, ends saturate. */
static int64_t f64_to_i64(double d)
{
    if (isnan(d))
        return 0;
    if (d >= 0x1p63)
        return INT64_MAX;
    if (d < -0x1p63)
        return INT64_MIN;
    return (int64_t)d;
}

static uint64_t f64_to_u64(double d)
{
    if (isnan(d) || d <= 0)
        return 0;
    if (d >= 0x1p64)
        return UINT64_MAX;
    return (uint64_t)d;
}

/* Stores at row i of a fixed-width column; exactly one of the three sources is used. */
typedef enum src_kind { SRC_I, SRC_U, SRC_D } src_kind;

static void column_store(sl_column *c, uint32_t i, src_kind k, int64_t iv, uint64_t uv, double dv)
{
    /* Integers narrow by two's complement wrap-around, as the header documents. */
    int64_t si = k == SRC_I ? iv : k == SRC_U ? (int64_t)uv : f64_to_i64(dv);
    uint64_t ui = k == SRC_I ? (uint64_t)iv : k == SRC_U ? uv : f64_to_u64(dv);
    double di = k == SRC_I ? (double)iv : k == SRC_U ? (double)uv : dv;
    switch (c->type) {
    case SL_T_BOOL: ((uint8_t *)c->data)[i] = k == SRC_D ? dv != 0 : ui != 0; break;
    case SL_T_TINYINT: ((int8_t *)c->data)[i] = (int8_t)si; break;
    case SL_T_SMALLINT: ((int16_t *)c->data)[i] = (int16_t)si; break;
    case SL_T_INT: ((int32_t *)c->data)[i] = (int32_t)si; break;
    case SL_T_BIGINT:
    case SL_T_TIMESTAMP: ((int64_t *)c->data)[i] = si; break;
    case SL_T_UTINYINT: ((uint8_t *)c->data)[i] = (uint8_t)ui; break;
    case SL_T_USMALLINT: ((uint16_t *)c->data)[i] = (uint16_t)ui; break;
    case SL_T_UINT: ((uint32_t *)c->data)[i] = (uint32_t)ui; break;
    case SL_T_UBIGINT: ((uint64_t *)c->data)[i] = ui; break;
    case SL_T_FLOAT: ((float *)c->data)[i] = (float)di; break;
    case SL_T_DOUBLE: ((double *)c->data)[i] = di; break;
    default: assert(!"column_store on a non-fixed column"); break;
    }
}

static int column_append_fixed(sl_column *c, src_kind k, int64_t iv, uint64_t uv, double dv)
{
    assert(!sl_type_is_var(c->type));
    int rc = column_room(c);
    if (rc != 0)
        return rc;
    column_store(c, c->nrows, k, iv, uv, dv);
    column_mark_valid(c, c->nrows);
    c->nrows++;
    return 0;
}

int sl_column_append_null(sl_column *c)
{
    int rc = column_room(c);
    if (rc != 0)
        return rc;
    rc = sl_column_set_null(c, c->nrows);
    if (rc != 0)
        return rc;
    /* NULL rows hold a zero / empty value so reads and encodings are deterministic. */
    if (sl_type_is_var(c->type))
        c->offsets[c->nrows + 1] = c->heap_len;
    else
        memset((char *)c->data + (size_t)c->nrows * sl_type_size(c->type), 0,
               sl_type_size(c->type));
    c->nrows++;
    return 0;
}

int sl_column_append_bool(sl_column *c, bool v)
{
    return column_append_fixed(c, SRC_I, v, 0, 0);
}

int sl_column_append_i64(sl_column *c, int64_t v)
{
    return column_append_fixed(c, SRC_I, v, 0, 0);
}

int sl_column_append_u64(sl_column *c, uint64_t v)
{
    return column_append_fixed(c, SRC_U, 0, v, 0);
}

int sl_column_append_f64(sl_column *c, double v)
{
    return column_append_fixed(c, SRC_D, 0, 0, v);
}

int sl_column_append_str(sl_column *c, const char *p, uint32_t len)
{
    assert(sl_type_is_var(c->type));
    int rc = column_room(c);
    if (rc != 0)
        return rc;
    /* The bytes may come from this column's own heap (a value read back from it), which
     * growing the heap would move: remember them as an offset. */
    uintptr_t up = (uintptr_t)p, hb = (uintptr_t)c->heap;
    bool own = len > 0 && c->heap != NULL && up >= hb && up < hb + c->heap_cap;
    size_t own_off = own ? up - hb : 0;
    rc = column_grow_heap(c, len);
    if (rc != 0)
        return rc;
    if (len > 0)
        memmove(c->heap + c->heap_len, own ? c->heap + own_off : p, len);
    c->heap_len += len;
    c->offsets[c->nrows + 1] = c->heap_len;
    column_mark_valid(c, c->nrows);
    c->nrows++;
    return 0;
}

int sl_column_append_value(sl_column *c, const sl_value *v)
{
    if (v->is_null || v->type == SL_T_NULL)
        return sl_column_append_null(c);
    if (sl_type_is_var(v->type) != sl_type_is_var(c->type))
        return SL_ETYPE;
    if (sl_type_is_var(v->type))
        return sl_column_append_str(c, v->v.s.ptr, v->v.s.len);
    if (v->type == SL_T_BOOL)
        return sl_column_append_bool(c, v->v.b);
    if (sl_type_is_unsigned_int(v->type))
        return sl_column_append_u64(c, v->v.u);
    if (sl_type_is_float(v->type))
        return sl_column_append_f64(c, v->v.d);
    return sl_column_append_i64(c, v->v.i);
}

void sl_column_get(const sl_column *c, uint32_t i, sl_value *out)
{
    if (sl_column_is_null(c, i)) {
        *out = sl_value_null(c->type);
        return;
    }
    switch (c->type) {
    case SL_T_BOOL:
        *out = sl_value_bool(((const uint8_t *)c->data)[sl_column_phys(c, i)] != 0);
        break;
    case SL_T_TINYINT:
    case SL_T_SMALLINT:
    case SL_T_INT:
    case SL_T_BIGINT:
    case SL_T_TIMESTAMP: *out = sl_value_int(c->type, sl_column_get_i64(c, i)); break;
    case SL_T_UTINYINT:
    case SL_T_USMALLINT:
    case SL_T_UINT:
    case SL_T_UBIGINT: *out = sl_value_uint(c->type, sl_column_get_u64(c, i)); break;
    case SL_T_FLOAT:
    case SL_T_DOUBLE: *out = sl_value_double(c->type, sl_column_get_f64(c, i)); break;
    case SL_T_VARCHAR:
    case SL_T_NCHAR: {
        uint32_t len;
        const char *p = sl_column_get_str(c, i, &len);
        *out = sl_value_str(c->type, p, len);
        break;
    }
    default: *out = sl_value_null(c->type); break;
    }
}

int64_t sl_column_get_i64(const sl_column *c, uint32_t i)
{
    i = sl_column_phys(c, i);
    switch (c->type) {
    case SL_T_BOOL: return ((const uint8_t *)c->data)[i];
    case SL_T_TINYINT: return ((const int8_t *)c->data)[i];
    case SL_T_SMALLINT: return ((const int16_t *)c->data)[i];
    case SL_T_INT: return ((const int32_t *)c->data)[i];
    case SL_T_BIGINT:
    case SL_T_TIMESTAMP: return ((const int64_t *)c->data)[i];
    case SL_T_UTINYINT: return ((const uint8_t *)c->data)[i];
    case SL_T_USMALLINT: return ((const uint16_t *)c->data)[i];
    case SL_T_UINT: return ((const uint32_t *)c->data)[i];
    case SL_T_UBIGINT: return (int64_t)((const uint64_t *)c->data)[i];
    case SL_T_FLOAT: return f64_to_i64(((const float *)c->data)[i]);
    case SL_T_DOUBLE: return f64_to_i64(((const double *)c->data)[i]);
    default: assert(!"sl_column_get_i64 on a text column"); return 0;
    }
}

uint64_t sl_column_get_u64(const sl_column *c, uint32_t i)
{
    uint32_t p = sl_column_phys(c, i);
    switch (c->type) {
    case SL_T_UTINYINT: return ((const uint8_t *)c->data)[p];
    case SL_T_USMALLINT: return ((const uint16_t *)c->data)[p];
    case SL_T_UINT: return ((const uint32_t *)c->data)[p];
    case SL_T_UBIGINT: return ((const uint64_t *)c->data)[p];
    case SL_T_FLOAT: return f64_to_u64(((const float *)c->data)[p]);
    case SL_T_DOUBLE: return f64_to_u64(((const double *)c->data)[p]);
    default: return (uint64_t)sl_column_get_i64(c, i);
    }
}

int sl_column_cmp_rows(const sl_column *a, uint32_t i, const sl_column *b, uint32_t j)
{
    if (sl_type_is_var(a->type)) {
        uint32_t la, lb;
        const char *pa = sl_column_get_str(a, i, &la), *pb = sl_column_get_str(b, j, &lb);
        int c = memcmp(pa, pb, la < lb ? la : lb);
        if (c != 0)
            return c < 0 ? -1 : 1;
        return (la > lb) - (la < lb);
    }
    if (sl_type_is_unsigned_int(a->type)) {
        uint64_t x = sl_column_get_u64(a, i), y = sl_column_get_u64(b, j);
        return (x > y) - (x < y);
    }
    int64_t x = sl_column_get_i64(a, i), y = sl_column_get_i64(b, j);
    return (x > y) - (x < y);
}

double sl_column_get_f64(const sl_column *c, uint32_t i)
{
    uint32_t p = sl_column_phys(c, i);
    switch (c->type) {
    case SL_T_FLOAT: return ((const float *)c->data)[p];
    case SL_T_DOUBLE: return ((const double *)c->data)[p];
    case SL_T_UTINYINT:
    case SL_T_USMALLINT:
    case SL_T_UINT:
    case SL_T_UBIGINT: return (double)sl_column_get_u64(c, i);
    default: return (double)sl_column_get_i64(c, i);
    }
}

const char *sl_column_get_str(const sl_column *c, uint32_t i, uint32_t *len)
{
    assert(sl_type_is_var(c->type));
    i = sl_column_phys(c, i);
    uint32_t a = c->offsets[i], b = c->offsets[i + 1];
    *len = b - a;
    /* An all-empty column may have no heap; never hand out NULL + offset. */
    return c->heap != NULL ? c->heap + a : "";
}

/* Replaces a borrowed view by an owned copy of the same rows. */
static int column_own(sl_column *c)
{
    sl_column view = *c;
    column_drop_view(c);
    int rc = sl_column_append_rows(c, &view, NULL, 0, view.nrows);
    if (rc != 0)
        *c = view; /* still a valid view; the caller reports the failure */
    return rc;
}

int sl_column_borrow(sl_column *dst, const sl_column *src, uint32_t from, uint32_t n)
{
    assert(dst->type == src->type);
    assert(src->is_const || (uint64_t)from + n <= src->nrows);
    if (src->is_const || (src->has_nulls && (from & 7) != 0)) {
        sl_column_reset(dst);
        return sl_column_append_rows(dst, src, NULL, from, n);
    }
    sl_column_fini(dst);
    dst->borrowed = true;
    dst->nrows = n;
    dst->cap = n;
    dst->has_nulls = src->has_nulls;
    /* An empty column may have no buffers: NULL + 0 is undefined, so keep NULL. */
    dst->nulls = src->has_nulls && src->nulls != NULL ? src->nulls + from / 8 : NULL;
    if (sl_type_is_var(src->type)) {
        dst->offsets = src->offsets != NULL ? src->offsets + from : NULL;
        dst->heap = src->heap;
        dst->heap_len = src->heap_len;
        dst->heap_cap = src->heap_len;
    } else {
        dst->data = src->data != NULL ? (char *)src->data + (size_t)from * sl_type_size(src->type)
                                      : NULL;
    }
    return 0;
}

int sl_column_set_const(sl_column *c, const sl_value *v, uint32_t nrows)
{
    sl_column_reset(c);
    int rc = sl_column_append_value(c, v);
    if (rc != 0)
        return rc;
    c->is_const = true;
    c->nrows = nrows;
    return 0;
}

/* Text bytes of row i of src (physical index already applied). */
static uint32_t str_len_at(const sl_column *src, uint32_t p)
{
    return src->offsets[p + 1] - src->offsets[p];
}

int sl_column_append_rows(sl_column *dst, const sl_column *src, const uint32_t *sel, uint32_t from,
                          uint32_t n)
{
    bool var = sl_type_is_var(dst->type);
    if (var ? !sl_type_is_var(src->type) : dst->type != src->type)
        return SL_ETYPE;
    if (n == 0)
        return 0;
    assert(sel != NULL || (uint64_t)from + n <= src->nrows);
    int rc;
    if (dst->is_const && (rc = sl_column_materialize(dst)) != 0)
        return rc;
    uint64_t total = (uint64_t)dst->nrows + n;
    if (total > COLUMN_CAP_MAX)
        return SL_ENOMEM;

    uint64_t bytes = 0;
    if (var) {
        if (src->is_const)
            bytes = (uint64_t)str_len_at(src, 0) * n;
        else if (sel == NULL)
            bytes = src->offsets[from + n] - src->offsets[from];
        else
            for (uint32_t k = 0; k < n; k++)
                bytes += str_len_at(src, sel[k]);
        if (bytes > UINT32_MAX - dst->heap_len)
            return SL_ENOMEM;
    }
    /* src may be dst itself: read its arrays only after growing. */
    if ((rc = sl_column_reserve(dst, (uint32_t)total, (uint32_t)bytes)) != 0)
        return rc;

    uint32_t base = dst->nrows;
    if (var) {
        uint32_t h = dst->heap_len;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t p = src->is_const ? 0 : sel ? sel[k] : from + k;
            uint32_t len = str_len_at(src, p);
            if (len > 0)
                memcpy(dst->heap + h, src->heap + src->offsets[p], len);
            h += len;
            dst->offsets[base + k + 1] = h;
        }
        dst->heap_len = h;
    } else {
        size_t sz = sl_type_size(dst->type);
        char *out = (char *)dst->data + (size_t)base * sz;
        const char *in = src->data;
        if (src->is_const) {
            memcpy(out, in, sz);
            fill_elems(out, sz, n);
        } else if (sel == NULL) {
            memcpy(out, in + (size_t)from * sz, (size_t)n * sz);
        } else {
            switch (sz) {
            case 1:
                for (uint32_t k = 0; k < n; k++)
                    ((uint8_t *)out)[k] = ((const uint8_t *)in)[sel[k]];
                break;
            case 2:
                for (uint32_t k = 0; k < n; k++)
                    ((uint16_t *)out)[k] = ((const uint16_t *)in)[sel[k]];
                break;
            case 4:
                for (uint32_t k = 0; k < n; k++)
                    ((uint32_t *)out)[k] = ((const uint32_t *)in)[sel[k]];
                break;
            default:
                for (uint32_t k = 0; k < n; k++)
                    ((uint64_t *)out)[k] = ((const uint64_t *)in)[sel[k]];
                break;
            }
        }
    }

    if (src->has_nulls) {
        for (uint32_t k = 0; k < n; k++) {
            uint32_t r = sel ? sel[k] : from + k;
            if (sl_column_is_null(src, r)) {
                if ((rc = sl_column_set_null(dst, base + k)) != 0)
                    return rc; /* nrows unchanged: the copied rows are simply not there */
            } else {
                column_mark_valid(dst, base + k);
            }
        }
    } else if (dst->has_nulls) {
        bits_fill(dst->nulls, base, n, false);
    }
    dst->nrows = (uint32_t)total;
    return 0;
}

int sl_column_materialize(sl_column *c)
{
    if (!c->is_const)
        return 0;
    uint32_t n = c->nrows;
    if (n == 0) {
        sl_column_reset(c);
        return 0;
    }
    bool null = sl_column_is_null(c, 0);
    int rc;
    if (sl_type_is_var(c->type)) {
        uint32_t len = str_len_at(c, 0);
        uint64_t extra = (uint64_t)len * (n - 1);
        if (extra > UINT32_MAX - c->heap_len)
            return SL_ENOMEM;
        if ((rc = sl_column_reserve(c, n, (uint32_t)extra)) != 0)
            return rc;
        assert(c->offsets[0] == 0);
        for (uint32_t i = 0; i <= n; i++)
            c->offsets[i] = i * len;
        if (len > 0)
            fill_elems(c->heap, len, n);
        c->heap_len = n * len;
    } else {
        if ((rc = sl_column_reserve(c, n, 0)) != 0)
            return rc;
        fill_elems(c->data, sl_type_size(c->type), n);
    }
    if (c->has_nulls)
        bits_fill(c->nulls, 0, n, null);
    c->is_const = false;
    return 0;
}

size_t sl_column_mem(const sl_column *c)
{
    size_t m = c->heap_cap;
    if (c->nulls != NULL)
        m += bitmap_bytes(c->cap);
    if (c->data != NULL)
        m += (size_t)c->cap * sl_type_size(c->type);
    if (c->offsets != NULL)
        m += ((size_t)c->cap + 1) * sizeof(uint32_t);
    return m;
}

void sl_block_init(sl_block *b)
{
    b->nrows = 0;
    b->ncols = 0;
    b->capcols = 0;
    b->cols = NULL;
}

void sl_block_fini(sl_block *b)
{
    if (b == NULL)
        return;
    for (uint32_t i = 0; i < b->ncols; i++)
        sl_column_fini(&b->cols[i]);
    free(b->cols);
    sl_block_init(b);
}

sl_block *sl_block_new(void)
{
    sl_block *b = malloc(sizeof(*b));
    if (b != NULL)
        sl_block_init(b);
    return b;
}

void sl_block_free(sl_block *b)
{
    if (b == NULL)
        return;
    sl_block_fini(b);
    free(b);
}

int sl_block_add_column(sl_block *b, sl_type t, uint32_t width)
{
    if (t <= SL_T_NULL || t >= SL_T__COUNT)
        return SL_EINVAL;
    if (b->ncols == b->capcols) {
        if (b->capcols >= INT32_MAX / 2)
            return SL_ENOMEM;
        uint32_t ncap = b->capcols ? b->capcols * 2 : 4;
        sl_column *cols = realloc(b->cols, (size_t)ncap * sizeof(*cols));
        if (cols == NULL)
            return SL_ENOMEM;
        b->cols = cols;
        b->capcols = ncap;
    }
    sl_column_init(&b->cols[b->ncols], t, width);
    return (int)b->ncols++;
}

void sl_block_reset(sl_block *b)
{
    for (uint32_t i = 0; i < b->ncols; i++)
        sl_column_reset(&b->cols[i]);
    b->nrows = 0;
}

void sl_block_seal(sl_block *b)
{
    /* A block without columns keeps the row count its producer set. */
    if (b->ncols == 0)
        return;
    b->nrows = b->cols[0].nrows;
    for (uint32_t i = 1; i < b->ncols; i++)
        assert(b->cols[i].nrows == b->nrows);
}
