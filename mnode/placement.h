/*
 * placement.h - where each (stream, slot) pair runs: rendezvous (highest random weight)
 * hashing over the alive snodes (DESIGN.md section 3, "Placement by hash").
 *
 * A stream's trigger groups are spread over `nslots` slots (slot = group id mod nslots,
 * SL_PLACE_SLOTS by default). Each (stream, slot) pair is owned by the snode with the
 * highest score(stream, slot, snode) among the candidates. So:
 *   - the owner depends only on the pair and the candidate set, never on order or history;
 *   - when a node joins, the only pairs that move are those the newcomer now wins (they
 *     move to it); when a node leaves, only the pairs it owned move (each to the pair's
 *     next-best node); every other pair stays where it is - the theoretical minimum;
 *   - load is even in expectation (each node wins 1/n of the pairs).
 *
 * Pure functions, no state, no I/O, no allocation: used by the mnode catalog, the bench
 * and the tests, and safe to call from any thread. Scores are stable across versions and
 * processes (they are part of the cluster's behaviour: a restarted mnode recomputes the same
 * placement); their definition is written down in placement.c and pinned by its tests.
 *
 * Node ids are the snodes' ids; 0 is reserved (it means "no owner" in the results below).
 */
#ifndef SL_PLACEMENT_H
#define SL_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

/* Slots per stream in a cluster (the default of the cluster constant). */
#define SL_PLACE_SLOTS 256u

/* The slot of a trigger group: group_id mod nslots (nslots > 0). */
static inline uint32_t sl_place_slot(uint64_t group_id, uint32_t nslots)
{
    return (uint32_t)(group_id % nslots);
}

/*
 * The rendezvous score of pair (stream_id, slot) on snode `node`: a 64-bit mix of the
 * three, uniformly distributed and independent across nodes for a fixed pair.
 */
uint64_t sl_place_score(uint64_t stream_id, uint32_t slot, uint32_t node);

/*
 * The owner of (stream_id, slot) among the n candidate node ids in nodes (any order,
 * distinct; borrowed): the one with the highest score, ties broken by the lower id. Two
 * distinct ids never tie for the same pair, and a repeated id changes nothing. Returns 0
 * when n is 0 (nodes may then be NULL).
 */
uint32_t sl_place_owner(uint64_t stream_id, uint32_t slot, const uint32_t *nodes, size_t n);

/*
 * Fills owners[0..nslots) (caller's array) with the owner of every slot of stream_id among
 * the n nodes (borrowed; 0s when n is 0, and nodes may then be NULL). Same result as nslots
 * calls of sl_place_owner, computed faster (per-node hashes are hoisted out of the slot
 * loop). nslots 0 is an empty range: nothing is written and owners may be NULL.
 */
void sl_place_stream(uint64_t stream_id, uint32_t nslots, const uint32_t *nodes, size_t n,
                     uint32_t *owners);

#endif
