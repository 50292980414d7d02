/*
 * block.h - columnar blocks: column vectors with null bitmaps, the unit every Sluice
 * operator, RPC and storage record moves.
 *
 * A column holds nrows values of one type. Fixed-width types keep a dense array in their
 * native C width (int8_t for TINYINT, float for FLOAT, int64_t for TIMESTAMP, uint8_t 0/1
 * for BOOL); VARCHAR/NCHAR keep nrows+1 uint32 offsets into a byte heap. NULLs are a
 * bitmap (bit i set = row i is NULL), allocated only once a NULL is stored; has_nulls
 * says whether any bit may be set. A *constant* column stores one value (row 0 of its
 * arrays) that stands for all nrows rows: scans use it for tags and tbname, which are the
 * same for every row of a child table, so they cost nothing per row.
 *
 * The struct is public because expression kernels and aggregates loop over the arrays
 * directly; use the functions for anything that changes the layout.
 */
#ifndef SL_BLOCK_H
#define SL_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/buf.h"
#include "../util/error.h"
#include "types.h"
#include "value.h"

/* Most rows in one block; producers cut their output to this size. */
#define SL_BLOCK_ROWS_MAX 4096
/* Largest row count a decoder accepts (blocks on the wire and on disk). */
#define SL_BLOCK_DECODE_ROWS_MAX (1u << 20)
/* Largest column count a decoder accepts. */
#define SL_BLOCK_DECODE_COLS_MAX (SL_MAX_COLUMNS + SL_MAX_TAGS + 16)

typedef struct sl_column {
    sl_type type;       /* column type, never SL_T_NULL */
    uint32_t width;     /* declared length for VARCHAR/NCHAR, 0 = unbounded / fixed types */
    uint32_t nrows;     /* logical row count */
    uint32_t cap;       /* rows the arrays can hold without growing */
    bool is_const;      /* row 0 stands for every row */
    bool has_nulls;     /* some bit of nulls may be set; false means no NULLs at all */
    bool borrowed;      /* the arrays belong to another column (sl_column_borrow): read-only */
    uint8_t *nulls;     /* bitmap of cap bits, or NULL when never needed */
    void *data;         /* fixed width: cap values of sl_type_size(type) bytes */
    uint32_t *offsets;  /* var width: cap+1 offsets into heap; row i is [off[i], off[i+1]) */
    char *heap;         /* var width: string bytes */
    uint32_t heap_len;  /* bytes used in heap */
    uint32_t heap_cap;  /* bytes allocated for heap */
} sl_column;

/*
 * Initialises an empty column of type t (width for VARCHAR/NCHAR; fixed types store 0).
 * Allocates nothing.
 */
void sl_column_init(sl_column *c, sl_type t, uint32_t width);
/* Frees the column's arrays (NULL-safe); the column must be re-initialised to be reused. */
void sl_column_fini(sl_column *c);
/* Drops all rows, keeping allocations, and clears is_const/has_nulls. */
void sl_column_reset(sl_column *c);
/* Ensures capacity for nrows rows (and heap_bytes more heap bytes for var types). */
int sl_column_reserve(sl_column *c, uint32_t nrows, uint32_t heap_bytes);

static inline bool sl_column_is_null(const sl_column *c, uint32_t i)
{
    if (!c->has_nulls)
        return false;
    if (c->is_const)
        i = 0;
    return (c->nulls[i >> 3] >> (i & 7)) & 1;
}

/* Index into the arrays for logical row i (0 for constant columns). */
static inline uint32_t sl_column_phys(const sl_column *c, uint32_t i)
{
    return c->is_const ? 0 : i;
}

/* Marks row i NULL (allocating the bitmap if needed); i < cap. Returns 0 or SL_ENOMEM. */
int sl_column_set_null(sl_column *c, uint32_t i);

/*
 * Appenders: add one row, converting the C value to the column's native width (an
 * int64 stored into a TINYINT column is narrowed; callers check ranges). Strings longer
 * than width are the caller's problem; sl_value_cast checks them. Return 0 or SL_ENOMEM.
 * Not valid on constant columns.
 */
int sl_column_append_null(sl_column *c);
int sl_column_append_bool(sl_column *c, bool v);
int sl_column_append_i64(sl_column *c, int64_t v);  /* signed ints, TIMESTAMP */
int sl_column_append_u64(sl_column *c, uint64_t v); /* unsigned ints */
int sl_column_append_f64(sl_column *c, double v);   /* FLOAT, DOUBLE */
int sl_column_append_str(sl_column *c, const char *p, uint32_t len);
/*
 * Appends v, which must already have the column's type (or be NULL). Returns 0, SL_ENOMEM,
 * or SL_ETYPE when v is text and the column is not (or the other way round).
 */
int sl_column_append_value(sl_column *c, const sl_value *v);

/* Reads row i as a value; strings point into the column. */
void sl_column_get(const sl_column *c, uint32_t i, sl_value *out);

/* Typed reads of row i for fixed-width columns (any integer type widens). */
int64_t sl_column_get_i64(const sl_column *c, uint32_t i);
uint64_t sl_column_get_u64(const sl_column *c, uint32_t i);
double sl_column_get_f64(const sl_column *c, uint32_t i); /* any numeric type */
/* String row i: returns the pointer and sets *len. */
const char *sl_column_get_str(const sl_column *c, uint32_t i, uint32_t *len);

/*
 * Makes dst a read-only view of rows [from, from+n) of src without copying: dst's arrays
 * point into src's, which must stay unchanged and alive while dst is read. Any later
 * change of dst (append, reset, fini) first detaches it (reset/fini just drop the view;
 * appends copy the viewed rows into arrays of dst's own). When the rows cannot be viewed
 * in place (a constant src, or a null bitmap not starting on a byte boundary) they are
 * copied instead. dst must have src's type. Returns 0 or SL_ENOMEM.
 */
int sl_column_borrow(sl_column *dst, const sl_column *src, uint32_t from, uint32_t n);

/* Makes c (initialised, any state) a constant column of nrows copies of v. */
int sl_column_set_const(sl_column *c, const sl_value *v, uint32_t nrows);

/*
 * Appends rows of src to dst (same type): rows sel[0..n) when sel is not NULL, otherwise
 * rows [from, from+n). Constant sources expand to ordinary rows; a constant dst is
 * materialized first; src may be dst. Returns 0, SL_ENOMEM, or SL_ETYPE when the types
 * differ (VARCHAR and NCHAR may mix).
 */
int sl_column_append_rows(sl_column *dst, const sl_column *src, const uint32_t *sel,
                          uint32_t from, uint32_t n);

/*
 * Orders row i of a against row j of b, two non-NULL values of one integer or text type
 * (VARCHAR and NCHAR may mix): signed integers as signed, unsigned as unsigned, text
 * bytewise (memcmp, then the shorter first). Returns -1, 0 or 1. This is the order of the
 * composite key of a table (the second column, after the timestamp).
 */
int sl_column_cmp_rows(const sl_column *a, uint32_t i, const sl_column *b, uint32_t j);

/* Turns a constant column into an ordinary one holding nrows copies. */
int sl_column_materialize(sl_column *c);

/* Bytes the column holds (arrays + heap), for memory accounting. */
size_t sl_column_mem(const sl_column *c);

typedef struct sl_block {
    uint32_t nrows;   /* rows in every column (each column's nrows equals it) */
    uint32_t ncols;   /* columns in use */
    uint32_t capcols; /* columns allocated */
    sl_column *cols;  /* ncols columns */
} sl_block;

/* Initialises an empty block with no columns. */
void sl_block_init(sl_block *b);
/* Frees every column and the block's arrays (NULL-safe). */
void sl_block_fini(sl_block *b);
/* Allocates a block on the heap (sl_block_init'ed); NULL on exhaustion. */
sl_block *sl_block_new(void);
/* sl_block_fini + free (NULL-safe). */
void sl_block_free(sl_block *b);
/* Appends a new empty column; returns its index, SL_ENOMEM, or SL_EINVAL for a bad type. */
int sl_block_add_column(sl_block *b, sl_type t, uint32_t width);
/* Resets every column to zero rows (keeping types and allocations), nrows = 0. */
void sl_block_reset(sl_block *b);
/* Sets nrows from the columns after appending to each; asserts they agree. */
void sl_block_seal(sl_block *b);

/*
 * Encodes the block (types, widths, nulls, data; constant columns stay constant) into
 * out, appending. Returns 0, SL_ENOMEM, or SL_EINVAL when a column's nrows differs from
 * the block's (not sealed); on error out keeps its previous length. The format is
 * versioned (first byte) and stable across processes of the same major version; it is
 * described in block_codec.c.
 */
int sl_block_encode(const sl_block *b, sl_buf *out);

/*
 * Decodes bytes produced by sl_block_encode into out (initialised, empty). Every size is
 * checked against the input length and the SL_BLOCK_DECODE_* limits: garbage, truncation
 * and oversized counts give SL_ECORRUPT with a message in err, never a crash or an
 * allocation larger than the input justifies. On error out is left empty.
 */
int sl_block_decode(const void *p, size_t n, sl_block *out, sl_error *err);

#endif
