/*
 * trigger.c - the engine core: feeding rows, watermark release, late changes, event
 * emission, ticks (PERIOD, MAX_DELAY, IDLE/RESUME).
 *
 * Everything here is independent of the window kind (trigger_int.h explains the split).
 * Per group, rows are handled one at a time in change-log order so the outcome never
 * depends on how the runtime cut the blocks: a row above the released position waits in
 * the pending list until the watermark (max ts - WATERMARK) reaches it, then enters the
 * row log and the kind; a row at or below the released position is a late change (an
 * update when its timestamp is in the log) and recomputes the windows it touches, either
 * through the kind's own late() or through a replay of the row log whose closed windows
 * are diffed against those already emitted.
 */
#include "trigger_int.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

/* ------------------------------------------------------------------ row vectors */

static int rv_reserve(sl__trig_rowvec *rv, uint32_t extra)
{
    if (rv->head > 0 && rv->head >= rv->n / 2) {
        memmove(rv->v, rv->v + rv->head, (size_t)(rv->n - rv->head) * sizeof *rv->v);
        rv->n -= rv->head;
        rv->head = 0;
    }
    if (rv->n + extra <= rv->cap)
        return 0;
    uint32_t nc = rv->cap ? rv->cap * 2 : 16;
    while (nc < rv->n + extra)
        nc *= 2;
    sl__trig_logrow *nv = realloc(rv->v, (size_t)nc * sizeof *nv);
    if (!nv)
        return SL_ENOMEM;
    rv->v = nv;
    rv->cap = nc;
    return 0;
}

/* First index in [head, n) with ts >= x. */
static uint32_t rv_lower(const sl__trig_rowvec *rv, int64_t x)
{
    uint32_t lo = rv->head, hi = rv->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (rv->v[mid].ts < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int rv_insert(sl__trig_rowvec *rv, uint32_t at, int64_t ts, uint64_t aux)
{
    uint32_t off = at - rv->head;
    if (rv_reserve(rv, 1) != 0)
        return SL_ENOMEM;
    at = rv->head + off;
    memmove(rv->v + at + 1, rv->v + at, (size_t)(rv->n - at) * sizeof *rv->v);
    rv->v[at].ts = ts;
    rv->v[at].aux = aux;
    rv->n++;
    return 0;
}

static void rv_remove(sl__trig_rowvec *rv, uint32_t from, uint32_t to)
{
    if (from == rv->head) {
        rv->head = to;
        if (rv->head == rv->n)
            rv->head = rv->n = 0;
        return;
    }
    memmove(rv->v + from, rv->v + to, (size_t)(rv->n - to) * sizeof *rv->v);
    rv->n -= to - from;
}

/*
 * Looks up the row (ts, aux) in rv. Without table_rows a row is its timestamp. With
 * table_rows (trigger_int.h) it is its timestamp and table: aux is the table key, and 0
 * (a row of an unknown table) is the same row as any. Sets *at to the row's index when
 * found (returns true), else to where it is inserted to keep (ts, aux) order.
 */
static bool rv_find(const sl__trig_rowvec *rv, int64_t ts, uint64_t aux, bool table_rows,
                    uint32_t *at)
{
    uint32_t i = rv_lower(rv, ts);
    if (!table_rows) {
        *at = i;
        return i < rv->n && rv->v[i].ts == ts;
    }
    for (; i < rv->n && rv->v[i].ts == ts; i++) {
        if (rv->v[i].aux == aux || rv->v[i].aux == 0 || aux == 0) {
            *at = i;
            return true;
        }
        if (rv->v[i].aux > aux)
            break;
    }
    *at = i;
    return false;
}

/* Removes the rows of [from, to) that belong to table key `key` (or to an unknown table,
 * aux 0); returns how many. */
static uint32_t rv_remove_table(sl__trig_rowvec *rv, uint32_t from, uint32_t to, uint64_t key)
{
    uint32_t j = from;
    for (uint32_t i = from; i < to; i++)
        if (rv->v[i].aux != key && rv->v[i].aux != 0)
            rv->v[j++] = rv->v[i];
    uint32_t gone = to - j;
    if (gone > 0) {
        memmove(rv->v + j, rv->v + to, (size_t)(rv->n - to) * sizeof *rv->v);
        rv->n -= gone;
        if (rv->head == rv->n)
            rv->head = rv->n = 0;
    }
    return gone;
}

/* The table key of a row of table name p (len bytes): never 0 (unknown table) nor
 * SL__TRIG_AUX_SKIP. */
static uint64_t table_key(const char *p, uint32_t len)
{
    uint64_t k = XXH3_64bits_withSeed(p, len, 0x54424c);
    return k == 0 || k == SL__TRIG_AUX_SKIP ? 1 : k;
}

int64_t sl__trig_log_ts(const sl__trig_group *g, uint32_t i)
{
    return g->log.v[g->log.head + i].ts;
}

uint32_t sl__trig_log_lower(const sl__trig_group *g, int64_t t)
{
    return rv_lower(&g->log, t) - g->log.head;
}

uint64_t sl__trig_log_count(const sl__trig_group *g, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return 0;
    return rv_lower(&g->log, hi) - rv_lower(&g->log, lo);
}

static int cv_push(sl__trig_closedvec *cv, const sl__trig_closed *e)
{
    if (cv->n == cv->cap) {
        uint32_t nc = cv->cap ? cv->cap * 2 : 8;
        sl__trig_closed *nv = realloc(cv->v, (size_t)nc * sizeof *nv);
        if (!nv)
            return SL_ENOMEM;
        cv->v = nv;
        cv->cap = nc;
    }
    cv->v[cv->n++] = *e;
    return 0;
}

/* ------------------------------------------------------------------------ events */

static int emit(sl_trig *t, const sl_trig_sink *sink, uint64_t gid, uint32_t flags,
                sl_trig_event *ev)
{
    ev->group_id = gid;
    ev->trigger_type = t->def->ops->type_name;
    ev->flags |= t->def->event_flags | flags;
    unsigned bit = ev->type == SL_TRIG_EV_WINDOW_OPEN    ? SL_EVT_WINDOW_OPEN
                   : ev->type == SL_TRIG_EV_WINDOW_CLOSE ? SL_EVT_WINDOW_CLOSE
                   : ev->type == SL_TRIG_EV_IDLE         ? SL_EVT_IDLE
                   : ev->type == SL_TRIG_EV_RESUME       ? SL_EVT_RESUME
                                                         : 0;
    if (bit != 0 && !(t->def->calc_events & bit))
        ev->flags |= SL_TRIG_F_NOTIFY_ONLY;
    int64_t wall = sl__trig_wall(t);
    ev->event_time_ms = wall / 1000000;
    if (ev->localtime_ns == 0)
        ev->localtime_ns = wall;
    t->st.events++;
    if (!sink || !sink->emit)
        return 0;
    return sink->emit(sink->ud, ev);
}

static void win_event(const sl__trig_ctx *c, sl_trig_event *ev, sl_trig_event_type type,
                      const sl__trig_win *w)
{
    memset(ev, 0, sizeof *ev);
    ev->type = type;
    ev->trigger_id = sl_trig_id(c->def->stream_id, c->g->gid, w->start, SL_TRIG_IDC_WINDOW,
                                w->window_index);
    ev->wstart = w->start;
    ev->window_index = w->window_index;
    ev->condition_index = w->condition_index;
    ev->nstate = w->nstate;
    ev->prev_state = w->prev_state;
    ev->cur_state = w->cur_state;
    ev->next_state = w->next_state;
    ev->nfields = w->nfields;
    ev->field_names = w->field_names;
    ev->field_values = w->field_values;
    ev->version_hi = c->g->version_hi;
    if (type != SL_TRIG_EV_WINDOW_OPEN) {
        ev->wend = w->end;
        ev->wduration = w->end - w->start;
        ev->rownum = w->rownum;
        ev->rows_lo = w->start;
        ev->rows_hi = c->def->kind == SL_TRIG_INTERVAL ? w->end - 1 : w->end;
        if (w->rownum == 0)
            ev->flags |= SL_TRIG_F_NO_DATA;
    }
}

/* ------------------------------------------------- replay capture of window values */

/* The values a window carries (STATE/EVENT), decoded from the capture arena. */
typedef struct xvals {
    sl_value prev[SL_TRIG_MAX_KEYS], cur[SL_TRIG_MAX_KEYS], next[SL_TRIG_MAX_KEYS];
    sl_value fields[SL_TRIG_MAX_KEYS];
} xvals;

/* Appends a deep copy of w's values to the capture arena; *xoff = 1 + its offset, or 0 when
 * w carries none. */
static int cap_extras(sl_trig *t, const sl__trig_win *w, uint32_t *xoff)
{
    *xoff = 0;
    if (w->nstate <= 0 && w->nfields <= 0)
        return 0;
    size_t off = t->capx.len;
    if (off >= UINT32_MAX)
        return SL_ENOMEM;
    uint8_t has = (uint8_t)((w->prev_state ? 1 : 0) | (w->cur_state ? 2 : 0) |
                            (w->next_state ? 4 : 0) | (w->field_values ? 8 : 0));
    int rc = sl_buf_put_u8(&t->capx, has);
    if (rc == 0) rc = sl_buf_put_varu(&t->capx, (uint64_t)(w->nstate > 0 ? w->nstate : 0));
    if (rc == 0) rc = sl_buf_put_varu(&t->capx, (uint64_t)(w->nfields > 0 ? w->nfields : 0));
    if (rc == 0) rc = sl_buf_put(&t->capx, &w->field_names, sizeof w->field_names);
    if (rc == 0 && w->prev_state) rc = sl__trig_vals_put(&t->capx, w->prev_state, w->nstate);
    if (rc == 0 && w->cur_state) rc = sl__trig_vals_put(&t->capx, w->cur_state, w->nstate);
    if (rc == 0 && w->next_state) rc = sl__trig_vals_put(&t->capx, w->next_state, w->nstate);
    if (rc == 0 && w->field_values)
        rc = sl__trig_vals_put(&t->capx, w->field_values, w->nfields);
    if (rc != 0) {
        t->capx.len = off;
        return SL_ENOMEM;
    }
    *xoff = (uint32_t)off + 1;
    return 0;
}

/* Sets w's values from the capture arena record xoff (0: none), decoded into x. */
static void apply_extras(const sl_trig *t, uint32_t xoff, xvals *x, sl__trig_win *w)
{
    w->nstate = w->nfields = 0;
    w->prev_state = w->cur_state = w->next_state = w->field_values = NULL;
    w->field_names = NULL;
    if (xoff == 0)
        return;
    sl_reader r;
    sl_reader_init(&r, t->capx.data + xoff - 1, t->capx.len - (xoff - 1));
    uint8_t has;
    uint64_t ns, nf;
    const char *const *names;
    int n;
    /* The arena was written by cap_extras in this process: it decodes. */
    if (sl_reader_u8(&r, &has) != 0 || sl_reader_varu(&r, &ns) != 0 ||
        sl_reader_varu(&r, &nf) != 0 || sl_reader_get(&r, &names, sizeof names) != 0)
        return;
    w->nstate = (int)ns;
    w->nfields = (int)nf;
    w->field_names = names;
    if ((has & 1) && sl__trig_vals_get(&r, x->prev, SL_TRIG_MAX_KEYS, &n) == 0)
        w->prev_state = x->prev;
    if ((has & 2) && sl__trig_vals_get(&r, x->cur, SL_TRIG_MAX_KEYS, &n) == 0)
        w->cur_state = x->cur;
    if ((has & 4) && sl__trig_vals_get(&r, x->next, SL_TRIG_MAX_KEYS, &n) == 0)
        w->next_state = x->next;
    if ((has & 8) && sl__trig_vals_get(&r, x->fields, SL_TRIG_MAX_KEYS, &n) == 0)
        w->field_values = x->fields;
}

static uint64_t hash_vals(uint64_t h, const sl_value *v, int n)
{
    h = (h ^ (v ? 0x51ull : 0x15ull)) * 0x9E3779B97F4A7C15ull;
    for (int i = 0; v && i < n; i++)
        h = (h ^ (v[i].is_null ? 0xA5A5A5A5ull : sl__trig_value_hash(&v[i], i))) *
            0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

/* What a window's close carries beyond its bounds and rows (see sl__trig_closed.xhash). */
static uint64_t win_xhash(const sl__trig_win *w)
{
    uint64_t h = ((uint64_t)(uint32_t)w->condition_index + 1) * 0x9E3779B97F4A7C15ull;
    if (w->nstate <= 0 && w->nfields <= 0)
        return h;
    h = hash_vals(h, w->prev_state, w->nstate);
    h = hash_vals(h, w->cur_state, w->nstate);
    h = hash_vals(h, w->next_state, w->nstate);
    return hash_vals(h, w->field_values, w->nfields);
}

int sl__trig_open(sl__trig_ctx *c, const sl__trig_win *w)
{
    if (!(c->def->events & SL_EVT_WINDOW_OPEN))
        return 0;
    if (c->capture) {
        /* Replay: remember the open with its values (its condition and values may differ
         * from the close's: EVENT opens on its start row). */
        sl__trig_closed e = {.start = w->start, .window_index = w->window_index,
                             .condition_index = w->condition_index};
        int rc = cap_extras(c->t, w, &e.xoff);
        return rc ? rc : cv_push(&c->t->capture_open, &e);
    }
    sl_trig_event ev;
    win_event(c, &ev, SL_TRIG_EV_WINDOW_OPEN, w);
    return emit(c->t, c->sink, c->g->gid, c->flags, &ev);
}

int sl__trig_close(sl__trig_ctx *c, const sl__trig_win *w)
{
    sl__trig_closed e = {.start = w->start, .end = w->end, .rownum = w->rownum,
                         .window_index = w->window_index,
                         .condition_index = w->condition_index, .close_pos = c->pos,
                         .emitted = (c->def->events & SL_EVT_WINDOW_CLOSE) ? 1 : 0,
                         .xhash = win_xhash(w)};
    if (c->capture) {
        int rc = cap_extras(c->t, w, &e.xoff);
        return rc ? rc : cv_push(c->capture, &e);
    }
    if (cv_push(&c->g->closed, &e) != 0)
        return SL_ENOMEM;
    c->g->dirty = true;
    if (!e.emitted)
        return 0;
    sl_trig_event ev;
    win_event(c, &ev, SL_TRIG_EV_WINDOW_CLOSE, w);
    return emit(c->t, c->sink, c->g->gid, c->flags, &ev);
}

int sl__trig_on_time(sl__trig_ctx *c, sl_trig_event *ev, int64_t id_start)
{
    if (c->capture)
        return 0;
    ev->trigger_id =
        sl_trig_id(c->def->stream_id, c->g->gid, id_start, SL_TRIG_IDC_ON_TIME, -1);
    ev->window_index = ev->condition_index = -1;
    ev->version_hi = c->g->version_hi;
    return emit(c->t, c->sink, c->g->gid, c->flags, ev);
}

sl__trig_closed *sl__trig_closed_find(sl__trig_group *g, int64_t start, int32_t window_index)
{
    for (uint32_t i = g->closed.n; i-- > 0;)
        if (g->closed.v[i].start == start && g->closed.v[i].window_index == window_index)
            return &g->closed.v[i];
    return NULL;
}

static int invalidation(sl__trig_ctx *c, const sl__trig_closed *e)
{
    if (!e->emitted)
        return 0;
    sl__trig_win w = {.start = e->start, .end = e->end, .rownum = e->rownum,
                      .window_index = e->window_index, .condition_index = e->condition_index};
    sl_trig_event ev;
    win_event(c, &ev, SL_TRIG_EV_WINDOW_INVALIDATION, &w);
    ev.flags &= ~(uint32_t)SL_TRIG_F_NO_DATA;
    return emit(c->t, c->sink, c->g->gid, c->flags | SL_TRIG_F_RECALC, &ev);
}

int sl__trig_invalidate(sl__trig_ctx *c, sl__trig_closed *e)
{
    sl__trig_closed copy = *e;
    sl__trig_closedvec *cv = &c->g->closed;
    uint32_t i = (uint32_t)(e - cv->v);
    memmove(cv->v + i, cv->v + i + 1, (size_t)(cv->n - i - 1) * sizeof *cv->v);
    cv->n--;
    c->g->dirty = true;
    return invalidation(c, &copy);
}

/* ---------------------------------------------------------------------- engine */

int sl_trig_open(sl_trig **out, const sl_trig_def *def, const sl_trig_opts *o, sl_error *err)
{
    if (!out || !def)
        return sl_error_set(err, SL_EINVAL, 0, 0, "sl_trig_open: NULL argument");
    sl_trig_opts dflt = {0};
    if (!o)
        o = &dflt;
    if ((o->kv == NULL) != (o->cf == NULL))
        return sl_error_set(err, SL_EINVAL, 0, 0, "kv and cf must be given together");
    if (o->history < 0)
        return sl_error_set(err, SL_EINVAL, 0, 0, "history may not be negative");
    sl_trig *t = calloc(1, sizeof *t);
    if (!t)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    t->def = def;
    t->clock = o->clock;
    t->kv = o->kv;
    t->cf = o->cf;
    t->max_hot = o->max_hot_groups ? o->max_hot_groups : 4096;
    t->history = o->history ? o->history : 3600 * sl_precision_per_sec(def->prec);
    size_t ks = def->ops->state_size(def);
    t->kst_scratch = calloc(1, ks ? ks : 8);
    if (!t->kst_scratch)
        goto nomem;
    if (def->kind == SL_TRIG_PERIOD) {
        int64_t created = o->created_ns ? o->created_ns : sl__trig_wall(t);
        t->period_prev = sl__trig_sched_prev(def, SL_PREC_NS, created);
        t->period_next = sl__trig_sched_next(def, SL_PREC_NS, created);
    }
    if (def->single_group) {
        sl__trig_dirent *de;
        if (sl__trig_dir_get(t, 0, true, &de) != 0)
            goto nomem;
    }
    *out = t;
    return 0;
nomem:
    sl_trig_close(t);
    return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
}

void sl_trig_close(sl_trig *t)
{
    if (!t)
        return;
    sl__trig_dir_free(t);
    free(t->sel);
    free(t->aux);
    free(t->kst_scratch);
    free(t->capture.v);
    free(t->capture_open.v);
    sl_buf_fini(&t->capx);
    sl_buf_fini(&t->kbuf);
    sl_buf_fini(&t->vbuf);
    free(t);
}

uint64_t sl_trig_groups(const sl_trig *t)
{
    return t->ndir;
}

void sl_trig_get_stats(const sl_trig *t, sl_trig_stats *out)
{
    *out = t->st;
    out->groups = t->ndir;
    out->hot_groups = t->nhot;
    size_t mem = sizeof *t + (size_t)t->capdir * sizeof *t->dir +
                 (size_t)t->index_cap * sizeof *t->index;
    out->dir_bytes = mem - sizeof *t;
    size_t ks = t->def->ops->state_size(t->def);
    for (const sl__trig_group *g = t->lru_head; g; g = g->lru_next)
        mem += sizeof *g + ks + (size_t)(g->pending.cap + g->log.cap) * sizeof(sl__trig_logrow) +
               (size_t)g->closed.cap * sizeof(sl__trig_closed) + sl__trig_vs_mem(&g->vs);
    out->mem_bytes = mem;
}

/* -------------------------------------------------------------------- replay */

static int cmp_closed(const void *a, const void *b)
{
    const sl__trig_closed *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->window_index != y->window_index)
        return x->window_index < y->window_index ? -1 : 1;
    return 0;
}

static bool same_window(const sl__trig_closed *a, const sl__trig_closed *b)
{
    return a->start == b->start && a->end == b->end && a->rownum == b->rownum &&
           a->window_index == b->window_index && a->xhash == b->xhash;
}

static bool start_in(const sl__trig_closedvec *cv, int64_t start)
{
    for (uint32_t i = 0; i < cv->n; i++)
        if (cv->v[i].start == start)
            return true;
    return false;
}

/*
 * Recomputes the group's windows from its row log and emits the differences. [dlo, dhi]
 * is the range of updated rows (windows touching it changed even with the same bounds),
 * empty (dlo > dhi) for inserts and deletes, whose effect shows in bounds or counts.
 */
static int replay(sl__trig_ctx *c, int64_t dlo, int64_t dhi)
{
    sl_trig *t = c->t;
    const sl_trig_def *def = c->def;
    sl__trig_group *g = c->g;
    size_t ks = def->ops->state_size(def);
    sl__trig_win oldw;
    bool had_open = def->ops->open_window(c, &oldw);

    def->ops->state_init(def, t->kst_scratch);
    t->capture.n = 0;
    t->capture_open.n = 0;
    sl_buf_reset(&t->capx);
    sl__trig_ctx rc = *c;
    rc.kst = t->kst_scratch;
    rc.capture = &t->capture;
    int err;
    for (uint32_t i = g->log.head; i < g->log.n; i++) {
        rc.pos = g->log.v[i].ts;
        if ((err = def->ops->row(&rc, g->log.v[i].ts, g->log.v[i].aux)) != 0)
            return err;
    }
    rc.pos = g->wm;
    if (g->wm != INT64_MIN && (err = def->ops->advance(&rc, g->wm)) != 0)
        return err;

    sl__trig_closedvec *nv = &t->capture, *ov = &g->closed;
    if (nv->n > 1)
        qsort(nv->v, nv->n, sizeof *nv->v, cmp_closed);
    if (ov->n > 1)
        qsort(ov->v, ov->n, sizeof *ov->v, cmp_closed);
    /* Mark matches: kept windows carry the old emitted flag. */
    uint8_t *keep_old = calloc(ov->n + 1, 1), *keep_new = calloc(nv->n + 1, 1);
    if (!keep_old || !keep_new) {
        free(keep_old);
        free(keep_new);
        return SL_ENOMEM;
    }
    for (uint32_t i = 0, j = 0; i < ov->n && j < nv->n;) {
        int k = cmp_closed(&ov->v[i], &nv->v[j]);
        if (k < 0) {
            i++;
        } else if (k > 0) {
            j++;
        } else {
            bool dirty = dlo <= dhi && ov->v[i].start <= dhi && ov->v[i].end >= dlo;
            if (same_window(&ov->v[i], &nv->v[j]) && !dirty) {
                keep_old[i] = keep_new[j] = 1;
                nv->v[j].emitted = ov->v[i].emitted;
                nv->v[j].close_pos = ov->v[i].close_pos;
            }
            i++;
            j++;
        }
    }
    err = 0;
    uint32_t saved = c->flags;
    c->flags |= SL_TRIG_F_RECALC;
    for (uint32_t i = 0; i < ov->n && err == 0; i++)
        if (!keep_old[i])
            err = invalidation(c, &ov->v[i]);
    for (uint32_t j = 0; j < nv->n && err == 0; j++) {
        if (keep_new[j])
            continue;
        sl__trig_closed *e = &nv->v[j];
        sl__trig_win w = {.start = e->start, .end = e->end, .rownum = e->rownum,
                          .window_index = e->window_index,
                          .condition_index = e->condition_index};
        xvals xc;
        apply_extras(t, e->xoff, &xc, &w);
        if (!start_in(ov, e->start) && !(had_open && oldw.start == e->start) &&
            (def->events & SL_EVT_WINDOW_OPEN)) {
            /* The open as the kind reported it in the replay (its condition and values),
             * else the close's without the next state. */
            sl__trig_win ow = w;
            xvals xo;
            const sl__trig_closed *o = NULL;
            for (uint32_t k = 0; k < t->capture_open.n && !o; k++)
                if (t->capture_open.v[k].start == e->start &&
                    t->capture_open.v[k].window_index == e->window_index)
                    o = &t->capture_open.v[k];
            if (o) {
                ow.condition_index = o->condition_index;
                apply_extras(t, o->xoff, &xo, &ow);
            } else {
                ow.next_state = NULL;
            }
            sl_trig_event ev;
            win_event(c, &ev, SL_TRIG_EV_WINDOW_OPEN, &ow);
            err = emit(t, c->sink, g->gid, c->flags, &ev);
        }
        if (err == 0 && e->emitted) {
            sl_trig_event ev;
            win_event(c, &ev, SL_TRIG_EV_WINDOW_CLOSE, &w);
            err = emit(t, c->sink, g->gid, c->flags, &ev);
        }
    }
    sl__trig_win neww;
    if (err == 0 && def->ops->open_window(&rc, &neww) && !(had_open && oldw.start == neww.start) &&
        !start_in(ov, neww.start) && (def->events & SL_EVT_WINDOW_OPEN)) {
        sl_trig_event ev;
        win_event(c, &ev, SL_TRIG_EV_WINDOW_OPEN, &neww);
        err = emit(t, c->sink, g->gid, c->flags, &ev);
    }
    c->flags = saved;
    free(keep_old);
    free(keep_new);
    /* Install the recomputed state whatever the sink said: the events describe it. */
    sl__trig_closedvec tmp = *ov;
    *ov = *nv;
    *nv = tmp;
    memcpy(g->kst, t->kst_scratch, ks);
    g->dirty = true;
    return err;
}

static int late_change(sl__trig_ctx *c, int64_t lo, int64_t hi, int kind)
{
    c->t->st.rows_late++;
    c->g->dirty = true;
    if (c->def->ops->late) {
        uint32_t saved = c->flags;
        c->flags |= SL_TRIG_F_RECALC;
        c->pos = c->g->wm;
        int rc = c->def->ops->late(c, lo, hi, kind);
        c->flags = saved;
        return rc;
    }
    return kind == SL_TRIG_ROW_UPDATE ? replay(c, lo, hi) : replay(c, 1, 0);
}

/* ---------------------------------------------------------------------- release */

static int64_t horizon_of(const sl__trig_ctx *c)
{
    const sl__trig_group *g = c->g;
    if (g->wm == INT64_MIN)
        return INT64_MIN;
    int64_t bound = c->def->expired ? c->def->expired : c->t->history;
    return g->wm < INT64_MIN + bound ? INT64_MIN : g->wm - bound;
}

static int release_one(sl__trig_ctx *c, int64_t ts, uint64_t aux)
{
    sl__trig_group *g = c->g;
    g->released = ts;
    if (c->def->ops->keeps_log) {
        if (rv_reserve(&g->log, 1) != 0)
            return SL_ENOMEM;
        g->log.v[g->log.n].ts = ts;
        g->log.v[g->log.n].aux = aux;
        g->log.n++;
    }
    c->pos = ts;
    return c->def->ops->row(c, ts, aux);
}

/* Releases pending rows up to the group's watermark and advances the kind. */
static int release(sl__trig_ctx *c)
{
    sl__trig_group *g = c->g;
    if (g->max_ts == INT64_MIN)
        return 0;
    int64_t wm = g->max_ts < INT64_MIN + c->def->watermark ? INT64_MIN
                                                           : g->max_ts - c->def->watermark;
    if (g->wm != INT64_MIN && wm < g->wm)
        wm = g->wm;
    int rc;
    while (g->pending.head < g->pending.n && g->pending.v[g->pending.head].ts <= wm) {
        sl__trig_logrow r = g->pending.v[g->pending.head];
        rv_remove(&g->pending, g->pending.head, g->pending.head + 1);
        if ((rc = release_one(c, r.ts, r.aux)) != 0)
            return rc;
    }
    g->wm = wm;
    c->pos = wm;
    return c->def->ops->advance(c, wm);
}

static int process_row(sl__trig_ctx *c, int64_t ts, uint64_t aux, int kind)
{
    sl_trig *t = c->t;
    const sl_trig_def *def = c->def;
    sl__trig_group *g = c->g;
    bool present = kind != SL_TRIG_ROW_DELETE && aux != SL__TRIG_AUX_SKIP;
    if (kind == SL_TRIG_ROW_DELETE && !def->delete_recalc) {
        t->st.rows_ignored++;
        return 0;
    }
    g->dirty = true;
    if (kind != SL_TRIG_ROW_DELETE && (g->max_ts == INT64_MIN || ts > g->max_ts))
        g->max_ts = ts;
    if (g->released == INT64_MIN || ts > g->released) {
        sl__trig_rowvec *pv = &g->pending;
        int64_t wm = g->max_ts - def->watermark;
        if (present && pv->head == pv->n && ts == g->max_ts && ts <= wm) {
            /* In order and released at once (WATERMARK 0): skip the pending list. */
            int rc = release_one(c, ts, aux);
            if (rc != 0)
                return rc;
            g->wm = wm;
            c->pos = wm;
            return def->ops->advance(c, wm);
        }
        uint32_t at;
        bool found = rv_find(pv, ts, aux, def->table_rows, &at);
        if (present && !found && def->ops->late && g->wm != INT64_MIN && ts <= g->wm) {
            /* Above every released row but at or below a watermark the kind has already
             * advanced to: windows closed by the watermark may contain it, so it is
             * recomputed like a late row (kinds that close on rows take the normal path). */
            if (def->ignore_disorder || ts < horizon_of(c)) {
                t->st.rows_ignored++;
                return 0;
            }
            if (rv_reserve(&g->log, 1) != 0)
                return SL_ENOMEM;
            g->log.v[g->log.n].ts = ts;
            g->log.v[g->log.n].aux = aux;
            g->log.n++;
            g->released = ts;
            return late_change(c, ts, ts, SL_TRIG_ROW_INSERT);
        }
        if (present) {
            /* An update; a table_rows row of an unknown table keeps the known one's key. */
            if (found && (aux != 0 || !def->table_rows))
                pv->v[at].aux = aux;
            else if (!found && rv_insert(pv, at, ts, aux) != 0)
                return SL_ENOMEM;
        } else if (found) {
            rv_remove(pv, at, at + 1);
        }
        return release(c);
    }
    /* At or below the released position: a late change. */
    if (!def->ops->keeps_log) {
        t->st.rows_ignored++;
        return 0;
    }
    int64_t horizon = horizon_of(c);
    if (ts < horizon) {
        t->st.rows_ignored++;
        return 0;
    }
    if (kind != SL_TRIG_ROW_DELETE &&
        (def->ignore_disorder || (def->ops->recalc && !def->ops->recalc(def)))) {
        t->st.rows_ignored++;
        return 0;
    }
    sl__trig_rowvec *lv = &g->log;
    uint32_t at;
    bool found = rv_find(lv, ts, aux, def->table_rows, &at);
    int k;
    if (present) {
        if (found) {
            if (aux != 0 || !def->table_rows)
                lv->v[at].aux = aux;
            k = SL_TRIG_ROW_UPDATE;
        } else {
            if (rv_insert(lv, at, ts, aux) != 0)
                return SL_ENOMEM;
            k = SL_TRIG_ROW_INSERT;
        }
    } else {
        if (!found)
            return 0;
        rv_remove(lv, at, at + 1);
        k = SL_TRIG_ROW_DELETE;
    }
    return late_change(c, ts, ts, k);
}

/* Drops log rows and emitted windows no recomputation can need any more. */
static void prune(sl__trig_ctx *c)
{
    sl__trig_group *g = c->g;
    if (!c->def->ops->keeps_log)
        return;
    int64_t r = c->def->ops->retain_from(c, horizon_of(c));
    if (r == INT64_MIN)
        return;
    uint32_t to = rv_lower(&g->log, r);
    uint32_t n = to - g->log.head;
    if (n > 0) {
        rv_remove(&g->log, g->log.head, to);
        if (c->def->ops->pruned)
            c->def->ops->pruned(c, n);
    }
    uint32_t j = 0;
    for (uint32_t i = 0; i < g->closed.n; i++)
        if (g->closed.v[i].start >= r)
            g->closed.v[j++] = g->closed.v[i];
    g->closed.n = j;
}

/* Pruning, then the kind's garbage collection of the group's value store. */
static void prune_all(sl__trig_ctx *c)
{
    prune(c);
    if (c->def->ops->gc)
        c->def->ops->gc(c);
}

/* MAX_DELAY bookkeeping after the group's state changed. */
static void max_delay_update(sl__trig_ctx *c, sl__trig_dirent *de, int64_t now_mono)
{
    if (!c->def->max_delay_ns)
        return;
    sl__trig_win w;
    if (c->def->ops->open_window(c, &w)) {
        if (de->md_deadline == INT64_MAX || de->md_wstart != w.start) {
            de->md_wstart = w.start;
            de->md_deadline = now_mono + c->def->max_delay_ns;
        }
    } else {
        de->md_deadline = INT64_MAX;
        de->md_wstart = INT64_MIN;
    }
}

static int ensure_scratch(sl_trig *t, uint32_t n)
{
    if (n <= t->scratch_cap)
        return 0;
    uint32_t *s = realloc(t->sel, (size_t)n * sizeof *s);
    if (!s)
        return SL_ENOMEM;
    t->sel = s;
    uint64_t *a = realloc(t->aux, (size_t)n * sizeof *a);
    if (!a)
        return SL_ENOMEM;
    t->aux = a;
    t->scratch_cap = n;
    return 0;
}

static int resume_check(sl_trig *t, sl__trig_dirent *de, const sl_trig_sink *sink, uint32_t flags,
                        int64_t now_mono, int64_t now_wall)
{
    int rc = 0;
    if ((de->flags & SL__DE_IDLE) && (t->def->events & SL_EVT_RESUME)) {
        sl_trig_event ev = {.type = SL_TRIG_EV_RESUME, .window_index = -1,
                            .condition_index = -1};
        ev.trigger_id = sl_trig_id(t->def->stream_id, de->gid, de->last_wall, SL_TRIG_IDC_IDLE, -1);
        ev.idle_start_ns = de->last_wall;
        ev.idle_end_ns = now_wall;
        ev.idle_duration_ms = (now_mono - de->last_mono) / 1000000;
        ev.localtime_ns = now_wall;
        rc = emit(t, sink, de->gid, flags, &ev);
    }
    de->flags &= ~(uint32_t)SL__DE_IDLE;
    de->flags |= SL__DE_SEEN | SL__DE_HAS_DATA;
    de->last_mono = now_mono;
    de->last_wall = now_wall;
    return rc;
}

int sl_trig_feed(sl_trig *t, const sl_trig_input *in, const sl_trig_sink *sink, sl_error *err)
{
    const sl_trig_def *def = t->def;
    if (!in || !in->rows)
        return sl_error_set(err, SL_EINVAL, 0, 0, "sl_trig_feed: no rows");
    const sl_block *b = in->rows;
    uint32_t nrows = b->nrows;
    if (nrows == 0)
        return 0;
    if ((int)b->ncols < def->min_columns || b->ncols < 1 || b->cols[0].type != SL_T_TIMESTAMP)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "trigger input needs at least %d columns starting with the timestamp",
                            def->min_columns > 0 ? def->min_columns : 1);
    if (b->cols[0].has_nulls)
        for (uint32_t i = 0; i < nrows; i++)
            if (sl_column_is_null(&b->cols[0], i))
                return sl_error_set(err, SL_EINVAL, 0, 0, "trigger input row %u has a NULL "
                                    "timestamp", i);
    if (in->kinds)
        for (uint32_t i = 0; i < nrows; i++)
            if (in->kinds[i] > SL_TRIG_ROW_DELETE)
                return sl_error_set(err, SL_EINVAL, 0, 0, "trigger input row %u has a bad kind",
                                    i);
    if (ensure_scratch(t, nrows) != 0)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    /* PRE_FILTER before anything changes; deletes carry no values and always pass. */
    uint32_t nsel = nrows;
    int rc;
    if (def->pre_filter) {
        if ((rc = sl_cexpr_select(def->pre_filter, b, t->sel, &nsel, err)) != 0)
            return rc;
        if (in->kinds) {
            /* Merge the deletes back in, keeping row order. */
            uint32_t *tmp = malloc((size_t)nrows * sizeof *tmp);
            if (!tmp)
                return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
            uint32_t k = 0, j = 0;
            for (uint32_t i = 0; i < nrows; i++) {
                bool keep = in->kinds[i] == SL_TRIG_ROW_DELETE;
                while (j < nsel && t->sel[j] < i)
                    j++;
                if (j < nsel && t->sel[j] == i)
                    keep = true;
                if (keep)
                    tmp[k++] = i;
            }
            memcpy(t->sel, tmp, (size_t)k * sizeof *tmp);
            free(tmp);
            nsel = k;
        }
        t->st.rows_filtered += nrows - nsel;
    } else {
        for (uint32_t i = 0; i < nrows; i++)
            t->sel[i] = i;
    }
    if (def->ops->prepare) {
        if ((rc = def->ops->prepare(def, b, t->sel, nsel, t->aux, err)) != 0)
            return rc;
    } else if (def->table_rows && (int)b->ncols > def->ncols + def->ntags &&
               sl_type_is_var(b->cols[def->ncols + def->ntags].type)) {
        /* Rows told apart by table (trigger_int.h): aux is the row's table key. */
        const sl_column *tc = &b->cols[def->ncols + def->ntags];
        uint32_t prev_len = 0;
        const char *prev = NULL;
        uint64_t key = 0;
        for (uint32_t j = 0; j < nsel; j++) {
            uint32_t r = t->sel[j], len = 0;
            const char *p = sl_column_is_null(tc, r) ? NULL : sl_column_get_str(tc, r, &len);
            if (p == NULL) {
                t->aux[j] = 0;
                continue;
            }
            if (prev == NULL || len != prev_len || memcmp(p, prev, len) != 0) {
                key = table_key(p, len);
                prev = p;
                prev_len = len;
            }
            t->aux[j] = key;
        }
    } else {
        memset(t->aux, 0, (size_t)nsel * sizeof *t->aux);
    }
    t->st.rows_in += nrows;

    sl__trig_dirent *de;
    if (sl__trig_dir_get(t, in->group_id, true, &de) != 0)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    uint32_t flags = in->history ? SL_TRIG_F_HISTORY : 0;
    bool need_clock = def->idle_timeout_ns || def->max_delay_ns;
    int64_t now_mono = need_clock ? sl__trig_mono(t) : 0;
    int64_t now_wall = need_clock ? sl__trig_wall(t) : 0;
    bool had = de->flags & SL__DE_HAS_DATA;
    if ((rc = resume_check(t, de, sink, flags, now_mono, now_wall)) != 0)
        return rc;
    if (def->kind == SL_TRIG_PERIOD) {
        /* PERIOD keeps no rows: only whether the group has rows since the last point and
         * their timestamp range, which the ON_TIME carries as [rows_lo, rows_hi]. */
        const sl_column *tsc = &b->cols[0];
        const int64_t *tsv = tsc->data;
        uint32_t nrow = 0;
        for (uint32_t j = 0; j < nsel; j++) {
            uint32_t r = t->sel[j];
            if (in->kinds && in->kinds[r] == SL_TRIG_ROW_DELETE)
                continue;
            int64_t ts = tsv[sl_column_phys(tsc, r)];
            if (!had && nrow == 0)
                de->p_lo = de->p_hi = ts;
            if (ts < de->p_lo)
                de->p_lo = ts;
            if (ts > de->p_hi)
                de->p_hi = ts;
            nrow++;
        }
        if (nrow == 0 && !had)
            de->flags &= ~(uint32_t)SL__DE_HAS_DATA; /* every row was filtered out */
        return 0;
    }

    sl__trig_group *g;
    if ((rc = sl__trig_group_get(t, de, &g, err)) != 0)
        return rc;
    sl__trig_ctx c = {.t = t, .def = def, .g = g, .kst = g->kst, .sink = sink, .flags = flags};
    if (def->ops->intern &&
        (rc = def->ops->intern(&c, b, t->sel, in->kinds, nsel, t->aux, err)) != 0)
        return rc;
    const sl_column *tsc = &b->cols[0];
    const int64_t *tsv = tsc->data;
    for (uint32_t j = 0; j < nsel && rc == 0; j++) {
        uint32_t r = t->sel[j];
        int64_t ts = tsv[sl_column_phys(tsc, r)];
        int kind = in->kinds ? in->kinds[r] : SL_TRIG_ROW_INSERT;
        if (in->versions && in->versions[r] > g->version_hi)
            g->version_hi = in->versions[r];
        rc = process_row(&c, ts, t->aux[j], kind);
    }
    prune_all(&c);
    max_delay_update(&c, de, now_mono);
    if (rc == SL_ENOMEM)
        sl_error_set(err, rc, 0, 0, "out of memory");
    return rc;
}

/* Deletes the rows of group_id in [lo, hi]: every row, or with by_table only those of the
 * table with key `key` (table_rows logs; other logs have one table per group). */
static int delete_rows(sl_trig *t, uint64_t group_id, bool by_table, uint64_t key, int64_t lo,
                       int64_t hi, const sl_trig_sink *sink, sl_error *err)
{
    const sl_trig_def *def = t->def;
    if (lo > hi)
        return sl_error_set(err, SL_EINVAL, 0, 0, "delete range is empty (lo > hi)");
    if (!def->delete_recalc || !def->ops->keeps_log) {
        t->st.rows_ignored++;
        return 0;
    }
    sl__trig_dirent *de;
    if (sl__trig_dir_get(t, group_id, false, &de) != 0)
        return 0;
    sl__trig_group *g;
    int rc = sl__trig_group_get(t, de, &g, err);
    if (rc != 0)
        return rc;
    sl__trig_ctx c = {.t = t, .def = def, .g = g, .kst = g->kst, .sink = sink};
    by_table = by_table && def->table_rows;
    /* Pending rows just vanish. */
    uint32_t a = rv_lower(&g->pending, lo), z = rv_lower(&g->pending, hi);
    while (z < g->pending.n && g->pending.v[z].ts == hi)
        z++;
    if (z > a) {
        if (by_table)
            rv_remove_table(&g->pending, a, z, key);
        else
            rv_remove(&g->pending, a, z);
    }
    int64_t h = horizon_of(&c);
    if (lo < h)
        lo = h;
    if (lo <= hi) {
        a = rv_lower(&g->log, lo);
        z = rv_lower(&g->log, hi);
        while (z < g->log.n && g->log.v[z].ts == hi)
            z++;
        uint32_t gone = 0;
        if (z > a && by_table) {
            gone = rv_remove_table(&g->log, a, z, key);
        } else if (z > a) {
            rv_remove(&g->log, a, z);
            gone = z - a;
        }
        if (gone > 0)
            rc = late_change(&c, lo, hi, SL_TRIG_ROW_DELETE);
    }
    g->dirty = true;
    prune_all(&c);
    if (def->max_delay_ns)
        max_delay_update(&c, de, sl__trig_mono(t));
    return rc;
}

int sl_trig_delete_range(sl_trig *t, uint64_t group_id, int64_t lo, int64_t hi,
                         const sl_trig_sink *sink, sl_error *err)
{
    return delete_rows(t, group_id, false, 0, lo, hi, sink, err);
}

int sl_trig_delete_table_range(sl_trig *t, uint64_t group_id, const char *table, uint32_t len,
                               int64_t lo, int64_t hi, const sl_trig_sink *sink, sl_error *err)
{
    if (table == NULL)
        return sl_error_set(err, SL_EINVAL, 0, 0, "sl_trig_delete_table_range: no table");
    return delete_rows(t, group_id, true, table_key(table, len), lo, hi, sink, err);
}

/* ------------------------------------------------------------------------ ticks */

static int period_fire(sl_trig *t, const sl_trig_sink *sink, int64_t now_wall)
{
    const sl_trig_def *def = t->def;
    if (t->period_next == INT64_MAX || now_wall < t->period_next)
        return 0;
    /* Missed points are not replayed: one trigger for the latest point passed. */
    int64_t p = sl__trig_sched_prev(def, SL_PREC_NS, now_wall);
    if (p < t->period_next)
        p = t->period_next;
    int64_t nx = sl__trig_sched_next(def, SL_PREC_NS, p);
    for (uint32_t i = 0; i < t->ndir; i++) {
        sl__trig_dirent *de = &t->dir[i];
        bool has = de->flags & SL__DE_HAS_DATA;
        de->flags &= ~(uint32_t)SL__DE_HAS_DATA;
        if (def->ignore_nodata && !has)
            continue;
        sl_trig_event ev = {.type = SL_TRIG_EV_ON_TIME, .window_index = -1,
                            .condition_index = -1};
        ev.trigger_id = sl_trig_id(def->stream_id, de->gid, p, SL_TRIG_IDC_ON_TIME, -1);
        ev.localtime_ns = p;
        ev.prev_local_ns = t->period_prev;
        ev.next_local_ns = nx;
        if (has) {
            ev.rows_lo = de->p_lo;
            ev.rows_hi = de->p_hi;
        } else {
            ev.flags |= SL_TRIG_F_NO_DATA;
            ev.rows_lo = INT64_MAX; /* an empty range */
            ev.rows_hi = INT64_MIN;
        }
        de->p_lo = INT64_MAX;
        de->p_hi = INT64_MIN;
        int rc = emit(t, sink, de->gid, 0, &ev);
        if (rc != 0)
            return rc;
    }
    t->period_prev = p;
    t->period_next = nx;
    return 0;
}

static int max_delay_fire(sl_trig *t, sl__trig_dirent *de, const sl_trig_sink *sink,
                          int64_t now_mono, sl_error *err)
{
    const sl_trig_def *def = t->def;
    sl__trig_group *g;
    int rc = sl__trig_group_get(t, de, &g, err);
    if (rc != 0)
        return rc;
    sl__trig_ctx c = {.t = t, .def = def, .g = g, .kst = g->kst, .sink = sink};
    sl__trig_win w;
    if (!def->ops->open_window(&c, &w) || w.start != de->md_wstart) {
        max_delay_update(&c, de, now_mono);
        return 0;
    }
    int64_t d = def->max_delay_ns;
    de->md_deadline += ((now_mono - de->md_deadline) / d + 1) * d;
    if (sink && sink->calc_running && sink->calc_running(sink->ud, de->gid))
        return 0;
    sl_trig_event ev;
    win_event(&c, &ev, SL_TRIG_EV_MAX_DELAY, &w);
    return emit(t, sink, de->gid, 0, &ev);
}

int sl_trig_tick(sl_trig *t, const sl_trig_sink *sink, sl_error *err)
{
    const sl_trig_def *def = t->def;
    int64_t now_wall = sl__trig_wall(t);
    int64_t now_mono = sl__trig_mono(t);
    int rc;
    if (def->kind == SL_TRIG_PERIOD && (rc = period_fire(t, sink, now_wall)) != 0)
        return rc;
    if (!def->idle_timeout_ns && !def->max_delay_ns)
        return 0;
    for (uint32_t i = 0; i < t->ndir; i++) {
        sl__trig_dirent *de = &t->dir[i];
        if (def->idle_timeout_ns && (de->flags & SL__DE_SEEN) && !(de->flags & SL__DE_IDLE) &&
            now_mono - de->last_mono > def->idle_timeout_ns) {
            de->flags |= SL__DE_IDLE;
            if (def->events & SL_EVT_IDLE) {
                sl_trig_event ev = {.type = SL_TRIG_EV_IDLE, .window_index = -1,
                                    .condition_index = -1};
                ev.trigger_id =
                    sl_trig_id(def->stream_id, de->gid, de->last_wall, SL_TRIG_IDC_IDLE, -1);
                ev.idle_start_ns = de->last_wall;
                ev.idle_end_ns = now_wall;
                ev.idle_duration_ms = (now_mono - de->last_mono) / 1000000;
                ev.localtime_ns = now_wall;
                if ((rc = emit(t, sink, de->gid, 0, &ev)) != 0)
                    return rc;
            }
        }
        if (de->md_deadline <= now_mono && (rc = max_delay_fire(t, de, sink, now_mono, err)) != 0)
            return rc;
    }
    return 0;
}

int64_t sl_trig_next_tick_ns(sl_trig *t)
{
    const sl_trig_def *def = t->def;
    int64_t best = INT64_MAX;
    int64_t now_mono = sl__trig_mono(t);
    if (def->kind == SL_TRIG_PERIOD && t->period_next != INT64_MAX) {
        int64_t d = t->period_next - sl__trig_wall(t);
        best = now_mono + (d > 0 ? d : 0);
    }
    /* Only IDLE and MAX_DELAY have per-group deadlines (md_deadline stays INT64_MAX
     * without MAX_DELAY): the runtime asks every round, so skip the walk otherwise. */
    if (!def->idle_timeout_ns && !def->max_delay_ns)
        return best;
    for (uint32_t i = 0; i < t->ndir; i++) {
        const sl__trig_dirent *de = &t->dir[i];
        if (def->idle_timeout_ns && (de->flags & SL__DE_SEEN) && !(de->flags & SL__DE_IDLE) &&
            de->last_mono + def->idle_timeout_ns + 1 < best)
            best = de->last_mono + def->idle_timeout_ns + 1;
        if (de->md_deadline < best)
            best = de->md_deadline;
    }
    return best;
}

int sl_trig_flush(sl_trig *t, sl_error *err)
{
    if (!t->kv)
        return 0;
    for (sl__trig_group *g = t->lru_head; g; g = g->lru_next) {
        if (!g->dirty)
            continue;
        sl_buf_reset(&t->vbuf);
        int rc = sl__trig_group_encode(t->def, g, &t->vbuf);
        if (rc == 0)
            rc = sl__trig_store_key(t, g->gid, &t->kbuf);
        if (rc != 0)
            return sl_error_set(err, rc, 0, 0, "out of memory");
        if ((rc = sl_kv_put(t->kv, t->cf, t->kbuf.data, t->kbuf.len, t->vbuf.data, t->vbuf.len,
                            err)) != 0)
            return rc;
        sl__trig_dirent *de;
        if (sl__trig_dir_get(t, g->gid, false, &de) == 0)
            de->flags |= SL__DE_STORED;
        g->dirty = false;
    }
    return 0;
}
