/*
 * bench_util.h - pieces shared by the benchmarks (sluice-bench, vstore-bench): a clock,
 * removing a scratch folder, the generated meter rows (ts, current FLOAT, voltage INT,
 * phase FLOAT) and the in-process RocksDB baseline writer (one encoded block per sl_kv
 * batch, keyed (uid, first ts) as the vnode's data keys are).
 */
#ifndef SL_BENCH_UTIL_H
#define SL_BENCH_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/kv/kv.h"
#include "common/types/block.h"
#include "common/util/buf.h"

/* Monotonic clock, seconds. */
double bench_now(void);

/* rm -rf dir (best effort). */
void bench_rm_rf(const char *dir);

/* Fills b (initialised here) with `rows` meter rows whose values come from *seed;
 * timestamps are set by bench_meter_stamp. */
void bench_meter_block(sl_block *b, int rows, uint64_t *seed);

/* Sets the timestamps of b for batch i: one row per second from i * rows seconds. */
void bench_meter_stamp(sl_block *b, int i, int rows);

/* Adds the columns of the meters table (ts TIMESTAMP, current FLOAT, voltage INT,
 * phase FLOAT) to the empty block b: 0 or SL_ENOMEM. */
int bench_meter_columns(sl_block *b);

/* qsort comparator of doubles, ascending. */
int bench_cmp_double(const void *a, const void *b);

/* Nearest-rank percentile p (0-100] of the sorted v[0..n), n >= 1. */
double bench_pct(const double *v, int n, double p);

/* Prints the load average and the core count: other work on the machine skews timings. */
void bench_print_load(void);

/* The baseline writer: encodes b and writes it under key (uid, first ts) into cf as one
 * batch; key/val/batch are the caller's scratch. Returns 0 or a storage error. */
int bench_kv_write_block(sl_kv *db, sl_kv_cf *cf, sl_kv_batch *batch, sl_buf *key, sl_buf *val,
                         uint64_t uid, const sl_block *b, bool sync, sl_error *err);

#endif
