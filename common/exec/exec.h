/*
 * exec.h - block operators: the executor the planner (plan.h) assembles.
 *
 * Operators form a pull tree. next() returns the operator's next output block, owned by
 * the operator and valid until the next call, or *out == NULL at the end. Every operator
 * takes ownership of its child and of the compiled expressions given to it, and frees
 * them in free(). Operators never interpret the AST: expressions arrive compiled.
 */
#ifndef SL_EXEC_H
#define SL_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "../expr/agg.h"
#include "../expr/expr.h"
#include "../types/block.h"
#include "../util/buf.h"
#include "../util/error.h"
#include "catalog.h"

typedef struct sl_op sl_op;

typedef struct sl_op_vt {
    const char *name;
    int (*next)(sl_op *op, sl_block **out, sl_error *err);
    void (*free)(sl_op *op);
    /* Appends a one-line description (without the name) of the operator's arguments. */
    int (*describe)(const sl_op *op, sl_buf *out);
} sl_op_vt;

/* The common head of every operator; each operator's struct starts with it. */
struct sl_op {
    const sl_op_vt *vt;
    sl_op *child; /* NULL for sources */
};

static inline int sl_op_next(sl_op *op, sl_block **out, sl_error *err)
{
    return op->vt->next(op, out, err);
}

/* Frees an operator tree (NULL-safe). */
void sl_op_free(sl_op *op);

/* Appends the operator tree, one operator per line, indented by depth. */
int sl_op_explain(const sl_op *op, sl_buf *out, int depth);

/*
 * Source: scans a table through a catalog. The request is copied, the proj array and the
 * table meta included (the meta's strings and field arrays stay the catalog's).
 */
int sl_op_scan_new(const sl_catalog *cat, const sl_scan_req *req, sl_op **out, sl_error *err);

/* Source: one row with no columns (SELECT without FROM). */
int sl_op_one_row_new(sl_op **out, sl_error *err);

/* Keeps the rows for which cond is TRUE. Takes child and cond. */
int sl_op_filter_new(sl_op *child, sl_cexpr *cond, sl_op **out, sl_error *err);

/* Evaluates n expressions per block into n output columns. Takes child and exprs[i]. */
int sl_op_project_new(sl_op *child, int n, sl_cexpr **exprs, sl_op **out, sl_error *err);

/* Window of an aggregate: INTERVAL(interval, offset) SLIDING(sliding) over ts_col. */
typedef struct sl_window_spec {
    bool enabled;
    int64_t interval; /* in the table's precision, > 0 */
    int64_t offset;   /* 0 <= offset < sliding */
    int64_t sliding;  /* 0 < sliding <= interval */
    int ts_col;       /* input column holding the row timestamps */
} sl_window_spec;

/* One aggregate of an aggregate operator. */
typedef struct sl_agg_spec {
    sl_agg_kind kind;
    sl_cexpr *arg;    /* argument, NULL for COUNT(*) (taken) */
    int ts_col;       /* input timestamp column for FIRST/LAST/LAST_ROW, else -1 */
} sl_agg_spec;

/*
 * How an aggregate operator splits across nodes. A storage node runs PARTIAL over its rows
 * and ships partial states; the querying node runs MERGE over those and finishes.
 */
typedef enum sl_agg_mode {
    SL_AGG_MODE_FULL,    /* rows in, final values out */
    SL_AGG_MODE_PARTIAL, /* rows in; out: keys, [_wstart, _wend, _wduration], one encoded
                          * state per aggregate (VARCHAR holding sl_agg_state_encode bytes) */
    SL_AGG_MODE_MERGE    /* PARTIAL's output in (keys must be column references to it, the
                          * window start is read from column nkeys, the states from the
                          * columns after the window); final values out */
} sl_agg_mode;

/*
 * Hash aggregation with optional time windows. Output columns: the nkeys key values, then
 * (with a window) _wstart, _wend, _wduration, then one column per aggregate (final values,
 * or encoded states in PARTIAL mode). Groups come out in order of first appearance of
 * their key; windows of a key in ascending start order. Without keys and window, empty
 * input still yields one row (COUNT = 0). Takes child, keys[i] and every spec's arg (in
 * MERGE mode the specs' args are only used for their types and are never evaluated).
 */
int sl_op_agg_new(sl_op *child, sl_agg_mode mode, int nkeys, sl_cexpr **keys,
                  const sl_window_spec *win, int naggs, sl_agg_spec *aggs, sl_op **out,
                  sl_error *err);

/* Reorders rows so each partition's rows are contiguous (partitions in order of first
 * appearance, rows in input order within one). Takes child and keys. */
int sl_op_partition_new(sl_op *child, int nkeys, sl_cexpr **keys, sl_op **out, sl_error *err);

typedef struct sl_sort_key {
    int col;          /* input column */
    bool desc;
    bool nulls_first; /* default: NULLs first ascending, last descending */
} sl_sort_key;

/* Sorts all input rows by keys (stable). Takes child; keys are copied. */
int sl_op_sort_new(sl_op *child, int nkeys, const sl_sort_key *keys, sl_op **out,
                   sl_error *err);

/* Skips offset rows then passes at most limit rows (limit < 0: no limit). Takes child. */
int sl_op_limit_new(sl_op *child, int64_t limit, int64_t offset, sl_op **out, sl_error *err);

/*
 * Yields every block of children[0], then of children[1], ... (all must produce the same
 * columns). Takes the children (array copied). A querying node uses it to read the partial
 * results of several storage nodes as one stream.
 */
int sl_op_concat_new(sl_op **children, int n, sl_op **out, sl_error *err);

/* Keeps the first ncols columns of each block (drops hidden sort columns). Takes child. */
int sl_op_trim_new(sl_op *child, int ncols, sl_op **out, sl_error *err);

#endif
