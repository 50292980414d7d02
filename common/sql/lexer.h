/*
 * lexer.h - turns SQL text into tokens for the parser.
 *
 * The lexer walks the text once, left to right, and hands out one token per call with its
 * 1-based line and column. It resolves what can be resolved locally: keywords (matched
 * case-insensitively but kept as identifiers, so a non-reserved keyword can still name a
 * column), backquoted identifiers, string escapes, integer and float values, duration
 * literals such as 10s, and the %%placeholders of stream queries. Decoded strings live in
 * the caller's arena. A malformed token (an unterminated string, 10x, a stray '$') becomes
 * one SL_TK_ERROR token whose message the lexer keeps; the parser reports it only if it
 * reaches that token, so the first problem in source order is the one the user sees.
 */
#ifndef SL_LEXER_H
#define SL_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/arena.h"
#include "ast.h"

typedef enum sl_tok_kind {
    SL_TK_EOF = 0,
    SL_TK_ERROR,       /* malformed input; the message is in the lexer */
    SL_TK_IDENT,       /* a bare word; kw says which keyword it spells, if any */
    SL_TK_QIDENT,      /* `backquoted` identifier (never a keyword); str holds the name */
    SL_TK_STRING,      /* '...' or "..."; str/str_len hold the decoded bytes */
    SL_TK_INT,         /* integer literal; u holds the value (see big) */
    SL_TK_FLOAT,       /* number with '.' or an exponent; d holds the value */
    SL_TK_DURATION,    /* 10s: u holds the value (fits int64), unit the letter */
    SL_TK_PLACEHOLDER, /* %%trows, %%tbname, %%rollup_tag, %%n: ph and index */
    SL_TK_LPAREN,
    SL_TK_RPAREN,
    SL_TK_COMMA,
    SL_TK_SEMI,
    SL_TK_DOT,
    SL_TK_STAR,
    SL_TK_PLUS,
    SL_TK_MINUS,
    SL_TK_SLASH,
    SL_TK_PERCENT,
    SL_TK_EQ,          /* = */
    SL_TK_NE,          /* <> or != */
    SL_TK_LT,
    SL_TK_LE,
    SL_TK_GT,
    SL_TK_GE,
    SL_TK_CONCAT,      /* || */
    SL_TK_BITOR,       /* | */
    SL_TK_BITAND,      /* & */
    SL_TK_TILDE        /* ~ */
} sl_tok_kind;

/*
 * Keywords, in alphabetical order of their spelling (the lookup is a binary search over
 * this order). SL_KW__NONE marks an identifier that is not a keyword.
 */
#define SL_KEYWORDS(X)                                                                    \
    X(AND, 1) X(AS, 1) X(ASC, 1) X(BETWEEN, 1) X(BIGINT, 0) X(BINARY, 0) X(BOOL, 0)      \
    X(BY, 1) X(CALC_NOTIFY_ONLY, 0) X(CASE, 1) X(CAST, 1) X(COMPOSITE, 0) X(COUNT, 0)    \
    X(COUNT_WINDOW, 0) X(CREATE, 1) X(DATABASE, 0) X(DATABASES, 0) X(DELETE, 1)          \
    X(DELETE_OUTPUT_TABLE, 0) X(DELETE_RECALC, 0) X(DESC, 1) X(DESCRIBE, 1)              \
    X(DISTINCT, 1) X(DNODE, 0) X(DNODES, 0) X(DOUBLE, 0) X(DROP, 1) X(ELSE, 1) X(END, 1)             \
    X(EVENT_TYPE, 0) X(EVENT_WINDOW, 0) X(EXISTS, 0) X(EXPIRED_TIME, 0) X(EXTEND, 0)     \
    X(FALSE, 1) X(FILL, 1) X(FILL_HISTORY, 0) X(FILL_HISTORY_FIRST, 0) X(FIRST, 0)       \
    X(FLOAT, 0) X(FORCE_OUTPUT, 0) X(FROM, 1) X(GROUP, 1) X(HAVING, 1) X(IDLE, 0)        \
    X(IDLE_TIMEOUT, 0) X(IF, 0) X(IGNORE, 0) X(IGNORE_DISORDER, 0)                       \
    X(IGNORE_NODATA_TRIGGER, 0) X(IN, 1) X(INSERT, 1) X(INT, 0) X(INTEGER, 0)            \
    X(INTERVAL, 1) X(INTO, 1) X(IS, 1) X(KEY, 0) X(LAST, 0) X(LIKE, 1) X(LIMIT, 1)       \
    X(LINEAR, 0) X(LOW_LATENCY_CALC, 0) X(MAX_DELAY, 0) X(MNODES, 0) X(NCHAR, 0)         \
    X(NEXT, 0) X(NODELAY_CREATE_SUBTABLE, 0) X(NONE, 0) X(NOT, 1) X(NOTIFY, 0)           \
    X(NOTIFY_HISTORY, 0) X(NOTIFY_OPTIONS, 0) X(NOW, 1) X(NO_ZEROTH, 0) X(NULL, 1)       \
    X(NULLS, 0) X(OFFSET, 1) X(ON, 1) X(OR, 1) X(ORDER, 1) X(OUTPUT_SUBTABLE, 0)         \
    X(PARTITION, 1) X(PERIOD, 0) X(PRECISION, 0) X(PREV, 0) X(PRE_FILTER, 0)             \
    X(PRIMARY, 0) X(RESUME, 0) X(ROLLUP, 0) X(SELECT, 1) X(SESSION, 0) X(SHOW, 1)        \
    X(SLIDING, 1) X(SMALLINT, 0) X(SNODE, 0) X(SNODES, 0) X(STABLE, 0) X(STABLES, 0) X(START, 0)     \
    X(STATE_WINDOW, 0) X(STOP, 0) X(STREAM, 0) X(STREAMS, 0) X(STREAM_OPTIONS, 0)        \
    X(TABLE, 0) X(TABLES, 0) X(TAGS, 0) X(THEN, 1) X(TIMESTAMP, 0) X(TINYINT, 0)         \
    X(TODAY, 0) X(TRUE, 1) X(TRUE_FOR, 0) X(UNSIGNED, 0) X(UNTREATED, 0) X(USE, 0)       \
    X(USING, 1) X(VALUE, 0) X(VALUES, 1) X(VARCHAR, 0) X(VGROUPS, 0) X(VNODES, 0)        \
    X(WATERMARK, 0) X(WHEN, 1) X(WHERE, 1) X(WINDOW_CLOSE, 0) X(WINDOW_OPEN, 0)          \
    X(WITH, 0) X(ZEROTH_STATE, 0)

typedef enum sl_kw {
    SL_KW__NONE = 0,
#define SL__KW_ENUM(name, reserved) SL_KW_##name,
    SL_KEYWORDS(SL__KW_ENUM)
#undef SL__KW_ENUM
    SL_KW__COUNT
} sl_kw;

typedef struct sl_token {
    sl_tok_kind kind;
    sl_kw kw;            /* SL_TK_IDENT: the keyword it spells, else SL_KW__NONE */
    const char *text;    /* the token's source bytes (not NUL terminated) */
    size_t len;          /* length of text */
    sl_pos pos;          /* position of the first byte */
    const char *str;     /* QIDENT/STRING: decoded, NUL terminated, in the arena */
    uint32_t str_len;    /* STRING: decoded length (may contain NUL bytes) */
    uint64_t u;          /* INT: value; DURATION: value (<= INT64_MAX) */
    bool big;            /* INT: u > INT64_MAX (a SL_LIT_UINT) */
    double d;            /* FLOAT: value */
    char unit;           /* DURATION: unit letter */
    sl_placeholder ph;   /* PLACEHOLDER: which one */
    int index;           /* PLACEHOLDER %%n: n */
} sl_token;

/* Lexer state. Callers embed it and set it up with sl_lexer_init. */
typedef struct sl_lexer {
    const char *lx_src;      /* the whole text (borrowed) */
    const char *lx_end;      /* one past its last byte */
    const char *lx_cur;      /* next byte to read */
    const char *lx_line_start; /* first byte of the current line */
    int lx_line;             /* current 1-based line */
    sl_arena *lx_arena;      /* decoded strings go here (borrowed) */
    bool lx_failed;          /* an SL_TK_ERROR was produced; every later call repeats it */
    sl_token lx_err_tok;     /* that error token */
    int lx_err_code;         /* its code: SL_ESYNTAX, SL_ERANGE or SL_ENOMEM */
    char lx_err_msg[256];    /* its message, without the "line:col: " prefix */
} sl_lexer;

/* Prepares lx to read len bytes of src; both src and arena are borrowed. */
void sl_lexer_init(sl_lexer *lx, const char *src, size_t len, sl_arena *arena);

/*
 * Reads the next token into *tok, skipping blanks and comments. At the end of the text it
 * returns SL_TK_EOF (positioned just past the last byte) on every further call. On
 * malformed input it returns an SL_TK_ERROR token and keeps the code and message in
 * lx_err_code / lx_err_msg; once that happens every further call returns the same token.
 */
void sl_lexer_next(sl_lexer *lx, sl_token *tok);

/* Looks up a keyword by spelling (case-insensitive); SL_KW__NONE when it is not one. */
sl_kw sl_keyword_lookup(const char *s, size_t len);

/* Upper-case spelling of a keyword ("SELECT"); "" for SL_KW__NONE. */
const char *sl_keyword_name(sl_kw kw);

/* Size of the buffer sl_lexer_excerpt fills. */
#define SL_EXCERPT_SIZE 48

/*
 * Copies at most 40 bytes of s into out for an error message, replacing control and
 * non-ASCII bytes by '?' and marking a cut with "...". Always NUL terminates.
 */
void sl_lexer_excerpt(const char *s, size_t len, char out[SL_EXCERPT_SIZE]);

/* True for reserved keywords: they cannot be a bare name, alias or column. */
bool sl_keyword_reserved(sl_kw kw);

#endif
