/*
 * trigger_count.c - COUNT_WINDOW(n[, slide][, cols...]): windows of n rows.
 *
 * semantics.md rule 7: windows start at rows 0, s, 2s, ... of the group and close when
 * they hold n rows; with trigger columns only rows where one of them is not NULL count
 * (prepare() marks the others SL__TRIG_AUX_SKIP, so they never enter the log). Rows are
 * indexed relative to the head of the group's row log, which the core only prunes at a
 * window start (retain_from), so a replay from the head rebuilds the same windows. Per the
 * spec only slide 1 recomputes late rows and updates; other slides ignore them.
 */
#include "trigger_int.h"

#include <stdlib.h>

enum { C_CNT, C__WORDS };

static int count_build(sl_trig_def *def, const sl_create_stream *cs, sl_error *err)
{
    const sl_trigger *tr = &cs->trigger;
    if (tr->count < 1)
        return sl_error_set(err, SL_EINVAL, tr->count_pos.line, tr->count_pos.col,
                            "COUNT_WINDOW count must be at least 1");
    def->k.count = tr->count;
    def->k.count_slide = tr->has_count_sliding ? tr->count_sliding : tr->count;
    if (def->k.count_slide < 1 || def->k.count_slide > def->k.count)
        return sl_error_set(err, SL_EINVAL, tr->count_sliding_pos.line,
                            tr->count_sliding_pos.col,
                            "COUNT_WINDOW sliding must be within [1, count]");
    if (tr->ncount_cols > 0) {
        def->k.count_cols = calloc((size_t)tr->ncount_cols, sizeof(int));
        if (!def->k.count_cols)
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        def->k.ncount_cols = tr->ncount_cols;
        for (int i = 0; i < tr->ncount_cols; i++) {
            int ix = sl__trig_column_index(def, tr->count_cols[i]);
            sl_pos p = tr->count_col_pos ? tr->count_col_pos[i] : (sl_pos){0, 0};
            if (ix <= 0 || ix >= def->ncols)
                return sl_error_set(err, SL_EINVAL, p.line, p.col,
                                    "COUNT_WINDOW trigger column %s is not a regular column",
                                    tr->count_cols[i]);
            def->k.count_cols[i] = ix;
            if (ix + 1 > def->min_columns)
                def->min_columns = ix + 1;
        }
    }
    return 0;
}

static size_t count_state_size(const sl_trig_def *def)
{
    return C__WORDS * sizeof(int64_t);
}

static void count_state_init(const sl_trig_def *def, void *kst)
{
    ((int64_t *)kst)[C_CNT] = 0;
}

static int count_prepare(const sl_trig_def *def, const sl_block *b, const uint32_t *sel,
                         uint32_t n, uint64_t *aux, sl_error *err)
{
    for (uint32_t j = 0; j < n; j++) {
        uint32_t r = sel ? sel[j] : j;
        bool valid = def->k.ncount_cols == 0;
        for (int k = 0; k < def->k.ncount_cols && !valid; k++)
            valid = !sl_column_is_null(&b->cols[def->k.count_cols[k]], r);
        aux[j] = valid ? 1 : SL__TRIG_AUX_SKIP;
    }
    return 0;
}

/* Index of the oldest open window's first row (== cnt when none is open). */
static int64_t oldest_open(const sl_trig_def *def, int64_t cnt)
{
    int64_t k = (sl_floordiv(cnt - def->k.count, def->k.count_slide) + 1) * def->k.count_slide;
    return k < 0 ? 0 : k;
}

static int count_row(sl__trig_ctx *c, int64_t ts, uint64_t aux)
{
    int64_t *s = c->kst;
    const sl_trig_def *def = c->def;
    int64_t j = s[C_CNT]++;
    int64_t j0 = j - def->k.count + 1;
    bool closes = j0 >= 0 && j0 % def->k.count_slide == 0;
    bool opens = j % def->k.count_slide == 0;
    int rc;
    /* Close the window this row completes before opening the one it starts, unless they
     * are the same window (COUNT_WINDOW(1)). */
    if (closes && j0 < j) {
        sl__trig_win w = {.start = sl__trig_log_ts(c->g, (uint32_t)j0), .end = ts,
                          .rownum = (uint64_t)def->k.count, .window_index = -1,
                          .condition_index = -1};
        if ((rc = sl__trig_close(c, &w)) != 0)
            return rc;
    }
    if (opens) {
        sl__trig_win w = {.start = ts, .end = ts, .rownum = 1, .window_index = -1,
                          .condition_index = -1};
        if ((rc = sl__trig_open(c, &w)) != 0)
            return rc;
    }
    if (closes && j0 == j) {
        sl__trig_win w = {.start = ts, .end = ts, .rownum = 1, .window_index = -1,
                          .condition_index = -1};
        if ((rc = sl__trig_close(c, &w)) != 0)
            return rc;
    }
    return 0;
}

static int count_advance(sl__trig_ctx *c, int64_t wm)
{
    return 0;
}

static bool count_open_window(sl__trig_ctx *c, sl__trig_win *w)
{
    const int64_t cnt = ((const int64_t *)c->kst)[C_CNT];
    int64_t k = oldest_open(c->def, cnt);
    if (k >= cnt)
        return false;
    *w = (sl__trig_win){.start = sl__trig_log_ts(c->g, (uint32_t)k),
                        .end = sl__trig_log_ts(c->g, (uint32_t)(cnt - 1)),
                        .rownum = (uint64_t)(cnt - k), .window_index = -1,
                        .condition_index = -1};
    return true;
}

static int64_t count_retain_from(sl__trig_ctx *c, int64_t horizon)
{
    const sl_trig_def *def = c->def;
    const int64_t cnt = ((const int64_t *)c->kst)[C_CNT];
    int64_t r = oldest_open(def, cnt);
    if (def->k.count_slide == 1) {
        /* Keep every window that contains a row at or after the horizon. */
        uint32_t lo = sl__trig_log_lower(c->g, horizon);
        int64_t q = (int64_t)lo - def->k.count + 1;
        if (q < 0)
            q = 0;
        if (q < r)
            r = q;
    }
    return r < (int64_t)sl__trig_log_len(c->g) ? sl__trig_log_ts(c->g, (uint32_t)r) : INT64_MAX;
}

static void count_pruned(sl__trig_ctx *c, uint32_t n)
{
    ((int64_t *)c->kst)[C_CNT] -= n;
}

static bool count_recalc(const sl_trig_def *def)
{
    return def->k.count_slide == 1;
}

const sl__trig_kind_ops sl__trig_count_ops = {
    .kind = SL_TRIG_COUNT,
    .type_name = "Count",
    .window = true,
    .build = count_build,
    .state_size = count_state_size,
    .state_init = count_state_init,
    .prepare = count_prepare,
    .row = count_row,
    .advance = count_advance,
    .open_window = count_open_window,
    .retain_from = count_retain_from,
    .recalc = count_recalc,
    .pruned = count_pruned,
    .keeps_log = true,
};
