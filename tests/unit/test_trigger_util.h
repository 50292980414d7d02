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

#endif
