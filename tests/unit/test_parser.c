/*
 * test_parser.c - the SQL parser on every non-stream statement form, expressions and
 * operator precedence, literals, source positions and texts, and multi-statement input.
 *
 * Expected dumps are written by hand from the grammar and the notation in
 * common/sql/parser.c; stream statements are in test_parser_stream.c and malformed input
 * in test_parser_errors.c.
 */
#include "test_parser_util.h"

#include "common/sql/lexer.h"

/* ---------------------------------------------------------------- databases */

static void test_create_database(void **state)
{
    (void)state;
    tp_check("CREATE DATABASE db", "(create-database db)");
    tp_check("create database if not exists power precision 'us' vgroups 4",
             "(create-database if-not-exists power (precision 'us') (vgroups 4))");
    tp_check("CREATE DATABASE d VGROUPS 2 PRECISION 'ns'",
             "(create-database d (precision 'ns') (vgroups 2))");
    tp_check("CREATE DATABASE `my db` PRECISION 'MS'", "(create-database `my db` (precision 'MS'))");

    sl_parse_result *r = tp_parse("CREATE DATABASE db");
    const sl_create_database *c = &r->stmts[0]->u.create_db;
    assert_int_equal(r->stmts[0]->kind, SL_STMT_CREATE_DATABASE);
    assert_false(c->if_not_exists);
    assert_string_equal(c->name, "db");
    assert_null(c->precision);
    assert_int_equal(c->vgroups, -1);
    sl_parse_result_free(r);

    r = tp_parse("CREATE DATABASE db\n  VGROUPS 8 PRECISION 'ms'");
    c = &r->stmts[0]->u.create_db;
    assert_int_equal(c->vgroups, 8);
    assert_int_equal(c->vgroups_pos.line, 2);
    assert_int_equal(c->vgroups_pos.col, 3);
    assert_string_equal(c->precision, "ms");
    assert_int_equal(c->precision_pos.line, 2);
    assert_int_equal(c->precision_pos.col, 13);
    sl_parse_result_free(r);
}

static void test_drop_use_show_describe(void **state)
{
    (void)state;
    tp_check("DROP DATABASE db", "(drop-database db)");
    tp_check("drop database if exists db", "(drop-database if-exists db)");
    tp_check("USE power", "(use power)");
    tp_check("SHOW DATABASES", "(show databases)");
    tp_check("SHOW STABLES", "(show stables)");
    tp_check("SHOW TABLES", "(show tables)");
    tp_check("SHOW STREAMS", "(show streams)");
    tp_check("show power.stables", "(show stables (db power))");
    tp_check("SHOW power.TABLES LIKE 'd%'", "(show tables (db power) (like 'd%'))");
    tp_check("SHOW power.STREAMS", "(show streams (db power))");
    tp_check("SHOW STREAMS LIKE 's\\_%'", "(show streams (like 's\\\\_%'))");
    tp_check("SHOW STABLES LIKE 'm%'", "(show stables (like 'm%'))");
    tp_check("SHOW VNODES", "(show vnodes)");
    tp_check("SHOW DNODES", "(show dnodes)");
    tp_check("SHOW SNODES", "(show snodes)");
    tp_check("SHOW MNODES", "(show mnodes)");
    tp_check("SHOW DATABASES LIKE 'p%'", "(show databases (like 'p%'))");
    tp_check("SHOW DNODES LIKE '%:6100'", "(show dnodes (like '%:6100'))");
    /* administration: the vgroups of one vnode, of one database */
    tp_check("SHOW VNODES ON DNODE 2", "(show vnodes (on-dnode 2))");
    tp_check("show vnodes on dnode 0 like 'tcp%'", "(show vnodes (on-dnode 0) (like 'tcp%'))");
    tp_check("SHOW VGROUPS", "(show vgroups)");
    tp_check("SHOW power.VGROUPS", "(show vgroups (db power))");
    tp_check("SHOW VGROUPS LIKE '%:6101'", "(show vgroups (like '%:6101'))");
    tp_check("SHOW vgroups.vgroups", "(show vgroups (db vgroups))");
    tp_check("DROP SNODE ON DNODE 7", "(drop-snode 7)");
    tp_check("SHOW CREATE TABLE power.d1", "(show create-table power.d1)");
    tp_check("SHOW CREATE STABLE meters", "(show create-stable meters)");
    tp_check("SHOW CREATE DATABASE power", "(show create-database power)");
    tp_check("SHOW CREATE STREAM power.s1", "(show create-stream power.s1)");
    /* a database may be called like a SHOW keyword when qualified */
    tp_check("SHOW streams.tables", "(show tables (db streams))");
    tp_check("DESCRIBE meters", "(describe meters)");
    tp_check("DESC power.meters", "(describe power.meters)");

    sl_parse_result *r = tp_parse("DROP DATABASE db");
    assert_int_equal(r->stmts[0]->kind, SL_STMT_DROP_DATABASE);
    assert_int_equal(r->stmts[0]->u.drop.n, 1);
    assert_null(r->stmts[0]->u.drop.names[0].db);
    assert_string_equal(r->stmts[0]->u.drop.names[0].name, "db");
    sl_parse_result_free(r);

    r = tp_parse("USE power");
    assert_int_equal(r->stmts[0]->kind, SL_STMT_USE);
    assert_string_equal(r->stmts[0]->u.use_db, "power");
    sl_parse_result_free(r);

    r = tp_parse("SHOW power.TABLES LIKE 'd%'");
    assert_int_equal(r->stmts[0]->kind, SL_STMT_SHOW);
    assert_int_equal(r->stmts[0]->u.show.kind, SL_SHOW_TABLES);
    assert_string_equal(r->stmts[0]->u.show.db, "power");
    assert_string_equal(r->stmts[0]->u.show.like, "d%");
    sl_parse_result_free(r);
}

/* ---------------------------------------------------------------- tables */

static void test_create_stable(void **state)
{
    (void)state;
    tp_check("CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT) "
             "TAGS (location VARCHAR(64), groupId INT)",
             "(create-stable meters (columns (ts TIMESTAMP) (current FLOAT) (voltage INT) "
             "(phase FLOAT)) (tags (location VARCHAR(64)) (groupId INT)))");
    tp_check("create stable if not exists power.st (ts timestamp, a bool, b tinyint, "
             "c smallint, d int, e integer, f bigint, g tinyint unsigned, h smallint unsigned, "
             "i int unsigned, j integer unsigned, k bigint unsigned, l float, m double, "
             "n varchar(10), o binary(20), p nchar(30), q varchar) tags (t1 nchar, t2 double)",
             "(create-stable if-not-exists power.st (columns (ts TIMESTAMP) (a BOOL) "
             "(b TINYINT) (c SMALLINT) (d INT) (e INT) (f BIGINT) (g TINYINT UNSIGNED) "
             "(h SMALLINT UNSIGNED) (i INT UNSIGNED) (j INT UNSIGNED) (k BIGINT UNSIGNED) "
             "(l FLOAT) (m DOUBLE) (n VARCHAR(10)) (o VARCHAR(20)) (p NCHAR(30)) (q VARCHAR)) "
             "(tags (t1 NCHAR) (t2 DOUBLE)))");
    tp_check("CREATE STABLE st (ts TIMESTAMP, k INT COMPOSITE KEY, v DOUBLE) TAGS (g INT)",
             "(create-stable st (columns (ts TIMESTAMP) (k INT composite-key) (v DOUBLE)) "
             "(tags (g INT)))");
    tp_check("CREATE STABLE st (ts TIMESTAMP, k VARCHAR(8) PRIMARY KEY) TAGS (g INT)",
             "(create-stable st (columns (ts TIMESTAMP) (k VARCHAR(8) composite-key)) "
             "(tags (g INT)))");

    sl_parse_result *r = tp_parse("CREATE STABLE st (ts TIMESTAMP, s VARCHAR, n VARCHAR(0),\n"
                                  " w NCHAR(65517)) TAGS (g INT UNSIGNED)");
    const sl_create_stable *c = &r->stmts[0]->u.create_stable;
    assert_int_equal(r->stmts[0]->kind, SL_STMT_CREATE_STABLE);
    assert_null(c->name.db);
    assert_string_equal(c->name.name, "st");
    assert_int_equal(c->ncols, 4);
    assert_int_equal(c->cols[1].type, SL_T_VARCHAR);
    assert_false(c->cols[1].width_given);
    assert_int_equal(c->cols[1].width, 0);
    assert_true(c->cols[2].width_given);
    assert_int_equal(c->cols[2].width, 0);
    assert_int_equal(c->cols[3].type, SL_T_NCHAR);
    assert_int_equal(c->cols[3].width, 65517);
    assert_int_equal(c->cols[3].pos.line, 2);
    assert_int_equal(c->cols[3].pos.col, 2);
    assert_int_equal(c->ntags, 1);
    assert_int_equal(c->tags[0].type, SL_T_UINT);
    assert_false(c->tags[0].composite_key);
    sl_parse_result_free(r);
}

static void test_create_table(void **state)
{
    (void)state;
    tp_check("CREATE TABLE t (ts TIMESTAMP, v INT)",
             "(create-table t (columns (ts TIMESTAMP) (v INT)))");
    tp_check("CREATE TABLE IF NOT EXISTS power.t (ts TIMESTAMP, id BIGINT COMPOSITE KEY, "
             "name BINARY(16))",
             "(create-table if-not-exists power.t (columns (ts TIMESTAMP) "
             "(id BIGINT composite-key) (name VARCHAR(16))))");
    tp_check("CREATE TABLE d1001 USING meters TAGS ('California.SanFrancisco', 2)",
             "(create-subtables (subtable d1001 (using meters) "
             "(tags (str 'California.SanFrancisco') (int 2))))");
    tp_check("CREATE TABLE IF NOT EXISTS power.d1 USING power.meters (groupId) TAGS (3)",
             "(create-subtables (subtable if-not-exists power.d1 (using power.meters) "
             "(tag-names groupId) (tags (int 3))))");
    tp_check("CREATE TABLE d1 USING meters TAGS ('a', 1) d2 USING meters (location, groupId) "
             "TAGS ('b', -2) IF NOT EXISTS d3 USING meters TAGS (NULL, 1 + 2)",
             "(create-subtables (subtable d1 (using meters) (tags (str 'a') (int 1))) "
             "(subtable d2 (using meters) (tag-names location groupId) "
             "(tags (str 'b') (- (int 2)))) "
             "(subtable if-not-exists d3 (using meters) (tags (null) (+ (int 1) (int 2)))))");
    /* a table may be called "if" when the next word is not NOT */
    tp_check("CREATE TABLE d1 USING st TAGS (1) if USING st TAGS (2)",
             "(create-subtables (subtable d1 (using st) (tags (int 1))) "
             "(subtable if (using st) (tags (int 2))))");

    sl_parse_result *r = tp_parse("CREATE TABLE d1 USING st (a, b) TAGS (1, 2)");
    const sl_create_subtables *c = &r->stmts[0]->u.create_subtables;
    assert_int_equal(r->stmts[0]->kind, SL_STMT_CREATE_SUBTABLES);
    assert_int_equal(c->n, 1);
    assert_int_equal(c->items[0].ntag_names, 2);
    assert_string_equal(c->items[0].tag_names[1], "b");
    assert_int_equal(c->items[0].tag_name_pos[1].col, 30);
    assert_int_equal(c->items[0].tag_values.n, 2);
    sl_parse_result_free(r);

    r = tp_parse("CREATE TABLE t (ts TIMESTAMP)");
    assert_int_equal(r->stmts[0]->kind, SL_STMT_CREATE_TABLE);
    assert_int_equal(r->stmts[0]->u.create_table.ncols, 1);
    sl_parse_result_free(r);
}

static void test_drop_tables(void **state)
{
    (void)state;
    tp_check("DROP TABLE d1", "(drop-table d1)");
    tp_check("DROP TABLE IF EXISTS d1, power.d2, `d 3`", "(drop-table if-exists d1 power.d2 `d 3`)");
    tp_check("DROP STABLE meters", "(drop-stable meters)");
    tp_check("drop stable if exists a, b", "(drop-stable if-exists a b)");

    sl_parse_result *r = tp_parse("DROP TABLE IF EXISTS d1, power.d2");
    const sl_drop *d = &r->stmts[0]->u.drop;
    assert_int_equal(r->stmts[0]->kind, SL_STMT_DROP_TABLE);
    assert_true(d->if_exists);
    assert_int_equal(d->n, 2);
    assert_string_equal(d->names[1].db, "power");
    assert_string_equal(d->names[1].name, "d2");
    assert_int_equal(d->names[1].pos.col, 26);
    sl_parse_result_free(r);
}

/* ---------------------------------------------------------------- DML */

static void test_insert(void **state)
{
    (void)state;
    tp_check("INSERT INTO d1 VALUES (NOW, 10.3, 219, 0.31)",
             "(insert (into d1 (values (row (now) (float 10.3) (int 219) (float 0.31)))))");
    tp_check("INSERT INTO d1 VALUES ('2025-01-01 00:00:00.000', 1)(NOW + 1s, 2), "
             "(NOW() - 2h, -3)",
             "(insert (into d1 (values (row (str '2025-01-01 00:00:00.000') (int 1)) "
             "(row (+ (now) (dur 1s)) (int 2)) (row (- (now) (dur 2h)) (- (int 3))))))");
    tp_check("INSERT INTO d1 (ts, current) VALUES (1700000000000 + 5s, NULL) "
             "power.d2 VALUES (1700000000000, TRUE) (1700000000001, FALSE)",
             "(insert (into d1 (columns ts current) (values (row (+ (int 1700000000000) "
             "(dur 5s)) (null)))) (into power.d2 (values (row (int 1700000000000) (true)) "
             "(row (int 1700000000001) (false)))))");
    tp_check("INSERT INTO d9 USING meters TAGS ('x', 9) VALUES (NOW, 1.5)",
             "(insert (into d9 (using meters (tags (str 'x') (int 9))) "
             "(values (row (now) (float 1.5)))))");
    tp_check("INSERT INTO d9 USING power.meters (groupId) TAGS (9) (ts, v) VALUES (NOW, 1) "
             "d10 USING meters TAGS (1) VALUES (NOW, 2)",
             "(insert (into d9 (using power.meters (tag-names groupId) (tags (int 9))) "
             "(columns ts v) (values (row (now) (int 1)))) "
             "(into d10 (using meters (tags (int 1))) (values (row (now) (int 2)))))");

    sl_parse_result *r = tp_parse("INSERT INTO d1 (ts, v) VALUES (1, 2)(3, 4) d2 VALUES (5)");
    const sl_insert *ins = &r->stmts[0]->u.insert;
    assert_int_equal(r->stmts[0]->kind, SL_STMT_INSERT);
    assert_int_equal(ins->n, 2);
    assert_false(ins->items[0].has_using);
    assert_int_equal(ins->items[0].ncols, 2);
    assert_string_equal(ins->items[0].cols[1], "v");
    assert_int_equal(ins->items[0].col_pos[1].col, 21);
    assert_int_equal(ins->items[0].nrows, 2);
    assert_int_equal(ins->items[0].rows[1].n, 2);
    assert_int_equal(ins->items[0].rows[1].items[0]->u.lit.i, 3);
    assert_int_equal(ins->items[1].ncols, 0);
    assert_int_equal(ins->items[1].nrows, 1);
    sl_parse_result_free(r);
}

static void test_delete(void **state)
{
    (void)state;
    tp_check("DELETE FROM d1", "(delete d1)");
    tp_check("DELETE FROM power.d1 WHERE ts < NOW - 1d",
             "(delete power.d1 (where (< (col ts) (- (now) (dur 1d)))))");
    sl_parse_result *r = tp_parse("DELETE FROM d1");
    assert_int_equal(r->stmts[0]->kind, SL_STMT_DELETE);
    assert_null(r->stmts[0]->u.del.where);
    sl_parse_result_free(r);
}

/* ---------------------------------------------------------------- SELECT */

static void test_select_clauses(void **state)
{
    (void)state;
    tp_check("SELECT a + 1", "(select (items (+ (col a) (int 1))))");
    tp_check("SELECT 1+1", "(select (items (+ (int 1) (int 1))))");
    tp_check("SELECT * FROM meters", "(select (items (star)) (from meters))");
    tp_check("SELECT DISTINCT location FROM power.meters m",
             "(select distinct (items (col location)) (from power.meters (alias m)))");
    tp_check("SELECT m.*, m.current AS c, voltage v FROM meters AS m",
             "(select (items (star m) (as (col m.current) c) (as (col voltage) v)) "
             "(from meters (alias m)))");
    tp_check("SELECT _wstart, avg(current) FROM meters WHERE voltage > 200 "
             "PARTITION BY tbname INTERVAL(10s, 2s) SLIDING(5s) FILL(PREV) "
             "ORDER BY _wstart DESC LIMIT 10",
             "(select (items (pseudo _wstart) (func avg (col current))) (from meters) "
             "(where (> (col voltage) (int 200))) (partition-by (col tbname)) "
             "(interval 10s 2s) (sliding 5s) (fill prev) (order-by (desc (pseudo _wstart))) "
             "(limit 10))");
    tp_check("SELECT location, max(voltage) FROM meters WHERE ts > 0 GROUP BY location "
             "HAVING max(voltage) >= 220 ORDER BY location ASC NULLS FIRST, 2 NULLS LAST "
             "LIMIT 5 OFFSET 20",
             "(select (items (col location) (func max (col voltage))) (from meters) "
             "(where (> (col ts) (int 0))) (group-by (col location)) "
             "(having (>= (func max (col voltage)) (int 220))) "
             "(order-by (asc (col location) nulls-first) (asc (int 2) nulls-last)) "
             "(limit 5) (offset 20))");
    tp_check("SELECT * FROM t LIMIT 20, 5", "(select (items (star)) (from t) (limit 5) (offset 20))");
    tp_check("SELECT count(*) FROM t INTERVAL(1m) FILL(NONE)",
             "(select (items (func count (star))) (from t) (interval 1m) (fill none))");
    tp_check("SELECT count(*) FROM t INTERVAL(1m) FILL(NULL)",
             "(select (items (func count (star))) (from t) (interval 1m) (fill null))");
    tp_check("SELECT count(*) FROM t INTERVAL(1m) FILL(NEXT)",
             "(select (items (func count (star))) (from t) (interval 1m) (fill next))");
    tp_check("SELECT count(*) FROM t INTERVAL(1m) FILL(LINEAR)",
             "(select (items (func count (star))) (from t) (interval 1m) (fill linear))");
    tp_check("SELECT avg(a), sum(b) FROM t INTERVAL(1h) FILL(VALUE, 0, -1.5)",
             "(select (items (func avg (col a)) (func sum (col b))) (from t) (interval 1h) "
             "(fill value (int 0) (- (float 1.5))))");
    tp_check("SELECT * FROM (SELECT a, b FROM t WHERE a > 1) q WHERE b < 2",
             "(select (items (star)) (from (select (items (col a) (col b)) (from t) "
             "(where (> (col a) (int 1)))) (alias q)) (where (< (col b) (int 2))))");
    tp_check("SELECT _twstart, count(*) FROM %%trows",
             "(select (items (ph _twstart) (func count (star))) (from %%trows))");
    tp_check("SELECT last(v) FROM %%tbname WHERE ts >= _twstart",
             "(select (items (func last (col v))) (from %%tbname) "
             "(where (>= (col ts) (ph _twstart))))");
    tp_check("SELECT * from information_schema.`ins_streams`",
             "(select (items (star)) (from information_schema.ins_streams))");
    tp_check("SELECT COUNT(DISTINCT location) AS n FROM meters",
             "(select (items (as (func COUNT distinct (col location)) n)) (from meters))");
    tp_check("SELECT a FROM t GROUP BY a, b",
             "(select (items (col a)) (from t) (group-by (col a) (col b)))");
    tp_check("SELECT a FROM t PARTITION BY tbname, groupId ORDER BY a",
             "(select (items (col a)) (from t) (partition-by (col tbname) (col groupId)) "
             "(order-by (asc (col a))))");
}

static void test_select_fields(void **state)
{
    (void)state;
    sl_parse_result *r = tp_parse("  select avg(current) ,  max( voltage )as mv, * from t "
                                  "interval(10s) limit 3;");
    const sl_select *s = r->stmts[0]->u.select;
    assert_int_equal(r->stmts[0]->kind, SL_STMT_SELECT);
    assert_int_equal(s->nitems, 3);
    assert_string_equal(s->items[0].text, "avg(current)");
    assert_null(s->items[0].alias);
    assert_string_equal(s->items[1].text, "max( voltage )");
    assert_string_equal(s->items[1].alias, "mv");
    assert_string_equal(s->items[2].text, "*");
    assert_int_equal(s->items[2].expr->kind, SL_EX_STAR);
    assert_null(s->items[2].expr->u.star.table);
    assert_string_equal(s->text,
                        "select avg(current) ,  max( voltage )as mv, * from t interval(10s) limit 3");
    assert_string_equal(r->stmts[0]->text, s->text);
    assert_int_equal(s->pos.line, 1);
    assert_int_equal(s->pos.col, 3);
    assert_true(s->has_interval);
    assert_int_equal(s->interval.value, 10);
    assert_int_equal(s->interval.unit, 's');
    assert_false(s->has_interval_offset);
    assert_false(s->has_sliding);
    assert_int_equal(s->fill, SL_FILL_NONE_GIVEN);
    assert_true(s->has_limit);
    assert_int_equal(s->limit, 3);
    assert_false(s->has_offset);
    assert_int_equal(s->from->kind, SL_FROM_TABLE);
    assert_null(s->from->alias);
    assert_int_equal(s->from->pos.col, 54);
    assert_null(s->where);
    assert_null(s->having);
    assert_int_equal(s->partition_by.n, 0);
    assert_int_equal(s->group_by.n, 0);
    sl_parse_result_free(r);

    /* without FROM */
    r = tp_parse("SELECT 1+1");
    assert_null(r->stmts[0]->u.select->from);
    assert_string_equal(r->stmts[0]->u.select->items[0].text, "1+1");
    sl_parse_result_free(r);

    /* the subquery keeps its own text, without the parentheses */
    r = tp_parse("SELECT * FROM ( SELECT a FROM t ) AS q");
    s = r->stmts[0]->u.select;
    assert_int_equal(s->from->kind, SL_FROM_SUBQUERY);
    assert_string_equal(s->from->alias, "q");
    assert_string_equal(s->from->subquery->text, "SELECT a FROM t");
    sl_parse_result_free(r);
}

/* ---------------------------------------------------------------- expressions */

typedef struct expr_case {
    const char *expr;
    const char *dump;
} expr_case;

static void test_precedence(void **state)
{
    (void)state;
    static const expr_case cases[] = {
        {"1 + 2 * 3", "(+ (int 1) (* (int 2) (int 3)))"},
        {"(1 + 2) * 3", "(* (+ (int 1) (int 2)) (int 3))"},
        {"1 - 2 - 3", "(- (- (int 1) (int 2)) (int 3))"},
        {"8 / 4 / 2", "(/ (/ (int 8) (int 4)) (int 2))"},
        {"a % 3 + b", "(+ (% (col a) (int 3)) (col b))"},
        {"-a * b", "(* (- (col a)) (col b))"},
        {"- -a", "(- (- (col a)))"},
        {"~a & b", "(& (~ (col a)) (col b))"},
        {"+a", "(col a)"},
        {"a OR b AND c", "(or (col a) (and (col b) (col c)))"},
        {"a AND b OR c", "(or (and (col a) (col b)) (col c))"},
        {"NOT a AND b", "(and (not (col a)) (col b))"},
        {"NOT a = b", "(not (= (col a) (col b)))"},
        {"NOT NOT a", "(not (not (col a)))"},
        {"a = 1 OR NOT b <> 2 AND c", "(or (= (col a) (int 1)) (and (not (<> (col b) (int 2))) (col c)))"},
        {"a != b", "(<> (col a) (col b))"},
        {"a < b", "(< (col a) (col b))"},
        {"a <= b", "(<= (col a) (col b))"},
        {"a > b", "(> (col a) (col b))"},
        {"a >= b", "(>= (col a) (col b))"},
        {"a = b = c", "(= (= (col a) (col b)) (col c))"},
        {"a + 1 > b * 2", "(> (+ (col a) (int 1)) (* (col b) (int 2)))"},
        {"a | b = c", "(= (| (col a) (col b)) (col c))"},
        {"a | b & c", "(| (col a) (& (col b) (col c)))"},
        {"a & b || c", "(& (col a) (|| (col b) (col c)))"},
        {"a || b + c", "(|| (col a) (+ (col b) (col c)))"},
        {"'x' || 'y' || 'z'", "(|| (|| (str 'x') (str 'y')) (str 'z'))"},
        {"a IS NULL", "(is-null (col a))"},
        {"a + 1 IS NOT NULL", "(is-not-null (+ (col a) (int 1)))"},
        {"NOT a IS NULL", "(not (is-null (col a)))"},
        {"a IS NULL AND b IS NOT NULL", "(and (is-null (col a)) (is-not-null (col b)))"},
        {"a IN (1, 2, 3)", "(in (col a) (int 1) (int 2) (int 3))"},
        {"a NOT IN ('x')", "(not-in (col a) (str 'x'))"},
        {"a + 1 IN (b, c * 2)", "(in (+ (col a) (int 1)) (col b) (* (col c) (int 2)))"},
        {"a BETWEEN 1 AND 10", "(between (col a) (int 1) (int 10))"},
        {"a NOT BETWEEN b - 1 AND b + 1 AND c",
         "(and (not-between (col a) (- (col b) (int 1)) (+ (col b) (int 1))) (col c))"},
        {"a LIKE 'd%'", "(like (col a) (str 'd%'))"},
        {"a NOT LIKE 'd\\_%' OR b", "(or (not-like (col a) (str 'd\\\\_%')) (col b))"},
        {"a || 'x' LIKE b", "(like (|| (col a) (str 'x')) (col b))"},
        {"NOT a IN (1) AND b", "(and (not (in (col a) (int 1))) (col b))"},
        {"((a))", "(col a)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        tp_check_expr(cases[i].expr, cases[i].dump);
}

static void test_primaries(void **state)
{
    (void)state;
    static const expr_case cases[] = {
        {"count(*)", "(func count (star))"},
        {"COUNT(DISTINCT x)", "(func COUNT distinct (col x))"},
        {"now", "(now)"},
        {"NOW()", "(now)"},
        {"today()", "(today)"},
        {"NOW + 1s", "(+ (now) (dur 1s))"},
        {"NOW() - 2h", "(- (now) (dur 2h))"},
        {"1700000000000 + 5s", "(+ (int 1700000000000) (dur 5s))"},
        {"f()", "(func f)"},
        {"concat(a, 'x', 1)", "(func concat (col a) (str 'x') (int 1))"},
        {"IF(a > 1, 'hi', 'lo')", "(func IF (> (col a) (int 1)) (str 'hi') (str 'lo'))"},
        {"CAST(a AS BIGINT)", "(cast (col a) BIGINT)"},
        {"cast(_tidlestart / 1000000 as timestamp)",
         "(cast (/ (ph _tidlestart) (int 1000000)) TIMESTAMP)"},
        {"CAST(x AS VARCHAR(20))", "(cast (col x) VARCHAR(20))"},
        {"CAST(x AS int unsigned)", "(cast (col x) INT UNSIGNED)"},
        {"CASE WHEN a > 1 THEN 'a' WHEN a > 0 THEN 'b' ELSE 'c' END",
         "(case (when (> (col a) (int 1)) (str 'a')) (when (> (col a) (int 0)) (str 'b')) "
         "(else (str 'c')))"},
        {"CASE s WHEN 1 THEN 'one' END", "(case (col s) (when (int 1) (str 'one')))"},
        {"t.c", "(col t.c)"},
        {"`t`.`my col`", "(col t.`my col`)"},
        {"tbname", "(col tbname)"},
        {"t.tbname", "(col t.tbname)"},
        {"`select`", "(col select)"},
        {"`a``b`", "(col `a``b`)"},
        {"value + count + period", "(+ (+ (col value) (col count)) (col period))"},
        {"_wstart", "(pseudo _wstart)"},
        {"_WEND", "(pseudo _wend)"},
        {"_wduration", "(pseudo _wduration)"},
        {"_rowts", "(pseudo _rowts)"},
        {"_twstart", "(ph _twstart)"},
        {"_twend", "(ph _twend)"},
        {"_twduration", "(ph _twduration)"},
        {"_twrownum", "(ph _twrownum)"},
        {"_tprev_ts", "(ph _tprev_ts)"},
        {"_tcurrent_ts", "(ph _tcurrent_ts)"},
        {"_tnext_ts", "(ph _tnext_ts)"},
        {"_tprev_localtime", "(ph _tprev_localtime)"},
        {"_tnext_localtime", "(ph _tnext_localtime)"},
        {"_tlocaltime", "(ph _tlocaltime)"},
        {"_tgrpid", "(ph _tgrpid)"},
        {"_tidlestart", "(ph _tidlestart)"},
        {"_tidleend", "(ph _tidleend)"},
        {"_trollup_tbcount", "(ph _trollup_tbcount)"},
        {"%%1", "(ph %%1)"},
        {"%%12", "(ph %%12)"},
        {"%%tbname", "(ph %%tbname)"},
        {"%%TBNAME", "(ph %%tbname)"},
        {"%%rollup_tag", "(ph %%rollup_tag)"},
        {"%%trows", "(ph %%trows)"},
        {"`_twstart`", "(col _twstart)"},
        {"_twstartx", "(col _twstartx)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        tp_check_expr(cases[i].expr, cases[i].dump);

    sl_parse_result *r = tp_parse("SELECT %%3, CAST(x AS NCHAR(7))");
    const sl_expr *e = r->stmts[0]->u.select->items[0].expr;
    assert_int_equal(e->kind, SL_EX_PLACEHOLDER);
    assert_int_equal(e->u.placeholder.ph, SL_PH_PARTITION_COL);
    assert_int_equal(e->u.placeholder.index, 3);
    e = r->stmts[0]->u.select->items[1].expr;
    assert_int_equal(e->kind, SL_EX_CAST);
    assert_int_equal(e->u.cast.type, SL_T_NCHAR);
    assert_int_equal(e->u.cast.width, 7);
    sl_parse_result_free(r);
}

static void test_literals(void **state)
{
    (void)state;
    static const expr_case cases[] = {
        {"0", "(int 0)"},
        {"42", "(int 42)"},
        {"-42", "(- (int 42))"},
        {"9223372036854775807", "(int 9223372036854775807)"},
        {"9223372036854775808", "(uint 9223372036854775808)"},
        {"-9223372036854775808", "(- (uint 9223372036854775808))"},
        {"18446744073709551615", "(uint 18446744073709551615)"},
        {"0x1F", "(int 31)"},
        {"0XfF", "(int 255)"},
        {"0x7fffffffffffffff", "(int 9223372036854775807)"},
        {"0xFFFFFFFFFFFFFFFF", "(uint 18446744073709551615)"},
        {"0x0000000000000000001", "(int 1)"},
        {"1.5", "(float 1.5)"},
        {".25", "(float 0.25)"},
        {"3.", "(float 3)"},
        {"1e3", "(float 1000)"},
        {"1.5E-3", "(float 0.0015)"},
        {"2e+2", "(float 200)"},
        {"0.1", "(float 0.1)"},
        {"1e300", "(float 1e+300)"},
        {"'abc'", "(str 'abc')"},
        {"\"abc\"", "(str 'abc')"},
        {"''", "(str '')"},
        {"'it''s'", "(str 'it''s')"},
        {"\"say \"\"hi\"\"\"", "(str 'say \"hi\"')"},
        {"'a\\'b'", "(str 'a''b')"},
        {"'a\\\"b'", "(str 'a\"b')"},
        {"'\\n\\t\\r\\\\'", "(str '\\n\\t\\r\\\\')"},
        {"'\\%\\_'", "(str '\\\\%\\\\_')"},
        {"'\\q'", "(str 'q')"},
        {"'2025-01-01 00:00:00.000'", "(str '2025-01-01 00:00:00.000')"},
        {"'line1\nline2'", "(str 'line1\\nline2')"},
        {"NULL", "(null)"},
        {"null", "(null)"},
        {"TRUE", "(true)"},
        {"false", "(false)"},
        {"1b", "(dur 1b)"},
        {"2u", "(dur 2u)"},
        {"500a", "(dur 500a)"},
        {"10s", "(dur 10s)"},
        {"5m", "(dur 5m)"},
        {"3h", "(dur 3h)"},
        {"1d", "(dur 1d)"},
        {"2w", "(dur 2w)"},
        {"1n", "(dur 1n)"},
        {"1y", "(dur 1y)"},
        {"9223372036854775807s", "(dur 9223372036854775807s)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        tp_check_expr(cases[i].expr, cases[i].dump);

    /* the values and kinds behind the dumps */
    sl_parse_result *r = tp_parse("SELECT 'a\\0b', 18446744073709551615, 2.5, 10s, TRUE");
    const sl_select *s = r->stmts[0]->u.select;
    assert_int_equal(s->items[0].expr->u.lit.kind, SL_LIT_STRING);
    assert_int_equal(s->items[0].expr->u.lit.len, 3);
    assert_memory_equal(s->items[0].expr->u.lit.s, "a\0b", 4);
    assert_int_equal(s->items[1].expr->u.lit.kind, SL_LIT_UINT);
    assert_true(s->items[1].expr->u.lit.u == UINT64_MAX);
    assert_int_equal(s->items[2].expr->u.lit.kind, SL_LIT_FLOAT);
    assert_true(s->items[2].expr->u.lit.d == 2.5);
    assert_int_equal(s->items[3].expr->u.lit.kind, SL_LIT_DURATION);
    assert_int_equal(s->items[3].expr->u.lit.dur.value, 10);
    assert_int_equal(s->items[3].expr->u.lit.dur.unit, 's');
    assert_int_equal(s->items[3].expr->u.lit.dur.pos.col, 43);
    assert_int_equal(s->items[4].expr->u.lit.kind, SL_LIT_BOOL);
    assert_true(s->items[4].expr->u.lit.b);
    sl_parse_result_free(r);
}

static void test_case_insensitive_keywords(void **state)
{
    (void)state;
    tp_check("sElEcT DiStInCt a As B fRoM t WhErE a iS nOt NuLl",
             "(select distinct (items (as (col a) B)) (from t) (where (is-not-null (col a))))");
    tp_check("create STABLE St (Ts timestamp) tags (G int)",
             "(create-stable St (columns (Ts TIMESTAMP)) (tags (G INT)))");
}

/* ---------------------------------------------------------------- positions and texts */

static void test_positions(void **state)
{
    (void)state;
    const char *sql = "SELECT a,\n"
                      "       b + (c * 2) AS x\n"
                      "FROM db.t\n"
                      "WHERE\td BETWEEN 1 AND 2";
    sl_parse_result *r = tp_parse(sql);
    const sl_stmt *st = r->stmts[0];
    assert_int_equal(st->pos.line, 1);
    assert_int_equal(st->pos.col, 1);
    const sl_select *s = st->u.select;
    const sl_expr *a = s->items[0].expr;
    assert_int_equal(a->pos.line, 1);
    assert_int_equal(a->pos.col, 8);
    const sl_expr *plus = s->items[1].expr;
    assert_int_equal(plus->kind, SL_EX_BINARY);
    assert_int_equal(plus->pos.line, 2);
    assert_int_equal(plus->pos.col, 8);
    const sl_expr *mul = plus->u.binary.right;
    assert_int_equal(mul->kind, SL_EX_BINARY);
    assert_int_equal(mul->pos.line, 2);
    assert_int_equal(mul->pos.col, 13);
    assert_int_equal(mul->u.binary.right->pos.col, 17);
    assert_string_equal(s->items[1].text, "b + (c * 2)");
    assert_int_equal(s->from->table.pos.line, 3);
    assert_int_equal(s->from->table.pos.col, 6);
    const sl_expr *w = s->where;
    assert_int_equal(w->kind, SL_EX_BETWEEN);
    assert_int_equal(w->pos.line, 4);
    assert_int_equal(w->pos.col, 7); /* a tab is one byte */
    assert_int_equal(w->u.between.hi->pos.col, 23);
    sl_parse_result_free(r);

    /* a parenthesised left operand: the node starts at the parenthesis */
    r = tp_parse("SELECT (a + b) * c");
    assert_int_equal(r->stmts[0]->u.select->items[0].expr->pos.col, 8);
    sl_parse_result_free(r);

    /* lines counted through multi-line strings, comments and CRLF */
    r = tp_parse("SELECT 'x\ny', /* a\nb */ z -- c\r\n , w");
    s = r->stmts[0]->u.select;
    assert_int_equal(s->items[1].expr->pos.line, 3);
    assert_int_equal(s->items[1].expr->pos.col, 6);
    assert_int_equal(s->items[2].expr->pos.line, 4);
    assert_int_equal(s->items[2].expr->pos.col, 4);
    sl_parse_result_free(r);
}

static void test_multi_statement(void **state)
{
    (void)state;
    const char *sql = "CREATE DATABASE d;\n"
                      "USE d ;;\n"
                      "  ; -- nothing here\n"
                      "INSERT INTO t VALUES (1) /* trailing */;\n"
                      "SELECT * FROM t";
    sl_parse_result *r = tp_parse(sql);
    assert_int_equal(r->nstmts, 4);
    assert_int_equal(r->stmts[0]->kind, SL_STMT_CREATE_DATABASE);
    assert_string_equal(r->stmts[0]->text, "CREATE DATABASE d");
    assert_int_equal(r->stmts[1]->kind, SL_STMT_USE);
    assert_string_equal(r->stmts[1]->text, "USE d");
    assert_int_equal(r->stmts[1]->pos.line, 2);
    assert_int_equal(r->stmts[1]->pos.col, 1);
    assert_int_equal(r->stmts[2]->kind, SL_STMT_INSERT);
    assert_string_equal(r->stmts[2]->text, "INSERT INTO t VALUES (1)");
    assert_int_equal(r->stmts[2]->pos.line, 4);
    assert_int_equal(r->stmts[3]->kind, SL_STMT_SELECT);
    assert_string_equal(r->stmts[3]->text, "SELECT * FROM t");
    assert_int_equal(r->stmts[3]->pos.line, 5);
    sl_parse_result_free(r);

    /* empty input and lone separators hold no statement */
    static const char *const empties[] = {"", "   ", ";", ";;  ;", "-- only a comment", "/* x */"};
    for (size_t i = 0; i < sizeof(empties) / sizeof(empties[0]); i++) {
        r = tp_parse(empties[i]);
        assert_int_equal(r->nstmts, 0);
        sl_parse_result_free(r);
    }

    /* the text need not be NUL terminated: only len bytes are read */
    const char buf[] = {'S', 'E', 'L', 'E', 'C', 'T', ' ', '7', '9'};
    sl_error err;
    r = NULL;
    assert_int_equal(sl_parse(buf, 8, &r, &err), 0);
    assert_int_equal(r->nstmts, 1);
    assert_int_equal(r->stmts[0]->u.select->items[0].expr->u.lit.i, 7);
    assert_string_equal(r->stmts[0]->text, "SELECT 7");
    sl_parse_result_free(r);
    sl_parse_result_free(NULL);
}

/* ---------------------------------------------------------------- names */

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(sl_stmt_kind_name(SL_STMT_CREATE_DATABASE), "CREATE DATABASE");
    assert_string_equal(sl_stmt_kind_name(SL_STMT_CREATE_SUBTABLES), "CREATE TABLE USING");
    assert_string_equal(sl_stmt_kind_name(SL_STMT_CREATE_STREAM), "CREATE STREAM");
    assert_string_equal(sl_stmt_kind_name(SL_STMT_STOP_STREAM), "STOP STREAM");
    assert_string_equal(sl_stmt_kind_name(SL_STMT_DROP_SNODE), "DROP SNODE");
    assert_string_equal(sl_stmt_kind_name((sl_stmt_kind)99), "UNKNOWN");
    assert_string_equal(sl_placeholder_name(SL_PH_TWSTART), "_twstart");
    assert_string_equal(sl_placeholder_name(SL_PH_TROLLUP_TBCOUNT), "_trollup_tbcount");
    assert_string_equal(sl_placeholder_name(SL_PH_PARTITION_COL), "%%n");
    assert_string_equal(sl_placeholder_name(SL_PH_TROWS), "%%trows");
    assert_string_equal(sl_placeholder_name((sl_placeholder)99), "UNKNOWN");

    /* every keyword is found by its spelling, in any case */
    for (int k = SL_KW__NONE + 1; k < SL_KW__COUNT; k++) {
        const char *name = sl_keyword_name((sl_kw)k);
        assert_int_equal(sl_keyword_lookup(name, strlen(name)), k);
        char lower[64];
        size_t n = strlen(name);
        assert_true(n < sizeof(lower));
        for (size_t i = 0; i <= n; i++)
            lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
        assert_int_equal(sl_keyword_lookup(lower, n), k);
    }
    assert_int_equal(sl_keyword_lookup("SELECTX", 7), SL_KW__NONE);
    assert_int_equal(sl_keyword_lookup("SELEC", 5), SL_KW__NONE);
    assert_int_equal(sl_keyword_lookup("", 0), SL_KW__NONE);
    assert_true(sl_keyword_reserved(SL_KW_SELECT));
    assert_false(sl_keyword_reserved(SL_KW_PERIOD));
    assert_false(sl_keyword_reserved(SL_KW__NONE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_database),
        cmocka_unit_test(test_drop_use_show_describe),
        cmocka_unit_test(test_create_stable),
        cmocka_unit_test(test_create_table),
        cmocka_unit_test(test_drop_tables),
        cmocka_unit_test(test_insert),
        cmocka_unit_test(test_delete),
        cmocka_unit_test(test_select_clauses),
        cmocka_unit_test(test_select_fields),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_primaries),
        cmocka_unit_test(test_literals),
        cmocka_unit_test(test_case_insensitive_keywords),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_multi_statement),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
