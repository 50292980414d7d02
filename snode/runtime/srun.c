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
 * USING <into> TAGS (the TAGS expressions, or the grouping values).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/sql/unparse.h"
#include "stask_int.h"

/* ---------------------------------------------------------------- literals */

static int put_ident(sl_buf *b, const char *s)
{
    int rc = sl_buf_put(b, "`", 1);
    for (const char *p = s; rc == 0 && *p; p++)
        rc = *p == '`' ? sl_buf_put(b, "``", 2) : sl_buf_put(b, p, 1);
    return rc ? rc : sl_buf_put(b, "`", 1);
}

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
} run_ctx;

static int ph_text(void *ud, const sl_expr *ph, sl_buf *out, sl_error *err)
{
    run_ctx *c = ud;
    const sl_trig_event *ev = c->ev;
    sl_stask *t = c->t;
    switch (ph->u.placeholder.ph) {
    case SL_PH_TWSTART: return put_ts(out, ev->wstart);
    case SL_PH_TWEND: return put_ts(out, ev->wend);
    case SL_PH_TWDURATION: return sl_buf_printf(out, "%" PRId64, ev->wduration);
    case SL_PH_TWROWNUM: return sl_buf_printf(out, "%" PRIu64, ev->rownum);
    case SL_PH_TPREV_TS: return put_ts(out, ev->prev_ts);
    case SL_PH_TCURRENT_TS: return put_ts(out, ev->cur_ts);
    case SL_PH_TNEXT_TS: return put_ts(out, ev->next_ts);
    case SL_PH_TPREV_LOCALTIME: return put_ts(out, ns_to(t->prec, ev->prev_local_ns));
    case SL_PH_TNEXT_LOCALTIME: return put_ts(out, ns_to(t->prec, ev->next_local_ns));
    case SL_PH_TLOCALTIME: return put_ts(out, ns_to(t->prec, ev->localtime_ns));
    case SL_PH_TGRPID: return sl_buf_printf(out, "%" PRId64, (int64_t)ev->group_id);
    case SL_PH_TIDLESTART: return sl_buf_printf(out, "%" PRId64, ev->idle_start_ns);
    case SL_PH_TIDLEEND: return sl_buf_printf(out, "%" PRId64, ev->idle_end_ns);
    case SL_PH_PARTITION_COL: {
        int n = ph->u.placeholder.index;
        if (n < 1 || n > t->grp.nkeys)
            return sl_error_set(err, SL_EINVAL, 0, 0, "%%%%%d: the group has %d key(s)", n,
                                t->grp.nkeys);
        return put_value(out, &t->grp.keys[n - 1]);
    }
    case SL_PH_TBNAME: return put_string(out, t->grp.table, strlen(t->grp.table));
    default:
        return sl_error_set(err, SL_EUNSUPPORTED, 0, 0, "placeholder %s is not run yet",
                            sl_placeholder_name(ph->u.placeholder.ph));
    }
}

/* The group's restriction on the trigger table: its tbname or tag values. */
static int put_group_pred(sl_stask *t, sl_buf *w)
{
    int rc = 0;
    for (int k = 0; rc == 0 && k < t->nkeys && k < t->grp.nkeys; k++) {
        const char *col = t->keys[k] < 0 ? "tbname" : t->trig.meta.tags[t->keys[k]].name;
        rc = sl_buf_printf(w, " AND ");
        if (rc == 0)
            rc = t->keys[k] < 0 ? sl_buf_printf(w, "tbname") : put_ident(w, col);
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
    int rc = put_ident(out, t->trig_db);
    if (rc == 0)
        rc = sl_buf_put(out, ".", 1);
    if (from->kind == SL_FROM_TBNAME) {
        if (t->grp.table[0] == '\0')
            return sl_error_set(err, SL_EINVAL, 0, 0, "%%%%tbname: the event has no table");
        return rc ? rc : put_ident(out, t->grp.table);
    }
    if (rc == 0)
        rc = put_ident(out, t->trig_name);
    /* %%trows: the rows of the group behind the event that passed PRE_FILTER. */
    c->trows = true;
    sl_buf_reset(&c->where);
    if (rc == 0)
        rc = put_ident(&c->where, t->trig.meta.cols[0].name);
    if (rc == 0)
        rc = sl_buf_printf(&c->where, " >= ");
    if (rc == 0)
        rc = put_ts(&c->where, c->ev->rows_lo);
    if (rc == 0)
        rc = sl_buf_printf(&c->where, " AND ");
    if (rc == 0)
        rc = put_ident(&c->where, t->trig.meta.cols[0].name);
    if (rc == 0)
        rc = sl_buf_printf(&c->where, " <= ");
    if (rc == 0)
        rc = put_ts(&c->where, c->ev->rows_hi);
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

/* Runs sql on the task's run connection (in the stream's planning database). */
static int run_sql(sl_stask *t, const char *sql, sl_result *res, sl_error *err)
{
    if (t->c_plan_db != NULL && t->c_plan_db[0] != '\0') {
        const char *cur = sl_conn_db(t->run);
        if (cur == NULL || strcasecmp(cur, t->c_plan_db) != 0) {
            sl_buf use;
            sl_buf_init(&use);
            sl_buf_printf(&use, "USE ");
            put_ident(&use, t->c_plan_db);
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

/* Evaluates expressions without a table (OUTPUT_SUBTABLE, TAGS) for the current group:
 * SELECT e1, e2, ... with placeholders substituted. */
static int eval_exprs(sl_stask *t, run_ctx *c, sl_expr *const *exprs, int n, sl_result *res,
                      sl_error *err)
{
    sl_unparse_subst subst = {.ud = c, .placeholder = ph_text};
    sl_buf sql;
    sl_buf_init(&sql);
    int rc = sl_buf_printf(&sql, "SELECT ");
    for (int i = 0; rc == 0 && i < n; i++) {
        if (i > 0)
            rc = sl_buf_printf(&sql, ", ");
        if (rc == 0)
            rc = sl_unparse_expr(exprs[i], &subst, &sql, err);
    }
    if (rc == 0)
        rc = run_sql(t, (const char *)sql.data, res, err);
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

/* The group's output subtable, created on first use. */
static int group_subtable(sl_stask *t, run_ctx *c, const char **name, sl_error *err)
{
    const char *known = known_subtable(t, t->grp.id);
    if (known != NULL) {
        *name = known;
        return 0;
    }
    const sl_create_stream *cs = t->cs;
    char sub[200];
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
                snprintf(sub, sizeof(sub), "%.*s",
                         (int)(v.v.s.len < SL_TABLE_NAME_MAX ? v.v.s.len : SL_TABLE_NAME_MAX),
                         v.v.s.ptr);
        }
        sl_result_fini(&r);
    } else {
        snprintf(sub, sizeof(sub), "%.150s_%016" PRIx64, t->out_name, t->grp.id);
    }
    if (rc < 0)
        return rc;
    /* Tag values: the TAGS expressions, or the grouping values. */
    sl_buf sql;
    sl_buf_init(&sql);
    rc = sl_buf_printf(&sql, "CREATE TABLE IF NOT EXISTS ");
    put_ident(&sql, t->out_db);
    sl_buf_put(&sql, ".", 1);
    put_ident(&sql, sub);
    sl_buf_printf(&sql, " USING ");
    put_ident(&sql, t->out_db);
    sl_buf_put(&sql, ".", 1);
    put_ident(&sql, t->out_name);
    sl_buf_printf(&sql, " TAGS (");
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
                sl_buf_printf(&sql, ", ");
            rc = put_value(&sql, &v);
        }
        sl_result_fini(&r);
    } else {
        for (int k = 0; rc == 0 && k < t->grp.nkeys; k++) {
            if (k > 0)
                sl_buf_printf(&sql, ", ");
            rc = put_value(&sql, &t->grp.keys[k]);
        }
    }
    if (rc == 0)
        rc = sl_buf_printf(&sql, ")");
    if (rc == 0)
        rc = run_sql(t, (const char *)sql.data, &r, err);
    sl_result_fini(&r);
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

static int write_output(sl_stask *t, run_ctx *c, const sl_result *res, char *table, size_t tn,
                        sl_error *err)
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
    sl_block rows;
    sl_block_init(&rows);
    rc = conform(&res->rows, &ti.meta, &rows, err);
    if (rc == 0 && rows.nrows > 0) {
        sl_conn_set_epoch(t->run, atomic_load(&t->epoch));
        rc = sl_insert_block(t->run, t->out_db, name, &rows, err);
        if (rc == 0) {
            pthread_mutex_lock(&t->mu);
            t->st.results += rows.nrows;
            pthread_mutex_unlock(&t->mu);
        }
    }
    sl_block_fini(&rows);
    return rc;
}

/* ---------------------------------------------------------------- events */

static bool computes(const sl_trig_event *ev)
{
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

void sl__st_process_event(sl_stask *t, const sl_trig_event *ev)
{
    run_ctx c = {.t = t, .ev = ev};
    sl_buf_init(&c.where);
    sl_result res;
    sl_result_init(&res);
    char table[200] = "";
    bool have = false;
    sl_error err;
    sl_error_clear(&err);
    if (t->cs->query != NULL && computes(ev)) {
        sl_unparse_subst subst = {
            .ud = &c, .placeholder = ph_text, .source = src_text, .keep_item_names = true};
        sl_buf sql;
        sl_buf_init(&sql);
        int rc = sl_unparse_select(t->cs->query, &subst, &sql, &err);
        /* Semantics rule 10: over an empty %%trows (a window or period the engine reports
         * without rows, e.g. an INTERVAL window between data) the computation yields no
         * row, so nothing is written and the notification has no result - even though
         * SQL gives an aggregate over no rows one row (COUNT 0, SUM NULL). FORCE_OUTPUT
         * keeps the row the query gives. */
        bool empty = rc == 0 && c.trows && (ev->flags & SL_TRIG_F_NO_DATA) &&
                     !(ev->flags & SL_TRIG_F_FORCE_OUTPUT);
        if (rc == 0 && !empty)
            rc = run_sql(t, (const char *)sql.data, &res, &err);
        if (empty) {
            /* nothing to run or write */
        } else if (rc < 0) {
            sl__st_error(t, "computation of group %" PRIu64 " at %" PRId64 ": %s", ev->group_id,
                         ev->wstart, err.msg);
        } else {
            have = res.rows.nrows > 0;
            bool store = t->cs->has_into && !(ev->flags & SL_TRIG_F_CALC_NOTIFY_ONLY);
            if (have && store) {
                sl_error_clear(&err);
                rc = write_output(t, &c, &res, table, sizeof(table), &err);
                if (rc == SL_ESTALE) {
                    pthread_mutex_lock(&t->mu);
                    t->st.fenced = true;
                    pthread_mutex_unlock(&t->mu);
                }
                if (rc < 0)
                    sl__st_error(t, "output of group %" PRIu64 ": %s", ev->group_id, err.msg);
            }
        }
        sl_buf_fini(&sql);
    }
    if (t->cfg.on_event != NULL) {
        sl_stask_result r = {.ncols = res.ncols,
                             .names = (const char *const *)res.names,
                             .rows = have ? &res.rows : NULL,
                             .table = table,
                             .precision = t->prec};
        t->cfg.on_event(t->cfg.event_ud, t, ev, &r);
    }
    sl_result_fini(&res);
    sl_buf_fini(&c.where);
}
