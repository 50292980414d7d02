/*
 * catalog_stream_out.c - the INTO output table of CREATE STREAM (spec/stream-syntax.txt,
 * "Stream Processing Output" and "[AS subquery]"): its schema is derived from the subquery,
 * the column name list and TAGS, and it is created in the same synced write batch as the
 * stream record (catalog_stream.c), so a refused statement creates nothing.
 *
 * The subquery is planned - never executed - by the shared planner against the catalog
 * (sl_mcatalog_catalog: schema lookups of every database), with each placeholder bound to
 * a typed NULL constant, so the result types are the ones the snode's runner will get when
 * it binds real values (a NULL folds without errors such as a division by zero, and a
 * string NULL carries the width the planner gives the constant):
 *
 *   _twstart _twend _tprev_ts _tcurrent_ts _tnext_ts   TIMESTAMP (event time, in the
 *                                                      trigger table's database precision)
 *   _tlocaltime _tprev_localtime _tnext_localtime      TIMESTAMP
 *   _tidlestart _tidleend                              BIGINT (nanoseconds since the epoch:
 *                                                      the spec converts them with
 *                                                      cast(x/1000000 as timestamp))
 *   _twduration _twrownum _tgrpid _trollup_tbcount     BIGINT
 *   %%n                                                the n-th grouping column: a tag's
 *                                                      type, tbname VARCHAR(192); with
 *                                                      ROLLUP BY the rollup tag's type
 *   %%tbname                                           VARCHAR(192)
 *   %%rollup_tag                                       the rollup tag's type and width
 *                                                      (VARCHAR or NCHAR)
 *   FROM %%trows, FROM %%tbname                        the trigger table's columns, tags
 *                                                      and tbname
 *
 * Output columns: the names of the (col, ...) list, else the query's result names (alias,
 * else the item's text, e.g. "avg(voltage)"), with the query's types and widths (a string
 * of width 0 becomes width 1). The first must be a TIMESTAMP (the primary key). Grouped
 * streams (PARTITION BY, ROLLUP BY) get a super table whose tags are the TAGS definitions,
 * else one tag per grouping column (tbname: tag_tbname VARCHAR(270); a tag or the ROLLUP BY
 * tag: its own name and type); ungrouped streams a normal table placed like CREATE TABLE
 * places it. The schema then goes through the shared rules of CREATE STABLE / CREATE TABLE
 * (common/exec/ddl.h: name lengths, reserved names, types, limits, COMPOSITE KEY) as a
 * synthetic statement, so it is refused with exactly their messages. An existing INTO
 * table is accepted when its kind, column names and types (widths included), COMPOSITE KEY
 * and tag names and types equal the derived ones (names case-insensitively); otherwise the
 * statement is refused with SL_EEXIST "output table 'x' already exists with a different
 * schema: <the first difference>".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_int.h"
#include "common/exec/plan.h"

/* tbname as a value: the longest table name. */
#define TBNAME_WIDTH SL_TABLE_NAME_MAX
/* The default output tag of grouping by tbname (spec: tag_tbname VARCHAR(270)). */
#define TAG_TBNAME_NAME  "tag_tbname"
#define TAG_TBNAME_WIDTH 270

typedef struct out_ctx {
    const sl_create_stream *cs;
    const sl_table_meta *trigger; /* NULL without FROM */
} out_ctx;

/* ------------------------------------------------------------ placeholders */

static const sl_field *find_tag(const sl_table_meta *m, const char *name)
{
    for (int i = 0; m != NULL && i < m->ntags; i++)
        if (sl_ddl_name_eq(m->tags[i].name, name))
            return &m->tags[i];
    return NULL;
}

/* A typed NULL; strings carry their width as length (the planner's constant width). */
static sl_value typed_null(sl_type t, uint32_t width)
{
    sl_value v = sl_value_null(t);
    if (sl_type_is_var(t)) {
        v.v.s.ptr = "";
        v.v.s.len = width;
    }
    return v;
}

/* The type of grouping column n (1-based): a tag, tbname, or the ROLLUP BY tag. */
static int group_col(const out_ctx *o, int n, sl_type *t, uint32_t *w)
{
    const sl_create_stream *cs = o->cs;
    const sl_field *f = NULL;
    if (cs->has_rollup) {
        if (n != 1)
            return -1;
        f = find_tag(o->trigger, cs->rollup_tag);
    } else {
        if (n < 1 || n > cs->partition_by.n)
            return -1;
        const sl_expr *e = cs->partition_by.items[n - 1];
        if (e->kind != SL_EX_COLUMN)
            return -1;
        if (sl_ddl_name_eq(e->u.column.name, "tbname")) {
            *t = SL_T_VARCHAR;
            *w = TBNAME_WIDTH;
            return 0;
        }
        f = find_tag(o->trigger, e->u.column.name);
    }
    if (f == NULL)
        return -1;
    *t = f->type;
    *w = f->width;
    return 0;
}

static int bind_placeholder(void *ud, const sl_expr *ph, sl_value *out, sl_error *err)
{
    const out_ctx *o = ud;
    sl_type t = SL_T_BIGINT;
    uint32_t w = 0;
    switch (ph->u.placeholder.ph) {
    case SL_PH_TWSTART:
    case SL_PH_TWEND:
    case SL_PH_TPREV_TS:
    case SL_PH_TCURRENT_TS:
    case SL_PH_TNEXT_TS:
    case SL_PH_TLOCALTIME:
    case SL_PH_TPREV_LOCALTIME:
    case SL_PH_TNEXT_LOCALTIME: t = SL_T_TIMESTAMP; break;
    case SL_PH_TIDLESTART:
    case SL_PH_TIDLEEND:
    case SL_PH_TWDURATION:
    case SL_PH_TWROWNUM:
    case SL_PH_TGRPID:
    case SL_PH_TROLLUP_TBCOUNT: t = SL_T_BIGINT; break;
    case SL_PH_TBNAME:
        t = SL_T_VARCHAR;
        w = TBNAME_WIDTH;
        break;
    case SL_PH_PARTITION_COL:
        /* sl_stream_check refused indexes out of range; this is the backstop. */
        if (group_col(o, ph->u.placeholder.index, &t, &w) < 0)
            return sl_error_set(err, SL_EINVAL, ph->pos.line, ph->pos.col,
                                "%%%%%d refers to a PARTITION BY column that does not exist",
                                ph->u.placeholder.index);
        break;
    case SL_PH_ROLLUP_TAG: {
        const sl_field *f = o->cs->has_rollup ? find_tag(o->trigger, o->cs->rollup_tag) : NULL;
        if (f == NULL)
            return sl_error_set(err, SL_EINVAL, ph->pos.line, ph->pos.col,
                                "%%%%rollup_tag needs ROLLUP BY");
        t = f->type;
        w = f->width;
        break;
    }
    case SL_PH_TROWS:
    default:
        return sl_error_set(err, SL_EINVAL, ph->pos.line, ph->pos.col,
                            "%s can only be used in FROM",
                            sl_placeholder_name(ph->u.placeholder.ph));
    }
    *out = typed_null(t, w);
    return 0;
}

static int bind_source(void *ud, const sl_from *from, sl_table_meta *meta, sl_error *err)
{
    const out_ctx *o = ud;
    if (o->trigger == NULL)
        return sl_error_set(err, SL_EINVAL, from->pos.line, from->pos.col,
                            "%s needs a trigger table (FROM ...)",
                            from->kind == SL_FROM_TROWS ? "%%trows" : "%%tbname");
    *meta = *o->trigger;
    return 0;
}

/* ------------------------------------------------------------ the derived schema */

/* Where to report on output column i: its list entry, else its select item. */
static sl_pos col_pos(const sl_create_stream *cs, int i, int ncols)
{
    if (i < cs->nout_cols)
        return cs->out_cols[i].pos;
    const sl_select *q = cs->query;
    bool star = false;
    for (int k = 0; k < q->nitems; k++)
        star |= q->items[k].expr->kind == SL_EX_STAR;
    if (!star && q->nitems == ncols)
        return q->items[i].expr->pos;
    return q->pos;
}

/* The output columns from the plan of the query, as definitions in the plan's arena. */
static int derive_cols(const sl_create_stream *cs, const sl_plan *qp, sl_ddl_plan *plan,
                       sl_column_def **out, int *nout, sl_error *err)
{
    int n = sl_plan_ncols(qp);
    if (cs->nout_cols > 0 && cs->nout_cols != n)
        return sl_ddl_error(err, SL_EINVAL, cs->out_cols[0].pos,
                            "the column list names %d columns but the query returns %d",
                            cs->nout_cols, n);
    sl_column_def *d = sl_arena_alloc(&plan->arena, (size_t)(n > 0 ? n : 1) * sizeof(*d));
    if (d == NULL)
        return sl_ddl_error(err, SL_ENOMEM, cs->query->pos, "out of memory");
    for (int i = 0; i < n; i++) {
        sl_pos pos = col_pos(cs, i, n);
        const char *name = cs->nout_cols > 0 ? cs->out_cols[i].name : sl_plan_col_name(qp, i);
        sl_type t = sl_plan_col_type(qp, i);
        uint32_t w = sl_plan_col_width(qp, i);
        if (strlen(name) > SL_NAME_MAX)
            return sl_ddl_error(err, SL_ELIMIT, pos,
                                "output column name '%s' is longer than %d bytes: rename it "
                                "with AS or a column list",
                                name, SL_NAME_MAX);
        for (int j = 0; j < i; j++)
            if (sl_ddl_name_eq(d[j].name, name))
                return sl_ddl_error(err, SL_EINVAL, pos,
                                    "output column name '%s' appears twice: rename one with AS "
                                    "or give a column list",
                                    name);
        if (t == SL_T_NULL)
            return sl_ddl_error(err, SL_ETYPE, pos,
                                "output column '%s' has no type (the query returns an untyped "
                                "NULL): CAST it to a type",
                                name);
        if (i == 0 && t != SL_T_TIMESTAMP) {
            char tb[48];
            return sl_ddl_error(err, SL_EINVAL, pos,
                                "the first column of the stream's query must be a TIMESTAMP "
                                "(the output table's primary key): '%s' is %s",
                                name, sl_ddl_type_str(t, w, tb, sizeof(tb)));
        }
        d[i].name = sl_arena_strdup(&plan->arena, name);
        if (d[i].name == NULL)
            return sl_ddl_error(err, SL_ENOMEM, pos, "out of memory");
        d[i].type = t;
        d[i].width = sl_type_is_var(t) ? (w > 0 ? w : 1) : 0;
        d[i].width_given = sl_type_is_var(t);
        d[i].composite_key = i < cs->nout_cols && cs->out_cols[i].composite_key;
        d[i].pos = pos;
    }
    *out = d;
    *nout = n;
    return 0;
}

/* The output tags of a grouped stream: TAGS, else one per grouping column. */
static int derive_tags(const out_ctx *o, sl_ddl_plan *plan, sl_column_def **out, int *nout,
                       sl_error *err)
{
    const sl_create_stream *cs = o->cs;
    int n = cs->ntags > 0 ? cs->ntags : cs->has_rollup ? 1 : cs->partition_by.n;
    sl_column_def *d = sl_arena_alloc(&plan->arena, (size_t)(n > 0 ? n : 1) * sizeof(*d));
    if (d == NULL)
        return sl_ddl_error(err, SL_ENOMEM, cs->into.pos, "out of memory");
    memset(d, 0, (size_t)(n > 0 ? n : 1) * sizeof(*d));
    for (int i = 0; i < n; i++) {
        if (cs->ntags > 0) {
            const sl_tag_def *t = &cs->tags[i];
            d[i].name = t->name;
            d[i].type = t->type;
            d[i].width = t->width;
            d[i].width_given = t->width != 0;
            d[i].pos = t->pos;
            continue;
        }
        const sl_field *f;
        if (cs->has_rollup) {
            f = find_tag(o->trigger, cs->rollup_tag);
            d[i].pos = cs->rollup_pos;
        } else {
            const sl_expr *e = cs->partition_by.items[i];
            d[i].pos = e->pos;
            if (e->kind == SL_EX_COLUMN && sl_ddl_name_eq(e->u.column.name, "tbname")) {
                d[i].name = TAG_TBNAME_NAME;
                d[i].type = SL_T_VARCHAR;
                d[i].width = TAG_TBNAME_WIDTH;
                d[i].width_given = true;
                f = NULL;
            } else {
                f = e->kind == SL_EX_COLUMN ? find_tag(o->trigger, e->u.column.name) : NULL;
                if (f == NULL) /* sl_stream_check refused these; the backstop */
                    return sl_ddl_error(err, SL_EINVAL, e->pos,
                                        "PARTITION BY supports only tbname and tag columns");
            }
        }
        if (d[i].name == NULL) {
            if (f == NULL)
                return sl_ddl_error(err, SL_EINVAL, d[i].pos,
                                    "ROLLUP BY tag '%s' is not a tag of the trigger table",
                                    cs->rollup_tag);
            d[i].name = f->name;
            d[i].type = f->type;
            d[i].width = f->width;
            d[i].width_given = sl_type_is_var(f->type);
        }
        for (int j = 0; j < i; j++)
            if (sl_ddl_name_eq(d[j].name, d[i].name))
                return sl_ddl_error(err, SL_EINVAL, d[i].pos,
                                    "the grouping columns give two output tags named '%s': "
                                    "define the tags with TAGS (...)",
                                    d[i].name);
    }
    *out = d;
    *nout = n;
    return 0;
}

/* ------------------------------------------------------------ an existing table */

static int differs(sl_error *err, sl_pos pos, const char *table, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int differs(sl_error *err, sl_pos pos, const char *table, const char *fmt, ...)
{
    char detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    return sl_ddl_error(err, SL_EEXIST, pos,
                        "output table '%s' already exists with a different schema: %s", table,
                        detail);
}

static const char *kind_name(sl_table_kind k)
{
    return k == SL_TABLE_NORMAL ? "normal table" : sl_ddl_kind_desc(k);
}

/* Compares one list of fields (what: "column" or "tag") with the derived definitions. */
static int same_fields(sl_error *err, sl_pos pos, const char *table, const char *what,
                       const sl_field *have, int nhave, const sl_column_def *want, int nwant)
{
    if (nhave != nwant)
        return differs(err, pos, table, "it has %d %ss, the stream needs %d", nhave, what, nwant);
    for (int i = 0; i < nwant; i++) {
        uint32_t ww = sl_type_is_var(want[i].type) ? want[i].width : 0;
        uint32_t hw = sl_type_is_var(have[i].type) ? have[i].width : 0;
        if (!sl_ddl_name_eq(have[i].name, want[i].name) || have[i].type != want[i].type ||
            hw != ww) {
            char hb[48], wb[48];
            return differs(err, pos, table, "%s %d is '%s' %s, the stream needs '%s' %s", what,
                           i + 1, have[i].name, sl_ddl_type_str(have[i].type, hw, hb, sizeof(hb)),
                           want[i].name, sl_ddl_type_str(want[i].type, ww, wb, sizeof(wb)));
        }
    }
    return 0;
}

static int check_existing(const sl_create_stream *cs, const sl__mc_table *t, sl_table_kind kind,
                          const sl_column_def *cols, int ncols, const sl_column_def *tags,
                          int ntags, sl_error *err)
{
    sl_pos pos = cs->into.pos;
    if (t->t_kind != kind)
        return differs(err, pos, t->t_name, "it is a %s, the stream needs a %s",
                       kind_name(t->t_kind), kind_name(kind));
    int rc = same_fields(err, pos, t->t_name, "column", sl__mc_cols(t), sl__mc_ncols(t), cols,
                         ncols);
    bool want_key = ncols > 1 && cols[1].composite_key;
    if (rc == 0 && sl__mc_key(t) != want_key)
        return differs(err, pos, t->t_name, "its column '%s' is %sa COMPOSITE KEY, the stream "
                       "needs it %s",
                       sl__mc_cols(t)[1].name, want_key ? "not " : "",
                       want_key ? "to be one" : "not to be one");
    if (rc == 0 && kind == SL_TABLE_SUPER)
        rc = same_fields(err, pos, t->t_name, "tag", sl__mc_tags(t), sl__mc_ntags(t), tags, ntags);
    return rc;
}

/* ------------------------------------------------------------ entry */

int sl__mc_stream_out_plan(sl_mcatalog *cat, const sl_create_stream *cs, const sl__mc_db *stream_db,
                           const char *query_db, const sl_table_meta *trigger, sl_ddl_plan *plan,
                           sl_error *err)
{
    if (!cs->has_into || cs->query == NULL)
        return 0; /* sl_stream_check refused INTO without AS */
    /* The output database. */
    const sl__mc_db *odb = stream_db;
    if (cs->into.db != NULL) {
        if (sl_ddl_name_eq(cs->into.db, SL_DDL_INFO_SCHEMA))
            return sl_ddl_error(err, SL_EINVAL, cs->into.pos,
                                "database '%s' is read-only: it holds the system tables",
                                SL_DDL_INFO_SCHEMA);
        odb = sl__mc_find_db(cat, cs->into.db);
        if (odb == NULL)
            return sl_ddl_error(err, SL_ENOTFOUND, cs->into.pos, "database '%s' does not exist",
                                cs->into.db);
    }
    if (trigger != NULL && trigger->db != NULL && sl_ddl_name_eq(trigger->db, odb->d_name) &&
        sl_ddl_name_eq(trigger->name, cs->into.name))
        return sl_ddl_error(err, SL_EINVAL, cs->into.pos,
                            "the INTO table cannot be the trigger table");
    /* Plan the subquery: its result is the output row. */
    out_ctx o = {.cs = cs, .trigger = trigger};
    sl_plan_ctx pc = {
        .catalog = sl_mcatalog_catalog(cat),
        .db = query_db,
        .now_ms = sl__mc_now(cat),
        .bind_placeholder = bind_placeholder,
        .bind_ud = &o,
        .bind_source = bind_source,
        .mode = SL_PLAN_FULL,
    };
    sl_plan *qp = NULL;
    int keep = plan->nops;
    int rc = sl_plan_select(cs->query, &pc, &qp, err);
    if (rc < 0)
        return rc;
    sl_column_def *cols = NULL, *tags = NULL;
    int ncols = 0, ntags = 0;
    bool grouped = cs->has_rollup || cs->partition_by.n > 0;
    rc = derive_cols(cs, qp, plan, &cols, &ncols, err);
    sl_plan_free(qp);
    if (rc == 0 && grouped)
        rc = derive_tags(&o, plan, &tags, &ntags, err);
    for (int i = 0; rc == 0 && i < ntags; i++)
        for (int j = 0; rc == 0 && j < ncols; j++)
            if (sl_ddl_name_eq(tags[i].name, cols[j].name))
                rc = sl_ddl_error(err, SL_EINVAL, tags[i].pos,
                                  "output tag '%s' has the same name as an output column",
                                  tags[i].name);
    if (rc < 0)
        return rc;
    /*
     * The shared rules of CREATE [S]TABLE IF NOT EXISTS validate the schema (and make the op
     * when the table is new); an existing table is then compared with it.
     */
    sl_stmt st;
    memset(&st, 0, sizeof(st));
    st.pos = cs->into.pos;
    sl_qname name = {.db = odb->d_name, .name = cs->into.name, .pos = cs->into.pos};
    if (grouped) {
        st.kind = SL_STMT_CREATE_STABLE;
        st.u.create_stable = (sl_create_stable){.if_not_exists = true, .name = name,
                                                .ncols = ncols, .cols = cols, .ntags = ntags,
                                                .tags = tags};
    } else {
        st.kind = SL_STMT_CREATE_TABLE;
        st.u.create_table =
            (sl_create_table){.if_not_exists = true, .name = name, .ncols = ncols, .cols = cols};
    }
    sl_ddl_source src = sl__mc_source(cat, NULL);
    rc = sl_ddl_plan_stmt(&src, &st, plan, err);
    if (rc == 0 && plan->nops == keep) {
        const sl__mc_table *t = sl__mc_find_table(odb, cs->into.name);
        rc = t != NULL ? check_existing(cs, t, grouped ? SL_TABLE_SUPER : SL_TABLE_NORMAL, cols,
                                        ncols, tags, ntags, err)
                       : sl_ddl_error(err, SL_ESTATE, cs->into.pos,
                                      "output table '%s' was neither found nor planned",
                                      cs->into.name);
    }
    return rc;
}
