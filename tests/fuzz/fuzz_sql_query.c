/*
 * fuzz_sql_query.c - libFuzzer target for the whole statement path: parse, plan, compile
 * expressions and execute against a small embedded store with a super table, child
 * tables and rows (NULLs included). Any statement, valid or not, must end in a result or
 * a clean error; the store is rebuilt every 2000 inputs so statements that modify it do not
 * accumulate without bound.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/exec/memstore.h"

static sl_memstore *ms;
static int uses;

static int64_t fixed_now(void *ud)
{
    (void)ud;
    return 1735689600000LL;
}

static void setup(void)
{
    sl_memstore_close(ms);
    if (sl_memstore_open(&ms, fixed_now, NULL) != 0)
        abort();
    sl_result r;
    sl_error err;
    sl_error_clear(&err);
    const char *init =
        "CREATE DATABASE db; USE db;"
        "CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT, phase DOUBLE, "
        "note VARCHAR(16), ok BOOL, big BIGINT UNSIGNED) TAGS (location VARCHAR(32), gid INT);"
        "INSERT INTO d1 USING meters TAGS ('SF', 1) VALUES (1735689600000, 10.5, 220, 0.5, 'a', "
        "true, 1) (1735689601000, NULL, 221, NULL, NULL, false, 18446744073709551615) "
        "(1735689662000, 11.25, NULL, 0.25, 'bc', NULL, 0)"
        " d2 USING meters TAGS ('LA', 2) VALUES (1735689600500, 9.75, 219, 0.75, 'x', true, 5);"
        "CREATE TABLE nt (ts TIMESTAMP, v INT, s NCHAR(4));"
        "INSERT INTO nt VALUES (1, 1, 'é') (2, NULL, NULL) (3, -2147483648, 'abcd');";
    if (sl_memstore_exec(ms, init, &r, &err) != 0)
        abort();
    sl_result_fini(&r);
    uses = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (ms == NULL || ++uses > 2000)
        setup();
    char *sql = malloc(size + 1);
    memcpy(sql, data, size);
    sql[size] = '\0';
    sl_result r;
    sl_error err;
    sl_error_clear(&err);
    if (sl_memstore_exec(ms, sql, &r, &err) == 0) {
        sl_buf out;
        sl_buf_init(&out);
        sl_result_format(&r, &out);
        sl_buf_fini(&out);
        sl_result_fini(&r);
    } else if (err.code == 0 || err.msg[0] == '\0') {
        abort(); /* every failure carries a code and a message */
    }
    free(sql);
    return 0;
}
