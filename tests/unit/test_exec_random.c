/*
 * test_exec_random.c - a randomized differential test of the planner and executor.
 *
 * A fixed seed generates a super table of 20 child tables (about 12,000 rows over four
 * minutes, per-table sorted unique timestamps that often collide across tables, an INT
 * column with ~10% NULLs, a DOUBLE column with NULLs, a VARCHAR tag with 4 values and an
 * INT tag with one NULL). Then 450 generated queries run through the real planner and
 * executor: GROUP BY a tag or an expression, PARTITION BY tbname or tags, INTERVAL of
 * 1s/7s/30s/1m with optional SLIDING and offset, WHERE on a time range and on values,
 * HAVING, ORDER BY with LIMIT/OFFSET, DISTINCT, plain rows, over the super table, one
 * child table, or a subquery (some sorted so rows arrive out of time order). Every
 * (keys, window) pair appears at least once. Each query runs twice: over a catalog
 * written here (blocks of random sizes, tags delivered as constant or as ordinary
 * columns) and over the embedded store (memstore.h, loaded with sl_memstore_append).
 * The rows are compared with a deliberately simple reference written below: nested loops
 * over a plain array of rows, windows enumerated from their definition (starts at
 * offset + k*sliding), each aggregate computed directly from the rows of its group and
 * window, ties of FIRST/LAST/LAST_ROW broken by arrival order as agg.h specifies.
 *
 * Integers and counts must match exactly, doubles within 1e-9 relative to the magnitude
 * of their inputs; rows are compared in order when the query has ORDER BY (the reference
 * is sorted the same way), otherwise both sides are sorted by their key columns first.
 * A failure prints the query and the first differing row.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "common/exec/memstore.h"
#include "common/exec/plan.h"
#include "common/sql/parser.h"

/* ------------------------------------------------------------ random numbers */

static uint64_t g_rng;

static uint64_t rnd(void)
{
    /* xorshift64* */
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 0x2545F4914F6CDD1DULL;
}

static int rnd_int(int lo, int hi) /* inclusive */
{
    return lo + (int)(rnd() % (uint64_t)(hi - lo + 1));
}

static bool rnd_pct(int pct)
{
    return (int)(rnd() % 100) < pct;
}

/* ------------------------------------------------------------ the data */

#define NTABLES 20
#define T0 1735689600000LL /* 2025-01-01 00:00:00 UTC */
#define SPAN 240000        /* rows lie within [T0, T0 + SPAN) ms */

static const char *const LOCS[4] = {"north", "south", "east", "west"};

typedef struct rtable {
    char name[8];
    const char *loc;
    int gid;
    bool gid_null;
} rtable;

/* One row, in scan order: table by table (creation order), ascending ts. */
typedef struct rrow {
    int tab;
    int64_t ts;
    bool v_null;
    int32_t v;
    bool d_null;
    double d;
} rrow;

static rtable g_tabs[NTABLES];
static rrow *g_rows;
static int g_nrows;
static int g_first[NTABLES + 1]; /* rows of table i are [g_first[i], g_first[i+1]) */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void gen_data(void)
{
    g_rng = 0x5EEDC0DE12345ULL;
    g_rows = calloc(NTABLES * 1000, sizeof(rrow));
    assert_non_null(g_rows);
    int64_t ts[1000];
    for (int t = 0; t < NTABLES; t++) {
        rtable *tb = &g_tabs[t];
        snprintf(tb->name, sizeof(tb->name), "d%d", t);
        tb->loc = LOCS[rnd_int(0, 3)];
        tb->gid = rnd_int(0, 4);
        tb->gid_null = t == 7;
        g_first[t] = g_nrows;
        int n = rnd_int(400, 800);
        /* Multiples of 10 ms: timestamps collide across tables and hit window edges. */
        for (int i = 0; i < n; i++)
            ts[i] = T0 + 10 * (int64_t)rnd_int(0, SPAN / 10 - 1);
        qsort(ts, (size_t)n, sizeof(int64_t), cmp_i64);
        for (int i = 0; i < n; i++) {
            if (i > 0 && ts[i] == ts[i - 1])
                continue;
            rrow *r = &g_rows[g_nrows++];
            r->tab = t;
            r->ts = ts[i];
            r->v_null = rnd_pct(10);
            r->v = rnd_int(-1000, 1000);
            r->d_null = rnd_pct(15);
            r->d = (double)rnd_int(-100000, 100000) / 1000.0 + (double)rnd_int(0, 999) / 1e7;
        }
    }
    g_first[NTABLES] = g_nrows;
    assert_true(g_nrows > 10000);
}

/* ------------------------------------------------------------ the test catalog */

/*
 * Super table "st" (index NTABLES) and its children d0..d19 (0..NTABLES-1). Columns ts, v,
 * d; tags loc, gid. Blocks are cut at random sizes; tags and tbname are constant columns
 * unless const_tags is false.
 */
static const sl_field RCOLS[3] = {
    {.name = "ts", .type = SL_T_TIMESTAMP},
    {.name = "v", .type = SL_T_INT},
    {.name = "d", .type = SL_T_DOUBLE},
};
static const sl_field RTAGS[2] = {
    {.name = "loc", .type = SL_T_VARCHAR, .width = 16},
    {.name = "gid", .type = SL_T_INT},
};

typedef struct rcat {
    bool const_tags;
    uint64_t seed; /* block sizes of the next scan */
    int open;
} rcat;

typedef struct rcursor {
    rcat *c;
    uint64_t rng;
    int tab, last;   /* tables [tab, last] */
    int row;         /* next row (index into g_rows) */
    int64_t lo, hi;
    int nproj;
    int proj[16];
} rcursor;

static int rc_get_table(void *ud, const char *db, const char *name, sl_table_meta *out,
                        sl_error *err)
{
    (void)ud;
    if (db != NULL && strcasecmp(db, "rdb") != 0)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "database '%s' does not exist", db);
    sl_table_meta m = {.db = "rdb", .precision = SL_PREC_MS, .ncols = 3, .cols = RCOLS,
                       .ntags = 2, .tags = RTAGS};
    if (strcasecmp(name, "st") == 0) {
        m.kind = SL_TABLE_SUPER;
        m.name = "st";
        *out = m;
        return 0;
    }
    for (int t = 0; t < NTABLES; t++) {
        if (strcasecmp(name, g_tabs[t].name) == 0) {
            m.kind = SL_TABLE_CHILD;
            m.name = g_tabs[t].name;
            *out = m;
            return 0;
        }
    }
    return sl_error_set(err, SL_ENOTFOUND, 0, 0, "table '%s' does not exist", name);
}

static int rc_scan_open(void *ud, const sl_scan_req *req, void **cursor, sl_error *err)
{
    rcat *c = ud;
    rcursor *k = calloc(1, sizeof(*k));
    assert_non_null(k);
    k->c = c;
    k->rng = c->seed | 1;
    if (strcasecmp(req->table->name, "st") == 0) {
        k->tab = 0;
        k->last = NTABLES - 1;
    } else {
        k->tab = k->last = atoi(req->table->name + 1);
    }
    k->row = g_first[k->tab];
    k->lo = req->ts_lo;
    k->hi = req->ts_hi;
    assert_true(req->nproj <= 16);
    k->nproj = req->nproj;
    memcpy(k->proj, req->proj, sizeof(int) * (size_t)req->nproj);
    c->open++;
    *cursor = k;
    return 0;
}

static int rc_scan_next(void *cursor, sl_block *out, sl_error *err)
{
    static const uint32_t sizes[] = {1, 3, 64, 257, 1000, 4096};
    rcursor *k = cursor;
    sl_block_fini(out);
    sl_block_init(out);
    for (int i = 0; i < k->nproj; i++) {
        int p = k->proj[i];
        if (p == SL_PROJ_TBNAME)
            assert_true(sl_block_add_column(out, SL_T_VARCHAR, SL_TABLE_NAME_MAX) >= 0);
        else if (p < 3)
            assert_true(sl_block_add_column(out, RCOLS[p].type, 0) >= 0);
        else
            assert_true(sl_block_add_column(out, RTAGS[p - 3].type, RTAGS[p - 3].width) >= 0);
    }
    k->rng = k->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    uint32_t want = sizes[(k->rng >> 33) % 6];
    while (k->tab <= k->last) {
        int end = g_first[k->tab + 1];
        while (k->row < end && g_rows[k->row].ts < k->lo)
            k->row++;
        uint32_t n = 0;
        while (k->row + (int)n < end && g_rows[k->row + n].ts <= k->hi && n < want)
            n++;
        if (n == 0) {
            k->tab++;
            if (k->tab <= k->last)
                k->row = g_first[k->tab];
            continue;
        }
        const rtable *tb = &g_tabs[k->tab];
        for (int i = 0; i < k->nproj; i++) {
            int p = k->proj[i];
            sl_column *c = &out->cols[i];
            sl_value v;
            if (p == SL_PROJ_TBNAME)
                v = sl_value_str(SL_T_VARCHAR, tb->name, (uint32_t)strlen(tb->name));
            else if (p == 3)
                v = sl_value_str(SL_T_VARCHAR, tb->loc, (uint32_t)strlen(tb->loc));
            else if (p == 4)
                v = tb->gid_null ? sl_value_null(SL_T_INT) : sl_value_int(SL_T_INT, tb->gid);
            if (p == SL_PROJ_TBNAME || p >= 3) {
                if (k->c->const_tags) {
                    assert_int_equal(sl_column_set_const(c, &v, n), 0);
                } else {
                    for (uint32_t r = 0; r < n; r++)
                        assert_int_equal(sl_column_append_value(c, &v), 0);
                }
                continue;
            }
            for (uint32_t r = 0; r < n; r++) {
                const rrow *row = &g_rows[k->row + (int)r];
                int rc = 0;
                if (p == 0)
                    rc = sl_column_append_i64(c, row->ts);
                else if (p == 1)
                    rc = row->v_null ? sl_column_append_null(c) : sl_column_append_i64(c, row->v);
                else
                    rc = row->d_null ? sl_column_append_null(c) : sl_column_append_f64(c, row->d);
                assert_int_equal(rc, 0);
            }
        }
        out->nrows = n;
        k->row += (int)n;
        return 0;
    }
    out->nrows = 0;
    return 0;
}

static void rc_scan_close(void *cursor)
{
    rcursor *k = cursor;
    if (k == NULL)
        return;
    k->c->open--;
    free(k);
}

static const sl_catalog_ops rc_ops = {
    .get_table = rc_get_table,
    .scan_open = rc_scan_open,
    .scan_next = rc_scan_next,
    .scan_close = rc_scan_close,
};

static rcat g_cat;
static sl_memstore *g_ms;

static int64_t fixed_now(void *ud)
{
    (void)ud;
    return T0 + 3600000;
}

/* Loads the same data into the embedded store: DDL in SQL, rows by sl_memstore_append. */
static void load_memstore(void)
{
    assert_int_equal(sl_memstore_open(&g_ms, fixed_now, NULL), 0);
    char sql[1024];
    sl_result res;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_memstore_exec(g_ms,
                              "CREATE DATABASE rdb; USE rdb; CREATE STABLE st (ts TIMESTAMP, "
                              "v INT, d DOUBLE) TAGS (loc VARCHAR(16), gid INT)",
                              &res, &err);
    if (rc != 0)
        fail_msg("DDL failed: %s", err.msg);
    sl_result_fini(&res);
    for (int t = 0; t < NTABLES; t++) {
        char gid[16];
        if (g_tabs[t].gid_null)
            snprintf(gid, sizeof(gid), "NULL");
        else
            snprintf(gid, sizeof(gid), "%d", g_tabs[t].gid);
        snprintf(sql, sizeof(sql), "CREATE TABLE %s USING st TAGS ('%s', %s)", g_tabs[t].name,
                 g_tabs[t].loc, gid);
        rc = sl_memstore_exec(g_ms, sql, &res, &err);
        if (rc != 0)
            fail_msg("%s failed: %s", sql, err.msg);
        sl_result_fini(&res);
        /* Append in two halves, the second first: the store must sort them. */
        int a = g_first[t], b = g_first[t + 1], mid = a + (b - a) / 2;
        int parts[2][2] = {{mid, b}, {a, mid}};
        for (int h = 0; h < 2; h++) {
            sl_block blk;
            sl_block_init(&blk);
            for (int c = 0; c < 3; c++)
                assert_true(sl_block_add_column(&blk, RCOLS[c].type, 0) >= 0);
            for (int i = parts[h][0]; i < parts[h][1]; i++) {
                const rrow *r = &g_rows[i];
                assert_int_equal(sl_column_append_i64(&blk.cols[0], r->ts), 0);
                assert_int_equal(r->v_null ? sl_column_append_null(&blk.cols[1])
                                           : sl_column_append_i64(&blk.cols[1], r->v),
                                 0);
                assert_int_equal(r->d_null ? sl_column_append_null(&blk.cols[2])
                                           : sl_column_append_f64(&blk.cols[2], r->d),
                                 0);
            }
            sl_block_seal(&blk);
            rc = sl_memstore_append(g_ms, "rdb", g_tabs[t].name, &blk, &err);
            if (rc != 0)
                fail_msg("append to %s failed: %s", g_tabs[t].name, err.msg);
            sl_block_fini(&blk);
        }
    }
}

static int setup(void **state)
{
    (void)state;
    gen_data();
    load_memstore();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(g_rows);
    g_rows = NULL;
    sl_memstore_close(g_ms);
    g_ms = NULL;
    return 0;
}

/* ------------------------------------------------------------ queries */

enum { K_NONE, K_LOC, K_GID, K_TBNAME, K_LOC_GID, K_VMOD, K__COUNT };

enum {
    A_COUNT_STAR, A_COUNT, A_SUM, A_AVG, A_MIN, A_MAX, A_FIRST, A_LAST, A_LAST_ROW,
    A_SPREAD, A_STDDEV, A__COUNT
};
static const char *const AGG_NAMES[A__COUNT] = {"count", "count", "sum", "avg", "min",
                                                "max", "first", "last", "last_row",
                                                "spread", "stddev"};

enum { P_NONE, P_VGT, P_VLE, P_DLT, P_VNOTNULL, P_DNULL, P_LOC, P_LOCIN, P_GID, P_TBNAME,
       P_VBETWEEN, P__COUNT };

enum { S_SUPER, S_CHILD, S_SUBQUERY, S_SORTED };

/* S_SORTED: FROM (SELECT * FROM st ORDER BY ...): rows arrive out of time order. */
static const char *const SUB_ORDER[3] = {"v", "d DESC", "ts DESC"};

typedef struct query {
    int source;           /* S_*: FROM st, FROM d<child>, FROM (SELECT * FROM st) */
    int child;
    int sub_order;        /* S_SORTED: index into SUB_ORDER */
    bool raw;             /* SELECT ts, tbname, v, d, loc: rows, no aggregation */
    bool distinct;        /* SELECT DISTINCT keys (no aggregates, no window) */
    int keys;             /* K_* */
    bool partition;       /* keys written as PARTITION BY (always with a window) */
    bool win;
    int64_t iv, sl, off;  /* ms */
    int naggs;
    int agg[8];           /* A_* */
    int arg[8];           /* 0: v, 1: d */
    bool ts_range;
    int64_t lo, hi;       /* ts >= lo AND ts < hi */
    bool ts_as_string;
    int pred;             /* P_* */
    int pk;               /* the predicate's constant */
    int pk2;
    bool having;
    int having_k;         /* HAVING count(*) > having_k */
    bool order;
    bool desc[4];         /* direction of each ORDER BY key */
    bool has_limit;       /* LIMIT limit OFFSET offset (only with ORDER BY) */
    int limit, offset;
    char sql[1024];
} query;

static int nkeys_of(int keys)
{
    return keys == K_NONE ? 0 : keys == K_LOC_GID ? 2 : 1;
}

static const char *key_text(int keys, int i)
{
    switch (keys) {
    case K_LOC: return "loc";
    case K_GID: return "gid";
    case K_TBNAME: return "tbname";
    case K_LOC_GID: return i == 0 ? "loc" : "gid";
    case K_VMOD: return "v % 3";
    default: return "";
    }
}

static void dur_text(int64_t ms, char *buf, size_t n)
{
    if (ms % 60000 == 0)
        snprintf(buf, n, "%lldm", (long long)(ms / 60000));
    else if (ms % 1000 == 0)
        snprintf(buf, n, "%llds", (long long)(ms / 1000));
    else
        snprintf(buf, n, "%llda", (long long)ms);
}

static void ts_text(const query *q, int64_t ts, char *buf, size_t n)
{
    if (!q->ts_as_string) {
        snprintf(buf, n, "%lld", (long long)ts);
        return;
    }
    /* T0 is midnight of 2025-01-01; offsets stay within the day. */
    int64_t off = ts - T0;
    snprintf(buf, n, "'2025-01-01 %02d:%02d:%02d.%03d'", (int)(off / 3600000),
             (int)(off / 60000 % 60), (int)(off / 1000 % 60), (int)(off % 1000));
}

static void build_sql(query *q)
{
    char *s = q->sql;
    size_t n = sizeof(q->sql), at = 0;
#define PUT(...) (at += (size_t)snprintf(s + at, n - at, __VA_ARGS__))
    int nk = nkeys_of(q->keys);
    if (q->raw) {
        PUT("SELECT ts, tbname, v, d, loc");
    } else if (q->distinct) {
        PUT("SELECT DISTINCT ");
        for (int i = 0; i < nk; i++)
            PUT("%s%s", i ? ", " : "", key_text(q->keys, i));
    } else {
        PUT("SELECT ");
        for (int i = 0; i < nk; i++)
            PUT("%s, ", key_text(q->keys, i));
        if (q->win)
            PUT("_wstart, _wend, _wduration, ");
        for (int j = 0; j < q->naggs; j++) {
            if (q->agg[j] == A_COUNT_STAR)
                PUT("%scount(*)", j ? ", " : "");
            else
                PUT("%s%s(%s)", j ? ", " : "", AGG_NAMES[q->agg[j]], q->arg[j] ? "d" : "v");
        }
    }
    if (q->source == S_CHILD)
        PUT(" FROM d%d", q->child);
    else if (q->source == S_SUBQUERY)
        PUT(" FROM (SELECT * FROM st)");
    else if (q->source == S_SORTED)
        PUT(" FROM (SELECT * FROM st ORDER BY %s)", SUB_ORDER[q->sub_order]);
    else
        PUT(" FROM st");
    bool where = false;
    if (q->ts_range) {
        char lo[64], hi[64];
        ts_text(q, q->lo, lo, sizeof(lo));
        ts_text(q, q->hi, hi, sizeof(hi));
        PUT(" WHERE ts >= %s AND ts < %s", lo, hi);
        where = true;
    }
    if (q->pred != P_NONE) {
        PUT(where ? " AND " : " WHERE ");
        switch (q->pred) {
        case P_VGT: PUT("v > %d", q->pk); break;
        case P_VLE: PUT("v <= %d", q->pk); break;
        case P_DLT: PUT("d < %.1f", (double)(q->pk / 10) + 0.5); break;
        case P_VNOTNULL: PUT("v IS NOT NULL"); break;
        case P_DNULL: PUT("d IS NULL"); break;
        case P_LOC: PUT("loc = '%s'", LOCS[q->pk & 3]); break;
        case P_LOCIN: PUT("loc IN ('%s', '%s')", LOCS[q->pk & 3], LOCS[q->pk2 & 3]); break;
        case P_GID: PUT("gid = %d", q->pk & 3); break;
        case P_TBNAME: PUT("tbname = 'd%d'", (q->pk & 0xffff) % NTABLES); break;
        case P_VBETWEEN: PUT("v BETWEEN %d AND %d", q->pk, q->pk2); break;
        }
    }
    if (nk > 0 && !q->distinct && !q->raw) {
        PUT(q->partition ? " PARTITION BY " : " GROUP BY ");
        for (int i = 0; i < nk; i++)
            PUT("%s%s", i ? ", " : "", key_text(q->keys, i));
    }
    if (q->win) {
        char iv[32], sl[32], off[32];
        dur_text(q->iv, iv, sizeof(iv));
        dur_text(q->sl, sl, sizeof(sl));
        dur_text(q->off, off, sizeof(off));
        if (q->off)
            PUT(" INTERVAL(%s, %s)", iv, off);
        else
            PUT(" INTERVAL(%s)", iv);
        if (q->sl != q->iv)
            PUT(" SLIDING(%s)", sl);
    }
    if (q->having)
        PUT(" HAVING count(*) > %d", q->having_k);
    if (q->order && q->raw) {
        PUT(" ORDER BY ts%s, tbname%s", q->desc[0] ? " DESC" : "", q->desc[1] ? " DESC" : "");
    } else if (q->order && (nk > 0 || q->win)) {
        PUT(" ORDER BY ");
        int k = 0;
        for (int i = 0; i < nk; i++, k++)
            PUT("%s%s%s", k ? ", " : "", key_text(q->keys, i), q->desc[k] ? " DESC" : "");
        if (q->win)
            PUT("%s_wstart%s", k ? ", " : "", q->desc[k] ? " DESC" : "");
    }
    if (q->has_limit)
        PUT(" LIMIT %d OFFSET %d", q->limit, q->offset);
#undef PUT
    assert_true(at < n);
}

/* Window shapes: {interval, sliding, offset} in ms. */
static const int64_t WINS[][3] = {
    {1000, 1000, 0},   {1000, 500, 0},   {7000, 7000, 0},   {7000, 2000, 0},
    {7000, 3000, 1000}, {30000, 30000, 0}, {30000, 10000, 0}, {30000, 7000, 0},
    {60000, 60000, 0}, {60000, 15000, 0}, {60000, 60000, 25000}, {7000, 7000, 3000},
};
#define NWINS ((int)(sizeof(WINS) / sizeof(WINS[0])))

/* Generates query number i: the first ones cover every (keys, window) pair. */
static void gen_query(query *q, int i)
{
    memset(q, 0, sizeof(*q));
    int wsel;
    if (i < K__COUNT * (NWINS + 1)) {
        q->keys = i % K__COUNT;
        wsel = i / K__COUNT - 1; /* -1: no window */
    } else {
        q->keys = rnd_int(0, K__COUNT - 1);
        wsel = rnd_int(-1, NWINS - 1);
    }
    if (wsel >= 0) {
        q->win = true;
        q->iv = WINS[wsel][0];
        q->sl = WINS[wsel][1];
        q->off = WINS[wsel][2];
    }
    /* Keys with a window must be PARTITION BY; without, either spelling. */
    q->partition = q->win || rnd_pct(50);
    q->naggs = rnd_int(2, 7);
    for (int j = 0; j < q->naggs; j++) {
        q->agg[j] = rnd_int(0, A__COUNT - 1);
        q->arg[j] = rnd_int(0, 1);
    }
    if (rnd_pct(40)) {
        q->ts_range = true;
        q->lo = T0 + 10 * (int64_t)rnd_int(0, SPAN / 10);
        q->hi = q->lo + 10 * (int64_t)rnd_int(1, SPAN / 10);
        if (rnd_pct(20))
            q->lo += rnd_int(1, 9); /* a bound between rows */
        q->ts_as_string = rnd_pct(50);
    }
    if (rnd_pct(60)) {
        q->pred = rnd_int(1, P__COUNT - 1);
        q->pk = rnd_int(-900, 900);
        q->pk2 = q->pk + rnd_int(0, 800);
        if (q->pred == P_LOCIN || q->pred == P_LOC || q->pred == P_GID || q->pred == P_TBNAME) {
            q->pk = rnd_int(0, 1000);
            q->pk2 = rnd_int(0, 1000);
        }
    }
    if (rnd_pct(20)) {
        q->having = true;
        q->having_k = rnd_int(0, 30);
    }
    /* Other sources, DISTINCT and plain rows, on some of the random queries. */
    if (i >= K__COUNT * (NWINS + 1)) {
        int r = rnd_int(0, 99);
        if (r < 15) {
            q->source = S_CHILD;
            q->child = rnd_int(0, NTABLES - 1);
        } else if (r < 45 && q->keys != K_TBNAME) {
            q->source = r < 30 ? S_SUBQUERY : S_SORTED;
            q->sub_order = rnd_int(0, 2);
            if (q->pred == P_TBNAME)
                q->pred = P_NONE;
        }
        r = rnd_int(0, 99);
        if (r < 12) {
            q->raw = true;
            q->keys = K_NONE;
            q->win = false;
            q->having = false;
            q->naggs = 0;
            if (q->source == S_SUBQUERY || q->source == S_SORTED)
                q->source = S_SUPER; /* tbname is not a column of the subquery */
        } else if (r < 24 && q->keys != K_NONE) {
            q->distinct = true;
            q->win = false;
            q->having = false;
            q->naggs = 0;
        }
    }
    if (rnd_pct(35) && (q->keys != K_NONE || q->win || q->raw)) {
        q->order = true;
        for (int k = 0; k < 4; k++)
            q->desc[k] = rnd_pct(50);
        if (rnd_pct(40)) {
            q->has_limit = true;
            q->limit = rnd_int(0, 300);
            q->offset = rnd_pct(50) ? 0 : rnd_int(0, 200);
        }
    }
    build_sql(q);
}

/* ------------------------------------------------------------ result cells */

enum { C_NULL, C_INT, C_DBL, C_STR };

typedef struct cell {
    int kind;
    int64_t i;
    double d;
    double mag;     /* reference doubles: magnitude of the inputs, for the tolerance */
    const char *s;  /* points into the result block or the tables */
    uint32_t len;
} cell;

typedef struct rowset {
    int ncols;
    int nrows, cap;
    cell *cells;    /* nrows * ncols */
} rowset;

static cell *rs_row(rowset *r, int i)
{
    return r->cells + (size_t)i * (size_t)r->ncols;
}

static cell *rs_add(rowset *r)
{
    if (r->nrows == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 256;
        r->cells = realloc(r->cells, sizeof(cell) * (size_t)r->cap * (size_t)r->ncols);
        assert_non_null(r->cells);
    }
    cell *c = rs_row(r, r->nrows++);
    memset(c, 0, sizeof(cell) * (size_t)r->ncols);
    return c;
}

static void rs_from_block(rowset *r, const sl_block *b)
{
    r->ncols = (int)b->ncols;
    for (uint32_t i = 0; i < b->nrows; i++) {
        cell *row = rs_add(r);
        for (uint32_t c = 0; c < b->ncols; c++) {
            const sl_column *col = &b->cols[c];
            cell *x = &row[c];
            if (sl_column_is_null(col, i)) {
                x->kind = C_NULL;
            } else if (sl_type_is_int(col->type) || col->type == SL_T_TIMESTAMP) {
                x->kind = C_INT;
                x->i = sl_column_get_i64(col, i);
            } else if (sl_type_is_float(col->type)) {
                x->kind = C_DBL;
                x->d = sl_column_get_f64(col, i);
            } else if (sl_type_is_var(col->type)) {
                x->kind = C_STR;
                x->s = sl_column_get_str(col, i, &x->len);
            } else {
                fail_msg("unexpected result type %s", sl_type_name(col->type));
            }
        }
    }
}

static void fmt_cell(const cell *c, char *buf, size_t n)
{
    switch (c->kind) {
    case C_NULL: snprintf(buf, n, "NULL"); break;
    case C_INT: snprintf(buf, n, "%lld", (long long)c->i); break;
    case C_DBL: snprintf(buf, n, "%.17g", c->d); break;
    default: snprintf(buf, n, "'%.*s'", (int)c->len, c->s); break;
    }
}

static void fmt_row(const cell *row, int ncols, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    for (int c = 0; c < ncols && at < n; c++) {
        char x[96];
        fmt_cell(&row[c], x, sizeof(x));
        at += (size_t)snprintf(buf + at, n - at, "%s%s", c ? " | " : "", x);
    }
}

/* Orders two cells of one column: NULL first, then by value. */
static int cell_cmp(const cell *a, const cell *b)
{
    if (a->kind == C_NULL || b->kind == C_NULL)
        return (a->kind != C_NULL) - (b->kind != C_NULL);
    if (a->kind == C_STR) {
        uint32_t m = a->len < b->len ? a->len : b->len;
        int r = memcmp(a->s, b->s, m);
        return r ? (r < 0 ? -1 : 1) : (a->len > b->len) - (a->len < b->len);
    }
    if (a->kind == C_INT)
        return (a->i > b->i) - (a->i < b->i);
    return (a->d > b->d) - (a->d < b->d);
}

static bool cell_eq(const cell *got, const cell *want)
{
    if (got->kind != want->kind)
        return false;
    switch (want->kind) {
    case C_NULL: return true;
    case C_INT: return got->i == want->i;
    case C_STR: return got->len == want->len && memcmp(got->s, want->s, got->len) == 0;
    default: {
        double scale = fabs(want->d);
        if (want->mag > scale)
            scale = want->mag;
        if (scale < 1.0)
            scale = 1.0;
        return fabs(got->d - want->d) <= 1e-9 * scale;
    }
    }
}

/* Sorting context: the first nsort columns, with directions (NULLs first ascending). */
static int g_nsort;
static const bool *g_desc;

static int row_cmp(const void *x, const void *y)
{
    const cell *a = x, *b = y;
    for (int c = 0; c < g_nsort; c++) {
        int r = cell_cmp(&a[c], &b[c]);
        if (r != 0)
            return g_desc && g_desc[c] ? -r : r;
    }
    return 0;
}

/* Sorts a rowset's rows (cells move row by row). */
static void rs_sort(rowset *r, int nsort, const bool *desc)
{
    if (r->nrows < 2)
        return;
    g_nsort = nsort;
    g_desc = desc;
    /* qsort on whole rows: rows are fixed-size arrays of cells. */
    qsort(r->cells, (size_t)r->nrows, sizeof(cell) * (size_t)r->ncols, row_cmp);
}

/* ------------------------------------------------------------ the reference */

/* Value of key i of the query for row r. */
static cell key_cell(const query *q, int i, const rrow *r)
{
    cell c = {.kind = C_NULL};
    const rtable *tb = &g_tabs[r->tab];
    const char *k = key_text(q->keys, i);
    if (strcmp(k, "loc") == 0) {
        c.kind = C_STR;
        c.s = tb->loc;
        c.len = (uint32_t)strlen(tb->loc);
    } else if (strcmp(k, "gid") == 0) {
        if (!tb->gid_null) {
            c.kind = C_INT;
            c.i = tb->gid;
        }
    } else if (strcmp(k, "tbname") == 0) {
        c.kind = C_STR;
        c.s = tb->name;
        c.len = (uint32_t)strlen(tb->name);
    } else if (!r->v_null) { /* v % 3: the remainder takes the dividend's sign */
        c.kind = C_INT;
        c.i = r->v % 3;
    }
    return c;
}

static bool ref_where(const query *q, const rrow *r)
{
    const rtable *tb = &g_tabs[r->tab];
    if (q->source == S_CHILD && r->tab != q->child)
        return false;
    if (q->ts_range && !(r->ts >= q->lo && r->ts < q->hi))
        return false;
    switch (q->pred) {
    case P_VGT: return !r->v_null && r->v > q->pk;
    case P_VLE: return !r->v_null && r->v <= q->pk;
    case P_DLT: return !r->d_null && r->d < (double)(q->pk / 10) + 0.5;
    case P_VNOTNULL: return !r->v_null;
    case P_DNULL: return r->d_null;
    case P_LOC: return strcmp(tb->loc, LOCS[q->pk & 3]) == 0;
    case P_LOCIN:
        return strcmp(tb->loc, LOCS[q->pk & 3]) == 0 || strcmp(tb->loc, LOCS[q->pk2 & 3]) == 0;
    case P_GID: return !tb->gid_null && tb->gid == (q->pk & 3);
    case P_TBNAME: return r->tab == (q->pk & 0xffff) % NTABLES;
    case P_VBETWEEN: return !r->v_null && r->v >= q->pk && r->v <= q->pk2;
    default: return true;
    }
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t d = a / b;
    if ((a % b) != 0 && ((a < 0) != (b < 0)))
        d--;
    return d;
}

/* One aggregate over the rows idx[0..n) (scan order). */
static cell ref_agg(int agg, int arg, const int *idx, int n)
{
    cell c = {.kind = C_NULL};
    if (agg == A_COUNT_STAR) {
        c.kind = C_INT;
        c.i = n;
        return c;
    }
    int64_t cnt = 0, isum = 0;
    double dsum = 0, amag = 0;
    bool has = false;
    double dmin = 0, dmax = 0;
    int64_t imin = 0, imax = 0;
    int64_t first_ts = 0, last_ts = 0, lastrow_ts = 0;
    const rrow *first = NULL, *last = NULL, *lastrow = NULL;
    for (int k = 0; k < n; k++) {
        const rrow *r = &g_rows[idx[k]];
        bool null = arg ? r->d_null : r->v_null;
        if (lastrow == NULL || r->ts >= lastrow_ts) {
            lastrow = r;
            lastrow_ts = r->ts;
        }
        if (null)
            continue;
        cnt++;
        if (arg) {
            dsum += r->d;
            amag += fabs(r->d);
            if (!has || r->d < dmin)
                dmin = r->d;
            if (!has || r->d > dmax)
                dmax = r->d;
        } else {
            isum += r->v;
            amag += fabs((double)r->v);
            if (!has || r->v < imin)
                imin = r->v;
            if (!has || r->v > imax)
                imax = r->v;
        }
        has = true;
        if (first == NULL || r->ts < first_ts) {
            first = r;
            first_ts = r->ts;
        }
        if (last == NULL || r->ts >= last_ts) {
            last = r;
            last_ts = r->ts;
        }
    }
    if (agg == A_COUNT) {
        c.kind = C_INT;
        c.i = cnt;
        return c;
    }
    const rrow *pick = agg == A_FIRST ? first : agg == A_LAST ? last : lastrow;
    if (agg == A_FIRST || agg == A_LAST || agg == A_LAST_ROW) {
        if (pick == NULL || (arg ? pick->d_null : pick->v_null))
            return c;
        if (arg) {
            c.kind = C_DBL;
            c.d = pick->d;
        } else {
            c.kind = C_INT;
            c.i = pick->v;
        }
        return c;
    }
    if (!has)
        return c;
    switch (agg) {
    case A_SUM:
        if (arg) {
            c.kind = C_DBL;
            c.d = dsum;
            c.mag = amag;
        } else {
            c.kind = C_INT;
            c.i = isum;
        }
        return c;
    case A_AVG:
        c.kind = C_DBL;
        c.d = arg ? dsum / (double)cnt : (double)isum / (double)cnt;
        c.mag = amag / (double)cnt;
        return c;
    case A_MIN:
    case A_MAX:
        if (arg) {
            c.kind = C_DBL;
            c.d = agg == A_MIN ? dmin : dmax;
        } else {
            c.kind = C_INT;
            c.i = agg == A_MIN ? imin : imax;
        }
        return c;
    case A_SPREAD:
        c.kind = C_DBL;
        c.d = arg ? dmax - dmin : (double)(imax - imin);
        c.mag = arg ? fabs(dmax) + fabs(dmin) : 0;
        return c;
    case A_STDDEV: {
        double mean = (arg ? dsum : (double)isum) / (double)cnt, ss = 0, sq = 0;
        for (int k = 0; k < n; k++) {
            const rrow *r = &g_rows[idx[k]];
            if (arg ? r->d_null : r->v_null)
                continue;
            double x = arg ? r->d : (double)r->v;
            ss += (x - mean) * (x - mean);
            sq += x * x;
        }
        c.kind = C_DBL;
        c.d = sqrt(ss / (double)cnt);
        c.mag = sqrt(sq / (double)cnt);
        return c;
    }
    }
    return c;
}

/* Arrival order for S_SORTED: a stable sort of the scan order (NULLs first ascending). */
static int g_sub_order;

static int arrival_cmp(const void *x, const void *y)
{
    int i = *(const int *)x, j = *(const int *)y;
    const rrow *a = &g_rows[i], *b = &g_rows[j];
    int r = 0;
    if (g_sub_order == 0) {
        if (a->v_null || b->v_null)
            r = (!a->v_null) - (!b->v_null);
        else
            r = (a->v > b->v) - (a->v < b->v);
    } else if (g_sub_order == 1) {
        if (a->d_null || b->d_null)
            r = (!a->d_null) - (!b->d_null);
        else
            r = (a->d > b->d) - (a->d < b->d);
        r = -r;
    } else {
        r = -((a->ts > b->ts) - (a->ts < b->ts));
    }
    return r != 0 ? r : (i > j) - (i < j);
}

static void arrival_order(const query *q, int *order)
{
    for (int i = 0; i < g_nrows; i++)
        order[i] = i;
    if (q->source != S_SORTED)
        return;
    g_sub_order = q->sub_order;
    qsort(order, (size_t)g_nrows, sizeof(int), arrival_cmp);
}

typedef struct rgroup {
    cell key[2];
    int *idx;
    int n, cap;
} rgroup;

/* Computes the expected rows of q into out (ncols set by the caller). */
static void reference(const query *q, rowset *out)
{
    int nk = nkeys_of(q->keys);
    if (q->raw) {
        for (int i = 0; i < g_nrows; i++) {
            const rrow *r = &g_rows[i];
            if (!ref_where(q, r))
                continue;
            const rtable *tb = &g_tabs[r->tab];
            cell *row = rs_add(out);
            row[0] = (cell){.kind = C_INT, .i = r->ts};
            row[1] = (cell){.kind = C_STR, .s = tb->name, .len = (uint32_t)strlen(tb->name)};
            row[2] = r->v_null ? (cell){.kind = C_NULL} : (cell){.kind = C_INT, .i = r->v};
            row[3] = r->d_null ? (cell){.kind = C_NULL} : (cell){.kind = C_DBL, .d = r->d};
            row[4] = (cell){.kind = C_STR, .s = tb->loc, .len = (uint32_t)strlen(tb->loc)};
        }
        return;
    }
    rgroup *groups = calloc(g_nrows + 1, sizeof(rgroup));
    assert_non_null(groups);
    int ngroups = 0;
    /* Without keys there is one group, even over no rows (no window: one output row). */
    if (nk == 0)
        ngroups = 1;
    int *order = malloc(sizeof(int) * (size_t)(g_nrows + 1));
    assert_non_null(order);
    arrival_order(q, order);
    for (int o = 0; o < g_nrows; o++) {
        int i = order[o];
        const rrow *r = &g_rows[i];
        if (!ref_where(q, r))
            continue;
        cell key[2];
        for (int k = 0; k < nk; k++)
            key[k] = key_cell(q, k, r);
        int g = 0;
        if (nk > 0) {
            for (g = 0; g < ngroups; g++) {
                bool same = true;
                for (int k = 0; k < nk && same; k++)
                    same = cell_cmp(&groups[g].key[k], &key[k]) == 0 &&
                           groups[g].key[k].kind == key[k].kind;
                if (same)
                    break;
            }
            if (g == ngroups) {
                memcpy(groups[g].key, key, sizeof(key));
                ngroups++;
            }
        }
        rgroup *gr = &groups[g];
        if (gr->n == gr->cap) {
            gr->cap = gr->cap ? gr->cap * 2 : 64;
            gr->idx = realloc(gr->idx, sizeof(int) * (size_t)gr->cap);
            assert_non_null(gr->idx);
        }
        gr->idx[gr->n++] = i;
    }
    int *win = malloc(sizeof(int) * (size_t)(g_nrows + 1));
    assert_non_null(win);
    for (int g = 0; g < ngroups; g++) {
        rgroup *gr = &groups[g];
        if (!q->win) {
            if (q->having && gr->n <= q->having_k)
                continue;
            cell *row = rs_add(out);
            for (int k = 0; k < nk; k++)
                row[k] = gr->key[k];
            for (int j = 0; j < q->naggs; j++)
                row[nk + j] = ref_agg(q->agg[j], q->arg[j], gr->idx, gr->n);
            continue;
        }
        if (gr->n == 0)
            continue;
        int64_t tmin = INT64_MAX, tmax = INT64_MIN;
        for (int k = 0; k < gr->n; k++) {
            int64_t t = g_rows[gr->idx[k]].ts;
            tmin = t < tmin ? t : tmin;
            tmax = t > tmax ? t : tmax;
        }
        /* Every window start off + m*sl from before the first row to the last row. */
        int64_t w = floor_div(tmin - q->iv - q->off, q->sl) * q->sl + q->off;
        for (; w <= tmax; w += q->sl) {
            int n = 0;
            for (int k = 0; k < gr->n; k++) {
                int64_t t = g_rows[gr->idx[k]].ts;
                if (t >= w && t < w + q->iv)
                    win[n++] = gr->idx[k];
            }
            if (n == 0 || (q->having && n <= q->having_k))
                continue;
            cell *row = rs_add(out);
            for (int k = 0; k < nk; k++)
                row[k] = gr->key[k];
            row[nk] = (cell){.kind = C_INT, .i = w};
            row[nk + 1] = (cell){.kind = C_INT, .i = w + q->iv};
            row[nk + 2] = (cell){.kind = C_INT, .i = q->iv};
            for (int j = 0; j < q->naggs; j++)
                row[nk + 3 + j] = ref_agg(q->agg[j], q->arg[j], win, n);
        }
    }
    free(win);
    free(order);
    for (int g = 0; g < ngroups; g++)
        free(groups[g].idx);
    free(groups);
}

/* ------------------------------------------------------------ running and comparing */

static bool compare(const query *q, const char *where, rowset *got, rowset *want)
{
    int nk = q->raw ? 2 : nkeys_of(q->keys) + (q->win ? 1 : 0);
    if (q->order) {
        rs_sort(want, nk, q->desc);
        if (q->has_limit) {
            int from = q->offset < want->nrows ? q->offset : want->nrows;
            int n = want->nrows - from < q->limit ? want->nrows - from : q->limit;
            memmove(want->cells, rs_row(want, from),
                    sizeof(cell) * (size_t)n * (size_t)want->ncols);
            want->nrows = n;
        }
    } else {
        rs_sort(got, nk, NULL);
        rs_sort(want, nk, NULL);
    }
    char a[1024], b[1024];
    if (got->ncols != want->ncols) {
        print_error("%s: %s\n  got %d columns, want %d\n", where, q->sql, got->ncols,
                    want->ncols);
        return false;
    }
    int n = got->nrows < want->nrows ? got->nrows : want->nrows;
    for (int i = 0; i <= n; i++) {
        if (i == n) {
            if (got->nrows == want->nrows)
                return true;
            print_error("%s: %s\n  got %d rows, want %d; first extra row #%d:\n", where, q->sql,
                        got->nrows, want->nrows, n);
            if (got->nrows > n) {
                fmt_row(rs_row(got, n), got->ncols, a, sizeof(a));
                print_error("  got:  %s\n", a);
            } else {
                fmt_row(rs_row(want, n), want->ncols, b, sizeof(b));
                print_error("  want: %s\n", b);
            }
            return false;
        }
        const cell *x = rs_row(got, i), *y = rs_row(want, i);
        for (int c = 0; c < got->ncols; c++) {
            if (!cell_eq(&x[c], &y[c])) {
                fmt_row(x, got->ncols, a, sizeof(a));
                fmt_row(y, want->ncols, b, sizeof(b));
                print_error("%s: %s\n  row %d of %d (got %d) differs in column %d:\n"
                            "  got:  %s\n  want: %s\n",
                            where, q->sql, i, want->nrows, got->nrows, c, a, b);
                return false;
            }
        }
    }
    return true;
}

static int ncols_of(const query *q)
{
    if (q->raw)
        return 5;
    return nkeys_of(q->keys) + (q->win ? 3 : 0) + q->naggs;
}

/* Runs q through the planner over the test catalog. */
static bool run_catalog(const query *q, const rowset *want0, bool const_tags, uint64_t seed)
{
    g_cat.const_tags = const_tags;
    g_cat.seed = seed;
    sl_parse_result *pr = NULL;
    sl_error err;
    sl_error_clear(&err);
    if (sl_parse(q->sql, strlen(q->sql), &pr, &err) != 0)
        fail_msg("parse of %s failed: %s", q->sql, err.msg);
    sl_plan_ctx ctx = {.catalog = {.ops = &rc_ops, .ud = &g_cat}, .db = "rdb",
                       .now_ms = T0 + 3600000};
    sl_plan *plan = NULL;
    int rc = sl_plan_select(pr->stmts[0]->u.select, &ctx, &plan, &err);
    sl_parse_result_free(pr);
    if (rc != 0) {
        print_error("catalog: %s\n  planning failed: %s\n", q->sql, err.msg);
        return false;
    }
    sl_block out;
    sl_block_init(&out);
    rc = sl_plan_collect(plan, &out, &err);
    sl_plan_free(plan);
    assert_int_equal(g_cat.open, 0);
    if (rc != 0) {
        print_error("catalog: %s\n  execution failed: %s\n", q->sql, err.msg);
        sl_block_fini(&out);
        return false;
    }
    rowset got = {0}, want = *want0;
    want.cells = malloc(sizeof(cell) * (size_t)(want0->nrows + 1) * (size_t)want0->ncols);
    assert_non_null(want.cells);
    if (want0->nrows > 0)
        memcpy(want.cells, want0->cells,
               sizeof(cell) * (size_t)want0->nrows * (size_t)want0->ncols);
    want.cap = want0->nrows + 1;
    rs_from_block(&got, &out);
    if (got.ncols == 0)
        got.ncols = ncols_of(q);
    bool ok = compare(q, const_tags ? "catalog" : "catalog (tags materialised)", &got, &want);
    free(got.cells);
    free(want.cells);
    sl_block_fini(&out);
    return ok;
}

/* Runs q through the embedded store. */
static bool run_memstore(const query *q, const rowset *want0)
{
    sl_result res;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_memstore_exec(g_ms, q->sql, &res, &err);
    if (rc != 0) {
        print_error("memstore: %s\n  failed: %s\n", q->sql, err.msg);
        return false;
    }
    rowset got = {0}, want = *want0;
    want.cells = malloc(sizeof(cell) * (size_t)(want0->nrows + 1) * (size_t)want0->ncols);
    assert_non_null(want.cells);
    if (want0->nrows > 0)
        memcpy(want.cells, want0->cells,
               sizeof(cell) * (size_t)want0->nrows * (size_t)want0->ncols);
    want.cap = want0->nrows + 1;
    rs_from_block(&got, &res.rows);
    if (got.ncols == 0)
        got.ncols = res.ncols;
    bool ok = compare(q, "memstore", &got, &want);
    free(got.cells);
    free(want.cells);
    sl_result_fini(&res);
    return ok;
}

#define NQUERIES 450

static void test_random_queries(void **state)
{
    (void)state;
    g_rng = 0xC0FFEE1234567ULL;
    int failed = 0, nrows = 0;
    for (int i = 0; i < NQUERIES; i++) {
        query q;
        gen_query(&q, i);
        rowset want = {.ncols = ncols_of(&q)};
        reference(&q, &want);
        nrows += want.nrows;
        bool ok = run_catalog(&q, &want, i % 3 != 2, rnd());
        if (ok)
            ok = run_memstore(&q, &want);
        free(want.cells);
        if (!ok && ++failed >= 5)
            break;
    }
    if (failed)
        fail_msg("%d of the generated queries gave wrong results", failed);
    /* The queries must not be vacuous. */
    assert_true(nrows > 10000);
}

/* A few fixed queries whose shape the generator does not produce. */
static void test_fixed_shapes(void **state)
{
    (void)state;
    /* Whole-table aggregate, checked against a direct computation. */
    query q;
    memset(&q, 0, sizeof(q));
    q.naggs = 8;
    int aggs[8] = {A_COUNT_STAR, A_COUNT, A_SUM, A_AVG, A_STDDEV, A_FIRST, A_LAST, A_SPREAD};
    for (int j = 0; j < 8; j++) {
        q.agg[j] = aggs[j];
        q.arg[j] = j % 2;
    }
    build_sql(&q);
    rowset want = {.ncols = ncols_of(&q)};
    reference(&q, &want);
    assert_int_equal(want.nrows, 1);
    assert_int_equal(want.cells[0].i, g_nrows);
    assert_true(run_catalog(&q, &want, true, 42));
    assert_true(run_memstore(&q, &want));
    free(want.cells);

    /* An empty range: one row of COUNT 0 and NULLs without keys; nothing with keys. */
    q.ts_range = true;
    q.lo = T0 + SPAN + 1000;
    q.hi = q.lo + 1000;
    build_sql(&q);
    want = (rowset){.ncols = ncols_of(&q)};
    reference(&q, &want);
    assert_int_equal(want.nrows, 1);
    assert_true(run_catalog(&q, &want, true, 43));
    assert_true(run_memstore(&q, &want));
    free(want.cells);
    q.keys = K_TBNAME;
    q.partition = true;
    q.win = true;
    q.iv = q.sl = 1000;
    build_sql(&q);
    want = (rowset){.ncols = ncols_of(&q)};
    reference(&q, &want);
    assert_int_equal(want.nrows, 0);
    assert_true(run_catalog(&q, &want, false, 44));
    assert_true(run_memstore(&q, &want));
    free(want.cells);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_queries),
        cmocka_unit_test(test_fixed_shapes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
