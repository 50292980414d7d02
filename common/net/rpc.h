/*
 * rpc.h - node-to-node request/response RPC: protobuf envelopes over nng, served on libuv.
 *
 * Every Sluice service (mnode catalog, vnode reader and writer, snode control) is a table
 * of numbered methods behind one listening address. A request travels in a
 * sluice.Envelope (proto/common.proto) carrying the method number, a request id, the
 * caller's placement epoch and the service body as opaque payload bytes; the reply is an
 * Envelope with the same request id and either a payload or an Error {code, message,
 * line, col} whose code is a negative sl_err.
 *
 * Threading. nng runs its own I/O threads. A server belongs to one libuv loop: nng
 * threads only move received messages into a mutex-protected queue and wake the loop with
 * a uv_async_t; decoding, method lookup and every handler call happen on the loop thread,
 * so services keep their state single-threaded. A handler answers through a reply handle,
 * at once or later (long polls keep the handle until data arrives or a timer fires); the
 * reply is passed back to nng, which is thread-safe. A client is usable from any number
 * of threads at once: each call runs on its own nng context. sl_rpc_call blocks its
 * thread; sl_rpc_call_async delivers the result on a libuv loop instead.
 *
 * Hardening. Every size is bounded by sl_rpc_limits: frames above max_msg_bytes are
 * refused by nng before they are buffered (the connection is dropped); requests that do
 * not decode, carry no protocol version, a newer version or an unknown method get an
 * error reply; a server handles at most max_inflight requests at once, and further
 * requests wait in the peer's socket (back-pressure), not in our memory; a request left
 * unanswered for request_timeout_ms is answered SL_ETIMEOUT by the server itself; at most
 * max_connections peers are served at once.
 *
 * This module is the only one in the tree that includes nng headers. It works around two
 * defects of nng 1.5.2 (Debian 12): no operation is started on a socket being closed, and
 * a client closed while its first connection is still being set up waits up to 20 ms for
 * it. A server or client closed at the very moment a peer is in the middle of the SP
 * handshake may still leak that endpoint's memory inside nng (a shutdown-only leak).
 */
#ifndef SL_RPC_H
#define SL_RPC_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "../util/buf.h"
#include "../util/error.h"

/* Protocol version spoken by this build (sluice.ProtocolVersion). */
#define SL_RPC_PROTOCOL_VERSION 1u

/* Defaults applied to sl_rpc_limits fields left at 0. */
#define SL_RPC_DEFAULT_MAX_MSG            (64u * 1024u * 1024u)
#define SL_RPC_DEFAULT_MAX_INFLIGHT       16
#define SL_RPC_DEFAULT_REQUEST_TIMEOUT_MS 60000
#define SL_RPC_DEFAULT_MAX_CONNECTIONS    1024

/* Upper bounds of sl_rpc_limits.max_inflight (nng contexts of one server) and
 * max_connections; larger values are clamped. */
#define SL_RPC_MAX_INFLIGHT    4096
#define SL_RPC_MAX_CONNECTIONS 65536

/*
 * Size and time bounds of a server or client. Plain data: callers fill it on the stack.
 * A field <= 0 takes its default; passing a NULL limits pointer takes every default.
 */
typedef struct sl_rpc_limits {
    /* Largest encoded Envelope received or sent, in bytes. Larger incoming frames make
     * nng drop the connection; larger outgoing messages fail with SL_ELIMIT. */
    size_t max_msg_bytes;
    /* Server: requests handled at once (one nng context each). A request that arrives
     * while all are busy waits on its connection until one frees. Client: unused. */
    int max_inflight;
    /* Server: a request whose reply is still pending after this many ms is answered
     * SL_ETIMEOUT by the server (the handle's cancel callback runs first); the same bound
     * applies to sending a reply to a peer that does not read. Client: the timeout of
     * calls that pass timeout_ms <= 0. */
    int request_timeout_ms;
    /* Server: connections served at once; further peers are disconnected as soon as they
     * connect. Each connection buffers at most one request, so memory held for requests
     * stays below max_connections * max_msg_bytes. Client: unused. */
    int max_connections;
} sl_rpc_limits;

/* Fills *out with the defaults. */
void sl_rpc_limits_default(sl_rpc_limits *out);

/* ------------------------------------------------------------------------------------ */
/* Server                                                                                */
/* ------------------------------------------------------------------------------------ */

typedef struct sl_rpc_server sl_rpc_server;

/* The handle through which one request is answered. Owned by the server. */
typedef struct sl_rpc_reply sl_rpc_reply;

/* One decoded request, as a handler sees it. */
typedef struct sl_rpc_request {
    uint32_t method;        /* method number from the envelope */
    uint64_t request_id;    /* caller's request id (echoed in the reply automatically) */
    uint64_t epoch;         /* caller's placement epoch, 0 when the request is not fenced */
    const uint8_t *payload; /* service body; borrowed, valid only until the handler returns */
    size_t len;             /* bytes at payload */
} sl_rpc_request;

/*
 * A method handler. Runs on the server's loop thread. It must eventually answer through
 * reply exactly once, with sl_rpc_reply_ok or sl_rpc_reply_error, either before it
 * returns or later from the loop thread. A handler that keeps the handle must copy what
 * it needs from req (the payload is released when the handler returns) and should
 * register a cancel callback (sl_rpc_reply_on_cancel) so it learns when the server gives
 * up on the request. ud is the pointer given to sl_rpc_server_open.
 */
typedef void (*sl_rpc_handler_fn)(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud);

/* One entry of a service's method table; tables are const arrays with designated
 * initializers. */
typedef struct sl_rpc_method {
    uint32_t number;           /* wire method number; nonzero and unique in the table */
    const char *name;          /* for error messages; borrowed, must outlive the server */
    sl_rpc_handler_fn handler; /* never NULL */
} sl_rpc_method;

/*
 * Opens a rep0 server on listen_url ("tcp://127.0.0.1:6100"; "tcp://127.0.0.1:0" picks a
 * free port, see sl_rpc_server_port) and starts max_inflight nng contexts receiving.
 * Must be called on the thread that runs loop (or before loop runs). methods (nmethods
 * entries, copied) lists the service; ud is passed to every handler; lim may be NULL.
 * The server keeps loop alive (like a listening uv handle) until it is closed.
 *
 * The server answers by itself, without calling a handler: SL_ECORRUPT for a request
 * that is not an Envelope or carries no protocol version, SL_EUNSUPPORTED for a newer
 * protocol version or an unknown method ("unknown method 99"), SL_ETIMEOUT for a request
 * still pending after request_timeout_ms, SL_EUNAVAILABLE at close. Error replies about a
 * request it could not decode carry request id 0.
 *
 * Returns 0 and *out, or: SL_EINVAL for a bad argument (NULL pointers, a method number 0
 * or repeated, a NULL handler, an unparsable URL or a scheme nng does not know), SL_EEXIST
 * when the address is already in use (callers probing ports retry on this code), SL_ENOMEM,
 * SL_EIO for other listen failures; err (may be NULL) then says which.
 */
int sl_rpc_server_open(sl_rpc_server **out, uv_loop_t *loop, const char *listen_url,
                       const sl_rpc_method *methods, int nmethods, void *ud,
                       const sl_rpc_limits *lim, sl_error *err);

/*
 * Writes "NAME=count NAME=count ..." - the requests each method's handler received since
 * the server opened, methods without any left out - into buf (n bytes, NUL-terminated).
 * Returns its length, or -1 when it did not fit (buf then holds a prefix). Loop thread.
 */
int sl_rpc_server_served(const sl_rpc_server *srv, char *buf, size_t n);
/* Logs sl_rpc_server_served at INFO as `who` ("requests served: ..."), when any. */
void sl_rpc_server_log_served(const sl_rpc_server *srv, const char *who);

/*
 * Closes the server (NULL-safe). Must be called on the loop thread; it may be called from
 * inside a handler, not from a cancel callback. It stops accepting connections and requests, runs
 * the cancel callback of every pending reply handle and answers those requests SL_EUNAVAILABLE
 * ("server is shutting down", best effort: waits at most ~200 ms for these replies to be handed to
 * the transport), then closes every connection. No handler or cancel callback runs after
 * close returns and every reply handle is invalid. As with uv_close, the loop must run
 * once more (uv_run) for the server's memory to be released.
 */
void sl_rpc_server_close(sl_rpc_server *srv);

/* Returns the TCP port the server listens on (useful after binding port 0), or 0 when the
 * transport is not TCP. Any thread. */
int sl_rpc_server_port(const sl_rpc_server *srv);

/*
 * Answers a request with payload (len bytes, borrowed: copied before return; may be NULL
 * when len is 0). Loop thread only. The handle is consumed whatever the result.
 * Returns 0 when the reply was handed to nng (delivery is not confirmed: the peer may have
 * gone away), SL_ELIMIT when the encoded reply exceeds max_msg_bytes (the caller then gets
 * an SL_ELIMIT error reply instead), SL_ENOMEM when no reply could be built (the caller
 * times out), or SL_ESTATE when the handle is not pending (already answered or cancelled;
 * nothing is sent).
 */
int sl_rpc_reply_ok(sl_rpc_reply *reply, const void *payload, size_t len);

/*
 * Answers a request with an error reply carrying err's code, message, line and col
 * (borrowed). A NULL err or a non-negative code sends SL_EINVAL. Loop thread only; the
 * handle is consumed. Returns 0, SL_ENOMEM or SL_ESTATE as sl_rpc_reply_ok.
 */
int sl_rpc_reply_error(sl_rpc_reply *reply, const sl_error *err);

/* Replies with error code (negative sl_err) and a printf-formatted message; returns as
 * sl_rpc_reply_error. */
int sl_rpc_reply_fail(sl_rpc_reply *reply, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Replies with the packed bytes of the protobuf-c message m (borrowed). Packing memory
 * that cannot be had becomes an SL_ENOMEM error reply. Returns as sl_rpc_reply_ok.
 */
struct ProtobufCMessage;
int sl_rpc_reply_msg(sl_rpc_reply *reply, const struct ProtobufCMessage *m);

/* Called on the loop thread when the server gives up on a pending reply (server close or
 * request_timeout_ms). When it returns the handle is invalid: forget it, do not reply. */
typedef void (*sl_rpc_cancel_fn)(sl_rpc_reply *reply, void *arg);

/*
 * Registers cb (replacing any earlier one) to run if the server gives up on reply before
 * it is answered. Loop thread only; for handlers that keep the handle (long polls).
 */
void sl_rpc_reply_on_cancel(sl_rpc_reply *reply, sl_rpc_cancel_fn cb, void *arg);

/* ------------------------------------------------------------------------------------ */
/* Client                                                                                */
/* ------------------------------------------------------------------------------------ */

typedef struct sl_rpc_client sl_rpc_client;

/*
 * Opens a req0 client for url ("tcp://127.0.0.1:6100"). Dialing is non-blocking and
 * retried in the background (100 ms, backing off to 2 s) for as long as the client lives,
 * so a server that starts later, or restarts, is picked up; requests are never re-sent
 * (a request whose connection is lost fails). lim may be NULL. Any thread.
 * Returns 0 and *out, or SL_EINVAL (bad argument or URL), SL_ENOMEM, SL_EIO.
 */
int sl_rpc_client_open(sl_rpc_client **out, const char *url, const sl_rpc_limits *lim,
                       sl_error *err);

/*
 * Closes the client (NULL-safe). No call may be in progress on another thread or start
 * later. Pending async calls are stopped and their callbacks run before close returns,
 * with the reply when one had already arrived and SL_EUNAVAILABLE ("client closed")
 * otherwise; if async calls may be pending, close must run on the thread of their loop,
 * and as with uv_close that loop must run once more to release their memory.
 */
void sl_rpc_client_close(sl_rpc_client *cli);

/*
 * Calls method on the server with req (len bytes, borrowed) and epoch (0 = not fenced),
 * blocking the calling thread for at most timeout_ms (<= 0: the client's
 * request_timeout_ms). Thread-safe: any number of threads may call concurrently on one
 * client. On success returns 0 and the reply payload replaces reply's contents (reply may
 * be NULL to discard it). On failure returns:
 *  - the server's negative code, with its message, line and col in err, for an error
 *    reply (SL_EUNSUPPORTED for an unknown method, SL_ECORRUPT for a request the server
 *    could not decode, SL_ETIMEOUT when the server gave up on the request, ...);
 *  - SL_ETIMEOUT when no reply arrived in time;
 *  - SL_EUNAVAILABLE when no connection could be made within the timeout or the
 *    connection was lost with the request outstanding;
 *  - SL_ELIMIT when the request exceeds max_msg_bytes, SL_ECORRUPT for a reply that does
 *    not decode, SL_EINVAL, SL_ENOMEM, SL_EIO.
 */
int sl_rpc_call(sl_rpc_client *cli, uint32_t method, uint64_t epoch, const void *req, size_t len,
                sl_buf *reply, int timeout_ms, sl_error *err);

/*
 * Completion of an async call, run on the loop given to sl_rpc_call_async. rc and err are
 * as sl_rpc_call returns them (err is NULL when rc is 0); reply/len is the reply payload,
 * borrowed until the callback returns (NULL/0 on failure).
 */
typedef void (*sl_rpc_done_fn)(void *ud, int rc, const void *reply, size_t len,
                               const sl_error *err);

/*
 * Starts a call like sl_rpc_call without blocking; cb(ud, ...) runs exactly once on
 * loop's thread, never from inside this function. Must be called on loop's thread. req is
 * copied before return. Returns 0 when the call was started, or SL_EINVAL, SL_ELIMIT,
 * SL_ENOMEM, SL_ESTATE (client closing), SL_EIO — cb is then never called.
 */
int sl_rpc_call_async(sl_rpc_client *cli, uv_loop_t *loop, uint32_t method, uint64_t epoch,
                      const void *req, size_t len, int timeout_ms, sl_rpc_done_fn cb, void *ud);

/*
 * Sends frame (len bytes, borrowed) as-is, without wrapping it in an Envelope, and returns
 * the raw reply frame in reply (replacing its contents). For tests, fuzzers and protocol
 * diagnostics: it lets a caller send malformed requests. Returns 0, SL_ETIMEOUT,
 * SL_EUNAVAILABLE, SL_ELIMIT (frame larger than this client's max_msg_bytes), SL_ENOMEM,
 * SL_EIO. Thread-safe.
 */
int sl_rpc_call_frame(sl_rpc_client *cli, const void *frame, size_t len, sl_buf *reply,
                      int timeout_ms, sl_error *err);

#endif
