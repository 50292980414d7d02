/*
 * mlink.c - the vnode's link to the mnode: register (retried every second until the mnode
 * answers), heartbeat every second, open/close the vgroups the heartbeat reply assigns,
 * fetch a vgroup's tables when the reply's catalog version differs from the one the
 * vgroup last applied, and raise each vgroup's change-log low-water mark to what the reply
 * says every stream reading it has checkpointed. All calls are sl_rpc_call_async on the
 * loop, except the one-shot sync a write for an unknown table makes (sl__vn_sync_now),
 * which blocks the loop for at most a short timeout.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/log.h"
#include "mnode.pb-c.h"
#include "vdaemon.h"

#define ML_TIMEOUT_MS 3000

static int call_pb(sl_vdaemon *vd, uint32_t method, const ProtobufCMessage *m, sl_rpc_done_fn cb,
                   void *ud)
{
    /* Registration retries every tick: a short timeout picks a late mnode up quickly. */
    int timeout = method == SLUICE__MNODE_METHOD__MNODE_REGISTER ? 900 : ML_TIMEOUT_MS;
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *p = malloc(n ? n : 1);
    if (p == NULL)
        return SL_ENOMEM;
    protobuf_c_message_pack(m, p);
    int rc = sl_rpc_call_async(vd->vd_mnode, vd->vd_loop, method, 0, p, n, timeout, cb, ud);
    free(p);
    return rc;
}

/* ---------------------------------------------------------------- sync */

typedef struct sync_call {
    sl_vdaemon *vd;
    uint32_t vgroup;
} sync_call;

static void on_sync(void *ud, int rc, const void *reply, size_t len, const sl_error *err)
{
    sync_call *sc = ud;
    sl_vdaemon *vd = sc->vd;
    vn_vgroup *vg = vd->vd_stopping ? NULL : sl__vn_find(vd, sc->vgroup);
    if (vg != NULL) {
        vg->vg_syncing = false;
        sl_error e = {0};
        sl_error_clear(&e);
        if (rc == 0)
            rc = sl__vn_apply_tables(vg, reply, len, &e);
        else if (err != NULL)
            e = *err;
        if (rc < 0)
            sl_log(SL_LOG_WARN, "vnode", "table sync failed vgroup_id=%u: %s", sc->vgroup, e.msg);
    }
    free(sc);
}

static void start_sync(sl_vdaemon *vd, vn_vgroup *vg)
{
    sync_call *sc = malloc(sizeof(*sc));
    if (sc == NULL)
        return;
    sc->vd = vd;
    sc->vgroup = vg->vg_id;
    Sluice__VgroupTablesRequest rq = SLUICE__VGROUP_TABLES_REQUEST__INIT;
    rq.vgroup_id = vg->vg_id;
    rq.after_catalog_version = vg->vg_synced;
    if (call_pb(vd, SLUICE__MNODE_METHOD__MNODE_VGROUP_TABLES, &rq.base, on_sync, sc) < 0) {
        free(sc);
        return;
    }
    vg->vg_syncing = true;
}

int sl__vn_sync_now(sl_vdaemon *vd, vn_vgroup *vg, sl_error *err)
{
    Sluice__VgroupTablesRequest rq = SLUICE__VGROUP_TABLES_REQUEST__INIT;
    rq.vgroup_id = vg->vg_id;
    rq.after_catalog_version = vg->vg_synced;
    size_t n = protobuf_c_message_get_packed_size(&rq.base);
    uint8_t p[64];
    if (n > sizeof(p))
        return SL_EINVAL;
    protobuf_c_message_pack(&rq.base, p);
    sl_buf reply;
    sl_buf_init(&reply);
    int rc = sl_rpc_call(vd->vd_mnode, SLUICE__MNODE_METHOD__MNODE_VGROUP_TABLES, 0, p, n, &reply,
                         ML_TIMEOUT_MS, err);
    if (rc == 0)
        rc = sl__vn_apply_tables(vg, reply.data, reply.len, err);
    sl_buf_fini(&reply);
    return rc;
}

/* ---------------------------------------------------------------- heartbeat */

/*
 * Raises the change-log low-water mark of each vgroup the reply names to what every stream
 * reading it has checkpointed, so the change log trims what all of them consumed. Only
 * ever raises: the mark is persisted by the vstore, and an older or reordered reply (or a
 * restarted mnode that has not heard from the snodes yet) must not hold back what is
 * already released. The vstore clamps a mark above its last version, so the target is
 * clamped here too, else the same mark would be written again every heartbeat.
 */
static void apply_low_water(sl_vdaemon *vd, const Sluice__HeartbeatReply *rp)
{
    for (size_t j = 0; j < rp->n_low_water; j++) {
        const Sluice__VgroupVersion *lw = rp->low_water[j];
        vn_vgroup *vg = sl__vn_find(vd, lw->vgroup_id);
        if (vg == NULL)
            continue;
        sl_vstore_stats st;
        sl_vstore_get_stats(vg->vg_vs, &st);
        uint64_t target = lw->version < st.last_version ? lw->version : st.last_version;
        if (target <= st.low_water)
            continue;
        sl_error e = {0};
        sl_error_clear(&e);
        if (sl_vstore_set_low_water(vg->vg_vs, target, &e) < 0)
            sl_log(SL_LOG_WARN, "vnode", "cannot set the change-log low water vgroup_id=%u: %s",
                   vg->vg_id, e.msg);
        else
            sl_log(SL_LOG_DEBUG, "vnode", "change-log low water vgroup_id=%u version=%" PRIu64,
                   vg->vg_id, target);
    }
}

/* Applies a HeartbeatReply: opens newly assigned vgroups, closes unassigned ones, raises
 * the change-log low-water marks, starts syncs of vgroups whose catalog copy is stale
 * (async unless sync_now). */
static void apply_heartbeat(sl_vdaemon *vd, const void *reply, size_t len, bool sync_now)
{
    Sluice__HeartbeatReply *rp = sluice__heartbeat_reply__unpack(NULL, len, reply);
    if (rp == NULL) {
        sl_log(SL_LOG_WARN, "vnode", "malformed heartbeat reply");
        return;
    }
    if (rp->epoch > vd->vd_epoch)
        vd->vd_epoch = rp->epoch;
    for (int i = vd->vd_nvgroups - 1; i >= 0; i--) {
        vn_vgroup *vg = vd->vd_vgroups[i];
        bool keep = false;
        for (size_t j = 0; j < rp->n_vgroups && !keep; j++)
            keep = rp->vgroups[j] == vg->vg_id;
        if (!keep)
            sl__vn_vgroup_close(vd, vg);
    }
    for (size_t j = 0; j < rp->n_vgroups; j++) {
        if (sl__vn_find(vd, rp->vgroups[j]) != NULL)
            continue;
        sl_error e = {0};
        sl_error_clear(&e);
        if (sl__vn_vgroup_open(vd, rp->vgroups[j], &e) < 0)
            sl_log(SL_LOG_ERROR, "vnode", "cannot open vgroup_id=%u: %s", rp->vgroups[j], e.msg);
    }
    apply_low_water(vd, rp);
    for (int i = 0; i < vd->vd_nvgroups; i++) {
        vn_vgroup *vg = vd->vd_vgroups[i];
        if (vg->vg_synced == rp->catalog_version || vg->vg_syncing)
            continue;
        /* A vgroup opened just now is synced before anything is served from it. */
        if (sync_now || vg->vg_synced == 0)
            sl__vn_sync_now(vd, vg, NULL);
        else
            start_sync(vd, vg);
    }
    sluice__heartbeat_reply__free_unpacked(rp, NULL);
}

static void on_heartbeat(void *ud, int rc, const void *reply, size_t len, const sl_error *err)
{
    sl_vdaemon *vd = ud;
    vd->vd_heartbeating = false;
    if (vd->vd_stopping)
        return;
    if (rc == SL_ENOTFOUND) {
        sl_log(SL_LOG_WARN, "vnode", "mnode does not know node_id=%u: registering again",
               vd->vd_node_id);
        vd->vd_node_id = 0;
        return;
    }
    if (rc < 0) {
        sl_log(SL_LOG_WARN, "vnode", "heartbeat failed: %s", err ? err->msg : sl_strerror(rc));
        return;
    }
    apply_heartbeat(vd, reply, len, false);
}

/*
 * Packs the heartbeat: the vgroups this vnode holds and, per vgroup, its storage load (rows
 * stored, size on disk, the write and fencing counters since it was opened), which the
 * mnode shows in ins_vgroups and ins_dnodes. A vgroup whose size cannot be read reports
 * the rest with disk_bytes 0 (logged).
 */
static int pack_heartbeat(sl_vdaemon *vd, uint8_t **out, size_t *n)
{
    Sluice__HeartbeatRequest rq = SLUICE__HEARTBEAT_REQUEST__INIT;
    size_t nv = vd->vd_nvgroups > 0 ? (size_t)vd->vd_nvgroups : 0;
    uint32_t *ids = malloc((nv ? nv : 1) * sizeof(*ids));
    Sluice__VgroupLoad *loads = malloc((nv ? nv : 1) * sizeof(*loads));
    Sluice__VgroupLoad **lp = malloc((nv ? nv : 1) * sizeof(*lp));
    int rc = ids == NULL || loads == NULL || lp == NULL ? SL_ENOMEM : 0;
    rq.node_id = vd->vd_node_id;
    rq.rows_written = vd->vd_rows_written;
    rq.fenced = vd->vd_fenced;
    rq.reads_held = atomic_load(&vd->vd_polls_held);
    rq.reads_held_ms = atomic_load(&vd->vd_held_ms);
    for (size_t i = 0; rc == 0 && i < nv; i++) {
        const vn_vgroup *vg = vd->vd_vgroups[i];
        Sluice__VgroupLoad *l = &loads[i];
        sluice__vgroup_load__init(l);
        sl_vstore_stats st;
        sl_vstore_get_stats(vg->vg_vs, &st);
        sl_error e;
        sl_error_clear(&e);
        if (sl_vstore_disk_bytes(vg->vg_vs, &l->disk_bytes, &e) < 0) {
            sl_log(SL_LOG_DEBUG, "vnode", "cannot read the size of vgroup_id=%u: %s", vg->vg_id,
                   e.msg);
            l->disk_bytes = 0;
        }
        l->vgroup_id = vg->vg_id;
        l->rows = st.rows;
        l->write_requests = vg->vg_write_reqs;
        l->rows_written = vg->vg_rows_written;
        l->fenced = vg->vg_fenced;
        ids[i] = vg->vg_id;
        lp[i] = l;
    }
    if (rc == 0) {
        rq.n_vgroups = nv;
        rq.vgroups = ids;
        rq.n_loads = nv;
        rq.loads = lp;
        *n = protobuf_c_message_get_packed_size(&rq.base);
        *out = malloc(*n ? *n : 1);
        if (*out == NULL)
            rc = SL_ENOMEM;
        else
            protobuf_c_message_pack(&rq.base, *out);
    }
    free(ids);
    free(loads);
    free(lp);
    return rc;
}

int sl__vn_refresh_now(sl_vdaemon *vd)
{
    if (vd->vd_node_id == 0 || vd->vd_stopping)
        return SL_ESTATE;
    /* Garbage vgroup ids must not turn every request into an mnode round trip. */
    int64_t now = sl__vn_now_ms();
    if (now - vd->vd_last_refresh < 200)
        return SL_ESTATE;
    vd->vd_last_refresh = now;
    uint8_t *p;
    size_t n;
    if (pack_heartbeat(vd, &p, &n) < 0)
        return SL_ENOMEM;
    sl_buf reply;
    sl_buf_init(&reply);
    int rc = sl_rpc_call(vd->vd_mnode, SLUICE__MNODE_METHOD__MNODE_HEARTBEAT, 0, p, n, &reply,
                         ML_TIMEOUT_MS, NULL);
    free(p);
    if (rc == 0)
        apply_heartbeat(vd, reply.data, reply.len, true);
    sl_buf_fini(&reply);
    return rc;
}

static void send_heartbeat(sl_vdaemon *vd)
{
    uint8_t *p;
    size_t n;
    if (pack_heartbeat(vd, &p, &n) < 0)
        return;
    if (sl_rpc_call_async(vd->vd_mnode, vd->vd_loop, SLUICE__MNODE_METHOD__MNODE_HEARTBEAT, 0, p,
                          n, ML_TIMEOUT_MS, on_heartbeat, vd) == 0)
        vd->vd_heartbeating = true;
    free(p);
}

/* ---------------------------------------------------------------- register */

static void save_node_id(sl_vdaemon *vd)
{
    char path[1100], tmp[1110];
    snprintf(path, sizeof(path), "%s/node_id", vd->vd_data);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return;
    fprintf(f, "%u\n", vd->vd_node_id);
    if (fclose(f) == 0)
        rename(tmp, path);
}

static void on_register(void *ud, int rc, const void *reply, size_t len, const sl_error *err)
{
    sl_vdaemon *vd = ud;
    vd->vd_registering = false;
    if (vd->vd_stopping)
        return;
    if (rc < 0) {
        sl_log(SL_LOG_DEBUG, "vnode", "register failed (retrying): %s",
               err ? err->msg : sl_strerror(rc));
        return;
    }
    Sluice__RegisterReply *rp = sluice__register_reply__unpack(NULL, len, reply);
    if (rp == NULL || rp->node_id == 0) {
        sl_log(SL_LOG_WARN, "vnode", "malformed register reply");
        if (rp)
            sluice__register_reply__free_unpacked(rp, NULL);
        return;
    }
    vd->vd_node_id = rp->node_id;
    sluice__register_reply__free_unpacked(rp, NULL);
    save_node_id(vd);
    sl_log(SL_LOG_INFO, "vnode", "registered node_id=%u addr=%s mnode=%s", vd->vd_node_id,
           vd->vd_addr, vd->vd_mnode_url);
    send_heartbeat(vd);
}

static void send_register(sl_vdaemon *vd)
{
    Sluice__RegisterRequest rq = SLUICE__REGISTER_REQUEST__INIT;
    rq.kind = 1;
    rq.address = vd->vd_addr;
    if (call_pb(vd, SLUICE__MNODE_METHOD__MNODE_REGISTER, &rq.base, on_register, vd) == 0)
        vd->vd_registering = true;
}

void sl__vn_tick(uv_timer_t *t)
{
    sl_vdaemon *vd = t->data;
    if (vd->vd_stopping)
        return;
    if (vd->vd_node_id == 0) {
        if (!vd->vd_registering)
            send_register(vd);
    } else if (!vd->vd_heartbeating) {
        send_heartbeat(vd);
    }
    sl__vn_cursors_sweep(vd, sl__vn_now_ms(), NULL);
    /* At most once a second, and only when reads were held or told since the last
     * report. */
    uint64_t held = atomic_load(&vd->vd_polls_held), told = atomic_load(&vd->vd_polls_told);
    if (held != vd->vd_held_logged || told != vd->vd_told_logged) {
        vd->vd_held_logged = held;
        vd->vd_told_logged = told;
        sl_log(SL_LOG_INFO, "vnode",
               "stream reads held for heavy client writes: reads=%" PRIu64 " waited_ms=%" PRIu64
               " told=%" PRIu64 " (totals since start; --stream-yield-ms %d)",
               held, (uint64_t)atomic_load(&vd->vd_held_ms), told, vd->vd_yield_ms);
    }
}
