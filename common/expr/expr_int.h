/*
 * expr_int.h - the compiled expression tree shared by expr_compile.c (building, typing,
 * folding), expr_eval.c (vector kernels) and expr_func.c (scalar functions, CAST, LIKE).
 * Internal to common/expr.
 */
#ifndef SL_EXPR_INT_H
#define SL_EXPR_INT_H

#include "expr.h"

typedef enum xkind {
    X_COL,    /* input column `col` */
    X_CONST,  /* folded constant: out holds one value, is_const */
    X_ARITH,  /* op in SL_OP_ADD..SL_OP_MOD over class */
    X_NEG,    /* unary minus */
    X_CMP,    /* op in SL_OP_EQ..SL_OP_GE over class */
    X_AND,
    X_OR,
    X_NOT,
    X_ISNULL, /* negated: IS NOT NULL */
    X_IN,     /* args[0] IN list (constants of class), negated: NOT IN */
    X_LIKE,   /* args[0] LIKE pattern, negated: NOT LIKE */
    X_CASE,   /* args: when0, then0, ..., [else] */
    X_CAST,   /* args[0] to type/width */
    X_FUNC,   /* scalar function fn over args */
    X_BITAND, X_BITOR, X_BITNOT
} xkind;

/* Compute classes: how operands are read for ARITH/CMP/IN. */
typedef enum xclass {
    XC_I64,  /* signed integers, BOOL, TIMESTAMP as int64 */
    XC_U64,  /* both operands unsigned */
    XC_F64,  /* at least one floating operand */
    XC_STR,  /* strings, bytewise */
    XC_MIX   /* signed against unsigned: exact per-row comparison */
} xclass;

typedef struct xnode xnode;

struct xnode {
    xkind kind;
    int op;             /* sl_binop for ARITH/CMP, function id for FUNC, sl_precision for CAST */
    xclass cls;         /* ARITH/CMP/IN compute class */
    sl_type type;       /* result type */
    uint32_t width;     /* result width for strings */
    bool negated;       /* ISNULL/IN/LIKE */
    int col;            /* X_COL input column */
    int nargs;
    xnode **args;
    bool has_else;      /* X_CASE */
    sl_column out;      /* result vector (X_CONST: the constant) */
    sl_column tmp[3];   /* conversion scratch for arguments */
    int nlist;          /* X_IN: constants, already of the class's type */
    sl_value *list;
    char *strpool;      /* X_IN/X_LIKE: owned bytes the values/pattern point into */
    sl_pos pos;
};

struct sl_cexpr {
    xnode *root;
    sl_precision prec;
    int64_t now;
};

/* Node construction / destruction (expr_compile.c). */
xnode *sl__xnode_new(xkind k, sl_type t, uint32_t width, sl_pos pos);
void sl__xnode_free(xnode *n);

/*
 * The type that values of v[0..n) share (CASE branches, COALESCE arguments): numbers widen
 * to BIGINT or DOUBLE, texts to VARCHAR wide enough for each (NCHAR counting 4 bytes per
 * character, width 0 when one is unbounded); with mix_text, text and numbers give VARCHAR.
 * Otherwise SL_ETYPE "<what> have incompatible types A and B".
 */
int sl__common_type(xnode **v, int n, bool mix_text, const char *what, sl_pos pos,
                    sl_type *t, uint32_t *w, sl_error *err);

/* Evaluates node n over in (expr_eval.c). */
int sl__xeval(xnode *n, const sl_block *in, const sl_column **out, sl_error *err);

/* Scalar functions (expr_func.c). */
typedef struct sl_xfunc {
    const char *name;
    int min_args;
    int max_args;
} sl_xfunc;

enum {
    XF_ABS, XF_CEIL, XF_FLOOR, XF_ROUND, XF_CONCAT, XF_LENGTH, XF_CHAR_LENGTH, XF_LOWER,
    XF_UPPER, XF_SQRT, XF_POW, XF_IFNULL, XF_COALESCE, XF_TIMETRUNCATE, XF_LOG, XF_EXP,
    XF__COUNT
};

extern const sl_xfunc sl__xfuncs[XF__COUNT];
/* Returns the function id of name or -1. */
int sl__xfunc_lookup(const char *name);
/* Result type of function id over compiled args; SL_ETYPE with a message when refused. */
int sl__xfunc_type(int id, xnode **args, int nargs, sl_type *type, uint32_t *width,
                   sl_pos pos, sl_error *err);
/* Evaluates a function node whose args are evaluated into av. */
int sl__xfunc_eval(xnode *n, const sl_column **av, uint32_t nrows, sl_error *err);
/* Evaluates a CAST node of one evaluated argument. */
int sl__xcast_eval(xnode *n, const sl_column *a, uint32_t nrows, sl_error *err);
/* SQL LIKE with % and _ and backslash escapes. */
bool sl__like_match(const char *s, uint32_t sn, const char *p, uint32_t pn);

/* Appends one row that is NULL to out, or reports SL_ENOMEM. */
int sl__col_put_null(sl_column *out);

#endif
