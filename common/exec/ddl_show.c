/*
 * ddl_show.c - SHOW DATABASES/STABLES/TABLES, SHOW CREATE ... and DESCRIBE over any store
 * (ddl.h).
 *
 * The rows come from the store's sl_ddl_source; the columns, their order, the sorting by
 * name and the CREATE text are defined here once, so the embedded store and the cluster
 * answer these statements identically.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ddl.h"

static int oom(sl_error *err, sl_pos pos)
{
    return sl_ddl_error(err, SL_ENOMEM, pos, "out of memory");
}

static int cmp_names(const char *x, const char *y)
{
    int c = strcasecmp(x, y);
    return c ? c : strcmp(x, y);
}

/* ------------------------------------------------------------ collecting */

/* A growing vector of databases or tables (one of the two arrays is used). */
typedef struct collect {
    sl_ddl_db *dbs;
    sl_ddl_table *tabs;
    size_t n, cap;
    const char *like; /* filter on names, NULL: none */
    int want;         /* tables: 1 super only, 0 child and normal only */
} collect;

static int grow(collect *c, size_t elem, void **arr)
{
    if (c->n < c->cap)
        return 0;
    size_t cap = c->cap ? c->cap * 2 : 16;
    void *p = realloc(*arr, cap * elem);
    if (p == NULL)
        return SL_ENOMEM;
    *arr = p;
    c->cap = cap;
    return 0;
}

static int collect_db(void *arg, const sl_ddl_db *db)
{
    collect *c = arg;
    if (c->like != NULL && !sl_ddl_like(c->like, db->name))
        return 0;
    if (grow(c, sizeof(*c->dbs), (void **)&c->dbs) < 0)
        return SL_ENOMEM;
    c->dbs[c->n++] = *db;
    return 0;
}

static int collect_table(void *arg, const sl_ddl_table *t)
{
    collect *c = arg;
    if ((t->kind == SL_TABLE_SUPER) != (c->want == 1))
        return 0;
    if (c->like != NULL && !sl_ddl_like(c->like, t->name))
        return 0;
    if (grow(c, sizeof(*c->tabs), (void **)&c->tabs) < 0)
        return SL_ENOMEM;
    c->tabs[c->n++] = *t;
    return 0;
}

static int cmp_db(const void *a, const void *b)
{
    return cmp_names(((const sl_ddl_db *)a)->name, ((const sl_ddl_db *)b)->name);
}

static int cmp_table(const void *a, const void *b)
{
    return cmp_names(((const sl_ddl_table *)a)->name, ((const sl_ddl_table *)b)->name);
}

/* ------------------------------------------------------------ SHOW DATABASES / TABLES */

static int show_databases(const sl_ddl_source *src, const sl_show *sh, sl_result *res)
{
    static const char *const names[] = {"name", "precision", "vgroups", "ntables"};
    static const sl_type types[] = {SL_T_VARCHAR, SL_T_VARCHAR, SL_T_INT, SL_T_BIGINT};
    static const uint32_t widths[] = {SL_NAME_MAX, 2, 0, 0};
    if (sl_result_setup(res, 4, names, types, widths) < 0)
        return SL_ENOMEM;
    collect c = {.like = sh->like};
    int rc = src->ops->each_db(src->ud, collect_db, &c);
    if (rc == 0 && c.n > 0)
        qsort(c.dbs, c.n, sizeof(*c.dbs), cmp_db);
    for (size_t i = 0; rc == 0 && i < c.n; i++) {
        const sl_ddl_db *db = &c.dbs[i];
        if (sl_result_put_str(res, 0, db->name) < 0 ||
            sl_result_put_str(res, 1, sl_precision_name(db->precision)) < 0 ||
            sl_column_append_i64(&res->rows.cols[2], db->vgroups) < 0 ||
            sl_column_append_i64(&res->rows.cols[3], db->ntables) < 0)
            rc = SL_ENOMEM;
    }
    free(c.dbs);
    if (rc == 0)
        sl_block_seal(&res->rows);
    return rc;
}

static int show_tables(const sl_ddl_source *src, const sl_ddl_db *db, const sl_show *sh,
                       bool stables, sl_result *res)
{
    static const char *const snames[] = {"stable_name", "columns", "tags", "tables"};
    static const sl_type stypes[] = {SL_T_VARCHAR, SL_T_INT, SL_T_INT, SL_T_BIGINT};
    static const uint32_t swidths[] = {SL_TABLE_NAME_MAX, 0, 0, 0};
    static const char *const tnames[] = {"table_name", "stable_name", "type", "columns"};
    static const sl_type ttypes[] = {SL_T_VARCHAR, SL_T_VARCHAR, SL_T_VARCHAR, SL_T_INT};
    static const uint32_t twidths[] = {SL_TABLE_NAME_MAX, SL_TABLE_NAME_MAX, 12, 0};
    if (sl_result_setup(res, 4, stables ? snames : tnames, stables ? stypes : ttypes,
                        stables ? swidths : twidths) < 0)
        return SL_ENOMEM;
    collect c = {.like = sh->like, .want = stables ? 1 : 0};
    int rc = src->ops->each_table(src->ud, db, collect_table, &c);
    if (rc == 0 && c.n > 0)
        qsort(c.tabs, c.n, sizeof(*c.tabs), cmp_table);
    for (size_t i = 0; rc == 0 && i < c.n; i++) {
        const sl_ddl_table *t = &c.tabs[i];
        if (stables) {
            if (sl_result_put_str(res, 0, t->name) < 0 ||
                sl_column_append_i64(&res->rows.cols[1], t->ncols) < 0 ||
                sl_column_append_i64(&res->rows.cols[2], t->ntags) < 0 ||
                sl_column_append_i64(&res->rows.cols[3], t->nchildren) < 0)
                rc = SL_ENOMEM;
        } else {
            bool child = t->kind == SL_TABLE_CHILD;
            if (sl_result_put_str(res, 0, t->name) < 0 ||
                sl_result_put_str(res, 1, child ? t->stable : NULL) < 0 ||
                sl_result_put_str(res, 2, child ? "CHILD_TABLE" : "NORMAL_TABLE") < 0 ||
                sl_column_append_i64(&res->rows.cols[3], t->ncols) < 0)
                rc = SL_ENOMEM;
        }
    }
    free(c.tabs);
    if (rc == 0)
        sl_block_seal(&res->rows);
    return rc;
}

/* ------------------------------------------------------------ SHOW CREATE */

/* Appends `name` quoted with backticks. */
static int put_ident(sl_buf *b, const char *name)
{
    return sl_buf_printf(b, "`%s`", name);
}

/* Appends "(name type, ...)"; key: the second field is the COMPOSITE KEY. */
static int put_fields(sl_buf *b, const sl_field *f, int n, bool key)
{
    int rc = sl_buf_put(b, "(", 1);
    for (int i = 0; rc == 0 && i < n; i++) {
        char ty[48];
        rc = sl_buf_printf(b, "%s", i ? ", " : "");
        if (rc == 0)
            rc = put_ident(b, f[i].name);
        if (rc == 0)
            rc = sl_buf_printf(b, " %s", sl_ddl_type_str(f[i].type, f[i].width, ty, sizeof(ty)));
        if (rc == 0 && key && i == 1)
            rc = sl_buf_printf(b, " COMPOSITE KEY");
    }
    return rc ? rc : sl_buf_put(b, ")", 1);
}

/* Appends a tag value as an SQL literal. */
static int put_literal(sl_buf *b, const sl_column *c, sl_precision prec)
{
    sl_value v;
    sl_column_get(c, 0, &v);
    if (v.is_null)
        return sl_buf_printf(b, "NULL");
    if (sl_type_is_var(v.type)) {
        int rc = sl_buf_put(b, "'", 1);
        for (uint32_t i = 0; rc == 0 && i < v.v.s.len; i++) {
            char ch = v.v.s.ptr[i];
            rc = ch == '\'' ? sl_buf_put(b, "''", 2) : sl_buf_put(b, &ch, 1);
        }
        return rc ? rc : sl_buf_put(b, "'", 1);
    }
    if (v.type == SL_T_TIMESTAMP)
        return sl_buf_printf(b, "%lld", (long long)v.v.i); /* an epoch count reads back */
    char tmp[64];
    if (sl_value_format(&v, prec, tmp, sizeof(tmp)) < 0)
        return SL_EINVAL;
    return sl_buf_printf(b, "%s", tmp);
}

static int show_create(const sl_ddl_source *src, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_show *sh = &st->u.show;
    sl_buf b;
    sl_buf_init(&b);
    const char *what = "Table";
    const char *obj = sh->name.name;
    int rc = 0;
    sl_ddl_db db;
    if (sh->kind == SL_SHOW_CREATE_DATABASE) {
        if (!src->ops->find_db(src->ud, sh->name.name, &db))
            return sl_ddl_error(err, SL_ENOTFOUND, sh->name.pos, "database '%s' does not exist",
                                sh->name.name);
        what = "Database";
        obj = db.name;
        rc = sl_buf_printf(&b, "CREATE DATABASE `%s` PRECISION '%s' VGROUPS %lld", db.name,
                           sl_precision_name(db.precision), (long long)db.vgroups);
    } else {
        if (sh->name.db != NULL) {
            if (!src->ops->find_db(src->ud, sh->name.db, &db))
                return sl_ddl_error(err, SL_ENOTFOUND, sh->name.pos, "database '%s' does not exist",
                                    sh->name.db);
        } else if (src->current_db == NULL) {
            return sl_ddl_error(err, SL_ENOTFOUND, sh->name.pos,
                                "no database selected for '%s': USE a database or write db.%s",
                                sh->name.name, sh->name.name);
        } else if (!src->ops->find_db(src->ud, src->current_db, &db)) {
            return sl_ddl_error(err, SL_ENOTFOUND, sh->name.pos, "database '%s' does not exist",
                                src->current_db);
        }
        sl_ddl_table t;
        if (!src->ops->find_table(src->ud, &db, sh->name.name, &t))
            return sl_ddl_error(err, SL_ENOTFOUND, sh->name.pos,
                                "table '%s' does not exist in database '%s'", sh->name.name,
                                db.name);
        bool want_super = sh->kind == SL_SHOW_CREATE_STABLE;
        if (want_super != (t.kind == SL_TABLE_SUPER))
            return sl_ddl_error(err, SL_EINVAL, sh->name.pos, "'%s' is a %s: use SHOW CREATE %s",
                                t.name, sl_ddl_kind_desc(t.kind),
                                t.kind == SL_TABLE_SUPER ? "STABLE" : "TABLE");
        obj = t.name;
        if (t.kind == SL_TABLE_CHILD) {
            rc = sl_buf_printf(&b, "CREATE TABLE `%s` USING `%s` (", t.name, t.stable);
            for (int i = 0; rc == 0 && i < t.ntags; i++) {
                rc = sl_buf_printf(&b, "%s", i ? ", " : "");
                if (rc == 0)
                    rc = put_ident(&b, t.tags[i].name);
            }
            if (rc == 0)
                rc = sl_buf_printf(&b, ") TAGS (");
            for (int i = 0; rc == 0 && i < t.ntags; i++) {
                rc = sl_buf_printf(&b, "%s", i ? ", " : "");
                if (rc == 0)
                    rc = put_literal(&b, &t.tagvals->cols[i], db.precision);
            }
            if (rc == 0)
                rc = sl_buf_put(&b, ")", 1);
        } else {
            what = t.kind == SL_TABLE_SUPER ? "STable" : "Table";
            rc = sl_buf_printf(&b, "CREATE %s `%s` ", t.kind == SL_TABLE_SUPER ? "STABLE" : "TABLE",
                               t.name);
            if (rc == 0)
                rc = put_fields(&b, t.cols, t.ncols, t.composite_key);
            if (rc == 0 && t.kind == SL_TABLE_SUPER) {
                rc = sl_buf_printf(&b, " TAGS ");
                if (rc == 0)
                    rc = put_fields(&b, t.tags, t.ntags, false);
            }
        }
    }
    char create[32];
    snprintf(create, sizeof(create), "Create %s", what);
    const char *names[] = {what, create};
    static const sl_type types[] = {SL_T_VARCHAR, SL_T_VARCHAR};
    const uint32_t widths[] = {SL_TABLE_NAME_MAX, (uint32_t)(b.len > 0 ? b.len : 1)};
    if (rc == 0)
        rc = sl_buf_put_u8(&b, 0);
    if (rc == 0)
        rc = sl_result_setup(res, 2, names, types, widths);
    if (rc == 0)
        rc = sl_result_put_str(res, 0, obj);
    if (rc == 0)
        rc = sl_result_put_str(res, 1, (const char *)b.data);
    if (rc == 0)
        sl_block_seal(&res->rows);
    sl_buf_fini(&b);
    return rc < 0 ? oom(err, st->pos) : 0;
}

/* ------------------------------------------------------------ entry points */

bool sl_ddl_show_handles(sl_show_kind kind)
{
    switch (kind) {
    case SL_SHOW_DATABASES:
    case SL_SHOW_STABLES:
    case SL_SHOW_TABLES:
    case SL_SHOW_CREATE_DATABASE:
    case SL_SHOW_CREATE_STABLE:
    case SL_SHOW_CREATE_TABLE: return true;
    default: return false;
    }
}

int sl_ddl_show(const sl_ddl_source *src, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_show *sh = &st->u.show;
    int rc;
    switch (sh->kind) {
    case SL_SHOW_DATABASES: rc = show_databases(src, sh, res); break;
    case SL_SHOW_STABLES:
    case SL_SHOW_TABLES: {
        const char *name = sh->db ? sh->db : src->current_db;
        sl_ddl_db db;
        if (name == NULL)
            return sl_ddl_error(err, SL_ENOTFOUND, st->pos,
                                "no database selected: USE a database or write SHOW db.%s",
                                sh->kind == SL_SHOW_STABLES ? "STABLES" : "TABLES");
        if (!src->ops->find_db(src->ud, name, &db))
            return sl_ddl_error(err, SL_ENOTFOUND, st->pos, "database '%s' does not exist", name);
        rc = show_tables(src, &db, sh, sh->kind == SL_SHOW_STABLES, res);
        break;
    }
    case SL_SHOW_CREATE_DATABASE:
    case SL_SHOW_CREATE_STABLE:
    case SL_SHOW_CREATE_TABLE: return show_create(src, st, res, err);
    default:
        return sl_ddl_error(err, SL_EUNSUPPORTED, st->pos,
                            "this SHOW statement is not handled here");
    }
    if (rc < 0)
        return oom(err, st->pos);
    return 0;
}

int sl_ddl_describe(const sl_ddl_source *src, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_qname *q = &st->u.describe;
    sl_ddl_db db;
    if (q->db != NULL) {
        if (!src->ops->find_db(src->ud, q->db, &db))
            return sl_ddl_error(err, SL_ENOTFOUND, q->pos, "database '%s' does not exist", q->db);
    } else if (src->current_db == NULL) {
        return sl_ddl_error(err, SL_ENOTFOUND, q->pos,
                            "no database selected for '%s': USE a database or write db.%s", q->name,
                            q->name);
    } else if (!src->ops->find_db(src->ud, src->current_db, &db)) {
        return sl_ddl_error(err, SL_ENOTFOUND, q->pos, "database '%s' does not exist",
                            src->current_db);
    }
    sl_ddl_table t;
    if (!src->ops->find_table(src->ud, &db, q->name, &t))
        return sl_ddl_error(err, SL_ENOTFOUND, q->pos, "table '%s' does not exist in database '%s'",
                            q->name, db.name);
    static const char *const names[] = {"field", "type", "length", "note"};
    static const sl_type types[] = {SL_T_VARCHAR, SL_T_VARCHAR, SL_T_INT, SL_T_VARCHAR};
    static const uint32_t widths[] = {SL_NAME_MAX, 32, 0, 16};
    if (sl_result_setup(res, 4, names, types, widths) < 0)
        return oom(err, st->pos);
    for (int i = 0; i < t.ncols + t.ntags; i++) {
        const sl_field *f = i < t.ncols ? &t.cols[i] : &t.tags[i - t.ncols];
        int64_t len = sl_type_is_var(f->type) ? (int64_t)f->width : (int64_t)sl_type_size(f->type);
        if (sl_result_put_str(res, 0, f->name) < 0 ||
            sl_result_put_str(res, 1, sl_type_name(f->type)) < 0 ||
            sl_column_append_i64(&res->rows.cols[2], len) < 0 ||
            sl_result_put_str(res, 3,
                              i >= t.ncols        ? "TAG"
                              : t.composite_key && i == 1 ? "COMPOSITE KEY"
                                                 : "") < 0)
            return oom(err, st->pos);
    }
    sl_block_seal(&res->rows);
    return 0;
}
