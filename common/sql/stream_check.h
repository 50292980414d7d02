/*
 * stream_check.h - validation of CREATE STREAM against the rules of spec/stream-syntax.txt.
 *
 * The parser (parser.h) only builds the tree of a CREATE STREAM; it keeps options written
 * twice, accepts PERIOD(0s), a ROLLUP BY on a count window and placeholders anywhere. This
 * module applies every rule the spec states (trigger parameter ranges, which trigger needs a
 * trigger table, grouping, option combinations, notification URLs, output clauses, where
 * each placeholder may appear) and refuses the first statement part that breaks one, with a
 * message naming the rule and the position of the offending clause. Rules that need the
 * trigger table's schema use the sl_table_meta the caller resolved; rules that need the
 * types of the subquery's output are left to planning (see the comment at the top of
 * stream_check.c for the exact split and for the spec ambiguities decided here).
 */
#ifndef SL_STREAM_CHECK_H
#define SL_STREAM_CHECK_H

#include <stdbool.h>

#include "../exec/catalog.h"
#include "../util/error.h"
#include "../util/timeutil.h"
#include "ast.h"

/* What the caller knows of the catalog when the statement is validated. */
typedef struct sl_stream_check_ctx {
    /* The FROM trigger table's meta (borrowed, read only during the call), or NULL when
     * FROM is absent or the table was not resolved; schema rules are then skipped. */
    const sl_table_meta *trigger_table;
    /* Precision of the stream's database: durations on event time (SLIDING, INTERVAL,
     * SESSION, WATERMARK...) may not be finer than it. */
    sl_precision precision;
    /* True when the INTO table already exists. No rule here depends on it yet: comparing
     * an existing table's schema with the one derived from the query is left to planning. */
    bool into_exists;
} sl_stream_check_ctx;

/*
 * Validates cs (borrowed; not changed) against the stream rules. Returns 0 when the
 * statement is valid, or SL_EINVAL with err (NULL-safe) holding the position (line/col of
 * the offending clause, duration, option or placeholder) and a message naming the rule,
 * e.g. "MAX_DELAY must be at least 3s". ctx may be NULL (no table meta, ms precision).
 * Pure computation: thread-safe, no allocation.
 */
int sl_stream_check(const sl_create_stream *cs, const sl_stream_check_ctx *ctx, sl_error *err);

#endif
