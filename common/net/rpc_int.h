/*
 * rpc_int.h - what the RPC server and client share: envelope encoding into nng messages,
 * limit defaults, nng error mapping and a monotonic clock. Internal to common/net.
 */
#ifndef SL_RPC_INT_H
#define SL_RPC_INT_H

#include <stdint.h>

#include <nng/nng.h>

#include "common.pb-c.h"
#include "rpc.h"

/* Copies *in (or the defaults when in is NULL) to *out, replacing fields <= 0 by their
 * defaults and clamping max_inflight and max_connections to their upper bounds. */
void sl__rpc_limits_resolve(const sl_rpc_limits *in, sl_rpc_limits *out);

/*
 * Encodes an Envelope {version, method, request_id, epoch, error or payload} into a new
 * nng message of at most max bytes. e (borrowed) is sent as the error when non-NULL,
 * otherwise payload (len bytes, borrowed, may be NULL when len is 0).
 * Returns 0 and *out (caller owns it), SL_ELIMIT when the encoding exceeds max, SL_ENOMEM.
 */
int sl__rpc_pack(nng_msg **out, uint32_t method, uint64_t request_id, uint64_t epoch,
                 const void *payload, size_t len, const sl_error *e, size_t max);

/*
 * Decodes a received request frame (len bytes at p, borrowed) into *out, as the server does
 * before dispatching: a frame over max bytes is SL_ELIMIT and bytes that are no Envelope are
 * SL_ECORRUPT (*out NULL, err set). An Envelope without a protocol version (SL_ECORRUPT) or
 * with a newer one (SL_EUNSUPPORTED) is returned in *out all the same, so that the error
 * reply can echo its method and request id. Whenever *out is non-NULL the caller frees it
 * with sluice__envelope__free_unpacked. Any thread.
 */
int sl__rpc_decode_request(const uint8_t *p, size_t len, size_t max, Sluice__Envelope **out,
                           sl_error *err);

/*
 * Decodes a reply frame (len bytes at p, borrowed) to the call request_id sent to peer
 * (borrowed, used in messages). Returns 0 and *out (caller frees it with
 * sluice__envelope__free_unpacked); otherwise *out is NULL and the result is the remote
 * error code, SL_ECORRUPT (malformed, no version, another request's reply, an error reply
 * without a negative code) or SL_EUNSUPPORTED (newer protocol), with err set. Any thread.
 */
int sl__rpc_decode_reply(const uint8_t *p, size_t len, uint64_t request_id, const char *peer,
                         Sluice__Envelope **out, sl_error *err);

/* Maps an nng error code to an sl_err code (timeouts, lost peers, memory, sizes). */
int sl__rpc_map_nng(int nrv);

/* Milliseconds from a monotonic clock; any thread. */
uint64_t sl__rpc_now_ms(void);

/* Clamps a millisecond count to what nng_aio_set_timeout takes (at least 1 ms). */
nng_duration sl__rpc_duration(int64_t ms);

#endif
