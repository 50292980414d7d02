/*
 * test_notify_json.c - the notification JSON of snode/notify against hand-written strings
 * taken from spec/stream-syntax.txt "Notification Mechanism": every trigger type's
 * WINDOW_OPEN / WINDOW_CLOSE, ON_TIME for Period and Sliding, IDLE / RESUME,
 * WINDOW_INVALIDATION, the spec's whole example message (two streams), typed values,
 * string escaping (control characters, invalid UTF-8) and the copy from a trigger event.
 *
 * The expected texts are the spec's example objects written compactly; where the spec
 * shows a placeholder triggerId ("window-id-67890") ours is the engine's 64-bit id in
 * decimal, and Event windows carry the windowIndex field its field list requires.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "snode/notify/notify_event.h"
#include "snode/notify/notify_json.h"

#define TBL_A "t_a667a16127d3b5a18988e32f3e76cd30"
#define TBL_B "t_96f62b752f36e9b16dc969fe45363748"

static void ev_base(sl_notify_event *ev, const char *stream, const char *table,
                    sl_notify_trigger trig, sl_notify_event_type type, int64_t etime,
                    uint64_t tid, uint64_t gid)
{
    sl_notify_event_init(ev);
    ev->ne_stream = strdup(stream);
    ev->ne_table = table ? strdup(table) : NULL;
    ev->ne_trigger = trig;
    ev->ne_type = type;
    ev->ne_event_time_ms = etime;
    ev->ne_trigger_id = tid;
    ev->ne_group_id = gid;
}

static void expect_json(const sl_notify_event *ev, const char *want)
{
    sl_buf b = {0};
    sl_error err = {0};
    assert_int_equal(sl_notify_json_event(&b, ev, &err), 0);
    assert_int_equal(sl_buf_put_u8(&b, 0), 0);
    assert_string_equal((const char *)b.data, want);
    sl_buf_fini(&b);
}

/* Spec example, stream avg_current_stream: Interval open then close with a result. */
static void interval_open(sl_notify_event *ev)
{
    ev_base(ev, "avg_current_stream", TBL_A, SL_NOTIFY_TRIG_INTERVAL, SL_NOTIFY_EV_WINDOW_OPEN,
            1733284887097, 67890, 2650968222368530754u);
    ev->ne_wstart = 1733284800000;
}

static void interval_close(sl_notify_event *ev)
{
    ev_base(ev, "avg_current_stream", TBL_A, SL_NOTIFY_TRIG_INTERVAL, SL_NOTIFY_EV_WINDOW_CLOSE,
            1733284887197, 67890, 2650968222368530754u);
    ev->ne_wstart = 1733284800000;
    ev->ne_wend = 1733284860000;
    const char *names[] = {"_wstart", "avg(current)"};
    sl_value vals[] = {sl_value_int(SL_T_TIMESTAMP, 1733284800000), sl_value_double(SL_T_DOUBLE, 1.3)};
    assert_int_equal(sl_notify_event_set_result(ev, names, vals, 2), 0);
}

/* Spec example, stream max_voltage_stream: Event open then close. */
static void event_open(sl_notify_event *ev)
{
    ev_base(ev, "max_voltage_stream", TBL_B, SL_NOTIFY_TRIG_EVENT, SL_NOTIFY_EV_WINDOW_OPEN,
            1733284887231, 13579, 7533998559487590581u);
    ev->ne_wstart = 1733284800000;
    ev->ne_condition_index = 0;
    const char *names[] = {"c1", "c2"};
    sl_value vals[] = {sl_value_int(SL_T_INT, 10), sl_value_int(SL_T_INT, 15)};
    assert_int_equal(sl_notify_event_set_fields(ev, names, vals, 2), 0);
}

static void event_close(sl_notify_event *ev)
{
    ev_base(ev, "max_voltage_stream", TBL_B, SL_NOTIFY_TRIG_EVENT, SL_NOTIFY_EV_WINDOW_CLOSE,
            1733284887231, 13579, 7533998559487590581u);
    ev->ne_wstart = 1733284800000;
    ev->ne_wend = 1733284810000;
    ev->ne_condition_index = 1;
    const char *names[] = {"c1", "c2"};
    sl_value vals[] = {sl_value_int(SL_T_INT, 20), sl_value_int(SL_T_INT, 3)};
    assert_int_equal(sl_notify_event_set_fields(ev, names, vals, 2), 0);
    const char *rn[] = {"_wstart", "max(voltage)"};
    sl_value rv[] = {sl_value_int(SL_T_TIMESTAMP, 1733284800000), sl_value_int(SL_T_INT, 220)};
    assert_int_equal(sl_notify_event_set_result(ev, rn, rv, 2), 0);
}

#define INTERVAL_OPEN_JSON                                                                         \
    "{\"tableName\":\"" TBL_A "\",\"eventType\":\"WINDOW_OPEN\",\"eventTime\":1733284887097,"      \
    "\"triggerId\":\"67890\",\"triggerType\":\"Interval\",\"groupId\":\"2650968222368530754\","    \
    "\"windowStart\":1733284800000}"
#define INTERVAL_CLOSE_JSON                                                                        \
    "{\"tableName\":\"" TBL_A "\",\"eventType\":\"WINDOW_CLOSE\",\"eventTime\":1733284887197,"     \
    "\"triggerId\":\"67890\",\"triggerType\":\"Interval\",\"groupId\":\"2650968222368530754\","    \
    "\"windowStart\":1733284800000,\"windowEnd\":1733284860000,"                                   \
    "\"result\":{\"_wstart\":1733284800000,\"avg(current)\":1.3}}"
#define EVENT_OPEN_JSON                                                                            \
    "{\"tableName\":\"" TBL_B "\",\"eventType\":\"WINDOW_OPEN\",\"eventTime\":1733284887231,"      \
    "\"triggerId\":\"13579\",\"triggerType\":\"Event\",\"groupId\":\"7533998559487590581\","       \
    "\"windowStart\":1733284800000,\"windowIndex\":-1,"                                            \
    "\"triggerCondition\":{\"conditionIndex\":0,\"fieldValue\":{\"c1\":10,\"c2\":15}}}"
#define EVENT_CLOSE_JSON                                                                           \
    "{\"tableName\":\"" TBL_B "\",\"eventType\":\"WINDOW_CLOSE\",\"eventTime\":1733284887231,"     \
    "\"triggerId\":\"13579\",\"triggerType\":\"Event\",\"groupId\":\"7533998559487590581\","       \
    "\"windowStart\":1733284800000,\"windowEnd\":1733284810000,\"windowIndex\":-1,"                \
    "\"triggerCondition\":{\"conditionIndex\":1,\"fieldValue\":{\"c1\":20,\"c2\":3}},"             \
    "\"result\":{\"_wstart\":1733284800000,\"max(voltage)\":220}}"

static void test_interval(void **state)
{
    sl_notify_event ev;
    interval_open(&ev);
    expect_json(&ev, INTERVAL_OPEN_JSON);
    sl_notify_event_fini(&ev);
    interval_close(&ev);
    expect_json(&ev, INTERVAL_CLOSE_JSON);
    sl_notify_event_fini(&ev);
}

static void test_event_window(void **state)
{
    sl_notify_event ev;
    event_open(&ev);
    expect_json(&ev, EVENT_OPEN_JSON);
    sl_notify_event_fini(&ev);
    event_close(&ev);
    expect_json(&ev, EVENT_CLOSE_JSON);
    sl_notify_event_fini(&ev);
    /* A sub-window of a parent window: its index. */
    event_open(&ev);
    ev.ne_window_index = 2;
    expect_json(&ev, "{\"tableName\":\"" TBL_B "\",\"eventType\":\"WINDOW_OPEN\","
                     "\"eventTime\":1733284887231,\"triggerId\":\"13579\",\"triggerType\":"
                     "\"Event\",\"groupId\":\"7533998559487590581\",\"windowStart\":"
                     "1733284800000,\"windowIndex\":2,\"triggerCondition\":{\"conditionIndex\""
                     ":0,\"fieldValue\":{\"c1\":10,\"c2\":15}}}");
    sl_notify_event_fini(&ev);
}

/* The spec's whole example message: events of two streams interleaved on input come out
 * grouped by stream, each stream's events in order. */
static void test_message_spec_example(void **state)
{
    sl_notify_event ev[4];
    interval_open(&ev[0]);
    event_open(&ev[1]);
    interval_close(&ev[2]);
    event_close(&ev[3]);
    sl_buf txt[4];
    sl_notify_json_item items[4];
    for (int i = 0; i < 4; i++) {
        memset(&txt[i], 0, sizeof(txt[i]));
        assert_int_equal(sl_notify_json_event(&txt[i], &ev[i], NULL), 0);
        items[i] = (sl_notify_json_item){ev[i].ne_stream, strlen(ev[i].ne_stream),
                                         (const char *)txt[i].data, txt[i].len};
    }
    sl_buf m = {0};
    assert_int_equal(sl_notify_json_message(&m, "unique-message-id-12345", 1733284887203, items, 4),
                     0);
    sl_buf_put_u8(&m, 0);
    assert_string_equal((const char *)m.data,
                        "{\"messageId\":\"unique-message-id-12345\",\"timestamp\":1733284887203,"
                        "\"streams\":[{\"streamName\":\"avg_current_stream\",\"events\":["
                        INTERVAL_OPEN_JSON "," INTERVAL_CLOSE_JSON "]},"
                        "{\"streamName\":\"max_voltage_stream\",\"events\":["
                        EVENT_OPEN_JSON "," EVENT_CLOSE_JSON "]}]}");
    sl_buf_fini(&m);
    /* No events: an empty streams array. */
    assert_int_equal(sl_notify_json_message(&m, "x", 5, NULL, 0), 0);
    sl_buf_put_u8(&m, 0);
    assert_string_equal((const char *)m.data, "{\"messageId\":\"x\",\"timestamp\":5,\"streams\":[]}");
    sl_buf_fini(&m);
    for (int i = 0; i < 4; i++) {
        sl_buf_fini(&txt[i]);
        sl_notify_event_fini(&ev[i]);
    }
}

static void test_state_window(void **state)
{
    sl_notify_event ev;
    /* {"prevState":[1],"curState":[2]} of the spec. */
    ev_base(&ev, "s", "out1", SL_NOTIFY_TRIG_STATE, SL_NOTIFY_EV_WINDOW_OPEN, 1000, 1, 2);
    ev.ne_wstart = 500;
    sl_value p1[] = {sl_value_int(SL_T_INT, 1)}, c1[] = {sl_value_int(SL_T_INT, 2)};
    assert_int_equal(sl_notify_event_set_state(&ev, 1, p1, c1, NULL), 0);
    expect_json(&ev, "{\"tableName\":\"out1\",\"eventType\":\"WINDOW_OPEN\",\"eventTime\":1000,"
                     "\"triggerId\":\"1\",\"triggerType\":\"State\",\"groupId\":\"2\","
                     "\"windowStart\":500,\"prevState\":[1],\"curState\":[2]}");
    /* The first window: no previous state, JSON null. */
    assert_int_equal(sl_notify_event_set_state(&ev, 1, NULL, c1, NULL), 0);
    expect_json(&ev, "{\"tableName\":\"out1\",\"eventType\":\"WINDOW_OPEN\",\"eventTime\":1000,"
                     "\"triggerId\":\"1\",\"triggerType\":\"State\",\"groupId\":\"2\","
                     "\"windowStart\":500,\"prevState\":null,\"curState\":[2]}");
    sl_notify_event_fini(&ev);
    /* {"curState":[2, "a"],"nextState":[2, "b"]} of the spec, with a result. */
    ev_base(&ev, "s", "out1", SL_NOTIFY_TRIG_STATE, SL_NOTIFY_EV_WINDOW_CLOSE, 2000, 1, 2);
    ev.ne_wstart = 500;
    ev.ne_wend = 900;
    sl_value c2[] = {sl_value_int(SL_T_INT, 2), sl_value_str(SL_T_VARCHAR, "a", 1)};
    sl_value n2[] = {sl_value_int(SL_T_INT, 2), sl_value_str(SL_T_VARCHAR, "b", 1)};
    assert_int_equal(sl_notify_event_set_state(&ev, 2, NULL, c2, n2), 0);
    const char *rn[] = {"cnt"};
    sl_value rv[] = {sl_value_int(SL_T_BIGINT, 4)};
    assert_int_equal(sl_notify_event_set_result(&ev, rn, rv, 1), 0);
    expect_json(&ev, "{\"tableName\":\"out1\",\"eventType\":\"WINDOW_CLOSE\",\"eventTime\":2000,"
                     "\"triggerId\":\"1\",\"triggerType\":\"State\",\"groupId\":\"2\","
                     "\"windowStart\":500,\"windowEnd\":900,\"curState\":[2,\"a\"],"
                     "\"nextState\":[2,\"b\"],\"result\":{\"cnt\":4}}");
    sl_notify_event_fini(&ev);
}

static void test_session_count(void **state)
{
    sl_notify_trigger t[] = {SL_NOTIFY_TRIG_SESSION, SL_NOTIFY_TRIG_COUNT};
    const char *name[] = {"Session", "Count"};
    for (int i = 0; i < 2; i++) {
        sl_notify_event ev;
        char want[512];
        ev_base(&ev, "s", "tb", t[i], SL_NOTIFY_EV_WINDOW_OPEN, 7, 8, 0);
        ev.ne_wstart = 100;
        snprintf(want, sizeof(want),
                 "{\"tableName\":\"tb\",\"eventType\":\"WINDOW_OPEN\",\"eventTime\":7,"
                 "\"triggerId\":\"8\",\"triggerType\":\"%s\",\"groupId\":\"0\","
                 "\"windowStart\":100}",
                 name[i]);
        expect_json(&ev, want);
        ev.ne_type = SL_NOTIFY_EV_WINDOW_CLOSE;
        ev.ne_wend = 199;
        const char *rn[] = {"_wstart", "avg(v)"};
        sl_value rv[] = {sl_value_int(SL_T_TIMESTAMP, 100), sl_value_null(SL_T_DOUBLE)};
        assert_int_equal(sl_notify_event_set_result(&ev, rn, rv, 2), 0);
        snprintf(want, sizeof(want),
                 "{\"tableName\":\"tb\",\"eventType\":\"WINDOW_CLOSE\",\"eventTime\":7,"
                 "\"triggerId\":\"8\",\"triggerType\":\"%s\",\"groupId\":\"0\","
                 "\"windowStart\":100,\"windowEnd\":199,"
                 "\"result\":{\"_wstart\":100,\"avg(v)\":null}}",
                 name[i]);
        expect_json(&ev, want);
        sl_notify_event_fini(&ev);
    }
}

static void test_on_time(void **state)
{
    sl_notify_event ev;
    ev_base(&ev, "per", "o", SL_NOTIFY_TRIG_PERIOD, SL_NOTIFY_EV_ON_TIME, 1733284887000, 77, 0);
    const char *rn[] = {"ts", "n"};
    sl_value rv[] = {sl_value_int(SL_T_TIMESTAMP, 1733284887000), sl_value_int(SL_T_BIGINT, 3)};
    assert_int_equal(sl_notify_event_set_result(&ev, rn, rv, 2), 0);
    expect_json(&ev, "{\"tableName\":\"o\",\"eventType\":\"ON_TIME\",\"eventTime\":1733284887000,"
                     "\"triggerId\":\"77\",\"triggerType\":\"Period\",\"groupId\":\"0\","
                     "\"result\":{\"ts\":1733284887000,\"n\":3}}");
    sl_notify_event_fini(&ev);
    /* Sliding without output table and without a computation: no tableName, no result. */
    ev_base(&ev, "sl", NULL, SL_NOTIFY_TRIG_SLIDING, SL_NOTIFY_EV_ON_TIME, 5, 18446744073709551615u,
            42);
    expect_json(&ev, "{\"eventType\":\"ON_TIME\",\"eventTime\":5,\"triggerId\":"
                     "\"18446744073709551615\",\"triggerType\":\"Sliding\",\"groupId\":\"42\"}");
    sl_notify_event_fini(&ev);
}

static void test_idle_resume(void **state)
{
    sl_notify_event ev;
    ev_base(&ev, "s", "tb", SL_NOTIFY_TRIG_INTERVAL, SL_NOTIFY_EV_IDLE, 1733284890000, 9, 3);
    ev.ne_idle_start_ns = 1733284880000000000;
    ev.ne_idle_end_ns = 1733284890000000000;
    ev.ne_idle_duration_ms = 10000;
    expect_json(&ev, "{\"tableName\":\"tb\",\"eventType\":\"IDLE\",\"eventTime\":1733284890000,"
                     "\"triggerId\":\"9\",\"triggerType\":\"Interval\",\"groupId\":\"3\","
                     "\"idleStart\":1733284880000000000,\"idleEnd\":1733284890000000000,"
                     "\"idleDurationMs\":10000}");
    ev.ne_type = SL_NOTIFY_EV_RESUME;
    ev.ne_event_time_ms = 1733284895000;
    ev.ne_idle_end_ns = 1733284895000000000;
    ev.ne_idle_duration_ms = 15000;
    expect_json(&ev, "{\"tableName\":\"tb\",\"eventType\":\"RESUME\",\"eventTime\":1733284895000,"
                     "\"triggerId\":\"9\",\"triggerType\":\"Interval\",\"groupId\":\"3\","
                     "\"idleStart\":1733284880000000000,\"idleEnd\":1733284895000000000,"
                     "\"idleDurationMs\":15000}");
    sl_notify_event_fini(&ev);
}

static void test_invalidation(void **state)
{
    sl_notify_event ev;
    ev_base(&ev, "s", "tb", SL_NOTIFY_TRIG_COUNT, SL_NOTIFY_EV_WINDOW_INVALIDATION, 11, 12, 13);
    ev.ne_wstart = -5;
    ev.ne_wend = 1000000000000000000;
    expect_json(&ev, "{\"tableName\":\"tb\",\"eventType\":\"WINDOW_INVALIDATION\",\"eventTime\":11,"
                     "\"triggerId\":\"12\",\"triggerType\":\"Count\",\"groupId\":\"13\","
                     "\"windowStart\":-5,\"windowEnd\":1000000000000000000}");
    sl_notify_event_fini(&ev);
}

static void expect_jvalue(sl_value v, const char *want)
{
    sl_buf b = {0};
    assert_int_equal(sl_notify_json_value(&b, &v), 0);
    sl_buf_put_u8(&b, 0);
    assert_string_equal((const char *)b.data, want);
    sl_buf_fini(&b);
}

static void test_values(void **state)
{
    expect_jvalue(sl_value_null(SL_T_INT), "null");
    expect_jvalue(sl_value_null(SL_T_NULL), "null");
    expect_jvalue(sl_value_bool(true), "true");
    expect_jvalue(sl_value_bool(false), "false");
    expect_jvalue(sl_value_int(SL_T_TINYINT, -128), "-128");
    expect_jvalue(sl_value_int(SL_T_BIGINT, INT64_MIN), "-9223372036854775808");
    expect_jvalue(sl_value_uint(SL_T_UBIGINT, UINT64_MAX), "18446744073709551615");
    expect_jvalue(sl_value_uint(SL_T_UTINYINT, 255), "255");
    expect_jvalue(sl_value_int(SL_T_TIMESTAMP, 1733284800000123), "1733284800000123");
    expect_jvalue(sl_value_double(SL_T_FLOAT, (double)1.3f), "1.3");
    expect_jvalue(sl_value_double(SL_T_DOUBLE, (double)1.3f), "1.2999999523162842");
    expect_jvalue(sl_value_double(SL_T_DOUBLE, 0.1), "0.1");
    expect_jvalue(sl_value_double(SL_T_DOUBLE, 220.0), "220");
    expect_jvalue(sl_value_double(SL_T_DOUBLE, -2.5e-7), "-2.5e-07");
    expect_jvalue(sl_value_double(SL_T_DOUBLE, 1e300), "1e+300");
    expect_jvalue(sl_value_double(SL_T_DOUBLE, 0.0 / 0.0), "null");
    expect_jvalue(sl_value_double(SL_T_DOUBLE, 1.0 / 0.0), "null");
    expect_jvalue(sl_value_double(SL_T_FLOAT, -1.0 / 0.0), "null");
    expect_jvalue(sl_value_str(SL_T_NCHAR, "\xe4\xb8\xad\xe6\x96\x87", 6), "\"\xe4\xb8\xad\xe6\x96\x87\"");
    expect_jvalue(sl_value_str(SL_T_VARCHAR, "", 0), "\"\"");
}

static void expect_str(const char *in, size_t n, const char *want)
{
    sl_buf b = {0};
    assert_int_equal(sl_notify_json_string(&b, in, n), 0);
    sl_buf_put_u8(&b, 0);
    assert_string_equal((const char *)b.data, want);
    sl_buf_fini(&b);
}

static void test_escaping(void **state)
{
    expect_str("a\"b\\c/d", 7, "\"a\\\"b\\\\c/d\"");
    expect_str("\b\f\n\r\t", 5, "\"\\b\\f\\n\\r\\t\"");
    expect_str("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\x7f\"");
    expect_str("a\0b", 3, "\"a\\u0000b\"");
    /* Well-formed UTF-8 passes through: 2, 3 and 4 byte sequences. */
    expect_str("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    /* U+2028 / U+2029 are escaped for JavaScript receivers. */
    expect_str("\xe2\x80\xa8\xe2\x80\xa9", 6, "\"\\u2028\\u2029\"");
    /* Invalid: lone continuation, overlong, truncated, surrogate, beyond U+10FFFF, F5. */
    expect_str("\x80", 1, "\"\\ufffd\"");
    expect_str("\xc0\x80", 2, "\"\\ufffd\\ufffd\"");
    expect_str("\xe0\x80\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");
    expect_str("a\xe2\x82", 3, "\"a\\ufffd\\ufffd\"");
    expect_str("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");
    expect_str("\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    expect_str("\xf5z", 2, "\"\\ufffdz\"");
    expect_str("\xc3\xa9\xff\xc3\xa9", 5, "\"\xc3\xa9\\ufffd\xc3\xa9\"");
    /* Names and table names go through the same escaping. */
    sl_notify_event ev;
    ev_base(&ev, "s", "t\"1\n", SL_NOTIFY_TRIG_PERIOD, SL_NOTIFY_EV_ON_TIME, 1, 2, 3);
    const char *rn[] = {"a\"b"};
    sl_value rv[] = {sl_value_str(SL_T_VARCHAR, "x\x01y\xff", 4)};
    assert_int_equal(sl_notify_event_set_result(&ev, rn, rv, 1), 0);
    expect_json(&ev, "{\"tableName\":\"t\\\"1\\n\",\"eventType\":\"ON_TIME\",\"eventTime\":1,"
                     "\"triggerId\":\"2\",\"triggerType\":\"Period\",\"groupId\":\"3\","
                     "\"result\":{\"a\\\"b\":\"x\\u0001y\\ufffd\"}}");
    sl_notify_event_fini(&ev);
    /* The message's stream names too. */
    sl_notify_json_item it = {"q\"", 2, "{}", 2};
    sl_buf m = {0};
    assert_int_equal(sl_notify_json_message(&m, "id\\", 9, &it, 1), 0);
    sl_buf_put_u8(&m, 0);
    assert_string_equal((const char *)m.data, "{\"messageId\":\"id\\\\\",\"timestamp\":9,\"streams\":"
                                              "[{\"streamName\":\"q\\\"\",\"events\":[{}]}]}");
    sl_buf_fini(&m);
}

static void test_bad_events(void **state)
{
    sl_notify_event ev;
    sl_buf b = {0};
    sl_error err = {0};
    ev_base(&ev, "s", NULL, SL_NOTIFY_TRIG_PERIOD, SL_NOTIFY_EV_ON_TIME, 1, 2, 3);
    ev.ne_trigger = (sl_notify_trigger)99;
    assert_int_equal(sl_notify_json_event(&b, &ev, &err), SL_EINVAL);
    assert_int_equal(b.len, 0);
    ev.ne_trigger = SL_NOTIFY_TRIG_PERIOD;
    ev.ne_type = (sl_notify_event_type)-1;
    assert_int_equal(sl_notify_json_event(&b, &ev, NULL), SL_EINVAL);
    ev.ne_type = SL_NOTIFY_EV_ON_TIME;
    free(ev.ne_stream);
    ev.ne_stream = NULL;
    assert_int_equal(sl_notify_json_event(&b, &ev, NULL), SL_EINVAL);
    sl_notify_event_fini(&ev);
    const char *nn[] = {NULL};
    sl_value v = sl_value_int(SL_T_INT, 1);
    sl_notify_event_init(&ev);
    assert_int_equal(sl_notify_event_set_result(&ev, nn, &v, 1), SL_EINVAL);
    assert_int_equal(sl_notify_event_set_result(&ev, nn, &v, -1), SL_EINVAL);
    assert_false(ev.ne_has_result);
    sl_notify_trigger t;
    assert_int_equal(sl_notify_trigger_parse("INTERVAL", &t), 0);
    assert_int_equal(t, SL_NOTIFY_TRIG_INTERVAL);
    assert_int_equal(sl_notify_trigger_parse("SLIDING", &t), 0);
    assert_int_equal(t, SL_NOTIFY_TRIG_SLIDING);
    assert_int_equal(sl_notify_trigger_parse("Tumble", &t), SL_EINVAL);
    sl_buf_fini(&b);
}

/* sl_notify_event_from_trig copies everything: the engine's memory may change after. */
static void test_from_trig(void **state)
{
    char s1[] = "on", s2[] = "off", f1[] = "c1";
    sl_value prev[] = {sl_value_str(SL_T_VARCHAR, s1, 2)};
    sl_value cur[] = {sl_value_str(SL_T_VARCHAR, s2, 3)};
    const char *fnames[] = {f1};
    sl_value fvals[] = {sl_value_double(SL_T_DOUBLE, 2.5)};
    sl_trig_event te;
    memset(&te, 0, sizeof(te));
    te.type = SL_TRIG_EV_MAX_DELAY;
    te.flags = SL_TRIG_F_HISTORY;
    te.trigger_id = 555;
    te.group_id = 666;
    te.trigger_type = "State";
    te.event_time_ms = 1700000000123;
    te.wstart = 1700000000000000;
    te.wend = 1700000001000000;
    te.condition_index = -1;
    te.window_index = -1;
    te.nstate = 1;
    te.prev_state = prev;
    te.cur_state = cur;
    te.next_state = NULL;
    sl_notify_event ev;
    sl_error err = {0};
    assert_int_equal(sl_notify_event_from_trig(&ev, &te, "st", "db1", "out_t", SL_PREC_US, &err), 0);
    /* Scribble over the engine's memory. */
    memset(s1, 'X', 2);
    memset(s2, 'Y', 3);
    assert_int_equal(ev.ne_type, SL_NOTIFY_EV_WINDOW_CLOSE); /* MAX_DELAY notifies as close */
    assert_int_equal(ev.ne_precision, SL_PREC_US);
    assert_int_equal(ev.ne_flags, SL_TRIG_F_HISTORY);
    assert_string_equal(ev.ne_db, "db1");
    expect_json(&ev, "{\"tableName\":\"out_t\",\"eventType\":\"WINDOW_CLOSE\",\"eventTime\":"
                     "1700000000123,\"triggerId\":\"555\",\"triggerType\":\"State\",\"groupId\":"
                     "\"666\",\"windowStart\":1700000000000000,\"windowEnd\":1700000001000000,"
                     "\"curState\":[\"off\"],\"nextState\":null}");
    sl_notify_event_fini(&ev);

    /* An Event window's condition values, and an IDLE event. */
    memset(&te, 0, sizeof(te));
    te.type = SL_TRIG_EV_WINDOW_OPEN;
    te.trigger_type = "Event";
    te.wstart = 10;
    te.condition_index = 0;
    te.window_index = -1;
    te.nfields = 1;
    te.field_names = fnames;
    te.field_values = fvals;
    assert_int_equal(sl_notify_event_from_trig(&ev, &te, "st", NULL, NULL, SL_PREC_MS, &err), 0);
    f1[0] = 'Z';
    expect_json(&ev, "{\"eventType\":\"WINDOW_OPEN\",\"eventTime\":0,\"triggerId\":\"0\","
                     "\"triggerType\":\"Event\",\"groupId\":\"0\",\"windowStart\":10,"
                     "\"windowIndex\":-1,\"triggerCondition\":{\"conditionIndex\":0,"
                     "\"fieldValue\":{\"c1\":2.5}}}");
    sl_notify_event_fini(&ev);

    memset(&te, 0, sizeof(te));
    te.type = SL_TRIG_EV_RESUME;
    te.trigger_type = "Session";
    te.idle_start_ns = 1;
    te.idle_end_ns = 2000001;
    te.idle_duration_ms = 2;
    assert_int_equal(sl_notify_event_from_trig(&ev, &te, "st", NULL, NULL, SL_PREC_MS, &err), 0);
    expect_json(&ev, "{\"eventType\":\"RESUME\",\"eventTime\":0,\"triggerId\":\"0\","
                     "\"triggerType\":\"Session\",\"groupId\":\"0\",\"idleStart\":1,"
                     "\"idleEnd\":2000001,\"idleDurationMs\":2}");
    sl_notify_event_fini(&ev);

    /* Refusals. */
    te.trigger_type = "Bogus";
    assert_int_equal(sl_notify_event_from_trig(&ev, &te, "st", NULL, NULL, SL_PREC_MS, &err),
                     SL_EINVAL);
    sl_notify_event_fini(&ev);
    te.trigger_type = "Period";
    te.type = (sl_trig_event_type)42;
    assert_int_equal(sl_notify_event_from_trig(&ev, &te, "st", NULL, NULL, SL_PREC_MS, NULL),
                     SL_EINVAL);
    sl_notify_event_fini(&ev);
    te.type = SL_TRIG_EV_ON_TIME;
    assert_int_equal(sl_notify_event_from_trig(&ev, &te, "", NULL, NULL, SL_PREC_MS, NULL),
                     SL_EINVAL);
    sl_notify_event_fini(&ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interval),       cmocka_unit_test(test_event_window),
        cmocka_unit_test(test_message_spec_example), cmocka_unit_test(test_state_window),
        cmocka_unit_test(test_session_count),  cmocka_unit_test(test_on_time),
        cmocka_unit_test(test_idle_resume),    cmocka_unit_test(test_invalidation),
        cmocka_unit_test(test_values),         cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_bad_events),     cmocka_unit_test(test_from_trig),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
