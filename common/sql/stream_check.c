/*
 * stream_check.c - the rules of a CREATE STREAM statement (spec/stream-syntax.txt).
 *
 * sl_stream_check() walks the tree the parser built, in a fixed order (trigger table,
 * trigger parameters, grouping, STREAM_OPTIONS, NOTIFY, output clauses, the AS subquery and
 * its placeholders) and refuses the first clause that breaks a rule, naming the rule.
 *
 * Decisions where the spec leaves room (also listed in the report of the change):
 *  1. Calendar units in comparisons: a month counts as 28 days and a year as 365 days, for
 *     the PERIOD range [10a, 3650d] as for the "offset < period" rule the spec states with
 *     28 days (so PERIOD(130n) is accepted and PERIOD(131n) refused; 10y is accepted).
 *  2. "offset < period" is enforced only where the spec states it: periods in w, n or y, for
 *     PERIOD and, since "the time offset rules are the same", for SLIDING. Offsets of
 *     sub-week periods are only unit-checked. INTERVAL's own offset must be shorter than
 *     the interval and SLIDING no longer than INTERVAL (the windows' usual rule, unstated).
 *  3. EVENT_TYPE on PERIOD and plain SLIDING is ignored (spec: "automatically ignored"), so
 *     the window placeholders stay invalid there; MAX_DELAY on non-window triggers is
 *     accepted and ignored likewise.
 *  4. IGNORE_NODATA_TRIGGER is an error on SESSION/STATE/EVENT/COUNT: the spec lists where
 *     it is "applicable" without saying "ignored" (unlike EVENT_TYPE and MAX_DELAY), and a
 *     data-driven window never lacks data.
 *  5. IGNORE_DISORDER is accepted on every count window (for sliding != 1 it is what the
 *     window does anyway); DELETE_RECALC is refused on count windows whose step is not 1
 *     (COUNT_WINDOW(n) steps by n). DELETE_RECALC is accepted on the other trigger types.
 *  6. %%trows, _twend, _twduration and _twrownum need WINDOW_CLOSE to be the only event of
 *     a window trigger (EVENT_TYPE absent or EVENT_TYPE(WINDOW_CLOSE)): at an open or idle
 *     event there is no closed window. %%trows on PERIOD/SLIDING is allowed (the spec
 *     defines it there) but needs FROM.
 *  7. IDLE_TIMEOUT <-> EVENT_TYPE(IDLE|RESUME) and NOTIFY ON (IDLE|RESUME) -> IDLE_TIMEOUT
 *     are checked for every trigger type. _tidlestart/_tidleend need EVENT_TYPE with IDLE or
 *     RESUME. Their mixing with _twstart/_twend is reported before the event-type rules.
 *  8. NOTIFY ... ON (...) written for PERIOD/plain SLIDING is accepted (only "not required").
 *  9. DELETE_OUTPUT_TABLE is refused unless the grouping contains tbname ("applies only to
 *     streams grouped by subtable").
 * 10. PARTITION BY items must be plain column references (tbname or a tag); with the table
 *     meta a regular column or an unknown name is refused. STATE/EVENT/COUNT accept only
 *     PARTITION BY tbname, on any table kind (the spec's own example groups ntb by tbname).
 *     Without TAGS the grouping names must be distinct (they become the output tags).
 * 11. ROLLUP BY needs a super table (the spec: "tag column on the trigger supertable").
 * 12. A stream must do something: AS needs INTO or NOTIFY, INTO needs AS, and a stream with
 *     neither AS nor NOTIFY is refused; CALC_NOTIFY_ONLY needs NOTIFY and AS. OUTPUT_SUBTABLE,
 *     the column list and TAGS need INTO; the INTO table may not be the trigger table.
 * 13. OUTPUT_SUBTABLE and TAGS expressions may use grouping columns (by name, tbname, the
 *     rollup tag), %%n, %%tbname and %%rollup_tag; every other placeholder belongs to the
 *     query's SELECT/WHERE. Placeholders are refused in trigger expressions, PARTITION BY,
 *     PRE_FILTER and NOTIFY WHERE; NOTIFY WHERE columns must name a result column.
 * 14. Trigger-table expressions (STATE_WINDOW, EVENT_WINDOW, PRE_FILTER) may not call
 *     aggregate functions; with the meta their columns must be columns, tags or tbname.
 * 15. TRUE_FOR: durations positive in units a, s, m, h, d, w; COUNT at least 1; each role
 *     (window, start, end) at most once; start()/end() only on a single-condition
 *     EVENT_WINDOW. ZEROTH_STATE values must be constants (literals, maybe negated or CAST).
 * 16. Durations on event time (SLIDING, INTERVAL, SESSION, WATERMARK, EXPIRED_TIME) may not
 *     be finer than the database precision (1u in an ms database).
 * 17. Trigger tables in information_schema are refused (system tables).
 * 18. NODELAY_CREATE_SUBTABLE without INTO is not refused (the AST keeps no position).
 *
 * Deferred to planning against the catalog (need expression types or other tables): the
 * result type of state keys (integer/bool/varchar), ZEROTH_STATE convertibility, the first
 * query column when its type is not visible in the AST (columns of other tables, CASE,
 * unknown functions, %%n without meta), the schema of an existing INTO table, TAGS value
 * types and the length of OUTPUT_SUBTABLE names.
 */
#include "stream_check.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct chk {
    const sl_create_stream *cs;
    const sl_trigger *t;
    const sl_table_meta *meta;
    sl_precision prec;
    sl_error *err;
    unsigned events;       /* EVENT_TYPE bits, WINDOW_CLOSE when absent */
    bool has_event_type;
    const sl_stream_opt *opt[SL_SOPT_IDLE_TIMEOUT + 1]; /* first occurrence of each */
    bool grouped;          /* PARTITION BY or ROLLUP BY */
    bool group_tbname;     /* PARTITION BY contains tbname */
} chk;

#define FAIL(c, p, ...) sl_error_set((c)->err, SL_EINVAL, (p).line, (p).col, __VA_ARGS__)
#define TRY(x)                                                                             \
    do {                                                                                   \
        int rc_ = (x);                                                                     \
        if (rc_ != 0)                                                                      \
            return rc_;                                                                    \
    } while (0)

static const char *const trig_names[] = {
    [SL_TRIG_PERIOD] = "PERIOD",         [SL_TRIG_SLIDING] = "SLIDING",
    [SL_TRIG_INTERVAL] = "INTERVAL",     [SL_TRIG_SESSION] = "SESSION",
    [SL_TRIG_STATE] = "STATE_WINDOW",    [SL_TRIG_EVENT] = "EVENT_WINDOW",
    [SL_TRIG_COUNT] = "COUNT_WINDOW",
};

static const char *const opt_names[] = {
    [SL_SOPT_WATERMARK] = "WATERMARK",
    [SL_SOPT_EXPIRED_TIME] = "EXPIRED_TIME",
    [SL_SOPT_IGNORE_DISORDER] = "IGNORE_DISORDER",
    [SL_SOPT_DELETE_RECALC] = "DELETE_RECALC",
    [SL_SOPT_DELETE_OUTPUT_TABLE] = "DELETE_OUTPUT_TABLE",
    [SL_SOPT_FILL_HISTORY] = "FILL_HISTORY",
    [SL_SOPT_FILL_HISTORY_FIRST] = "FILL_HISTORY_FIRST",
    [SL_SOPT_CALC_NOTIFY_ONLY] = "CALC_NOTIFY_ONLY",
    [SL_SOPT_LOW_LATENCY_CALC] = "LOW_LATENCY_CALC",
    [SL_SOPT_PRE_FILTER] = "PRE_FILTER",
    [SL_SOPT_FORCE_OUTPUT] = "FORCE_OUTPUT",
    [SL_SOPT_MAX_DELAY] = "MAX_DELAY",
    [SL_SOPT_EVENT_TYPE] = "EVENT_TYPE",
    [SL_SOPT_IGNORE_NODATA_TRIGGER] = "IGNORE_NODATA_TRIGGER",
    [SL_SOPT_IDLE_TIMEOUT] = "IDLE_TIMEOUT",
};

static bool is_window(sl_trigger_kind k)
{
    return k != SL_TRIG_PERIOD && k != SL_TRIG_SLIDING;
}

/* ---------------------------------------------------------------- durations */

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)
#define NS_PER_D (INT64_C(86400) * NS_PER_S)

/* d in nanoseconds, a month as 28 days and a year as 365 (decision 1); false on overflow. */
static bool dur_ns(const sl_duration *d, int64_t *out)
{
    int64_t per;
    switch (d->unit) {
    case 'b': per = 1; break;
    case 'u': per = 1000; break;
    case 'a': per = NS_PER_MS; break;
    case 's': per = NS_PER_S; break;
    case 'm': per = 60 * NS_PER_S; break;
    case 'h': per = 3600 * NS_PER_S; break;
    case 'd': per = NS_PER_D; break;
    case 'w': per = 7 * NS_PER_D; break;
    case 'n': per = 28 * NS_PER_D; break;
    case 'y': per = 365 * NS_PER_D; break;
    default: return false;
    }
    return !__builtin_mul_overflow(d->value, per, out);
}

static const char *dur_text(const sl_duration *d, char *buf, size_t n)
{
    snprintf(buf, n, "%lld%c", (long long)d->value, d->unit);
    return buf;
}

static bool unit_in(const sl_duration *d, const char *units)
{
    return d->unit != 0 && strchr(units, d->unit) != NULL;
}

/* An event-time duration: no calendar unit, not finer than the database precision. */
static int event_dur(chk *c, const char *what, const sl_duration *d, bool calendar_ok)
{
    char b[32];
    int64_t v;
    if (sl_duration_unit_is_calendar(d->unit)) {
        if (calendar_ok)
            return 0;
        return FAIL(c, d->pos, "%s cannot use the calendar units n and y", what);
    }
    if (sl_duration_to_precision(d->value, d->unit, c->prec, &v) == SL_ERANGE)
        return FAIL(c, d->pos, "%s %s is finer than the database precision (%s)", what,
                    dur_text(d, b, sizeof b), sl_precision_name(c->prec));
    return 0;
}

/* offset < period where the spec requires it: periods in w, n or y (decision 2). */
static int offset_rule(chk *c, const char *what, const sl_duration *p, const sl_duration *off)
{
    char pb[32], ob[32];
    int64_t pv, ov;
    if (p->unit != 'w' && p->unit != 'n' && p->unit != 'y') {
        /* Below one day the schedule restarts at every midnight: an offset of a day or
         * more would never be reached. */
        const int64_t day = INT64_C(86400000000000);
        if (dur_ns(p, &pv) && pv < day && dur_ns(off, &ov) && ov >= day)
            return FAIL(c, off->pos, "the offset of %s(%s, %s) must be less than one day",
                        what, dur_text(p, pb, sizeof pb), dur_text(off, ob, sizeof ob));
        return 0;
    }
    if (!dur_ns(off, &ov) || !dur_ns(p, &pv) || ov >= pv)
        return FAIL(c, off->pos, "the offset of %s(%s, %s) must be less than the period%s",
                    what, dur_text(p, pb, sizeof pb), dur_text(off, ob, sizeof ob),
                    p->unit == 'n'   ? " (a month counts as 28 days)"
                    : p->unit == 'y' ? " (a year counts as 365 days)"
                                     : "");
    return 0;
}

/* ---------------------------------------------------------------- expressions */

typedef int (*expr_fn)(chk *c, const sl_expr *e, const void *arg);

/* Calls fn on e and every expression below it, in source order, stopping at an error. */
static int walk(chk *c, const sl_expr *e, expr_fn fn, const void *arg)
{
    if (e == NULL)
        return 0;
    TRY(fn(c, e, arg));
    switch (e->kind) {
    case SL_EX_UNARY: return walk(c, e->u.unary.arg, fn, arg);
    case SL_EX_BINARY:
        TRY(walk(c, e->u.binary.left, fn, arg));
        return walk(c, e->u.binary.right, fn, arg);
    case SL_EX_FUNC:
        for (int i = 0; i < e->u.func.args.n; i++)
            TRY(walk(c, e->u.func.args.items[i], fn, arg));
        return 0;
    case SL_EX_CASE:
        TRY(walk(c, e->u.case_.operand, fn, arg));
        for (int i = 0; i < e->u.case_.nwhen; i++) {
            TRY(walk(c, e->u.case_.whens[i].when, fn, arg));
            TRY(walk(c, e->u.case_.whens[i].then, fn, arg));
        }
        return walk(c, e->u.case_.else_, fn, arg);
    case SL_EX_IN:
        TRY(walk(c, e->u.in.arg, fn, arg));
        for (int i = 0; i < e->u.in.list.n; i++)
            TRY(walk(c, e->u.in.list.items[i], fn, arg));
        return 0;
    case SL_EX_BETWEEN:
        TRY(walk(c, e->u.between.arg, fn, arg));
        TRY(walk(c, e->u.between.lo, fn, arg));
        return walk(c, e->u.between.hi, fn, arg);
    case SL_EX_ISNULL: return walk(c, e->u.isnull.arg, fn, arg);
    case SL_EX_LIKE:
        TRY(walk(c, e->u.like.arg, fn, arg));
        return walk(c, e->u.like.pattern, fn, arg);
    case SL_EX_CAST: return walk(c, e->u.cast.arg, fn, arg);
    default: return 0;
    }
}

static bool name_in(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (strcasecmp(name, *list) == 0)
            return true;
    return false;
}

static const char *const aggregates[] = {
    "count", "sum", "avg", "min", "max", "first", "last", "last_row", "spread", "stddev",
    "stddev_pop", "var_pop", "percentile", "apercentile", "top", "bottom", "elapsed", "twa",
    "irate", "leastsquares", "hyperloglog", "histogram", "mode", "sample", "tail", "unique",
    NULL};

static const sl_field *find_field(const sl_field *f, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcasecmp(f[i].name, name) == 0)
            return &f[i];
    return NULL;
}

static const sl_field *meta_col(const sl_table_meta *m, const char *name)
{
    return find_field(m->cols, m->ncols, name);
}

static const sl_field *meta_tag(const sl_table_meta *m, const char *name)
{
    return find_field(m->tags, m->ntags, name);
}

static const char *ph_name(const sl_expr *e, char *buf, size_t n)
{
    if (e->u.placeholder.ph == SL_PH_PARTITION_COL) {
        snprintf(buf, n, "%%%%%d", e->u.placeholder.index);
        return buf;
    }
    return sl_placeholder_name(e->u.placeholder.ph);
}

static int ph_only_in_query(chk *c, const sl_expr *e)
{
    char b[32];
    return FAIL(c, e->pos, "%s can only be used in SELECT and WHERE of the stream's query",
                ph_name(e, b, sizeof b));
}

/* Expressions on the trigger table (STATE_WINDOW, EVENT_WINDOW, PRE_FILTER); arg: clause. */
static int trigger_expr_fn(chk *c, const sl_expr *e, const void *arg)
{
    const char *clause = arg;
    if (e->kind == SL_EX_PLACEHOLDER)
        return ph_only_in_query(c, e);
    if (e->kind == SL_EX_FUNC && name_in(e->u.func.name, aggregates))
        return FAIL(c, e->pos, "%s cannot use the aggregate function %s", clause,
                    e->u.func.name);
    if (e->kind == SL_EX_COLUMN && c->meta && strcasecmp(e->u.column.name, "tbname") != 0 &&
        !meta_col(c->meta, e->u.column.name) && !meta_tag(c->meta, e->u.column.name))
        return FAIL(c, e->pos, "unknown column '%s' in %s: not a column or tag of %s",
                    e->u.column.name, clause, c->meta->name);
    return 0;
}

static bool is_constant(const sl_expr *e)
{
    switch (e->kind) {
    case SL_EX_LITERAL: return true;
    case SL_EX_UNARY: return is_constant(e->u.unary.arg);
    case SL_EX_CAST: return is_constant(e->u.cast.arg);
    default: return false;
    }
}

/* ---------------------------------------------------------------- trigger */

static int check_true_for(chk *c)
{
    const sl_true_for *tf = &c->t->true_for;
    static const char *const role_names[] = {"a window condition", "start(...)", "end(...)"};
    bool seen[3] = {false, false, false};
    for (int i = 0; i < tf->n; i++) {
        const sl_true_for_arg *a = &tf->args[i];
        const sl_limit_expr *l = &a->limit;
        if (seen[a->role])
            return FAIL(c, a->pos, "TRUE_FOR gives %s more than once", role_names[a->role]);
        seen[a->role] = true;
        if (a->role != SL_TF_WINDOW &&
            (c->t->kind != SL_TRIG_EVENT || c->t->event_multi))
            return FAIL(c, a->pos, "TRUE_FOR start(...) and end(...) are only supported for a "
                                   "single-condition EVENT_WINDOW");
        if (l->op != SL_LIMIT_COUNT) {
            if (!unit_in(&l->duration, "asmhdw"))
                return FAIL(c, l->duration.pos,
                            "TRUE_FOR durations must use the units a, s, m, h, d or w");
            if (l->duration.value <= 0)
                return FAIL(c, l->duration.pos, "TRUE_FOR duration must be positive");
        }
        if (l->op != SL_LIMIT_DURATION && l->count < 1)
            return FAIL(c, l->pos, "TRUE_FOR COUNT must be at least 1");
    }
    return 0;
}

static int check_trigger(chk *c)
{
    const sl_trigger *t = c->t;
    int64_t v;
    switch (t->kind) {
    case SL_TRIG_PERIOD:
        if (!dur_ns(&t->period, &v) || v < 10 * NS_PER_MS || v > 3650 * NS_PER_D)
            return FAIL(c, t->period.pos, "PERIOD must be between 10a and 3650d");
        if (t->has_period_offset) {
            if (!unit_in(&t->period_offset, "asmhd"))
                return FAIL(c, t->period_offset.pos,
                            "the offset of PERIOD must use the units a, s, m, h or d");
            TRY(offset_rule(c, "PERIOD", &t->period, &t->period_offset));
        }
        return 0;
    case SL_TRIG_SLIDING:
    case SL_TRIG_INTERVAL:
        if (t->kind == SL_TRIG_INTERVAL) {
            if (t->interval.value <= 0)
                return FAIL(c, t->interval.pos, "INTERVAL must be positive");
            TRY(event_dur(c, "INTERVAL", &t->interval, true));
            if (t->has_interval_offset) {
                int64_t iv, ov;
                TRY(event_dur(c, "the offset of INTERVAL", &t->interval_offset, false));
                if (!dur_ns(&t->interval, &iv) || !dur_ns(&t->interval_offset, &ov) ||
                    ov >= iv)
                    return FAIL(c, t->interval_offset.pos,
                                "the offset of INTERVAL must be less than the interval");
            }
        }
        if (t->sliding.value <= 0)
            return FAIL(c, t->sliding.pos, "SLIDING must be positive");
        TRY(event_dur(c, "SLIDING", &t->sliding, true));
        if (t->kind == SL_TRIG_INTERVAL) {
            int64_t iv, sv;
            if (!dur_ns(&t->interval, &iv) || !dur_ns(&t->sliding, &sv) || sv > iv)
                return FAIL(c, t->sliding.pos, "SLIDING must not be longer than INTERVAL");
        }
        if (t->has_sliding_offset) {
            if (!unit_in(&t->sliding_offset, "asmh"))
                return FAIL(c, t->sliding_offset.pos,
                            "the offset of SLIDING must use the units a, s, m or h");
            TRY(event_dur(c, "the offset of SLIDING", &t->sliding_offset, false));
            TRY(offset_rule(c, "SLIDING", &t->sliding, &t->sliding_offset));
            int64_t sv, ov;
            /* Windows start every `sliding` from the offset: it must be shorter. */
            if (t->kind == SL_TRIG_INTERVAL &&
                (!dur_ns(&t->sliding, &sv) || !dur_ns(&t->sliding_offset, &ov) || ov >= sv))
                return FAIL(c, t->sliding_offset.pos,
                            "the offset of SLIDING must be less than the sliding");
        }
        return 0;
    case SL_TRIG_SESSION:
        if (c->meta && c->meta->ncols > 0 &&
            strcasecmp(t->session_col, c->meta->cols[0].name) != 0)
            return FAIL(c, t->session_col_pos,
                        "SESSION column '%s' must be the primary key column '%s'",
                        t->session_col, c->meta->cols[0].name);
        if (t->session_gap.value <= 0)
            return FAIL(c, t->session_gap.pos, "SESSION gap must be positive");
        return event_dur(c, "SESSION gap", &t->session_gap, false);
    case SL_TRIG_STATE:
        for (int i = 0; i < t->state_exprs.n; i++)
            TRY(walk(c, t->state_exprs.items[i], trigger_expr_fn, "STATE_WINDOW"));
        if (t->has_extend && (t->extend < 0 || t->extend > 2))
            return FAIL(c, t->extend_pos, "EXTEND must be 0, 1 or 2");
        if (t->nzeroth > 0 && t->nzeroth != t->state_exprs.n)
            return FAIL(c, t->zeroth_pos,
                        "ZEROTH_STATE needs %d value%s, one per state key (got %d)",
                        t->state_exprs.n, t->state_exprs.n == 1 ? "" : "s", t->nzeroth);
        for (int i = 0; i < t->nzeroth; i++)
            if (t->zeroth[i].expr && !is_constant(t->zeroth[i].expr))
                return FAIL(c, t->zeroth[i].pos,
                            "ZEROTH_STATE values must be constants or NO_ZEROTH");
        return check_true_for(c);
    case SL_TRIG_EVENT:
        for (int i = 0; i < t->event_starts.n; i++)
            TRY(walk(c, t->event_starts.items[i], trigger_expr_fn, "EVENT_WINDOW"));
        TRY(walk(c, t->event_end, trigger_expr_fn, "EVENT_WINDOW"));
        return check_true_for(c);
    case SL_TRIG_COUNT:
        if (t->count < 1)
            return FAIL(c, t->count_pos, "COUNT_WINDOW count must be at least 1");
        if (t->has_count_sliding && (t->count_sliding < 1 || t->count_sliding > t->count))
            return FAIL(c, t->count_sliding_pos,
                        "COUNT_WINDOW sliding must be between 1 and the count (%lld)",
                        (long long)t->count);
        for (int i = 0; c->meta && i < t->ncount_cols; i++) {
            const char *n = t->count_cols[i];
            if (meta_tag(c->meta, n))
                return FAIL(c, t->count_col_pos[i],
                            "COUNT_WINDOW column '%s' is a tag: only regular columns are "
                            "supported", n);
            if (!meta_col(c->meta, n))
                return FAIL(c, t->count_col_pos[i],
                            "COUNT_WINDOW column '%s' is not a column of %s", n,
                            c->meta->name);
        }
        return 0;
    }
    return 0;
}

/* ---------------------------------------------------------------- table and grouping */

static int check_grouping(chk *c)
{
    const sl_create_stream *cs = c->cs;
    const sl_trigger_kind k = c->t->kind;
    const sl_expr_list *pb = &cs->partition_by;
    if (cs->has_rollup && pb->n > 0)
        return FAIL(c, cs->rollup_pos, "ROLLUP BY and PARTITION BY cannot be used together");
    if (pb->n > 0 && !cs->has_from)
        return FAIL(c, pb->items[0]->pos, "PARTITION BY needs a trigger table (FROM ...)");
    if (cs->has_rollup) {
        if (k != SL_TRIG_PERIOD && k != SL_TRIG_SLIDING && k != SL_TRIG_INTERVAL &&
            k != SL_TRIG_SESSION)
            return FAIL(c, cs->rollup_pos,
                        "ROLLUP BY only works with PERIOD, SLIDING, INTERVAL and SESSION");
        if (!cs->has_from)
            return FAIL(c, cs->rollup_pos, "ROLLUP BY needs a trigger table (FROM ...)");
        if (c->meta) {
            const sl_field *f;
            if (c->meta->kind != SL_TABLE_SUPER)
                return FAIL(c, cs->rollup_pos, "ROLLUP BY needs a super table as trigger table");
            if (!(f = meta_tag(c->meta, cs->rollup_tag)))
                return FAIL(c, cs->rollup_pos, "ROLLUP BY tag '%s' is not a tag of %s",
                            cs->rollup_tag, c->meta->name);
            if (f->type != SL_T_VARCHAR && f->type != SL_T_NCHAR)
                return FAIL(c, cs->rollup_pos, "ROLLUP BY needs a VARCHAR or NCHAR tag");
        }
    }
    bool subtable_only = k == SL_TRIG_STATE || k == SL_TRIG_EVENT || k == SL_TRIG_COUNT;
    for (int i = 0; i < pb->n; i++) {
        const sl_expr *e = pb->items[i];
        if (e->kind == SL_EX_PLACEHOLDER)
            return ph_only_in_query(c, e);
        if (e->kind != SL_EX_COLUMN)
            return FAIL(c, e->pos, "PARTITION BY supports only tbname and tag columns");
        const char *n = e->u.column.name;
        bool tbname = strcasecmp(n, "tbname") == 0;
        if (subtable_only && (!tbname || pb->n > 1))
            return FAIL(c, e->pos, "%s only supports grouping by subtable: PARTITION BY tbname",
                        trig_names[k]);
        if (tbname) {
            c->group_tbname = true;
        } else if (c->meta && !meta_tag(c->meta, n)) {
            if (meta_col(c->meta, n))
                return FAIL(c, e->pos, "PARTITION BY '%s' is a column, not a tag: only tbname "
                                       "and tags can group a stream", n);
            return FAIL(c, e->pos, "PARTITION BY '%s' is not a tag of %s", n, c->meta->name);
        }
        for (int j = 0; cs->ntags == 0 && j < i; j++)
            if (pb->items[j]->kind == SL_EX_COLUMN &&
                strcasecmp(pb->items[j]->u.column.name, n) == 0)
                return FAIL(c, e->pos, "PARTITION BY names '%s' twice: without TAGS the "
                                       "grouping columns name the output tags", n);
    }
    c->grouped = pb->n > 0 || cs->has_rollup;
    if (subtable_only && c->meta && c->meta->kind == SL_TABLE_SUPER && pb->n == 0)
        return FAIL(c, c->t->pos, "%s on a super table needs PARTITION BY tbname",
                    trig_names[k]);
    return 0;
}

/* ---------------------------------------------------------------- options */

static int const_expr_fn(chk *c, const sl_expr *e, const void *arg)
{
    if (e->kind == SL_EX_COLUMN || e->kind == SL_EX_PLACEHOLDER || e->kind == SL_EX_PSEUDO ||
        e->kind == SL_EX_STAR || (e->kind == SL_EX_FUNC && name_in(e->u.func.name, aggregates)))
        return FAIL(c, e->pos, "%s start time must be a constant", (const char *)arg);
    return 0;
}

static int check_option(chk *c, const sl_stream_opt *o)
{
    const sl_create_stream *cs = c->cs;
    const char *name = opt_names[o->kind];
    int64_t v;
    switch (o->kind) {
    case SL_SOPT_WATERMARK: return event_dur(c, name, &o->dur, false);
    case SL_SOPT_EXPIRED_TIME:
        if (!unit_in(&o->dur, "asmhd"))
            return FAIL(c, o->dur.pos, "EXPIRED_TIME must use the units a, s, m, h or d");
        if (o->dur.value <= 0)
            return FAIL(c, o->dur.pos, "EXPIRED_TIME must be positive");
        return event_dur(c, name, &o->dur, false);
    case SL_SOPT_MAX_DELAY:
        if (!unit_in(&o->dur, "smhd"))
            return FAIL(c, o->dur.pos, "MAX_DELAY must use the units s, m, h or d");
        if (!dur_ns(&o->dur, &v) || v < 3 * NS_PER_S)
            return FAIL(c, o->dur.pos, "MAX_DELAY must be at least 3s");
        return 0;
    case SL_SOPT_IDLE_TIMEOUT:
        if (!unit_in(&o->dur, "asmhd"))
            return FAIL(c, o->dur.pos, "IDLE_TIMEOUT must use the units a, s, m, h or d");
        if (!dur_ns(&o->dur, &v) || v < NS_PER_S || v > 10 * NS_PER_D)
            return FAIL(c, o->dur.pos, "IDLE_TIMEOUT must be between 1s and 10d");
        return 0;
    case SL_SOPT_FILL_HISTORY:
    case SL_SOPT_FILL_HISTORY_FIRST:
        if (c->t->kind == SL_TRIG_PERIOD)
            return FAIL(c, o->pos, "%s is not supported with PERIOD", name);
        if (o->expr) {
            const sl_expr *e = o->expr;
            TRY(walk(c, e, const_expr_fn, name));
            if (e->kind == SL_EX_LITERAL && e->u.lit.kind == SL_LIT_STRING &&
                sl_time_parse(e->u.lit.s, e->u.lit.len, c->prec, &v) != 0)
                return FAIL(c, e->pos, "%s start time '%s' is not a valid timestamp", name,
                            e->u.lit.s);
        }
        return 0;
    case SL_SOPT_DELETE_RECALC:
        if (c->t->kind == SL_TRIG_COUNT &&
            (c->t->has_count_sliding ? c->t->count_sliding : c->t->count) != 1)
            return FAIL(c, o->pos, "DELETE_RECALC is only supported for COUNT_WINDOW with a "
                                   "sliding step of 1");
        return 0;
    case SL_SOPT_DELETE_OUTPUT_TABLE:
        if (!c->group_tbname)
            return FAIL(c, o->pos, "DELETE_OUTPUT_TABLE needs grouping by subtable "
                                   "(PARTITION BY tbname)");
        return 0;
    case SL_SOPT_PRE_FILTER:
        if (!cs->has_from)
            return FAIL(c, o->pos, "PRE_FILTER needs a trigger table (FROM ...)");
        return walk(c, o->expr, trigger_expr_fn, "PRE_FILTER");
    case SL_SOPT_IGNORE_NODATA_TRIGGER:
        if (c->t->kind != SL_TRIG_SLIDING && c->t->kind != SL_TRIG_INTERVAL &&
            c->t->kind != SL_TRIG_PERIOD)
            return FAIL(c, o->pos, "IGNORE_NODATA_TRIGGER only applies to SLIDING, INTERVAL "
                                   "and PERIOD triggers");
        return 0;
    case SL_SOPT_CALC_NOTIFY_ONLY:
        if (!cs->notify.present)
            return FAIL(c, o->pos, "CALC_NOTIFY_ONLY needs a NOTIFY clause");
        if (!cs->query)
            return FAIL(c, o->pos, "CALC_NOTIFY_ONLY needs AS subquery");
        return 0;
    default: return 0;
    }
}

static int check_options(chk *c)
{
    const sl_create_stream *cs = c->cs;
    for (int i = 0; i < cs->nopts; i++) {
        const sl_stream_opt *o = &cs->opts[i];
        if (c->opt[o->kind])
            return FAIL(c, o->pos, "option %s is given twice", opt_names[o->kind]);
        c->opt[o->kind] = o;
        if ((o->kind == SL_SOPT_FILL_HISTORY && c->opt[SL_SOPT_FILL_HISTORY_FIRST]) ||
            (o->kind == SL_SOPT_FILL_HISTORY_FIRST && c->opt[SL_SOPT_FILL_HISTORY]))
            return FAIL(c, o->pos, "FILL_HISTORY and FILL_HISTORY_FIRST cannot be used together");
        if (o->kind == SL_SOPT_EVENT_TYPE) {
            c->has_event_type = true;
            c->events = o->events;
        }
    }
    for (int i = 0; i < cs->nopts; i++)
        TRY(check_option(c, &cs->opts[i]));
    const sl_stream_opt *idle = c->opt[SL_SOPT_IDLE_TIMEOUT], *et = c->opt[SL_SOPT_EVENT_TYPE];
    unsigned idle_bits = SL_EVT_IDLE | SL_EVT_RESUME;
    if (idle && !(et && (et->events & idle_bits)))
        return FAIL(c, idle->pos, "IDLE_TIMEOUT needs EVENT_TYPE(IDLE) or EVENT_TYPE(RESUME)");
    if (et && (et->events & idle_bits) && !idle)
        return FAIL(c, et->pos, "EVENT_TYPE(%s) needs IDLE_TIMEOUT",
                    (et->events & SL_EVT_IDLE) ? "IDLE" : "RESUME");
    return 0;
}

/* ---------------------------------------------------------------- notify */

static int check_url(chk *c, const char *url, sl_pos pos)
{
    const char *p;
    if (strncasecmp(url, "ws://", 5) == 0)
        p = url + 5;
    else if (strncasecmp(url, "wss://", 6) == 0)
        p = url + 6;
    else
        return FAIL(c, pos, "notify URL '%s' must start with ws:// or wss://", url);
    size_t n = strcspn(p, "/?#");
    const char *at = memchr(p, '@', n);
    if (at) {
        n -= (size_t)(at + 1 - p);
        p = at + 1;
    }
    const char *host_end, *colon = NULL;
    if (n > 0 && p[0] == '[') {
        const char *rb = memchr(p, ']', n);
        if (!rb || rb == p + 1)
            return FAIL(c, pos, "notify URL '%s' needs a host", url);
        host_end = rb + 1;
        if (host_end < p + n && *host_end == ':')
            colon = host_end;
        else if (host_end < p + n)
            return FAIL(c, pos, "notify URL '%s' has an invalid port", url);
    } else {
        for (const char *q = p + n; q > p; q--)
            if (q[-1] == ':') {
                colon = q - 1;
                break;
            }
        host_end = colon ? colon : p + n;
    }
    if (host_end == p)
        return FAIL(c, pos, "notify URL '%s' needs a host", url);
    if (!colon)
        return FAIL(c, pos, "notify URL '%s' needs a port", url);
    const char *d = colon + 1, *end = p + n;
    long port = 0;
    if (d == end)
        return FAIL(c, pos, "notify URL '%s' needs a port", url);
    for (; d < end; d++) {
        if (*d < '0' || *d > '9' || port > 65535)
            return FAIL(c, pos, "notify URL '%s' has an invalid port", url);
        port = port * 10 + (*d - '0');
    }
    if (port < 1 || port > 65535)
        return FAIL(c, pos, "notify URL '%s' has an invalid port", url);
    return 0;
}

/* The name column i of the result will have, or NULL when unknown (a '*'). */
static const char *result_name(const sl_create_stream *cs, int i)
{
    const sl_select_item *it = &cs->query->items[i];
    if (i < cs->nout_cols)
        return cs->out_cols[i].name;
    if (it->alias)
        return it->alias;
    if (it->expr->kind == SL_EX_COLUMN)
        return it->expr->u.column.name;
    return it->text;
}

static int notify_where_fn(chk *c, const sl_expr *e, const void *arg)
{
    const sl_create_stream *cs = c->cs;
    if (e->kind == SL_EX_PLACEHOLDER)
        return ph_only_in_query(c, e);
    if (e->kind != SL_EX_COLUMN)
        return 0;
    if (cs->query) {
        for (int i = 0; i < cs->query->nitems; i++) {
            if (cs->query->items[i].expr->kind == SL_EX_STAR)
                return 0; /* names known at planning */
            const char *n = result_name(cs, i);
            if (n && strcasecmp(n, e->u.column.name) == 0)
                return 0;
        }
    }
    return FAIL(c, e->pos, "NOTIFY ... WHERE column '%s' is not a column of the stream's result",
                e->u.column.name);
}

static int check_notify(chk *c)
{
    const sl_notify *n = &c->cs->notify;
    if (!n->present)
        return 0;
    for (int i = 0; i < n->nurls; i++)
        TRY(check_url(c, n->urls[i], n->url_pos[i]));
    if (!n->has_on && is_window(c->t->kind))
        return FAIL(c, n->pos, "NOTIFY ... ON (...) is required for %s triggers",
                    trig_names[c->t->kind]);
    if (n->has_on && (n->on_events & (SL_EVT_IDLE | SL_EVT_RESUME)) &&
        !c->opt[SL_SOPT_IDLE_TIMEOUT])
        return FAIL(c, n->on_pos, "NOTIFY ... ON (%s) needs IDLE_TIMEOUT in STREAM_OPTIONS",
                    (n->on_events & SL_EVT_IDLE) ? "IDLE" : "RESUME");
    if (n->nnotify_opts > 1)
        return FAIL(c, n->pos, "notify option NOTIFY_HISTORY is given twice");
    return walk(c, n->where, notify_where_fn, NULL);
}

/* ---------------------------------------------------------------- output */

/* OUTPUT_SUBTABLE and TAGS expressions (decision 13); arg: the clause name. */
static int out_expr_fn(chk *c, const sl_expr *e, const void *arg)
{
    const sl_create_stream *cs = c->cs;
    char b[32];
    if (e->kind == SL_EX_PLACEHOLDER) {
        switch (e->u.placeholder.ph) {
        case SL_PH_TROLLUP_TBCOUNT:
            return FAIL(c, e->pos, "_trollup_tbcount cannot be used in OUTPUT_SUBTABLE or TAGS");
        case SL_PH_PARTITION_COL: {
            int ng = cs->has_rollup ? 1 : cs->partition_by.n;
            if (e->u.placeholder.index < 1 || e->u.placeholder.index > ng)
                return FAIL(c, e->pos, "%s refers to a PARTITION BY column that does not exist",
                            ph_name(e, b, sizeof b));
            return 0;
        }
        case SL_PH_TBNAME:
            if (!c->group_tbname)
                return FAIL(c, e->pos, "%%%%tbname needs PARTITION BY tbname");
            return 0;
        case SL_PH_ROLLUP_TAG:
            if (!cs->has_rollup)
                return FAIL(c, e->pos, "%%%%rollup_tag needs ROLLUP BY");
            return 0;
        default: return ph_only_in_query(c, e);
        }
    }
    if (e->kind == SL_EX_COLUMN) {
        const char *n = e->u.column.name;
        if (cs->has_rollup && strcasecmp(n, cs->rollup_tag) == 0)
            return 0;
        for (int i = 0; i < cs->partition_by.n; i++) {
            const sl_expr *p = cs->partition_by.items[i];
            if (p->kind == SL_EX_COLUMN && strcasecmp(p->u.column.name, n) == 0)
                return 0;
        }
        return FAIL(c, e->pos, "%s can only use the grouping columns: '%s' is not one",
                    (const char *)arg, n);
    }
    return 0;
}

static bool same_table(const sl_qname *a, const sl_qname *b)
{
    if (strcasecmp(a->name, b->name) != 0)
        return false;
    return a->db == NULL || b->db == NULL ? a->db == b->db : strcasecmp(a->db, b->db) == 0;
}

static int check_output(chk *c)
{
    const sl_create_stream *cs = c->cs;
    if (cs->output_subtable) {
        if (!c->grouped)
            return FAIL(c, cs->output_subtable->pos,
                        "OUTPUT_SUBTABLE needs PARTITION BY or ROLLUP BY");
        if (!cs->has_into)
            return FAIL(c, cs->output_subtable->pos, "OUTPUT_SUBTABLE needs INTO");
        TRY(walk(c, cs->output_subtable, out_expr_fn, "OUTPUT_SUBTABLE"));
    }
    if (cs->nout_cols > 0 && !cs->has_into)
        return FAIL(c, cs->out_cols[0].pos, "the output column list needs INTO");
    for (int i = 0; i < cs->nout_cols; i++) {
        const sl_out_col *o = &cs->out_cols[i];
        for (int j = 0; j < i; j++)
            if (strcasecmp(cs->out_cols[j].name, o->name) == 0)
                return FAIL(c, o->pos, "output column '%s' is given twice", o->name);
        if (o->composite_key && i != 1)
            return FAIL(c, o->pos, "COMPOSITE KEY can only mark the second output column");
    }
    if (cs->ntags > 0) {
        if (!c->grouped)
            return FAIL(c, cs->tags[0].pos, "TAGS needs PARTITION BY or ROLLUP BY");
        if (!cs->has_into)
            return FAIL(c, cs->tags[0].pos, "TAGS needs INTO");
    }
    for (int i = 0; i < cs->ntags; i++) {
        const sl_tag_def *t = &cs->tags[i];
        for (int j = 0; j < i; j++)
            if (strcasecmp(cs->tags[j].name, t->name) == 0)
                return FAIL(c, t->pos, "tag '%s' is given twice", t->name);
        TRY(walk(c, t->expr, out_expr_fn, "TAGS"));
    }
    if (cs->has_into && !cs->query)
        return FAIL(c, cs->into.pos, "INTO needs AS subquery");
    if (cs->has_into && cs->has_from && same_table(&cs->into, &cs->from))
        return FAIL(c, cs->into.pos, "the INTO table cannot be the trigger table");
    if (cs->query && !cs->has_into && !cs->notify.present)
        return FAIL(c, cs->query->pos, "AS subquery needs INTO or NOTIFY: its results would "
                                       "go nowhere");
    if (!cs->query && !cs->notify.present)
        return FAIL(c, cs->name.pos, "a stream needs AS subquery or NOTIFY");
    if (cs->query && cs->nout_cols > 0) {
        bool star = false;
        for (int i = 0; i < cs->query->nitems; i++)
            star |= cs->query->items[i].expr->kind == SL_EX_STAR;
        if (!star && cs->nout_cols != cs->query->nitems)
            return FAIL(c, cs->out_cols[0].pos,
                        "the column list names %d columns but the query returns %d",
                        cs->nout_cols, cs->query->nitems);
    }
    return 0;
}

/* ---------------------------------------------------------------- the query */

typedef enum qclause { Q_SELECT, Q_WHERE, Q_OTHER } qclause;

static bool close_only(const chk *c)
{
    return c->events == SL_EVT_WINDOW_CLOSE;
}

static int query_ph(chk *c, const sl_expr *e, qclause where)
{
    const sl_create_stream *cs = c->cs;
    sl_trigger_kind k = c->t->kind;
    sl_placeholder ph = e->u.placeholder.ph;
    const char *name = sl_placeholder_name(ph);
    char b[32];
    switch (ph) {
    case SL_PH_TROWS: return FAIL(c, e->pos, "%%%%trows can only be used in FROM");
    case SL_PH_TPREV_LOCALTIME:
    case SL_PH_TNEXT_LOCALTIME:
        if (k != SL_TRIG_PERIOD)
            return FAIL(c, e->pos, "%s is only valid for PERIOD triggers", name);
        break;
    case SL_PH_TPREV_TS:
    case SL_PH_TCURRENT_TS:
    case SL_PH_TNEXT_TS:
        if (k != SL_TRIG_SLIDING)
            return FAIL(c, e->pos, "%s is only valid for SLIDING triggers", name);
        break;
    case SL_PH_TWSTART:
    case SL_PH_TWEND:
    case SL_PH_TWDURATION:
    case SL_PH_TWROWNUM:
        if (!is_window(k))
            return FAIL(c, e->pos, "%s is only valid for window triggers", name);
        if (ph != SL_PH_TWSTART && !close_only(c))
            return FAIL(c, e->pos, "%s is only valid with WINDOW_CLOSE", name);
        break;
    case SL_PH_TIDLESTART:
    case SL_PH_TIDLEEND:
        if (!c->has_event_type || !(c->events & (SL_EVT_IDLE | SL_EVT_RESUME)))
            return FAIL(c, e->pos, "%s needs EVENT_TYPE(IDLE) or EVENT_TYPE(RESUME)", name);
        break;
    case SL_PH_TROLLUP_TBCOUNT:
        if (!cs->has_rollup)
            return FAIL(c, e->pos, "_trollup_tbcount needs ROLLUP BY");
        break;
    case SL_PH_ROLLUP_TAG:
        if (!cs->has_rollup)
            return FAIL(c, e->pos, "%%%%rollup_tag needs ROLLUP BY");
        break;
    case SL_PH_PARTITION_COL: {
        int ng = cs->has_rollup ? 1 : cs->partition_by.n;
        if (e->u.placeholder.index < 1 || e->u.placeholder.index > ng)
            return FAIL(c, e->pos, "%s refers to a PARTITION BY column that does not exist",
                        ph_name(e, b, sizeof b));
        break;
    }
    case SL_PH_TBNAME:
        if (!c->group_tbname)
            return FAIL(c, e->pos, "%%%%tbname needs PARTITION BY tbname");
        break;
    default: break;
    }
    if (where == Q_OTHER) {
        if (ph == SL_PH_TBNAME)
            return FAIL(c, e->pos, "%%%%tbname can only be used in FROM, SELECT and WHERE");
        return ph_only_in_query(c, e);
    }
    return 0;
}

static int query_expr_fn(chk *c, const sl_expr *e, const void *arg)
{
    if (e->kind != SL_EX_PLACEHOLDER)
        return 0;
    return query_ph(c, e, *(const qclause *)arg);
}

static int walk_q(chk *c, const sl_expr *e, qclause where)
{
    return walk(c, e, query_expr_fn, &where);
}

static int check_select(chk *c, const sl_select *s)
{
    for (int i = 0; i < s->nitems; i++)
        TRY(walk_q(c, s->items[i].expr, Q_SELECT));
    if (s->from) {
        const sl_from *f = s->from;
        if (f->kind == SL_FROM_TROWS) {
            if (!c->cs->has_from)
                return FAIL(c, f->pos, "%%%%trows needs a trigger table (FROM ...)");
            if (is_window(c->t->kind) && !close_only(c))
                return FAIL(c, f->pos, "%%%%trows needs WINDOW_CLOSE");
            if (s->where)
                return FAIL(c, s->where->pos, "a query on %%%%trows cannot have WHERE");
        } else if (f->kind == SL_FROM_TBNAME && !c->group_tbname) {
            return FAIL(c, f->pos, "%%%%tbname needs PARTITION BY tbname");
        } else if (f->kind == SL_FROM_SUBQUERY) {
            TRY(check_select(c, f->subquery));
        }
    }
    TRY(walk_q(c, s->where, Q_WHERE));
    for (int i = 0; i < s->partition_by.n; i++)
        TRY(walk_q(c, s->partition_by.items[i], Q_OTHER));
    for (int i = 0; i < s->group_by.n; i++)
        TRY(walk_q(c, s->group_by.items[i], Q_OTHER));
    for (int i = 0; i < s->fill_values.n; i++)
        TRY(walk_q(c, s->fill_values.items[i], Q_OTHER));
    TRY(walk_q(c, s->having, Q_OTHER));
    for (int i = 0; i < s->norder; i++)
        TRY(walk_q(c, s->order[i].expr, Q_OTHER));
    return 0;
}

/* First position of each placeholder kind anywhere in the query (for the mixing rule). */
typedef struct ph_seen {
    const sl_expr *first[SL_PH_TROWS + 1];
} ph_seen;

static int seen_fn(chk *c, const sl_expr *e, const void *arg)
{
    ph_seen *s = (ph_seen *)arg;
    if (e->kind == SL_EX_PLACEHOLDER && !s->first[e->u.placeholder.ph])
        s->first[e->u.placeholder.ph] = e;
    return 0;
}

static void collect(chk *c, const sl_select *s, ph_seen *seen)
{
    for (int i = 0; i < s->nitems; i++)
        walk(c, s->items[i].expr, seen_fn, seen);
    walk(c, s->where, seen_fn, seen);
    if (s->from && s->from->kind == SL_FROM_SUBQUERY)
        collect(c, s->from->subquery, seen);
}

typedef enum ftype { FT_UNKNOWN, FT_TS, FT_OTHER } ftype;

static ftype field_type(const sl_field *f)
{
    return f ? (f->type == SL_T_TIMESTAMP ? FT_TS : FT_OTHER) : FT_UNKNOWN;
}

/* The query reads the trigger table, so its columns are the meta's. */
static bool reads_trigger(const chk *c, const sl_select *q)
{
    if (!c->meta || !q->from)
        return false;
    if (q->from->kind == SL_FROM_TROWS || q->from->kind == SL_FROM_TBNAME)
        return true;
    return q->from->kind == SL_FROM_TABLE && c->cs->has_from &&
           same_table(&q->from->table, &c->cs->from);
}

static ftype expr_type(const chk *c, const sl_select *q, const sl_expr *e)
{
    static const char *const same_as_arg[] = {"first", "last", "last_row", "min", "max",
                                              "timetruncate", NULL};
    static const char *const ts_funcs[] = {"now", "today", "to_timestamp", NULL};
    static const char *const other_funcs[] = {
        "count", "sum", "avg", "spread", "stddev", "stddev_pop", "var_pop", "elapsed", "twa",
        "irate", "percentile", "apercentile", "hyperloglog", "leastsquares", "histogram",
        "length", "char_length", "concat", "lower", "upper", "abs", NULL};
    switch (e->kind) {
    case SL_EX_LITERAL: return FT_OTHER;
    case SL_EX_NOW:
    case SL_EX_TODAY: return FT_TS;
    case SL_EX_CAST: return e->u.cast.type == SL_T_TIMESTAMP ? FT_TS : FT_OTHER;
    case SL_EX_PSEUDO: return e->u.pseudo.ps == SL_PS_WDURATION ? FT_OTHER : FT_TS;
    case SL_EX_PLACEHOLDER:
        switch (e->u.placeholder.ph) {
        case SL_PH_TWSTART:
        case SL_PH_TWEND:
        case SL_PH_TPREV_TS:
        case SL_PH_TCURRENT_TS:
        case SL_PH_TNEXT_TS:
        case SL_PH_TPREV_LOCALTIME:
        case SL_PH_TNEXT_LOCALTIME:
        case SL_PH_TLOCALTIME: return FT_TS;
        case SL_PH_PARTITION_COL: {
            int i = e->u.placeholder.index - 1;
            const sl_expr *p;
            if (!c->meta || c->cs->has_rollup || i < 0 || i >= c->cs->partition_by.n)
                return FT_UNKNOWN;
            p = c->cs->partition_by.items[i];
            if (p->kind != SL_EX_COLUMN)
                return FT_UNKNOWN;
            if (strcasecmp(p->u.column.name, "tbname") == 0)
                return FT_OTHER;
            return field_type(meta_tag(c->meta, p->u.column.name));
        }
        default: return FT_OTHER;
        }
    case SL_EX_FUNC:
        if (name_in(e->u.func.name, same_as_arg) && e->u.func.args.n > 0)
            return expr_type(c, q, e->u.func.args.items[0]);
        if (name_in(e->u.func.name, ts_funcs))
            return FT_TS;
        return name_in(e->u.func.name, other_funcs) ? FT_OTHER : FT_UNKNOWN;
    case SL_EX_UNARY:
    case SL_EX_IN:
    case SL_EX_BETWEEN:
    case SL_EX_ISNULL:
    case SL_EX_LIKE: return FT_OTHER;
    case SL_EX_BINARY:
        if (e->u.binary.op == SL_OP_ADD || e->u.binary.op == SL_OP_SUB)
            return expr_type(c, q, e->u.binary.left) == FT_TS ? FT_TS : FT_UNKNOWN;
        return FT_OTHER;
    case SL_EX_COLUMN: {
        const char *n = e->u.column.name;
        if (!reads_trigger(c, q))
            return FT_UNKNOWN;
        if (strcasecmp(n, "tbname") == 0)
            return FT_OTHER;
        const sl_field *f = meta_col(c->meta, n);
        return field_type(f ? f : meta_tag(c->meta, n));
    }
    case SL_EX_STAR:
        return reads_trigger(c, q) && c->meta->ncols > 0 ? field_type(&c->meta->cols[0])
                                                         : FT_UNKNOWN;
    default: return FT_UNKNOWN;
    }
}

static int check_query(chk *c)
{
    const sl_select *q = c->cs->query;
    if (!q)
        return 0;
    ph_seen seen;
    memset(&seen, 0, sizeof seen);
    collect(c, q, &seen);
    const sl_expr *idle = seen.first[SL_PH_TIDLESTART] ? seen.first[SL_PH_TIDLESTART]
                                                       : seen.first[SL_PH_TIDLEEND];
    const sl_expr *win = seen.first[SL_PH_TWSTART] ? seen.first[SL_PH_TWSTART]
                                                   : seen.first[SL_PH_TWEND];
    if (idle && win)
        return FAIL(c, idle->pos, "%s cannot be used with %s",
                    sl_placeholder_name(idle->u.placeholder.ph),
                    sl_placeholder_name(win->u.placeholder.ph));
    TRY(check_select(c, q));
    if (q->nitems > 0 && expr_type(c, q, q->items[0].expr) == FT_OTHER)
        return FAIL(c, q->items[0].expr->pos,
                    "the first column of the stream's query must be a TIMESTAMP");
    return 0;
}

/* ---------------------------------------------------------------- entry */

int sl_stream_check(const sl_create_stream *cs, const sl_stream_check_ctx *ctx, sl_error *err)
{
    chk c;
    memset(&c, 0, sizeof c);
    c.cs = cs;
    c.t = &cs->trigger;
    c.meta = ctx ? ctx->trigger_table : NULL;
    c.prec = ctx ? ctx->precision : SL_PREC_MS;
    c.err = err;
    c.events = SL_EVT_WINDOW_CLOSE;

    if (!cs->has_from && c.t->kind != SL_TRIG_PERIOD)
        return FAIL(&c, c.t->pos, "a trigger table is required for %s (FROM ...)",
                    trig_names[c.t->kind]);
    if (cs->has_from && ((cs->from.db && strcasecmp(cs->from.db, "information_schema") == 0) ||
                         (c.meta && c.meta->db &&
                          strcasecmp(c.meta->db, "information_schema") == 0)))
        return FAIL(&c, cs->from.pos, "a system table cannot be a trigger table");
    TRY(check_trigger(&c));
    TRY(check_grouping(&c));
    TRY(check_options(&c));
    TRY(check_notify(&c));
    TRY(check_output(&c));
    return check_query(&c);
}
