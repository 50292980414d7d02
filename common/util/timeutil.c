/*
 * timeutil.c - precisions, duration units and UTC timestamp text; see timeutil.h.
 *
 * Timestamps never go through time_t, struct tm or the TZ environment: the C library's
 * calendar functions are locale- and process-state dependent and stop at platform limits.
 * Civil dates use Howard Hinnant's days_from_civil / civil_from_days algorithms, which are
 * exact over the proleptic Gregorian calendar for any year an int64 epoch count reaches,
 * and arithmetic that could leave the int64 range is done in 128 bits and checked.
 */
#include "timeutil.h"

#include <stdio.h>

#define NS_PER_SEC INT64_C(1000000000)

const char *sl_precision_name(sl_precision p)
{
    switch (p) {
    case SL_PREC_MS: return "ms";
    case SL_PREC_US: return "us";
    case SL_PREC_NS: return "ns";
    }
    return "invalid";
}

static char ascii_lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

int sl_precision_parse(const char *s, sl_precision *out)
{
    static const sl_precision all[] = {SL_PREC_MS, SL_PREC_US, SL_PREC_NS};
    if (s == NULL || s[0] == '\0' || s[1] == '\0' || s[2] != '\0')
        return SL_EINVAL;
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        const char *name = sl_precision_name(all[i]);
        if (ascii_lower(s[0]) == name[0] && ascii_lower(s[1]) == name[1]) {
            *out = all[i];
            return 0;
        }
    }
    return SL_EINVAL;
}

int64_t sl_precision_per_sec(sl_precision p)
{
    switch (p) {
    case SL_PREC_MS: return INT64_C(1000);
    case SL_PREC_US: return INT64_C(1000000);
    case SL_PREC_NS: return NS_PER_SEC;
    }
    return 0;
}

/* Nanoseconds in one fixed-length unit, or 0 for calendar units and unknown letters. */
static int64_t unit_ns(char c)
{
    switch (c) {
    case 'b': return 1;
    case 'u': return INT64_C(1000);
    case 'a': return INT64_C(1000000);
    case 's': return NS_PER_SEC;
    case 'm': return 60 * NS_PER_SEC;
    case 'h': return 3600 * NS_PER_SEC;
    case 'd': return 86400 * NS_PER_SEC;
    case 'w': return 7 * 86400 * NS_PER_SEC;
    default: return 0;
    }
}

bool sl_duration_unit_valid(char c)
{
    return unit_ns(c) != 0 || sl_duration_unit_is_calendar(c);
}

bool sl_duration_unit_is_calendar(char c)
{
    return c == 'n' || c == 'y';
}

int sl_duration_to_precision(int64_t value, char unit, sl_precision p, int64_t *out)
{
    if (sl_duration_unit_is_calendar(unit))
        return SL_EUNSUPPORTED;
    int64_t per = sl_precision_per_sec(p);
    int64_t uns = unit_ns(unit);
    if (uns == 0 || per == 0)
        return SL_EINVAL;
    int64_t pns = NS_PER_SEC / per; /* nanoseconds in one tick of the precision */
    if (uns >= pns) {
        /* Every unit at least as coarse as the precision is a whole number of ticks. */
        int64_t r;
        if (__builtin_mul_overflow(value, uns / pns, &r))
            return SL_EOVERFLOW;
        *out = r;
        return 0;
    }
    int64_t div = pns / uns;
    if (value % div != 0)
        return SL_ERANGE;
    *out = value / div;
    return 0;
}

static bool is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned days_in_month(int64_t y, unsigned m)
{
    static const unsigned char dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return (m == 2 && is_leap(y)) ? 29 : dim[m - 1];
}

int64_t sl_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = sl_floordiv(y, 400);
    int64_t yoe = y - era * 400;                         /* [0, 399] */
    int64_t mp = (m + 9) % 12;                           /* March = 0 */
    int64_t doy = (153 * mp + 2) / 5 + (int64_t)d - 1;   /* [0, 365] */
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; /* [0, 146096] */
    return era * 146097 + doe - 719468;
}

void sl_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = sl_floordiv(z, 146097);
    int64_t doe = z - era * 146097;                                      /* [0, 146096] */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* [0, 365] */
    int64_t mp = (5 * doy + 2) / 153;                                    /* [0, 11] */
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/* A cursor over the text being parsed; every accessor checks the end. */
typedef struct scan {
    const char *s;
    size_t len;
    size_t i;
} scan;

static bool scan_digits(scan *sc, int n, int *out)
{
    int v = 0;
    for (int k = 0; k < n; k++) {
        if (sc->i >= sc->len || sc->s[sc->i] < '0' || sc->s[sc->i] > '9')
            return false;
        v = v * 10 + (sc->s[sc->i++] - '0');
    }
    *out = v;
    return true;
}

static bool scan_char(scan *sc, char c)
{
    if (sc->i >= sc->len || sc->s[sc->i] != c)
        return false;
    sc->i++;
    return true;
}

static bool scan_more(const scan *sc)
{
    return sc->i < sc->len;
}

static char scan_peek(const scan *sc)
{
    return sc->i < sc->len ? sc->s[sc->i] : '\0';
}

int sl_time_parse(const char *s, size_t len, sl_precision p, int64_t *out)
{
    int64_t per = sl_precision_per_sec(p);
    if (s == NULL || per == 0)
        return SL_EINVAL;
    scan sc = {.s = s, .len = len, .i = 0};
    int y, mo, d, h = 0, mi = 0, sec = 0, off = 0;
    int64_t frac_ns = 0;

    if (!scan_digits(&sc, 4, &y) || !scan_char(&sc, '-') || !scan_digits(&sc, 2, &mo) ||
        !scan_char(&sc, '-') || !scan_digits(&sc, 2, &d))
        return SL_EINVAL;
    if (mo < 1 || mo > 12 || d < 1 || (unsigned)d > days_in_month(y, (unsigned)mo))
        return SL_EINVAL;

    if (scan_more(&sc)) {
        char sep = scan_peek(&sc);
        if (sep != ' ' && sep != 'T')
            return SL_EINVAL;
        sc.i++;
        if (!scan_digits(&sc, 2, &h) || !scan_char(&sc, ':') || !scan_digits(&sc, 2, &mi) ||
            !scan_char(&sc, ':') || !scan_digits(&sc, 2, &sec))
            return SL_EINVAL;
        /* No leap seconds: the epoch count has none, so :60 names no instant. */
        if (h > 23 || mi > 59 || sec > 59)
            return SL_EINVAL;
        if (scan_char(&sc, '.')) {
            int nd = 0;
            while (scan_more(&sc) && scan_peek(&sc) >= '0' && scan_peek(&sc) <= '9') {
                if (nd == 9)
                    return SL_EINVAL;
                frac_ns = frac_ns * 10 + (sc.s[sc.i++] - '0');
                nd++;
            }
            if (nd == 0)
                return SL_EINVAL;
            for (; nd < 9; nd++)
                frac_ns *= 10;
        }
        char z = scan_peek(&sc);
        if (scan_more(&sc) && z == 'Z') {
            sc.i++;
        } else if (scan_more(&sc) && (z == '+' || z == '-')) {
            int oh, om;
            sc.i++;
            if (!scan_digits(&sc, 2, &oh) || !scan_char(&sc, ':') || !scan_digits(&sc, 2, &om))
                return SL_EINVAL;
            if (oh > 23 || om > 59)
                return SL_EINVAL;
            off = (z == '-' ? -1 : 1) * (oh * 3600 + om * 60);
        }
        if (scan_more(&sc))
            return SL_EINVAL;
    }

    int64_t tick_ns = NS_PER_SEC / per;
    if (frac_ns % tick_ns != 0)
        return SL_ERANGE;
    /* Local time minus the offset east of UTC is UTC. */
    __int128 secs = (__int128)sl_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 +
                    mi * 60 + sec - off;
    __int128 ts = secs * per + frac_ns / tick_ns;
    if (ts < INT64_MIN || ts > INT64_MAX)
        return SL_ERANGE;
    *out = (int64_t)ts;
    return 0;
}

int sl_time_format(int64_t ts, sl_precision p, char *buf, size_t n)
{
    int64_t per = sl_precision_per_sec(p);
    if (per == 0)
        return SL_EINVAL;
    int digits = p == SL_PREC_MS ? 3 : p == SL_PREC_US ? 6 : 9;
    /* Not sl_floormod: a - floordiv(a, b) * b overflows for INT64_MIN. */
    int64_t secs = ts / per, frac = ts % per;
    if (frac < 0) {
        frac += per;
        secs--;
    }
    int64_t days = sl_floordiv(secs, 86400);
    int64_t sod = sl_floormod(secs, 86400);
    int64_t y;
    unsigned m, d;
    sl_civil_from_days(days, &y, &m, &d);
    /* Years before 1 CE keep four digits after the sign: year -1 is "-0001". */
    return snprintf(buf, n, "%s%04lld-%02u-%02u %02d:%02d:%02d.%0*lld", y < 0 ? "-" : "",
                    (long long)(y < 0 ? -y : y), m, d, (int)(sod / 3600), (int)(sod / 60 % 60),
                    (int)(sod % 60), digits, (long long)frac);
}
