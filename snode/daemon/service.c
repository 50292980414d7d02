/*
 * service.c - the snode's RPC service (proto/snode.proto). SNODE_STATUS reports what the
 * node holds: its node id, the epoch it acts on and its assignment (streams, owned slot
 * bitmaps, running flag, parse state), so tests and tools can check that the snodes really
 * hold what the mnode says. Requests are bounded (a status request is a few bytes) and
 * garbage gets an error reply.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "common/util/log.h"
#include "sdaemon.h"
#include "snode.pb-c.h"

/* Largest SnodeStatusRequest accepted. */
#define SN_MAX_STATUS_REQ 1024

static void s_status(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_sdaemon *sd = ud;
    if (req->len > SN_MAX_STATUS_REQ) {
        sl_rpc_reply_fail(reply, SL_ELIMIT, "SnodeStatusRequest of %zu bytes (most %d)",
                          req->len, SN_MAX_STATUS_REQ);
        return;
    }
    Sluice__SnodeStatusRequest *rq = sluice__snode_status_request__unpack(NULL, req->len,
                                                                           req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed SnodeStatusRequest");
        return;
    }
    uint32_t version = rq->version;
    sluice__snode_status_request__free_unpacked(rq, NULL);
    if (version > 1) {
        sl_rpc_reply_fail(reply, SL_EUNSUPPORTED, "SnodeStatusRequest version %u", version);
        return;
    }
    const sn_assignment *as = &sd->sd_as;
    size_t n = (size_t)as->nstreams;
    Sluice__SnodeStream *ss = calloc(n ? n : 1, sizeof(*ss));
    Sluice__SnodeStream **sp = calloc(n ? n : 1, sizeof(*sp));
    if (ss == NULL || sp == NULL) {
        free(ss);
        free(sp);
        sl_rpc_reply_fail(reply, SL_ENOMEM, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const sn_stream *s = &as->streams[i];
        sluice__snode_stream__init(&ss[i]);
        ss[i].stream_id = s->id;
        ss[i].db = s->db;
        ss[i].name = s->name;
        ss[i].slots.data = s->slots;
        ss[i].slots.len = (as->nslots + 7) / 8;
        ss[i].nslots_owned = s->nowned;
        ss[i].running = s->running;
        ss[i].failed = s->error != NULL;
        if (s->error)
            ss[i].error = s->error;
        ss[i].trigger = (char *)sl__sn_trigger_name(s);
        ss[i].ignore_untreated = s->ignore_untreated;
        ss[i].plan_db = s->plan_db;
        sl_stask_status st;
        if (sl__sn_task_status(sd, s->id, &st)) {
            ss[i].calc_here = st.calc_here;
            ss[i].calc_remote = st.calc_remote;
            ss[i].rows_kept_bytes = st.rows_kept_bytes;
        }
        sp[i] = &ss[i];
    }
    Sluice__SnodeStatusReply rp = SLUICE__SNODE_STATUS_REPLY__INIT;
    rp.version = 1;
    rp.node_id = sd->sd_node_id;
    rp.epoch = as->epoch;
    rp.slots = as->nslots;
    rp.address = sd->sd_addr;
    rp.mnode_ok = sd->sd_link == SN_LINK_OK;
    rp.n_streams = n;
    rp.streams = sp;
    rp.assignments = sd->sd_applied;
    sl_rpc_reply_msg(reply, &rp.base);
    free(ss);
    free(sp);
}

const sl_rpc_method sl__snode_methods[] = {
    {.number = SLUICE__SNODE_METHOD__SNODE_STATUS, .name = "STATUS", .handler = s_status},
};
const int sl__snode_nmethods = (int)(sizeof(sl__snode_methods) / sizeof(sl__snode_methods[0]));
