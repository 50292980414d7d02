/*
 * test_trigger_period_rows.c - what a PERIOD ON_TIME says about the rows of its period
 * (docs/streams.md, "PERIOD and %%trows"): [rows_lo, rows_hi] is the least and greatest
 * timestamp of the group's rows fed since the previous point, an ON_TIME without such rows
 * carries SL_TRIG_F_NO_DATA and an empty range, rows that PRE_FILTER drops are no rows,
 * the range survives a checkpoint, and a stream without PARTITION BY has its one group
 * (id 0) from the start and keeps it when rows arrive. Expected values are the timestamps
 * fed, written by hand.
 */
#include "test_trigger_util.h"

typedef struct pev {
    uint64_t gid;
    bool nodata;
    int64_t lo, hi; /* seconds (ms precision / 1000), or raw when nodata */
} pev;

typedef struct prec_log {
    pev ev[64];
    int n;
} prec_log;

static int pr_emit(void *ud, const sl_trig_event *ev)
{
    prec_log *l = ud;
    assert_int_equal(ev->type, SL_TRIG_EV_ON_TIME);
    assert_true(l->n < 64);
    pev *p = &l->ev[l->n++];
    p->gid = ev->group_id;
    p->nodata = (ev->flags & SL_TRIG_F_NO_DATA) != 0;
    p->lo = p->nodata ? ev->rows_lo : ev->rows_lo / 1000;
    p->hi = p->nodata ? ev->rows_hi : ev->rows_hi / 1000;
    return 0;
}

static void tick(th *h, prec_log *l)
{
    sl_error err;
    sl_trig_sink s = {.emit = pr_emit, .ud = l};
    l->n = 0;
    if (sl_trig_tick(h->t, &s, &err) != 0)
        fail_msg("tick failed: %s", err.msg);
}

static void feed(th *h, uint64_t gid, int n, const int64_t *ts, const int32_t *v)
{
    trow r[16];
    assert_true(n <= 16);
    for (int i = 0; i < n; i++)
        r[i] = (trow){.ts = ts[i], .v = v ? v[i] : 1};
    th_feed(h, gid, r, n);
}

static const int64_t HOUR_NS = 3600LL * 1000000000LL;

static void expect(const prec_log *l, int i, uint64_t gid, int64_t lo, int64_t hi)
{
    assert_true(i < l->n);
    assert_int_equal(l->ev[i].gid, gid);
    assert_false(l->ev[i].nodata);
    assert_int_equal(l->ev[i].lo, lo);
    assert_int_equal(l->ev[i].hi, hi);
}

static void expect_nodata(const prec_log *l, int i, uint64_t gid)
{
    assert_true(i < l->n);
    assert_int_equal(l->ev[i].gid, gid);
    assert_true(l->ev[i].nodata);
    assert_true(l->ev[i].lo > l->ev[i].hi); /* an empty range */
}

/* The range covers exactly the rows fed between two points, in any order. */
static void range_per_period(void **state)
{
    th h;
    h.wall = 1000 * HOUR_NS + 1; /* just after a point */
    h.mono = 1;
    th_open_opts(&h, "CREATE STREAM s PERIOD(1h) FROM t1 PARTITION BY tbname NOTIFY('ws://x')",
                 SL_PREC_MS, NULL);
    prec_log l;
    feed(&h, 1, 3, (int64_t[]){10, 5, 20}, NULL);
    feed(&h, 2, 1, (int64_t[]){7}, NULL);
    feed(&h, 1, 1, (int64_t[]){12}, NULL);
    h.wall = 1001 * HOUR_NS;
    tick(&h, &l);
    assert_int_equal(l.n, 2);
    expect(&l, 0, 1, 5, 20);
    expect(&l, 1, 2, 7, 7);
    /* Next period: group 2 has no rows, group 1 one row older than everything before
     * (written now: it is this period's). */
    feed(&h, 1, 1, (int64_t[]){3}, NULL);
    h.wall = 1002 * HOUR_NS;
    tick(&h, &l);
    assert_int_equal(l.n, 2);
    expect(&l, 0, 1, 3, 3);
    expect_nodata(&l, 1, 2);
    /* A period without rows for anyone. */
    h.wall = 1003 * HOUR_NS;
    tick(&h, &l);
    assert_int_equal(l.n, 2);
    expect_nodata(&l, 0, 1);
    expect_nodata(&l, 1, 2);
    th_close(&h);
}

/* Rows PRE_FILTER drops are not rows of the period. */
static void prefilter(void **state)
{
    th h;
    h.wall = 1000 * HOUR_NS + 1;
    h.mono = 1;
    th_open_opts(&h,
                 "CREATE STREAM s PERIOD(1h) FROM t1 PARTITION BY tbname "
                 "STREAM_OPTIONS(PRE_FILTER(v > 5)) NOTIFY('ws://x')",
                 SL_PREC_MS, NULL);
    prec_log l;
    feed(&h, 1, 2, (int64_t[]){10, 11}, (int32_t[]){1, 2}); /* both dropped */
    feed(&h, 2, 3, (int64_t[]){4, 8, 9}, (int32_t[]){9, 1, 6});
    h.wall = 1001 * HOUR_NS;
    tick(&h, &l);
    assert_int_equal(l.n, 2);
    expect_nodata(&l, 0, 1);
    expect(&l, 1, 2, 4, 9);
    th_close(&h);
}

/* A checkpoint between the rows and the point keeps the range. */
static void checkpoint_keeps_range(void **state)
{
    th h;
    h.wall = 1000 * HOUR_NS + 1;
    h.mono = 1;
    const char *sql = "CREATE STREAM s PERIOD(1h) FROM t1 PARTITION BY tbname NOTIFY('ws://x')";
    th_open_opts(&h, sql, SL_PREC_MS, NULL);
    feed(&h, 1, 2, (int64_t[]){30, 40}, NULL);
    sl_buf ck;
    sl_buf_init(&ck);
    sl_error err;
    assert_int_equal(sl_trig_checkpoint(h.t, &ck, &err), 0);
    /* A fresh engine of the same definition, restored. */
    sl_trig *t2;
    sl_trig_opts o = h.opts;
    assert_int_equal(sl_trig_open(&t2, h.def, &o, &err), 0);
    assert_int_equal(sl_trig_restore(t2, ck.data, ck.len, &err), 0);
    sl_trig_close(h.t);
    h.t = t2;
    feed(&h, 1, 1, (int64_t[]){35}, NULL);
    prec_log l;
    h.wall = 1001 * HOUR_NS;
    tick(&h, &l);
    assert_int_equal(l.n, 1);
    expect(&l, 0, 1, 30, 40);
    sl_buf_fini(&ck);
    th_close(&h);
}

/* Without PARTITION BY: one group, id 0, from the start - it ticks before any row, and
 * rows fed for it (the runtime feeds the ungrouped stream's rows as group 0) make no
 * second group. */
static void single_group(void **state)
{
    th h;
    h.wall = 1000 * HOUR_NS + 1;
    h.mono = 1;
    th_open_opts(&h, "CREATE STREAM s PERIOD(1h) FROM t1 NOTIFY('ws://x')", SL_PREC_MS, NULL);
    prec_log l;
    h.wall = 1001 * HOUR_NS;
    tick(&h, &l);
    assert_int_equal(l.n, 1);
    expect_nodata(&l, 0, 0);
    feed(&h, 0, 2, (int64_t[]){50, 60}, NULL);
    h.wall = 1002 * HOUR_NS;
    tick(&h, &l);
    assert_int_equal(l.n, 1);
    expect(&l, 0, 0, 50, 60);
    sl_trig_stats st;
    sl_trig_get_stats(h.t, &st);
    assert_int_equal(st.groups, 1);
    th_close(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(range_per_period),
        cmocka_unit_test(prefilter),
        cmocka_unit_test(checkpoint_keeps_range),
        cmocka_unit_test(single_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
