/*
 * output.c - how the shell shows results and errors: the aligned table with its
 * "Query OK" line, the table of output formats, and the error report with a caret.
 *
 *      name  | precision | vgroups | ntables
 *     -------+-----------+---------+---------
 *      power | ms        |       2 |       4
 *     Query OK, 1 row(s) in set (0.001s)
 *
 * The table itself is sl_result_format's (the embedded store prints the same layout), so
 * the shell and the demo agree; the shell replaces its "(N rows)" footer with the line
 * the taos shell prints. Writes print "Query OK, N row(s) affected (0.001s)".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

const sl_cli_format sl__cli_formats[SL_CLI_MODE__COUNT] = {
    [SL_CLI_MODE_TABLE] = {.name = "table", .print = sl__cli_print_table},
    [SL_CLI_MODE_CSV] = {.name = "csv", .print = sl__cli_print_csv},
    [SL_CLI_MODE_JSON] = {.name = "json", .print = sl__cli_print_json},
};

bool sl__cli_mode_from_name(const char *name, sl_cli_mode *out)
{
    for (int i = 0; i < SL_CLI_MODE__COUNT; i++) {
        if (strcasecmp(sl__cli_formats[i].name, name) == 0) {
            *out = (sl_cli_mode)i;
            return true;
        }
    }
    return false;
}

sl_cli_cell_kind sl__cli_cell(const sl_column *col, uint32_t row, sl_precision prec, char *buf,
                              const char **s, size_t *len)
{
    *s = buf;
    if (sl_column_is_null(col, row)) {
        *len = (size_t)snprintf(buf, SL_CLI_CELL_BUF, "NULL");
        return SL_CLI_CELL_NULL;
    }
    if (sl_type_is_var(col->type)) {
        uint32_t l;
        *s = sl_column_get_str(col, row, &l);
        *len = l;
        return SL_CLI_CELL_TEXT;
    }
    sl_value v;
    sl_column_get(col, row, &v);
    int n = sl_value_format(&v, prec, buf, SL_CLI_CELL_BUF);
    if (n < 0 || n >= SL_CLI_CELL_BUF)
        n = snprintf(buf, SL_CLI_CELL_BUF, "?");
    *len = (size_t)n;
    if (v.type == SL_T_BOOL)
        return SL_CLI_CELL_BOOL;
    if (sl_type_is_float(v.type) && !isfinite(v.v.d))
        return SL_CLI_CELL_SPECIAL;
    if (sl_type_is_numeric(v.type))
        return SL_CLI_CELL_NUMBER;
    return SL_CLI_CELL_TEXT;
}

/* Prints the "Query OK" line of a result. */
static void print_query_ok(sl_cli *c, const sl_result *r, double secs)
{
    if (r->ncols > 0)
        fprintf(c->out, "Query OK, %u row(s) in set", r->rows.nrows);
    else
        fprintf(c->out, "Query OK, %lld row(s) affected",
                (long long)(r->affected > 0 ? r->affected : 0));
    if (c->timing)
        fprintf(c->out, " (%.3fs)", secs);
    fputc('\n', c->out);
}

int sl__cli_print_table(sl_cli *c, const sl_result *r, double secs)
{
    if (r->ncols > 0) {
        sl_buf b;
        sl_buf_init(&b);
        int rc = sl_result_format(r, &b);
        if (rc < 0) {
            sl_buf_fini(&b);
            return rc;
        }
        /* Drop the "(N rows)" footer: the Query OK line says it. */
        size_t end = b.len;
        if (end > 0 && b.data[end - 1] == '\n') {
            size_t start = end - 1;
            while (start > 0 && b.data[start - 1] != '\n')
                start--;
            if (b.data[start] == '(')
                end = start;
        }
        fwrite(b.data, 1, end, c->out);
        sl_buf_fini(&b);
    }
    print_query_ok(c, r, secs);
    if (c->interactive)
        fputc('\n', c->out);
    return 0;
}

/* ------------------------------------------------------------ errors */

/* Longest excerpt of a statement line shown under an error, in bytes. */
#define EXCERPT_MAX 120

/*
 * Removes the "line:col: " prefix the engine puts on positioned messages; the caret shows
 * the position. Returns a pointer into msg.
 */
static const char *strip_position(const sl_error *err)
{
    char prefix[32];
    int n = snprintf(prefix, sizeof(prefix), "%d:%d: ", err->line, err->col);
    if (err->line > 0 && strncmp(err->msg, prefix, (size_t)n) == 0)
        return err->msg + n;
    return err->msg;
}

/* Prints the excerpt of line [p, p+n) and a caret under byte offset at. */
static void print_caret(FILE *f, const char *p, size_t n, size_t at)
{
    size_t from = 0, to = n;
    if (n > EXCERPT_MAX) {
        /* A long line (a big INSERT): show a window around the position. */
        from = at > EXCERPT_MAX / 2 ? at - EXCERPT_MAX / 2 : 0;
        while (from > 0 && ((unsigned char)p[from] & 0xC0) == 0x80)
            from--; /* start on a character */
        to = from + EXCERPT_MAX < n ? from + EXCERPT_MAX : n;
        while (to < n && ((unsigned char)p[to] & 0xC0) == 0x80)
            to++;
    }
    const char *lead = from > 0 ? "..." : "";
    fprintf(f, "%s%.*s%s\n", lead, (int)(to - from), p + from, to < n ? "..." : "");
    fputs(lead, f);
    /* One blank per character before the position; tabs stay tabs so the caret lines up. */
    for (size_t i = from; i < at && i < to; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch == '\t')
            fputc('\t', f);
        else if ((ch & 0xC0) != 0x80)
            fputc(' ', f);
    }
    for (size_t i = to; i < at; i++)
        fputc(' ', f); /* a position past the end of the line: end of input */
    fputs("^\n", f);
}

void sl__cli_print_error(sl_cli *c, const sl_error *err, const char *stmt, const char *src,
                         int line, int col)
{
    const char *msg = err->msg[0] != '\0' ? strip_position(err) : sl_strerror(err->code);
    if (src != NULL && err->line > 0) {
        /* In a file, say where: the statement's first line is `line` of the file. */
        int fl = line + err->line - 1;
        int fc = err->line == 1 ? col + err->col - 1 : err->col;
        fprintf(c->err, "ERROR: %s:%d:%d: %s\n", src, fl, fc, msg);
    } else if (src != NULL) {
        fprintf(c->err, "ERROR: %s:%d: %s\n", src, line, msg);
    } else {
        fprintf(c->err, "ERROR: %s\n", msg);
    }
    if (stmt == NULL || err->line <= 0 || err->col <= 0)
        return;
    /* Find the statement's line err->line. */
    const char *p = stmt;
    for (int l = 1; l < err->line && p != NULL; l++) {
        p = strchr(p, '\n');
        if (p != NULL)
            p++;
    }
    if (p == NULL)
        return;
    const char *nl = strchr(p, '\n');
    size_t n = nl != NULL ? (size_t)(nl - p) : strlen(p);
    if (n > 0 && p[n - 1] == '\r')
        n--;
    size_t at = (size_t)err->col - 1;
    print_caret(c->err, p, n, at < n ? at : n);
}
