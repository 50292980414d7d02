/*
 * test_changes_filter.c - filtered change-log reads (vnode-adapter/storage/changes_filter.h):
 * six child tables of one super table split over slots by group id, projection, PRE_FILTER
 * on a column, a tag and tbname, updates, deletes and drops passing to the right slot,
 * cursors that move past filtered-out versions, the bounds, and filters refused.
 *
 * Expected group ids are computed here from the documented encoding (value.h: a type byte,
 * then the value) hashed with sl_hash_bytes, not through the code under test; expected rows
 * are worked out by hand from the data below.
 *
 * Data (versions 1..8, one write call each):
 *   v1..v6  child tk (uid 10+k) of super table 100, tags loc = k odd ? "n" : "s", g = k;
 *           rows ts 1000+i, v = 10k+i, s = "r<i>" for i = 0, 1, 2
 *   v7      normal table n1 (uid 20): ts 5, x 7
 *   v8      o1 (uid 30), a child of another super table 200: ts 5, v 1, s "o"
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>

#include "common/types/value.h"
#include "common/util/keymap.h"
#include "test_vstore_util.h"
#include "vnode-adapter/storage/changes_filter.h"

static const sl_vs_column COLS[] = {
    {"ts", SL_T_TIMESTAMP, 0}, {"v", SL_T_BIGINT, 0}, {"s", SL_T_VARCHAR, 8}};
static const sl_vs_column TAGS[] = {{"loc", SL_T_VARCHAR, 8}, {"g", SL_T_INT, 0}};
static const sl_field FCOLS[] = {
    {"ts", SL_T_TIMESTAMP, 0}, {"v", SL_T_BIGINT, 0}, {"s", SL_T_VARCHAR, 8}};
static const sl_field FTAGS[] = {{"loc", SL_T_VARCHAR, 8}, {"g", SL_T_INT, 0}};
static const sl_table_meta STABLE = {.kind = SL_TABLE_SUPER, .db = "db", .name = "st",
                                     .precision = SL_PREC_MS, .ncols = 3, .cols = FCOLS,
                                     .ntags = 2, .tags = FTAGS};

typedef struct fx {
    tv_fix tv;
    sl_vstore *vs;
    sl_vs_tcache *tc;
} fx;

static void put_child(sl_vstore *vs, uint64_t uid, const char *name, uint64_t suid,
                      const char *loc, int32_t g)
{
    sl_block tv;
    sl_block_init(&tv);
    assert_int_equal(sl_block_add_column(&tv, SL_T_VARCHAR, 8), 0);
    assert_int_equal(sl_block_add_column(&tv, SL_T_INT, 0), 1);
    assert_int_equal(sl_column_append_str(&tv.cols[0], loc, (uint32_t)strlen(loc)), 0);
    assert_int_equal(sl_column_append_i64(&tv.cols[1], g), 0);
    sl_block_seal(&tv);
    sl_vs_table_def d = {.uid = uid, .name = name, .kind = SL_VS_TABLE_CHILD, .suid = suid,
                         .precision = SL_PREC_MS, .ncols = 3, .cols = COLS, .ntags = 2,
                         .tags = TAGS, .tag_values = &tv};
    sl_error err = {0};
    if (sl_vstore_put_table(vs, &d, false, &err) != 0)
        fail_msg("put_table %s: %s", name, err.msg);
    sl_block_fini(&tv);
}

/* Writes rows (ts[i], v[i], s[i]) to a (ts, v, s) table; returns the version. */
static uint64_t write_rows(sl_vstore *vs, uint64_t uid, int n, const int64_t *ts,
                           const int64_t *v, const char *const *s)
{
    sl_block b;
    sl_block_init(&b);
    assert_int_equal(sl_block_add_column(&b, SL_T_TIMESTAMP, 0), 0);
    assert_int_equal(sl_block_add_column(&b, SL_T_BIGINT, 0), 1);
    assert_int_equal(sl_block_add_column(&b, SL_T_VARCHAR, 8), 2);
    for (int i = 0; i < n; i++) {
        assert_int_equal(sl_column_append_i64(&b.cols[0], ts[i]), 0);
        assert_int_equal(sl_column_append_i64(&b.cols[1], v[i]), 0);
        assert_int_equal(sl_column_append_str(&b.cols[2], s[i], (uint32_t)strlen(s[i])), 0);
    }
    sl_block_seal(&b);
    sl_vs_write_item it = {.uid = uid, .rows = &b};
    uint64_t ver = 0;
    sl_error err = {0};
    if (sl_vstore_write(vs, &it, 1, false, &ver, &err) != 0)
        fail_msg("write: %s", err.msg);
    sl_block_fini(&b);
    return ver;
}

static char NAMES[7][4] = {"", "t1", "t2", "t3", "t4", "t5", "t6"};

static int setup(void **state)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    void *tvs = NULL;
    assert_int_equal(tv_setup(&tvs), 0);
    f->tv = *(tv_fix *)tvs;
    free(tvs);
    f->vs = tv_open(f->tv.path, NULL);
    for (int k = 1; k <= 6; k++)
        put_child(f->vs, 10 + (uint64_t)k, NAMES[k], 100, k % 2 ? "n" : "s", k);
    tv_put_normal(f->vs, 20, "n1", COLS, 2);
    put_child(f->vs, 30, "o1", 200, "x", 0);
    for (int k = 1; k <= 6; k++) {
        int64_t ts[3] = {1000, 1001, 1002}, v[3] = {10 * k, 10 * k + 1, 10 * k + 2};
        const char *s[3] = {"r0", "r1", "r2"};
        assert_int_equal(write_rows(f->vs, 10 + (uint64_t)k, 3, ts, v, s), (uint64_t)k);
    }
    {
        /* n1 has columns ts, v only: write through a two-column block. */
        sl_block b;
        sl_block_init(&b);
        sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
        sl_block_add_column(&b, SL_T_BIGINT, 0);
        sl_column_append_i64(&b.cols[0], 5);
        sl_column_append_i64(&b.cols[1], 7);
        sl_block_seal(&b);
        sl_vs_write_item it = {.uid = 20, .rows = &b};
        uint64_t ver;
        TV_OK(sl_vstore_write(f->vs, &it, 1, false, &ver, &err_));
        assert_int_equal(ver, 7);
        sl_block_fini(&b);
    }
    int64_t ts = 5, v = 1;
    const char *s = "o";
    assert_int_equal(write_rows(f->vs, 30, 1, &ts, &v, &s), 8);
    assert_int_equal(sl_vs_tcache_open(&f->tc, f->vs), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    sl_vs_tcache_close(f->tc);
    sl_vstore_close(f->vs);
    tv_fix *t = malloc(sizeof(*t));
    *t = f->tv;
    void *p = t;
    tv_teardown(&p);
    free(f);
    return 0;
}

/* ---- independent group ids ------------------------------------------------------------ */

static uint64_t gid_tbname(const char *name)
{
    uint8_t enc[64];
    uint32_t n = (uint32_t)strlen(name);
    enc[0] = SL_T_VARCHAR;
    enc[1] = (uint8_t)n;
    enc[2] = enc[3] = enc[4] = 0;
    memcpy(enc + 5, name, n);
    return sl_hash_bytes(enc, 5 + n);
}

static uint64_t gid_int(int64_t x)
{
    uint8_t enc[9];
    enc[0] = SL_T_INT;
    for (int i = 0; i < 8; i++)
        enc[1 + i] = (uint8_t)((uint64_t)x >> (8 * i));
    return sl_hash_bytes(enc, sizeof(enc));
}

/* ---- helpers -------------------------------------------------------------------------- */

static sl_vs_cfilter *compile(const char *pre, const int32_t *group, uint32_t ngroup,
                              uint32_t nslots, const uint8_t *slots, const int32_t *proj,
                              uint32_t nproj)
{
    sl_vs_filter_spec sp = {.table_uid = 100, .ngroup = ngroup, .group = group,
                            .nslots = nslots, .slots = slots, .slots_len = (nslots + 7) / 8,
                            .nproj = nproj, .proj = proj, .pre_filter = pre,
                            .pre_filter_len = pre ? strlen(pre) : 0};
    sl_vs_cfilter *cf = NULL;
    sl_error err = {0};
    int rc = sl_vs_cfilter_compile(&sp, &STABLE, &cf, &err);
    if (rc != 0)
        fail_msg("compile '%s': %d %s", pre ? pre : "", rc, err.msg);
    return cf;
}

static sl_vs_fchanges rd(fx *f, sl_vs_cfilter *cf, uint64_t after, size_t mb, size_t me,
                         size_t scan)
{
    sl_vs_fchanges c;
    sl_error err = {0};
    int rc = sl_vs_changes_read_filtered(f->vs, f->tc, cf, after, mb, me, scan, &c, &err);
    if (rc != 0)
        fail_msg("read_filtered after %llu: %d %s", (unsigned long long)after, rc, err.msg);
    return c;
}

/* Checks a ROWS entry's ts column (column col) and kind column (last). */
static void assert_rows(const sl_vs_fchange *c, int col, const int64_t *ts, const int *kinds,
                        uint32_t n)
{
    assert_int_equal(c->kind, SL_VS_CHANGE_ROWS);
    if (c->rows.nrows != n)
        fail_msg("version %llu: %u rows, expected %u", (unsigned long long)c->version,
                 c->rows.nrows, n);
    assert_int_equal(c->count, n);
    const sl_column *k = &c->rows.cols[c->rows.ncols - 1];
    assert_int_equal(k->type, SL_T_TINYINT);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(sl_column_get_i64(&c->rows.cols[col], i), ts[i]);
        assert_int_equal(sl_column_get_i64(k, i), kinds ? kinds[i] : 1);
    }
}

/* ---- tests ---------------------------------------------------------------------------- */

/* Two readers with complementary slot bitmaps (tbname grouping) get every row once. */
static void test_slots_split(void **state)
{
    fx *f = *state;
    int32_t grp[1] = {SL_VS_GROUP_TBNAME};
    uint8_t s0[1] = {0x01}, s1[1] = {0x02};
    int slot[7], used[2] = {0, 0};
    for (int k = 1; k <= 6; k++) {
        slot[k] = (int)(gid_tbname(NAMES[k]) % 2);
        used[slot[k]]++;
    }
    /* The names split 6 tables over both slots (else the test would prove less). */
    assert_true(used[0] > 0 && used[1] > 0);
    int seen[7] = {0};
    for (int r = 0; r < 2; r++) {
        sl_vs_cfilter *cf = compile(NULL, grp, 1, 2, r == 0 ? s0 : s1, NULL, 0);
        sl_vs_fchanges c = rd(f, cf, 0, 0, 0, 0);
        assert_int_equal(c.last_version, 8);
        assert_false(c.more);
        assert_int_equal(c.n, (size_t)used[r]);
        uint64_t prev = 0;
        for (size_t i = 0; i < c.n; i++) {
            const sl_vs_fchange *e = &c.v[i];
            int k = (int)(e->uid - 10);
            assert_true(k >= 1 && k <= 6);
            assert_int_equal(slot[k], r);
            assert_true(e->version > prev);
            prev = e->version;
            assert_int_equal(e->version, (uint64_t)k);
            assert_string_equal(e->name, NAMES[k]);
            assert_true(e->group_id == gid_tbname(NAMES[k]));
            assert_false(e->unfiltered);
            /* Every column by default, then the kind column. */
            assert_int_equal(e->rows.ncols, 4);
            int64_t ts[3] = {1000, 1001, 1002};
            assert_rows(e, 0, ts, NULL, 3);
            for (uint32_t j = 0; j < 3; j++)
                assert_int_equal(sl_column_get_i64(&e->rows.cols[1], j), 10 * k + (int)j);
            seen[k]++;
        }
        sl_vs_fchanges_fini(&c);
        sl_vs_cfilter_free(cf);
    }
    for (int k = 1; k <= 6; k++)
        assert_int_equal(seen[k], 1);
    /* One group id hashed per table, not per row: the cache holds the 6 children plus the
     * two other tables it looked at (n1, o1). */
    assert_int_equal(sl_vs_tcache_size(f->tc), 8);
}

/* Projection: v, tag loc, tbname, ts; bounded to one entry per read. */
static void test_projection(void **state)
{
    fx *f = *state;
    int32_t proj[4] = {1, 3, SL_PROJ_TBNAME, 0};
    sl_vs_cfilter *cf = compile(NULL, NULL, 0, 0, NULL, proj, 4);
    sl_vs_fchanges c = rd(f, cf, 2, 0, 1, 0);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.last_version, 3);
    assert_true(c.more);
    const sl_vs_fchange *e = &c.v[0];
    assert_int_equal(e->uid, 13);
    assert_true(e->group_id == sl_hash_bytes("", 0)); /* no grouping: one group */
    assert_int_equal(e->rows.ncols, 5);
    assert_int_equal(e->rows.cols[0].type, SL_T_BIGINT);
    assert_int_equal(e->rows.cols[1].type, SL_T_VARCHAR);
    assert_int_equal(e->rows.cols[2].type, SL_T_VARCHAR);
    assert_int_equal(e->rows.cols[3].type, SL_T_TIMESTAMP);
    int64_t ts[3] = {1000, 1001, 1002};
    assert_rows(e, 3, ts, NULL, 3);
    for (uint32_t i = 0; i < 3; i++) {
        uint32_t len;
        assert_int_equal(sl_column_get_i64(&e->rows.cols[0], i), 30 + (int)i);
        const char *p = sl_column_get_str(&e->rows.cols[1], i, &len);
        assert_int_equal(len, 1);
        assert_memory_equal(p, "n", 1);
        p = sl_column_get_str(&e->rows.cols[2], i, &len);
        assert_int_equal(len, 2);
        assert_memory_equal(p, "t3", 2);
    }
    sl_vs_fchanges_fini(&c);
    /* A tag and a data column only (what a trigger on g reads). */
    int32_t proj2[2] = {4, 1};
    sl_vs_cfilter *cf2 = compile(NULL, NULL, 0, 0, NULL, proj2, 2);
    c = rd(f, cf2, 5, 0, 0, 0);
    assert_int_equal(c.n, 1); /* v6 only: v7 and v8 are other tables */
    assert_int_equal(c.last_version, 8);
    assert_int_equal(c.v[0].rows.cols[0].type, SL_T_INT);
    assert_int_equal(sl_column_get_i64(&c.v[0].rows.cols[0], 2), 6);
    assert_int_equal(sl_column_get_i64(&c.v[0].rows.cols[1], 2), 62);
    sl_vs_fchanges_fini(&c);
    sl_vs_cfilter_free(cf2);
    sl_vs_cfilter_free(cf);
}

/* PRE_FILTER on a data column. */
static void test_pre_filter_column(void **state)
{
    fx *f = *state;
    sl_vs_cfilter *cf = compile("v >= 21 AND v <> 41 AND v < 52", NULL, 0, 0, NULL, NULL, 0);
    sl_vs_fchanges c = rd(f, cf, 0, 0, 0, 0);
    /* t1 (10..12) and t6 (60..62) keep nothing; t2: 21, 22; t3: all; t4: 40, 42; t5: 50, 51. */
    assert_int_equal(c.n, 4);
    assert_int_equal(c.last_version, 8);
    int64_t t2[] = {1001, 1002}, t3[] = {1000, 1001, 1002}, t4[] = {1000, 1002},
            t5[] = {1000, 1001};
    assert_int_equal(c.v[0].uid, 12);
    assert_rows(&c.v[0], 0, t2, NULL, 2);
    assert_int_equal(c.v[1].uid, 13);
    assert_rows(&c.v[1], 0, t3, NULL, 3);
    assert_int_equal(c.v[2].uid, 14);
    assert_rows(&c.v[2], 0, t4, NULL, 2);
    assert_int_equal(sl_column_get_i64(&c.v[2].rows.cols[1], 1), 42);
    assert_int_equal(c.v[3].uid, 15);
    assert_rows(&c.v[3], 0, t5, NULL, 2);
    sl_vs_fchanges_fini(&c);
    sl_vs_cfilter_free(cf);
    /* A string column. */
    cf = compile("s = 'r1'", NULL, 0, 0, NULL, NULL, 0);
    c = rd(f, cf, 0, 0, 0, 0);
    assert_int_equal(c.n, 6);
    int64_t one[] = {1001};
    for (size_t i = 0; i < 6; i++)
        assert_rows(&c.v[i], 0, one, NULL, 1);
    sl_vs_fchanges_fini(&c);
    sl_vs_cfilter_free(cf);
}

/* PRE_FILTER on tags and tbname (constant per table). */
static void test_pre_filter_tag(void **state)
{
    fx *f = *state;
    sl_vs_cfilter *cf =
        compile("g % 2 = 0 AND loc = 's' AND tbname <> 't4'", NULL, 0, 0, NULL, NULL, 0);
    sl_vs_fchanges c = rd(f, cf, 0, 0, 0, 0);
    assert_int_equal(c.n, 2); /* t2, t6 */
    assert_int_equal(c.v[0].uid, 12);
    assert_int_equal(c.v[1].uid, 16);
    assert_int_equal(c.v[1].count, 3);
    sl_vs_fchanges_fini(&c);
    sl_vs_cfilter_free(cf);
    /* Mixed: a tag and a column, names in any case. */
    cf = compile("G = 3 OR (LOC = 'n' AND V = 52)", NULL, 0, 0, NULL, NULL, 0);
    c = rd(f, cf, 0, 0, 0, 0);
    assert_int_equal(c.n, 2); /* t3 all rows; t5 (loc n) the row v 52 */
    int64_t t3[] = {1000, 1001, 1002}, t5[] = {1002};
    assert_rows(&c.v[0], 0, t3, NULL, 3);
    assert_rows(&c.v[1], 0, t5, NULL, 1);
    sl_vs_fchanges_fini(&c);
    sl_vs_cfilter_free(cf);
}

/* Grouping by a tag: the group id is the hash of the tag value. */
static void test_group_by_tag(void **state)
{
    fx *f = *state;
    int32_t grp[1] = {1}; /* tag g */
    uint8_t bits[1] = {0};
    uint32_t nslots = 5;
    bits[0] = (uint8_t)(1u << (gid_int(3) % nslots));
    sl_vs_cfilter *cf = compile(NULL, grp, 1, nslots, bits, NULL, 0);
    uint64_t gid;
    assert_int_equal(sl_vs_cfilter_group_id(cf, f->tc, 13, &gid), 0);
    assert_true(gid == gid_int(3));
    assert_int_equal(sl_vs_cfilter_group_id(cf, f->tc, 99, &gid), SL_ENOTFOUND);
    sl_vs_fchanges c = rd(f, cf, 0, 0, 0, 0);
    /* Every table whose g lands in the same slot as g = 3. */
    size_t want = 0;
    for (int k = 1; k <= 6; k++)
        want += gid_int(k) % nslots == gid_int(3) % nslots;
    assert_int_equal(c.n, want);
    bool has3 = false;
    for (size_t i = 0; i < c.n; i++) {
        assert_true(c.v[i].group_id == gid_int((int64_t)c.v[i].uid - 10));
        has3 |= c.v[i].uid == 13;
    }
    assert_true(has3);
    sl_vs_fchanges_fini(&c);
    sl_vs_cfilter_free(cf);
    /* Two items: (tbname, loc) */
    int32_t grp2[2] = {SL_VS_GROUP_TBNAME, 0};
    cf = compile(NULL, grp2, 2, 0, NULL, NULL, 0);
    assert_int_equal(sl_vs_cfilter_group_id(cf, f->tc, 12, &gid), 0);
    uint8_t enc[] = {SL_T_VARCHAR, 2, 0, 0, 0, 't', '2', SL_T_VARCHAR, 1, 0, 0, 0, 's'};
    assert_true(gid == sl_hash_bytes(enc, sizeof(enc)));
    sl_vs_cfilter_free(cf);
}

/* Updates, deletes and drops reach the reader owning the table's slot, and only it. */
static void test_updates_deletes_drops(void **state)
{
    fx *f = *state;
    int64_t ts[2] = {1001, 2000}, v[2] = {99, 100};
    const char *s[2] = {"u", "i"};
    assert_int_equal(write_rows(f->vs, 11, 2, ts, v, s), 9); /* an update and an insert */
    uint64_t ver, n;
    TV_OK(sl_vstore_delete(f->vs, 12, 1000, 1001, false, &ver, &n, &err_));
    assert_int_equal(ver, 10);
    assert_int_equal(n, 2);
    assert_int_equal(sl_vs_tcache_note_drop(f->tc, 13), 0);
    TV_OK(sl_vstore_drop_table(f->vs, 13, false, &ver, &err_));
    assert_int_equal(ver, 11);
    assert_int_equal(sl_vs_tcache_note_drop(f->tc, 99), SL_ENOTFOUND);

    int32_t grp[1] = {SL_VS_GROUP_TBNAME};
    uint8_t s0[1] = {0x01}, s1[1] = {0x02};
    struct {
        uint64_t version, uid;
        sl_vs_change_kind kind;
    } all[] = {{3, 13, SL_VS_CHANGE_ROWS},
               {9, 11, SL_VS_CHANGE_ROWS},
               {10, 12, SL_VS_CHANGE_DELETE},
               {11, 13, SL_VS_CHANGE_DROP_TABLE}};
    int got_total = 0;
    for (int r = 0; r < 2; r++) {
        sl_vs_cfilter *cf = compile(NULL, grp, 1, 2, r == 0 ? s0 : s1, NULL, 0);
        /* From 2: t3's rows (v3) were kept in the log by the drop, and still routed. */
        sl_vs_fchanges c = rd(f, cf, 2, 0, 0, 0);
        assert_int_equal(c.last_version, 11);
        size_t j = 0;
        for (size_t i = 0; i < 4; i++) {
            const char *nm = NAMES[all[i].uid - 10];
            if ((int)(gid_tbname(nm) % 2) != r)
                continue;
            const sl_vs_fchange *e = NULL;
            for (size_t x = 0; x < c.n && e == NULL; x++)
                if (c.v[x].version == all[i].version)
                    e = &c.v[x];
            if (e == NULL)
                fail_msg("reader %d: version %llu missing", r,
                         (unsigned long long)all[i].version);
            j++;
            assert_int_equal(e->uid, all[i].uid);
            assert_int_equal(e->kind, all[i].kind);
            assert_string_equal(e->name, nm);
            assert_true(e->group_id == gid_tbname(nm));
            if (all[i].version == 9) {
                int64_t t[] = {1001, 2000};
                int kinds[] = {2, 1};
                assert_rows(e, 0, t, kinds, 2);
                assert_int_equal(sl_column_get_i64(&e->rows.cols[1], 0), 99);
            } else if (all[i].version == 10) {
                assert_int_equal(e->del_lo, 1000);
                assert_int_equal(e->del_hi, 1001);
                assert_int_equal(e->count, 2);
            } else if (all[i].version == 3) {
                int64_t t[] = {1000, 1001, 1002};
                assert_rows(e, 0, t, NULL, 3);
            }
        }
        /* Versions 4..8 of the other tables of this slot come in between: skip them. */
        size_t extra = 0;
        for (int k = 4; k <= 6; k++)
            extra += (int)(gid_tbname(NAMES[k]) % 2) == r;
        assert_int_equal(c.n, j + extra);
        got_total += (int)j;
        sl_vs_fchanges_fini(&c);
        sl_vs_cfilter_free(cf);
    }
    assert_int_equal(got_total, 4);

    /* The metadata of a dropped table lost (a restarted vnode): its DROP reaches every
     * reader with an empty name; its retained rows reach none. */
    sl_vs_tcache *fresh;
    assert_int_equal(sl_vs_tcache_open(&fresh, f->vs), 0);
    for (int r = 0; r < 2; r++) {
        sl_vs_cfilter *cf = compile(NULL, grp, 1, 2, r == 0 ? s0 : s1, NULL, 0);
        sl_vs_fchanges c;
        sl_error err = {0};
        assert_int_equal(sl_vs_changes_read_filtered(f->vs, fresh, cf, 2, 0, 0, 0, &c, &err), 0);
        bool drop = false;
        for (size_t i = 0; i < c.n; i++) {
            assert_int_not_equal(c.v[i].version, 3);
            if (c.v[i].kind == SL_VS_CHANGE_DROP_TABLE) {
                drop = true;
                assert_string_equal(c.v[i].name, "");
                assert_int_equal(c.v[i].group_id, 0);
            }
        }
        assert_true(drop);
        sl_vs_fchanges_fini(&c);
        sl_vs_cfilter_free(cf);
    }
    sl_vs_tcache_close(fresh);
}

/* Reads whose changes are all filtered out move the cursor on; bounds hold. */
static void test_cursor_advances(void **state)
{
    fx *f = *state;
    sl_vs_cfilter *cf = compile("v > 1000", NULL, 0, 0, NULL, NULL, 0);
    sl_vs_fchanges c = rd(f, cf, 0, 0, 0, 0);
    assert_int_equal(c.n, 0);
    assert_int_equal(c.last_version, 8);
    assert_false(c.more);
    sl_vs_fchanges_fini(&c);
    /* At the end: nothing, the cursor stays. */
    c = rd(f, cf, 8, 0, 0, 0);
    assert_int_equal(c.n, 0);
    assert_int_equal(c.last_version, 8);
    sl_vs_fchanges_fini(&c);
    sl_vs_cfilter_free(cf);
    /* No slot owned: every entry skipped; the scan bound stops at version boundaries. */
    uint8_t none[1] = {0};
    cf = compile(NULL, NULL, 0, 1, none, NULL, 0);
    uint64_t after = 0;
    uint64_t want[] = {2, 4, 6, 8};
    for (int i = 0; i < 4; i++) {
        c = rd(f, cf, after, 0, 0, 2);
        assert_int_equal(c.n, 0);
        assert_int_equal(c.last_version, want[i]);
        assert_int_equal(c.more, i < 3);
        after = c.last_version;
        sl_vs_fchanges_fini(&c);
    }
    sl_vs_cfilter_free(cf);
    /* Bounds on kept entries: whole versions, the first always returned. */
    cf = compile(NULL, NULL, 0, 0, NULL, NULL, 0);
    c = rd(f, cf, 0, 0, 2, 0);
    assert_int_equal(c.n, 2);
    assert_int_equal(c.last_version, 2);
    assert_true(c.more);
    sl_vs_fchanges_fini(&c);
    c = rd(f, cf, 0, 1, 0, 0);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.last_version, 1);
    assert_true(c.more);
    sl_vs_fchanges_fini(&c);
    /* The unfiltered reader is unchanged: every table, last version 8. */
    sl_vs_changes raw = tv_changes(f->vs, 0);
    assert_int_equal(raw.n, 8);
    assert_int_equal(raw.last_version, 8);
    sl_vs_changes_fini(&raw);
    sl_vs_cfilter_free(cf);
}

/* A normal table as the trigger table, and a child table alone. */
static void test_single_tables(void **state)
{
    fx *f = *state;
    sl_field ncols[2] = {{"ts", SL_T_TIMESTAMP, 0}, {"v", SL_T_BIGINT, 0}};
    sl_table_meta nm = {.kind = SL_TABLE_NORMAL, .name = "n1", .precision = SL_PREC_MS,
                        .ncols = 2, .cols = ncols};
    int32_t grp[1] = {SL_VS_GROUP_TBNAME};
    sl_vs_filter_spec sp = {.table_uid = 20, .ngroup = 1, .group = grp, .pre_filter = "v = 7",
                            .pre_filter_len = 5};
    sl_vs_cfilter *cf = NULL;
    sl_error err = {0};
    assert_int_equal(sl_vs_cfilter_compile(&sp, &nm, &cf, &err), 0);
    sl_vs_fchanges c = rd(f, cf, 0, 0, 0, 0);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.v[0].version, 7);
    assert_true(c.v[0].group_id == gid_tbname("n1"));
    sl_vs_fchanges_fini(&c);
    sl_vs_cfilter_free(cf);
    /* A tag item on a normal table is refused. */
    int32_t tag0[1] = {0};
    sp.group = tag0;
    assert_int_equal(sl_vs_cfilter_compile(&sp, &nm, &cf, &err), SL_EINVAL);
    /* Child t4 alone. */
    sl_table_meta cm = STABLE;
    cm.kind = SL_TABLE_CHILD;
    cm.name = "t4";
    sl_vs_filter_spec sc = {.table_uid = 14};
    assert_int_equal(sl_vs_cfilter_compile(&sc, &cm, &cf, &err), 0);
    c = rd(f, cf, 0, 0, 0, 0);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.v[0].uid, 14);
    sl_vs_fchanges_fini(&c);
    sl_vs_cfilter_free(cf);
}

/* A condition that fails on a row (division by zero) keeps the rows, flagged. */
static void test_pre_filter_eval_error(void **state)
{
    fx *f = *state;
    sl_vs_cfilter *cf = compile("1 / (v - v) > 0", NULL, 0, 0, NULL, NULL, 0);
    sl_vs_fchanges c = rd(f, cf, 0, 0, 0, 0);
    assert_int_equal(c.n, 6);
    for (size_t i = 0; i < c.n; i++) {
        assert_true(c.v[i].unfiltered);
        assert_int_equal(c.v[i].count, 3);
    }
    sl_vs_fchanges_fini(&c);
    sl_vs_cfilter_free(cf);
}

static int try_compile(const char *pre, uint32_t nslots, size_t slots_len, const int32_t *grp,
                       uint32_t ngroup, const int32_t *proj, uint32_t nproj, sl_error *err)
{
    static uint8_t bits[8192];
    sl_vs_filter_spec sp = {.table_uid = 100, .ngroup = ngroup, .group = grp, .nslots = nslots,
                            .slots = bits, .slots_len = slots_len, .nproj = nproj,
                            .proj = proj, .pre_filter = pre,
                            .pre_filter_len = pre ? strlen(pre) : 0};
    sl_vs_cfilter *cf = NULL;
    sl_error_clear(err);
    int rc = sl_vs_cfilter_compile(&sp, &STABLE, &cf, err);
    assert_true(rc == 0 || cf == NULL);
    sl_vs_cfilter_free(cf);
    return rc;
}

static void test_bad_filters(void **state)
{
    (void)state;
    sl_error err;
    assert_int_equal(try_compile("v >", 0, 0, NULL, 0, NULL, 0, &err), SL_ESYNTAX);
    if (strstr(err.msg, "PRE_FILTER 1:4:") == NULL)
        fail_msg("message: %s (col %d)", err.msg, err.col);
    assert_int_equal(err.col, 4);
    assert_int_equal(try_compile("nosuch > 1", 0, 0, NULL, 0, NULL, 0, &err), SL_ENOTFOUND);
    assert_non_null(strstr(err.msg, "nosuch"));
    assert_int_equal(try_compile("v + 1", 0, 0, NULL, 0, NULL, 0, &err), SL_EINVAL);
    assert_non_null(strstr(err.msg, "boolean"));
    assert_int_equal(try_compile("v > 1 FROM st", 0, 0, NULL, 0, NULL, 0, &err), SL_EINVAL);
    assert_int_equal(try_compile("v > 1, v < 2", 0, 0, NULL, 0, NULL, 0, &err), SL_EINVAL);
    assert_int_equal(try_compile("v > 1 AS x", 0, 0, NULL, 0, NULL, 0, &err), SL_EINVAL);
    int rc = try_compile("v > 1; DROP TABLE st", 0, 0, NULL, 0, NULL, 0, &err);
    assert_true(rc == SL_EINVAL || rc == SL_ESYNTAX);
    assert_int_equal(try_compile("count(v) > 1", 0, 0, NULL, 0, NULL, 0, &err) < 0, 1);
    assert_int_equal(try_compile("_twstart > 1", 0, 0, NULL, 0, NULL, 0, &err) < 0, 1);
    /* Slots and bounds. */
    assert_int_equal(try_compile(NULL, 9, 1, NULL, 0, NULL, 0, &err), SL_EINVAL);
    assert_int_equal(try_compile(NULL, 8, 2, NULL, 0, NULL, 0, &err), SL_EINVAL);
    assert_int_equal(try_compile(NULL, 0, 1, NULL, 0, NULL, 0, &err), SL_EINVAL);
    assert_int_equal(try_compile(NULL, 65536, 8192, NULL, 0, NULL, 0, &err), 0);
    assert_int_equal(try_compile(NULL, 65537, 8193, NULL, 0, NULL, 0, &err), SL_ELIMIT);
    int32_t g[65];
    for (int i = 0; i < 65; i++)
        g[i] = SL_VS_GROUP_TBNAME;
    assert_int_equal(try_compile(NULL, 0, 0, g, 64, NULL, 0, &err), 0);
    assert_int_equal(try_compile(NULL, 0, 0, g, 65, NULL, 0, &err), SL_ELIMIT);
    int32_t bad[1] = {2}; /* the super table has 2 tags: 0, 1 */
    assert_int_equal(try_compile(NULL, 0, 0, bad, 1, NULL, 0, &err), SL_EINVAL);
    bad[0] = -2;
    assert_int_equal(try_compile(NULL, 0, 0, bad, 1, NULL, 0, &err), SL_EINVAL);
    int32_t p[1] = {5}; /* 3 columns + 2 tags: 0..4 */
    assert_int_equal(try_compile(NULL, 0, 0, NULL, 0, p, 1, &err), SL_EINVAL);
    p[0] = -3;
    assert_int_equal(try_compile(NULL, 0, 0, NULL, 0, p, 1, &err), SL_EINVAL);
    assert_int_equal(try_compile(NULL, 0, 0, NULL, 0, p, 4097, &err), SL_ELIMIT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_slots_split, setup, teardown),
        cmocka_unit_test_setup_teardown(test_projection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pre_filter_column, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pre_filter_tag, setup, teardown),
        cmocka_unit_test_setup_teardown(test_group_by_tag, setup, teardown),
        cmocka_unit_test_setup_teardown(test_updates_deletes_drops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cursor_advances, setup, teardown),
        cmocka_unit_test_setup_teardown(test_single_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pre_filter_eval_error, setup, teardown),
        cmocka_unit_test(test_bad_filters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
