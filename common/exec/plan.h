/*
 * plan.h - SELECT statements to executable operator trees.
 *
 * The planner resolves a SELECT's names against an sl_catalog, type-checks and compiles
 * its expressions once, and builds a tree of block operators (scan, filter, project,
 * aggregate, partition, interval window, sort, limit; exec.h). The resulting plan is
 * pulled block by block. The CLI path, the embedded store and the stream runner all use
 * this one planner, differing only in the catalog they pass and the placeholder values
 * they bind.
 */
#ifndef SL_PLAN_H
#define SL_PLAN_H

#include <stdint.h>

#include "../sql/ast.h"
#include "../types/block.h"
#include "../types/value.h"
#include "../util/buf.h"
#include "../util/error.h"
#include "catalog.h"

typedef struct sl_plan sl_plan;
typedef struct sl_op sl_op;

/* Where a plan over a table runs (see sl_plan_ctx.mode). */
typedef enum sl_plan_mode {
    SL_PLAN_FULL = 0, /* everything here, scanning through the catalog */
    SL_PLAN_PARTIAL,  /* the storage-node half: scan -> filter -> partial aggregate, or the
                       * filtered scanned columns when the query does not aggregate */
    SL_PLAN_MERGE     /* the querying-node half: the PARTIAL output of every storage node
                       * (from open_remote) -> merge aggregate -> the rest of the query */
} sl_plan_mode;

typedef struct sl_plan_ctx {
    sl_catalog catalog;
    const char *db;   /* current database for unqualified names, may be NULL */
    int64_t now_ms;   /* the statement's NOW, milliseconds since the epoch */
    /*
     * Binds a stream placeholder (SL_EX_PLACEHOLDER node) to a value; NULL when the
     * statement is not a stream computation (placeholders are then an error). Returns 0 or
     * an error with a message.
     */
    int (*bind_placeholder)(void *ud, const sl_expr *ph, sl_value *out, sl_error *err);
    void *bind_ud;
    /*
     * Opens the source of FROM %%trows / %%tbname for a stream computation; NULL otherwise.
     * Fills *meta with the trigger table's meta and scans it through the catalog above.
     */
    int (*bind_source)(void *ud, const sl_from *from, sl_table_meta *meta, sl_error *err);
    /*
     * Splitting a query over a table between storage nodes and the querying node. PARTIAL
     * plans end after the (partial) aggregate and name their columns _key<i>, _wstart,
     * _wend, _wduration, _state<j> (or the scanned columns' names). MERGE plans read
     * the PARTIAL output of the same statement text (sel->text) from open_remote, which
     * returns a source operator (exec.h) that fans the statement out and yields every
     * storage node's blocks; the rest of the query (merge, HAVING, projection, ORDER BY,
     * LIMIT) runs here. Subqueries in FROM are split the same way at their own level.
     */
    sl_plan_mode mode;
    int (*open_remote)(void *ud, const sl_select *sel, const sl_table_meta *meta, sl_op **out,
                       sl_error *err);
    void *remote_ud;
} sl_plan_ctx;

/*
 * Plans sel. Every error (unknown table or column, type mismatch, misuse of an aggregate,
 * unsupported clause) is reported with the position of the offending node. Returns 0 and
 * *out (free with sl_plan_free); the AST may be freed once this returns.
 */
int sl_plan_select(const sl_select *sel, const sl_plan_ctx *ctx, sl_plan **out, sl_error *err);

/* Frees a plan and its operators (NULL-safe). */
void sl_plan_free(sl_plan *p);

/* The result's columns. */
int sl_plan_ncols(const sl_plan *p);
const char *sl_plan_col_name(const sl_plan *p, int i);
sl_type sl_plan_col_type(const sl_plan *p, int i);
uint32_t sl_plan_col_width(const sl_plan *p, int i);
/* Precision of the timestamps in the result (the scanned table's, ms without a table). */
sl_precision sl_plan_precision(const sl_plan *p);

/*
 * Returns the next block of results in *out (owned by the plan, valid until the next
 * call), or *out == NULL at the end. Runs the plan on the first call. Errors during
 * execution (division by zero, overflow) are returned with a message.
 */
int sl_plan_next(sl_plan *p, sl_block **out, sl_error *err);

/*
 * Runs the plan to the end, appending every row to out, which must be empty (the call
 * adds the result's columns). Returns 0 or an error.
 */
int sl_plan_collect(sl_plan *p, sl_block *out, sl_error *err);

/*
 * Takes the plan's operator tree out of it (the caller frees it with sl_op_free); the plan
 * keeps its column description and yields nothing more.
 */
sl_op *sl_plan_take_root(sl_plan *p);

/* Appends a one-operator-per-line description of the plan's tree to out (EXPLAIN). */
int sl_plan_explain(const sl_plan *p, sl_buf *out);

#endif
