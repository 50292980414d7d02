/*
 * test_trigger_interval.c - INTERVAL/SLIDING triggers of the trigger engine and the
 * options that apply to them: hand-written rows and the exact events the spec and
 * semantics.md (rules 1, 2, 3, 8) call for. Times in the expectations are seconds.
 */
#define _GNU_SOURCE /* timegm */
#include <time.h>

#include "test_trigger_util.h"

#define OC "EVENT_TYPE(WINDOW_OPEN|WINDOW_CLOSE)"

static void tumbling_close_only(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1");
    th_ts(&h, 0, 2, (int64_t)10, (int64_t)20);
    th_expect(&h, "");
    th_ts(&h, 0, 1, (int64_t)70);
    th_expect(&h, "CLOSE 0 60 2\n");
    th_close(&h);
}

static void tumbling_open_close(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 STREAM_OPTIONS(" OC ")");
    th_ts(&h, 0, 2, (int64_t)10, (int64_t)20);
    th_expect(&h, "OPEN 0\n");
    th_ts(&h, 0, 1, (int64_t)70);
    th_expect(&h, "CLOSE 0 60 2\nOPEN 60\n");
    /* open and close of one window share the trigger id; the next window has another */
    assert_int_equal(h.ids[0], h.ids[1]);
    assert_true(h.ids[2] != h.ids[1]);
    assert_int_equal(h.ids[0], sl_trig_id(7, 0, 0, SL_TRIG_IDC_WINDOW, -1));
    th_close(&h);
}

/* Rule 8: windows between data with no rows still trigger (flagged NO_DATA). */
static void empty_windows(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 STREAM_OPTIONS(" OC ")");
    th_ts(&h, 0, 2, (int64_t)10, (int64_t)200);
    th_expect(&h, "OPEN 0\nCLOSE 0 60 1\nOPEN 60\nCLOSE 60 120 0\nOPEN 120\nCLOSE 120 180 0\n"
                  "OPEN 180\n");
    assert_true(h.flags[3] & SL_TRIG_F_NO_DATA);
    assert_false(h.flags[1] & SL_TRIG_F_NO_DATA);
    th_close(&h);
}

static void ignore_nodata(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 STREAM_OPTIONS(" OC
                "|IGNORE_NODATA_TRIGGER)");
    th_ts(&h, 0, 2, (int64_t)10, (int64_t)200);
    th_expect(&h, "OPEN 0\nCLOSE 0 60 1\nOPEN 180\n");
    /* a late row in an empty, already closed window: it now has data */
    th_ts(&h, 0, 1, (int64_t)70);
    th_expect(&h, "OPEN 60\nCLOSE 60 120 1\n");
    th_close(&h);
}

/* A row exactly on a boundary belongs to the next window and closes the previous one. */
static void edge_exact(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1");
    trow r[] = {{.ts = 0}, {.ts = 59999}, {.ts = 60000}, {.ts = 119999}};
    sl_error err;
    for (int i = 0; i < 2; i++)
        assert_int_equal(th_feed_raw(&h, 0, &r[i], 1, true, &err), 0);
    th_expect(&h, "");
    assert_int_equal(th_feed_raw(&h, 0, &r[2], 1, true, &err), 0);
    th_expect(&h, "CLOSE 0 60 2\n");
    assert_int_equal(th_feed_raw(&h, 0, &r[3], 1, true, &err), 0);
    th_expect(&h, "");
    th_close(&h);
}

static void sliding_overlap(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(30s) FROM t1 STREAM_OPTIONS(" OC ")");
    th_ts(&h, 0, 1, (int64_t)10);
    th_expect(&h, "OPEN -30\nOPEN 0\n");
    th_ts(&h, 0, 1, (int64_t)65);
    th_expect(&h, "CLOSE -30 30 1\nOPEN 30\nCLOSE 0 60 1\nOPEN 60\n");
    th_ts(&h, 0, 1, (int64_t)90);
    th_expect(&h, "CLOSE 30 90 1\nOPEN 90\n");
    th_close(&h);
}

static void offsets(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s, 10s) SLIDING(60s) FROM t1");
    th_ts(&h, 0, 3, (int64_t)5, (int64_t)15, (int64_t)75);
    th_expect(&h, "CLOSE -50 10 1\nCLOSE 10 70 1\n");
    th_close(&h);
}

/* Rule 2 with WATERMARK(10s): a window closes once max ts - 10s reaches its end. */
static void watermark(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 "
                "STREAM_OPTIONS(WATERMARK(10s))");
    th_ts(&h, 0, 2, (int64_t)10, (int64_t)65);
    th_expect(&h, "");
    /* inside the watermark: still in order, counts in [0,60) */
    th_ts(&h, 0, 1, (int64_t)50);
    th_expect(&h, "");
    th_ts(&h, 0, 1, (int64_t)71);
    th_expect(&h, "CLOSE 0 60 2\n");
    th_close(&h);
}

static void out_of_order_and_updates(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1");
    th_ts(&h, 0, 3, (int64_t)10, (int64_t)70, (int64_t)130);
    th_expect(&h, "CLOSE 0 60 1\nCLOSE 60 120 1\n");
    th_ts(&h, 0, 1, (int64_t)20);
    th_expect(&h, "INV 0 60 1\nCLOSE 0 60 2\n");
    assert_int_equal(h.ids[2], h.ids[3]);
    assert_int_equal(h.ids[2], h.ids[0]);
    assert_true(h.flags[2] & SL_TRIG_F_RECALC);
    assert_true(h.flags[3] & SL_TRIG_F_RECALC);
    /* late row in the open window: nothing to invalidate */
    th_ts(&h, 0, 1, (int64_t)125);
    th_expect(&h, "");
    /* an update of an emitted window: same bounds and count, new result */
    trow u = {.ts = 70, .v = 5, .kind = SL_TRIG_ROW_UPDATE};
    th_feed(&h, 0, &u, 1);
    th_expect(&h, "INV 60 120 1\nCLOSE 60 120 1\n");
    /* a duplicate insert is an update */
    th_ts(&h, 0, 1, (int64_t)10);
    th_expect(&h, "INV 0 60 2\nCLOSE 0 60 2\n");
    th_ts(&h, 0, 1, (int64_t)190);
    th_expect(&h, "CLOSE 120 180 2\n");
    th_close(&h);
}

static void ignore_disorder(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 "
                "STREAM_OPTIONS(IGNORE_DISORDER)");
    th_ts(&h, 0, 3, (int64_t)10, (int64_t)70, (int64_t)20);
    th_expect(&h, "CLOSE 0 60 1\n");
    trow u = {.ts = 10, .v = 5, .kind = SL_TRIG_ROW_UPDATE};
    th_feed(&h, 0, &u, 1);
    th_ts(&h, 0, 1, (int64_t)130);
    th_expect(&h, "CLOSE 60 120 1\n");
    th_close(&h);
}

/*
 * A group spanning tables (here PARTITION BY a tag; also ROLLUP BY, or no grouping over a
 * super table): rows of two tables at one timestamp are two rows, and a delete in one
 * table (sl_trig_delete_table_range) takes only that table's rows. Before, the row log
 * kept one row per timestamp: the second table's row at 20 was taken for an update of the
 * first's (a window of 4 rows counted 3), and deleting table a's rows in [0,100] also
 * dropped b's rows at 20 from the log, so a later delete of b's row at 20 found nothing
 * and recomputed nothing (a stale result of a ROLLUP BY parent node, end to end).
 */
static void tables_of_one_group(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 PARTITION BY tg "
                "STREAM_OPTIONS(DELETE_RECALC)");
    th_feed_tb(&h, 5, "a", 2, (int64_t)10, (int64_t)20);
    th_feed_tb(&h, 5, "b", 2, (int64_t)20, (int64_t)30);
    /* a again at 20: the same row of a (an update), not a third row at 20 */
    th_feed_tb(&h, 5, "a", 1, (int64_t)20);
    th_expect(&h, "");
    th_feed_tb(&h, 5, "a", 1, (int64_t)70);
    th_expect(&h, "CLOSE 0 60 4 g5\n");
    th_feed_tb(&h, 5, "b", 1, (int64_t)130);
    th_expect(&h, "CLOSE 60 120 1 g5\n");
    /* a late row of b at 20 is an update of b's row, a late row of c there a new row */
    th_feed_tb(&h, 5, "b", 1, (int64_t)20);
    th_expect(&h, "INV 0 60 4 g5\nCLOSE 0 60 4 g5\n");
    th_feed_tb(&h, 5, "c", 1, (int64_t)20);
    th_expect(&h, "INV 0 60 4 g5\nCLOSE 0 60 5 g5\n");
    /* DELETE FROM a in [0, 100]: b's and c's rows stay, also those at 20 */
    th_del_tb(&h, 5, "a", 0, 100);
    th_expect(&h, "INV 0 60 5 g5\nCLOSE 0 60 3 g5\nINV 60 120 1 g5\nCLOSE 60 120 0 g5\n");
    th_del_tb(&h, 5, "a", 0, 100); /* nothing of a left there */
    th_expect(&h, "");
    th_del_tb(&h, 5, "b", 20, 20);
    th_expect(&h, "INV 0 60 3 g5\nCLOSE 0 60 2 g5\n");
    /* a per-row delete of c's row at 20 (the change log's row kinds) */
    th_feed_tb(&h, 5, "c", 1, (int64_t)-20);
    th_expect(&h, "INV 0 60 2 g5\nCLOSE 0 60 1 g5\n");
    /* sl_trig_delete_range takes every table's rows */
    th_del(&h, 5, 0, 59);
    th_expect(&h, "INV 0 60 1 g5\nCLOSE 0 60 0 g5\n");
    th_close(&h);

    /* Pending rows (WATERMARK) of two tables at one timestamp; a table's delete takes its
     * pending row only. */
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 PARTITION BY tg "
                "STREAM_OPTIONS(WATERMARK(30s)|DELETE_RECALC)");
    th_feed_tb(&h, 5, "a", 2, (int64_t)10, (int64_t)50);
    th_feed_tb(&h, 5, "b", 1, (int64_t)50);
    th_del_tb(&h, 5, "a", 50, 50);
    th_feed_tb(&h, 5, "a", 1, (int64_t)95);
    th_expect(&h, "CLOSE 0 60 2 g5\n");
    th_close(&h);

    /* Without the tbname column rows are one per timestamp, as before. */
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 PARTITION BY tg");
    th_ts(&h, 5, 4, (int64_t)10, (int64_t)20, (int64_t)20, (int64_t)70);
    th_expect(&h, "CLOSE 0 60 2 g5\n");
    th_close(&h);
}

/* The checkpoint keeps the rows of several tables at one timestamp and which table each
 * row belongs to. */
static void tables_of_one_group_checkpoint(void **state)
{
    const char *sql = "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 PARTITION BY tg "
                      "STREAM_OPTIONS(DELETE_RECALC)";
    th h;
    th_open(&h, sql);
    th_feed_tb(&h, 5, "a", 2, (int64_t)10, (int64_t)20);
    th_feed_tb(&h, 5, "b", 1, (int64_t)20);
    th_feed_tb(&h, 5, "c", 1, (int64_t)20);
    th_feed_tb(&h, 5, "a", 1, (int64_t)70);
    th_expect(&h, "CLOSE 0 60 4 g5\n");
    sl_buf ck;
    sl_buf_init(&ck);
    sl_error err;
    assert_int_equal(sl_trig_checkpoint(h.t, &ck, &err), 0);
    th_close(&h);
    th_open(&h, sql);
    assert_int_equal(sl_trig_restore(h.t, ck.data, ck.len, &err), 0);
    sl_buf_fini(&ck);
    th_del_tb(&h, 5, "b", 0, 100);
    th_expect(&h, "INV 0 60 4 g5\nCLOSE 0 60 3 g5\n");
    th_del_tb(&h, 5, "a", 20, 20);
    th_expect(&h, "INV 0 60 3 g5\nCLOSE 0 60 2 g5\n");
    th_close(&h);
}

/* Plain SLIDING counts the rows of every table of the group, also at one timestamp. */
static void sliding_tables_of_one_group(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s SLIDING(10s) FROM t1 PARTITION BY tg");
    th_feed_tb(&h, 5, "a", 2, (int64_t)1, (int64_t)5);
    th_feed_tb(&h, 5, "b", 1, (int64_t)5);
    th_feed_tb(&h, 5, "a", 1, (int64_t)12);
    th_expect(&h, "ONTIME 0 10 20 g5\n");
    assert_int_equal(h.last.rownum, 3);
    th_close(&h);
}

static void deletes(void **state)
{
    th h;
    /* without DELETE_RECALC deletes are ignored */
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1");
    th_ts(&h, 0, 3, (int64_t)10, (int64_t)70, (int64_t)130);
    th_expect(&h, "CLOSE 0 60 1\nCLOSE 60 120 1\n");
    trow d = {.ts = 70, .kind = SL_TRIG_ROW_DELETE};
    th_feed(&h, 0, &d, 1);
    th_del(&h, 0, 0, 100);
    th_expect(&h, "");
    th_close(&h);

    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 STREAM_OPTIONS(DELETE_RECALC)");
    th_ts(&h, 0, 4, (int64_t)10, (int64_t)20, (int64_t)70, (int64_t)130);
    th_expect(&h, "CLOSE 0 60 2\nCLOSE 60 120 1\n");
    th_feed(&h, 0, &d, 1);
    th_expect(&h, "INV 60 120 1\nCLOSE 60 120 0\n");
    /* deleting a row that does not exist changes nothing */
    th_feed(&h, 0, &d, 1);
    th_expect(&h, "");
    th_del(&h, 0, 15, 135);
    th_expect(&h, "INV 0 60 2\nCLOSE 0 60 1\n");
    /* the open window lost its row: it closes empty */
    th_ts(&h, 0, 1, (int64_t)200);
    th_expect(&h, "CLOSE 120 180 0\n");
    th_close(&h);

    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 "
                "STREAM_OPTIONS(DELETE_RECALC|IGNORE_NODATA_TRIGGER)");
    th_ts(&h, 0, 2, (int64_t)70, (int64_t)130);
    th_expect(&h, "CLOSE 60 120 1\n");
    th_feed(&h, 0, &d, 1);
    th_expect(&h, "INV 60 120 1\n");
    th_close(&h);
}

static void expired(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 "
                "STREAM_OPTIONS(EXPIRED_TIME(60s))");
    th_ts(&h, 0, 3, (int64_t)10, (int64_t)70, (int64_t)130);
    th_expect(&h, "CLOSE 0 60 1\nCLOSE 60 120 1\n");
    th_ts(&h, 0, 1, (int64_t)20); /* older than 130 - 60 */
    th_expect(&h, "");
    th_ts(&h, 0, 1, (int64_t)75);
    th_expect(&h, "INV 60 120 1\nCLOSE 60 120 2\n");
    sl_trig_stats st;
    sl_trig_get_stats(h.t, &st);
    assert_int_equal(st.rows_ignored, 1);
    th_close(&h);
}

static void pre_filter_and_flags(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 "
                "STREAM_OPTIONS(PRE_FILTER(v > 0 AND tg = 2)|LOW_LATENCY_CALC|FORCE_OUTPUT)");
    h.tag = 2;
    trow r[] = {{.ts = 10, .v = 1}, {.ts = 20, .v = 0}, {.ts = 30, .v = TH_NULL},
                {.ts = 40, .v = 3}, {.ts = 90, .v = -1}};
    th_feed(&h, 0, r, 5);
    th_expect(&h, ""); /* the row at 90 was filtered: no watermark progress */
    trow r2[] = {{.ts = 95, .v = 1}};
    th_feed(&h, 0, r2, 1);
    th_expect(&h, "CLOSE 0 60 2\n");
    assert_true(h.flags[0] & SL_TRIG_F_LOW_LATENCY);
    assert_true(h.flags[0] & SL_TRIG_F_FORCE_OUTPUT);
    assert_false(h.flags[0] & SL_TRIG_F_CALC_NOTIFY_ONLY);
    /* another tag: all filtered */
    h.tag = 3;
    trow r3[] = {{.ts = 200, .v = 1}};
    th_feed(&h, 0, r3, 1);
    th_expect(&h, "");
    sl_trig_stats st;
    sl_trig_get_stats(h.t, &st);
    assert_int_equal(st.rows_filtered, 4);
    assert_string_equal(h.last.trigger_type, "Interval");
    th_close(&h);
}

static void groups_independent(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 PARTITION BY tbname");
    th_ts(&h, 1, 2, (int64_t)10, (int64_t)70);
    th_ts(&h, 2, 1, (int64_t)100);
    th_expect(&h, "CLOSE 0 60 1 g1\n");
    th_ts(&h, 2, 1, (int64_t)130);
    th_expect(&h, "CLOSE 60 120 1 g2\n");
    assert_int_equal(h.ids[1], sl_trig_id(7, 2, 60000, SL_TRIG_IDC_WINDOW, -1));
    th_close(&h);
}

static void max_delay(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 STREAM_OPTIONS(MAX_DELAY(3s))");
    const int64_t S = 1000000000LL;
    th_ts(&h, 0, 1, (int64_t)10);
    h.mono = 3 * S - 1;
    th_tick(&h);
    th_expect(&h, "");
    h.mono = 3 * S;
    th_tick(&h);
    th_expect(&h, "MAXD 0 60 1\n");
    th_ts(&h, 0, 1, (int64_t)20);
    h.busy = true;
    h.mono = 6 * S;
    th_tick(&h);
    th_expect(&h, "");
    h.busy = false;
    h.mono = 7 * S;
    th_tick(&h);
    th_expect(&h, "");
    h.mono = 9 * S;
    th_tick(&h);
    th_expect(&h, "MAXD 0 60 2\n");
    assert_int_equal(sl_trig_next_tick_ns(h.t), 12 * S);
    /* a new window restarts the delay from its opening */
    h.mono = 10 * S;
    th_ts(&h, 0, 1, (int64_t)70);
    th_expect(&h, "CLOSE 0 60 2\n");
    h.mono = 12 * S;
    th_tick(&h);
    th_expect(&h, "");
    h.mono = 13 * S;
    th_tick(&h);
    th_expect(&h, "MAXD 60 120 1\n");
    th_close(&h);
}

static void idle_resume(void **state)
{
    th h;
    const int64_t S = 1000000000LL;
    h.wall = 100 * S;
    h.mono = 100 * S;
    th_open_opts(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 PARTITION BY tbname "
                     "STREAM_OPTIONS(IDLE_TIMEOUT(10s)|EVENT_TYPE(IDLE|RESUME))",
                 SL_PREC_MS, NULL);
    th_ts(&h, 1, 1, (int64_t)10);
    h.wall += 10 * S;
    h.mono += 10 * S;
    th_tick(&h);
    th_expect(&h, "");
    h.wall += 1000000;
    h.mono += 1000000;
    th_tick(&h);
    th_expect(&h, "IDLE 100 110.001 10001ms g1\n");
    th_tick(&h);
    th_expect(&h, ""); /* once */
    h.wall = 130 * S;
    h.mono = 130 * S;
    th_ts(&h, 1, 1, (int64_t)75); /* closes [0,60), but WINDOW_CLOSE is not selected */
    th_expect(&h, "RESUME 100 130 30000ms g1\n");
    assert_int_equal(h.ids[0], h.ids[1]);
    /* the next idle cycle has another id */
    h.wall = h.mono = 150 * S;
    th_tick(&h);
    th_expect(&h, "IDLE 130 150 20000ms g1\n");
    assert_true(h.ids[2] != h.ids[0]);
    th_close(&h);
}

static void sliding_trigger(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s SLIDING(60s) FROM t1");
    th_ts(&h, 0, 2, (int64_t)10, (int64_t)70);
    th_expect(&h, "ONTIME 0 60 120\n");
    th_ts(&h, 0, 1, (int64_t)200);
    th_expect(&h, "ONTIME 60 120 180\nONTIME 120 180 240\n");
    assert_int_equal(h.ids[0], sl_trig_id(7, 0, 60000, SL_TRIG_IDC_ON_TIME, -1));
    assert_string_equal(h.last.trigger_type, "Sliding");
    th_close(&h);

    th_open(&h, "CREATE STREAM s SLIDING(60s, 10s) FROM t1 STREAM_OPTIONS(IGNORE_NODATA_TRIGGER)");
    th_ts(&h, 0, 3, (int64_t)5, (int64_t)70, (int64_t)200);
    th_expect(&h, "ONTIME -50 10 70\nONTIME 70 130 190\n");
    th_close(&h);
}

/* NOTIFY ON types EVENT_TYPE lacks are emitted flagged SL_TRIG_F_NOTIFY_ONLY (notified,
 * not computed); EVENT_TYPE's carry no such flag. On PERIOD / plain SLIDING the window
 * types of NOTIFY ON are ignored like EVENT_TYPE's. */
static void notify_on_events(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 "
                "NOTIFY('ws://127.0.0.1:9/x') ON (WINDOW_OPEN|WINDOW_CLOSE)");
    assert_int_equal(sl_trig_def_events(h.def), SL_EVT_WINDOW_OPEN | SL_EVT_WINDOW_CLOSE);
    th_ts(&h, 0, 2, (int64_t)10, (int64_t)70);
    th_expect(&h, "OPEN 0\nCLOSE 0 60 1\nOPEN 60\n");
    assert_true(h.flags[0] & SL_TRIG_F_NOTIFY_ONLY);
    assert_false(h.flags[1] & SL_TRIG_F_NOTIFY_ONLY);
    assert_true(h.flags[2] & SL_TRIG_F_NOTIFY_ONLY);
    th_close(&h);

    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 "
                "STREAM_OPTIONS(EVENT_TYPE(WINDOW_OPEN)) "
                "NOTIFY('ws://127.0.0.1:9/x') ON (WINDOW_CLOSE)");
    th_ts(&h, 0, 2, (int64_t)10, (int64_t)70);
    th_expect(&h, "OPEN 0\nCLOSE 0 60 1\nOPEN 60\n");
    assert_false(h.flags[0] & SL_TRIG_F_NOTIFY_ONLY);
    assert_true(h.flags[1] & SL_TRIG_F_NOTIFY_ONLY);
    th_close(&h);

    th_open(&h, "CREATE STREAM s SLIDING(60s) FROM t1 NOTIFY('ws://127.0.0.1:9/x') "
                "ON (WINDOW_OPEN)");
    assert_int_equal(sl_trig_def_events(h.def), 0);
    th_ts(&h, 0, 2, (int64_t)10, (int64_t)70);
    th_expect(&h, "ONTIME 0 60 120\n");
    assert_false(h.flags[0] & SL_TRIG_F_NOTIFY_ONLY);
    th_close(&h);

    /* IDLE/RESUME notified without IDLE_TIMEOUT: refused at the ON list. */
    sl_error err;
    sl_error_clear(&err);
    th h2;
    memset(&h2, 0, sizeof(h2));
    assert_int_equal(th_build(&h2, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 "
                                   "NOTIFY('ws://127.0.0.1:9/x') ON (WINDOW_CLOSE|IDLE)",
                              SL_PREC_MS, &err),
                     SL_EINVAL);
    assert_non_null(strstr(err.msg, "NOTIFY ON IDLE/RESUME requires IDLE_TIMEOUT"));
    assert_null(h2.def);
    sl_parse_result_free(h2.pr);
}

static void options_passthrough(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1 "
                "STREAM_OPTIONS(FILL_HISTORY_FIRST('2025-01-01 00:00:00')|CALC_NOTIFY_ONLY)");
    int64_t start = 0;
    bool first = false;
    assert_true(sl_trig_def_fill_history(h.def, &start, &first));
    assert_int_equal(start, 1735689600000LL);
    assert_true(first);
    assert_int_equal(sl_trig_def_events(h.def), SL_EVT_WINDOW_CLOSE);
    assert_int_equal(sl_trig_def_kind(h.def), SL_TRIG_INTERVAL);
    /* a batch marked as history flags its events */
    sl_block b;
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
    sl_column_append_i64(&b.cols[0], 10000);
    sl_column_append_i64(&b.cols[0], 70000);
    sl_block_seal(&b);
    uint64_t versions[] = {41, 42};
    sl_trig_input in = {.group_id = 0, .rows = &b, .versions = versions, .history = true};
    sl_trig_sink s = th_sink(&h);
    sl_error err;
    assert_int_equal(sl_trig_feed(h.t, &in, &s, &err), 0);
    th_expect(&h, "CLOSE 0 60 1\n");
    assert_true(h.flags[0] & SL_TRIG_F_HISTORY);
    assert_true(h.flags[0] & SL_TRIG_F_CALC_NOTIFY_ONLY);
    assert_false(h.flags[0] & SL_TRIG_F_LOW_LATENCY);
    assert_int_equal(h.last.version_hi, 42);
    assert_int_equal(h.last.rows_lo, 0);
    assert_int_equal(h.last.rows_hi, 59999);
    sl_block_fini(&b);
    th_close(&h);
    /* without FILL_HISTORY */
    th_open(&h, "CREATE STREAM s INTERVAL(60s) SLIDING(60s) FROM t1");
    assert_false(sl_trig_def_fill_history(h.def, &start, &first));
    assert_int_equal(start, INT64_MIN);
    th_close(&h);
}

/* ------------------------------------------------------------ calendar units (n, y) */

/* Times in seconds since the epoch, computed independently (Python datetime, UTC). */
#define J15_24 ((int64_t)1705276800)  /* 2024-01-15 */
#define J31_24 ((int64_t)1706745599)  /* 2024-01-31 23:59:59 */
#define F01_24 ((int64_t)1706745600)  /* 2024-02-01 */
#define F15_24 ((int64_t)1707955200)  /* 2024-02-15 */
#define F29_24 ((int64_t)1709208000)  /* 2024-02-29 12:00 (leap day) */
#define M01_24 ((int64_t)1709251200)  /* 2024-03-01 */
#define A01_24 ((int64_t)1711929600)  /* 2024-04-01 */
#define A30_24 ((int64_t)1714435200)  /* 2024-04-30 */
#define Y01_24 ((int64_t)1714521600)  /* 2024-05-01 */
#define JA1_24 ((int64_t)1704067200)  /* 2024-01-01 */

/* INTERVAL(1n): [first of month, first of next month) for 31-, 29- (leap February), 31-
 * and 30-day months; a row exactly on the 1st belongs to the new month. */
static void calendar_months(void **st)
{
    (void)st;
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(1n) SLIDING(1n) FROM t1 "
                "STREAM_OPTIONS(EXPIRED_TIME(100d))");
    th_ts(&h, 0, 2, J15_24, J31_24);
    th_expect(&h, "");
    th_ts(&h, 0, 1, F01_24);
    th_expect(&h, "CLOSE 1704067200 1706745600 2\n");
    th_ts(&h, 0, 2, F29_24, M01_24);
    th_expect(&h, "CLOSE 1706745600 1709251200 2\n");
    th_ts(&h, 0, 1, A30_24);
    th_expect(&h, "CLOSE 1709251200 1711929600 1\n");
    th_ts(&h, 0, 1, Y01_24);
    th_expect(&h, "CLOSE 1711929600 1714521600 1\n");
    /* A late row in closed February recomputes exactly that month. */
    th_ts(&h, 0, 1, F15_24);
    th_expect(&h, "INV 1706745600 1709251200 2\nCLOSE 1706745600 1709251200 3\n");
    th_close(&h);

    /* Non-leap February (28 days) and empty months between data (NO_DATA closes). */
    th_open(&h, "CREATE STREAM s INTERVAL(1n) SLIDING(1n) FROM t1 STREAM_OPTIONS(" OC ")");
    th_ts(&h, 0, 1, (int64_t)1675987200); /* 2023-02-10 */
    th_expect(&h, "OPEN 1675209600\n");
    th_ts(&h, 0, 1, (int64_t)1681516800); /* 2023-04-15 */
    th_expect(&h, "CLOSE 1675209600 1677628800 1\nOPEN 1677628800\n"
                  "CLOSE 1677628800 1680307200 0\nOPEN 1680307200\n");
    th_ts(&h, 0, 1, (int64_t)1682985600); /* 2023-05-02 */
    th_expect(&h, "CLOSE 1680307200 1682899200 1\nOPEN 1682899200\n");
    th_close(&h);
}

/* INTERVAL(1y): January 1st to January 1st, 365 and 366 (2024) days. */
static void calendar_years(void **st)
{
    (void)st;
    th h;
    th_open(&h, "CREATE STREAM s INTERVAL(1y) SLIDING(1y) FROM t1");
    th_ts(&h, 0, 2, (int64_t)1685577600, F29_24); /* 2023-06-01, 2024-02-29 */
    th_expect(&h, "CLOSE 1672531200 1704067200 1\n");
    th_ts(&h, 0, 1, (int64_t)1735689600); /* 2025-01-01 */
    th_expect(&h, "CLOSE 1704067200 1735689600 1\n");
    th_close(&h);
}

/* Offsets, overlapping month windows, and a calendar interval with a fixed sliding. */
static void calendar_mixed(void **st)
{
    (void)st;
    th h;
    /* INTERVAL(1n, 1d): [2nd of month, 2nd of next month). */
    th_open(&h, "CREATE STREAM s INTERVAL(1n, 1d) SLIDING(1n) FROM t1");
    th_ts(&h, 0, 2, (int64_t)1706788800, (int64_t)1706832000); /* 2024-02-01 12:00, 02-02 */
    th_expect(&h, "CLOSE 1704153600 1706832000 1\n");           /* [2024-01-02, 2024-02-02) */
    th_close(&h);
    /* INTERVAL(2n) SLIDING(1n): the first window holding 2024-01-10 starts 2023-12-01. */
    th_open(&h, "CREATE STREAM s INTERVAL(2n) SLIDING(1n) FROM t1");
    th_ts(&h, 0, 2, (int64_t)1704844800, (int64_t)1707523200); /* 2024-01-10, 02-10 */
    th_expect(&h, "CLOSE 1701388800 1706745600 1\n");           /* [12-01, 02-01) */
    th_ts(&h, 0, 1, (int64_t)1710028800);                       /* 2024-03-10 */
    th_expect(&h, "CLOSE 1704067200 1709251200 2\n");           /* [01-01, 03-01) */
    th_close(&h);
    /* INTERVAL(1n) SLIDING(20d): starts every 20 days from the epoch, each window one
     * calendar month long (expected by a Python reference with datetime). */
    th_open(&h, "CREATE STREAM s INTERVAL(1n) SLIDING(20d) FROM t1");
    th_ts(&h, 0, 4, J15_24, (int64_t)1708387200, (int64_t)1709596800, A01_24);
    th_expect(&h, "CLOSE 1703808000 1706486400 1\nCLOSE 1705536000 1708214400 0\n"
                  "CLOSE 1707264000 1709769600 2\nCLOSE 1708992000 1711497600 1\n");
    th_close(&h);
}

/* First second of month index mi (months since 1970-01), by the C library's timegm: a
 * reference independent of the engine's calendar arithmetic. */
static int64_t ref_month(int64_t mi)
{
    struct tm tm = {0};
    tm.tm_year = (int)(70 + mi / 12 - (mi % 12 < 0 ? 1 : 0));
    tm.tm_mon = (int)(((mi % 12) + 12) % 12);
    tm.tm_mday = 1;
    return (int64_t)timegm(&tm);
}

static uint64_t cal_rs;
static uint64_t cal_rnd(uint64_t n)
{
    cal_rs = cal_rs * 6364136223846793005ull + 1442695040888963407ull;
    return (cal_rs >> 33) % n;
}

/* Random month/year windows (interval and sliding in months, an offset in days) over
 * in-order rows spanning decades, against a brute-force reference built on timegm. */
static void calendar_random(void **st)
{
    (void)st;
    const char *e = getenv("TRIG_RANDOM_SCALE");
    int scale = e && atoi(e) > 0 ? atoi(e) : 1;
    for (int seed = 1; seed <= 40 * scale; seed++) {
        cal_rs = (uint64_t)seed * 7919u;
        static const int ims[] = {1, 2, 3, 12, 24};
        int im = ims[cal_rnd(5)];
        int sm = 1 + (int)cal_rnd((uint64_t)im);
        int od = (int)cal_rnd(28);
        char sql[256];
        snprintf(sql, sizeof sql,
                 "CREATE STREAM s INTERVAL(%d%s, %dd) SLIDING(%d%s) FROM t1", im % 12 ? im : im / 12,
                 im % 12 ? "n" : "y", od, sm % 12 || sm == 0 ? sm : sm / 12, sm % 12 ? "n" : "y");
        th h;
        th_open(&h, sql);
        enum { NR = 60 };
        int64_t ts[NR];
        int64_t t = (int64_t)cal_rnd(60ull * 365 * 86400) - 10ll * 365 * 86400; /* 1960.. */
        for (int i = 0; i < NR; i++) {
            t += 1 + (int64_t)cal_rnd(cal_rnd(4) ? 40ull * 86400 : 400ull * 86400);
            ts[i] = t;
        }
        /* Reference: window j is [month(j*sm) + od days, month(j*sm + im) + od days). */
        sl_buf want = {0};
        int64_t off = (int64_t)od * 86400;
        /* Start past the first row (over-estimating the month index), then walk back. */
        int64_t days = (ts[0] - off) / 86400;
        int64_t j = (days >= 0 ? days / 28 : days / 31) / sm + 2;
        while (ref_month((j - 1) * sm + im) + off > ts[0])
            j--;
        for (int i = 0; i < NR; i++) {
            trow r = {.ts = ts[i], .v = 1};
            th_feed(&h, 0, &r, 1);
            while (ref_month(j * sm + im) + off <= ts[i]) {
                int64_t ws = ref_month(j * sm) + off, we = ref_month(j * sm + im) + off;
                int n = 0;
                for (int k = 0; k < i; k++)
                    n += ts[k] >= ws && ts[k] < we;
                sl_buf_printf(&want, "CLOSE %lld %lld %d\n", (long long)ws, (long long)we, n);
                j++;
            }
        }
        const char *w = want.len ? (const char *)want.data : "";
        const char *g = h.log.len ? (const char *)h.log.data : "";
        if (want.len != h.log.len || memcmp(w, g, want.len) != 0)
            fail_msg("%s (seed %d): events differ\n--- want\n%.*s--- got\n%.*s", sql, seed,
                     (int)want.len, w, (int)h.log.len, g);
        sl_buf_fini(&want);
        th_close(&h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tumbling_close_only), cmocka_unit_test(tumbling_open_close),
        cmocka_unit_test(empty_windows),       cmocka_unit_test(ignore_nodata),
        cmocka_unit_test(edge_exact),          cmocka_unit_test(sliding_overlap),
        cmocka_unit_test(offsets),             cmocka_unit_test(watermark),
        cmocka_unit_test(out_of_order_and_updates), cmocka_unit_test(ignore_disorder),
        cmocka_unit_test(deletes),             cmocka_unit_test(expired),
        cmocka_unit_test(tables_of_one_group), cmocka_unit_test(tables_of_one_group_checkpoint),
        cmocka_unit_test(sliding_tables_of_one_group),
        cmocka_unit_test(pre_filter_and_flags), cmocka_unit_test(groups_independent),
        cmocka_unit_test(max_delay),           cmocka_unit_test(idle_resume),
        cmocka_unit_test(sliding_trigger),     cmocka_unit_test(options_passthrough),
        cmocka_unit_test(notify_on_events),
        cmocka_unit_test(calendar_months),     cmocka_unit_test(calendar_years),
        cmocka_unit_test(calendar_mixed),      cmocka_unit_test(calendar_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
