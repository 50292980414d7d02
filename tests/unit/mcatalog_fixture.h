/*
 * mcatalog_fixture.h - what the mnode catalog tests (test_mcatalog*.c) share: the injected
 * clock, a catalog in a fresh temporary directory (removed afterwards), running one SQL
 * statement on the catalog, the catalog snapshot a refusal must leave unchanged,
 * formatted query results, and the cells of a result by column name.
 *
 * Everything is static inline: each test includes only what it uses.
 */
#ifndef SL_TEST_MCATALOG_FIXTURE_H
#define SL_TEST_MCATALOG_FIXTURE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/sql/parser.h"
#include "mnode/catalog.h"

/* ------------------------------------------------------------ the injected clock */

/* 2023-11-14 22:13:20 UTC. */
#define NOW_MS INT64_C(1700000000000)

/* What the catalog's clock says (a test may move it; open_temp resets it to NOW_MS). */
static int64_t g_now = NOW_MS;

static inline int64_t test_clock(void *ud)
{
    (void)ud;
    return g_now;
}

/* ------------------------------------------------------------ directories */

static inline int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static inline void rm_rf(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Opens the catalog stored in dir with the injected clock; fails the test on error. */
static inline sl_mcatalog *open_at(const char *dir)
{
    sl_mcatalog_options o = {.now_ms = test_clock};
    sl_mcatalog *cat = NULL;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_mcatalog_open(&cat, dir, &o, &err);
    if (rc != 0)
        fail_msg("open %s: %d %s", dir, rc, err.msg);
    return cat;
}

/*
 * Makes a fresh directory from pattern ("/tmp/...-XXXXXX") in dir (size bytes), resets the
 * clock and opens a catalog there in *cat. -1 when the directory cannot be made.
 */
static inline int open_temp(char *dir, size_t size, const char *pattern, sl_mcatalog **cat)
{
    snprintf(dir, size, "%s", pattern);
    if (mkdtemp(dir) == NULL)
        return -1;
    g_now = NOW_MS;
    *cat = open_at(dir);
    return 0;
}

/* Closes cat and removes its directory. */
static inline void close_remove(sl_mcatalog *cat, const char *dir)
{
    sl_mcatalog_close(cat);
    rm_rf(dir);
}

/*
 * The head of every catalog test's fixture (its first member, MCF_HEAD): the directory and
 * the open catalog, reachable as f->dir and f->cat, and as &f->head for the helpers below.
 */
typedef struct mcf_head {
    char dir[64];
    sl_mcatalog *cat;
} mcf_head;

#define MCF_HEAD                                                                           \
    union {                                                                                \
        struct {                                                                           \
            char dir[64];                                                                  \
            sl_mcatalog *cat;                                                              \
        };                                                                                 \
        mcf_head head;                                                                     \
    }

/* The cmocka teardown of a fixture (heap) that starts with MCF_HEAD. */
static inline int mcf_teardown(void **state)
{
    mcf_head *h = *state;
    close_remove(h->cat, h->dir);
    free(h);
    return 0;
}

/* Closes the catalog and opens it again from its directory (as a restarted mnode would). */
static inline void mcf_reopen(mcf_head *h)
{
    sl_mcatalog_close(h->cat);
    h->cat = open_at(h->dir);
}

/* ------------------------------------------------------------ running statements */

/*
 * When set, called after every DDL statement cat_run_kind executes, with the statement's
 * kind, the return code and its changes (a test checks or records them there).
 */
static void (*g_ddl_hook)(int kind, int rc, const sl_ddl_result *c);

static inline bool is_query_kind(int kind)
{
    return kind == SL_STMT_SHOW || kind == SL_STMT_DESCRIBE || kind == SL_STMT_SELECT;
}

/*
 * Runs one statement on the catalog: DDL through exec_ddl (its changes in *chg when not
 * NULL), SHOW/DESCRIBE/SELECT through query (rows in *res when not NULL). *kind (when not
 * NULL) is the statement's kind, -1 when it does not parse.
 */
static inline int cat_run_kind(sl_mcatalog *cat, const char *db, const char *sql,
                               sl_ddl_result *chg, sl_result *res, sl_error *err, int *kind)
{
    sl_parse_result *pr = NULL;
    sl_error_clear(err);
    if (kind != NULL)
        *kind = -1;
    /* Outputs are empty whatever happens, so callers can inspect them after a refusal. */
    if (res != NULL)
        sl_result_init(res);
    if (chg != NULL)
        sl_ddl_result_init(chg);
    int rc = sl_parse(sql, strlen(sql), &pr, err);
    if (rc != 0)
        return rc;
    assert_int_equal(pr->nstmts, 1);
    const sl_stmt *st = pr->stmts[0];
    if (kind != NULL)
        *kind = (int)st->kind;
    sl_result r;
    sl_result_init(&r);
    sl_ddl_result c;
    sl_ddl_result_init(&c);
    if (is_query_kind((int)st->kind))
        rc = sl_mcatalog_query(cat, st, db, &r, err);
    else {
        rc = sl_mcatalog_exec_ddl(cat, st, db, &c, err);
        if (g_ddl_hook != NULL)
            g_ddl_hook((int)st->kind, rc, &c);
    }
    if (res != NULL)
        *res = r;
    else
        sl_result_fini(&r);
    if (chg != NULL)
        *chg = c;
    else
        sl_ddl_result_fini(&c);
    sl_parse_result_free(pr);
    return rc;
}

static inline int cat_run(sl_mcatalog *cat, const char *db, const char *sql, sl_ddl_result *chg,
                          sl_result *res, sl_error *err)
{
    return cat_run_kind(cat, db, sql, chg, res, err, NULL);
}

/* Runs a statement that must succeed. */
static inline void ok(sl_mcatalog *cat, const char *db, const char *sql)
{
    sl_error err;
    int rc = cat_run(cat, db, sql, NULL, NULL, &err);
    if (rc != 0)
        fail_msg("failed (%d): %s\n  sql: %s", rc, err.msg, sql);
}

/* A query's result in *r; fails the test when the query fails. */
static inline void query_db(sl_mcatalog *cat, const char *db, const char *sql, sl_result *r)
{
    sl_error err;
    int rc = cat_run(cat, db, sql, NULL, r, &err);
    if (rc != 0)
        fail_msg("failed (%d): %s\n  sql: %s", rc, err.msg, sql);
}

/* Everything the catalog holds, in memory and on disk (heap; caller frees). */
static inline char *snapshot(sl_mcatalog *cat)
{
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_mcatalog_dump(cat, &b), 0);
    sl_buf_printf(&b, "-- stored\n");
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_dump_stored(cat, &b, &err), 0);
    sl_buf_put_u8(&b, 0);
    return (char *)b.data;
}

/* Checks that cat still holds exactly the snapshot before (which it frees). */
static inline void expect_snapshot(char *before, sl_mcatalog *cat)
{
    char *after = snapshot(cat);
    assert_string_equal(before, after);
    free(before);
    free(after);
}

/* Checks that sql fails with code and exactly msg, and that the catalog did not change. */
static inline void refused(sl_mcatalog *cat, const char *db, const char *sql, int code,
                           const char *msg)
{
    char *before = snapshot(cat);
    sl_error err;
    sl_ddl_result c;
    sl_result r;
    int rc = cat_run(cat, db, sql, &c, &r, &err);
    if (rc != code || strcmp(err.msg, msg) != 0)
        fail_msg("sql: %s\n  got  %d '%s'\n  want %d '%s'", sql, rc, err.msg, code, msg);
    assert_int_equal(err.code, code);
    assert_int_equal(c.nchanges, 0);
    assert_int_equal(r.ncols, 0);
    sl_ddl_result_fini(&c);
    sl_result_fini(&r);
    expect_snapshot(before, cat);
}

/* A query's result as sl_result_format renders it (heap; caller frees). */
static inline char *formatted(sl_mcatalog *cat, const char *db, const char *sql)
{
    sl_result r;
    query_db(cat, db, sql, &r);
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_result_format(&r, &b), 0);
    sl_buf_put_u8(&b, 0);
    sl_result_fini(&r);
    return (char *)b.data;
}

static inline void check_format(sl_mcatalog *cat, const char *db, const char *sql,
                                const char *want)
{
    char *got = formatted(cat, db, sql);
    if (strcmp(got, want) != 0)
        fail_msg("sql: %s\n--- got:\n%s--- want:\n%s", sql, got, want);
    free(got);
}

/* ------------------------------------------------------------ result cells */

/* The index of column name in r; fails the test when r has none. */
static inline int col_of(const sl_result *r, const char *name)
{
    for (int i = 0; i < r->ncols; i++)
        if (strcmp(r->names[i], name) == 0)
            return i;
    fail_msg("no column '%s'", name);
    return -1;
}

/* Whether the cell (row, column col) of r is NULL. */
static inline bool cell_null(const sl_result *r, uint32_t row, const char *col)
{
    sl_value v;
    sl_column_get(&r->rows.cols[col_of(r, col)], row, &v);
    return v.is_null;
}

/* The integer cell (row, column col) of r; fails the test when it is NULL. */
static inline int64_t cell_i(const sl_result *r, uint32_t row, const char *col)
{
    sl_value v;
    sl_column_get(&r->rows.cols[col_of(r, col)], row, &v);
    if (v.is_null)
        fail_msg("row %u column %s is NULL", row, col);
    return v.v.i;
}

/* The text of a cell, NUL terminated, in one of eight rotating static buffers ("NULL" for
 * NULL). */
static inline const char *cell_s(const sl_result *r, uint32_t row, const char *col)
{
    static char buf[8][1100];
    static int k;
    char *b = buf[k++ % 8];
    sl_value v;
    sl_column_get(&r->rows.cols[col_of(r, col)], row, &v);
    if (v.is_null)
        return strcpy(b, "NULL");
    snprintf(b, sizeof(buf[0]), "%.*s", (int)v.v.s.len, v.v.s.ptr);
    return b;
}

#endif
