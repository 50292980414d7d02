/*
 * trig_event.c - EVENT_WINDOW(START WITH c END WITH e) and the multi-start form
 * EVENT_WINDOW(START WITH (c0, c1, ...) [END WITH e]), with TRUE_FOR.
 *
 * The rules (plain and multi-start windows, parent and sub-windows, windowIndex and
 * conditionIndex, TRUE_FOR with start(...)/end(...) streaks, field values) are written
 * down in docs/triggers.md, "EVENT_WINDOW"; the tests assert them.
 *
 * aux per row: bits 0-7 the effective start condition + 1 (0: none), bit 8 the end
 * condition (both from prepare()), bits 16-63 the code of the condition columns' values
 * (notifications' fieldValue) in the group's value store (trigger_values.c, set by
 * intern()). Recomputation uses the core's replay; the log is pruned at quiescent rows
 * (no window open, no streak), found by a shadow copy of the machine that trails at the
 * horizon.
 */
#include "trigger_int.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#define EV_MAX_COND 64

typedef struct ev_def {
    int nstart;
    bool multi;
    sl_cexpr *starts[EV_MAX_COND];
    sl_cexpr *end;                       /* NULL: no END WITH */
    sl__trig_limit tf, tf_start, tf_end; /* op SL__TRIG_LIMIT_NONE when absent */
    int nfields;                         /* condition columns, in order of appearance */
    int field_cols[SL_TRIG_MAX_KEYS];
    const char *field_names[SL_TRIG_MAX_KEYS];
    sl_value nulls[SL_TRIG_MAX_KEYS];
    /* Scratch (one thread at a time): decoded field values handed out with windows. */
    sl_value fv[SL_TRIG_MAX_KEYS], ofv[SL_TRIG_MAX_KEYS];
} ev_def;

static void ev_def_free(sl_trig_def *def)
{
    ev_def *ed = def->k.ext;
    if (!ed)
        return;
    for (int i = 0; i < EV_MAX_COND; i++)
        sl_cexpr_free(ed->starts[i]);
    sl_cexpr_free(ed->end);
    free(ed);
    def->k.ext = NULL;
}

/* Adds the columns e references to the field list (at most SL_TRIG_MAX_KEYS). */
static void collect_fields(const sl_trig_def *def, ev_def *ed, const sl_expr *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case SL_EX_COLUMN: {
        int ix = sl__trig_column_index(def, e->u.column.name);
        if (ix < 0 || ed->nfields >= SL_TRIG_MAX_KEYS)
            return;
        for (int i = 0; i < ed->nfields; i++)
            if (ed->field_cols[i] == ix)
                return;
        ed->field_cols[ed->nfields] = ix;
        ed->field_names[ed->nfields] = def->col_names[ix];
        ed->nulls[ed->nfields] = sl_value_null(def->col_types[ix]);
        ed->nfields++;
        return;
    }
    case SL_EX_UNARY: collect_fields(def, ed, e->u.unary.arg); return;
    case SL_EX_BINARY:
        collect_fields(def, ed, e->u.binary.left);
        collect_fields(def, ed, e->u.binary.right);
        return;
    case SL_EX_FUNC:
        for (int i = 0; i < e->u.func.args.n; i++)
            collect_fields(def, ed, e->u.func.args.items[i]);
        return;
    case SL_EX_CASE:
        collect_fields(def, ed, e->u.case_.operand);
        for (int i = 0; i < e->u.case_.nwhen; i++) {
            collect_fields(def, ed, e->u.case_.whens[i].when);
            collect_fields(def, ed, e->u.case_.whens[i].then);
        }
        collect_fields(def, ed, e->u.case_.else_);
        return;
    case SL_EX_IN:
        collect_fields(def, ed, e->u.in.arg);
        for (int i = 0; i < e->u.in.list.n; i++)
            collect_fields(def, ed, e->u.in.list.items[i]);
        return;
    case SL_EX_BETWEEN:
        collect_fields(def, ed, e->u.between.arg);
        collect_fields(def, ed, e->u.between.lo);
        collect_fields(def, ed, e->u.between.hi);
        return;
    case SL_EX_ISNULL: collect_fields(def, ed, e->u.isnull.arg); return;
    case SL_EX_LIKE:
        collect_fields(def, ed, e->u.like.arg);
        collect_fields(def, ed, e->u.like.pattern);
        return;
    case SL_EX_CAST: collect_fields(def, ed, e->u.cast.arg); return;
    default: return;
    }
}

static int compile_cond(sl_trig_def *def, const sl_expr *e, const char *what, int idx,
                        sl_cexpr **out, sl_error *err)
{
    sl_binder bd = {.bind = sl__trig_bind, .ud = def, .precision = def->prec, .now = def->now};
    int rc = sl_cexpr_compile(e, &bd, out, err);
    if (rc != 0)
        return rc;
    if (sl_cexpr_type(*out) != SL_T_BOOL) {
        if (idx >= 0)
            return sl_error_set(err, SL_ETYPE, e->pos.line, e->pos.col,
                                "EVENT_WINDOW %s condition %d is not a boolean expression (%s)",
                                what, idx + 1, sl_type_name(sl_cexpr_type(*out)));
        return sl_error_set(err, SL_ETYPE, e->pos.line, e->pos.col,
                            "EVENT_WINDOW %s condition is not a boolean expression (%s)", what,
                            sl_type_name(sl_cexpr_type(*out)));
    }
    collect_fields(def, def->k.ext, e);
    return 0;
}

static int ev_build(sl_trig_def *def, const sl_create_stream *cs, sl_error *err)
{
    const sl_trigger *tr = &cs->trigger;
    int n = tr->event_starts.n;
    if (n < 1)
        return sl_error_set(err, SL_EINVAL, tr->pos.line, tr->pos.col,
                            "EVENT_WINDOW needs a START WITH condition");
    if (n > EV_MAX_COND)
        return sl_error_set(err, SL_ELIMIT, tr->pos.line, tr->pos.col,
                            "EVENT_WINDOW takes at most %d start conditions (got %d)",
                            EV_MAX_COND, n);
    if (!tr->event_multi && n != 1)
        return sl_error_set(err, SL_EINVAL, tr->pos.line, tr->pos.col,
                            "several start conditions need START WITH (c1, c2, ...)");
    if (!tr->event_multi && !tr->event_end)
        return sl_error_set(err, SL_EINVAL, tr->pos.line, tr->pos.col,
                            "EVENT_WINDOW(START WITH c END WITH e) needs END WITH; only the "
                            "form START WITH (c1, c2, ...) may omit it");
    ev_def *ed = calloc(1, sizeof *ed);
    if (!ed)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    def->k.ext = ed;
    ed->nstart = n;
    ed->multi = tr->event_multi;
    ed->tf.op = ed->tf_start.op = ed->tf_end.op = SL__TRIG_LIMIT_NONE;
    int rc;
    for (int i = 0; i < n; i++)
        if ((rc = compile_cond(def, tr->event_starts.items[i], "START WITH", n > 1 ? i : -1,
                               &ed->starts[i], err)) != 0)
            return rc;
    if (tr->event_end &&
        (rc = compile_cond(def, tr->event_end, "END WITH", -1, &ed->end, err)) != 0)
        return rc;
    for (int i = 0; i < tr->true_for.n; i++) {
        const sl_true_for_arg *a = &tr->true_for.args[i];
        sl__trig_limit *l = a->role == SL_TF_START ? &ed->tf_start
                            : a->role == SL_TF_END ? &ed->tf_end
                                                   : &ed->tf;
        if (a->role != SL_TF_WINDOW && ed->multi)
            return sl_error_set(err, SL_EINVAL, a->pos.line, a->pos.col,
                                "TRUE_FOR start(...) and end(...) are only supported for a "
                                "single-condition EVENT_WINDOW");
        if (l->op != SL__TRIG_LIMIT_NONE)
            return sl_error_set(err, SL_EINVAL, a->pos.line, a->pos.col,
                                "TRUE_FOR gives %s more than once",
                                a->role == SL_TF_START ? "start(...)"
                                : a->role == SL_TF_END ? "end(...)"
                                                       : "the window limit");
        if ((rc = sl__trig_limit_build(def, &a->limit, l, err)) != 0)
            return rc;
    }
    for (int i = 0; i < ed->nfields; i++)
        if (ed->field_cols[i] + 1 > def->min_columns)
            def->min_columns = ed->field_cols[i] + 1;
    return 0;
}

static bool col_true(const sl_column *c, uint32_t r)
{
    return !sl_column_is_null(c, r) && ((const uint8_t *)c->data)[sl_column_phys(c, r)] != 0;
}

static int ev_prepare(const sl_trig_def *def, const sl_block *b, const uint32_t *sel, uint32_t n,
                      uint64_t *aux, sl_error *err)
{
    ev_def *ed = def->k.ext;
    const sl_column *sc[EV_MAX_COND], *ec = NULL;
    for (int i = 0; i < ed->nstart; i++) {
        int rc = sl_cexpr_eval(ed->starts[i], b, &sc[i], err);
        if (rc != 0)
            return rc;
    }
    if (ed->end) {
        int rc = sl_cexpr_eval(ed->end, b, &ec, err);
        if (rc != 0)
            return rc;
    }
    for (uint32_t j = 0; j < n; j++) {
        uint32_t r = sel ? sel[j] : j;
        uint64_t a = 0;
        for (int i = 0; i < ed->nstart; i++)
            if (col_true(sc[i], r)) {
                a = (uint64_t)i + 1;
                break;
            }
        if (ec && col_true(ec, r))
            a |= 1u << 8;
        aux[j] = a;
    }
    return 0;
}

/* Completes aux with the code of the row's condition field values (bits 16-63: a 48-bit
 * hash whose low bits are the slot in the group's value store, see trigger_values.c). */
static int ev_intern(sl__trig_ctx *c, const sl_block *b, const uint32_t *sel,
                     const uint8_t *kinds, uint32_t n, uint64_t *aux, sl_error *err)
{
    const ev_def *ed = c->def->k.ext;
    if (ed->nfields == 0)
        return 0;
    sl_value vals[SL_TRIG_MAX_KEYS];
    for (uint32_t j = 0; j < n; j++) {
        uint32_t r = sel ? sel[j] : j;
        if (kinds && kinds[r] == SL_TRIG_ROW_DELETE)
            continue;
        uint64_t h = 0x243F6A8885A308D3ull;
        for (int f = 0; f < ed->nfields; f++) {
            const sl_column *col = &b->cols[ed->field_cols[f]];
            if (sl_column_is_null(col, r)) {
                vals[f] = ed->nulls[f];
                h = (h ^ 0xA5A5A5A5ull) * 0x9E3779B97F4A7C15ull;
                continue;
            }
            sl_column_get(col, r, &vals[f]);
            h = (h ^ sl__trig_value_hash(&vals[f], f)) * 0x9E3779B97F4A7C15ull;
        }
        uint64_t code;
        int rc = sl__trig_vs_intern(&c->g->vs, (h ^ (h >> 31)) >> 16, vals, ed->nfields, &code);
        if (rc == SL_ELIMIT)
            return sl_error_set(err, rc, 0, 0, "more than %d distinct EVENT_WINDOW field value "
                                "tuples of one group share a hash", SL__TRIG_VS_SLOTS);
        if (rc != 0)
            return sl_error_set(err, rc, 0, 0, "out of memory");
        aux[j] |= code << 16;
    }
    c->g->dirty = true;
    return 0;
}

/* ------------------------------------------------------------------ the machine */

enum {
    M_FL,
    M_OS, M_OL, M_ON, M_OC, M_OA,       /* the event (regular / parent) window */
    M_SS, M_SL, M_SN, M_SC, M_SA, M_SI, /* multi: the current sub-window, its index */
    M_TS, M_TN, M_TA,                   /* start streak: first row, rows, first aux */
    M_ES, M_EN, M_ER, M_EA,             /* end streak: first row, rows, window rows to it, aux */
    M__WORDS
};
enum {
    G_O = 1,      /* a window is open */
    G_OOPEN = 2,  /* its WINDOW_OPEN was emitted */
    G_SOPEN = 4,  /* the sub-window's WINDOW_OPEN was emitted */
    G_TS = 8,     /* start streak running */
    G_ES = 16,    /* end streak running */
    G_FRESH = 32  /* (kind state only) no row since state_init */
};
/* Kind state: the machine, the retain scan, then the shadow machine. */
enum { K_QS = M__WORDS, K_QP, K_SH, K__WORDS = K_SH + M__WORDS };

#define U(x) ((uint64_t)(x))

static size_t ev_state_size(const sl_trig_def *def)
{
    (void)def;
    return K__WORDS * sizeof(int64_t);
}

static void ev_state_init(const sl_trig_def *def, void *kst)
{
    (void)def;
    int64_t *s = kst;
    memset(s, 0, K__WORDS * sizeof(int64_t));
    s[M_FL] = G_FRESH;
    s[K_QS] = s[K_QP] = INT64_MIN;
}

/* Emits OPEN or CLOSE (c NULL: silent shadow run). */
static int ev_emit(sl__trig_ctx *c, const ev_def *ed, bool open, int64_t start, int64_t end,
                   uint64_t rows, int32_t windex, int32_t cond, uint64_t aux)
{
    if (!c)
        return 0;
    sl__trig_win w = {.start = start, .end = end, .rownum = rows, .window_index = windex,
                      .condition_index = cond, .nfields = ed->nfields,
                      .field_names = ed->field_names};
    if (ed->nfields > 0) {
        sl_value *fv = ((ev_def *)ed)->fv;
        w.field_values = sl__trig_vs_get(&c->g->vs, aux >> 16, fv, ed->nfields) ? fv : ed->nulls;
    }
    return open ? sl__trig_open(c, &w) : sl__trig_close(c, &w);
}

/* WINDOW_OPEN of the event window once it qualifies over its committed rows. */
static int outer_maybe_open(sl__trig_ctx *c, const ev_def *ed, int64_t *m)
{
    if ((m[M_FL] & (G_O | G_OOPEN)) != G_O)
        return 0;
    int64_t end = (m[M_FL] & G_ES) ? m[M_ES] : m[M_OL];
    uint64_t rows = U((m[M_FL] & G_ES) ? m[M_ER] : m[M_ON]);
    if (!sl__trig_limit_met(&ed->tf, m[M_OS], end, rows))
        return 0;
    m[M_FL] |= G_OOPEN;
    return ev_emit(c, ed, true, m[M_OS], end, rows, -1, (int32_t)m[M_OC], U(m[M_OA]));
}

static int sub_maybe_open(sl__trig_ctx *c, const ev_def *ed, int64_t *m)
{
    if (m[M_SI] < 1 || (m[M_FL] & G_SOPEN) ||
        !sl__trig_limit_met(&ed->tf, m[M_SS], m[M_SL], U(m[M_SN])))
        return 0;
    m[M_FL] |= G_SOPEN;
    return ev_emit(c, ed, true, m[M_SS], m[M_SL], U(m[M_SN]), (int32_t)m[M_SI],
                   (int32_t)m[M_SC], U(m[M_SA]));
}

/* Closes the current sub-window as a real sub-window (index M_SI). */
static int sub_close(sl__trig_ctx *c, const ev_def *ed, int64_t *m, int32_t cond, uint64_t caux)
{
    int rc = 0;
    if (sl__trig_limit_met(&ed->tf, m[M_SS], m[M_SL], U(m[M_SN]))) {
        if (!(m[M_FL] & G_SOPEN))
            rc = ev_emit(c, ed, true, m[M_SS], m[M_SL], U(m[M_SN]), (int32_t)m[M_SI],
                         (int32_t)m[M_SC], U(m[M_SA]));
        if (rc == 0)
            rc = ev_emit(c, ed, false, m[M_SS], m[M_SL], U(m[M_SN]), (int32_t)m[M_SI], cond,
                         caux);
    }
    m[M_FL] &= ~G_SOPEN;
    return rc;
}

/* Closes the event window (and, multi form, its last sub-window) at end with rows. */
static int close_all(sl__trig_ctx *c, const ev_def *ed, int64_t *m, int64_t end, uint64_t rows,
                     int32_t cond, uint64_t caux)
{
    int rc = 0;
    if (ed->multi && m[M_SI] >= 1)
        rc = sub_close(c, ed, m, cond, caux);
    if (rc == 0 && sl__trig_limit_met(&ed->tf, m[M_OS], end, rows)) {
        if (!(m[M_FL] & G_OOPEN))
            rc = ev_emit(c, ed, true, m[M_OS], end, rows, -1, (int32_t)m[M_OC], U(m[M_OA]));
        if (rc == 0)
            rc = ev_emit(c, ed, false, m[M_OS], end, rows, -1, cond, caux);
    }
    m[M_FL] &= ~(G_O | G_OOPEN | G_SOPEN | G_ES | G_TS);
    return rc;
}

static void outer_start(int64_t *m, int64_t start, int64_t ts, int64_t rows, int cond,
                        uint64_t aux)
{
    m[M_FL] = (m[M_FL] | G_O) & ~(G_OOPEN | G_SOPEN | G_ES | G_TS);
    m[M_OS] = start;
    m[M_OL] = ts;
    m[M_ON] = rows;
    m[M_OC] = cond;
    m[M_OA] = (int64_t)aux;
}

static int plain_step(sl__trig_ctx *c, const ev_def *ed, int64_t *m, int64_t ts, uint64_t aux)
{
    bool st = (aux & 0xff) == 1, en = (aux >> 8) & 1;
    int rc;
    if (!(m[M_FL] & G_O)) {
        if (!st) {
            m[M_FL] &= ~G_TS;
            return 0;
        }
        if (ed->tf_start.op != SL__TRIG_LIMIT_NONE) {
            if (!(m[M_FL] & G_TS)) {
                m[M_FL] |= G_TS;
                m[M_TS] = ts;
                m[M_TN] = 0;
                m[M_TA] = (int64_t)aux;
            }
            m[M_TN]++;
            if (!sl__trig_limit_met(&ed->tf_start, m[M_TS], ts, U(m[M_TN])))
                return 0;
            outer_start(m, m[M_TS], ts, m[M_TN], 0, U(m[M_TA]));
        } else {
            outer_start(m, ts, ts, 1, 0, aux);
        }
        if ((rc = outer_maybe_open(c, ed, m)) != 0)
            return rc;
    } else {
        m[M_OL] = ts;
        m[M_ON]++;
    }
    if (!en) {
        m[M_FL] &= ~G_ES;
        return outer_maybe_open(c, ed, m);
    }
    if (ed->tf_end.op == SL__TRIG_LIMIT_NONE)
        return close_all(c, ed, m, ts, U(m[M_ON]), ed->nstart, aux);
    if (!(m[M_FL] & G_ES)) {
        m[M_FL] |= G_ES;
        m[M_ES] = ts;
        m[M_EN] = 0;
        m[M_ER] = m[M_ON];
        m[M_EA] = (int64_t)aux;
    }
    m[M_EN]++;
    if (!sl__trig_limit_met(&ed->tf_end, m[M_ES], ts, U(m[M_EN])))
        return outer_maybe_open(c, ed, m);
    return close_all(c, ed, m, m[M_ES], U(m[M_ER]), ed->nstart, U(m[M_EA]));
}

static void sub_start(int64_t *m, int64_t ts, int cond, uint64_t aux, int64_t index)
{
    m[M_SS] = m[M_SL] = ts;
    m[M_SN] = 1;
    m[M_SC] = cond;
    m[M_SA] = (int64_t)aux;
    m[M_SI] = index;
    m[M_FL] &= ~G_SOPEN;
}

static int multi_step(sl__trig_ctx *c, const ev_def *ed, int64_t *m, int64_t ts, uint64_t aux)
{
    int eff = (int)(aux & 0xff) - 1;
    bool en = (aux >> 8) & 1;
    int rc;
    if (!(m[M_FL] & G_O)) {
        if (eff < 0)
            return 0;
        outer_start(m, ts, ts, 1, eff, aux);
        sub_start(m, ts, eff, aux, 0);
        if ((rc = outer_maybe_open(c, ed, m)) != 0)
            return rc;
        return en ? close_all(c, ed, m, ts, 1, ed->nstart, aux) : 0;
    }
    if (!en && eff < 0)
        return close_all(c, ed, m, m[M_OL], U(m[M_ON]), -1, aux);
    if (!en && eff != m[M_SC]) {
        if ((rc = sub_close(c, ed, m, eff, aux)) != 0)
            return rc;
        sub_start(m, ts, eff, aux, m[M_SI] + 1);
    } else {
        m[M_SL] = ts;
        m[M_SN]++;
    }
    m[M_OL] = ts;
    m[M_ON]++;
    if ((rc = outer_maybe_open(c, ed, m)) != 0 || (rc = sub_maybe_open(c, ed, m)) != 0)
        return rc;
    return en ? close_all(c, ed, m, ts, U(m[M_ON]), ed->nstart, aux) : 0;
}

static int ev_step(sl__trig_ctx *c, const ev_def *ed, int64_t *m, int64_t ts, uint64_t aux)
{
    return ed->multi ? multi_step(c, ed, m, ts, aux) : plain_step(c, ed, m, ts, aux);
}

static int ev_row(sl__trig_ctx *c, int64_t ts, uint64_t aux)
{
    int64_t *s = c->kst;
    if (s[M_FL] & G_FRESH) {
        /* Replay: the retain scan and its shadow cover frozen rows; keep them. */
        s[M_FL] &= ~G_FRESH;
        const int64_t *live = c->g ? (const int64_t *)c->g->kst : NULL;
        if (live && live != s)
            memcpy(s + K_QS, live + K_QS, (size_t)(K__WORDS - K_QS) * sizeof(int64_t));
    }
    const ev_def *ed = c->def->k.ext;
    return ev_step(c, ed, s, ts, aux);
}

static int ev_advance(sl__trig_ctx *c, int64_t wm)
{
    (void)c;
    (void)wm;
    return 0;
}

static bool ev_open_window(sl__trig_ctx *c, sl__trig_win *w)
{
    const int64_t *m = c->kst;
    const ev_def *ed = c->def->k.ext;
    if ((m[M_FL] & (G_O | G_OOPEN)) != (G_O | G_OOPEN))
        return false;
    *w = (sl__trig_win){.start = m[M_OS], .end = m[M_OL], .rownum = U(m[M_ON]),
                        .window_index = -1, .condition_index = (int32_t)m[M_OC],
                        .nfields = ed->nfields, .field_names = ed->field_names};
    if (ed->nfields > 0) {
        sl_value *fv = ((ev_def *)ed)->ofv;
        w->field_values =
            sl__trig_vs_get(&c->g->vs, U(m[M_OA]) >> 16, fv, ed->nfields) ? fv : ed->nulls;
    }
    return true;
}

static int64_t ev_retain_from(sl__trig_ctx *c, int64_t horizon)
{
    int64_t *s = c->kst;
    const ev_def *ed = c->def->k.ext;
    const sl__trig_group *g = c->g;
    if (horizon == INT64_MIN)
        return INT64_MIN;
    uint32_t i = s[K_QS] == INT64_MIN ? 0 : sl__trig_log_lower(g, s[K_QS]);
    uint32_t end = sl__trig_log_lower(g, horizon);
    const sl__trig_logrow *v = g->log.v + g->log.head;
    int64_t *sh = s + K_SH;
    for (; i < end; i++) {
        if (!(sh[M_FL] & (G_O | G_TS)))
            s[K_QP] = v[i].ts;
        ev_step(NULL, ed, sh, v[i].ts, v[i].aux);
    }
    if (horizon > s[K_QS])
        s[K_QS] = horizon;
    return s[K_QP];
}

/* Keeps the field values the log, the pending rows and the machines refer to. */
static void ev_gc(sl__trig_ctx *c)
{
    sl__trig_group *g = c->g;
    const ev_def *ed = c->def->k.ext;
    if (ed->nfields == 0 || !sl__trig_vs_gc_due(&g->vs))
        return;
    const int64_t *s = (const int64_t *)g->kst;
    for (uint32_t i = g->log.head; i < g->log.n; i++)
        sl__trig_vs_mark(&g->vs, g->log.v[i].aux >> 16);
    for (uint32_t i = g->pending.head; i < g->pending.n; i++)
        sl__trig_vs_mark(&g->vs, g->pending.v[i].aux >> 16);
    static const int words[] = {M_OA, M_SA, M_TA, M_EA};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        sl__trig_vs_mark(&g->vs, U(s[words[i]]) >> 16);
        sl__trig_vs_mark(&g->vs, U(s[K_SH + words[i]]) >> 16);
    }
    sl__trig_vs_sweep(&g->vs); /* on ENOMEM everything is kept */
    g->dirty = true;
}

/* What the AST hash of the definition does not show: the resolved condition fields and
 * TRUE_FOR limits. */
static uint64_t ev_fingerprint(const sl_trig_def *def)
{
    const ev_def *ed = def->k.ext;
    int64_t w[] = {ed->nstart, ed->multi, ed->end != NULL, ed->nfields,
                   ed->tf.op, ed->tf.dur, ed->tf.count,
                   ed->tf_start.op, ed->tf_start.dur, ed->tf_start.count,
                   ed->tf_end.op, ed->tf_end.dur, ed->tf_end.count};
    uint64_t h = XXH3_64bits_withSeed(w, sizeof w, 0x4556);
    for (int i = 0; i < ed->nfields; i++) {
        int64_t f[] = {ed->field_cols[i], def->col_types[ed->field_cols[i]]};
        h = XXH3_64bits_withSeed(f, sizeof f, h);
    }
    return h;
}

static bool ev_recalc(const sl_trig_def *def)
{
    (void)def;
    return true;
}

const sl__trig_kind_ops sl__trig_event_ops = {
    .kind = SL_TRIG_EVENT,
    .type_name = "Event",
    .window = true,
    .build = ev_build,
    .def_free = ev_def_free,
    .state_size = ev_state_size,
    .state_init = ev_state_init,
    .prepare = ev_prepare,
    .row = ev_row,
    .advance = ev_advance,
    .open_window = ev_open_window,
    .retain_from = ev_retain_from,
    .recalc = ev_recalc,
    .keeps_log = true,
    .intern = ev_intern,
    .gc = ev_gc,
    .fingerprint = ev_fingerprint,
};
