/*
 * output_json.c - results as JSON (`sluice --json`), for programs.
 *
 * Each result with rows is one JSON array holding an object per row, keys in column
 * order, one row per line:
 *
 *     [
 *       {"ts": "2025-01-01 00:00:00.000", "current": 10.5, "location": "SF"},
 *       {"ts": "2025-01-01 00:00:10.000", "current": null, "location": "SF"}
 *     ]
 *
 * Numbers are JSON numbers (floating point in the shortest form that reads back exactly;
 * NaN and the infinities, which JSON cannot spell, are null), BOOL is true/false, NULL is
 * null, and timestamps are strings in the result's precision. Strings are escaped as RFC
 * 8259 requires; bytes that are not well-formed UTF-8 become U+FFFD, so the output is
 * always valid JSON. Statements without rows print nothing.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Length of the well-formed UTF-8 sequence at p (n bytes available), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned char b = p[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (b < 0x80)
        return 1;
    if (b >= 0xC2 && b <= 0xDF) {
        len = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        if (b == 0xE0)
            lo = 0xA0; /* no overlong forms */
        else if (b == 0xED)
            hi = 0x9F; /* no surrogates */
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        if (b == 0xF0)
            lo = 0x90;
        else if (b == 0xF4)
            hi = 0x8F; /* nothing above U+10FFFF */
    } else {
        return 0;
    }
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return len;
}

static void put_string(FILE *f, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    for (size_t i = 0; i < len;) {
        unsigned char ch = p[i];
        switch (ch) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (ch < 0x20) {
                fprintf(f, "\\u%04x", ch);
            } else if (ch >= 0x80) {
                size_t n = utf8_len(p + i, len - i);
                if (n == 0) {
                    fputs("\\ufffd", f); /* a stray byte */
                    i++;
                } else {
                    fwrite(p + i, 1, n, f);
                    i += n;
                }
                continue;
            } else {
                fputc(ch, f);
            }
            break;
        }
        i++;
    }
    fputc('"', f);
}

int sl__cli_print_json(sl_cli *c, const sl_result *r, double secs)
{
    (void)secs;
    if (r->ncols == 0)
        return 0;
    if (r->rows.nrows == 0) {
        fputs("[]\n", c->out);
        return 0;
    }
    char buf[SL_CLI_CELL_BUF];
    fputs("[\n", c->out);
    for (uint32_t row = 0; row < r->rows.nrows; row++) {
        fputs("  {", c->out);
        for (int i = 0; i < r->ncols; i++) {
            const char *s;
            size_t len;
            if (i > 0)
                fputs(", ", c->out);
            put_string(c->out, r->names[i], strlen(r->names[i]));
            fputs(": ", c->out);
            switch (sl__cli_cell(&r->rows.cols[i], row, r->precision, buf, &s, &len)) {
            case SL_CLI_CELL_NULL:
            case SL_CLI_CELL_SPECIAL: fputs("null", c->out); break;
            case SL_CLI_CELL_NUMBER:
            case SL_CLI_CELL_BOOL: fwrite(s, 1, len, c->out); break;
            case SL_CLI_CELL_TEXT: put_string(c->out, s, len); break;
            }
        }
        fputs(row + 1 < r->rows.nrows ? "},\n" : "}\n", c->out);
    }
    fputs("]\n", c->out);
    return 0;
}
