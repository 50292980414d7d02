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

#include "common/exec/ddl.h"
#include "common/sql/parser.h"
#include "common/sql/stream_check.h"
#include "mcatalog_fixture.h"
#include "mnode/catalog.h"

typedef struct fixture {
    MCF_HEAD;
} fixture;

/* The changes of the last successful DDL statement executed (ddl_hook). */
#define MAX_CHANGES 8
static struct {
    int n;
    sl_ddl_change_kind kind[MAX_CHANGES];
    sl_table_kind tkind[MAX_CHANGES];
    char db[MAX_CHANGES][80];
    char table[MAX_CHANGES][200];
    uint64_t uid[MAX_CHANGES];
    uint32_t vgroup[MAX_CHANGES];
} last;

static void note_changes(const sl_ddl_result *c)
{
    last.n = c->nchanges;
    assert_true(c->nchanges <= MAX_CHANGES);
    for (int i = 0; i < c->nchanges; i++) {
        last.kind[i] = c->changes[i].kind;
        last.tkind[i] = c->changes[i].table_kind;
        snprintf(last.db[i], sizeof(last.db[i]), "%s", c->changes[i].db);
        snprintf(last.table[i], sizeof(last.table[i]), "%s",
                 c->changes[i].table ? c->changes[i].table : "");
        last.uid[i] = c->changes[i].uid;
        last.vgroup[i] = c->changes[i].vgroup_id;
    }
}

/* After every DDL statement: only CREATE STREAM ... INTO changes tables, a refusal none. */
static void ddl_hook(int kind, int rc, const sl_ddl_result *c)
{
    if (rc == 0) {
        if (kind > (int)SL_STMT_CREATE_STREAM)
            assert_int_equal(c->nchanges, 0);
        note_changes(c);
    } else {
        assert_int_equal(c->nchanges, 0);
    }
}

/* The number of rows of a query. */
static int64_t nrows(sl_mcatalog *cat, const char *db, const char *sql)
{
    sl_result r;
    query_db(cat, db, sql, &r);
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
    g_ddl_hook = ddl_hook;
    if (open_temp(f->dir, sizeof(f->dir), "/tmp/sl-mcst-XXXXXX", &f->cat) != 0)
        return -1;
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

static void reopen(fixture *f)
{
    char *before = snapshot(f->cat);
    mcf_reopen(&f->head);
    expect_snapshot(before, f->cat);
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
    expect_snapshot(before, f->cat);
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
        assert_int_equal(cat_run(f->cat, NULL, q, NULL, &r, &err), 0);
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

/* ------------------------------------------------------------ the INTO output table */

/*
 * The schema of db.table as "kind: col TYPE, ... | tag TYPE, ..." (kind super or normal),
 * written out by hand in the tests below from the spec's rules and the documented typing of
 * the query language (docs/sql.md).
 */
static char *schema_of(sl_mcatalog *cat, const char *db, const char *table)
{
    sl_mcatalog_table t;
    sl_error err;
    sl_error_clear(&err);
    if (sl_mcatalog_table_get(cat, db, table, &t, &err) != 0)
        fail_msg("%s.%s: %s", db, table, err.msg);
    sl_buf b;
    sl_buf_init(&b);
    char tb[48];
    sl_buf_printf(&b, "%s:", t.meta.kind == SL_TABLE_SUPER    ? "super"
                             : t.meta.kind == SL_TABLE_NORMAL ? "normal"
                                                              : "child");
    for (int i = 0; i < t.meta.ncols; i++)
        sl_buf_printf(&b, "%s %s %s%s", i ? "," : "", t.meta.cols[i].name,
                      sl_ddl_type_str(t.meta.cols[i].type, t.meta.cols[i].width, tb, sizeof(tb)),
                      i == 1 && t.composite_key ? " COMPOSITE KEY" : "");
    if (t.meta.kind == SL_TABLE_SUPER) {
        sl_buf_printf(&b, " |");
        for (int i = 0; i < t.meta.ntags; i++)
            sl_buf_printf(&b, "%s %s %s", i ? "," : "", t.meta.tags[i].name,
                          sl_ddl_type_str(t.meta.tags[i].type, t.meta.tags[i].width, tb,
                                          sizeof(tb)));
    }
    sl_buf_put_u8(&b, 0);
    return (char *)b.data;
}

static void expect_schema(sl_mcatalog *cat, const char *db, const char *table, const char *want)
{
    char *got = schema_of(cat, db, table);
    if (strcmp(got, want) != 0)
        fail_msg("%s.%s\n  got  %s\n  want %s", db, table, got, want);
    free(got);
}

/* The statement created exactly one table, db.table of kind k. */
static void expect_created(const char *db, const char *table, sl_table_kind k)
{
    assert_int_equal(last.n, 1);
    assert_int_equal(last.kind[0], SL_DDL_TABLE_CREATED);
    assert_int_equal(last.tkind[0], k);
    assert_string_equal(last.db[0], db);
    assert_string_equal(last.table[0], table);
}

static uint32_t vgroup_of(sl_mcatalog *cat, const char *db, const char *table)
{
    sl_mcatalog_db d;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_db_get(cat, db, &d, &err), 0);
    return d.vgroup_ids[sl_mcatalog_vgroup_index(db, table, d.nvgroups)];
}

/* Ungrouped: a normal table placed in a vgroup like CREATE TABLE; column names are the
 * select items as written, types those of the query. */
static void test_out_normal(void **state)
{
    fixture *f = *state;
    ok(f->cat, "power",
       "CREATE STREAM u1 INTERVAL(10s) SLIDING(10s) FROM d1001 INTO out_u AS SELECT _twstart, "
       "COUNT(*), AVG(voltage), MAX(voltage), SUM(voltage), FIRST(current), _twrownum AS n "
       "FROM %%trows");
    expect_created("power", "out_u", SL_TABLE_NORMAL);
    assert_int_equal(last.vgroup[0], vgroup_of(f->cat, "power", "out_u"));
    assert_true(last.vgroup[0] != 0);
    expect_schema(f->cat, "power", "out_u",
                  "normal: _twstart TIMESTAMP, COUNT(*) BIGINT, AVG(voltage) DOUBLE, MAX(voltage) "
                  "INT, SUM(voltage) BIGINT, FIRST(current) FLOAT, n BIGINT");
    /* Placeholders in WHERE over a named table; INTO another database. */
    ok(f->cat, "power",
       "CREATE STREAM u2 INTERVAL(10s) SLIDING(10s) FROM d1001 INTO other.out_w AS SELECT "
       "_twstart AS ws, _twend AS we, SPREAD(current) FROM meters WHERE ts >= _twstart AND "
       "ts < _twend AND groupId = 2");
    expect_created("other", "out_w", SL_TABLE_NORMAL);
    expect_schema(f->cat, "other", "out_w",
                  "normal: ws TIMESTAMP, we TIMESTAMP, SPREAD(current) DOUBLE");
    /* The stream and its table survive a reopen; DROP STREAM keeps the table. */
    reopen(f);
    expect_schema(f->cat, "power", "out_u",
                  "normal: _twstart TIMESTAMP, COUNT(*) BIGINT, AVG(voltage) DOUBLE, MAX(voltage) "
                  "INT, SUM(voltage) BIGINT, FIRST(current) FLOAT, n BIGINT");
    assert_int_equal(nrows(f->cat, NULL, "SHOW power.STREAMS"), 2);
    ok(f->cat, "power", "DROP STREAM u1");
    assert_int_equal(last.n, 0);
    expect_schema(f->cat, "power", "out_u",
                  "normal: _twstart TIMESTAMP, COUNT(*) BIGINT, AVG(voltage) DOUBLE, MAX(voltage) "
                  "INT, SUM(voltage) BIGINT, FIRST(current) FLOAT, n BIGINT");
    /* Without INTO nothing is created. */
    ok(f->cat, "power",
       "CREATE STREAM u3 INTERVAL(10s) SLIDING(10s) FROM d1001 NOTIFY('ws://h:1') ON "
       "(WINDOW_CLOSE) AS SELECT _twstart, COUNT(*) FROM %%trows");
    assert_int_equal(last.n, 0);
    assert_int_equal(nrows(f->cat, "power", "SHOW TABLES"), 2); /* d1001, out_u */
}

/* Grouped: a super table with one tag per grouping column (spec: tag_tbname VARCHAR(270)
 * for tbname, a tag's own name and type), or the TAGS definitions. */
static void test_out_super(void **state)
{
    fixture *f = *state;
    ok(f->cat, "power", S1);
    expect_created("power", "o1", SL_TABLE_SUPER);
    assert_int_equal(last.vgroup[0], 0);
    expect_schema(f->cat, "power", "o1",
                  "super: _twstart TIMESTAMP, AVG(voltage) DOUBLE | tag_tbname VARCHAR(270)");
    ok(f->cat, "power",
       "CREATE STREAM g2 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY groupId, location "
       "INTO o2 AS SELECT _twstart, MIN(current), COUNT(*) FROM %%trows");
    expect_created("power", "o2", SL_TABLE_SUPER);
    expect_schema(f->cat, "power", "o2",
                  "super: _twstart TIMESTAMP, MIN(current) FLOAT, COUNT(*) BIGINT | groupId INT, "
                  "location VARCHAR(64)");
    /* ROLLUP BY: the rollup tag; %%1 and %%rollup_tag have its type, _trollup_tbcount is a
     * BIGINT. */
    ok(f->cat, "power",
       "CREATE STREAM g3 PERIOD(1m) FROM meters ROLLUP BY location INTO o3 AS SELECT "
       "_tlocaltime, %%1 AS path, %%rollup_tag AS node, _trollup_tbcount AS ntables, "
       "_tgrpid AS gid FROM meters");
    expect_schema(f->cat, "power", "o3",
                  "super: _tlocaltime TIMESTAMP, path VARCHAR(64), node VARCHAR(64), ntables "
                  "BIGINT, gid BIGINT | location VARCHAR(64)");
    /* TAGS (name type AS expr) replace the derived tags. */
    ok(f->cat, "power",
       "CREATE STREAM g4 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname, groupId "
       "INTO o4 TAGS (dev VARCHAR(32) AS %%tbname, grp BIGINT AS groupId) AS SELECT _twstart, "
       "MAX(phase) FROM %%trows");
    expect_schema(f->cat, "power", "o4",
                  "super: _twstart TIMESTAMP, MAX(phase) FLOAT | dev VARCHAR(32), grp BIGINT");
    /* The column name list renames the query's columns. */
    ok(f->cat, "power",
       "CREATE STREAM g5 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o5 "
       "(wstart, avg_v, n) AS SELECT _twstart, AVG(voltage), COUNT(*) FROM %%trows");
    expect_schema(f->cat, "power", "o5",
                  "super: wstart TIMESTAMP, avg_v DOUBLE, n BIGINT | tag_tbname VARCHAR(270)");
    /* ... also of SELECT * (a child table's columns) */
    ok(f->cat, "power",
       "CREATE STREAM g6 COUNT_WINDOW(10) FROM d1001 INTO o6 (t, c, v, p) AS SELECT * FROM "
       "%%trows");
    expect_schema(f->cat, "power", "o6", "normal: t TIMESTAMP, c FLOAT, v INT, p FLOAT");
    reopen(f);
    expect_schema(f->cat, "power", "o4",
                  "super: _twstart TIMESTAMP, MAX(phase) FLOAT | dev VARCHAR(32), grp BIGINT");
    assert_int_equal(nrows(f->cat, NULL, "SHOW power.STREAMS"), 6);
}

/* Placeholders typed as documented (catalog_stream_out.c, docs/sql.md). */
static void test_out_placeholders(void **state)
{
    fixture *f = *state;
    ok(f->cat, "power",
       "CREATE STREAM p1 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname, location "
       "INTO op1 AS SELECT _twstart, _twend, _twrownum, _twduration, %%1, %%2, %%tbname, "
       "AVG(voltage) FROM %%trows");
    expect_schema(f->cat, "power", "op1",
                  "super: _twstart TIMESTAMP, _twend TIMESTAMP, _twrownum BIGINT, _twduration "
                  "BIGINT, %%1 VARCHAR(192), %%2 VARCHAR(64), %%tbname VARCHAR(192), "
                  "AVG(voltage) DOUBLE | tag_tbname VARCHAR(270), location VARCHAR(64)");
    ok(f->cat, "power",
       "CREATE STREAM p2 SLIDING(1m) FROM d1001 INTO op2 AS SELECT _tcurrent_ts, _tprev_ts, "
       "_tnext_ts, _tlocaltime, _tgrpid, COUNT(*) FROM %%trows");
    expect_schema(f->cat, "power", "op2",
                  "normal: _tcurrent_ts TIMESTAMP, _tprev_ts TIMESTAMP, _tnext_ts TIMESTAMP, "
                  "_tlocaltime TIMESTAMP, _tgrpid BIGINT, COUNT(*) BIGINT");
    ok(f->cat, "power",
       "CREATE STREAM p3 PERIOD(1h) INTO op3 AS SELECT _tprev_localtime, _tnext_localtime, "
       "COUNT(*) FROM meters");
    expect_schema(f->cat, "power", "op3",
                  "normal: _tprev_localtime TIMESTAMP, _tnext_localtime TIMESTAMP, COUNT(*) "
                  "BIGINT");
    /* _tidlestart/_tidleend are nanosecond BIGINTs, cast as the spec shows. */
    ok(f->cat, "power",
       "CREATE STREAM p4 INTERVAL(1m) SLIDING(1m) FROM d1001 STREAM_OPTIONS(IDLE_TIMEOUT(10s) "
       "| EVENT_TYPE(IDLE|RESUME)) INTO op4 AS SELECT CAST(_tidlestart/1000000 AS TIMESTAMP) "
       "AS idle_start, _tidleend, _tidlestart FROM d1001");
    expect_schema(f->cat, "power", "op4",
                  "normal: idle_start TIMESTAMP, _tidleend BIGINT, _tidlestart BIGINT");
    /* FROM %%tbname: the trigger table's columns; %%tbname also in WHERE. */
    ok(f->cat, "power",
       "CREATE STREAM p5 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO op5 AS "
       "SELECT _twstart, LAST(current), FIRST(location) FROM %%tbname WHERE ts >= _twstart AND "
       "tbname = %%tbname");
    expect_schema(f->cat, "power", "op5",
                  "super: _twstart TIMESTAMP, LAST(current) FLOAT, FIRST(location) VARCHAR(64) | "
                  "tag_tbname VARCHAR(270)");
}

/* An existing table with exactly the derived schema is used as it is. */
static void test_out_existing(void **state)
{
    fixture *f = *state;
    ok(f->cat, "power",
       "CREATE STABLE ex1 (ws TIMESTAMP, v DOUBLE) TAGS (tag_tbname VARCHAR(270))");
    ok(f->cat, "power", "CREATE TABLE ex2 (ws TIMESTAMP, V DOUBLE, n BIGINT)");
    sl_mcatalog_table t1, t2;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_table_get(f->cat, "power", "ex1", &t1, &err), 0);
    uint64_t uid1 = t1.uid;
    ok(f->cat, "power",
       "CREATE STREAM e1 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO ex1 "
       "(ws, v) AS SELECT _twstart, AVG(voltage) FROM %%trows");
    assert_int_equal(last.n, 0);
    ok(f->cat, "power",
       "CREATE STREAM e2 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO EX2 AS SELECT _twstart AS WS, "
       "AVG(voltage) AS v, COUNT(*) AS N FROM %%trows");
    assert_int_equal(last.n, 0);
    assert_int_equal(sl_mcatalog_table_get(f->cat, "power", "ex1", &t1, &err), 0);
    assert_int_equal(t1.uid, uid1);
    assert_int_equal(sl_mcatalog_table_get(f->cat, "power", "ex2", &t2, &err), 0);
    expect_schema(f->cat, "power", "ex2", "normal: ws TIMESTAMP, V DOUBLE, n BIGINT");
    assert_int_equal(nrows(f->cat, NULL, "SHOW power.STREAMS"), 2);
    /* IF NOT EXISTS of an existing stream creates nothing, not even a new INTO table. */
    char *before = snapshot(f->cat);
    ok(f->cat, "power",
       "CREATE STREAM IF NOT EXISTS e1 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO fresh AS "
       "SELECT _twstart, COUNT(*) FROM %%trows");
    assert_int_equal(last.n, 0);
    expect_snapshot(before, f->cat);
}

/* INTO out (ts, k COMPOSITE KEY, ...): the output table gets the composite key, which
 * survives a reopen and must match an existing table's. */
static void test_out_composite_key(void **state)
{
    fixture *f = *state;
    ok(f->cat, "power",
       "CREATE STREAM k1 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO ok1 (ts, n COMPOSITE KEY) AS "
       "SELECT _twstart, COUNT(*) FROM %%trows");
    expect_created("power", "ok1", SL_TABLE_NORMAL);
    expect_schema(f->cat, "power", "ok1", "normal: ts TIMESTAMP, n BIGINT COMPOSITE KEY");
    /* Grouped, with a GROUP BY in the query: one row per (window, key). */
    ok(f->cat, "power",
       "CREATE STREAM k2 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO ok2 "
       "(ts, loc COMPOSITE KEY, c) AS SELECT _twstart, location, COUNT(*) FROM meters WHERE "
       "ts >= _twstart AND ts < _twend GROUP BY location");
    expect_created("power", "ok2", SL_TABLE_SUPER);
    expect_schema(f->cat, "power", "ok2",
                  "super: ts TIMESTAMP, loc VARCHAR(64) COMPOSITE KEY, c BIGINT | tag_tbname "
                  "VARCHAR(270)");
    /* SHOW CREATE and DESCRIBE show it. */
    char *sc = formatted(f->cat, "power", "SHOW CREATE TABLE ok1");
    assert_non_null(strstr(sc, "CREATE TABLE `ok1` (`ts` TIMESTAMP, `n` BIGINT COMPOSITE KEY)"));
    free(sc);
    sc = formatted(f->cat, "power", "DESCRIBE ok2");
    assert_non_null(strstr(sc, " loc        | VARCHAR   |     64 | COMPOSITE KEY\n"));
    assert_non_null(strstr(sc, " c          | BIGINT    |      8 | \n"));
    free(sc);
    reopen(f);
    expect_schema(f->cat, "power", "ok1", "normal: ts TIMESTAMP, n BIGINT COMPOSITE KEY");
    expect_schema(f->cat, "power", "ok2",
                  "super: ts TIMESTAMP, loc VARCHAR(64) COMPOSITE KEY, c BIGINT | tag_tbname "
                  "VARCHAR(270)");
    /* An existing table is reused only with the same key. */
    ok(f->cat, "power",
       "CREATE STREAM k3 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO ok1 (ts, n COMPOSITE KEY) AS "
       "SELECT _twstart, COUNT(*) FROM %%trows");
    assert_int_equal(last.n, 0);
    refused(f->cat, "power",
            "CREATE STREAM k4 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO ok1 (ts, n) AS SELECT "
            "_twstart, COUNT(*) FROM %%trows",
            SL_EEXIST,
            "1:59: output table 'ok1' already exists with a different schema: its column 'n' "
            "is a COMPOSITE KEY, the stream needs it not to be one");
    ok(f->cat, "power", "CREATE TABLE plain (ts TIMESTAMP, n BIGINT)");
    refused(f->cat, "power",
            "CREATE STREAM k4 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO plain (ts, n COMPOSITE "
            "KEY) AS SELECT _twstart, COUNT(*) FROM %%trows",
            SL_EEXIST,
            "1:59: output table 'plain' already exists with a different schema: its column 'n' "
            "is not a COMPOSITE KEY, the stream needs it to be one");
}

/* Every refusal leaves the catalog as it was (refused() compares the dumps). */
static void test_out_refused(void **state)
{
    fixture *f = *state;
    ok(f->cat, "power", "CREATE TABLE ex2 (ts TIMESTAMP, v INT)");
    ok(f->cat, "power", "CREATE STABLE ex3 (ws TIMESTAMP, v DOUBLE) TAGS (tag_tbname NCHAR(270))");
    ok(f->cat, "power",
       "CREATE STABLE sensors (ts TIMESTAMP, v INT) TAGS (tag_tbname VARCHAR(16), site "
       "VARCHAR(8))");
    /* The column list and the query disagree on the number of columns. */
    refused(f->cat, "power",
            "CREATE STREAM r1 COUNT_WINDOW(10) FROM d1001 INTO o (a, b) AS SELECT * FROM "
            "%%trows",
            SL_EINVAL, "1:54: the column list names 2 columns but the query returns 4");
    refused(f->cat, "power",
            "CREATE STREAM r1 COUNT_WINDOW(10) FROM d1001 INTO o (a, b) AS SELECT _twstart, "
            "COUNT(*), AVG(v) FROM %%trows",
            SL_EINVAL, "1:54: the column list names 2 columns but the query returns 3");
    /* The first column is the primary key: a TIMESTAMP. */
    refused(f->cat, "power",
            "CREATE STREAM r2 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o AS SELECT location, "
            "COUNT(*) FROM meters PARTITION BY location",
            SL_EINVAL,
            "1:71: the first column of the stream's query must be a TIMESTAMP (the output "
            "table's primary key): 'location' is VARCHAR(64)");
    /* Output names must be unique, case-insensitively, and fit. */
    refused(f->cat, "power",
            "CREATE STREAM r3 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o AS SELECT _twstart, "
            "AVG(voltage) AS v, MAX(voltage) AS V FROM %%trows",
            SL_EINVAL,
            "1:100: output column name 'V' appears twice: rename one with AS or give a column "
            "list");
    refused(f->cat, "power",
            "CREATE STREAM r3 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o AS SELECT _twstart, "
            "COUNT(*) AS a2345678901234567890123456789012345678901234567890123456789012345 "
            "FROM %%trows",
            SL_ELIMIT,
            "1:81: output column name "
            "'a2345678901234567890123456789012345678901234567890123456789012345' is longer "
            "than 64 bytes: rename it with AS or a column list");
    refused(f->cat, "power",
            "CREATE STREAM r3 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o (ts, tbname) AS "
            "SELECT _twstart, COUNT(*) FROM %%trows",
            SL_EINVAL, "1:66: 'tbname' is reserved for the table name and cannot be a column");
    /* An existing table with another schema. */
    refused(f->cat, "power",
            "CREATE STREAM r4 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO ex2 AS SELECT _twstart, "
            "AVG(voltage) FROM %%trows",
            SL_EEXIST,
            "1:59: output table 'ex2' already exists with a different schema: column 1 is 'ts' "
            "TIMESTAMP, the stream needs '_twstart' TIMESTAMP");
    refused(f->cat, "power",
            "CREATE STREAM r4 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO ex2 (ts, v) AS SELECT "
            "_twstart, AVG(voltage) FROM %%trows",
            SL_EEXIST,
            "1:59: output table 'ex2' already exists with a different schema: column 2 is 'v' "
            "INT, the stream needs 'v' DOUBLE");
    refused(f->cat, "power",
            "CREATE STREAM r4 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO ex2 (ts) AS SELECT "
            "_twstart FROM %%trows",
            SL_EEXIST,
            "1:59: output table 'ex2' already exists with a different schema: it has 2 columns, "
            "the stream needs 1");
    refused(f->cat, "power",
            "CREATE STREAM r4 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO ex2 "
            "(ts, v) AS SELECT _twstart, MAX(voltage) FROM %%trows",
            SL_EEXIST,
            "1:80: output table 'ex2' already exists with a different schema: it is a normal "
            "table, the stream needs a super table");
    refused(f->cat, "power",
            "CREATE STREAM r4 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO ex3 "
            "(ws, v) AS SELECT _twstart, AVG(voltage) FROM %%trows",
            SL_EEXIST,
            "1:80: output table 'ex3' already exists with a different schema: tag 1 is "
            "'tag_tbname' NCHAR(270), the stream needs 'tag_tbname' VARCHAR(270)");
    /* The output database must exist (and be writable). */
    refused(f->cat, "power",
            "CREATE STREAM r5 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO nodb.o AS SELECT "
            "_twstart, COUNT(*) FROM %%trows",
            SL_ENOTFOUND, "1:59: database 'nodb' does not exist");
    refused(f->cat, "power",
            "CREATE STREAM r5 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO information_schema.o AS "
            "SELECT _twstart, COUNT(*) FROM %%trows",
            SL_EINVAL,
            "1:59: database 'information_schema' is read-only: it holds the system tables");
    refused(f->cat, NULL,
            "CREATE STREAM power.r5 INTERVAL(1m) SLIDING(1m) FROM power.d1001 INTO d1001 AS "
            "SELECT _twstart, COUNT(*) FROM power.d1001",
            SL_EINVAL, "1:71: the INTO table cannot be the trigger table");
    /* COMPOSITE KEY: only the second column, of a key type (test_out_composite_key). */
    refused(f->cat, "power",
            "CREATE STREAM r6 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o (ts, n COMPOSITE KEY) "
            "AS SELECT _twstart, AVG(voltage) FROM %%trows",
            SL_ETYPE,
            "1:66: COMPOSITE KEY column 'n' must be INT, BIGINT, INT UNSIGNED, BIGINT UNSIGNED "
            "or VARCHAR/BINARY, not DOUBLE");
    refused(f->cat, "power",
            "CREATE STREAM r6 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o (ts COMPOSITE KEY, n) "
            "AS SELECT _twstart, COUNT(*) FROM %%trows",
            SL_EINVAL, "1:62: COMPOSITE KEY can only mark the second output column");
    /* Errors in the subquery come from the planner, at their position. */
    refused(f->cat, "power",
            "CREATE STREAM r7 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o AS SELECT _twstart, "
            "AVG(nosuch) FROM %%trows",
            SL_ENOTFOUND, "1:85: unknown column 'nosuch' in table 'd1001'");
    refused(f->cat, "power",
            "CREATE STREAM r7 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o AS SELECT _twstart, "
            "COUNT(*) FROM nosuch",
            SL_ENOTFOUND, "1:95: table 'nosuch' does not exist in database 'power'");
    /* Derived tags: distinct names, not the name of an output column. */
    refused(f->cat, "power",
            "CREATE STREAM r8 INTERVAL(1m) SLIDING(1m) FROM sensors PARTITION BY tbname, "
            "tag_tbname INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
            SL_EINVAL,
            "1:77: the grouping columns give two output tags named 'tag_tbname': define the "
            "tags with TAGS (...)");
    refused(f->cat, "power",
            "CREATE STREAM r8 INTERVAL(1m) SLIDING(1m) FROM sensors PARTITION BY site INTO o AS "
            "SELECT _twstart, COUNT(*) AS site FROM %%trows",
            SL_EINVAL, "1:69: output tag 'site' has the same name as an output column");
    refused(f->cat, "power",
            "CREATE STREAM r8 INTERVAL(1m) SLIDING(1m) FROM sensors PARTITION BY site INTO o "
            "TAGS (v INT AS site) AS SELECT _twstart, COUNT(*) AS v FROM %%trows",
            SL_EINVAL, "1:87: output tag 'v' has the same name as an output column");
    assert_int_equal(nrows(f->cat, NULL, "SHOW power.STREAMS"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_validation, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_drop, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_start_stop, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_show, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_show_create_round_trip, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_ins_streams, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_drop_database, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_out_normal, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_out_super, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_out_placeholders, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_out_existing, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_out_refused, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_out_composite_key, setup, mcf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
