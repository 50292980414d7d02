/*
 * expr_compile.c - AST expressions to typed vector-kernel trees.
 *
 * Compilation resolves names through the caller's binder, decides every node's result
 * type and compute class once (so evaluation never looks at types per row), turns
 * literals that meet a typed column into that column's type (a timestamp string compared
 * with a TIMESTAMP column becomes an epoch constant), rewrites sugar (BETWEEN, IF, simple
 * CASE, ||) into the core node kinds, and folds every subtree without column inputs into
 * a constant by evaluating it once on a one-row block.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agg.h"
#include "expr_int.h"

typedef struct cctx {
    const sl_binder *b;
    sl_error *err;
    int depth;
} cctx;

static int compile(cctx *c, const sl_expr *e, xnode **out);

xnode *sl__xnode_new(xkind k, sl_type t, uint32_t width, sl_pos pos)
{
    xnode *n = calloc(1, sizeof(*n));
    if (n == NULL)
        return NULL;
    n->kind = k;
    n->type = t;
    n->width = width;
    n->pos = pos;
    n->col = -1;
    sl_column_init(&n->out, t == SL_T_NULL ? SL_T_BIGINT : t, width);
    for (int i = 0; i < 3; i++)
        sl_column_init(&n->tmp[i], SL_T_BIGINT, 0);
    return n;
}

void sl__xnode_free(xnode *n)
{
    if (n == NULL)
        return;
    for (int i = 0; i < n->nargs; i++)
        sl__xnode_free(n->args[i]);
    free(n->args);
    sl_column_fini(&n->out);
    for (int i = 0; i < 3; i++)
        sl_column_fini(&n->tmp[i]);
    free(n->list);
    free(n->strpool);
    free(n);
}

static int set_args(xnode *n, int nargs, xnode **args)
{
    n->args = calloc((size_t)(nargs ? nargs : 1), sizeof(xnode *));
    if (n->args == NULL)
        return SL_ENOMEM;
    n->nargs = nargs;
    for (int i = 0; i < nargs; i++)
        n->args[i] = args[i];
    return 0;
}

static int oom(cctx *c)
{
    return sl_error_set(c->err, SL_ENOMEM, 0, 0, "out of memory compiling an expression");
}

/* A constant node holding v (strings are copied into the node). */
static xnode *const_node(sl_value v, sl_pos pos)
{
    sl_type t = v.type;
    uint32_t w = 0;
    if (sl_type_is_var(t))
        w = v.v.s.len;
    xnode *n = sl__xnode_new(X_CONST, t, w, pos);
    if (n == NULL)
        return NULL;
    if (t == SL_T_NULL) {
        v.type = SL_T_BIGINT;
        v.is_null = true;
    }
    if (sl_column_set_const(&n->out, &v, 1) != 0) {
        sl__xnode_free(n);
        return NULL;
    }
    return n;
}

static bool all_const(xnode **args, int n)
{
    for (int i = 0; i < n; i++)
        if (args[i]->kind != X_CONST)
            return false;
    return true;
}

/*
 * Replaces n (whose inputs are all constant) by the constant it evaluates to. On error
 * n is freed and *pn set to NULL: callers hand their node to fold as their last step and
 * return its code, so nobody else would free it.
 */
static int fold(cctx *c, xnode **pn)
{
    xnode *n = *pn;
    if (n->kind == X_CONST || n->kind == X_COL || !all_const(n->args, n->nargs))
        return 0;
    sl_block one;
    sl_block_init(&one);
    one.nrows = 1;
    const sl_column *res;
    int rc = sl__xeval(n, &one, &res, c->err);
    if (rc != 0) {
        if (c->err != NULL && c->err->line == 0) {
            c->err->line = n->pos.line;
            c->err->col = n->pos.col;
        }
        sl__xnode_free(n);
        *pn = NULL;
        return rc;
    }
    sl_value v;
    sl_column_get(res, 0, &v);
    xnode *k = sl__xnode_new(X_CONST, n->type, n->width, n->pos);
    if (n->type == SL_T_NULL)
        v = sl_value_null(SL_T_BIGINT);
    if (k == NULL || sl_column_set_const(&k->out, &v, 1) != 0) {
        sl__xnode_free(k);
        sl__xnode_free(n);
        *pn = NULL;
        return oom(c);
    }
    sl__xnode_free(n);
    *pn = k;
    return 0;
}

static int const_value(xnode *n, sl_value *v)
{
    sl_column_get(&n->out, 0, v);
    if (n->type == SL_T_NULL)
        *v = sl_value_null(SL_T_NULL);
    return 0;
}

/* Wraps n in a CAST to (t, w) unless it already has that type. */
static int cast_to(cctx *c, xnode **pn, sl_type t, uint32_t w)
{
    xnode *n = *pn;
    if (n->type == t && (!sl_type_is_var(t) || w == 0 || n->width <= w))
        return 0;
    xnode *k = sl__xnode_new(X_CAST, t, w, n->pos);
    if (k == NULL || set_args(k, 1, &n) != 0) {
        sl__xnode_free(k);
        return oom(c);
    }
    k->op = (int)c->b->precision; /* X_CAST keeps the precision of timestamp text in op */
    *pn = k;
    return fold(c, pn);
}

/* Makes a constant string node typed like the other operand when that is possible. */
static int coerce_string_const(cctx *c, xnode **pstr, sl_type want)
{
    xnode *s = *pstr;
    sl_value v, out;
    char buf[64];
    const_value(s, &v);
    sl_error e2;
    sl_error_clear(&e2);
    sl_type to = want;
    if (sl_type_is_int(want) || want == SL_T_BOOL)
        to = SL_T_BIGINT;
    if (sl_type_is_unsigned_int(want))
        to = SL_T_UBIGINT;
    if (sl_type_is_float(want))
        to = SL_T_DOUBLE;
    int rc = sl_value_cast(&v, to, 0, c->b->precision, buf, sizeof(buf), &out, &e2);
    if (rc != 0 && to == SL_T_UBIGINT) {
        /* '-1' against an unsigned column compares exactly as a signed number. */
        to = SL_T_BIGINT;
        sl_error_clear(&e2);
        rc = sl_value_cast(&v, to, 0, c->b->precision, buf, sizeof(buf), &out, &e2);
    }
    if (sl_type_is_int(to)) {
        /*
         * '1.5' against an integer column compares as a number. The cast to an integer
         * truncates (or fails), so use the DOUBLE whenever it is not a whole number.
         */
        sl_value dv;
        sl_error_clear(&e2);
        if (sl_value_cast(&v, SL_T_DOUBLE, 0, c->b->precision, buf, sizeof(buf), &dv,
                          &e2) == 0 &&
            (rc != 0 || dv.v.d != trunc(dv.v.d))) {
            out = dv;
            rc = 0;
        }
    }
    if (rc != 0 && want == SL_T_BOOL) {
        /* 'true' / 'false' against a BOOL. */
        sl_error_clear(&e2);
        rc = sl_value_cast(&v, SL_T_BOOL, 0, c->b->precision, buf, sizeof(buf), &out, &e2);
    }
    if (rc != 0) {
        return sl_error_set(c->err, SL_ETYPE, s->pos.line, s->pos.col,
                            "cannot use '%.*s' as %s", (int)v.v.s.len, v.v.s.ptr,
                            sl_type_name(want));
    }
    xnode *k = const_node(out, s->pos);
    if (k == NULL)
        return oom(c);
    sl__xnode_free(s);
    *pstr = k;
    return 0;
}

static bool is_boolish(sl_type t)
{
    return t == SL_T_BOOL || t == SL_T_NULL;
}

static bool is_numlike(sl_type t)
{
    return sl_type_is_numeric(t) || t == SL_T_BOOL || t == SL_T_TIMESTAMP;
}

/* Decides the compute class of a comparison and coerces literal strings. */
static int prepare_compare(cctx *c, xnode **pa, xnode **pb, xclass *cls, sl_pos pos)
{
    sl_type ta = (*pa)->type, tb = (*pb)->type;
    if (sl_type_is_var(ta) && !sl_type_is_var(tb) && tb != SL_T_NULL) {
        if ((*pa)->kind != X_CONST)
            goto mismatch;
        int rc = coerce_string_const(c, pa, tb);
        if (rc != 0)
            return rc;
        ta = (*pa)->type;
    } else if (sl_type_is_var(tb) && !sl_type_is_var(ta) && ta != SL_T_NULL) {
        if ((*pb)->kind != X_CONST)
            goto mismatch;
        int rc = coerce_string_const(c, pb, ta);
        if (rc != 0)
            return rc;
        tb = (*pb)->type;
    }
    if (sl_type_is_var(ta) || sl_type_is_var(tb)) {
        *cls = XC_STR;
        return 0;
    }
    if (ta == SL_T_NULL || tb == SL_T_NULL) {
        *cls = XC_I64;
        return 0;
    }
    if (!is_numlike(ta) || !is_numlike(tb))
        goto mismatch;
    if (sl_type_is_float(ta) || sl_type_is_float(tb))
        *cls = XC_F64;
    else if (ta == SL_T_UBIGINT && tb == SL_T_UBIGINT)
        *cls = XC_U64;
    else if (ta == SL_T_UBIGINT || tb == SL_T_UBIGINT)
        *cls = XC_MIX;
    else
        *cls = XC_I64;
    return 0;
mismatch:
    return sl_error_set(c->err, SL_ETYPE, pos.line, pos.col, "cannot compare %s with %s",
                        sl_type_name(ta), sl_type_name(tb));
}

static const char *binop_text(sl_binop op)
{
    static const char *t[] = {"+", "-", "*", "/", "%", "=", "<>", "<", "<=", ">", ">=",
                              "AND", "OR", "&", "|", "||"};
    return t[op];
}

static int compile_arith(cctx *c, const sl_expr *e, xnode *a, xnode *b, xnode **out)
{
    sl_binop op = e->u.binary.op;
    sl_pos pos = e->pos;
    int rc;
    if (sl_type_is_var(a->type) && a->kind == X_CONST && is_numlike(b->type)) {
        if ((rc = coerce_string_const(c, &a, SL_T_DOUBLE)) != 0)
            goto fail;
    }
    if (sl_type_is_var(b->type) && b->kind == X_CONST && is_numlike(a->type)) {
        if ((rc = coerce_string_const(c, &b, SL_T_DOUBLE)) != 0)
            goto fail;
    }
    sl_type ta = a->type, tb = b->type;
    if ((!is_numlike(ta) && ta != SL_T_NULL) || (!is_numlike(tb) && tb != SL_T_NULL)) {
        rc = sl_error_set(c->err, SL_ETYPE, pos.line, pos.col, "cannot apply '%s' to %s and %s",
                          binop_text(op), sl_type_name(ta), sl_type_name(tb));
        goto fail;
    }
    sl_type rt;
    xclass cls;
    if (op == SL_OP_DIV || sl_type_is_float(ta) || sl_type_is_float(tb)) {
        rt = SL_T_DOUBLE;
        cls = XC_F64;
    } else {
        rt = SL_T_BIGINT;
        cls = XC_I64;
        bool tsa = ta == SL_T_TIMESTAMP, tsb = tb == SL_T_TIMESTAMP;
        if ((op == SL_OP_ADD && (tsa != tsb)) || (op == SL_OP_SUB && tsa && !tsb))
            rt = SL_T_TIMESTAMP;
        if (op == SL_OP_ADD && tsa && tsb) {
            rc = sl_error_set(c->err, SL_ETYPE, pos.line, pos.col,
                              "cannot add two TIMESTAMP values");
            goto fail;
        }
    }
    if (ta == SL_T_NULL || tb == SL_T_NULL) {
        sl__xnode_free(a);
        sl__xnode_free(b);
        *out = const_node(sl_value_null(rt), pos);
        return *out ? 0 : oom(c);
    }
    xnode *n = sl__xnode_new(X_ARITH, rt, 0, pos);
    xnode *args[2] = {a, b};
    if (n == NULL || set_args(n, 2, args) != 0) {
        sl__xnode_free(n);
        rc = oom(c);
        goto fail;
    }
    n->op = op;
    n->cls = cls;
    *out = n;
    return fold(c, out);
fail:
    sl__xnode_free(a);
    sl__xnode_free(b);
    return rc;
}

static int to_bool(cctx *c, xnode **pn, const char *what)
{
    xnode *n = *pn;
    if (is_boolish(n->type))
        return 0;
    if (sl_type_is_numeric(n->type))
        return cast_to(c, pn, SL_T_BOOL, 0);
    return sl_error_set(c->err, SL_ETYPE, n->pos.line, n->pos.col,
                        "%s needs a boolean operand, got %s", what, sl_type_name(n->type));
}

static int compile_binary(cctx *c, const sl_expr *e, xnode **out)
{
    xnode *a = NULL, *b = NULL;
    int rc = compile(c, e->u.binary.left, &a);
    if (rc != 0)
        return rc;
    rc = compile(c, e->u.binary.right, &b);
    if (rc != 0) {
        sl__xnode_free(a);
        return rc;
    }
    sl_binop op = e->u.binary.op;
    switch (op) {
    case SL_OP_ADD: case SL_OP_SUB: case SL_OP_MUL: case SL_OP_DIV: case SL_OP_MOD:
        return compile_arith(c, e, a, b, out);
    case SL_OP_EQ: case SL_OP_NE: case SL_OP_LT: case SL_OP_LE: case SL_OP_GT: case SL_OP_GE: {
        xclass cls;
        rc = prepare_compare(c, &a, &b, &cls, e->pos);
        if (rc != 0)
            break;
        if (a->type == SL_T_NULL || b->type == SL_T_NULL) {
            sl__xnode_free(a);
            sl__xnode_free(b);
            *out = const_node(sl_value_null(SL_T_BOOL), e->pos);
            return *out ? 0 : oom(c);
        }
        xnode *n = sl__xnode_new(X_CMP, SL_T_BOOL, 0, e->pos);
        xnode *args[2] = {a, b};
        if (n == NULL || set_args(n, 2, args) != 0) {
            sl__xnode_free(n);
            rc = oom(c);
            break;
        }
        n->op = op;
        n->cls = cls;
        *out = n;
        return fold(c, out);
    }
    case SL_OP_AND: case SL_OP_OR: {
        if ((rc = to_bool(c, &a, binop_text(op))) != 0 || (rc = to_bool(c, &b, binop_text(op))) != 0)
            break;
        xnode *n = sl__xnode_new(op == SL_OP_AND ? X_AND : X_OR, SL_T_BOOL, 0, e->pos);
        xnode *args[2] = {a, b};
        if (n == NULL || set_args(n, 2, args) != 0) {
            sl__xnode_free(n);
            rc = oom(c);
            break;
        }
        *out = n;
        return fold(c, out);
    }
    case SL_OP_BITAND: case SL_OP_BITOR: {
        if (a->type == SL_T_NULL || b->type == SL_T_NULL) {
            /* NULL & x is NULL, like every other operator. */
            sl__xnode_free(a);
            sl__xnode_free(b);
            *out = const_node(sl_value_null(SL_T_BIGINT), e->pos);
            return *out ? 0 : oom(c);
        }
        if (!(sl_type_is_int(a->type) || a->type == SL_T_BOOL) ||
            !(sl_type_is_int(b->type) || b->type == SL_T_BOOL)) {
            rc = sl_error_set(c->err, SL_ETYPE, e->pos.line, e->pos.col,
                              "cannot apply '%s' to %s and %s", binop_text(op),
                              sl_type_name(a->type), sl_type_name(b->type));
            break;
        }
        xnode *n = sl__xnode_new(op == SL_OP_BITAND ? X_BITAND : X_BITOR, SL_T_BIGINT, 0, e->pos);
        xnode *args[2] = {a, b};
        if (n == NULL || set_args(n, 2, args) != 0) {
            sl__xnode_free(n);
            rc = oom(c);
            break;
        }
        *out = n;
        return fold(c, out);
    }
    case SL_OP_CONCAT: {
        xnode *n = sl__xnode_new(X_FUNC, SL_T_VARCHAR, 0, e->pos);
        xnode *args[2] = {a, b};
        if (n == NULL || set_args(n, 2, args) != 0) {
            sl__xnode_free(n);
            rc = oom(c);
            break;
        }
        n->op = XF_CONCAT;
        rc = sl__xfunc_type(XF_CONCAT, n->args, 2, &n->type, &n->width, e->pos, c->err);
        if (rc != 0) {
            sl__xnode_free(n);
            return rc;
        }
        sl_column_fini(&n->out);
        sl_column_init(&n->out, n->type, n->width);
        *out = n;
        return fold(c, out);
    }
    }
    sl__xnode_free(a);
    sl__xnode_free(b);
    return rc;
}

int sl__common_type(xnode **v, int n, bool mix_text, const char *what, sl_pos pos,
                    sl_type *t, uint32_t *w, sl_error *err)
{
    sl_type r = SL_T_NULL;
    uint32_t width = 0, bytes = 0;
    bool unbounded = false;
    for (int i = 0; i < n; i++) {
        sl_type x = v[i]->type;
        if (x == SL_T_NULL)
            continue;
        if (sl_type_is_var(x)) {
            /* Width 0 is unbounded, except for the literal ''. NCHAR(n) counts
             * characters: as VARCHAR it needs up to 4 bytes per character. */
            uint32_t xw = v[i]->width;
            uint32_t xb = x == SL_T_NCHAR ? (xw > SL_VARCHAR_MAX / 4 ? SL_VARCHAR_MAX : xw * 4)
                                          : xw;
            unbounded |= xw == 0 && v[i]->kind != X_CONST;
            width = xw > width ? xw : width;
            bytes = xb > bytes ? xb : bytes;
        }
        if (r == SL_T_NULL || r == x) {
            r = x;
        } else if (sl_type_is_var(r) && sl_type_is_var(x)) {
            r = SL_T_VARCHAR;
        } else if (sl_type_is_numeric(r) && sl_type_is_numeric(x)) {
            r = (sl_type_is_float(r) || sl_type_is_float(x)) ? SL_T_DOUBLE : SL_T_BIGINT;
        } else if (mix_text && (sl_type_is_var(r) || sl_type_is_var(x))) {
            r = SL_T_VARCHAR; /* mixed text and numbers: render the numbers as text */
        } else {
            return sl_error_set(err, SL_ETYPE, pos.line, pos.col,
                                "%s have incompatible types %s and %s", what, sl_type_name(r),
                                sl_type_name(x));
        }
    }
    if (r == SL_T_VARCHAR)
        width = bytes;
    *t = r;
    *w = sl_type_is_var(r) && !unbounded ? width : 0;
    return 0;
}

/* The type CASE branches share; text results are at least 32 bytes wide. */
static int common_type(cctx *c, xnode **v, int n, sl_type *t, uint32_t *w, sl_pos pos)
{
    int rc = sl__common_type(v, n, true, "branches", pos, t, w, c->err);
    if (rc == 0 && sl_type_is_var(*t) && *w != 0 && *w < 32)
        *w = 32;
    return rc;
}

/* Builds CASE over pairs (when, then) and an optional else; takes ownership of v. */
static int make_case(cctx *c, xnode **v, int nv, bool has_else, sl_pos pos, xnode **out)
{
    int rc;
    int nvals = nv / 2 + (has_else ? 1 : 0);
    xnode **vals = calloc((size_t)nvals + 1, sizeof(xnode *));
    if (vals == NULL) {
        rc = oom(c);
        goto fail;
    }
    int k = 0;
    for (int i = 1; i < nv; i += 2)
        vals[k++] = v[i];
    if (has_else)
        vals[k++] = v[nv - 1];
    sl_type t = SL_T_NULL;
    uint32_t w = 0;
    rc = common_type(c, vals, k, &t, &w, pos);
    free(vals);
    if (rc != 0)
        goto fail;
    for (int i = 0; i < nv; i++) {
        bool is_val = (i % 2 == 1) || (has_else && i == nv - 1);
        if (!is_val) {
            if ((rc = to_bool(c, &v[i], "WHEN")) != 0)
                goto fail;
        } else if (t != SL_T_NULL && v[i]->type != t) {
            if ((rc = cast_to(c, &v[i], t, w)) != 0)
                goto fail;
        }
    }
    xnode *n = sl__xnode_new(X_CASE, t, w, pos);
    if (n == NULL || set_args(n, nv, v) != 0) {
        sl__xnode_free(n);
        rc = oom(c);
        goto fail;
    }
    n->has_else = has_else;
    free(v);
    *out = n;
    return fold(c, out);
fail:
    for (int i = 0; i < nv; i++)
        sl__xnode_free(v[i]);
    free(v);
    return rc;
}

static int compile_case(cctx *c, const sl_expr *e, xnode **out)
{
    int nw = e->u.case_.nwhen;
    bool has_else = e->u.case_.else_ != NULL;
    int nv = nw * 2 + (has_else ? 1 : 0);
    xnode **v = calloc((size_t)nv + 1, sizeof(xnode *));
    if (v == NULL)
        return oom(c);
    int rc = 0;
    for (int i = 0; i < nw && rc == 0; i++) {
        const sl_case_when *cw = &e->u.case_.whens[i];
        if (e->u.case_.operand != NULL) {
            /* CASE x WHEN v: the condition is x = v. */
            xnode *x = NULL, *val = NULL;
            rc = compile(c, e->u.case_.operand, &x);
            if (rc == 0)
                rc = compile(c, cw->when, &val);
            xclass cls;
            if (rc == 0)
                rc = prepare_compare(c, &x, &val, &cls, cw->when->pos);
            if (rc == 0) {
                xnode *n = sl__xnode_new(X_CMP, SL_T_BOOL, 0, cw->when->pos);
                xnode *args[2] = {x, val};
                if (n == NULL || set_args(n, 2, args) != 0) {
                    sl__xnode_free(n);
                    rc = oom(c);
                } else {
                    n->op = SL_OP_EQ;
                    n->cls = cls;
                    v[2 * i] = n;
                    x = val = NULL;
                    rc = fold(c, &v[2 * i]);
                }
            }
            sl__xnode_free(x);
            sl__xnode_free(val);
        } else {
            rc = compile(c, cw->when, &v[2 * i]);
        }
        if (rc == 0)
            rc = compile(c, cw->then, &v[2 * i + 1]);
    }
    if (rc == 0 && has_else)
        rc = compile(c, e->u.case_.else_, &v[nv - 1]);
    if (rc != 0) {
        for (int i = 0; i < nv; i++)
            sl__xnode_free(v[i]);
        free(v);
        return rc;
    }
    return make_case(c, v, nv, has_else, e->pos, out);
}

static int compile_args(cctx *c, const sl_expr_list *l, xnode ***out)
{
    xnode **v = calloc((size_t)l->n + 1, sizeof(xnode *));
    if (v == NULL)
        return oom(c);
    for (int i = 0; i < l->n; i++) {
        int rc = compile(c, l->items[i], &v[i]);
        if (rc != 0) {
            for (int j = 0; j < i; j++)
                sl__xnode_free(v[j]);
            free(v);
            return rc;
        }
    }
    *out = v;
    return 0;
}

static int compile_func(cctx *c, const sl_expr *e, xnode **out)
{
    const char *name = e->u.func.name;
    sl_agg_kind ak;
    if (e->u.func.distinct && !sl_agg_lookup(name, &ak))
        return sl_error_set(c->err, SL_EINVAL, e->pos.line, e->pos.col,
                            "DISTINCT is only valid inside an aggregate function, not %s", name);
    if (sl_agg_lookup(name, &ak))
        return sl_error_set(c->err, SL_EINVAL, e->pos.line, e->pos.col,
                            "aggregate function '%s' is not allowed here", name);
    int nargs = e->u.func.args.n;
    for (int i = 0; i < nargs; i++)
        if (e->u.func.args.items[i]->kind == SL_EX_STAR)
            return sl_error_set(c->err, SL_EINVAL, e->pos.line, e->pos.col,
                                "'*' is not a valid argument of %s", name);
    if (strcasecmp(name, "if") == 0) {
        if (nargs != 3)
            return sl_error_set(c->err, SL_EINVAL, e->pos.line, e->pos.col,
                                "IF takes 3 arguments, got %d", nargs);
        xnode **v;
        int rc = compile_args(c, &e->u.func.args, &v);
        if (rc != 0)
            return rc;
        return make_case(c, v, 3, true, e->pos, out);
    }
    int id = sl__xfunc_lookup(name);
    if (id < 0)
        return sl_error_set(c->err, SL_ENOTFOUND, e->pos.line, e->pos.col,
                            "unknown function '%s'", name);
    const sl_xfunc *f = &sl__xfuncs[id];
    if (nargs < f->min_args || nargs > f->max_args) {
        if (f->min_args == f->max_args)
            return sl_error_set(c->err, SL_EINVAL, e->pos.line, e->pos.col,
                                "%s takes %d argument%s, got %d", f->name, f->min_args,
                                f->min_args == 1 ? "" : "s", nargs);
        return sl_error_set(c->err, SL_EINVAL, e->pos.line, e->pos.col,
                            "%s takes %d to %d arguments, got %d", f->name, f->min_args,
                            f->max_args, nargs);
    }
    xnode **v;
    int rc = compile_args(c, &e->u.func.args, &v);
    if (rc != 0)
        return rc;
    sl_type t;
    uint32_t w;
    rc = sl__xfunc_type(id, v, nargs, &t, &w, e->pos, c->err);
    xnode *n = rc == 0 ? sl__xnode_new(X_FUNC, t, w, e->pos) : NULL;
    if (rc == 0 && (n == NULL || set_args(n, nargs, v) != 0)) {
        sl__xnode_free(n);
        n = NULL;
        rc = oom(c);
    }
    if (rc != 0) {
        for (int i = 0; i < nargs; i++)
            sl__xnode_free(v[i]);
        free(v);
        return rc;
    }
    free(v);
    n->op = id;
    *out = n;
    return fold(c, out);
}

static int compile_in(cctx *c, const sl_expr *e, xnode **out)
{
    xnode *a = NULL;
    int rc = compile(c, e->u.in.arg, &a);
    if (rc != 0)
        return rc;
    int nl = e->u.in.list.n;
    xnode *n = sl__xnode_new(X_IN, SL_T_BOOL, 0, e->pos);
    if (n == NULL || set_args(n, 1, &a) != 0) {
        sl__xnode_free(n);
        sl__xnode_free(a);
        return oom(c);
    }
    n->negated = e->u.in.negated;
    n->list = calloc((size_t)nl + 1, sizeof(sl_value));
    xnode **items = calloc((size_t)nl + 1, sizeof(xnode *));
    size_t pool = 0;
    if (n->list == NULL || items == NULL) {
        rc = oom(c);
        goto done;
    }
    xclass cls = XC_I64;
    for (int i = 0; i < nl; i++) {
        rc = compile(c, e->u.in.list.items[i], &items[i]);
        if (rc != 0)
            goto done;
        if (items[i]->kind != X_CONST) {
            rc = sl_error_set(c->err, SL_EINVAL, items[i]->pos.line, items[i]->pos.col,
                              "IN list values must be constants");
            goto done;
        }
    }
    for (int i = 0; i < nl; i++) {
        /*
         * A constant string probe meeting a number is re-typed as that number. Do that
         * before comparing any item, so that string items earlier in the list are then
         * converted to the probe's new type too instead of staying text.
         */
        xnode *probe = n->args[0];
        if (probe->kind != X_CONST || !sl_type_is_var(probe->type))
            break;
        if (sl_type_is_var(items[i]->type) || items[i]->type == SL_T_NULL)
            continue;
        xclass ic;
        rc = prepare_compare(c, &probe, &items[i], &ic, items[i]->pos);
        n->args[0] = probe;
        if (rc != 0)
            goto done;
    }
    for (int i = 0; i < nl; i++) {
        xclass ic;
        xnode *probe = n->args[0];
        rc = prepare_compare(c, &probe, &items[i], &ic, items[i]->pos);
        n->args[0] = probe; /* a constant string probe may have been re-typed */
        if (rc != 0)
            goto done;
        if (i == 0 || ic == XC_F64 || (ic == XC_MIX && cls != XC_F64))
            cls = ic;
        if (sl_type_is_var(items[i]->type))
            pool += items[i]->out.heap_len;
    }
    if (sl_type_is_var(n->args[0]->type))
        cls = XC_STR;
    n->cls = cls;
    n->strpool = malloc(pool + 1);
    if (n->strpool == NULL) {
        rc = oom(c);
        goto done;
    }
    size_t used = 0;
    for (int i = 0; i < nl; i++) {
        sl_value v;
        const_value(items[i], &v);
        if (!v.is_null && v.type != SL_T_NULL && cls != XC_STR) {
            /*
             * Store list values as BIGINT, BIGINT UNSIGNED or DOUBLE. eval_in compares
             * them with sl_value_compare, which is exact across these, so an integer is
             * never rounded through a double even when the list also holds floats.
             */
            sl_value cv;
            char buf[8];
            sl_type to = sl_type_is_float(v.type)          ? SL_T_DOUBLE
                         : sl_type_is_unsigned_int(v.type) ? SL_T_UBIGINT
                                                           : SL_T_BIGINT;
            if (sl_value_cast(&v, to, 0, c->b->precision, buf, sizeof(buf), &cv, NULL) == 0)
                v = cv;
        }
        if (sl_type_is_var(v.type) && !v.is_null) {
            memcpy(n->strpool + used, v.v.s.ptr, v.v.s.len);
            v.v.s.ptr = n->strpool + used;
            used += v.v.s.len;
        }
        n->list[i] = v;
    }
    n->nlist = nl;
done:
    if (items != NULL) {
        for (int i = 0; i < nl; i++)
            sl__xnode_free(items[i]);
        free(items);
    }
    if (rc != 0) {
        sl__xnode_free(n);
        return rc;
    }
    *out = n;
    return fold(c, out);
}

static int compile_like(cctx *c, const sl_expr *e, xnode **out)
{
    xnode *a = NULL, *p = NULL;
    int rc = compile(c, e->u.like.arg, &a);
    if (rc != 0)
        return rc;
    rc = compile(c, e->u.like.pattern, &p);
    if (rc != 0) {
        sl__xnode_free(a);
        return rc;
    }
    if (a->type == SL_T_NULL || p->type == SL_T_NULL) {
        /* NULL in, NULL out, like every other operator. */
        sl__xnode_free(a);
        sl__xnode_free(p);
        *out = const_node(sl_value_null(SL_T_BOOL), e->pos);
        return *out ? 0 : oom(c);
    }
    if (p->kind != X_CONST || !sl_type_is_var(p->type)) {
        rc = sl_error_set(c->err, SL_ETYPE, p->pos.line, p->pos.col,
                          "LIKE needs a constant string pattern");
        goto fail;
    }
    if (!sl_type_is_var(a->type)) {
        rc = sl_error_set(c->err, SL_ETYPE, a->pos.line, a->pos.col,
                          "LIKE needs a VARCHAR or NCHAR operand, got %s", sl_type_name(a->type));
        goto fail;
    }
    xnode *n = sl__xnode_new(X_LIKE, SL_T_BOOL, 0, e->pos);
    if (n == NULL || set_args(n, 1, &a) != 0) {
        sl__xnode_free(n);
        rc = oom(c);
        goto fail;
    }
    n->negated = e->u.like.negated;
    sl_value pv;
    const_value(p, &pv);
    n->strpool = malloc(pv.v.s.len + 1);
    if (n->strpool == NULL) {
        sl__xnode_free(n);
        sl__xnode_free(p);
        return oom(c);
    }
    memcpy(n->strpool, pv.v.s.ptr, pv.v.s.len);
    n->list = calloc(1, sizeof(sl_value));
    if (n->list == NULL) {
        sl__xnode_free(n);
        sl__xnode_free(p);
        return oom(c);
    }
    n->list[0] = sl_value_str(SL_T_VARCHAR, n->strpool, pv.v.s.len);
    n->nlist = 1;
    sl__xnode_free(p);
    *out = n;
    return fold(c, out);
fail:
    sl__xnode_free(a);
    sl__xnode_free(p);
    return rc;
}

static int compile_literal(cctx *c, const sl_expr *e, xnode **out)
{
    sl_value v;
    switch (e->u.lit.kind) {
    case SL_LIT_NULL: v = sl_value_null(SL_T_NULL); break;
    case SL_LIT_BOOL: v = sl_value_bool(e->u.lit.b); break;
    case SL_LIT_INT: v = sl_value_int(SL_T_BIGINT, e->u.lit.i); break;
    case SL_LIT_UINT: v = sl_value_uint(SL_T_UBIGINT, e->u.lit.u); break;
    case SL_LIT_FLOAT: v = sl_value_double(SL_T_DOUBLE, e->u.lit.d); break;
    case SL_LIT_STRING: v = sl_value_str(SL_T_VARCHAR, e->u.lit.s, e->u.lit.len); break;
    case SL_LIT_DURATION: {
        int64_t d;
        int rc = sl_duration_to_precision(e->u.lit.dur.value, e->u.lit.dur.unit,
                                          c->b->precision, &d);
        if (rc != 0)
            return sl_error_set(c->err, rc, e->pos.line, e->pos.col,
                                "duration %lld%c cannot be used here in %s precision",
                                (long long)e->u.lit.dur.value, e->u.lit.dur.unit,
                                sl_precision_name(c->b->precision));
        v = sl_value_int(SL_T_BIGINT, d);
        break;
    }
    default:
        return sl_error_set(c->err, SL_EINVAL, e->pos.line, e->pos.col, "bad literal");
    }
    *out = const_node(v, e->pos);
    return *out ? 0 : oom(c);
}

static int compile_unary(cctx *c, const sl_expr *e, xnode **out)
{
    xnode *a = NULL;
    int rc = compile(c, e->u.unary.arg, &a);
    if (rc != 0)
        return rc;
    xkind k;
    sl_type t;
    switch (e->u.unary.op) {
    case SL_OP_NOT:
        if ((rc = to_bool(c, &a, "NOT")) != 0) {
            sl__xnode_free(a);
            return rc;
        }
        k = X_NOT;
        t = SL_T_BOOL;
        break;
    case SL_OP_NEG:
        if (a->kind == X_CONST && a->type == SL_T_UBIGINT && !sl_column_is_null(&a->out, 0) &&
            ((const uint64_t *)a->out.data)[0] == (uint64_t)1 << 63) {
            /* -9223372036854775808: the literal only fits once negated. */
            sl__xnode_free(a);
            *out = const_node(sl_value_int(SL_T_BIGINT, INT64_MIN), e->pos);
            return *out ? 0 : oom(c);
        }
        if (a->kind == X_CONST && sl_type_is_var(a->type) &&
            (rc = coerce_string_const(c, &a, SL_T_DOUBLE)) != 0) {
            sl__xnode_free(a);
            return rc;
        }
        if (!sl_type_is_numeric(a->type) && a->type != SL_T_NULL && a->type != SL_T_BOOL) {
            rc = sl_error_set(c->err, SL_ETYPE, e->pos.line, e->pos.col,
                              "cannot negate %s", sl_type_name(a->type));
            sl__xnode_free(a);
            return rc;
        }
        k = X_NEG;
        t = sl_type_is_float(a->type) ? SL_T_DOUBLE : SL_T_BIGINT;
        break;
    default:
        if (!sl_type_is_int(a->type) && a->type != SL_T_BOOL && a->type != SL_T_NULL) {
            rc = sl_error_set(c->err, SL_ETYPE, e->pos.line, e->pos.col,
                              "cannot apply '~' to %s", sl_type_name(a->type));
            sl__xnode_free(a);
            return rc;
        }
        k = X_BITNOT;
        t = SL_T_BIGINT;
        break;
    }
    xnode *n = sl__xnode_new(k, t, 0, e->pos);
    if (n == NULL || set_args(n, 1, &a) != 0) {
        sl__xnode_free(n);
        sl__xnode_free(a);
        return oom(c);
    }
    n->cls = sl_type_is_float(a->type) ? XC_F64 : XC_I64;
    *out = n;
    return fold(c, out);
}

static int compile_between(cctx *c, const sl_expr *e, xnode **out)
{
    /* x BETWEEN lo AND hi is (x >= lo AND x <= hi); x is compiled twice, not shared. */
    sl_expr ge = {.kind = SL_EX_BINARY, .pos = e->pos};
    ge.u.binary.op = SL_OP_GE;
    ge.u.binary.left = e->u.between.arg;
    ge.u.binary.right = e->u.between.lo;
    sl_expr le = {.kind = SL_EX_BINARY, .pos = e->pos};
    le.u.binary.op = SL_OP_LE;
    le.u.binary.left = e->u.between.arg;
    le.u.binary.right = e->u.between.hi;
    sl_expr both = {.kind = SL_EX_BINARY, .pos = e->pos};
    both.u.binary.op = SL_OP_AND;
    both.u.binary.left = &ge;
    both.u.binary.right = &le;
    if (!e->u.between.negated)
        return compile(c, &both, out);
    sl_expr not = {.kind = SL_EX_UNARY, .pos = e->pos};
    not.u.unary.op = SL_OP_NOT;
    not.u.unary.arg = &both;
    return compile(c, &not, out);
}

static int compile(cctx *c, const sl_expr *e, xnode **out)
{
    if (++c->depth > 256) {
        c->depth--;
        return sl_error_set(c->err, SL_ELIMIT, e->pos.line, e->pos.col,
                            "expression nested too deeply");
    }
    int rc = 0;
    sl_binding b = {.kind = SL_BIND_NONE};
    if (c->b->bind != NULL) {
        rc = c->b->bind(c->b->ud, e, &b, c->err);
        if (rc != 0)
            goto done;
    }
    if (b.kind == SL_BIND_COLUMN) {
        xnode *n = sl__xnode_new(X_COL, b.type, b.width, e->pos);
        if (n == NULL) {
            rc = oom(c);
            goto done;
        }
        n->col = b.index;
        *out = n;
        goto done;
    }
    if (b.kind == SL_BIND_VALUE) {
        *out = const_node(b.value, e->pos);
        rc = *out ? 0 : oom(c);
        goto done;
    }
    switch (e->kind) {
    case SL_EX_LITERAL: rc = compile_literal(c, e, out); break;
    case SL_EX_COLUMN:
        if (e->u.column.table != NULL)
            rc = sl_error_set(c->err, SL_ENOTFOUND, e->pos.line, e->pos.col,
                              "unknown column '%s.%s'", e->u.column.table, e->u.column.name);
        else
            rc = sl_error_set(c->err, SL_ENOTFOUND, e->pos.line, e->pos.col,
                              "unknown column '%s'", e->u.column.name);
        break;
    case SL_EX_STAR:
        rc = sl_error_set(c->err, SL_EINVAL, e->pos.line, e->pos.col, "'*' is not allowed here");
        break;
    case SL_EX_UNARY: rc = compile_unary(c, e, out); break;
    case SL_EX_BINARY: rc = compile_binary(c, e, out); break;
    case SL_EX_FUNC: rc = compile_func(c, e, out); break;
    case SL_EX_CASE: rc = compile_case(c, e, out); break;
    case SL_EX_IN: rc = compile_in(c, e, out); break;
    case SL_EX_BETWEEN: rc = compile_between(c, e, out); break;
    case SL_EX_LIKE: rc = compile_like(c, e, out); break;
    case SL_EX_ISNULL: {
        xnode *a = NULL;
        rc = compile(c, e->u.isnull.arg, &a);
        if (rc != 0)
            break;
        xnode *n = sl__xnode_new(X_ISNULL, SL_T_BOOL, 0, e->pos);
        if (n == NULL || set_args(n, 1, &a) != 0) {
            sl__xnode_free(n);
            sl__xnode_free(a);
            rc = oom(c);
            break;
        }
        n->negated = e->u.isnull.negated;
        *out = n;
        rc = fold(c, out);
        break;
    }
    case SL_EX_CAST: {
        xnode *a = NULL;
        rc = compile(c, e->u.cast.arg, &a);
        if (rc != 0)
            break;
        sl_type t = e->u.cast.type;
        if (t == SL_T_NULL || t >= SL_T__COUNT) {
            sl__xnode_free(a);
            rc = sl_error_set(c->err, SL_ETYPE, e->pos.line, e->pos.col, "invalid CAST type");
            break;
        }
        if (sl_type_is_var(t) && e->u.cast.width == 0) {
            sl__xnode_free(a);
            rc = sl_error_set(c->err, SL_ETYPE, e->pos.line, e->pos.col,
                              "CAST to %s needs a length, e.g. %s(64)", sl_type_name(t),
                              sl_type_name(t));
            break;
        }
        xnode *n = sl__xnode_new(X_CAST, t, e->u.cast.width, e->pos);
        if (n == NULL || set_args(n, 1, &a) != 0) {
            sl__xnode_free(n);
            sl__xnode_free(a);
            rc = oom(c);
            break;
        }
        n->op = (int)c->b->precision; /* timestamp text is read in the binder's precision */
        *out = n;
        rc = fold(c, out);
        break;
    }
    case SL_EX_PLACEHOLDER:
        rc = sl_error_set(c->err, SL_EINVAL, e->pos.line, e->pos.col,
                          "placeholder %s is only valid in a stream computation",
                          sl_placeholder_name(e->u.placeholder.ph));
        break;
    case SL_EX_PSEUDO: {
        static const char *names[] = {"_wstart", "_wend", "_wduration", "_rowts"};
        rc = sl_error_set(c->err, SL_EINVAL, e->pos.line, e->pos.col,
                          "%s is only valid in a window query", names[e->u.pseudo.ps]);
        break;
    }
    case SL_EX_NOW:
        *out = const_node(sl_value_int(SL_T_TIMESTAMP, c->b->now), e->pos);
        rc = *out ? 0 : oom(c);
        break;
    case SL_EX_TODAY: {
        int64_t day = 86400 * sl_precision_per_sec(c->b->precision);
        *out = const_node(sl_value_int(SL_T_TIMESTAMP, c->b->now - sl_floormod(c->b->now, day)),
                          e->pos);
        rc = *out ? 0 : oom(c);
        break;
    }
    default:
        rc = sl_error_set(c->err, SL_EINVAL, e->pos.line, e->pos.col, "unsupported expression");
    }
done:
    c->depth--;
    return rc;
}

int sl_cexpr_compile(const sl_expr *ast, const sl_binder *binder, sl_cexpr **out, sl_error *err)
{
    *out = NULL;
    sl_cexpr *e = calloc(1, sizeof(*e));
    if (e == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    e->prec = binder->precision;
    e->now = binder->now;
    cctx c = {.b = binder, .err = err};
    int rc = compile(&c, ast, &e->root);
    if (rc != 0) {
        free(e);
        return rc;
    }
    *out = e;
    return 0;
}

void sl_cexpr_free(sl_cexpr *e)
{
    if (e == NULL)
        return;
    sl__xnode_free(e->root);
    free(e);
}

sl_type sl_cexpr_type(const sl_cexpr *e)
{
    return e->root->type;
}

uint32_t sl_cexpr_width(const sl_cexpr *e)
{
    return e->root->width;
}

bool sl_cexpr_is_const(const sl_cexpr *e)
{
    return e->root->kind == X_CONST;
}

bool sl_cexpr_is_column(const sl_cexpr *e, int *index)
{
    if (e->root->kind != X_COL)
        return false;
    if (index != NULL)
        *index = e->root->col;
    return true;
}

int sl_cexpr_eval(sl_cexpr *e, const sl_block *in, const sl_column **out, sl_error *err)
{
    return sl__xeval(e->root, in, out, err);
}

int sl_cexpr_eval_const(sl_cexpr *e, sl_value *out, sl_error *err)
{
    if (e->root->kind != X_CONST)
        return sl_error_set(err, SL_EINVAL, e->root->pos.line, e->root->pos.col,
                            "expression is not constant");
    return const_value(e->root, out);
}

bool sl_scalar_func_exists(const char *name)
{
    return sl__xfunc_lookup(name) >= 0 || strcasecmp(name, "if") == 0;
}
