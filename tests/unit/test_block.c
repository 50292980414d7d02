/*
 * test_block.c - columns, constant columns, gathers, blocks, and the block encoding:
 * exact bytes for a small block, round trips of every type with NULLs and constants,
 * refusals of malformed input, and a robustness sweep (every truncation and thousands of
 * random mutations of a valid encoding must decode cleanly or give SL_ECORRUPT).
 *
 * Setting SLUICE_WRITE_BLOCK_SEEDS=<dir> makes test_write_fuzz_seeds write the seed
 * corpus of tests/fuzz/fuzz_block_decode.c (tests/fuzz/corpus/block_decode/) into <dir>.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/types/block.h"

/* ---- helpers --------------------------------------------------------------------- */

/* Compares two columns row by row; floats bit for bit so NaN payloads count. */
static void assert_columns_equal(const sl_column *a, const sl_column *b)
{
    assert_int_equal(a->type, b->type);
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->nrows, b->nrows);
    assert_int_equal(a->is_const, b->is_const);
    for (uint32_t i = 0; i < a->nrows; i++) {
        /* constant columns: row 0 and the last row are enough */
        if (a->is_const && i > 0 && i + 1 < a->nrows)
            continue;
        sl_value va, vb;
        sl_column_get(a, i, &va);
        sl_column_get(b, i, &vb);
        if (va.is_null != vb.is_null)
            fail_msg("row %u: null %d vs %d", i, va.is_null, vb.is_null);
        if (va.is_null)
            continue;
        if (sl_type_is_var(a->type)) {
            assert_int_equal(va.v.s.len, vb.v.s.len);
            if (va.v.s.len > 0)
                assert_memory_equal(va.v.s.ptr, vb.v.s.ptr, va.v.s.len);
        } else if (sl_type_is_float(a->type)) {
            assert_memory_equal(&va.v.d, &vb.v.d, sizeof(double));
        } else if (a->type == SL_T_BOOL) {
            assert_int_equal(va.v.b, vb.v.b);
        } else {
            assert_true(va.v.u == vb.v.u);
        }
    }
}

static void assert_blocks_equal(const sl_block *a, const sl_block *b)
{
    assert_int_equal(a->nrows, b->nrows);
    assert_int_equal(a->ncols, b->ncols);
    for (uint32_t c = 0; c < a->ncols; c++)
        assert_columns_equal(&a->cols[c], &b->cols[c]);
}

static const char *const texts[] = {"",
                                    "a",
                                    "row",
                                    "h\xc3\xa9llo",
                                    "\xe6\x97\xa5\xe6\x9c\xac",
                                    "a somewhat longer string of text",
                                    "\xf0\x9f\x98\x80"};
#define NTEXTS (sizeof(texts) / sizeof(texts[0]))

/* Appends row i of the reference data to a column of any type (NULL when null). */
static void append_ref(sl_column *c, uint32_t i, bool null)
{
    if (null) {
        assert_int_equal(sl_column_append_null(c), 0);
        return;
    }
    int rc;
    switch (c->type) {
    case SL_T_BOOL: rc = sl_column_append_bool(c, i % 2 == 1); break;
    case SL_T_TINYINT: rc = sl_column_append_i64(c, (int64_t)(i * 7 % 256) - 128); break;
    case SL_T_SMALLINT: rc = sl_column_append_i64(c, (int64_t)i * 300 - 5000); break;
    case SL_T_INT: rc = sl_column_append_i64(c, (int64_t)i * 100000 - 7); break;
    case SL_T_BIGINT: rc = sl_column_append_i64(c, INT64_MIN + i); break;
    case SL_T_UTINYINT: rc = sl_column_append_u64(c, i % 256); break;
    case SL_T_USMALLINT: rc = sl_column_append_u64(c, i * 1000 % 65536); break;
    case SL_T_UINT: rc = sl_column_append_u64(c, 4000000000u - i); break;
    case SL_T_UBIGINT: rc = sl_column_append_u64(c, UINT64_MAX - i); break;
    case SL_T_FLOAT: rc = sl_column_append_f64(c, i * 0.5 - 3); break;
    case SL_T_DOUBLE: rc = sl_column_append_f64(c, i == 2 ? NAN : i / 3.0); break;
    case SL_T_TIMESTAMP: rc = sl_column_append_i64(c, INT64_C(1735689600000) + i * 1000); break;
    default: {
        const char *t = texts[i % NTEXTS];
        rc = sl_column_append_str(c, t, (uint32_t)strlen(t));
        break;
    }
    }
    assert_int_equal(rc, 0);
}

/* Adds one ordinary column of every type with n rows; row i is NULL when i % 5 == 3. */
static void add_all_types(sl_block *b, uint32_t n)
{
    for (int t = SL_T_BOOL; t < SL_T__COUNT; t++) {
        int idx = sl_block_add_column(b, (sl_type)t, sl_type_is_var((sl_type)t) ? 40 : 0);
        assert_true(idx >= 0);
        for (uint32_t i = 0; i < n; i++)
            append_ref(&b->cols[idx], i, i % 5 == 3);
    }
}

/* Adds a constant column of every type (odd types NULL) standing for n rows. */
static void add_const_types(sl_block *b, uint32_t n)
{
    for (int t = SL_T_BOOL; t < SL_T__COUNT; t++) {
        int idx = sl_block_add_column(b, (sl_type)t, sl_type_is_var((sl_type)t) ? 8 : 0);
        assert_true(idx >= 0);
        sl_column tmp;
        sl_column_init(&tmp, (sl_type)t, 0);
        append_ref(&tmp, 5, t % 2 == 1);
        sl_value v;
        sl_column_get(&tmp, 0, &v);
        assert_int_equal(sl_column_set_const(&b->cols[idx], &v, n), 0);
        sl_column_fini(&tmp);
    }
}

static void encode_ok(const sl_block *b, sl_buf *out)
{
    sl_buf_reset(out);
    assert_int_equal(sl_block_encode(b, out), 0);
}

/* Decodes p and, when that works, checks that re-encoding is stable. */
static int decode_checked(const uint8_t *p, size_t n)
{
    sl_block b;
    sl_error err;
    sl_block_init(&b);
    sl_error_clear(&err);
    int rc = sl_block_decode(p, n, &b, &err);
    if (rc != 0) {
        assert_int_equal(rc, SL_ECORRUPT);
        assert_int_equal(err.code, SL_ECORRUPT);
        assert_true(err.msg[0] != '\0');
        assert_int_equal(b.ncols, 0);
        assert_null(b.cols);
        return rc;
    }
    for (uint32_t c = 0; c < b.ncols; c++) {
        assert_int_equal(b.cols[c].nrows, b.nrows);
        char text[128];
        for (uint32_t i = 0; i < b.nrows && i < 64; i++) {
            sl_value v;
            sl_column_get(&b.cols[c], i, &v);
            sl_value_format(&v, SL_PREC_NS, text, sizeof(text));
        }
    }
    sl_buf e1, e2;
    sl_buf_init(&e1);
    sl_buf_init(&e2);
    encode_ok(&b, &e1);
    sl_block b2;
    sl_block_init(&b2);
    assert_int_equal(sl_block_decode(e1.data, e1.len, &b2, NULL), 0);
    assert_blocks_equal(&b, &b2);
    encode_ok(&b2, &e2);
    assert_int_equal(e1.len, e2.len);
    assert_memory_equal(e1.data, e2.data, e1.len);
    sl_buf_fini(&e1);
    sl_buf_fini(&e2);
    sl_block_fini(&b2);
    sl_block_fini(&b);
    return 0;
}

/* ---- columns --------------------------------------------------------------------- */

static void test_column_fixed(void **state)
{
    (void)state;
    sl_column c;
    sl_column_init(&c, SL_T_INT, 99);
    assert_int_equal(c.width, 0); /* width is for text only */
    assert_null(c.data);
    assert_null(c.nulls);
    assert_int_equal(sl_column_mem(&c), 0);
    for (int64_t i = 0; i < 10000; i++)
        assert_int_equal(sl_column_append_i64(&c, i * 3 - 5000), 0);
    assert_int_equal(c.nrows, 10000);
    assert_true(c.cap >= 10000 && c.cap < 20000); /* geometric, not exact */
    assert_null(c.nulls);
    assert_false(c.has_nulls);
    assert_int_equal(((int32_t *)c.data)[0], -5000);
    assert_int_equal(((int32_t *)c.data)[9999], 24997);
    assert_int_equal(sl_column_get_i64(&c, 1234), 3702 - 5000);
    assert_true(sl_column_get_f64(&c, 9999) == 24997.0);
    assert_int_equal(sl_column_mem(&c), (size_t)c.cap * 4);
    sl_value v;
    sl_column_get(&c, 2, &v);
    assert_false(v.is_null);
    assert_int_equal(v.type, SL_T_INT);
    assert_int_equal(v.v.i, -4994);
    sl_column_fini(&c);
    sl_column_fini(&c); /* NULL-safe and idempotent */
    sl_column_fini(NULL);
}

static void test_column_native_widths(void **state)
{
    (void)state;
    sl_column c;
    /* values are narrowed to the native width; callers range-check first */
    sl_column_init(&c, SL_T_TINYINT, 0);
    assert_int_equal(sl_column_append_i64(&c, -128), 0);
    assert_int_equal(sl_column_append_i64(&c, 300), 0); /* 300 - 256 */
    assert_int_equal(((int8_t *)c.data)[0], -128);
    assert_int_equal(sl_column_get_i64(&c, 1), 44);
    sl_column_fini(&c);

    sl_column_init(&c, SL_T_UINT, 0);
    assert_int_equal(sl_column_append_u64(&c, 4000000000u), 0);
    assert_true(sl_column_get_u64(&c, 0) == 4000000000u);
    assert_true(sl_column_get_i64(&c, 0) == 4000000000LL);
    assert_true(sl_column_get_f64(&c, 0) == 4000000000.0);
    sl_column_fini(&c);

    sl_column_init(&c, SL_T_UBIGINT, 0);
    assert_int_equal(sl_column_append_u64(&c, UINT64_MAX), 0);
    assert_true(sl_column_get_u64(&c, 0) == UINT64_MAX);
    assert_true(sl_column_get_f64(&c, 0) == 18446744073709551616.0);
    sl_column_fini(&c);

    sl_column_init(&c, SL_T_FLOAT, 0);
    assert_int_equal(sl_column_append_f64(&c, 0.1), 0);
    assert_int_equal(sl_column_append_i64(&c, 7), 0);
    assert_true(((float *)c.data)[0] == 0.1f);
    assert_true(sl_column_get_f64(&c, 0) == (double)0.1f);
    assert_true(sl_column_get_f64(&c, 1) == 7.0);
    sl_value v;
    sl_column_get(&c, 0, &v);
    assert_int_equal(v.type, SL_T_FLOAT);
    assert_true(v.v.d == (double)0.1f);
    sl_column_fini(&c);

    sl_column_init(&c, SL_T_BOOL, 0);
    assert_int_equal(sl_column_append_bool(&c, true), 0);
    assert_int_equal(sl_column_append_bool(&c, false), 0);
    assert_int_equal(sl_column_append_i64(&c, 5), 0);
    assert_int_equal(((uint8_t *)c.data)[0], 1);
    assert_int_equal(((uint8_t *)c.data)[1], 0);
    assert_int_equal(((uint8_t *)c.data)[2], 1);
    assert_int_equal(sl_column_get_i64(&c, 2), 1);
    sl_column_get(&c, 0, &v);
    assert_int_equal(v.type, SL_T_BOOL);
    assert_true(v.v.b);
    sl_column_fini(&c);

    sl_column_init(&c, SL_T_TIMESTAMP, 0);
    assert_int_equal(sl_column_append_i64(&c, INT64_MIN), 0);
    assert_true(((int64_t *)c.data)[0] == INT64_MIN);
    sl_column_get(&c, 0, &v);
    assert_int_equal(v.type, SL_T_TIMESTAMP);
    assert_true(v.v.i == INT64_MIN);
    sl_column_fini(&c);
}

static void test_column_nulls(void **state)
{
    (void)state;
    sl_column c;
    sl_column_init(&c, SL_T_BIGINT, 0);
    for (int i = 0; i < 20; i++)
        assert_int_equal(sl_column_append_i64(&c, i), 0);
    assert_null(c.nulls); /* no bitmap until the first NULL */
    assert_int_equal(sl_column_append_null(&c), 0);
    assert_non_null(c.nulls);
    assert_true(c.has_nulls);
    assert_int_equal(sl_column_append_i64(&c, 21), 0);
    assert_int_equal(c.nrows, 22);
    for (uint32_t i = 0; i < 22; i++)
        assert_int_equal(sl_column_is_null(&c, i), i == 20);
    assert_int_equal(((int64_t *)c.data)[20], 0); /* NULL rows hold zero */
    sl_value v;
    sl_column_get(&c, 20, &v);
    assert_true(v.is_null);
    assert_int_equal(v.type, SL_T_BIGINT);

    /* reset keeps the allocations and forgets the NULLs */
    void *data = c.data;
    uint32_t cap = c.cap;
    sl_column_reset(&c);
    assert_int_equal(c.nrows, 0);
    assert_false(c.has_nulls);
    assert_ptr_equal(c.data, data);
    assert_int_equal(c.cap, cap);
    /* stale bit 20 must not come back when a new NULL turns the bitmap on */
    for (int i = 0; i < 21; i++)
        assert_int_equal(sl_column_append_i64(&c, i), 0);
    assert_int_equal(sl_column_append_null(&c), 0);
    for (uint32_t i = 0; i < 22; i++)
        assert_int_equal(sl_column_is_null(&c, i), i == 21);

    /* kernels write reserved rows directly and mark NULLs by index */
    sl_column_reset(&c);
    assert_int_equal(sl_column_reserve(&c, 100, 0), 0);
    assert_true(c.cap >= 100);
    for (uint32_t i = 0; i < 100; i++)
        ((int64_t *)c.data)[i] = i;
    assert_int_equal(sl_column_set_null(&c, 7), 0);
    assert_int_equal(sl_column_set_null(&c, 99), 0);
    c.nrows = 100;
    for (uint32_t i = 0; i < 100; i++)
        assert_int_equal(sl_column_is_null(&c, i), i == 7 || i == 99);
    assert_int_equal(sl_column_mem(&c), (size_t)c.cap * 8 + (c.cap + 7) / 8);
    sl_column_fini(&c);
}

static void test_column_strings(void **state)
{
    (void)state;
    sl_column c;
    sl_column_init(&c, SL_T_VARCHAR, 16);
    assert_int_equal(c.width, 16);
    assert_int_equal(sl_column_append_str(&c, "", 0), 0);
    uint32_t len = 99;
    const char *p = sl_column_get_str(&c, 0, &len);
    assert_int_equal(len, 0);
    assert_non_null(p);
    assert_int_equal(sl_column_append_str(&c, "hello", 5), 0);
    assert_int_equal(sl_column_append_null(&c), 0);
    assert_int_equal(sl_column_append_str(&c, "h\xc3\xa9", 3), 0);
    assert_int_equal(c.nrows, 4);
    assert_int_equal(c.heap_len, 8);
    assert_int_equal(c.offsets[0], 0);
    assert_int_equal(c.offsets[1], 0);
    assert_int_equal(c.offsets[2], 5);
    assert_int_equal(c.offsets[3], 5); /* NULL rows are empty */
    assert_int_equal(c.offsets[4], 8);
    p = sl_column_get_str(&c, 1, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(p, "hello", 5);
    assert_true(sl_column_is_null(&c, 2));
    sl_value v;
    sl_column_get(&c, 3, &v);
    assert_int_equal(v.type, SL_T_VARCHAR);
    assert_int_equal(v.v.s.len, 3);
    assert_memory_equal(v.v.s.ptr, "h\xc3\xa9", 3);

    /* appending a value read from the column itself survives heap growth */
    for (int i = 0; i < 200; i++) {
        sl_column_get(&c, 1, &v);
        assert_int_equal(sl_column_append_value(&c, &v), 0);
    }
    assert_int_equal(c.nrows, 204);
    assert_int_equal(c.heap_len, 8 + 200 * 5);
    p = sl_column_get_str(&c, 203, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(p, "hello", 5);
    assert_int_equal(sl_column_mem(&c), ((size_t)c.cap + 1) * 4 + c.heap_cap + (c.cap + 7) / 8);

    /* text into a number column and the other way round */
    v = sl_value_int(SL_T_INT, 1);
    assert_int_equal(sl_column_append_value(&c, &v), SL_ETYPE);
    sl_column_fini(&c);
    sl_column_init(&c, SL_T_INT, 0);
    v = sl_value_str(SL_T_VARCHAR, "1", 1);
    assert_int_equal(sl_column_append_value(&c, &v), SL_ETYPE);
    assert_int_equal(c.nrows, 0);
    sl_column_fini(&c);
}

static void test_column_append_value_all(void **state)
{
    (void)state;
    sl_block b;
    sl_block_init(&b);
    add_all_types(&b, 12);
    sl_block_seal(&b);
    assert_int_equal(b.nrows, 12);
    /* every value read back appends to a fresh column and reads back the same */
    for (uint32_t ci = 0; ci < b.ncols; ci++) {
        sl_column c;
        sl_column_init(&c, b.cols[ci].type, b.cols[ci].width);
        for (uint32_t i = 0; i < b.nrows; i++) {
            sl_value v;
            sl_column_get(&b.cols[ci], i, &v);
            assert_int_equal(sl_column_append_value(&c, &v), 0);
        }
        assert_columns_equal(&b.cols[ci], &c);
        sl_column_fini(&c);
    }
    /* spot checks against the reference formulas */
    sl_value v;
    sl_column_get(&b.cols[SL_T_INT - 1], 4, &v);
    assert_int_equal(v.v.i, 399993);
    sl_column_get(&b.cols[SL_T_INT - 1], 3, &v);
    assert_true(v.is_null);
    sl_column_get(&b.cols[SL_T_UBIGINT - 1], 11, &v);
    assert_true(v.v.u == UINT64_MAX - 11);
    sl_column_get(&b.cols[SL_T_TINYINT - 1], 11, &v);
    assert_int_equal(v.v.i, 77 - 128);
    sl_column_get(&b.cols[SL_T_DOUBLE - 1], 2, &v);
    assert_true(isnan(v.v.d));
    sl_column_get(&b.cols[SL_T_NCHAR - 1], 4, &v);
    assert_int_equal(v.v.s.len, 6);
    sl_block_fini(&b);
}

static void test_const_columns(void **state)
{
    (void)state;
    sl_column c;
    sl_column_init(&c, SL_T_INT, 0);
    sl_value v = sl_value_int(SL_T_INT, 7);
    assert_int_equal(sl_column_set_const(&c, &v, 100000), 0);
    assert_true(c.is_const);
    assert_int_equal(c.nrows, 100000);
    assert_true(c.cap < 100);
    assert_int_equal(sl_column_phys(&c, 99999), 0);
    assert_int_equal(sl_column_get_i64(&c, 99999), 7);
    assert_false(sl_column_is_null(&c, 5));
    assert_int_equal(sl_column_materialize(&c), 0);
    assert_false(c.is_const);
    assert_int_equal(c.nrows, 100000);
    for (uint32_t i = 0; i < 100000; i++)
        if (((int32_t *)c.data)[i] != 7)
            fail_msg("row %u", i);
    assert_int_equal(sl_column_materialize(&c), 0); /* no-op on ordinary columns */
    sl_column_fini(&c);

    /* a constant NULL */
    sl_column_init(&c, SL_T_DOUBLE, 0);
    v = sl_value_null(SL_T_DOUBLE);
    assert_int_equal(sl_column_set_const(&c, &v, 20), 0);
    assert_true(sl_column_is_null(&c, 19));
    sl_column_get(&c, 13, &v);
    assert_true(v.is_null);
    assert_int_equal(sl_column_materialize(&c), 0);
    for (uint32_t i = 0; i < 20; i++)
        assert_true(sl_column_is_null(&c, i));
    sl_column_fini(&c);

    /* a constant string, then made constant again from its own row */
    sl_column_init(&c, SL_T_NCHAR, 8);
    assert_int_equal(sl_column_append_str(&c, "xyz", 3), 0);
    assert_int_equal(sl_column_append_str(&c, "SF", 2), 0);
    sl_column_get(&c, 1, &v);
    assert_int_equal(sl_column_set_const(&c, &v, 5), 0);
    assert_true(c.is_const);
    uint32_t len;
    const char *p = sl_column_get_str(&c, 4, &len);
    assert_int_equal(len, 2);
    assert_memory_equal(p, "SF", 2);
    assert_int_equal(sl_column_materialize(&c), 0);
    assert_int_equal(c.heap_len, 10);
    assert_memory_equal(c.heap, "SFSFSFSFSF", 10);
    for (uint32_t i = 0; i <= 5; i++)
        assert_int_equal(c.offsets[i], 2 * i);
    sl_column_fini(&c);

    /* zero rows: materialize leaves an empty ordinary column */
    sl_column_init(&c, SL_T_BIGINT, 0);
    v = sl_value_int(SL_T_BIGINT, 1);
    assert_int_equal(sl_column_set_const(&c, &v, 0), 0);
    assert_int_equal(sl_column_materialize(&c), 0);
    assert_false(c.is_const);
    assert_int_equal(c.nrows, 0);
    sl_column_fini(&c);

    /* the value's kind must match the column */
    sl_column_init(&c, SL_T_BIGINT, 0);
    v = sl_value_str(SL_T_VARCHAR, "x", 1);
    assert_int_equal(sl_column_set_const(&c, &v, 3), SL_ETYPE);
    sl_column_fini(&c);
}

static void test_append_rows(void **state)
{
    (void)state;
    sl_column src, dst;
    sl_column_init(&src, SL_T_SMALLINT, 0);
    for (int i = 0; i < 30; i++) {
        if (i % 4 == 1)
            assert_int_equal(sl_column_append_null(&src), 0);
        else
            assert_int_equal(sl_column_append_i64(&src, i * 10), 0);
    }
    /* a range */
    sl_column_init(&dst, SL_T_SMALLINT, 0);
    assert_int_equal(sl_column_append_rows(&dst, &src, NULL, 4, 6), 0);
    assert_int_equal(dst.nrows, 6);
    static const int16_t want_range[] = {40, 0, 60, 70, 80, 0};
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(sl_column_is_null(&dst, i), i == 1 || i == 5);
        assert_int_equal(((int16_t *)dst.data)[i], want_range[i]);
    }
    /* a selection vector, appended after what is there */
    static const uint32_t sel[] = {29, 0, 13, 2, 2, 21};
    assert_int_equal(sl_column_append_rows(&dst, &src, sel, 0, 6), 0);
    assert_int_equal(dst.nrows, 12);
    static const int16_t want_sel[] = {0, 0, 0, 20, 20, 0};
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(sl_column_is_null(&dst, 6 + i), i == 0 || i == 2 || i == 5);
        assert_int_equal(((int16_t *)dst.data)[6 + i], want_sel[i]);
    }
    /* rows without NULLs clear whatever the bitmap held */
    static const uint32_t sel2[] = {0, 2, 3};
    assert_int_equal(sl_column_set_null(&dst, 12), 0); /* a stale bit past nrows */
    assert_int_equal(sl_column_append_rows(&dst, &src, sel2, 0, 3), 0);
    assert_false(sl_column_is_null(&dst, 12));
    assert_int_equal(((int16_t *)dst.data)[14], 30);
    /* src may be dst */
    assert_int_equal(sl_column_append_rows(&dst, &dst, NULL, 0, 15), 0);
    assert_int_equal(dst.nrows, 30);
    for (uint32_t i = 0; i < 15; i++) {
        assert_int_equal(sl_column_is_null(&dst, i), sl_column_is_null(&dst, 15 + i));
        assert_int_equal(((int16_t *)dst.data)[i], ((int16_t *)dst.data)[15 + i]);
    }
    /* types must agree */
    sl_column other;
    sl_column_init(&other, SL_T_INT, 0);
    assert_int_equal(sl_column_append_rows(&other, &src, NULL, 0, 1), SL_ETYPE);
    sl_column_fini(&other);
    sl_column_fini(&dst);

    /* a constant source expands; a constant destination is materialized first */
    sl_column_init(&dst, SL_T_SMALLINT, 0);
    sl_value v = sl_value_int(SL_T_SMALLINT, -9);
    assert_int_equal(sl_column_set_const(&dst, &v, 3), 0);
    sl_column k;
    sl_column_init(&k, SL_T_SMALLINT, 0);
    v = sl_value_null(SL_T_SMALLINT);
    assert_int_equal(sl_column_set_const(&k, &v, 1000), 0);
    static const uint32_t sel3[] = {999, 0};
    assert_int_equal(sl_column_append_rows(&dst, &k, sel3, 0, 2), 0);
    v = sl_value_int(SL_T_SMALLINT, 5);
    assert_int_equal(sl_column_set_const(&k, &v, 1000), 0);
    assert_int_equal(sl_column_append_rows(&dst, &k, NULL, 10, 17), 0);
    assert_false(dst.is_const);
    assert_int_equal(dst.nrows, 22);
    for (uint32_t i = 0; i < 22; i++) {
        assert_int_equal(sl_column_is_null(&dst, i), i == 3 || i == 4);
        if (i < 3)
            assert_int_equal(((int16_t *)dst.data)[i], -9);
        else if (i > 4)
            assert_int_equal(((int16_t *)dst.data)[i], 5);
    }
    sl_column_fini(&k);
    sl_column_fini(&dst);
    sl_column_fini(&src);
}

static void test_append_rows_strings(void **state)
{
    (void)state;
    sl_column src, dst;
    sl_column_init(&src, SL_T_VARCHAR, 0);
    for (uint32_t i = 0; i < NTEXTS; i++)
        assert_int_equal(sl_column_append_str(&src, texts[i], (uint32_t)strlen(texts[i])), 0);
    assert_int_equal(sl_column_append_null(&src), 0);
    /* VARCHAR and NCHAR share a layout and may mix */
    sl_column_init(&dst, SL_T_NCHAR, 0);
    static const uint32_t sel[] = {3, 7, 0, 6, 3};
    assert_int_equal(sl_column_append_rows(&dst, &src, sel, 0, 5), 0);
    assert_int_equal(sl_column_append_rows(&dst, &src, NULL, 4, 2), 0);
    assert_int_equal(dst.nrows, 7);
    static const char *want[] = {"h\xc3\xa9llo",
                                 NULL,
                                 "",
                                 "\xf0\x9f\x98\x80",
                                 "h\xc3\xa9llo",
                                 "\xe6\x97\xa5\xe6\x9c\xac",
                                 "a somewhat longer string of text"};
    for (uint32_t i = 0; i < 7; i++) {
        uint32_t len;
        const char *p = sl_column_get_str(&dst, i, &len);
        assert_int_equal(sl_column_is_null(&dst, i), want[i] == NULL);
        if (want[i] != NULL) {
            assert_int_equal(len, strlen(want[i]));
            assert_memory_equal(p, want[i], len);
        }
    }
    assert_int_equal(dst.heap_len, 6 + 0 + 4 + 6 + 6 + 32);
    /* a constant string source */
    sl_value v = sl_value_str(SL_T_VARCHAR, "SF", 2);
    assert_int_equal(sl_column_set_const(&src, &v, 50), 0);
    assert_int_equal(sl_column_append_rows(&dst, &src, NULL, 0, 50), 0);
    assert_int_equal(dst.nrows, 57);
    assert_int_equal(dst.heap_len, 54 + 100);
    uint32_t len;
    const char *p = sl_column_get_str(&dst, 56, &len);
    assert_int_equal(len, 2);
    assert_memory_equal(p, "SF", 2);
    sl_column_fini(&src);
    sl_column_fini(&dst);
}

static void test_block_lifecycle(void **state)
{
    (void)state;
    sl_block *b = sl_block_new();
    assert_non_null(b);
    assert_int_equal(b->ncols, 0);
    assert_int_equal(sl_block_add_column(b, SL_T_NULL, 0), SL_EINVAL);
    assert_int_equal(sl_block_add_column(b, SL_T__COUNT, 0), SL_EINVAL);
    for (int i = 0; i < 100; i++)
        assert_int_equal(sl_block_add_column(b, SL_T_TIMESTAMP, 0), i);
    assert_int_equal(b->ncols, 100);
    for (uint32_t c = 0; c < b->ncols; c++)
        for (int i = 0; i < 10; i++)
            assert_int_equal(sl_column_append_i64(&b->cols[c], i), 0);
    sl_block_seal(b);
    assert_int_equal(b->nrows, 10);
    sl_block_reset(b);
    assert_int_equal(b->nrows, 0);
    assert_int_equal(b->ncols, 100);
    assert_int_equal(b->cols[99].nrows, 0);
    assert_int_equal(b->cols[99].type, SL_T_TIMESTAMP);
    sl_block_free(b);
    sl_block_free(NULL);
    sl_block_fini(NULL);
}

/* ---- encoding -------------------------------------------------------------------- */

static void test_encode_exact_bytes(void **state)
{
    (void)state;
    /* INT [1, NULL, 3], VARCHAR(8) ['ab', NULL, ''], constant BIGINT 7 */
    sl_block b;
    sl_block_init(&b);
    assert_int_equal(sl_block_add_column(&b, SL_T_INT, 0), 0);
    assert_int_equal(sl_block_add_column(&b, SL_T_VARCHAR, 8), 1);
    assert_int_equal(sl_block_add_column(&b, SL_T_BIGINT, 0), 2);
    sl_column_append_i64(&b.cols[0], 1);
    sl_column_append_null(&b.cols[0]);
    sl_column_append_i64(&b.cols[0], 3);
    sl_column_append_str(&b.cols[1], "ab", 2);
    sl_column_append_null(&b.cols[1]);
    sl_column_append_str(&b.cols[1], "", 0);
    sl_value v = sl_value_int(SL_T_BIGINT, 7);
    sl_column_set_const(&b.cols[2], &v, 3);
    sl_block_seal(&b);
    static const uint8_t want[] = {
        0x01, 0x03, 0x03,                               /* version, ncols, nrows */
        0x04, 0x00, 0x02, 0x02,                         /* INT, width 0, NULLS, bitmap 010 */
        0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 1, (null) */
        0x03, 0x00, 0x00, 0x00,                         /* 3 */
        0x0d, 0x08, 0x02, 0x02,                         /* VARCHAR(8), NULLS, bitmap 010 */
        0x02, 0x00, 0x00, 'a',  'b',                    /* lengths 2 0 0, bytes */
        0x05, 0x00, 0x01,                               /* BIGINT, CONST */
        0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 7 */
    };
    sl_buf out;
    sl_buf_init(&out);
    assert_int_equal(sl_buf_put(&out, "xy", 2), 0); /* encode appends */
    assert_int_equal(sl_block_encode(&b, &out), 0);
    assert_int_equal(out.len, 2 + sizeof(want));
    assert_memory_equal(out.data + 2, want, sizeof(want));

    /* the empty block and a block of rows without columns */
    sl_block e;
    sl_block_init(&e);
    encode_ok(&e, &out);
    assert_int_equal(out.len, 3);
    assert_memory_equal(out.data, "\x01\x00\x00", 3);
    e.nrows = 5;
    encode_ok(&e, &out);
    assert_memory_equal(out.data, "\x01\x00\x05", 3);
    sl_block d;
    sl_block_init(&d);
    assert_int_equal(sl_block_decode(out.data, out.len, &d, NULL), 0);
    assert_int_equal(d.nrows, 5);
    assert_int_equal(d.ncols, 0);
    sl_block_fini(&d);

    /* an unsealed block is refused and out keeps its length */
    sl_column_append_i64(&b.cols[0], 4);
    sl_buf_reset(&out);
    assert_int_equal(sl_block_encode(&b, &out), SL_EINVAL);
    assert_int_equal(out.len, 0);
    sl_buf_fini(&out);
    sl_block_fini(&b);
}

static void test_encode_normalises(void **state)
{
    (void)state;
    sl_block b;
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_BOOL, 0);
    sl_column *c = &b.cols[0];
    sl_column_append_bool(c, true);
    sl_column_append_bool(c, false);
    ((uint8_t *)c->data)[0] = 7;                   /* a kernel's "true" */
    assert_int_equal(sl_column_set_null(c, 5), 0); /* has_nulls, but no NULL row */
    sl_block_seal(&b);
    sl_buf out;
    sl_buf_init(&out);
    encode_ok(&b, &out);
    static const uint8_t want[] = {0x01, 0x01, 0x02, 0x01, 0x00, 0x00, 0x01, 0x00};
    assert_int_equal(out.len, sizeof(want));
    assert_memory_equal(out.data, want, sizeof(want));
    sl_buf_fini(&out);
    sl_block_fini(&b);
}

static void test_round_trip_all_types(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {0, 1, 7, 8, 9, 37, 1000};
    sl_buf out;
    sl_buf_init(&out);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        sl_block b, d;
        sl_block_init(&b);
        sl_block_init(&d);
        add_all_types(&b, sizes[s]);
        add_const_types(&b, sizes[s]);
        sl_block_seal(&b);
        assert_int_equal(b.nrows, sizes[s]);
        assert_int_equal(b.ncols, 2 * (SL_T__COUNT - 1));
        encode_ok(&b, &out);
        sl_error err;
        sl_error_clear(&err);
        assert_int_equal(sl_block_decode(out.data, out.len, &d, &err), 0);
        assert_int_equal(err.code, 0);
        assert_blocks_equal(&b, &d);
        /* constants stay constant and cost one row */
        for (uint32_t c = SL_T__COUNT - 1; c < d.ncols; c++) {
            assert_true(d.cols[c].is_const);
            assert_true(d.cols[c].cap < 64);
        }
        assert_int_equal(decode_checked(out.data, out.len), 0);
        sl_block_fini(&b);
        sl_block_fini(&d);
    }
    sl_buf_fini(&out);
}

/* Expects bytes p[0..n) to be refused as corrupt, leaving the output block empty. */
static void expect_corrupt(int line, const uint8_t *p, size_t n)
{
    sl_block b;
    sl_error err;
    sl_block_init(&b);
    sl_error_clear(&err);
    int rc = sl_block_decode(p, n, &b, &err);
    if (rc != SL_ECORRUPT)
        fail_msg("line %d: rc %d", line, rc);
    assert_int_equal(err.code, SL_ECORRUPT);
    assert_true(strncmp(err.msg, "malformed block", 15) == 0);
    assert_int_equal(b.ncols, 0);
    assert_int_equal(b.nrows, 0);
    assert_null(b.cols);
}

#define CORRUPT(...)                                                                               \
    do {                                                                                           \
        static const uint8_t bytes_[] = {__VA_ARGS__};                                             \
        expect_corrupt(__LINE__, bytes_, sizeof(bytes_));                                          \
    } while (0)

static void test_decode_refusals(void **state)
{
    (void)state;
    expect_corrupt(__LINE__, NULL, 0);
    CORRUPT(0x01);
    CORRUPT(0x01, 0x00);
    CORRUPT(0x02, 0x00, 0x00); /* unknown version */
    CORRUPT(0x00, 0x00, 0x00);
    CORRUPT(0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00); /* type 0 (NULL) */
    CORRUPT(0x01, 0x01, 0x01, 0x0f, 0x00, 0x00, 0x00); /* type 15 */
    CORRUPT(0x01, 0x01, 0x01, 0xff, 0x00, 0x00, 0x00);
    CORRUPT(0x01, 0x01, 0x01, 0x04, 0x01, 0x00, 1, 0, 0, 0); /* width on INT */
    CORRUPT(0x01, 0x01, 0x00, 0x0d, 0xee, 0xff, 0x03, 0x00); /* VARCHAR(65518) */
    CORRUPT(0x01, 0x01, 0x01, 0x04, 0x00, 0x04, 1, 0, 0, 0); /* unknown flag */
    CORRUPT(0x01, 0x01, 0x01, 0x04, 0x00, 0x80, 1, 0, 0, 0);
    CORRUPT(0x01, 0x01, 0x09, 0x01, 0x00, 0x02, 0x00);                   /* 9 rows, 1 bitmap byte */
    CORRUPT(0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x02);                   /* BOOL 2 */
    CORRUPT(0x01, 0x01, 0x03, 0x04, 0x00, 0x00, 1, 0, 0, 0, 2, 0, 0, 0); /* 3 rows, 2 values */
    CORRUPT(0x01, 0x01, 0x01, 0x04, 0x00, 0x00, 1, 0, 0, 0, 2, 0, 0, 0); /* 1 row, 2 values */
    CORRUPT(0x01, 0x00, 0x00, 0x00);                                     /* trailing byte */
    CORRUPT(0x01, 0x02, 0x01, 0x04, 0x00, 0x01, 1, 0, 0, 0);             /* 2 columns, 1 */
    /* text: lengths past the input, more strings than bytes, missing bytes */
    CORRUPT(0x01, 0x01, 0x01, 0x0d, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x0f, 'a');
    CORRUPT(0x01, 0x01, 0x02, 0x0d, 0x00, 0x00, 0x02, 0x02, 'a', 'b', 'c');
    CORRUPT(0x01, 0x01, 0x05, 0x0e, 0x00, 0x00, 0x00, 0x00);
    CORRUPT(0x01, 0x01, 0x02, 0x0d, 0x00, 0x00, 0x01, 0x01, 'a', 'b', 'c');
    /* counts: 2^20 + 1 rows, COLS_MAX + 1 columns, more columns than bytes, bad varint */
    CORRUPT(0x01, 0x00, 0x81, 0x80, 0x40);
    CORRUPT(0x01, 0x91, 0x21, 0x00, 0x01, 0x00, 0x01, 0x00);
    CORRUPT(0x01, 0x05, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00);
    CORRUPT(0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00);
    CORRUPT(0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00);

    /* the largest legal row count costs one row when the column is constant */
    static const uint8_t big[] = {0x01, 0x01, 0x80, 0x80, 0x40, 0x04, 0x00, 0x01, 7, 0, 0, 0};
    sl_block b;
    sl_block_init(&b);
    assert_int_equal(sl_block_decode(big, sizeof(big), &b, NULL), 0);
    assert_int_equal(b.nrows, 1u << 20);
    assert_true(b.cols[0].is_const);
    assert_int_equal(sl_column_get_i64(&b.cols[0], (1u << 20) - 1), 7);
    assert_true(sl_column_mem(&b.cols[0]) < 256);
    sl_block_fini(&b);

    /* padding bits of the bitmap and a bitmap without NULLs are dropped */
    static const uint8_t pad[] = {0x01, 0x01, 0x02, 0x02, 0x00, 0x02, 0xfe, 1, 2};
    sl_block_init(&b);
    assert_int_equal(sl_block_decode(pad, sizeof(pad), &b, NULL), 0);
    assert_true(sl_column_is_null(&b.cols[0], 1));
    assert_false(sl_column_is_null(&b.cols[0], 0));
    assert_int_equal(b.cols[0].nulls[0], 0x02);
    sl_block_fini(&b);
    static const uint8_t nonull[] = {0x01, 0x01, 0x02, 0x02, 0x00, 0x02, 0x00, 1, 2};
    sl_block_init(&b);
    assert_int_equal(sl_block_decode(nonull, sizeof(nonull), &b, NULL), 0);
    assert_false(b.cols[0].has_nulls);
    sl_block_fini(&b);
}

/* xorshift64: a fixed, portable sequence so failures reproduce */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_decode_robustness(void **state)
{
    (void)state;
    sl_block b;
    sl_block_init(&b);
    add_all_types(&b, 21);
    add_const_types(&b, 21);
    sl_block_seal(&b);
    sl_buf enc;
    sl_buf_init(&enc);
    encode_ok(&b, &enc);
    sl_block_fini(&b);

    /* every strict prefix lacks bytes the decoder needs */
    for (size_t n = 0; n < enc.len; n++)
        expect_corrupt(__LINE__, enc.data, n);
    assert_int_equal(decode_checked(enc.data, enc.len), 0);

    uint8_t *m = malloc(enc.len + 8);
    assert_non_null(m);
    int ok = 0, bad = 0;
    for (int iter = 0; iter < 5000; iter++) {
        size_t n = enc.len;
        memcpy(m, enc.data, n);
        int edits = 1 + (int)(rng() % 4);
        for (int e = 0; e < edits; e++) {
            size_t at = rng() % n;
            switch (rng() % 4) {
            case 0: m[at] ^= (uint8_t)(1u << (rng() % 8)); break;
            case 1: m[at] = (uint8_t)rng(); break;
            case 2: /* delete a byte */
                memmove(m + at, m + at + 1, n - at - 1);
                n--;
                break;
            default: /* insert a byte */
                memmove(m + at + 1, m + at, n - at);
                m[at] = (uint8_t)rng();
                n++;
                break;
            }
            if (n == 0 || n + 1 >= enc.len + 8)
                break;
        }
        if (decode_checked(m, n) == 0)
            ok++;
        else
            bad++;
    }
    /* both outcomes occur: flipped data bytes decode, broken structure does not */
    assert_true(ok > 100);
    assert_true(bad > 100);
    free(m);
    sl_buf_fini(&enc);
}

/* ---- fuzz seeds ------------------------------------------------------------------ */

static void write_seed(const char *dir, const char *name, const sl_block *b)
{
    sl_buf out;
    sl_buf_init(&out);
    encode_ok(b, &out);
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(out.data, 1, out.len, f), out.len);
    assert_int_equal(fclose(f), 0);
    sl_buf_fini(&out);
}

static void test_write_fuzz_seeds(void **state)
{
    (void)state;
    const char *dir = getenv("SLUICE_WRITE_BLOCK_SEEDS");
    if (dir == NULL || dir[0] == '\0')
        skip();
    sl_block b;
    sl_value v;

    sl_block_init(&b);
    write_seed(dir, "empty", &b);
    b.nrows = 3;
    write_seed(dir, "no_columns", &b);
    sl_block_fini(&b);

    sl_block_init(&b);
    add_all_types(&b, 9);
    sl_block_seal(&b);
    write_seed(dir, "all_types_9", &b);
    sl_block_fini(&b);

    sl_block_init(&b);
    add_const_types(&b, 4096);
    sl_block_seal(&b);
    write_seed(dir, "consts_4096", &b);
    sl_block_fini(&b);

    sl_block_init(&b);
    add_all_types(&b, 3);
    add_const_types(&b, 3);
    sl_block_seal(&b);
    write_seed(dir, "mixed_3", &b);
    sl_block_fini(&b);

    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
    sl_block_add_column(&b, SL_T_FLOAT, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    sl_block_add_column(&b, SL_T_FLOAT, 0);
    sl_block_add_column(&b, SL_T_NCHAR, 64);
    sl_block_add_column(&b, SL_T_INT, 0);
    for (uint32_t i = 0; i < 40; i++) {
        sl_column_append_i64(&b.cols[0], INT64_C(1735689600000) + i * 1000);
        sl_column_append_f64(&b.cols[1], 10.0 + i * 0.25);
        sl_column_append_i64(&b.cols[2], 220 + i % 3);
        if (i % 7 == 0)
            sl_column_append_null(&b.cols[3]);
        else
            sl_column_append_f64(&b.cols[3], 0.31);
    }
    v = sl_value_str(SL_T_NCHAR, "California.SanFrancisco", 23);
    sl_column_set_const(&b.cols[4], &v, 40);
    v = sl_value_int(SL_T_INT, 2);
    sl_column_set_const(&b.cols[5], &v, 40);
    sl_block_seal(&b);
    write_seed(dir, "meters_40", &b);
    sl_block_fini(&b);

    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_VARCHAR, 16);
    for (uint32_t i = 0; i < 17; i++)
        if (i % 2)
            sl_column_append_null(&b.cols[0]);
        else
            sl_column_append_str(&b.cols[0], texts[i % NTEXTS],
                                 (uint32_t)strlen(texts[i % NTEXTS]));
    sl_block_seal(&b);
    write_seed(dir, "strings_nulls_17", &b);
    sl_block_fini(&b);

    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_BOOL, 0);
    for (uint32_t i = 0; i < 8; i++)
        sl_column_append_null(&b.cols[0]);
    sl_block_seal(&b);
    write_seed(dir, "all_null_bool_8", &b);
    sl_block_fini(&b);

    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_DOUBLE, 0);
    sl_block_add_column(&b, SL_T_UBIGINT, 0);
    static const double specials[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1e-310, 1.7e308};
    for (uint32_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++) {
        sl_column_append_f64(&b.cols[0], specials[i]);
        sl_column_append_u64(&b.cols[1], UINT64_MAX >> i);
    }
    sl_block_seal(&b);
    write_seed(dir, "double_specials", &b);
    sl_block_fini(&b);

    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_NCHAR, 0);
    v = sl_value_null(SL_T_NCHAR);
    sl_column_set_const(&b.cols[0], &v, 1000);
    sl_block_seal(&b);
    write_seed(dir, "const_null_nchar", &b);
    sl_block_fini(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_column_fixed),
        cmocka_unit_test(test_column_native_widths),
        cmocka_unit_test(test_column_nulls),
        cmocka_unit_test(test_column_strings),
        cmocka_unit_test(test_column_append_value_all),
        cmocka_unit_test(test_const_columns),
        cmocka_unit_test(test_append_rows),
        cmocka_unit_test(test_append_rows_strings),
        cmocka_unit_test(test_block_lifecycle),
        cmocka_unit_test(test_encode_exact_bytes),
        cmocka_unit_test(test_encode_normalises),
        cmocka_unit_test(test_round_trip_all_types),
        cmocka_unit_test(test_decode_refusals),
        cmocka_unit_test(test_decode_robustness),
        cmocka_unit_test(test_write_fuzz_seeds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
