/*
 * memstore_insert.c - INSERT and DELETE for the embedded store.
 *
 * Rows are converted by the shared INSERT/DELETE value rules (ddl.h, sl_ddl_insert_rows and
 * sl_ddl_delete_range in ddl_insert.c, which the client library uses too), so a bad value
 * is reported with the column it was meant for and the position of the value. The target of each INSERT item
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

/* Converts an item's rows into a staging block of t's columns (shared rules, ddl.h). */
static int ins_rows(sl_memstore *ms, const sl_insert_item *it, sl__ms_table *t, sl_block *b,
                    sl_error *err)
{
    return sl_ddl_insert_rows(it, t->t_name, sl__ms_ncols(t), sl__ms_cols(t), sl__ms_key(t),
                              sl__ms_ntags(t), sl__ms_tags(t), t->t_db->d_prec, ms->m_stmt_now_ms,
                              b, err);
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
    sl_ddl_ts_range r;
    rc = sl_ddl_delete_range(del->where, t->t_name, &sl__ms_cols(t)[0], t->t_db->d_prec,
                             ms->m_stmt_now_ms, &r, err);
    if (rc < 0)
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
