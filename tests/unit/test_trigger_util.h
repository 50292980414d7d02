/*
 * test_trigger_util.h - a harness for the trigger engine tests: parses a CREATE STREAM with
 * the real parser, builds the definition against a fixed trigger table, drives the engine
 * with hand-written rows and a fake clock, and records every event as one line of text
 * ("CLOSE 0 60 3"), times printed in seconds of the database precision, so a test compares
 * the whole event sequence with one expected string written from the spec.
 *
 * Trigger table `t1` (ts TIMESTAMP, v INT, w INT) TAGS (tg INT); input blocks hold ts, v, w
 * and tg (a constant column).
 */
#ifndef TEST_TRIGGER_UTIL_H
#define TEST_TRIGGER_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/sql/parser.h"
#include "snode/trigger/trigger.h"

static const sl_field th_cols[] = {
    {"ts", SL_T_TIMESTAMP, 0}, {"v", SL_T_INT, 0}, {"w", SL_T_INT, 0}};
static const sl_field th_tags[] = {{"tg", SL_T_INT, 0}};
static const sl_table_meta th_meta = {SL_TABLE_SUPER, "db", "t1", SL_PREC_MS, 3, th_cols, 1,
                                      th_tags};

#define TH_NULL INT32_MIN /* v / w value meaning NULL */

typedef struct trow {
    int64_t ts;  /* in seconds * unit (the harness multiplies) */
    int32_t v;   /* TH_NULL: NULL */
    int32_t w;   /* TH_NULL: NULL; 0 when not written */
    int kind;    /* sl_trig_row_kind */
} trow;

typedef struct th {
    sl_parse_result *pr;
    sl_trig_def *def;
    sl_trig *t;
    int64_t unit;          /* precision units per second */
    int64_t wall, mono;    /* fake clock, ns */
    sl_buf log;            /* event lines */
    int nevents;
    sl_trig_event last;    /* last event (arrays cleared) */
    uint64_t ids[4096];    /* trigger ids in event order */
    uint32_t flags[4096];
    bool busy;             /* calc_running answer */
    int32_t tag;           /* tg value of fed rows */
    sl_trig_opts opts;
} th;

static inline int64_t th_wall(void *ud)
{
    return ((th *)ud)->wall;
}

static inline int64_t th_mono(void *ud)
{
    return ((th *)ud)->mono;
}

static inline void th_num(sl_buf *b, int64_t v, int64_t unit)
{
    if (v == INT64_MIN || v == INT64_MAX)
        sl_buf_printf(b, " %s", v == INT64_MIN ? "-inf" : "inf");
    else if (v % unit == 0)
        sl_buf_printf(b, " %lld", (long long)(v / unit));
    else
        sl_buf_printf(b, " %.3f", (double)v / (double)unit);
}

static inline int th_emit(void *ud, const sl_trig_event *ev)
{
    th *h = ud;
    sl_buf *b = &h->log;
    const int64_t u = h->unit, ns = 1000000000LL;
    switch (ev->type) {
    case SL_TRIG_EV_WINDOW_OPEN:
        sl_buf_printf(b, "OPEN");
        th_num(b, ev->wstart, u);
        break;
    case SL_TRIG_EV_WINDOW_CLOSE:
    case SL_TRIG_EV_WINDOW_INVALIDATION:
    case SL_TRIG_EV_MAX_DELAY:
        sl_buf_printf(b, "%s", ev->type == SL_TRIG_EV_WINDOW_CLOSE ? "CLOSE"
                               : ev->type == SL_TRIG_EV_MAX_DELAY ? "MAXD" : "INV");
        th_num(b, ev->wstart, u);
        th_num(b, ev->wend, u);
        sl_buf_printf(b, " %llu", (unsigned long long)ev->rownum);
        assert_int_equal(ev->wduration, ev->wend - ev->wstart);
        break;
    case SL_TRIG_EV_ON_TIME:
        sl_buf_printf(b, "ONTIME");
        if (sl_trig_def_kind(h->def) == SL_TRIG_PERIOD) {
            th_num(b, ev->prev_local_ns, ns);
            th_num(b, ev->localtime_ns, ns);
            th_num(b, ev->next_local_ns, ns);
        } else {
            th_num(b, ev->prev_ts, u);
            th_num(b, ev->cur_ts, u);
            th_num(b, ev->next_ts, u);
        }
        break;
    case SL_TRIG_EV_IDLE:
    case SL_TRIG_EV_RESUME:
        sl_buf_printf(b, "%s", ev->type == SL_TRIG_EV_IDLE ? "IDLE" : "RESUME");
        th_num(b, ev->idle_start_ns, ns);
        th_num(b, ev->idle_end_ns, ns);
        sl_buf_printf(b, " %lldms", (long long)ev->idle_duration_ms);
        break;
    }
    if (ev->group_id != 0)
        sl_buf_printf(b, " g%llu", (unsigned long long)ev->group_id);
    sl_buf_printf(b, "\n");
    if (h->nevents < 4096) {
        h->ids[h->nevents] = ev->trigger_id;
        h->flags[h->nevents] = ev->flags;
    }
    h->nevents++;
    h->last = *ev;
    return 0;
}

static inline bool th_busy(void *ud, uint64_t gid)
{
    return ((th *)ud)->busy;
}

static inline sl_trig_sink th_sink(th *h)
{
    return (sl_trig_sink){.emit = th_emit, .calc_running = th_busy, .ud = h};
}

/* Builds the definition; returns the error code (0) and keeps the message in *err. */
static inline int th_build(th *h, const char *sql, sl_precision prec, sl_error *err)
{
    memset(h, 0, sizeof *h);
    h->unit = sl_precision_per_sec(prec);
    sl_error perr;
    sl_error_clear(&perr);
    if (sl_parse(sql, strlen(sql), &h->pr, &perr) != 0)
        fail_msg("parse of \"%s\" failed: %s", sql, perr.msg);
    assert_int_equal(h->pr->nstmts, 1);
    const sl_create_stream *cs = &h->pr->stmts[0]->u.create_stream;
    sl_table_meta meta = th_meta;
    meta.precision = prec;
    sl_trig_def_opts o = {.stream_id = 7, .table = cs->has_from ? &meta : NULL,
                          .precision = prec};
    sl_error_clear(err);
    return sl_trig_def_build(cs, &o, &h->def, err);
}

static inline void th_open_opts(th *h, const char *sql, sl_precision prec, const sl_trig_opts *opts)
{
    sl_error err;
    int64_t wall = h->wall, mono = h->mono;
    if (th_build(h, sql, prec, &err) != 0)
        fail_msg("build of \"%s\" failed: %s", sql, err.msg);
    h->wall = wall;
    h->mono = mono;
    if (opts)
        h->opts = *opts;
    h->opts.clock = (sl_trig_clock){.wall_ns = th_wall, .mono_ns = th_mono, .ud = h};
    if (h->opts.created_ns == 0)
        h->opts.created_ns = h->wall ? h->wall : 1;
    if (sl_trig_open(&h->t, h->def, &h->opts, &err) != 0)
        fail_msg("open failed: %s", err.msg);
}

static inline void th_open(th *h, const char *sql)
{
    h->wall = h->mono = 0;
    th_open_opts(h, sql, SL_PREC_MS, NULL);
}

static inline void th_close(th *h)
{
    sl_trig_close(h->t);
    sl_trig_def_free(h->def);
    sl_parse_result_free(h->pr);
    sl_buf_fini(&h->log);
    h->t = NULL;
    h->def = NULL;
    h->pr = NULL;
}

/* Feeds rows (timestamps in seconds unless raw) of group gid as one block. */
static inline int th_feed_raw(th *h, uint64_t gid, const trow *rows, int n, bool raw, sl_error *err)
{
    sl_block b;
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    uint8_t kinds[512];
    assert_true(n <= 512);
    for (int i = 0; i < n; i++) {
        sl_column_append_i64(&b.cols[0], raw ? rows[i].ts : rows[i].ts * h->unit);
        if (rows[i].v == TH_NULL)
            sl_column_append_null(&b.cols[1]);
        else
            sl_column_append_i64(&b.cols[1], rows[i].v);
        if (rows[i].w == TH_NULL)
            sl_column_append_null(&b.cols[2]);
        else
            sl_column_append_i64(&b.cols[2], rows[i].w);
        kinds[i] = (uint8_t)rows[i].kind;
    }
    sl_value tg = sl_value_int(SL_T_INT, h->tag);
    sl_column_set_const(&b.cols[3], &tg, (uint32_t)n);
    sl_block_seal(&b);
    sl_trig_input in = {.group_id = gid, .rows = &b, .kinds = kinds};
    sl_trig_sink s = th_sink(h);
    int rc = sl_trig_feed(h->t, &in, &s, err);
    sl_block_fini(&b);
    return rc;
}

static inline void th_feed(th *h, uint64_t gid, const trow *rows, int n)
{
    sl_error err;
    sl_error_clear(&err);
    int rc = th_feed_raw(h, gid, rows, n, false, &err);
    if (rc != 0)
        fail_msg("feed failed: %s (%s)", err.msg, sl_strerror(rc));
}

/* Feeds rows with timestamps (seconds) and v = 1, one per call. */
static inline void th_ts(th *h, uint64_t gid, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        trow r = {.ts = va_arg(ap, int64_t), .v = 1};
        th_feed(h, gid, &r, 1);
    }
    va_end(ap);
}

static inline void th_tick(th *h)
{
    sl_error err;
    sl_trig_sink s = th_sink(h);
    if (sl_trig_tick(h->t, &s, &err) != 0)
        fail_msg("tick failed: %s", err.msg);
}

static inline void th_del(th *h, uint64_t gid, int64_t lo, int64_t hi)
{
    sl_error err;
    sl_trig_sink s = th_sink(h);
    if (sl_trig_delete_range(h->t, gid, lo * h->unit, hi * h->unit, &s, &err) != 0)
        fail_msg("delete failed: %s", err.msg);
}

/* Compares the events recorded so far with want and clears the record. */
#define th_expect(h, want) th_expect_at(h, want, __FILE__, __LINE__)
static inline void th_expect_at(th *h, const char *want, const char *file, int line)
{
    const char *got = h->log.len ? (const char *)h->log.data : "";
    if (strlen(got) != strlen(want) || memcmp(got, want, strlen(want)) != 0)
        fail_msg("%s:%d: events differ\n--- want\n%s--- got\n%s---", file, line, want, got);
    sl_buf_reset(&h->log);
}



/* ------------------------------------------------------------ a temporary RocksDB store */

/* Opens a store with column family "trig" in a fresh directory made from the mkdtemp
 * pattern dir (changed in place). */
static inline sl_kv *trig_kv_open(char *dir)
{
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/db", dir);
    sl_kv *db = NULL;
    sl_error err;
    const char *cfs[] = {"trig"};
    assert_int_equal(sl_kv_open(&db, path, NULL, cfs, 1, &err), 0);
    return db;
}

/* Closes the store and removes its directory. */
static inline void trig_kv_remove(sl_kv *db, const char *dir)
{
    sl_kv_close(db);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* ------------------------------------------------------------ the five-column table st
 *
 * The harness of test_trigger_event.c and test_trigger_state.c: super table db.st (ts, a INT,
 * b INT, s VARCHAR(16), c BIGINT; tag tg INT), rows fed as blocks of one group, events
 * logged as text by the suite's own emit function (sw_kind).
 */

static const sl_field sw_cols[] = {{"ts", SL_T_TIMESTAMP, 0},
                                   {"a", SL_T_INT, 0},
                                   {"b", SL_T_INT, 0},
                                   {"s", SL_T_VARCHAR, 16},
                                   {"c", SL_T_BIGINT, 0}};
static const sl_field sw_tags[] = {{"tg", SL_T_INT, 0}};
static const sl_table_meta sw_meta = {SL_TABLE_SUPER, "db", "st", SL_PREC_MS, 5, sw_cols, 1,
                                      sw_tags};

#define N_ INT32_MIN /* a / b value meaning NULL */
#define XS "\x01"    /* s value meaning NULL */
#define R1(t, a) {t, a, 0, NULL, 0}
#define R2(t, a, b) {t, a, b, NULL, 0}
#define RS(t, a, str) {t, a, 0, str, 0}

typedef struct sw_row {
    double ts;     /* seconds */
    int32_t a, b;  /* N_: NULL */
    const char *s; /* NULL or XS: NULL */
    int kind;      /* sl_trig_row_kind */
} sw_row;

/* What differs between the suites. */
typedef struct sw_kind {
    int (*emit)(void *ud, const sl_trig_event *ev); /* logs one event (ud: the sw) */
    uint64_t stream_id;
    uint64_t gid;        /* the group sw_feed feeds */
    const char *fixed_s; /* when not NULL: column s of every row (else the row's s) */
    int c_mul;           /* column c = a * c_mul (0 for a NULL a) */
} sw_kind;

typedef struct sw {
    sl_parse_result *pr;
    sl_trig_def *def;
    sl_trig *t;
    sl_buf log;
    bool verbose; /* also log field values (event) / state values (state) */
    int32_t tag;
    const char *sql;
    const sw_kind *kind;
} sw;

static inline void sw_fmt_time(sl_buf *b, int64_t ms)
{
    if (ms % 1000 == 0)
        sl_buf_printf(b, " %lld", (long long)(ms / 1000));
    else
        sl_buf_printf(b, " %.3f", (double)ms / 1000.0);
}

static inline sl_trig_sink sw_sink(sw *h)
{
    return (sl_trig_sink){.emit = h->kind->emit, .ud = h};
}

/* Builds the definition of sql (parsed once into h->pr); returns the code, message in *err. */
static inline int sw_build(sw *h, const char *sql, sl_trig_def **def, sl_error *err)
{
    sl_error perr;
    sl_error_clear(&perr);
    char full[1024];
    snprintf(full, sizeof full, "%s NOTIFY('ws://x')", sql); /* a stream must do something */
    if (!h->pr && sl_parse(full, strlen(full), &h->pr, &perr) != 0)
        fail_msg("parse of \"%s\" failed: %s", full, perr.msg);
    const sl_create_stream *cs = &h->pr->stmts[0]->u.create_stream;
    sl_trig_def_opts o = {.stream_id = h->kind->stream_id, .table = &sw_meta,
                          .precision = SL_PREC_MS};
    sl_error_clear(err);
    return sl_trig_def_build(cs, &o, def, err);
}

static inline void sw_open_opts(sw *h, const sw_kind *kind, const char *sql, bool verbose,
                                const sl_trig_opts *opts)
{
    memset(h, 0, sizeof *h);
    h->kind = kind;
    h->verbose = verbose;
    h->sql = sql;
    sl_error err;
    if (sw_build(h, sql, &h->def, &err) != 0)
        fail_msg("build of \"%s\" failed: %s", sql, err.msg);
    if (sl_trig_open(&h->t, h->def, opts, &err) != 0)
        fail_msg("open failed: %s", err.msg);
}

static inline void sw_open(sw *h, const sw_kind *kind, const char *sql, bool verbose)
{
    sw_open_opts(h, kind, sql, verbose, NULL);
}

static inline void sw_close(sw *h)
{
    sl_trig_close(h->t);
    sl_trig_def_free(h->def);
    sl_parse_result_free(h->pr);
    sl_buf_fini(&h->log);
    memset(h, 0, sizeof *h);
}

/* Checkpoints the engine, then restores it into a new engine on a new definition (as a
 * restarted process would). */
static inline void sw_restart(sw *h)
{
    sl_buf ck = {0};
    sl_error err;
    if (sl_trig_checkpoint(h->t, &ck, &err) != 0)
        fail_msg("checkpoint failed: %s", err.msg);
    sl_trig_close(h->t);
    sl_trig_def_free(h->def);
    h->t = NULL;
    h->def = NULL;
    if (sw_build(h, h->sql, &h->def, &err) != 0)
        fail_msg("rebuild failed: %s", err.msg);
    if (sl_trig_open(&h->t, h->def, NULL, &err) != 0)
        fail_msg("open failed: %s", err.msg);
    if (sl_trig_restore(h->t, ck.data, ck.len, &err) != 0)
        fail_msg("restore failed: %s", err.msg);
    sl_buf_fini(&ck);
}

/* Feeds rows of group gid as one block. */
static inline void sw_feed_g(sw *h, uint64_t gid, const sw_row *rows, int n)
{
    sl_block b;
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    sl_block_add_column(&b, SL_T_VARCHAR, 16);
    sl_block_add_column(&b, SL_T_BIGINT, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    uint8_t *kinds = malloc((size_t)n + 1);
    for (int i = 0; i < n; i++) {
        sl_column_append_i64(&b.cols[0], (int64_t)(rows[i].ts * 1000.0 + 0.5));
        if (rows[i].a == N_)
            sl_column_append_null(&b.cols[1]);
        else
            sl_column_append_i64(&b.cols[1], rows[i].a);
        if (rows[i].b == N_)
            sl_column_append_null(&b.cols[2]);
        else
            sl_column_append_i64(&b.cols[2], rows[i].b);
        const char *s = h->kind->fixed_s ? h->kind->fixed_s : rows[i].s;
        if (!s || strcmp(s, XS) == 0)
            sl_column_append_null(&b.cols[3]);
        else
            sl_column_append_str(&b.cols[3], s, (uint32_t)strlen(s));
        sl_column_append_i64(&b.cols[4],
                             rows[i].a == N_ ? 0 : (int64_t)rows[i].a * h->kind->c_mul);
        kinds[i] = (uint8_t)rows[i].kind;
    }
    sl_value tg = sl_value_int(SL_T_INT, h->tag);
    sl_column_set_const(&b.cols[5], &tg, (uint32_t)n);
    sl_block_seal(&b);
    sl_trig_input in = {.group_id = gid, .rows = &b, .kinds = kinds};
    sl_trig_sink s = sw_sink(h);
    sl_error err;
    if (sl_trig_feed(h->t, &in, &s, &err) != 0)
        fail_msg("feed failed: %s", err.msg);
    free(kinds);
    sl_block_fini(&b);
}

static inline void sw_feed(sw *h, const sw_row *rows, int n)
{
    sw_feed_g(h, h->kind->gid, rows, n);
}

/* Compares the events logged so far with want and clears the log. */
#define sw_expect(h, want) sw_expect_at(h, want, __LINE__)
static inline void sw_expect_at(sw *h, const char *want, int line)
{
    const char *got = h->log.len ? (const char *)h->log.data : "";
    if (strlen(got) != strlen(want) || memcmp(got, want, strlen(want)) != 0)
        fail_msg("line %d: events differ\n--- want\n%s--- got\n%.*s---", line, want,
                 (int)h->log.len, got);
    sl_buf_reset(&h->log);
}

/* Runs sql over rows fed one at a time and compares all events with want. */
#define SW_RUN(kind, sql, verbose, want, ...)                                              \
    do {                                                                                   \
        const sw_row rows_[] = {__VA_ARGS__};                                              \
        sw_run_at(kind, sql, verbose, want, rows_, (int)(sizeof rows_ / sizeof rows_[0]),  \
                  __LINE__);                                                               \
    } while (0)
static inline void sw_run_at(const sw_kind *kind, const char *sql, bool verbose,
                             const char *want, const sw_row *rows, int n, int line)
{
    sw h;
    sw_open(&h, kind, sql, verbose);
    for (int i = 0; i < n; i++)
        sw_feed(&h, &rows[i], 1);
    sw_expect_at(&h, want, line);
    sw_close(&h);
}

/* Checks that sql is refused with a message containing part. */
static inline void sw_refuse(const sw_kind *kind, const char *sql, const char *part)
{
    sw h;
    memset(&h, 0, sizeof h);
    h.kind = kind;
    sl_trig_def *def = NULL;
    sl_error err;
    if (sw_build(&h, sql, &def, &err) == 0)
        fail_msg("\"%s\" was accepted", sql);
    if (!strstr(err.msg, part))
        fail_msg("\"%s\": message \"%s\" lacks \"%s\"", sql, err.msg, part);
    sl_parse_result_free(h.pr);
}

/* checkpoint -> restore (new definition, as a new process) -> continue after every row
 * gives the same events as one uninterrupted run. */
static inline void sw_ckpt_check(const sw_kind *kind, const char *sql, const sw_row *rows, int n)
{
    sw a, b;
    sw_open(&a, kind, sql, true);
    sw_open(&b, kind, sql, true);
    for (int i = 0; i < n; i++) {
        sw_feed(&a, &rows[i], 1);
        sw_feed(&b, &rows[i], 1);
        sw_restart(&b);
        if (a.log.len != b.log.len || (a.log.len && memcmp(a.log.data, b.log.data, a.log.len) != 0))
            fail_msg("%s: after row %d the restored run differs\n--- uninterrupted\n%.*s"
                     "--- restored\n%.*s",
                     sql, i, (int)a.log.len, (const char *)a.log.data, (int)b.log.len,
                     (const char *)b.log.data);
    }
    assert_true(a.log.len > 0);
    sw_close(&a);
    sw_close(&b);
}

/* ------------------------------------------------------------ randomized tests */

/* A seeded generator (test_trigger_event.c, test_trigger_state.c). */
static uint64_t sw_rng_state;
static inline uint32_t sw_rnd(uint32_t n)
{
    sw_rng_state = sw_rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(sw_rng_state >> 33) % n;
}

/* TRIG_RANDOM_SCALE=n (environment) multiplies the randomized iterations for a local
 * shake-out run; the default (1) keeps the suite fast. */
static inline int sw_rand_scale(void)
{
    const char *e = getenv("TRIG_RANDOM_SCALE");
    int n = e ? atoi(e) : 1;
    return n > 0 ? n : 1;
}

/* Feeds n rows (seconds, v = 1, or DELETE when ts < 0: the row at -ts) of child table
 * `table` of group gid as one block with the tbname column (trigger.h "Input block
 * layout"), so the engine tells the rows of a group spanning tables apart by table. */
static inline void th_feed_tb(th *h, uint64_t gid, const char *table, int n, ...)
{
    sl_block b;
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    sl_block_add_column(&b, SL_T_VARCHAR, 64);
    uint8_t kinds[64];
    assert_true(n <= 64);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        int64_t ts = va_arg(ap, int64_t);
        kinds[i] = ts < 0 ? SL_TRIG_ROW_DELETE : SL_TRIG_ROW_INSERT;
        sl_column_append_i64(&b.cols[0], (ts < 0 ? -ts : ts) * h->unit);
        sl_column_append_i64(&b.cols[1], 1);
        sl_column_append_i64(&b.cols[2], 0);
    }
    va_end(ap);
    sl_value tg = sl_value_int(SL_T_INT, h->tag);
    sl_column_set_const(&b.cols[3], &tg, (uint32_t)n);
    sl_value tb = sl_value_str(SL_T_VARCHAR, table, (uint32_t)strlen(table));
    sl_column_set_const(&b.cols[4], &tb, (uint32_t)n);
    sl_block_seal(&b);
    sl_trig_input in = {.group_id = gid, .rows = &b, .kinds = kinds};
    sl_trig_sink s = th_sink(h);
    sl_error err;
    sl_error_clear(&err);
    if (sl_trig_feed(h->t, &in, &s, &err) != 0)
        fail_msg("feed failed: %s", err.msg);
    sl_block_fini(&b);
}

/* sl_trig_delete_table_range of table's rows in [lo, hi] seconds. */
static inline void th_del_tb(th *h, uint64_t gid, const char *table, int64_t lo, int64_t hi)
{
    sl_error err;
    sl_error_clear(&err);
    sl_trig_sink s = th_sink(h);
    if (sl_trig_delete_table_range(h->t, gid, table, (uint32_t)strlen(table), lo * h->unit,
                                   hi * h->unit, &s, &err) != 0)
        fail_msg("delete failed: %s", err.msg);
}

#endif
