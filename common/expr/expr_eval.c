/*
 * expr_eval.c - vector kernels that evaluate a compiled expression over a block.
 *
 * Each node evaluates its arguments to columns, reads them through typed "views" (the
 * column's own array when it already has the compute class's C type, otherwise one
 * widening pass into a scratch array), and runs one tight loop per operator. A constant
 * operand is read with stride 0, so `x + 1` and `ts > '2025-01-01'` never materialise the
 * constant. NULLs are tracked separately from values: kernels compute every row and the
 * result's bitmap is the union of the inputs' (three-valued logic for AND/OR/IN).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr_int.h"

/* ------------------------------------------------------------ null bitmaps */

/* Prepares out's bitmap for n rows, all non-NULL; returns 0 or SL_ENOMEM. */
static int nulls_begin(sl_column *out, uint32_t n)
{
    /* An empty block may have no room for even one bit; it has no NULLs to mark. */
    if (n == 0) {
        out->has_nulls = false;
        return 0;
    }
    if (out->nulls == NULL) {
        int rc = sl_column_set_null(out, 0);
        if (rc != 0)
            return rc;
    }
    memset(out->nulls, 0, (n + 7) / 8);
    out->has_nulls = true;
    return 0;
}

static inline void null_set(sl_column *out, uint32_t i)
{
    out->nulls[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/* out's NULLs are the union of a's and b's (b may be NULL). */
static int nulls_union(sl_column *out, const sl_column *a, const sl_column *b, uint32_t n)
{
    bool an = a->has_nulls, bn = b != NULL && b->has_nulls;
    out->has_nulls = false;
    if (!an && !bn)
        return 0;
    int rc = nulls_begin(out, n);
    if (rc != 0)
        return rc;
    for (uint32_t i = 0; i < n; i++)
        if ((an && sl_column_is_null(a, i)) || (bn && sl_column_is_null(b, i)))
            null_set(out, i);
    return 0;
}

int sl__col_put_null(sl_column *out)
{
    return sl_column_append_null(out);
}

/* Resets n->out to hold nrows fixed-width rows to be written in place. */
static int out_begin(xnode *n, uint32_t nrows)
{
    sl_column_reset(&n->out);
    int rc = sl_column_reserve(&n->out, nrows, 0);
    if (rc != 0)
        return rc;
    n->out.nrows = nrows;
    return 0;
}

/* ------------------------------------------------------------ typed views */

static void retype(sl_column *tmp, sl_type t)
{
    if (tmp->type != t) {
        sl_column_fini(tmp);
        sl_column_init(tmp, t, 0);
    }
}

static int view_i64(const sl_column *c, sl_column *tmp, uint32_t n, const int64_t **p,
                    sl_error *err)
{
    if (c->type == SL_T_BIGINT || c->type == SL_T_TIMESTAMP) {
        *p = c->data;
        return 0;
    }
    uint32_t m = c->is_const ? 1 : n;
    retype(tmp, SL_T_BIGINT);
    sl_column_reset(tmp);
    if (sl_column_reserve(tmp, m, 0) != 0)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    int64_t *d = tmp->data;
#define WIDEN(T)                                                                               \
    do {                                                                                       \
        const T *s = c->data;                                                                  \
        for (uint32_t i = 0; i < m; i++)                                                       \
            d[i] = (int64_t)s[i];                                                              \
    } while (0)
    switch (c->type) {
    case SL_T_BOOL: WIDEN(uint8_t); break;
    case SL_T_TINYINT: WIDEN(int8_t); break;
    case SL_T_SMALLINT: WIDEN(int16_t); break;
    case SL_T_INT: WIDEN(int32_t); break;
    case SL_T_UTINYINT: WIDEN(uint8_t); break;
    case SL_T_USMALLINT: WIDEN(uint16_t); break;
    case SL_T_UINT: WIDEN(uint32_t); break;
    case SL_T_UBIGINT: {
        const uint64_t *s = c->data;
        for (uint32_t i = 0; i < m; i++) {
            if (s[i] > (uint64_t)INT64_MAX && !sl_column_is_null(c, i))
                return sl_error_set(err, SL_EOVERFLOW, 0, 0,
                                    "BIGINT UNSIGNED value %llu is out of BIGINT range",
                                    (unsigned long long)s[i]);
            d[i] = (int64_t)s[i];
        }
        break;
    }
    default:
        return sl_error_set(err, SL_ETYPE, 0, 0, "cannot read %s as an integer",
                            sl_type_name(c->type));
    }
    *p = d;
    return 0;
}

static int view_u64(const sl_column *c, sl_column *tmp, uint32_t n, const uint64_t **p,
                    sl_error *err)
{
    if (c->type == SL_T_UBIGINT) {
        *p = c->data;
        return 0;
    }
    uint32_t m = c->is_const ? 1 : n;
    retype(tmp, SL_T_UBIGINT);
    sl_column_reset(tmp);
    if (sl_column_reserve(tmp, m, 0) != 0)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    uint64_t *d = tmp->data;
    for (uint32_t i = 0; i < m; i++)
        d[i] = sl_column_get_u64(c, i);
    *p = d;
    return 0;
}

static int view_f64(const sl_column *c, sl_column *tmp, uint32_t n, const double **p,
                    sl_error *err)
{
    if (c->type == SL_T_DOUBLE) {
        *p = c->data;
        return 0;
    }
    uint32_t m = c->is_const ? 1 : n;
    retype(tmp, SL_T_DOUBLE);
    sl_column_reset(tmp);
    if (sl_column_reserve(tmp, m, 0) != 0)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    double *d = tmp->data;
#define WIDEN_F(T)                                                                             \
    do {                                                                                       \
        const T *s = c->data;                                                                  \
        for (uint32_t i = 0; i < m; i++)                                                       \
            d[i] = (double)s[i];                                                               \
    } while (0)
    switch (c->type) {
    case SL_T_BOOL: WIDEN_F(uint8_t); break;
    case SL_T_TINYINT: WIDEN_F(int8_t); break;
    case SL_T_SMALLINT: WIDEN_F(int16_t); break;
    case SL_T_INT: WIDEN_F(int32_t); break;
    case SL_T_BIGINT: case SL_T_TIMESTAMP: WIDEN_F(int64_t); break;
    case SL_T_UTINYINT: WIDEN_F(uint8_t); break;
    case SL_T_USMALLINT: WIDEN_F(uint16_t); break;
    case SL_T_UINT: WIDEN_F(uint32_t); break;
    case SL_T_UBIGINT: WIDEN_F(uint64_t); break;
    case SL_T_FLOAT: WIDEN_F(float); break;
    default:
        return sl_error_set(err, SL_ETYPE, 0, 0, "cannot read %s as a number",
                            sl_type_name(c->type));
    }
    *p = d;
    return 0;
}

static inline uint32_t stride(const sl_column *c)
{
    return c->is_const ? 0 : 1;
}

/* Fills the node's position into an error raised by a kernel. */
static int at(xnode *n, sl_error *err, int rc)
{
    if (err != NULL && err->code == rc && err->line == 0) {
        err->line = n->pos.line;
        err->col = n->pos.col;
    }
    return rc;
}

/* ------------------------------------------------------------ arithmetic */

static int eval_arith(xnode *n, const sl_column *a, const sl_column *b, uint32_t nr,
                      sl_error *err)
{
    int rc = out_begin(n, nr);
    if (rc != 0)
        return sl_error_set(err, rc, 0, 0, "out of memory");
    if ((rc = nulls_union(&n->out, a, b, nr)) != 0)
        return sl_error_set(err, rc, 0, 0, "out of memory");
    uint32_t sa = stride(a), sb = stride(b);
    if (n->cls == XC_F64) {
        const double *x, *y;
        if ((rc = view_f64(a, &n->tmp[0], nr, &x, err)) != 0 ||
            (rc = view_f64(b, &n->tmp[1], nr, &y, err)) != 0)
            return rc;
        double *r = n->out.data;
        switch (n->op) {
        case SL_OP_ADD: for (uint32_t i = 0; i < nr; i++) r[i] = x[i * sa] + y[i * sb]; break;
        case SL_OP_SUB: for (uint32_t i = 0; i < nr; i++) r[i] = x[i * sa] - y[i * sb]; break;
        case SL_OP_MUL: for (uint32_t i = 0; i < nr; i++) r[i] = x[i * sa] * y[i * sb]; break;
        case SL_OP_DIV:
        case SL_OP_MOD:
            for (uint32_t i = 0; i < nr; i++) {
                double d = y[i * sb];
                if (d == 0.0) {
                    if (!sl_column_is_null(&n->out, i))
                        return sl_error_set(err, SL_EDIVZERO, n->pos.line, n->pos.col,
                                            "division by zero");
                    r[i] = 0;
                    continue;
                }
                r[i] = n->op == SL_OP_DIV ? x[i * sa] / d : fmod(x[i * sa], d);
            }
            break;
        }
        return 0;
    }
    const int64_t *x, *y;
    if ((rc = view_i64(a, &n->tmp[0], nr, &x, err)) != 0 ||
        (rc = view_i64(b, &n->tmp[1], nr, &y, err)) != 0)
        return at(n, err, rc);
    int64_t *r = n->out.data;
    bool ovf = false;
    switch (n->op) {
    case SL_OP_ADD:
        for (uint32_t i = 0; i < nr; i++)
            ovf |= __builtin_add_overflow(x[i * sa], y[i * sb], &r[i]);
        break;
    case SL_OP_SUB:
        for (uint32_t i = 0; i < nr; i++)
            ovf |= __builtin_sub_overflow(x[i * sa], y[i * sb], &r[i]);
        break;
    case SL_OP_MUL:
        for (uint32_t i = 0; i < nr; i++)
            ovf |= __builtin_mul_overflow(x[i * sa], y[i * sb], &r[i]);
        break;
    case SL_OP_MOD:
        for (uint32_t i = 0; i < nr; i++) {
            int64_t d = y[i * sb];
            if (d == 0) {
                if (!sl_column_is_null(&n->out, i))
                    return sl_error_set(err, SL_EDIVZERO, n->pos.line, n->pos.col,
                                        "division by zero");
                r[i] = 0;
            } else {
                r[i] = d == -1 ? 0 : x[i * sa] % d;
            }
        }
        break;
    }
    if (ovf) {
        /* Only an overflow on a non-NULL row is an error; NULL rows hold any bits. */
        for (uint32_t i = 0; i < nr; i++) {
            int64_t t;
            bool o = n->op == SL_OP_ADD   ? __builtin_add_overflow(x[i * sa], y[i * sb], &t)
                     : n->op == SL_OP_SUB ? __builtin_sub_overflow(x[i * sa], y[i * sb], &t)
                                          : __builtin_mul_overflow(x[i * sa], y[i * sb], &t);
            if (o && !sl_column_is_null(&n->out, i))
                return sl_error_set(err, SL_EOVERFLOW, n->pos.line, n->pos.col,
                                    "BIGINT overflow in %lld %s %lld", (long long)x[i * sa],
                                    n->op == SL_OP_ADD ? "+" : n->op == SL_OP_SUB ? "-" : "*",
                                    (long long)y[i * sb]);
        }
    }
    return 0;
}

static int eval_bits(xnode *n, const sl_column *a, const sl_column *b, uint32_t nr,
                     sl_error *err)
{
    int rc = out_begin(n, nr);
    if (rc == 0)
        rc = nulls_union(&n->out, a, b, nr);
    if (rc != 0)
        return sl_error_set(err, rc, 0, 0, "out of memory");
    const int64_t *x, *y = NULL;
    if ((rc = view_i64(a, &n->tmp[0], nr, &x, err)) != 0)
        return at(n, err, rc);
    if (b != NULL && (rc = view_i64(b, &n->tmp[1], nr, &y, err)) != 0)
        return at(n, err, rc);
    uint32_t sa = stride(a), sb = b ? stride(b) : 0;
    int64_t *r = n->out.data;
    if (n->kind == X_BITNOT)
        for (uint32_t i = 0; i < nr; i++) r[i] = ~x[i * sa];
    else if (n->kind == X_BITAND)
        for (uint32_t i = 0; i < nr; i++) r[i] = x[i * sa] & y[i * sb];
    else
        for (uint32_t i = 0; i < nr; i++) r[i] = x[i * sa] | y[i * sb];
    return 0;
}

static int eval_neg(xnode *n, const sl_column *a, uint32_t nr, sl_error *err)
{
    int rc = out_begin(n, nr);
    if (rc == 0)
        rc = nulls_union(&n->out, a, NULL, nr);
    if (rc != 0)
        return sl_error_set(err, rc, 0, 0, "out of memory");
    uint32_t sa = stride(a);
    if (n->type == SL_T_DOUBLE) {
        const double *x;
        if ((rc = view_f64(a, &n->tmp[0], nr, &x, err)) != 0)
            return rc;
        double *r = n->out.data;
        for (uint32_t i = 0; i < nr; i++)
            r[i] = -x[i * sa];
        return 0;
    }
    const int64_t *x;
    if ((rc = view_i64(a, &n->tmp[0], nr, &x, err)) != 0)
        return at(n, err, rc);
    int64_t *r = n->out.data;
    for (uint32_t i = 0; i < nr; i++) {
        if (x[i * sa] == INT64_MIN && !sl_column_is_null(a, i))
            return sl_error_set(err, SL_EOVERFLOW, n->pos.line, n->pos.col,
                                "BIGINT overflow in negation");
        r[i] = x[i * sa] == INT64_MIN ? 0 : -x[i * sa];
    }
    return 0;
}

/* ------------------------------------------------------------ comparison */

#define CMP_LOOP(X, Y)                                                                         \
    do {                                                                                       \
        switch (n->op) {                                                                       \
        case SL_OP_EQ: for (uint32_t i = 0; i < nr; i++) r[i] = X[i * sa] == Y[i * sb]; break; \
        case SL_OP_NE: for (uint32_t i = 0; i < nr; i++) r[i] = X[i * sa] != Y[i * sb]; break; \
        case SL_OP_LT: for (uint32_t i = 0; i < nr; i++) r[i] = X[i * sa] < Y[i * sb]; break;  \
        case SL_OP_LE: for (uint32_t i = 0; i < nr; i++) r[i] = X[i * sa] <= Y[i * sb]; break; \
        case SL_OP_GT: for (uint32_t i = 0; i < nr; i++) r[i] = X[i * sa] > Y[i * sb]; break;  \
        case SL_OP_GE: for (uint32_t i = 0; i < nr; i++) r[i] = X[i * sa] >= Y[i * sb]; break; \
        }                                                                                      \
    } while (0)

static inline bool cmp_result(int op, int c)
{
    switch (op) {
    case SL_OP_EQ: return c == 0;
    case SL_OP_NE: return c != 0;
    case SL_OP_LT: return c < 0;
    case SL_OP_LE: return c <= 0;
    case SL_OP_GT: return c > 0;
    default: return c >= 0;
    }
}

static inline int str_cmp(const char *a, uint32_t an, const char *b, uint32_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c != 0)
        return c < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn ? 1 : 0;
}

/* Exact comparison of a signed and an unsigned 64-bit value. */
static inline int mix_cmp(int64_t s, uint64_t u)
{
    if (s < 0)
        return -1;
    return (uint64_t)s < u ? -1 : (uint64_t)s > u ? 1 : 0;
}

/*
 * Exact comparisons of a 64-bit integer with a non-NaN double: the double is split into
 * its integral part, compared as an integer, and its fraction breaks ties, so 2^53 + 1
 * and INT64_MAX are not rounded to a neighbouring double first (as in value.c).
 */
static inline int i64_f64_cmp(int64_t i, double d)
{
    if (d >= 0x1p63)
        return -1;
    if (d < -0x1p63)
        return 1;
    double t = trunc(d); /* in [-2^63, 2^63): converts exactly */
    int64_t ti = (int64_t)t;
    if (i != ti)
        return i < ti ? -1 : 1;
    return d > t ? -1 : (d < t ? 1 : 0);
}

static inline int u64_f64_cmp(uint64_t u, double d)
{
    if (d >= 0x1p64)
        return -1;
    if (d < 0)
        return 1;
    double t = trunc(d);
    uint64_t tu = (uint64_t)t;
    if (u != tu)
        return u < tu ? -1 : 1;
    return d > t ? -1 : 0;
}

static inline bool is_wide_int(sl_type t)
{
    return t == SL_T_BIGINT || t == SL_T_TIMESTAMP || t == SL_T_UBIGINT;
}

/*
 * XC_F64 comparison where one side is a 64-bit integer, which a double cannot hold
 * exactly. NaN compares like IEEE: only <> is true.
 */
static int eval_cmp_wide(xnode *n, const sl_column *a, const sl_column *b, uint32_t nr,
                         sl_error *err)
{
    bool int_left = is_wide_int(a->type);
    const sl_column *ic = int_left ? a : b, *fc = int_left ? b : a;
    const double *y;
    int rc = view_f64(fc, &n->tmp[1], nr, &y, err);
    if (rc != 0)
        return rc;
    uint8_t *r = n->out.data;
    uint32_t si = stride(ic), sf = stride(fc);
    for (uint32_t i = 0; i < nr; i++) {
        double d = y[i * sf];
        if (isnan(d)) {
            r[i] = n->op == SL_OP_NE;
            continue;
        }
        int c = ic->type == SL_T_UBIGINT ? u64_f64_cmp(((const uint64_t *)ic->data)[i * si], d)
                                         : i64_f64_cmp(((const int64_t *)ic->data)[i * si], d);
        r[i] = cmp_result(n->op, int_left ? c : -c);
    }
    return 0;
}

static int eval_cmp(xnode *n, const sl_column *a, const sl_column *b, uint32_t nr,
                    sl_error *err)
{
    int rc = out_begin(n, nr);
    if (rc == 0)
        rc = nulls_union(&n->out, a, b, nr);
    if (rc != 0)
        return sl_error_set(err, rc, 0, 0, "out of memory");
    uint8_t *r = n->out.data;
    uint32_t sa = stride(a), sb = stride(b);
    switch (n->cls) {
    case XC_I64: {
        const int64_t *x, *y;
        if ((rc = view_i64(a, &n->tmp[0], nr, &x, err)) != 0 ||
            (rc = view_i64(b, &n->tmp[1], nr, &y, err)) != 0)
            return at(n, err, rc);
        CMP_LOOP(x, y);
        return 0;
    }
    case XC_U64: {
        const uint64_t *x, *y;
        if ((rc = view_u64(a, &n->tmp[0], nr, &x, err)) != 0 ||
            (rc = view_u64(b, &n->tmp[1], nr, &y, err)) != 0)
            return rc;
        CMP_LOOP(x, y);
        return 0;
    }
    case XC_F64: {
        if (is_wide_int(a->type) != is_wide_int(b->type))
            return eval_cmp_wide(n, a, b, nr, err);
        const double *x, *y;
        if ((rc = view_f64(a, &n->tmp[0], nr, &x, err)) != 0 ||
            (rc = view_f64(b, &n->tmp[1], nr, &y, err)) != 0)
            return rc;
        CMP_LOOP(x, y);
        return 0;
    }
    case XC_MIX: {
        bool a_uns = a->type == SL_T_UBIGINT;
        const sl_column *sc = a_uns ? b : a, *uc = a_uns ? a : b;
        const int64_t *s;
        const uint64_t *u;
        if ((rc = view_i64(sc, &n->tmp[0], nr, &s, err)) != 0 ||
            (rc = view_u64(uc, &n->tmp[1], nr, &u, err)) != 0)
            return at(n, err, rc);
        uint32_t ss = stride(sc), su = stride(uc);
        for (uint32_t i = 0; i < nr; i++) {
            int c = mix_cmp(s[i * ss], u[i * su]);
            r[i] = cmp_result(n->op, a_uns ? -c : c);
        }
        return 0;
    }
    case XC_STR:
        for (uint32_t i = 0; i < nr; i++) {
            uint32_t an, bn;
            const char *x = sl_column_get_str(a, i, &an);
            const char *y = sl_column_get_str(b, i, &bn);
            r[i] = cmp_result(n->op, str_cmp(x, an, y, bn));
        }
        return 0;
    }
    return 0;
}

/* ------------------------------------------------------------ logic */

static int eval_logic(xnode *n, const sl_column *a, const sl_column *b, uint32_t nr,
                      sl_error *err)
{
    int rc = out_begin(n, nr);
    if (rc != 0)
        return sl_error_set(err, rc, 0, 0, "out of memory");
    const uint8_t *x = a->data, *y = b ? b->data : NULL;
    uint32_t sa = stride(a), sb = b ? stride(b) : 0;
    uint8_t *r = n->out.data;
    n->out.has_nulls = false;
    if (n->kind == X_NOT) {
        for (uint32_t i = 0; i < nr; i++)
            r[i] = !x[i * sa];
        if ((rc = nulls_union(&n->out, a, NULL, nr)) != 0)
            return sl_error_set(err, rc, 0, 0, "out of memory");
        return 0;
    }
    bool is_and = n->kind == X_AND;
    if (is_and)
        for (uint32_t i = 0; i < nr; i++) r[i] = x[i * sa] && y[i * sb];
    else
        for (uint32_t i = 0; i < nr; i++) r[i] = x[i * sa] || y[i * sb];
    if (!a->has_nulls && !b->has_nulls)
        return 0;
    if ((rc = nulls_begin(&n->out, nr)) != 0)
        return sl_error_set(err, rc, 0, 0, "out of memory");
    for (uint32_t i = 0; i < nr; i++) {
        bool an = sl_column_is_null(a, i), bn = sl_column_is_null(b, i);
        if (!an && !bn)
            continue;
        /* FALSE AND NULL is FALSE; TRUE OR NULL is TRUE; otherwise NULL. */
        bool decided = is_and ? ((!an && !x[i * sa]) || (!bn && !y[i * sb]))
                              : ((!an && x[i * sa]) || (!bn && y[i * sb]));
        if (decided) {
            r[i] = !is_and;
        } else {
            r[i] = 0;
            null_set(&n->out, i);
        }
    }
    return 0;
}

static int eval_isnull(xnode *n, const sl_column *a, uint32_t nr, sl_error *err)
{
    int rc = out_begin(n, nr);
    if (rc != 0)
        return sl_error_set(err, rc, 0, 0, "out of memory");
    uint8_t *r = n->out.data;
    n->out.has_nulls = false;
    for (uint32_t i = 0; i < nr; i++)
        r[i] = sl_column_is_null(a, i) != n->negated;
    return 0;
}

static int eval_in(xnode *n, const sl_column *a, uint32_t nr, sl_error *err)
{
    int rc = out_begin(n, nr);
    if (rc == 0)
        rc = nulls_union(&n->out, a, NULL, nr);
    if (rc != 0)
        return sl_error_set(err, rc, 0, 0, "out of memory");
    bool list_null = false;
    for (int k = 0; k < n->nlist; k++)
        if (n->list[k].is_null || n->list[k].type == SL_T_NULL)
            list_null = true;
    uint8_t *r = n->out.data;
    for (uint32_t i = 0; i < nr; i++) {
        if (sl_column_is_null(a, i)) {
            r[i] = 0;
            continue;
        }
        sl_value v;
        sl_column_get(a, i, &v);
        bool found = false;
        for (int k = 0; k < n->nlist && !found; k++) {
            const sl_value *l = &n->list[k];
            if (l->is_null || l->type == SL_T_NULL)
                continue;
            int c;
            if (n->cls == XC_STR) {
                if (!sl_type_is_var(l->type))
                    continue;
                c = str_cmp(v.v.s.ptr, v.v.s.len, l->v.s.ptr, l->v.s.len);
            } else if (sl_value_compare(&v, l, SL_PREC_MS, &c) != 0) {
                continue;
            }
            found = c == 0;
        }
        if (found) {
            r[i] = !n->negated;
        } else if (list_null) {
            r[i] = 0;
            if (!n->out.has_nulls && (rc = nulls_begin(&n->out, nr)) != 0)
                return sl_error_set(err, rc, 0, 0, "out of memory");
            null_set(&n->out, i);
        } else {
            r[i] = n->negated;
        }
    }
    return 0;
}

static int eval_like(xnode *n, const sl_column *a, uint32_t nr, sl_error *err)
{
    int rc = out_begin(n, nr);
    if (rc == 0)
        rc = nulls_union(&n->out, a, NULL, nr);
    if (rc != 0)
        return sl_error_set(err, rc, 0, 0, "out of memory");
    uint8_t *r = n->out.data;
    const sl_value *p = &n->list[0];
    for (uint32_t i = 0; i < nr; i++) {
        uint32_t len;
        const char *s = sl_column_get_str(a, i, &len);
        r[i] = sl__like_match(s, len, p->v.s.ptr, p->v.s.len) != n->negated;
    }
    return 0;
}

static int eval_case(xnode *n, const sl_column **av, uint32_t nr, sl_error *err)
{
    sl_column_reset(&n->out);
    int npairs = (n->nargs - (n->has_else ? 1 : 0)) / 2;
    for (uint32_t i = 0; i < nr; i++) {
        const sl_column *pick = NULL;
        for (int k = 0; k < npairs; k++) {
            const sl_column *w = av[2 * k];
            uint32_t pi = sl_column_phys(w, i);
            if (!sl_column_is_null(w, i) && ((const uint8_t *)w->data)[pi]) {
                pick = av[2 * k + 1];
                break;
            }
        }
        if (pick == NULL && n->has_else)
            pick = av[n->nargs - 1];
        int rc;
        if (pick == NULL || sl_column_is_null(pick, i) || n->type == SL_T_NULL) {
            rc = sl_column_append_null(&n->out);
        } else {
            sl_value v;
            sl_column_get(pick, i, &v);
            rc = sl_column_append_value(&n->out, &v);
        }
        if (rc != 0)
            return sl_error_set(err, rc, 0, 0, "out of memory");
    }
    return 0;
}

/* ------------------------------------------------------------ dispatch */

int sl__xeval(xnode *n, const sl_block *in, const sl_column **out, sl_error *err)
{
    uint32_t nr = in->nrows;
    if (n->kind == X_COL) {
        if (n->col < 0 || (uint32_t)n->col >= in->ncols)
            return sl_error_set(err, SL_ESTATE, n->pos.line, n->pos.col,
                                "expression reads column %d of a %u-column block", n->col,
                                in->ncols);
        *out = &in->cols[n->col];
        return 0;
    }
    if (n->kind == X_CONST) {
        n->out.nrows = nr;
        *out = &n->out;
        return 0;
    }
    const sl_column *avbuf[8];
    const sl_column **av = avbuf;
    if (n->nargs > 8) {
        av = malloc(sizeof(*av) * (size_t)n->nargs);
        if (av == NULL)
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    int rc = 0;
    for (int i = 0; i < n->nargs && rc == 0; i++)
        rc = sl__xeval(n->args[i], in, &av[i], err);
    if (rc == 0) {
        switch (n->kind) {
        case X_ARITH: rc = eval_arith(n, av[0], av[1], nr, err); break;
        case X_NEG: rc = eval_neg(n, av[0], nr, err); break;
        case X_CMP: rc = eval_cmp(n, av[0], av[1], nr, err); break;
        case X_AND: case X_OR: rc = eval_logic(n, av[0], av[1], nr, err); break;
        case X_NOT: rc = eval_logic(n, av[0], NULL, nr, err); break;
        case X_ISNULL: rc = eval_isnull(n, av[0], nr, err); break;
        case X_IN: rc = eval_in(n, av[0], nr, err); break;
        case X_LIKE: rc = eval_like(n, av[0], nr, err); break;
        case X_CASE: rc = eval_case(n, av, nr, err); break;
        case X_CAST: rc = sl__xcast_eval(n, av[0], nr, err); break;
        case X_FUNC: rc = sl__xfunc_eval(n, av, nr, err); break;
        case X_BITAND: case X_BITOR: rc = eval_bits(n, av[0], av[1], nr, err); break;
        case X_BITNOT: rc = eval_bits(n, av[0], NULL, nr, err); break;
        default: rc = sl_error_set(err, SL_ESTATE, 0, 0, "bad expression node"); break;
        }
    }
    if (av != avbuf)
        free(av);
    if (rc != 0)
        return at(n, err, rc);
    *out = &n->out;
    return 0;
}

int sl_cexpr_select(sl_cexpr *e, const sl_block *in, uint32_t *sel, uint32_t *nsel,
                    sl_error *err)
{
    if (e->root->type != SL_T_BOOL && e->root->type != SL_T_NULL)
        return sl_error_set(err, SL_ETYPE, e->root->pos.line, e->root->pos.col,
                            "condition must be boolean, got %s", sl_type_name(e->root->type));
    const sl_column *c;
    int rc = sl_cexpr_eval(e, in, &c, err);
    if (rc != 0)
        return rc;
    uint32_t k = 0, nr = in->nrows;
    if (c->is_const) {
        bool keep = !sl_column_is_null(c, 0) && ((const uint8_t *)c->data)[0];
        if (keep)
            for (uint32_t i = 0; i < nr; i++)
                sel[k++] = i;
        *nsel = k;
        return 0;
    }
    const uint8_t *v = c->data;
    if (!c->has_nulls) {
        for (uint32_t i = 0; i < nr; i++) {
            sel[k] = i;
            k += v[i] != 0;
        }
    } else {
        for (uint32_t i = 0; i < nr; i++) {
            sel[k] = i;
            k += v[i] != 0 && !sl_column_is_null(c, i);
        }
    }
    *nsel = k;
    return 0;
}
