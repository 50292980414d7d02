/*
 * unparse.h - AST back to SQL text, with a hook that substitutes stream placeholders.
 *
 * Sluice runs a SELECT on the storage nodes by sending them SQL text, and a stream's AS
 * subquery must run once per trigger event with its placeholders (_twstart, %%1, ...)
 * replaced by constants and FROM %%trows / FROM %%tbname replaced by real tables with
 * extra restrictions. The unparser prints an sl_select (or one expression) as SQL that
 * sl_parse() accepts and that parses back to a tree with the same canonical dump
 * (sl_ast_dump): it is the inverse of the parser for every SELECT the parser builds,
 * stream queries included. The substitution hook lets the caller replace placeholders
 * and %%trows / %%tbname sources while printing.
 *
 * Output format (pinned by tests/unit/test_unparse.c): keywords in upper case, one space
 * between tokens, "f(a, b)", parentheses only where the parser's precedence needs them
 * (so a tree the parser accepted never prints deeper than SL_SQL_MAX_DEPTH), names in
 * backquotes when they are not plain words or could be read as a keyword, placeholder or
 * pseudo column, aliases always with AS, ORDER BY items with DESC only when descending,
 * LIMIT n [OFFSET m]. Floats print in the shortest form that reads back exactly and
 * always as floats (1.0, 1e+300).
 *
 * The text of a select item that had no alias is not kept: "avg(a+b)" prints as
 * "avg(a + b)", so the result column's default name changes unless keep_item_names is
 * set (see below).
 */
#ifndef SL_UNPARSE_H
#define SL_UNPARSE_H

#include <stdbool.h>

#include "../util/buf.h"
#include "../util/error.h"
#include "ast.h"

/* A hook returns this (instead of 0) to have the construct printed as written. */
#define SL_UNPARSE_ASIS 1

/*
 * The substitution hook. Every member is optional (NULL / false); a NULL subst pointer
 * means "no hook". Callbacks run on the calling thread, in source order, and may be
 * called several times for the same placeholder. They append to out, return 0,
 * SL_UNPARSE_ASIS, or a negative sl_err code that aborts the unparse; err (never NULL,
 * cleared) may be filled with a detailed message, otherwise a generic one is written.
 */
typedef struct sl_unparse_subst {
    void *ud; /* passed to every callback, borrowed */
    /*
     * Called for every SL_EX_PLACEHOLDER expression (ph->u.placeholder says which). Writes
     * the text replacing it, which must be one complete expression, for example
     * CAST('2025-01-01 00:00:00.000' AS TIMESTAMP), 42 or 'd1001'. The unparser encloses
     * it in parentheses, so any expression works wherever the placeholder stood.
     */
    int (*placeholder)(void *ud, const sl_expr *ph, sl_buf *out, sl_error *err);
    /*
     * Called for a FROM %%trows or FROM %%tbname source (from->kind says which; an alias,
     * if any, is printed by the unparser after the text). Writes the source that replaces
     * it, e.g. db.`table`, or a parenthesised subquery. May set *extra_where (initially
     * NULL) to a boolean condition in SQL text that the unparser ANDs with that SELECT's
     * own WHERE: "WHERE (<own>) AND (<extra>)", or "WHERE (<extra>)" when there is none.
     * The string is borrowed and must stay valid until the sl_unparse_* call returns.
     */
    int (*source)(void *ud, const sl_from *from, sl_buf *out, const char **extra_where,
                  sl_error *err);
    /*
     * When true, every select item without an alias (other than * and t.*) gets
     * "AS `<its source text>`", so the result columns keep the names the original query
     * would have given them. The dump of the re-parsed tree then shows those aliases.
     */
    bool keep_item_names;
} sl_unparse_subst;

/*
 * Appends the SQL text of sel to out (without a trailing ';'), keeping a NUL after it as
 * sl_buf_printf does. sel and subst are borrowed. Returns 0; on failure returns a
 * negative code, fills err (NULL-safe) and leaves out->len as it was on entry:
 *   SL_EINVAL  the tree cannot be printed (a hand-built node the parser never makes:
 *              an empty name, a function name that is not a plain word, a negative LIMIT,
 *              a non-finite float, SLIDING or FILL without INTERVAL, ...) or a hook wrote
 *              no text;
 *   SL_ELIMIT  the tree is nested deeper than any the parser builds;
 *   SL_ENOMEM  out could not grow;
 *   or the code a hook returned.
 * Thread-safe for distinct out buffers (the tree is only read).
 */
int sl_unparse_select(const sl_select *sel, const sl_unparse_subst *subst, sl_buf *out,
                      sl_error *err);

/* Same for one expression, e.g. a WHERE condition or a PRE_FILTER. */
int sl_unparse_expr(const sl_expr *e, const sl_unparse_subst *subst, sl_buf *out,
                    sl_error *err);

#endif
