/*
 * ts_bound.h - binary searches over an ascending array of timestamps (or any int64 key):
 * where a time range starts and ends in a column of a sorted block. Used by the embedded
 * store's scans, the vnode's block reader and the snode's kept trigger rows.
 */
#ifndef SL_TS_BOUND_H
#define SL_TS_BOUND_H

#include <stdint.h>

/* First index in [from, to) whose value is >= key (to when none). */
static inline uint32_t sl_ts_lower_bound(const int64_t *ts, uint32_t from, uint32_t to,
                                         int64_t key)
{
    while (from < to) {
        uint32_t mid = from + (to - from) / 2;
        if (ts[mid] < key)
            from = mid + 1;
        else
            to = mid;
    }
    return from;
}

/* First index in [from, to) whose value is > key (to when none). */
static inline uint32_t sl_ts_upper_bound(const int64_t *ts, uint32_t from, uint32_t to,
                                         int64_t key)
{
    while (from < to) {
        uint32_t mid = from + (to - from) / 2;
        if (ts[mid] <= key)
            from = mid + 1;
        else
            to = mid;
    }
    return from;
}

#endif
