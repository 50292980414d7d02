/*
 * srun.c - a stream task's compute and output paths (stask.h).
 *
 * The computation of an event is the stream's AS subquery printed back to SQL
 * (common/sql/unparse.h) with every placeholder replaced by the event's value as a typed
 * literal - window bounds and trigger times as CAST(n AS TIMESTAMP) in the trigger table's
 * precision, counts and ids as integers, %%n / %%tbname as the group's values - and
 * FROM %%trows replaced by the trigger table restricted to the group, the event's rows
 * and PRE_FILTER; FROM %%tbname by the group's table. The text runs through libsluice like
 * any SELECT (partial work on the vnodes, the merge here), on the task's own connection
 * whose current database is the one the stream's query was planned in.
 *
 * Output: rows whose first column is NULL are dropped (semantics rule 11); the rest are
 * converted to the output table's column types and written with the task's epoch (a
 * deposed snode's write is refused by the vnode). A grouped stream writes to the group's
 * subtable: OUTPUT_SUBTABLE(expr) or the generated name <into>_<group id in hex> (stable
 * per group, semantics rule 12), created on first use with CREATE TABLE IF NOT EXISTS ...
 * USING <into> TAGS (the TAGS expressions, or the grouping values) - the new subtables of a
 * batch of events in one statement (see "batching" below).
 *
 * ROLLUP BY (docs/streams.md, "ROLLUP BY"): a group is a node of the path hierarchy and its
 * key is the node's path: %%1 and the default tag are the path, %%rollup_tag its last
 * segment, _trollup_tbcount the catalog's count of child tables at the node or below. Every
 * read of the trigger table in the query - FROM %%trows and a plain FROM of the trigger
 * table, also inside FROM subqueries - is restricted to the node's subtree:
 * (tag = 'path' OR tag LIKE 'path.%') with LIKE's wildcards in the path escaped.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client/lib/sluice_int.h"
#include "common/exec/plan.h"
#include "common/expr/expr.h"
#include "common/sql/unparse.h"
#include "common/types/rollup.h"
#include "common/util/log.h"
#include "stask_int.h"

/* ---------------------------------------------------------------- literals */

static int put_string(sl_buf *b, const char *s, size_t n)
{
    int rc = sl_buf_put(b, "'", 1);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char c = s[i];
        if (c == '\'' || c == '\\')
            rc = sl_buf_put(b, "\\", 1);
        if (rc == 0)
            rc = c == '\0' ? sl_buf_put(b, "\\0", 2) : sl_buf_put(b, &c, 1);
    }
    return rc ? rc : sl_buf_put(b, "'", 1);
}

static int put_ts(sl_buf *b, int64_t v)
{
    return sl_buf_printf(b, "CAST(%" PRId64 " AS TIMESTAMP)", v);
}

/* A value as a SQL literal of its type. */
static int put_value(sl_buf *b, const sl_value *v)
{
    if (v->is_null)
        return sl_buf_printf(b, "NULL");
    switch (v->type) {
    case SL_T_BOOL: return sl_buf_printf(b, "%s", v->v.b ? "TRUE" : "FALSE");
    case SL_T_TIMESTAMP: return put_ts(b, v->v.i);
    case SL_T_FLOAT:
    case SL_T_DOUBLE:
        if (!isfinite(v->v.d))
            return sl_buf_printf(b, "NULL");
        return sl_buf_printf(b, "%.17e", v->v.d);
    case SL_T_VARCHAR:
    case SL_T_NCHAR: return put_string(b, v->v.s.ptr, v->v.s.len);
    default:
        if (sl_type_is_unsigned_int(v->type))
            return sl_buf_printf(b, "%" PRIu64, v->v.u);
        return sl_buf_printf(b, "%" PRId64, v->v.i);
    }
}

/* Wall ns to a count in precision p. */
static int64_t ns_to(sl_precision p, int64_t ns)
{
    return p == SL_PREC_NS ? ns : p == SL_PREC_US ? ns / 1000 : ns / 1000000;
}

/* ---------------------------------------------------------------- substitution */

typedef struct run_ctx {
    sl_stask *t;
    const sl_trig_event *ev;
    sl_buf where; /* the extra WHERE of FROM %%trows */
    bool trows;   /* the query reads FROM %%trows */
    sl_buf rwhere; /* ROLLUP BY: the subtree restriction of a plain FROM of the trigger
                    * table (built once per event; zeroed: empty; freed by compute) */
} run_ctx;

/* ROLLUP BY: appends "(`col` = 'path' OR `col` LIKE 'path.%')" for the node of t->grp:
 * the rows of child tables whose path is the node's or a descendant's. */
static int put_rollup_pred(sl_stask *t, const char *col, sl_buf *w)
{
    const sl_value *k = &t->grp.keys[0];
    const char *p = t->grp.nkeys > 0 && !k->is_null ? k->v.s.ptr : "";
    uint32_t n = t->grp.nkeys > 0 && !k->is_null ? k->v.s.len : 0;
    if (n == 0) /* no node (cannot happen: such a table has no group) */
        return sl_buf_printf(w, "FALSE");
    sl_buf like;
    sl_buf_init(&like);
    int rc = sl_rollup_like_pattern(p, n, &like);
    if (rc == 0)
        rc = sl_buf_printf(w, "(");
    if (rc == 0)
        rc = sl__st_put_ident(w, col);
    if (rc == 0)
        rc = sl_buf_printf(w, " = ");
    if (rc == 0)
        rc = put_string(w, p, n);
    if (rc == 0)
        rc = sl_buf_printf(w, " OR ");
    if (rc == 0)
        rc = sl__st_put_ident(w, col);
    if (rc == 0)
        rc = sl_buf_printf(w, " LIKE ");
    if (rc == 0)
        rc = put_string(w, (const char *)like.data, like.len);
    if (rc == 0)
        rc = sl_buf_printf(w, ")");
    sl_buf_fini(&like);
    return rc;
}

/*
 * _trollup_tbcount: the child tables of the trigger table the catalog holds now whose path
 * is the node's or a descendant's (information_schema.ins_tags), at the event. Tables with
 * a NULL, empty or invalid path are in no node and not counted.
 */
static int rollup_tbcount(sl_stask *t, int64_t *count, sl_error *err)
{
    const sl_table_meta *m = &t->trig.meta;
    const char *db = m->db != NULL ? m->db : t->trig_db;
    const char *st = m->name != NULL ? m->name : t->trig_name;
    const char *tag = m->tags[t->keys[0]].name;
    sl_buf q;
    sl_buf_init(&q);
    int rc = sl_buf_printf(&q, "SELECT COUNT(*) FROM information_schema.ins_tags WHERE "
                               "db_name = ");
    if (rc == 0)
        rc = put_string(&q, db, strlen(db));
    if (rc == 0)
        rc = sl_buf_printf(&q, " AND stable_name = ");
    if (rc == 0)
        rc = put_string(&q, st, strlen(st));
    if (rc == 0)
        rc = sl_buf_printf(&q, " AND tag_name = ");
    if (rc == 0)
        rc = put_string(&q, tag, strlen(tag));
    if (rc == 0)
        rc = sl_buf_printf(&q, " AND ");
    if (rc == 0)
        rc = put_rollup_pred(t, "tag_value", &q);
    bool null = false;
    if (rc == 0)
        rc = sl__st_query_i64(t, &q, count, &null, "_trollup_tbcount", err);
    else
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    sl_buf_fini(&q);
    if (rc == 0 && null)
        rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "_trollup_tbcount: unexpected catalog answer");
    return rc;
}

/* The value of placeholder ph for the event of c (strings point into the task's group). */
static int ph_value(run_ctx *c, const sl_expr *ph, sl_value *out, sl_error *err)
{
    const sl_trig_event *ev = c->ev;
    sl_stask *t = c->t;
    switch (ph->u.placeholder.ph) {
    case SL_PH_TWSTART: *out = sl_value_int(SL_T_TIMESTAMP, ev->wstart); return 0;
    case SL_PH_TWEND: *out = sl_value_int(SL_T_TIMESTAMP, ev->wend); return 0;
    case SL_PH_TWDURATION: *out = sl_value_int(SL_T_BIGINT, ev->wduration); return 0;
    case SL_PH_TWROWNUM: *out = sl_value_uint(SL_T_UBIGINT, ev->rownum); return 0;
    case SL_PH_TPREV_TS: *out = sl_value_int(SL_T_TIMESTAMP, ev->prev_ts); return 0;
    case SL_PH_TCURRENT_TS: *out = sl_value_int(SL_T_TIMESTAMP, ev->cur_ts); return 0;
    case SL_PH_TNEXT_TS: *out = sl_value_int(SL_T_TIMESTAMP, ev->next_ts); return 0;
    case SL_PH_TPREV_LOCALTIME:
        *out = sl_value_int(SL_T_TIMESTAMP, ns_to(t->prec, ev->prev_local_ns));
        return 0;
    case SL_PH_TNEXT_LOCALTIME:
        *out = sl_value_int(SL_T_TIMESTAMP, ns_to(t->prec, ev->next_local_ns));
        return 0;
    case SL_PH_TLOCALTIME:
        *out = sl_value_int(SL_T_TIMESTAMP, ns_to(t->prec, ev->localtime_ns));
        return 0;
    case SL_PH_TGRPID: *out = sl_value_int(SL_T_BIGINT, (int64_t)ev->group_id); return 0;
    case SL_PH_TIDLESTART: *out = sl_value_int(SL_T_BIGINT, ev->idle_start_ns); return 0;
    case SL_PH_TIDLEEND: *out = sl_value_int(SL_T_BIGINT, ev->idle_end_ns); return 0;
    case SL_PH_PARTITION_COL: {
        int n = ph->u.placeholder.index;
        if (n < 1 || n > t->grp.nkeys)
            return sl_error_set(err, SL_EINVAL, 0, 0, "%%%%%d: the group has %d key(s)", n,
                                t->grp.nkeys);
        *out = t->grp.keys[n - 1];
        return 0;
    }
    case SL_PH_TBNAME:
        *out = sl_value_str(SL_T_VARCHAR, t->grp.table, (uint32_t)strlen(t->grp.table));
        return 0;
    case SL_PH_ROLLUP_TAG: {
        const sl_value *k = &t->grp.keys[0];
        if (!t->rollup || t->grp.nkeys < 1 || k->is_null)
            return sl_error_set(err, SL_EINVAL, 0, 0, "%%%%rollup_tag: the group has no node");
        size_t at = sl_rollup_last_segment(k->v.s.ptr, k->v.s.len);
        *out = sl_value_str(SL_T_VARCHAR, k->v.s.ptr + at, (uint32_t)(k->v.s.len - at));
        return 0;
    }
    case SL_PH_TROLLUP_TBCOUNT: {
        int64_t n = 0;
        if (!t->rollup || t->grp.nkeys < 1)
            return sl_error_set(err, SL_EINVAL, 0, 0, "_trollup_tbcount: the group has no node");
        int rc = rollup_tbcount(t, &n, err);
        if (rc < 0)
            return rc;
        *out = sl_value_int(SL_T_BIGINT, n);
        return 0;
    }
    default:
        return sl_error_set(err, SL_EUNSUPPORTED, 0, 0, "placeholder %s is not run yet",
                            sl_placeholder_name(ph->u.placeholder.ph));
    }
}

/* Placeholders as SQL literals (the computation sent to the vnodes). */
static int ph_text(void *ud, const sl_expr *ph, sl_buf *out, sl_error *err)
{
    sl_value v;
    int rc = ph_value(ud, ph, &v, err);
    return rc < 0 ? rc : put_value(out, &v);
}

/* v as the literal ph_text prints for it would be typed (expr_compile.c), so that a
 * computation run here gives the same types as the one sent to the vnodes. */
static sl_value literal_value(const sl_value *v)
{
    if (v->is_null)
        return sl_value_null(SL_T_NULL);
    switch (v->type) {
    case SL_T_BOOL:
    case SL_T_TIMESTAMP: return *v;
    case SL_T_FLOAT:
    case SL_T_DOUBLE:
        return isfinite(v->v.d) ? sl_value_double(SL_T_DOUBLE, v->v.d) : sl_value_null(SL_T_NULL);
    case SL_T_VARCHAR:
    case SL_T_NCHAR: return sl_value_str(SL_T_VARCHAR, v->v.s.ptr, v->v.s.len);
    default:
        if (sl_type_is_unsigned_int(v->type))
            return v->v.u > (uint64_t)INT64_MAX ? *v : sl_value_int(SL_T_BIGINT, (int64_t)v->v.u);
        return sl_value_int(SL_T_BIGINT, v->v.i);
    }
}

/* Placeholders bound as values (the computation run here, strows.c). */
static int ph_bind(void *ud, const sl_expr *ph, sl_value *out, sl_error *err)
{
    sl_value v;
    int rc = ph_value(ud, ph, &v, err);
    if (rc == 0)
        *out = literal_value(&v);
    return rc;
}

/* FROM %%trows of a computation run here: the trigger table, read through the rows
 * catalog (strows.c), which serves the group's rows in the event's range. */
static int bind_trows(void *ud, const sl_from *from, sl_table_meta *meta, sl_error *err)
{
    run_ctx *c = ud;
    if (from->kind != SL_FROM_TROWS || !c->t->has_table)
        return sl_error_set(err, SL_EUNSUPPORTED, 0, 0, "only %%%%trows is read here");
    c->trows = true;
    *meta = c->t->trig.meta;
    return 0;
}

/* The group's restriction on the trigger table: its tbname or tag values. */
/* Appends "col OP ts" to b, with col quoted as an identifier; op is e.g. " >= ". */
static int put_ts_cmp(sl_buf *b, const char *col, const char *op, int64_t ts)
{
    int rc = sl__st_put_ident(b, col);
    if (rc == 0)
        rc = sl_buf_printf(b, "%s", op);
    if (rc == 0)
        rc = put_ts(b, ts);
    return rc;
}

static int put_group_pred(sl_stask *t, sl_buf *w)
{
    if (t->rollup) {
        int rc = sl_buf_printf(w, " AND ");
        return rc ? rc : put_rollup_pred(t, t->trig.meta.tags[t->keys[0]].name, w);
    }
    int rc = 0;
    for (int k = 0; rc == 0 && k < t->nkeys && k < t->grp.nkeys; k++) {
        const char *col = t->keys[k] < 0 ? "tbname" : t->trig.meta.tags[t->keys[k]].name;
        rc = sl_buf_printf(w, " AND ");
        if (rc == 0)
            rc = t->keys[k] < 0 ? sl_buf_printf(w, "tbname") : sl__st_put_ident(w, col);
        if (rc == 0 && t->grp.keys[k].is_null)
            rc = sl_buf_printf(w, " IS NULL");
        else if (rc == 0) {
            rc = sl_buf_printf(w, " = ");
            if (rc == 0)
                rc = put_value(w, &t->grp.keys[k]);
        }
    }
    return rc;
}

static int src_text(void *ud, const sl_from *from, sl_buf *out, const char **extra_where,
                    sl_error *err)
{
    run_ctx *c = ud;
    sl_stask *t = c->t;
    if (!t->has_table)
        return sl_error_set(err, SL_EINVAL, 0, 0, "the stream has no trigger table");
    int rc = sl__st_put_ident(out, t->trig_db);
    if (rc == 0)
        rc = sl_buf_put(out, ".", 1);
    if (from->kind == SL_FROM_TBNAME) {
        if (t->grp.table[0] == '\0')
            return sl_error_set(err, SL_EINVAL, 0, 0, "%%%%tbname: the event has no table");
        return rc ? rc : sl__st_put_ident(out, t->grp.table);
    }
    /* A group of one child table (PARTITION BY tbname, ...): %%trows reads that table, so
     * the query goes to its vgroup and scans its rows only, not every child table of the
     * super table in the time range (the group predicate below still applies). */
    bool by_table = false;
    for (int k = 0; k < t->nkeys; k++)
        by_table |= t->keys[k] < 0;
    bool one_table = by_table && from->table.name == NULL && !t->rollup &&
                     t->grp.table[0] != '\0' && t->trig.meta.kind == SL_TABLE_SUPER;
    if (rc == 0)
        rc = sl__st_put_ident(out, one_table ? t->grp.table : t->trig_name);
    if (from->table.name != NULL) {
        /* ROLLUP BY: a plain FROM of the trigger table (restrict_query) - the node's
         * subtree, every row of it. */
        if (rc == 0 && c->rwhere.len == 0) {
            rc = put_rollup_pred(t, t->trig.meta.tags[t->keys[0]].name, &c->rwhere);
            if (rc == 0)
                rc = sl_buf_put_u8(&c->rwhere, 0);
        }
        if (rc < 0)
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        *extra_where = (const char *)c->rwhere.data;
        return 0;
    }
    /* %%trows: the rows of the group behind the event that passed PRE_FILTER. */
    c->trows = true;
    sl_buf_reset(&c->where);
    if (rc == 0)
        rc = put_ts_cmp(&c->where, t->trig.meta.cols[0].name, " >= ", c->ev->rows_lo);
    if (rc == 0)
        rc = sl_buf_printf(&c->where, " AND ");
    if (rc == 0)
        rc = put_ts_cmp(&c->where, t->trig.meta.cols[0].name, " <= ", c->ev->rows_hi);
    if (rc == 0)
        rc = put_group_pred(t, &c->where);
    if (rc == 0 && t->prefilter_sql != NULL)
        rc = sl_buf_printf(&c->where, " AND (%s)", t->prefilter_sql);
    if (rc == 0)
        rc = sl_buf_put_u8(&c->where, 0);
    if (rc < 0)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    *extra_where = (const char *)c->where.data;
    return 0;
}

/* ---------------------------------------------------------------- queries */

int sl__st_query_i64(sl_stask *t, sl_buf *q, int64_t *out, bool *is_null, const char *what,
                     sl_error *err)
{
    if (sl_buf_put_u8(q, 0) < 0)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    sl_result r;
    sl_result_init(&r);
    int rc = sl_query(t->run, (const char *)q->data, &r, err);
    if (rc == 0 && (r.ncols != 1 || r.rows.nrows != 1))
        rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "%s: unexpected answer", what);
    if (rc == 0) {
        *is_null = sl_column_is_null(&r.rows.cols[0], 0);
        *out = *is_null ? 0 : sl_column_get_i64(&r.rows.cols[0], 0);
    }
    sl_result_fini(&r);
    return rc;
}

/* Runs sql on the task's run connection (in the stream's planning database). */
static int run_sql(sl_stask *t, const char *sql, sl_result *res, sl_error *err)
{
    if (t->c_plan_db != NULL && t->c_plan_db[0] != '\0') {
        const char *cur = sl_conn_db(t->run);
        if (cur == NULL || strcasecmp(cur, t->c_plan_db) != 0) {
            sl_buf use;
            sl_buf_init(&use);
            sl_buf_printf(&use, "USE ");
            sl__st_put_ident(&use, t->c_plan_db);
            /* put_ident ends with sl_buf_put, which (unlike sl_buf_printf) keeps no NUL
             * after the text: terminate it, or the statement runs on into whatever the
             * allocation held (the task's first computation failed with "unexpected
             * character" at random). */
            sl_buf_put_u8(&use, 0);
            sl_result r;
            int rc = sl_query(t->run, (const char *)use.data, &r, err);
            sl_result_fini(&r);
            sl_buf_fini(&use);
            if (rc < 0)
                return rc;
        }
    }
    return sl_query(t->run, sql, res, err);
}

/* Allocations of a rewritten expression tree, freed together. */
typedef struct ex_pool {
    void **p;
    size_t n, cap;
    bool oom;
} ex_pool;

static void *pool_alloc(ex_pool *pl, size_t size)
{
    if (pl->n == pl->cap) {
        size_t cap = pl->cap ? pl->cap * 2 : 16;
        void **np = realloc(pl->p, cap * sizeof(*np));
        if (np == NULL) {
            pl->oom = true;
            return NULL;
        }
        pl->p = np;
        pl->cap = cap;
    }
    void *m = calloc(1, size ? size : 1);
    if (m == NULL) {
        pl->oom = true;
        return NULL;
    }
    pl->p[pl->n++] = m;
    return m;
}

static void pool_free(ex_pool *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        free(pl->p[i]);
    free(pl->p);
}

static sl_expr *dup_expr(const sl_stask *t, const sl_select *q, const sl_expr *e, ex_pool *pl);

/* Evaluates expressions without a table (OUTPUT_SUBTABLE, TAGS) for the current group:
 * SELECT e1, e2, ... with placeholders substituted and the grouping columns named in them
 * (tbname, a PARTITION BY tag, the ROLLUP BY tag) replaced by the group's values. */
static int eval_exprs(sl_stask *t, run_ctx *c, sl_expr *const *exprs, int n, sl_result *res,
                      sl_error *err)
{
    sl_unparse_subst subst = {.ud = c, .placeholder = ph_text};
    sl_buf sql;
    sl_buf_init(&sql);
    ex_pool pl = {0};
    int rc = sl_buf_printf(&sql, "SELECT ");
    for (int i = 0; rc == 0 && i < n; i++) {
        if (i > 0)
            rc = sl_buf_printf(&sql, ", ");
        const sl_expr *e = dup_expr(t, NULL, exprs[i], &pl);
        if (rc == 0 && pl.oom)
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        if (rc == 0)
            rc = sl_unparse_expr(e, &subst, &sql, err);
    }
    if (rc == 0)
        rc = run_sql(t, (const char *)sql.data, res, err);
    pool_free(&pl);
    sl_buf_fini(&sql);
    if (rc == 0 && res->rows.nrows != 1)
        rc = sl_error_set(err, SL_EINVAL, 0, 0, "an expression gave %u rows", res->rows.nrows);
    return rc;
}

/* ---------------------------------------------------------------- output */

void sl__st_outputs_free(sl_stask *t)
{
    for (size_t i = 0; i < t->nouts; i++)
        free(t->outs[i].name);
    free(t->outs);
    t->outs = NULL;
    t->nouts = t->capouts = 0;
}

static const char *known_subtable(sl_stask *t, uint64_t group)
{
    /* Binary search: outs is sorted by group id. */
    size_t lo = 0, hi = t->nouts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->outs[mid].group < group)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->nouts && t->outs[lo].group == group ? t->outs[lo].name : NULL;
}

static int remember_subtable(sl_stask *t, uint64_t group, const char *name)
{
    if (t->nouts == t->capouts) {
        size_t cap = t->capouts ? t->capouts * 2 : 64;
        st_outtab *p = realloc(t->outs, cap * sizeof(*p));
        if (p == NULL)
            return SL_ENOMEM;
        t->outs = p;
        t->capouts = cap;
    }
    char *copy = strdup(name);
    if (copy == NULL)
        return SL_ENOMEM;
    size_t i = t->nouts;
    while (i > 0 && t->outs[i - 1].group > group) {
        t->outs[i] = t->outs[i - 1];
        i--;
    }
    t->outs[i] = (st_outtab){.group = group, .name = copy};
    t->nouts++;
    return 0;
}

/* The name of the group's output subtable (sub, 200 bytes): OUTPUT_SUBTABLE's value or
 * the generated <into>_<group id in hex>; the known name once it was made or found. */
static int subtable_name(sl_stask *t, run_ctx *c, char *sub, sl_error *err)
{
    const char *known = known_subtable(t, t->grp.id);
    if (known != NULL) {
        snprintf(sub, 200, "%s", known);
        return 0;
    }
    const sl_create_stream *cs = t->cs;
    sl_result r;
    sl_result_init(&r);
    int rc = 0;
    if (cs->output_subtable != NULL) {
        sl_expr *e = cs->output_subtable;
        rc = eval_exprs(t, c, &e, 1, &r, err);
        if (rc == 0) {
            sl_value v;
            sl_column_get(&r.rows.cols[0], 0, &v);
            if (v.is_null || (v.type != SL_T_VARCHAR && v.type != SL_T_NCHAR) || v.v.s.len == 0)
                rc = sl_error_set(err, SL_EINVAL, 0, 0,
                                  "OUTPUT_SUBTABLE gave no name for group %" PRIu64, t->grp.id);
            else /* longer names are truncated, as the spec says */
                snprintf(sub, 200, "%.*s",
                         (int)(v.v.s.len < SL_TABLE_NAME_MAX ? v.v.s.len : SL_TABLE_NAME_MAX),
                         v.v.s.ptr);
        }
        sl_result_fini(&r);
    } else {
        snprintf(sub, 200, "%.150s_%016" PRIx64, t->out_name, t->grp.id);
    }
    return rc;
}

/* Appends the clause "IF NOT EXISTS `db`.`sub` USING `db`.`into` TAGS (...)" of CREATE
 * TABLE that makes the current group's output subtable sub: its tag values are the TAGS
 * expressions, or the grouping values. */
static int subtable_clause(sl_stask *t, run_ctx *c, const char *sub, sl_buf *sql, sl_error *err)
{
    const sl_create_stream *cs = t->cs;
    sl_result r;
    sl_result_init(&r);
    int rc = sl_buf_printf(sql, "IF NOT EXISTS ");
    sl__st_put_ident(sql, t->out_db);
    sl_buf_put(sql, ".", 1);
    sl__st_put_ident(sql, sub);
    sl_buf_printf(sql, " USING ");
    sl__st_put_ident(sql, t->out_db);
    sl_buf_put(sql, ".", 1);
    sl__st_put_ident(sql, t->out_name);
    sl_buf_printf(sql, " TAGS (");
    if (cs->ntags > 0) {
        sl_expr **ex = calloc((size_t)cs->ntags, sizeof(*ex));
        if (ex == NULL)
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        for (int i = 0; rc == 0 && i < cs->ntags; i++)
            ex[i] = cs->tags[i].expr;
        if (rc == 0)
            rc = eval_exprs(t, c, ex, cs->ntags, &r, err);
        free(ex);
        for (int i = 0; rc == 0 && i < cs->ntags; i++) {
            sl_value v;
            sl_column_get(&r.rows.cols[i], 0, &v);
            if (i > 0)
                sl_buf_printf(sql, ", ");
            rc = put_value(sql, &v);
        }
        sl_result_fini(&r);
    } else {
        for (int k = 0; rc == 0 && k < t->grp.nkeys; k++) {
            if (k > 0)
                sl_buf_printf(sql, ", ");
            rc = put_value(sql, &t->grp.keys[k]);
        }
    }
    if (rc == 0)
        rc = sl_buf_printf(sql, ")");
    return rc;
}

/* Runs CREATE TABLE statement sql (NUL-terminated) for output subtables. */
static int run_create(sl_stask *t, const char *sql, sl_error *err)
{
    /* On the DDL connection: t->run's cache (the trigger table's child tables, the output
     * tables) serves every computation and write, and this one's is never needed. The
     * names are qualified, the tag values literals: no current database is needed. */
    sl_conn *ddl = t->ddl != NULL ? t->ddl : t->run;
    sl_conn_set_epoch(ddl, atomic_load(&t->epoch)); /* fenced like the writes */
    sl_result r;
    int rc = sl_query(ddl, sql, &r, err);
    sl_result_fini(&r);
    return rc;
}

/* The group's output subtable, created on first use. */
static int group_subtable(sl_stask *t, run_ctx *c, const char **name, sl_error *err)
{
    const char *known = known_subtable(t, t->grp.id);
    if (known != NULL) {
        *name = known;
        return 0;
    }
    char sub[200];
    int rc = subtable_name(t, c, sub, err);
    if (rc < 0)
        return rc;
    sl_buf sql;
    sl_buf_init(&sql);
    rc = sl_buf_printf(&sql, "CREATE TABLE ");
    if (rc == 0)
        rc = subtable_clause(t, c, sub, &sql, err);
    if (rc == 0)
        rc = sl_buf_put_u8(&sql, 0);
    if (rc == 0)
        rc = run_create(t, (const char *)sql.data, err);
    sl_buf_fini(&sql);
    if (rc == 0 && remember_subtable(t, t->grp.id, sub) < 0)
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    if (rc == 0)
        *name = known_subtable(t, t->grp.id);
    return rc;
}

/* Copies the rows with a non-NULL first column into out, converted to the table's types. */
static int conform(const sl_block *rows, const sl_table_meta *m, sl_block *out, sl_error *err)
{
    if ((int)rows->ncols != m->ncols)
        return sl_error_set(err, SL_ETYPE, 0, 0,
                            "the result has %u columns, the output table %d", rows->ncols,
                            m->ncols);
    int rc = 0;
    for (int i = 0; rc == 0 && i < m->ncols; i++) {
        int k = sl_block_add_column(out, m->cols[i].type, m->cols[i].width);
        rc = k < 0 ? k : 0; /* the column's index otherwise */
    }
    char buf[64];
    for (uint32_t r = 0; rc == 0 && r < rows->nrows; r++) {
        if (sl_column_is_null(&rows->cols[0], r))
            continue; /* semantics rule 11 */
        for (int i = 0; rc == 0 && i < m->ncols; i++) {
            sl_value v, cv;
            sl_column_get(&rows->cols[i], r, &v);
            rc = sl_value_cast(&v, m->cols[i].type, m->cols[i].width, m->precision, buf,
                               sizeof(buf), &cv, err);
            if (rc == 0)
                rc = sl_column_append_value(&out->cols[i], &cv);
        }
        if (rc == 0)
            out->nrows++;
    }
    if (rc == 0)
        sl_block_seal(out);
    return rc;
}

/* Prepares the rows of res for the output table: the group's subtable (created on first
 * use) in table, and rows converted to its column types (NULL first columns dropped). */
static int prepare_output(sl_stask *t, run_ctx *c, const sl_result *res, char *table, size_t tn,
                          sl_block *rows, sl_error *err)
{
    const char *name = t->out_name;
    int rc = 0;
    if (t->grouped)
        rc = group_subtable(t, c, &name, err);
    if (rc < 0)
        return rc;
    snprintf(table, tn, "%s", name);
    sl_table_info ti;
    rc = sl_table_info_get(t->run, t->out_db, name, &ti, err);
    if (rc < 0)
        return rc;
    return conform(&res->rows, &ti.meta, rows, err);
}

/* Writes rows (already conformed) to the output (sub)table with the task's epoch. */
static int insert_rows(sl_stask *t, const char *table, const sl_block *rows, sl_error *err)
{
    if (rows->nrows == 0)
        return 0;
    /* A vnode restarting or a connection lost: a few tries over about 3 s before the
     * write counts as failed (a fenced or invalid write is not retried). */
    int rc = 0;
    for (int attempt = 0, wait_ms = 100;; attempt++, wait_ms *= 2) {
        sl_conn_set_epoch(t->run, atomic_load(&t->epoch));
        sl_error_clear(err);
        rc = sl_insert_block(t->run, t->out_db, table, rows, err);
        if ((rc != SL_EUNAVAILABLE && rc != SL_ETIMEOUT) || attempt == 4 ||
            atomic_load(&t->stop))
            break;
        struct timespec ts = {.tv_sec = wait_ms / 1000, .tv_nsec = (wait_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (rc == 0) {
        pthread_mutex_lock(&t->mu);
        t->st.results += rows->nrows;
        pthread_mutex_unlock(&t->mu);
    }
    return rc;
}

static void output_failed(sl_stask *t, uint64_t group, int rc, const sl_error *err)
{
    /* The slot's engine state now covers an event whose rows are not in the output: its
     * checkpoint must stay before it (stask.c checkpoint_all), so that the slot's next
     * owner - or this snode after a restart - recomputes the event. */
    t->out_failed[group % t->cfg.nslots] = true;
    if (rc == SL_ESTALE) {
        pthread_mutex_lock(&t->mu);
        t->st.fenced = true;
        pthread_mutex_unlock(&t->mu);
    }
    sl__st_error(t, "output of group %" PRIu64 ": %s", group, err->msg);
}

/* ---------------------------------------------------------------- FORCE_OUTPUT */

static bool has_opt(const sl_create_stream *cs, sl_stream_opt_kind k)
{
    for (int i = 0; i < cs->nopts; i++)
        if (cs->opts[i].kind == k)
            return true;
    return false;
}

/* The group key (index) a column of the query names when the query reads the trigger
 * table's group (FROM %%trows / %%tbname) and the column is tbname or a PARTITION BY tag:
 * such a column is constant for the event. -1 otherwise - always for ROLLUP BY, whose tag
 * differs between the tables of a node. q NULL: an OUTPUT_SUBTABLE / TAGS expression,
 * where every grouping column (ROLLUP BY: the tag, the node's path) is the group's value. */
static int key_column(const sl_stask *t, const sl_select *q, const sl_expr *e)
{
    if (q == NULL && t->rollup)
        return e->u.column.table == NULL &&
                       strcasecmp(e->u.column.name, t->cs->rollup_tag) == 0
                   ? 0
                   : -1;
    if (q != NULL && t->rollup)
        return -1;
    if (q != NULL &&
        (q->from == NULL || (q->from->kind != SL_FROM_TROWS && q->from->kind != SL_FROM_TBNAME)))
        return -1;
    if (q != NULL && e->u.column.table != NULL &&
        (q->from->alias == NULL || strcasecmp(q->from->alias, e->u.column.table) != 0))
        return -1;
    for (int k = 0; k < t->nkeys && k < t->grp.nkeys; k++) {
        const char *name = t->keys[k] < 0 ? "tbname" : t->trig.meta.tags[t->keys[k]].name;
        if (strcasecmp(name, e->u.column.name) == 0)
            return k;
    }
    return -1;
}

/* Whether e is constant for the event: literals, placeholders, NOW/TODAY, the group's key
 * columns (key_column), and scalar functions and operators over only those. Aggregates,
 * other columns, pseudo columns (_wstart, _rowts) and * are not. */
static bool const_expr(const sl_stask *t, const sl_select *q, const sl_expr *e)
{
    if (e == NULL)
        return true;
    switch (e->kind) {
    case SL_EX_LITERAL:
    case SL_EX_PLACEHOLDER:
    case SL_EX_NOW:
    case SL_EX_TODAY: return true;
    case SL_EX_COLUMN: return key_column(t, q, e) >= 0;
    case SL_EX_STAR:
    case SL_EX_PSEUDO: return false;
    case SL_EX_UNARY: return const_expr(t, q, e->u.unary.arg);
    case SL_EX_BINARY:
        return const_expr(t, q, e->u.binary.left) && const_expr(t, q, e->u.binary.right);
    case SL_EX_FUNC:
        if (e->u.func.distinct || !sl_scalar_func_exists(e->u.func.name))
            return false;
        for (int i = 0; i < e->u.func.args.n; i++)
            if (!const_expr(t, q, e->u.func.args.items[i]))
                return false;
        return true;
    case SL_EX_CASE:
        if (!const_expr(t, q, e->u.case_.operand) || !const_expr(t, q, e->u.case_.else_))
            return false;
        for (int i = 0; i < e->u.case_.nwhen; i++)
            if (!const_expr(t, q, e->u.case_.whens[i].when) ||
                !const_expr(t, q, e->u.case_.whens[i].then))
                return false;
        return true;
    case SL_EX_IN:
        if (!const_expr(t, q, e->u.in.arg))
            return false;
        for (int i = 0; i < e->u.in.list.n; i++)
            if (!const_expr(t, q, e->u.in.list.items[i]))
                return false;
        return true;
    case SL_EX_BETWEEN:
        return const_expr(t, q, e->u.between.arg) && const_expr(t, q, e->u.between.lo) &&
               const_expr(t, q, e->u.between.hi);
    case SL_EX_ISNULL: return const_expr(t, q, e->u.isnull.arg);
    case SL_EX_LIKE:
        return const_expr(t, q, e->u.like.arg) && const_expr(t, q, e->u.like.pattern);
    case SL_EX_CAST: return const_expr(t, q, e->u.cast.arg);
    }
    return false;
}

static void dup_list(const sl_stask *t, const sl_select *q, sl_expr_list *l, ex_pool *pl)
{
    if (l->n <= 0)
        return;
    sl_expr **items = pool_alloc(pl, (size_t)l->n * sizeof(*items));
    if (items == NULL)
        return;
    for (int i = 0; i < l->n; i++)
        items[i] = dup_expr(t, q, l->items[i], pl);
    l->items = items;
}

/* A copy of a constant expression where the group's key columns are the placeholders
 * %%n of their values (the FROM-less SELECT that prints the forced row has no table). */
static sl_expr *dup_expr(const sl_stask *t, const sl_select *q, const sl_expr *e, ex_pool *pl)
{
    if (e == NULL)
        return NULL;
    sl_expr *n = pool_alloc(pl, sizeof(*n));
    if (n == NULL)
        return (sl_expr *)e;
    *n = *e;
    switch (e->kind) {
    case SL_EX_COLUMN: {
        int k = key_column(t, q, e);
        if (k >= 0) {
            n->kind = SL_EX_PLACEHOLDER;
            n->u.placeholder.ph = SL_PH_PARTITION_COL;
            n->u.placeholder.index = k + 1;
        }
        break;
    }
    case SL_EX_UNARY: n->u.unary.arg = dup_expr(t, q, e->u.unary.arg, pl); break;
    case SL_EX_BINARY:
        n->u.binary.left = dup_expr(t, q, e->u.binary.left, pl);
        n->u.binary.right = dup_expr(t, q, e->u.binary.right, pl);
        break;
    case SL_EX_FUNC: dup_list(t, q, &n->u.func.args, pl); break;
    case SL_EX_CASE:
        n->u.case_.operand = dup_expr(t, q, e->u.case_.operand, pl);
        n->u.case_.else_ = dup_expr(t, q, e->u.case_.else_, pl);
        if (e->u.case_.nwhen > 0) {
            sl_case_when *w = pool_alloc(pl, (size_t)e->u.case_.nwhen * sizeof(*w));
            if (w != NULL) {
                for (int i = 0; i < e->u.case_.nwhen; i++) {
                    w[i].when = dup_expr(t, q, e->u.case_.whens[i].when, pl);
                    w[i].then = dup_expr(t, q, e->u.case_.whens[i].then, pl);
                }
                n->u.case_.whens = w;
            }
        }
        break;
    case SL_EX_IN:
        n->u.in.arg = dup_expr(t, q, e->u.in.arg, pl);
        dup_list(t, q, &n->u.in.list, pl);
        break;
    case SL_EX_BETWEEN:
        n->u.between.arg = dup_expr(t, q, e->u.between.arg, pl);
        n->u.between.lo = dup_expr(t, q, e->u.between.lo, pl);
        n->u.between.hi = dup_expr(t, q, e->u.between.hi, pl);
        break;
    case SL_EX_ISNULL: n->u.isnull.arg = dup_expr(t, q, e->u.isnull.arg, pl); break;
    case SL_EX_LIKE:
        n->u.like.arg = dup_expr(t, q, e->u.like.arg, pl);
        n->u.like.pattern = dup_expr(t, q, e->u.like.pattern, pl);
        break;
    case SL_EX_CAST: n->u.cast.arg = dup_expr(t, q, e->u.cast.arg, pl); break;
    default: break;
    }
    return n;
}

/*
 * The FORCE_OUTPUT row of an event whose computation yielded no row (semantics rule 10):
 * the query's select items that are constant for the event (const_expr) keep their
 * values, every other column is NULL - CAST(NULL AS <the output column's type>) when the
 * stream has an output table, so the row has its types. Printed as a FROM-less SELECT of
 * those items (the items keep their names) with the event's placeholders substituted.
 */
static int forced_row(sl_stask *t, run_ctx *c, sl_result *res, sl_error *err)
{
    const sl_select *q = t->cs->query;
    const sl_table_meta *m = NULL;
    sl_table_info ti;
    if (t->cs->has_into && sl_table_info_get(t->run, t->out_db, t->out_name, &ti, err) == 0)
        m = &ti.meta;
    sl_error_clear(err);
    static const sl_expr null_lit = {.kind = SL_EX_LITERAL, .u.lit.kind = SL_LIT_NULL};
    ex_pool pl = {0};
    sl_select_item *items = calloc((size_t)(q->nitems > 0 ? q->nitems : 1), sizeof(*items));
    sl_expr *casts = calloc((size_t)(q->nitems > 0 ? q->nitems : 1), sizeof(*casts));
    int rc = items == NULL || casts == NULL ? sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory")
                                            : 0;
    for (int i = 0; rc == 0 && i < q->nitems; i++) {
        items[i] = q->items[i];
        const sl_expr *e = q->items[i].expr;
        if (e == NULL || e->kind == SL_EX_STAR) {
            rc = sl_error_set(err, SL_EUNSUPPORTED, 0, 0,
                              "FORCE_OUTPUT: a select list with * has no column list");
        } else if (const_expr(t, q, e)) {
            items[i].expr = dup_expr(t, q, e, &pl);
        } else if (m != NULL && i < m->ncols) {
            casts[i] = (sl_expr){.kind = SL_EX_CAST};
            casts[i].u.cast.arg = (sl_expr *)&null_lit;
            casts[i].u.cast.type = m->cols[i].type;
            casts[i].u.cast.width = sl_type_is_var(m->cols[i].type) ? m->cols[i].width : 0;
            items[i].expr = &casts[i];
        } else {
            items[i].expr = (sl_expr *)&null_lit;
        }
    }
    if (rc == 0 && pl.oom)
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    sl_buf sql;
    sl_buf_init(&sql);
    if (rc == 0) {
        sl_select s = {.pos = q->pos, .nitems = q->nitems, .items = items, .text = ""};
        sl_unparse_subst subst = {.ud = c, .placeholder = ph_text, .keep_item_names = true};
        rc = sl_unparse_select(&s, &subst, &sql, err);
    }
    if (rc == 0)
        rc = run_sql(t, (const char *)sql.data, res, err);
    if (rc == 0 && res->rows.nrows != 1)
        rc = sl_error_set(err, SL_EINVAL, 0, 0, "FORCE_OUTPUT row: %u rows", res->rows.nrows);
    sl_buf_fini(&sql);
    pool_free(&pl);
    free(items);
    free(casts);
    return rc;
}

/* ---------------------------------------------------------------- events */

static bool computes(const sl_trig_event *ev)
{
    if (ev->flags & SL_TRIG_F_NOTIFY_ONLY)
        return false; /* NOTIFY ON asked for it, EVENT_TYPE did not */
    switch (ev->type) {
    case SL_TRIG_EV_WINDOW_OPEN:
    case SL_TRIG_EV_WINDOW_CLOSE:
    case SL_TRIG_EV_ON_TIME:
    case SL_TRIG_EV_IDLE:
    case SL_TRIG_EV_RESUME:
    case SL_TRIG_EV_MAX_DELAY: return true;
    default: return false;
    }
}

/* Whether FROM name q reads the stream's trigger table (names resolve as the query's). */
static bool is_trigger_table(const sl_stask *t, const sl_qname *q)
{
    const char *db = q->db != NULL                                 ? q->db
                     : t->c_plan_db != NULL && t->c_plan_db[0] != '\0' ? t->c_plan_db
                                                                    : t->c_db;
    return q->name != NULL && strcasecmp(q->name, t->trig_name) == 0 &&
           strcasecmp(db, t->trig_db) == 0;
}

/*
 * ROLLUP BY: q, or a copy (allocations in pl) in which every FROM of the trigger table -
 * the query's own or a FROM subquery's, at any depth - is an SL_FROM_TROWS source that
 * keeps its table name: src_text prints it as the table restricted to the node's subtree.
 */
static const sl_select *restrict_query(const sl_stask *t, const sl_select *q, ex_pool *pl)
{
    if (q == NULL || q->from == NULL)
        return q;
    const sl_from *f = q->from;
    sl_from *nf = NULL;
    if (f->kind == SL_FROM_TABLE && is_trigger_table(t, &f->table)) {
        if ((nf = pool_alloc(pl, sizeof(*nf))) == NULL)
            return q;
        *nf = *f;
        nf->kind = SL_FROM_TROWS;
    } else if (f->kind == SL_FROM_SUBQUERY) {
        const sl_select *sub = restrict_query(t, f->subquery, pl);
        if (sub == f->subquery || (nf = pool_alloc(pl, sizeof(*nf))) == NULL)
            return q;
        *nf = *f;
        nf->subquery = (sl_select *)sub;
    } else {
        return q;
    }
    sl_select *nq = pool_alloc(pl, sizeof(*nq));
    if (nq == NULL)
        return q;
    *nq = *q;
    nq->from = nf;
    return nq;
}

/* Runs the computation of c->ev here (sl__st_rows_ready said it can) into *res. */
static int compute_here(sl_stask *t, run_ctx *c, sl_result *res, sl_error *err)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    sl_plan_ctx ctx = {
        .catalog = sl__st_rows_catalog(t),
        .db = t->c_plan_db != NULL && t->c_plan_db[0] != '\0' ? t->c_plan_db : t->c_db,
        .now_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000,
        .bind_placeholder = ph_bind,
        .bind_source = bind_trows,
        .bind_ud = c,
        .mode = SL_PLAN_FULL,
    };
    c->trows = false;
    sl_plan *p;
    int rc = sl_plan_select(t->cs->query, &ctx, &p, err);
    if (rc < 0)
        return rc;
    int ncols = sl_plan_ncols(p);
    res->names = calloc((size_t)(ncols > 0 ? ncols : 1), sizeof(char *));
    for (int i = 0; rc == 0 && i < ncols; i++) {
        if (res->names == NULL || (res->names[i] = strdup(sl_plan_col_name(p, i))) == NULL)
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        else
            res->ncols = i + 1;
    }
    if (rc == 0 && res->names == NULL)
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    res->precision = sl_plan_precision(p);
    res->affected = -1;
    if (rc == 0)
        rc = sl_plan_collect(p, &res->rows, err);
    sl_plan_free(p);
    return rc;
}

/* Runs the computation of ev (t->grp is its group) into *res. Returns 1 when it gave rows,
 * 0 when none (or no computation), < 0 on an error (recorded in the status). */
static int compute(sl_stask *t, run_ctx *c, const sl_trig_event *ev, sl_result *res)
{
    if (t->cs->query == NULL || !computes(ev))
        return 0;
    sl_error err;
    sl_error_clear(&err);
    int rc = 0;
    bool empty = false, here = sl__st_rows_ready(t, ev);
    if (here) {
        rc = compute_here(t, c, res, &err);
        /* Semantics rule 10 (below). */
        empty = rc == 0 && c->trows && (ev->flags & SL_TRIG_F_NO_DATA);
        if (rc < 0 || empty) {
            /* An error goes to the vnodes, whose answer (or error) is the reference. */
            here = !(rc < 0);
            sl_result_fini(res);
            sl_result_init(res);
            sl_error_clear(&err);
            rc = 0;
        }
    }
    if (!here) {
        sl_unparse_subst subst = {
            .ud = c, .placeholder = ph_text, .source = src_text, .keep_item_names = true};
        sl_buf sql;
        sl_buf_init(&sql);
        ex_pool pl = {0};
        const sl_select *q = t->rollup ? restrict_query(t, t->cs->query, &pl) : t->cs->query;
        c->trows = false;
        rc = pl.oom ? sl_error_set(&err, SL_ENOMEM, 0, 0, "out of memory")
                    : sl_unparse_select(q, &subst, &sql, &err);
        /* Semantics rule 10: over an empty %%trows (a window or period the engine reports
         * without rows, e.g. an INTERVAL window between data) the computation yields no
         * row, even though SQL gives an aggregate over no rows one row (COUNT 0, SUM
         * NULL). */
        empty = rc == 0 && c->trows && (ev->flags & SL_TRIG_F_NO_DATA);
        if (rc == 0 && !empty)
            rc = run_sql(t, (const char *)sql.data, res, &err);
        sl_buf_fini(&sql);
        sl_buf_fini(&c->rwhere);
        pool_free(&pl);
    }
    pthread_mutex_lock(&t->mu);
    if (here && !empty)
        t->st.calc_here++;
    else if (!empty)
        t->st.calc_remote++;
    t->st.rows_kept_bytes = sl__st_rows_mem(t);
    pthread_mutex_unlock(&t->mu);
    /* FORCE_OUTPUT: no row (an empty %%trows, or a query that selected nothing) becomes one
     * row of the constant items and NULLs. */
    if (rc == 0 && (empty || res->rows.nrows == 0) && (ev->flags & SL_TRIG_F_FORCE_OUTPUT)) {
        sl_result_fini(res);
        sl_result_init(res);
        rc = forced_row(t, c, res, &err);
    }
    if (rc >= 0)
        sl__st_rows_done(t, ev); /* a closed window's rows are no longer needed */
    if (rc < 0) {
        /* A node that could not be reached (the mnode restarting, a vnode moving) is no
         * verdict on the window: like a failed write, the slot is not checkpointed past
         * the event, and the task's recovery recomputes it from the last checkpoint. */
        if (rc == SL_EUNAVAILABLE || rc == SL_ETIMEOUT)
            t->out_failed[ev->group_id % t->cfg.nslots] = true;
        sl__st_error(t, "computation of group %" PRIu64 " at %" PRId64 ": %s", ev->group_id,
                     ev->wstart, err.msg);
        sl_result_fini(res);
        sl_result_init(res);
        return rc;
    }
    return res->rows.nrows > 0;
}

static bool stores(const sl_stask *t, const sl_trig_event *ev)
{
    return t->cs->has_into && !(ev->flags & SL_TRIG_F_CALC_NOTIFY_ONLY);
}

/* The output (sub)table an event without written rows names in its notification (a
 * window without rows, an open-time event): the group's subtable, made or not yet. */
static void event_table(sl_stask *t, run_ctx *c, char *table, size_t tn)
{
    if (table[0] != '\0' || !t->cs->has_into)
        return;
    if (!t->grouped) {
        snprintf(table, tn, "%s", t->out_name);
        return;
    }
    char sub[200];
    sl_error err;
    sl_error_clear(&err);
    if (subtable_name(t, c, sub, &err) == 0)
        snprintf(table, tn, "%s", sub);
}

static void call_hook(sl_stask *t, const sl_trig_event *ev, const sl_result *res, bool have,
                      const char *table)
{
    if (t->cfg.on_event == NULL)
        return;
    sl_stask_result r = {.ncols = res->ncols,
                         .names = (const char *const *)res->names,
                         .rows = have ? &res->rows : NULL,
                         .table = table,
                         .precision = t->prec};
    t->cfg.on_event(t->cfg.event_ud, t, ev, &r);
}

/* Computes, writes and notifies one event at once. */
static void process_now(sl_stask *t, const sl_trig_event *ev)
{
    run_ctx c = {.t = t, .ev = ev};
    sl_buf_init(&c.where);
    sl_result res;
    sl_result_init(&res);
    char table[200] = "";
    bool have = compute(t, &c, ev, &res) > 0;
    if (have && stores(t, ev)) {
        sl_error err;
        sl_error_clear(&err);
        sl_block rows;
        sl_block_init(&rows);
        int rc = prepare_output(t, &c, &res, table, sizeof(table), &rows, &err);
        if (rc == 0)
            rc = insert_rows(t, table, &rows, &err);
        if (rc < 0)
            output_failed(t, ev->group_id, rc, &err);
        sl_block_fini(&rows);
    }
    if (t->cfg.on_event != NULL)
        event_table(t, &c, table, sizeof(table));
    call_hook(t, ev, &res, have, table);
    sl_result_fini(&res);
    sl_buf_fini(&c.where);
}

/* ---------------------------------------------------------------- batching
 *
 * Without LOW_LATENCY_CALC the events of a reader round are kept (deep copies of the
 * event and of the group context t->grp) and processed together by sl__st_flush_batch at
 * the end of the round: computations in event order, the output subtables the results
 * need and the task does not know yet created together (CREATE TABLE with one clause per
 * subtable, up to CREATE_BATCH: one synced catalog write instead of one per group), then
 * the result rows of the batch -
 * accumulated per output (sub)table - written with one request per vgroup of the output
 * tables (sl__insert_blocks, as a multi-table INSERT is sent) instead of one per event or
 * per table, then the event hooks (notifications) in event order. A table's accumulated
 * rows are written early when a new row has the same first column as one already
 * accumulated (a recomputed window replaces its row: the later one must win). Writes are
 * idempotent and retried like single ones; a table whose rows were not written marks the
 * slot of every group that put rows in it as failed (out_failed: never checkpointed past
 * them). The output is the same as processing each event at once; the cost is latency -
 * up to one reader round (one long-poll wait per vgroup when the log is idle, 100 ms by
 * default) - for fewer round trips per result.
 * The thread's task loop enables batching by calling sl__st_flush_batch (once per round,
 * and before every checkpoint: a checkpoint must not cover unprocessed events); until then
 * every event is processed at once. The queue is thread-local: a task has its own thread.
 */

#define BATCH_MAX 1024

typedef struct st_pending {
    sl_trig_event ev;  /* pointers into mem */
    st_group grp;      /* string keys point into t->grp.keybuf once copied back */
    void *mem;
} st_pending;

static _Thread_local struct {
    sl_stask *t;
    bool enabled;
    st_pending **q;
    size_t n, cap;
} tl_batch;

static size_t values_bytes(const sl_value *v, int n)
{
    size_t b = 0;
    for (int i = 0; v != NULL && i < n; i++)
        if (!v[i].is_null && sl_type_is_var(v[i].type))
            b += v[i].v.s.len;
    return b;
}

static const sl_value *copy_values(sl_value *dst, const sl_value *src, int n, char **bytes)
{
    if (src == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        dst[i] = src[i];
        if (!src[i].is_null && sl_type_is_var(src[i].type)) {
            if (src[i].v.s.len > 0)
                memcpy(*bytes, src[i].v.s.ptr, src[i].v.s.len);
            dst[i].v.s.ptr = *bytes;
            *bytes += src[i].v.s.len;
        }
    }
    return dst;
}

static st_pending *pending_new(const sl_stask *t, const sl_trig_event *ev)
{
    st_pending *p = malloc(sizeof(*p));
    if (p == NULL)
        return NULL;
    p->ev = *ev;
    p->grp = t->grp;
    int ns = ev->nstate > 0 ? ev->nstate : 0, nf = ev->nfields > 0 ? ev->nfields : 0;
    size_t nv = (size_t)ns * 3 + (size_t)nf;
    size_t bytes = values_bytes(ev->prev_state, ns) + values_bytes(ev->cur_state, ns) +
                   values_bytes(ev->next_state, ns) + values_bytes(ev->field_values, nf);
    for (int i = 0; ev->field_names != NULL && i < nf; i++)
        bytes += strlen(ev->field_names[i] ? ev->field_names[i] : "") + 1;
    size_t size = nv * sizeof(sl_value) + (size_t)nf * sizeof(char *) + bytes;
    p->mem = malloc(size ? size : 1);
    if (p->mem == NULL) {
        free(p);
        return NULL;
    }
    sl_value *vals = p->mem;
    const char **names = (const char **)(vals + nv);
    char *b = (char *)(names + nf);
    p->ev.prev_state = copy_values(vals, ev->prev_state, ns, &b);
    p->ev.cur_state = copy_values(vals + ns, ev->cur_state, ns, &b);
    p->ev.next_state = copy_values(vals + 2 * ns, ev->next_state, ns, &b);
    p->ev.field_values = copy_values(vals + 3 * ns, ev->field_values, nf, &b);
    if (ev->field_names != NULL) {
        for (int i = 0; i < nf; i++) {
            const char *s = ev->field_names[i] ? ev->field_names[i] : "";
            size_t l = strlen(s) + 1;
            memcpy(b, s, l);
            names[i] = b;
            b += l;
        }
        p->ev.field_names = names;
    }
    return p;
}

static void pending_free(st_pending *p)
{
    if (p != NULL)
        free(p->mem);
    free(p);
}

/* One output table's rows accumulated by a flush. */
typedef struct st_acc {
    char table[200];
    uint64_t group;    /* the group of its first rows */
    uint64_t *more;    /* other groups with rows in it (OUTPUT_SUBTABLE may give several
                        * groups one table; owned, NULL when none) */
    size_t nmore, capmore;
    sl_block rows;
} st_acc;

/* Notes that group put rows in a's table. 0 or SL_ENOMEM. */
static int acc_note_group(st_acc *a, uint64_t group)
{
    if (group == a->group)
        return 0;
    for (size_t i = 0; i < a->nmore; i++)
        if (a->more[i] == group)
            return 0;
    if (a->nmore == a->capmore) {
        size_t cap = a->capmore ? a->capmore * 2 : 4;
        uint64_t *p = realloc(a->more, cap * sizeof(*p));
        if (p == NULL)
            return SL_ENOMEM;
        a->more = p;
        a->capmore = cap;
    }
    a->more[a->nmore++] = group;
    return 0;
}

static void acc_fini(st_acc *a)
{
    sl_block_fini(&a->rows);
    free(a->more);
}

static bool retryable(int rc)
{
    return rc == SL_EUNAVAILABLE || rc == SL_ETIMEOUT;
}

/*
 * Writes the rows accumulated in accs[0..n) (those with rows) with one request per vgroup
 * of their tables (sl__insert_blocks) and resets them. A vnode restarting or a connection
 * lost: the items refused for it are tried again, a few times over about 3 s, as
 * insert_rows does. A vnode that does not know a table refuses the whole request of its
 * vgroup: its items are tried once more at once, looked up afresh (sl__insert_blocks forgot
 * their entries), so that only a table that is really gone fails. A table whose rows end
 * up not written fails the slots of every group that put rows in it. Without memory for
 * the batch, each table is written by itself.
 */
static void accs_write(sl_stask *t, st_acc *accs, size_t n)
{
    sl__block_write *w = calloc(n ? n : 1, sizeof(*w));
    size_t *pend = calloc(n ? n : 1, sizeof(*pend));
    if (w == NULL || pend == NULL) {
        free(w);
        free(pend);
        for (size_t i = 0; i < n; i++) {
            if (accs[i].rows.nrows == 0)
                continue;
            sl_error err;
            sl_error_clear(&err);
            int rc = insert_rows(t, accs[i].table, &accs[i].rows, &err);
            if (rc < 0) {
                output_failed(t, accs[i].group, rc, &err);
                for (size_t k = 0; k < accs[i].nmore; k++)
                    output_failed(t, accs[i].more[k], rc, &err);
            }
            sl_block_reset(&accs[i].rows);
            accs[i].nmore = 0;
        }
        return;
    }
    size_t np = 0;
    for (size_t i = 0; i < n; i++)
        if (accs[i].rows.nrows > 0)
            pend[np++] = i;
    for (int attempt = 0, wait_ms = 100; np > 0; attempt++, wait_ms *= 2) {
        for (size_t k = 0; k < np; k++)
            w[k] = (sl__block_write){.table = accs[pend[k]].table, .rows = &accs[pend[k]].rows};
        sl_error err;
        sl_error_clear(&err);
        sl_conn_set_epoch(t->run, atomic_load(&t->epoch));
        sl__insert_blocks(t->run, t->out_db, w, np, &err);
        bool last = attempt == 4 || atomic_load(&t->stop);
        size_t again = 0;
        bool pause = false;
        uint64_t written = 0;
        for (size_t k = 0; k < np; k++) {
            st_acc *a = &accs[pend[k]];
            int rc = w[k].rc;
            if (rc == 0) {
                written += a->rows.nrows;
            } else if ((retryable(rc) || (rc == SL_ENOTFOUND && attempt == 0)) && !last) {
                pause = pause || retryable(rc);
                pend[again++] = pend[k];
                continue;
            } else {
                /* err holds the message of the call's first failure */
                sl_error e;
                sl_error_clear(&e);
                sl_error_set(&e, rc, 0, 0, "table %s: %s", a->table,
                             err.code == rc && err.msg[0] ? err.msg : sl_strerror(rc));
                output_failed(t, a->group, rc, &e);
                for (size_t g = 0; g < a->nmore; g++)
                    output_failed(t, a->more[g], rc, &e);
            }
            sl_block_reset(&a->rows);
            a->nmore = 0;
        }
        if (written > 0) {
            pthread_mutex_lock(&t->mu);
            t->st.results += written;
            pthread_mutex_unlock(&t->mu);
        }
        np = again;
        if (pause) {
            struct timespec ts = {.tv_sec = wait_ms / 1000,
                                  .tv_nsec = (wait_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    free(w);
    free(pend);
}

/* Whether a first-column value of add is among those of acc. */
static bool acc_collides(const sl_block *acc, const sl_block *add)
{
    if (acc->nrows == 0 || add->ncols == 0)
        return false;
    for (uint32_t j = 0; j < add->nrows; j++) {
        sl_value b;
        sl_column_get(&add->cols[0], j, &b);
        for (uint32_t i = 0; i < acc->nrows; i++) {
            sl_value a;
            int cmp = 1;
            sl_column_get(&acc->cols[0], i, &a);
            if (sl_value_compare(&a, &b, SL_PREC_MS, &cmp) == 0 && cmp == 0)
                return true;
        }
    }
    return false;
}

/* Writes one table's accumulated rows now (a collision, see above). */
static void acc_write(sl_stask *t, st_acc *a)
{
    accs_write(t, a, 1);
}

/* Adds rows (conformed to table) to the flush's accumulator of table. */
static int acc_add(sl_stask *t, st_acc **accs, size_t *nacc, const char *table, uint64_t group,
                   sl_block *rows)
{
    st_acc *a = NULL;
    for (size_t i = 0; i < *nacc && a == NULL; i++)
        if (strcmp((*accs)[i].table, table) == 0)
            a = &(*accs)[i];
    if (a == NULL) {
        st_acc *p = realloc(*accs, (*nacc + 1) * sizeof(*p));
        if (p == NULL)
            return SL_ENOMEM;
        *accs = p;
        a = &p[(*nacc)++];
        snprintf(a->table, sizeof(a->table), "%s", table);
        a->group = group;
        a->more = NULL;
        a->nmore = a->capmore = 0;
        a->rows = *rows; /* takes the block */
        sl_block_init(rows);
        return 0;
    }
    if (a->rows.ncols != rows->ncols || acc_collides(&a->rows, rows))
        acc_write(t, a);
    if (a->rows.nrows == 0) /* written: the rows to come are this group's alone */
        a->group = group;
    else if (acc_note_group(a, group) < 0)
        return SL_ENOMEM;
    if (a->rows.ncols != rows->ncols) {
        sl_block_fini(&a->rows);
        a->rows = *rows;
        sl_block_init(rows);
        return 0;
    }
    for (uint32_t i = 0; i < rows->ncols; i++) {
        int rc = sl_column_append_rows(&a->rows.cols[i], &rows->cols[i], NULL, 0, rows->nrows);
        if (rc < 0)
            return rc;
    }
    sl_block_seal(&a->rows);
    return 0;
}

/* Most output subtables one CREATE TABLE statement of a flush makes. */
#define CREATE_BATCH 256

/* A subtable a flush creates: the groups that write to it (several under one
 * OUTPUT_SUBTABLE name), remembered once the statement that creates it succeeded. */
typedef struct st_newsub {
    uint64_t group;
    char name[200];
} st_newsub;

/* Runs one CREATE TABLE statement of the clauses in sql (started with "CREATE TABLE ") and,
 * when it succeeds, remembers the subtables of subs[0..n). A failure is not reported here:
 * each group's first write then creates its table by itself and reports its own error. */
static void create_batch(sl_stask *t, sl_buf *sql, const st_newsub *subs, size_t n)
{
    if (n == 0 || sl_buf_put_u8(sql, 0) < 0)
        return;
    sl_error err;
    sl_error_clear(&err);
    if (run_create(t, (const char *)sql->data, &err) < 0)
        return;
    const char **names = malloc(n * sizeof(*names));
    for (size_t i = 0; names != NULL && i < n; i++)
        names[i] = subs[i].name;
    /* Their metadata in one request, not one per table when the round writes to them. */
    if (names != NULL && sl__meta_prefetch(t->run, t->out_db, names, n, &err) < 0)
        sl_log(SL_LOG_DEBUG, "snode", "stream %s.%s: prefetching %zu subtables: %s", t->c_db,
               t->c_name, n, err.msg);
    free(names);
    for (size_t i = 0; i < n; i++)
        if (known_subtable(t, subs[i].group) == NULL &&
            remember_subtable(t, subs[i].group, subs[i].name) < 0)
            break; /* out of memory: the rest are created (if not exists) again */
}

/*
 * Creates the output subtables that the stored results of the flush's events q[0..n) need
 * and the task does not know yet, with one CREATE TABLE statement per CREATE_BATCH of them
 * (each clause IF NOT EXISTS) instead of one statement - one synced catalog write on the
 * mnode - per group. The names and tag values are worked out per event exactly as a single
 * creation does; a group named twice, or two groups naming one table, give one clause.
 */
static void create_subtables(sl_stask *t, st_pending **q, size_t n, const bool *have)
{
    if (!t->grouped)
        return;
    st_newsub *subs = calloc(CREATE_BATCH, sizeof(*subs));
    if (subs == NULL)
        return;
    size_t nsubs = 0;
    sl_buf sql;
    sl_buf_init(&sql);
    for (size_t i = 0; i < n; i++) {
        if (!have[i] || !stores(t, &q[i]->ev) || known_subtable(t, q[i]->grp.id) != NULL)
            continue;
        t->grp = q[i]->grp;
        run_ctx c = {.t = t, .ev = &q[i]->ev};
        sl_buf_init(&c.where);
        sl_error err;
        sl_error_clear(&err);
        char sub[200];
        bool named = subtable_name(t, &c, sub, &err) == 0;
        bool listed = false, clause = false;
        for (size_t k = 0; named && k < nsubs && !listed; k++) {
            listed = subs[k].group == t->grp.id;
            clause = clause || strcasecmp(subs[k].name, sub) == 0;
        }
        if (named && !listed) {
            size_t len = sql.len;
            int rc = sl_buf_printf(&sql, nsubs == 0 ? "CREATE TABLE " : " ");
            if (rc == 0 && !clause)
                rc = subtable_clause(t, &c, sub, &sql, &err);
            if (rc == 0) {
                subs[nsubs].group = t->grp.id;
                snprintf(subs[nsubs].name, sizeof(subs[nsubs].name), "%s", sub);
                nsubs++;
            } else {
                sql.len = len; /* this group's creation reports its error by itself */
            }
        }
        sl_buf_fini(&c.where);
        if (nsubs == CREATE_BATCH) {
            create_batch(t, &sql, subs, nsubs);
            sl_buf_reset(&sql);
            nsubs = 0;
        }
    }
    create_batch(t, &sql, subs, nsubs);
    sl_buf_fini(&sql);
    free(subs);
}

/* Processes the queued events (see above). */
static void flush_pending(sl_stask *t)
{
    size_t n = tl_batch.n;
    if (n == 0)
        return;
    st_pending **q = tl_batch.q;
    tl_batch.q = NULL;
    tl_batch.n = tl_batch.cap = 0;
    sl_result *res = calloc(n, sizeof(*res));
    char (*tables)[200] = calloc(n, sizeof(*tables));
    bool *have = calloc(n, sizeof(*have));
    if (res == NULL || tables == NULL || have == NULL) {
        /* No room to batch: one at a time. */
        for (size_t i = 0; i < n; i++) {
            t->grp = q[i]->grp;
            process_now(t, &q[i]->ev);
            pending_free(q[i]);
        }
        free(q);
        free(res);
        free(tables);
        free(have);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        t->grp = q[i]->grp;
        run_ctx c = {.t = t, .ev = &q[i]->ev};
        sl_buf_init(&c.where);
        sl_result_init(&res[i]);
        have[i] = compute(t, &c, &q[i]->ev, &res[i]) > 0;
        sl_buf_fini(&c.where);
    }
    create_subtables(t, q, n, have);
    st_acc *accs = NULL;
    size_t nacc = 0;
    for (size_t i = 0; i < n; i++) {
        const sl_trig_event *ev = &q[i]->ev;
        t->grp = q[i]->grp;
        run_ctx c = {.t = t, .ev = ev};
        sl_buf_init(&c.where);
        if (have[i] && stores(t, ev)) {
            sl_error err;
            sl_error_clear(&err);
            sl_block rows;
            sl_block_init(&rows);
            int rc = prepare_output(t, &c, &res[i], tables[i], sizeof(tables[i]), &rows, &err);
            if (rc == 0 && rows.nrows > 0 &&
                acc_add(t, &accs, &nacc, tables[i], ev->group_id, &rows) < 0) {
                /* out of memory: write this event's rows by themselves */
                rc = insert_rows(t, tables[i], &rows, &err);
            }
            if (rc < 0)
                output_failed(t, ev->group_id, rc, &err);
            sl_block_fini(&rows);
        }
        if (t->cfg.on_event != NULL)
            event_table(t, &c, tables[i], sizeof(tables[i]));
        sl_buf_fini(&c.where);
    }
    accs_write(t, accs, nacc);
    for (size_t i = 0; i < nacc; i++)
        acc_fini(&accs[i]);
    free(accs);
    for (size_t i = 0; i < n; i++) {
        t->grp = q[i]->grp;
        call_hook(t, &q[i]->ev, &res[i], have[i], tables[i]);
        sl_result_fini(&res[i]);
        pending_free(q[i]);
    }
    free(q);
    free(res);
    free(tables);
    free(have);
}

void sl__st_flush_batch(sl_stask *t)
{
    if (tl_batch.t != t) {
        /* A new task on this thread (cannot happen with one thread per task): drop the
         * other's queue state. */
        tl_batch.t = t;
        tl_batch.n = 0;
    }
    tl_batch.enabled = true;
    flush_pending(t);
    if (tl_batch.q != NULL && tl_batch.n == 0) {
        free(tl_batch.q);
        tl_batch.q = NULL;
        tl_batch.cap = 0;
    }
}

void sl__st_process_event(sl_stask *t, const sl_trig_event *ev)
{
    bool batch = tl_batch.enabled && tl_batch.t == t && !(ev->flags & SL_TRIG_F_LOW_LATENCY);
    if (!batch) {
        if (tl_batch.n > 0) { /* keep the order of anything queued */
            st_group g = t->grp;
            flush_pending(t);
            t->grp = g;
        }
        process_now(t, ev);
        return;
    }
    if (tl_batch.n >= BATCH_MAX) {
        st_group g = t->grp;
        flush_pending(t);
        t->grp = g;
    }
    if (tl_batch.n == tl_batch.cap) {
        size_t cap = tl_batch.cap ? tl_batch.cap * 2 : 64;
        st_pending **p = realloc(tl_batch.q, cap * sizeof(*p));
        if (p == NULL) {
            st_group g = t->grp;
            flush_pending(t);
            t->grp = g;
            process_now(t, ev);
            return;
        }
        tl_batch.q = p;
        tl_batch.cap = cap;
    }
    st_pending *p = pending_new(t, ev);
    if (p == NULL) {
        st_group g = t->grp;
        flush_pending(t);
        t->grp = g;
        process_now(t, ev);
        return;
    }
    tl_batch.q[tl_batch.n++] = p;
}

/* ---------------------------------------------------------------- NODELAY_CREATE_SUBTABLE */

static bool owns_slot(const sl_stask *t, uint64_t gid)
{
    uint32_t slot = (uint32_t)(gid % t->cfg.nslots);
    return (t->c_slots[slot / 8] >> (slot % 8)) & 1;
}

/* Makes t->grp the group of child (or normal) table `table` whose tag values are the row
 * of tagvals (NULL: none), as the vnode's change filter groups it (tbname as VARCHAR, tags
 * with their types). */
static void group_of_table(sl_stask *t, const char *table, const sl_block *tagvals)
{
    st_group *g = &t->grp;
    memset(g, 0, sizeof(*g));
    snprintf(g->table, sizeof(g->table), "%s", table);
    size_t used = 0;
    for (int k = 0; k < t->nkeys && k < ST_MAX_KEYS; k++) {
        sl_value v = sl_value_null(SL_T_NULL);
        if (t->keys[k] < 0)
            v = sl_value_str(SL_T_VARCHAR, g->table, (uint32_t)strlen(g->table));
        else if (tagvals != NULL && tagvals->nrows > 0 && (uint32_t)t->keys[k] < tagvals->ncols)
            sl_column_get(&tagvals->cols[t->keys[k]], 0, &v);
        if (!v.is_null && sl_type_is_var(v.type))
            used = sl__st_group_keep_str(g, used, &v);
        g->keys[g->nkeys++] = v;
    }
    g->id = sl_group_id(g->keys, g->nkeys);
}

/* Creates the output subtable of group t->grp (NODELAY_CREATE_SUBTABLE) unless this task
 * does not own it or knows it already. */
static int create_output_of_group(sl_stask *t, sl_error *err)
{
    if (!owns_slot(t, t->grp.id) || known_subtable(t, t->grp.id) != NULL)
        return 0;
    sl_trig_event none;
    memset(&none, 0, sizeof(none));
    none.group_id = t->grp.id;
    run_ctx c = {.t = t, .ev = &none};
    sl_buf_init(&c.where);
    const char *sub;
    int rc = group_subtable(t, &c, &sub, err);
    sl_buf_fini(&c.where);
    return rc;
}

/*
 * NODELAY_CREATE_SUBTABLE: called once the task is set up. Creates the output subtable of
 * every group the trigger table has now whose slot this task owns - one per child table
 * for PARTITION BY tbname, one per distinct tag value combination for tag grouping, one
 * per node of the child tables' paths for ROLLUP BY - instead of on its first result. A group that appears later gets its subtable on first
 * use as usual. Without grouping the output table is a normal table made with the stream,
 * and CALC_NOTIFY_ONLY writes nothing: nothing to do. Errors are recorded in the status
 * (the subtable is then created on first use).
 */
void sl__st_create_outputs(sl_stask *t)
{
    const sl_create_stream *cs = t->cs;
    if (cs == NULL || !cs->nodelay_create_subtable || !cs->has_into || !t->grouped ||
        !t->has_table || has_opt(cs, SL_SOPT_CALC_NOTIFY_ONLY))
        return;
    sl_error err;
    sl_error_clear(&err);
    sl_result r;
    sl_result_init(&r);
    int rc = 0;
    char **names = NULL;
    size_t nnames = 0;
    if (t->trig.meta.kind == SL_TABLE_SUPER) {
        sl_buf q;
        sl_buf_init(&q);
        sl_buf_printf(&q, "SELECT table_name FROM information_schema.ins_tables WHERE db_name = ");
        put_string(&q, t->trig_db, strlen(t->trig_db));
        sl_buf_printf(&q, " AND stable_name = ");
        put_string(&q, t->trig_name, strlen(t->trig_name));
        rc = sl_buf_put_u8(&q, 0);
        if (rc == 0)
            rc = sl_query(t->run, (const char *)q.data, &r, &err);
        sl_buf_fini(&q);
        if (rc == 0 && r.ncols >= 1) {
            names = calloc(r.rows.nrows ? r.rows.nrows : 1, sizeof(*names));
            for (uint32_t i = 0; names != NULL && i < r.rows.nrows; i++) {
                uint32_t len = 0;
                const char *s = sl_column_is_null(&r.rows.cols[0], i)
                                    ? NULL
                                    : sl_column_get_str(&r.rows.cols[0], i, &len);
                if (s != NULL && (names[nnames] = strndup(s, len)) != NULL)
                    nnames++;
            }
        }
    } else {
        names = calloc(1, sizeof(*names));
        if (names != NULL && (names[0] = strdup(t->trig_name)) != NULL)
            nnames = 1;
    }
    sl_result_fini(&r);
    if (rc < 0)
        sl__st_error(t, "NODELAY_CREATE_SUBTABLE: listing the child tables of %s.%s: %s",
                     t->trig_db, t->trig_name, err.msg);
    for (size_t i = 0; i < nnames && !atomic_load(&t->stop); i++) {
        sl_error_clear(&err);
        sl_table_info ti;
        rc = sl_table_info_get(t->run, t->trig_db, names[i], &ti, &err);
        if (rc == SL_ENOTFOUND)
            continue; /* dropped meanwhile */
        if (rc == 0 && t->rollup) {
            /* Every node of the table's path (NULL, empty or invalid: none). */
            sl_value v = sl_value_null(t->rollup_type);
            if (ti.tagvals != NULL && ti.tagvals->nrows > 0 &&
                t->keys[0] < (int)ti.tagvals->ncols)
                sl_column_get(&ti.tagvals->cols[t->keys[0]], 0, &v);
            uint32_t ends[SL_ROLLUP_MAX_DEPTH];
            int np = v.is_null || !sl_type_is_var(v.type) || v.v.s.len > sizeof(t->grp.keybuf)
                         ? 0
                         : sl_rollup_prefixes(v.v.s.ptr, v.v.s.len, ends, NULL);
            char *path = np > 0 ? strndup(v.v.s.ptr, v.v.s.len) : NULL;
            if (np > 0 && path == NULL)
                rc = sl_error_set(&err, SL_ENOMEM, 0, 0, "out of memory");
            for (int k = 0; rc == 0 && k < np; k++) {
                sl__st_group_path(t, names[i], path, ends[k]);
                rc = create_output_of_group(t, &err);
            }
            free(path);
        } else if (rc == 0) {
            group_of_table(t, names[i], ti.tagvals);
            rc = create_output_of_group(t, &err);
        }
        if (rc < 0)
            sl__st_error(t, "NODELAY_CREATE_SUBTABLE: output subtable of %s: %s", names[i],
                         err.msg);
    }
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    memset(&t->grp, 0, sizeof(t->grp));
}

/* ---------------------------------------------------------------- DELETE_OUTPUT_TABLE */

static void forget_subtable(sl_stask *t, uint64_t group)
{
    for (size_t i = 0; i < t->nouts; i++) {
        if (t->outs[i].group != group)
            continue;
        free(t->outs[i].name);
        memmove(&t->outs[i], &t->outs[i + 1], (t->nouts - i - 1) * sizeof(*t->outs));
        t->nouts--;
        return;
    }
}

/*
 * DELETE_OUTPUT_TABLE: child table `table` of the trigger table, group group_id, was
 * dropped (a change-log entry of kind 3 for an owned slot). For a stream grouped by
 * subtable (PARTITION BY tbname) with DELETE_OUTPUT_TABLE, drops the group's output
 * subtable: the one this task made or found, else the name OUTPUT_SUBTABLE gives for the
 * table (a single tbname key) or the generated <into>_<group id> name. Queued events are
 * processed first, so their rows are not written after the drop.
 */
void sl__st_table_dropped(sl_stask *t, const char *table, uint64_t group_id)
{
    const sl_create_stream *cs = t->cs;
    if (cs == NULL)
        return;
    if (tl_batch.n > 0) {
        st_group g = t->grp;
        flush_pending(t);
        t->grp = g;
    }
    bool by_tbname = false;
    for (int k = 0; k < t->nkeys; k++)
        by_tbname |= t->keys[k] < 0;
    if (!has_opt(cs, SL_SOPT_DELETE_OUTPUT_TABLE) || !cs->has_into || !by_tbname ||
        cs->has_rollup)
        return;
    sl_error err;
    sl_error_clear(&err);
    char sub[200] = "";
    int rc = 0;
    const char *known = known_subtable(t, group_id);
    if (known != NULL) {
        snprintf(sub, sizeof(sub), "%s", known);
    } else if (cs->output_subtable == NULL) {
        snprintf(sub, sizeof(sub), "%.150s_%016" PRIx64, t->out_name, group_id);
    } else if (t->nkeys == 1 && table != NULL && table[0] != '\0') {
        st_group saved = t->grp;
        group_of_table(t, table, NULL);
        sl_trig_event none;
        memset(&none, 0, sizeof(none));
        none.group_id = group_id;
        run_ctx c = {.t = t, .ev = &none};
        sl_buf_init(&c.where);
        sl_result r;
        sl_result_init(&r);
        sl_expr *e = cs->output_subtable;
        rc = eval_exprs(t, &c, &e, 1, &r, &err);
        if (rc == 0) {
            sl_value v;
            sl_column_get(&r.rows.cols[0], 0, &v);
            if (!v.is_null && sl_type_is_var(v.type) && v.v.s.len > 0)
                snprintf(sub, sizeof(sub), "%.*s",
                         (int)(v.v.s.len < SL_TABLE_NAME_MAX ? v.v.s.len : SL_TABLE_NAME_MAX),
                         v.v.s.ptr);
        }
        sl_result_fini(&r);
        sl_buf_fini(&c.where);
        t->grp = saved;
    }
    if (rc == 0 && sub[0] == '\0')
        rc = sl_error_set(&err, SL_EINVAL, 0, 0, "no output subtable name for group %" PRIu64,
                          group_id);
    if (rc == 0) {
        sl_buf q;
        sl_buf_init(&q);
        sl_buf_printf(&q, "DROP TABLE IF EXISTS ");
        sl__st_put_ident(&q, t->out_db);
        sl_buf_put(&q, ".", 1);
        sl__st_put_ident(&q, sub);
        rc = sl_buf_put_u8(&q, 0);
        sl_result r;
        sl_result_init(&r);
        if (rc == 0) {
            sl_conn_set_epoch(t->run, atomic_load(&t->epoch));
            rc = run_sql(t, (const char *)q.data, &r, &err);
        }
        sl_result_fini(&r);
        sl_buf_fini(&q);
    }
    if (rc < 0)
        sl__st_error(t, "DELETE_OUTPUT_TABLE: output subtable of %s: %s", table ? table : "?",
                     err.msg);
    else
        forget_subtable(t, group_id);
}
