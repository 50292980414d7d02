/*
 * trigger_def.c - compiles a CREATE STREAM trigger into an sl_trig_def.
 *
 * The AST is checked by sl_stream_check before it gets here, but the engine does not
 * trust that: every value it computes with (durations, counts, option combinations,
 * expression types) is checked again so a bad definition passed directly is refused with
 * a message instead of misbehaving. Also home of the kind table (one entry per trigger
 * type), the expression binder over the trigger table's input layout, the definition
 * fingerprint that checkpoints carry, and the trigger id hash.
 */
#include "trigger_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <xxhash.h>

/* The kind table: one designated entry per trigger type of the grammar (all seven have one;
 * a kind added to the parser without an entry here is refused by sl_trig_def_build). */
static const sl__trig_kind_ops *const kinds[] = {
    [SL_TRIG_PERIOD] = &sl__trig_period_ops,     [SL_TRIG_SLIDING] = &sl__trig_sliding_ops,
    [SL_TRIG_INTERVAL] = &sl__trig_interval_ops, [SL_TRIG_SESSION] = &sl__trig_session_ops,
    [SL_TRIG_STATE] = &sl__trig_state_ops,       [SL_TRIG_EVENT] = &sl__trig_event_ops,
    [SL_TRIG_COUNT] = &sl__trig_count_ops,
};

const char *sl_trig_event_type_name(sl_trig_event_type t)
{
    switch (t) {
    case SL_TRIG_EV_WINDOW_OPEN: return "WINDOW_OPEN";
    case SL_TRIG_EV_WINDOW_CLOSE: return "WINDOW_CLOSE";
    case SL_TRIG_EV_ON_TIME: return "ON_TIME";
    case SL_TRIG_EV_IDLE: return "IDLE";
    case SL_TRIG_EV_RESUME: return "RESUME";
    case SL_TRIG_EV_WINDOW_INVALIDATION: return "WINDOW_INVALIDATION";
    case SL_TRIG_EV_MAX_DELAY: return "MAX_DELAY";
    }
    return "?";
}

uint64_t sl_trig_id(uint64_t stream_id, uint64_t group_id, int64_t start, sl_trig_id_class cls,
                    int32_t window_index)
{
    uint8_t b[8 + 8 + 8 + 4 + 4];
    memcpy(b, &stream_id, 8);
    memcpy(b + 8, &group_id, 8);
    memcpy(b + 16, &start, 8);
    uint32_t c = (uint32_t)cls;
    memcpy(b + 24, &c, 4);
    memcpy(b + 28, &window_index, 4);
    return XXH3_64bits(b, sizeof b);
}

int sl__trig_column_index(const sl_trig_def *def, const char *name)
{
    int n = def->ncols + def->ntags + 1;
    for (int i = 0; i < n; i++)
        if (def->col_names[i] && strcasecmp(def->col_names[i], name) == 0)
            return i;
    return -1;
}

int sl__trig_bind(void *ud, const sl_expr *node, sl_binding *b, sl_error *err)
{
    sl_trig_def *def = ud;
    if (node->kind == SL_EX_PLACEHOLDER || node->kind == SL_EX_PSEUDO)
        return sl_error_set(err, SL_EINVAL, node->pos.line, node->pos.col,
                            "placeholders are not allowed in trigger expressions");
    if (node->kind != SL_EX_COLUMN)
        return 0;
    int i = sl__trig_column_index(def, node->u.column.name);
    if (i < 0)
        return sl_error_set(err, SL_ENOTFOUND, node->pos.line, node->pos.col,
                            "unknown column \"%s\" in the trigger table", node->u.column.name);
    b->kind = SL_BIND_COLUMN;
    b->index = i;
    b->type = def->col_types[i];
    b->width = def->col_widths[i];
    if (i + 1 > def->min_columns)
        def->min_columns = i + 1;
    return 0;
}

int sl__trig_dur(const sl_trig_def *def, const sl_duration *d, const char *what, int64_t *out,
                 sl_error *err)
{
    if (sl_duration_unit_is_calendar(d->unit))
        return sl_error_set(err, SL_EUNSUPPORTED, d->pos.line, d->pos.col,
                            "%s in months or years is not supported by the trigger engine", what);
    int rc = sl_duration_to_precision(d->value, d->unit, def->prec, out);
    if (rc != 0)
        return sl_error_set(err, rc, d->pos.line, d->pos.col,
                            "%s %lld%c cannot be expressed in the database precision", what,
                            (long long)d->value, d->unit);
    return 0;
}

static int dur_ns(const sl_duration *d, const char *what, int64_t *out, sl_error *err)
{
    if (sl_duration_unit_is_calendar(d->unit))
        return sl_error_set(err, SL_EINVAL, d->pos.line, d->pos.col,
                            "%s may not use months or years", what);
    int rc = sl_duration_to_precision(d->value, d->unit, SL_PREC_NS, out);
    if (rc != 0 || *out <= 0)
        return sl_error_set(err, SL_EINVAL, d->pos.line, d->pos.col, "%s must be positive", what);
    return 0;
}

static const char *opt_name(sl_stream_opt_kind k)
{
    static const char *const names[] = {
        "WATERMARK", "EXPIRED_TIME", "IGNORE_DISORDER", "DELETE_RECALC",
        "DELETE_OUTPUT_TABLE", "FILL_HISTORY", "FILL_HISTORY_FIRST", "CALC_NOTIFY_ONLY",
        "LOW_LATENCY_CALC", "PRE_FILTER", "FORCE_OUTPUT", "MAX_DELAY", "EVENT_TYPE",
        "IGNORE_NODATA_TRIGGER", "IDLE_TIMEOUT"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static int fill_history_start(sl_trig_def *def, const sl_expr *e, sl_error *err)
{
    sl_binder bd = {.bind = sl__trig_bind, .ud = def, .precision = def->prec, .now = def->now};
    sl_cexpr *ce = NULL;
    int rc = sl_cexpr_compile(e, &bd, &ce, err);
    if (rc != 0)
        return rc;
    sl_value v, ts;
    char buf[64];
    if (!sl_cexpr_is_const(ce)) {
        sl_cexpr_free(ce);
        return sl_error_set(err, SL_EINVAL, e->pos.line, e->pos.col,
                            "FILL_HISTORY start must be a constant time");
    }
    rc = sl_cexpr_eval_const(ce, &v, err);
    if (rc == 0)
        rc = sl_value_cast(&v, SL_T_TIMESTAMP, 0, def->prec, buf, sizeof buf, &ts, err);
    sl_cexpr_free(ce);
    if (rc != 0) {
        char inner[SL_ERROR_MSG_MAX / 2];
        snprintf(inner, sizeof inner, "%.200s", err ? err->msg : "");
        return sl_error_reset(err, rc, e->pos.line, e->pos.col,
                              "FILL_HISTORY start is not a valid time: %s", inner);
    }
    if (ts.is_null)
        return sl_error_set(err, SL_EINVAL, e->pos.line, e->pos.col,
                            "FILL_HISTORY start may not be NULL");
    def->fill_history_start = ts.v.i;
    return 0;
}

static int build_options(sl_trig_def *def, const sl_create_stream *cs, sl_error *err)
{
    bool seen[SL_SOPT_IDLE_TIMEOUT + 1] = {0};
    const sl_stream_opt *has_event_type = NULL;
    for (int i = 0; i < cs->nopts; i++) {
        const sl_stream_opt *o = &cs->opts[i];
        if ((unsigned)o->kind > SL_SOPT_IDLE_TIMEOUT)
            return sl_error_set(err, SL_EINVAL, o->pos.line, o->pos.col, "unknown stream option");
        if (seen[o->kind])
            return sl_error_set(err, SL_EINVAL, o->pos.line, o->pos.col,
                                "option %s given twice", opt_name(o->kind));
        seen[o->kind] = true;
        int rc = 0;
        switch (o->kind) {
        case SL_SOPT_WATERMARK:
            rc = sl__trig_dur(def, &o->dur, "WATERMARK", &def->watermark, err);
            if (rc == 0 && def->watermark < 0)
                rc = sl_error_set(err, SL_EINVAL, o->pos.line, o->pos.col,
                                  "WATERMARK may not be negative");
            break;
        case SL_SOPT_EXPIRED_TIME:
            rc = sl__trig_dur(def, &o->dur, "EXPIRED_TIME", &def->expired, err);
            if (rc == 0 && def->expired <= 0)
                rc = sl_error_set(err, SL_EINVAL, o->pos.line, o->pos.col,
                                  "EXPIRED_TIME must be positive");
            break;
        case SL_SOPT_IGNORE_DISORDER: def->ignore_disorder = true; break;
        case SL_SOPT_DELETE_RECALC: def->delete_recalc = true; break;
        case SL_SOPT_DELETE_OUTPUT_TABLE: break; /* runtime (output) matter */
        case SL_SOPT_FILL_HISTORY:
        case SL_SOPT_FILL_HISTORY_FIRST:
            if (def->fill_history)
                return sl_error_set(err, SL_EINVAL, o->pos.line, o->pos.col,
                                    "FILL_HISTORY and FILL_HISTORY_FIRST cannot be combined");
            if (def->kind == SL_TRIG_PERIOD)
                return sl_error_set(err, SL_EINVAL, o->pos.line, o->pos.col,
                                    "%s is not supported with PERIOD", opt_name(o->kind));
            def->fill_history = true;
            def->fill_history_first = o->kind == SL_SOPT_FILL_HISTORY_FIRST;
            if (o->expr)
                rc = fill_history_start(def, o->expr, err);
            break;
        case SL_SOPT_CALC_NOTIFY_ONLY: def->calc_notify_only = true; break;
        case SL_SOPT_LOW_LATENCY_CALC: def->low_latency = true; break;
        case SL_SOPT_PRE_FILTER: {
            if (!o->expr)
                return sl_error_set(err, SL_EINVAL, o->pos.line, o->pos.col,
                                    "PRE_FILTER needs a condition");
            if (!def->has_table)
                return sl_error_set(err, SL_EINVAL, o->pos.line, o->pos.col,
                                    "PRE_FILTER needs a trigger table");
            sl_binder bd = {.bind = sl__trig_bind, .ud = def, .precision = def->prec,
                            .now = def->now};
            rc = sl_cexpr_compile(o->expr, &bd, &def->pre_filter, err);
            if (rc == 0 && sl_cexpr_type(def->pre_filter) != SL_T_BOOL)
                rc = sl_error_set(err, SL_ETYPE, o->pos.line, o->pos.col,
                                  "PRE_FILTER must be a boolean condition");
            break;
        }
        case SL_SOPT_FORCE_OUTPUT: def->force_output = true; break;
        case SL_SOPT_MAX_DELAY:
            rc = dur_ns(&o->dur, "MAX_DELAY", &def->max_delay_ns, err);
            if (rc == 0 && def->max_delay_ns < 3000000000LL)
                rc = sl_error_set(err, SL_EINVAL, o->pos.line, o->pos.col,
                                  "MAX_DELAY must be at least 3s");
            break;
        case SL_SOPT_EVENT_TYPE:
            if (o->events == 0 || (o->events & ~0xfu))
                return sl_error_set(err, SL_EINVAL, o->pos.line, o->pos.col,
                                    "EVENT_TYPE needs WINDOW_OPEN, WINDOW_CLOSE, IDLE or RESUME");
            def->events = o->events;
            has_event_type = o;
            break;
        case SL_SOPT_IGNORE_NODATA_TRIGGER: def->ignore_nodata = true; break;
        case SL_SOPT_IDLE_TIMEOUT:
            rc = dur_ns(&o->dur, "IDLE_TIMEOUT", &def->idle_timeout_ns, err);
            if (rc == 0 && (def->idle_timeout_ns < 1000000000LL ||
                            def->idle_timeout_ns > 10LL * 86400 * 1000000000LL))
                rc = sl_error_set(err, SL_EINVAL, o->pos.line, o->pos.col,
                                  "IDLE_TIMEOUT must be within [1s, 10d]");
            break;
        }
        if (rc != 0)
            return rc;
    }
    if (!def->ops->window) {
        /* EVENT_TYPE's window events do not apply to PERIOD / plain SLIDING (ignored). */
        def->events &= (unsigned)(SL_EVT_IDLE | SL_EVT_RESUME);
        if (!has_event_type)
            def->events = 0;
        def->max_delay_ns = 0;
    }
    if ((def->events & (SL_EVT_IDLE | SL_EVT_RESUME)) && def->idle_timeout_ns == 0)
        return sl_error_set(err, SL_EINVAL, has_event_type->pos.line, has_event_type->pos.col,
                            "EVENT_TYPE IDLE/RESUME requires IDLE_TIMEOUT");
    /* NOTIFY ON's types are emitted too (a window opening is notified although only its
     * close computes); those EVENT_TYPE lacks carry SL_TRIG_F_NOTIFY_ONLY. */
    def->calc_events = def->events;
    if (cs->notify.present && cs->notify.has_on) {
        unsigned on = cs->notify.on_events & 0xfu;
        if (!def->ops->window)
            on &= (unsigned)(SL_EVT_IDLE | SL_EVT_RESUME);
        if ((on & (SL_EVT_IDLE | SL_EVT_RESUME)) && def->idle_timeout_ns == 0)
            return sl_error_set(err, SL_EINVAL, cs->notify.on_pos.line, cs->notify.on_pos.col,
                                "NOTIFY ON IDLE/RESUME requires IDLE_TIMEOUT");
        def->events |= on;
    }
    if (def->delete_recalc && def->ops->recalc && !def->ops->recalc(def))
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "DELETE_RECALC is only supported on count windows whose sliding "
                            "step is 1");
    if (def->low_latency)
        def->event_flags |= SL_TRIG_F_LOW_LATENCY;
    if (def->calc_notify_only)
        def->event_flags |= SL_TRIG_F_CALC_NOTIFY_ONLY;
    if (def->force_output)
        def->event_flags |= SL_TRIG_F_FORCE_OUTPUT;
    return 0;
}

/* ------------------------------------------------------------------ fingerprint */

static uint64_t mix(uint64_t h, int64_t v)
{
    return XXH3_64bits_withSeed(&v, sizeof v, h);
}

static uint64_t mix_name(uint64_t h, const char *name)
{
    char buf[256];
    size_t n = 0;
    for (; name && name[n] && n < sizeof buf; n++)
        buf[n] = (char)(name[n] >= 'A' && name[n] <= 'Z' ? name[n] - 'A' + 'a' : name[n]);
    h = mix(h, (int64_t)n);
    return XXH3_64bits_withSeed(buf, n, h);
}

static uint64_t mix_list(uint64_t h, const sl_expr_list *l)
{
    h = mix(h, l->n);
    for (int i = 0; i < l->n; i++)
        h = sl__trig_expr_hash(l->items[i], h);
    return h;
}

uint64_t sl__trig_expr_hash(const sl_expr *e, uint64_t h)
{
    if (!e)
        return mix(h, -1);
    h = mix(h, e->kind);
    switch (e->kind) {
    case SL_EX_LITERAL:
        h = mix(h, e->u.lit.kind);
        switch (e->u.lit.kind) {
        case SL_LIT_BOOL: return mix(h, e->u.lit.b);
        case SL_LIT_INT: return mix(h, e->u.lit.i);
        case SL_LIT_UINT: return mix(h, (int64_t)e->u.lit.u);
        case SL_LIT_FLOAT: {
            int64_t bits;
            memcpy(&bits, &e->u.lit.d, sizeof bits);
            return mix(h, bits);
        }
        case SL_LIT_STRING: return XXH3_64bits_withSeed(e->u.lit.s, e->u.lit.len, h);
        case SL_LIT_DURATION: return mix(mix(h, e->u.lit.dur.value), e->u.lit.dur.unit);
        default: return h;
        }
    case SL_EX_COLUMN: return mix_name(mix_name(h, e->u.column.table), e->u.column.name);
    case SL_EX_STAR: return mix_name(h, e->u.star.table);
    case SL_EX_UNARY: return sl__trig_expr_hash(e->u.unary.arg, mix(h, e->u.unary.op));
    case SL_EX_BINARY:
        h = mix(h, e->u.binary.op);
        return sl__trig_expr_hash(e->u.binary.right, sl__trig_expr_hash(e->u.binary.left, h));
    case SL_EX_FUNC:
        return mix_list(mix(mix_name(h, e->u.func.name), e->u.func.distinct), &e->u.func.args);
    case SL_EX_CASE:
        h = sl__trig_expr_hash(e->u.case_.operand, mix(h, e->u.case_.nwhen));
        for (int i = 0; i < e->u.case_.nwhen; i++)
            h = sl__trig_expr_hash(e->u.case_.whens[i].then,
                                   sl__trig_expr_hash(e->u.case_.whens[i].when, h));
        return sl__trig_expr_hash(e->u.case_.else_, h);
    case SL_EX_IN:
        return mix_list(sl__trig_expr_hash(e->u.in.arg, mix(h, e->u.in.negated)), &e->u.in.list);
    case SL_EX_BETWEEN:
        h = sl__trig_expr_hash(e->u.between.arg, mix(h, e->u.between.negated));
        return sl__trig_expr_hash(e->u.between.hi, sl__trig_expr_hash(e->u.between.lo, h));
    case SL_EX_ISNULL: return sl__trig_expr_hash(e->u.isnull.arg, mix(h, e->u.isnull.negated));
    case SL_EX_LIKE:
        h = sl__trig_expr_hash(e->u.like.arg, mix(h, e->u.like.negated));
        return sl__trig_expr_hash(e->u.like.pattern, h);
    case SL_EX_CAST:
        return sl__trig_expr_hash(e->u.cast.arg, mix(mix(h, e->u.cast.type), e->u.cast.width));
    case SL_EX_PLACEHOLDER: return mix(mix(h, e->u.placeholder.ph), e->u.placeholder.index);
    case SL_EX_PSEUDO: return mix(h, e->u.pseudo.ps);
    default: return h;
    }
}

static uint64_t mix_limit(uint64_t h, const sl_limit_expr *l)
{
    int64_t w[] = {l->op, l->duration.value, l->duration.unit, l->count};
    return XXH3_64bits_withSeed(w, sizeof w, h);
}

/*
 * Everything that shapes window state: the trigger type and every parameter of it (the
 * converted durations, and the AST of the kind's expressions, ZEROTH_STATE, EXTEND,
 * TRUE_FOR, COUNT_WINDOW columns), the kind's own resolved parameters, and the options
 * that change which rows enter windows or when they are released (WATERMARK, EXPIRED_TIME,
 * IGNORE_DISORDER, DELETE_RECALC, IGNORE_NODATA_TRIGGER, PRE_FILTER, MAX_DELAY,
 * IDLE_TIMEOUT, EVENT_TYPE). A checkpoint restores only into a definition with the same
 * fingerprint. Options that only flag events (LOW_LATENCY_CALC, CALC_NOTIFY_ONLY,
 * FORCE_OUTPUT) or tell the runtime where to read (FILL_HISTORY) are left out.
 */
static uint64_t fingerprint(const sl_trig_def *d, const sl_create_stream *cs)
{
    int64_t w[] = {d->kind,
                   (int64_t)d->stream_id,
                   d->prec,
                   d->tz_offset_sec,
                   d->watermark,
                   d->expired,
                   d->ignore_disorder,
                   d->delete_recalc,
                   d->ignore_nodata,
                   d->max_delay_ns,
                   d->idle_timeout_ns,
                   d->events,
                   d->k.period.value,
                   d->k.period.unit,
                   d->k.period_offset.value,
                   d->k.period_offset.unit,
                   d->k.interval,
                   d->k.interval_offset,
                   d->k.sliding,
                   d->k.sliding_offset,
                   d->k.interval_months,
                   d->k.sliding_months,
                   d->k.gap,
                   d->k.count,
                   d->k.count_slide,
                   d->k.ncount_cols,
                   d->single_group};
    uint64_t h = XXH3_64bits(w, sizeof w);
    for (int i = 0; i < d->k.ncount_cols; i++)
        h = mix(h, d->k.count_cols[i]);
    const sl_trigger *tr = &cs->trigger;
    switch (d->kind) {
    case SL_TRIG_STATE:
        h = mix_list(h, &tr->state_exprs);
        h = mix(mix(h, tr->has_extend), tr->extend);
        h = mix(h, tr->nzeroth);
        for (int i = 0; i < tr->nzeroth; i++)
            h = sl__trig_expr_hash(tr->zeroth[i].expr, h);
        break;
    case SL_TRIG_EVENT:
        h = mix(mix_list(h, &tr->event_starts), tr->event_multi);
        h = sl__trig_expr_hash(tr->event_end, h);
        break;
    default: break;
    }
    if (d->kind == SL_TRIG_STATE || d->kind == SL_TRIG_EVENT) {
        h = mix(h, tr->true_for.n);
        for (int i = 0; i < tr->true_for.n; i++)
            h = mix_limit(mix(h, tr->true_for.args[i].role), &tr->true_for.args[i].limit);
    }
    const sl_expr *pf = NULL;
    for (int i = 0; i < cs->nopts; i++)
        if (cs->opts[i].kind == SL_SOPT_PRE_FILTER)
            pf = cs->opts[i].expr;
    h = mix(h, pf != NULL);
    if (pf)
        h = sl__trig_expr_hash(pf, h);
    if (d->ops->fingerprint)
        h = mix(h, (int64_t)d->ops->fingerprint(d));
    return h;
}

int sl_trig_def_build(const sl_create_stream *cs, const sl_trig_def_opts *o, sl_trig_def **out,
                      sl_error *err)
{
    if (!cs || !o || !out)
        return sl_error_set(err, SL_EINVAL, 0, 0, "sl_trig_def_build: NULL argument");
    const sl_trigger *tr = &cs->trigger;
    if ((unsigned)tr->kind >= sizeof kinds / sizeof kinds[0])
        return sl_error_set(err, SL_EINVAL, tr->pos.line, tr->pos.col, "unknown trigger type");
    if (!kinds[tr->kind])
        return sl_error_set(err, SL_EUNSUPPORTED, tr->pos.line, tr->pos.col,
                            "the trigger engine has no window kind for this trigger type");
    if ((unsigned)o->precision > SL_PREC_NS)
        return sl_error_set(err, SL_EINVAL, 0, 0, "bad precision");
    if (o->tz_offset_sec <= -86400 || o->tz_offset_sec >= 86400)
        return sl_error_set(err, SL_EINVAL, 0, 0, "time zone offset out of range");
    if (!o->table && tr->kind != SL_TRIG_PERIOD)
        return sl_error_set(err, SL_EINVAL, tr->pos.line, tr->pos.col,
                            "this trigger type needs a trigger table (FROM)");
    if (o->table && (o->table->ncols < 1 || o->table->cols[0].type != SL_T_TIMESTAMP))
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "the trigger table must start with its TIMESTAMP key");

    sl_trig_def *def = calloc(1, sizeof *def);
    if (!def)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    int rc = SL_ENOMEM;
    def->ops = kinds[tr->kind];
    def->kind = tr->kind;
    def->stream_id = o->stream_id;
    def->prec = o->precision;
    def->tz_offset_sec = o->tz_offset_sec;
    def->now = o->now;
    def->events = SL_EVT_WINDOW_CLOSE;
    def->fill_history_start = INT64_MIN;
    def->min_columns = o->table ? 1 : 0;
    def->has_table = o->table != NULL;
    def->single_group = cs->partition_by.n == 0 && !cs->has_rollup;
    int n = o->table ? o->table->ncols + o->table->ntags + 1 : 1;
    def->col_names = calloc((size_t)n, sizeof *def->col_names);
    def->col_types = calloc((size_t)n, sizeof *def->col_types);
    def->col_widths = calloc((size_t)n, sizeof *def->col_widths);
    if (!def->col_names || !def->col_types || !def->col_widths)
        goto fail;
    if (o->table) {
        def->ncols = o->table->ncols;
        def->ntags = o->table->ntags;
        for (int i = 0; i < n - 1; i++) {
            const sl_field *f = i < def->ncols ? &o->table->cols[i]
                                               : &o->table->tags[i - def->ncols];
            def->col_names[i] = strdup(f->name);
            if (!def->col_names[i])
                goto fail;
            def->col_types[i] = f->type;
            def->col_widths[i] = f->width;
        }
    }
    def->col_names[n - 1] = strdup("tbname");
    if (!def->col_names[n - 1])
        goto fail;
    def->col_types[n - 1] = SL_T_VARCHAR;
    def->col_widths[n - 1] = SL_TABLE_NAME_MAX;

    def->table_rows = def->has_table && def->ops->keeps_log && def->ops->prepare == NULL &&
                      def->ops->intern == NULL;
    if ((rc = def->ops->build(def, cs, err)) != 0)
        goto fail;
    if ((rc = build_options(def, cs, err)) != 0)
        goto fail;
    def->fingerprint = fingerprint(def, cs);
    *out = def;
    return 0;
fail:
    if (rc == SL_ENOMEM)
        sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    sl_trig_def_free(def);
    return rc;
}

void sl_trig_def_free(sl_trig_def *d)
{
    if (!d)
        return;
    if (d->ops && d->ops->def_free)
        d->ops->def_free(d);
    free(d->k.count_cols);
    sl_cexpr_free(d->pre_filter);
    if (d->col_names) {
        int n = d->ncols + d->ntags + 1;
        for (int i = 0; i < n; i++)
            free(d->col_names[i]);
    }
    free(d->col_names);
    free(d->col_types);
    free(d->col_widths);
    free(d);
}

sl_trigger_kind sl_trig_def_kind(const sl_trig_def *d)
{
    return d->kind;
}

unsigned sl_trig_def_events(const sl_trig_def *d)
{
    return d->events;
}

int sl_trig_def_min_columns(const sl_trig_def *d)
{
    return d->min_columns;
}

bool sl_trig_def_fill_history(const sl_trig_def *d, int64_t *start, bool *first)
{
    if (start)
        *start = d->fill_history_start;
    if (first)
        *first = d->fill_history_first;
    return d->fill_history;
}
