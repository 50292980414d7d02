/*
 * fuzz_block_decode.c - libFuzzer target for sl_block_decode.
 *
 * Blocks arrive from the network and from disk, so the decoder must answer any bytes with
 * a block or SL_ECORRUPT, never a crash, a leak or an allocation out of proportion to the
 * input. When the input decodes, the target also reads every value, copies each column
 * with sl_column_append_rows, and checks that encoding is stable: encode(decoded) must
 * decode again and re-encode to the same bytes. Seeds: tests/fuzz/corpus/block_decode/
 * (written by test_block with SLUICE_WRITE_BLOCK_SEEDS=<dir>).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/types/block.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Rows of a column worth visiting: constant columns repeat row 0 however long they are. */
static uint32_t rows_to_visit(const sl_column *c)
{
    if (c->is_const)
        return c->nrows < 2 ? c->nrows : 2;
    return c->nrows;
}

static void visit(const sl_block *b)
{
    char text[96];
    for (uint32_t ci = 0; ci < b->ncols; ci++) {
        const sl_column *c = &b->cols[ci];
        CHECK(c->nrows == b->nrows);
        uint32_t n = rows_to_visit(c);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t i = c->is_const && k == 1 ? c->nrows - 1 : k;
            sl_value v;
            sl_column_get(c, i, &v);
            sl_value_format(&v, SL_PREC_NS, text, sizeof(text));
        }
    }
}

/* Copies every column through append_rows (constants expand) and compares values. */
static void copy_columns(const sl_block *b)
{
    if (b->nrows > 4096)
        return;
    for (uint32_t ci = 0; ci < b->ncols; ci++) {
        const sl_column *c = &b->cols[ci];
        sl_column d;
        sl_column_init(&d, c->type, c->width);
        if (sl_column_append_rows(&d, c, NULL, 0, c->nrows) == 0) {
            CHECK(d.nrows == c->nrows && !d.is_const);
            for (uint32_t i = 0; i < c->nrows; i++) {
                sl_value x, y;
                int cmp;
                sl_column_get(c, i, &x);
                sl_column_get(&d, i, &y);
                CHECK(x.is_null == y.is_null);
                if (x.is_null)
                    continue;
                if (sl_type_is_float(c->type))
                    CHECK(memcmp(&x.v.d, &y.v.d, sizeof(double)) == 0);
                else
                    CHECK(sl_value_compare(&x, &y, SL_PREC_MS, &cmp) == 0 && cmp == 0);
            }
        }
        sl_column_fini(&d);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sl_block b, b2;
    sl_buf e1, e2;
    sl_error err;
    sl_block_init(&b);
    sl_block_init(&b2);
    sl_buf_init(&e1);
    sl_buf_init(&e2);
    sl_error_clear(&err);

    int rc = sl_block_decode(data, size, &b, &err);
    if (rc != 0) {
        CHECK(rc == SL_ECORRUPT || rc == SL_ENOMEM);
        CHECK(err.code == rc && err.msg[0] != '\0');
        CHECK(b.ncols == 0 && b.cols == NULL);
        return 0;
    }
    visit(&b);
    copy_columns(&b);

    CHECK(sl_block_encode(&b, &e1) == 0);
    CHECK(e1.len <= size); /* the encoder only drops what the decoder normalised */
    CHECK(sl_block_decode(e1.data, e1.len, &b2, NULL) == 0);
    CHECK(sl_block_encode(&b2, &e2) == 0);
    CHECK(e1.len == e2.len && memcmp(e1.data, e2.data, e1.len) == 0);

    sl_buf_fini(&e1);
    sl_buf_fini(&e2);
    sl_block_fini(&b2);
    sl_block_fini(&b);
    return 0;
}
