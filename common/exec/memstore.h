/*
 * memstore.h - an embedded, in-memory Sluice database.
 *
 * Executes the Sluice SQL dialect in-process over tables held in memory: databases,
 * super/child/normal tables, INSERT (with USING ... TAGS auto-creation, NOW arithmetic,
 * timestamp strings, updates of an existing timestamp), DELETE by time range, SHOW,
 * DESCRIBE and SELECT through the shared planner and executor. It implements sl_catalog,
 * so the executor sees it exactly as it will see the cluster. The demo, the executor's
 * tests and the executor benchmark use it; the daemons do not.
 *
 * Not thread-safe: one thread uses a memstore at a time.
 */
#ifndef SL_MEMSTORE_H
#define SL_MEMSTORE_H

#include <stdint.h>

#include "../types/block.h"
#include "../util/error.h"
#include "catalog.h"
#include "result.h"

typedef struct sl_memstore sl_memstore;

/*
 * Opens an empty store. now_fn (may be NULL: the system clock) gives the current time in
 * milliseconds since the epoch, for NOW; tests inject a fixed clock. Returns 0 or SL_ENOMEM.
 */
int sl_memstore_open(sl_memstore **out, int64_t (*now_ms)(void *ud), void *now_ud);

/* Frees the store and all its tables (NULL-safe). */
void sl_memstore_close(sl_memstore *ms);

/* The store as a catalog, for the planner. Valid while ms is. */
sl_catalog sl_memstore_catalog(sl_memstore *ms);

/*
 * Executes every statement of sql in order and leaves the result of the last one in
 * *res (initialised by the call; free with sl_result_fini). Stops at the first failing
 * statement: earlier statements stay applied, the failing one changes nothing (a bad row
 * in an INSERT rejects the whole INSERT). Errors carry the statement position.
 */
int sl_memstore_exec(sl_memstore *ms, const char *sql, sl_result *res, sl_error *err);

/*
 * Bulk-appends a block to a table (created beforehand) without going through SQL: the
 * block's columns are the table's columns in order. Used by benchmarks and generators.
 */
int sl_memstore_append(sl_memstore *ms, const char *db, const char *table,
                       const sl_block *rows, sl_error *err);

#endif
