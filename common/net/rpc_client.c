/*
 * rpc_client.c - the req0 side of the RPC layer: blocking calls from any thread and
 * asynchronous calls that complete on a libuv loop.
 *
 * One client is one req0 socket with a background dialer. Every call opens its own nng
 * context, so concurrent calls never wait for each other and each reply is matched to its
 * request by nng. Requests are never re-sent (NNG_OPT_REQ_RESENDTIME is infinite): a
 * method need not be idempotent, and a lost connection or a timeout is reported instead.
 *
 * An async call owns a context, an aio and a uv_async_t on the caller's loop. nng threads
 * drive it (send, then receive with the remaining time) and wake the loop when it is
 * done; the loop thread decodes the reply and runs the callback. Pending async calls are
 * linked on the client so close can stop them and run their callbacks itself.
 *
 * A dead connection that nobody closed (the peer's host vanished, a network cut: no FIN,
 * no RST) would otherwise hold every call until TCP gives up, many minutes later, because
 * nng only reconnects once the pipe fails. So when a call times out and nothing at all
 * was heard on its connection since the request went out, the client closes that pipe:
 * the dialer reconnects, resolving the host name again. A server that is merely slow
 * while other replies arrive keeps its connection.
 */
#include "rpc_int.h"

#include <nng/protocol/reqrep0/req.h>

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define RECONNECT_MIN_MS 100
#define RECONNECT_MAX_MS 2000

/* A connection silent this long while a call waited for its reply is presumed dead
 * (see timed_out). Shorter timeouts are the caller's business, not the connection's. */
#define DEAD_SILENCE_MS 1000

/* nng 1.5.2 leaks the endpoint, and sometimes hangs in nng_close, when a socket is closed
 * while its dialer is negotiating a fresh TCP connection. Against a live server that phase
 * lasts well under a millisecond, so close gives an unconnected client this long to finish
 * a connection attempt in flight before closing the socket. */
#define CLOSE_SETTLE_MS 20

typedef struct acall acall;

struct sl_rpc_client {
    nng_socket sock;              /* req0 socket */
    nng_dialer dialer;            /* background (re)connecting dialer */
    sl_rpc_limits lim;            /* resolved limits */
    char *url;                    /* copy of the server address, for messages */
    atomic_int npipes;            /* connections up now (pipe notifications) */
    atomic_uint pipe_id;          /* the connection up now (nng pipe id), 0 when none */
    atomic_uint_fast64_t heard_ms;/* sl__rpc_now_ms() of the last reply or connect */
    atomic_uint_fast64_t next_id; /* request ids */
    uv_mutex_t mu;                /* guards closing, calls and arming */
    bool closing;                 /* set once by close; no async call starts after */
    int arming;                   /* async callbacks inside nng_ctx_recv */
    uv_cond_t armed;              /* signalled when arming drops to 0 while closing */
    acall *calls;                 /* pending async calls, doubly linked */
};

enum acall_phase { PH_SEND, PH_RECV, PH_DONE };

struct acall {
    sl_rpc_client *cli;  /* owner */
    uv_async_t async;    /* wakes the caller's loop when the call is done */
    nng_ctx ctx;         /* this call's req0 context */
    nng_aio *aio;        /* drives send then receive on nng threads */
    int phase;           /* enum acall_phase; PH_DONE is set under cli->mu */
    int nrv;             /* nng result of the step that ended the call */
    bool failed_sending; /* nrv came from the send step */
    nng_msg *reply;      /* the reply, when nrv is 0 */
    uint64_t request_id; /* envelope request id */
    uint64_t deadline;   /* sl__rpc_now_ms() when the call times out */
    uint64_t sent_ms;    /* sl__rpc_now_ms() when the request was handed to a pipe */
    uint32_t sent_pipe;  /* the pipe it went out on, as far as the client knows */
    bool dropped;        /* its timeout closed that pipe as dead */
    int timeout_ms;      /* the call's timeout, for messages */
    sl_rpc_done_fn cb;   /* completion */
    void *ud;            /* completion argument */
    acall *prev, *next;  /* links on cli->calls */
};

/* ---- shared by both kinds of call ------------------------------------------------- */

static void on_pipe(nng_pipe p, nng_pipe_ev ev, void *arg)
{
    sl_rpc_client *cli = arg;
    unsigned id = (unsigned)nng_pipe_id(p);
    if (ev == NNG_PIPE_EV_ADD_POST) {
        atomic_store(&cli->heard_ms, sl__rpc_now_ms());
        atomic_store(&cli->pipe_id, id);
        atomic_fetch_add(&cli->npipes, 1);
    } else if (ev == NNG_PIPE_EV_REM_POST) {
        atomic_compare_exchange_strong(&cli->pipe_id, &id, 0u);
        atomic_fetch_sub(&cli->npipes, 1);
    }
}

/* A reply arrived: the connection is alive. */
static void heard(sl_rpc_client *cli)
{
    atomic_store(&cli->heard_ms, sl__rpc_now_ms());
}

/* A call sent at sent_ms on pipe sent_pipe got no reply in time. When nothing was heard
 * on the connection since then either, and it has been silent for DEAD_SILENCE_MS, it is
 * presumed dead and closed, so the dialer connects afresh (nng resends the requests still
 * pending on it on the new one). */
static bool timed_out(sl_rpc_client *cli, uint64_t sent_ms, uint32_t sent_pipe)
{
    uint64_t heard_ms = atomic_load(&cli->heard_ms);
    if (sent_pipe == 0 || heard_ms >= sent_ms || sl__rpc_now_ms() < heard_ms + DEAD_SILENCE_MS)
        return false;
    if (atomic_load(&cli->pipe_id) != sent_pipe)
        return false; /* that connection is gone already */
    nng_pipe p = NNG_PIPE_INITIALIZER;
    p.id = sent_pipe;
    return nng_pipe_close(p) == 0;
}

static int dropped_error(sl_rpc_client *cli, int timeout_ms, sl_error *err)
{
    return sl_error_set(err, SL_EUNAVAILABLE, 0, 0,
                        "connection to %s presumed dead (no reply within %d ms, nothing heard "
                        "for %d ms): reconnecting", cli->url, timeout_ms, DEAD_SILENCE_MS);
}

/* Turns an nng failure of a call into an sl_err code and message. */
static int transport_error(sl_rpc_client *cli, int nrv, bool sending, int timeout_ms, sl_error *err)
{
    bool connected = atomic_load(&cli->npipes) > 0;
    if (nrv == NNG_ETIMEDOUT) {
        if (!connected && sending)
            return sl_error_set(err, SL_EUNAVAILABLE, 0, 0, "cannot connect to %s within %d ms",
                                cli->url, timeout_ms);
        if (!connected)
            return sl_error_set(err, SL_EUNAVAILABLE, 0, 0,
                                "connection to %s lost, no reply within %d ms", cli->url,
                                timeout_ms);
        return sl_error_set(err, SL_ETIMEOUT, 0, 0, "no reply from %s within %d ms", cli->url,
                            timeout_ms);
    }
    int rc = sl__rpc_map_nng(nrv);
    if (rc == SL_EUNAVAILABLE)
        return sl_error_set(err, rc, 0, 0, "connection to %s lost: %s", cli->url,
                            nng_strerror(nrv));
    return sl_error_set(err, rc, 0, 0, "call to %s failed: %s", cli->url, nng_strerror(nrv));
}

/* Decodes a reply (taken). Returns 0 and *out (caller frees it with
 * sluice__envelope__free_unpacked), or the remote error code, or SL_ECORRUPT. */
static int decode_reply(sl_rpc_client *cli, nng_msg *m, uint64_t request_id, Sluice__Envelope **out,
                        sl_error *err)
{
    int rc = sl__rpc_decode_reply(nng_msg_body(m), nng_msg_len(m), request_id, cli->url, out, err);
    nng_msg_free(m);
    return rc;
}

/* Sends msg (taken) on a fresh context and waits for the reply, all within timeout_ms.
 * Returns 0 and *out (caller frees it), or an error code with err set. */
static int exchange(sl_rpc_client *cli, nng_msg *msg, int timeout_ms, nng_msg **out, sl_error *err)
{
    *out = NULL;
    nng_ctx ctx;
    nng_aio *aio;
    int nrv = nng_ctx_open(&ctx, cli->sock);
    if (nrv != 0) {
        nng_msg_free(msg);
        return transport_error(cli, nrv, true, timeout_ms, err);
    }
    if ((nrv = nng_aio_alloc(&aio, NULL, NULL)) != 0) {
        nng_ctx_close(ctx);
        nng_msg_free(msg);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "call to %s: out of memory", cli->url);
    }
    uint64_t deadline = sl__rpc_now_ms() + (uint64_t)timeout_ms;
    int rc = 0;

    nng_aio_set_msg(aio, msg);
    nng_aio_set_timeout(aio, sl__rpc_duration(timeout_ms));
    nng_ctx_send(ctx, aio);
    nng_aio_wait(aio);
    if ((nrv = nng_aio_result(aio)) != 0) {
        nng_msg *back = nng_aio_get_msg(aio);
        if (back != NULL)
            nng_msg_free(back);
        rc = transport_error(cli, nrv, true, timeout_ms, err);
        goto out;
    }
    uint64_t sent_ms = sl__rpc_now_ms();
    uint32_t sent_pipe = atomic_load(&cli->pipe_id);
    nng_aio_set_timeout(aio, sl__rpc_duration((int64_t)deadline - (int64_t)sent_ms));
    nng_ctx_recv(ctx, aio);
    nng_aio_wait(aio);
    if ((nrv = nng_aio_result(aio)) != 0) {
        if (nrv == NNG_ETIMEDOUT && timed_out(cli, sent_ms, sent_pipe))
            rc = dropped_error(cli, timeout_ms, err);
        else
            rc = transport_error(cli, nrv, false, timeout_ms, err);
        goto out;
    }
    heard(cli);
    *out = nng_aio_get_msg(aio);
out:
    nng_aio_free(aio);
    nng_ctx_close(ctx);
    return rc;
}

static int resolve_timeout(const sl_rpc_client *cli, int timeout_ms)
{
    return timeout_ms > 0 ? timeout_ms : cli->lim.request_timeout_ms;
}

static int pack_request(sl_rpc_client *cli, nng_msg **m, uint32_t method, uint64_t epoch,
                        const void *req, size_t len, uint64_t *request_id, sl_error *err)
{
    *request_id = atomic_fetch_add(&cli->next_id, 1);
    int rc = sl__rpc_pack(m, method, *request_id, epoch, req, len, NULL, cli->lim.max_msg_bytes);
    if (rc == SL_ELIMIT)
        return sl_error_set(err, rc, 0, 0, "request of %zu bytes exceeds the limit of %zu bytes",
                            len, cli->lim.max_msg_bytes);
    if (rc != 0)
        return sl_error_set(err, rc, 0, 0, "call to %s: out of memory", cli->url);
    return 0;
}

/* ---- blocking calls --------------------------------------------------------------- */

int sl_rpc_call(sl_rpc_client *cli, uint32_t method, uint64_t epoch, const void *req, size_t len,
                sl_buf *reply, int timeout_ms, sl_error *err)
{
    if (cli == NULL || (req == NULL && len > 0))
        return sl_error_set(err, SL_EINVAL, 0, 0, "rpc call: missing argument");
    timeout_ms = resolve_timeout(cli, timeout_ms);
    nng_msg *m, *rep;
    uint64_t id;
    int rc = pack_request(cli, &m, method, epoch, req, len, &id, err);
    if (rc != 0)
        return rc;
    if ((rc = exchange(cli, m, timeout_ms, &rep, err)) != 0)
        return rc;
    Sluice__Envelope *env;
    if ((rc = decode_reply(cli, rep, id, &env, err)) != 0)
        return rc;
    if (reply != NULL) {
        sl_buf_reset(reply);
        if (env->payload.len > 0 && sl_buf_put(reply, env->payload.data, env->payload.len) != 0)
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "reply of %zu bytes: out of memory",
                              env->payload.len);
    }
    sluice__envelope__free_unpacked(env, NULL);
    return rc;
}

int sl_rpc_call_frame(sl_rpc_client *cli, const void *frame, size_t len, sl_buf *reply,
                      int timeout_ms, sl_error *err)
{
    if (cli == NULL || (frame == NULL && len > 0))
        return sl_error_set(err, SL_EINVAL, 0, 0, "rpc frame: missing argument");
    if (len > cli->lim.max_msg_bytes)
        return sl_error_set(err, SL_ELIMIT, 0, 0,
                            "frame of %zu bytes exceeds the limit of %zu bytes", len,
                            cli->lim.max_msg_bytes);
    timeout_ms = resolve_timeout(cli, timeout_ms);
    nng_msg *m, *rep;
    if (nng_msg_alloc(&m, len) != 0)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "frame of %zu bytes: out of memory", len);
    if (len > 0)
        memcpy(nng_msg_body(m), frame, len);
    int rc = exchange(cli, m, timeout_ms, &rep, err);
    if (rc != 0)
        return rc;
    if (reply != NULL) {
        sl_buf_reset(reply);
        if (nng_msg_len(rep) > 0 && sl_buf_put(reply, nng_msg_body(rep), nng_msg_len(rep)) != 0)
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "reply frame: out of memory");
    }
    nng_msg_free(rep);
    return rc;
}

/* ---- async calls ------------------------------------------------------------------ */

/* The aio callback of an async call, on an nng thread. */
static void acall_cb(void *arg)
{
    acall *c = arg;
    sl_rpc_client *cli = c->cli;
    int rv = nng_aio_result(c->aio);

    if (c->phase == PH_SEND && rv == 0) {
        /* Close waits for arming to drop to 0 before it stops aios and closes the socket:
         * nng 1.5.2 can crash when an operation starts on a socket being closed. */
        uv_mutex_lock(&cli->mu);
        bool closing = cli->closing;
        if (!closing) {
            cli->arming++;
            c->phase = PH_RECV;
        }
        uv_mutex_unlock(&cli->mu);
        if (!closing) {
            c->sent_ms = sl__rpc_now_ms();
            c->sent_pipe = atomic_load(&cli->pipe_id);
            int64_t left = (int64_t)c->deadline - (int64_t)c->sent_ms;
            nng_aio_set_timeout(c->aio, sl__rpc_duration(left));
            nng_ctx_recv(c->ctx, c->aio);
            uv_mutex_lock(&cli->mu);
            if (--cli->arming == 0 && cli->closing)
                uv_cond_broadcast(&cli->armed);
            uv_mutex_unlock(&cli->mu);
            return;
        }
        rv = NNG_ECANCELED; /* sent, but the client is closing: the reply would be lost */
    } else if (c->phase == PH_SEND) {
        nng_msg *back = nng_aio_get_msg(c->aio);
        nng_aio_set_msg(c->aio, NULL);
        if (back != NULL)
            nng_msg_free(back);
        c->failed_sending = true;
    } else if (rv == 0) {
        heard(cli);
        c->reply = nng_aio_get_msg(c->aio);
        nng_aio_set_msg(c->aio, NULL);
    } else if (rv == NNG_ETIMEDOUT) {
        c->dropped = timed_out(cli, c->sent_ms, c->sent_pipe);
    }
    c->nrv = rv;
    uv_mutex_lock(&cli->mu);
    c->phase = PH_DONE;
    bool wake = !cli->closing; /* a closing client delivers the result itself */
    uv_mutex_unlock(&cli->mu);
    if (wake)
        uv_async_send(&c->async);
}

static void acall_free(uv_handle_t *h)
{
    free(h->data);
}

/* Releases c's nng resources, runs its callback and closes its async. Loop thread; c is
 * no longer on cli->calls. closing: called by client close after stopping the aio. */
static void acall_finish(acall *c, bool closing)
{
    sl_rpc_client *cli = c->cli;
    nng_aio_free(c->aio); /* waits for a callback still running */
    c->aio = NULL;
    nng_ctx_close(c->ctx);

    sl_error e;
    sl_error_clear(&e);
    int rc;
    Sluice__Envelope *env = NULL;
    if (c->phase != PH_DONE || (closing && (c->nrv == NNG_ECANCELED || c->nrv == NNG_ECLOSED))) {
        rc = sl_error_set(&e, SL_EUNAVAILABLE, 0, 0, "client closed");
    } else if (c->dropped) {
        rc = dropped_error(cli, c->timeout_ms, &e);
    } else if (c->nrv != 0) {
        rc = transport_error(cli, c->nrv, c->failed_sending, c->timeout_ms, &e);
    } else {
        rc = decode_reply(cli, c->reply, c->request_id, &env, &e);
        c->reply = NULL;
    }
    if (c->reply != NULL)
        nng_msg_free(c->reply);
    c->reply = NULL;
    if (rc == 0)
        c->cb(c->ud, 0, env->payload.len > 0 ? env->payload.data : NULL, env->payload.len, NULL);
    else
        c->cb(c->ud, rc, NULL, 0, &e);
    if (env != NULL)
        sluice__envelope__free_unpacked(env, NULL);
    uv_close((uv_handle_t *)&c->async, acall_free);
}

static void acall_unlink(sl_rpc_client *cli, acall *c)
{
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        cli->calls = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

/* The async callback of an async call: the nng side is done. */
static void acall_wake(uv_async_t *h)
{
    acall *c = h->data;
    sl_rpc_client *cli = c->cli;
    uv_mutex_lock(&cli->mu);
    acall_unlink(cli, c);
    uv_mutex_unlock(&cli->mu);
    acall_finish(c, false);
}

int sl_rpc_call_async(sl_rpc_client *cli, uv_loop_t *loop, uint32_t method, uint64_t epoch,
                      const void *req, size_t len, int timeout_ms, sl_rpc_done_fn cb, void *ud)
{
    if (cli == NULL || loop == NULL || cb == NULL || (req == NULL && len > 0))
        return SL_EINVAL;
    acall *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return SL_ENOMEM;
    c->cli = cli;
    c->cb = cb;
    c->ud = ud;
    c->timeout_ms = resolve_timeout(cli, timeout_ms);
    nng_msg *m = NULL;
    bool ctx_open = false;
    int rc, nrv;

    if ((rc = pack_request(cli, &m, method, epoch, req, len, &c->request_id, NULL)) != 0)
        goto fail;
    if ((nrv = nng_ctx_open(&c->ctx, cli->sock)) != 0) {
        rc = nrv == NNG_ECLOSED ? SL_ESTATE : sl__rpc_map_nng(nrv);
        goto fail;
    }
    ctx_open = true;
    if (nng_aio_alloc(&c->aio, acall_cb, c) != 0) {
        rc = SL_ENOMEM;
        goto fail;
    }
    /* close runs on this thread too, so closing cannot change before the call is linked. */
    uv_mutex_lock(&cli->mu);
    bool closing = cli->closing;
    uv_mutex_unlock(&cli->mu);
    if (closing) {
        rc = SL_ESTATE;
        goto fail;
    }
    if (uv_async_init(loop, &c->async, acall_wake) != 0) {
        rc = SL_EIO;
        goto fail;
    }
    c->async.data = c;
    uv_mutex_lock(&cli->mu);
    c->next = cli->calls;
    if (c->next != NULL)
        c->next->prev = c;
    cli->calls = c;
    uv_mutex_unlock(&cli->mu);

    c->deadline = sl__rpc_now_ms() + (uint64_t)c->timeout_ms;
    c->phase = PH_SEND;
    nng_aio_set_msg(c->aio, m);
    nng_aio_set_timeout(c->aio, sl__rpc_duration(c->timeout_ms));
    nng_ctx_send(c->ctx, c->aio);
    return 0;

fail:
    if (c->aio != NULL)
        nng_aio_free(c->aio);
    if (ctx_open)
        nng_ctx_close(c->ctx);
    if (m != NULL)
        nng_msg_free(m);
    free(c);
    return rc;
}

/* ---- lifecycle -------------------------------------------------------------------- */

int sl_rpc_client_open(sl_rpc_client **out, const char *url, const sl_rpc_limits *lim,
                       sl_error *err)
{
    if (out == NULL || url == NULL)
        return sl_error_set(err, SL_EINVAL, 0, 0, "rpc client: missing argument");
    *out = NULL;
    sl_rpc_client *cli = calloc(1, sizeof(*cli));
    if (cli == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "rpc client: out of memory");
    if (uv_mutex_init(&cli->mu) != 0) {
        free(cli);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "rpc client: cannot create a mutex");
    }
    if (uv_cond_init(&cli->armed) != 0) {
        uv_mutex_destroy(&cli->mu);
        free(cli);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "rpc client: cannot create a condition");
    }
    sl__rpc_limits_resolve(lim, &cli->lim);
    atomic_init(&cli->npipes, 0);
    atomic_init(&cli->pipe_id, 0u);
    atomic_init(&cli->heard_ms, 0);
    atomic_init(&cli->next_id, 1);
    bool sock_open = false;
    int rc, nrv;

    if ((cli->url = strdup(url)) == NULL) {
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "rpc client: out of memory");
        goto fail;
    }
    if ((nrv = nng_req0_open(&cli->sock)) != 0) {
        rc = sl_error_set(err, sl__rpc_map_nng(nrv), 0, 0, "rpc client: cannot open socket: %s",
                          nng_strerror(nrv));
        goto fail;
    }
    sock_open = true;
    if ((nrv = nng_socket_set_size(cli->sock, NNG_OPT_RECVMAXSZ, cli->lim.max_msg_bytes)) != 0 ||
        (nrv = nng_socket_set_ms(cli->sock, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE)) != 0 ||
        (nrv = nng_socket_set_ms(cli->sock, NNG_OPT_RECONNMINT, RECONNECT_MIN_MS)) != 0 ||
        (nrv = nng_socket_set_ms(cli->sock, NNG_OPT_RECONNMAXT, RECONNECT_MAX_MS)) != 0 ||
        (nrv = nng_pipe_notify(cli->sock, NNG_PIPE_EV_ADD_POST, on_pipe, cli)) != 0 ||
        (nrv = nng_pipe_notify(cli->sock, NNG_PIPE_EV_REM_POST, on_pipe, cli)) != 0) {
        rc = sl_error_set(err, SL_EIO, 0, 0, "rpc client: cannot set socket options: %s",
                          nng_strerror(nrv));
        goto fail;
    }
    if ((nrv = nng_dial(cli->sock, url, &cli->dialer, NNG_FLAG_NONBLOCK)) != 0) {
        rc = sl__rpc_map_nng(nrv);
        if (rc != SL_EINVAL && rc != SL_ENOMEM)
            rc = SL_EIO;
        rc = sl_error_set(err, rc, 0, 0, "rpc client: cannot dial %s: %s", url, nng_strerror(nrv));
        goto fail;
    }
    *out = cli;
    return 0;

fail:
    if (sock_open)
        nng_close(cli->sock);
    free(cli->url);
    uv_cond_destroy(&cli->armed);
    uv_mutex_destroy(&cli->mu);
    free(cli);
    return rc;
}

void sl_rpc_client_close(sl_rpc_client *cli)
{
    if (cli == NULL)
        return;
    uv_mutex_lock(&cli->mu);
    cli->closing = true;
    acall *calls = cli->calls;
    cli->calls = NULL;
    while (cli->arming > 0)
        uv_cond_wait(&cli->armed, &cli->mu);
    uv_mutex_unlock(&cli->mu);

    /* Stop every nng side first (each stop waits for a running callback), then deliver. */
    for (acall *c = calls; c != NULL; c = c->next)
        nng_aio_stop(c->aio);
    while (calls != NULL) {
        acall *c = calls;
        calls = c->next;
        c->prev = c->next = NULL;
        acall_finish(c, true);
    }
    for (int i = 0; i < CLOSE_SETTLE_MS && atomic_load(&cli->npipes) <= 0; i++)
        uv_sleep(1);
    nng_close(cli->sock);
    free(cli->url);
    uv_cond_destroy(&cli->armed);
    uv_mutex_destroy(&cli->mu);
    free(cli);
}
