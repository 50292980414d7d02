/*
 * busy.h - a decaying busy-time meter: what fraction of the recent past one thread spent
 * on some kind of work, readable from any thread.
 *
 * The thread doing the work reports each piece when it ends (sl_busy_add: when it ended
 * and how long it took); any thread asks for the fraction now (sl_busy_frac). The meter
 * is an exponentially decaying sum with time constant tau: work of a steady fraction f
 * of the time reads as f, and it fades to a third after tau of no work. It is what the
 * vnode uses to tell a heavy client write load (its loop busy applying writes) from a
 * light one, so that the streams' change-log reads yield to the former.
 *
 * One writer thread, any number of readers; no locks. A reader racing the writer may pair
 * the newest value with the previous time (or the reverse): an error of one piece of
 * work, which the meter's use tolerates.
 */
#ifndef SL_BUSY_H
#define SL_BUSY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct sl_busy {
    _Atomic double value;    /* the decayed sum at time `at`, in units of tau */
    _Atomic uint64_t at;     /* ns (monotonic) of the last update */
    uint64_t tau_ns;
} sl_busy;

/* A meter with time constant tau_ns (> 0), reading 0. */
void sl_busy_init(sl_busy *b, uint64_t tau_ns);
/* Work of dur_ns that ended at end_ns (monotonic, not before the previous end). Writer
 * thread only. */
void sl_busy_add(sl_busy *b, uint64_t end_ns, uint64_t dur_ns);
/* busy_ns of work spread evenly over [start_ns, end_ns] (start_ns < end_ns, not before
 * the previous end): what a sampled counter gives (a thread's run time since the last
 * sample). Unlike sl_busy_add, a long span adds only its own fraction, however long it
 * was: a counter read after a second of idling with 10 ms of work in it reads as 1%, not
 * as 10 ms of work just now. Writer thread only. */
void sl_busy_add_span(sl_busy *b, uint64_t start_ns, uint64_t end_ns, uint64_t busy_ns);
/* The busy fraction as of now_ns (>= 0; about the fraction of the last tau spent busy). */
double sl_busy_frac(const sl_busy *b, uint64_t now_ns);

/*
 * A gate with hysteresis over a write share and a CPU demand (both fractions from
 * meters): it opens ("heavy") when writes >= w and the fast demand reading >= d, and
 * stays open while writes >= w and either demand reading >= d / 2. A fast meter lets it
 * open within a few ms of a load starting (and keeps it open while the slow one still
 * rises from idle); the slow one and the lower mark keep it open through the load's short
 * dips (a flush, a stall), so that a load is either yielded to or not, rather than
 * flickering. Returns the new state.
 */
bool sl_busy_gate(bool was_heavy, double writes, double demand_fast, double demand_slow,
                  double w, double d);

#endif
