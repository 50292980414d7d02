/*
 * types.c - names and sizes of the Sluice column types; see types.h.
 *
 * One table indexed by sl_type holds everything static about a type, so adding a type is
 * one row here. Name lookup is case-insensitive and accepts the SQL aliases (INTEGER,
 * BINARY) that the parser hands over after joining "TINYINT" and "UNSIGNED" with one space.
 */
#include "types.h"

#include <string.h>

typedef struct type_info {
    const char *name; /* canonical upper-case SQL name */
    size_t size;      /* bytes per value in a fixed-width column, 0 for var/NULL */
} type_info;

static const type_info type_table[SL_T__COUNT] = {
    [SL_T_NULL] = {.name = "NULL", .size = 0},
    [SL_T_BOOL] = {.name = "BOOL", .size = 1},
    [SL_T_TINYINT] = {.name = "TINYINT", .size = 1},
    [SL_T_SMALLINT] = {.name = "SMALLINT", .size = 2},
    [SL_T_INT] = {.name = "INT", .size = 4},
    [SL_T_BIGINT] = {.name = "BIGINT", .size = 8},
    [SL_T_UTINYINT] = {.name = "TINYINT UNSIGNED", .size = 1},
    [SL_T_USMALLINT] = {.name = "SMALLINT UNSIGNED", .size = 2},
    [SL_T_UINT] = {.name = "INT UNSIGNED", .size = 4},
    [SL_T_UBIGINT] = {.name = "BIGINT UNSIGNED", .size = 8},
    [SL_T_FLOAT] = {.name = "FLOAT", .size = 4},
    [SL_T_DOUBLE] = {.name = "DOUBLE", .size = 8},
    [SL_T_TIMESTAMP] = {.name = "TIMESTAMP", .size = 8},
    [SL_T_VARCHAR] = {.name = "VARCHAR", .size = 0},
    [SL_T_NCHAR] = {.name = "NCHAR", .size = 0},
};

/* Spellings accepted besides the canonical names. */
static const struct {
    const char *name;
    sl_type type;
} type_aliases[] = {
    {"INTEGER", SL_T_INT},
    {"INTEGER UNSIGNED", SL_T_UINT},
    {"BINARY", SL_T_VARCHAR},
};

const char *sl_type_name(sl_type t)
{
    if ((unsigned)t >= SL_T__COUNT)
        return "UNKNOWN";
    return type_table[t].name;
}

/* ASCII-only case folding: type names never depend on the locale. */
static bool name_equal(const char *a, const char *b)
{
    for (;; a++, b++) {
        char x = *a, y = *b;
        if (x >= 'a' && x <= 'z')
            x = (char)(x - 'a' + 'A');
        if (x != y)
            return false;
        if (x == '\0')
            return true;
    }
}

bool sl_type_from_name(const char *name, sl_type *out)
{
    if (name == NULL)
        return false;
    /* SL_T_NULL is the type of a literal, not something a column can be declared as. */
    for (int t = SL_T_NULL + 1; t < SL_T__COUNT; t++) {
        if (name_equal(name, type_table[t].name)) {
            *out = (sl_type)t;
            return true;
        }
    }
    for (size_t i = 0; i < sizeof(type_aliases) / sizeof(type_aliases[0]); i++) {
        if (name_equal(name, type_aliases[i].name)) {
            *out = type_aliases[i].type;
            return true;
        }
    }
    return false;
}

size_t sl_type_size(sl_type t)
{
    if ((unsigned)t >= SL_T__COUNT)
        return 0;
    return type_table[t].size;
}
