/*
 * test_trigger_period.c - the PERIOD schedule of spec "Scheduled Trigger", every example
 * of the spec (5h30m, offset 1m, created at 12:00, 2 days, weeks on Mondays, months on
 * the 1st, years on January 1st, with offsets), day/week/month/year boundaries, a server
 * time zone, and the PERIOD engine driven by a fake wall clock. Expected instants are
 * written as civil dates and converted with sl_days_from_civil (not with the code under
 * test).
 */
#include "test_trigger_util.h"

/* ms since the epoch of a UTC civil time. */
static int64_t T(int y, int mo, int d, int h, int mi)
{
    return (sl_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60) *
           1000;
}

static sl_duration D(int64_t v, char u)
{
    return (sl_duration){.value = v, .unit = u};
}

static const sl_duration NOOFF = {0};

static int64_t nx(sl_duration p, sl_duration o, int64_t t)
{
    return sl_trig_schedule_next(p, o, SL_PREC_MS, 0, t);
}

static void sub_day_schedule(void **state)
{
    /* 5h30m: 00:00, 05:30, 11:00, 16:30, 22:00, then 00:00 the next day */
    int64_t want[] = {T(2025, 3, 10, 5, 30), T(2025, 3, 10, 11, 0), T(2025, 3, 10, 16, 30),
                      T(2025, 3, 10, 22, 0), T(2025, 3, 11, 0, 0), T(2025, 3, 11, 5, 30)};
    int64_t t = T(2025, 3, 10, 0, 0);
    for (int i = 0; i < 6; i++) {
        t = nx(D(330, 'm'), NOOFF, t);
        assert_int_equal(t, want[i]);
    }
    /* offset 1m: 00:01, 05:31, 11:01, 16:31, 22:01 */
    int64_t want1[] = {T(2025, 3, 10, 0, 1), T(2025, 3, 10, 5, 31), T(2025, 3, 10, 11, 1),
                       T(2025, 3, 10, 16, 31), T(2025, 3, 10, 22, 1), T(2025, 3, 11, 0, 1)};
    t = T(2025, 3, 10, 0, 0);
    for (int i = 0; i < 6; i++) {
        t = nx(D(330, 'm'), D(1, 'm'), t);
        assert_int_equal(t, want1[i]);
    }
    /* created at 12:00: 16:31 and 22:01 that day */
    assert_int_equal(nx(D(330, 'm'), D(1, 'm'), T(2025, 3, 10, 12, 0)), T(2025, 3, 10, 16, 31));
    /* prev: the last point at or before */
    assert_int_equal(sl_trig_schedule_prev(D(330, 'm'), D(1, 'm'), SL_PREC_MS, 0,
                                           T(2025, 3, 10, 12, 0)),
                     T(2025, 3, 10, 11, 1));
    assert_int_equal(sl_trig_schedule_prev(D(330, 'm'), D(1, 'm'), SL_PREC_MS, 0,
                                           T(2025, 3, 10, 0, 0)),
                     T(2025, 3, 9, 22, 1));
    assert_int_equal(sl_trig_schedule_prev(D(330, 'm'), NOOFF, SL_PREC_MS, 0,
                                           T(2025, 3, 10, 5, 30)),
                     T(2025, 3, 10, 5, 30));
    /* a point is strictly after: exactly on 05:30 the next is 11:00 */
    assert_int_equal(nx(D(330, 'm'), NOOFF, T(2025, 3, 10, 5, 30)), T(2025, 3, 10, 11, 0));
    /* 10a steps */
    assert_int_equal(nx(D(10, 'a'), NOOFF, T(2025, 3, 10, 0, 0) + 5), T(2025, 3, 10, 0, 0) + 10);
}

static void day_and_longer(void **state)
{
    /* 2 days: multiples of 2 days since 1970-01-01 (1970-01-03, 1970-01-05, ...) */
    assert_int_equal(nx(D(2, 'd'), NOOFF, 0), T(1970, 1, 3, 0, 0));
    assert_int_equal(nx(D(2, 'd'), NOOFF, T(1970, 1, 3, 0, 0)), T(1970, 1, 5, 0, 0));
    /* 2025-01-01 is day 20089 (odd): the next 2-day point is 2025-01-02 */
    assert_int_equal(nx(D(2, 'd'), NOOFF, T(2025, 1, 1, 0, 0)), T(2025, 1, 2, 0, 0));
    assert_int_equal(nx(D(1, 'd'), D(6, 'h'), T(2025, 1, 1, 7, 0)), T(2025, 1, 2, 6, 0));
    /* weeks on Mondays; 2025-01-01 is a Wednesday */
    assert_int_equal(nx(D(1, 'w'), NOOFF, T(2025, 1, 1, 0, 0)), T(2025, 1, 6, 0, 0));
    assert_int_equal(nx(D(1, 'w'), D(1, 'd'), T(2025, 1, 1, 0, 0)), T(2025, 1, 7, 0, 0));
    assert_int_equal(nx(D(1, 'w'), NOOFF, T(2025, 1, 6, 0, 0)), T(2025, 1, 13, 0, 0));
    assert_int_equal(nx(D(1, 'w'), NOOFF, T(1970, 1, 1, 0, 0)), T(1970, 1, 5, 0, 0));
    /* months on the 1st; 1n,14d on the 15th */
    assert_int_equal(nx(D(1, 'n'), NOOFF, T(2025, 1, 1, 0, 0)), T(2025, 2, 1, 0, 0));
    assert_int_equal(nx(D(1, 'n'), NOOFF, T(2025, 1, 31, 23, 59)), T(2025, 2, 1, 0, 0));
    assert_int_equal(nx(D(1, 'n'), D(14, 'd'), T(2025, 1, 1, 0, 0)), T(2025, 1, 15, 0, 0));
    assert_int_equal(nx(D(1, 'n'), D(14, 'd'), T(2025, 1, 15, 0, 0)), T(2025, 2, 15, 0, 0));
    assert_int_equal(nx(D(1, 'n'), NOOFF, T(2024, 12, 5, 0, 0)), T(2025, 1, 1, 0, 0));
    /* 2n: months counted from 1970-01 in steps of two (Jan, Mar, ...) */
    assert_int_equal(nx(D(2, 'n'), NOOFF, T(2025, 1, 10, 0, 0)), T(2025, 3, 1, 0, 0));
    /* years on January 1st; 1y,31d on February 1st */
    assert_int_equal(nx(D(1, 'y'), NOOFF, T(2025, 1, 1, 0, 0)), T(2026, 1, 1, 0, 0));
    assert_int_equal(nx(D(1, 'y'), D(31, 'd'), T(2025, 1, 1, 0, 0)), T(2025, 2, 1, 0, 0));
    assert_int_equal(nx(D(1, 'y'), D(31, 'd'), T(2025, 2, 1, 0, 0)), T(2026, 2, 1, 0, 0));
    /* leap day boundary */
    assert_int_equal(nx(D(1, 'd'), NOOFF, T(2024, 2, 28, 12, 0)), T(2024, 2, 29, 0, 0));
    assert_int_equal(
        sl_trig_schedule_prev(D(1, 'n'), NOOFF, SL_PREC_MS, 0, T(2024, 3, 1, 0, 0) - 1),
                     T(2024, 2, 1, 0, 0));
}

static void time_zone(void **state)
{
    const int32_t tz = 8 * 3600; /* UTC+8 */
    /* local midnight is 16:00 UTC of the day before */
    assert_int_equal(sl_trig_schedule_next(D(1, 'd'), NOOFF, SL_PREC_MS, tz, T(2025, 1, 1, 0, 0)),
                     T(2025, 1, 1, 16, 0));
    /* 08:00 local: the next 5h30m point is 11:00 local = 03:00 UTC */
    assert_int_equal(sl_trig_schedule_next(D(330, 'm'), NOOFF, SL_PREC_MS, tz, T(2025, 1, 1, 0, 0)),
                     T(2025, 1, 1, 3, 0));
    /* months in local time: 2025-02-01 00:00 local = 2025-01-31 16:00 UTC */
    assert_int_equal(sl_trig_schedule_next(D(1, 'n'), NOOFF, SL_PREC_MS, tz, T(2025, 1, 10, 0, 0)),
                     T(2025, 1, 31, 16, 0));
    /* nanosecond precision gives the same instants */
    assert_int_equal(sl_trig_schedule_next(D(330, 'm'), D(1, 'm'), SL_PREC_NS, 0,
                                           T(2025, 3, 10, 12, 0) * 1000000),
                     T(2025, 3, 10, 16, 31) * 1000000);
}

static void period_engine(void **state)
{
    th h;
    const int64_t MS = 1000000;
    h.wall = T(2025, 3, 10, 12, 0) * MS;
    h.mono = 1;
    th_open_opts(&h, "CREATE STREAM s PERIOD(330m, 1m) NOTIFY('ws://x')", SL_PREC_MS, NULL);
    h.wall = T(2025, 3, 10, 16, 30) * MS;
    th_tick(&h);
    th_expect(&h, "");
    char want[256];
    h.wall = T(2025, 3, 10, 16, 31) * MS;
    th_tick(&h);
    snprintf(want, sizeof want, "ONTIME %lld %lld %lld\n",
             (long long)(T(2025, 3, 10, 11, 1) / 1000), (long long)(T(2025, 3, 10, 16, 31) / 1000),
             (long long)(T(2025, 3, 10, 22, 1) / 1000));
    th_expect(&h, want);
    assert_string_equal(h.last.trigger_type, "Period");
    assert_int_equal(h.ids[0],
                     sl_trig_id(7, 0, T(2025, 3, 10, 16, 31) * MS, SL_TRIG_IDC_ON_TIME, -1));
    th_tick(&h);
    th_expect(&h, "");
    /* 22:01 and, after a long stop, only the latest missed point (next day 11:01) */
    h.wall = T(2025, 3, 10, 22, 1) * MS;
    th_tick(&h);
    h.wall = T(2025, 3, 11, 12, 0) * MS;
    th_tick(&h);
    snprintf(want, sizeof want, "ONTIME %lld %lld %lld\nONTIME %lld %lld %lld\n",
             (long long)(T(2025, 3, 10, 16, 31) / 1000), (long long)(T(2025, 3, 10, 22, 1) / 1000),
             (long long)(T(2025, 3, 11, 0, 1) / 1000), (long long)(T(2025, 3, 10, 22, 1) / 1000),
             (long long)(T(2025, 3, 11, 11, 1) / 1000), (long long)(T(2025, 3, 11, 16, 31) / 1000));
    th_expect(&h, want);
    th_close(&h);
}

static void period_groups_nodata(void **state)
{
    th h;
    const int64_t MS = 1000000;
    h.wall = T(2025, 3, 10, 12, 0) * MS;
    th_open_opts(&h, "CREATE STREAM s PERIOD(1h) FROM t1 PARTITION BY tbname "
                     "STREAM_OPTIONS(IGNORE_NODATA_TRIGGER) NOTIFY('ws://x')",
                 SL_PREC_MS, NULL);
    th_ts(&h, 1, 1, (int64_t)5);
    th_ts(&h, 2, 1, (int64_t)5);
    h.wall = T(2025, 3, 10, 13, 0) * MS;
    th_tick(&h);
    char want[256];
    long long a = T(2025, 3, 10, 12, 0) / 1000, b = T(2025, 3, 10, 13, 0) / 1000,
              c = T(2025, 3, 10, 14, 0) / 1000;
    snprintf(want, sizeof want, "ONTIME %lld %lld %lld g1\nONTIME %lld %lld %lld g2\n", a, b, c,
             a, b, c);
    th_expect(&h, want);
    th_ts(&h, 2, 1, (int64_t)6);
    h.wall = T(2025, 3, 10, 14, 0) * MS;
    th_tick(&h);
    snprintf(want, sizeof want, "ONTIME %lld %lld %lld g2\n", b, c, c + 3600);
    th_expect(&h, want);
    h.wall = T(2025, 3, 10, 15, 0) * MS;
    th_tick(&h);
    th_expect(&h, "");
    th_close(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sub_day_schedule), cmocka_unit_test(day_and_longer),
        cmocka_unit_test(time_zone),        cmocka_unit_test(period_engine),
        cmocka_unit_test(period_groups_nodata),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
