/*
 * changes.c - VNODE_CHANGES: the change-log read with its long poll, answered by the
 * vnode's change reader thread.
 *
 * A change-log read (an snode's trigger reader: filtered to its trigger table, slots,
 * columns and PRE_FILTER) costs far more than the write it follows - reading the entries,
 * filtering, projecting and encoding them, once per stream - and used to run on the loop
 * thread, right after the group commit that woke it. Every client write waited behind
 * it: with ten streams over a table, a vnode spent three times as long answering their
 * polls as applying the writes, and ingest slowed to a fifth. Now the loop thread only
 * decodes the request, compiles its filter and hands the poll to one reader thread, which
 * reads, filters and packs the reply; the loop sends it. Writes never wait for a read,
 * and the reader runs at a lower CPU priority (--reader-nice, default 10, or idle), so when the
 * host is short of CPU, client writes come first and the streams catch up after (the
 * readers' next reads just carry more changes each).
 *
 * A poll (vn_poll) is owned by the loop thread except while it is "busy": queued for the
 * reader or being read. The reader touches only the poll's inputs, the vgroup's vstore
 * (its reader calls are thread-safe) and the vgroup's table cache, under vg_tcmu (the
 * loop takes it to tell the cache of registrations and drops). A read that finds nothing
 * (or only skipped changes) for a request that may wait parks the poll in the vgroup's
 * list until a commit (sl__vn_wake_polls) or its timer; a poll whose reply the server
 * gave up on while busy is freed when the reader hands it back. Closing a vgroup first
 * waits for its busy polls (sl__vn_reader_quiesce). The RPC layer's max_inflight bounds
 * how many polls there can be.
 *
 * A ChangesRequest with a filter is compiled once against the trigger table's schema (on
 * the loop: it reads the vgroup's super tables) and read through
 * sl_vs_changes_read_filtered; a parked filtered poll keeps its filter and a cursor that
 * moves past the changes it skips, so writes to other tables or slots neither answer its
 * reader nor make it read them again.
 *
 * Under heavy client writes the reader holds the streams' reads, and tells a stream that
 * does not yet yield at once (hold_until, answer_heavy; vdaemon.h, "Stream reads yield to
 * heavy client writes").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/net/wake.h"
#include "common/util/daemon.h"
#include "common/util/log.h"
#include "vdaemon.h"
#include "vnode.pb-c.h"
#include "vrequest.h"

struct vn_poll {
    vn_poll *next;            /* the vgroup's polls (every poll not yet answered) */
    vn_poll *qnext;           /* the reader's queue or done list */
    sl_vdaemon *vd;
    vn_vgroup *vg;
    sl_rpc_reply *reply;      /* NULL once the server gave up on it */
    uint64_t after;           /* filtered: advanced past changes its filter skipped */
    uint32_t max_bytes, max_entries;
    sl_vs_cfilter *filter;    /* owned; NULL: an unfiltered read */
    uv_timer_t timer;
    bool may_wait;            /* the request asked for a wait: an empty read parks */
    bool busy;                /* queued or being read: the reader's until handed back */
    bool expired;             /* the wait is over: the next read answers, empty or not */
    bool park;                /* this read may park (set by the loop before queueing) */
    bool held;                /* reader: it waited for heavy writes (counted once) */
    bool yielding;            /* the reader yields to heavy writes already (it was told) */
    bool heavy;               /* the reply says writes_heavy (set by the reader) */
    uint64_t queued_ns;       /* when it was queued for the reader (uv_hrtime) */
    /* The reader's result, for the loop. */
    bool answered;            /* false: nothing to send, park (after advanced) */
    int rc;                   /* < 0: answer the error err */
    sl_error err;
    uint8_t *bytes;           /* packed ChangesReply (owned) */
    size_t len;
};

/* ---------------------------------------------------------------- reading (reader thread) */

/* The protobuf changes of one ChangesReply and the encoded blocks they point into. */
typedef struct vn_creply {
    Sluice__Change *cs;  /* the changes */
    Sluice__Change **cp; /* pointers to them, as the reply wants */
    sl_buf *bufs;        /* block bytes of change i */
    size_t n;            /* changes */
} vn_creply;

/* Allocates room for n changes; returns 0 or SL_ENOMEM (creply_pack still frees r). */
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

/* Packs rp (its other fields set by the caller) with r's changes into p's result, or
 * records the error rc; then frees r. */
static void creply_pack(vn_poll *p, vn_creply *r, int rc, Sluice__ChangesReply *rp,
                        uint64_t last_version)
{
    p->answered = true;
    if (rc == 0) {
        rp->n_changes = r->n;
        rp->changes = r->cp;
        rp->last_version = last_version;
        rp->first_retained_version = sl_vstore_first_retained_version(p->vg->vg_vs);
        rp->writes_heavy = p->heavy;
        size_t n = sluice__changes_reply__get_packed_size(rp);
        p->bytes = malloc(n ? n : 1);
        if (p->bytes == NULL)
            rc = SL_ENOMEM;
        else
            p->len = sluice__changes_reply__pack(rp, p->bytes);
    }
    if (rc < 0) {
        p->rc = rc;
        sl_error_set(&p->err, rc, 0, 0, "cannot encode changes: %s", sl_strerror(rc));
    }
    for (size_t i = 0; r->bufs && i < r->n; i++)
        sl_buf_fini(&r->bufs[i]);
    free(r->bufs);
    free(r->cs);
    free(r->cp);
}

/* A filtered read (see read_changes). */
static void read_filtered(vn_poll *p, bool park)
{
    vn_vgroup *vg = p->vg;
    sl_vs_fchanges ch;
    pthread_mutex_lock(&vg->vg_tcmu);
    int rc = sl_vs_changes_read_filtered(vg->vg_vs, vg->vg_tcache, p->filter, p->after,
                                         p->max_bytes, p->max_entries, 0, &ch, &p->err);
    pthread_mutex_unlock(&vg->vg_tcmu);
    if (rc < 0) {
        p->answered = true;
        p->rc = rc;
        return;
    }
    /* Everything there was filtered out: wait on from the advanced cursor (the timeout's
     * empty reply carries it), unless a bound stopped the read early. */
    if (ch.n == 0 && park && !ch.more) {
        p->after = ch.last_version;
        sl_vs_fchanges_fini(&ch);
        return;
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
    creply_pack(p, &cr, rc, &rp, ch.last_version);
    sl_vs_fchanges_fini(&ch);
}

/* Answers p at once with no changes and writes_heavy: its reader learns that writes are
 * heavy and asks again, yielding; that read is held (hold_until). */
static void answer_heavy(vn_poll *p)
{
    p->answered = false;
    p->rc = 0;
    sl_error_clear(&p->err);
    p->heavy = true;
    Sluice__ChangesReply rp = SLUICE__CHANGES_REPLY__INIT;
    vn_creply cr;
    int rc = creply_init(&cr, 0);
    creply_pack(p, &cr, rc, &rp, p->after);
}

/* Reads p's changes into its result: answered with the packed reply (or an error), or,
 * when there are none and park is set, not answered. */
static void read_changes(vn_poll *p, bool park)
{
    p->answered = false;
    p->rc = 0;
    sl_error_clear(&p->err);
    if (p->filter != NULL) {
        read_filtered(p, park);
        return;
    }
    sl_vs_changes ch;
    memset(&ch, 0, sizeof(ch));
    int rc = sl_vstore_changes_read(p->vg->vg_vs, p->after, p->max_bytes, p->max_entries, &ch,
                                    &p->err);
    if (rc < 0) {
        p->answered = true;
        p->rc = rc;
        return;
    }
    if (ch.n == 0 && park) {
        sl_vs_changes_fini(&ch);
        return;
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
    creply_pack(p, &cr, rc, &rp, ch.last_version);
    sl_vs_changes_fini(&ch);
}

/* ---------------------------------------------------------------- the reader thread */

struct vn_reader {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work;      /* queue not empty, or stop */
    pthread_cond_t idle;      /* a poll was handed back */
    vn_poll *queue, **queue_tail;
    vn_poll *done, **done_tail;
    bool stop;
    bool heavy;               /* the write load is heavy (hold_until's gate; reader thread) */
    int nice;
    sl_wake wake;             /* wakes the loop for the done list */
    sl_vdaemon *vd;
};

/* How often a held read looks at the write load again. */
#define HOLD_RECHECK_NS (10u * 1000000u)

/* 0 when the reader may read p now; otherwise the time (uv_hrtime) its hold ends: client
 * writes flow and the loop is short of CPU, and p has waited less than vd_yield_ms
 * (vdaemon.h). *trickle: the writes are still heavy but p's hold is over - read it, within
 * the trickle bounds. Reader thread. */
static uint64_t hold_until(vn_reader *r, const vn_poll *p, bool *trickle)
{
    sl_vdaemon *vd = r->vd;
    *trickle = false;
    if (vd->vd_yield_ms <= 0)
        return 0;
    uint64_t until = p->queued_ns + (uint64_t)vd->vd_yield_ms * 1000000u;
    uint64_t now = uv_hrtime();
    double writes = sl_busy_frac(&vd->vd_wbusy, now);
    if (atomic_load(&vd->vd_sched_ok)) {
        r->heavy = sl_busy_gate(r->heavy, writes, sl_busy_frac(&vd->vd_demand_fast, now),
                                sl_busy_frac(&vd->vd_demand, now), vd->vd_yield_writes,
                                vd->vd_yield_demand);
    } else { /* the write share alone, at the higher mark */
        double h = vd->vd_yield_writes > VN_WBUSY_HEAVY ? vd->vd_yield_writes : VN_WBUSY_HEAVY;
        r->heavy = sl_busy_gate(r->heavy, writes, writes, writes, vd->vd_yield_writes, h);
    }
    if (r->heavy && now >= until)
        *trickle = true;
    return r->heavy && now < until ? until : 0;
}

static void *reader_main(void *arg)
{
    vn_reader *r = arg;
    pthread_setname_np(pthread_self(), "vn-reader");
    /* Linux keeps the nice value and the scheduling class per thread: this one yields the
     * CPU to the loop's writes. */
    char nb[16];
    if (sl_daemon_set_priority((int)syscall(SYS_gettid), r->nice) < 0)
        sl_log(SL_LOG_WARN, "vnode", "change reader: cannot set nice=%s: %s",
               sl_daemon_priority_name(r->nice, nb, sizeof(nb)), strerror(errno));
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->stop && r->queue == NULL)
            pthread_cond_wait(&r->work, &r->mu);
        if (r->stop)
            break;
        vn_poll *p = r->queue;
        bool trickle;
        uint64_t until = hold_until(r, p, &trickle);
        /* A reader not yet yielding is told first, wherever its read is in the queue (a
         * reply at once), so that it moves its work on what it already read to low
         * priority; its next read is held. */
        vn_poll **pp = &r->queue; /* the link to the read taken */
        bool tell = false;
        for (vn_poll **qq = &r->queue; until != 0 && *qq != NULL; qq = &(*qq)->qnext)
            if (!(*qq)->yielding) {
                pp = qq;
                tell = true;
                break;
            }
        if (until != 0 && !tell) {
            /* Heavy writes: the read waits (the queue is in arrival order, so p's hold
             * ends first); look again every HOLD_RECHECK_NS, and at once on stop. */
            uint64_t now = uv_hrtime();
            uint64_t next = now + HOLD_RECHECK_NS < until ? now + HOLD_RECHECK_NS : until;
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            uint64_t abs = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec +
                           (next - now);
            ts.tv_sec = (time_t)(abs / 1000000000u);
            ts.tv_nsec = (long)(abs % 1000000000u);
            for (vn_poll *q = r->queue; q != NULL; q = q->qnext)
                if (!q->held) { /* every read queued now waits behind p */
                    q->held = true;
                    atomic_fetch_add(&r->vd->vd_polls_held, 1);
                }
            pthread_cond_timedwait(&r->work, &r->mu, &ts);
            continue;
        }
        p = *pp;
        *pp = p->qnext;
        if (r->queue_tail == &p->qnext)
            r->queue_tail = pp;
        if (p->held)
            atomic_fetch_add(&r->vd->vd_held_ms, (uv_hrtime() - p->queued_ns) / 1000000u);
        if (trickle) { /* the load goes on: a little, so the stream stays alive */
            if (p->max_bytes > VN_TRICKLE_BYTES)
                p->max_bytes = VN_TRICKLE_BYTES;
            if (p->max_entries == 0 || p->max_entries > VN_TRICKLE_ENTRIES)
                p->max_entries = VN_TRICKLE_ENTRIES;
        }
        p->heavy = r->heavy;
        pthread_mutex_unlock(&r->mu);
        if (tell) {
            atomic_fetch_add(&r->vd->vd_polls_told, 1);
            answer_heavy(p);
        }
        else
            read_changes(p, p->park);
        pthread_mutex_lock(&r->mu);
        p->qnext = NULL;
        *r->done_tail = p;
        r->done_tail = &p->qnext;
        pthread_cond_broadcast(&r->idle);
        sl_wake_send(&r->wake);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

static void poll_handed_back(vn_poll *p);

/* Handles every poll the reader handed back (loop thread). */
static void drain_done(vn_reader *r)
{
    pthread_mutex_lock(&r->mu);
    vn_poll *p = r->done;
    r->done = NULL;
    r->done_tail = &r->done;
    pthread_mutex_unlock(&r->mu);
    while (p != NULL) {
        vn_poll *next = p->qnext;
        p->qnext = NULL;
        poll_handed_back(p);
        p = next;
    }
}

static void on_done(sl_wake *w)
{
    drain_done(w->data);
}

static void reader_free_cb(sl_wake *w)
{
    free(w->data);
}

int sl__vn_reader_start(sl_vdaemon *vd, int nice, sl_error *err)
{
    vn_reader *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    r->queue_tail = &r->queue;
    r->done_tail = &r->done;
    r->nice = nice;
    r->vd = vd;
    pthread_mutex_init(&r->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* held reads wait on it */
    pthread_cond_init(&r->work, &ca);
    pthread_condattr_destroy(&ca);
    pthread_cond_init(&r->idle, NULL);
    if (sl_wake_init(vd->vd_loop, &r->wake, on_done, r) != 0) {
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->work);
        pthread_cond_destroy(&r->idle);
        free(r);
        return sl_error_set(err, SL_EIO, 0, 0, "cannot create the change reader's wake-up");
    }
    int rc = pthread_create(&r->thread, NULL, reader_main, r);
    if (rc != 0) {
        sl_wake_close(&r->wake, reader_free_cb);
        return sl_error_set(err, SL_EIO, 0, 0, "cannot start the change reader: %s",
                            strerror(rc));
    }
    vd->vd_reader = r;
    return 0;
}

/* Waits until no poll of vg (every vgroup's when vg is NULL) is busy, handling what the
 * reader hands back meanwhile. Loop thread. */
static bool any_busy(sl_vdaemon *vd, const vn_vgroup *vg)
{
    for (int i = 0; i < vd->vd_nvgroups; i++) {
        const vn_vgroup *g = vd->vd_vgroups[i];
        if (vg != NULL && g != vg)
            continue;
        for (const vn_poll *p = g->vg_polls; p != NULL; p = p->next)
            if (p->busy)
                return true;
    }
    return false;
}

void sl__vn_reader_quiesce(sl_vdaemon *vd, vn_vgroup *vg)
{
    vn_reader *r = vd->vd_reader;
    if (r == NULL)
        return;
    if (vg != NULL)
        vg->vg_closing = true; /* handed-back polls of vg are not read again */
    else
        for (int i = 0; i < vd->vd_nvgroups; i++)
            vd->vd_vgroups[i]->vg_closing = true;
    drain_done(r);
    while (any_busy(vd, vg)) {
        pthread_mutex_lock(&r->mu);
        while (r->done == NULL)
            pthread_cond_wait(&r->idle, &r->mu);
        pthread_mutex_unlock(&r->mu);
        drain_done(r);
    }
}

void sl__vn_reader_stop(sl_vdaemon *vd)
{
    vn_reader *r = vd->vd_reader;
    if (r == NULL)
        return;
    sl__vn_reader_quiesce(vd, NULL);
    pthread_mutex_lock(&r->mu);
    r->stop = true;
    pthread_cond_signal(&r->work);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->thread, NULL);
    drain_done(r);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->work);
    pthread_cond_destroy(&r->idle);
    vd->vd_reader = NULL;
    sl_wake_close(&r->wake, reader_free_cb);
}

/* Hands p to the reader (loop thread). */
static void submit(vn_poll *p)
{
    vn_reader *r = p->vd->vd_reader;
    p->busy = true;
    p->qnext = NULL;
    p->park = p->may_wait && !p->expired;
    p->held = false;
    p->queued_ns = uv_hrtime();
    pthread_mutex_lock(&r->mu);
    *r->queue_tail = p;
    r->queue_tail = &p->qnext;
    pthread_cond_signal(&r->work);
    pthread_mutex_unlock(&r->mu);
}

/* ---------------------------------------------------------------- polls (loop thread) */

static void poll_free_cb(uv_handle_t *h)
{
    vn_poll *p = h->data;
    sl_vs_cfilter_free(p->filter);
    free(p->bytes);
    free(p);
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

/* Sends p's answer and drops it. */
static void poll_send(vn_poll *p)
{
    sl_rpc_reply_on_cancel(p->reply, NULL, NULL);
    if (p->rc < 0)
        sl__vn_reply_err(p->reply, p->rc, &p->err);
    else
        sl_rpc_reply_ok(p->reply, p->bytes, p->len);
    p->reply = NULL;
    poll_drop(p);
}

static void poll_handed_back(vn_poll *p)
{
    p->busy = false;
    if (p->reply == NULL) { /* the server gave up on it meanwhile */
        poll_drop(p);
        return;
    }
    if (p->answered) {
        poll_send(p);
        return;
    }
    if (p->vg->vg_closing)
        return; /* failed by sl__vn_fail_polls */
    /* Nothing yet. Read again at once when the wait ended or a commit landed meanwhile;
     * otherwise it waits for the next commit or its timer. */
    if (p->expired || p->after < sl_vstore_last_version(p->vg->vg_vs))
        submit(p);
}

static void poll_timeout(uv_timer_t *t)
{
    vn_poll *p = t->data;
    p->expired = true;
    if (!p->busy && !p->vg->vg_closing)
        submit(p); /* answers whatever there is, empty or not */
}

static void poll_cancel(sl_rpc_reply *reply, void *arg)
{
    (void)reply;
    vn_poll *p = arg;
    p->reply = NULL;
    if (!p->busy)
        poll_drop(p);
}

void sl__vn_wake_polls(vn_vgroup *vg)
{
    if (vg->vg_closing)
        return;
    uint64_t last = sl_vstore_last_version(vg->vg_vs);
    for (vn_poll *p = vg->vg_polls; p != NULL; p = p->next)
        if (!p->busy && p->reply != NULL && p->after < last)
            submit(p);
}

void sl__vn_fail_polls(sl_vdaemon *vd, vn_vgroup *vg)
{
    sl__vn_reader_quiesce(vd, vg);
    while (vg->vg_polls != NULL) {
        vn_poll *p = vg->vg_polls;
        if (p->reply != NULL) {
            sl_rpc_reply_on_cancel(p->reply, NULL, NULL);
            sl_rpc_reply_fail(p->reply, SL_EUNAVAILABLE, "vgroup %u closed", vg->vg_id);
            p->reply = NULL;
        }
        poll_drop(p);
    }
}

/* ---------------------------------------------------------------- the request */

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

void sl__vn_changes(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_vdaemon *vd = ud;
    Sluice__ChangesRequest *rq = sluice__changes_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed ChangesRequest");
        return;
    }
    sl_vs_cfilter *filter = NULL;
    vn_vgroup *vg = NULL;
    if (vd->vd_reader == NULL)
        sl_rpc_reply_fail(reply, SL_EUNAVAILABLE, "vnode is shutting down");
    else
        vg = sl__vn_need_vgroup(vd, reply, rq->vgroup_id);
    if (vg != NULL && vg->vg_closing) {
        sl_rpc_reply_fail(reply, SL_EUNAVAILABLE, "vgroup %u is closing", vg->vg_id);
        vg = NULL;
    }
    if (vg != NULL && rq->filter != NULL) {
        /* Compiled once per request; the poll keeps it. */
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
            sl__vn_reply_err(reply, rc, &err);
            vg = NULL;
        }
    }
    vn_poll *p = vg != NULL ? calloc(1, sizeof(*p)) : NULL;
    if (vg != NULL && p == NULL) {
        sl_rpc_reply_fail(reply, SL_ENOMEM, "out of memory");
    } else if (p != NULL) {
        uint32_t wait;
        sl__vn_changes_bounds(rq, &p->max_bytes, &wait);
        p->vd = vd;
        p->vg = vg;
        p->reply = reply;
        p->after = rq->after_version;
        p->max_entries = rq->max_entries;
        p->filter = filter;
        p->may_wait = wait > 0;
        p->yielding = rq->yielding;
        filter = NULL;
        uv_timer_init(vd->vd_loop, &p->timer);
        p->timer.data = p;
        if (p->may_wait)
            uv_timer_start(&p->timer, poll_timeout, wait, 0);
        p->next = vg->vg_polls;
        vg->vg_polls = p;
        sl_rpc_reply_on_cancel(reply, poll_cancel, p);
        /* With nothing new it waits for a commit without a read; anything else is read (a
         * filtered read may skip every new change and park). */
        if (!p->may_wait || p->after < sl_vstore_last_version(vg->vg_vs))
            submit(p);
    }
    sl_vs_cfilter_free(filter);
    sluice__changes_request__free_unpacked(rq, NULL);
}
