/*
 * stmt_split.h - cuts a stream of input lines into SQL statements ending in ';'.
 *
 * The shell reads lines (typed, piped, from a file or from -s) and must know where each
 * statement ends before it can run it: at a ';' that is not inside a '...' or "..."
 * string (with backslash escapes and doubled quotes), a `quoted` identifier, a -- line
 * comment or a C-style block comment; the rules are the SQL lexer's (common/sql/lexer.c).
 * The splitter is incremental: lines are added as they arrive and each is scanned once,
 * so a statement of a million lines costs linear time. It also keeps every statement's
 * source line and column so errors can be reported where the user wrote them.
 */
#ifndef SL_STMT_SPLIT_H
#define SL_STMT_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/util/buf.h"

/* A splitter. Callers embed it; the fields are private to stmt_split.c. */
typedef struct sl_stmt_split {
    sl_buf sp_text;    /* input not yet returned as statements; sp_base.. is live */
    size_t sp_base;    /* bytes at the front of sp_text already consumed */
    size_t sp_scan;    /* bytes of sp_text scanned */
    int sp_state;      /* lexical state at sp_scan (normal, in a string, a comment...) */
    int sp_line;       /* source line of the byte at sp_scan */
    int sp_col;        /* source column (1-based, in bytes) of the byte at sp_scan */
    bool sp_started;   /* the current statement has begun (a significant byte was seen) */
    size_t sp_start;   /* offset in sp_text of the current statement's first byte */
    int sp_start_line; /* source line of that byte */
    int sp_start_col;  /* source column of that byte */
    sl_buf sp_partial; /* scratch copy returned by sl_stmt_split_partial */
} sl_stmt_split;

/* One statement cut from the input. */
typedef struct sl_stmt_text {
    char *text; /* owned (free()): the statement without its ';' or trailing blanks */
    int line;   /* source line of its first byte (1-based) */
    int col;    /* source column of its first byte (1-based, in bytes) */
} sl_stmt_text;

/* Initialises an empty splitter whose first line is numbered 1. */
void sl_stmt_split_init(sl_stmt_split *sp);

/* Frees what the splitter holds (the pending text). */
void sl_stmt_split_fini(sl_stmt_split *sp);

/*
 * Adds one line of input (without its newline; line is borrowed) and scans it. Returns
 * 0 or SL_ENOMEM.
 */
int sl_stmt_split_add_line(sl_stmt_split *sp, const char *line, size_t len);

/*
 * Takes the next complete statement: returns 1 and fills *out (the caller frees
 * out->text), or 0 when no complete statement is waiting. Statements that hold nothing
 * but blanks and comments are skipped. With at_end set, the input is over and an
 * unterminated statement is returned as the last one (a statement without ';', or an
 * open string the parser will report). Returns SL_ENOMEM when the copy fails.
 */
int sl_stmt_split_next(sl_stmt_split *sp, bool at_end, sl_stmt_text *out);

/*
 * True while a statement is under way: part of one has been read, or the input stopped
 * inside a string or a comment. The shell shows its continuation prompt then.
 */
bool sl_stmt_split_pending(const sl_stmt_split *sp);

/*
 * When the pending statement began on the most recent line, is outside any string or
 * comment, and spans that line only, returns its text (trimmed, without a trailing ';')
 * in a buffer valid until the next call on sp; otherwise NULL. The shell uses it to spot
 * its own commands (help, \q) that need no ';'.
 */
const char *sl_stmt_split_partial(sl_stmt_split *sp);

/* Drops the pending statement (the shell's command consumed it, or the user cancelled). */
void sl_stmt_split_clear(sl_stmt_split *sp);

#endif
