/*
 * test_memstore.c - the embedded in-memory store: every statement kind, accepted and
 * refused, update and delete semantics, catalog scans, bulk appends, SELECT through the
 * planner, and the text table format.
 *
 * Every refusal checks the exact code and message and that a snapshot of the whole store
 * (SHOW output, DESCRIBE and every table's rows, rendered with sl_result_format) is the
 * same before and after. Expected values are computed by hand from the rows inserted
 * (epoch values with Python's datetime in UTC), never by running the store.
 */
#include "memstore_fixture.h"

/* 2024-01-01 00:00:00 UTC in milliseconds. */
#define T0 INT64_C(1704067200000)

/* ------------------------------------------------------------ helpers */

static void check_format(sl_memstore *ms, const char *sql, const char *want)
{
    char *got = formatted(ms, sql);
    if (strcmp(got, want) != 0)
        fail_msg("sql: %s\n--- got:\n%s--- want:\n%s", sql, got, want);
    free(got);
}

static const char *METERS =
    "CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT) "
    "TAGS (location VARCHAR(64), groupId INT)";

/* A store with database power (ms), the meters super table and three child tables. */
static sl_memstore *power_store(void)
{
    sl_memstore *ms = open_store();
    run(ms, "CREATE DATABASE power", 0);
    run(ms, "USE power", 0);
    run(ms, METERS, 0);
    run(ms,
        "CREATE TABLE d1001 USING meters TAGS ('SF', 2) d1002 USING meters TAGS ('SF', 3) "
        "d1003 USING meters TAGS ('LA', 2)",
        0);
    return ms;
}

/* power_store plus six rows (T0 = 2024-01-01 00:00:00). */
static sl_memstore *power_data(void)
{
    sl_memstore *ms = power_store();
    run(ms,
        "INSERT INTO d1001 VALUES ('2024-01-01 00:00:00', 10.0, 220, 0.5) "
        "('2024-01-01 00:01:00', 12.0, 230, 0.25) ('2024-01-01 00:02:00', 14.0, 210, 0.75) "
        "d1002 VALUES ('2024-01-01 00:00:00', 5.0, 200, 0.5) "
        "('2024-01-01 00:01:30', 7.0, 220, 0.5) "
        "d1003 VALUES ('2024-01-01 00:00:30', 20.0, 240, 1.0)",
        6);
    return ms;
}

/* ------------------------------------------------------------ databases */

static void test_create_database(void **state)
{
    (void)state;
    sl_memstore *ms = open_store();
    run(ms, "CREATE DATABASE power PRECISION 'us' VGROUPS 4", 0);
    run(ms, "CREATE DATABASE IF NOT EXISTS power PRECISION 'ns'", 0);
    run(ms, "CREATE DATABASE archive", 0);
    check_format(ms, "SHOW DATABASES",
                 "  name   | precision | vgroups | ntables\n"
                 "---------+-----------+---------+---------\n"
                 " archive | ms        |       2 |       0\n"
                 " power   | us        |       4 |       0\n"
                 "(2 rows)\n");

    expect_err(ms, "CREATE DATABASE power", SL_EEXIST, "1:1: database 'power' already exists");
    expect_err(ms, "CREATE DATABASE POWER", SL_EEXIST, "1:1: database 'POWER' already exists");
    /* The parser already refuses an unknown precision. */
    const char *sql = "CREATE DATABASE x PRECISION 'xs'";
    expect_err(ms, sql, SL_ESYNTAX,
               at(sql, "'xs'", "invalid precision 'xs': expected 'ms', 'us' or 'ns'"));
    sql = "CREATE DATABASE IF NOT EXISTS power PRECISION 's'";
    expect_err(ms, sql, SL_ESYNTAX,
               at(sql, "'s'", "invalid precision 's': expected 'ms', 'us' or 'ns'"));
    sql = "CREATE DATABASE y VGROUPS 0";
    expect_err(ms, sql, SL_ERANGE, at(sql, "VGROUPS", "VGROUPS must be between 1 and 1024, got 0"));
    sql = "CREATE DATABASE y VGROUPS 1025";
    expect_err(ms, sql, SL_ERANGE,
               at(sql, "VGROUPS", "VGROUPS must be between 1 and 1024, got 1025"));
    sl_memstore_close(ms);
}

static void test_drop_and_use_database(void **state)
{
    (void)state;
    sl_memstore *ms = power_data();
    run(ms, "CREATE DATABASE other", 0);
    expect_err(ms, "USE nowhere", SL_ENOTFOUND, "1:1: database 'nowhere' does not exist");
    const char *sql = "DROP DATABASE nowhere";
    expect_err(ms, sql, SL_ENOTFOUND, at(sql, "nowhere", "database 'nowhere' does not exist"));
    run(ms, "DROP DATABASE IF EXISTS nowhere", 0);
    check_format(ms, "SHOW DATABASES",
                 " name  | precision | vgroups | ntables\n"
                 "-------+-----------+---------+---------\n"
                 " other | ms        |       2 |       0\n"
                 " power | ms        |       2 |       3\n"
                 "(2 rows)\n");
    /* Dropping the current database leaves no database selected. */
    run(ms, "DROP DATABASE power", 0);
    expect_err(ms, "SHOW TABLES", SL_ENOTFOUND,
               "1:1: no database selected: USE a database or write SHOW db.TABLES");
    sql = "SELECT * FROM d1001";
    sl_result r;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_exec(ms, sql, &r, &err), SL_ENOTFOUND);
    assert_string_equal(err.msg, at(sql, "d1001",
                                    "no database selected for 'd1001': USE a database or "
                                    "write db.d1001"));
    run(ms, "USE other", 0);
    run(ms, "CREATE TABLE t (ts TIMESTAMP, v INT)", 0);
    check_format(ms, "SHOW DATABASES",
                 " name  | precision | vgroups | ntables\n"
                 "-------+-----------+---------+---------\n"
                 " other | ms        |       2 |       1\n"
                 "(1 row)\n");
    sl_memstore_close(ms);
}

/* ------------------------------------------------------------ super tables */

static void test_create_stable(void **state)
{
    (void)state;
    sl_memstore *ms = open_store();
    run(ms, "CREATE DATABASE power; USE power", 0);
    run(ms, METERS, 0);
    run(ms, "CREATE STABLE IF NOT EXISTS meters (ts TIMESTAMP, x INT) TAGS (t INT)", 0);
    check_format(ms, "DESCRIBE meters",
                 "  field   |   type    | length | note\n"
                 "----------+-----------+--------+------\n"
                 " ts       | TIMESTAMP |      8 | \n"
                 " current  | FLOAT     |      4 | \n"
                 " voltage  | INT       |      4 | \n"
                 " phase    | FLOAT     |      4 | \n"
                 " location | VARCHAR   |     64 | TAG\n"
                 " groupId  | INT       |      4 | TAG\n"
                 "(6 rows)\n");
    check_format(ms, "SHOW STABLES",
                 " stable_name | columns | tags | tables\n"
                 "-------------+---------+------+--------\n"
                 " meters      |       4 |    2 |      0\n"
                 "(1 row)\n");

    expect_err(ms, METERS, SL_EEXIST, at(METERS, "meters", "super table 'meters' already exists"));
    const char *sql = "CREATE STABLE s (v INT, ts TIMESTAMP) TAGS (t INT)";
    expect_err(ms, sql, SL_ETYPE,
               at(sql, "v INT", "the first column must be a TIMESTAMP, 'v' is INT"));
    sql = "CREATE STABLE s (ts TIMESTAMP, v INT, V DOUBLE) TAGS (t INT)";
    expect_err(ms, sql, SL_EEXIST, at(sql, "V DOUBLE", "duplicate column name 'V'"));
    sql = "CREATE STABLE s (ts TIMESTAMP, v INT) TAGS (t INT, t BIGINT)";
    expect_err(ms, sql, SL_EEXIST, at(sql, "t BIGINT", "duplicate tag name 't'"));
    sql = "CREATE STABLE s (ts TIMESTAMP, v INT) TAGS (t INT, v BIGINT)";
    expect_err(ms, sql, SL_EEXIST, at(sql, "v BIGINT", "tag 'v' has the same name as a column"));
    sql = "CREATE STABLE s (ts TIMESTAMP, name VARCHAR) TAGS (t INT)";
    expect_err(ms, sql, SL_EINVAL,
               at(sql, "name VARCHAR", "VARCHAR needs a length, e.g. VARCHAR(64)"));
    sql = "CREATE STABLE s (ts TIMESTAMP, v INT) TAGS (city NCHAR)";
    expect_err(ms, sql, SL_EINVAL, at(sql, "city", "NCHAR needs a length, e.g. NCHAR(64)"));
    sql = "CREATE STABLE s (ts TIMESTAMP, v BINARY(70000)) TAGS (t INT)";
    expect_err(ms, sql, SL_ERANGE,
               at(sql, "v BINARY", "VARCHAR length must be between 1 and 65517, got 70000"));
    sql = "CREATE STABLE s (ts TIMESTAMP, tbname INT) TAGS (t INT)";
    expect_err(ms, sql, SL_EINVAL,
               at(sql, "tbname", "'tbname' is reserved for the table name and cannot be a column"));
    sql = "CREATE STABLE nowhere.s (ts TIMESTAMP, v INT) TAGS (t INT)";
    expect_err(ms, sql, SL_ENOTFOUND, at(sql, "nowhere", "database 'nowhere' does not exist"));

    /* 4097 columns and 129 tags. */
    sl_buf b;
    sl_buf_init(&b);
    sl_buf_printf(&b, "CREATE STABLE wide (ts TIMESTAMP");
    for (int i = 1; i < 4097; i++)
        sl_buf_printf(&b, ", c%d INT", i);
    sl_buf_printf(&b, ") TAGS (t INT)");
    sl_buf_put_u8(&b, 0);
    sql = (const char *)b.data;
    expect_err(ms, sql, SL_ELIMIT, at(sql, "c4096 INT", "too many columns: 4097 (at most 4096)"));
    sl_buf_reset(&b);
    sl_buf_printf(&b, "CREATE STABLE wide (ts TIMESTAMP");
    for (int i = 1; i < 4096; i++)
        sl_buf_printf(&b, ", c%d INT", i);
    sl_buf_printf(&b, ") TAGS (t0 INT");
    for (int i = 1; i < 129; i++)
        sl_buf_printf(&b, ", t%d INT", i);
    sl_buf_printf(&b, ")");
    sl_buf_put_u8(&b, 0);
    sql = (const char *)b.data;
    expect_err(ms, sql, SL_ELIMIT, at(sql, "t128 INT", "too many tags: 129 (at most 128)"));
    /* Exactly at the limits is fine. */
    sl_buf_reset(&b);
    sl_buf_printf(&b, "CREATE STABLE wide (ts TIMESTAMP");
    for (int i = 1; i < 4096; i++)
        sl_buf_printf(&b, ", c%d INT", i);
    sl_buf_printf(&b, ") TAGS (t0 INT");
    for (int i = 1; i < 128; i++)
        sl_buf_printf(&b, ", t%d INT", i);
    sl_buf_printf(&b, ")");
    sl_buf_put_u8(&b, 0);
    run(ms, (const char *)b.data, 0);
    sl_buf_fini(&b);
    sl_memstore_close(ms);
}

/* ------------------------------------------------------------ tables */

static void test_create_tables(void **state)
{
    (void)state;
    sl_memstore *ms = power_store();
    run(ms, "CREATE TABLE plain (ts TIMESTAMP, v DOUBLE, note VARCHAR(8))", 0);
    run(ms, "CREATE TABLE d2001 USING meters (groupId) TAGS (7)", 0);
    run(ms, "CREATE TABLE IF NOT EXISTS d1001 USING meters TAGS ('XX', 9)", 0);
    check_format(ms, "SHOW TABLES",
                 " table_name | stable_name |     type     | columns\n"
                 "------------+-------------+--------------+---------\n"
                 " d1001      | meters      | CHILD_TABLE  |       4\n"
                 " d1002      | meters      | CHILD_TABLE  |       4\n"
                 " d1003      | meters      | CHILD_TABLE  |       4\n"
                 " d2001      | meters      | CHILD_TABLE  |       4\n"
                 " plain      | NULL        | NORMAL_TABLE |       3\n"
                 "(5 rows)\n");
    check_format(ms, "SHOW TABLES LIKE 'd1%'",
                 " table_name | stable_name |    type     | columns\n"
                 "------------+-------------+-------------+---------\n"
                 " d1001      | meters      | CHILD_TABLE |       4\n"
                 " d1002      | meters      | CHILD_TABLE |       4\n"
                 " d1003      | meters      | CHILD_TABLE |       4\n"
                 "(3 rows)\n");
    /* LIKE on names: case-insensitive, % and _ wildcards, \\_ a literal underscore. */
    static const struct {
        const char *pattern;
        uint32_t rows;
    } likes[] = {{"%1", 2},    {"D100_", 3}, {"plain", 1},   {"x%", 0},    {"%", 5},   {"%a%n", 1},
                 {"d_0_1", 2}, {"%_%", 5},   {"%\\\\_%", 0}, {"_____", 5}, {"____", 0}};
    for (size_t i = 0; i < sizeof(likes) / sizeof(likes[0]); i++) {
        char q[64];
        snprintf(q, sizeof(q), "SHOW TABLES LIKE '%s'", likes[i].pattern);
        sl_result r;
        exec_ok(ms, q, &r);
        if (r.rows.nrows != likes[i].rows)
            fail_msg("%s: %u rows, want %u", q, r.rows.nrows, likes[i].rows);
        sl_result_fini(&r);
    }
    check_format(ms, "SHOW CREATE TABLE d2001",
                 " Table |                                Create Table\n"
                 "-------+------------------------------------------------------------------"
                 "----------\n"
                 " d2001 | CREATE TABLE `d2001` USING `meters` (`location`, `groupId`) TAGS "
                 "(NULL, 7)\n"
                 "(1 row)\n");
    check_format(ms, "SHOW CREATE TABLE plain",
                 " Table |                             Create Table\n"
                 "-------+------------------------------------------------------------------"
                 "----\n"
                 " plain | CREATE TABLE `plain` (`ts` TIMESTAMP, `v` DOUBLE, `note` VARCHAR(8))\n"
                 "(1 row)\n");
    check_format(ms, "DESCRIBE plain",
                 " field |   type    | length | note\n"
                 "-------+-----------+--------+------\n"
                 " ts    | TIMESTAMP |      8 | \n"
                 " v     | DOUBLE    |      8 | \n"
                 " note  | VARCHAR   |      8 | \n"
                 "(3 rows)\n");
    /* The super table counts its children. */
    check_format(ms, "SHOW STABLES",
                 " stable_name | columns | tags | tables\n"
                 "-------------+---------+------+--------\n"
                 " meters      |       4 |    2 |      4\n"
                 "(1 row)\n");

    const char *sql = "CREATE TABLE plain (ts TIMESTAMP, v INT)";
    expect_err(ms, sql, SL_EEXIST, at(sql, "plain", "table 'plain' already exists"));
    sql = "CREATE TABLE d1001 USING meters TAGS ('SF', 1)";
    expect_err(ms, sql, SL_EEXIST, at(sql, "d1001", "child table 'd1001' already exists"));
    sql = "CREATE TABLE d9 USING meters TAGS ('SF', 'abc')";
    expect_err(ms, sql, SL_ETYPE, at(sql, "'abc'", "tag 'groupId' expects INT, got 'abc'"));
    sql = "CREATE TABLE d9 USING meters TAGS ('SF', 3000000000)";
    expect_err(ms, sql, SL_ERANGE,
               at(sql, "3000000000", "value 3000000000 is out of range for tag 'groupId' INT"));
    sql = "CREATE TABLE d9 USING meters TAGS ('SF')";
    expect_err(ms, sql, SL_EINVAL,
               at(sql, "'SF'", "super table 'meters' has 2 tags, 1 tag value given"));
    sql = "CREATE TABLE d9 USING meters (groupId, city) TAGS (1, 'x')";
    expect_err(ms, sql, SL_ENOTFOUND, at(sql, "city", "super table 'meters' has no tag 'city'"));
    sql = "CREATE TABLE d9 USING meters (groupId, groupid) TAGS (1, 2)";
    expect_err(ms, sql, SL_EINVAL, at(sql, "groupid)", "tag 'groupid' is given twice"));
    sql = "CREATE TABLE d9 USING nothing TAGS (1)";
    expect_err(ms, sql, SL_ENOTFOUND, at(sql, "nothing", "super table 'nothing' does not exist"));
    sql = "CREATE TABLE d9 USING plain TAGS (1)";
    expect_err(ms, sql, SL_EINVAL, at(sql, "plain", "'plain' is a table, not a super table"));
    /* One bad clause refuses the whole statement: d8 is not created either. */
    sql = "CREATE TABLE d8 USING meters TAGS ('LA', 1) d9 USING meters TAGS (1, 'x')";
    expect_err(ms, sql, SL_ETYPE, at(sql, "'x'", "tag 'groupId' expects INT, got 'x'"));
    sql = "CREATE TABLE d8 USING meters TAGS ('LA', 1) d8 USING meters TAGS ('LA', 2)";
    expect_err(ms, sql, SL_EEXIST,
               at(sql, "d8 USING meters TAGS ('LA', 2)", "child table 'd8' already exists"));
    sql = "CREATE TABLE t2 (ts TIMESTAMP, s VARCHAR)";
    expect_err(ms, sql, SL_EINVAL,
               at(sql, "s VARCHAR", "VARCHAR needs a length, e.g. VARCHAR(64)"));
    sql = "CREATE TABLE t2 (v INT)";
    expect_err(ms, sql, SL_ETYPE,
               at(sql, "v INT", "the first column must be a TIMESTAMP, 'v' is INT"));
    sl_memstore_close(ms);
}

static void test_drop_tables(void **state)
{
    (void)state;
    sl_memstore *ms = power_data();
    run(ms, "CREATE TABLE plain (ts TIMESTAMP, v INT)", 0);
    const char *sql = "DROP TABLE meters";
    expect_err(ms, sql, SL_EINVAL, at(sql, "meters", "'meters' is a super table: use DROP STABLE"));
    sql = "DROP STABLE d1001";
    expect_err(ms, sql, SL_EINVAL,
               at(sql, "d1001", "'d1001' is a child table, not a super table: use DROP TABLE"));
    sql = "DROP TABLE d1001, nothing";
    expect_err(ms, sql, SL_ENOTFOUND, at(sql, "nothing", "table 'nothing' does not exist"));
    run(ms, "DROP TABLE IF EXISTS d1001, nothing", 0);
    check_format(ms, "SHOW STABLES",
                 " stable_name | columns | tags | tables\n"
                 "-------------+---------+------+--------\n"
                 " meters      |       4 |    2 |      2\n"
                 "(1 row)\n");
    check_format(ms, "SELECT count(*) FROM meters",
                 " count(*)\n"
                 "----------\n"
                 "        3\n"
                 "(1 row)\n");
    /* A dropped name can be used again. */
    run(ms, "CREATE TABLE d1001 USING meters TAGS ('NY', 5)", 0);
    check_format(ms, "SELECT count(*) FROM d1001",
                 " count(*)\n"
                 "----------\n"
                 "        0\n"
                 "(1 row)\n");
    run(ms, "DROP STABLE meters", 0);
    check_format(ms, "SHOW TABLES",
                 " table_name | stable_name |     type     | columns\n"
                 "------------+-------------+--------------+---------\n"
                 " plain      | NULL        | NORMAL_TABLE |       2\n"
                 "(1 row)\n");
    sql = "DROP STABLE meters";
    expect_err(ms, sql, SL_ENOTFOUND, at(sql, "meters", "super table 'meters' does not exist"));
    run(ms, "DROP STABLE IF EXISTS meters", 0);
    run(ms, "DROP TABLE plain", 0);
    check_format(ms, "SHOW TABLES",
                 " table_name | stable_name | type | columns\n"
                 "------------+-------------+------+---------\n"
                 "(0 rows)\n");
    sl_memstore_close(ms);
}

/* ------------------------------------------------------------ INSERT */

static void test_insert_forms(void **state)
{
    (void)state;
    sl_memstore *ms = power_store();
    run(ms, "CREATE TABLE plain (ts TIMESTAMP, v BIGINT, s VARCHAR(5), b BOOL, d DOUBLE)", 0);
    /* Column lists with omitted columns, several tables, several rows. */
    run(ms,
        "INSERT INTO d1001 (ts, voltage) VALUES ('2024-01-01 00:00:00', 220) "
        "('2024-01-01 00:00:01', 221) "
        "plain (d, ts) VALUES (1.5, 1704067200000)",
        3);
    check_format(ms, "SELECT ts, current, voltage, phase FROM d1001",
                 "           ts            | current | voltage | phase\n"
                 "-------------------------+---------+---------+-------\n"
                 " 2024-01-01 00:00:00.000 | NULL    |     220 | NULL\n"
                 " 2024-01-01 00:00:01.000 | NULL    |     221 | NULL\n"
                 "(2 rows)\n");
    /* NOW, NOW() and arithmetic with durations, negative numbers, casts of strings. */
    run(ms,
        "INSERT INTO plain VALUES (NOW, -5, 'abc', true, -2.5) (NOW() + 1s, '42', 'x', 'false', "
        "'3.25') (NOW - 1h, 7 * 6, NULL, NULL, 1 / 4) (1704067200000 + 1m, 3 - 10, 'hé', 1, "
        "CAST('8' AS DOUBLE))",
        4);
    check_format(ms, "SELECT * FROM plain",
                 "           ts            |  v   |  s   |   b   |  d\n"
                 "-------------------------+------+------+-------+------\n"
                 " 2023-11-14 21:13:20.000 |   42 | NULL | NULL  | 0.25\n"
                 " 2023-11-14 22:13:20.000 |   -5 | abc  | true  | -2.5\n"
                 " 2023-11-14 22:13:21.000 |   42 | x    | false | 3.25\n"
                 " 2024-01-01 00:00:00.000 | NULL | NULL | NULL  |  1.5\n"
                 " 2024-01-01 00:01:00.000 |   -7 | hé   | true  |    8\n"
                 "(5 rows)\n");
    /* USING ... TAGS creates the child on first write; later writes just insert. */
    run(ms,
        "INSERT INTO d2001 USING meters TAGS ('Paris', 11) VALUES ('2024-01-01 00:00:00', 1.0, "
        "1, 0.5) d2001 USING meters TAGS ('ignored', 0) VALUES ('2024-01-01 00:00:01', 2.0, 2, "
        "0.5) d2002 USING meters (groupId) TAGS (12) VALUES ('2024-01-01', 3.0, 3, 0.5)",
        3);
    check_format(ms,
                 "SELECT tbname, location, groupId, voltage FROM meters WHERE groupId > 10 "
                 "ORDER BY voltage",
                 " tbname | location | groupId | voltage\n"
                 "--------+----------+---------+---------\n"
                 " d2001  | Paris    |      11 |       1\n"
                 " d2001  | Paris    |      11 |       2\n"
                 " d2002  | NULL     |      12 |       3\n"
                 "(3 rows)\n");
    run(ms, "INSERT INTO d2001 USING meters TAGS ('x', 1) VALUES ('2024-01-01 00:00:02', 1, 1, 1)",
        1);
    sl_memstore_close(ms);
}

static void test_insert_refusals(void **state)
{
    (void)state;
    sl_memstore *ms = power_data();
    run(ms, "CREATE TABLE plain (ts TIMESTAMP, v TINYINT, s VARCHAR(5))", 0);
    const char *sql = "INSERT INTO plain VALUES (NULL, 1, 'a')";
    expect_err(ms, sql, SL_EINVAL, at(sql, "NULL", "the timestamp column 'ts' cannot be NULL"));
    sql = "INSERT INTO plain VALUES (NOW, 1, 'abcdef')";
    expect_err(ms, sql, SL_ERANGE,
               at(sql, "'abcdef'", "value 'abcdef' is too long for column 's' VARCHAR(5)"));
    sql = "INSERT INTO plain VALUES (NOW, 300, 'a')";
    expect_err(ms, sql, SL_ERANGE,
               at(sql, "300", "value 300 is out of range for column 'v' TINYINT"));
    sql = "INSERT INTO plain VALUES (NOW, 'many', 'a')";
    expect_err(ms, sql, SL_ETYPE, at(sql, "'many'", "column 'v' expects TINYINT, got 'many'"));
    sql = "INSERT INTO plain VALUES ('yesterday', 1, 'a')";
    expect_err(ms, sql, SL_ETYPE,
               at(sql, "'yesterday'", "column 'ts' expects TIMESTAMP, got 'yesterday'"));
    sql = "INSERT INTO plain VALUES (NOW, 1)";
    expect_err(ms, sql, SL_EINVAL, at(sql, "NOW", "row 1 has 2 values, expected 3"));
    sql = "INSERT INTO plain (ts, nope) VALUES (NOW, 1)";
    expect_err(ms, sql, SL_ENOTFOUND, at(sql, "nope", "table 'plain' has no column 'nope'"));
    sql = "INSERT INTO plain (v, s) VALUES (1, 'a')";
    expect_err(ms, sql, SL_EINVAL,
               at(sql, "v, s", "the column list must include the timestamp column 'ts'"));
    sql = "INSERT INTO plain (ts, v, V) VALUES (NOW, 1, 2)";
    expect_err(ms, sql, SL_EINVAL, at(sql, "V)", "column 'V' is given twice"));
    sql = "INSERT INTO d1001 (ts, location) VALUES (NOW, 'x')";
    expect_err(ms, sql, SL_EINVAL,
               at(sql, "location", "'location' is a tag, not a column: set it with TAGS"));
    sql = "INSERT INTO plain VALUES (NOW, voltage, 'a')";
    expect_err(
        ms, sql, SL_EUNSUPPORTED,
        at(sql, "voltage", "column 'voltage' cannot be used here: values must be constants"));
    sql = "INSERT INTO plain VALUES (NOW + 1n, 1, 'a')";
    run(ms, sql, 1); /* calendar months are fine (2023-12-14 22:13:20) */
    sql = "INSERT INTO plain VALUES (10s, 1, 'a')";
    expect_err(ms, sql, SL_ETYPE,
               at(sql, "10s", "a duration (10s) must be added to a timestamp, e.g. NOW + 10s"));
    sql = "INSERT INTO nothing VALUES (NOW, 1)";
    expect_err(ms, sql, SL_ENOTFOUND,
               at(sql, "nothing", "table 'nothing' does not exist in database 'power'"));
    sql = "INSERT INTO meters VALUES (NOW, 1, 2, 3)";
    expect_err(ms, sql, SL_EINVAL,
               at(sql, "meters",
                  "cannot insert into super table 'meters': insert into a child table "
                  "(INSERT INTO d USING meters TAGS (...) creates one)"));
    sql = "INSERT INTO plain USING meters TAGS ('a', 1) VALUES (NOW, 1, 2, 3)";
    expect_err(
        ms, sql, SL_EEXIST,
        at(sql, "plain", "table 'plain' already exists and is not a child table of 'meters'"));
    sql = "INSERT INTO d7 USING meters TAGS ('a', 'b') VALUES (NOW, 1, 2, 3)";
    expect_err(ms, sql, SL_ETYPE, at(sql, "'b'", "tag 'groupId' expects INT, got 'b'"));
    /* Atomic: good rows of other tables and a new child are not written either. */
    sql = "INSERT INTO d1001 VALUES ('2024-02-01', 1, 1, 1) d7 USING meters TAGS ('a', 1) "
          "VALUES ('2024-02-01', 1, 1, 1) plain VALUES ('2024-02-01', 1, 'a') "
          "('2024-02-02', 1000, 'b')";
    expect_err(ms, sql, SL_ERANGE,
               at(sql, "1000", "value 1000 is out of range for column 'v' TINYINT"));
    sql = "INSERT INTO plain VALUES (NOW, 9223372036854775807 + 1, 'a')";
    expect_err(ms, sql, SL_EOVERFLOW,
               at(sql, "9223372036854775807 +", "integer overflow in 9223372036854775807 + 1"));
    sql = "INSERT INTO plain VALUES (NOW, 1 / 0, 'a')";
    expect_err(ms, sql, SL_EDIVZERO, at(sql, "1 / 0", "division by zero"));
    sl_memstore_close(ms);
}

static void test_precision_us(void **state)
{
    (void)state;
    sl_memstore *ms = open_store();
    run(ms, "CREATE DATABASE fine PRECISION 'us'; USE fine", 0);
    run(ms, "CREATE TABLE t (ts TIMESTAMP, v INT)", 0);
    run(ms,
        "INSERT INTO t VALUES ('2024-01-01 00:00:00.000001', 1) (NOW, 2) (NOW + 1u, 3) "
        "(1704067200000000 + 1a, 4)",
        4);
    check_format(ms, "SELECT * FROM t",
                 "             ts             | v\n"
                 "----------------------------+---\n"
                 " 2023-11-14 22:13:20.000000 | 2\n"
                 " 2023-11-14 22:13:20.000001 | 3\n"
                 " 2024-01-01 00:00:00.000001 | 1\n"
                 " 2024-01-01 00:00:00.001000 | 4\n"
                 "(4 rows)\n");
    run(ms, "CREATE DATABASE coarse; USE coarse; CREATE TABLE t (ts TIMESTAMP, v INT)", 0);
    const char *sql = "INSERT INTO t VALUES (NOW + 1u, 1)";
    expect_err(ms, sql, SL_ERANGE,
               at(sql, "1u", "duration 1u is finer than the database precision 'ms'"));
    sql = "INSERT INTO t VALUES ('2024-01-01 00:00:00.000001', 1)";
    expect_err(ms, sql, SL_ERANGE,
               at(sql, "'2024",
                  "value '2024-01-01 00:00:00.000001' is out of range for column 'ts' TIMESTAMP"));
    sl_memstore_close(ms);
}

static void test_time_arithmetic(void **state)
{
    (void)state;
    sl_memstore *ms = open_store();
    run(ms, "CREATE DATABASE db; USE db; CREATE TABLE t (ts TIMESTAMP, v INT)", 0);
    /* Calendar months clamp the day; TODAY() is midnight UTC of the injected clock. */
    run(ms,
        "INSERT INTO t VALUES ('2024-01-31' + 1n, 1) ('2024-01-31 12:00:00' + 1y, 2) "
        "(TODAY(), 3) (TODAY() - 1w, 4) ('2023-03-31' - 1n, 5)",
        5);
    check_format(ms, "SELECT * FROM t",
                 "           ts            | v\n"
                 "-------------------------+---\n"
                 " 2023-02-28 00:00:00.000 | 5\n"
                 " 2023-11-07 00:00:00.000 | 4\n"
                 " 2023-11-14 00:00:00.000 | 3\n"
                 " 2024-02-29 00:00:00.000 | 1\n"
                 " 2025-01-31 12:00:00.000 | 2\n"
                 "(5 rows)\n");
    const char *sql = "INSERT INTO t VALUES (1h + 1m, 1)";
    expect_err(ms, sql, SL_ETYPE,
               at(sql, "1h", "two durations cannot be combined: add a duration to a timestamp"));
    sql = "INSERT INTO t VALUES (1.5 + 1d, 1)";
    expect_err(ms, sql, SL_ETYPE,
               at(sql, "1.5", "a duration can only be added to a timestamp, got 1.5"));
    sql = "INSERT INTO t VALUES (9223372036854775807 + 1a, 1)";
    expect_err(ms, sql, SL_EOVERFLOW,
               at(sql, "9223372036854775807", "timestamp arithmetic out of range"));
    sl_memstore_close(ms);
}

/* ------------------------------------------------------------ updates */

static void test_update_semantics(void **state)
{
    (void)state;
    sl_memstore *ms = open_store();
    run(ms, "CREATE DATABASE db; USE db; CREATE TABLE t (ts TIMESTAMP, v INT, s VARCHAR(8))", 0);
    /* Out of order, and the same timestamp twice in one statement: the later row wins. */
    run(ms, "INSERT INTO t VALUES (3000, 3, 'c') (1000, 1, 'a') (2000, 2, 'b') (1000, 10, 'A')", 4);
    run(ms, "INSERT INTO t VALUES (2000, 20, NULL) (4000, 4, 'd')", 2);
    run(ms, "INSERT INTO t (ts, s) VALUES (3000, 'C')", 1);
    check_format(ms, "SELECT * FROM t",
                 "           ts            |  v   |  s\n"
                 "-------------------------+------+------\n"
                 " 1970-01-01 00:00:01.000 |   10 | A\n"
                 " 1970-01-01 00:00:02.000 |   20 | NULL\n"
                 " 1970-01-01 00:00:03.000 | NULL | C\n"
                 " 1970-01-01 00:00:04.000 |    4 | d\n"
                 "(4 rows)\n");
    /* Many small statements (past the compaction threshold) with rewrites of old rows. */
    for (int i = 0; i < 100; i++) {
        char sql[128];
        snprintf(sql, sizeof(sql), "INSERT INTO t VALUES (%d, %d, 'x')", 10000 + (i % 50) * 1000,
                 i);
        run(ms, sql, 1);
    }
    /* ts 10000..59000 each written twice: values i and i + 50 for i < 50. */
    check_format(ms, "SELECT count(*), sum(v), min(v), max(v) FROM t WHERE ts >= 10000",
                 " count(*) | sum(v) | min(v) | max(v)\n"
                 "----------+--------+--------+--------\n"
                 "       50 |   3725 |     50 |     99\n"
                 "(1 row)\n");
    sl_memstore_close(ms);
}

/* ------------------------------------------------------------ DELETE */

static void test_delete(void **state)
{
    (void)state;
    sl_memstore *ms = power_data();
    const char *sql = "DELETE FROM d1001 WHERE voltage > 200";
    expect_err(ms, sql, SL_EUNSUPPORTED,
               at(sql, "voltage",
                  "DELETE supports only comparisons (=, <, <=, >, >=, BETWEEN) of the timestamp "
                  "column 'ts' with constants, combined with AND"));
    sql = "DELETE FROM d1001 WHERE ts < '2024-01-01 00:01:00' OR ts > '2024-01-01 00:01:30'";
    expect_err(ms, sql, SL_EUNSUPPORTED,
               at(sql, "ts <",
                  "DELETE supports only comparisons (=, <, <=, >, >=, BETWEEN) of the timestamp "
                  "column 'ts' with constants, combined with AND"));
    sql = "DELETE FROM d1001 WHERE ts <> 5";
    expect_err(ms, sql, SL_EUNSUPPORTED,
               at(sql, "ts <>",
                  "DELETE supports only comparisons (=, <, <=, >, >=, BETWEEN) of the timestamp "
                  "column 'ts' with constants, combined with AND"));
    sql = "DELETE FROM d1001 WHERE ts > 'soon'";
    expect_err(ms, sql, SL_ETYPE, at(sql, "'soon'", "column 'ts' expects TIMESTAMP, got 'soon'"));
    sql = "DELETE FROM nothing";
    expect_err(ms, sql, SL_ENOTFOUND,
               at(sql, "nothing", "table 'nothing' does not exist in database 'power'"));

    /* [00:01:00, 00:02:00) of d1001: one row. */
    run(ms, "DELETE FROM d1001 WHERE ts >= '2024-01-01 00:01:00' AND ts < '2024-01-01 00:02:00'",
        1);
    run(ms, "DELETE FROM d1001 WHERE ts >= '2024-01-01 00:01:00' AND ts < '2024-01-01 00:02:00'",
        0);
    check_format(ms, "SELECT ts, voltage FROM d1001",
                 "           ts            | voltage\n"
                 "-------------------------+---------\n"
                 " 2024-01-01 00:00:00.000 |     220\n"
                 " 2024-01-01 00:02:00.000 |     210\n"
                 "(2 rows)\n");
    /* Reversed comparison, equality, BETWEEN and an empty range. */
    run(ms, "DELETE FROM d1001 WHERE 1704067320000 = ts", 1);
    run(ms, "DELETE FROM d1002 WHERE ts > 5 AND ts < 5", 0);
    run(ms, "DELETE FROM d1002 WHERE ts BETWEEN '2024-01-01 00:01:30' AND NOW + 365d", 1);
    /* On the super table: every child. */
    run(ms, "INSERT INTO d1003 VALUES ('2024-01-01 00:05:00', 1, 1, 1)", 1);
    run(ms, "DELETE FROM meters WHERE ts <= '2024-01-01 00:00:30'", 3);
    check_format(ms, "SELECT tbname, ts FROM meters",
                 " tbname |           ts\n"
                 "--------+-------------------------\n"
                 " d1003  | 2024-01-01 00:05:00.000\n"
                 "(1 row)\n");
    /* No WHERE: everything. */
    run(ms, "DELETE FROM d1003", 1);
    check_format(ms, "SELECT count(*) FROM meters",
                 " count(*)\n"
                 "----------\n"
                 "        0\n"
                 "(1 row)\n");
    sl_memstore_close(ms);
}

/* ------------------------------------------------------------ catalog scans */

static void test_scan_constant_tags(void **state)
{
    (void)state;
    sl_memstore *ms = power_store();
    sl_catalog cat = sl_memstore_catalog(ms);
    /* 5000 rows in d1002 (more than one block), 2 in d1001, none in d1003. */
    sl_block b;
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
    sl_block_add_column(&b, SL_T_FLOAT, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    sl_block_add_column(&b, SL_T_FLOAT, 0);
    for (int i = 0; i < 5000; i++) {
        sl_column_append_i64(&b.cols[0], T0 + i * 1000);
        sl_column_append_f64(&b.cols[1], i);
        sl_column_append_i64(&b.cols[2], i);
        sl_column_append_f64(&b.cols[3], 0.5);
    }
    sl_block_seal(&b);
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_append(ms, "power", "d1002", &b, &err), 0);
    run(ms, "INSERT INTO d1001 VALUES (1704067200000, 1, 1, 1) (1704067201000, 2, 2, 2)", 2);

    sl_table_meta meta;
    assert_int_equal(cat.ops->get_table(cat.ud, NULL, "METERS", &meta, &err), 0);
    assert_int_equal(meta.kind, SL_TABLE_SUPER);
    assert_int_equal(meta.ncols, 4);
    assert_int_equal(meta.ntags, 2);
    assert_string_equal(meta.tags[1].name, "groupId");
    /* voltage, tbname, groupId, location, ts over [T0 + 1s, T0 + 4500s]. */
    int proj[] = {2, SL_PROJ_TBNAME, 5, 4, 0};
    sl_scan_req req = {
        .table = &meta, .nproj = 5, .proj = proj, .ts_lo = T0 + 1000, .ts_hi = T0 + 4500 * 1000};
    void *cur = NULL;
    assert_int_equal(cat.ops->scan_open(cat.ud, &req, &cur, &err), 0);
    sl_block out;
    sl_block_init(&out);
    /* d1001: one row (T0 + 1s). */
    assert_int_equal(cat.ops->scan_next(cur, &out, &err), 0);
    assert_int_equal(out.nrows, 1);
    assert_int_equal(out.ncols, 5);
    assert_int_equal(sl_column_get_i64(&out.cols[0], 0), 2);
    assert_true(out.cols[1].is_const);
    assert_true(out.cols[2].is_const);
    assert_true(out.cols[3].is_const);
    uint32_t len;
    const char *s = sl_column_get_str(&out.cols[1], 0, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(s, "d1001", 5);
    assert_int_equal(out.cols[1].type, SL_T_VARCHAR);
    assert_int_equal(out.cols[1].width, 192);
    assert_int_equal(sl_column_get_i64(&out.cols[2], 0), 2);
    s = sl_column_get_str(&out.cols[3], 0, &len);
    assert_int_equal(len, 2);
    assert_memory_equal(s, "SF", 2);
    assert_int_equal(sl_column_get_i64(&out.cols[4], 0), T0 + 1000);
    /* d1002: rows 1..4500 in blocks of at most 4096. */
    assert_int_equal(cat.ops->scan_next(cur, &out, &err), 0);
    assert_int_equal(out.nrows, 4096);
    assert_int_equal(sl_column_get_i64(&out.cols[0], 0), 1);
    assert_int_equal(sl_column_get_i64(&out.cols[0], 4095), 4096);
    assert_int_equal(sl_column_get_i64(&out.cols[2], 4095), 3);
    s = sl_column_get_str(&out.cols[1], 4095, &len);
    assert_memory_equal(s, "d1002", 5);
    assert_int_equal(cat.ops->scan_next(cur, &out, &err), 0);
    assert_int_equal(out.nrows, 4500 - 4096);
    assert_int_equal(sl_column_get_i64(&out.cols[4], out.nrows - 1), T0 + 4500 * 1000);
    /* d1003 is empty: the end. */
    assert_int_equal(cat.ops->scan_next(cur, &out, &err), 0);
    assert_int_equal(out.nrows, 0);
    cat.ops->scan_close(cur);

    /* A child scanned directly delivers its own tags. */
    assert_int_equal(cat.ops->get_table(cat.ud, "power", "d1003", &meta, &err), 0);
    assert_int_equal(meta.kind, SL_TABLE_CHILD);
    int proj2[] = {4};
    sl_scan_req req2 = {
        .table = &meta, .nproj = 1, .proj = proj2, .ts_lo = INT64_MIN, .ts_hi = INT64_MAX};
    run(ms, "INSERT INTO d1003 VALUES (5, 1, 1, 1)", 1);
    assert_int_equal(cat.ops->scan_open(cat.ud, &req2, &cur, &err), 0);
    assert_int_equal(cat.ops->scan_next(cur, &out, &err), 0);
    assert_int_equal(out.nrows, 1);
    s = sl_column_get_str(&out.cols[0], 0, &len);
    assert_memory_equal(s, "LA", 2);
    assert_int_equal(cat.ops->scan_next(cur, &out, &err), 0);
    assert_int_equal(out.nrows, 0);
    cat.ops->scan_close(cur);

    sl_error_clear(&err);
    assert_int_equal(cat.ops->get_table(cat.ud, NULL, "nope", &meta, &err), SL_ENOTFOUND);
    assert_string_equal(err.msg, "table 'nope' does not exist in database 'power'");
    sl_error_clear(&err);
    assert_int_equal(cat.ops->get_table(cat.ud, "nodb", "nope", &meta, &err), SL_ENOTFOUND);
    assert_string_equal(err.msg, "database 'nodb' does not exist");
    sl_block_fini(&out);
    sl_block_fini(&b);
    sl_memstore_close(ms);
}

/* ------------------------------------------------------------ bulk append */

static void fill_rows(sl_block *b, int64_t first, int64_t step, int n, int vbase)
{
    sl_block_init(b);
    sl_block_add_column(b, SL_T_TIMESTAMP, 0);
    sl_block_add_column(b, SL_T_INT, 0);
    sl_block_add_column(b, SL_T_VARCHAR, 4);
    for (int i = 0; i < n; i++) {
        sl_column_append_i64(&b->cols[0], first + i * step);
        sl_column_append_i64(&b->cols[1], vbase + i);
        if (i % 2)
            sl_column_append_null(&b->cols[2]);
        else
            sl_column_append_str(&b->cols[2], "ab", 2);
    }
    sl_block_seal(b);
}

static void test_bulk_append(void **state)
{
    (void)state;
    sl_memstore *ms = open_store();
    run(ms, "CREATE DATABASE db; USE db; CREATE TABLE t (ts TIMESTAMP, v INT, s VARCHAR(4))", 0);
    run(ms, "CREATE STABLE st (ts TIMESTAMP, v INT, s VARCHAR(4)) TAGS (g INT)", 0);
    sl_block b;
    sl_error err;
    sl_error_clear(&err);
    /* In order: ts 0..99999 step 1, v = i. */
    fill_rows(&b, 0, 1, 100000, 0);
    assert_int_equal(sl_memstore_append(ms, "db", "t", &b, &err), 0);
    sl_block_fini(&b);
    /* Next block continues in order. */
    fill_rows(&b, 100000, 1, 1000, 100000);
    assert_int_equal(sl_memstore_append(ms, NULL, "t", &b, &err), 0);
    sl_block_fini(&b);
    /* Overlapping, out of order: ts 50000, 49998, ... (step -2), 100 rows, v = 1000000 + i,
     * replaces even timestamps 49802..50000. */
    fill_rows(&b, 50000, -2, 100, 1000000);
    assert_int_equal(sl_memstore_append(ms, "db", "t", &b, &err), 0);
    sl_block_fini(&b);
    /* count 101000; v equals ts before the overwrite, so sum(v) = sum(0..100999)
     * - sum(even 49802..50000) + sum(1000000..1000099) = 5100449500 - 4990100 + 100004950
     * = 5195464350. s is set on the even rows of each block: 50000 + 500 in the first two;
     * of the 100 overwritten (even, so non-NULL) rows, 50 become NULL: 50450. */
    check_format(ms, "SELECT count(*), sum(v), count(s) FROM t",
                 " count(*) |   sum(v)   | count(s)\n"
                 "----------+------------+----------\n"
                 "   101000 | 5195464350 |    50450\n"
                 "(1 row)\n");
    check_format(ms, "SELECT ts, v FROM t WHERE ts >= 49998 AND ts <= 50001",
                 "           ts            |    v\n"
                 "-------------------------+---------\n"
                 " 1970-01-01 00:00:49.998 | 1000001\n"
                 " 1970-01-01 00:00:49.999 |   49999\n"
                 " 1970-01-01 00:00:50.000 | 1000000\n"
                 " 1970-01-01 00:00:50.001 |   50001\n"
                 "(4 rows)\n");

    /* Refusals. */
    fill_rows(&b, 0, 1, 3, 0);
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_append(ms, "db", "st", &b, &err), SL_EINVAL);
    assert_string_equal(err.msg, "'st' is a super table: append to one of its child tables");
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_append(ms, "db", "zz", &b, &err), SL_ENOTFOUND);
    assert_string_equal(err.msg, "table 'zz' does not exist in database 'db'");
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_append(ms, "nodb", "t", &b, &err), SL_ENOTFOUND);
    assert_string_equal(err.msg, "database 'nodb' does not exist");
    sl_column_append_null(&b.cols[0]);
    sl_column_append_i64(&b.cols[1], 1);
    sl_column_append_str(&b.cols[2], "abcde", 5);
    sl_block_seal(&b);
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_append(ms, "db", "t", &b, &err), SL_ERANGE);
    assert_string_equal(err.msg, "row 4: value of 5 bytes does not fit column 's' VARCHAR(4)");
    sl_block_fini(&b);
    fill_rows(&b, 0, 1, 3, 0);
    sl_column_append_null(&b.cols[0]);
    sl_column_append_i64(&b.cols[1], 1);
    sl_column_append_null(&b.cols[2]);
    sl_block_seal(&b);
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_append(ms, "db", "t", &b, &err), SL_EINVAL);
    assert_string_equal(err.msg, "row 4: the timestamp column 'ts' cannot be NULL");
    sl_block_fini(&b);
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
    sl_block_add_column(&b, SL_T_BIGINT, 0);
    sl_block_add_column(&b, SL_T_VARCHAR, 4);
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_append(ms, "db", "t", &b, &err), SL_ETYPE);
    assert_string_equal(err.msg, "column 2 ('v') of table 't' is INT, the block has BIGINT");
    sl_block_fini(&b);
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_append(ms, "db", "t", &b, &err), SL_EINVAL);
    assert_string_equal(err.msg, "block for table 't' has 1 columns, the table has 3");
    sl_block_fini(&b);
    check_format(ms, "SELECT count(*) FROM t",
                 " count(*)\n"
                 "----------\n"
                 "   101000\n"
                 "(1 row)\n");
    sl_memstore_close(ms);
}

/* ------------------------------------------------------------ many tables, databases */

static void test_many_tables(void **state)
{
    (void)state;
    sl_memstore *ms = open_store();
    run(ms, "CREATE DATABASE db; USE db; CREATE STABLE st (ts TIMESTAMP, v INT) TAGS (g INT)", 0);
    /* 1500 child tables in one statement, then every third dropped in one statement. */
    sl_buf b;
    sl_buf_init(&b);
    sl_buf_printf(&b, "CREATE TABLE");
    for (int i = 0; i < 1500; i++)
        sl_buf_printf(&b, " c%d USING st TAGS (%d)", i, i);
    sl_buf_put_u8(&b, 0);
    run(ms, (const char *)b.data, 0);
    sl_buf_reset(&b);
    sl_buf_printf(&b, "DROP TABLE c0");
    for (int i = 3; i < 1500; i += 3)
        sl_buf_printf(&b, ", c%d", i);
    sl_buf_put_u8(&b, 0);
    run(ms, (const char *)b.data, 0);
    /* Every remaining table takes a row whose value is its tag; dropped ones are gone. */
    for (int i = 0; i < 1500; i++) {
        char sql[96];
        snprintf(sql, sizeof(sql), "INSERT INTO C%d VALUES (1000, %d)", i, i);
        if (i % 3 == 0) {
            char msg[96];
            snprintf(msg, sizeof(msg), "C%d", i);
            const char *want = at(sql, msg, "");
            char full[160];
            snprintf(full, sizeof(full), "%stable 'C%d' does not exist in database 'db'", want, i);
            sl_result r;
            sl_error err;
            sl_error_clear(&err);
            assert_int_equal(sl_memstore_exec(ms, sql, &r, &err), SL_ENOTFOUND);
            assert_string_equal(err.msg, full);
        } else {
            run(ms, sql, 1);
        }
    }
    /* 1000 tables remain; sum of tags not divisible by 3 in 0..1499:
     * 1124250 - 3 * (0 + ... + 499) = 1124250 - 374250 = 750000. */
    check_format(ms, "SELECT count(*), sum(v), sum(g) FROM st",
                 " count(*) | sum(v) | sum(g)\n"
                 "----------+--------+--------\n"
                 "     1000 | 750000 | 750000\n"
                 "(1 row)\n");
    check_format(ms, "SHOW STABLES",
                 " stable_name | columns | tags | tables\n"
                 "-------------+---------+------+--------\n"
                 " st          |       2 |    1 |   1000\n"
                 "(1 row)\n");
    check_format(ms, "SHOW TABLES LIKE 'c14_9'",
                 " table_name | stable_name |    type     | columns\n"
                 "------------+-------------+-------------+---------\n"
                 " c1409      | st          | CHILD_TABLE |       2\n"
                 " c1429      | st          | CHILD_TABLE |       2\n"
                 " c1439      | st          | CHILD_TABLE |       2\n"
                 " c1459      | st          | CHILD_TABLE |       2\n"
                 " c1469      | st          | CHILD_TABLE |       2\n"
                 " c1489      | st          | CHILD_TABLE |       2\n"
                 " c1499      | st          | CHILD_TABLE |       2\n"
                 "(7 rows)\n");
    run(ms, "DROP STABLE st", 0);
    check_format(ms, "SHOW DATABASES",
                 " name | precision | vgroups | ntables\n"
                 "------+-----------+---------+---------\n"
                 " db   | ms        |       2 |       0\n"
                 "(1 row)\n");
    sl_buf_fini(&b);
    sl_memstore_close(ms);
}

static void test_qualified_names_and_show_create(void **state)
{
    (void)state;
    sl_memstore *ms = power_data();
    run(ms, "CREATE DATABASE other PRECISION 'ns' VGROUPS 3", 0);
    run(ms, "CREATE TABLE other.t (ts TIMESTAMP, v INT)", 0);
    run(ms,
        "INSERT INTO other.t VALUES ('2024-01-01 00:00:00.000000001', 1) power.d1001 VALUES "
        "('2024-01-02', 1, 1, 1)",
        2);
    check_format(ms, "SELECT * FROM other.t",
                 "              ts               | v\n"
                 "-------------------------------+---\n"
                 " 2024-01-01 00:00:00.000000001 | 1\n"
                 "(1 row)\n");
    const char *sql = "CREATE TABLE other.c USING power.meters TAGS ('x', 1)";
    expect_err(ms, sql, SL_EINVAL,
               at(sql, "power.meters",
                  "super table 'meters' is in database 'power': a child table must be in the "
                  "same database"));
    check_format(ms, "SHOW CREATE DATABASE other",
                 " Database |                 Create Database\n"
                 "----------+--------------------------------------------------\n"
                 " other    | CREATE DATABASE `other` PRECISION 'ns' VGROUPS 3\n"
                 "(1 row)\n");
    check_format(ms, "SHOW CREATE STABLE meters",
                 " STable |                                                            "
                 "Create STable\n"
                 "--------+-------------------------------------------------------------------"
                 "------------------------------------------------------------------\n"
                 " meters | CREATE STABLE `meters` (`ts` TIMESTAMP, `current` FLOAT, `voltage` "
                 "INT, `phase` FLOAT) TAGS (`location` VARCHAR(64), `groupId` INT)\n"
                 "(1 row)\n");
    check_format(ms, "SHOW CREATE TABLE d1001",
                 " Table |                                Create Table\n"
                 "-------+-------------------------------------------------------------------"
                 "---------\n"
                 " d1001 | CREATE TABLE `d1001` USING `meters` (`location`, `groupId`) TAGS "
                 "('SF', 2)\n"
                 "(1 row)\n");
    sql = "SHOW CREATE TABLE meters";
    expect_err(ms, sql, SL_EINVAL,
               at(sql, "meters", "'meters' is a super table: use SHOW CREATE STABLE"));
    /* A child table describes as its super table's columns and tags. */
    check_format(ms, "DESCRIBE power.d1002",
                 "  field   |   type    | length | note\n"
                 "----------+-----------+--------+------\n"
                 " ts       | TIMESTAMP |      8 | \n"
                 " current  | FLOAT     |      4 | \n"
                 " voltage  | INT       |      4 | \n"
                 " phase    | FLOAT     |      4 | \n"
                 " location | VARCHAR   |     64 | TAG\n"
                 " groupId  | INT       |      4 | TAG\n"
                 "(6 rows)\n");
    sql = "DESCRIBE nothing";
    expect_err(ms, sql, SL_ENOTFOUND,
               at(sql, "nothing", "table 'nothing' does not exist in database 'power'"));
    check_format(ms, "SHOW other.TABLES",
                 " table_name | stable_name |     type     | columns\n"
                 "------------+-------------+--------------+---------\n"
                 " t          | NULL        | NORMAL_TABLE |       2\n"
                 "(1 row)\n");
    sl_memstore_close(ms);
}

/* ------------------------------------------------------------ SELECT */

static void test_select_queries(void **state)
{
    (void)state;
    sl_memstore *ms = power_data();
    check_format(ms, "SELECT count(*) FROM meters",
                 " count(*)\n"
                 "----------\n"
                 "        6\n"
                 "(1 row)\n");
    check_format(ms,
                 "SELECT tbname, avg(current), min(voltage), max(voltage) FROM meters "
                 "PARTITION BY tbname ORDER BY tbname",
                 " tbname | avg(current) | min(voltage) | max(voltage)\n"
                 "--------+--------------+--------------+--------------\n"
                 " d1001  |           12 |          210 |          230\n"
                 " d1002  |            6 |          200 |          220\n"
                 " d1003  |           20 |          240 |          240\n"
                 "(3 rows)\n");
    check_format(ms, "SELECT _wstart, count(*), sum(voltage) FROM meters INTERVAL(1m)",
                 "         _wstart         | count(*) | sum(voltage)\n"
                 "-------------------------+----------+--------------\n"
                 " 2024-01-01 00:00:00.000 |        3 |          660\n"
                 " 2024-01-01 00:01:00.000 |        2 |          450\n"
                 " 2024-01-01 00:02:00.000 |        1 |          210\n"
                 "(3 rows)\n");
    check_format(ms, "SELECT count(*) FROM meters WHERE location = 'SF' AND groupId = 2",
                 " count(*)\n"
                 "----------\n"
                 "        3\n"
                 "(1 row)\n");
    check_format(ms,
                 "SELECT location, count(*), max(current) FROM meters GROUP BY location "
                 "ORDER BY location",
                 " location | count(*) | max(current)\n"
                 "----------+----------+--------------\n"
                 " LA       |        1 |           20\n"
                 " SF       |        5 |           14\n"
                 "(2 rows)\n");
    check_format(ms, "SELECT ts, current FROM d1001 ORDER BY current DESC LIMIT 2",
                 "           ts            | current\n"
                 "-------------------------+---------\n"
                 " 2024-01-01 00:02:00.000 |      14\n"
                 " 2024-01-01 00:01:00.000 |      12\n"
                 "(2 rows)\n");
    check_format(ms,
                 "SELECT ts, CASE WHEN voltage > 220 THEN 'high' ELSE 'ok' END AS level "
                 "FROM d1001",
                 "           ts            | level\n"
                 "-------------------------+-------\n"
                 " 2024-01-01 00:00:00.000 | ok\n"
                 " 2024-01-01 00:01:00.000 | high\n"
                 " 2024-01-01 00:02:00.000 | ok\n"
                 "(3 rows)\n");
    /* The time range pushed into the scan. */
    check_format(ms,
                 "SELECT sum(voltage) FROM meters WHERE ts > '2024-01-01 00:00:00' AND "
                 "ts < '2024-01-01 00:02:00'",
                 " sum(voltage)\n"
                 "--------------\n"
                 "          690\n"
                 "(1 row)\n");
    /* An update shows in the next query. */
    run(ms, "INSERT INTO d1003 VALUES ('2024-01-01 00:00:30', 30.0, 250, 1.0)", 1);
    check_format(ms, "SELECT count(*), sum(current) FROM meters",
                 " count(*) | sum(current)\n"
                 "----------+--------------\n"
                 "        6 |           78\n"
                 "(1 row)\n");
    /* Planner errors carry their position in the message. */
    const char *sql = "SELECT nope FROM d1001";
    expect_err(ms, sql, SL_ENOTFOUND, at(sql, "nope", "unknown column 'nope' in table 'd1001'"));
    sql = "SELECT * FROM nothing";
    expect_err(ms, sql, SL_ENOTFOUND,
               at(sql, "nothing", "table 'nothing' does not exist in database 'power'"));
    sl_memstore_close(ms);
}

/* ------------------------------------------------------------ statements and results */

static void test_multi_statement_and_unsupported(void **state)
{
    (void)state;
    sl_memstore *ms = open_store();
    sl_result r;
    sl_error err;
    sl_error_clear(&err);
    /* The first two statements stay applied; the third fails; the fourth never runs. */
    const char *sql = "CREATE DATABASE a; USE a;\nCREATE TABLE t (x INT); CREATE DATABASE b";
    assert_int_equal(sl_memstore_exec(ms, sql, &r, &err), SL_ETYPE);
    assert_string_equal(err.msg, "2:17: the first column must be a TIMESTAMP, 'x' is INT");
    assert_int_equal(err.line, 2);
    assert_int_equal(err.col, 17);
    check_format(ms, "SHOW DATABASES",
                 " name | precision | vgroups | ntables\n"
                 "------+-----------+---------+---------\n"
                 " a    | ms        |       2 |       0\n"
                 "(1 row)\n");
    /* The last statement's result is returned. */
    exec_ok(ms, "CREATE TABLE t (ts TIMESTAMP, x INT); INSERT INTO t VALUES (1, 1) (2, 2)", &r);
    assert_int_equal(r.affected, 2);
    assert_int_equal(r.ncols, 0);
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_result_format(&r, &b), 0);
    sl_buf_put_u8(&b, 0);
    assert_string_equal((const char *)b.data, "OK, 2 rows affected\n");
    sl_buf_fini(&b);
    sl_result_fini(&r);
    sl_result_fini(&r); /* idempotent */
    expect_err(ms, "SHOW STREAMS", SL_EUNSUPPORTED,
               "1:1: this SHOW statement is not supported by the embedded store (it has no "
               "streams or nodes)");
    expect_err(ms, "DROP STREAM s", SL_EUNSUPPORTED,
               "1:1: DROP STREAM is not supported by the embedded store");
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_exec(ms, "SELEC 1", &r, &err), SL_ESYNTAX);
    assert_int_equal(err.line, 1);
    assert_int_equal(strncmp(err.msg, "1:1: ", 5), 0);
    sl_memstore_close(ms);
    sl_memstore_close(NULL);
}

static void test_result_format(void **state)
{
    (void)state;
    sl_memstore *ms = open_store();
    run(ms, "CREATE DATABASE db PRECISION 'ns'; USE db", 0);
    run(ms,
        "CREATE TABLE t (ts TIMESTAMP, name NCHAR(10), ok BOOL, big BIGINT UNSIGNED, "
        "f FLOAT, d DOUBLE)",
        0);
    run(ms,
        "INSERT INTO t VALUES (1, 'Zürich', true, 18446744073709551615, 0.1, 0.1) "
        "(2000000000, NULL, false, 0, -1.5, 1e100)",
        2);
    check_format(ms, "SELECT * FROM t",
                 "              ts               |  name  |  ok   |         big          |  f   "
                 "|   d\n"
                 "-------------------------------+--------+-------+----------------------+------"
                 "+--------\n"
                 " 1970-01-01 00:00:00.000000001 | Zürich | true  | 18446744073709551615 |  0.1 "
                 "|    0.1\n"
                 " 1970-01-01 00:00:02.000000000 | NULL   | false |                    0 | -1.5 "
                 "| 1e+100\n"
                 "(2 rows)\n");
    sl_memstore_close(ms);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_database),
        cmocka_unit_test(test_drop_and_use_database),
        cmocka_unit_test(test_create_stable),
        cmocka_unit_test(test_create_tables),
        cmocka_unit_test(test_drop_tables),
        cmocka_unit_test(test_insert_forms),
        cmocka_unit_test(test_insert_refusals),
        cmocka_unit_test(test_precision_us),
        cmocka_unit_test(test_time_arithmetic),
        cmocka_unit_test(test_update_semantics),
        cmocka_unit_test(test_delete),
        cmocka_unit_test(test_scan_constant_tags),
        cmocka_unit_test(test_bulk_append),
        cmocka_unit_test(test_many_tables),
        cmocka_unit_test(test_qualified_names_and_show_create),
        cmocka_unit_test(test_select_queries),
        cmocka_unit_test(test_multi_statement_and_unsupported),
        cmocka_unit_test(test_result_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
