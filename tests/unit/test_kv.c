/*
 * test_kv.c - unit tests of the RocksDB wrapper (common/kv/kv.h) and the key encodings
 * (common/kv/keycodec.h).
 *
 * Every test works in its own directory made with mkdtemp under /tmp and removed at the
 * end. Expected values are written by hand or computed by a trivial loop in the test. The
 * durability test runs this same executable again as a child process
 * (`test_kv --kv-durability-child DIR FD`): the child writes synced batches and reports each
 * acknowledged one on a pipe, the parent kills it with SIGKILL at a random moment, reopens
 * the database and checks that every acknowledged batch is whole and no batch is half there.
 * The child is exec'ed rather than merely forked because a forked copy of a process that
 * already ran RocksDB inherits its thread pool's bookkeeping without its threads.
 */
#define _GNU_SOURCE /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/kv/keycodec.h"
#include "common/kv/kv.h"

/* ---------------------------------------------------------------------------------------
 * Helpers: temp dirs, random numbers, short-hand reads and writes
 * ------------------------------------------------------------------------------------- */

typedef struct fixture {
    char dir[64];   /* the test's temp directory */
    char path[128]; /* dir + "/db" */
} fixture;

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static void rm_rf(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    if (f == NULL)
        return -1;
    strcpy(f->dir, "/tmp/sl_kv_test.XXXXXX");
    if (mkdtemp(f->dir) == NULL) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof(f->path), "%s/db", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    rm_rf(f->dir);
    free(f);
    return 0;
}

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* A random value with a random magnitude, so small and large numbers both show up. */
static uint64_t rnd_wide(void)
{
    return rnd() >> (rnd() % 64);
}

static sl_kv *open_db(const char *path, const char *const *cfs, size_t n)
{
    sl_error err = {0};
    sl_kv *db = NULL;
    int rc = sl_kv_open(&db, path, NULL, cfs, n, &err);
    if (rc != 0)
        fprintf(stderr, "open failed: %s\n", err.msg);
    assert_int_equal(rc, 0);
    assert_non_null(db);
    return db;
}

static void put_s(sl_kv *db, sl_kv_cf *cf, const char *k, const char *v)
{
    sl_error err = {0};
    assert_int_equal(sl_kv_put(db, cf, k, strlen(k), v, strlen(v), &err), 0);
}

/* Asserts the value of k is v (or absent when v is NULL), as of snap. */
static void expect_s(sl_kv *db, sl_kv_cf *cf, const sl_kv_snapshot *snap, const char *k,
                     const char *v)
{
    sl_buf b = {0};
    sl_error err = {0};
    int rc = sl_kv_get(db, cf, snap, k, strlen(k), &b, &err);
    if (v == NULL) {
        assert_int_equal(rc, SL_ENOTFOUND);
        assert_int_equal(err.code, 0); /* absence is not an error */
    } else {
        assert_int_equal(rc, 0);
        assert_int_equal(b.len, strlen(v));
        assert_memory_equal(b.data, v, b.len);
    }
    sl_buf_fini(&b);
}

static void u64key(uint8_t out[8], uint64_t v)
{
    sl_key_enc_u64(out, v);
}

static void put_u(sl_kv *db, sl_kv_cf *cf, uint64_t k)
{
    uint8_t kb[8];
    char v[32];
    u64key(kb, k);
    int n = snprintf(v, sizeof(v), "v%llu", (unsigned long long)k);
    sl_error err = {0};
    assert_int_equal(sl_kv_put(db, cf, kb, 8, v, (size_t)n, &err), 0);
}

static bool has_u(sl_kv *db, sl_kv_cf *cf, const sl_kv_snapshot *snap, uint64_t k)
{
    uint8_t kb[8];
    u64key(kb, k);
    sl_buf b = {0};
    int rc = sl_kv_get(db, cf, snap, kb, 8, &b, NULL);
    assert_true(rc == 0 || rc == SL_ENOTFOUND);
    sl_buf_fini(&b);
    return rc == 0;
}

/* Returns the u64 key the iterator is on, checking its value is "v<key>". */
static uint64_t iter_u(const sl_kv_iter *it)
{
    size_t kl = 0, vl = 0;
    const uint8_t *k = sl_kv_iter_key(it, &kl);
    const char *v = sl_kv_iter_value(it, &vl);
    assert_int_equal(kl, 8);
    uint64_t key = sl_key_dec_u64(k);
    char want[32];
    int n = snprintf(want, sizeof(want), "v%llu", (unsigned long long)key);
    assert_int_equal(vl, (size_t)n);
    assert_memory_equal(v, want, vl);
    return key;
}

static size_t count_keys(sl_kv *db, sl_kv_cf *cf)
{
    sl_kv_iter *it = NULL;
    assert_int_equal(sl_kv_iter_open(&it, db, cf, NULL, NULL), 0);
    size_t n = 0;
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it); sl_kv_iter_next(it))
        n++;
    assert_int_equal(sl_kv_iter_status(it, NULL), 0);
    sl_kv_iter_close(it);
    return n;
}

/* ---------------------------------------------------------------------------------------
 * Point reads and writes
 * ------------------------------------------------------------------------------------- */

static void test_put_get_delete(void **state)
{
    fixture *f = *state;
    sl_kv *db = open_db(f->path, NULL, 0);
    sl_kv_cf *cf = sl_kv_cf_default(db);
    assert_string_equal(sl_kv_cf_name(cf), SL_KV_DEFAULT_CF);
    assert_string_equal(sl_kv_path(db), f->path);

    expect_s(db, cf, NULL, "alpha", NULL);
    put_s(db, cf, "alpha", "1");
    expect_s(db, cf, NULL, "alpha", "1");
    put_s(db, cf, "alpha", "second value");
    expect_s(db, cf, NULL, "alpha", "second value");

    /* An empty value is a present key with 0 bytes. */
    sl_error err = {0};
    assert_int_equal(sl_kv_put(db, cf, "empty", 5, NULL, 0, &err), 0);
    sl_buf b = {0};
    assert_int_equal(sl_buf_put(&b, "junk", 4), 0);
    assert_int_equal(sl_kv_get(db, cf, NULL, "empty", 5, &b, &err), 0);
    assert_int_equal(b.len, 0);

    /* The empty key and keys with zero bytes are ordinary keys. */
    assert_int_equal(sl_kv_put(db, cf, NULL, 0, "E", 1, &err), 0);
    const uint8_t bin[] = {0, 1, 0, 0xFF, 0};
    assert_int_equal(sl_kv_put(db, cf, bin, sizeof(bin), "B", 1, &err), 0);
    assert_int_equal(sl_kv_get(db, cf, NULL, "", 0, &b, &err), 0);
    assert_int_equal(b.len, 1);
    assert_int_equal(b.data[0], 'E');
    assert_int_equal(sl_kv_get(db, cf, NULL, bin, sizeof(bin), &b, &err), 0);
    assert_int_equal(b.len, 1);
    assert_int_equal(b.data[0], 'B');
    assert_int_equal(sl_kv_get(db, cf, NULL, bin, sizeof(bin) - 1, &b, &err), SL_ENOTFOUND);

    /* A 1 MiB value round-trips byte for byte, and get replaces (not appends). */
    size_t big = (size_t)1 << 20;
    uint8_t *v = malloc(big);
    assert_non_null(v);
    for (size_t i = 0; i < big; i++)
        v[i] = (uint8_t)(i * 2654435761u >> 13);
    assert_int_equal(sl_kv_put(db, cf, "big", 3, v, big, &err), 0);
    assert_int_equal(sl_kv_get(db, cf, NULL, "big", 3, &b, &err), 0);
    assert_int_equal(b.len, big);
    assert_memory_equal(b.data, v, big);
    assert_int_equal(sl_kv_get(db, cf, NULL, "alpha", 5, &b, &err), 0);
    assert_int_equal(b.len, strlen("second value"));
    free(v);

    /* Delete, and delete of an absent key. */
    assert_int_equal(sl_kv_delete(db, cf, "alpha", 5, &err), 0);
    expect_s(db, cf, NULL, "alpha", NULL);
    assert_int_equal(sl_kv_delete(db, cf, "never", 5, &err), 0);
    assert_int_equal(err.code, 0);

    /* Bad arguments: a NULL pointer with a length. */
    assert_int_equal(sl_kv_put(db, cf, NULL, 3, "x", 1, &err), SL_EINVAL);
    assert_int_equal(err.code, SL_EINVAL);
    assert_non_null(strstr(err.msg, f->path));
    sl_error_clear(&err);
    assert_int_equal(sl_kv_put(db, cf, "k", 1, NULL, 3, &err), SL_EINVAL);
    assert_int_equal(sl_kv_get(db, cf, NULL, NULL, 2, &b, NULL), SL_EINVAL);
    assert_int_equal(sl_kv_delete(db, cf, NULL, 2, NULL), SL_EINVAL);

    sl_buf_fini(&b);
    sl_kv_close(db);
}

static void test_reopen_keeps_data(void **state)
{
    fixture *f = *state;
    sl_kv_options o;
    sl_kv_options_init(&o);
    o.sync_default = true;
    o.write_buffer_size = 1 << 20;
    o.block_cache_size = 4 << 20;
    o.max_open_files = 64;
    o.background_jobs = 1;
    sl_kv *db = NULL;
    sl_error err = {0};
    assert_int_equal(sl_kv_open(&db, f->path, &o, NULL, 0, &err), 0);
    sl_kv_cf *cf = sl_kv_cf_default(db);
    for (uint64_t i = 0; i < 500; i++)
        put_u(db, cf, i);
    put_s(db, cf, "gone", "x");
    assert_int_equal(sl_kv_delete(db, cf, "gone", 4, &err), 0);
    assert_int_equal(sl_kv_sync_wal(db, &err), 0);
    sl_kv_close(db);

    /* Reopen twice: once replaying the log, once after that replay was flushed. */
    for (int round = 0; round < 2; round++) {
        db = open_db(f->path, NULL, 0);
        cf = sl_kv_cf_default(db);
        for (uint64_t i = 0; i < 500; i++)
            assert_true(has_u(db, cf, NULL, i));
        assert_false(has_u(db, cf, NULL, 500));
        expect_s(db, cf, NULL, "gone", NULL);
        assert_int_equal(count_keys(db, cf), 500);
        sl_kv_close(db);
    }
    sl_kv_close(NULL); /* NULL-safe */
}

/* ---------------------------------------------------------------------------------------
 * Batches
 * ------------------------------------------------------------------------------------- */

static void test_batch_basics(void **state)
{
    fixture *f = *state;
    const char *cfs[] = {"a", "b"};
    sl_kv *db = open_db(f->path, cfs, 2);
    sl_kv_cf *a = sl_kv_cf_get(db, "a"), *b = sl_kv_cf_get(db, "b");
    assert_non_null(a);
    assert_non_null(b);
    sl_error err = {0};

    sl_kv_batch *wb = NULL;
    assert_int_equal(sl_kv_batch_open(&wb), 0);
    assert_int_equal(sl_kv_batch_count(wb), 0);
    size_t empty_bytes = sl_kv_batch_bytes(wb);
    /* An empty batch is a no-op. */
    assert_int_equal(sl_kv_write(db, wb, SL_KV_SYNC_ON, &err), 0);

    assert_int_equal(sl_kv_batch_put(wb, a, "k1", 2, "a1", 2), 0);
    assert_int_equal(sl_kv_batch_put(wb, b, "k1", 2, "b1", 2), 0);
    assert_int_equal(sl_kv_batch_put(wb, a, "k2", 2, "a2", 2), 0);
    assert_int_equal(sl_kv_batch_delete(wb, a, "k2", 2), 0); /* later op wins */
    assert_int_equal(sl_kv_batch_put(wb, a, "k3", 2, "old", 3), 0);
    assert_int_equal(sl_kv_batch_put(wb, a, "k3", 2, "new", 3), 0);
    assert_int_equal(sl_kv_batch_count(wb), 6);
    assert_true(sl_kv_batch_bytes(wb) > empty_bytes);

    /* Rejected operations leave the batch unchanged. */
    assert_int_equal(sl_kv_batch_put(wb, a, NULL, 1, "x", 1), SL_EINVAL);
    assert_int_equal(sl_kv_batch_delete(wb, a, NULL, 1), SL_EINVAL);
    assert_int_equal(sl_kv_batch_delete_range(wb, a, "z", 1, "a", 1), SL_EINVAL);
    assert_int_equal(sl_kv_batch_delete_range(wb, a, "m", 1, "m", 1), 0); /* empty: nothing */
    assert_int_equal(sl_kv_batch_count(wb), 6);

    /* Nothing is visible before the write. */
    expect_s(db, a, NULL, "k1", NULL);
    assert_int_equal(sl_kv_write(db, wb, SL_KV_SYNC_OFF, &err), 0);
    expect_s(db, a, NULL, "k1", "a1");
    expect_s(db, b, NULL, "k1", "b1");
    expect_s(db, a, NULL, "k2", NULL);
    expect_s(db, a, NULL, "k3", "new");
    expect_s(db, b, NULL, "k3", NULL);
    /* The write leaves the batch as it was. */
    assert_int_equal(sl_kv_batch_count(wb), 6);

    sl_kv_batch_clear(wb);
    assert_int_equal(sl_kv_batch_count(wb), 0);
    assert_int_equal(sl_kv_batch_bytes(wb), empty_bytes);
    assert_int_equal(sl_kv_batch_delete(wb, a, "k1", 2), 0);
    assert_int_equal(sl_kv_batch_put(wb, b, "k9", 2, "b9", 2), 0);
    assert_int_equal(sl_kv_write(db, wb, SL_KV_SYNC_DEFAULT, &err), 0);
    expect_s(db, a, NULL, "k1", NULL);
    expect_s(db, b, NULL, "k1", "b1");
    expect_s(db, b, NULL, "k9", "b9");

    assert_int_equal(sl_kv_write(db, wb, (sl_kv_sync)7, &err), SL_EINVAL);
    assert_int_equal(err.code, SL_EINVAL);

    sl_kv_batch_close(wb);
    sl_kv_batch_close(NULL);
    sl_kv_close(db);
}

enum { ATOM_BATCHES = 150, ATOM_KEYS = 40 };

typedef struct atom_writer {
    sl_kv *db;
    sl_kv_cf *a, *b;
    volatile int done;
    int rc;
} atom_writer;

static void atom_key(uint8_t k[8], uint32_t batch, uint32_t j)
{
    sl_key_enc_u32(k, batch);
    sl_key_enc_u32(k + 4, j);
}

static void *atom_write(void *arg)
{
    atom_writer *w = arg;
    sl_kv_batch *wb = NULL;
    w->rc = sl_kv_batch_open(&wb);
    for (uint32_t i = 0; i < ATOM_BATCHES && w->rc == 0; i++) {
        sl_kv_batch_clear(wb);
        for (uint32_t j = 0; j < ATOM_KEYS; j++) {
            uint8_t k[8];
            atom_key(k, i, j);
            sl_kv_batch_put(wb, w->a, k, 8, "x", 1);
            sl_kv_batch_put(wb, w->b, k, 8, "y", 1);
        }
        w->rc = sl_kv_write(w->db, wb, SL_KV_SYNC_OFF, NULL);
    }
    sl_kv_batch_close(wb);
    __atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* Counts the keys of each batch seen in cf through snap into counts[ATOM_BATCHES]. */
static void atom_count(sl_kv *db, sl_kv_cf *cf, const sl_kv_snapshot *snap, int *counts)
{
    memset(counts, 0, sizeof(int) * ATOM_BATCHES);
    sl_kv_iter_options io = {.snapshot = snap};
    sl_kv_iter *it = NULL;
    assert_int_equal(sl_kv_iter_open(&it, db, cf, &io, NULL), 0);
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        size_t kl;
        const uint8_t *k = sl_kv_iter_key(it, &kl);
        assert_int_equal(kl, 8);
        uint32_t batch = sl_key_dec_u32(k);
        assert_true(batch < ATOM_BATCHES);
        counts[batch]++;
    }
    assert_int_equal(sl_kv_iter_status(it, NULL), 0);
    sl_kv_iter_close(it);
}

/* A reader racing a writer sees each batch with all its keys, in both column families, or
 * not at all; and batches appear in the order they were written. */
static void test_batch_atomic_visibility(void **state)
{
    fixture *f = *state;
    const char *cfs[] = {"a", "b"};
    sl_kv *db = open_db(f->path, cfs, 2);
    atom_writer w = {.db = db, .a = sl_kv_cf_get(db, "a"), .b = sl_kv_cf_get(db, "b")};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, atom_write, &w), 0);

    int ca[ATOM_BATCHES], cb[ATOM_BATCHES];
    int looks = 0, partial_views = 0;
    for (;;) {
        bool last = __atomic_load_n(&w.done, __ATOMIC_SEQ_CST) != 0;
        sl_kv_snapshot *snap = NULL;
        assert_int_equal(sl_kv_snapshot_open(&snap, db), 0);
        atom_count(db, w.a, snap, ca);
        atom_count(db, w.b, snap, cb);
        sl_kv_snapshot_close(snap);
        int visible = 0;
        for (int i = 0; i < ATOM_BATCHES; i++) {
            assert_true(ca[i] == 0 || ca[i] == ATOM_KEYS);
            assert_int_equal(ca[i], cb[i]);
            if (ca[i] != 0) {
                assert_int_equal(i, visible); /* a prefix of the batches */
                visible++;
            }
        }
        partial_views += visible > 0 && visible < ATOM_BATCHES;
        looks++;
        if (last)
            break;
    }
    pthread_join(th, NULL);
    assert_int_equal(w.rc, 0);
    atom_count(db, w.a, NULL, ca);
    for (int i = 0; i < ATOM_BATCHES; i++)
        assert_int_equal(ca[i], ATOM_KEYS);
    print_message("atomic visibility: %d snapshot reads, %d saw a partial set of batches\n", looks,
                  partial_views);
    sl_kv_close(db);
}

/* ---------------------------------------------------------------------------------------
 * Snapshots and iterators
 * ------------------------------------------------------------------------------------- */

static void test_snapshot_isolation(void **state)
{
    fixture *f = *state;
    const char *cfs[] = {"data", "meta"};
    sl_kv *db = open_db(f->path, cfs, 2);
    sl_kv_cf *d = sl_kv_cf_get(db, "data"), *m = sl_kv_cf_get(db, "meta");
    put_s(db, d, "a", "1");
    put_s(db, d, "b", "1");
    put_s(db, m, "c", "1");

    sl_kv_snapshot *snap = NULL;
    assert_int_equal(sl_kv_snapshot_open(&snap, db), 0);

    put_s(db, d, "a", "2");
    sl_error err = {0};
    assert_int_equal(sl_kv_delete(db, d, "b", 1, &err), 0);
    put_s(db, m, "c", "2");
    put_s(db, d, "new", "n");
    assert_int_equal(sl_kv_delete_range(db, m, "a", 1, "z", 1, &err), 0);
    put_s(db, m, "d", "2");
    /* Flushing moves the data to table files; the snapshot must still hold. */
    assert_int_equal(sl_kv_flush(db, NULL, &err), 0);

    expect_s(db, d, snap, "a", "1");
    expect_s(db, d, snap, "b", "1");
    expect_s(db, d, snap, "new", NULL);
    expect_s(db, m, snap, "c", "1");
    expect_s(db, m, snap, "d", NULL);
    expect_s(db, d, NULL, "a", "2");
    expect_s(db, d, NULL, "b", NULL);
    expect_s(db, d, NULL, "new", "n");
    expect_s(db, m, NULL, "c", NULL);
    expect_s(db, m, NULL, "d", "2");

    /* Iterators through the snapshot see the old state of both column families. */
    sl_kv_iter_options io = {.snapshot = snap};
    sl_kv_iter *it = NULL;
    assert_int_equal(sl_kv_iter_open(&it, db, m, &io, &err), 0);
    sl_kv_iter_first(it);
    assert_true(sl_kv_iter_valid(it));
    size_t kl, vl;
    const char *k = sl_kv_iter_key(it, &kl);
    const char *v = sl_kv_iter_value(it, &vl);
    assert_int_equal(kl, 1);
    assert_memory_equal(k, "c", 1);
    assert_int_equal(vl, 1);
    assert_memory_equal(v, "1", 1);
    sl_kv_iter_next(it);
    assert_false(sl_kv_iter_valid(it));
    sl_kv_iter_close(it);

    assert_int_equal(sl_kv_iter_open(&it, db, d, &io, &err), 0);
    const char *want[] = {"a", "b"};
    size_t n = 0;
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it); sl_kv_iter_next(it), n++) {
        k = sl_kv_iter_key(it, &kl);
        assert_true(n < 2);
        assert_int_equal(kl, 1);
        assert_memory_equal(k, want[n], 1);
    }
    assert_int_equal(n, 2);
    sl_kv_iter_close(it);

    sl_kv_snapshot_close(snap);
    sl_kv_snapshot_close(NULL);
    sl_kv_close(db);
}

static void test_iter_bounds_seek(void **state)
{
    fixture *f = *state;
    sl_kv *db = open_db(f->path, NULL, 0);
    sl_kv_cf *cf = sl_kv_cf_default(db);
    sl_error err = {0};

    /* An iterator on an empty column family is simply invalid. */
    sl_kv_iter *it = NULL;
    assert_int_equal(sl_kv_iter_open(&it, db, cf, NULL, &err), 0);
    assert_false(sl_kv_iter_valid(it));
    sl_kv_iter_first(it);
    assert_false(sl_kv_iter_valid(it));
    sl_kv_iter_last(it);
    assert_false(sl_kv_iter_valid(it));
    assert_int_equal(sl_kv_iter_status(it, &err), 0);
    sl_kv_iter_close(it);

    for (uint64_t k = 10; k <= 200; k += 10)
        put_u(db, cf, k);

    uint8_t lo[8], hi[8], t[8];
    u64key(lo, 50);
    u64key(hi, 150);
    sl_kv_iter_options io = {.lower = lo, .lower_len = 8, .upper = hi, .upper_len = 8};
    assert_int_equal(sl_kv_iter_open(&it, db, cf, &io, &err), 0);
    /* The bounds were copied: scribbling on the caller's bytes changes nothing. */
    memset(lo, 0, 8);
    memset(hi, 0xFF, 8);

    sl_kv_iter_first(it);
    assert_int_equal(iter_u(it), 50);
    sl_kv_iter_last(it);
    assert_int_equal(iter_u(it), 140);

    static const struct {
        uint64_t target;
        bool prev;   /* seek_for_prev instead of seek */
        int64_t key; /* expected key, -1 for invalid */
    } cases[] = {
        {55, false, 60},   {50, false, 50},  {10, false, 50},  {0, false, 50},
        {140, false, 140}, {141, false, -1}, {150, false, -1}, {999, false, -1},
        {55, true, 50},    {50, true, 50},   {49, true, -1},   {0, true, -1},
        {140, true, 140},  {149, true, 140}, {150, true, 140}, {999, true, 140},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        u64key(t, cases[i].target);
        if (cases[i].prev)
            sl_kv_iter_seek_for_prev(it, t, 8);
        else
            sl_kv_iter_seek(it, t, 8);
        if (cases[i].key < 0) {
            assert_false(sl_kv_iter_valid(it));
        } else {
            assert_true(sl_kv_iter_valid(it));
            assert_int_equal(iter_u(it), (uint64_t)cases[i].key);
        }
    }

    /* Forward and backward walks inside the bounds. */
    uint64_t want = 50;
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it); sl_kv_iter_next(it), want += 10)
        assert_int_equal(iter_u(it), want);
    assert_int_equal(want, 150);
    want = 140;
    size_t n = 0;
    for (sl_kv_iter_last(it); sl_kv_iter_valid(it); sl_kv_iter_prev(it), want -= 10, n++)
        assert_int_equal(iter_u(it), want);
    assert_int_equal(n, 10);
    /* Changing direction mid-way. */
    u64key(t, 100);
    sl_kv_iter_seek(it, t, 8);
    sl_kv_iter_next(it);
    sl_kv_iter_prev(it);
    sl_kv_iter_prev(it);
    assert_int_equal(iter_u(it), 90);
    assert_int_equal(sl_kv_iter_status(it, &err), 0);
    sl_kv_iter_close(it);

    /* Unbounded, and bounded on one side only. */
    assert_int_equal(sl_kv_iter_open(&it, db, cf, NULL, &err), 0);
    sl_kv_iter_first(it);
    assert_int_equal(iter_u(it), 10);
    sl_kv_iter_last(it);
    assert_int_equal(iter_u(it), 200);
    sl_kv_iter_close(it);
    assert_int_equal(count_keys(db, cf), 20);

    u64key(hi, 35);
    sl_kv_iter_options upper_only = {.upper = hi, .upper_len = 8};
    assert_int_equal(sl_kv_iter_open(&it, db, cf, &upper_only, &err), 0);
    sl_kv_iter_last(it);
    assert_int_equal(iter_u(it), 30);
    sl_kv_iter_first(it);
    assert_int_equal(iter_u(it), 10);
    sl_kv_iter_close(it);

    u64key(lo, 195);
    sl_kv_iter_options lower_only = {.lower = lo, .lower_len = 8, .no_fill_cache = true};
    assert_int_equal(sl_kv_iter_open(&it, db, cf, &lower_only, &err), 0);
    sl_kv_iter_first(it);
    assert_int_equal(iter_u(it), 200);
    sl_kv_iter_next(it);
    assert_false(sl_kv_iter_valid(it));
    sl_kv_iter_close(it);

    /* lower == upper: an empty range; lower > upper is refused. */
    u64key(lo, 100);
    u64key(hi, 100);
    sl_kv_iter_options empty = {.lower = lo, .lower_len = 8, .upper = hi, .upper_len = 8};
    assert_int_equal(sl_kv_iter_open(&it, db, cf, &empty, &err), 0);
    sl_kv_iter_first(it);
    assert_false(sl_kv_iter_valid(it));
    sl_kv_iter_close(it);
    u64key(hi, 99);
    sl_kv_iter_options bad = {.lower = lo, .lower_len = 8, .upper = hi, .upper_len = 8};
    it = NULL;
    assert_int_equal(sl_kv_iter_open(&it, db, cf, &bad, &err), SL_EINVAL);
    assert_null(it);
    assert_int_equal(err.code, SL_EINVAL);
    sl_error_clear(&err);
    sl_kv_iter_options badptr = {.lower = NULL, .lower_len = 3};
    assert_int_equal(sl_kv_iter_open(&it, db, cf, &badptr, &err), SL_EINVAL);

    /* An iterator reads the state at its creation, like a snapshot. */
    assert_int_equal(sl_kv_iter_open(&it, db, cf, NULL, &err), 0);
    put_u(db, cf, 15);
    n = 0;
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        assert_int_not_equal(iter_u(it), 15);
        n++;
    }
    assert_int_equal(n, 20);
    sl_kv_iter_close(it);
    assert_int_equal(count_keys(db, cf), 21);
    sl_kv_iter_close(NULL);

    sl_kv_close(db);
}

/* ---------------------------------------------------------------------------------------
 * Column families
 * ------------------------------------------------------------------------------------- */

static void test_cf_isolated_and_persisted(void **state)
{
    fixture *f = *state;
    const char *cfs[] = {"data", "changelog", "meta"};
    sl_kv *db = open_db(f->path, cfs, 3);
    for (int i = 0; i < 3; i++) {
        sl_kv_cf *cf = sl_kv_cf_get(db, cfs[i]);
        assert_non_null(cf);
        assert_string_equal(sl_kv_cf_name(cf), cfs[i]);
        put_s(db, cf, "k", cfs[i]);
    }
    assert_null(sl_kv_cf_get(db, "nope"));
    assert_null(sl_kv_cf_get(db, NULL));
    assert_ptr_equal(sl_kv_cf_get(db, "default"), sl_kv_cf_default(db));
    expect_s(db, sl_kv_cf_default(db), NULL, "k", NULL);
    for (int i = 0; i < 3; i++)
        expect_s(db, sl_kv_cf_get(db, cfs[i]), NULL, "k", cfs[i]);

    /* A delete or a range delete in one family leaves the others alone. */
    sl_error err = {0};
    assert_int_equal(sl_kv_delete(db, sl_kv_cf_get(db, "changelog"), "k", 1, &err), 0);
    assert_int_equal(sl_kv_delete_range(db, sl_kv_cf_get(db, "meta"), "a", 1, "z", 1, &err), 0);
    expect_s(db, sl_kv_cf_get(db, "data"), NULL, "k", "data");
    expect_s(db, sl_kv_cf_get(db, "changelog"), NULL, "k", NULL);
    expect_s(db, sl_kv_cf_get(db, "meta"), NULL, "k", NULL);
    put_s(db, sl_kv_cf_get(db, "meta"), "k", "meta2");
    assert_int_equal(count_keys(db, sl_kv_cf_get(db, "data")), 1);
    assert_int_equal(count_keys(db, sl_kv_cf_get(db, "changelog")), 0);
    assert_int_equal(count_keys(db, sl_kv_cf_default(db)), 0);
    sl_kv_close(db);

    /* Reopen naming only one family: the others on disk are opened too, with their data. */
    const char *only_meta[] = {"meta"};
    db = open_db(f->path, only_meta, 1);
    assert_non_null(sl_kv_cf_get(db, "data"));
    assert_non_null(sl_kv_cf_get(db, "changelog"));
    expect_s(db, sl_kv_cf_get(db, "data"), NULL, "k", "data");
    expect_s(db, sl_kv_cf_get(db, "changelog"), NULL, "k", NULL);
    expect_s(db, sl_kv_cf_get(db, "meta"), NULL, "k", "meta2");
    sl_kv_close(db);

    /* Reopen with a new family: it is created empty and persists. */
    const char *more[] = {"default", "data", "extra"};
    db = open_db(f->path, more, 3);
    sl_kv_cf *extra = sl_kv_cf_get(db, "extra");
    assert_non_null(extra);
    assert_int_equal(count_keys(db, extra), 0);
    put_s(db, extra, "k", "extra");
    sl_kv_close(db);
    db = open_db(f->path, NULL, 0);
    expect_s(db, sl_kv_cf_get(db, "extra"), NULL, "k", "extra");
    expect_s(db, sl_kv_cf_get(db, "data"), NULL, "k", "data");
    sl_kv_close(db);
}

static void test_bad_cf_names(void **state)
{
    fixture *f = *state;
    char longname[SL_KV_CF_NAME_MAX + 2];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    const char *bad[][2] = {
        {"", NULL},       {"a/b", NULL},  {"has space", NULL},           {"caf\xc3\xa9", NULL},
        {longname, NULL}, {"dup", "dup"}, {"ok", NULL /* NULL entry */},
    };
    size_t nbad[] = {1, 1, 1, 1, 1, 2, 2};
    for (size_t i = 0; i < sizeof(nbad) / sizeof(nbad[0]); i++) {
        sl_kv *db = NULL;
        sl_error err = {0};
        int rc = sl_kv_open(&db, f->path, NULL, bad[i], nbad[i], &err);
        assert_int_equal(rc, SL_EINVAL);
        assert_null(db);
        assert_int_equal(err.code, SL_EINVAL);
        assert_true(strlen(err.msg) > 0);
        assert_non_null(strstr(err.msg, "column family"));
    }
    /* A refused open changed nothing on disk. */
    struct stat st;
    assert_int_equal(stat(f->path, &st), -1);

    sl_kv *db = NULL;
    sl_error err = {0};
    assert_int_equal(sl_kv_open(&db, f->path, NULL, NULL, 2, &err), SL_EINVAL);
    sl_error_clear(&err);
    assert_int_equal(sl_kv_open(&db, "", NULL, NULL, 0, &err), SL_EINVAL);
    sl_error_clear(&err);
    sl_kv_options o = {.compression = (sl_kv_compression)42};
    assert_int_equal(sl_kv_open(&db, f->path, &o, NULL, 0, &err), SL_EINVAL);
    assert_null(db);

    /* Valid names with every allowed character class. */
    const char *good[] = {"A-z_0.9", "x"};
    db = open_db(f->path, good, 2);
    assert_non_null(sl_kv_cf_get(db, "A-z_0.9"));
    assert_null(sl_kv_cf_get(db, "a-z_0.9")); /* names are case-sensitive */
    sl_kv_close(db);
}

/* ---------------------------------------------------------------------------------------
 * Range deletes
 * ------------------------------------------------------------------------------------- */

static void check_range_state(sl_kv *db, sl_kv_cf *cf)
{
    for (uint64_t k = 0; k < 100; k++) {
        bool want = !(k >= 20 && k < 50) && !(k >= 60 && k < 70 && k != 65);
        assert_int_equal(has_u(db, cf, NULL, k), want);
    }
    assert_int_equal(count_keys(db, cf), 100 - 30 - 9);
}

static void test_delete_range(void **state)
{
    fixture *f = *state;
    const char *cfs[] = {"data", "other"};
    sl_kv *db = open_db(f->path, cfs, 2);
    sl_kv_cf *cf = sl_kv_cf_get(db, "data"), *other = sl_kv_cf_get(db, "other");
    for (uint64_t k = 0; k < 100; k++) {
        put_u(db, cf, k);
        put_u(db, other, k);
    }
    sl_error err = {0};
    uint8_t b[8], e[8];
    u64key(b, 20);
    u64key(e, 50);
    assert_int_equal(sl_kv_delete_range(db, cf, b, 8, e, 8, &err), 0);
    /* begin > end is refused, begin == end removes nothing. */
    assert_int_equal(sl_kv_delete_range(db, cf, e, 8, b, 8, &err), SL_EINVAL);
    assert_int_equal(err.code, SL_EINVAL);
    sl_error_clear(&err);
    assert_int_equal(sl_kv_delete_range(db, cf, b, 8, b, 8, &err), 0);
    assert_int_equal(sl_kv_delete_range(db, cf, NULL, 1, b, 8, &err), SL_EINVAL);
    sl_error_clear(&err);

    /* In a batch, operations apply in order: a put after the range delete survives it. */
    sl_kv_batch *wb = NULL;
    assert_int_equal(sl_kv_batch_open(&wb), 0);
    uint8_t k[8];
    u64key(k, 25);
    assert_int_equal(sl_kv_batch_put(wb, cf, k, 8, "x", 1), 0);
    assert_int_equal(sl_kv_batch_delete(wb, cf, k, 8), 0);
    u64key(b, 60);
    u64key(e, 70);
    assert_int_equal(sl_kv_batch_delete_range(wb, cf, b, 8, e, 8), 0);
    u64key(k, 65);
    assert_int_equal(sl_kv_batch_put(wb, cf, k, 8, "v65", 3), 0);
    assert_int_equal(sl_kv_batch_count(wb), 4);
    assert_int_equal(sl_kv_write(db, wb, SL_KV_SYNC_ON, &err), 0);
    sl_kv_batch_close(wb);

    check_range_state(db, cf);
    assert_int_equal(count_keys(db, other), 100);
    /* The same after the tombstones moved to table files, after compaction, after reopen. */
    assert_int_equal(sl_kv_flush(db, cf, &err), 0);
    check_range_state(db, cf);
    assert_int_equal(sl_kv_compact_range(db, cf, NULL, 0, NULL, 0, &err), 0);
    check_range_state(db, cf);
    sl_kv_close(db);
    db = open_db(f->path, NULL, 0);
    check_range_state(db, sl_kv_cf_get(db, "data"));
    assert_int_equal(count_keys(db, sl_kv_cf_get(db, "other")), 100);
    sl_kv_close(db);
}

/* ---------------------------------------------------------------------------------------
 * Errors at open
 * ------------------------------------------------------------------------------------- */

static void test_open_errors(void **state)
{
    fixture *f = *state;
    /* A regular file where the database should be. */
    FILE *fp = fopen(f->path, "w");
    assert_non_null(fp);
    fputs("not a database\n", fp);
    fclose(fp);
    sl_kv *db = NULL;
    sl_error err = {0};
    assert_int_equal(sl_kv_open(&db, f->path, NULL, NULL, 0, &err), SL_EINVAL);
    assert_null(db);
    assert_int_equal(err.code, SL_EINVAL);
    assert_non_null(strstr(err.msg, f->path));
    assert_non_null(strstr(err.msg, "not a directory"));
    remove(f->path);

    /* A missing parent directory: only one level is created. */
    char deep[192];
    snprintf(deep, sizeof(deep), "%s/no/such/dir", f->dir);
    sl_error_clear(&err);
    assert_int_equal(sl_kv_open(&db, deep, NULL, NULL, 0, &err), SL_EIO);
    assert_null(db);
    assert_non_null(strstr(err.msg, deep));

    /* A database already open (its LOCK is held). */
    sl_kv *first = open_db(f->path, NULL, 0);
    sl_error_clear(&err);
    assert_int_equal(sl_kv_open(&db, f->path, NULL, NULL, 0, &err), SL_EIO);
    assert_null(db);
    assert_non_null(strstr(err.msg, "LOCK"));
    sl_kv_close(first);
    /* Once closed it opens again. */
    db = open_db(f->path, NULL, 0);
    sl_kv_close(db);

    /* A directory whose files are garbage. */
    char current[192];
    snprintf(current, sizeof(current), "%s/CURRENT", f->path);
    fp = fopen(current, "w");
    assert_non_null(fp);
    fputs("MANIFEST-999999\n", fp);
    fclose(fp);
    sl_error_clear(&err);
    db = NULL;
    int rc = sl_kv_open(&db, f->path, NULL, NULL, 0, &err);
    assert_true(rc == SL_EIO || rc == SL_ECORRUPT);
    assert_null(db);
    assert_true(strlen(err.msg) > 0);
    print_message("damaged db: %s\n", err.msg);
}

/* ---------------------------------------------------------------------------------------
 * Key codec
 * ------------------------------------------------------------------------------------- */

static int sgn(int c)
{
    return (c > 0) - (c < 0);
}

static void test_keycodec_integers(void **state)
{
    (void)state;
    static const int64_t edges_i[] = {
        INT64_MIN, INT64_MIN + 1, -4294967296LL, -65536,       -256,          -2,       -1, 0, 1, 2,
        255,       256,           65535,         4294967296LL, INT64_MAX - 1, INT64_MAX};
    static const uint64_t edges_u[] = {0,
                                       1,
                                       255,
                                       256,
                                       65535,
                                       65536,
                                       0xFFFFFFFFULL,
                                       0x100000000ULL,
                                       0x7FFFFFFFFFFFFFFFULL,
                                       0x8000000000000000ULL,
                                       UINT64_MAX - 1,
                                       UINT64_MAX};
    const size_t ne_i = sizeof(edges_i) / sizeof(edges_i[0]);
    const size_t ne_u = sizeof(edges_u) / sizeof(edges_u[0]);

    /* Fixed points of the encoding. */
    uint8_t p[8];
    sl_key_enc_i64(p, INT64_MIN);
    assert_memory_equal(p, "\x00\x00\x00\x00\x00\x00\x00\x00", 8);
    sl_key_enc_i64(p, -1);
    assert_memory_equal(p, "\x7F\xFF\xFF\xFF\xFF\xFF\xFF\xFF", 8);
    sl_key_enc_i64(p, 0);
    assert_memory_equal(p, "\x80\x00\x00\x00\x00\x00\x00\x00", 8);
    sl_key_enc_u64(p, 0x0102030405060708ULL);
    assert_memory_equal(p, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
    sl_key_enc_u32(p, 0x0A0B0C0DU);
    assert_memory_equal(p, "\x0A\x0B\x0C\x0D", 4);
    sl_key_enc_i32(p, -2);
    assert_memory_equal(p, "\x7F\xFF\xFF\xFE", 4);

    for (int round = 0; round < 200000; round++) {
        int64_t a, b;
        uint64_t ua, ub;
        if (round < (int)(ne_i * ne_i)) {
            a = edges_i[round / ne_i];
            b = edges_i[round % ne_i];
        } else {
            a = (int64_t)rnd_wide() * ((rnd() & 1) ? -1 : 1);
            b = (round & 3) == 0 ? a + (int64_t)(rnd() % 3) - 1
                                 : (int64_t)rnd_wide() * ((rnd() & 1) ? -1 : 1);
        }
        if (round < (int)(ne_u * ne_u)) {
            ua = edges_u[round / ne_u];
            ub = edges_u[round % ne_u];
        } else {
            ua = rnd_wide();
            ub = (round & 3) == 0 ? ua + rnd() % 3 - 1 : rnd_wide();
        }
        uint8_t ea[8], eb[8];
        sl_key_enc_i64(ea, a);
        sl_key_enc_i64(eb, b);
        assert_int_equal(sgn(memcmp(ea, eb, 8)), (a > b) - (a < b));
        assert_true(sl_key_dec_i64(ea) == a);
        sl_key_enc_u64(ea, ua);
        sl_key_enc_u64(eb, ub);
        assert_int_equal(sgn(memcmp(ea, eb, 8)), (ua > ub) - (ua < ub));
        assert_true(sl_key_dec_u64(ea) == ua);

        int32_t a32 = (int32_t)(uint32_t)a, b32 = (int32_t)(uint32_t)b;
        uint32_t ua32 = (uint32_t)ua, ub32 = (uint32_t)ub;
        sl_key_enc_i32(ea, a32);
        sl_key_enc_i32(eb, b32);
        assert_int_equal(sgn(memcmp(ea, eb, 4)), (a32 > b32) - (a32 < b32));
        assert_int_equal(sl_key_dec_i32(ea), a32);
        sl_key_enc_u32(ea, ua32);
        sl_key_enc_u32(eb, ub32);
        assert_int_equal(sgn(memcmp(ea, eb, 4)), (ua32 > ub32) - (ua32 < ub32));
        assert_int_equal(sl_key_dec_u32(ea), ua32);
    }

    /* Buffer appenders and bounded readers. */
    sl_buf b = {0};
    assert_int_equal(sl_key_put_u32(&b, 7), 0);
    assert_int_equal(sl_key_put_i64(&b, -5), 0);
    assert_int_equal(sl_key_put_u64(&b, 9), 0);
    assert_int_equal(sl_key_put_i32(&b, INT32_MIN), 0);
    assert_int_equal(b.len, 4 + 8 + 8 + 4);
    sl_reader r;
    sl_reader_init(&r, b.data, b.len);
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    int32_t i32;
    assert_int_equal(sl_key_get_u32(&r, &u32), 0);
    assert_int_equal(u32, 7);
    assert_int_equal(sl_key_get_i64(&r, &i64), 0);
    assert_true(i64 == -5);
    assert_int_equal(sl_key_get_u64(&r, &u64), 0);
    assert_true(u64 == 9);
    assert_int_equal(sl_key_get_i32(&r, &i32), 0);
    assert_int_equal(i32, INT32_MIN);
    assert_int_equal(sl_reader_left(&r), 0);
    sl_reader_init(&r, b.data, 7);
    assert_int_equal(sl_key_get_u32(&r, &u32), 0);
    assert_int_equal(sl_key_get_u64(&r, &u64), SL_ECORRUPT);
    assert_int_equal(sl_key_get_i64(&r, &i64), SL_ECORRUPT);
    assert_int_equal(sl_reader_left(&r), 3); /* not advanced */
    assert_int_equal(sl_key_get_i32(&r, &i32), SL_ECORRUPT);
    sl_buf_fini(&b);
}

/* Compares byte strings as memcmp with shorter-first, the order the encoding must keep. */
static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = n ? memcmp(a, b, n) : 0;
    if (c != 0)
        return sgn(c);
    return (an > bn) - (an < bn);
}

static void test_keycodec_strings(void **state)
{
    (void)state;
    static const uint8_t alphabet[] = {0x00, 0x01, 0x02, 'a', 0xFE, 0xFF};
    sl_buf ka = {0}, kb = {0}, dec = {0};
    for (int round = 0; round < 50000; round++) {
        uint8_t sa[6], sb[6];
        size_t na = rnd() % 7, nb = rnd() % 7;
        for (size_t i = 0; i < na; i++)
            sa[i] = alphabet[rnd() % sizeof(alphabet)];
        for (size_t i = 0; i < nb; i++)
            sb[i] = alphabet[rnd() % sizeof(alphabet)];
        if (round % 5 == 0) { /* make prefixes common */
            nb = na < 6 ? na + rnd() % (7 - na) : na;
            memcpy(sb, sa, na);
        }
        int64_t ia = (int64_t)(rnd() % 5) - 2, ib = (int64_t)(rnd() % 5) - 2;
        sl_buf_reset(&ka);
        sl_buf_reset(&kb);
        assert_int_equal(sl_key_put_str(&ka, na ? sa : NULL, na), 0);
        assert_int_equal(sl_key_put_i64(&ka, ia), 0);
        assert_int_equal(sl_key_put_str(&kb, nb ? sb : NULL, nb), 0);
        assert_int_equal(sl_key_put_i64(&kb, ib), 0);
        int want = bytes_cmp(sa, na, sb, nb);
        if (want == 0)
            want = (ia > ib) - (ia < ib);
        assert_int_equal(bytes_cmp(ka.data, ka.len, kb.data, kb.len), want);

        sl_reader r;
        sl_reader_init(&r, ka.data, ka.len);
        sl_buf_reset(&dec);
        assert_int_equal(sl_key_get_str(&r, &dec), 0);
        assert_int_equal(dec.len, na);
        if (na)
            assert_memory_equal(dec.data, sa, na);
        int64_t got;
        assert_int_equal(sl_key_get_i64(&r, &got), 0);
        assert_true(got == ia);
        assert_int_equal(sl_reader_left(&r), 0);
    }

    /* Malformed strings: no terminator, a dangling escape, an unknown escape. */
    static const struct {
        const char *bytes;
        size_t n;
    } bad[] = {{"abc", 3}, {"ab\x00", 3}, {"ab\x00\x02zz", 6}, {"", 0}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        sl_reader r;
        sl_reader_init(&r, bad[i].bytes, bad[i].n);
        sl_buf_reset(&dec);
        assert_int_equal(sl_key_get_str(&r, &dec), SL_ECORRUPT);
        assert_ptr_equal(r.p, (const uint8_t *)bad[i].bytes);
    }

    /* Successor of a prefix. */
    static const struct {
        const char *in;
        size_t n;
        const char *out;
        size_t on;
    } succ[] = {{"ab", 2, "ac", 2},
                {"a\xff\xff", 3, "b", 1},
                {"\x00", 1, "\x01", 1},
                {"\x01\xfe\xff", 3, "\x01\xff", 2}};
    for (size_t i = 0; i < sizeof(succ) / sizeof(succ[0]); i++) {
        sl_buf_reset(&ka);
        assert_int_equal(sl_buf_put(&ka, succ[i].in, succ[i].n), 0);
        assert_int_equal(sl_key_successor(&ka), 0);
        assert_int_equal(ka.len, succ[i].on);
        assert_memory_equal(ka.data, succ[i].out, succ[i].on);
    }
    sl_buf_reset(&ka);
    assert_int_equal(sl_key_successor(&ka), SL_ERANGE);
    assert_int_equal(sl_buf_put(&ka, "\xff\xff", 2), 0);
    assert_int_equal(sl_key_successor(&ka), SL_ERANGE);
    assert_int_equal(ka.len, 2);

    sl_buf_fini(&ka);
    sl_buf_fini(&kb);
    sl_buf_fini(&dec);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* RocksDB itself returns i64-encoded keys in numeric order; a prefix scan with
 * sl_key_successor as its upper bound returns exactly the prefix's keys. */
static void test_keycodec_in_db(void **state)
{
    fixture *f = *state;
    sl_kv *db = open_db(f->path, NULL, 0);
    sl_kv_cf *cf = sl_kv_cf_default(db);
    enum { N = 2000 };
    int64_t *vals = malloc(N * sizeof(int64_t));
    assert_non_null(vals);
    sl_error err = {0};
    for (int i = 0; i < N; i++) {
        vals[i] = (int64_t)rnd_wide() * ((rnd() & 1) ? -1 : 1);
        uint8_t k[9];
        k[0] = 'T';
        sl_key_enc_i64(k + 1, vals[i]);
        assert_int_equal(sl_kv_put(db, cf, k, 9, "", 0, &err), 0);
    }
    /* Neighbours of the 'T' prefix that a prefix scan must skip. */
    put_s(db, cf, "S", "");
    put_s(db, cf, "U", "");
    qsort(vals, N, sizeof(int64_t), cmp_i64);
    size_t uniq = 0;
    for (size_t i = 0; i < N; i++)
        if (i == 0 || vals[i] != vals[uniq - 1])
            vals[uniq++] = vals[i];

    sl_buf up = {0};
    assert_int_equal(sl_buf_put(&up, "T", 1), 0);
    assert_int_equal(sl_key_successor(&up), 0);
    sl_kv_iter_options io = {.lower = "T", .lower_len = 1, .upper = up.data, .upper_len = up.len};
    sl_kv_iter *it = NULL;
    assert_int_equal(sl_kv_iter_open(&it, db, cf, &io, &err), 0);
    size_t n = 0;
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it); sl_kv_iter_next(it), n++) {
        size_t kl;
        const uint8_t *k = sl_kv_iter_key(it, &kl);
        assert_int_equal(kl, 9);
        assert_true(n < uniq);
        assert_true(sl_key_dec_i64(k + 1) == vals[n]);
    }
    assert_int_equal(n, uniq);
    sl_kv_iter_close(it);
    sl_buf_fini(&up);
    free(vals);
    sl_kv_close(db);
}

/* ---------------------------------------------------------------------------------------
 * Maintenance, statistics, checkpoints, compression
 * ------------------------------------------------------------------------------------- */

static void test_flush_compact_size_props(void **state)
{
    fixture *f = *state;
    const char *cfs[] = {"data"};
    sl_kv *db = open_db(f->path, cfs, 1);
    sl_kv_cf *cf = sl_kv_cf_get(db, "data");
    sl_error err = {0};
    enum { N = 5000, VLEN = 200 };
    uint8_t v[VLEN];
    for (uint64_t i = 0; i < N; i++) {
        for (size_t j = 0; j < VLEN; j++)
            v[j] = (uint8_t)rnd(); /* incompressible */
        uint8_t k[8];
        u64key(k, i);
        assert_int_equal(sl_kv_put(db, cf, k, 8, v, VLEN, &err), 0);
    }
    uint8_t b[8], e[8];
    u64key(b, 0);
    u64key(e, N);
    uint64_t size = 1;
    /* Still in the memtable: table files hold nothing yet. */
    assert_int_equal(sl_kv_approximate_size(db, cf, b, 8, e, 8, &size, &err), 0);
    assert_int_equal(size, 0);
    assert_int_equal(sl_kv_flush(db, cf, &err), 0);
    assert_int_equal(sl_kv_approximate_size(db, cf, b, 8, e, 8, &size, &err), 0);
    assert_true(size >= (uint64_t)N * VLEN * 9 / 10);
    assert_true(size <= (uint64_t)N * VLEN * 2);
    uint64_t nkeys = 0;
    assert_int_equal(sl_kv_property_u64(db, cf, "rocksdb.estimate-num-keys", &nkeys, &err), 0);
    assert_int_equal(nkeys, N);
    assert_int_equal(sl_kv_property_u64(db, NULL, "rocksdb.estimate-num-keys", &nkeys, &err), 0);
    assert_int_equal(nkeys, 0); /* the default family is empty */
    /* Outside the data, or an empty range. */
    u64key(b, 2 * N);
    u64key(e, 3 * N);
    assert_int_equal(sl_kv_approximate_size(db, cf, b, 8, e, 8, &size, &err), 0);
    assert_int_equal(size, 0);
    assert_int_equal(sl_kv_approximate_size(db, cf, e, 8, b, 8, &size, &err), SL_EINVAL);
    sl_error_clear(&err);

    /* Delete 80% and compact: the space goes, the rest stays. */
    u64key(b, 0);
    u64key(e, N * 4 / 5);
    assert_int_equal(sl_kv_delete_range(db, cf, b, 8, e, 8, &err), 0);
    assert_int_equal(sl_kv_compact_range(db, cf, NULL, 0, NULL, 0, &err), 0);
    assert_int_equal(sl_kv_approximate_size(db, cf, b, 8, e, 8, &size, &err), 0);
    assert_int_equal(size, 0);
    u64key(b, N * 4 / 5);
    u64key(e, N);
    assert_int_equal(sl_kv_approximate_size(db, cf, b, 8, e, 8, &size, &err), 0);
    assert_true(size >= (uint64_t)N / 5 * VLEN * 9 / 10);
    assert_int_equal(sl_kv_property_u64(db, cf, "rocksdb.estimate-num-keys", &nkeys, &err), 0);
    assert_int_equal(nkeys, N / 5);
    assert_int_equal(count_keys(db, cf), N / 5);
    /* A bounded compaction. */
    assert_int_equal(sl_kv_compact_range(db, cf, b, 8, e, 8, &err), 0);
    assert_int_equal(sl_kv_compact_range(db, cf, NULL, 3, NULL, 0, &err), SL_EINVAL);
    sl_error_clear(&err);

    /* Text properties; unknown names. */
    sl_buf out = {0};
    assert_int_equal(sl_kv_property(db, cf, "rocksdb.stats", &out, &err), 0);
    assert_true(out.len > 0);
    assert_int_equal(out.data[out.len], '\0');
    assert_non_null(strstr((const char *)out.data, "Compaction Stats"));
    assert_int_equal(sl_kv_property(db, NULL, "rocksdb.num-files-at-level0", &out, &err), 0);
    assert_string_equal((const char *)out.data, "0");
    assert_int_equal(sl_kv_property(db, cf, "rocksdb.no-such-thing", &out, &err), SL_ENOTFOUND);
    assert_int_equal(err.code, SL_ENOTFOUND);
    assert_non_null(strstr(err.msg, "rocksdb.no-such-thing"));
    sl_error_clear(&err);
    assert_int_equal(sl_kv_property_u64(db, cf, "rocksdb.stats", &nkeys, &err), SL_ENOTFOUND);
    sl_buf_fini(&out);
    sl_kv_close(db);
}

static void test_checkpoint(void **state)
{
    fixture *f = *state;
    const char *cfs[] = {"data"};
    sl_kv *db = open_db(f->path, cfs, 1);
    sl_kv_cf *cf = sl_kv_cf_get(db, "data");
    put_s(db, cf, "before", "1");
    char cp[192];
    snprintf(cp, sizeof(cp), "%s/checkpoint", f->dir);
    sl_error err = {0};
    assert_int_equal(sl_kv_checkpoint(db, cp, &err), 0);
    put_s(db, cf, "after", "2");
    /* A second checkpoint to the same directory is refused. */
    assert_int_equal(sl_kv_checkpoint(db, cp, &err), SL_EINVAL);
    assert_non_null(strstr(err.msg, "exists"));
    sl_kv_close(db);

    sl_kv *c = open_db(cp, NULL, 0);
    sl_kv_cf *ccf = sl_kv_cf_get(c, "data");
    assert_non_null(ccf);
    expect_s(c, ccf, NULL, "before", "1");
    expect_s(c, ccf, NULL, "after", NULL);
    sl_kv_close(c);
}

static void test_compression_modes(void **state)
{
    fixture *f = *state;
    static const sl_kv_compression modes[] = {SL_KV_COMPRESS_AUTO, SL_KV_COMPRESS_NONE,
                                              SL_KV_COMPRESS_LZ4, SL_KV_COMPRESS_ZSTD};
    static const char *names[] = {"auto", "none", "lz4", "zstd"};
    enum { N = 2000, VLEN = 512 };
    char v[VLEN];
    for (size_t m = 0; m < 4; m++) {
        char path[192];
        snprintf(path, sizeof(path), "%s/%s", f->dir, names[m]);
        sl_kv_options o = {.compression = modes[m]};
        sl_kv *db = NULL;
        sl_error err = {0};
        int rc = sl_kv_open(&db, path, &o, NULL, 0, &err);
        if (rc == SL_EUNSUPPORTED) { /* a RocksDB without that codec */
            print_message("compression %s: %s\n", names[m], err.msg);
            continue;
        }
        assert_int_equal(rc, 0);
        sl_kv_cf *cf = sl_kv_cf_default(db);
        for (uint64_t i = 0; i < N; i++) {
            /* Text-like, highly compressible values. */
            for (size_t j = 0; j < VLEN; j++)
                v[j] = "sluice stream window "[(i + j) % 21];
            uint8_t k[8];
            u64key(k, i);
            assert_int_equal(sl_kv_put(db, cf, k, 8, v, VLEN, &err), 0);
        }
        /* Compaction flushes the memtable first, then rewrites down to the last level. */
        assert_int_equal(sl_kv_compact_range(db, cf, NULL, 0, NULL, 0, &err), 0);
        uint8_t b[8], e[8];
        u64key(b, 0);
        u64key(e, N);
        uint64_t size = 0;
        assert_int_equal(sl_kv_approximate_size(db, cf, b, 8, e, 8, &size, &err), 0);
        print_message("compression %-4s: %llu bytes on disk for %d bytes of values\n", names[m],
                      (unsigned long long)size, N * VLEN);
        if (modes[m] == SL_KV_COMPRESS_NONE)
            assert_true(size >= (uint64_t)N * VLEN);
        else
            assert_true(size < (uint64_t)N * VLEN / 4);
        sl_kv_close(db);
        /* Data reads back after reopening with the codec in the table files. */
        db = open_db(path, NULL, 0);
        cf = sl_kv_cf_default(db);
        sl_buf out = {0};
        uint8_t k[8];
        u64key(k, N - 1);
        assert_int_equal(sl_kv_get(db, cf, NULL, k, 8, &out, &err), 0);
        assert_int_equal(out.len, VLEN);
        assert_int_equal(out.data[0], "sluice stream window "[(N - 1) % 21]);
        sl_buf_fini(&out);
        sl_kv_close(db);
    }
}

/* ---------------------------------------------------------------------------------------
 * Durability across kill -9
 *
 * Batch i (1, 2, ...) writes, in one synced write: DUR_KEYS data rows (i, j) with values
 * derived from (i, j); a marker row (i, MARK) and the delete of marker (i - 1, MARK); the
 * change log entry i; and meta "last" = i. After a crash the database must hold batches
 * 1..L whole, the marker of L only, last = L, and L is the last acknowledged batch or the
 * one after it (written, killed before it was reported).
 * ------------------------------------------------------------------------------------- */

enum { DUR_KEYS = 8, DUR_ROUNDS = 5, DUR_MAX_BATCHES = 100000 };
#define DUR_MARK UINT32_C(0xFFFFFFFF)
static const char *const dur_cfs[] = {"data", "changelog", "meta"};

static size_t dur_value(uint8_t *out, uint64_t i, uint32_t j)
{
    size_t n = 32 + (size_t)((i * 7 + j * 13) % 900);
    for (size_t k = 0; k < n; k++)
        out[k] = (uint8_t)(i * 31 + j * 17 + k * 7);
    return n;
}

static void dur_key(uint8_t k[12], uint64_t i, uint32_t j)
{
    sl_key_enc_u64(k, i);
    sl_key_enc_u32(k + 8, j);
}

/* The child: writes batches after the last one on disk until killed. Never returns. */
static int durability_child(const char *path, int fd)
{
    sl_kv_options o = {.write_buffer_size = 128 << 10}; /* flushes happen during the run */
    sl_kv *db = NULL;
    sl_error err = {0};
    if (sl_kv_open(&db, path, &o, dur_cfs, 3, &err) != 0) {
        fprintf(stderr, "child: %s\n", err.msg);
        _exit(2);
    }
    sl_kv_cf *data = sl_kv_cf_get(db, "data"), *cl = sl_kv_cf_get(db, "changelog"),
             *meta = sl_kv_cf_get(db, "meta");
    sl_buf last = {0};
    uint64_t start = 1;
    if (sl_kv_get(db, meta, NULL, "last", 4, &last, NULL) == 0 && last.len == 8)
        start = sl_key_dec_u64(last.data) + 1;
    sl_buf_fini(&last);

    sl_kv_batch *b = NULL;
    if (sl_kv_batch_open(&b) != 0)
        _exit(2);
    static uint8_t v[1024];
    for (uint64_t i = start; i < start + DUR_MAX_BATCHES; i++) {
        sl_kv_batch_clear(b);
        uint8_t k[12];
        for (uint32_t j = 0; j < DUR_KEYS; j++) {
            dur_key(k, i, j);
            size_t n = dur_value(v, i, j);
            sl_kv_batch_put(b, data, k, sizeof(k), v, n);
        }
        dur_key(k, i - 1, DUR_MARK);
        sl_kv_batch_delete(b, data, k, sizeof(k));
        dur_key(k, i, DUR_MARK);
        sl_kv_batch_put(b, data, k, sizeof(k), "m", 1);
        uint8_t ik[8], cnt[4];
        sl_key_enc_u64(ik, i);
        sl_key_enc_u32(cnt, DUR_KEYS);
        sl_kv_batch_put(b, cl, ik, 8, cnt, 4);
        sl_kv_batch_put(b, meta, "last", 4, ik, 8);
        if (sl_kv_write(db, b, SL_KV_SYNC_ON, &err) != 0) {
            fprintf(stderr, "child: %s\n", err.msg);
            _exit(3);
        }
        /* Acknowledged: report it. */
        if (write(fd, &i, sizeof(i)) != (ssize_t)sizeof(i))
            _exit(4);
    }
    _exit(5);
}

/* Checks the database after a crash; returns L, the last batch present. */
static uint64_t dur_verify(const char *path, uint64_t acked)
{
    sl_kv *db = open_db(path, dur_cfs, 3);
    sl_kv_cf *data = sl_kv_cf_get(db, "data"), *cl = sl_kv_cf_get(db, "changelog"),
             *meta = sl_kv_cf_get(db, "meta");
    sl_buf b = {0};
    uint64_t last = 0;
    int rc = sl_kv_get(db, meta, NULL, "last", 4, &b, NULL);
    if (rc == 0) {
        assert_int_equal(b.len, 8);
        last = sl_key_dec_u64(b.data);
    } else {
        assert_int_equal(rc, SL_ENOTFOUND);
    }
    /* Every acknowledged batch is there; at most the one in flight beyond. */
    assert_true(last >= acked);
    assert_true(last <= acked + 1);

    /* The change log holds exactly 1..last. */
    sl_kv_iter *it = NULL;
    assert_int_equal(sl_kv_iter_open(&it, db, cl, NULL, NULL), 0);
    uint64_t want = 1;
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it); sl_kv_iter_next(it), want++) {
        size_t kl, vl;
        const uint8_t *k = sl_kv_iter_key(it, &kl);
        const uint8_t *v = sl_kv_iter_value(it, &vl);
        assert_int_equal(kl, 8);
        assert_int_equal(sl_key_dec_u64(k), want);
        assert_int_equal(vl, 4);
        assert_int_equal(sl_key_dec_u32(v), DUR_KEYS);
    }
    assert_int_equal(sl_kv_iter_status(it, NULL), 0);
    sl_kv_iter_close(it);
    assert_int_equal(want, last + 1);

    /* The data holds every row of 1..last, byte for byte, the marker of last alone, and
     * nothing of a later batch. */
    static uint8_t v[1024];
    assert_int_equal(sl_kv_iter_open(&it, db, data, NULL, NULL), 0);
    sl_kv_iter_first(it);
    for (uint64_t i = 1; i <= last; i++) {
        for (uint32_t j = 0; j <= DUR_KEYS; j++) {
            uint32_t jj = j < DUR_KEYS ? j : DUR_MARK;
            if (jj == DUR_MARK && i != last)
                continue;
            assert_true(sl_kv_iter_valid(it));
            size_t kl, vl;
            const uint8_t *k = sl_kv_iter_key(it, &kl);
            const uint8_t *got = sl_kv_iter_value(it, &vl);
            assert_int_equal(kl, 12);
            assert_int_equal(sl_key_dec_u64(k), i);
            assert_int_equal(sl_key_dec_u32(k + 8), jj);
            if (jj == DUR_MARK) {
                assert_int_equal(vl, 1);
            } else {
                size_t n = dur_value(v, i, jj);
                assert_int_equal(vl, n);
                assert_memory_equal(got, v, n);
            }
            sl_kv_iter_next(it);
        }
    }
    assert_false(sl_kv_iter_valid(it));
    assert_int_equal(sl_kv_iter_status(it, NULL), 0);
    sl_kv_iter_close(it);
    sl_buf_fini(&b);
    sl_kv_close(db);
    return last;
}

/* Reads one 8-byte acknowledgement; returns false at end of file. */
static bool dur_read_ack(int fd, uint64_t *out)
{
    uint8_t buf[8];
    size_t got = 0;
    while (got < sizeof(buf)) {
        ssize_t n = read(fd, buf + got, sizeof(buf) - got);
        if (n == 0)
            return false;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        got += (size_t)n;
    }
    memcpy(out, buf, sizeof(*out));
    return true;
}

static void test_durability_kill9(void **state)
{
    fixture *f = *state;
    uint64_t last = 0;
    for (int round = 0; round < DUR_ROUNDS; round++) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            /* Die with the parent, whatever happens to it. */
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            close(fds[0]);
            char fdarg[16];
            snprintf(fdarg, sizeof(fdarg), "%d", fds[1]);
            char *argv[] = {"test_kv", "--kv-durability-child", f->path, fdarg, NULL};
            execv("/proc/self/exe", argv);
            _exit(127);
        }
        close(fds[1]);
        /* Kill after a random number of acknowledgements plus a random delay, so the kill
         * lands anywhere in a write: before, inside or after the log sync. Acks must come
         * in order, right after the batches already on disk. */
        uint64_t kill_after = 1 + rnd() % 120, n = 0, a = 0;
        bool in_order = true, eof = false;
        while (n < kill_after) {
            if (!dur_read_ack(fds[0], &a)) {
                eof = true;
                break;
            }
            if (a != last + n + 1) {
                in_order = false;
                break;
            }
            n++;
        }
        usleep((useconds_t)(rnd() % 3000));
        kill(pid, SIGKILL);
        /* Acknowledgements written before the kill are acknowledged writes too. */
        while (in_order && !eof && dur_read_ack(fds[0], &a)) {
            if (a != last + n + 1) {
                in_order = false;
                break;
            }
            n++;
        }
        close(fds[0]);
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status)); /* the child did not die on its own */
        assert_int_equal(WTERMSIG(status), SIGKILL);
        assert_true(in_order);
        uint64_t acked = last + n;

        last = dur_verify(f->path, acked);
        print_message("kill -9 round %d: last acknowledged batch %llu (%llu acks this round), "
                      "last batch on disk %llu\n",
                      round, (unsigned long long)acked, (unsigned long long)n,
                      (unsigned long long)last);
    }
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--kv-durability-child") == 0)
        return durability_child(argv[2], atoi(argv[3]));

    const char *seed = getenv("SL_TEST_SEED");
    rng_state = seed ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    if (rng_state == 0)
        rng_state = 1;
    printf("test_kv: SL_TEST_SEED=%llu\n", (unsigned long long)rng_state);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_put_get_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reopen_keeps_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_basics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_atomic_visibility, setup, teardown),
        cmocka_unit_test_setup_teardown(test_snapshot_isolation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_iter_bounds_seek, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cf_isolated_and_persisted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_cf_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
        cmocka_unit_test(test_keycodec_integers),
        cmocka_unit_test(test_keycodec_strings),
        cmocka_unit_test_setup_teardown(test_keycodec_in_db, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flush_compact_size_props, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checkpoint, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compression_modes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_durability_kill9, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
