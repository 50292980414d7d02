/*
 * nameset.h - a set of items found by case-insensitive name.
 *
 * The embedded store and the mnode catalog each keep a database's tables in a set keyed
 * by the table's name, compared without regard to ASCII case, and may hold many thousands
 * of them. This is that set, written once: open addressing with linear probing over an
 * FNV-1a hash of the lower-cased name, a power-of-two slot array kept at most half full,
 * and backward-shift removal, so there are no tombstones and a lookup stops at the first
 * empty slot. The set stores borrowed item pointers and reads each item's name through a
 * callback, so the name is never copied. Capacity is reserved separately from insertion
 * so that callers can allocate everything before a change and then insert without a
 * failure path.
 */
#ifndef SL_NAMESET_H
#define SL_NAMESET_H

#include <stdint.h>

/*
 * A name set. Callers embed it. ns_slots may be read directly to visit every item: each of
 * the ns_cap slots is NULL or one item, in no meaningful order (or use sl_nameset_next).
 */
typedef struct sl_nameset {
    void **ns_slots;                          /* ns_cap slots, NULL where empty */
    uint32_t ns_cap;                          /* 0 before the first reserve, else a power of two */
    uint32_t ns_count;                        /* items stored */
    const char *(*ns_name)(const void *item); /* the item's name (NUL-terminated, stable) */
} sl_nameset;

/*
 * Initialises an empty set whose items are named by name(item); allocates nothing.
 * An item's name must not change while the item is in the set.
 */
void sl_nameset_init(sl_nameset *s, const char *(*name)(const void *item));

/*
 * Frees the slot array only (the items stay the caller's) and leaves the set empty.
 * NULL-safe.
 */
void sl_nameset_fini(sl_nameset *s);

/*
 * Ensures that `more` further items can be inserted without allocating (the load factor
 * stays at or below 1/2). Returns 0, or SL_ENOMEM with the set unchanged. Items keep their
 * pointers but may move between slots.
 */
int sl_nameset_reserve(sl_nameset *s, uint32_t more);

/*
 * Adds item (borrowed; must not be NULL). Capacity must have been reserved and no item of
 * the same name (ignoring case) may be present: this cannot fail.
 */
void sl_nameset_insert(sl_nameset *s, void *item);

/* Returns the item whose name equals name ignoring ASCII case, or NULL. */
void *sl_nameset_find(const sl_nameset *s, const char *name);

/* Removes item, which must be in the set (compared by pointer). Never allocates. */
void sl_nameset_remove(sl_nameset *s, const void *item);

/* The hash used for names: FNV-1a over the lower-cased bytes of s. */
uint32_t sl_nameset_hash(const char *s);

/*
 * Iterates: returns the first item in a slot at or after *pos and moves *pos past it, or
 * NULL at the end. Start with *pos = 0. Items come in slot order, which depends on the
 * history of the set, not on names. The set must not change during an iteration, except
 * that a caller about to finalise it may set visited slots to NULL.
 *
 *     uint32_t pos = 0;
 *     for (T *t; (t = sl_nameset_next(&set, &pos)) != NULL;)
 */
void *sl_nameset_next(const sl_nameset *s, uint32_t *pos);

#endif
