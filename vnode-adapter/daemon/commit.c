/*
 * commit.c - the vnode's group commit, with the log sync on a thread of its own.
 *
 * A write is applied with sync off and its reply parked in vd_pending (sl__vn_pending_park).
 * After each loop iteration's I/O (every request that arrived meanwhile has been applied)
 * the check handle starts a commit: the vgroups written since the last one are handed to
 * the sync thread, which syncs each one's log (fdatasync), and the loop acknowledges those
 * writes when it is done - no write is acknowledged before it is durable, and several
 * requests share one fsync. The loop does not wait for the sync: it goes on applying the
 * writes that arrive meanwhile, which the next commit covers as soon as this one ends
 * (one sync in flight at a time). The sync used to run on the loop thread, and the loop
 * spent most of its time blocked in fdatasync instead of applying writes or answering
 * the streams' change-log reads.
 *
 * A vgroup whose sync failed fails the writes it covered (SL_EIO: applied but not known to
 * be durable). Closing a vgroup or the daemon first waits for the commit in flight and
 * then commits what is left on the loop thread (sl__vn_commit).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/net/wake.h"
#include "common/util/log.h"
#include "vdaemon.h"
#include "vnode.pb-c.h"

struct vn_pending {
    vn_pending *next;
    sl_rpc_reply *reply; /* NULL once the server gave up on it */
    vn_vgroup *vg;
    uint64_t version, rows;
};

/* One commit: the vgroups to sync and each one's result. */
typedef struct vn_cjob {
    vn_vgroup **vg;
    int *rc;
    int n, cap;
    vn_pending *writes; /* the writes it acknowledges, in arrival order */
} vn_cjob;

struct vn_syncer {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work;  /* a job was posted, or stop */
    pthread_cond_t done;  /* the job was synced */
    bool stop;
    bool posted;          /* the job is the thread's */
    bool finished;        /* the thread is done with it: the loop acknowledges */
    bool busy;            /* loop: a job is out (posted or finished, not acknowledged) */
    vn_cjob job;
    sl_wake wake;
};

static void pending_cancel(sl_rpc_reply *reply, void *arg)
{
    (void)reply;
    ((vn_pending *)arg)->reply = NULL;
}

vn_pending *sl__vn_pending_alloc(void)
{
    return calloc(1, sizeof(vn_pending));
}

void sl__vn_pending_park(sl_vdaemon *vd, vn_pending *p, vn_vgroup *vg, sl_rpc_reply *reply,
                         uint64_t version, uint64_t rows)
{
    vg->vg_dirty = true;
    p->next = NULL;
    p->reply = reply;
    p->vg = vg;
    p->version = version;
    p->rows = rows;
    if (vd->vd_pending_tail == NULL)
        vd->vd_pending_tail = &vd->vd_pending;
    *vd->vd_pending_tail = p;
    vd->vd_pending_tail = &p->next;
    sl_rpc_reply_on_cancel(reply, pending_cancel, p);
}

/* Syncs every vgroup of j (any thread; vstore syncs run concurrently with writes). */
static void job_sync(vn_cjob *j)
{
    for (int i = 0; i < j->n; i++) {
        sl_error err;
        sl_error_clear(&err);
        j->rc[i] = sl_vstore_sync(j->vg[i]->vg_vs, &err);
        if (j->rc[i] < 0)
            sl_log(SL_LOG_ERROR, "vnode", "group commit sync failed vgroup_id=%u: %s",
                   j->vg[i]->vg_id, err.msg);
    }
}

/* Fills j with the pending writes and the vgroups written since the last commit (their
 * dirty marks cleared). Returns false when there is nothing to commit. */
static bool job_take(sl_vdaemon *vd, vn_cjob *j)
{
    j->n = 0;
    if (vd->vd_pending == NULL)
        return false;
    if (j->cap < vd->vd_nvgroups) {
        int cap = vd->vd_nvgroups + 8;
        vn_vgroup **v = realloc(j->vg, sizeof(*v) * (size_t)cap);
        if (v != NULL)
            j->vg = v;
        int *r = realloc(j->rc, sizeof(*r) * (size_t)cap);
        if (r != NULL)
            j->rc = r;
        if (v == NULL || r == NULL)
            return false; /* out of memory: the writes wait for the next commit */
        j->cap = cap;
    }
    j->writes = vd->vd_pending;
    vd->vd_pending = NULL;
    vd->vd_pending_tail = &vd->vd_pending;
    for (int i = 0; i < vd->vd_nvgroups; i++) {
        vn_vgroup *vg = vd->vd_vgroups[i];
        if (!vg->vg_dirty)
            continue;
        vg->vg_dirty = false;
        j->vg[j->n] = vg;
        j->rc[j->n++] = 0;
    }
    return true;
}

/* Acknowledges j's writes (loop thread): failed where their vgroup's sync failed. */
static void job_ack(sl_vdaemon *vd, vn_cjob *j)
{
    for (int i = 0; i < j->n; i++)
        j->vg[i]->vg_sync_failed = j->rc[i] < 0;
    vn_pending *p = j->writes;
    j->writes = NULL;
    while (p != NULL) {
        vn_pending *next = p->next;
        if (p->reply != NULL) {
            sl_rpc_reply_on_cancel(p->reply, NULL, NULL);
            if (p->vg->vg_sync_failed) {
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
    for (int i = 0; i < j->n; i++) {
        j->vg[i]->vg_sync_failed = false;
        sl__vn_wake_polls(j->vg[i]);
    }
    j->n = 0;
}

/* ---------------------------------------------------------------- the sync thread */

static void *syncer_main(void *arg)
{
    vn_syncer *s = arg;
    pthread_setname_np(pthread_self(), "vn-sync");
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->stop && !s->posted)
            pthread_cond_wait(&s->work, &s->mu);
        if (s->stop)
            break;
        pthread_mutex_unlock(&s->mu);
        job_sync(&s->job);
        pthread_mutex_lock(&s->mu);
        s->posted = false;
        s->finished = true;
        pthread_cond_broadcast(&s->done);
        sl_wake_send(&s->wake);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static void commit_start(sl_vdaemon *vd);

/* Acknowledges the job in flight if the thread is done with it; with wait, waits for
 * that first. Loop thread. */
static void commit_finish(sl_vdaemon *vd, bool wait)
{
    vn_syncer *s = vd->vd_syncer;
    if (s == NULL || !s->busy)
        return;
    pthread_mutex_lock(&s->mu);
    while (wait && !s->finished)
        pthread_cond_wait(&s->done, &s->mu);
    bool finished = s->finished;
    s->finished = false;
    pthread_mutex_unlock(&s->mu);
    if (!finished)
        return;
    s->busy = false;
    job_ack(vd, &s->job);
}

static void on_synced(sl_wake *w)
{
    sl_vdaemon *vd = w->data;
    commit_finish(vd, false);
    commit_start(vd); /* what arrived during that sync */
}

/* Hands the pending writes to the sync thread, unless a commit is in flight. */
static void commit_start(sl_vdaemon *vd)
{
    vn_syncer *s = vd->vd_syncer;
    if (s == NULL || s->busy || !job_take(vd, &s->job))
        return;
    s->busy = true;
    pthread_mutex_lock(&s->mu);
    s->posted = true;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->mu);
}

void sl__vn_commit_cb(uv_check_t *h)
{
    commit_start(h->data);
}

void sl__vn_commit(sl_vdaemon *vd)
{
    commit_finish(vd, true);
    vn_cjob j;
    memset(&j, 0, sizeof(j));
    if (job_take(vd, &j)) {
        job_sync(&j);
        job_ack(vd, &j);
    }
    free(j.vg);
    free(j.rc);
}

static void syncer_free_cb(sl_wake *w)
{
    vn_syncer *s = w->data;
    free(s->job.vg);
    free(s->job.rc);
    free(s);
}

int sl__vn_syncer_start(sl_vdaemon *vd, sl_error *err)
{
    vn_syncer *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->done, NULL);
    if (sl_wake_init(vd->vd_loop, &s->wake, on_synced, vd) != 0) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->work);
        pthread_cond_destroy(&s->done);
        free(s);
        return sl_error_set(err, SL_EIO, 0, 0, "cannot create the sync thread's wake-up");
    }
    int rc = pthread_create(&s->thread, NULL, syncer_main, s);
    if (rc != 0) {
        s->wake.data = s;
        sl_wake_close(&s->wake, syncer_free_cb);
        return sl_error_set(err, SL_EIO, 0, 0, "cannot start the sync thread: %s",
                            strerror(rc));
    }
    vd->vd_syncer = s;
    return 0;
}

void sl__vn_syncer_stop(sl_vdaemon *vd)
{
    vn_syncer *s = vd->vd_syncer;
    if (s == NULL)
        return;
    sl__vn_commit(vd);
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->done);
    vd->vd_syncer = NULL;
    s->wake.data = s;
    sl_wake_close(&s->wake, syncer_free_cb);
}
