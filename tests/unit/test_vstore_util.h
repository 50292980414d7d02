/*
 * test_vstore_util.h - helpers shared by the vstore tests (test_vstore*.c): temporary
 * directories, table definitions, building blocks row by row, and collecting scans and
 * change-log reads. Header-only (static functions) so that each test stays one
 * executable. Include after <cmocka.h>.
 */
#ifndef TEST_VSTORE_UTIL_H
#define TEST_VSTORE_UTIL_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnode-adapter/storage/vstore.h"

/* ---- temp dirs ------------------------------------------------------------------------ */

static inline int tv_rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static inline void tv_rm_rf(const char *dir)
{
    nftw(dir, tv_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

typedef struct tv_fix {
    char dir[64];   /* mkdtemp directory */
    char path[128]; /* dir + "/vs" */
} tv_fix;

static inline int tv_setup(void **state)
{
    tv_fix *f = calloc(1, sizeof(*f));
    if (f == NULL)
        return -1;
    strcpy(f->dir, "/tmp/sl_vstore_test.XXXXXX");
    if (mkdtemp(f->dir) == NULL) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof(f->path), "%s/vs", f->dir);
    *state = f;
    return 0;
}

static inline int tv_teardown(void **state)
{
    tv_fix *f = *state;
    if (getenv("SLUICE_KEEP_TEST_DIRS") == NULL) /* keep them to debug a failure */
        tv_rm_rf(f->dir);
    free(f);
    return 0;
}

static inline sl_vstore *tv_open(const char *path, const sl_vstore_options *o)
{
    sl_error err = {0};
    sl_vstore *vs = NULL;
    int rc = sl_vstore_open(&vs, path, o, &err);
    if (rc != 0)
        fail_msg("sl_vstore_open: %d %s", rc, err.msg);
    return vs;
}

#define TV_OK(call)                                                                                \
    do {                                                                                           \
        sl_error err_ = {0};                                                                       \
        int rc_ = (call);                                                                          \
        (void)err_;                                                                                \
        if (rc_ != 0)                                                                              \
            fail_msg("%s -> %d (%s) %s", #call, rc_, sl_strerror(rc_), err_.msg);                  \
    } while (0)

/* ---- tables --------------------------------------------------------------------------- */

/* meters: ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT */
static const sl_vs_column TV_METER_COLS[] = {
    {"ts", SL_T_TIMESTAMP, 0},
    {"current", SL_T_FLOAT, 0},
    {"voltage", SL_T_INT, 0},
    {"phase", SL_T_FLOAT, 0},
};

static inline void tv_put_normal(sl_vstore *vs, uint64_t uid, const char *name,
                                 const sl_vs_column *cols, uint32_t ncols)
{
    sl_vs_table_def d = {.uid = uid,
                         .name = name,
                         .kind = SL_VS_TABLE_NORMAL,
                         .precision = SL_PREC_MS,
                         .ncols = ncols,
                         .cols = cols};
    sl_error err = {0};
    int rc = sl_vstore_put_table(vs, &d, false, &err);
    if (rc != 0)
        fail_msg("put_table %llu: %s", (unsigned long long)uid, err.msg);
}

static inline void tv_put_meter(sl_vstore *vs, uint64_t uid, const char *name)
{
    tv_put_normal(vs, uid, name, TV_METER_COLS, 4);
}

/* ---- building meter blocks -------------------------------------------------------------- */

/* A meter block with columns ts, current, voltage, phase. */
static inline sl_block *tv_meter_block(void)
{
    sl_block *b = sl_block_new();
    assert_non_null(b);
    assert_int_equal(sl_block_add_column(b, SL_T_TIMESTAMP, 0), 0);
    assert_int_equal(sl_block_add_column(b, SL_T_FLOAT, 0), 1);
    assert_int_equal(sl_block_add_column(b, SL_T_INT, 0), 2);
    assert_int_equal(sl_block_add_column(b, SL_T_FLOAT, 0), 3);
    return b;
}

/* Appends one meter row; voltage INT32_MIN stands for NULL. */
static inline void tv_meter_row(sl_block *b, int64_t ts, double cur, int32_t volt, double phase)
{
    assert_int_equal(sl_column_append_i64(&b->cols[0], ts), 0);
    assert_int_equal(sl_column_append_f64(&b->cols[1], cur), 0);
    if (volt == INT32_MIN)
        assert_int_equal(sl_column_append_null(&b->cols[2]), 0);
    else
        assert_int_equal(sl_column_append_i64(&b->cols[2], volt), 0);
    assert_int_equal(sl_column_append_f64(&b->cols[3], phase), 0);
    sl_block_seal(b);
}

static inline uint64_t tv_write1(sl_vstore *vs, uint64_t uid, const sl_block *b)
{
    sl_vs_write_item it = {uid, b};
    uint64_t v = 0;
    sl_error err = {0};
    int rc = sl_vstore_write(vs, &it, 1, false, &v, &err);
    if (rc != 0)
        fail_msg("write: %d %s", rc, err.msg);
    return v;
}

/* Writes one row at ts into uid and returns the version. */
static inline uint64_t tv_put1(sl_vstore *vs, uint64_t uid, int64_t ts, int32_t volt)
{
    sl_block *b = tv_meter_block();
    tv_meter_row(b, ts, 0, volt, 0);
    uint64_t v = tv_write1(vs, uid, b);
    sl_block_free(b);
    return v;
}

/* ---- collecting scans ---------------------------------------------------------------- */

/*
 * Scans uid over [lo, hi] with projection proj (nproj entries) into *all (a copy of every
 * block appended; caller frees with sl_block_free). Checks the block size limit and the
 * ascending-unique timestamp order when proj[0] == 0.
 */
static inline sl_block *tv_scan(sl_vstore *vs, const sl_vs_snapshot *snap, uint64_t uid,
                                const int *proj, int nproj, int64_t lo, int64_t hi)
{
    sl_vs_scan *s = NULL;
    sl_error err = {0};
    int rc = sl_vstore_scan_open(vs, snap, uid, proj, nproj, lo, hi, &s, &err);
    if (rc != 0)
        fail_msg("scan_open: %d %s", rc, err.msg);
    sl_block *all = sl_block_new(), out;
    sl_block_init(&out);
    bool first = true;
    for (;;) {
        rc = sl_vstore_scan_next(s, &out, &err);
        if (rc != 0)
            fail_msg("scan_next: %d %s", rc, err.msg);
        if (out.nrows == 0)
            break;
        assert_true(out.nrows <= SL_BLOCK_ROWS_MAX);
        assert_int_equal(out.ncols, (uint32_t)nproj);
        if (first) {
            for (uint32_t c = 0; c < out.ncols; c++)
                assert_true(sl_block_add_column(all, out.cols[c].type, out.cols[c].width) >= 0);
            first = false;
        }
        for (uint32_t c = 0; c < out.ncols; c++) {
            assert_int_equal(out.cols[c].nrows, out.nrows);
            assert_int_equal(sl_column_append_rows(&all->cols[c], &out.cols[c], NULL, 0, out.nrows),
                             0);
        }
        all->nrows += out.nrows;
    }
    sl_block_fini(&out);
    sl_vstore_scan_close(s);
    if (nproj > 0 && proj[0] == 0 && all->ncols > 0)
        for (uint32_t i = 1; i < all->nrows; i++)
            assert_true(sl_column_get_i64(&all->cols[0], i) >
                        sl_column_get_i64(&all->cols[0], i - 1));
    return all;
}

static const int TV_ALL4[] = {0, 1, 2, 3};

/* Timestamps of a scan result's column 0. */
static inline void tv_assert_ts(const sl_block *b, const int64_t *ts, uint32_t n)
{
    if (b->nrows != n)
        fail_msg("expected %u rows, got %u", n, b->nrows);
    for (uint32_t i = 0; i < n; i++)
        if (sl_column_get_i64(&b->cols[0], i) != ts[i])
            fail_msg("row %u: ts %lld, expected %lld", i,
                     (long long)sl_column_get_i64(&b->cols[0], i), (long long)ts[i]);
}

static inline sl_vs_changes tv_changes(sl_vstore *vs, uint64_t after)
{
    sl_vs_changes c;
    sl_error err = {0};
    int rc = sl_vstore_changes_read(vs, after, 0, 0, &c, &err);
    if (rc != 0)
        fail_msg("changes_read after %llu: %d %s", (unsigned long long)after, rc, err.msg);
    return c;
}

#endif
