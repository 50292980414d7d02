/*
 * stask.c - a stream task's thread: setup, the reader loop over the vgroups, one trigger
 * engine per owned slot, ticks and checkpoints (stask.h).
 *
 * Checkpoint record of one (stream, slot), stored in the mnode (MNODE_CHECKPOINT_PUT):
 *   u8 version (1), u32 nvg, nvg x (u32 vgroup id, u64 version consumed),
 *   u32 engine bytes, the engine's checkpoint (sl_trig_checkpoint; 0 bytes: no engine),
 *   (version 2) u32 ngroups, ngroups x (u64 group id, u32 n + table name, u32 n + the
 *   group's key values in the canonical group-key encoding) - the slot's group contexts,
 *   so events without rows (PERIOD, IDLE, MAX_DELAY) of a moved or restarted slot still
 *   know their group's table and keys.
 *   (version 3) u8 flags: bit 0 = the slot's history is done (FILL_HISTORY /
 *   FILL_HISTORY_FIRST read and fed, or the stream has none). Records of versions 1 and 2
 *   count as done: the slot ran before. A slot whose history is pending is never
 *   checkpointed, so a record without the bit is not written by this code; it is still
 *   honoured (the slot starts over with its history) - see docs/streams.md, "History".
 * The versions say which change-log entries the engine state already includes; entries at
 * or below them are skipped for that slot when the task (re)starts, so a restarted or moved
 * slot neither loses nor double-counts a row.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include "client/lib/sluice_int.h"
#include "common/sql/unparse.h"
#include "common/types/rollup.h"
#include "common/util/daemon.h"
#include "common/util/log.h"
#include "mnode.pb-c.h"
#include "stask_int.h"
#include "vnode.pb-c.h"

#define CKPT_FORMAT 3
#define CKPT_F_HISTORY_DONE 1u
#define RPC_TIMEOUT_MS 10000
#define READ_MAX_BYTES (4u << 20)

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static bool owns(const sl_stask *t, uint32_t slot)
{
    return slot < t->cfg.nslots && (t->c_slots[slot / 8] >> (slot % 8)) & 1;
}

size_t sl__st_group_keep_str(st_group *g, size_t used, sl_value *v)
{
    uint32_t len = v->v.s.len;
    if (used + len > sizeof(g->keybuf))
        len = (uint32_t)(sizeof(g->keybuf) - used);
    memcpy(g->keybuf + used, v->v.s.ptr, len);
    v->v.s.ptr = g->keybuf + used;
    v->v.s.len = len;
    return used + len;
}

void sl__st_error(sl_stask *t, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&t->mu);
    bool same = strcmp(t->st.error, msg) == 0;
    snprintf(t->st.error, sizeof(t->st.error), "%s", msg);
    pthread_mutex_unlock(&t->mu);
    if (!same)
        sl_log(SL_LOG_WARN, "snode", "stream %s.%s: %s", t->c_db, t->c_name, msg);
}

static void clear_error(sl_stask *t)
{
    pthread_mutex_lock(&t->mu);
    t->st.error[0] = '\0';
    pthread_mutex_unlock(&t->mu);
}

/* Clears the recorded error when it starts with prefix: the failure it reported is over;
 * other errors stay. */
static void clear_error_with(sl_stask *t, const char *prefix)
{
    pthread_mutex_lock(&t->mu);
    if (strncmp(t->st.error, prefix, strlen(prefix)) == 0)
        t->st.error[0] = '\0';
    pthread_mutex_unlock(&t->mu);
}

/* A read of vgroup vg succeeded (a vnode restarted, a connection came back). */
static void clear_read_error(sl_stask *t, uint32_t vg)
{
    char prefix[48];
    snprintf(prefix, sizeof(prefix), "reading vgroup %u: ", vg);
    clear_error_with(t, prefix);
}

/* A recovery (task_run) recomputes what a failed write or a computation that could not
 * reach a node lost. */
static void clear_output_error(sl_stask *t)
{
    clear_error_with(t, "output of group ");
    clear_error_with(t, "computation of group ");
}

/* Slot's checkpoint was stored (the mnode restarted, a connection came back). */
static void clear_ckpt_error(sl_stask *t, uint32_t slot)
{
    char prefix[48];
    snprintf(prefix, sizeof(prefix), "checkpoint of slot %u: ", slot);
    clear_error_with(t, prefix);
}

/* ---------------------------------------------------------------- group contexts */

/* Remembers (or updates) the context of group id: its table and encoded keys. */
static int gctx_put(sl_stask *t, uint64_t id, const char *table, const uint8_t *key,
                    uint32_t keylen)
{
    uint32_t idx;
    bool added = false;
    if (sl_keymap_get_or_add(&t->gmap, &id, sizeof(id), &idx, &added) < 0)
        return SL_ENOMEM;
    if (added) {
        if (t->ngctx == t->capgctx) {
            size_t cap = t->capgctx ? t->capgctx * 2 : 64;
            st_gctx *p = realloc(t->gctx, cap * sizeof(*p));
            if (p == NULL)
                return SL_ENOMEM; /* the id stays mapped to a missing entry: see gctx_get */
            t->gctx = p;
            t->capgctx = cap;
        }
        t->gctx[t->ngctx++] = (st_gctx){.id = id};
    }
    if (idx >= t->ngctx)
        return SL_ENOMEM;
    st_gctx *g = &t->gctx[idx];
    if (g->table != NULL && strcmp(g->table, table) == 0 && g->keylen == keylen &&
        (keylen == 0 || memcmp(g->key, key, keylen) == 0))
        return 0;
    char *tc = strdup(table);
    uint8_t *kc = malloc(keylen ? keylen : 1);
    if (tc == NULL || kc == NULL) {
        free(tc);
        free(kc);
        return SL_ENOMEM;
    }
    if (keylen > 0)
        memcpy(kc, key, keylen);
    free(g->table);
    free(g->key);
    g->table = tc;
    g->key = kc;
    g->keylen = keylen;
    return 0;
}

/* Decodes one canonical group key (sl_group_key_encode) into t->grp.keys. */
static void decode_keys(sl_stask *t, const uint8_t *p, uint32_t n)
{
    st_group *g = &t->grp;
    g->nkeys = 0;
    size_t used = 0;
    uint32_t at = 0;
    while (at < n && g->nkeys < ST_MAX_KEYS) {
        uint8_t type = p[at++];
        sl_value v = sl_value_null(SL_T_VARCHAR);
        uint64_t x = 0;
        if (type == 0) {
            g->keys[g->nkeys++] = v;
            continue;
        }
        if (type == SL_T_VARCHAR || type == SL_T_NCHAR) {
            if (at + 4 > n)
                break;
            uint32_t len = (uint32_t)p[at] | (uint32_t)p[at + 1] << 8 |
                           (uint32_t)p[at + 2] << 16 | (uint32_t)p[at + 3] << 24;
            at += 4;
            if (at + len > n || used + len > sizeof(g->keybuf))
                break;
            memcpy(g->keybuf + used, p + at, len);
            v = sl_value_str((sl_type)type, g->keybuf + used, len);
            used += len;
            at += len;
        } else {
            if (at + 8 > n)
                break;
            for (int j = 0; j < 8; j++)
                x |= (uint64_t)p[at + (uint32_t)j] << (8 * j);
            at += 8;
            sl_type ty = (sl_type)type;
            if (ty == SL_T_BOOL)
                v = sl_value_bool(x != 0);
            else if (ty == SL_T_FLOAT || ty == SL_T_DOUBLE) {
                double d;
                memcpy(&d, &x, 8);
                v = sl_value_double(ty, d);
            } else if (sl_type_is_unsigned_int(ty))
                v = sl_value_uint(ty, x);
            else
                v = sl_value_int(ty, (int64_t)x);
        }
        g->keys[g->nkeys++] = v;
    }
}

/* Makes t->grp the context of group id (for an event that came without rows). */
static void gctx_load(sl_stask *t, uint64_t id)
{
    if (t->grp.id == id && (t->grp.table[0] != '\0' || t->grp.nkeys > 0))
        return;
    memset(&t->grp, 0, sizeof(t->grp));
    t->grp.id = id;
    uint32_t idx;
    bool added = false;
    /* The map has no lookup without adding: an absent id gets an empty entry, so the
     * map's ids stay the indexes of gctx (an id left without an entry made the next
     * gctx_put fail - "out of memory remembering group" - or land on another group's
     * entry). An event of a group without rows so far (PERIOD's group 0) comes here. */
    if (sl_keymap_get_or_add(&t->gmap, &id, sizeof(id), &idx, &added) < 0)
        return;
    if (added) {
        if (t->ngctx == t->capgctx) {
            size_t cap = t->capgctx ? t->capgctx * 2 : 64;
            st_gctx *p = realloc(t->gctx, cap * sizeof(*p));
            if (p == NULL)
                return; /* the id stays mapped to a missing entry: gctx_put reports it */
            t->gctx = p;
            t->capgctx = cap;
        }
        t->gctx[t->ngctx++] = (st_gctx){.id = id};
    }
    if (idx >= t->ngctx)
        return;
    const st_gctx *g = &t->gctx[idx];
    if (g->table != NULL)
        snprintf(t->grp.table, sizeof(t->grp.table), "%s", g->table);
    decode_keys(t, g->key, g->keylen);
}

/* The slot whose checkpoint holds the context of group id: the group's slot, and for an
 * ungrouped stream's group 0 (engine_gid) the slot of the vnode's id for no keys. */
static uint32_t gctx_slot(const sl_stask *t, uint64_t id)
{
    if (t->nkeys == 0 && !t->rollup)
        id = sl_group_id(NULL, 0);
    return (uint32_t)(id % t->cfg.nslots);
}

static void gctx_free(sl_stask *t)
{
    for (size_t i = 0; i < t->ngctx; i++) {
        free(t->gctx[i].table);
        free(t->gctx[i].key);
    }
    free(t->gctx);
    t->gctx = NULL;
    t->ngctx = t->capgctx = 0;
    sl_keymap_fini(&t->gmap);
}

/* ---------------------------------------------------------------- mnode checkpoints */

static int ckpt_get(sl_stask *t, uint32_t slot, sl_buf *state, bool *found, uint64_t *epoch,
                    sl_error *err)
{
    Sluice__CheckpointGetRequest rq = SLUICE__CHECKPOINT_GET_REQUEST__INIT;
    rq.stream_id = t->cfg.stream_id;
    rq.slot = slot;
    uint8_t req[64];
    size_t n = sluice__checkpoint_get_request__pack(&rq, req);
    sl_buf rep;
    sl_buf_init(&rep);
    int rc = sl_rpc_call(t->mcli, SLUICE__MNODE_METHOD__MNODE_CHECKPOINT_GET, 0, req, n, &rep,
                         RPC_TIMEOUT_MS, err);
    *found = false;
    if (rc == 0) {
        Sluice__CheckpointGetReply *r = sluice__checkpoint_get_reply__unpack(NULL, rep.len, rep.data);
        if (r == NULL) {
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed CheckpointGetReply");
        } else {
            *found = r->found;
            *epoch = r->epoch;
            if (r->found)
                rc = sl_buf_put(state, r->state.data, r->state.len);
            sluice__checkpoint_get_reply__free_unpacked(r, NULL);
        }
    }
    sl_buf_fini(&rep);
    return rc;
}

/* Sends slot's checkpoint record (encoded by ckpt_encode just before, from the same cursor)
 * with the change-log versions it covers, t->cursor[i] per vgroup: the mnode lets the vnodes
 * trim what every stream's every slot has checkpointed (catalog.h, "Change-log retention"). */
/* Slots checkpointed by one MNODE_CHECKPOINT_PUT, at most (and about as many bytes). */
#define CKPT_PUT_SLOTS 256
#define CKPT_PUT_BYTES (4u << 20)

/* Checkpoint bytes per second a task writes to the mnode at most, over time: after a
 * round of B bytes the next waits B / CKPT_RATE seconds when that is longer than the
 * configured interval, up to CKPT_MAX_GAP_MS. A task with large state (a group keeps the
 * row log of its last hour, trigger.h) would otherwise rewrite all of it every second
 * while it catches up; the mnode's disk and CPU are shared with the writes. A longer gap
 * only means a restarted task re-reads more of the change log, which the vnodes keep
 * until every checkpoint has passed it. */
#define CKPT_RATE ((size_t)2 << 20)
#define CKPT_MAX_GAP_MS 30000

static int64_t ckpt_gap(const sl_stask *t, size_t bytes)
{
    int64_t ms = t->cfg.checkpoint_ms > 0 ? t->cfg.checkpoint_ms : 1000;
    int64_t by_size = (int64_t)(bytes / (CKPT_RATE / 1000));
    if (by_size > CKPT_MAX_GAP_MS)
        by_size = CKPT_MAX_GAP_MS;
    return by_size > ms ? by_size : ms;
}

/* Stores the checkpoints of slots[0..n) - slot slots[i]'s record is bytes [off[i],
 * off[i+1]) of all - in one MNODE_CHECKPOINT_PUT: one write on the mnode for all of them,
 * all or nothing. */
static int ckpt_put(sl_stask *t, const uint32_t *slots, const size_t *off, size_t n,
                    const sl_buf *all, sl_error *err)
{
    Sluice__CheckpointPutRequest rq = SLUICE__CHECKPOINT_PUT_REQUEST__INIT;
    rq.node_id = t->cfg.node_id;
    rq.stream_id = t->cfg.stream_id;
    rq.slot = slots[0];
    rq.state.data = all->data + off[0];
    rq.state.len = off[1] - off[0];
    size_t nvg = t->nvg > 0 ? (size_t)t->nvg : 0;
    Sluice__VgroupVersion *vv = calloc(nvg ? nvg : 1, sizeof(*vv));
    Sluice__VgroupVersion **vp = calloc(nvg ? nvg : 1, sizeof(*vp));
    Sluice__SlotState *ms = calloc(n, sizeof(*ms));
    Sluice__SlotState **mp = calloc(n, sizeof(*mp));
    if (vv == NULL || vp == NULL || ms == NULL || mp == NULL) {
        free(vv);
        free(vp);
        free(ms);
        free(mp);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < nvg; i++) {
        sluice__vgroup_version__init(&vv[i]);
        vv[i].vgroup_id = t->vg_ids[i];
        vv[i].version = t->cursor[i];
        vp[i] = &vv[i];
    }
    rq.n_versions = nvg;
    rq.versions = vp;
    for (size_t i = 1; i < n; i++) {
        sluice__slot_state__init(&ms[i]);
        ms[i].slot = slots[i];
        ms[i].state.data = all->data + off[i];
        ms[i].state.len = off[i + 1] - off[i];
        mp[i - 1] = &ms[i];
    }
    rq.n_more = n - 1;
    rq.more = mp;
    sl_buf req;
    sl_buf_init(&req);
    int rc = sl_buf_reserve(&req, sluice__checkpoint_put_request__get_packed_size(&rq));
    if (rc == 0)
        req.len = sluice__checkpoint_put_request__pack(&rq, req.data);
    free(vv);
    free(vp);
    free(ms);
    free(mp);
    if (rc < 0) {
        sl_buf_fini(&req);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    rc = sl_rpc_call(t->mcli, SLUICE__MNODE_METHOD__MNODE_CHECKPOINT_PUT, atomic_load(&t->epoch),
                     req.data, req.len, NULL, RPC_TIMEOUT_MS, err);
    sl_buf_fini(&req);
    return rc;
}

/* Encodes slot's checkpoint record. */
static int ckpt_encode(sl_stask *t, uint32_t slot, sl_buf *out, sl_error *err)
{
    int rc = sl_buf_put_u8(out, CKPT_FORMAT);
    if (rc == 0)
        rc = sl_buf_put_u32(out, (uint32_t)t->nvg);
    for (int i = 0; rc == 0 && i < t->nvg; i++) {
        rc = sl_buf_put_u32(out, t->vg_ids[i]);
        if (rc == 0)
            rc = sl_buf_put_u64(out, t->cursor[i]);
    }
    if (rc < 0)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    sl_buf eng;
    sl_buf_init(&eng);
    if (t->eng[slot] != NULL)
        rc = sl_trig_checkpoint(t->eng[slot], &eng, err);
    if (rc == 0 && eng.len > UINT32_MAX)
        rc = sl_error_set(err, SL_ELIMIT, 0, 0, "checkpoint of slot %u is too large", slot);
    if (rc == 0 && (sl_buf_put_u32(out, (uint32_t)eng.len) < 0 ||
                    sl_buf_put(out, eng.data, eng.len) < 0))
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    sl_buf_fini(&eng);
    /* The slot's group contexts. */
    uint32_t ng = 0;
    for (size_t i = 0; i < t->ngctx; i++)
        ng += gctx_slot(t, t->gctx[i].id) == slot;
    if (rc == 0 && sl_buf_put_u32(out, ng) < 0)
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    for (size_t i = 0; rc == 0 && i < t->ngctx; i++) {
        const st_gctx *g = &t->gctx[i];
        if (gctx_slot(t, g->id) != slot)
            continue;
        const char *tb = g->table ? g->table : "";
        uint32_t tl = (uint32_t)strlen(tb);
        if (sl_buf_put_u64(out, g->id) < 0 || sl_buf_put_u32(out, tl) < 0 ||
            sl_buf_put(out, tb, tl) < 0 || sl_buf_put_u32(out, g->keylen) < 0 ||
            sl_buf_put(out, g->key, g->keylen) < 0)
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    uint8_t flags = 0;
    if (t->hist_pending == NULL || !t->hist_pending[slot])
        flags |= CKPT_F_HISTORY_DONE;
    if (rc == 0 && sl_buf_put_u8(out, flags) < 0)
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    return rc;
}

/* Applies a checkpoint record to slot: versions, and the engine state. *hist_done tells
 * whether the record says the slot's history was processed. */
static int ckpt_apply(sl_stask *t, uint32_t slot, const uint8_t *p, size_t n, bool *hist_done,
                      sl_error *err)
{
    *hist_done = true;
    sl_reader r;
    sl_reader_init(&r, p, n);
    uint8_t ver;
    uint32_t nvg;
    if (sl_reader_u8(&r, &ver) < 0 || ver < 1 || ver > CKPT_FORMAT ||
        sl_reader_u32(&r, &nvg) < 0 || nvg > 65536)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "bad checkpoint of slot %u", slot);
    for (uint32_t k = 0; k < nvg; k++) {
        uint32_t id;
        uint64_t v;
        if (sl_reader_u32(&r, &id) < 0 || sl_reader_u64(&r, &v) < 0)
            return sl_error_set(err, SL_ECORRUPT, 0, 0, "bad checkpoint of slot %u", slot);
        for (int i = 0; i < t->nvg; i++)
            if (t->vg_ids[i] == id)
                t->slot_ver[(size_t)slot * (size_t)t->nvg + (size_t)i] = v;
    }
    uint32_t elen;
    const uint8_t *eng;
    if (sl_reader_u32(&r, &elen) < 0 || (eng = sl_reader_take(&r, elen)) == NULL)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "bad checkpoint of slot %u", slot);
    if (elen > 0) {
        if (t->eng[slot] == NULL) {
            sl_trig_opts o = {0};
            int rc = sl_trig_open(&t->eng[slot], t->def, &o, err);
            if (rc < 0)
                return rc;
        }
        int rc = sl_trig_restore(t->eng[slot], eng, elen, err);
        if (rc < 0)
            return rc;
    }
    if (ver < 2)
        return 0;
    uint32_t ng;
    if (sl_reader_u32(&r, &ng) < 0)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "bad checkpoint of slot %u", slot);
    for (uint32_t k = 0; k < ng; k++) {
        uint64_t id;
        uint32_t tl, kl;
        const uint8_t *tb, *key;
        char name[200];
        if (sl_reader_u64(&r, &id) < 0 || sl_reader_u32(&r, &tl) < 0 ||
            (tb = sl_reader_take(&r, tl)) == NULL || sl_reader_u32(&r, &kl) < 0 ||
            (key = sl_reader_take(&r, kl)) == NULL || tl >= sizeof(name))
            return sl_error_set(err, SL_ECORRUPT, 0, 0, "bad checkpoint of slot %u", slot);
        memcpy(name, tb, tl);
        name[tl] = '\0';
        if (gctx_put(t, id, name, key, kl) < 0)
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    if (ver < 3)
        return 0;
    uint8_t flags;
    if (sl_reader_u8(&r, &flags) < 0)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "bad checkpoint of slot %u", slot);
    *hist_done = (flags & CKPT_F_HISTORY_DONE) != 0;
    return 0;
}

/* Writes the checkpoint of every dirty owned slot (all of them when force). A refusal
 * for a stale epoch fences the task; the final checkpoint of a stopping task goes on with
 * the other slots (it may have lost some to another snode and kept the rest), unless the
 * mnode cannot be reached at all. */
/* The slots of a checkpoint round waiting to be put together (checkpoint_all). */
typedef struct ckpt_batch {
    uint32_t slots[CKPT_PUT_SLOTS];
    size_t off[CKPT_PUT_SLOTS + 1]; /* record i is [off[i], off[i+1]) of all */
    size_t n;
    sl_buf all;
} ckpt_batch;

/* The slots of b are on the mnode: clean, at the reader's versions. */
static void ckpt_done(sl_stask *t, const ckpt_batch *b, size_t i)
{
    uint32_t s = b->slots[i];
    t->dirty[s] = false;
    for (int v = 0; v < t->nvg; v++)
        t->slot_ver[(size_t)s * (size_t)t->nvg + (size_t)v] = t->cursor[v];
    clear_ckpt_error(t, s);
}

/* Puts the slots of b; false when the round must stop (fenced, or the mnode unreachable
 * outside a last checkpoint). A last checkpoint refused as a whole is tried slot by slot,
 * so that the slots still owned are recorded. */
static bool ckpt_flush(sl_stask *t, ckpt_batch *b, bool final)
{
    if (b->n == 0)
        return true;
    sl_error err;
    sl_error_clear(&err);
    int rc = ckpt_put(t, b->slots, b->off, b->n, &b->all, &err);
    bool go = true;
    if (rc == 0) {
        for (size_t i = 0; i < b->n; i++)
            ckpt_done(t, b, i);
    } else if (final && b->n > 1 && rc != SL_ETIMEOUT && rc != SL_EUNAVAILABLE) {
        for (size_t i = 0; i < b->n; i++) {
            sl_error_clear(&err);
            if (ckpt_put(t, &b->slots[i], &b->off[i], 1, &b->all, &err) == 0)
                ckpt_done(t, b, i);
            else
                sl__st_error(t, "checkpoint of slot %u: %s", b->slots[i], err.msg);
        }
    } else if (rc == SL_ESTALE) {
        pthread_mutex_lock(&t->mu);
        t->st.fenced = true;
        pthread_mutex_unlock(&t->mu);
        if (!final)
            sl__st_error(t, "fenced: %s", err.msg);
        go = final;
    } else {
        sl__st_error(t, "checkpoint of slot %u: %s", b->slots[0], err.msg);
        /* A last checkpoint goes on past a refused put, not past an mnode that cannot be
         * reached: every other slot would wait as long, and the task's stop (which holds
         * back its replacement and the node's drain) with them. */
        go = final && rc != SL_ETIMEOUT && rc != SL_EUNAVAILABLE;
    }
    b->n = 0;
    sl_buf_reset(&b->all);
    return go;
}

static void checkpoint_all(sl_stask *t, bool force, bool final)
{
    /* The events of the state about to be recorded must not be lost with a crash after
     * the checkpoint: the notifications reach the outbox first. */
    if (t->cfg.on_sync != NULL)
        t->cfg.on_sync(t->cfg.event_ud, t, false);
    ckpt_batch *b = malloc(sizeof(*b));
    if (b == NULL) {
        sl__st_error(t, "checkpoint: out of memory");
        return;
    }
    b->n = 0;
    sl_buf_init(&b->all);
    /* Now and then a clean slot is checkpointed too when the reader moved past what its
     * checkpoint covers (rows of other slots, filtered entries): its state is unchanged, and
     * the newer versions let the vnodes trim their change logs (catalog.h, "Change-log
     * retention"). Every 10th round, so idle slots cost little. */
    bool refresh = ++t->ckpt_rounds % 10 == 0;
    bool go = true;
    size_t bytes = 0; /* of this round, for the next gap */
    for (uint32_t s = 0; go && s < t->cfg.nslots; s++) {
        if (!owns(t, s) || (t->hist_pending != NULL && t->hist_pending[s]))
            continue; /* a slot whose history is pending has nothing to record yet */
        if (t->out_failed[s])
            continue; /* its state covers a result that was not written: never record it */
        bool behind = false;
        for (int i = 0; refresh && !behind && i < t->nvg; i++)
            behind = t->slot_ver[(size_t)s * (size_t)t->nvg + (size_t)i] < t->cursor[i];
        if (!force && !t->dirty[s] && !behind)
            continue;
        sl_error err;
        sl_error_clear(&err);
        size_t at = b->all.len;
        if (ckpt_encode(t, s, &b->all, &err) < 0) {
            sl__st_error(t, "checkpoint of slot %u: %s", s, err.msg);
            b->all.len = at;
            break;
        }
        b->slots[b->n] = s;
        b->off[b->n] = at;
        b->off[++b->n] = b->all.len;
        bytes += b->all.len - at;
        if (b->n == CKPT_PUT_SLOTS || b->all.len >= CKPT_PUT_BYTES)
            go = ckpt_flush(t, b, final);
    }
    if (go)
        ckpt_flush(t, b, final);
    sl_buf_fini(&b->all);
    free(b);
    t->last_ckpt_ms = wall_ms();
    t->ckpt_gap_ms = ckpt_gap(t, bytes);
}

/* ---------------------------------------------------------------- setup */

static int vnode_status(sl_stask *t, int i, uint64_t *last, sl_error *err)
{
    Sluice__StatusRequest rq = SLUICE__STATUS_REQUEST__INIT;
    rq.vgroup_id = t->vg_ids[i];
    uint8_t req[32];
    size_t n = sluice__status_request__pack(&rq, req);
    sl_buf rep;
    sl_buf_init(&rep);
    int rc = sl_rpc_call(t->vg_cli[i], SLUICE__VNODE_METHOD__VNODE_STATUS, 0, req, n, &rep,
                         RPC_TIMEOUT_MS, err);
    if (rc == 0) {
        Sluice__StatusReply *r = sluice__status_reply__unpack(NULL, rep.len, rep.data);
        if (r == NULL)
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed StatusReply");
        else {
            *last = r->last_version;
            sluice__status_reply__free_unpacked(r, NULL);
        }
    }
    sl_buf_fini(&rep);
    return rc;
}

/* The grouping of the stream as ChangesFilter group items. */
static int resolve_keys(sl_stask *t, sl_error *err)
{
    const sl_expr_list *pb = &t->cs->partition_by;
    if (pb->n > ST_MAX_KEYS)
        return sl_error_set(err, SL_ELIMIT, 0, 0, "at most %d PARTITION BY items", ST_MAX_KEYS);
    t->nkeys = 0;
    for (int i = 0; i < pb->n; i++) {
        const sl_expr *e = pb->items[i];
        if (e->kind != SL_EX_COLUMN)
            return sl_error_set(err, SL_EUNSUPPORTED, 0, 0,
                                "PARTITION BY item %d is not tbname or a tag", i + 1);
        if (strcasecmp(e->u.column.name, "tbname") == 0) {
            t->keys[t->nkeys++] = -1;
            continue;
        }
        int k = -1;
        for (int j = 0; j < t->trig.meta.ntags; j++)
            if (strcasecmp(t->trig.meta.tags[j].name, e->u.column.name) == 0)
                k = j;
        if (k < 0)
            return sl_error_set(err, SL_EUNSUPPORTED, 0, 0, "PARTITION BY '%s' is not a tag",
                                e->u.column.name);
        t->keys[t->nkeys++] = k;
    }
    if (t->cs->has_rollup) {
        /* ROLLUP BY: one tag key; the reader asks for rollup filtering (every prefix). */
        const sl_table_meta *m = &t->trig.meta;
        int k = -1;
        for (int j = 0; j < m->ntags; j++)
            if (strcasecmp(m->tags[j].name, t->cs->rollup_tag) == 0)
                k = j;
        if (m->kind != SL_TABLE_SUPER || k < 0 ||
            (m->tags[k].type != SL_T_VARCHAR && m->tags[k].type != SL_T_NCHAR))
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "ROLLUP BY '%s' is not a VARCHAR or NCHAR tag of super table %s",
                                t->cs->rollup_tag, t->trig_name);
        t->nkeys = 1;
        t->keys[0] = k;
        t->rollup = true;
        t->rollup_type = m->tags[k].type;
    }
    return 0;
}

static int setup(sl_stask *t, sl_error *err)
{
    int rc = sl_connect(t->c_host, t->cfg.mnode_port, &t->meta, err);
    if (rc == 0)
        rc = sl_connect(t->c_host, t->cfg.mnode_port, &t->run, err);
    if (rc == 0)
        rc = sl_connect(t->c_host, t->cfg.mnode_port, &t->ddl, err);
    if (rc < 0)
        return rc;
    sl__conn_set_background(t->run, true); /* the output is not client ingest */
    /* The output subtables it creates are written through t->run: their metadata, sent
     * with the CREATE's answer, goes to that connection's cache. */
    sl__conn_meta_to(t->ddl, t->run);
    sl_conn_set_epoch(t->run, atomic_load(&t->epoch));
    char url[300];
    snprintf(url, sizeof(url), "tcp://%s:%d", t->c_host, t->cfg.mnode_port);
    rc = sl_rpc_client_open(&t->mcli, url, NULL, err);
    if (rc < 0)
        return rc;
    /* Parsed once per task (teardown keeps it): the event hook may hold on to it. */
    if (t->pr == NULL && (rc = sl_parse(t->c_sql, strlen(t->c_sql), &t->pr, err)) < 0)
        return rc;
    if (t->pr->nstmts != 1 || t->pr->stmts[0]->kind != SL_STMT_CREATE_STREAM)
        return sl_error_set(err, SL_EINVAL, 0, 0, "not a CREATE STREAM statement");
    t->cs = &t->pr->stmts[0]->u.create_stream;
    const sl_create_stream *cs = t->cs;
    t->has_table = cs->has_from;
    if (t->has_table) {
        snprintf(t->trig_db, sizeof(t->trig_db), "%s",
                 cs->from.db ? cs->from.db : t->c_plan_db ? t->c_plan_db : t->c_db);
        snprintf(t->trig_name, sizeof(t->trig_name), "%s", cs->from.name);
        rc = sl_table_info_get(t->meta, t->trig_db, t->trig_name, &t->trig, err);
        if (rc < 0)
            return rc;
        t->prec = t->trig.meta.precision;
        rc = resolve_keys(t, err);
        if (rc < 0)
            return rc;
    } else {
        t->prec = SL_PREC_MS;
    }
    sl_trig_def_opts o = {.stream_id = t->cfg.stream_id,
                          .table = t->has_table ? &t->trig.meta : NULL,
                          .precision = t->prec,
                          .now = 0};
    rc = sl_trig_def_build(cs, &o, &t->def, err);
    if (rc < 0)
        return rc;
    /* FILL_HISTORY / FILL_HISTORY_FIRST: read by history_run() for the slots without a
     * checkpoint (PERIOD streams without a trigger table have no history). */
    t->hist_start = INT64_MIN;
    t->fill_first = false;
    t->fill_history =
        t->has_table && sl_trig_def_fill_history(t->def, &t->hist_start, &t->fill_first);
    /* PRE_FILTER as text, for %%trows (the rows that satisfied the trigger). */
    for (int i = 0; i < cs->nopts; i++) {
        if (cs->opts[i].kind != SL_SOPT_PRE_FILTER || cs->opts[i].expr == NULL)
            continue;
        sl_buf b;
        sl_buf_init(&b);
        rc = sl_unparse_expr(cs->opts[i].expr, NULL, &b, err);
        if (rc == 0 && (t->prefilter_sql = strndup((const char *)b.data, b.len)) == NULL)
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        sl_buf_fini(&b);
        if (rc < 0)
            return rc;
    }
    /* Output table. */
    t->grouped = cs->partition_by.n > 0 || cs->has_rollup;
    if (cs->has_into) {
        snprintf(t->out_db, sizeof(t->out_db), "%s", cs->into.db ? cs->into.db : t->c_db);
        snprintf(t->out_name, sizeof(t->out_name), "%s", cs->into.name);
    }
    /* Reader: every vgroup of the trigger table; the projection is every column, every
     * tag, then tbname (the engine's input layout). */
    size_t ns = t->cfg.nslots;
    t->eng = calloc(ns, sizeof(*t->eng));
    t->dirty = calloc(ns, sizeof(*t->dirty));
    t->out_failed = calloc(ns, sizeof(*t->out_failed));
    t->hist_pending = calloc(ns, sizeof(*t->hist_pending));
    if (t->eng == NULL || t->dirty == NULL || t->out_failed == NULL || t->hist_pending == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    if (t->has_table) {
        t->nvg = t->trig.nvgroups;
        t->nproj = t->trig.meta.ncols + t->trig.meta.ntags + 1;
        t->proj = calloc((size_t)t->nproj, sizeof(*t->proj));
        t->vg_ids = calloc((size_t)t->nvg, sizeof(*t->vg_ids));
        t->vg_cli = calloc((size_t)t->nvg, sizeof(*t->vg_cli));
        t->cursor = calloc((size_t)t->nvg, sizeof(*t->cursor));
        t->slot_ver = calloc(ns * (size_t)(t->nvg ? t->nvg : 1), sizeof(*t->slot_ver));
        if (!t->proj || !t->vg_ids || !t->vg_cli || !t->cursor || !t->slot_ver)
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        for (int i = 0; i < t->nproj - 1; i++)
            t->proj[i] = i;
        t->proj[t->nproj - 1] = SL_PROJ_TBNAME;
        for (int i = 0; i < t->nvg; i++) {
            t->vg_ids[i] = t->trig.vgroup_ids[i];
            sl_rpc_limits lim;
            sl_rpc_limits_default(&lim);
            lim.request_timeout_ms = RPC_TIMEOUT_MS + 5000;
            rc = sl_rpc_client_open(&t->vg_cli[i], t->trig.vnode_addrs[i], &lim, err);
            if (rc < 0)
                return rc;
        }
    } else {
        t->slot_ver = calloc(ns, sizeof(*t->slot_ver));
        if (t->slot_ver == NULL)
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    /* Restore the owned slots; a slot without a checkpoint starts at the log's end. */
    uint64_t *end = calloc((size_t)(t->nvg ? t->nvg : 1), sizeof(*end));
    if (end == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    for (int i = 0; rc == 0 && i < t->nvg; i++)
        rc = vnode_status(t, i, &end[i], err);
    bool first = true;
    for (uint32_t s = 0; rc == 0 && s < t->cfg.nslots; s++) {
        if (atomic_load(&t->stop)) { /* asked to stop while setting up: give up at once */
            rc = sl_error_set(err, SL_ESTATE, 0, 0, "stopped during setup");
            break;
        }
        if (!owns(t, s))
            continue;
        sl_buf st;
        sl_buf_init(&st);
        bool found = false, hist_done = true;
        uint64_t cepoch = 0;
        rc = ckpt_get(t, s, &st, &found, &cepoch, err);
        if (rc == 0 && found)
            rc = ckpt_apply(t, s, st.data, st.len, &hist_done, err);
        sl_buf_fini(&st);
        /* A slot starting for the first time reads its history first (history_run); its
         * versions become the history snapshot's then. A record saying the history was not
         * done (not written by this code) starts the slot over. */
        bool hist = rc == 0 && t->fill_history && (!found || !hist_done);
        if (hist && found) {
            sl_trig_close(t->eng[s]);
            t->eng[s] = NULL;
        }
        t->hist_pending[s] = hist;
        for (int i = 0; rc == 0 && i < t->nvg; i++) {
            uint64_t *v = &t->slot_ver[(size_t)s * (size_t)t->nvg + (size_t)i];
            if (!found || hist || cepoch < t->cfg.ignore_untreated_epoch)
                *v = end[i];
            /* The reader starts at the oldest version any owned slot still needs. */
            if (first || *v < t->cursor[i])
                t->cursor[i] = *v;
        }
        if (!found || cepoch < t->cfg.ignore_untreated_epoch)
            t->dirty[s] = true; /* record the starting point at once */
        first = false;
    }
    free(end);
    if (rc < 0)
        return rc;
    sl__st_rows_setup(t); /* after the positions: its covers start above what they skip */
    checkpoint_all(t, false, false);
    sl__st_create_outputs(t); /* NODELAY_CREATE_SUBTABLE (srun.c) */
    return 0;
}

/* ---------------------------------------------------------------- feeding */

static int sink_emit(void *ud, const sl_trig_event *ev)
{
    sl_stask *t = ud;
    gctx_load(t, ev->group_id); /* events of ticks come without a current entry */
    sl__st_process_event(t, ev);
    pthread_mutex_lock(&t->mu);
    t->st.events++;
    pthread_mutex_unlock(&t->mu);
    return 0;
}

static sl_trig *engine(sl_stask *t, uint32_t slot, sl_error *err)
{
    if (t->eng[slot] == NULL) {
        sl_trig_opts o = {0};
        if (sl_trig_open(&t->eng[slot], t->def, &o, err) < 0)
            return NULL;
    }
    return t->eng[slot];
}

/*
 * The engine's id of the group whose rows the vnode delivered under `gid`. Without
 * PARTITION BY / ROLLUP BY the vnode's ChangesFilter (and the history read) give every
 * row sl_group_id over zero keys, which also picks the slot; the engine, though, has one
 * group with id 0 from the start (docs/triggers.md rule 9, def->single_group). Feeding the
 * rows under the vnode's id made a second group next to 0: two groups per ungrouped
 * stream (ins_snodes.groups one too high) and two ON_TIMEs per PERIOD point.
 */
static uint64_t engine_gid(const sl_stask *t, uint64_t gid)
{
    return t->nkeys == 0 && !t->rollup ? 0 : gid;
}

void sl__st_group_path(sl_stask *t, const char *table, const char *path, uint32_t len)
{
    st_group *g = &t->grp;
    g->id = sl_rollup_group_id(t->rollup_type, path, len);
    snprintf(g->table, sizeof(g->table), "%s", table);
    g->keys[0] = sl_value_str(t->rollup_type, path, len);
    sl__st_group_keep_str(g, 0, &g->keys[0]);
    g->nkeys = 1;
}

/* Remembers the context of t->grp (for events without rows and the checkpoint). */
static void group_remember(sl_stask *t)
{
    st_group *g = &t->grp;
    sl_buf kb;
    sl_buf_init(&kb);
    if (sl_group_key_encode(g->keys, g->nkeys, &kb) < 0 ||
        gctx_put(t, g->id, g->table, kb.data, (uint32_t)kb.len) < 0)
        sl__st_error(t, "out of memory remembering group %" PRIu64, g->id);
    sl_buf_fini(&kb);
}

/*
 * ROLLUP BY: cuts path value v of table `table` into its prefixes: ends[i] is the length of
 * prefix i of v's bytes. Returns the number of prefixes, 0 when the table has no group
 * (NULL or empty path) or its path is invalid - recorded in the status, the spec's error
 * state: its rows are left out, the other tables go on.
 */
static int rollup_cut(sl_stask *t, const char *table, const sl_value *v,
                      uint32_t ends[SL_ROLLUP_MAX_DEPTH])
{
    if (v->is_null || !sl_type_is_var(v->type) || v->v.s.len == 0)
        return 0; /* spec: no rollup group, no trigger, no computation */
    const char *why = "longer than 4096 bytes";
    int n = v->v.s.len > sizeof(t->grp.keybuf)
                ? SL_EINVAL
                : sl_rollup_prefixes(v->v.s.ptr, v->v.s.len, ends, &why);
    if (n < 0) {
        sl__st_error(t, "ROLLUP BY: table %s has an invalid path '%.*s': %s", table,
                     (int)(v->v.s.len < 64 ? v->v.s.len : 64), v->v.s.ptr, why);
        return 0;
    }
    return n;
}

/* ROLLUP BY: the path of table `table`: from the first row of its rows b (the engine's
 * input layout), or, without rows (a delete), from the catalog, copied into buf. */
static sl_value rollup_value(sl_stask *t, const char *table, const sl_block *b, char *buf,
                             size_t bufn)
{
    int col = t->trig.meta.ncols + t->keys[0];
    sl_value v = sl_value_null(t->rollup_type);
    if (b != NULL) {
        if (b->nrows > 0 && col < (int)b->ncols)
            sl_column_get(&b->cols[col], 0, &v);
        return v;
    }
    sl_table_info ti;
    sl_error err;
    sl_error_clear(&err);
    if (sl_table_info_get(t->meta, t->trig_db, table, &ti, &err) < 0) {
        sl__st_error(t, "ROLLUP BY: the path of table %s: %s", table, err.msg);
        return v;
    }
    if (ti.tagvals != NULL && ti.tagvals->nrows > 0 && t->keys[0] < (int)ti.tagvals->ncols)
        sl_column_get(&ti.tagvals->cols[t->keys[0]], 0, &v);
    if (!v.is_null && sl_type_is_var(v.type) && v.v.s.len <= bufn) {
        /* The cache's bytes may move at the next lookup: keep a copy (a longer path is
         * refused by rollup_cut, which reads it before any other lookup). */
        memcpy(buf, v.v.s.ptr, v.v.s.len);
        v.v.s.ptr = buf;
    }
    return v;
}

/* Fills t->grp for rows of one table of group gid: the table and the group key values
 * (taken from the first row: tags and tbname are constant per table). ROLLUP BY: the key
 * is the prefix of the table's path whose group is gid. */
static void set_group_rows(sl_stask *t, uint64_t gid, const char *table, const sl_block *b)
{
    st_group *g = &t->grp;
    if (t->rollup) {
        uint32_t ends[SL_ROLLUP_MAX_DEPTH];
        sl_value v = b != NULL ? rollup_value(t, table, b, NULL, 0)
                               : sl_value_null(t->rollup_type);
        int np = rollup_cut(t, table, &v, ends);
        memset(g, 0, sizeof(*g));
        for (int i = 0; i < np; i++)
            if (sl_rollup_group_id(t->rollup_type, v.v.s.ptr, ends[i]) == gid)
                sl__st_group_path(t, table, v.v.s.ptr, ends[i]);
        if (g->nkeys == 0) { /* not a prefix of the table's path (cannot happen) */
            g->id = gid;
            snprintf(g->table, sizeof(g->table), "%s", table);
            g->keys[g->nkeys++] = sl_value_null(t->rollup_type);
        }
        group_remember(t);
        return;
    }
    g->id = gid;
    snprintf(g->table, sizeof(g->table), "%s", table);
    g->nkeys = 0;
    size_t used = 0;
    int ncols = t->trig.meta.ncols;
    for (int k = 0; k < t->nkeys; k++) {
        int col = t->keys[k] < 0 ? t->nproj - 1 : ncols + t->keys[k];
        sl_value v = sl_value_null(SL_T_VARCHAR);
        if (b != NULL && b->nrows > 0 && col < (int)b->ncols)
            sl_column_get(&b->cols[col], 0, &v);
        else if (t->keys[k] < 0)
            v = sl_value_str(SL_T_VARCHAR, g->table, (uint32_t)strlen(g->table));
        if (!v.is_null && (v.type == SL_T_VARCHAR || v.type == SL_T_NCHAR))
            used = sl__st_group_keep_str(g, used, &v);
        g->keys[g->nkeys++] = v;
    }
    group_remember(t);
}

/* Fills t->grp for the rows of one change entry. */
static void set_group(sl_stask *t, const Sluice__Change *c, const sl_block *b)
{
    set_group_rows(t, engine_gid(t, c->group_id), c->table_name ? c->table_name : "", b);
}

static int64_t to_ms(sl_precision p, int64_t ts)
{
    return p == SL_PREC_NS ? ts / 1000000 : p == SL_PREC_US ? ts / 1000 : ts;
}

/*
 * DELETE_RECALC: child table `table` was dropped (change kind 3) - spec: a dropped child
 * table is a deletion of its rows. Its rows leave every group of the task they are in,
 * here those in `gids` (n), or every group the task knows when gids is NULL (ROLLUP BY:
 * the dropped table's path can no longer be looked up, and only the nodes of its path hold
 * rows of it); the engine recomputes the windows that held them (a no-op without
 * DELETE_RECALC).
 */
static void drop_table_rows(sl_stask *t, const char *table, const uint64_t *gids, size_t n)
{
    sl_trig_sink sink = {.emit = sink_emit, .ud = t};
    size_t count = gids != NULL ? n : t->ngctx;
    uint32_t len = (uint32_t)strlen(table);
    for (size_t i = 0; i < count; i++) {
        uint64_t gid = gids != NULL ? gids[i] : t->gctx[i].id;
        uint32_t slot = (uint32_t)(gid % t->cfg.nslots);
        if (!owns(t, slot) || t->eng[slot] == NULL)
            continue;
        sl_error err;
        sl_error_clear(&err);
        if (sl_trig_delete_table_range(t->eng[slot], gid, table, len, INT64_MIN, INT64_MAX,
                                       &sink, &err) < 0)
            sl__st_error(t, "dropped table %s: %s", table, err.msg);
        t->dirty[slot] = true;
    }
}

/*
 * ROLLUP BY: feeds change c of one child table to every prefix group of the table's path
 * whose slot the task owns (the vnode sent it because at least one is), each to the engine
 * of its slot and only past that slot's checkpointed version. A delete reaches every such
 * group; a dropped table changes no group (output subtables of rollup nodes stay, spec).
 */
static void feed_rollup(sl_stask *t, int vgi, const Sluice__Change *c)
{
    if (c->kind == 3 && c->table_name != NULL) {
        drop_table_rows(t, c->table_name, NULL, 0);
        return;
    }
    if (c->kind != 1 && c->kind != 2)
        return;
    const char *table = c->table_name ? c->table_name : "";
    sl_error err;
    sl_error_clear(&err);
    sl_block b;
    sl_block_init(&b);
    uint8_t *kinds = NULL;
    uint64_t *vers = NULL;
    uint32_t n = 0;
    if (c->kind == 1) {
        if (sl_block_decode(c->block.data, c->block.len, &b, &err) < 0 || b.ncols < 2) {
            sl__st_error(t, "bad change block: %s", err.msg);
            sl_block_fini(&b);
            return;
        }
        n = b.nrows;
        kinds = malloc(n ? n : 1);
        vers = malloc((n ? n : 1) * sizeof(*vers));
        if (kinds == NULL || vers == NULL) {
            sl__st_error(t, "out of memory");
            goto done;
        }
    }
    sl_block view = b;
    view.ncols = b.ncols ? b.ncols - 1 : 0; /* the last column is the per-row kind */
    int64_t newest = INT64_MIN;
    for (uint32_t r = 0; r < n; r++) {
        kinds[r] = sl_column_get_i64(&b.cols[b.ncols - 1], r) == 2 ? SL_TRIG_ROW_UPDATE
                                                                   : SL_TRIG_ROW_INSERT;
        vers[r] = c->version;
        int64_t ts = sl_column_get_i64(&b.cols[0], r);
        if (ts > newest)
            newest = ts;
    }
    char buf[sizeof(t->grp.keybuf)];
    uint32_t ends[SL_ROLLUP_MAX_DEPTH];
    sl_value pv = rollup_value(t, table, c->kind == 1 ? &view : NULL, buf, sizeof(buf));
    int np = rollup_cut(t, table, &pv, ends);
    const char *path = pv.v.s.ptr;
    sl_trig_sink sink = {.emit = sink_emit, .ud = t};
    bool fed = false;
    for (int i = 0; i < np; i++) { /* every prefix group: a change is fed whole */
        uint64_t gid = sl_rollup_group_id(t->rollup_type, path, ends[i]);
        uint32_t slot = (uint32_t)(gid % t->cfg.nslots);
        if (!owns(t, slot) ||
            c->version <= t->slot_ver[(size_t)slot * (size_t)t->nvg + (size_t)vgi])
            continue;
        sl_trig *e = engine(t, slot, &err);
        if (e == NULL) {
            sl__st_error(t, "cannot open the trigger engine: %s", err.msg);
            break;
        }
        t->dirty[slot] = true;
        fed = true;
        sl__st_group_path(t, table, path, ends[i]);
        group_remember(t);
        sl_error_clear(&err);
        if (c->kind == 2) {
            if (sl_trig_delete_table_range(e, gid, table, (uint32_t)strlen(table), c->ts_lo,
                                           c->ts_hi, &sink, &err) < 0)
                sl__st_error(t, "delete: %s", err.msg);
            continue;
        }
        sl_trig_input in = {.group_id = gid, .rows = &view, .kinds = kinds, .versions = vers};
        if (sl_trig_feed(e, &in, &sink, &err) < 0)
            sl__st_error(t, "trigger: %s", err.msg);
    }
    if (c->kind == 1 && fed) {
        pthread_mutex_lock(&t->mu);
        t->st.rows += n;
        if (n > 0)
            t->st.lag_ms = wall_ms() - to_ms(t->prec, newest);
        pthread_mutex_unlock(&t->mu);
    }
done:
    free(kinds);
    free(vers);
    sl_block_fini(&b);
}

static void feed_change(sl_stask *t, int vgi, const Sluice__Change *c)
{
    if (t->rollup) {
        feed_rollup(t, vgi, c);
        return;
    }
    uint32_t slot = (uint32_t)(c->group_id % t->cfg.nslots) /* as mnode/placement.h */;
    if (!owns(t, slot) || c->version <= t->slot_ver[(size_t)slot * (size_t)t->nvg + (size_t)vgi])
        return;
    sl_error err;
    sl_error_clear(&err);
    sl_trig *e = engine(t, slot, &err);
    if (e == NULL) {
        sl__st_error(t, "cannot open the trigger engine: %s", err.msg);
        return;
    }
    sl_trig_sink sink = {.emit = sink_emit, .ud = t};
    t->dirty[slot] = true;
    if (c->kind == 2) { /* delete range */
        set_group(t, c, NULL);
        sl__st_rows_delete(t, t->grp.id, c->ts_lo, c->ts_hi);
        const char *tb = c->table_name != NULL ? c->table_name : "";
        if (sl_trig_delete_table_range(e, t->grp.id, tb, (uint32_t)strlen(tb), c->ts_lo,
                                       c->ts_hi, &sink, &err) < 0)
            sl__st_error(t, "delete: %s", err.msg);
        return;
    }
    if (c->kind == 3) { /* a dropped child table: DELETE_OUTPUT_TABLE (srun.c) */
        uint64_t gid = engine_gid(t, c->group_id);
        sl__st_rows_dropped(t, gid);
        /* A group of that table alone has nothing left to recompute (its output subtable
         * goes with DELETE_OUTPUT_TABLE); a group spanning tables loses its rows. */
        bool by_table = false;
        for (int k = 0; k < t->nkeys; k++)
            by_table |= t->keys[k] < 0;
        if (!by_table && c->table_name != NULL && t->trig.meta.kind == SL_TABLE_SUPER)
            drop_table_rows(t, c->table_name, &gid, 1);
        sl__st_table_dropped(t, c->table_name, c->group_id);
        return;
    }
    if (c->kind != 1)
        return;
    sl_block b;
    sl_block_init(&b);
    if (sl_block_decode(c->block.data, c->block.len, &b, &err) < 0 || b.ncols < 2) {
        sl__st_error(t, "bad change block: %s", err.msg);
        sl_block_fini(&b);
        return;
    }
    /* The last column is the per-row kind (1 insert, 2 update). */
    uint32_t n = b.nrows;
    uint8_t *kinds = malloc(n ? n : 1);
    uint64_t *vers = malloc((n ? n : 1) * sizeof(*vers));
    if (kinds == NULL || vers == NULL) {
        sl__st_error(t, "out of memory");
    } else {
        const sl_column *kc = &b.cols[b.ncols - 1];
        int64_t newest = INT64_MIN;
        for (uint32_t r = 0; r < n; r++) {
            kinds[r] = sl_column_get_i64(kc, r) == 2 ? SL_TRIG_ROW_UPDATE : SL_TRIG_ROW_INSERT;
            vers[r] = c->version;
            int64_t ts = sl_column_get_i64(&b.cols[0], r);
            if (ts > newest)
                newest = ts;
        }
        sl_block view = b;
        view.ncols = b.ncols - 1;
        set_group(t, c, &view);
        sl__st_rows_add(t, t->grp.id, &view, kinds); /* before the events it may serve */
        sl_trig_input in = {.group_id = t->grp.id, .rows = &view, .kinds = kinds, .versions = vers};
        if (sl_trig_feed(e, &in, &sink, &err) < 0)
            sl__st_error(t, "trigger: %s", err.msg);
        pthread_mutex_lock(&t->mu);
        t->st.rows += n;
        if (n > 0)
            t->st.lag_ms = wall_ms() - to_ms(t->prec, newest);
        pthread_mutex_unlock(&t->mu);
    }
    free(kinds);
    free(vers);
    sl_block_fini(&b);
}

/* The filtered change-log request of vgroup i after its cursor into req (packed). */
static int changes_request(sl_stask *t, int i, int wait_ms, sl_buf *req)
{
    Sluice__ChangesFilter f = SLUICE__CHANGES_FILTER__INIT;
    f.table_uid = t->trig.uid;
    f.n_group_items = (size_t)t->nkeys;
    f.group_items = t->keys;
    f.nslots = t->cfg.nslots;
    f.slots.data = t->c_slots;
    f.slots.len = (t->cfg.nslots + 7) / 8;
    f.n_proj = (size_t)t->nproj;
    f.proj = t->proj;
    f.pre_filter = t->prefilter_sql ? t->prefilter_sql : "";
    f.rollup = t->rollup;
    Sluice__ChangesRequest rq = SLUICE__CHANGES_REQUEST__INIT;
    rq.vgroup_id = t->vg_ids[i];
    rq.after_version = t->cursor[i];
    rq.max_bytes = READ_MAX_BYTES;
    rq.max_entries = 4096;
    rq.wait_ms = (uint32_t)wait_ms;
    rq.filter = &f;
    rq.yielding = t->yielding;
    sl_buf_reset(req);
    int rc = sl_buf_reserve(req, sluice__changes_request__get_packed_size(&rq));
    if (rc == 0)
        req->len = sluice__changes_request__pack(&rq, req->data);
    return rc;
}

/* Feeds the changes of reply rep (rc: the call's result, err its message) of vgroup i;
 * *heavy: the reply says the vgroup's client writes are heavy. Returns the number of
 * changes (1 when the reply says there is more), or < 0. */
static int changes_reply(sl_stask *t, int i, int rc, const uint8_t *rep, size_t replen,
                         sl_error *err, bool *heavy)
{
    int nch = 0;
    *heavy = false;
    if (rc == 0) {
        Sluice__ChangesReply *r = sluice__changes_reply__unpack(NULL, replen, rep);
        if (r == NULL) {
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed ChangesReply");
        } else {
            clear_read_error(t, t->vg_ids[i]);
            if (r->first_retained_version > t->cursor[i] + 1)
                sl__st_error(t, "vgroup %u dropped change-log entries %" PRIu64 "..%" PRIu64
                             " before this stream read them",
                             t->vg_ids[i], t->cursor[i] + 1, r->first_retained_version - 1);
            /* Every change of the reply, also when asked to stop: the cursor moves past
             * all of them, and a final checkpoint must not cover a change not fed. */
            for (size_t k = 0; k < r->n_changes; k++)
                feed_change(t, i, r->changes[k]);
            nch = (int)r->n_changes;
            *heavy = r->writes_heavy;
            if (r->last_version > t->cursor[i])
                t->cursor[i] = r->last_version;
            if (r->more && nch == 0)
                nch = 1; /* ask again at once */
            sluice__changes_reply__free_unpacked(r, NULL);
        }
    }
    if (rc < 0 && rc != SL_ETIMEOUT)
        sl__st_error(t, "reading vgroup %u: %s", t->vg_ids[i], err->msg);
    return rc < 0 ? rc : nch;
}

/*
 * The live reader: one long poll per vgroup always in flight, all at once, each answered
 * as soon as its vgroup has changes past the cursor (or after the wait). Polling the
 * vgroups one after the other made a row wait for the polls of the vgroups before its own
 * to time out - up to (vgroups - 1) x wait/vgroups, 75 ms with 4 vgroups - before it was
 * even read: most of a LOW_LATENCY_CALC result's latency. The calls run on a loop of the
 * task's own (sl_rpc_call_async); their replies are fed on this thread after the loop
 * returns, in arrival order per vgroup, so the engines see what the sequential reader
 * fed. Only the live phase polls this way: setup and history use blocking calls, with no
 * poll in flight.
 */
typedef struct st_poll {
    sl_stask *t;
    int vg;
    bool inflight;  /* a call is out */
    bool done;      /* its reply (or error) waits to be fed */
    int64_t retry_ms; /* after a failed poll: not again before this wall time */
    bool probe;     /* the last poll failed: the next one asks without waiting, so that
                     * the vgroup's read error clears as soon as it answers again */
    bool heavy;     /* its last reply said the vgroup's client writes are heavy */
    int rc;
    sl_buf rep;
    sl_error err;
} st_poll;

static void poll_done(void *ud, int rc, const void *reply, size_t len, const sl_error *err)
{
    st_poll *p = ud;
    p->inflight = false;
    p->done = true;
    p->rc = rc;
    sl_error_clear(&p->err);
    sl_buf_reset(&p->rep);
    if (rc == 0 && len > 0 && sl_buf_put(&p->rep, reply, len) < 0)
        p->rc = sl_error_set(&p->err, SL_ENOMEM, 0, 0, "out of memory");
    else if (rc < 0 && err != NULL)
        p->err = *err;
}

/* Starts the poll of p's vgroup after its cursor. Returns 0, or < 0 when the call could
 * not start (a client closing, out of memory): nothing is in flight then. */
static int poll_start(sl_stask *t, st_poll *p, uv_loop_t *loop, int wait_ms)
{
    sl_buf req;
    sl_buf_init(&req);
    int rc = changes_request(t, p->vg, wait_ms, &req);
    if (rc == 0)
        rc = sl_rpc_call_async(t->vg_cli[p->vg], loop, SLUICE__VNODE_METHOD__VNODE_CHANGES, 0,
                               req.data, req.len, RPC_TIMEOUT_MS + wait_ms, poll_done, p);
    sl_buf_fini(&req);
    if (rc == 0) {
        p->inflight = true;
        p->done = false;
    }
    return rc;
}

static void tick_all(sl_stask *t)
{
    sl_trig_sink sink = {.emit = sink_emit, .ud = t};
    uint64_t groups = 0;
    for (uint32_t s = 0; s < t->cfg.nslots; s++) {
        sl_trig *e = t->eng[s];
        if (e == NULL)
            continue;
        groups += sl_trig_groups(e);
        /* The clock is read after sl_trig_next_tick_ns: for a due PERIOD point it answers
         * "now" by its own reading of the monotonic clock, which is always later than a
         * reading taken before the call - PERIOD streams never fired. */
        int64_t next = sl_trig_next_tick_ns(e);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        if (next > now)
            continue;
        memset(&t->grp, 0, sizeof(t->grp));
        sl_error err;
        sl_error_clear(&err);
        if (sl_trig_tick(e, &sink, &err) < 0)
            sl__st_error(t, "tick: %s", err.msg);
        t->dirty[s] = true;
    }
    pthread_mutex_lock(&t->mu);
    t->st.groups = groups;
    pthread_mutex_unlock(&t->mu);
}

/* A PERIOD stream without grouping - with or without a trigger table - has one group from
 * the start (docs/triggers.md rule 9): its slot's owner opens the engine at once, so the
 * stream ticks before (or without) any row. Grouped streams' engines open with their
 * first rows. */
static void ensure_period_engine(sl_stask *t)
{
    if (t->def == NULL || sl_trig_def_kind(t->def) != SL_TRIG_PERIOD || t->nkeys != 0 || t->rollup)
        return;
    uint64_t gid = sl_group_id(NULL, 0);
    uint32_t slot = (uint32_t)(gid % t->cfg.nslots);
    if (!owns(t, slot) || t->eng[slot] != NULL)
        return;
    sl_error err;
    sl_error_clear(&err);
    if (engine(t, slot, &err) == NULL)
        sl__st_error(t, "cannot open the trigger engine: %s", err.msg);
}

/* ---------------------------------------------------------------- history */

/* FILL_HISTORY / FILL_HISTORY_FIRST (docs/streams.md, "History"). The slots marked
 * hist_pending (first start, no checkpoint) get the rows already stored in the trigger
 * table with ts >= start: per vgroup one VNODE_QUERY (one vstore snapshot, paged by its
 * cursor) of every column, every tag and tbname - the engine's input layout - with
 * PRE_FILTER. The reply's snapshot version V says which change-log entries the history
 * holds: those slots continue the live change log after V (slot_ver = V), so no row is
 * missed or counted twice. Rows are fed per group in ts order with in.history set. */

#ifndef HIST_PAGE_BYTES /* (overridable for tests of the paging) */
#define HIST_PAGE_BYTES (4u << 20)
#endif
/* Rows of groups spanning several tables are sorted across the whole history before they
 * are fed; past this many bytes they are fed in parts (see docs/streams.md). */
#define HIST_MAX_BYTES ((size_t)256 << 20)

typedef struct hist_row {
    uint64_t gid;
    int64_t ts;
    uint32_t blk, row;
} hist_row;

typedef struct hist_buf {
    sl_block **blks;
    int *blk_vg;           /* vgroup index of each block */
    size_t nblk, capblk;
    hist_row *rows;
    size_t nrows, caprows;
    size_t bytes;
    bool warned;
} hist_buf;

static void hist_clear(hist_buf *h)
{
    for (size_t i = 0; i < h->nblk; i++)
        sl_block_free(h->blks[i]);
    h->nblk = 0;
    h->nrows = 0;
    h->bytes = 0;
}

static void hist_free(hist_buf *h)
{
    hist_clear(h);
    free(h->blks);
    free(h->blk_vg);
    free(h->rows);
    memset(h, 0, sizeof(*h));
}

int sl__st_put_ident(sl_buf *b, const char *name)
{
    int rc = sl_buf_put(b, "`", 1);
    for (const char *p = name; rc == 0 && *p; p++)
        rc = *p == '`' ? sl_buf_put(b, "``", 2) : sl_buf_put(b, p, 1);
    if (rc == 0)
        rc = sl_buf_put(b, "`", 1);
    return rc;
}

/* The history SELECT (NUL-terminated in out). */
static int hist_sql(sl_stask *t, sl_buf *out, sl_error *err)
{
    const sl_table_meta *m = &t->trig.meta;
    int rc = sl_buf_printf(out, "SELECT ");
    for (int i = 0; rc == 0 && i < m->ncols; i++) {
        rc = sl__st_put_ident(out, m->cols[i].name);
        if (rc == 0)
            rc = sl_buf_printf(out, ", ");
    }
    for (int i = 0; rc == 0 && i < m->ntags; i++) {
        rc = sl__st_put_ident(out, m->tags[i].name);
        if (rc == 0)
            rc = sl_buf_printf(out, ", ");
    }
    if (rc == 0)
        rc = sl_buf_printf(out, "tbname FROM ");
    if (rc == 0)
        rc = sl__st_put_ident(out, t->trig_db);
    if (rc == 0)
        rc = sl_buf_printf(out, ".");
    if (rc == 0)
        rc = sl__st_put_ident(out, t->trig_name);
    bool where = false;
    if (rc == 0 && t->hist_start != INT64_MIN) {
        rc = sl_buf_printf(out, " WHERE ");
        if (rc == 0)
            rc = sl__st_put_ident(out, m->cols[0].name);
        if (rc == 0)
            rc = sl_buf_printf(out, " >= CAST(%" PRId64 " AS TIMESTAMP)", t->hist_start);
        where = true;
    }
    if (rc == 0 && t->prefilter_sql != NULL)
        rc = sl_buf_printf(out, " %s (%s)", where ? "AND" : "WHERE", t->prefilter_sql);
    if (rc == 0)
        rc = sl_buf_put_u8(out, 0);
    return rc < 0 ? sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory") : 0;
}

/* Takes block b (owned) of vgroup vgi: indexes its rows of the pending slots' groups. */
static int hist_add_block(sl_stask *t, hist_buf *h, sl_block *b, int vgi, sl_error *err)
{
    if ((int)b->ncols != t->nproj) {
        int n = (int)b->ncols;
        sl_block_free(b);
        return sl_error_set(err, SL_ECORRUPT, 0, 0,
                            "history block of vgroup %u has %d columns, expected %d",
                            t->vg_ids[vgi], n, t->nproj);
    }
    const sl_column *tbc = &b->cols[t->nproj - 1];
    int ncols = t->trig.meta.ncols;
    const char *prev = NULL;
    uint32_t prevlen = 0;
    /* The kept groups of the current table: one, or (ROLLUP BY) its owned prefixes. */
    uint64_t gids[SL_ROLLUP_MAX_DEPTH];
    int ngids = 0;
    size_t kept = 0;
    for (uint32_t r = 0; r < b->nrows; r++) {
        uint32_t len = 0;
        const char *name = sl_column_get_str(tbc, r, &len);
        if (name == NULL)
            name = "", len = 0;
        if (prev == NULL || len != prevlen || memcmp(name, prev, len) != 0) {
            ngids = 0;
            if (t->rollup) {
                /* Every prefix of the table's path, as the vnode's rollup filter. */
                char table[200];
                snprintf(table, sizeof(table), "%.*s", (int)len, name);
                sl_value tv;
                sl_column_get(&b->cols[ncols + t->keys[0]], r, &tv);
                uint32_t ends[SL_ROLLUP_MAX_DEPTH];
                int np = rollup_cut(t, table, &tv, ends);
                for (int i = 0; i < np; i++) {
                    uint64_t g = sl_rollup_group_id(t->rollup_type, tv.v.s.ptr, ends[i]);
                    uint32_t slot = (uint32_t)(g % t->cfg.nslots);
                    if (owns(t, slot) && t->hist_pending[slot])
                        gids[ngids++] = g;
                }
            } else {
                /* The group key as the vnode's ChangesFilter computes it (changes_filter.c):
                 * PARTITION BY items in order, tbname as VARCHAR, tags as stored. */
                sl_value keys[ST_MAX_KEYS];
                for (int k = 0; k < t->nkeys; k++) {
                    if (t->keys[k] < 0)
                        keys[k] = sl_value_str(SL_T_VARCHAR, name, len);
                    else
                        sl_column_get(&b->cols[ncols + t->keys[k]], r, &keys[k]);
                }
                uint64_t g = sl_group_id(keys, t->nkeys);
                uint32_t slot = (uint32_t)(g % t->cfg.nslots);
                if (owns(t, slot) && t->hist_pending[slot])
                    gids[ngids++] = g;
            }
            prev = name;
            prevlen = len;
        }
        for (int i = 0; i < ngids; i++) {
            if (h->nrows == h->caprows) {
                size_t cap = h->caprows ? h->caprows * 2 : 4096;
                hist_row *p = realloc(h->rows, cap * sizeof(*p));
                if (p == NULL) {
                    h->nrows -= kept;
                    sl_block_free(b);
                    return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
                }
                h->rows = p;
                h->caprows = cap;
            }
            h->rows[h->nrows++] = (hist_row){.gid = gids[i],
                                             .ts = sl_column_get_i64(&b->cols[0], r),
                                             .blk = (uint32_t)h->nblk,
                                             .row = r};
            kept++;
        }
    }
    if (kept == 0) {
        sl_block_free(b);
        return 0;
    }
    if (h->nblk == h->capblk) {
        size_t cap = h->capblk ? h->capblk * 2 : 64;
        sl_block **p = realloc(h->blks, cap * sizeof(*p));
        int *q = p ? realloc(h->blk_vg, cap * sizeof(*q)) : NULL;
        if (p != NULL)
            h->blks = p;
        if (q == NULL) {
            h->nrows -= kept;
            sl_block_free(b);
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        }
        h->blk_vg = q;
        h->capblk = cap;
    }
    for (uint32_t c = 0; c < b->ncols; c++)
        h->bytes += sl_column_mem(&b->cols[c]);
    h->bytes += kept * sizeof(hist_row);
    h->blk_vg[h->nblk] = vgi;
    h->blks[h->nblk++] = b;
    return 0;
}

static int hist_row_cmp(const void *a, const void *b)
{
    const hist_row *x = a, *y = b;
    if (x->gid != y->gid)
        return x->gid < y->gid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->blk != y->blk)
        return x->blk < y->blk ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* Feeds the buffered rows - per group in ts order, one input per run of rows of one table
 * - with in.history set, then empties the buffer. ver: the snapshot version per vgroup. */
static int hist_flush(sl_stask *t, hist_buf *h, const uint64_t *ver, sl_error *err)
{
    if (h->nrows > 0)
        qsort(h->rows, h->nrows, sizeof(*h->rows), hist_row_cmp);
    uint64_t *vers = malloc(SL_BLOCK_ROWS_MAX * sizeof(*vers));
    if (vers == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    sl_trig_sink sink = {.emit = sink_emit, .ud = t};
    int rc = 0;
    size_t i = 0;
    while (rc == 0 && i < h->nrows && !atomic_load(&t->stop)) {
        const hist_row *first = &h->rows[i];
        const sl_block *src = h->blks[first->blk];
        const sl_column *tbc = &src->cols[t->nproj - 1];
        uint32_t tlen = 0;
        const char *tp = sl_column_get_str(tbc, first->row, &tlen);
        char table[200];
        snprintf(table, sizeof(table), "%.*s", (int)(tp ? tlen : 0), tp ? tp : "");
        sl_block fb;
        sl_block_init(&fb);
        for (uint32_t c = 0; rc == 0 && c < src->ncols; c++)
            if (sl_block_add_column(&fb, src->cols[c].type, src->cols[c].width) < 0)
                rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        int64_t newest = INT64_MIN;
        uint32_t n = 0;
        size_t j = i;
        for (; rc == 0 && j < h->nrows && n < SL_BLOCK_ROWS_MAX; j++) {
            const hist_row *x = &h->rows[j];
            if (x->gid != first->gid)
                break;
            const sl_block *xb = h->blks[x->blk];
            if (x->blk != first->blk) { /* same table? */
                uint32_t l2 = 0;
                const char *p2 = sl_column_get_str(&xb->cols[t->nproj - 1], x->row, &l2);
                if ((p2 ? l2 : 0) != (tp ? tlen : 0) || (l2 > 0 && memcmp(p2, tp, l2) != 0))
                    break;
            }
            for (uint32_t c = 0; rc == 0 && c < fb.ncols; c++)
                if (sl_column_append_rows(&fb.cols[c], &xb->cols[c], &x->row, 0, 1) < 0)
                    rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
            vers[n++] = ver[h->blk_vg[x->blk]];
            if (x->ts > newest)
                newest = x->ts;
        }
        if (rc < 0) {
            sl_block_fini(&fb);
            break;
        }
        sl_block_seal(&fb);
        uint32_t slot = (uint32_t)(first->gid % t->cfg.nslots);
        sl_trig *e = engine(t, slot, err);
        if (e == NULL) {
            sl_block_fini(&fb);
            rc = err->code ? err->code : SL_ENOMEM;
            break;
        }
        set_group_rows(t, engine_gid(t, first->gid), table, &fb);
        sl_trig_input in = {.group_id = t->grp.id,
                            .rows = &fb,
                            .kinds = NULL,
                            .versions = vers,
                            .history = true};
        sl_error ferr;
        sl_error_clear(&ferr);
        if (sl_trig_feed(e, &in, &sink, &ferr) < 0)
            sl__st_error(t, "trigger (history): %s", ferr.msg);
        t->dirty[slot] = true;
        pthread_mutex_lock(&t->mu);
        t->st.rows += n;
        if (n > 0)
            t->st.lag_ms = wall_ms() - to_ms(t->prec, newest);
        pthread_mutex_unlock(&t->mu);
        sl_block_fini(&fb);
        i = j;
    }
    free(vers);
    hist_clear(h);
    return rc;
}

/* Reads the history of vgroup i into h (feeding it page by page when `eager`); vers[i]
 * becomes the snapshot version of the query. */
static int hist_read_vgroup(sl_stask *t, int i, const char *sql, hist_buf *h, bool eager,
                            uint64_t *vers, sl_error *err)
{
    uint64_t cur = 0;
    bool firstpage = true;
    int rc = 0;
    uint64_t *ver = &vers[i];
    do {
        Sluice__QueryRequest rq = SLUICE__QUERY_REQUEST__INIT;
        rq.vgroup_id = t->vg_ids[i];
        rq.db = t->trig_db;
        rq.sql = (char *)sql;
        rq.now_ms = wall_ms();
        rq.cursor = cur;
        rq.max_bytes = HIST_PAGE_BYTES;
        sl_buf req, rep;
        sl_buf_init(&req);
        sl_buf_init(&rep);
        rc = sl_buf_reserve(&req, sluice__query_request__get_packed_size(&rq));
        if (rc < 0) {
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        } else {
            req.len = sluice__query_request__pack(&rq, req.data);
            rc = sl_rpc_call(t->vg_cli[i], SLUICE__VNODE_METHOD__VNODE_QUERY, 0, req.data,
                             req.len, &rep, RPC_TIMEOUT_MS * 3, err);
        }
        Sluice__QueryReply *r = NULL;
        if (rc == 0 && (r = sluice__query_reply__unpack(NULL, rep.len, rep.data)) == NULL)
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed QueryReply");
        if (rc == 0) {
            if (firstpage)
                *ver = r->version;
            else if (r->version != *ver)
                rc = sl_error_set(err, SL_ECORRUPT, 0, 0,
                                  "history pages of vgroup %u read versions %" PRIu64
                                  " and %" PRIu64, t->vg_ids[i], *ver, r->version);
            firstpage = false;
            for (size_t k = 0; rc == 0 && k < r->n_blocks; k++) {
                sl_block *b = sl_block_new();
                if (b == NULL) {
                    rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
                    break;
                }
                rc = sl_block_decode(r->blocks[k].data, r->blocks[k].len, b, err);
                if (rc < 0) {
                    sl_block_free(b);
                    break;
                }
                rc = hist_add_block(t, h, b, i, err);
            }
            cur = r->cursor;
        }
        if (r != NULL)
            sluice__query_reply__free_unpacked(r, NULL);
        sl_buf_fini(&req);
        sl_buf_fini(&rep);
        bool flush = eager;
        if (rc == 0 && !eager && h->bytes > HIST_MAX_BYTES) {
            if (!h->warned)
                sl_log(SL_LOG_WARN, "snode",
                       "stream %s.%s: history of groups spanning tables exceeds %zu MiB: fed "
                       "in parts, rows of such a group may arrive out of order",
                       t->c_db, t->c_name, HIST_MAX_BYTES >> 20);
            h->warned = true;
            flush = true;
        }
        if (rc == 0 && flush)
            rc = hist_flush(t, h, vers, err);
    } while (rc == 0 && cur != 0 && !atomic_load(&t->stop));
    return rc;
}

/* Runs the history of every pending slot; on success the slots continue after the
 * snapshot versions, are no longer pending and are checkpointed at once. */
static int history_run(sl_stask *t, sl_error *err)
{
    bool any = false;
    for (uint32_t s = 0; s < t->cfg.nslots && !any; s++)
        any = owns(t, s) && t->hist_pending[s];
    if (!any)
        return 0;
    sl_buf sql;
    sl_buf_init(&sql);
    int rc = hist_sql(t, &sql, err);
    uint64_t *vers = calloc((size_t)(t->nvg ? t->nvg : 1), sizeof(*vers));
    if (rc == 0 && vers == NULL)
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    /* Rows of one table come in ascending ts, tables one after another: when every group
     * is one table (grouped by tbname, or a child/normal trigger table), pages are fed as
     * they come; otherwise a group's tables (in any vgroup) are merged by ts first. */
    bool eager = t->trig.meta.kind != SL_TABLE_SUPER;
    for (int k = 0; k < t->nkeys; k++)
        eager = eager || t->keys[k] < 0;
    hist_buf h;
    memset(&h, 0, sizeof(h));
    sl_log(SL_LOG_INFO, "snode", "stream %s.%s: reading history (%s)", t->c_db, t->c_name,
           rc == 0 ? (const char *)sql.data : "?");
    for (int i = 0; rc == 0 && i < t->nvg && !atomic_load(&t->stop); i++)
        rc = hist_read_vgroup(t, i, (const char *)sql.data, &h, eager, vers, err);
    if (rc == 0 && !atomic_load(&t->stop))
        rc = hist_flush(t, &h, vers, err);
    hist_free(&h);
    sl_buf_fini(&sql);
    if (rc == 0 && atomic_load(&t->stop))
        rc = sl_error_set(err, SL_ESTATE, 0, 0, "stopped");
    if (rc < 0) {
        free(vers);
        return rc;
    }
    uint64_t rows = 0;
    for (uint32_t s = 0; s < t->cfg.nslots; s++) {
        if (!owns(t, s) || !t->hist_pending[s])
            continue;
        for (int i = 0; i < t->nvg; i++)
            t->slot_ver[(size_t)s * (size_t)t->nvg + (size_t)i] = vers[i];
        t->hist_pending[s] = false;
        t->dirty[s] = true;
    }
    /* The reader starts at the oldest version any owned slot still needs. */
    for (int i = 0; i < t->nvg; i++) {
        bool first = true;
        for (uint32_t s = 0; s < t->cfg.nslots; s++) {
            if (!owns(t, s))
                continue;
            uint64_t v = t->slot_ver[(size_t)s * (size_t)t->nvg + (size_t)i];
            if (first || v < t->cursor[i])
                t->cursor[i] = v;
            first = false;
        }
    }
    pthread_mutex_lock(&t->mu);
    rows = t->st.rows;
    pthread_mutex_unlock(&t->mu);
    free(vers);
    sl_log(SL_LOG_INFO, "snode", "stream %s.%s: history done (%" PRIu64 " rows)", t->c_db,
           t->c_name, rows);
    sl__st_flush_batch(t); /* events queued (a recovery runs batched): before the checkpoint */
    checkpoint_all(t, false, false);
    return 0;
}

/* After a failed history run: the pending slots start over (their engines had no
 * checkpoint, so a fresh engine is their state). */
static void history_reset(sl_stask *t)
{
    for (uint32_t s = 0; s < t->cfg.nslots; s++) {
        if (!owns(t, s) || !t->hist_pending[s])
            continue;
        sl_trig_close(t->eng[s]);
        t->eng[s] = NULL;
        t->dirty[s] = false;
    }
}

/* Frees what setup() made and keeps the configuration, the group contexts and the known
 * output tables (facts that stay true), and the parse unless `parse` (the text does not
 * change, and the event hook may hold on to the parsed stream while the thread runs): after
 * a setup that failed, for a recovery (task_run), which sets up again from the
 * checkpoints, and as the thread ends (release, with the parse). */
static void teardown(sl_stask *t, bool parse)
{
    sl__st_rows_free(t); /* before the definition its filter belongs to */
    for (uint32_t s = 0; t->eng && s < t->cfg.nslots; s++)
        sl_trig_close(t->eng[s]);
    free(t->eng);
    t->eng = NULL;
    sl_trig_def_free(t->def);
    t->def = NULL;
    for (int i = 0; t->vg_cli && i < t->nvg; i++)
        sl_rpc_client_close(t->vg_cli[i]);
    free(t->vg_cli);
    t->vg_cli = NULL;
    free(t->vg_ids);
    t->vg_ids = NULL;
    free(t->cursor);
    t->cursor = NULL;
    free(t->slot_ver);
    t->slot_ver = NULL;
    free(t->dirty);
    t->dirty = NULL;
    free(t->out_failed);
    t->out_failed = NULL;
    free(t->hist_pending);
    t->hist_pending = NULL;
    t->fill_history = false;
    free(t->proj);
    t->proj = NULL;
    free(t->prefilter_sql);
    t->prefilter_sql = NULL;
    t->nvg = 0;
    if (parse) {
        t->cs = NULL;
        sl_parse_result_free(t->pr);
        t->pr = NULL;
    }
    sl_rpc_client_close(t->mcli);
    t->mcli = NULL;
    sl_close(t->meta);
    sl_close(t->run);
    sl_close(t->ddl);
    t->meta = t->run = t->ddl = NULL;
}

/* Sets the task up and reads its history, retrying (from scratch, after a growing pause)
 * until it works; false when asked to stop meanwhile. */
static bool prepare(sl_stask *t)
{
    int backoff = 200;
    while (!atomic_load(&t->stop)) {
        sl_error err;
        sl_error_clear(&err);
        if (setup(t, &err) == 0)
            break;
        sl__st_error(t, "setup: %s", err.msg);
        /* Start over from scratch after a pause (the mnode or a vnode may be restarting). */
        for (int w = 0; w < backoff && !atomic_load(&t->stop); w += 50)
            sleep_ms(50);
        backoff = backoff < 5000 ? backoff * 2 : 5000;
        teardown(t, false);
    }
    if (atomic_load(&t->stop))
        return false;
    /* History first (FILL_HISTORY / FILL_HISTORY_FIRST), then the live change log; the
     * task is reported ready once its history is done. A failed history run starts over
     * with a new snapshot. */
    backoff = 200;
    while (!atomic_load(&t->stop)) {
        sl_error err;
        sl_error_clear(&err);
        if (history_run(t, &err) == 0)
            break;
        if (atomic_load(&t->stop))
            break;
        sl__st_error(t, "history: %s", err.msg);
        history_reset(t);
        for (int w = 0; w < backoff && !atomic_load(&t->stop); w += 50)
            sleep_ms(50);
        backoff = backoff < 5000 ? backoff * 2 : 5000;
    }
    return !atomic_load(&t->stop);
}

/*
 * Recovery of lost output. A slot whose output write failed (a vnode restarting, the mnode
 * down longer than a write's retries, a fenced write before the task moved to the new
 * epoch) is never checkpointed again (srun.c): its last checkpoint stays before the lost
 * rows, and whoever sets the slot up next recomputes them. When the slot does not move and
 * the snode does not restart, that is the task itself: once the mnode answers again (a
 * checkpoint read of the slot, with a short timeout, so an outage does not stall the
 * reader), it checkpoints the slots that are fine and sets itself up again from the
 * checkpoints - the failed slots replay the change log from theirs; outputs are
 * idempotent and notifications keep their triggerId. Recoveries that keep failing wait
 * longer each time (up to a minute), so an output that cannot be written does not replay
 * the log in a loop.
 */
#define RECOVER_MIN_MS 1000
#define RECOVER_MAX_MS 60000
#define RECOVER_PROBE_MS 1000

typedef struct st_recover {
    int64_t at_ms;     /* 0: no slot failed; else not before this wall time */
    int wait_ms;       /* the pause before the next attempt */
    int64_t last_ms;   /* the last recovery (0: none) */
} st_recover;

/* Whether it is time to recover (see above), probing the mnode when it may be. */
static bool recover_due(sl_stask *t, st_recover *r)
{
    uint32_t failed = UINT32_MAX;
    for (uint32_t s = 0; failed == UINT32_MAX && s < t->cfg.nslots; s++)
        if (owns(t, s) && t->out_failed[s])
            failed = s;
    int64_t now = wall_ms();
    if (failed == UINT32_MAX) {
        r->at_ms = 0;
        return false;
    }
    if (r->at_ms == 0) {
        /* Failing again soon after a recovery: back off further. */
        bool again = r->last_ms != 0 && now - r->last_ms < RECOVER_MAX_MS;
        r->wait_ms = !again ? RECOVER_MIN_MS
                            : r->wait_ms * 2 < RECOVER_MAX_MS ? r->wait_ms * 2 : RECOVER_MAX_MS;
        r->at_ms = now + r->wait_ms;
        return false;
    }
    if (now < r->at_ms)
        return false;
    Sluice__CheckpointGetRequest rq = SLUICE__CHECKPOINT_GET_REQUEST__INIT;
    rq.stream_id = t->cfg.stream_id;
    rq.slot = failed;
    uint8_t req[64];
    size_t n = sluice__checkpoint_get_request__pack(&rq, req);
    sl_error err;
    sl_error_clear(&err);
    if (sl_rpc_call(t->mcli, SLUICE__MNODE_METHOD__MNODE_CHECKPOINT_GET, 0, req, n, NULL,
                    RECOVER_PROBE_MS, &err) < 0) {
        r->at_ms = wall_ms() + RECOVER_MIN_MS; /* the mnode is not back: ask again later */
        return false;
    }
    r->at_ms = 0;
    r->last_ms = now;
    return true;
}

/*
 * Yielding to heavy client writes (docs/architecture.md, "Stream reads yield to heavy
 * client writes"). A vnode whose client writes are heavy holds the stream reads; one that
 * is not yet told so answers at once with writes_heavy. From then until every vgroup's
 * last reply says the writes are no longer heavy, the task's thread runs in the SCHED_IDLE
 * class: what it read before the load took the CPU is worked on only with CPU the load
 * leaves, not taken from the writes; and its reads say `yielding`, so the vnodes hold
 * them. The thread moves to SCHED_IDLE only when it may come back (a process without the
 * right to lower its nice value cannot leave SCHED_IDLE); the reads say `yielding` either
 * way, else every read would be answered at once, empty, again and again.
 */
static void set_yielding(sl_stask *t, bool on)
{
    static atomic_int can = -1; /* sl_daemon_can_unyield, asked once per process */
    t->yielding = on;
    if (t->cfg.nice == SL_NICE_IDLE)
        return; /* idle already */
    if (atomic_load(&can) < 0)
        atomic_store(&can, sl_daemon_can_unyield(t->cfg.nice) ? 1 : 0);
    if (atomic_load(&can) == 0)
        return;
    if (sl_daemon_thread_yield(on) < 0)
        sl_log(SL_LOG_WARN, "snode", "stream %s.%s: cannot %s the CPU: %s", t->c_db,
               t->c_name, on ? "yield" : "take back", strerror(errno));
    else
        sl_log(SL_LOG_DEBUG, "snode", "stream %s.%s: %s", t->c_db, t->c_name,
               on ? "client writes are heavy: working at idle priority"
                  : "client writes calmed: back to normal priority");
}

/* The live phase: polls every vgroup, feeds, ticks and checkpoints until the task is asked
 * to stop (false; its last checkpoint then written when asked for) or a recovery is due
 * (true). */
static bool run_live(sl_stask *t, st_recover *rec)
{
    int wait = t->cfg.poll_wait_ms > 0 ? t->cfg.poll_wait_ms : 100;
    int ckpt_ms = t->cfg.checkpoint_ms > 0 ? t->cfg.checkpoint_ms : 1000;
    uv_loop_t rloop;
    st_poll *polls = NULL;
    if (uv_loop_init(&rloop) != 0) {
        sl__st_error(t, "cannot start the reader's loop");
        return false;
    }
    if (t->nvg > 0 && (polls = calloc((size_t)t->nvg, sizeof(*polls))) == NULL) {
        sl__st_error(t, "out of memory");
        uv_loop_close(&rloop);
        return false;
    }
    for (int i = 0; i < t->nvg; i++) {
        polls[i].t = t;
        polls[i].vg = i;
        sl_buf_init(&polls[i].rep);
    }
    bool recover = false;
    while (!recover && !atomic_load(&t->stop)) {
        bool fenced;
        pthread_mutex_lock(&t->mu);
        fenced = t->st.fenced;
        pthread_mutex_unlock(&t->mu);
        if (fenced) { /* deposed: wait for the daemon to stop or move the task */
            sleep_ms(100);
            continue;
        }
        ensure_period_engine(t);
        int64_t now = wall_ms();
        int out = 0;
        for (int i = 0; polls != NULL && i < t->nvg; i++) {
            st_poll *p = &polls[i];
            if (!p->inflight && !p->done && now >= p->retry_ms &&
                poll_start(t, p, &rloop, p->probe ? 0 : wait) < 0)
                p->retry_ms = now + 50; /* the client is closing: try again shortly */
            out += p->inflight;
        }
        if (out > 0) {
            uv_run(&rloop, UV_RUN_ONCE); /* until a poll answers (each waits <= wait) */
            uv_run(&rloop, UV_RUN_NOWAIT); /* and whatever else answered meanwhile: one
                                            * round, one batch */
        } else
            sleep_ms(t->nvg == 0 ? wait : 50); /* every vgroup backs off after an error */
        for (int i = 0; polls != NULL && i < t->nvg && !atomic_load(&t->stop); i++) {
            st_poll *p = &polls[i];
            if (!p->done)
                continue;
            p->done = false;
            /* A vgroup that answers with an error at once (a vnode restarting) is asked
             * again after a pause, not in a tight loop. */
            if (p->rc < 0 && p->rc != SL_ETIMEOUT)
                p->retry_ms = wall_ms() + 100;
            p->probe = p->rc < 0;
            changes_reply(t, i, p->rc, p->rep.data, p->rep.len, &p->err, &p->heavy);
        }
        bool heavy = false;
        for (int i = 0; polls != NULL && i < t->nvg; i++)
            heavy |= polls[i].heavy;
        if (heavy != t->yielding)
            set_yielding(t, heavy);
        tick_all(t);
        /* The round's computations, outputs and notifications (batched without
         * LOW_LATENCY_CALC), before a checkpoint may cover them. */
        sl__st_flush_batch(t);
        if (wall_ms() - t->last_ckpt_ms >= (t->ckpt_gap_ms > 0 ? t->ckpt_gap_ms : ckpt_ms))
            checkpoint_all(t, false, false);
        recover = !atomic_load(&t->stop) && recover_due(t, rec);
    }
    /* Reap the polls still out (each answers within its wait), so no callback outlives
     * the loop and the clients can be closed from any thread. Their replies are not fed:
     * the cursors stay before them. */
    for (bool out = true; out && polls != NULL;) {
        out = false;
        for (int i = 0; i < t->nvg; i++)
            out |= polls[i].inflight;
        if (out)
            uv_run(&rloop, UV_RUN_ONCE);
    }
    for (int i = 0; polls != NULL && i < t->nvg; i++)
        sl_buf_fini(&polls[i].rep);
    free(polls);
    if (t->yielding)
        set_yielding(t, false);
    uv_run(&rloop, UV_RUN_NOWAIT);
    uv_loop_close(&rloop);
    sl__st_flush_batch(t);
    if (recover) {
        checkpoint_all(t, false, false); /* the slots that are fine: they do not replay */
        return true;
    }
    if (atomic_load(&t->final_ckpt))
        checkpoint_all(t, false, true);
    return false;
}

static void task_run(sl_stask *t)
{
    st_recover rec = {0};
    while (prepare(t)) {
        t->ready = true;
        if (rec.last_ms == 0) { /* the first time: from now on the task is running */
            clear_error(t);
            pthread_mutex_lock(&t->mu);
            t->st.ready = true;
            pthread_mutex_unlock(&t->mu);
        } else {
            clear_output_error(t); /* recomputed now (a new failure records itself again) */
        }
        sl_log(SL_LOG_INFO, "snode", "stream %s.%s running on %d vgroup(s)", t->c_db,
               t->c_name, t->nvg);
        if (!run_live(t, &rec))
            break;
        sl_log(SL_LOG_WARN, "snode",
               "stream %s.%s: output of some slots was lost (see its last error): setting "
               "up again from the checkpoints to recompute it", t->c_db, t->c_name);
        t->ready = false;
        teardown(t, false);
    }
    if (t->run != NULL) { /* what the task cost the cluster in requests (diagnostics) */
        sl_conn_stats cs;
        sl_conn_get_stats(t->run, &cs);
        sl_log(SL_LOG_INFO, "snode",
               "stream %s.%s stops: %" PRIu64 " events; requests: %" PRIu64 " mnode, %" PRIu64
               " vnode queries, %" PRIu64 " vnode writes; table lookups %" PRIu64 " cached, %" PRIu64
               " asked",
               t->c_db, t->c_name, t->st.events, cs.mnode_calls, cs.vnode_queries,
               cs.vnode_writes, cs.meta_hits, cs.meta_misses);
    }
}

/* Frees what the thread owns (engines, connections, clients, the parsed stream);
 * idempotent. The thread calls it as it ends, so a joined task holds no connection. */
static void release(sl_stask *t)
{
    teardown(t, true);
    sl__st_outputs_free(t);
    gctx_free(t);
}

static void *task_main(void *arg)
{
    sl_stask *t = arg;
    task_run(t);
    if (t->cfg.on_sync != NULL)
        t->cfg.on_sync(t->cfg.event_ud, t, true);
    release(t);
    return NULL;
}

/* ---------------------------------------------------------------- API */

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

int sl_stask_start(const sl_stask_cfg *cfg, sl_stask **out, sl_error *err)
{
    if (cfg->nslots == 0 || cfg->slots == NULL || cfg->sql == NULL || cfg->mnode_host == NULL)
        return sl_error_set(err, SL_EINVAL, 0, 0, "incomplete stream task configuration");
    sl_stask *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    t->cfg = *cfg;
    size_t nb = (cfg->nslots + 7) / 8;
    t->c_host = dup_or_null(cfg->mnode_host);
    t->c_db = dup_or_null(cfg->db ? cfg->db : "");
    t->c_name = dup_or_null(cfg->name ? cfg->name : "");
    t->c_sql = dup_or_null(cfg->sql);
    t->c_plan_db = dup_or_null(cfg->plan_db);
    t->c_slots = malloc(nb);
    if (!t->c_host || !t->c_db || !t->c_name || !t->c_sql || !t->c_slots ||
        (cfg->plan_db && !t->c_plan_db)) {
        sl_stask_stop(t, false);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    memcpy(t->c_slots, cfg->slots, nb);
    t->cfg.mnode_host = t->c_host;
    t->cfg.db = t->c_db;
    t->cfg.name = t->c_name;
    t->cfg.sql = t->c_sql;
    t->cfg.plan_db = t->c_plan_db;
    t->cfg.slots = t->c_slots;
    atomic_store(&t->epoch, cfg->epoch);
    if (sl_keymap_init(&t->gmap) < 0) {
        sl_stask_stop(t, false);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    t->st.stream_id = cfg->stream_id;
    t->st.epoch = cfg->epoch;
    pthread_mutex_init(&t->mu, NULL);
    if (pthread_create(&t->th, NULL, task_main, t) != 0) {
        sl_stask_stop(t, false);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "cannot start a thread");
    }
    t->started = true;
    *out = t;
    return 0;
}

void sl_stask_set_epoch(sl_stask *t, uint64_t epoch)
{
    uint64_t old = atomic_exchange(&t->epoch, epoch);
    pthread_mutex_lock(&t->mu);
    t->st.epoch = epoch;
    t->st.fenced = false;
    /* A checkpoint refused between the mnode's new epoch and this call (the reassignment
     * of other streams' slots bumps it) is not an error of a task that keeps its slots:
     * the slot stays dirty and its next checkpoint carries this epoch. */
    if (epoch > old && strncmp(t->st.error, "fenced: ", 8) == 0)
        t->st.error[0] = '\0';
    pthread_mutex_unlock(&t->mu);
    /* The run connection's epoch is read by the thread at its next write. */
}

bool sl_stask_stopping(const sl_stask *t)
{
    return atomic_load(&((sl_stask *)t)->stop);
}

bool sl_stask_final_checkpoint(const sl_stask *t)
{
    return atomic_load(&((sl_stask *)t)->final_ckpt);
}

void sl_stask_signal_stop(sl_stask *t, bool checkpoint)
{
    atomic_store(&t->final_ckpt, checkpoint);
    atomic_store(&t->stop, true);
}

void sl_stask_join(sl_stask *t)
{
    if (t->started && !t->joined) {
        pthread_join(t->th, NULL);
        t->joined = true;
    }
}

void sl_stask_stop(sl_stask *t, bool checkpoint)
{
    if (t == NULL)
        return;
    if (!t->joined) {
        atomic_store(&t->final_ckpt, checkpoint);
        atomic_store(&t->stop, true);
    }
    sl_stask_join(t);
    release(t); /* done by the thread when it ran; what a failed start made otherwise */
    free(t->c_host);
    free(t->c_db);
    free(t->c_name);
    free(t->c_sql);
    free(t->c_plan_db);
    free(t->c_slots);
    if (t->started)
        pthread_mutex_destroy(&t->mu);
    free(t);
}

void sl_stask_get_status(sl_stask *t, sl_stask_status *out)
{
    pthread_mutex_lock(&t->mu);
    *out = t->st;
    pthread_mutex_unlock(&t->mu);
}

uint64_t sl_stask_stream_id(const sl_stask *t)
{
    return t->cfg.stream_id;
}

const char *sl_stask_name(const sl_stask *t)
{
    return t->c_name;
}

const char *sl_stask_db(const sl_stask *t)
{
    return t->c_db;
}

const sl_create_stream *sl_stask_stream(const sl_stask *t)
{
    return t->cs;
}

bool sl_stask_same_slots(const sl_stask *t, uint32_t nslots, const uint8_t *slots)
{
    return nslots == t->cfg.nslots && memcmp(slots, t->c_slots, (nslots + 7) / 8) == 0;
}
