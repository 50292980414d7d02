/*
 * test_parser_stream.c - the parser on the whole CREATE STREAM grammar of
 * spec/stream-syntax.txt and on DROP/SHOW/START/STOP STREAM.
 *
 * The three example statements of the spec are checked verbatim; then each trigger type,
 * each clause of TRUE_FOR, each stream option, the notification definition and each
 * output clause, with dumps written by hand (notation in common/sql/parser.c) and direct
 * checks of the fields and positions the dump does not show.
 */
#include "test_parser_util.h"

/* ---------------------------------------------------------------- the spec's examples */

static void test_spec_examples(void **state)
{
    (void)state;
    tp_check("CREATE STREAM s_tag_state\n"
             "  STATE_WINDOW(voltage >= 220 + groupId)\n"
             "  FROM meters\n"
             "  PARTITION BY tbname\n"
             "  INTO meters_state_out\n"
             "  AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows;",
             "(create-stream s_tag_state (state-window (exprs (>= (col voltage) "
             "(+ (int 220) (col groupId))))) (from meters) (partition-by (col tbname)) "
             "(into meters_state_out) (query (select (items (as (ph _twstart) ts) "
             "(as (ph _twend) te) (as (func COUNT (star)) cnt)) (from %%trows))))");
    tp_check("CREATE STREAM s_multi_state\n"
             "  STATE_WINDOW(s1, s2) EXTEND(0) ZEROTH_STATE(1, NO_ZEROTH)\n"
             "  FROM ntb\n"
             "  PARTITION BY tbname\n"
             "  INTO result_table\n"
             "  AS\n"
             "    SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows;",
             "(create-stream s_multi_state (state-window (exprs (col s1) (col s2)) (extend 0) "
             "(zeroth-state (int 1) no-zeroth)) (from ntb) (partition-by (col tbname)) "
             "(into result_table) (query (select (items (as (ph _twstart) ts) "
             "(as (ph _twend) te) (as (func COUNT (star)) cnt)) (from %%trows))))");
    tp_check("CREATE STREAM s_tag_event\n"
             "  EVENT_WINDOW(START WITH voltage >= 220 + groupId END WITH voltage < 220 + groupId)\n"
             "  FROM meters\n"
             "  PARTITION BY tbname\n"
             "  INTO meters_event_out\n"
             "  AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows;",
             "(create-stream s_tag_event (event-window (start (>= (col voltage) "
             "(+ (int 220) (col groupId)))) (end (< (col voltage) (+ (int 220) (col groupId))))) "
             "(from meters) (partition-by (col tbname)) (into meters_event_out) "
             "(query (select (items (as (ph _twstart) ts) (as (ph _twend) te) "
             "(as (func COUNT (star)) cnt)) (from %%trows))))");

    /* the fields behind the first example */
    sl_parse_result *r = tp_parse("CREATE STREAM s_tag_state\n"
                                  "  STATE_WINDOW(voltage >= 220 + groupId)\n"
                                  "  FROM meters\n"
                                  "  PARTITION BY tbname\n"
                                  "  INTO meters_state_out\n"
                                  "  AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt "
                                  "FROM %%trows;");
    const sl_stmt *st = r->stmts[0];
    const sl_create_stream *c = &st->u.create_stream;
    assert_int_equal(st->kind, SL_STMT_CREATE_STREAM);
    assert_false(c->if_not_exists);
    assert_null(c->name.db);
    assert_string_equal(c->name.name, "s_tag_state");
    assert_int_equal(c->trigger.kind, SL_TRIG_STATE);
    assert_int_equal(c->trigger.pos.line, 2);
    assert_int_equal(c->trigger.pos.col, 3);
    assert_int_equal(c->trigger.state_exprs.n, 1);
    assert_false(c->trigger.has_extend);
    assert_int_equal(c->trigger.nzeroth, 0);
    assert_int_equal(c->trigger.true_for.n, 0);
    assert_true(c->has_from);
    assert_string_equal(c->from.name, "meters");
    assert_int_equal(c->from.pos.line, 3);
    assert_int_equal(c->from.pos.col, 8);
    assert_int_equal(c->partition_by.n, 1);
    assert_false(c->has_rollup);
    assert_int_equal(c->nopts, 0);
    assert_false(c->notify.present);
    assert_true(c->has_into);
    assert_string_equal(c->into.name, "meters_state_out");
    assert_false(c->nodelay_create_subtable);
    assert_null(c->output_subtable);
    assert_int_equal(c->nout_cols, 0);
    assert_int_equal(c->ntags, 0);
    assert_non_null(c->query);
    assert_string_equal(c->query->text,
                        "SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows");
    assert_string_equal(c->query->items[2].text, "COUNT(*)");
    assert_int_equal(c->query->from->kind, SL_FROM_TROWS);
    assert_int_equal(c->query->pos.line, 6);
    assert_int_equal(c->query->pos.col, 6);
    assert_string_equal(st->text, "CREATE STREAM s_tag_state\n"
                                  "  STATE_WINDOW(voltage >= 220 + groupId)\n"
                                  "  FROM meters\n"
                                  "  PARTITION BY tbname\n"
                                  "  INTO meters_state_out\n"
                                  "  AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt "
                                  "FROM %%trows");
    sl_parse_result_free(r);
}

/* ---------------------------------------------------------------- triggers */

static void test_time_triggers(void **state)
{
    (void)state;
    tp_check("CREATE STREAM s PERIOD(1h)", "(create-stream s (period 1h))");
    tp_check("CREATE STREAM IF NOT EXISTS power.s PERIOD(1n, 14d) INTO power.out "
             "AS SELECT _tlocaltime, count(*) FROM meters",
             "(create-stream if-not-exists power.s (period 1n 14d) (into power.out) "
             "(query (select (items (ph _tlocaltime) (func count (star))) (from meters))))");
    tp_check("CREATE STREAM s SLIDING(10s) FROM t", "(create-stream s (sliding 10s) (from t))");
    tp_check("CREATE STREAM s SLIDING(1h, 5m) FROM db.t PARTITION BY tbname",
             "(create-stream s (sliding 1h 5m) (from db.t) (partition-by (col tbname)))");
    tp_check("CREATE STREAM s INTERVAL(1m) SLIDING(30s) FROM t",
             "(create-stream s (interval 1m (sliding 30s)) (from t))");
    tp_check("CREATE STREAM s INTERVAL(1h, 10m) SLIDING(1h, 1m) FROM t",
             "(create-stream s (interval 1h 10m (sliding 1h 1m)) (from t))");
    tp_check("CREATE STREAM s SESSION(ts, 10s) FROM t PARTITION BY tbname, groupId",
             "(create-stream s (session ts 10s) (from t) (partition-by (col tbname) "
             "(col groupId)))");

    sl_parse_result *r = tp_parse("CREATE STREAM s INTERVAL(1h, 10m) SLIDING(2h, 3m) FROM t");
    const sl_trigger *t = &r->stmts[0]->u.create_stream.trigger;
    assert_int_equal(t->kind, SL_TRIG_INTERVAL);
    assert_int_equal(t->interval.value, 1);
    assert_int_equal(t->interval.unit, 'h');
    assert_int_equal(t->interval.pos.col, 26);
    assert_true(t->has_interval_offset);
    assert_int_equal(t->interval_offset.value, 10);
    assert_int_equal(t->interval_offset.unit, 'm');
    assert_int_equal(t->sliding.value, 2);
    assert_true(t->has_sliding_offset);
    assert_int_equal(t->sliding_offset.value, 3);
    sl_parse_result_free(r);

    r = tp_parse("CREATE STREAM s PERIOD(10a)");
    t = &r->stmts[0]->u.create_stream.trigger;
    assert_int_equal(t->kind, SL_TRIG_PERIOD);
    assert_int_equal(t->period.value, 10);
    assert_int_equal(t->period.unit, 'a');
    assert_false(t->has_period_offset);
    assert_false(r->stmts[0]->u.create_stream.has_from);
    assert_false(r->stmts[0]->u.create_stream.has_into);
    assert_null(r->stmts[0]->u.create_stream.query);
    sl_parse_result_free(r);

    r = tp_parse("CREATE STREAM s SESSION(ts, 10s) FROM t");
    t = &r->stmts[0]->u.create_stream.trigger;
    assert_int_equal(t->kind, SL_TRIG_SESSION);
    assert_string_equal(t->session_col, "ts");
    assert_int_equal(t->session_col_pos.col, 25);
    assert_int_equal(t->session_gap.value, 10);
    sl_parse_result_free(r);
}

static void test_state_window(void **state)
{
    (void)state;
    tp_check("CREATE STREAM s STATE_WINDOW(status) FROM t",
             "(create-stream s (state-window (exprs (col status))) (from t))");
    tp_check("CREATE STREAM s STATE_WINDOW(CASE WHEN v > 10 THEN 1 ELSE 0 END, "
             "IF(c, 1, 2), CAST(x AS INT)) EXTEND(2) FROM t",
             "(create-stream s (state-window (exprs (case (when (> (col v) (int 10)) (int 1)) "
             "(else (int 0))) (func IF (col c) (int 1) (int 2)) (cast (col x) INT)) "
             "(extend 2)) (from t))");
    tp_check("CREATE STREAM s STATE_WINDOW(a, b, c) ZEROTH_STATE(NO_ZEROTH, 'idle', -1) FROM t",
             "(create-stream s (state-window (exprs (col a) (col b) (col c)) "
             "(zeroth-state no-zeroth (str 'idle') (- (int 1)))) (from t))");
    tp_check("CREATE STREAM s STATE_WINDOW(a) EXTEND(1) ZEROTH_STATE(0) TRUE_FOR(10m) FROM t",
             "(create-stream s (state-window (exprs (col a)) (extend 1) (zeroth-state (int 0)) "
             "(true-for 10m)) (from t))");

    sl_parse_result *r = tp_parse("CREATE STREAM s STATE_WINDOW(a, b) EXTEND(1) "
                                  "ZEROTH_STATE(1, NO_ZEROTH) FROM t");
    const sl_trigger *t = &r->stmts[0]->u.create_stream.trigger;
    assert_int_equal(t->kind, SL_TRIG_STATE);
    assert_int_equal(t->state_exprs.n, 2);
    assert_true(t->has_extend);
    assert_int_equal(t->extend, 1);
    assert_int_equal(t->extend_pos.col, 36);
    assert_int_equal(t->nzeroth, 2);
    assert_int_equal(t->zeroth_pos.col, 46);
    assert_non_null(t->zeroth[0].expr);
    assert_null(t->zeroth[1].expr);
    assert_int_equal(t->zeroth[1].pos.col, 62);
    sl_parse_result_free(r);
}

static void test_true_for(void **state)
{
    (void)state;
    static const struct {
        const char *clause;
        const char *dump;
    } cases[] = {
        {"TRUE_FOR(10m)", "(true-for 10m)"},
        {"TRUE_FOR(COUNT 100)", "(true-for (count 100))"},
        {"TRUE_FOR(10m AND COUNT 100)", "(true-for (and 10m (count 100)))"},
        {"TRUE_FOR(10m OR COUNT 100)", "(true-for (or 10m (count 100)))"},
        {"TRUE_FOR(start(COUNT 2))", "(true-for (start (count 2)))"},
        {"TRUE_FOR(end(3s))", "(true-for (end 3s))"},
        {"TRUE_FOR(5s, start(COUNT 2), end(COUNT 3))",
         "(true-for 5s (start (count 2)) (end (count 3)))"},
        {"TRUE_FOR(START(1s AND COUNT 2), END(2s OR COUNT 4))",
         "(true-for (start (and 1s (count 2))) (end (or 2s (count 4))))"},
        {"true_for(1w, 1w)", "(true-for 1w 1w)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char sql[256], dump[512];
        snprintf(sql, sizeof(sql),
                 "CREATE STREAM s EVENT_WINDOW(START WITH a > 0 END WITH a < 0) %s FROM t",
                 cases[i].clause);
        snprintf(dump, sizeof(dump),
                 "(create-stream s (event-window (start (> (col a) (int 0))) "
                 "(end (< (col a) (int 0))) %s) (from t))",
                 cases[i].dump);
        tp_check(sql, dump);
        snprintf(sql, sizeof(sql), "CREATE STREAM s STATE_WINDOW(a) %s FROM t", cases[i].clause);
        snprintf(dump, sizeof(dump), "(create-stream s (state-window (exprs (col a)) %s) (from t))",
                 cases[i].dump);
        tp_check(sql, dump);
    }

    sl_parse_result *r = tp_parse("CREATE STREAM s STATE_WINDOW(a) "
                                  "TRUE_FOR(5s, start(COUNT 2), end(10m AND COUNT 3)) FROM t");
    const sl_true_for *tf = &r->stmts[0]->u.create_stream.trigger.true_for;
    assert_int_equal(tf->n, 3);
    assert_int_equal(tf->pos.col, 33);
    assert_int_equal(tf->args[0].role, SL_TF_WINDOW);
    assert_int_equal(tf->args[0].limit.op, SL_LIMIT_DURATION);
    assert_int_equal(tf->args[0].limit.duration.value, 5);
    assert_int_equal(tf->args[0].limit.duration.unit, 's');
    assert_int_equal(tf->args[0].pos.col, 42);
    assert_int_equal(tf->args[1].role, SL_TF_START);
    assert_int_equal(tf->args[1].limit.op, SL_LIMIT_COUNT);
    assert_int_equal(tf->args[1].limit.count, 2);
    assert_int_equal(tf->args[1].pos.col, 46);
    assert_int_equal(tf->args[1].limit.pos.col, 52);
    assert_int_equal(tf->args[2].role, SL_TF_END);
    assert_int_equal(tf->args[2].limit.op, SL_LIMIT_AND);
    assert_int_equal(tf->args[2].limit.duration.value, 10);
    assert_int_equal(tf->args[2].limit.count, 3);
    sl_parse_result_free(r);
}

static void test_event_window(void **state)
{
    (void)state;
    tp_check("CREATE STREAM s EVENT_WINDOW(START WITH (c1 > 90, c1 > 60) END WITH c1 < 10) "
             "FROM t PARTITION BY tbname",
             "(create-stream s (event-window (starts (> (col c1) (int 90)) (> (col c1) (int 60))) "
             "(end (< (col c1) (int 10)))) (from t) (partition-by (col tbname)))");
    tp_check("CREATE STREAM s EVENT_WINDOW(START WITH (a, b, c)) TRUE_FOR(1s) FROM t",
             "(create-stream s (event-window (starts (col a) (col b) (col c)) (true-for 1s)) "
             "(from t))");
    /* one parenthesised condition only groups: the plain form, END WITH required */
    tp_check("CREATE STREAM s EVENT_WINDOW(START WITH (a > 1) END WITH a < 0) FROM t",
             "(create-stream s (event-window (start (> (col a) (int 1))) "
             "(end (< (col a) (int 0)))) (from t))");
    tp_check("CREATE STREAM s EVENT_WINDOW(START WITH (a > 1) OR b AND c END WITH NOT a) FROM t",
             "(create-stream s (event-window (start (or (> (col a) (int 1)) (and (col b) "
             "(col c)))) (end (not (col a)))) (from t))");
    tp_check("CREATE STREAM s EVENT_WINDOW(START WITH (a + 1) * 2 > 3 END WITH b) FROM t",
             "(create-stream s (event-window (start (> (* (+ (col a) (int 1)) (int 2)) (int 3))) "
             "(end (col b))) (from t))");

    sl_parse_result *r = tp_parse("CREATE STREAM s EVENT_WINDOW(START WITH (c1 > 90, c1 > 60)) "
                                  "FROM t");
    const sl_trigger *t = &r->stmts[0]->u.create_stream.trigger;
    assert_int_equal(t->kind, SL_TRIG_EVENT);
    assert_true(t->event_multi);
    assert_int_equal(t->event_starts.n, 2);
    assert_null(t->event_end);
    assert_int_equal(t->event_starts.items[1]->pos.col, 51);
    sl_parse_result_free(r);

    r = tp_parse("CREATE STREAM s EVENT_WINDOW(START WITH (a) AND b END WITH c) FROM t");
    t = &r->stmts[0]->u.create_stream.trigger;
    assert_false(t->event_multi);
    assert_int_equal(t->event_starts.n, 1);
    assert_int_equal(t->event_starts.items[0]->pos.col, 41); /* the '(' */
    assert_non_null(t->event_end);
    sl_parse_result_free(r);
}

static void test_count_window(void **state)
{
    (void)state;
    tp_check("CREATE STREAM s COUNT_WINDOW(1000) FROM t",
             "(create-stream s (count-window 1000) (from t))");
    tp_check("CREATE STREAM s COUNT_WINDOW(10, 2) FROM t",
             "(create-stream s (count-window 10 (sliding 2)) (from t))");
    tp_check("CREATE STREAM s COUNT_WINDOW(10, voltage) FROM t",
             "(create-stream s (count-window 10 (columns voltage)) (from t))");
    tp_check("CREATE STREAM s COUNT_WINDOW(10, 1, c1, `c 2`) FROM t",
             "(create-stream s (count-window 10 (sliding 1) (columns c1 `c 2`)) (from t))");
    tp_check("CREATE STREAM s COUNT_WINDOW(10, c1, c2, c3) FROM t",
             "(create-stream s (count-window 10 (columns c1 c2 c3)) (from t))");

    sl_parse_result *r = tp_parse("CREATE STREAM s COUNT_WINDOW(10, 3, a, b) FROM t");
    const sl_trigger *t = &r->stmts[0]->u.create_stream.trigger;
    assert_int_equal(t->kind, SL_TRIG_COUNT);
    assert_int_equal(t->count, 10);
    assert_int_equal(t->count_pos.col, 30);
    assert_true(t->has_count_sliding);
    assert_int_equal(t->count_sliding, 3);
    assert_int_equal(t->count_sliding_pos.col, 34);
    assert_int_equal(t->ncount_cols, 2);
    assert_string_equal(t->count_cols[1], "b");
    assert_int_equal(t->count_col_pos[1].col, 40);
    sl_parse_result_free(r);
}

/* ---------------------------------------------------------------- options */

static void test_stream_options(void **state)
{
    (void)state;
    static const struct {
        const char *opt;
        const char *dump;
    } cases[] = {
        {"WATERMARK(10s)", "(watermark 10s)"},
        {"EXPIRED_TIME(1d)", "(expired-time 1d)"},
        {"IGNORE_DISORDER", "(ignore-disorder)"},
        {"DELETE_RECALC", "(delete-recalc)"},
        {"DELETE_OUTPUT_TABLE", "(delete-output-table)"},
        {"FILL_HISTORY", "(fill-history)"},
        {"FILL_HISTORY('2025-01-01 00:00:00')", "(fill-history (str '2025-01-01 00:00:00'))"},
        {"FILL_HISTORY(1700000000000)", "(fill-history (int 1700000000000))"},
        {"FILL_HISTORY(NOW - 7d)", "(fill-history (- (now) (dur 7d)))"},
        {"FILL_HISTORY_FIRST", "(fill-history-first)"},
        {"FILL_HISTORY_FIRST('2024-06-01')", "(fill-history-first (str '2024-06-01'))"},
        {"CALC_NOTIFY_ONLY", "(calc-notify-only)"},
        {"LOW_LATENCY_CALC", "(low-latency-calc)"},
        {"PRE_FILTER(col1 > 0 AND tag1 = 'x')",
         "(pre-filter (and (> (col col1) (int 0)) (= (col tag1) (str 'x'))))"},
        {"PRE_FILTER(a | b > 0)", "(pre-filter (> (| (col a) (col b)) (int 0)))"},
        {"FORCE_OUTPUT", "(force-output)"},
        {"MAX_DELAY(3s)", "(max-delay 3s)"},
        {"EVENT_TYPE(WINDOW_OPEN)", "(event-type window-open)"},
        {"EVENT_TYPE(WINDOW_CLOSE | WINDOW_OPEN)", "(event-type window-open window-close)"},
        {"EVENT_TYPE(IDLE|RESUME)", "(event-type idle resume)"},
        {"IGNORE_NODATA_TRIGGER", "(ignore-nodata-trigger)"},
        {"IDLE_TIMEOUT(1m)", "(idle-timeout 1m)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char sql[256], dump[512];
        snprintf(sql, sizeof(sql), "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM t "
                                   "STREAM_OPTIONS(%s)", cases[i].opt);
        snprintf(dump, sizeof(dump), "(create-stream s (interval 1m (sliding 1m)) (from t) "
                                     "(options %s))", cases[i].dump);
        tp_check(sql, dump);
    }

    /* several options, duplicates kept in written order */
    tp_check("CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM t STREAM_OPTIONS(WATERMARK(5s) | "
             "FILL_HISTORY | WATERMARK(10s) | EVENT_TYPE(WINDOW_OPEN|WINDOW_CLOSE) | "
             "IGNORE_DISORDER | IGNORE_DISORDER)",
             "(create-stream s (interval 1m (sliding 1m)) (from t) (options (watermark 5s) "
             "(fill-history) (watermark 10s) (event-type window-open window-close) "
             "(ignore-disorder) (ignore-disorder)))");

    sl_parse_result *r = tp_parse("CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM t "
                                  "STREAM_OPTIONS(MAX_DELAY(5s) | EVENT_TYPE(IDLE | WINDOW_OPEN) "
                                  "| PRE_FILTER(v > 1) | FILL_HISTORY_FIRST)");
    const sl_create_stream *c = &r->stmts[0]->u.create_stream;
    assert_int_equal(c->nopts, 4);
    assert_int_equal(c->opts[0].kind, SL_SOPT_MAX_DELAY);
    assert_int_equal(c->opts[0].pos.col, 64);
    assert_int_equal(c->opts[0].dur.value, 5);
    assert_int_equal(c->opts[0].dur.unit, 's');
    assert_int_equal(c->opts[1].kind, SL_SOPT_EVENT_TYPE);
    assert_int_equal(c->opts[1].events, SL_EVT_IDLE | SL_EVT_WINDOW_OPEN);
    assert_int_equal(c->opts[2].kind, SL_SOPT_PRE_FILTER);
    assert_int_equal(c->opts[2].expr->kind, SL_EX_BINARY);
    assert_int_equal(c->opts[3].kind, SL_SOPT_FILL_HISTORY_FIRST);
    assert_null(c->opts[3].expr);
    sl_parse_result_free(r);
}

static void test_partition_rollup(void **state)
{
    (void)state;
    tp_check("CREATE STREAM s PERIOD(1m) FROM meters ROLLUP BY location INTO out "
             "OUTPUT_SUBTABLE(CONCAT('r_', %%1)) TAGS (path VARCHAR(128) AS %%1, "
             "leaf VARCHAR(64) AS %%rollup_tag) AS SELECT _tlocaltime, _trollup_tbcount, "
             "count(*) FROM %%trows",
             "(create-stream s (period 1m) (from meters) (rollup-by location) (into out) "
             "(output-subtable (func CONCAT (str 'r_') (ph %%1))) (tags (path VARCHAR(128) "
             "(ph %%1)) (leaf VARCHAR(64) (ph %%rollup_tag))) (query (select (items "
             "(ph _tlocaltime) (ph _trollup_tbcount) (func count (star))) (from %%trows))))");

    sl_parse_result *r = tp_parse("CREATE STREAM s PERIOD(1m) FROM meters ROLLUP BY location");
    const sl_create_stream *c = &r->stmts[0]->u.create_stream;
    assert_true(c->has_rollup);
    assert_string_equal(c->rollup_tag, "location");
    assert_int_equal(c->rollup_pos.col, 50);
    assert_int_equal(c->partition_by.n, 0);
    sl_parse_result_free(r);
}

/* ---------------------------------------------------------------- notification */

static void test_notify(void **state)
{
    (void)state;
    tp_check("CREATE STREAM s PERIOD(10s) NOTIFY('ws://localhost:8080')",
             "(create-stream s (period 10s) (notify (urls 'ws://localhost:8080')))");
    tp_check("CREATE STREAM avg_current_stream INTERVAL(1m) SLIDING(1m) FROM meters "
             "PARTITION BY tbname STREAM_OPTIONS(CALC_NOTIFY_ONLY) "
             "NOTIFY('ws://localhost:8080/notify', 'ws://h2:9000/n?key=foo') "
             "ON (WINDOW_OPEN|WINDOW_CLOSE) WHERE avg_current > 10 "
             "NOTIFY_OPTIONS(NOTIFY_HISTORY) INTO out "
             "AS SELECT _twstart, avg(current) AS avg_current FROM %%trows",
             "(create-stream avg_current_stream (interval 1m (sliding 1m)) (from meters) "
             "(partition-by (col tbname)) (options (calc-notify-only)) "
             "(notify (urls 'ws://localhost:8080/notify' 'ws://h2:9000/n?key=foo') "
             "(on window-open window-close) (where (> (col avg_current) (int 10))) "
             "(notify-options notify-history)) (into out) (query (select (items (ph _twstart) "
             "(as (func avg (col current)) avg_current)) (from %%trows))))");
    tp_check("CREATE STREAM s SESSION(ts, 1m) FROM t NOTIFY(\"ws://a:1\") ON (IDLE | RESUME) "
             "NOTIFY_OPTIONS(NOTIFY_HISTORY | NOTIFY_HISTORY)",
             "(create-stream s (session ts 1m) (from t) (notify (urls 'ws://a:1') "
             "(on idle resume) (notify-options notify-history notify-history)))");

    sl_parse_result *r = tp_parse("CREATE STREAM s PERIOD(10s)\n"
                                  "NOTIFY('ws://a:1', 'ws://b:2') ON (WINDOW_CLOSE) "
                                  "WHERE x = 1 NOTIFY_OPTIONS(NOTIFY_HISTORY)");
    const sl_notify *n = &r->stmts[0]->u.create_stream.notify;
    assert_true(n->present);
    assert_int_equal(n->pos.line, 2);
    assert_int_equal(n->pos.col, 1);
    assert_int_equal(n->nurls, 2);
    assert_string_equal(n->urls[0], "ws://a:1");
    assert_string_equal(n->urls[1], "ws://b:2");
    assert_int_equal(n->url_pos[1].col, 20);
    assert_true(n->has_on);
    assert_int_equal(n->on_events, SL_EVT_WINDOW_CLOSE);
    assert_int_equal(n->on_pos.col, 32);
    assert_non_null(n->where);
    assert_true(n->notify_history);
    assert_int_equal(n->nnotify_opts, 1);
    sl_parse_result_free(r);

    r = tp_parse("CREATE STREAM s PERIOD(10s) NOTIFY('ws://a:1')");
    n = &r->stmts[0]->u.create_stream.notify;
    assert_false(n->has_on);
    assert_null(n->where);
    assert_false(n->notify_history);
    assert_int_equal(n->nnotify_opts, 0);
    sl_parse_result_free(r);
}

/* ---------------------------------------------------------------- output */

static void test_output_clauses(void **state)
{
    (void)state;
    tp_check("CREATE STREAM power.s INTERVAL(10s) SLIDING(10s) FROM power.meters "
             "PARTITION BY tbname, groupId INTO power.out NODELAY_CREATE_SUBTABLE "
             "OUTPUT_SUBTABLE(CONCAT('out_', %%tbname, '_', CAST(%%2 AS VARCHAR(8)))) "
             "(ts, k COMPOSITE KEY, avg_v) "
             "TAGS (tname VARCHAR(192) AS %%tbname, gid INT AS %%2) "
             "AS SELECT _twstart, %%2, avg(voltage) FROM %%tbname WHERE ts >= _twstart AND "
             "ts < _twend",
             "(create-stream power.s (interval 10s (sliding 10s)) (from power.meters) "
             "(partition-by (col tbname) (col groupId)) (into power.out) nodelay-create-subtable "
             "(output-subtable (func CONCAT (str 'out_') (ph %%tbname) (str '_') "
             "(cast (ph %%2) VARCHAR(8)))) (columns ts (k composite-key) avg_v) "
             "(tags (tname VARCHAR(192) (ph %%tbname)) (gid INT (ph %%2))) "
             "(query (select (items (ph _twstart) (ph %%2) (func avg (col voltage))) "
             "(from %%tbname) (where (and (>= (col ts) (ph _twstart)) "
             "(< (col ts) (ph _twend)))))))");
    /* every output clause is optional on its own */
    tp_check("CREATE STREAM s PERIOD(1s) (a, b)", "(create-stream s (period 1s) (columns a b))");
    tp_check("CREATE STREAM s PERIOD(1s) TAGS (t BIGINT UNSIGNED AS 1)",
             "(create-stream s (period 1s) (tags (t BIGINT UNSIGNED (int 1))))");
    tp_check("CREATE STREAM s PERIOD(1s) NODELAY_CREATE_SUBTABLE",
             "(create-stream s (period 1s) nodelay-create-subtable)");
    tp_check("CREATE STREAM s PERIOD(1s) AS SELECT 1",
             "(create-stream s (period 1s) (query (select (items (int 1)))))");
    tp_check("CREATE STREAM s PERIOD(1s) AS SELECT _tprev_localtime, _tnext_localtime, "
             "_tprev_ts, _tcurrent_ts, _tnext_ts, _twduration, _twrownum, _tgrpid, "
             "_tidlestart, _tidleend FROM t",
             "(create-stream s (period 1s) (query (select (items (ph _tprev_localtime) "
             "(ph _tnext_localtime) (ph _tprev_ts) (ph _tcurrent_ts) (ph _tnext_ts) "
             "(ph _twduration) (ph _twrownum) (ph _tgrpid) (ph _tidlestart) (ph _tidleend)) "
             "(from t))))");

    sl_parse_result *r = tp_parse("CREATE STREAM s PERIOD(1s) INTO o (a, b PRIMARY KEY) "
                                  "TAGS (g NCHAR(5) AS %%1)");
    const sl_create_stream *c = &r->stmts[0]->u.create_stream;
    assert_int_equal(c->nout_cols, 2);
    assert_false(c->out_cols[0].composite_key);
    assert_true(c->out_cols[1].composite_key);
    assert_int_equal(c->out_cols[1].pos.col, 39);
    assert_int_equal(c->ntags, 1);
    assert_string_equal(c->tags[0].name, "g");
    assert_int_equal(c->tags[0].type, SL_T_NCHAR);
    assert_int_equal(c->tags[0].width, 5);
    assert_int_equal(c->tags[0].expr->kind, SL_EX_PLACEHOLDER);
    assert_int_equal(c->tags[0].pos.col, 60);
    sl_parse_result_free(r);
}

/* ---------------------------------------------------------------- other stream statements */

static void test_stream_statements(void **state)
{
    (void)state;
    tp_check("DROP STREAM s1", "(drop-stream s1)");
    tp_check("DROP STREAM IF EXISTS power.s1, s2", "(drop-stream if-exists power.s1 s2)");
    tp_check("SHOW STREAMS", "(show streams)");
    tp_check("SHOW power.STREAMS LIKE 'avg%'", "(show streams (db power) (like 'avg%'))");
    tp_check("SHOW CREATE STREAM power.s1", "(show create-stream power.s1)");
    tp_check("START STREAM s1", "(start-stream s1)");
    tp_check("START STREAM IF EXISTS s1", "(start-stream if-exists s1)");
    tp_check("START STREAM IGNORE UNTREATED power.s1", "(start-stream ignore-untreated power.s1)");
    tp_check("START STREAM IF EXISTS IGNORE UNTREATED s1",
             "(start-stream if-exists ignore-untreated s1)");
    /* "ignore" is still a usable stream name */
    tp_check("START STREAM ignore", "(start-stream ignore)");
    tp_check("STOP STREAM power.s1", "(stop-stream power.s1)");
    tp_check("STOP STREAM IF EXISTS s1", "(stop-stream if-exists s1)");
    tp_check("DROP SNODE 3", "(drop-snode 3)");
    tp_check("drop snode on dnode 12", "(drop-snode 12)");

    sl_parse_result *r = tp_parse("START STREAM IF EXISTS IGNORE UNTREATED db.s; STOP STREAM s");
    assert_int_equal(r->nstmts, 2);
    assert_int_equal(r->stmts[0]->kind, SL_STMT_START_STREAM);
    assert_true(r->stmts[0]->u.stream_ctl.if_exists);
    assert_true(r->stmts[0]->u.stream_ctl.ignore_untreated);
    assert_string_equal(r->stmts[0]->u.stream_ctl.name.db, "db");
    assert_int_equal(r->stmts[1]->kind, SL_STMT_STOP_STREAM);
    assert_false(r->stmts[1]->u.stream_ctl.if_exists);
    assert_false(r->stmts[1]->u.stream_ctl.ignore_untreated);
    sl_parse_result_free(r);

    r = tp_parse("DROP STREAM IF EXISTS a, b");
    assert_int_equal(r->stmts[0]->kind, SL_STMT_DROP_STREAM);
    assert_int_equal(r->stmts[0]->u.drop.n, 2);
    sl_parse_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_examples),
        cmocka_unit_test(test_time_triggers),
        cmocka_unit_test(test_state_window),
        cmocka_unit_test(test_true_for),
        cmocka_unit_test(test_event_window),
        cmocka_unit_test(test_count_window),
        cmocka_unit_test(test_stream_options),
        cmocka_unit_test(test_partition_rollup),
        cmocka_unit_test(test_notify),
        cmocka_unit_test(test_output_clauses),
        cmocka_unit_test(test_stream_statements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
