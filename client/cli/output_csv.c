/*
 * output_csv.c - results as CSV (`sluice --csv`), for spreadsheets and scripts.
 *
 * A header line with the column names, then one line per row. Fields are quoted as RFC
 * 4180 says: a field holding a comma, a double quote, CR or LF is enclosed in double
 * quotes with its quotes doubled. NULL is an empty field and an empty string is "", so
 * the two stay apart (the convention of PostgreSQL's COPY ... CSV). Timestamps are text in
 * the result's precision. Lines end in LF. Statements without rows print nothing: the
 * output is data only.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void put_field(FILE *f, const char *s, size_t len, bool force_quotes)
{
    bool quote = force_quotes;
    for (size_t i = 0; i < len && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
    if (!quote) {
        fwrite(s, 1, len, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

int sl__cli_print_csv(sl_cli *c, const sl_result *r, double secs)
{
    (void)secs;
    if (r->ncols == 0)
        return 0;
    for (int i = 0; i < r->ncols; i++) {
        if (i > 0)
            fputc(',', c->out);
        put_field(c->out, r->names[i], strlen(r->names[i]), false);
    }
    fputc('\n', c->out);
    char buf[SL_CLI_CELL_BUF];
    for (uint32_t row = 0; row < r->rows.nrows; row++) {
        for (int i = 0; i < r->ncols; i++) {
            const char *s;
            size_t len;
            if (i > 0)
                fputc(',', c->out);
            sl_cli_cell_kind k = sl__cli_cell(&r->rows.cols[i], row, r->precision, buf, &s, &len);
            if (k == SL_CLI_CELL_NULL)
                continue;
            /* An empty string is quoted so that it differs from NULL. */
            put_field(c->out, s, len, len == 0);
        }
        fputc('\n', c->out);
    }
    return 0;
}
