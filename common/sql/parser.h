/*
 * parser.h - SQL text to AST (ast.h).
 *
 * A hand-written recursive-descent parser over a lexer (lexer.h) that knows every
 * statement of the Sluice SQL dialect, including the whole CREATE STREAM grammar of
 * spec/stream-syntax.txt. It only parses: names are not resolved and stream option rules
 * are not checked here (the planner and stream validation do that).
 *
 * Errors name the position, the offending token and what was expected, in one form:
 *
 *     1:15: syntax error near 'FROM': expected an expression
 *     2:1: syntax error at end of input: expected ')'
 *     1:8: invalid duration '10x': unknown unit 'x'
 *
 * i.e. "<line>:<col>: " followed by the problem. err->line/err->col hold the same
 * position, err->code is SL_ESYNTAX (or SL_ERANGE for a number that does not fit).
 */
#ifndef SL_PARSER_H
#define SL_PARSER_H

#include <stddef.h>

#include "../util/arena.h"
#include "../util/buf.h"
#include "../util/error.h"
#include "ast.h"

/* Longest SQL text accepted (bytes); longer input is refused with SL_ELIMIT. */
#define SL_SQL_MAX_LEN (16u << 20)
/* Deepest expression / subquery nesting accepted; deeper is refused with SL_ELIMIT. */
#define SL_SQL_MAX_DEPTH 200

typedef struct sl_parse_result {
    sl_arena arena; /* owns every node, string and array of the statements */
    int nstmts;
    sl_stmt **stmts;
} sl_parse_result;

/*
 * Parses len bytes of sql holding one or more statements separated by ';' (a trailing
 * ';' is optional; empty statements between semicolons are skipped; "--" and
 * C-style comments are allowed). On success returns 0 and *out (caller frees with
 * sl_parse_result_free). On error returns a negative code, fills err as described
 * above and sets *out to NULL; nothing is leaked. sql need not be NUL terminated.
 */
int sl_parse(const char *sql, size_t len, sl_parse_result **out, sl_error *err);

/* Frees a parse result and everything in it (NULL-safe). */
void sl_parse_result_free(sl_parse_result *r);

/*
 * Appends a canonical, single-line, fully parenthesised rendering of stmt to out, used by
 * tests to compare trees and by tools to show what was parsed. Every field of the AST that
 * was given appears; e.g. "SELECT a + 1" renders as
 *     (select (items (+ (col a) (int 1))))
 * Returns 0 or SL_ENOMEM.
 */
int sl_ast_dump(const sl_stmt *stmt, sl_buf *out);

/* Renders one expression in the same notation. */
int sl_ast_dump_expr(const sl_expr *e, sl_buf *out);

#endif
