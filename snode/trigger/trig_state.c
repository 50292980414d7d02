/*
 * trig_state.c - STATE_WINDOW(key, ...) [EXTEND(0|1|2)] [ZEROTH_STATE(...)] [TRUE_FOR(...)].
 *
 * A state window holds consecutive released rows of one group whose state keys are equal;
 * it closes when a released row carries another state (semantics.md rules 3 and 4). The
 * NULL rules of the spec, as this file reads them:
 *  - A row whose keys are all NULL ("all-NULL") never closes a window. Before the group's
 *    first row with a non-NULL key it belongs to no window. Otherwise it joins the window
 *    of the unit before it (EXTEND 0 and 1) or of the unit after it (EXTEND 2); between two
 *    rows of one state it simply stays in that window.
 *  - A maximal run of rows where some but not all keys are NULL ("partial run", all-NULL
 *    rows in its middle included, all-NULL rows at its edges not) is decided as a whole
 *    when the next row with every key set (N) arrives. With P the state of the window
 *    before the run, the run is compatible with a state when each non-NULL key of each
 *    row equals that state's key: EXTEND(0) merges it into P's window if compatible with
 *    P, else into N's if compatible with N, else it is an independent window; EXTEND(1)
 *    merges into P or is independent; EXTEND(2) merges into N or is independent. That is
 *    the spec's merge table line by line. A run compatible with P and N where P == N
 *    leaves one window. An independent window's state is the keys of its first row.
 * EXTEND(1) sets _twend to just before the next window's first row, EXTEND(2) _twstart to
 * just after the previous window's last row (the group's first window keeps its first row).
 * ZEROTH_STATE filters windows whose state equals the zero state at every position not
 * written NO_ZEROTH (all NO_ZEROTH: no filtering); TRUE_FOR filters by the final bounds
 * and rows (rule 9). A filtered window emits nothing; a kept one emits WINDOW_OPEN once it
 * is known to qualify (at once without TRUE_FOR) and WINDOW_CLOSE when it closes.
 *
 * Rows reach the kind only as (ts, aux). aux packs the NULL mask of the keys (top k bits),
 * a "matches the zero state" bit, and a (63 - k)-bit hash of the non-NULL keys, so state
 * equality, NULL classes and zeroth filtering are decided from aux alone (two different
 * states are taken as equal only on a hash collision). The key values behind an aux
 * (needed for partial-NULL compatibility and the prevState/curState/nextState of
 * notifications) live in a value dictionary on the definition (sl__trig_vdict), filled by
 * prepare(), saved with checkpoints (ckpt_save/ckpt_load) and bounded as a two-generation
 * cache; a value no longer held reads as NULL (and a partial run is then taken as
 * incompatible). The dictionary also backs trig_event.c's condition field values.
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

/* ------------------------------------------------------- shared: the value dictionary */

/*
 * The dictionary is a cache of two generations so it stays bounded however many distinct
 * values a stream sees: new entries go to the current generation; when it holds
 * VD_GEN_ENTRIES the previous one is dropped and the current one becomes previous. A hit
 * in the previous generation copies the entry forward. Kinds re-touch the codes their
 * group state refers to after a generation change (sl__trig_vdict_flips), so only the
 * values of groups idle across two changes can be lost; those read as NULL.
 * Pointers returned by get stay valid until the next put (only put drops a generation).
 */
#define VD_GEN_ENTRIES (1u << 17)

typedef struct vd_ent {
    uint64_t key;
    sl_value *vals; /* n values then the string bytes, one allocation; NULL: free slot */
} vd_ent;

typedef struct vd_tab {
    vd_ent *slots;
    uint32_t cap, used; /* cap is a power of two */
} vd_tab;

struct sl__trig_vdict {
    int n;
    vd_tab cur, old;
    uint64_t flips; /* generation changes so far */
};

sl__trig_vdict *sl__trig_vdict_new(int n)
{
    sl__trig_vdict *d = calloc(1, sizeof *d);
    if (d)
        d->n = n;
    return d;
}

static void vd_tab_fini(vd_tab *t)
{
    for (uint32_t i = 0; i < t->cap; i++)
        free(t->slots[i].vals);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

void sl__trig_vdict_free(sl__trig_vdict *d)
{
    if (!d)
        return;
    vd_tab_fini(&d->cur);
    vd_tab_fini(&d->old);
    free(d);
}

uint64_t sl__trig_vdict_flips(const sl__trig_vdict *d)
{
    return d ? d->flips : 0;
}

static uint32_t vd_slot(uint64_t key, uint32_t cap)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static sl_value *vd_find(const vd_tab *t, uint64_t key)
{
    if (t->cap == 0)
        return NULL;
    for (uint32_t i = vd_slot(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
        if (!t->slots[i].vals)
            return NULL;
        if (t->slots[i].key == key)
            return t->slots[i].vals;
    }
}

static int vd_grow(vd_tab *t)
{
    uint32_t ncap = t->cap ? t->cap * 2 : 64;
    vd_ent *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return SL_ENOMEM;
    for (uint32_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].vals)
            continue;
        uint32_t j = vd_slot(t->slots[i].key, ncap);
        while (ns[j].vals)
            j = (j + 1) & (ncap - 1);
        ns[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = ns;
    t->cap = ncap;
    return 0;
}

/* Inserts a copy of vals (n values) under key into t; returns the copy or NULL. */
static sl_value *vd_insert(vd_tab *t, int n, uint64_t key, const sl_value *vals)
{
    if ((t->used + 1) * 4 > t->cap * 3 && vd_grow(t) != 0)
        return NULL;
    size_t bytes = (size_t)n * sizeof(sl_value);
    for (int i = 0; i < n; i++)
        if (!vals[i].is_null && sl_type_is_var(vals[i].type))
            bytes += vals[i].v.s.len;
    sl_value *copy = malloc(bytes ? bytes : 1);
    if (!copy)
        return NULL;
    char *heap = (char *)(copy + n);
    for (int i = 0; i < n; i++) {
        copy[i] = vals[i];
        if (!vals[i].is_null && sl_type_is_var(vals[i].type)) {
            if (vals[i].v.s.len)
                memcpy(heap, vals[i].v.s.ptr, vals[i].v.s.len);
            copy[i].v.s.ptr = heap;
            heap += vals[i].v.s.len;
        }
    }
    uint32_t j = vd_slot(key, t->cap);
    while (t->slots[j].vals)
        j = (j + 1) & (t->cap - 1);
    t->slots[j].key = key;
    t->slots[j].vals = copy;
    t->used++;
    return copy;
}

const sl_value *sl__trig_vdict_get(sl__trig_vdict *d, uint64_t key)
{
    if (!d)
        return NULL;
    sl_value *v = vd_find(&d->cur, key);
    if (v)
        return v;
    v = vd_find(&d->old, key);
    if (!v)
        return NULL;
    /* Copy forward; never drops a generation, so earlier results stay valid. */
    sl_value *c = vd_insert(&d->cur, d->n, key, v);
    return c ? c : v;
}

static int vd_put(sl__trig_vdict *d, uint64_t key, const sl_value *vals, bool may_drop)
{
    if (sl__trig_vdict_get(d, key))
        return 0;
    if (may_drop && d->cur.used >= VD_GEN_ENTRIES) {
        vd_tab_fini(&d->old);
        d->old = d->cur;
        memset(&d->cur, 0, sizeof d->cur);
        d->flips++;
    }
    return vd_insert(&d->cur, d->n, key, vals) ? 0 : SL_ENOMEM;
}

int sl__trig_vdict_put(sl__trig_vdict *d, uint64_t key, const sl_value *vals)
{
    return vd_put(d, key, vals, true);
}

bool sl__trig_value_eq(const sl_value *a, const sl_value *b)
{
    if (a->is_null || b->is_null)
        return a->is_null && b->is_null;
    if (sl_type_is_var(a->type) || sl_type_is_var(b->type))
        return sl_type_is_var(a->type) && sl_type_is_var(b->type) && a->v.s.len == b->v.s.len &&
               (a->v.s.len == 0 || memcmp(a->v.s.ptr, b->v.s.ptr, a->v.s.len) == 0);
    if (a->type == SL_T_BOOL || b->type == SL_T_BOOL) {
        int64_t x = a->type == SL_T_BOOL ? a->v.b : a->v.i;
        int64_t y = b->type == SL_T_BOOL ? b->v.b : b->v.i;
        return x == y;
    }
    if (sl_type_is_unsigned_int(a->type) != sl_type_is_unsigned_int(b->type)) {
        const sl_value *s = sl_type_is_unsigned_int(a->type) ? b : a;
        const sl_value *u = sl_type_is_unsigned_int(a->type) ? a : b;
        return s->v.i >= 0 && (uint64_t)s->v.i == u->v.u;
    }
    return sl_type_is_unsigned_int(a->type) ? a->v.u == b->v.u : a->v.i == b->v.i;
}

/* Hash of one non-NULL value at position pos (numbers by value bits, text by bytes). */
uint64_t sl__trig_value_hash(const sl_value *v, int pos)
{
    if (sl_type_is_var(v->type))
        return XXH3_64bits_withSeed(v->v.s.ptr ? v->v.s.ptr : "", v->v.s.len,
                                    0x51u + (uint64_t)pos);
    int64_t x;
    if (v->type == SL_T_BOOL)
        x = v->v.b;
    else if (sl_type_is_float(v->type))
        memcpy(&x, &v->v.d, sizeof x);
    else
        x = v->v.i; /* u shares the bits */
    return XXH3_64bits_withSeed(&x, sizeof x, 0x51u + (uint64_t)pos);
}

static int vd_encode_tab(const vd_tab *t, int n, sl_buf *out)
{
    int rc = 0;
    for (uint32_t i = 0; i < t->cap && rc == 0; i++) {
        const vd_ent *e = &t->slots[i];
        if (!e->vals)
            continue;
        rc = sl_buf_put_u64(out, e->key);
        for (int j = 0; j < n && rc == 0; j++) {
            const sl_value *v = &e->vals[j];
            rc = sl_buf_put_u8(out, (uint8_t)v->type);
            if (rc == 0)
                rc = sl_buf_put_u8(out, v->is_null ? 1 : 0);
            if (rc != 0 || v->is_null)
                continue;
            if (sl_type_is_var(v->type)) {
                rc = sl_buf_put_varu(out, v->v.s.len);
                if (rc == 0)
                    rc = sl_buf_put(out, v->v.s.ptr, v->v.s.len);
            } else if (sl_type_is_float(v->type)) {
                rc = sl_buf_put(out, &v->v.d, sizeof v->v.d);
            } else {
                int64_t x = v->type == SL_T_BOOL ? (int64_t)v->v.b : v->v.i;
                rc = sl_buf_put_vari(out, x);
            }
        }
    }
    return rc;
}

int sl__trig_vdict_encode(const sl__trig_vdict *d, sl_buf *out)
{
    /* Old generation first, so the current one wins when both hold a key. */
    int rc = sl_buf_put_varu(out, (uint64_t)d->n);
    if (rc == 0)
        rc = sl_buf_put_varu(out, (uint64_t)d->old.used + d->cur.used);
    if (rc == 0)
        rc = vd_encode_tab(&d->old, d->n, out);
    if (rc == 0)
        rc = vd_encode_tab(&d->cur, d->n, out);
    return rc;
}

int sl__trig_vdict_decode(sl__trig_vdict *d, const void *p, size_t n)
{
    sl_reader r;
    sl_reader_init(&r, p, n);
    uint64_t nv, cnt;
    if (sl_reader_varu(&r, &nv) != 0 || nv != (uint64_t)d->n || sl_reader_varu(&r, &cnt) != 0 ||
        cnt > sl_reader_left(&r) / 8)
        return SL_ECORRUPT;
    sl_value vals[SL_TRIG_MAX_KEYS];
    for (uint64_t i = 0; i < cnt; i++) {
        uint64_t key;
        if (sl_reader_u64(&r, &key) != 0)
            return SL_ECORRUPT;
        for (int j = 0; j < d->n; j++) {
            uint8_t t, isnull;
            if (sl_reader_u8(&r, &t) != 0 || sl_reader_u8(&r, &isnull) != 0 || t == SL_T_NULL ||
                t >= SL_T__COUNT || isnull > 1)
                return SL_ECORRUPT;
            vals[j] = sl_value_null((sl_type)t);
            if (isnull)
                continue;
            vals[j].is_null = false;
            if (sl_type_is_var((sl_type)t)) {
                uint64_t len;
                if (sl_reader_varu(&r, &len) != 0 || len > sl_reader_left(&r))
                    return SL_ECORRUPT;
                vals[j].v.s.len = (uint32_t)len;
                vals[j].v.s.ptr = (const char *)sl_reader_take(&r, (size_t)len);
            } else if (sl_type_is_float((sl_type)t)) {
                if (sl_reader_get(&r, &vals[j].v.d, sizeof vals[j].v.d) != 0)
                    return SL_ECORRUPT;
            } else {
                int64_t x;
                if (sl_reader_vari(&r, &x) != 0)
                    return SL_ECORRUPT;
                if (t == SL_T_BOOL)
                    vals[j].v.b = x != 0;
                else
                    vals[j].v.i = x;
            }
        }
        int rc = vd_put(d, key, vals, false); /* a restore keeps every entry */
        if (rc != 0)
            return rc;
    }
    return sl_reader_left(&r) == 0 ? 0 : SL_ECORRUPT;
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
    sl__trig_vdict *dict;                /* aux -> key values */
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
    sl__trig_vdict_free(sd->dict);
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
    sd->dict = sl__trig_vdict_new(n);
    if (!sd->dict)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
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

static int st_prepare(const sl_trig_def *def, const sl_block *b, const uint32_t *sel, uint32_t n,
                      uint64_t *aux, sl_error *err)
{
    st_def *sd = def->k.ext;
    int k = sd->nkeys;
    const sl_column *cols[SL_TRIG_MAX_KEYS];
    for (int i = 0; i < k; i++) {
        int rc = sl_cexpr_eval(sd->keys[i], b, &cols[i], err);
        if (rc != 0)
            return rc;
    }
    uint64_t hmask = (1ull << (63 - k)) - 1, last = SL__TRIG_AUX_SKIP;
    sl_value vals[SL_TRIG_MAX_KEYS];
    for (uint32_t j = 0; j < n; j++) {
        uint32_t r = sel ? sel[j] : j;
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
        uint64_t code;
        if (mask == (1ull << k) - 1)
            code = mask << (64 - k); /* all NULL: never SKIP since the hash bits are 0 */
        else
            code = (mask << (64 - k)) | ((uint64_t)zero << (63 - k)) | ((h ^ (h >> 29)) & hmask);
        aux[j] = code;
        if (code != last && mask != (1ull << k) - 1) {
            int rc = sl__trig_vdict_put(sd->dict, code, vals);
            if (rc != 0)
                return sl_error_set(err, rc, 0, 0, "out of memory");
        }
        last = code;
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
    S_GEN,                  /* dictionary generation count when the codes were last touched */
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

static const sl_value *st_vals(const st_def *sd, uint64_t code)
{
    const sl_value *v = sl__trig_vdict_get(sd->dict, code);
    return v ? v : sd->nulls;
}

/* Whether the pending run is compatible with the full state code. */
static bool run_compat(const st_def *sd, const int64_t *s, uint64_t code)
{
    if (s[S_RX] != 0)
        return false;
    const sl_value *sv = sl__trig_vdict_get(sd->dict, code);
    if (!sv)
        return false;
    for (int i = 0; i < sd->nkeys; i++) {
        if (U(s[S_RP + i]) == NOCODE)
            continue;
        const sl_value *rv = sl__trig_vdict_get(sd->dict, U(s[S_RP + i]));
        if (!rv || !sl__trig_value_eq(&rv[i], &sv[i]))
            return false;
    }
    return true;
}

static void run_add(const st_def *sd, int64_t *s, int64_t ts, uint64_t code)
{
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
    const sl_value *xv = sl__trig_vdict_get(sd->dict, code);
    for (int i = 0; i < k; i++) {
        if ((code_mask(code, k) >> i) & 1)
            continue;
        if (U(s[S_RP + i]) == NOCODE) {
            s[S_RP + i] = (int64_t)code;
            continue;
        }
        const sl_value *pv = sl__trig_vdict_get(sd->dict, U(s[S_RP + i]));
        if (!xv || !pv || !sl__trig_value_eq(&xv[i], &pv[i]))
            s[S_RX] |= 1ll << i;
    }
}

static int st_emit(sl__trig_ctx *c, bool open, int64_t start, int64_t end, uint64_t rows,
                   uint64_t prevc, uint64_t curc, uint64_t nextc)
{
    const st_def *sd = c->def->k.ext;
    sl__trig_win w = {.start = start, .end = end, .rownum = rows, .window_index = -1,
                      .condition_index = -1, .nstate = sd->nkeys};
    w.cur_state = st_vals(sd, curc);
    if (prevc != NOCODE)
        w.prev_state = st_vals(sd, prevc);
    if (nextc != NOCODE)
        w.next_state = st_vals(sd, nextc);
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
    if ((s[S_FL] & F_W) && U(s[S_WC]) == code) {
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
    bool cp = w && run_compat(sd, s, U(s[S_WC])), cn = run_compat(sd, s, code);
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
    if (dec == PREV || (dec == NEXT && w && U(s[S_WC]) == code)) {
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

/* Keeps the values of the codes the state refers to in the dictionary's current
 * generation (see the dictionary). */
static void st_touch(const st_def *sd, int64_t *s)
{
    uint64_t fl = sl__trig_vdict_flips(sd->dict);
    if (U(s[S_GEN]) == fl)
        return;
    s[S_GEN] = (int64_t)fl;
    if (s[S_FL] & F_W)
        sl__trig_vdict_get(sd->dict, U(s[S_WC]));
    if (s[S_FL] & F_PREV)
        sl__trig_vdict_get(sd->dict, U(s[S_PC]));
    if (s[S_FL] & F_BASE)
        sl__trig_vdict_get(sd->dict, U(s[S_BC]));
    if (s[S_FL] & F_R) {
        sl__trig_vdict_get(sd->dict, U(s[S_RC]));
        for (int i = 0; i < sd->nkeys; i++)
            if (U(s[S_RP + i]) != NOCODE)
                sl__trig_vdict_get(sd->dict, U(s[S_RP + i]));
    }
}

static int st_row(sl__trig_ctx *c, int64_t ts, uint64_t code)
{
    int64_t *s = c->kst;
    const st_def *sd = c->def->k.ext;
    int k = sd->nkeys;
    if (s[S_FL] & F_FRESH)
        st_fresh(c, ts);
    st_touch(sd, s);
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
    run_add(sd, s, ts, code);
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
    const st_def *sd = c->def->k.ext;
    if ((s[S_FL] & (F_W | F_OPENED)) != (F_W | F_OPENED))
        return false;
    *w = (sl__trig_win){.start = s[S_WS], .end = s[S_WL], .rownum = U(s[S_WN]),
                        .window_index = -1, .condition_index = -1, .nstate = sd->nkeys,
                        .cur_state = st_vals(sd, U(s[S_WC]))};
    if (s[S_FL] & F_PREV)
        w->prev_state = st_vals(sd, U(s[S_PC]));
    return true;
}

/* Index of the first log row with ts >= t. */
static uint32_t log_lower(const sl__trig_group *g, int64_t t)
{
    uint32_t lo = 0, hi = sl__trig_log_len(g);
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sl__trig_log_ts(g, mid) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
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
    uint32_t i = s[S_QS] == INT64_MIN ? 0 : log_lower(g, s[S_QS]);
    uint32_t end = log_lower(g, horizon);
    if (i == 0)
        i = 1;
    const sl__trig_logrow *v = g->log.v + g->log.head;
    for (; i < end && i < len; i++) {
        uint64_t a = v[i - 1].aux, b = v[i].aux;
        if (a != b && code_full(a, k) && code_full(b, k)) {
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

static int st_ckpt_save(const sl_trig_def *def, sl_buf *out)
{
    return sl__trig_vdict_encode(((const st_def *)def->k.ext)->dict, out);
}

static int st_ckpt_load(const sl_trig_def *def, const void *p, size_t n)
{
    return sl__trig_vdict_decode(((const st_def *)def->k.ext)->dict, p, n);
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
    .ckpt_save = st_ckpt_save,
    .ckpt_load = st_ckpt_load,
};
