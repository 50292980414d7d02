/*
 * tasks.c - the snode's running streams: one stream task (snode/runtime/stask.h) per
 * assigned stream that is running and has at least one slot here.
 *
 * After every applied assignment the tasks are reconciled with it: a task whose stream is
 * gone, stopped, or whose slots changed is stopped after a last checkpoint (a task that
 * lost slots cannot checkpoint them any more: the mnode refuses, and their new owners
 * restore from the previous checkpoint); a task whose slots are the same moves to the new
 * epoch; a running stream without a task gets one, which restores its slots from their
 * checkpoints.
 *
 * Stopping never blocks the loop: a task is asked to stop (sl_stask_signal_stop) and
 * joined on libuv's thread pool (uv_queue_work) - its last read fed, its last checkpoint
 * written, which takes up to seconds - while the loop goes on heartbeating. The
 * after-work callback, back on the loop, frees the task and only then starts the stream's
 * new task if the assignment still runs it here: a stream has at most one task at a time
 * on this node, so a slot that stays never has two tasks, and the new one restores from
 * the old one's last checkpoint. A stopping task is not reported (heartbeats,
 * ins_stream_tasks): the stream shows as starting until its new task is set up. An
 * assignment arriving meanwhile moves a stopping task to its epoch when it follows the
 * task's one directly (its last checkpoint is then accepted for the slots it still owns),
 * and drops its last checkpoint when an epoch was skipped (deposed, as below).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/log.h"
#include "sdaemon.h"
#include "snode/runtime/stask.h"

static const sn_stream *find_stream(const sn_assignment *as, uint64_t id)
{
    for (int i = 0; i < as->nstreams; i++)
        if (as->streams[i].id == id)
            return &as->streams[i];
    return NULL;
}

/* A task asked to stop, being joined on the thread pool. */
struct sn_join {
    uv_work_t j_work;        /* j_work.data: this record */
    sl_sdaemon *j_sd;
    sl_stask *j_task;        /* freed on the loop after the join */
    uint64_t j_stream;
    struct sn_join *j_next;
};

/* Whether stream id has a running task here, or one still stopping. */
static bool has_task(const sl_sdaemon *sd, uint64_t id)
{
    for (int i = 0; i < sd->sd_ntasks; i++)
        if (sl_stask_stream_id(sd->sd_tasks[i]) == id)
            return true;
    for (const sn_join *j = sd->sd_joins; j != NULL; j = j->j_next)
        if (j->j_stream == id)
            return true;
    return false;
}

/* Splits tcp://host:port. */
static int mnode_endpoint(const char *url, char *host, size_t hn, int *port)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    const char *colon = strrchr(p, ':');
    if (colon == NULL || (size_t)(colon - p) >= hn)
        return -1;
    memcpy(host, p, (size_t)(colon - p));
    host[colon - p] = '\0';
    *port = atoi(colon + 1);
    return *port > 0 ? 0 : -1;
}

static void start_missing(sl_sdaemon *sd);

/* On the pool: waits for the thread (its last checkpoint included). */
static void join_work(uv_work_t *w)
{
    sn_join *j = w->data;
    sl_stask_join(j->j_task);
}

/* On the loop: frees the joined task, then starts what the assignment runs here and has
 * no task (the stream's replacement, if any). */
static void join_done(uv_work_t *w, int status)
{
    sn_join *j = w->data;
    sl_sdaemon *sd = j->j_sd;
    (void)status; /* never cancelled: the work always ran */
    for (sn_join **p = &sd->sd_joins; *p != NULL; p = &(*p)->j_next)
        if (*p == j) {
            *p = j->j_next;
            break;
        }
    sd->sd_njoins--;
    sl_stask_stop(j->j_task, false); /* joined: only frees */
    free(j);
    if (!sd->sd_stopping && !sd->sd_draining)
        start_missing(sd);
    if (sd->sd_njoins == 0 && sd->sd_ntasks == 0)
        sl__sn_tasks_stopped(sd);
}

/* Asks t to stop (after a last checkpoint when `checkpoint`) and joins it off the loop. */
static void stop_task(sl_sdaemon *sd, sl_stask *t, bool checkpoint)
{
    sl_stask_signal_stop(t, checkpoint);
    sn_join *j = calloc(1, sizeof(*j));
    if (j != NULL) {
        j->j_sd = sd;
        j->j_task = t;
        j->j_stream = sl_stask_stream_id(t);
        j->j_work.data = j;
        if (uv_queue_work(sd->sd_loop, &j->j_work, join_work, join_done) == 0) {
            j->j_next = sd->sd_joins;
            sd->sd_joins = j;
            sd->sd_njoins++;
            return;
        }
        free(j);
    }
    /* Out of memory: the only way left is to wait here. */
    sl_log(SL_LOG_ERROR, "snode", "cannot join stream %s.%s off the loop: waiting for it",
           sl_stask_db(t), sl_stask_name(t));
    sl_stask_stop(t, checkpoint);
}

/* Whether a task acting on epoch st->epoch (status st) may have been deposed by now - fenced
 * by the mnode or a vnode, or this snode skipped an epoch (frozen, cut off: its slots may
 * have run elsewhere in between): it holds state others may have moved past, so it stops
 * without a last checkpoint and a new task restores the newest ones. */
static bool deposed(const sn_assignment *as, const sl_stask_status *st)
{
    return st->fenced || as->epoch > st->epoch + 1;
}

void sl__sn_tasks_reconcile(sl_sdaemon *sd)
{
    const sn_assignment *as = &sd->sd_as;
    /* Tasks still winding down from an earlier assignment: their last checkpoint carries
     * this epoch when it follows theirs, or is dropped when they may have been deposed. */
    for (sn_join *j = sd->sd_joins; j != NULL; j = j->j_next) {
        sl_stask *t = j->j_task;
        if (!sl_stask_final_checkpoint(t))
            continue;
        sl_stask_status st;
        sl_stask_get_status(t, &st);
        if (st.epoch >= as->epoch)
            continue;
        if (deposed(as, &st)) {
            sl_log(SL_LOG_INFO, "snode", "stream %s.%s, still stopping, is deposed (epoch=%"
                   PRIu64 "): no last checkpoint", sl_stask_db(t), sl_stask_name(t), as->epoch);
            sl_stask_signal_stop(t, false);
        } else if (find_stream(as, j->j_stream) != NULL) {
            sl_stask_set_epoch(t, as->epoch);
        }
    }
    /* Stop what no longer matches: each is signalled at once and joined off the loop, so
     * they wind down together (a task's last checkpoint is one request per dirty slot). */
    for (int i = sd->sd_ntasks - 1; i >= 0; i--) {
        sl_stask *t = sd->sd_tasks[i];
        const sn_stream *s = find_stream(as, sl_stask_stream_id(t));
        sl_stask_status st;
        sl_stask_get_status(t, &st);
        bool dep = deposed(as, &st);
        bool keep = !dep && !sd->sd_draining && s != NULL && s->running && s->nowned > 0 &&
                    s->cs != NULL && sl_stask_same_slots(t, as->nslots, s->slots);
        if (keep) {
            sl_stask_set_epoch(t, as->epoch);
            continue;
        }
        sl_log(SL_LOG_INFO, "snode", "stopping stream %s.%s (epoch=%" PRIu64 "%s)",
               sl_stask_db(t), sl_stask_name(t), as->epoch,
               dep ? ", deposed: no last checkpoint" : "");
        /* Its last checkpoint carries the new epoch: the slots it keeps are accepted, the
         * ones that moved are refused (their new owners restore the previous one). */
        if (s != NULL && !dep)
            sl_stask_set_epoch(t, as->epoch);
        sd->sd_tasks[i] = sd->sd_tasks[--sd->sd_ntasks];
        stop_task(sd, t, !dep);
    }
    /* Start what runs here and has no task (a stream whose task is still stopping starts
     * when that one is joined). */
    if (!sd->sd_draining)
        start_missing(sd);
}

static void start_missing(sl_sdaemon *sd)
{
    const sn_assignment *as = &sd->sd_as;
    char host[256];
    int port = 0;
    if (mnode_endpoint(sd->sd_mnode_url, host, sizeof(host), &port) < 0) {
        sl_log(SL_LOG_ERROR, "snode", "cannot run streams: bad mnode url %s", sd->sd_mnode_url);
        return;
    }
    for (int i = 0; i < as->nstreams; i++) {
        const sn_stream *s = &as->streams[i];
        if (!s->running || s->nowned == 0 || s->cs == NULL || has_task(sd, s->id))
            continue;
        if (sd->sd_ntasks == sd->sd_captasks) {
            int cap = sd->sd_captasks ? sd->sd_captasks * 2 : 16;
            sl_stask **p = realloc(sd->sd_tasks, (size_t)cap * sizeof(*p));
            if (p == NULL) {
                sl_log(SL_LOG_ERROR, "snode", "out of memory starting stream tasks");
                return;
            }
            sd->sd_tasks = p;
            sd->sd_captasks = cap;
        }
        sl_stask_cfg cfg = {.mnode_host = host,
                            .mnode_port = port,
                            .node_id = sd->sd_node_id,
                            .epoch = as->epoch,
                            .stream_id = s->id,
                            .db = s->db,
                            .name = s->name,
                            .sql = s->sql,
                            .plan_db = s->plan_db,
                            .nslots = as->nslots,
                            .slots = s->slots,
                            .ignore_untreated_epoch =
                                s->ignore_untreated ? s->ignore_untreated_epoch : 0,
                            .checkpoint_ms = sd->sd_checkpoint_ms,
                            .nice = sd->sd_nice,
                            .on_event = sd->sd_on_event,
                            .on_sync = sd->sd_on_sync,
                            .event_ud = sd->sd_event_ud};
        sl_error err;
        sl_error_clear(&err);
        sl_stask *t = NULL;
        if (sl_stask_start(&cfg, &t, &err) < 0) {
            sl_log(SL_LOG_ERROR, "snode", "cannot start stream %s.%s: %s", s->db, s->name,
                   err.msg);
            continue;
        }
        sd->sd_tasks[sd->sd_ntasks++] = t;
        sl_log(SL_LOG_INFO, "snode", "started stream %s.%s slots=%u epoch=%" PRIu64, s->db,
               s->name, s->nowned, as->epoch);
    }
}

void sl__sn_tasks_stop_all(sl_sdaemon *sd, bool checkpoint)
{
    while (sd->sd_ntasks > 0)
        stop_task(sd, sd->sd_tasks[--sd->sd_ntasks], checkpoint);
    free(sd->sd_tasks);
    sd->sd_tasks = NULL;
    sd->sd_ntasks = sd->sd_captasks = 0;
}

bool sl__sn_tasks_idle(const sl_sdaemon *sd)
{
    return sd->sd_ntasks == 0 && sd->sd_njoins == 0;
}

int sl__sn_tasks_stopping(const sl_sdaemon *sd)
{
    return sd->sd_njoins;
}

bool sl__sn_task_status(sl_sdaemon *sd, uint64_t stream_id, sl_stask_status *out)
{
    for (int i = 0; i < sd->sd_ntasks; i++)
        if (sl_stask_stream_id(sd->sd_tasks[i]) == stream_id) {
            sl_stask_get_status(sd->sd_tasks[i], out);
            return true;
        }
    return false;
}
