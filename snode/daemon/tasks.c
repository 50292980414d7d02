/*
 * tasks.c - the snode's running streams: one stream task (snode/runtime/stask.h) per
 * assigned stream that is running and has at least one slot here.
 *
 * After every applied assignment the tasks are reconciled with it: a task whose stream is
 * gone, stopped, or whose slots changed is stopped after a last checkpoint (a task that
 * lost slots cannot checkpoint them any more: the mnode refuses, and their new owners
 * restore from the previous checkpoint); a task whose slots are the same moves to the new
 * epoch; a running stream without a task gets one, which restores its slots from their
 * checkpoints. Stopping joins the task's thread, which answers within one poll wait plus
 * an in-flight computation.
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

static bool has_task(const sl_sdaemon *sd, uint64_t id)
{
    for (int i = 0; i < sd->sd_ntasks; i++)
        if (sl_stask_stream_id(sd->sd_tasks[i]) == id)
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

void sl__sn_tasks_reconcile(sl_sdaemon *sd)
{
    const sn_assignment *as = &sd->sd_as;
    /* Stop what no longer matches: signal them all, then wait for each (they wind down
     * together: a task's last checkpoint is one request per dirty slot). */
    int nstop = 0;
    for (int i = sd->sd_ntasks - 1; i >= 0; i--) {
        sl_stask *t = sd->sd_tasks[i];
        const sn_stream *s = find_stream(as, sl_stask_stream_id(t));
        /* A task that may have been deposed meanwhile - fenced by the mnode or a vnode, or
         * this snode skipped an epoch (frozen, cut off: its slots may have run elsewhere
         * in between) - holds state others may have moved past: it stops without a last
         * checkpoint and a new task restores the newest ones. */
        sl_stask_status st;
        sl_stask_get_status(t, &st);
        bool deposed = st.fenced || as->epoch > st.epoch + 1;
        bool keep = !deposed && s != NULL && s->running && s->nowned > 0 && s->cs != NULL &&
                    sl_stask_same_slots(t, as->nslots, s->slots);
        if (keep) {
            sl_stask_set_epoch(t, as->epoch);
            continue;
        }
        sl_log(SL_LOG_INFO, "snode", "stopping stream %s.%s (epoch=%" PRIu64 "%s)",
               sl_stask_db(t), sl_stask_name(t), as->epoch,
               deposed ? ", deposed: no last checkpoint" : "");
        /* Its last checkpoint carries the new epoch: the slots it keeps are accepted, the
         * ones that moved are refused (their new owners restore the previous one). */
        if (s != NULL && !deposed)
            sl_stask_set_epoch(t, as->epoch);
        sl_stask_signal_stop(t, !deposed);
        /* Move it to the end of the array, past the tasks that stay. */
        sd->sd_tasks[i] = sd->sd_tasks[sd->sd_ntasks - 1 - nstop];
        sd->sd_tasks[sd->sd_ntasks - 1 - nstop] = t;
        nstop++;
    }
    for (int k = 0; k < nstop; k++) {
        sl_stask *t = sd->sd_tasks[--sd->sd_ntasks];
        sl_stask_stop(t, sl_stask_final_checkpoint(t));
    }
    /* Start what runs here and has no task. */
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
                            .on_event = sd->sd_on_event,
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
    for (int i = 0; i < sd->sd_ntasks; i++)
        sl_stask_signal_stop(sd->sd_tasks[i], checkpoint);
    for (int i = 0; i < sd->sd_ntasks; i++)
        sl_stask_stop(sd->sd_tasks[i], checkpoint);
    free(sd->sd_tasks);
    sd->sd_tasks = NULL;
    sd->sd_ntasks = sd->sd_captasks = 0;
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
