/*
 * test_nameset.c - the case-insensitive name set (common/util/nameset.h).
 *
 * Hash values are the published FNV-1a 32-bit test vectors (of "", "a" and "foobar").
 * The random test checks the set against a plain array model after every insert and
 * remove, which exercises backward-shift removal across long collision runs and
 * wrap-around at the end of the slot array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "common/util/error.h"
#include "common/util/nameset.h"

typedef struct item {
    char name[32];
} item;

static const char *item_name(const void *p)
{
    return ((const item *)p)->name;
}

static uint32_t count_slots(const sl_nameset *s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->ns_cap; i++)
        n += s->ns_slots[i] != NULL;
    return n;
}

static void test_hash(void **state)
{
    (void)state;
    assert_int_equal(sl_nameset_hash(""), 0x811c9dc5u);
    assert_int_equal(sl_nameset_hash("a"), 0xe40c292cu);
    assert_int_equal(sl_nameset_hash("A"), 0xe40c292cu);
    assert_int_equal(sl_nameset_hash("foobar"), 0xbf9cf968u);
    assert_int_equal(sl_nameset_hash("FooBAR"), 0xbf9cf968u);
}

static void test_empty(void **state)
{
    (void)state;
    sl_nameset s;
    sl_nameset_init(&s, item_name);
    assert_int_equal(s.ns_cap, 0);
    assert_int_equal(s.ns_count, 0);
    assert_null(sl_nameset_find(&s, "x"));
    uint32_t pos = 0;
    assert_null(sl_nameset_next(&s, &pos));
    sl_nameset_fini(&s);
    sl_nameset_fini(NULL);
}

static void test_insert_find_case(void **state)
{
    (void)state;
    item a = {"Meters"}, b = {"d1001"}, c = {"weather_Station"};
    sl_nameset s;
    sl_nameset_init(&s, item_name);
    assert_int_equal(sl_nameset_reserve(&s, 3), 0);
    assert_int_equal(s.ns_cap, 16);
    sl_nameset_insert(&s, &a);
    sl_nameset_insert(&s, &b);
    sl_nameset_insert(&s, &c);
    assert_int_equal(s.ns_count, 3);
    assert_ptr_equal(sl_nameset_find(&s, "meters"), &a);
    assert_ptr_equal(sl_nameset_find(&s, "METERS"), &a);
    assert_ptr_equal(sl_nameset_find(&s, "Meters"), &a);
    assert_ptr_equal(sl_nameset_find(&s, "D1001"), &b);
    assert_ptr_equal(sl_nameset_find(&s, "WEATHER_station"), &c);
    assert_null(sl_nameset_find(&s, "meter"));
    assert_null(sl_nameset_find(&s, "meters2"));
    assert_null(sl_nameset_find(&s, ""));
    sl_nameset_remove(&s, &a);
    assert_int_equal(s.ns_count, 2);
    assert_null(sl_nameset_find(&s, "meters"));
    assert_ptr_equal(sl_nameset_find(&s, "d1001"), &b);
    assert_ptr_equal(sl_nameset_find(&s, "weather_station"), &c);
    sl_nameset_fini(&s);
    assert_null(s.ns_slots);
}

static void test_growth(void **state)
{
    (void)state;
    enum { N = 1000 };
    item *v = calloc(N, sizeof(*v));
    assert_non_null(v);
    sl_nameset s;
    sl_nameset_init(&s, item_name);
    /* Load factor at most 1/2, power-of-two sizes from 16. */
    assert_int_equal(sl_nameset_reserve(&s, 8), 0);
    assert_int_equal(s.ns_cap, 16);
    assert_int_equal(sl_nameset_reserve(&s, 9), 0);
    assert_int_equal(s.ns_cap, 32);
    assert_int_equal(sl_nameset_reserve(&s, 0), 0);
    assert_int_equal(s.ns_cap, 32);
    for (int i = 0; i < N; i++) {
        snprintf(v[i].name, sizeof(v[i].name), "T%d", i);
        assert_int_equal(sl_nameset_reserve(&s, 1), 0);
        void **before = s.ns_slots;
        uint32_t cap = s.ns_cap;
        sl_nameset_insert(&s, &v[i]);
        /* Inserting after a reserve never reallocates. */
        assert_ptr_equal(s.ns_slots, before);
        assert_int_equal(s.ns_cap, cap);
        assert_true((uint64_t)s.ns_count * 2 <= s.ns_cap);
    }
    assert_int_equal(s.ns_count, N);
    assert_int_equal(s.ns_cap, 2048);
    assert_int_equal(count_slots(&s), N);
    for (int i = 0; i < N; i++) {
        char name[32];
        snprintf(name, sizeof(name), "t%d", i);
        assert_ptr_equal(sl_nameset_find(&s, name), &v[i]);
    }
    /* A request that cannot be met leaves the set as it was. */
    void **slots = s.ns_slots;
    assert_int_equal(sl_nameset_reserve(&s, UINT32_MAX), SL_ENOMEM);
    assert_ptr_equal(s.ns_slots, slots);
    assert_int_equal(s.ns_cap, 2048);
    assert_int_equal(s.ns_count, N);
    sl_nameset_fini(&s);
    free(v);
}

/* Deterministic generator, so a failure reproduces. */
static uint32_t rnd(uint64_t *st)
{
    *st = *st * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(*st >> 33);
}

static void test_random_vs_model(void **state)
{
    (void)state;
    enum { K = 97, OPS = 20000 };
    item keys[K];
    bool in[K] = {false};
    uint32_t nin = 0;
    for (int i = 0; i < K; i++)
        snprintf(keys[i].name, sizeof(keys[i].name), "%s%d", (i % 2) ? "Tb" : "tB", i);
    sl_nameset s;
    sl_nameset_init(&s, item_name);
    uint64_t st = 42;
    for (int op = 0; op < OPS; op++) {
        int k = (int)(rnd(&st) % K);
        if (in[k]) {
            sl_nameset_remove(&s, &keys[k]);
            in[k] = false;
            nin--;
        } else {
            assert_int_equal(sl_nameset_reserve(&s, 1), 0);
            sl_nameset_insert(&s, &keys[k]);
            in[k] = true;
            nin++;
        }
        assert_int_equal(s.ns_count, nin);
        assert_int_equal(count_slots(&s), nin);
        for (int j = 0; j < K; j++) {
            char name[32];
            snprintf(name, sizeof(name), "%s%d", (op + j) % 3 ? "TB" : "tb", j);
            if (in[j])
                assert_ptr_equal(sl_nameset_find(&s, name), &keys[j]);
            else
                assert_null(sl_nameset_find(&s, name));
        }
    }
    sl_nameset_fini(&s);
}

/* Many names in a small table: every removal shifts runs that wrap around slot 0. */
static void test_remove_dense(void **state)
{
    (void)state;
    enum { K = 8 };
    item keys[K];
    for (int round = 0; round < 50; round++) {
        sl_nameset s;
        sl_nameset_init(&s, item_name);
        assert_int_equal(sl_nameset_reserve(&s, K), 0);
        assert_int_equal(s.ns_cap, 16);
        for (int i = 0; i < K; i++) {
            snprintf(keys[i].name, sizeof(keys[i].name), "r%dk%d", round, i);
            sl_nameset_insert(&s, &keys[i]);
        }
        uint64_t st = (uint64_t)round + 7;
        bool in[K];
        for (int i = 0; i < K; i++)
            in[i] = true;
        for (int left = K; left > 0; left--) {
            int k;
            do
                k = (int)(rnd(&st) % K);
            while (!in[k]);
            sl_nameset_remove(&s, &keys[k]);
            in[k] = false;
            for (int j = 0; j < K; j++)
                if (in[j])
                    assert_ptr_equal(sl_nameset_find(&s, keys[j].name), &keys[j]);
                else
                    assert_null(sl_nameset_find(&s, keys[j].name));
        }
        assert_int_equal(s.ns_count, 0);
        assert_int_equal(count_slots(&s), 0);
        sl_nameset_fini(&s);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Collects the names sl_nameset_next yields, sorted. */
static int collect(const sl_nameset *s, const char **out, int max)
{
    int n = 0;
    uint32_t pos = 0;
    for (const item *it; (it = sl_nameset_next(s, &pos)) != NULL;) {
        assert_true(n < max);
        out[n++] = it->name;
    }
    qsort(out, (size_t)n, sizeof(*out), cmp_str);
    return n;
}

static void test_iteration(void **state)
{
    (void)state;
    enum { K = 40 };
    item keys[K];
    for (int i = 0; i < K; i++)
        snprintf(keys[i].name, sizeof(keys[i].name), "n%02d", i);
    /* Forward inserts, reserved all at once. */
    sl_nameset a;
    sl_nameset_init(&a, item_name);
    assert_int_equal(sl_nameset_reserve(&a, K), 0);
    for (int i = 0; i < K; i++)
        sl_nameset_insert(&a, &keys[i]);
    /* Backward inserts one reserve at a time, plus an extra item removed again. */
    item extra = {"extra"};
    sl_nameset b;
    sl_nameset_init(&b, item_name);
    assert_int_equal(sl_nameset_reserve(&b, 1), 0);
    sl_nameset_insert(&b, &extra);
    for (int i = K - 1; i >= 0; i--) {
        assert_int_equal(sl_nameset_reserve(&b, 1), 0);
        sl_nameset_insert(&b, &keys[i]);
    }
    sl_nameset_remove(&b, &extra);

    const char *na[K + 1], *nb[K + 1];
    assert_int_equal(collect(&a, na, K + 1), K);
    assert_int_equal(collect(&b, nb, K + 1), K);
    for (int i = 0; i < K; i++) {
        /* Every item exactly once, whatever the insertion history. */
        assert_string_equal(na[i], keys[i].name);
        assert_string_equal(nb[i], keys[i].name);
    }
    uint32_t end = a.ns_cap;
    assert_null(sl_nameset_next(&a, &end));
    assert_int_equal(end, a.ns_cap);
    sl_nameset_fini(&a);
    sl_nameset_fini(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_insert_find_case),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_random_vs_model),
        cmocka_unit_test(test_remove_dense),
        cmocka_unit_test(test_iteration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
