/*
 * test_expr.c - compiled scalar expressions (common/expr/expr.h) over hand-built blocks.
 *
 * Expressions are written as SQL, parsed with sl_parse ("SELECT <expr> FROM t"), compiled
 * against a test binder that maps names to the columns of a block built here, and
 * evaluated. Every expected value was worked out by hand from the rows below and the
 * typing rules in expr.h and is written as a literal; the randomized test compares with
 * a plain per-row C computation written in this file. Nothing is compared against output
 * of the code under test.
 *
 * The main block (6 rows; 'héllo' is h C3 A9 l l o: 6 bytes, 5 characters):
 *
 *   row ts             i     b    u                     f      d     s        flag  k
 *   0   1735689600000  1     10   0                     1.5    2.5   'abc'    T     10
 *   1   1735689599999  NULL  -20  18446744073709551615  -0.5   -4.0  NULL     F     10
 *   2   1735689601000  -3    6    5                     2.0    0.0   'ABd'    NULL  10
 *   3   0              7     0    9223372036854775808   0.25   10.0  ''       T     10
 *   4   -1000          2     -5   7                     -2.0   -0.5  'héllo'  F     10
 *   5   1735776000000  NULL  3    3                     100.0  1.0   NULL     T     10
 *
 * ts 1735689600000 is 2025-01-01 00:00:00 UTC in ms. k, tb and kn are constant columns
 * (one stored value standing for every row, like tags): k INT 10, tb VARCHAR(16) 'd1001',
 * kn INT NULL. The NULL rows of i hold the value 0, so `b / i` divides by zero only on NULL
 * rows.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cmocka.h>

#include "common/expr/expr.h"
#include "common/sql/parser.h"

#define NOW_MS 1735689600500LL /* the binder's NOW: 2025-01-01 00:00:00.500 */
#define WSTART 1735689600000LL /* what _wstart is bound to when bound */

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define U64(...) ((const uint64_t[]){__VA_ARGS__})
#define F64(...) ((const double[]){__VA_ARGS__})
#define STR(...) ((const char *const[]){__VA_ARGS__})

/* ------------------------------------------------------------ fixture and binder */

typedef struct tcol {
    const char *name;
    sl_type type;
    uint32_t width;
} tcol;

typedef struct fx {
    sl_block blk;
    const tcol *cols;
    int ncols;
    bool bind_wstart; /* bind _wstart to the constant WSTART */
    int avg_col;      /* >= 0: bind any call avg(...) to this column */
    sl_binder binder;
} fx;

static int test_bind(void *ud, const sl_expr *node, sl_binding *b, sl_error *err)
{
    fx *f = ud;
    if (node->kind == SL_EX_COLUMN && node->u.column.table == NULL) {
        if (strcasecmp(node->u.column.name, "boom") == 0)
            return sl_error_set(err, SL_EAMBIGUOUS, node->pos.line, node->pos.col,
                                "column 'boom' is ambiguous");
        for (int i = 0; i < f->ncols; i++) {
            if (strcasecmp(f->cols[i].name, node->u.column.name) == 0) {
                b->kind = SL_BIND_COLUMN;
                b->index = i;
                b->type = f->cols[i].type;
                b->width = f->cols[i].width;
                return 0;
            }
        }
    }
    if (f->bind_wstart && node->kind == SL_EX_PSEUDO && node->u.pseudo.ps == SL_PS_WSTART) {
        b->kind = SL_BIND_VALUE;
        b->value = sl_value_int(SL_T_TIMESTAMP, WSTART);
    }
    if (f->avg_col >= 0 && node->kind == SL_EX_FUNC &&
        strcasecmp(node->u.func.name, "avg") == 0) {
        b->kind = SL_BIND_COLUMN;
        b->index = f->avg_col;
        b->type = f->cols[f->avg_col].type;
        b->width = f->cols[f->avg_col].width;
    }
    return 0;
}

static fx *fx_new(const tcol *cols, int ncols, sl_precision prec)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    sl_block_init(&f->blk);
    f->cols = cols;
    f->ncols = ncols;
    f->avg_col = -1;
    f->binder.bind = test_bind;
    f->binder.ud = f;
    f->binder.precision = prec;
    f->binder.now = prec == SL_PREC_MS ? NOW_MS : NOW_MS * 1000;
    for (int i = 0; i < ncols; i++)
        assert_int_equal(sl_block_add_column(&f->blk, cols[i].type, cols[i].width), i);
    return f;
}

static sl_column *col(fx *f, int i)
{
    return &f->blk.cols[i];
}

static int fx_teardown(void **state)
{
    fx *f = *state;
    if (f != NULL) {
        sl_block_fini(&f->blk);
        free(f);
    }
    return 0;
}

static const tcol main_cols[] = {
    {"ts", SL_T_TIMESTAMP, 0}, {"i", SL_T_INT, 0},     {"b", SL_T_BIGINT, 0},
    {"u", SL_T_UBIGINT, 0},    {"f", SL_T_FLOAT, 0},   {"d", SL_T_DOUBLE, 0},
    {"s", SL_T_VARCHAR, 16},   {"flag", SL_T_BOOL, 0}, {"k", SL_T_INT, 0},
    {"tb", SL_T_VARCHAR, 16},  {"kn", SL_T_INT, 0},
};

static int setup_main(void **state)
{
    fx *f = fx_new(main_cols, 11, SL_PREC_MS);
    const int64_t ts[] = {1735689600000LL, 1735689599999LL, 1735689601000LL, 0, -1000,
                          1735776000000LL};
    const int64_t iv[] = {1, 0, -3, 7, 2, 0};
    const int64_t bv[] = {10, -20, 6, 0, -5, 3};
    const uint64_t uv[] = {0, UINT64_MAX, 5, 9223372036854775808ULL, 7, 3};
    const double fv[] = {1.5, -0.5, 2.0, 0.25, -2.0, 100.0};
    const double dv[] = {2.5, -4.0, 0.0, 10.0, -0.5, 1.0};
    const char *sv[] = {"abc", NULL, "ABd", "", "h\xc3\xa9llo", NULL};
    const int flagv[] = {1, 0, -1, 1, 0, 1};
    for (int r = 0; r < 6; r++) {
        assert_int_equal(sl_column_append_i64(col(f, 0), ts[r]), 0);
        if (r == 1 || r == 5)
            assert_int_equal(sl_column_append_null(col(f, 1)), 0);
        else
            assert_int_equal(sl_column_append_i64(col(f, 1), iv[r]), 0);
        assert_int_equal(sl_column_append_i64(col(f, 2), bv[r]), 0);
        assert_int_equal(sl_column_append_u64(col(f, 3), uv[r]), 0);
        assert_int_equal(sl_column_append_f64(col(f, 4), fv[r]), 0);
        assert_int_equal(sl_column_append_f64(col(f, 5), dv[r]), 0);
        if (sv[r] == NULL)
            assert_int_equal(sl_column_append_null(col(f, 6)), 0);
        else
            assert_int_equal(sl_column_append_str(col(f, 6), sv[r], (uint32_t)strlen(sv[r])), 0);
        if (flagv[r] < 0)
            assert_int_equal(sl_column_append_null(col(f, 7)), 0);
        else
            assert_int_equal(sl_column_append_bool(col(f, 7), flagv[r] != 0), 0);
    }
    sl_value k = sl_value_int(SL_T_INT, 10);
    assert_int_equal(sl_column_set_const(col(f, 8), &k, 6), 0);
    sl_value tb = sl_value_str(SL_T_VARCHAR, "d1001", 5);
    assert_int_equal(sl_column_set_const(col(f, 9), &tb, 6), 0);
    sl_value kn = sl_value_null(SL_T_INT);
    assert_int_equal(sl_column_set_const(col(f, 10), &kn, 6), 0);
    sl_block_seal(&f->blk);
    assert_int_equal(f->blk.nrows, 6);
    *state = f;
    return 0;
}

/* p and q: every pair of TRUE, FALSE, NULL (p = T T T F F F N N N, q = T F N ...). */
static const tcol logic_cols[] = {{"p", SL_T_BOOL, 0}, {"q", SL_T_BOOL, 0}};

static int setup_logic(void **state)
{
    fx *f = fx_new(logic_cols, 2, SL_PREC_MS);
    const int v[3] = {1, 0, -1};
    for (int r = 0; r < 9; r++) {
        int p = v[r / 3], q = v[r % 3];
        if (p < 0)
            assert_int_equal(sl_column_append_null(col(f, 0)), 0);
        else
            assert_int_equal(sl_column_append_bool(col(f, 0), p), 0);
        if (q < 0)
            assert_int_equal(sl_column_append_null(col(f, 1)), 0);
        else
            assert_int_equal(sl_column_append_bool(col(f, 1), q), 0);
    }
    sl_block_seal(&f->blk);
    *state = f;
    return 0;
}

/*
 * Edges of the 64-bit range. nb's NULL rows hold INT64_MAX and INT64_MIN underneath, so
 * arithmetic on them would overflow if NULL rows were checked.
 *
 *   row b                      nb          dd          uu
 *   0   9223372036854775807    NULL (MAX)  2^63        18446744073709551615
 *   1   -9223372036854775808   5           0.0         0
 *   2   5                      NULL (MIN)  5.0         5
 *   3   9007199254740992       0           2^53        9007199254740993
 */
static const tcol edge_cols[] = {
    {"b", SL_T_BIGINT, 0}, {"nb", SL_T_BIGINT, 0}, {"dd", SL_T_DOUBLE, 0},
    {"uu", SL_T_UBIGINT, 0}};

static int setup_edge(void **state)
{
    fx *f = fx_new(edge_cols, 4, SL_PREC_MS);
    const int64_t bv[] = {INT64_MAX, INT64_MIN, 5, 9007199254740992LL};
    const int64_t nbv[] = {INT64_MAX, 5, INT64_MIN, 0};
    const double ddv[] = {9223372036854775808.0, 0.0, 5.0, 9007199254740992.0};
    const uint64_t uuv[] = {UINT64_MAX, 0, 5, 9007199254740993ULL};
    for (int r = 0; r < 4; r++) {
        assert_int_equal(sl_column_append_i64(col(f, 0), bv[r]), 0);
        assert_int_equal(sl_column_append_i64(col(f, 1), nbv[r]), 0);
        assert_int_equal(sl_column_append_f64(col(f, 2), ddv[r]), 0);
        assert_int_equal(sl_column_append_u64(col(f, 3), uuv[r]), 0);
    }
    /* Mark rows 0 and 2 of nb NULL, keeping the extreme values underneath. */
    assert_int_equal(sl_column_set_null(col(f, 1), 0), 0);
    assert_int_equal(sl_column_set_null(col(f, 1), 2), 0);
    sl_block_seal(&f->blk);
    *state = f;
    return 0;
}

/* ------------------------------------------------------------ helpers */

static int compile_text(const char *expr, const sl_binder *binder, sl_cexpr **out,
                        sl_error *err)
{
    size_t n = strlen(expr) + 32;
    char *sql = malloc(n);
    assert_non_null(sql);
    snprintf(sql, n, "SELECT %s FROM t", expr);
    sl_parse_result *r = NULL;
    sl_error perr;
    sl_error_clear(&perr);
    int rc = sl_parse(sql, strlen(sql), &r, &perr);
    if (rc != 0)
        fail_msg("parsing '%s' failed (%d): %s", sql, rc, perr.msg);
    free(sql);
    assert_int_equal(r->nstmts, 1);
    assert_int_equal(r->stmts[0]->kind, SL_STMT_SELECT);
    assert_int_equal(r->stmts[0]->u.select->nitems, 1);
    sl_error_clear(err);
    *out = NULL;
    rc = sl_cexpr_compile(r->stmts[0]->u.select->items[0].expr, binder, out, err);
    /* The compiled expression must not keep pointers into the AST. */
    sl_parse_result_free(r);
    return rc;
}

static sl_cexpr *compile_ok(fx *f, const char *expr, sl_type want)
{
    sl_cexpr *e = NULL;
    sl_error err;
    int rc = compile_text(expr, &f->binder, &e, &err);
    if (rc != 0)
        fail_msg("%s: compile failed (%d): %s", expr, rc, err.msg);
    assert_non_null(e);
    if (sl_cexpr_type(e) != want)
        fail_msg("%s: type %s, want %s", expr, sl_type_name(sl_cexpr_type(e)),
                 sl_type_name(want));
    return e;
}

/* Compiles and evaluates expr over f's block; the caller frees *pe. */
static const sl_column *eval_ok(fx *f, const char *expr, sl_type want, sl_cexpr **pe)
{
    sl_cexpr *e = compile_ok(f, expr, want);
    const sl_column *c = NULL;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_cexpr_eval(e, &f->blk, &c, &err);
    if (rc != 0)
        fail_msg("%s: eval failed (%d): %s", expr, rc, err.msg);
    assert_non_null(c);
    if (c->nrows != f->blk.nrows)
        fail_msg("%s: %u rows, want %u", expr, c->nrows, f->blk.nrows);
    if (want != SL_T_NULL && c->type != want)
        fail_msg("%s: column type %s, want %s", expr, sl_type_name(c->type),
                 sl_type_name(want));
    *pe = e;
    return c;
}

/* nulls: one character per row, 'N' for NULL, anything else for a value. */
static void check_null(const char *expr, const sl_column *c, uint32_t r, const char *nulls)
{
    bool want = nulls != NULL && nulls[r] == 'N';
    bool got = sl_column_is_null(c, r);
    if (want != got)
        fail_msg("%s: row %u is %sNULL, want %sNULL", expr, r, got ? "" : "not ",
                 want ? "" : "not ");
}

static void check_i64(fx *f, const char *expr, sl_type t, const int64_t *want,
                      const char *nulls)
{
    sl_cexpr *e;
    const sl_column *c = eval_ok(f, expr, t, &e);
    for (uint32_t r = 0; r < f->blk.nrows; r++) {
        check_null(expr, c, r, nulls);
        if (sl_column_is_null(c, r))
            continue;
        int64_t got = sl_column_get_i64(c, r);
        if (got != want[r])
            fail_msg("%s: row %u = %lld, want %lld", expr, r, (long long)got,
                     (long long)want[r]);
    }
    sl_cexpr_free(e);
}

static void check_u64(fx *f, const char *expr, sl_type t, const uint64_t *want,
                      const char *nulls)
{
    sl_cexpr *e;
    const sl_column *c = eval_ok(f, expr, t, &e);
    for (uint32_t r = 0; r < f->blk.nrows; r++) {
        check_null(expr, c, r, nulls);
        if (sl_column_is_null(c, r))
            continue;
        uint64_t got = sl_column_get_u64(c, r);
        if (got != want[r])
            fail_msg("%s: row %u = %llu, want %llu", expr, r, (unsigned long long)got,
                     (unsigned long long)want[r]);
    }
    sl_cexpr_free(e);
}

/* tol 0: exact; otherwise relative tolerance (absolute below 1). */
static void check_f64_tol(fx *f, const char *expr, sl_type t, const double *want,
                          const char *nulls, double tol)
{
    sl_cexpr *e;
    const sl_column *c = eval_ok(f, expr, t, &e);
    for (uint32_t r = 0; r < f->blk.nrows; r++) {
        check_null(expr, c, r, nulls);
        if (sl_column_is_null(c, r))
            continue;
        double got = sl_column_get_f64(c, r);
        double scale = fabs(want[r]) > 1 ? fabs(want[r]) : 1;
        if (tol == 0 ? got != want[r] : fabs(got - want[r]) > tol * scale)
            fail_msg("%s: row %u = %.17g, want %.17g", expr, r, got, want[r]);
    }
    sl_cexpr_free(e);
}

static void check_f64(fx *f, const char *expr, sl_type t, const double *want,
                      const char *nulls)
{
    check_f64_tol(f, expr, t, want, nulls, 0);
}

/* want: one of T, F, N per row. */
static void check_bool(fx *f, const char *expr, const char *want)
{
    assert_int_equal(strlen(want), f->blk.nrows);
    sl_cexpr *e;
    const sl_column *c = eval_ok(f, expr, SL_T_BOOL, &e);
    for (uint32_t r = 0; r < f->blk.nrows; r++) {
        check_null(expr, c, r, want);
        if (want[r] == 'N')
            continue;
        bool got = ((const uint8_t *)c->data)[sl_column_phys(c, r)] != 0;
        if (got != (want[r] == 'T'))
            fail_msg("%s: row %u is %s, want %c", expr, r, got ? "TRUE" : "FALSE", want[r]);
    }
    sl_cexpr_free(e);
}

/* want[r] NULL means SQL NULL. */
static void check_str(fx *f, const char *expr, sl_type t, const char *const *want)
{
    sl_cexpr *e;
    const sl_column *c = eval_ok(f, expr, t, &e);
    for (uint32_t r = 0; r < f->blk.nrows; r++) {
        bool got_null = sl_column_is_null(c, r);
        if (got_null != (want[r] == NULL))
            fail_msg("%s: row %u is %sNULL, want %sNULL", expr, r, got_null ? "" : "not ",
                     want[r] == NULL ? "" : "not ");
        if (got_null)
            continue;
        uint32_t len;
        const char *p = sl_column_get_str(c, r, &len);
        if (len != strlen(want[r]) || memcmp(p, want[r], len) != 0)
            fail_msg("%s: row %u = '%.*s', want '%s'", expr, r, (int)len, p, want[r]);
    }
    sl_cexpr_free(e);
}

/* Compile-time refusal with an exact code and (when msg is not NULL) message. */
static void check_compile_err(fx *f, const char *expr, int code, const char *msg)
{
    sl_cexpr *e = (sl_cexpr *)(uintptr_t)1;
    sl_error err;
    int rc = compile_text(expr, &f->binder, &e, &err);
    if (rc != code)
        fail_msg("%s: compile returned %d (%s), want %d", expr, rc, err.msg, code);
    assert_int_equal(err.code, code);
    assert_null(e);
    if (msg != NULL && strcmp(err.msg, msg) != 0)
        fail_msg("%s: message '%s', want '%s'", expr, err.msg, msg);
    assert_int_equal(err.line, 1);
    assert_true(err.col >= 8); /* somewhere inside the expression, after "SELECT " */
}

/* Compiles fine, fails at evaluation. */
static void check_eval_err(fx *f, const char *expr, int code, const char *msg)
{
    sl_cexpr *e = NULL;
    sl_error err;
    int rc = compile_text(expr, &f->binder, &e, &err);
    if (rc != 0)
        fail_msg("%s: compile failed (%d): %s", expr, rc, err.msg);
    const sl_column *c = NULL;
    sl_error_clear(&err);
    rc = sl_cexpr_eval(e, &f->blk, &c, &err);
    if (rc != code)
        fail_msg("%s: eval returned %d (%s), want %d", expr, rc, err.msg, code);
    assert_int_equal(err.code, code);
    if (msg != NULL && strcmp(err.msg, msg) != 0)
        fail_msg("%s: message '%s', want '%s'", expr, err.msg, msg);
    sl_cexpr_free(e);
}

/* A constant expression: checks it folds, and returns its value through *v. */
static sl_cexpr *const_ok(fx *f, const char *expr, sl_type t, sl_value *v)
{
    sl_cexpr *e = compile_ok(f, expr, t);
    if (!sl_cexpr_is_const(e))
        fail_msg("%s: not folded to a constant", expr);
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_cexpr_eval_const(e, v, &err), 0);
    return e;
}

static void check_const_i64(fx *f, const char *expr, sl_type t, int64_t want)
{
    sl_value v;
    sl_cexpr *e = const_ok(f, expr, t, &v);
    if (v.is_null)
        fail_msg("%s: NULL, want %lld", expr, (long long)want);
    if (v.v.i != want)
        fail_msg("%s: %lld, want %lld", expr, (long long)v.v.i, (long long)want);
    sl_cexpr_free(e);
}

static void check_const_u64(fx *f, const char *expr, sl_type t, uint64_t want)
{
    sl_value v;
    sl_cexpr *e = const_ok(f, expr, t, &v);
    assert_false(v.is_null);
    if (v.v.u != want)
        fail_msg("%s: %llu, want %llu", expr, (unsigned long long)v.v.u,
                 (unsigned long long)want);
    sl_cexpr_free(e);
}

static void check_const_f64(fx *f, const char *expr, double want, double tol)
{
    sl_value v;
    sl_cexpr *e = const_ok(f, expr, SL_T_DOUBLE, &v);
    assert_false(v.is_null);
    if (tol == 0 ? v.v.d != want : fabs(v.v.d - want) > tol)
        fail_msg("%s: %.17g, want %.17g", expr, v.v.d, want);
    sl_cexpr_free(e);
}

static void check_const_bool(fx *f, const char *expr, char want)
{
    sl_value v;
    sl_cexpr *e = const_ok(f, expr, SL_T_BOOL, &v);
    if (want == 'N') {
        if (!v.is_null)
            fail_msg("%s: %d, want NULL", expr, v.v.b);
    } else if (v.is_null || v.v.b != (want == 'T')) {
        fail_msg("%s: %s, want %c", expr, v.is_null ? "NULL" : v.v.b ? "T" : "F", want);
    }
    sl_cexpr_free(e);
}

static void check_const_str(fx *f, const char *expr, sl_type t, const char *want)
{
    sl_value v;
    sl_cexpr *e = const_ok(f, expr, t, &v);
    assert_false(v.is_null);
    if (v.v.s.len != strlen(want) || memcmp(v.v.s.ptr, want, v.v.s.len) != 0)
        fail_msg("%s: '%.*s', want '%s'", expr, (int)v.v.s.len, v.v.s.ptr, want);
    sl_cexpr_free(e);
}

static void check_const_null(fx *f, const char *expr, sl_type t)
{
    sl_value v;
    sl_cexpr *e = const_ok(f, expr, t, &v);
    if (!v.is_null)
        fail_msg("%s: not NULL", expr);
    sl_cexpr_free(e);
}

static void check_select(fx *f, const char *expr, const uint32_t *want, uint32_t nwant)
{
    sl_cexpr *e = NULL;
    sl_error err;
    int rc = compile_text(expr, &f->binder, &e, &err);
    if (rc != 0)
        fail_msg("%s: compile failed (%d): %s", expr, rc, err.msg);
    uint32_t *sel = calloc(f->blk.nrows + 1, sizeof(uint32_t));
    assert_non_null(sel);
    uint32_t nsel = UINT32_MAX;
    sl_error_clear(&err);
    rc = sl_cexpr_select(e, &f->blk, sel, &nsel, &err);
    if (rc != 0)
        fail_msg("%s: select failed (%d): %s", expr, rc, err.msg);
    if (nsel != nwant)
        fail_msg("%s: selected %u rows, want %u", expr, nsel, nwant);
    for (uint32_t k = 0; k < nwant; k++)
        if (sel[k] != want[k])
            fail_msg("%s: selection[%u] = %u, want %u", expr, k, sel[k], want[k]);
    free(sel);
    sl_cexpr_free(e);
}

/* ------------------------------------------------------------ arithmetic */

static void test_arith_int(void **state)
{
    fx *f = *state;
    check_i64(f, "i + b", SL_T_BIGINT, I64(11, 0, 3, 7, -3, 0), "-N---N");
    check_i64(f, "i - b", SL_T_BIGINT, I64(-9, 0, -9, 7, 7, 0), "-N---N");
    check_i64(f, "i * b", SL_T_BIGINT, I64(10, 0, -18, 0, -10, 0), "-N---N");
    check_i64(f, "b * b - i", SL_T_BIGINT, I64(99, 0, 39, -7, 23, 0), "-N---N");
    check_i64(f, "b - 3 * 2 + 1", SL_T_BIGINT, I64(5, -25, 1, -5, -10, -2), NULL);
    check_i64(f, "b % 3", SL_T_BIGINT, I64(1, -2, 0, 0, -2, 0), NULL);
    check_i64(f, "b % -3", SL_T_BIGINT, I64(1, -2, 0, 0, -2, 0), NULL);
    check_i64(f, "b % i", SL_T_BIGINT, I64(0, 0, 0, 0, -1, 0), "-N---N");
    check_i64(f, "-i", SL_T_BIGINT, I64(-1, 0, 3, -7, -2, 0), "-N---N");
    check_i64(f, "-(-b)", SL_T_BIGINT, I64(10, -20, 6, 0, -5, 3), NULL);
    check_i64(f, "flag + 1", SL_T_BIGINT, I64(2, 1, 0, 2, 1, 2), "--N---");
    check_i64(f, "i & 3", SL_T_BIGINT, I64(1, 0, 1, 3, 2, 0), "-N---N");
    check_i64(f, "b | 1", SL_T_BIGINT, I64(11, -19, 7, 1, -5, 3), NULL);
    check_i64(f, "~b", SL_T_BIGINT, I64(-11, 19, -7, -1, 4, -4), NULL);
    /* a NULL operand makes every row NULL, whatever the other side */
    check_i64(f, "i + NULL", SL_T_BIGINT, I64(0, 0, 0, 0, 0, 0), "NNNNNN");
}

static void test_arith_float(void **state)
{
    fx *f = *state;
    /* '/' is always DOUBLE, also on integers */
    check_f64(f, "b / 4", SL_T_DOUBLE, F64(2.5, -5.0, 1.5, 0.0, -1.25, 0.75), NULL);
    check_f64(f, "i / 2", SL_T_DOUBLE, F64(0.5, 0, -1.5, 3.5, 1.0, 0), "-N---N");
    /* the NULL rows of i hold 0: dividing by them is not an error */
    check_f64(f, "b / i", SL_T_DOUBLE, F64(10.0, 0, -2.0, 0.0, -2.5, 0), "-N---N");
    check_f64(f, "i + f", SL_T_DOUBLE, F64(2.5, 0, -1.0, 7.25, 0.0, 0), "-N---N");
    check_f64(f, "f * d", SL_T_DOUBLE, F64(3.75, 2.0, 0.0, 2.5, 1.0, 100.0), NULL);
    check_f64(f, "d - b", SL_T_DOUBLE, F64(-7.5, 16.0, -6.0, 10.0, 4.5, -2.0), NULL);
    check_f64(f, "d % 3", SL_T_DOUBLE, F64(2.5, -1.0, 0.0, 1.0, -0.5, 1.0), NULL);
    check_f64(f, "f - 0.25", SL_T_DOUBLE, F64(1.25, -0.75, 1.75, 0.0, -2.25, 99.75), NULL);
    check_f64(f, "i * 2.5", SL_T_DOUBLE, F64(2.5, 0, -7.5, 17.5, 5.0, 0), "-N---N");
    check_f64(f, "-f", SL_T_DOUBLE, F64(-1.5, 0.5, -2.0, -0.25, 2.0, -100.0), NULL);
    check_f64(f, "d * '2'", SL_T_DOUBLE, F64(5.0, -8.0, 0.0, 20.0, -1.0, 2.0), NULL);
}

static void test_arith_const_column(void **state)
{
    fx *f = *state;
    /* k is a constant column (one stored value, stride 0) */
    check_i64(f, "i + k", SL_T_BIGINT, I64(11, 0, 7, 17, 12, 0), "-N---N");
    check_i64(f, "k - i", SL_T_BIGINT, I64(9, 0, 13, 3, 8, 0), "-N---N");
    check_i64(f, "k * 2", SL_T_BIGINT, I64(20, 20, 20, 20, 20, 20), NULL);
    check_f64(f, "d / k", SL_T_DOUBLE, F64(0.25, -0.4, 0.0, 1.0, -0.05, 0.1), NULL);
    check_bool(f, "k = 10", "TTTTTT");
    check_bool(f, "i < k", "TNTTTN");
    /* a bare column reference is the input column itself, constant included */
    sl_cexpr *e = compile_ok(f, "k", SL_T_INT);
    int idx = -1;
    assert_true(sl_cexpr_is_column(e, &idx));
    assert_int_equal(idx, 8);
    assert_false(sl_cexpr_is_const(e)); /* a column, even a constant one, is input */
    const sl_column *c;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_cexpr_eval(e, &f->blk, &c, &err), 0);
    assert_ptr_equal(c, col(f, 8));
    assert_true(c->is_const);
    assert_int_equal(sl_column_get_i64(c, 5), 10);
    sl_cexpr_free(e);
}

static void test_const_columns(void **state)
{
    fx *f = *state;
    check_bool(f, "tb = 'd1001'", "TTTTTT");
    check_bool(f, "tb <> 'd1001'", "FFFFFF");
    check_bool(f, "s < tb", "TNTTFN");
    check_bool(f, "tb LIKE 'd1%'", "TTTTTT");
    check_bool(f, "tb NOT LIKE '%1'", "FFFFFF");
    check_bool(f, "tb IN ('x', 'd1001')", "TTTTTT");
    check_bool(f, "tb IS NULL", "FFFFFF");
    check_str(f, "CONCAT(tb, '.', i)", SL_T_VARCHAR,
              STR("d1001.1", NULL, "d1001.-3", "d1001.7", "d1001.2", NULL));
    check_str(f, "UPPER(tb)", SL_T_VARCHAR,
              STR("D1001", "D1001", "D1001", "D1001", "D1001", "D1001"));
    check_i64(f, "LENGTH(tb)", SL_T_BIGINT, I64(5, 5, 5, 5, 5, 5), NULL);
    check_str(f, "CASE WHEN flag THEN tb ELSE s END", SL_T_VARCHAR,
              STR("d1001", NULL, "ABd", "d1001", "h\xc3\xa9llo", "d1001"));
    /* kn: a constant NULL */
    check_i64(f, "i + kn", SL_T_BIGINT, I64(0, 0, 0, 0, 0, 0), "NNNNNN");
    check_i64(f, "-kn", SL_T_BIGINT, I64(0, 0, 0, 0, 0, 0), "NNNNNN");
    check_f64(f, "d / kn", SL_T_DOUBLE, F64(0, 0, 0, 0, 0, 0), "NNNNNN");
    check_bool(f, "kn IS NULL", "TTTTTT");
    check_bool(f, "kn = 1 OR flag", "TNNTNT");
    check_bool(f, "kn = 1 AND flag", "NFNNFN");
    check_bool(f, "kn IN (1, 2)", "NNNNNN");
    check_bool(f, "kn BETWEEN 1 AND 2", "NNNNNN");
    check_i64(f, "COALESCE(kn, i, -1)", SL_T_BIGINT, I64(1, -1, -3, 7, 2, -1), NULL);
    check_i64(f, "CASE WHEN kn > 0 THEN 1 ELSE 2 END", SL_T_BIGINT, I64(2, 2, 2, 2, 2, 2), NULL);
    check_str(f, "CAST(kn AS VARCHAR(4))", SL_T_VARCHAR, STR(NULL, NULL, NULL, NULL, NULL, NULL));
    check_select(f, "kn IS NULL AND tb = 'd1001'", (const uint32_t[]){0, 1, 2, 3, 4, 5}, 6);
    check_select(f, "kn = 1 OR flag", (const uint32_t[]){0, 3, 5}, 3);
    /* a CASE whose branches are all NULL has the NULL type */
    check_bool(f, "(CASE WHEN flag THEN NULL END) AND flag", "NFNNFN");
    check_select(f, "CASE WHEN flag THEN NULL END", NULL, 0);
}

static void test_arith_errors(void **state)
{
    fx *f = *state;
    /* row 3: 7 / 0 and 7 % 0 with b = 0 not NULL */
    check_eval_err(f, "i / b", SL_EDIVZERO, "division by zero");
    check_eval_err(f, "i % b", SL_EDIVZERO, "division by zero");
    check_eval_err(f, "d / 0", SL_EDIVZERO, "division by zero");
    check_eval_err(f, "f % 0.0", SL_EDIVZERO, "division by zero");
    /* u = 18446744073709551615 (row 1) is not a BIGINT */
    check_eval_err(f, "u + 1", SL_EOVERFLOW,
                   "BIGINT UNSIGNED value 18446744073709551615 is out of BIGINT range");
    /* constants are folded at compile time, so their errors come from compile */
    check_compile_err(f, "1 / 0", SL_EDIVZERO, "division by zero");
    check_compile_err(f, "5 % 0", SL_EDIVZERO, "division by zero");
    check_compile_err(f, "9223372036854775807 + 1", SL_EOVERFLOW,
                      "BIGINT overflow in 9223372036854775807 + 1");
    check_compile_err(f, "-9223372036854775807 - 2", SL_EOVERFLOW,
                      "BIGINT overflow in -9223372036854775807 - 2");
    check_compile_err(f, "4611686018427387904 * 2", SL_EOVERFLOW,
                      "BIGINT overflow in 4611686018427387904 * 2");
}

static void test_overflow_edges(void **state)
{
    fx *f = *state;
    check_eval_err(f, "b + 1", SL_EOVERFLOW, "BIGINT overflow in 9223372036854775807 + 1");
    check_eval_err(f, "b - 1", SL_EOVERFLOW, "BIGINT overflow in -9223372036854775808 - 1");
    check_eval_err(f, "b * 2", SL_EOVERFLOW, "BIGINT overflow in 9223372036854775807 * 2");
    check_eval_err(f, "-b", SL_EOVERFLOW, "BIGINT overflow in negation");
    check_eval_err(f, "abs(b)", SL_EOVERFLOW, "BIGINT overflow in abs");
    /* overflowing values under NULL rows are not errors */
    check_i64(f, "nb + 1", SL_T_BIGINT, I64(0, 6, 0, 1), "N-N-");
    check_i64(f, "nb - 1", SL_T_BIGINT, I64(0, 4, 0, -1), "N-N-");
    check_i64(f, "nb * 2", SL_T_BIGINT, I64(0, 10, 0, 0), "N-N-");
    check_i64(f, "-nb", SL_T_BIGINT, I64(0, -5, 0, 0), "N-N-");
    check_i64(f, "abs(nb)", SL_T_BIGINT, I64(0, 5, 0, 0), "N-N-");
    check_i64(f, "b % -1", SL_T_BIGINT, I64(0, 0, 0, 0), NULL);
}

static void test_overflow_edges_b(void **state)
{
    fx *f = *state;
    check_f64(f, "b / -1", SL_T_DOUBLE,
              F64(-9223372036854775808.0, 9223372036854775808.0, -5.0, -9007199254740992.0),
              NULL);
    check_bool(f, "b > 9223372036854775806", "TFFF");
    check_bool(f, "b = nb", "NFNF");
    /* integer functions stay exact on the whole BIGINT range */
    check_i64(f, "round(b)", SL_T_BIGINT,
              I64(INT64_MAX, INT64_MIN, 5, 9007199254740992LL), NULL);
    check_i64(f, "ceil(b)", SL_T_BIGINT, I64(INT64_MAX, INT64_MIN, 5, 9007199254740992LL),
              NULL);
    check_i64(f, "floor(b)", SL_T_BIGINT, I64(INT64_MAX, INT64_MIN, 5, 9007199254740992LL),
              NULL);
    check_i64(f, "round(nb + 9007199254740993)", SL_T_BIGINT,
              I64(0, 9007199254740998LL, 0, 9007199254740993LL), "N-N-");
    check_eval_err(f, "round(b, -1)", SL_EOVERFLOW, NULL);
}

/* ------------------------------------------------------------ timestamps */

static void test_timestamp_arith(void **state)
{
    fx *f = *state;
    check_i64(f, "ts + 1s", SL_T_TIMESTAMP,
              I64(1735689601000LL, 1735689600999LL, 1735689602000LL, 1000, 0, 1735776001000LL),
              NULL);
    check_i64(f, "ts - 1s", SL_T_TIMESTAMP,
              I64(1735689599000LL, 1735689598999LL, 1735689600000LL, -1000, -2000,
                  1735775999000LL),
              NULL);
    check_i64(f, "1d + ts", SL_T_TIMESTAMP,
              I64(1735776000000LL, 1735775999999LL, 1735776001000LL, 86400000, 86399000,
                  1735862400000LL),
              NULL);
    check_i64(f, "ts + 500", SL_T_TIMESTAMP,
              I64(1735689600500LL, 1735689600499LL, 1735689601500LL, 500, -500,
                  1735776000500LL),
              NULL);
    check_i64(f, "ts - 1735689600000", SL_T_TIMESTAMP,
              I64(0, -1, 1000, -1735689600000LL, -1735689601000LL, 86400000), NULL);
    check_i64(f, "ts - CAST('2025-01-01 00:00:00' AS TIMESTAMP)", SL_T_BIGINT,
              I64(0, -1, 1000, -1735689600000LL, -1735689601000LL, 86400000), NULL);
    check_i64(f, "ts - ts", SL_T_BIGINT, I64(0, 0, 0, 0, 0, 0), NULL);
    check_i64(f, "ts + i", SL_T_TIMESTAMP,
              I64(1735689600001LL, 0, 1735689600997LL, 7, -998, 0), "-N---N");
    check_compile_err(f, "ts + 1u", SL_ERANGE, "duration 1u cannot be used here in ms precision");
    check_compile_err(f, "ts + 1n", SL_EUNSUPPORTED,
                      "duration 1n cannot be used here in ms precision");
    check_compile_err(f, "ts + ts", SL_ETYPE, "cannot add two TIMESTAMP values");
    check_compile_err(f, "-ts", SL_ETYPE, "cannot negate TIMESTAMP");
}

/* ------------------------------------------------------------ comparisons */

static void test_compare_numbers(void **state)
{
    fx *f = *state;
    check_bool(f, "i > f", "FNFTTN");
    check_bool(f, "b >= d", "TFTFFT");
    check_bool(f, "f < d", "TFFTTF");
    check_bool(f, "i <> 7", "TNTFTN");
    check_bool(f, "i != 7", "TNTFTN");
    check_bool(f, "i <= k", "TNTTTN");
    check_bool(f, "f = 0.25", "FFFTFF");
    check_bool(f, "b = 6", "FFTFFF");
    check_bool(f, "6 = b", "FFTFFF");
    check_bool(f, "i = NULL", "NNNNNN");
    check_bool(f, "flag = true", "TFNTFT");
    check_bool(f, "flag = 1", "TFNTFT");
    check_bool(f, "flag < i", "FNNTTN");
    /* numeric strings against numbers compare as numbers */
    check_bool(f, "f > '1'", "TFTFFT");
    check_bool(f, "i = '7'", "FNFTFN");
    check_bool(f, "i = ' 7 '", "FNFTFN");
    check_bool(f, "i < '1.5'", "TNTFFN");
    check_bool(f, "d = '2.5'", "TFFFFF");
    check_bool(f, "u > '-1'", "TTTTTT");
    check_bool(f, "u < '1.5'", "TFFFFF");
    check_bool(f, "u = '1.5'", "FFFFFF");
    check_bool(f, "u = '18446744073709551615'", "FTFFFF");
    check_bool(f, "flag = 'true'", "TFNTFT");
    check_bool(f, "flag = 'FALSE'", "FTNFTF");
    check_bool(f, "flag = '1'", "TFNTFT");
    check_bool(f, "flag = '0.5'", "FFNFFF");
    check_compile_err(f, "i = 'x'", SL_ETYPE, "cannot use 'x' as INT");
    check_compile_err(f, "flag = 'yes'", SL_ETYPE, "cannot use 'yes' as BOOL");
    check_compile_err(f, "d > ''", SL_ETYPE, "cannot use '' as DOUBLE");
}

static void test_compare_unsigned(void **state)
{
    fx *f = *state;
    /* u = 0, 18446744073709551615, 5, 9223372036854775808, 7, 3: compared exactly */
    check_bool(f, "u > b", "FTFTTF");
    check_bool(f, "b < u", "FTFTTF");
    check_bool(f, "u > -1", "TTTTTT");
    check_bool(f, "u < -1", "FFFFFF");
    check_bool(f, "-1 < u", "TTTTTT");
    check_bool(f, "u = -1", "FFFFFF");
    check_bool(f, "u <> -1", "TTTTTT");
    check_bool(f, "u = 9223372036854775808", "FFFTFF");
    check_bool(f, "u >= 18446744073709551615", "FTFFFF");
    check_bool(f, "u = 5", "FFTFFF");
    check_bool(f, "u > i", "FNTTTN");
    check_bool(f, "u = u", "TTTTTT");
    check_bool(f, "u > 1.5", "FTTTTT");
}

static void test_compare_exact_64bit(void **state)
{
    fx *f = *state;
    /* b = MAX, MIN, 5, 2^53; dd = 2^63, 0, 5, 2^53; uu = 2^64-1, 0, 5, 2^53+1.
     * A 64-bit integer must not be rounded to a double before comparing. */
    check_bool(f, "b = dd", "FFTT");
    check_bool(f, "b < dd", "TTFF");
    check_bool(f, "dd > b", "TTFF");
    check_bool(f, "dd <> b", "TTFF");
    check_bool(f, "b = 9223372036854775807.0", "FFFF"); /* the literal is 2^63 */
    check_bool(f, "b < 9223372036854775808.0", "TTTT");
    check_bool(f, "uu = 18446744073709551615.0", "FFFF"); /* the literal is 2^64 */
    check_bool(f, "uu < 18446744073709551616.0", "TTTT");
    check_bool(f, "uu > 9007199254740992.0", "TFFT");
    check_bool(f, "uu = dd", "FTTF");
    check_bool(f, "uu >= dd", "TTTT");
    check_bool(f, "nb = dd", "NFNF");
    /* NaN compares unequal to everything */
    check_bool(f, "b = 'nan'", "FFFF");
    check_bool(f, "b <> 'nan'", "TTTT");
    check_bool(f, "b < 'nan'", "FFFF");
    check_bool(f, "dd >= 'nan'", "FFFF");
    /* IN compares the same way */
    check_bool(f, "b IN (9007199254740993, 0.5)", "FFFF");
    check_bool(f, "b IN (9007199254740992, 0.5)", "FFFT");
    check_bool(f, "uu IN (9007199254740993, 0.5)", "FFFT");
    check_bool(f, "b IN (9223372036854775807, 0.5)", "TFFF");
    check_bool(f, "b IN (-9223372036854775807 - 1, 5)", "FTTF");
}

static void test_compare_timestamps(void **state)
{
    fx *f = *state;
    check_bool(f, "ts >= '2025-01-01 00:00:00'", "TFTFFT");
    check_bool(f, "'2025-01-01 00:00:00' < ts", "FFTFFT");
    check_bool(f, "ts = '2025-01-01'", "TFFFFF");
    check_bool(f, "ts = '2025-01-01T00:00:00Z'", "TFFFFF");
    check_bool(f, "ts > '2025-01-01 00:00:00.999'", "FFTFFT");
    check_bool(f, "ts < '1970-01-01 00:00:00'", "FFFFTF");
    check_bool(f, "ts < 1000", "FFFTTF");
    check_bool(f, "ts = 1735689599999", "FTFFFF");
    check_bool(f, "ts > b", "TTTFFT");
    check_compile_err(f, "ts = 'garbage'", SL_ETYPE, "cannot use 'garbage' as TIMESTAMP");
}

static void test_compare_strings(void **state)
{
    fx *f = *state;
    check_bool(f, "s = 'abc'", "TNFFFN");
    check_bool(f, "s <> 'abc'", "FNTTTN");
    check_bool(f, "s < 'abd'", "TNTTFN");  /* 'A' < 'a', '' < everything, 'h' > 'a' */
    check_bool(f, "s > 'ab'", "TNFFTN");   /* a longer string after its prefix */
    check_bool(f, "s >= ''", "TNTTTN");
    check_bool(f, "s = s", "TNTTTN");
    check_bool(f, "'h\xc3\xa9llo' = s", "FNFFTN");
    check_bool(f, "s < 'h\xc3\xa9'", "TNTTFN");
    check_const_bool(f, "'abc' < 'abd'", 'T');
    check_const_bool(f, "'b' < 'abc'", 'F');
    check_const_bool(f, "'' = ''", 'T');
}

/* ------------------------------------------------------------ three-valued logic */

static void test_logic_truth_table(void **state)
{
    fx *f = *state;
    /* rows: (p, q) = TT TF TN FT FF FN NT NF NN */
    check_bool(f, "p AND q", "TFNFFFNFN");
    check_bool(f, "q AND p", "TFNFFFNFN");
    check_bool(f, "p OR q", "TTTTFNTNN");
    check_bool(f, "q OR p", "TTTTFNTNN");
    check_bool(f, "NOT p", "FFFTTTNNN");
    check_bool(f, "NOT q", "FTNFTNFTN");
    check_bool(f, "NOT (p AND q)", "FTNTTTNTN");
    check_bool(f, "NOT p OR NOT q", "FTNTTTNTN");
    check_bool(f, "p AND NOT q", "FTNFFFFNN");
    check_bool(f, "p AND NULL", "NNNFFFNNN");
    check_bool(f, "NULL OR p", "TTTNNNNNN");
    check_bool(f, "p AND TRUE", "TTTFFFNNN");
    check_bool(f, "p OR FALSE", "TTTFFFNNN");
    check_bool(f, "p AND 1", "TTTFFFNNN");
    check_bool(f, "p = q", "TFNFTNNNN");
    check_bool(f, "p IS NULL", "FFFFFFTTT");
    check_bool(f, "p IS NOT NULL", "TTTTTTFFF");
    check_bool(f, "(p AND q) IS NULL", "FFTFFFTFT");
    check_bool(f, "(p OR q) IS NOT NULL", "TTTTTFTFF");
    check_const_bool(f, "TRUE AND NULL", 'N');
    check_const_bool(f, "FALSE AND NULL", 'F');
    check_const_bool(f, "TRUE OR NULL", 'T');
    check_const_bool(f, "FALSE OR NULL", 'N');
    check_const_bool(f, "NOT NULL", 'N');
    check_const_bool(f, "NOT FALSE", 'T');
    check_const_bool(f, "NULL IS NULL", 'T');
    check_const_bool(f, "1 IS NOT NULL", 'T');
    /* a filter keeps the TRUE rows only */
    check_select(f, "p AND q", (const uint32_t[]){0}, 1);
    check_select(f, "p OR q", (const uint32_t[]){0, 1, 2, 3, 6}, 5);
    check_select(f, "NOT p", (const uint32_t[]){3, 4, 5}, 3);
    check_select(f, "p IS NULL", (const uint32_t[]){6, 7, 8}, 3);
    check_select(f, "NOT (p = q)", (const uint32_t[]){1, 3}, 2);
}

static void test_is_null(void **state)
{
    fx *f = *state;
    check_bool(f, "i IS NULL", "FTFFFT");
    check_bool(f, "i IS NOT NULL", "TFTTTF");
    check_bool(f, "s IS NULL", "FTFFFT");
    check_bool(f, "flag IS NOT NULL", "TTFTTT");
    check_bool(f, "k IS NULL", "FFFFFF");
    check_bool(f, "i + b IS NULL", "FTFFFT");
    check_bool(f, "CAST(i AS VARCHAR(4)) IS NULL", "FTFFFT");
}

/* ------------------------------------------------------------ IN, BETWEEN */

static void test_in(void **state)
{
    fx *f = *state;
    check_bool(f, "i IN (1, 7, 100)", "TNFTFN");
    check_bool(f, "i NOT IN (1, 7, 100)", "FNTFTN");
    /* a NULL in the list: no match is NULL, not FALSE */
    check_bool(f, "i IN (1, NULL)", "TNNNNN");
    check_bool(f, "i NOT IN (1, NULL)", "FNNNNN");
    check_bool(f, "i NOT IN (-3, NULL)", "NNFNNN");
    check_bool(f, "s IN ('abc', '')", "TNFTFN");
    check_bool(f, "s NOT IN ('abc', '')", "FNTFTN");
    check_bool(f, "s IN ('ABC', 'h\xc3\xa9llo', NULL)", "NNNNTN");
    check_bool(f, "d IN (2.5, 10)", "TFFTFF");
    check_bool(f, "b IN (10, 0.0)", "TFFTFF");
    check_bool(f, "f IN (0.25, 2)", "FFTTFF");
    check_bool(f, "u IN (18446744073709551615, 0)", "TTFFFF");
    check_bool(f, "u IN (-1)", "FFFFFF");
    check_bool(f, "ts IN ('2025-01-01 00:00:00', 0)", "TFFTFF");
    check_bool(f, "flag IN (TRUE)", "TFNTFT");
    check_bool(f, "k IN (10)", "TTTTTT");
    check_bool(f, "i IN ('7', 1 + 1)", "FNFTTN");
    check_const_bool(f, "3 IN (1, 2, 3)", 'T');
    check_const_bool(f, "'5' IN ('5', 6)", 'T');
    check_const_bool(f, "'5' IN (4, '5')", 'T');
    check_const_bool(f, "'x' IN ('y', 'x')", 'T');
    check_const_bool(f, "3 IN (1, NULL)", 'N');
    check_const_bool(f, "NULL IN (1, 2)", 'N');
    check_compile_err(f, "i IN (d)", SL_EINVAL, "IN list values must be constants");
    check_compile_err(f, "s IN (1)", SL_ETYPE, "cannot compare VARCHAR with BIGINT");
}

static void test_between(void **state)
{
    fx *f = *state;
    check_bool(f, "i BETWEEN 0 AND 2", "TNFFTN");
    check_bool(f, "i NOT BETWEEN 0 AND 2", "FNTTFN");
    check_bool(f, "d BETWEEN -1 AND 2.5", "TFTFTT");
    check_bool(f, "ts BETWEEN '2025-01-01 00:00:00' AND '2025-01-01 00:00:01'", "TFTFFF");
    check_bool(f, "s BETWEEN 'a' AND 'b'", "TNFFFN");
    check_bool(f, "i BETWEEN NULL AND 5", "NNNFNN");
    check_bool(f, "i NOT BETWEEN NULL AND 5", "NNNTNN");
    check_bool(f, "b BETWEEN i AND k", "TNTFFN");
    check_bool(f, "u BETWEEN -5 AND 5", "TFTFFT");
}

/* ------------------------------------------------------------ LIKE */

static void test_like(void **state)
{
    fx *f = *state;
    check_bool(f, "s LIKE 'a%'", "TNFFFN");
    check_bool(f, "s LIKE 'abc%'", "TNFFFN");
    check_bool(f, "s LIKE '%d'", "FNTFFN");
    check_bool(f, "s LIKE '%c'", "TNFFFN");
    check_bool(f, "s LIKE '%B%'", "FNTFFN");
    check_bool(f, "s LIKE '_b_'", "TNFFFN");
    check_bool(f, "s LIKE '___'", "TNTFFN");
    check_bool(f, "s LIKE '_____'", "FNFFTN"); /* 'héllo' is 5 characters */
    check_bool(f, "s LIKE 'h_llo'", "FNFFTN");
    check_bool(f, "s LIKE '%l%o'", "FNFFTN");
    check_bool(f, "s LIKE '%'", "TNTTTN");
    check_bool(f, "s LIKE ''", "FNFTFN");
    check_bool(f, "s LIKE 'abc'", "TNFFFN");
    check_bool(f, "s LIKE 'ab'", "FNFFFN");
    check_bool(f, "s NOT LIKE 'a%'", "FNTTTN");
    check_bool(f, "s NOT LIKE '%'", "FNFFFN");
    /* escapes: the lexer keeps the backslash of \% and \_ */
    check_const_bool(f, "'a%b' LIKE 'a\\%b'", 'T');
    check_const_bool(f, "'axb' LIKE 'a\\%b'", 'F');
    check_const_bool(f, "'a%b' NOT LIKE 'a\\%b'", 'F');
    check_const_bool(f, "'a_b' LIKE 'a\\_b'", 'T');
    check_const_bool(f, "'axb' LIKE 'a\\_b'", 'F');
    check_const_bool(f, "'100%' LIKE '%\\%'", 'T');
    check_const_bool(f, "'100' LIKE '%\\%'", 'F');
    check_const_bool(f, "'50% off' LIKE '%\\% o%'", 'T');
    check_const_bool(f, "'x_y_z' LIKE '%\\_z'", 'T');
    check_const_bool(f, "'xyz' LIKE '%\\_z'", 'F');
    check_const_bool(f, "'aXbXc' LIKE 'a%b%c'", 'T');
    check_const_bool(f, "'abcabd' LIKE '%abd'", 'T');
    check_const_bool(f, "'abcab' LIKE '%abd'", 'F');
    check_const_bool(f, "'mississippi' LIKE '%iss%ppi'", 'T');
    check_const_bool(f, "'mississippi' LIKE '%iss%iss%iss%'", 'F');
    check_const_bool(f, "'' LIKE '%%'", 'T');
    check_const_bool(f, "'' LIKE '_'", 'F');
    check_const_null(f, "NULL LIKE 'a'", SL_T_BOOL);
    /* '_' is one UTF-8 character; a truncated sequence at the end is not read past */
    check_const_bool(f, "'\xe2\x82\xac' LIKE '_'", 'T');
    check_const_bool(f, "'x\xe2\x82\xac' LIKE '_'", 'F');
    check_const_bool(f, "'\xf0\x9f\x98' LIKE '_'", 'T');
    check_const_bool(f, "'a\xc3' LIKE 'a_'", 'T');
}

/* 'a' x 30000, then the same with a trailing 'b', then 'b'. */
static const tcol long_cols[] = {{"t", SL_T_VARCHAR, 0}};

static int setup_long(void **state)
{
    fx *f = fx_new(long_cols, 1, SL_PREC_MS);
    enum { N = 30000 };
    char *buf = malloc(N + 1);
    assert_non_null(buf);
    memset(buf, 'a', N);
    buf[N] = 'b';
    assert_int_equal(sl_column_append_str(col(f, 0), buf, N), 0);
    assert_int_equal(sl_column_append_str(col(f, 0), buf, N + 1), 0);
    assert_int_equal(sl_column_append_str(col(f, 0), "b", 1), 0);
    free(buf);
    sl_block_seal(&f->blk);
    *state = f;
    return 0;
}

static void test_like_pathological(void **state)
{
    fx *f = *state;
    clock_t t0 = clock();
    check_bool(f, "t LIKE '%a%a%a%a%a%b'", "FTF");
    check_bool(f, "t LIKE '%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%b'", "FTF");
    check_bool(f, "t LIKE 'a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%ac'", "FFF");
    check_bool(f, "t LIKE '%_a_%_a_%_a_%_a_%_b'", "FTF");
    check_bool(f, "t LIKE '%aab'", "FTF");
    check_bool(f, "t LIKE '%b%'", "FTT");
    check_bool(f, "t NOT LIKE '%a%a%a%a%a%b'", "TFT");
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (secs > 2.0)
        fail_msg("pathological LIKE patterns took %.2f s", secs);
}

/* ------------------------------------------------------------ CASE, IF */

static void test_case(void **state)
{
    fx *f = *state;
    check_str(f, "CASE WHEN i > 1 THEN 'big' WHEN i < 0 THEN 'neg' ELSE 'small' END",
              SL_T_VARCHAR, STR("small", "small", "neg", "big", "big", "small"));
    check_i64(f, "CASE WHEN i > 1 THEN 10 END", SL_T_BIGINT, I64(0, 0, 0, 10, 10, 0), "NNN--N");
    /* INT and DOUBLE branches give DOUBLE */
    check_f64(f, "CASE WHEN flag THEN i ELSE d END", SL_T_DOUBLE,
              F64(1.0, -4.0, 0.0, 7.0, -0.5, 0), "-----N");
    check_f64(f, "CASE WHEN b > 0 THEN b ELSE f END", SL_T_DOUBLE,
              F64(10.0, -0.5, 6.0, 0.25, -2.0, 3.0), NULL);
    check_i64(f, "CASE WHEN flag THEN 1 WHEN i > 0 THEN 2 ELSE 3 END", SL_T_BIGINT,
              I64(1, 3, 3, 1, 2, 1), NULL);
    check_i64(f, "CASE WHEN i > 0 THEN i END + 1", SL_T_BIGINT, I64(2, 0, 0, 8, 3, 0),
              "-NN--N");
    /* text and numbers: the numbers are rendered as text */
    check_str(f, "CASE WHEN flag THEN s ELSE 1 END", SL_T_VARCHAR,
              STR("abc", "1", "1", "", "1", NULL));
    /* simple CASE: x WHEN v is x = v, so a NULL x matches nothing */
    check_str(f, "CASE i WHEN 1 THEN 'one' WHEN 7 THEN 'seven' ELSE 'other' END", SL_T_VARCHAR,
              STR("one", "other", "other", "seven", "other", "other"));
    check_i64(f, "CASE s WHEN 'abc' THEN 1 WHEN '' THEN 2 END", SL_T_BIGINT,
              I64(1, 0, 0, 2, 0, 0), "-NN-NN");
    check_i64(f, "CASE ts WHEN '2025-01-01 00:00:00' THEN 1 ELSE 0 END", SL_T_BIGINT,
              I64(1, 0, 0, 0, 0, 0), NULL);
    check_i64(f, "CASE k WHEN 10 THEN k END", SL_T_INT, I64(10, 10, 10, 10, 10, 10), NULL);
    check_const_i64(f, "CASE WHEN 1 > 2 THEN 1 ELSE 2 END", SL_T_BIGINT, 2);
    check_const_i64(f, "CASE 3 WHEN 1 THEN 10 WHEN 3 THEN 30 END", SL_T_BIGINT, 30);
    check_const_f64(f, "CASE WHEN TRUE THEN 1 ELSE 2.5 END", 1.0, 0);
    check_const_null(f, "CASE WHEN FALSE THEN 1 END", SL_T_BIGINT);
    sl_cexpr *e = compile_ok(f, "CASE WHEN flag THEN 'x' ELSE s END", SL_T_VARCHAR);
    assert_int_equal(sl_cexpr_width(e), 32);
    sl_cexpr_free(e);
    check_compile_err(f, "CASE WHEN flag THEN ts ELSE 1 END", SL_ETYPE,
                      "branches have incompatible types TIMESTAMP and BIGINT");
    check_compile_err(f, "CASE WHEN s THEN 1 END", SL_ETYPE,
                      "WHEN needs a boolean operand, got VARCHAR");
}

static void test_if(void **state)
{
    fx *f = *state;
    check_str(f, "IF(i > 1, 'big', 'small')", SL_T_VARCHAR,
              STR("small", "small", "small", "big", "big", "small"));
    check_f64(f, "IF(flag, 1, 2.5)", SL_T_DOUBLE, F64(1.0, 2.5, 2.5, 1.0, 2.5, 1.0), NULL);
    check_i64(f, "IF(flag, i, NULL)", SL_T_INT, I64(1, 0, 0, 7, 0, 0), "-NN-NN");
    check_i64(f, "if(b > 0, b, -b)", SL_T_BIGINT, I64(10, 20, 6, 0, 5, 3), NULL);
    check_const_i64(f, "IF(1 < 2, 5, 6)", SL_T_BIGINT, 5);
    check_compile_err(f, "IF(flag, 1)", SL_EINVAL, "IF takes 3 arguments, got 2");
}

/* ------------------------------------------------------------ CAST */

static void test_cast_columns(void **state)
{
    fx *f = *state;
    check_i64(f, "CAST(i AS BIGINT)", SL_T_BIGINT, I64(1, 0, -3, 7, 2, 0), "-N---N");
    check_i64(f, "CAST(d AS INT)", SL_T_INT, I64(2, -4, 0, 10, 0, 1), NULL);
    check_i64(f, "CAST(f AS BIGINT)", SL_T_BIGINT, I64(1, 0, 2, 0, -2, 100), NULL);
    check_i64(f, "CAST(b AS TINYINT)", SL_T_TINYINT, I64(10, -20, 6, 0, -5, 3), NULL);
    check_i64(f, "CAST(b AS SMALLINT)", SL_T_SMALLINT, I64(10, -20, 6, 0, -5, 3), NULL);
    check_i64(f, "CAST(b AS INT)", SL_T_INT, I64(10, -20, 6, 0, -5, 3), NULL);
    check_i64(f, "CAST(b AS TIMESTAMP)", SL_T_TIMESTAMP, I64(10, -20, 6, 0, -5, 3), NULL);
    check_i64(f, "CAST(ts AS BIGINT)", SL_T_BIGINT,
              I64(1735689600000LL, 1735689599999LL, 1735689601000LL, 0, -1000, 1735776000000LL),
              NULL);
    check_f64(f, "CAST(b AS DOUBLE)", SL_T_DOUBLE, F64(10.0, -20.0, 6.0, 0.0, -5.0, 3.0), NULL);
    check_f64(f, "CAST(d AS FLOAT)", SL_T_FLOAT, F64(2.5, -4.0, 0.0, 10.0, -0.5, 1.0), NULL);
    check_f64(f, "CAST(i AS FLOAT)", SL_T_FLOAT, F64(1.0, 0, -3.0, 7.0, 2.0, 0), "-N---N");
    check_f64(f, "CAST(u AS DOUBLE)", SL_T_DOUBLE,
              F64(0.0, 18446744073709551616.0, 5.0, 9223372036854775808.0, 7.0, 3.0), NULL);
    check_bool(f, "CAST(b AS BOOL)", "TTTFTT");
    check_bool(f, "CAST(d AS BOOL)", "TTFTTT");
    check_bool(f, "CAST(i AS BOOL)", "TNTTTN");
    check_u64(f, "CAST(b + 20 AS BIGINT UNSIGNED)", SL_T_UBIGINT, U64(30, 0, 26, 20, 15, 23),
              NULL);
    check_u64(f, "CAST(ABS(b) AS TINYINT UNSIGNED)", SL_T_UTINYINT, U64(10, 20, 6, 0, 5, 3),
              NULL);
    check_str(f, "CAST(i AS VARCHAR(8))", SL_T_VARCHAR, STR("1", NULL, "-3", "7", "2", NULL));
    check_str(f, "CAST(d AS VARCHAR(16))", SL_T_VARCHAR, STR("2.5", "-4", "0", "10", "-0.5", "1"));
    check_str(f, "CAST(f AS VARCHAR(16))", SL_T_VARCHAR,
              STR("1.5", "-0.5", "2", "0.25", "-2", "100"));
    check_str(f, "CAST(flag AS VARCHAR(8))", SL_T_VARCHAR,
              STR("true", "false", NULL, "true", "false", "true"));
    check_str(f, "CAST(ts AS VARCHAR(20))", SL_T_VARCHAR,
              STR("1735689600000", "1735689599999", "1735689601000", "0", "-1000",
                  "1735776000000"));
    check_str(f, "CAST(u AS VARCHAR(20))", SL_T_VARCHAR,
              STR("0", "18446744073709551615", "5", "9223372036854775808", "7", "3"));
    check_str(f, "CAST(s AS NCHAR(8))", SL_T_NCHAR,
              STR("abc", NULL, "ABd", "", "h\xc3\xa9llo", NULL));
    check_str(f, "CAST(s AS NCHAR(5))", SL_T_NCHAR,
              STR("abc", NULL, "ABd", "", "h\xc3\xa9llo", NULL));
    sl_cexpr *e = compile_ok(f, "CAST(i AS VARCHAR(8))", SL_T_VARCHAR);
    assert_int_equal(sl_cexpr_width(e), 8);
    sl_cexpr_free(e);
    /* failures at evaluation, on the first offending row */
    check_eval_err(f, "CAST(s AS VARCHAR(3))", SL_ERANGE,
                   "text of 6 bytes is longer than VARCHAR(3)");
    check_eval_err(f, "CAST(s AS NCHAR(4))", SL_ERANGE,
                   "text of 5 characters is longer than NCHAR(4)");
    check_eval_err(f, "CAST(u AS BIGINT)", SL_ERANGE,
                   "value 18446744073709551615 is out of range for BIGINT");
    check_eval_err(f, "CAST(b AS TINYINT UNSIGNED)", SL_ERANGE,
                   "value -20 is out of range for TINYINT UNSIGNED");
    check_eval_err(f, "CAST(i AS BIGINT UNSIGNED)", SL_ERANGE,
                   "value -3 is out of range for BIGINT UNSIGNED");
    check_eval_err(f, "CAST(b * 100 AS TINYINT)", SL_ERANGE,
                   "value 1000 is out of range for TINYINT");
    check_eval_err(f, "CAST(s AS INT)", SL_ETYPE, "'abc' cannot be converted to INT");
    check_eval_err(f, "CAST(s AS TIMESTAMP)", SL_ETYPE, "'abc' cannot be converted to TIMESTAMP");
}

static void test_cast_every_type(void **state)
{
    fx *f = *state;
    /* k is the constant column 10; a CAST of it is evaluated for every row */
    check_bool(f, "CAST(k AS BOOL)", "TTTTTT");
    static const struct {
        const char *expr;
        sl_type t;
    } ints[] = {
        {"CAST(k AS TINYINT)", SL_T_TINYINT},
        {"CAST(k AS SMALLINT)", SL_T_SMALLINT},
        {"CAST(k AS INT)", SL_T_INT},
        {"CAST(k AS INTEGER)", SL_T_INT},
        {"CAST(k AS BIGINT)", SL_T_BIGINT},
        {"CAST(k AS TIMESTAMP)", SL_T_TIMESTAMP},
    };
    for (size_t n = 0; n < sizeof(ints) / sizeof(ints[0]); n++)
        check_i64(f, ints[n].expr, ints[n].t, I64(10, 10, 10, 10, 10, 10), NULL);
    static const struct {
        const char *expr;
        sl_type t;
    } uints[] = {
        {"CAST(k AS TINYINT UNSIGNED)", SL_T_UTINYINT},
        {"CAST(k AS SMALLINT UNSIGNED)", SL_T_USMALLINT},
        {"CAST(k AS INT UNSIGNED)", SL_T_UINT},
        {"CAST(k AS BIGINT UNSIGNED)", SL_T_UBIGINT},
    };
    for (size_t n = 0; n < sizeof(uints) / sizeof(uints[0]); n++)
        check_u64(f, uints[n].expr, uints[n].t, U64(10, 10, 10, 10, 10, 10), NULL);
    check_f64(f, "CAST(k AS FLOAT)", SL_T_FLOAT, F64(10, 10, 10, 10, 10, 10), NULL);
    check_f64(f, "CAST(k AS DOUBLE)", SL_T_DOUBLE, F64(10, 10, 10, 10, 10, 10), NULL);
    check_str(f, "CAST(k AS VARCHAR(4))", SL_T_VARCHAR, STR("10", "10", "10", "10", "10", "10"));
    check_str(f, "CAST(k AS BINARY(4))", SL_T_VARCHAR, STR("10", "10", "10", "10", "10", "10"));
    check_str(f, "CAST(k AS NCHAR(2))", SL_T_NCHAR, STR("10", "10", "10", "10", "10", "10"));
}

static void test_cast_constants(void **state)
{
    fx *f = *state;
    check_const_i64(f, "CAST('42' AS INT)", SL_T_INT, 42);
    check_const_i64(f, "CAST(' 7 ' AS BIGINT)", SL_T_BIGINT, 7);
    check_const_i64(f, "CAST(1.9 AS INT)", SL_T_INT, 1);
    check_const_i64(f, "CAST(-1.9 AS INT)", SL_T_INT, -1);
    check_const_i64(f, "CAST(127 AS TINYINT)", SL_T_TINYINT, 127);
    check_const_i64(f, "CAST(-128 AS TINYINT)", SL_T_TINYINT, -128);
    check_const_i64(f, "CAST(-32768 AS SMALLINT)", SL_T_SMALLINT, -32768);
    check_const_i64(f, "CAST(TRUE AS INT)", SL_T_INT, 1);
    check_const_u64(f, "CAST(255 AS TINYINT UNSIGNED)", SL_T_UTINYINT, 255);
    check_const_u64(f, "CAST(65535 AS SMALLINT UNSIGNED)", SL_T_USMALLINT, 65535);
    check_const_u64(f, "CAST(4294967295 AS INT UNSIGNED)", SL_T_UINT, 4294967295u);
    check_const_u64(f, "CAST('18446744073709551615' AS BIGINT UNSIGNED)", SL_T_UBIGINT,
                    UINT64_MAX);
    check_const_f64(f, "CAST('1.5' AS DOUBLE)", 1.5, 0);
    check_const_i64(f, "CAST('2025-01-01 00:00:00' AS TIMESTAMP)", SL_T_TIMESTAMP,
                    1735689600000LL);
    check_const_i64(f, "CAST('2025-01-01 00:00:01.5' AS TIMESTAMP)", SL_T_TIMESTAMP,
                    1735689601500LL);
    check_const_i64(f, "CAST('1000' AS TIMESTAMP)", SL_T_TIMESTAMP, 1000);
    check_const_bool(f, "CAST('true' AS BOOL)", 'T');
    check_const_bool(f, "CAST('FALSE' AS BOOL)", 'F');
    check_const_bool(f, "CAST('0' AS BOOL)", 'F');
    check_const_bool(f, "CAST(0.5 AS BOOL)", 'T');
    check_const_str(f, "CAST(12 AS VARCHAR(2))", SL_T_VARCHAR, "12");
    check_const_str(f, "CAST(-0.125 AS VARCHAR(10))", SL_T_VARCHAR, "-0.125");
    check_const_str(f, "CAST(TRUE AS NCHAR(4))", SL_T_NCHAR, "true");
    check_const_null(f, "CAST(NULL AS INT)", SL_T_INT);
    check_const_null(f, "CAST(NULL AS VARCHAR(3))", SL_T_VARCHAR);
    check_compile_err(f, "CAST('abc' AS INT)", SL_ETYPE, "'abc' cannot be converted to INT");
    check_compile_err(f, "CAST('1x' AS DOUBLE)", SL_ETYPE, "'1x' cannot be converted to DOUBLE");
    check_compile_err(f, "CAST('2025-13-01' AS TIMESTAMP)", SL_ETYPE,
                      "'2025-13-01' cannot be converted to TIMESTAMP");
    check_compile_err(f, "CAST(300 AS TINYINT)", SL_ERANGE,
                      "value 300 is out of range for TINYINT");
    check_compile_err(f, "CAST(128 AS TINYINT)", SL_ERANGE,
                      "value 128 is out of range for TINYINT");
    check_compile_err(f, "CAST(32768 AS SMALLINT)", SL_ERANGE,
                      "value 32768 is out of range for SMALLINT");
    check_compile_err(f, "CAST(2147483648 AS INT)", SL_ERANGE,
                      "value 2147483648 is out of range for INT");
    check_compile_err(f, "CAST(256 AS TINYINT UNSIGNED)", SL_ERANGE,
                      "value 256 is out of range for TINYINT UNSIGNED");
    check_compile_err(f, "CAST(-1 AS INT UNSIGNED)", SL_ERANGE,
                      "value -1 is out of range for INT UNSIGNED");
    check_compile_err(f, "CAST(1e300 AS FLOAT)", SL_ERANGE,
                      "value 1e+300 is out of range for FLOAT");
    check_compile_err(f, "CAST(1e19 AS BIGINT)", SL_ERANGE,
                      "value 1e+19 is out of range for BIGINT");
    check_compile_err(f, "CAST('abcd' AS VARCHAR(3))", SL_ERANGE,
                      "text of 4 bytes is longer than VARCHAR(3)");
}

/* ------------------------------------------------------------ scalar functions */

static void test_func_math(void **state)
{
    fx *f = *state;
    check_i64(f, "ABS(i)", SL_T_BIGINT, I64(1, 0, 3, 7, 2, 0), "-N---N");
    check_i64(f, "abs(b)", SL_T_BIGINT, I64(10, 20, 6, 0, 5, 3), NULL);
    check_f64(f, "ABS(d)", SL_T_DOUBLE, F64(2.5, 4.0, 0.0, 10.0, 0.5, 1.0), NULL);
    check_f64(f, "ABS(f)", SL_T_DOUBLE, F64(1.5, 0.5, 2.0, 0.25, 2.0, 100.0), NULL);
    check_f64(f, "CEIL(d)", SL_T_DOUBLE, F64(3.0, -4.0, 0.0, 10.0, 0.0, 1.0), NULL);
    check_f64(f, "CEILING(f)", SL_T_DOUBLE, F64(2.0, 0.0, 2.0, 1.0, -2.0, 100.0), NULL);
    check_f64(f, "FLOOR(d)", SL_T_DOUBLE, F64(2.0, -4.0, 0.0, 10.0, -1.0, 1.0), NULL);
    check_f64(f, "FLOOR(f)", SL_T_DOUBLE, F64(1.0, -1.0, 2.0, 0.0, -2.0, 100.0), NULL);
    check_i64(f, "CEIL(i)", SL_T_BIGINT, I64(1, 0, -3, 7, 2, 0), "-N---N");
    check_i64(f, "FLOOR(b)", SL_T_BIGINT, I64(10, -20, 6, 0, -5, 3), NULL);
    /* ROUND rounds halves away from zero */
    check_f64(f, "ROUND(d)", SL_T_DOUBLE, F64(3.0, -4.0, 0.0, 10.0, -1.0, 1.0), NULL);
    check_f64(f, "ROUND(f)", SL_T_DOUBLE, F64(2.0, -1.0, 2.0, 0.0, -2.0, 100.0), NULL);
    check_f64(f, "ROUND(d, 1)", SL_T_DOUBLE, F64(2.5, -4.0, 0.0, 10.0, -0.5, 1.0), NULL);
    check_i64(f, "ROUND(i)", SL_T_BIGINT, I64(1, 0, -3, 7, 2, 0), "-N---N");
    check_i64(f, "ROUND(b, -1)", SL_T_BIGINT, I64(10, -20, 10, 0, -10, 0), NULL);
    check_i64(f, "ROUND(b, 2)", SL_T_BIGINT, I64(10, -20, 6, 0, -5, 3), NULL);
    check_const_f64(f, "ROUND(3.14159, 2)", 3.14, 0);
    check_const_f64(f, "ROUND(-2.5)", -3.0, 0);
    check_const_f64(f, "ROUND(1250.0, -2)", 1300.0, 1e-9);
    check_const_i64(f, "ROUND(1234, -2)", SL_T_BIGINT, 1200);
    check_const_i64(f, "ROUND(1250, -2)", SL_T_BIGINT, 1300);
    check_const_i64(f, "ROUND(-1250, -2)", SL_T_BIGINT, -1300);
    check_const_i64(f, "ROUND(-1249, -2)", SL_T_BIGINT, -1200);
    /* SQRT and LOG of numbers outside their domain are NULL */
    check_f64_tol(f, "SQRT(d)", SL_T_DOUBLE,
                  F64(1.5811388300841898, 0, 0.0, 3.1622776601683795, 0, 1.0), "-N--N-", 1e-15);
    check_const_f64(f, "SQRT(16)", 4.0, 0);
    check_const_null(f, "SQRT(-1)", SL_T_DOUBLE);
    check_const_f64(f, "POW(2, 10)", 1024.0, 0);
    check_const_f64(f, "POWER(2, -1)", 0.5, 0);
    check_f64(f, "POW(d, 2)", SL_T_DOUBLE, F64(6.25, 16.0, 0.0, 100.0, 0.25, 1.0), NULL);
    check_f64(f, "POW(i, 2)", SL_T_DOUBLE, F64(1.0, 0, 9.0, 49.0, 4.0, 0), "-N---N");
    check_f64_tol(f, "LOG(d)", SL_T_DOUBLE,
                  F64(0.91629073187415511, 0, 0, 2.3025850929940457, 0, 0.0), "-NN-N-", 1e-15);
    check_const_f64(f, "LOG(8, 2)", 3.0, 1e-15);
    check_const_f64(f, "LOG(100, 10)", 2.0, 1e-15);
    check_const_null(f, "LOG(0)", SL_T_DOUBLE);
    check_const_null(f, "LOG(8, 1)", SL_T_DOUBLE);
    check_const_f64(f, "EXP(0)", 1.0, 0);
    check_f64_tol(f, "EXP(d)", SL_T_DOUBLE,
                  F64(12.182493960703473, 0.018315638888734179, 1.0, 22026.465794806718,
                      0.60653065971263342, 2.7182818284590452),
                  NULL, 1e-15);
    check_i64(f, "ABS(flag)", SL_T_BIGINT, I64(1, 0, 0, 1, 0, 1), "--N---");
    check_i64(f, "-flag", SL_T_BIGINT, I64(-1, 0, 0, -1, 0, -1), "--N---");
    /* TIMETRUNCATE rounds down, also before 1970 */
    check_i64(f, "TIMETRUNCATE(ts, 1h)", SL_T_TIMESTAMP,
              I64(1735689600000LL, 1735686000000LL, 1735689600000LL, 0, -3600000,
                  1735776000000LL),
              NULL);
    check_i64(f, "TIMETRUNCATE(ts, 1s)", SL_T_TIMESTAMP,
              I64(1735689600000LL, 1735689599000LL, 1735689601000LL, 0, -1000, 1735776000000LL),
              NULL);
    check_const_null(f, "ABS(NULL)", SL_T_BIGINT);
    /* u = 18446744073709551615 (row 1) is not a BIGINT */
    check_eval_err(f, "ABS(u)", SL_EOVERFLOW,
                   "BIGINT UNSIGNED value 18446744073709551615 is out of BIGINT range");
}

static void test_func_text(void **state)
{
    fx *f = *state;
    check_str(f, "CONCAT(s, '-', i)", SL_T_VARCHAR,
              STR("abc-1", NULL, "ABd--3", "-7", "h\xc3\xa9llo-2", NULL));
    check_str(f, "s || 'x'", SL_T_VARCHAR, STR("abcx", NULL, "ABdx", "x", "h\xc3\xa9llox", NULL));
    check_str(f, "CONCAT(s)", SL_T_VARCHAR, STR("abc", NULL, "ABd", "", "h\xc3\xa9llo", NULL));
    check_str(f, "CONCAT(b, ':', d, ':', flag)", SL_T_VARCHAR,
              STR("10:2.5:true", "-20:-4:false", NULL, "0:10:true", "-5:-0.5:false", "3:1:true"));
    check_str(f, "CONCAT(s, NULL)", SL_T_VARCHAR, STR(NULL, NULL, NULL, NULL, NULL, NULL));
    check_const_str(f, "CONCAT('a', 1, 2.5, TRUE)", SL_T_VARCHAR, "a12.5true");
    check_const_str(f, "'ab' || 'cd'", SL_T_VARCHAR, "abcd");
    check_i64(f, "LENGTH(s)", SL_T_BIGINT, I64(3, 0, 3, 0, 6, 0), "-N---N");
    check_i64(f, "CHAR_LENGTH(s)", SL_T_BIGINT, I64(3, 0, 3, 0, 5, 0), "-N---N");
    check_const_i64(f, "LENGTH('h\xc3\xa9')", SL_T_BIGINT, 3);
    check_const_i64(f, "CHAR_LENGTH('h\xc3\xa9')", SL_T_BIGINT, 2);
    check_str(f, "LOWER(s)", SL_T_VARCHAR, STR("abc", NULL, "abd", "", "h\xc3\xa9llo", NULL));
    check_str(f, "UPPER(s)", SL_T_VARCHAR, STR("ABC", NULL, "ABD", "", "H\xc3\xa9LLO", NULL));
    check_const_str(f, "UPPER('MiXeD 1')", SL_T_VARCHAR, "MIXED 1");
    sl_cexpr *e = compile_ok(f, "CONCAT(s, 'ab')", SL_T_VARCHAR);
    assert_int_equal(sl_cexpr_width(e), 18);
    sl_cexpr_free(e);
    e = compile_ok(f, "LOWER(s)", SL_T_VARCHAR);
    assert_int_equal(sl_cexpr_width(e), 16);
    sl_cexpr_free(e);
}

/* 'héllo' seven times: 35 characters, 42 bytes */
#define H7 "h\xc3\xa9lloh\xc3\xa9lloh\xc3\xa9lloh\xc3\xa9lloh\xc3\xa9lloh\xc3\xa9lloh\xc3\xa9llo"

static void test_func_null_handling(void **state)
{
    fx *f = *state;
    check_i64(f, "IFNULL(i, 0)", SL_T_BIGINT, I64(1, 0, -3, 7, 2, 0), NULL);
    check_i64(f, "IFNULL(i, k)", SL_T_INT, I64(1, 10, -3, 7, 2, 10), NULL);
    check_str(f, "IFNULL(s, 'none')", SL_T_VARCHAR,
              STR("abc", "none", "ABd", "", "h\xc3\xa9llo", "none"));
    check_i64(f, "COALESCE(i, b, 0)", SL_T_BIGINT, I64(1, -20, -3, 7, 2, 3), NULL);
    check_f64(f, "COALESCE(NULL, d)", SL_T_DOUBLE, F64(2.5, -4.0, 0.0, 10.0, -0.5, 1.0), NULL);
    check_f64(f, "COALESCE(i, d)", SL_T_DOUBLE, F64(1.0, -4.0, -3.0, 7.0, 2.0, 1.0), NULL);
    check_str(f, "COALESCE(s, CAST(i AS VARCHAR(4)), 'x')", SL_T_VARCHAR,
              STR("abc", "x", "ABd", "", "h\xc3\xa9llo", "x"));
    check_i64(f, "COALESCE(IF(flag, NULL, i), -1)", SL_T_BIGINT, I64(-1, -1, -3, -1, 2, -1),
              NULL);
    /* NCHAR widths count characters: 'héllo' fits NCHAR(5) but is 6 bytes */
    check_str(f, "COALESCE(CAST(s AS NCHAR(5)), 'x')", SL_T_VARCHAR,
              STR("abc", "x", "ABd", "", "h\xc3\xa9llo", "x"));
    check_str(f, "IFNULL(CAST(s AS NCHAR(5)), CAST('-' AS NCHAR(1)))", SL_T_NCHAR,
              STR("abc", "-", "ABd", "", "h\xc3\xa9llo", "-"));
    check_str(f, "CASE WHEN flag THEN CAST(s AS NCHAR(5)) ELSE 'x' END", SL_T_VARCHAR,
              STR("abc", "x", "x", "", "x", NULL));
    check_str(f, "CASE WHEN i > 0 THEN CAST(CONCAT(s, s, s, s, s, s, s) AS NCHAR(40)) ELSE 'x' END",
              SL_T_VARCHAR,
              STR("abcabcabcabcabcabcabc", "x", "x", "", H7, "x"));
    check_str(f, "CASE WHEN i > 0 THEN CAST(s AS NCHAR(5)) END", SL_T_NCHAR,
              STR("abc", NULL, NULL, "", "h\xc3\xa9llo", NULL));
    sl_cexpr *e = compile_ok(f, "COALESCE(CAST(s AS NCHAR(5)), 'x')", SL_T_VARCHAR);
    assert_int_equal(sl_cexpr_width(e), 20);
    sl_cexpr_free(e);
    e = compile_ok(f, "IFNULL(CAST(s AS NCHAR(5)), CAST('-' AS NCHAR(1)))", SL_T_NCHAR);
    assert_int_equal(sl_cexpr_width(e), 5);
    sl_cexpr_free(e);
    e = compile_ok(f, "IFNULL(s, 'a string longer than s')", SL_T_VARCHAR);
    assert_int_equal(sl_cexpr_width(e), 22);
    sl_cexpr_free(e);
    check_const_null(f, "COALESCE(NULL, NULL)", SL_T_NULL);
    check_const_i64(f, "IFNULL(NULL, 3)", SL_T_BIGINT, 3);
    check_compile_err(f, "IFNULL(i, 'x')", SL_ETYPE,
                      "ifnull arguments have incompatible types INT and VARCHAR");
}

/* ------------------------------------------------------------ folding, NOW, select */

static void test_const_folding(void **state)
{
    fx *f = *state;
    check_const_i64(f, "1 + 2 * 3", SL_T_BIGINT, 7);
    check_const_i64(f, "(1 + 2) * 3 - -4", SL_T_BIGINT, 13);
    check_const_i64(f, "7 % 3", SL_T_BIGINT, 1);
    check_const_i64(f, "-7 % 3", SL_T_BIGINT, -1);
    check_const_f64(f, "7 / 2", 3.5, 0);
    check_const_f64(f, "2.5 * 2", 5.0, 0);
    check_const_f64(f, "'1.5' + 1", 2.5, 0);
    check_const_u64(f, "18446744073709551615", SL_T_UBIGINT, UINT64_MAX);
    check_const_bool(f, "1 < 2 AND 'a' < 'b'", 'T');
    check_const_null(f, "NULL", SL_T_NULL);
    check_const_null(f, "NULL + 1", SL_T_BIGINT);
    check_const_null(f, "NULL = 1", SL_T_BOOL);
    /* a folded constant evaluates to a constant column of the block's row count */
    sl_cexpr *e = compile_ok(f, "1 + 2 * 3", SL_T_BIGINT);
    assert_true(sl_cexpr_is_const(e));
    assert_false(sl_cexpr_is_column(e, NULL));
    const sl_column *c;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_cexpr_eval(e, &f->blk, &c, &err), 0);
    assert_true(c->is_const);
    assert_int_equal(c->nrows, 6);
    for (uint32_t r = 0; r < 6; r++)
        assert_int_equal(sl_column_get_i64(c, r), 7);
    sl_cexpr_free(e);
    /* anything reading a column is not constant */
    e = compile_ok(f, "i + (1 + 2)", SL_T_BIGINT);
    assert_false(sl_cexpr_is_const(e));
    sl_value v;
    sl_error_clear(&err);
    assert_int_equal(sl_cexpr_eval_const(e, &v, &err), SL_EINVAL);
    assert_string_equal(err.msg, "expression is not constant");
    sl_cexpr_free(e);
    e = compile_ok(f, "i", SL_T_INT);
    int idx = -1;
    assert_true(sl_cexpr_is_column(e, &idx));
    assert_int_equal(idx, 1);
    sl_cexpr_free(e);
    e = compile_ok(f, "s", SL_T_VARCHAR);
    assert_int_equal(sl_cexpr_width(e), 16);
    sl_cexpr_free(e);
}

static void test_now(void **state)
{
    fx *f = *state;
    /* the binder's now is 2025-01-01 00:00:00.500 */
    check_const_i64(f, "NOW()", SL_T_TIMESTAMP, NOW_MS);
    check_const_i64(f, "NOW", SL_T_TIMESTAMP, NOW_MS);
    check_const_i64(f, "NOW() - 1s", SL_T_TIMESTAMP, NOW_MS - 1000);
    check_const_i64(f, "TODAY()", SL_T_TIMESTAMP, 1735689600000LL);
    check_bool(f, "ts < NOW()", "TTFTTF");
    check_i64(f, "NOW() - ts", SL_T_BIGINT,
              I64(500, 501, -500, NOW_MS, NOW_MS + 1000, -86399500), NULL);
}

static void test_select(void **state)
{
    fx *f = *state;
    check_select(f, "i > 0", (const uint32_t[]){0, 3, 4}, 3);
    check_select(f, "flag", (const uint32_t[]){0, 3, 5}, 3);
    check_select(f, "i > 0 OR flag", (const uint32_t[]){0, 3, 4, 5}, 4);
    check_select(f, "i > 0 AND flag", (const uint32_t[]){0, 3}, 2);
    check_select(f, "NOT flag", (const uint32_t[]){1, 4}, 2);
    check_select(f, "s LIKE '%b%'", (const uint32_t[]){0}, 1);
    check_select(f, "k = 10", (const uint32_t[]){0, 1, 2, 3, 4, 5}, 6);
    check_select(f, "1 = 1", (const uint32_t[]){0, 1, 2, 3, 4, 5}, 6);
    check_select(f, "1 = 2", NULL, 0);
    check_select(f, "i = NULL", NULL, 0);
    check_select(f, "NULL", NULL, 0);
    /* a non-boolean condition is refused */
    const char *bad[] = {"i + 1", "k", "s"};
    const char *msg[] = {"condition must be boolean, got BIGINT",
                         "condition must be boolean, got INT",
                         "condition must be boolean, got VARCHAR"};
    for (int n = 0; n < 3; n++) {
        sl_cexpr *e = NULL;
        sl_error err;
        assert_int_equal(compile_text(bad[n], &f->binder, &e, &err), 0);
        uint32_t sel[6], nsel = 0;
        sl_error_clear(&err);
        assert_int_equal(sl_cexpr_select(e, &f->blk, sel, &nsel, &err), SL_ETYPE);
        assert_string_equal(err.msg, msg[n]);
        sl_cexpr_free(e);
    }
}

/* ------------------------------------------------------------ refusals */

static void test_refusals(void **state)
{
    fx *f = *state;
    static const struct {
        const char *expr;
        int code;
        const char *msg;
    } cases[] = {
        {"nosuch + 1", SL_ENOTFOUND, "unknown column 'nosuch'"},
        {"t.i", SL_ENOTFOUND, "unknown column 't.i'"},
        {"boom + 1", SL_EAMBIGUOUS, "column 'boom' is ambiguous"}, /* the binder's own error */
        {"foo(1)", SL_ENOTFOUND, "unknown function 'foo'"},
        {"sqrt(1, 2)", SL_EINVAL, "sqrt takes 1 argument, got 2"},
        {"pow(1)", SL_EINVAL, "pow takes 2 arguments, got 1"},
        {"round(d, 1, 2)", SL_EINVAL, "round takes 1 to 2 arguments, got 3"},
        {"avg(i)", SL_EINVAL, "aggregate function 'avg' is not allowed here"},
        {"1 + sum(i)", SL_EINVAL, "aggregate function 'sum' is not allowed here"},
        {"count(*)", SL_EINVAL, "aggregate function 'count' is not allowed here"},
        {"*", SL_EINVAL, "'*' is not allowed here"},
        {"s = i", SL_ETYPE, "cannot compare VARCHAR with INT"},
        {"i = s", SL_ETYPE, "cannot compare INT with VARCHAR"},
        {"s < ts", SL_ETYPE, "cannot compare VARCHAR with TIMESTAMP"},
        {"s + 1", SL_ETYPE, "cannot apply '+' to VARCHAR and BIGINT"},
        {"i * s", SL_ETYPE, "cannot apply '*' to INT and VARCHAR"},
        {"s - s", SL_ETYPE, "cannot apply '-' to VARCHAR and VARCHAR"},
        {"i LIKE 'a%'", SL_ETYPE, "LIKE needs a VARCHAR or NCHAR operand, got INT"},
        {"ts LIKE '2025%'", SL_ETYPE, "LIKE needs a VARCHAR or NCHAR operand, got TIMESTAMP"},
        {"s LIKE s", SL_ETYPE, "LIKE needs a constant string pattern"},
        {"s LIKE 1", SL_ETYPE, "LIKE needs a constant string pattern"},
        {"_wstart", SL_EINVAL, "_wstart is only valid in a window query"},
        {"_wend - 1s", SL_EINVAL, "_wend is only valid in a window query"},
        {"_twstart", SL_EINVAL, "placeholder _twstart is only valid in a stream computation"},
        {"_tcurrent_ts + 1", SL_EINVAL,
         "placeholder _tcurrent_ts is only valid in a stream computation"},
        {"%%tbname", SL_EINVAL, "placeholder %%tbname is only valid in a stream computation"},
        {"-s", SL_ETYPE, "cannot negate VARCHAR"},
        {"NOT s", SL_ETYPE, "NOT needs a boolean operand, got VARCHAR"},
        {"s AND flag", SL_ETYPE, "AND needs a boolean operand, got VARCHAR"},
        {"flag OR ts", SL_ETYPE, "OR needs a boolean operand, got TIMESTAMP"},
        {"sqrt(s)", SL_ETYPE, "function sqrt does not accept VARCHAR"},
        {"abs(ts)", SL_ETYPE, "function abs does not accept TIMESTAMP"},
        {"length(i)", SL_ETYPE, "function length does not accept INT"},
        {"upper(1)", SL_ETYPE, "function upper does not accept BIGINT"},
        {"~d", SL_ETYPE, "cannot apply '~' to DOUBLE"},
        {"d & 1", SL_ETYPE, "cannot apply '&' to DOUBLE and BIGINT"},
        {"coalesce(s, 1)", SL_ETYPE,
         "coalesce arguments have incompatible types VARCHAR and BIGINT"},
        {"timetruncate(i, 1h)", SL_ETYPE,
         "timetruncate takes a TIMESTAMP and a duration such as 1h"},
        {"CAST(i AS VARCHAR)", SL_ETYPE, "CAST to VARCHAR needs a length, e.g. VARCHAR(64)"},
        /* errors inside a larger expression stop the whole compilation */
        {"i + 1 > 2 AND (s = 'x' OR nosuch)", SL_ENOTFOUND, "unknown column 'nosuch'"},
        {"CASE WHEN flag THEN 1 ELSE 1 / 0 END", SL_EDIVZERO, "division by zero"},
        {"i IN (1, CAST('x' AS INT))", SL_ETYPE, "'x' cannot be converted to INT"},
    };
    for (size_t n = 0; n < sizeof(cases) / sizeof(cases[0]); n++)
        check_compile_err(f, cases[n].expr, cases[n].code, cases[n].msg);
    /* the position is the offending node's: "SELECT nosuch + 1" -> column 8 */
    sl_cexpr *e = NULL;
    sl_error err;
    assert_int_equal(compile_text("nosuch + 1", &f->binder, &e, &err), SL_ENOTFOUND);
    assert_int_equal(err.line, 1);
    assert_int_equal(err.col, 8);
    assert_int_equal(compile_text("1 + foo(2)", &f->binder, &e, &err), SL_ENOTFOUND);
    assert_int_equal(err.col, 12);
    /* NULL is accepted by LIKE on either side and gives NULL */
    check_const_null(f, "s LIKE NULL", SL_T_BOOL);
    check_const_null(f, "NULL NOT LIKE 'a'", SL_T_BOOL);
    assert_true(sl_scalar_func_exists("ABS"));
    assert_true(sl_scalar_func_exists("if"));
    assert_true(sl_scalar_func_exists("Power"));
    assert_false(sl_scalar_func_exists("avg"));
    assert_false(sl_scalar_func_exists("foo"));
}

static void test_binder_values(void **state)
{
    fx *f = *state;
    f->bind_wstart = true;
    f->avg_col = 5; /* avg(...) is bound to column d, as a planner binds aggregates */
    check_const_i64(f, "_wstart", SL_T_TIMESTAMP, WSTART);
    check_const_i64(f, "_wstart + 1s", SL_T_TIMESTAMP, WSTART + 1000);
    check_bool(f, "ts >= _wstart", "TFTFFT");
    check_f64(f, "avg(i) * 2", SL_T_DOUBLE, F64(5.0, -8.0, 0.0, 20.0, -1.0, 2.0), NULL);
    check_select(f, "avg(anything) > 1", (const uint32_t[]){0, 3}, 2);
    sl_cexpr *e = compile_ok(f, "avg(x)", SL_T_DOUBLE);
    int idx = -1;
    assert_true(sl_cexpr_is_column(e, &idx));
    assert_int_equal(idx, 5);
    sl_cexpr_free(e);
    /* a binder without a bind function refuses every column */
    sl_binder nb = {.precision = SL_PREC_MS, .now = 0};
    sl_error err;
    assert_int_equal(compile_text("i", &nb, &e, &err), SL_ENOTFOUND);
    assert_string_equal(err.msg, "unknown column 'i'");
    assert_int_equal(compile_text("1 + 1", &nb, &e, &err), 0);
    assert_true(sl_cexpr_is_const(e));
    sl_cexpr_free(e);
}

/* ------------------------------------------------------------ other precisions */

static const tcol us_cols[] = {{"ts", SL_T_TIMESTAMP, 0}, {"s", SL_T_VARCHAR, 32}};

static int setup_us(void **state)
{
    fx *f = fx_new(us_cols, 2, SL_PREC_US);
    assert_int_equal(sl_column_append_i64(col(f, 0), 1735689600000000LL), 0);
    assert_int_equal(sl_column_append_i64(col(f, 0), 1735689599999999LL), 0);
    const char *s0 = "2025-01-01 00:00:00.000001", *s1 = "1970-01-01";
    assert_int_equal(sl_column_append_str(col(f, 1), s0, (uint32_t)strlen(s0)), 0);
    assert_int_equal(sl_column_append_str(col(f, 1), s1, (uint32_t)strlen(s1)), 0);
    sl_block_seal(&f->blk);
    *state = f;
    return 0;
}

static void test_precision_us(void **state)
{
    fx *f = *state;
    /* timestamps, durations and timestamp strings all follow the binder's precision */
    check_i64(f, "ts + 1s", SL_T_TIMESTAMP, I64(1735689601000000LL, 1735689600999999LL), NULL);
    check_i64(f, "ts + 1u", SL_T_TIMESTAMP, I64(1735689600000001LL, 1735689600000000LL), NULL);
    check_i64(f, "ts - 1a", SL_T_TIMESTAMP, I64(1735689599999000LL, 1735689599998999LL), NULL);
    check_bool(f, "ts >= '2025-01-01 00:00:00'", "TF");
    check_bool(f, "ts IN ('2025-01-01 00:00:00')", "TF");
    check_const_i64(f, "CAST('2025-01-01 00:00:00' AS TIMESTAMP)", SL_T_TIMESTAMP,
                    1735689600000000LL);
    check_const_i64(f, "CAST('2025-01-01 00:00:00.000001' AS TIMESTAMP)", SL_T_TIMESTAMP,
                    1735689600000001LL);
    check_i64(f, "ts - CAST('2025-01-01' AS TIMESTAMP)", SL_T_BIGINT, I64(0, -1), NULL);
    check_i64(f, "CAST(s AS TIMESTAMP)", SL_T_TIMESTAMP, I64(1735689600000001LL, 0), NULL);
    check_const_i64(f, "NOW()", SL_T_TIMESTAMP, NOW_MS * 1000);
    check_const_i64(f, "TODAY()", SL_T_TIMESTAMP, 1735689600000000LL);
    check_compile_err(f, "ts + 1b", SL_ERANGE, "duration 1b cannot be used here in us precision");
}

/* ------------------------------------------------------------ empty blocks */

static const tcol empty_cols[] = {
    {"i", SL_T_INT, 0}, {"s", SL_T_VARCHAR, 8}, {"kn", SL_T_INT, 0}, {"flag", SL_T_BOOL, 0}};

static int setup_empty(void **state)
{
    fx *f = fx_new(empty_cols, 4, SL_PREC_MS);
    sl_value null_int = sl_value_null(SL_T_INT);
    assert_int_equal(sl_column_set_const(col(f, 2), &null_int, 0), 0);
    sl_block_seal(&f->blk);
    assert_int_equal(f->blk.nrows, 0);
    *state = f;
    return 0;
}

static void test_empty_block(void **state)
{
    fx *f = *state;
    /* kn is a constant NULL column of zero rows */
    const struct {
        const char *expr;
        sl_type t;
    } cases[] = {
        {"i + 1", SL_T_BIGINT},
        {"i + kn", SL_T_BIGINT},
        {"i / kn", SL_T_DOUBLE},
        {"-kn", SL_T_BIGINT},
        {"kn & 1", SL_T_BIGINT},
        {"i < kn", SL_T_BOOL},
        {"flag AND kn > 0", SL_T_BOOL},
        {"NOT (kn > 0)", SL_T_BOOL},
        {"kn IN (1, NULL)", SL_T_BOOL},
        {"s LIKE 'a%'", SL_T_BOOL},
        {"CASE WHEN i > 0 THEN s ELSE 'x' END", SL_T_VARCHAR},
        {"CAST(kn AS VARCHAR(4))", SL_T_VARCHAR},
        {"CONCAT(s, kn)", SL_T_VARCHAR},
    };
    for (size_t n = 0; n < sizeof(cases) / sizeof(cases[0]); n++) {
        sl_cexpr *e;
        const sl_column *c = eval_ok(f, cases[n].expr, cases[n].t, &e);
        assert_int_equal(c->nrows, 0);
        sl_cexpr_free(e);
    }
    check_select(f, "i > 0 OR kn > 0", NULL, 0);
}

/* ------------------------------------------------------------ reuse */

static void test_reuse(void **state)
{
    fx *f = *state;
    /* one compiled expression evaluated over blocks of different sizes and NULL patterns */
    sl_cexpr *e = compile_ok(f, "IFNULL(i * 2, -1) + k", SL_T_BIGINT);
    const sl_column *c;
    sl_error err;
    const int64_t want[] = {12, 9, 4, 24, 14, 9};
    for (int round = 0; round < 3; round++) {
        sl_error_clear(&err);
        assert_int_equal(sl_cexpr_eval(e, &f->blk, &c, &err), 0);
        assert_int_equal(c->nrows, 6);
        for (uint32_t r = 0; r < 6; r++) {
            assert_false(sl_column_is_null(c, r));
            assert_int_equal(sl_column_get_i64(c, r), want[r]);
        }
        /* a one-row block of the same schema in between */
        sl_block one;
        sl_block_init(&one);
        for (int n = 0; n < f->ncols; n++)
            assert_int_equal(sl_block_add_column(&one, f->cols[n].type, f->cols[n].width), n);
        assert_int_equal(sl_column_append_rows(&one.cols[0], col(f, 0), NULL, 5, 1), 0);
        for (int n = 1; n < f->ncols; n++)
            assert_int_equal(sl_column_append_rows(&one.cols[n], col(f, n), NULL, 5, 1), 0);
        sl_block_seal(&one);
        sl_error_clear(&err);
        assert_int_equal(sl_cexpr_eval(e, &one, &c, &err), 0);
        assert_int_equal(c->nrows, 1);
        assert_int_equal(sl_column_get_i64(c, 0), 9); /* i is NULL in row 5 */
        sl_block_fini(&one);
    }
    /* a block with fewer columns than the expression reads */
    sl_block small;
    sl_block_init(&small);
    assert_int_equal(sl_block_add_column(&small, SL_T_TIMESTAMP, 0), 0);
    sl_block_seal(&small);
    sl_error_clear(&err);
    assert_int_equal(sl_cexpr_eval(e, &small, &c, &err), SL_ESTATE);
    sl_block_fini(&small);
    sl_cexpr_free(e);
}

/* ------------------------------------------------------------ randomized comparison */

enum { RND_ROWS = 10000 };

typedef struct rnd_data {
    bool in[RND_ROWS], bn[RND_ROWS], dn[RND_ROWS], fn[RND_ROWS]; /* NULL flags */
    int32_t i[RND_ROWS];
    int64_t b[RND_ROWS];
    double d[RND_ROWS];
    float f[RND_ROWS];
} rnd_data;

static const tcol rnd_cols[] = {
    {"i", SL_T_INT, 0}, {"b", SL_T_BIGINT, 0}, {"d", SL_T_DOUBLE, 0}, {"f", SL_T_FLOAT, 0}};

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd_next(void)
{
    /* xorshift64* */
    rnd_state ^= rnd_state >> 12;
    rnd_state ^= rnd_state << 25;
    rnd_state ^= rnd_state >> 27;
    return rnd_state * 0x2545f4914f6cdd1dULL;
}

static int64_t rnd_range(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rnd_next() % (uint64_t)(hi - lo + 1));
}

/* Three-valued booleans in plain C: 0 FALSE, 1 TRUE, 2 NULL. */
enum { TV_F = 0, TV_T = 1, TV_N = 2 };

static int tv_and(int a, int b)
{
    if (a == TV_F || b == TV_F)
        return TV_F;
    return (a == TV_N || b == TV_N) ? TV_N : TV_T;
}

static int tv_or(int a, int b)
{
    if (a == TV_T || b == TV_T)
        return TV_T;
    return (a == TV_N || b == TV_N) ? TV_N : TV_F;
}

static int tv_not(int a)
{
    return a == TV_N ? TV_N : !a;
}

static void rnd_expect_bool(fx *f, const char *expr, const int *want)
{
    sl_cexpr *e;
    const sl_column *c = eval_ok(f, expr, SL_T_BOOL, &e);
    for (uint32_t r = 0; r < RND_ROWS; r++) {
        int got = sl_column_is_null(c, r) ? TV_N : ((const uint8_t *)c->data)[r] != 0;
        if (got != want[r])
            fail_msg("%s: row %u is %d, want %d", expr, r, got, want[r]);
    }
    sl_cexpr_free(e);
}

static void test_randomized(void **state)
{
    (void)state;
    fx *f = fx_new(rnd_cols, 4, SL_PREC_MS);
    rnd_data *x = calloc(1, sizeof(*x));
    int64_t *wi = calloc(RND_ROWS, sizeof(int64_t));
    double *wd = calloc(RND_ROWS, sizeof(double));
    int *wb = calloc(RND_ROWS, sizeof(int));
    char *wn = calloc(RND_ROWS + 1, 1);
    assert_true(x && wi && wd && wb && wn);
    for (uint32_t r = 0; r < RND_ROWS; r++) {
        x->in[r] = rnd_range(0, 9) == 0;
        x->bn[r] = rnd_range(0, 9) == 0;
        x->dn[r] = rnd_range(0, 9) == 0;
        x->fn[r] = rnd_range(0, 9) == 0;
        x->i[r] = (int32_t)rnd_range(-1000, 1000);
        x->b[r] = rnd_range(-1000000, 1000000);
        x->d[r] = (double)rnd_range(-1000000, 1000000) / 1024.0 + (double)rnd_range(0, 7) / 3.0;
        x->f[r] = (float)rnd_range(-50000, 50000) / 1000.0f;
        if (x->in[r])
            assert_int_equal(sl_column_append_null(col(f, 0)), 0);
        else
            assert_int_equal(sl_column_append_i64(col(f, 0), x->i[r]), 0);
        if (x->bn[r])
            assert_int_equal(sl_column_append_null(col(f, 1)), 0);
        else
            assert_int_equal(sl_column_append_i64(col(f, 1), x->b[r]), 0);
        if (x->dn[r])
            assert_int_equal(sl_column_append_null(col(f, 2)), 0);
        else
            assert_int_equal(sl_column_append_f64(col(f, 2), x->d[r]), 0);
        if (x->fn[r])
            assert_int_equal(sl_column_append_null(col(f, 3)), 0);
        else
            assert_int_equal(sl_column_append_f64(col(f, 3), x->f[r]), 0);
    }
    sl_block_seal(&f->blk);
    assert_int_equal(f->blk.nrows, RND_ROWS);

    /* i * 3 + b - 7 */
    for (uint32_t r = 0; r < RND_ROWS; r++) {
        wn[r] = x->in[r] || x->bn[r] ? 'N' : '-';
        wi[r] = (int64_t)x->i[r] * 3 + x->b[r] - 7;
    }
    check_i64(f, "i * 3 + b - 7", SL_T_BIGINT, wi, wn);

    /* b % (i + 1001): the divisor is never 0 */
    for (uint32_t r = 0; r < RND_ROWS; r++) {
        wn[r] = x->in[r] || x->bn[r] ? 'N' : '-';
        wi[r] = x->b[r] % ((int64_t)x->i[r] + 1001);
    }
    check_i64(f, "b % (i + 1001)", SL_T_BIGINT, wi, wn);

    /* d / 2.5 > f OR i IS NULL */
    for (uint32_t r = 0; r < RND_ROWS; r++) {
        int gt = x->dn[r] || x->fn[r] ? TV_N : (x->d[r] / 2.5 > (double)x->f[r]);
        wb[r] = tv_or(gt, x->in[r] ? TV_T : TV_F);
    }
    rnd_expect_bool(f, "d / 2.5 > f OR i IS NULL", wb);
    uint32_t k = 0;
    uint32_t *wsel = calloc(RND_ROWS, sizeof(uint32_t));
    assert_non_null(wsel);
    for (uint32_t r = 0; r < RND_ROWS; r++)
        if (wb[r] == TV_T)
            wsel[k++] = r;
    check_select(f, "d / 2.5 > f OR i IS NULL", wsel, k);

    /* CASE WHEN i > 0 THEN d ELSE -d END: a NULL i takes the ELSE branch */
    for (uint32_t r = 0; r < RND_ROWS; r++) {
        bool then = !x->in[r] && x->i[r] > 0;
        wn[r] = x->dn[r] ? 'N' : '-';
        wd[r] = then ? x->d[r] : -x->d[r];
    }
    check_f64(f, "CASE WHEN i > 0 THEN d ELSE -d END", SL_T_DOUBLE, wd, wn);

    /* i BETWEEN -100 AND 100 AND NOT (d < 0) */
    for (uint32_t r = 0; r < RND_ROWS; r++) {
        int a = x->in[r] ? TV_N : (x->i[r] >= -100 && x->i[r] <= 100);
        int neg = x->dn[r] ? TV_N : (x->d[r] < 0);
        wb[r] = tv_and(a, tv_not(neg));
    }
    rnd_expect_bool(f, "i BETWEEN -100 AND 100 AND NOT (d < 0)", wb);

    /* COALESCE(i, b) * 2 + IFNULL(f, 0) */
    for (uint32_t r = 0; r < RND_ROWS; r++) {
        wn[r] = x->in[r] && x->bn[r] ? 'N' : '-';
        int64_t c = x->in[r] ? x->b[r] : x->i[r];
        wd[r] = (double)(c * 2) + (x->fn[r] ? 0.0 : (double)x->f[r]);
    }
    check_f64(f, "COALESCE(i, b) * 2 + IFNULL(f, 0)", SL_T_DOUBLE, wd, wn);

    /* i IN (1, 2, 3, NULL) OR f >= d */
    for (uint32_t r = 0; r < RND_ROWS; r++) {
        int in = x->in[r] ? TV_N : (x->i[r] >= 1 && x->i[r] <= 3) ? TV_T : TV_N;
        int ge = x->fn[r] || x->dn[r] ? TV_N : ((double)x->f[r] >= x->d[r]);
        wb[r] = tv_or(in, ge);
    }
    rnd_expect_bool(f, "i IN (1, 2, 3, NULL) OR f >= d", wb);

    free(wsel);
    free(wn);
    free(wb);
    free(wd);
    free(wi);
    free(x);
    sl_block_fini(&f->blk);
    free(f);
}

/* ------------------------------------------------------------ main */

#define MAIN_TEST(fn) cmocka_unit_test_setup_teardown(fn, setup_main, fx_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        MAIN_TEST(test_arith_int),
        MAIN_TEST(test_arith_float),
        MAIN_TEST(test_arith_const_column),
        MAIN_TEST(test_const_columns),
        MAIN_TEST(test_arith_errors),
        cmocka_unit_test_setup_teardown(test_overflow_edges, setup_edge, fx_teardown),
        cmocka_unit_test_setup_teardown(test_overflow_edges_b, setup_edge, fx_teardown),
        MAIN_TEST(test_timestamp_arith),
        MAIN_TEST(test_compare_numbers),
        MAIN_TEST(test_compare_unsigned),
        cmocka_unit_test_setup_teardown(test_compare_exact_64bit, setup_edge, fx_teardown),
        MAIN_TEST(test_compare_timestamps),
        MAIN_TEST(test_compare_strings),
        cmocka_unit_test_setup_teardown(test_logic_truth_table, setup_logic, fx_teardown),
        MAIN_TEST(test_is_null),
        MAIN_TEST(test_in),
        MAIN_TEST(test_between),
        MAIN_TEST(test_like),
        cmocka_unit_test_setup_teardown(test_like_pathological, setup_long, fx_teardown),
        MAIN_TEST(test_case),
        MAIN_TEST(test_if),
        MAIN_TEST(test_cast_columns),
        MAIN_TEST(test_cast_every_type),
        MAIN_TEST(test_cast_constants),
        MAIN_TEST(test_func_math),
        MAIN_TEST(test_func_text),
        MAIN_TEST(test_func_null_handling),
        MAIN_TEST(test_const_folding),
        MAIN_TEST(test_now),
        MAIN_TEST(test_select),
        MAIN_TEST(test_refusals),
        MAIN_TEST(test_binder_values),
        cmocka_unit_test_setup_teardown(test_precision_us, setup_us, fx_teardown),
        cmocka_unit_test_setup_teardown(test_empty_block, setup_empty, fx_teardown),
        MAIN_TEST(test_reuse),
        cmocka_unit_test(test_randomized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
