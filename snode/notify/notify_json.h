/*
 * notify_json.h - the JSON of notification messages, exactly as spec/stream-syntax.txt
 * "Notification Mechanism" shows it.
 *
 * Output is compact (no whitespace) with the fields in the order of the spec's example and
 * field lists, so receivers and tests can compare text. Events are serialized once, when
 * they enter the outbox; a message is put together later, when a batch for one destination
 * is formed, from the stored event texts: root fields, then one "streams" entry per stream
 * (in order of each stream's first event) holding that stream's events in their order.
 *
 * Types: messageId, triggerId, groupId and names are JSON strings; times are integers;
 * result and key values are typed (integers, unsigned integers and timestamps as integers,
 * FLOAT / DOUBLE as the shortest decimal that reads back to the same value, non-finite
 * floats as null, BOOL as true/false, NULL as null, VARCHAR / NCHAR as strings). Strings
 * escape '"', '\\' and every control character; bytes that are not well-formed UTF-8 are
 * replaced by U+FFFD (written "\ufffd"), so the output is always valid UTF-8 JSON.
 */
#ifndef SL_NOTIFY_JSON_H
#define SL_NOTIFY_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "common/types/value.h"
#include "common/util/buf.h"
#include "common/util/error.h"
#include "snode/notify/notify_event.h"

/* Appends s[0..n) as a JSON string literal (quotes included). Returns 0 or SL_ENOMEM. */
int sl_notify_json_string(sl_buf *out, const char *s, size_t n);

/* Appends v as a JSON value (see the header comment for the types). Returns 0 or
 * SL_ENOMEM. */
int sl_notify_json_value(sl_buf *out, const sl_value *v);

/*
 * Appends the event object of ev: tableName (when set), eventType, eventTime, triggerId,
 * triggerType, groupId, then the fields of its trigger type and event type, then result
 * (whenever ev has one). Returns 0, SL_EINVAL (bad trigger / event type, no stream name)
 * with a message, or SL_ENOMEM; out keeps its length on error.
 */
int sl_notify_json_event(sl_buf *out, const sl_notify_event *ev, sl_error *err);

/* One serialized event of a message: its stream and its event object text (borrowed). */
typedef struct sl_notify_json_item {
    const char *stream;  /* streamName bytes */
    size_t stream_len;
    const char *event;   /* the JSON object of sl_notify_json_event */
    size_t event_len;
} sl_notify_json_item;

/*
 * Appends a whole message: {"messageId":id,"timestamp":ts_ms,"streams":[...]} with the
 * n items grouped by stream (order of first appearance; events keep their order).
 * Returns 0 or SL_ENOMEM; out keeps its length on error.
 */
int sl_notify_json_message(sl_buf *out, const char *message_id, int64_t ts_ms,
                           const sl_notify_json_item *items, size_t n);

#endif
