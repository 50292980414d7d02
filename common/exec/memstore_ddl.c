/*
 * memstore_ddl.c - DDL, SHOW and DESCRIBE statements of the embedded store.
 *
 * The rules (validation, messages, IF [NOT] EXISTS, tag values, SHOW columns) are the
 * shared ones of ddl.h, which the mnode catalog uses too; this file only shows the store
 * to them (an sl_ddl_source over the databases and tables in memory) and applies the
 * plans they return. Applying allocates every object it will link first and links them in
 * a second phase that cannot fail, so a refused statement leaves the store unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "memstore_int.h"

/* ------------------------------------------------------------ the store as a ddl source */

static void db_info(const sl__ms_db *db, sl_ddl_db *out)
{
    out->name = db->d_name;
    out->precision = db->d_prec;
    out->vgroups = db->d_vgroups;
    out->ntables = (int64_t)db->d_tables.ns_count - db->d_nsupers;
    out->obj = (void *)db;
}

static void table_info(const sl__ms_table *t, sl_ddl_table *out)
{
    out->kind = t->t_kind;
    out->name = t->t_name;
    out->stable = t->t_super ? t->t_super->t_name : NULL;
    out->ncols = sl__ms_ncols(t);
    out->cols = sl__ms_cols(t);
    out->ntags = sl__ms_ntags(t);
    out->tags = sl__ms_tags(t);
    out->tagvals = t->t_kind == SL_TABLE_CHILD ? &t->t_tagvals : NULL;
    out->nchildren = t->t_nchildren;
    out->obj = (void *)t;
    out->composite_key = sl__ms_key(t);
}

static bool src_find_db(void *ud, const char *name, sl_ddl_db *out)
{
    sl__ms_db *db = sl__ms_find_db(ud, name);
    if (db == NULL)
        return false;
    db_info(db, out);
    return true;
}

static bool src_find_table(void *ud, const sl_ddl_db *db, const char *name, sl_ddl_table *out)
{
    (void)ud;
    sl__ms_table *t = sl__ms_find_table(db->obj, name);
    if (t == NULL)
        return false;
    table_info(t, out);
    return true;
}

static int src_each_db(void *ud, sl_ddl_db_fn fn, void *arg)
{
    sl_memstore *ms = ud;
    for (int i = 0; i < ms->m_ndbs; i++) {
        sl_ddl_db d;
        db_info(ms->m_dbs[i], &d);
        int rc = fn(arg, &d);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int src_each_table(void *ud, const sl_ddl_db *db, sl_ddl_table_fn fn, void *arg)
{
    (void)ud;
    const sl__ms_db *d = db->obj;
    uint32_t pos = 0;
    for (const sl__ms_table *tab; (tab = sl_nameset_next(&d->d_tables, &pos)) != NULL;) {
        sl_ddl_table t;
        table_info(tab, &t);
        int rc = fn(arg, &t);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static const sl_ddl_source_ops source_ops = {
    .find_db = src_find_db,
    .find_table = src_find_table,
    .each_db = src_each_db,
    .each_table = src_each_table,
};

sl_ddl_source sl__ms_source(sl_memstore *ms)
{
    sl_ddl_source s = {
        .ops = &source_ops,
        .ud = ms,
        .current_db = ms->m_cur ? ms->m_cur->d_name : NULL,
        .now_ms = ms->m_stmt_now_ms,
    };
    return s;
}

/* ------------------------------------------------------------ applying plans */

static int oom(sl_error *err, sl_pos pos)
{
    return sl_ddl_error(err, SL_ENOMEM, pos, "out of memory");
}

/* Copies validated fields into owned ones. NULL on exhaustion. */
static sl_field *copy_fields(const sl_field *src, int n)
{
    sl_field *f = calloc((size_t)(n > 0 ? n : 1), sizeof(*f));
    if (f == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        f[i] = src[i];
        f[i].name = strdup(src[i].name);
        if (f[i].name == NULL) {
            for (int j = 0; j < i; j++)
                free((char *)f[j].name);
            free(f);
            return NULL;
        }
    }
    return f;
}

/* Makes the (unlinked) table of a CREATE_TABLE op; takes the op's tag block. */
static sl__ms_table *new_table(sl_ddl_op *op)
{
    sl__ms_table *t = sl__ms_table_new(op->db.obj, op->tkind, op->name);
    if (t == NULL)
        return NULL;
    if (op->tkind == SL_TABLE_CHILD) {
        t->t_super = op->super.obj;
        t->t_tagvals = op->tagvals;
        sl_block_init(&op->tagvals);
    } else {
        t->t_cols = copy_fields(op->cols, op->ncols);
        if (t->t_cols == NULL)
            goto fail;
        t->t_ncols = op->ncols;
        t->t_key = op->composite_key;
        if (op->ntags > 0) {
            t->t_tags = copy_fields(op->tags, op->ntags);
            if (t->t_tags == NULL)
                goto fail;
            t->t_ntags = op->ntags;
        }
    }
    if (op->tkind != SL_TABLE_SUPER && sl__ms_rows_init(t) < 0)
        goto fail;
    return t;
fail:
    sl__ms_table_free(t);
    return NULL;
}

int sl__ms_make_tables(sl_ddl_plan *plan, int from, sl__ms_table **news, sl_error *err)
{
    int n = plan->nops - from;
    for (int i = 0; i < n; i++) {
        sl_ddl_op *op = &plan->ops[from + i];
        if (op->kind != SL_DDL_CREATE_TABLE)
            continue;
        news[i] = new_table(op);
        if (news[i] == NULL)
            return oom(err, op->pos);
    }
    /* Reserve everything linking needs, then nothing below can fail. */
    for (int i = 0; i < n; i++) {
        if (news[i] == NULL)
            continue;
        if (sl__ms_reserve_tables(news[i]->t_db, (uint32_t)n) < 0 ||
            (news[i]->t_super != NULL && sl__ms_reserve_children(news[i]->t_super, n) < 0))
            return oom(err, plan->ops[from + i].pos);
    }
    return 0;
}

static int create_database(sl_memstore *ms, const sl_ddl_op *op, sl_error *err)
{
    if (ms->m_ndbs == ms->m_capdbs) {
        int cap = ms->m_capdbs ? ms->m_capdbs * 2 : 4;
        sl__ms_db **p = realloc(ms->m_dbs, (size_t)cap * sizeof(*p));
        if (p == NULL)
            return oom(err, op->pos);
        ms->m_dbs = p;
        ms->m_capdbs = cap;
    }
    sl__ms_db *db = calloc(1, sizeof(*db));
    if (db == NULL || (db->d_name = strdup(op->db.name)) == NULL) {
        free(db);
        return oom(err, op->pos);
    }
    sl__ms_init_tables(db);
    db->d_prec = op->db.precision;
    db->d_vgroups = op->db.vgroups;
    ms->m_dbs[ms->m_ndbs++] = db;
    return 0;
}

static void drop_database(sl_memstore *ms, sl__ms_db *db)
{
    for (int i = 0; i < ms->m_ndbs; i++) {
        if (ms->m_dbs[i] != db)
            continue;
        if (ms->m_cur == db)
            ms->m_cur = NULL;
        memmove(&ms->m_dbs[i], &ms->m_dbs[i + 1],
                (size_t)(ms->m_ndbs - i - 1) * sizeof(ms->m_dbs[0]));
        ms->m_ndbs--;
        sl__ms_db_free(db);
        return;
    }
}

/*
 * Plans st with the shared rules and applies the plan. A statement makes either one
 * database op, or table creations, or table drops, never a mix, so each kind is applied
 * on its own terms.
 */
static int run_ddl(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    sl_ddl_source src = sl__ms_source(ms);
    sl_ddl_plan plan;
    sl_ddl_plan_init(&plan);
    sl__ms_table **news = NULL;
    int rc = sl_ddl_plan_stmt(&src, st, &plan, err);
    if (rc < 0)
        goto done;
    res->affected = 0;
    news = calloc((size_t)(plan.nops > 0 ? plan.nops : 1), sizeof(*news));
    if (news == NULL) {
        rc = oom(err, st->pos);
        goto done;
    }
    if ((rc = sl__ms_make_tables(&plan, 0, news, err)) < 0)
        goto done;
    for (int i = 0; i < plan.nops; i++) {
        sl_ddl_op *op = &plan.ops[i];
        switch (op->kind) {
        case SL_DDL_CREATE_DB: rc = create_database(ms, op, err); break;
        case SL_DDL_DROP_DB: drop_database(ms, op->db.obj); break;
        case SL_DDL_CREATE_TABLE:
            sl__ms_link_table(news[i]->t_db, news[i]);
            news[i] = NULL;
            break;
        case SL_DDL_DROP_TABLE: {
            sl__ms_table *t = op->table.obj;
            sl__ms_drop_table(t->t_db, t);
            break;
        }
        }
        if (rc < 0)
            goto done;
    }
done:
    if (news != NULL)
        for (int i = 0; i < plan.nops; i++)
            sl__ms_table_free(news[i]);
    free(news);
    sl_ddl_plan_fini(&plan);
    return rc;
}

/* ------------------------------------------------------------ statements */

int sl__ms_create_database(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    return run_ddl(ms, st, res, err);
}

int sl__ms_drop_database(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    return run_ddl(ms, st, res, err);
}

int sl__ms_create_stable(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    return run_ddl(ms, st, res, err);
}

int sl__ms_create_table(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    return run_ddl(ms, st, res, err);
}

int sl__ms_create_subtables(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    return run_ddl(ms, st, res, err);
}

int sl__ms_drop_tables(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    return run_ddl(ms, st, res, err);
}

int sl__ms_use(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    sl__ms_db *db = sl__ms_find_db(ms, st->u.use_db);
    if (db == NULL)
        return sl_ddl_error(err, SL_ENOTFOUND, st->pos, "database '%s' does not exist",
                            st->u.use_db);
    ms->m_cur = db;
    res->affected = 0;
    return 0;
}

int sl__ms_describe(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    sl_ddl_source src = sl__ms_source(ms);
    return sl_ddl_describe(&src, st, res, err);
}

int sl__ms_show(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    if (!sl_ddl_show_handles(st->u.show.kind))
        return sl_ddl_error(err, SL_EUNSUPPORTED, st->pos,
                            "this SHOW statement is not supported by the embedded store "
                            "(it has no streams or nodes)");
    sl_ddl_source src = sl__ms_source(ms);
    return sl_ddl_show(&src, st, res, err);
}
