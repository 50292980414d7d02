/*
 * plan.c - the SELECT planner.
 *
 * Planning happens in one pass over the statement, in the order the operators need:
 *  1. the FROM source becomes a scope (a table with a growing projection list, or a
 *     planned subquery); every expression evaluated below the aggregate is compiled
 *     against it, and each column it names is added to the scan's projection;
 *  2. a query is an aggregate query when it has GROUP BY, INTERVAL, DISTINCT or an
 *     aggregate function anywhere in SELECT/HAVING/ORDER BY; then the select list, HAVING
 *     and ORDER BY are compiled against the aggregate's output: key expressions and
 *     aggregate calls are matched structurally (by their canonical AST rendering) and
 *     bound to the aggregate's output columns, and each distinct aggregate call is
 *     collected once, its argument compiled against the scope;
 *  3. the operators are assembled: scan (with the time range of WHERE pushed down) ->
 *     filter -> [partition | aggregate -> having] -> project -> [sort -> trim] -> limit.
 */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../expr/agg.h"
#include "../expr/expr.h"
#include "../sql/parser.h"
#include "exec.h"

struct sl_plan {
    sl_op *root;
    int ncols;
    char **names;
    sl_type *types;
    uint32_t *widths;
    sl_precision prec;
    bool started;
};

/* A column visible to scope-level expressions. */
typedef struct scol {
    const char *name;
    sl_type type;
    uint32_t width;
} scol;

typedef struct planner {
    const sl_plan_ctx *ctx;
    sl_error *err;
    /* scope */
    bool is_table;
    sl_table_meta meta;
    const char *alias;
    int *proj;          /* table: requested columns (catalog indexes) */
    int nproj, capproj;
    sl_plan *sub;       /* subquery source */
    sl_precision prec;
    int64_t now;
    /* aggregate */
    bool is_agg;
    bool has_win;
    int nkeys;
    const sl_expr **key_ast;
    char **key_dump;
    int naggs, capaggs;
    sl_agg_spec *aggs;
    char **agg_dump;
    int ts_col;         /* scope column of the primary timestamp, -1 when none */
    bool stmt_interval; /* the statement has INTERVAL */
} planner;

static int oom(planner *p)
{
    return sl_error_set(p->err, SL_ENOMEM, 0, 0, "out of memory while planning");
}

/* ------------------------------------------------------------ scope */

static int scope_ncols(const planner *p)
{
    return p->is_table ? p->nproj : (p->sub ? p->sub->ncols : 0);
}

static int proj_add(planner *p, int idx)
{
    for (int i = 0; i < p->nproj; i++)
        if (p->proj[i] == idx)
            return i;
    if (p->nproj == p->capproj) {
        int ncap = p->capproj ? p->capproj * 2 : 16;
        int *np = realloc(p->proj, sizeof(int) * (size_t)ncap);
        if (np == NULL)
            return SL_ENOMEM;
        p->proj = np;
        p->capproj = ncap;
    }
    p->proj[p->nproj] = idx;
    return p->nproj++;
}

/* Type of table field idx (catalog index, SL_PROJ_TBNAME for tbname). */
static void field_info(const sl_table_meta *m, int idx, const char **name, sl_type *t,
                       uint32_t *w)
{
    if (idx == SL_PROJ_TBNAME) {
        *name = "tbname";
        *t = SL_T_VARCHAR;
        *w = SL_TABLE_NAME_MAX;
    } else if (idx < m->ncols) {
        *name = m->cols[idx].name;
        *t = m->cols[idx].type;
        *w = m->cols[idx].width;
    } else {
        *name = m->tags[idx - m->ncols].name;
        *t = m->tags[idx - m->ncols].type;
        *w = m->tags[idx - m->ncols].width;
    }
}

/* Resolves a column name to a scope column (adding it to the projection). */
static int scope_resolve(planner *p, const sl_expr *e, sl_binding *b)
{
    const char *q = e->u.column.table, *name = e->u.column.name;
    if (q != NULL) {
        bool ok = (p->alias && strcasecmp(q, p->alias) == 0) ||
                  (p->is_table && strcasecmp(q, p->meta.name) == 0);
        if (!ok)
            return sl_error_set(p->err, SL_ENOTFOUND, e->pos.line, e->pos.col,
                                "unknown table or alias '%s'", q);
    }
    if (p->is_table) {
        int idx = -2;
        for (int i = 0; i < p->meta.ncols && idx == -2; i++)
            if (strcasecmp(p->meta.cols[i].name, name) == 0)
                idx = i;
        for (int i = 0; i < p->meta.ntags && idx == -2; i++)
            if (strcasecmp(p->meta.tags[i].name, name) == 0)
                idx = p->meta.ncols + i;
        if (idx == -2 && strcasecmp(name, "tbname") == 0)
            idx = SL_PROJ_TBNAME;
        if (idx == -2)
            return sl_error_set(p->err, SL_ENOTFOUND, e->pos.line, e->pos.col,
                                "unknown column '%s' in table '%s'", name, p->meta.name);
        int k = proj_add(p, idx);
        if (k < 0)
            return oom(p);
        const char *fn;
        b->kind = SL_BIND_COLUMN;
        b->index = k;
        field_info(&p->meta, idx, &fn, &b->type, &b->width);
        return 0;
    }
    if (p->sub != NULL) {
        int found = -1;
        for (int i = 0; i < p->sub->ncols; i++) {
            if (strcasecmp(p->sub->names[i], name) == 0) {
                if (found >= 0)
                    return sl_error_set(p->err, SL_EAMBIGUOUS, e->pos.line, e->pos.col,
                                        "column '%s' is ambiguous in the subquery", name);
                found = i;
            }
        }
        if (found >= 0) {
            b->kind = SL_BIND_COLUMN;
            b->index = found;
            b->type = p->sub->types[found];
            b->width = p->sub->widths[found];
            return 0;
        }
    }
    return sl_error_set(p->err, SL_ENOTFOUND, e->pos.line, e->pos.col,
                        "unknown column '%s'", name);
}

static int bind_placeholder(planner *p, const sl_expr *e, sl_binding *b)
{
    if (p->ctx->bind_placeholder == NULL)
        return sl_error_set(p->err, SL_EINVAL, e->pos.line, e->pos.col,
                            "placeholder %s is only valid in a stream computation",
                            sl_placeholder_name(e->u.placeholder.ph));
    b->kind = SL_BIND_VALUE;
    return p->ctx->bind_placeholder(p->ctx->bind_ud, e, &b->value, p->err);
}

/* Binder for expressions evaluated over the source's rows. */
static int scope_bind(void *ud, const sl_expr *e, sl_binding *b, sl_error *err)
{
    planner *p = ud;
    switch (e->kind) {
    case SL_EX_COLUMN:
        return scope_resolve(p, e, b);
    case SL_EX_PSEUDO:
        if (e->u.pseudo.ps != SL_PS_ROWTS) {
            const char *nm = e->u.pseudo.ps == SL_PS_WSTART ? "_wstart"
                             : e->u.pseudo.ps == SL_PS_WEND ? "_wend"
                                                            : "_wduration";
            /* A subquery's window columns keep their names: the outer query reads them. */
            for (int i = 0; p->sub != NULL && i < p->sub->ncols; i++) {
                if (strcasecmp(p->sub->names[i], nm) == 0) {
                    b->kind = SL_BIND_COLUMN;
                    b->index = i;
                    b->type = p->sub->types[i];
                    b->width = p->sub->widths[i];
                    return 0;
                }
            }
            /* Without INTERVAL, the same message as agg_bind gives for the same mistake. */
            if (!p->stmt_interval)
                return sl_error_set(err, SL_EINVAL, e->pos.line, e->pos.col,
                                    "%s is only valid in a query with INTERVAL", nm);
        }
        if (e->u.pseudo.ps == SL_PS_ROWTS) {
            if (p->ts_col < 0)
                return sl_error_set(err, SL_EINVAL, e->pos.line, e->pos.col,
                                    "_rowts needs a source with a timestamp key");
            b->kind = SL_BIND_COLUMN;
            b->index = p->ts_col;
            b->type = SL_T_TIMESTAMP;
            b->width = 0;
        }
        return 0;
    case SL_EX_PLACEHOLDER:
        return bind_placeholder(p, e, b);
    default:
        return 0;
    }
}

static sl_binder scope_binder(planner *p)
{
    sl_binder b = {.bind = scope_bind, .ud = p, .precision = p->prec, .now = p->now};
    return b;
}

static int compile_scope(planner *p, const sl_expr *e, sl_cexpr **out)
{
    sl_binder b = scope_binder(p);
    return sl_cexpr_compile(e, &b, out, p->err);
}

/* ------------------------------------------------------------ aggregate binding */

/*
 * The canonical rendering used to match expressions (keys, aggregate calls, ORDER BY
 * items). Identifiers and keywords compare case-insensitively, so everything but the text
 * of string literals ('...' with '' for a quote) is lower-cased: "LOC" matches "loc",
 * while 'X' and 'x' stay different.
 */
static char *dump_expr(const sl_expr *e)
{
    sl_buf b;
    sl_buf_init(&b);
    if (sl_ast_dump_expr(e, &b) != 0 || sl_buf_put_u8(&b, 0) != 0) {
        sl_buf_fini(&b);
        return NULL;
    }
    char *d = (char *)b.data;
    bool in_str = false, in_name = false;
    for (char *c = d; *c != '\0'; c++) {
        if (in_str) {
            if (*c == '\'' && c[1] == '\'')
                c++;
            else if (*c == '\'')
                in_str = false;
        } else if (*c == '`') {
            if (in_name && c[1] == '`')
                c++;
            else
                in_name = !in_name;
        } else if (*c == '\'' && !in_name) {
            in_str = true;
        } else if (*c >= 'A' && *c <= 'Z') {
            *c = (char)(*c - 'A' + 'a');
        }
    }
    return d;
}

static bool is_agg_call(const sl_expr *e, sl_agg_kind *k)
{
    return e->kind == SL_EX_FUNC && sl_agg_lookup(e->u.func.name, k);
}

/* True when e contains an aggregate call (not descending into subqueries). */
static bool has_agg(const sl_expr *e)
{
    if (e == NULL)
        return false;
    sl_agg_kind k;
    switch (e->kind) {
    case SL_EX_FUNC:
        if (is_agg_call(e, &k))
            return true;
        for (int i = 0; i < e->u.func.args.n; i++)
            if (has_agg(e->u.func.args.items[i]))
                return true;
        return false;
    case SL_EX_UNARY: return has_agg(e->u.unary.arg);
    case SL_EX_BINARY: return has_agg(e->u.binary.left) || has_agg(e->u.binary.right);
    case SL_EX_CASE:
        if (has_agg(e->u.case_.operand) || has_agg(e->u.case_.else_))
            return true;
        for (int i = 0; i < e->u.case_.nwhen; i++)
            if (has_agg(e->u.case_.whens[i].when) || has_agg(e->u.case_.whens[i].then))
                return true;
        return false;
    case SL_EX_IN:
        if (has_agg(e->u.in.arg))
            return true;
        for (int i = 0; i < e->u.in.list.n; i++)
            if (has_agg(e->u.in.list.items[i]))
                return true;
        return false;
    case SL_EX_BETWEEN:
        return has_agg(e->u.between.arg) || has_agg(e->u.between.lo) || has_agg(e->u.between.hi);
    case SL_EX_ISNULL: return has_agg(e->u.isnull.arg);
    case SL_EX_LIKE: return has_agg(e->u.like.arg);
    case SL_EX_CAST: return has_agg(e->u.cast.arg);
    default: return false;
    }
}

/* Adds (or finds) the aggregate call e; returns its index in p->aggs. */
static int agg_add(planner *p, const sl_expr *e, sl_agg_kind k, int *index)
{
    char *d = dump_expr(e);
    if (d == NULL)
        return oom(p);
    for (int j = 0; j < p->naggs; j++) {
        if (strcmp(p->agg_dump[j], d) == 0) {
            free(d);
            *index = j;
            return 0;
        }
    }
    const sl_expr_list *args = &e->u.func.args;
    if (e->u.func.distinct) {
        free(d);
        return sl_error_set(p->err, SL_EUNSUPPORTED, e->pos.line, e->pos.col,
                            "%s(DISTINCT ...) is not supported", e->u.func.name);
    }
    bool star = args->n == 1 && args->items[0]->kind == SL_EX_STAR;
    if (k == SL_AGG_COUNT && star)
        k = SL_AGG_COUNT_STAR;
    if ((k == SL_AGG_COUNT_STAR && args->n != 1) || (k != SL_AGG_COUNT_STAR && args->n != 1) ||
        (star && k != SL_AGG_COUNT_STAR)) {
        free(d);
        if (star)
            return sl_error_set(p->err, SL_EINVAL, e->pos.line, e->pos.col,
                                "%s(*) is not valid; only COUNT(*) is", e->u.func.name);
        return sl_error_set(p->err, SL_EINVAL, e->pos.line, e->pos.col,
                            "%s takes 1 argument, got %d", e->u.func.name, args->n);
    }
    sl_cexpr *arg = NULL;
    if (k != SL_AGG_COUNT_STAR) {
        if (has_agg(args->items[0])) {
            free(d);
            return sl_error_set(p->err, SL_EINVAL, e->pos.line, e->pos.col,
                                "aggregate calls cannot be nested");
        }
        int rc = compile_scope(p, args->items[0], &arg);
        if (rc != 0) {
            free(d);
            return rc;
        }
    }
    if (sl_agg_needs_ts(k) && p->ts_col < 0) {
        free(d);
        sl_cexpr_free(arg);
        return sl_error_set(p->err, SL_EINVAL, e->pos.line, e->pos.col,
                            "%s needs a source with a timestamp key", e->u.func.name);
    }
    /* Refuse argument types now, with the call's position. */
    sl_agg *probe;
    sl_type at = arg ? sl_cexpr_type(arg) : SL_T_BIGINT;
    int rc = sl_agg_create(k, at == SL_T_NULL ? SL_T_BIGINT : at, arg ? sl_cexpr_width(arg) : 0,
                           &probe, p->err);
    if (rc != 0) {
        free(d);
        sl_cexpr_free(arg);
        if (p->err != NULL && p->err->line == 0) {
            p->err->line = e->pos.line;
            p->err->col = e->pos.col;
        }
        return rc;
    }
    sl_agg_free(probe);
    if (p->naggs == p->capaggs) {
        int ncap = p->capaggs ? p->capaggs * 2 : 8;
        sl_agg_spec *na = realloc(p->aggs, sizeof(*na) * (size_t)ncap);
        char **nd = na ? realloc(p->agg_dump, sizeof(char *) * (size_t)ncap) : NULL;
        if (na != NULL)
            p->aggs = na;
        if (nd == NULL) {
            free(d);
            sl_cexpr_free(arg);
            return oom(p);
        }
        p->agg_dump = nd;
        p->capaggs = ncap;
    }
    p->aggs[p->naggs] = (sl_agg_spec){
        .kind = k, .arg = arg, .ts_col = sl_agg_needs_ts(k) ? p->ts_col : -1};
    p->agg_dump[p->naggs] = d;
    *index = p->naggs++;
    return 0;
}

/* Binder for expressions evaluated over the aggregate's output. */
static int agg_bind(void *ud, const sl_expr *e, sl_binding *b, sl_error *err)
{
    planner *p = ud;
    int wbase = p->nkeys, abase = p->nkeys + (p->has_win ? 3 : 0);
    sl_agg_kind k;
    if (is_agg_call(e, &k)) {
        int j = -1;
        int rc = agg_add(p, e, k, &j);
        if (rc != 0)
            return rc;
        sl_agg *probe;
        sl_type at = p->aggs[j].arg ? sl_cexpr_type(p->aggs[j].arg) : SL_T_BIGINT;
        uint32_t aw = p->aggs[j].arg ? sl_cexpr_width(p->aggs[j].arg) : 0;
        rc = sl_agg_create(p->aggs[j].kind, at == SL_T_NULL ? SL_T_BIGINT : at, aw, &probe, err);
        if (rc != 0)
            return rc;
        b->kind = SL_BIND_COLUMN;
        b->index = abase + j;
        b->type = sl_agg_result_type(probe);
        b->width = sl_agg_result_width(probe);
        sl_agg_free(probe);
        return 0;
    }
    if (e->kind == SL_EX_PSEUDO && e->u.pseudo.ps != SL_PS_ROWTS) {
        if (!p->has_win)
            return sl_error_set(err, SL_EINVAL, e->pos.line, e->pos.col,
                                "%s is only valid in a query with INTERVAL",
                                e->u.pseudo.ps == SL_PS_WSTART ? "_wstart"
                                : e->u.pseudo.ps == SL_PS_WEND ? "_wend"
                                                               : "_wduration");
        b->kind = SL_BIND_COLUMN;
        b->index = wbase + (int)e->u.pseudo.ps;
        b->type = e->u.pseudo.ps == SL_PS_WDURATION ? SL_T_BIGINT : SL_T_TIMESTAMP;
        b->width = 0;
        return 0;
    }
    if (e->kind == SL_EX_PLACEHOLDER)
        return bind_placeholder(p, e, b);
    if (e->kind == SL_EX_LITERAL || e->kind == SL_EX_NOW || e->kind == SL_EX_TODAY)
        return 0;
    if (p->nkeys > 0) {
        char *d = dump_expr(e);
        if (d == NULL)
            return oom(p);
        for (int i = 0; i < p->nkeys; i++) {
            if (strcmp(d, p->key_dump[i]) == 0) {
                free(d);
                /* Resolve the key's type against the scope. */
                sl_cexpr *ke;
                int rc = compile_scope(p, p->key_ast[i], &ke);
                if (rc != 0)
                    return rc;
                b->kind = SL_BIND_COLUMN;
                b->index = i;
                b->type = sl_cexpr_type(ke) == SL_T_NULL ? SL_T_BIGINT : sl_cexpr_type(ke);
                b->width = sl_cexpr_width(ke);
                sl_cexpr_free(ke);
                return 0;
            }
        }
        free(d);
    }
    if (e->kind == SL_EX_COLUMN || (e->kind == SL_EX_PSEUDO && e->u.pseudo.ps == SL_PS_ROWTS))
        return sl_error_set(err, SL_EINVAL, e->pos.line, e->pos.col,
                            "column '%s' must appear in PARTITION BY or GROUP BY, or be used "
                            "in an aggregate function",
                            e->kind == SL_EX_COLUMN ? e->u.column.name : "_rowts");
    return 0;
}

static int compile_post(planner *p, const sl_expr *e, sl_cexpr **out)
{
    if (!p->is_agg)
        return compile_scope(p, e, out);
    sl_binder b = {.bind = agg_bind, .ud = p, .precision = p->prec, .now = p->now};
    return sl_cexpr_compile(e, &b, out, p->err);
}

/* ------------------------------------------------------------ helpers */

/* Binder that binds every node to one column (builds column-reference expressions). */
typedef struct colref {
    int index;
    sl_type type;
    uint32_t width;
} colref;

static int colref_bind(void *ud, const sl_expr *e, sl_binding *b, sl_error *err)
{
    const colref *c = ud;
    b->kind = SL_BIND_COLUMN;
    b->index = c->index;
    b->type = c->type;
    b->width = c->width;
    return 0;
}

static int column_expr(int index, sl_type t, uint32_t w, sl_cexpr **out, sl_error *err)
{
    colref c = {index, t, w};
    sl_expr e = {.kind = SL_EX_COLUMN};
    e.u.column.name = "";
    sl_binder b = {.bind = colref_bind, .ud = &c};
    return sl_cexpr_compile(&e, &b, out, err);
}

static int duration(planner *p, const sl_duration *d, const char *what, int64_t *out)
{
    if (sl_duration_unit_is_calendar(d->unit))
        return sl_error_set(p->err, SL_EUNSUPPORTED, d->pos.line, d->pos.col,
                            "%s with month or year units is not supported in queries", what);
    int rc = sl_duration_to_precision(d->value, d->unit, p->prec, out);
    if (rc != 0)
        return sl_error_set(p->err, rc, d->pos.line, d->pos.col,
                            "%s %lld%c cannot be expressed in %s precision", what,
                            (long long)d->value, d->unit, sl_precision_name(p->prec));
    return 0;
}

/* Narrows [lo, hi] from top-level AND conjuncts comparing the key with a constant. */
static void push_time_range(planner *p, const sl_expr *w, int64_t *lo, int64_t *hi)
{
    if (w == NULL || !p->is_table)
        return;
    if (w->kind == SL_EX_BINARY && w->u.binary.op == SL_OP_AND) {
        push_time_range(p, w->u.binary.left, lo, hi);
        push_time_range(p, w->u.binary.right, lo, hi);
        return;
    }
    if (w->kind != SL_EX_BINARY)
        return;
    sl_binop op = w->u.binary.op;
    if (op < SL_OP_EQ || op > SL_OP_GE || op == SL_OP_NE)
        return;
    const sl_expr *col = w->u.binary.left, *val = w->u.binary.right;
    bool flipped = false;
    if (col->kind != SL_EX_COLUMN) {
        col = w->u.binary.right;
        val = w->u.binary.left;
        flipped = true;
    }
    if (col->kind != SL_EX_COLUMN || col->u.column.table != NULL ||
        p->meta.cols[0].type != SL_T_TIMESTAMP ||
        strcasecmp(col->u.column.name, p->meta.cols[0].name) != 0)
        return;
    /* The bound must be a constant: compile it with a binder that refuses columns. */
    sl_binder b = {.bind = NULL, .precision = p->prec, .now = p->now};
    sl_cexpr *c;
    sl_error e2;
    sl_error_clear(&e2);
    if (sl_cexpr_compile(val, &b, &c, &e2) != 0)
        return;
    sl_value v, tv;
    char buf[8];
    if (!sl_cexpr_is_const(c) || sl_cexpr_eval_const(c, &v, &e2) != 0 || v.is_null ||
        v.type == SL_T_NULL ||
        sl_value_cast(&v, SL_T_TIMESTAMP, 0, p->prec, buf, sizeof(buf), &tv, &e2) != 0) {
        sl_cexpr_free(c);
        return;
    }
    sl_cexpr_free(c);
    int64_t t = tv.v.i;
    /* The cast truncates a fractional bound (ts < 1000.5 would become ts < 1000 and lose
     * the row at 1000); such bounds stay with the filter alone. */
    if (sl_type_is_float(v.type) && (double)t != v.v.d)
        return;
    if (flipped)
        op = op == SL_OP_LT ? SL_OP_GT : op == SL_OP_LE ? SL_OP_GE
           : op == SL_OP_GT ? SL_OP_LT : op == SL_OP_GE ? SL_OP_LE : op;
    switch (op) {
    case SL_OP_EQ: if (t > *lo) *lo = t; if (t < *hi) *hi = t; break;
    case SL_OP_GT: if (t < INT64_MAX && t + 1 > *lo) *lo = t + 1; break;
    case SL_OP_GE: if (t > *lo) *lo = t; break;
    case SL_OP_LT: if (t > INT64_MIN && t - 1 < *hi) *hi = t - 1; break;
    case SL_OP_LE: if (t < *hi) *hi = t; break;
    default: break;
    }
}

/* Type and width of scope column idx. */
static void scope_col_type(const planner *p, int idx, sl_type *t, uint32_t *w)
{
    if (p->is_table) {
        const char *nm;
        field_info(&p->meta, p->proj[idx], &nm, t, w);
    } else {
        *t = p->sub->types[idx];
        *w = p->sub->widths[idx];
    }
}

/* ------------------------------------------------------------ output columns */

typedef struct outcol {
    const sl_expr *expr;  /* NULL for a '*' expansion (scope column `scope_idx`) */
    int scope_idx;
    char *name;
} outcol;

/* Frees the first n output columns (their names) and the array. */
static void outcols_free(outcol *oc, int n)
{
    for (int i = 0; i < n; i++)
        free(oc[i].name);
    free(oc);
}

static int expand_items(planner *p, const sl_select *sel, outcol **out, int *nout)
{
    int cap = sel->nitems + 16, n = 0;
    outcol *oc = calloc((size_t)cap, sizeof(outcol));
    if (oc == NULL)
        return oom(p);
    for (int i = 0; i < sel->nitems; i++) {
        const sl_select_item *it = &sel->items[i];
        if (it->expr->kind == SL_EX_STAR) {
            if (p->is_agg && !sel->distinct) {
                outcols_free(oc, n);
                return sl_error_set(p->err, SL_EINVAL, it->expr->pos.line, it->expr->pos.col,
                                    "'*' cannot be selected in an aggregate query");
            }
            /* Like TDengine: * on a super table adds the tags, on a child table not. */
            int total = !p->is_table ? scope_ncols(p)
                        : p->meta.ncols + (p->meta.kind == SL_TABLE_SUPER ? p->meta.ntags : 0);
            if (!p->is_table && p->sub == NULL) {
                outcols_free(oc, n);
                return sl_error_set(p->err, SL_EINVAL, it->expr->pos.line, it->expr->pos.col,
                                    "'*' needs a FROM clause");
            }
            for (int k = 0; k < total; k++) {
                if (n == cap) {
                    cap *= 2;
                    outcol *no = realloc(oc, sizeof(outcol) * (size_t)cap);
                    if (no == NULL) {
                        outcols_free(oc, n);
                        return oom(p);
                    }
                    oc = no;
                }
                const char *nm;
                int si = k;
                if (p->is_table) {
                    sl_type t;
                    uint32_t w;
                    field_info(&p->meta, k, &nm, &t, &w);
                    si = proj_add(p, k);
                    if (si < 0) {
                        outcols_free(oc, n);
                        return oom(p);
                    }
                } else {
                    nm = p->sub->names[k];
                }
                oc[n++] = (outcol){.expr = NULL, .scope_idx = si, .name = strdup(nm)};
            }
            continue;
        }
        if (n == cap) {
            cap *= 2;
            outcol *no = realloc(oc, sizeof(outcol) * (size_t)cap);
            if (no == NULL) {
                outcols_free(oc, n);
                return oom(p);
            }
            oc = no;
        }
        oc[n++] = (outcol){.expr = it->expr, .scope_idx = -1,
                           .name = strdup(it->alias ? it->alias : it->text)};
    }
    *out = oc;
    *nout = n;
    return 0;
}

/* ------------------------------------------------------------ planning */

static void planner_fini(planner *p)
{
    free(p->proj);
    sl_plan_free(p->sub);
    for (int i = 0; i < p->nkeys; i++)
        free(p->key_dump ? p->key_dump[i] : NULL);
    free(p->key_dump);
    free(p->key_ast);
    for (int j = 0; j < p->naggs; j++) {
        sl_cexpr_free(p->aggs[j].arg);
        free(p->agg_dump[j]);
    }
    free(p->aggs);
    free(p->agg_dump);
}

static int open_source(planner *p, const sl_select *sel)
{
    const sl_plan_ctx *ctx = p->ctx;
    p->prec = SL_PREC_MS;
    p->ts_col = -1;
    if (sel->from == NULL)
        return 0;
    const sl_from *f = sel->from;
    p->alias = f->alias;
    int rc;
    switch (f->kind) {
    case SL_FROM_TABLE:
        if (ctx->catalog.ops == NULL)
            return sl_error_set(p->err, SL_ESTATE, f->pos.line, f->pos.col, "no catalog");
        /* An unqualified name is looked up in the statement's current database. */
        rc = ctx->catalog.ops->get_table(ctx->catalog.ud, f->table.db ? f->table.db : ctx->db,
                                         f->table.name, &p->meta, p->err);
        if (rc != 0) {
            if (p->err != NULL && p->err->line == 0) {
                p->err->line = f->pos.line;
                p->err->col = f->pos.col;
            }
            return rc;
        }
        p->is_table = true;
        break;
    case SL_FROM_TROWS:
    case SL_FROM_TBNAME:
        if (ctx->bind_source == NULL)
            return sl_error_set(p->err, SL_EINVAL, f->pos.line, f->pos.col,
                                "%s is only valid in a stream computation",
                                f->kind == SL_FROM_TROWS ? "%%trows" : "%%tbname");
        rc = ctx->bind_source(ctx->bind_ud, f, &p->meta, p->err);
        if (rc != 0)
            return rc;
        p->is_table = true;
        break;
    case SL_FROM_SUBQUERY:
        rc = sl_plan_select(f->subquery, ctx, &p->sub, p->err);
        if (rc != 0)
            return rc;
        p->prec = p->sub->prec;
        if (p->sub->ncols > 0 && p->sub->types[0] == SL_T_TIMESTAMP)
            p->ts_col = 0;
        break;
    }
    if (p->is_table) {
        p->prec = p->meta.precision;
        int k = proj_add(p, 0);
        if (k < 0)
            return oom(p);
        /* System tables (information_schema) have no timestamp key: column 0 is still
         * scanned, so every block has a column, but nothing treats it as time. */
        if (p->meta.cols[0].type == SL_T_TIMESTAMP)
            p->ts_col = k;
    }
    return 0;
}

static int convert_now(planner *p)
{
    int64_t per = sl_precision_per_sec(p->prec);
    p->now = p->ctx->now_ms * (per / 1000);
    return 0;
}

/*
 * Ends a PARTIAL plan after the scan (and filter): with aggregation, a partial aggregate
 * whose columns are the keys, the window bounds and one encoded state per aggregate;
 * without, the scanned columns as they are. Takes *op (replaced by the new root, or freed
 * on failure) and the keys/aggregate arguments.
 */
static int finish_partial(planner *p, sl_op **op, sl_cexpr **key_exprs,
                          const sl_window_spec *win, sl_plan **out)
{
    int ncols = p->is_agg ? p->nkeys + (win->enabled ? 3 : 0) + p->naggs : p->nproj;
    sl_plan *plan = calloc(1, sizeof(*plan));
    if (plan != NULL) {
        plan->names = calloc((size_t)ncols + 1, sizeof(char *));
        plan->types = calloc((size_t)ncols + 1, sizeof(sl_type));
        plan->widths = calloc((size_t)ncols + 1, sizeof(uint32_t));
    }
    if (plan == NULL || plan->names == NULL || plan->types == NULL || plan->widths == NULL) {
        sl_plan_free(plan);
        sl_op_free(*op);
        *op = NULL;
        return oom(p);
    }
    plan->ncols = ncols;
    plan->prec = p->prec;
    int c = 0;
    char nm[32];
    if (p->is_agg) {
        for (int i = 0; i < p->nkeys; i++, c++) {
            sl_type t = sl_cexpr_type(key_exprs[i]);
            plan->types[c] = t == SL_T_NULL ? SL_T_BIGINT : t;
            plan->widths[c] = sl_cexpr_width(key_exprs[i]);
            snprintf(nm, sizeof(nm), "_key%d", i);
            plan->names[c] = strdup(nm);
        }
        if (win->enabled) {
            static const char *wn[] = {"_wstart", "_wend", "_wduration"};
            for (int i = 0; i < 3; i++, c++) {
                plan->types[c] = i == 2 ? SL_T_BIGINT : SL_T_TIMESTAMP;
                plan->names[c] = strdup(wn[i]);
            }
        }
        for (int j = 0; j < p->naggs; j++, c++) {
            plan->types[c] = SL_T_VARCHAR;
            snprintf(nm, sizeof(nm), "_state%d", j);
            plan->names[c] = strdup(nm);
        }
        int rc = sl_op_agg_new(*op, SL_AGG_MODE_PARTIAL, p->nkeys, key_exprs, win, p->naggs,
                               p->aggs, op, p->err);
        for (int j = 0; j < p->naggs; j++)
            p->aggs[j].arg = NULL;
        for (int i = 0; i < p->nkeys; i++)
            key_exprs[i] = NULL;
        if (rc != 0) {
            *op = NULL;
            sl_plan_free(plan);
            return rc;
        }
    } else {
        for (; c < p->nproj; c++) {
            const char *fn;
            field_info(&p->meta, p->proj[c], &fn, &plan->types[c], &plan->widths[c]);
            plan->names[c] = strdup(fn);
        }
    }
    for (int i = 0; i < ncols; i++) {
        if (plan->names[i] == NULL) {
            sl_plan_free(plan);
            sl_op_free(*op);
            *op = NULL;
            return oom(p);
        }
    }
    plan->root = *op;
    *op = NULL;
    *out = plan;
    return 0;
}

int sl_plan_select(const sl_select *sel, const sl_plan_ctx *ctx, sl_plan **out, sl_error *err)
{
    *out = NULL;
    planner P = {.ctx = ctx, .err = err, .stmt_interval = sel->has_interval};
    planner *p = &P;
    outcol *oc = NULL;
    int noc = 0, nhidden = 0, distinct_base = 0;
    sl_cexpr **proj_exprs = NULL, **key_exprs = NULL;
    sl_cexpr *where = NULL, *having = NULL;
    sl_sort_key *sort_keys = NULL;
    sl_op *op = NULL;
    sl_plan *plan = NULL;
    int rc;

    if ((rc = open_source(p, sel)) != 0)
        goto fail;
    convert_now(p);

    /* Is this an aggregate query? */
    p->is_agg = sel->group_by.n > 0 || sel->has_interval || sel->distinct;
    for (int i = 0; i < sel->nitems && !p->is_agg; i++)
        p->is_agg = has_agg(sel->items[i].expr);
    if (!p->is_agg)
        p->is_agg = has_agg(sel->having);
    for (int i = 0; i < sel->norder && !p->is_agg; i++)
        p->is_agg = has_agg(sel->order[i].expr);
    if (sel->having != NULL && !p->is_agg) {
        rc = sl_error_set(err, SL_EINVAL, sel->having->pos.line, sel->having->pos.col,
                          "HAVING needs GROUP BY, INTERVAL or an aggregate function");
        goto fail;
    }
    if (sel->fill != SL_FILL_NONE_GIVEN && sel->fill != SL_FILL_NONE) {
        rc = sl_error_set(err, SL_EUNSUPPORTED, sel->pos.line, sel->pos.col,
                          "FILL other than NONE is not supported yet");
        goto fail;
    }
    if (sel->where != NULL && has_agg(sel->where)) {
        rc = sl_error_set(err, SL_EINVAL, sel->where->pos.line, sel->where->pos.col,
                          "aggregate functions are not allowed in WHERE");
        goto fail;
    }

    /* WHERE, compiled against the scope. */
    if (sel->where != NULL && (rc = compile_scope(p, sel->where, &where)) != 0)
        goto fail;
    if (where != NULL && sl_cexpr_type(where) != SL_T_BOOL && sl_cexpr_type(where) != SL_T_NULL) {
        rc = sl_error_set(err, SL_ETYPE, sel->where->pos.line, sel->where->pos.col,
                          "WHERE needs a boolean condition, got %s",
                          sl_type_name(sl_cexpr_type(where)));
        goto fail;
    }

    /* Keys: PARTITION BY then GROUP BY (DISTINCT adds the items later). */
    sl_window_spec win = {.enabled = false};
    if (p->is_agg) {
        int nk = sel->partition_by.n + sel->group_by.n;
        p->key_ast = calloc((size_t)nk + 1, sizeof(sl_expr *));
        p->key_dump = calloc((size_t)nk + 1, sizeof(char *));
        key_exprs = calloc((size_t)nk + sel->nitems + 1, sizeof(sl_cexpr *));
        if (p->key_ast == NULL || p->key_dump == NULL || key_exprs == NULL) {
            rc = oom(p);
            goto fail;
        }
        for (int i = 0; i < nk; i++) {
            const sl_expr *k = i < sel->partition_by.n ? sel->partition_by.items[i]
                                                       : sel->group_by.items[i - sel->partition_by.n];
            if (has_agg(k)) {
                rc = sl_error_set(err, SL_EINVAL, k->pos.line, k->pos.col,
                                  "aggregate functions are not allowed in PARTITION BY or GROUP BY");
                goto fail;
            }
            if ((rc = compile_scope(p, k, &key_exprs[i])) != 0)
                goto fail;
            p->key_ast[i] = k;
            if ((p->key_dump[i] = dump_expr(k)) == NULL) {
                rc = oom(p);
                goto fail;
            }
            p->nkeys++;
        }
        if (sel->has_interval) {
            if (p->ts_col < 0) {
                rc = sl_error_set(err, SL_EINVAL, sel->interval.pos.line, sel->interval.pos.col,
                                  "INTERVAL needs a source with a timestamp key");
                goto fail;
            }
            win.enabled = true;
            win.ts_col = p->ts_col;
            if ((rc = duration(p, &sel->interval, "INTERVAL", &win.interval)) != 0)
                goto fail;
            win.sliding = win.interval;
            if (sel->has_sliding && (rc = duration(p, &sel->sliding, "SLIDING", &win.sliding)) != 0)
                goto fail;
            if (sel->has_interval_offset &&
                (rc = duration(p, &sel->interval_offset, "INTERVAL offset", &win.offset)) != 0)
                goto fail;
            if (win.interval <= 0) {
                rc = sl_error_set(err, SL_EINVAL, sel->interval.pos.line, sel->interval.pos.col,
                                  "INTERVAL must be positive");
                goto fail;
            }
            if (win.sliding <= 0 || win.sliding > win.interval) {
                rc = sl_error_set(err, SL_EINVAL, sel->sliding.pos.line, sel->sliding.pos.col,
                                  "SLIDING must be positive and not larger than INTERVAL");
                goto fail;
            }
            if (win.offset < 0 || win.offset >= win.interval) {
                rc = sl_error_set(err, SL_EINVAL, sel->interval_offset.pos.line,
                                  sel->interval_offset.pos.col,
                                  "INTERVAL offset must be smaller than the interval");
                goto fail;
            }
            win.offset = win.offset % win.sliding;
            p->has_win = true;
        }
    } else if (sel->partition_by.n > 0) {
        key_exprs = calloc((size_t)sel->partition_by.n + 1, sizeof(sl_cexpr *));
        if (key_exprs == NULL) {
            rc = oom(p);
            goto fail;
        }
        for (int i = 0; i < sel->partition_by.n; i++) {
            if ((rc = compile_scope(p, sel->partition_by.items[i], &key_exprs[i])) != 0)
                goto fail;
            p->nkeys++;
        }
    }

    /* Output columns. */
    if ((rc = expand_items(p, sel, &oc, &noc)) != 0)
        goto fail;
    if (p->is_agg && sel->distinct) {
        /* DISTINCT: every item becomes a key. */
        if (sel->group_by.n > 0 || sel->has_interval) {
            rc = sl_error_set(err, SL_EUNSUPPORTED, sel->pos.line, sel->pos.col,
                              "DISTINCT with GROUP BY or INTERVAL is not supported");
            goto fail;
        }
        for (int i = 0; i < noc; i++) {
            if (oc[i].expr != NULL && has_agg(oc[i].expr)) {
                rc = sl_error_set(err, SL_EUNSUPPORTED, oc[i].expr->pos.line, oc[i].expr->pos.col,
                                  "DISTINCT with aggregate functions is not supported");
                goto fail;
            }
        }
        size_t nkc = (size_t)(p->nkeys + noc + 1);
        sl_expr **nk = realloc(p->key_ast, sizeof(sl_expr *) * nkc);
        if (nk != NULL)
            p->key_ast = (const sl_expr **)nk;
        char **nd = nk ? realloc(p->key_dump, sizeof(char *) * nkc) : NULL;
        if (nd != NULL)
            p->key_dump = nd;
        sl_cexpr **nke = nd ? realloc(key_exprs, sizeof(sl_cexpr *) * nkc) : NULL;
        if (nke != NULL)
            key_exprs = nke;
        if (nk == NULL || nd == NULL || nke == NULL) {
            rc = oom(p);
            goto fail;
        }
        distinct_base = p->nkeys;
        for (int i = 0; i < noc; i++) {
            if (oc[i].expr == NULL) {
                /* A column of a '*' expansion: the key is that scope column, and its
                 * empty canonical text never matches an expression. */
                sl_type t;
                uint32_t w;
                scope_col_type(p, oc[i].scope_idx, &t, &w);
                rc = column_expr(oc[i].scope_idx, t, w, &key_exprs[p->nkeys], err);
                p->key_ast[p->nkeys] = NULL;
                p->key_dump[p->nkeys] = strdup("");
            } else {
                rc = compile_scope(p, oc[i].expr, &key_exprs[p->nkeys]);
                p->key_ast[p->nkeys] = oc[i].expr;
                p->key_dump[p->nkeys] = rc == 0 ? dump_expr(oc[i].expr) : strdup("");
            }
            if (rc != 0) {
                free(p->key_dump[p->nkeys]);
                goto fail;
            }
            if (p->key_dump[p->nkeys] == NULL) {
                sl_cexpr_free(key_exprs[p->nkeys]);
                key_exprs[p->nkeys] = NULL;
                rc = oom(p);
                goto fail;
            }
            p->nkeys++;
        }
    }
    int cap = noc + sel->norder + 1;
    proj_exprs = calloc((size_t)cap, sizeof(sl_cexpr *));
    sort_keys = calloc((size_t)sel->norder + 1, sizeof(sl_sort_key));
    if (proj_exprs == NULL || sort_keys == NULL) {
        rc = oom(p);
        goto fail;
    }
    for (int i = 0; i < noc; i++) {
        if (oc[i].expr == NULL) {
            sl_type t;
            uint32_t w;
            scope_col_type(p, oc[i].scope_idx, &t, &w);
            /* Over the aggregate's output (DISTINCT *) the column is key i. */
            int col = p->is_agg ? distinct_base + i : oc[i].scope_idx;
            rc = column_expr(col, t, w, &proj_exprs[i], err);
        } else {
            rc = compile_post(p, oc[i].expr, &proj_exprs[i]);
        }
        if (rc != 0)
            goto fail;
    }
    /* HAVING before ORDER BY: both may add aggregates. */
    if (sel->having != NULL) {
        if ((rc = compile_post(p, sel->having, &having)) != 0)
            goto fail;
        if (sl_cexpr_type(having) != SL_T_BOOL && sl_cexpr_type(having) != SL_T_NULL) {
            rc = sl_error_set(err, SL_ETYPE, sel->having->pos.line, sel->having->pos.col,
                              "HAVING needs a boolean condition");
            goto fail;
        }
    }
    for (int i = 0; i < sel->norder; i++) {
        const sl_order_item *oi = &sel->order[i];
        const sl_expr *e = oi->expr;
        int col = -1;
        if (e->kind == SL_EX_LITERAL && e->u.lit.kind == SL_LIT_INT) {
            if (e->u.lit.i < 1 || e->u.lit.i > noc) {
                rc = sl_error_set(err, SL_EINVAL, e->pos.line, e->pos.col,
                                  "ORDER BY position %lld is not in the select list (1..%d)",
                                  (long long)e->u.lit.i, noc);
                goto fail;
            }
            col = (int)e->u.lit.i - 1;
        } else if (e->kind == SL_EX_COLUMN && e->u.column.table == NULL) {
            for (int k = 0; k < noc && col < 0; k++)
                if (sel->items != NULL && strcasecmp(oc[k].name, e->u.column.name) == 0 &&
                    (oc[k].expr == NULL || oc[k].expr->kind != SL_EX_STAR))
                    col = k;
        }
        if (col < 0) {
            char *d = dump_expr(e);
            if (d == NULL) {
                rc = oom(p);
                goto fail;
            }
            for (int k = 0; k < noc && col < 0; k++) {
                if (oc[k].expr == NULL)
                    continue;
                char *dk = dump_expr(oc[k].expr);
                if (dk != NULL && strcmp(d, dk) == 0)
                    col = k;
                free(dk);
            }
            free(d);
        }
        if (col < 0) {
            if (sel->distinct) {
                rc = sl_error_set(err, SL_EINVAL, e->pos.line, e->pos.col,
                                  "ORDER BY of a DISTINCT query must use selected columns");
                goto fail;
            }
            col = noc + nhidden;
            if ((rc = compile_post(p, e, &proj_exprs[col])) != 0)
                goto fail;
            nhidden++;
        }
        sort_keys[i].col = col;
        sort_keys[i].desc = oi->desc;
        sort_keys[i].nulls_first = oi->nulls == 0 ? !oi->desc : oi->nulls == 1;
    }

    /* Assemble. In PARTIAL and MERGE modes a query over a table is split: a storage node
     * runs scan -> filter -> [partial aggregate] (PARTIAL), the querying node reads those
     * blocks from every storage node through ctx->open_remote and finishes (MERGE). */
    bool remote = p->is_table && ctx->mode != SL_PLAN_FULL && sel->from->kind == SL_FROM_TABLE;
    bool partial = remote && ctx->mode == SL_PLAN_PARTIAL;
    bool merge = remote && ctx->mode == SL_PLAN_MERGE;
    if (merge) {
        if (ctx->open_remote == NULL) {
            rc = sl_error_set(err, SL_ESTATE, sel->pos.line, sel->pos.col,
                              "no remote source to merge from");
            goto fail;
        }
        rc = ctx->open_remote(ctx->remote_ud, sel, &p->meta, &op, err);
        sl_cexpr_free(where); /* applied by the storage nodes */
        where = NULL;
    } else if (p->is_table) {
        sl_scan_req req = {.table = &p->meta, .nproj = p->nproj, .proj = p->proj,
                           .ts_lo = INT64_MIN, .ts_hi = INT64_MAX};
        push_time_range(p, sel->where, &req.ts_lo, &req.ts_hi);
        rc = sl_op_scan_new(&ctx->catalog, &req, &op, err);
    } else if (p->sub != NULL) {
        op = p->sub->root;
        p->sub->root = NULL;
    } else {
        rc = sl_op_one_row_new(&op, err);
    }
    if (rc != 0)
        goto fail;
    if (where != NULL) {
        rc = sl_op_filter_new(op, where, &op, err);
        where = NULL;
        if (rc != 0)
            goto fail_op_gone;
    }
    if (partial) {
        rc = finish_partial(p, &op, key_exprs, &win, &plan);
        if (rc != 0)
            goto fail_op_gone;
        *out = plan;
        plan = NULL;
        goto done;
    }
    if (p->is_agg) {
        if (merge) {
            /* The keys are the first columns of the partial blocks. */
            for (int i = 0; i < p->nkeys; i++) {
                sl_type t = sl_cexpr_type(key_exprs[i]);
                uint32_t w = sl_cexpr_width(key_exprs[i]);
                sl_cexpr_free(key_exprs[i]);
                key_exprs[i] = NULL;
                if ((rc = column_expr(i, t == SL_T_NULL ? SL_T_BIGINT : t, w, &key_exprs[i],
                                      err)) != 0)
                    goto fail;
            }
        }
        sl_agg_spec *specs = p->aggs;
        rc = sl_op_agg_new(op, merge ? SL_AGG_MODE_MERGE : SL_AGG_MODE_FULL, p->nkeys, key_exprs,
                           &win, p->naggs, specs, &op, err);
        /* The operator took the keys and the aggregates' arguments. */
        for (int j = 0; j < p->naggs; j++)
            p->aggs[j].arg = NULL;
        for (int i = 0; i < p->nkeys; i++)
            key_exprs[i] = NULL;
        if (rc != 0)
            goto fail_op_gone;
        if (having != NULL) {
            rc = sl_op_filter_new(op, having, &op, err);
            having = NULL;
            if (rc != 0)
                goto fail_op_gone;
        }
    } else if (p->nkeys > 0) {
        rc = sl_op_partition_new(op, p->nkeys, key_exprs, &op, err);
        for (int i = 0; i < p->nkeys; i++)
            key_exprs[i] = NULL;
        if (rc != 0)
            goto fail_op_gone;
    }
    int nproj = noc + nhidden;
    sl_type *types = NULL;
    plan = calloc(1, sizeof(*plan));
    if (plan != NULL) {
        plan->names = calloc((size_t)noc + 1, sizeof(char *));
        plan->types = types = calloc((size_t)noc + 1, sizeof(sl_type));
        plan->widths = calloc((size_t)noc + 1, sizeof(uint32_t));
    }
    if (plan == NULL || plan->names == NULL || plan->types == NULL || plan->widths == NULL) {
        rc = oom(p);
        goto fail;
    }
    plan->ncols = noc;
    plan->prec = p->prec;
    for (int i = 0; i < noc; i++) {
        sl_type t = sl_cexpr_type(proj_exprs[i]);
        plan->types[i] = t == SL_T_NULL ? SL_T_BIGINT : t;
        plan->widths[i] = sl_cexpr_width(proj_exprs[i]);
        plan->names[i] = oc[i].name;
        oc[i].name = NULL;
    }
    rc = sl_op_project_new(op, nproj, proj_exprs, &op, err);
    for (int i = 0; i < nproj; i++)
        proj_exprs[i] = NULL;
    if (rc != 0)
        goto fail_op_gone;
    if (sel->norder > 0) {
        if ((rc = sl_op_sort_new(op, sel->norder, sort_keys, &op, err)) != 0)
            goto fail_op_gone;
        if (nhidden > 0 && (rc = sl_op_trim_new(op, noc, &op, err)) != 0)
            goto fail_op_gone;
    }
    if (sel->has_limit || sel->has_offset) {
        int64_t lim = sel->has_limit ? sel->limit : -1;
        if (lim < -1 || (sel->has_offset && sel->offset < 0)) {
            rc = sl_error_set(err, SL_EINVAL, sel->pos.line, sel->pos.col,
                              "LIMIT and OFFSET must not be negative");
            goto fail;
        }
        if ((rc = sl_op_limit_new(op, lim, sel->has_offset ? sel->offset : 0, &op, err)) != 0)
            goto fail_op_gone;
    }
    plan->root = op;
    op = NULL;
    *out = plan;
    plan = NULL;
    rc = 0;
    goto done;

fail_op_gone:
    op = NULL; /* the failing constructor freed its child */
fail:
    sl_op_free(op);
    sl_plan_free(plan);
done:
    if (oc != NULL) {
        for (int i = 0; i < noc; i++)
            free(oc[i].name);
        free(oc);
    }
    if (proj_exprs != NULL) {
        for (int i = 0; i < noc + nhidden; i++)
            sl_cexpr_free(proj_exprs[i]);
        free(proj_exprs);
    }
    if (key_exprs != NULL) {
        for (int i = 0; i < p->nkeys; i++)
            sl_cexpr_free(key_exprs[i]);
        free(key_exprs);
    }
    sl_cexpr_free(where);
    sl_cexpr_free(having);
    free(sort_keys);
    planner_fini(p);
    return rc;
}

void sl_plan_free(sl_plan *p)
{
    if (p == NULL)
        return;
    sl_op_free(p->root);
    for (int i = 0; i < p->ncols; i++)
        free(p->names ? p->names[i] : NULL);
    free(p->names);
    free(p->types);
    free(p->widths);
    free(p);
}

int sl_plan_ncols(const sl_plan *p)
{
    return p->ncols;
}

const char *sl_plan_col_name(const sl_plan *p, int i)
{
    return p->names[i];
}

sl_type sl_plan_col_type(const sl_plan *p, int i)
{
    return p->types[i];
}

uint32_t sl_plan_col_width(const sl_plan *p, int i)
{
    return p->widths[i];
}

sl_precision sl_plan_precision(const sl_plan *p)
{
    return p->prec;
}

int sl_plan_next(sl_plan *p, sl_block **out, sl_error *err)
{
    *out = NULL;
    if (p->root == NULL)
        return 0;
    p->started = true;
    return sl_op_next(p->root, out, err);
}

int sl_plan_collect(sl_plan *p, sl_block *out, sl_error *err)
{
    for (int i = 0; i < p->ncols; i++)
        if (sl_block_add_column(out, p->types[i], p->widths[i]) < 0)
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    for (;;) {
        sl_block *b;
        int rc = sl_plan_next(p, &b, err);
        if (rc != 0)
            return rc;
        if (b == NULL)
            return 0;
        for (int i = 0; i < p->ncols; i++)
            if (sl_column_append_rows(&out->cols[i], &b->cols[i], NULL, 0, b->nrows) != 0)
                return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        out->nrows += b->nrows;
    }
}

sl_op *sl_plan_take_root(sl_plan *p)
{
    sl_op *op = p->root;
    p->root = NULL;
    return op;
}

int sl_plan_explain(const sl_plan *p, sl_buf *out)
{
    return sl_op_explain(p->root, out, 0);
}
