/*
 * mlink.c - the snode's link to the mnode (docs/cluster.md, "snodes").
 *
 * Every --heartbeat-ms the tick either registers (MNODE_REGISTER, kind 2, the address the
 * snode serves on; the mnode answers the node id, the same one for the same address) or
 * heartbeats (MNODE_SNODE_HEARTBEAT: node id, the epoch the snode acts on, memory, load
 * and per-stream task status). A reply that carries an assignment replaces the node's
 * assignment (assign.c) and its epoch is reported from the next heartbeat on. The mnode
 * answering SL_ENOTFOUND has forgotten the node: it registers again, keeping its
 * assignment meanwhile. SL_ESTATE or dropped = true means DROP SNODE removed it (its
 * pairs have moved): it stops its tasks, sends MNODE_LEAVE at once and exits 0.
 * SIGTERM/SIGINT drain first, heartbeating while every task writes its last checkpoint,
 * and leave once the last one has ended (main.c).
 *
 * When the mnode cannot be reached the node keeps acting on its last assignment and
 * keeps retrying; the link's state changes are logged once each, not every attempt. One
 * call at a time is in flight; all calls are sl_rpc_call_async on the loop, with
 * envelope epoch 0 (heartbeats carry the epoch in their body: an snode behind must still
 * be able to catch up).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util/log.h"
#include "mnode.pb-c.h"
#include "sdaemon.h"

/* Bounded wait for the LEAVE reply before exiting anyway. */
#define SN_LEAVE_TIMEOUT_MS 3000

static int call_timeout(const sl_sdaemon *sd)
{
    int t = sd->sd_heartbeat_ms * 4;
    return t < 1000 ? 1000 : t > 3000 ? 3000 : t;
}

static int call_pb(sl_sdaemon *sd, uint32_t method, const ProtobufCMessage *m, int timeout_ms,
                   sl_rpc_done_fn cb)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *p = malloc(n ? n : 1);
    if (p == NULL)
        return SL_ENOMEM;
    protobuf_c_message_pack(m, p);
    int rc = sl_rpc_call_async(sd->sd_mnode, sd->sd_loop, method, 0, p, n, timeout_ms, cb, sd);
    free(p);
    return rc;
}

static uint64_t memory_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, rss = 0;
    if (f == NULL)
        return 0;
    if (fscanf(f, "%lu %lu", &size, &rss) != 2)
        rss = 0;
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return (uint64_t)rss * (uint64_t)(page > 0 ? page : 4096);
}

/* ---------------------------------------------------------------- link state */

static void link_down(sl_sdaemon *sd, const char *what, int rc, const sl_error *err)
{
    if (sd->sd_link == SN_LINK_DOWN)
        return;
    sd->sd_link = SN_LINK_DOWN;
    sl_log(SL_LOG_WARN, "snode",
           "mnode unreachable: %s failed: %s; keeping assignment epoch=%" PRIu64
           " streams=%d and retrying every %d ms mnode=%s",
           what, err && err->msg[0] ? err->msg : sl_strerror(rc), sd->sd_as.epoch,
           sd->sd_as.nstreams, sd->sd_heartbeat_ms, sd->sd_mnode_url);
}

static void link_up(sl_sdaemon *sd)
{
    if (sd->sd_link == SN_LINK_DOWN)
        sl_log(SL_LOG_INFO, "snode", "mnode reachable again mnode=%s node_id=%u",
               sd->sd_mnode_url, sd->sd_node_id);
    sd->sd_link = SN_LINK_OK;
}

/* ---------------------------------------------------------------- drain and leave */

void sl__sn_drain(sl_sdaemon *sd)
{
    uint64_t owned = 0;
    for (int i = 0; i < sd->sd_as.nstreams; i++)
        owned += sd->sd_as.streams[i].nowned;
    sl_log(SL_LOG_INFO, "snode", "draining epoch=%" PRIu64 " streams=%d slots=%" PRIu64
           " tasks=%d", sd->sd_as.epoch, sd->sd_as.nstreams, owned, sd->sd_ntasks);
    sl__sn_tasks_stop_all(sd, true); /* last checkpoints, then the slots may move */
}

static void on_stop_timer(uv_timer_t *t)
{
    sl__sn_shutdown(t->data);
}

static void schedule_shutdown(sl_sdaemon *sd)
{
    /* Not from inside the client's own callback: the timer runs it on the next turn. */
    uv_timer_start(&sd->sd_stop, on_stop_timer, 0, 0);
}

static void on_leave(void *ud, int rc, const void *reply, size_t len, const sl_error *err)
{
    sl_sdaemon *sd = ud;
    if (rc == 0) {
        Sluice__LeaveReply *rp = sluice__leave_reply__unpack(NULL, len, reply);
        sl_log(SL_LOG_INFO, "snode", "left the cluster node_id=%u epoch=%" PRIu64,
               sd->sd_node_id, rp ? rp->epoch : 0);
        if (rp)
            sluice__leave_reply__free_unpacked(rp, NULL);
    } else {
        sl_log(SL_LOG_WARN, "snode", "leave not acknowledged node_id=%u: %s (exiting anyway)",
               sd->sd_node_id, err && err->msg[0] ? err->msg : sl_strerror(rc));
    }
    schedule_shutdown(sd);
}

void sl__sn_leave(sl_sdaemon *sd, const char *why, int code)
{
    if (sd->sd_stopping)
        return;
    sd->sd_stopping = true;
    sd->sd_exit_code = code;
    uv_timer_stop(&sd->sd_tick);
    sl_log(SL_LOG_INFO, "snode", "leaving (%s) node_id=%u", why, sd->sd_node_id);
    sl__sn_drain(sd);
    if (sd->sd_node_id == 0 || sd->sd_mnode == NULL) {
        schedule_shutdown(sd);
        return;
    }
    Sluice__LeaveRequest rq = SLUICE__LEAVE_REQUEST__INIT;
    rq.node_id = sd->sd_node_id;
    if (call_pb(sd, SLUICE__MNODE_METHOD__MNODE_LEAVE, &rq.base, SN_LEAVE_TIMEOUT_MS, on_leave) <
        0)
        schedule_shutdown(sd);
}

static void dropped(sl_sdaemon *sd)
{
    sl_log(SL_LOG_WARN, "snode", "dropped from the cluster (DROP SNODE) node_id=%u",
           sd->sd_node_id);
    sl__sn_leave(sd, "dropped", 0);
    /* The identity is gone: a later start registers afresh. */
    uint32_t id = sd->sd_node_id;
    sd->sd_node_id = 0;
    sl__sn_state_save(sd);
    sd->sd_node_id = id; /* still named in the LEAVE in flight and in logs */
}

/* ---------------------------------------------------------------- heartbeat */

static void on_heartbeat(void *ud, int rc, const void *reply, size_t len, const sl_error *err)
{
    sl_sdaemon *sd = ud;
    sd->sd_calling = false;
    if (sd->sd_stopping)
        return;
    if (rc == SL_ENOTFOUND) {
        sl_log(SL_LOG_WARN, "snode",
               "mnode does not know node_id=%u: registering again (keeping epoch=%" PRIu64 ")",
               sd->sd_node_id, sd->sd_as.epoch);
        sd->sd_registered = false;
        sd->sd_link = SN_LINK_UNREGISTERED;
        return;
    }
    if (rc == SL_ESTATE) {
        dropped(sd);
        return;
    }
    if (rc < 0) {
        link_down(sd, "heartbeat", rc, err);
        return;
    }
    Sluice__SnodeHeartbeatReply *rp = sluice__snode_heartbeat_reply__unpack(NULL, len, reply);
    if (rp == NULL) {
        sl_error e = {0};
        sl_error_set(&e, SL_ECORRUPT, 0, 0, "malformed SnodeHeartbeatReply (%zu bytes)", len);
        link_down(sd, "heartbeat", SL_ECORRUPT, &e);
        return;
    }
    link_up(sd);
    if (rp->dropped) {
        sluice__snode_heartbeat_reply__free_unpacked(rp, NULL);
        dropped(sd);
        return;
    }
    sl_error e = {0};
    sl_error_clear(&e);
    if (sl__sn_assign_check(rp, &e) < 0) {
        sl_log(SL_LOG_WARN, "snode", "refusing an assignment epoch=%" PRIu64 ": %s", rp->epoch,
               e.msg);
    } else if (rp->assignment && sl__sn_assign(sd, rp) < 0) {
        sl_log(SL_LOG_ERROR, "snode", "out of memory applying assignment epoch=%" PRIu64
               " (keeping epoch=%" PRIu64 ")", rp->epoch, sd->sd_as.epoch);
    } else if (rp->assignment) {
        sl__sn_tasks_reconcile(sd);
    }
    sluice__snode_heartbeat_reply__free_unpacked(rp, NULL);
}

static void send_heartbeat(sl_sdaemon *sd)
{
    const sn_assignment *as = &sd->sd_as;
    Sluice__SnodeHeartbeatRequest rq = SLUICE__SNODE_HEARTBEAT_REQUEST__INIT;
    rq.node_id = sd->sd_node_id;
    rq.epoch = as->epoch;
    rq.memory_bytes = memory_bytes();
    rq.groups = 0;
    Sluice__TaskStatus *ts = NULL;
    Sluice__TaskStatus **tp = NULL;
    sl_stask_status *st = NULL;
    if (as->nstreams > 0) {
        ts = calloc((size_t)as->nstreams, sizeof(*ts));
        tp = calloc((size_t)as->nstreams, sizeof(*tp));
        st = calloc((size_t)as->nstreams, sizeof(*st));
        if (ts == NULL || tp == NULL || st == NULL) {
            free(ts);
            free(tp);
            free(st);
            return;
        }
    }
    size_t nt = 0;
    for (int i = 0; i < as->nstreams; i++) {
        /* A stream is reported once its task is set up (or failed): until then its rows are
         * not counted yet, and ins_stream_tasks shows NULL for them. */
        sl_stask_status *x = &st[i];
        bool have = sl__sn_task_status(sd, as->streams[i].id, x);
        if (as->streams[i].error == NULL && !(have && (x->ready || x->error[0] != '\0')))
            continue;
        Sluice__TaskStatus *y = &ts[nt];
        sluice__task_status__init(y);
        y->stream_id = as->streams[i].id;
        if (as->streams[i].error)
            y->error = as->streams[i].error;
        if (have) {
            y->lag_ms = x->lag_ms;
            y->rows = x->rows;
            rq.groups += x->groups;
            if (x->error[0] != '\0')
                y->error = x->error;
        }
        /* Notification events of the stream waiting in the outbox (per destination URL;
         * a URL shared by several streams counts for each). */
        const sl_create_stream *cs = as->streams[i].cs;
        for (int u = 0; sd->sd_notifier && cs && cs->notify.present && u < cs->notify.nurls;
             u++) {
            sl_notifier_dest_stats ds;
            sl_notifier_get_dest_stats(sd->sd_notifier, cs->notify.urls[u], &ds);
            y->outbox += ds.outbox.events;
        }
        tp[nt++] = y;
    }
    rq.n_tasks = nt;
    rq.tasks = tp;
    if (call_pb(sd, SLUICE__MNODE_METHOD__MNODE_SNODE_HEARTBEAT, &rq.base, call_timeout(sd),
                on_heartbeat) == 0)
        sd->sd_calling = true;
    free(ts);
    free(tp);
    free(st);
}

/* ---------------------------------------------------------------- register */

static void on_register(void *ud, int rc, const void *reply, size_t len, const sl_error *err)
{
    sl_sdaemon *sd = ud;
    sd->sd_calling = false;
    if (sd->sd_stopping)
        return;
    if (rc < 0) {
        link_down(sd, "register", rc, err);
        return;
    }
    Sluice__RegisterReply *rp = sluice__register_reply__unpack(NULL, len, reply);
    if (rp == NULL || rp->node_id == 0) {
        sl_error e = {0};
        sl_error_set(&e, SL_ECORRUPT, 0, 0, "malformed RegisterReply (%zu bytes)", len);
        link_down(sd, "register", SL_ECORRUPT, &e);
        if (rp)
            sluice__register_reply__free_unpacked(rp, NULL);
        return;
    }
    if (sd->sd_node_id != 0 && sd->sd_node_id != rp->node_id)
        sl_log(SL_LOG_WARN, "snode", "the mnode gave a new node_id=%u (was %u)", rp->node_id,
               sd->sd_node_id);
    bool save = sd->sd_node_id != rp->node_id;
    sd->sd_node_id = rp->node_id;
    sd->sd_registered = true;
    sluice__register_reply__free_unpacked(rp, NULL);
    if (save)
        sl__sn_state_save(sd);
    link_up(sd);
    sl_log(SL_LOG_INFO, "snode", "registered node_id=%u addr=%s mnode=%s epoch=%" PRIu64,
           sd->sd_node_id, sd->sd_addr, sd->sd_mnode_url, sd->sd_as.epoch);
    send_heartbeat(sd);
}

static void send_register(sl_sdaemon *sd)
{
    Sluice__RegisterRequest rq = SLUICE__REGISTER_REQUEST__INIT;
    rq.kind = 2;
    rq.address = sd->sd_addr;
    rq.node_id = sd->sd_node_id;
    if (call_pb(sd, SLUICE__MNODE_METHOD__MNODE_REGISTER, &rq.base, call_timeout(sd),
                on_register) == 0)
        sd->sd_calling = true;
}

void sl__sn_tick(uv_timer_t *t)
{
    sl_sdaemon *sd = t->data;
    if (sd->sd_stopping || sd->sd_calling)
        return;
    if (!sd->sd_registered)
        send_register(sd);
    else
        send_heartbeat(sd);
}
