/*
 * vstore_bench.c - vstore-bench: write and scan throughput of the vnode storage engine
 * (vnode-adapter/storage/vstore.h), beside a baseline that writes the same rows straight
 * into RocksDB through sl_kv, in the same process and run.
 *
 *   vstore-bench [--tables N] [--batches N] [--rows N] [--repeat N] [--dir DIR] [--no-sync]
 *
 * Loads N tables (default 1,000) of meter rows (ts, current FLOAT, voltage INT, phase
 * FLOAT) in batches of --rows rows (default 1,000) per table and call, --batches rounds
 * over all tables (default 10: 10M rows), four times, each into a fresh database:
 *
 *   baseline sync=off  sl_block_encode + one sl_kv batch (key: uid, first ts) per batch
 *   vstore   sync=off  sl_vstore_write: validation, sorting check, the block encoded once
 *                      for the data and the change log, version and head records
 *   baseline sync=on   as above, each batch fsync'ed
 *   vstore   sync=on   as above, each call fsync'ed (the acknowledged-write path)
 *
 * then scans every table of the last vstore in full (all columns) and the baseline's
 * blocks (iterate + sl_block_decode). With --repeat N the whole sequence runs N times,
 * the contenders alternating, and the medians are reported (the machine is shared, so
 * single runs are noisy). It prints rows/s for each, the vstore/baseline ratios, and a
 * progress line while loading. A benchmark prints figures; it is not a test.
 */
#define _GNU_SOURCE /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "common/kv/kv.h"
#include "vnode-adapter/storage/vstore.h"

static void die(const char *what, const sl_error *err)
{
    fprintf(stderr, "vstore-bench: %s: %s\n", what,
            err != NULL && err->msg[0] ? err->msg : "failed");
    exit(1);
}

static const sl_vs_column METER[] = {
    {.name = "ts", .type = SL_T_TIMESTAMP},
    {.name = "current", .type = SL_T_FLOAT},
    {.name = "voltage", .type = SL_T_INT},
    {.name = "phase", .type = SL_T_FLOAT},
};

typedef struct cfg {
    int tables;
    int batches;
    int rows;
    int repeat;
    char dir[256];
} cfg;

/* One block per table whose timestamps are rewritten for each batch (the same work for
 * both contenders); values are generated once. */
static sl_block *make_blocks(const cfg *c)
{
    sl_block *b = calloc((size_t)c->tables, sizeof(sl_block));
    uint64_t x = 42;
    for (int t = 0; t < c->tables; t++)
        bench_meter_block(&b[t], c->rows, &x);
    return b;
}

static void progress(const char *name, long done, long total, double t0)
{
    double dt = bench_now() - t0;
    fprintf(stderr, "\r  %-20s %11ld / %ld rows  %6.2fM rows/s", name, done, total,
            dt > 0 ? (double)done / dt / 1e6 : 0.0);
    fflush(stderr);
}

static double run_baseline(const cfg *c, sl_block *blocks, bool sync, const char *path)
{
    const char *cfs[] = {"data"};
    sl_kv *db;
    sl_kv_batch *batch;
    sl_error err = {0};
    sl_buf key = {0}, val = {0};
    if (sl_kv_open(&db, path, NULL, cfs, 1, &err) != 0 || sl_kv_batch_open(&batch) != 0)
        die("baseline open", &err);
    sl_kv_cf *cf = sl_kv_cf_get(db, "data");
    long total = (long)c->tables * c->batches * c->rows, done = 0;
    const char *name = sync ? "baseline sync=on" : "baseline sync=off";
    double t0 = bench_now();
    for (int i = 0; i < c->batches; i++) {
        for (int t = 0; t < c->tables; t++) {
            bench_meter_stamp(&blocks[t], i, c->rows);
            if (bench_kv_write_block(db, cf, batch, &key, &val, (uint64_t)t + 1, &blocks[t], sync,
                                     &err) != 0)
                die("baseline write", &err);
            done += c->rows;
        }
        progress(name, done, total, t0);
    }
    double dt = bench_now() - t0;
    fprintf(stderr, "\n");
    sl_buf_fini(&key);
    sl_buf_fini(&val);
    sl_kv_batch_close(batch);
    sl_kv_close(db);
    return (double)total / dt;
}

static double run_vstore(const cfg *c, sl_block *blocks, bool sync, const char *path)
{
    sl_vstore *vs;
    sl_error err = {0};
    if (sl_vstore_open(&vs, path, NULL, &err) != 0)
        die("vstore open", &err);
    for (int t = 0; t < c->tables; t++) {
        char name[32];
        snprintf(name, sizeof(name), "d%d", t + 1);
        sl_vs_table_def d = {.uid = (uint64_t)t + 1,
                             .name = name,
                             .kind = SL_VS_TABLE_NORMAL,
                             .precision = SL_PREC_MS,
                             .ncols = 4,
                             .cols = METER};
        if (sl_vstore_put_table(vs, &d, false, &err) != 0)
            die("put table", &err);
    }
    long total = (long)c->tables * c->batches * c->rows, done = 0;
    const char *name = sync ? "vstore sync=on" : "vstore sync=off";
    double t0 = bench_now();
    for (int i = 0; i < c->batches; i++) {
        for (int t = 0; t < c->tables; t++) {
            bench_meter_stamp(&blocks[t], i, c->rows);
            sl_vs_write_item it = {(uint64_t)t + 1, &blocks[t]};
            if (sl_vstore_write(vs, &it, 1, sync, NULL, &err) != 0)
                die("vstore write", &err);
            done += c->rows;
        }
        progress(name, done, total, t0);
    }
    double dt = bench_now() - t0;
    fprintf(stderr, "\n");
    sl_vstore_close(vs);
    return (double)total / dt;
}

static double scan_vstore(const cfg *c, const char *path, long *rows)
{
    sl_vstore *vs;
    sl_error err = {0};
    if (sl_vstore_open(&vs, path, NULL, &err) != 0)
        die("vstore open", &err);
    static const int proj[] = {0, 1, 2, 3};
    sl_block out;
    sl_block_init(&out);
    double sum = 0, t0 = bench_now();
    *rows = 0;
    for (int t = 0; t < c->tables; t++) {
        sl_vs_scan *s;
        if (sl_vstore_scan_open(vs, NULL, (uint64_t)t + 1, proj, 4, INT64_MIN, INT64_MAX, &s,
                                &err) != 0)
            die("scan open", &err);
        for (;;) {
            if (sl_vstore_scan_next(s, &out, &err) != 0)
                die("scan", &err);
            if (out.nrows == 0)
                break;
            const float *cur = out.cols[1].data;
            for (uint32_t r = 0; r < out.nrows; r++)
                sum += cur[r]; /* touch the data, as a consumer would */
            *rows += out.nrows;
        }
        sl_vstore_scan_close(s);
    }
    double dt = bench_now() - t0;
    if (sum < 0)
        printf("impossible\n");
    sl_block_fini(&out);
    sl_vstore_close(vs);
    return (double)*rows / dt;
}

static double scan_baseline(const char *path, long *rows)
{
    const char *cfs[] = {"data"};
    sl_kv *db;
    sl_kv_iter *it;
    sl_error err = {0};
    if (sl_kv_open(&db, path, NULL, cfs, 1, &err) != 0 ||
        sl_kv_iter_open(&it, db, sl_kv_cf_get(db, "data"), NULL, &err) != 0)
        die("baseline scan open", &err);
    double sum = 0, t0 = bench_now();
    *rows = 0;
    sl_block b;
    sl_block_init(&b);
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        size_t vl;
        const void *v = sl_kv_iter_value(it, &vl);
        if (sl_block_decode(v, vl, &b, &err) != 0)
            die("baseline decode", &err);
        const float *cur = b.cols[1].data;
        for (uint32_t r = 0; r < b.nrows; r++)
            sum += cur[r];
        *rows += b.nrows;
        sl_block_fini(&b);
    }
    double dt = bench_now() - t0;
    if (sum < 0)
        printf("impossible\n");
    sl_kv_iter_close(it);
    sl_kv_close(db);
    return (double)*rows / dt;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    double s[100];
    memcpy(s, v, (size_t)n * sizeof(double));
    qsort(s, (size_t)n, sizeof(double), dbl_cmp);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void usage(void)
{
    fprintf(stderr, "usage: vstore-bench [--tables N] [--batches N] [--rows N] [--repeat N] "
                    "[--dir DIR] [--no-sync]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    cfg c = {.tables = 1000, .batches = 10, .rows = 1000, .repeat = 1};
    bool with_sync = true;
    snprintf(c.dir, sizeof(c.dir), "/tmp/vstore-bench.XXXXXX");
    bool own_dir = true;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tables") && i + 1 < argc)
            c.tables = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batches") && i + 1 < argc)
            c.batches = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rows") && i + 1 < argc)
            c.rows = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            c.repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
            snprintf(c.dir, sizeof(c.dir), "%s", argv[++i]);
            own_dir = false;
        } else if (!strcmp(argv[i], "--no-sync"))
            with_sync = false;
        else
            usage();
    }
    if (c.tables < 1 || c.batches < 1 || c.rows < 1 || c.rows > SL_BLOCK_ROWS_MAX || c.repeat < 1 ||
        c.repeat > 100)
        usage();
    if (own_dir && mkdtemp(c.dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    sl_block *blocks = make_blocks(&c);
    char p[512];
    long total = (long)c.tables * c.batches * c.rows;
    printf("vstore-bench: %d tables x %d batches x %d rows = %ld rows per run, in %s\n", c.tables,
           c.batches, c.rows, total, c.dir);

    /* fig[k][r]: figure k of repetition r */
    enum { BASE_OFF, VS_OFF, BASE_ON, VS_ON, SCAN_BASE, SCAN_VS, NFIG };
    double fig[NFIG][100] = {{0}};
    long vrows = 0, brows = 0;
    for (int r = 0; r < c.repeat; r++) {
        snprintf(p, sizeof(p), "%s/base-off", c.dir);
        bench_rm_rf(p);
        fig[BASE_OFF][r] = run_baseline(&c, blocks, false, p);
        snprintf(p, sizeof(p), "%s/vs-off", c.dir);
        bench_rm_rf(p);
        fig[VS_OFF][r] = run_vstore(&c, blocks, false, p);
        if (with_sync) {
            snprintf(p, sizeof(p), "%s/base-on", c.dir);
            bench_rm_rf(p);
            fig[BASE_ON][r] = run_baseline(&c, blocks, true, p);
            snprintf(p, sizeof(p), "%s/vs-on", c.dir);
            bench_rm_rf(p);
            fig[VS_ON][r] = run_vstore(&c, blocks, true, p);
        }
        snprintf(p, sizeof(p), "%s/base-off", c.dir);
        fig[SCAN_BASE][r] = scan_baseline(p, &brows);
        snprintf(p, sizeof(p), "%s/vs-off", c.dir);
        fig[SCAN_VS][r] = scan_vstore(&c, p, &vrows);
    }
    double m[NFIG];
    for (int k = 0; k < NFIG; k++)
        m[k] = median(fig[k], c.repeat);
    if (c.repeat > 1)
        printf("medians of %d alternating runs\n", c.repeat);
    printf("write  baseline sync=off  %8.3fM rows/s\n", m[BASE_OFF] / 1e6);
    printf("write  vstore   sync=off  %8.3fM rows/s  (%.0f%% of baseline)\n", m[VS_OFF] / 1e6,
           100.0 * m[VS_OFF] / m[BASE_OFF]);
    if (with_sync) {
        printf("write  baseline sync=on   %8.3fM rows/s\n", m[BASE_ON] / 1e6);
        printf("write  vstore   sync=on   %8.3fM rows/s  (%.0f%% of baseline)\n", m[VS_ON] / 1e6,
               100.0 * m[VS_ON] / m[BASE_ON]);
    }
    printf("scan   baseline           %8.3fM rows/s  (%ld rows)\n", m[SCAN_BASE] / 1e6, brows);
    printf("scan   vstore             %8.3fM rows/s  (%ld rows, all 4 columns)\n", m[SCAN_VS] / 1e6,
           vrows);
    for (int t = 0; t < c.tables; t++)
        sl_block_fini(&blocks[t]);
    free(blocks);
    if (own_dir)
        bench_rm_rf(c.dir);
    return vrows == total && brows == total ? 0 : 1;
}
