/*
 * notify.c - from stream events to the notifier (snode/notify/notifier.h).
 *
 * Stream tasks run on their own threads; the notifier (libwebsockets, the outbox) lives on
 * the daemon's loop. The tasks' event hook decides whether an event is notified - the
 * stream has NOTIFY, the event's type is in ON (...) (PERIOD and plain SLIDING notify
 * their ON_TIME events without ON; WINDOW_INVALIDATION goes with WINDOW_CLOSE), it is not
 * a history event unless NOTIFY_HISTORY, and the WHERE condition holds on the result row -
 * builds the notification record (the first
 * result row, if any, as "result") and queues it for the loop, which appends runs of them
 * (same stream and destinations) to the durable outbox in one write each. Before its next
 * checkpoint, and as its thread ends, the task waits until every record it queued is in
 * the outbox (on_sync), so a checkpoint never covers an event that is not durable; the
 * wait is bounded (the loop still posts what was queued once it runs again).
 *
 * NOTIFY ... WHERE condition: the condition may reference only result columns and
 * constants (spec). It is compiled (common/expr) against the result's columns - a name is
 * a result column name (as the hook gives them, case-insensitive), else the output table's
 * column of that position when the stream names its output columns - and evaluated over
 * the first result row, the one the notification carries; the event is notified only when
 * it is TRUE (NULL is not). An event without a result row (no computation, an empty
 * %%trows without FORCE_OUTPUT, IDLE/RESUME without a query, WINDOW_OPEN of a stream whose
 * query gives nothing) has nothing to test the condition on and is not notified. A
 * condition that does not compile (an unknown column, a type error) notifies nothing and
 * is logged once. Compiled conditions are cached per task thread (a task runs on its own
 * thread), keyed by the stream and the result's column names and types.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/expr/expr.h"
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

/* Whether b's notification goes to the same stream and destinations as a's (so both can
 * be posted together). */
static bool same_post(const sn_nitem *a, const sn_nitem *b)
{
    if (a->nurls != b->nurls || a->ev.ne_stream == NULL || b->ev.ne_stream == NULL ||
        strcmp(a->ev.ne_stream, b->ev.ne_stream) != 0)
        return false;
    for (size_t i = 0; i < a->nurls; i++)
        if (strcmp(a->urls[i], b->urls[i]) != 0)
            return false;
    return true;
}

#define POST_BATCH 256 /* notifications appended to the outbox in one write, at most */

/* Posts items[0..n) (same stream and destinations) in one outbox write; when that is
 * refused, one by one, so one bad event costs only itself. Loop thread. */
static void post_items(sl_sdaemon *sd, sn_nitem *const *items, size_t n)
{
    const sl_notify_event *evs[POST_BATCH];
    for (size_t i = 0; i < n; i++)
        evs[i] = &items[i]->ev;
    sl_error err;
    sl_error_clear(&err);
    const char *const *urls = (const char *const *)items[0]->urls;
    if (sd->sd_notifier == NULL ||
        sl_notifier_post(sd->sd_notifier, urls, items[0]->nurls, evs, n, &err) == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        /* A single event's refusal is already in err. */
        if (n > 1) {
            sl_error_clear(&err);
            if (sl_notifier_post(sd->sd_notifier, urls, items[0]->nurls, &evs[i], 1, &err) == 0)
                continue;
        }
        sl_log(SL_LOG_WARN, "snode", "notification of stream %s dropped: %s",
               items[i]->ev.ne_stream ? items[i]->ev.ne_stream : "?", err.msg);
    }
}

static void on_wake(sl_wake *w)
{
    sl_sdaemon *sd = w->data;
    pthread_mutex_lock(&sd->sd_nmu);
    sn_nitem *list = sd->sd_nhead;
    sd->sd_nhead = sd->sd_ntail = NULL;
    pthread_mutex_unlock(&sd->sd_nmu);
    while (list != NULL) {
        /* A run of notifications for the same stream and destinations goes to the outbox
         * in one write (the queue keeps each task's order). */
        sn_nitem *run[POST_BATCH];
        size_t n = 0;
        run[n++] = list;
        list = list->next;
        while (list != NULL && n < POST_BATCH && same_post(run[0], list)) {
            run[n++] = list;
            list = list->next;
        }
        post_items(sd, run, n);
        pthread_mutex_lock(&sd->sd_nmu);
        for (size_t i = 0; i < n; i++) {
            run[i]->done = true;
            item_unref(run[i]);
        }
        pthread_cond_broadcast(&sd->sd_ncond);
        pthread_mutex_unlock(&sd->sd_nmu);
    }
}

/* The notifications this task thread queued and has not waited for yet (a task runs on
 * its own thread; each holds a reference). */
static __thread sn_nitem **tl_pending;
static __thread size_t tl_npending, tl_cappending;
#define PENDING_MAX 1024

/* Waits until items[0..n) are posted (or failed), for at most 5 s in all, so a stopping
 * daemon is never blocked (the loop still posts them once it runs again), and drops the
 * references. Stopping tasks wait too: they are joined off the loop (tasks.c), which stays
 * free to post. */
static void wait_items(sl_sdaemon *sd, sn_nitem *const *items, size_t n)
{
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += 5;
    pthread_mutex_lock(&sd->sd_nmu);
    for (size_t i = 0; i < n; i++) {
        while (!items[i]->done) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            if (ts.tv_sec > end.tv_sec || (ts.tv_sec == end.tv_sec && ts.tv_nsec >= end.tv_nsec))
                break;
            ts.tv_nsec += 100 * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&sd->sd_ncond, &sd->sd_nmu, &ts);
        }
        item_unref(items[i]);
    }
    pthread_mutex_unlock(&sd->sd_nmu);
}

static void wait_pending(sl_sdaemon *sd)
{
    wait_items(sd, tl_pending, tl_npending);
    tl_npending = 0;
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

/* ---------------------------------------------------------------- WHERE */

/* The compiled WHERE of the stream the thread's task runs, for one result layout. */
typedef struct where_cache {
    const sl_create_stream *cs; /* the parsed stream it was compiled for */
    uint64_t stream_id;
    int ncols;
    uint64_t sig;               /* hash of the result's names and types */
    sl_cexpr *expr;             /* NULL: it did not compile */
} where_cache;

static pthread_key_t where_key;
static pthread_once_t where_once = PTHREAD_ONCE_INIT;

static void where_cache_free(void *p)
{
    where_cache *w = p;
    if (w != NULL)
        sl_cexpr_free(w->expr);
    free(w);
}

static void where_key_init(void)
{
    pthread_key_create(&where_key, where_cache_free);
}

typedef struct where_bind {
    const sl_create_stream *cs;
    const sl_stask_result *res;
} where_bind;

static int where_bind_fn(void *ud, const sl_expr *node, sl_binding *b, sl_error *err)
{
    const where_bind *wb = ud;
    if (node->kind != SL_EX_COLUMN)
        return 0;
    int idx = -1;
    for (int i = 0; idx < 0 && i < wb->res->ncols; i++)
        if (wb->res->names[i] != NULL && strcasecmp(wb->res->names[i], node->u.column.name) == 0)
            idx = i;
    for (int i = 0; idx < 0 && i < wb->cs->nout_cols && i < wb->res->ncols; i++)
        if (strcasecmp(wb->cs->out_cols[i].name, node->u.column.name) == 0)
            idx = i;
    if (idx < 0)
        return sl_error_set(err, SL_EINVAL, node->pos.line, node->pos.col,
                            "NOTIFY WHERE: '%s' is not a column of the computation result",
                            node->u.column.name);
    b->kind = SL_BIND_COLUMN;
    b->index = idx;
    b->type = wb->res->rows->cols[idx].type;
    b->width = wb->res->rows->cols[idx].width;
    return 0;
}

static uint64_t result_sig(const sl_stask_result *res)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (int i = 0; i < res->ncols; i++) {
        for (const char *p = res->names[i] ? res->names[i] : ""; *p; p++)
            h = (h ^ (uint8_t)(*p | 0x20)) * 1099511628211ull;
        h = (h ^ 0xff) * 1099511628211ull;
        h = (h ^ (uint8_t)res->rows->cols[i].type) * 1099511628211ull;
    }
    return h;
}

/* Whether the WHERE condition of cs holds on the first row of res (see the top). */
static bool where_holds(const sl_create_stream *cs, const sl_stask *task,
                        const sl_stask_result *res)
{
    if (res->rows == NULL || res->rows->nrows == 0 || res->ncols <= 0 ||
        (int)res->rows->ncols < res->ncols)
        return false;
    pthread_once(&where_once, where_key_init);
    where_cache *w = pthread_getspecific(where_key);
    uint64_t sig = result_sig(res);
    uint64_t sid = sl_stask_stream_id(task);
    if (w == NULL || w->cs != cs || w->stream_id != sid || w->ncols != res->ncols ||
        w->sig != sig) {
        if (w == NULL) {
            w = calloc(1, sizeof(*w));
            if (w == NULL)
                return false;
            pthread_setspecific(where_key, w);
        }
        sl_cexpr_free(w->expr);
        *w = (where_cache){.cs = cs, .stream_id = sid, .ncols = res->ncols, .sig = sig};
        where_bind wb = {.cs = cs, .res = res};
        sl_binder b = {.bind = where_bind_fn, .ud = &wb, .precision = res->precision, .now = 0};
        sl_error err;
        sl_error_clear(&err);
        if (sl_cexpr_compile(cs->notify.where, &b, &w->expr, &err) < 0) {
            w->expr = NULL;
            sl_log(SL_LOG_WARN, "snode", "stream %s: NOTIFY WHERE cannot be evaluated: %s",
                   sl_stask_name(task), err.msg);
        } else if (sl_cexpr_type(w->expr) != SL_T_BOOL) {
            sl_log(SL_LOG_WARN, "snode", "stream %s: NOTIFY WHERE is not a condition",
                   sl_stask_name(task));
            sl_cexpr_free(w->expr);
            w->expr = NULL;
        }
    }
    if (w->expr == NULL)
        return false;
    /* The first row only (the notified one), as a view of the result's columns. */
    sl_block one;
    sl_block_init(&one);
    bool ok = true;
    for (int i = 0; ok && i < res->ncols; i++) {
        int k = sl_block_add_column(&one, res->rows->cols[i].type, res->rows->cols[i].width);
        ok = k >= 0 && sl_column_borrow(&one.cols[k], &res->rows->cols[i], 0, 1) == 0;
    }
    bool holds = false;
    if (ok) {
        one.nrows = 1;
        uint32_t sel[1], nsel = 0;
        sl_error err;
        sl_error_clear(&err);
        if (sl_cexpr_select(w->expr, &one, sel, &nsel, &err) == 0)
            holds = nsel == 1;
        else
            sl_log(SL_LOG_WARN, "snode", "stream %s: NOTIFY WHERE: %s", sl_stask_name(task),
                   err.msg);
    }
    sl_block_fini(&one);
    return holds;
}

static void on_event(void *ud, const sl_stask *task, const sl_trig_event *ev,
                     const sl_stask_result *res)
{
    sl_sdaemon *sd = ud;
    const sl_create_stream *cs = sl_stask_stream(task);
    if (cs == NULL || !wanted(cs, ev))
        return;
    if (cs->notify.where != NULL && !where_holds(cs, task, res))
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
    sl_wake_send(&sd->sd_nwake);
    /* The task waits for it later (on_sync: before its next checkpoint), together with the
     * others it queues meanwhile; only a long run of them is waited for early, which
     * bounds the memory they hold. */
    if (tl_npending == tl_cappending) {
        size_t cap = tl_cappending ? tl_cappending * 2 : 64;
        sn_nitem **v = realloc(tl_pending, cap * sizeof(*v));
        if (v == NULL) {
            wait_pending(sd);
            wait_items(sd, &it, 1);
            return;
        }
        tl_pending = v;
        tl_cappending = cap;
    }
    tl_pending[tl_npending++] = it;
    if (tl_npending >= PENDING_MAX)
        wait_pending(sd);
}

/* The task's checkpoint is next, or its thread ends: every notification it queued must be
 * in the outbox first. */
static void on_sync(void *ud, const sl_stask *task, bool final)
{
    (void)task;
    wait_pending(ud);
    if (final) {
        free(tl_pending);
        tl_pending = NULL;
        tl_cappending = 0;
    }
}

int sl__sn_notify_open(sl_sdaemon *sd, sl_error *err)
{
    pthread_mutex_init(&sd->sd_nmu, NULL);
    pthread_cond_init(&sd->sd_ncond, NULL);
    if (sl_wake_init(sd->sd_loop, &sd->sd_nwake, on_wake, sd) != 0)
        return sl_error_set(err, SL_EIO, 0, 0, "cannot create the notifier's wake-up");
    sl_notifier_opts o = {.loop = sd->sd_loop,
                          .kv = sd->sd_kv,
                          .cf = sl_kv_cf_get(sd->sd_kv, "outbox")};
    int rc = sl_notifier_open(&sd->sd_notifier, &o, err);
    if (rc < 0) {
        sl_wake_close(&sd->sd_nwake, NULL);
        return rc;
    }
    sd->sd_on_event = on_event;
    sd->sd_on_sync = on_sync;
    sd->sd_event_ud = sd;
    return 0;
}

void sl__sn_notify_close(sl_sdaemon *sd)
{
    on_wake(&sd->sd_nwake); /* post what the stopped tasks queued */
    sl_wake_close(&sd->sd_nwake, NULL);
    sl_notifier_close(sd->sd_notifier);
    sd->sd_notifier = NULL;
}
