/*
 * failover_bench.c - `sluice-bench failover`: how long a stream cluster takes to recover
 * when an snode is killed with SIGKILL under a continuous insert load, and whether the
 * output stays exact across the kills.
 *
 * It starts its own cluster (bench_cluster.h: sluice-mnode with an explicit node timeout,
 * 2 sluice-vnode, 3 sluice-snode with a short heartbeat), creates T child tables and 10
 * streams (INTERVAL with and without SLIDING overlap and LOW_LATENCY_CALC, STATE_WINDOW,
 * COUNT_WINDOW, SESSION, EVENT_WINDOW; all PARTITION BY tbname, each into its own output
 * table) and keeps inserting time-ordered rows into every table at a steady pace from
 * loader threads. Then, K times: the snode owning the most (stream, slot) pairs is killed
 * and the bench polls the mnode and the output tables to time
 *
 *   detection  - the mnode lists the snode as dead (ins_snodes),
 *   recovery   - every (stream, slot range) of ins_stream_tasks is running on an alive snode
 *                at an epoch newer than the one before the kill, and every alive snode acts
 *                on that epoch,
 *   catch-up   - the output tables hold exactly the windows that the rows inserted up to the
 *                recovery close (worked out here from the generated data, not read from
 *                the engine),
 *
 * each as seconds from just before the kill. The killed snode is then started again as
 * itself, and the bench waits until it owns slots again, its tasks are set up and the
 * outputs have caught up once more (rejoin) before the next kill. At the end the load
 * stops and every output table is compared window by window, per child table, with the
 * windows the whole generated data closes: a missing, extra or doubled window or a wrong
 * row count fails the run (exit 1), naming it. The cluster's folder (data, logs) is kept
 * on any failure.
 *
 * Every row is a pure function of its index, identical in time, state and phase across the
 * child tables (only `current` differs), so the windows of all tables coincide and one
 * bound per stream ("windows starting before W") selects exactly the windows closed by
 * the first N rows of every table.
 *
 * Progress goes to stderr, the report to stdout.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_cluster.h"
#include "bench_util.h"
#include "client/lib/sluice.h"

/* ------------------------------------------------------------------ the generated data */

#define T0_MS 1735689600000LL /* 2025-01-01 00:00:00 UTC */
#define STEP_MS 100           /* between rows of a run */
#define RUN_ROWS 300          /* rows of one run (a session) */
#define RUN_GAP_MS 6000       /* extra gap between runs: > SESSION 5s */
#define STATE_ROWS 50         /* voltage changes every STATE_ROWS rows */
#define EV_START 340.0        /* EVENT_WINDOW(START WITH phase >= 340 END WITH phase < 20) */
#define EV_END 20.0
#define ROUND_S 0.5           /* the loaders insert one batch per table every ROUND_S */
#define NSNODES 3
#define CATCHUP_LIMIT_S 30.0  /* outputs still short this long after recovery: recorded */

/* Row i of every child table (t only varies `current`). */
static int64_t gen_ts(int64_t i)
{
    return T0_MS + i * STEP_MS + (i / RUN_ROWS) * RUN_GAP_MS;
}
static int32_t gen_voltage(int64_t i)
{
    return 220 + 10 * (int32_t)((i / STATE_ROWS) % 2);
}
static float gen_current(int t, int64_t i)
{
    return 10.0f + (float)((t * 31 + i * 17) % 1000) / 100.0f;
}
static float gen_phase(int64_t i)
{
    return (float)(((i / 5) * 7) % 360); /* whole numbers: exact in FLOAT */
}

/* ------------------------------------------------------------------ the streams */

enum { K_INTERVAL, K_STATE, K_COUNT, K_SESSION, K_EVENT };

typedef struct fo_stream {
    const char *name;
    const char *out;      /* output (super) table */
    int kind;
    int64_t a, b;         /* INTERVAL: length, sliding (ms); COUNT: rows; SESSION: gap (ms) */
    const char *trigger;  /* text up to PARTITION BY */
    const char *opts;     /* STREAM_OPTIONS(...) or "" */
    const char *subtable; /* OUTPUT_SUBTABLE(...) or "" */
} fo_stream;

#define CALC "SELECT _twstart AS ws, COUNT(*) AS cnt, MAX(voltage) AS max_voltage FROM %%trows"

static const fo_stream STREAMS[] = {
    {.name = "f_int", .out = "fo_int", .kind = K_INTERVAL, .a = 10000, .b = 10000,
     .trigger = "INTERVAL(10s) SLIDING(10s)", .opts = "", .subtable = ""},
    {.name = "f_int_ll", .out = "fo_int_ll", .kind = K_INTERVAL, .a = 10000, .b = 10000,
     .trigger = "INTERVAL(10s) SLIDING(10s)", .opts = "STREAM_OPTIONS(LOW_LATENCY_CALC)",
     .subtable = ""},
    {.name = "f_slide", .out = "fo_slide", .kind = K_INTERVAL, .a = 10000, .b = 5000,
     .trigger = "INTERVAL(10s) SLIDING(5s)", .opts = "", .subtable = ""},
    {.name = "f_int4", .out = "fo_int4", .kind = K_INTERVAL, .a = 4000, .b = 4000,
     .trigger = "INTERVAL(4s) SLIDING(4s)", .opts = "",
     .subtable = "OUTPUT_SUBTABLE(concat('i4_', %%1))"},
    {.name = "f_state", .out = "fo_state", .kind = K_STATE, .trigger = "STATE_WINDOW(voltage)",
     .opts = "", .subtable = ""},
    {.name = "f_state_ll", .out = "fo_state_ll", .kind = K_STATE,
     .trigger = "STATE_WINDOW(voltage)", .opts = "STREAM_OPTIONS(LOW_LATENCY_CALC)",
     .subtable = ""},
    {.name = "f_count", .out = "fo_count", .kind = K_COUNT, .a = 100,
     .trigger = "COUNT_WINDOW(100)", .opts = "", .subtable = ""},
    {.name = "f_count37", .out = "fo_count37", .kind = K_COUNT, .a = 37,
     .trigger = "COUNT_WINDOW(37)", .opts = "", .subtable = ""},
    {.name = "f_session", .out = "fo_session", .kind = K_SESSION, .a = 5000,
     .trigger = "SESSION(ts, 5s)", .opts = "", .subtable = ""},
    {.name = "f_event", .out = "fo_event", .kind = K_EVENT,
     .trigger = "EVENT_WINDOW(START WITH phase >= 340 END WITH phase < 20)", .opts = "",
     .subtable = ""},
};
#define NSTREAMS ((int)(sizeof(STREAMS) / sizeof(STREAMS[0])))

/* One window of the generated data: its start (_twstart), its rows, and the index of the
 * row whose arrival closes it (FO_OPEN: none of the rows simulated). */
#define FO_OPEN INT64_MAX
typedef struct fo_win {
    int64_t ws, cnt, close;
} fo_win;

typedef struct fo_wins {
    fo_win *v;
    size_t n, cap;
} fo_wins;

static void fail(const char *f, ...);

static fo_win *wins_push(fo_wins *w, int64_t ws)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 256;
        fo_win *v = realloc(w->v, cap * sizeof(*v));
        if (v == NULL)
            fail("out of memory");
        w->v = v;
        w->cap = cap;
    }
    w->v[w->n] = (fo_win){.ws = ws, .close = FO_OPEN};
    return &w->v[w->n++];
}

/*
 * The windows stream s makes of rows [0, n) of one table, in window start order, by the
 * rules of spec/semantics.md (1: watermark = max ts, rows in order here; 3: bounds;
 * 4: state; 5: event; 6: session; 7: count; an INTERVAL window closes when the watermark
 * reaches its end and yields no row when empty). Windows close in start order, so the
 * windows closed by the first N rows are a prefix of the list.
 */
static void simulate(const fo_stream *s, int64_t n, fo_wins *w)
{
    w->n = 0;
    size_t open = 0; /* first window not yet closed */
    for (int64_t i = 0; i < n; i++) {
        int64_t ts = gen_ts(i);
        switch (s->kind) {
        case K_INTERVAL: {
            int64_t len = s->a, step = s->b;
            while (open < w->n && w->v[open].ws + len <= ts)
                w->v[open++].close = i;
            /* Windows holding ts: starts k * step in (ts - len, ts]. */
            int64_t hi = ts / step * step, lo = hi;
            while (lo - step > ts - len)
                lo -= step;
            for (int64_t ws = lo; ws <= hi; ws += step) {
                int64_t last = w->n > 0 ? w->v[w->n - 1].ws : INT64_MIN;
                if (ws > last)
                    wins_push(w, ws);
                /* Every window from lo to the newest one holds an earlier row too, so they
                 * are the list's tail, one per step. */
                w->v[w->n - 1 - (size_t)((w->v[w->n - 1].ws - ws) / step)].cnt++;
            }
            break;
        }
        case K_STATE:
            if (i == 0 || gen_voltage(i) != gen_voltage(i - 1)) {
                if (i > 0)
                    w->v[w->n - 1].close = i;
                wins_push(w, ts);
            }
            w->v[w->n - 1].cnt++;
            break;
        case K_COUNT:
            if (i % s->a == 0)
                wins_push(w, ts);
            if (++w->v[w->n - 1].cnt == s->a)
                w->v[w->n - 1].close = i;
            break;
        case K_SESSION:
            if (i == 0 || ts - gen_ts(i - 1) > s->a) {
                if (i > 0)
                    w->v[w->n - 1].close = i;
                wins_push(w, ts);
            }
            w->v[w->n - 1].cnt++;
            break;
        default: { /* K_EVENT */
            double ph = gen_phase(i);
            bool is_open = w->n > 0 && w->v[w->n - 1].close == FO_OPEN;
            if (!is_open && ph >= EV_START) {
                wins_push(w, ts);
                is_open = true;
            }
            if (is_open) {
                w->v[w->n - 1].cnt++;
                if (ph < EV_END)
                    w->v[w->n - 1].close = i;
            }
            break;
        }
        }
    }
}

/* What the first n rows of every table must have produced in one stream, per table. */
typedef struct fo_expect {
    int64_t windows; /* closed windows */
    int64_t rows;    /* sum of their cnt */
    int64_t bound;   /* W: start of the first window still open (or of the next row); every
                        closed window starts before it, every later window at or after it */
} fo_expect;

static fo_expect expect_of(const fo_stream *s, int64_t n, fo_wins *scratch)
{
    simulate(s, n, scratch);
    fo_expect e = {.bound = gen_ts(n)};
    for (size_t k = 0; k < scratch->n; k++) {
        if (scratch->v[k].close == FO_OPEN) {
            if (scratch->v[k].ws < e.bound)
                e.bound = scratch->v[k].ws;
            continue;
        }
        e.windows++;
        e.rows += scratch->v[k].cnt;
    }
    return e;
}

/* ------------------------------------------------------------------ configuration */

typedef struct fo_cfg {
    int kills;
    int tables;
    int node_timeout_ms;
    int heartbeat_ms;
    int rate;    /* rows per second per table */
    int threads; /* loader threads */
    double settle_s; /* load before each kill (and before the final check) */
    bool keep;
} fo_cfg;

typedef struct fo_loader fo_loader;

typedef struct fo_run {
    fo_cfg cfg;
    bench_cluster *cl;
    int port;
    int batch;              /* rows per table per round */
    fo_loader *loaders;
    atomic_llong target;    /* rounds every loader completes before it stops */
    atomic_int failed;
    atomic_llong late;      /* rounds started more than one round behind the schedule */
    double t_load;          /* bench_now() of round 0 */
    fo_wins scratch;
    /* Differences the outputs were found to keep (record_anomaly): got - want per stream,
     * in windows and in sum(cnt); later checks expect them, the final comparison lists
     * them again and fails the run. */
    int64_t adj_windows[NSTREAMS], adj_rows[NSTREAMS];
    int anomalies;          /* times the outputs were found to differ */
    int64_t polls;          /* status polls of the measurement loops */
    double poll_time;       /* and their total time */
} fo_run;

struct fo_loader {
    fo_run *run;
    int id;
    pthread_t th;
    atomic_llong rounds;    /* completed: each of its tables holds rounds * batch rows */
    char err[640];
};

static fo_run *g_run; /* for fail(): keep the cluster's folder */

static void fail(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    fprintf(stderr, "\nsluice-bench failover: FAILED: ");
    vfprintf(stderr, f, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    if (g_run != NULL && g_run->cl != NULL) {
        bench_cluster_keep(g_run->cl);
        atomic_store(&g_run->failed, 1);
    }
    printf("result: FAILED (see stderr)\n");
    exit(1); /* bench_cluster's atexit hook stops the cluster */
}

static void check_alive(fo_run *r)
{
    char msg[8192];
    if (bench_cluster_check(r->cl, msg, sizeof(msg)) != 0)
        fail("a daemon died: %s", msg);
}

static sl_conn *connect_or_fail(const fo_run *r)
{
    sl_conn *c;
    sl_error err;
    sl_error_clear(&err);
    if (sl_connect("127.0.0.1", r->port, &c, &err) != 0)
        fail("connect: %s", err.msg);
    return c;
}

/* Runs sql; fails the run on an error. *res holds the rows (free with sl_result_fini). */
static void query_or_fail(sl_conn *c, const char *sql, sl_result *res)
{
    sl_error err;
    sl_error_clear(&err);
    if (sl_query(c, sql, res, &err) != 0)
        fail("%s\n  -> %s", sql, err.msg[0] ? err.msg : sl_strerror(err.code));
}

static void sql_or_fail(sl_conn *c, const char *sql)
{
    sl_result res;
    query_or_fail(c, sql, &res);
    sl_result_fini(&res);
}

static bool str_is(const sl_result *res, uint32_t row, int col, const char *s)
{
    if (sl_res_is_null(res, row, col))
        return false;
    uint32_t len;
    const char *v = sl_res_str(res, row, col, &len);
    return strlen(s) == len && memcmp(s, v, len) == 0;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: sluice-bench failover [--kills N] [--tables N] [--node-timeout-ms N]\n"
            "                             [--heartbeat-ms N] [--rate N] [--threads N]\n"
            "                             [--settle-s S] [--keep]\n"
            "  defaults: 10 kills, 200 tables, node timeout 3000 ms (mnode), heartbeat 200 ms\n"
            "  (snodes), 10 rows per second per table from 2 loader threads, 5 s of load before\n"
            "  each kill; --kills 0 only loads and checks (a run without failures to compare\n"
            "  with); --keep leaves the cluster's folder (data, logs) behind (it is always kept\n"
            "  on a failure)\n");
    exit(2);
}

static void parse(fo_cfg *c, int argc, char **argv)
{
    *c = (fo_cfg){.kills = 10, .tables = 200, .node_timeout_ms = 3000, .heartbeat_ms = 200,
                  .rate = 10, .threads = 2, .settle_s = 5};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--kills") && v)
            c->kills = atoi(argv[++i]);
        else if (!strcmp(a, "--tables") && v)
            c->tables = atoi(argv[++i]);
        else if (!strcmp(a, "--node-timeout-ms") && v)
            c->node_timeout_ms = atoi(argv[++i]);
        else if (!strcmp(a, "--heartbeat-ms") && v)
            c->heartbeat_ms = atoi(argv[++i]);
        else if (!strcmp(a, "--rate") && v)
            c->rate = atoi(argv[++i]);
        else if (!strcmp(a, "--threads") && v)
            c->threads = atoi(argv[++i]);
        else if (!strcmp(a, "--settle-s") && v)
            c->settle_s = atof(argv[++i]);
        else if (!strcmp(a, "--keep"))
            c->keep = true;
        else
            usage();
    }
    if (c->kills < 0 || c->settle_s < 0 || c->settle_s > 3600 || c->tables < 1 ||
        c->node_timeout_ms < 100 || c->heartbeat_ms < 10 ||
        c->heartbeat_ms >= c->node_timeout_ms || c->rate < 2 || c->rate > 2000 ||
        c->threads < 1)
        usage();
    if (c->threads > c->tables)
        c->threads = c->tables;
}

/* ------------------------------------------------------------------ the load */

/* Rows [from, from + n) of table t as one block; 0 or SL_ENOMEM. */
static int make_rows(sl_block *b, int t, int64_t from, int n)
{
    sl_block_init(b);
    int rc = bench_meter_columns(b);
    for (int64_t i = from; rc == 0 && i < from + n; i++) {
        if (sl_column_append_i64(&b->cols[0], gen_ts(i)) != 0 ||
            sl_column_append_f64(&b->cols[1], gen_current(t, i)) != 0 ||
            sl_column_append_i64(&b->cols[2], gen_voltage(i)) != 0 ||
            sl_column_append_f64(&b->cols[3], gen_phase(i)) != 0)
            rc = SL_ENOMEM;
    }
    if (rc == 0)
        sl_block_seal(b);
    return rc;
}

/* Round k (k = 0, 1, ...) at t_load + k * ROUND_S inserts rows [k * batch, (k + 1) * batch)
 * into each of the loader's tables (id, id + threads, ...), so every table gets its rows
 * in time order and, once the round is done, holds exactly (k + 1) * batch rows. */
static void *loader_main(void *arg)
{
    fo_loader *l = arg;
    fo_run *r = l->run;
    sl_error err;
    sl_error_clear(&err);
    sl_conn *conn;
    if (sl_connect("127.0.0.1", r->port, &conn, &err) != 0) {
        snprintf(l->err, sizeof(l->err), "connect: %s", err.msg);
        atomic_store(&r->failed, 1);
        return NULL;
    }
    char name[32];
    for (int64_t k = 0; k < atomic_load(&r->target) && !atomic_load(&r->failed); k++) {
        double at = r->t_load + (double)k * ROUND_S, now = bench_now();
        if (now < at)
            usleep((useconds_t)((at - now) * 1e6));
        else if (now > at + ROUND_S)
            atomic_fetch_add(&r->late, 1);
        for (int t = l->id; t < r->cfg.tables && !atomic_load(&r->failed);
             t += r->cfg.threads) {
            sl_block b;
            if (make_rows(&b, t, k * r->batch, r->batch) != 0) {
                snprintf(l->err, sizeof(l->err), "out of memory");
                atomic_store(&r->failed, 1);
                sl_block_fini(&b);
                break;
            }
            snprintf(name, sizeof(name), "d%d", t);
            int rc = sl_insert_block(conn, "bench", name, &b, &err);
            sl_block_fini(&b);
            if (rc != 0) {
                snprintf(l->err, sizeof(l->err), "insert into %s: %s", name,
                         err.msg[0] ? err.msg : sl_strerror(err.code));
                atomic_store(&r->failed, 1);
                break;
            }
        }
        if (!atomic_load(&r->failed))
            atomic_store(&l->rounds, k + 1);
    }
    sl_close(conn);
    return NULL;
}

/* Rows every table holds for sure now: the fewest completed rounds of any loader. */
static int64_t rows_loaded(fo_run *r)
{
    int64_t min = INT64_MAX;
    for (int i = 0; i < r->cfg.threads; i++) {
        int64_t k = atomic_load(&r->loaders[i].rounds);
        if (k < min)
            min = k;
    }
    if (atomic_load(&r->failed)) {
        for (int i = 0; i < r->cfg.threads; i++)
            if (r->loaders[i].err[0])
                fail("loader %d: %s", i, r->loaders[i].err);
        fail("a loader failed");
    }
    return min * r->batch;
}

static void start_load(fo_run *r)
{
    r->loaders = calloc((size_t)r->cfg.threads, sizeof(*r->loaders));
    if (r->loaders == NULL)
        fail("out of memory");
    atomic_store(&r->target, INT64_MAX);
    r->t_load = bench_now();
    for (int i = 0; i < r->cfg.threads; i++) {
        r->loaders[i].run = r;
        r->loaders[i].id = i;
        if (pthread_create(&r->loaders[i].th, NULL, loader_main, &r->loaders[i]) != 0)
            fail("cannot start a loader thread");
    }
}

/* Lets every loader finish the same round and stop; returns the rows each table holds. */
static int64_t stop_load(fo_run *r)
{
    /* A loader with k rounds done is at most in round k, so max + 1 is a round every
     * loader can still reach and none has passed. */
    int64_t max = 0;
    for (int i = 0; i < r->cfg.threads; i++) {
        int64_t k = atomic_load(&r->loaders[i].rounds);
        if (k > max)
            max = k;
    }
    atomic_store(&r->target, max + 1);
    for (int i = 0; i < r->cfg.threads; i++)
        pthread_join(r->loaders[i].th, NULL);
    int64_t n = rows_loaded(r);
    if (n != (max + 1) * r->batch)
        fail("the loaders stopped at %lld rows per table, not %lld", (long long)n,
             (long long)((max + 1) * r->batch));
    return n;
}

/* ------------------------------------------------------------------ cluster state */

typedef struct fo_snode {
    int id;         /* ins_snodes id, -1 when not listed */
    bool alive;
    int64_t epoch;  /* the epoch it acts on */
    int64_t slots;
} fo_snode;

/* The cluster's placement as the mnode reports it. */
typedef struct fo_state {
    fo_snode sn[NSNODES];   /* by bench_cluster index */
    int64_t epoch;          /* current epoch (ins_stream_tasks.epoch) */
    int ntasks;             /* rows of ins_stream_tasks for database bench */
    int not_running;        /* of those: not 'running' */
    int bad_owner;          /* of those: no owner, or one not alive */
    int on[NSNODES];        /* task rows per snode index */
    char why[256];          /* the first task row that is not running, for messages */
} fo_state;

static int snode_index(const fo_state *s, int id)
{
    for (int i = 0; i < NSNODES; i++)
        if (s->sn[i].id == id)
            return i;
    return -1;
}

static void read_state(fo_run *r, sl_conn *c, fo_state *s)
{
    double t0 = bench_now();
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < NSNODES; i++)
        s->sn[i].id = -1;
    s->epoch = -1;
    sl_result res;
    query_or_fail(c, "SELECT id, endpoint, status, epoch, slots FROM information_schema.ins_snodes",
                  &res);
    for (uint32_t row = 0; row < sl_res_nrows(&res); row++)
        for (int i = 0; i < NSNODES; i++)
            if (str_is(&res, row, 1, bench_cluster_snode_addr(r->cl, i))) {
                s->sn[i].id = (int)sl_res_i64(&res, row, 0);
                s->sn[i].alive = str_is(&res, row, 2, "alive");
                s->sn[i].epoch = sl_res_is_null(&res, row, 3) ? -1 : sl_res_i64(&res, row, 3);
                s->sn[i].slots = sl_res_is_null(&res, row, 4) ? 0 : sl_res_i64(&res, row, 4);
            }
    sl_result_fini(&res);
    query_or_fail(c, "SELECT stream_name, slot_start, slot_end, snode_id, epoch, status FROM "
                     "information_schema.ins_stream_tasks WHERE db_name = 'bench'",
                  &res);
    for (uint32_t row = 0; row < sl_res_nrows(&res); row++) {
        s->ntasks++;
        s->epoch = sl_res_i64(&res, row, 4);
        int idx = sl_res_is_null(&res, row, 3) ? -1 : snode_index(s, (int)sl_res_i64(&res, row, 3));
        bool running = str_is(&res, row, 5, "running");
        bool owner_ok = idx >= 0 && s->sn[idx].alive;
        if (idx >= 0)
            s->on[idx]++;
        if (!running)
            s->not_running++;
        if (!owner_ok)
            s->bad_owner++;
        if ((!running || !owner_ok) && s->why[0] == '\0') {
            uint32_t nl, sl = 0;
            const char *name = sl_res_str(&res, row, 0, &nl);
            const char *st = sl_res_is_null(&res, row, 5) ? "" : sl_res_str(&res, row, 5, &sl);
            snprintf(s->why, sizeof(s->why), "%.*s slots %lld-%lld: %.*s on snode %s%s", (int)nl,
                     name, (long long)sl_res_i64(&res, row, 1),
                     (long long)sl_res_i64(&res, row, 2), (int)sl, st,
                     idx >= 0 ? bench_cluster_snode_addr(r->cl, idx) + 6 : "(none or unknown)",
                     owner_ok ? "" : " (not alive)");
        }
    }
    sl_result_fini(&res);
    r->polls++;
    r->poll_time += bench_now() - t0;
}

/* True when every task row runs on an alive snode at the current epoch, which is newer
 * than `after`, and every alive snode acts on that epoch. */
static bool placement_settled(const fo_state *s, int64_t after)
{
    if (s->ntasks == 0 || s->not_running > 0 || s->bad_owner > 0 || s->epoch <= after)
        return false;
    for (int i = 0; i < NSNODES; i++)
        if (s->sn[i].alive && s->sn[i].epoch != s->epoch)
            return false;
    return true;
}

/* Errors the tasks report, printed once each (a note, not a failure: the output check
 * decides). */
static void note_stream_errors(sl_conn *c)
{
    static char seen[16][256];
    static int nseen;
    sl_result res;
    query_or_fail(c, "SELECT stream_name, snode_id, error FROM information_schema.ins_stream_tasks "
                     "WHERE db_name = 'bench'", &res);
    for (uint32_t row = 0; row < sl_res_nrows(&res); row++) {
        if (sl_res_is_null(&res, row, 2))
            continue;
        uint32_t nl, el;
        const char *name = sl_res_str(&res, row, 0, &nl);
        const char *e = sl_res_str(&res, row, 2, &el);
        if (el == 0)
            continue;
        char line[256];
        snprintf(line, sizeof(line), "%.*s: %.*s", (int)nl, name, (int)el, e);
        bool known = false;
        for (int i = 0; i < nseen && !known; i++)
            known = strcmp(seen[i], line) == 0;
        if (known)
            continue;
        if (nseen < 16)
            snprintf(seen[nseen++], sizeof(seen[0]), "%s", line);
        fprintf(stderr, "\n  note: stream %s (snode %lld)\n", line,
                (long long)sl_res_i64(&res, row, 1));
    }
    sl_result_fini(&res);
}

/* ------------------------------------------------------------------ outputs */

/* Per stream: what the first n rows of every table must give, and what the output table
 * holds among the windows starting before the bound. */
typedef struct fo_check {
    int64_t n;
    fo_expect want[NSTREAMS]; /* per table: multiply by tables */
    int64_t got_windows[NSTREAMS], got_rows[NSTREAMS];
} fo_check;

static void check_init(fo_run *r, fo_check *k, int64_t n)
{
    k->n = n;
    for (int s = 0; s < NSTREAMS; s++)
        k->want[s] = expect_of(&STREAMS[s], n, &r->scratch);
}

/* Reads the outputs. Returns 1 when every stream holds exactly the expected windows before
 * its bound (with the differences already recorded), 0 when some still lack windows, -1
 * when one holds more than that. */
static int check_outputs(fo_run *r, sl_conn *c, fo_check *k)
{
    int done = 1;
    for (int s = 0; s < NSTREAMS; s++) {
        char sql[256];
        snprintf(sql, sizeof(sql), "SELECT count(*), sum(cnt) FROM %s WHERE ws < %" PRId64,
                 STREAMS[s].out, k->want[s].bound);
        sl_result res;
        query_or_fail(c, sql, &res);
        k->got_windows[s] = k->got_rows[s] = 0;
        if (sl_res_nrows(&res) > 0) {
            k->got_windows[s] = sl_res_is_null(&res, 0, 0) ? 0 : sl_res_i64(&res, 0, 0);
            k->got_rows[s] = sl_res_is_null(&res, 0, 1) ? 0 : sl_res_i64(&res, 0, 1);
        }
        sl_result_fini(&res);
        int64_t ww = k->want[s].windows * r->cfg.tables + r->adj_windows[s],
                wr = k->want[s].rows * r->cfg.tables + r->adj_rows[s];
        if (k->got_windows[s] > ww || k->got_rows[s] > wr)
            done = -1;
        if (done == 1 && (k->got_windows[s] != ww || k->got_rows[s] != wr))
            done = 0;
    }
    return done;
}

static void print_check(const fo_run *r, const fo_check *k)
{
    printf("  %-11s %14s %14s %14s %14s   (first %lld rows of each of %d tables)\n", "stream",
           "windows want", "windows got", "sum(cnt) want", "sum(cnt) got", (long long)k->n,
           r->cfg.tables);
    for (int s = 0; s < NSTREAMS; s++) {
        int64_t ww = k->want[s].windows * r->cfg.tables, wr = k->want[s].rows * r->cfg.tables;
        printf("  %-11s %14lld %14lld %14lld %14lld%s\n", STREAMS[s].name, (long long)ww,
               (long long)k->got_windows[s], (long long)wr, (long long)k->got_rows[s],
               k->got_windows[s] != ww || k->got_rows[s] != wr ? "  <- MISMATCH" : "");
    }
}

static void fmt_ts(int64_t ms, char *out, size_t n)
{
    time_t sec = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&sec, &tm);
    char b[32];
    strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, n, "%s.%03dZ", b, (int)(ms % 1000));
}

/*
 * Compares every row of every output table (per child table: window start and cnt) with
 * the windows that the first n rows close and that start before the bound, and prints
 * each difference (at most 20 per stream): a missing window, a window written twice, an
 * unexpected window, a wrong cnt. Returns the number of differences.
 */
static long long compare_windows(fo_run *r, sl_conn *c, const fo_check *k)
{
    int T = r->cfg.tables;
    long long bad_total = 0;
    for (int s = 0; s < NSTREAMS; s++) {
        simulate(&STREAMS[s], k->n, &r->scratch);
        size_t nw = 0;
        while (nw < r->scratch.n && r->scratch.v[nw].close != FO_OPEN)
            nw++;
        int *seen = calloc((size_t)T * (nw ? nw : 1), sizeof(int));
        if (seen == NULL)
            fail("out of memory");
        char sql[256];
        snprintf(sql, sizeof(sql), "SELECT tag_tbname, ws, cnt FROM %s WHERE ws < %" PRId64,
                 STREAMS[s].out, k->want[s].bound);
        sl_result res;
        query_or_fail(c, sql, &res);
        int bad = 0;
        char when[40];
        for (uint32_t row = 0; row < sl_res_nrows(&res); row++) {
            uint32_t len;
            const char *tb = sl_res_str(&res, row, 0, &len);
            int t = -1;
            char name[64];
            snprintf(name, sizeof(name), "%.*s", (int)(len < 63 ? len : 63), tb);
            if (sscanf(name, "d%d", &t) != 1 || t < 0 || t >= T)
                t = -1;
            int64_t ws = sl_res_i64(&res, row, 1);
            int64_t cnt = sl_res_is_null(&res, row, 2) ? -1 : sl_res_i64(&res, row, 2);
            size_t lo = 0, hi = nw;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (r->scratch.v[mid].ws < ws)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            fmt_ts(ws, when, sizeof(when));
            if (t < 0 || lo == nw || r->scratch.v[lo].ws != ws) {
                if (bad++ < 20)
                    printf("  %s: %s: unexpected window %s (cnt %lld)\n", STREAMS[s].name, name,
                           when, (long long)cnt);
                continue;
            }
            if (++seen[(size_t)t * nw + lo] == 2 && bad++ < 20)
                printf("  %s: %s: window %s written twice\n", STREAMS[s].name, name, when);
            if (cnt != r->scratch.v[lo].cnt && bad++ < 20)
                printf("  %s: %s: window %s has cnt %lld, the data gives %lld\n",
                       STREAMS[s].name, name, when, (long long)cnt,
                       (long long)r->scratch.v[lo].cnt);
        }
        sl_result_fini(&res);
        for (int t = 0; t < T; t++)
            for (size_t w = 0; w < nw; w++)
                if (seen[(size_t)t * nw + w] == 0) {
                    fmt_ts(r->scratch.v[w].ws, when, sizeof(when));
                    if (bad++ < 20)
                        printf("  %s: d%d: window %s (cnt %lld) missing\n", STREAMS[s].name, t,
                               when, (long long)r->scratch.v[w].cnt);
                }
        if (bad > 20)
            printf("  %s: ... %d differences in all\n", STREAMS[s].name, bad);
        bad_total += bad;
        free(seen);
    }
    return bad_total;
}

/*
 * The outputs differ from the data (more than it allows, or windows missing after the time
 * limit): waits until they stop changing (5 s, at most 30 s), prints the per-stream table
 * and the differences window by window, and takes what is there as the baseline of later
 * checks, so the following kills are still measured; the run fails at the end. The
 * cluster's folder is kept.
 */
static void record_anomaly(fo_run *r, sl_conn *c, fo_check *k, const char *what)
{
    double t0 = bench_now(), still = t0;
    int64_t last = -1;
    for (;;) {
        check_outputs(r, c, k);
        int64_t sum = 0;
        for (int s = 0; s < NSTREAMS; s++)
            sum += k->got_windows[s] * 1000003 + k->got_rows[s];
        double now = bench_now();
        if (sum != last) {
            last = sum;
            still = now;
        }
        if (now - still >= 5 || now - t0 >= 30)
            break;
        check_alive(r);
        usleep(200000);
    }
    printf("  ANOMALY (%s): the outputs differ from the data's windows (cluster folder %s "
           "kept):\n", what, bench_cluster_dir(r->cl));
    print_check(r, k);
    compare_windows(r, c, k);
    for (int s = 0; s < NSTREAMS; s++) {
        r->adj_windows[s] = k->got_windows[s] - k->want[s].windows * r->cfg.tables;
        r->adj_rows[s] = k->got_rows[s] - k->want[s].rows * r->cfg.tables;
    }
    r->anomalies++;
    bench_cluster_keep(r->cl);
}

/* ------------------------------------------------------------------ streams */

static void create_schema(fo_run *r, sl_conn *c)
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
    fprintf(stderr, " (%.1f s)\n", bench_now() - t0);
}

static void create_streams(sl_conn *c)
{
    char sql[1024];
    printf("streams (database bench, each computing: %s):\n", CALC);
    for (int k = 0; k < NSTREAMS; k++) {
        const fo_stream *s = &STREAMS[k];
        snprintf(sql, sizeof(sql),
                 "CREATE STREAM %s %s FROM meters PARTITION BY tbname %s INTO %s %s AS %s",
                 s->name, s->trigger, s->opts, s->out, s->subtable, CALC);
        sql_or_fail(c, sql);
        printf("  %-11s %s FROM meters PARTITION BY tbname %s INTO %s %s\n", s->name, s->trigger,
               s->opts, s->out, s->subtable);
    }
}

/* Log lines "stream bench.NAME running on" of snode i, per stream. */
static void setup_counts(fo_run *r, int i, int *out)
{
    char pat[128];
    for (int k = 0; k < NSTREAMS; k++) {
        snprintf(pat, sizeof(pat), "stream bench.%s running on", STREAMS[k].name);
        out[k] = bench_cluster_snode_log_count(r->cl, i, pat);
    }
}

/* Streams of which the snode with ins_snodes id `id` owns a slot. */
static void streams_owned(sl_conn *c, int id, bool *own)
{
    memset(own, 0, sizeof(bool) * NSTREAMS);
    sl_result res;
    query_or_fail(c, "SELECT stream_name, snode_id FROM information_schema.ins_stream_tasks "
                     "WHERE db_name = 'bench'", &res);
    for (uint32_t row = 0; row < sl_res_nrows(&res); row++) {
        if (sl_res_is_null(&res, row, 1) || sl_res_i64(&res, row, 1) != id)
            continue;
        for (int k = 0; k < NSTREAMS; k++)
            if (str_is(&res, row, 0, STREAMS[k].name))
                own[k] = true;
    }
    sl_result_fini(&res);
}

/* Waits until the placement covers 3 alive snodes, all running, and every snode that owns
 * a slot of a stream has logged that stream's setup more often than base[i][k] (NULL: at
 * least once). Fails after `limit` seconds. */
static void wait_all_running(fo_run *r, sl_conn *c, int64_t after, int base[][NSTREAMS],
                             double limit, const char *what)
{
    double t0 = bench_now();
    fo_state s;
    char why[320] = "";
    for (;;) {
        check_alive(r);
        read_state(r, c, &s);
        bool ok = placement_settled(&s, after);
        if (!ok)
            snprintf(why, sizeof(why), "epoch %lld: %s", (long long)s.epoch,
                     s.why[0] ? s.why : "not every alive snode acts on it");
        for (int i = 0; ok && i < NSNODES; i++) {
            if (!s.sn[i].alive || s.on[i] == 0) {
                snprintf(why, sizeof(why), "snode %s %s", bench_cluster_snode_addr(r->cl, i) + 6,
                         s.sn[i].alive ? "owns no slot" : "is not alive");
                ok = false;
                break;
            }
            bool own[NSTREAMS];
            int now[NSTREAMS];
            streams_owned(c, s.sn[i].id, own);
            setup_counts(r, i, now);
            for (int k = 0; ok && k < NSTREAMS; k++)
                if (own[k] && now[k] <= (base ? base[i][k] : 0)) {
                    snprintf(why, sizeof(why), "snode %s has not set %s up",
                             bench_cluster_snode_addr(r->cl, i) + 6, STREAMS[k].name);
                    ok = false;
                }
        }
        if (ok)
            return;
        if (bench_now() - t0 > limit)
            fail("%s: not settled after %.0f s: %s (cluster folder %s)", what, limit, why,
                 bench_cluster_dir(r->cl));
        usleep(20000);
    }
}

/* Waits until the outputs hold exactly what the first n rows of every table close (with
 * the differences recorded before). Returns the seconds it took, or -1 when they differ:
 * more than that, or windows still missing after `limit` seconds (then recorded). */
static double wait_outputs(fo_run *r, sl_conn *c, int64_t n, double limit, const char *what)
{
    fo_check k;
    check_init(r, &k, n);
    double t0 = bench_now();
    for (;;) {
        int rc = check_outputs(r, c, &k);
        double now = bench_now();
        if (rc == 1)
            return now - t0;
        if (rc < 0 || now - t0 > limit) {
            record_anomaly(r, c, &k, what);
            return -1;
        }
        check_alive(r);
        usleep(20000);
    }
}

/* ------------------------------------------------------------------ the kills */

typedef struct fo_kill {
    int victim;      /* bench_cluster snode index */
    int id;
    int64_t slots;
    int64_t epoch0, epoch1;
    int64_t rows;    /* per table, the catch-up marker */
    double detect, recover, catchup, rejoin; /* seconds */
} fo_kill;

/* Lets the load run for cfg.settle_s seconds, watching the daemons. */
static void settle(fo_run *r)
{
    double until = bench_now() + r->cfg.settle_s;
    while (bench_now() < until) {
        check_alive(r);
        (void)rows_loaded(r); /* fails on a loader error */
        usleep(50000);
    }
}

static int pick_victim(const fo_state *s)
{
    int best = -1;
    for (int i = 0; i < NSNODES; i++)
        if (s->sn[i].alive && (best < 0 || s->sn[i].slots > s->sn[best].slots))
            best = i;
    return best;
}

static void one_kill(fo_run *r, sl_conn *c, int n, fo_kill *out)
{
    fo_state s;
    read_state(r, c, &s);
    int v = pick_victim(&s);
    if (v < 0 || !placement_settled(&s, -1))
        fail("kill %d: the placement is not settled before the kill: %s", n, s.why);
    *out = (fo_kill){.victim = v, .id = s.sn[v].id, .slots = s.sn[v].slots, .epoch0 = s.epoch};
    double limit = r->cfg.node_timeout_ms / 1000.0 + 60;
    fprintf(stderr, "kill %d/%d: snode%d (%s, id %d, %lld slots)\n", n, r->cfg.kills, v + 1,
            bench_cluster_snode_addr(r->cl, v) + 6, out->id, (long long)out->slots);

    double t0 = bench_now();
    if (bench_cluster_kill_snode(r->cl, v) != 0)
        fail("kill %d: snode%d does not run", n, v + 1);
    double t_det = 0, t_rec = 0, t_cu = 0;
    fo_check k;
    for (;;) {
        check_alive(r);
        read_state(r, c, &s);
        double now = bench_now();
        if (t_det == 0 && s.sn[v].id == out->id && !s.sn[v].alive)
            t_det = now;
        if (t_rec == 0 && t_det != 0 && placement_settled(&s, out->epoch0)) {
            t_rec = now;
            out->epoch1 = s.epoch;
            out->rows = rows_loaded(r);
            check_init(r, &k, out->rows);
        }
        if (t_rec != 0) {
            int rc = check_outputs(r, c, &k);
            if (rc == 1) {
                t_cu = bench_now();
                break;
            }
            if (rc < 0 || bench_now() - t_rec > CATCHUP_LIMIT_S) {
                char what[64];
                snprintf(what, sizeof(what), "kill %d, catch-up", n);
                record_anomaly(r, c, &k, what);
                break;
            }
        }
        if (now - t0 > limit) {
            note_stream_errors(c);
            if (t_det == 0)
                fail("kill %d: the mnode still lists snode id %d as alive %.0f s after kill -9",
                     n, out->id, limit);
            if (t_rec == 0)
                fail("kill %d: not recovered %.0f s after kill -9: %s (epoch %lld, before the "
                     "kill %lld; cluster folder %s)",
                     n, limit, s.why[0] ? s.why : "an alive snode does not act on the epoch",
                     (long long)s.epoch, (long long)out->epoch0, bench_cluster_dir(r->cl));
        }
        usleep(5000);
    }
    out->detect = t_det - t0;
    out->recover = t_rec - t0;
    out->catchup = t_cu != 0 ? t_cu - t0 : -1;
    note_stream_errors(c);

    /* Bring it back as itself and wait until it holds slots and its tasks run again. */
    int base[NSNODES][NSTREAMS];
    for (int i = 0; i < NSNODES; i++)
        setup_counts(r, i, base[i]);
    double t_r = bench_now();
    char msg[512];
    if (bench_cluster_restart_snode(r->cl, v, msg, sizeof(msg)) != 0)
        fail("kill %d: restart of snode%d: %s", n, v + 1, msg);
    /* The survivors keep their setups; only the restarted snode must log new ones. */
    for (int i = 0; i < NSNODES; i++)
        if (i != v)
            for (int j = 0; j < NSTREAMS; j++)
                base[i][j] = 0;
    wait_all_running(r, c, out->epoch1, base, 60, "rejoin");
    char what[64];
    snprintf(what, sizeof(what), "kill %d, rejoin", n);
    out->rejoin = wait_outputs(r, c, rows_loaded(r), CATCHUP_LIMIT_S, what) < 0
                      ? -1
                      : bench_now() - t_r;
    read_state(r, c, &s);
    if (s.sn[v].id != out->id)
        fail("kill %d: snode%d came back as id %d, not %d", n, v + 1, s.sn[v].id, out->id);
}

/* Nearest-rank p50 and the maximum of v[0..n) (sorted here). */
static void p50_max(double *v, int n, double *p50, double *max)
{
    qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
    *p50 = bench_pct(v, n, 50);
    *max = v[n - 1];
}

int cmd_failover(int argc, char **argv)
{
    fo_run *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return 1;
    g_run = r;
    parse(&r->cfg, argc, argv);
    const fo_cfg *cfg = &r->cfg;
    r->batch = (int)lround(cfg->rate * ROUND_S);
    double t_start = bench_now();
    printf("sluice-bench failover: %d kills (kill -9 of the snode owning the most slots), %d "
           "child tables, %d rows/s per table (%d every %.1f s, %d loader threads), 3 snodes, "
           "mnode node timeout %d ms, snode heartbeat %d ms\n",
           cfg->kills, cfg->tables, cfg->rate, r->batch, ROUND_S, cfg->threads,
           cfg->node_timeout_ms, cfg->heartbeat_ms);
    bench_print_load();

    char msg[8192];
    bench_cluster_opts co = {.vnodes = 2, .snodes = NSNODES, .heartbeat_ms = cfg->heartbeat_ms,
                             .node_timeout_ms = cfg->node_timeout_ms, .keep = cfg->keep,
                             .tag = "failover"};
    if (bench_cluster_start(&r->cl, &co, msg, sizeof(msg)) != 0)
        fail("cannot start the local cluster: %s", msg);
    r->port = bench_cluster_mnode_port(r->cl);
    printf("cluster: mnode + 2 vnodes + 3 snodes on 127.0.0.1, started here (%s)\n",
           bench_cluster_dir(r->cl));
    sl_conn *c = connect_or_fail(r);
    create_schema(r, c);
    create_streams(c);
    wait_all_running(r, c, -1, NULL, 60, "stream start");
    fprintf(stderr, "streams running; starting the load\n");
    start_load(r);

    /* Warm-up: the streams produce the windows of the first rows before any kill. */
    while (rows_loaded(r) < 4 * (int64_t)r->batch)
        usleep(50000);
    wait_outputs(r, c, rows_loaded(r), CATCHUP_LIMIT_S, "warm-up");

    printf("definitions (t0 = just before kill -9; detection, recovery and catch-up are seconds "
           "since t0):\n"
           "  detection  ins_snodes lists the killed snode as dead\n"
           "  recovery   every (stream, slot range) row of ins_stream_tasks is 'running' on an "
           "alive snode at an epoch\n"
           "             newer than the one before the kill, and every alive snode acts on that "
           "epoch (ins_snodes.epoch)\n"
           "  catch-up   N = rows every table holds when recovery is seen; W = per stream, the "
           "start of the first window\n"
           "             still open after N rows; caught up when, for every stream, the output "
           "rows with ws < W number\n"
           "             exactly tables x the windows the first N rows close, with the same "
           "sum(cnt) (checked from recovery on)\n"
           "  rejoin     seconds from restarting the killed snode (same data, port, id) until "
           "it owns slots again,\n"
           "             every task runs at the new epoch, it logged the setup of every stream "
           "it owns, and the\n"
           "             outputs hold the windows of the rows loaded by then (same rule)\n");
    fo_kill *kills = calloc((size_t)cfg->kills + 1, sizeof(*kills));
    if (kills == NULL)
        fail("out of memory");
    printf("  %-4s %-7s %-17s %5s %6s %12s %9s %9s %9s %8s %8s\n", "kill", "snode", "endpoint",
           "id", "slots", "epoch", "detect s", "recover s", "catchup s", "N rows", "rejoin s");
    for (int n = 1; n <= cfg->kills; n++) {
        fo_kill *k = &kills[n - 1];
        settle(r);
        one_kill(r, c, n, k);
        char cu[16], rj[16];
        snprintf(cu, sizeof(cu), k->catchup < 0 ? "never" : "%.2f", k->catchup);
        snprintf(rj, sizeof(rj), k->rejoin < 0 ? "never" : "%.2f", k->rejoin);
        printf("  %-4d snode%-2d %-17s %5d %6lld %5lld->%-5lld %9.2f %9.2f %9s %8lld %8s\n", n,
               k->victim + 1, bench_cluster_snode_addr(r->cl, k->victim) + 6, k->id,
               (long long)k->slots, (long long)k->epoch0, (long long)k->epoch1, k->detect,
               k->recover, cu, (long long)k->rows, rj);
    }

    if (cfg->kills == 0)
        settle(r);
    fprintf(stderr, "stopping the load; final check\n");
    int64_t rows = stop_load(r);
    double t_fin = bench_now();
    check_alive(r);
    fo_check fin;
    check_init(r, &fin, rows);
    /* The whole table, not only before the bound: no later rows exist to close a window
     * past it. */
    for (int s = 0; s < NSTREAMS; s++)
        fin.want[s].bound = INT64_MAX;
    while (check_outputs(r, c, &fin) == 0 && bench_now() - t_fin < 60) {
        check_alive(r);
        usleep(100000);
    }
    printf("final check: every row of every output table against the windows of the %lld rows "
           "of each table\n", (long long)rows);
    long long diffs = compare_windows(r, c, &fin);
    long long windows = 0;
    for (int s = 0; s < NSTREAMS; s++)
        windows += fin.want[s].windows * cfg->tables;
    note_stream_errors(c);

    if (cfg->kills > 0) {
        int nk = cfg->kills;
        double *d = calloc((size_t)nk * 4, sizeof(double));
        if (d == NULL)
            fail("out of memory");
        int cnt[4] = {0};
        for (int n = 0; n < nk; n++) {
            const double v[4] = {kills[n].detect, kills[n].recover, kills[n].catchup,
                                 kills[n].rejoin};
            for (int j = 0; j < 4; j++)
                if (v[j] >= 0)
                    d[(size_t)j * nk + (size_t)cnt[j]++] = v[j];
        }
        static const char *const names[4] = {"detection", "recovery", "catch-up", "rejoin"};
        printf("summary over %d kills (node timeout %d ms, heartbeat %d ms; nearest-rank p50):\n",
               nk, cfg->node_timeout_ms, cfg->heartbeat_ms);
        for (int j = 0; j < 4; j++) {
            double p50 = 0, max = 0;
            if (cnt[j] > 0)
                p50_max(d + (size_t)j * nk, cnt[j], &p50, &max);
            printf("  %-10s p50 %6.2f s   max %6.2f s   %s", names[j], p50, max,
                   j < 3 ? "(since kill -9)" : "(since the restart)");
            if (cnt[j] < nk)
                printf("   over the %d of %d kills that completed it", cnt[j], nk);
            printf("\n");
        }
        free(d);
    }
    printf("  status polls: %lld, %.1f ms each on average (a time is late by up to one poll "
           "plus the output check)\n",
           (long long)r->polls, r->polls ? 1e3 * r->poll_time / (double)r->polls : 0.0);
    printf("load: %lld rows per table, %lld in all; %lld of %lld loader rounds started more "
           "than %.1f s behind schedule\n",
           (long long)rows, (long long)rows * cfg->tables, (long long)atomic_load(&r->late),
           (long long)(rows / r->batch) * cfg->threads, ROUND_S);
    bool ok = diffs == 0 && r->anomalies == 0;
    if (ok)
        printf("results: every output table holds exactly the windows the data closes (%lld "
               "windows over %d streams x %d tables, compared window by window: none missing, "
               "none doubled, every cnt right)\n",
               windows, NSTREAMS, cfg->tables);
    else
        printf("results: MISMATCH: %lld differences between the output tables and the %lld "
               "windows the data closes (listed above; %d anomalies seen during the kills); "
               "cluster folder %s kept\n",
               diffs, windows, r->anomalies, bench_cluster_dir(r->cl));
    if (!ok)
        bench_cluster_keep(r->cl);
    bench_print_load();
    sl_close(c);
    bench_cluster_stop(r->cl);
    r->cl = NULL;
    free(kills);
    free(r->loaders);
    free(r->scratch.v);
    g_run = NULL;
    free(r);
    printf("result: %s (%.0f s)\n", ok ? "ok" : "FAILED", bench_now() - t_start);
    return ok ? 0 : 1;
}
