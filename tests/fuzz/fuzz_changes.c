/*
 * fuzz_changes.c - libFuzzer target for the vnode's change block (sl__vn_change_block,
 * VNODE_CHANGES): a ROWS change carries the rows a peer wrote, as they were decoded from
 * its WriteRequest, plus a per-row kind column. The input is an encoded block (what a
 * WriteItem carries) followed by nothing else; row kinds are derived from the row index.
 * When the block decodes, the change block must encode, decode again with one more
 * column (TINYINT, 1 insert / 2 update per row) and hold the same values in the other
 * columns. Seeds: tests/fuzz/corpus/changes/ (blocks written by test_block with
 * SLUICE_WRITE_BLOCK_SEEDS=<dir>, as for block_decode).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnode-adapter/daemon/vrequest.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Rows compared value by value; the rest only through their count. */
#define ROWS_COMPARED 64

static void same_value(const sl_column *a, const sl_column *b, uint32_t r)
{
    sl_value x, y;
    sl_column_get(a, r, &x);
    sl_column_get(b, r, &y);
    char tx[128], ty[128];
    sl_value_format(&x, SL_PREC_NS, tx, sizeof(tx));
    sl_value_format(&y, SL_PREC_NS, ty, sizeof(ty));
    CHECK(strcmp(tx, ty) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sl_vs_change c;
    memset(&c, 0, sizeof(c));
    c.kind = SL_VS_CHANGE_ROWS;
    sl_block_init(&c.rows);
    sl_error err;
    sl_error_clear(&err);
    if (sl_block_decode(data, size, &c.rows, &err) != 0 || c.rows.nrows > SL_BLOCK_ROWS_MAX) {
        sl_block_fini(&c.rows);
        return 0;
    }
    c.row_kinds = malloc(c.rows.nrows + 1);
    CHECK(c.row_kinds != NULL);
    for (uint32_t r = 0; r < c.rows.nrows; r++)
        c.row_kinds[r] = r % 3 == 1 ? SL_VS_ROW_UPDATE : SL_VS_ROW_INSERT;

    sl_buf out;
    sl_buf_init(&out);
    int rc = sl__vn_change_block(&c, &out);
    CHECK(rc == 0 || rc == SL_ENOMEM || rc == SL_ELIMIT);
    if (rc == 0) {
        sl_block back;
        sl_block_init(&back);
        sl_error e2;
        sl_error_clear(&e2);
        CHECK(sl_block_decode(out.data, out.len, &back, &e2) == 0);
        CHECK(back.ncols == c.rows.ncols + 1 && back.nrows == c.rows.nrows);
        const sl_column *kind = &back.cols[back.ncols - 1];
        CHECK(kind->type == SL_T_TINYINT);
        uint32_t n = c.rows.nrows < ROWS_COMPARED ? c.rows.nrows : ROWS_COMPARED;
        for (uint32_t r = 0; r < n; r++) {
            CHECK(!sl_column_is_null(kind, r));
            CHECK(sl_column_get_i64(kind, r) == (r % 3 == 1 ? 2 : 1));
            for (uint32_t ci = 0; ci < c.rows.ncols; ci++) {
                CHECK(back.cols[ci].type == c.rows.cols[ci].type);
                same_value(&c.rows.cols[ci], &back.cols[ci], r);
            }
        }
        sl_block_fini(&back);
    }
    sl_buf_fini(&out);
    free(c.row_kinds);
    sl_block_fini(&c.rows);
    return 0;
}
