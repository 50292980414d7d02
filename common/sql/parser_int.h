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

int sl__vec_push(sl__parser *p, sl__vec *v, size_t elsz, const void *elem);

/* ---- token cursor */
void sl__next(sl__parser *p);
/* The k-th token after the current one (k is 1 or 2). */
const sl_token *sl__peek(sl__parser *p, int k);
bool sl__is(const sl__parser *p, sl_tok_kind k);
bool sl__is_kw(const sl__parser *p, sl_kw kw);
/* Consumes the current token when it matches; returns whether it did. */
bool sl__accept(sl__parser *p, sl_tok_kind k);
bool sl__accept_kw(sl__parser *p, sl_kw kw);
/* Consumes a matching token or fails with "expected <what>". */
int sl__expect(sl__parser *p, sl_tok_kind k, const char *what);
int sl__expect_kw(sl__parser *p, sl_kw kw, const char *what);

/* ---- errors: each records the error (first one wins) and returns its code */
/* "syntax error near '<tok>': expected <what>" at the current token. */
int sl__fail_expected(sl__parser *p, const char *what);
/* "<line>:<col>: <message>" at pos with the given code. */
int sl__fail_at(sl__parser *p, sl_pos pos, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Arena allocation that records SL_ENOMEM on failure. */
void *sl__alloc(sl__parser *p, size_t n);
char *sl__strndup(sl__parser *p, const char *s, size_t n);
/* Enters one level of nesting at pos; fails with SL_ELIMIT beyond SL_SQL_MAX_DEPTH. */
int sl__enter(sl__parser *p, sl_pos pos);
void sl__leave(sl__parser *p);

/* ---- common pieces */
/* True when the current token can be a name: a non-reserved word or a `quoted` one. */
bool sl__is_name(const sl__parser *p);
/* A name (what names it in the error), copied into the arena. pos may be NULL. */
int sl__name(sl__parser *p, const char **out, sl_pos *pos, const char *what);
/* [db.]name */
int sl__qname(sl__parser *p, sl_qname *out, const char *what);
/* A duration literal such as 10s. */
int sl__duration(sl__parser *p, sl_duration *out);
/* An integer literal that fits int64 (no sign). */
int sl__int64(sl__parser *p, int64_t *out, sl_pos *pos, const char *what);
/* A string literal, decoded. pos may be NULL. */
int sl__string(sl__parser *p, const char **out, sl_pos *pos, const char *what);
/* A type: BIGINT [UNSIGNED], VARCHAR[(n)], ... width_given may be NULL. */
int sl__type(sl__parser *p, sl_type *type, uint32_t *width, bool *width_given);
/* Optional IF NOT EXISTS / IF EXISTS. */
int sl__if_not_exists(sl__parser *p, bool *out);
int sl__if_exists(sl__parser *p, bool *out);
/* Event types WINDOW_OPEN | WINDOW_CLOSE | IDLE | RESUME, '|' separated, as bits. */
int sl__event_types(sl__parser *p, unsigned *out);

/* ---- expressions (parser_expr.c) */
/* A new leaf expression node (every sl_expr must come from here). */
sl_expr *sl__new_expr(sl__parser *p, sl_expr_kind kind, sl_pos pos);
int sl__expr(sl__parser *p, sl_expr **out);
/* expr [, expr ...] */
int sl__expr_list(sl__parser *p, sl_expr_list *out);
/*
 * Continues an expression whose leading operand lhs, which started at start, has already
 * been read (EVENT_WINDOW's "START WITH (c) AND d"): applies every operator that follows.
 */
int sl__expr_continue(sl__parser *p, sl_expr *lhs, sl_pos start, sl_expr **out);

/* ---- statements */
int sl__select(sl__parser *p, sl_select **out);
int sl__create_database(sl__parser *p, sl_stmt *st);
int sl__create_stable(sl__parser *p, sl_stmt *st);
int sl__create_table(sl__parser *p, sl_stmt *st);
int sl__drop(sl__parser *p, sl_stmt *st);
int sl__show(sl__parser *p, sl_stmt *st);
int sl__use(sl__parser *p, sl_stmt *st);
int sl__describe(sl__parser *p, sl_stmt *st);
int sl__insert(sl__parser *p, sl_stmt *st);
int sl__delete(sl__parser *p, sl_stmt *st);
int sl__create_stream(sl__parser *p, sl_stmt *st);
int sl__stream_ctl(sl__parser *p, sl_stmt *st);

#endif
