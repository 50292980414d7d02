/*
 * trigger_values.c - value tuples behind row codes: the per-group value store of the
 * STATE and EVENT kinds, the value encoding it shares with the replay capture
 * (trigger.c), and exact value equality / hashing.
 *
 * STATE and EVENT rows reach their kind as (ts, aux) only; aux holds a code for the row's
 * state key tuple (STATE) or condition field values (EVENT). A code is a hash of the values
 * whose low SL__TRIG_VS_SLOTS bits are a slot number: the group's value store maps each
 * code to its exact values, and two different tuples whose hashes collide get different
 * slots, so a code names exactly one tuple in its group. Equality of two codes is decided
 * "hash first, then compare": different hash parts are different tuples; equal hash parts
 * with different slots compare the stored values (after a garbage collection a tuple may be
 * re-interned under another slot than older rows use).
 *
 * The store belongs to the group state (sl__trig_group.vs): it is spilled to the kv store,
 * reloaded and checkpointed with the group, so no value is ever lost and an idle spilled
 * group costs no memory for it. The kinds collect garbage after the core pruned the row
 * log (sl__trig_vs_mark / sl__trig_vs_sweep), keeping the codes the log, the pending rows
 * and the kind state refer to.
 */
#include "trigger_int.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

bool sl__trig_value_eq(const sl_value *a, const sl_value *b)
{
    if (a->is_null || b->is_null)
        return a->is_null && b->is_null;
    if (sl_type_is_var(a->type) || sl_type_is_var(b->type))
        return sl_type_is_var(a->type) && sl_type_is_var(b->type) && a->v.s.len == b->v.s.len &&
               (a->v.s.len == 0 || memcmp(a->v.s.ptr, b->v.s.ptr, a->v.s.len) == 0);
    if (sl_type_is_float(a->type) || sl_type_is_float(b->type)) {
        /* By bits, like the hash (NaN equals itself, -0 differs from 0). */
        return sl_type_is_float(a->type) && sl_type_is_float(b->type) &&
               memcmp(&a->v.d, &b->v.d, sizeof a->v.d) == 0;
    }
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

/* ------------------------------------------------------------------ value encoding */

int sl__trig_vals_put(sl_buf *out, const sl_value *vals, int n)
{
    int rc = sl_buf_put_varu(out, (uint64_t)n);
    for (int j = 0; j < n && rc == 0; j++) {
        const sl_value *v = &vals[j];
        rc = sl_buf_put_u8(out, (uint8_t)v->type);
        if (rc == 0)
            rc = sl_buf_put_u8(out, v->is_null ? 1 : 0);
        if (rc != 0 || v->is_null)
            continue;
        if (sl_type_is_var(v->type)) {
            rc = sl_buf_put_varu(out, v->v.s.len);
            if (rc == 0 && v->v.s.len)
                rc = sl_buf_put(out, v->v.s.ptr, v->v.s.len);
        } else if (sl_type_is_float(v->type)) {
            rc = sl_buf_put(out, &v->v.d, sizeof v->v.d);
        } else {
            rc = sl_buf_put_vari(out, v->type == SL_T_BOOL ? (int64_t)v->v.b : v->v.i);
        }
    }
    return rc;
}

int sl__trig_vals_get(sl_reader *r, sl_value *out, int max, int *n)
{
    uint64_t cnt;
    if (sl_reader_varu(r, &cnt) != 0 || cnt > (uint64_t)max)
        return SL_ECORRUPT;
    for (int j = 0; j < (int)cnt; j++) {
        uint8_t t, isnull;
        if (sl_reader_u8(r, &t) != 0 || sl_reader_u8(r, &isnull) != 0 || t >= SL_T__COUNT ||
            isnull > 1 || (t == SL_T_NULL && !isnull))
            return SL_ECORRUPT;
        out[j] = sl_value_null((sl_type)t);
        if (isnull)
            continue;
        out[j].is_null = false;
        if (sl_type_is_var((sl_type)t)) {
            uint64_t len;
            if (sl_reader_varu(r, &len) != 0 || len > sl_reader_left(r))
                return SL_ECORRUPT;
            out[j].v.s.len = (uint32_t)len;
            out[j].v.s.ptr = len ? (const char *)sl_reader_take(r, (size_t)len) : "";
        } else if (sl_type_is_float((sl_type)t)) {
            if (sl_reader_get(r, &out[j].v.d, sizeof out[j].v.d) != 0)
                return SL_ECORRUPT;
        } else {
            int64_t x;
            if (sl_reader_vari(r, &x) != 0)
                return SL_ECORRUPT;
            if (t == SL_T_BOOL)
                out[j].v.b = x != 0;
            else
                out[j].v.i = x;
        }
    }
    *n = (int)cnt;
    return 0;
}

/* -------------------------------------------------------------- the value store */

#define SLOT_MASK ((uint64_t)(SL__TRIG_VS_SLOTS - 1))

static inline uint32_t vs_hslot(uint64_t base, uint32_t cap)
{
    return (uint32_t)((base * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* Index slot holding the chain of base, or the empty slot where it would go. */
static uint32_t vs_islot(const sl__trig_vstore *vs, uint64_t base)
{
    uint32_t i = vs_hslot(base, vs->icap);
    while (vs->idx[i] && (vs->e[vs->idx[i] - 1].code & ~SLOT_MASK) != base)
        i = (i + 1) & (vs->icap - 1);
    return i;
}

static const sl__trig_vent *vs_find(const sl__trig_vstore *vs, uint64_t code)
{
    if (vs->icap == 0)
        return NULL;
    uint32_t i = vs->idx[vs_islot(vs, code & ~SLOT_MASK)];
    while (i) {
        const sl__trig_vent *e = &vs->e[i - 1];
        if (e->code == code)
            return e;
        i = e->next;
    }
    return NULL;
}

static int vs_decode(const sl__trig_vstore *vs, const sl__trig_vent *e, sl_value *out, int n)
{
    sl_reader r;
    sl_reader_init(&r, vs->bytes.data + e->off, e->len);
    int got = 0;
    if (sl__trig_vals_get(&r, out, SL_TRIG_MAX_KEYS, &got) != 0 || got != n)
        return SL_ECORRUPT;
    return 0;
}

bool sl__trig_vs_get(const sl__trig_vstore *vs, uint64_t code, sl_value *out, int n)
{
    const sl__trig_vent *e = vs_find(vs, code);
    return e && vs_decode(vs, e, out, n) == 0;
}

static bool vals_eq(const sl_value *a, const sl_value *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!sl__trig_value_eq(&a[i], &b[i]))
            return false;
    return true;
}

bool sl__trig_vs_eq(const sl__trig_vstore *vs, uint64_t a, uint64_t b, int n)
{
    if (a == b)
        return true;
    if ((a ^ b) & ~SLOT_MASK)
        return false;
    sl_value x[SL_TRIG_MAX_KEYS], y[SL_TRIG_MAX_KEYS];
    return sl__trig_vs_get(vs, a, x, n) && sl__trig_vs_get(vs, b, y, n) && vals_eq(x, y, n);
}

static int vs_index_grow(sl__trig_vstore *vs)
{
    uint32_t ncap = vs->icap ? vs->icap * 2 : 16;
    uint32_t *ni = calloc(ncap, sizeof *ni);
    if (!ni)
        return SL_ENOMEM;
    free(vs->idx);
    vs->idx = ni;
    vs->icap = ncap;
    /* Re-link every chain from the entries (chain order: entry order). */
    for (uint32_t k = 0; k < vs->n; k++)
        vs->e[k].next = 0;
    for (uint32_t k = vs->n; k-- > 0;) {
        uint64_t base = vs->e[k].code & ~SLOT_MASK;
        uint32_t s = vs_islot(vs, base);
        vs->e[k].next = vs->idx[s];
        vs->idx[s] = k + 1;
    }
    return 0;
}

/* Appends an entry (code, encoded values) and links it into its chain. */
static int vs_add(sl__trig_vstore *vs, uint64_t code, const void *p, size_t len)
{
    if ((vs->n + 1) * 2 > vs->icap) {
        int rc = vs_index_grow(vs);
        if (rc != 0)
            return rc;
    }
    if (vs->n == vs->cap) {
        uint32_t nc = vs->cap ? vs->cap * 2 : 4;
        sl__trig_vent *ne = realloc(vs->e, (size_t)nc * sizeof *ne);
        if (!ne)
            return SL_ENOMEM;
        vs->e = ne;
        vs->cap = nc;
    }
    size_t off = vs->bytes.len;
    if (off + len > UINT32_MAX || sl_buf_put(&vs->bytes, p, len) != 0)
        return SL_ENOMEM;
    uint32_t s = vs_islot(vs, code & ~SLOT_MASK);
    sl__trig_vent *e = &vs->e[vs->n];
    *e = (sl__trig_vent){.code = code, .off = (uint32_t)off, .len = (uint32_t)len,
                         .next = vs->idx[s]};
    vs->idx[s] = ++vs->n;
    return 0;
}

int sl__trig_vs_intern(sl__trig_vstore *vs, uint64_t base, const sl_value *vals, int n,
                       uint64_t *code)
{
    base &= ~SLOT_MASK;
    uint32_t used = 0;
    if (vs->icap) {
        sl_value tmp[SL_TRIG_MAX_KEYS];
        for (uint32_t i = vs->idx[vs_islot(vs, base)]; i; i = vs->e[i - 1].next) {
            const sl__trig_vent *e = &vs->e[i - 1];
            if (vs_decode(vs, e, tmp, n) == 0 && vals_eq(tmp, vals, n)) {
                *code = e->code;
                return 0;
            }
            used |= 1u << (e->code & SLOT_MASK);
        }
    }
    uint32_t slot = 0;
    while (slot < SL__TRIG_VS_SLOTS && (used >> slot) & 1)
        slot++;
    if (slot == SL__TRIG_VS_SLOTS)
        return SL_ELIMIT; /* more distinct tuples share one hash than a group can tell apart */
    sl_buf b = {0};
    int rc = sl__trig_vals_put(&b, vals, n);
    if (rc == 0)
        rc = vs_add(vs, base | slot, b.data, b.len);
    sl_buf_fini(&b);
    if (rc == 0)
        *code = base | slot;
    return rc;
}

void sl__trig_vs_mark(sl__trig_vstore *vs, uint64_t code)
{
    const sl__trig_vent *e = vs_find(vs, code);
    if (e)
        ((sl__trig_vent *)e)->mark = 1;
}

int sl__trig_vs_sweep(sl__trig_vstore *vs)
{
    sl__trig_vstore nv = {0};
    int rc = 0;
    for (uint32_t k = 0; k < vs->n && rc == 0; k++)
        if (vs->e[k].mark)
            rc = vs_add(&nv, vs->e[k].code, vs->bytes.data + vs->e[k].off, vs->e[k].len);
    if (rc != 0) {
        /* Keep everything (garbage included); clear the marks. */
        sl__trig_vs_free(&nv);
        for (uint32_t k = 0; k < vs->n; k++)
            vs->e[k].mark = 0;
        return rc;
    }
    nv.gc_at = nv.n * 2 > 64 ? nv.n * 2 : 64;
    sl__trig_vs_free(vs);
    *vs = nv;
    return 0;
}

bool sl__trig_vs_gc_due(const sl__trig_vstore *vs)
{
    return vs->n >= (vs->gc_at ? vs->gc_at : 64);
}

void sl__trig_vs_free(sl__trig_vstore *vs)
{
    free(vs->e);
    free(vs->idx);
    sl_buf_fini(&vs->bytes);
    memset(vs, 0, sizeof *vs);
}

size_t sl__trig_vs_mem(const sl__trig_vstore *vs)
{
    return (size_t)vs->cap * sizeof *vs->e + (size_t)vs->icap * sizeof *vs->idx + vs->bytes.cap;
}

int sl__trig_vs_encode(const sl__trig_vstore *vs, sl_buf *out)
{
    int rc = sl_buf_put_varu(out, vs->n);
    for (uint32_t k = 0; k < vs->n && rc == 0; k++) {
        rc = sl_buf_put_u64(out, vs->e[k].code);
        if (rc == 0)
            rc = sl_buf_put_varu(out, vs->e[k].len);
        if (rc == 0)
            rc = sl_buf_put(out, vs->bytes.data + vs->e[k].off, vs->e[k].len);
    }
    return rc;
}

int sl__trig_vs_decode(sl__trig_vstore *vs, sl_reader *r)
{
    uint64_t n;
    if (sl_reader_varu(r, &n) != 0 || n > sl_reader_left(r) / 9)
        return SL_ECORRUPT;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t code, len;
        if (sl_reader_u64(r, &code) != 0 || sl_reader_varu(r, &len) != 0 ||
            len > sl_reader_left(r) || vs_find(vs, code))
            return SL_ECORRUPT;
        const uint8_t *p = sl_reader_take(r, (size_t)len);
        sl_reader vr;
        sl_reader_init(&vr, p, (size_t)len);
        sl_value tmp[SL_TRIG_MAX_KEYS];
        int got;
        if (sl__trig_vals_get(&vr, tmp, SL_TRIG_MAX_KEYS, &got) != 0 || sl_reader_left(&vr) != 0)
            return SL_ECORRUPT;
        int rc = vs_add(vs, code, p, (size_t)len);
        if (rc != 0)
            return rc;
    }
    vs->gc_at = vs->n * 2 > 64 ? vs->n * 2 : 64;
    return 0;
}
