/*
 * agg_internal.h - what the aggregate implementation files share, and nothing else.
 *
 * The aggregates are split by family: agg.c holds the public entry points, the table of
 * functions and the arithmetic families (COUNT, SUM, AVG, STDDEV); agg_minmax.c holds MIN,
 * MAX and SPREAD; agg_select.c holds FIRST, LAST and LAST_ROW. Each family is one
 * sl__agg_ops table, so the public functions dispatch once per call and the families keep
 * their state layouts private. This header is private to common/expr/agg*.c.
 */
#ifndef SL_AGG_INTERNAL_H
#define SL_AGG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"

typedef struct sl__agg_ops sl__agg_ops;

/* The body of sl_agg: immutable after sl_agg_create, so one aggregate serves many threads. */
struct sl_agg {
    sl_agg_kind kind;         /* which function */
    sl_type arg_type;         /* argument type (SL_T_NULL for COUNT(*)) */
    uint32_t arg_width;       /* declared length of a VARCHAR/NCHAR argument */
    sl_type res_type;         /* result column type */
    uint32_t res_width;       /* result declared length (strings) */
    uint32_t state_size;      /* bytes of one state, a multiple of 8 */
    const sl__agg_ops *ops;   /* the family implementing the function */
};

/*
 * One family of aggregates. The public functions check the arguments common to all
 * (n == 0, types of the columns) and then call these. A state starts all-zero
 * (sl_agg_state_init), which every family reads as "no input yet".
 */
struct sl__agg_ops {
    /* Bytes of a state for aggregate a; a multiple of 8. */
    size_t (*size)(const sl_agg *a);
    /* Frees what the state owns; NULL when states own nothing. */
    void (*fini)(const sl_agg *a, void *st);
    /* sl_agg_update with n > 0 and the columns already checked. */
    int (*update)(const sl_agg *a, uint8_t *states, size_t stride, const uint32_t *gids,
                  const sl_column *arg, const sl_column *ts, uint32_t from, uint32_t n);
    int (*merge)(const sl_agg *a, void *dst, const void *src);
    int (*finalize)(const sl_agg *a, const void *st, sl_column *out, sl_error *err);
    int (*encode)(const sl_agg *a, const void *st, sl_buf *out);
    /* Decodes into st, which holds nothing owned (the caller swaps it in on success). */
    int (*decode)(const sl_agg *a, void *st, sl_reader *r);
};

extern const sl__agg_ops sl__agg_count_ops;
extern const sl__agg_ops sl__agg_sum_ops; /* SUM and AVG share a state */
extern const sl__agg_ops sl__agg_stddev_ops;
extern const sl__agg_ops sl__agg_minmax_ops; /* MIN, MAX, SPREAD */
extern const sl__agg_ops sl__agg_select_ops; /* FIRST, LAST, LAST_ROW */

/* A fixed-width value widened to 64 bits: i for signed ints and TIMESTAMP, u for unsigned
 * ints and BOOL (0/1), d for FLOAT (widened exactly) and DOUBLE. */
typedef union sl__val {
    int64_t i;
    uint64_t u;
    double d;
} sl__val;

/* How a fixed-width argument type is widened into an sl__val. */
typedef enum sl__vclass {
    SL__VC_I, /* signed ints, TIMESTAMP */
    SL__VC_U, /* unsigned ints, BOOL */
    SL__VC_F, /* FLOAT, DOUBLE */
    SL__VC_S  /* VARCHAR, NCHAR: not an sl__val, see sl__str */
} sl__vclass;

sl__vclass sl__vclass_of(sl_type t);

/* An owned string copy inside a state. p is malloc'd (or NULL while nothing was stored);
 * cap lets a state that improves often (MIN of a descending column) reuse its buffer. */
typedef struct sl__str {
    char *p;      /* owned bytes, not NUL terminated */
    uint32_t len; /* bytes in use */
    uint32_t cap; /* bytes allocated */
} sl__str;

/* Copies [p, p+len) into s, growing it when needed. Returns 0 or SL_ENOMEM (s unchanged). */
int sl__str_set(sl__str *s, const char *p, uint32_t len);
/* Frees s and zeroes it (NULL-safe on a zeroed slot). */
void sl__str_free(sl__str *s);
/* Bytewise comparison: memcmp over the common prefix, then the shorter string first. */
int sl__str_cmp(const char *a, uint32_t la, const char *b, uint32_t lb);

/* The null bitmap of c when some row may be NULL, else NULL (constant columns included). */
static inline const uint8_t *sl__col_nulls(const sl_column *c)
{
    return c->has_nulls ? c->nulls : NULL;
}

static inline bool sl__bit(const uint8_t *bm, uint32_t i)
{
    return (bm[i >> 3] >> (i & 7)) & 1;
}

/* True when the constant column c is NULL (all of its rows). */
static inline bool sl__const_null(const sl_column *c)
{
    return c->has_nulls && c->nulls != NULL && sl__bit(c->nulls, 0);
}

/* Bytes of string row `row` (a physical index) of a VARCHAR/NCHAR column; never NULL. */
static inline const char *sl__col_str(const sl_column *c, uint32_t row, uint32_t *len)
{
    uint32_t b = c->offsets[row];
    *len = c->offsets[row + 1] - b;
    return c->heap != NULL ? c->heap + b : "";
}

/* Row `row` (physical index) of a fixed-width column widened by class. */
sl__val sl__col_val(const sl_column *c, uint32_t row);

/* Appends a non-NULL widened value to out, a column of type t. */
int sl__append_val(sl_column *out, sl_type t, sl__val v);

/* Encodes a widened value of type t (varints for integers, IEEE bits for floats). */
int sl__val_encode(sl_buf *out, sl_type t, sl__val v);
/* Decodes a value of type t, refusing values outside the type's range. SL_ECORRUPT. */
int sl__val_decode(sl_reader *r, sl_type t, sl__val *v);
/* Encodes/decodes a string: varint length, then bytes. The decoder refuses lengths past
 * the input or beyond the longest value of type t, and stores an owned copy in s. */
int sl__str_encode(sl_buf *out, const char *p, uint32_t len);
int sl__str_decode(sl_reader *r, sl_type t, sl__str *s);

/*
 * Reduces v[0..n) (T values) into acc (ACC_T, already holding the identity INIT) with
 * acc = STEP(acc, x). The main loop keeps SL__LANES independent accumulators so its
 * fixed-trip-count inner loop vectorises even under gcc's -O2 cost model; FOLD(acc, lane)
 * combines the lanes at the end (the same as STEP for add/min/max, plain addition for
 * counting steps). Only for steps whose result does not depend on the order of the inputs.
 * Eight lanes: aggregation folds runs of a window's rows (often tens of rows), where
 * setting up and folding sixteen lanes cost more than the wider loop saved.
 */
#define SL__LANES 8
#define SL__REDUCE(ACC_T, acc, INIT, T, v, n, STEP, FOLD)                                    \
    do {                                                                                     \
        ACC_T lane_[SL__LANES];                                                              \
        for (int j_ = 0; j_ < SL__LANES; j_++)                                               \
            lane_[j_] = (INIT);                                                              \
        const T *p_ = (v), *e_ = (v) + ((n) & ~(uint32_t)(SL__LANES - 1));                   \
        for (; p_ < e_; p_ += SL__LANES)                                                     \
            for (int j_ = 0; j_ < SL__LANES; j_++)                                           \
                lane_[j_] = STEP(lane_[j_], p_[j_]);                                         \
        for (; p_ < (v) + (n); p_++)                                                         \
            acc = STEP(acc, *p_);                                                            \
        for (int j_ = 0; j_ < SL__LANES; j_++)                                               \
            acc = FOLD(acc, lane_[j_]);                                                      \
    } while (0)

#define SL__RED_ADD(a, x) ((a) + (x))
#define SL__RED_MIN(a, x) ((x) < (a) ? (x) : (a))
#define SL__RED_MAX(a, x) ((x) > (a) ? (x) : (a))

/* The state of group gids[k] (or the only state when gids is NULL). */
#define SL__ST(type, states, stride, gids, k)                                                \
    ((type *)((states) + ((gids) != NULL ? (size_t)(gids)[k] * (stride) : 0)))

/* Row counts of merged states add with saturation: states decoded from the network may
 * carry any count, and a sum of counts must not overflow. */
static inline int64_t sl__count_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

#endif
