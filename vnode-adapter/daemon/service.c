/*
 * service.c - the vnode's write methods (proto/vnode.proto): VNODE_WRITE, VNODE_DELETE and
 * VNODE_STATUS. VNODE_CHANGES is changes.c, VNODE_QUERY query.c.
 *
 * Writes are durable before they are acknowledged, so an acknowledged write survives
 * kill -9 and power loss: they are applied with sync off and acknowledged by the group
 * commit (commit.c) after one log sync per written vgroup covers them. A write naming
 * a table the vgroup does not know yet (created on the mnode moments ago, before the
 * heartbeat brought it here) waits while the vnode fetches the vgroup's table list from
 * the mnode - asynchronously, so the loop goes on serving everything else - and is retried
 * when it arrives before it is refused. Every commit wakes the vgroup's parked change-log
 * polls (sl__vn_wake_polls, changes.c).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util/log.h"
#include "mnode.pb-c.h"
#include "vdaemon.h"
#include "vnode.pb-c.h"
#include "vrequest.h"

void sl__vn_reply_err(sl_rpc_reply *reply, int rc, sl_error *err)
{
    if (err->code == 0)
        sl_error_set(err, rc, 0, 0, "%s", sl_strerror(rc));
    sl_rpc_reply_error(reply, err);
}

vn_vgroup *sl__vn_need_vgroup(sl_vdaemon *vd, sl_rpc_reply *reply, uint32_t id)
{
    vn_vgroup *vg = sl__vn_find(vd, id);
    if (vg == NULL && sl__vn_refresh_now(vd) == 0)
        vg = sl__vn_find(vd, id); /* assigned since the last heartbeat */
    if (vg == NULL && vd->vd_node_id == 0)
        sl_rpc_reply_fail(reply, SL_EUNAVAILABLE,
                          "vnode is starting: not registered with the mnode yet");
    else if (vg == NULL)
        sl_rpc_reply_fail(reply, SL_ENOTFOUND, "vgroup %u is not hosted by this vnode", id);
    return vg;
}

/* ---------------------------------------------------------------- WRITE */

/*
 * Fencing (DESIGN.md section 3): a request that carries a placement epoch (an snode's
 * output write) older than the newest epoch this vnode knows is refused with SL_ESTALE, so
 * an snode whose slots moved cannot write; a newer one raises the known epoch. Clients
 * send epoch 0 and are never fenced. A refusal is counted for the vnode and, when it hosts
 * it, for the vgroup the request names (reported in heartbeats: ins_vgroups.fenced).
 * Returns true when the request was refused.
 */
static bool fenced(sl_vdaemon *vd, sl_rpc_reply *reply, const sl_rpc_request *req,
                   uint32_t vgroup_id)
{
    if (req->epoch == 0)
        return false;
    if (req->epoch < vd->vd_epoch) {
        vn_vgroup *vg = sl__vn_find(vd, vgroup_id);
        vd->vd_fenced++;
        if (vg != NULL)
            vg->vg_fenced++;
        sl_error e = {0};
        sl_error_set(&e, SL_ESTALE, 0, 0,
                     "stale placement epoch %llu: the current epoch is %llu (the request's "
                     "sender no longer owns what it writes)",
                     (unsigned long long)req->epoch, (unsigned long long)vd->vd_epoch);
        sl__vn_reply_err(reply, SL_ESTALE, &e);
        return true;
    }
    vd->vd_epoch = req->epoch;
    return false;
}

/* Applies decoded write w to vg and parks its reply for the group commit; answers reply
 * itself on an error. Returns the vstore's result. */
static int write_apply(sl_vdaemon *vd, vn_vgroup *vg, sl_rpc_reply *reply, const vn_write *w,
                       sl_error *err)
{
    uint64_t version = 0;
    vn_pending *p = sl__vn_pending_alloc(); /* first: an applied write is always parked */
    int rc = p == NULL ? SL_ENOMEM : sl_vstore_write(vg->vg_vs, w->w_items, w->w_n, false,
                                                     &version, err);
    if (rc < 0) {
        free(p);
        return rc;
    }
    sl__vn_pending_park(vd, p, vg, reply, version, w->w_rows); /* acknowledged once synced */
    return 0;
}

/*
 * Writes naming a table the vgroup does not know (created on the mnode moments ago, e.g.
 * an snode's new output subtable, written right after its CREATE) wait here while the
 * vgroup's table list is fetched from the mnode asynchronously, and are applied (or
 * refused) when it arrives. The fetch used to be a blocking call on the loop thread: every
 * first write to a new table stalled every other request of the vnode - ingest writes,
 * queries, change-log polls - for an mnode round trip. One fetch per vgroup is in flight;
 * a write parked after that fetch was sent gets a fetch of its own if the answer does not
 * know its table yet. Loop thread only.
 */
typedef struct vn_parked {
    struct vn_parked *next;
    sl_vdaemon *vd;
    uint32_t vgroup;
    uint64_t seq;         /* parking order */
    sl_rpc_reply *reply;  /* NULL once the server gave up on it */
    vn_write w;
} vn_parked;

typedef struct vn_wsync {
    struct vn_wsync *next;
    sl_vdaemon *vd;
    uint32_t vgroup;
    uint64_t seq;         /* writes parked up to this one were parked before the fetch */
} vn_wsync;

static vn_parked *g_parked;
static vn_parked **g_parked_tail = &g_parked;
static vn_wsync *g_wsyncs;
static uint64_t g_park_seq;

static void parked_cancel(sl_rpc_reply *reply, void *arg)
{
    (void)reply;
    ((vn_parked *)arg)->reply = NULL;
}

static void wsync_done(void *ud, int rc, const void *reply, size_t len, const sl_error *err);

static bool wsync_start(sl_vdaemon *vd, vn_vgroup *vg)
{
    for (vn_wsync *x = g_wsyncs; x != NULL; x = x->next)
        if (x->vd == vd && x->vgroup == vg->vg_id)
            return true; /* one in flight: it (or the one it starts) serves this write */
    vn_wsync *x = calloc(1, sizeof(*x));
    if (x == NULL)
        return false;
    x->vd = vd;
    x->vgroup = vg->vg_id;
    x->seq = g_park_seq;
    Sluice__VgroupTablesRequest rq = SLUICE__VGROUP_TABLES_REQUEST__INIT;
    rq.vgroup_id = vg->vg_id;
    rq.after_catalog_version = vg->vg_synced;
    uint8_t p[64];
    size_t n = protobuf_c_message_get_packed_size(&rq.base);
    if (n > sizeof(p)) {
        free(x);
        return false;
    }
    protobuf_c_message_pack(&rq.base, p);
    if (sl_rpc_call_async(vd->vd_mnode, vd->vd_loop, SLUICE__MNODE_METHOD__MNODE_VGROUP_TABLES, 0,
                          p, n, 5000, wsync_done, x) < 0) {
        free(x);
        return false;
    }
    x->next = g_wsyncs;
    g_wsyncs = x;
    return true;
}

static void wsync_done(void *ud, int rc, const void *reply, size_t len, const sl_error *err)
{
    vn_wsync *x = ud;
    for (vn_wsync **pp = &g_wsyncs; *pp != NULL; pp = &(*pp)->next)
        if (*pp == x) {
            *pp = x->next;
            break;
        }
    sl_vdaemon *vd = x->vd;
    vn_vgroup *vg = vd->vd_stopping ? NULL : sl__vn_find(vd, x->vgroup);
    sl_error e;
    sl_error_clear(&e);
    if (rc == 0 && vg != NULL)
        rc = sl__vn_apply_tables(vg, reply, len, &e);
    else if (rc != 0 && err != NULL)
        e = *err;
    if (rc < 0)
        sl_log(SL_LOG_WARN, "vnode", "table sync for a write failed vgroup_id=%u: %s", x->vgroup,
               e.msg);
    /* Retry this vgroup's parked writes, in parking order. */
    vn_parked *list = g_parked, *keep = NULL, **keep_tail = &keep;
    g_parked = NULL;
    g_parked_tail = &g_parked;
    bool again = false;
    while (list != NULL) {
        vn_parked *p = list;
        list = p->next;
        p->next = NULL;
        if (p->vd != vd || p->vgroup != x->vgroup) {
            *keep_tail = p;
            keep_tail = &p->next;
            continue;
        }
        if (p->reply != NULL) {
            sl_rpc_reply_on_cancel(p->reply, NULL, NULL);
            sl_error werr;
            sl_error_clear(&werr);
            int wrc = vg == NULL ? SL_ENOTFOUND : write_apply(vd, vg, p->reply, &p->w, &werr);
            if (wrc == SL_ENOTFOUND && vg != NULL && p->seq > x->seq) {
                /* Parked after the fetch was sent: its table may be newer than the answer. */
                sl_rpc_reply_on_cancel(p->reply, parked_cancel, p);
                *keep_tail = p;
                keep_tail = &p->next;
                again = true;
                continue;
            }
            if (wrc < 0) {
                if (vg == NULL && werr.code == 0)
                    sl_error_set(&werr, SL_ENOTFOUND, 0, 0, "vgroup %u is not hosted by this vnode",
                                 x->vgroup);
                sl__vn_reply_err(p->reply, wrc, &werr);
            }
        }
        sl__vn_write_fini(&p->w);
        free(p);
    }
    /* keep, then whatever was parked meanwhile (nothing: callbacks run one at a time). */
    *keep_tail = g_parked;
    g_parked = keep;
    g_parked_tail = &g_parked;
    while (*g_parked_tail != NULL)
        g_parked_tail = &(*g_parked_tail)->next;
    free(x);
    if (again && vg != NULL && !wsync_start(vd, vg)) {
        /* Cannot fetch again: refuse what waits for this vgroup. */
        for (vn_parked **pp = &g_parked; *pp != NULL;) {
            vn_parked *p = *pp;
            if (p->vd != vd || p->vgroup != vg->vg_id) {
                pp = &p->next;
                continue;
            }
            *pp = p->next;
            if (p->reply != NULL) {
                sl_rpc_reply_on_cancel(p->reply, NULL, NULL);
                sl_rpc_reply_fail(p->reply, SL_ENOTFOUND, "a table of the write is unknown");
            }
            sl__vn_write_fini(&p->w);
            free(p);
        }
        g_parked_tail = &g_parked;
        while (*g_parked_tail != NULL)
            g_parked_tail = &(*g_parked_tail)->next;
    }
}

/* Parks write *w (taken on success) of vg until its table sync; false when it cannot. */
static bool write_park(sl_vdaemon *vd, vn_vgroup *vg, sl_rpc_reply *reply, vn_write *w)
{
    vn_parked *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return false;
    p->vd = vd;
    p->vgroup = vg->vg_id;
    p->seq = ++g_park_seq;
    p->reply = reply;
    p->w = *w;
    if (!wsync_start(vd, vg)) {
        free(p);
        return false;
    }
    memset(w, 0, sizeof(*w));
    *g_parked_tail = p;
    g_parked_tail = &p->next;
    sl_rpc_reply_on_cancel(reply, parked_cancel, p);
    return true;
}

static void v_write_apply(sl_rpc_reply *reply, const sl_rpc_request *req, sl_vdaemon *vd,
                          bool *background);

/* Feeds vd_demand and vd_demand_fast with the loop thread's run and wait time since the
 * last sample, spread over the time since then, at most every VN_SCHED_SAMPLE_MS (a read
 * of its schedstat: "run_ns wait_ns slices"). */
static void sample_demand(sl_vdaemon *vd, uint64_t now)
{
    if (vd->vd_schedstat_fd < 0 || now - vd->vd_sched_at < VN_SCHED_SAMPLE_MS * 1000000ull)
        return;
    char buf[128];
    ssize_t n = pread(vd->vd_schedstat_fd, buf, sizeof(buf) - 1, 0);
    unsigned long long run, wait;
    if (n <= 0 || (buf[n] = '\0', sscanf(buf, "%llu %llu", &run, &wait) != 2)) {
        close(vd->vd_schedstat_fd); /* the write share decides from now on */
        vd->vd_schedstat_fd = -1;
        atomic_store(&vd->vd_sched_ok, false);
        return;
    }
    if (vd->vd_sched_at != 0 && run >= vd->vd_sched_run && wait >= vd->vd_sched_wait) {
        uint64_t d = (run - vd->vd_sched_run) + (wait - vd->vd_sched_wait);
        sl_busy_add_span(&vd->vd_demand, vd->vd_sched_at, now, d);
        sl_busy_add_span(&vd->vd_demand_fast, vd->vd_sched_at, now, d);
    }
    vd->vd_sched_at = now;
    vd->vd_sched_run = run;
    vd->vd_sched_wait = wait;
}

/* A write; a client's (not background) is timed into vd_wbusy, and the loop's CPU
 * demand sampled: the stream reads yield while client writes keep the loop busy
 * (vdaemon.h). */
static void v_write(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_vdaemon *vd = ud;
    uint64_t t0 = uv_hrtime();
    bool background = false;
    v_write_apply(reply, req, vd, &background);
    uint64_t t1 = uv_hrtime();
    if (!background)
        sl_busy_add(&vd->vd_wbusy, t1, t1 - t0);
    sample_demand(vd, t1);
}

static void v_write_apply(sl_rpc_reply *reply, const sl_rpc_request *req, sl_vdaemon *vd,
                          bool *background)
{
    Sluice__WriteRequest *rq = sluice__write_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed WriteRequest");
        return;
    }
    *background = rq->background;
    if (fenced(vd, reply, req, rq->vgroup_id)) {
        sluice__write_request__free_unpacked(rq, NULL);
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    vn_write w;
    memset(&w, 0, sizeof(w));
    vn_vgroup *vg = sl__vn_need_vgroup(vd, reply, rq->vgroup_id);
    if (vg == NULL)
        goto out;
    int rc = sl__vn_write_decode(rq, &w, &err);
    if (rc == 0)
        rc = write_apply(vd, vg, reply, &w, &err);
    if (rc == SL_ENOTFOUND) {
        /* Perhaps created on the mnode since our last sync: fetch (without blocking the
         * loop) and retry once it is here. A vstore write that fails changes nothing. */
        sl_error_clear(&err);
        if (write_park(vd, vg, reply, &w))
            goto out;
        /* Cannot park: the old way, a blocking fetch. */
        sl_error e2;
        sl_error_clear(&e2);
        rc = sl__vn_sync_now(vd, vg, &e2) == 0 ? write_apply(vd, vg, reply, &w, &err)
                                               : SL_ENOTFOUND;
        if (rc == SL_ENOTFOUND && err.code == 0)
            sl_error_set(&err, rc, 0, 0, "%s", e2.code ? e2.msg : "unknown table");
    }
    if (rc < 0)
        sl__vn_reply_err(reply, rc, &err);
out:
    sl__vn_write_fini(&w);
    sluice__write_request__free_unpacked(rq, NULL);
}

/* ---------------------------------------------------------------- DELETE */

static void v_delete(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_vdaemon *vd = ud;
    Sluice__DeleteRequest *rq = sluice__delete_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed DeleteRequest");
        return;
    }
    if (fenced(vd, reply, req, rq->vgroup_id)) {
        sluice__delete_request__free_unpacked(rq, NULL);
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    vn_vgroup *vg = sl__vn_need_vgroup(vd, reply, rq->vgroup_id);
    if (vg != NULL) {
        uint64_t version = 0, n = 0;
        int rc = sl_vstore_delete(vg->vg_vs, rq->uid, rq->ts_lo, rq->ts_hi, true, &version, &n,
                                  &err);
        if (rc == SL_ENOTFOUND && sl__vn_sync_now(vd, vg, NULL) == 0) {
            sl_error_clear(&err);
            rc = sl_vstore_delete(vg->vg_vs, rq->uid, rq->ts_lo, rq->ts_hi, true, &version, &n,
                                  &err);
        }
        if (rc < 0) {
            sl__vn_reply_err(reply, rc, &err);
        } else {
            Sluice__DeleteReply rp = SLUICE__DELETE_REPLY__INIT;
            rp.version = version;
            rp.deleted = n;
            vg->vg_write_reqs++;
            sl_rpc_reply_msg(reply, &rp.base);
            sl__vn_wake_polls(vg);
        }
    }
    sluice__delete_request__free_unpacked(rq, NULL);
}

/* ---------------------------------------------------------------- STATUS */

static void v_status(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_vdaemon *vd = ud;
    Sluice__StatusRequest *rq = sluice__status_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed StatusRequest");
        return;
    }
    vn_vgroup *vg = sl__vn_need_vgroup(vd, reply, rq->vgroup_id);
    if (vg != NULL) {
        sl_vstore_stats st;
        sl_vstore_get_stats(vg->vg_vs, &st);
        Sluice__StatusReply rp = SLUICE__STATUS_REPLY__INIT;
        rp.last_version = st.last_version;
        rp.first_retained_version = st.first_retained;
        rp.tables = st.tables;
        sl_rpc_reply_msg(reply, &rp.base);
    }
    sluice__status_request__free_unpacked(rq, NULL);
}

const sl_rpc_method sl__vnode_methods[] = {
    {.number = SLUICE__VNODE_METHOD__VNODE_WRITE, .name = "WRITE", .handler = v_write},
    {.number = SLUICE__VNODE_METHOD__VNODE_DELETE, .name = "DELETE", .handler = v_delete},
    {.number = SLUICE__VNODE_METHOD__VNODE_QUERY, .name = "QUERY", .handler = sl__vn_query},
    {.number = SLUICE__VNODE_METHOD__VNODE_CHANGES, .name = "CHANGES", .handler = sl__vn_changes},
    {.number = SLUICE__VNODE_METHOD__VNODE_STATUS, .name = "STATUS", .handler = v_status},
};
const int sl__vnode_nmethods = (int)(sizeof(sl__vnode_methods) / sizeof(sl__vnode_methods[0]));
