/*
 * value.c - single typed values: construction, casts, exact comparison, display text;
 * see value.h.
 *
 * Casts and comparisons first reduce a value to one of three numeric forms (int64, uint64,
 * double) or keep it as text, so each rule is written once instead of once per pair of
 * types. Mixed integer/double comparisons never round the integer through a double: a
 * double is split into its integral part, compared as an integer, and its fraction breaks
 * ties. Text is parsed here, not with strtoll/atoi, so that "1e3", " 42 ", "0x10" and
 * out-of-range numbers get the same answer on every platform. Decimal text goes through
 * strtod and "%g", which assume the C numeric locale: Sluice never sets LC_NUMERIC.
 */
#include "value.h"

#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- constructors ---------------------------------------------------------------- */

sl_value sl_value_null(sl_type t)
{
    return (sl_value){.type = t, .is_null = true};
}

sl_value sl_value_bool(bool b)
{
    return (sl_value){.type = SL_T_BOOL, .v.b = b};
}

sl_value sl_value_int(sl_type t, int64_t i)
{
    return (sl_value){.type = t, .v.i = i};
}

sl_value sl_value_uint(sl_type t, uint64_t u)
{
    return (sl_value){.type = t, .v.u = u};
}

sl_value sl_value_double(sl_type t, double d)
{
    /* A FLOAT value holds exactly what a FLOAT column would store. */
    if (t == SL_T_FLOAT)
        d = (double)(float)d;
    return (sl_value){.type = t, .v.d = d};
}

sl_value sl_value_str(sl_type t, const char *p, uint32_t len)
{
    return (sl_value){.type = t, .v.s = {.ptr = p, .len = len}};
}

/* ---- UTF-8 ----------------------------------------------------------------------- */

int64_t sl_utf8_count(const char *p, size_t len)
{
    const unsigned char *s = (const unsigned char *)p;
    int64_t n = 0;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t k;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            n++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            k = 1, cp = c & 0x1f, min = 0x80;
        } else if ((c & 0xf0) == 0xe0) {
            k = 2, cp = c & 0x0f, min = 0x800;
        } else if ((c & 0xf8) == 0xf0) {
            k = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return -1;
        }
        if (len - i <= k)
            return -1;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xc0) != 0x80)
                return -1;
            cp = (cp << 6) | (s[i + j] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return -1;
        i += k + 1;
        n++;
    }
    return n;
}

/* ---- numbers --------------------------------------------------------------------- */

typedef enum num_kind { NUM_I, NUM_U, NUM_D } num_kind;

/* A number in the widest form that holds it exactly. */
typedef struct num {
    num_kind k;
    union {
        int64_t i;
        uint64_t u;
        double d;
    };
} num;

/* Reduces a non-NULL, non-string value to a number (BOOL is 0/1, TIMESTAMP its count). */
static num value_num(const sl_value *v)
{
    num n;
    if (v->type == SL_T_BOOL) {
        n.k = NUM_I;
        n.i = v->v.b;
    } else if (sl_type_is_unsigned_int(v->type)) {
        n.k = NUM_U;
        n.u = v->v.u;
    } else if (sl_type_is_float(v->type)) {
        n.k = NUM_D;
        n.d = v->v.d;
    } else {
        n.k = NUM_I;
        n.i = v->v.i;
    }
    return n;
}

static double num_double(num n)
{
    switch (n.k) {
    case NUM_I: return (double)n.i;
    case NUM_U: return (double)n.u;
    default: return n.d;
    }
}

static int cmp3_i(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

static int cmp3_u(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

/* NaN sorts above every number and equals itself, so sorting stays a total order. */
static int cmp3_d(double a, double b)
{
    if (isnan(a))
        return isnan(b) ? 0 : 1;
    if (isnan(b))
        return -1;
    return (a > b) - (a < b);
}

static int cmp3_i_d(int64_t i, double d)
{
    if (isnan(d) || d >= 0x1p63)
        return -1;
    if (d < -0x1p63)
        return 1;
    double t = trunc(d); /* in [-2^63, 2^63): converts exactly */
    int64_t ti = (int64_t)t;
    if (i != ti)
        return i < ti ? -1 : 1;
    return d > t ? -1 : (d < t ? 1 : 0);
}

static int cmp3_u_d(uint64_t u, double d)
{
    if (isnan(d) || d >= 0x1p64)
        return -1;
    if (d < 0)
        return 1;
    double t = trunc(d);
    uint64_t tu = (uint64_t)t;
    if (u != tu)
        return u < tu ? -1 : 1;
    return d > t ? -1 : 0;
}

static int num_compare(num a, num b)
{
    switch (a.k) {
    case NUM_I:
        if (b.k == NUM_I)
            return cmp3_i(a.i, b.i);
        if (b.k == NUM_U)
            return a.i < 0 ? -1 : cmp3_u((uint64_t)a.i, b.u);
        return cmp3_i_d(a.i, b.d);
    case NUM_U:
        if (b.k == NUM_I)
            return b.i < 0 ? 1 : cmp3_u(a.u, (uint64_t)b.i);
        if (b.k == NUM_U)
            return cmp3_u(a.u, b.u);
        return cmp3_u_d(a.u, b.d);
    default:
        if (b.k == NUM_I)
            return -cmp3_i_d(b.i, a.d);
        if (b.k == NUM_U)
            return -cmp3_u_d(b.u, a.d);
        return cmp3_d(a.d, b.d);
    }
}

/* ---- text ------------------------------------------------------------------------ */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Strips leading and trailing white space from [*p, *p + *len). */
static void trim(const char **p, uint32_t *len)
{
    const char *s = *p;
    uint32_t n = *len;
    while (n > 0 && is_space(s[0]))
        s++, n--;
    while (n > 0 && is_space(s[n - 1]))
        n--;
    *p = s;
    *len = n;
}

/* Case-insensitive comparison of s[0..len) with the lower-case word w. */
static bool word_equal(const char *s, uint32_t len, const char *w)
{
    size_t wl = strlen(w);
    if (len != wl)
        return false;
    for (size_t i = 0; i < wl; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != w[i])
            return false;
    }
    return true;
}

/* True when s[0..len) is an optional sign followed by one or more digits. */
static bool is_int_syntax(const char *s, uint32_t len)
{
    uint32_t i = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i == len)
        return false;
    for (; i < len; i++)
        if (!is_digit(s[i]))
            return false;
    return true;
}

/* True for a decimal number: [sign] (digits [. [digits]] | . digits) [e [sign] digits]. */
static bool is_decimal_syntax(const char *s, uint32_t len)
{
    uint32_t i = 0, mant = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    for (; i < len && is_digit(s[i]); i++)
        mant++;
    if (i < len && s[i] == '.')
        for (i++; i < len && is_digit(s[i]); i++)
            mant++;
    if (mant == 0)
        return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        uint32_t exp = 0;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        for (; i < len && is_digit(s[i]); i++)
            exp++;
        if (exp == 0)
            return false;
    }
    return i == len;
}

/*
 * Parses trimmed text as a number: integers exactly when they fit int64 or uint64, other
 * decimals (and integers too long for 64 bits) as the nearest double, plus NaN and
 * Infinity spelt as PostgreSQL prints them. Returns 0, SL_ETYPE for text that is not a
 * number, SL_ERANGE for a decimal beyond the double range, or SL_ENOMEM.
 */
static int parse_num(const char *s, uint32_t len, num *out)
{
    if (is_int_syntax(s, len)) {
        bool neg = s[0] == '-';
        uint32_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
        uint64_t mag = 0;
        bool fits = true;
        for (; i < len && fits; i++) {
            unsigned dg = (unsigned)(s[i] - '0');
            if (mag > (UINT64_MAX - dg) / 10)
                fits = false;
            else
                mag = mag * 10 + dg;
        }
        if (fits && !neg && mag <= (uint64_t)INT64_MAX) {
            out->k = NUM_I;
            out->i = (int64_t)mag;
            return 0;
        }
        if (fits && !neg) {
            out->k = NUM_U;
            out->u = mag;
            return 0;
        }
        if (fits && mag <= (uint64_t)INT64_MAX + 1) {
            out->k = NUM_I;
            out->i = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
            return 0;
        }
        /* Too long for 64 bits: fall through to the double parse below. */
    } else if (!is_decimal_syntax(s, len)) {
        const char *w = s;
        uint32_t wl = len;
        double sign = 1;
        if (wl > 0 && (w[0] == '+' || w[0] == '-')) {
            sign = w[0] == '-' ? -1 : 1;
            w++, wl--;
        }
        if (word_equal(w, wl, "nan")) {
            out->k = NUM_D;
            out->d = NAN;
            return 0;
        }
        if (word_equal(w, wl, "inf") || word_equal(w, wl, "infinity")) {
            out->k = NUM_D;
            out->d = sign * INFINITY;
            return 0;
        }
        return SL_ETYPE;
    }
    /* strtod needs a NUL-terminated copy; numbers are short, so the stack usually does. */
    char small[128];
    char *tmp = small;
    if (len >= sizeof(small)) {
        tmp = malloc((size_t)len + 1);
        if (tmp == NULL)
            return SL_ENOMEM;
    }
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    double d = strtod(tmp, NULL);
    if (tmp != small)
        free(tmp);
    if (isinf(d))
        return SL_ERANGE;
    out->k = NUM_D;
    out->d = d;
    return 0;
}

/* Shortest "%g" text that reads back as the same float (or double). */
static int format_double(double d, bool single, char *buf, size_t n)
{
    if (isnan(d))
        return snprintf(buf, n, "NaN");
    if (isinf(d))
        return snprintf(buf, n, d < 0 ? "-Infinity" : "Infinity");
    char tmp[40];
    int lo = single ? 6 : 15, hi = single ? 9 : 17;
    for (int prec = lo; prec <= hi; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
        double back = strtod(tmp, NULL);
        if (single ? (float)back == (float)d : back == d)
            break;
    }
    return snprintf(buf, n, "%s", tmp);
}

/* ---- casts ----------------------------------------------------------------------- */

static bool type_valid(sl_type t)
{
    return (unsigned)t < SL_T__COUNT;
}

/* Bounds of an integer target; TIMESTAMP is a signed 64-bit count. */
static void int_bounds(sl_type t, int64_t *lo, uint64_t *hi)
{
    switch (t) {
    case SL_T_TINYINT: *lo = INT8_MIN, *hi = INT8_MAX; break;
    case SL_T_SMALLINT: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case SL_T_INT: *lo = INT32_MIN, *hi = INT32_MAX; break;
    case SL_T_UTINYINT: *lo = 0, *hi = UINT8_MAX; break;
    case SL_T_USMALLINT: *lo = 0, *hi = UINT16_MAX; break;
    case SL_T_UINT: *lo = 0, *hi = UINT32_MAX; break;
    case SL_T_UBIGINT: *lo = 0, *hi = UINT64_MAX; break;
    default: *lo = INT64_MIN, *hi = INT64_MAX; break; /* BIGINT, TIMESTAMP */
    }
}

static int err_text(sl_error *err, int rc, const char *s, uint32_t len, sl_type to)
{
    if (rc == SL_ENOMEM)
        return sl_error_set(err, rc, 0, 0, "out of memory");
    const char *what = rc == SL_ERANGE ? "is out of range for" : "cannot be converted to";
    return sl_error_set(err, rc, 0, 0, "'%.*s' %s %s", len > 64 ? 64 : (int)len, s != NULL ? s : "",
                        what, sl_type_name(to));
}

static int err_range(sl_error *err, const sl_value *v, sl_type to, sl_precision prec)
{
    if (sl_type_is_var(v->type))
        return err_text(err, SL_ERANGE, v->v.s.ptr, v->v.s.len, to);
    char text[64];
    sl_value_format(v, prec, text, sizeof(text));
    return sl_error_set(err, SL_ERANGE, 0, 0, "value %s is out of range for %s", text,
                        sl_type_name(to));
}

/* Range-checks number n against integer type `to` and stores it in out. */
static int num_to_int(num n, sl_type to, sl_value *out)
{
    int64_t lo;
    uint64_t hi;
    int_bounds(to, &lo, &hi);
    if (n.k == NUM_D) {
        if (isnan(n.d))
            return SL_ERANGE;
        double t = trunc(n.d);
        if (t >= -0x1p63 && t < 0x1p63) {
            n.k = NUM_I;
            n.i = (int64_t)t;
        } else if (t >= 0 && t < 0x1p64) {
            n.k = NUM_U;
            n.u = (uint64_t)t;
        } else {
            return SL_ERANGE;
        }
    }
    bool is_unsigned = sl_type_is_unsigned_int(to);
    if (n.k == NUM_I) {
        if (n.i < lo || (n.i >= 0 && (uint64_t)n.i > hi))
            return SL_ERANGE;
        *out = is_unsigned ? sl_value_uint(to, (uint64_t)n.i) : sl_value_int(to, n.i);
        return 0;
    }
    if (n.u > hi)
        return SL_ERANGE;
    *out = is_unsigned ? sl_value_uint(to, n.u) : sl_value_int(to, (int64_t)n.u);
    return 0;
}

/* String to TIMESTAMP: an integer is an epoch count, anything else a date-time text. */
static int text_to_ts(const char *s, uint32_t len, sl_precision prec, int64_t *ts)
{
    if (is_int_syntax(s, len)) {
        num n;
        sl_value tmp;
        int rc = parse_num(s, len, &n);
        if (rc == 0 && n.k == NUM_D)
            rc = SL_ERANGE; /* more digits than 64 bits */
        if (rc == 0)
            rc = num_to_int(n, SL_T_TIMESTAMP, &tmp);
        if (rc == 0)
            *ts = tmp.v.i;
        return rc;
    }
    int rc = sl_time_parse(s, len, prec, ts);
    return rc == SL_EINVAL ? SL_ETYPE : rc;
}

/* String to BOOL: true/false in any case, or a number (non-zero is true). */
static int text_to_bool_num(const char *s, uint32_t len, num *n)
{
    if (word_equal(s, len, "true") || word_equal(s, len, "false")) {
        n->k = NUM_I;
        n->i = word_equal(s, len, "true");
        return 0;
    }
    return parse_num(s, len, n);
}

static int cast_to_text(const sl_value *v, sl_type to, uint32_t width, char *buf, size_t bufn,
                        sl_value *out, sl_error *err)
{
    const char *p;
    size_t len;
    if (sl_type_is_var(v->type)) {
        /* Text to text needs no copy: the result borrows the same bytes as v. */
        p = v->v.s.ptr;
        len = v->v.s.len;
    } else {
        int n;
        num x = value_num(v);
        if (v->type == SL_T_BOOL)
            n = snprintf(buf, bufn, "%s", v->v.b ? "true" : "false");
        else if (x.k == NUM_I)
            n = snprintf(buf, bufn, "%lld", (long long)x.i);
        else if (x.k == NUM_U)
            n = snprintf(buf, bufn, "%llu", (unsigned long long)x.u);
        else
            n = format_double(x.d, v->type == SL_T_FLOAT, buf, bufn);
        if (n < 0 || (size_t)n >= bufn)
            return sl_error_set(err, SL_ELIMIT, 0, 0, "cast buffer of %zu bytes is too small",
                                bufn);
        p = buf;
        len = (size_t)n;
    }
    if (to == SL_T_NCHAR) {
        int64_t chars = sl_utf8_count(p, len);
        if (chars < 0)
            return sl_error_set(err, SL_ETYPE, 0, 0, "text is not valid UTF-8 for NCHAR");
        if (width != 0 && (uint64_t)chars > width)
            return sl_error_set(err, SL_ERANGE, 0, 0,
                                "text of %lld characters is longer than NCHAR(%u)",
                                (long long)chars, width);
    } else if (width != 0 && len > width) {
        return sl_error_set(err, SL_ERANGE, 0, 0, "text of %zu bytes is longer than %s(%u)", len,
                            sl_type_name(to), width);
    }
    *out = sl_value_str(to, p, (uint32_t)len);
    return 0;
}

int sl_value_cast(const sl_value *v, sl_type to, uint32_t width, sl_precision prec, char *buf,
                  size_t bufn, sl_value *out, sl_error *err)
{
    if (!type_valid(to) || !type_valid(v->type))
        return sl_error_set(err, SL_EINVAL, 0, 0, "invalid type in cast");
    if (v->is_null || v->type == SL_T_NULL) {
        *out = sl_value_null(to);
        return 0;
    }
    if (to == SL_T_NULL)
        return sl_error_set(err, SL_ETYPE, 0, 0, "only NULL has the NULL type");
    if (sl_type_is_var(to))
        return cast_to_text(v, to, width, buf, bufn, out, err);

    num n;
    if (sl_type_is_var(v->type)) {
        const char *s = v->v.s.ptr;
        uint32_t len = v->v.s.len;
        int rc;
        trim(&s, &len);
        if (to == SL_T_TIMESTAMP) {
            int64_t ts;
            rc = text_to_ts(s, len, prec, &ts);
            if (rc != 0)
                return err_text(err, rc, v->v.s.ptr, v->v.s.len, to);
            *out = sl_value_int(SL_T_TIMESTAMP, ts);
            return 0;
        }
        rc = to == SL_T_BOOL ? text_to_bool_num(s, len, &n) : parse_num(s, len, &n);
        /* An integer too long for 64 bits reads as a double, whose rounding could land
         * back inside the target range (-9223372036854775809 is -2^63 as a double). */
        if (rc == 0 && n.k == NUM_D && sl_type_is_int(to) && is_int_syntax(s, len))
            rc = SL_ERANGE;
        if (rc != 0)
            return err_text(err, rc, v->v.s.ptr, v->v.s.len, to);
    } else {
        n = value_num(v);
    }

    switch (to) {
    case SL_T_BOOL:
        if (n.k == NUM_D && isnan(n.d))
            return err_range(err, v, to, prec);
        *out = sl_value_bool(n.k == NUM_I ? n.i != 0 : n.k == NUM_U ? n.u != 0 : n.d != 0);
        return 0;
    case SL_T_FLOAT:
    case SL_T_DOUBLE: {
        double d = num_double(n);
        if (to == SL_T_FLOAT && isfinite(d) && fabs(d) > FLT_MAX)
            return err_range(err, v, to, prec);
        *out = sl_value_double(to, d);
        return 0;
    }
    default:
        if (num_to_int(n, to, out) != 0)
            return err_range(err, v, to, prec);
        return 0;
    }
}

/* ---- comparison ------------------------------------------------------------------ */

int sl_value_compare(const sl_value *a, const sl_value *b, sl_precision prec, int *cmp)
{
    if (!type_valid(a->type) || !type_valid(b->type) || a->is_null || b->is_null ||
        a->type == SL_T_NULL || b->type == SL_T_NULL)
        return SL_EINVAL;
    bool as = sl_type_is_var(a->type), bs = sl_type_is_var(b->type);
    if (as && bs) {
        uint32_t la = a->v.s.len, lb = b->v.s.len;
        int c = (la && lb) ? memcmp(a->v.s.ptr, b->v.s.ptr, la < lb ? la : lb) : 0;
        *cmp = c != 0 ? (c < 0 ? -1 : 1) : cmp3_u(la, lb);
        return 0;
    }
    if (!as && !bs) {
        *cmp = num_compare(value_num(a), value_num(b));
        return 0;
    }
    /* One side is text: read it the way the other side's type would. */
    const sl_value *sv = as ? a : b, *ov = as ? b : a;
    const char *s = sv->v.s.ptr;
    uint32_t len = sv->v.s.len;
    num n;
    int rc;
    trim(&s, &len);
    if (ov->type == SL_T_TIMESTAMP) {
        n.k = NUM_I;
        rc = text_to_ts(s, len, prec, &n.i);
    } else if (ov->type == SL_T_BOOL) {
        rc = text_to_bool_num(s, len, &n);
    } else {
        rc = parse_num(s, len, &n);
    }
    if (rc != 0)
        return rc == SL_ENOMEM ? rc : SL_ETYPE;
    int c = num_compare(value_num(ov), n);
    *cmp = as ? -c : c;
    return 0;
}

/* ---- display --------------------------------------------------------------------- */

int sl_value_format(const sl_value *v, sl_precision prec, char *buf, size_t n)
{
    if (v->is_null || v->type == SL_T_NULL)
        return snprintf(buf, n, "NULL");
    switch (v->type) {
    case SL_T_BOOL: return snprintf(buf, n, "%s", v->v.b ? "true" : "false");
    case SL_T_TINYINT:
    case SL_T_SMALLINT:
    case SL_T_INT:
    case SL_T_BIGINT: return snprintf(buf, n, "%lld", (long long)v->v.i);
    case SL_T_UTINYINT:
    case SL_T_USMALLINT:
    case SL_T_UINT:
    case SL_T_UBIGINT: return snprintf(buf, n, "%llu", (unsigned long long)v->v.u);
    case SL_T_FLOAT:
    case SL_T_DOUBLE: return format_double(v->v.d, v->type == SL_T_FLOAT, buf, n);
    case SL_T_TIMESTAMP: {
        /* sl_time_format wants room for any year; go through a scratch buffer. */
        char tmp[64];
        int rc = sl_time_format(v->v.i, prec, tmp, sizeof(tmp));
        if (rc < 0)
            return rc;
        return snprintf(buf, n, "%s", tmp);
    }
    case SL_T_VARCHAR:
    case SL_T_NCHAR: {
        uint32_t len = v->v.s.len;
        if (n > 0) {
            size_t k = len < n - 1 ? len : n - 1;
            if (k > 0)
                memcpy(buf, v->v.s.ptr, k);
            buf[k] = '\0';
        }
        return (int)(len > INT32_MAX ? INT32_MAX : len);
    }
    default: return SL_EINVAL;
    }
}

/* ------------------------------------------------------------------ group keys */

/* Feeds the canonical encoding of keys to put (a buffer or a running hash). */
static int group_key_feed(const sl_value *keys, int n, int (*put)(void *, const void *, size_t),
                          void *arg)
{
    for (int i = 0; i < n; i++) {
        const sl_value *k = &keys[i];
        uint8_t b[12];
        size_t len = 9;
        uint64_t v = 0;
        b[0] = k->is_null ? 0 : (uint8_t)k->type;
        if (k->is_null) {
            len = 1;
        } else if (k->type == SL_T_VARCHAR || k->type == SL_T_NCHAR) {
            for (int j = 0; j < 4; j++)
                b[1 + j] = (uint8_t)(k->v.s.len >> (8 * j));
            int rc = put(arg, b, 5);
            if (rc == 0)
                rc = put(arg, k->v.s.ptr, k->v.s.len);
            if (rc != 0)
                return rc;
            continue;
        } else if (k->type == SL_T_FLOAT || k->type == SL_T_DOUBLE) {
            double d = k->v.d == 0.0 ? 0.0 : k->v.d; /* -0.0 and 0.0 are one key */
            if (isnan(d))
                v = UINT64_C(0x7ff8000000000000);
            else
                memcpy(&v, &d, 8);
        } else if (k->type == SL_T_BOOL) {
            v = k->v.b ? 1 : 0;
        } else if (k->type >= SL_T_UTINYINT && k->type <= SL_T_UBIGINT) {
            v = k->v.u;
        } else {
            v = (uint64_t)k->v.i;
        }
        for (int j = 0; j < 8; j++)
            b[1 + j] = (uint8_t)(v >> (8 * j));
        int rc = put(arg, b, len);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int put_buf(void *arg, const void *p, size_t n)
{
    return sl_buf_put(arg, p, n);
}

int sl_group_key_encode(const sl_value *keys, int n, sl_buf *out)
{
    return group_key_feed(keys, n, put_buf, out);
}

static int put_hash(void *arg, const void *p, size_t n)
{
    return XXH3_64bits_update(arg, p, n) == XXH_OK ? 0 : SL_EINVAL;
}

uint64_t sl_group_id(const sl_value *keys, int n)
{
    XXH3_state_t st;
    XXH3_INITSTATE(&st);
    XXH3_64bits_reset(&st);
    group_key_feed(keys, n, put_hash, &st); /* cannot fail: no allocation */
    return XXH3_64bits_digest(&st);
}
