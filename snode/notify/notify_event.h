/*
 * notify_event.h - one notification event, owned and self-contained, as the notifier
 * receives it (DESIGN.md section 3 "Notify path", spec/stream-syntax.txt "Notification
 * Mechanism").
 *
 * The notifier knows nothing about how streams run: the runner decides that an event is
 * to be notified (ON (...), WHERE on the result, NOTIFY_HISTORY) and hands over an
 * sl_notify_event holding every value the JSON of the spec needs. The trigger engine's
 * sl_trig_event is borrowed for the duration of its sink call only, so
 * sl_notify_event_from_trig() copies what it carries, and the runner adds what the engine
 * does not know (stream name, database, output subtable, result row).
 *
 * Times follow spec/semantics.md rule 13: windowStart / windowEnd in the precision of the
 * result table (the database precision, recorded in ne_precision), eventTime in
 * milliseconds, idleStart / idleEnd in nanoseconds.
 */
#ifndef SL_NOTIFY_EVENT_H
#define SL_NOTIFY_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/types/value.h"
#include "common/util/error.h"
#include "common/util/timeutil.h"
#include "snode/trigger/trigger.h"

/* triggerType of the JSON; the names are those of spec "Fields of the event Object". */
typedef enum sl_notify_trigger {
    SL_NOTIFY_TRIG_PERIOD = 0,   /* "Period" */
    SL_NOTIFY_TRIG_SLIDING = 1,  /* "Sliding" */
    SL_NOTIFY_TRIG_INTERVAL = 2, /* "Interval" */
    SL_NOTIFY_TRIG_SESSION = 3,  /* "Session" */
    SL_NOTIFY_TRIG_STATE = 4,    /* "State" */
    SL_NOTIFY_TRIG_EVENT = 5,    /* "Event" */
    SL_NOTIFY_TRIG_COUNT = 6,    /* "Count" */
    SL_NOTIFY_TRIG__N = 7
} sl_notify_trigger;

/* eventType of the JSON. */
typedef enum sl_notify_event_type {
    SL_NOTIFY_EV_WINDOW_OPEN = 0,
    SL_NOTIFY_EV_WINDOW_CLOSE = 1,
    SL_NOTIFY_EV_ON_TIME = 2,
    SL_NOTIFY_EV_IDLE = 3,
    SL_NOTIFY_EV_RESUME = 4,
    SL_NOTIFY_EV_WINDOW_INVALIDATION = 5,
    SL_NOTIFY_EV__N = 6
} sl_notify_event_type;

/*
 * A named list of values (a result row, or triggerCondition.fieldValue). One allocation
 * holds the name pointers, the values and every byte they point at.
 */
typedef struct sl_notify_row {
    int n;                 /* number of columns; 0 when absent */
    const char **names;    /* n NUL-terminated names, owned (inside the allocation) */
    sl_value *values;      /* n values; string bytes owned (inside the allocation) */
    void *mem;             /* the allocation, NULL when n == 0 */
} sl_notify_row;

/*
 * The event. Initialise with sl_notify_event_init() (or from_trig), free with
 * sl_notify_event_fini(). Every pointer is owned by the event. Fields that do not apply
 * to the event's trigger type and event type are ignored by the serializer.
 */
typedef struct sl_notify_event {
    char *ne_stream;            /* streamName (required) */
    char *ne_db;                /* database of the stream (not serialized; for logs) */
    char *ne_table;             /* tableName: the output subtable; NULL: no output table,
                                 * the field is left out */
    sl_notify_trigger ne_trigger;
    sl_notify_event_type ne_type;
    uint32_t ne_flags;          /* SL_TRIG_F_* copied from the engine (HISTORY, RECALC...) */
    uint64_t ne_trigger_id;     /* triggerId, serialized as a decimal string */
    uint64_t ne_group_id;       /* groupId, serialized as a decimal string (0: no groups) */
    int64_t ne_event_time_ms;   /* eventTime, ms since the epoch */
    sl_precision ne_precision;  /* precision of ne_wstart / ne_wend */
    int64_t ne_wstart;          /* windowStart (windows and WINDOW_INVALIDATION) */
    int64_t ne_wend;            /* windowEnd (WINDOW_CLOSE, WINDOW_INVALIDATION) */
    int32_t ne_window_index;    /* windowIndex (Event): sub-window index, -1 plain/parent */
    int32_t ne_condition_index; /* triggerCondition.conditionIndex (Event), -1: none */
    sl_notify_row ne_fields;    /* triggerCondition.fieldValue (Event) */
    int ne_nstate;              /* State: keys per array below */
    sl_value *ne_prev_state;    /* prevState; NULL: JSON null (no previous window) */
    sl_value *ne_cur_state;     /* curState */
    sl_value *ne_next_state;    /* nextState; NULL: JSON null */
    void *ne_state_mem;         /* one allocation behind the three arrays */
    int64_t ne_idle_start_ns;   /* idleStart (IDLE / RESUME), ns since the epoch */
    int64_t ne_idle_end_ns;     /* idleEnd, ns since the epoch */
    int64_t ne_idle_duration_ms; /* idleDurationMs (monotonic) */
    /* ON_TIME trigger times (not in the spec's JSON; kept for the runner and logs). */
    int64_t ne_prev_ts, ne_cur_ts, ne_next_ts;
    int64_t ne_localtime_ns;
    bool ne_has_result;         /* result present (a computation produced a row) */
    sl_notify_row ne_result;    /* result: column names and values */
} sl_notify_event;

/* Sets every field of ev to "absent" (NULL, 0, indexes -1). */
void sl_notify_event_init(sl_notify_event *ev);

/* Frees what ev owns (NULL-safe) and leaves it initialised. */
void sl_notify_event_fini(sl_notify_event *ev);

/* Names as they appear in the JSON ("Interval", "WINDOW_CLOSE"); "?" when out of range. */
const char *sl_notify_trigger_name(sl_notify_trigger t);
const char *sl_notify_event_type_name(sl_notify_event_type t);

/* Parses a triggerType name, case-insensitively ("INTERVAL", "Interval", "SLIDING").
 * Returns 0 and *out, or SL_EINVAL. */
int sl_notify_trigger_parse(const char *s, sl_notify_trigger *out);

/*
 * Fills ev (initialised by the call; fini it afterwards, also after an error) from an
 * engine event te (borrowed for the call; every value is copied). stream (required), db
 * and table (NULL: no output table) are copied; prec is the database precision te's
 * times are in. A MAX_DELAY trigger is notified as a WINDOW_CLOSE (trigger.h). Returns 0,
 * SL_EINVAL (unknown trigger or event type, missing stream name, a negative key count)
 * with a message, or SL_ENOMEM.
 */
int sl_notify_event_from_trig(sl_notify_event *ev, const sl_trig_event *te, const char *stream,
                              const char *db, const char *table, sl_precision prec,
                              sl_error *err);

/*
 * Sets the result row of ev to n columns (names and values borrowed for the call; copied).
 * n == 0 records an empty result object. Replaces an earlier result. Returns 0, SL_EINVAL
 * (n < 0, a NULL name) or SL_ENOMEM (ev keeps its previous result).
 */
int sl_notify_event_set_result(sl_notify_event *ev, const char *const *names,
                               const sl_value *values, int n);

/* Same for triggerCondition.fieldValue. */
int sl_notify_event_set_fields(sl_notify_event *ev, const char *const *names,
                               const sl_value *values, int n);

/*
 * Sets the state keys (State windows): nstate keys per array; prev / next may be NULL
 * (JSON null), cur must not be NULL when nstate > 0. Copies. Returns 0, SL_EINVAL or
 * SL_ENOMEM.
 */
int sl_notify_event_set_state(sl_notify_event *ev, int nstate, const sl_value *prev,
                              const sl_value *cur, const sl_value *next);

#endif
