/*
 * test_timeutil.c - precisions, duration conversion and UTC timestamp text.
 *
 * Expected epoch counts were computed independently (Python's datetime with an explicit
 * UTC zone, and by hand from the day counts of the Gregorian calendar), never by running
 * sl_time_parse / sl_time_format.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/util/timeutil.h"

static void test_precision_names(void **state)
{
    (void)state;
    sl_precision p;
    assert_string_equal(sl_precision_name(SL_PREC_MS), "ms");
    assert_string_equal(sl_precision_name(SL_PREC_US), "us");
    assert_string_equal(sl_precision_name(SL_PREC_NS), "ns");
    assert_int_equal(sl_precision_parse("ms", &p), 0);
    assert_int_equal(p, SL_PREC_MS);
    assert_int_equal(sl_precision_parse("US", &p), 0);
    assert_int_equal(p, SL_PREC_US);
    assert_int_equal(sl_precision_parse("nS", &p), 0);
    assert_int_equal(p, SL_PREC_NS);
    assert_int_equal(sl_precision_parse("s", &p), SL_EINVAL);
    assert_int_equal(sl_precision_parse("", &p), SL_EINVAL);
    assert_int_equal(sl_precision_parse("msx", &p), SL_EINVAL);
    assert_int_equal(sl_precision_parse("xs", &p), SL_EINVAL);
    assert_int_equal(sl_precision_parse(NULL, &p), SL_EINVAL);
    assert_int_equal(sl_precision_per_sec(SL_PREC_MS), 1000);
    assert_int_equal(sl_precision_per_sec(SL_PREC_US), 1000000);
    assert_int_equal(sl_precision_per_sec(SL_PREC_NS), 1000000000);
}

static void test_duration_units(void **state)
{
    (void)state;
    const char *valid = "buasmhdwny";
    for (const char *c = valid; *c; c++)
        assert_true(sl_duration_unit_valid(*c));
    const char *invalid = "xMSHDWNYBA0 ";
    for (const char *c = invalid; *c; c++)
        assert_false(sl_duration_unit_valid(*c));
    assert_false(sl_duration_unit_valid('\0'));
    assert_true(sl_duration_unit_is_calendar('n'));
    assert_true(sl_duration_unit_is_calendar('y'));
    for (const char *c = "buasmhdw"; *c; c++)
        assert_false(sl_duration_unit_is_calendar(*c));
}

typedef struct dur_case {
    int64_t value;
    char unit;
    sl_precision p;
    int rc;
    int64_t out;
} dur_case;

static void test_duration_convert(void **state)
{
    (void)state;
    static const dur_case cases[] = {
        {1, 's', SL_PREC_MS, 0, 1000},
        {1, 's', SL_PREC_US, 0, 1000000},
        {1, 's', SL_PREC_NS, 0, 1000000000},
        {2, 'h', SL_PREC_MS, 0, 7200000},
        {1, 'd', SL_PREC_MS, 0, 86400000},
        {1, 'w', SL_PREC_MS, 0, 604800000},
        {3, 'm', SL_PREC_US, 0, 180000000},
        {1, 'a', SL_PREC_MS, 0, 1},
        {1, 'a', SL_PREC_US, 0, 1000},
        {1, 'a', SL_PREC_NS, 0, 1000000},
        {7, 'u', SL_PREC_US, 0, 7},
        {7, 'u', SL_PREC_NS, 0, 7000},
        {1, 'b', SL_PREC_NS, 0, 1},
        {-5, 's', SL_PREC_MS, 0, -5000},
        {0, 'd', SL_PREC_NS, 0, 0},
        /* finer than the precision: only whole ticks */
        {1000, 'u', SL_PREC_MS, 0, 1},
        {-1000, 'u', SL_PREC_MS, 0, -1},
        {1, 'u', SL_PREC_MS, SL_ERANGE, 0},
        {1500, 'u', SL_PREC_MS, SL_ERANGE, 0},
        {1, 'b', SL_PREC_US, SL_ERANGE, 0},
        {2000, 'b', SL_PREC_US, 0, 2},
        {3000000, 'b', SL_PREC_MS, 0, 3},
        {-999999, 'b', SL_PREC_MS, SL_ERANGE, 0},
        /* calendar units have no fixed length */
        {1, 'n', SL_PREC_MS, SL_EUNSUPPORTED, 0},
        {1, 'y', SL_PREC_NS, SL_EUNSUPPORTED, 0},
        {1, 'x', SL_PREC_MS, SL_EINVAL, 0},
        {1, 'S', SL_PREC_MS, SL_EINVAL, 0},
        /* overflow: INT64_MAX / 1000 = 9223372036854775 */
        {INT64_C(9223372036854775), 's', SL_PREC_MS, 0, INT64_C(9223372036854775000)},
        {INT64_C(9223372036854776), 's', SL_PREC_MS, SL_EOVERFLOW, 0},
        {INT64_C(-9223372036854776), 's', SL_PREC_MS, SL_EOVERFLOW, 0},
        {INT64_MAX, 'a', SL_PREC_MS, 0, INT64_MAX},
        {INT64_MAX, 'a', SL_PREC_US, SL_EOVERFLOW, 0},
        {INT64_MIN, 'b', SL_PREC_NS, 0, INT64_MIN},
        /* 1w = 604800000000000 ns; 15250w fits, 15251w does not */
        {15250, 'w', SL_PREC_NS, 0, INT64_C(9223200000000000000)},
        {15251, 'w', SL_PREC_NS, SL_EOVERFLOW, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const dur_case *c = &cases[i];
        int64_t out = -42;
        int rc = sl_duration_to_precision(c->value, c->unit, c->p, &out);
        if (rc != c->rc)
            fail_msg("case %zu: %lld%c rc %d, want %d", i, (long long)c->value, c->unit, rc, c->rc);
        if (rc == 0 && out != c->out)
            fail_msg("case %zu: got %lld want %lld", i, (long long)out, (long long)c->out);
    }
}

typedef struct parse_case {
    const char *text;
    sl_precision p;
    int rc;
    int64_t ts;
} parse_case;

static void test_time_parse_valid(void **state)
{
    (void)state;
    static const parse_case cases[] = {
        {"2025-01-01 00:00:00.000", SL_PREC_MS, 0, INT64_C(1735689600000)},
        {"2025-01-01 00:00:00", SL_PREC_MS, 0, INT64_C(1735689600000)},
        {"2025-01-01", SL_PREC_MS, 0, INT64_C(1735689600000)},
        {"2025-01-01T00:00:00Z", SL_PREC_MS, 0, INT64_C(1735689600000)},
        {"2025-01-01 00:00:00.000", SL_PREC_US, 0, INT64_C(1735689600000000)},
        {"2025-01-01 00:00:00.000", SL_PREC_NS, 0, INT64_C(1735689600000000000)},
        {"1970-01-01", SL_PREC_NS, 0, 0},
        /* leap day */
        {"2024-02-29 12:34:56", SL_PREC_MS, 0, INT64_C(1709210096000)},
        {"2024-02-29 12:34:56.789", SL_PREC_MS, 0, INT64_C(1709210096789)},
        {"2024-02-29 12:34:56.789", SL_PREC_US, 0, INT64_C(1709210096789000)},
        {"2024-02-29 12:34:56.123456", SL_PREC_US, 0, INT64_C(1709210096123456)},
        {"2024-02-29 12:34:56.123456789", SL_PREC_NS, 0, INT64_C(1709210096123456789)},
        {"2024-02-29T12:34:56.1", SL_PREC_MS, 0, INT64_C(1709210096100)},
        {"2024-03-01", SL_PREC_MS, 0, INT64_C(1709251200000)},
        {"2000-02-29", SL_PREC_MS, 0, INT64_C(951782400000)},
        /* fraction digits beyond the precision are fine when zero */
        {"2024-02-29 12:34:56.123000", SL_PREC_MS, 0, INT64_C(1709210096123)},
        {"2024-02-29 12:34:56.123000000", SL_PREC_MS, 0, INT64_C(1709210096123)},
        /* before 1970: the fraction still counts forward from the second */
        {"1969-12-31 23:59:59", SL_PREC_MS, 0, -1000},
        {"1969-12-31 23:59:59.999", SL_PREC_MS, 0, -1},
        {"1969-12-31 23:59:59.5", SL_PREC_MS, 0, -500},
        {"1969-12-31 23:59:59.999999999", SL_PREC_NS, 0, -1},
        {"1960-06-15 10:20:30.250", SL_PREC_MS, 0, INT64_C(-301239569750)},
        {"1900-01-01 00:00:00", SL_PREC_MS, 0, INT64_C(-2208988800000)},
        {"0001-01-01 00:00:00", SL_PREC_MS, 0, INT64_C(-62135596800000)},
        {"0000-01-01", SL_PREC_MS, 0, INT64_C(-62167219200000)},
        {"9999-12-31 23:59:59.999", SL_PREC_MS, 0, INT64_C(253402300799999)},
        /* offsets east and west of UTC */
        {"2025-01-01 08:00:00+08:00", SL_PREC_MS, 0, INT64_C(1735689600000)},
        {"2024-12-31 19:00:00-05:00", SL_PREC_MS, 0, INT64_C(1735689600000)},
        {"2025-01-01T05:30:00.000+05:30", SL_PREC_MS, 0, INT64_C(1735689600000)},
        {"1970-01-01 00:00:00+00:00", SL_PREC_MS, 0, 0},
        {"1970-01-01 00:00:00-00:01", SL_PREC_MS, 0, 60000},
        /* the int64 nanosecond range ends exactly here */
        {"2262-04-11 23:47:16.854775807", SL_PREC_NS, 0, INT64_MAX},
        {"1677-09-21 00:12:43.145224192", SL_PREC_NS, 0, INT64_MIN},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const parse_case *c = &cases[i];
        int64_t ts = 42;
        int rc = sl_time_parse(c->text, strlen(c->text), c->p, &ts);
        if (rc != c->rc || ts != c->ts)
            fail_msg("'%s' (%s): rc %d ts %lld, want rc %d ts %lld", c->text,
                     sl_precision_name(c->p), rc, (long long)ts, c->rc, (long long)c->ts);
    }
}

static void test_time_parse_invalid(void **state)
{
    (void)state;
    static const parse_case cases[] = {
        {"", SL_PREC_MS, SL_EINVAL, 0},
        {"abc", SL_PREC_MS, SL_EINVAL, 0},
        {"2025", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-1-1", SL_PREC_MS, SL_EINVAL, 0},
        {"2025/01/01", SL_PREC_MS, SL_EINVAL, 0},
        {"20250101", SL_PREC_MS, SL_EINVAL, 0},
        {" 2025-01-01", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 ", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01x", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 00:00", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 00:00:00.", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 00:00:00.1234567890", SL_PREC_NS, SL_EINVAL, 0},
        {"2025-01-01 00:00:00x", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 00:00:00Z junk", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 00:00:00 Z", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 00:00:00+8:00", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 00:00:00+08", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 00:00:00+0800", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 00:00:00+24:00", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 00:00:00+08:60", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 00:00:00.123.4", SL_PREC_MS, SL_EINVAL, 0},
        {"-2025-01-01", SL_PREC_MS, SL_EINVAL, 0},
        {"12025-01-01", SL_PREC_MS, SL_EINVAL, 0},
        /* calendar fields out of range */
        {"2025-02-29", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-02-30", SL_PREC_MS, SL_EINVAL, 0},
        {"2024-02-30", SL_PREC_MS, SL_EINVAL, 0},
        {"1900-02-29", SL_PREC_MS, SL_EINVAL, 0},
        {"2100-02-29", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-04-31", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-13-01", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-00-10", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-00", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-32", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 25:00:00", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 24:00:00", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 23:60:00", SL_PREC_MS, SL_EINVAL, 0},
        {"2025-01-01 23:59:60", SL_PREC_MS, SL_EINVAL, 0},
        /* non-zero digits finer than the precision */
        {"2024-02-29 12:34:56.1234", SL_PREC_MS, SL_ERANGE, 0},
        {"2024-02-29 12:34:56.0000001", SL_PREC_US, SL_ERANGE, 0},
        /* outside the int64 nanosecond range */
        {"2262-04-11 23:47:16.854775808", SL_PREC_NS, SL_ERANGE, 0},
        {"1677-09-21 00:12:43.145224191", SL_PREC_NS, SL_ERANGE, 0},
        {"1600-01-01", SL_PREC_NS, SL_ERANGE, 0},
        {"9999-12-31", SL_PREC_NS, SL_ERANGE, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const parse_case *c = &cases[i];
        int64_t ts = 42;
        int rc = sl_time_parse(c->text, strlen(c->text), c->p, &ts);
        if (rc != c->rc)
            fail_msg("'%s': rc %d, want %d", c->text, rc, c->rc);
        assert_int_equal(ts, 42); /* untouched on error */
    }
}

static void test_time_parse_lengths(void **state)
{
    (void)state;
    int64_t ts = 0;
    /* len bounds the text; the rest of the C string is not looked at */
    const char *s = "2025-01-01 00:00:00.000";
    assert_int_equal(sl_time_parse(s, 10, SL_PREC_MS, &ts), 0);
    assert_int_equal(ts, INT64_C(1735689600000));
    assert_int_equal(sl_time_parse(s, 19, SL_PREC_MS, &ts), 0);
    assert_int_equal(ts, INT64_C(1735689600000));
    assert_int_equal(sl_time_parse(s, 20, SL_PREC_MS, &ts), SL_EINVAL);
    assert_int_equal(sl_time_parse(s, 9, SL_PREC_MS, &ts), SL_EINVAL);
    /* an embedded NUL is garbage, not an end */
    assert_int_equal(sl_time_parse("2025-01-01\0", 11, SL_PREC_MS, &ts), SL_EINVAL);
    assert_int_equal(sl_time_parse(NULL, 0, SL_PREC_MS, &ts), SL_EINVAL);
    assert_int_equal(sl_time_parse("2025-01-01", 10, (sl_precision)7, &ts), SL_EINVAL);
}

typedef struct fmt_case {
    int64_t ts;
    sl_precision p;
    const char *text;
} fmt_case;

static void test_time_format(void **state)
{
    (void)state;
    static const fmt_case cases[] = {
        {INT64_C(1735689600000), SL_PREC_MS, "2025-01-01 00:00:00.000"},
        {0, SL_PREC_MS, "1970-01-01 00:00:00.000"},
        {0, SL_PREC_US, "1970-01-01 00:00:00.000000"},
        {0, SL_PREC_NS, "1970-01-01 00:00:00.000000000"},
        {-1, SL_PREC_MS, "1969-12-31 23:59:59.999"},
        {-500, SL_PREC_MS, "1969-12-31 23:59:59.500"},
        {-1, SL_PREC_NS, "1969-12-31 23:59:59.999999999"},
        {INT64_C(1709210096789), SL_PREC_MS, "2024-02-29 12:34:56.789"},
        {INT64_C(1709210096123456), SL_PREC_US, "2024-02-29 12:34:56.123456"},
        {INT64_C(1709210096123456789), SL_PREC_NS, "2024-02-29 12:34:56.123456789"},
        {INT64_C(-2208988800000), SL_PREC_MS, "1900-01-01 00:00:00.000"},
        {INT64_C(-301239569750), SL_PREC_MS, "1960-06-15 10:20:30.250"},
        {INT64_C(-62135596800000), SL_PREC_MS, "0001-01-01 00:00:00.000"},
        {INT64_C(-62167219200000), SL_PREC_MS, "0000-01-01 00:00:00.000"},
        {INT64_C(-62198755200000), SL_PREC_MS, "-0001-01-01 00:00:00.000"},
        {INT64_C(253402300799999), SL_PREC_MS, "9999-12-31 23:59:59.999"},
        {INT64_MAX, SL_PREC_NS, "2262-04-11 23:47:16.854775807"},
        {INT64_MIN, SL_PREC_NS, "1677-09-21 00:12:43.145224192"},
        {INT64_MAX, SL_PREC_US, "294247-01-10 04:00:54.775807"},
        {INT64_MIN, SL_PREC_US, "-290308-12-21 19:59:05.224192"},
        {INT64_MAX, SL_PREC_MS, "292278994-08-17 07:12:55.807"},
        {INT64_MIN, SL_PREC_MS, "-292275055-05-16 16:47:04.192"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[48];
        int n = sl_time_format(cases[i].ts, cases[i].p, buf, sizeof(buf));
        assert_string_equal(buf, cases[i].text);
        assert_int_equal(n, (int)strlen(cases[i].text));
    }
    /* a short buffer truncates and still reports the full length */
    char small[11];
    assert_int_equal(sl_time_format(0, SL_PREC_MS, small, sizeof(small)), 23);
    assert_string_equal(small, "1970-01-01");
    assert_int_equal(sl_time_format(0, (sl_precision)9, small, sizeof(small)), SL_EINVAL);
}

static void test_time_round_trip(void **state)
{
    (void)state;
    static const char *texts[] = {
        "2025-01-01 00:00:00.000", "2024-02-29 23:59:59.999", "1969-12-31 00:00:00.001",
        "1900-03-01 12:00:00.000", "1600-02-29 06:07:08.009", "2262-04-11 23:47:16.854",
    };
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        int64_t ts;
        char buf[48];
        assert_int_equal(sl_time_parse(texts[i], strlen(texts[i]), SL_PREC_MS, &ts), 0);
        sl_time_format(ts, SL_PREC_MS, buf, sizeof(buf));
        assert_string_equal(buf, texts[i]);
    }
}

static void test_civil(void **state)
{
    (void)state;
    assert_int_equal(sl_days_from_civil(1970, 1, 1), 0);
    assert_int_equal(sl_days_from_civil(2024, 2, 29), 19782);
    assert_int_equal(sl_days_from_civil(2000, 3, 1), 11017);
    assert_int_equal(sl_days_from_civil(1900, 3, 1), -25508);
    assert_int_equal(sl_days_from_civil(1, 1, 1), -719162);
    assert_int_equal(sl_days_from_civil(0, 1, 1), -719528);
    assert_int_equal(sl_days_from_civil(1969, 12, 31), -1);

    int64_t y;
    unsigned m, d;
    sl_civil_from_days(-1, &y, &m, &d);
    assert_true(y == 1969 && m == 12 && d == 31);
    sl_civil_from_days(19782, &y, &m, &d);
    assert_true(y == 2024 && m == 2 && d == 29);
    sl_civil_from_days(-719162, &y, &m, &d);
    assert_true(y == 1 && m == 1 && d == 1);
    sl_civil_from_days(-719529, &y, &m, &d);
    assert_true(y == -1 && m == 12 && d == 31);

    /* Walking day by day from 1601-01-01 over 800 years must step the calendar by
     * exactly one day each time, with February's length following the leap rule. */
    static const unsigned dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t cy = 1601;
    unsigned cm = 1, cd = 1;
    int64_t z0 = sl_days_from_civil(1601, 1, 1);
    assert_int_equal(z0, -134774);
    for (int64_t z = z0; z < z0 + 800 * 366; z++) {
        sl_civil_from_days(z, &y, &m, &d);
        if (y != cy || m != cm || d != cd)
            fail_msg("day %lld: %lld-%u-%u, want %lld-%u-%u", (long long)z, (long long)y, m, d,
                     (long long)cy, cm, cd);
        assert_int_equal(sl_days_from_civil(y, m, d), z);
        bool leap = (cy % 4 == 0 && cy % 100 != 0) || cy % 400 == 0;
        unsigned len = cm == 2 && leap ? 29 : dim[cm - 1];
        if (++cd > len) {
            cd = 1;
            if (++cm > 12) {
                cm = 1;
                cy++;
            }
        }
    }
}

static void test_floor(void **state)
{
    (void)state;
    assert_int_equal(sl_floordiv(-7, 2), -4);
    assert_int_equal(sl_floormod(-7, 2), 1);
    assert_int_equal(sl_floordiv(7, -2), -4);
    assert_int_equal(sl_floormod(7, -2), -1);
    assert_int_equal(sl_floordiv(-6, 3), -2);
    assert_int_equal(sl_floormod(-6, 3), 0);
    assert_int_equal(sl_floordiv(7, 2), 3);
    assert_int_equal(sl_floormod(-1, 1000), 999);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_precision_names),
        cmocka_unit_test(test_duration_units),
        cmocka_unit_test(test_duration_convert),
        cmocka_unit_test(test_time_parse_valid),
        cmocka_unit_test(test_time_parse_invalid),
        cmocka_unit_test(test_time_parse_lengths),
        cmocka_unit_test(test_time_format),
        cmocka_unit_test(test_time_round_trip),
        cmocka_unit_test(test_civil),
        cmocka_unit_test(test_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
