/*
 * expr_func.c - scalar functions, CAST and LIKE for compiled expressions.
 *
 * These run row by row through sl_value: they are not on the aggregation hot path, and
 * doing them through the one conversion routine (sl_value_cast) keeps their behaviour
 * identical to the rules users see for INSERT and comparisons.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr_int.h"

const sl_xfunc sl__xfuncs[XF__COUNT] = {
    [XF_ABS] = {"abs", 1, 1},
    [XF_CEIL] = {"ceil", 1, 1},
    [XF_FLOOR] = {"floor", 1, 1},
    [XF_ROUND] = {"round", 1, 2},
    [XF_CONCAT] = {"concat", 1, 64},
    [XF_LENGTH] = {"length", 1, 1},
    [XF_CHAR_LENGTH] = {"char_length", 1, 1},
    [XF_LOWER] = {"lower", 1, 1},
    [XF_UPPER] = {"upper", 1, 1},
    [XF_SQRT] = {"sqrt", 1, 1},
    [XF_POW] = {"pow", 2, 2},
    [XF_IFNULL] = {"ifnull", 2, 2},
    [XF_COALESCE] = {"coalesce", 1, 64},
    [XF_TIMETRUNCATE] = {"timetruncate", 2, 2},
    [XF_LOG] = {"log", 1, 2},
    [XF_EXP] = {"exp", 1, 1},
};

int sl__xfunc_lookup(const char *name)
{
    for (int i = 0; i < XF__COUNT; i++)
        if (strcasecmp(name, sl__xfuncs[i].name) == 0)
            return i;
    if (strcasecmp(name, "power") == 0)
        return XF_POW;
    if (strcasecmp(name, "ceiling") == 0)
        return XF_CEIL;
    return -1;
}

static bool numeric_arg(const xnode *a)
{
    return sl_type_is_numeric(a->type) || a->type == SL_T_BOOL || a->type == SL_T_NULL;
}

int sl__xfunc_type(int id, xnode **args, int nargs, sl_type *type, uint32_t *width,
                   sl_pos pos, sl_error *err)
{
    const char *fname = sl__xfuncs[id].name;
    *width = 0;
    switch (id) {
    case XF_ABS: case XF_CEIL: case XF_FLOOR: case XF_ROUND:
        for (int i = 0; i < nargs; i++)
            if (!numeric_arg(args[i]))
                goto bad;
        *type = sl_type_is_float(args[0]->type) ? SL_T_DOUBLE : SL_T_BIGINT;
        if (id == XF_ROUND && nargs == 2 && *type == SL_T_BIGINT)
            *type = SL_T_BIGINT;
        return 0;
    case XF_SQRT: case XF_POW: case XF_LOG: case XF_EXP:
        for (int i = 0; i < nargs; i++)
            if (!numeric_arg(args[i]))
                goto bad;
        *type = SL_T_DOUBLE;
        return 0;
    case XF_CONCAT: {
        uint32_t w = 0;
        for (int i = 0; i < nargs; i++)
            w += sl_type_is_var(args[i]->type) ? args[i]->width : 32;
        *type = SL_T_VARCHAR;
        *width = w > SL_VARCHAR_MAX ? SL_VARCHAR_MAX : w;
        return 0;
    }
    case XF_LENGTH: case XF_CHAR_LENGTH:
        if (!sl_type_is_var(args[0]->type) && args[0]->type != SL_T_NULL)
            goto bad;
        *type = SL_T_BIGINT;
        return 0;
    case XF_LOWER: case XF_UPPER:
        if (!sl_type_is_var(args[0]->type) && args[0]->type != SL_T_NULL)
            goto bad;
        *type = args[0]->type == SL_T_NULL ? SL_T_VARCHAR : args[0]->type;
        *width = args[0]->width;
        return 0;
    case XF_IFNULL: case XF_COALESCE: {
        char what[48];
        snprintf(what, sizeof(what), "%s arguments", fname);
        return sl__common_type(args, nargs, false, what, pos, type, width, err);
    }
    case XF_TIMETRUNCATE:
        if (args[0]->type != SL_T_TIMESTAMP || args[1]->kind != X_CONST ||
            !sl_type_is_int(args[1]->type))
            return sl_error_set(err, SL_ETYPE, pos.line, pos.col,
                                "timetruncate takes a TIMESTAMP and a duration such as 1h");
        *type = SL_T_TIMESTAMP;
        return 0;
    }
bad:
    for (int i = 0; i < nargs; i++)
        if (!(id == XF_CONCAT) && args[i]->type != SL_T_NULL)
            return sl_error_set(err, SL_ETYPE, pos.line, pos.col,
                                "function %s does not accept %s", fname,
                                sl_type_name(args[i]->type));
    return sl_error_set(err, SL_ETYPE, pos.line, pos.col, "function %s: bad arguments", fname);
}

static int oom(sl_error *err)
{
    return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
}

/* Appends the double r as the node's numeric type (BIGINT or DOUBLE). */
static int put_num(sl_column *out, double r, sl_error *err)
{
    if (isnan(r) || isinf(r))
        return sl_column_append_null(out) ? oom(err) : 0;
    int rc = out->type == SL_T_DOUBLE ? sl_column_append_f64(out, r)
                                      : sl_column_append_i64(out, (int64_t)r);
    return rc ? oom(err) : 0;
}

static uint32_t utf8_chars(const char *s, uint32_t n)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

static int func_row(xnode *n, const sl_column **av, uint32_t i, sl_buf *tmp, sl_error *err)
{
    sl_column *out = &n->out;
    int id = n->op;
    if (id == XF_IFNULL || id == XF_COALESCE) {
        for (int k = 0; k < n->nargs; k++) {
            if (sl_column_is_null(av[k], i) || n->args[k]->type == SL_T_NULL)
                continue;
            sl_value v, cv;
            char buf[64];
            sl_column_get(av[k], i, &v);
            if (v.type != n->type) {
                if (sl_value_cast(&v, n->type, n->width, SL_PREC_MS, buf, sizeof(buf), &cv,
                                  err) != 0)
                    return err ? err->code : SL_ETYPE;
                v = cv;
            }
            return sl_column_append_value(out, &v) ? oom(err) : 0;
        }
        return sl_column_append_null(out) ? oom(err) : 0;
    }
    for (int k = 0; k < n->nargs; k++)
        if (sl_column_is_null(av[k], i))
            return sl_column_append_null(out) ? oom(err) : 0;
    switch (id) {
    case XF_ABS: case XF_CEIL: case XF_FLOOR: case XF_ROUND:
        if (n->type == SL_T_BIGINT) {
            /* Integers stay integers: exact on the whole BIGINT range, no double. */
            if (av[0]->type == SL_T_UBIGINT && sl_column_get_u64(av[0], i) > INT64_MAX)
                return sl_error_set(err, SL_EOVERFLOW, n->pos.line, n->pos.col,
                                    "BIGINT UNSIGNED value %llu is out of BIGINT range",
                                    (unsigned long long)sl_column_get_u64(av[0], i));
            int64_t x = sl_column_get_i64(av[0], i);
            if (id == XF_ABS && x == INT64_MIN)
                return sl_error_set(err, SL_EOVERFLOW, n->pos.line, n->pos.col,
                                    "BIGINT overflow in abs");
            if (id == XF_ROUND && n->nargs == 2) {
                /* ROUND(x, -d) rounds to a multiple of 10^d, halves away from zero. */
                int64_t d = sl_column_get_i64(av[1], i);
                if (d < 0) {
                    int64_t p = 1;
                    for (int64_t k = d < -15 ? -15 : d; k < 0; k++)
                        p *= 10;
                    int64_t q = x / p, rem = x % p;
                    if (rem >= p - rem)
                        q++;
                    else if (-rem >= p + rem)
                        q--;
                    if (__builtin_mul_overflow(q, p, &x))
                        return sl_error_set(err, SL_EOVERFLOW, n->pos.line, n->pos.col,
                                            "BIGINT overflow in round");
                }
            }
            return sl_column_append_i64(out, id == XF_ABS && x < 0 ? -x : x) ? oom(err) : 0;
        } else {
            double x = sl_column_get_f64(av[0], i);
            double r = x;
            if (id == XF_ABS)
                r = fabs(x);
            else if (id == XF_CEIL)
                r = ceil(x);
            else if (id == XF_FLOOR)
                r = floor(x);
            else {
                int64_t d = n->nargs == 2 ? sl_column_get_i64(av[1], i) : 0;
                if (d < -15 || d > 15)
                    d = d < 0 ? -15 : 15;
                double m = pow(10.0, (double)d);
                r = round(x * m) / m;
            }
            return put_num(out, r, err);
        }
    case XF_SQRT: {
        double x = sl_column_get_f64(av[0], i);
        return put_num(out, x < 0 ? NAN : sqrt(x), err);
    }
    case XF_EXP:
        return put_num(out, exp(sl_column_get_f64(av[0], i)), err);
    case XF_POW:
        return put_num(out, pow(sl_column_get_f64(av[0], i), sl_column_get_f64(av[1], i)), err);
    case XF_LOG: {
        double x = sl_column_get_f64(av[0], i);
        if (x <= 0)
            return put_num(out, NAN, err);
        if (n->nargs == 1)
            return put_num(out, log(x), err);
        double b = sl_column_get_f64(av[1], i);
        return put_num(out, b <= 0 || b == 1 ? NAN : log(x) / log(b), err);
    }
    case XF_LENGTH: case XF_CHAR_LENGTH: {
        uint32_t len;
        const char *s = sl_column_get_str(av[0], i, &len);
        int64_t r = id == XF_LENGTH ? len : utf8_chars(s, len);
        return sl_column_append_i64(out, r) ? oom(err) : 0;
    }
    case XF_LOWER: case XF_UPPER: {
        uint32_t len;
        const char *s = sl_column_get_str(av[0], i, &len);
        sl_buf_reset(tmp);
        if (sl_buf_reserve(tmp, len + 1) != 0)
            return oom(err);
        for (uint32_t k = 0; k < len; k++) {
            unsigned char ch = (unsigned char)s[k];
            tmp->data[k] = (uint8_t)(id == XF_LOWER ? tolower(ch) : toupper(ch));
        }
        return sl_column_append_str(out, (const char *)tmp->data, len) ? oom(err) : 0;
    }
    case XF_CONCAT: {
        sl_buf_reset(tmp);
        for (int k = 0; k < n->nargs; k++) {
            sl_value v, cv;
            char buf[64];
            sl_column_get(av[k], i, &v);
            if (!sl_type_is_var(v.type)) {
                if (sl_value_cast(&v, SL_T_VARCHAR, 0, SL_PREC_MS, buf, sizeof(buf), &cv, err))
                    return err ? err->code : SL_ETYPE;
                v = cv;
            }
            if (sl_buf_put(tmp, v.v.s.ptr, v.v.s.len) != 0)
                return oom(err);
        }
        if (tmp->len > SL_VARCHAR_MAX)
            return sl_error_set(err, SL_ERANGE, n->pos.line, n->pos.col,
                                "concat result longer than %d bytes", SL_VARCHAR_MAX);
        return sl_column_append_str(out, (const char *)tmp->data, (uint32_t)tmp->len) ? oom(err)
                                                                                     : 0;
    }
    case XF_TIMETRUNCATE: {
        int64_t ts = sl_column_get_i64(av[0], i);
        int64_t u = sl_column_get_i64(av[1], i);
        if (u <= 0)
            return sl_error_set(err, SL_EINVAL, n->pos.line, n->pos.col,
                                "timetruncate unit must be positive");
        return sl_column_append_i64(out, ts - sl_floormod(ts, u)) ? oom(err) : 0;
    }
    }
    return sl_error_set(err, SL_ESTATE, n->pos.line, n->pos.col, "bad function");
}

int sl__xfunc_eval(xnode *n, const sl_column **av, uint32_t nrows, sl_error *err)
{
    sl_column_reset(&n->out);
    if (sl_column_reserve(&n->out, nrows, 0) != 0)
        return oom(err);
    sl_buf tmp;
    sl_buf_init(&tmp);
    int rc = 0;
    for (uint32_t i = 0; i < nrows && rc == 0; i++)
        rc = func_row(n, av, i, &tmp, err);
    sl_buf_fini(&tmp);
    return rc;
}

int sl__xcast_eval(xnode *n, const sl_column *a, uint32_t nrows, sl_error *err)
{
    sl_column *out = &n->out;
    sl_column_reset(out);
    if (sl_column_reserve(out, nrows, 0) != 0)
        return oom(err);
    char buf[128];
    for (uint32_t i = 0; i < nrows; i++) {
        int rc;
        if (sl_column_is_null(a, i)) {
            rc = sl_column_append_null(out);
        } else {
            sl_value v, cv;
            sl_column_get(a, i, &v);
            /* op of a CAST node holds the precision (expr_compile.c sets it). */
            rc = sl_value_cast(&v, n->type, n->width, (sl_precision)n->op, buf, sizeof(buf),
                               &cv, err);
            if (rc != 0) {
                if (err != NULL && err->line == 0) {
                    err->line = n->pos.line;
                    err->col = n->pos.col;
                }
                return rc;
            }
            rc = sl_column_append_value(out, &cv);
        }
        if (rc != 0)
            return oom(err);
    }
    return 0;
}

/* Length of the UTF-8 sequence starting with byte c (1 for invalid bytes). */
static uint32_t utf8_len(unsigned char c)
{
    if (c >= 0xF0)
        return 4;
    if (c >= 0xE0)
        return 3;
    if (c >= 0xC0)
        return 2;
    return 1;
}

bool sl__like_match(const char *s, uint32_t sn, const char *p, uint32_t pn)
{
    /* Greedy matching with one backtrack point (the last '%'): O(sn * pn) worst case. */
    uint32_t si = 0, pi = 0, star_p = UINT32_MAX, star_s = 0;
    while (si < sn) {
        if (pi < pn && p[pi] == '%') {
            star_p = ++pi;
            star_s = si;
            continue;
        }
        if (pi < pn && p[pi] == '_') {
            uint32_t l = utf8_len((unsigned char)s[si]);
            si += l <= sn - si ? l : sn - si;
            pi++;
            continue;
        }
        if (pi < pn) {
            uint32_t q = pi;
            if (p[q] == '\\' && q + 1 < pn)
                q++;
            if (p[q] == s[si]) {
                pi = q + 1;
                si++;
                continue;
            }
        }
        if (star_p == UINT32_MAX)
            return false;
        pi = star_p;
        si = ++star_s;
    }
    while (pi < pn && p[pi] == '%')
        pi++;
    return pi == pn;
}
