/*
 * test_trigger_refuse.c - what the trigger engine refuses: bad trigger definitions passed
 * to sl_trig_def_build directly (without sl_stream_check in front), bad input blocks, and
 * corrupt or foreign checkpoints. Every refusal must return the error code with a message
 * naming the rule, and leave the engine exactly as it was.
 */
#include "test_trigger_util.h"

#include <xxhash.h>

typedef struct bad {
    const char *sql;
    int code;
    const char *msg; /* substring of the message */
} bad;

static void bad_definitions(void **state)
{
    static const bad cases[] = {
        {"CREATE STREAM s PERIOD(0s)", SL_EINVAL, "PERIOD period must be positive"},
        {"CREATE STREAM s PERIOD(5a)", SL_EINVAL, "PERIOD must be within [10a, 3650d]"},
        {"CREATE STREAM s PERIOD(3651d)", SL_EINVAL, "PERIOD must be within [10a, 3650d]"},
        {"CREATE STREAM s PERIOD(1n, 28d)", SL_EINVAL, "offset must be shorter than the period"},
        {"CREATE STREAM s PERIOD(1w, 7d)", SL_EINVAL, "offset must be shorter than the period"},
        {"CREATE STREAM s PERIOD(1h, 1n)", SL_EINVAL, "offset must be a non-negative duration"},
        {"CREATE STREAM s PERIOD(1h) FROM t1 STREAM_OPTIONS(FILL_HISTORY)", SL_EINVAL,
         "FILL_HISTORY is not supported with PERIOD"},
        {"CREATE STREAM s INTERVAL(0s) SLIDING(0s) FROM t1", SL_EINVAL,
         "INTERVAL must be positive"},
        {"CREATE STREAM s INTERVAL(10s) SLIDING(20s) FROM t1", SL_EINVAL,
         "SLIDING must be positive and not longer than INTERVAL"},
        {"CREATE STREAM s INTERVAL(10s, 10s) SLIDING(10s) FROM t1", SL_EINVAL,
         "INTERVAL offset must be shorter than the interval"},
        {"CREATE STREAM s INTERVAL(1n) SLIDING(2n) FROM t1", SL_EINVAL,
         "not longer than INTERVAL (a month counts as 28 days"},
        {"CREATE STREAM s INTERVAL(1n) SLIDING(29d) FROM t1", SL_EINVAL,
         "not longer than INTERVAL"},
        {"CREATE STREAM s INTERVAL(1y, 1n) SLIDING(1n) FROM t1", SL_EUNSUPPORTED,
         "INTERVAL offset in months or years is not supported"},
        {"CREATE STREAM s INTERVAL(1n, 28d) SLIDING(1n) FROM t1", SL_EINVAL,
         "INTERVAL offset must be shorter than the interval"},
        {"CREATE STREAM s INTERVAL(1u) SLIDING(1u) FROM t1", SL_ERANGE,
         "cannot be expressed in the database precision"},
        {"CREATE STREAM s SESSION(ts, 0s) FROM t1", SL_EINVAL, "SESSION gap must be positive"},
        {"CREATE STREAM s SESSION(v, 5s) FROM t1", SL_EINVAL,
         "SESSION needs the primary key column ts, not v"},
        {"CREATE STREAM s COUNT_WINDOW(0) FROM t1", SL_EINVAL,
         "COUNT_WINDOW count must be at least 1"},
        {"CREATE STREAM s COUNT_WINDOW(3, 5) FROM t1", SL_EINVAL,
         "COUNT_WINDOW sliding must be within [1, count]"},
        {"CREATE STREAM s COUNT_WINDOW(3, 1, nosuch) FROM t1", SL_EINVAL,
         "COUNT_WINDOW trigger column nosuch is not a regular column"},
        {"CREATE STREAM s COUNT_WINDOW(3, 1, tg) FROM t1", SL_EINVAL,
         "COUNT_WINDOW trigger column tg is not a regular column"},
        {"CREATE STREAM s COUNT_WINDOW(3) FROM t1 STREAM_OPTIONS(DELETE_RECALC)", SL_EINVAL,
         "DELETE_RECALC is only supported on count windows whose sliding step is 1"},
        {"CREATE STREAM s SLIDING(1m) FROM t1 STREAM_OPTIONS(PRE_FILTER(v + 1))", SL_ETYPE,
         "PRE_FILTER must be a boolean condition"},
        {"CREATE STREAM s SLIDING(1m) FROM t1 STREAM_OPTIONS(PRE_FILTER(nosuch > 1))",
         SL_ENOTFOUND, "unknown column \"nosuch\""},
        {"CREATE STREAM s SLIDING(1m) FROM t1 STREAM_OPTIONS(WATERMARK(1s)|WATERMARK(2s))",
         SL_EINVAL, "option WATERMARK given twice"},
        {"CREATE STREAM s SESSION(ts, 1s) FROM t1 STREAM_OPTIONS(MAX_DELAY(1s))", SL_EINVAL,
         "MAX_DELAY must be at least 3s"},
        {"CREATE STREAM s SESSION(ts, 1s) FROM t1 STREAM_OPTIONS(IDLE_TIMEOUT(500a)|"
         "EVENT_TYPE(IDLE))",
         SL_EINVAL, "IDLE_TIMEOUT must be within [1s, 10d]"},
        {"CREATE STREAM s SESSION(ts, 1s) FROM t1 STREAM_OPTIONS(EVENT_TYPE(IDLE))", SL_EINVAL,
         "EVENT_TYPE IDLE/RESUME requires IDLE_TIMEOUT"},
        {"CREATE STREAM s SESSION(ts, 1s) FROM t1 STREAM_OPTIONS(FILL_HISTORY|FILL_HISTORY_FIRST)",
         SL_EINVAL, "FILL_HISTORY and FILL_HISTORY_FIRST cannot be combined"},
        {"CREATE STREAM s SESSION(ts, 1s) FROM t1 STREAM_OPTIONS(FILL_HISTORY('garbage'))",
         SL_ETYPE, "FILL_HISTORY start is not a valid time"},
        {"CREATE STREAM s SESSION(ts, 1s) FROM t1 STREAM_OPTIONS(WATERMARK(1n))",
         SL_EUNSUPPORTED, "WATERMARK in months or years"},
        {"CREATE STREAM s SLIDING(1m)", SL_EINVAL, "needs a trigger table"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        th h;
        sl_error err;
        int rc = th_build(&h, cases[i].sql, SL_PREC_MS, &err);
        if (rc != cases[i].code || !strstr(err.msg, cases[i].msg))
            fail_msg("%s: got %d \"%s\", want %d \"%s\"", cases[i].sql, rc, err.msg,
                     cases[i].code, cases[i].msg);
        assert_null(h.def);
        sl_parse_result_free(h.pr);
    }
}

static void bad_ast(void **state)
{
    th h;
    sl_error err;
    assert_int_equal(th_build(&h, "CREATE STREAM s SESSION(ts, 1s) FROM t1", SL_PREC_MS, &err), 0);
    sl_trig_def_free(h.def);
    sl_create_stream *cs = &h.pr->stmts[0]->u.create_stream;
    sl_trig_def *d = NULL;
    sl_trig_def_opts o = {.table = &th_meta, .precision = SL_PREC_MS};
    cs->trigger.kind = (sl_trigger_kind)99;
    assert_int_equal(sl_trig_def_build(cs, &o, &d, &err), SL_EINVAL);
    assert_non_null(strstr(err.msg, "unknown trigger type"));
    cs->trigger.kind = SL_TRIG_SESSION;
    o.precision = (sl_precision)7;
    sl_error_clear(&err);
    assert_int_equal(sl_trig_def_build(cs, &o, &d, &err), SL_EINVAL);
    o.precision = SL_PREC_MS;
    o.tz_offset_sec = 90000;
    sl_error_clear(&err);
    assert_int_equal(sl_trig_def_build(cs, &o, &d, &err), SL_EINVAL);
    o.tz_offset_sec = 0;
    sl_field nots[] = {{"x", SL_T_INT, 0}};
    sl_table_meta m = {SL_TABLE_NORMAL, "db", "x", SL_PREC_MS, 1, nots, 0, NULL};
    o.table = &m;
    sl_error_clear(&err);
    assert_int_equal(sl_trig_def_build(cs, &o, &d, &err), SL_EINVAL);
    assert_non_null(strstr(err.msg, "TIMESTAMP key"));
    assert_null(d);
    sl_parse_result_free(h.pr);
}

static void bad_input(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 "
                "STREAM_OPTIONS(PRE_FILTER(tg > 0))");
    assert_int_equal(sl_trig_def_min_columns(h.def), 4);
    sl_block b;
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
    sl_column_append_i64(&b.cols[0], 1000);
    sl_block_seal(&b);
    sl_trig_input in = {.group_id = 1, .rows = &b};
    sl_trig_sink s = th_sink(&h);
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_trig_feed(h.t, &in, &s, &err), SL_EINVAL);
    assert_non_null(strstr(err.msg, "at least 4 columns"));
    sl_block_fini(&b);
    /* a bad row kind: nothing of the block is applied */
    h.tag = 1;
    trow r[] = {{.ts = 10}, {.ts = 20, .kind = 7}};
    sl_error_clear(&err);
    assert_int_equal(th_feed_raw(&h, 1, r, 2, false, &err), SL_EINVAL);
    assert_non_null(strstr(err.msg, "bad kind"));
    sl_trig_stats st;
    sl_trig_get_stats(h.t, &st);
    assert_int_equal(st.rows_in, 0);
    assert_int_equal(st.groups, 1); /* the single group of a stream without PARTITION BY */
    assert_int_equal(st.hot_groups, 0);
    sl_error_clear(&err);
    assert_int_equal(sl_trig_delete_range(h.t, 1, 5, 4, &s, &err), SL_EINVAL);
    th_close(&h);
}

/* Feeds a fixed script; returns the events as text. */
static void script(th *h, int from, int to)
{
    static const int64_t ts[] = {10, 20, 70, 30, 130, 125, 190, 15, 250, 400};
    for (int i = from; i < to; i++) {
        trow r = {.ts = ts[i], .v = 1};
        th_feed(h, (uint64_t)(i % 2 + 1), &r, 1);
    }
}

static void corrupt_checkpoints(void **state)
{
    const char *sql = "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 PARTITION BY tbname "
                      "STREAM_OPTIONS(EVENT_TYPE(WINDOW_OPEN|WINDOW_CLOSE))";
    th ref, h;
    th_open(&ref, sql);
    script(&ref, 0, 10);
    th_open(&h, sql);
    script(&h, 0, 5);
    sl_buf ck = {0};
    sl_error err;
    assert_int_equal(sl_trig_checkpoint(h.t, &ck, &err), 0);
    /* the engine h now holds state after 5 rows; a second engine holds other state */
    th o;
    th_open(&o, sql);
    script(&o, 0, 2);
    sl_buf ock = {0};
    assert_int_equal(sl_trig_checkpoint(o.t, &ock, &err), 0);
    /* every truncation and every single-bit flip is refused and changes nothing */
    for (size_t n = 0; n < ck.len; n++) {
        sl_error_clear(&err);
        int rc = sl_trig_restore(o.t, ck.data, n, &err);
        assert_true(rc == SL_ECORRUPT);
        assert_true(err.msg[0] != 0);
    }
    for (size_t i = 0; i < ck.len; i++) {
        for (int bit = 0; bit < 8; bit += 3) {
            ck.data[i] ^= (uint8_t)(1u << bit);
            sl_error_clear(&err);
            assert_int_not_equal(sl_trig_restore(o.t, ck.data, ck.len, &err), 0);
            ck.data[i] ^= (uint8_t)(1u << bit);
        }
    }
    /* garbage with a valid checksum: the structure checks catch it */
    for (size_t i = 28; i + 8 < ck.len; i += 3) {
        uint8_t save = ck.data[i];
        ck.data[i] = 0xff;
        uint64_t sum = XXH3_64bits(ck.data, ck.len - 8);
        uint8_t old[8];
        memcpy(old, ck.data + ck.len - 8, 8);
        for (int j = 0; j < 8; j++)
            ck.data[ck.len - 8 + j] = (uint8_t)(sum >> (8 * j));
        sl_error_clear(&err);
        int rc = sl_trig_restore(o.t, ck.data, ck.len, &err);
        if (rc == 0) {
            /* the byte happened to decode validly: put o back */
            assert_int_equal(sl_trig_restore(o.t, ock.data, ock.len, &err), 0);
        }
        memcpy(ck.data + ck.len - 8, old, 8);
        ck.data[i] = save;
    }
    /* o is unchanged: continuing it equals a fresh run of the same rows */
    sl_buf_reset(&o.log);
    script(&o, 2, 10);
    th r2;
    th_open(&r2, sql);
    script(&r2, 0, 10);
    const char *a = (const char *)ref.log.data;
    const char *b = (const char *)o.log.data;
    /* o's log holds only the events after row 2: they are the tail of ref's */
    size_t la = ref.log.len, lb = o.log.len;
    assert_true(lb <= la);
    assert_memory_equal(a + la - lb, b, lb);
    /* a checkpoint of another definition is refused */
    th x;
    th_open(&x, "CREATE STREAM s INTERVAL(30s) SLIDING(30s) FROM t1 PARTITION BY tbname");
    sl_error_clear(&err);
    assert_int_equal(sl_trig_restore(x.t, ck.data, ck.len, &err), SL_EINVAL);
    assert_non_null(strstr(err.msg, "different trigger definition"));
    /* the intact checkpoint restores and continues like the uninterrupted run */
    assert_int_equal(sl_trig_restore(x.t, ck.data, ck.len, &err), SL_EINVAL);
    assert_int_equal(sl_trig_restore(o.t, ck.data, ck.len, &err), 0);
    sl_buf_reset(&o.log);
    script(&o, 5, 10);
    sl_buf_reset(&h.log);
    script(&h, 5, 10);
    assert_int_equal(o.log.len, h.log.len);
    assert_memory_equal(o.log.data, h.log.data, h.log.len);
    sl_buf_fini(&ck);
    sl_buf_fini(&ock);
    th_close(&ref);
    th_close(&h);
    th_close(&o);
    th_close(&r2);
    th_close(&x);
}

/* Feeds rows lo..hi-1 (v = i % 3, w = i % 2, one per block) to h. */
static void fp_rows(th *h, int lo, int hi)
{
    for (int i = lo; i < hi; i++) {
        trow r = {.ts = i, .v = i % 3, .w = i % 2};
        th_feed(h, 0, &r, 1);
    }
}

/* The fingerprint covers every kind's parameters and the options that shape state: a
 * checkpoint of one definition is refused by any other, with a clear message, and the
 * refusing engine is unchanged; definitions that differ only in spelling accept it. */
static void foreign_definitions(void **st)
{
    (void)st;
#define P " FROM t1 PARTITION BY tbname"
    static const char *const pairs[][2] = {
        {"CREATE STREAM s STATE_WINDOW(v)" P, "CREATE STREAM s STATE_WINDOW(w)" P},
        {"CREATE STREAM s STATE_WINDOW(v)" P, "CREATE STREAM s STATE_WINDOW(v + 1)" P},
        {"CREATE STREAM s STATE_WINDOW(v)" P, "CREATE STREAM s STATE_WINDOW(v, w)" P},
        {"CREATE STREAM s STATE_WINDOW(v)" P, "CREATE STREAM s STATE_WINDOW(v) EXTEND(1)" P},
        {"CREATE STREAM s STATE_WINDOW(v) EXTEND(1)" P,
         "CREATE STREAM s STATE_WINDOW(v) EXTEND(2)" P},
        {"CREATE STREAM s STATE_WINDOW(v)" P, "CREATE STREAM s STATE_WINDOW(v) ZEROTH_STATE(0)" P},
        {"CREATE STREAM s STATE_WINDOW(v) ZEROTH_STATE(0)" P,
         "CREATE STREAM s STATE_WINDOW(v) ZEROTH_STATE(1)" P},
        {"CREATE STREAM s STATE_WINDOW(v)" P, "CREATE STREAM s STATE_WINDOW(v) TRUE_FOR(2s)" P},
        {"CREATE STREAM s STATE_WINDOW(v) TRUE_FOR(2s)" P,
         "CREATE STREAM s STATE_WINDOW(v) TRUE_FOR(COUNT 2)" P},
        {"CREATE STREAM s EVENT_WINDOW(START WITH v > 1 END WITH v < 1)" P,
         "CREATE STREAM s EVENT_WINDOW(START WITH v > 0 END WITH v < 1)" P},
        {"CREATE STREAM s EVENT_WINDOW(START WITH v > 1 END WITH v < 1)" P,
         "CREATE STREAM s EVENT_WINDOW(START WITH v > 1 END WITH w < 1)" P},
        {"CREATE STREAM s EVENT_WINDOW(START WITH v > 1 END WITH v < 1)" P,
         "CREATE STREAM s EVENT_WINDOW(START WITH v > 1 END WITH v < 1) TRUE_FOR(2s)" P},
        {"CREATE STREAM s EVENT_WINDOW(START WITH (v > 1, w > 0))" P,
         "CREATE STREAM s EVENT_WINDOW(START WITH (w > 0, v > 1))" P},
        {"CREATE STREAM s COUNT_WINDOW(3, 1, v)" P, "CREATE STREAM s COUNT_WINDOW(3, 1, w)" P},
        {"CREATE STREAM s SESSION(ts, 2s)" P,
         "CREATE STREAM s SESSION(ts, 2s)" P " STREAM_OPTIONS(PRE_FILTER(v > 0))"},
        {"CREATE STREAM s SESSION(ts, 2s)" P " STREAM_OPTIONS(PRE_FILTER(v > 0))",
         "CREATE STREAM s SESSION(ts, 2s)" P " STREAM_OPTIONS(PRE_FILTER(v > 1))"},
        {"CREATE STREAM s INTERVAL(1n) SLIDING(1n)" P, "CREATE STREAM s INTERVAL(1y) SLIDING(1n)" P},
    };
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        th a, b, ref;
        th_open(&a, pairs[k][0]);
        th_open(&b, pairs[k][1]);
        th_open(&ref, pairs[k][1]);
        fp_rows(&a, 0, 6);
        fp_rows(&b, 0, 6);
        fp_rows(&ref, 0, 6);
        sl_buf ck = {0};
        sl_error err;
        assert_int_equal(sl_trig_checkpoint(a.t, &ck, &err), 0);
        sl_error_clear(&err);
        int rc = sl_trig_restore(b.t, ck.data, ck.len, &err);
        if (rc != SL_EINVAL || !strstr(err.msg, "different trigger definition"))
            fail_msg("checkpoint of \"%s\" restored into \"%s\": rc %d \"%s\"", pairs[k][0],
                     pairs[k][1], rc, err.msg);
        /* b is unchanged: it continues exactly like ref. */
        fp_rows(&b, 6, 12);
        fp_rows(&ref, 6, 12);
        assert_int_equal(b.log.len, ref.log.len);
        if (b.log.len)
            assert_memory_equal(b.log.data, ref.log.data, b.log.len);
        sl_buf_fini(&ck);
        th_close(&a);
        th_close(&b);
        th_close(&ref);
    }
    /* Same definition, other spelling: accepted. */
    static const char *const same[][2] = {
        {"CREATE STREAM s STATE_WINDOW(v) EXTEND(1)" P,
         "create stream s state_window( V ) extend(1) from t1 partition by tbname"},
        {"CREATE STREAM s EVENT_WINDOW(START WITH v > 1 END WITH v < 1)" P,
         "CREATE STREAM s EVENT_WINDOW(START WITH V>1 END WITH V<1)" P},
    };
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
        th a, b;
        th_open(&a, same[k][0]);
        th_open(&b, same[k][1]);
        fp_rows(&a, 0, 6);
        sl_buf ck = {0};
        sl_error err;
        assert_int_equal(sl_trig_checkpoint(a.t, &ck, &err), 0);
        if (sl_trig_restore(b.t, ck.data, ck.len, &err) != 0)
            fail_msg("\"%s\" refused a checkpoint of \"%s\": %s", same[k][1], same[k][0],
                     err.msg);
        sl_buf_reset(&a.log);
        fp_rows(&a, 6, 12);
        fp_rows(&b, 6, 12);
        assert_int_equal(a.log.len, b.log.len);
        if (a.log.len)
            assert_memory_equal(a.log.data, b.log.data, a.log.len);
        sl_buf_fini(&ck);
        th_close(&a);
        th_close(&b);
    }
#undef P
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_definitions),
        cmocka_unit_test(bad_ast),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(corrupt_checkpoints),
        cmocka_unit_test(foreign_definitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
