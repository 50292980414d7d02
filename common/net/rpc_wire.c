/*
 * rpc_wire.c - the pieces of the RPC layer that both ends use: packing an Envelope
 * straight into an nng message (one allocation, bounded by the size limit before any
 * byte is written), resolving limits, and translating nng errors into sl_err codes.
 */
#include "rpc_int.h"

#include <limits.h>
#include <string.h>

void sl_rpc_limits_default(sl_rpc_limits *out)
{
    out->max_msg_bytes = SL_RPC_DEFAULT_MAX_MSG;
    out->max_inflight = SL_RPC_DEFAULT_MAX_INFLIGHT;
    out->request_timeout_ms = SL_RPC_DEFAULT_REQUEST_TIMEOUT_MS;
    out->max_connections = SL_RPC_DEFAULT_MAX_CONNECTIONS;
}

void sl__rpc_limits_resolve(const sl_rpc_limits *in, sl_rpc_limits *out)
{
    sl_rpc_limits_default(out);
    if (in == NULL)
        return;
    if (in->max_msg_bytes > 0)
        out->max_msg_bytes = in->max_msg_bytes;
    if (in->max_inflight > 0)
        out->max_inflight =
            in->max_inflight > SL_RPC_MAX_INFLIGHT ? SL_RPC_MAX_INFLIGHT : in->max_inflight;
    if (in->request_timeout_ms > 0)
        out->request_timeout_ms = in->request_timeout_ms;
    if (in->max_connections > 0)
        out->max_connections = in->max_connections > SL_RPC_MAX_CONNECTIONS ? SL_RPC_MAX_CONNECTIONS
                                                                            : in->max_connections;
}

int sl__rpc_pack(nng_msg **out, uint32_t method, uint64_t request_id, uint64_t epoch,
                 const void *payload, size_t len, const sl_error *e, size_t max)
{
    *out = NULL;
    /* Refuse before computing an encoding whose size could not be represented. */
    if (e == NULL && len > max)
        return SL_ELIMIT;

    Sluice__Envelope env = SLUICE__ENVELOPE__INIT;
    Sluice__Error perr = SLUICE__ERROR__INIT;
    env.version = SL_RPC_PROTOCOL_VERSION;
    env.method = method;
    env.request_id = request_id;
    env.epoch = epoch;
    if (e != NULL) {
        perr.code = e->code;
        /* protobuf-c's fields are not const; packing only reads them. */
        perr.message = (char *)e->msg;
        perr.line = e->line > 0 ? (uint32_t)e->line : 0;
        perr.col = e->col > 0 ? (uint32_t)e->col : 0;
        env.error = &perr;
    } else if (len > 0) {
        env.payload.data = (uint8_t *)payload;
        env.payload.len = len;
    }

    size_t need = sluice__envelope__get_packed_size(&env);
    if (need > max)
        return SL_ELIMIT;
    nng_msg *m;
    if (nng_msg_alloc(&m, need) != 0)
        return SL_ENOMEM;
    size_t wrote = sluice__envelope__pack(&env, nng_msg_body(m));
    (void)wrote;
    *out = m;
    return 0;
}

int sl__rpc_decode_request(const uint8_t *p, size_t len, size_t max, Sluice__Envelope **out,
                           sl_error *err)
{
    *out = NULL;
    if (len > max)
        return sl_error_set(err, SL_ELIMIT, 0, 0,
                            "request of %zu bytes exceeds the limit of %zu bytes", len, max);
    Sluice__Envelope *env = sluice__envelope__unpack(NULL, len, p);
    if (env == NULL)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed request envelope (%zu bytes)", len);
    *out = env;
    if (env->version == 0)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "request envelope carries no protocol version");
    if (env->version > SL_RPC_PROTOCOL_VERSION)
        return sl_error_set(err, SL_EUNSUPPORTED, 0, 0,
                            "protocol version %u is not supported (this node speaks %u)",
                            env->version, SL_RPC_PROTOCOL_VERSION);
    return 0;
}

int sl__rpc_decode_reply(const uint8_t *p, size_t len, uint64_t request_id, const char *peer,
                         Sluice__Envelope **out, sl_error *err)
{
    *out = NULL;
    Sluice__Envelope *env = sluice__envelope__unpack(NULL, len, p);
    if (env == NULL)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed reply envelope from %s (%zu bytes)",
                            peer, len);
    int rc = 0;
    if (env->version == 0) {
        rc =
            sl_error_set(err, SL_ECORRUPT, 0, 0, "reply from %s carries no protocol version", peer);
    } else if (env->version > SL_RPC_PROTOCOL_VERSION) {
        rc = sl_error_set(err, SL_EUNSUPPORTED, 0, 0,
                          "reply from %s speaks protocol version %u (this node speaks %u)", peer,
                          env->version, SL_RPC_PROTOCOL_VERSION);
    } else if (env->request_id != request_id && !(env->request_id == 0 && env->error != NULL)) {
        /* Request id 0 marks an error about a request the server could not decode. */
        rc =
            sl_error_set(err, SL_ECORRUPT, 0, 0, "reply from %s answers request %llu, not %llu",
                         peer, (unsigned long long)env->request_id, (unsigned long long)request_id);
    } else if (env->error != NULL) {
        const Sluice__Error *e = env->error;
        if (e->code >= 0) {
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "error reply from %s without an error code",
                              peer);
        } else {
            rc = e->code;
            int line = e->line > INT_MAX ? INT_MAX : (int)e->line;
            int col = e->col > INT_MAX ? INT_MAX : (int)e->col;
            sl_error_set(err, rc, line, col, "%s",
                         e->message != NULL && e->message[0] != '\0' ? e->message
                                                                     : sl_strerror(rc));
        }
    }
    if (rc != 0) {
        sluice__envelope__free_unpacked(env, NULL);
        return rc;
    }
    *out = env;
    return 0;
}

int sl__rpc_map_nng(int nrv)
{
    switch (nrv) {
    case 0: return 0;
    case NNG_ETIMEDOUT: return SL_ETIMEOUT;
    case NNG_ENOMEM: return SL_ENOMEM;
    case NNG_EMSGSIZE: return SL_ELIMIT;
    case NNG_EINVAL:
    case NNG_EADDRINVAL:
    case NNG_ENOTSUP: return SL_EINVAL;
    case NNG_EADDRINUSE: return SL_EEXIST;
    case NNG_ECLOSED:
    case NNG_ECANCELED:
    case NNG_ECONNREFUSED:
    case NNG_ECONNRESET:
    case NNG_ECONNABORTED:
    case NNG_ECONNSHUT:
    case NNG_EUNREACHABLE:
    case NNG_EPEERAUTH: return SL_EUNAVAILABLE;
    default: return SL_EIO;
    }
}

uint64_t sl__rpc_now_ms(void)
{
    return uv_hrtime() / 1000000u;
}

nng_duration sl__rpc_duration(int64_t ms)
{
    if (ms < 1)
        return 1;
    if (ms > INT32_MAX)
        return INT32_MAX;
    return (nng_duration)ms;
}
