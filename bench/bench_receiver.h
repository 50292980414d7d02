/*
 * bench_receiver.h - the benchmark's stream-notification receiver: a libwebsockets server on
 * 127.0.0.1 running its own service loop on its own thread, that timestamps every message
 * (monotonic clock, bench_now) as it completes and keeps, per notified event, the stream
 * name, event type, window start and triggerId.
 *
 * The JSON (docs/notifications.md) is read just enough for that: per `"streamName":"…"`
 * the events that follow it, per event its `"eventType"`, `"triggerId"` and
 * `"windowStart"`. It relies on the format's key order and on string values being
 * escaped (an unescaped `"key":` can only be a key); result columns must not be named like
 * those keys. Anything it cannot read is counted as malformed.
 *
 * This is the only file of bench/ that includes libwebsockets headers.
 */
#ifndef SL_BENCH_RECEIVER_H
#define SL_BENCH_RECEIVER_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_receiver bench_receiver;

/* Event types as the receiver records them. */
enum { BR_OPEN = 0, BR_CLOSE = 1, BR_OTHER = 2 };

/* One notified event. */
typedef struct br_event {
    int stream;           /* index into the names passed to bench_receiver_open; -1: other */
    int type;             /* BR_OPEN, BR_CLOSE, BR_OTHER */
    int64_t window_start; /* windowStart (INT64_MIN when absent) */
    uint64_t trigger_id;  /* triggerId */
    double arrival;       /* bench_now() when its message was complete */
} br_event;

/*
 * Starts a server on a free 127.0.0.1 port and its thread. streams (borrowed, must outlive
 * the receiver) are the stream names to recognise. Returns 0 and *out, or -1 (msg says
 * why).
 */
int bench_receiver_open(bench_receiver **out, const char *const *streams, int nstreams,
                        char *msg, size_t msglen);

/* The port it listens on. */
int bench_receiver_port(const bench_receiver *r);

/* Stops the thread, closes the server and frees everything (NULL-safe). */
void bench_receiver_close(bench_receiver *r);

/*
 * Copies the events received so far, from index `from` on, into *out (malloc'd; the caller
 * frees) and returns their number; *next is set to the index after the last copied.
 * Thread-safe.
 */
size_t bench_receiver_events(bench_receiver *r, size_t from, br_event **out, size_t *next);

/* Messages received, and messages or events that could not be read. Thread-safe. */
void bench_receiver_stats(bench_receiver *r, uint64_t *messages, uint64_t *malformed);

#endif
