/*
 * assign.c - the snode's in-memory assignment: every stream with at least one (stream,
 * slot) pair placed on this node, its slot bitmap, its running flag and its CREATE STREAM
 * text parsed with the SQL parser (common/sql) when received. A heartbeat reply that
 * carries an assignment replaces the whole set at once (the mnode always sends the
 * node's complete assignment at an epoch), so the node never acts on a mix of epochs.
 * A text that does not parse marks its stream failed (reported in status and heartbeats)
 * rather than stopping the node.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/log.h"
#include "mnode.pb-c.h"
#include "sdaemon.h"

static void stream_fini(sn_stream *s)
{
    free(s->db);
    free(s->name);
    free(s->sql);
    free(s->plan_db);
    free(s->slots);
    free(s->error);
    sl_parse_result_free(s->parsed);
    memset(s, 0, sizeof(*s));
}

void sl__sn_assignment_fini(sn_assignment *as)
{
    for (int i = 0; i < as->nstreams; i++)
        stream_fini(&as->streams[i]);
    free(as->streams);
    memset(as, 0, sizeof(*as));
}

const char *sl__sn_trigger_name(const sn_stream *s)
{
    if (s->cs == NULL)
        return "";
    switch (s->cs->trigger.kind) {
    case SL_TRIG_PERIOD: return "PERIOD";
    case SL_TRIG_SLIDING: return "SLIDING";
    case SL_TRIG_INTERVAL: return "INTERVAL";
    case SL_TRIG_SESSION: return "SESSION";
    case SL_TRIG_STATE: return "STATE_WINDOW";
    case SL_TRIG_EVENT: return "EVENT_WINDOW";
    case SL_TRIG_COUNT: return "COUNT_WINDOW";
    }
    return "?";
}

int sl__sn_assign_check(const Sluice__SnodeHeartbeatReply *rp, sl_error *err)
{
    if (!rp->assignment)
        return 0;
    if (rp->slots == 0 || rp->slots > SN_MAX_SLOTS)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "assignment with %u slots per stream",
                            rp->slots);
    if (rp->n_streams > SN_MAX_STREAMS)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "assignment of %zu streams (most %d)",
                            rp->n_streams, SN_MAX_STREAMS);
    size_t bytes = (rp->slots + 7) / 8;
    for (size_t i = 0; i < rp->n_streams; i++) {
        const Sluice__StreamAssignment *a = rp->streams[i];
        if (strlen(a->db) > SN_MAX_NAME || strlen(a->name) > SN_MAX_NAME ||
            strlen(a->plan_db) > SN_MAX_NAME)
            return sl_error_set(err, SL_ECORRUPT, 0, 0, "stream_id=%" PRIu64 ": name too long",
                                a->stream_id);
        if (strlen(a->sql) > SL_SQL_MAX_LEN)
            return sl_error_set(err, SL_ECORRUPT, 0, 0, "stream_id=%" PRIu64 ": text too long",
                                a->stream_id);
        if (a->slots.len > bytes)
            return sl_error_set(err, SL_ECORRUPT, 0, 0,
                                "stream_id=%" PRIu64 ": slot bitmap of %zu bytes for %u slots",
                                a->stream_id, a->slots.len, rp->slots);
        for (size_t j = 0; j < i; j++)
            if (rp->streams[j]->stream_id == a->stream_id)
                return sl_error_set(err, SL_ECORRUPT, 0, 0,
                                    "stream_id=%" PRIu64 " assigned twice", a->stream_id);
    }
    return 0;
}

static char *dup_str(const char *s)
{
    return strdup(s ? s : "");
}

/* Parses s->sql into s->parsed / s->cs, or sets s->error. Returns SL_ENOMEM only. */
static int parse_stream(sn_stream *s)
{
    sl_error err = {0};
    sl_error_clear(&err);
    sl_parse_result *r = NULL;
    int rc = sl_parse(s->sql, strlen(s->sql), &r, &err);
    if (rc == SL_ENOMEM)
        return rc;
    if (rc == 0 && (r->nstmts != 1 || r->stmts[0]->kind != SL_STMT_CREATE_STREAM)) {
        sl_error_set(&err, SL_EINVAL, 0, 0, "not one CREATE STREAM statement (%d statements)",
                     r->nstmts);
        sl_parse_result_free(r);
        r = NULL;
        rc = SL_EINVAL;
    }
    if (rc < 0) {
        s->error = strdup(err.msg[0] ? err.msg : sl_strerror(rc));
        if (s->error == NULL)
            return SL_ENOMEM;
        sl_log(SL_LOG_WARN, "snode", "stream text does not parse stream_id=%" PRIu64
               " name=%s.%s: %s", s->id, s->db, s->name, s->error);
        return 0;
    }
    s->parsed = r;
    s->cs = &r->stmts[0]->u.create_stream;
    return 0;
}

static const sn_stream *find_old(const sn_assignment *as, uint64_t id)
{
    int lo = 0, hi = as->nstreams;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (as->streams[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < as->nstreams && as->streams[lo].id == id ? &as->streams[lo] : NULL;
}

static int cmp_stream(const void *a, const void *b)
{
    const sn_stream *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static uint32_t popcount_bytes(const uint8_t *p, size_t n, uint32_t nslots)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < nslots && i / 8 < n; i++)
        c += (p[i / 8] >> (i % 8)) & 1u;
    return c;
}

int sl__sn_assign(sl_sdaemon *sd, const Sluice__SnodeHeartbeatReply *rp)
{
    sn_assignment *old = &sd->sd_as;
    sn_assignment nw = {.epoch = rp->epoch, .nslots = rp->slots};
    size_t bytes = (rp->slots + 7) / 8;
    if (rp->n_streams > 0) {
        nw.streams = calloc(rp->n_streams, sizeof(*nw.streams));
        if (nw.streams == NULL)
            return SL_ENOMEM;
    }
    int added = 0, changed = 0, failed = 0, stopped = 0;
    uint64_t owned = 0;
    for (size_t i = 0; i < rp->n_streams; i++) {
        const Sluice__StreamAssignment *a = rp->streams[i];
        sn_stream *s = &nw.streams[nw.nstreams++];
        s->id = a->stream_id;
        s->db = dup_str(a->db);
        s->name = dup_str(a->name);
        s->sql = dup_str(a->sql);
        s->plan_db = dup_str(a->plan_db);
        s->slots = calloc(bytes ? bytes : 1, 1);
        if (s->db == NULL || s->name == NULL || s->sql == NULL || s->plan_db == NULL ||
            s->slots == NULL)
            goto fail;
        if (a->slots.len > 0)
            memcpy(s->slots, a->slots.data, a->slots.len);
        s->nowned = popcount_bytes(s->slots, bytes, rp->slots);
        s->running = a->running;
        s->ignore_untreated = a->ignore_untreated;
        s->ignore_untreated_epoch = a->ignore_untreated_epoch;
        owned += s->nowned;
        stopped += !s->running;
        const sn_stream *o = find_old(old, s->id);
        if (o != NULL && old->nslots == nw.nslots && strcmp(o->sql, s->sql) == 0) {
            /* Unchanged text: take over its parse (the old set is freed below). */
            sn_stream *mo = (sn_stream *)o;
            s->parsed = mo->parsed;
            s->cs = mo->cs;
            s->error = mo->error;
            mo->parsed = NULL;
            mo->cs = NULL;
            mo->error = NULL;
            if (memcmp(o->slots, s->slots, bytes) != 0 || o->running != s->running)
                changed++;
        } else {
            if (parse_stream(s) < 0)
                goto fail;
            if (o == NULL)
                added++;
            else
                changed++;
        }
        failed += s->error != NULL;
    }
    if (nw.nstreams > 1)
        qsort(nw.streams, (size_t)nw.nstreams, sizeof(*nw.streams), cmp_stream);
    int removed = 0;
    for (int i = 0; i < old->nstreams; i++)
        removed += find_old(&nw, old->streams[i].id) == NULL;
    sl_log(SL_LOG_INFO, "snode",
           "assignment epoch=%" PRIu64 " (was %" PRIu64 ") streams=%d pairs=%" PRIu64
           " slots_per_stream=%u added=%d removed=%d changed=%d stopped=%d failed=%d",
           nw.epoch, old->epoch, nw.nstreams, owned, nw.nslots, added, removed, changed, stopped,
           failed);
    for (int i = 0; i < nw.nstreams; i++) {
        const sn_stream *s = &nw.streams[i];
        sl_log(SL_LOG_DEBUG, "snode", "stream_id=%" PRIu64 " name=%s.%s slots=%u running=%d%s",
               s->id, s->db, s->name, s->nowned, s->running, s->error ? " failed" : "");
    }
    sl__sn_assignment_fini(old);
    *old = nw;
    sd->sd_applied++;
    return 0;

fail:
    sl__sn_assignment_fini(&nw);
    return SL_ENOMEM;
}
