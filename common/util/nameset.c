/*
 * nameset.c - a set of items found by case-insensitive name (nameset.h).
 *
 * Linear probing over a power-of-two slot array at most half full; removal shifts the
 * following run of the probe sequence back rather than leaving tombstones, so every
 * lookup ends at an empty slot and the array never needs cleaning.
 */
#include "nameset.h"

#include <assert.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <strings.h>

#include "error.h"

uint32_t sl_nameset_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s != '\0'; s++) {
        h ^= (uint32_t)tolower((unsigned char)*s);
        h *= 16777619u;
    }
    return h;
}

void sl_nameset_init(sl_nameset *s, const char *(*name)(const void *item))
{
    s->ns_slots = NULL;
    s->ns_cap = 0;
    s->ns_count = 0;
    s->ns_name = name;
}

void sl_nameset_fini(sl_nameset *s)
{
    if (s == NULL)
        return;
    free(s->ns_slots);
    s->ns_slots = NULL;
    s->ns_cap = 0;
    s->ns_count = 0;
}

static uint32_t home(const sl_nameset *s, const void *item, uint32_t mask)
{
    return sl_nameset_hash(s->ns_name(item)) & mask;
}

static void slot_put(const sl_nameset *s, void **slots, uint32_t cap, void *item)
{
    uint32_t mask = cap - 1;
    uint32_t i = home(s, item, mask);
    while (slots[i] != NULL)
        i = (i + 1) & mask;
    slots[i] = item;
}

int sl_nameset_reserve(sl_nameset *s, uint32_t more)
{
    /* Keep the load factor at or below 1/2 so probes stay short. */
    uint64_t need = ((uint64_t)s->ns_count + more) * 2;
    if (need <= s->ns_cap)
        return 0;
    uint32_t n = s->ns_cap ? s->ns_cap : 16;
    while (n < need) {
        if (n > (UINT32_MAX >> 2))
            return SL_ENOMEM;
        n *= 2;
    }
    void **slots = calloc(n, sizeof(*slots));
    if (slots == NULL)
        return SL_ENOMEM;
    for (uint32_t i = 0; i < s->ns_cap; i++)
        if (s->ns_slots[i] != NULL)
            slot_put(s, slots, n, s->ns_slots[i]);
    free(s->ns_slots);
    s->ns_slots = slots;
    s->ns_cap = n;
    return 0;
}

void sl_nameset_insert(sl_nameset *s, void *item)
{
    assert(item != NULL);
    /* Callers reserve first, so inserting never allocates. */
    assert((uint64_t)(s->ns_count + 1) * 2 <= s->ns_cap);
    slot_put(s, s->ns_slots, s->ns_cap, item);
    s->ns_count++;
}

void *sl_nameset_find(const sl_nameset *s, const char *name)
{
    if (s->ns_cap == 0)
        return NULL;
    uint32_t mask = s->ns_cap - 1;
    for (uint32_t i = sl_nameset_hash(name) & mask;; i = (i + 1) & mask) {
        void *item = s->ns_slots[i];
        if (item == NULL)
            return NULL;
        if (strcasecmp(s->ns_name(item), name) == 0)
            return item;
    }
}

void sl_nameset_remove(sl_nameset *s, const void *item)
{
    assert(s->ns_count > 0);
    uint32_t mask = s->ns_cap - 1;
    uint32_t i = home(s, item, mask);
    while (s->ns_slots[i] != item) {
        assert(s->ns_slots[i] != NULL);
        i = (i + 1) & mask;
    }
    s->ns_count--;
    uint32_t j = i;
    for (;;) {
        s->ns_slots[i] = NULL;
        for (;;) {
            j = (j + 1) & mask;
            if (s->ns_slots[j] == NULL)
                return;
            uint32_t k = home(s, s->ns_slots[j], mask);
            /* Move j back to i unless its home k lies cyclically in (i, j]. */
            bool stays = (i <= j) ? (i < k && k <= j) : (i < k || k <= j);
            if (!stays)
                break;
        }
        s->ns_slots[i] = s->ns_slots[j];
        i = j;
    }
}

void *sl_nameset_next(const sl_nameset *s, uint32_t *pos)
{
    for (uint32_t i = *pos; i < s->ns_cap; i++) {
        if (s->ns_slots[i] != NULL) {
            *pos = i + 1;
            return s->ns_slots[i];
        }
    }
    *pos = s->ns_cap;
    return NULL;
}
