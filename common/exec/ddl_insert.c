/*
 * ddl_insert.c - the value side of INSERT and DELETE, shared by every writer: the
 * embedded store (memstore_insert.c) and the client library (client/lib), which evaluates
 * VALUES rows before routing them to the vnode that owns the table.
 *
 * Rows are constant expressions evaluated by the shared evaluator (sl_ddl_const_to) and
 * converted to the column types, so a bad value is reported with the column it was meant
 * for and its position wherever the INSERT runs. A DELETE's WHERE is reduced to one
 * inclusive timestamp range the same way.
 */
#include <stdlib.h>
#include <string.h>

#include "ddl.h"

int sl_ddl_insert_rows(const sl_insert_item *it, const char *tname, int ncols,
                       const sl_field *cols, bool key, int ntags, const sl_field *tags,
                       sl_precision prec, int64_t now_ms, sl_block *b, sl_error *err)
{
    key = key && ncols > 1;
    int *inv = malloc((size_t)ncols * sizeof(int)); /* column -> value index, or -1 */
    if (inv == NULL)
        return sl_ddl_error(err, SL_ENOMEM, it->table.pos, "out of memory");
    int rc = 0, nvals = ncols;
    for (int k = 0; k < ncols; k++)
        inv[k] = it->ncols > 0 ? -1 : k;
    for (int i = 0; i < it->ncols; i++) {
        int k = 0;
        while (k < ncols && !sl_ddl_name_eq(cols[k].name, it->cols[i]))
            k++;
        if (k == ncols) {
            bool is_tag = false;
            for (int j = 0; j < ntags; j++)
                is_tag = is_tag || sl_ddl_name_eq(tags[j].name, it->cols[i]);
            rc = is_tag ? sl_ddl_error(err, SL_EINVAL, it->col_pos[i],
                                       "'%s' is a tag, not a column: set it with TAGS", it->cols[i])
                        : sl_ddl_error(err, SL_ENOTFOUND, it->col_pos[i],
                                       "table '%s' has no column '%s'", tname, it->cols[i]);
            goto done;
        }
        if (inv[k] >= 0) {
            rc = sl_ddl_error(err, SL_EINVAL, it->col_pos[i], "column '%s' is given twice",
                              it->cols[i]);
            goto done;
        }
        inv[k] = i;
    }
    if (it->ncols > 0) {
        nvals = it->ncols;
        if (inv[0] < 0) {
            rc = sl_ddl_error(err, SL_EINVAL, it->col_pos[0],
                              "the column list must include the timestamp column '%s'",
                              cols[0].name);
            goto done;
        }
        if (key && inv[1] < 0) {
            rc = sl_ddl_error(err, SL_EINVAL, it->col_pos[0],
                              "the column list must include the composite key column '%s'",
                              cols[1].name);
            goto done;
        }
    }
    for (int r = 0; r < it->nrows; r++) {
        const sl_expr_list *row = &it->rows[r];
        if (row->n != nvals) {
            sl_pos p = row->n > 0 ? row->items[0]->pos : it->table.pos;
            rc = sl_ddl_error(err, SL_EINVAL, p, "row %d has %d value%s, expected %d", r + 1,
                              row->n, row->n == 1 ? "" : "s", nvals);
            goto done;
        }
        for (int k = 0; k < ncols; k++) {
            sl_value v = sl_value_null(cols[k].type);
            char buf[SL_DDL_VALUE_BUF];
            if (inv[k] >= 0) {
                const sl_expr *e = row->items[inv[k]];
                rc = sl_ddl_const_to(e, &cols[k], "column", prec, now_ms, buf, sizeof(buf), &v,
                                     err);
                if (rc < 0)
                    goto done;
                if (k == 0 && v.is_null) {
                    rc = sl_ddl_error(err, SL_EINVAL, e->pos,
                                      "the timestamp column '%s' cannot be NULL", cols[0].name);
                    goto done;
                }
                if (k == 1 && key && v.is_null) {
                    rc = sl_ddl_error(err, SL_EINVAL, e->pos,
                                      "the composite key column '%s' cannot be NULL",
                                      cols[k].name);
                    goto done;
                }
            }
            if (sl_column_append_value(&b->cols[k], &v) < 0) {
                rc = sl_ddl_error(err, SL_ENOMEM, it->table.pos, "out of memory");
                goto done;
            }
        }
    }
    sl_block_seal(b);
done:
    free(inv);
    return rc;
}

/* ------------------------------------------------------------ DELETE */

/* What the WHERE reduction needs to know of the table. */
typedef struct del_ctx {
    const char *tname;     /* table name, for qualified column references */
    const sl_field *tscol; /* the timestamp key column */
    sl_precision prec;
    int64_t now_ms;
} del_ctx;

static bool is_ts_ref(const sl_expr *e, const del_ctx *t)
{
    if (e->kind == SL_EX_PSEUDO && e->u.pseudo.ps == SL_PS_ROWTS)
        return true;
    if (e->kind != SL_EX_COLUMN)
        return false;
    if (e->u.column.table != NULL && !sl_ddl_name_eq(e->u.column.table, t->tname))
        return false;
    return sl_ddl_name_eq(e->u.column.name, t->tscol->name);
}

static void range_lo(sl_ddl_ts_range *r, int64_t v)
{
    if (v > r->lo)
        r->lo = v;
}

static void range_hi(sl_ddl_ts_range *r, int64_t v)
{
    if (v < r->hi)
        r->hi = v;
}

/* Evaluates a bound as a timestamp; NULL makes the range empty (the comparison is unknown). */
static int bound(const del_ctx *t, const sl_expr *e, sl_ddl_ts_range *r, int64_t *out,
                 bool *null, sl_error *err)
{
    char buf[SL_DDL_VALUE_BUF];
    sl_value v;
    int rc = sl_ddl_const_to(e, t->tscol, "column", t->prec, t->now_ms, buf, sizeof(buf), &v,
                             err);
    if (rc < 0)
        return rc;
    *null = v.is_null;
    if (v.is_null)
        r->empty = true;
    *out = v.v.i;
    return 0;
}

static int unsupported_where(const del_ctx *t, const sl_expr *e, sl_error *err)
{
    return sl_ddl_error(err, SL_EUNSUPPORTED, e->pos,
                        "DELETE supports only comparisons (=, <, <=, >, >=, BETWEEN) of the "
                        "timestamp column '%s' with constants, combined with AND",
                        t->tscol->name);
}

static int where_range(const del_ctx *t, const sl_expr *e, sl_ddl_ts_range *r, sl_error *err)
{
    int64_t v, w;
    bool null;
    int rc;
    if (e->kind == SL_EX_BETWEEN && !e->u.between.negated && is_ts_ref(e->u.between.arg, t)) {
        if ((rc = bound(t, e->u.between.lo, r, &v, &null, err)) < 0)
            return rc;
        if (!null)
            range_lo(r, v);
        if ((rc = bound(t, e->u.between.hi, r, &w, &null, err)) < 0)
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
        rc = where_range(t, l, r, err);
        return rc < 0 ? rc : where_range(t, rt, r, err);
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
    if ((rc = bound(t, val, r, &v, &null, err)) < 0 || null)
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

int sl_ddl_delete_range(const sl_expr *where, const char *tname, const sl_field *tscol,
                        sl_precision prec, int64_t now_ms, sl_ddl_ts_range *out, sl_error *err)
{
    del_ctx t = {.tname = tname, .tscol = tscol, .prec = prec, .now_ms = now_ms};
    out->lo = INT64_MIN;
    out->hi = INT64_MAX;
    out->empty = false;
    int rc = where != NULL ? where_range(&t, where, out, err) : 0;
    if (rc == 0 && out->lo > out->hi)
        out->empty = true;
    return rc;
}
