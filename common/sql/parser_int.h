/*
 * parser_int.h - what the parser's source files share (not part of the public API).
 *
 * The parser is split by statement family: parser.c holds the token cursor, error
 * reporting, names, types and the statement dispatch; parser_expr.c the expressions;
 * parser_select.c SELECT; parser_ddl.c databases, tables, SHOW/USE/DESCRIBE and DROP;
 * parser_dml.c INSERT and DELETE; parser_stream.c CREATE/START/STOP STREAM. Every
 * function returns 0 or a negative sl_err code; the first error recorded in the parser
 * is the one reported, and everything allocated lives in the result's arena, so a failing
 * function simply returns its code and the caller throws the arena away.
 */
#ifndef SL_PARSER_INT_H
#define SL_PARSER_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "lexer.h"
#include "parser.h"

typedef struct sl__parser {
    sl_lexer lx;            /* the token source */
    sl_arena *arena;        /* the result's arena: every node goes here */
    sl_token tok;           /* the current token */
    sl_token la[2];         /* tokens read ahead of tok */
    int nla;                /* how many of la are filled */
    const char *prev_end;   /* one past the last byte of the last consumed token */
    int nest;               /* current syntactic nesting (parens, calls, subqueries...) */
    sl_error err;           /* the first error met */
} sl__parser;

/* Propagates a non-zero return code. */
#define SL__TRY(x)                                                                        \
    do {                                                                                  \
        int sl__rc = (x);                                                                 \
        if (sl__rc != 0)                                                                  \
            return sl__rc;                                                                \
    } while (0)

/* A growable array in the arena (old copies are left behind; they die with the arena). */
typedef struct sl__vec {
    void *items;
    int n;
    int cap;
} sl__vec;

/* Appends elsz bytes at elem to v, growing it in the arena. Returns 0 or SL_ENOMEM. */
int sl__vec_push(sl__parser *p, sl__vec *v, size_t elsz, const void *elem);

/*
 * Token cursor. sl__next moves to the next token. sl__peek returns the k-th token after
 * the current one (k is 1 or 2) without consuming anything; the pointer is valid until the
 * next call on p. sl__is / sl__is_kw test the current token; sl__accept / sl__accept_kw
 * consume it when it matches and say whether they did; sl__expect / sl__expect_kw consume
 * a match or fail with "expected <what>" (SL_ESYNTAX, or the lexer's error at a bad token).
 */
void sl__next(sl__parser *p);
const sl_token *sl__peek(sl__parser *p, int k);
bool sl__is(const sl__parser *p, sl_tok_kind k);
bool sl__is_kw(const sl__parser *p, sl_kw kw);
bool sl__accept(sl__parser *p, sl_tok_kind k);
bool sl__accept_kw(sl__parser *p, sl_kw kw);
int sl__expect(sl__parser *p, sl_tok_kind k, const char *what);
int sl__expect_kw(sl__parser *p, sl_kw kw, const char *what);

/*
 * Errors. Each records the error in p->err (the first one recorded wins) and returns its
 * code. sl__fail_expected reports "syntax error near '<tok>': expected <what>" (or "at end
 * of input") at the current token, or the lexer's own message when that token is
 * malformed. sl__fail_at reports "<line>:<col>: <message>" at pos with any code.
 */
int sl__fail_expected(sl__parser *p, const char *what);
int sl__fail_at(sl__parser *p, sl_pos pos, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Arena allocation and copy; on exhaustion they record SL_ENOMEM and return NULL. */
void *sl__alloc(sl__parser *p, size_t n);
char *sl__strndup(sl__parser *p, const char *s, size_t n);

/*
 * Enters one level of syntactic nesting whose opening token is at pos; fails with
 * SL_ELIMIT when that would exceed SL_SQL_MAX_DEPTH. Every successful sl__enter is paired
 * with one sl__leave on the success path (after an error the count no longer matters).
 */
int sl__enter(sl__parser *p, sl_pos pos);
void sl__leave(sl__parser *p);

/*
 * Common pieces. Each consumes what it recognises and stores it in its out-parameters
 * (strings in the arena); when a token does not fit it fails with "expected <what>".
 * pos parameters may be NULL.
 */
/* True when the current token can be a name: a non-reserved word or a `quoted` one. */
bool sl__is_name(const sl__parser *p);
/* A name, copied into the arena. */
int sl__name(sl__parser *p, const char **out, sl_pos *pos, const char *what);
/* [db.]name; out->pos is the first token's position. */
int sl__qname(sl__parser *p, sl_qname *out, const char *what);
/* A duration literal such as 10s ("expected a duration such as 10s"). */
int sl__duration(sl__parser *p, sl_duration *out);
/* An unsigned integer literal; one above INT64_MAX fails with SL_ERANGE. */
int sl__int64(sl__parser *p, int64_t *out, sl_pos *pos, const char *what);
/* A string literal, decoded (NUL terminated in the arena). */
int sl__string(sl__parser *p, const char **out, sl_pos *pos, const char *what);
/*
 * A type name: TIMESTAMP, BOOL, TINYINT/SMALLINT/INT/INTEGER/BIGINT [UNSIGNED], FLOAT,
 * DOUBLE, VARCHAR/BINARY/NCHAR [(n)]. *width is n or 0; *width_given (when not NULL) says
 * whether (n) was written. A length above UINT32_MAX fails with SL_ERANGE.
 */
int sl__type(sl__parser *p, sl_type *type, uint32_t *width, bool *width_given);
/* Optional IF NOT EXISTS / IF EXISTS: *out says whether it was there. */
int sl__if_not_exists(sl__parser *p, bool *out);
int sl__if_exists(sl__parser *p, bool *out);
/* Event types WINDOW_OPEN | WINDOW_CLOSE | IDLE | RESUME, '|' separated, as SL_EVT_ bits. */
int sl__event_types(sl__parser *p, unsigned *out);

/* ---- expressions (parser_expr.c) */

/* A new expression node of kind at pos, zeroed; every sl_expr must come from here. */
sl_expr *sl__new_expr(sl__parser *p, sl_expr_kind kind, sl_pos pos);
/* One expression, with every operator (OR binds loosest). */
int sl__expr(sl__parser *p, sl_expr **out);
/* expr [, expr ...]: at least one. */
int sl__expr_list(sl__parser *p, sl_expr_list *out);
/*
 * Continues an expression whose leading operand lhs, which started at start, has already
 * been read (EVENT_WINDOW's "START WITH (c) AND d"): applies every operator that follows.
 */
int sl__expr_continue(sl__parser *p, sl_expr *lhs, sl_pos start, sl_expr **out);

/*
 * Statements. Each starts at its first keyword (the current token; sl__select at SELECT),
 * fills st (kind and u) or *out, and stops after its last token, leaving the check for
 * ';' or the end of input to the caller.
 */
int sl__select(sl__parser *p, sl_select **out);
int sl__create_database(sl__parser *p, sl_stmt *st); /* at DATABASE */
int sl__create_stable(sl__parser *p, sl_stmt *st);   /* at STABLE */
int sl__create_table(sl__parser *p, sl_stmt *st);    /* at TABLE */
int sl__drop(sl__parser *p, sl_stmt *st);
int sl__show(sl__parser *p, sl_stmt *st);
int sl__use(sl__parser *p, sl_stmt *st);
int sl__describe(sl__parser *p, sl_stmt *st);
int sl__insert(sl__parser *p, sl_stmt *st);
int sl__delete(sl__parser *p, sl_stmt *st);
int sl__create_stream(sl__parser *p, sl_stmt *st);   /* at STREAM */
int sl__stream_ctl(sl__parser *p, sl_stmt *st);      /* START/STOP STREAM */

#endif
