/*
 * trigger_period.c - PERIOD(period[, offset]): the system-time schedule, and the schedule
 * arithmetic it shares with the plain SLIDING trigger.
 *
 * The schedule follows spec "Scheduled Trigger": below one day, trigger points are local
 * midnight + offset + k*period inside each day, and the base resets every midnight (so
 * 5h30m gives 00:00, 05:30, 11:00, 16:30, 22:00); one day and longer, points are the
 * epoch + offset + k*period, weeks counted from Monday 1970-01-05, months from the 1st
 * and years from January 1st. Local time is UTC shifted by the server's fixed offset.
 * The PERIOD kind itself keeps no per-group window state: the engine core fires it from
 * sl_trig_tick for every group (trigger.c), using these functions.
 */
#include "trigger_int.h"

/* A period decomposed: either a fixed length in precision units or a number of months. */
typedef struct sched {
    bool months;
    int64_t len;     /* fixed: precision units; months: month count */
    bool weeks;      /* fixed length counted from Monday */
    int64_t off;     /* offset, precision units */
    int64_t day;     /* one day in precision units */
    int64_t tz;      /* zone offset in precision units */
} sched;

static bool sched_init(sched *s, sl_duration period, sl_duration offset, sl_precision p,
                       int32_t tz_offset_sec)
{
    int64_t per_sec = sl_precision_per_sec(p);
    s->day = 86400 * per_sec;
    s->tz = (int64_t)tz_offset_sec * per_sec;
    s->weeks = period.unit == 'w';
    s->months = period.unit == 'n' || period.unit == 'y';
    if (period.value <= 0)
        return false;
    if (s->months) {
        if (period.value > 12000)
            return false;
        s->len = period.unit == 'y' ? period.value * 12 : period.value;
    } else if (sl_duration_to_precision(period.value, period.unit, p, &s->len) != 0 ||
               s->len <= 0) {
        return false;
    }
    s->off = 0;
    if (offset.value != 0) {
        if (sl_duration_unit_is_calendar(offset.unit) ||
            sl_duration_to_precision(offset.value, offset.unit, p, &s->off) != 0 || s->off < 0)
            return false;
    }
    return true;
}

/* The start (local, precision units) of month index k counted from 1970-01. */
static int64_t month_start(const sched *s, int64_t k)
{
    int64_t y = 1970 + sl_floordiv(k, 12);
    unsigned m = (unsigned)sl_floormod(k, 12) + 1;
    return sl_days_from_civil(y, m, 1) * s->day;
}

/* First point > local (next) or last point <= local (!next), local time. */
static int64_t sched_find(const sched *s, int64_t local, bool next)
{
    if (s->months) {
        int64_t y;
        unsigned m, d;
        sl_civil_from_days(sl_floordiv(local, s->day), &y, &m, &d);
        int64_t k = (y - 1970) * 12 + (int64_t)m - 1;
        k = sl_floordiv(k, s->len) * s->len - 2 * s->len;
        /* Walk forward over aligned months: at most a few steps. */
        int64_t prev = INT64_MIN;
        for (int i = 0; i < 8; i++, k += s->len) {
            int64_t pt = month_start(s, k) + s->off;
            if (pt > local)
                return next ? pt : prev;
            prev = pt;
        }
        return next ? INT64_MAX : prev;
    }
    if (s->len >= s->day || s->weeks) {
        int64_t base = (s->weeks ? 4 * s->day : 0) + s->off;
        int64_t k = sl_floordiv(local - base, s->len);
        return next ? base + (k + 1) * s->len : base + k * s->len;
    }
    /* Below one day: reset at every local midnight. */
    if (s->off >= s->day)
        return next ? INT64_MAX : INT64_MIN;
    int64_t ds = sl_floordiv(local, s->day) * s->day;
    if (next) {
        if (local < ds + s->off)
            return ds + s->off;
        int64_t k = (local - ds - s->off) / s->len + 1;
        int64_t pt = ds + s->off + k * s->len;
        return pt < ds + s->day ? pt : ds + s->day + s->off;
    }
    if (local >= ds + s->off)
        return ds + s->off + (local - ds - s->off) / s->len * s->len;
    int64_t pd = ds - s->day;
    return pd + s->off + (s->day - 1 - s->off) / s->len * s->len;
}

int64_t sl_trig_schedule_next(sl_duration period, sl_duration offset, sl_precision p,
                              int32_t tz_offset_sec, int64_t t)
{
    sched s;
    if (!sched_init(&s, period, offset, p, tz_offset_sec))
        return INT64_MAX;
    int64_t r = sched_find(&s, t + s.tz, true);
    return r == INT64_MAX ? r : r - s.tz;
}

int64_t sl_trig_schedule_prev(sl_duration period, sl_duration offset, sl_precision p,
                              int32_t tz_offset_sec, int64_t t)
{
    sched s;
    if (!sched_init(&s, period, offset, p, tz_offset_sec))
        return INT64_MIN;
    int64_t r = sched_find(&s, t + s.tz, false);
    return r == INT64_MIN ? r : r - s.tz;
}

int64_t sl__trig_sched_next(const sl_trig_def *def, sl_precision p, int64_t t)
{
    return sl_trig_schedule_next(def->k.period, def->k.period_offset, p, def->tz_offset_sec, t);
}

int64_t sl__trig_sched_prev(const sl_trig_def *def, sl_precision p, int64_t t)
{
    return sl_trig_schedule_prev(def->k.period, def->k.period_offset, p, def->tz_offset_sec, t);
}

/* Shared by PERIOD and SLIDING: checks the period and offset in precision p. */
int sl__trig_sched_check(sl_duration period, sl_duration offset, bool has_offset, sl_precision p,
                         const char *what, sl_error *err)
{
    if (period.value <= 0 || !sl_duration_unit_valid(period.unit))
        return sl_error_set(err, SL_EINVAL, period.pos.line, period.pos.col,
                            "%s period must be positive", what);
    sched s;
    sl_duration zero = {0};
    if (!sched_init(&s, period, zero, p, 0))
        return sl_error_set(err, SL_EINVAL, period.pos.line, period.pos.col,
                            "%s period %lld%c cannot be used in precision %s", what,
                            (long long)period.value, period.unit, sl_precision_name(p));
    if (has_offset && offset.value != 0) {
        int64_t off;
        if (offset.value < 0 || sl_duration_unit_is_calendar(offset.unit) ||
            sl_duration_to_precision(offset.value, offset.unit, p, &off) != 0)
            return sl_error_set(err, SL_EINVAL, offset.pos.line, offset.pos.col,
                                "%s offset must be a non-negative duration in a, s, m, h or d",
                                what);
        /* Calendar periods: the offset must be shorter, a month counting 28 days. */
        int64_t cmp = s.months ? s.len * 28 * s.day : s.len;
        if ((s.months || s.weeks) && off >= cmp)
            return sl_error_set(err, SL_EINVAL, offset.pos.line, offset.pos.col,
                                "%s offset must be shorter than the period", what);
        if (!s.months && !s.weeks && s.len < s.day && off >= s.day)
            return sl_error_set(err, SL_EINVAL, offset.pos.line, offset.pos.col,
                                "%s offset must be shorter than one day", what);
    }
    return 0;
}

static int period_build(sl_trig_def *def, const sl_create_stream *cs, sl_error *err)
{
    const sl_trigger *tr = &cs->trigger;
    int rc = sl__trig_sched_check(tr->period, tr->period_offset, tr->has_period_offset,
                                  SL_PREC_NS, "PERIOD", err);
    if (rc != 0)
        return rc;
    /* Range [10a, 3650d], a month counting 28 days and a year 365. */
    int64_t ms;
    if (tr->period.unit == 'n')
        ms = tr->period.value * 28 * 86400000LL;
    else if (tr->period.unit == 'y')
        ms = tr->period.value * 365 * 86400000LL;
    else if (sl_duration_to_precision(tr->period.value, tr->period.unit, SL_PREC_NS, &ms) == 0)
        ms /= 1000000;
    else
        ms = 0;
    if (ms < 10 || ms > 3650LL * 86400000LL)
        return sl_error_set(err, SL_EINVAL, tr->period.pos.line, tr->period.pos.col,
                            "PERIOD must be within [10a, 3650d]");
    def->k.period = tr->period;
    if (tr->has_period_offset)
        def->k.period_offset = tr->period_offset;
    return 0;
}

static size_t period_state_size(const sl_trig_def *def)
{
    return 0;
}

static void period_state_init(const sl_trig_def *def, void *kst)
{
}

static int period_row(sl__trig_ctx *c, int64_t ts, uint64_t aux)
{
    return 0;
}

static int period_advance(sl__trig_ctx *c, int64_t wm)
{
    return 0;
}

static bool period_open_window(sl__trig_ctx *c, sl__trig_win *w)
{
    return false;
}

static int64_t period_retain_from(sl__trig_ctx *c, int64_t horizon)
{
    return INT64_MAX;
}

static int period_late(sl__trig_ctx *c, int64_t lo, int64_t hi, int kind)
{
    return 0;
}

const sl__trig_kind_ops sl__trig_period_ops = {
    .kind = SL_TRIG_PERIOD,
    .type_name = "Period",
    .window = false,
    .build = period_build,
    .state_size = period_state_size,
    .state_init = period_state_init,
    .row = period_row,
    .advance = period_advance,
    .open_window = period_open_window,
    .retain_from = period_retain_from,
    .late = period_late,
    .keeps_log = false,
};
