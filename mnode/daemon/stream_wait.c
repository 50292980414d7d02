/*
 * stream_wait.c - CREATE STREAM / START STREAM replies held until the stream runs.
 *
 * A stream runs when every slot's snode acts on the current epoch and reports the stream
 * ready (its task has read the change log's end of every vgroup it reads). Holding the
 * reply until then gives the statement a clear meaning: every row written after it
 * returns is the stream's. Waiters are few (one per statement in flight) and live on the
 * loop thread; they are checked after every placement check (snode heartbeats, sweep).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "common/util/log.h"
#include "mdaemon.h"

typedef struct md_waiter {
    struct md_waiter *next;
    sl_mdaemon *md;
    sl_rpc_reply *reply;
    uint8_t *msg; /* owned: the packed ExecReply */
    size_t len;
    char *db, *name; /* owned */
    int64_t deadline_ms;
} md_waiter;

static void waiter_free(md_waiter *w)
{
    free(w->msg);
    free(w->db);
    free(w->name);
    free(w);
}

static void unlink_waiter(md_waiter *w)
{
    for (md_waiter **p = &w->md->md_waiters; *p != NULL; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            return;
        }
}

/* The server gave up on the request (closing, or its request timeout): forget it. */
static void on_cancel(sl_rpc_reply *reply, void *arg)
{
    (void)reply;
    md_waiter *w = arg;
    unlink_waiter(w);
    waiter_free(w);
}

static void answer(md_waiter *w)
{
    unlink_waiter(w);
    sl_rpc_reply_on_cancel(w->reply, NULL, NULL);
    sl_rpc_reply_ok(w->reply, w->msg, w->len);
    waiter_free(w);
}

void sl__md_stream_wait(sl_mdaemon *md, sl_rpc_reply *reply, const void *msg, size_t len,
                        const char *db, const char *name)
{
    if (sl_mcatalog_stream_state_of(md->md_cat, db, name) != SL_MC_STREAM_STARTING) {
        sl_rpc_reply_ok(reply, msg, len);
        return;
    }
    md_waiter *w = calloc(1, sizeof(*w));
    if (w != NULL) {
        w->msg = malloc(len ? len : 1);
        w->db = strdup(db);
        w->name = strdup(name);
    }
    if (w == NULL || w->msg == NULL || w->db == NULL || w->name == NULL) {
        /* Out of memory: the statement is done; answer without waiting. */
        if (w != NULL)
            waiter_free(w);
        sl_rpc_reply_ok(reply, msg, len);
        return;
    }
    if (len > 0)
        memcpy(w->msg, msg, len);
    w->len = len;
    w->md = md;
    w->reply = reply;
    w->deadline_ms = sl__md_now_ms() + MD_STREAM_WAIT_MS;
    w->next = md->md_waiters;
    md->md_waiters = w;
    sl_rpc_reply_on_cancel(reply, on_cancel, w);
}

void sl__md_stream_wait_check(sl_mdaemon *md)
{
    int64_t now = sl__md_now_ms();
    md_waiter *next;
    for (md_waiter *w = md->md_waiters; w != NULL; w = next) {
        next = w->next;
        sl_mcatalog_stream_state st = sl_mcatalog_stream_state_of(md->md_cat, w->db, w->name);
        if (st == SL_MC_STREAM_STARTING && now < w->deadline_ms)
            continue;
        if (st == SL_MC_STREAM_STARTING)
            sl_log(SL_LOG_WARN, "mnode",
                   "stream %s.%s is not running on every snode after %d ms; answering anyway",
                   w->db, w->name, MD_STREAM_WAIT_MS);
        answer(w);
    }
}
