/*
 * stask.h - one stream running on an snode: the trigger path, the compute path and the
 * output path of DESIGN.md section 3 for the (stream, slot) pairs the snode owns.
 *
 * A task runs on its own thread with a synchronous loop, so the daemon's libuv loop never
 * waits on storage or computation:
 *
 *   reader   one cursor per vgroup of the trigger table's database; filtered change-log
 *            reads (VNODE_CHANGES with a ChangesFilter: the trigger table, the grouping,
 *            the owned slots, every column + tags + tbname) with a short long-poll wait;
 *   engines  one trigger engine (snode/trigger) per owned slot, fed the rows of that
 *            slot's groups in change-log order; ticks for PERIOD, MAX_DELAY and IDLE;
 *            with ROLLUP BY a table's rows feed every node of its path the task owns
 *            (docs/streams.md, "ROLLUP BY");
 *   runner   for every event with a computation: the AS subquery printed back to SQL with
 *            the placeholders replaced by the event's values and FROM %%trows / %%tbname
 *            replaced by the trigger table restricted to the group, the window and
 *            PRE_FILTER (common/sql/unparse.h), run through libsluice (scans and partial
 *            aggregation on the vnodes, merge here);
 *   output   result rows written to the INTO table - for a grouped stream the group's
 *            subtable, created on first use with its tags - through libsluice with the
 *            task's placement epoch, so a deposed snode's writes are refused (fencing);
 *            a result whose first column is NULL is dropped (semantics rule 11);
 *   events   every event is also handed to the task's event hook (notifications);
 *   checkpoints  per owned slot: the consumed version of every vgroup and the engine's
 *            state, stored in the mnode's checkpoint store (fenced by the epoch) after
 *            the events they cover were processed; a task starting on a slot restores
 *            from it and skips the change-log entries the checkpoint already covers.
 *
 * A computation error (division by zero, a missing table) is recorded in the task's
 * status and does not stop the task or other groups. Output that could not be written (a
 * vnode or the mnode unreachable past the retries, a write fenced before the task moved to
 * a new epoch) is recomputed: the slot is not checkpointed past it, and once the mnode
 * answers again the task sets itself up anew from the checkpoints (stask.c, "Recovery").
 */
#ifndef SL_STASK_H
#define SL_STASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/util/error.h"
#include "snode/trigger/trigger.h"

typedef struct sl_stask sl_stask;

/* Called on the task's thread for every event, after its computation: result (may be
 * NULL: no computation, or no row) holds the rows written, names its column names, and
 * table the output (sub)table ("" without INTO). The hook must not block for long. */
typedef struct sl_stask_result {
    int ncols;
    const char *const *names;
    const struct sl_block *rows; /* NULL when there is no result */
    const char *table;           /* output table written, "" when none */
    sl_precision precision;      /* of timestamps in rows and in the event */
} sl_stask_result;
typedef void (*sl_stask_sync_fn)(void *ud, const sl_stask *task, bool final);
typedef void (*sl_stask_event_fn)(void *ud, const sl_stask *task, const sl_trig_event *ev,
                                  const sl_stask_result *res);

typedef struct sl_stask_cfg {
    const char *mnode_host;  /* the mnode, for libsluice and checkpoints */
    int mnode_port;
    uint32_t node_id;        /* this snode */
    uint64_t epoch;          /* the assignment epoch the task acts on */
    uint64_t stream_id;
    const char *db;          /* the stream's database */
    const char *name;        /* the stream's name */
    const char *sql;         /* the CREATE STREAM text */
    const char *plan_db;     /* unqualified names of the query resolve here */
    uint32_t nslots;
    const uint8_t *slots;    /* owned slots bitmap, (nslots + 7) / 8 bytes (copied) */
    /* START ... IGNORE UNTREATED took effect in this epoch (0: none): a slot whose
     * checkpoint is older starts at the change log's end, skipping what was written while
     * the stream was stopped; newer checkpoints are resumed from as usual. */
    uint64_t ignore_untreated_epoch;
    int checkpoint_ms;       /* between checkpoints (0: 1000) */
    int poll_wait_ms;        /* long-poll wait per vgroup read (0: 100) */
    int nice;                /* the daemon's CPU priority (0..19, SL_NICE_IDLE): what the
                              * thread returns to after yielding to heavy client writes */
    sl_stask_event_fn on_event; /* may be NULL */
    /* Called on the task's thread before each checkpoint, and with final set once as the
     * thread ends: returns when what on_event was given is as durable as the checkpoint
     * needs (the notifications in the outbox). May be NULL. */
    sl_stask_sync_fn on_sync;
    void *event_ud;             /* of on_event and on_sync */
} sl_stask_cfg;

/* Starts the task's thread (cfg and its strings are copied). Returns 0 and *out, or
 * SL_ENOMEM / SL_EINVAL. Setup errors (the stream does not parse, the trigger table is
 * gone, the mnode is unreachable) are retried by the thread and shown in the status. */
int sl_stask_start(const sl_stask_cfg *cfg, sl_stask **out, sl_error *err);

/* Moves the task to a newer epoch with the same slots (its next writes carry it). */
void sl_stask_set_epoch(sl_stask *t, uint64_t epoch);

/* Asks the thread to stop (after a last checkpoint when `checkpoint` is true and the task
 * is still the owner) without waiting. Signalling many tasks first lets them wind down
 * together instead of one after another. May be called again, e.g. with false when the
 * task turns out deposed before it got to its last checkpoint (the flag is read once, as
 * the thread ends). Any thread. */
void sl_stask_signal_stop(sl_stask *t, bool checkpoint);

/* Waits until the thread of a task asked to stop has ended: its last reply fed, its last
 * checkpoint written (or refused), its connections closed. Blocks for up to one poll wait
 * plus an in-flight computation and the last checkpoint's requests, so a libuv loop must
 * not call it (the snode daemon joins on libuv's thread pool). Call it once, from one
 * thread; sl_stask_get_status and sl_stask_set_epoch may run meanwhile. */
void sl_stask_join(sl_stask *t);

/* Stops the thread - after a last checkpoint when `checkpoint` is true and the task is
 * still the owner; a task already joined keeps the stop it was asked for - joins it
 * (blocking, see sl_stask_join) and frees the task (NULL-safe). After sl_stask_join it
 * only frees memory. */
void sl_stask_stop(sl_stask *t, bool checkpoint);

/* What the task reports (heartbeat, ins_stream_tasks). */
typedef struct sl_stask_status {
    uint64_t stream_id;
    uint64_t epoch;
    uint64_t rows;          /* trigger rows consumed */
    uint64_t events;        /* events processed */
    uint64_t results;       /* result rows written */
    uint64_t calc_here;     /* computations run on the snode (%%trows from memory) */
    uint64_t calc_remote;   /* computations sent to the vnodes */
    uint64_t rows_kept_bytes; /* trigger rows kept for %%trows (strows.c) */
    uint64_t groups;        /* trigger groups held */
    int64_t lag_ms;         /* wall clock minus the newest row time consumed (0: none) */
    bool fenced;            /* the mnode or a vnode refused the epoch: the task idles */
    bool ready;             /* set up: cursors positioned, rows written from now on count */
    char error[256];        /* last error ("" when none) */
} sl_stask_status;

/* Copies the task's status (thread-safe). */
void sl_stask_get_status(sl_stask *t, sl_stask_status *out);

/* Slots per stream and the owned-slot test, for callers comparing assignments. */
uint64_t sl_stask_stream_id(const sl_stask *t);
const char *sl_stask_name(const sl_stask *t);
const char *sl_stask_db(const sl_stask *t);
bool sl_stask_same_slots(const sl_stask *t, uint32_t nslots, const uint8_t *slots);

/* Whether the task was asked to stop (any thread). Its last events come while it winds
 * down; the daemon joins it off its loop, so that loop keeps running meanwhile. */
bool sl_stask_stopping(const sl_stask *t);

/* Whether the stop asked for (sl_stask_signal_stop) writes a last checkpoint. */
bool sl_stask_final_checkpoint(const sl_stask *t);

/* The stream's parsed CREATE STREAM, for the event hook (called on the task's thread);
 * NULL before the task is set up. */
const sl_create_stream *sl_stask_stream(const sl_stask *t);

#endif
