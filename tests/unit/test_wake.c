/*
 * test_wake.c - sl_wake (common/net/wake.h): wakes from many threads reach the loop,
 * none is lost, sends coalesce, and close releases the handle.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "common/net/wake.h"

#define NTHREADS 4
#define PER_THREAD 20000

typedef struct fix {
    uv_loop_t loop;
    sl_wake wake;
    uv_timer_t guard;
    pthread_mutex_t mu;
    uint64_t queued;   /* items the senders put on the "queue" (a counter) */
    uint64_t taken;    /* items the loop took off it */
    uint64_t calls;    /* callback runs */
    int closed;        /* closed callback runs */
    bool timed_out;
} fix;

static void on_wake(sl_wake *w)
{
    fix *f = w->data;
    pthread_mutex_lock(&f->mu);
    f->taken += f->queued;
    f->queued = 0;
    uint64_t taken = f->taken;
    pthread_mutex_unlock(&f->mu);
    f->calls++;
    if (taken == (uint64_t)NTHREADS * PER_THREAD)
        uv_stop(&f->loop);
}

static void on_guard(uv_timer_t *t)
{
    fix *f = t->data;
    f->timed_out = true;
    uv_stop(&f->loop);
}

static void *sender(void *arg)
{
    fix *f = arg;
    for (int i = 0; i < PER_THREAD; i++) {
        pthread_mutex_lock(&f->mu);
        f->queued++;
        pthread_mutex_unlock(&f->mu);
        sl_wake_send(&f->wake);
    }
    return NULL;
}

static void on_closed(sl_wake *w)
{
    fix *f = w->data;
    f->closed++;
}

/* A loop with a wake whose callback is cb, and the counters zeroed. */
static void fix_open(fix *f, sl_wake_fn cb)
{
    memset(f, 0, sizeof(*f));
    pthread_mutex_init(&f->mu, NULL);
    assert_int_equal(uv_loop_init(&f->loop), 0);
    assert_int_equal(sl_wake_init(&f->loop, &f->wake, cb, f), 0);
}

/* Closes the wake, runs the loop until every handle is released, closes the loop. */
static void fix_close(fix *f)
{
    sl_wake_close(&f->wake, NULL);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&f->loop), 0); /* no handle left behind */
    pthread_mutex_destroy(&f->mu);
}

static void test_many_senders_nothing_lost(void **state)
{
    (void)state;
    fix f;
    fix_open(&f, on_wake);
    uv_timer_init(&f.loop, &f.guard);
    f.guard.data = &f;
    uv_timer_start(&f.guard, on_guard, 30000, 0);

    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, sender, &f), 0);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    assert_false(f.timed_out);
    assert_int_equal(f.taken, (uint64_t)NTHREADS * PER_THREAD);
    /* Every callback took something or ran for a send racing the previous drain; sends
     * made while one was pending did not each get a callback. */
    assert_true(f.calls >= 1);
    assert_true(f.calls <= (uint64_t)NTHREADS * PER_THREAD);

    uv_timer_stop(&f.guard);
    uv_close((uv_handle_t *)&f.guard, NULL);
    sl_wake_close(&f.wake, on_closed);
    assert_int_equal(f.wake.fd, -1);
    assert_int_equal(f.closed, 0); /* runs from the loop, not from close */
    uv_run(&f.loop, UV_RUN_DEFAULT);
    assert_int_equal(f.closed, 1);
    assert_int_equal(uv_loop_close(&f.loop), 0); /* no handle left behind */
    pthread_mutex_destroy(&f.mu);
}

static void test_coalesces_while_pending(void **state)
{
    (void)state;
    fix f;
    fix_open(&f, on_wake);
    /* 100 sends before the loop runs: one callback takes all of them. */
    for (int i = 0; i < 100; i++) {
        f.queued++;
        sl_wake_send(&f.wake);
    }
    uv_run(&f.loop, UV_RUN_NOWAIT);
    assert_int_equal(f.calls, 1);
    assert_int_equal(f.taken, 100);
    /* Nothing sent: another turn of the loop runs no callback. */
    uv_run(&f.loop, UV_RUN_NOWAIT);
    assert_int_equal(f.calls, 1);
    /* A send after the callback wakes the loop again. */
    f.queued++;
    sl_wake_send(&f.wake);
    uv_run(&f.loop, UV_RUN_NOWAIT);
    assert_int_equal(f.calls, 2);
    assert_int_equal(f.taken, 101);
    fix_close(&f);
}

/* A wake sent from inside the callback (work the callback left for later) is not lost. */
static void on_wake_resend(sl_wake *w)
{
    fix *f = w->data;
    f->calls++;
    if (f->calls < 5)
        sl_wake_send(w);
}

static void test_send_from_callback(void **state)
{
    (void)state;
    fix f;
    fix_open(&f, on_wake_resend);
    sl_wake_send(&f.wake);
    for (int i = 0; i < 10; i++)
        uv_run(&f.loop, UV_RUN_NOWAIT);
    assert_int_equal(f.calls, 5);
    fix_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_senders_nothing_lost),
        cmocka_unit_test(test_coalesces_while_pending),
        cmocka_unit_test(test_send_from_callback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
