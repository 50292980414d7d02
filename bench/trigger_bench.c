/*
 * trigger_bench.c - `sluice-bench trigger`: rows/s through the trigger engine
 * (snode/trigger) for INTERVAL(1m) SLIDING(1m) or STATE_WINDOW(v) over many groups.
 *
 *   sluice-bench trigger [--kind interval|state] [--groups N] [--rows N] [--block N]
 *                        [--hot N] [--history SEC] [--idle N] [--dir PATH]
 *
 * --kind state: STATE_WINDOW(v) where v of group g is g*3 + (row/60)%3 (every group has
 * its own state values, which the engine keeps in the group state, so a million idle
 * groups mean a million distinct state values).
 *
 * Generates --rows rows spread over --groups groups (one row per second per group with a
 * sub-second jitter, in order), fed as blocks of --block rows of one group, groups in
 * round-robin order, and runs them through three contenders in the same process:
 *   1. a tight C loop computing only the window boundaries (the speed limit),
 *   2. the engine with in-memory state,
 *   3. the engine with RocksDB-backed state (common/kv) and a hot set of --hot groups, so
 *      every block of a group that is not hot reloads and another group spills.
 * It prints rows/s, windows closed (all three must agree), and memory per group.
 */
#define _GNU_SOURCE /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "common/sql/parser.h"
#include "snode/trigger/trigger.h"

typedef struct tb_opts {
    int groups;
    long long rows;
    int block;
    int hot;
    int history_sec;
    long long idle;
    const char *dir;
    bool state; /* --kind state */
} tb_opts;

static const int64_t T0 = 1735689600000LL; /* 2025-01-01 00:00:00 UTC, ms */

static inline int64_t row_ts(int g, long long i)
{
    return T0 + i * 1000 + (int64_t)(((uint64_t)g * 7919u + (uint64_t)i * 104729u) % 500u);
}

static inline int32_t row_v(int g, long long i)
{
    return (int32_t)((int64_t)g * 3 + (i / 60) % 3);
}

/* Resident set size in bytes (Linux /proc/self/statm), 0 when unknown. */
static long long rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long long size = 0, res = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%lld %lld", &size, &res) != 2)
        res = 0;
    fclose(f);
    return res * 4096;
}

static int count_emit(void *ud, const sl_trig_event *ev)
{
    if (ev->type == SL_TRIG_EV_WINDOW_CLOSE)
        (*(uint64_t *)ud)++;
    return 0;
}

/* The speed limit: per row, its window start, and a close when it changes. */
static uint64_t tight_loop(const tb_opts *o, long long per_group, double *secs)
{
    int64_t *cur = malloc(sizeof(int64_t) * (size_t)o->groups);
    uint64_t *cnt = calloc((size_t)o->groups, sizeof *cnt);
    for (int g = 0; g < o->groups; g++)
        cur[g] = INT64_MIN;
    uint64_t closes = 0, sum = 0;
    const int64_t w = 60000;
    double t = bench_now();
    if (o->state) {
        /* Per row, a close when the state value changes. */
        for (long long base = 0; base < per_group; base += o->block) {
            long long end = base + o->block < per_group ? base + o->block : per_group;
            for (int g = 0; g < o->groups; g++)
                for (long long i = base; i < end; i++) {
                    int64_t v = row_v(g, i);
                    if (v != cur[g]) {
                        closes += cur[g] != INT64_MIN;
                        cur[g] = v;
                    }
                    sum += (uint64_t)row_ts(g, i);
                }
        }
        *secs = bench_now() - t;
        free(cur);
        free(cnt);
        return closes + (sum & 0);
    }
    for (long long base = 0; base < per_group; base += o->block) {
        long long end = base + o->block < per_group ? base + o->block : per_group;
        for (int g = 0; g < o->groups; g++) {
            for (long long i = base; i < end; i++) {
                int64_t ts = row_ts(g, i);
                int64_t st = sl_floordiv(ts, w) * w;
                if (st != cur[g]) {
                    if (cur[g] != INT64_MIN) {
                        /* windows between (empty ones) close too */
                        closes += (uint64_t)((st - cur[g]) / w);
                        sum += cnt[g];
                    }
                    cur[g] = st;
                    cnt[g] = 0;
                }
                cnt[g]++;
            }
        }
    }
    *secs = bench_now() - t;
    free(cur);
    free(cnt);
    return closes + (sum & 0); /* sum keeps the counting loop alive */
}

static int run_engine(const tb_opts *o, long long per_group, sl_kv *kv, sl_kv_cf *cf,
                      uint64_t *closes, double *secs, sl_trig_stats *st, long long *rss_delta)
{
    long long rss0 = rss_bytes();
    const char *sql = o->state
                          ? "CREATE STREAM s STATE_WINDOW(v) FROM meters PARTITION BY tbname"
                          : "CREATE STREAM s INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY "
                            "tbname";
    sl_parse_result *pr = NULL;
    sl_error err;
    sl_error_clear(&err);
    if (sl_parse(sql, strlen(sql), &pr, &err) != 0) {
        fprintf(stderr, "parse: %s\n", err.msg);
        return 1;
    }
    static const sl_field cols[] = {{.name = "ts", .type = SL_T_TIMESTAMP},
                                   {.name = "v", .type = SL_T_INT}};
    sl_table_meta meta = {SL_TABLE_SUPER, "db", "meters", SL_PREC_MS, 2, cols, 0, NULL};
    sl_trig_def_opts dopts = {.stream_id = 1, .table = &meta, .precision = SL_PREC_MS};
    sl_trig_def *def = NULL;
    sl_trig *t = NULL;
    if (sl_trig_def_build(&pr->stmts[0]->u.create_stream, &dopts, &def, &err) != 0) {
        fprintf(stderr, "build: %s\n", err.msg);
        return 1;
    }
    sl_trig_opts topts = {.kv = kv, .cf = cf, .max_hot_groups = (uint32_t)o->hot,
                          .history = (int64_t)o->history_sec * 1000};
    if (sl_trig_open(&t, def, &topts, &err) != 0) {
        fprintf(stderr, "open: %s\n", err.msg);
        return 1;
    }
    sl_block b;
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
    sl_column_reserve(&b.cols[0], (uint32_t)o->block, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    sl_column_reserve(&b.cols[1], (uint32_t)o->block, 0);
    sl_trig_sink sink = {.emit = count_emit, .ud = closes};
    long long done = 0, total = per_group * o->groups, next_report = total / 10;
    double t0 = bench_now();
    int rc = 0;
    for (long long base = 0; base < per_group && rc == 0; base += o->block) {
        long long end = base + o->block < per_group ? base + o->block : per_group;
        uint32_t n = (uint32_t)(end - base);
        for (int g = 0; g < o->groups && rc == 0; g++) {
            int64_t *ts = b.cols[0].data;
            int32_t *v = b.cols[1].data;
            for (uint32_t i = 0; i < n; i++) {
                ts[i] = row_ts(g, base + i);
                v[i] = row_v(g, base + i);
            }
            b.cols[0].nrows = n;
            b.cols[1].nrows = n;
            b.nrows = n;
            sl_trig_input in = {.group_id = (uint64_t)g + 1, .rows = &b};
            rc = sl_trig_feed(t, &in, &sink, &err);
            done += n;
        }
        if (done >= next_report) {
            fprintf(stderr, "  %s: %lld/%lld rows (%.0f rows/s)\n",
                    kv ? (o->block == 1 ? "idle groups" : "rocksdb") : "memory", done, total,
                    (double)done / (bench_now() - t0));
            next_report += total / 10;
        }
    }
    *secs = bench_now() - t0;
    if (rc != 0)
        fprintf(stderr, "feed: %s\n", err.msg);
    if (rc == 0 && kv && (rc = sl_trig_flush(t, &err)) != 0)
        fprintf(stderr, "flush: %s\n", err.msg);
    sl_trig_get_stats(t, st);
    *rss_delta = rss_bytes() - rss0;
    sl_block_fini(&b);
    sl_trig_close(t);
    sl_trig_def_free(def);
    sl_parse_result_free(pr);
    return rc != 0;
}

int cmd_trigger(int argc, char **argv)
{
    tb_opts o = {.groups = 10000, .rows = 10000000, .block = 100, .hot = 1000,
                 .history_sec = 120, .idle = 1000000, .dir = NULL};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "trigger: %s needs a value\n", a);
            return 2;
        }
        if (strcmp(a, "--groups") == 0)
            o.groups = atoi(v);
        else if (strcmp(a, "--rows") == 0)
            o.rows = atoll(v);
        else if (strcmp(a, "--block") == 0)
            o.block = atoi(v);
        else if (strcmp(a, "--hot") == 0)
            o.hot = atoi(v);
        else if (strcmp(a, "--history") == 0)
            o.history_sec = atoi(v);
        else if (strcmp(a, "--idle") == 0)
            o.idle = atoll(v);
        else if (strcmp(a, "--dir") == 0)
            o.dir = v;
        else if (strcmp(a, "--kind") == 0 && (strcmp(v, "state") == 0 || strcmp(v, "interval") == 0))
            o.state = strcmp(v, "state") == 0;
        else {
            fprintf(stderr, "trigger: unknown option %s\n", a);
            return 2;
        }
        i++;
    }
    if (o.groups < 1 || o.rows < o.groups || o.block < 1 || o.block > SL_BLOCK_ROWS_MAX ||
        o.hot < 1 || o.history_sec < 1) {
        fprintf(stderr, "trigger: bad options\n");
        return 2;
    }
    long long per_group = o.rows / o.groups;
    long long total = per_group * o.groups;
    printf("trigger: %s, %d groups x %lld rows = %lld rows, blocks of %d "
           "rows, history %ds\n",
           o.state ? "STATE_WINDOW(v)" : "INTERVAL(1m) SLIDING(1m)", o.groups, per_group, total,
           o.block, o.history_sec);

    double tl_s;
    uint64_t tl_closes = tight_loop(&o, per_group, &tl_s);

    uint64_t mem_closes = 0;
    double mem_s;
    sl_trig_stats mem_st;
    long long mem_rss = 0, kv_rss = 0, idle_rss = 0;
    if (run_engine(&o, per_group, NULL, NULL, &mem_closes, &mem_s, &mem_st, &mem_rss) != 0)
        return 1;

    char tmpl[] = "/tmp/sluice-trigger-bench-XXXXXX";
    const char *dir = o.dir;
    if (!dir) {
        dir = mkdtemp(tmpl);
        if (!dir) {
            perror("mkdtemp");
            return 1;
        }
    }
    char path[512];
    snprintf(path, sizeof path, "%s/state", dir);
    sl_kv *db = NULL;
    sl_error err;
    sl_error_clear(&err);
    const char *cfs[] = {"trigger"};
    if (sl_kv_open(&db, path, NULL, cfs, 1, &err) != 0) {
        fprintf(stderr, "kv open: %s\n", err.msg);
        return 1;
    }
    uint64_t kv_closes = 0;
    double kv_s;
    sl_trig_stats kv_st;
    int rc = run_engine(&o, per_group, db, sl_kv_cf_get(db, "trigger"), &kv_closes, &kv_s, &kv_st,
                        &kv_rss);
    /* A million idle groups: one row each, then they sit spilled in RocksDB. */
    sl_trig_stats idle_st = {0};
    double idle_s = 0;
    uint64_t idle_closes = 0;
    if (rc == 0 && o.idle > 0) {
        tb_opts io = o;
        io.groups = (int)o.idle;
        io.block = 1;
        rc = run_engine(&io, 1, db, sl_kv_cf_get(db, "trigger"), &idle_closes, &idle_s, &idle_st,
                        &idle_rss);
    }
    sl_kv_close(db);
    if (!o.dir)
        bench_rm_rf(dir);
    if (rc != 0)
        return 1;

    printf("%-44s %14s %10s %12s\n", "contender", "rows/s", "seconds", "closes");
    printf("%-44s %14.0f %10.3f %12llu\n", "tight loop (window boundaries only)", total / tl_s,
           tl_s, (unsigned long long)tl_closes);
    printf("%-44s %14.0f %10.3f %12llu\n", "engine, in-memory state", total / mem_s, mem_s,
           (unsigned long long)mem_closes);
    char name[64];
    snprintf(name, sizeof name, "engine, RocksDB state (hot set %d)", o.hot);
    printf("%-44s %14.0f %10.3f %12llu\n", name, total / kv_s, kv_s,
           (unsigned long long)kv_closes);
    printf("in-memory: %.0f bytes/group resident (%llu groups)\n",
           (double)mem_st.mem_bytes / (double)mem_st.groups, (unsigned long long)mem_st.groups);
    printf("rocksdb:   %.0f bytes/group resident with %llu hot; %llu spills, %llu loads\n",
           (double)kv_st.mem_bytes / (double)kv_st.groups, (unsigned long long)kv_st.hot_groups,
           (unsigned long long)kv_st.spills, (unsigned long long)kv_st.loads);
    printf("directory: %.0f bytes/group (what an idle, spilled group costs in RAM)\n",
           (double)kv_st.dir_bytes / (double)kv_st.groups);
    if (o.idle > 0)
        printf("idle: %llu groups fed one row each in %.2fs (RocksDB, hot %d): %.0f bytes/group "
               "resident, %.0f of them directory\n",
               (unsigned long long)idle_st.groups, idle_s, o.hot,
               (double)idle_st.mem_bytes / (double)idle_st.groups,
               (double)idle_st.dir_bytes / (double)idle_st.groups);
    if (o.idle > 0)
        printf("idle: process RSS grew by %.0f bytes/group while the idle groups were fed "
               "(engine, definition and RocksDB memtables included)\n",
               (double)idle_rss / (double)o.idle);
    bool agree = tl_closes == mem_closes && mem_closes == kv_closes;
    printf("window closes %s\n", agree ? "agree" : "DIFFER");
    return agree ? 0 : 1;
}
