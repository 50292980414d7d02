/*
 * notifier.h - delivery of stream notifications to WebSocket receivers (DESIGN.md section
 * 3 "Notify path"; spec/stream-syntax.txt "Notification Mechanism").
 *
 * The notifier takes already-decided notification events (the runner applied ON (...),
 * WHERE and NOTIFY_HISTORY), serializes each once (notify_json.h), appends it to the
 * durable outbox of every destination URL (outbox.h) and then delivers the outbox over one
 * persistent libwebsockets client connection per URL, on the caller's libuv loop:
 *
 *  - Connections are made lazily, when a destination has something to send (also for the
 *    data found in the outbox at open, after a restart).
 *  - Messages are written in outbox order, one WebSocket text frame each, at most
 *    max_inflight written but not yet confirmed. A message is removed from the outbox only
 *    once it is confirmed: lws holds none of it and the kernel reports (SIOCOUTQ) that the
 *    receiver's TCP stack has acknowledged every byte up to its end. When the connection
 *    drops first, every unconfirmed message is written again on the next connection, byte
 *    for byte the same (same messageId, timestamp and triggerIds).
 *  - Delivery is therefore at least once: a receiver may see a message twice (a drop after
 *    its TCP acknowledgement reached the kernel but before the confirmation was seen, or a
 *    restart of the snode) and de-duplicates by messageId, or by triggerId and eventType
 *    per event. A receiver process that dies after its kernel acknowledged data loses that
 *    data: WebSocket has no application acknowledgement in the spec's protocol.
 *  - A receiver that is down is retried with exponential backoff from backoff_min_ms,
 *    doubling up to backoff_max_ms; success resets it. A connection idle for ping_secs is
 *    pinged and closed (then reconnected) when nothing valid arrives for hangup_secs.
 *  - A slow receiver slows the writes (lws only asks for more when the socket drains);
 *    nothing is dropped for it except by the outbox bound.
 *
 * Thread rules: every call, and every callback, runs on the loop's thread.
 */
#ifndef SL_NOTIFIER_H
#define SL_NOTIFIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "common/kv/kv.h"
#include "common/util/error.h"
#include "snode/notify/notify_event.h"
#include "snode/notify/outbox.h"

typedef struct sl_notifier sl_notifier;

typedef struct sl_notifier_opts {
    uv_loop_t *loop;           /* borrowed; must outlive the notifier (see close) */
    sl_kv *kv;                 /* outbox store, borrowed */
    sl_kv_cf *cf;              /* the outbox column family of kv, borrowed */
    sl_outbox_opts outbox;     /* bounds and message sizes (outbox.h) */
    uint32_t backoff_min_ms;   /* first reconnect delay; 0: 200 */
    uint32_t backoff_max_ms;   /* cap of the doubling; 0: 30000 */
    uint16_t ping_secs;        /* idle seconds before a ping; 0: 30 */
    uint16_t hangup_secs;      /* seconds without valid traffic before hanging up; 0: 90 */
    uint32_t max_inflight;     /* written, unconfirmed messages per connection; 0: 32 */
    uint32_t confirm_poll_ms;  /* how often unconfirmed writes are re-checked; 0: 5 */
    /* Wall clock in ms for the messages' "timestamp" (NULL: CLOCK_REALTIME). */
    int64_t (*wall_ms)(void *ud);
    void *clock_ud;
} sl_notifier_opts;

/*
 * Opens the notifier: opens the outbox in o->kv / o->cf, creates the libwebsockets client
 * context on o->loop (LWS_SERVER_OPTION_LIBUV with the loop as its foreign loop) and
 * starts delivering whatever the outbox still holds. o is borrowed for the call. Returns
 * 0 and *out, SL_EINVAL (no loop or store), SL_EIO (libwebsockets refused the context),
 * an outbox error (SL_ECORRUPT...) or SL_ENOMEM, with a message.
 */
int sl_notifier_open(sl_notifier **out, const sl_notifier_opts *o, sl_error *err);

/*
 * Starts closing (NULL-safe): stops sending, closes the connections and the lws context.
 * Messages not confirmed stay in the outbox for the next open. The memory is released
 * from close callbacks of the loop, so the caller must keep running the loop afterwards
 * until it has no more of the notifier's handles (as for any uv handle).
 */
void sl_notifier_close(sl_notifier *n);

/*
 * Checks a notification URL (notify_url.h) without sending anything: 0, or SL_EINVAL /
 * SL_EUNSUPPORTED with a message. For CREATE STREAM.
 */
int sl_notifier_check_url(const char *url, sl_error *err);

/*
 * Posts nev events (borrowed for the call) to each of nurls destinations (borrowed): every
 * event is serialized once and appended to the outbox of every destination in one atomic
 * write, in the given order, and delivery is started. Returns 0, SL_EINVAL (a bad URL or
 * event), SL_ELIMIT (an outbox is full with refuse_when_full, or an event is too big), a kv
 * error or SL_ENOMEM; on error nothing was appended.
 */
int sl_notifier_post(sl_notifier *n, const char *const *urls, size_t nurls,
                     const sl_notify_event *const *evs, size_t nev, sl_error *err);

typedef struct sl_notifier_dest_stats {
    sl_outbox_stats outbox;  /* what the outbox holds for the destination */
    bool connected;          /* a WebSocket connection is open */
    uint64_t connects;       /* connections established */
    uint64_t failures;       /* connection attempts failed or connections lost */
    uint64_t written;        /* messages written (re-sends included) */
    uint64_t rewritten;      /* messages written again after a drop (this process) */
    uint64_t confirmed;      /* messages confirmed and removed from the outbox */
    uint32_t inflight;       /* written, not yet confirmed */
    uint32_t inflight_max;   /* the most ever unconfirmed at once */
    uint32_t backoff_ms;     /* delay of the pending reconnect, 0 when none */
    char last_error[128];    /* last connection error ("" when none) */
} sl_notifier_dest_stats;

/* Fills *st for destination url (outbox figures only when it has no connection yet). */
void sl_notifier_get_dest_stats(const sl_notifier *n, const char *url, sl_notifier_dest_stats *st);

/* The notifier's outbox (owned by it), for sizes in ins_stream_tasks. */
const sl_outbox *sl_notifier_outbox(const sl_notifier *n);

#endif
