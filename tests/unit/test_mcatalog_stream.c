/*
 * test_mcatalog_stream.c - stream DDL in the mnode catalog (mnode/catalog_stream.c):
 * CREATE STREAM with IF NOT EXISTS and duplicates, validation errors surfaced exactly as
 * sl_stream_check words them with nothing stored, DROP STREAM (single, list, IF EXISTS,
 * all or nothing), START/STOP persisted across reopen, SHOW STREAMS [LIKE], SHOW CREATE
 * STREAM round trip (re-parse, same AST dump), information_schema.ins_streams through the
 * planner, DROP DATABASE dropping its streams.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/sql/parser.h"
#include "common/sql/stream_check.h"
#include "mnode/catalog.h"

#define NOW_MS INT64_C(1700000000000)

static int64_t test_clock(void *ud)
{
    (void)ud;
    return NOW_MS;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

typedef struct fixture {
    char dir[64];
    sl_mcatalog *cat;
} fixture;

static sl_mcatalog *open_at(const char *dir)
{
    sl_mcatalog_options o = {.now_ms = test_clock};
    sl_mcatalog *cat = NULL;
    sl_error err;
    sl_error_clear(&err);
    if (sl_mcatalog_open(&cat, dir, &o, &err) != 0)
        fail_msg("open %s: %s", dir, err.msg);
    return cat;
}

static int run(sl_mcatalog *cat, const char *db, const char *sql, sl_result *res, sl_error *err)
{
    sl_parse_result *pr = NULL;
    sl_error_clear(err);
    sl_result_init(res);
    int rc = sl_parse(sql, strlen(sql), &pr, err);
    if (rc != 0)
        return rc;
    const sl_stmt *st = pr->stmts[0];
    if (st->kind == SL_STMT_SHOW || st->kind == SL_STMT_SELECT) {
        rc = sl_mcatalog_query(cat, st, db, res, err);
    } else {
        sl_ddl_result c;
        rc = sl_mcatalog_exec_ddl(cat, st, db, &c, err);
        if (rc == 0) {
            if (st->kind >= SL_STMT_CREATE_STREAM)
                assert_int_equal(c.nchanges, 0);
            sl_ddl_result_fini(&c);
        }
    }
    sl_parse_result_free(pr);
    return rc;
}

static void ok(sl_mcatalog *cat, const char *db, const char *sql)
{
    sl_error err;
    sl_result r;
    int rc = run(cat, db, sql, &r, &err);
    sl_result_fini(&r);
    if (rc != 0)
        fail_msg("failed (%d): %s\n  sql: %s", rc, err.msg, sql);
}

static char *snapshot(sl_mcatalog *cat)
{
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_mcatalog_dump(cat, &b), 0);
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_dump_stored(cat, &b, &err), 0);
    sl_buf_put_u8(&b, 0);
    return (char *)b.data;
}

static void refused(sl_mcatalog *cat, const char *db, const char *sql, int code, const char *msg)
{
    char *before = snapshot(cat);
    sl_error err;
    sl_result r;
    int rc = run(cat, db, sql, &r, &err);
    sl_result_fini(&r);
    if (rc != code || strcmp(err.msg, msg) != 0)
        fail_msg("sql: %s\n  got  %d '%s'\n  want %d '%s'", sql, rc, err.msg, code, msg);
    char *after = snapshot(cat);
    assert_string_equal(before, after);
    free(before);
    free(after);
}

static char *formatted(sl_mcatalog *cat, const char *db, const char *sql)
{
    sl_error err;
    sl_result r;
    int rc = run(cat, db, sql, &r, &err);
    if (rc != 0)
        fail_msg("failed (%d): %s\n  sql: %s", rc, err.msg, sql);
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_result_format(&r, &b), 0);
    sl_buf_put_u8(&b, 0);
    sl_result_fini(&r);
    return (char *)b.data;
}

static void check_format(sl_mcatalog *cat, const char *db, const char *sql, const char *want)
{
    char *got = formatted(cat, db, sql);
    if (strcmp(got, want) != 0)
        fail_msg("sql: %s\n--- got:\n%s--- want:\n%s", sql, got, want);
    free(got);
}

/* The number of rows of a query. */
static int64_t nrows(sl_mcatalog *cat, const char *db, const char *sql)
{
    sl_error err;
    sl_result r;
    int rc = run(cat, db, sql, &r, &err);
    if (rc != 0)
        fail_msg("failed (%d): %s\n  sql: %s", rc, err.msg, sql);
    int64_t n = r.rows.nrows;
    sl_result_fini(&r);
    return n;
}

/* The status column of stream name in ins_streams. */
static char *status_of(sl_mcatalog *cat, const char *name)
{
    char sql[256];
    snprintf(sql, sizeof(sql),
             "SELECT status FROM information_schema.ins_streams WHERE stream_name = '%s'", name);
    return formatted(cat, NULL, sql);
}

static const char *S1 = "CREATE STREAM s1 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname "
                        "INTO o1 AS SELECT _twstart, AVG(voltage) FROM %%trows";
static const char *S2 = "CREATE STREAM s2 SLIDING(1h, 5m) FROM d1001 NOTIFY('ws://h:1') "
                        "AS SELECT _tcurrent_ts, AVG(current) FROM %%trows";
static const char *S3 = "CREATE STREAM other PERIOD(1d) INTO o3 AS SELECT _tlocaltime, COUNT(*) "
                        "FROM meters";

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/sl-mcst-XXXXXX");
    if (mkdtemp(f->dir) == NULL)
        return -1;
    f->cat = open_at(f->dir);
    uint32_t id;
    sl_error err;
    sl_error_clear(&err);
    if (sl_mcatalog_node_register(f->cat, SL_MC_VNODE, "127.0.0.1:6100", NOW_MS, &id, &err) != 0)
        return -1;
    ok(f->cat, NULL, "CREATE DATABASE power VGROUPS 2");
    ok(f->cat, "power",
       "CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT) "
       "TAGS (location VARCHAR(64), groupId INT)");
    ok(f->cat, "power", "CREATE TABLE d1001 USING meters TAGS ('SF', 2)");
    ok(f->cat, NULL, "CREATE DATABASE other");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sl_mcatalog_close(f->cat);
    nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

static void reopen(fixture *f)
{
    char *before = snapshot(f->cat);
    sl_mcatalog_close(f->cat);
    f->cat = open_at(f->dir);
    char *after = snapshot(f->cat);
    assert_string_equal(before, after);
    free(before);
    free(after);
}

static void test_create(void **state)
{
    fixture *f = *state;
    ok(f->cat, "power", S1);
    ok(f->cat, "power", S2);
    refused(f->cat, "power", S1, SL_EEXIST, "1:15: stream 's1' already exists");
    refused(f->cat, NULL,
            "CREATE STREAM power.S1 PERIOD(1d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
            SL_EEXIST, "1:15: stream 'S1' already exists");
    /* IF NOT EXISTS: nothing happens, the first definition stays. */
    char *before = snapshot(f->cat);
    ok(f->cat, "power",
       "CREATE STREAM IF NOT EXISTS s1 PERIOD(1d) INTO o AS SELECT _tlocaltime, COUNT(*) "
       "FROM meters");
    char *after = snapshot(f->cat);
    assert_string_equal(before, after);
    free(before);
    free(after);
    /* Qualified name, no current database; the same name in another database is fine. */
    ok(f->cat, NULL, "CREATE STREAM other.s1 PERIOD(1d) INTO o AS SELECT _tlocaltime, COUNT(*) "
                     "FROM power.meters");
    /* Name resolution errors. */
    refused(f->cat, NULL, S3, SL_ENOTFOUND,
            "1:15: no database selected for 'other': USE a database or write db.other");
    refused(f->cat, NULL, "CREATE STREAM nodb.s PERIOD(1d) NOTIFY('ws://h:1')", SL_ENOTFOUND,
            "1:15: database 'nodb' does not exist");
    refused(f->cat, "power",
            "CREATE STREAM s9 SLIDING(1m) FROM nosuch INTO o AS SELECT _tcurrent_ts, COUNT(*) "
            "FROM %%trows",
            SL_ENOTFOUND, "1:35: table 'nosuch' does not exist in database 'power'");
    refused(f->cat, NULL, "CREATE STREAM information_schema.s PERIOD(1d) NOTIFY('ws://h:1')",
            SL_EINVAL, "1:15: database 'information_schema' is read-only: it holds the system "
                       "tables");
    check_format(f->cat, NULL,
                 "SELECT db_name, stream_name, status, trigger_table FROM "
                 "information_schema.ins_streams ORDER BY db_name, stream_name",
                 " db_name | stream_name | status  | trigger_table\n"
                 "---------+-------------+---------+---------------\n"
                 " other   | s1          | running | NULL\n"
                 " power   | s1          | running | meters\n"
                 " power   | s2          | running | d1001\n"
                 "(3 rows)\n");
}

/* Every refusal of sl_stream_check comes out with its exact message; nothing is stored. */
static void test_validation(void **state)
{
    fixture *f = *state;
    static const char *bad[] = {
        "CREATE STREAM v1 STATE_WINDOW(voltage) FROM meters INTO o AS SELECT _twstart, "
        "COUNT(*) FROM %%trows",
        "CREATE STREAM v2 SLIDING(1m) FROM meters STREAM_OPTIONS(MAX_DELAY(1s)) INTO o AS "
        "SELECT _tcurrent_ts, COUNT(*) FROM %%trows",
        "CREATE STREAM v3 PERIOD(5a) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
        "CREATE STREAM v4 SLIDING(1m) INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM meters",
        "CREATE STREAM v5 STATE_WINDOW(voltage) FROM meters ROLLUP BY groupId INTO o AS "
        "SELECT _twstart, COUNT(*) FROM %%trows",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        /* What sl_stream_check says, given the same table meta and precision. */
        sl_parse_result *pr = NULL;
        sl_error err;
        sl_error_clear(&err);
        assert_int_equal(sl_parse(bad[i], strlen(bad[i]), &pr, &err), 0);
        sl_mcatalog_table t;
        assert_int_equal(sl_mcatalog_table_get(f->cat, "power", "meters", &t, &err), 0);
        const sl_create_stream *cs = &pr->stmts[0]->u.create_stream;
        sl_stream_check_ctx ctx = {.trigger_table = cs->has_from ? &t.meta : NULL,
                                   .precision = SL_PREC_MS};
        int code = sl_stream_check(cs, &ctx, &err);
        assert_int_equal(code, SL_EINVAL);
        char want[SL_ERROR_MSG_MAX + 32];
        snprintf(want, sizeof(want), "%d:%d: %s", err.line, err.col, err.msg);
        sl_parse_result_free(pr);
        refused(f->cat, "power", bad[i], SL_EINVAL, want);
    }
    assert_int_equal(nrows(f->cat, NULL, "SHOW power.STREAMS"), 0);
    /* A spot check of the wording itself. */
    refused(f->cat, "power", bad[1], SL_EINVAL, "1:67: MAX_DELAY must be at least 3s");
}

static void test_drop(void **state)
{
    fixture *f = *state;
    ok(f->cat, "power", S1);
    ok(f->cat, "power", S2);
    ok(f->cat, "power", S3);
    ok(f->cat, "power", "DROP STREAM s2");
    assert_int_equal(nrows(f->cat, "power", "SHOW STREAMS"), 2);
    refused(f->cat, "power", "DROP STREAM s2", SL_ENOTFOUND, "1:13: stream 's2' does not exist");
    /* All or nothing: one unknown name refuses the list. */
    refused(f->cat, "power", "DROP STREAM s1, nope, other", SL_ENOTFOUND,
            "1:17: stream 'nope' does not exist");
    assert_int_equal(nrows(f->cat, "power", "SHOW STREAMS"), 2);
    ok(f->cat, "power", "DROP STREAM IF EXISTS s2, nope");
    ok(f->cat, NULL, "DROP STREAM IF EXISTS nodb.x");
    assert_int_equal(nrows(f->cat, "power", "SHOW STREAMS"), 2);
    ok(f->cat, "power", "DROP STREAM S1, power.other, s1");
    assert_int_equal(nrows(f->cat, "power", "SHOW STREAMS"), 0);
    reopen(f);
    assert_int_equal(nrows(f->cat, "power", "SHOW STREAMS"), 0);
    /* The name can be used again. */
    ok(f->cat, "power", S1);
    assert_int_equal(nrows(f->cat, "power", "SHOW STREAMS"), 1);
}

static void test_start_stop(void **state)
{
    fixture *f = *state;
    ok(f->cat, "power", S1);
    ok(f->cat, "power", S2);
    ok(f->cat, "power", "STOP STREAM s1");
    char *st = status_of(f->cat, "s1");
    assert_string_equal(st, " status\n---------\n stopped\n(1 row)\n");
    free(st);
    reopen(f);
    st = status_of(f->cat, "s1");
    assert_string_equal(st, " status\n---------\n stopped\n(1 row)\n");
    free(st);
    st = status_of(f->cat, "s2");
    assert_string_equal(st, " status\n---------\n running\n(1 row)\n");
    free(st);
    ok(f->cat, "power", "STOP STREAM s1"); /* already stopped: fine */
    ok(f->cat, "power", "START STREAM IGNORE UNTREATED s1");
    ok(f->cat, "power", "START STREAM s2"); /* already running: fine */
    reopen(f);
    st = status_of(f->cat, "s1");
    assert_string_equal(st, " status\n---------\n running\n(1 row)\n");
    free(st);
    refused(f->cat, "power", "STOP STREAM nope", SL_ENOTFOUND, "1:13: stream 'nope' does not exist");
    refused(f->cat, "power", "START STREAM nope", SL_ENOTFOUND,
            "1:14: stream 'nope' does not exist");
    ok(f->cat, "power", "STOP STREAM IF EXISTS nope");
    ok(f->cat, "power", "START STREAM IF EXISTS nope");
    ok(f->cat, NULL, "STOP STREAM power.s2");
    reopen(f);
    st = status_of(f->cat, "s2");
    assert_string_equal(st, " status\n---------\n stopped\n(1 row)\n");
    free(st);
}

static void test_show(void **state)
{
    fixture *f = *state;
    ok(f->cat, "power", S1);
    ok(f->cat, "power", S2);
    ok(f->cat, "power", S3);
    ok(f->cat, "other", "CREATE STREAM s1 PERIOD(1d) NOTIFY('ws://h:1')");
    ok(f->cat, "power", "STOP STREAM s2");
    assert_int_equal(nrows(f->cat, "power", "SHOW STREAMS"), 3);
    assert_int_equal(nrows(f->cat, NULL, "SHOW other.STREAMS"), 1);
    assert_int_equal(nrows(f->cat, NULL, "SHOW STREAMS"), 4);
    assert_int_equal(nrows(f->cat, "power", "SHOW STREAMS LIKE 's%'"), 2);
    assert_int_equal(nrows(f->cat, "power", "SHOW STREAMS LIKE 'OTH_R'"), 1);
    char *got = formatted(f->cat, "power", "SHOW STREAMS LIKE '%2'");
    assert_non_null(strstr(got, " stream_name | db_name | status  | trigger_table |       "
                                "create_time       |"));
    assert_non_null(strstr(got, " s2          | power   | stopped | d1001         | "
                                "2023-11-14 22:13:20.000 | "));
    assert_non_null(strstr(got, S2));
    assert_non_null(strstr(got, "(1 row)\n"));
    free(got);
    refused(f->cat, NULL, "SHOW nodb.STREAMS", SL_ENOTFOUND, "1:1: database 'nodb' does not exist");
    refused(f->cat, "power", "SHOW CREATE STREAM nope", SL_ENOTFOUND,
            "1:20: stream 'nope' does not exist");
}

/* SHOW CREATE STREAM gives back text that parses to the same tree and re-creates it. */
static void test_show_create_round_trip(void **state)
{
    fixture *f = *state;
    const char *sql[] = {
        S1, S2, S3,
        "CREATE STREAM IF NOT EXISTS power.s4 INTERVAL(5m, 1m) SLIDING(1m, 10s) FROM meters\n"
        "  PARTITION BY tbname STREAM_OPTIONS(WATERMARK(1s) | MAX_DELAY(5s))\n"
        "  NOTIFY('ws://[::1]:8080/x') ON (WINDOW_OPEN|WINDOW_CLOSE)\n"
        "  INTO o AS SELECT _twstart, MAX(voltage) FROM meters WHERE tbname = %%tbname",
    };
    const char *names[] = {"s1", "s2", "other", "s4"};
    for (int i = 0; i < 4; i++) {
        ok(f->cat, "power", sql[i]);
        char q[128];
        snprintf(q, sizeof(q), "SHOW CREATE STREAM power.%s", names[i]);
        sl_error err;
        sl_result r;
        assert_int_equal(run(f->cat, NULL, q, &r, &err), 0);
        assert_int_equal(r.ncols, 2);
        assert_string_equal(r.names[1], "create_stream");
        assert_int_equal(r.rows.nrows, 1);
        sl_value v;
        sl_column_get(&r.rows.cols[1], 0, &v);
        char *text = strndup(v.v.s.ptr, v.v.s.len);
        sl_result_fini(&r);
        assert_string_equal(text, sql[i]);
        sl_parse_result *a = NULL, *b = NULL;
        assert_int_equal(sl_parse(sql[i], strlen(sql[i]), &a, &err), 0);
        assert_int_equal(sl_parse(text, strlen(text), &b, &err), 0);
        sl_buf da, db;
        sl_buf_init(&da);
        sl_buf_init(&db);
        assert_int_equal(sl_ast_dump(a->stmts[0], &da), 0);
        assert_int_equal(sl_ast_dump(b->stmts[0], &db), 0);
        sl_buf_put_u8(&da, 0);
        sl_buf_put_u8(&db, 0);
        assert_string_equal((char *)da.data, (char *)db.data);
        sl_buf_fini(&da);
        sl_buf_fini(&db);
        sl_parse_result_free(a);
        sl_parse_result_free(b);
        /* Dropping and running the text again re-creates the same stream. */
        snprintf(q, sizeof(q), "DROP STREAM power.%s", names[i]);
        ok(f->cat, NULL, q);
        ok(f->cat, "power", text);
        free(text);
    }
    reopen(f);
    assert_int_equal(nrows(f->cat, "power", "SHOW STREAMS"), 4);
}

static void test_ins_streams(void **state)
{
    fixture *f = *state;
    ok(f->cat, "power", S1);
    ok(f->cat, "power", S2);
    ok(f->cat, "power", S3);
    ok(f->cat, "other", "CREATE STREAM s1 PERIOD(1d) NOTIFY('ws://h:1')");
    ok(f->cat, "power", "STOP STREAM s1");
    check_format(f->cat, NULL,
                 "SELECT stream_name, db_name, trigger_table FROM information_schema.ins_streams "
                 "WHERE status = 'running' ORDER BY stream_name DESC, db_name",
                 " stream_name | db_name | trigger_table\n"
                 "-------------+---------+---------------\n"
                 " s2          | power   | d1001\n"
                 " s1          | other   | NULL\n"
                 " other       | power   | NULL\n"
                 "(3 rows)\n");
    assert_int_equal(nrows(f->cat, NULL,
                           "SELECT db_name, COUNT(*) FROM information_schema.ins_streams "
                           "GROUP BY db_name ORDER BY db_name"),
                     2);
    assert_int_equal(nrows(f->cat, NULL,
                           "SELECT stream_name FROM information_schema.ins_streams "
                           "WHERE db_name = 'power' AND status = 'stopped'"),
                     1);
    /* It is listed with the other system tables. */
    assert_int_equal(
        nrows(f->cat, NULL, "SELECT * FROM information_schema.ins_streams WHERE sql LIKE '%PERIOD%'"),
        2);
}

static void test_drop_database(void **state)
{
    fixture *f = *state;
    ok(f->cat, "power", S1);
    ok(f->cat, "other", "CREATE STREAM s1 PERIOD(1d) NOTIFY('ws://h:1')");
    ok(f->cat, NULL, "DROP DATABASE power");
    assert_int_equal(nrows(f->cat, NULL, "SHOW STREAMS"), 1);
    reopen(f);
    assert_int_equal(nrows(f->cat, NULL, "SHOW STREAMS"), 1);
    /* A new database of that name starts without streams. */
    ok(f->cat, NULL, "CREATE DATABASE power");
    assert_int_equal(nrows(f->cat, NULL, "SHOW power.STREAMS"), 0);
    ok(f->cat, "power", "CREATE STREAM s1 PERIOD(1d) NOTIFY('ws://h:1')");
    reopen(f);
    assert_int_equal(nrows(f->cat, NULL, "SHOW STREAMS"), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create, setup, teardown),
        cmocka_unit_test_setup_teardown(test_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_start_stop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_show, setup, teardown),
        cmocka_unit_test_setup_teardown(test_show_create_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ins_streams, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drop_database, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
