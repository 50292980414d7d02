/*
 * test_value.c - type names and sizes, value casts with every rule and refusal of
 * value.h, exact cross-type comparison, display text and UTF-8 counting.
 *
 * Expected numbers come from the rules in the headers and from independent arithmetic
 * (IEEE-754 facts such as 2^63 = 9223372036854775808.0, Python's shortest float repr, the
 * byte counts of UTF-8 sequences), never from running the code under test.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/types/types.h"
#include "common/types/value.h"
#include "common/util/keymap.h"

/* ---- types --------------------------------------------------------------------- */

static void test_type_names(void **state)
{
    (void)state;
    static const struct {
        sl_type t;
        const char *name;
        size_t size;
    } all[] = {
        {SL_T_BOOL, "BOOL", 1},
        {SL_T_TINYINT, "TINYINT", 1},
        {SL_T_SMALLINT, "SMALLINT", 2},
        {SL_T_INT, "INT", 4},
        {SL_T_BIGINT, "BIGINT", 8},
        {SL_T_UTINYINT, "TINYINT UNSIGNED", 1},
        {SL_T_USMALLINT, "SMALLINT UNSIGNED", 2},
        {SL_T_UINT, "INT UNSIGNED", 4},
        {SL_T_UBIGINT, "BIGINT UNSIGNED", 8},
        {SL_T_FLOAT, "FLOAT", 4},
        {SL_T_DOUBLE, "DOUBLE", 8},
        {SL_T_TIMESTAMP, "TIMESTAMP", 8},
        {SL_T_VARCHAR, "VARCHAR", 0},
        {SL_T_NCHAR, "NCHAR", 0},
    };
    assert_int_equal(sizeof(all) / sizeof(all[0]), SL_T__COUNT - 1);
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        sl_type t = SL_T_NULL;
        assert_string_equal(sl_type_name(all[i].t), all[i].name);
        assert_int_equal(sl_type_size(all[i].t), all[i].size);
        assert_true(sl_type_from_name(all[i].name, &t));
        assert_int_equal(t, all[i].t);
    }
    assert_string_equal(sl_type_name(SL_T_NULL), "NULL");
    assert_int_equal(sl_type_size(SL_T_NULL), 0);
}

static void test_type_from_name(void **state)
{
    (void)state;
    sl_type t;
    assert_true(sl_type_from_name("bigint unsigned", &t));
    assert_int_equal(t, SL_T_UBIGINT);
    assert_true(sl_type_from_name("Tinyint Unsigned", &t));
    assert_int_equal(t, SL_T_UTINYINT);
    assert_true(sl_type_from_name("integer", &t));
    assert_int_equal(t, SL_T_INT);
    assert_true(sl_type_from_name("INTEGER UNSIGNED", &t));
    assert_int_equal(t, SL_T_UINT);
    assert_true(sl_type_from_name("binary", &t));
    assert_int_equal(t, SL_T_VARCHAR);
    assert_true(sl_type_from_name("nchar", &t));
    assert_int_equal(t, SL_T_NCHAR);
    assert_true(sl_type_from_name("Timestamp", &t));
    assert_int_equal(t, SL_T_TIMESTAMP);
    t = SL_T_INT;
    assert_false(sl_type_from_name("TINYINT  UNSIGNED", &t));
    assert_false(sl_type_from_name("UNSIGNED", &t));
    assert_false(sl_type_from_name("NULL", &t));
    assert_false(sl_type_from_name("", &t));
    assert_false(sl_type_from_name("INTS", &t));
    assert_false(sl_type_from_name("IN", &t));
    assert_false(sl_type_from_name("BOOLEAN", &t));
    assert_false(sl_type_from_name(NULL, &t));
    assert_int_equal(t, SL_T_INT);
    assert_true(sl_type_is_signed_int(SL_T_BIGINT));
    assert_false(sl_type_is_signed_int(SL_T_TIMESTAMP));
    assert_true(sl_type_is_unsigned_int(SL_T_UTINYINT));
    assert_false(sl_type_is_numeric(SL_T_BOOL));
    assert_true(sl_type_is_var(SL_T_NCHAR));
}

/* ---- constructors ---------------------------------------------------------------- */

static void test_constructors(void **state)
{
    (void)state;
    sl_value v = sl_value_null(SL_T_INT);
    assert_true(v.is_null);
    assert_int_equal(v.type, SL_T_INT);
    v = sl_value_bool(true);
    assert_false(v.is_null);
    assert_int_equal(v.type, SL_T_BOOL);
    assert_true(v.v.b);
    v = sl_value_int(SL_T_TIMESTAMP, -5);
    assert_int_equal(v.v.i, -5);
    v = sl_value_uint(SL_T_UBIGINT, UINT64_MAX);
    assert_true(v.v.u == UINT64_MAX);
    /* FLOAT values hold what a float holds */
    v = sl_value_double(SL_T_FLOAT, 0.1);
    assert_true(v.v.d == (double)0.1f);
    assert_true(v.v.d != 0.1);
    v = sl_value_double(SL_T_DOUBLE, 0.1);
    assert_true(v.v.d == 0.1);
    v = sl_value_str(SL_T_VARCHAR, "abc", 3);
    assert_int_equal(v.v.s.len, 3);
    assert_memory_equal(v.v.s.ptr, "abc", 3);
}

/* ---- casts ----------------------------------------------------------------------- */

static sl_value S(const char *s)
{
    return sl_value_str(SL_T_VARCHAR, s, (uint32_t)strlen(s));
}

static sl_value I(sl_type t, int64_t i)
{
    return sl_value_int(t, i);
}

static sl_value U(sl_type t, uint64_t u)
{
    return sl_value_uint(t, u);
}

static sl_value D(double d)
{
    return sl_value_double(SL_T_DOUBLE, d);
}

static int cast(sl_value v, sl_type to, sl_value *out)
{
    static char buf[128];
    return sl_value_cast(&v, to, 0, SL_PREC_MS, buf, sizeof(buf), out, NULL);
}

/* Expects cast(v, to) to give a signed/timestamp value i. */
static void expect_i(int line, sl_value v, sl_type to, int64_t want)
{
    sl_value out;
    int rc = cast(v, to, &out);
    if (rc != 0 || out.is_null || out.type != to || out.v.i != want)
        fail_msg("line %d: rc %d type %d value %lld, want %lld", line, rc, out.type,
                 (long long)out.v.i, (long long)want);
}

static void expect_u(int line, sl_value v, sl_type to, uint64_t want)
{
    sl_value out;
    int rc = cast(v, to, &out);
    if (rc != 0 || out.is_null || out.type != to || out.v.u != want)
        fail_msg("line %d: rc %d value %llu, want %llu", line, rc, (unsigned long long)out.v.u,
                 (unsigned long long)want);
}

static void expect_d(int line, sl_value v, sl_type to, double want)
{
    sl_value out;
    int rc = cast(v, to, &out);
    bool same = isnan(want) ? isnan(out.v.d) : out.v.d == want;
    if (rc != 0 || out.is_null || out.type != to || !same)
        fail_msg("line %d: rc %d value %.17g, want %.17g", line, rc, out.v.d, want);
}

static void expect_b(int line, sl_value v, bool want)
{
    sl_value out;
    int rc = cast(v, SL_T_BOOL, &out);
    if (rc != 0 || out.is_null || out.type != SL_T_BOOL || out.v.b != want)
        fail_msg("line %d: rc %d value %d, want %d", line, rc, out.v.b, want);
}

static void expect_rc(int line, sl_value v, sl_type to, int want)
{
    sl_value out;
    int rc = cast(v, to, &out);
    if (rc != want)
        fail_msg("line %d: rc %d, want %d", line, rc, want);
}

#define EXPECT_I(v, to, want)  expect_i(__LINE__, v, to, want)
#define EXPECT_U(v, to, want)  expect_u(__LINE__, v, to, want)
#define EXPECT_D(v, to, want)  expect_d(__LINE__, v, to, want)
#define EXPECT_B(v, want)      expect_b(__LINE__, v, want)
#define EXPECT_RC(v, to, want) expect_rc(__LINE__, v, to, want)

static void test_cast_null(void **state)
{
    (void)state;
    for (int t = SL_T_NULL; t < SL_T__COUNT; t++) {
        sl_value out;
        assert_int_equal(cast(sl_value_null(SL_T_NULL), (sl_type)t, &out), 0);
        assert_true(out.is_null);
        assert_int_equal(out.type, t);
        assert_int_equal(cast(sl_value_null(SL_T_VARCHAR), (sl_type)t, &out), 0);
        assert_true(out.is_null);
    }
    /* only NULL has the NULL type */
    EXPECT_RC(I(SL_T_INT, 1), SL_T_NULL, SL_ETYPE);
    EXPECT_RC(I(SL_T_INT, 1), SL_T__COUNT, SL_EINVAL);
}

static void test_cast_int_narrowing(void **state)
{
    (void)state;
    EXPECT_I(I(SL_T_INT, 127), SL_T_TINYINT, 127);
    EXPECT_I(I(SL_T_INT, -128), SL_T_TINYINT, -128);
    EXPECT_RC(I(SL_T_INT, 128), SL_T_TINYINT, SL_ERANGE);
    EXPECT_RC(I(SL_T_INT, -129), SL_T_TINYINT, SL_ERANGE);
    EXPECT_I(I(SL_T_BIGINT, 32767), SL_T_SMALLINT, 32767);
    EXPECT_I(I(SL_T_BIGINT, -32768), SL_T_SMALLINT, -32768);
    EXPECT_RC(I(SL_T_BIGINT, 32768), SL_T_SMALLINT, SL_ERANGE);
    EXPECT_RC(I(SL_T_BIGINT, -32769), SL_T_SMALLINT, SL_ERANGE);
    EXPECT_I(I(SL_T_BIGINT, 2147483647), SL_T_INT, 2147483647);
    EXPECT_I(I(SL_T_BIGINT, -2147483648LL), SL_T_INT, -2147483648LL);
    EXPECT_RC(I(SL_T_BIGINT, 2147483648LL), SL_T_INT, SL_ERANGE);
    EXPECT_RC(I(SL_T_BIGINT, -2147483649LL), SL_T_INT, SL_ERANGE);
    EXPECT_I(I(SL_T_TINYINT, -5), SL_T_BIGINT, -5);
    /* unsigned sources into signed targets */
    EXPECT_I(U(SL_T_UBIGINT, INT64_MAX), SL_T_BIGINT, INT64_MAX);
    EXPECT_RC(U(SL_T_UBIGINT, (uint64_t)INT64_MAX + 1), SL_T_BIGINT, SL_ERANGE);
    EXPECT_I(U(SL_T_UTINYINT, 127), SL_T_TINYINT, 127);
    EXPECT_RC(U(SL_T_UTINYINT, 200), SL_T_TINYINT, SL_ERANGE);
    /* into unsigned targets */
    EXPECT_U(I(SL_T_INT, 255), SL_T_UTINYINT, 255);
    EXPECT_U(I(SL_T_INT, 0), SL_T_UTINYINT, 0);
    EXPECT_RC(I(SL_T_INT, 256), SL_T_UTINYINT, SL_ERANGE);
    EXPECT_RC(I(SL_T_INT, -1), SL_T_UTINYINT, SL_ERANGE);
    EXPECT_U(I(SL_T_INT, 65535), SL_T_USMALLINT, 65535);
    EXPECT_RC(I(SL_T_INT, 65536), SL_T_USMALLINT, SL_ERANGE);
    EXPECT_U(I(SL_T_BIGINT, 4294967295LL), SL_T_UINT, 4294967295u);
    EXPECT_RC(I(SL_T_BIGINT, 4294967296LL), SL_T_UINT, SL_ERANGE);
    EXPECT_U(I(SL_T_BIGINT, INT64_MAX), SL_T_UBIGINT, (uint64_t)INT64_MAX);
    EXPECT_RC(I(SL_T_BIGINT, -1), SL_T_UBIGINT, SL_ERANGE);
    EXPECT_RC(I(SL_T_BIGINT, INT64_MIN), SL_T_UBIGINT, SL_ERANGE);
    EXPECT_U(U(SL_T_UBIGINT, UINT64_MAX), SL_T_UBIGINT, UINT64_MAX);
    EXPECT_RC(U(SL_T_UBIGINT, 70000), SL_T_USMALLINT, SL_ERANGE);
    /* TIMESTAMP is a signed 64-bit count */
    EXPECT_I(I(SL_T_TIMESTAMP, INT64_C(1735689600000)), SL_T_BIGINT, INT64_C(1735689600000));
    EXPECT_RC(I(SL_T_TIMESTAMP, INT64_C(1735689600000)), SL_T_INT, SL_ERANGE);
    EXPECT_I(I(SL_T_INT, -7), SL_T_TIMESTAMP, -7);
    EXPECT_I(U(SL_T_UBIGINT, INT64_MAX), SL_T_TIMESTAMP, INT64_MAX);
    EXPECT_RC(U(SL_T_UBIGINT, (uint64_t)INT64_MAX + 1), SL_T_TIMESTAMP, SL_ERANGE);
}

static void test_cast_float_to_int(void **state)
{
    (void)state;
    EXPECT_I(D(3.99), SL_T_INT, 3);
    EXPECT_I(D(-3.99), SL_T_INT, -3);
    EXPECT_I(D(127.9), SL_T_TINYINT, 127);
    EXPECT_RC(D(128.0), SL_T_TINYINT, SL_ERANGE);
    EXPECT_I(D(-128.9), SL_T_TINYINT, -128);
    EXPECT_RC(D(-129.0), SL_T_TINYINT, SL_ERANGE);
    EXPECT_U(D(-0.5), SL_T_UTINYINT, 0); /* truncates to zero first */
    EXPECT_RC(D(-1.0), SL_T_UINT, SL_ERANGE);
    EXPECT_RC(D(NAN), SL_T_INT, SL_ERANGE);
    EXPECT_RC(D(INFINITY), SL_T_BIGINT, SL_ERANGE);
    EXPECT_RC(D(-INFINITY), SL_T_BIGINT, SL_ERANGE);
    /* 2^63 is just past BIGINT; the largest double below it fits */
    EXPECT_RC(D(9223372036854775808.0), SL_T_BIGINT, SL_ERANGE);
    EXPECT_I(D(9223372036854774784.0), SL_T_BIGINT, INT64_C(9223372036854774784));
    EXPECT_I(D(-9223372036854775808.0), SL_T_BIGINT, INT64_MIN);
    EXPECT_U(D(9223372036854775808.0), SL_T_UBIGINT, UINT64_C(9223372036854775808));
    EXPECT_U(D(18446744073709549568.0), SL_T_UBIGINT, UINT64_C(18446744073709549568));
    EXPECT_RC(D(18446744073709551616.0), SL_T_UBIGINT, SL_ERANGE);
    EXPECT_I(sl_value_double(SL_T_FLOAT, 2.75), SL_T_SMALLINT, 2);
    EXPECT_I(D(1.5e12), SL_T_TIMESTAMP, INT64_C(1500000000000));
    EXPECT_RC(D(1e19), SL_T_TIMESTAMP, SL_ERANGE);
}

static void test_cast_to_float(void **state)
{
    (void)state;
    EXPECT_D(I(SL_T_INT, -3), SL_T_DOUBLE, -3.0);
    EXPECT_D(U(SL_T_UBIGINT, UINT64_MAX), SL_T_DOUBLE, 18446744073709551616.0);
    EXPECT_D(I(SL_T_INT, 16777217), SL_T_FLOAT, 16777216.0); /* float has 24 bits */
    EXPECT_D(D(0.1), SL_T_FLOAT, (double)0.1f);
    EXPECT_D(sl_value_double(SL_T_FLOAT, 0.5), SL_T_DOUBLE, 0.5);
    EXPECT_RC(D(1e39), SL_T_FLOAT, SL_ERANGE);
    EXPECT_RC(D(-1e39), SL_T_FLOAT, SL_ERANGE);
    EXPECT_D(D(3.4e38), SL_T_FLOAT, (double)3.4e38f);
    EXPECT_D(D(INFINITY), SL_T_FLOAT, INFINITY);
    EXPECT_D(D(NAN), SL_T_FLOAT, NAN);
    EXPECT_D(I(SL_T_TIMESTAMP, 1500), SL_T_DOUBLE, 1500.0);
}

static void test_cast_bool(void **state)
{
    (void)state;
    EXPECT_I(sl_value_bool(true), SL_T_INT, 1);
    EXPECT_I(sl_value_bool(false), SL_T_TINYINT, 0);
    EXPECT_U(sl_value_bool(true), SL_T_UTINYINT, 1);
    EXPECT_D(sl_value_bool(true), SL_T_DOUBLE, 1.0);
    EXPECT_D(sl_value_bool(false), SL_T_FLOAT, 0.0);
    EXPECT_I(sl_value_bool(true), SL_T_TIMESTAMP, 1);
    EXPECT_B(sl_value_bool(true), true);
    EXPECT_B(I(SL_T_INT, 5), true);
    EXPECT_B(I(SL_T_INT, -1), true);
    EXPECT_B(I(SL_T_INT, 0), false);
    EXPECT_B(U(SL_T_UBIGINT, 0), false);
    EXPECT_B(U(SL_T_UBIGINT, UINT64_MAX), true);
    EXPECT_B(D(0.0), false);
    EXPECT_B(D(-0.0), false);
    EXPECT_B(D(-0.5), true);
    EXPECT_RC(D(NAN), SL_T_BOOL, SL_ERANGE);
    /* text */
    EXPECT_B(S("true"), true);
    EXPECT_B(S("TRUE"), true);
    EXPECT_B(S("False"), false);
    EXPECT_B(S("  true \t"), true);
    EXPECT_B(S("1"), true);
    EXPECT_B(S("0"), false);
    EXPECT_B(S("2.5"), true);
    EXPECT_B(S("0.0"), false);
    EXPECT_RC(S("yes"), SL_T_BOOL, SL_ETYPE);
    EXPECT_RC(S(""), SL_T_BOOL, SL_ETYPE);
    EXPECT_RC(S("truex"), SL_T_BOOL, SL_ETYPE);
}

static void test_cast_text_to_number(void **state)
{
    (void)state;
    EXPECT_I(S(" 42 "), SL_T_INT, 42);
    EXPECT_I(S("\t-17\n"), SL_T_SMALLINT, -17);
    EXPECT_I(S("+5"), SL_T_BIGINT, 5);
    EXPECT_I(S("12.7"), SL_T_INT, 12);
    EXPECT_I(S("-12.7"), SL_T_INT, -12);
    EXPECT_I(S("1e3"), SL_T_INT, 1000);
    EXPECT_I(S("-0"), SL_T_INT, 0);
    EXPECT_I(S("-9223372036854775808"), SL_T_BIGINT, INT64_MIN);
    EXPECT_I(S("9223372036854775807"), SL_T_BIGINT, INT64_MAX);
    EXPECT_RC(S("9223372036854775808"), SL_T_BIGINT, SL_ERANGE);
    EXPECT_RC(S("-9223372036854775809"), SL_T_BIGINT, SL_ERANGE);
    EXPECT_U(S("9223372036854775808"), SL_T_UBIGINT, UINT64_C(9223372036854775808));
    EXPECT_U(S("18446744073709551615"), SL_T_UBIGINT, UINT64_MAX);
    EXPECT_RC(S("18446744073709551616"), SL_T_UBIGINT, SL_ERANGE);
    EXPECT_RC(S("300"), SL_T_TINYINT, SL_ERANGE);
    EXPECT_RC(S("-1"), SL_T_UINT, SL_ERANGE);
    EXPECT_RC(S("NaN"), SL_T_INT, SL_ERANGE);
    /* garbage */
    static const char *garbage[] = {"",    "   ", "abc", "12abc", "0x10", "1 2",  "e5",   "1e",
                                    "1e+", "+",   "-",   ".",     "--1",  "1..2", "true", "1,5"};
    for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
        EXPECT_RC(S(garbage[i]), SL_T_INT, SL_ETYPE);
        EXPECT_RC(S(garbage[i]), SL_T_DOUBLE, SL_ETYPE);
        EXPECT_RC(S(garbage[i]), SL_T_UBIGINT, SL_ETYPE);
    }
    /* doubles */
    EXPECT_D(S("1.5"), SL_T_DOUBLE, 1.5);
    EXPECT_D(S(" -2.5e-3 "), SL_T_DOUBLE, -0.0025);
    EXPECT_D(S(".5"), SL_T_DOUBLE, 0.5);
    EXPECT_D(S("5."), SL_T_DOUBLE, 5.0);
    EXPECT_D(S("1E2"), SL_T_DOUBLE, 100.0);
    EXPECT_D(S("12345678901234567890123"), SL_T_DOUBLE, 1.2345678901234568e22);
    EXPECT_D(S("NaN"), SL_T_DOUBLE, NAN);
    EXPECT_D(S("-Infinity"), SL_T_DOUBLE, -INFINITY);
    EXPECT_D(S("inf"), SL_T_DOUBLE, INFINITY);
    EXPECT_D(S("0.1"), SL_T_FLOAT, (double)0.1f);
    EXPECT_RC(S("1e400"), SL_T_DOUBLE, SL_ERANGE);
    EXPECT_RC(S("1e39"), SL_T_FLOAT, SL_ERANGE);
    /* a long number does not fit the parser's stack buffer */
    char lng[300];
    memset(lng, '0', sizeof(lng) - 1);
    lng[0] = '7', lng[1] = '.', lng[sizeof(lng) - 1] = '\0';
    EXPECT_D(S(lng), SL_T_DOUBLE, 7.0);

    /* the error names the value and the type */
    sl_error err;
    sl_error_clear(&err);
    sl_value out, v = S("300");
    char buf[32];
    assert_int_equal(sl_value_cast(&v, SL_T_TINYINT, 0, SL_PREC_MS, buf, sizeof(buf), &out, &err),
                     SL_ERANGE);
    assert_int_equal(err.code, SL_ERANGE);
    assert_string_equal(err.msg, "'300' is out of range for TINYINT");
    sl_error_clear(&err);
    v = I(SL_T_INT, 300);
    assert_int_equal(sl_value_cast(&v, SL_T_TINYINT, 0, SL_PREC_MS, buf, sizeof(buf), &out, &err),
                     SL_ERANGE);
    assert_string_equal(err.msg, "value 300 is out of range for TINYINT");
    sl_error_clear(&err);
    v = S("abc");
    assert_int_equal(sl_value_cast(&v, SL_T_INT, 0, SL_PREC_MS, buf, sizeof(buf), &out, &err),
                     SL_ETYPE);
    assert_string_equal(err.msg, "'abc' cannot be converted to INT");
}

static void test_cast_text_to_timestamp(void **state)
{
    (void)state;
    sl_value out, v;
    char buf[8];
    EXPECT_I(S("2025-01-01 00:00:00.000"), SL_T_TIMESTAMP, INT64_C(1735689600000));
    EXPECT_I(S(" 2025-01-01 "), SL_T_TIMESTAMP, INT64_C(1735689600000));
    EXPECT_I(S("2024-02-29T12:34:56.789+08:00"), SL_T_TIMESTAMP, INT64_C(1709181296789));
    EXPECT_I(S("1735689600000"), SL_T_TIMESTAMP, INT64_C(1735689600000));
    EXPECT_I(S("-1"), SL_T_TIMESTAMP, -1);
    EXPECT_RC(S("2025-02-30"), SL_T_TIMESTAMP, SL_ETYPE);
    EXPECT_RC(S("garbage"), SL_T_TIMESTAMP, SL_ETYPE);
    EXPECT_RC(S("1.5"), SL_T_TIMESTAMP, SL_ETYPE);
    EXPECT_RC(S("2024-02-29 12:34:56.1234"), SL_T_TIMESTAMP, SL_ERANGE);
    EXPECT_RC(S("99999999999999999999"), SL_T_TIMESTAMP, SL_ERANGE);
    /* the precision decides the unit */
    v = S("2025-01-01 00:00:00.000001");
    assert_int_equal(sl_value_cast(&v, SL_T_TIMESTAMP, 0, SL_PREC_US, buf, sizeof(buf), &out, NULL),
                     0);
    assert_true(out.v.i == INT64_C(1735689600000001));
    assert_int_equal(sl_value_cast(&v, SL_T_TIMESTAMP, 0, SL_PREC_NS, buf, sizeof(buf), &out, NULL),
                     0);
    assert_true(out.v.i == INT64_C(1735689600000001000));
}

/* Casts v to text type `to` of width w; checks rc and, on success, the text. */
static void expect_text(int line, sl_value v, sl_type to, uint32_t w, int rc_want, const char *want)
{
    char buf[64];
    sl_value out;
    int rc = sl_value_cast(&v, to, w, SL_PREC_MS, buf, sizeof(buf), &out, NULL);
    if (rc != rc_want)
        fail_msg("line %d: rc %d, want %d", line, rc, rc_want);
    if (rc != 0)
        return;
    if (out.type != to || out.is_null || out.v.s.len != strlen(want) ||
        memcmp(out.v.s.ptr, want, out.v.s.len) != 0)
        fail_msg("line %d: got '%.*s', want '%s'", line, (int)out.v.s.len, out.v.s.ptr, want);
}

#define EXPECT_TEXT(v, to, w, rc, want) expect_text(__LINE__, v, to, w, rc, want)

static void test_cast_to_text(void **state)
{
    (void)state;
    EXPECT_TEXT(I(SL_T_INT, 42), SL_T_VARCHAR, 0, 0, "42");
    EXPECT_TEXT(I(SL_T_BIGINT, INT64_MIN), SL_T_VARCHAR, 0, 0, "-9223372036854775808");
    EXPECT_TEXT(U(SL_T_UBIGINT, UINT64_MAX), SL_T_NCHAR, 0, 0, "18446744073709551615");
    EXPECT_TEXT(sl_value_bool(true), SL_T_VARCHAR, 0, 0, "true");
    EXPECT_TEXT(sl_value_bool(false), SL_T_VARCHAR, 0, 0, "false");
    EXPECT_TEXT(I(SL_T_TIMESTAMP, INT64_C(1735689600000)), SL_T_VARCHAR, 0, 0, "1735689600000");
    EXPECT_TEXT(D(1.5), SL_T_VARCHAR, 0, 0, "1.5");
    EXPECT_TEXT(D(0.1), SL_T_VARCHAR, 0, 0, "0.1");
    EXPECT_TEXT(sl_value_double(SL_T_FLOAT, 0.1), SL_T_VARCHAR, 0, 0, "0.1");
    EXPECT_TEXT(D(1.0 / 3), SL_T_VARCHAR, 0, 0, "0.3333333333333333");
    EXPECT_TEXT(D(1e20), SL_T_VARCHAR, 0, 0, "1e+20");
    EXPECT_TEXT(D(NAN), SL_T_VARCHAR, 0, 0, "NaN");
    EXPECT_TEXT(D(-INFINITY), SL_T_VARCHAR, 0, 0, "-Infinity");
    /* width in bytes for VARCHAR */
    EXPECT_TEXT(I(SL_T_INT, 123), SL_T_VARCHAR, 2, SL_ERANGE, "");
    EXPECT_TEXT(I(SL_T_INT, 123), SL_T_VARCHAR, 3, 0, "123");
    EXPECT_TEXT(S("hello"), SL_T_VARCHAR, 5, 0, "hello");
    EXPECT_TEXT(S("hello"), SL_T_VARCHAR, 4, SL_ERANGE, "");
    /* "héllo" is 6 bytes, 5 characters; "日本語" 9 bytes, 3 characters */
    EXPECT_TEXT(S("h\xc3\xa9llo"), SL_T_VARCHAR, 5, SL_ERANGE, "");
    EXPECT_TEXT(S("h\xc3\xa9llo"), SL_T_VARCHAR, 6, 0, "h\xc3\xa9llo");
    EXPECT_TEXT(S("h\xc3\xa9llo"), SL_T_NCHAR, 5, 0, "h\xc3\xa9llo");
    EXPECT_TEXT(S("h\xc3\xa9llo"), SL_T_NCHAR, 4, SL_ERANGE, "");
    EXPECT_TEXT(S("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"), SL_T_NCHAR, 3, 0,
                "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e");
    EXPECT_TEXT(S("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"), SL_T_NCHAR, 2, SL_ERANGE, "");
    EXPECT_TEXT(S("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"), SL_T_VARCHAR, 8, SL_ERANGE, "");
    EXPECT_TEXT(S("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"), SL_T_VARCHAR, 9, 0,
                "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e");
    EXPECT_TEXT(S("\xf0\x9f\x98\x80"), SL_T_NCHAR, 1, 0, "\xf0\x9f\x98\x80");
    /* NCHAR holds UTF-8; VARCHAR holds any bytes */
    EXPECT_TEXT(S("\xff"), SL_T_NCHAR, 0, SL_ETYPE, "");
    EXPECT_TEXT(S("\xff"), SL_T_VARCHAR, 0, 0, "\xff");
    EXPECT_TEXT(S("\xc0\xaf"), SL_T_NCHAR, 0, SL_ETYPE, "");
    EXPECT_TEXT(S("\xe6\x97"), SL_T_NCHAR, 0, SL_ETYPE, "");
    /* width 0 is unbounded */
    EXPECT_TEXT(S("a long piece of text"), SL_T_NCHAR, 0, 0, "a long piece of text");

    /* text to text borrows the bytes; numbers are formatted into buf */
    char buf[8];
    sl_value out, v = S("abc");
    assert_int_equal(sl_value_cast(&v, SL_T_NCHAR, 3, SL_PREC_MS, buf, sizeof(buf), &out, NULL), 0);
    assert_ptr_equal(out.v.s.ptr, v.v.s.ptr);
    v = I(SL_T_INT, 1234567);
    assert_int_equal(sl_value_cast(&v, SL_T_VARCHAR, 0, SL_PREC_MS, buf, sizeof(buf), &out, NULL),
                     0);
    assert_ptr_equal(out.v.s.ptr, buf);
    assert_int_equal(out.v.s.len, 7);
    v = I(SL_T_INT, 12345678);
    assert_int_equal(sl_value_cast(&v, SL_T_VARCHAR, 0, SL_PREC_MS, buf, sizeof(buf), &out, NULL),
                     SL_ELIMIT);
}

/* ---- comparison ------------------------------------------------------------------ */

static int cmp_of(int line, sl_value a, sl_value b, sl_precision p)
{
    int c = 99;
    int rc = sl_value_compare(&a, &b, p, &c);
    if (rc != 0)
        fail_msg("line %d: rc %d", line, rc);
    /* swapping the operands must flip the answer */
    int r = 99;
    assert_int_equal(sl_value_compare(&b, &a, p, &r), 0);
    if (r != -c)
        fail_msg("line %d: not antisymmetric (%d, %d)", line, c, r);
    return c;
}

#define CMP(a, b) cmp_of(__LINE__, a, b, SL_PREC_MS)

static void test_compare_numbers(void **state)
{
    (void)state;
    /* 9.223372036854775807e18 is the double 2^63, one more than INT64_MAX */
    assert_int_equal(CMP(I(SL_T_BIGINT, INT64_MAX), D(9.223372036854775807e18)), -1);
    assert_int_equal(CMP(I(SL_T_BIGINT, INT64_MIN), D(-9223372036854775808.0)), 0);
    assert_int_equal(CMP(I(SL_T_BIGINT, INT64_MIN + 1), D(-9223372036854775808.0)), 1);
    /* 2^53+1 has no double; rounding it would call these equal */
    assert_int_equal(CMP(I(SL_T_BIGINT, 9007199254740993LL), D(9007199254740992.0)), 1);
    assert_int_equal(CMP(U(SL_T_UBIGINT, 9007199254740993ULL), D(9007199254740992.0)), 1);
    /* unsigned beyond INT64_MAX against signed */
    assert_int_equal(CMP(U(SL_T_UBIGINT, (uint64_t)INT64_MAX + 1), I(SL_T_BIGINT, -1)), 1);
    assert_int_equal(CMP(U(SL_T_UBIGINT, (uint64_t)INT64_MAX + 1), I(SL_T_BIGINT, INT64_MAX)), 1);
    assert_int_equal(CMP(I(SL_T_BIGINT, -1), U(SL_T_UBIGINT, UINT64_MAX)), -1);
    assert_int_equal(CMP(U(SL_T_UTINYINT, 5), I(SL_T_INT, 5)), 0);
    assert_int_equal(CMP(U(SL_T_UBIGINT, UINT64_MAX), D(18446744073709551616.0)), -1);
    assert_int_equal(CMP(U(SL_T_UBIGINT, UINT64_C(9223372036854775808)), D(9223372036854775808.0)),
                     0);
    assert_int_equal(CMP(U(SL_T_UBIGINT, 0), D(-0.5)), 1);
    /* fractions break ties */
    assert_int_equal(CMP(D(2.5), I(SL_T_INT, 2)), 1);
    assert_int_equal(CMP(I(SL_T_INT, 3), D(2.5)), 1);
    assert_int_equal(CMP(I(SL_T_INT, -3), D(-2.5)), -1);
    assert_int_equal(CMP(I(SL_T_INT, -2), D(-2.5)), 1);
    assert_int_equal(CMP(I(SL_T_INT, 3), D(3.0)), 0);
    assert_int_equal(CMP(D(-0.0), I(SL_T_INT, 0)), 0);
    assert_int_equal(CMP(D(-1e300), I(SL_T_BIGINT, INT64_MIN)), -1);
    assert_int_equal(CMP(D(INFINITY), U(SL_T_UBIGINT, UINT64_MAX)), 1);
    /* FLOAT holds 0.1f, a little more than the double 0.1 */
    assert_int_equal(CMP(sl_value_double(SL_T_FLOAT, 0.1), D(0.1)), 1);
    assert_int_equal(CMP(sl_value_double(SL_T_FLOAT, 0.5), D(0.5)), 0);
    /* NaN sorts above everything and equals itself */
    assert_int_equal(CMP(D(NAN), I(SL_T_INT, 1)), 1);
    assert_int_equal(CMP(D(NAN), U(SL_T_UBIGINT, UINT64_MAX)), 1);
    assert_int_equal(CMP(D(NAN), D(INFINITY)), 1);
    assert_int_equal(CMP(D(NAN), D(NAN)), 0);
    /* BOOL is 0/1 */
    assert_int_equal(CMP(sl_value_bool(true), I(SL_T_INT, 1)), 0);
    assert_int_equal(CMP(sl_value_bool(false), I(SL_T_INT, 1)), -1);
    assert_int_equal(CMP(sl_value_bool(true), D(0.5)), 1);
    assert_int_equal(CMP(sl_value_bool(true), sl_value_bool(true)), 0);
    assert_int_equal(CMP(sl_value_bool(false), sl_value_bool(true)), -1);
    /* TIMESTAMP against integers is numeric */
    assert_int_equal(CMP(I(SL_T_TIMESTAMP, 1000), I(SL_T_BIGINT, 999)), 1);
    assert_int_equal(CMP(I(SL_T_TIMESTAMP, 1000), I(SL_T_TIMESTAMP, 1000)), 0);
    assert_int_equal(CMP(I(SL_T_TIMESTAMP, -1), U(SL_T_UINT, 0)), -1);
}

static void test_compare_text(void **state)
{
    (void)state;
    assert_int_equal(CMP(S("abc"), S("abd")), -1);
    assert_int_equal(CMP(S("abc"), S("ab")), 1);
    assert_int_equal(CMP(S(""), S("")), 0);
    assert_int_equal(CMP(S(""), S("a")), -1);
    assert_int_equal(CMP(S("\xff"), S("a")), 1); /* bytes are unsigned */
    assert_int_equal(CMP(S("x"), sl_value_str(SL_T_NCHAR, "x", 1)), 0);
    /* numbers against numeric text compare as numbers, not as text */
    assert_int_equal(CMP(I(SL_T_INT, 10), S("9")), 1);
    assert_int_equal(CMP(I(SL_T_INT, 10), S(" 10 ")), 0);
    assert_int_equal(CMP(D(1.5), S("1.5")), 0);
    assert_int_equal(CMP(I(SL_T_BIGINT, 1000), S("1e3")), 0);
    assert_int_equal(CMP(U(SL_T_UBIGINT, UINT64_MAX), S("18446744073709551615")), 0);
    assert_int_equal(CMP(I(SL_T_BIGINT, INT64_MAX), S("9223372036854775808")), -1);
    assert_int_equal(CMP(sl_value_bool(true), S("true")), 0);
    assert_int_equal(CMP(sl_value_bool(false), S("TRUE")), -1);
    assert_int_equal(CMP(sl_value_bool(true), S("1")), 0);

    int c;
    sl_value a = S("abc"), b = I(SL_T_INT, 1), n = sl_value_null(SL_T_INT);
    assert_int_equal(sl_value_compare(&a, &b, SL_PREC_MS, &c), SL_ETYPE);
    assert_int_equal(sl_value_compare(&b, &a, SL_PREC_MS, &c), SL_ETYPE);
    assert_int_equal(sl_value_compare(&b, &n, SL_PREC_MS, &c), SL_EINVAL);
}

static void test_compare_timestamp_text(void **state)
{
    (void)state;
    sl_value ts = I(SL_T_TIMESTAMP, INT64_C(1735689600000));
    assert_int_equal(CMP(ts, S("2025-01-01 00:00:00.000")), 0);
    assert_int_equal(CMP(ts, S("2025-01-01 00:00:00.001")), -1);
    assert_int_equal(CMP(ts, S("2024-12-31")), 1);
    assert_int_equal(CMP(ts, S("2025-01-01 08:00:00+08:00")), 0);
    assert_int_equal(CMP(ts, S("1735689600000")), 0);
    assert_int_equal(CMP(S("2025-01-01"), I(SL_T_TIMESTAMP, INT64_C(1735689600001))), -1);
    /* in microseconds the same text is a different count */
    sl_value tus = I(SL_T_TIMESTAMP, INT64_C(1735689600000000)), t = S("2025-01-01");
    int c = 99;
    assert_int_equal(sl_value_compare(&tus, &t, SL_PREC_US, &c), 0);
    assert_int_equal(c, 0);
    assert_int_equal(sl_value_compare(&ts, &t, SL_PREC_US, &c), 0);
    assert_int_equal(c, -1);
    sl_value g = S("not a time");
    assert_int_equal(sl_value_compare(&ts, &g, SL_PREC_MS, &c), SL_ETYPE);
}

/* ---- display --------------------------------------------------------------------- */

static void expect_fmt(int line, sl_value v, sl_precision p, const char *want)
{
    char buf[64];
    int n = sl_value_format(&v, p, buf, sizeof(buf));
    if (n != (int)strlen(want) || strcmp(buf, want) != 0)
        fail_msg("line %d: got '%s' (%d), want '%s'", line, buf, n, want);
}

#define FMT(v, want) expect_fmt(__LINE__, v, SL_PREC_MS, want)

static void test_format(void **state)
{
    (void)state;
    FMT(sl_value_null(SL_T_NULL), "NULL");
    FMT(sl_value_null(SL_T_INT), "NULL");
    FMT(sl_value_bool(true), "true");
    FMT(sl_value_bool(false), "false");
    FMT(I(SL_T_TINYINT, -128), "-128");
    FMT(I(SL_T_BIGINT, INT64_MIN), "-9223372036854775808");
    FMT(U(SL_T_UBIGINT, UINT64_MAX), "18446744073709551615");
    FMT(D(1.5), "1.5");
    FMT(D(100.0), "100");
    FMT(D(-0.0), "-0");
    FMT(D(0.1 + 0.2), "0.30000000000000004");
    FMT(D(123456789012345680.0), "1.2345678901234568e+17");
    FMT(D(INFINITY), "Infinity");
    FMT(D(NAN), "NaN");
    FMT(sl_value_double(SL_T_FLOAT, 0.1), "0.1");
    FMT(sl_value_double(SL_T_FLOAT, 1.1), "1.1");
    FMT(sl_value_double(SL_T_FLOAT, 3.4e38), "3.4e+38");
    FMT(sl_value_double(SL_T_FLOAT, 16777216.0), "16777216");
    FMT(I(SL_T_TIMESTAMP, INT64_C(1735689600000)), "2025-01-01 00:00:00.000");
    FMT(I(SL_T_TIMESTAMP, -1), "1969-12-31 23:59:59.999");
    expect_fmt(__LINE__, I(SL_T_TIMESTAMP, INT64_C(1735689600000001)), SL_PREC_US,
               "2025-01-01 00:00:00.000001");
    FMT(S("h\xc3\xa9llo"), "h\xc3\xa9llo");
    FMT(S(""), "");

    /* truncation keeps snprintf's contract */
    char small[4];
    sl_value v = S("h\xc3\xa9llo");
    assert_int_equal(sl_value_format(&v, SL_PREC_MS, small, sizeof(small)), 6);
    assert_string_equal(small, "h\xc3\xa9");
    v = I(SL_T_BIGINT, 123456);
    assert_int_equal(sl_value_format(&v, SL_PREC_MS, small, sizeof(small)), 6);
    assert_string_equal(small, "123");
    assert_int_equal(sl_value_format(&v, SL_PREC_MS, NULL, 0), 6);
}

static void test_utf8_count(void **state)
{
    (void)state;
    assert_int_equal(sl_utf8_count("", 0), 0);
    assert_int_equal(sl_utf8_count("abc", 3), 3);
    assert_int_equal(sl_utf8_count("h\xc3\xa9llo", 6), 5);
    assert_int_equal(sl_utf8_count("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 9), 3);
    assert_int_equal(sl_utf8_count("\xf0\x9f\x98\x80", 4), 1);
    assert_int_equal(sl_utf8_count("\xf4\x8f\xbf\xbf", 4), 1);  /* U+10FFFF */
    assert_int_equal(sl_utf8_count("a\0b", 3), 3);              /* NUL is a character */
    assert_int_equal(sl_utf8_count("\xf4\x90\x80\x80", 4), -1); /* above U+10FFFF */
    assert_int_equal(sl_utf8_count("\xf0\x9f\x98", 3), -1);     /* truncated */
    assert_int_equal(sl_utf8_count("\x80", 1), -1);             /* lone continuation */
    assert_int_equal(sl_utf8_count("\xc0\xaf", 2), -1);         /* overlong '/' */
    assert_int_equal(sl_utf8_count("\xe0\x80\xaf", 3), -1);     /* overlong '/' */
    assert_int_equal(sl_utf8_count("\xed\xa0\x80", 3), -1);     /* surrogate U+D800 */
    assert_int_equal(sl_utf8_count("\xf8\x88\x80\x80\x80", 5), -1);
    assert_int_equal(sl_utf8_count("\xc3(", 2), -1);
}

/* Group keys: the canonical encoding written out by hand, and the id is xxHash3 of it. */
static void test_group_key(void **state)
{
    (void)state;
    sl_value keys[4] = {
        sl_value_str(SL_T_VARCHAR, "d1", 2),
        sl_value_int(SL_T_INT, -2),
        sl_value_null(SL_T_BIGINT),
        sl_value_double(SL_T_DOUBLE, -0.0),
    };
    const uint8_t want[] = {
        SL_T_VARCHAR, 2,    0,    0,    0,    'd',  '1',                  /* "d1" */
        SL_T_INT,     0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,     /* -2 */
        0,                                                                /* NULL */
        SL_T_DOUBLE,  0,    0,    0,    0,    0,    0,    0,    0,        /* -0.0 as 0.0 */
    };
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_group_key_encode(keys, 4, &b), 0);
    assert_int_equal(b.len, sizeof(want));
    assert_memory_equal(b.data, want, sizeof(want));
    sl_buf_fini(&b);
    assert_true(sl_group_id(keys, 4) == sl_hash_bytes(want, sizeof(want)));
    /* No keys: the hash of nothing, the same every time. */
    assert_true(sl_group_id(NULL, 0) == sl_hash_bytes("", 0));
    /* 0.0 and -0.0 are one group; NaNs are one group; 1 and "1" are not. */
    sl_value z = sl_value_double(SL_T_DOUBLE, 0.0), nz = sl_value_double(SL_T_DOUBLE, -0.0);
    assert_true(sl_group_id(&z, 1) == sl_group_id(&nz, 1));
    sl_value n1 = sl_value_double(SL_T_DOUBLE, NAN), n2 = sl_value_double(SL_T_DOUBLE, -NAN);
    assert_true(sl_group_id(&n1, 1) == sl_group_id(&n2, 1));
    sl_value i1 = sl_value_int(SL_T_INT, 1), s1 = sl_value_str(SL_T_VARCHAR, "1", 1);
    assert_true(sl_group_id(&i1, 1) != sl_group_id(&s1, 1));
    /* Key boundaries matter: ("ab", "c") differs from ("a", "bc"). */
    sl_value ab_c[2] = {sl_value_str(SL_T_VARCHAR, "ab", 2), sl_value_str(SL_T_VARCHAR, "c", 1)};
    sl_value a_bc[2] = {sl_value_str(SL_T_VARCHAR, "a", 1), sl_value_str(SL_T_VARCHAR, "bc", 2)};
    assert_true(sl_group_id(ab_c, 2) != sl_group_id(a_bc, 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_names),
        cmocka_unit_test(test_type_from_name),
        cmocka_unit_test(test_constructors),
        cmocka_unit_test(test_cast_null),
        cmocka_unit_test(test_cast_int_narrowing),
        cmocka_unit_test(test_cast_float_to_int),
        cmocka_unit_test(test_cast_to_float),
        cmocka_unit_test(test_cast_bool),
        cmocka_unit_test(test_cast_text_to_number),
        cmocka_unit_test(test_cast_text_to_timestamp),
        cmocka_unit_test(test_cast_to_text),
        cmocka_unit_test(test_compare_numbers),
        cmocka_unit_test(test_compare_text),
        cmocka_unit_test(test_compare_timestamp_text),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_utf8_count),
        cmocka_unit_test(test_group_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
