/*
 * stmt_split.c - statement boundaries in shell input; see stmt_split.h.
 *
 * A byte-at-a-time state machine with the lexer's notion of strings and comments.
 * Added lines are only appended; sl_stmt_split_next scans from where the previous call
 * stopped, so every byte is looked at once. Consumed statements are dropped from the
 * front of the buffer lazily, when the next line arrives, so a line holding thousands of
 * short statements is not shifted once per statement.
 */
#include "stmt_split.h"

#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

enum {
    SP_NORMAL,       /* between tokens, or inside a bare token */
    SP_SQUOTE,       /* inside '...' */
    SP_DQUOTE,       /* inside "..." */
    SP_BQUOTE,       /* inside `...` */
    SP_LINE_COMMENT, /* after --, up to the end of the line */
    SP_BLOCK_COMMENT /* inside a C-style comment */
};

/* Longest pending text sl_stmt_split_partial copies. */
#define SP_PARTIAL_MAX 4096

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

void sl_stmt_split_init(sl_stmt_split *sp)
{
    memset(sp, 0, sizeof(*sp));
    sl_buf_init(&sp->sp_text);
    sl_buf_init(&sp->sp_partial);
    sp->sp_state = SP_NORMAL;
    sp->sp_line = 1;
    sp->sp_col = 1;
}

void sl_stmt_split_fini(sl_stmt_split *sp)
{
    sl_buf_fini(&sp->sp_text);
    sl_buf_fini(&sp->sp_partial);
}

int sl_stmt_split_add_line(sl_stmt_split *sp, const char *line, size_t len)
{
    if (sp->sp_base > 0) {
        /* Drop the statements already handed out before the buffer grows again. */
        size_t live = sp->sp_text.len - sp->sp_base;
        memmove(sp->sp_text.data, sp->sp_text.data + sp->sp_base, live);
        sp->sp_text.len = live;
        sp->sp_scan -= sp->sp_base;
        if (sp->sp_started)
            sp->sp_start -= sp->sp_base;
        sp->sp_base = 0;
    }
    int rc = sl_buf_reserve(&sp->sp_text, len + 1);
    if (rc < 0)
        return rc;
    sl_buf_put(&sp->sp_text, line, len);
    sl_buf_put(&sp->sp_text, "\n", 1);
    return 0;
}

/* Moves the scan position over one byte, keeping the line and column. */
static void step(sl_stmt_split *sp)
{
    if (sp->sp_text.data[sp->sp_scan] == '\n') {
        sp->sp_line++;
        sp->sp_col = 1;
    } else {
        sp->sp_col++;
    }
    sp->sp_scan++;
}

/* Copies sp_text[from, to) without trailing blanks into *out. */
static int take(sl_stmt_split *sp, size_t from, size_t to, sl_stmt_text *out)
{
    const char *t = (const char *)sp->sp_text.data;
    while (to > from && is_blank(t[to - 1]))
        to--;
    out->text = malloc(to - from + 1);
    if (out->text == NULL)
        return SL_ENOMEM;
    memcpy(out->text, t + from, to - from);
    out->text[to - from] = '\0';
    out->line = sp->sp_start_line;
    out->col = sp->sp_start_col;
    return 1;
}

int sl_stmt_split_next(sl_stmt_split *sp, bool at_end, sl_stmt_text *out)
{
    const char *t = (const char *)sp->sp_text.data;
    size_t len = sp->sp_text.len;
    while (sp->sp_scan < len) {
        size_t i = sp->sp_scan;
        char c = t[i];
        char next = i + 1 < len ? t[i + 1] : '\0';
        switch (sp->sp_state) {
        case SP_NORMAL:
            if (c == '-' && next == '-') {
                sp->sp_state = SP_LINE_COMMENT;
                step(sp);
            } else if (c == '/' && next == '*') {
                sp->sp_state = SP_BLOCK_COMMENT;
                step(sp);
            } else if (c == ';') {
                step(sp);
                sp->sp_base = sp->sp_scan;
                if (!sp->sp_started)
                    continue; /* an empty statement: nothing to run */
                sp->sp_started = false;
                return take(sp, sp->sp_start, i, out);
            } else if (!is_blank(c)) {
                if (!sp->sp_started) {
                    sp->sp_started = true;
                    sp->sp_start = i;
                    sp->sp_start_line = sp->sp_line;
                    sp->sp_start_col = sp->sp_col;
                }
                if (c == '\'')
                    sp->sp_state = SP_SQUOTE;
                else if (c == '"')
                    sp->sp_state = SP_DQUOTE;
                else if (c == '`')
                    sp->sp_state = SP_BQUOTE;
            }
            break;
        case SP_SQUOTE:
        case SP_DQUOTE:
            if (c == '\\' && i + 1 < len)
                step(sp); /* the escaped byte cannot end the string */
            else if (c == (sp->sp_state == SP_SQUOTE ? '\'' : '"'))
                sp->sp_state = SP_NORMAL; /* a doubled quote reopens at once */
            break;
        case SP_BQUOTE:
            if (c == '`')
                sp->sp_state = SP_NORMAL;
            break;
        case SP_LINE_COMMENT:
            if (c == '\n')
                sp->sp_state = SP_NORMAL;
            break;
        case SP_BLOCK_COMMENT:
            if (c == '*' && next == '/') {
                sp->sp_state = SP_NORMAL;
                step(sp);
            }
            break;
        }
        step(sp);
    }
    if (!at_end)
        return 0;
    /* End of input: whatever was started is the last statement. */
    sp->sp_state = SP_NORMAL;
    sp->sp_base = len;
    if (!sp->sp_started)
        return 0;
    sp->sp_started = false;
    return take(sp, sp->sp_start, len, out);
}

bool sl_stmt_split_pending(const sl_stmt_split *sp)
{
    return sp->sp_started || sp->sp_state != SP_NORMAL;
}

const char *sl_stmt_split_partial(sl_stmt_split *sp)
{
    /* Every added line ends in '\n', so the most recent line is the one before sp_line. */
    if (!sp->sp_started || sp->sp_state != SP_NORMAL || sp->sp_scan != sp->sp_text.len ||
        sp->sp_start_line != sp->sp_line - 1)
        return NULL;
    const char *t = (const char *)sp->sp_text.data;
    size_t end = sp->sp_text.len;
    while (end > sp->sp_start && is_blank(t[end - 1]))
        end--;
    if (end - sp->sp_start > SP_PARTIAL_MAX)
        return NULL; /* far longer than any shell command */
    sl_buf_reset(&sp->sp_partial);
    if (sl_buf_printf(&sp->sp_partial, "%.*s", (int)(end - sp->sp_start), t + sp->sp_start) < 0)
        return NULL;
    return (const char *)sp->sp_partial.data;
}

void sl_stmt_split_clear(sl_stmt_split *sp)
{
    sp->sp_scan = sp->sp_text.len;
    sp->sp_base = sp->sp_text.len;
    sp->sp_started = false;
    sp->sp_state = SP_NORMAL;
}
