/*
 * trigger_sliding.c - SLIDING(sliding[, offset]) without INTERVAL: ON_TIME at every point of
 * the event-time schedule once the group's watermark reaches it.
 *
 * The points follow the PERIOD rules with event time instead of system time (spec "Sliding
 * Trigger"). A group's first trigger is the first point after its first row; each trigger
 * covers the rows in [_tprev_ts, _tcurrent_ts). With IGNORE_NODATA_TRIGGER a point whose
 * period holds no rows is skipped. Late rows of the current period count; late rows of an
 * already fired period do not re-fire it (a point in time has no window to invalidate).
 */
#include "trigger_int.h"

enum { S_STARTED, S_PREV, S_NEXT, S__WORDS };

static int sliding_build(sl_trig_def *def, const sl_create_stream *cs, sl_error *err)
{
    const sl_trigger *tr = &cs->trigger;
    int rc = sl__trig_sched_check(tr->sliding, tr->sliding_offset, tr->has_sliding_offset,
                                  def->prec, "SLIDING", err);
    if (rc != 0)
        return rc;
    def->k.period = tr->sliding;
    if (tr->has_sliding_offset)
        def->k.period_offset = tr->sliding_offset;
    return 0;
}

static size_t sliding_state_size(const sl_trig_def *def)
{
    return S__WORDS * sizeof(int64_t);
}

static void sliding_state_init(const sl_trig_def *def, void *kst)
{
    int64_t *s = kst;
    s[S_STARTED] = 0;
    s[S_PREV] = s[S_NEXT] = 0;
}

static int sliding_row(sl__trig_ctx *c, int64_t ts, uint64_t aux)
{
    int64_t *s = c->kst;
    if (!s[S_STARTED]) {
        s[S_STARTED] = 1;
        s[S_PREV] = sl__trig_sched_prev(c->def, c->def->prec, ts);
        s[S_NEXT] = sl__trig_sched_next(c->def, c->def->prec, ts);
    }
    return 0;
}

static int sliding_advance(sl__trig_ctx *c, int64_t wm)
{
    int64_t *s = c->kst;
    if (!s[S_STARTED])
        return 0;
    while (s[S_NEXT] <= wm && s[S_NEXT] != INT64_MAX) {
        int64_t nx = sl__trig_sched_next(c->def, c->def->prec, s[S_NEXT]);
        uint64_t cnt = sl__trig_log_count(c->g, s[S_PREV], s[S_NEXT]);
        if (cnt > 0 || !c->def->ignore_nodata) {
            sl_trig_event ev = {.type = SL_TRIG_EV_ON_TIME};
            ev.prev_ts = s[S_PREV];
            ev.cur_ts = s[S_NEXT];
            ev.next_ts = nx;
            ev.rows_lo = s[S_PREV];
            ev.rows_hi = s[S_NEXT] - 1;
            ev.rownum = cnt;
            if (cnt == 0)
                ev.flags |= SL_TRIG_F_NO_DATA;
            int rc = sl__trig_on_time(c, &ev, s[S_NEXT]);
            if (rc != 0)
                return rc;
        }
        s[S_PREV] = s[S_NEXT];
        s[S_NEXT] = nx;
    }
    return 0;
}

static bool sliding_open_window(sl__trig_ctx *c, sl__trig_win *w)
{
    return false;
}

static int64_t sliding_retain_from(sl__trig_ctx *c, int64_t horizon)
{
    const int64_t *s = c->kst;
    return s[S_STARTED] ? s[S_PREV] : INT64_MIN;
}

static int sliding_late(sl__trig_ctx *c, int64_t lo, int64_t hi, int kind)
{
    return 0; /* the core logged the row; it counts if its period has not fired yet */
}

static bool sliding_recalc(const sl_trig_def *def)
{
    return true;
}

const sl__trig_kind_ops sl__trig_sliding_ops = {
    .kind = SL_TRIG_SLIDING,
    .type_name = "Sliding",
    .window = false,
    .build = sliding_build,
    .state_size = sliding_state_size,
    .state_init = sliding_state_init,
    .row = sliding_row,
    .advance = sliding_advance,
    .open_window = sliding_open_window,
    .retain_from = sliding_retain_from,
    .late = sliding_late,
    .recalc = sliding_recalc,
    .keeps_log = true,
};
