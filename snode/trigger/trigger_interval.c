/*
 * trigger_interval.c - INTERVAL(i[, ioffset]) SLIDING(s[, offset]): time windows on event
 * time, aligned to the epoch plus the offsets.
 *
 * Window starts are offset + k*s (offset = interval offset + sliding offset), each window
 * is [start, start+i). Per semantics.md rule 8 a window opens when the group's watermark
 * reaches its start and closes when it reaches start+i; windows between data with no rows
 * still open and close (flagged SL_TRIG_F_NO_DATA) unless IGNORE_NODATA_TRIGGER, which
 * skips them (a window then opens at its first row). _twend is the exclusive end. Row
 * counts come from the group's row log, which the core keeps from the oldest open window.
 * Late rows, updates and deletes recompute exactly the windows that contain them
 * (late() below, no replay needed): an emitted window gets WINDOW_INVALIDATION and then
 * its new WINDOW_CLOSE.
 */
#include "trigger_int.h"

enum { I_STARTED, I_NEXT_OPEN, I_NEXT_CLOSE, I__WORDS };

static int interval_build(sl_trig_def *def, const sl_create_stream *cs, sl_error *err)
{
    const sl_trigger *tr = &cs->trigger;
    sl__trig_kparams *k = &def->k;
    int rc;
    if ((rc = sl__trig_dur(def, &tr->interval, "INTERVAL", &k->interval, err)) != 0)
        return rc;
    if (k->interval <= 0)
        return sl_error_set(err, SL_EINVAL, tr->interval.pos.line, tr->interval.pos.col,
                            "INTERVAL must be positive");
    if (tr->sliding.value == 0 && tr->sliding.unit == 0) {
        k->sliding = k->interval;
    } else {
        if ((rc = sl__trig_dur(def, &tr->sliding, "SLIDING", &k->sliding, err)) != 0)
            return rc;
        if (k->sliding <= 0 || k->sliding > k->interval)
            return sl_error_set(err, SL_EINVAL, tr->sliding.pos.line, tr->sliding.pos.col,
                                "SLIDING must be positive and not longer than INTERVAL");
    }
    if (tr->has_interval_offset) {
        if ((rc = sl__trig_dur(def, &tr->interval_offset, "INTERVAL offset",
                               &k->interval_offset, err)) != 0)
            return rc;
        if (k->interval_offset < 0 || k->interval_offset >= k->interval)
            return sl_error_set(err, SL_EINVAL, tr->interval_offset.pos.line,
                                tr->interval_offset.pos.col,
                                "INTERVAL offset must be shorter than the interval");
    }
    if (tr->has_sliding_offset) {
        if ((rc = sl__trig_dur(def, &tr->sliding_offset, "SLIDING offset", &k->sliding_offset,
                               err)) != 0)
            return rc;
        if (k->sliding_offset < 0 || k->sliding_offset >= k->sliding)
            return sl_error_set(err, SL_EINVAL, tr->sliding_offset.pos.line,
                                tr->sliding_offset.pos.col,
                                "SLIDING offset must be shorter than the sliding");
    }
    return 0;
}

/* The first window start strictly after x. */
static inline int64_t first_after(const sl_trig_def *def, int64_t x)
{
    int64_t base = def->k.interval_offset + def->k.sliding_offset;
    return base + (sl_floordiv(x - base, def->k.sliding) + 1) * def->k.sliding;
}

static size_t interval_state_size(const sl_trig_def *def)
{
    return I__WORDS * sizeof(int64_t);
}

static void interval_state_init(const sl_trig_def *def, void *kst)
{
    int64_t *s = kst;
    s[I_STARTED] = s[I_NEXT_OPEN] = s[I_NEXT_CLOSE] = 0;
}

static int open_win(sl__trig_ctx *c, int64_t start)
{
    sl__trig_win w = {.start = start, .end = start + c->def->k.interval,
                      .window_index = -1, .condition_index = -1};
    return sl__trig_open(c, &w);
}

static int interval_row(sl__trig_ctx *c, int64_t ts, uint64_t aux)
{
    int64_t *s = c->kst;
    const sl_trig_def *def = c->def;
    if (!s[I_STARTED]) {
        s[I_STARTED] = 1;
        s[I_NEXT_OPEN] = s[I_NEXT_CLOSE] = first_after(def, ts - def->k.interval);
        return 0;
    }
    if (!def->ignore_nodata)
        return 0;
    /* Windows opened earlier without rows announce themselves at their first row. */
    for (int64_t st = first_after(def, ts - def->k.interval); st < s[I_NEXT_OPEN] && st <= ts;
         st += def->k.sliding) {
        if (st < s[I_NEXT_CLOSE])
            continue;
        if (sl__trig_log_count(c->g, st, st + def->k.interval) == 1) {
            int rc = open_win(c, st);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

static int interval_advance(sl__trig_ctx *c, int64_t wm)
{
    int64_t *s = c->kst;
    const sl_trig_def *def = c->def;
    if (!s[I_STARTED])
        return 0;
    const int64_t i = def->k.interval;
    for (;;) {
        int64_t close_t = s[I_NEXT_CLOSE] + i;
        int64_t open_t = s[I_NEXT_OPEN];
        int rc = 0;
        if (s[I_NEXT_CLOSE] < s[I_NEXT_OPEN] && close_t <= wm && close_t <= open_t) {
            int64_t st = s[I_NEXT_CLOSE];
            uint64_t cnt = sl__trig_log_count(c->g, st, st + i);
            s[I_NEXT_CLOSE] += def->k.sliding;
            if (cnt > 0 || !def->ignore_nodata) {
                sl__trig_win w = {.start = st, .end = st + i, .rownum = cnt,
                                  .window_index = -1, .condition_index = -1};
                c->pos = close_t;
                rc = sl__trig_close(c, &w);
            }
        } else if (open_t <= wm) {
            s[I_NEXT_OPEN] += def->k.sliding;
            if (!def->ignore_nodata || sl__trig_log_count(c->g, open_t, open_t + i) > 0)
                rc = open_win(c, open_t);
        } else {
            break;
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

static bool interval_open_window(sl__trig_ctx *c, sl__trig_win *w)
{
    const int64_t *s = c->kst;
    if (!s[I_STARTED] || s[I_NEXT_CLOSE] >= s[I_NEXT_OPEN])
        return false;
    int64_t st = s[I_NEXT_CLOSE];
    *w = (sl__trig_win){.start = st, .end = st + c->def->k.interval,
                        .rownum = sl__trig_log_count(c->g, st, st + c->def->k.interval),
                        .window_index = -1, .condition_index = -1};
    return w->rownum > 0 || !c->def->ignore_nodata;
}

static int64_t interval_retain_from(sl__trig_ctx *c, int64_t horizon)
{
    const int64_t *s = c->kst;
    if (!s[I_STARTED])
        return INT64_MIN;
    int64_t a = horizon == INT64_MIN ? INT64_MIN
                                     : first_after(c->def, horizon - c->def->k.interval);
    return a < s[I_NEXT_CLOSE] ? a : s[I_NEXT_CLOSE];
}

static int interval_late(sl__trig_ctx *c, int64_t lo, int64_t hi, int kind)
{
    int64_t *s = c->kst;
    const sl_trig_def *def = c->def;
    if (!s[I_STARTED])
        return 0;
    const int64_t i = def->k.interval;
    for (int64_t st = first_after(def, lo - i); st <= hi && st < s[I_NEXT_OPEN];
         st += def->k.sliding) {
        uint64_t cnt = sl__trig_log_count(c->g, st, st + i);
        int rc = 0;
        if (st >= s[I_NEXT_CLOSE]) {
            /* Still open: counts come from the log; announce a first row if needed. */
            if (def->ignore_nodata && kind != SL_TRIG_ROW_DELETE && cnt == 1)
                rc = open_win(c, st);
            if (rc != 0)
                return rc;
            continue;
        }
        sl__trig_closed *e = sl__trig_closed_find(c->g, st, -1);
        if (e && e->rownum == cnt && kind != SL_TRIG_ROW_UPDATE)
            continue;
        if (!e && cnt == 0 && def->ignore_nodata)
            continue;
        if (e && (rc = sl__trig_invalidate(c, e)) != 0)
            return rc;
        if (cnt == 0 && def->ignore_nodata)
            continue;
        if (!e && def->ignore_nodata && (rc = open_win(c, st)) != 0)
            return rc;
        sl__trig_win w = {.start = st, .end = st + i, .rownum = cnt, .window_index = -1,
                          .condition_index = -1};
        if ((rc = sl__trig_close(c, &w)) != 0)
            return rc;
    }
    return 0;
}

static bool interval_recalc(const sl_trig_def *def)
{
    return true;
}

const sl__trig_kind_ops sl__trig_interval_ops = {
    .kind = SL_TRIG_INTERVAL,
    .type_name = "Interval",
    .window = true,
    .build = interval_build,
    .state_size = interval_state_size,
    .state_init = interval_state_init,
    .row = interval_row,
    .advance = interval_advance,
    .open_window = interval_open_window,
    .retain_from = interval_retain_from,
    .late = interval_late,
    .recalc = interval_recalc,
    .keeps_log = true,
};
