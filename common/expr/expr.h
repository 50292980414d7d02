/*
 * expr.h - scalar expressions compiled once and evaluated over whole blocks.
 *
 * sl_cexpr_compile turns an AST expression (ast.h) into a typed tree of vector kernels:
 * names are resolved through a binder, types are checked and implicit conversions
 * inserted, constant subtrees are folded. Evaluation then runs each node over a whole
 * block: a column reference is the input column itself (no copy), every other node writes
 * one output vector, and constant operands are read with stride 0, so no per-row
 * interpretation of the tree happens on the hot path.
 *
 * Typing rules (what a user of a time-series database expects):
 *  - + - * on integers give BIGINT (overflow is SL_EOVERFLOW); with a FLOAT/DOUBLE operand
 *    DOUBLE; / always gives DOUBLE; % gives BIGINT on integers, DOUBLE otherwise.
 *    Division or modulo by zero is SL_EDIVZERO. TIMESTAMP +/- integer or duration gives
 *    TIMESTAMP; TIMESTAMP - TIMESTAMP gives BIGINT.
 *  - Comparisons compare numbers by value across types, TIMESTAMP with integers and with
 *    timestamp strings ('2025-01-01 00:00:00'), strings bytewise. NULL in, NULL out.
 *  - AND/OR/NOT use SQL three-valued logic. A filter keeps rows whose value is TRUE.
 * A compiled expression holds scratch vectors: it is used by one thread at a time.
 */
#ifndef SL_EXPR_H
#define SL_EXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "../sql/ast.h"
#include "../types/block.h"
#include "../types/value.h"
#include "../util/error.h"
#include "../util/timeutil.h"

typedef struct sl_cexpr sl_cexpr;

/* How a name or node resolves. */
typedef enum sl_bind_kind {
    SL_BIND_NONE = 0, /* not bound by the binder: compile it normally */
    SL_BIND_COLUMN,   /* input column `index` of the evaluated blocks */
    SL_BIND_VALUE     /* the constant `value` */
} sl_bind_kind;

typedef struct sl_binding {
    sl_bind_kind kind;
    int index;        /* SL_BIND_COLUMN: input column */
    sl_type type;     /* SL_BIND_COLUMN: its type */
    uint32_t width;   /* SL_BIND_COLUMN: its width */
    sl_value value;   /* SL_BIND_VALUE: strings must outlive the compiled expression */
} sl_binding;

typedef struct sl_binder {
    /*
     * Called for every node before it is compiled. Set *b to bind the whole node to an
     * input column or a constant (aggregates, GROUP BY expressions, _wstart, placeholders
     * are bound this way), or leave b->kind SL_BIND_NONE. A column reference
     * (SL_EX_COLUMN) left unbound is an error "unknown column". Return 0 or an error
     * (with a message; compilation stops).
     */
    int (*bind)(void *ud, const sl_expr *node, sl_binding *b, sl_error *err);
    void *ud;
    sl_precision precision; /* precision of TIMESTAMP values in the blocks */
    int64_t now;            /* NOW in that precision */
} sl_binder;

/* Compiles ast; returns 0 and *out (free with sl_cexpr_free) or an error with position. */
int sl_cexpr_compile(const sl_expr *ast, const sl_binder *binder, sl_cexpr **out,
                     sl_error *err);

/* Frees a compiled expression (NULL-safe). */
void sl_cexpr_free(sl_cexpr *e);

sl_type sl_cexpr_type(const sl_cexpr *e);
uint32_t sl_cexpr_width(const sl_cexpr *e);

/* True when the expression does not depend on any input column. */
bool sl_cexpr_is_const(const sl_cexpr *e);

/* True when the expression is exactly input column *index (a bare column reference). */
bool sl_cexpr_is_column(const sl_cexpr *e, int *index);

/*
 * Evaluates e over every row of in. *out points to a column of in->nrows rows owned by
 * e or by in (valid until the next evaluation or until in changes); it may be constant.
 * Returns 0 or an error (SL_EDIVZERO, SL_EOVERFLOW, SL_ERANGE on a failed CAST, ...).
 */
int sl_cexpr_eval(sl_cexpr *e, const sl_block *in, const sl_column **out, sl_error *err);

/*
 * Evaluates a boolean e over in and writes the indexes of the rows where it is TRUE to
 * sel (room for in->nrows), their count to *nsel. A non-boolean e is SL_ETYPE.
 */
int sl_cexpr_select(sl_cexpr *e, const sl_block *in, uint32_t *sel, uint32_t *nsel,
                    sl_error *err);

/*
 * Evaluates a constant expression (sl_cexpr_is_const) to one value. Strings point into e
 * and stay valid until e is freed or evaluated again.
 */
int sl_cexpr_eval_const(sl_cexpr *e, sl_value *out, sl_error *err);

/* Looks up whether name is a scalar function Sluice knows (case-insensitive). */
bool sl_scalar_func_exists(const char *name);

#endif
