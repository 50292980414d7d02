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

/* The value decayed to end_ns plus inc, as of end_ns (writer thread). */
static void bump(sl_busy *b, uint64_t end_ns, double inc)
{
    double v = decayed(b, atomic_load_explicit(&b->value, memory_order_relaxed),
                       atomic_load_explicit(&b->at, memory_order_relaxed), end_ns);
    atomic_store_explicit(&b->value, v + inc, memory_order_relaxed);
    atomic_store_explicit(&b->at, end_ns, memory_order_release);
}

void sl_busy_add(sl_busy *b, uint64_t end_ns, uint64_t dur_ns)
{
    bump(b, end_ns, (double)dur_ns / (double)b->tau_ns);
}

void sl_busy_add_span(sl_busy *b, uint64_t start_ns, uint64_t end_ns, uint64_t busy_ns)
{
    if (end_ns <= start_ns) {
        sl_busy_add(b, end_ns, busy_ns);
        return;
    }
    /* A steady rate r = busy / span over the span adds r * (1 - e^(-span/tau)) (the
     * integral of r/tau * e^(-(end - t)/tau) over the span). */
    double span = (double)(end_ns - start_ns);
    bump(b, end_ns, (double)busy_ns / span * -expm1(-span / (double)b->tau_ns));
}

bool sl_busy_gate(bool was_heavy, double writes, double demand_fast, double demand_slow,
                  double w, double d)
{
    if (writes < w)
        return false;
    if (!was_heavy)
        return demand_fast >= d;
    /* Either reading: the slow one bridges dips, the fast one covers a load just started
     * (the slow one still rising from idle). */
    return demand_slow >= d / 2 || demand_fast >= d / 2;
}

double sl_busy_frac(const sl_busy *b, uint64_t now_ns)
{
    uint64_t at = atomic_load_explicit(&b->at, memory_order_acquire);
    double v = atomic_load_explicit(&b->value, memory_order_relaxed);
    return decayed(b, v, at, now_ns);
}
