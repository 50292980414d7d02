/*
 * stask_int.h - internals of a stream task shared by stask.c (thread, reader, engines,
 * checkpoints) and srun.c (runner and output).
 */
#ifndef SL_STASK_INT_H
#define SL_STASK_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "client/lib/sluice.h"
#include "common/exec/catalog.h"
#include "common/net/rpc.h"
#include "common/sql/parser.h"
#include "common/util/keymap.h"
#include "stask.h"

/* Most group key items (PARTITION BY entries) of a stream. */
#define ST_MAX_KEYS 64

typedef struct st_rows st_rows;

/* Where the rows of the event being processed came from (for %%tbname and tags). */
typedef struct st_group {
    uint64_t id;
    char table[200];         /* the child (or normal) table whose rows triggered */
    int nkeys;               /* PARTITION BY values of the group; ROLLUP BY: one, the
                              * node's path (a prefix of the table's tag value) */
    sl_value keys[ST_MAX_KEYS];
    char keybuf[4096];       /* string bytes of keys */
} st_group;

/* What the task remembers of a group for events that do not come with rows (ticks:
 * PERIOD, IDLE, MAX_DELAY): its table and its key values in the canonical group-key
 * encoding (common/types/value.h). Saved in the slot's checkpoint. */
typedef struct st_gctx {
    uint64_t id;
    char *table;             /* owned */
    uint8_t *key;            /* owned encoding */
    uint32_t keylen;
} st_gctx;

/* One output subtable known to exist (created by this task or found). */
typedef struct st_outtab {
    uint64_t group;
    char *name;              /* owned */
} st_outtab;

struct sl_stask {
    sl_stask_cfg cfg;        /* strings below are owned copies */
    char *c_host, *c_db, *c_name, *c_sql, *c_plan_db;
    uint8_t *c_slots;
    pthread_t th;
    bool started;            /* th runs (or ran) */
    bool joined;             /* th was joined (sl_stask_join): only memory is left */
    atomic_bool stop;
    atomic_bool final_ckpt;
    _Atomic uint64_t epoch;
    pthread_mutex_t mu;      /* guards st */
    sl_stask_status st;

    /* ---- owned by the thread */
    sl_conn *meta;           /* metadata of the trigger table (no DDL on it) */
    sl_conn *run;            /* queries and writes (fenced by the epoch) */
    sl_conn *ddl;            /* CREATE TABLE of output subtables: DDL drops the metadata
                              * cache of the connection it is sent on, which on `run` made
                              * every later query and write ask the mnode again */
    sl_rpc_client *mcli;     /* the mnode: checkpoints */
    sl_parse_result *pr;
    const sl_create_stream *cs;
    bool has_table;          /* FROM given (PERIOD may have none) */
    char trig_db[200], trig_name[200];
    sl_table_info trig;      /* into meta's cache */
    sl_precision prec;
    sl_trig_def *def;
    int nkeys;               /* grouping: -1 tbname, i >= 0 tag i */
    int32_t keys[ST_MAX_KEYS];
    bool rollup;             /* ROLLUP BY: keys[0] (nkeys 1) is the path tag, and a table's
                              * rows feed every prefix group of its path (docs/streams.md,
                              * "ROLLUP BY") */
    sl_type rollup_type;     /* the path tag's type (VARCHAR or NCHAR) */
    int nproj;
    int32_t *proj;
    int nvg;
    uint32_t *vg_ids;
    sl_rpc_client **vg_cli;
    uint64_t *cursor;        /* per vgroup: last version consumed */
    sl_trig **eng;           /* per slot (NULL: not owned or not created yet) */
    uint64_t *slot_ver;      /* nslots x nvg: versions a slot's checkpoint covers */
    bool *dirty;             /* per slot: changed since its last checkpoint */
    bool *out_failed;        /* per slot: an output write failed since the task started: the
                              * slot is not checkpointed again (its last checkpoint is before
                              * the lost rows; the next owner or restart recomputes them) */
    int64_t last_ckpt_ms;
    int64_t ckpt_gap_ms;     /* until the next checkpoint round (ckpt_gap()) */
    uint64_t ckpt_rounds;    /* checkpoint_all calls (every 10th refreshes clean slots) */
    bool ready;              /* set up and positioned */
    bool yielding;           /* a vgroup said its writes are heavy: this thread runs at
                              * SCHED_IDLE (when it may come back) and its reads say so */
    /* runner / output */
    st_group grp;            /* group of the entry being fed / the event being processed */
    sl_keymap gmap;          /* group id -> index in gctx */
    st_gctx *gctx;
    size_t ngctx, capgctx;
    char out_db[200], out_name[200];
    bool grouped;
    st_outtab *outs;
    size_t nouts, capouts;
    char *prefilter_sql;     /* PRE_FILTER as SQL text, NULL without */
    /* FILL_HISTORY / FILL_HISTORY_FIRST (docs/streams.md, "History") */
    bool fill_history;       /* either option is set (and the stream has a trigger table) */
    bool fill_first;         /* FILL_HISTORY_FIRST */
    int64_t hist_start;      /* event-time start in precision units; INT64_MIN: all rows */
    st_rows *rows;           /* strows.c: %%trows kept here, NULL when computations go to the
                              * vnodes */
    bool *hist_pending;      /* per slot: its history is not processed yet - the slot is
                              * never checkpointed while set */
};

/* srun.c: runs the computation of ev for the current group (t->grp), writes its rows to
 * the output table, and calls the event hook. Errors are recorded in the status. */
void sl__st_process_event(sl_stask *t, const sl_trig_event *ev);
/* srun.c: frees the output cache. */
void sl__st_outputs_free(sl_stask *t);
/* stask.c: copies the string bytes of key value *v into g->keybuf at offset used
 * (truncated to what is left of it), points *v at the copy and returns the new offset. */
size_t sl__st_group_keep_str(st_group *g, size_t used, sl_value *v);
/* stask.c: makes t->grp the group of rollup node `path` (len bytes, the table's path or a
 * prefix of it; copied, truncated to the key buffer) with id sl_rollup_group_id, table
 * `table` (borrowed). Does not remember the group context. */
void sl__st_group_path(sl_stask *t, const char *table, const char *path, uint32_t len);
/* stask.c: appends name quoted as an identifier (`name`, backticks doubled). 0 or
 * SL_ENOMEM. */
int sl__st_put_ident(sl_buf *b, const char *name);
/* srun.c: runs the query in q (its text so far; a NUL is appended) on the task's run
 * connection, which must give one row of one integer column: *out, or *is_null. `what`
 * names it in errors. */
int sl__st_query_i64(sl_stask *t, sl_buf *q, int64_t *out, bool *is_null, const char *what,
                     sl_error *err);
/* stask.c: records an error in the status (printf-like). */
void sl__st_error(sl_stask *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* srun.c: NODELAY_CREATE_SUBTABLE - creates the output subtables of the groups the trigger
 * table has now whose slots the task owns; called once at the end of setup(). */
void sl__st_create_outputs(sl_stask *t);
/* srun.c: DELETE_OUTPUT_TABLE - child table `table` (group group_id) of the trigger table
 * was dropped (change kind 3): drops its output subtable when the stream asks for it. */
void sl__st_table_dropped(sl_stask *t, const char *table, uint64_t group_id);
/* srun.c: processes the events queued since the last call (batching without
 * LOW_LATENCY_CALC; the first call enables it). Called by the task loop at the end of
 * every reader round and before every checkpoint. */
void sl__st_flush_batch(sl_stask *t);

/*
 * strows.c - %%trows from the rows the task read (see the file's comment).
 * setup decides whether the stream's computations can run here and, when they read
 * %%trows, fixes where the groups' covers start (one MAX(ts) query; call it after the
 * reader's positions are fixed); add/delete/dropped mirror the change log into the
 * group's rows (add before the rows are fed to the engine); ready says whether event ev
 * can be computed here and makes its group the scan's source; done drops what a computed
 * closed window leaves behind. All on the task's thread.
 */
void sl__st_rows_setup(sl_stask *t);
void sl__st_rows_free(sl_stask *t);
void sl__st_rows_add(sl_stask *t, uint64_t gid, const sl_block *b, const uint8_t *kinds);
void sl__st_rows_delete(sl_stask *t, uint64_t gid, int64_t lo, int64_t hi);
void sl__st_rows_dropped(sl_stask *t, uint64_t gid);
bool sl__st_rows_ready(sl_stask *t, const sl_trig_event *ev);
void sl__st_rows_done(sl_stask *t, const sl_trig_event *ev);
/* The catalog whose scans read the group ready() chose (%%trows via bind_source). */
sl_catalog sl__st_rows_catalog(sl_stask *t);
/* Bytes of rows kept. */
size_t sl__st_rows_mem(const sl_stask *t);

#endif
