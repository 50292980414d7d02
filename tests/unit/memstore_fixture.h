/*
 * memstore_fixture.h - what the embedded-store tests (test_memstore.c, test_composite_key.c)
 * share: the injected clock, opening a store, running statements that must succeed, a
 * query's result as sl_result_format renders it, the "line:column: message" text of an
 * error, and the check that a refused statement fails with exactly the expected code and
 * message and leaves the store as it was.
 *
 * Everything is static inline: each test includes only what it uses.
 */
#ifndef SL_TEST_MEMSTORE_FIXTURE_H
#define SL_TEST_MEMSTORE_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/exec/memstore.h"

/* ------------------------------------------------------------ the injected clock */

/* 2023-11-14 22:13:20 UTC. */
#define NOW_MS INT64_C(1700000000000)

static inline int64_t fixed_now(void *ud)
{
    (void)ud;
    return NOW_MS;
}

/* ------------------------------------------------------------ running statements */

/* A new empty store on the injected clock; fails the test on error. */
static inline sl_memstore *open_store(void)
{
    sl_memstore *ms = NULL;
    assert_int_equal(sl_memstore_open(&ms, fixed_now, NULL), 0);
    assert_non_null(ms);
    return ms;
}

/* Runs sql, which must succeed, with its result in *res (caller finishes it). */
static inline void exec_ok(sl_memstore *ms, const char *sql, sl_result *res)
{
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_memstore_exec(ms, sql, res, &err);
    if (rc != 0)
        fail_msg("exec failed (%d): %s\n  sql: %s", rc, err.msg, sql);
}

/* Runs sql and checks the affected count; frees the result. */
static inline void run(sl_memstore *ms, const char *sql, int64_t affected)
{
    sl_result r;
    exec_ok(ms, sql, &r);
    if (r.affected != affected)
        fail_msg("affected %lld, want %lld\n  sql: %s", (long long)r.affected, (long long)affected,
                 sql);
    sl_result_fini(&r);
}

/* The result of sql rendered by sl_result_format (heap; caller frees). */
static inline char *formatted(sl_memstore *ms, const char *sql)
{
    sl_result r;
    exec_ok(ms, sql, &r);
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_result_format(&r, &b), 0);
    sl_buf_put_u8(&b, 0);
    sl_result_fini(&r);
    return (char *)b.data;
}

/* ------------------------------------------------------------ the store as text */

/* Appends sql and its rendered result to b. */
static inline void append_formatted(sl_memstore *ms, const char *sql, sl_buf *b)
{
    sl_result r;
    exec_ok(ms, sql, &r);
    sl_buf_printf(b, "%s\n", sql);
    assert_int_equal(sl_result_format(&r, b), 0);
    sl_result_fini(&r);
}

/* The text cell (col, row) of r, NUL terminated (heap; caller frees). */
static inline char *col_str(const sl_result *r, int col, uint32_t row)
{
    uint32_t len;
    const char *p = sl_column_get_str(&r->rows.cols[col], row, &len);
    char *s = malloc(len + 1);
    assert_non_null(s);
    memcpy(s, p, len);
    s[len] = '\0';
    return s;
}

/*
 * A rendering of everything the store holds: databases, and per database its super
 * tables and tables with their schemas and rows (heap; caller frees).
 */
static inline char *snapshot(sl_memstore *ms)
{
    sl_buf b;
    sl_buf_init(&b);
    sl_result dbs;
    exec_ok(ms, "SHOW DATABASES", &dbs);
    assert_int_equal(sl_result_format(&dbs, &b), 0);
    char sql[512];
    for (uint32_t i = 0; i < dbs.rows.nrows; i++) {
        char *db = col_str(&dbs, 0, i);
        sl_result tabs;
        snprintf(sql, sizeof(sql), "SHOW %s.STABLES", db);
        append_formatted(ms, sql, &b);
        snprintf(sql, sizeof(sql), "SHOW %s.TABLES", db);
        append_formatted(ms, sql, &b);
        exec_ok(ms, sql, &tabs);
        for (uint32_t k = 0; k < tabs.rows.nrows; k++) {
            char *t = col_str(&tabs, 0, k);
            snprintf(sql, sizeof(sql), "DESCRIBE %s.%s", db, t);
            append_formatted(ms, sql, &b);
            snprintf(sql, sizeof(sql), "SELECT * FROM %s.%s", db, t);
            append_formatted(ms, sql, &b);
            free(t);
        }
        sl_result_fini(&tabs);
        free(db);
    }
    sl_result_fini(&dbs);
    sl_buf_put_u8(&b, 0);
    return (char *)b.data;
}

/* ------------------------------------------------------------ refusals */

/*
 * "1:<col>: msg" where col is where needle starts in the single-line sql (one of four
 * rotating static buffers, so a call may use up to four at once).
 */
static inline const char *at(const char *sql, const char *needle, const char *msg)
{
    static char bufs[4][SL_ERROR_MSG_MAX];
    static int next;
    const char *p = strstr(sql, needle);
    if (p == NULL)
        fail_msg("'%s' not in '%s'", needle, sql);
    char *out = bufs[next++ % 4];
    snprintf(out, SL_ERROR_MSG_MAX, "1:%d: %s", (int)(p - sql) + 1, msg);
    return out;
}

/*
 * Checks that sql fails with code and exactly msg, with an empty result, and that the
 * store did not change: the result of query probe is the same before and after, or, with
 * probe NULL, the snapshot of the whole store is.
 */
static inline void expect_refused(sl_memstore *ms, const char *sql, int code, const char *msg,
                                  const char *probe)
{
    char *before = probe != NULL ? formatted(ms, probe) : snapshot(ms);
    sl_result r;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_memstore_exec(ms, sql, &r, &err);
    if (rc != code || strcmp(err.msg, msg) != 0)
        fail_msg("sql: %s\n  got  %d '%s'\n  want %d '%s'", sql, rc, err.msg, code, msg);
    assert_int_equal(err.code, code);
    assert_int_equal(r.ncols, 0);
    assert_int_equal(r.rows.nrows, 0);
    sl_result_fini(&r);
    char *after = probe != NULL ? formatted(ms, probe) : snapshot(ms);
    assert_string_equal(before, after);
    free(before);
    free(after);
}

/* Checks that sql fails with code and exactly msg, and that the store did not change. */
static inline void expect_err(sl_memstore *ms, const char *sql, int code, const char *msg)
{
    expect_refused(ms, sql, code, msg, NULL);
}

#endif
