/*
 * test_trigger_random.c - randomized checks of the trigger engine.
 *
 * 1. Reference: generated rows for three groups (disorder, duplicates, updates, deletes,
 *    a watermark) go through INTERVAL, SESSION and COUNT_WINDOW(n, 1) triggers; the windows
 *    the events leave standing (every CLOSE not followed by an INVALIDATION) must equal the
 *    windows a brute-force reference computes from the final data (written here, not with
 *    the engine), and every INVALIDATION must name a standing window.
 * 2. Checkpoints: the same inputs through an engine that is checkpointed, closed and
 *    restored after every single row, and through a RocksDB-backed engine whose hot set
 *    holds one group (so every group switch spills and reloads), must give exactly the
 *    events of the uninterrupted in-memory run.
 */
#define _GNU_SOURCE /* mkdtemp */
#include "test_trigger_util.h"

#include <unistd.h>

#define NG 3
#define MAXT 600 /* seconds */

typedef struct gen_row {
    uint64_t gid;
    int64_t ts; /* seconds */
    int kind;
} gen_row;

static uint64_t rs;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

/* Rows per group: the first row of each group is its smallest timestamp (never deleted). */
static int gen(gen_row *out, int n)
{
    int64_t cur[NG + 1];
    for (int g = 1; g <= NG; g++)
        cur[g] = 10;
    int k = 0;
    for (int g = 1; g <= NG; g++)
        out[k++] = (gen_row){.gid = (uint64_t)g, .ts = 10, .kind = SL_TRIG_ROW_INSERT};
    while (k < n) {
        int g = 1 + (int)(rnd() % NG);
        uint64_t x = rnd() % 100;
        gen_row r = {.gid = (uint64_t)g, .kind = SL_TRIG_ROW_INSERT};
        if (x < 60) {
            cur[g] += 1 + (int64_t)(rnd() % 12);
            r.ts = cur[g];
        } else if (x < 88) {
            r.ts = cur[g] - (int64_t)(rnd() % 40); /* late or duplicate */
        } else {
            r.ts = cur[g] - (int64_t)(rnd() % 40);
            r.kind = SL_TRIG_ROW_DELETE;
        }
        if (r.ts <= 10)
            r.ts = 11;
        if (r.ts >= MAXT)
            break;
        if (r.kind == SL_TRIG_ROW_INSERT && (rnd() % 4) == 0)
            r.kind = SL_TRIG_ROW_UPDATE; /* the engine treats existing ts the same way */
        out[k++] = r;
    }
    return k;
}

typedef struct win {
    uint64_t gid;
    int64_t start, end;
    uint64_t rows;
} win;

typedef struct standing {
    win w[8192];
    int n;
} standing;

static standing live;

static int live_find(uint64_t gid, int64_t start)
{
    for (int i = 0; i < live.n; i++)
        if (live.w[i].gid == gid && live.w[i].start == start)
            return i;
    return -1;
}

static int track_emit(void *ud, const sl_trig_event *ev)
{
    th *h = ud;
    if (ev->type == SL_TRIG_EV_WINDOW_CLOSE) {
        if (live_find(ev->group_id, ev->wstart) >= 0)
            fail_msg("CLOSE of window %lld of g%llu while it stands", (long long)ev->wstart,
                     (unsigned long long)ev->group_id);
        assert_true(live.n < 8192);
        live.w[live.n++] = (win){ev->group_id, ev->wstart, ev->wend, ev->rownum};
    } else if (ev->type == SL_TRIG_EV_WINDOW_INVALIDATION) {
        int i = live_find(ev->group_id, ev->wstart);
        if (i < 0)
            fail_msg("INVALIDATION of window %lld of g%llu that does not stand",
                     (long long)ev->wstart, (unsigned long long)ev->group_id);
        assert_int_equal(live.w[i].end, ev->wend);
        assert_int_equal(live.w[i].rows, ev->rownum);
        live.w[i] = live.w[--live.n];
    }
    return th_emit(h, ev);
}

typedef enum { K_INTERVAL, K_SLIDE, K_SESSION, K_COUNT } rkind;

/* The brute-force reference: windows of group gid from its final released rows. */
static int reference(rkind k, int p1, int p2, bool nodata, int64_t wm, const bool *present,
                     uint64_t gid, win *out)
{
    int64_t rows[MAXT];
    int nr = 0;
    for (int64_t t = 0; t < MAXT; t++)
        if (present[t] && t <= wm)
            rows[nr++] = t;
    int n = 0;
    if (nr == 0)
        return 0;
    if (k == K_INTERVAL || k == K_SLIDE) {
        int64_t i = p1, s = p2;
        /* first window containing the group's first row (10) */
        int64_t st = 10 - i + 1;
        while (st % s != 0)
            st++;
        for (; st + i <= wm; st += s) {
            uint64_t c = 0;
            for (int j = 0; j < nr; j++)
                c += rows[j] >= st && rows[j] < st + i;
            if (c == 0 && nodata)
                continue;
            out[n++] = (win){gid, st, st + i, c};
        }
    } else if (k == K_SESSION) {
        int a = 0;
        for (int j = 1; j <= nr; j++) {
            if (j == nr)
                break; /* the last session is still open */
            if (rows[j] - rows[j - 1] > p1) {
                out[n++] = (win){gid, rows[a], rows[j - 1], (uint64_t)(j - a)};
                a = j;
            }
        }
    } else {
        for (int j = 0; j + p1 - 1 < nr; j++)
            out[n++] = (win){gid, rows[j], rows[j + p1 - 1], (uint64_t)p1};
    }
    return n;
}

static int cmp_win(const void *a, const void *b)
{
    const win *x = a, *y = b;
    if (x->gid != y->gid)
        return x->gid < y->gid ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static void feed_row(th *h, const gen_row *r, int64_t unit, sl_trig_sink *s)
{
    sl_block b;
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    sl_column_append_i64(&b.cols[0], r->ts * unit);
    sl_column_append_i64(&b.cols[1], 1);
    sl_block_seal(&b);
    uint8_t kind = (uint8_t)r->kind;
    sl_trig_input in = {.group_id = r->gid, .rows = &b, .kinds = &kind};
    sl_error err;
    sl_error_clear(&err);
    if (sl_trig_feed(h->t, &in, s, &err) != 0)
        fail_msg("feed: %s", err.msg);
    sl_block_fini(&b);
}

static void reopen(th *h)
{
    sl_buf ck = {0};
    sl_error err;
    sl_error_clear(&err);
    if (sl_trig_checkpoint(h->t, &ck, &err) != 0)
        fail_msg("checkpoint: %s", err.msg);
    sl_trig_close(h->t);
    if (sl_trig_open(&h->t, h->def, &h->opts, &err) != 0)
        fail_msg("open: %s", err.msg);
    if (sl_trig_restore(h->t, ck.data, ck.len, &err) != 0)
        fail_msg("restore: %s", err.msg);
    sl_buf_fini(&ck);
}

static void one_trial(uint64_t seed, rkind k, int p1, int p2, int wmark, bool nodata,
                      int expired, const char *kvdir)
{
    char sql[256], opts[160], exps[32] = "";
    if (expired)
        snprintf(exps, sizeof exps, "|EXPIRED_TIME(%ds)", expired);
    snprintf(opts, sizeof opts, "STREAM_OPTIONS(DELETE_RECALC%s%s%s)",
             nodata ? "|IGNORE_NODATA_TRIGGER" : "", wmark ? "|WATERMARK(3s)" : "", exps);
    switch (k) {
    case K_INTERVAL:
    case K_SLIDE:
        snprintf(sql, sizeof sql, "CREATE STREAM s INTERVAL(%ds) SLIDING(%ds) FROM t1 "
                 "PARTITION BY tbname %s", p1, p2, opts);
        break;
    case K_SESSION:
        snprintf(sql, sizeof sql, "CREATE STREAM s SESSION(ts, %ds) FROM t1 PARTITION BY tbname %s",
                 p1, opts);
        break;
    case K_COUNT:
        snprintf(sql, sizeof sql,
                 "CREATE STREAM s COUNT_WINDOW(%d, 1) FROM t1 PARTITION BY tbname %s",
                 p1, opts);
        break;
    }
    rs = seed;
    static gen_row rows[2000];
    int n = gen(rows, 300 + (int)(rnd() % 200));

    sl_trig_opts o = {.history = (int64_t)1 << 50};
    th a, b, c;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    th_open_opts(&a, sql, SL_PREC_MS, &o);
    th_open_opts(&b, sql, SL_PREC_MS, &o);
    sl_kv *db = NULL;
    sl_error err;
    if (kvdir) {
        const char *cfs[] = {"trig"};
        if (sl_kv_open(&db, kvdir, NULL, cfs, 1, &err) != 0)
            fail_msg("kv open: %s", err.msg);
        sl_trig_opts ko = o;
        ko.kv = db;
        ko.cf = sl_kv_cf_get(db, "trig");
        ko.max_hot_groups = 1;
        th_open_opts(&c, sql, SL_PREC_MS, &ko);
    }
    live.n = 0;
    sl_trig_sink sa = {.emit = track_emit, .ud = &a};
    sl_trig_sink sb = th_sink(&b), sc = th_sink(&c);
    bool present[NG + 1][MAXT], ever[NG + 1][MAXT];
    int64_t maxts[NG + 1];
    memset(present, 0, sizeof present);
    memset(ever, 0, sizeof ever);
    for (int g = 0; g <= NG; g++)
        maxts[g] = INT64_MIN;
    for (int i = 0; i < n; i++) {
        const gen_row *r = &rows[i];
        feed_row(&a, r, 1000, &sa);
        feed_row(&b, r, 1000, &sb);
        reopen(&b);
        if (db) {
            feed_row(&c, r, 1000, &sc);
            if (i % 37 == 0)
                reopen(&c);
        }
        /* The reference's reading of EXPIRED_TIME: a change older than the watermark
         * minus the expiry is ignored when it is late (at or below the last released row;
         * for time windows, at or below the watermark). */
        bool ignored = false;
        if (expired && maxts[r->gid] != INT64_MIN) {
            int64_t wmn = maxts[r->gid] - (wmark ? 3 : 0);
            int64_t rel = INT64_MIN;
            for (int64_t x = wmn < MAXT - 1 ? wmn : MAXT - 1; x >= 0; x--)
                if (ever[r->gid][x]) {
                    rel = x;
                    break;
                }
            bool late = (k == K_INTERVAL || k == K_SLIDE) ? r->ts <= wmn : r->ts <= rel;
            ignored = late && r->ts < wmn - expired;
        }
        if (ignored) {
        } else if (r->kind == SL_TRIG_ROW_DELETE) {
            present[r->gid][r->ts] = false;
        } else {
            ever[r->gid][r->ts] = true;
            present[r->gid][r->ts] = true;
            if (r->ts > maxts[r->gid])
                maxts[r->gid] = r->ts;
        }
        /* identical events so far, at every row */
        if (a.log.len != b.log.len || (a.log.len && memcmp(a.log.data, b.log.data, a.log.len) != 0))
            fail_msg("seed %llu %s: checkpointed run differs after row %d\n--- a\n%.*s--- b\n%.*s",
                     (unsigned long long)seed, sql, i, (int)a.log.len, (char *)a.log.data,
                     (int)b.log.len, (char *)b.log.data);
        if (db && (a.log.len != c.log.len ||
                   (a.log.len && memcmp(a.log.data, c.log.data, a.log.len) != 0)))
            fail_msg("seed %llu %s: kv-backed run differs after row %d", (unsigned long long)seed,
                     sql, i);
    }
    /* the reference, in seconds */
    static win ref[8192];
    int nref = 0;
    for (int g = 1; g <= NG; g++)
        nref += reference(k, p1, p2, nodata, maxts[g] - (wmark ? 3 : 0), present[g], (uint64_t)g,
                          ref + nref);
    for (int i = 0; i < live.n; i++) {
        live.w[i].start /= 1000;
        live.w[i].end /= 1000;
    }
    qsort(ref, (size_t)nref, sizeof *ref, cmp_win);
    qsort(live.w, (size_t)live.n, sizeof *live.w, cmp_win);
    bool same = nref == live.n;
    for (int i = 0; same && i < nref; i++)
        same = cmp_win(&ref[i], &live.w[i]) == 0 && ref[i].end == live.w[i].end &&
               ref[i].rows == live.w[i].rows;
    if (!same) {
        for (int i = 0; i < nref || i < live.n; i++)
            fprintf(stderr, "%3d ref %s g%llu %lld..%lld %llu | eng g%llu %lld..%lld %llu\n", i,
                    "", i < nref ? (unsigned long long)ref[i].gid : 0ull,
                    i < nref ? (long long)ref[i].start : 0, i < nref ? (long long)ref[i].end : 0,
                    i < nref ? (unsigned long long)ref[i].rows : 0ull,
                    i < live.n ? (unsigned long long)live.w[i].gid : 0ull,
                    i < live.n ? (long long)live.w[i].start : 0,
                    i < live.n ? (long long)live.w[i].end : 0,
                    i < live.n ? (unsigned long long)live.w[i].rows : 0ull);
        if (getenv("TRIG_DEBUG")) {
            for (int i = 0; i < n; i++)
                if (rows[i].gid == 1)
                    fprintf(stderr, "row g1 %lld %d\n", (long long)rows[i].ts, rows[i].kind);
            fprintf(stderr, "%.*s", (int)a.log.len, (char *)a.log.data);
        }
        fail_msg("seed %llu %s: standing windows differ from the reference",
                 (unsigned long long)seed, sql);
    }
    th_close(&a);
    th_close(&b);
    if (db) {
        th_close(&c);
        sl_kv_close(db);
    }
}

static char tmpdir[256];

static void rm_rf(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}


static void run_kind(rkind k, int trials)
{
    trials *= sw_rand_scale();
    for (int t = 0; t < trials; t++) {
        uint64_t seed = 0x1234567ull + (uint64_t)t * 7919 + (uint64_t)k * 1000003;
        rs = seed * 2654435761u + 1;
        int p1, p2 = 0;
        switch (k) {
        case K_INTERVAL: p1 = 10 + (int)(rnd() % 30); p2 = p1; break;
        case K_SLIDE: p2 = 5 + (int)(rnd() % 10); p1 = p2 * (1 + (int)(rnd() % 3)); break;
        case K_SESSION: p1 = 3 + (int)(rnd() % 15); break;
        default: p1 = 1 + (int)(rnd() % 4); break;
        }
        bool wm = t % 2 == 1;
        bool nodata = (k == K_INTERVAL || k == K_SLIDE) && t % 3 == 2;
        char dir[300] = {0};
        if (t % 4 == 0) {
            snprintf(dir, sizeof dir, "%s/k%d_%d", tmpdir, (int)k, t);
        }
        int expired = t % 5 == 3 ? 20 + (int)(rnd() % 30) : 0;
        one_trial(seed, k, p1, p2, wm, nodata, expired, dir[0] ? dir : NULL);
    }
}

static void random_interval(void **state)
{
    run_kind(K_INTERVAL, 60);
}

static void random_sliding_interval(void **state)
{
    run_kind(K_SLIDE, 60);
}

static void random_session(void **state)
{
    run_kind(K_SESSION, 60);
}

static void random_count(void **state)
{
    run_kind(K_COUNT, 60);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sl_trig_test_XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_interval), cmocka_unit_test(random_sliding_interval),
        cmocka_unit_test(random_session),  cmocka_unit_test(random_count),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rm_rf(tmpdir);
    return rc;
}
