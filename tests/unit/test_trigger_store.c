/*
 * test_trigger_store.c - bounded memory: the hot set of a RocksDB-backed engine never
 * holds more than max_hot_groups decoded groups, an idle group costs only its directory
 * entry (well under 256 bytes), the kv-backed engine emits exactly the events of the
 * in-memory one, and a checkpoint of the kv-backed engine restores into an in-memory one
 * (and back) and continues identically.
 */
#define _GNU_SOURCE /* mkdtemp */
#include "test_trigger_util.h"

#define NGROUPS 20000

static const char *SQL = "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 PARTITION BY tbname "
                         "STREAM_OPTIONS(EVENT_TYPE(WINDOW_OPEN|WINDOW_CLOSE)|MAX_DELAY(3s))";

static void feed_round(th *h, int round)
{
    for (int g = 1; g <= NGROUPS; g++) {
        trow r = {.ts = 10 + round * 50 + g % 7, .v = 1};
        th_feed(h, (uint64_t)g, &r, 1);
    }
}

static void spill_bounded(void **state)
{
    char dir[] = "/tmp/sl_trig_store_XXXXXX";
    sl_kv *db = trig_kv_open(dir);
    sl_error err;

    th mem, kv;
    memset(&mem, 0, sizeof mem);
    memset(&kv, 0, sizeof kv);
    th_open_opts(&mem, SQL, SL_PREC_MS, NULL);
    sl_trig_opts ko = {.kv = db, .cf = sl_kv_cf_get(db, "trig"), .max_hot_groups = 64};
    th_open_opts(&kv, SQL, SL_PREC_MS, &ko);
    for (int round = 0; round < 4; round++) {
        feed_round(&mem, round);
        feed_round(&kv, round);
        sl_trig_stats st;
        sl_trig_get_stats(kv.t, &st);
        assert_true(st.hot_groups <= 64);
        assert_int_equal(st.groups, NGROUPS);
        assert_true(st.dir_bytes / st.groups < 256);
    }
    /* MAX_DELAY ticks reach spilled groups */
    mem.mono = kv.mono = 3000000000LL;
    th_tick(&mem);
    th_tick(&kv);
    assert_int_equal(mem.log.len, kv.log.len);
    assert_memory_equal(mem.log.data, kv.log.data, mem.log.len);
    assert_true(mem.nevents > 3 * NGROUPS);

    /* kv -> checkpoint -> in-memory engine, and continue both */
    sl_buf ck = {0};
    assert_int_equal(sl_trig_checkpoint(kv.t, &ck, &err), 0);
    th mem2;
    memset(&mem2, 0, sizeof mem2);
    mem2.mono = kv.mono;
    th_open_opts(&mem2, SQL, SL_PREC_MS, NULL);
    assert_int_equal(sl_trig_restore(mem2.t, ck.data, ck.len, &err), 0);
    sl_buf_reset(&mem.log);
    sl_buf_reset(&mem2.log);
    feed_round(&mem, 4);
    feed_round(&mem2, 4);
    assert_int_equal(mem.log.len, mem2.log.len);
    assert_memory_equal(mem.log.data, mem2.log.data, mem.log.len);
    /* and an in-memory checkpoint restores into the kv-backed engine */
    sl_buf_reset(&ck);
    assert_int_equal(sl_trig_checkpoint(mem2.t, &ck, &err), 0);
    assert_int_equal(sl_trig_restore(kv.t, ck.data, ck.len, &err), 0);
    sl_trig_stats st;
    sl_trig_get_stats(kv.t, &st);
    assert_true(st.hot_groups <= 64);
    sl_buf_reset(&kv.log);
    sl_buf_reset(&mem.log);
    feed_round(&mem, 5);
    feed_round(&kv, 5);
    assert_int_equal(mem.log.len, kv.log.len);
    assert_memory_equal(mem.log.data, kv.log.data, mem.log.len);

    sl_buf_fini(&ck);
    th_close(&mem);
    th_close(&mem2);
    th_close(&kv);
    trig_kv_remove(db, dir);
}

static void next_tick(void **state)
{
    th h;
    const int64_t S = 1000000000LL;
    h.wall = h.mono = 50 * S;
    th_open_opts(&h, "CREATE STREAM s SESSION(ts, 5s) FROM t1 PARTITION BY tbname "
                     "STREAM_OPTIONS(IDLE_TIMEOUT(10s)|EVENT_TYPE(IDLE))",
                 SL_PREC_MS, NULL);
    assert_int_equal(sl_trig_next_tick_ns(h.t), INT64_MAX);
    th_ts(&h, 1, 1, (int64_t)1);
    h.mono = 52 * S;
    th_ts(&h, 2, 1, (int64_t)1);
    assert_int_equal(sl_trig_next_tick_ns(h.t), 60 * S + 1);
    h.mono = h.wall = 60 * S + 1;
    th_tick(&h);
    th_expect(&h, "IDLE 50 60.000 10000ms g1\n");
    assert_int_equal(sl_trig_next_tick_ns(h.t), 62 * S + 1);
    th_close(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spill_bounded),
        cmocka_unit_test(next_tick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
