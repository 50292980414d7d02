/*
 * trig_state.c - STATE_WINDOW(key, ...) [EXTEND(0|1|2)] [ZEROTH_STATE(...)] [TRUE_FOR(...)],
 * and the TRUE_FOR limit helpers shared with trig_event.c.
 *
 * The rules this file implements (the NULL and partial-NULL rules, the merge table for
 * EXTEND 0/1/2, EXTEND's bounds, ZEROTH_STATE, TRUE_FOR, when OPEN is sent) are written
 * down in docs/triggers.md, "STATE_WINDOW"; the tests assert them.
 *
 * Implementation: rows reach the kind only as (ts, aux). aux is a row code: the NULL mask
 * of the keys (top k bits), a "matches the zero state" bit and a hash of the non-NULL keys
 * whose low bits are a slot in the group's value store (trigger_values.c), which keeps the
 * exact key values of every code the group still refers to. prepare() evaluates the key
 * expressions, intern() (once the group is known) turns each row into its code. Two codes
 * are the same state when their hash parts are equal and their values are (st_same), so
 * equality is exact. The values also give the partial-NULL compatibility and the
 * prevState/curState/nextState of events.
 *
 * Recomputation uses the core's replay. A state window is always open after the first
 * one, so the log is pruned only at a "clean cut": a row with every key set whose log
 * predecessor also has every key set and another state; there every extend mode cuts. The
 * previous window's state and last row (EXTEND(2) and prevState need them) are kept in the
 * live state as the "base context" and loaded by the replay at the base row.
 */
#include "trigger_int.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

/* ------------------------------------------------------------ shared: TRUE_FOR limits */

int sl__trig_limit_build(const sl_trig_def *def, const sl_limit_expr *l, sl__trig_limit *out,
                         sl_error *err)
{
    out->op = (int)l->op;
    out->dur = 0;
    out->count = 0;
    if (l->op != SL_LIMIT_COUNT) {
        int rc = sl__trig_dur(def, &l->duration, "TRUE_FOR duration", &out->dur, err);
        if (rc != 0)
            return rc;
        if (out->dur <= 0)
            return sl_error_set(err, SL_EINVAL, l->duration.pos.line, l->duration.pos.col,
                                "TRUE_FOR duration must be positive");
    }
    if (l->op != SL_LIMIT_DURATION) {
        if (l->count < 1)
            return sl_error_set(err, SL_EINVAL, l->pos.line, l->pos.col,
                                "TRUE_FOR COUNT must be at least 1");
        out->count = l->count;
    }
    return 0;
}

bool sl__trig_limit_met(const sl__trig_limit *l, int64_t start, int64_t end, uint64_t rows)
{
    bool d = end - start >= l->dur, n = rows >= (uint64_t)l->count;
    switch (l->op) {
    case SL_LIMIT_DURATION: return d;
    case SL_LIMIT_COUNT: return n;
    case SL_LIMIT_AND: return d && n;
    case SL_LIMIT_OR: return d || n;
    default: return true; /* SL__TRIG_LIMIT_NONE */
    }
}

/* ------------------------------------------------------------------- the definition */

typedef struct st_def {
    int nkeys;
    int extend;                          /* 0, 1, 2 */
    sl_cexpr *keys[SL_TRIG_MAX_KEYS];
    sl_type types[SL_TRIG_MAX_KEYS];
    bool zeroth_on[SL_TRIG_MAX_KEYS];    /* position takes part in zero-state matching */
    bool has_zeroth;                     /* some position takes part */
    sl_value zeroth[SL_TRIG_MAX_KEYS];   /* cast to the key type; text owned by zbytes */
    char *zbytes[SL_TRIG_MAX_KEYS];
    sl__trig_limit tf;                   /* TRUE_FOR window filter, op NONE when absent */
    sl_value nulls[SL_TRIG_MAX_KEYS];    /* typed NULLs: values of an unknown aux */
    /* Scratch (a definition is used by one thread at a time): the key columns prepare()
     * evaluated for intern(), and decoded values handed out with windows. */
    const sl_column *ecols[SL_TRIG_MAX_KEYS];
    sl_value ev[3][SL_TRIG_MAX_KEYS];    /* st_emit: prev, cur, next */
    sl_value ow[2][SL_TRIG_MAX_KEYS];    /* st_open_window: prev, cur */
} st_def;

static void st_def_free(sl_trig_def *def)
{
    st_def *sd = def->k.ext;
    if (!sd)
        return;
    for (int i = 0; i < SL_TRIG_MAX_KEYS; i++) {
        sl_cexpr_free(sd->keys[i]);
        free(sd->zbytes[i]);
    }
    free(sd);
    def->k.ext = NULL;
}

static bool key_type_ok(sl_type t)
{
    return sl_type_is_int(t) || t == SL_T_BOOL || sl_type_is_var(t);
}

static int st_zeroth(sl_trig_def *def, st_def *sd, const sl_trigger *tr, sl_error *err)
{
    if (tr->nzeroth == 0)
        return 0;
    if (tr->nzeroth != sd->nkeys)
        return sl_error_set(err, SL_EINVAL, tr->zeroth_pos.line, tr->zeroth_pos.col,
                            "ZEROTH_STATE needs %d value%s, one per state key (got %d)",
                            sd->nkeys, sd->nkeys == 1 ? "" : "s", tr->nzeroth);
    for (int i = 0; i < sd->nkeys; i++) {
        const sl_zeroth *z = &tr->zeroth[i];
        if (!z->expr)
            continue; /* NO_ZEROTH */
        sl_binder bd = {.bind = sl__trig_bind, .ud = def, .precision = def->prec,
                        .now = def->now};
        sl_cexpr *ce = NULL;
        int rc = sl_cexpr_compile(z->expr, &bd, &ce, err);
        if (rc != 0)
            return rc;
        if (!sl_cexpr_is_const(ce)) {
            sl_cexpr_free(ce);
            return sl_error_set(err, SL_EINVAL, z->pos.line, z->pos.col,
                                "ZEROTH_STATE values must be constants or NO_ZEROTH");
        }
        sl_value v, cv;
        char buf[128];
        rc = sl_cexpr_eval_const(ce, &v, err);
        if (rc == 0 && v.is_null) {
            sl_cexpr_free(ce);
            return sl_error_set(err, SL_EINVAL, z->pos.line, z->pos.col,
                                "ZEROTH_STATE value %d may not be NULL (use NO_ZEROTH)", i + 1);
        }
        if (rc == 0)
            rc = sl_value_cast(&v, sd->types[i], 0, def->prec, buf, sizeof buf, &cv, NULL);
        if (rc == 0 && sl_type_is_var(cv.type)) {
            sd->zbytes[i] = malloc(cv.v.s.len + 1);
            if (!sd->zbytes[i]) {
                sl_cexpr_free(ce);
                return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
            }
            memcpy(sd->zbytes[i], cv.v.s.ptr, cv.v.s.len);
            cv.v.s.ptr = sd->zbytes[i];
        }
        sl_cexpr_free(ce);
        if (rc != 0)
            return sl_error_set(err, SL_EINVAL, z->pos.line, z->pos.col,
                                "ZEROTH_STATE value %d cannot be converted to the type of state "
                                "key %d (%s)",
                                i + 1, i + 1, sl_type_name(sd->types[i]));
        sd->zeroth[i] = cv;
        sd->zeroth_on[i] = true;
        sd->has_zeroth = true;
    }
    return 0;
}

static int st_build(sl_trig_def *def, const sl_create_stream *cs, sl_error *err)
{
    const sl_trigger *tr = &cs->trigger;
    int n = tr->state_exprs.n;
    if (n < 1)
        return sl_error_set(err, SL_EINVAL, tr->pos.line, tr->pos.col,
                            "STATE_WINDOW needs at least one state key");
    if (n > SL_TRIG_MAX_KEYS)
        return sl_error_set(err, SL_ELIMIT, tr->pos.line, tr->pos.col,
                            "STATE_WINDOW takes at most %d state keys (got %d)",
                            SL_TRIG_MAX_KEYS, n);
    st_def *sd = calloc(1, sizeof *sd);
    if (!sd)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    def->k.ext = sd;
    sd->nkeys = n;
    sd->tf.op = SL__TRIG_LIMIT_NONE;
    if (tr->has_extend && (tr->extend < 0 || tr->extend > 2))
        return sl_error_set(err, SL_EINVAL, tr->extend_pos.line, tr->extend_pos.col,
                            "EXTEND must be 0, 1 or 2");
    sd->extend = tr->has_extend ? (int)tr->extend : 0;
    for (int i = 0; i < n; i++) {
        const sl_expr *e = tr->state_exprs.items[i];
        sl_binder bd = {.bind = sl__trig_bind, .ud = def, .precision = def->prec,
                        .now = def->now};
        int rc = sl_cexpr_compile(e, &bd, &sd->keys[i], err);
        if (rc != 0)
            return rc;
        sd->types[i] = sl_cexpr_type(sd->keys[i]);
        if (!key_type_ok(sd->types[i]))
            return sl_error_set(err, SL_ETYPE, e->pos.line, e->pos.col,
                                "state key %d of STATE_WINDOW has type %s; a state key must be "
                                "an integer, BOOL or VARCHAR",
                                i + 1, sl_type_name(sd->types[i]));
        sd->nulls[i] = sl_value_null(sd->types[i]);
    }
    int rc = st_zeroth(def, sd, tr, err);
    if (rc != 0)
        return rc;
    for (int i = 0; i < tr->true_for.n; i++) {
        const sl_true_for_arg *a = &tr->true_for.args[i];
        if (a->role != SL_TF_WINDOW)
            return sl_error_set(err, SL_EINVAL, a->pos.line, a->pos.col,
                                "TRUE_FOR start(...) and end(...) are only supported for a "
                                "single-condition EVENT_WINDOW");
        if (sd->tf.op != SL__TRIG_LIMIT_NONE)
            return sl_error_set(err, SL_EINVAL, a->pos.line, a->pos.col,
                                "TRUE_FOR gives the window limit more than once");
        if ((rc = sl__trig_limit_build(def, &a->limit, &sd->tf, err)) != 0)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------------ row codes */

static inline int st_k(const sl_trig_def *def)
{
    return ((const st_def *)def->k.ext)->nkeys;
}
static inline uint64_t code_mask(uint64_t code, int k)
{
    return code >> (64 - k);
}
static inline bool code_full(uint64_t code, int k)
{
    return code_mask(code, k) == 0;
}
static inline bool code_allnull(uint64_t code, int k)
{
    return code_mask(code, k) == ((1ull << k) - 1);
}
static inline bool code_zeroth(uint64_t code, int k)
{
    return (code >> (63 - k)) & 1;
}

/* Evaluates the key expressions; intern() turns the rows into codes once the group is
 * known. */
static int st_prepare(const sl_trig_def *def, const sl_block *b, const uint32_t *sel, uint32_t n,
                      uint64_t *aux, sl_error *err)
{
    st_def *sd = def->k.ext;
    (void)sel;
    for (int i = 0; i < sd->nkeys; i++) {
        int rc = sl_cexpr_eval(sd->keys[i], b, &sd->ecols[i], err);
        if (rc != 0)
            return rc;
    }
    memset(aux, 0, (size_t)n * sizeof *aux);
    return 0;
}

/*
 * Row codes: the top k bits are the NULL mask of the keys, the next bit says "matches the
 * zero state", the low 63 - k bits a hash of the non-NULL keys whose low
 * SL__TRIG_VS_SLOTS bits are the slot of the exact tuple in the group's value store
 * (trigger_values.c). An all-NULL row has no values and is not stored.
 */
static int st_intern(sl__trig_ctx *c, const sl_block *b, const uint32_t *sel,
                     const uint8_t *kinds, uint32_t n, uint64_t *aux, sl_error *err)
{
    st_def *sd = c->def->k.ext;
    int k = sd->nkeys;
    const sl_column *const *cols = sd->ecols;
    (void)b;
    uint64_t hmask = (1ull << (63 - k)) - 1, last_base = 0, last_code = 0;
    bool have_last = false;
    sl_value vals[SL_TRIG_MAX_KEYS], lastv[SL_TRIG_MAX_KEYS];
    for (uint32_t j = 0; j < n; j++) {
        uint32_t r = sel ? sel[j] : j;
        if (kinds && kinds[r] == SL_TRIG_ROW_DELETE) {
            aux[j] = 0; /* a delete carries no values */
            continue;
        }
        uint64_t mask = 0, h = 0x243F6A8885A308D3ull;
        bool zero = sd->has_zeroth;
        for (int i = 0; i < k; i++) {
            if (sl_column_is_null(cols[i], r)) {
                mask |= 1ull << i;
                vals[i] = sd->nulls[i];
                if (sd->zeroth_on[i])
                    zero = false;
                continue;
            }
            sl_column_get(cols[i], r, &vals[i]);
            vals[i].type = sd->types[i];
            h = (h ^ sl__trig_value_hash(&vals[i], i)) * 0x9E3779B97F4A7C15ull;
            if (sd->zeroth_on[i] && !sl__trig_value_eq(&vals[i], &sd->zeroth[i]))
                zero = false;
        }
        if (mask == (1ull << k) - 1) {
            aux[j] = mask << (64 - k); /* all NULL: never SKIP since the hash bits are 0 */
            continue;
        }
        uint64_t base = (mask << (64 - k)) | ((uint64_t)zero << (63 - k)) |
                        ((h ^ (h >> 29)) & hmask & ~(uint64_t)(SL__TRIG_VS_SLOTS - 1));
        /* Runs of one state are common: the previous row's tuple needs no lookup. */
        if (have_last && base == last_base) {
            bool same = true;
            for (int i = 0; i < k && same; i++)
                same = sl__trig_value_eq(&vals[i], &lastv[i]);
            if (same) {
                aux[j] = last_code;
                continue;
            }
        }
        int rc = sl__trig_vs_intern(&c->g->vs, base, vals, k, &aux[j]);
        if (rc == SL_ELIMIT)
            return sl_error_set(err, rc, 0, 0, "more than %d distinct STATE_WINDOW key tuples "
                                "of one group share a hash", SL__TRIG_VS_SLOTS);
        if (rc != 0)
            return sl_error_set(err, rc, 0, 0, "out of memory");
        c->g->dirty = true;
        have_last = true;
        last_base = base;
        last_code = aux[j];
        memcpy(lastv, vals, (size_t)k * sizeof *vals); /* strings stay in the block */
    }
    return 0;
}

/* --------------------------------------------------------------------- kind state */

enum {
    S_FL,                   /* F_* */
    S_WF, S_WL, S_WN, S_WC, S_WS, /* open window: first row, last row, rows, state, _twstart */
    S_PC, S_PL,             /* previous window: state, last row */
    S_AN, S_AF, S_AL,       /* pending all-NULL rows (E2 before the next unit / after a run) */
    S_A1N, S_A1F, S_A1L,    /* E2: all-NULL rows just before the pending partial run */
    S_RN, S_RF, S_RL, S_RC, S_RX, /* partial run: rows, first, last, first row's code, conflicts */
    S_QS, S_QX,             /* retain scan: scanned up to (exclusive), latest clean cut */
    S_BT, S_BC, S_BL,       /* base context: base row ts, previous state, previous last row */
    S_RP,                   /* S_RP + i: code of the run row that first set key i */
    S__FIXED = S_RP
};

enum {
    F_W = 1,        /* a window is open */
    F_OPENED = 2,   /* its WINDOW_OPEN was emitted */
    F_PREV = 4,     /* a previous window exists */
    F_R = 8,        /* a partial run is pending */
    F_FRESH = 16,   /* no row processed since state_init */
    F_BASE = 32     /* S_BT.. hold a base context */
};

#define NOCODE SL__TRIG_AUX_SKIP

static size_t st_state_size(const sl_trig_def *def)
{
    return (size_t)(S__FIXED + st_k(def)) * sizeof(int64_t);
}

static void st_state_init(const sl_trig_def *def, void *kst)
{
    int64_t *s = kst;
    memset(s, 0, st_state_size(def));
    s[S_FL] = F_FRESH;
    s[S_QS] = s[S_QX] = s[S_BT] = INT64_MIN;
}

#define U(x) ((uint64_t)(x))

/* The key values of code, decoded into out (typed NULLs when unknown, which the value
 * store rules out). */
static const sl_value *st_vals(const sl__trig_ctx *c, uint64_t code, sl_value *out)
{
    const st_def *sd = c->def->k.ext;
    if (!sl__trig_vs_get(&c->g->vs, code, out, sd->nkeys))
        memcpy(out, sd->nulls, (size_t)sd->nkeys * sizeof *out);
    return out;
}

/* Whether two full codes are the same state (exact: hash, then values). */
static inline bool st_same(const sl__trig_ctx *c, uint64_t a, uint64_t b)
{
    return a == b || sl__trig_vs_eq(&c->g->vs, a, b, ((const st_def *)c->def->k.ext)->nkeys);
}

/* Whether the pending run is compatible with the full state code. */
static bool run_compat(const sl__trig_ctx *c, const int64_t *s, uint64_t code)
{
    const st_def *sd = c->def->k.ext;
    if (s[S_RX] != 0)
        return false;
    sl_value sv[SL_TRIG_MAX_KEYS], rv[SL_TRIG_MAX_KEYS];
    if (!sl__trig_vs_get(&c->g->vs, code, sv, sd->nkeys))
        return false;
    for (int i = 0; i < sd->nkeys; i++) {
        if (U(s[S_RP + i]) == NOCODE)
            continue;
        if (!sl__trig_vs_get(&c->g->vs, U(s[S_RP + i]), rv, sd->nkeys) ||
            !sl__trig_value_eq(&rv[i], &sv[i]))
            return false;
    }
    return true;
}

static void run_add(const sl__trig_ctx *c, int64_t *s, int64_t ts, uint64_t code)
{
    const st_def *sd = c->def->k.ext;
    if (!(s[S_FL] & F_R)) {
        s[S_FL] |= F_R;
        s[S_RN] = 0;
        s[S_RF] = ts;
        s[S_RC] = (int64_t)code;
        s[S_RX] = 0;
        for (int i = 0; i < sd->nkeys; i++)
            s[S_RP + i] = (int64_t)NOCODE;
    }
    s[S_RN]++;
    s[S_RL] = ts;
    int k = sd->nkeys;
    sl_value xv[SL_TRIG_MAX_KEYS], pv[SL_TRIG_MAX_KEYS];
    bool hx = sl__trig_vs_get(&c->g->vs, code, xv, k);
    for (int i = 0; i < k; i++) {
        if ((code_mask(code, k) >> i) & 1)
            continue;
        if (U(s[S_RP + i]) == NOCODE) {
            s[S_RP + i] = (int64_t)code;
            continue;
        }
        if (!hx || !sl__trig_vs_get(&c->g->vs, U(s[S_RP + i]), pv, k) ||
            !sl__trig_value_eq(&xv[i], &pv[i]))
            s[S_RX] |= 1ll << i;
    }
}

static int st_emit(sl__trig_ctx *c, bool open, int64_t start, int64_t end, uint64_t rows,
                   uint64_t prevc, uint64_t curc, uint64_t nextc)
{
    st_def *sd = c->def->k.ext;
    sl__trig_win w = {.start = start, .end = end, .rownum = rows, .window_index = -1,
                      .condition_index = -1, .nstate = sd->nkeys};
    w.cur_state = st_vals(c, curc, sd->ev[1]);
    if (prevc != NOCODE)
        w.prev_state = st_vals(c, prevc, sd->ev[0]);
    if (nextc != NOCODE)
        w.next_state = st_vals(c, nextc, sd->ev[2]);
    return open ? sl__trig_open(c, &w) : sl__trig_close(c, &w);
}

/* Emits WINDOW_OPEN for the open window once it is known to qualify. */
static int st_maybe_open(sl__trig_ctx *c)
{
    int64_t *s = c->kst;
    const st_def *sd = c->def->k.ext;
    if ((s[S_FL] & (F_W | F_OPENED)) != F_W || code_zeroth(U(s[S_WC]), sd->nkeys))
        return 0;
    if (!sl__trig_limit_met(&sd->tf, s[S_WS], s[S_WL], U(s[S_WN])))
        return 0;
    s[S_FL] |= F_OPENED;
    return st_emit(c, true, s[S_WS], s[S_WL], U(s[S_WN]),
                   (s[S_FL] & F_PREV) ? U(s[S_PC]) : NOCODE, U(s[S_WC]), NOCODE);
}

/* Closes the open window (if any); the next window starts at row next_first with state
 * next_code. */
static int st_close(sl__trig_ctx *c, int64_t next_first, uint64_t next_code)
{
    int64_t *s = c->kst;
    const st_def *sd = c->def->k.ext;
    if (!(s[S_FL] & F_W))
        return 0;
    int64_t end = sd->extend == 1 ? next_first - 1 : s[S_WL];
    uint64_t code = U(s[S_WC]);
    int rc = 0;
    if (!code_zeroth(code, sd->nkeys) && sl__trig_limit_met(&sd->tf, s[S_WS], end, U(s[S_WN]))) {
        uint64_t prevc = (s[S_FL] & F_PREV) ? U(s[S_PC]) : NOCODE;
        if (!(s[S_FL] & F_OPENED))
            rc = st_emit(c, true, s[S_WS], end, U(s[S_WN]), prevc, code, NOCODE);
        if (rc == 0)
            rc = st_emit(c, false, s[S_WS], end, U(s[S_WN]), prevc, code, next_code);
    }
    s[S_PC] = (int64_t)code;
    s[S_PL] = s[S_WL];
    s[S_FL] = (s[S_FL] | F_PREV) & ~(F_W | F_OPENED);
    return rc;
}

/* Opens a window of rows first..last with state code (the previous one is closed). */
static int st_new(sl__trig_ctx *c, int64_t first, int64_t last, uint64_t rows, uint64_t code)
{
    int64_t *s = c->kst;
    const st_def *sd = c->def->k.ext;
    s[S_FL] = (s[S_FL] | F_W) & ~F_OPENED;
    s[S_WF] = first;
    s[S_WL] = last;
    s[S_WN] = (int64_t)rows;
    s[S_WC] = (int64_t)code;
    s[S_WS] = sd->extend == 2 && (s[S_FL] & F_PREV) ? s[S_PL] + 1 : first;
    return st_maybe_open(c);
}

static void w_absorb(int64_t *s, int64_t n, int64_t last)
{
    if (n > 0) {
        s[S_WN] += n;
        if (last > s[S_WL])
            s[S_WL] = last;
    }
}

/* A full row (every key set) when no partial run is pending. */
static int st_full(sl__trig_ctx *c, int64_t ts, uint64_t code)
{
    int64_t *s = c->kst;
    if ((s[S_FL] & F_W) && st_same(c, U(s[S_WC]), code)) {
        w_absorb(s, s[S_AN], s[S_AL]); /* E2 all-NULL rows between two rows of one state */
        s[S_AN] = 0;
        w_absorb(s, 1, ts);
        return st_maybe_open(c);
    }
    int64_t first = s[S_AN] ? s[S_AF] : ts;
    uint64_t rows = U(s[S_AN]) + 1;
    s[S_AN] = 0;
    int rc = st_close(c, first, code);
    return rc ? rc : st_new(c, first, ts, rows, code);
}

/* The pending partial run meets the next full row (ts, code). */
static int st_resolve(sl__trig_ctx *c, int64_t ts, uint64_t code)
{
    int64_t *s = c->kst;
    const st_def *sd = c->def->k.ext;
    bool w = s[S_FL] & F_W;
    bool cp = w && run_compat(c, s, U(s[S_WC])), cn = run_compat(c, s, code);
    enum { PREV, NEXT, INDEP } dec;
    if (sd->extend == 0)
        dec = cp ? PREV : cn ? NEXT : INDEP;
    else if (sd->extend == 1)
        dec = cp ? PREV : INDEP;
    else
        dec = cn ? NEXT : INDEP;
    int64_t a1n = s[S_A1N], a1f = s[S_A1F], a1l = s[S_A1L];
    int64_t an = s[S_AN], af = s[S_AF], al = s[S_AL];
    int64_t rn = s[S_RN], rf = s[S_RF], rl = s[S_RL];
    uint64_t rc1 = U(s[S_RC]);
    s[S_FL] &= ~F_R;
    s[S_A1N] = s[S_AN] = 0;
    int rc;
    if (dec == PREV || (dec == NEXT && w && st_same(c, U(s[S_WC]), code))) {
        /* Into the previous window (which N may continue). */
        w_absorb(s, a1n, a1l);
        w_absorb(s, rn, rl);
        w_absorb(s, an, al);
        if ((rc = st_maybe_open(c)) != 0)
            return rc;
        return st_full(c, ts, code);
    }
    int64_t first = a1n ? a1f : rf;
    if (dec == NEXT) {
        if ((rc = st_close(c, first, code)) != 0)
            return rc;
        return st_new(c, first, ts, U(a1n + rn + an + 1), code);
    }
    /* Independent window of the run; all-NULL rows after it join it (EXTEND 0/1) or N. */
    bool a_to_run = sd->extend != 2;
    int64_t next_first = !a_to_run && an ? af : ts;
    if ((rc = st_close(c, first, rc1)) != 0)
        return rc;
    if ((rc = st_new(c, first, a_to_run && an ? al : rl, U(a1n + rn + (a_to_run ? an : 0)),
                     rc1)) != 0)
        return rc;
    if ((rc = st_close(c, next_first, code)) != 0)
        return rc;
    return st_new(c, next_first, ts, U((a_to_run ? 0 : an) + 1), code);
}

/* Replay support: the first row after state_init takes the live state's retain fields and,
 * at the base row, the previous window's context. */
static void st_fresh(sl__trig_ctx *c, int64_t ts)
{
    int64_t *s = c->kst;
    s[S_FL] &= ~F_FRESH;
    const int64_t *live = c->g ? (const int64_t *)c->g->kst : NULL;
    if (!live || live == s)
        return;
    s[S_QS] = live[S_QS];
    s[S_QX] = live[S_QX];
    if (!(live[S_FL] & F_BASE))
        return;
    s[S_FL] |= F_BASE;
    s[S_BT] = live[S_BT];
    s[S_BC] = live[S_BC];
    s[S_BL] = live[S_BL];
    if (ts == s[S_BT]) {
        s[S_FL] |= F_PREV;
        s[S_PC] = s[S_BC];
        s[S_PL] = s[S_BL];
    }
}

static int st_row(sl__trig_ctx *c, int64_t ts, uint64_t code)
{
    int64_t *s = c->kst;
    const st_def *sd = c->def->k.ext;
    int k = sd->nkeys;
    if (s[S_FL] & F_FRESH)
        st_fresh(c, ts);
    if (code_full(code, k))
        return (s[S_FL] & F_R) ? st_resolve(c, ts, code) : st_full(c, ts, code);
    if (code_allnull(code, k)) {
        if (!(s[S_FL] & (F_W | F_R)))
            return 0; /* before the group's first state: no window */
        if (!(s[S_FL] & F_R) && sd->extend != 2) {
            w_absorb(s, 1, ts);
            return st_maybe_open(c);
        }
        if (s[S_AN]++ == 0)
            s[S_AF] = ts;
        s[S_AL] = ts;
        return 0;
    }
    /* Partial row. */
    if (s[S_FL] & F_R) {
        /* All-NULL rows inside a run belong to it. */
        s[S_RN] += s[S_AN];
        s[S_AN] = 0;
    } else if (s[S_AN]) {
        s[S_A1N] = s[S_AN];
        s[S_A1F] = s[S_AF];
        s[S_A1L] = s[S_AL];
        s[S_AN] = 0;
    }
    run_add(c, s, ts, code);
    return 0;
}

static int st_advance(sl__trig_ctx *c, int64_t wm)
{
    (void)c;
    (void)wm;
    return 0;
}

static bool st_open_window(sl__trig_ctx *c, sl__trig_win *w)
{
    const int64_t *s = c->kst;
    st_def *sd = c->def->k.ext;
    if ((s[S_FL] & (F_W | F_OPENED)) != (F_W | F_OPENED))
        return false;
    *w = (sl__trig_win){.start = s[S_WS], .end = s[S_WL], .rownum = U(s[S_WN]),
                        .window_index = -1, .condition_index = -1, .nstate = sd->nkeys,
                        .cur_state = st_vals(c, U(s[S_WC]), sd->ow[1])};
    if (s[S_FL] & F_PREV)
        w->prev_state = st_vals(c, U(s[S_PC]), sd->ow[0]);
    return true;
}

static int64_t st_retain_from(sl__trig_ctx *c, int64_t horizon)
{
    int64_t *s = c->kst;
    const sl__trig_group *g = c->g;
    int k = st_k(c->def);
    if (horizon == INT64_MIN)
        return INT64_MIN;
    uint32_t len = sl__trig_log_len(g);
    /* Scan the log rows in [QS, horizon) once for clean cuts: a full row whose predecessor
     * is full with another state. Rows older than the horizon no longer change. */
    uint32_t i = s[S_QS] == INT64_MIN ? 0 : sl__trig_log_lower(g, s[S_QS]);
    uint32_t end = sl__trig_log_lower(g, horizon);
    if (i == 0)
        i = 1;
    const sl__trig_logrow *v = g->log.v + g->log.head;
    for (; i < end && i < len; i++) {
        uint64_t a = v[i - 1].aux, b = v[i].aux;
        if (code_full(a, k) && code_full(b, k) && !st_same(c, a, b)) {
            s[S_QX] = v[i].ts;
            s[S_FL] |= F_BASE;
            s[S_BT] = v[i].ts;
            s[S_BC] = (int64_t)a;
            s[S_BL] = v[i - 1].ts;
        }
    }
    if (horizon > s[S_QS])
        s[S_QS] = horizon;
    if (!(s[S_FL] & F_BASE))
        return INT64_MIN;
    /* EXTEND(2): the window of the base row starts just after the previous one, and the
     * core keeps the emitted windows starting at or after the returned time. */
    return ((const st_def *)c->def->k.ext)->extend == 2 ? s[S_BL] + 1 : s[S_BT];
}

/* Keeps the values the log, the pending rows and the state refer to. */
static void st_gc(sl__trig_ctx *c)
{
    sl__trig_group *g = c->g;
    if (!sl__trig_vs_gc_due(&g->vs))
        return;
    const int64_t *s = (const int64_t *)g->kst;
    for (uint32_t i = g->log.head; i < g->log.n; i++)
        sl__trig_vs_mark(&g->vs, g->log.v[i].aux);
    for (uint32_t i = g->pending.head; i < g->pending.n; i++)
        sl__trig_vs_mark(&g->vs, g->pending.v[i].aux);
    static const int words[] = {S_WC, S_PC, S_RC, S_BC};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        sl__trig_vs_mark(&g->vs, U(s[words[i]]));
    for (int i = 0; i < st_k(c->def); i++)
        sl__trig_vs_mark(&g->vs, U(s[S_RP + i]));
    sl__trig_vs_sweep(&g->vs); /* on ENOMEM everything is kept */
    g->dirty = true;
}

/* What the AST hash of the definition does not show: the resolved key types and the
 * converted ZEROTH_STATE / TRUE_FOR values. */
static uint64_t st_fingerprint(const sl_trig_def *def)
{
    const st_def *sd = def->k.ext;
    uint64_t h = XXH3_64bits_withSeed(&sd->nkeys, sizeof sd->nkeys, 0x5354);
    int64_t w[] = {sd->extend, sd->has_zeroth, sd->tf.op, sd->tf.dur, sd->tf.count};
    h = XXH3_64bits_withSeed(w, sizeof w, h);
    for (int i = 0; i < sd->nkeys; i++) {
        int64_t kw[] = {sd->types[i], sd->zeroth_on[i]};
        h = XXH3_64bits_withSeed(kw, sizeof kw, h);
        if (sd->zeroth_on[i])
            h ^= sl__trig_value_hash(&sd->zeroth[i], i) * 0x9E3779B97F4A7C15ull;
    }
    return h;
}

static bool st_recalc(const sl_trig_def *def)
{
    (void)def;
    return true;
}

const sl__trig_kind_ops sl__trig_state_ops = {
    .kind = SL_TRIG_STATE,
    .type_name = "State",
    .window = true,
    .build = st_build,
    .def_free = st_def_free,
    .state_size = st_state_size,
    .state_init = st_state_init,
    .prepare = st_prepare,
    .row = st_row,
    .advance = st_advance,
    .open_window = st_open_window,
    .retain_from = st_retain_from,
    .recalc = st_recalc,
    .keeps_log = true,
    .intern = st_intern,
    .gc = st_gc,
    .fingerprint = st_fingerprint,
};
