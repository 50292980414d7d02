/*
 * sluice_bench.c - sluice-bench, the load generator and measurement tool.
 *
 * Subcommands print their figures; none of them is a test. This subcommand:
 *
 *   sluice-bench agg [--tables N] [--rows-per-table N] [--repeat N]
 *
 * loads N tables of generated meter rows into the embedded store, then runs
 *   SELECT _wstart, count(*), sum(voltage), avg(current), min(current), max(voltage)
 *     FROM meters PARTITION BY tbname INTERVAL(1m)
 * through the real parser, planner and executor, and beside it, in the same run, a
 * hand-written tight C loop over the same in-memory arrays computing the same result (the
 * speed limit). It prints rows/s of both, their ratio, and checks that they agree.
 *
 * The storage cluster's subcommands, `insert` (rows/s end to end through a cluster beside
 * an in-process RocksDB baseline) and `query` (a full-range PARTITION BY tbname
 * INTERVAL(1m) scan through a cluster beside the embedded store), are described above
 * their code below.
 *
 * `stream` (bench/stream_bench.c) starts its own cluster and measures what streams cost:
 * ingest with and without 10 streams, stream rows/s per snode and per snode core, memory
 * per group, window-close to result-row and to notification latency.
 *
 * `failover` (bench/failover_bench.c) starts its own cluster with 3 snodes, kills the busiest
 * one with SIGKILL under a continuous insert load, times detection, recovery and catch-up,
 * and checks the streams' output window by window.
 *
 * `placement` (bench/placement_bench.c) times the mnode's rendezvous placement of
 * (stream, slot) pairs on snodes and measures the pairs moved by a join and a death against
 * the theoretical minimum.
 */
#define _GNU_SOURCE /* mkdtemp, getloadavg */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/exec/memstore.h"
#include "common/exec/plan.h"
#include "common/sql/parser.h"

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, const sl_error *err)
{
    fprintf(stderr, "sluice-bench: %s: %s\n", what, err->msg[0] ? err->msg : sl_strerror(err->code));
    exit(1);
}

/* The generated data, column arrays per table, shared by both contenders. */
typedef struct dataset {
    int ntables;
    int nrows;     /* per table */
    int64_t **ts;
    float **current;
    int32_t **voltage;
    float **phase;
} dataset;

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void generate(dataset *d)
{
    const int64_t t0 = 1735689600000LL; /* 2025-01-01 00:00:00 UTC, ms */
    d->ts = calloc((size_t)d->ntables, sizeof(*d->ts));
    d->current = calloc((size_t)d->ntables, sizeof(*d->current));
    d->voltage = calloc((size_t)d->ntables, sizeof(*d->voltage));
    d->phase = calloc((size_t)d->ntables, sizeof(*d->phase));
    for (int t = 0; t < d->ntables; t++) {
        d->ts[t] = malloc(sizeof(int64_t) * (size_t)d->nrows);
        d->current[t] = malloc(sizeof(float) * (size_t)d->nrows);
        d->voltage[t] = malloc(sizeof(int32_t) * (size_t)d->nrows);
        d->phase[t] = malloc(sizeof(float) * (size_t)d->nrows);
        for (int i = 0; i < d->nrows; i++) {
            d->ts[t][i] = t0 + (int64_t)i * 1000 + (int64_t)(rng() % 500);
            d->current[t][i] = 10.0f + (float)(rng() % 1000) / 100.0f;
            d->voltage[t][i] = 200 + (int32_t)(rng() % 40);
            d->phase[t][i] = (float)(rng() % 360);
        }
    }
}

static void load(sl_memstore *ms, const dataset *d)
{
    sl_error err;
    sl_error_clear(&err);
    sl_result res;
    if (sl_memstore_exec(ms,
                         "CREATE DATABASE bench; USE bench; CREATE STABLE meters (ts TIMESTAMP, "
                         "current FLOAT, voltage INT, phase FLOAT) TAGS (location VARCHAR(64), "
                         "groupid INT)",
                         &res, &err) != 0)
        die("create", &err);
    sl_result_fini(&res);
    double t0 = now_sec(), last = t0;
    sl_block b;
    for (int t = 0; t < d->ntables; t++) {
        char sql[256];
        snprintf(sql, sizeof(sql), "CREATE TABLE d%d USING meters TAGS ('loc%d', %d)", t, t % 10,
                 t % 7);
        if (sl_memstore_exec(ms, sql, &res, &err) != 0)
            die("create table", &err);
        sl_result_fini(&res);
        for (int off = 0; off < d->nrows; off += SL_BLOCK_ROWS_MAX) {
            int n = d->nrows - off < SL_BLOCK_ROWS_MAX ? d->nrows - off : SL_BLOCK_ROWS_MAX;
            sl_block_init(&b);
            sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
            sl_block_add_column(&b, SL_T_FLOAT, 0);
            sl_block_add_column(&b, SL_T_INT, 0);
            sl_block_add_column(&b, SL_T_FLOAT, 0);
            for (int i = off; i < off + n; i++) {
                sl_column_append_i64(&b.cols[0], d->ts[t][i]);
                sl_column_append_f64(&b.cols[1], d->current[t][i]);
                sl_column_append_i64(&b.cols[2], d->voltage[t][i]);
                sl_column_append_f64(&b.cols[3], d->phase[t][i]);
            }
            b.nrows = (uint32_t)n;
            snprintf(sql, sizeof(sql), "d%d", t);
            if (sl_memstore_append(ms, "bench", sql, &b, &err) != 0)
                die("append", &err);
            sl_block_fini(&b);
        }
        double now = now_sec();
        if (now - last > 0.5 || t == d->ntables - 1) {
            long long done = (long long)(t + 1) * d->nrows;
            fprintf(stderr, "\rloading: %lld / %lld rows (%.0f rows/s)", done,
                    (long long)d->ntables * d->nrows, done / (now - t0));
            last = now;
        }
    }
    fprintf(stderr, "\n");
}

/* Result of one window of one table, for the cross-check. */
typedef struct wres {
    int64_t ws, count, sum_v;
    double avg_c, min_c;
    int32_t max_v;
} wres;

/* The speed limit: one pass per table over the arrays, windows cut inline. */
static size_t tight_loop(const dataset *d, wres *out)
{
    size_t n = 0;
    const int64_t iv = 60000;
    for (int t = 0; t < d->ntables; t++) {
        const int64_t *ts = d->ts[t];
        const float *cur = d->current[t];
        const int32_t *vol = d->voltage[t];
        int64_t ws = INT64_MIN, count = 0, sum_v = 0;
        double sum_c = 0, min_c = 0;
        int32_t max_v = 0;
        for (int i = 0; i < d->nrows; i++) {
            int64_t w = ts[i] - ((ts[i] % iv) + iv) % iv;
            if (w != ws) {
                if (count > 0)
                    out[n++] = (wres){ws, count, sum_v, sum_c / count, min_c, max_v};
                ws = w;
                count = 0;
                sum_v = 0;
                sum_c = 0;
                min_c = INFINITY;
                max_v = INT32_MIN;
            }
            count++;
            sum_v += vol[i];
            sum_c += cur[i];
            if (cur[i] < min_c)
                min_c = cur[i];
            if (vol[i] > max_v)
                max_v = vol[i];
        }
        if (count > 0)
            out[n++] = (wres){ws, count, sum_v, sum_c / count, min_c, max_v};
    }
    return n;
}

static int cmd_agg(int argc, char **argv)
{
    dataset d = {.ntables = 1000, .nrows = 10000};
    int repeat = 3;
    const char *custom = NULL; /* --query: time another query (no cross-check) */
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--tables") == 0 && i + 1 < argc)
            d.ntables = atoi(argv[++i]);
        else if (strcmp(argv[i], "--rows-per-table") == 0 && i + 1 < argc)
            d.nrows = atoi(argv[++i]);
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--query") == 0 && i + 1 < argc)
            custom = argv[++i];
        else {
            fprintf(stderr, "usage: sluice-bench agg [--tables N] [--rows-per-table N] [--repeat N] [--query SQL]\n");
            return 2;
        }
    }
    if (d.ntables < 1 || d.nrows < 1 || repeat < 1) {
        fprintf(stderr, "sluice-bench agg: counts must be positive\n");
        return 2;
    }
    long long total = (long long)d.ntables * d.nrows;
    printf("sluice-bench agg: %d tables x %d rows = %lld rows, %d repetitions (best kept)\n",
           d.ntables, d.nrows, total, repeat);
    generate(&d);
    sl_memstore *ms;
    if (sl_memstore_open(&ms, NULL, NULL) != 0) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    load(ms, &d);

    const char *sql = custom ? custom
                             : "SELECT _wstart, count(*), sum(voltage), avg(current), "
                               "min(current), max(voltage) FROM meters PARTITION BY tbname "
                               "INTERVAL(1m)";
    printf("query: %s\n", sql);
    sl_error err;
    sl_parse_result *pr;
    sl_error_clear(&err);
    if (sl_parse(sql, strlen(sql), &pr, &err) != 0)
        die("parse", &err);
    sl_plan_ctx ctx = {.catalog = sl_memstore_catalog(ms), .db = "bench", .now_ms = 0};

    size_t maxw = (size_t)d.ntables * ((size_t)d.nrows / 50 + 2);
    wres *ref = malloc(sizeof(wres) * maxw);
    double best_exec = 1e30, best_loop = 1e30;
    size_t nref = 0;
    sl_block rows;
    sl_block_init(&rows);
    for (int r = 0; r < repeat; r++) {
        double t0 = now_sec();
        nref = tight_loop(&d, ref);
        double t1 = now_sec();
        if (t1 - t0 < best_loop)
            best_loop = t1 - t0;

        sl_block_fini(&rows);
        sl_block_init(&rows);
        double t2 = now_sec();
        sl_plan *plan;
        if (sl_plan_select(pr->stmts[0]->u.select, &ctx, &plan, &err) != 0)
            die("plan", &err);
        if (sl_plan_collect(plan, &rows, &err) != 0)
            die("execute", &err);
        sl_plan_free(plan);
        double t3 = now_sec();
        if (t3 - t2 < best_exec)
            best_exec = t3 - t2;
        fprintf(stderr, "run %d: executor %.3f s, tight loop %.3f s\n", r + 1, t3 - t2, t1 - t0);
    }

    /* Cross-check: both produced the same windows in the same order. */
    int mismatches = 0;
    if (custom != NULL) {
        printf("rows: %u (custom query: no cross-check)\n", rows.nrows);
    } else if (rows.nrows != nref) {
        printf("MISMATCH: executor produced %u windows, tight loop %zu\n", rows.nrows, nref);
        mismatches++;
    }
    for (uint32_t i = 0; custom == NULL && i < rows.nrows && i < nref && mismatches < 5; i++) {
        const wres *w = &ref[i];
        bool ok = sl_column_get_i64(&rows.cols[0], i) == w->ws &&
                  sl_column_get_i64(&rows.cols[1], i) == w->count &&
                  sl_column_get_i64(&rows.cols[2], i) == w->sum_v &&
                  fabs(sl_column_get_f64(&rows.cols[3], i) - w->avg_c) <= 1e-9 * fabs(w->avg_c) &&
                  sl_column_get_f64(&rows.cols[4], i) == w->min_c &&
                  sl_column_get_i64(&rows.cols[5], i) == w->max_v;
        if (!ok) {
            printf("MISMATCH at window %u (start %lld)\n", i, (long long)w->ws);
            mismatches++;
        }
    }
    double exec_rate = total / best_exec, loop_rate = total / best_loop;
    printf("windows: %u (cross-check %s)\n", rows.nrows, mismatches ? "FAILED" : "ok");
    printf("%-28s %14s %12s\n", "contender", "rows/s", "seconds");
    printf("%-28s %14.0f %12.3f\n", "executor (parse+plan+run)", exec_rate, best_exec);
    printf("%-28s %14.0f %12.3f\n", "tight C loop (speed limit)", loop_rate, best_loop);
    printf("executor / tight loop time ratio: %.2fx (target <= 3x)\n", best_exec / best_loop);

    sl_block_fini(&rows);
    free(ref);
    sl_parse_result_free(pr);
    sl_memstore_close(ms);
    for (int t = 0; t < d.ntables; t++) {
        free(d.ts[t]);
        free(d.current[t]);
        free(d.voltage[t]);
        free(d.phase[t]);
    }
    free(d.ts);
    free(d.current);
    free(d.voltage);
    free(d.phase);
    return mismatches ? 1 : 0;
}


/* ======================================================================= insert, query
 *
 *   sluice-bench insert [--threads N] [--tables N] [--batch N] [--rows N] [-h HOST -P PORT]
 *                       [--vnodes N] [--keep]
 *   sluice-bench query  [--threads N] [--tables N] [--batch N] [--rows N] [-h HOST -P PORT]
 *                       [--vnodes N] [--no-load] [--no-embedded]
 *
 * Without -h/-P they start a local cluster (scripts/sluice-local up, in a temp folder, on a
 * free base port, binaries beside this one) and stop it at the end (--keep leaves it up).
 * The same blocks (bench_util.h's meter rows, timestamps per batch) are written end to end
 * through libsluice (one connection per thread, sl_insert_block per batch) and, for the
 * baseline, straight into one in-process RocksDB through sl_kv with sync (what an
 * acknowledged vnode write costs at least), same thread count.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "bench_util.h"
#include "sluice.h"
#include "common/kv/kv.h"
#include "vnode-adapter/storage/vstore.h"

typedef struct ins_cfg {
    int threads, tables, batch, vnodes;
    long long rows;
    const char *host;
    int port;
    bool keep, no_load, no_embedded;
    char dir[256]; /* local cluster folder */
    char bindir[1024];
} ins_cfg;

static int ins_rounds(const ins_cfg *c)
{
    long long per = (long long)c->tables * c->batch;
    long long r = (c->rows + per - 1) / per;
    return r < 1 ? 1 : (int)r;
}

static bool port_free(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return false;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    bool ok = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
    close(fd);
    return ok;
}

static int local_up(ins_cfg *c)
{
    char self[1024];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    snprintf(c->bindir, sizeof(c->bindir), "%s", self);
    snprintf(c->dir, sizeof(c->dir), "/tmp/sluice-bench.XXXXXX");
    if (mkdtemp(c->dir) == NULL)
        return -1;
    srand((unsigned)getpid() ^ (unsigned)time(NULL));
    for (int tries = 0; tries < 50; tries++) {
        int base = 20000 + rand() % 30000;
        bool ok = port_free(base);
        for (int i = 1; ok && i <= c->vnodes; i++)
            ok = port_free(base + 70 + i);
        if (!ok)
            continue;
        char cmd[4096];
        snprintf(cmd, sizeof(cmd),
                 "SLUICE_BIN='%s' '%s/scripts/sluice-local' up --dir '%s' --vnodes %d "
                 "--base-port %d >&2",
                 c->bindir, SLUICE_SOURCE_DIR, c->dir, c->vnodes, base);
        if (system(cmd) != 0)
            return -1;
        c->host = "127.0.0.1";
        c->port = base;
        return 0;
    }
    return -1;
}

static void local_down(const ins_cfg *c)
{
    if (c->dir[0] == '\0')
        return;
    if (c->keep) {
        printf("cluster left running: %s/scripts/sluice-local down --dir %s (mnode %s:%d)\n",
               SLUICE_SOURCE_DIR, c->dir, c->host, c->port);
        return;
    }
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "SLUICE_BIN='%s' '%s/scripts/sluice-local' down --dir '%s' >&2",
             c->bindir, SLUICE_SOURCE_DIR, c->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "sluice-bench: sluice-local down failed\n");
    bench_rm_rf(c->dir);
}

static void run_sql(sl_conn *conn, const char *sql)
{
    sl_result res;
    sl_error err;
    sl_error_clear(&err);
    if (sl_query(conn, sql, &res, &err) != 0) {
        fprintf(stderr, "sluice-bench: %s\n", sql);
        die("query", &err);
    }
    sl_result_fini(&res);
}

/* Shared by the writer threads of one load and its progress printer. */
typedef struct load_run {
    const ins_cfg *c;
    int mode; /* 0: cluster, 1: sl_kv baseline (sync), 2: sl_vstore_write (sync, serialised) */
    sl_kv *kv;
    sl_vstore *vs;
    pthread_mutex_t vs_mu; /* the vstore has one writer at a time */
    sl_kv_cf *cf;
    atomic_llong done;
    atomic_int failed;
} load_run;

typedef struct load_thread {
    load_run *run;
    int id;
    pthread_t th;
} load_thread;

static void *load_main(void *arg)
{
    load_thread *lt = arg;
    load_run *run = lt->run;
    const ins_cfg *c = run->c;
    sl_error err;
    sl_error_clear(&err);
    sl_conn *conn = NULL;
    sl_kv_batch *batch = NULL;
    sl_buf key, val;
    sl_buf_init(&key);
    sl_buf_init(&val);
    if (run->mode == 0 && sl_connect(c->host, c->port, &conn, &err) != 0) {
        fprintf(stderr, "sluice-bench: connect: %s\n", err.msg);
        run->failed = 1;
        return NULL;
    }
    if (run->mode == 1 && sl_kv_batch_open(&batch) != 0) {
        run->failed = 1;
        return NULL;
    }
    /* The same blocks in both modes: values from the thread's seed, stamps per round. */
    uint64_t seed = 42 + (uint64_t)lt->id;
    sl_block b;
    bench_meter_block(&b, c->batch, &seed);
    int rounds = ins_rounds(c);
    char name[32];
    for (int i = 0; i < rounds && !run->failed; i++) {
        bench_meter_stamp(&b, i, c->batch);
        for (int t = lt->id; t < c->tables && !run->failed; t += c->threads) {
            int rc;
            if (run->mode == 0) {
                snprintf(name, sizeof(name), "d%d", t);
                rc = sl_insert_block(conn, "bench", name, &b, &err);
            } else if (run->mode == 2) {
                sl_vs_write_item it = {(uint64_t)t + 1, &b};
                pthread_mutex_lock(&run->vs_mu);
                rc = sl_vstore_write(run->vs, &it, 1, true, NULL, &err);
                pthread_mutex_unlock(&run->vs_mu);
            } else {
                rc = bench_kv_write_block(run->kv, run->cf, batch, &key, &val, (uint64_t)t + 1,
                                          &b, true, &err);
            }
            if (rc != 0) {
                fprintf(stderr, "\nsluice-bench: write: %s\n", err.msg[0] ? err.msg : sl_strerror(rc));
                run->failed = 1;
                break;
            }
            atomic_fetch_add(&run->done, c->batch);
        }
    }
    sl_block_fini(&b);
    sl_buf_fini(&key);
    sl_buf_fini(&val);
    if (batch != NULL)
        sl_kv_batch_close(batch);
    sl_close(conn);
    return NULL;
}

/* Runs one load with c->threads writers; returns rows/s (0 on failure). */
static double load_threads(load_run *run, const char *label)
{
    const ins_cfg *c = run->c;
    long long total = (long long)ins_rounds(c) * c->tables * c->batch;
    load_thread *lt = calloc((size_t)c->threads, sizeof(*lt));
    double t0 = bench_now(), last = t0;
    for (int i = 0; i < c->threads; i++) {
        lt[i].run = run;
        lt[i].id = i;
        pthread_create(&lt[i].th, NULL, load_main, &lt[i]);
    }
    for (;;) {
        long long d = atomic_load(&run->done);
        double now = bench_now();
        if (now - last >= 0.5 || d >= total || run->failed) {
            fprintf(stderr, "\r  %-22s %11lld / %lld rows  %10.0f rows/s", label, d, total,
                    now > t0 ? (double)d / (now - t0) : 0.0);
            fflush(stderr);
            last = now;
        }
        if (d >= total || run->failed)
            break;
        usleep(20000);
    }
    for (int i = 0; i < c->threads; i++)
        pthread_join(lt[i].th, NULL);
    double dt = bench_now() - t0;
    fprintf(stderr, "\n");
    free(lt);
    return run->failed ? 0 : (double)total / dt;
}

static void ins_usage(const char *cmd)
{
    fprintf(stderr,
            "usage: sluice-bench %s [--threads N] [--tables N] [--batch N] [--rows N] "
            "[-h HOST -P PORT] [--vnodes N] [--keep]%s\n",
            cmd, strcmp(cmd, "query") == 0 ? " [--no-load] [--no-embedded]" : "");
    exit(2);
}

static void ins_parse(ins_cfg *c, const char *cmd, int argc, char **argv)
{
    *c = (ins_cfg){.threads = 4, .tables = 1000, .batch = 1000, .vnodes = 2,
                   .rows = 10000000LL, .port = 6030};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--threads") && v)
            c->threads = atoi(argv[++i]);
        else if (!strcmp(a, "--tables") && v)
            c->tables = atoi(argv[++i]);
        else if (!strcmp(a, "--batch") && v)
            c->batch = atoi(argv[++i]);
        else if (!strcmp(a, "--rows") && v)
            c->rows = atoll(argv[++i]);
        else if (!strcmp(a, "--vnodes") && v)
            c->vnodes = atoi(argv[++i]);
        else if (!strcmp(a, "-h") && v)
            c->host = argv[++i];
        else if (!strcmp(a, "-P") && v)
            c->port = atoi(argv[++i]);
        else if (!strcmp(a, "--keep"))
            c->keep = true;
        else if (!strcmp(a, "--no-load") && !strcmp(cmd, "query"))
            c->no_load = true;
        else if (!strcmp(a, "--no-embedded") && !strcmp(cmd, "query"))
            c->no_embedded = true;
        else
            ins_usage(cmd);
    }
    if (c->threads < 1 || c->tables < 1 || c->batch < 1 || c->batch > SL_BLOCK_ROWS_MAX ||
        c->rows < 1 || c->vnodes < 1)
        ins_usage(cmd);
    if (c->threads > c->tables)
        c->threads = c->tables;
}

/* Creates the database, the super table and the child tables through the cluster. */
static void create_schema(const ins_cfg *c, int vgroups)
{
    sl_conn *conn;
    sl_error err;
    sl_error_clear(&err);
    if (sl_connect(c->host, c->port, &conn, &err) != 0)
        die("connect", &err);
    char sql[256];
    run_sql(conn, "DROP DATABASE IF EXISTS bench");
    snprintf(sql, sizeof(sql), "CREATE DATABASE bench VGROUPS %d", vgroups);
    run_sql(conn, sql);
    run_sql(conn, "USE bench");
    run_sql(conn, "CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT) "
                  "TAGS (location VARCHAR(64), groupid INT)");
    double t0 = bench_now();
    for (int t = 0; t < c->tables; t++) {
        snprintf(sql, sizeof(sql), "CREATE TABLE d%d USING meters TAGS ('loc%d', %d)", t, t % 10,
                 t % 7);
        run_sql(conn, sql);
    }
    printf("schema: database bench VGROUPS %d, %d child tables created in %.2f s\n", vgroups,
           c->tables, bench_now() - t0);
    sl_close(conn);
}

static double cluster_load(const ins_cfg *c)
{
    load_run run = {.c = c, .mode = 0};
    return load_threads(&run, "end to end (cluster)");
}

static double baseline_load(const ins_cfg *c)
{
    char dir[256];
    snprintf(dir, sizeof(dir), "/tmp/sluice-bench-kv.XXXXXX");
    if (mkdtemp(dir) == NULL)
        return 0;
    const char *cfs[] = {"data"};
    sl_error err;
    sl_error_clear(&err);
    load_run run = {.c = c, .mode = 1};
    if (sl_kv_open(&run.kv, dir, NULL, cfs, 1, &err) != 0)
        die("baseline open", &err);
    run.cf = sl_kv_cf_get(run.kv, "data");
    double r = load_threads(&run, "baseline sl_kv sync=on");
    sl_kv_close(run.kv);
    bench_rm_rf(dir);
    return r;
}

/* sl_vstore_write with sync per call, as the vnode wrote before its group commit. */
static double vstore_load(const ins_cfg *c)
{
    static const sl_vs_column cols[] = {{.name = "ts", .type = SL_T_TIMESTAMP},
                                        {.name = "current", .type = SL_T_FLOAT},
                                        {.name = "voltage", .type = SL_T_INT},
                                        {.name = "phase", .type = SL_T_FLOAT}};
    char dir[256];
    snprintf(dir, sizeof(dir), "/tmp/sluice-bench-vs.XXXXXX");
    if (mkdtemp(dir) == NULL)
        return 0;
    sl_error err;
    sl_error_clear(&err);
    load_run run = {.c = c, .mode = 2};
    pthread_mutex_init(&run.vs_mu, NULL);
    if (sl_vstore_open(&run.vs, dir, NULL, &err) != 0)
        die("vstore open", &err);
    for (int t = 0; t < c->tables; t++) {
        char name[32];
        snprintf(name, sizeof(name), "d%d", t);
        sl_vs_table_def d = {.uid = (uint64_t)t + 1, .name = name, .kind = SL_VS_TABLE_NORMAL,
                             .precision = SL_PREC_MS, .ncols = 4, .cols = cols};
        if (sl_vstore_put_table(run.vs, &d, false, &err) != 0)
            die("vstore put table", &err);
    }
    double r = load_threads(&run, "vstore_write sync=on");
    sl_vstore_close(run.vs);
    pthread_mutex_destroy(&run.vs_mu);
    bench_rm_rf(dir);
    return r;
}

static void print_load(void)
{
    double la[3] = {0};
    if (getloadavg(la, 3) == 3)
        printf("load average: %.2f %.2f %.2f (2 cores; other work on the machine skews figures)\n",
               la[0], la[1], la[2]);
}

static int cmd_insert(int argc, char **argv)
{
    ins_cfg c;
    ins_parse(&c, "insert", argc, argv);
    bool local = c.host == NULL;
    if (local && local_up(&c) != 0) {
        fprintf(stderr, "sluice-bench: cannot start a local cluster\n");
        return 1;
    }
    long long total = (long long)ins_rounds(&c) * c.tables * c.batch;
    printf("sluice-bench insert: %d threads, %d tables, batches of %d rows, %d rounds = %lld "
           "rows, cluster %s:%d%s\n",
           c.threads, c.tables, c.batch, ins_rounds(&c), total, c.host, c.port,
           local ? " (local, started here)" : "");
    print_load();
    create_schema(&c, 2 * c.vnodes);
    double e2e = cluster_load(&c);
    double base = baseline_load(&c);
    double vsr = vstore_load(&c);
    print_load();
    printf("%-34s %14s\n", "contender", "rows/s");
    printf("%-34s %14.0f\n", "end to end (libsluice -> vnodes)", e2e);
    printf("%-34s %14.0f\n", "baseline (sl_kv in-process, sync)", base);
    printf("%-34s %14.0f\n", "sl_vstore_write in-process, sync", vsr);
    printf("end to end / baseline: %.0f%%   targets: >= 1,000,000 rows/s end to end (%s), "
           ">= 50%% of baseline (%s)\n",
           base > 0 ? 100.0 * e2e / base : 0.0, e2e >= 1e6 ? "met" : "MISSED",
           base > 0 && e2e >= 0.5 * base ? "met" : "MISSED");
    if (local)
        local_down(&c);
    return e2e > 0 && base > 0 ? 0 : 1;
}

static const char *QUERY_SQL =
    "SELECT count(*), avg(current) FROM meters PARTITION BY tbname INTERVAL(1m)";

/* The same rows loaded into the embedded store (sl_memstore), the same query through the
 * planner/executor in-process. Returns seconds, *nrows the result rows. */
static double embedded_query(const ins_cfg *c, uint32_t *nrows)
{
    sl_memstore *ms;
    sl_error err;
    sl_error_clear(&err);
    sl_result res;
    if (sl_memstore_open(&ms, NULL, NULL) != 0)
        return -1;
    if (sl_memstore_exec(ms,
                         "CREATE DATABASE bench; USE bench; CREATE STABLE meters (ts TIMESTAMP, "
                         "current FLOAT, voltage INT, phase FLOAT) TAGS (location VARCHAR(64), "
                         "groupid INT)",
                         &res, &err) != 0)
        die("embedded create", &err);
    sl_result_fini(&res);
    char sql[256];
    for (int t = 0; t < c->tables; t++) {
        snprintf(sql, sizeof(sql), "CREATE TABLE d%d USING meters TAGS ('loc%d', %d)", t, t % 10,
                 t % 7);
        if (sl_memstore_exec(ms, sql, &res, &err) != 0)
            die("embedded create table", &err);
        sl_result_fini(&res);
    }
    int rounds = ins_rounds(c);
    sl_block *blk = calloc((size_t)c->threads, sizeof(*blk));
    for (int k = 0; k < c->threads; k++) {
        uint64_t seed = 42 + (uint64_t)k;
        bench_meter_block(&blk[k], c->batch, &seed);
    }
    double t0 = bench_now(), last = t0;
    long long done = 0, total = (long long)rounds * c->tables * c->batch;
    for (int i = 0; i < rounds; i++) {
        for (int k = 0; k < c->threads; k++)
            bench_meter_stamp(&blk[k], i, c->batch);
        for (int t = 0; t < c->tables; t++) {
            snprintf(sql, sizeof(sql), "d%d", t);
            if (sl_memstore_append(ms, "bench", sql, &blk[t % c->threads], &err) != 0)
                die("embedded append", &err);
            done += c->batch;
        }
        double now = bench_now();
        if (now - last >= 0.5 || i == rounds - 1) {
            fprintf(stderr, "\r  %-22s %11lld / %lld rows  %10.0f rows/s", "embedded load", done,
                    total, done / (now - t0));
            last = now;
        }
    }
    fprintf(stderr, "\n");
    for (int k = 0; k < c->threads; k++)
        sl_block_fini(&blk[k]);
    free(blk);
    double q0 = bench_now();
    if (sl_memstore_exec(ms, QUERY_SQL, &res, &err) != 0)
        die("embedded query", &err);
    double dt = bench_now() - q0;
    *nrows = res.ncols > 0 ? res.rows.nrows : 0;
    sl_result_fini(&res);
    sl_memstore_close(ms);
    return dt;
}

static int cmd_query(int argc, char **argv)
{
    ins_cfg c;
    ins_parse(&c, "query", argc, argv);
    bool local = c.host == NULL;
    if (local && c.no_load) {
        fprintf(stderr, "sluice-bench query: --no-load needs -h/-P of a loaded cluster\n");
        return 2;
    }
    if (local && local_up(&c) != 0) {
        fprintf(stderr, "sluice-bench: cannot start a local cluster\n");
        return 1;
    }
    long long total = (long long)ins_rounds(&c) * c.tables * c.batch;
    printf("sluice-bench query: %lld rows in %d tables, cluster %s:%d%s\n", total, c.tables,
           c.host, c.port, local ? " (local, started here)" : "");
    print_load();
    if (!c.no_load) {
        create_schema(&c, 2 * c.vnodes);
        double r = cluster_load(&c);
        printf("loaded %lld rows end to end at %.0f rows/s\n", total, r);
        if (r <= 0)
            return 1;
    }
    sl_conn *conn;
    sl_error err;
    sl_error_clear(&err);
    if (sl_connect(c.host, c.port, &conn, &err) != 0)
        die("connect", &err);
    run_sql(conn, "USE bench");
    printf("query: %s\n", QUERY_SQL);
    sl_result res;
    double best = 1e30;
    uint32_t nrows = 0;
    for (int r = 0; r < 2; r++) {
        double t0 = bench_now();
        if (sl_query(conn, QUERY_SQL, &res, &err) != 0)
            die("query", &err);
        double dt = bench_now() - t0;
        nrows = sl_res_nrows(&res);
        long long counted = 0;
        for (uint32_t i = 0; i < nrows; i++)
            counted += sl_res_i64(&res, i, 0);
        if (counted != total)
            printf("CHECK FAILED: the counts sum to %lld, %lld rows were loaded\n", counted, total);
        sl_result_fini(&res);
        fprintf(stderr, "  run %d: %.3f s\n", r + 1, dt);
        if (dt < best)
            best = dt;
    }
    sl_close(conn);
    double emb = -1;
    uint32_t enrows = 0;
    if (!c.no_embedded)
        emb = embedded_query(&c, &enrows);
    print_load();
    printf("%-36s %14s %10s %12s\n", "contender", "rows/s", "seconds", "result rows");
    printf("%-36s %14.0f %10.3f %12u\n", "cluster (libsluice, best of 2)", total / best, best,
           nrows);
    if (emb > 0)
        printf("%-36s %14.0f %10.3f %12u\n", "embedded store (in-process memstore)", total / emb,
               emb, enrows);
    if (local)
        local_down(&c);
    return emb > 0 && enrows != nrows ? 1 : 0;
}

/* bench/placement_bench.c */
int bench_placement(int argc, char **argv);

/* bench/trigger_bench.c */
int cmd_trigger(int argc, char **argv);

/* bench/stream_bench.c */
int cmd_stream(int argc, char **argv);

/* bench/failover_bench.c */
int cmd_failover(int argc, char **argv);

static const struct bench_cmd {
    const char *name;
    const char *help;
    int (*run)(int argc, char **argv);
} commands[] = {
    {.name = "agg", .help = "aggregate 10M in-memory rows through the executor vs a tight loop",
     .run = cmd_agg},
    {.name = "insert", .help = "rows/s end to end through a cluster beside in-process RocksDB",
     .run = cmd_insert},
    {.name = "query", .help = "full-range PARTITION BY tbname INTERVAL(1m) scan through a cluster",
     .run = cmd_query},
    {.name = "trigger", .help = "rows/s through the trigger engine, INTERVAL(1m) over 10k groups",
     .run = cmd_trigger},
    {.name = "stream",
     .help = "10 streams on a local cluster: ingest cost, rows/s per snode core, latency, memory",
     .run = cmd_stream},
    {.name = "failover",
     .help = "kill -9 of an snode under load, 10 times: detection, recovery, catch-up p50/max",
     .run = cmd_failover},
    {.name = "placement",
     .help = "rendezvous placement of 10,000 streams x 256 slots on 100 snodes; join/death moves",
     .run = bench_placement},
};

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* interleave with the progress lines on stderr */
    if (argc >= 2) {
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
            if (strcmp(argv[1], commands[i].name) == 0)
                return commands[i].run(argc - 2, argv + 2);
    }
    fprintf(stderr, "usage: sluice-bench <command> [options]\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(stderr, "  %-10s %s\n", commands[i].name, commands[i].help);
    return 2;
}
