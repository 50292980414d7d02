/*
 * timeutil.h - timestamp precisions, duration units, and timestamp text conversion.
 *
 * Sluice stores timestamps as signed 64-bit counts since the Unix epoch in the database
 * precision (ms, us or ns). Durations in SQL carry a unit letter: b (ns), u (us), a (ms),
 * s, m, h, d, w, and the calendar units n (month) and y (year). Everything here is pure
 * computation and UTC-based; no function reads the clock.
 */
#ifndef SL_TIMEUTIL_H
#define SL_TIMEUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef enum sl_precision {
    SL_PREC_MS = 0,
    SL_PREC_US = 1,
    SL_PREC_NS = 2
} sl_precision;

/* Returns "ms", "us" or "ns". */
const char *sl_precision_name(sl_precision p);

/* Parses "ms", "us" or "ns" (case-insensitive); returns 0 or SL_EINVAL. */
int sl_precision_parse(const char *s, sl_precision *out);

/* Units per second for a precision: 1e3, 1e6 or 1e9. */
int64_t sl_precision_per_sec(sl_precision p);

/* Returns true when c is a duration unit letter (b u a s m h d w n y, lower case). */
bool sl_duration_unit_valid(char c);

/* Returns true for the calendar units n (month) and y (year), whose length varies. */
bool sl_duration_unit_is_calendar(char c);

/*
 * Converts value*unit to a count in precision p. Calendar units are refused with
 * SL_EUNSUPPORTED (they are not a fixed length); a unit finer than the precision that does
 * not divide evenly (1u in ms) is refused with SL_ERANGE; overflow gives SL_EOVERFLOW.
 */
int sl_duration_to_precision(int64_t value, char unit, sl_precision p, int64_t *out);

/*
 * Parses a timestamp string in UTC: "YYYY-MM-DD", "YYYY-MM-DD HH:MM:SS", optionally with a
 * fraction of up to 9 digits ("...:SS.123456") and an optional 'T' instead of the space, and
 * an optional trailing "Z" or "+HH:MM"/"-HH:MM" offset. Returns 0 and the epoch count in
 * precision p, or SL_EINVAL when the text is not a valid timestamp (fields out of range,
 * trailing garbage). Fraction digits finer than p are refused with SL_ERANGE unless zero.
 */
int sl_time_parse(const char *s, size_t len, sl_precision p, int64_t *out);

/*
 * Formats ts (epoch count in precision p) as "YYYY-MM-DD HH:MM:SS.fff" (3, 6 or 9 fraction
 * digits for ms, us, ns) in UTC into buf of size n (at least 40). Returns the length.
 */
int sl_time_format(int64_t ts, sl_precision p, char *buf, size_t n);

/* Days since 1970-01-01 of a proleptic Gregorian civil date (y, m 1-12, d 1-31). */
int64_t sl_days_from_civil(int64_t y, unsigned m, unsigned d);

/* Inverse of sl_days_from_civil. */
void sl_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d);

/* Floor division and modulo for signed values (rounding toward negative infinity). */
static inline int64_t sl_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static inline int64_t sl_floormod(int64_t a, int64_t b)
{
    /* Computed from the remainder, so INT64_MIN does not overflow a multiplication. */
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

#endif
