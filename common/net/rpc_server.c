/*
 * rpc_server.c - the rep0 side of the RPC layer: nng contexts receive, the libuv loop
 * decodes and dispatches, handlers answer now or later.
 *
 * A server owns max_inflight slots; each slot is one nng context with one aio and one
 * request at a time, and is also the reply handle given to handlers (so a pending request
 * costs no allocation). A slot cycles through
 *
 *     RECV --(nng thread)--> QUEUED --(loop)--> HANDLER --(loop: reply)--> SEND --(nng)--> RECV
 *
 * nng threads only move a slot from RECV to QUEUED (append it to the ready queue under
 * srv->mu and wake it, sl_wake_send) and from SEND back to RECV; every decode, lookup, handler
 * call and cancel callback runs on the loop thread. A slot whose request is pending does
 * not receive, so at most max_inflight requests exist at once and the rest wait in their
 * connections. srv->closing, set under srv->mu, stops nng threads from queueing or
 * re-arming; close then waits until no thread is starting an operation, stops every aio
 * (waiting for its callback) and only then closes the socket and the uv handles, so no
 * nng thread touches the server or the loop afterwards.
 */
#include "rpc_int.h"
#include "wake.h"
#include "common/util/log.h"

#include <nng/protocol/reqrep0/rep.h>
#include <protobuf-c/protobuf-c.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long close waits for its "shutting down" replies to reach the transport. */
#define CLOSE_REPLY_TIMEOUT_MS 200

typedef enum slot_state {
    SLOT_IDLE,      /* not armed: closing, or never started */
    SLOT_RECV,      /* nng_ctx_recv outstanding */
    SLOT_QUEUED,    /* request received, on srv's ready queue for the loop thread */
    SLOT_HANDLER,   /* given to a handler; the reply is pending */
    SLOT_CANCELLED, /* the server gave up on it; running the cancel callback */
    SLOT_SEND       /* nng_ctx_send of the reply outstanding */
} slot_state;

struct sl_rpc_reply {
    sl_rpc_server *srv;         /* owner */
    nng_ctx ctx;                /* this slot's rep0 context */
    nng_aio *aio;               /* the one aio used for receiving and for sending */
    slot_state state;           /* changed by nng threads only under srv->mu */
    bool held;                  /* loop-thread only: the loop side owns the slot (decoding,
                                 * HANDLER, CANCELLED), so state may be read without srv->mu */
    bool farewell;              /* the reply being sent is close's "shutting down" answer */
    nng_msg *req;               /* received request while QUEUED */
    sl_rpc_reply *next;         /* link on srv's ready queue */
    uint32_t method;            /* of the pending request, echoed in the reply */
    uint64_t request_id;        /* of the pending request, echoed in the reply */
    uint64_t epoch;             /* of the pending request, echoed in the reply */
    uint64_t deadline;          /* uv_now() at which the server answers SL_ETIMEOUT itself */
    sl_rpc_cancel_fn on_cancel; /* registered by a handler keeping the handle, or NULL */
    void *cancel_arg;           /* argument of on_cancel */
};

struct sl_rpc_server {
    uv_loop_t *loop;          /* the loop every handler runs on */
    sl_wake wake;             /* wakes the loop when slots are queued */
    uv_timer_t sweep;         /* answers requests pending past request_timeout_ms */
    int open_handles;         /* uv handles not yet closed; memory is freed at 0 */
    nng_socket sock;          /* rep0 socket */
    nng_listener listener;    /* the listening endpoint */
    sl_rpc_method *methods;   /* copy of the table, sorted by number */
    int nmethods;             /* entries in methods */
    uint64_t *served;         /* per method: requests handed to its handler (loop thread) */
    void *ud;                 /* handler argument */
    sl_rpc_limits lim;        /* resolved limits */
    sl_rpc_reply *slots;      /* lim.max_inflight slots */
    uv_mutex_t mu;            /* guards closing, the ready queue and nng-side slot states */
    bool closing;             /* set once by close; nng threads stop queueing and re-arming */
    sl_rpc_reply *ready_head; /* ready queue (FIFO) of QUEUED slots */
    sl_rpc_reply *ready_tail;
    int arming;      /* slot_arm calls inside nng_ctx_recv, guarded by mu */
    uv_cond_t armed; /* signalled when arming drops to 0 while closing */
    uint32_t *conns; /* nng pipe ids of admitted connections, guarded by mu */
    int nconns;      /* entries in conns, at most lim.max_connections */
};

static int method_cmp(const void *a, const void *b)
{
    uint32_t x = ((const sl_rpc_method *)a)->number, y = ((const sl_rpc_method *)b)->number;
    return x < y ? -1 : x > y;
}

static const sl_rpc_method *find_method(const sl_rpc_server *srv, uint32_t number)
{
    sl_rpc_method key = {.number = number};
    return bsearch(&key, srv->methods, (size_t)srv->nmethods, sizeof(key), method_cmp);
}

/* ---- nng side --------------------------------------------------------------------- */

/* Starts receiving on s, unless the server is closing. Any thread. */
static void slot_arm(sl_rpc_reply *s)
{
    sl_rpc_server *srv = s->srv;
    uv_mutex_lock(&srv->mu);
    if (srv->closing) {
        s->state = SLOT_IDLE;
        uv_mutex_unlock(&srv->mu);
        return;
    }
    s->state = SLOT_RECV;
    srv->arming++;
    uv_mutex_unlock(&srv->mu);
    /* Outside the lock, as nng may finish the operation at once; close waits for arming
     * to drop to 0 before it stops the aios and closes the socket, because nng 1.5.2 can
     * crash when an operation is started on a context while its socket is being closed. */
    nng_aio_set_timeout(s->aio, NNG_DURATION_INFINITE);
    nng_ctx_recv(s->ctx, s->aio);
    uv_mutex_lock(&srv->mu);
    if (--srv->arming == 0 && srv->closing)
        uv_cond_broadcast(&srv->armed);
    uv_mutex_unlock(&srv->mu);
}

/* The aio callback of a slot, on an nng thread: a receive or a send finished. */
static void slot_cb(void *arg)
{
    sl_rpc_reply *s = arg;
    sl_rpc_server *srv = s->srv;
    int rv = nng_aio_result(s->aio);

    if (s->state == SLOT_SEND) {
        if (rv != 0) {
            /* The reply was not taken (peer too slow, socket closed): drop it. */
            nng_msg *back = nng_aio_get_msg(s->aio);
            nng_aio_set_msg(s->aio, NULL);
            if (back != NULL)
                nng_msg_free(back);
        }
        slot_arm(s);
        return;
    }

    if (rv != 0) {
        if (rv == NNG_ECLOSED || rv == NNG_ECANCELED) {
            uv_mutex_lock(&srv->mu);
            s->state = SLOT_IDLE;
            uv_mutex_unlock(&srv->mu);
            return;
        }
        slot_arm(s); /* a transient failure (NNG_ENOMEM): keep serving */
        return;
    }

    nng_msg *m = nng_aio_get_msg(s->aio);
    nng_aio_set_msg(s->aio, NULL);
    uv_mutex_lock(&srv->mu);
    if (srv->closing) {
        s->state = SLOT_IDLE;
        uv_mutex_unlock(&srv->mu);
        nng_msg_free(m);
        return;
    }
    s->req = m;
    s->state = SLOT_QUEUED;
    s->next = NULL;
    if (srv->ready_tail != NULL)
        srv->ready_tail->next = s;
    else
        srv->ready_head = s;
    srv->ready_tail = s;
    uv_mutex_unlock(&srv->mu);
    /* close frees this aio (waiting for this callback) before it closes the wake. */
    sl_wake_send(&srv->wake);
}

/* Admits a new connection while fewer than max_connections are open, otherwise closes it
 * (NNG_PIPE_EV_ADD_PRE), and forgets connections as they go (NNG_PIPE_EV_REM_POST). Ids are
 * tracked rather than counted so a pipe rejected here is never subtracted. nng thread. */
static void on_pipe(nng_pipe p, nng_pipe_ev ev, void *arg)
{
    sl_rpc_server *srv = arg;
    uint32_t id = (uint32_t)nng_pipe_id(p);
    bool reject = false;
    uv_mutex_lock(&srv->mu);
    if (ev == NNG_PIPE_EV_ADD_PRE) {
        if (srv->nconns < srv->lim.max_connections)
            srv->conns[srv->nconns++] = id;
        else
            reject = true;
    } else if (ev == NNG_PIPE_EV_REM_POST) {
        for (int i = 0; i < srv->nconns; i++) {
            if (srv->conns[i] == id) {
                srv->conns[i] = srv->conns[--srv->nconns];
                break;
            }
        }
    }
    uv_mutex_unlock(&srv->mu);
    if (reject)
        nng_pipe_close(p);
}

/* ---- loop side -------------------------------------------------------------------- */

/* Hands msg (taken) to nng as the reply of s. Loop thread. */
static void slot_send(sl_rpc_reply *s, nng_msg *msg, int timeout_ms)
{
    s->held = false;
    s->state = SLOT_SEND;
    s->on_cancel = NULL;
    s->cancel_arg = NULL;
    nng_aio_set_msg(s->aio, msg);
    nng_aio_set_timeout(s->aio, sl__rpc_duration(timeout_ms));
    nng_ctx_send(s->ctx, s->aio);
}

/* Answers s with an error reply; when even that cannot be built, drops the request (the
 * caller times out) and receives again. Loop thread. */
static int slot_fail(sl_rpc_reply *s, const sl_error *e, int timeout_ms)
{
    nng_msg *m;
    int rc =
        sl__rpc_pack(&m, s->method, s->request_id, s->epoch, NULL, 0, e, s->srv->lim.max_msg_bytes);
    if (rc != 0) {
        s->held = false;
        s->on_cancel = NULL;
        s->cancel_arg = NULL;
        slot_arm(s);
        return rc;
    }
    slot_send(s, m, timeout_ms);
    return 0;
}

static int slot_failf(sl_rpc_reply *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Fills *e with code and the formatted message. */
static void error_vfill(sl_error *e, int code, const char *fmt, va_list ap)
{
    sl_error_clear(e);
    e->code = code;
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
}

static int slot_failf(sl_rpc_reply *s, int code, const char *fmt, ...)
{
    sl_error e;
    va_list ap;
    va_start(ap, fmt);
    error_vfill(&e, code, fmt, ap);
    va_end(ap);
    return slot_fail(s, &e, s->srv->lim.request_timeout_ms);
}

/* Decodes the request queued on s and runs its handler, or answers it with an error. */
static void slot_dispatch(sl_rpc_server *srv, sl_rpc_reply *s)
{
    nng_msg *m = s->req;
    s->req = NULL;
    s->method = 0;
    s->request_id = 0;
    s->epoch = 0;
    s->on_cancel = NULL;
    s->cancel_arg = NULL;
    s->held = true;
    s->state = SLOT_HANDLER; /* so the error paths below may answer */

    /* nng enforces max_msg_bytes already (NNG_OPT_RECVMAXSZ); the decoder checks again. */
    sl_error e;
    sl_error_clear(&e);
    Sluice__Envelope *env;
    int rc =
        sl__rpc_decode_request(nng_msg_body(m), nng_msg_len(m), srv->lim.max_msg_bytes, &env, &e);
    nng_msg_free(m);
    if (env == NULL) {
        slot_fail(s, &e, srv->lim.request_timeout_ms);
        return;
    }
    s->method = env->method;
    s->request_id = env->request_id;
    s->epoch = env->epoch;
    if (rc < 0) {
        slot_fail(s, &e, srv->lim.request_timeout_ms);
    } else {
        const sl_rpc_method *meth = find_method(srv, env->method);
        if (meth == NULL) {
            slot_failf(s, SL_EUNSUPPORTED, "unknown method %u", env->method);
        } else {
            sl_rpc_request req = {
                .method = env->method,
                .request_id = env->request_id,
                .epoch = env->epoch,
                .payload = env->payload.len > 0 ? env->payload.data : NULL,
                .len = env->payload.len,
            };
            s->deadline = uv_now(srv->loop) + (uint64_t)srv->lim.request_timeout_ms;
            srv->served[meth - srv->methods]++;
            /* s may be answered, re-armed and even queued again before this returns. */
            meth->handler(s, &req, srv->ud);
        }
    }
    sluice__envelope__free_unpacked(env, NULL);
}

static void on_wake(sl_wake *w)
{
    sl_rpc_server *srv = w->data;
    for (;;) {
        /* One at a time, so a handler that closes the server leaves the rest for close. */
        uv_mutex_lock(&srv->mu);
        sl_rpc_reply *s = srv->closing ? NULL : srv->ready_head;
        if (s != NULL) {
            srv->ready_head = s->next;
            if (srv->ready_head == NULL)
                srv->ready_tail = NULL;
            s->next = NULL;
        }
        uv_mutex_unlock(&srv->mu);
        if (s == NULL)
            return;
        slot_dispatch(srv, s);
    }
}

/* Gives up on the pending reply s: runs its cancel callback, then answers code/msg. */
static void slot_cancel(sl_rpc_reply *s, int code, const char *msg, int timeout_ms)
{
    sl_rpc_cancel_fn cb = s->on_cancel;
    void *arg = s->cancel_arg;
    s->state = SLOT_CANCELLED; /* a reply from inside the callback gets SL_ESTATE */
    s->on_cancel = NULL;
    s->cancel_arg = NULL;
    if (cb != NULL)
        cb(s, arg);
    sl_error e;
    sl_error_clear(&e);
    sl_error_set(&e, code, 0, 0, "%s", msg);
    slot_fail(s, &e, timeout_ms);
}

static void on_sweep(uv_timer_t *t)
{
    sl_rpc_server *srv = t->data;
    uint64_t now = uv_now(srv->loop);
    char msg[96];
    snprintf(msg, sizeof(msg), "request not answered within %d ms", srv->lim.request_timeout_ms);
    for (int i = 0; i < srv->lim.max_inflight && !srv->closing; i++) {
        sl_rpc_reply *s = &srv->slots[i];
        if (s->held && s->state == SLOT_HANDLER && now >= s->deadline)
            slot_cancel(s, SL_ETIMEOUT, msg, srv->lim.request_timeout_ms);
    }
}

/* ---- public ----------------------------------------------------------------------- */

int sl_rpc_reply_ok(sl_rpc_reply *reply, const void *payload, size_t len)
{
    if (reply == NULL || !reply->held || reply->state != SLOT_HANDLER || reply->srv->closing)
        return SL_ESTATE;
    sl_rpc_server *srv = reply->srv;
    if (payload == NULL && len > 0) {
        slot_failf(reply, SL_EINVAL, "handler replied with %zu bytes at NULL", len);
        return SL_EINVAL;
    }
    nng_msg *m;
    int rc = sl__rpc_pack(&m, reply->method, reply->request_id, reply->epoch, payload, len, NULL,
                          srv->lim.max_msg_bytes);
    if (rc == SL_ELIMIT) {
        const sl_rpc_method *meth = find_method(srv, reply->method);
        slot_failf(
            reply, SL_ELIMIT, "reply of method %s (%zu bytes) exceeds the limit of %zu bytes",
            meth != NULL && meth->name != NULL ? meth->name : "?", len, srv->lim.max_msg_bytes);
        return rc;
    }
    if (rc != 0) {
        slot_failf(reply, rc, "server out of memory building the reply");
        return rc;
    }
    slot_send(reply, m, srv->lim.request_timeout_ms);
    return 0;
}

int sl_rpc_reply_error(sl_rpc_reply *reply, const sl_error *err)
{
    if (reply == NULL || !reply->held || reply->state != SLOT_HANDLER || reply->srv->closing)
        return SL_ESTATE;
    if (err == NULL || err->code >= 0) {
        slot_failf(reply, SL_EINVAL, "handler failed without an error code%s%s",
                   err != NULL && err->msg[0] ? ": " : "", err != NULL ? err->msg : "");
        return 0;
    }
    sl_error e = *err;
    e.msg[sizeof(e.msg) - 1] = '\0';
    return slot_fail(reply, &e, reply->srv->lim.request_timeout_ms);
}

int sl_rpc_reply_fail(sl_rpc_reply *reply, int code, const char *fmt, ...)
{
    sl_error e;
    va_list ap;
    va_start(ap, fmt);
    error_vfill(&e, code, fmt, ap);
    va_end(ap);
    return sl_rpc_reply_error(reply, &e);
}

int sl_rpc_reply_msg(sl_rpc_reply *reply, const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *p = malloc(n ? n : 1);
    if (p == NULL)
        return sl_rpc_reply_fail(reply, SL_ENOMEM, "out of memory building the reply");
    protobuf_c_message_pack(m, p);
    int rc = sl_rpc_reply_ok(reply, p, n);
    free(p);
    return rc;
}

void sl_rpc_reply_on_cancel(sl_rpc_reply *reply, sl_rpc_cancel_fn cb, void *arg)
{
    if (reply == NULL || !reply->held || reply->state != SLOT_HANDLER)
        return;
    reply->on_cancel = cb;
    reply->cancel_arg = arg;
}

int sl_rpc_server_port(const sl_rpc_server *srv)
{
    int port = 0;
    if (srv == NULL || nng_listener_get_int(srv->listener, NNG_OPT_TCP_BOUND_PORT, &port) != 0)
        return 0;
    return port;
}

/* Frees what open allocated before any uv handle existed. */
static void server_free(sl_rpc_server *srv)
{
    if (srv->slots != NULL) {
        for (int i = 0; i < srv->lim.max_inflight; i++) {
            if (srv->slots[i].aio != NULL)
                nng_aio_free(srv->slots[i].aio);
        }
    }
    free(srv->slots);
    free(srv->methods);
    free(srv->served);
    free(srv->conns);
    uv_cond_destroy(&srv->armed);
    uv_mutex_destroy(&srv->mu);
    free(srv);
}

int sl_rpc_server_open(sl_rpc_server **out, uv_loop_t *loop, const char *listen_url,
                       const sl_rpc_method *methods, int nmethods, void *ud,
                       const sl_rpc_limits *lim, sl_error *err)
{
    if (out == NULL || loop == NULL || listen_url == NULL || nmethods < 0 ||
        (nmethods > 0 && methods == NULL))
        return sl_error_set(err, SL_EINVAL, 0, 0, "rpc server: missing argument");
    *out = NULL;
    for (int i = 0; i < nmethods; i++) {
        if (methods[i].number == 0 || methods[i].handler == NULL)
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "rpc server: method %d (%s) needs a nonzero number and a handler",
                                i, methods[i].name != NULL ? methods[i].name : "?");
    }

    sl_rpc_server *srv = calloc(1, sizeof(*srv));
    if (srv == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "rpc server: out of memory");
    if (uv_mutex_init(&srv->mu) != 0) {
        free(srv);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "rpc server: cannot create a mutex");
    }
    if (uv_cond_init(&srv->armed) != 0) {
        uv_mutex_destroy(&srv->mu);
        free(srv);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "rpc server: cannot create a condition");
    }
    srv->loop = loop;
    srv->ud = ud;
    sl__rpc_limits_resolve(lim, &srv->lim);
    bool sock_open = false;
    int rc, nrv;

    srv->nmethods = nmethods;
    srv->methods = calloc(nmethods > 0 ? (size_t)nmethods : 1, sizeof(*srv->methods));
    srv->served = calloc(nmethods > 0 ? (size_t)nmethods : 1, sizeof(*srv->served));
    srv->slots = calloc((size_t)srv->lim.max_inflight, sizeof(*srv->slots));
    srv->conns = calloc((size_t)srv->lim.max_connections, sizeof(*srv->conns));
    if (srv->methods == NULL || srv->served == NULL || srv->slots == NULL || srv->conns == NULL) {
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "rpc server: out of memory");
        goto fail;
    }
    if (nmethods > 0)
        memcpy(srv->methods, methods, (size_t)nmethods * sizeof(*methods));
    qsort(srv->methods, (size_t)nmethods, sizeof(*srv->methods), method_cmp);
    for (int i = 1; i < nmethods; i++) {
        if (srv->methods[i].number == srv->methods[i - 1].number) {
            rc = sl_error_set(err, SL_EINVAL, 0, 0, "rpc server: method number %u listed twice",
                              srv->methods[i].number);
            goto fail;
        }
    }

    if ((nrv = nng_rep0_open(&srv->sock)) != 0) {
        rc = sl_error_set(err, sl__rpc_map_nng(nrv), 0, 0, "rpc server: cannot open socket: %s",
                          nng_strerror(nrv));
        goto fail;
    }
    sock_open = true;
    /* Frames above the limit are refused by the transport before they are buffered. */
    if ((nrv = nng_socket_set_size(srv->sock, NNG_OPT_RECVMAXSZ, srv->lim.max_msg_bytes)) != 0 ||
        (nrv = nng_pipe_notify(srv->sock, NNG_PIPE_EV_ADD_PRE, on_pipe, srv)) != 0 ||
        (nrv = nng_pipe_notify(srv->sock, NNG_PIPE_EV_REM_POST, on_pipe, srv)) != 0) {
        rc = sl_error_set(err, SL_EIO, 0, 0, "rpc server: cannot set socket options: %s",
                          nng_strerror(nrv));
        goto fail;
    }
    for (int i = 0; i < srv->lim.max_inflight; i++) {
        sl_rpc_reply *s = &srv->slots[i];
        s->srv = srv;
        if ((nrv = nng_ctx_open(&s->ctx, srv->sock)) != 0 ||
            (nrv = nng_aio_alloc(&s->aio, slot_cb, s)) != 0) {
            rc = sl_error_set(err, sl__rpc_map_nng(nrv), 0, 0,
                              "rpc server: cannot create context %d: %s", i, nng_strerror(nrv));
            goto fail;
        }
    }
    if ((nrv = nng_listen(srv->sock, listen_url, &srv->listener, 0)) != 0) {
        rc = sl__rpc_map_nng(nrv);
        if (rc == SL_EUNAVAILABLE)
            rc = SL_EIO;
        rc = sl_error_set(err, rc, 0, 0, "rpc server: cannot listen on %s: %s", listen_url,
                          nng_strerror(nrv));
        goto fail;
    }
    if (sl_wake_init(loop, &srv->wake, on_wake, srv) != 0) {
        rc = sl_error_set(err, SL_EIO, 0, 0, "rpc server: cannot create the loop wake-up");
        goto fail;
    }
    /* Nothing fails from here on: uv handles need the loop to be released. */
    uv_timer_init(loop, &srv->sweep);
    srv->sweep.data = srv;
    srv->open_handles = 2;
    uint64_t period = (uint64_t)srv->lim.request_timeout_ms / 8;
    period = period < 10 ? 10 : period > 1000 ? 1000 : period;
    uv_timer_start(&srv->sweep, on_sweep, period, period);
    uv_unref((uv_handle_t *)&srv->sweep);

    for (int i = 0; i < srv->lim.max_inflight; i++)
        slot_arm(&srv->slots[i]);
    *out = srv;
    return 0;

fail:
    if (sock_open)
        nng_close(srv->sock);
    server_free(srv);
    return rc;
}

static void handle_closed(sl_rpc_server *srv)
{
    if (--srv->open_handles == 0)
        server_free(srv);
}

static void on_handle_closed(uv_handle_t *h)
{
    handle_closed(h->data);
}

static void on_wake_closed(sl_wake *w)
{
    handle_closed(w->data);
}

void sl_rpc_server_close(sl_rpc_server *srv)
{
    if (srv == NULL)
        return;
    uv_mutex_lock(&srv->mu);
    if (srv->closing) {
        uv_mutex_unlock(&srv->mu);
        return;
    }
    srv->closing = true;
    sl_rpc_reply *queued = srv->ready_head;
    srv->ready_head = srv->ready_tail = NULL;
    uv_mutex_unlock(&srv->mu);

    nng_listener_close(srv->listener);

    /* Answer what was received but not answered, best effort, then let it reach the
     * transport before the connections go. */
    static const char shutting[] = "server is shutting down";
    while (queued != NULL) {
        sl_rpc_reply *s = queued;
        queued = s->next;
        s->next = NULL;
        nng_msg_free(s->req);
        s->req = NULL;
        /* Not decoded: the reply carries request id 0, which clients accept for errors. */
        s->method = 0;
        s->request_id = 0;
        s->epoch = 0;
        s->on_cancel = NULL;
        s->held = true;
        s->state = SLOT_HANDLER;
        s->farewell = true;
        slot_cancel(s, SL_EUNAVAILABLE, shutting, CLOSE_REPLY_TIMEOUT_MS);
    }
    for (int i = 0; i < srv->lim.max_inflight; i++) {
        sl_rpc_reply *s = &srv->slots[i];
        if (s->held && s->state == SLOT_HANDLER) {
            s->farewell = true;
            slot_cancel(s, SL_EUNAVAILABLE, shutting, CLOSE_REPLY_TIMEOUT_MS);
        }
    }
    for (int i = 0; i < srv->lim.max_inflight; i++) {
        sl_rpc_reply *s = &srv->slots[i];
        uv_mutex_lock(&srv->mu);
        bool sending = s->state == SLOT_SEND;
        uv_mutex_unlock(&srv->mu);
        if (!sending)
            continue;
        /* Farewells time out after CLOSE_REPLY_TIMEOUT_MS; an ordinary reply still queued
         * behind a slow reader would wait request_timeout_ms, so it is abandoned. */
        if (!s->farewell)
            nng_aio_cancel(s->aio);
        nng_aio_wait(s->aio);
    }

    /* No nng thread starts an operation any more once arming is 0 (they see closing).
     * Stopping an aio cancels its receive and waits for its callback, which idles; only
     * then is the socket closed. */
    uv_mutex_lock(&srv->mu);
    while (srv->arming > 0)
        uv_cond_wait(&srv->armed, &srv->mu);
    uv_mutex_unlock(&srv->mu);
    for (int i = 0; i < srv->lim.max_inflight; i++)
        nng_aio_stop(srv->slots[i].aio);
    nng_close(srv->sock);
    for (int i = 0; i < srv->lim.max_inflight; i++) {
        sl_rpc_reply *s = &srv->slots[i];
        nng_aio_free(s->aio);
        s->aio = NULL;
        if (s->req != NULL) {
            nng_msg_free(s->req);
            s->req = NULL;
        }
        s->held = false;
        s->state = SLOT_IDLE;
    }
    uv_timer_stop(&srv->sweep);
    uv_close((uv_handle_t *)&srv->sweep, on_handle_closed);
    sl_wake_close(&srv->wake, on_wake_closed);
}

int sl_rpc_server_served(const sl_rpc_server *srv, char *buf, size_t n)
{
    size_t at = 0;
    if (n > 0)
        buf[0] = '\0';
    for (int i = 0; srv != NULL && i < srv->nmethods; i++) {
        if (srv->served[i] == 0)
            continue;
        int w = snprintf(buf + at, n > at ? n - at : 0, "%s%s=%llu", at ? " " : "",
                         srv->methods[i].name ? srv->methods[i].name : "?",
                         (unsigned long long)srv->served[i]);
        if (w < 0 || (size_t)w >= (n > at ? n - at : 0))
            return -1;
        at += (size_t)w;
    }
    return (int)at;
}

void sl_rpc_server_log_served(const sl_rpc_server *srv, const char *who)
{
    char buf[2048];
    if (srv != NULL && sl_rpc_server_served(srv, buf, sizeof(buf)) != 0)
        sl_log(SL_LOG_INFO, who, "requests served: %s", buf);
}
