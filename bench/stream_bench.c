/*
 * stream_bench.c - `sluice-bench stream`: what streams cost and how fast they answer, on a
 * local cluster this command starts itself (bench_cluster.h: sluice-mnode, 2 sluice-vnode,
 * N sluice-snode from the benchmark's own bin folder, loopback, temporary folder).
 *
 *   1. Baseline: database `bench` (VGROUPS 4), super table meters(ts, current FLOAT,
 *      voltage INT, phase FLOAT) TAGS (groupid INT, location VARCHAR(24)), T child tables,
 *      M generated rows inserted through libsluice by several client threads as fast as
 *      the cluster takes them: rows/s without streams. The same load runs once before,
 *      unmeasured, and is dropped, so the baseline starts in the state the streams' load
 *      does (warm daemons, a database of that size just dropped).
 *   2. The database is dropped and created again, 10 streams are created over meters
 *      (INTERVAL(10s) SLIDING(10s) x3 - plain, LOW_LATENCY_CALC + NOTIFY, NOTIFY -,
 *      STATE_WINDOW(voltage) x2 - plain, NOTIFY -, COUNT_WINDOW(100) x2 - plain, NOTIFY -,
 *      SESSION, EVENT_WINDOW, PERIOD), all PARTITION BY tbname but the PERIOD one, NOTIFY to
 *      a WebSocket receiver inside this process (bench_receiver.h), and the same rows are
 *      inserted again: rows/s with streams, and the ratio to the baseline (target >= 0.8).
 *      Then it waits until every output table holds exactly the rows and the receiver
 *      exactly the notifications that the inserted data must produce - worked out here from
 *      the generated data by the rules of spec/semantics.md, not taken from the engine -
 *      and reports the stream processing rate: trigger rows per second overall, per snode
 *      and per second of snode CPU time (/proc/PID/stat), how the slots and groups split
 *      across the snodes, and snode memory per group (VmRSS growth and the snodes' own
 *      memory_bytes, divided by the groups).
 *   3. Latency: a table that no other row touches gets one row per step, each closing the
 *      previous 10 s window of the INTERVAL streams; for each window the time from just
 *      before the INSERT to (a) the result row being visible in the output subtable
 *      (polled with SELECT in a tight loop) and (b) the notification arriving at the
 *      receiver, for the LOW_LATENCY_CALC stream (target p99 < 50 ms) and, for comparison,
 *      the batched NOTIFY stream.
 *
 * Progress goes to stderr, the report to stdout. Exits 1 when anything is wrong: a daemon
 * died, a stream reports an error, an output table or the notifications do not match the
 * expected counts, a sample timed out.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cluster.h"
#include "bench_receiver.h"
#include "bench_util.h"
#include "client/lib/sluice.h"

/* ------------------------------------------------------------------ the generated data */

#define T0_MS 1735689600000LL /* 2025-01-01 00:00:00 UTC */
#define STEP_MS 50            /* between rows of a run */
#define RUN_ROWS 200          /* rows of one run (a session) */
#define RUN_GAP_MS 6000       /* extra gap between runs: > SESSION 5s, < INTERVAL 10s */
#define STATE_ROWS 250        /* voltage changes every STATE_ROWS rows */
#define INTERVAL_MS 10000
#define SESSION_MS 5000
#define COUNT_N 100
#define EV_START 340.0        /* EVENT_WINDOW(START WITH phase >= 340 END WITH phase < 20) */
#define EV_END 20.0
#define PERIOD_S 2
#define LAT_T0_MS (T0_MS + 86400000LL) /* the latency table's rows, a day later */

/* Row i of child table t. Every row of every table is a pure function of (t, i), so the
 * loaders and the expected results agree without sharing state. */
static int64_t gen_ts(int t, int i)
{
    return T0_MS + (int64_t)(t % 10) * 1000 + (int64_t)i * STEP_MS +
           (int64_t)(i / RUN_ROWS) * RUN_GAP_MS;
}
static int32_t gen_voltage(int i)
{
    return 220 + 10 * ((i / STATE_ROWS) % 2);
}
static float gen_current(int t, int i)
{
    return 10.0f + (float)((t * 31 + i * 17) % 1000) / 100.0f;
}
static float gen_phase(int t, int i)
{
    return (float)(((i / 10) * 7 + t) % 360); /* whole numbers: exact in FLOAT */
}

/* ------------------------------------------------------------------ the streams */

enum { K_INTERVAL, K_STATE, K_COUNT, K_SESSION, K_EVENT, K_PERIOD };

typedef struct sb_stream {
    const char *name;
    const char *out;     /* output (super) table */
    int kind;
    const char *trigger; /* text up to PARTITION BY */
    const char *opts;    /* STREAM_OPTIONS(...) or "" */
    const char *notify;  /* ON (...) of NOTIFY, or NULL */
    const char *subtable;/* OUTPUT_SUBTABLE(...) or "" */
} sb_stream;

#define CALC "SELECT _twstart AS ws, COUNT(*) AS cnt, AVG(current) AS avg_current, " \
             "MAX(voltage) AS max_voltage FROM %%trows"

static const sb_stream STREAMS[] = {
    {.name = "s_int", .out = "o_int", .kind = K_INTERVAL,
     .trigger = "INTERVAL(10s) SLIDING(10s)", .opts = "", .subtable = ""},
    {.name = "s_int_ll", .out = "o_int_ll", .kind = K_INTERVAL,
     .trigger = "INTERVAL(10s) SLIDING(10s)", .opts = "STREAM_OPTIONS(LOW_LATENCY_CALC)",
     .notify = "WINDOW_CLOSE", .subtable = "OUTPUT_SUBTABLE(concat('ll_', %%1))"},
    {.name = "s_int_n", .out = "o_int_n", .kind = K_INTERVAL,
     .trigger = "INTERVAL(10s) SLIDING(10s)", .opts = "", .notify = "WINDOW_CLOSE",
     .subtable = "OUTPUT_SUBTABLE(concat('nb_', %%1))"},
    {.name = "s_state", .out = "o_state", .kind = K_STATE, .trigger = "STATE_WINDOW(voltage)",
     .opts = "", .subtable = ""},
    {.name = "s_state_n", .out = "o_state_n", .kind = K_STATE,
     .trigger = "STATE_WINDOW(voltage)", .opts = "", .notify = "WINDOW_CLOSE",
     .subtable = ""},
    {.name = "s_count", .out = "o_count", .kind = K_COUNT, .trigger = "COUNT_WINDOW(100)",
     .opts = "", .subtable = ""},
    {.name = "s_count_n", .out = "o_count_n", .kind = K_COUNT, .trigger = "COUNT_WINDOW(100)",
     .opts = "", .notify = "WINDOW_CLOSE", .subtable = ""},
    {.name = "s_session", .out = "o_session", .kind = K_SESSION, .trigger = "SESSION(ts, 5s)",
     .opts = "", .subtable = ""},
    {.name = "s_event", .out = "o_event", .kind = K_EVENT,
     .trigger = "EVENT_WINDOW(START WITH phase >= 340 END WITH phase < 20)", .opts = "",
     .subtable = ""},
    {.name = "s_period", .out = "o_period", .kind = K_PERIOD, .trigger = "PERIOD(2s)",
     .opts = "", .subtable = ""},
};
#define NSTREAMS ((int)(sizeof(STREAMS) / sizeof(STREAMS[0])))
#define S_LL 1 /* the LOW_LATENCY_CALC + NOTIFY stream */
#define S_NB 2 /* the batched NOTIFY stream */

static const char *STREAM_NAMES[NSTREAMS];

/* What the generated data must produce in one stream (summed over the tables). */
typedef struct sb_expect {
    long long windows; /* closed windows = result rows */
    long long rows;    /* sum of cnt over them */
    long long opens;   /* WINDOW_OPEN notifications (state windows: every window) */
} sb_expect;

/* Works out the closed windows of every stream kind for child table t with R rows, by the
 * rules of spec/semantics.md (1: watermark = max ts; 3/4: state windows; 5: event windows;
 * 6: sessions; 7: count windows; 8: an INTERVAL window closes when the watermark reaches
 * its end), and adds them to e[kind]. */
static void expect_table(int t, int R, sb_expect e[])
{
    int64_t maxts = gen_ts(t, R - 1);
    /* INTERVAL(10s) SLIDING(10s): windows aligned to the epoch, closed when start + 10s <=
     * the watermark; a window with no rows would close too but yields no row (rule 10):
     * the runs' gaps (< 10 s) never leave one empty. */
    int64_t ws = INT64_MIN;
    long long n = 0;
    for (int i = 0; i <= R; i++) {
        int64_t w = i < R ? gen_ts(t, i) / INTERVAL_MS * INTERVAL_MS : INT64_MAX;
        if (w != ws) {
            if (n > 0 && ws + INTERVAL_MS <= maxts) {
                e[K_INTERVAL].windows++;
                e[K_INTERVAL].rows += n;
            }
            ws = w;
            n = 0;
        }
        n++;
    }
    /* STATE_WINDOW(voltage): runs of equal voltage; every run but the last is closed. */
    n = 0;
    for (int i = 0; i < R; i++) {
        if (i > 0 && gen_voltage(i) != gen_voltage(i - 1)) {
            e[K_STATE].windows++;
            e[K_STATE].rows += n;
            e[K_STATE].opens++;
            n = 0;
        }
        n++;
    }
    e[K_STATE].opens++; /* the last, open window */
    /* COUNT_WINDOW(100): closes at its 100th row. */
    e[K_COUNT].windows += R / COUNT_N;
    e[K_COUNT].rows += (long long)(R / COUNT_N) * COUNT_N;
    /* SESSION(ts, 5s): a row more than 5 s after the previous one closes the session. */
    n = 0;
    for (int i = 0; i < R; i++) {
        if (i > 0 && gen_ts(t, i) - gen_ts(t, i - 1) > SESSION_MS) {
            e[K_SESSION].windows++;
            e[K_SESSION].rows += n;
            n = 0;
        }
        n++;
    }
    /* EVENT_WINDOW: opens on a row with phase >= 340, closes on the first row from that one
     * on (itself included) with phase < 20. */
    bool open = false;
    n = 0;
    for (int i = 0; i < R; i++) {
        double ph = gen_phase(t, i);
        if (!open && ph >= EV_START) {
            open = true;
            n = 0;
        }
        if (open) {
            n++;
            if (ph < EV_END) {
                e[K_EVENT].windows++;
                e[K_EVENT].rows += n;
                open = false;
            }
        }
    }
}

/* ------------------------------------------------------------------ configuration */

typedef struct sb_cfg {
    int tables;
    long long rows;     /* requested total */
    int rows_per_table; /* rows / tables */
    int snodes;
    int samples;
    int threads;
    int batch;
    const char *snode_nice;  /* --snode-nice: "0".."19" or "idle" (NULL: not given) */
    const char *reader_nice; /* --reader-nice for the vnodes (NULL: not given) */
    bool quick;
    bool keep;
} sb_cfg;

/* Everything one run shares. */
typedef struct sb_run {
    sb_cfg cfg;
    bench_cluster *cl;
    bench_receiver *recv;
    int port;          /* mnode */
    sl_block **blocks; /* [table][batch index] */
    int nbatches;      /* per table */
    long long total;   /* rows inserted per load */
    sb_expect expect[K_PERIOD + 1];
    size_t ev_next;    /* receiver events read so far */
    br_event *events;  /* all of them, for the counts */
    size_t nevents, cap_events;
    double t_streams;  /* bench_now() just before CREATE STREAM */
} sb_run;

static void fail(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    fprintf(stderr, "\nsluice-bench stream: FAILED: ");
    vfprintf(stderr, f, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    printf("result: FAILED (see stderr)\n");
    exit(1); /* bench_cluster's atexit hook stops the cluster */
}

static void check_alive(sb_run *r)
{
    char msg[8192];
    if (bench_cluster_check(r->cl, msg, sizeof(msg)) != 0)
        fail("a daemon died: %s", msg);
}

static sl_conn *connect_or_fail(const sb_run *r)
{
    sl_conn *c;
    sl_error err;
    sl_error_clear(&err);
    if (sl_connect("127.0.0.1", r->port, &c, &err) != 0)
        fail("connect: %s", err.msg);
    return c;
}

static void sql_or_fail(sl_conn *c, const char *sql)
{
    sl_result res;
    sl_error err;
    sl_error_clear(&err);
    if (sl_query(c, sql, &res, &err) != 0)
        fail("%s\n  -> %s", sql, err.msg[0] ? err.msg : sl_strerror(err.code));
    sl_result_fini(&res);
}

/* Runs a query; returns 0 and *res, or the error (res empty). */
static int query(sl_conn *c, const char *sql, sl_result *res, sl_error *err)
{
    sl_error_clear(err);
    return sl_query(c, sql, res, err);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: sluice-bench stream [--tables N] [--rows N] [--snodes N] [--samples N]\n"
            "                           [--threads N] [--batch N] [--snode-nice N|idle]\n"
            "                           [--reader-nice N|idle] [--quick] [--keep]\n"
            "  defaults: 1000 tables, 2000000 rows, 2 snodes, 200 latency samples, 16 client\n"
            "  threads (the cluster's full rate here: with 4 it idled a third of the CPU),\n"
            "  batches of 500 rows; --quick: 100 tables, 100000 rows, 30 samples;\n"
            "  --keep leaves the cluster's folder (data, logs) behind; --snode-nice N starts\n"
            "  the snodes with --nice N (0..19 or idle: the streams yield the CPU to the\n"
            "  writes), --reader-nice N the vnodes with --reader-nice N\n");
    exit(2);
}

/* A --nice value the daemons take: NULL (not given), 0..19 or idle. */
static bool priority_ok(const char *s)
{
    if (s == NULL || strcmp(s, "idle") == 0)
        return true;
    char *end;
    long v = strtol(s, &end, 10);
    return *s != '\0' && *end == '\0' && v >= 0 && v <= 19;
}

static void parse(sb_cfg *c, int argc, char **argv)
{
    *c = (sb_cfg){.tables = 1000, .rows = 2000000, .snodes = 2, .samples = 200, .threads = 16,
                  .batch = 500};
    bool t_set = false, r_set = false, s_set = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--tables") && v)
            c->tables = atoi(argv[++i]), t_set = true;
        else if (!strcmp(a, "--rows") && v)
            c->rows = atoll(argv[++i]), r_set = true;
        else if (!strcmp(a, "--snodes") && v)
            c->snodes = atoi(argv[++i]);
        else if (!strcmp(a, "--samples") && v)
            c->samples = atoi(argv[++i]), s_set = true;
        else if (!strcmp(a, "--threads") && v)
            c->threads = atoi(argv[++i]);
        else if (!strcmp(a, "--batch") && v)
            c->batch = atoi(argv[++i]);
        else if (!strcmp(a, "--snode-nice") && v)
            c->snode_nice = argv[++i];
        else if (!strcmp(a, "--reader-nice") && v)
            c->reader_nice = argv[++i];
        else if (!strcmp(a, "--quick"))
            c->quick = true;
        else if (!strcmp(a, "--keep"))
            c->keep = true;
        else
            usage();
    }
    if (c->quick) {
        if (!t_set)
            c->tables = 100;
        if (!r_set)
            c->rows = 100000;
        if (!s_set)
            c->samples = 30;
    }
    if (c->tables < 1 || c->snodes < 1 || c->snodes > 16 || c->samples < 1 ||
        c->threads < 1 || c->batch < 1 || c->batch > SL_BLOCK_ROWS_MAX ||
        !priority_ok(c->snode_nice) || !priority_ok(c->reader_nice))
        usage();
    if (c->rows < (long long)c->tables * COUNT_N || c->rows / c->tables > 1000000) {
        fprintf(stderr, "sluice-bench stream: --rows must give each table %d to 1000000 rows\n",
                COUNT_N);
        exit(2);
    }
    c->rows_per_table = (int)(c->rows / c->tables);
    if (c->threads > c->tables)
        c->threads = c->tables;
}

/* ------------------------------------------------------------------ loading */

static void make_blocks(sb_run *r)
{
    const sb_cfg *c = &r->cfg;
    int R = c->rows_per_table;
    r->nbatches = (R + c->batch - 1) / c->batch;
    r->blocks = calloc((size_t)c->tables, sizeof(*r->blocks));
    if (r->blocks == NULL)
        fail("out of memory");
    for (int t = 0; t < c->tables; t++) {
        r->blocks[t] = calloc((size_t)r->nbatches, sizeof(sl_block));
        if (r->blocks[t] == NULL)
            fail("out of memory");
        for (int b = 0; b < r->nbatches; b++) {
            sl_block *blk = &r->blocks[t][b];
            sl_block_init(blk);
            if (bench_meter_columns(blk) != 0)
                fail("out of memory");
            int from = b * c->batch, to = from + c->batch < R ? from + c->batch : R;
            for (int i = from; i < to; i++) {
                if (sl_column_append_i64(&blk->cols[0], gen_ts(t, i)) != 0 ||
                    sl_column_append_f64(&blk->cols[1], gen_current(t, i)) != 0 ||
                    sl_column_append_i64(&blk->cols[2], gen_voltage(i)) != 0 ||
                    sl_column_append_f64(&blk->cols[3], gen_phase(t, i)) != 0)
                    fail("out of memory");
            }
            sl_block_seal(blk);
        }
    }
    r->total = (long long)R * c->tables;
}

static void free_blocks(sb_run *r)
{
    for (int t = 0; t < r->cfg.tables; t++) {
        for (int b = 0; b < r->nbatches; b++)
            sl_block_fini(&r->blocks[t][b]);
        free(r->blocks[t]);
    }
    free(r->blocks);
}

typedef struct sb_loader {
    sb_run *run;
    int id;
    pthread_t th;
    atomic_llong *done;
    atomic_int *failed;
    char err[640];
} sb_loader;

/* Writes tables id, id + threads, ... batch by batch: every table gets its batches in time
 * order, so the streams see each group's rows in order. */
static void *loader_main(void *arg)
{
    sb_loader *l = arg;
    sb_run *r = l->run;
    sl_error err;
    sl_error_clear(&err);
    sl_conn *conn;
    if (sl_connect("127.0.0.1", r->port, &conn, &err) != 0) {
        snprintf(l->err, sizeof(l->err), "connect: %s", err.msg);
        atomic_store(l->failed, 1);
        return NULL;
    }
    char name[32];
    for (int b = 0; b < r->nbatches && !atomic_load(l->failed); b++) {
        for (int t = l->id; t < r->cfg.tables && !atomic_load(l->failed); t += r->cfg.threads) {
            snprintf(name, sizeof(name), "d%d", t);
            const sl_block *blk = &r->blocks[t][b];
            if (sl_insert_block(conn, "bench", name, blk, &err) != 0) {
                snprintf(l->err, sizeof(l->err), "insert into %s: %s", name,
                         err.msg[0] ? err.msg : sl_strerror(err.code));
                atomic_store(l->failed, 1);
                break;
            }
            atomic_fetch_add(l->done, blk->nrows);
        }
    }
    sl_close(conn);
    return NULL;
}

/* Inserts every generated row with cfg.threads connections; returns rows/s. */
static double load(sb_run *r, const char *label)
{
    atomic_llong done = 0;
    atomic_int failed = 0;
    int nt = r->cfg.threads;
    sb_loader *ls = calloc((size_t)nt, sizeof(*ls));
    if (ls == NULL)
        fail("out of memory");
    double t0 = bench_now(), last = t0;
    for (int i = 0; i < nt; i++) {
        ls[i] = (sb_loader){.run = r, .id = i, .done = &done, .failed = &failed};
        if (pthread_create(&ls[i].th, NULL, loader_main, &ls[i]) != 0)
            fail("cannot start a loader thread");
    }
    for (;;) {
        long long d = atomic_load(&done);
        double now = bench_now();
        if (now - last >= 0.5 || d >= r->total || atomic_load(&failed)) {
            fprintf(stderr, "\r  loading %-16s %5.1f%%  %11lld / %lld rows  %9.0f rows/s", label,
                    100.0 * (double)d / (double)r->total, d, r->total,
                    now > t0 ? (double)d / (now - t0) : 0.0);
            last = now;
        }
        if (d >= r->total || atomic_load(&failed))
            break;
        check_alive(r);
        usleep(10000);
    }
    for (int i = 0; i < nt; i++)
        pthread_join(ls[i].th, NULL);
    double dt = bench_now() - t0;
    fprintf(stderr, "\n");
    for (int i = 0; i < nt; i++)
        if (ls[i].err[0])
            fail("loader %d: %s", i, ls[i].err);
    free(ls);
    return (double)r->total / dt;
}

/* Measured loads without streams; the baseline is their median. */
#define BASE_RUNS 3

/* The index of the median of v[0..n) (n odd). */
static int median_index(const double *v, int n)
{
    for (int i = 0; i < n; i++) {
        int below = 0, equal = 0;
        for (int j = 0; j < n; j++) {
            below += v[j] < v[i];
            equal += v[j] == v[i];
        }
        if (below <= n / 2 && below + equal > n / 2)
            return i;
    }
    return 0;
}

/* Creates database bench, meters, the child tables d0..d{T-1} and lat. */
static void create_schema(sb_run *r, sl_conn *c)
{
    sql_or_fail(c, "DROP DATABASE IF EXISTS bench");
    sql_or_fail(c, "CREATE DATABASE bench VGROUPS 4");
    sql_or_fail(c, "USE bench");
    sql_or_fail(c, "CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT) "
                   "TAGS (groupid INT, location VARCHAR(24))");
    double t0 = bench_now(), last = t0;
    char sql[256];
    for (int t = 0; t < r->cfg.tables; t++) {
        snprintf(sql, sizeof(sql), "CREATE TABLE d%d USING meters TAGS (%d, 'loc%d')", t, t % 10,
                 t % 37);
        sql_or_fail(c, sql);
        double now = bench_now();
        if (now - last >= 0.5 || t == r->cfg.tables - 1) {
            fprintf(stderr, "\r  creating tables %d / %d", t + 1, r->cfg.tables);
            last = now;
        }
    }
    sql_or_fail(c, "CREATE TABLE lat USING meters TAGS (-1, 'latency')");
    fprintf(stderr, " (%.1f s)\n", bench_now() - t0);
}

/* ------------------------------------------------------------------ snode figures */

typedef struct sb_snode {
    int id;              /* ins_snodes id, -1 when not listed */
    long long slots, groups, mem_bytes;
    long long rows;      /* ins_stream_tasks.rows of the tasks it owns */
    double cpu0, cpu1;   /* CPU seconds at the start and end of the measured span */
    long long rss0, rss1;
} sb_snode;

/* Reads ins_snodes (slots, groups, memory_bytes) and the rows of the tasks each snode owns
 * (ins_stream_tasks) into s[0..nsnodes), matching snodes by endpoint. */
static void read_snodes(sb_run *r, sl_conn *c, sb_snode *s)
{
    int n = bench_cluster_nsnodes(r->cl);
    sl_result res;
    sl_error err;
    for (int i = 0; i < n; i++)
        s[i].id = -1, s[i].slots = s[i].groups = s[i].mem_bytes = s[i].rows = 0;
    if (query(c, "SELECT id, endpoint, slots, groups, memory_bytes FROM "
                 "information_schema.ins_snodes", &res, &err) != 0)
        fail("ins_snodes: %s", err.msg);
    for (uint32_t row = 0; row < sl_res_nrows(&res); row++) {
        uint32_t len;
        const char *ep = sl_res_str(&res, row, 1, &len);
        for (int i = 0; i < n; i++) {
            const char *a = bench_cluster_snode_addr(r->cl, i);
            if (strlen(a) == len && memcmp(a, ep, len) == 0) {
                s[i].id = (int)sl_res_i64(&res, row, 0);
                s[i].slots = sl_res_is_null(&res, row, 2) ? 0 : sl_res_i64(&res, row, 2);
                s[i].groups = sl_res_is_null(&res, row, 3) ? 0 : sl_res_i64(&res, row, 3);
                s[i].mem_bytes = sl_res_is_null(&res, row, 4) ? 0 : sl_res_i64(&res, row, 4);
            }
        }
    }
    sl_result_fini(&res);
    /* rows is what the owner's task of the stream reports; ins_stream_tasks repeats it on
     * every run of consecutive slots that owner holds: one value per (stream, snode). */
    if (query(c, "SELECT snode_id, max(rows) FROM information_schema.ins_stream_tasks WHERE "
                 "db_name = 'bench' GROUP BY stream_name, snode_id", &res, &err) != 0)
        fail("ins_stream_tasks: %s", err.msg);
    for (uint32_t row = 0; row < sl_res_nrows(&res); row++) {
        if (sl_res_is_null(&res, row, 0) || sl_res_is_null(&res, row, 1))
            continue;
        int id = (int)sl_res_i64(&res, row, 0);
        for (int i = 0; i < n; i++)
            if (s[i].id == id)
                s[i].rows += sl_res_i64(&res, row, 1);
    }
    sl_result_fini(&res);
}

static void sample_procs(sb_run *r, sb_snode *s, bool end)
{
    for (int i = 0; i < bench_cluster_nsnodes(r->cl); i++) {
        pid_t pid = bench_cluster_snode_pid(r->cl, i);
        double cpu = bench_proc_cpu_sec(pid);
        long long rss = bench_proc_rss_bytes(pid);
        if (cpu < 0 || rss < 0)
            check_alive(r), fail("cannot read /proc/%d of snode %d", (int)pid, i + 1);
        if (end)
            s[i].cpu1 = cpu, s[i].rss1 = rss;
        else
            s[i].cpu0 = cpu, s[i].rss0 = rss;
    }
}

/* CPU seconds of every process of the run: the daemons by name, then sluice-bench itself. */
#define SB_MAXPROCS 24
typedef struct sb_cpu {
    int n;
    char name[SB_MAXPROCS][16];
    double sec[SB_MAXPROCS];
    bool part[SB_MAXPROCS]; /* a part of the entry before, not added to the total */
} sb_cpu;

static void sample_cpu(sb_run *r, sb_cpu *out)
{
    memset(out, 0, sizeof(*out));
    char name[16];
    for (int i = 0; i < 3 + r->cfg.snodes && out->n < SB_MAXPROCS - 1; i++) {
        if (i == 0)
            snprintf(name, sizeof(name), "mnode");
        else if (i <= 2)
            snprintf(name, sizeof(name), "vnode%d", i);
        else
            snprintf(name, sizeof(name), "snode%d", i - 2);
        pid_t pid = bench_cluster_pid(r->cl, name);
        snprintf(out->name[out->n], sizeof(out->name[0]), "%s", name);
        out->sec[out->n++] = pid > 0 ? bench_proc_cpu_sec(pid) : 0;
        if (i >= 1 && i <= 2 && out->n < SB_MAXPROCS - 1) {
            /* The vnode's change reader (part of the figure before), which runs at
             * --reader-nice: how much of the vnode's time the streams' reads took. */
            snprintf(out->name[out->n], sizeof(out->name[0]), "(reader %.1s)", name + 5);
            double rs = pid > 0 ? bench_thread_cpu_sec(pid, "vn-reader") : 0;
            out->sec[out->n] = rs > 0 ? rs : 0;
            out->part[out->n++] = true;
        }
    }
    snprintf(out->name[out->n], sizeof(out->name[0]), "sluice-bench");
    out->sec[out->n++] = bench_proc_cpu_sec(getpid());
}

/* Prints "label: mnode 1.2, vnode1 3.4, ... cpu-s in W s" for the span a..b. */
static void print_cpu(const char *label, const sb_cpu *a, const sb_cpu *b, double wall)
{
    printf("  cpu-s %-30s", label);
    double total = 0;
    for (int i = 0; i < a->n; i++) {
        printf(" %s %.2f", a->name[i], b->sec[i] - a->sec[i]);
        if (!a->part[i])
            total += b->sec[i] - a->sec[i];
    }
    printf("  (total %.2f in %.2f s wall)\n", total, wall);
}

/* ------------------------------------------------------------------ streams */

static void create_streams(sb_run *r, sl_conn *c)
{
    int rport = bench_receiver_port(r->recv);
    char sql[1024], notify[256];
    for (int k = 0; k < NSTREAMS; k++) {
        const sb_stream *s = &STREAMS[k];
        notify[0] = '\0';
        if (s->notify)
            snprintf(notify, sizeof(notify), "NOTIFY('ws://127.0.0.1:%d/%s') ON (%s)", rport,
                     s->name, s->notify);
        if (s->kind == K_PERIOD)
            snprintf(sql, sizeof(sql),
                     "CREATE STREAM %s %s FROM meters %s INTO %s AS SELECT _tlocaltime AS ts, "
                     "1 AS cnt",
                     s->name, s->trigger, s->opts, s->out);
        else
            snprintf(sql, sizeof(sql),
                     "CREATE STREAM %s %s FROM meters PARTITION BY tbname %s %s INTO %s %s AS %s",
                     s->name, s->trigger, s->opts, notify, s->out, s->subtable, CALC);
        sql_or_fail(c, sql);
        printf("  %-10s %s\n", s->name, sql + strlen("CREATE STREAM ") + strlen(s->name) + 1);
    }
}

/* Fails when any task of the benchmark's streams reports an error. */
static void check_stream_errors(sl_conn *c)
{
    sl_result res;
    sl_error err;
    if (query(c, "SELECT stream_name, snode_id, error FROM information_schema.ins_stream_tasks "
                 "WHERE db_name = 'bench'", &res, &err) != 0)
        fail("ins_stream_tasks: %s", err.msg);
    for (uint32_t row = 0; row < sl_res_nrows(&res); row++) {
        if (sl_res_is_null(&res, row, 2))
            continue;
        uint32_t nl, el;
        const char *name = sl_res_str(&res, row, 0, &nl);
        const char *e = sl_res_str(&res, row, 2, &el);
        if (el > 0)
            fail("stream %.*s on snode %lld reports an error: %.*s", (int)nl, name,
                 (long long)sl_res_i64(&res, row, 1), (int)el, e);
    }
    sl_result_fini(&res);
}

/* Waits until every task of every stream runs on an snode that logged its setup. */
static void wait_streams_ready(sb_run *r, sl_conn *c)
{
    double t0 = bench_now(), deadline = t0 + 60;
    char why[256] = "";
    for (;;) {
        check_alive(r);
        check_stream_errors(c);
        sb_snode s[16];
        read_snodes(r, c, s);
        sl_result res;
        sl_error err;
        if (query(c, "SELECT stream_name, status, rows, snode_id FROM "
                     "information_schema.ins_stream_tasks WHERE db_name = 'bench'",
                  &res, &err) != 0)
            fail("ins_stream_tasks: %s", err.msg);
        int seen[NSTREAMS] = {0};
        bool ok = sl_res_nrows(&res) > 0;
        snprintf(why, sizeof(why), "no tasks listed");
        for (uint32_t row = 0; ok && row < sl_res_nrows(&res); row++) {
            uint32_t nl, sl;
            const char *name = sl_res_str(&res, row, 0, &nl);
            const char *st = sl_res_str(&res, row, 1, &sl);
            int k = 0;
            while (k < NSTREAMS && !(strlen(STREAMS[k].name) == nl &&
                                     memcmp(STREAMS[k].name, name, nl) == 0))
                k++;
            if (k == NSTREAMS)
                continue;
            seen[k] = 1;
            if (sl != 7 || memcmp(st, "running", 7) != 0 || sl_res_is_null(&res, row, 2) ||
                sl_res_is_null(&res, row, 3)) {
                snprintf(why, sizeof(why), "%s: task %.*s", STREAMS[k].name, (int)sl, st);
                ok = false;
                break;
            }
            /* The owner's log line says the task positioned its cursors: rows written from
             * now on reach the stream. */
            int id = (int)sl_res_i64(&res, row, 3), idx = -1;
            for (int i = 0; i < bench_cluster_nsnodes(r->cl); i++)
                if (s[i].id == id)
                    idx = i;
            char pat[128];
            snprintf(pat, sizeof(pat), "stream bench.%s running on", STREAMS[k].name);
            if (idx < 0 || bench_cluster_snode_log_count(r->cl, idx, pat) == 0) {
                snprintf(why, sizeof(why), "%s: snode %d has not set the task up",
                         STREAMS[k].name, id);
                ok = false;
            }
        }
        sl_result_fini(&res);
        for (int k = 0; ok && k < NSTREAMS; k++)
            if (!seen[k]) {
                snprintf(why, sizeof(why), "%s has no task", STREAMS[k].name);
                ok = false;
            }
        if (ok)
            break;
        if (bench_now() > deadline)
            fail("the streams were not ready after 60 s: %s", why);
        usleep(100000);
    }
    fprintf(stderr, "  streams ready in %.1f s\n", bench_now() - t0);
}

/* Reads the receiver's new events into r->events. */
static void pull_events(sb_run *r)
{
    br_event *ev;
    size_t n = bench_receiver_events(r->recv, r->ev_next, &ev, &r->ev_next);
    if (n == 0)
        return;
    if (r->nevents + n > r->cap_events) {
        size_t cap = (r->nevents + n) * 2;
        br_event *m = realloc(r->events, cap * sizeof(*m));
        if (m == NULL)
            fail("out of memory");
        r->events = m;
        r->cap_events = cap;
    }
    memcpy(r->events + r->nevents, ev, n * sizeof(*ev));
    r->nevents += n;
    free(ev);
}

static int cmp_event(const void *a, const void *b)
{
    const br_event *x = a, *y = b;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    if (x->trigger_id != y->trigger_id)
        return x->trigger_id < y->trigger_id ? -1 : 1;
    return 0;
}

/* Distinct (triggerId, type) events per stream and type (delivery is at least once, so
 * repeats are folded); *dups the repeats. */
static void count_events(sb_run *r, long long cnt[][2], long long *dups)
{
    memset(cnt, 0, sizeof(long long) * 2 * NSTREAMS);
    *dups = 0;
    if (r->nevents > 1) /* none yet: events is NULL, which qsort must not get */
        qsort(r->events, r->nevents, sizeof(*r->events), cmp_event);
    for (size_t i = 0; i < r->nevents; i++) {
        const br_event *e = &r->events[i];
        if (i > 0 && cmp_event(e, &r->events[i - 1]) == 0) {
            (*dups)++;
            continue;
        }
        if (e->stream >= 0 && e->type != BR_OTHER)
            cnt[e->stream][e->type]++;
    }
}

/* Per stream: result rows and sum(cnt) of its output table. */
typedef struct sb_got {
    long long windows, rows;
} sb_got;

/* Reads every output table's count(*) and sum(cnt) into got, but for the streams with
 * skip[k] set (skip may be NULL): those keep their last figures. */
static void read_outputs(sl_conn *c, sb_got *got, const bool *skip)
{
    char sql[128];
    for (int k = 0; k < NSTREAMS; k++) {
        if (skip != NULL && skip[k])
            continue;
        snprintf(sql, sizeof(sql), "SELECT count(*), sum(cnt) FROM %s", STREAMS[k].out);
        sl_result res;
        sl_error err;
        got[k].windows = got[k].rows = 0;
        if (query(c, sql, &res, &err) != 0)
            fail("%s: %s", sql, err.msg);
        if (sl_res_nrows(&res) > 0) {
            got[k].windows = sl_res_is_null(&res, 0, 0) ? 0 : sl_res_i64(&res, 0, 0);
            got[k].rows = sl_res_is_null(&res, 0, 1) ? 0 : sl_res_i64(&res, 0, 1);
        }
        sl_result_fini(&res);
    }
}

/* The expected (windows, rows) of stream k. The PERIOD stream writes one row (cnt 1) per
 * tick on the wall clock, so its count is only bounded: windows = -1 here, and
 * period_ok() checks it. */
static sb_expect expected(const sb_run *r, int k)
{
    if (STREAMS[k].kind == K_PERIOD)
        return (sb_expect){.windows = -1, .rows = -1};
    return r->expect[STREAMS[k].kind];
}

/* The PERIOD stream's rows: at least one, no more than its schedule points since it was
 * created (one every PERIOD_S seconds; a late tick may skip points, docs/triggers.md rule
 * 9), each with cnt 1. */
static bool period_ok(const sb_run *r, const sb_got *g, double now)
{
    long long points = (long long)((now - r->t_streams) / PERIOD_S) + 1;
    return g->windows >= 1 && g->windows <= points && g->rows == g->windows;
}

/* Notifications expected of stream k: [BR_OPEN], [BR_CLOSE]. */
static void expected_notes(const sb_run *r, int k, long long out[2])
{
    out[0] = out[1] = 0;
    if (STREAMS[k].notify == NULL)
        return;
    sb_expect e = expected(r, k);
    out[1] = e.windows;
    if (strstr(STREAMS[k].notify, "WINDOW_OPEN"))
        out[0] = e.opens;
}

/* The per-stream table: expected and produced results and notifications. */
static void print_streams(const sb_run *r, const sb_got *got, long long notes[][2], double now)
{
    printf("  %-10s %12s %12s %12s %12s %10s %10s\n", "stream", "windows want", "windows got",
           "sum(cnt) want", "sum(cnt) got", "notes want", "notes got");
    for (int k = 0; k < NSTREAMS; k++) {
        sb_expect e = expected(r, k);
        long long en[2];
        expected_notes(r, k, en);
        if (STREAMS[k].kind == K_PERIOD) {
            printf("  %-10s %12s %12lld %12s %12lld %10d %10d%s\n", STREAMS[k].name, "1..ticks",
                   got[k].windows, "= windows", got[k].rows, 0, 0,
                   period_ok(r, &got[k], now) ? "" : "  <- MISMATCH");
            continue;
        }
        bool bad = got[k].windows != e.windows || got[k].rows != e.rows ||
                   notes[k][0] != en[0] || notes[k][1] != en[1];
        printf("  %-10s %12lld %12lld %12lld %12lld %10lld %10lld%s\n", STREAMS[k].name,
               e.windows, got[k].windows, e.rows, got[k].rows, en[0] + en[1],
               notes[k][0] + notes[k][1], bad ? "  <- MISMATCH" : "");
    }
}

/* Waits until every output table and the receiver hold exactly what the data must give.
 * Fails when nothing moved for 90 s, or on a stream error or a dead daemon. Returns the
 * time (bench_now) it got there. */
static double wait_caught_up(sb_run *r, sl_conn *c, sb_got *got, long long notes[][2])
{
    double t0 = bench_now(), last_change = t0, last_print = 0;
    long long last_sum = -1, dups = 0;
    /* Output tables already complete are read again only every 8th round and before the
     * end: each read is a scan of every output subtable, which the vnodes serve while
     * the streams catch up. */
    bool complete[NSTREAMS] = {false};
    for (unsigned round = 0;; round++) {
        check_alive(r);
        check_stream_errors(c);
        bool full = round % 8 == 0;
        read_outputs(c, got, full ? NULL : complete);
        pull_events(r);
        count_events(r, notes, &dups);
        long long have = 0, want = 0, nh = 0, nw = 0, sum = 0;
        bool done = true, over = false;
        double now = bench_now();
        for (int k = 0; k < NSTREAMS; k++) {
            if (STREAMS[k].kind == K_PERIOD) {
                /* It never stops writing: bounded, not counted as progress. */
                if (!period_ok(r, &got[k], now))
                    done = false;
                if (got[k].rows != got[k].windows)
                    over = true;
                continue;
            }
            sb_expect e = expected(r, k);
            long long en[2];
            expected_notes(r, k, en);
            have += got[k].rows;
            want += e.rows;
            nh += notes[k][0] + notes[k][1];
            nw += en[0] + en[1];
            sum += got[k].windows + got[k].rows + notes[k][0] + notes[k][1];
            complete[k] = got[k].windows == e.windows && got[k].rows == e.rows;
            if (!complete[k] || notes[k][0] != en[0] || notes[k][1] != en[1])
                done = false;
            if (got[k].windows > e.windows || got[k].rows > e.rows || notes[k][0] > en[0] ||
                notes[k][1] > en[1])
                over = true;
        }
        if (now - last_print >= 0.5 || done) {
            fprintf(stderr, "\r  catching up: %5.1f%% of windowed rows, %lld / %lld "
                            "notifications, %.0f s",
                    want ? 100.0 * (double)have / (double)want : 100.0, nh, nw, now - t0);
            last_print = now;
        }
        if (sum != last_sum) {
            last_sum = sum;
            last_change = now;
        }
        if (done && full)
            break;
        if (done) {
            round = UINT_MAX; /* the next round (0) reads every table to confirm */
            continue;
        }
        if (over || now - last_change > 90) {
            fprintf(stderr, "\n");
            print_streams(r, got, notes, now);
            fail(over ? "a stream produced more than the data allows (table above)"
                      : "the streams stopped progressing for 90 s short of the expected "
                        "results (table above)");
        }
        usleep(250000);
    }
    fprintf(stderr, "\n");
    return bench_now();
}

/* ------------------------------------------------------------------ latency */

static long long count_rows(sl_conn *c, const char *table)
{
    char sql[128];
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
    sl_result res;
    sl_error err;
    long long n = -1;
    if (query(c, sql, &res, &err) == 0) {
        n = sl_res_nrows(&res) ? sl_res_i64(&res, 0, 0) : 0;
        sl_result_fini(&res);
    } else if (!strstr(err.msg, "does not exist")) {
        fail("%s: %s", sql, err.msg);
    }
    return n; /* -1: the subtable does not exist yet */
}

static void insert_lat_row(sl_conn *c, int k)
{
    sl_block b;
    sl_block_init(&b);
    if (bench_meter_columns(&b) != 0 ||
        sl_column_append_i64(&b.cols[0], LAT_T0_MS + (int64_t)k * INTERVAL_MS + 5) != 0 ||
        sl_column_append_f64(&b.cols[1], 10.0 + k % 7) != 0 ||
        sl_column_append_i64(&b.cols[2], 220) != 0 || sl_column_append_f64(&b.cols[3], 100.0) != 0)
        fail("out of memory");
    sl_block_seal(&b);
    sl_error err;
    sl_error_clear(&err);
    if (sl_insert_block(c, "bench", "lat", &b, &err) != 0)
        fail("insert into lat: %s", err.msg);
    sl_block_fini(&b);
}

typedef struct sb_lat {
    double *row[2], *note[2]; /* [0]: s_int_ll, [1]: s_int_n; ms */
    double *ins;              /* the INSERT's round trip, ms */
    double *poll;             /* one SELECT count(*) round trip, ms */
    int n, npoll;
} sb_lat;

/* Closes window k - 1 of table lat (row k) and times its result rows and notifications.
 * measure = false for the warm-up windows. */
static void lat_sample(sb_run *r, sl_conn *c, int k, sb_lat *lat, bool measure)
{
    static const char *const tables[2] = {"ll_lat", "nb_lat"};
    static const int streams[2] = {S_LL, S_NB};
    int64_t ws = LAT_T0_MS + (int64_t)(k - 1) * INTERVAL_MS;
    size_t ev_from = r->nevents;
    double t0 = bench_now();
    insert_lat_row(c, k);
    double t_ins = bench_now();
    double row_at[2] = {0, 0}, note_at[2] = {0, 0};
    double deadline = t0 + 15;
    for (;;) {
        for (int j = 0; j < 2; j++) {
            if (row_at[j] == 0) {
                double q0 = bench_now();
                long long n = count_rows(c, tables[j]);
                double q1 = bench_now();
                if (n >= k)
                    row_at[j] = q1;
                if (measure && lat->npoll < 100000)
                    lat->poll[lat->npoll++] = (q1 - q0) * 1e3;
            }
        }
        pull_events(r);
        for (size_t i = ev_from; i < r->nevents; i++) {
            const br_event *e = &r->events[i];
            for (int j = 0; j < 2; j++)
                if (e->stream == streams[j] && e->type == BR_CLOSE && e->window_start == ws &&
                    note_at[j] == 0)
                    note_at[j] = e->arrival;
        }
        if (row_at[0] && row_at[1] && note_at[0] && note_at[1])
            break;
        if (bench_now() > deadline) {
            check_alive(r);
            check_stream_errors(c);
            fail("latency window %d (start %lld): after 15 s result rows %s/%s, notifications "
                 "%s/%s (s_int_ll/s_int_n)",
                 k - 1, (long long)ws, row_at[0] ? "seen" : "MISSING",
                 row_at[1] ? "seen" : "MISSING", note_at[0] ? "seen" : "MISSING",
                 note_at[1] ? "seen" : "MISSING");
        }
        usleep(500);
    }
    if (!measure)
        return;
    for (int j = 0; j < 2; j++) {
        lat->row[j][lat->n] = (row_at[j] - t0) * 1e3;
        lat->note[j][lat->n] = (note_at[j] - t0) * 1e3;
    }
    lat->ins[lat->n] = (t_ins - t0) * 1e3;
    lat->n++;
}

static void print_lat_line(const char *what, const char *stream, double *v, int n,
                           bool target)
{
    qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
    double p99 = bench_pct(v, n, 99);
    printf("  %-34s %-28s %8.1f %8.1f %8.1f   %s\n", what, stream, bench_pct(v, n, 50), p99,
           v[n - 1], !target ? "-" : p99 < 50 ? "p99 < 50 ms: met" : "p99 < 50 ms: MISSED");
}

static void run_latency(sb_run *r, sl_conn *c)
{
    int n = r->cfg.samples;
    sb_lat lat = {0};
    for (int j = 0; j < 2; j++) {
        lat.row[j] = calloc((size_t)n, sizeof(double));
        lat.note[j] = calloc((size_t)n, sizeof(double));
    }
    lat.ins = calloc((size_t)n, sizeof(double));
    lat.poll = calloc(100000, sizeof(double));
    if (!lat.row[0] || !lat.row[1] || !lat.note[0] || !lat.note[1] || !lat.ins || !lat.poll)
        fail("out of memory");
    /* Row 0 opens the first window; row 1 closes it (warm-up: it creates the output
     * subtables and the receiver connections); rows 2.. are the samples. */
    insert_lat_row(c, 0);
    lat_sample(r, c, 1, &lat, false);
    double t0 = bench_now(), last = 0;
    for (int k = 2; k < n + 2; k++) {
        lat_sample(r, c, k, &lat, true);
        double now = bench_now();
        if (now - last >= 0.5 || k == n + 1) {
            fprintf(stderr, "\r  latency samples %d / %d (%.0f s)", k - 1, n, now - t0);
            last = now;
        }
    }
    fprintf(stderr, "\n");
    qsort(lat.ins, (size_t)n, sizeof(double), bench_cmp_double);
    qsort(lat.poll, (size_t)lat.npoll, sizeof(double), bench_cmp_double);
    printf("latency: %d windows of table lat closed one at a time; t0 = just before the INSERT "
           "of the closing row\n  (INSERT round trip p50 %.2f ms, p99 %.2f ms; one SELECT "
           "count(*) poll p50 %.2f ms)\n",
           n, bench_pct(lat.ins, n, 50), bench_pct(lat.ins, n, 99),
           bench_pct(lat.poll, lat.npoll, 50));
    printf("  %-34s %-28s %8s %8s %8s   %s\n", "window close ->", "stream", "p50 ms", "p99 ms",
           "max ms", "target");
    print_lat_line("result row visible (SELECT)", "s_int_ll (LOW_LATENCY_CALC)", lat.row[0], n,
                   true);
    print_lat_line("notification received", "s_int_ll (LOW_LATENCY_CALC)", lat.note[0], n, true);
    print_lat_line("result row visible (SELECT)", "s_int_n (batched)", lat.row[1], n, false);
    print_lat_line("notification received", "s_int_n (batched)", lat.note[1], n, false);
    for (int j = 0; j < 2; j++) {
        free(lat.row[j]);
        free(lat.note[j]);
    }
    free(lat.ins);
    free(lat.poll);
}

/* ------------------------------------------------------------------ the command */

int cmd_stream(int argc, char **argv)
{
    sb_run *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return 1;
    parse(&r->cfg, argc, argv);
    const sb_cfg *cfg = &r->cfg;
    double t_start = bench_now();
    for (int k = 0; k < NSTREAMS; k++)
        STREAM_NAMES[k] = STREAMS[k].name;
    make_blocks(r);
    for (int t = 0; t < cfg->tables; t++)
        expect_table(t, cfg->rows_per_table, r->expect);
    printf("sluice-bench stream: %d child tables x %d rows = %lld rows, %d client threads, "
           "batches of %d rows, %d snodes (nice %s), vnode change readers at nice %s, "
           "%d latency samples%s\n",
           cfg->tables, cfg->rows_per_table, r->total, cfg->threads, cfg->batch, cfg->snodes,
           cfg->snode_nice ? cfg->snode_nice : "0",
           cfg->reader_nice ? cfg->reader_nice : "10 (default)", cfg->samples,
           cfg->quick ? " (--quick)" : "");
    bench_print_load();

    char msg[8192];
    if (bench_receiver_open(&r->recv, STREAM_NAMES, NSTREAMS, msg, sizeof(msg)) != 0)
        fail("%s", msg);
    bench_cluster_opts co = {.vnodes = 2, .snodes = cfg->snodes, .heartbeat_ms = 200,
                             .snode_nice = cfg->snode_nice,
                             .reader_nice = cfg->reader_nice,
                             .keep = cfg->keep};
    if (bench_cluster_start(&r->cl, &co, msg, sizeof(msg)) != 0)
        fail("cannot start the local cluster: %s", msg);
    r->port = bench_cluster_mnode_port(r->cl);
    printf("cluster: mnode + 2 vnodes + %d snodes on 127.0.0.1, started here (%s); "
           "notification receiver on 127.0.0.1:%d\n",
           cfg->snodes, bench_cluster_dir(r->cl), bench_receiver_port(r->recv));
    sl_conn *c = connect_or_fail(r);

    /* Phase 1: the baseline. A first, unmeasured load warms the daemons up (allocator,
     * RocksDB memtables and files, connections). Then BASE_RUNS measured loads, each into
     * a database created just after one of the same size was dropped - the state the
     * streams' load starts in - and the baseline is their median: one load of a second or
     * two varies by tens of percent from run to run on a small shared machine (fsync
     * latency, scheduling), and a lucky or unlucky baseline alone would swing the ratio. */
    fprintf(stderr, "phase 1: without streams\n");
    create_schema(r, c);
    double warm = load(r, "(warm-up)");
    printf("warm-up load (not measured): %.0f rows/s\n", warm);
    sb_cpu cpu_a, cpu_b, cpu_c, cpu_d;
    double runs[BASE_RUNS], t_runs[BASE_RUNS];
    sb_cpu cpu_runs[BASE_RUNS][2];
    for (int i = 0; i < BASE_RUNS; i++) {
        create_schema(r, c);
        sample_cpu(r, &cpu_runs[i][0]);
        double t0 = bench_now();
        char label[32];
        snprintf(label, sizeof(label), "(no streams %d/%d)", i + 1, BASE_RUNS);
        runs[i] = load(r, label);
        t_runs[i] = bench_now() - t0;
        sample_cpu(r, &cpu_runs[i][1]);
    }
    int med = median_index(runs, BASE_RUNS);
    double base = runs[med], t_base = t_runs[med];
    cpu_a = cpu_runs[med][0];
    cpu_b = cpu_runs[med][1];
    printf("ingest without streams: %.0f rows/s (median of", base);
    for (int i = 0; i < BASE_RUNS; i++)
        printf(" %.0f", runs[i]);
    printf(")\n");

    /* Phase 2: the same load with the streams. */
    fprintf(stderr, "phase 2: with %d streams\n", NSTREAMS);
    create_schema(r, c);
    sb_snode sn[16];
    sample_procs(r, sn, false);
    long long rss_before[16];
    for (int i = 0; i < cfg->snodes; i++)
        rss_before[i] = sn[i].rss0;
    printf("streams (database bench):\n");
    r->t_streams = bench_now();
    create_streams(r, c);
    wait_streams_ready(r, c);
    sample_procs(r, sn, false);
    sample_cpu(r, &cpu_c);
    double t_load = bench_now();
    double with = load(r, "(10 streams)");
    double t_loaded = bench_now();
    sample_cpu(r, &cpu_d);
    printf("ingest with streams:    %.0f rows/s\n", with);
    printf("ingest with / without:  %.3f   (target >= 0.80: %s)\n", with / base,
           with >= 0.8 * base ? "met" : "MISSED");
    printf("where the CPU went during the two loads (/proc/PID/stat utime+stime):\n");
    print_cpu("load without streams:", &cpu_a, &cpu_b, t_base);
    print_cpu("load with streams:", &cpu_c, &cpu_d, t_loaded - t_load);

    fprintf(stderr, "waiting for the streams to catch up\n");
    sb_got got[NSTREAMS];
    long long notes_got[NSTREAMS][2];
    double t_done = wait_caught_up(r, c, got, notes_got);
    sample_procs(r, sn, true);
    sb_cpu cpu_e;
    sample_cpu(r, &cpu_e);
    /* The tasks report rows on their heartbeat: give it a few beats to settle. */
    long long trig_rows = 0;
    for (int tries = 0; tries < 15; tries++) {
        usleep(200000);
        read_snodes(r, c, sn);
        trig_rows = 0;
        for (int i = 0; i < cfg->snodes; i++)
            trig_rows += sn[i].rows;
        if (trig_rows >= (long long)NSTREAMS * r->total)
            break;
    }
    long long windows = 0, notes = 0, expect_groups = (long long)(NSTREAMS - 1) * cfg->tables + 1;
    for (int k = 0; k < NSTREAMS; k++) {
        long long en[2];
        expected_notes(r, k, en);
        notes += en[0] + en[1];
        if (expected(r, k).windows > 0)
            windows += expected(r, k).windows;
    }
    uint64_t msgs, malformed;
    bench_receiver_stats(r->recv, &msgs, &malformed);
    long long cnt[NSTREAMS][2], dups;
    count_events(r, cnt, &dups);
    if (malformed > 0)
        fail("%llu notification messages or events could not be read",
             (unsigned long long)malformed);
    printf("results: every output table and the receiver hold exactly the expected rows "
           "(%lld windows, sum(cnt) checked per stream) and notifications (%lld in %llu "
           "messages, %lld repeats folded)\n",
           windows, notes, (unsigned long long)msgs, dups);
    print_streams(r, got, notes_got, t_done);
    double span = t_done - t_load;
    printf("stream processing: %d streams x %lld rows = %lld trigger rows in %.1f s from the "
           "start of the load (the load took %.1f s, catching up %.1f s more): %.0f rows/s\n",
           NSTREAMS, r->total, (long long)NSTREAMS * r->total, span, t_loaded - t_load,
           t_done - t_loaded, (double)NSTREAMS * (double)r->total / span);
    print_cpu("load start to caught up:", &cpu_c, &cpu_e, span);
    printf("trigger rows reported by the tasks (ins_stream_tasks.rows): %lld (expected %lld)\n",
           trig_rows, (long long)NSTREAMS * r->total);
    printf("  %-6s %-22s %6s %7s %12s %9s %11s %13s %9s %9s\n", "snode", "endpoint", "slots",
           "groups", "rows", "cpu s", "rows/s", "rows/cpu-s", "rss0 MB", "rss1 MB");
    long long groups = 0, mem = 0, rss_growth = 0;
    double cpu = 0;
    for (int i = 0; i < cfg->snodes; i++) {
        double cs = sn[i].cpu1 - sn[i].cpu0;
        printf("  %-6d %-22s %6lld %7lld %12lld %9.2f %11.0f %13.0f %9.1f %9.1f\n", sn[i].id,
               bench_cluster_snode_addr(r->cl, i) + 6, sn[i].slots, sn[i].groups, sn[i].rows, cs,
               (double)sn[i].rows / span, cs > 0 ? (double)sn[i].rows / cs : 0.0,
               (double)rss_before[i] / 1048576.0, (double)sn[i].rss1 / 1048576.0);
        groups += sn[i].groups;
        mem += sn[i].mem_bytes;
        rss_growth += sn[i].rss1 - rss_before[i];
        cpu += cs;
    }
    printf("  all snodes: %lld rows in %.2f cpu-s = %.0f rows per snode cpu-second\n", trig_rows,
           cpu, cpu > 0 ? (double)trig_rows / cpu : 0.0);
    printf("memory: %lld groups (ins_snodes; expected %lld = 9 streams x %d tables + 1 PERIOD "
           "group); snode VmRSS growth %.1f MB = %.0f bytes/group; memory_bytes reported by "
           "the snodes %.1f MB = %.0f bytes/group\n",
           groups, expect_groups, cfg->tables, (double)rss_growth / 1048576.0,
           groups > 0 ? (double)rss_growth / (double)groups : 0.0, (double)mem / 1048576.0,
           groups > 0 ? (double)mem / (double)groups : 0.0);
    if (groups != expect_groups)
        printf("  note: the snodes report %lld groups, not %lld\n", groups, expect_groups);

    /* Phase 3: latency. */
    fprintf(stderr, "phase 3: latency\n");
    run_latency(r, c);
    check_stream_errors(c);
    check_alive(r);
    bench_print_load();
    sl_close(c);
    bench_cluster_stop(r->cl);
    bench_receiver_close(r->recv);
    free_blocks(r);
    free(r->events);
    free(r);
    printf("result: ok (%.0f s)\n", bench_now() - t_start);
    return 0;
}
