/*
 * test_vstore_log.c - unit tests of the vstore's change log (vnode-adapter/storage/vstore.h)
 * with hand-computed expectations: reads after every version return exactly the later
 * entries in order with their kinds (rows inserted/updated, deletes, drops), whole versions
 * under entry and byte bounds, retention by low-water mark and by caps, the SL_ERANGE
 * message for trimmed reads, persistence of the bounds across reopen, and the commit
 * callback.
 */
#define _GNU_SOURCE /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_vstore_util.h"

static void test_changes_after_version(void **state)
{
    tv_fix *f = *state;
    sl_vstore *vs = tv_open(f->path, NULL);
    tv_put_meter(vs, 1, "a");
    tv_put_meter(vs, 2, "b");
    /* v1 a:1 I; v2 b:1 I; v3 a:1 U + b:2 I (one call, two entries); v4 delete a [0,5];
     * v5 drop b; v6 a:1 I */
    assert_int_equal(tv_put1(vs, 1, 1, 10), 1);
    assert_int_equal(tv_put1(vs, 2, 1, 20), 2);
    sl_block *x = tv_meter_block(), *y = tv_meter_block();
    tv_meter_row(x, 1, 0, 11, 0);
    tv_meter_row(y, 2, 0, 22, 0);
    sl_vs_write_item it[] = {{2, y}, {1, x}};
    uint64_t v;
    assert_int_equal(sl_vstore_write(vs, it, 2, false, &v, NULL), 0);
    assert_int_equal(v, 3);
    uint64_t nd;
    assert_int_equal(sl_vstore_delete(vs, 1, 0, 5, false, &v, &nd, NULL), 0);
    assert_int_equal(v, 4);
    assert_int_equal(sl_vstore_drop_table(vs, 2, false, &v, NULL), 0);
    assert_int_equal(v, 5);
    assert_int_equal(tv_put1(vs, 1, 1, 12), 6);

    /* expected entries: (version, uid, kind, first row kind) */
    struct {
        uint64_t v, uid;
        int kind, rk;
    } exp[] = {{1, 1, SL_VS_CHANGE_ROWS, SL_VS_ROW_INSERT},
               {2, 2, SL_VS_CHANGE_ROWS, SL_VS_ROW_INSERT},
               {3, 1, SL_VS_CHANGE_ROWS, SL_VS_ROW_UPDATE},
               {3, 2, SL_VS_CHANGE_ROWS, SL_VS_ROW_INSERT},
               {4, 1, SL_VS_CHANGE_DELETE, -1},
               {5, 2, SL_VS_CHANGE_DROP_TABLE, -1},
               {6, 1, SL_VS_CHANGE_ROWS, SL_VS_ROW_INSERT}};
    for (int reopen = 0; reopen < 2; reopen++) {
        for (uint64_t after = 0; after <= 7; after++) {
            sl_vs_changes c = tv_changes(vs, after);
            size_t k = 0;
            for (size_t i = 0; i < 7; i++) {
                if (exp[i].v <= after)
                    continue;
                assert_true(k < c.n);
                assert_int_equal(c.v[k].version, exp[i].v);
                assert_int_equal(c.v[k].uid, exp[i].uid);
                assert_int_equal(c.v[k].kind, exp[i].kind);
                if (exp[i].rk >= 0)
                    assert_int_equal(c.v[k].row_kinds[0], exp[i].rk);
                k++;
            }
            assert_int_equal(k, c.n);
            assert_int_equal(c.last_version, after >= 6 ? after : 6);
            assert_false(c.more);
            sl_vs_changes_fini(&c);
        }
        sl_vstore_close(vs);
        vs = tv_open(f->path, NULL);
    }
    /* Bounds: one entry max -> whole versions only, at least one. */
    sl_vs_changes c;
    assert_int_equal(sl_vstore_changes_read(vs, 2, 0, 1, &c, NULL), 0);
    assert_int_equal(c.n, 2); /* version 3 has two entries and comes whole */
    assert_int_equal(c.last_version, 3);
    assert_true(c.more);
    sl_vs_changes_fini(&c);
    assert_int_equal(sl_vstore_changes_read(vs, 0, 0, 3, &c, NULL), 0);
    assert_int_equal(c.n, 2); /* v1, v2; v3 would make 4 */
    assert_int_equal(c.last_version, 2);
    assert_true(c.more);
    sl_vs_changes_fini(&c);
    assert_int_equal(sl_vstore_changes_read(vs, 0, 1, 0, &c, NULL), 0);
    assert_int_equal(c.n, 1); /* one byte: the first version only */
    assert_int_equal(c.last_version, 1);
    assert_true(c.more);
    sl_vs_changes_fini(&c);
    assert_int_equal(sl_vstore_changes_read(vs, 5, 1, 1, &c, NULL), 0);
    assert_int_equal(c.n, 1);
    assert_false(c.more);
    sl_vs_changes_fini(&c);
    sl_block_free(x);
    sl_block_free(y);
    sl_vstore_close(vs);
}

static void test_retention(void **state)
{
    tv_fix *f = *state;
    sl_vstore_options o = {.log_max_entries = 5};
    sl_vstore *vs = tv_open(f->path, &o);
    tv_put_meter(vs, 1, "a");
    for (int i = 1; i <= 4; i++)
        tv_put1(vs, 1, i, i);
    assert_int_equal(sl_vstore_first_retained_version(vs), 1);
    /* Low water 2: versions 1, 2 go. */
    assert_int_equal(sl_vstore_set_low_water(vs, 2, NULL), 0);
    assert_int_equal(sl_vstore_first_retained_version(vs), 3);
    sl_vs_changes c;
    sl_error err = {0};
    assert_int_equal(sl_vstore_changes_read(vs, 1, 0, 0, &c, &err), SL_ERANGE);
    assert_string_equal(err.msg, "change log trimmed: oldest retained version is 3");
    assert_int_equal(sl_vstore_changes_read(vs, 2, 0, 0, &c, NULL), 0);
    assert_int_equal(c.n, 2);
    assert_int_equal(c.v[0].version, 3);
    sl_vs_changes_fini(&c);
    /* The cap (5 entries) trims above the low-water mark: after v10, 6..10 remain. */
    for (int i = 5; i <= 10; i++)
        tv_put1(vs, 1, i, i);
    assert_int_equal(sl_vstore_first_retained_version(vs), 6);
    sl_vstore_stats st;
    sl_vstore_get_stats(vs, &st);
    assert_int_equal(st.log_entries, 5);
    assert_int_equal(st.low_water, 2);
    sl_error_clear(&err);
    assert_int_equal(sl_vstore_changes_read(vs, 4, 0, 0, &c, &err), SL_ERANGE);
    assert_non_null(strstr(err.msg, "oldest retained version is 6"));
    assert_int_equal(sl_vstore_changes_read(vs, 5, 0, 0, &c, NULL), 0);
    assert_int_equal(c.n, 5);
    sl_vs_changes_fini(&c);
    /* Data is not affected by trimming. */
    sl_block *got = tv_scan(vs, NULL, 1, TV_ALL4, 4, INT64_MIN, INT64_MAX);
    assert_int_equal(got->nrows, 10);
    sl_block_free(got);
    /* Low water beyond the last version is clamped; the newest version always stays. */
    assert_int_equal(sl_vstore_set_low_water(vs, 1000, NULL), 0);
    sl_vstore_get_stats(vs, &st);
    assert_int_equal(st.low_water, 10);
    assert_int_equal(sl_vstore_first_retained_version(vs), 10);
    sl_vstore_close(vs);
    /* Reopen without a cap: the bounds persisted. */
    vs = tv_open(f->path, NULL);
    assert_int_equal(sl_vstore_first_retained_version(vs), 10);
    assert_int_equal(sl_vstore_last_version(vs), 10);
    assert_int_equal(sl_vstore_changes_read(vs, 8, 0, 0, &c, NULL), SL_ERANGE);
    assert_int_equal(sl_vstore_changes_read(vs, 9, 0, 0, &c, NULL), 0);
    assert_int_equal(c.n, 1);
    sl_vs_changes_fini(&c);
    /* New writes are retained (the mark only lets old ones go). */
    tv_put1(vs, 1, 11, 11);
    tv_put1(vs, 1, 12, 12);
    assert_int_equal(sl_vstore_first_retained_version(vs), 11);
    assert_int_equal(sl_vstore_changes_read(vs, 10, 0, 0, &c, NULL), 0);
    assert_int_equal(c.n, 2);
    sl_vs_changes_fini(&c);
    /* A large trim (range deletions): 388 versions at once. */
    for (int i = 13; i <= 400; i++)
        tv_put1(vs, 1, i, i);
    assert_int_equal(sl_vstore_first_retained_version(vs), 11);
    assert_int_equal(sl_vstore_set_low_water(vs, 399, NULL), 0);
    assert_int_equal(sl_vstore_first_retained_version(vs), 400);
    sl_vstore_get_stats(vs, &st);
    assert_int_equal(st.log_entries, 1);
    sl_vstore_close(vs);
    /* A byte cap keeps the newest version only. */
    o = (sl_vstore_options){.log_max_bytes = 1};
    vs = tv_open(f->path, &o);
    assert_int_equal(sl_vstore_first_retained_version(vs), 400);
    tv_put1(vs, 1, 401, 401);
    tv_put1(vs, 1, 402, 402);
    assert_int_equal(sl_vstore_first_retained_version(vs), 402);
    sl_vstore_close(vs);
    vs = tv_open(f->path, NULL);
    assert_int_equal(sl_vstore_changes_read(vs, 400, 0, 0, &c, NULL), SL_ERANGE);
    assert_int_equal(sl_vstore_changes_read(vs, 401, 0, 0, &c, NULL), 0);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.v[0].version, 402);
    sl_vs_changes_fini(&c);
    sl_block *all = tv_scan(vs, NULL, 1, TV_ALL4, 4, INT64_MIN, INT64_MAX);
    assert_int_equal(all->nrows, 402);
    sl_block_free(all);
    sl_vstore_close(vs);
}

static uint64_t g_committed[16];
static int g_ncommitted;

static void on_commit(void *ud, uint64_t v)
{
    (void)ud;
    if (g_ncommitted < 16)
        g_committed[g_ncommitted++] = v;
}

static void test_commit_callback(void **state)
{
    tv_fix *f = *state;
    sl_vstore_options o = {.on_commit = on_commit};
    g_ncommitted = 0;
    sl_vstore *vs = tv_open(f->path, &o);
    tv_put_meter(vs, 1, "a");
    tv_put1(vs, 1, 1, 1);
    assert_int_equal(sl_vstore_delete(vs, 1, 0, 0, false, NULL, NULL, NULL), 0); /* no-op */
    assert_int_equal(sl_vstore_delete(vs, 1, 1, 1, true, NULL, NULL, NULL), 0);
    assert_int_equal(sl_vstore_drop_table(vs, 1, false, NULL, NULL), 0);
    assert_int_equal(g_ncommitted, 3);
    assert_int_equal(g_committed[0], 1);
    assert_int_equal(g_committed[1], 2);
    assert_int_equal(g_committed[2], 3);
    assert_int_equal(sl_vstore_last_version(vs), 3);
    sl_vstore_close(vs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_changes_after_version, tv_setup, tv_teardown),
        cmocka_unit_test_setup_teardown(test_retention, tv_setup, tv_teardown),
        cmocka_unit_test_setup_teardown(test_commit_callback, tv_setup, tv_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
