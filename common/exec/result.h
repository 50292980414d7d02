/*
 * result.h - a statement's result: column names and one block of rows.
 *
 * Every front end that answers a statement in-process hands back this shape: the embedded
 * store (memstore.h), the mnode catalog (SHOW, DESCRIBE, information_schema) and, through
 * them, the CLI's table printer. The DDL helpers (ddl.h) build SHOW and DESCRIBE results
 * with the small constructors below, so every store lists the same columns.
 */
#ifndef SL_RESULT_H
#define SL_RESULT_H

#include <stdint.h>

#include "../types/block.h"
#include "../util/buf.h"
#include "../util/timeutil.h"

/* A result: column names and a block of rows (a statement without rows has ncols 0). */
typedef struct sl_result {
    int ncols;
    char **names;           /* owned */
    sl_block rows;          /* owned; rows.cols[i] has the column's type */
    sl_precision precision; /* for formatting timestamps */
    int64_t affected;       /* rows inserted/deleted, or -1 for queries */
} sl_result;

/* Makes *r an empty result without columns (affected 0, precision ms). Allocates nothing. */
void sl_result_init(sl_result *r);

/* Frees what a result owns and zeroes it (NULL-safe); it is then an empty result. */
void sl_result_fini(sl_result *r);

/*
 * Gives an empty result (sl_result_init) ncols columns with the given names (copied),
 * types and widths (widths may be NULL: all 0) and sets affected to -1 (a query). Returns
 * 0, SL_ENOMEM or SL_EINVAL (bad type); on failure r holds what was set up so far and is
 * released by sl_result_fini.
 */
int sl_result_setup(sl_result *r, int ncols, const char *const *names, const sl_type *types,
                    const uint32_t *widths);

/* Appends the NUL-terminated string s (NULL appends a NULL) to column i. 0 or SL_ENOMEM. */
int sl_result_put_str(sl_result *r, int i, const char *s);

/* Formats a result as an aligned text table (psql style) into out. 0 or SL_ENOMEM. */
int sl_result_format(const sl_result *r, sl_buf *out);

#endif
