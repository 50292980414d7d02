/*
 * types.h - the column types of Sluice and their static properties.
 *
 * Every column, value and expression result has one of these types. The first column of
 * every table is the TIMESTAMP key. BINARY is a synonym of VARCHAR; NCHAR holds UTF-8 text
 * whose declared length counts characters rather than bytes.
 */
#ifndef SL_TYPES_H
#define SL_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sl_type {
    SL_T_NULL = 0, /* the type of a bare NULL literal; never a column type */
    SL_T_BOOL,
    SL_T_TINYINT,
    SL_T_SMALLINT,
    SL_T_INT,
    SL_T_BIGINT,
    SL_T_UTINYINT,
    SL_T_USMALLINT,
    SL_T_UINT,
    SL_T_UBIGINT,
    SL_T_FLOAT,
    SL_T_DOUBLE,
    SL_T_TIMESTAMP,
    SL_T_VARCHAR,
    SL_T_NCHAR,
    SL_T__COUNT
} sl_type;

/* Longest identifier (column, tag, database, stream name) in bytes. */
#define SL_NAME_MAX 64
/* Longest table name in bytes. */
#define SL_TABLE_NAME_MAX 192
/* Longest declared VARCHAR/NCHAR length. */
#define SL_VARCHAR_MAX 65517
/* Most columns in a table, and most tags in a super table. */
#define SL_MAX_COLUMNS 4096
#define SL_MAX_TAGS 128

/* Upper-case SQL name of a type ("BIGINT UNSIGNED" for SL_T_UBIGINT). */
const char *sl_type_name(sl_type t);

/*
 * Looks up a type by SQL name, case-insensitively: BOOL, TINYINT, SMALLINT, INT, INTEGER,
 * BIGINT, FLOAT, DOUBLE, TIMESTAMP, VARCHAR, BINARY, NCHAR, and the unsigned forms spelt
 * "TINYINT UNSIGNED" (one string with a single space). Returns true when found.
 */
bool sl_type_from_name(const char *name, sl_type *out);

/* Bytes of one value in a fixed-width column (1 for BOOL); 0 for VARCHAR/NCHAR/NULL. */
size_t sl_type_size(sl_type t);

static inline bool sl_type_is_var(sl_type t)
{
    return t == SL_T_VARCHAR || t == SL_T_NCHAR;
}

static inline bool sl_type_is_signed_int(sl_type t)
{
    return t >= SL_T_TINYINT && t <= SL_T_BIGINT;
}

static inline bool sl_type_is_unsigned_int(sl_type t)
{
    return t >= SL_T_UTINYINT && t <= SL_T_UBIGINT;
}

static inline bool sl_type_is_int(sl_type t)
{
    return sl_type_is_signed_int(t) || sl_type_is_unsigned_int(t);
}

static inline bool sl_type_is_float(sl_type t)
{
    return t == SL_T_FLOAT || t == SL_T_DOUBLE;
}

/* Numeric: integers, floats; BOOL and TIMESTAMP are not numeric here. */
static inline bool sl_type_is_numeric(sl_type t)
{
    return sl_type_is_int(t) || sl_type_is_float(t);
}

#endif
