/*
 * agg_minmax.c - MIN, MAX and SPREAD: the aggregates that keep extreme values.
 *
 * They share one kernel per argument type that finds the smallest and/or largest value
 * of a range, because SPREAD is just max - min and MIN/MAX are each one half of it. For
 * one group the kernel is a plain min/max reduction over the native array (vectorised);
 * for many groups it compares row by row against each group's state. Strings compare
 * bytewise and the state owns a copy, made once per call for one group (the best row is
 * found by pointer first) and reused in place when a grouped state improves.
 *
 * NaN is ordered above every number, as PostgreSQL does: MAX is NaN when any input is,
 * MIN is NaN only when every input is, SPREAD is NaN when any input is. Tracking NaN
 * apart from the value keeps the result independent of the input order, which a plain
 * `x < min` comparison would not be, and so keeps merges exact. -0.0 and 0.0 compare
 * equal; whichever is met first is kept.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agg_internal.h"

/* MIN or MAX of a fixed-width type. */
typedef struct st_mm {
    sl__val v;   /* the extreme non-NaN value, valid when has */
    uint8_t has; /* some non-NULL, non-NaN input was seen */
    uint8_t nan; /* some NaN input was seen (floats only) */
} st_mm;

/* SPREAD: both extremes. */
typedef struct st_spread {
    sl__val lo;  /* smallest non-NaN value, valid when has */
    sl__val hi;  /* largest non-NaN value, valid when has */
    uint8_t has; /* as in st_mm */
    uint8_t nan; /* as in st_mm */
} st_spread;

/* MIN or MAX of VARCHAR/NCHAR. */
typedef struct st_mms {
    sl__str s;   /* owned copy of the extreme value, valid when has */
    uint8_t has; /* some non-NULL input was seen */
} st_mms;

#define FLAG_HAS 1
#define FLAG_NAN 2

static size_t mm_size(const sl_agg *a)
{
    if (a->kind == SL_AGG_SPREAD)
        return sizeof(st_spread);
    return sl_type_is_var(a->arg_type) ? sizeof(st_mms) : sizeof(st_mm);
}

static void mm_fini(const sl_agg *a, void *st)
{
    if (a->kind != SL_AGG_SPREAD && sl_type_is_var(a->arg_type)) {
        st_mms *s = st;
        sl__str_free(&s->s);
        s->has = 0;
    }
}

static inline bool val_lt(sl__vclass vc, sl__val x, sl__val y)
{
    switch (vc) {
    case SL__VC_I:
        return x.i < y.i;
    case SL__VC_U:
        return x.u < y.u;
    default:
        return x.d < y.d;
    }
}

/*
 * Folds a summary of some inputs (extremes lo/hi, valid when has; nan when a NaN was
 * among them) into a fixed-width state. Used once per call for one group, and for
 * constant columns and merges.
 */
static void mm_fold(const sl_agg *a, void *st, sl__val lo, sl__val hi, bool has, bool nan)
{
    sl__vclass vc = sl__vclass_of(a->arg_type);
    if (a->kind == SL_AGG_SPREAD) {
        st_spread *s = st;
        if (has) {
            if (!s->has || val_lt(vc, lo, s->lo))
                s->lo = lo;
            if (!s->has || val_lt(vc, s->hi, hi))
                s->hi = hi;
            s->has = 1;
        }
        s->nan |= nan;
        return;
    }
    st_mm *s = st;
    if (has) {
        if (a->kind == SL_AGG_MIN) {
            if (!s->has || val_lt(vc, lo, s->v))
                s->v = lo;
        } else if (!s->has || val_lt(vc, s->v, hi)) {
            s->v = hi;
        }
        s->has = 1;
    }
    s->nan |= nan;
}

#define V_ID(x) (x)
#define V_BOOL(x) ((x) != 0)
#define NN_INT(x) 1
#define NN_FLT(x) ((x) == (x))
#define NNSTEP_INT(a, x) ((a) + 1)
#define NNSTEP_FLT(a, x) ((a) + ((x) == (x)))

/*
 * The kernel for a T column whose values widen into field F of sl__val. LO/HI are the
 * identities of max/min (the type's extremes, or -inf/+inf). NOTNAN(x) is 1 for
 * integers and NNSTEP counts non-NaN values. CONV normalises BOOL bytes to 0/1 as they
 * enter a state.
 */
#define MM_T(T, F, LO, HI, NOTNAN, NNSTEP, CONV)                                             \
    do {                                                                                     \
        const T *v = (const T *)arg->data + from;                                            \
        if (gids == NULL) {                                                                  \
            T lo = HI, hi = LO;                                                              \
            int64_t cnt = n, nn = 0;                                                         \
            if (nb == NULL) {                                                                \
                /* Separate reductions, each of which the compiler vectorises. */           \
                if (a->kind != SL_AGG_MAX)                                                   \
                    SL__REDUCE(T, lo, HI, T, v, n, SL__RED_MIN, SL__RED_MIN);                \
                if (a->kind != SL_AGG_MIN)                                                   \
                    SL__REDUCE(T, hi, LO, T, v, n, SL__RED_MAX, SL__RED_MAX);                \
                SL__REDUCE(int64_t, nn, 0, T, v, n, NNSTEP, SL__RED_ADD);                    \
            } else {                                                                         \
                for (uint32_t k = 0; k < n; k++) {                                           \
                    if (sl__bit(nb, from + k)) {                                             \
                        cnt--;                                                               \
                        continue;                                                            \
                    }                                                                        \
                    T x = v[k];                                                              \
                    lo = x < lo ? x : lo;                                                    \
                    hi = x > hi ? x : hi;                                                    \
                    nn += NOTNAN(x);                                                         \
                }                                                                            \
            }                                                                                \
            sl__val l, h;                                                                    \
            l.F = CONV(lo);                                                                  \
            h.F = CONV(hi);                                                                  \
            mm_fold(a, states, l, h, nn > 0, nn < cnt);                                      \
            break;                                                                           \
        }                                                                                    \
        for (uint32_t k = 0; k < n; k++) {                                                   \
            if (nb != NULL && sl__bit(nb, from + k))                                         \
                continue;                                                                    \
            T x = v[k];                                                                      \
            if (!NOTNAN(x)) {                                                                \
                if (a->kind == SL_AGG_SPREAD)                                                \
                    SL__ST(st_spread, states, stride, gids, k)->nan = 1;                     \
                else                                                                         \
                    SL__ST(st_mm, states, stride, gids, k)->nan = 1;                         \
                continue;                                                                    \
            }                                                                                \
            if (a->kind == SL_AGG_MIN) {                                                     \
                st_mm *s = SL__ST(st_mm, states, stride, gids, k);                           \
                if (!s->has || x < s->v.F) {                                                 \
                    s->v.F = CONV(x);                                                        \
                    s->has = 1;                                                              \
                }                                                                            \
            } else if (a->kind == SL_AGG_MAX) {                                              \
                st_mm *s = SL__ST(st_mm, states, stride, gids, k);                           \
                if (!s->has || x > s->v.F) {                                                 \
                    s->v.F = CONV(x);                                                        \
                    s->has = 1;                                                              \
                }                                                                            \
            } else {                                                                         \
                st_spread *s = SL__ST(st_spread, states, stride, gids, k);                   \
                if (!s->has) {                                                               \
                    s->lo.F = s->hi.F = x;                                                   \
                    s->has = 1;                                                              \
                } else if (x < s->lo.F) {                                                    \
                    s->lo.F = x;                                                             \
                } else if (x > s->hi.F) {                                                    \
                    s->hi.F = x;                                                             \
                }                                                                            \
            }                                                                                \
        }                                                                                    \
    } while (0)

/* Folds one string into a MIN/MAX state, copying it when it is the new extreme. */
static int mms_fold(const sl_agg *a, st_mms *s, const char *p, uint32_t len)
{
    if (s->has) {
        int c = sl__str_cmp(p, len, s->s.p, s->s.len);
        if (a->kind == SL_AGG_MIN ? c >= 0 : c <= 0)
            return 0;
    }
    int rc = sl__str_set(&s->s, p, len);
    if (rc == 0)
        s->has = 1;
    return rc;
}

static int mms_update(const sl_agg *a, uint8_t *states, size_t stride, const uint32_t *gids,
                      const sl_column *arg, uint32_t from, uint32_t n)
{
    uint32_t len;
    const char *p;
    if (arg->is_const) {
        if (sl__const_null(arg))
            return 0;
        p = sl__col_str(arg, 0, &len);
        if (gids == NULL)
            return mms_fold(a, (st_mms *)states, p, len);
        for (uint32_t k = 0; k < n; k++) {
            int rc = mms_fold(a, SL__ST(st_mms, states, stride, gids, k), p, len);
            if (rc != 0)
                return rc;
        }
        return 0;
    }
    const uint8_t *nb = sl__col_nulls(arg);
    bool min = a->kind == SL_AGG_MIN;
    if (gids == NULL) {
        /* Find the extreme by pointer, then copy at most once. */
        const char *bp = NULL;
        uint32_t bl = 0;
        for (uint32_t k = 0; k < n; k++) {
            if (nb != NULL && sl__bit(nb, from + k))
                continue;
            p = sl__col_str(arg, from + k, &len);
            if (bp != NULL) {
                int c = sl__str_cmp(p, len, bp, bl);
                if (min ? c >= 0 : c <= 0)
                    continue;
            }
            bp = p;
            bl = len;
        }
        return bp != NULL ? mms_fold(a, (st_mms *)states, bp, bl) : 0;
    }
    for (uint32_t k = 0; k < n; k++) {
        if (nb != NULL && sl__bit(nb, from + k))
            continue;
        p = sl__col_str(arg, from + k, &len);
        int rc = mms_fold(a, SL__ST(st_mms, states, stride, gids, k), p, len);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int mm_update(const sl_agg *a, uint8_t *states, size_t stride, const uint32_t *gids,
                     const sl_column *arg, const sl_column *ts, uint32_t from, uint32_t n)
{
    if (sl_type_is_var(a->arg_type))
        return mms_update(a, states, stride, gids, arg, from, n);
    if (arg->is_const) {
        if (sl__const_null(arg))
            return 0;
        sl__val v = sl__col_val(arg, 0);
        bool nan = sl_type_is_float(a->arg_type) && isnan(v.d);
        /* Folding the same value again changes nothing, so one fold per group. */
        if (gids == NULL) {
            mm_fold(a, states, v, v, !nan, nan);
        } else {
            for (uint32_t k = 0; k < n; k++)
                mm_fold(a, SL__ST(uint8_t, states, stride, gids, k), v, v, !nan, nan);
        }
        return 0;
    }
    const uint8_t *nb = sl__col_nulls(arg);
    switch (a->arg_type) {
    case SL_T_BOOL:
        MM_T(uint8_t, u, 0, UINT8_MAX, NN_INT, NNSTEP_INT, V_BOOL);
        break;
    case SL_T_TINYINT:
        MM_T(int8_t, i, INT8_MIN, INT8_MAX, NN_INT, NNSTEP_INT, V_ID);
        break;
    case SL_T_SMALLINT:
        MM_T(int16_t, i, INT16_MIN, INT16_MAX, NN_INT, NNSTEP_INT, V_ID);
        break;
    case SL_T_INT:
        MM_T(int32_t, i, INT32_MIN, INT32_MAX, NN_INT, NNSTEP_INT, V_ID);
        break;
    case SL_T_BIGINT:
    case SL_T_TIMESTAMP:
        MM_T(int64_t, i, INT64_MIN, INT64_MAX, NN_INT, NNSTEP_INT, V_ID);
        break;
    case SL_T_UTINYINT:
        MM_T(uint8_t, u, 0, UINT8_MAX, NN_INT, NNSTEP_INT, V_ID);
        break;
    case SL_T_USMALLINT:
        MM_T(uint16_t, u, 0, UINT16_MAX, NN_INT, NNSTEP_INT, V_ID);
        break;
    case SL_T_UINT:
        MM_T(uint32_t, u, 0, UINT32_MAX, NN_INT, NNSTEP_INT, V_ID);
        break;
    case SL_T_UBIGINT:
        MM_T(uint64_t, u, 0, UINT64_MAX, NN_INT, NNSTEP_INT, V_ID);
        break;
    case SL_T_FLOAT:
        MM_T(float, d, -INFINITY, INFINITY, NN_FLT, NNSTEP_FLT, V_ID);
        break;
    case SL_T_DOUBLE:
        MM_T(double, d, -INFINITY, INFINITY, NN_FLT, NNSTEP_FLT, V_ID);
        break;
    default:
        assert(!"MIN/MAX/SPREAD of an unknown type");
        break;
    }
    return 0;
}

static int mm_merge(const sl_agg *a, void *dst, const void *src)
{
    if (a->kind == SL_AGG_SPREAD) {
        const st_spread *s = src;
        mm_fold(a, dst, s->lo, s->hi, s->has, s->nan);
        return 0;
    }
    if (sl_type_is_var(a->arg_type)) {
        const st_mms *s = src;
        return s->has ? mms_fold(a, dst, s->s.p, s->s.len) : 0;
    }
    const st_mm *s = src;
    mm_fold(a, dst, s->v, s->v, s->has, s->nan);
    return 0;
}

static int mm_finalize(const sl_agg *a, const void *st, sl_column *out, sl_error *err)
{
    if (a->kind == SL_AGG_SPREAD) {
        const st_spread *s = st;
        if (s->nan)
            return sl_column_append_f64(out, NAN);
        if (!s->has)
            return sl_column_append_null(out);
        double d;
        switch (sl__vclass_of(a->arg_type)) {
        case SL__VC_I:
            /* The difference of two int64 always fits in uint64: exact until rounding. */
            d = (double)((uint64_t)s->hi.i - (uint64_t)s->lo.i);
            break;
        case SL__VC_U:
            d = (double)(s->hi.u - s->lo.u);
            break;
        default:
            d = s->hi.d - s->lo.d;
            break;
        }
        return sl_column_append_f64(out, d);
    }
    if (sl_type_is_var(a->arg_type)) {
        const st_mms *s = st;
        if (!s->has)
            return sl_column_append_null(out);
        return sl_column_append_str(out, s->s.p != NULL ? s->s.p : "", s->s.len);
    }
    const st_mm *s = st;
    /* NaN sorts above all numbers. */
    bool nan = a->kind == SL_AGG_MAX ? s->nan : s->nan && !s->has;
    if (nan)
        return sl_column_append_f64(out, NAN);
    if (!s->has)
        return sl_column_append_null(out);
    return sl__append_val(out, a->arg_type, s->v);
}

/*
 * Encoding: one flags byte (FLAG_HAS, FLAG_NAN), then when FLAG_HAS the value (MIN/MAX),
 * the two extremes (SPREAD) or the string (varint length, bytes).
 */
static int mm_encode(const sl_agg *a, const void *st, sl_buf *out)
{
    int rc;
    if (a->kind == SL_AGG_SPREAD) {
        const st_spread *s = st;
        if ((rc = sl_buf_put_u8(out, (s->has ? FLAG_HAS : 0) | (s->nan ? FLAG_NAN : 0))) != 0)
            return rc;
        if (s->has && (rc = sl__val_encode(out, a->arg_type, s->lo)) == 0)
            rc = sl__val_encode(out, a->arg_type, s->hi);
        return rc;
    }
    if (sl_type_is_var(a->arg_type)) {
        const st_mms *s = st;
        if ((rc = sl_buf_put_u8(out, s->has ? FLAG_HAS : 0)) != 0)
            return rc;
        return s->has ? sl__str_encode(out, s->s.p, s->s.len) : 0;
    }
    const st_mm *s = st;
    if ((rc = sl_buf_put_u8(out, (s->has ? FLAG_HAS : 0) | (s->nan ? FLAG_NAN : 0))) != 0)
        return rc;
    return s->has ? sl__val_encode(out, a->arg_type, s->v) : 0;
}

static int mm_decode(const sl_agg *a, void *st, sl_reader *r)
{
    uint8_t f;
    int rc = sl_reader_u8(r, &f);
    if (rc != 0)
        return rc;
    bool flt = sl_type_is_float(a->arg_type);
    /* Only floats can have seen NaN, and kept values are never NaN. */
    if ((f & ~(FLAG_HAS | FLAG_NAN)) != 0 || ((f & FLAG_NAN) && !flt))
        return SL_ECORRUPT;
    bool has = f & FLAG_HAS;
    if (sl_type_is_var(a->arg_type) && a->kind != SL_AGG_SPREAD) {
        st_mms *s = st;
        if (has && (rc = sl__str_decode(r, a->arg_type, &s->s)) != 0)
            return rc;
        s->has = has;
        return 0;
    }
    if (a->kind == SL_AGG_SPREAD) {
        st_spread *s = st;
        if (has) {
            if ((rc = sl__val_decode(r, a->arg_type, &s->lo)) != 0 ||
                (rc = sl__val_decode(r, a->arg_type, &s->hi)) != 0)
                return rc;
            if ((flt && (isnan(s->lo.d) || isnan(s->hi.d))) ||
                val_lt(sl__vclass_of(a->arg_type), s->hi, s->lo))
                return SL_ECORRUPT;
        }
        s->has = has;
        s->nan = (f & FLAG_NAN) != 0;
        return 0;
    }
    st_mm *s = st;
    if (has) {
        if ((rc = sl__val_decode(r, a->arg_type, &s->v)) != 0)
            return rc;
        if (flt && isnan(s->v.d))
            return SL_ECORRUPT;
    }
    s->has = has;
    s->nan = (f & FLAG_NAN) != 0;
    return 0;
}

const sl__agg_ops sl__agg_minmax_ops = {
    .size = mm_size,
    .fini = mm_fini,
    .update = mm_update,
    .merge = mm_merge,
    .finalize = mm_finalize,
    .encode = mm_encode,
    .decode = mm_decode,
};
