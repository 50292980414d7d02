/*
 * ddl_const.c - constant expressions: the values of INSERT rows, TAGS clauses and DELETE
 * bounds (ddl.h, sl_ddl_const_to).
 *
 * VALUES, TAGS and DELETE bounds are constant expressions: literals, NULL, NOW/NOW() and
 * TODAY() in the database precision, unary minus, arithmetic, a timestamp (or integer, or
 * timestamp string) plus or minus a duration (calendar units n and y move by months),
 * and CAST. They are evaluated here and converted to the column type with sl_value_cast,
 * so a bad value is reported with the column or tag it was meant for and the position of
 * the value. The embedded store and the mnode catalog both use this one evaluator, so a
 * tag value is accepted or refused the same way everywhere.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddl.h"

/* ------------------------------------------------------------ constant expressions */

/* Buffers for values formatted by CAST inside one expression. */
#define EVAL_BUFS    4
#define EVAL_BUF_LEN SL_DDL_VALUE_BUF

typedef struct eval_ctx {
    int64_t now_ms;                     /* the statement's NOW, ms since the epoch */
    sl_precision prec;                  /* precision of timestamps and durations */
    int nbufs;                          /* bufs in use */
    char bufs[EVAL_BUFS][EVAL_BUF_LEN]; /* text made by CAST ... AS VARCHAR */
} eval_ctx;

static int eval(eval_ctx *cx, const sl_expr *e, sl_value *out, sl_error *err);

/* The statement's NOW in the evaluation's precision. */
static int64_t now_in(const eval_ctx *cx)
{
    return cx->now_ms * (sl_precision_per_sec(cx->prec) / 1000);
}

/* Quotes a value for a message: 'text' (cut at 40 bytes) or the formatted number. */
static const char *show_value(const sl_value *v, sl_precision prec, char *buf, size_t n)
{
    if (v->is_null) {
        snprintf(buf, n, "NULL");
    } else if (sl_type_is_var(v->type)) {
        uint32_t len = v->v.s.len;
        if (len > 40)
            snprintf(buf, n, "'%.40s...'", v->v.s.ptr);
        else
            snprintf(buf, n, "'%.*s'", (int)len, v->v.s.ptr);
    } else if (sl_value_format(v, prec, buf, n) < 0) {
        snprintf(buf, n, "(%s value)", sl_type_name(v->type));
    }
    return buf;
}

/* If e is a duration literal, possibly negated, sets *d (sign applied) and returns true. */
static bool as_duration(const sl_expr *e, sl_duration *d)
{
    if (e->kind == SL_EX_LITERAL && e->u.lit.kind == SL_LIT_DURATION) {
        *d = e->u.lit.dur;
        return true;
    }
    if (e->kind == SL_EX_UNARY && e->u.unary.op == SL_OP_NEG && as_duration(e->u.unary.arg, d)) {
        d->value = -d->value;
        return true;
    }
    return false;
}

/* ts + months calendar months, keeping the time of day and clamping the day of month. */
static int add_months(int64_t ts, int64_t months, sl_precision p, int64_t *out)
{
    int64_t day = 86400 * sl_precision_per_sec(p);
    int64_t days = sl_floordiv(ts, day), rem = ts - days * day;
    int64_t y;
    unsigned m, d;
    sl_civil_from_days(days, &y, &m, &d);
    int64_t total;
    if (__builtin_mul_overflow(y, 12, &total) ||
        __builtin_add_overflow(total, (int64_t)(m - 1), &total) ||
        __builtin_add_overflow(total, months, &total))
        return SL_EOVERFLOW;
    int64_t ny = sl_floordiv(total, 12);
    unsigned nm = (unsigned)sl_floormod(total, 12) + 1;
    if (ny < -1000000 || ny > 1000000)
        return SL_EOVERFLOW;
    int64_t first = sl_days_from_civil(ny, nm, 1);
    int64_t next = nm == 12 ? sl_days_from_civil(ny + 1, 1, 1) : sl_days_from_civil(ny, nm + 1, 1);
    unsigned mdays = (unsigned)(next - first);
    int64_t ndays = first + (d > mdays ? mdays : d) - 1;
    if (__builtin_mul_overflow(ndays, day, out) || __builtin_add_overflow(*out, rem, out))
        return SL_EOVERFLOW;
    return 0;
}

/* Reads v as a timestamp count for duration arithmetic. */
static int as_timestamp(eval_ctx *cx, const sl_value *v, sl_pos pos, int64_t *ts, sl_error *err)
{
    char shown[64];
    if (v->type == SL_T_TIMESTAMP || sl_type_is_signed_int(v->type)) {
        *ts = v->v.i;
        return 0;
    }
    if (sl_type_is_unsigned_int(v->type) && v->v.u <= INT64_MAX) {
        *ts = (int64_t)v->v.u;
        return 0;
    }
    if (sl_type_is_var(v->type)) {
        sl_value tv;
        sl_error e2;
        sl_error_clear(&e2);
        if (sl_value_cast(v, SL_T_TIMESTAMP, 0, cx->prec, NULL, 0, &tv, &e2) == 0) {
            *ts = tv.v.i;
            return 0;
        }
    }
    return sl_ddl_error(err, SL_ETYPE, pos, "a duration can only be added to a timestamp, got %s",
                        show_value(v, cx->prec, shown, sizeof(shown)));
}

static int eval_duration_arith(eval_ctx *cx, const sl_expr *e, sl_value *out, sl_error *err)
{
    const sl_expr *l = e->u.binary.left, *r = e->u.binary.right;
    sl_duration d;
    bool ldur = as_duration(l, &d);
    sl_duration rd;
    bool rdur = as_duration(r, &rd);
    if (ldur && rdur)
        return sl_ddl_error(err, SL_ETYPE, e->pos,
                            "two durations cannot be combined: add a duration to a timestamp");
    if (ldur && e->u.binary.op == SL_OP_SUB)
        return sl_ddl_error(err, SL_ETYPE, e->pos,
                            "a value cannot be subtracted from a duration (write ts - %lld%c)",
                            (long long)d.value, d.unit);
    if (rdur) {
        d = rd;
        if (e->u.binary.op == SL_OP_SUB) {
            if (d.value == INT64_MIN)
                return sl_ddl_error(err, SL_EOVERFLOW, e->pos, "duration out of range");
            d.value = -d.value;
        }
    }
    const sl_expr *base = ldur ? r : l;
    sl_value v;
    int rc = eval(cx, base, &v, err);
    if (rc < 0)
        return rc;
    if (v.is_null) {
        *out = sl_value_null(SL_T_TIMESTAMP);
        return 0;
    }
    int64_t ts = 0, res = 0;
    if ((rc = as_timestamp(cx, &v, base->pos, &ts, err)) < 0)
        return rc;
    if (sl_duration_unit_is_calendar(d.unit)) {
        int64_t months = d.value;
        if (d.unit == 'y' && __builtin_mul_overflow(d.value, 12, &months))
            return sl_ddl_error(err, SL_EOVERFLOW, d.pos, "duration %lld%c is out of range",
                                (long long)d.value, d.unit);
        rc = add_months(ts, months, cx->prec, &res);
    } else {
        int64_t n;
        rc = sl_duration_to_precision(d.value, d.unit, cx->prec, &n);
        if (rc == SL_ERANGE)
            return sl_ddl_error(
                err, SL_ERANGE, d.pos, "duration %lld%c is finer than the database precision '%s'",
                (long long)(d.value < 0 ? -d.value : d.value), d.unit, sl_precision_name(cx->prec));
        if (rc == 0 && __builtin_add_overflow(ts, n, &res))
            rc = SL_EOVERFLOW;
    }
    if (rc < 0)
        return sl_ddl_error(err, rc, e->pos, "timestamp arithmetic out of range");
    *out = sl_value_int(SL_T_TIMESTAMP, res);
    return 0;
}

/* Integer value of v (signed, unsigned that fits, BOOL), for arithmetic. */
static bool arith_int(const sl_value *v, int64_t *out)
{
    if (sl_type_is_signed_int(v->type) || v->type == SL_T_TIMESTAMP) {
        *out = v->v.i;
        return true;
    }
    if (sl_type_is_unsigned_int(v->type) && v->v.u <= INT64_MAX) {
        *out = (int64_t)v->v.u;
        return true;
    }
    return false;
}

static bool arith_num(const sl_value *v)
{
    return sl_type_is_numeric(v->type) || v->type == SL_T_TIMESTAMP;
}

static double num_f64(const sl_value *v)
{
    if (sl_type_is_float(v->type))
        return v->v.d;
    if (sl_type_is_unsigned_int(v->type))
        return (double)v->v.u;
    return (double)v->v.i;
}

static const char *op_name(sl_binop op)
{
    switch (op) {
    case SL_OP_ADD: return "+";
    case SL_OP_SUB: return "-";
    case SL_OP_MUL: return "*";
    case SL_OP_DIV: return "/";
    case SL_OP_MOD: return "%";
    default: return "?";
    }
}

static int eval_arith(eval_ctx *cx, const sl_expr *e, sl_value *out, sl_error *err)
{
    sl_binop op = e->u.binary.op;
    sl_value a, b;
    int rc = eval(cx, e->u.binary.left, &a, err);
    if (rc == 0)
        rc = eval(cx, e->u.binary.right, &b, err);
    if (rc < 0)
        return rc;
    if (a.is_null || b.is_null) {
        *out = sl_value_null(SL_T_NULL);
        return 0;
    }
    char s1[64], s2[64];
    if (!arith_num(&a) || !arith_num(&b))
        return sl_ddl_error(err, SL_ETYPE, e->pos, "operator %s needs numbers, got %s and %s",
                            op_name(op), show_value(&a, cx->prec, s1, sizeof(s1)),
                            show_value(&b, cx->prec, s2, sizeof(s2)));
    bool ts_result = (a.type == SL_T_TIMESTAMP) != (b.type == SL_T_TIMESTAMP) &&
                     (op == SL_OP_ADD || op == SL_OP_SUB);
    int64_t x, y, r;
    if (op != SL_OP_DIV && !sl_type_is_float(a.type) && !sl_type_is_float(b.type) &&
        arith_int(&a, &x) && arith_int(&b, &y)) {
        bool ovf = false;
        switch (op) {
        case SL_OP_ADD: ovf = __builtin_add_overflow(x, y, &r); break;
        case SL_OP_SUB: ovf = __builtin_sub_overflow(x, y, &r); break;
        case SL_OP_MUL: ovf = __builtin_mul_overflow(x, y, &r); break;
        default:
            if (y == 0)
                return sl_ddl_error(err, SL_EDIVZERO, e->pos, "division by zero");
            r = y == -1 ? 0 : x % y;
            break;
        }
        if (ovf)
            return sl_ddl_error(err, SL_EOVERFLOW, e->pos, "integer overflow in %s %s %s",
                                show_value(&a, cx->prec, s1, sizeof(s1)), op_name(op),
                                show_value(&b, cx->prec, s2, sizeof(s2)));
        *out = sl_value_int(ts_result ? SL_T_TIMESTAMP : SL_T_BIGINT, r);
        return 0;
    }
    double p = num_f64(&a), q = num_f64(&b), d;
    switch (op) {
    case SL_OP_ADD: d = p + q; break;
    case SL_OP_SUB: d = p - q; break;
    case SL_OP_MUL: d = p * q; break;
    case SL_OP_DIV:
        if (q == 0)
            return sl_ddl_error(err, SL_EDIVZERO, e->pos, "division by zero");
        d = p / q;
        break;
    default:
        if (q == 0)
            return sl_ddl_error(err, SL_EDIVZERO, e->pos, "division by zero");
        d = fmod(p, q);
        break;
    }
    *out = sl_value_double(SL_T_DOUBLE, d);
    return 0;
}

static int eval_neg(eval_ctx *cx, const sl_expr *e, sl_value *out, sl_error *err)
{
    const sl_expr *arg = e->u.unary.arg;
    sl_duration d;
    if (as_duration(arg, &d))
        return sl_ddl_error(err, SL_ETYPE, e->pos,
                            "a duration must be added to a timestamp, e.g. NOW - %lld%c",
                            (long long)d.value, d.unit);
    sl_value v;
    int rc = eval(cx, arg, &v, err);
    if (rc < 0)
        return rc;
    char s[64];
    if (v.is_null) {
        *out = v;
    } else if (sl_type_is_signed_int(v.type) || v.type == SL_T_TIMESTAMP) {
        if (v.v.i == INT64_MIN)
            return sl_ddl_error(err, SL_EOVERFLOW, e->pos, "integer overflow in -(%lld)",
                                (long long)v.v.i);
        *out = sl_value_int(SL_T_BIGINT, -v.v.i);
    } else if (sl_type_is_unsigned_int(v.type)) {
        if (v.v.u > (uint64_t)INT64_MAX + 1)
            return sl_ddl_error(err, SL_EOVERFLOW, e->pos, "-%llu does not fit BIGINT",
                                (unsigned long long)v.v.u);
        *out = sl_value_int(SL_T_BIGINT, (int64_t)(0 - v.v.u));
    } else if (sl_type_is_float(v.type)) {
        *out = sl_value_double(SL_T_DOUBLE, -v.v.d);
    } else {
        return sl_ddl_error(err, SL_ETYPE, e->pos, "unary minus needs a number, got %s",
                            show_value(&v, cx->prec, s, sizeof(s)));
    }
    return 0;
}

static int eval_literal(eval_ctx *cx, const sl_expr *e, sl_value *out, sl_error *err)
{
    switch (e->u.lit.kind) {
    case SL_LIT_NULL: *out = sl_value_null(SL_T_NULL); return 0;
    case SL_LIT_BOOL: *out = sl_value_bool(e->u.lit.b); return 0;
    case SL_LIT_INT: *out = sl_value_int(SL_T_BIGINT, e->u.lit.i); return 0;
    case SL_LIT_UINT: *out = sl_value_uint(SL_T_UBIGINT, e->u.lit.u); return 0;
    case SL_LIT_FLOAT: *out = sl_value_double(SL_T_DOUBLE, e->u.lit.d); return 0;
    case SL_LIT_STRING: *out = sl_value_str(SL_T_VARCHAR, e->u.lit.s, e->u.lit.len); return 0;
    case SL_LIT_DURATION:
        return sl_ddl_error(err, SL_ETYPE, e->pos,
                            "a duration (%lld%c) must be added to a timestamp, e.g. NOW + %lld%c",
                            (long long)e->u.lit.dur.value, e->u.lit.dur.unit,
                            (long long)e->u.lit.dur.value, e->u.lit.dur.unit);
    }
    (void)cx;
    return sl_ddl_error(err, SL_EINVAL, e->pos, "unknown literal");
}

static int eval(eval_ctx *cx, const sl_expr *e, sl_value *out, sl_error *err)
{
    switch (e->kind) {
    case SL_EX_LITERAL: return eval_literal(cx, e, out, err);
    case SL_EX_NOW: *out = sl_value_int(SL_T_TIMESTAMP, now_in(cx)); return 0;
    case SL_EX_TODAY: {
        int64_t day = 86400 * sl_precision_per_sec(cx->prec);
        int64_t now = now_in(cx);
        *out = sl_value_int(SL_T_TIMESTAMP, sl_floordiv(now, day) * day);
        return 0;
    }
    case SL_EX_UNARY:
        if (e->u.unary.op == SL_OP_NEG)
            return eval_neg(cx, e, out, err);
        return sl_ddl_error(err, SL_EUNSUPPORTED, e->pos, "%s is not supported in a constant here",
                            e->u.unary.op == SL_OP_NOT ? "NOT" : "~");
    case SL_EX_BINARY: {
        sl_binop op = e->u.binary.op;
        sl_duration d;
        if ((op == SL_OP_ADD || op == SL_OP_SUB) &&
            (as_duration(e->u.binary.left, &d) || as_duration(e->u.binary.right, &d)))
            return eval_duration_arith(cx, e, out, err);
        if (op >= SL_OP_ADD && op <= SL_OP_MOD)
            return eval_arith(cx, e, out, err);
        return sl_ddl_error(err, SL_EUNSUPPORTED, e->pos,
                            "only arithmetic (+ - * / %%) is supported in a constant here");
    }
    case SL_EX_CAST: {
        sl_value v;
        int rc = eval(cx, e->u.cast.arg, &v, err);
        if (rc < 0)
            return rc;
        if (cx->nbufs == EVAL_BUFS)
            return sl_ddl_error(err, SL_ELIMIT, e->pos, "too many CASTs in one value");
        char *buf = cx->bufs[cx->nbufs++];
        sl_error e2;
        sl_error_clear(&e2);
        rc = sl_value_cast(&v, e->u.cast.type, e->u.cast.width, cx->prec, buf, EVAL_BUF_LEN, out,
                           &e2);
        if (rc < 0) {
            char s[64], t[48];
            return sl_ddl_error(
                err, rc, e->pos, "cannot CAST %s AS %s: %s", show_value(&v, cx->prec, s, sizeof(s)),
                sl_ddl_type_str(e->u.cast.type, e->u.cast.width, t, sizeof(t)), e2.msg);
        }
        return 0;
    }
    case SL_EX_COLUMN:
        return sl_ddl_error(err, SL_EUNSUPPORTED, e->pos,
                            "column '%s' cannot be used here: values must be constants",
                            e->u.column.name);
    case SL_EX_FUNC:
        return sl_ddl_error(err, SL_EUNSUPPORTED, e->pos,
                            "function '%s' cannot be used here: values must be constants "
                            "(literals, NOW, TODAY, arithmetic, durations, CAST)",
                            e->u.func.name);
    default:
        return sl_ddl_error(err, SL_EUNSUPPORTED, e->pos,
                            "values must be constants (literals, NOW, TODAY, arithmetic, "
                            "durations, CAST)");
    }
}

int sl_ddl_const_to(const sl_expr *e, const sl_field *f, const char *what, sl_precision prec,
                    int64_t now_ms, char *buf, size_t bufn, sl_value *out, sl_error *err)
{
    eval_ctx cx = {.now_ms = now_ms, .prec = prec};
    sl_value v;
    int rc = eval(&cx, e, &v, err);
    if (rc < 0)
        return rc;
    if (v.is_null) {
        *out = sl_value_null(f->type);
        return 0;
    }
    sl_error e2;
    sl_error_clear(&e2);
    rc = sl_value_cast(&v, f->type, f->width, prec, buf, bufn, out, &e2);
    if (rc == 0)
        return 0;
    char shown[64], ty[48];
    show_value(&v, prec, shown, sizeof(shown));
    sl_ddl_type_str(f->type, f->width, ty, sizeof(ty));
    if (rc == SL_ERANGE && sl_type_is_var(f->type) && sl_type_is_var(v.type))
        return sl_ddl_error(err, SL_ERANGE, e->pos, "value %s is too long for %s '%s' %s", shown,
                            what, f->name, ty);
    if (rc == SL_ERANGE || rc == SL_EOVERFLOW)
        return sl_ddl_error(err, SL_ERANGE, e->pos, "value %s is out of range for %s '%s' %s",
                            shown, what, f->name, ty);
    if (rc == SL_ETYPE || rc == SL_EINVAL)
        return sl_ddl_error(err, SL_ETYPE, e->pos, "%s '%s' expects %s, got %s", what, f->name, ty,
                            shown);
    return sl_ddl_error(err, rc, e->pos, "%s '%s': %s", what, f->name, e2.msg);
}
