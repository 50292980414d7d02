/*
 * memstore_ddl.c - DDL, SHOW and DESCRIBE statements of the embedded store.
 *
 * Each handler checks the whole statement first (names, types, limits, existence, tag
 * values) and allocates every object it will link, then links them in a second phase that
 * cannot fail, so a refused statement leaves the store unchanged. Messages name the
 * object and the rule, at the position of the offending AST node.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "memstore_int.h"

/* ------------------------------------------------------------ helpers */

static const char *kind_desc(sl_table_kind k)
{
    switch (k) {
    case SL_TABLE_SUPER: return "super table";
    case SL_TABLE_CHILD: return "child table";
    default: return "table";
    }
}

/* "INT", "VARCHAR(64)": a field's type as written in DDL. */
static const char *field_type_str(const sl_field *f, char *buf, size_t n)
{
    if (sl_type_is_var(f->type))
        snprintf(buf, n, "%s(%u)", sl_type_name(f->type), f->width);
    else
        snprintf(buf, n, "%s", sl_type_name(f->type));
    return buf;
}

static int oom(sl_error *err, sl_pos pos)
{
    return sl__ms_error(err, SL_ENOMEM, pos, "out of memory");
}

/*
 * SQL LIKE over names, case-insensitively: '%' matches any run, '_' one byte, '\' quotes
 * the next character. Greedy with backtracking to the last '%'.
 */
static bool like_match(const char *pat, const char *s)
{
    const char *star_p = NULL, *star_s = NULL;
    while (*s != '\0') {
        if (*pat == '%') {
            star_p = ++pat;
            star_s = s;
            continue;
        }
        const char *pc = pat;
        bool quoted = false;
        if (*pc == '\\' && pc[1] != '\0') {
            pc++;
            quoted = true;
        }
        if (*pc != '\0' && ((!quoted && *pc == '_') ||
                            tolower((unsigned char)*pc) == tolower((unsigned char)*s))) {
            pat = pc + 1;
            s++;
            continue;
        }
        if (star_p == NULL)
            return false;
        pat = star_p;
        s = ++star_s;
    }
    while (*pat == '%')
        pat++;
    return *pat == '\0';
}

static int cmp_table_names(const void *a, const void *b)
{
    const sl__ms_table *x = *(sl__ms_table *const *)a, *y = *(sl__ms_table *const *)b;
    int c = strcasecmp(x->t_name, y->t_name);
    return c ? c : strcmp(x->t_name, y->t_name);
}

static int cmp_db_names(const void *a, const void *b)
{
    const sl__ms_db *x = *(sl__ms_db *const *)a, *y = *(sl__ms_db *const *)b;
    int c = strcasecmp(x->d_name, y->d_name);
    return c ? c : strcmp(x->d_name, y->d_name);
}

/* Every table of db (all kinds), sorted by name; caller frees. NULL on exhaustion. */
static sl__ms_table **sorted_tables(const sl__ms_db *db, uint32_t *n)
{
    sl__ms_table **v = malloc((size_t)(db->d_ntables ? db->d_ntables : 1) * sizeof(*v));
    if (v == NULL)
        return NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < db->d_nslots; i++)
        if (db->d_slots[i] != NULL)
            v[k++] = db->d_slots[i];
    qsort(v, k, sizeof(*v), cmp_table_names);
    *n = k;
    return v;
}

/* ------------------------------------------------------------ databases */

int sl__ms_create_database(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_create_database *cd = &st->u.create_db;
    if (strlen(cd->name) > SL_NAME_MAX)
        return sl__ms_error(err, SL_ELIMIT, st->pos, "database name '%s' is longer than %d bytes",
                            cd->name, SL_NAME_MAX);
    sl_precision prec = SL_PREC_MS;
    if (cd->precision != NULL && sl_precision_parse(cd->precision, &prec) < 0)
        return sl__ms_error(err, SL_EINVAL, cd->precision_pos,
                            "invalid PRECISION '%s': use 'ms', 'us' or 'ns'", cd->precision);
    int64_t vgroups = SL__MS_VGROUPS_DEFAULT;
    if (cd->vgroups != -1) {
        if (cd->vgroups < 1 || cd->vgroups > SL__MS_VGROUPS_MAX)
            return sl__ms_error(err, SL_ERANGE, cd->vgroups_pos,
                                "VGROUPS must be between 1 and %d, got %lld", SL__MS_VGROUPS_MAX,
                                (long long)cd->vgroups);
        vgroups = cd->vgroups;
    }
    res->affected = 0;
    if (sl__ms_find_db(ms, cd->name) != NULL) {
        if (cd->if_not_exists)
            return 0;
        return sl__ms_error(err, SL_EEXIST, st->pos, "database '%s' already exists", cd->name);
    }
    if (ms->m_ndbs == ms->m_capdbs) {
        int cap = ms->m_capdbs ? ms->m_capdbs * 2 : 4;
        sl__ms_db **p = realloc(ms->m_dbs, (size_t)cap * sizeof(*p));
        if (p == NULL)
            return oom(err, st->pos);
        ms->m_dbs = p;
        ms->m_capdbs = cap;
    }
    sl__ms_db *db = calloc(1, sizeof(*db));
    if (db == NULL || (db->d_name = strdup(cd->name)) == NULL) {
        free(db);
        return oom(err, st->pos);
    }
    db->d_prec = prec;
    db->d_vgroups = vgroups;
    ms->m_dbs[ms->m_ndbs++] = db;
    return 0;
}

int sl__ms_drop_database(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_drop *d = &st->u.drop;
    res->affected = 0;
    for (int k = 0; k < d->n; k++) {
        if (sl__ms_find_db(ms, d->names[k].name) == NULL && !d->if_exists)
            return sl__ms_error(err, SL_ENOTFOUND, d->names[k].pos, "database '%s' does not exist",
                                d->names[k].name);
    }
    for (int k = 0; k < d->n; k++) {
        for (int i = 0; i < ms->m_ndbs; i++) {
            sl__ms_db *db = ms->m_dbs[i];
            if (!sl__ms_name_eq(db->d_name, d->names[k].name))
                continue;
            if (ms->m_cur == db)
                ms->m_cur = NULL;
            memmove(&ms->m_dbs[i], &ms->m_dbs[i + 1],
                    (size_t)(ms->m_ndbs - i - 1) * sizeof(ms->m_dbs[0]));
            ms->m_ndbs--;
            sl__ms_db_free(db);
            break;
        }
    }
    return 0;
}

int sl__ms_use(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    sl__ms_db *db = sl__ms_find_db(ms, st->u.use_db);
    if (db == NULL)
        return sl__ms_error(err, SL_ENOTFOUND, st->pos, "database '%s' does not exist",
                            st->u.use_db);
    ms->m_cur = db;
    res->affected = 0;
    return 0;
}

/* ------------------------------------------------------------ schemas */

/* Checks one column or tag definition (what: "column" or "tag"). */
static int check_def(const sl_column_def *c, const char *what, sl_error *err)
{
    if (strlen(c->name) > SL_NAME_MAX)
        return sl__ms_error(err, SL_ELIMIT, c->pos, "%s name '%s' is longer than %d bytes", what,
                            c->name, SL_NAME_MAX);
    if (sl__ms_name_eq(c->name, "tbname"))
        return sl__ms_error(err, SL_EINVAL, c->pos,
                            "'%s' is reserved for the table name and cannot be a %s", c->name,
                            what);
    if (c->type == SL_T_NULL || c->type >= SL_T__COUNT)
        return sl__ms_error(err, SL_ETYPE, c->pos, "%s '%s' has no valid type", what, c->name);
    if (sl_type_is_var(c->type)) {
        if (!c->width_given)
            return sl__ms_error(err, SL_EINVAL, c->pos, "%s needs a length, e.g. %s(64)",
                                sl_type_name(c->type), sl_type_name(c->type));
        if (c->width < 1 || c->width > SL_VARCHAR_MAX)
            return sl__ms_error(err, SL_ERANGE, c->pos,
                                "%s length must be between 1 and %d, got %u", sl_type_name(c->type),
                                SL_VARCHAR_MAX, c->width);
    }
    if (c->composite_key)
        return sl__ms_error(err, SL_EUNSUPPORTED, c->pos,
                            "COMPOSITE KEY ('%s') is not supported by the embedded store", c->name);
    return 0;
}

/* Checks the columns and tags of a CREATE STABLE / CREATE TABLE. */
static int check_schema(const sl_column_def *cols, int ncols, const sl_column_def *tags, int ntags,
                        sl_pos pos, sl_error *err)
{
    if (ncols == 0)
        return sl__ms_error(err, SL_EINVAL, pos, "a table needs a TIMESTAMP first column");
    if (ncols > SL_MAX_COLUMNS)
        return sl__ms_error(err, SL_ELIMIT, cols[SL_MAX_COLUMNS].pos,
                            "too many columns: %d (at most %d)", ncols, SL_MAX_COLUMNS);
    if (ntags > SL_MAX_TAGS)
        return sl__ms_error(err, SL_ELIMIT, tags[SL_MAX_TAGS].pos, "too many tags: %d (at most %d)",
                            ntags, SL_MAX_TAGS);
    if (cols[0].type != SL_T_TIMESTAMP)
        return sl__ms_error(err, SL_ETYPE, cols[0].pos,
                            "the first column must be a TIMESTAMP, '%s' is %s", cols[0].name,
                            sl_type_name(cols[0].type));
    for (int i = 0; i < ncols; i++) {
        int rc = check_def(&cols[i], "column", err);
        if (rc < 0)
            return rc;
        for (int j = 0; j < i; j++)
            if (sl__ms_name_eq(cols[i].name, cols[j].name))
                return sl__ms_error(err, SL_EEXIST, cols[i].pos, "duplicate column name '%s'",
                                    cols[i].name);
    }
    for (int i = 0; i < ntags; i++) {
        int rc = check_def(&tags[i], "tag", err);
        if (rc < 0)
            return rc;
        for (int j = 0; j < i; j++)
            if (sl__ms_name_eq(tags[i].name, tags[j].name))
                return sl__ms_error(err, SL_EEXIST, tags[i].pos, "duplicate tag name '%s'",
                                    tags[i].name);
        for (int j = 0; j < ncols; j++)
            if (sl__ms_name_eq(tags[i].name, cols[j].name))
                return sl__ms_error(err, SL_EEXIST, tags[i].pos,
                                    "tag '%s' has the same name as a column", tags[i].name);
    }
    return 0;
}

/* Copies definitions into owned fields. NULL on exhaustion. */
static sl_field *make_fields(const sl_column_def *defs, int n)
{
    sl_field *f = calloc((size_t)(n > 0 ? n : 1), sizeof(*f));
    if (f == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        f[i].name = strdup(defs[i].name);
        f[i].type = defs[i].type;
        f[i].width = sl_type_is_var(defs[i].type) ? defs[i].width : 0;
        if (f[i].name == NULL) {
            for (int j = 0; j < i; j++)
                free((char *)f[j].name);
            free(f);
            return NULL;
        }
    }
    return f;
}

static int check_table_name(const sl_qname *q, sl_error *err)
{
    if (strlen(q->name) > SL_TABLE_NAME_MAX)
        return sl__ms_error(err, SL_ELIMIT, q->pos, "table name '%s' is longer than %d bytes",
                            q->name, SL_TABLE_NAME_MAX);
    return 0;
}

/* Shared by CREATE STABLE and CREATE TABLE (normal). */
static int create_with_schema(sl_memstore *ms, const sl_stmt *st, bool if_not_exists,
                              const sl_qname *name, const sl_column_def *cols, int ncols,
                              const sl_column_def *tags, int ntags, sl_table_kind kind,
                              sl_result *res, sl_error *err)
{
    sl__ms_db *db;
    int rc = sl__ms_resolve_db(ms, name, &db, err);
    if (rc < 0)
        return rc;
    if ((rc = check_table_name(name, err)) < 0)
        return rc;
    if (kind == SL_TABLE_SUPER && ntags == 0)
        return sl__ms_error(err, SL_EINVAL, st->pos, "super table '%s' needs at least one tag",
                            name->name);
    if ((rc = check_schema(cols, ncols, tags, ntags, st->pos, err)) < 0)
        return rc;
    res->affected = 0;
    sl__ms_table *old = sl__ms_find_table(db, name->name);
    if (old != NULL) {
        if (if_not_exists)
            return 0;
        return sl__ms_error(err, SL_EEXIST, name->pos, "%s '%s' already exists",
                            kind_desc(old->t_kind), old->t_name);
    }
    sl__ms_table *t = sl__ms_table_new(db, kind, name->name);
    if (t == NULL)
        return oom(err, name->pos);
    t->t_cols = make_fields(cols, ncols);
    if (t->t_cols == NULL)
        goto fail;
    t->t_ncols = ncols;
    if (ntags > 0) {
        t->t_tags = make_fields(tags, ntags);
        if (t->t_tags == NULL)
            goto fail;
        t->t_ntags = ntags;
    }
    if (kind != SL_TABLE_SUPER && sl__ms_rows_init(t) < 0)
        goto fail;
    if (sl__ms_reserve_tables(db, 1) < 0)
        goto fail;
    sl__ms_link_table(db, t);
    return 0;
fail:
    sl__ms_table_free(t);
    return oom(err, name->pos);
}

int sl__ms_create_stable(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_create_stable *c = &st->u.create_stable;
    return create_with_schema(ms, st, c->if_not_exists, &c->name, c->cols, c->ncols, c->tags,
                              c->ntags, SL_TABLE_SUPER, res, err);
}

int sl__ms_create_table(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_create_table *c = &st->u.create_table;
    return create_with_schema(ms, st, c->if_not_exists, &c->name, c->cols, c->ncols, NULL, 0,
                              SL_TABLE_NORMAL, res, err);
}

/* ------------------------------------------------------------ child tables */

int sl__ms_build_tags(sl_memstore *ms, const sl__ms_table *st, int ntag_names,
                      const char *const *tag_names, const sl_pos *tag_name_pos,
                      const sl_expr_list *values, sl_pos pos, sl_block *out, sl_error *err)
{
    int ntags = st->t_ntags;
    int inv[SL_MAX_TAGS]; /* tag index -> value index, or -1 */
    for (int k = 0; k < ntags; k++)
        inv[k] = -1;
    sl_pos vpos = values->n > 0 ? values->items[0]->pos : pos;
    if (ntag_names > 0) {
        if (values->n != ntag_names)
            return sl__ms_error(err, SL_EINVAL, vpos, "%d tag names but %d tag values given",
                                ntag_names, values->n);
        for (int i = 0; i < ntag_names; i++) {
            int k = 0;
            while (k < ntags && !sl__ms_name_eq(st->t_tags[k].name, tag_names[i]))
                k++;
            if (k == ntags)
                return sl__ms_error(err, SL_ENOTFOUND, tag_name_pos[i],
                                    "super table '%s' has no tag '%s'", st->t_name, tag_names[i]);
            if (inv[k] >= 0)
                return sl__ms_error(err, SL_EINVAL, tag_name_pos[i], "tag '%s' is given twice",
                                    tag_names[i]);
            inv[k] = i;
        }
    } else {
        if (values->n != ntags)
            return sl__ms_error(err, SL_EINVAL, vpos,
                                "super table '%s' has %d tag%s, %d tag value%s given", st->t_name,
                                ntags, ntags == 1 ? "" : "s", values->n, values->n == 1 ? "" : "s");
        for (int k = 0; k < ntags; k++)
            inv[k] = k;
    }
    sl_precision prec = st->t_db->d_prec;
    sl_block_init(out);
    int rc = 0;
    for (int k = 0; k < ntags; k++) {
        const sl_field *f = &st->t_tags[k];
        int ci = sl_block_add_column(out, f->type, f->width);
        if (ci < 0) {
            rc = oom(err, pos);
            goto fail;
        }
        sl_value v = sl_value_null(f->type);
        char buf[128];
        if (inv[k] >= 0) {
            rc = sl__ms_const_to(ms, values->items[inv[k]], f, "tag", prec, buf, sizeof(buf), &v,
                                 err);
            if (rc < 0)
                goto fail;
        }
        if (sl_column_append_value(&out->cols[ci], &v) < 0) {
            rc = oom(err, pos);
            goto fail;
        }
    }
    out->nrows = 1;
    return 0;
fail:
    sl_block_fini(out);
    sl_block_init(out);
    return rc;
}

/* Finds a super table for a child: errors name what is wrong (memstore_int.h). */
int sl__ms_find_super(sl_memstore *ms, const sl_qname *q, sl__ms_db *child_db, sl__ms_table **out,
                      sl_error *err)
{
    sl__ms_db *sdb;
    int rc = sl__ms_resolve_db(ms, q, &sdb, err);
    if (rc < 0)
        return rc;
    sl__ms_table *st = sl__ms_find_table(sdb, q->name);
    if (st == NULL)
        return sl__ms_error(err, SL_ENOTFOUND, q->pos, "super table '%s' does not exist", q->name);
    if (st->t_kind != SL_TABLE_SUPER)
        return sl__ms_error(err, SL_EINVAL, q->pos, "'%s' is a %s, not a super table", st->t_name,
                            kind_desc(st->t_kind));
    if (sdb != child_db)
        return sl__ms_error(err, SL_EINVAL, q->pos,
                            "super table '%s' is in database '%s': a child table must be in "
                            "the same database",
                            st->t_name, sdb->d_name);
    *out = st;
    return 0;
}

int sl__ms_create_subtables(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_create_subtables *cs = &st->u.create_subtables;
    sl__ms_table **news = calloc((size_t)(cs->n > 0 ? cs->n : 1), sizeof(*news));
    if (news == NULL)
        return oom(err, st->pos);
    int rc = 0;
    for (int i = 0; i < cs->n; i++) {
        const sl_create_subtable *it = &cs->items[i];
        sl__ms_db *db = NULL;
        sl__ms_table *sup = NULL;
        if ((rc = sl__ms_resolve_db(ms, &it->name, &db, err)) < 0 ||
            (rc = check_table_name(&it->name, err)) < 0 ||
            (rc = sl__ms_find_super(ms, &it->stable, db, &sup, err)) < 0)
            goto fail;
        sl__ms_table *old = sl__ms_find_table(db, it->name.name);
        for (int j = 0; old == NULL && j < i; j++)
            if (news[j] != NULL && news[j]->t_db == db &&
                sl__ms_name_eq(news[j]->t_name, it->name.name))
                old = news[j];
        if (old != NULL) {
            if (it->if_not_exists)
                continue;
            rc = sl__ms_error(err, SL_EEXIST, it->name.pos, "%s '%s' already exists",
                              kind_desc(old->t_kind), it->name.name);
            goto fail;
        }
        sl__ms_table *t = sl__ms_table_new(db, SL_TABLE_CHILD, it->name.name);
        if (t == NULL) {
            rc = oom(err, it->name.pos);
            goto fail;
        }
        t->t_super = sup;
        news[i] = t;
        if (sl__ms_rows_init(t) < 0) {
            rc = oom(err, it->name.pos);
            goto fail;
        }
        rc = sl__ms_build_tags(ms, sup, it->ntag_names, it->tag_names, it->tag_name_pos,
                               &it->tag_values, it->stable.pos, &t->t_tagvals, err);
        if (rc < 0)
            goto fail;
    }
    /* Reserve everything linking needs, then link: nothing below can fail. */
    for (int i = 0; i < cs->n; i++) {
        if (news[i] == NULL)
            continue;
        if (sl__ms_reserve_tables(news[i]->t_db, (uint32_t)cs->n) < 0 ||
            sl__ms_reserve_children(news[i]->t_super, cs->n) < 0) {
            rc = oom(err, st->pos);
            goto fail;
        }
    }
    for (int i = 0; i < cs->n; i++)
        if (news[i] != NULL)
            sl__ms_link_table(news[i]->t_db, news[i]);
    free(news);
    res->affected = 0;
    return 0;
fail:
    for (int i = 0; i < cs->n; i++)
        sl__ms_table_free(news[i]);
    free(news);
    return rc;
}

/* ------------------------------------------------------------ DROP TABLE / STABLE */

int sl__ms_drop_tables(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_drop *d = &st->u.drop;
    bool stable = st->kind == SL_STMT_DROP_STABLE;
    sl__ms_table **victims = calloc((size_t)(d->n > 0 ? d->n : 1), sizeof(*victims));
    if (victims == NULL)
        return oom(err, st->pos);
    int rc = 0;
    for (int i = 0; i < d->n; i++) {
        sl__ms_db *db;
        if ((rc = sl__ms_resolve_db(ms, &d->names[i], &db, err)) < 0)
            goto done;
        sl__ms_table *t = sl__ms_find_table(db, d->names[i].name);
        if (t == NULL) {
            if (d->if_exists)
                continue;
            rc = sl__ms_error(err, SL_ENOTFOUND, d->names[i].pos, "%s '%s' does not exist",
                              stable ? "super table" : "table", d->names[i].name);
            goto done;
        }
        if (stable && t->t_kind != SL_TABLE_SUPER) {
            rc = sl__ms_error(err, SL_EINVAL, d->names[i].pos,
                              "'%s' is a %s, not a super table: use DROP TABLE", t->t_name,
                              kind_desc(t->t_kind));
            goto done;
        }
        if (!stable && t->t_kind == SL_TABLE_SUPER) {
            rc = sl__ms_error(err, SL_EINVAL, d->names[i].pos,
                              "'%s' is a super table: use DROP STABLE", t->t_name);
            goto done;
        }
        bool dup = false;
        for (int j = 0; j < i; j++)
            dup = dup || victims[j] == t;
        if (!dup)
            victims[i] = t;
    }
    for (int i = 0; i < d->n; i++)
        if (victims[i] != NULL)
            sl__ms_drop_table(victims[i]->t_db, victims[i]);
    res->affected = 0;
done:
    free(victims);
    return rc;
}

/* ------------------------------------------------------------ DESCRIBE */

int sl__ms_describe(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_qname *q = &st->u.describe;
    sl__ms_db *db;
    int rc = sl__ms_resolve_db(ms, q, &db, err);
    if (rc < 0)
        return rc;
    sl__ms_table *t = sl__ms_find_table(db, q->name);
    if (t == NULL)
        return sl__ms_error(err, SL_ENOTFOUND, q->pos, "table '%s' does not exist in database '%s'",
                            q->name, db->d_name);
    static const char *const names[] = {"field", "type", "length", "note"};
    static const sl_type types[] = {SL_T_VARCHAR, SL_T_VARCHAR, SL_T_INT, SL_T_VARCHAR};
    static const uint32_t widths[] = {SL_NAME_MAX, 32, 0, 8};
    if (sl__ms_result_init(res, 4, names, types, widths) < 0)
        return oom(err, st->pos);
    int nc = sl__ms_ncols(t), nt = sl__ms_ntags(t);
    const sl_field *cols = sl__ms_cols(t), *tags = sl__ms_tags(t);
    for (int i = 0; i < nc + nt; i++) {
        const sl_field *f = i < nc ? &cols[i] : &tags[i - nc];
        int64_t len = sl_type_is_var(f->type) ? (int64_t)f->width : (int64_t)sl_type_size(f->type);
        if (sl__ms_result_str(res, 0, f->name) < 0 ||
            sl__ms_result_str(res, 1, sl_type_name(f->type)) < 0 ||
            sl_column_append_i64(&res->rows.cols[2], len) < 0 ||
            sl__ms_result_str(res, 3, i < nc ? "" : "TAG") < 0)
            return oom(err, st->pos);
    }
    sl_block_seal(&res->rows);
    return 0;
}

/* ------------------------------------------------------------ SHOW */

static int show_databases(sl_memstore *ms, const sl_show *sh, sl_result *res)
{
    static const char *const names[] = {"name", "precision", "vgroups", "ntables"};
    static const sl_type types[] = {SL_T_VARCHAR, SL_T_VARCHAR, SL_T_INT, SL_T_BIGINT};
    static const uint32_t widths[] = {SL_NAME_MAX, 2, 0, 0};
    if (sl__ms_result_init(res, 4, names, types, widths) < 0)
        return SL_ENOMEM;
    sl__ms_db **v = malloc((size_t)(ms->m_ndbs ? ms->m_ndbs : 1) * sizeof(*v));
    if (v == NULL)
        return SL_ENOMEM;
    memcpy(v, ms->m_dbs, (size_t)ms->m_ndbs * sizeof(*v));
    qsort(v, (size_t)ms->m_ndbs, sizeof(*v), cmp_db_names);
    int rc = 0;
    for (int i = 0; rc == 0 && i < ms->m_ndbs; i++) {
        const sl__ms_db *db = v[i];
        if (sh->like != NULL && !like_match(sh->like, db->d_name))
            continue;
        int64_t ntables = 0;
        for (uint32_t k = 0; k < db->d_nslots; k++)
            if (db->d_slots[k] != NULL && db->d_slots[k]->t_kind != SL_TABLE_SUPER)
                ntables++;
        if (sl__ms_result_str(res, 0, db->d_name) < 0 ||
            sl__ms_result_str(res, 1, sl_precision_name(db->d_prec)) < 0 ||
            sl_column_append_i64(&res->rows.cols[2], db->d_vgroups) < 0 ||
            sl_column_append_i64(&res->rows.cols[3], ntables) < 0)
            rc = SL_ENOMEM;
    }
    free(v);
    if (rc == 0)
        sl_block_seal(&res->rows);
    return rc;
}

static int show_tables(sl__ms_db *db, const sl_show *sh, bool stables, sl_result *res)
{
    static const char *const snames[] = {"stable_name", "columns", "tags", "tables"};
    static const sl_type stypes[] = {SL_T_VARCHAR, SL_T_INT, SL_T_INT, SL_T_BIGINT};
    static const uint32_t swidths[] = {SL_TABLE_NAME_MAX, 0, 0, 0};
    static const char *const tnames[] = {"table_name", "stable_name", "type", "columns"};
    static const sl_type ttypes[] = {SL_T_VARCHAR, SL_T_VARCHAR, SL_T_VARCHAR, SL_T_INT};
    static const uint32_t twidths[] = {SL_TABLE_NAME_MAX, SL_TABLE_NAME_MAX, 12, 0};
    if (sl__ms_result_init(res, 4, stables ? snames : tnames, stables ? stypes : ttypes,
                           stables ? swidths : twidths) < 0)
        return SL_ENOMEM;
    uint32_t n = 0;
    sl__ms_table **v = sorted_tables(db, &n);
    if (v == NULL)
        return SL_ENOMEM;
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        const sl__ms_table *t = v[i];
        if ((t->t_kind == SL_TABLE_SUPER) != stables)
            continue;
        if (sh->like != NULL && !like_match(sh->like, t->t_name))
            continue;
        if (stables) {
            if (sl__ms_result_str(res, 0, t->t_name) < 0 ||
                sl_column_append_i64(&res->rows.cols[1], t->t_ncols) < 0 ||
                sl_column_append_i64(&res->rows.cols[2], t->t_ntags) < 0 ||
                sl_column_append_i64(&res->rows.cols[3], t->t_nchildren) < 0)
                rc = SL_ENOMEM;
        } else {
            if (sl__ms_result_str(res, 0, t->t_name) < 0 ||
                sl__ms_result_str(res, 1, t->t_super ? t->t_super->t_name : NULL) < 0 ||
                sl__ms_result_str(res, 2, t->t_super ? "CHILD_TABLE" : "NORMAL_TABLE") < 0 ||
                sl_column_append_i64(&res->rows.cols[3], sl__ms_ncols(t)) < 0)
                rc = SL_ENOMEM;
        }
    }
    free(v);
    if (rc == 0)
        sl_block_seal(&res->rows);
    return rc;
}

/* Appends `name` quoted with backticks. */
static int put_ident(sl_buf *b, const char *name)
{
    return sl_buf_printf(b, "`%s`", name);
}

static int put_fields(sl_buf *b, const sl_field *f, int n)
{
    int rc = sl_buf_put(b, "(", 1);
    for (int i = 0; rc == 0 && i < n; i++) {
        char ty[48];
        rc = sl_buf_printf(b, "%s", i ? ", " : "");
        if (rc == 0)
            rc = put_ident(b, f[i].name);
        if (rc == 0)
            rc = sl_buf_printf(b, " %s", field_type_str(&f[i], ty, sizeof(ty)));
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

static int show_create(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_show *sh = &st->u.show;
    sl_buf b;
    sl_buf_init(&b);
    const char *what = "Table";
    const char *obj = sh->name.name;
    int rc = 0;
    if (sh->kind == SL_SHOW_CREATE_DATABASE) {
        sl__ms_db *db = sl__ms_find_db(ms, sh->name.name);
        if (db == NULL)
            return sl__ms_error(err, SL_ENOTFOUND, sh->name.pos, "database '%s' does not exist",
                                sh->name.name);
        what = "Database";
        obj = db->d_name;
        rc = sl_buf_printf(&b, "CREATE DATABASE `%s` PRECISION '%s' VGROUPS %lld", db->d_name,
                           sl_precision_name(db->d_prec), (long long)db->d_vgroups);
    } else {
        sl__ms_db *db;
        if ((rc = sl__ms_resolve_db(ms, &sh->name, &db, err)) < 0)
            return rc;
        sl__ms_table *t = sl__ms_find_table(db, sh->name.name);
        if (t == NULL)
            return sl__ms_error(err, SL_ENOTFOUND, sh->name.pos,
                                "table '%s' does not exist in database '%s'", sh->name.name,
                                db->d_name);
        bool want_super = sh->kind == SL_SHOW_CREATE_STABLE;
        if (want_super != (t->t_kind == SL_TABLE_SUPER))
            return sl__ms_error(err, SL_EINVAL, sh->name.pos, "'%s' is a %s: use SHOW CREATE %s",
                                t->t_name, kind_desc(t->t_kind),
                                t->t_kind == SL_TABLE_SUPER ? "STABLE" : "TABLE");
        obj = t->t_name;
        if (t->t_kind == SL_TABLE_CHILD) {
            const sl__ms_table *sup = t->t_super;
            rc = sl_buf_printf(&b, "CREATE TABLE `%s` USING `%s` (", t->t_name, sup->t_name);
            for (int i = 0; rc == 0 && i < sup->t_ntags; i++) {
                rc = sl_buf_printf(&b, "%s", i ? ", " : "");
                if (rc == 0)
                    rc = put_ident(&b, sup->t_tags[i].name);
            }
            if (rc == 0)
                rc = sl_buf_printf(&b, ") TAGS (");
            for (int i = 0; rc == 0 && i < sup->t_ntags; i++) {
                rc = sl_buf_printf(&b, "%s", i ? ", " : "");
                if (rc == 0)
                    rc = put_literal(&b, &t->t_tagvals.cols[i], db->d_prec);
            }
            if (rc == 0)
                rc = sl_buf_put(&b, ")", 1);
        } else {
            what = t->t_kind == SL_TABLE_SUPER ? "STable" : "Table";
            rc = sl_buf_printf(&b, "CREATE %s `%s` ",
                               t->t_kind == SL_TABLE_SUPER ? "STABLE" : "TABLE", t->t_name);
            if (rc == 0)
                rc = put_fields(&b, t->t_cols, t->t_ncols);
            if (rc == 0 && t->t_kind == SL_TABLE_SUPER) {
                rc = sl_buf_printf(&b, " TAGS ");
                if (rc == 0)
                    rc = put_fields(&b, t->t_tags, t->t_ntags);
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
        rc = sl__ms_result_init(res, 2, names, types, widths);
    if (rc == 0)
        rc = sl__ms_result_str(res, 0, obj);
    if (rc == 0)
        rc = sl__ms_result_str(res, 1, (const char *)b.data);
    if (rc == 0)
        sl_block_seal(&res->rows);
    sl_buf_fini(&b);
    return rc < 0 ? oom(err, st->pos) : 0;
}

int sl__ms_show(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_show *sh = &st->u.show;
    int rc;
    switch (sh->kind) {
    case SL_SHOW_DATABASES: rc = show_databases(ms, sh, res); break;
    case SL_SHOW_STABLES:
    case SL_SHOW_TABLES: {
        sl__ms_db *db = sh->db ? sl__ms_find_db(ms, sh->db) : ms->m_cur;
        if (db == NULL) {
            if (sh->db != NULL)
                return sl__ms_error(err, SL_ENOTFOUND, st->pos, "database '%s' does not exist",
                                    sh->db);
            return sl__ms_error(err, SL_ENOTFOUND, st->pos,
                                "no database selected: USE a database or write SHOW db.%s",
                                sh->kind == SL_SHOW_STABLES ? "STABLES" : "TABLES");
        }
        rc = show_tables(db, sh, sh->kind == SL_SHOW_STABLES, res);
        break;
    }
    case SL_SHOW_CREATE_DATABASE:
    case SL_SHOW_CREATE_STABLE:
    case SL_SHOW_CREATE_TABLE: return show_create(ms, st, res, err);
    default:
        return sl__ms_error(err, SL_EUNSUPPORTED, st->pos,
                            "this SHOW statement is not supported by the embedded store "
                            "(it has no streams or nodes)");
    }
    if (rc < 0)
        return oom(err, st->pos);
    return 0;
}
