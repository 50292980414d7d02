/*
 * value.h - a single typed value, with the conversions and comparisons users expect.
 *
 * Values appear where one datum is handled at a time: literals, tag values, bound
 * placeholders, aggregate results, test expectations. Bulk data lives in columns (block.h).
 * A string value points at bytes it does not own; whoever built it keeps them alive.
 */
#ifndef SL_VALUE_H
#define SL_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/error.h"
#include "../util/timeutil.h"
#include "types.h"

typedef struct sl_value {
    sl_type type;  /* SL_T_NULL only for an untyped NULL */
    bool is_null;  /* true: the value is NULL whatever its type */
    union {
        bool b;       /* BOOL */
        int64_t i;    /* signed integers, TIMESTAMP */
        uint64_t u;   /* unsigned integers */
        double d;     /* FLOAT (stored widened), DOUBLE */
        struct {
            const char *ptr; /* borrowed bytes, not NUL terminated */
            uint32_t len;    /* length in bytes */
        } s;          /* VARCHAR, NCHAR */
    } v;
} sl_value;

/* Constructors; strings are borrowed. */
sl_value sl_value_null(sl_type t);
sl_value sl_value_bool(bool b);
sl_value sl_value_int(sl_type t, int64_t i);  /* signed ints and TIMESTAMP */
sl_value sl_value_uint(sl_type t, uint64_t u); /* unsigned ints */
sl_value sl_value_double(sl_type t, double d); /* FLOAT or DOUBLE */
sl_value sl_value_str(sl_type t, const char *p, uint32_t len);

/*
 * Converts v to type `to` (width is the declared length for VARCHAR/NCHAR, 0 = unbounded)
 * and stores the result in *out. Rules:
 *  - NULL converts to NULL of any type.
 *  - Integer to a narrower integer or to unsigned: SL_ERANGE when the value does not fit.
 *  - Float to integer truncates toward zero; out of range or NaN is SL_ERANGE.
 *  - String to number parses the whole string (leading/trailing spaces allowed);
 *    garbage is SL_ETYPE. Integer text is exact; decimal text ("1.5", "1e3", "NaN",
 *    "Infinity") is read as the nearest double and then follows the float rules.
 *    String to TIMESTAMP uses sl_time_parse in precision prec, or an integer string as
 *    an epoch count; text that is neither is SL_ETYPE. String to BOOL accepts true/false
 *    (any case) and numbers.
 *  - Any value to VARCHAR/NCHAR formats it (timestamps as an epoch integer);
 *    text longer than width (bytes for VARCHAR, characters for NCHAR) is SL_ERANGE.
 *  - BOOL converts to and from numbers as 0/1.
 * Formatted strings are written to buf (size bufn) and *out points into it; text cast to
 * text is not copied, *out borrows v's bytes. Casting to NCHAR also refuses bytes that are
 * not well-formed UTF-8 (SL_ETYPE). A buf too small for the text gives SL_ELIMIT.
 * Messages go to err.
 */
int sl_value_cast(const sl_value *v, sl_type to, uint32_t width, sl_precision prec,
                  char *buf, size_t bufn, sl_value *out, sl_error *err);

/*
 * Three-way comparison of two non-NULL values under the usual SQL rules: numbers compare
 * by numeric value across integer, unsigned and floating types (exactly, without
 * rounding a large int64 through double); TIMESTAMP compares with integers as numbers and
 * with strings by parsing the string as a timestamp in precision prec; strings compare
 * bytewise (memcmp, then length); BOOL compares with numbers as 0/1.
 * Returns 0 and *cmp in {-1, 0, 1}, or SL_ETYPE when the two cannot be compared (a
 * string that is not a number against a number).
 */
int sl_value_compare(const sl_value *a, const sl_value *b, sl_precision prec, int *cmp);

/*
 * Formats v as SQL users see it (NULL, true, 12, 1.5, text without quotes, timestamps as
 * "2025-01-01 00:00:00.000" in precision prec; floats in the fewest digits that read back
 * exactly, NaN/Infinity/-Infinity) into buf of size n, always NUL terminated when n > 0.
 * Returns the length of the full text like snprintf (larger than n-1 when truncated).
 */
int sl_value_format(const sl_value *v, sl_precision prec, char *buf, size_t n);

/*
 * Counts the characters of the UTF-8 text p[0..len). Returns the count, or -1 when the
 * bytes are not well-formed UTF-8 (bad or missing continuation bytes, overlong forms,
 * surrogates, code points above U+10FFFF). Pure function.
 */
int64_t sl_utf8_count(const char *p, size_t len);

/*
 * Trigger groups (DESIGN.md section 3): a stream's group is identified by the values of
 * its PARTITION BY keys (tbname, tags). sl_group_key_encode appends the canonical encoding
 * of keys[0..n) to out: per key one byte of type (SL_T_* of the value, 0 for NULL) then
 * the value - integers, timestamps and BOOL as 8 bytes little-endian of the int64/uint64,
 * FLOAT/DOUBLE as the 8 bytes of the double with -0.0 folded to 0.0 and every NaN to one
 * NaN, strings as a u32 little-endian length and the bytes. Returns 0 or SL_ENOMEM.
 *
 * sl_group_id is the 64-bit group id: xxHash3-64 (sl_hash_bytes) of that encoding (of
 * zero keys for a stream without grouping). The vnode filters change-log rows by slot
 * (group id mod slots) with it and the snode keys its window state by it, so the two must
 * agree: the encoding is part of the cluster's format and never changes.
 */
#include "../util/buf.h"
int sl_group_key_encode(const sl_value *keys, int n, sl_buf *out);
uint64_t sl_group_id(const sl_value *keys, int n);

#endif
