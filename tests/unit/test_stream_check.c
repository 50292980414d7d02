/*
 * test_stream_check.c - CREATE STREAM validation (common/sql/stream_check.h) against the
 * rules of spec/stream-syntax.txt.
 *
 * Every statement is parsed with the real parser, then validated with a fake catalog:
 * `meters` is the spec's super table (ts, current, voltage, phase; tags groupId INT,
 * location VARCHAR, region NCHAR), `d1001` one of its child tables and `ntb` a normal table
 * (ts, s1, s2, v). The spec's examples and one statement per trigger type and option must
 * validate; a table of invalid definitions gives for each the exact message and the line:col
 * of the offending token (located in the SQL text, not taken from the checker's output).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/sql/parser.h"
#include "common/sql/stream_check.h"

static const sl_field meters_cols[] = {{"ts", SL_T_TIMESTAMP, 0},
                                       {"current", SL_T_FLOAT, 0},
                                       {"voltage", SL_T_INT, 0},
                                       {"phase", SL_T_FLOAT, 0}};
static const sl_field meters_tags[] = {
    {"groupId", SL_T_INT, 0}, {"location", SL_T_VARCHAR, 24}, {"region", SL_T_NCHAR, 16}};
static const sl_field ntb_cols[] = {
    {"ts", SL_T_TIMESTAMP, 0}, {"s1", SL_T_INT, 0}, {"s2", SL_T_VARCHAR, 10}, {"v", SL_T_INT, 0}};

static const sl_table_meta meters_meta = {SL_TABLE_SUPER, "db", "meters", SL_PREC_MS, 4,
                                          meters_cols, 3, meters_tags};
static const sl_table_meta d1001_meta = {SL_TABLE_CHILD, "db", "d1001", SL_PREC_MS, 4,
                                         meters_cols, 3, meters_tags};
static const sl_table_meta ntb_meta = {SL_TABLE_NORMAL, "db", "ntb", SL_PREC_MS, 4, ntb_cols,
                                       0, NULL};

/* The fake catalog: the meta of the FROM table, NULL when unknown or without FROM. */
static const sl_table_meta *lookup(const sl_create_stream *cs)
{
    if (!cs->has_from)
        return NULL;
    if (strcmp(cs->from.name, "meters") == 0)
        return &meters_meta;
    if (strcmp(cs->from.name, "d1001") == 0)
        return &d1001_meta;
    if (strcmp(cs->from.name, "ntb") == 0)
        return &ntb_meta;
    return NULL;
}

static sl_parse_result *parse_one(const char *sql)
{
    sl_parse_result *r = NULL;
    sl_error perr;
    sl_error_clear(&perr);
    if (sl_parse(sql, strlen(sql), &r, &perr) != 0)
        fail_msg("parse of \"%s\" failed: %s", sql, perr.msg);
    assert_int_equal(r->nstmts, 1);
    assert_int_equal(r->stmts[0]->kind, SL_STMT_CREATE_STREAM);
    return r;
}

/* Parses sql (one CREATE STREAM) and validates it; returns the code, err filled. */
static int check_sql(const char *sql, sl_error *err)
{
    sl_parse_result *r = parse_one(sql);
    const sl_create_stream *cs = &r->stmts[0]->u.create_stream;
    sl_stream_check_ctx ctx = {lookup(cs), SL_PREC_MS, false};
    sl_error_clear(err);
    int rc = sl_stream_check(cs, &ctx, err);
    sl_parse_result_free(r);
    return rc;
}

static void expect_valid(const char *sql)
{
    sl_error err;
    int rc = check_sql(sql, &err);
    if (rc != 0)
        fail_msg("\"%s\" refused: %d:%d: %s", sql, err.line, err.col, err.msg);
}

/* ---------------------------------------------------------------- valid statements */

static void test_spec_examples(void **state)
{
    (void)state;
    expect_valid("CREATE STREAM s_tag_state\n"
                 "  STATE_WINDOW(voltage >= 220 + groupId)\n"
                 "  FROM meters\n"
                 "  PARTITION BY tbname\n"
                 "  INTO meters_state_out\n"
                 "  AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows;");
    expect_valid("CREATE STREAM s_multi_state\n"
                 "  STATE_WINDOW(s1, s2) EXTEND(0) ZEROTH_STATE(1, NO_ZEROTH)\n"
                 "  FROM ntb\n"
                 "  PARTITION BY tbname\n"
                 "  INTO result_table\n"
                 "  AS\n"
                 "    SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows;");
    expect_valid("CREATE STREAM s_tag_event\n"
                 "  EVENT_WINDOW(START WITH voltage >= 220 + groupId END WITH voltage < 220 + "
                 "groupId)\n"
                 "  FROM meters\n"
                 "  PARTITION BY tbname\n"
                 "  INTO meters_event_out\n"
                 "  AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows;");
}

static const char *const valid_triggers[] = {
    /* PERIOD: bounds, offsets, no trigger table */
    "CREATE STREAM s PERIOD(10a) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(3650d) INTO o AS SELECT _tprev_localtime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(10y) INTO o AS SELECT _tnext_localtime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(130n) NOTIFY('ws://localhost:8080')",
    "CREATE STREAM s PERIOD(1n, 14d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1n, 27d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1w, 1d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1y, 31d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
    "CREATE STREAM s PERIOD(1h, 1m) FROM meters PARTITION BY groupId "
    "STREAM_OPTIONS(IGNORE_NODATA_TRIGGER) INTO o AS SELECT _tlocaltime, %%1, COUNT(*) "
    "FROM %%trows",
    "CREATE STREAM s PERIOD(1h) FROM meters ROLLUP BY location INTO o "
    "OUTPUT_SUBTABLE(concat('r_', %%rollup_tag)) TAGS (path VARCHAR(64) AS %%1) "
    "AS SELECT _tlocaltime, _trollup_tbcount, %%rollup_tag FROM %%trows",
    "CREATE STREAM s PERIOD(1d) STREAM_OPTIONS(CALC_NOTIFY_ONLY) NOTIFY('ws://h:80') "
    "AS SELECT _tlocaltime, _tgrpid FROM meters",
    /* SLIDING */
    "CREATE STREAM s SLIDING(1m) FROM meters INTO o AS SELECT _tcurrent_ts, _tprev_ts, "
    "_tnext_ts, COUNT(*) FROM %%trows",
    "CREATE STREAM s SLIDING(1h, 5m) FROM d1001 NOTIFY('ws://h:1', 'wss://h:443/n?k=v') "
    "AS SELECT _tcurrent_ts, AVG(current) FROM %%trows",
    "CREATE STREAM s SLIDING(1w, 2h) FROM meters PARTITION BY tbname, groupId INTO o "
    "AS SELECT _tcurrent_ts, COUNT(*) FROM %%tbname",
    /* INTERVAL */
    "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, _twend, "
    "_twduration, _twrownum, AVG(voltage) FROM %%trows",
    "CREATE STREAM s INTERVAL(5m, 1m) SLIDING(1m, 10s) FROM meters PARTITION BY tbname "
    "NOTIFY('ws://[::1]:8080/x') ON (WINDOW_OPEN|WINDOW_CLOSE) INTO o "
    "AS SELECT _twstart, MAX(voltage) FROM meters WHERE tbname = %%tbname",
    "CREATE STREAM s INTERVAL(1n) SLIDING(1n) FROM meters INTO o "
    "AS SELECT FIRST(ts), COUNT(*) FROM %%trows",
    /* SESSION */
    "CREATE STREAM s SESSION(ts, 10s) FROM meters PARTITION BY location INTO o "
    "AS SELECT _twstart, %%1, COUNT(*) FROM %%trows",
    "CREATE STREAM s SESSION(TS, 1m) FROM meters ROLLUP BY region INTO o "
    "AS SELECT _twstart, COUNT(*) FROM %%trows",
    /* STATE_WINDOW */
    "CREATE STREAM s STATE_WINDOW(v) EXTEND(2) TRUE_FOR(10m AND COUNT 100) FROM ntb INTO o "
    "AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s STATE_WINDOW(CASE WHEN voltage > 220 THEN 1 ELSE 0 END) EXTEND(1) "
    "ZEROTH_STATE(-1) TRUE_FOR(COUNT 3) FROM d1001 INTO o AS SELECT _twstart, COUNT(*) "
    "FROM %%trows",
    /* EVENT_WINDOW */
    "CREATE STREAM s EVENT_WINDOW(START WITH v > 10 END WITH v < 5) "
    "TRUE_FOR(5s, start(COUNT 2), end(COUNT 3)) FROM ntb INTO o AS SELECT _twstart, "
    "COUNT(*) FROM %%trows",
    "CREATE STREAM s EVENT_WINDOW(START WITH (voltage > 90, voltage > 60)) TRUE_FOR(1w OR "
    "COUNT 2) FROM meters PARTITION BY tbname NOTIFY('ws://h:9') ON (WINDOW_OPEN) "
    "INTO o AS SELECT _twstart, COUNT(*) FROM meters WHERE ts >= _twstart",
    /* COUNT_WINDOW */
    "CREATE STREAM s COUNT_WINDOW(1) FROM ntb STREAM_OPTIONS(DELETE_RECALC) INTO o "
    "AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s COUNT_WINDOW(10, 1, current, voltage) FROM meters PARTITION BY tbname "
    "STREAM_OPTIONS(DELETE_RECALC | IGNORE_DISORDER) INTO o AS SELECT _twstart, COUNT(*) "
    "FROM %%trows",
    "CREATE STREAM s COUNT_WINDOW(1000, 1000) FROM ntb STREAM_OPTIONS(IGNORE_DISORDER) "
    "INTO o (ws, avg_v) AS SELECT _twstart, AVG(v) FROM %%trows",
};

static void test_valid_triggers(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(valid_triggers) / sizeof(valid_triggers[0]); i++)
        expect_valid(valid_triggers[i]);
}

static const char *const valid_options[] = {
    "WATERMARK(10s)",
    "EXPIRED_TIME(1d)",
    "IGNORE_DISORDER",
    "DELETE_RECALC",
    "DELETE_OUTPUT_TABLE",
    "FILL_HISTORY",
    "FILL_HISTORY('2025-01-01 00:00:00')",
    "FILL_HISTORY_FIRST(1735689600000)",
    "CALC_NOTIFY_ONLY",
    "LOW_LATENCY_CALC",
    "PRE_FILTER(voltage > 0 AND groupId < 10 AND tbname <> 'd1')",
    "FORCE_OUTPUT",
    "MAX_DELAY(3s)",
    "EVENT_TYPE(WINDOW_OPEN|WINDOW_CLOSE)",
    "IGNORE_NODATA_TRIGGER",
    "EVENT_TYPE(WINDOW_CLOSE|IDLE) | IDLE_TIMEOUT(1s)",
    "EVENT_TYPE(RESUME) | IDLE_TIMEOUT(10d)",
    "WATERMARK(1s) | EXPIRED_TIME(1h) | IGNORE_DISORDER | FILL_HISTORY_FIRST | MAX_DELAY(1m) "
    "| LOW_LATENCY_CALC | FORCE_OUTPUT",
};

static void test_valid_options(void **state)
{
    (void)state;
    char sql[1024];
    for (size_t i = 0; i < sizeof(valid_options) / sizeof(valid_options[0]); i++) {
        /* WINDOW_OPEN / IDLE events rule out %%trows and _twend: query the table. */
        snprintf(sql, sizeof sql,
                 "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname "
                 "STREAM_OPTIONS(%s) NOTIFY('ws://localhost:8080/notify') ON (WINDOW_CLOSE) "
                 "INTO o AS SELECT _twstart, COUNT(*) AS cnt FROM meters",
                 valid_options[i]);
        expect_valid(sql);
    }
    /* options the spec lets PERIOD / plain SLIDING ignore */
    expect_valid("CREATE STREAM s PERIOD(1h) STREAM_OPTIONS(EVENT_TYPE(WINDOW_OPEN) | "
                 "MAX_DELAY(5s)) NOTIFY('ws://h:80') INTO o AS SELECT _tlocaltime, COUNT(*) "
                 "FROM meters");
    expect_valid("CREATE STREAM s SLIDING(1m) FROM ntb STREAM_OPTIONS(EVENT_TYPE(WINDOW_OPEN)) "
                 "INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM %%trows");
    /* idle placeholders with idle events; notification options; result-column WHERE */
    expect_valid("CREATE STREAM s SESSION(ts, 1m) FROM ntb STREAM_OPTIONS(EVENT_TYPE(IDLE|RESUME) "
                 "| IDLE_TIMEOUT(30s)) NOTIFY('ws://h:80') ON (IDLE|RESUME) WHERE cnt > 0 "
                 "NOTIFY_OPTIONS(NOTIFY_HISTORY) INTO o AS SELECT NOW, _tidlestart, _tidleend, "
                 "COUNT(*) AS cnt FROM ntb");
}

/* ---------------------------------------------------------------- invalid statements */

typedef struct bad_case {
    const char *sql;
    int line, col;
    const char *msg;
} bad_case;

static const bad_case bad_cases[] = {
    {"CREATE STREAM s SLIDING(1m) INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM meters",
     1, 17, "a trigger table is required for SLIDING (FROM ...)"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) NOTIFY('ws://h:1') ON (WINDOW_CLOSE)",
     1, 17, "a trigger table is required for INTERVAL (FROM ...)"},
    {"CREATE STREAM s STATE_WINDOW(v) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 17, "a trigger table is required for STATE_WINDOW (FROM ...)"},
    {"CREATE STREAM s\n  COUNT_WINDOW(3)\n  INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     2, 3, "a trigger table is required for COUNT_WINDOW (FROM ...)"},
    {"CREATE STREAM s PERIOD(5a) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
     1, 24, "PERIOD must be between 10a and 3650d"},
    {"CREATE STREAM s PERIOD(3651d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
     1, 24, "PERIOD must be between 10a and 3650d"},
    {"CREATE STREAM s PERIOD(131n) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
     1, 24, "PERIOD must be between 10a and 3650d"},
    {"CREATE STREAM s PERIOD(1n, 28d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
     1, 28, "the offset of PERIOD(1n, 28d) must be less than the period (a month counts as 28 days)"},
    {"CREATE STREAM s PERIOD(1w, 7d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
     1, 28, "the offset of PERIOD(1w, 7d) must be less than the period"},
    {"CREATE STREAM s PERIOD(1y, 365d) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
     1, 28, "the offset of PERIOD(1y, 365d) must be less than the period (a year counts as 365 days)"},
    {"CREATE STREAM s PERIOD(1d, 1w) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
     1, 28, "the offset of PERIOD must use the units a, s, m, h or d"},
    {"CREATE STREAM s SLIDING(1h, 1d) FROM meters INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM meters",
     1, 29, "the offset of SLIDING must use the units a, s, m or h"},
    {"CREATE STREAM s SLIDING(0s) FROM meters INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM meters",
     1, 25, "SLIDING must be positive"},
    {"CREATE STREAM s INTERVAL(10m) SLIDING(1m, 2m) FROM meters INTO o AS SELECT _twstart, "
     "COUNT(*) FROM meters",
     1, 43, "the offset of SLIDING must be less than the sliding"},
    {"CREATE STREAM s INTERVAL(10m) SLIDING(1m, 1m) FROM meters INTO o AS SELECT _twstart, "
     "COUNT(*) FROM meters",
     1, 43, "the offset of SLIDING must be less than the sliding"},
    {"CREATE STREAM s PERIOD(1h, 24h) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
     1, 28, "the offset of PERIOD(1h, 24h) must be less than one day"},
    {"CREATE STREAM s SLIDING(30m, 25h) FROM meters INTO o AS SELECT _tcurrent_ts, COUNT(*) "
     "FROM meters",
     1, 30, "the offset of SLIDING(30m, 25h) must be less than one day"},
    {"CREATE STREAM s SLIDING(1u) FROM meters INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM meters",
     1, 25, "SLIDING 1u is finer than the database precision (ms)"},
    {"CREATE STREAM s INTERVAL(0s) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 26, "INTERVAL must be positive"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(2m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 38, "SLIDING must not be longer than INTERVAL"},
    {"CREATE STREAM s INTERVAL(1m, 1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 30, "the offset of INTERVAL must be less than the interval"},
    {"CREATE STREAM s SESSION(voltage, 10s) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 25, "SESSION column 'voltage' must be the primary key column 'ts'"},
    {"CREATE STREAM s SESSION(ts, 0s) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 29, "SESSION gap must be positive"},
    {"CREATE STREAM s SESSION(ts, 1n) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 29, "SESSION gap cannot use the calendar units n and y"},
    {"CREATE STREAM s STATE_WINDOW(v) EXTEND(3) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 33, "EXTEND must be 0, 1 or 2"},
    {"CREATE STREAM s STATE_WINDOW(s1, s2) ZEROTH_STATE(1) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 38, "ZEROTH_STATE needs 2 values, one per state key (got 1)"},
    {"CREATE STREAM s STATE_WINDOW(s1) ZEROTH_STATE(s2) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 47, "ZEROTH_STATE values must be constants or NO_ZEROTH"},
    {"CREATE STREAM s STATE_WINDOW(nosuch) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 30, "unknown column 'nosuch' in STATE_WINDOW: not a column or tag of ntb"},
    {"CREATE STREAM s STATE_WINDOW(count(v)) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 30, "STATE_WINDOW cannot use the aggregate function count"},
    {"CREATE STREAM s STATE_WINDOW(v) TRUE_FOR(start(1s)) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 42, "TRUE_FOR start(...) and end(...) are only supported for a single-condition EVENT_WINDOW"},
    {"CREATE STREAM s EVENT_WINDOW(START WITH (v > 1, v > 2) END WITH v < 0) TRUE_FOR(end(1s)) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 81, "TRUE_FOR start(...) and end(...) are only supported for a single-condition EVENT_WINDOW"},
    {"CREATE STREAM s EVENT_WINDOW(START WITH v > 1 END WITH v < 0) TRUE_FOR(1s, 2s) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 76, "TRUE_FOR gives a window condition more than once"},
    {"CREATE STREAM s EVENT_WINDOW(START WITH v > 1 END WITH v < 0) TRUE_FOR(start(1s), start(2s)) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 83, "TRUE_FOR gives start(...) more than once"},
    {"CREATE STREAM s EVENT_WINDOW(START WITH v > 1 END WITH v < 0) TRUE_FOR(1n) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 72, "TRUE_FOR durations must use the units a, s, m, h, d or w"},
    {"CREATE STREAM s STATE_WINDOW(v) TRUE_FOR(0s) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 42, "TRUE_FOR duration must be positive"},
    {"CREATE STREAM s STATE_WINDOW(v) TRUE_FOR(COUNT 0) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 42, "TRUE_FOR COUNT must be at least 1"},
    {"CREATE STREAM s EVENT_WINDOW(START WITH nosuch > 1 END WITH v < 0) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 41, "unknown column 'nosuch' in EVENT_WINDOW: not a column or tag of ntb"},
    {"CREATE STREAM s COUNT_WINDOW(0) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 30, "COUNT_WINDOW count must be at least 1"},
    {"CREATE STREAM s COUNT_WINDOW(5, 6) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 33, "COUNT_WINDOW sliding must be between 1 and the count (5)"},
    {"CREATE STREAM s COUNT_WINDOW(5, 0) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 33, "COUNT_WINDOW sliding must be between 1 and the count (5)"},
    {"CREATE STREAM s COUNT_WINDOW(5, groupId) FROM meters PARTITION BY tbname INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 33, "COUNT_WINDOW column 'groupId' is a tag: only regular columns are supported"},
    {"CREATE STREAM s COUNT_WINDOW(5, nosuch) FROM ntb INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 33, "COUNT_WINDOW column 'nosuch' is not a column of ntb"},
    {"CREATE STREAM s STATE_WINDOW(voltage) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 17, "STATE_WINDOW on a super table needs PARTITION BY tbname"},
    {"CREATE STREAM s EVENT_WINDOW(START WITH voltage > 1 END WITH voltage < 0) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 17, "EVENT_WINDOW on a super table needs PARTITION BY tbname"},
    {"CREATE STREAM s COUNT_WINDOW(10) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 17, "COUNT_WINDOW on a super table needs PARTITION BY tbname"},
    {"CREATE STREAM s STATE_WINDOW(voltage) FROM meters PARTITION BY groupId INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 64, "STATE_WINDOW only supports grouping by subtable: PARTITION BY tbname"},
    {"CREATE STREAM s STATE_WINDOW(voltage) FROM meters ROLLUP BY location INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 61, "ROLLUP BY only works with PERIOD, SLIDING, INTERVAL and SESSION"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters ROLLUP BY groupId INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 64, "ROLLUP BY needs a VARCHAR or NCHAR tag"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters ROLLUP BY nosuch INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 64, "ROLLUP BY tag 'nosuch' is not a tag of meters"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM ntb ROLLUP BY s2 INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 61, "ROLLUP BY needs a super table as trigger table"},
    {"CREATE STREAM s PERIOD(1h) ROLLUP BY location INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
     1, 38, "ROLLUP BY needs a trigger table (FROM ...)"},
    {"CREATE STREAM s PERIOD(1h) PARTITION BY tbname INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
     1, 41, "PARTITION BY needs a trigger table (FROM ...)"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY current INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 67, "PARTITION BY 'current' is a column, not a tag: only tbname and tags can group a stream"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY nosuch INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 67, "PARTITION BY 'nosuch' is not a tag of meters"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY groupId + 1 INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 67, "PARTITION BY supports only tbname and tag columns"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY groupId, groupId INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 76, "PARTITION BY names 'groupId' twice: without TAGS the grouping columns name the output tags"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY _tgrpid INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 67, "_tgrpid can only be used in SELECT and WHERE of the stream's query"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(WATERMARK(1s) | WATERMARK(2s)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 85, "option WATERMARK is given twice"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(MAX_DELAY(2s)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 79, "MAX_DELAY must be at least 3s"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(MAX_DELAY(5000a)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 79, "MAX_DELAY must use the units s, m, h or d"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(EVENT_TYPE(IDLE) | IDLE_TIMEOUT(500a)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 101, "IDLE_TIMEOUT must be between 1s and 10d"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(EVENT_TYPE(IDLE) | IDLE_TIMEOUT(11d)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 101, "IDLE_TIMEOUT must be between 1s and 10d"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(IDLE_TIMEOUT(1m)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 69, "IDLE_TIMEOUT needs EVENT_TYPE(IDLE) or EVENT_TYPE(RESUME)"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(EVENT_TYPE(WINDOW_CLOSE|RESUME)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 69, "EVENT_TYPE(RESUME) needs IDLE_TIMEOUT"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(FILL_HISTORY | FILL_HISTORY_FIRST) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 84, "FILL_HISTORY and FILL_HISTORY_FIRST cannot be used together"},
    {"CREATE STREAM s PERIOD(1h) FROM meters STREAM_OPTIONS(FILL_HISTORY) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
     1, 55, "FILL_HISTORY is not supported with PERIOD"},
    {"CREATE STREAM s PERIOD(1h) STREAM_OPTIONS(FILL_HISTORY_FIRST('2025-01-01')) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
     1, 43, "FILL_HISTORY_FIRST is not supported with PERIOD"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(FILL_HISTORY('2025-13-01')) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 82, "FILL_HISTORY start time '2025-13-01' is not a valid timestamp"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(FILL_HISTORY(voltage)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 82, "FILL_HISTORY start time must be a constant"},
    {"CREATE STREAM s COUNT_WINDOW(5) FROM ntb STREAM_OPTIONS(DELETE_RECALC) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 57, "DELETE_RECALC is only supported for COUNT_WINDOW with a sliding step of 1"},
    {"CREATE STREAM s COUNT_WINDOW(5, 2) FROM ntb STREAM_OPTIONS(IGNORE_DISORDER | DELETE_RECALC) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 78, "DELETE_RECALC is only supported for COUNT_WINDOW with a sliding step of 1"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY groupId STREAM_OPTIONS(DELETE_OUTPUT_TABLE) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 90, "DELETE_OUTPUT_TABLE needs grouping by subtable (PARTITION BY tbname)"},
    {"CREATE STREAM s SESSION(ts, 10s) FROM ntb STREAM_OPTIONS(IGNORE_NODATA_TRIGGER) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 58, "IGNORE_NODATA_TRIGGER only applies to SLIDING, INTERVAL and PERIOD triggers"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(PRE_FILTER(nosuch > 0)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 80, "unknown column 'nosuch' in PRE_FILTER: not a column or tag of meters"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(PRE_FILTER(_twstart > 0)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 80, "_twstart can only be used in SELECT and WHERE of the stream's query"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(PRE_FILTER(sum(voltage) > 0)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 80, "PRE_FILTER cannot use the aggregate function sum"},
    {"CREATE STREAM s PERIOD(1h) STREAM_OPTIONS(PRE_FILTER(voltage > 0)) INTO o AS SELECT _tlocaltime, COUNT(*) FROM meters",
     1, 43, "PRE_FILTER needs a trigger table (FROM ...)"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(CALC_NOTIFY_ONLY) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 69, "CALC_NOTIFY_ONLY needs a NOTIFY clause"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(WATERMARK(1n)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 79, "WATERMARK cannot use the calendar units n and y"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters STREAM_OPTIONS(EXPIRED_TIME(1w)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 82, "EXPIRED_TIME must use the units a, s, m, h or d"},
    {"CREATE STREAM s PERIOD(1h) NOTIFY('http://x')",
     1, 35, "notify URL 'http://x' must start with ws:// or wss://"},
    {"CREATE STREAM s PERIOD(1h) NOTIFY('ws://a:1', 'ws://host')",
     1, 47, "notify URL 'ws://host' needs a port"},
    {"CREATE STREAM s PERIOD(1h) NOTIFY('ws://:8080')",
     1, 35, "notify URL 'ws://:8080' needs a host"},
    {"CREATE STREAM s PERIOD(1h) NOTIFY('wss://h:99999/x')",
     1, 35, "notify URL 'wss://h:99999/x' has an invalid port"},
    {"CREATE STREAM s PERIOD(1h) NOTIFY('ws://h:80x/p')",
     1, 35, "notify URL 'ws://h:80x/p' has an invalid port"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters NOTIFY('ws://h:80')",
     1, 54, "NOTIFY ... ON (...) is required for INTERVAL triggers"},
    {"CREATE STREAM s STATE_WINDOW(v) FROM ntb NOTIFY('ws://h:80')",
     1, 42, "NOTIFY ... ON (...) is required for STATE_WINDOW triggers"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters NOTIFY('ws://h:80') ON (WINDOW_CLOSE|IDLE)",
     1, 74, "NOTIFY ... ON (IDLE) needs IDLE_TIMEOUT in STREAM_OPTIONS"},
    {"CREATE STREAM s PERIOD(1h) NOTIFY('ws://h:80') NOTIFY_OPTIONS(NOTIFY_HISTORY|NOTIFY_HISTORY)",
     1, 28, "notify option NOTIFY_HISTORY is given twice"},
    {"CREATE STREAM s PERIOD(1h) NOTIFY('ws://h:80') WHERE nosuch > 0 AS SELECT _tlocaltime, COUNT(*) AS cnt FROM meters",
     1, 54, "NOTIFY ... WHERE column 'nosuch' is not a column of the stream's result"},
    {"CREATE STREAM s PERIOD(1h) NOTIFY('ws://h:80') WHERE _tgrpid > 0 AS SELECT _tlocaltime, COUNT(*) AS cnt FROM meters",
     1, 54, "_tgrpid can only be used in SELECT and WHERE of the stream's query"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o OUTPUT_SUBTABLE(concat('a', 'b')) AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 77, "OUTPUT_SUBTABLE needs PARTITION BY or ROLLUP BY"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o TAGS (g INT AS 1) AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 67, "TAGS needs PARTITION BY or ROLLUP BY"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters ROLLUP BY location INTO o OUTPUT_SUBTABLE(concat('a', _trollup_tbcount)) AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 108, "_trollup_tbcount cannot be used in OUTPUT_SUBTABLE or TAGS"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters ROLLUP BY location INTO o TAGS (n BIGINT AS _trollup_tbcount) AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 98, "_trollup_tbcount cannot be used in OUTPUT_SUBTABLE or TAGS"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o OUTPUT_SUBTABLE(concat('t', %%2)) AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 109, "%%2 refers to a PARTITION BY column that does not exist"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname, groupId INTO o AS SELECT _twstart, %%3, COUNT(*) FROM %%trows",
     1, 110, "%%3 refers to a PARTITION BY column that does not exist"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o OUTPUT_SUBTABLE(concat('t', voltage)) AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 109, "OUTPUT_SUBTABLE can only use the grouping columns: 'voltage' is not one"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o TAGS (t1 INT AS _twrownum) AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 97, "_twrownum can only be used in SELECT and WHERE of the stream's query"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o AS SELECT _twstart, %%rollup_tag FROM %%trows",
     1, 101, "%%rollup_tag needs ROLLUP BY"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname STREAM_OPTIONS(EVENT_TYPE(WINDOW_OPEN)) INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 155, "%%trows needs WINDOW_CLOSE"},
    {"CREATE STREAM s PERIOD(1h) INTO o AS SELECT _tlocaltime, COUNT(*) FROM %%trows",
     1, 72, "%%trows needs a trigger table (FROM ...)"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o AS SELECT _twstart, COUNT(*) FROM %%trows WHERE voltage > 1",
     1, 129, "a query on %%trows cannot have WHERE"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname STREAM_OPTIONS(EVENT_TYPE(WINDOW_OPEN|WINDOW_CLOSE)) INTO o AS SELECT _twstart, _twend, COUNT(*) FROM meters",
     1, 154, "_twend is only valid with WINDOW_CLOSE"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname STREAM_OPTIONS(EVENT_TYPE(IDLE) | IDLE_TIMEOUT(1m)) INTO o AS SELECT _twstart, _tidlestart FROM meters",
     1, 153, "_tidlestart cannot be used with _twstart"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, _tprev_localtime FROM %%trows",
     1, 81, "_tprev_localtime is only valid for PERIOD triggers"},
    {"CREATE STREAM s PERIOD(1h) INTO o AS SELECT _tcurrent_ts, COUNT(*) FROM meters",
     1, 45, "_tcurrent_ts is only valid for SLIDING triggers"},
    {"CREATE STREAM s SLIDING(1m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM meters",
     1, 58, "_twstart is only valid for window triggers"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT NOW, _tidleend FROM meters",
     1, 76, "_tidleend needs EVENT_TYPE(IDLE) or EVENT_TYPE(RESUME)"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, _trollup_tbcount FROM meters",
     1, 81, "_trollup_tbcount needs ROLLUP BY"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM %%tbname",
     1, 95, "%%tbname needs PARTITION BY tbname"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM meters GROUP BY _tgrpid",
     1, 111, "_tgrpid can only be used in SELECT and WHERE of the stream's query"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twstart, COUNT(*) FROM meters ORDER BY _twduration",
     1, 111, "_twduration can only be used in SELECT and WHERE of the stream's query"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT 'abc', COUNT(*) FROM meters",
     1, 71, "the first column of the stream's query must be a TIMESTAMP"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT COUNT(*), _twstart FROM meters",
     1, 71, "the first column of the stream's query must be a TIMESTAMP"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT voltage, current FROM %%trows",
     1, 71, "the first column of the stream's query must be a TIMESTAMP"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _twduration, COUNT(*) FROM meters",
     1, 71, "the first column of the stream's query must be a TIMESTAMP"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT CAST(_twstart AS BIGINT), COUNT(*) FROM meters",
     1, 71, "the first column of the stream's query must be a TIMESTAMP"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o AS SELECT _wduration, COUNT(*) FROM meters",
     1, 71, "the first column of the stream's query must be a TIMESTAMP"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o",
     1, 59, "INTO needs AS subquery"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 57, "AS subquery needs INTO or NOTIFY: its results would go nowhere"},
    {"CREATE STREAM s PERIOD(1h) FROM meters",
     1, 15, "a stream needs AS subquery or NOTIFY"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO meters AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 59, "the INTO table cannot be the trigger table"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o (a, b, c) AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 62, "the column list names 3 columns but the query returns 2"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o (a COMPOSITE KEY, b) AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 62, "COMPOSITE KEY can only mark the second output column"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters INTO o (a, a) AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 65, "output column 'a' is given twice"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o TAGS (g INT AS 1, g INT AS 2) AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 99, "tag 'g' is given twice"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname NOTIFY('ws://h:80') ON (WINDOW_CLOSE) OUTPUT_SUBTABLE(concat('a', tbname)) AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 128, "OUTPUT_SUBTABLE needs INTO"},
    {"CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM information_schema.ins_tables INTO o AS SELECT _twstart, COUNT(*) FROM %%trows",
     1, 47, "a system table cannot be a trigger table"},
    {"CREATE STREAM s PERIOD(1h) INTO o AS SELECT _tlocaltime, _tgrpid FROM meters WHERE _tgrpid > %%1",
     1, 94, "%%1 refers to a PARTITION BY column that does not exist"},
};

static void test_invalid(void **state)
{
    (void)state;
    size_t n = sizeof(bad_cases) / sizeof(bad_cases[0]);
    assert_true(n >= 60);
    for (size_t i = 0; i < n; i++) {
        const bad_case *b = &bad_cases[i];
        sl_error err;
        int rc = check_sql(b->sql, &err);
        if (rc != SL_EINVAL || err.code != SL_EINVAL || err.line != b->line ||
            err.col != b->col || strcmp(err.msg, b->msg) != 0)
            fail_msg("case %zu \"%s\":\n  want %d %d:%d: %s\n  got  %d %d:%d: %s", i, b->sql,
                     SL_EINVAL, b->line, b->col, b->msg, rc, err.line, err.col, err.msg);
    }
}

/* ROLLUP BY with PARTITION BY is a syntax error, so the tree is built by hand from a valid
 * statement; a NULL ctx means "no meta, ms precision". */
static void test_rollup_and_partition(void **state)
{
    (void)state;
    const char *sql = "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname "
                      "INTO o AS SELECT _twstart, COUNT(*) FROM %%trows";
    sl_parse_result *r = parse_one(sql);
    sl_create_stream *cs = &r->stmts[0]->u.create_stream;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_stream_check(cs, NULL, &err), 0);
    cs->has_rollup = true;
    cs->rollup_tag = "location";
    cs->rollup_pos = (sl_pos){1, 80};
    assert_int_equal(sl_stream_check(cs, NULL, &err), SL_EINVAL);
    assert_int_equal(err.line, 1);
    assert_int_equal(err.col, 80);
    assert_string_equal(err.msg, "ROLLUP BY and PARTITION BY cannot be used together");
    sl_parse_result_free(r);
}

/* Precision: 1u is fine in a us database; without meta the schema rules are skipped. */
static void test_precision_and_no_meta(void **state)
{
    (void)state;
    const char *sql = "CREATE STREAM s SLIDING(1u) FROM meters INTO o AS SELECT _tcurrent_ts, "
                      "COUNT(*) FROM %%trows";
    sl_parse_result *r = parse_one(sql);
    sl_stream_check_ctx ctx = {NULL, SL_PREC_US, false};
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_stream_check(&r->stmts[0]->u.create_stream, &ctx, &err), 0);
    sl_parse_result_free(r);
    r = parse_one("CREATE STREAM s STATE_WINDOW(nosuch) FROM meters INTO o AS SELECT _twstart, "
                  "COUNT(*) FROM %%trows");
    assert_int_equal(sl_stream_check(&r->stmts[0]->u.create_stream, NULL, &err), 0);
    sl_parse_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_examples),
        cmocka_unit_test(test_valid_triggers),
        cmocka_unit_test(test_valid_options),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_rollup_and_partition),
        cmocka_unit_test(test_precision_and_no_meta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
