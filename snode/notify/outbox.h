/*
 * outbox.h - the durable notification outbox (DESIGN.md section 3 "Notify path").
 *
 * Serialized events are appended here before anything is sent, so a receiver that is down
 * or slow, or a restart of the snode, loses nothing. The outbox lives in one RocksDB
 * column family through common/kv and is organised per destination (a notification URL):
 *
 *   'I'                      -> outbox incarnation (random u64, made on first open)
 *   'D' dest(u64 BE)         -> destination record: next sequence number, URL
 *   'E' dest seq(u64 BE)     -> one pending event: stream name, event JSON
 *   'M' dest first_seq       -> one formed message: last seq, event count, timestamp,
 *                               messageId and the complete message text
 *
 * dest is the 64-bit xxHash of the URL. Every record value starts with a magic byte, a
 * format version and a 32-bit checksum; a record that fails them makes sl_outbox_open
 * (and the read that meets it) fail with SL_ECORRUPT rather than send garbage.
 *
 * Sequence numbers are per destination, increase by one per event and never repeat (the
 * next one is stored in the destination record in the same write batch as the event).
 * Pending events are cut into messages when the sender asks for the next message
 * (sl_outbox_next): the oldest pending events, up to max_message_events and
 * max_message_bytes, become one message whose messageId is
 * "<incarnation>-<dest>-<first seq>" (hex, hex, decimal) and whose text is stored, in one
 * atomic write that also deletes the events. A message is therefore formed once and sent
 * byte for byte the same however often it is re-sent, across restarts, until
 * sl_outbox_ack removes it. Order per destination: messages by first seq, events inside by
 * seq (grouped by stream in the message, see notify_json.h).
 *
 * Bounds, per destination: max_events events (pending or in messages) and max_bytes bytes
 * of stored record values. When an append would pass either bound, the default policy
 * drops the oldest units (a whole formed message, or one pending event) in the same write
 * batch and counts the dropped events (sl_outbox_stats.dropped); with refuse_when_full
 * the append fails with SL_ELIMIT instead and nothing is written. An event whose record
 * alone exceeds max_bytes or whose text cannot fit in a message of max_message_bytes is
 * always refused with SL_ELIMIT.
 *
 * Thread rules: one thread at a time (the snode's loop thread). Calls block on RocksDB.
 */
#ifndef SL_OUTBOX_H
#define SL_OUTBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/kv/kv.h"
#include "common/util/buf.h"
#include "common/util/error.h"

typedef struct sl_outbox sl_outbox;

typedef struct sl_outbox_opts {
    uint64_t max_events;        /* per destination; 0: 100000 */
    uint64_t max_bytes;         /* per destination, record bytes; 0: 64 MiB */
    bool refuse_when_full;      /* true: SL_ELIMIT when full; false: drop the oldest */
    size_t max_message_bytes;   /* largest message text; 0: 1 MiB (at least 4 KiB) */
    uint32_t max_message_events; /* events per message; 0: 1000 */
    sl_kv_sync sync;            /* durability of appends (default: the database's) */
} sl_outbox_opts;

/* One event to append: to destination url, of stream, with its event JSON (borrowed). */
typedef struct sl_outbox_entry {
    const char *url;      /* destination, NUL terminated */
    const char *stream;   /* streamName, NUL terminated */
    const char *json;     /* event object text */
    size_t json_len;
} sl_outbox_entry;

/* A message read by sl_outbox_next. */
typedef struct sl_outbox_msg {
    uint64_t first_seq;   /* identifies the message for sl_outbox_ack */
    uint64_t last_seq;
    uint32_t nevents;
    int64_t timestamp_ms; /* root "timestamp" */
    char message_id[64];  /* root "messageId" */
    sl_buf text;          /* the whole message; owned by the caller (sl_buf_fini) */
} sl_outbox_msg;

typedef struct sl_outbox_stats {
    uint64_t events;      /* events stored (pending + inside formed messages) */
    uint64_t bytes;       /* bytes of stored record values */
    uint64_t messages;    /* formed messages not yet acknowledged */
    uint64_t pending;     /* events not yet in a message */
    uint64_t dropped;     /* events dropped by the bound since open */
    uint64_t appended;    /* events appended since open */
    uint64_t acked;       /* messages acknowledged since open */
} sl_outbox_stats;

/*
 * Opens the outbox stored in column family cf of kv (both borrowed; they must outlive the
 * outbox) with options o (borrowed; NULL: defaults), reading every stored destination,
 * event and message to rebuild the in-memory index. Returns 0 and *out, SL_ECORRUPT
 * (a damaged record: the message names it), a kv error, or SL_ENOMEM.
 */
int sl_outbox_open(sl_outbox **out, sl_kv *kv, sl_kv_cf *cf, const sl_outbox_opts *o,
                   sl_error *err);

/* Frees the in-memory index (NULL-safe). Stored data stays. */
void sl_outbox_close(sl_outbox *ob);

/*
 * Appends n entries atomically (one write batch: all or none), each at the end of its
 * destination. Returns 0, SL_EINVAL (empty url or stream), SL_ELIMIT (see the bounds
 * above), a kv error or SL_ENOMEM; on error nothing changed.
 */
int sl_outbox_append(sl_outbox *ob, const sl_outbox_entry *e, size_t n, sl_error *err);

/*
 * Reads into *msg the first message of destination url with first_seq > after (0: the
 * oldest). When no formed message follows `after` but events are pending, forms the next
 * message from them with timestamp now_ms, stores it and returns it. msg->text is
 * replaced (its allocation reused; sl_buf_fini it when done). Returns 0, SL_ENOTFOUND
 * when there is nothing to send after `after`, SL_ECORRUPT, a kv error or SL_ENOMEM.
 */
int sl_outbox_next(sl_outbox *ob, const char *url, uint64_t after, int64_t now_ms,
                   sl_outbox_msg *msg, sl_error *err);

/*
 * Removes the message of url whose first sequence number is first_seq, after it was sent.
 * Returns 0, SL_ENOTFOUND (no such message: already acknowledged or dropped by the bound),
 * or a kv error.
 */
int sl_outbox_ack(sl_outbox *ob, const char *url, uint64_t first_seq, sl_error *err);

/* Fills *st for destination url (all zero for an unknown one). */
void sl_outbox_dest_stats(const sl_outbox *ob, const char *url, sl_outbox_stats *st);

/* Fills *st with the sums over every destination. */
void sl_outbox_stats_total(const sl_outbox *ob, sl_outbox_stats *st);

/* Number of known destinations and the URL of the i-th (owned by the outbox; valid until
 * it closes). Destinations with stored data after a restart are among them. */
size_t sl_outbox_ndest(const sl_outbox *ob);
const char *sl_outbox_dest_url(const sl_outbox *ob, size_t i);

/* True when url has anything to send (pending events or formed messages). */
bool sl_outbox_has_data(const sl_outbox *ob, const char *url);

#endif
