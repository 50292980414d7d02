/*
 * test_agg.c - unit tests of the aggregate functions (common/expr/agg.h).
 *
 * Every expected value is written by hand or computed by a trivial loop in the test. The
 * central helper, check_agg(), runs one input through every way the engine can feed an
 * aggregate (one call for one group; grouped with other groups beside it; row by row;
 * split at every point and merged; encoded, decoded and merged; every truncation of the
 * encoding) and checks each outcome against the same hand-written expectation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/expr/agg.h"

/* ---------------------------------------------------------------------------------------
 * Column builders
 * ------------------------------------------------------------------------------------- */

#define NARG(T, ...) (sizeof((T[]){__VA_ARGS__}) / sizeof(T))
/* nm is NULL or a mask string: 'N' at position i makes row i NULL. */
#define COL_I(c, t, nm, ...)                                                                 \
    col_i(c, t, nm, NARG(int64_t, __VA_ARGS__), (const int64_t[]){__VA_ARGS__})
#define COL_U(c, t, nm, ...)                                                                 \
    col_u(c, t, nm, NARG(uint64_t, __VA_ARGS__), (const uint64_t[]){__VA_ARGS__})
#define COL_D(c, t, nm, ...)                                                                 \
    col_d(c, t, nm, NARG(double, __VA_ARGS__), (const double[]){__VA_ARGS__})
/* A NULL pointer element is a NULL row. */
#define COL_S(c, t, ...) col_s(c, t, NARG(const char *, __VA_ARGS__), (const char *[]){__VA_ARGS__})

static bool is_n(const char *nm, size_t i)
{
    return nm != NULL && nm[i] == 'N';
}

static void col_i(sl_column *c, sl_type t, const char *nm, size_t n, const int64_t *v)
{
    sl_column_init(c, t, 0);
    for (size_t i = 0; i < n; i++) {
        int rc;
        if (is_n(nm, i))
            rc = sl_column_append_null(c);
        else if (t == SL_T_BOOL)
            rc = sl_column_append_bool(c, v[i] != 0);
        else
            rc = sl_column_append_i64(c, v[i]);
        assert_int_equal(rc, 0);
    }
}

static void col_u(sl_column *c, sl_type t, const char *nm, size_t n, const uint64_t *v)
{
    sl_column_init(c, t, 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(is_n(nm, i) ? sl_column_append_null(c) : sl_column_append_u64(c, v[i]),
                         0);
}

static void col_d(sl_column *c, sl_type t, const char *nm, size_t n, const double *v)
{
    sl_column_init(c, t, 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(is_n(nm, i) ? sl_column_append_null(c) : sl_column_append_f64(c, v[i]),
                         0);
}

static void col_s(sl_column *c, sl_type t, size_t n, const char **v)
{
    sl_column_init(c, t, 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(v[i] == NULL ? sl_column_append_null(c)
                                      : sl_column_append_str(c, v[i], (uint32_t)strlen(v[i])),
                         0);
}

/* A constant column of n copies of v. */
static void col_const(sl_column *c, sl_type t, sl_value v, uint32_t n)
{
    sl_column_init(c, t, 0);
    assert_int_equal(sl_column_set_const(c, &v, n), 0);
    assert_true(c->is_const);
}

/* ---------------------------------------------------------------------------------------
 * Expectations
 * ------------------------------------------------------------------------------------- */

typedef enum ekind { E_NULL, E_I64, E_U64, E_F64, E_NAN, E_STR, E_ERR } ekind;

typedef struct expect {
    ekind kind;
    int64_t i;
    uint64_t u;
    double d;
    double tol; /* relative tolerance for E_F64; 0 = exact */
    const char *s;
    int err;
    const char *msg;
} expect;

#define XNULL ((expect){.kind = E_NULL})
#define XI(v) ((expect){.kind = E_I64, .i = (v)})
#define XU(v) ((expect){.kind = E_U64, .u = (v)})
#define XD(v) ((expect){.kind = E_F64, .d = (v)})
#define XDT(v, t) ((expect){.kind = E_F64, .d = (v), .tol = (t)})
#define XNAN ((expect){.kind = E_NAN})
#define XS(v) ((expect){.kind = E_STR, .s = (v)})
#define XERR(c, m) ((expect){.kind = E_ERR, .err = (c), .msg = (m)})

static int g_line;          /* line of the CHECK being run, for failure messages */
static const char *g_path;  /* which path of check_agg is running */

/* Finalizes st into a fresh column and compares it with e. */
static void check_state(const sl_agg *a, const void *st, const expect *e)
{
    sl_column out;
    sl_column_init(&out, sl_agg_result_type(a), sl_agg_result_width(a));
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_agg_finalize(a, st, &out, &err);
    if (e->kind == E_ERR) {
        if (rc != e->err || strcmp(err.msg, e->msg) != 0 || out.nrows != 0)
            fail_msg("line %d (%s): want error %d '%s', got %d '%s'", g_line, g_path, e->err,
                     e->msg, rc, err.msg);
        sl_column_fini(&out);
        return;
    }
    if (rc != 0 || out.nrows != 1)
        fail_msg("line %d (%s): finalize rc %d rows %u", g_line, g_path, rc, out.nrows);
    bool null = sl_column_is_null(&out, 0);
    if (e->kind == E_NULL) {
        if (!null)
            fail_msg("line %d (%s): want NULL", g_line, g_path);
    } else if (null) {
        fail_msg("line %d (%s): unexpected NULL", g_line, g_path);
    }
    switch (e->kind) {
    case E_I64: {
        int64_t v = sl_column_get_i64(&out, 0);
        if (v != e->i)
            fail_msg("line %d (%s): want %lld got %lld", g_line, g_path, (long long)e->i,
                     (long long)v);
        break;
    }
    case E_U64: {
        uint64_t v = sl_column_get_u64(&out, 0);
        if (v != e->u)
            fail_msg("line %d (%s): want %llu got %llu", g_line, g_path,
                     (unsigned long long)e->u, (unsigned long long)v);
        break;
    }
    case E_F64: {
        double v = sl_column_get_f64(&out, 0);
        bool ok = e->tol == 0 ? v == e->d : fabs(v - e->d) <= e->tol * fabs(e->d);
        if (!ok)
            fail_msg("line %d (%s): want %.17g got %.17g", g_line, g_path, e->d, v);
        break;
    }
    case E_NAN:
        if (!isnan(sl_column_get_f64(&out, 0)))
            fail_msg("line %d (%s): want NaN got %.17g", g_line, g_path,
                     sl_column_get_f64(&out, 0));
        break;
    case E_STR: {
        uint32_t len;
        const char *p = sl_column_get_str(&out, 0, &len);
        if (len != strlen(e->s) || memcmp(p, e->s, len) != 0)
            fail_msg("line %d (%s): want '%s' got '%.*s'", g_line, g_path, e->s, (int)len, p);
        break;
    }
    default:
        break;
    }
    sl_column_fini(&out);
}

static sl_agg *mk_agg(sl_agg_kind k, const sl_column *arg)
{
    sl_agg *a = NULL;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_agg_create(k, arg != NULL ? arg->type : SL_T_BIGINT, arg != NULL ? arg->width : 0,
                           &a, &err);
    if (rc != 0)
        fail_msg("line %d: create %s: %s", g_line, sl_agg_name(k), err.msg);
    assert_int_equal(sl_agg_state_size(a) % 8, 0);
    return a;
}

static void upd(const sl_agg *a, uint8_t *st, size_t stride, const uint32_t *gids,
                const sl_column *arg, const sl_column *ts, uint32_t from, uint32_t n)
{
    assert_int_equal(sl_agg_update(a, st, stride, gids, arg, ts, from, n), 0);
}

/* The points at which check_agg splits an input: all of them for small inputs. */
static bool split_here(uint32_t s, uint32_t n)
{
    return n <= 40 || s < 18 || s + 3 > n || s % 13 == 0 || s == n / 2;
}

/*
 * Runs aggregate k over arg (and ts) through every feeding path and checks each result
 * against e. arg may be NULL for COUNT(*) (then ts gives the row count).
 */
static void check_agg(sl_agg_kind k, const sl_column *arg, const sl_column *ts, expect e)
{
    sl_agg *a = mk_agg(k, arg);
    uint32_t n = arg != NULL ? arg->nrows : ts->nrows;
    size_t sz = sl_agg_state_size(a);
    expect empty = k == SL_AGG_COUNT || k == SL_AGG_COUNT_STAR ? XI(0) : XNULL;
    uint8_t *st = calloc(1, sz), *s2 = calloc(1, sz), *s3 = calloc(1, sz);
    assert_non_null(st);
    assert_non_null(s2);
    assert_non_null(s3);

    g_path = "one pass";
    sl_agg_state_init(a, st);
    check_state(a, st, &empty);
    upd(a, st, sz, NULL, arg, ts, 0, n);
    check_state(a, st, &e);

    /* Grouped: every row to group 1 of three, with a stride wider than a state. */
    g_path = "grouped";
    size_t stride = sz + 8;
    uint8_t *gs = calloc(3, stride);
    uint32_t *gids = calloc((size_t)n + 1, sizeof *gids);
    for (uint32_t i = 0; i < n; i++)
        gids[i] = 1;
    for (int g = 0; g < 3; g++)
        sl_agg_state_init(a, gs + g * stride);
    upd(a, gs, stride, gids, arg, ts, 0, n);
    check_state(a, gs, &empty);
    check_state(a, gs + stride, &e);
    check_state(a, gs + 2 * stride, &empty);
    /* Again row by row, on top of what group 1 holds: only idempotent functions would
     * keep their value, so use fresh states. */
    for (int g = 0; g < 3; g++) {
        sl_agg_state_fini(a, gs + g * stride);
        sl_agg_state_init(a, gs + g * stride);
    }
    for (uint32_t i = 0; i < n; i++)
        upd(a, gs, stride, gids + i, arg, ts, i, 1);
    check_state(a, gs + stride, &e);
    for (int g = 0; g < 3; g++)
        sl_agg_state_fini(a, gs + g * stride);

    g_path = "row by row";
    sl_agg_state_init(a, s2);
    for (uint32_t i = 0; i < n; i++)
        upd(a, s2, sz, NULL, arg, ts, i, 1);
    check_state(a, s2, &e);
    sl_agg_state_fini(a, s2);

    g_path = "split and merge";
    for (uint32_t s = 0; s <= n; s++) {
        if (!split_here(s, n))
            continue;
        sl_agg_state_init(a, s2);
        sl_agg_state_init(a, s3);
        upd(a, s2, sz, NULL, arg, ts, 0, s);
        upd(a, s3, sz, NULL, arg, ts, s, n - s);
        assert_int_equal(sl_agg_merge(a, s2, s3), 0);
        check_state(a, s2, &e);
        sl_agg_state_fini(a, s2);
        sl_agg_state_fini(a, s3);
    }

    g_path = "encode/decode";
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_agg_state_encode(a, st, &b), 0);
    sl_reader r;
    sl_reader_init(&r, b.data, b.len);
    sl_agg_state_init(a, s2);
    assert_int_equal(sl_agg_state_decode(a, s2, &r), 0);
    assert_ptr_equal(r.p, r.end);
    check_state(a, s2, &e);
    /* Decoding over a state that holds a value replaces it (no leak under ASan). */
    sl_reader_init(&r, b.data, b.len);
    assert_int_equal(sl_agg_state_decode(a, s2, &r), 0);
    check_state(a, s2, &e);
    sl_agg_state_fini(a, s2);

    g_path = "truncated encoding";
    for (size_t len = 0; len < b.len; len++) {
        sl_agg_state_init(a, s2);
        sl_reader_init(&r, b.data, len);
        if (sl_agg_state_decode(a, s2, &r) != SL_ECORRUPT)
            fail_msg("line %d: truncation to %zu of %zu bytes decoded", g_line, len, b.len);
        assert_ptr_equal(r.p, b.data); /* a failed decode consumes nothing */
        check_state(a, s2, &empty);
        sl_agg_state_fini(a, s2);
    }

    g_path = "encoded halves merged";
    sl_buf_reset(&b);
    sl_agg_state_init(a, s2);
    sl_agg_state_init(a, s3);
    upd(a, s2, sz, NULL, arg, ts, 0, n / 2);
    upd(a, s3, sz, NULL, arg, ts, n / 2, n - n / 2);
    assert_int_equal(sl_agg_state_encode(a, s2, &b), 0);
    assert_int_equal(sl_agg_state_encode(a, s3, &b), 0);
    sl_agg_state_fini(a, s2);
    sl_agg_state_fini(a, s3);
    sl_agg_state_init(a, s2);
    sl_agg_state_init(a, s3);
    sl_reader_init(&r, b.data, b.len);
    assert_int_equal(sl_agg_state_decode(a, s2, &r), 0);
    assert_int_equal(sl_agg_state_decode(a, s3, &r), 0);
    assert_ptr_equal(r.p, r.end);
    assert_int_equal(sl_agg_merge(a, s2, s3), 0);
    check_state(a, s2, &e);
    sl_agg_state_fini(a, s2);
    sl_agg_state_fini(a, s3);

    sl_buf_fini(&b);
    sl_agg_state_fini(a, st);
    free(gids);
    free(gs);
    free(st);
    free(s2);
    free(s3);
    sl_agg_free(a);
}

#define CHECK(k, arg, ts, e)                                                                 \
    do {                                                                                     \
        g_line = __LINE__;                                                                   \
        check_agg(k, arg, ts, e);                                                            \
    } while (0)

/* ---------------------------------------------------------------------------------------
 * Table, lookup and types
 * ------------------------------------------------------------------------------------- */

static void test_lookup_names(void **unused)
{
    static const struct {
        const char *name;
        sl_agg_kind k;
    } names[] = {
        {"count", SL_AGG_COUNT}, {"COUNT", SL_AGG_COUNT},   {"Sum", SL_AGG_SUM},
        {"avg", SL_AGG_AVG},     {"MIN", SL_AGG_MIN},       {"max", SL_AGG_MAX},
        {"first", SL_AGG_FIRST}, {"Last", SL_AGG_LAST},     {"LAST_ROW", SL_AGG_LAST_ROW},
        {"spread", SL_AGG_SPREAD}, {"StdDev", SL_AGG_STDDEV},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        sl_agg_kind k = SL_AGG__COUNT;
        assert_true(sl_agg_lookup(names[i].name, &k));
        assert_int_equal(k, names[i].k);
    }
    const char *bad[] = {"", "counts", "coun", "median", "last row", "lastrow", "sum "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sl_agg_kind k;
        assert_false(sl_agg_lookup(bad[i], &k));
    }
    assert_string_equal(sl_agg_name(SL_AGG_COUNT_STAR), "count");
    assert_string_equal(sl_agg_name(SL_AGG_COUNT), "count");
    assert_string_equal(sl_agg_name(SL_AGG_LAST_ROW), "last_row");
    assert_string_equal(sl_agg_name(SL_AGG_STDDEV), "stddev");
    assert_string_equal(sl_agg_name(SL_AGG_SPREAD), "spread");
    for (int k = 0; k < SL_AGG__COUNT; k++)
        assert_int_equal(sl_agg_needs_ts((sl_agg_kind)k),
                         k == SL_AGG_FIRST || k == SL_AGG_LAST || k == SL_AGG_LAST_ROW);
}

/* The acceptance rules, written out independently of the implementation's table. */
static bool accepts(sl_agg_kind k, sl_type t)
{
    bool num = t >= SL_T_TINYINT && t <= SL_T_DOUBLE;
    switch (k) {
    case SL_AGG_SUM:
    case SL_AGG_AVG:
        return num || t == SL_T_BOOL;
    case SL_AGG_SPREAD:
        return num || t == SL_T_TIMESTAMP;
    case SL_AGG_STDDEV:
        return num;
    default:
        return true;
    }
}

static void test_create_types(void **unused)
{
    for (int k = 0; k < SL_AGG__COUNT; k++) {
        for (int t = SL_T_BOOL; t < SL_T__COUNT; t++) {
            sl_agg *a = (sl_agg *)1;
            sl_error err;
            sl_error_clear(&err);
            int rc = sl_agg_create((sl_agg_kind)k, (sl_type)t, 12, &a, &err);
            if (!accepts((sl_agg_kind)k, (sl_type)t)) {
                assert_int_equal(rc, SL_ETYPE);
                assert_null(a);
                char want[128];
                snprintf(want, sizeof want, "function %s does not accept %s",
                         k == SL_AGG_SUM      ? "SUM"
                         : k == SL_AGG_AVG    ? "AVG"
                         : k == SL_AGG_SPREAD ? "SPREAD"
                                              : "STDDEV",
                         sl_type_name((sl_type)t));
                assert_string_equal(err.msg, want);
                continue;
            }
            assert_int_equal(rc, 0);
            assert_int_equal(sl_agg_kind_of(a), k);
            assert_int_equal(sl_agg_state_size(a) % 8, 0);
            assert_true(sl_agg_state_size(a) >= 8);
            sl_type want = (sl_type)t;
            uint32_t ww = (t == SL_T_VARCHAR || t == SL_T_NCHAR) ? 12 : 0;
            switch (k) {
            case SL_AGG_COUNT_STAR:
            case SL_AGG_COUNT:
                want = SL_T_BIGINT;
                ww = 0;
                break;
            case SL_AGG_SUM:
                want = t == SL_T_FLOAT || t == SL_T_DOUBLE                ? SL_T_DOUBLE
                       : (t >= SL_T_UTINYINT && t <= SL_T_UBIGINT) ? SL_T_UBIGINT
                                                                   : SL_T_BIGINT;
                ww = 0;
                break;
            case SL_AGG_AVG:
            case SL_AGG_SPREAD:
            case SL_AGG_STDDEV:
                want = SL_T_DOUBLE;
                ww = 0;
                break;
            default:
                break;
            }
            assert_int_equal(sl_agg_result_type(a), want);
            assert_int_equal(sl_agg_result_width(a), ww);
            sl_agg_free(a);
        }
    }
    sl_agg_free(NULL);
}

static void test_type_refusals(void **unused)
{
    static const struct {
        sl_agg_kind k;
        sl_type t;
        const char *msg;
    } cases[] = {
        {SL_AGG_SUM, SL_T_VARCHAR, "function SUM does not accept VARCHAR"},
        {SL_AGG_SUM, SL_T_TIMESTAMP, "function SUM does not accept TIMESTAMP"},
        {SL_AGG_AVG, SL_T_NCHAR, "function AVG does not accept NCHAR"},
        {SL_AGG_AVG, SL_T_TIMESTAMP, "function AVG does not accept TIMESTAMP"},
        {SL_AGG_SPREAD, SL_T_BOOL, "function SPREAD does not accept BOOL"},
        {SL_AGG_SPREAD, SL_T_VARCHAR, "function SPREAD does not accept VARCHAR"},
        {SL_AGG_STDDEV, SL_T_BOOL, "function STDDEV does not accept BOOL"},
        {SL_AGG_STDDEV, SL_T_TIMESTAMP, "function STDDEV does not accept TIMESTAMP"},
        {SL_AGG_STDDEV, SL_T_NCHAR, "function STDDEV does not accept NCHAR"},
        {SL_AGG_MIN, SL_T_NULL, "function MIN does not accept NULL"},
        {SL_AGG_COUNT, SL_T__COUNT, "function COUNT does not accept UNKNOWN"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sl_agg *a = NULL;
        sl_error err;
        sl_error_clear(&err);
        assert_int_equal(sl_agg_create(cases[i].k, cases[i].t, 0, &a, &err), SL_ETYPE);
        assert_int_equal(err.code, SL_ETYPE);
        assert_string_equal(err.msg, cases[i].msg);
        assert_null(a);
    }
    /* COUNT(*) ignores the argument type. */
    sl_agg *a = NULL;
    assert_int_equal(sl_agg_create(SL_AGG_COUNT_STAR, SL_T_NULL, 0, &a, NULL), 0);
    assert_int_equal(sl_agg_result_type(a), SL_T_BIGINT);
    sl_agg_free(a);
    assert_int_equal(sl_agg_create(SL_AGG__COUNT, SL_T_INT, 0, &a, NULL), SL_EINVAL);
    assert_int_equal(sl_agg_create(SL_AGG_SUM, SL_T__COUNT, 0, &a, NULL), SL_ETYPE);
}

/* ---------------------------------------------------------------------------------------
 * COUNT
 * ------------------------------------------------------------------------------------- */

static void test_count(void **unused)
{
    sl_column c, e, s, cn, cv;
    COL_I(&c, SL_T_INT, ".N..N", 1, 0, 3, 4, 0);
    CHECK(SL_AGG_COUNT_STAR, &c, NULL, XI(5));
    CHECK(SL_AGG_COUNT_STAR, NULL, &c, XI(5));
    CHECK(SL_AGG_COUNT, &c, NULL, XI(3));
    sl_column_fini(&c);
    COL_I(&c, SL_T_TIMESTAMP, "NNN", 0, 0, 0);
    CHECK(SL_AGG_COUNT, &c, NULL, XI(0));
    CHECK(SL_AGG_COUNT_STAR, &c, NULL, XI(3));
    sl_column_fini(&c);
    sl_column_init(&e, SL_T_DOUBLE, 0);
    CHECK(SL_AGG_COUNT, &e, NULL, XI(0));
    CHECK(SL_AGG_COUNT_STAR, &e, NULL, XI(0));
    sl_column_fini(&e);
    COL_S(&s, SL_T_VARCHAR, "a", NULL, "", NULL, "bc");
    CHECK(SL_AGG_COUNT, &s, NULL, XI(3));
    sl_column_fini(&s);
    col_const(&cn, SL_T_BIGINT, sl_value_null(SL_T_BIGINT), 7);
    CHECK(SL_AGG_COUNT, &cn, NULL, XI(0));
    CHECK(SL_AGG_COUNT_STAR, &cn, NULL, XI(7));
    sl_column_fini(&cn);
    col_const(&cv, SL_T_NCHAR, sl_value_str(SL_T_NCHAR, "x", 1), 9);
    CHECK(SL_AGG_COUNT, &cv, NULL, XI(9));
    sl_column_fini(&cv);

    /* A long column with an irregular NULL pattern: the splits start the bitmap count at
     * every alignment. */
    sl_column l;
    sl_column_init(&l, SL_T_BOOL, 0);
    int64_t want = 0;
    for (int i = 0; i < 300; i++) {
        bool null = (i * 7 + i / 5) % 3 == 0;
        want += !null;
        assert_int_equal(null ? sl_column_append_null(&l) : sl_column_append_bool(&l, i & 1),
                         0);
    }
    CHECK(SL_AGG_COUNT, &l, NULL, XI(want));
    CHECK(SL_AGG_COUNT_STAR, &l, NULL, XI(300));
    sl_column_fini(&l);
    /* Long runs of NULLs: whole 64-bit words of the bitmap set. */
    sl_column_init(&l, SL_T_INT, 0);
    for (int i = 0; i < 200; i++)
        assert_int_equal(i == 150 ? sl_column_append_i64(&l, 1) : sl_column_append_null(&l), 0);
    CHECK(SL_AGG_COUNT, &l, NULL, XI(1));
    sl_column_fini(&l);
}

/* ---------------------------------------------------------------------------------------
 * SUM and AVG
 * ------------------------------------------------------------------------------------- */

static void test_sum_types(void **unused)
{
    sl_column c;
    COL_I(&c, SL_T_TINYINT, "...N.", -128, 127, -1, 0, 100);
    CHECK(SL_AGG_SUM, &c, NULL, XI(98));
    CHECK(SL_AGG_AVG, &c, NULL, XD(24.5));
    sl_column_fini(&c);
    COL_I(&c, SL_T_SMALLINT, NULL, -32768, 32767, 5);
    CHECK(SL_AGG_SUM, &c, NULL, XI(4));
    sl_column_fini(&c);
    COL_I(&c, SL_T_INT, "..N", INT32_MIN, -1, 7);
    CHECK(SL_AGG_SUM, &c, NULL, XI(-2147483649LL));
    CHECK(SL_AGG_AVG, &c, NULL, XD(-1073741824.5));
    sl_column_fini(&c);
    COL_I(&c, SL_T_BIGINT, NULL, 1, 2, 3, -10);
    CHECK(SL_AGG_SUM, &c, NULL, XI(-4));
    CHECK(SL_AGG_AVG, &c, NULL, XD(-1.0));
    sl_column_fini(&c);
    COL_U(&c, SL_T_UTINYINT, ".N..", 255, 9, 255, 1);
    CHECK(SL_AGG_SUM, &c, NULL, XU(511));
    sl_column_fini(&c);
    COL_U(&c, SL_T_USMALLINT, NULL, 65535, 1);
    CHECK(SL_AGG_SUM, &c, NULL, XU(65536));
    CHECK(SL_AGG_AVG, &c, NULL, XD(32768.0));
    sl_column_fini(&c);
    COL_U(&c, SL_T_UINT, NULL, UINT32_MAX, UINT32_MAX);
    CHECK(SL_AGG_SUM, &c, NULL, XU(8589934590ULL));
    sl_column_fini(&c);
    COL_U(&c, SL_T_UBIGINT, NULL, UINT64_MAX - 1, 1);
    CHECK(SL_AGG_SUM, &c, NULL, XU(UINT64_MAX));
    sl_column_fini(&c);
    COL_D(&c, SL_T_FLOAT, "..N.", 1.5, 2.25, 99, -0.75);
    CHECK(SL_AGG_SUM, &c, NULL, XD(3.0));
    CHECK(SL_AGG_AVG, &c, NULL, XD(1.0));
    sl_column_fini(&c);
    COL_D(&c, SL_T_DOUBLE, NULL, 0.5, 0.25, -2);
    CHECK(SL_AGG_SUM, &c, NULL, XD(-1.25));
    sl_column_fini(&c);
    COL_I(&c, SL_T_BOOL, "...N.", 1, 0, 1, 0, 1);
    CHECK(SL_AGG_SUM, &c, NULL, XI(3));
    CHECK(SL_AGG_AVG, &c, NULL, XD(0.75));
    sl_column_fini(&c);

    /* All NULL and empty: NULL. */
    COL_I(&c, SL_T_INT, "NN", 1, 2);
    CHECK(SL_AGG_SUM, &c, NULL, XNULL);
    CHECK(SL_AGG_AVG, &c, NULL, XNULL);
    sl_column_fini(&c);
    sl_column_init(&c, SL_T_UBIGINT, 0);
    CHECK(SL_AGG_SUM, &c, NULL, XNULL);
    CHECK(SL_AGG_AVG, &c, NULL, XNULL);
    sl_column_fini(&c);
    sl_column_init(&c, SL_T_DOUBLE, 0);
    CHECK(SL_AGG_SUM, &c, NULL, XNULL);
    sl_column_fini(&c);
}

static void test_sum_overflow(void **unused)
{
    sl_column c;
    COL_I(&c, SL_T_BIGINT, NULL, INT64_MAX, INT64_MAX);
    CHECK(SL_AGG_SUM, &c, NULL, XERR(SL_EOVERFLOW, "SUM overflows BIGINT"));
    /* AVG of the same is fine: the mean is INT64_MAX, 2^63 as a double. */
    CHECK(SL_AGG_AVG, &c, NULL, XD(9223372036854775808.0));
    sl_column_fini(&c);
    COL_I(&c, SL_T_BIGINT, NULL, INT64_MAX, -5, 5);
    CHECK(SL_AGG_SUM, &c, NULL, XI(INT64_MAX));
    sl_column_fini(&c);
    /* The running sum leaves int64 and comes back: exact. */
    COL_I(&c, SL_T_BIGINT, NULL, INT64_MAX, INT64_MAX, -INT64_MAX, 1, -1);
    CHECK(SL_AGG_SUM, &c, NULL, XI(INT64_MAX));
    sl_column_fini(&c);
    COL_I(&c, SL_T_BIGINT, NULL, INT64_MIN, -1);
    CHECK(SL_AGG_SUM, &c, NULL, XERR(SL_EOVERFLOW, "SUM overflows BIGINT"));
    sl_column_fini(&c);
    COL_I(&c, SL_T_BIGINT, NULL, INT64_MIN, -1, 1);
    CHECK(SL_AGG_SUM, &c, NULL, XI(INT64_MIN));
    sl_column_fini(&c);
    COL_U(&c, SL_T_UBIGINT, NULL, UINT64_MAX, 1);
    CHECK(SL_AGG_SUM, &c, NULL, XERR(SL_EOVERFLOW, "SUM overflows BIGINT UNSIGNED"));
    CHECK(SL_AGG_AVG, &c, NULL, XD(9223372036854775808.0));
    sl_column_fini(&c);
    /* Above INT64_MAX but within uint64. */
    COL_U(&c, SL_T_UBIGINT, NULL, 1ULL << 63, (1ULL << 63) - 1);
    CHECK(SL_AGG_SUM, &c, NULL, XU(UINT64_MAX));
    sl_column_fini(&c);
    COL_U(&c, SL_T_UBIGINT, NULL, 10000000000000000000ULL, 5000000000000000000ULL);
    CHECK(SL_AGG_SUM, &c, NULL, XU(15000000000000000000ULL));
    CHECK(SL_AGG_AVG, &c, NULL, XD(7500000000000000000.0));
    sl_column_fini(&c);
    COL_U(&c, SL_T_UBIGINT, NULL, UINT64_MAX, UINT64_MAX);
    CHECK(SL_AGG_AVG, &c, NULL, XD(18446744073709551616.0));
    sl_column_fini(&c);
    /* AVG of negative integers: the remainder keeps the quotient's sign. */
    COL_I(&c, SL_T_TINYINT, NULL, -3, -4);
    CHECK(SL_AGG_AVG, &c, NULL, XD(-3.5));
    sl_column_fini(&c);
    COL_I(&c, SL_T_INT, NULL, -7, 2);
    CHECK(SL_AGG_AVG, &c, NULL, XD(-2.5));
    sl_column_fini(&c);
    /* Correctly rounded: 5 / 3, not 1 + 2 / 3 (which is one ulp lower). */
    COL_I(&c, SL_T_INT, NULL, 1, 2, 2);
    CHECK(SL_AGG_AVG, &c, NULL, XD(5.0 / 3.0));
    sl_column_fini(&c);

    /* Constant columns: n copies at once. */
    col_const(&c, SL_T_BIGINT, sl_value_int(SL_T_BIGINT, INT64_MAX), 3);
    CHECK(SL_AGG_SUM, &c, NULL, XERR(SL_EOVERFLOW, "SUM overflows BIGINT"));
    sl_column_fini(&c);
    col_const(&c, SL_T_INT, sl_value_int(SL_T_INT, -7), 5);
    CHECK(SL_AGG_SUM, &c, NULL, XI(-35));
    CHECK(SL_AGG_AVG, &c, NULL, XD(-7.0));
    sl_column_fini(&c);
    col_const(&c, SL_T_UBIGINT, sl_value_uint(SL_T_UBIGINT, 1ULL << 62), 3);
    CHECK(SL_AGG_SUM, &c, NULL, XU(3ULL << 62));
    sl_column_fini(&c);
    col_const(&c, SL_T_FLOAT, sl_value_double(SL_T_FLOAT, 0.5), 3);
    CHECK(SL_AGG_SUM, &c, NULL, XD(1.5));
    sl_column_fini(&c);
    col_const(&c, SL_T_BOOL, sl_value_bool(true), 4);
    CHECK(SL_AGG_SUM, &c, NULL, XI(4));
    sl_column_fini(&c);
    col_const(&c, SL_T_DOUBLE, sl_value_null(SL_T_DOUBLE), 4);
    CHECK(SL_AGG_SUM, &c, NULL, XNULL);
    CHECK(SL_AGG_AVG, &c, NULL, XNULL);
    sl_column_fini(&c);
}

/* Long columns run the vectorised loops; the expectation is a plain loop in the test. */
static void test_sum_long(void **unused)
{
    sl_column c;
    int64_t want = 0, cnt = 0;
    sl_column_init(&c, SL_T_INT, 0);
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(sl_column_append_i64(&c, INT32_MAX), 0);
        want += INT32_MAX;
    }
    CHECK(SL_AGG_SUM, &c, NULL, XI(want));
    sl_column_fini(&c);

    want = 0;
    sl_column_init(&c, SL_T_TINYINT, 0);
    for (int i = 0; i < 1000; i++) {
        if (i % 7 == 3) {
            assert_int_equal(sl_column_append_null(&c), 0);
            continue;
        }
        int v = i % 256 - 128;
        assert_int_equal(sl_column_append_i64(&c, v), 0);
        want += v;
        cnt++;
    }
    CHECK(SL_AGG_SUM, &c, NULL, XI(want));
    CHECK(SL_AGG_COUNT, &c, NULL, XI(cnt));
    sl_column_fini(&c);

    uint64_t uw = 0;
    sl_column_init(&c, SL_T_USMALLINT, 0);
    for (int i = 0; i < 777; i++) {
        assert_int_equal(sl_column_append_u64(&c, 65535 - (uint64_t)i), 0);
        uw += 65535 - (uint64_t)i;
    }
    CHECK(SL_AGG_SUM, &c, NULL, XU(uw));
    sl_column_fini(&c);

    want = 0;
    sl_column_init(&c, SL_T_BOOL, 0);
    for (int i = 0; i < 333; i++) {
        assert_int_equal(sl_column_append_bool(&c, i % 3 != 0), 0);
        want += i % 3 != 0;
    }
    CHECK(SL_AGG_SUM, &c, NULL, XI(want));
    sl_column_fini(&c);
}

static void test_sum_float(void **unused)
{
    sl_column c;
    /* A plain double sum gives 0 here; the compensated sum is exact in every split. */
    COL_D(&c, SL_T_DOUBLE, NULL, 1e16, 1, 1, -1e16);
    CHECK(SL_AGG_SUM, &c, NULL, XD(2.0));
    CHECK(SL_AGG_AVG, &c, NULL, XD(0.5));
    sl_column_fini(&c);
    COL_D(&c, SL_T_DOUBLE, NULL, 0.5, INFINITY, 1);
    CHECK(SL_AGG_SUM, &c, NULL, XD(INFINITY));
    sl_column_fini(&c);
    COL_D(&c, SL_T_DOUBLE, NULL, INFINITY, -INFINITY);
    CHECK(SL_AGG_SUM, &c, NULL, XNAN);
    sl_column_fini(&c);
    COL_D(&c, SL_T_FLOAT, NULL, 1, NAN, 2);
    CHECK(SL_AGG_SUM, &c, NULL, XNAN);
    CHECK(SL_AGG_AVG, &c, NULL, XNAN);
    sl_column_fini(&c);
    COL_D(&c, SL_T_DOUBLE, NULL, 1.7976931348623157e308, 1.7976931348623157e308);
    CHECK(SL_AGG_SUM, &c, NULL, XD(INFINITY));
    sl_column_fini(&c);
    /* FLOAT inputs are summed in double: 2^24 + 1 is not a float but is the sum. */
    COL_D(&c, SL_T_FLOAT, NULL, 16777216.0, 1.0);
    CHECK(SL_AGG_SUM, &c, NULL, XD(16777217.0));
    sl_column_fini(&c);
}

/*
 * A constant column adds n copies at once; the product's rounding error is kept like the
 * rounding errors of row-by-row addition, so both give the exact sum here.
 */
static void test_sum_const_exact(void **unused)
{
    sl_column c, rest, rows;
    col_const(&c, SL_T_DOUBLE, sl_value_double(SL_T_DOUBLE, 0.1), 3);
    COL_D(&rows, SL_T_DOUBLE, NULL, 0.1, 0.1, 0.1);
    COL_D(&rest, SL_T_DOUBLE, NULL, -0.30000000000000004);
    /* The exact sum is 3 * 0.1 (as a double) - 0.30000000000000004: the rounding error of
     * the product, computed here in long double where both steps are exact. */
    long double want = (long double)0.1 * 3 - (long double)0.30000000000000004;
    assert_true(want != 0);
    expect e = XD((double)want);
    g_line = __LINE__;
    const sl_column *first[2] = {&c, &rows};
    for (int k = 0; k < 2; k++) {
        sl_agg *a = mk_agg(SL_AGG_SUM, &c);
        uint64_t st[8];
        sl_agg_state_init(a, st);
        upd(a, (uint8_t *)st, 0, NULL, first[k], NULL, 0, 3);
        upd(a, (uint8_t *)st, 0, NULL, &rest, NULL, 0, 1);
        g_path = k == 0 ? "constant" : "rows";
        check_state(a, st, &e);
        sl_agg_free(a);
    }
    sl_column_fini(&c);
    sl_column_fini(&rows);
    sl_column_fini(&rest);
}

/* ---------------------------------------------------------------------------------------
 * MIN, MAX, SPREAD
 * ------------------------------------------------------------------------------------- */

static void test_minmax_numeric(void **unused)
{
    sl_column c;
    COL_I(&c, SL_T_TINYINT, "..N..", 5, -128, -128, 127, 0);
    CHECK(SL_AGG_MIN, &c, NULL, XI(-128));
    CHECK(SL_AGG_MAX, &c, NULL, XI(127));
    CHECK(SL_AGG_SPREAD, &c, NULL, XD(255.0));
    sl_column_fini(&c);
    COL_I(&c, SL_T_SMALLINT, "N..", -32768, 300, -2);
    CHECK(SL_AGG_MIN, &c, NULL, XI(-2));
    CHECK(SL_AGG_MAX, &c, NULL, XI(300));
    sl_column_fini(&c);
    COL_I(&c, SL_T_INT, NULL, 3, -2, 10, 10);
    CHECK(SL_AGG_MIN, &c, NULL, XI(-2));
    CHECK(SL_AGG_MAX, &c, NULL, XI(10));
    CHECK(SL_AGG_SPREAD, &c, NULL, XD(12.0));
    sl_column_fini(&c);
    COL_I(&c, SL_T_BIGINT, NULL, INT64_MAX, INT64_MIN, 0);
    CHECK(SL_AGG_MIN, &c, NULL, XI(INT64_MIN));
    CHECK(SL_AGG_MAX, &c, NULL, XI(INT64_MAX));
    CHECK(SL_AGG_SPREAD, &c, NULL, XD(18446744073709551615.0));
    sl_column_fini(&c);
    COL_U(&c, SL_T_UTINYINT, ".N.", 200, 255, 7);
    CHECK(SL_AGG_MIN, &c, NULL, XU(7));
    CHECK(SL_AGG_MAX, &c, NULL, XU(200));
    sl_column_fini(&c);
    COL_U(&c, SL_T_USMALLINT, NULL, 65535, 1);
    CHECK(SL_AGG_MAX, &c, NULL, XU(65535));
    sl_column_fini(&c);
    COL_U(&c, SL_T_UINT, NULL, 4000000000u, 5);
    CHECK(SL_AGG_MAX, &c, NULL, XU(4000000000u));
    CHECK(SL_AGG_MIN, &c, NULL, XU(5));
    sl_column_fini(&c);
    COL_U(&c, SL_T_UBIGINT, NULL, UINT64_MAX, 0, 1ULL << 63);
    CHECK(SL_AGG_MIN, &c, NULL, XU(0));
    CHECK(SL_AGG_MAX, &c, NULL, XU(UINT64_MAX));
    CHECK(SL_AGG_SPREAD, &c, NULL, XD(18446744073709551615.0));
    sl_column_fini(&c);
    COL_D(&c, SL_T_FLOAT, "N...", 0, 2.5, -1.25, 1e30);
    CHECK(SL_AGG_MIN, &c, NULL, XD(-1.25));
    CHECK(SL_AGG_MAX, &c, NULL, XD((double)1e30f));
    sl_column_fini(&c);
    COL_D(&c, SL_T_DOUBLE, NULL, 1.5, -2.5, -INFINITY, 7);
    CHECK(SL_AGG_MIN, &c, NULL, XD(-INFINITY));
    CHECK(SL_AGG_MAX, &c, NULL, XD(7));
    CHECK(SL_AGG_SPREAD, &c, NULL, XD(INFINITY));
    sl_column_fini(&c);
    COL_D(&c, SL_T_DOUBLE, NULL, 1.5, -2.5);
    CHECK(SL_AGG_SPREAD, &c, NULL, XD(4.0));
    sl_column_fini(&c);
    COL_I(&c, SL_T_TIMESTAMP, ".N..", 4000, 1, 1000, 2500);
    CHECK(SL_AGG_MIN, &c, NULL, XI(1000));
    CHECK(SL_AGG_MAX, &c, NULL, XI(4000));
    CHECK(SL_AGG_SPREAD, &c, NULL, XD(3000.0));
    sl_column_fini(&c);
    COL_I(&c, SL_T_BOOL, "..N", 0, 1, 0);
    CHECK(SL_AGG_MIN, &c, NULL, XI(0));
    CHECK(SL_AGG_MAX, &c, NULL, XI(1));
    sl_column_fini(&c);
    COL_I(&c, SL_T_BOOL, NULL, 1, 1);
    CHECK(SL_AGG_MIN, &c, NULL, XI(1));
    sl_column_fini(&c);
    /* One value: SPREAD 0. All NULL / empty: NULL. */
    COL_I(&c, SL_T_INT, "N.N", 0, 42, 0);
    CHECK(SL_AGG_SPREAD, &c, NULL, XD(0.0));
    CHECK(SL_AGG_MIN, &c, NULL, XI(42));
    sl_column_fini(&c);
    COL_I(&c, SL_T_SMALLINT, "NN", 1, 2);
    CHECK(SL_AGG_MIN, &c, NULL, XNULL);
    CHECK(SL_AGG_MAX, &c, NULL, XNULL);
    CHECK(SL_AGG_SPREAD, &c, NULL, XNULL);
    sl_column_fini(&c);
    sl_column_init(&c, SL_T_DOUBLE, 0);
    CHECK(SL_AGG_MIN, &c, NULL, XNULL);
    CHECK(SL_AGG_SPREAD, &c, NULL, XNULL);
    sl_column_fini(&c);
}

static void test_minmax_nan(void **unused)
{
    sl_column c;
    /* NaN sorts above every number, wherever it is in the input. */
    COL_D(&c, SL_T_DOUBLE, NULL, NAN, 2, 1);
    CHECK(SL_AGG_MIN, &c, NULL, XD(1));
    CHECK(SL_AGG_MAX, &c, NULL, XNAN);
    CHECK(SL_AGG_SPREAD, &c, NULL, XNAN);
    sl_column_fini(&c);
    COL_D(&c, SL_T_FLOAT, "..N", 2, NAN, 5);
    CHECK(SL_AGG_MIN, &c, NULL, XD(2));
    CHECK(SL_AGG_MAX, &c, NULL, XNAN);
    sl_column_fini(&c);
    COL_D(&c, SL_T_FLOAT, ".N.", NAN, 1, NAN);
    CHECK(SL_AGG_MIN, &c, NULL, XNAN);
    CHECK(SL_AGG_MAX, &c, NULL, XNAN);
    sl_column_fini(&c);
    col_const(&c, SL_T_DOUBLE, sl_value_double(SL_T_DOUBLE, NAN), 3);
    CHECK(SL_AGG_MIN, &c, NULL, XNAN);
    CHECK(SL_AGG_SPREAD, &c, NULL, XNAN);
    sl_column_fini(&c);
}

static void test_minmax_long(void **unused)
{
    static const sl_type types[] = {SL_T_TINYINT, SL_T_SMALLINT, SL_T_INT, SL_T_BIGINT,
                                    SL_T_FLOAT, SL_T_DOUBLE, SL_T_TIMESTAMP};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        for (int nulls = 0; nulls < 2; nulls++) {
            sl_column c;
            sl_column_init(&c, types[t], 0);
            int64_t lo = INT64_MAX, hi = INT64_MIN;
            for (int i = 0; i < 200; i++) {
                int64_t v = (i * 37) % 101 - 50;
                if (nulls && (i % 5 == 0 || i == 199)) {
                    assert_int_equal(sl_column_append_null(&c), 0);
                    continue;
                }
                if (types[t] == SL_T_FLOAT || types[t] == SL_T_DOUBLE)
                    assert_int_equal(sl_column_append_f64(&c, (double)v), 0);
                else
                    assert_int_equal(sl_column_append_i64(&c, v), 0);
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
            bool f = types[t] == SL_T_FLOAT || types[t] == SL_T_DOUBLE;
            CHECK(SL_AGG_MIN, &c, NULL, f ? XD((double)lo) : XI(lo));
            CHECK(SL_AGG_MAX, &c, NULL, f ? XD((double)hi) : XI(hi));
            CHECK(SL_AGG_SPREAD, &c, NULL, XD((double)(hi - lo)));
            sl_column_fini(&c);
        }
    }
    sl_column c;
    sl_column_init(&c, SL_T_UTINYINT, 0);
    uint64_t ulo = UINT64_MAX, uhi = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t v = (uint64_t)(i * 89 % 256);
        assert_int_equal(sl_column_append_u64(&c, v), 0);
        ulo = v < ulo ? v : ulo;
        uhi = v > uhi ? v : uhi;
    }
    CHECK(SL_AGG_MIN, &c, NULL, XU(ulo));
    CHECK(SL_AGG_MAX, &c, NULL, XU(uhi));
    sl_column_fini(&c);
}

static void test_minmax_string(void **unused)
{
    sl_column c;
    COL_S(&c, SL_T_VARCHAR, "b", "abc", NULL, "ab", "");
    CHECK(SL_AGG_MIN, &c, NULL, XS(""));
    CHECK(SL_AGG_MAX, &c, NULL, XS("b"));
    sl_column_fini(&c);
    COL_S(&c, SL_T_VARCHAR, "abc", "ab", "abd", NULL);
    CHECK(SL_AGG_MIN, &c, NULL, XS("ab"));
    CHECK(SL_AGG_MAX, &c, NULL, XS("abd"));
    sl_column_fini(&c);
    /* Bytewise: bytes above 0x7f sort after ASCII. */
    COL_S(&c, SL_T_NCHAR, "\xc3\xa9t\xc3\xa9", "zzz", "a");
    CHECK(SL_AGG_MAX, &c, NULL, XS("\xc3\xa9t\xc3\xa9"));
    CHECK(SL_AGG_MIN, &c, NULL, XS("a"));
    sl_column_fini(&c);
    /* Decreasing then increasing lengths make grouped states grow and reuse buffers. */
    COL_S(&c, SL_T_VARCHAR, "m", "lllll", "k", "jjjjjjjjjjjj", "a", "zz", "zzzzzzzzzzzzzzz");
    CHECK(SL_AGG_MIN, &c, NULL, XS("a"));
    CHECK(SL_AGG_MAX, &c, NULL, XS("zzzzzzzzzzzzzzz"));
    sl_column_fini(&c);
    COL_S(&c, SL_T_VARCHAR, NULL, NULL);
    CHECK(SL_AGG_MIN, &c, NULL, XNULL);
    CHECK(SL_AGG_MAX, &c, NULL, XNULL);
    sl_column_fini(&c);
    COL_S(&c, SL_T_VARCHAR, "", "");
    CHECK(SL_AGG_MAX, &c, NULL, XS(""));
    sl_column_fini(&c);
    col_const(&c, SL_T_VARCHAR, sl_value_str(SL_T_VARCHAR, "tag", 3), 6);
    CHECK(SL_AGG_MIN, &c, NULL, XS("tag"));
    CHECK(SL_AGG_MAX, &c, NULL, XS("tag"));
    sl_column_fini(&c);
    col_const(&c, SL_T_VARCHAR, sl_value_null(SL_T_VARCHAR), 6);
    CHECK(SL_AGG_MIN, &c, NULL, XNULL);
    sl_column_fini(&c);
}

/* ---------------------------------------------------------------------------------------
 * STDDEV
 * ------------------------------------------------------------------------------------- */

static void test_stddev(void **unused)
{
    sl_column c;
    static const sl_type types[] = {SL_T_TINYINT, SL_T_SMALLINT, SL_T_INT, SL_T_BIGINT,
                                    SL_T_UTINYINT, SL_T_USMALLINT, SL_T_UINT, SL_T_UBIGINT,
                                    SL_T_FLOAT, SL_T_DOUBLE};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        if (types[t] == SL_T_FLOAT || types[t] == SL_T_DOUBLE)
            COL_D(&c, types[t], "...N.....", 2, 4, 4, 100, 4, 5, 5, 7, 9);
        else if (types[t] >= SL_T_UTINYINT && types[t] <= SL_T_UBIGINT)
            COL_U(&c, types[t], "...N.....", 2, 4, 4, 100, 4, 5, 5, 7, 9);
        else
            COL_I(&c, types[t], "...N.....", 2, 4, 4, 100, 4, 5, 5, 7, 9);
        CHECK(SL_AGG_STDDEV, &c, NULL, XDT(2.0, 1e-12));
        sl_column_fini(&c);
    }
    COL_I(&c, SL_T_INT, "N.N", 0, 42, 0);
    CHECK(SL_AGG_STDDEV, &c, NULL, XD(0.0));
    sl_column_fini(&c);
    COL_I(&c, SL_T_INT, "NN", 0, 42);
    CHECK(SL_AGG_STDDEV, &c, NULL, XNULL);
    sl_column_fini(&c);
    sl_column_init(&c, SL_T_DOUBLE, 0);
    CHECK(SL_AGG_STDDEV, &c, NULL, XNULL);
    sl_column_fini(&c);
    col_const(&c, SL_T_DOUBLE, sl_value_double(SL_T_DOUBLE, 3.25), 10);
    CHECK(SL_AGG_STDDEV, &c, NULL, XD(0.0));
    sl_column_fini(&c);
    col_const(&c, SL_T_INT, sl_value_null(SL_T_INT), 10);
    CHECK(SL_AGG_STDDEV, &c, NULL, XNULL);
    sl_column_fini(&c);
    /* A large offset: {4, 7, 13, 16} + 1e9 has variance 22.5. */
    COL_I(&c, SL_T_BIGINT, NULL, 1000000004, 1000000007, 1000000013, 1000000016);
    CHECK(SL_AGG_STDDEV, &c, NULL, XDT(sqrt(22.5), 1e-9));
    sl_column_fini(&c);
    COL_D(&c, SL_T_DOUBLE, NULL, 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16);
    CHECK(SL_AGG_STDDEV, &c, NULL, XDT(sqrt(22.5), 1e-9));
    sl_column_fini(&c);
    /* 1..n has population variance (n^2 - 1) / 12. */
    sl_column_init(&c, SL_T_INT, 0);
    for (int i = 1; i <= 100; i++)
        assert_int_equal(sl_column_append_i64(&c, i), 0);
    CHECK(SL_AGG_STDDEV, &c, NULL, XDT(sqrt((100.0 * 100 - 1) / 12), 1e-9));
    sl_column_fini(&c);
}

/* ---------------------------------------------------------------------------------------
 * FIRST, LAST, LAST_ROW
 * ------------------------------------------------------------------------------------- */

static void test_select_ints(void **unused)
{
    sl_column ts, v;
    /* Unordered timestamps with ties: 10 at rows 1 and 3, 40 at rows 4 and 5. */
    COL_I(&ts, SL_T_TIMESTAMP, NULL, 30, 10, 20, 10, 40, 40);
    COL_I(&v, SL_T_INT, NULL, 1, 2, 3, 4, 5, 6);
    CHECK(SL_AGG_FIRST, &v, &ts, XI(2));
    CHECK(SL_AGG_LAST, &v, &ts, XI(6));
    CHECK(SL_AGG_LAST_ROW, &v, &ts, XI(6));
    sl_column_fini(&v);
    /* The tie winners NULL: FIRST/LAST move on, LAST_ROW keeps the NULL. */
    COL_I(&v, SL_T_INT, ".N...N", 1, 2, 3, 4, 5, 6);
    CHECK(SL_AGG_FIRST, &v, &ts, XI(4));
    CHECK(SL_AGG_LAST, &v, &ts, XI(5));
    CHECK(SL_AGG_LAST_ROW, &v, &ts, XNULL);
    sl_column_fini(&v);
    COL_I(&v, SL_T_INT, "NNNNNN", 1, 2, 3, 4, 5, 6);
    CHECK(SL_AGG_FIRST, &v, &ts, XNULL);
    CHECK(SL_AGG_LAST, &v, &ts, XNULL);
    CHECK(SL_AGG_LAST_ROW, &v, &ts, XNULL);
    CHECK(SL_AGG_COUNT, &v, NULL, XI(0));
    sl_column_fini(&v);
    COL_I(&v, SL_T_BIGINT, NULL, 1, INT64_MIN, 3, INT64_MAX, 5, -6);
    CHECK(SL_AGG_FIRST, &v, &ts, XI(INT64_MIN));
    CHECK(SL_AGG_LAST, &v, &ts, XI(-6));
    sl_column_fini(&v);
    COL_U(&v, SL_T_UBIGINT, NULL, 1, UINT64_MAX, 3, 4, 5, 6);
    CHECK(SL_AGG_FIRST, &v, &ts, XU(UINT64_MAX));
    sl_column_fini(&v);
    COL_I(&v, SL_T_TINYINT, NULL, 1, -128, 3, 4, 5, 127);
    CHECK(SL_AGG_FIRST, &v, &ts, XI(-128));
    CHECK(SL_AGG_LAST_ROW, &v, &ts, XI(127));
    sl_column_fini(&v);
    COL_I(&v, SL_T_SMALLINT, NULL, 1, -300, 3, 4, 5, 300);
    CHECK(SL_AGG_LAST, &v, &ts, XI(300));
    sl_column_fini(&v);
    COL_U(&v, SL_T_UTINYINT, NULL, 1, 200, 3, 4, 5, 250);
    CHECK(SL_AGG_FIRST, &v, &ts, XU(200));
    sl_column_fini(&v);
    COL_U(&v, SL_T_USMALLINT, NULL, 1, 60000, 3, 4, 5, 250);
    CHECK(SL_AGG_FIRST, &v, &ts, XU(60000));
    sl_column_fini(&v);
    COL_U(&v, SL_T_UINT, NULL, 1, 2, 3, 4, 4000000000u, 250);
    CHECK(SL_AGG_LAST, &v, &ts, XU(250));
    sl_column_fini(&v);
    COL_I(&v, SL_T_BOOL, ".....N", 0, 1, 0, 0, 1, 0);
    CHECK(SL_AGG_FIRST, &v, &ts, XI(1));
    CHECK(SL_AGG_LAST, &v, &ts, XI(1));
    CHECK(SL_AGG_LAST_ROW, &v, &ts, XNULL);
    sl_column_fini(&v);
    COL_I(&v, SL_T_TIMESTAMP, NULL, 100, 200, 300, 400, 500, 600);
    CHECK(SL_AGG_FIRST, &v, &ts, XI(200));
    CHECK(SL_AGG_LAST, &v, &ts, XI(600));
    sl_column_fini(&v);
    COL_D(&v, SL_T_DOUBLE, "N.....", 1, -2.5, 3, 4, 5, NAN);
    CHECK(SL_AGG_FIRST, &v, &ts, XD(-2.5));
    CHECK(SL_AGG_LAST, &v, &ts, XNAN);
    sl_column_fini(&v);
    COL_D(&v, SL_T_FLOAT, NULL, 1, 0.25, 3, 4, 5, 1e-3);
    CHECK(SL_AGG_FIRST, &v, &ts, XD(0.25));
    CHECK(SL_AGG_LAST, &v, &ts, XD((double)1e-3f));
    sl_column_fini(&v);
    sl_column_fini(&ts);

    /* NULL timestamps are skipped even for LAST_ROW. */
    COL_I(&ts, SL_T_TIMESTAMP, "N..N", 99, 5, 7, 99);
    COL_I(&v, SL_T_INT, NULL, 1, 2, 3, 4);
    CHECK(SL_AGG_FIRST, &v, &ts, XI(2));
    CHECK(SL_AGG_LAST, &v, &ts, XI(3));
    CHECK(SL_AGG_LAST_ROW, &v, &ts, XI(3));
    sl_column_fini(&v);
    sl_column_fini(&ts);

    /* Negative timestamps (before 1970) and a descending run. */
    COL_I(&ts, SL_T_TIMESTAMP, NULL, -1, -5, -3, INT64_MIN, INT64_MAX);
    COL_I(&v, SL_T_INT, "...N.", 1, 2, 3, 4, 5);
    CHECK(SL_AGG_FIRST, &v, &ts, XI(2));
    CHECK(SL_AGG_LAST, &v, &ts, XI(5));
    sl_column_fini(&v);
    sl_column_fini(&ts);

    sl_column_init(&ts, SL_T_TIMESTAMP, 0);
    sl_column_init(&v, SL_T_INT, 0);
    CHECK(SL_AGG_FIRST, &v, &ts, XNULL);
    CHECK(SL_AGG_LAST_ROW, &v, &ts, XNULL);
    sl_column_fini(&v);
    sl_column_fini(&ts);
}

static void test_select_strings(void **unused)
{
    sl_column ts, v;
    COL_I(&ts, SL_T_TIMESTAMP, NULL, 30, 10, 20, 10, 40, 40);
    COL_S(&v, SL_T_VARCHAR, "a", "bb", "c", "dddd", "", "ffffff");
    CHECK(SL_AGG_FIRST, &v, &ts, XS("bb"));
    CHECK(SL_AGG_LAST, &v, &ts, XS("ffffff"));
    CHECK(SL_AGG_LAST_ROW, &v, &ts, XS("ffffff"));
    sl_column_fini(&v);
    COL_S(&v, SL_T_NCHAR, "a", NULL, "c", "dddd", "", NULL);
    CHECK(SL_AGG_FIRST, &v, &ts, XS("dddd"));
    CHECK(SL_AGG_LAST, &v, &ts, XS(""));
    CHECK(SL_AGG_LAST_ROW, &v, &ts, XNULL);
    sl_column_fini(&v);
    sl_column_fini(&ts);
    /* Ascending timestamps: every row improves LAST. */
    COL_I(&ts, SL_T_TIMESTAMP, NULL, 1, 2, 3, 4, 5);
    COL_S(&v, SL_T_VARCHAR, "x", "yyyyyyyy", "z", NULL, "w");
    CHECK(SL_AGG_LAST, &v, &ts, XS("w"));
    CHECK(SL_AGG_FIRST, &v, &ts, XS("x"));
    sl_column_fini(&v);
    sl_column_fini(&ts);
}

static void test_select_const(void **unused)
{
    sl_column ts, v, cts;
    /* A constant timestamp: every row ties, so FIRST is the first non-NULL row and LAST
     * the last. */
    col_const(&cts, SL_T_TIMESTAMP, sl_value_int(SL_T_TIMESTAMP, 1000), 5);
    COL_I(&v, SL_T_INT, "N...N", 1, 2, 3, 4, 5);
    CHECK(SL_AGG_FIRST, &v, &cts, XI(2));
    CHECK(SL_AGG_LAST, &v, &cts, XI(4));
    CHECK(SL_AGG_LAST_ROW, &v, &cts, XNULL);
    sl_column_fini(&v);
    COL_S(&v, SL_T_VARCHAR, NULL, "p", "q", "r", NULL);
    CHECK(SL_AGG_FIRST, &v, &cts, XS("p"));
    CHECK(SL_AGG_LAST, &v, &cts, XS("r"));
    sl_column_fini(&v);
    sl_column_fini(&cts);
    col_const(&cts, SL_T_TIMESTAMP, sl_value_null(SL_T_TIMESTAMP), 3);
    COL_I(&v, SL_T_INT, NULL, 1, 2, 3);
    CHECK(SL_AGG_FIRST, &v, &cts, XNULL);
    CHECK(SL_AGG_LAST_ROW, &v, &cts, XNULL);
    sl_column_fini(&v);
    sl_column_fini(&cts);

    /* A constant argument (a tag). */
    COL_I(&ts, SL_T_TIMESTAMP, NULL, 5, 3, 9);
    col_const(&v, SL_T_DOUBLE, sl_value_double(SL_T_DOUBLE, 2.5), 3);
    CHECK(SL_AGG_FIRST, &v, &ts, XD(2.5));
    CHECK(SL_AGG_LAST, &v, &ts, XD(2.5));
    sl_column_fini(&v);
    col_const(&v, SL_T_NCHAR, sl_value_str(SL_T_NCHAR, "tag", 3), 3);
    CHECK(SL_AGG_LAST_ROW, &v, &ts, XS("tag"));
    CHECK(SL_AGG_FIRST, &v, &ts, XS("tag"));
    sl_column_fini(&v);
    col_const(&v, SL_T_INT, sl_value_null(SL_T_INT), 3);
    CHECK(SL_AGG_FIRST, &v, &ts, XNULL);
    CHECK(SL_AGG_LAST, &v, &ts, XNULL);
    CHECK(SL_AGG_LAST_ROW, &v, &ts, XNULL);
    sl_column_fini(&v);
    col_const(&v, SL_T_BOOL, sl_value_bool(true), 3);
    CHECK(SL_AGG_LAST, &v, &ts, XI(1));
    sl_column_fini(&v);
    sl_column_fini(&ts);
}

/* ---------------------------------------------------------------------------------------
 * Grouped updates over several groups
 * ------------------------------------------------------------------------------------- */

#define GN 23
#define GG 4 /* groups; group 3 gets no rows */

/* The reference: aggregate k of group g, by the definitions, over int values. */
static expect ref_group(sl_agg_kind k, const int64_t *v, const char *nm, const int64_t *ts,
                        const uint32_t *gids, uint32_t g)
{
    int64_t cnt = 0, rows = 0, sum = 0, lo = 0, hi = 0;
    int64_t fts = 0, lts = 0, lrts = 0, fv = 0, lv = 0, lrv = 0;
    bool lrnull = false, lrhas = false;
    for (int i = 0; i < GN; i++) {
        if (gids[i] != g)
            continue;
        rows++;
        if (!lrhas || ts[i] >= lrts) {
            lrhas = true;
            lrts = ts[i];
            lrv = v[i];
            lrnull = is_n(nm, i);
        }
        if (is_n(nm, i))
            continue;
        if (cnt == 0 || v[i] < lo)
            lo = v[i];
        if (cnt == 0 || v[i] > hi)
            hi = v[i];
        if (cnt == 0 || ts[i] < fts) {
            fts = ts[i];
            fv = v[i];
        }
        if (cnt == 0 || ts[i] >= lts) {
            lts = ts[i];
            lv = v[i];
        }
        cnt++;
        sum += v[i];
    }
    switch (k) {
    case SL_AGG_COUNT_STAR:
        return XI(rows);
    case SL_AGG_COUNT:
        return XI(cnt);
    default:
        break;
    }
    if (k == SL_AGG_LAST_ROW)
        return !lrhas || lrnull ? XNULL : XI(lrv);
    if (cnt == 0)
        return XNULL;
    switch (k) {
    case SL_AGG_SUM:
        return XI(sum);
    case SL_AGG_AVG:
        return XD((double)sum / (double)cnt);
    case SL_AGG_MIN:
        return XI(lo);
    case SL_AGG_MAX:
        return XI(hi);
    case SL_AGG_SPREAD:
        return XD((double)(hi - lo));
    case SL_AGG_FIRST:
        return XI(fv);
    case SL_AGG_LAST:
        return XI(lv);
    default:
        return XNULL;
    }
}

static void test_grouped(void **unused)
{
    static const int64_t v[GN] = {5, -3, 8, 8, 0, 12, -7, 4, 4, 9, 1, -2, 6,
                                  3, 3, -9, 10, 2, 7, -1, 11, 0, 5};
    static const char nm[GN + 1] = "..N....N..N...N...NN...";
    static const int64_t ts[GN] = {7, 3, 9, 1, 1, 12, 5, 5, 30, 2, 8, 8,
                                   8, 6, 4, 40, 11, 10, 20, 21, 22, 0, 0};
    static const uint32_t gids[GN] = {0, 1, 2, 0, 0, 1, 2, 2, 1, 0, 0, 1,
                                      1, 2, 2, 0, 1, 2, 0, 0, 2, 1, 1};
    static const sl_agg_kind kinds[] = {SL_AGG_COUNT_STAR, SL_AGG_COUNT, SL_AGG_SUM,
                                        SL_AGG_AVG,        SL_AGG_MIN,   SL_AGG_MAX,
                                        SL_AGG_SPREAD,     SL_AGG_FIRST, SL_AGG_LAST,
                                        SL_AGG_LAST_ROW};
    sl_column arg, tsc;
    col_i(&arg, SL_T_INT, nm, GN, v);
    col_i(&tsc, SL_T_TIMESTAMP, NULL, GN, ts);
    for (size_t j = 0; j < sizeof kinds / sizeof kinds[0]; j++) {
        g_line = __LINE__;
        sl_agg *a = mk_agg(kinds[j], &arg);
        size_t stride = sl_agg_state_size(a) + 16;
        /* Two sets of states: one fed in three chunks, one fed the whole block at once. */
        uint8_t *st = calloc(GG, stride), *st2 = calloc(GG, stride);
        for (int g = 0; g < GG; g++) {
            sl_agg_state_init(a, st + g * stride);
            sl_agg_state_init(a, st2 + g * stride);
        }
        upd(a, st, stride, gids, &arg, &tsc, 0, 5);
        upd(a, st, stride, gids + 5, &arg, &tsc, 5, 11);
        upd(a, st, stride, gids + 16, &arg, &tsc, 16, GN - 16);
        upd(a, st2, stride, gids, &arg, &tsc, 0, GN);
        for (uint32_t g = 0; g < GG; g++) {
            expect e = ref_group(kinds[j], v, nm, ts, gids, g);
            g_path = sl_agg_name(kinds[j]);
            check_state(a, st + g * stride, &e);
            check_state(a, st2 + g * stride, &e);
        }
        /* Merging group 0 into group 1 equals the reference over both. */
        assert_int_equal(sl_agg_merge(a, st + stride, st), 0);
        uint32_t g01[GN];
        for (int i = 0; i < GN; i++)
            g01[i] = gids[i] == 0 ? 1 : gids[i];
        /* Merge treats dst as the earlier input; the reference sees rows in block order,
         * so only order-free functions compare here. */
        if (kinds[j] != SL_AGG_FIRST && kinds[j] != SL_AGG_LAST &&
            kinds[j] != SL_AGG_LAST_ROW) {
            expect e = ref_group(kinds[j], v, nm, ts, g01, 1);
            check_state(a, st + stride, &e);
        }
        for (int g = 0; g < GG; g++) {
            sl_agg_state_fini(a, st + g * stride);
            sl_agg_state_fini(a, st2 + g * stride);
        }
        free(st);
        free(st2);
        sl_agg_free(a);
    }
    sl_column_fini(&arg);

    /* Strings over groups: MIN/MAX/FIRST/LAST own per-group copies. */
    sl_column s;
    COL_S(&s, SL_T_VARCHAR, "pear", "fig", NULL, "apple", "kiwi", "banana", "date", "cherry");
    static const uint32_t sg[8] = {0, 1, 0, 1, 0, 1, 2, 2};
    /* tsc rows 0..7 are 7, 3, 9, 1, 1, 12, 5, 5: group 0 has rows 0 (7, pear), 2 (9, NULL),
     * 4 (1, kiwi); group 1 rows 1 (3, fig), 3 (1, apple), 5 (12, banana); group 2 rows
     * 6 (5, date) and 7 (5, cherry), a tie. */
    static const struct {
        sl_agg_kind k;
        const char *want[3];
    } sc[] = {
        {SL_AGG_MIN, {"kiwi", "apple", "cherry"}},
        {SL_AGG_MAX, {"pear", "fig", "date"}},
        {SL_AGG_FIRST, {"kiwi", "apple", "date"}},
        {SL_AGG_LAST, {"pear", "banana", "cherry"}},
        {SL_AGG_LAST_ROW, {NULL, "banana", "cherry"}}, /* group 0's latest row is NULL */
    };
    for (size_t j = 0; j < sizeof sc / sizeof sc[0]; j++) {
        g_line = __LINE__;
        sl_agg *a = mk_agg(sc[j].k, &s);
        size_t sz = sl_agg_state_size(a);
        uint8_t *st = calloc(3, sz);
        for (int g = 0; g < 3; g++)
            sl_agg_state_init(a, st + g * sz);
        upd(a, st, sz, sg, &s, &tsc, 0, 8);
        for (int g = 0; g < 3; g++) {
            expect e = sc[j].want[g] != NULL ? XS(sc[j].want[g]) : XNULL;
            g_path = sl_agg_name(sc[j].k);
            check_state(a, st + g * sz, &e);
            sl_agg_state_fini(a, st + g * sz);
        }
        free(st);
        sl_agg_free(a);
    }
    sl_column_fini(&s);

    /* A constant argument over groups: each group sees the value once per row. */
    sl_column c;
    col_const(&c, SL_T_SMALLINT, sl_value_int(SL_T_SMALLINT, -4), GN);
    static const struct {
        sl_agg_kind k;
        expect e[GG];
    } cc[] = {
        {SL_AGG_SUM, {XI(-32), XI(-32), XI(-28), XNULL}}, /* 8, 8 and 7 rows */
        {SL_AGG_COUNT, {XI(8), XI(8), XI(7), XI(0)}},
        {SL_AGG_AVG, {XD(-4), XD(-4), XD(-4), XNULL}},
        {SL_AGG_MIN, {XI(-4), XI(-4), XI(-4), XNULL}},
        {SL_AGG_STDDEV, {XD(0), XD(0), XD(0), XNULL}},
        {SL_AGG_SPREAD, {XD(0), XD(0), XD(0), XNULL}},
        {SL_AGG_LAST, {XI(-4), XI(-4), XI(-4), XNULL}},
    };
    for (size_t j = 0; j < sizeof cc / sizeof cc[0]; j++) {
        g_line = __LINE__;
        sl_agg *a = mk_agg(cc[j].k, &c);
        size_t sz = sl_agg_state_size(a);
        uint8_t *st = calloc(GG, sz);
        for (int g = 0; g < GG; g++)
            sl_agg_state_init(a, st + g * sz);
        upd(a, st, sz, gids, &c, &tsc, 0, GN);
        for (int g = 0; g < GG; g++) {
            g_path = sl_agg_name(cc[j].k);
            check_state(a, st + g * sz, &cc[j].e[g]);
            sl_agg_state_fini(a, st + g * sz);
        }
        free(st);
        sl_agg_free(a);
    }
    sl_column_fini(&c);

    /* STDDEV over groups, by Welford per row: groups {2,4,4,4} and {5,5,7,9}. */
    sl_column d;
    COL_D(&d, SL_T_DOUBLE, NULL, 2, 5, 4, 5, 4, 7, 4, 9);
    static const uint32_t dg[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    sl_agg *a = mk_agg(SL_AGG_STDDEV, &d);
    size_t sz = sl_agg_state_size(a);
    uint8_t *st = calloc(2, sz);
    sl_agg_state_init(a, st);
    sl_agg_state_init(a, st + sz);
    upd(a, st, sz, dg, &d, NULL, 0, 8);
    expect e0 = XDT(sqrt(0.75), 1e-12), e1 = XDT(sqrt(2.75), 1e-12), e01 = XDT(2.0, 1e-12);
    check_state(a, st, &e0);
    check_state(a, st + sz, &e1);
    assert_int_equal(sl_agg_merge(a, st, st + sz), 0);
    check_state(a, st, &e01);
    free(st);
    sl_agg_free(a);
    sl_column_fini(&d);
    sl_column_fini(&tsc);
}

/* ---------------------------------------------------------------------------------------
 * Merge order for FIRST/LAST, STDDEV merges, and decoding garbage
 * ------------------------------------------------------------------------------------- */

static void test_select_merge_ties(void **unused)
{
    /* Two partial states with the same timestamp: dst is the earlier input. */
    sl_column ts, v;
    COL_I(&ts, SL_T_TIMESTAMP, NULL, 50, 50);
    COL_I(&v, SL_T_INT, NULL, 1, 2);
    static const struct {
        sl_agg_kind k;
        int64_t want;
    } cases[] = {{SL_AGG_FIRST, 1}, {SL_AGG_LAST, 2}, {SL_AGG_LAST_ROW, 2}};
    for (size_t j = 0; j < 3; j++) {
        g_line = __LINE__;
        sl_agg *a = mk_agg(cases[j].k, &v);
        uint64_t s1[8], s2[8];
        sl_agg_state_init(a, s1);
        sl_agg_state_init(a, s2);
        upd(a, (uint8_t *)s1, 0, NULL, &v, &ts, 0, 1);
        upd(a, (uint8_t *)s2, 0, NULL, &v, &ts, 1, 1);
        assert_int_equal(sl_agg_merge(a, s1, s2), 0);
        expect e = XI(cases[j].want);
        check_state(a, s1, &e);
        /* Merging an empty state changes nothing. */
        sl_agg_state_init(a, s2);
        assert_int_equal(sl_agg_merge(a, s1, s2), 0);
        check_state(a, s1, &e);
        sl_agg_free(a);
    }
    sl_column_fini(&v);
    sl_column_fini(&ts);
}

static void test_stddev_merge(void **unused)
{
    /* 500 values with a large common offset; the reference is a two-pass computation in
     * long double. Every split merged must agree within 1e-9 relative. */
    enum { N = 500 };
    double x[N];
    long double sum = 0, m2 = 0;
    sl_column c;
    sl_column_init(&c, SL_T_DOUBLE, 0);
    for (int i = 0; i < N; i++) {
        x[i] = 1e6 + (double)((i * 7919) % 1000) / 8.0;
        sum += x[i];
        assert_int_equal(sl_column_append_f64(&c, x[i]), 0);
    }
    long double mean = sum / N;
    for (int i = 0; i < N; i++)
        m2 += (x[i] - mean) * (x[i] - mean);
    double want = (double)sqrtl(m2 / N);
    CHECK(SL_AGG_STDDEV, &c, NULL, XDT(want, 1e-9));
    sl_column_fini(&c);
}

/* Decodes bytes p[0..n) for aggregate k over type t and returns the code. */
static int decode_bytes(sl_agg_kind k, sl_type t, const void *p, size_t n)
{
    sl_agg *a = NULL;
    assert_int_equal(sl_agg_create(k, t, 0, &a, NULL), 0);
    uint64_t st[8];
    sl_agg_state_init(a, st);
    sl_reader r;
    sl_reader_init(&r, p, n);
    int rc = sl_agg_state_decode(a, st, &r);
    sl_agg_state_fini(a, st);
    sl_agg_free(a);
    return rc;
}

#define DEC(k, t, ...)                                                                       \
    decode_bytes(k, t, (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}))

static void test_decode_garbage(void **unused)
{
    /* COUNT: a count above INT64_MAX; an unterminated and an over-long varint. */
    assert_int_equal(DEC(SL_AGG_COUNT, SL_T_INT, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                         0xff, 0xff, 0x01),
                     SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_COUNT, SL_T_INT, 0x80, 0x80), SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_COUNT, SL_T_INT, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                         0x80, 0x80, 0x80, 0x01),
                     SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_COUNT, SL_T_INT, 0x05), 0);
    /* SUM of one TINYINT cannot be 1000 (0x3e8); 100 is fine. */
    assert_int_equal(DEC(SL_AGG_SUM, SL_T_TINYINT, 1, 0xe8, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                         0, 0, 0, 0),
                     SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_SUM, SL_T_TINYINT, 1, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                         0, 0, 0, 0),
                     0);
    /* A negative sum of unsigned values. */
    assert_int_equal(DEC(SL_AGG_SUM, SL_T_UBIGINT, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                         0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
                     SL_ECORRUPT);
    /* MIN: unknown flag bits; NaN flag on an integer type; value out of TINYINT range
     * (zig-zag 600 = 300); a NaN kept value. */
    assert_int_equal(DEC(SL_AGG_MIN, SL_T_INT, 0x81, 0x02), SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_MIN, SL_T_INT, 0x02), SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_MIN, SL_T_TINYINT, 0x01, 0xd8, 0x04), SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_MIN, SL_T_TINYINT, 0x01, 0x04), 0);
    assert_int_equal(DEC(SL_AGG_MAX, SL_T_BOOL, 0x01, 0x02), SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_MIN, SL_T_DOUBLE, 0x01, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f),
                     SL_ECORRUPT);
    /* A double that no FLOAT widens to (1 + 2^-52). */
    assert_int_equal(DEC(SL_AGG_MAX, SL_T_FLOAT, 0x01, 1, 0, 0, 0, 0, 0, 0xf0, 0x3f),
                     SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_MAX, SL_T_FLOAT, 0x01, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f), 0);
    /* SPREAD with lo > hi (zig-zag 10 = 5, 2 = 1). */
    assert_int_equal(DEC(SL_AGG_SPREAD, SL_T_INT, 0x01, 10, 2), SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_SPREAD, SL_T_INT, 0x01, 2, 10), 0);
    /* Strings: length past the input, length above the VARCHAR limit. */
    assert_int_equal(DEC(SL_AGG_MIN, SL_T_VARCHAR, 0x01, 5, 'a', 'b'), SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_MIN, SL_T_VARCHAR, 0x01, 2, 'a', 'b'), 0);
    assert_int_equal(DEC(SL_AGG_MIN, SL_T_VARCHAR, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f),
                     SL_ECORRUPT);
    {
        /* 65518 bytes present, one more than SL_VARCHAR_MAX. */
        size_t n = 1 + 3 + 65518;
        uint8_t *p = calloc(1, n);
        p[0] = 0x01;
        p[1] = 0xee; /* 65518 = 0xffee: LEB128 0xee 0xff 0x03 */
        p[2] = 0xff;
        p[3] = 0x03;
        assert_int_equal(decode_bytes(SL_AGG_MAX, SL_T_VARCHAR, p, n), SL_ECORRUPT);
        /* NCHAR allows four bytes a character. */
        assert_int_equal(decode_bytes(SL_AGG_MAX, SL_T_NCHAR, p, n), 0);
        p[1] = 0xed; /* 65517 */
        assert_int_equal(decode_bytes(SL_AGG_MAX, SL_T_VARCHAR, p, n - 1), 0);
        free(p);
    }
    /* FIRST with a NULL value (only LAST_ROW keeps NULLs); NULL without a row. */
    assert_int_equal(DEC(SL_AGG_FIRST, SL_T_INT, 0x03, 0x02), SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_LAST_ROW, SL_T_INT, 0x03, 0x02), 0);
    assert_int_equal(DEC(SL_AGG_LAST_ROW, SL_T_INT, 0x02), SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_LAST, SL_T_INT, 0x04), SL_ECORRUPT);
    /* STDDEV with a negative M2. */
    assert_int_equal(DEC(SL_AGG_STDDEV, SL_T_INT, 2, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0,
                         0, 0, 0xf0, 0xbf),
                     SL_ECORRUPT);
    assert_int_equal(DEC(SL_AGG_STDDEV, SL_T_INT, 2, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0,
                         0, 0, 0xf0, 0x3f),
                     0);

    /* A failed decode leaves the state as it was. */
    sl_agg *a = NULL;
    assert_int_equal(sl_agg_create(SL_AGG_MAX, SL_T_VARCHAR, 0, &a, NULL), 0);
    uint64_t st[8];
    sl_agg_state_init(a, st);
    sl_column s;
    COL_S(&s, SL_T_VARCHAR, "keep");
    upd(a, (uint8_t *)st, 0, NULL, &s, NULL, 0, 1);
    sl_reader r;
    sl_reader_init(&r, (const uint8_t[]){0x01, 9, 'x'}, 3);
    assert_int_equal(sl_agg_state_decode(a, st, &r), SL_ECORRUPT);
    g_line = __LINE__;
    g_path = "after failed decode";
    expect e = XS("keep");
    check_state(a, st, &e);
    sl_agg_state_fini(a, st);
    sl_agg_state_fini(a, st); /* fini twice is harmless: the state is zeroed */
    sl_agg_free(a);
    sl_column_fini(&s);
}

/* The encodings are portable: fixed bytes for a known state. */
static void test_encoding_bytes(void **unused)
{
    sl_column c;
    COL_I(&c, SL_T_BIGINT, NULL, -2, 1);
    sl_agg *a = NULL;
    assert_int_equal(sl_agg_create(SL_AGG_SUM, SL_T_BIGINT, 0, &a, NULL), 0);
    uint64_t st[8];
    sl_agg_state_init(a, st);
    upd(a, (uint8_t *)st, 0, NULL, &c, NULL, 0, 2);
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_agg_state_encode(a, st, &b), 0);
    /* n = 2, then the 128-bit sum -1 as two little-endian words. */
    static const uint8_t want[17] = {2,    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    assert_int_equal(b.len, sizeof want);
    assert_memory_equal(b.data, want, sizeof want);
    sl_agg_free(a);

    sl_buf_reset(&b);
    assert_int_equal(sl_agg_create(SL_AGG_LAST, SL_T_BIGINT, 0, &a, NULL), 0);
    sl_agg_state_init(a, st);
    sl_column ts;
    COL_I(&ts, SL_T_TIMESTAMP, NULL, 3, -1);
    upd(a, (uint8_t *)st, 0, NULL, &c, &ts, 0, 2);
    assert_int_equal(sl_agg_state_encode(a, st, &b), 0);
    /* has, ts 3 (zig-zag 6), value -2 (zig-zag 3). */
    assert_int_equal(b.len, 3);
    assert_memory_equal(b.data, ((const uint8_t[]){0x01, 6, 3}), 3);
    sl_agg_free(a);
    sl_buf_fini(&b);
    sl_column_fini(&ts);
    sl_column_fini(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup_names),
        cmocka_unit_test(test_create_types),
        cmocka_unit_test(test_type_refusals),
        cmocka_unit_test(test_count),
        cmocka_unit_test(test_sum_types),
        cmocka_unit_test(test_sum_overflow),
        cmocka_unit_test(test_sum_long),
        cmocka_unit_test(test_sum_float),
        cmocka_unit_test(test_sum_const_exact),
        cmocka_unit_test(test_minmax_numeric),
        cmocka_unit_test(test_minmax_nan),
        cmocka_unit_test(test_minmax_long),
        cmocka_unit_test(test_minmax_string),
        cmocka_unit_test(test_stddev),
        cmocka_unit_test(test_select_ints),
        cmocka_unit_test(test_select_strings),
        cmocka_unit_test(test_select_const),
        cmocka_unit_test(test_grouped),
        cmocka_unit_test(test_select_merge_ties),
        cmocka_unit_test(test_stddev_merge),
        cmocka_unit_test(test_decode_garbage),
        cmocka_unit_test(test_encoding_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
