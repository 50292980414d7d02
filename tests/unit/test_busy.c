/*
 * test_busy.c - sl_busy (common/util/busy.h): a steady duty cycle reads as its fraction,
 * the reading fades with time constant tau when the work stops, a sampled counter's span
 * counts as its own fraction, the heavy-load gate opens and closes on its marks, and a
 * reader racing the writer never sees a value outside what the writer could have
 * produced.
 *
 * Expected values are computed here from the definition (fraction of time busy;
 * exp(-t/tau) fading), not by the meter.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/util/busy.h"

#define MS 1000000ull

/* Work of `busy` ns every `period` ns from t0 for `total` ns; returns the end time. */
static uint64_t duty(sl_busy *b, uint64_t t0, uint64_t busy, uint64_t period, uint64_t total)
{
    uint64_t t = t0;
    while (t + period <= t0 + total) {
        sl_busy_add(b, t + busy, busy);
        t += period;
    }
    return t;
}

static void test_starts_at_zero(void **state)
{
    (void)state;
    sl_busy b;
    sl_busy_init(&b, 100 * MS);
    assert_true(sl_busy_frac(&b, 0) == 0.0);
    assert_true(sl_busy_frac(&b, 5000 * MS) == 0.0);
}

static void test_steady_fraction(void **state)
{
    (void)state;
    /* 1 ms of every 2 ms (50%), 1 ms of every 10 ms (10%), 3 of every 4 (75%): after
     * ten time constants the reading is the fraction, to within one piece's share of tau
     * (1-3 ms of 100 ms) plus the fade within one period. */
    const struct { uint64_t busy, period; double want; } cases[] = {
        {1 * MS, 2 * MS, 0.50}, {1 * MS, 10 * MS, 0.10}, {3 * MS, 4 * MS, 0.75}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sl_busy b;
        sl_busy_init(&b, 100 * MS);
        uint64_t end = duty(&b, 1000 * MS, cases[i].busy, cases[i].period, 1000 * MS);
        double got = sl_busy_frac(&b, end);
        assert_true(fabs(got - cases[i].want) < 0.04);
    }
}

static void test_fades_when_idle(void **state)
{
    (void)state;
    sl_busy b;
    sl_busy_init(&b, 100 * MS);
    uint64_t end = duty(&b, 0, 1 * MS, 2 * MS, 2000 * MS);
    double at_end = sl_busy_frac(&b, end);
    /* One tau later: a factor e^-1; five: e^-5 (under 1% of 50%). */
    double one = sl_busy_frac(&b, end + 100 * MS);
    assert_true(fabs(one - at_end * exp(-1.0)) < 1e-9);
    assert_true(sl_busy_frac(&b, end + 500 * MS) < 0.005);
    /* A time before the last update (the last piece ended at end - 1 ms) decays
     * nothing. */
    assert_true(sl_busy_frac(&b, end - 50 * MS) == sl_busy_frac(&b, end - 1 * MS));
    /* New work after the idle time counts from the faded value. */
    sl_busy_add(&b, end + 500 * MS + 10 * MS, 10 * MS);
    double after = sl_busy_frac(&b, end + 510 * MS);
    double want = at_end * exp(-5.1) + 0.1;
    assert_true(fabs(after - want) < 1e-9);
}

/* A light load (one 50 us write every 5 ms, 1%) stays far below a heavy one (a 2 ms
 * write every 5 ms, 40%): the two the vnode tells apart at 20%. */
static void test_light_and_heavy(void **state)
{
    (void)state;
    sl_busy light, heavy;
    sl_busy_init(&light, 100 * MS);
    sl_busy_init(&heavy, 100 * MS);
    uint64_t e1 = duty(&light, 0, 50000, 5 * MS, 1000 * MS);
    uint64_t e2 = duty(&heavy, 0, 2 * MS, 5 * MS, 1000 * MS);
    assert_true(sl_busy_frac(&light, e1) < 0.05);
    assert_true(sl_busy_frac(&heavy, e2) > 0.35);
    /* A heavy burst of 30 ms (all busy) raises an idle meter past 20% within it. */
    sl_busy burst;
    sl_busy_init(&burst, 100 * MS);
    uint64_t e3 = duty(&burst, 0, 1 * MS, 1 * MS, 30 * MS);
    double want = 1.0 - exp(-0.3); /* the integral of a full duty over 0.3 tau */
    assert_true(fabs(sl_busy_frac(&burst, e3) - want) < 0.01);
    assert_true(sl_busy_frac(&burst, e3) > 0.2);
}

/* A sampled counter: busy time spread over the span since the last sample. A steady
 * duty reads as its fraction whatever the sampling period; a long idle span with a little
 * work in it reads as that little, where sl_busy_add would credit all of it to the end. */
static void test_span(void **state)
{
    (void)state;
    /* Samples every 5 ms of a 60% duty (3 ms per 5), then every 40 ms of the same. */
    sl_busy b;
    sl_busy_init(&b, 20 * MS);
    uint64_t t = 0;
    for (; t < 500 * MS; t += 5 * MS)
        sl_busy_add_span(&b, t, t + 5 * MS, 3 * MS);
    assert_true(fabs(sl_busy_frac(&b, t) - 0.6) < 1e-6);
    for (uint64_t end = t + 500 * MS; t < end; t += 40 * MS)
        sl_busy_add_span(&b, t, t + 40 * MS, 24 * MS);
    assert_true(fabs(sl_busy_frac(&b, t) - 0.6) < 1e-6);

    /* From zero, one span S with busy B: B/S * (1 - e^(-S/tau)), the integral of the rate
     * B/S fading with tau over the span. */
    sl_busy one;
    sl_busy_init(&one, 100 * MS);
    sl_busy_add_span(&one, 1000 * MS, 1030 * MS, 15 * MS);
    assert_true(fabs(sl_busy_frac(&one, 1030 * MS) - 0.5 * (1.0 - exp(-0.3))) < 1e-9);

    /* A second of idling with 10 ms of work in it: 1%, not the 10% of a piece of 10 ms
     * that just ended. */
    sl_busy idle, piece;
    sl_busy_init(&idle, 100 * MS);
    sl_busy_init(&piece, 100 * MS);
    sl_busy_add_span(&idle, 0, 1000 * MS, 10 * MS);
    sl_busy_add(&piece, 1000 * MS, 10 * MS);
    assert_true(fabs(sl_busy_frac(&idle, 1000 * MS) - 0.01 * (1.0 - exp(-10.0))) < 1e-9);
    assert_true(fabs(sl_busy_frac(&piece, 1000 * MS) - 0.1) < 1e-9);

    /* An empty span adds the work as a piece. */
    sl_busy z;
    sl_busy_init(&z, 100 * MS);
    sl_busy_add_span(&z, 50 * MS, 50 * MS, 5 * MS);
    assert_true(fabs(sl_busy_frac(&z, 50 * MS) - 0.05) < 1e-9);
}

/* The gate: opens on the write share and the fast demand, stays open on either demand
 * reading at half the mark, closes when writes stop or both readings fall below it. */
static void test_gate(void **state)
{
    (void)state;
    const double w = 0.02, d = 0.25;
    const struct {
        bool was;
        double writes, fast, slow;
        bool want;
    } cases[] = {
        {false, 0.30, 0.30, 0.00, true},  /* a load starting: the fast reading is enough */
        {false, 0.30, 0.20, 0.90, false}, /* closed: only the fast reading opens it */
        {false, 0.01, 0.90, 0.90, false}, /* no client writes to speak of */
        {false, 0.02, 0.25, 0.00, true},  /* both marks are inclusive */
        {true, 0.30, 0.13, 0.00, true},   /* open: the fast reading above half the mark */
        {true, 0.30, 0.00, 0.13, true},   /* or the slow one (a dip) */
        {true, 0.30, 0.12, 0.12, false},  /* both below half: close */
        {true, 0.019, 0.90, 0.90, false}, /* the writes stopped */
        {true, 0.0, 0.0, 0.0, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_int_equal(sl_busy_gate(cases[i].was, cases[i].writes, cases[i].fast,
                                      cases[i].slow, w, d),
                         cases[i].want);
    /* Zero marks (the tests' "always heavy") open on anything, even all zeros. */
    assert_true(sl_busy_gate(false, 0, 0, 0, 0, 0));
    assert_true(sl_busy_gate(true, 0, 0, 0, 0, 0));
}

typedef struct race {
    sl_busy b;
    atomic_bool done;
    double min, max;
} race;

static void *reader(void *arg)
{
    race *r = arg;
    r->min = 1e9;
    r->max = -1e9;
    while (!atomic_load(&r->done)) {
        double v = sl_busy_frac(&r->b, UINT64_MAX / 2);
        if (v < r->min)
            r->min = v;
        if (v > r->max)
            r->max = v;
    }
    return NULL;
}

static void test_reader_races_writer(void **state)
{
    (void)state;
    race r;
    sl_busy_init(&r.b, 100 * MS);
    atomic_store(&r.done, false);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, reader, &r), 0);
    /* Full duty in 1 ms pieces: the value never exceeds 1 + one piece (1.01). */
    duty(&r.b, 0, 1 * MS, 1 * MS, 3000 * MS);
    atomic_store(&r.done, true);
    pthread_join(th, NULL);
    assert_true(r.min >= 0.0);
    assert_true(r.max <= 1.0 + 0.0101);
    assert_true(fabs(sl_busy_frac(&r.b, 3000 * MS) - 1.0) < 0.011);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_starts_at_zero),
        cmocka_unit_test(test_steady_fraction),
        cmocka_unit_test(test_fades_when_idle),
        cmocka_unit_test(test_light_and_heavy),
        cmocka_unit_test(test_span),
        cmocka_unit_test(test_gate),
        cmocka_unit_test(test_reader_races_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
