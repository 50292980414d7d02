/*
 * notify_json.c - JSON text of notification events and messages. A small append-only
 * writer over sl_buf: every helper returns 0 or SL_ENOMEM, and the public entry points
 * roll the buffer back to its old length on failure.
 */
#include "snode/notify/notify_json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int put_lit(sl_buf *b, const char *s)
{
    return sl_buf_put(b, s, strlen(s));
}

/* Length of the well-formed UTF-8 sequence at p (n bytes left), or 0 when it is not. */
static size_t utf8_seq(const uint8_t *p, size_t n)
{
    uint8_t c = p[0];
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0; /* continuation byte, overlong lead C0/C1, or F5..FF */
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0; /* overlong or beyond Unicode */
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return 0; /* UTF-16 surrogates are not characters */
    return len;
}

int sl_notify_json_string(sl_buf *out, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t mark = out->len;
    const uint8_t *p = (const uint8_t *)s;
    size_t i = 0;
    int rc = sl_buf_put_u8(out, '"');
    while (rc == 0 && i < n) {
        /* Copy the longest run that needs no escaping in one call. */
        size_t j = i;
        while (j < n && p[j] >= 0x20 && p[j] < 0x80 && p[j] != '"' && p[j] != '\\')
            j++;
        if (j > i) {
            rc = sl_buf_put(out, p + i, j - i);
            i = j;
            continue;
        }
        uint8_t c = p[i];
        if (c < 0x80) {
            char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
            size_t elen = 2;
            switch (c) {
            case '"': esc[1] = '"'; break;
            case '\\': esc[1] = '\\'; break;
            case '\b': esc[1] = 'b'; break;
            case '\f': esc[1] = 'f'; break;
            case '\n': esc[1] = 'n'; break;
            case '\r': esc[1] = 'r'; break;
            case '\t': esc[1] = 't'; break;
            default:
                esc[1] = 'u';
                esc[2] = '0';
                esc[3] = '0';
                esc[4] = hex[c >> 4];
                esc[5] = hex[c & 15];
                elen = 6;
            }
            rc = sl_buf_put(out, esc, elen);
            i++;
            continue;
        }
        size_t l = utf8_seq(p + i, n - i);
        if (l == 0) {
            rc = put_lit(out, "\\ufffd"); /* one replacement per bad byte */
            i++;
        } else if (l == 3 && p[i] == 0xE2 && p[i + 1] == 0x80 && (p[i + 2] & 0xFE) == 0xA8) {
            /* U+2028 / U+2029 are valid JSON but end lines in JavaScript: escape them. */
            rc = put_lit(out, p[i + 2] == 0xA8 ? "\\u2028" : "\\u2029");
            i += 3;
        } else {
            rc = sl_buf_put(out, p + i, l);
            i += l;
        }
    }
    if (rc == 0)
        rc = sl_buf_put_u8(out, '"');
    if (rc != 0)
        out->len = mark;
    return rc;
}

/* The shortest %g text of d that reads back to d (as a float when is_float). */
static int put_double(sl_buf *out, double d, bool is_float)
{
    if (!isfinite(d))
        return put_lit(out, "null");
    char tmp[40];
    int max = is_float ? 9 : 17;
    /* Whole numbers below 1e17 keep their integer digits ("220", not "2.2e+02"). */
    int min = 1;
    for (double a = fabs(d); a >= 10.0 && a < 1e17 && min < max; a /= 10.0)
        min++;
    for (int prec = min; prec <= max; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
        double back = strtod(tmp, NULL);
        if (is_float ? (float)back == (float)d : back == d)
            break;
    }
    return put_lit(out, tmp);
}

int sl_notify_json_value(sl_buf *out, const sl_value *v)
{
    if (v->is_null || v->type == SL_T_NULL)
        return put_lit(out, "null");
    switch (v->type) {
    case SL_T_BOOL: return put_lit(out, v->v.b ? "true" : "false");
    case SL_T_TINYINT:
    case SL_T_SMALLINT:
    case SL_T_INT:
    case SL_T_BIGINT:
    case SL_T_TIMESTAMP: return sl_buf_printf(out, "%" PRId64, v->v.i);
    case SL_T_UTINYINT:
    case SL_T_USMALLINT:
    case SL_T_UINT:
    case SL_T_UBIGINT: return sl_buf_printf(out, "%" PRIu64, v->v.u);
    case SL_T_FLOAT: return put_double(out, v->v.d, true);
    case SL_T_DOUBLE: return put_double(out, v->v.d, false);
    case SL_T_VARCHAR:
    case SL_T_NCHAR: return sl_notify_json_string(out, v->v.s.ptr, v->v.s.len);
    default: return put_lit(out, "null");
    }
}

static int put_key(sl_buf *out, const char *key)
{
    int rc = put_lit(out, ",\"");
    if (rc == 0)
        rc = put_lit(out, key);
    if (rc == 0)
        rc = put_lit(out, "\":");
    return rc;
}

static int put_i64(sl_buf *out, const char *key, int64_t v)
{
    int rc = put_key(out, key);
    return rc ? rc : sl_buf_printf(out, "%" PRId64, v);
}

static int put_row(sl_buf *out, const sl_notify_row *r)
{
    int rc = sl_buf_put_u8(out, '{');
    for (int i = 0; rc == 0 && i < r->n; i++) {
        if (i > 0)
            rc = sl_buf_put_u8(out, ',');
        if (rc == 0)
            rc = sl_notify_json_string(out, r->names[i], strlen(r->names[i]));
        if (rc == 0)
            rc = sl_buf_put_u8(out, ':');
        if (rc == 0)
            rc = sl_notify_json_value(out, &r->values[i]);
    }
    return rc ? rc : sl_buf_put_u8(out, '}');
}

/* A state key array, or null when absent. */
static int put_state(sl_buf *out, const char *key, const sl_value *vals, int n)
{
    int rc = put_key(out, key);
    if (rc != 0)
        return rc;
    if (vals == NULL)
        return put_lit(out, "null");
    rc = sl_buf_put_u8(out, '[');
    for (int i = 0; rc == 0 && i < n; i++) {
        if (i > 0)
            rc = sl_buf_put_u8(out, ',');
        if (rc == 0)
            rc = sl_notify_json_value(out, &vals[i]);
    }
    return rc ? rc : sl_buf_put_u8(out, ']');
}

static int put_condition(sl_buf *out, const sl_notify_event *ev)
{
    int rc = put_i64(out, "windowIndex", ev->ne_window_index);
    if (rc == 0 && ev->ne_condition_index >= 0) {
        rc = put_key(out, "triggerCondition");
        if (rc == 0)
            rc = sl_buf_printf(out, "{\"conditionIndex\":%d,\"fieldValue\":",
                               (int)ev->ne_condition_index);
        if (rc == 0)
            rc = put_row(out, &ev->ne_fields);
        if (rc == 0)
            rc = sl_buf_put_u8(out, '}');
    }
    return rc;
}

static int put_event(sl_buf *out, const sl_notify_event *ev)
{
    int rc = sl_buf_put_u8(out, '{');
    bool first = true;
    if (rc == 0 && ev->ne_table != NULL) {
        rc = put_lit(out, "\"tableName\":");
        if (rc == 0)
            rc = sl_notify_json_string(out, ev->ne_table, strlen(ev->ne_table));
        first = false;
    }
    if (rc == 0)
        rc = sl_buf_printf(out, "%s\"eventType\":\"%s\",\"eventTime\":%" PRId64
                                ",\"triggerId\":\"%" PRIu64 "\",\"triggerType\":\"%s\""
                                ",\"groupId\":\"%" PRIu64 "\"",
                           first ? "" : ",", sl_notify_event_type_name(ev->ne_type),
                           ev->ne_event_time_ms, ev->ne_trigger_id,
                           sl_notify_trigger_name(ev->ne_trigger), ev->ne_group_id);
    if (rc != 0)
        return rc;
    bool state = ev->ne_trigger == SL_NOTIFY_TRIG_STATE;
    bool event = ev->ne_trigger == SL_NOTIFY_TRIG_EVENT;
    switch (ev->ne_type) {
    case SL_NOTIFY_EV_WINDOW_OPEN:
        rc = put_i64(out, "windowStart", ev->ne_wstart);
        if (rc == 0 && state)
            rc = put_state(out, "prevState", ev->ne_prev_state, ev->ne_nstate);
        if (rc == 0 && state)
            rc = put_state(out, "curState", ev->ne_cur_state, ev->ne_nstate);
        if (rc == 0 && event)
            rc = put_condition(out, ev);
        break;
    case SL_NOTIFY_EV_WINDOW_CLOSE:
        rc = put_i64(out, "windowStart", ev->ne_wstart);
        if (rc == 0)
            rc = put_i64(out, "windowEnd", ev->ne_wend);
        if (rc == 0 && state)
            rc = put_state(out, "curState", ev->ne_cur_state, ev->ne_nstate);
        if (rc == 0 && state)
            rc = put_state(out, "nextState", ev->ne_next_state, ev->ne_nstate);
        if (rc == 0 && event)
            rc = put_condition(out, ev);
        break;
    case SL_NOTIFY_EV_WINDOW_INVALIDATION:
        rc = put_i64(out, "windowStart", ev->ne_wstart);
        if (rc == 0)
            rc = put_i64(out, "windowEnd", ev->ne_wend);
        break;
    case SL_NOTIFY_EV_IDLE:
    case SL_NOTIFY_EV_RESUME:
        rc = put_i64(out, "idleStart", ev->ne_idle_start_ns);
        if (rc == 0)
            rc = put_i64(out, "idleEnd", ev->ne_idle_end_ns);
        if (rc == 0)
            rc = put_i64(out, "idleDurationMs", ev->ne_idle_duration_ms);
        break;
    case SL_NOTIFY_EV_ON_TIME:
    default: break;
    }
    if (rc == 0 && ev->ne_has_result) {
        rc = put_key(out, "result");
        if (rc == 0)
            rc = put_row(out, &ev->ne_result);
    }
    return rc ? rc : sl_buf_put_u8(out, '}');
}

int sl_notify_json_event(sl_buf *out, const sl_notify_event *ev, sl_error *err)
{
    if ((unsigned)ev->ne_trigger >= SL_NOTIFY_TRIG__N)
        return sl_error_set(err, SL_EINVAL, 0, 0, "bad notification trigger type %d",
                            (int)ev->ne_trigger);
    if ((unsigned)ev->ne_type >= SL_NOTIFY_EV__N)
        return sl_error_set(err, SL_EINVAL, 0, 0, "bad notification event type %d",
                            (int)ev->ne_type);
    if (ev->ne_stream == NULL || ev->ne_stream[0] == '\0')
        return sl_error_set(err, SL_EINVAL, 0, 0, "notification event without a stream name");
    size_t mark = out->len;
    int rc = put_event(out, ev);
    if (rc != 0) {
        out->len = mark;
        return sl_error_set(err, rc, 0, 0, "cannot serialize notification: %s",
                            sl_strerror(rc));
    }
    return 0;
}

static bool same_stream(const sl_notify_json_item *a, const sl_notify_json_item *b)
{
    return a->stream_len == b->stream_len &&
           (a->stream_len == 0 || memcmp(a->stream, b->stream, a->stream_len) == 0);
}

int sl_notify_json_message(sl_buf *out, const char *message_id, int64_t ts_ms,
                           const sl_notify_json_item *items, size_t n)
{
    size_t mark = out->len;
    bool *done = calloc(n ? n : 1, sizeof(bool));
    if (done == NULL)
        return SL_ENOMEM;
    int rc = put_lit(out, "{\"messageId\":");
    if (rc == 0)
        rc = sl_notify_json_string(out, message_id, strlen(message_id));
    if (rc == 0)
        rc = sl_buf_printf(out, ",\"timestamp\":%" PRId64 ",\"streams\":[", ts_ms);
    bool first_stream = true;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (done[i])
            continue;
        rc = put_lit(out, first_stream ? "{\"streamName\":" : ",{\"streamName\":");
        first_stream = false;
        if (rc == 0)
            rc = sl_notify_json_string(out, items[i].stream, items[i].stream_len);
        if (rc == 0)
            rc = put_lit(out, ",\"events\":[");
        bool first_event = true;
        /* Quadratic in the number of streams of one message, which is small. */
        for (size_t j = i; rc == 0 && j < n; j++) {
            if (done[j] || !same_stream(&items[i], &items[j]))
                continue;
            done[j] = true;
            if (!first_event)
                rc = sl_buf_put_u8(out, ',');
            first_event = false;
            if (rc == 0)
                rc = sl_buf_put(out, items[j].event, items[j].event_len);
        }
        if (rc == 0)
            rc = put_lit(out, "]}");
    }
    if (rc == 0)
        rc = put_lit(out, "]}");
    free(done);
    if (rc != 0)
        out->len = mark;
    return rc;
}
