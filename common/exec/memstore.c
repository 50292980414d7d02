/*
 * memstore.c - the embedded store: databases, the table registry, statement dispatch and
 * SELECT.
 *
 * A store is a list of databases; each database finds its tables by case-insensitive
 * name in an open-addressing hash set (a store may hold many thousands of child tables).
 * sl_memstore_exec parses the SQL, then runs each statement through one table of
 * handlers; SELECT goes to the shared planner with the store as its catalog, so the
 * embedded demo exercises exactly the executor the cluster uses. Every handler validates
 * everything (and allocates what it needs) before it changes anything, so a refused
 * statement leaves the store as it was.
 */
#include "common/util/grow.h"
#include "memstore.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../sql/parser.h"
#include "memstore_int.h"
#include "plan.h"

/* ------------------------------------------------------------ databases */

sl__ms_db *sl__ms_find_db(sl_memstore *ms, const char *name)
{
    for (int i = 0; i < ms->m_ndbs; i++)
        if (sl_ddl_name_eq(ms->m_dbs[i]->d_name, name))
            return ms->m_dbs[i];
    return NULL;
}

int sl__ms_resolve_db(sl_memstore *ms, const sl_qname *q, sl__ms_db **out, sl_error *err)
{
    if (q->db != NULL) {
        *out = sl__ms_find_db(ms, q->db);
        if (*out == NULL)
            return sl_ddl_error(err, SL_ENOTFOUND, q->pos, "database '%s' does not exist", q->db);
        return 0;
    }
    if (ms->m_cur == NULL)
        return sl_ddl_error(err, SL_ENOTFOUND, q->pos,
                            "no database selected for '%s': USE a database or write db.%s", q->name,
                            q->name);
    *out = ms->m_cur;
    return 0;
}

/* ------------------------------------------------------------ tables */

static const char *table_name(const void *item)
{
    return ((const sl__ms_table *)item)->t_name;
}

void sl__ms_init_tables(sl__ms_db *db)
{
    sl_nameset_init(&db->d_tables, table_name);
}

sl__ms_table *sl__ms_find_table(sl__ms_db *db, const char *name)
{
    return sl_nameset_find(&db->d_tables, name);
}

int sl__ms_reserve_tables(sl__ms_db *db, uint32_t more)
{
    return sl_nameset_reserve(&db->d_tables, more);
}

int sl__ms_reserve_children(sl__ms_table *st, int more)
{
    return sl_grow(&st->t_children, sizeof(*st->t_children), &st->t_capchildren,
                   st->t_nchildren + more, 8);
}

void sl__ms_link_table(sl__ms_db *db, sl__ms_table *t)
{
    /* Callers reserve first, so linking never allocates. */
    sl_nameset_insert(&db->d_tables, t);
    if (t->t_kind == SL_TABLE_SUPER)
        db->d_nsupers++;
    if (t->t_super != NULL) {
        sl__ms_table *st = t->t_super;
        assert(st->t_nchildren < st->t_capchildren);
        st->t_children[st->t_nchildren++] = t;
    }
}

void sl__ms_drop_table(sl__ms_db *db, sl__ms_table *t)
{
    if (t->t_kind == SL_TABLE_SUPER) {
        for (int i = 0; i < t->t_nchildren; i++) {
            sl_nameset_remove(&db->d_tables, t->t_children[i]);
            sl__ms_table_free(t->t_children[i]);
        }
        t->t_nchildren = 0;
    }
    if (t->t_super != NULL) {
        sl__ms_table *st = t->t_super;
        for (int i = 0; i < st->t_nchildren; i++) {
            if (st->t_children[i] == t) {
                memmove(&st->t_children[i], &st->t_children[i + 1],
                        (size_t)(st->t_nchildren - i - 1) * sizeof(st->t_children[0]));
                st->t_nchildren--;
                break;
            }
        }
    }
    sl_nameset_remove(&db->d_tables, t);
    if (t->t_kind == SL_TABLE_SUPER)
        db->d_nsupers--;
    sl__ms_table_free(t);
}

sl__ms_table *sl__ms_table_new(sl__ms_db *db, sl_table_kind kind, const char *name)
{
    sl__ms_table *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->t_kind = kind;
    t->t_db = db;
    sl_block_init(&t->t_tagvals);
    sl_block_init(&t->t_main);
    t->t_name = strdup(name);
    if (t->t_name == NULL) {
        free(t);
        return NULL;
    }
    return t;
}

static void fields_free(sl_field *f, int n)
{
    if (f == NULL)
        return;
    for (int i = 0; i < n; i++)
        free((char *)f[i].name);
    free(f);
}

void sl__ms_table_free(sl__ms_table *t)
{
    if (t == NULL)
        return;
    if (t->t_kind != SL_TABLE_SUPER)
        sl__ms_rows_fini(t);
    sl_block_fini(&t->t_tagvals);
    fields_free(t->t_cols, t->t_ncols);
    fields_free(t->t_tags, t->t_ntags);
    free(t->t_children);
    free(t->t_name);
    free(t);
}

int sl__ms_ncols(const sl__ms_table *t)
{
    return t->t_super ? t->t_super->t_ncols : t->t_ncols;
}

const sl_field *sl__ms_cols(const sl__ms_table *t)
{
    return t->t_super ? t->t_super->t_cols : t->t_cols;
}

bool sl__ms_key(const sl__ms_table *t)
{
    return t->t_super ? t->t_super->t_key : t->t_key;
}

int sl__ms_ntags(const sl__ms_table *t)
{
    return t->t_super ? t->t_super->t_ntags : t->t_ntags;
}

const sl_field *sl__ms_tags(const sl__ms_table *t)
{
    return t->t_super ? t->t_super->t_tags : t->t_tags;
}

/* ------------------------------------------------------------ lifecycle */

static int64_t system_now_ms(void *ud)
{
    (void)ud;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sl_memstore_open(sl_memstore **out, int64_t (*now_ms)(void *ud), void *now_ud)
{
    sl_memstore *ms = calloc(1, sizeof(*ms));
    if (ms == NULL)
        return SL_ENOMEM;
    ms->m_now = now_ms ? now_ms : system_now_ms;
    ms->m_now_ud = now_ud;
    *out = ms;
    return 0;
}

void sl__ms_db_free(sl__ms_db *db)
{
    if (db == NULL)
        return;
    /* Child and normal tables first: a child's schema is its super table's. */
    void **slots = db->d_tables.ns_slots;
    for (uint32_t i = 0; i < db->d_tables.ns_cap; i++) {
        sl__ms_table *t = slots[i];
        if (t != NULL && t->t_kind != SL_TABLE_SUPER) {
            sl__ms_table_free(t);
            slots[i] = NULL;
        }
    }
    for (uint32_t i = 0; i < db->d_tables.ns_cap; i++)
        sl__ms_table_free(slots[i]);
    sl_nameset_fini(&db->d_tables);
    free(db->d_name);
    free(db);
}

void sl_memstore_close(sl_memstore *ms)
{
    if (ms == NULL)
        return;
    for (int i = 0; i < ms->m_ndbs; i++)
        sl__ms_db_free(ms->m_dbs[i]);
    free(ms->m_dbs);
    free(ms);
}

sl_catalog sl_memstore_catalog(sl_memstore *ms)
{
    sl_catalog c = {.ops = &sl__ms_catalog_ops, .ud = ms};
    return c;
}

/* ------------------------------------------------------------ SELECT */

static int exec_select(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    sl_plan_ctx ctx = {
        .catalog = sl_memstore_catalog(ms),
        .db = ms->m_cur ? ms->m_cur->d_name : NULL,
        .now_ms = ms->m_stmt_now_ms,
    };
    sl_plan *plan = NULL;
    int rc = sl_plan_select(st->u.select, &ctx, &plan, err);
    if (rc < 0)
        return rc;
    int ncols = sl_plan_ncols(plan);
    res->names = calloc((size_t)(ncols > 0 ? ncols : 1), sizeof(char *));
    if (res->names == NULL) {
        rc = SL_ENOMEM;
        goto fail;
    }
    res->ncols = ncols;
    for (int i = 0; i < ncols; i++) {
        res->names[i] = strdup(sl_plan_col_name(plan, i));
        if (res->names[i] == NULL) {
            rc = SL_ENOMEM;
            goto fail;
        }
    }
    res->precision = sl_plan_precision(plan);
    rc = sl_plan_collect(plan, &res->rows, err);
    if (rc < 0)
        goto fail;
    res->affected = -1;
    sl_plan_free(plan);
    return 0;
fail:
    sl_plan_free(plan);
    return rc;
}

/* ------------------------------------------------------------ dispatch */

typedef int (*stmt_fn)(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err);

static const stmt_fn stmt_handlers[] = {
    [SL_STMT_CREATE_DATABASE] = sl__ms_create_database,
    [SL_STMT_DROP_DATABASE] = sl__ms_drop_database,
    [SL_STMT_USE] = sl__ms_use,
    [SL_STMT_SHOW] = sl__ms_show,
    [SL_STMT_CREATE_STABLE] = sl__ms_create_stable,
    [SL_STMT_CREATE_TABLE] = sl__ms_create_table,
    [SL_STMT_CREATE_SUBTABLES] = sl__ms_create_subtables,
    [SL_STMT_DROP_TABLE] = sl__ms_drop_tables,
    [SL_STMT_DROP_STABLE] = sl__ms_drop_tables,
    [SL_STMT_DESCRIBE] = sl__ms_describe,
    [SL_STMT_INSERT] = sl__ms_insert,
    [SL_STMT_DELETE] = sl__ms_delete,
    [SL_STMT_SELECT] = exec_select,
};

static int exec_stmt(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    ms->m_stmt_now_ms = ms->m_now(ms->m_now_ud);
    stmt_fn fn = NULL;
    if ((size_t)st->kind < sizeof(stmt_handlers) / sizeof(stmt_handlers[0]))
        fn = stmt_handlers[st->kind];
    if (fn == NULL)
        return sl_ddl_error(err, SL_EUNSUPPORTED, st->pos,
                            "%s is not supported by the embedded store",
                            sl_stmt_kind_name(st->kind));
    int rc = fn(ms, st, res, err);
    if (rc < 0 && err != NULL && err->code == 0)
        sl_ddl_error(err, rc, st->pos, "%s failed: %s", sl_stmt_kind_name(st->kind),
                     sl_strerror(rc));
    return rc;
}

int sl_memstore_exec(sl_memstore *ms, const char *sql, sl_result *res, sl_error *err)
{
    sl_result_init(res);
    sl_error_clear(err); /* the first error recorded wins: start from none */
    sl_parse_result *pr = NULL;
    int rc = sl_parse(sql, strlen(sql), &pr, err);
    if (rc < 0)
        return rc;
    for (int i = 0; i < pr->nstmts; i++) {
        sl_result_fini(res);
        sl_result_init(res);
        rc = exec_stmt(ms, pr->stmts[i], res, err);
        if (rc < 0) {
            sl_ddl_error_prefix(err);
            sl_result_fini(res);
            sl_result_init(res);
            break;
        }
    }
    sl_parse_result_free(pr);
    return rc;
}

int sl_memstore_append(sl_memstore *ms, const char *db, const char *table, const sl_block *rows,
                       sl_error *err)
{
    sl_pos nopos = {0, 0};
    sl_error_clear(err);
    sl__ms_db *d = db ? sl__ms_find_db(ms, db) : ms->m_cur;
    if (d == NULL)
        return db ? sl_ddl_error(err, SL_ENOTFOUND, nopos, "database '%s' does not exist", db)
                  : sl_ddl_error(err, SL_ENOTFOUND, nopos, "no database selected");
    sl__ms_table *t = sl__ms_find_table(d, table);
    if (t == NULL)
        return sl_ddl_error(err, SL_ENOTFOUND, nopos, "table '%s' does not exist in database '%s'",
                            table, d->d_name);
    if (t->t_kind == SL_TABLE_SUPER)
        return sl_ddl_error(err, SL_EINVAL, nopos,
                            "'%s' is a super table: append to one of its child tables", t->t_name);
    return sl__ms_table_append(t, rows, err);
}
