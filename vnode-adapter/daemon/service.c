/*
 * service.c - the vnode's write and change-log methods (proto/vnode.proto): VNODE_WRITE,
 * VNODE_DELETE, VNODE_CHANGES with its long poll, VNODE_STATUS. VNODE_QUERY is query.c.
 *
 * Writes are durable before they are acknowledged, so an acknowledged write survives
 * kill -9 and power loss: they are applied with sync off and acknowledged by the group
 * commit (sl__vn_commit) after one log sync per written vgroup covers them. A write naming
 * a table the vgroup does not know yet (created on the mnode moments ago, before the
 * heartbeat brought it here) waits while the vnode fetches the vgroup's table list from
 * the mnode - asynchronously, so the loop goes on serving everything else - and is retried
 * when it arrives before it is refused.
 *
 * A change-log read with nothing after after_version and wait_ms > 0 is parked: the reply
 * handle waits in the vgroup's poll list until a write or delete lands (sl__vn_wake_polls
 * after every commit) or its timer fires (an empty reply). The RPC layer's max_inflight
 * bounds how many can be parked.
 *
 * A ChangesRequest with a filter (an snode's trigger reader) is compiled once against the
 * trigger table's schema and read through sl_vs_changes_read_filtered; a parked filtered
 * poll keeps its filter and an internal cursor that moves past the changes it skips, so
 * writes to other tables or slots neither wake its reader nor make it read them again.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/log.h"
#include "mnode.pb-c.h"
#include "vdaemon.h"
#include "vnode.pb-c.h"
#include "vrequest.h"



static void reply_err(sl_rpc_reply *reply, int rc, sl_error *err)
{
    if (err->code == 0)
        sl_error_set(err, rc, 0, 0, "%s", sl_strerror(rc));
    sl_rpc_reply_error(reply, err);
}

static vn_vgroup *need_vgroup(sl_vdaemon *vd, sl_rpc_reply *reply, uint32_t id)
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
 * Group commit: a write is applied with sync off and its reply parked in vd_pending; after
 * the loop iteration's I/O (every request that arrived meanwhile has been applied), the
 * check handle syncs each written vgroup's log once and only then acknowledges. No write
 * is acknowledged before it is durable; several requests share one fsync.
 */
struct vn_pending {
    vn_pending *next;
    sl_rpc_reply *reply; /* NULL once the server gave up on it */
    vn_vgroup *vg;
    uint64_t version, rows;
};

static void pending_cancel(sl_rpc_reply *reply, void *arg)
{
    (void)reply;
    ((vn_pending *)arg)->reply = NULL;
}

void sl__vn_commit(sl_vdaemon *vd)
{
    vn_pending *p = vd->vd_pending;
    if (p == NULL)
        return;
    vd->vd_pending = NULL;
    vd->vd_pending_tail = &vd->vd_pending;
    /* One sync per written vgroup; a failed vgroup is remembered by clearing vg_dirty
     * only on success and failing its writes below. */
    sl_error serr[1];
    for (int i = 0; i < vd->vd_nvgroups; i++) {
        vn_vgroup *vg = vd->vd_vgroups[i];
        if (!vg->vg_dirty)
            continue;
        sl_error_clear(serr);
        if (sl_vstore_sync(vg->vg_vs, serr) == 0) {
            vg->vg_dirty = false;
        } else {
            sl_log(SL_LOG_ERROR, "vnode", "group commit sync failed vgroup_id=%u: %s", vg->vg_id,
                   serr->msg);
        }
    }
    while (p != NULL) {
        vn_pending *next = p->next;
        if (p->reply != NULL) {
            sl_rpc_reply_on_cancel(p->reply, NULL, NULL);
            if (p->vg->vg_dirty) {
                sl_rpc_reply_fail(p->reply, SL_EIO,
                                  "vgroup %u: the write was applied but could not be synced",
                                  p->vg->vg_id);
            } else {
                p->vg->vg_rows_written += p->rows;
                p->vg->vg_write_reqs++;
                vd->vd_rows_written += p->rows;
                Sluice__WriteReply rp = SLUICE__WRITE_REPLY__INIT;
                rp.version = p->version;
                rp.rows = p->rows;
                sl_rpc_reply_msg(p->reply, &rp.base);
            }
        }
        free(p);
        p = next;
    }
    for (int i = 0; i < vd->vd_nvgroups; i++) {
        vn_vgroup *vg = vd->vd_vgroups[i];
        vg->vg_dirty = false; /* a failed sync was reported to its writers */
        sl__vn_wake_polls(vg);
    }
}

void sl__vn_commit_cb(uv_check_t *h)
{
    sl__vn_commit(h->data);
}

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
        reply_err(reply, SL_ESTALE, &e);
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
    vn_pending *p = calloc(1, sizeof(*p));
    int rc = p == NULL ? SL_ENOMEM : sl_vstore_write(vg->vg_vs, w->w_items, w->w_n, false,
                                                     &version, err);
    if (rc < 0) {
        free(p);
        return rc;
    }
    /* Acknowledged by sl__vn_commit once synced. */
    vg->vg_dirty = true;
    p->reply = reply;
    p->vg = vg;
    p->version = version;
    p->rows = w->w_rows;
    if (vd->vd_pending_tail == NULL)
        vd->vd_pending_tail = &vd->vd_pending;
    *vd->vd_pending_tail = p;
    vd->vd_pending_tail = &p->next;
    sl_rpc_reply_on_cancel(reply, pending_cancel, p);
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
                reply_err(p->reply, wrc, &werr);
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

static void v_write(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_vdaemon *vd = ud;
    Sluice__WriteRequest *rq = sluice__write_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed WriteRequest");
        return;
    }
    if (fenced(vd, reply, req, rq->vgroup_id)) {
        sluice__write_request__free_unpacked(rq, NULL);
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    vn_write w;
    memset(&w, 0, sizeof(w));
    vn_vgroup *vg = need_vgroup(vd, reply, rq->vgroup_id);
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
        reply_err(reply, rc, &err);
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
    vn_vgroup *vg = need_vgroup(vd, reply, rq->vgroup_id);
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
            reply_err(reply, rc, &err);
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

/* ---------------------------------------------------------------- CHANGES */

struct vn_poll {
    vn_poll *next;
    vn_vgroup *vg;
    sl_rpc_reply *reply;
    uint64_t after;           /* filtered: advanced past changes its filter skipped */
    uint32_t max_bytes, max_entries;
    sl_vs_cfilter *filter;    /* owned; NULL: an unfiltered read */
    uv_timer_t timer;
};

/* The protobuf changes of one ChangesReply and the encoded blocks they point into. */
typedef struct vn_creply {
    Sluice__Change *cs;  /* the changes */
    Sluice__Change **cp; /* pointers to them, as the reply wants */
    sl_buf *bufs;        /* block bytes of change i */
    size_t n;            /* changes */
} vn_creply;

/* Allocates room for n changes; returns 0 or SL_ENOMEM (creply_send still frees r). */
static int creply_init(vn_creply *r, size_t n)
{
    r->n = n;
    r->cs = calloc(n + 1, sizeof(*r->cs));
    r->cp = calloc(n + 1, sizeof(*r->cp));
    r->bufs = calloc(n + 1, sizeof(*r->bufs));
    return r->cs == NULL || r->cp == NULL || r->bufs == NULL ? SL_ENOMEM : 0;
}

/* Starts change i with the fields every kind has; returns it for the rest. */
static Sluice__Change *creply_change(vn_creply *r, size_t i, uint64_t version, uint64_t uid,
                                     sl_vs_change_kind kind)
{
    Sluice__Change *x = &r->cs[i];
    sluice__change__init(x);
    sl_buf_init(&r->bufs[i]);
    x->version = version;
    x->uid = uid;
    x->kind = (uint32_t)kind;
    r->cp[i] = x;
    return x;
}

/* Sends rp (borrowed; its other fields set by the caller) with r's changes, or fails the
 * reply with rc when encoding failed; then frees r. */
static void creply_send(vn_creply *r, sl_rpc_reply *reply, int rc, Sluice__ChangesReply *rp,
                        vn_vgroup *vg, uint64_t last_version)
{
    if (rc < 0) {
        sl_rpc_reply_fail(reply, rc, "cannot encode changes: %s", sl_strerror(rc));
    } else {
        rp->n_changes = r->n;
        rp->changes = r->cp;
        rp->last_version = last_version;
        rp->first_retained_version = sl_vstore_first_retained_version(vg->vg_vs);
        sl_rpc_reply_msg(reply, &rp->base);
    }
    for (size_t i = 0; r->bufs && i < r->n; i++)
        sl_buf_fini(&r->bufs[i]);
    free(r->bufs);
    free(r->cs);
    free(r->cp);
}

/* Answers a filtered read (see answer_changes). */
static bool answer_filtered(sl_rpc_reply *reply, vn_vgroup *vg, uint64_t *after,
                            uint32_t max_bytes, uint32_t max_entries, sl_vs_cfilter *f,
                            bool park)
{
    sl_vs_fchanges ch;
    sl_error err = {0};
    sl_error_clear(&err);
    int rc = sl_vs_changes_read_filtered(vg->vg_vs, vg->vg_tcache, f, *after, max_bytes,
                                         max_entries, 0, &ch, &err);
    if (rc < 0) {
        reply_err(reply, rc, &err);
        return true;
    }
    /* Everything there was filtered out: wait on from the advanced cursor (the timeout's
     * empty reply carries it), unless a bound stopped the read early. */
    if (ch.n == 0 && park && !ch.more) {
        *after = ch.last_version;
        sl_vs_fchanges_fini(&ch);
        return false;
    }
    Sluice__ChangesReply rp = SLUICE__CHANGES_REPLY__INIT;
    vn_creply cr;
    rc = creply_init(&cr, ch.n);
    for (size_t i = 0; rc == 0 && i < ch.n; i++) {
        const sl_vs_fchange *c = &ch.v[i];
        Sluice__Change *x = creply_change(&cr, i, c->version, c->uid, c->kind);
        x->table_name = c->name;
        x->group_id = c->group_id;
        x->unfiltered = c->unfiltered;
        x->count = c->count;
        if (c->kind == SL_VS_CHANGE_ROWS) {
            rc = sl_block_encode(&c->rows, &cr.bufs[i]);
            x->block.data = cr.bufs[i].data;
            x->block.len = cr.bufs[i].len;
        } else if (c->kind == SL_VS_CHANGE_DELETE) {
            x->ts_lo = c->del_lo;
            x->ts_hi = c->del_hi;
        }
    }
    rp.more = ch.more;
    creply_send(&cr, reply, rc, &rp, vg, ch.last_version);
    sl_vs_fchanges_fini(&ch);
    return true;
}

/* Reads changes after `after` and answers; returns false (nothing sent) when there are
 * none and park is set. */
static bool answer_changes(sl_rpc_reply *reply, vn_vgroup *vg, uint64_t after, uint32_t max_bytes,
                           uint32_t max_entries, bool park)
{
    sl_vs_changes ch;
    memset(&ch, 0, sizeof(ch));
    sl_error err = {0};
    sl_error_clear(&err);
    int rc = sl_vstore_changes_read(vg->vg_vs, after, max_bytes, max_entries, &ch, &err);
    if (rc < 0) {
        reply_err(reply, rc, &err);
        return true;
    }
    if (ch.n == 0 && park) {
        sl_vs_changes_fini(&ch);
        return false;
    }
    Sluice__ChangesReply rp = SLUICE__CHANGES_REPLY__INIT;
    vn_creply cr;
    rc = creply_init(&cr, ch.n);
    for (size_t i = 0; rc == 0 && i < ch.n; i++) {
        const sl_vs_change *c = &ch.v[i];
        Sluice__Change *x = creply_change(&cr, i, c->version, c->uid, c->kind);
        if (c->kind == SL_VS_CHANGE_ROWS) {
            rc = sl__vn_change_block(c, &cr.bufs[i]);
            x->block.data = cr.bufs[i].data;
            x->block.len = cr.bufs[i].len;
            x->count = c->rows.nrows;
        } else if (c->kind == SL_VS_CHANGE_DELETE) {
            x->ts_lo = c->del_lo;
            x->ts_hi = c->del_hi;
            x->count = c->del_count;
        }
    }
    creply_send(&cr, reply, rc, &rp, vg, ch.last_version);
    sl_vs_changes_fini(&ch);
    return true;
}

static void poll_free_cb(uv_handle_t *h)
{
    vn_poll *p = h->data;
    sl_vs_cfilter_free(p->filter);
    free(p);
}

/* Answers p (parking again when filtered and everything new was skipped and park). */
static bool poll_answer(vn_poll *p, bool park)
{
    if (p->filter != NULL)
        return answer_filtered(p->reply, p->vg, &p->after, p->max_bytes, p->max_entries,
                               p->filter, park);
    return answer_changes(p->reply, p->vg, p->after, p->max_bytes, p->max_entries, park);
}

/* Unlinks p from its vgroup and frees it (the timer closes asynchronously). */
static void poll_drop(vn_poll *p)
{
    vn_poll **pp = &p->vg->vg_polls;
    while (*pp != NULL && *pp != p)
        pp = &(*pp)->next;
    if (*pp == p)
        *pp = p->next;
    uv_timer_stop(&p->timer);
    p->timer.data = p;
    uv_close((uv_handle_t *)&p->timer, poll_free_cb);
}

static void poll_timeout(uv_timer_t *t)
{
    vn_poll *p = t->data;
    sl_rpc_reply_on_cancel(p->reply, NULL, NULL);
    poll_answer(p, false);
    poll_drop(p);
}

static void poll_cancel(sl_rpc_reply *reply, void *arg)
{
    (void)reply;
    poll_drop(arg);
}

void sl__vn_wake_polls(vn_vgroup *vg)
{
    uint64_t last = sl_vstore_last_version(vg->vg_vs);
    vn_poll *p = vg->vg_polls;
    while (p != NULL) {
        vn_poll *next = p->next;
        /* A filtered poll whose new changes were all skipped stays parked. */
        if (p->after < last && poll_answer(p, p->filter != NULL)) {
            sl_rpc_reply_on_cancel(p->reply, NULL, NULL);
            poll_drop(p);
        }
        p = next;
    }
}

void sl__vn_fail_polls(vn_vgroup *vg)
{
    while (vg->vg_polls != NULL) {
        vn_poll *p = vg->vg_polls;
        sl_rpc_reply_on_cancel(p->reply, NULL, NULL);
        sl_rpc_reply_fail(p->reply, SL_EUNAVAILABLE, "vgroup %u closed", vg->vg_id);
        poll_drop(p);
    }
}

/* Field arrays of a vstore definition's columns (owned array, borrowed names). */
static sl_field *fields_of(const sl_vs_column *c, uint32_t n)
{
    sl_field *f = calloc(n + 1, sizeof(*f));
    for (uint32_t i = 0; f != NULL && i < n; i++) {
        f[i].name = c[i].name;
        f[i].type = c[i].type;
        f[i].width = c[i].width;
    }
    return f;
}

/* Compiles the request's filter against the trigger table's schema: a super table of the
 * vgroup's database, or a registered child/normal table. */
static int filter_compile(vn_vgroup *vg, const sl_vs_filter_spec *spec, sl_vs_cfilter **out,
                          sl_error *err)
{
    for (int i = 0; i < vg->vg_nstables; i++) {
        const vn_stable *st = &vg->vg_stables[i];
        if (st->uid != spec->table_uid)
            continue;
        sl_table_meta m = {.kind = SL_TABLE_SUPER, .db = vg->vg_db, .name = st->name,
                           .precision = vg->vg_prec, .ncols = st->ncols, .cols = st->cols,
                           .ntags = st->ntags, .tags = st->tags};
        return sl_vs_cfilter_compile(spec, &m, out, err);
    }
    const sl_vs_table_def *d;
    if (sl_vstore_table_acquire(vg->vg_vs, spec->table_uid, &d, NULL) != 0)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0,
                            "trigger table uid %" PRIu64 " is not a table of vgroup %u",
                            spec->table_uid, vg->vg_id);
    sl_field *cols = fields_of(d->cols, d->ncols), *tags = fields_of(d->tags, d->ntags);
    int rc;
    if (cols == NULL || tags == NULL) {
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    } else {
        sl_table_meta m = {.kind = d->kind == SL_VS_TABLE_CHILD ? SL_TABLE_CHILD : SL_TABLE_NORMAL,
                           .db = vg->vg_db, .name = d->name, .precision = d->precision,
                           .ncols = (int)d->ncols, .cols = cols, .ntags = (int)d->ntags,
                           .tags = tags};
        rc = sl_vs_cfilter_compile(spec, &m, out, err);
    }
    free(cols);
    free(tags);
    sl_vstore_table_release(d);
    return rc;
}

static void v_changes(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_vdaemon *vd = ud;
    Sluice__ChangesRequest *rq = sluice__changes_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed ChangesRequest");
        return;
    }
    sl_vs_cfilter *filter = NULL;
    vn_vgroup *vg = need_vgroup(vd, reply, rq->vgroup_id);
    if (vg != NULL && rq->filter != NULL) {
        /* Compiled once per request; a parked poll keeps it. */
        sl_vs_filter_spec spec;
        sl_error err = {0};
        sl_error_clear(&err);
        int rc = sl__vn_changes_filter_decode(rq, &spec, &err);
        if (rc == 0) {
            rc = filter_compile(vg, &spec, &filter, &err);
            if (rc == SL_ENOTFOUND && sl__vn_sync_now(vd, vg, NULL) == 0) {
                /* Perhaps created on the mnode since our last sync. */
                sl_error_clear(&err);
                rc = filter_compile(vg, &spec, &filter, &err);
            }
        }
        if (rc < 0) {
            reply_err(reply, rc, &err);
            vg = NULL;
        }
    }
    if (vg != NULL) {
        uint32_t mb, wait;
        sl__vn_changes_bounds(rq, &mb, &wait);
        uint64_t after = rq->after_version;
        bool answered =
            filter != NULL
                ? answer_filtered(reply, vg, &after, mb, rq->max_entries, filter, wait > 0)
                : answer_changes(reply, vg, after, mb, rq->max_entries, wait > 0);
        if (!answered) {
            vn_poll *p = calloc(1, sizeof(*p));
            if (p == NULL) {
                sl_rpc_reply_fail(reply, SL_ENOMEM, "out of memory");
            } else {
                p->vg = vg;
                p->reply = reply;
                p->after = after;
                p->max_bytes = mb;
                p->max_entries = rq->max_entries;
                p->filter = filter;
                filter = NULL;
                uv_timer_init(vd->vd_loop, &p->timer);
                p->timer.data = p;
                uv_timer_start(&p->timer, poll_timeout, wait, 0);
                p->next = vg->vg_polls;
                vg->vg_polls = p;
                sl_rpc_reply_on_cancel(reply, poll_cancel, p);
            }
        }
    }
    sl_vs_cfilter_free(filter);
    sluice__changes_request__free_unpacked(rq, NULL);
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
    vn_vgroup *vg = need_vgroup(vd, reply, rq->vgroup_id);
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
    {.number = SLUICE__VNODE_METHOD__VNODE_CHANGES, .name = "CHANGES", .handler = v_changes},
    {.number = SLUICE__VNODE_METHOD__VNODE_STATUS, .name = "STATUS", .handler = v_status},
};
const int sl__vnode_nmethods = (int)(sizeof(sl__vnode_methods) / sizeof(sl__vnode_methods[0]));
