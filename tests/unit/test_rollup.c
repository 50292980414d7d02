/*
 * test_rollup.c - ROLLUP BY paths (common/types/rollup.h) and the vnode's rollup change
 * filter (vnode-adapter/storage/changes_filter.h, sl_vs_filter_spec.rollup).
 *
 * Expected prefixes are written out by hand; expected group ids are computed here from the
 * documented group-key encoding (value.h: a type byte, a u32 little-endian length, the
 * bytes) hashed with sl_hash_bytes, not through the code under test; which tables a reader
 * gets follows from the spec's rule - a table is in every prefix group of its path, NULL
 * and empty paths are in none - applied to those ids.
 *
 * Filter data (versions 1..9, one write each, two rows ts 1000/1001, v = 10k, 10k+1):
 *   a1 (uid 11) "f1.w1.l1"   a2 (12) "f1.w1.l2"   a3 (13) "f1.w2.l1"   a4 (14) "f2.w1.l1"
 *   a5 (15) NULL             a6 (16) ""           a7 (17) "f1..x" (invalid: empty segment)
 *   a8 (18) "f1"             o1 (30) "f1.w1.l1", a child of another super table (200)
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/expr/expr_int.h"
#include "common/types/rollup.h"
#include "common/types/value.h"
#include "common/util/keymap.h"
#include "vnode-adapter/storage/changes_filter.h"

/* ---- independent group ids ------------------------------------------------------------ */

static uint64_t gid_str(sl_type t, const char *s)
{
    uint8_t enc[128];
    uint32_t n = (uint32_t)strlen(s);
    assert_true(n + 5 <= sizeof(enc));
    enc[0] = (uint8_t)t;
    enc[1] = (uint8_t)n;
    enc[2] = (uint8_t)(n >> 8);
    enc[3] = enc[4] = 0;
    memcpy(enc + 5, s, n);
    return sl_hash_bytes(enc, 5 + n);
}

/* ---- paths ---------------------------------------------------------------------------- */

static void expect_prefixes(const char *path, int n, const uint32_t *ends)
{
    uint32_t got[SL_ROLLUP_MAX_DEPTH];
    const char *why = NULL;
    int rc = sl_rollup_prefixes(path, strlen(path), got, &why);
    if (rc != n)
        fail_msg("'%s': %d prefixes (%s), expected %d", path, rc, why ? why : "-", n);
    for (int i = 0; i < n; i++)
        assert_int_equal(got[i], ends[i]);
}

static void expect_invalid(const char *path, size_t len, const char *reason)
{
    uint32_t got[SL_ROLLUP_MAX_DEPTH];
    const char *why = NULL;
    int rc = sl_rollup_prefixes(path, len, got, &why);
    if (rc != SL_EINVAL)
        fail_msg("'%.*s' accepted (%d)", (int)len, path, rc);
    assert_non_null(why);
    if (strstr(why, reason) == NULL)
        fail_msg("'%.*s': reason '%s', expected '%s'", (int)len, path, why, reason);
}

static void test_prefixes(void **state)
{
    (void)state;
    /* A.B.C -> A, A.B, A.B.C (the spec's example). */
    expect_prefixes("A.B.C", 3, (const uint32_t[]){1, 3, 5});
    expect_prefixes("f1", 1, (const uint32_t[]){2});
    expect_prefixes("factory1.ws2.line03", 3, (const uint32_t[]){8, 12, 19});
    /* Inner spaces and other punctuation are ordinary bytes. */
    expect_prefixes("a b.c_d%e", 2, (const uint32_t[]){3, 9});
    /* UTF-8 (NCHAR): "é" is 2 bytes, "ü" 2 bytes. */
    expect_prefixes("\xc3\xa9.\xc3\xbc", 2, (const uint32_t[]){2, 5});
    /* Empty: no group. */
    uint32_t e[SL_ROLLUP_MAX_DEPTH];
    assert_int_equal(sl_rollup_prefixes("", 0, e, NULL), 0);
    /* The invalid paths of the spec. */
    expect_invalid(".a", 2, "leading separator");
    expect_invalid(".", 1, "leading separator");
    expect_invalid("a.", 2, "trailing separator");
    expect_invalid("a..b", 4, "empty segment");
    expect_invalid("a.\tb", 4, "control character");
    expect_invalid("a\x7f", 2, "control character");
    expect_invalid("a\0b", 3, "control character");
    expect_invalid(" a.b", 4, "whitespace");
    expect_invalid("a .b", 4, "whitespace");
    expect_invalid("a. b", 4, "whitespace");
    expect_invalid("a.b ", 4, "whitespace");
    /* 64 segments are fine, 65 are not. */
    char deep[2 * 65 + 1];
    for (int i = 0; i < 65; i++) {
        deep[2 * i] = 'x';
        deep[2 * i + 1] = '.';
    }
    uint32_t got[SL_ROLLUP_MAX_DEPTH];
    assert_int_equal(sl_rollup_prefixes(deep, 2 * 64 - 1, got, NULL), 64);
    assert_int_equal(got[63], 127);
    expect_invalid(deep, 2 * 65 - 1, "more than 64");
}

static void test_last_segment(void **state)
{
    (void)state;
    assert_int_equal(sl_rollup_last_segment("A.B.C", 5), 4);
    assert_int_equal(sl_rollup_last_segment("f1.w1", 5), 3);
    assert_int_equal(sl_rollup_last_segment("f1", 2), 0);
    /* A prefix of a longer path: only its n bytes count. */
    assert_int_equal(sl_rollup_last_segment("f1.w1.l1", 5), 3);
}

static void test_group_id(void **state)
{
    (void)state;
    assert_true(sl_rollup_group_id(SL_T_VARCHAR, "f1.w1", 5) == gid_str(SL_T_VARCHAR, "f1.w1"));
    assert_true(sl_rollup_group_id(SL_T_NCHAR, "f1", 2) == gid_str(SL_T_NCHAR, "f1"));
    /* A prefix given by its length within a longer path. */
    assert_true(sl_rollup_group_id(SL_T_VARCHAR, "f1.w1.l1", 2) == gid_str(SL_T_VARCHAR, "f1"));
    /* The same as PARTITION BY that tag for a table whose value is the path. */
    sl_value v = sl_value_str(SL_T_VARCHAR, "f2.w1", 5);
    assert_true(sl_rollup_group_id(SL_T_VARCHAR, "f2.w1", 5) == sl_group_id(&v, 1));
}

static void expect_pattern(const char *path, const char *want)
{
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_rollup_like_pattern(path, strlen(path), &b), 0);
    if (b.len != strlen(want) || memcmp(b.data, want, b.len) != 0)
        fail_msg("pattern of '%s': '%.*s', expected '%s'", path, (int)b.len, (char *)b.data,
                 want);
    sl_buf_fini(&b);
}

static bool like(const char *s, const char *path)
{
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_rollup_like_pattern(path, strlen(path), &b), 0);
    bool m = sl__like_match(s, (uint32_t)strlen(s), (const char *)b.data, (uint32_t)b.len);
    sl_buf_fini(&b);
    return m;
}

static void test_like_pattern(void **state)
{
    (void)state;
    expect_pattern("f1.w1", "f1.w1.%");
    expect_pattern("a_b", "a\\_b.%");
    expect_pattern("a%b", "a\\%b.%");
    expect_pattern("a\\b", "a\\\\b.%");
    /* Matches exactly the descendants (LIKE as the query engine runs it). */
    assert_true(like("f1.w1.l1", "f1.w1"));
    assert_true(like("f1.w1.l1.x", "f1.w1"));
    assert_false(like("f1.w1", "f1.w1"));  /* the node itself: the '=' half of the test */
    assert_false(like("f1.w10.l1", "f1.w1"));
    assert_false(like("f1.w2.l1", "f1.w1"));
    /* Wildcards in the path are literal. */
    assert_true(like("a_b.c", "a_b"));
    assert_false(like("axb.c", "a_b"));
    assert_true(like("a%b.c", "a%b"));
    assert_false(like("axyb.c", "a%b"));
    assert_true(like("a\\b.c", "a\\b"));
    assert_false(like("ab.c", "a\\b"));
}

/* ---- the vnode's rollup filter -------------------------------------------------------- */

static const sl_vs_column COLS[] = {{.name = "ts", .type = SL_T_TIMESTAMP},
                                    {.name = "v", .type = SL_T_BIGINT}};
static const sl_vs_column TAGS[] = {{.name = "g", .type = SL_T_INT},
                                    {.name = "path", .type = SL_T_VARCHAR, .width = 32}};
static const sl_field FCOLS[] = {{"ts", SL_T_TIMESTAMP, 0}, {"v", SL_T_BIGINT, 0}};
static const sl_field FTAGS[] = {{"g", SL_T_INT, 0}, {"path", SL_T_VARCHAR, 32}};
static const sl_table_meta STABLE = {.kind = SL_TABLE_SUPER, .db = "db", .name = "st",
                                     .precision = SL_PREC_MS, .ncols = 2, .cols = FCOLS,
                                     .ntags = 2, .tags = FTAGS};

#define NT 8
static const char *const PATHS[NT] = {"f1.w1.l1", "f1.w1.l2", "f1.w2.l1", "f2.w1.l1",
                                      NULL,       "",         "f1..x",    "f1"};
/* Prefixes of each path by hand (NULL-terminated; none for NULL, "" and the invalid one). */
static const char *const PREFIXES[NT][4] = {
    {"f1", "f1.w1", "f1.w1.l1", NULL}, {"f1", "f1.w1", "f1.w1.l2", NULL},
    {"f1", "f1.w2", "f1.w2.l1", NULL}, {"f2", "f2.w1", "f2.w1.l1", NULL},
    {NULL}, {NULL}, {NULL}, {"f1", NULL}};

typedef struct fx {
    char dir[64];
    sl_vstore *vs;
    sl_vs_tcache *tc;
} fx;

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static void put_child(sl_vstore *vs, uint64_t uid, const char *name, uint64_t suid,
                      const char *path)
{
    sl_block tv;
    sl_block_init(&tv);
    assert_int_equal(sl_block_add_column(&tv, SL_T_INT, 0), 0);
    assert_int_equal(sl_block_add_column(&tv, SL_T_VARCHAR, 32), 1);
    assert_int_equal(sl_column_append_i64(&tv.cols[0], (int64_t)uid), 0);
    if (path == NULL)
        assert_int_equal(sl_column_append_null(&tv.cols[1]), 0);
    else
        assert_int_equal(sl_column_append_str(&tv.cols[1], path, (uint32_t)strlen(path)), 0);
    sl_block_seal(&tv);
    sl_vs_table_def d = {.uid = uid, .name = name, .kind = SL_VS_TABLE_CHILD, .suid = suid,
                         .precision = SL_PREC_MS, .ncols = 2, .cols = COLS, .ntags = 2,
                         .tags = TAGS, .tag_values = &tv};
    sl_error err = {0};
    if (sl_vstore_put_table(vs, &d, false, &err) != 0)
        fail_msg("put_table %s: %s", name, err.msg);
    sl_block_fini(&tv);
}

static uint64_t write_rows(sl_vstore *vs, uint64_t uid, int64_t v0)
{
    sl_block b;
    sl_block_init(&b);
    assert_int_equal(sl_block_add_column(&b, SL_T_TIMESTAMP, 0), 0);
    assert_int_equal(sl_block_add_column(&b, SL_T_BIGINT, 0), 1);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(sl_column_append_i64(&b.cols[0], 1000 + i), 0);
        assert_int_equal(sl_column_append_i64(&b.cols[1], v0 + i), 0);
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

static int setup(void **state)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    strcpy(f->dir, "/tmp/sl_rollup_test.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/vs", f->dir);
    sl_error err = {0};
    if (sl_vstore_open(&f->vs, path, NULL, &err) != 0)
        fail_msg("open: %s", err.msg);
    char name[8];
    for (int k = 0; k < NT; k++) {
        snprintf(name, sizeof(name), "a%d", k + 1);
        put_child(f->vs, 11 + (uint64_t)k, name, 100, PATHS[k]);
    }
    put_child(f->vs, 30, "o1", 200, "f1.w1.l1");
    for (int k = 0; k < NT; k++)
        assert_int_equal(write_rows(f->vs, 11 + (uint64_t)k, 10 * (k + 1)), (uint64_t)k + 1);
    assert_int_equal(write_rows(f->vs, 30, 90), 9);
    assert_int_equal(sl_vs_tcache_open(&f->tc, f->vs), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    sl_vs_tcache_close(f->tc);
    sl_vstore_close(f->vs);
    nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

static sl_vs_cfilter *compile_rollup(uint32_t nslots, const uint8_t *slots)
{
    static const int32_t grp[1] = {1}; /* tag 1: path */
    static const int32_t proj[4] = {0, 1, 3, -1}; /* ts, v, path, tbname */
    sl_vs_filter_spec sp = {.table_uid = 100, .ngroup = 1, .group = grp, .rollup = true,
                            .nslots = nslots, .slots = slots, .slots_len = (nslots + 7) / 8,
                            .nproj = 4, .proj = proj};
    sl_vs_cfilter *cf = NULL;
    sl_error err = {0};
    int rc = sl_vs_cfilter_compile(&sp, &STABLE, &cf, &err);
    if (rc != 0)
        fail_msg("compile: %d %s", rc, err.msg);
    return cf;
}

/* The tables (bit k: a<k+1>) a reader of slots (nslots, bitmap) must get, by the rule. */
static unsigned expected_tables(uint32_t nslots, const uint8_t *slots)
{
    unsigned want = 0;
    for (int k = 0; k < NT; k++) {
        bool any = false;
        for (int i = 0; PREFIXES[k][i] != NULL; i++) {
            uint64_t s = gid_str(SL_T_VARCHAR, PREFIXES[k][i]) % nslots;
            any |= (slots[s / 8] >> (s % 8)) & 1;
        }
        if (k == 6) { /* invalid: the one group of the whole value */
            uint64_t s = gid_str(SL_T_VARCHAR, PATHS[k]) % nslots;
            any = (slots[s / 8] >> (s % 8)) & 1;
        }
        if (any)
            want |= 1u << k;
    }
    return want;
}

/* Reads everything after version 0 and checks the tables delivered and their rows. */
static unsigned read_tables(fx *f, sl_vs_cfilter *cf)
{
    sl_vs_fchanges c;
    sl_error err = {0};
    int rc = sl_vs_changes_read_filtered(f->vs, f->tc, cf, 0, 1 << 20, 1000, 0, &c, &err);
    if (rc != 0)
        fail_msg("read: %d %s", rc, err.msg);
    assert_int_equal(c.last_version, 9);
    unsigned got = 0;
    for (size_t i = 0; i < c.n; i++) {
        const sl_vs_fchange *x = &c.v[i];
        assert_true(x->uid >= 11 && x->uid < 11 + NT);
        int k = (int)(x->uid - 11);
        assert_int_equal(x->kind, SL_VS_CHANGE_ROWS);
        assert_int_equal(x->version, (uint64_t)k + 1);
        assert_int_equal(x->count, 2);
        /* group_id: the whole value's group (the deepest node). */
        assert_true(x->group_id == gid_str(SL_T_VARCHAR, PATHS[k]));
        /* Projected: ts, v, path, tbname, then the row kind. */
        assert_int_equal(x->rows.ncols, 5);
        assert_int_equal(sl_column_get_i64(&x->rows.cols[1], 1), 10 * (k + 1) + 1);
        uint32_t len = 0;
        const char *p = sl_column_get_str(&x->rows.cols[2], 0, &len);
        assert_int_equal(len, strlen(PATHS[k]));
        assert_memory_equal(p, PATHS[k], len);
        assert_false(got & (1u << k));
        got |= 1u << k;
    }
    sl_vs_fchanges_fini(&c);
    return got;
}

/* Every subset of 4 slots: exactly the tables with some prefix in the subset. */
static void test_filter_slot_subsets(void **state)
{
    fx *f = *state;
    for (unsigned mask = 0; mask < 16; mask++) {
        uint8_t slots[1] = {(uint8_t)mask};
        sl_vs_cfilter *cf = compile_rollup(4, slots);
        unsigned got = read_tables(f, cf);
        unsigned want = expected_tables(4, slots);
        if (got != want)
            fail_msg("slots mask %x: tables %x, expected %x", mask, got, want);
        sl_vs_cfilter_free(cf);
        /* Twice: the second answer comes from the memo. */
        cf = compile_rollup(4, slots);
        assert_int_equal(read_tables(f, cf), want);
        sl_vs_cfilter_free(cf);
    }
    /* Every slot: every table that has a group (NULL and "" never). */
    uint8_t all[1] = {0xf};
    sl_vs_cfilter *cf = compile_rollup(4, all);
    assert_int_equal(read_tables(f, cf), 0xffu & ~(1u << 4) & ~(1u << 5));
    sl_vs_cfilter_free(cf);
}

/* Two readers splitting 256 slots (even / odd, as two snodes might): each gets exactly its
 * tables, and a table with prefixes on both sides reaches both. */
static void test_filter_two_readers(void **state)
{
    fx *f = *state;
    uint8_t even[32], odd[32];
    memset(even, 0x55, sizeof(even));
    memset(odd, 0xaa, sizeof(odd));
    sl_vs_cfilter *ce = compile_rollup(256, even), *co = compile_rollup(256, odd);
    unsigned ge = read_tables(f, ce), go = read_tables(f, co);
    assert_int_equal(ge, expected_tables(256, even));
    assert_int_equal(go, expected_tables(256, odd));
    assert_int_equal(ge | go, 0xffu & ~(1u << 4) & ~(1u << 5));
    sl_vs_cfilter_free(ce);
    sl_vs_cfilter_free(co);
}

static void expect_refused(const int32_t *grp, uint32_t ngroup, const sl_table_meta *m)
{
    sl_vs_filter_spec sp = {.table_uid = 100, .ngroup = ngroup, .group = grp, .rollup = true};
    sl_vs_cfilter *cf = NULL;
    sl_error err = {0};
    assert_int_equal(sl_vs_cfilter_compile(&sp, m, &cf, &err), SL_EINVAL);
    assert_null(cf);
    assert_non_null(strstr(err.msg, "rollup filter"));
}

static void test_filter_refused(void **state)
{
    (void)state;
    const int32_t tbname[1] = {-1}, inttag[1] = {0}, two[2] = {1, 1};
    expect_refused(tbname, 1, &STABLE);
    expect_refused(inttag, 1, &STABLE);
    expect_refused(two, 2, &STABLE);
    expect_refused(two, 0, &STABLE);
    sl_table_meta child = STABLE;
    child.kind = SL_TABLE_CHILD;
    expect_refused(two + 1, 1, &child);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_last_segment),
        cmocka_unit_test(test_group_id),
        cmocka_unit_test(test_like_pattern),
        cmocka_unit_test_setup_teardown(test_filter_slot_subsets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_filter_two_readers, setup, teardown),
        cmocka_unit_test(test_filter_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
