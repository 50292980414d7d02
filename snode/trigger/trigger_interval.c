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
 *
 * Calendar units: SLIDING in months or years (n, y) puts window starts on the first day of
 * every sliding-th month counted from 1970-01 (UTC), plus the offsets; INTERVAL in months
 * or years ends a window at the same day and time that many months later, the day clamped
 * to the length of the target month (so a window starting on the 1st plus the offsets ends
 * on the 1st of a later month plus the offsets: [2024-02-01, 2024-03-01) holds 29 days).
 * Weeks (w) are fixed 7 days aligned to the epoch plus offset, as the spec says windows
 * are ("divided starting from Unix time 0"); only the PERIOD / plain SLIDING schedule
 * counts weeks from Monday. Helpers below: win_end, first_after, first_containing.
 */
#include "trigger_int.h"

enum { I_STARTED, I_NEXT_OPEN, I_NEXT_CLOSE, I__WORDS };

/* A duration that may be in months or years: *months > 0 (and *len a 28-day month / 365-day
 * year length for comparisons, as stream_check counts them), or a fixed *len. */
static int cal_dur(const sl_trig_def *def, const sl_duration *d, const char *what, int64_t *len,
                   int64_t *months, sl_error *err)
{
    *months = 0;
    if (!sl_duration_unit_is_calendar(d->unit))
        return sl__trig_dur(def, d, what, len, err);
    if (d->value <= 0 || d->value > 12000 || (d->unit == 'y' && d->value > 1000))
        return sl_error_set(err, SL_EINVAL, d->pos.line, d->pos.col,
                            "%s %lld%c is out of range (1 month to 1000 years)", what,
                            (long long)d->value, d->unit);
    *months = d->unit == 'y' ? d->value * 12 : d->value;
    int64_t day = 86400 * sl_precision_per_sec(def->prec);
    *len = d->unit == 'y' ? d->value * 365 * day : d->value * 28 * day;
    return 0;
}

static int interval_build(sl_trig_def *def, const sl_create_stream *cs, sl_error *err)
{
    const sl_trigger *tr = &cs->trigger;
    sl__trig_kparams *k = &def->k;
    int rc;
    if ((rc = cal_dur(def, &tr->interval, "INTERVAL", &k->interval, &k->interval_months, err)) !=
        0)
        return rc;
    if (k->interval <= 0)
        return sl_error_set(err, SL_EINVAL, tr->interval.pos.line, tr->interval.pos.col,
                            "INTERVAL must be positive");
    if (tr->sliding.value == 0 && tr->sliding.unit == 0) {
        k->sliding = k->interval;
        k->sliding_months = k->interval_months;
    } else {
        if ((rc = cal_dur(def, &tr->sliding, "SLIDING", &k->sliding, &k->sliding_months, err)) !=
            0)
            return rc;
        if (k->sliding <= 0 || k->sliding > k->interval)
            return sl_error_set(err, SL_EINVAL, tr->sliding.pos.line, tr->sliding.pos.col,
                                "SLIDING must be positive and not longer than INTERVAL%s",
                                k->interval_months || k->sliding_months
                                    ? " (a month counts as 28 days, a year as 365)"
                                    : "");
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

/* ---------------------------------------------------------- window arithmetic */

static inline int64_t day_len(const sl_trig_def *def)
{
    return 86400 * sl_precision_per_sec(def->prec);
}

/* t plus n calendar months (day clamped to the target month's length, time kept). */
static int64_t add_months(const sl_trig_def *def, int64_t t, int64_t n)
{
    int64_t day = day_len(def), days = sl_floordiv(t, day), tod = t - days * day;
    int64_t y;
    unsigned m, d;
    sl_civil_from_days(days, &y, &m, &d);
    int64_t mi = y * 12 + (int64_t)m - 1 + n;
    int64_t ty = sl_floordiv(mi, 12);
    unsigned tm = (unsigned)sl_floormod(mi, 12) + 1;
    int64_t first = sl_days_from_civil(ty, tm, 1);
    int64_t mlen = (tm == 12 ? sl_days_from_civil(ty + 1, 1, 1)
                             : sl_days_from_civil(ty, tm + 1, 1)) - first;
    if ((int64_t)d > mlen)
        d = (unsigned)mlen;
    return (first + (int64_t)d - 1) * day + tod;
}

static inline int64_t base_of(const sl_trig_def *def)
{
    return def->k.interval_offset + def->k.sliding_offset;
}

/* The exclusive end of the window starting at st. */
static inline int64_t win_end(const sl_trig_def *def, int64_t st)
{
    if (!def->k.interval_months)
        return st + def->k.interval;
    int64_t b = base_of(def);
    return add_months(def, st - b, def->k.interval_months) + b;
}

/* The first window start strictly after x. */
static int64_t first_after(const sl_trig_def *def, int64_t x)
{
    int64_t base = base_of(def);
    if (!def->k.sliding_months)
        return base + (sl_floordiv(x - base, def->k.sliding) + 1) * def->k.sliding;
    /* Starts are month_start(j * sm) + base: the largest one <= x has j = mi / sm. */
    int64_t day = day_len(def), y;
    unsigned m, d;
    sl_civil_from_days(sl_floordiv(x - base, day), &y, &m, &d);
    int64_t mi = (y - 1970) * 12 + (int64_t)m - 1;
    int64_t sm = def->k.sliding_months;
    int64_t k = (sl_floordiv(mi, sm) + 1) * sm;
    return sl_days_from_civil(1970 + sl_floordiv(k, 12), (unsigned)sl_floormod(k, 12) + 1, 1) *
               day +
           base;
}

/* The first window whose end is after ts (the first window containing ts, or the first
 * after it when ts falls in a gap between windows). */
static int64_t first_containing(const sl_trig_def *def, int64_t ts)
{
    if (!def->k.interval_months && !def->k.sliding_months)
        return first_after(def, ts - def->k.interval);
    /* Every window is shorter than maxlen: starts at or before ts - maxlen end by ts. */
    int64_t maxlen = def->k.interval_months ? (def->k.interval_months + 1) * 31 * day_len(def)
                                            : def->k.interval;
    int64_t st = first_after(def, ts > INT64_MIN + maxlen ? ts - maxlen : INT64_MIN / 2);
    if (!def->k.sliding_months) {
        /* Fixed steps: binary search over the start index. */
        int64_t s = def->k.sliding, lo = 0, hi = (ts - st) / s + 1; /* start lo+hi*s > ts */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (win_end(def, st + mid * s) > ts)
                hi = mid;
            else
                lo = mid + 1;
        }
        return st + lo * s;
    }
    while (win_end(def, st) <= ts)
        st = first_after(def, st);
    return st;
}

/* The window start after st. */
static inline int64_t next_start(const sl_trig_def *def, int64_t st)
{
    return def->k.sliding_months ? first_after(def, st) : st + def->k.sliding;
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
    sl__trig_win w = {.start = start, .end = win_end(c->def, start),
                      .window_index = -1, .condition_index = -1};
    return sl__trig_open(c, &w);
}

static int interval_row(sl__trig_ctx *c, int64_t ts, uint64_t aux)
{
    int64_t *s = c->kst;
    const sl_trig_def *def = c->def;
    if (!s[I_STARTED]) {
        s[I_STARTED] = 1;
        s[I_NEXT_OPEN] = s[I_NEXT_CLOSE] = first_containing(def, ts);
        return 0;
    }
    if (!def->ignore_nodata)
        return 0;
    /* Windows opened earlier without rows announce themselves at their first row. */
    for (int64_t st = first_containing(def, ts); st < s[I_NEXT_OPEN] && st <= ts;
         st = next_start(def, st)) {
        if (st < s[I_NEXT_CLOSE])
            continue;
        if (sl__trig_log_count(c->g, st, win_end(def, st)) == 1) {
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
    for (;;) {
        int64_t close_t = win_end(def, s[I_NEXT_CLOSE]);
        int64_t open_t = s[I_NEXT_OPEN];
        int rc = 0;
        if (s[I_NEXT_CLOSE] < s[I_NEXT_OPEN] && close_t <= wm && close_t <= open_t) {
            int64_t st = s[I_NEXT_CLOSE];
            uint64_t cnt = sl__trig_log_count(c->g, st, close_t);
            s[I_NEXT_CLOSE] = next_start(def, st);
            if (cnt > 0 || !def->ignore_nodata) {
                sl__trig_win w = {.start = st, .end = close_t, .rownum = cnt,
                                  .window_index = -1, .condition_index = -1};
                c->pos = close_t;
                rc = sl__trig_close(c, &w);
            }
        } else if (open_t <= wm) {
            s[I_NEXT_OPEN] = next_start(def, open_t);
            if (!def->ignore_nodata || sl__trig_log_count(c->g, open_t, win_end(def, open_t)) > 0)
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
    int64_t st = s[I_NEXT_CLOSE], end = win_end(c->def, st);
    *w = (sl__trig_win){.start = st, .end = end,
                        .rownum = sl__trig_log_count(c->g, st, end),
                        .window_index = -1, .condition_index = -1};
    return w->rownum > 0 || !c->def->ignore_nodata;
}

static int64_t interval_retain_from(sl__trig_ctx *c, int64_t horizon)
{
    const int64_t *s = c->kst;
    if (!s[I_STARTED])
        return INT64_MIN;
    int64_t a = horizon == INT64_MIN ? INT64_MIN : first_containing(c->def, horizon);
    return a < s[I_NEXT_CLOSE] ? a : s[I_NEXT_CLOSE];
}

static int interval_late(sl__trig_ctx *c, int64_t lo, int64_t hi, int kind)
{
    int64_t *s = c->kst;
    const sl_trig_def *def = c->def;
    if (!s[I_STARTED])
        return 0;
    for (int64_t st = first_containing(def, lo); st <= hi && st < s[I_NEXT_OPEN];
         st = next_start(def, st)) {
        int64_t end = win_end(def, st);
        uint64_t cnt = sl__trig_log_count(c->g, st, end);
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
        sl__trig_win w = {.start = st, .end = end, .rownum = cnt, .window_index = -1,
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
