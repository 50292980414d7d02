/*
 * agg.h - aggregate functions with partial states that merge.
 *
 * Every aggregate (COUNT(*), COUNT, SUM, AVG, MIN, MAX, FIRST, LAST, LAST_ROW, SPREAD,
 * STDDEV) keeps a fixed-size state per group. States are updated a block at a time,
 * merged with other states of the same aggregate (so a scan can aggregate on a vnode and
 * the client merge), encoded for the wire, and finalised into a result value.
 *
 * Result types and rules (exact on NULLs, empty input and overflow):
 *  - COUNT(*) counts rows, COUNT(x) non-NULL x: BIGINT, 0 on empty input.
 *  - SUM: BIGINT for signed ints and BOOL, BIGINT UNSIGNED for unsigned ints, DOUBLE for
 *    floats. Integer sums are exact (128-bit accumulators); a final value outside the
 *    result type gives SL_EOVERFLOW at finalisation. NULL when there were no non-NULL inputs.
 *  - AVG: DOUBLE, computed from an exact integer sum for integer inputs.
 *  - MIN/MAX: the argument's type (numbers, TIMESTAMP, BOOL, VARCHAR/NCHAR bytewise).
 *  - FIRST/LAST: the non-NULL value with the smallest/largest timestamp (ties: the row
 *    seen first for FIRST, the row seen last for LAST); LAST_ROW: the value of the row
 *    with the largest timestamp even when NULL. Argument's type. Need the ts column.
 *  - SPREAD: DOUBLE, max - min over numbers and TIMESTAMP.
 *  - STDDEV: DOUBLE, population standard deviation (divide by n), merged with Chan's
 *    parallel formula so partial merges give the same result as one pass.
 *  Every function but COUNT returns NULL on empty or all-NULL input.
 *
 * States of MIN/MAX/FIRST/LAST/LAST_ROW over strings own a copy of the string:
 * sl_agg_state_fini must be called on every initialised state.
 */
#ifndef SL_AGG_H
#define SL_AGG_H

#include <stddef.h>
#include <stdint.h>

#include "../types/block.h"
#include "../util/buf.h"
#include "../util/error.h"

typedef enum sl_agg_kind {
    SL_AGG_COUNT_STAR,
    SL_AGG_COUNT,
    SL_AGG_SUM,
    SL_AGG_AVG,
    SL_AGG_MIN,
    SL_AGG_MAX,
    SL_AGG_FIRST,
    SL_AGG_LAST,
    SL_AGG_LAST_ROW,
    SL_AGG_SPREAD,
    SL_AGG_STDDEV,
    SL_AGG__COUNT
} sl_agg_kind;

typedef struct sl_agg sl_agg;

/* Looks up an aggregate by SQL name (case-insensitive, "count"...). COUNT maps to
 * SL_AGG_COUNT; the caller turns COUNT(*) into SL_AGG_COUNT_STAR. Returns true if found. */
bool sl_agg_lookup(const char *name, sl_agg_kind *out);

/* The SQL name of an aggregate in lower case ("count", "last_row"). */
const char *sl_agg_name(sl_agg_kind k);

/* True when the aggregate needs the timestamp column (FIRST, LAST, LAST_ROW). */
bool sl_agg_needs_ts(sl_agg_kind k);

/*
 * Creates an aggregate of kind k over an argument of type arg_type (ignored for
 * COUNT(*)). A type the function does not accept (SUM of VARCHAR) is SL_ETYPE with a
 * message naming the function and type. Returns 0 and *out (free with sl_agg_free).
 */
int sl_agg_create(sl_agg_kind k, sl_type arg_type, uint32_t arg_width, sl_agg **out,
                  sl_error *err);

/* Frees an aggregate (NULL-safe). */
void sl_agg_free(sl_agg *a);

sl_agg_kind sl_agg_kind_of(const sl_agg *a);
/* The result type and width (VARCHAR/NCHAR) of the aggregate. */
sl_type sl_agg_result_type(const sl_agg *a);
uint32_t sl_agg_result_width(const sl_agg *a);

/* Bytes of one state; states are stored in caller arrays, 8-byte aligned strides. */
size_t sl_agg_state_size(const sl_agg *a);

/* Initialises a state to "no input yet". */
void sl_agg_state_init(const sl_agg *a, void *state);

/* Frees what a state owns (string copies). NULL-safe on a zeroed state. */
void sl_agg_state_fini(const sl_agg *a, void *state);

/*
 * Folds rows [from, from+n) of arg (and ts for FIRST/LAST/LAST_ROW; arg is ignored for
 * COUNT(*) and may be NULL) into states. Row i goes to the state at
 * states + gids[i - from] * stride when gids is not NULL, else to states (one group).
 * arg and ts may be constant columns. Returns 0, SL_ENOMEM (string copies), never
 * anything else: overflow is detected at finalisation.
 */
int sl_agg_update(const sl_agg *a, uint8_t *states, size_t stride, const uint32_t *gids,
                  const sl_column *arg, const sl_column *ts, uint32_t from, uint32_t n);

/* Merges state src into dst (both of aggregate a). Returns 0 or SL_ENOMEM. */
int sl_agg_merge(const sl_agg *a, void *dst, const void *src);

/*
 * Appends the final value of state to out, a column of sl_agg_result_type(a).
 * Returns 0, SL_ENOMEM, or SL_EOVERFLOW (with a message) when an integer SUM does not fit.
 */
int sl_agg_finalize(const sl_agg *a, const void *state, sl_column *out, sl_error *err);

/* Appends a portable encoding of state to out (for partial aggregation over the wire). */
int sl_agg_state_encode(const sl_agg *a, const void *state, sl_buf *out);

/*
 * Decodes a state encoded by sl_agg_state_encode from r into state (initialised).
 * Returns 0 or SL_ECORRUPT on malformed input (bounded; never reads past r).
 */
int sl_agg_state_decode(const sl_agg *a, void *state, sl_reader *r);

#endif
