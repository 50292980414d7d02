/*
 * placement.c - rendezvous (highest random weight) placement of (stream, slot) pairs on
 * snodes; see placement.h and DESIGN.md section 3, "Placement by hash".
 *
 * The score is part of the cluster's behaviour (a restarted mnode must recompute the same
 * placement), so its definition below is frozen; tests/unit/test_placement.c pins it with
 * values computed by an independent implementation. With mix() the SplitMix64 finalizer
 * (Stafford's Mix13) and G the 64-bit golden ratio constant:
 *
 *   stream key  ks = mix(stream_id + G)
 *   pair key    kp = mix(ks + (slot + 1) * G)        (the slot-th SplitMix64 output from ks)
 *   node key    kn = mix(node ^ NODE_SEED)
 *   score          = mix(kp ^ kn)
 *
 * mix() is a bijection of 64-bit words with full avalanche, so for a fixed pair the scores
 * of distinct nodes are distinct (two nodes never tie: kp ^ kn is injective in the node id)
 * and look independent and uniform; the tie rule of the contract (lower id wins) only ever
 * decides between repeated entries of one id, and is kept so the result is defined whatever
 * the input. Splitting the score into a pair key and a node key is what lets
 * sl_place_stream compute every key once and pay one mix per (slot, node) score.
 */
#include "placement.h"

#include <assert.h>
#include <stdbool.h>

#define PLACE_GOLDEN    0x9e3779b97f4a7c15ull
#define PLACE_NODE_SEED 0x2545f4914f6cdd1dull

/* Keys kept on the stack by sl_place_stream: node keys and per-slot best scores are
 * computed in blocks so any n and nslots work without allocating. */
#define PLACE_NODE_BLOCK 128
#define PLACE_SLOT_BLOCK 256

static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static inline uint64_t stream_key(uint64_t stream_id)
{
    return mix(stream_id + PLACE_GOLDEN);
}

static inline uint64_t pair_key(uint64_t ks, uint32_t slot)
{
    return mix(ks + ((uint64_t)slot + 1) * PLACE_GOLDEN);
}

static inline uint64_t node_key(uint32_t node)
{
    return mix((uint64_t)node ^ PLACE_NODE_SEED);
}

/* Does (score, id) beat the current best (bs, bid)? Higher score, then lower id. */
static inline bool beats(uint64_t score, uint32_t id, uint64_t bs, uint32_t bid)
{
    return score > bs || (score == bs && id < bid);
}

uint64_t sl_place_score(uint64_t stream_id, uint32_t slot, uint32_t node)
{
    return mix(pair_key(stream_key(stream_id), slot) ^ node_key(node));
}

uint32_t sl_place_owner(uint64_t stream_id, uint32_t slot, const uint32_t *nodes, size_t n)
{
    if (n == 0)
        return 0;
    assert(nodes != NULL);
    uint64_t kp = pair_key(stream_key(stream_id), slot);
    uint32_t bid = nodes[0];
    uint64_t bs = mix(kp ^ node_key(bid));
    for (size_t j = 1; j < n; j++) {
        uint64_t s = mix(kp ^ node_key(nodes[j]));
        if (__builtin_expect(s >= bs, 0) && beats(s, nodes[j], bs, bid)) {
            bs = s;
            bid = nodes[j];
        }
    }
    return bid;
}

void sl_place_stream(uint64_t stream_id, uint32_t nslots, const uint32_t *nodes, size_t n,
                     uint32_t *owners)
{
    if (nslots == 0)
        return;
    assert(owners != NULL);
    if (n == 0) {
        for (uint32_t s = 0; s < nslots; s++)
            owners[s] = 0;
        return;
    }
    assert(nodes != NULL);
    uint64_t ks = stream_key(stream_id);
    uint64_t kp[PLACE_SLOT_BLOCK];
    uint64_t best[PLACE_SLOT_BLOCK];
    uint64_t kn[PLACE_NODE_BLOCK];
    for (uint32_t s0 = 0; s0 < nslots; s0 += PLACE_SLOT_BLOCK) {
        uint32_t ns = nslots - s0 < PLACE_SLOT_BLOCK ? nslots - s0 : PLACE_SLOT_BLOCK;
        for (uint32_t i = 0; i < ns; i++)
            kp[i] = pair_key(ks, s0 + i);
        /* Node keys are recomputed once per slot block: with the default 256 slots and up
         * to PLACE_NODE_BLOCK nodes, each key is computed exactly once per stream. */
        for (size_t n0 = 0; n0 < n; n0 += PLACE_NODE_BLOCK) {
            size_t nb = n - n0 < PLACE_NODE_BLOCK ? n - n0 : PLACE_NODE_BLOCK;
            const uint32_t *ids = nodes + n0;
            for (size_t j = 0; j < nb; j++)
                kn[j] = node_key(ids[j]);
            for (uint32_t i = 0; i < ns; i++) {
                uint64_t k = kp[i];
                uint64_t bs;
                uint32_t bid;
                size_t j = 0;
                if (n0 == 0) {
                    /* The first node is the initial best, as in sl_place_owner. */
                    bs = mix(k ^ kn[0]);
                    bid = ids[0];
                    j = 1;
                } else {
                    bs = best[i];
                    bid = owners[s0 + i];
                }
                for (; j < nb; j++) {
                    uint64_t sc = mix(k ^ kn[j]);
                    /* A new best is rare (about ln n of n scores): one predictable
                     * branch, the full rule only when it may apply. */
                    if (__builtin_expect(sc >= bs, 0) && beats(sc, ids[j], bs, bid)) {
                        bs = sc;
                        bid = ids[j];
                    }
                }
                best[i] = bs;
                owners[s0 + i] = bid;
            }
        }
    }
}
