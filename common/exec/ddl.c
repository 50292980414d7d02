/*
 * ddl.c - DDL validation and planning shared by the embedded store and the mnode catalog
 * (ddl.h).
 *
 * Each statement is checked whole against the store, through its sl_ddl_source, before
 * anything changes: names, types, limits, existence, the super table of a child table,
 * and every tag value (evaluated and converted into the one-row tag block the new child
 * table will keep). What survives becomes a list of ops the store applies in a phase that
 * cannot fail. Messages name the object and the rule, at the position of the offending
 * AST node; their wording is shared by every store and checked by the tests of both.
 */
#include "ddl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ small helpers */

bool sl_ddl_name_eq(const char *a, const char *b)
{
    return strcasecmp(a, b) == 0;
}

bool sl_ddl_like(const char *pat, const char *s)
{
    /* Greedy with backtracking to the last '%'. */
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

bool sl_ddl_key_type_ok(sl_type t)
{
    return t == SL_T_INT || t == SL_T_BIGINT || t == SL_T_UINT || t == SL_T_UBIGINT ||
           t == SL_T_VARCHAR;
}

const char *sl_ddl_kind_desc(sl_table_kind k)
{
    switch (k) {
    case SL_TABLE_SUPER: return "super table";
    case SL_TABLE_CHILD: return "child table";
    default: return "table";
    }
}

const char *sl_ddl_type_str(sl_type t, uint32_t width, char *buf, size_t n)
{
    if (sl_type_is_var(t))
        snprintf(buf, n, "%s(%u)", sl_type_name(t), width);
    else
        snprintf(buf, n, "%s", sl_type_name(t));
    return buf;
}

int sl_ddl_verror(sl_error *err, int code, sl_pos pos, const char *fmt, va_list ap)
{
    if (err == NULL || err->code != 0)
        return code;
    char msg[SL_ERROR_MSG_MAX];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    return sl_error_set(err, code, pos.line, pos.col, "%s", msg);
}

int sl_ddl_error(sl_error *err, int code, sl_pos pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = sl_ddl_verror(err, code, pos, fmt, ap);
    va_end(ap);
    return rc;
}

void sl_ddl_error_prefix(sl_error *err)
{
    if (err == NULL || err->code == 0 || err->line <= 0)
        return;
    char prefix[32];
    int n = snprintf(prefix, sizeof(prefix), "%d:%d: ", err->line, err->col);
    if (strncmp(err->msg, prefix, (size_t)n) == 0)
        return;
    size_t keep = strlen(err->msg);
    if (keep > sizeof(err->msg) - 1 - (size_t)n)
        keep = sizeof(err->msg) - 1 - (size_t)n;
    memmove(err->msg + n, err->msg, keep);
    memcpy(err->msg, prefix, (size_t)n);
    err->msg[(size_t)n + keep] = '\0';
}

static int oom(sl_error *err, sl_pos pos)
{
    return sl_ddl_error(err, SL_ENOMEM, pos, "out of memory");
}

/* ------------------------------------------------------------ plans */

void sl_ddl_plan_init(sl_ddl_plan *p)
{
    memset(p, 0, sizeof(*p));
    sl_arena_init(&p->arena);
}

void sl_ddl_plan_fini(sl_ddl_plan *p)
{
    if (p == NULL)
        return;
    for (int i = 0; i < p->nops; i++)
        sl_block_fini(&p->ops[i].tagvals);
    free(p->ops);
    sl_arena_fini(&p->arena);
    sl_ddl_plan_init(p);
}

/* Appends a zeroed op; NULL on exhaustion. */
static sl_ddl_op *plan_add(sl_ddl_plan *p, sl_ddl_op_kind kind, sl_pos pos)
{
    if (p->nops == p->capops) {
        int cap = p->capops ? p->capops * 2 : 4;
        sl_ddl_op *ops = realloc(p->ops, (size_t)cap * sizeof(*ops));
        if (ops == NULL)
            return NULL;
        p->ops = ops;
        p->capops = cap;
    }
    sl_ddl_op *op = &p->ops[p->nops++];
    memset(op, 0, sizeof(*op));
    op->kind = kind;
    op->pos = pos;
    sl_block_init(&op->tagvals);
    return op;
}

/* Drops the ops from index `keep` on (a failed statement's). */
static void plan_truncate(sl_ddl_plan *p, int keep)
{
    while (p->nops > keep)
        sl_block_fini(&p->ops[--p->nops].tagvals);
}

/* ------------------------------------------------------------ names */

static bool find_db(const sl_ddl_source *src, const char *name, sl_ddl_db *out)
{
    return src->ops->find_db(src->ud, name, out);
}

static bool find_table(const sl_ddl_source *src, const sl_ddl_db *db, const char *name,
                       sl_ddl_table *out)
{
    return src->ops->find_table(src->ud, db, name, out);
}

/* Resolves the database of a possibly qualified name: q->db, or the current database. */
static int resolve_db(const sl_ddl_source *src, const sl_qname *q, sl_ddl_db *out, sl_error *err)
{
    if (q->db != NULL) {
        if (!find_db(src, q->db, out))
            return sl_ddl_error(err, SL_ENOTFOUND, q->pos, "database '%s' does not exist", q->db);
        return 0;
    }
    if (src->current_db == NULL)
        return sl_ddl_error(err, SL_ENOTFOUND, q->pos,
                            "no database selected for '%s': USE a database or write db.%s", q->name,
                            q->name);
    if (!find_db(src, src->current_db, out))
        return sl_ddl_error(err, SL_ENOTFOUND, q->pos, "database '%s' does not exist",
                            src->current_db);
    return 0;
}

static int check_table_name(const sl_qname *q, sl_error *err)
{
    if (strlen(q->name) > SL_TABLE_NAME_MAX)
        return sl_ddl_error(err, SL_ELIMIT, q->pos, "table name '%s' is longer than %d bytes",
                            q->name, SL_TABLE_NAME_MAX);
    return 0;
}

/*
 * A table named `name` in db: in the store, or created by an op of plan (an earlier clause
 * of the statement). Fills *t (store) or *op_index (plan; -1 when from the store).
 */
static bool find_existing(const sl_ddl_source *src, const sl_ddl_plan *plan, const sl_ddl_db *db,
                          const char *name, sl_ddl_table *t, int *op_index)
{
    *op_index = -1;
    if (find_table(src, db, name, t))
        return true;
    for (int j = 0; j < plan->nops; j++) {
        const sl_ddl_op *op = &plan->ops[j];
        if (op->kind == SL_DDL_CREATE_TABLE && op->db.obj == db->obj &&
            sl_ddl_name_eq(op->name, name)) {
            *op_index = j;
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------ databases */

static int plan_create_db(const sl_ddl_source *src, const sl_stmt *st, sl_ddl_plan *plan,
                          sl_error *err)
{
    const sl_create_database *cd = &st->u.create_db;
    if (strlen(cd->name) > SL_NAME_MAX)
        return sl_ddl_error(err, SL_ELIMIT, st->pos, "database name '%s' is longer than %d bytes",
                            cd->name, SL_NAME_MAX);
    if (sl_ddl_name_eq(cd->name, SL_DDL_INFO_SCHEMA))
        return sl_ddl_error(err, SL_EINVAL, st->pos,
                            "database name '%s' is reserved for the system tables", cd->name);
    sl_precision prec = SL_PREC_MS;
    if (cd->precision != NULL && sl_precision_parse(cd->precision, &prec) < 0)
        return sl_ddl_error(err, SL_EINVAL, cd->precision_pos,
                            "invalid PRECISION '%s': use 'ms', 'us' or 'ns'", cd->precision);
    int64_t vgroups = SL_DDL_VGROUPS_DEFAULT;
    if (cd->vgroups != -1) {
        if (cd->vgroups < 1 || cd->vgroups > SL_DDL_VGROUPS_MAX)
            return sl_ddl_error(err, SL_ERANGE, cd->vgroups_pos,
                                "VGROUPS must be between 1 and %d, got %lld", SL_DDL_VGROUPS_MAX,
                                (long long)cd->vgroups);
        vgroups = cd->vgroups;
    }
    sl_ddl_db old;
    bool planned = false;
    for (int j = 0; j < plan->nops && !planned; j++)
        planned =
            plan->ops[j].kind == SL_DDL_CREATE_DB && sl_ddl_name_eq(plan->ops[j].db.name, cd->name);
    if (planned || find_db(src, cd->name, &old)) {
        if (cd->if_not_exists)
            return 0;
        return sl_ddl_error(err, SL_EEXIST, st->pos, "database '%s' already exists", cd->name);
    }
    sl_ddl_op *op = plan_add(plan, SL_DDL_CREATE_DB, st->pos);
    if (op == NULL)
        return oom(err, st->pos);
    op->db.name = cd->name;
    op->db.precision = prec;
    op->db.vgroups = vgroups;
    return 0;
}

static int plan_drop_db(const sl_ddl_source *src, const sl_stmt *st, sl_ddl_plan *plan,
                        sl_error *err)
{
    const sl_drop *d = &st->u.drop;
    for (int k = 0; k < d->n; k++) {
        sl_ddl_db db;
        if (!find_db(src, d->names[k].name, &db) || db.obj == NULL) {
            if (d->if_exists)
                continue;
            return sl_ddl_error(err, SL_ENOTFOUND, d->names[k].pos, "database '%s' does not exist",
                                d->names[k].name);
        }
        bool dup = false;
        for (int j = 0; j < plan->nops && !dup; j++)
            dup = plan->ops[j].kind == SL_DDL_DROP_DB && plan->ops[j].db.obj == db.obj;
        if (dup)
            continue;
        sl_ddl_op *op = plan_add(plan, SL_DDL_DROP_DB, d->names[k].pos);
        if (op == NULL)
            return oom(err, st->pos);
        op->db = db;
    }
    return 0;
}

/* ------------------------------------------------------------ schemas */

/* Checks one column or tag definition (what: "column" or "tag"). */
static int check_def(const sl_column_def *c, const char *what, sl_error *err)
{
    if (strlen(c->name) > SL_NAME_MAX)
        return sl_ddl_error(err, SL_ELIMIT, c->pos, "%s name '%s' is longer than %d bytes", what,
                            c->name, SL_NAME_MAX);
    if (sl_ddl_name_eq(c->name, "tbname"))
        return sl_ddl_error(err, SL_EINVAL, c->pos,
                            "'%s' is reserved for the table name and cannot be a %s", c->name,
                            what);
    if (c->type == SL_T_NULL || c->type >= SL_T__COUNT)
        return sl_ddl_error(err, SL_ETYPE, c->pos, "%s '%s' has no valid type", what, c->name);
    if (sl_type_is_var(c->type)) {
        if (!c->width_given)
            return sl_ddl_error(err, SL_EINVAL, c->pos, "%s needs a length, e.g. %s(64)",
                                sl_type_name(c->type), sl_type_name(c->type));
        if (c->width < 1 || c->width > SL_VARCHAR_MAX)
            return sl_ddl_error(err, SL_ERANGE, c->pos,
                                "%s length must be between 1 and %d, got %u", sl_type_name(c->type),
                                SL_VARCHAR_MAX, c->width);
    }
    return 0;
}

/* Checks COMPOSITE KEY on column i of a table: only the second column, of a key type. */
static int check_key(const sl_column_def *c, int i, sl_error *err)
{
    if (!c->composite_key)
        return 0;
    if (i != 1)
        return sl_ddl_error(err, SL_EINVAL, c->pos,
                            "COMPOSITE KEY can only mark the second column, '%s' is column %d",
                            c->name, i + 1);
    if (!sl_ddl_key_type_ok(c->type))
        return sl_ddl_error(err, SL_ETYPE, c->pos,
                            "COMPOSITE KEY column '%s' must be INT, BIGINT, INT UNSIGNED, "
                            "BIGINT UNSIGNED or VARCHAR/BINARY, not %s",
                            c->name, sl_type_name(c->type));
    return 0;
}

/* Checks the columns and tags of a CREATE STABLE / CREATE TABLE. */
static int check_schema(const sl_column_def *cols, int ncols, const sl_column_def *tags, int ntags,
                        sl_pos pos, sl_error *err)
{
    if (ncols == 0)
        return sl_ddl_error(err, SL_EINVAL, pos, "a table needs a TIMESTAMP first column");
    if (ncols > SL_MAX_COLUMNS)
        return sl_ddl_error(err, SL_ELIMIT, cols[SL_MAX_COLUMNS].pos,
                            "too many columns: %d (at most %d)", ncols, SL_MAX_COLUMNS);
    if (ntags > SL_MAX_TAGS)
        return sl_ddl_error(err, SL_ELIMIT, tags[SL_MAX_TAGS].pos, "too many tags: %d (at most %d)",
                            ntags, SL_MAX_TAGS);
    if (cols[0].type != SL_T_TIMESTAMP)
        return sl_ddl_error(err, SL_ETYPE, cols[0].pos,
                            "the first column must be a TIMESTAMP, '%s' is %s", cols[0].name,
                            sl_type_name(cols[0].type));
    for (int i = 0; i < ncols; i++) {
        int rc = check_def(&cols[i], "column", err);
        if (rc == 0)
            rc = check_key(&cols[i], i, err);
        if (rc < 0)
            return rc;
        for (int j = 0; j < i; j++)
            if (sl_ddl_name_eq(cols[i].name, cols[j].name))
                return sl_ddl_error(err, SL_EEXIST, cols[i].pos, "duplicate column name '%s'",
                                    cols[i].name);
    }
    for (int i = 0; i < ntags; i++) {
        int rc = check_def(&tags[i], "tag", err);
        if (rc < 0)
            return rc;
        for (int j = 0; j < i; j++)
            if (sl_ddl_name_eq(tags[i].name, tags[j].name))
                return sl_ddl_error(err, SL_EEXIST, tags[i].pos, "duplicate tag name '%s'",
                                    tags[i].name);
        for (int j = 0; j < ncols; j++)
            if (sl_ddl_name_eq(tags[i].name, cols[j].name))
                return sl_ddl_error(err, SL_EEXIST, tags[i].pos,
                                    "tag '%s' has the same name as a column", tags[i].name);
    }
    return 0;
}

/* Validated definitions as fields in the plan's arena (names borrowed from the AST). */
static sl_field *make_fields(sl_ddl_plan *plan, const sl_column_def *defs, int n)
{
    sl_field *f = sl_arena_alloc(&plan->arena, (size_t)(n > 0 ? n : 1) * sizeof(*f));
    if (f == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        f[i].name = defs[i].name;
        f[i].type = defs[i].type;
        f[i].width = sl_type_is_var(defs[i].type) ? defs[i].width : 0;
    }
    return f;
}

/* Shared by CREATE STABLE and CREATE TABLE (normal). */
static int plan_with_schema(const sl_ddl_source *src, const sl_stmt *st, bool if_not_exists,
                            const sl_qname *name, const sl_column_def *cols, int ncols,
                            const sl_column_def *tags, int ntags, sl_table_kind kind,
                            sl_ddl_plan *plan, sl_error *err)
{
    sl_ddl_db db;
    int rc = resolve_db(src, name, &db, err);
    if (rc < 0)
        return rc;
    if ((rc = check_table_name(name, err)) < 0)
        return rc;
    if (kind == SL_TABLE_SUPER && ntags == 0)
        return sl_ddl_error(err, SL_EINVAL, st->pos, "super table '%s' needs at least one tag",
                            name->name);
    if ((rc = check_schema(cols, ncols, tags, ntags, st->pos, err)) < 0)
        return rc;
    sl_ddl_table old;
    int old_op;
    if (find_existing(src, plan, &db, name->name, &old, &old_op)) {
        if (if_not_exists)
            return 0;
        if (old_op >= 0)
            return sl_ddl_error(err, SL_EEXIST, name->pos, "%s '%s' already exists",
                                sl_ddl_kind_desc(plan->ops[old_op].tkind), plan->ops[old_op].name);
        return sl_ddl_error(err, SL_EEXIST, name->pos, "%s '%s' already exists",
                            sl_ddl_kind_desc(old.kind), old.name);
    }
    sl_ddl_op *op = plan_add(plan, SL_DDL_CREATE_TABLE, name->pos);
    if (op == NULL)
        return oom(err, name->pos);
    op->db = db;
    op->tkind = kind;
    op->name = name->name;
    op->ncols = ncols;
    op->cols = make_fields(plan, cols, ncols);
    op->composite_key = ncols > 1 && cols[1].composite_key;
    op->ntags = ntags;
    op->tags = ntags > 0 ? make_fields(plan, tags, ntags) : NULL;
    if (op->cols == NULL || (ntags > 0 && op->tags == NULL))
        return oom(err, name->pos);
    return 0;
}

/* ------------------------------------------------------------ child tables */

/*
 * Builds the one-row tag block of a new child table of st from tag names (ntag_names 0:
 * all tags in order) and value expressions, checking every value against its tag's type.
 * pos is where to report a count mismatch. Returns 0 or an error; out is left empty then.
 */
static int build_tags(const sl_ddl_source *src, const sl_ddl_table *st, sl_precision prec,
                      int ntag_names, const char *const *tag_names, const sl_pos *tag_name_pos,
                      const sl_expr_list *values, sl_pos pos, sl_block *out, sl_error *err)
{
    int ntags = st->ntags;
    int inv[SL_MAX_TAGS]; /* tag index -> value index, or -1 */
    for (int k = 0; k < ntags; k++)
        inv[k] = -1;
    sl_pos vpos = values->n > 0 ? values->items[0]->pos : pos;
    if (ntag_names > 0) {
        if (values->n != ntag_names)
            return sl_ddl_error(err, SL_EINVAL, vpos, "%d tag names but %d tag values given",
                                ntag_names, values->n);
        for (int i = 0; i < ntag_names; i++) {
            int k = 0;
            while (k < ntags && !sl_ddl_name_eq(st->tags[k].name, tag_names[i]))
                k++;
            if (k == ntags)
                return sl_ddl_error(err, SL_ENOTFOUND, tag_name_pos[i],
                                    "super table '%s' has no tag '%s'", st->name, tag_names[i]);
            if (inv[k] >= 0)
                return sl_ddl_error(err, SL_EINVAL, tag_name_pos[i], "tag '%s' is given twice",
                                    tag_names[i]);
            inv[k] = i;
        }
    } else {
        if (values->n != ntags)
            return sl_ddl_error(err, SL_EINVAL, vpos,
                                "super table '%s' has %d tag%s, %d tag value%s given", st->name,
                                ntags, ntags == 1 ? "" : "s", values->n, values->n == 1 ? "" : "s");
        for (int k = 0; k < ntags; k++)
            inv[k] = k;
    }
    sl_block_init(out);
    int rc = 0;
    for (int k = 0; k < ntags; k++) {
        const sl_field *f = &st->tags[k];
        int ci = sl_block_add_column(out, f->type, f->width);
        if (ci < 0) {
            rc = oom(err, pos);
            goto fail;
        }
        sl_value v = sl_value_null(f->type);
        char buf[SL_DDL_VALUE_BUF];
        if (inv[k] >= 0) {
            rc = sl_ddl_const_to(values->items[inv[k]], f, "tag", prec, src->now_ms, buf,
                                 sizeof(buf), &v, err);
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

/*
 * Finds the super table q of a child table in child_db. Errors name what is wrong
 * (unknown, not a super table, another database).
 */
static int find_super(const sl_ddl_source *src, const sl_qname *q, const sl_ddl_db *child_db,
                      sl_ddl_table *out, sl_error *err)
{
    sl_ddl_db sdb;
    int rc = resolve_db(src, q, &sdb, err);
    if (rc < 0)
        return rc;
    if (!find_table(src, &sdb, q->name, out))
        return sl_ddl_error(err, SL_ENOTFOUND, q->pos, "super table '%s' does not exist", q->name);
    if (out->kind != SL_TABLE_SUPER)
        return sl_ddl_error(err, SL_EINVAL, q->pos, "'%s' is a %s, not a super table", out->name,
                            sl_ddl_kind_desc(out->kind));
    if (sdb.obj != child_db->obj)
        return sl_ddl_error(err, SL_EINVAL, q->pos,
                            "super table '%s' is in database '%s': a child table must be in "
                            "the same database",
                            out->name, sdb.name);
    return 0;
}

/* Appends the CREATE_TABLE op of a new child table, its tags built and checked. */
static int plan_child(const sl_ddl_source *src, const sl_ddl_db *db, const sl_qname *name,
                      const sl_ddl_table *sup, int ntag_names, const char *const *tag_names,
                      const sl_pos *tag_name_pos, const sl_expr_list *values, sl_pos pos,
                      sl_ddl_plan *plan, sl_error *err)
{
    sl_block tags;
    int rc = build_tags(src, sup, db->precision, ntag_names, tag_names, tag_name_pos, values, pos,
                        &tags, err);
    if (rc < 0)
        return rc;
    sl_ddl_op *op = plan_add(plan, SL_DDL_CREATE_TABLE, name->pos);
    if (op == NULL) {
        sl_block_fini(&tags);
        return oom(err, name->pos);
    }
    op->db = *db;
    op->tkind = SL_TABLE_CHILD;
    op->name = name->name;
    op->super = *sup;
    op->ncols = sup->ncols;
    op->cols = sup->cols;
    op->composite_key = sup->composite_key;
    op->ntags = sup->ntags;
    op->tags = sup->tags;
    op->tagvals = tags;
    return 0;
}

static int plan_subtables(const sl_ddl_source *src, const sl_stmt *st, sl_ddl_plan *plan,
                          sl_error *err)
{
    const sl_create_subtables *cs = &st->u.create_subtables;
    for (int i = 0; i < cs->n; i++) {
        const sl_create_subtable *it = &cs->items[i];
        sl_ddl_db db;
        sl_ddl_table sup;
        int rc;
        if ((rc = resolve_db(src, &it->name, &db, err)) < 0 ||
            (rc = check_table_name(&it->name, err)) < 0 ||
            (rc = find_super(src, &it->stable, &db, &sup, err)) < 0)
            return rc;
        sl_ddl_table old;
        int old_op;
        if (find_existing(src, plan, &db, it->name.name, &old, &old_op)) {
            if (it->if_not_exists)
                continue;
            return sl_ddl_error(err, SL_EEXIST, it->name.pos, "%s '%s' already exists",
                                sl_ddl_kind_desc(old_op >= 0 ? plan->ops[old_op].tkind : old.kind),
                                it->name.name);
        }
        rc = plan_child(src, &db, &it->name, &sup, it->ntag_names, it->tag_names, it->tag_name_pos,
                        &it->tag_values, it->stable.pos, plan, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------ DROP TABLE / STABLE */

static int plan_drop_tables(const sl_ddl_source *src, const sl_stmt *st, sl_ddl_plan *plan,
                            sl_error *err)
{
    const sl_drop *d = &st->u.drop;
    bool stable = st->kind == SL_STMT_DROP_STABLE;
    for (int i = 0; i < d->n; i++) {
        sl_ddl_db db;
        int rc = resolve_db(src, &d->names[i], &db, err);
        if (rc < 0)
            return rc;
        sl_ddl_table t;
        if (!find_table(src, &db, d->names[i].name, &t)) {
            if (d->if_exists)
                continue;
            return sl_ddl_error(err, SL_ENOTFOUND, d->names[i].pos, "%s '%s' does not exist",
                                stable ? "super table" : "table", d->names[i].name);
        }
        if (stable && t.kind != SL_TABLE_SUPER)
            return sl_ddl_error(err, SL_EINVAL, d->names[i].pos,
                                "'%s' is a %s, not a super table: use DROP TABLE", t.name,
                                sl_ddl_kind_desc(t.kind));
        if (!stable && t.kind == SL_TABLE_SUPER)
            return sl_ddl_error(err, SL_EINVAL, d->names[i].pos,
                                "'%s' is a super table: use DROP STABLE", t.name);
        bool dup = false;
        for (int j = 0; j < plan->nops && !dup; j++)
            dup = plan->ops[j].kind == SL_DDL_DROP_TABLE && plan->ops[j].table.obj == t.obj;
        if (dup)
            continue;
        sl_ddl_op *op = plan_add(plan, SL_DDL_DROP_TABLE, d->names[i].pos);
        if (op == NULL)
            return oom(err, st->pos);
        op->db = db;
        op->table = t;
    }
    return 0;
}

/* ------------------------------------------------------------ entry points */

int sl_ddl_plan_stmt(const sl_ddl_source *src, const sl_stmt *st, sl_ddl_plan *plan, sl_error *err)
{
    int keep = plan->nops, rc;
    switch (st->kind) {
    case SL_STMT_CREATE_DATABASE: rc = plan_create_db(src, st, plan, err); break;
    case SL_STMT_DROP_DATABASE: rc = plan_drop_db(src, st, plan, err); break;
    case SL_STMT_CREATE_STABLE: {
        const sl_create_stable *c = &st->u.create_stable;
        rc = plan_with_schema(src, st, c->if_not_exists, &c->name, c->cols, c->ncols, c->tags,
                              c->ntags, SL_TABLE_SUPER, plan, err);
        break;
    }
    case SL_STMT_CREATE_TABLE: {
        const sl_create_table *c = &st->u.create_table;
        rc = plan_with_schema(src, st, c->if_not_exists, &c->name, c->cols, c->ncols, NULL, 0,
                              SL_TABLE_NORMAL, plan, err);
        break;
    }
    case SL_STMT_CREATE_SUBTABLES: rc = plan_subtables(src, st, plan, err); break;
    case SL_STMT_DROP_TABLE:
    case SL_STMT_DROP_STABLE: rc = plan_drop_tables(src, st, plan, err); break;
    default:
        rc = sl_ddl_error(err, SL_EUNSUPPORTED, st->pos, "%s is not a DDL statement",
                          sl_stmt_kind_name(st->kind));
        break;
    }
    if (rc < 0)
        plan_truncate(plan, keep);
    return rc;
}

int sl_ddl_plan_insert_target(const sl_ddl_source *src, const sl_insert_item *it, sl_ddl_plan *plan,
                              sl_ddl_target *out, sl_error *err)
{
    memset(out, 0, sizeof(*out));
    out->new_op = -1;
    int rc = resolve_db(src, &it->table, &out->db, err);
    if (rc < 0)
        return rc;
    if ((rc = check_table_name(&it->table, err)) < 0)
        return rc;
    const sl_ddl_db *db = &out->db;
    int op_index;
    bool found = find_existing(src, plan, db, it->table.name, &out->table, &op_index);
    if (it->has_using) {
        sl_ddl_table st;
        if ((rc = find_super(src, &it->stable, db, &st, err)) < 0)
            return rc;
        if (found) {
            /* The table exists: USING only checks that it is that super table's child. */
            const char *name = op_index >= 0 ? plan->ops[op_index].name : out->table.name;
            bool child = op_index >= 0 ? sl_ddl_name_eq(plan->ops[op_index].super.name, st.name)
                                       : out->table.kind == SL_TABLE_CHILD &&
                                             sl_ddl_name_eq(out->table.stable, st.name);
            if (!child)
                return sl_ddl_error(err, SL_EEXIST, it->table.pos,
                                    "table '%s' already exists and is not a child table of "
                                    "'%s'",
                                    name, st.name);
            out->new_op = op_index;
            return 0;
        }
        /* The AST keeps no positions for INSERT tag names: report at the super table. */
        sl_pos *npos = NULL;
        if (it->ntag_names > 0) {
            npos = malloc((size_t)it->ntag_names * sizeof(*npos));
            if (npos == NULL)
                return oom(err, it->table.pos);
            for (int k = 0; k < it->ntag_names; k++)
                npos[k] = it->stable.pos;
        }
        rc = plan_child(src, db, &it->table, &st, it->ntag_names, it->tag_names, npos,
                        &it->tag_values, it->stable.pos, plan, err);
        free(npos);
        if (rc < 0)
            return rc;
        out->new_op = plan->nops - 1;
        out->created = true;
        return 0;
    }
    if (!found)
        return sl_ddl_error(err, SL_ENOTFOUND, it->table.pos,
                            "table '%s' does not exist in database '%s'", it->table.name, db->name);
    if (op_index < 0 && out->table.kind == SL_TABLE_SUPER)
        return sl_ddl_error(err, SL_EINVAL, it->table.pos,
                            "cannot insert into super table '%s': insert into a child table "
                            "(INSERT INTO d USING %s TAGS (...) creates one)",
                            out->table.name, out->table.name);
    out->new_op = op_index;
    return 0;
}
