/*
 * test_mcatalog.c - the mnode catalog (mnode/catalog.h): every DDL statement accepted and
 * refused, IF [NOT] EXISTS, table placement by hash, vgroup placement on vnodes, node
 * membership, persistence across reopen and across kill -9, and information_schema
 * queries through the real planner.
 *
 * Every refusal checks the exact code and message and that the whole catalog - its
 * in-memory rendering and every stored record - is byte-for-byte the same before and
 * after. The same statements are also run through the embedded store (memstore), whose
 * rules the catalog shares: results and messages must be identical. Expected values are
 * worked out by hand (placement sequences, counts) or computed independently (vgroup
 * indexes with XXH3_64bits directly), never by running the code under test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <xxhash.h>

#include "common/exec/memstore.h"
#include "common/sql/parser.h"
#include "mcatalog_fixture.h"
#include "mnode/catalog.h"

typedef struct fixture {
    MCF_HEAD;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    if (open_temp(f->dir, sizeof(f->dir), "/tmp/sl-mcat-XXXXXX", &f->cat) != 0)
        return -1;
    *state = f;
    return 0;
}

/* ------------------------------------------------------------ running statements */

/* Parses one statement (the caller frees *pr). */
static const sl_stmt *parse1(const char *sql, sl_parse_result **pr)
{
    sl_error err;
    sl_error_clear(&err);
    if (sl_parse(sql, strlen(sql), pr, &err) != 0)
        fail_msg("parse failed: %s\n  sql: %s", err.msg, sql);
    assert_int_equal((*pr)->nstmts, 1);
    return (*pr)->stmts[0];
}

/* Runs a DDL statement and returns the number of changes it reported. */
static int ok_changes(sl_mcatalog *cat, const char *db, const char *sql)
{
    sl_error err;
    sl_ddl_result c;
    int rc = cat_run(cat, db, sql, &c, NULL, &err);
    if (rc != 0)
        fail_msg("failed (%d): %s\n  sql: %s", rc, err.msg, sql);
    int n = c.nchanges;
    sl_ddl_result_fini(&c);
    return n;
}

/* "1:<col>: msg" where col is where needle starts in the single-line sql. */
static const char *at(const char *sql, const char *needle, const char *msg)
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

static uint32_t reg(sl_mcatalog *cat, sl_mc_node_kind kind, const char *addr, int64_t now)
{
    uint32_t id = 0;
    sl_error err;
    sl_error_clear(&err);
    if (sl_mcatalog_node_register(cat, kind, addr, now, &id, &err) != 0)
        fail_msg("register %s: %s", addr, err.msg);
    return id;
}

static sl_mcatalog_table table(sl_mcatalog *cat, const char *db, const char *name)
{
    sl_mcatalog_table t;
    sl_error err;
    sl_error_clear(&err);
    if (sl_mcatalog_table_get(cat, db, name, &t, &err) != 0)
        fail_msg("lookup %s.%s: %s", db, name, err.msg);
    return t;
}

static const char *METERS =
    "CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT) "
    "TAGS (location VARCHAR(64), groupId INT)";

/* One vnode, database power (VGROUPS 4), meters and three child tables. */
static void power(sl_mcatalog *cat)
{
    reg(cat, SL_MC_VNODE, "127.0.0.1:6100", NOW_MS);
    ok(cat, NULL, "CREATE DATABASE power VGROUPS 4");
    ok(cat, "power", METERS);
    ok(cat, "power",
       "CREATE TABLE d1001 USING meters TAGS ('SF', 2) d1002 USING meters TAGS ('SF', 3) "
       "d1003 USING meters TAGS ('LA', 2)");
}

/* The vgroup index of a table, computed independently of the catalog. */
static uint32_t expected_index(const char *db, const char *table, uint32_t n)
{
    char buf[512];
    size_t k = 0;
    for (const char *p = db; *p; p++)
        buf[k++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    buf[k++] = '\0';
    for (const char *p = table; *p; p++)
        buf[k++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    return (uint32_t)(XXH3_64bits(buf, k) % n);
}

/* ------------------------------------------------------------ databases */

static void test_create_database(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    uint32_t v1 = reg(cat, SL_MC_VNODE, "127.0.0.1:6100", NOW_MS);
    assert_int_equal(v1, 1);

    sl_error err;
    sl_ddl_result c;
    assert_int_equal(
        cat_run(cat, NULL, "CREATE DATABASE power PRECISION 'us' VGROUPS 4", &c, NULL, &err), 0);
    /* The database, then its four vgroups (ids 1..4), all on the only vnode. */
    assert_int_equal(c.nchanges, 5);
    assert_int_equal(c.changes[0].kind, SL_DDL_DB_CREATED);
    assert_string_equal(c.changes[0].db, "power");
    for (int i = 1; i <= 4; i++) {
        assert_int_equal(c.changes[i].kind, SL_DDL_VGROUP_CREATED);
        assert_string_equal(c.changes[i].db, "power");
        assert_int_equal(c.changes[i].vgroup_id, i);
        assert_int_equal(c.changes[i].vnode_id, v1);
    }
    sl_ddl_result_fini(&c);
    /* IF NOT EXISTS on an existing database changes nothing and reports nothing. */
    char *before = snapshot(cat);
    assert_int_equal(ok_changes(cat, NULL, "CREATE DATABASE IF NOT EXISTS power PRECISION 'ns'"),
                     0);
    expect_snapshot(before, cat);
    g_now = NOW_MS + 1000;
    ok(cat, NULL, "CREATE DATABASE archive");
    g_now = NOW_MS;

    sl_mcatalog_db db;
    assert_int_equal(sl_mcatalog_db_get(cat, "POWER", &db, &err), 0);
    assert_string_equal(db.name, "power");
    assert_int_equal(db.precision, SL_PREC_US);
    assert_int_equal(db.create_time, NOW_MS);
    assert_int_equal(db.nvgroups, 4);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(db.vgroup_ids[i], i + 1);
    assert_int_equal(sl_mcatalog_db_get(cat, "archive", &db, &err), 0);
    assert_int_equal(db.precision, SL_PREC_MS);
    assert_int_equal(db.create_time, NOW_MS + 1000);
    assert_int_equal(db.nvgroups, 2);
    assert_int_equal(db.vgroup_ids[0], 5);
    assert_int_equal(db.vgroup_ids[1], 6);
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_db_get(cat, "nope", &db, &err), SL_ENOTFOUND);
    assert_string_equal(err.msg, "database 'nope' does not exist");

    check_format(cat, NULL, "SHOW DATABASES",
                 "  name   | precision | vgroups | ntables\n"
                 "---------+-----------+---------+---------\n"
                 " archive | ms        |       2 |       0\n"
                 " power   | us        |       4 |       0\n"
                 "(2 rows)\n");
    check_format(cat, NULL, "SHOW DATABASES LIKE 'p%'",
                 " name  | precision | vgroups | ntables\n"
                 "-------+-----------+---------+---------\n"
                 " power | us        |       4 |       0\n"
                 "(1 row)\n");
    check_format(cat, NULL, "SHOW CREATE DATABASE power",
                 " Database |                 Create Database\n"
                 "----------+--------------------------------------------------\n"
                 " power    | CREATE DATABASE `power` PRECISION 'us' VGROUPS 4\n"
                 "(1 row)\n");

    refused(cat, NULL, "CREATE DATABASE power", SL_EEXIST, "1:1: database 'power' already exists");
    refused(cat, NULL, "CREATE DATABASE POWER", SL_EEXIST, "1:1: database 'POWER' already exists");
    const char *sql = "CREATE DATABASE y VGROUPS 0";
    refused(cat, NULL, sql, SL_ERANGE,
            at(sql, "VGROUPS", "VGROUPS must be between 1 and 1024, got 0"));
    sql = "CREATE DATABASE y VGROUPS 1025";
    refused(cat, NULL, sql, SL_ERANGE,
            at(sql, "VGROUPS", "VGROUPS must be between 1 and 1024, got 1025"));
    sql = "CREATE DATABASE x PRECISION 'xs'";
    refused(cat, NULL, sql, SL_ESYNTAX,
            at(sql, "'xs'", "invalid precision 'xs': expected 'ms', 'us' or 'ns'"));
    refused(cat, NULL, "CREATE DATABASE information_schema", SL_EINVAL,
            "1:1: database name 'information_schema' is reserved for the system tables");
    refused(cat, NULL,
            "CREATE DATABASE a2345678901234567890123456789012345678901234567890123456789012345",
            SL_ELIMIT,
            "1:1: database name "
            "'a2345678901234567890123456789012345678901234567890123456789012345' is longer than "
            "64 bytes");
    refused(cat, NULL, "USE power", SL_EUNSUPPORTED, "1:1: USE is not a DDL statement");
}

static void test_drop_database(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    power(cat);
    ok(cat, NULL, "CREATE DATABASE other VGROUPS 3");
    ok(cat, "other", "CREATE TABLE t (ts TIMESTAMP, v INT)");
    sl_mcatalog_node n;
    sl_error err;
    assert_int_equal(sl_mcatalog_node_get(cat, 1, &n, &err), 0);
    assert_int_equal(n.nvgroups, 7);

    const char *sql = "DROP DATABASE nowhere";
    refused(cat, NULL, sql, SL_ENOTFOUND, at(sql, "nowhere", "database 'nowhere' does not exist"));
    assert_int_equal(ok_changes(cat, NULL, "DROP DATABASE IF EXISTS nowhere"), 0);

    sl_ddl_result c;
    assert_int_equal(cat_run(cat, NULL, "DROP DATABASE power", &c, NULL, &err), 0);
    /* The database and its four vgroups; its tables go with them unlisted. */
    assert_int_equal(c.nchanges, 5);
    assert_int_equal(c.changes[0].kind, SL_DDL_DB_DROPPED);
    for (int i = 1; i <= 4; i++) {
        assert_int_equal(c.changes[i].kind, SL_DDL_VGROUP_DROPPED);
        assert_int_equal(c.changes[i].vgroup_id, i);
        assert_int_equal(c.changes[i].vnode_id, 1);
    }
    sl_ddl_result_fini(&c);
    assert_int_equal(sl_mcatalog_node_get(cat, 1, &n, &err), 0);
    assert_int_equal(n.nvgroups, 3);
    sl_mcatalog_table t;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_table_get(cat, "power", "d1001", &t, &err), SL_ENOTFOUND);
    assert_string_equal(err.msg, "database 'power' does not exist");
    sl_mcatalog_vgroup vg;
    assert_int_equal(sl_mcatalog_vgroup_get(cat, 2, &vg, &err), SL_ENOTFOUND);
    assert_int_equal(sl_mcatalog_vgroup_get(cat, 5, &vg, &err), 0);
    assert_string_equal(vg.db, "other");

    /* The name is free again; the new database has new vgroups and no tables, on disk too. */
    ok(cat, NULL, "CREATE DATABASE power VGROUPS 1");
    mcf_reopen(&f->head);
    cat = f->cat;
    sl_mcatalog_db db;
    assert_int_equal(sl_mcatalog_db_get(cat, "power", &db, &err), 0);
    assert_int_equal(db.nvgroups, 1);
    assert_int_equal(db.vgroup_ids[0], 8);
    assert_int_equal(db.ntables, 0);
    assert_int_equal(db.nstables, 0);
    check_format(cat, NULL, "SHOW DATABASES",
                 " name  | precision | vgroups | ntables\n"
                 "-------+-----------+---------+---------\n"
                 " other | ms        |       3 |       1\n"
                 " power | ms        |       1 |       0\n"
                 "(2 rows)\n");
    refused(cat, NULL, "DROP DATABASE information_schema", SL_EINVAL,
            "1:15: database 'information_schema' is read-only: it holds the system tables");
}

/* ------------------------------------------------------------ placement */

/* Node ids of the vgroups of db, by hash index. */
static void vnodes_of(sl_mcatalog *cat, const char *dbname, uint32_t *out, uint32_t n)
{
    sl_mcatalog_db db;
    sl_error err;
    assert_int_equal(sl_mcatalog_db_get(cat, dbname, &db, &err), 0);
    assert_int_equal(db.nvgroups, n);
    for (uint32_t i = 0; i < n; i++) {
        sl_mcatalog_vgroup vg;
        assert_int_equal(sl_mcatalog_vgroup_get(cat, db.vgroup_ids[i], &vg, &err), 0);
        assert_int_equal(vg.index, i);
        out[i] = vg.vnode_id;
    }
}

static void test_placement_balanced(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    uint32_t got[8];
    /* With k vnodes, six vgroups land 6/k on each. */
    for (int k = 1; k <= 3; k++) {
        char addr[32], sql[64], name[16];
        snprintf(addr, sizeof(addr), "10.0.0.%d:6100", k);
        assert_int_equal(reg(cat, SL_MC_VNODE, addr, NOW_MS), (uint32_t)k);
        /* A fresh catalog per k: drop what the previous round placed. */
        if (k > 1) {
            snprintf(sql, sizeof(sql), "DROP DATABASE db%d", k - 1);
            ok(cat, NULL, sql);
        }
        snprintf(name, sizeof(name), "db%d", k);
        snprintf(sql, sizeof(sql), "CREATE DATABASE %s VGROUPS 6", name);
        ok(cat, NULL, sql);
        vnodes_of(cat, name, got, 6);
        int count[4] = {0};
        for (int i = 0; i < 6; i++)
            count[got[i]]++;
        for (int v = 1; v <= k; v++)
            assert_int_equal(count[v], 6 / k);
        for (int v = 1; v <= k; v++) {
            sl_mcatalog_node n;
            sl_error err;
            assert_int_equal(sl_mcatalog_node_get(cat, (uint32_t)v, &n, &err), 0);
            assert_int_equal(n.nvgroups, 6 / k);
        }
    }
}

static void test_placement_sequence(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    uint32_t a = reg(cat, SL_MC_VNODE, "a:6100", NOW_MS);
    uint32_t s = reg(cat, SL_MC_SNODE, "s:6200", NOW_MS);
    uint32_t b = reg(cat, SL_MC_VNODE, "b:6100", NOW_MS);
    assert_int_equal(a, 1);
    assert_int_equal(s, 2);
    assert_int_equal(b, 3);
    uint32_t got[8];
    /* Loads a=0 b=0 -> a; 1/0 -> b; 1/1 -> a; 2/1 -> b. The snode holds none. */
    ok(cat, NULL, "CREATE DATABASE d1 VGROUPS 4");
    vnodes_of(cat, "d1", got, 4);
    uint32_t w1[] = {a, b, a, b};
    assert_memory_equal(got, w1, sizeof(w1));
    /* 2/2 -> a; 3/2 -> b; 3/3 -> a. */
    ok(cat, NULL, "CREATE DATABASE d2 VGROUPS 3");
    vnodes_of(cat, "d2", got, 3);
    uint32_t w2[] = {a, b, a};
    assert_memory_equal(got, w2, sizeof(w2));
    /* c joins with no load: c takes vgroups until it catches up with b (ties: lower id). */
    uint32_t c = reg(cat, SL_MC_VNODE, "c:6100", NOW_MS);
    assert_int_equal(c, 4);
    /* a=4 b=3 c=0 -> c; c=1 -> c; c=2 -> c; b=3,c=3 -> b; a=4,b=4,c=3 -> c. */
    ok(cat, NULL, "CREATE DATABASE d3 VGROUPS 5");
    vnodes_of(cat, "d3", got, 5);
    uint32_t w3[] = {c, c, c, b, c};
    assert_memory_equal(got, w3, sizeof(w3));
    /* b dies: only a (4) and c (4) are candidates: a, c, a. */
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_heartbeat(cat, a, NOW_MS + 10000, &err), 0);
    assert_int_equal(sl_mcatalog_node_heartbeat(cat, c, NOW_MS + 10000, &err), 0);
    size_t ndead = 0;
    assert_int_equal(sl_mcatalog_node_sweep(cat, NOW_MS + 10000, 5000, NULL, 0, &ndead, &err), 0);
    assert_int_equal(ndead, 2); /* b and the snode */
    ok(cat, NULL, "CREATE DATABASE d4 VGROUPS 3");
    vnodes_of(cat, "d4", got, 3);
    uint32_t w4[] = {a, c, a};
    assert_memory_equal(got, w4, sizeof(w4));
    check_format(cat, NULL, "SHOW VNODES LIKE 'b%'",
                 " vgroup_id | db_name | vgroup_index | vnode_id | endpoint | status | tables |"
                 " rows | disk_bytes | write_requests | rows_written | fenced\n"
                 "-----------+---------+--------------+----------+----------+--------+--------+---"
                 "---+------------+----------------+--------------+--------\n"
                 "         2 | d1      |            1 |        3 | b:6100   | dead   |      0 |"
                 " NULL | NULL       | NULL           | NULL         | NULL\n"
                 "         4 | d1      |            3 |        3 | b:6100   | dead   |      0 |"
                 " NULL | NULL       | NULL           | NULL         | NULL\n"
                 "         6 | d2      |            1 |        3 | b:6100   | dead   |      0 |"
                 " NULL | NULL       | NULL           | NULL         | NULL\n"
                 "        11 | d3      |            3 |        3 | b:6100   | dead   |      0 |"
                 " NULL | NULL       | NULL           | NULL         | NULL\n"
                 "(4 rows)\n");
    /* A table in a vgroup of the dead vnode still resolves, marked not alive. */
    ok(cat, "d1", "CREATE TABLE t (ts TIMESTAMP, v INT)");
    sl_mcatalog_table t = table(cat, "d1", "t");
    uint32_t idx = expected_index("d1", "t", 4);
    assert_int_equal(t.vgroup_id, idx + 1);
    assert_int_equal(t.vnode_id, w1[idx]);
    assert_int_equal(t.vnode_alive, w1[idx] == a);
    assert_string_equal(t.vnode_addr, w1[idx] == a ? "a:6100" : "b:6100");
}

static void test_placement_refused(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    const char *want = "1:1: no alive vnode to place the 2 vgroups of database 'power' on: "
                       "start a vnode first";
    refused(cat, NULL, "CREATE DATABASE power", SL_ESTATE, want);
    /* An snode is not a vnode. */
    reg(cat, SL_MC_SNODE, "s:6200", NOW_MS);
    refused(cat, NULL, "CREATE DATABASE power", SL_ESTATE, want);
    /* A dead vnode cannot take vgroups either. */
    reg(cat, SL_MC_VNODE, "v:6100", NOW_MS);
    sl_error err;
    assert_int_equal(sl_mcatalog_node_sweep(cat, NOW_MS + 60000, 10000, NULL, 0, NULL, &err), 0);
    refused(cat, NULL, "CREATE DATABASE power VGROUPS 1", SL_ESTATE,
            "1:1: no alive vnode to place the 1 vgroup of database 'power' on: start a vnode "
            "first");
    /* IF NOT EXISTS of an existing database needs no vnode. */
    assert_int_equal(sl_mcatalog_node_heartbeat(cat, 2, NOW_MS + 60000, &err), 0);
    ok(cat, NULL, "CREATE DATABASE power");
    assert_int_equal(sl_mcatalog_node_sweep(cat, NOW_MS + 120000, 10000, NULL, 0, NULL, &err), 0);
    assert_int_equal(ok_changes(cat, NULL, "CREATE DATABASE IF NOT EXISTS power"), 0);
}

/* ------------------------------------------------------------ table placement */

static void test_vgroup_hash(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    /* The index is xxHash3-64 of lower(db) 0 lower(table), mod n, for any n. */
    static const char *const names[] = {"d1001", "D1001", "meters", "a", "x_y_z", "t-1"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        for (uint32_t n = 1; n <= 1024; n = n * 3 + 1)
            assert_int_equal(sl_mcatalog_vgroup_index("Power", names[i], n),
                             expected_index("power", names[i], n));
    /* Names longer than any valid one are hashed by their leading bytes, never overflow. */
    char longname[400];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    longname[SL_TABLE_NAME_MAX] = '\0';
    uint32_t want_long = expected_index("power", longname, 7);
    longname[SL_TABLE_NAME_MAX] = 'y';
    assert_int_equal(sl_mcatalog_vgroup_index("power", longname, 7), want_long);
    /* Case does not matter; the database is part of the key. */
    assert_int_equal(sl_mcatalog_vgroup_index("power", "d1001", 1000),
                     sl_mcatalog_vgroup_index("POWER", "D1001", 1000));
    /* Spread: 20000 names over 4 vgroups, each within 10% of a quarter. */
    int count[4] = {0};
    for (int i = 0; i < 20000; i++) {
        char name[32];
        snprintf(name, sizeof(name), "d%d", i);
        uint32_t k = sl_mcatalog_vgroup_index("power", name, 4);
        assert_true(k < 4);
        count[k]++;
    }
    for (int k = 0; k < 4; k++)
        assert_true(count[k] > 4500 && count[k] < 5500);

    /* Tables land in the vgroup of their index, stable across reopen. */
    power(cat);
    ok(cat, "power", "CREATE TABLE plain (ts TIMESTAMP, v DOUBLE)");
    static const char *const tabs[] = {"d1001", "d1002", "d1003", "plain"};
    sl_mcatalog_db db;
    sl_error err;
    assert_int_equal(sl_mcatalog_db_get(cat, "power", &db, &err), 0);
    uint32_t ids[4];
    for (int i = 0; i < 4; i++) {
        sl_mcatalog_table t = table(cat, "power", tabs[i]);
        ids[i] = t.vgroup_id;
        assert_int_equal(t.vgroup_id, db.vgroup_ids[expected_index("power", tabs[i], 4)]);
        assert_int_equal(t.vnode_id, 1);
        assert_string_equal(t.vnode_addr, "127.0.0.1:6100");
        assert_true(t.vnode_alive);
    }
    sl_mcatalog_table st = table(cat, "power", "meters");
    assert_int_equal(st.vgroup_id, 0);
    assert_null(st.vnode_addr);
    mcf_reopen(&f->head);
    for (int i = 0; i < 4; i++)
        assert_int_equal(table(f->cat, "power", tabs[i]).vgroup_id, ids[i]);
    /* Each vgroup counts its tables. */
    int64_t total = 0;
    for (uint32_t i = 0; i < 4; i++) {
        sl_mcatalog_vgroup vg;
        assert_int_equal(sl_mcatalog_vgroup_get(f->cat, i + 1, &vg, &err), 0);
        int64_t want = 0;
        for (int k = 0; k < 4; k++)
            want += ids[k] == i + 1;
        assert_int_equal(vg.ntables, want);
        total += vg.ntables;
    }
    assert_int_equal(total, 4);
}

/* ------------------------------------------------------------ super tables and tables */

static void test_create_stable(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    reg(cat, SL_MC_VNODE, "127.0.0.1:6100", NOW_MS);
    ok(cat, NULL, "CREATE DATABASE power");
    sl_error err;
    sl_ddl_result c;
    assert_int_equal(cat_run(cat, "power", METERS, &c, NULL, &err), 0);
    assert_int_equal(c.nchanges, 1);
    assert_int_equal(c.changes[0].kind, SL_DDL_TABLE_CREATED);
    assert_string_equal(c.changes[0].db, "power");
    assert_string_equal(c.changes[0].table, "meters");
    assert_int_equal(c.changes[0].table_kind, SL_TABLE_SUPER);
    assert_int_equal(c.changes[0].uid, 1);
    assert_int_equal(c.changes[0].vgroup_id, 0);
    sl_ddl_result_fini(&c);
    assert_int_equal(
        ok_changes(cat, "power",
                   "CREATE STABLE IF NOT EXISTS meters (ts TIMESTAMP, x INT) TAGS (t INT)"),
        0);

    sl_mcatalog_table t = table(cat, "power", "METERS");
    assert_int_equal(t.meta.kind, SL_TABLE_SUPER);
    assert_string_equal(t.meta.name, "meters");
    assert_string_equal(t.meta.db, "power");
    assert_int_equal(t.meta.ncols, 4);
    assert_int_equal(t.meta.ntags, 2);
    assert_string_equal(t.meta.cols[1].name, "current");
    assert_int_equal(t.meta.cols[1].type, SL_T_FLOAT);
    assert_string_equal(t.meta.tags[0].name, "location");
    assert_int_equal(t.meta.tags[0].type, SL_T_VARCHAR);
    assert_int_equal(t.meta.tags[0].width, 64);
    assert_int_equal(t.uid, 1);
    assert_int_equal(t.create_time, NOW_MS);
    assert_null(t.tagvals);

    check_format(cat, "power", "DESCRIBE meters",
                 "  field   |   type    | length | note\n"
                 "----------+-----------+--------+------\n"
                 " ts       | TIMESTAMP |      8 | \n"
                 " current  | FLOAT     |      4 | \n"
                 " voltage  | INT       |      4 | \n"
                 " phase    | FLOAT     |      4 | \n"
                 " location | VARCHAR   |     64 | TAG\n"
                 " groupId  | INT       |      4 | TAG\n"
                 "(6 rows)\n");
    check_format(cat, "power", "SHOW STABLES",
                 " stable_name | columns | tags | tables\n"
                 "-------------+---------+------+--------\n"
                 " meters      |       4 |    2 |      0\n"
                 "(1 row)\n");

    refused(cat, "power", METERS, SL_EEXIST,
            at(METERS, "meters", "super table 'meters' already exists"));
    const char *sql = "CREATE STABLE s (v INT, ts TIMESTAMP) TAGS (t INT)";
    refused(cat, "power", sql, SL_ETYPE,
            at(sql, "v INT", "the first column must be a TIMESTAMP, 'v' is INT"));
    sql = "CREATE STABLE s (ts TIMESTAMP, v INT, V DOUBLE) TAGS (t INT)";
    refused(cat, "power", sql, SL_EEXIST, at(sql, "V DOUBLE", "duplicate column name 'V'"));
    sql = "CREATE STABLE s (ts TIMESTAMP, v INT) TAGS (t INT, t BIGINT)";
    refused(cat, "power", sql, SL_EEXIST, at(sql, "t BIGINT", "duplicate tag name 't'"));
    sql = "CREATE STABLE s (ts TIMESTAMP, v INT) TAGS (t INT, v BIGINT)";
    refused(cat, "power", sql, SL_EEXIST,
            at(sql, "v BIGINT", "tag 'v' has the same name as a column"));
    sql = "CREATE STABLE s (ts TIMESTAMP, name VARCHAR) TAGS (t INT)";
    refused(cat, "power", sql, SL_EINVAL,
            at(sql, "name VARCHAR", "VARCHAR needs a length, e.g. VARCHAR(64)"));
    sql = "CREATE STABLE s (ts TIMESTAMP, v INT) TAGS (city NCHAR)";
    refused(cat, "power", sql, SL_EINVAL, at(sql, "city", "NCHAR needs a length, e.g. NCHAR(64)"));
    sql = "CREATE STABLE s (ts TIMESTAMP, v BINARY(70000)) TAGS (t INT)";
    refused(cat, "power", sql, SL_ERANGE,
            at(sql, "v BINARY", "VARCHAR length must be between 1 and 65517, got 70000"));
    sql = "CREATE STABLE s (ts TIMESTAMP, tbname INT) TAGS (t INT)";
    refused(cat, "power", sql, SL_EINVAL,
            at(sql, "tbname", "'tbname' is reserved for the table name and cannot be a column"));
    sql = "CREATE STABLE nowhere.s (ts TIMESTAMP, v INT) TAGS (t INT)";
    refused(cat, "power", sql, SL_ENOTFOUND,
            at(sql, "nowhere", "database 'nowhere' does not exist"));
    sql = "CREATE STABLE s (ts TIMESTAMP, v INT) TAGS (t INT)";
    refused(cat, NULL, sql, SL_ENOTFOUND,
            at(sql, "s (", "no database selected for 's': USE a database or write db.s"));
    refused(cat, "gone", sql, SL_ENOTFOUND, at(sql, "s (", "database 'gone' does not exist"));
}

/* "CREATE STABLE wide (ts TIMESTAMP, c1 INT, ...) TAGS (...)" with ncols columns, ntags tags. */
static char *wide_sql(int ncols, int ntags)
{
    sl_buf b;
    sl_buf_init(&b);
    sl_buf_printf(&b, "CREATE STABLE wide (ts TIMESTAMP");
    for (int i = 1; i < ncols; i++)
        sl_buf_printf(&b, ", c%d INT", i);
    sl_buf_printf(&b, ") TAGS (t0 INT");
    for (int i = 1; i < ntags; i++)
        sl_buf_printf(&b, ", t%d INT", i);
    sl_buf_printf(&b, ")");
    sl_buf_put_u8(&b, 0);
    return (char *)b.data;
}

static void test_limits(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    reg(cat, SL_MC_VNODE, "127.0.0.1:6100", NOW_MS);
    ok(cat, NULL, "CREATE DATABASE power");
    char *sql = wide_sql(4097, 1);
    refused(cat, "power", sql, SL_ELIMIT,
            at(sql, "c4096 INT", "too many columns: 4097 (at most 4096)"));
    free(sql);
    sql = wide_sql(4096, 129);
    refused(cat, "power", sql, SL_ELIMIT, at(sql, "t128 INT", "too many tags: 129 (at most 128)"));
    free(sql);
    /* Exactly at the limits is fine, and survives a reopen. */
    sql = wide_sql(4096, 128);
    ok(cat, "power", sql);
    free(sql);
    ok(cat, "power", "CREATE TABLE w1 USING wide (t127) TAGS (127)");
    mcf_reopen(&f->head);
    sl_mcatalog_table t = table(f->cat, "power", "w1");
    assert_int_equal(t.meta.ncols, 4096);
    assert_int_equal(t.meta.ntags, 128);
    assert_string_equal(t.meta.cols[4095].name, "c4095");
    assert_int_equal(t.tagvals->ncols, 128);
    assert_true(sl_column_is_null(&t.tagvals->cols[0], 0));
    assert_int_equal(sl_column_get_i64(&t.tagvals->cols[127], 0), 127);
}

static void test_create_tables(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    power(cat);
    ok(cat, "power", "CREATE TABLE plain (ts TIMESTAMP, v DOUBLE, note VARCHAR(8))");
    sl_error err;
    sl_ddl_result c;
    /* One statement, two tables: both reported, with uids 6 and 7 (meters 1, d100x 2-4,
     * plain 5) and their vgroups. */
    assert_int_equal(cat_run(cat, "power",
                             "CREATE TABLE d2001 USING meters (groupId) TAGS (7) "
                             "IF NOT EXISTS d1001 USING meters TAGS ('XX', 9) "
                             "power.d2002 USING power.meters TAGS ('NY', NULL)",
                             &c, NULL, &err),
                     0);
    assert_int_equal(c.nchanges, 2);
    static const char *const names[] = {"d2001", "d2002"};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(c.changes[i].kind, SL_DDL_TABLE_CREATED);
        assert_string_equal(c.changes[i].table, names[i]);
        assert_int_equal(c.changes[i].table_kind, SL_TABLE_CHILD);
        assert_int_equal(c.changes[i].uid, 6 + i);
        assert_int_equal(c.changes[i].stable_uid, 1);
        assert_int_equal(c.changes[i].vgroup_id, 1 + expected_index("power", names[i], 4));
        assert_int_equal(c.changes[i].vnode_id, 1);
    }
    sl_ddl_result_fini(&c);

    sl_mcatalog_table t = table(cat, "power", "d1002");
    assert_int_equal(t.meta.kind, SL_TABLE_CHILD);
    assert_int_equal(t.meta.ncols, 4);
    assert_int_equal(t.meta.ntags, 2);
    assert_int_equal(t.uid, 3);
    assert_int_equal(t.stable_uid, 1);
    assert_string_equal(t.stable, "meters");
    uint32_t len;
    const char *s = sl_column_get_str(&t.tagvals->cols[0], 0, &len);
    assert_int_equal(len, 2);
    assert_memory_equal(s, "SF", 2);
    assert_int_equal(sl_column_get_i64(&t.tagvals->cols[1], 0), 3);
    t = table(cat, "power", "d2001");
    assert_true(sl_column_is_null(&t.tagvals->cols[0], 0));
    assert_int_equal(sl_column_get_i64(&t.tagvals->cols[1], 0), 7);
    t = table(cat, "power", "plain");
    assert_int_equal(t.meta.kind, SL_TABLE_NORMAL);
    assert_int_equal(t.meta.ntags, 0);
    assert_int_equal(t.uid, 5);
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_table_get(cat, "power", "nope", &t, &err), SL_ENOTFOUND);
    assert_string_equal(err.msg, "table 'nope' does not exist in database 'power'");

    check_format(cat, "power", "SHOW TABLES",
                 " table_name | stable_name |     type     | columns\n"
                 "------------+-------------+--------------+---------\n"
                 " d1001      | meters      | CHILD_TABLE  |       4\n"
                 " d1002      | meters      | CHILD_TABLE  |       4\n"
                 " d1003      | meters      | CHILD_TABLE  |       4\n"
                 " d2001      | meters      | CHILD_TABLE  |       4\n"
                 " d2002      | meters      | CHILD_TABLE  |       4\n"
                 " plain      | NULL        | NORMAL_TABLE |       3\n"
                 "(6 rows)\n");
    check_format(cat, NULL, "SHOW power.TABLES LIKE '%2'",
                 " table_name | stable_name |    type     | columns\n"
                 "------------+-------------+-------------+---------\n"
                 " d1002      | meters      | CHILD_TABLE |       4\n"
                 " d2002      | meters      | CHILD_TABLE |       4\n"
                 "(2 rows)\n");
    check_format(cat, "power", "SHOW CREATE TABLE d2001",
                 " Table |                                Create Table\n"
                 "-------+-------------------------------------------------------------------"
                 "---------\n"
                 " d2001 | CREATE TABLE `d2001` USING `meters` (`location`, `groupId`) TAGS "
                 "(NULL, 7)\n"
                 "(1 row)\n");
    check_format(cat, "power", "SHOW STABLES",
                 " stable_name | columns | tags | tables\n"
                 "-------------+---------+------+--------\n"
                 " meters      |       4 |    2 |      5\n"
                 "(1 row)\n");

    const char *sql = "CREATE TABLE plain (ts TIMESTAMP, v INT)";
    refused(cat, "power", sql, SL_EEXIST, at(sql, "plain", "table 'plain' already exists"));
    sql = "CREATE TABLE d1001 USING meters TAGS ('SF', 1)";
    refused(cat, "power", sql, SL_EEXIST, at(sql, "d1001", "child table 'd1001' already exists"));
    sql = "CREATE TABLE d9 USING meters TAGS ('SF', 'abc')";
    refused(cat, "power", sql, SL_ETYPE, at(sql, "'abc'", "tag 'groupId' expects INT, got 'abc'"));
    sql = "CREATE TABLE d9 USING meters TAGS ('SF', 3000000000)";
    refused(cat, "power", sql, SL_ERANGE,
            at(sql, "3000000000", "value 3000000000 is out of range for tag 'groupId' INT"));
    sql = "CREATE TABLE d9 USING meters TAGS ('SF')";
    refused(cat, "power", sql, SL_EINVAL,
            at(sql, "'SF'", "super table 'meters' has 2 tags, 1 tag value given"));
    sql = "CREATE TABLE d9 USING meters (groupId, city) TAGS (1, 'x')";
    refused(cat, "power", sql, SL_ENOTFOUND,
            at(sql, "city", "super table 'meters' has no tag 'city'"));
    sql = "CREATE TABLE d9 USING meters (groupId, groupid) TAGS (1, 2)";
    refused(cat, "power", sql, SL_EINVAL, at(sql, "groupid)", "tag 'groupid' is given twice"));
    sql = "CREATE TABLE d9 USING nothing TAGS (1)";
    refused(cat, "power", sql, SL_ENOTFOUND,
            at(sql, "nothing", "super table 'nothing' does not exist"));
    sql = "CREATE TABLE d9 USING plain TAGS (1)";
    refused(cat, "power", sql, SL_EINVAL,
            at(sql, "plain", "'plain' is a table, not a super table"));
    sql = "CREATE TABLE d9 USING meters TAGS ('a-much-too-long-location-name-that-goes-on-and-on-"
          "and-on-past-sixty-four-bytes', 1)";
    refused(cat, "power", sql, SL_ERANGE,
            at(sql, "'a-much",
               "value 'a-much-too-long-location-name-that-goes-...' is too long for tag 'location' "
               "VARCHAR(64)"));
    /* One bad clause refuses the whole statement: d8 is not created either. */
    sql = "CREATE TABLE d8 USING meters TAGS ('LA', 1) d9 USING meters TAGS (1, 'x')";
    refused(cat, "power", sql, SL_ETYPE, at(sql, "'x'", "tag 'groupId' expects INT, got 'x'"));
    sql = "CREATE TABLE d8 USING meters TAGS ('LA', 1) d8 USING meters TAGS ('LA', 2)";
    refused(cat, "power", sql, SL_EEXIST,
            at(sql, "d8 USING meters TAGS ('LA', 2)", "child table 'd8' already exists"));
    sql = "CREATE TABLE t2 (ts TIMESTAMP, s VARCHAR)";
    refused(cat, "power", sql, SL_EINVAL,
            at(sql, "s VARCHAR", "VARCHAR needs a length, e.g. VARCHAR(64)"));
    sql = "CREATE TABLE t2 (v INT)";
    refused(cat, "power", sql, SL_ETYPE,
            at(sql, "v INT", "the first column must be a TIMESTAMP, 'v' is INT"));
    ok(cat, NULL, "CREATE DATABASE other");
    sql = "CREATE TABLE other.c USING power.meters TAGS ('x', 1)";
    refused(cat, "power", sql, SL_EINVAL,
            at(sql, "power.meters",
               "super table 'meters' is in database 'power': a child table must be in the "
               "same database"));
    sql = "CREATE TABLE information_schema.t (ts TIMESTAMP, v INT)";
    refused(cat, "power", sql, SL_EINVAL,
            at(sql, "information_schema",
               "database 'information_schema' is read-only: it holds the system tables"));
}

static void test_drop_tables(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    power(cat);
    ok(cat, "power", "CREATE TABLE plain (ts TIMESTAMP, v INT)");
    const char *sql = "DROP TABLE meters";
    refused(cat, "power", sql, SL_EINVAL,
            at(sql, "meters", "'meters' is a super table: use DROP STABLE"));
    sql = "DROP STABLE d1001";
    refused(cat, "power", sql, SL_EINVAL,
            at(sql, "d1001", "'d1001' is a child table, not a super table: use DROP TABLE"));
    sql = "DROP TABLE d1001, nothing";
    refused(cat, "power", sql, SL_ENOTFOUND, at(sql, "nothing", "table 'nothing' does not exist"));
    sql = "DROP TABLE information_schema.ins_tables";
    refused(cat, "power", sql, SL_EINVAL,
            at(sql, "information_schema",
               "database 'information_schema' is read-only: it holds the system tables"));

    sl_error err;
    sl_ddl_result c;
    assert_int_equal(
        cat_run(cat, "power", "DROP TABLE IF EXISTS d1001, nothing, D1001", &c, NULL, &err), 0);
    assert_int_equal(c.nchanges, 1);
    assert_int_equal(c.changes[0].kind, SL_DDL_TABLE_DROPPED);
    assert_string_equal(c.changes[0].table, "d1001");
    assert_int_equal(c.changes[0].uid, 2);
    assert_int_equal(c.changes[0].vgroup_id, 1 + expected_index("power", "d1001", 4));
    sl_ddl_result_fini(&c);
    check_format(cat, "power", "SHOW STABLES",
                 " stable_name | columns | tags | tables\n"
                 "-------------+---------+------+--------\n"
                 " meters      |       4 |    2 |      2\n"
                 "(1 row)\n");
    /* A dropped name can be used again, with a new uid. */
    ok(cat, "power", "CREATE TABLE d1001 USING meters TAGS ('NY', 5)");
    assert_int_equal(table(cat, "power", "d1001").uid, 6);

    /* DROP STABLE takes its children along and lists them. */
    assert_int_equal(cat_run(cat, "power", "DROP STABLE meters", &c, NULL, &err), 0);
    assert_int_equal(c.nchanges, 4);
    uint64_t uids = 0;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(c.changes[i].kind, SL_DDL_TABLE_DROPPED);
        assert_int_equal(c.changes[i].table_kind, SL_TABLE_CHILD);
        assert_int_equal(c.changes[i].stable_uid, 1);
        uids += c.changes[i].uid;
    }
    assert_int_equal(uids, 3 + 4 + 6);
    assert_string_equal(c.changes[3].table, "meters");
    assert_int_equal(c.changes[3].table_kind, SL_TABLE_SUPER);
    sl_ddl_result_fini(&c);
    check_format(cat, "power", "SHOW TABLES",
                 " table_name | stable_name |     type     | columns\n"
                 "------------+-------------+--------------+---------\n"
                 " plain      | NULL        | NORMAL_TABLE |       2\n"
                 "(1 row)\n");
    sql = "DROP STABLE meters";
    refused(cat, "power", sql, SL_ENOTFOUND,
            at(sql, "meters", "super table 'meters' does not exist"));
    assert_int_equal(ok_changes(cat, "power", "DROP STABLE IF EXISTS meters"), 0);
    /* Gone from disk too; the vgroups count no tables but plain. */
    mcf_reopen(&f->head);
    cat = f->cat;
    check_format(cat, "power", "SHOW TABLES",
                 " table_name | stable_name |     type     | columns\n"
                 "------------+-------------+--------------+---------\n"
                 " plain      | NULL        | NORMAL_TABLE |       2\n"
                 "(1 row)\n");
    int64_t total = 0;
    for (uint32_t i = 1; i <= 4; i++) {
        sl_mcatalog_vgroup vg;
        assert_int_equal(sl_mcatalog_vgroup_get(cat, i, &vg, &err), 0);
        total += vg.ntables;
    }
    assert_int_equal(total, 1);
    ok(cat, "power", "DROP TABLE plain");
    check_format(cat, "power", "SHOW TABLES",
                 " table_name | stable_name | type | columns\n"
                 "------------+-------------+------+---------\n"
                 "(0 rows)\n");
    /* uids are never reused. */
    ok(cat, "power", "CREATE TABLE plain (ts TIMESTAMP, v INT)");
    assert_int_equal(table(cat, "power", "plain").uid, 7);
}

/* ------------------------------------------------------------ auto-create on INSERT */

/* Runs sl_mcatalog_auto_create on the first item of an INSERT. */
static int auto_create(sl_mcatalog *cat, const char *db, const char *sql, sl_mcatalog_table *t,
                       bool *created, sl_error *err)
{
    sl_parse_result *pr = NULL;
    const sl_stmt *st = parse1(sql, &pr);
    assert_int_equal(st->kind, SL_STMT_INSERT);
    int rc = sl_mcatalog_auto_create(cat, &st->u.insert.items[0], db, t, created, err);
    sl_parse_result_free(pr);
    return rc;
}

static void auto_refused(sl_mcatalog *cat, const char *db, const char *sql, int code,
                         const char *msg)
{
    char *before = snapshot(cat);
    sl_mcatalog_table t;
    bool created = true;
    sl_error err;
    int rc = auto_create(cat, db, sql, &t, &created, &err);
    if (rc != code || strcmp(err.msg, msg) != 0)
        fail_msg("sql: %s\n  got  %d '%s'\n  want %d '%s'", sql, rc, err.msg, code, msg);
    assert_false(created);
    expect_snapshot(before, cat);
}

static void test_auto_create(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    power(cat);
    ok(cat, "power", "CREATE TABLE plain (ts TIMESTAMP, v INT)");
    sl_mcatalog_table t;
    bool created = false;
    sl_error err;
    /* NOW in a tag value is the catalog's clock, in the database precision. */
    ok(cat, "power", "CREATE STABLE ev (ts TIMESTAMP, v INT) TAGS (since TIMESTAMP)");
    assert_int_equal(auto_create(cat, "power",
                                 "INSERT INTO e1 USING ev TAGS (NOW - 1s) VALUES (NOW, 1)", &t,
                                 &created, &err),
                     0);
    assert_true(created);
    assert_int_equal(sl_column_get_i64(&t.tagvals->cols[0], 0), NOW_MS - 1000);

    const char *sql = "INSERT INTO d9 USING meters (groupId, location) TAGS (9, 'Rome') "
                      "VALUES (NOW, 1, 2, 3)";
    assert_int_equal(auto_create(cat, "power", sql, &t, &created, &err), 0);
    assert_true(created);
    assert_string_equal(t.meta.name, "d9");
    assert_int_equal(t.meta.kind, SL_TABLE_CHILD);
    assert_int_equal(t.uid, 8); /* meters 1, d100x 2-4, plain 5, ev 6, e1 7 */
    assert_int_equal(t.vgroup_id, 1 + expected_index("power", "d9", 4));
    assert_string_equal(t.vnode_addr, "127.0.0.1:6100");
    uint32_t len;
    const char *s = sl_column_get_str(&t.tagvals->cols[0], 0, &len);
    assert_int_equal(len, 4);
    assert_memory_equal(s, "Rome", 4);
    assert_int_equal(sl_column_get_i64(&t.tagvals->cols[1], 0), 9);
    /* Again: the table exists now, nothing is created, same table. */
    char *before = snapshot(cat);
    assert_int_equal(auto_create(cat, "power", sql, &t, &created, &err), 0);
    assert_false(created);
    assert_int_equal(t.uid, 8);
    /* Without USING, an existing table is simply resolved. */
    assert_int_equal(
        auto_create(cat, NULL, "INSERT INTO power.d1002 VALUES (NOW, 1, 2, 3)", &t, &created, &err),
        0);
    assert_false(created);
    assert_int_equal(t.uid, 3);
    expect_snapshot(before, cat);
    mcf_reopen(&f->head);
    cat = f->cat;
    assert_int_equal(table(cat, "power", "d9").uid, 8);

    sql = "INSERT INTO plain USING meters TAGS ('x', 1) VALUES (NOW, 1, 2, 3)";
    auto_refused(
        cat, "power", sql, SL_EEXIST,
        at(sql, "plain", "table 'plain' already exists and is not a child table of 'meters'"));
    sql = "INSERT INTO d1001 USING ev TAGS (0) VALUES (NOW, 1)";
    auto_refused(cat, "power", sql, SL_EEXIST,
                 at(sql, "d1001", "table 'd1001' already exists and is not a child table of 'ev'"));
    sql = "INSERT INTO d10 USING meters TAGS ('x', 'y') VALUES (NOW, 1, 2, 3)";
    auto_refused(cat, "power", sql, SL_ETYPE, at(sql, "'y'", "tag 'groupId' expects INT, got 'y'"));
    sql = "INSERT INTO d10 USING meters (city) TAGS ('x') VALUES (NOW, 1, 2, 3)";
    auto_refused(cat, "power", sql, SL_ENOTFOUND,
                 at(sql, "meters", "super table 'meters' has no tag 'city'"));
    sql = "INSERT INTO d10 USING nope TAGS ('x', 1) VALUES (NOW, 1, 2, 3)";
    auto_refused(cat, "power", sql, SL_ENOTFOUND,
                 at(sql, "nope", "super table 'nope' does not exist"));
    sql = "INSERT INTO d10 VALUES (NOW, 1, 2, 3)";
    auto_refused(cat, "power", sql, SL_ENOTFOUND,
                 at(sql, "d10", "table 'd10' does not exist in database 'power'"));
    sql = "INSERT INTO meters VALUES (NOW, 1, 2, 3)";
    auto_refused(cat, "power", sql, SL_EINVAL,
                 at(sql, "meters",
                    "cannot insert into super table 'meters': insert into a child "
                    "table (INSERT INTO d USING meters TAGS (...) creates one)"));
    sql = "INSERT INTO d10 VALUES (NOW, 1, 2, 3)";
    auto_refused(cat, NULL, sql, SL_ENOTFOUND,
                 at(sql, "d10", "no database selected for 'd10': USE a database or write db.d10"));
    sql = "INSERT INTO information_schema.ins_tables VALUES ('x')";
    auto_refused(cat, NULL, sql, SL_EINVAL,
                 at(sql, "information_schema",
                    "database 'information_schema' is read-only: it holds the system tables"));
}

/* ------------------------------------------------------------ nodes */

static void test_nodes(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    sl_error err;
    uint32_t v1 = reg(cat, SL_MC_VNODE, "10.0.0.1:6100", NOW_MS);
    uint32_t v2 = reg(cat, SL_MC_VNODE, "10.0.0.2:6100", NOW_MS + 1);
    uint32_t s1 = reg(cat, SL_MC_SNODE, "10.0.0.1:6200", NOW_MS + 2);
    uint32_t m1 = reg(cat, SL_MC_MNODE, "10.0.0.1:6030", NOW_MS + 3);
    assert_int_equal(v1, 1);
    assert_int_equal(v2, 2);
    assert_int_equal(s1, 3);
    assert_int_equal(m1, 4);
    /* Registering again (a restart) keeps the id and refreshes last_seen. */
    assert_int_equal(reg(cat, SL_MC_VNODE, "10.0.0.2:6100", NOW_MS + 500), v2);
    sl_mcatalog_node n;
    assert_int_equal(sl_mcatalog_node_get(cat, v2, &n, &err), 0);
    assert_int_equal(n.kind, SL_MC_VNODE);
    assert_string_equal(n.addr, "10.0.0.2:6100");
    assert_true(n.alive);
    assert_int_equal(n.last_seen, NOW_MS + 500);
    assert_int_equal(n.create_time, NOW_MS + 1);

    char *before = snapshot(cat);
    uint32_t id = 99;
    sl_error_clear(&err);
    assert_int_equal(
        sl_mcatalog_node_register(cat, SL_MC_SNODE, "10.0.0.2:6100", NOW_MS, &id, &err), SL_EEXIST);
    assert_string_equal(err.msg, "address '10.0.0.2:6100' is already registered as vnode 2");
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_register(cat, SL_MC_VNODE, "", NOW_MS, &id, &err), SL_EINVAL);
    assert_string_equal(err.msg, "a node address must have 1 to 255 bytes");
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_register(cat, (sl_mc_node_kind)7, "x", NOW_MS, &id, &err),
                     SL_EINVAL);
    assert_string_equal(err.msg, "unknown node kind 7");
    assert_int_equal(id, 99);
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_heartbeat(cat, 42, NOW_MS, &err), SL_ENOTFOUND);
    assert_string_equal(err.msg, "node 42 is not registered");
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_sweep(cat, NOW_MS, -1, NULL, 0, NULL, &err), SL_EINVAL);
    expect_snapshot(before, cat);

    /* Heartbeats at +4000 (v1, s1); at +10000 with a 5000 timeout: v1 and s1 were seen 6000
     * ago (dead), v2 9500 ago (dead), m1 beat at +5000 (exactly 5000 ago: alive). */
    assert_int_equal(sl_mcatalog_node_heartbeat(cat, v1, NOW_MS + 4000, &err), 0);
    assert_int_equal(sl_mcatalog_node_heartbeat(cat, s1, NOW_MS + 4000, &err), 0);
    assert_int_equal(sl_mcatalog_node_heartbeat(cat, m1, NOW_MS + 5000, &err), 0);
    assert_int_equal(sl_mcatalog_node_get(cat, v1, &n, &err), 0);
    assert_int_equal(n.last_seen, NOW_MS + 4000);
    uint32_t dead[2] = {0, 0};
    size_t ndead = 0;
    assert_int_equal(sl_mcatalog_node_sweep(cat, NOW_MS + 9000, 5000, dead, 2, &ndead, &err), 0);
    assert_int_equal(ndead, 1); /* v2 only: 8500 > 5000; v1, s1 5000 (not more); m1 4000 */
    assert_int_equal(dead[0], v2);
    assert_int_equal(sl_mcatalog_node_sweep(cat, NOW_MS + 10000, 5000, dead, 1, &ndead, &err), 0);
    assert_int_equal(ndead, 2); /* v1 and s1 (6000); only the first id fits */
    assert_int_equal(dead[0], v1);
    assert_int_equal(sl_mcatalog_node_sweep(cat, NOW_MS + 10000, 5000, dead, 2, &ndead, &err), 0);
    assert_int_equal(ndead, 0); /* already dead */
    check_format(cat, NULL, "SHOW DNODES",
                 " id |   endpoint    | kind  | status | vgroups |       create_time       |"
                 "     last_heartbeat      | rows | disk_bytes | write_requests | rows_written |"
                 " fenced | reads_held | reads_held_ms\n"
                 "----+---------------+-------+--------+---------+-------------------------+------"
                 "-------------------+------+------------+----------------+--------------+--------"
                 "+------------+---------------\n"
                 "  1 | 10.0.0.1:6100 | vnode | dead   |       0 | 2023-11-14 22:13:20.000 |"
                 " 2023-11-14 22:13:24.000 | NULL | NULL       | NULL           | NULL         |"
                 " NULL   | NULL       | NULL\n"
                 "  2 | 10.0.0.2:6100 | vnode | dead   |       0 | 2023-11-14 22:13:20.001 |"
                 " 2023-11-14 22:13:20.500 | NULL | NULL       | NULL           | NULL         |"
                 " NULL   | NULL       | NULL\n"
                 "  3 | 10.0.0.1:6200 | snode | dead   |       0 | 2023-11-14 22:13:20.002 |"
                 " 2023-11-14 22:13:24.000 | NULL | NULL       | NULL           | NULL         |"
                 " NULL   | NULL       | NULL\n"
                 "  4 | 10.0.0.1:6030 | mnode | alive  |       0 | 2023-11-14 22:13:20.003 |"
                 " 2023-11-14 22:13:25.000 | NULL | NULL       | NULL           | NULL         |"
                 " NULL   | NULL       | NULL\n"
                 "(4 rows)\n");
    /* SHOW SNODES lists the rows of ins_snodes (an snode that never reported: epoch 0). */
    check_format(cat, NULL, "SHOW SNODES",
                 " id |   endpoint    | status | epoch | streams | slots | groups | memory_bytes |"
                 "       create_time       |     last_heartbeat\n"
                 "----+---------------+--------+-------+---------+-------+--------+--------------+"
                 "-------------------------+-------------------------\n"
                 "  3 | 10.0.0.1:6200 | dead   |     0 |       0 |     0 |      0 |            0 |"
                 " 2023-11-14 22:13:20.002 | 2023-11-14 22:13:24.000\n"
                 "(1 row)\n");
    check_format(cat, NULL, "SHOW DNODES LIKE '%:6100'",
                 " id |   endpoint    | kind  | status | vgroups |       create_time       |"
                 "     last_heartbeat      | rows | disk_bytes | write_requests | rows_written |"
                 " fenced | reads_held | reads_held_ms\n"
                 "----+---------------+-------+--------+---------+-------------------------+------"
                 "-------------------+------+------------+----------------+--------------+--------"
                 "+------------+---------------\n"
                 "  1 | 10.0.0.1:6100 | vnode | dead   |       0 | 2023-11-14 22:13:20.000 |"
                 " 2023-11-14 22:13:24.000 | NULL | NULL       | NULL           | NULL         |"
                 " NULL   | NULL       | NULL\n"
                 "  2 | 10.0.0.2:6100 | vnode | dead   |       0 | 2023-11-14 22:13:20.001 |"
                 " 2023-11-14 22:13:20.500 | NULL | NULL       | NULL           | NULL         |"
                 " NULL   | NULL       | NULL\n"
                 "(2 rows)\n");
    /* Status survives a reopen; a heartbeat brings a dead node back. */
    mcf_reopen(&f->head);
    cat = f->cat;
    assert_int_equal(sl_mcatalog_node_get(cat, v1, &n, &err), 0);
    assert_false(n.alive);
    assert_int_equal(n.last_seen, NOW_MS + 4000);
    assert_int_equal(sl_mcatalog_node_heartbeat(cat, v1, NOW_MS + 20000, &err), 0);
    mcf_reopen(&f->head);
    cat = f->cat;
    assert_int_equal(sl_mcatalog_node_get(cat, v1, &n, &err), 0);
    assert_true(n.alive);
    assert_int_equal(n.last_seen, NOW_MS + 20000);
    /* Ids continue after a reopen. */
    assert_int_equal(reg(cat, SL_MC_SNODE, "10.0.0.3:6200", NOW_MS), 5);
    assert_int_equal(sl_mcatalog_node_get(cat, 5, &n, &err), 0);
    assert_int_equal(n.kind, SL_MC_SNODE);
}

/* ------------------------------------------------------------ persistence */

static void test_reopen(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    power(cat);
    reg(cat, SL_MC_VNODE, "127.0.0.1:6101", NOW_MS);
    reg(cat, SL_MC_SNODE, "127.0.0.1:6200", NOW_MS);
    ok(cat, NULL, "CREATE DATABASE other PRECISION 'ns' VGROUPS 3");
    ok(cat, "other",
       "CREATE STABLE st (ts TIMESTAMP, s NCHAR(10), b BOOL) TAGS (n NCHAR(4), t TIMESTAMP, "
       "u BIGINT UNSIGNED, d DOUBLE, f FLOAT, y TINYINT, ok BOOL)");
    ok(cat, "other",
       "CREATE TABLE c1 USING st TAGS ('héé', '2024-01-01 00:00:00.000000001', "
       "18446744073709551615, 1.5, -2.25, -7, true) c2 USING st (y) TAGS (3)");
    ok(cat, "other", "CREATE TABLE n1 (ts TIMESTAMP, v VARCHAR(100))");
    ok(cat, "power", "DROP TABLE d1002");
    sl_error err;
    assert_int_equal(sl_mcatalog_node_sweep(cat, NOW_MS + 100000, 1000, NULL, 0, NULL, &err), 0);
    char *before = snapshot(cat);
    mcf_reopen(&f->head);
    cat = f->cat;
    expect_snapshot(before, cat);
    /* Spot checks of what the snapshot holds. */
    sl_mcatalog_table t = table(cat, "other", "c1");
    assert_int_equal(t.meta.precision, SL_PREC_NS);
    assert_int_equal(t.tagvals->ncols, 7);
    uint32_t len;
    const char *s = sl_column_get_str(&t.tagvals->cols[0], 0, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(s, "h\xc3\xa9\xc3\xa9", 5);
    assert_int_equal(sl_column_get_i64(&t.tagvals->cols[1], 0), INT64_C(1704067200000000001));
    assert_true(sl_column_get_u64(&t.tagvals->cols[2], 0) == UINT64_MAX);
    assert_true(sl_column_get_f64(&t.tagvals->cols[3], 0) == 1.5);
    assert_true(sl_column_get_f64(&t.tagvals->cols[4], 0) == -2.25);
    assert_int_equal(sl_column_get_i64(&t.tagvals->cols[5], 0), -7);
    assert_int_equal(sl_column_get_i64(&t.tagvals->cols[6], 0), 1);
    t = table(cat, "other", "c2");
    assert_true(sl_column_is_null(&t.tagvals->cols[0], 0));
    assert_int_equal(sl_column_get_i64(&t.tagvals->cols[5], 0), 3);
    check_format(
        cat, "other", "SHOW CREATE TABLE c1",
        " Table |                                                                  Create Table\n"
        "-------+---------------------------------------------------------------------"
        "----------------------------------------------------------------------------\n"
        " c1    | CREATE TABLE `c1` USING `st` (`n`, `t`, `u`, `d`, `f`, `y`, `ok`) TAGS "
        "('héé', 1704067200000000001, 18446744073709551615, 1.5, -2.25, -7, true)\n"
        "(1 row)\n");
    /* Counters continue where they were: meters 1, d100x 2-4, st 5, c1 6, c2 7, n1 8. */
    sl_ddl_result c;
    assert_int_equal(
        cat_run(cat, "power", "CREATE TABLE d1004 USING meters TAGS ('x', 1)", &c, NULL, &err), 0);
    assert_int_equal(c.changes[0].uid, 9);
    sl_ddl_result_fini(&c);
    assert_int_equal(reg(cat, SL_MC_VNODE, "127.0.0.1:6102", NOW_MS + 100000), 4);
    ok(cat, NULL, "CREATE DATABASE third VGROUPS 1");
    sl_mcatalog_db db;
    assert_int_equal(sl_mcatalog_db_get(cat, "third", &db, &err), 0);
    assert_int_equal(db.vgroup_ids[0], 8);
    sl_mcatalog_vgroup vg;
    assert_int_equal(sl_mcatalog_vgroup_get(cat, 8, &vg, &err), 0);
    assert_int_equal(vg.vnode_id, 4); /* the only alive vnode */
}

static void test_open_errors(void **state)
{
    fixture *f = *state;
    sl_mcatalog *other = NULL;
    sl_error err;
    sl_error_clear(&err);
    /* The directory is in use by the fixture's catalog. */
    assert_int_equal(sl_mcatalog_open(&other, f->dir, NULL, &err), SL_EIO);
    assert_null(other);
    assert_true(strlen(err.msg) > 0);
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_open(&other, "", NULL, &err), SL_EINVAL);
    sl_mcatalog_close(NULL);
}

/* ------------------------------------------------------------ information_schema */

static void info_fixture(sl_mcatalog *cat)
{
    reg(cat, SL_MC_VNODE, "127.0.0.1:6100", NOW_MS);
    reg(cat, SL_MC_VNODE, "127.0.0.1:6101", NOW_MS);
    reg(cat, SL_MC_SNODE, "127.0.0.1:6200", NOW_MS);
    ok(cat, NULL, "CREATE DATABASE power VGROUPS 4");
    ok(cat, "power", METERS);
    ok(cat, "power",
       "CREATE TABLE d1001 USING meters TAGS ('SF', 2) d1002 USING meters TAGS ('SF', 3) "
       "d1003 USING meters TAGS ('LA', 2)");
    ok(cat, "power", "CREATE TABLE plain (ts TIMESTAMP, v DOUBLE)");
    ok(cat, NULL, "CREATE DATABASE archive VGROUPS 2 PRECISION 'us'");
    ok(cat, "archive", "CREATE STABLE old (ts TIMESTAMP, v INT) TAGS (site NCHAR(8))");
    ok(cat, "archive", "CREATE TABLE o1 USING old TAGS ('north') o2 USING old TAGS (NULL)");
}

static void test_information_schema(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    info_fixture(cat);
    /* power: 3 children + 1 normal table; archive: 2 children. */
    check_format(cat, NULL,
                 "SELECT db_name, count(*) FROM information_schema.ins_tables GROUP BY db_name "
                 "ORDER BY db_name",
                 " db_name | count(*)\n"
                 "---------+----------\n"
                 " archive |        2\n"
                 " power   |        4\n"
                 "(2 rows)\n");
    check_format(cat, NULL,
                 "SELECT type, count(*) FROM information_schema.ins_tables GROUP BY type ORDER "
                 "BY type",
                 "     type     | count(*)\n"
                 "--------------+----------\n"
                 " CHILD_TABLE  |        5\n"
                 " NORMAL_TABLE |        1\n"
                 "(2 rows)\n");
    check_format(cat, NULL,
                 "SELECT table_name FROM information_schema.ins_tables WHERE stable_name IS NULL",
                 " table_name\n"
                 "------------\n"
                 " plain\n"
                 "(1 row)\n");
    /* 3 children x 2 tags + 2 children x 1 tag. */
    check_format(cat, NULL, "SELECT count(*) FROM information_schema.ins_tags",
                 " count(*)\n"
                 "----------\n"
                 "        8\n"
                 "(1 row)\n");
    check_format(cat, NULL,
                 "SELECT table_name, tag_type, tag_value FROM information_schema.ins_tags WHERE "
                 "db_name = 'power' AND tag_name = 'groupId' ORDER BY table_name",
                 " table_name | tag_type | tag_value\n"
                 "------------+----------+-----------\n"
                 " d1001      | INT      | 2\n"
                 " d1002      | INT      | 3\n"
                 " d1003      | INT      | 2\n"
                 "(3 rows)\n");
    check_format(cat, "information_schema",
                 "SELECT table_name, stable_name, tag_name, tag_type, tag_value FROM ins_tags "
                 "WHERE db_name = 'archive'",
                 " table_name | stable_name | tag_name | tag_type | tag_value\n"
                 "------------+-------------+----------+----------+-----------\n"
                 " o1         | old         | site     | NCHAR(8) | north\n"
                 " o2         | old         | site     | NCHAR(8) | NULL\n"
                 "(2 rows)\n");
    check_format(cat, NULL,
                 "SELECT stable_name, db_name, columns, tags, tables, uid FROM "
                 "information_schema.ins_stables ORDER BY stable_name",
                 " stable_name | db_name | columns | tags | tables | uid\n"
                 "-------------+---------+---------+------+--------+-----\n"
                 " meters      | power   |       4 |    2 |      3 |   1\n"
                 " old         | archive |       2 |    1 |      2 |   6\n"
                 "(2 rows)\n");
    check_format(cat, NULL,
                 "SELECT name, precision, vgroups, ntables, nstables, create_time FROM "
                 "information_schema.ins_databases ORDER BY name",
                 "  name   | precision | vgroups | ntables | nstables |       create_time\n"
                 "---------+-----------+---------+---------+----------+-------------------------\n"
                 " archive | us        |       2 |       2 |        1 | 2023-11-14 22:13:20.000\n"
                 " power   | ms        |       4 |       4 |        1 | 2023-11-14 22:13:20.000\n"
                 "(2 rows)\n");
    /* power's vgroups: v1 v2 v1 v2; archive's: v1 v2 (loads 2/2): 3 each. */
    check_format(cat, NULL,
                 "SELECT endpoint, kind, status, vgroups FROM information_schema.ins_dnodes "
                 "ORDER BY id",
                 "    endpoint    | kind  | status | vgroups\n"
                 "----------------+-------+--------+---------\n"
                 " 127.0.0.1:6100 | vnode | alive  |       3\n"
                 " 127.0.0.1:6101 | vnode | alive  |       3\n"
                 " 127.0.0.1:6200 | snode | alive  |       0\n"
                 "(3 rows)\n");
    check_format(cat, NULL,
                 "SELECT db_name, count(*), sum(tables) FROM information_schema.ins_vgroups "
                 "GROUP BY db_name ORDER BY db_name",
                 " db_name | count(*) | sum(tables)\n"
                 "---------+----------+-------------\n"
                 " archive |        2 |           2\n"
                 " power   |        4 |           4\n"
                 "(2 rows)\n");
    check_format(cat, "information_schema", "SELECT count(*) FROM ins_databases WHERE vgroups > 2",
                 " count(*)\n"
                 "----------\n"
                 "        1\n"
                 "(1 row)\n");
    /* Every table's vgroup_id is the one its hash picks. */
    sl_result r;
    sl_error err;
    assert_int_equal(cat_run(cat, NULL,
                             "SELECT table_name, vgroup_id, uid FROM "
                             "information_schema.ins_tables WHERE db_name = 'power'",
                             NULL, &r, &err),
                     0);
    assert_int_equal(r.rows.nrows, 4);
    for (uint32_t i = 0; i < r.rows.nrows; i++) {
        uint32_t len;
        const char *p = sl_column_get_str(&r.rows.cols[0], i, &len);
        char name[32];
        snprintf(name, sizeof(name), "%.*s", (int)len, p);
        assert_int_equal(sl_column_get_i64(&r.rows.cols[1], i),
                         1 + expected_index("power", name, 4));
        assert_int_equal(sl_column_get_i64(&r.rows.cols[2], i), table(cat, "power", name).uid);
    }
    sl_result_fini(&r);

    check_format(cat, NULL, "SHOW information_schema.TABLES LIKE 'ins_t%'",
                 " table_name | stable_name |     type     | columns\n"
                 "------------+-------------+--------------+---------\n"
                 " ins_tables | NULL        | NORMAL_TABLE |       8\n"
                 " ins_tags   | NULL        | NORMAL_TABLE |       6\n"
                 "(2 rows)\n");
    check_format(cat, NULL, "DESCRIBE information_schema.ins_tags",
                 "    field    |  type   | length | note\n"
                 "-------------+---------+--------+------\n"
                 " table_name  | VARCHAR |    192 | \n"
                 " db_name     | VARCHAR |     64 | \n"
                 " stable_name | VARCHAR |    192 | \n"
                 " tag_name    | VARCHAR |     64 | \n"
                 " tag_type    | VARCHAR |     32 | \n"
                 " tag_value   | VARCHAR |  65517 | \n"
                 "(6 rows)\n");
    /* The catalog serves no rows of user tables, and no INTERVAL over system tables. */
    const char *sql = "SELECT count(*) FROM power.d1001";
    refused(cat, NULL, sql, SL_EUNSUPPORTED,
            "the rows of 'power.d1001' are stored on the vnodes: the catalog serves only "
            "information_schema");
    sql = "SELECT count(*) FROM information_schema.ins_nothing";
    refused(cat, NULL, sql, SL_ENOTFOUND,
            at(sql, "information_schema",
               "table 'ins_nothing' does not exist in database 'information_schema'"));
    sql = "SELECT count(*) FROM information_schema.ins_tables INTERVAL(1s)";
    refused(cat, NULL, sql, SL_EINVAL,
            at(sql, "1s", "INTERVAL needs a source with a timestamp key"));
    sql = "SELECT nope FROM information_schema.ins_tables";
    refused(cat, NULL, sql, SL_ENOTFOUND,
            at(sql, "nope", "unknown column 'nope' in table 'ins_tables'"));
    /* SHOW STREAMS is answered (test_mcatalog_stream.c); a stream name is looked up. */
    refused(cat, NULL, "SHOW CREATE STREAM nope", SL_ENOTFOUND,
            "1:20: no database selected for 'nope': USE a database or write db.nope");
    refused(cat, NULL, "DELETE FROM power.d1001", SL_EUNSUPPORTED,
            "1:1: DELETE is not a DDL statement");
    sl_parse_result *pr = NULL;
    const sl_stmt *st = parse1("DELETE FROM power.d1001", &pr);
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_query(cat, st, NULL, &r, &err), SL_EUNSUPPORTED);
    assert_string_equal(err.msg, "1:1: DELETE is not answered by the catalog");
    assert_int_equal(r.ncols, 0);
    sl_parse_result_free(pr);
}

/* Many tables: system table scans cross block boundaries. */
static void test_information_schema_many(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    reg(cat, SL_MC_VNODE, "127.0.0.1:6100", NOW_MS);
    ok(cat, NULL, "CREATE DATABASE big VGROUPS 8");
    ok(cat, "big", "CREATE STABLE st (ts TIMESTAMP, v INT) TAGS (g INT, h VARCHAR(8))");
    sl_buf b;
    sl_buf_init(&b);
    for (int i = 0; i < 5000; i += 250) {
        sl_buf_reset(&b);
        sl_buf_printf(&b, "CREATE TABLE");
        for (int k = i; k < i + 250; k++)
            sl_buf_printf(&b, " t%d USING st TAGS (%d, 'h%d')", k, k % 7, k % 3);
        sl_buf_put_u8(&b, 0);
        ok(cat, "big", (const char *)b.data);
    }
    sl_buf_fini(&b);
    /* g = k % 7 over k in [0, 5000): 5000 = 7 * 714 + 2, so 715 for 0 and 1, 714 for 2..6. */
    check_format(cat, NULL,
                 "SELECT tag_value, count(*) FROM information_schema.ins_tags WHERE tag_name = 'g' "
                 "GROUP BY tag_value ORDER BY tag_value",
                 " tag_value | count(*)\n"
                 "-----------+----------\n"
                 " 0         |      715\n"
                 " 1         |      715\n"
                 " 2         |      714\n"
                 " 3         |      714\n"
                 " 4         |      714\n"
                 " 5         |      714\n"
                 " 6         |      714\n"
                 "(7 rows)\n");
    check_format(cat, NULL, "SELECT count(*), sum(tables) FROM information_schema.ins_vgroups",
                 " count(*) | sum(tables)\n"
                 "----------+-------------\n"
                 "        8 |        5000\n"
                 "(1 row)\n");
    check_format(cat, NULL, "SELECT count(*), max(uid) FROM information_schema.ins_tables",
                 " count(*) | max(uid)\n"
                 "----------+----------\n"
                 "     5000 |     5001\n"
                 "(1 row)\n");
}

/* ------------------------------------------------------------ the same rules as memstore */

/*
 * Runs each statement on the embedded store and on the catalog: both must succeed with
 * the same formatted result, or fail with the same code and message.
 */
static void test_same_as_memstore(void **state)
{
    fixture *f = *state;
    sl_mcatalog *cat = f->cat;
    reg(cat, SL_MC_VNODE, "127.0.0.1:6100", NOW_MS);
    sl_memstore *ms = NULL;
    assert_int_equal(sl_memstore_open(&ms, test_clock, NULL), 0);
    static const char *const script[] = {
        "CREATE DATABASE power PRECISION 'us' VGROUPS 3",
        "CREATE DATABASE power",
        "CREATE DATABASE IF NOT EXISTS power",
        "CREATE DATABASE q VGROUPS 2000",
        "CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT) "
        "TAGS (location VARCHAR(64), groupId INT, since TIMESTAMP, ok BOOL)",
        "CREATE STABLE meters (ts TIMESTAMP, v INT) TAGS (t INT)",
        "CREATE STABLE s2 (ts TIMESTAMP, v INT)",
        "CREATE STABLE s2 (ts TIMESTAMP, v INT) TAGS (t INT, T INT)",
        "CREATE STABLE s2 (ts TIMESTAMP, v NCHAR(0)) TAGS (t INT)",
        "CREATE TABLE d1 USING meters TAGS ('SF', 2, '2024-01-01 00:00:01', true) "
        "d2 USING meters (groupId, since) TAGS (3, NOW + 1h) "
        "d3 USING meters TAGS ('LA', CAST('7' AS INT), 0, false)",
        "CREATE TABLE d4 USING meters TAGS ('LA', 1, 'yesterday', false)",
        "CREATE TABLE d4 USING meters TAGS ('LA', 1.5e10, 0, false)",
        "CREATE TABLE d4 USING meters TAGS ('LA', 1, 0, 'maybe')",
        "CREATE TABLE d4 USING meters TAGS ('LA', 1, 0)",
        "CREATE TABLE d4 USING meters (location) TAGS (1, 2)",
        "CREATE TABLE d4 USING meters TAGS (x, 1, 0, true)",
        "CREATE TABLE d4 USING meters TAGS ('LA', 1 / 0, 0, true)",
        "CREATE TABLE d4 USING meters TAGS ('LA', 1, 5d, true)",
        "CREATE TABLE IF NOT EXISTS d1 USING meters TAGS ('SF', 9, 0, true) "
        "d4 USING meters TAGS ('NY', -1, NOW - 1n, NULL)",
        "CREATE TABLE plain (ts TIMESTAMP, v DOUBLE, s VARCHAR(10), n NCHAR(3))",
        "CREATE TABLE plain2 (ts TIMESTAMP, ts INT)",
        "CREATE TABLE meters (ts TIMESTAMP, v INT)",
        "CREATE TABLE d1 (ts TIMESTAMP, v INT)",
        "CREATE TABLE nope.t (ts TIMESTAMP)",
        "SHOW DATABASES",
        "SHOW STABLES",
        "SHOW TABLES",
        "SHOW TABLES LIKE 'D_'",
        "SHOW nope.TABLES",
        "DESCRIBE d2",
        "DESCRIBE meters",
        "DESCRIBE plain",
        "DESCRIBE nope",
        "SHOW CREATE STABLE meters",
        "SHOW CREATE TABLE d1",
        "SHOW CREATE TABLE d2",
        "SHOW CREATE TABLE d4",
        "SHOW CREATE TABLE plain",
        "SHOW CREATE STABLE d1",
        "SHOW CREATE DATABASE power",
        "DROP TABLE d1, meters",
        "DROP TABLE d9",
        "DROP STABLE plain",
        "DROP TABLE IF EXISTS d9, d1",
        "SHOW TABLES",
        "DROP STABLE meters",
        "SHOW STABLES",
        "SHOW TABLES",
        "DROP DATABASE nope",
        "DROP DATABASE power",
        "SHOW DATABASES",
        "SHOW TABLES",
    };
    for (size_t i = 0; i < sizeof(script) / sizeof(script[0]); i++) {
        const char *sql = script[i];
        /* memstore: current database via USE when power exists. */
        sl_result mr, cr;
        sl_error me, ce;
        sl_error_clear(&me);
        sl_result use;
        (void)sl_memstore_exec(ms, "USE power", &use, &me);
        bool have_power = me.code == 0;
        sl_result_fini(&use);
        sl_error_clear(&me);
        int mrc = sl_memstore_exec(ms, sql, &mr, &me);
        int crc = cat_run(cat, have_power ? "power" : NULL, sql, NULL, &cr, &ce);
        if (mrc != crc || strcmp(me.msg, ce.msg) != 0)
            fail_msg("sql: %s\n  memstore %d '%s'\n  catalog  %d '%s'", sql, mrc, me.msg, crc,
                     ce.msg);
        sl_buf a, b;
        sl_buf_init(&a);
        sl_buf_init(&b);
        if (mrc == 0 && mr.ncols > 0) {
            assert_int_equal(sl_result_format(&mr, &a), 0);
            assert_int_equal(sl_result_format(&cr, &b), 0);
            sl_buf_put_u8(&a, 0);
            sl_buf_put_u8(&b, 0);
            if (strcmp((char *)a.data, (char *)b.data) != 0)
                fail_msg("sql: %s\n--- memstore:\n%s--- catalog:\n%s", sql, (char *)a.data,
                         (char *)b.data);
        }
        sl_buf_fini(&a);
        sl_buf_fini(&b);
        sl_result_fini(&mr);
        sl_result_fini(&cr);
    }
    sl_memstore_close(ms);
}

/* ------------------------------------------------------------ kill -9 */

#define K9_STMTS 300

/*
 * Statement i (1-based) of the crash workload: two child tables at once, and every 7th
 * statement drops the pair made three statements earlier, so both creations and drops
 * are in flight when the process dies.
 */
static void k9_sql(int i, char *buf, size_t n)
{
    if (i % 7 == 0)
        snprintf(buf, n, "DROP TABLE IF EXISTS c%da, c%db", i - 3, i - 3);
    else
        snprintf(buf, n, "CREATE TABLE c%da USING st TAGS (%d) c%db USING st TAGS (%d)", i, i, i,
                 i);
}

/* The set of pairs present after statements 1..n: present[i] for pair i. */
static void k9_model(int n, bool *present)
{
    memset(present, 0, (K9_STMTS + 1) * sizeof(bool));
    for (int i = 1; i <= n; i++) {
        if (i % 7 == 0)
            present[i - 3] = false;
        else
            present[i] = true;
    }
}

/* The child: runs the workload and reports each acknowledged statement on fd. */
static void k9_child(const char *dir, int fd)
{
    sl_mcatalog *cat = open_at(dir);
    for (int i = 1; i <= K9_STMTS; i++) {
        char sql[160];
        k9_sql(i, sql, sizeof(sql));
        sl_error err;
        if (cat_run(cat, "db", sql, NULL, NULL, &err) != 0)
            _exit(3);
        int32_t ack = i;
        if (write(fd, &ack, sizeof(ack)) != (ssize_t)sizeof(ack))
            _exit(4);
    }
    _exit(0); /* killed before this, normally */
}

typedef struct k9_seen {
    bool present[K9_STMTS + 1][2];
    int bad;
    uint64_t max_uid;
} k9_seen;

static int k9_visit(void *arg, const sl_mcatalog_table *t)
{
    k9_seen *s = arg;
    int i;
    char ab;
    if (sscanf(t->meta.name, "c%d%c", &i, &ab) != 2 || i < 1 || i > K9_STMTS ||
        (ab != 'a' && ab != 'b') || sl_column_get_i64(&t->tagvals->cols[0], 0) != i) {
        s->bad++;
        return 0;
    }
    s->present[i][ab - 'a'] = true;
    if (t->uid > s->max_uid)
        s->max_uid = t->uid;
    return 0;
}

static void test_kill9(void **state)
{
    fixture *f = *state;
    reg(f->cat, SL_MC_VNODE, "127.0.0.1:6100", NOW_MS);
    ok(f->cat, NULL, "CREATE DATABASE db VGROUPS 3");
    ok(f->cat, "db", "CREATE STABLE st (ts TIMESTAMP, v INT) TAGS (i INT)");
    sl_mcatalog_close(f->cat);
    f->cat = NULL;
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    for (int round = 0; round < 4; round++) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            k9_child(f->dir, fds[1]);
        }
        close(fds[1]);
        /* Kill after a random number of acknowledgements plus a random delay, so the
         * signal lands anywhere: between statements, while building or writing a batch. */
        int target = 1 + (int)(rand_r(&seed) % 60);
        int acked = 0;
        int32_t ack;
        while (acked < target && read(fds[0], &ack, sizeof(ack)) == (ssize_t)sizeof(ack))
            acked = ack;
        usleep((useconds_t)(rand_r(&seed) % 5000));
        kill(pid, SIGKILL);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        /* Acks written before the kill are still in the pipe. */
        while (read(fds[0], &ack, sizeof(ack)) == (ssize_t)sizeof(ack))
            acked = ack;
        close(fds[0]);

        f->cat = open_at(f->dir);
        k9_seen seen;
        memset(&seen, 0, sizeof(seen));
        sl_error err;
        assert_int_equal(sl_mcatalog_each_table(f->cat, "db", "st", k9_visit, &seen, &err), 0);
        assert_int_equal(seen.bad, 0);
        /* Every acknowledged statement is there; the next one entirely or not at all. */
        bool want_a[K9_STMTS + 1], want_b[K9_STMTS + 1];
        k9_model(acked, want_a);
        k9_model(acked < K9_STMTS ? acked + 1 : acked, want_b);
        bool is_a = true, is_b = true;
        for (int i = 1; i <= K9_STMTS; i++) {
            assert_true(seen.present[i][0] == seen.present[i][1]); /* never half a statement */
            is_a = is_a && seen.present[i][0] == want_a[i];
            is_b = is_b && seen.present[i][0] == want_b[i];
        }
        if (!is_a && !is_b)
            fail_msg("round %d: after %d acknowledged statements the catalog matches neither "
                     "%d nor %d statements",
                     round, acked, acked, acked + 1);
        /* The uid counter survived: a new table gets a uid above every stored one. */
        sl_ddl_result c;
        char sql[96];
        snprintf(sql, sizeof(sql), "CREATE TABLE probe%d USING st TAGS (0)", round);
        assert_int_equal(cat_run(f->cat, "db", sql, &c, NULL, &err), 0);
        assert_true(c.changes[0].uid > seen.max_uid);
        sl_ddl_result_fini(&c);
        /* Start the next round from scratch: drop the workload's tables. */
        ok(f->cat, NULL, "DROP STABLE db.st");
        ok(f->cat, "db", "CREATE STABLE st (ts TIMESTAMP, v INT) TAGS (i INT)");
        sl_mcatalog_close(f->cat);
        f->cat = NULL;
    }
    f->cat = open_at(f->dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_database, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_drop_database, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_placement_balanced, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_placement_sequence, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_placement_refused, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_vgroup_hash, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_create_stable, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_create_tables, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_drop_tables, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_auto_create, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_nodes, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_reopen, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_open_errors, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_information_schema, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_information_schema_many, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_same_as_memstore, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_kill9, setup, mcf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
