/*
 * test_unparse.c - tests of the AST -> SQL unparser (common/sql/unparse.h).
 *
 * The unparser must be the parser's inverse: for every SELECT the parser accepts,
 * parse -> unparse -> parse yields a tree with the identical canonical dump, and the
 * printed text is a fixed point (unparsing the re-parsed tree prints the same text). That
 * is checked over every SELECT harvested from the parser and executor tests, the AS
 * queries of every CREATE STREAM in those tests and in the spec, and hand-written corner
 * cases. Exact expected texts pin the output format; the substitution hook is checked for
 * placeholders, FROM %%trows / %%tbname with and without a WHERE, nested subqueries and
 * refusals.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/sql/parser.h"
#include "common/sql/unparse.h"

/* Every SELECT statement found in string literals of tests/unit/test_parser*.c and
 * test_exec*.c that parses (harvested once, copied here). */
static const char *const harvested_selects[] = {
    "SELECT a + 1",
    "SELECT 1+1",
    "SELECT * FROM meters",
    "SELECT DISTINCT location FROM power.meters m",
    "SELECT m.*, m.current AS c, voltage v FROM meters AS m",
    "SELECT _wstart, avg(current) FROM meters WHERE voltage > 200 PARTITION BY tbname INTERVAL(10s, 2s) SLIDING(5s) FILL(PREV) ORDER BY _wstart DESC LIMIT 10",
    "SELECT location, max(voltage) FROM meters WHERE ts > 0 GROUP BY location HAVING max(voltage) >= 220 ORDER BY location ASC NULLS FIRST, 2 NULLS LAST LIMIT 5 OFFSET 20",
    "SELECT * FROM t LIMIT 20, 5",
    "SELECT count(*) FROM t INTERVAL(1m) FILL(NONE)",
    "SELECT count(*) FROM t INTERVAL(1m) FILL(NULL)",
    "SELECT count(*) FROM t INTERVAL(1m) FILL(NEXT)",
    "SELECT count(*) FROM t INTERVAL(1m) FILL(LINEAR)",
    "SELECT avg(a), sum(b) FROM t INTERVAL(1h) FILL(VALUE, 0, -1.5)",
    "SELECT * FROM (SELECT a, b FROM t WHERE a > 1) q WHERE b < 2",
    "SELECT _twstart, count(*) FROM %%trows",
    "SELECT last(v) FROM %%tbname WHERE ts >= _twstart",
    "SELECT * from information_schema.`ins_streams`",
    "SELECT COUNT(DISTINCT location) AS n FROM meters",
    "SELECT a FROM t GROUP BY a, b",
    "SELECT a FROM t PARTITION BY tbname, groupId ORDER BY a",
    "  select avg(current) ,  max( voltage )as mv, * from t interval(10s) limit 3;",
    "select avg(current) ,  max( voltage )as mv, * from t interval(10s) limit 3",
    "SELECT * FROM ( SELECT a FROM t ) AS q",
    "SELECT a FROM t",
    "SELECT %%3, CAST(x AS NCHAR(7))",
    "SELECT 'a\\0b', 18446744073709551615, 2.5, 10s, TRUE",
    "sElEcT DiStInCt a As B fRoM t WhErE a iS nOt NuLl",
    "SELECT a,\n       b + (c * 2) AS x\nFROM db.t\nWHERE\td BETWEEN 1 AND 2",
    "SELECT (a + b) * c",
    "SELECT 'x\ny',  z -- c\r\n , w",
    "SELECT * FROM t",
    "SELECT 7",
    "SELECT 1",
    "SELECT * FROM t WHERE a = 1",
    "SELECT DISTINCT a AS x, t.*, count(*) FROM (SELECT * FROM t) q WHERE a NOT BETWEEN 1 AND 2 OR b IN (1, 2) PARTITION BY tbname INTERVAL(1m, 1s) SLIDING(30s) FILL(VALUE, 1) GROUP BY a HAVING count(*) > 1 ORDER BY a DESC NULLS LAST LIMIT 5, 10",
    "SELECT CASE x WHEN 1 THEN 'a' ELSE CAST(y AS VARCHAR(4)) END, -~1, 'a' || \"b\"",
    "SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows",
    "SELECT * FROM d2",
    "SELECT ts, loc, gid FROM d2",
    "SELECT * FROM e",
    "SELECT s, a FROM t",
    "SELECT a, b * 2 AS bb, a + 1, s FROM t",
    "SELECT a / 2 FROM t WHERE a IS NOT NULL",
    "SELECT tbname, loc, volt + gid, ts FROM meters",
    "SELECT t.a, x.b FROM t x WHERE x.a > 3",
    "SELECT t.a FROM t WHERE t.a < 0",
    "SELECT 7, a FROM t WHERE a = 3",
    "SELECT _rowts, a FROM t WHERE a = 3",
    "SELECT a, a FROM t WHERE ts = 1000",
    "SELECT * FROM t ORDER BY a DESC LIMIT 2",
    "SELECT a > 2, a IS NULL FROM t WHERE ts <= 3000",
    "SELECT a FROM db.t WHERE ts = 1000",
    "SELECT a FROM t WHERE ts = 1000",
    "SELECT 1+1, 'abc', 2.5 * 2, NULL",
    "SELECT 7 AS seven",
    "SELECT count(*), max(1 + 1), sum(3)",
    "SELECT ts FROM t WHERE a = 3",
    "SELECT ts FROM t WHERE a != 3",
    "SELECT ts FROM t WHERE a <> 3",
    "SELECT ts FROM t WHERE a < 3",
    "SELECT ts FROM t WHERE a <= 3",
    "SELECT ts FROM t WHERE a > 3",
    "SELECT ts FROM t WHERE a >= 3",
    "SELECT ts FROM t WHERE b >= 2.5",
    "SELECT ts FROM t WHERE a BETWEEN 1 AND 4",
    "SELECT ts FROM t WHERE a NOT BETWEEN 1 AND 4",
    "SELECT ts FROM t WHERE a IN (1, 10)",
    "SELECT ts FROM t WHERE a NOT IN (1, 10)",
    "SELECT ts FROM t WHERE a IS NULL",
    "SELECT ts FROM t WHERE b IS NOT NULL",
    "SELECT ts FROM t WHERE s LIKE 'x%'",
    "SELECT ts FROM t WHERE s NOT LIKE 'x'",
    "SELECT ts FROM t WHERE s = 'y'",
    "SELECT ts FROM t WHERE s > 'x'",
    "SELECT ts FROM t WHERE (a > 2 OR b < 1) AND NOT s = 'y'",
    "SELECT ts FROM t WHERE a > 2 OR s IS NULL",
    "SELECT ts FROM t WHERE a * 2 = 8",
    "SELECT ts FROM t WHERE a + b > 5",
    "SELECT ts FROM t WHERE a > 100",
    "SELECT ts FROM t WHERE 1 = 0",
    "SELECT ts FROM t WHERE 1 = 1 AND a = 1",
    "SELECT ts FROM t WHERE ts >= '1970-01-01 00:00:03'",
    "SELECT tbname, ts FROM meters WHERE loc = 'LA'",
    "SELECT ts FROM meters WHERE tbname = 'd3'",
    "SELECT ts FROM meters WHERE gid >= 2 AND cur > 20",
    "SELECT ts FROM meters WHERE tbname IN ('d1', 'd2') AND volt IS NULL",
    "SELECT count(*), count(a), sum(a), avg(a), min(a), max(a), first(a), last(a), last_row(a), spread(a), stddev(a) FROM t",
    "SELECT count(b), sum(b), avg(b), min(b), max(b), first(b), last(b), last_row(b), spread(b), stddev(b) FROM t",
    "SELECT count(s), min(s), max(s), first(s), last(s) FROM t",
    "SELECT count(*), count(a), sum(a), avg(a), min(a), max(a), first(a), last(a), last_row(a), spread(a), stddev(a), sum(b), min(s) FROM t",
    "SELECT count(*), count(cur), sum(volt), first(cur), last(cur), last_row(volt), first(ts), last(ts), spread(ts) FROM meters",
    "SELECT sum(gid), avg(gid), spread(gid), count(loc), max(loc), first(loc), min(tbname), last(tbname), last_row(gid) FROM meters",
    "SELECT loc, sum(gid), min(tbname), max(tbname) FROM meters PARTITION BY loc",
    "SELECT sum(a) * 2, max(a) - min(a), avg(a * 10), count(*) + 1 FROM t",
    "SELECT count(*), count(*) AS n FROM t",
    "SELECT count(*), sum(a), min(b) FROM t WHERE a > 0",
    "SELECT count(*), count(a), sum(a), avg(a), min(a), max(a), first(a), last(a), last_row(a), spread(a), stddev(a) FROM t WHERE a IS NULL",
    "SELECT count(*), count(a), sum(a), avg(a), min(a), max(a), first(a), last(a), last_row(a), spread(a), stddev(a) FROM e",
    "SELECT count(*), count(a), sum(a), avg(a), min(a), max(a), first(a), last(a), last_row(a), spread(a), stddev(a) FROM t WHERE a > 100",
    "SELECT count(*), sum(cur) FROM meters WHERE ts > 100000",
    "SELECT s, count(*) FROM t WHERE a > 100 GROUP BY s",
    "SELECT count(*) FROM e INTERVAL(10s)",
    "SELECT tbname, count(*) FROM meters WHERE ts > 100000 PARTITION BY tbname",
    "SELECT s, count(*), sum(a) FROM t GROUP BY s",
    "SELECT count(*) FROM t GROUP BY s",
    "SELECT max(a), s FROM t GROUP BY s",
    "SELECT loc, count(*), avg(cur), max(volt), stddev(cur) FROM meters GROUP BY loc",
    "SELECT gid, count(*) FROM meters GROUP BY gid",
    "SELECT loc, gid, sum(volt) FROM meters GROUP BY loc, gid",
    "SELECT a % 2, count(*) FROM t WHERE a IS NOT NULL GROUP BY a % 2",
    "SELECT gid * 10 + 1, count(*) FROM meters GROUP BY gid * 10 + 1",
    "SELECT loc, volt IS NULL, count(*) FROM meters GROUP BY loc, volt IS NULL",
    "SELECT gid + 100, sum(volt) FROM meters GROUP BY gid",
    "SELECT tbname, count(*), last(cur), sum(volt) FROM meters PARTITION BY tbname",
    "SELECT count(*) FROM meters PARTITION BY tbname",
    "SELECT loc, tbname, count(*) FROM meters PARTITION BY loc, tbname",
    "SELECT s, ts FROM t PARTITION BY s",
    "SELECT loc, ts FROM meters PARTITION BY loc",
    "SELECT tbname, ts FROM meters WHERE volt > 215 PARTITION BY tbname",
    "SELECT _wstart, _wend, _wduration, count(*), sum(a) FROM t INTERVAL(10s)",
    "SELECT _wstart, _wend, _wduration, count(*) FROM t INTERVAL(10s)",
    "SELECT _wstart, count(*) FROM t WHERE ts < 5000 OR ts > 20000 INTERVAL(10s)",
    "SELECT _wstart, _wend, count(*) FROM meters WHERE ts >= 12000 INTERVAL(10s)",
    "SELECT _wstart FROM t INTERVAL(1m)",
    "SELECT _wstart, count(*) FROM t INTERVAL(1500a)",
    "SELECT _wend - _wstart, max(a) FROM t INTERVAL(10s)",
    "SELECT loc, _wstart, count(*), sum(volt) FROM meters PARTITION BY loc INTERVAL(10s)",
    "SELECT _wstart, _wend, count(*), sum(a) FROM t INTERVAL(10s, 2s)",
    "SELECT _wstart, _wend, count(*), sum(a), first(a), last(a) FROM t INTERVAL(10s) SLIDING(5s)",
    "SELECT _wstart, count(*) FROM t INTERVAL(10s) SLIDING(10s)",
    "SELECT _wstart, count(*) FROM t WHERE ts <= 3000 INTERVAL(10s) SLIDING(4s)",
    "SELECT _wstart, count(*) FROM t WHERE ts >= 11000 INTERVAL(10s, 1s) SLIDING(5s)",
    "SELECT tbname, _wstart, count(*), max(cur) FROM meters PARTITION BY tbname INTERVAL(10s)",
    "SELECT s, _wstart, count(*) FROM t PARTITION BY s INTERVAL(10s)",
    "SELECT tbname, _wstart, count(*) FROM meters WHERE gid = 2 OR gid = 3 PARTITION BY tbname INTERVAL(10s) SLIDING(5s)",
    "SELECT s, count(*) FROM t GROUP BY s HAVING count(*) > 1",
    "SELECT s FROM t GROUP BY s HAVING sum(a) > 4",
    "SELECT s, count(*) FROM t GROUP BY s HAVING s IS NULL OR s = 'z'",
    "SELECT count(*) FROM t HAVING count(*) > 3",
    "SELECT count(*) FROM t HAVING count(*) > 6",
    "SELECT _wstart, count(*) FROM t INTERVAL(10s) HAVING count(*) >= 2",
    "SELECT tbname, avg(cur) FROM meters PARTITION BY tbname HAVING avg(cur) > 15",
    "SELECT s FROM t GROUP BY s HAVING count(*) > 1 ORDER BY max(a)",
    "SELECT s FROM t GROUP BY s HAVING count(*) > 1 ORDER BY max(a) DESC",
    "SELECT 1 FROM t HAVING count(*) > 1",
    "SELECT ts, a FROM t ORDER BY a",
    "SELECT ts, a FROM t ORDER BY a ASC",
    "SELECT ts, a FROM t ORDER BY a DESC",
    "SELECT ts, a FROM t ORDER BY a NULLS LAST",
    "SELECT ts, a FROM t ORDER BY a DESC NULLS FIRST",
    "SELECT ts, b * 2 AS bb FROM t ORDER BY bb DESC",
    "SELECT s, a FROM t ORDER BY 1, 2 DESC",
    "SELECT ts FROM t ORDER BY a * -1",
    "SELECT s FROM t ORDER BY b DESC, ts DESC",
    "SELECT a + 1 FROM t WHERE a > 0 ORDER BY a + 1 DESC",
    "SELECT s, b FROM t ORDER BY s DESC, b",
    "SELECT tbname, ts FROM meters ORDER BY gid DESC, ts",
    "SELECT ts, tbname FROM meters ORDER BY ts",
    "SELECT s, count(*) FROM t GROUP BY s ORDER BY sum(a) DESC",
    "SELECT tbname, count(*) AS n FROM meters PARTITION BY tbname ORDER BY n, tbname",
    "SELECT count(*) FROM meters GROUP BY loc ORDER BY loc",
    "SELECT _wstart, count(*) FROM t INTERVAL(10s) ORDER BY _wstart DESC",
    "SELECT _wstart, count(*) FROM t INTERVAL(10s) ORDER BY 2",
    "SELECT DISTINCT s FROM t ORDER BY s",
    "SELECT ts FROM t ORDER BY ts LIMIT 2",
    "SELECT ts FROM t ORDER BY ts LIMIT 2 OFFSET 3",
    "SELECT ts FROM t ORDER BY ts LIMIT 3, 2",
    "SELECT ts FROM t ORDER BY ts LIMIT 10 OFFSET 5",
    "SELECT ts FROM t ORDER BY ts LIMIT 10 OFFSET 6",
    "SELECT ts FROM t LIMIT 0",
    "SELECT ts FROM t ORDER BY ts DESC LIMIT 1",
    "SELECT ts FROM meters LIMIT 3 OFFSET 2",
    "SELECT ts FROM meters LIMIT 1 OFFSET 7",
    "SELECT ts FROM meters LIMIT 5",
    "SELECT tbname, count(*) FROM meters PARTITION BY tbname LIMIT 2 OFFSET 1",
    "SELECT _wstart FROM t INTERVAL(10s) LIMIT 1 OFFSET 1",
    "SELECT DISTINCT s FROM t",
    "SELECT DISTINCT loc FROM meters",
    "SELECT DISTINCT loc, gid FROM meters",
    "SELECT DISTINCT a % 2 FROM t WHERE a IS NOT NULL",
    "SELECT DISTINCT tbname FROM meters WHERE volt IS NULL",
    "SELECT DISTINCT loc FROM meters ORDER BY loc",
    "SELECT DISTINCT loc FROM meters LIMIT 1",
    "SELECT avg(a) FROM (SELECT ts, a FROM t WHERE a > 0)",
    "SELECT avg(c) FROM (SELECT ts, a * 2 AS c FROM t)",
    "SELECT max(n), min(n), sum(n) FROM (SELECT tbname, count(*) AS n FROM meters PARTITION BY tbname)",
    "SELECT count(*) FROM (SELECT _wstart, count(*) FROM t INTERVAL(10s))",
    "SELECT _wstart, sum(c) FROM (SELECT ts, a AS c FROM t) INTERVAL(10s)",
    "SELECT first(c), last(c) FROM (SELECT ts, a AS c FROM t)",
    "SELECT q.n FROM (SELECT s, count(*) AS n FROM t GROUP BY s) q WHERE q.n > 1 ORDER BY q.s DESC",
    "SELECT * FROM (SELECT ts, a FROM t WHERE a > 3)",
    "SELECT tb, count(*), sum(v) FROM (SELECT tbname AS tb, ts, volt AS v FROM meters) PARTITION BY tb",
    "SELECT tb, _wstart, count(*) FROM (SELECT ts, tbname AS tb FROM meters) PARTITION BY tb INTERVAL(10s)",
    "SELECT _wstart, n FROM (SELECT _wstart, count(*) AS n FROM t INTERVAL(10s)) WHERE n > 1",
    "SELECT max(_wstart), min(_wend) FROM (SELECT _wstart, _wend, count(*) FROM t INTERVAL(10s))",
    "SELECT sum(x) FROM (SELECT ts, c + 1 AS x FROM (SELECT ts, a AS c FROM t))",
    "SELECT ts FROM t WHERE ts >= '1970-01-01 00:00:02' AND ts < '1970-01-01 00:00:12'",
    "SELECT ts FROM t WHERE a > 0 AND ts > 2000 AND 12000 >= ts",
    "SELECT ts FROM t WHERE ts = 11000",
    "SELECT ts FROM t WHERE ts <= 2000",
    "SELECT ts FROM t WHERE ts < 2000 OR ts > 20000",
    "SELECT ts FROM t WHERE ts > 5000 AND ts < 4000",
    "SELECT count(*), sum(volt) FROM meters WHERE ts >= 12000",
    "SELECT ts FROM t WHERE ts < 1000.5",
    "SELECT ts FROM t WHERE ts <= 1000.5",
    "SELECT ts FROM t WHERE ts > 999.5 AND ts < 2000",
    "SELECT ts FROM t WHERE ts >= 999.5 AND ts < 2000",
    "SELECT ts FROM t WHERE ts = 1000.5",
    "SELECT _wstart, count(*) FROM meters WHERE ts >= 2000 AND ts < 21000 INTERVAL(10s)",
    "SELECT LOC, count(*) FROM meters GROUP BY loc",
    "SELECT TBNAME, count(*) FROM meters PARTITION BY tbname",
    "SELECT Gid * 10, COUNT(*) FROM meters GROUP BY gid * 10",
    "SELECT DISTINCT S FROM t ORDER BY s",
    "SELECT s, COUNT(*) FROM t GROUP BY s HAVING count(*) > 1",
    "SELECT a + 1 FROM t WHERE a > 3 ORDER BY A + 1 DESC",
    "SELECT s = 'x', count(*) FROM t GROUP BY s = 'x'",
    "SELECT s = 'X', count(*) FROM t GROUP BY s = 'x'",
    "SELECT count(*) FROM t WHERE a IS NOT NULL GROUP BY a * -0.0",
    "SELECT DISTINCT a * -0.0 FROM t WHERE a IS NOT NULL",
    "SELECT a * 0.0, count(*) FROM t WHERE a IS NOT NULL PARTITION BY a * 0.0 INTERVAL(1m)",
    "SELECT _wstart, count(*) FROM (SELECT last(ts) AS ts FROM t WHERE a > 100) INTERVAL(10s)",
    "SELECT _wstart, count(*), first(a), last(a) FROM (SELECT ts, a FROM t ORDER BY a) INTERVAL(10s)",
    "SELECT _wstart, count(*) FROM (SELECT ts FROM t ORDER BY ts DESC) INTERVAL(10s) SLIDING(5s)",
    "SELECT count(*) FROM t WHERE ts >= NOW - 1h",
    "SELECT count(*) FROM t WHERE ts < NOW",
    "SELECT _wstart, count(*) FROM t INTERVAL(10s) HAVING _wstart > 5000",
    "SELECT s FROM t GROUP BY s ORDER BY count(*) * -1, s",
    "SELECT CASE WHEN a > 2 THEN 'big' ELSE 'small' END AS k, count(*) FROM t GROUP BY CASE WHEN a > 2 THEN 'big' ELSE 'small' END",
    "SELECT tbname FROM t WHERE a = 1",
    "SELECT a FROM t WHERE a > 0 ORDER BY t.a DESC",
    "SELECT tbname, count(*) FROM meters GROUP BY tbname ORDER BY count(*), tbname DESC LIMIT 1",
    "SELECT DISTINCT s, a FROM t WHERE a > 0 ORDER BY 2 DESC",
    "SELECT count(*) FROM t INTERVAL(10s) FILL(NONE)",
    "SELECT ts FROM t WHERE _rowts > 12000",
    "SELECT ts FROM t WHERE ts BETWEEN 2000 AND 11000",
    "SELECT ts FROM t WHERE ts IN (1000, 25000)",
    "SELECT tbname, _wstart, count(*) FROM meters PARTITION BY tbname INTERVAL(10s) ORDER BY _wstart, tbname",
    "SELECT count(*) FROM t WHERE s IS NULL OR s IN ('z')",
    "SELECT ts FROM t WHERE NOT (ts < 12000)",
    "SELECT ts FROM t WHERE ts + 1000 > 25000",
    "SELECT ts, a FROM t WHERE ts >= '1970-01-01T00:00:12Z'",
    "SELECT max(ts) - min(ts) FROM t",
    "SELECT count(*) FROM meters WHERE loc LIKE 'S%' AND ts < 6000",
    "SELECT avg(volt) FROM meters WHERE gid IN (1, 3) PARTITION BY gid",
    "SELECT a FROM t WHERE a > 0 ORDER BY a LIMIT 2 OFFSET 1",
    "SELECT s, max(a) FROM t WHERE s IS NOT NULL GROUP BY s ORDER BY max(a) DESC LIMIT 2",
    "SELECT _wstart, sum(a) FROM t WHERE ts > 1000 INTERVAL(10s) SLIDING(10s) ORDER BY 2 DESC NULLS LAST",
    "SELECT s, count(*) FROM t WHERE a > 0 GROUP BY s ORDER BY s LIMIT 2",
    "SELECT count(*) FROM meters INTERVAL(10s)",
    "SELECT * FROM nosuch",
    "SELECT zz FROM t",
    "SELECT a FROM t WHERE zz > 1",
    "SELECT q.a FROM t",
    "SELECT a, count(*) FROM t",
    "SELECT s, a FROM t GROUP BY s",
    "SELECT volt, count(*) FROM meters PARTITION BY tbname",
    "SELECT count(*) FROM t ORDER BY a",
    "SELECT a FROM t WHERE count(*) > 1",
    "SELECT sum(max(a)) FROM t",
    "SELECT sum(s) FROM t",
    "SELECT count(*) FROM t GROUP BY count(*)",
    "SELECT _wstart, count(*) FROM t",
    "SELECT _wend FROM t",
    "SELECT count(*) FROM t INTERVAL(5s) SLIDING(10s)",
    "SELECT count(*) FROM t INTERVAL(10s, 10s)",
    "SELECT count(*) FROM t INTERVAL(10s, 15s)",
    "SELECT count(*) FROM t INTERVAL(1n)",
    "SELECT count(*) FROM t INTERVAL(10s) FILL(PREV)",
    "SELECT _twstart, count(*) FROM t",
    "SELECT a FROM t WHERE ts > _twstart",
    "SELECT * FROM %%trows",
    "SELECT a FROM t ORDER BY 3",
    "SELECT a, b FROM t ORDER BY 0",
    "SELECT a FROM t HAVING a > 1",
    "SELECT count(*), * FROM t",
    "SELECT a FROM t WHERE a + 1",
    "SELECT DISTINCT s FROM t ORDER BY a",
    "SELECT first(a) FROM (SELECT a FROM t)",
    "SELECT * FROM (SELECT zz FROM t)",
    "SELECT y FROM (SELECT a AS x FROM t)",
    "SELECT a FROM t ORDER BY zz",
    "SELECT s, count(*) FROM t GROUP BY s HAVING count(*)",
    "SELECT count(DISTINCT a) FROM t",
    "SELECT _wstart, count(*) FROM (SELECT a FROM t) INTERVAL(10s)",
    "SELECT a FROM nodb.t",
    "SELECT count(*) FROM t INTERVAL(10s) SLIDING(0s)",
    "SELECT count(a, b) FROM t",
    "SELECT sum(*) FROM t",
    "SELECT _wstart FROM t WHERE _wend > 0 INTERVAL(10s)",
    "SELECT a % 0 FROM t ORDER BY a",
    "SELECT s, count(*) FROM t GROUP BY s",
    "SELECT ts FROM meters",
    "SELECT ts FROM t",
    "SELECT count(*) FROM t",
    "SELECT s FROM t PARTITION BY s",
    "SELECT ts FROM t ORDER BY a",
    "SELECT ts FROM t LIMIT 2",
    "SELECT ts FROM t WHERE a > 0",
    "SELECT ts FROM meters WHERE volt > 0",
    "SELECT count(*) FROM meters",
    "SELECT tbname, _wstart, count(*) FROM meters PARTITION BY tbname INTERVAL(10s)",
    "SELECT ts FROM meters PARTITION BY loc",
    "SELECT ts FROM meters ORDER BY cur",
    "SELECT ts FROM meters LIMIT 5 OFFSET 3",
    "SELECT avg(v) FROM (SELECT ts, volt AS v FROM meters)",
    "SELECT loc, count(*), avg(cur) FROM meters GROUP BY loc",
    "SELECT ts, volt FROM meters WHERE ts >= '1970-01-01 00:00:02' AND ts < '1970-01-01 00:00:13' ORDER BY ts DESC",
    "SELECT count(*), sum(volt), max(cur) FROM d1",
    "SELECT count(*) FROM meters WHERE ts > 100000",
    "SELECT volt, count(*) FROM meters",
    "SELECT _wstart, _wend, _wduration, sum(v) FROM du.m INTERVAL(10s)",
    "SELECT ts FROM du.m WHERE ts > '1970-01-01 00:00:02' AND ts < 12000000",
    "SELECT _wstart, count(*) FROM du.m INTERVAL(2500a)",
    "SELECT ts, tbname, v, d, loc",
    "SELECT count(*), count(v), sum(v), avg(v), min(v), max(v), spread(v), stddev(v) FROM m",
    "SELECT count(*), sum(d), avg(d), min(d), max(d), stddev(d) FROM m WHERE v > 0",
    "SELECT first(v), last(v), last_row(v), first(s), last(s), min(s), max(s) FROM m",
    "SELECT tbname, count(*), avg(v), max(d) FROM m PARTITION BY tbname",
    "SELECT loc, count(*), sum(v), min(s) FROM m GROUP BY loc",
    "SELECT loc, g, count(*), avg(d) FROM m GROUP BY loc, g HAVING count(*) > 100",
    "SELECT _wstart, _wend, count(*), sum(v), max(d) FROM m INTERVAL(1m)",
    "SELECT tbname, _wstart, count(*), avg(v) FROM m PARTITION BY tbname INTERVAL(2m)",
    "SELECT _wstart, count(*), min(v), first(d), last(d) FROM m INTERVAL(3m) SLIDING(1m)",
    "SELECT _wstart, count(*) FROM m WHERE ts >= '2025-01-01 00:02:00' AND ts < '2025-01-01 00:09:00' INTERVAL(1m, 10s)",
    "SELECT loc, count(*) AS c FROM m GROUP BY loc ORDER BY c DESC, loc",
    "SELECT tbname, max(v) - min(v) AS r, count(*) * 2 FROM m PARTITION BY tbname ORDER BY r DESC, tbname LIMIT 4 OFFSET 1",
    "SELECT DISTINCT loc, g FROM m",
    "SELECT count(*) FROM m WHERE v IS NULL OR d IS NULL",
    "SELECT ts, tbname, v, d FROM m WHERE v > 140 ORDER BY ts, tbname",
    "SELECT tbname, ts, v FROM m WHERE s = 'c' AND v < -45 PARTITION BY tbname",
    "SELECT ts, v * 2 + 1, CASE WHEN d > 300 THEN 'hi' ELSE 'lo' END FROM m WHERE g = 2 ORDER BY ts DESC LIMIT 10",
    "SELECT avg(x) FROM (SELECT v AS x FROM m WHERE v IS NOT NULL)",
    "SELECT count(*), max(c) FROM (SELECT tbname, count(*) AS c FROM m PARTITION BY tbname)",
    "SELECT count(*), sum(v) FROM m WHERE ts > NOW",
    "SELECT tbname, count(*) FROM m PARTITION BY tbname",
    "SELECT loc, _wstart, count(*), avg(v) FROM m PARTITION BY loc INTERVAL(1m)",
    "SELECT count(*) FROM m",
};

/* Every CREATE STREAM ... AS SELECT of tests/unit/test_parser_stream.c,
 * test_stream_check.c and test_mcatalog_stream.c that parses. */
static const char *const harvested_streams[] = {
    "CREATE STREAM IF NOT EXISTS e1 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO fresh AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM IF NOT EXISTS power.s PERIOD(1n, 14d) INTO power.out AS SELECT _tlocaltime, count(*) FROM meters",
    "CREATE STREAM IF NOT EXISTS power.s4 INTERVAL(5m, 1m) SLIDING(1m, 10s) FROM meters\n  PARTITION BY tbname STREAM_OPTIONS(WATERMARK(1s) | MAX_DELAY(5s))\n  NOTIFY('ws://[::1]:8080/x') ON (WINDOW_OPEN|WINDOW_CLOSE)\n  INTO o AS SELECT _twstart, MAX(voltage) FROM meters WHERE tbname = %%tbname",
    "CREATE STREAM IF NOT EXISTS s1 PERIOD(1d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM avg_current_stream INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname STREAM_OPTIONS(CALC_NOTIFY_ONLY) NOTIFY('ws://localhost:8080/notify', 'ws://h2:9000/n?key=foo') ON (WINDOW_OPEN|WINDOW_CLOSE) WHERE avg_current > 10 NOTIFY_OPTIONS(NOTIFY_HISTORY) INTO out AS SELECT _twstart, avg(current) AS avg_current FROM %%trows",
    "CREATE STREAM e1 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO ex1 (ws, v) AS SELECT _twstart, AVG(voltage) FROM %%trows",
    "CREATE STREAM e2 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO EX2 AS SELECT _twstart AS WS, AVG(voltage) AS v, COUNT(*) AS N FROM %%trows",
    "CREATE STREAM g2 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY groupId, location INTO o2 AS SELECT _twstart, MIN(current), COUNT(*) FROM %%trows",
    "CREATE STREAM g3 PERIOD(1m) FROM meters ROLLUP BY location INTO o3 AS SELECT _tlocaltime, %%1 AS path, %%rollup_tag AS node, _trollup_tbcount AS ntables, _tgrpid AS gid FROM meters",
    "CREATE STREAM g4 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname, groupId INTO o4 TAGS (dev VARCHAR(32) AS %%tbname, grp BIGINT AS groupId) AS SELECT _twstart, MAX(phase) FROM %%trows",
    "CREATE STREAM g5 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o5 (wstart, avg_v, n) AS SELECT _twstart, AVG(voltage), COUNT(*) FROM %%trows",
    "CREATE STREAM g6 COUNT_WINDOW(10) FROM d1001 INTO o6 (t, c, v, p) AS SELECT * FROM %%trows",
    "CREATE STREAM other PERIOD(1d) INTO o3 AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM other.s1 PERIOD(1d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM power.meters",
    "CREATE STREAM p1 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname, location INTO op1 AS SELECT _twstart, _twend, _twrownum, _twduration, %%1, %%2, %%tbname, AVG(voltage) FROM %%trows",
    "CREATE STREAM p2 SLIDING(1m) FROM d1001 INTO op2 AS SELECT _tcurrent_ts, _tprev_ts, _tnext_ts, _tlocaltime, _tgrpid, COUNT(*) FROM %%trows",
    "CREATE STREAM p3 PERIOD(1h) INTO op3 AS SELECT _tprev_localtime, _tnext_localtime, COUNT(*) FROM meters",
    "CREATE STREAM p4 INTERVAL(1m) SLIDING(1m) FROM d1001 STREAM_OPTIONS(IDLE_TIMEOUT(10s) | EVENT_TYPE(IDLE|RESUME)) INTO op4 AS SELECT CAST(_tidlestart/1000000 AS TIMESTAMP) AS idle_start, _tidleend, _tidlestart FROM d1001",
    "CREATE STREAM p5 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO op5 AS SELECT _twstart, LAST(current), FIRST(location) FROM %%tbname WHERE ts >= _twstart AND tbname = %%tbname",
    "CREATE STREAM power.S1 PERIOD(1d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM power.r5 INTERVAL(1m) SLIDING(1m) FROM power.d1001 INTO d1001 AS SELECT _twstart, COUNT(*) FROM power.d1001",
    "CREATE STREAM power.s INTERVAL(10s) SLIDING(10s) FROM power.meters PARTITION BY tbname, groupId INTO power.out NODELAY_CREATE_SUBTABLE OUTPUT_SUBTABLE(CONCAT('out_', %%tbname, '_', CAST(%%2 AS VARCHAR(8)))) (ts, k COMPOSITE KEY, avg_v) TAGS (tname VARCHAR(192) AS %%tbname, gid INT AS %%2) AS SELECT _twstart, %%2, avg(voltage) FROM %%tbname WHERE ts >= _twstart AND ts < _twend",
    "CREATE STREAM r1 COUNT_WINDOW(10) FROM d1001 INTO o (a, b) AS SELECT * FROM %%trows",
    "CREATE STREAM r1 COUNT_WINDOW(10) FROM d1001 INTO o (a, b) AS SELECT _twstart, COUNT(*), AVG(v) FROM %%trows",
    "CREATE STREAM r2 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o AS SELECT location, COUNT(*) FROM meters PARTITION BY location",
    "CREATE STREAM r3 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o (ts, tbname) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM r3 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o AS SELECT _twstart, AVG(voltage) AS v, MAX(voltage) AS V FROM %%trows",
    "CREATE STREAM r3 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o AS SELECT _twstart, COUNT(*) AS a2345678901234567890123456789012345678901234567890123456789012345 FROM %%trows",
    "CREATE STREAM r4 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO ex2 (ts) AS SELECT _twstart FROM %%trows",
    "CREATE STREAM r4 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO ex2 (ts, v) AS SELECT _twstart, AVG(voltage) FROM %%trows",
    "CREATE STREAM r4 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO ex2 AS SELECT _twstart, AVG(voltage) FROM %%trows",
    "CREATE STREAM r4 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO ex2 (ts, v) AS SELECT _twstart, MAX(voltage) FROM %%trows",
    "CREATE STREAM r4 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO ex3 (ws, v) AS SELECT _twstart, AVG(voltage) FROM %%trows",
    "CREATE STREAM r5 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO information_schema.o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM r5 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO nodb.o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM r6 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o (ts COMPOSITE KEY, n) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM r6 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o (ts, n COMPOSITE KEY) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM r7 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o AS SELECT _twstart, AVG(nosuch) FROM %%trows",
    "CREATE STREAM r7 INTERVAL(1m) SLIDING(1m) FROM d1001 INTO o AS SELECT _twstart, COUNT(*) FROM nosuch",
    "CREATE STREAM r8 INTERVAL(1m) SLIDING(1m) FROM sensors PARTITION BY site INTO o AS SELECT _twstart, COUNT(*) AS site FROM %%trows",
    "CREATE STREAM r8 INTERVAL(1m) SLIDING(1m) FROM sensors PARTITION BY site INTO o TAGS (v INT AS site) AS SELECT _twstart, COUNT(*) AS v FROM %%trows",
    "CREATE STREAM r8 INTERVAL(1m) SLIDING(1m) FROM sensors PARTITION BY tbname, tag_tbname INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s COUNT_WINDOW(0) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s COUNT_WINDOW(1) FROM ntb STREAM_OPTIONS(DELETE_RECALC) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s COUNT_WINDOW(10) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s COUNT_WINDOW(10, 1, current, voltage) FROM meters PARTITION BY tbname STREAM_OPTIONS(DELETE_RECALC | IGNORE_DISORDER) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s COUNT_WINDOW(1000, 1000) FROM ntb STREAM_OPTIONS(IGNORE_DISORDER) INTO o (ws, avg_v) AS SELECT _twstart, AVG(v) FROM %%trows",
    "CREATE STREAM s COUNT_WINDOW(5) FROM ntb STREAM_OPTIONS(DELETE_RECALC) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s COUNT_WINDOW(5, 0) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s COUNT_WINDOW(5, 2) FROM ntb STREAM_OPTIONS(IGNORE_DISORDER | DELETE_RECALC) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s COUNT_WINDOW(5, 6) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s COUNT_WINDOW(5, groupId) FROM meters PARTITION BY tbname INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s COUNT_WINDOW(5, nosuch) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s EVENT_WINDOW(START WITH (v > 1, v > 2) END WITH v < 0) TRUE_FOR(end(1s)) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s EVENT_WINDOW(START WITH (voltage > 90, voltage > 60)) TRUE_FOR(1w OR COUNT 2) FROM meters PARTITION BY tbname NOTIFY('ws://h:9') ON (WINDOW_OPEN) INTO o AS SELECT _twstart, COUNT(*) FROM meters WHERE ts >= _twstart",
    "CREATE STREAM s EVENT_WINDOW(START WITH nosuch > 1 END WITH v < 0) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s EVENT_WINDOW(START WITH v > 1 END WITH v < 0) TRUE_FOR(1n) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s EVENT_WINDOW(START WITH v > 1 END WITH v < 0) TRUE_FOR(1s, 2s) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s EVENT_WINDOW(START WITH v > 1 END WITH v < 0) TRUE_FOR(start(1s), start(2s)) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s EVENT_WINDOW(START WITH v > 10 END WITH v < 5) TRUE_FOR(5s, start(COUNT 2), end(COUNT 3)) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s EVENT_WINDOW(START WITH voltage > 1 END WITH voltage < 0) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(0s) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM information_schema.ins_tables INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO meters AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o (a COMPOSITE KEY, b) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o (a, a) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o (a, b, c) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT 'abc', COUNT(*) FROM meters",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT CAST(_twstart AS BIGINT), COUNT(*) FROM meters",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT COUNT(*), _twstart FROM meters",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT NOW, _tidleend FROM meters",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twduration, COUNT(*) FROM meters",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%tbname",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM meters GROUP BY _tgrpid",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM meters ORDER BY _twduration",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, _tprev_localtime FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, _trollup_tbcount FROM meters",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, _twend, _twduration, _twrownum, AVG(voltage) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _wduration, COUNT(*) FROM meters",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT voltage, current FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o OUTPUT_SUBTABLE(concat('a', 'b')) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o TAGS (g INT AS 1) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY _tgrpid INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY current INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY groupId + 1 INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY groupId STREAM_OPTIONS(DELETE_OUTPUT_TABLE) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY groupId, groupId INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY nosuch INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o AS SELECT _twstart, %%rollup_tag FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o AS SELECT _twstart, COUNT(*) FROM %%trows WHERE voltage > 1",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o OUTPUT_SUBTABLE(concat('t', %%2)) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o OUTPUT_SUBTABLE(concat('t', voltage)) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o TAGS (g INT AS 1, g INT AS 2) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o TAGS (t1 INT AS _twrownum) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname NOTIFY('ws://h:80') ON (WINDOW_CLOSE) OUTPUT_SUBTABLE(concat('a', tbname)) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname STREAM_OPTIONS(EVENT_TYPE(IDLE) | IDLE_TIMEOUT(1m)) INTO o AS SELECT _twstart, _tidlestart FROM meters",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname STREAM_OPTIONS(EVENT_TYPE(WINDOW_OPEN)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname STREAM_OPTIONS(EVENT_TYPE(WINDOW_OPEN|WINDOW_CLOSE)) INTO o AS SELECT _twstart, _twend, COUNT(*) FROM meters",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname, groupId INTO o AS SELECT _twstart, %%3, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters ROLLUP BY groupId INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters ROLLUP BY location INTO o OUTPUT_SUBTABLE(concat('a', _trollup_tbcount)) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters ROLLUP BY location INTO o TAGS (n BIGINT AS _trollup_tbcount) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters ROLLUP BY nosuch INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(CALC_NOTIFY_ONLY) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(EVENT_TYPE(IDLE) | IDLE_TIMEOUT(11d)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(EVENT_TYPE(IDLE) | IDLE_TIMEOUT(500a)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(EVENT_TYPE(WINDOW_CLOSE|RESUME)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(EXPIRED_TIME(1w)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(FILL_HISTORY | FILL_HISTORY_FIRST) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(FILL_HISTORY('2025-13-01')) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(FILL_HISTORY(voltage)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(IDLE_TIMEOUT(1m)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(MAX_DELAY(2s)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(MAX_DELAY(5000a)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(PRE_FILTER(_twstart > 0)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(PRE_FILTER(nosuch > 0)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(PRE_FILTER(sum(voltage) > 0)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(WATERMARK(1n)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(WATERMARK(1s) | WATERMARK(2s)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM ntb ROLLUP BY s2 INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m) SLIDING(2m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1m, 1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(1n) SLIDING(1n) FROM meters INTO o AS SELECT FIRST(ts), COUNT(*) FROM %%trows",
    "CREATE STREAM s INTERVAL(5m, 1m) SLIDING(1m, 10s) FROM meters PARTITION BY tbname NOTIFY('ws://[::1]:8080/x') ON (WINDOW_OPEN|WINDOW_CLOSE) INTO o AS SELECT _twstart, MAX(voltage) FROM meters WHERE tbname = %%tbname",
    "CREATE STREAM s PERIOD(10a) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(10y) INTO o AS SELECT _tnext_localtime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(131n) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1d) STREAM_OPTIONS(CALC_NOTIFY_ONLY) NOTIFY('ws://h:80') AS SELECT _tlocaltime, _tgrpid FROM meters",
    "CREATE STREAM s PERIOD(1d, 1w) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1h) FROM meters ROLLUP BY location INTO o OUTPUT_SUBTABLE(concat('r_', %%rollup_tag)) TAGS (path VARCHAR(64) AS %%1) AS SELECT _tlocaltime, _trollup_tbcount, %%rollup_tag FROM %%trows",
    "CREATE STREAM s PERIOD(1h) FROM meters STREAM_OPTIONS(FILL_HISTORY) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1h) INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1h) INTO o AS SELECT _tlocaltime, COUNT(*) FROM %%trows",
    "CREATE STREAM s PERIOD(1h) INTO o AS SELECT _tlocaltime, _tgrpid FROM meters WHERE _tgrpid > %%1",
    "CREATE STREAM s PERIOD(1h) NOTIFY('ws://h:80') WHERE _tgrpid > 0 AS SELECT _tlocaltime, COUNT(*) AS cnt FROM meters",
    "CREATE STREAM s PERIOD(1h) NOTIFY('ws://h:80') WHERE nosuch > 0 AS SELECT _tlocaltime, COUNT(*) AS cnt FROM meters",
    "CREATE STREAM s PERIOD(1h) PARTITION BY tbname INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1h) ROLLUP BY location INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1h) STREAM_OPTIONS(EVENT_TYPE(WINDOW_OPEN) | MAX_DELAY(5s)) NOTIFY('ws://h:80') INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1h) STREAM_OPTIONS(FILL_HISTORY_FIRST('2025-01-01')) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1h) STREAM_OPTIONS(PRE_FILTER(voltage > 0)) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1h, 1m) FROM meters PARTITION BY groupId STREAM_OPTIONS(IGNORE_NODATA_TRIGGER) INTO o AS SELECT _tlocaltime, %%1, COUNT(*) FROM %%trows",
    "CREATE STREAM s PERIOD(1m) FROM meters ROLLUP BY location INTO out OUTPUT_SUBTABLE(CONCAT('r_', %%1)) TAGS (path VARCHAR(128) AS %%1, leaf VARCHAR(64) AS %%rollup_tag) AS SELECT _tlocaltime, _trollup_tbcount, count(*) FROM %%trows",
    "CREATE STREAM s PERIOD(1n, 14d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1n, 27d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1n, 28d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1s) AS SELECT 1",
    "CREATE STREAM s PERIOD(1s) AS SELECT _tprev_localtime, _tnext_localtime, _tprev_ts, _tcurrent_ts, _tnext_ts, _twduration, _twrownum, _tgrpid, _tidlestart, _tidleend FROM t",
    "CREATE STREAM s PERIOD(1w, 1d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1w, 7d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1y, 31d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1y, 365d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(3650d) INTO o AS SELECT _tprev_localtime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(3651d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(5a) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s SESSION(TS, 1m) FROM meters ROLLUP BY region INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s SESSION(ts, 0s) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s SESSION(ts, 10s) FROM meters PARTITION BY location INTO o AS SELECT _twstart, %%1, COUNT(*) FROM %%trows",
    "CREATE STREAM s SESSION(ts, 10s) FROM ntb STREAM_OPTIONS(IGNORE_NODATA_TRIGGER) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s SESSION(ts, 1m) FROM ntb STREAM_OPTIONS(EVENT_TYPE(IDLE|RESUME) | IDLE_TIMEOUT(30s)) NOTIFY('ws://h:80') ON (IDLE|RESUME) WHERE cnt > 0 NOTIFY_OPTIONS(NOTIFY_HISTORY) INTO o AS SELECT NOW, _tidlestart, _tidleend, COUNT(*) AS cnt FROM ntb",
    "CREATE STREAM s SESSION(ts, 1n) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s SESSION(voltage, 10s) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s SLIDING(0s) FROM meters INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM meters",
    "CREATE STREAM s SLIDING(1h, 1d) FROM meters INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM meters",
    "CREATE STREAM s SLIDING(1h, 5m) FROM d1001 NOTIFY('ws://h:1', 'wss://h:443/n?k=v') AS SELECT _tcurrent_ts, AVG(current) FROM %%trows",
    "CREATE STREAM s SLIDING(1m) FROM meters INTO o AS SELECT _tcurrent_ts, _tprev_ts, _tnext_ts, COUNT(*) FROM %%trows",
    "CREATE STREAM s SLIDING(1m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM meters",
    "CREATE STREAM s SLIDING(1m) FROM ntb STREAM_OPTIONS(EVENT_TYPE(WINDOW_OPEN)) INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM %%trows",
    "CREATE STREAM s SLIDING(1m) INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM meters",
    "CREATE STREAM s SLIDING(1u) FROM meters INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM %%trows",
    "CREATE STREAM s SLIDING(1u) FROM meters INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM meters",
    "CREATE STREAM s SLIDING(1w, 2h) FROM meters PARTITION BY tbname, groupId INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM %%tbname",
    "CREATE STREAM s STATE_WINDOW(CASE WHEN voltage > 220 THEN 1 ELSE 0 END) EXTEND(1) ZEROTH_STATE(-1) TRUE_FOR(COUNT 3) FROM d1001 INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(count(v)) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(nosuch) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(nosuch) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(s1) ZEROTH_STATE(s2) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(s1, s2) ZEROTH_STATE(1) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(v) EXTEND(2) TRUE_FOR(10m AND COUNT 100) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(v) EXTEND(3) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(v) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(v) TRUE_FOR(0s) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(v) TRUE_FOR(COUNT 0) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(v) TRUE_FOR(start(1s)) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(voltage) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(voltage) FROM meters PARTITION BY groupId INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(voltage) FROM meters ROLLUP BY location INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s1 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o1 AS SELECT _twstart, AVG(voltage) FROM %%trows",
    "CREATE STREAM s2 SLIDING(1h, 5m) FROM d1001 NOTIFY('ws://h:1') AS SELECT _tcurrent_ts, AVG(current) FROM %%trows",
    "CREATE STREAM s9 SLIDING(1m) FROM nosuch INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM %%trows",
    "CREATE STREAM s\n  COUNT_WINDOW(3)\n  INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s_tag_event\n  EVENT_WINDOW(START WITH voltage >= 220 + groupId END WITH voltage < 220 + groupId)\n  FROM meters\n  PARTITION BY tbname\n  INTO meters_event_out\n  AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows;",
    "CREATE STREAM s_tag_state\n  STATE_WINDOW(voltage >= 220 + groupId)\n  FROM meters\n  PARTITION BY tbname\n  INTO meters_state_out\n  AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows",
    "CREATE STREAM s_tag_state\n  STATE_WINDOW(voltage >= 220 + groupId)\n  FROM meters\n  PARTITION BY tbname\n  INTO meters_state_out\n  AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows;",
    "CREATE STREAM u1 INTERVAL(10s) SLIDING(10s) FROM d1001 INTO out_u AS SELECT _twstart, COUNT(*), AVG(voltage), MAX(voltage), SUM(voltage), FIRST(current), _twrownum AS n FROM %%trows",
    "CREATE STREAM u2 INTERVAL(10s) SLIDING(10s) FROM d1001 INTO other.out_w AS SELECT _twstart AS ws, _twend AS we, SPREAD(current) FROM meters WHERE ts >= _twstart AND ts < _twend AND groupId = 2",
    "CREATE STREAM u3 INTERVAL(10s) SLIDING(10s) FROM d1001 NOTIFY('ws://h:1') ON (WINDOW_CLOSE) AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM v1 STATE_WINDOW(voltage) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM v2 SLIDING(1m) FROM meters STREAM_OPTIONS(MAX_DELAY(1s)) INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM %%trows",
    "CREATE STREAM v3 PERIOD(5a) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM v4 SLIDING(1m) INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM meters",
    "CREATE STREAM v5 STATE_WINDOW(voltage) FROM meters ROLLUP BY groupId INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
};

/* The AS queries of the CREATE STREAM examples in spec/stream-syntax.txt. */
static const char *const spec_streams[] = {
    "CREATE STREAM s_tag_state\n"
    "  STATE_WINDOW(voltage >= 220 + groupId)\n"
    "  FROM meters\n"
    "  PARTITION BY tbname\n"
    "  INTO meters_state_out\n"
    "  AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows;",
    "CREATE STREAM s_multi_state\n"
    "  STATE_WINDOW(s1, s2) EXTEND(0) ZEROTH_STATE(1, NO_ZEROTH)\n"
    "  FROM ntb\n"
    "  PARTITION BY tbname\n"
    "  INTO result_table\n"
    "  AS\n"
    "    SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows;",
    "CREATE STREAM s_tag_event\n"
    "  EVENT_WINDOW(START WITH voltage >= 220 + groupId END WITH voltage < 220 + groupId)\n"
    "  FROM meters\n"
    "  PARTITION BY tbname\n"
    "  INTO meters_event_out\n"
    "  AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows;",
};

/* Corner cases of the printer: precedence, quoting, literals, every clause. */
static const char *const corner_selects[] = {
    "SELECT a - (b - c), a - b - c, a / (b * c), (a / b) * c, -(a + b), - -a, ~-a, -~a",
    "SELECT NOT NOT a, (NOT a) = b, NOT a = b, (NOT a) IS NULL, NOT a IS NULL, a AND NOT b",
    "SELECT (a = b) BETWEEN 1 AND 2, a = (b BETWEEN 1 AND 2), a BETWEEN (1 = 1) AND (b OR c)",
    "SELECT a BETWEEN 1 | 2 AND 3 & 4, a BETWEEN -1 AND -2 IS NULL, (a BETWEEN 1 AND 2) IS NULL",
    "SELECT a LIKE (b = c), (a LIKE b) LIKE c, a NOT LIKE b || 'x', (a IN (1)) IN (TRUE)",
    "SELECT a IS NULL IS NOT NULL, (a = b) = c, a = (b = c), a < b AND c OR d AND (e OR f)",
    "SELECT a | b | c, a | (b | c), (a | b) & c, a || b || (c || d), a % b % c, a % (b % c)",
    "SELECT 1.5, 1000.0, 1e300, .25, 2.5e-7, 0x7fffffffffffffff, 9223372036854775808, 0.1",
    "SELECT 'it''s', \"dq\"\"x\", 'a\\\\b', 'tab\\there', 'nul\\0x', 'pct\\%', '\\_'",
    "SELECT 'x\ny\r\tz', '', ' ', 'back`tick', \"single'in double\"",
    "SELECT `select`, `a b`, `x``y`, `_twstart`, `_WEND`, `value`, `count`, t.`from`, `1a`",
    "SELECT `tbname`, tbname, `now`, `today`, `null`, `true` FROM `db`.`order` AS `group`",
    "SELECT `a.b`.`c d`, `e`.* FROM `weird table` `e`",
    "SELECT count(*), count(t.*), COUNT(DISTINCT a, b), f(), first(a), last(b), value(c)",
    "SELECT now, NOW(), today(), _wstart, _wend, _wduration, _rowts, _twstart + 10s",
    "SELECT CASE WHEN a THEN b WHEN c THEN d ELSE e END, CASE a + 1 WHEN 1 THEN 'x' END",
    "SELECT CASE (a OR b) WHEN NOT c THEN a IS NULL ELSE a BETWEEN 1 AND 2 END",
    "SELECT CAST(a AS INT), CAST(a + 1 AS BIGINT UNSIGNED), CAST(a AS BINARY(0)), "
    "CAST(a AS VARCHAR(20)), CAST(a AS NCHAR(3)), CAST(a AS TIMESTAMP), CAST(a AS BOOL), "
    "CAST(a AS TINYINT UNSIGNED), CAST(a AS SMALLINT UNSIGNED), CAST(a AS INTEGER UNSIGNED), "
    "CAST(a AS FLOAT), CAST(a AS DOUBLE), CAST(CAST(a AS INT) AS VARCHAR)",
    "SELECT a IN (1, 2, 3), a NOT IN ('x'), (a OR b) IN (a AND b), -a IN (-1)",
    "SELECT * FROM t WHERE a > 1 PARTITION BY tbname, b + 1 INTERVAL(1n, 1d) SLIDING(1w) "
    "FILL(LINEAR) GROUP BY c HAVING count(*) > 1 ORDER BY a DESC NULLS LAST, b ASC, c "
    "NULLS FIRST LIMIT 0 OFFSET 0",
    "SELECT * FROM t INTERVAL(10a) FILL(VALUE, 1, 'x', -2.5, NULL)",
    "SELECT * FROM (SELECT * FROM (SELECT DISTINCT a FROM t) AS x) y",
    "SELECT * FROM (SELECT a FROM %%trows) q WHERE %%1 = 1",
    "SELECT _twstart, _twend, _twduration, _twrownum, _tprev_ts, _tcurrent_ts, _tnext_ts, "
    "_tprev_localtime, _tnext_localtime, _tlocaltime, _tgrpid, _tidlestart, _tidleend, "
    "_trollup_tbcount, %%1, %%2147483647, %%tbname, %%rollup_tag, %%trows FROM %%tbname",
    "SELECT * AS x, a AS `select` FROM t AS `where`",
    "SELECT a FROM t LIMIT 9223372036854775807 OFFSET 9223372036854775807",
    "SELECT 10b, 10u, 10a, 10s, 10m, 10h, 10d, 10w, 10n, 10y, 9223372036854775807s",
    "SELECT -9223372036854775808, 18446744073709551615, 0e0, 5e-324, 1.7976931348623157e308",
};

/* ---------------------------------------------------------------- helpers */

static char *dump_select(const sl_select *s)
{
    sl_stmt st;
    memset(&st, 0, sizeof(st));
    st.kind = SL_STMT_SELECT;
    st.u.select = (sl_select *)s;
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_ast_dump(&st, &b), 0);
    char *out = strdup((const char *)b.data);
    sl_buf_fini(&b);
    return out;
}

static sl_parse_result *parse_ok(const char *sql)
{
    sl_parse_result *r = NULL;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_parse(sql, strlen(sql), &r, &err);
    if (rc != 0)
        fail_msg("parse of <%s> failed: %s", sql, err.msg);
    return r;
}

/* Parses the only SELECT of sql (or the AS query of its CREATE STREAM). */
static const sl_select *the_select(const sl_parse_result *r)
{
    assert_int_equal(r->nstmts, 1);
    if (r->stmts[0]->kind == SL_STMT_CREATE_STREAM) {
        assert_non_null(r->stmts[0]->u.create_stream.query);
        return r->stmts[0]->u.create_stream.query;
    }
    assert_int_equal(r->stmts[0]->kind, SL_STMT_SELECT);
    return r->stmts[0]->u.select;
}

static char *unparse(const sl_select *s, const sl_unparse_subst *subst)
{
    sl_buf b;
    sl_buf_init(&b);
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_unparse_select(s, subst, &b, &err);
    if (rc != 0)
        fail_msg("unparse failed (%d): %s", rc, err.msg);
    assert_int_equal(strlen((const char *)b.data), b.len); /* NUL kept, none inside */
    char *out = strdup((const char *)b.data);
    sl_buf_fini(&b);
    return out;
}

/* parse -> unparse -> parse gives the same dump, and the text is a fixed point. */
static void round_trip_select(const sl_select *s, const char *what)
{
    char *want = dump_select(s);
    char *text = unparse(s, NULL);
    sl_parse_result *r = NULL;
    sl_error err;
    sl_error_clear(&err);
    if (sl_parse(text, strlen(text), &r, &err) != 0)
        fail_msg("re-parse of <%s> (from <%s>) failed: %s", text, what, err.msg);
    const sl_select *again = the_select(r);
    char *got = dump_select(again);
    if (strcmp(want, got) != 0)
        fail_msg("round trip of <%s>\n via <%s>\n want %s\n got  %s", what, text, want, got);
    char *text2 = unparse(again, NULL);
    if (strcmp(text, text2) != 0)
        fail_msg("not a fixed point: <%s> then <%s>", text, text2);
    free(text2);
    free(got);
    sl_parse_result_free(r);
    free(text);
    free(want);
}

/* Round-trips every SELECT of sql and the query of every CREATE STREAM; returns how many. */
static int round_trip_sql(const char *sql)
{
    sl_parse_result *r = parse_ok(sql);
    int n = 0;
    for (int i = 0; i < r->nstmts; i++) {
        const sl_stmt *st = r->stmts[i];
        if (st->kind == SL_STMT_SELECT) {
            round_trip_select(st->u.select, sql);
            n++;
        } else if (st->kind == SL_STMT_CREATE_STREAM && st->u.create_stream.query != NULL) {
            round_trip_select(st->u.create_stream.query, sql);
            n++;
        }
    }
    sl_parse_result_free(r);
    return n;
}

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------- round trips */

static void test_round_trip_harvested_selects(void **state)
{
    (void)state;
    int n = 0;
    for (size_t i = 0; i < COUNT_OF(harvested_selects); i++)
        n += round_trip_sql(harvested_selects[i]);
    assert_true(COUNT_OF(harvested_selects) >= 150);
    assert_true(n >= (int)COUNT_OF(harvested_selects));
}

static void test_round_trip_stream_queries(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT_OF(spec_streams); i++)
        assert_int_equal(round_trip_sql(spec_streams[i]), 1);
    for (size_t i = 0; i < COUNT_OF(harvested_streams); i++)
        assert_int_equal(round_trip_sql(harvested_streams[i]), 1);
}

static void test_round_trip_corners(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT_OF(corner_selects); i++)
        assert_int_equal(round_trip_sql(corner_selects[i]), 1);
}

/* Trees as deep as the parser allows come back within its limits. */
static void test_round_trip_deep(void **state)
{
    (void)state;
    char *sql = malloc(16384);
    assert_non_null(sql);
    /* a left chain of SL_SQL_MAX_DEPTH operators: no parenthesis at all */
    int n = sprintf(sql, "SELECT a");
    for (int i = 0; i < SL_SQL_MAX_DEPTH; i++)
        n += sprintf(sql + n, " - a%d", i);
    assert_int_equal(round_trip_sql(sql), 1);
    /* right-nested chains need their parentheses, and no more */
    n = sprintf(sql, "SELECT ");
    for (int i = 0; i < SL_SQL_MAX_DEPTH - 2; i++)
        n += sprintf(sql + n, "a%d - (", i);
    n += sprintf(sql + n, "b");
    for (int i = 0; i < SL_SQL_MAX_DEPTH - 2; i++)
        n += sprintf(sql + n, ")");
    assert_int_equal(round_trip_sql(sql), 1);
    /* alternating AND / OR: only the ORs under an AND are parenthesised */
    n = sprintf(sql, "SELECT * FROM t WHERE ");
    for (int i = 0; i < SL_SQL_MAX_DEPTH / 2 - 2; i++)
        n += sprintf(sql + n, "a%d OR b%d AND (", i, i);
    n += sprintf(sql + n, "c");
    for (int i = 0; i < SL_SQL_MAX_DEPTH / 2 - 2; i++)
        n += sprintf(sql + n, ")");
    assert_int_equal(round_trip_sql(sql), 1);
    /* unary chains and nested subqueries */
    n = sprintf(sql, "SELECT ");
    for (int i = 0; i < SL_SQL_MAX_DEPTH - 1; i++)
        n += sprintf(sql + n, i % 2 ? "-" : "~");
    n += sprintf(sql + n, "a, ");
    for (int i = 0; i < SL_SQL_MAX_DEPTH - 1; i++)
        n += sprintf(sql + n, "NOT ");
    n += sprintf(sql + n, "b FROM ");
    for (int i = 0; i < SL_SQL_MAX_DEPTH / 2; i++)
        n += sprintf(sql + n, "(SELECT * FROM ");
    n += sprintf(sql + n, "t");
    for (int i = 0; i < SL_SQL_MAX_DEPTH / 2; i++)
        n += sprintf(sql + n, ")");
    assert_int_equal(round_trip_sql(sql), 1);
    free(sql);
}

/* ---------------------------------------------------------------- exact texts */

static void check_text(const char *sql, const char *want, const sl_unparse_subst *subst)
{
    sl_parse_result *r = parse_ok(sql);
    char *got = unparse(the_select(r), subst);
    if (strcmp(got, want) != 0)
        fail_msg("unparse of <%s>\n want <%s>\n got  <%s>", sql, want, got);
    free(got);
    sl_parse_result_free(r);
    /* the expected text itself parses (substituted texts included) */
    sl_parse_result *again = parse_ok(want);
    sl_parse_result_free(again);
}

static void test_exact_texts(void **state)
{
    (void)state;
    static const struct {
        const char *sql, *want;
    } cases[] = {
        {"SELECT a + 1", "SELECT a + 1"},
        {"select (a+b)*c from t", "SELECT (a + b) * c FROM t"},
        {"SELECT a - (b - c), a - b - c, +a", "SELECT a - (b - c), a - b - c, a"},
        {"SELECT * FROM power.meters m WHERE voltage > 200 and not (current < 1 or phase is null)",
         "SELECT * FROM power.meters AS m WHERE voltage > 200 AND NOT (current < 1 OR phase IS NULL)"},
        {"SELECT 'it''s', \"a\\\\b\", 'x\ny', \"q'\", 'nul\\0'",
         "SELECT 'it''s', 'a\\\\b', 'x\\ny', 'q''', 'nul\\0'"},
        {"SELECT 1.5, 1000.0, 1e300, .25, 0x10, 18446744073709551615, 10s, TRUE, false, null",
         "SELECT 1.5, 1000.0, 1e+300, 0.25, 16, 18446744073709551615, 10s, TRUE, FALSE, NULL"},
        {"SELECT -a, - -a, -(-5), ~b, NOT NOT c, -(a+b)",
         "SELECT -a, - -a, - -5, ~b, NOT NOT c, -(a + b)"},
        {"SELECT count(*), COUNT(DISTINCT location), now, now(), today(), first(`value`)",
         "SELECT count(*), COUNT(DISTINCT location), NOW(), NOW(), TODAY(), first(`value`)"},
        {"select case when a > 1 then 'x' else 'y' end, case b when 1 then 2 end from t",
         "SELECT CASE WHEN a > 1 THEN 'x' ELSE 'y' END, CASE b WHEN 1 THEN 2 END FROM t"},
        {"SELECT cast(a as binary(10)), cast(b as bigint unsigned), CAST(c AS nchar), "
         "cast(d as integer)",
         "SELECT CAST(a AS VARCHAR(10)), CAST(b AS BIGINT UNSIGNED), CAST(c AS NCHAR), "
         "CAST(d AS INT)"},
        {"SELECT * FROM t WHERE a not in (1,2) and b between 1+1 and 3 and c not like 'x%' "
         "and d is not null",
         "SELECT * FROM t WHERE a NOT IN (1, 2) AND b BETWEEN 1 + 1 AND 3 AND c NOT LIKE 'x%' "
         "AND d IS NOT NULL"},
        {"SELECT (a = b) BETWEEN 1 AND 2, a = (b IS NULL), (NOT a) = b, NOT a = b",
         "SELECT a = b BETWEEN 1 AND 2, a = (b IS NULL), (NOT a) = b, NOT a = b"},
        {"SELECT `select`, `a b`, `x``y`, `_twstart`, `value`, t.`from`, `tbname` "
         "FROM `db`.`order` AS `group`",
         "SELECT `select`, `a b`, `x``y`, `_twstart`, `value`, t.`from`, tbname "
         "FROM db.`order` AS `group`"},
        {"select * from (select a, b from t where a > 1) q where b < 2",
         "SELECT * FROM (SELECT a, b FROM t WHERE a > 1) AS q WHERE b < 2"},
        {"SELECT _wstart, avg(current) FROM meters WHERE voltage > 200 PARTITION BY tbname "
         "INTERVAL(10s, 2s) SLIDING(5s) FILL(PREV) ORDER BY _wstart DESC LIMIT 10",
         "SELECT _wstart, avg(current) FROM meters WHERE voltage > 200 PARTITION BY tbname "
         "INTERVAL(10s, 2s) SLIDING(5s) FILL(PREV) ORDER BY _wstart DESC LIMIT 10"},
        {"SELECT avg(a) FROM t INTERVAL(1h) fill(value, 0, -1.5)",
         "SELECT avg(a) FROM t INTERVAL(1h) FILL(VALUE, 0, -1.5)"},
        {"SELECT location, max(voltage) FROM meters WHERE ts > 0 GROUP BY location HAVING "
         "max(voltage) >= 220 ORDER BY location ASC NULLS FIRST, 2 NULLS LAST LIMIT 5 OFFSET 20",
         "SELECT location, max(voltage) FROM meters WHERE ts > 0 GROUP BY location HAVING "
         "max(voltage) >= 220 ORDER BY location NULLS FIRST, 2 NULLS LAST LIMIT 5 OFFSET 20"},
        {"SELECT * FROM t LIMIT 20, 5", "SELECT * FROM t LIMIT 5 OFFSET 20"},
        {"SELECT _twstart, %%1, %%tbname, _tgrpid, count(*) FROM %%trows",
         "SELECT _twstart, %%1, %%tbname, _tgrpid, count(*) FROM %%trows"},
        {"SELECT last(v) FROM %%tbname t WHERE ts >= _twstart",
         "SELECT last(v) FROM %%tbname AS t WHERE ts >= _twstart"},
        {"SELECT a||b, a | b & c, a%b, a <> b, a != b, a<=b",
         "SELECT a || b, a | b & c, a % b, a <> b, a <> b, a <= b"},
        {"SELECT (a | b) & c, a * (b + c) - d / e", "SELECT (a | b) & c, a * (b + c) - d / e"},
        {"SELECT DISTINCT a x, b AS `Y z` FROM t", "SELECT DISTINCT a AS x, b AS `Y z` FROM t"},
        {"SELECT m.*, count(m.*) FROM meters m", "SELECT m.*, count(m.*) FROM meters AS m"},
        {"SELECT a FROM t INTERVAL(1m) FILL(NONE)", "SELECT a FROM t INTERVAL(1m) FILL(NONE)"},
    };
    for (size_t i = 0; i < COUNT_OF(cases); i++)
        check_text(cases[i].sql, cases[i].want, NULL);
}

/* ---------------------------------------------------------------- substitution */

typedef struct hook_state {
    char seen[512];         /* placeholder / source names in call order */
    const char *source_text; /* what source writes; NULL: SL_UNPARSE_ASIS */
    const char *extra;      /* extra WHERE it returns */
    int refuse_rc;          /* when not 0, every hook returns it */
    bool refuse_msg;        /* ... with a message of its own */
    bool asis_partition;    /* %%n is left as written */
    bool write_nothing;     /* return 0 without writing */
} hook_state;

static int ph_hook(void *ud, const sl_expr *ph, sl_buf *out, sl_error *err)
{
    hook_state *hs = ud;
    assert_int_equal(ph->kind, SL_EX_PLACEHOLDER);
    const char *name = sl_placeholder_name(ph->u.placeholder.ph);
    strcat(hs->seen, name);
    strcat(hs->seen, " ");
    if (hs->refuse_rc != 0) {
        if (hs->refuse_msg)
            return sl_error_set(err, hs->refuse_rc, 0, 0, "no value for %s", name);
        return hs->refuse_rc;
    }
    if (hs->write_nothing)
        return 0;
    switch (ph->u.placeholder.ph) {
    case SL_PH_TWSTART:
        return sl_buf_printf(out, "CAST('2025-01-01 00:00:00.000' AS TIMESTAMP)");
    case SL_PH_TWEND: return sl_buf_printf(out, "CAST('2025-01-01 00:01:00.000' AS TIMESTAMP)");
    case SL_PH_TBNAME: return sl_buf_printf(out, "'d1001'");
    case SL_PH_TGRPID: return sl_buf_printf(out, "-7");
    case SL_PH_PARTITION_COL:
        if (hs->asis_partition)
            return SL_UNPARSE_ASIS;
        return sl_buf_printf(out, "'group %d'", ph->u.placeholder.index);
    default: return sl_buf_printf(out, "0");
    }
}

static int src_hook(void *ud, const sl_from *from, sl_buf *out, const char **extra_where,
                    sl_error *err)
{
    hook_state *hs = ud;
    assert_null(*extra_where);
    strcat(hs->seen, from->kind == SL_FROM_TROWS ? "FROM-trows " : "FROM-tbname ");
    if (hs->refuse_rc != 0) {
        if (hs->refuse_msg)
            return sl_error_set(err, hs->refuse_rc, 0, 0, "no table for the source");
        return hs->refuse_rc;
    }
    if (hs->write_nothing)
        return 0;
    if (hs->source_text == NULL)
        return SL_UNPARSE_ASIS;
    *extra_where = hs->extra;
    return sl_buf_printf(out, "%s", hs->source_text);
}

static void check_subst(hook_state *hs, const char *sql, const char *want, const char *seen)
{
    sl_unparse_subst subst = {.ud = hs, .placeholder = ph_hook, .source = src_hook};
    hs->seen[0] = '\0';
    check_text(sql, want, &subst);
    assert_string_equal(hs->seen, seen);
}

#define TS0 "(CAST('2025-01-01 00:00:00.000' AS TIMESTAMP))"
#define TS1 "(CAST('2025-01-01 00:01:00.000' AS TIMESTAMP))"
#define EXTRA "ts >= 1735689600000 AND ts < 1735689660000 AND tbname = 'd1001'"

static void test_subst_placeholders(void **state)
{
    (void)state;
    hook_state hs = {0};
    check_subst(&hs,
                "SELECT _twstart AS ts, count(*), -_tgrpid FROM meters "
                "WHERE ts >= _twstart AND ts < _twend AND tbname = %%tbname",
                "SELECT " TS0 " AS ts, count(*), -(-7) FROM meters WHERE ts >= " TS0
                " AND ts < " TS1 " AND tbname = ('d1001')",
                "_twstart _tgrpid _twstart _twend %%tbname ");
    /* %%n replaced, or left as written when the hook says so */
    check_subst(&hs, "SELECT %%2 FROM t", "SELECT ('group 2') FROM t", "%%n ");
    hs.asis_partition = true;
    check_subst(&hs, "SELECT %%2, _twstart FROM t", "SELECT %%2, " TS0 " FROM t", "%%n _twstart ");
    /* sl_unparse_expr takes the hook too */
    sl_parse_result *r = parse_ok("SELECT * FROM t WHERE a BETWEEN _twstart AND _twend");
    sl_unparse_subst subst = {.ud = &hs, .placeholder = ph_hook};
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_unparse_expr(the_select(r)->where, &subst, &b, NULL), 0);
    assert_string_equal((const char *)b.data, "a BETWEEN " TS0 " AND " TS1);
    sl_buf_fini(&b);
    sl_parse_result_free(r);
    /* the substituted text has no placeholder left */
    r = parse_ok("SELECT _twstart, %%tbname, _twend FROM %%trows WHERE a > %%1");
    hs.asis_partition = false;
    hs.source_text = "db.t";
    subst.source = src_hook;
    char *text = unparse(the_select(r), &subst);
    sl_parse_result *again = parse_ok(text);
    char *d = dump_select(the_select(again));
    assert_null(strstr(d, "(ph "));
    assert_null(strstr(d, "%%trows"));
    free(d);
    sl_parse_result_free(again);
    free(text);
    sl_parse_result_free(r);
}

static void test_subst_sources(void **state)
{
    (void)state;
    hook_state hs = {.source_text = "power.`meters`", .extra = EXTRA};
    /* no WHERE of its own */
    check_subst(&hs, "SELECT _twstart, count(*) FROM %%trows",
                "SELECT " TS0 ", count(*) FROM power.`meters` WHERE (" EXTRA ")",
                "_twstart FROM-trows ");
    /* combined with the SELECT's WHERE, which keeps its ORs inside its parentheses */
    check_subst(&hs, "SELECT count(*) FROM %%trows WHERE a > 1 OR b < 2 INTERVAL(1s)",
                "SELECT count(*) FROM power.`meters` WHERE (a > 1 OR b < 2) AND (" EXTRA
                ") INTERVAL(1s)",
                "FROM-trows ");
    /* %%tbname as a source, aliased */
    check_subst(&hs, "SELECT last(v) FROM %%tbname t WHERE ts >= _twstart",
                "SELECT last(v) FROM power.`meters` AS t WHERE (ts >= " TS0 ") AND (" EXTRA
                ")",
                "FROM-tbname _twstart ");
    /* nested: only the level whose FROM is %%trows gets the extra condition */
    check_subst(&hs,
                "SELECT max(c) FROM (SELECT count(*) AS c FROM %%trows t WHERE v > 0 "
                "INTERVAL(1s)) q WHERE c > 1",
                "SELECT max(c) FROM (SELECT count(*) AS c FROM power.`meters` AS t WHERE "
                "(v > 0) AND (" EXTRA ") INTERVAL(1s)) AS q WHERE c > 1",
                "FROM-trows ");
    check_subst(&hs,
                "SELECT * FROM (SELECT * FROM (SELECT a FROM %%trows) x WHERE a = _twend) y",
                "SELECT * FROM (SELECT * FROM (SELECT a FROM power.`meters` WHERE (" EXTRA
                ")) AS x WHERE a = " TS1 ") AS y",
                "FROM-trows _twend ");
    /* no extra condition */
    hs.extra = NULL;
    check_subst(&hs, "SELECT a FROM %%trows WHERE a = 1", "SELECT a FROM power.`meters` WHERE a = 1",
                "FROM-trows ");
    /* left as written */
    hs.source_text = NULL;
    hs.extra = EXTRA;
    check_subst(&hs, "SELECT a FROM %%trows WHERE a = 1", "SELECT a FROM %%trows WHERE a = 1",
                "FROM-trows ");
    /* a hook on placeholders only leaves sources alone, and the other way round */
    sl_parse_result *r = parse_ok("SELECT _twstart FROM %%trows");
    sl_unparse_subst only_ph = {.ud = &hs, .placeholder = ph_hook};
    char *t = unparse(the_select(r), &only_ph);
    assert_string_equal(t, "SELECT " TS0 " FROM %%trows");
    free(t);
    hs.source_text = "x";
    sl_unparse_subst only_src = {.ud = &hs, .source = src_hook};
    t = unparse(the_select(r), &only_src);
    assert_string_equal(t, "SELECT _twstart FROM x WHERE (" EXTRA ")");
    free(t);
    sl_parse_result_free(r);
}

static void test_keep_item_names(void **state)
{
    (void)state;
    sl_unparse_subst subst = {.keep_item_names = true};
    check_text("SELECT avg(a+b), c x, *, t.*, `q`  FROM t",
               "SELECT avg(a + b) AS `avg(a+b)`, c AS x, *, t.*, q AS ```q``` FROM t",
               &subst);
}

/* A hook that fails aborts the whole unparse; out is as it was before the call. */
static void test_refusal(void **state)
{
    (void)state;
    static const char *const sqls[] = {
        "SELECT a FROM t WHERE ts > _twstart",
        "SELECT a FROM (SELECT * FROM %%trows) q",
        "SELECT a FROM t WHERE b IN (1, 2, %%1)",
    };
    for (size_t i = 0; i < COUNT_OF(sqls); i++) {
        for (int variant = 0; variant < 3; variant++) {
            hook_state hs = {.source_text = "x"};
            if (variant == 2) {
                hs.write_nothing = true;
            } else {
                hs.refuse_rc = SL_EUNSUPPORTED;
                hs.refuse_msg = variant == 1;
            }
            sl_unparse_subst subst = {.ud = &hs, .placeholder = ph_hook, .source = src_hook};
            sl_parse_result *r = parse_ok(sqls[i]);
            sl_buf b;
            sl_buf_init(&b);
            assert_int_equal(sl_buf_printf(&b, "prefix;"), 0);
            sl_error err;
            sl_error_clear(&err);
            int rc = sl_unparse_select(the_select(r), &subst, &b, &err);
            int want = variant == 2 ? SL_EINVAL : SL_EUNSUPPORTED;
            assert_int_equal(rc, want);
            assert_int_equal(err.code, want);
            assert_int_equal(b.len, strlen("prefix;"));
            assert_memory_equal(b.data, "prefix;", b.len + 1);
            if (variant == 1)
                assert_true(strstr(err.msg, "no ") == err.msg);
            else if (variant == 0)
                assert_non_null(strstr(err.msg, "refused"));
            else
                assert_non_null(strstr(err.msg, "wrote no text"));
            sl_buf_fini(&b);
            sl_parse_result_free(r);
        }
    }
}

/* ---------------------------------------------------------------- hand-built trees */

static int unparse_expr_rc(const sl_expr *e, char *text, size_t cap)
{
    sl_buf b;
    sl_buf_init(&b);
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_unparse_expr(e, NULL, &b, &err);
    if (rc == 0)
        snprintf(text, cap, "%s", (const char *)b.data);
    else
        snprintf(text, cap, "%s", err.msg);
    assert_int_equal(rc, err.code);
    sl_buf_fini(&b);
    return rc;
}

static void test_hand_built(void **state)
{
    (void)state;
    char text[SL_ERROR_MSG_MAX + 64];
    sl_expr e;
    memset(&e, 0, sizeof(e));
    e.kind = SL_EX_LITERAL;
    e.u.lit.kind = SL_LIT_INT;
    e.u.lit.i = -5;
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), 0);
    assert_string_equal(text, "(-5)");
    e.u.lit.i = INT64_MIN;
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), 0);
    assert_string_equal(text, "(-9223372036854775808)");
    e.u.lit.kind = SL_LIT_FLOAT;
    e.u.lit.d = -0.5;
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), 0);
    assert_string_equal(text, "(-0.5)");
    e.u.lit.d = 100;
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), 0);
    assert_string_equal(text, "100.0");
    e.u.lit.d = 1e20;
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), 0);
    assert_string_equal(text, "1e+20");
    e.u.lit.d = INFINITY;
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), SL_EINVAL);
    e.u.lit.d = NAN;
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), SL_EINVAL);
    e.u.lit.kind = SL_LIT_STRING;
    e.u.lit.s = "a\0'b";
    e.u.lit.len = 4;
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), 0);
    assert_string_equal(text, "'a\\0''b'");
    e.u.lit.kind = SL_LIT_DURATION;
    e.u.lit.dur.value = 3;
    e.u.lit.dur.unit = 'x';
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), SL_EINVAL);

    /* names the grammar cannot express */
    memset(&e, 0, sizeof(e));
    e.kind = SL_EX_COLUMN;
    e.u.column.name = "";
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), SL_EINVAL);
    memset(&e, 0, sizeof(e));
    e.kind = SL_EX_FUNC;
    e.u.func.name = "not a name";
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), SL_EINVAL);
    e.u.func.name = "select";
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), SL_EINVAL);
    e.u.func.name = "_twstart";
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), SL_EINVAL);
    e.u.func.name = "count";
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), 0);
    assert_string_equal(text, "count()");
    memset(&e, 0, sizeof(e));
    e.kind = SL_EX_CAST;
    e.u.cast.type = SL_T_NULL;
    sl_expr lit = {.kind = SL_EX_LITERAL};
    e.u.cast.arg = &lit;
    assert_int_equal(unparse_expr_rc(&e, text, sizeof(text)), SL_EINVAL);

    /* SELECT clauses the grammar cannot express; out is left as it was */
    sl_parse_result *r = parse_ok("SELECT a FROM t INTERVAL(1s) LIMIT 5");
    sl_select s = *the_select(r);
    sl_buf b;
    sl_buf_init(&b);
    s.limit = -1;
    assert_int_equal(sl_unparse_select(&s, NULL, &b, NULL), SL_EINVAL);
    assert_int_equal(b.len, 0);
    s.limit = 5;
    s.has_interval = false;
    s.has_sliding = true;
    assert_int_equal(sl_unparse_select(&s, NULL, &b, NULL), SL_EINVAL);
    s.has_interval = true;
    s.interval.value = -1;
    assert_int_equal(sl_unparse_select(&s, NULL, &b, NULL), SL_EINVAL);
    s.interval.value = 1;
    s.nitems = 0;
    assert_int_equal(sl_unparse_select(&s, NULL, &b, NULL), SL_EINVAL);
    assert_int_equal(b.len, 0);
    s.nitems = 1;
    assert_int_equal(sl_unparse_select(&s, NULL, &b, NULL), SL_EINVAL); /* no sliding unit */
    s.sliding.value = 10;
    s.sliding.unit = 's';
    assert_int_equal(sl_unparse_select(&s, NULL, &b, NULL), 0);
    assert_string_equal((const char *)b.data, "SELECT a FROM t INTERVAL(1s) SLIDING(10s) LIMIT 5");
    assert_int_equal(sl_unparse_select(NULL, NULL, &b, NULL), SL_EINVAL);
    sl_buf_fini(&b);
    sl_parse_result_free(r);
}

/*
 * A quoted identifier holding a NUL byte is refused by the lexer: names are C strings, so
 * it used to be cut at the NUL (`\0a` became the empty name, which nothing can print).
 */
static void test_nul_in_quoted_name(void **state)
{
    (void)state;
    static const char sql[] = "SELECT `a\0b` FROM t";
    sl_parse_result *r = NULL;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_parse(sql, sizeof(sql) - 1, &r, &err), SL_ESYNTAX);
    assert_null(r);
    assert_string_equal(err.msg, "1:8: NUL byte in quoted identifier");
    /* in a string it is a byte like any other */
    static const char ok[] = "SELECT 'a\0b'";
    assert_int_equal(sl_parse(ok, sizeof(ok) - 1, &r, &err), 0);
    char *text = unparse(the_select(r), NULL);
    assert_string_equal(text, "SELECT 'a\\0b'");
    free(text);
    sl_parse_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_harvested_selects),
        cmocka_unit_test(test_round_trip_stream_queries),
        cmocka_unit_test(test_round_trip_corners),
        cmocka_unit_test(test_round_trip_deep),
        cmocka_unit_test(test_exact_texts),
        cmocka_unit_test(test_subst_placeholders),
        cmocka_unit_test(test_subst_sources),
        cmocka_unit_test(test_keep_item_names),
        cmocka_unit_test(test_refusal),
        cmocka_unit_test(test_hand_built),
        cmocka_unit_test(test_nul_in_quoted_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
