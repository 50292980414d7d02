/*
 * grow.h - growing a caller-owned array by doubling.
 *
 * Catalog structures (a super table's children, a catalog's databases) keep plain arrays
 * with a count and a capacity and reserve room before a change that must not fail
 * halfway. This is the one place that reserve logic lives.
 */
#ifndef SL_GROW_H
#define SL_GROW_H

#include <stddef.h>

/*
 * Ensures *arr, an array of elem-byte entries with *cap allocated, has room for need
 * entries: when it has not, reallocates it to the first power-of-two multiple of `first`
 * (at least 1) that holds need. Returns 0, or SL_ENOMEM with *arr and *cap unchanged.
 */
int sl_grow(void *arr, size_t elem, int *cap, int need, int first);

#endif
