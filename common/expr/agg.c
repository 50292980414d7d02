/*
 * agg.c - the aggregate function table, the public entry points, and the arithmetic
 * aggregates COUNT, SUM, AVG and STDDEV.
 *
 * Aggregation runs on vnodes (partial states per group) and again where partial states
 * meet, so every state here is small, fixed-size, mergeable without loss and encodable.
 * Exactness drives the layouts: integer sums are 128-bit (so no order of inputs or merges
 * can overflow before finalisation decides), float sums are compensated (a double-double
 * pair) so a merged sum matches a one-pass sum but for rare last-bit differences (an exact
 * float accumulator would take hundreds of bytes a state), and STDDEV keeps Welford's
 * (n, mean, M2) merged with Chan's formula. Update loops switch on the argument type once per call
 * and then run over the column's native array; the single-group no-NULL loops are plain
 * reductions the compiler vectorises. MIN/MAX/SPREAD live in agg_minmax.c and
 * FIRST/LAST/LAST_ROW in agg_select.c (see agg_internal.h).
 *
 * The float code needs IEEE double arithmetic without reassociation: never build it with
 * -ffast-math, which would optimise the compensation terms away.
 */
#include "agg.h"

#include <assert.h>
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agg_internal.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

/* ---------------------------------------------------------------------------------------
 * The table of functions
 * ------------------------------------------------------------------------------------- */

#define TB(t) (1u << (t))
#define T_INTS                                                                               \
    (TB(SL_T_TINYINT) | TB(SL_T_SMALLINT) | TB(SL_T_INT) | TB(SL_T_BIGINT) |                  \
     TB(SL_T_UTINYINT) | TB(SL_T_USMALLINT) | TB(SL_T_UINT) | TB(SL_T_UBIGINT))
#define T_NUM (T_INTS | TB(SL_T_FLOAT) | TB(SL_T_DOUBLE))
#define T_ALL (T_NUM | TB(SL_T_BOOL) | TB(SL_T_TIMESTAMP) | TB(SL_T_VARCHAR) | TB(SL_T_NCHAR))

typedef struct agg_def {
    const char *name;        /* SQL name, lower case */
    const char *upper;       /* the name in messages */
    uint32_t accepts;        /* bit t set: argument type t is accepted */
    bool needs_ts;           /* reads the timestamp column */
    const sl__agg_ops *ops;  /* the family implementing it */
} agg_def;

/* BOOL sums as 0/1 (a count of true rows is a common query); SPREAD and STDDEV of BOOL
 * have no useful meaning and TIMESTAMP sums none at all, so they are refused. */
static const agg_def agg_defs[SL_AGG__COUNT] = {
    [SL_AGG_COUNT_STAR] = {.name = "count", .upper = "COUNT", .accepts = T_ALL,
                           .ops = &sl__agg_count_ops},
    [SL_AGG_COUNT] = {.name = "count", .upper = "COUNT", .accepts = T_ALL,
                      .ops = &sl__agg_count_ops},
    [SL_AGG_SUM] = {.name = "sum", .upper = "SUM", .accepts = T_NUM | TB(SL_T_BOOL),
                    .ops = &sl__agg_sum_ops},
    [SL_AGG_AVG] = {.name = "avg", .upper = "AVG", .accepts = T_NUM | TB(SL_T_BOOL),
                    .ops = &sl__agg_sum_ops},
    [SL_AGG_MIN] = {.name = "min", .upper = "MIN", .accepts = T_ALL,
                    .ops = &sl__agg_minmax_ops},
    [SL_AGG_MAX] = {.name = "max", .upper = "MAX", .accepts = T_ALL,
                    .ops = &sl__agg_minmax_ops},
    [SL_AGG_FIRST] = {.name = "first", .upper = "FIRST", .accepts = T_ALL, .needs_ts = true,
                      .ops = &sl__agg_select_ops},
    [SL_AGG_LAST] = {.name = "last", .upper = "LAST", .accepts = T_ALL, .needs_ts = true,
                     .ops = &sl__agg_select_ops},
    [SL_AGG_LAST_ROW] = {.name = "last_row", .upper = "LAST_ROW", .accepts = T_ALL,
                         .needs_ts = true, .ops = &sl__agg_select_ops},
    [SL_AGG_SPREAD] = {.name = "spread", .upper = "SPREAD", .accepts = T_NUM | TB(SL_T_TIMESTAMP),
                       .ops = &sl__agg_minmax_ops},
    [SL_AGG_STDDEV] = {.name = "stddev", .upper = "STDDEV", .accepts = T_NUM,
                       .ops = &sl__agg_stddev_ops},
};

/* The decoder builds a state on the stack before swapping it in; every family fits. */
#define AGG_STATE_MAX 64

bool sl_agg_lookup(const char *name, sl_agg_kind *out)
{
    for (int k = SL_AGG_COUNT; k < SL_AGG__COUNT; k++) {
        const char *a = agg_defs[k].name, *b = name;
        while (*a != '\0' && *a == tolower((unsigned char)*b)) {
            a++;
            b++;
        }
        if (*a == '\0' && *b == '\0') {
            *out = (sl_agg_kind)k;
            return true;
        }
    }
    return false;
}

const char *sl_agg_name(sl_agg_kind k)
{
    return (unsigned)k < SL_AGG__COUNT ? agg_defs[k].name : "?";
}

bool sl_agg_needs_ts(sl_agg_kind k)
{
    return (unsigned)k < SL_AGG__COUNT && agg_defs[k].needs_ts;
}

int sl_agg_create(sl_agg_kind k, sl_type arg_type, uint32_t arg_width, sl_agg **out,
                  sl_error *err)
{
    *out = NULL;
    if ((unsigned)k >= SL_AGG__COUNT)
        return sl_error_set(err, SL_EINVAL, 0, 0, "unknown aggregate function %d", (int)k);
    const agg_def *d = &agg_defs[k];
    if (k == SL_AGG_COUNT_STAR) {
        arg_type = SL_T_NULL;
        arg_width = 0;
    } else if ((unsigned)arg_type >= SL_T__COUNT || !(d->accepts & TB(arg_type))) {
        return sl_error_set(err, SL_ETYPE, 0, 0, "function %s does not accept %s", d->upper,
                            sl_type_name(arg_type));
    }
    if (!sl_type_is_var(arg_type))
        arg_width = 0;

    sl_agg *a = calloc(1, sizeof *a);
    if (a == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory creating %s", d->upper);
    a->kind = k;
    a->arg_type = arg_type;
    a->arg_width = arg_width;
    a->ops = d->ops;
    switch (k) {
    case SL_AGG_COUNT_STAR:
    case SL_AGG_COUNT:
        a->res_type = SL_T_BIGINT;
        break;
    case SL_AGG_SUM:
        a->res_type = sl_type_is_float(arg_type)          ? SL_T_DOUBLE
                      : sl_type_is_unsigned_int(arg_type) ? SL_T_UBIGINT
                                                          : SL_T_BIGINT;
        break;
    case SL_AGG_AVG:
    case SL_AGG_SPREAD:
    case SL_AGG_STDDEV:
        a->res_type = SL_T_DOUBLE;
        break;
    default: /* MIN, MAX, FIRST, LAST, LAST_ROW keep the argument's type */
        a->res_type = arg_type;
        a->res_width = arg_width;
        break;
    }
    size_t sz = a->ops->size(a);
    assert(sz % 8 == 0 && sz <= AGG_STATE_MAX);
    a->state_size = (uint32_t)sz;
    *out = a;
    return 0;
}

void sl_agg_free(sl_agg *a)
{
    free(a);
}

sl_agg_kind sl_agg_kind_of(const sl_agg *a)
{
    return a->kind;
}

sl_type sl_agg_result_type(const sl_agg *a)
{
    return a->res_type;
}

uint32_t sl_agg_result_width(const sl_agg *a)
{
    return a->res_width;
}

size_t sl_agg_state_size(const sl_agg *a)
{
    return a->state_size;
}

void sl_agg_state_init(const sl_agg *a, void *state)
{
    /* Every family reads all-zero as "no input yet". */
    memset(state, 0, a->state_size);
}

void sl_agg_state_fini(const sl_agg *a, void *state)
{
    if (state != NULL && a->ops->fini != NULL)
        a->ops->fini(a, state);
}

int sl_agg_update(const sl_agg *a, uint8_t *states, size_t stride, const uint32_t *gids,
                  const sl_column *arg, const sl_column *ts, uint32_t from, uint32_t n)
{
    if (n == 0)
        return 0;
    assert(states != NULL);
    assert(gids == NULL || stride >= a->state_size);
    /* Columns of the wrong type would be read at the wrong width: a planner bug. */
    assert(a->kind == SL_AGG_COUNT_STAR ||
           (arg != NULL && (uint64_t)from + n <= arg->nrows &&
            (arg->type == a->arg_type ||
             (sl_type_is_var(arg->type) && sl_type_is_var(a->arg_type)))));
    assert(!agg_defs[a->kind].needs_ts ||
           (ts != NULL && ts->type == SL_T_TIMESTAMP && (uint64_t)from + n <= ts->nrows));
    return a->ops->update(a, states, stride, gids, arg, ts, from, n);
}

int sl_agg_merge(const sl_agg *a, void *dst, const void *src)
{
    return a->ops->merge(a, dst, src);
}

int sl_agg_finalize(const sl_agg *a, const void *state, sl_column *out, sl_error *err)
{
    assert(out->type == a->res_type);
    return a->ops->finalize(a, state, out, err);
}

int sl_agg_state_encode(const sl_agg *a, const void *state, sl_buf *out)
{
    return a->ops->encode(a, state, out);
}

int sl_agg_state_decode(const sl_agg *a, void *state, sl_reader *r)
{
    /* Decode into a scratch state so a failure leaves *state (and r) untouched and a
     * success replaces whatever strings the old state owned. */
    uint64_t tmp[AGG_STATE_MAX / 8];
    memset(tmp, 0, sizeof tmp);
    sl_reader save = *r;
    int rc = a->ops->decode(a, tmp, r);
    if (rc != 0) {
        sl_agg_state_fini(a, tmp);
        *r = save;
        return rc;
    }
    sl_agg_state_fini(a, state);
    memcpy(state, tmp, a->state_size);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Shared helpers (agg_internal.h)
 * ------------------------------------------------------------------------------------- */

sl__vclass sl__vclass_of(sl_type t)
{
    if (sl_type_is_signed_int(t) || t == SL_T_TIMESTAMP)
        return SL__VC_I;
    if (sl_type_is_unsigned_int(t) || t == SL_T_BOOL)
        return SL__VC_U;
    if (sl_type_is_float(t))
        return SL__VC_F;
    return SL__VC_S;
}

sl__val sl__col_val(const sl_column *c, uint32_t row)
{
    sl__val v = {.u = 0};
    switch (c->type) {
    case SL_T_BOOL:
        v.u = ((const uint8_t *)c->data)[row] != 0;
        break;
    case SL_T_TINYINT:
        v.i = ((const int8_t *)c->data)[row];
        break;
    case SL_T_SMALLINT:
        v.i = ((const int16_t *)c->data)[row];
        break;
    case SL_T_INT:
        v.i = ((const int32_t *)c->data)[row];
        break;
    case SL_T_BIGINT:
    case SL_T_TIMESTAMP:
        v.i = ((const int64_t *)c->data)[row];
        break;
    case SL_T_UTINYINT:
        v.u = ((const uint8_t *)c->data)[row];
        break;
    case SL_T_USMALLINT:
        v.u = ((const uint16_t *)c->data)[row];
        break;
    case SL_T_UINT:
        v.u = ((const uint32_t *)c->data)[row];
        break;
    case SL_T_UBIGINT:
        v.u = ((const uint64_t *)c->data)[row];
        break;
    case SL_T_FLOAT:
        v.d = ((const float *)c->data)[row];
        break;
    case SL_T_DOUBLE:
        v.d = ((const double *)c->data)[row];
        break;
    default:
        assert(!"not a fixed-width type");
        break;
    }
    return v;
}

int sl__append_val(sl_column *out, sl_type t, sl__val v)
{
    switch (sl__vclass_of(t)) {
    case SL__VC_I:
        return sl_column_append_i64(out, v.i);
    case SL__VC_U:
        return t == SL_T_BOOL ? sl_column_append_bool(out, v.u != 0)
                              : sl_column_append_u64(out, v.u);
    case SL__VC_F:
        return sl_column_append_f64(out, v.d);
    default:
        assert(!"not a fixed-width type");
        return SL_EINVAL;
    }
}

/* The range of integer type t, for refusing decoded values a column could not hold. */
static int64_t int_min(sl_type t)
{
    switch (t) {
    case SL_T_TINYINT:
        return INT8_MIN;
    case SL_T_SMALLINT:
        return INT16_MIN;
    case SL_T_INT:
        return INT32_MIN;
    case SL_T_BIGINT:
    case SL_T_TIMESTAMP:
        return INT64_MIN;
    default: /* unsigned and BOOL */
        return 0;
    }
}

static uint64_t int_max(sl_type t)
{
    switch (t) {
    case SL_T_BOOL:
        return 1;
    case SL_T_TINYINT:
        return INT8_MAX;
    case SL_T_SMALLINT:
        return INT16_MAX;
    case SL_T_INT:
        return INT32_MAX;
    case SL_T_BIGINT:
    case SL_T_TIMESTAMP:
        return INT64_MAX;
    case SL_T_UTINYINT:
        return UINT8_MAX;
    case SL_T_USMALLINT:
        return UINT16_MAX;
    case SL_T_UINT:
        return UINT32_MAX;
    default:
        return UINT64_MAX;
    }
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

int sl__val_encode(sl_buf *out, sl_type t, sl__val v)
{
    switch (sl__vclass_of(t)) {
    case SL__VC_I:
        return sl_buf_put_vari(out, v.i);
    case SL__VC_U:
        return sl_buf_put_varu(out, v.u);
    default:
        return sl_buf_put_u64(out, dbits(v.d));
    }
}

int sl__val_decode(sl_reader *r, sl_type t, sl__val *v)
{
    uint64_t u;
    int rc;
    switch (sl__vclass_of(t)) {
    case SL__VC_I:
        if ((rc = sl_reader_vari(r, &v->i)) != 0)
            return rc;
        if (v->i < int_min(t) || v->i > (int64_t)int_max(t))
            return SL_ECORRUPT;
        return 0;
    case SL__VC_U:
        if ((rc = sl_reader_varu(r, &v->u)) != 0)
            return rc;
        return v->u > int_max(t) ? SL_ECORRUPT : 0;
    case SL__VC_F:
        if ((rc = sl_reader_u64(r, &u)) != 0)
            return rc;
        v->d = bitsd(u);
        /* A FLOAT state only ever holds floats widened exactly. The range test comes first
         * because narrowing an out-of-range double is undefined. */
        if (t == SL_T_FLOAT && isfinite(v->d) &&
            (fabs(v->d) > FLT_MAX || (double)(float)v->d != v->d))
            return SL_ECORRUPT;
        return 0;
    default:
        return SL_ECORRUPT;
    }
}

int sl__str_set(sl__str *s, const char *p, uint32_t len)
{
    if (len > s->cap || s->p == NULL) {
        /* malloc(0) may return NULL; keep at least one byte so p != NULL means "owned". */
        char *q = malloc(len ? len : 1);
        if (q == NULL)
            return SL_ENOMEM;
        free(s->p);
        s->p = q;
        s->cap = len ? len : 1;
    }
    if (len > 0)
        memmove(s->p, p, len);
    s->len = len;
    return 0;
}

void sl__str_free(sl__str *s)
{
    free(s->p);
    s->p = NULL;
    s->len = 0;
    s->cap = 0;
}

int sl__str_cmp(const char *a, uint32_t la, const char *b, uint32_t lb)
{
    uint32_t m = la < lb ? la : lb;
    int c = m > 0 ? memcmp(a, b, m) : 0;
    if (c != 0)
        return c < 0 ? -1 : 1;
    return la < lb ? -1 : la > lb ? 1 : 0;
}

int sl__str_encode(sl_buf *out, const char *p, uint32_t len)
{
    int rc = sl_buf_put_varu(out, len);
    return rc != 0 ? rc : sl_buf_put(out, p, len);
}

int sl__str_decode(sl_reader *r, sl_type t, sl__str *s)
{
    uint64_t len;
    int rc = sl_reader_varu(r, &len);
    if (rc != 0)
        return rc;
    /* NCHAR counts characters, and a UTF-8 character takes up to 4 bytes. */
    uint64_t max = t == SL_T_NCHAR ? 4ull * SL_VARCHAR_MAX : SL_VARCHAR_MAX;
    if (len > max || len > sl_reader_left(r))
        return SL_ECORRUPT;
    const uint8_t *p = sl_reader_take(r, (size_t)len);
    return sl__str_set(s, (const char *)p, (uint32_t)len);
}

/* ---------------------------------------------------------------------------------------
 * COUNT(*) and COUNT(x)
 * ------------------------------------------------------------------------------------- */

typedef struct st_count {
    int64_t n; /* rows (COUNT(*)) or non-NULL rows (COUNT(x)) */
} st_count;

static size_t count_size(const sl_agg *a)
{
    return sizeof(st_count);
}

/* Set bits of bm in [from, from+n): NULL rows of a range, a word at a time. */
static uint32_t count_bits(const uint8_t *bm, uint32_t from, uint32_t n)
{
    uint32_t c = 0, i = from, end = from + n;
    while (i < end && (i & 7) != 0) {
        c += sl__bit(bm, i);
        i++;
    }
    while (end - i >= 64) {
        uint64_t w;
        memcpy(&w, bm + (i >> 3), sizeof w);
        c += (uint32_t)__builtin_popcountll(w);
        i += 64;
    }
    while (end - i >= 8) {
        c += (uint32_t)__builtin_popcount(bm[i >> 3]);
        i += 8;
    }
    while (i < end) {
        c += sl__bit(bm, i);
        i++;
    }
    return c;
}

static int count_update(const sl_agg *a, uint8_t *states, size_t stride, const uint32_t *gids,
                        const sl_column *arg, const sl_column *ts, uint32_t from, uint32_t n)
{
    const uint8_t *nb = NULL;
    if (a->kind == SL_AGG_COUNT) {
        if (arg->is_const) {
            if (sl__const_null(arg))
                return 0;
        } else {
            nb = sl__col_nulls(arg);
        }
    }
    if (gids == NULL) {
        ((st_count *)states)->n += n - (nb != NULL ? count_bits(nb, from, n) : 0);
    } else if (nb == NULL) {
        for (uint32_t k = 0; k < n; k++)
            SL__ST(st_count, states, stride, gids, k)->n++;
    } else {
        for (uint32_t k = 0; k < n; k++)
            SL__ST(st_count, states, stride, gids, k)->n += !sl__bit(nb, from + k);
    }
    return 0;
}

static int count_merge(const sl_agg *a, void *dst, const void *src)
{
    ((st_count *)dst)->n = sl__count_add(((st_count *)dst)->n, ((const st_count *)src)->n);
    return 0;
}

static int count_finalize(const sl_agg *a, const void *st, sl_column *out, sl_error *err)
{
    return sl_column_append_i64(out, ((const st_count *)st)->n);
}

static int count_encode(const sl_agg *a, const void *st, sl_buf *out)
{
    return sl_buf_put_varu(out, (uint64_t)((const st_count *)st)->n);
}

static int count_decode(const sl_agg *a, void *st, sl_reader *r)
{
    uint64_t n;
    int rc = sl_reader_varu(r, &n);
    if (rc != 0)
        return rc;
    if (n > INT64_MAX)
        return SL_ECORRUPT;
    ((st_count *)st)->n = (int64_t)n;
    return 0;
}

const sl__agg_ops sl__agg_count_ops = {
    .size = count_size,
    .update = count_update,
    .merge = count_merge,
    .finalize = count_finalize,
    .encode = count_encode,
    .decode = count_decode,
};

/* ---------------------------------------------------------------------------------------
 * SUM and AVG
 * ------------------------------------------------------------------------------------- */

/* Integer inputs: an exact 128-bit two's complement sum. It is kept as two words because
 * states sit in caller arrays aligned to 8 only, and an __int128 field would need 16.
 * Signed and unsigned inputs add the same bits; only finalisation reads the sign. */
typedef struct st_sumi {
    uint64_t lo; /* low word of the sum */
    uint64_t hi; /* high word of the sum */
    int64_t n;   /* non-NULL inputs; 0 means the result is NULL */
} st_sumi;

/* Float inputs: a compensated double-double sum (hi + lo), so splitting and merging the
 * input changes the result only in rare last-bit cases instead of routinely. */
typedef struct st_sumf {
    double hi; /* the running sum, rounded */
    double lo; /* rounding errors of hi, accumulated */
    int64_t n; /* non-NULL inputs */
} st_sumf;

static size_t sum_size(const sl_agg *a)
{
    return sl_type_is_float(a->arg_type) ? sizeof(st_sumf) : sizeof(st_sumi);
}

static inline u128 sumi_get(const st_sumi *s)
{
    return (u128)s->hi << 64 | s->lo;
}

static inline void sumi_add(st_sumi *s, u128 v, int64_t n)
{
    u128 x = sumi_get(s) + v;
    s->lo = (uint64_t)x;
    s->hi = (uint64_t)(x >> 64);
    s->n = sl__count_add(s->n, n);
}

/* Knuth's TwoSum: hi + x exactly equals the new hi plus the returned error. */
static inline void sumf_add(double *hi, double *lo, double x)
{
    double s = *hi + x;
    double bp = s - *hi;
    *lo += (*hi - (s - bp)) + (x - bp);
    *hi = s;
}

static inline double sumf_value(const st_sumf *s)
{
    /* Once hi is infinite or NaN the error term is meaningless (inf - inf). */
    return isfinite(s->hi) ? s->hi + s->lo : s->hi;
}

#define V_ID(x) (x)
#define V_BOOL(x) ((x) != 0)
#define RED_ADD_BOOL(a, x) ((a) + ((x) != 0))
#define W_SIGNED(x) ((u128)(i128)(x))
#define W_UNSIGNED(x) ((u128)(x))

/*
 * Integer SUM over a T column. ACC is wide enough for any range of n < 2^32 rows (int64
 * for types up to 32 bits, so those loops vectorise; 128 bits for 64-bit types).
 */
#define SUM_INT(T, ACC, CONV, STEP, WIDEN)                                                   \
    do {                                                                                     \
        const T *v = (const T *)arg->data + from;                                            \
        if (gids == NULL) {                                                                  \
            ACC s = 0;                                                                       \
            int64_t cnt = n;                                                                 \
            if (nb == NULL) {                                                                \
                SL__REDUCE(ACC, s, 0, T, v, n, STEP, SL__RED_ADD);                           \
            } else {                                                                         \
                for (uint32_t k = 0; k < n; k++) {                                           \
                    bool nul = sl__bit(nb, from + k);                                        \
                    s += nul ? 0 : CONV(v[k]);                                               \
                    cnt -= nul;                                                              \
                }                                                                            \
            }                                                                                \
            sumi_add((st_sumi *)states, WIDEN(s), cnt);                                      \
        } else if (nb == NULL) {                                                             \
            for (uint32_t k = 0; k < n; k++)                                                 \
                sumi_add(SL__ST(st_sumi, states, stride, gids, k), WIDEN(CONV(v[k])), 1);    \
        } else {                                                                             \
            for (uint32_t k = 0; k < n; k++)                                                 \
                if (!sl__bit(nb, from + k))                                                  \
                    sumi_add(SL__ST(st_sumi, states, stride, gids, k), WIDEN(CONV(v[k])),    \
                             1);                                                             \
        }                                                                                    \
    } while (0)

/* Float SUM over a T column. The loop is serial on purpose: each step's error term needs
 * the previous sum, the price of sums that do not change when the input is split. */
#define SUM_FLT(T)                                                                           \
    do {                                                                                     \
        const T *v = (const T *)arg->data + from;                                            \
        if (gids == NULL) {                                                                  \
            st_sumf *s = (st_sumf *)states;                                                  \
            double h = s->hi, l = s->lo; /* locals: v may alias the state */                 \
            int64_t cnt = n;                                                                 \
            if (nb == NULL) {                                                            \
                /* Four independent compensated sums hide the add latency; their totals  \
                 * are then added with the same compensation. */                         \
                uint32_t k = 0;                                                          \
                if (n >= 16) {                                                           \
                    double h4[4] = {0, 0, 0, 0}, l4[4] = {0, 0, 0, 0};                   \
                    for (; k + 4 <= n; k += 4)                                           \
                        for (int q = 0; q < 4; q++)                                      \
                            sumf_add(&h4[q], &l4[q], v[k + q]);                          \
                    for (int q = 0; q < 4; q++) {                                        \
                        sumf_add(&h, &l, h4[q]);                                         \
                        l += l4[q];                                                      \
                    }                                                                    \
                }                                                                        \
                for (; k < n; k++)                                                       \
                    sumf_add(&h, &l, v[k]);                                              \
            } else {                                                                         \
                for (uint32_t k = 0; k < n; k++) {                                           \
                    if (sl__bit(nb, from + k))                                               \
                        cnt--;                                                               \
                    else                                                                     \
                        sumf_add(&h, &l, v[k]);                                              \
                }                                                                            \
            }                                                                                \
            s->hi = h;                                                                       \
            s->lo = l;                                                                       \
            s->n += cnt;                                                                     \
        } else {                                                                             \
            for (uint32_t k = 0; k < n; k++) {                                               \
                if (nb != NULL && sl__bit(nb, from + k))                                     \
                    continue;                                                                \
                st_sumf *s = SL__ST(st_sumf, states, stride, gids, k);                       \
                sumf_add(&s->hi, &s->lo, v[k]);                                              \
                s->n++;                                                                      \
            }                                                                                \
        }                                                                                    \
    } while (0)

/* A constant argument: one value repeated for every row. */
static void sum_update_const(const sl_agg *a, uint8_t *states, size_t stride,
                             const uint32_t *gids, const sl_column *arg, uint32_t n)
{
    if (sl__const_null(arg))
        return;
    sl__val v = sl__col_val(arg, 0);
    sl__vclass vc = sl__vclass_of(a->arg_type);
    if (vc == SL__VC_F) {
        if (gids == NULL) {
            /* n copies of v: the product, exactly, as a double plus its fma() error. */
            st_sumf *s = (st_sumf *)states;
            double p = v.d * (double)n;
            sumf_add(&s->hi, &s->lo, p);
            if (isfinite(p))
                s->lo += fma(v.d, (double)n, -p);
            s->n += n;
            return;
        }
        for (uint32_t k = 0; k < n; k++) {
            st_sumf *s = SL__ST(st_sumf, states, stride, gids, k);
            sumf_add(&s->hi, &s->lo, v.d);
            s->n++;
        }
        return;
    }
    u128 w = vc == SL__VC_I ? W_SIGNED(v.i) : W_UNSIGNED(v.u);
    if (gids == NULL) {
        /* Modulo 2^128 the product equals the true one, which fits. */
        sumi_add((st_sumi *)states, w * n, n);
        return;
    }
    for (uint32_t k = 0; k < n; k++)
        sumi_add(SL__ST(st_sumi, states, stride, gids, k), w, 1);
}

static int sum_update(const sl_agg *a, uint8_t *states, size_t stride, const uint32_t *gids,
                      const sl_column *arg, const sl_column *ts, uint32_t from, uint32_t n)
{
    if (arg->is_const) {
        sum_update_const(a, states, stride, gids, arg, n);
        return 0;
    }
    const uint8_t *nb = sl__col_nulls(arg);
    switch (a->arg_type) {
    case SL_T_BOOL:
        SUM_INT(uint8_t, int64_t, V_BOOL, RED_ADD_BOOL, W_SIGNED);
        break;
    case SL_T_TINYINT:
        SUM_INT(int8_t, int64_t, V_ID, SL__RED_ADD, W_SIGNED);
        break;
    case SL_T_SMALLINT:
        SUM_INT(int16_t, int64_t, V_ID, SL__RED_ADD, W_SIGNED);
        break;
    case SL_T_INT:
        SUM_INT(int32_t, int64_t, V_ID, SL__RED_ADD, W_SIGNED);
        break;
    case SL_T_BIGINT:
        SUM_INT(int64_t, i128, V_ID, SL__RED_ADD, W_SIGNED);
        break;
    case SL_T_UTINYINT:
        SUM_INT(uint8_t, uint64_t, V_ID, SL__RED_ADD, W_UNSIGNED);
        break;
    case SL_T_USMALLINT:
        SUM_INT(uint16_t, uint64_t, V_ID, SL__RED_ADD, W_UNSIGNED);
        break;
    case SL_T_UINT:
        SUM_INT(uint32_t, uint64_t, V_ID, SL__RED_ADD, W_UNSIGNED);
        break;
    case SL_T_UBIGINT:
        SUM_INT(uint64_t, u128, V_ID, SL__RED_ADD, W_UNSIGNED);
        break;
    case SL_T_FLOAT:
        SUM_FLT(float);
        break;
    case SL_T_DOUBLE:
        SUM_FLT(double);
        break;
    default:
        assert(!"SUM of a refused type");
        break;
    }
    return 0;
}

static int sum_merge(const sl_agg *a, void *dst, const void *src)
{
    if (sl_type_is_float(a->arg_type)) {
        st_sumf *d = dst;
        const st_sumf *s = src;
        sumf_add(&d->hi, &d->lo, s->hi);
        d->lo += s->lo;
        d->n = sl__count_add(d->n, s->n);
    } else {
        const st_sumi *s = src;
        sumi_add(dst, sumi_get(s), s->n);
    }
    return 0;
}

/* The mean of an exact integer sum of n values. Up to 2^53 the sum converts exactly and
 * one division rounds correctly; beyond, quotient and remainder are converted apart so
 * the sum is not rounded before it is divided. */
static double avg_of(i128 sum, int64_t n)
{
    const i128 exact = (i128)1 << 53;
    if (sum >= -exact && sum <= exact)
        return (double)sum / (double)n;
    return (double)(sum / n) + (double)(sum % n) / (double)n;
}

static int sum_finalize(const sl_agg *a, const void *st, sl_column *out, sl_error *err)
{
    sl__vclass vc = sl__vclass_of(a->arg_type);
    bool avg = a->kind == SL_AGG_AVG;
    if (vc == SL__VC_F) {
        const st_sumf *s = st;
        if (s->n == 0)
            return sl_column_append_null(out);
        double v = sumf_value(s);
        return sl_column_append_f64(out, avg ? v / (double)s->n : v);
    }
    const st_sumi *s = st;
    if (s->n == 0)
        return sl_column_append_null(out);
    u128 u = sumi_get(s);
    if (vc == SL__VC_U && a->arg_type != SL_T_BOOL) {
        /* An unsigned sum is below n * 2^64 <= 2^127: it fits the signed type. */
        if (avg)
            return sl_column_append_f64(out, avg_of((i128)u, s->n));
        if (u > UINT64_MAX)
            return sl_error_set(err, SL_EOVERFLOW, 0, 0, "SUM overflows BIGINT UNSIGNED");
        return sl_column_append_u64(out, (uint64_t)u);
    }
    i128 v = (i128)u;
    if (avg)
        return sl_column_append_f64(out, avg_of(v, s->n));
    if (v < INT64_MIN || v > INT64_MAX)
        return sl_error_set(err, SL_EOVERFLOW, 0, 0, "SUM overflows BIGINT");
    return sl_column_append_i64(out, (int64_t)v);
}

/* Encoding: varint n, then (when n > 0) the sum as two little-endian words: lo, hi for
 * integers, the IEEE bits of hi, lo for floats. */
static int sum_encode(const sl_agg *a, const void *st, sl_buf *out)
{
    uint64_t w0, w1;
    int64_t n;
    if (sl_type_is_float(a->arg_type)) {
        const st_sumf *s = st;
        n = s->n;
        w0 = dbits(s->hi);
        w1 = dbits(s->lo);
    } else {
        const st_sumi *s = st;
        n = s->n;
        w0 = s->lo;
        w1 = s->hi;
    }
    int rc = sl_buf_put_varu(out, (uint64_t)n);
    if (rc == 0 && n > 0 && (rc = sl_buf_put_u64(out, w0)) == 0)
        rc = sl_buf_put_u64(out, w1);
    return rc;
}

static int sum_decode(const sl_agg *a, void *st, sl_reader *r)
{
    uint64_t n, w0 = 0, w1 = 0;
    int rc = sl_reader_varu(r, &n);
    if (rc != 0)
        return rc;
    if (n > INT64_MAX)
        return SL_ECORRUPT;
    if (n > 0 && ((rc = sl_reader_u64(r, &w0)) != 0 || (rc = sl_reader_u64(r, &w1)) != 0))
        return rc;
    if (sl_type_is_float(a->arg_type)) {
        st_sumf *s = st;
        s->n = (int64_t)n;
        s->hi = bitsd(w0);
        s->lo = bitsd(w1);
        return 0;
    }
    st_sumi *s = st;
    s->n = (int64_t)n;
    s->lo = w0;
    s->hi = w1;
    /* n values of the argument type bound the sum; anything else is not a real state.
     * n < 2^63 and the type bounds are < 2^64, so the bounds fit in 128 bits. */
    u128 u = sumi_get(s);
    if (sl__vclass_of(a->arg_type) == SL__VC_U) {
        if (u > (u128)int_max(a->arg_type) * n)
            return SL_ECORRUPT;
    } else {
        i128 v = (i128)u;
        if (v < (i128)int_min(a->arg_type) * (i128)n ||
            v > (i128)int_max(a->arg_type) * (i128)n)
            return SL_ECORRUPT;
    }
    return 0;
}

const sl__agg_ops sl__agg_sum_ops = {
    .size = sum_size,
    .update = sum_update,
    .merge = sum_merge,
    .finalize = sum_finalize,
    .encode = sum_encode,
    .decode = sum_decode,
};

/* ---------------------------------------------------------------------------------------
 * STDDEV
 * ------------------------------------------------------------------------------------- */

typedef struct st_stddev {
    int64_t n;   /* non-NULL inputs */
    double mean; /* their mean */
    double m2;   /* sum of squared deviations from the mean */
} st_stddev;

static size_t stddev_size(const sl_agg *a)
{
    return sizeof(st_stddev);
}

/* Chan et al.: folds a batch (nb values, mean mb, M2 m2b) into d. */
static void stddev_fold(st_stddev *d, int64_t nb, double mb, double m2b)
{
    if (nb == 0)
        return;
    if (d->n == 0) {
        d->n = nb;
        d->mean = mb;
        d->m2 = m2b;
        return;
    }
    double na = (double)d->n, nbd = (double)nb, n = na + nbd;
    double delta = mb - d->mean;
    d->mean += delta * (nbd / n);
    d->m2 += m2b + delta * delta * (na * nbd / n);
    d->n = sl__count_add(d->n, nb);
}

/* Welford's one-value step, for grouped updates where rows of a group are scattered. */
static inline void stddev_add(st_stddev *s, double x)
{
    s->n++;
    double d = x - s->mean;
    s->mean += d / (double)s->n;
    s->m2 += d * (x - s->mean);
}

/*
 * One group: the batch's mean and M2 by the corrected two-pass method (a second pass of
 * deviations, minus the rounding residue of the mean), which is both more accurate than
 * Welford and free of divisions in the loops, then one Chan merge into the state.
 */
#define STDDEV_T(T)                                                                          \
    do {                                                                                     \
        const T *v = (const T *)arg->data + from;                                            \
        if (gids != NULL) {                                                                  \
            for (uint32_t k = 0; k < n; k++)                                                 \
                if (nb == NULL || !sl__bit(nb, from + k))                                    \
                    stddev_add(SL__ST(st_stddev, states, stride, gids, k), v[k]);            \
            break;                                                                           \
        }                                                                                    \
        double sum = 0, m2 = 0, c = 0;                                                       \
        int64_t cnt = n;                                                                     \
        if (nb == NULL) {                                                                    \
            for (uint32_t k = 0; k < n; k++)                                                 \
                sum += v[k];                                                                 \
        } else {                                                                             \
            for (uint32_t k = 0; k < n; k++) {                                               \
                bool nul = sl__bit(nb, from + k);                                            \
                sum += nul ? 0.0 : (double)v[k];                                             \
                cnt -= nul;                                                                  \
            }                                                                                \
        }                                                                                    \
        if (cnt == 0)                                                                        \
            break;                                                                           \
        double mean = sum / (double)cnt;                                                     \
        for (uint32_t k = 0; k < n; k++) {                                                   \
            if (nb != NULL && sl__bit(nb, from + k))                                         \
                continue;                                                                    \
            double d = (double)v[k] - mean;                                                  \
            m2 += d * d;                                                                     \
            c += d;                                                                          \
        }                                                                                    \
        m2 -= c * c / (double)cnt;                                                           \
        stddev_fold((st_stddev *)states, cnt, mean, m2 > 0 ? m2 : 0);                        \
    } while (0)

static int stddev_update(const sl_agg *a, uint8_t *states, size_t stride, const uint32_t *gids,
                         const sl_column *arg, const sl_column *ts, uint32_t from, uint32_t n)
{
    if (arg->is_const) {
        if (sl__const_null(arg))
            return 0;
        sl__val v = sl__col_val(arg, 0);
        sl__vclass vc = sl__vclass_of(a->arg_type);
        double x = vc == SL__VC_F ? v.d : vc == SL__VC_I ? (double)v.i : (double)v.u;
        if (gids == NULL) {
            stddev_fold((st_stddev *)states, n, x, 0);
        } else {
            for (uint32_t k = 0; k < n; k++)
                stddev_add(SL__ST(st_stddev, states, stride, gids, k), x);
        }
        return 0;
    }
    const uint8_t *nb = sl__col_nulls(arg);
    switch (a->arg_type) {
    case SL_T_TINYINT:
        STDDEV_T(int8_t);
        break;
    case SL_T_SMALLINT:
        STDDEV_T(int16_t);
        break;
    case SL_T_INT:
        STDDEV_T(int32_t);
        break;
    case SL_T_BIGINT:
        STDDEV_T(int64_t);
        break;
    case SL_T_UTINYINT:
        STDDEV_T(uint8_t);
        break;
    case SL_T_USMALLINT:
        STDDEV_T(uint16_t);
        break;
    case SL_T_UINT:
        STDDEV_T(uint32_t);
        break;
    case SL_T_UBIGINT:
        STDDEV_T(uint64_t);
        break;
    case SL_T_FLOAT:
        STDDEV_T(float);
        break;
    case SL_T_DOUBLE:
        STDDEV_T(double);
        break;
    default:
        assert(!"STDDEV of a refused type");
        break;
    }
    return 0;
}

static int stddev_merge(const sl_agg *a, void *dst, const void *src)
{
    const st_stddev *s = src;
    stddev_fold(dst, s->n, s->mean, s->m2);
    return 0;
}

static int stddev_finalize(const sl_agg *a, const void *st, sl_column *out, sl_error *err)
{
    const st_stddev *s = st;
    if (s->n == 0)
        return sl_column_append_null(out);
    double m2 = s->m2 < 0 ? 0 : s->m2; /* rounding can leave a tiny negative M2; NaN stays */
    return sl_column_append_f64(out, sqrt(m2 / (double)s->n));
}

/* Encoding: varint n, then (when n > 0) the IEEE bits of mean and M2. */
static int stddev_encode(const sl_agg *a, const void *st, sl_buf *out)
{
    const st_stddev *s = st;
    int rc = sl_buf_put_varu(out, (uint64_t)s->n);
    if (rc == 0 && s->n > 0 && (rc = sl_buf_put_u64(out, dbits(s->mean))) == 0)
        rc = sl_buf_put_u64(out, dbits(s->m2));
    return rc;
}

static int stddev_decode(const sl_agg *a, void *st, sl_reader *r)
{
    st_stddev *s = st;
    uint64_t n, w0, w1;
    int rc = sl_reader_varu(r, &n);
    if (rc != 0)
        return rc;
    if (n > INT64_MAX)
        return SL_ECORRUPT;
    s->n = (int64_t)n;
    if (n == 0)
        return 0;
    if ((rc = sl_reader_u64(r, &w0)) != 0 || (rc = sl_reader_u64(r, &w1)) != 0)
        return rc;
    s->mean = bitsd(w0);
    s->m2 = bitsd(w1);
    return s->m2 < 0 ? SL_ECORRUPT : 0;
}

const sl__agg_ops sl__agg_stddev_ops = {
    .size = stddev_size,
    .update = stddev_update,
    .merge = stddev_merge,
    .finalize = stddev_finalize,
    .encode = stddev_encode,
    .decode = stddev_decode,
};
