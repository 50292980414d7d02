/*
 * result_format.c - results as aligned text tables, the way psql and the taos shell print
 * them.
 *
 *      name  | precision | vgroups
 *     -------+-----------+---------
 *      power | ms        |       2
 *     (1 row)
 *
 * Headers are centred, numbers right-aligned, everything else left-aligned; timestamps are
 * formatted in the result's precision and numbers as sl_value_format writes them (floating
 * point in the shortest form that reads back to the same value), NULL as NULL. Widths
 * count UTF-8 characters. Two passes over the rows (measure, then print) keep memory
 * independent of the result size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

/* Room for any formatted non-string cell (timestamps need 40). */
#define CELL_BUF 64

/* Points *s and *len at the text of a cell, formatting into buf when needed. */
static void cell_text(const sl_column *c, uint32_t row, sl_precision prec, char *buf,
                      const char **s, size_t *len)
{
    *s = buf;
    if (sl_column_is_null(c, row)) {
        snprintf(buf, CELL_BUF, "NULL");
    } else if (sl_type_is_var(c->type)) {
        uint32_t l;
        *s = sl_column_get_str(c, row, &l);
        *len = l;
        return;
    } else {
        /* Numbers, BOOL and timestamps (in the result's precision) as users see them. */
        sl_value v;
        sl_column_get(c, row, &v);
        if (sl_value_format(&v, prec, buf, CELL_BUF) < 0)
            snprintf(buf, CELL_BUF, "?");
    }
    *len = strlen(buf);
}

/* Display width of UTF-8 text: the number of characters. */
static size_t text_width(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            w++;
    return w;
}

static int pad(sl_buf *out, char ch, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = sl_buf_put(out, &ch, 1);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/*
 * Appends " text " padded to width w, aligned left (0), right (1) or centred (2). The last
 * cell of a line gets no trailing blanks.
 */
static int put_cell(sl_buf *out, const char *s, size_t len, size_t w, int align, bool last)
{
    size_t tw = text_width(s, len), gap = w > tw ? w - tw : 0;
    size_t before = align == 1 ? gap : align == 2 ? gap / 2 : 0;
    int rc = pad(out, ' ', 1 + before);
    if (rc == 0)
        rc = sl_buf_put(out, s, len);
    if (rc == 0 && !last)
        rc = pad(out, ' ', gap - before + 1);
    return rc;
}

int sl_result_format(const sl_result *r, sl_buf *out)
{
    if (r->ncols == 0) {
        if (r->affected >= 0)
            return sl_buf_printf(out, "OK, %lld row%s affected\n", (long long)r->affected,
                                 r->affected == 1 ? "" : "s");
        return sl_buf_printf(out, "OK\n");
    }
    size_t *w = calloc((size_t)r->ncols, sizeof(*w));
    if (w == NULL)
        return SL_ENOMEM;
    char buf[CELL_BUF];
    const char *s;
    size_t len;
    uint32_t nrows = r->rows.nrows;
    for (int i = 0; i < r->ncols; i++) {
        w[i] = text_width(r->names[i], strlen(r->names[i]));
        for (uint32_t row = 0; row < nrows; row++) {
            cell_text(&r->rows.cols[i], row, r->precision, buf, &s, &len);
            size_t tw = text_width(s, len);
            if (tw > w[i])
                w[i] = tw;
        }
    }
    int rc = 0;
    for (int i = 0; rc == 0 && i < r->ncols; i++) {
        if (i > 0)
            rc = sl_buf_put(out, "|", 1);
        if (rc == 0)
            rc = put_cell(out, r->names[i], strlen(r->names[i]), w[i], 2, i + 1 == r->ncols);
    }
    if (rc == 0)
        rc = sl_buf_put(out, "\n", 1);
    for (int i = 0; rc == 0 && i < r->ncols; i++) {
        if (i > 0)
            rc = sl_buf_put(out, "+", 1);
        if (rc == 0)
            rc = pad(out, '-', w[i] + 2);
    }
    if (rc == 0)
        rc = sl_buf_put(out, "\n", 1);
    for (uint32_t row = 0; rc == 0 && row < nrows; row++) {
        for (int i = 0; rc == 0 && i < r->ncols; i++) {
            const sl_column *c = &r->rows.cols[i];
            cell_text(c, row, r->precision, buf, &s, &len);
            if (i > 0)
                rc = sl_buf_put(out, "|", 1);
            bool right = sl_type_is_numeric(c->type) && !sl_column_is_null(c, row);
            if (rc == 0)
                rc = put_cell(out, s, len, w[i], right ? 1 : 0, i + 1 == r->ncols);
        }
        if (rc == 0)
            rc = sl_buf_put(out, "\n", 1);
    }
    if (rc == 0)
        rc = sl_buf_printf(out, "(%u row%s)\n", nrows, nrows == 1 ? "" : "s");
    free(w);
    return rc;
}
