/*
 * busy.c - the decaying busy-time meter (busy.h).
 */
#include "busy.h"

#include <math.h>

void sl_busy_init(sl_busy *b, uint64_t tau_ns)
{
    atomic_store(&b->value, 0.0);
    atomic_store(&b->at, 0);
    b->tau_ns = tau_ns > 0 ? tau_ns : 1;
}

/* v, last updated at `at`, decayed to now (a time before `at` decays nothing). */
static double decayed(const sl_busy *b, double v, uint64_t at, uint64_t now)
{
    if (now <= at || v == 0.0)
        return v;
    return v * exp(-(double)(now - at) / (double)b->tau_ns);
}

void sl_busy_add(sl_busy *b, uint64_t end_ns, uint64_t dur_ns)
{
    double v = decayed(b, atomic_load_explicit(&b->value, memory_order_relaxed),
                       atomic_load_explicit(&b->at, memory_order_relaxed), end_ns);
    v += (double)dur_ns / (double)b->tau_ns;
    atomic_store_explicit(&b->value, v, memory_order_relaxed);
    atomic_store_explicit(&b->at, end_ns, memory_order_release);
}

double sl_busy_frac(const sl_busy *b, uint64_t now_ns)
{
    uint64_t at = atomic_load_explicit(&b->at, memory_order_acquire);
    double v = atomic_load_explicit(&b->value, memory_order_relaxed);
    return decayed(b, v, at, now_ns);
}
