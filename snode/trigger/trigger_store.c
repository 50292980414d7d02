/*
 * trigger_store.c - where group state lives: the directory of every group, the hot set of
 * decoded group states, their spill to the kv store, and the group encoding.
 *
 * A million idle groups must not live in RAM (issue 5): each group costs one directory
 * entry (gid, idle/MAX_DELAY bookkeeping) plus an index slot; its window state (pending
 * rows, row log, emitted windows, kind state) is decoded only while it is in the hot set.
 * With a kv store the hot set is an LRU of at most max_hot groups; the least recently used
 * group is encoded and written to kv when another must come in. Without kv everything stays
 * hot. The same encoding is used in checkpoints (trigger_ckpt.c).
 */
#include "trigger_int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/kv/keycodec.h"

int64_t sl__trig_wall(const sl_trig *t)
{
    if (t->clock.wall_ns)
        return t->clock.wall_ns(t->clock.ud);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t sl__trig_mono(const sl_trig *t)
{
    if (t->clock.mono_ns)
        return t->clock.mono_ns(t->clock.ud);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline uint32_t slot_of(uint64_t gid, uint32_t cap)
{
    return (uint32_t)((gid * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static int index_grow(sl_trig *t)
{
    uint32_t ncap = t->index_cap ? t->index_cap * 2 : 64;
    uint32_t *ni = calloc(ncap, sizeof *ni);
    if (!ni)
        return SL_ENOMEM;
    for (uint32_t i = 0; i < t->ndir; i++) {
        uint32_t s = slot_of(t->dir[i].gid, ncap);
        while (ni[s])
            s = (s + 1) & (ncap - 1);
        ni[s] = i + 1;
    }
    free(t->index);
    t->index = ni;
    t->index_cap = ncap;
    return 0;
}

int sl__trig_dir_get(sl_trig *t, uint64_t gid, bool create, sl__trig_dirent **out)
{
    if (t->index_cap) {
        uint32_t s = slot_of(gid, t->index_cap);
        while (t->index[s]) {
            sl__trig_dirent *de = &t->dir[t->index[s] - 1];
            if (de->gid == gid) {
                *out = de;
                return 0;
            }
            s = (s + 1) & (t->index_cap - 1);
        }
    }
    if (!create) {
        *out = NULL;
        return SL_ENOTFOUND;
    }
    if ((uint64_t)(t->ndir + 1) * 2 > t->index_cap && index_grow(t) != 0)
        return SL_ENOMEM;
    if (t->ndir == t->capdir) {
        uint32_t nc = t->capdir ? t->capdir * 2 : 64;
        sl__trig_dirent *nd = realloc(t->dir, (size_t)nc * sizeof *nd);
        if (!nd)
            return SL_ENOMEM;
        /* Hot groups point back by gid only, so moving the array is safe. */
        t->dir = nd;
        t->capdir = nc;
    }
    sl__trig_dirent *de = &t->dir[t->ndir];
    *de = (sl__trig_dirent){.gid = gid, .last_mono = INT64_MIN, .last_wall = INT64_MIN,
                            .md_deadline = INT64_MAX, .md_wstart = INT64_MIN,
                            .p_lo = INT64_MAX, .p_hi = INT64_MIN};
    uint32_t s = slot_of(gid, t->index_cap);
    while (t->index[s])
        s = (s + 1) & (t->index_cap - 1);
    t->index[s] = ++t->ndir;
    t->st.groups = t->ndir;
    *out = de;
    return 0;
}

sl__trig_group *sl__trig_group_new(const sl_trig_def *def, uint64_t gid)
{
    sl__trig_group *g = calloc(1, sizeof *g);
    size_t ks = def->ops->state_size(def);
    if (!g)
        return NULL;
    g->kst = calloc(1, ks ? ks : 8);
    if (!g->kst) {
        free(g);
        return NULL;
    }
    def->ops->state_init(def, g->kst);
    g->gid = gid;
    g->max_ts = g->released = g->wm = INT64_MIN;
    return g;
}

void sl__trig_group_free(sl__trig_group *g)
{
    if (!g)
        return;
    free(g->pending.v);
    free(g->log.v);
    free(g->closed.v);
    free(g->kst);
    sl__trig_vs_free(&g->vs);
    free(g);
}

static void lru_unlink(sl_trig *t, sl__trig_group *g)
{
    if (g->lru_prev)
        g->lru_prev->lru_next = g->lru_next;
    else
        t->lru_head = g->lru_next;
    if (g->lru_next)
        g->lru_next->lru_prev = g->lru_prev;
    else
        t->lru_tail = g->lru_prev;
    g->lru_prev = g->lru_next = NULL;
}

static void lru_push(sl_trig *t, sl__trig_group *g)
{
    g->lru_prev = NULL;
    g->lru_next = t->lru_head;
    if (t->lru_head)
        t->lru_head->lru_prev = g;
    t->lru_head = g;
    if (!t->lru_tail)
        t->lru_tail = g;
}

int sl__trig_store_key(const sl_trig *t, uint64_t gid, sl_buf *out)
{
    sl_buf_reset(out);
    int rc = sl_buf_put_u8(out, 'T');
    if (rc == 0)
        rc = sl_key_put_u64(out, t->def->stream_id);
    if (rc == 0)
        rc = sl_key_put_u64(out, gid);
    return rc;
}

static int evict(sl_trig *t, sl__trig_group *g, sl_error *err)
{
    sl__trig_dirent *de;
    int rc = sl__trig_dir_get(t, g->gid, false, &de);
    assert(rc == 0);
    (void)rc;
    sl_buf_reset(&t->vbuf);
    if ((rc = sl__trig_group_encode(t->def, g, &t->vbuf)) != 0 ||
        (rc = sl__trig_store_key(t, g->gid, &t->kbuf)) != 0)
        return sl_error_set(err, rc, 0, 0, "out of memory encoding group state");
    if ((rc = sl_kv_put(t->kv, t->cf, t->kbuf.data, t->kbuf.len, t->vbuf.data, t->vbuf.len,
                        err)) != 0)
        return rc;
    t->st.spills++;
    lru_unlink(t, g);
    de->hot = NULL;
    de->flags |= SL__DE_STORED;
    t->nhot--;
    sl__trig_group_free(g);
    return 0;
}

int sl__trig_group_get(sl_trig *t, sl__trig_dirent *de, sl__trig_group **out, sl_error *err)
{
    if (de->hot) {
        if (t->lru_head != de->hot) {
            lru_unlink(t, de->hot);
            lru_push(t, de->hot);
        }
        *out = de->hot;
        return 0;
    }
    sl__trig_group *g = NULL;
    uint64_t gid = de->gid;
    int rc;
    if ((de->flags & SL__DE_STORED) && t->kv) {
        if ((rc = sl__trig_store_key(t, gid, &t->kbuf)) != 0)
            return sl_error_set(err, rc, 0, 0, "out of memory");
        rc = sl_kv_get(t->kv, t->cf, NULL, t->kbuf.data, t->kbuf.len, &t->vbuf, err);
        if (rc == SL_ENOTFOUND)
            return sl_error_set(err, SL_ECORRUPT, 0, 0,
                                "trigger state of group %llu is missing from the store",
                                (unsigned long long)gid);
        if (rc != 0)
            return rc;
        if ((rc = sl__trig_group_decode(t->def, t->vbuf.data, t->vbuf.len, &g, err)) != 0)
            return rc;
        t->st.loads++;
    } else {
        g = sl__trig_group_new(t->def, gid);
        if (!g)
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    g->gid = gid;
    lru_push(t, g);
    t->nhot++;
    de->hot = g;
    *out = g;
    /* Evicting may not move the directory, so de stays valid. A failed spill leaves the
     * group hot (the hot set is over its bound until the store recovers). */
    rc = 0;
    while (rc == 0 && t->kv && t->nhot > t->max_hot && t->lru_tail && t->lru_tail != g)
        rc = evict(t, t->lru_tail, err);
    return rc;
}

void sl__trig_dir_free(sl_trig *t)
{
    for (uint32_t i = 0; i < t->ndir; i++)
        sl__trig_group_free(t->dir[i].hot);
    free(t->dir);
    free(t->index);
    t->dir = NULL;
    t->index = NULL;
    t->ndir = t->capdir = t->index_cap = 0;
    t->lru_head = t->lru_tail = NULL;
    t->nhot = 0;
}

int sl__trig_group_bytes(sl_trig *t, sl__trig_dirent *de, sl_buf *out, sl_error *err)
{
    if (de->hot)
        return sl__trig_group_encode(t->def, de->hot, out);
    if ((de->flags & SL__DE_STORED) && t->kv) {
        int rc = sl__trig_store_key(t, de->gid, &t->kbuf);
        if (rc == 0)
            rc = sl_kv_get(t->kv, t->cf, NULL, t->kbuf.data, t->kbuf.len, &t->vbuf, err);
        if (rc != 0)
            return rc;
        return sl_buf_put(out, t->vbuf.data, t->vbuf.len);
    }
    /* Never created: encode a fresh state. */
    sl__trig_group *g = sl__trig_group_new(t->def, de->gid);
    if (!g)
        return SL_ENOMEM;
    int rc = sl__trig_group_encode(t->def, g, out);
    sl__trig_group_free(g);
    return rc;
}

/* ------------------------------------------------------------------------ encoding */

#define GROUP_FMT 2 /* 2: the value store follows the kind state */

static int put_rows(sl_buf *b, const sl__trig_rowvec *rv)
{
    int rc = sl_buf_put_varu(b, rv->n - rv->head);
    int64_t prev = 0;
    for (uint32_t i = rv->head; i < rv->n && rc == 0; i++) {
        rc = sl_buf_put_vari(b, (int64_t)((uint64_t)rv->v[i].ts - (uint64_t)prev));
        if (rc == 0)
            rc = sl_buf_put_varu(b, rv->v[i].aux);
        prev = rv->v[i].ts;
    }
    return rc;
}

int sl__trig_group_encode(const sl_trig_def *def, const sl__trig_group *g, sl_buf *b)
{
    int rc = sl_buf_put_u8(b, GROUP_FMT);
    if (rc == 0) rc = sl_buf_put_u64(b, g->gid);
    if (rc == 0) rc = sl_buf_put_vari(b, g->max_ts);
    if (rc == 0) rc = sl_buf_put_vari(b, g->released);
    if (rc == 0) rc = sl_buf_put_vari(b, g->wm);
    if (rc == 0) rc = sl_buf_put_varu(b, g->version_hi);
    if (rc == 0) rc = put_rows(b, &g->pending);
    if (rc == 0) rc = put_rows(b, &g->log);
    if (rc == 0) rc = sl_buf_put_varu(b, g->closed.n);
    for (uint32_t i = 0; i < g->closed.n && rc == 0; i++) {
        const sl__trig_closed *e = &g->closed.v[i];
        rc = sl_buf_put_vari(b, e->start);
        if (rc == 0) rc = sl_buf_put_vari(b, e->end);
        if (rc == 0) rc = sl_buf_put_varu(b, e->rownum);
        if (rc == 0) rc = sl_buf_put_vari(b, e->window_index);
        if (rc == 0) rc = sl_buf_put_vari(b, e->condition_index);
        if (rc == 0) rc = sl_buf_put_vari(b, e->close_pos);
        if (rc == 0) rc = sl_buf_put_u8(b, (uint8_t)e->emitted);
        if (rc == 0) rc = sl_buf_put_varu(b, e->xhash);
    }
    size_t nw = def->ops->state_size(def) / sizeof(int64_t);
    if (rc == 0) rc = sl_buf_put_varu(b, nw);
    for (size_t i = 0; i < nw && rc == 0; i++) {
        int64_t w;
        memcpy(&w, g->kst + i * sizeof w, sizeof w);
        rc = sl_buf_put_vari(b, w);
    }
    if (rc == 0)
        rc = sl__trig_vs_encode(&g->vs, b);
    return rc;
}

static int get_rows(sl_reader *r, sl__trig_rowvec *rv, bool table_rows, sl_error *err)
{
    uint64_t n;
    if (sl_reader_varu(r, &n) != 0 || n > sl_reader_left(r) / 2)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger state: bad row count");
    rv->v = n ? malloc((size_t)n * sizeof *rv->v) : NULL;
    if (n && !rv->v)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    rv->n = rv->cap = (uint32_t)n;
    rv->head = 0;
    int64_t prev = 0;
    uint64_t prev_aux = 0;
    for (uint64_t i = 0; i < n; i++) {
        int64_t d;
        uint64_t aux;
        if (sl_reader_vari(r, &d) != 0 || sl_reader_varu(r, &aux) != 0)
            return sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger state: truncated rows");
        int64_t ts = (int64_t)((uint64_t)prev + (uint64_t)d);
        /* Rows are in (ts, aux) order; one timestamp holds several rows only when they are
         * rows of different tables (def->table_rows, trigger_int.h). */
        if (i > 0 && (ts < prev || (ts == prev && (!table_rows || aux <= prev_aux))))
            return sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger state: rows out of order");
        rv->v[i].ts = ts;
        rv->v[i].aux = aux;
        prev = ts;
        prev_aux = aux;
    }
    return 0;
}

int sl__trig_group_decode(const sl_trig_def *def, const void *p, size_t n, sl__trig_group **out,
                          sl_error *err)
{
    sl_reader r;
    sl_reader_init(&r, p, n);
    uint8_t fmt;
    if (sl_reader_u8(&r, &fmt) != 0 || fmt != GROUP_FMT)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger state: unknown group format");
    sl__trig_group *g = sl__trig_group_new(def, 0);
    if (!g)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    int rc = SL_ECORRUPT;
    uint64_t cn, nw;
    if (sl_reader_u64(&r, &g->gid) != 0 || sl_reader_vari(&r, &g->max_ts) != 0 ||
        sl_reader_vari(&r, &g->released) != 0 || sl_reader_vari(&r, &g->wm) != 0 ||
        sl_reader_varu(&r, &g->version_hi) != 0)
        goto corrupt;
    if ((rc = get_rows(&r, &g->pending, def->table_rows, err)) != 0 ||
        (rc = get_rows(&r, &g->log, def->table_rows, err)) != 0)
        goto fail;
    rc = SL_ECORRUPT;
    if (sl_reader_varu(&r, &cn) != 0 || cn > sl_reader_left(&r) / 7)
        goto corrupt;
    g->closed.v = cn ? malloc((size_t)cn * sizeof *g->closed.v) : NULL;
    if (cn && !g->closed.v) {
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        goto fail;
    }
    g->closed.n = g->closed.cap = (uint32_t)cn;
    for (uint64_t i = 0; i < cn; i++) {
        sl__trig_closed *e = &g->closed.v[i];
        int64_t wi, ci;
        uint8_t em;
        if (sl_reader_vari(&r, &e->start) != 0 || sl_reader_vari(&r, &e->end) != 0 ||
            sl_reader_varu(&r, &e->rownum) != 0 || sl_reader_vari(&r, &wi) != 0 ||
            sl_reader_vari(&r, &ci) != 0 || sl_reader_vari(&r, &e->close_pos) != 0 ||
            sl_reader_u8(&r, &em) != 0 || sl_reader_varu(&r, &e->xhash) != 0 || em > 1 ||
            wi < INT32_MIN || wi > INT32_MAX ||
            ci < INT32_MIN || ci > INT32_MAX)
            goto corrupt;
        e->window_index = (int32_t)wi;
        e->condition_index = (int32_t)ci;
        e->emitted = em;
        e->xoff = 0;
    }
    if (sl_reader_varu(&r, &nw) != 0 || nw != def->ops->state_size(def) / sizeof(int64_t))
        goto corrupt;
    for (uint64_t i = 0; i < nw; i++) {
        int64_t w;
        if (sl_reader_vari(&r, &w) != 0)
            goto corrupt;
        memcpy(g->kst + i * sizeof w, &w, sizeof w);
    }
    if ((rc = sl__trig_vs_decode(&g->vs, &r)) == SL_ENOMEM) {
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        goto fail;
    }
    if (rc != 0 || sl_reader_left(&r) != 0)
        goto corrupt;
    *out = g;
    return 0;
corrupt:
    rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger state: malformed group record");
fail:
    sl__trig_group_free(g);
    return rc;
}
