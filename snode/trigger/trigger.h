/*
 * trigger.h - the trigger engine: the deterministic state machines that cut a stream's
 * trigger-table rows into windows and emit the events that drive computation and
 * notification (DESIGN.md section 3, spec/stream-syntax.txt, spec/semantics.md).
 *
 * The engine is a library with no I/O except its optional state store (common/kv) and an
 * injectable clock. A stream's trigger is first compiled once from its CREATE STREAM tree
 * into an immutable sl_trig_def (trigger type, durations converted to the database
 * precision, options, PRE_FILTER and the kind's expressions compiled against the trigger
 * table's schema). An sl_trig engine instance then runs that definition for any number of
 * trigger groups: the runtime feeds it blocks of change-log rows of one group at a time
 * (each row with its timestamp, change-log version and whether it is an insert, an update
 * of an existing timestamp or a delete), range deletes, and clock ticks; the engine calls
 * the sink with each event (WINDOW_OPEN, WINDOW_CLOSE, ON_TIME, IDLE, RESUME,
 * WINDOW_INVALIDATION and the MAX_DELAY intermediate trigger), carrying every value the
 * placeholders and notifications need.
 *
 * Per-group window state lives in an in-memory hot set bounded by a group count; groups
 * beyond it are spilled to a RocksDB column family through common/kv and reloaded when
 * their rows arrive, so a million idle groups cost only a small directory entry each.
 * The whole engine state serializes into a checkpoint and restores exactly.
 *
 * Input block layout: the columns of the trigger table in schema order (column 0 is the
 * TIMESTAMP key), then its tags in schema order, then tbname (VARCHAR); tags and tbname
 * may be constant columns. Only the columns the definition references must be present:
 * sl_trig_def_min_columns() tells how many.
 *
 * Thread rules: an sl_trig_def is immutable after sl_trig_def_build except that its
 * compiled expressions hold scratch space, so a definition and every engine built on it
 * are used by one thread at a time. Nothing here blocks except the kv calls.
 */
#ifndef SL_TRIGGER_H
#define SL_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/exec/catalog.h"
#include "common/kv/kv.h"
#include "common/sql/ast.h"
#include "common/types/block.h"
#include "common/types/value.h"
#include "common/util/buf.h"
#include "common/util/error.h"
#include "common/util/timeutil.h"

/* ------------------------------------------------------------------------------ events */

typedef enum sl_trig_event_type {
    SL_TRIG_EV_WINDOW_OPEN = 0,
    SL_TRIG_EV_WINDOW_CLOSE = 1,
    SL_TRIG_EV_ON_TIME = 2,             /* PERIOD and plain SLIDING */
    SL_TRIG_EV_IDLE = 3,
    SL_TRIG_EV_RESUME = 4,
    SL_TRIG_EV_WINDOW_INVALIDATION = 5, /* an emitted window changed or vanished */
    SL_TRIG_EV_MAX_DELAY = 6            /* intermediate trigger of a window still open:
                                         * computed like a close over the rows so far;
                                         * notified (if at all) as a WINDOW_CLOSE */
} sl_trig_event_type;

/* Flags carried on events. */
enum {
    SL_TRIG_F_LOW_LATENCY = 1u << 0,  /* STREAM_OPTIONS LOW_LATENCY_CALC */
    SL_TRIG_F_CALC_NOTIFY_ONLY = 1u << 1, /* CALC_NOTIFY_ONLY */
    SL_TRIG_F_FORCE_OUTPUT = 1u << 2, /* FORCE_OUTPUT */
    SL_TRIG_F_RECALC = 1u << 3,       /* re-emission after late data, update or delete */
    SL_TRIG_F_HISTORY = 1u << 4,      /* caused by a batch the runtime marked as history */
    SL_TRIG_F_NO_DATA = 1u << 5,      /* the window / period holds no rows */
    SL_TRIG_F_NOTIFY_ONLY = 1u << 6   /* a type NOTIFY ON asks for but EVENT_TYPE does not:
                                       * notified, not computed */
};

/* Classes of the deterministic trigger id: events of one class for the same (stream,
 * group, start, window index) share the id, so OPEN/CLOSE/INVALIDATION/MAX_DELAY of a
 * window, and IDLE/RESUME of an idle cycle, correlate. */
typedef enum sl_trig_id_class {
    SL_TRIG_IDC_WINDOW = 1,
    SL_TRIG_IDC_ON_TIME = 2,
    SL_TRIG_IDC_IDLE = 3
} sl_trig_id_class;

/* Most state keys / condition field values carried on one event. */
#define SL_TRIG_MAX_KEYS 16

/*
 * One emitted event. Borrowed by the sink for the duration of the call only (values and
 * strings point into engine memory); the sink copies what it keeps. Times are in the
 * database precision unless the field says ns or ms. Fields that do not apply to the event
 * hold 0 (times), -1 (indexes) or NULL/0 (arrays).
 */
typedef struct sl_trig_event {
    sl_trig_event_type type;
    uint32_t flags;            /* SL_TRIG_F_* */
    uint64_t trigger_id;       /* sl_trig_id(stream, group, id_start, class, window_index) */
    uint64_t group_id;         /* _tgrpid */
    const char *trigger_type;  /* notification triggerType: "Period", "Sliding", "Interval",
                                * "Session", "State", "Event", "Count" (static) */
    int64_t event_time_ms;     /* wall clock when emitted (notification eventTime) */
    int64_t localtime_ns;      /* _tlocaltime: wall clock of the trigger (PERIOD: the
                                * scheduled instant) */
    /* Windows (OPEN, CLOSE, INVALIDATION, MAX_DELAY). */
    int64_t wstart;            /* _twstart */
    int64_t wend;              /* _twend: INTERVAL exclusive end; others the last row */
    int64_t wduration;         /* _twduration = wend - wstart */
    uint64_t rownum;           /* _twrownum */
    /* ON_TIME. */
    int64_t prev_ts, cur_ts, next_ts;      /* SLIDING: _tprev_ts, _tcurrent_ts, _tnext_ts */
    int64_t prev_local_ns, next_local_ns;  /* PERIOD: _tprev_localtime, _tnext_localtime */
    /* IDLE / RESUME. */
    int64_t idle_start_ns;     /* _tidlestart: wall time of the group's last data */
    int64_t idle_end_ns;       /* _tidleend: wall time of this event */
    int64_t idle_duration_ms;  /* monotonic duration idle start -> this event */
    /* Filled by the STATE and EVENT kinds (others leave them empty). */
    int32_t condition_index;   /* EVENT: condition that opened/closed the window, or -1 */
    int32_t window_index;      /* EVENT: sub-window index, -1 for plain/parent windows */
    int nstate;                /* STATE: number of state keys in each array below */
    const sl_value *prev_state; /* NULL when absent (no previous window) */
    const sl_value *cur_state;
    const sl_value *next_state;
    int nfields;               /* EVENT: triggerCondition.fieldValue */
    const char *const *field_names;
    const sl_value *field_values;
    /* Rows behind the window / period, for %%trows: timestamps [rows_lo, rows_hi]
     * inclusive, and the highest change-log version seen by the group so far. */
    int64_t rows_lo, rows_hi;
    uint64_t version_hi;
} sl_trig_event;

/* Name of an event type as in notifications ("WINDOW_OPEN", ..., "MAX_DELAY"). */
const char *sl_trig_event_type_name(sl_trig_event_type t);

/*
 * The deterministic trigger id of DESIGN.md: a 64-bit hash of (stream id, group id, start,
 * class, window index); start is the window start, the ON_TIME trigger time, or the idle
 * start. Pure function.
 */
uint64_t sl_trig_id(uint64_t stream_id, uint64_t group_id, int64_t start, sl_trig_id_class cls,
                    int32_t window_index);

/*
 * Where events go. emit is called once per event in order; a non-zero return stops the
 * current call, which returns that value (state already changed stays changed, see
 * sl_trig_feed). calc_running (may be NULL: never running) tells whether the previous
 * calculation of a group is still running, so a MAX_DELAY trigger is skipped.
 */
typedef struct sl_trig_sink {
    int (*emit)(void *ud, const sl_trig_event *ev);
    bool (*calc_running)(void *ud, uint64_t group_id);
    void *ud;
} sl_trig_sink;

/* ------------------------------------------------------------------------- definition */

typedef struct sl_trig_def sl_trig_def;

typedef struct sl_trig_def_opts {
    uint64_t stream_id;             /* for trigger ids */
    const sl_table_meta *table;     /* trigger table schema (borrowed during the call);
                                     * NULL only for a PERIOD without FROM */
    sl_precision precision;         /* database precision of event times */
    int32_t tz_offset_sec;          /* server time zone as a UTC offset (default 0: UTC);
                                     * used by PERIOD and the day-based SLIDING schedule */
    int64_t now;                    /* NOW for constant expressions, in precision */
} sl_trig_def_opts;

/*
 * Compiles the trigger of cs (borrowed; the AST may be freed after the call) into *out.
 * cs is expected to have passed sl_stream_check, but every rule the engine depends on is
 * checked again: a bad definition (zero or negative durations, an offset not shorter than
 * its period, COUNT_WINDOW(0), unknown trigger columns, a PRE_FILTER that is not boolean,
 * calendar units where the engine cannot use them) returns SL_EINVAL / SL_EUNSUPPORTED with
 * a message naming the rule, and *out is untouched. Returns SL_ENOMEM on exhaustion.
 */
int sl_trig_def_build(const sl_create_stream *cs, const sl_trig_def_opts *o, sl_trig_def **out,
                      sl_error *err);

/* Frees a definition (NULL-safe). Every engine built on it must be closed first. */
void sl_trig_def_free(sl_trig_def *d);

sl_trigger_kind sl_trig_def_kind(const sl_trig_def *d);
/* EVENT_TYPE bits (SL_EVT_*; WINDOW_CLOSE when absent). */
unsigned sl_trig_def_events(const sl_trig_def *d);
/* Columns an input block must have at least (see "Input block layout"). */
int sl_trig_def_min_columns(const sl_trig_def *d);
/* FILL_HISTORY / FILL_HISTORY_FIRST: returns true when one is set, with *start the start
 * time in precision (INT64_MIN when none was written) and *first true for _FIRST. The
 * runtime uses it to choose where to start reading; the engine does not filter on it. */
bool sl_trig_def_fill_history(const sl_trig_def *d, int64_t *start, bool *first);

/* ------------------------------------------------------------------------------ engine */

typedef struct sl_trig sl_trig;

/* The injectable clock. NULL functions read the real clocks (CLOCK_REALTIME /
 * CLOCK_MONOTONIC). */
typedef struct sl_trig_clock {
    int64_t (*wall_ns)(void *ud); /* ns since the Unix epoch */
    int64_t (*mono_ns)(void *ud); /* monotonic ns, for IDLE_TIMEOUT and MAX_DELAY */
    void *ud;
} sl_trig_clock;

typedef struct sl_trig_opts {
    sl_trig_clock clock;
    /* State store (both borrowed, must outlive the engine), or NULL for in-memory only.
     * Keys are (stream id, group id); several engines may share a column family. */
    sl_kv *kv;
    sl_kv_cf *cf;
    /* Groups kept decoded in memory with kv set (0: 4096); ignored without kv. */
    uint32_t max_hot_groups;
    /* Event-time history (precision units) kept behind the watermark for recomputing
     * windows after late rows, updates and deletes when EXPIRED_TIME is not set; older
     * changes are treated as expired. 0: one hour. */
    int64_t history;
    /* Wall time the stream was created (ns), for the first PERIOD trigger; 0: now. */
    int64_t created_ns;
} sl_trig_opts;

/*
 * Opens an engine running def (borrowed; must outlive the engine) with o (borrowed during
 * the call; NULL: defaults). Returns 0 and *out, SL_EINVAL or SL_ENOMEM.
 */
int sl_trig_open(sl_trig **out, const sl_trig_def *def, const sl_trig_opts *o, sl_error *err);

/* Closes the engine (NULL-safe). Hot state not yet checkpointed is lost; see
 * sl_trig_flush. */
void sl_trig_close(sl_trig *t);

typedef enum sl_trig_row_kind {
    SL_TRIG_ROW_INSERT = 0,
    SL_TRIG_ROW_UPDATE = 1, /* the timestamp existed: its values changed */
    SL_TRIG_ROW_DELETE = 2  /* the row at this timestamp was deleted */
} sl_trig_row_kind;

/* One block of change-log rows of one group, in change-log order. */
typedef struct sl_trig_input {
    uint64_t group_id;
    const sl_block *rows;      /* borrowed; layout above */
    const uint8_t *kinds;      /* nrows sl_trig_row_kind, or NULL: all inserts */
    const uint64_t *versions;  /* nrows change-log versions, or NULL */
    bool history;              /* rows read as FILL_HISTORY: events get SL_TRIG_F_HISTORY */
} sl_trig_input;

/*
 * Feeds one block: applies PRE_FILTER, releases rows by the group's watermark (rule 2),
 * runs the window kind and emits events to sink. An insert at an existing timestamp is an
 * update. Rows older than the last released row are out of order: they recompute the
 * affected windows (WINDOW_INVALIDATION + the new WINDOW_CLOSE for emitted ones), unless
 * IGNORE_DISORDER; deletes do so only with DELETE_RECALC; changes older than EXPIRED_TIME
 * (or the history) behind the watermark are ignored. Returns 0, SL_EINVAL (too few
 * columns, bad row kind), an expression error, a kv error, or the sink's return value.
 * On an expression error nothing changed; on a sink or kv error the events already
 * emitted stay emitted and the state includes them.
 */
int sl_trig_feed(sl_trig *t, const sl_trig_input *in, const sl_trig_sink *sink, sl_error *err);

/* Deletes the rows of group with lo <= ts <= hi, of every table (DELETE FROM, a dropped
 * child table, where the group is that one table); effective only with DELETE_RECALC.
 * Returns as sl_trig_feed. */
int sl_trig_delete_range(sl_trig *t, uint64_t group_id, int64_t lo, int64_t hi,
                         const sl_trig_sink *sink, sl_error *err);

/*
 * Deletes the rows of child table `table` (its tbname, len bytes, borrowed during the
 * call) with lo <= ts <= hi from group: DELETE FROM that table, or the table dropped
 * (lo..hi = everything), when the group may span tables (tag grouping, ROLLUP BY, no
 * grouping over a super table). The rows other tables of the group have in the range,
 * also at the same timestamps, stay, and the windows holding deleted rows are recomputed.
 * Effective only with DELETE_RECALC. INTERVAL, SESSION and plain SLIDING tell a group's rows
 * apart by table when they were fed with the tbname column ("Input block layout"); rows fed
 * without it count as the table's. For the other kinds (a group is one table) it is
 * sl_trig_delete_range. Returns as sl_trig_feed; SL_EINVAL when table is NULL.
 */
int sl_trig_delete_table_range(sl_trig *t, uint64_t group_id, const char *table, uint32_t len,
                               int64_t lo, int64_t hi, const sl_trig_sink *sink, sl_error *err);

/*
 * Advances processing time: PERIOD schedules, MAX_DELAY triggers, IDLE detection. Reads
 * the clock. Call it at least every sl_trig_next_tick_ns(). Returns as sl_trig_feed.
 */
int sl_trig_tick(sl_trig *t, const sl_trig_sink *sink, sl_error *err);

/* Monotonic ns of the next instant a tick has work (INT64_MAX: none). PERIOD deadlines
 * are converted from wall time at the moment of the call. */
int64_t sl_trig_next_tick_ns(sl_trig *t);

/* Writes every dirty hot group to the kv store (no-op without kv). Returns 0 or a kv
 * error. */
int sl_trig_flush(sl_trig *t, sl_error *err);

/*
 * Appends the whole engine state (every group, hot and spilled, the schedules, the idle
 * cycles) to out as one self-checking record (magic, version, definition fingerprint,
 * checksum). Monotonic times are stored relative to the clock at the call. Returns 0,
 * SL_ENOMEM or a kv error; on error out keeps its previous length.
 */
int sl_trig_checkpoint(sl_trig *t, sl_buf *out, sl_error *err);

/*
 * Replaces the engine state with a checkpoint made by sl_trig_checkpoint for the same
 * definition. Garbage, truncation, a checksum mismatch or a checkpoint of another
 * definition return SL_ECORRUPT / SL_EINVAL with a message and leave the engine exactly
 * as it was. With kv, this stream's old keys are removed from the store and the restored
 * groups beyond the hot set are written to it. Returns 0 or an error.
 */
int sl_trig_restore(sl_trig *t, const void *p, size_t n, sl_error *err);

typedef struct sl_trig_stats {
    uint64_t groups;          /* groups known */
    uint64_t hot_groups;      /* groups decoded in memory */
    uint64_t rows_in;         /* rows fed */
    uint64_t rows_filtered;   /* dropped by PRE_FILTER */
    uint64_t rows_late;       /* out of order, processed */
    uint64_t rows_ignored;    /* ignored: IGNORE_DISORDER, expired, deletes w/o DELETE_RECALC */
    uint64_t events;          /* events emitted */
    uint64_t spills, loads;   /* kv writes / reads of group state */
    size_t mem_bytes;         /* approximate bytes held in memory */
    size_t dir_bytes;         /* of which the group directory (the cost of idle groups) */
} sl_trig_stats;

void sl_trig_get_stats(const sl_trig *t, sl_trig_stats *out);

/* The number of groups the engine knows (sl_trig_stats.groups) in O(1); sl_trig_get_stats
 * walks the hot groups for mem_bytes. */
uint64_t sl_trig_groups(const sl_trig *t);

/* --------------------------------------------------------------- pure schedule helpers */

/*
 * The PERIOD / SLIDING schedule (spec "Scheduled Trigger"): returns the first trigger
 * point strictly after t. period/offset are durations (calendar units n, y and w allowed
 * for the period), times are counts in precision p, tz_offset_sec the zone as a UTC
 * offset. Below one day: points at local midnight + offset + k*period within each day;
 * one day and longer: epoch + offset + k*period (weeks from Monday 1970-01-05, months
 * from the 1st, years from January 1st). Pure function; invalid durations give INT64_MAX.
 */
int64_t sl_trig_schedule_next(sl_duration period, sl_duration offset, sl_precision p,
                              int32_t tz_offset_sec, int64_t t);
/* The last trigger point at or before t (same rules). */
int64_t sl_trig_schedule_prev(sl_duration period, sl_duration offset, sl_precision p,
                              int32_t tz_offset_sec, int64_t t);

#endif
