/*
 * keymap.h - byte-string keys to dense ids, in order of first insertion.
 *
 * Grouping operators (aggregate, partition) and, later, the trigger engine's group table
 * turn each distinct key (the encoded values of the GROUP BY / PARTITION BY columns) into
 * a small integer that indexes their per-group arrays. Open addressing with linear
 * probing over xxHash3 hashes; key bytes live in one growing arena, so a million groups
 * cost a million slots plus their bytes, not a million mallocs.
 */
#ifndef SL_KEYMAP_H
#define SL_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

typedef struct sl_keymap_slot sl_keymap_slot;

/* A key map. Callers embed it. */
typedef struct sl_keymap {
    sl_keymap_slot *km_slots; /* km_cap slots */
    size_t km_cap;            /* power of two */
    uint32_t km_count;        /* keys stored; ids are 0..km_count-1 */
    sl_buf km_bytes;          /* all key bytes, back to back */
    size_t *km_offs;          /* id -> offset of its key in km_bytes (km_count+1 entries) */
    size_t km_offs_cap;
} sl_keymap;

/* Initialises an empty map. Returns 0 or SL_ENOMEM. */
int sl_keymap_init(sl_keymap *m);
/* Frees the map (NULL-safe). */
void sl_keymap_fini(sl_keymap *m);
/* Hash used by the map (xxHash3, 64 bits). */
uint64_t sl_hash_bytes(const void *p, size_t n);
/*
 * Finds key (len bytes) and sets *id; when absent, adds it with the next id and sets
 * *added (may be NULL). Returns 0 or SL_ENOMEM (the map is unchanged then).
 */
int sl_keymap_get_or_add(sl_keymap *m, const void *key, size_t len, uint32_t *id, bool *added);
/* The bytes of key id and their length. */
const uint8_t *sl_keymap_key(const sl_keymap *m, uint32_t id, size_t *len);

#endif
