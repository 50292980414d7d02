/*
 * test_trigger_windows.c - SESSION and COUNT_WINDOW triggers: the examples of
 * semantics.md rules 6 and 7, trigger columns, edge gaps, late rows merging and splitting
 * sessions, count windows shifting after a late row, deletes. Times are seconds.
 */
#include "test_trigger_util.h"

#define OC "STREAM_OPTIONS(EVENT_TYPE(WINDOW_OPEN|WINDOW_CLOSE))"

static void session_basic(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s SESSION(ts, 5s) FROM t1 " OC);
    /* 5 - 0 == gap: same session; 11 - 5 > gap: a new one */
    th_ts(&h, 0, 2, (int64_t)0, (int64_t)5);
    th_expect(&h, "OPEN 0\n");
    th_ts(&h, 0, 1, (int64_t)11);
    th_expect(&h, "CLOSE 0 5 2\nOPEN 11\n");
    th_ts(&h, 0, 2, (int64_t)12, (int64_t)20);
    th_expect(&h, "CLOSE 11 12 2\nOPEN 20\n");
    assert_string_equal(h.last.trigger_type, "Session");
    /* rule 6: no row, no close, whatever the time */
    th_close(&h);
}

static void session_late_merge_split(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s SESSION(ts, 5s) FROM t1 STREAM_OPTIONS(DELETE_RECALC)");
    th_ts(&h, 0, 5, (int64_t)0, (int64_t)5, (int64_t)11, (int64_t)12, (int64_t)20);
    th_expect(&h, "CLOSE 0 5 2\nCLOSE 11 12 2\n");
    /* 8 is within 5s of 5 and of 11: the two sessions merge */
    th_ts(&h, 0, 1, (int64_t)8);
    th_expect(&h, "INV 0 5 2\nINV 11 12 2\nCLOSE 0 12 5\n");
    /* deleting it splits them again */
    trow d = {.ts = 8, .kind = SL_TRIG_ROW_DELETE};
    th_feed(&h, 0, &d, 1);
    th_expect(&h, "INV 0 12 5\nCLOSE 0 5 2\nCLOSE 11 12 2\n");
    /* an update inside a closed session recomputes it */
    trow u = {.ts = 12, .v = 9, .kind = SL_TRIG_ROW_UPDATE};
    th_feed(&h, 0, &u, 1);
    th_expect(&h, "INV 11 12 2\nCLOSE 11 12 2\n");
    th_close(&h);
}

/*
 * SESSION over a group spanning tables (tag grouping, ROLLUP BY): a delete in one table
 * leaves the other tables' rows, also at the same timestamp, so the session stays whole
 * while another table still has a row bridging it (before, the row log dropped b's row at
 * 4 with a's and the session split), and splits when that row goes too.
 */
static void session_tables_of_one_group(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s SESSION(ts, 5s) FROM t1 PARTITION BY tg "
                "STREAM_OPTIONS(DELETE_RECALC)");
    th_feed_tb(&h, 5, "a", 3, (int64_t)0, (int64_t)4, (int64_t)8);
    th_feed_tb(&h, 5, "b", 1, (int64_t)4);
    th_feed_tb(&h, 5, "a", 1, (int64_t)20);
    th_expect(&h, "CLOSE 0 8 4 g5\n");
    th_del_tb(&h, 5, "a", 4, 4);
    th_expect(&h, "INV 0 8 4 g5\nCLOSE 0 8 3 g5\n");
    th_del_tb(&h, 5, "b", 4, 4);
    th_expect(&h, "INV 0 8 3 g5\nCLOSE 0 0 1 g5\nCLOSE 8 8 1 g5\n");
    th_close(&h);
}

static void session_late_new_and_open(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s SESSION(ts, 5s) FROM t1 " OC);
    th_ts(&h, 0, 3, (int64_t)0, (int64_t)20, (int64_t)40);
    th_expect(&h, "OPEN 0\nCLOSE 0 0 1\nOPEN 20\nCLOSE 20 20 1\nOPEN 40\n");
    /* a late row alone between two sessions is a closed session of its own */
    th_ts(&h, 0, 1, (int64_t)30);
    th_expect(&h, "OPEN 30\nCLOSE 30 30 1\n");
    /* a late row extending the open session backwards: it opens earlier */
    th_ts(&h, 0, 1, (int64_t)37);
    th_expect(&h, "OPEN 37\n");
    th_ts(&h, 0, 1, (int64_t)50);
    th_expect(&h, "CLOSE 37 40 2\nOPEN 50\n");
    th_close(&h);
}

/* Rule 7: COUNT_WINDOW(3, 2) over 7 rows closes rows 0-2, 2-4, 4-6; row 6 stays open. */
static void count_rule7(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s COUNT_WINDOW(3, 2) FROM t1 " OC);
    for (int64_t i = 1; i <= 7; i++)
        th_ts(&h, 0, 1, i);
    th_expect(&h, "OPEN 1\nCLOSE 1 3 3\nOPEN 3\nCLOSE 3 5 3\nOPEN 5\nCLOSE 5 7 3\nOPEN 7\n");
    assert_string_equal(h.last.trigger_type, "Count");
    th_close(&h);
}

static void count_one(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s COUNT_WINDOW(1) FROM t1 " OC);
    th_ts(&h, 0, 2, (int64_t)1, (int64_t)2);
    th_expect(&h, "OPEN 1\nCLOSE 1 1 1\nOPEN 2\nCLOSE 2 2 1\n");
    th_close(&h);
}

static void count_trigger_columns(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s COUNT_WINDOW(2, 1, v, w) FROM t1");
    trow r[] = {{.ts = 1, .v = 1, .w = TH_NULL},        {.ts = 2, .v = TH_NULL, .w = TH_NULL},
                {.ts = 3, .v = TH_NULL, .w = 4},        {.ts = 4, .v = 1, .w = 1},
                {.ts = 5, .v = TH_NULL, .w = TH_NULL}};
    th_feed(&h, 0, r, 5);
    th_expect(&h, "CLOSE 1 3 2\nCLOSE 3 4 2\n");
    /* an update that makes a counted row all-NULL removes it */
    trow u = {.ts = 3, .v = TH_NULL, .w = TH_NULL, .kind = SL_TRIG_ROW_UPDATE};
    th_feed(&h, 0, &u, 1);
    th_expect(&h, "INV 1 3 2\nINV 3 4 2\nCLOSE 1 4 2\n");
    th_close(&h);
}

static void count_disorder(void **state)
{
    th h;
    /* slide 1 recomputes late rows */
    th_open(&h, "CREATE STREAM s COUNT_WINDOW(2, 1) FROM t1 STREAM_OPTIONS(DELETE_RECALC)");
    th_ts(&h, 0, 3, (int64_t)10, (int64_t)20, (int64_t)30);
    th_expect(&h, "CLOSE 10 20 2\nCLOSE 20 30 2\n");
    th_ts(&h, 0, 1, (int64_t)15);
    th_expect(&h, "INV 10 20 2\nCLOSE 10 15 2\nCLOSE 15 20 2\n");
    th_del(&h, 0, 15, 15);
    th_expect(&h, "INV 10 15 2\nINV 15 20 2\nCLOSE 10 20 2\n");
    th_close(&h);
    /* other slides ignore late rows and updates */
    th_open(&h, "CREATE STREAM s COUNT_WINDOW(2) FROM t1");
    th_ts(&h, 0, 4, (int64_t)1, (int64_t)2, (int64_t)3, (int64_t)4);
    th_expect(&h, "CLOSE 1 2 2\nCLOSE 3 4 2\n");
    th_ts(&h, 0, 2, (int64_t)0, (int64_t)2);
    th_ts(&h, 0, 1, (int64_t)5);
    th_expect(&h, "");
    th_ts(&h, 0, 1, (int64_t)6);
    th_expect(&h, "CLOSE 5 6 2\n");
    th_close(&h);
}

/* Duplicate rows in one block and in order: the second is an update, counted once. */
static void duplicates(void **state)
{
    th h;
    th_open(&h, "CREATE STREAM s COUNT_WINDOW(3) FROM t1 STREAM_OPTIONS(WATERMARK(10s))");
    trow r[] = {{.ts = 1}, {.ts = 1}, {.ts = 2}, {.ts = 3}, {.ts = 3}, {.ts = 30}};
    th_feed(&h, 0, r, 6);
    th_expect(&h, "CLOSE 1 3 3\n");
    th_close(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(session_basic),     cmocka_unit_test(session_late_merge_split),
        cmocka_unit_test(session_late_new_and_open), cmocka_unit_test(count_rule7),
        cmocka_unit_test(session_tables_of_one_group),
        cmocka_unit_test(count_one),         cmocka_unit_test(count_trigger_columns),
        cmocka_unit_test(count_disorder),    cmocka_unit_test(duplicates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
