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
 */
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

static const struct bench_cmd {
    const char *name;
    const char *help;
    int (*run)(int argc, char **argv);
} commands[] = {
    {.name = "agg", .help = "aggregate 10M in-memory rows through the executor vs a tight loop",
     .run = cmd_agg},
};

int main(int argc, char **argv)
{
    if (argc >= 2) {
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
            if (strcmp(argv[1], commands[i].name) == 0)
                return commands[i].run(argc - 2, argv + 2);
    }
    fprintf(stderr, "usage: sluice-bench <command> [options]\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(stderr, "  %-8s %s\n", commands[i].name, commands[i].help);
    return 2;
}
