/*
 * notify.c - from stream events to the notifier (snode/notify/notifier.h).
 *
 * Stream tasks run on their own threads; the notifier (libwebsockets, the outbox) lives on
 * the daemon's loop. The tasks' event hook decides whether an event is notified - the
 * stream has NOTIFY, the event's type is in ON (...) (PERIOD and plain SLIDING notify
 * their ON_TIME events without ON; WINDOW_INVALIDATION goes with WINDOW_CLOSE), it is not
 * a history event unless NOTIFY_HISTORY - builds the notification record (the first
 * result row, if any, as "result") and queues it for the loop, which appends it to the
 * durable outbox. The task waits until the record is in the outbox before going on, so
 * its next checkpoint never covers an event that is not durable; a task asked to stop
 * stops waiting (the loop still posts what was queued once it runs again).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util/log.h"
#include "sdaemon.h"

/* One queued notification, shared by the posting task and the loop (refs). */
struct sn_nitem {
    struct sn_nitem *next;
    sl_notify_event ev;
    char **urls;
    size_t nurls;
    int refs;   /* under sd_nmu */
    bool done;  /* posted (or failed) */
};

static void item_free(sn_nitem *it)
{
    sl_notify_event_fini(&it->ev);
    for (size_t i = 0; i < it->nurls; i++)
        free(it->urls[i]);
    free(it->urls);
    free(it);
}

/* Drops one reference; frees on the last. Called with sd_nmu held. */
static void item_unref(sn_nitem *it)
{
    if (--it->refs == 0)
        item_free(it);
}

static void on_async(uv_async_t *h)
{
    sl_sdaemon *sd = h->data;
    pthread_mutex_lock(&sd->sd_nmu);
    sn_nitem *list = sd->sd_nhead;
    sd->sd_nhead = sd->sd_ntail = NULL;
    pthread_mutex_unlock(&sd->sd_nmu);
    while (list != NULL) {
        sn_nitem *it = list;
        list = it->next;
        sl_error err;
        sl_error_clear(&err);
        const sl_notify_event *evs[1] = {&it->ev};
        if (sd->sd_notifier != NULL &&
            sl_notifier_post(sd->sd_notifier, (const char *const *)it->urls, it->nurls, evs, 1,
                             &err) < 0)
            sl_log(SL_LOG_WARN, "snode", "notification of stream %s dropped: %s",
                   it->ev.ne_stream ? it->ev.ne_stream : "?", err.msg);
        pthread_mutex_lock(&sd->sd_nmu);
        it->done = true;
        pthread_cond_broadcast(&sd->sd_ncond);
        item_unref(it);
        pthread_mutex_unlock(&sd->sd_nmu);
    }
}

/* Whether ev is notified for stream cs. */
static bool wanted(const sl_create_stream *cs, const sl_trig_event *ev)
{
    const sl_notify *n = &cs->notify;
    if (!n->present || n->nurls == 0)
        return false;
    if ((ev->flags & SL_TRIG_F_HISTORY) && !n->notify_history)
        return false;
    unsigned on = n->has_on ? n->on_events : 0;
    switch (ev->type) {
    case SL_TRIG_EV_ON_TIME: return true;
    case SL_TRIG_EV_WINDOW_OPEN: return on & SL_EVT_WINDOW_OPEN;
    case SL_TRIG_EV_WINDOW_CLOSE:
    case SL_TRIG_EV_MAX_DELAY:
    case SL_TRIG_EV_WINDOW_INVALIDATION: return on & SL_EVT_WINDOW_CLOSE;
    case SL_TRIG_EV_IDLE: return on & SL_EVT_IDLE;
    case SL_TRIG_EV_RESUME: return on & SL_EVT_RESUME;
    }
    return false;
}

static void on_event(void *ud, const sl_stask *task, const sl_trig_event *ev,
                     const sl_stask_result *res)
{
    sl_sdaemon *sd = ud;
    const sl_create_stream *cs = sl_stask_stream(task);
    if (cs == NULL || !wanted(cs, ev))
        return;
    sn_nitem *it = calloc(1, sizeof(*it));
    if (it == NULL)
        return;
    sl_notify_event_init(&it->ev);
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_notify_event_from_trig(&it->ev, ev, sl_stask_name(task), sl_stask_db(task),
                                       res->table && res->table[0] ? res->table : NULL,
                                       res->precision, &err);
    if (rc == 0 && res->rows != NULL && res->rows->nrows > 0 && res->ncols > 0) {
        sl_value *vals = calloc((size_t)res->ncols, sizeof(*vals));
        if (vals == NULL) {
            rc = SL_ENOMEM;
        } else {
            for (int i = 0; i < res->ncols; i++)
                sl_column_get(&res->rows->cols[i], 0, &vals[i]);
            rc = sl_notify_event_set_result(&it->ev, res->names, vals, res->ncols);
            free(vals);
        }
    }
    it->urls = calloc((size_t)cs->notify.nurls, sizeof(*it->urls));
    if (rc == 0 && it->urls == NULL)
        rc = SL_ENOMEM;
    for (int i = 0; rc == 0 && i < cs->notify.nurls; i++) {
        it->urls[i] = strdup(cs->notify.urls[i]);
        if (it->urls[i] == NULL)
            rc = SL_ENOMEM;
        else
            it->nurls++;
    }
    if (rc < 0) {
        sl_log(SL_LOG_WARN, "snode", "cannot notify an event of stream %s: %s",
               sl_stask_name(task), err.code ? err.msg : sl_strerror(rc));
        item_free(it);
        return;
    }
    it->refs = 2; /* the queue and this thread */
    pthread_mutex_lock(&sd->sd_nmu);
    if (sd->sd_ntail != NULL)
        sd->sd_ntail->next = it;
    else
        sd->sd_nhead = it;
    sd->sd_ntail = it;
    pthread_mutex_unlock(&sd->sd_nmu);
    uv_async_send(&sd->sd_nasync);
    /* Wait until it is in the outbox (bounded, so a stopping daemon is never blocked). */
    pthread_mutex_lock(&sd->sd_nmu);
    for (int waited = 0; !it->done && waited < 50; waited++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&sd->sd_ncond, &sd->sd_nmu, &ts);
    }
    item_unref(it);
    pthread_mutex_unlock(&sd->sd_nmu);
}

int sl__sn_notify_open(sl_sdaemon *sd, sl_error *err)
{
    pthread_mutex_init(&sd->sd_nmu, NULL);
    pthread_cond_init(&sd->sd_ncond, NULL);
    uv_async_init(sd->sd_loop, &sd->sd_nasync, on_async);
    sd->sd_nasync.data = sd;
    sl_notifier_opts o = {.loop = sd->sd_loop,
                          .kv = sd->sd_kv,
                          .cf = sl_kv_cf_get(sd->sd_kv, "outbox")};
    int rc = sl_notifier_open(&sd->sd_notifier, &o, err);
    if (rc < 0)
        return rc;
    sd->sd_on_event = on_event;
    sd->sd_event_ud = sd;
    return 0;
}

void sl__sn_notify_close(sl_sdaemon *sd)
{
    on_async(&sd->sd_nasync); /* post what the stopped tasks queued */
    uv_close((uv_handle_t *)&sd->sd_nasync, NULL);
    sl_notifier_close(sd->sd_notifier);
    sd->sd_notifier = NULL;
}
