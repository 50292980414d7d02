/*
 * trigger_int.h - the inside of the trigger engine: the compiled definition, the per-group
 * state, and the ops table every window kind implements (one file per trigger type:
 * trigger_period.c, trigger_sliding.c, trigger_interval.c, trigger_session.c,
 * trigger_count.c, trig_state.c, trig_event.c; docs/triggers.md describes each kind's
 * decisions).
 *
 * The split of work: the core (trigger.c: feeding, release, replay, events, ticks;
 * trigger_store.c: the directory, the hot set, the group encoding and its spill to kv;
 * trigger_ckpt.c: checkpoints; trigger_def.c: compiling the definition, the kind table,
 * the fingerprint; trigger_values.c: the per-group value store of STATE/EVENT) owns
 * everything that does not depend on the kind - groups and their directory, the hot set
 * and its spill to kv, PRE_FILTER, watermark release (rule 2), the released-row log kept
 * for recomputation, late/update/delete handling by replay, the list of emitted windows
 * and the INVALIDATION diff, EVENT_TYPE filtering, flags, trigger ids, MAX_DELAY,
 * IDLE/RESUME, checkpoints. A kind only decides windows: it turns released rows (in
 * timestamp order) and watermark advances into window opens and closes through
 * sl__trig_open/sl__trig_close, and keeps its state in a word array the core stores,
 * copies and serializes for it (plus, for STATE/EVENT, the group's value store).
 *
 * Recomputation contract: a kind whose state at the first row of the group's row log is
 * its initial state (state_init) can be replayed. After a late row, update or delete the
 * core resets a scratch kind state, feeds it the whole row log and the current watermark
 * with emission captured (windows and a deep copy of their state/field values), diffs the
 * windows it closes against the emitted ones and emits INVALIDATION / CLOSE / OPEN for the
 * differences, with the same values a first emission carries. retain_from() tells the core
 * how far back the log must reach for that to stay exact: the core prunes log rows and
 * emitted windows older than it. A kind may instead implement late() itself.
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
    uint64_t xhash;         /* hash of the closing condition and the window's state / field
                             * values: a recomputed window that differs only there is
                             * re-emitted too */
    uint32_t xoff;          /* replay capture only: 1 + offset of the window's values in
                             * the capture arena, 0: none (not stored with the group) */
} sl__trig_closed;

/*
 * One released row in the group's log. aux is the kind's per-row value from prepare().
 *
 * Kinds without prepare()/intern() (INTERVAL, SESSION, SLIDING: the kinds a group spanning
 * tables - tag grouping, ROLLUP BY, no grouping over a super table - can have) use no aux;
 * for them (def->table_rows) aux holds the row's table key instead, a hash of its tbname
 * (never 0 or SL__TRIG_AUX_SKIP), and a row is (ts, table): two tables' rows at one
 * timestamp are two rows, sorted by (ts, aux), and a delete of one table's rows leaves the
 * other tables' rows. aux 0 is a row of an unknown table (fed without the tbname column,
 * or restored from state written before rows were told apart): it is the same row as any
 * table's row at its timestamp. Other kinds keep one row per timestamp.
 */
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
     * NULL (aux 0). Returns 0 or an expression error; it changes no group state. */
    int (*prepare)(const sl_trig_def *def, const sl_block *b, const uint32_t *sel, uint32_t n,
                   uint64_t *aux, sl_error *err);
    /* Optional (STATE/EVENT): called right after prepare for the same block, once the
     * group is known: stores the rows' values in the group's value store (c->g->vs) and
     * completes aux with their codes. kinds[r] (may be NULL) is the row kind of row r.
     * Returns 0, SL_ENOMEM or SL_ELIMIT. */
    int (*intern)(sl__trig_ctx *c, const sl_block *b, const uint32_t *sel, const uint8_t *kinds,
                  uint32_t n, uint64_t *aux, sl_error *err);
    /* Optional: drops values of the group's value store nothing refers to any more
     * (called after each prune; the kind decides when it is worth it). */
    void (*gc)(sl__trig_ctx *c);
    /* Optional: a hash of the kind's resolved parameters that the AST hash of the
     * definition does not cover (key types, ...), for the checkpoint fingerprint. */
    uint64_t (*fingerprint)(const sl_trig_def *def);
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
    /* INTERVAL / SLIDING, precision units. interval_months / sliding_months > 0 replace
     * interval / sliding by that many calendar months (units n and y). */
    int64_t interval, interval_offset, sliding, sliding_offset;
    int64_t interval_months, sliding_months;
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
    bool table_rows;            /* the row log tells rows apart by table (see sl__trig_logrow) */
    /* Options. */
    int64_t watermark;          /* 0 default */
    int64_t expired;            /* 0: none */
    bool ignore_disorder, delete_recalc, force_output, low_latency, calc_notify_only;
    bool ignore_nodata;
    bool fill_history, fill_history_first;
    int64_t fill_history_start; /* INT64_MIN: none */
    int64_t max_delay_ns;       /* 0: none */
    int64_t idle_timeout_ns;    /* 0: none */
    unsigned events;            /* SL_EVT_* emitted: EVENT_TYPE's and NOTIFY ON's */
    unsigned calc_events;       /* SL_EVT_* that compute (EVENT_TYPE's) */
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

/* The per-group value store of STATE/EVENT (trigger_values.c): code -> exact values. */
#define SL__TRIG_VS_SLOTS 16 /* low code bits that tell apart tuples of one hash */
typedef struct sl__trig_vent {
    uint64_t code;
    uint32_t off, len;          /* encoded values in bytes */
    uint32_t next;              /* 1 + index of the next entry of the same hash, 0: none */
    uint32_t mark;              /* garbage collection */
} sl__trig_vent;

typedef struct sl__trig_vstore {
    sl__trig_vent *e;
    uint32_t n, cap;
    uint32_t *idx;              /* hash part -> 1 + index of its first entry */
    uint32_t icap;              /* power of two (0: empty) */
    sl_buf bytes;
    uint32_t gc_at;             /* collect once n reaches it */
} sl__trig_vstore;

/* Decoded per-group state (the hot set holds these; the kv store their encoding). */
struct sl__trig_group {
    uint64_t gid;
    int64_t max_ts;             /* highest ts seen (INT64_MIN: none) */
    int64_t released;           /* highest released ts (INT64_MIN: none) */
    int64_t wm;                 /* watermark applied to the kind (INT64_MIN: none) */
    uint64_t version_hi;
    sl__trig_rowvec pending;    /* rows > watermark, sorted by ts, unique ts (table_rows:
                                 * sorted by (ts, aux), unique (ts, aux)) */
    sl__trig_rowvec log;        /* released rows, sorted and unique as pending */
    sl__trig_closedvec closed;  /* emitted windows, by close order */
    uint8_t *kst;               /* kind state, def->ops->state_size bytes */
    sl__trig_vstore vs;         /* values behind row codes (STATE/EVENT), else empty */
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
/* Index, relative to the log head, of the first log row with ts >= t (the rows in the
 * log when every row is older). */
uint32_t sl__trig_log_lower(const sl__trig_group *g, int64_t t);
/* Rows in the log. */
static inline uint32_t sl__trig_log_len(const sl__trig_group *g)
{
    return g->log.n - g->log.head;
}

/* Directory entry of a group: what the engine keeps in memory for every group, hot or
 * spilled (about 72 bytes), so ticks (IDLE, MAX_DELAY, PERIOD) need no kv reads. */
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
    int64_t p_lo, p_hi;         /* PERIOD: least and greatest timestamp of the rows since
                                 * the last point (valid with SL__DE_HAS_DATA): the ts range
                                 * of the ON_TIME's %%trows */
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
    sl__trig_closedvec capture;      /* replay: captured closes */
    sl__trig_closedvec capture_open; /* replay: captured opens (start, index, values) */
    sl_buf capx;                     /* replay: values of captured windows */
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

/* Values (trigger_values.c). Exact equality (text by bytes, numbers by value, floats by
 * bits) and a per-position hash of a non-NULL value. */
bool sl__trig_value_eq(const sl_value *a, const sl_value *b);
uint64_t sl__trig_value_hash(const sl_value *v, int pos);
/* n values appended to out / read back (strings point into the reader's bytes). */
int sl__trig_vals_put(sl_buf *out, const sl_value *vals, int n);
int sl__trig_vals_get(sl_reader *r, sl_value *out, int max, int *n);
/* The code of vals (n values) in vs: base (a hash; its low slot bits are ignored) plus the
 * slot of vals among the tuples sharing that hash, adding vals when new. */
int sl__trig_vs_intern(sl__trig_vstore *vs, uint64_t base, const sl_value *vals, int n,
                       uint64_t *code);
/* Decodes the n values of code into out (strings valid until vs changes); false: unknown. */
bool sl__trig_vs_get(const sl__trig_vstore *vs, uint64_t code, sl_value *out, int n);
/* Whether two codes name equal tuples: hash parts first, then the values. */
bool sl__trig_vs_eq(const sl__trig_vstore *vs, uint64_t a, uint64_t b, int n);
/* Garbage collection: mark every code still referred to, then sweep the rest. */
bool sl__trig_vs_gc_due(const sl__trig_vstore *vs);
void sl__trig_vs_mark(sl__trig_vstore *vs, uint64_t code);
int sl__trig_vs_sweep(sl__trig_vstore *vs);
void sl__trig_vs_free(sl__trig_vstore *vs);
size_t sl__trig_vs_mem(const sl__trig_vstore *vs);
int sl__trig_vs_encode(const sl__trig_vstore *vs, sl_buf *out);
int sl__trig_vs_decode(sl__trig_vstore *vs, sl_reader *r);

/* Hash of an expression tree (kinds, operators, lower-cased names, literals), for the
 * definition fingerprint (trigger_def.c). NULL hashes as a constant. */
uint64_t sl__trig_expr_hash(const sl_expr *e, uint64_t seed);

#endif
