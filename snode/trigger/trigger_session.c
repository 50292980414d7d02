/*
 * trigger_session.c - SESSION(ts, gap): rows no more than gap apart belong to one session.
 *
 * semantics.md rule 6: a session closes when a released row arrives more than gap after
 * the group's previous row, and that row starts the next session. _twstart/_twend are the
 * first and last row. Late rows, updates and deletes are recomputed by the core's replay
 * (the log starts at a session start, so the initial state is the state at the log head).
 */
#include "trigger_int.h"

#include <strings.h>

enum { SS_OPEN, SS_START, SS_LAST, SS_COUNT, SS__WORDS };

static int session_build(sl_trig_def *def, const sl_create_stream *cs, sl_error *err)
{
    const sl_trigger *tr = &cs->trigger;
    int rc = sl__trig_dur(def, &tr->session_gap, "SESSION gap", &def->k.gap, err);
    if (rc != 0)
        return rc;
    if (def->k.gap <= 0)
        return sl_error_set(err, SL_EINVAL, tr->session_gap.pos.line, tr->session_gap.pos.col,
                            "SESSION gap must be positive");
    if (tr->session_col && def->ncols > 0 && strcasecmp(tr->session_col, def->col_names[0]) != 0)
        return sl_error_set(err, SL_EINVAL, tr->session_col_pos.line, tr->session_col_pos.col,
                            "SESSION needs the primary key column %s, not %s",
                            def->col_names[0], tr->session_col);
    return 0;
}

static size_t session_state_size(const sl_trig_def *def)
{
    return SS__WORDS * sizeof(int64_t);
}

static void session_state_init(const sl_trig_def *def, void *kst)
{
    int64_t *s = kst;
    s[SS_OPEN] = s[SS_START] = s[SS_LAST] = s[SS_COUNT] = 0;
}

static int session_row(sl__trig_ctx *c, int64_t ts, uint64_t aux)
{
    int64_t *s = c->kst;
    if (s[SS_OPEN] && ts - s[SS_LAST] <= c->def->k.gap) {
        s[SS_LAST] = ts;
        s[SS_COUNT]++;
        return 0;
    }
    int rc;
    if (s[SS_OPEN]) {
        sl__trig_win w = {.start = s[SS_START], .end = s[SS_LAST],
                          .rownum = (uint64_t)s[SS_COUNT], .window_index = -1,
                          .condition_index = -1};
        if ((rc = sl__trig_close(c, &w)) != 0)
            return rc;
    }
    s[SS_OPEN] = 1;
    s[SS_START] = s[SS_LAST] = ts;
    s[SS_COUNT] = 1;
    sl__trig_win w = {.start = ts, .end = ts, .rownum = 1, .window_index = -1,
                      .condition_index = -1};
    return sl__trig_open(c, &w);
}

static int session_advance(sl__trig_ctx *c, int64_t wm)
{
    return 0;
}

static bool session_open_window(sl__trig_ctx *c, sl__trig_win *w)
{
    const int64_t *s = c->kst;
    if (!s[SS_OPEN])
        return false;
    *w = (sl__trig_win){.start = s[SS_START], .end = s[SS_LAST], .rownum = (uint64_t)s[SS_COUNT],
                        .window_index = -1, .condition_index = -1};
    return true;
}

static int64_t session_retain_from(sl__trig_ctx *c, int64_t horizon)
{
    const int64_t *s = c->kst;
    const sl__trig_closedvec *cv = &c->g->closed;
    int64_t lim = horizon == INT64_MIN ? INT64_MIN : horizon - c->def->k.gap;
    for (uint32_t i = 0; i < cv->n; i++)
        if (cv->v[i].end >= lim)
            return cv->v[i].start;
    return s[SS_OPEN] ? s[SS_START] : INT64_MAX;
}

static bool session_recalc(const sl_trig_def *def)
{
    return true;
}

const sl__trig_kind_ops sl__trig_session_ops = {
    .kind = SL_TRIG_SESSION,
    .type_name = "Session",
    .window = true,
    .build = session_build,
    .state_size = session_state_size,
    .state_init = session_state_init,
    .row = session_row,
    .advance = session_advance,
    .open_window = session_open_window,
    .retain_from = session_retain_from,
    .recalc = session_recalc,
    .keeps_log = true,
};
