/*
 * test_parser_errors.c - what the parser says about malformed SQL, and its limits.
 *
 * A table of malformed statements, each with the exact message and code the user must
 * see (position, offending token, what was expected); the SL_ERANGE and SL_ELIMIT cases
 * (oversized literals, deep nesting, oversized input) at their exact boundaries; and a
 * deterministic mutation run over valid statements checking that whatever comes in, the
 * parser either builds a tree that dumps or reports a positioned error, and never leaks.
 */
#include "test_parser_util.h"

typedef struct error_case {
    const char *sql;
    int code;
    const char *msg;
} error_case;

static const error_case syntax_cases[] = {
    /* statements */
    {"frob", SL_ESYNTAX, "1:1: syntax error near 'frob': expected a statement"},
    {"CREATE VIEW v", SL_ESYNTAX,
     "1:8: syntax error near 'VIEW': expected DATABASE, STABLE, TABLE or STREAM"},
    {"DROP INDEX i", SL_ESYNTAX,
     "1:6: syntax error near 'INDEX': expected DATABASE, STABLE, TABLE, STREAM or SNODE"},
    {"DROP SNODE", SL_ESYNTAX, "1:11: syntax error at end of input: expected an snode id"},
    {"DROP SNODE x", SL_ESYNTAX, "1:12: syntax error near 'x': expected an snode id"},
    {"DROP SNODE ON 3", SL_ESYNTAX, "1:15: syntax error near '3': expected DNODE"},
    {"DROP SNODE 3 4", SL_ESYNTAX, "1:14: syntax error near '4': expected ';' or end of input"},
    {"SHOW FOO", SL_ESYNTAX,
     "1:6: syntax error near 'FOO': expected DATABASES, STABLES, TABLES, STREAMS, VGROUPS, "
     "VNODES, DNODES, SNODES, MNODES or CREATE"},
    {"SHOW db.DATABASES", SL_ESYNTAX,
     "1:9: syntax error near 'DATABASES': expected STABLES, TABLES, STREAMS or VGROUPS"},
    {"SHOW db.VNODES", SL_ESYNTAX,
     "1:9: syntax error near 'VNODES': expected STABLES, TABLES, STREAMS or VGROUPS"},
    {"SHOW VNODES ON 2", SL_ESYNTAX, "1:16: syntax error near '2': expected DNODE"},
    {"SHOW VNODES ON DNODE", SL_ESYNTAX,
     "1:21: syntax error at end of input: expected a dnode id"},
    {"SHOW VNODES ON DNODE 'a'", SL_ESYNTAX,
     "1:22: syntax error near ''a'': expected a dnode id"},
    {"SHOW VNODES ON DNODE -1", SL_ESYNTAX, "1:22: syntax error near '-': expected a dnode id"},
    {"SHOW VNODES ON DNODE 99999999999999999999", SL_ERANGE,
     "1:22: integer literal out of range"},
    {"SHOW VNODES ON DNODE 1 2", SL_ESYNTAX,
     "1:24: syntax error near '2': expected ';' or end of input"},
    {"SHOW DNODES ON DNODE 1", SL_ESYNTAX,
     "1:13: syntax error near 'ON': expected ';' or end of input"},
    {"SHOW VGROUPS ON DNODE 1", SL_ESYNTAX,
     "1:14: syntax error near 'ON': expected ';' or end of input"},
    {"SHOW VGROUPS LIKE", SL_ESYNTAX,
     "1:18: syntax error at end of input: expected a pattern string"},
    {"SHOW CREATE VIEW v", SL_ESYNTAX,
     "1:13: syntax error near 'VIEW': expected DATABASE, STABLE, TABLE or STREAM"},
    {"USE", SL_ESYNTAX, "1:4: syntax error at end of input: expected a database name"},
    {"DESCRIBE", SL_ESYNTAX, "1:9: syntax error at end of input: expected a table name"},
    {"SELECT 1; SELECT 2 3", SL_ESYNTAX,
     "1:20: syntax error near '3': expected ';' or end of input"},
    {"SELECT 1;\nSELECT FROM", SL_ESYNTAX, "2:8: syntax error near 'FROM': expected an expression"},
    /* databases and tables */
    {"CREATE DATABASE", SL_ESYNTAX, "1:16: syntax error at end of input: expected a database name"},
    {"CREATE DATABASE IF NOT d", SL_ESYNTAX, "1:24: syntax error near 'd': expected EXISTS"},
    {"CREATE DATABASE d PRECISION 'xs'", SL_ESYNTAX,
     "1:29: invalid precision 'xs': expected 'ms', 'us' or 'ns'"},
    {"CREATE DATABASE d PRECISION ms", SL_ESYNTAX,
     "1:29: syntax error near 'ms': expected a precision such as 'ms'"},
    {"CREATE DATABASE d PRECISION 'ms' PRECISION 'us'", SL_ESYNTAX,
     "1:34: duplicate option PRECISION"},
    {"CREATE DATABASE d VGROUPS 1 VGROUPS 2", SL_ESYNTAX, "1:29: duplicate option VGROUPS"},
    {"CREATE TABLE t", SL_ESYNTAX, "1:15: syntax error at end of input: expected USING or '('"},
    {"CREATE TABLE t USING st TAGS 1", SL_ESYNTAX, "1:30: syntax error near '1': expected '('"},
    {"CREATE STABLE st (ts TIMESTAMP)", SL_ESYNTAX,
     "1:32: syntax error at end of input: expected TAGS"},
    {"CREATE STABLE st (ts FOO) TAGS (a INT)", SL_ESYNTAX,
     "1:22: syntax error near 'FOO': expected a type name"},
    {"CREATE STABLE st (ts TIMESTAMP UNSIGNED) TAGS (a INT)", SL_ESYNTAX,
     "1:32: syntax error near 'UNSIGNED': expected ',' or ')'"},
    {"CREATE STABLE st (ts TIMESTAMP) TAGS (a INT COMPOSITE KEY)", SL_ESYNTAX,
     "1:45: syntax error near 'COMPOSITE': expected ',' or ')'"},
    {"CREATE STABLE st (s VARCHAR(x)) TAGS (a INT)", SL_ESYNTAX,
     "1:29: syntax error near 'x': expected a length"},
    {"CREATE STABLE st (select INT) TAGS (a INT)", SL_ESYNTAX,
     "1:19: syntax error near 'select': expected a column name"},
    {"DROP TABLE", SL_ESYNTAX, "1:11: syntax error at end of input: expected a table name"},
    /* DML */
    {"INSERT t VALUES (1)", SL_ESYNTAX, "1:8: syntax error near 't': expected INTO"},
    {"INSERT INTO t", SL_ESYNTAX, "1:14: syntax error at end of input: expected VALUES"},
    {"INSERT INTO t VALUES 1", SL_ESYNTAX, "1:22: syntax error near '1': expected '('"},
    {"INSERT INTO t VALUES (1", SL_ESYNTAX,
     "1:24: syntax error at end of input: expected ',' or ')'"},
    {"DELETE t", SL_ESYNTAX, "1:8: syntax error near 't': expected FROM"},
    /* SELECT */
    {"SELECT FROM t", SL_ESYNTAX, "1:8: syntax error near 'FROM': expected an expression"},
    {"SELECT a FROM t WHERE", SL_ESYNTAX,
     "1:22: syntax error at end of input: expected an expression"},
    {"SELECT * FROM WHERE", SL_ESYNTAX, "1:15: syntax error near 'WHERE': expected a table name"},
    {"SELECT * FROM (t)", SL_ESYNTAX, "1:16: syntax error near 't': expected SELECT"},
    {"SELECT * FROM t LIMIT -1", SL_ESYNTAX, "1:23: syntax error near '-': expected an integer"},
    {"SELECT * FROM t LIMIT 1 OFFSET", SL_ESYNTAX,
     "1:31: syntax error at end of input: expected an integer"},
    {"SELECT * FROM t INTERVAL(1s) FILL(FOO)", SL_ESYNTAX,
     "1:35: syntax error near 'FOO': expected NONE, NULL, PREV, NEXT, LINEAR or VALUE"},
    {"SELECT * FROM t INTERVAL(1s) FILL(VALUE)", SL_ESYNTAX,
     "1:40: syntax error near ')': expected ','"},
    {"SELECT * FROM t INTERVAL(10)", SL_ESYNTAX,
     "1:26: syntax error near '10': expected a duration such as 10s"},
    {"SELECT * FROM t ORDER BY a NULLS", SL_ESYNTAX,
     "1:33: syntax error at end of input: expected FIRST or LAST"},
    {"SELECT 1 FROM t GROUP a", SL_ESYNTAX, "1:23: syntax error near 'a': expected BY"},
    {"SELECT a b c", SL_ESYNTAX, "1:12: syntax error near 'c': expected ';' or end of input"},
    {"SELECT 'a' 'b'", SL_ESYNTAX, "1:12: syntax error near ''b'': expected ';' or end of input"},
    {"SELECT a.b.c", SL_ESYNTAX, "1:11: syntax error near '.': expected ';' or end of input"},
    /* expressions */
    {"SELECT (1", SL_ESYNTAX, "1:10: syntax error at end of input: expected ')'"},
    {"SELECT (1\n", SL_ESYNTAX, "2:1: syntax error at end of input: expected ')'"},
    {"SELECT 1 +", SL_ESYNTAX, "1:11: syntax error at end of input: expected an expression"},
    {"SELECT a == b", SL_ESYNTAX, "1:11: syntax error near '=': expected an expression"},
    {"SELECT 1 = NOT 2", SL_ESYNTAX, "1:12: syntax error near 'NOT': expected an expression"},
    {"SELECT CAST(a AS) FROM t", SL_ESYNTAX, "1:17: syntax error near ')': expected a type name"},
    {"SELECT CAST(a) FROM t", SL_ESYNTAX, "1:14: syntax error near ')': expected AS"},
    {"SELECT CASE END", SL_ESYNTAX, "1:13: syntax error near 'END': expected WHEN"},
    {"SELECT CASE WHEN a THEN 1", SL_ESYNTAX,
     "1:26: syntax error at end of input: expected WHEN, ELSE or END"},
    {"SELECT CASE WHEN a 1 END", SL_ESYNTAX, "1:20: syntax error near '1': expected THEN"},
    {"SELECT count(*", SL_ESYNTAX, "1:15: syntax error at end of input: expected ')'"},
    {"SELECT a IS 5", SL_ESYNTAX, "1:13: syntax error near '5': expected NULL or NOT NULL"},
    {"SELECT a IS NOT 5", SL_ESYNTAX, "1:17: syntax error near '5': expected NULL"},
    {"SELECT a IN 1", SL_ESYNTAX, "1:13: syntax error near '1': expected '('"},
    {"SELECT a IN ()", SL_ESYNTAX, "1:14: syntax error near ')': expected an expression"},
    {"SELECT a BETWEEN 1", SL_ESYNTAX, "1:19: syntax error at end of input: expected AND"},
    {"SELECT t.", SL_ESYNTAX, "1:10: syntax error at end of input: expected a column name"},
    {"SELECT today(1)", SL_ESYNTAX, "1:14: syntax error near '1': expected ')'"},
    /* lexical */
    {"SELECT 'abc", SL_ESYNTAX, "1:8: unterminated string literal"},
    {"SELECT \"abc''", SL_ESYNTAX, "1:8: unterminated string literal"},
    {"SELECT 'abc\\'", SL_ESYNTAX, "1:8: unterminated string literal"},
    {"SELECT 1 /* x", SL_ESYNTAX, "1:10: unterminated comment"},
    {"SELECT `abc", SL_ESYNTAX, "1:8: unterminated quoted identifier"},
    {"SELECT ``", SL_ESYNTAX, "1:8: empty quoted identifier"},
    {"SELECT $", SL_ESYNTAX, "1:8: unexpected character '$'"},
    {"SELECT \x01", SL_ESYNTAX, "1:8: unexpected character '\\x01'"},
    {"SELECT a ! b", SL_ESYNTAX, "1:10: unexpected character '!'"},
    {"SELECT %%foo", SL_ESYNTAX, "1:8: unknown placeholder '%%foo'"},
    {"SELECT %%", SL_ESYNTAX, "1:8: unknown placeholder '%%'"},
    {"SELECT %%0", SL_ESYNTAX, "1:8: invalid placeholder '%%0'"},
    {"SELECT %%99999999999", SL_ESYNTAX, "1:8: invalid placeholder '%%99999999999'"},
    {"SELECT 0x", SL_ESYNTAX, "1:8: invalid hex literal '0x'"},
    {"SELECT 0x1g", SL_ESYNTAX, "1:8: invalid hex literal '0x1g'"},
    {"SELECT 10x", SL_ESYNTAX, "1:8: invalid duration '10x': unknown unit 'x'"},
    {"SELECT 1.5s", SL_ESYNTAX, "1:8: invalid duration '1.5s': the value must be an integer"},
    {"SELECT 10ms", SL_ESYNTAX, "1:8: invalid duration '10ms': unknown unit 'ms'"},
    {"SELECT 10S", SL_ESYNTAX, "1:8: invalid duration '10S': unknown unit 'S'"},
    {"SELECT a b xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", SL_ESYNTAX,
     "1:12: syntax error near 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...': expected ';' or "
     "end of input"},
    /* streams */
    {"CREATE STREAM s", SL_ESYNTAX,
     "1:16: syntax error at end of input: expected a trigger: PERIOD, SLIDING, INTERVAL, "
     "SESSION, STATE_WINDOW, EVENT_WINDOW or COUNT_WINDOW"},
    {"CREATE STREAM s INTERVAL(10x) SLIDING(1s) FROM t", SL_ESYNTAX,
     "1:26: invalid duration '10x': unknown unit 'x'"},
    {"CREATE STREAM s PERIOD(10)", SL_ESYNTAX,
     "1:24: syntax error near '10': expected a duration such as 10s"},
    {"CREATE STREAM s INTERVAL(1m) FROM t", SL_ESYNTAX,
     "1:30: syntax error near 'FROM': expected SLIDING"},
    {"CREATE STREAM s SESSION(ts 10s) FROM t", SL_ESYNTAX,
     "1:28: syntax error near '10s': expected ','"},
    {"CREATE STREAM s STATE_WINDOW(a) EXTEND(-1) FROM t", SL_ESYNTAX,
     "1:40: syntax error near '-': expected an integer"},
    {"CREATE STREAM s STATE_WINDOW(c) TRUE_FOR(1s, 2s, 3s, 4s) FROM t", SL_ESYNTAX,
     "1:52: syntax error near ',': expected ')'"},
    {"CREATE STREAM s STATE_WINDOW(a) TRUE_FOR(COUNT) FROM t", SL_ESYNTAX,
     "1:47: syntax error near ')': expected an integer"},
    {"CREATE STREAM s STATE_WINDOW(a) TRUE_FOR(10m AND 5) FROM t", SL_ESYNTAX,
     "1:50: syntax error near '5': expected COUNT"},
    {"CREATE STREAM s STATE_WINDOW(a) TRUE_FOR(x) FROM t", SL_ESYNTAX,
     "1:42: syntax error near 'x': expected a duration such as 10s or COUNT n"},
    {"CREATE STREAM s EVENT_WINDOW(a > 1) FROM t", SL_ESYNTAX,
     "1:30: syntax error near 'a': expected START"},
    {"CREATE STREAM s EVENT_WINDOW(START WITH a > 1) FROM t", SL_ESYNTAX,
     "1:46: syntax error near ')': expected END WITH"},
    {"CREATE STREAM s COUNT_WINDOW(10, 'x') FROM t", SL_ESYNTAX,
     "1:34: syntax error near ''x'': expected an integer or a column name"},
    {"CREATE STREAM s COUNT_WINDOW(10, 2, 3) FROM t", SL_ESYNTAX,
     "1:37: syntax error near '3': expected a column name"},
    {"CREATE STREAM s PERIOD(1s) FROM t PARTITION tbname", SL_ESYNTAX,
     "1:45: syntax error near 'tbname': expected BY"},
    {"CREATE STREAM s PERIOD(1s) STREAM_OPTIONS(BOGUS)", SL_ESYNTAX,
     "1:43: syntax error near 'BOGUS': expected a stream option"},
    {"CREATE STREAM s PERIOD(1s) STREAM_OPTIONS(WATERMARK(10s) IGNORE_DISORDER)", SL_ESYNTAX,
     "1:58: syntax error near 'IGNORE_DISORDER': expected '|' or ')'"},
    {"CREATE STREAM s PERIOD(1s) STREAM_OPTIONS(MAX_DELAY)", SL_ESYNTAX,
     "1:52: syntax error near ')': expected '('"},
    {"CREATE STREAM s PERIOD(1s) NOTIFY(ws)", SL_ESYNTAX,
     "1:35: syntax error near 'ws': expected a URL string such as 'ws://host:port'"},
    {"CREATE STREAM s PERIOD(1s) NOTIFY('ws://x') ON (OPEN)", SL_ESYNTAX,
     "1:49: syntax error near 'OPEN': expected WINDOW_OPEN, WINDOW_CLOSE, IDLE or RESUME"},
    {"CREATE STREAM s PERIOD(1s) NOTIFY('ws://a') NOTIFY_OPTIONS(ON_FAILURE_PAUSE)", SL_ESYNTAX,
     "1:60: syntax error near 'ON_FAILURE_PAUSE': expected NOTIFY_HISTORY"},
    {"CREATE STREAM s PERIOD(1s) INTO db.", SL_ESYNTAX,
     "1:36: syntax error at end of input: expected a table name"},
    {"CREATE STREAM s PERIOD(1s) INTO t (a COMPOSITE)", SL_ESYNTAX,
     "1:47: syntax error near ')': expected KEY"},
    {"CREATE STREAM s PERIOD(1s) TAGS (a INT)", SL_ESYNTAX,
     "1:39: syntax error near ')': expected AS"},
    {"CREATE STREAM s PERIOD(1s) AS INSERT INTO t VALUES (1)", SL_ESYNTAX,
     "1:31: syntax error near 'INSERT': expected SELECT"},
    {"START STREAM IGNORE UNTREATED", SL_ESYNTAX,
     "1:30: syntax error at end of input: expected a stream name"},
    {"STOP STREAM", SL_ESYNTAX, "1:12: syntax error at end of input: expected a stream name"},
    {"START s", SL_ESYNTAX, "1:7: syntax error near 's': expected STREAM"},
    /* out of range */
    {"SELECT 99999999999999999999", SL_ERANGE, "1:8: integer literal out of range"},
    {"SELECT 18446744073709551616", SL_ERANGE, "1:8: integer literal out of range"},
    {"SELECT 0x10000000000000000", SL_ERANGE, "1:8: integer literal out of range"},
    {"SELECT 9223372036854775808s", SL_ERANGE, "1:8: integer literal out of range"},
    {"SELECT 1e400", SL_ERANGE, "1:8: float literal out of range"},
    {"SELECT * FROM t LIMIT 9223372036854775808", SL_ERANGE, "1:23: integer literal out of range"},
    {"CREATE STABLE st (s VARCHAR(4294967296)) TAGS (a INT)", SL_ERANGE,
     "1:29: integer literal out of range"},
    {"CREATE STREAM s COUNT_WINDOW(18446744073709551615) FROM t", SL_ERANGE,
     "1:30: integer literal out of range"},
};

static void test_syntax_errors(void **state)
{
    (void)state;
    assert_true(sizeof(syntax_cases) / sizeof(syntax_cases[0]) >= 40);
    for (size_t i = 0; i < sizeof(syntax_cases) / sizeof(syntax_cases[0]); i++)
        tp_check_error(syntax_cases[i].sql, syntax_cases[i].code, syntax_cases[i].msg);
}

/* An earlier error in a statement list wins over a later bad token, and vice versa. */
static void test_first_error_wins(void **state)
{
    (void)state;
    tp_check_error("SELECT FROM; SELECT 'open", SL_ESYNTAX,
                   "1:8: syntax error near 'FROM': expected an expression");
    tp_check_error("SELECT 1; SELECT 10x; SELECT FROM", SL_ESYNTAX,
                   "1:18: invalid duration '10x': unknown unit 'x'");
    /* a bad token read ahead (after IF) is reported only once it is reached */
    tp_check_error("DROP TABLE IF $", SL_ESYNTAX, "1:15: unexpected character '$'");
}

/* ---------------------------------------------------------------- limits */

static void expect_depth_ok(char *sql, int height)
{
    sl_parse_result *r = tp_parse(sql);
    assert_int_equal(r->nstmts, 1);
    char *d = tp_dump_stmt(r->stmts[0]);
    assert_true(strlen(d) > (size_t)height);
    free(d);
    sl_parse_result_free(r);
    free(sql);
}

static void expect_depth_error(char *sql, int col)
{
    char msg[96];
    snprintf(msg, sizeof(msg), "1:%d: nesting too deep (more than 200 levels)", col);
    tp_check_error(sql, SL_ELIMIT, msg);
    free(sql);
}

static void test_depth_limits(void **state)
{
    (void)state;
    assert_int_equal(SL_SQL_MAX_DEPTH, 200);
    /* parentheses: 200 levels are accepted, the 201st '(' (column 7 + 201) is refused */
    expect_depth_ok(tp_repeat("SELECT ", "(", 200, "1", ")", 200, ""), 0);
    expect_depth_error(tp_repeat("SELECT ", "(", 201, "1", ")", 201, ""), 208);
    /* a left-leaning chain is as deep as it is long: the 201st '+' is at 7 + 2 * 201 */
    expect_depth_ok(tp_repeat("SELECT 1", "+1", 200, "", "", 0, ""), 200);
    expect_depth_error(tp_repeat("SELECT 1", "+1", 201, "", "", 0, ""), 409);
    expect_depth_error(tp_repeat("SELECT * FROM t WHERE a = 1", " OR a = 1", 201, "", "", 0, ""),
                       29 + 9 * 199); /* (= a 1) is one level: the 200th OR is the 201st */
    /* prefix operators */
    expect_depth_ok(tp_repeat("SELECT ", "- ", 200, "1", "", 0, ""), 200);
    expect_depth_error(tp_repeat("SELECT ", "- ", 201, "1", "", 0, ""), 408);
    expect_depth_error(tp_repeat("SELECT ", "NOT ", 201, "1", "", 0, ""), 808);
    expect_depth_error(tp_repeat("SELECT ", "~", 201, "1", "", 0, ""), 208);
    expect_depth_error(tp_repeat("SELECT ", "+", 201, "1", "", 0, ""), 208);
    /* calls and CASE */
    expect_depth_ok(tp_repeat("SELECT ", "f(", 200, "1", ")", 200, ""), 200);
    expect_depth_error(tp_repeat("SELECT ", "f(", 201, "1", ")", 201, ""), 409);
    expect_depth_error(tp_repeat("SELECT ", "CASE WHEN ", 201, "1", " THEN 1 END", 201, ""),
                       8 + 10 * 200);
    expect_depth_error(tp_repeat("SELECT ", "a IN (", 201, "1", ")", 201, ""), 13 + 6 * 200);
    /* subqueries */
    expect_depth_ok(tp_repeat("SELECT * FROM ", "(SELECT * FROM ", 200, "t", ")", 200, ""), 200);
    expect_depth_error(tp_repeat("SELECT * FROM ", "(SELECT * FROM ", 201, "t", ")", 201, ""),
                       15 + 15 * 200);
    /* far too deep: refused at the limit, without running out of stack */
    expect_depth_error(tp_repeat("SELECT ", "(", 1000000, "", "", 0, ""), 208);
    expect_depth_error(tp_repeat("CREATE STREAM s PERIOD(1s) AS SELECT ", "-(", 500000, "", "", 0, ""),
                       38 + 2 * 100);
}

static void test_length_limit(void **state)
{
    (void)state;
    size_t len = (size_t)SL_SQL_MAX_LEN + 1;
    char *sql = malloc(len);
    assert_non_null(sql);
    memset(sql, ' ', len);
    memcpy(sql, "SELECT 1", 8);
    tp_check_error_n(sql, len, SL_ELIMIT, "1:1: SQL text too long: 16777217 bytes (at most 16777216)");
    /* exactly at the limit it is parsed */
    sl_parse_result *r = NULL;
    sl_error err;
    assert_int_equal(sl_parse(sql, len - 1, &r, &err), 0);
    assert_int_equal(r->nstmts, 1);
    sl_parse_result_free(r);
    free(sql);
}

/* ---------------------------------------------------------------- mutation run */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
    /* xorshift64*: fixed seed, so a failure reproduces */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static const char *const seeds[] = {
    "CREATE DATABASE IF NOT EXISTS db PRECISION 'us' VGROUPS 4",
    "CREATE STABLE st (ts TIMESTAMP, v VARCHAR(8) COMPOSITE KEY) TAGS (g INT UNSIGNED)",
    "CREATE TABLE d1 USING st (g) TAGS (1) d2 USING st TAGS (2)",
    "INSERT INTO d1 USING st TAGS (1) (ts, v) VALUES (NOW + 1s, 'x') (1700000000000, NULL)",
    "SELECT DISTINCT a AS x, t.*, count(*) FROM (SELECT * FROM t) q WHERE a NOT BETWEEN 1 "
    "AND 2 OR b IN (1, 2) PARTITION BY tbname INTERVAL(1m, 1s) SLIDING(30s) FILL(VALUE, 1) "
    "GROUP BY a HAVING count(*) > 1 ORDER BY a DESC NULLS LAST LIMIT 5, 10",
    "SELECT CASE x WHEN 1 THEN 'a' ELSE CAST(y AS VARCHAR(4)) END, -~1, 'a' || \"b\"",
    "CREATE STREAM IF NOT EXISTS db.s STATE_WINDOW(a, b) EXTEND(1) ZEROTH_STATE(1, NO_ZEROTH) "
    "TRUE_FOR(5s, start(COUNT 2), end(1m OR COUNT 3)) FROM t PARTITION BY tbname "
    "STREAM_OPTIONS(WATERMARK(1s) | FILL_HISTORY('2025-01-01') | EVENT_TYPE(IDLE|RESUME)) "
    "NOTIFY('ws://a:1') ON (WINDOW_OPEN) WHERE x > 1 NOTIFY_OPTIONS(NOTIFY_HISTORY) "
    "INTO o NODELAY_CREATE_SUBTABLE OUTPUT_SUBTABLE(CONCAT('a', %%1)) (ts, k COMPOSITE KEY) "
    "TAGS (g INT AS %%1) AS SELECT _twstart, count(*) FROM %%trows",
    "CREATE STREAM s EVENT_WINDOW(START WITH (a > 1, b > 2) END WITH c) FROM t",
    "CREATE STREAM s COUNT_WINDOW(10, 2, a, b) FROM t ROLLUP BY loc",
    "START STREAM IF EXISTS IGNORE UNTREATED db.s; STOP STREAM s; DROP STREAM a, b",
};

static void test_mutations(void **state)
{
    (void)state;
    static const char alphabet[] = "()'\"`,;.*+-/%=<>!|&~ \n0123456789xsmhdAZaz_%";
    char buf[1024];
    for (int iter = 0; iter < 20000; iter++) {
        const char *seed = seeds[rng() % (sizeof(seeds) / sizeof(seeds[0]))];
        size_t len = strlen(seed);
        memcpy(buf, seed, len);
        int edits = 1 + (int)(rng() % 4);
        for (int e = 0; e < edits && len > 0; e++) {
            size_t at = rng() % len;
            switch (rng() % 4) {
            case 0: /* replace a byte */
                buf[at] = alphabet[rng() % (sizeof(alphabet) - 1)];
                break;
            case 1: /* delete a byte */
                memmove(buf + at, buf + at + 1, len - at - 1);
                len--;
                break;
            case 2: /* insert a byte */
                if (len + 1 < sizeof(buf)) {
                    memmove(buf + at + 1, buf + at, len - at);
                    buf[at] = alphabet[rng() % (sizeof(alphabet) - 1)];
                    len++;
                }
                break;
            default: /* truncate */
                len = at;
                break;
            }
        }
        sl_parse_result *r = NULL;
        sl_error err;
        sl_error_clear(&err);
        int rc = sl_parse(buf, len, &r, &err);
        if (rc == 0) {
            for (int i = 0; i < r->nstmts; i++) {
                char *d = tp_dump_stmt(r->stmts[i]);
                assert_true(d[0] == '(');
                free(d);
            }
            sl_parse_result_free(r);
        } else {
            assert_null(r);
            assert_true(rc == SL_ESYNTAX || rc == SL_ERANGE || rc == SL_ELIMIT);
            assert_int_equal(err.code, rc);
            char prefix[32];
            snprintf(prefix, sizeof(prefix), "%d:%d: ", err.line, err.col);
            assert_true(err.line >= 1 && err.col >= 1);
            assert_true(strncmp(err.msg, prefix, strlen(prefix)) == 0);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_first_error_wins),
        cmocka_unit_test(test_depth_limits),
        cmocka_unit_test(test_length_limit),
        cmocka_unit_test(test_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
