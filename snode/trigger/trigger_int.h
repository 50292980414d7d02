/*
 * trigger_int.h - the inside of the trigger engine: the compiled definition, the per-group
 * state, and the ops table every window kind implements (one file per trigger type:
 * trigger_period.c, trigger_sliding.c, trigger_interval.c, trigger_session.c,
 * trigger_count.c, and later trigger_state.c, trigger_event.c).
 *
 * The split of work: the core (trigger.c, trigger_group.c, trigger_store.c,
 * trigger_ckpt.c) owns everything that does not depend on the kind - groups and their
 * directory, the hot set and its spill to kv, PRE_FILTER, watermark release (rule 2),
 * the released-row log kept for recomputation, late/update/delete handling by replay,
 * the list of emitted windows and the INVALIDATION diff, EVENT_TYPE filtering, flags,
 * trigger ids, MAX_DELAY, IDLE/RESUME, checkpoints. A kind only decides windows: it turns
 * released rows (in timestamp order) and watermark advances into window opens and closes
 * through sl__trig_open/sl__trig_close, and keeps its state in a byte area the core
 * stores, copies and serializes for it.
 *
 * Recomputation contract: a kind whose state at the first row of the group's row log is
 * its initial state (state_init) can be replayed. After a late row, update or delete the
 * core resets a scratch kind state, feeds it the whole row log and the current watermark
 * with emission captured, diffs the windows it closes against the emitted ones and emits
 * INVALIDATION / CLOSE / OPEN for the differences. retain_from() tells the core how far
 * back the log must reach for that to stay exact: the core prunes log rows and emitted
 * windows older than it. A kind may instead implement late() itself.
 */
#ifndef SL_TRIGGER_INT_H
#define SL_TRIGGER_INT_H

#include "trigger.h"

#include "common/expr/expr.h"

typedef struct sl__trig_ctx sl__trig_ctx;
typedef struct sl__trig_group sl__trig_group;

/* A window as a kind reports it. */
typedef struct sl__trig_win {
    int64_t start;          /* _twstart */
    int64_t end;            /* _twend (INTERVAL: exclusive end) */
    uint64_t rownum;        /* rows in the window */
    int32_t window_index;   /* EVENT sub-window index, else -1 */
    int32_t condition_index;/* EVENT condition index, else -1 */
    /* Optional kind-owned extras copied into the event (STATE/EVENT); borrowed for the
     * duration of the sl__trig_open/close call. */
    int nstate;
    const sl_value *prev_state, *cur_state, *next_state;
    int nfields;
    const char *const *field_names;
    const sl_value *field_values;
} sl__trig_win;

/* A window the core emitted a close for, kept for the invalidation diff. */
typedef struct sl__trig_closed {
    int64_t start, end;
    uint64_t rownum;
    int32_t window_index;
    int32_t condition_index;
    int64_t close_pos;      /* release position (ts / watermark) at which it closed */
    uint32_t emitted;       /* 1 when a CLOSE event was emitted (not filtered out) */
} sl__trig_closed;

/* One released row in the group's log. aux is the kind's per-row value from prepare(). */
typedef struct sl__trig_logrow {
    int64_t ts;
    uint64_t aux;
} sl__trig_logrow;

typedef struct sl__trig_kind_ops {
    sl_trigger_kind kind;
    const char *type_name;  /* notification triggerType */
    bool window;            /* a window trigger (OPEN/CLOSE), not PERIOD/SLIDING */
    /* Builds the kind's parameters into def->k (durations converted, columns resolved,
     * expressions compiled against def->binder). Returns 0 or an error with message. */
    int (*build)(sl_trig_def *def, const sl_create_stream *cs, sl_error *err);
    /* Frees what build allocated (NULL-safe on a partly built def). May be NULL. */
    void (*def_free)(sl_trig_def *def);
    /* Bytes of the fixed-size kind state, a multiple of 8: the state is an array of int64_t
     * words (the core encodes it word by word); state_init puts the initial state there. */
    size_t (*state_size)(const sl_trig_def *def);
    void (*state_init)(const sl_trig_def *def, void *kst);
    /* Computes the per-row aux of rows sel[0..n) of b (the row log keeps it). May be
     * NULL (aux 0). Returns 0 or an expression error. */
    int (*prepare)(const sl_trig_def *def, const sl_block *b, const uint32_t *sel, uint32_t n,
                   uint64_t *aux, sl_error *err);
    /* A released row, in timestamp order (ts >= every earlier released ts). */
    int (*row)(sl__trig_ctx *c, int64_t ts, uint64_t aux);
    /* The group's watermark advanced to wm (after the rows <= wm were released). */
    int (*advance)(sl__trig_ctx *c, int64_t wm);
    /* The earliest open window, if any (for MAX_DELAY): returns true and fills *w. */
    bool (*open_window)(sl__trig_ctx *c, sl__trig_win *w);
    /* Earliest log timestamp a replay needs, given that changes older than horizon are
     * ignored. INT64_MIN keeps everything. */
    int64_t (*retain_from)(sl__trig_ctx *c, int64_t horizon);
    /* Optional: handles a late change itself instead of the core's replay. NULL: replay. */
    int (*late)(sl__trig_ctx *c, int64_t lo, int64_t hi, int kind);
    /* Whether late rows/updates/deletes are recomputed at all (COUNT slide != 1: no). */
    bool (*recalc)(const sl_trig_def *def);
    /* Optional: the core removed n rows from the head of the log (they preceded the
     * position retain_from returned); the kind shifts counters relative to the head. */
    void (*pruned)(sl__trig_ctx *c, uint32_t n);
    /* Whether released rows are kept in the log at all (PERIOD: no). */
    bool keeps_log;
    /* Optional (added for STATE/EVENT): definition-level data that row aux values refer to
     * (the value dictionary of trig_state.c). ckpt_save appends it to a checkpoint after the
     * groups; ckpt_load merges it back on restore (0 or SL_ECORRUPT). NULL: nothing is
     * written, so the checkpoints of other kinds are unchanged. */
    int (*ckpt_save)(const sl_trig_def *def, sl_buf *out);
    int (*ckpt_load)(const sl_trig_def *def, const void *p, size_t n);
} sl__trig_kind_ops;

extern const sl__trig_kind_ops sl__trig_period_ops;
extern const sl__trig_kind_ops sl__trig_sliding_ops;
extern const sl__trig_kind_ops sl__trig_interval_ops;
extern const sl__trig_kind_ops sl__trig_session_ops;
extern const sl__trig_kind_ops sl__trig_count_ops;
/* STATE_WINDOW and EVENT_WINDOW: see the end of this file (trig_state.c, trig_event.c). */

/* Kind parameters, converted to the database precision. Kinds own their part. */
typedef struct sl__trig_kparams {
    /* PERIOD / SLIDING schedule (kept as durations: calendar units). */
    sl_duration period, period_offset;
    /* INTERVAL / SLIDING, precision units. */
    int64_t interval, interval_offset, sliding, sliding_offset;
    /* SESSION gap. */
    int64_t gap;
    /* COUNT_WINDOW. */
    int64_t count, count_slide;
    int ncount_cols;
    int *count_cols;            /* input column indexes */
    /* Free room for STATE / EVENT (owned by their files). */
    void *ext;
} sl__trig_kparams;

struct sl_trig_def {
    const sl__trig_kind_ops *ops;
    sl_trigger_kind kind;
    uint64_t stream_id;
    sl_precision prec;
    int32_t tz_offset_sec;
    int64_t now;
    /* Schema for binding expressions. */
    int ncols, ntags;
    char **col_names;           /* ncols + ntags + 1 (tbname) names, owned */
    sl_type *col_types;
    uint32_t *col_widths;
    int min_columns;            /* 1 + highest referenced input column */
    bool has_table;
    bool single_group;          /* no PARTITION BY / ROLLUP BY: group 0 exists from the start */
    /* Options. */
    int64_t watermark;          /* 0 default */
    int64_t expired;            /* 0: none */
    bool ignore_disorder, delete_recalc, force_output, low_latency, calc_notify_only;
    bool ignore_nodata;
    bool fill_history, fill_history_first;
    int64_t fill_history_start; /* INT64_MIN: none */
    int64_t max_delay_ns;       /* 0: none */
    int64_t idle_timeout_ns;    /* 0: none */
    unsigned events;            /* SL_EVT_* */
    sl_cexpr *pre_filter;       /* NULL: none */
    uint32_t event_flags;       /* flags every event carries */
    uint64_t fingerprint;       /* hash of everything above that shapes state */
    sl__trig_kparams k;
};

/* Records a referenced input column (for min_columns) and binds names; used by kinds that
 * compile expressions. */
int sl__trig_bind(void *ud, const sl_expr *node, sl_binding *b, sl_error *err);
/* Resolves a column/tag/tbname name to an input column index, or -1. */
int sl__trig_column_index(const sl_trig_def *def, const char *name);
/* Converts a duration to precision units, refusing calendar units with a message. */
int sl__trig_dur(const sl_trig_def *def, const sl_duration *d, const char *what, int64_t *out,
                 sl_error *err);

/* Growable arrays of the group state. */
typedef struct sl__trig_rowvec {
    sl__trig_logrow *v;
    uint32_t n, cap, head;      /* rows are v[head..n) */
} sl__trig_rowvec;

typedef struct sl__trig_closedvec {
    sl__trig_closed *v;
    uint32_t n, cap;
} sl__trig_closedvec;

/* Decoded per-group state (the hot set holds these; the kv store their encoding). */
struct sl__trig_group {
    uint64_t gid;
    int64_t max_ts;             /* highest ts seen (INT64_MIN: none) */
    int64_t released;           /* highest released ts (INT64_MIN: none) */
    int64_t wm;                 /* watermark applied to the kind (INT64_MIN: none) */
    uint64_t version_hi;
    sl__trig_rowvec pending;    /* rows > watermark, sorted by ts, unique ts */
    sl__trig_rowvec log;        /* released rows, sorted by ts, unique ts */
    sl__trig_closedvec closed;  /* emitted windows, by close order */
    uint8_t *kst;               /* kind state, def->ops->state_size bytes */
    /* Hot-set bookkeeping. */
    sl__trig_group *lru_prev, *lru_next;
    bool dirty;
};

/* Emission context handed to kind ops. */
struct sl__trig_ctx {
    sl_trig *t;
    const sl_trig_def *def;
    sl__trig_group *g;
    void *kst;                  /* the kind state being driven */
    int64_t pos;                /* current release position (row ts or watermark) */
    /* Replay capture: when set, opens/closes are recorded here instead of emitted. */
    sl__trig_closedvec *capture;
    const sl_trig_sink *sink;
    uint32_t flags;             /* extra event flags (HISTORY, RECALC) */
};

/* The ts of the log row at index i relative to the log head (i < rows in the log). */
int64_t sl__trig_log_ts(const sl__trig_group *g, uint32_t i);
/* Rows in the log. */
static inline uint32_t sl__trig_log_len(const sl__trig_group *g)
{
    return g->log.n - g->log.head;
}

/* Directory entry of a group: what the engine keeps in memory for every group, hot or
 * spilled (about 56 bytes), so ticks (IDLE, MAX_DELAY, PERIOD) need no kv reads. */
enum {
    SL__DE_IDLE = 1u << 0,      /* IDLE emitted, RESUME pending */
    SL__DE_HAS_DATA = 1u << 1,  /* rows since the last PERIOD point */
    SL__DE_STORED = 1u << 2,    /* state is in the kv store */
    SL__DE_SEEN = 1u << 3       /* last_mono / last_wall are valid */
};

typedef struct sl__trig_dirent {
    uint64_t gid;
    sl__trig_group *hot;        /* decoded state, or NULL when spilled / not created */
    int64_t last_mono;          /* monotonic ns of the group's last rows */
    int64_t last_wall;          /* wall ns of the group's last rows (idle start) */
    int64_t md_deadline;        /* MAX_DELAY: next monotonic deadline, INT64_MAX: none */
    int64_t md_wstart;          /* MAX_DELAY: start of the window the deadline is for */
    uint32_t flags;             /* SL__DE_* */
} sl__trig_dirent;

struct sl_trig {
    const sl_trig_def *def;
    sl_trig_clock clock;
    sl_kv *kv;
    sl_kv_cf *cf;
    uint32_t max_hot;
    int64_t history;
    /* Directory: dense array in creation order + open-addressing index (idx + 1). */
    sl__trig_dirent *dir;
    uint32_t ndir, capdir;
    uint32_t *index;
    uint32_t index_cap;         /* power of two */
    /* Hot set, most recently used first. */
    sl__trig_group *lru_head, *lru_tail;
    uint32_t nhot;
    /* PERIOD schedule (wall ns). */
    int64_t period_prev, period_next;
    sl_trig_stats st;
    /* Scratch. */
    uint32_t *sel;
    uint64_t *aux;
    uint32_t scratch_cap;
    uint8_t *kst_scratch;
    sl__trig_closedvec capture;
    sl_buf kbuf, vbuf;
};

/* trigger_store.c: the directory, the hot set and the group encoding. */
int sl__trig_dir_get(sl_trig *t, uint64_t gid, bool create, sl__trig_dirent **out);
int sl__trig_group_get(sl_trig *t, sl__trig_dirent *de, sl__trig_group **out, sl_error *err);
sl__trig_group *sl__trig_group_new(const sl_trig_def *def, uint64_t gid);
void sl__trig_group_free(sl__trig_group *g);
int sl__trig_group_encode(const sl_trig_def *def, const sl__trig_group *g, sl_buf *out);
int sl__trig_group_decode(const sl_trig_def *def, const void *p, size_t n, sl__trig_group **out,
                          sl_error *err);
/* Encoded state of a group, hot or spilled, appended to out. */
int sl__trig_group_bytes(sl_trig *t, sl__trig_dirent *de, sl_buf *out, sl_error *err);
int sl__trig_store_key(const sl_trig *t, uint64_t gid, sl_buf *out);
/* Frees the directory and every hot group (engine close / restore). */
void sl__trig_dir_free(sl_trig *t);
int64_t sl__trig_wall(const sl_trig *t);
int64_t sl__trig_mono(const sl_trig *t);

/* Kind -> core: a window opened / closed. Return 0 or the sink's error. */
int sl__trig_open(sl__trig_ctx *c, const sl__trig_win *w);
int sl__trig_close(sl__trig_ctx *c, const sl__trig_win *w);
/* Kind -> core: an ON_TIME event (SLIDING); the core fills id, flags, times. */
int sl__trig_on_time(sl__trig_ctx *c, sl_trig_event *ev, int64_t id_start);
/* Rows of the group's log with lo <= ts < hi. */
uint64_t sl__trig_log_count(const sl__trig_group *g, int64_t lo, int64_t hi);

/* The closed-window entry of start/window_index, or NULL. */
sl__trig_closed *sl__trig_closed_find(sl__trig_group *g, int64_t start, int32_t window_index);
/* Emits WINDOW_INVALIDATION for e (when its close was emitted) and removes it from the
 * group's closed list (e is invalid afterwards). */
int sl__trig_invalidate(sl__trig_ctx *c, sl__trig_closed *e);

/* A per-row aux value meaning "this row takes no part in windows" (COUNT: all trigger
 * columns NULL): not logged; an update to it removes the row. */
#define SL__TRIG_AUX_SKIP UINT64_MAX

/* Checks a PERIOD/SLIDING period and offset in precision p (trigger_period.c). */
int sl__trig_sched_check(sl_duration period, sl_duration offset, bool has_offset, sl_precision p,
                         const char *what, sl_error *err);

/* The schedule helpers in precision units with calendar-aware durations (trigger_period.c). */
int64_t sl__trig_sched_next(const sl_trig_def *def, sl_precision p, int64_t t);
int64_t sl__trig_sched_prev(const sl_trig_def *def, sl_precision p, int64_t t);

/* ------------------------------------------------------------------------------------
 * STATE_WINDOW and EVENT_WINDOW (trig_state.c, trig_event.c). Added with those kinds;
 * nothing in the core uses these declarations.
 */
extern const sl__trig_kind_ops sl__trig_state_ops;
extern const sl__trig_kind_ops sl__trig_event_ops;

/* A TRUE_FOR limit_expr in precision units; op is an sl_limit_op or SL__TRIG_LIMIT_NONE. */
#define SL__TRIG_LIMIT_NONE (-1)
typedef struct sl__trig_limit {
    int op;
    int64_t dur;   /* DURATION, AND, OR */
    int64_t count; /* COUNT, AND, OR */
} sl__trig_limit;
int sl__trig_limit_build(const sl_trig_def *def, const sl_limit_expr *l, sl__trig_limit *out,
                         sl_error *err);
/* Whether a window / streak [start, end] of rows rows meets l (NONE: always). */
bool sl__trig_limit_met(const sl__trig_limit *l, int64_t start, int64_t end, uint64_t rows);

/* Value dictionary of a definition: row aux (a hash of values) -> n values, copied; a
 * bounded cache of two generations (see trig_state.c). get's result stays valid until the
 * next put. flips counts generation changes, after which kinds re-touch the keys their
 * group state holds. */
typedef struct sl__trig_vdict sl__trig_vdict;
sl__trig_vdict *sl__trig_vdict_new(int n);
void sl__trig_vdict_free(sl__trig_vdict *d);
uint64_t sl__trig_vdict_flips(const sl__trig_vdict *d);
const sl_value *sl__trig_vdict_get(sl__trig_vdict *d, uint64_t key);
int sl__trig_vdict_put(sl__trig_vdict *d, uint64_t key, const sl_value *vals);
/* Appends the entries to out / merges encoded entries back (SL_ECORRUPT on bad bytes). */
int sl__trig_vdict_encode(const sl__trig_vdict *d, sl_buf *out);
int sl__trig_vdict_decode(sl__trig_vdict *d, const void *p, size_t n);
bool sl__trig_value_eq(const sl_value *a, const sl_value *b);
uint64_t sl__trig_value_hash(const sl_value *v, int pos);

#endif
