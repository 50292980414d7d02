/*
 * grow.c - doubling growth of caller-owned arrays; see grow.h.
 */
#include "grow.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

int sl_grow(void *arr, size_t elem, int *cap, int need, int first)
{
    if (need <= *cap)
        return 0;
    long long ncap = *cap > 0 ? *cap : (first > 0 ? first : 1);
    while (ncap < need)
        ncap *= 2;
    if (ncap > INT_MAX || (size_t)ncap > SIZE_MAX / elem)
        return SL_ENOMEM;
    void *old;
    memcpy(&old, arr, sizeof(old));
    void *p = realloc(old, (size_t)ncap * elem);
    if (p == NULL)
        return SL_ENOMEM;
    memcpy(arr, &p, sizeof(p));
    *cap = (int)ncap;
    return 0;
}
