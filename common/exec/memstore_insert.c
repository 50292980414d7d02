/*
 * memstore_insert.c - INSERT and DELETE for the embedded store.
 *
 * Values are constant expressions evaluated by the shared evaluator (ddl.h,
 * sl_ddl_const_to) and converted to the column type, so a bad value is reported with the
 * column it was meant for and the position of the value. The target of each INSERT item
 * (and the child table USING ... TAGS creates) is resolved by the shared DDL rules
 * (sl_ddl_plan_insert_target), exactly as the mnode catalog resolves it.
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

/* ------------------------------------------------------------ constants */

/* Values are evaluated by the shared evaluator (ddl.h) with the statement's NOW. */
int sl__ms_const_to(sl_memstore *ms, const sl_expr *e, const sl_field *f, const char *what,
                    sl_precision prec, char *buf, size_t bufn, sl_value *out, sl_error *err)
{
    return sl_ddl_const_to(e, f, what, prec, ms->m_stmt_now_ms, buf, bufn, out, err);
}

/* ------------------------------------------------------------ INSERT */

/* What one INSERT item writes: a staging block for table t. */
typedef struct ins_item {
    sl__ms_table *t; /* target table */
    bool is_new;     /* t is created by this statement, not linked yet */
    sl_block *rows;  /* staging rows in the table's columns */
} ins_item;

/*
 * Resolves the target table of item i with the shared rules; a child table USING creates
 * is made here, unlinked. news[k] is the table made for plan op k.
 */
static int ins_target(sl_memstore *ms, const sl_insert_item *it, sl_ddl_plan *plan,
                      sl__ms_table **news, ins_item *out, sl_error *err)
{
    sl_ddl_source src = sl__ms_source(ms);
    sl_ddl_target tg;
    int rc = sl_ddl_plan_insert_target(&src, it, plan, &tg, err);
    if (rc < 0)
        return rc;
    if (tg.new_op < 0) {
        out->t = tg.table.obj;
        return 0;
    }
    if (tg.created) {
        rc = sl__ms_make_tables(plan, tg.new_op, &news[tg.new_op], err);
        if (rc < 0)
            return rc;
        out->is_new = true;
    }
    out->t = news[tg.new_op];
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
                                       "table '%s' has no column '%s'", t->t_name, it->cols[i]);
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
                rc = sl__ms_const_to(ms, e, &cols[k], "column", prec, buf, sizeof(buf), &v, err);
                if (rc < 0)
                    goto done;
                if (k == 0 && v.is_null) {
                    rc = sl_ddl_error(err, SL_EINVAL, e->pos,
                                      "the timestamp column '%s' cannot be NULL", cols[0].name);
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

int sl__ms_insert(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_insert *ins = &st->u.insert;
    ins_item *items = calloc((size_t)(ins->n > 0 ? ins->n : 1), sizeof(*items));
    /* At most one new table per item: news[k] is the table made for plan op k. */
    sl__ms_table **news = calloc((size_t)(ins->n > 0 ? ins->n : 1), sizeof(*news));
    sl_ddl_plan plan;
    sl_ddl_plan_init(&plan);
    if (items == NULL || news == NULL) {
        free(items);
        free(news);
        return sl_ddl_error(err, SL_ENOMEM, st->pos, "out of memory");
    }
    int rc = 0;
    int64_t total = 0;
    for (int i = 0; i < ins->n; i++) {
        const sl_insert_item *it = &ins->items[i];
        if ((rc = ins_target(ms, it, &plan, news, &items[i], err)) < 0)
            goto fail;
        sl__ms_table *t = items[i].t;
        items[i].rows = sl_block_new();
        if (items[i].rows == NULL) {
            rc = sl_ddl_error(err, SL_ENOMEM, st->pos, "out of memory");
            goto fail;
        }
        const sl_field *cols = sl__ms_cols(t);
        for (int k = 0; k < sl__ms_ncols(t); k++) {
            if (sl_block_add_column(items[i].rows, cols[k].type, cols[k].width) < 0) {
                rc = sl_ddl_error(err, SL_ENOMEM, st->pos, "out of memory");
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
            rc = sl_ddl_error(err, SL_ENOMEM, st->pos, "out of memory");
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
    free(news);
    sl_ddl_plan_fini(&plan);
    res->affected = total;
    return 0;
fail:
    for (int i = 0; i < ins->n; i++) {
        sl_block_free(items[i].rows);
        sl__ms_table_free(news[i]);
    }
    free(items);
    free(news);
    sl_ddl_plan_fini(&plan);
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
    if (e->u.column.table != NULL && !sl_ddl_name_eq(e->u.column.table, t->t_name))
        return false;
    return sl_ddl_name_eq(e->u.column.name, sl__ms_cols(t)[0].name);
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
    char buf[SL_DDL_VALUE_BUF];
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
    return sl_ddl_error(err, SL_EUNSUPPORTED, e->pos,
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
        return sl_ddl_error(err, SL_ENOTFOUND, del->table.pos,
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
        return sl_ddl_error(err, SL_ENOMEM, st->pos, "out of memory");
    for (int i = 0; i < n; i++) {
        if (sl__ms_delete_prepare(tabs[i], r.lo, r.hi, &ops[i]) < 0) {
            for (int j = 0; j < i; j++)
                sl__ms_delete_discard(&ops[j]);
            free(ops);
            return sl_ddl_error(err, SL_ENOMEM, st->pos, "out of memory");
        }
    }
    int64_t total = 0;
    for (int i = 0; i < n; i++)
        total += sl__ms_delete_apply(&ops[i]);
    free(ops);
    res->affected = total;
    return 0;
}
