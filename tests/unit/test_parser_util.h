/*
 * test_parser_util.h - helpers shared by the parser tests (test_parser*.c).
 *
 * The parser tests compare whole statements against dumps written by hand from the
 * grammar and the dump notation documented in common/sql/parser.c, and error cases
 * against their exact messages. These helpers parse, dump and compare, failing the
 * running cmocka test with both strings shown when they differ. Each helper frees what it
 * parsed, so AddressSanitizer's leak check covers the parser's error paths too.
 */
#ifndef TEST_PARSER_UTIL_H
#define TEST_PARSER_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/sql/parser.h"

/* Parses sql, which must succeed; the caller frees the result. */
static inline sl_parse_result *tp_parse(const char *sql)
{
    sl_parse_result *r = NULL;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_parse(sql, strlen(sql), &r, &err);
    if (rc != 0)
        fail_msg("parse of \"%s\" failed: %d %s", sql, rc, err.msg);
    assert_non_null(r);
    return r;
}

/* Dumps statement i of r into a malloc'd string the caller frees. */
static inline char *tp_dump_stmt(const sl_stmt *st)
{
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_ast_dump(st, &b), 0);
    char *s = strndup((const char *)b.data, b.len);
    sl_buf_fini(&b);
    return s;
}

static inline char *tp_dump_expr(const sl_expr *e)
{
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_ast_dump_expr(e, &b), 0);
    char *s = strndup((const char *)b.data, b.len);
    sl_buf_fini(&b);
    return s;
}

/* Asserts that sql is exactly one statement whose dump is expected. */
static inline void tp_check(const char *sql, const char *expected)
{
    sl_parse_result *r = tp_parse(sql);
    if (r->nstmts != 1)
        fail_msg("\"%s\": %d statements, expected 1", sql, r->nstmts);
    char *got = tp_dump_stmt(r->stmts[0]);
    if (strcmp(got, expected) != 0)
        print_error("sql:      %s\nexpected: %s\ngot:      %s\n", sql, expected, got);
    assert_string_equal(got, expected);
    free(got);
    sl_parse_result_free(r);
}

/* Asserts that "SELECT <expr>" parses and that the item's dump is expected. */
static inline void tp_check_expr(const char *expr, const char *expected)
{
    char sql[1024];
    snprintf(sql, sizeof(sql), "SELECT %s", expr);
    sl_parse_result *r = tp_parse(sql);
    assert_int_equal(r->nstmts, 1);
    assert_int_equal(r->stmts[0]->kind, SL_STMT_SELECT);
    assert_int_equal(r->stmts[0]->u.select->nitems, 1);
    char *got = tp_dump_expr(r->stmts[0]->u.select->items[0].expr);
    if (strcmp(got, expected) != 0)
        print_error("expr:     %s\nexpected: %s\ngot:      %s\n", expr, expected, got);
    assert_string_equal(got, expected);
    free(got);
    sl_parse_result_free(r);
}

/* Asserts that sql (len bytes) fails with code and exactly msg, positioned at line:col. */
static inline void tp_check_error_n(const char *sql, size_t len, int code, const char *msg)
{
    sl_parse_result *r = (sl_parse_result *)1;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_parse(sql, len, &r, &err);
    if (rc != code || strcmp(err.msg, msg) != 0)
        print_error("sql:      %.200s\nexpected: %d %s\ngot:      %d %s\n", sql, code, msg, rc,
                    err.msg);
    assert_int_equal(rc, code);
    assert_string_equal(err.msg, msg);
    assert_int_equal(err.code, code);
    assert_null(r);
    /* err->line/col repeat the "<line>:<col>: " prefix */
    char prefix[32];
    snprintf(prefix, sizeof(prefix), "%d:%d: ", err.line, err.col);
    assert_true(strncmp(err.msg, prefix, strlen(prefix)) == 0);
}

static inline void tp_check_error(const char *sql, int code, const char *msg)
{
    tp_check_error_n(sql, strlen(sql), code, msg);
}

/* Returns a malloc'd string: prefix, then rep repeated n times, then suffix. */
static inline char *tp_repeat(const char *prefix, const char *rep, int n, const char *mid,
                              const char *rep2, int n2, const char *suffix)
{
    size_t len = strlen(prefix) + strlen(rep) * (size_t)n + strlen(mid) +
                 strlen(rep2) * (size_t)n2 + strlen(suffix) + 1;
    char *s = malloc(len);
    assert_non_null(s);
    char *p = s;
    p += sprintf(p, "%s", prefix);
    for (int i = 0; i < n; i++)
        p += sprintf(p, "%s", rep);
    p += sprintf(p, "%s", mid);
    for (int i = 0; i < n2; i++)
        p += sprintf(p, "%s", rep2);
    sprintf(p, "%s", suffix);
    return s;
}

#endif
