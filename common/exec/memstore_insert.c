/*
 * memstore_insert.c - INSERT and DELETE for the embedded store, and the constant
 * expressions they accept.
 *
 * VALUES, TAGS and DELETE bounds are constant expressions: literals, NULL, NOW/NOW() and
 * TODAY() in the database precision, unary minus, arithmetic, a timestamp (or integer, or
 * timestamp string) plus or minus a duration (calendar units n and y move by months),
 * and CAST. They are evaluated here, row by row, and converted to the column type with
 * sl_value_cast, so a bad value is reported with the column it was meant for and the
 * position of the value.
 *
 * An INSERT is atomic: every item is resolved, every row converted into a staging block
 * and every allocation linking needs is made before the first table changes; the staging
 * blocks then become the tables' newest pending writes (memstore_table.c). A DELETE
 * prepares the new row sets of all affected tables before swapping any in.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memstore_int.h"

/* ------------------------------------------------------------ constant expressions */

/* Buffers for values formatted by CAST inside one expression. */
#define EVAL_BUFS    4
#define EVAL_BUF_LEN 72

typedef struct eval_ctx {
    sl_memstore *ms;                    /* for the statement's NOW */
    sl_precision prec;                  /* precision of timestamps and durations */
    int nbufs;                          /* bufs in use */
    char bufs[EVAL_BUFS][EVAL_BUF_LEN]; /* text made by CAST ... AS VARCHAR */
} eval_ctx;

static int eval(eval_ctx *cx, const sl_expr *e, sl_value *out, sl_error *err);

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

static const char *type_str(sl_type t, uint32_t width, char *buf, size_t n)
{
    if (sl_type_is_var(t))
        snprintf(buf, n, "%s(%u)", sl_type_name(t), width);
    else
        snprintf(buf, n, "%s", sl_type_name(t));
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
    return sl__ms_error(err, SL_ETYPE, pos, "a duration can only be added to a timestamp, got %s",
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
        return sl__ms_error(err, SL_ETYPE, e->pos,
                            "two durations cannot be combined: add a duration to a timestamp");
    if (ldur && e->u.binary.op == SL_OP_SUB)
        return sl__ms_error(err, SL_ETYPE, e->pos,
                            "a value cannot be subtracted from a duration (write ts - %lld%c)",
                            (long long)d.value, d.unit);
    if (rdur) {
        d = rd;
        if (e->u.binary.op == SL_OP_SUB) {
            if (d.value == INT64_MIN)
                return sl__ms_error(err, SL_EOVERFLOW, e->pos, "duration out of range");
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
            return sl__ms_error(err, SL_EOVERFLOW, d.pos, "duration %lld%c is out of range",
                                (long long)d.value, d.unit);
        rc = add_months(ts, months, cx->prec, &res);
    } else {
        int64_t n;
        rc = sl_duration_to_precision(d.value, d.unit, cx->prec, &n);
        if (rc == SL_ERANGE)
            return sl__ms_error(
                err, SL_ERANGE, d.pos, "duration %lld%c is finer than the database precision '%s'",
                (long long)(d.value < 0 ? -d.value : d.value), d.unit, sl_precision_name(cx->prec));
        if (rc == 0 && __builtin_add_overflow(ts, n, &res))
            rc = SL_EOVERFLOW;
    }
    if (rc < 0)
        return sl__ms_error(err, rc, e->pos, "timestamp arithmetic out of range");
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
        return sl__ms_error(err, SL_ETYPE, e->pos, "operator %s needs numbers, got %s and %s",
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
                return sl__ms_error(err, SL_EDIVZERO, e->pos, "division by zero");
            r = y == -1 ? 0 : x % y;
            break;
        }
        if (ovf)
            return sl__ms_error(err, SL_EOVERFLOW, e->pos, "integer overflow in %s %s %s",
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
            return sl__ms_error(err, SL_EDIVZERO, e->pos, "division by zero");
        d = p / q;
        break;
    default:
        if (q == 0)
            return sl__ms_error(err, SL_EDIVZERO, e->pos, "division by zero");
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
        return sl__ms_error(err, SL_ETYPE, e->pos,
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
            return sl__ms_error(err, SL_EOVERFLOW, e->pos, "integer overflow in -(%lld)",
                                (long long)v.v.i);
        *out = sl_value_int(SL_T_BIGINT, -v.v.i);
    } else if (sl_type_is_unsigned_int(v.type)) {
        if (v.v.u > (uint64_t)INT64_MAX + 1)
            return sl__ms_error(err, SL_EOVERFLOW, e->pos, "-%llu does not fit BIGINT",
                                (unsigned long long)v.v.u);
        *out = sl_value_int(SL_T_BIGINT, (int64_t)(0 - v.v.u));
    } else if (sl_type_is_float(v.type)) {
        *out = sl_value_double(SL_T_DOUBLE, -v.v.d);
    } else {
        return sl__ms_error(err, SL_ETYPE, e->pos, "unary minus needs a number, got %s",
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
        return sl__ms_error(err, SL_ETYPE, e->pos,
                            "a duration (%lld%c) must be added to a timestamp, e.g. NOW + %lld%c",
                            (long long)e->u.lit.dur.value, e->u.lit.dur.unit,
                            (long long)e->u.lit.dur.value, e->u.lit.dur.unit);
    }
    (void)cx;
    return sl__ms_error(err, SL_EINVAL, e->pos, "unknown literal");
}

static int eval(eval_ctx *cx, const sl_expr *e, sl_value *out, sl_error *err)
{
    switch (e->kind) {
    case SL_EX_LITERAL: return eval_literal(cx, e, out, err);
    case SL_EX_NOW: *out = sl_value_int(SL_T_TIMESTAMP, sl__ms_now(cx->ms, cx->prec)); return 0;
    case SL_EX_TODAY: {
        int64_t day = 86400 * sl_precision_per_sec(cx->prec);
        int64_t now = sl__ms_now(cx->ms, cx->prec);
        *out = sl_value_int(SL_T_TIMESTAMP, sl_floordiv(now, day) * day);
        return 0;
    }
    case SL_EX_UNARY:
        if (e->u.unary.op == SL_OP_NEG)
            return eval_neg(cx, e, out, err);
        return sl__ms_error(err, SL_EUNSUPPORTED, e->pos, "%s is not supported in a constant here",
                            e->u.unary.op == SL_OP_NOT ? "NOT" : "~");
    case SL_EX_BINARY: {
        sl_binop op = e->u.binary.op;
        sl_duration d;
        if ((op == SL_OP_ADD || op == SL_OP_SUB) &&
            (as_duration(e->u.binary.left, &d) || as_duration(e->u.binary.right, &d)))
            return eval_duration_arith(cx, e, out, err);
        if (op >= SL_OP_ADD && op <= SL_OP_MOD)
            return eval_arith(cx, e, out, err);
        return sl__ms_error(err, SL_EUNSUPPORTED, e->pos,
                            "only arithmetic (+ - * / %%) is supported in a constant here");
    }
    case SL_EX_CAST: {
        sl_value v;
        int rc = eval(cx, e->u.cast.arg, &v, err);
        if (rc < 0)
            return rc;
        if (cx->nbufs == EVAL_BUFS)
            return sl__ms_error(err, SL_ELIMIT, e->pos, "too many CASTs in one value");
        char *buf = cx->bufs[cx->nbufs++];
        sl_error e2;
        sl_error_clear(&e2);
        rc = sl_value_cast(&v, e->u.cast.type, e->u.cast.width, cx->prec, buf, EVAL_BUF_LEN, out,
                           &e2);
        if (rc < 0) {
            char s[64], t[48];
            return sl__ms_error(err, rc, e->pos, "cannot CAST %s AS %s: %s",
                                show_value(&v, cx->prec, s, sizeof(s)),
                                type_str(e->u.cast.type, e->u.cast.width, t, sizeof(t)), e2.msg);
        }
        return 0;
    }
    case SL_EX_COLUMN:
        return sl__ms_error(err, SL_EUNSUPPORTED, e->pos,
                            "column '%s' cannot be used here: values must be constants",
                            e->u.column.name);
    case SL_EX_FUNC:
        return sl__ms_error(err, SL_EUNSUPPORTED, e->pos,
                            "function '%s' cannot be used here: values must be constants "
                            "(literals, NOW, TODAY, arithmetic, durations, CAST)",
                            e->u.func.name);
    default:
        return sl__ms_error(err, SL_EUNSUPPORTED, e->pos,
                            "values must be constants (literals, NOW, TODAY, arithmetic, "
                            "durations, CAST)");
    }
}

int sl__ms_const_to(sl_memstore *ms, const sl_expr *e, const sl_field *f, const char *what,
                    sl_precision prec, char *buf, size_t bufn, sl_value *out, sl_error *err)
{
    eval_ctx cx = {.ms = ms, .prec = prec};
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
    type_str(f->type, f->width, ty, sizeof(ty));
    if (rc == SL_ERANGE && sl_type_is_var(f->type) && sl_type_is_var(v.type))
        return sl__ms_error(err, SL_ERANGE, e->pos, "value %s is too long for %s '%s' %s", shown,
                            what, f->name, ty);
    if (rc == SL_ERANGE || rc == SL_EOVERFLOW)
        return sl__ms_error(err, SL_ERANGE, e->pos, "value %s is out of range for %s '%s' %s",
                            shown, what, f->name, ty);
    if (rc == SL_ETYPE || rc == SL_EINVAL)
        return sl__ms_error(err, SL_ETYPE, e->pos, "%s '%s' expects %s, got %s", what, f->name, ty,
                            shown);
    return sl__ms_error(err, rc, e->pos, "%s '%s': %s", what, f->name, e2.msg);
}

/* ------------------------------------------------------------ INSERT */

/* What one INSERT item writes: a staging block for table t. */
typedef struct ins_item {
    sl__ms_table *t; /* target table */
    bool is_new;     /* t is created by this statement, not linked yet */
    sl_block *rows;  /* staging rows in the table's columns */
} ins_item;

/* Resolves the target table of an item, creating (unlinked) a child for USING. */
static int ins_target(sl_memstore *ms, const sl_insert_item *it, ins_item *items, int nitems,
                      ins_item *out, sl_error *err)
{
    sl__ms_db *db;
    int rc = sl__ms_resolve_db(ms, &it->table, &db, err);
    if (rc < 0)
        return rc;
    if (strlen(it->table.name) > SL_TABLE_NAME_MAX)
        return sl__ms_error(err, SL_ELIMIT, it->table.pos,
                            "table name '%s' is longer than %d bytes", it->table.name,
                            SL_TABLE_NAME_MAX);
    sl__ms_table *t = sl__ms_find_table(db, it->table.name);
    for (int j = 0; t == NULL && j < nitems; j++)
        if (items[j].is_new && items[j].t->t_db == db &&
            sl__ms_name_eq(items[j].t->t_name, it->table.name))
            t = items[j].t;
    if (it->has_using) {
        sl__ms_table *st = NULL;
        if ((rc = sl__ms_find_super(ms, &it->stable, db, &st, err)) < 0)
            return rc;
        if (t != NULL) {
            /* The table exists: USING only checks that it is that super table's child. */
            if (t->t_super != st)
                return sl__ms_error(err, SL_EEXIST, it->table.pos,
                                    "table '%s' already exists and is not a child table of "
                                    "'%s'",
                                    t->t_name, st->t_name);
        } else {
            t = sl__ms_table_new(db, SL_TABLE_CHILD, it->table.name);
            if (t == NULL)
                return sl__ms_error(err, SL_ENOMEM, it->table.pos, "out of memory");
            t->t_super = st;
            out->t = t;
            out->is_new = true;
            if (sl__ms_rows_init(t) < 0)
                return sl__ms_error(err, SL_ENOMEM, it->table.pos, "out of memory");
            /* The AST keeps no positions for INSERT tag names: report at the super table. */
            sl_pos *npos = NULL;
            if (it->ntag_names > 0) {
                npos = malloc((size_t)it->ntag_names * sizeof(*npos));
                if (npos == NULL)
                    return sl__ms_error(err, SL_ENOMEM, it->table.pos, "out of memory");
                for (int k = 0; k < it->ntag_names; k++)
                    npos[k] = it->stable.pos;
            }
            rc = sl__ms_build_tags(ms, st, it->ntag_names, it->tag_names, npos, &it->tag_values,
                                   it->stable.pos, &t->t_tagvals, err);
            free(npos);
            return rc;
        }
    }
    if (t == NULL)
        return sl__ms_error(err, SL_ENOTFOUND, it->table.pos,
                            "table '%s' does not exist in database '%s'", it->table.name,
                            db->d_name);
    if (t->t_kind == SL_TABLE_SUPER)
        return sl__ms_error(err, SL_EINVAL, it->table.pos,
                            "cannot insert into super table '%s': insert into a child table "
                            "(INSERT INTO d USING %s TAGS (...) creates one)",
                            t->t_name, t->t_name);
    out->t = t;
    return 0;
}

/* Converts an item's rows into a staging block of t's columns. */
static int ins_rows(sl_memstore *ms, const sl_insert_item *it, sl__ms_table *t, sl_block *b,
                    sl_error *err)
{
    int ncols = sl__ms_ncols(t);
    const sl_field *cols = sl__ms_cols(t);
    const sl_field *tags = sl__ms_tags(t);
    int ntags = sl__ms_ntags(t);
    sl_precision prec = t->t_db->d_prec;
    int *inv = malloc((size_t)ncols * sizeof(int)); /* column -> value index, or -1 */
    if (inv == NULL)
        return sl__ms_error(err, SL_ENOMEM, it->table.pos, "out of memory");
    int rc = 0, nvals = ncols;
    for (int k = 0; k < ncols; k++)
        inv[k] = it->ncols > 0 ? -1 : k;
    for (int i = 0; i < it->ncols; i++) {
        int k = 0;
        while (k < ncols && !sl__ms_name_eq(cols[k].name, it->cols[i]))
            k++;
        if (k == ncols) {
            bool is_tag = false;
            for (int j = 0; j < ntags; j++)
                is_tag = is_tag || sl__ms_name_eq(tags[j].name, it->cols[i]);
            rc = is_tag ? sl__ms_error(err, SL_EINVAL, it->col_pos[i],
                                       "'%s' is a tag, not a column: set it with TAGS", it->cols[i])
                        : sl__ms_error(err, SL_ENOTFOUND, it->col_pos[i],
                                       "table '%s' has no column '%s'", t->t_name, it->cols[i]);
            goto done;
        }
        if (inv[k] >= 0) {
            rc = sl__ms_error(err, SL_EINVAL, it->col_pos[i], "column '%s' is given twice",
                              it->cols[i]);
            goto done;
        }
        inv[k] = i;
    }
    if (it->ncols > 0) {
        nvals = it->ncols;
        if (inv[0] < 0) {
            rc = sl__ms_error(err, SL_EINVAL, it->col_pos[0],
                              "the column list must include the timestamp column '%s'",
                              cols[0].name);
            goto done;
        }
    }
    for (int r = 0; r < it->nrows; r++) {
        const sl_expr_list *row = &it->rows[r];
        if (row->n != nvals) {
            sl_pos p = row->n > 0 ? row->items[0]->pos : it->table.pos;
            rc = sl__ms_error(err, SL_EINVAL, p, "row %d has %d value%s, expected %d", r + 1,
                              row->n, row->n == 1 ? "" : "s", nvals);
            goto done;
        }
        for (int k = 0; k < ncols; k++) {
            sl_value v = sl_value_null(cols[k].type);
            char buf[EVAL_BUF_LEN];
            if (inv[k] >= 0) {
                const sl_expr *e = row->items[inv[k]];
                rc = sl__ms_const_to(ms, e, &cols[k], "column", prec, buf, sizeof(buf), &v, err);
                if (rc < 0)
                    goto done;
                if (k == 0 && v.is_null) {
                    rc = sl__ms_error(err, SL_EINVAL, e->pos,
                                      "the timestamp column '%s' cannot be NULL", cols[0].name);
                    goto done;
                }
            }
            if (sl_column_append_value(&b->cols[k], &v) < 0) {
                rc = sl__ms_error(err, SL_ENOMEM, it->table.pos, "out of memory");
                goto done;
            }
        }
    }
    sl_block_seal(b);
done:
    free(inv);
    return rc;
}

int sl__ms_insert(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_insert *ins = &st->u.insert;
    ins_item *items = calloc((size_t)(ins->n > 0 ? ins->n : 1), sizeof(*items));
    if (items == NULL)
        return sl__ms_error(err, SL_ENOMEM, st->pos, "out of memory");
    int rc = 0;
    int64_t total = 0;
    for (int i = 0; i < ins->n; i++) {
        const sl_insert_item *it = &ins->items[i];
        if ((rc = ins_target(ms, it, items, i, &items[i], err)) < 0)
            goto fail;
        sl__ms_table *t = items[i].t;
        items[i].rows = sl_block_new();
        if (items[i].rows == NULL) {
            rc = sl__ms_error(err, SL_ENOMEM, st->pos, "out of memory");
            goto fail;
        }
        const sl_field *cols = sl__ms_cols(t);
        for (int k = 0; k < sl__ms_ncols(t); k++) {
            if (sl_block_add_column(items[i].rows, cols[k].type, cols[k].width) < 0) {
                rc = sl__ms_error(err, SL_ENOMEM, st->pos, "out of memory");
                goto fail;
            }
        }
        if ((rc = ins_rows(ms, it, t, items[i].rows, err)) < 0)
            goto fail;
        total += it->nrows;
    }
    /*
     * Reserve everything the apply phase needs; from here on nothing can fail. Each table
     * gets room for as many pending blocks as items write to it (counted in t_scratch).
     */
    for (int i = 0; i < ins->n; i++)
        items[i].t->t_scratch = 0;
    for (int i = 0; i < ins->n; i++)
        items[i].t->t_scratch++;
    for (int i = 0; i < ins->n; i++) {
        sl__ms_table *t = items[i].t;
        if (sl__ms_reserve_pend(t, t->t_scratch) < 0 ||
            (items[i].is_new && (sl__ms_reserve_tables(t->t_db, (uint32_t)ins->n) < 0 ||
                                 sl__ms_reserve_children(t->t_super, ins->n) < 0))) {
            rc = sl__ms_error(err, SL_ENOMEM, st->pos, "out of memory");
            goto fail;
        }
    }
    for (int i = 0; i < ins->n; i++) {
        if (items[i].is_new)
            sl__ms_link_table(items[i].t->t_db, items[i].t);
        sl__ms_add_pend(items[i].t, items[i].rows);
        items[i].rows = NULL;
    }
    for (int i = 0; i < ins->n; i++)
        if (items[i].t->t_npend >= SL__MS_PEND_COMPACT)
            (void)sl__ms_table_flush(items[i].t); /* compaction only; failure changes nothing */
    free(items);
    res->affected = total;
    return 0;
fail:
    for (int i = 0; i < ins->n; i++) {
        sl_block_free(items[i].rows);
        if (items[i].is_new)
            sl__ms_table_free(items[i].t);
    }
    free(items);
    return rc;
}

/* ------------------------------------------------------------ DELETE */

/* The time range a DELETE's WHERE selects: lo <= ts <= hi, or nothing when empty. */
typedef struct ts_range {
    int64_t lo; /* smallest timestamp selected */
    int64_t hi; /* largest timestamp selected */
    bool empty; /* the conditions select nothing */
} ts_range;

static bool is_ts_ref(const sl_expr *e, const sl__ms_table *t)
{
    if (e->kind == SL_EX_PSEUDO && e->u.pseudo.ps == SL_PS_ROWTS)
        return true;
    if (e->kind != SL_EX_COLUMN)
        return false;
    if (e->u.column.table != NULL && !sl__ms_name_eq(e->u.column.table, t->t_name))
        return false;
    return sl__ms_name_eq(e->u.column.name, sl__ms_cols(t)[0].name);
}

static void range_lo(ts_range *r, int64_t v)
{
    if (v > r->lo)
        r->lo = v;
}

static void range_hi(ts_range *r, int64_t v)
{
    if (v < r->hi)
        r->hi = v;
}

/* Evaluates a bound as a timestamp; NULL makes the range empty (the comparison is unknown). */
static int bound(sl_memstore *ms, const sl__ms_table *t, const sl_expr *e, ts_range *r,
                 int64_t *out, bool *null, sl_error *err)
{
    char buf[EVAL_BUF_LEN];
    sl_value v;
    int rc = sl__ms_const_to(ms, e, &sl__ms_cols(t)[0], "column", t->t_db->d_prec, buf, sizeof(buf),
                             &v, err);
    if (rc < 0)
        return rc;
    *null = v.is_null;
    if (v.is_null)
        r->empty = true;
    *out = v.v.i;
    return 0;
}

static int unsupported_where(const sl__ms_table *t, const sl_expr *e, sl_error *err)
{
    return sl__ms_error(err, SL_EUNSUPPORTED, e->pos,
                        "DELETE supports only comparisons (=, <, <=, >, >=, BETWEEN) of the "
                        "timestamp column '%s' with constants, combined with AND",
                        sl__ms_cols(t)[0].name);
}

static int where_range(sl_memstore *ms, const sl__ms_table *t, const sl_expr *e, ts_range *r,
                       sl_error *err)
{
    int64_t v, w;
    bool null;
    int rc;
    if (e->kind == SL_EX_BETWEEN && !e->u.between.negated && is_ts_ref(e->u.between.arg, t)) {
        if ((rc = bound(ms, t, e->u.between.lo, r, &v, &null, err)) < 0)
            return rc;
        if (!null)
            range_lo(r, v);
        if ((rc = bound(ms, t, e->u.between.hi, r, &w, &null, err)) < 0)
            return rc;
        if (!null)
            range_hi(r, w);
        return 0;
    }
    if (e->kind != SL_EX_BINARY)
        return unsupported_where(t, e, err);
    sl_binop op = e->u.binary.op;
    const sl_expr *l = e->u.binary.left, *rt = e->u.binary.right;
    if (op == SL_OP_AND) {
        rc = where_range(ms, t, l, r, err);
        return rc < 0 ? rc : where_range(ms, t, rt, r, err);
    }
    if (op != SL_OP_EQ && op != SL_OP_LT && op != SL_OP_LE && op != SL_OP_GT && op != SL_OP_GE)
        return unsupported_where(t, e, err);
    const sl_expr *val;
    if (is_ts_ref(l, t)) {
        val = rt;
    } else if (is_ts_ref(rt, t)) {
        /* c < ts is ts > c */
        val = l;
        op = op == SL_OP_LT   ? SL_OP_GT
             : op == SL_OP_LE ? SL_OP_GE
             : op == SL_OP_GT ? SL_OP_LT
             : op == SL_OP_GE ? SL_OP_LE
                              : op;
    } else {
        return unsupported_where(t, e, err);
    }
    if ((rc = bound(ms, t, val, r, &v, &null, err)) < 0 || null)
        return rc;
    switch (op) {
    case SL_OP_EQ:
        range_lo(r, v);
        range_hi(r, v);
        break;
    case SL_OP_LT:
        if (v == INT64_MIN)
            r->empty = true;
        else
            range_hi(r, v - 1);
        break;
    case SL_OP_LE: range_hi(r, v); break;
    case SL_OP_GT:
        if (v == INT64_MAX)
            r->empty = true;
        else
            range_lo(r, v + 1);
        break;
    default: range_lo(r, v); break;
    }
    return 0;
}

int sl__ms_delete(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_delete *del = &st->u.del;
    sl__ms_db *db;
    int rc = sl__ms_resolve_db(ms, &del->table, &db, err);
    if (rc < 0)
        return rc;
    sl__ms_table *t = sl__ms_find_table(db, del->table.name);
    if (t == NULL)
        return sl__ms_error(err, SL_ENOTFOUND, del->table.pos,
                            "table '%s' does not exist in database '%s'", del->table.name,
                            db->d_name);
    ts_range r = {INT64_MIN, INT64_MAX, false};
    if (del->where != NULL && (rc = where_range(ms, t, del->where, &r, err)) < 0)
        return rc;
    res->affected = 0;
    if (r.empty || r.lo > r.hi)
        return 0;
    int n = t->t_kind == SL_TABLE_SUPER ? t->t_nchildren : 1;
    sl__ms_table **tabs = t->t_kind == SL_TABLE_SUPER ? t->t_children : &t;
    sl__ms_delete_op *ops = calloc((size_t)(n > 0 ? n : 1), sizeof(*ops));
    if (ops == NULL)
        return sl__ms_error(err, SL_ENOMEM, st->pos, "out of memory");
    for (int i = 0; i < n; i++) {
        if (sl__ms_delete_prepare(tabs[i], r.lo, r.hi, &ops[i]) < 0) {
            for (int j = 0; j < i; j++)
                sl__ms_delete_discard(&ops[j]);
            free(ops);
            return sl__ms_error(err, SL_ENOMEM, st->pos, "out of memory");
        }
    }
    int64_t total = 0;
    for (int i = 0; i < n; i++)
        total += sl__ms_delete_apply(&ops[i]);
    free(ops);
    res->affected = total;
    return 0;
}
