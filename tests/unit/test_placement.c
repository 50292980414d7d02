/*
 * test_placement.c - rendezvous placement of (stream, slot) pairs (mnode/placement.h).
 *
 * Expected values come from independent computations: the pinned scores from a separate
 * Python implementation of the score definition written in placement.c's header comment,
 * owners from brute-force loops in this file over sl_place_score (argmax with the contract's
 * tie rule), the movement minima from the rendezvous argument (a join moves exactly the
 * pairs the newcomer wins, a death exactly the pairs the dead node owned), and load and
 * uniformity bounds from the binomial distribution (stated at each check).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mnode/placement.h"

/* Test-local generator for node ids and shuffles (xorshift64). */
static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* n distinct nonzero random node ids. */
static void random_nodes(uint32_t *nodes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t id;
        bool dup;
        do {
            id = (uint32_t)rng();
            dup = id == 0;
            for (size_t k = 0; k < i && !dup; k++)
                dup = nodes[k] == id;
        } while (dup);
        nodes[i] = id;
    }
}

static void shuffle(uint32_t *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(rng() % i);
        uint32_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* The contract, spelled out: highest score, ties to the lower id; 0 with no candidates. */
static uint32_t brute_owner(uint64_t stream, uint32_t slot, const uint32_t *nodes, size_t n)
{
    uint32_t best_id = 0;
    uint64_t best = 0;
    for (size_t j = 0; j < n; j++) {
        uint64_t s = sl_place_score(stream, slot, nodes[j]);
        if (j == 0 || s > best || (s == best && nodes[j] < best_id)) {
            best = s;
            best_id = nodes[j];
        }
    }
    return best_id;
}

static void test_score_pinned(void **state)
{
    (void)state;
    /* Computed by an independent Python implementation of the definition in placement.c;
     * these must never change (a restarted mnode recomputes the same placement). */
    static const struct {
        uint64_t stream;
        uint32_t slot, node;
        uint64_t score;
    } cases[] = {
        {0x0ull, 0u, 0u, 0x80aeae9570e56e60ull},
        {0x1ull, 0u, 1u, 0x2920dc316a260a5cull},
        {0x1ull, 255u, 100u, 0x070c1ce034ae8e7full},
        {0x2aull, 7u, 3u, 0xa21cdb826b76d083ull},
        {0xffffffffffffffffull, 4294967295u, 4294967295u, 0x8accb1936792fceaull},
        {0x7048860ddf79ull, 17u, 50u, 0xa471bebab45d17e3ull},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_true(sl_place_score(cases[i].stream, cases[i].slot, cases[i].node) ==
                    cases[i].score);
    /* Owners of stream 42, slots 0..7 over nodes 1..5, from the same Python model. */
    static const uint32_t nodes[] = {1, 2, 3, 4, 5};
    static const uint32_t want[] = {5, 5, 5, 3, 2, 3, 4, 1};
    uint32_t got[8];
    sl_place_stream(42, 8, nodes, 5, got);
    for (uint32_t s = 0; s < 8; s++) {
        assert_int_equal(sl_place_owner(42, s, nodes, 5), want[s]);
        assert_int_equal(got[s], want[s]);
    }
}

static void test_slot_of_group(void **state)
{
    (void)state;
    assert_int_equal(sl_place_slot(0, SL_PLACE_SLOTS), 0);
    assert_int_equal(sl_place_slot(1000, SL_PLACE_SLOTS), 232); /* 1000 = 3 * 256 + 232 */
    assert_int_equal(sl_place_slot(UINT64_MAX, SL_PLACE_SLOTS), 255);
    assert_int_equal(sl_place_slot(UINT64_MAX, 10), 5); /* 18446744073709551615 */
    assert_int_equal(sl_place_slot(12345, 1), 0);
}

static void test_no_nodes(void **state)
{
    (void)state;
    assert_int_equal(sl_place_owner(1, 0, NULL, 0), 0);
    uint32_t dummy = 9;
    assert_int_equal(sl_place_owner(77, 3, &dummy, 0), 0);
    uint32_t owners[SL_PLACE_SLOTS];
    memset(owners, 0xAA, sizeof(owners));
    sl_place_stream(5, SL_PLACE_SLOTS, NULL, 0, owners);
    for (uint32_t s = 0; s < SL_PLACE_SLOTS; s++)
        assert_int_equal(owners[s], 0);
}

static void test_zero_slots(void **state)
{
    (void)state;
    /* nslots 0 is an empty range: nothing is written, so owners may even be NULL. */
    static const uint32_t nodes[] = {1, 2, 3};
    uint32_t owners[4];
    memset(owners, 0xAA, sizeof(owners));
    sl_place_stream(5, 0, nodes, 3, owners);
    sl_place_stream(5, 0, nodes, 0, owners);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(owners[i], 0xAAAAAAAAu);
    sl_place_stream(5, 0, nodes, 3, NULL);
    sl_place_stream(5, 0, NULL, 0, NULL);
}

static void test_single_node(void **state)
{
    (void)state;
    static const uint32_t ids[] = {1, 7, 0xFFFFFFFFu};
    uint32_t owners[SL_PLACE_SLOTS];
    for (size_t k = 0; k < 3; k++) {
        for (uint64_t st = 0; st < 50; st++) {
            sl_place_stream(st * 0x100000001ull, SL_PLACE_SLOTS, &ids[k], 1, owners);
            for (uint32_t s = 0; s < SL_PLACE_SLOTS; s++) {
                assert_int_equal(owners[s], ids[k]);
                assert_int_equal(sl_place_owner(st * 0x100000001ull, s, &ids[k], 1), ids[k]);
            }
        }
    }
}

static void test_owner_is_argmax(void **state)
{
    (void)state;
    /* Also the tie rule: distinct ids never tie (the score is injective in the node for a
     * fixed pair), so ties are made by repeating ids; the brute force takes the first
     * maximum and then only a strictly lower id, exactly the contract. */
    uint32_t nodes[64];
    uint32_t dup[128];
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + (size_t)(rng() % 64);
        random_nodes(nodes, n);
        uint64_t stream = rng();
        for (uint32_t slot = 0; slot < 16; slot++) {
            uint32_t want = brute_owner(stream, slot, nodes, n);
            assert_int_equal(sl_place_owner(stream, slot, nodes, n), want);
            /* The same set with every id repeated, in a shuffled order. */
            memcpy(dup, nodes, n * sizeof(uint32_t));
            memcpy(dup + n, nodes, n * sizeof(uint32_t));
            shuffle(dup, 2 * n);
            assert_int_equal(sl_place_owner(stream, slot, dup, 2 * n), want);
        }
    }
}

static void test_no_ties_between_distinct_nodes(void **state)
{
    (void)state;
    /* For a fixed pair, the scores of 100,000 distinct nodes are pairwise distinct: the
     * tie rule never decides between different snodes. */
    enum { N = 100000 };
    uint64_t *sc = malloc(N * sizeof(uint64_t));
    assert_non_null(sc);
    for (uint32_t i = 0; i < N; i++)
        sc[i] = sl_place_score(99, 3, i + 1);
    /* Insertion into a hash set of 2^18 slots (open addressing on the score itself). */
    enum { CAP = 1 << 18 };
    uint64_t *set = calloc(CAP, sizeof(uint64_t));
    uint8_t *used = calloc(CAP, 1);
    assert_non_null(set);
    assert_non_null(used);
    for (uint32_t i = 0; i < N; i++) {
        size_t q = (size_t)(sc[i] & (CAP - 1));
        while (used[q]) {
            assert_true(set[q] != sc[i]);
            q = (q + 1) & (CAP - 1);
        }
        used[q] = 1;
        set[q] = sc[i];
    }
    free(used);
    free(set);
    free(sc);
}

static void test_order_independent(void **state)
{
    (void)state;
    uint32_t nodes[40];
    uint32_t want[SL_PLACE_SLOTS], got[SL_PLACE_SLOTS];
    for (int round = 0; round < 20; round++) {
        size_t n = 2 + (size_t)(rng() % 39);
        random_nodes(nodes, n);
        uint64_t stream = rng();
        for (uint32_t s = 0; s < SL_PLACE_SLOTS; s++)
            want[s] = brute_owner(stream, s, nodes, n);
        for (int perm = 0; perm < 10; perm++) {
            shuffle(nodes, n);
            sl_place_stream(stream, SL_PLACE_SLOTS, nodes, n, got);
            for (uint32_t s = 0; s < SL_PLACE_SLOTS; s++) {
                assert_int_equal(got[s], want[s]);
                assert_int_equal(sl_place_owner(stream, s, nodes, n), want[s]);
            }
        }
    }
}

static void test_stream_matches_owner(void **state)
{
    (void)state;
    /* Node and slot counts on both sides of the implementation's blocks (128 nodes, 256
     * slots), so the block merging is exercised. */
    static const size_t ns[] = {1, 2, 3, 100, 127, 128, 129, 256, 300, 1000};
    static const uint32_t slots[] = {1, 7, 255, 256, 257, 600};
    uint32_t *nodes = malloc(1000 * sizeof(uint32_t));
    uint32_t *owners = malloc(600 * sizeof(uint32_t));
    assert_non_null(nodes);
    assert_non_null(owners);
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++) {
        random_nodes(nodes, ns[a]);
        for (size_t b = 0; b < sizeof(slots) / sizeof(slots[0]); b++) {
            for (int k = 0; k < 3; k++) {
                uint64_t stream = k == 0 ? 0 : rng();
                memset(owners, 0xAA, 600 * sizeof(uint32_t));
                sl_place_stream(stream, slots[b], nodes, ns[a], owners);
                for (uint32_t s = 0; s < slots[b]; s++) {
                    assert_int_equal(owners[s], brute_owner(stream, s, nodes, ns[a]));
                    assert_int_equal(owners[s], sl_place_owner(stream, s, nodes, ns[a]));
                }
                for (uint32_t s = slots[b]; s < 600; s++)
                    assert_int_equal(owners[s], 0xAAAAAAAAu);
            }
        }
    }
    free(owners);
    free(nodes);
}

enum { MOVE_STREAMS = 2000 };
#define MOVE_PAIRS ((size_t)MOVE_STREAMS * SL_PLACE_SLOTS)

static void place_all(const uint32_t *nodes, size_t n, uint32_t *owners)
{
    for (uint64_t st = 0; st < MOVE_STREAMS; st++)
        sl_place_stream(st + 1, SL_PLACE_SLOTS, nodes, n, owners + st * SL_PLACE_SLOTS);
}

static void test_join_moves_minimum(void **state)
{
    (void)state;
    uint32_t nodes[13];
    uint32_t *before = malloc(MOVE_PAIRS * sizeof(uint32_t));
    uint32_t *after = malloc(MOVE_PAIRS * sizeof(uint32_t));
    assert_non_null(before);
    assert_non_null(after);
    for (size_t n = 3; n <= 12; n++) {
        random_nodes(nodes, n + 1); /* nodes[n] is the newcomer */
        uint32_t newcomer = nodes[n];
        place_all(nodes, n, before);
        shuffle(nodes, n + 1); /* it joins anywhere in the list */
        place_all(nodes, n + 1, after);
        size_t moved = 0, won = 0;
        for (size_t i = 0; i < MOVE_PAIRS; i++) {
            if (after[i] != before[i]) {
                moved++;
                assert_int_equal(after[i], newcomer); /* nothing moves between old nodes */
            }
            won += after[i] == newcomer;
        }
        assert_int_equal(moved, won); /* the minimum: exactly the newcomer's pairs */
        /* Binomial(512000, 1/(n+1)): the standard deviation is at most 0.25% of the pairs
         * (n = 3), so 5% of the mean is over 10 standard deviations for every n here. */
        double expect = (double)MOVE_PAIRS / (double)(n + 1);
        assert_true((double)moved > expect * 0.95 && (double)moved < expect * 1.05);
    }
    free(after);
    free(before);
}

static void test_death_moves_minimum(void **state)
{
    (void)state;
    uint32_t nodes[12], rest[11];
    uint32_t *before = malloc(MOVE_PAIRS * sizeof(uint32_t));
    uint32_t *after = malloc(MOVE_PAIRS * sizeof(uint32_t));
    assert_non_null(before);
    assert_non_null(after);
    for (size_t n = 3; n <= 12; n++) {
        random_nodes(nodes, n);
        size_t victim_at = (size_t)(rng() % n);
        uint32_t victim = nodes[victim_at];
        place_all(nodes, n, before);
        size_t m = 0;
        for (size_t j = 0; j < n; j++)
            if (j != victim_at)
                rest[m++] = nodes[j];
        place_all(rest, n - 1, after);
        size_t moved = 0, owned = 0;
        for (size_t i = 0; i < MOVE_PAIRS; i++) {
            owned += before[i] == victim;
            assert_true(after[i] != victim);
            if (after[i] != before[i]) {
                moved++;
                assert_int_equal(before[i], victim); /* only the dead node's pairs move */
            }
        }
        assert_int_equal(moved, owned);
        double expect = (double)MOVE_PAIRS / (double)n;
        assert_true((double)moved > expect * 0.95 && (double)moved < expect * 1.05);
    }
    free(after);
    free(before);
}

static void test_balance(void **state)
{
    (void)state;
    /* 100 nodes (ids 1..100), 10,000 streams x 256 slots = 2.56M pairs: each count is
     * Binomial(2.56M, 1/100), mean 25,600, standard deviation 159 (0.62% of the mean), so
     * a 5% band is 8 standard deviations wide on either side. */
    enum { NODES = 100, STREAMS = 10000 };
    uint32_t nodes[NODES];
    uint64_t load[NODES + 1] = {0};
    uint32_t owners[SL_PLACE_SLOTS];
    for (uint32_t i = 0; i < NODES; i++)
        nodes[i] = i + 1;
    for (uint64_t st = 1; st <= STREAMS; st++) {
        sl_place_stream(st, SL_PLACE_SLOTS, nodes, NODES, owners);
        for (uint32_t s = 0; s < SL_PLACE_SLOTS; s++) {
            assert_true(owners[s] >= 1 && owners[s] <= NODES);
            load[owners[s]]++;
        }
    }
    double mean = (double)STREAMS * SL_PLACE_SLOTS / NODES;
    uint64_t min = UINT64_MAX, max = 0, sum = 0;
    for (uint32_t i = 1; i <= NODES; i++) {
        min = load[i] < min ? load[i] : min;
        max = load[i] > max ? load[i] : max;
        sum += load[i];
    }
    assert_int_equal(sum, (uint64_t)STREAMS * SL_PLACE_SLOTS);
    assert_true((double)max / mean <= 1.05);
    assert_true((double)min / mean >= 0.95);
}

static void test_scores_uniform(void **state)
{
    (void)state;
    /* For fixed pairs, the scores over 1000 nodes: each of the 64 bits is set in
     * Binomial(1000, 1/2) of them (sd 15.8), accepted within 500 +- 100 (6.3 sd); the top
     * 4 bits fall in 16 buckets of mean 62.5 (sd 7.7), accepted within [25, 100]. The same
     * over 1000 slots of one stream for a fixed node. */
    static const uint64_t streams[] = {0, 1, 2, 0xFFFFFFFFFFFFFFFFull, 123456789};
    for (size_t k = 0; k < sizeof(streams) / sizeof(streams[0]); k++) {
        for (int axis = 0; axis < 2; axis++) {
            unsigned bits[64] = {0};
            unsigned buckets[16] = {0};
            for (uint32_t i = 0; i < 1000; i++) {
                uint64_t s = axis == 0 ? sl_place_score(streams[k], 17, i + 1)
                                       : sl_place_score(streams[k], i, 42);
                for (int b = 0; b < 64; b++)
                    bits[b] += (unsigned)((s >> b) & 1);
                buckets[s >> 60]++;
            }
            for (int b = 0; b < 64; b++)
                assert_in_range(bits[b], 400, 600);
            for (int b = 0; b < 16; b++)
                assert_in_range(buckets[b], 25, 100);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_score_pinned),
        cmocka_unit_test(test_slot_of_group),
        cmocka_unit_test(test_no_nodes),
        cmocka_unit_test(test_zero_slots),
        cmocka_unit_test(test_single_node),
        cmocka_unit_test(test_owner_is_argmax),
        cmocka_unit_test(test_no_ties_between_distinct_nodes),
        cmocka_unit_test(test_order_independent),
        cmocka_unit_test(test_stream_matches_owner),
        cmocka_unit_test(test_join_moves_minimum),
        cmocka_unit_test(test_death_moves_minimum),
        cmocka_unit_test(test_balance),
        cmocka_unit_test(test_scores_uniform),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
