/*
 * test_vstore_random.c - the vstore against a model: thousands of random writes (appends,
 * out-of-order rows, duplicates within a call, several tables per call, calls large enough
 * to span blocks), updates, deletes, compactions, reopens and snapshots, with the model a
 * plain C array of (table, ts) -> row. After every operation the call's outcome (version,
 * delete count, the change-log entries with their INSERT/UPDATE kinds) is checked against
 * the model; scans of random ranges with random projections, and scans on older
 * snapshots, are compared row by row. At the end the whole change log is replayed into an
 * empty model, which must reproduce the final state.
 *
 * Four configurations: compaction only when the test asks, compaction after every
 * overlapping block or delete, the defaults, and a change-log cap with random low-water
 * marks (trimmed reads must be refused). Finally the log's bookkeeping (entries, bytes,
 * version summaries) is checked against the raw database, read with sl_kv directly.
 */
#define _GNU_SOURCE /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/kv/keycodec.h"
#include "common/kv/kv.h"
#include "test_vstore_util.h"

#define NT    3 /* tables, uids 1..NT */
#define TSMIN (-10000)
#define D     20000 /* timestamps TSMIN .. TSMIN + D - 1 */

typedef struct mrow {
    bool present;
    bool v_null;
    bool s_null;
    uint8_t slen;
    int32_t v;
    double d;
    char s[8];
} mrow;

typedef mrow model_t[NT][D];

static const sl_vs_column RCOLS[] = {
    {"ts", SL_T_TIMESTAMP, 0}, {"v", SL_T_INT, 0}, {"d", SL_T_DOUBLE, 0}, {"s", SL_T_VARCHAR, 8}};

static uint64_t rng = 1;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int64_t rnd_in(int64_t lo, int64_t hi) /* inclusive */
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

static sl_block *rblock(void)
{
    sl_block *b = sl_block_new();
    for (int c = 0; c < 4; c++)
        sl_block_add_column(b, RCOLS[c].type, RCOLS[c].width);
    return b;
}

static void rand_row(mrow *r)
{
    static const char *strs[] = {"", "a", "bb", "ccc", "dddddddd", "x y"};
    r->present = true;
    r->v_null = rnd() % 10 == 0;
    r->v = (int32_t)rnd();
    r->d = (double)(int64_t)(rnd() % 100000) / 8.0;
    r->s_null = rnd() % 10 == 0;
    const char *s = strs[rnd() % 6];
    r->slen = (uint8_t)strlen(s);
    memcpy(r->s, s, r->slen);
}

static void append_row(sl_block *b, int64_t ts, const mrow *r)
{
    sl_column_append_i64(&b->cols[0], ts);
    if (r->v_null)
        sl_column_append_null(&b->cols[1]);
    else
        sl_column_append_i64(&b->cols[1], r->v);
    sl_column_append_f64(&b->cols[2], r->d);
    if (r->s_null)
        sl_column_append_null(&b->cols[3]);
    else
        sl_column_append_str(&b->cols[3], r->s, r->slen);
    sl_block_seal(b);
}

/* Checks scanned/logged row i of b (columns in table order at positions cols[0..3], -1
 * when not projected) against the model row. */
static void check_row(const sl_block *b, uint32_t i, const int *pos, int64_t ts, const mrow *m)
{
    if (!m->present)
        fail_msg("row ts %lld should not exist", (long long)ts);
    if (pos[0] >= 0 && sl_column_get_i64(&b->cols[pos[0]], i) != ts)
        fail_msg("ts %lld vs %lld", (long long)sl_column_get_i64(&b->cols[pos[0]], i),
                 (long long)ts);
    if (pos[1] >= 0) {
        const sl_column *c = &b->cols[pos[1]];
        if (sl_column_is_null(c, i) != m->v_null || (!m->v_null && sl_column_get_i64(c, i) != m->v))
            fail_msg("ts %lld: v differs", (long long)ts);
    }
    if (pos[2] >= 0 && sl_column_get_f64(&b->cols[pos[2]], i) != m->d)
        fail_msg("ts %lld: d differs", (long long)ts);
    if (pos[3] >= 0) {
        const sl_column *c = &b->cols[pos[3]];
        if (sl_column_is_null(c, i) != m->s_null)
            fail_msg("ts %lld: s null differs", (long long)ts);
        if (!m->s_null) {
            uint32_t len;
            const char *s = sl_column_get_str(c, i, &len);
            if (len != m->slen || memcmp(s, m->s, len) != 0)
                fail_msg("ts %lld: s differs", (long long)ts);
        }
    }
}

/* Scans table t over [lo, hi] with a random projection and compares with model m. */
static void verify_scan(sl_vstore *vs, const sl_vs_snapshot *snap, const model_t m, int t,
                        int64_t lo, int64_t hi)
{
    int proj[6], nproj = 1 + (int)(rnd() % 6);
    int pos[4] = {-1, -1, -1, -1};
    for (int i = 0; i < nproj; i++) {
        proj[i] = (int)(rnd() % 4);
        pos[proj[i]] = i;
    }
    if (rnd() % 2) { /* usually ts first, so the helper checks the order too */
        proj[0] = 0;
        for (int c = 0; c < 4; c++)
            pos[c] = -1;
        for (int i = 0; i < nproj; i++)
            pos[proj[i]] = i;
    }
    sl_block *got = tv_scan(vs, snap, (uint64_t)t + 1, proj, nproj, lo, hi);
    /* Without the ts column, rows are matched by order. */
    uint32_t k = 0;
    int64_t from = lo < TSMIN ? TSMIN : lo, to = hi > TSMIN + D - 1 ? TSMIN + D - 1 : hi;
    for (int64_t ts = from; ts <= to; ts++) {
        const mrow *r = &m[t][ts - TSMIN];
        if (!r->present)
            continue;
        if (k >= got->nrows)
            fail_msg("table %d [%lld, %lld]: missing row ts %lld (got %u rows)", t + 1,
                     (long long)lo, (long long)hi, (long long)ts, got->nrows);
        check_row(got, k, pos, ts, r);
        k++;
    }
    if (k != got->nrows)
        fail_msg("table %d [%lld, %lld]: %u rows, model %u", t + 1, (long long)lo, (long long)hi,
                 got->nrows, k);
    sl_block_free(got);
}

static void verify_all(sl_vstore *vs, const model_t m)
{
    uint64_t present = 0;
    for (int t = 0; t < NT; t++) {
        verify_scan(vs, NULL, m, t, INT64_MIN, INT64_MAX);
        for (int k = 0; k < D; k++)
            present += m[t][k].present;
    }
    /* The stored row count (stats.rows) is the model's number of rows. */
    sl_vstore_stats st;
    sl_vstore_get_stats(vs, &st);
    if (st.rows != present)
        fail_msg("stats.rows %llu, model %llu", (unsigned long long)st.rows,
                 (unsigned long long)present);
}

/* ---- operations ---------------------------------------------------------------------- */

typedef struct ctx {
    const char *path;
    sl_vstore_options opts;
    sl_vstore *vs;
    mrow (*m)[D];         /* the model */
    int64_t maxts[NT];    /* newest timestamp written per table (for appends) */
    uint64_t version;     /* expected last version */
    sl_vs_snapshot *snap; /* an open snapshot, or NULL */
    mrow (*snap_m)[D];    /* the model at its version */
} ctx;

static int64_t pick_ts(ctx *c, int t, int mode)
{
    switch (mode) {
    case 0: /* append */
        if (c->maxts[t] >= TSMIN + D - 3)
            return rnd_in(TSMIN, TSMIN + D - 1);
        return c->maxts[t] + 1 + (int64_t)(rnd() % 3);
    case 1: /* anywhere */ return rnd_in(TSMIN, TSMIN + D - 1);
    default: { /* a cluster near the end, or a narrow window */
        int64_t centre = rnd() % 2 ? c->maxts[t] : rnd_in(TSMIN, TSMIN + D - 1);
        int64_t ts = centre + rnd_in(-40, 40);
        return ts < TSMIN ? TSMIN : ts > TSMIN + D - 1 ? TSMIN + D - 1 : ts;
    }
    }
}

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void op_write(ctx *c)
{
    int nitems = 1 + (int)(rnd() % 3);
    sl_block *blocks[3];
    sl_vs_write_item items[3];
    /* per table: the distinct timestamps written, and the row that wins for each */
    static int64_t wts[NT][D];
    static mrow wrow[NT][D];
    static bool touched[NT][D];
    int nw[NT] = {0};
    for (int i = 0; i < nitems; i++) {
        int t = (int)(rnd() % NT), mode = (int)(rnd() % 3);
        int n = rnd() % 50 == 0 ? 1 + (int)(rnd() % 6000) : 1 + (int)(rnd() % 120);
        blocks[i] = rblock();
        items[i] = (sl_vs_write_item){(uint64_t)t + 1, blocks[i]};
        for (int k = 0; k < n; k++) {
            int64_t ts = pick_ts(c, t, mode);
            if (mode == 0 && ts > c->maxts[t])
                c->maxts[t] = ts;
            mrow r = {0};
            rand_row(&r);
            append_row(blocks[i], ts, &r);
            if (!touched[t][ts - TSMIN]) {
                touched[t][ts - TSMIN] = true;
                wts[t][nw[t]++] = ts;
            }
        }
        if (rnd() % 20 == 0) { /* a constant column now and then */
            sl_value v = sl_value_double(SL_T_DOUBLE, 2.5);
            sl_column_set_const(&blocks[i]->cols[2], &v, blocks[i]->nrows);
        }
    }
    for (int t = 0; t < NT; t++)
        for (int k = 0; k < nw[t]; k++)
            touched[t][wts[t][k] - TSMIN] = false;
    /* The winners: the items' rows in order, the last occurrence of a timestamp winning. */
    for (int i = 0; i < nitems; i++) {
        int t = (int)items[i].uid - 1;
        const sl_block *b = blocks[i];
        for (uint32_t k = 0; k < b->nrows; k++) {
            int64_t ts = sl_column_get_i64(&b->cols[0], k);
            mrow *r = &wrow[t][ts - TSMIN];
            memset(r, 0, sizeof(*r));
            r->present = true;
            r->v_null = sl_column_is_null(&b->cols[1], k);
            r->v = r->v_null ? 0 : (int32_t)sl_column_get_i64(&b->cols[1], k);
            r->d = sl_column_get_f64(&b->cols[2], k);
            r->s_null = sl_column_is_null(&b->cols[3], k);
            if (!r->s_null) {
                uint32_t len;
                const char *s = sl_column_get_str(&b->cols[3], k, &len);
                r->slen = (uint8_t)len;
                memcpy(r->s, s, len);
            }
        }
    }
    uint64_t v = 0;
    sl_error err = {0};
    int rc = sl_vstore_write(c->vs, items, (size_t)nitems, rnd() % 10 == 0, &v, &err);
    if (rc != 0)
        fail_msg("write: %s", err.msg);
    c->version++;
    assert_int_equal(v, c->version);

    /* The log of this version: per table ascending, sorted rows with the right kinds. */
    sl_vs_changes ch = tv_changes(c->vs, v - 1);
    size_t e = 0;
    for (int t = 0; t < NT; t++) {
        if (nw[t] == 0)
            continue;
        int64_t *list = wts[t];
        qsort(list, (size_t)nw[t], sizeof(int64_t), i64_cmp);
        int k = 0;
        while (k < nw[t]) {
            assert_true(e < ch.n);
            const sl_vs_change *cg = &ch.v[e++];
            assert_int_equal(cg->version, v);
            assert_int_equal(cg->uid, (uint64_t)t + 1);
            assert_int_equal(cg->kind, SL_VS_CHANGE_ROWS);
            assert_true(cg->rows.nrows <= SL_BLOCK_ROWS_MAX);
            static const int pos[4] = {0, 1, 2, 3};
            for (uint32_t i = 0; i < cg->rows.nrows; i++, k++) {
                int64_t ts = list[k];
                const mrow *before = &c->m[t][ts - TSMIN];
                int want = before->present ? SL_VS_ROW_UPDATE : SL_VS_ROW_INSERT;
                if (cg->row_kinds[i] != want)
                    fail_msg("v%llu table %d ts %lld: kind %d, expected %d", (unsigned long long)v,
                             t + 1, (long long)ts, cg->row_kinds[i], want);
                check_row(&cg->rows, i, pos, ts, &wrow[t][ts - TSMIN]);
            }
        }
        for (k = 0; k < nw[t]; k++) {
            c->m[t][list[k] - TSMIN] = wrow[t][list[k] - TSMIN];
            if (list[k] > c->maxts[t])
                c->maxts[t] = list[k];
        }
    }
    assert_int_equal(e, ch.n);
    sl_vs_changes_fini(&ch);
    for (int i = 0; i < nitems; i++)
        sl_block_free(blocks[i]);
}

static void op_delete(ctx *c)
{
    int t = (int)(rnd() % NT);
    int64_t lo, hi;
    if (rnd() % 8 == 0) {
        lo = rnd() % 2 ? INT64_MIN : rnd_in(TSMIN, TSMIN + D - 1);
        hi = rnd() % 2 ? INT64_MAX : rnd_in(lo < TSMIN ? TSMIN : lo, TSMIN + D - 1);
    } else {
        lo = rnd_in(TSMIN, TSMIN + D - 1);
        hi = lo + (int64_t)(rnd() % 300);
    }
    uint64_t expect = 0;
    int64_t from = lo < TSMIN ? TSMIN : lo, to = hi > TSMIN + D - 1 ? TSMIN + D - 1 : hi;
    for (int64_t ts = from; ts <= to; ts++)
        expect += c->m[t][ts - TSMIN].present;
    uint64_t v, nd;
    sl_error err = {0};
    if (sl_vstore_delete(c->vs, (uint64_t)t + 1, lo, hi, rnd() % 10 == 0, &v, &nd, &err) != 0)
        fail_msg("delete: %s", err.msg);
    if (nd != expect)
        fail_msg("delete [%lld, %lld] of table %d: %llu rows, model %llu", (long long)lo,
                 (long long)hi, t + 1, (unsigned long long)nd, (unsigned long long)expect);
    if (expect > 0) {
        c->version++;
        sl_vs_changes ch = tv_changes(c->vs, v - 1);
        assert_int_equal(ch.n, 1);
        assert_int_equal(ch.v[0].kind, SL_VS_CHANGE_DELETE);
        assert_int_equal(ch.v[0].del_count, expect);
        assert_true(ch.v[0].del_lo == lo && ch.v[0].del_hi == hi);
        sl_vs_changes_fini(&ch);
    }
    assert_int_equal(v, c->version);
    for (int64_t ts = from; ts <= to; ts++)
        c->m[t][ts - TSMIN].present = false;
}

static void op_reopen(ctx *c)
{
    if (c->snap != NULL) {
        sl_vstore_snapshot_close(c->snap);
        c->snap = NULL;
    }
    sl_vstore_close(c->vs);
    c->vs = tv_open(c->path, &c->opts);
    assert_int_equal(sl_vstore_last_version(c->vs), c->version);
}

static void op_snapshot(ctx *c)
{
    if (c->snap != NULL) {
        assert_int_equal(sl_vs_snapshot_version(c->snap) <= c->version, 1);
        for (int t = 0; t < NT; t++)
            verify_scan(c->vs, c->snap, (const mrow(*)[D])c->snap_m, t, INT64_MIN, INT64_MAX);
        sl_vstore_snapshot_close(c->snap);
        c->snap = NULL;
        return;
    }
    assert_int_equal(sl_vstore_snapshot_open(c->vs, &c->snap, NULL), 0);
    assert_int_equal(sl_vs_snapshot_version(c->snap), c->version);
    memcpy(c->snap_m, c->m, sizeof(model_t));
}

/* Replays the whole change log into an empty model and compares with the final one. */
static void replay_log(ctx *c)
{
    mrow(*r)[D] = calloc(1, sizeof(model_t));
    assert_non_null(r);
    uint64_t after = 0, last = 0;
    for (;;) {
        sl_vs_changes ch;
        assert_int_equal(sl_vstore_changes_read(c->vs, after, 1 << 20, 0, &ch, NULL), 0);
        if (ch.n == 0) {
            sl_vs_changes_fini(&ch);
            break;
        }
        for (size_t i = 0; i < ch.n; i++) {
            const sl_vs_change *e = &ch.v[i];
            assert_true(e->version >= last);
            last = e->version;
            int t = (int)e->uid - 1;
            if (e->kind == SL_VS_CHANGE_DELETE) {
                for (int64_t ts = TSMIN; ts < TSMIN + D; ts++)
                    if (ts >= e->del_lo && ts <= e->del_hi)
                        r[t][ts - TSMIN].present = false;
                continue;
            }
            assert_int_equal(e->kind, SL_VS_CHANGE_ROWS);
            for (uint32_t k = 0; k < e->rows.nrows; k++) {
                int64_t ts = sl_column_get_i64(&e->rows.cols[0], k);
                mrow *row = &r[t][ts - TSMIN];
                assert_int_equal(e->row_kinds[k],
                                 row->present ? SL_VS_ROW_UPDATE : SL_VS_ROW_INSERT);
                row->present = true;
                row->v_null = sl_column_is_null(&e->rows.cols[1], k);
                row->v = row->v_null ? 0 : (int32_t)sl_column_get_i64(&e->rows.cols[1], k);
                row->d = sl_column_get_f64(&e->rows.cols[2], k);
                row->s_null = sl_column_is_null(&e->rows.cols[3], k);
                if (!row->s_null) {
                    uint32_t len;
                    const char *s = sl_column_get_str(&e->rows.cols[3], k, &len);
                    row->slen = (uint8_t)len;
                    memcpy(row->s, s, len);
                }
            }
        }
        after = ch.last_version;
        sl_vs_changes_fini(&ch);
    }
    assert_int_equal(last, c->version);
    for (int t = 0; t < NT; t++)
        for (int i = 0; i < D; i++) {
            const mrow *a = &r[t][i], *b = &c->m[t][i];
            assert_int_equal(a->present, b->present);
            if (!a->present)
                continue;
            assert_true(a->v_null == b->v_null && (a->v_null || a->v == b->v));
            assert_true(a->d == b->d);
            assert_true(a->s_null == b->s_null &&
                        (a->s_null || (a->slen == b->slen && !memcmp(a->s, b->s, a->slen))));
        }
    free(r);
}

/*
 * Opens the closed vstore's database with sl_kv directly and checks the change-log
 * bookkeeping against what is really stored: the retained entries and their bytes equal
 * the vstore's counters, and every version summary matches its entries.
 */
static void check_log_accounting(const char *path, const sl_vstore_stats *st)
{
    const char *cfs[] = {"meta", "data", "log"};
    sl_kv *db;
    sl_kv_iter *it;
    assert_int_equal(sl_kv_open(&db, path, NULL, cfs, 3, NULL), 0);
    assert_int_equal(sl_kv_iter_open(&it, db, sl_kv_cf_get(db, "log"), NULL, NULL), 0);
    uint64_t entries = 0, bytes = 0, sum_entries = 0, sum_stored = 0, versions = 0;
    uint64_t cur = 0, cur_entries = 0, cur_bytes = 0;
    /* Summaries (0x00 v) sort before entries (0x01 v seq): collect them first. */
    uint64_t *sv = NULL, *se = NULL, *sb = NULL;
    size_t ns = 0, cap = 0;
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        size_t kl, vl;
        const uint8_t *k = sl_kv_iter_key(it, &kl);
        const uint8_t *v = sl_kv_iter_value(it, &vl);
        if (k[0] == 0) {
            sl_reader r;
            uint64_t e, stored, logical;
            sl_reader_init(&r, v, vl);
            assert_int_equal(sl_reader_varu(&r, &e), 0);
            assert_int_equal(sl_reader_varu(&r, &stored), 0);
            assert_int_equal(sl_reader_varu(&r, &logical), 0);
            if (ns == cap) {
                cap = cap ? 2 * cap : 1024;
                sv = realloc(sv, cap * 8);
                se = realloc(se, cap * 8);
                sb = realloc(sb, cap * 8);
            }
            sv[ns] = sl_key_dec_u64(k + 1);
            se[ns] = e;
            sb[ns++] = stored;
            sum_entries += e;
            sum_stored += stored;
            continue;
        }
        uint64_t ver = sl_key_dec_u64(k + 1);
        if (ver != cur) {
            if (cur != 0) {
                assert_true(versions < ns && sv[versions] == cur);
                assert_int_equal(se[versions], cur_entries);
                assert_int_equal(sb[versions], cur_bytes);
                versions++;
            }
            cur = ver;
            cur_entries = cur_bytes = 0;
        }
        cur_entries++;
        cur_bytes += vl;
        entries++;
        bytes += vl;
    }
    if (cur != 0) {
        assert_true(versions < ns && sv[versions] == cur);
        assert_int_equal(se[versions], cur_entries);
        assert_int_equal(sb[versions], cur_bytes);
        versions++;
    }
    assert_int_equal(versions, ns);
    assert_int_equal(entries, st->log_entries);
    assert_int_equal(bytes, st->log_bytes);
    assert_int_equal(sum_entries, entries);
    assert_int_equal(sum_stored, bytes);
    free(sv);
    free(se);
    free(sb);
    sl_kv_iter_close(it);
    sl_kv_close(db);
}

static void run_random(const char *path, const sl_vstore_options *o, uint64_t seed, int nops,
                       bool trims)
{
    ctx c = {.path = path, .opts = *o};
    rng = seed;
    c.m = calloc(1, sizeof(model_t));
    c.snap_m = calloc(1, sizeof(model_t));
    assert_non_null(c.m);
    assert_non_null(c.snap_m);
    for (int t = 0; t < NT; t++)
        c.maxts[t] = TSMIN + (int64_t)(rnd() % 1000);
    c.vs = tv_open(path, o);
    for (int t = 0; t < NT; t++) {
        char name[16];
        snprintf(name, sizeof(name), "t%d", t + 1);
        tv_put_normal(c.vs, (uint64_t)t + 1, name, RCOLS, 4);
    }
    for (int i = 0; i < nops; i++) {
        int op = (int)(rnd() % 100);
        if (op < 45) {
            op_write(&c);
        } else if (op < 60) {
            op_delete(&c);
        } else if (op < 65) {
            int t = (int)(rnd() % NT);
            TV_OK(sl_vstore_compact_table(c.vs, (uint64_t)t + 1, &err_));
        } else if (op < 67) {
            op_reopen(&c);
        } else if (op < 71) {
            op_snapshot(&c);
        } else if (op < 73 && trims) {
            uint64_t low = c.version > 50 ? c.version - (rnd() % 50) : 0;
            TV_OK(sl_vstore_set_low_water(c.vs, low, &err_));
            /* Reading after anything trimmed is refused; the rest is readable. */
            uint64_t first = sl_vstore_first_retained_version(c.vs);
            sl_vs_changes ch;
            if (first >= 2)
                assert_int_equal(sl_vstore_changes_read(c.vs, first - 2, 0, 0, &ch, NULL),
                                 SL_ERANGE);
            assert_int_equal(sl_vstore_changes_read(c.vs, first - 1, 0, 0, &ch, NULL), 0);
            assert_int_equal(ch.n > 0 ? ch.v[0].version : first, first);
            sl_vs_changes_fini(&ch);
        } else {
            int t = (int)(rnd() % NT);
            int64_t lo = rnd_in(TSMIN - 5, TSMIN + D + 5), hi = lo + (int64_t)(rnd() % 2000);
            if (rnd() % 10 == 0)
                hi = lo - 1; /* empty */
            verify_scan(c.vs, NULL, (const mrow(*)[D])c.m, t, lo, hi);
        }
        if (i % 500 == 499)
            verify_all(c.vs, (const mrow(*)[D])c.m);
    }
    if (c.snap != NULL)
        op_snapshot(&c);
    verify_all(c.vs, (const mrow(*)[D])c.m);
    if (!trims)
        replay_log(&c);
    /* Compacting everything changes no result. */
    for (int t = 0; t < NT; t++)
        TV_OK(sl_vstore_compact_table(c.vs, (uint64_t)t + 1, &err_));
    verify_all(c.vs, (const mrow(*)[D])c.m);
    sl_vstore_stats st;
    sl_vstore_get_stats(c.vs, &st);
    assert_int_equal(st.compaction_errors, 0);
    assert_true(st.compactions > 0);
    sl_vstore_close(c.vs);
    check_log_accounting(path, &st);
    c.vs = tv_open(path, o);
    verify_all(c.vs, (const mrow(*)[D])c.m);
    sl_vstore_close(c.vs);
    free(c.m);
    free(c.snap_m);
}

static int nops(void)
{
    const char *e = getenv("SLUICE_VSTORE_RANDOM_OPS");
    return e != NULL ? atoi(e) : 2500;
}

static void test_random_manual_compaction(void **state)
{
    tv_fix *f = *state;
    sl_vstore_options o = {.no_auto_compact = true};
    run_random(f->path, &o, 0x9E3779B97F4A7C15ULL, nops(), false);
}

static void test_random_eager_compaction(void **state)
{
    tv_fix *f = *state;
    sl_vstore_options o = {.compact_overlaps = 1, .compact_tombstones = 1};
    run_random(f->path, &o, 0xD1B54A32D192ED03ULL, nops(), false);
}

static void test_random_defaults(void **state)
{
    tv_fix *f = *state;
    sl_vstore_options o = {0};
    run_random(f->path, &o, 0x8CB92BA72F3D8DD7ULL, nops(), false);
}

static void test_random_log_cap(void **state)
{
    tv_fix *f = *state;
    sl_vstore_options o = {.log_max_entries = 400, .compact_overlaps = 2};
    run_random(f->path, &o, 0x2545F4914F6CDD1DULL, nops(), true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_random_manual_compaction, tv_setup, tv_teardown),
        cmocka_unit_test_setup_teardown(test_random_eager_compaction, tv_setup, tv_teardown),
        cmocka_unit_test_setup_teardown(test_random_defaults, tv_setup, tv_teardown),
        cmocka_unit_test_setup_teardown(test_random_log_cap, tv_setup, tv_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
