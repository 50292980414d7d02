/* bench_util.c - see bench_util.h. */
#define _GNU_SOURCE /* nftw */
#include "bench_util.h"

#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <time.h>

#include "common/kv/keycodec.h"

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

void bench_rm_rf(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void bench_meter_block(sl_block *b, int rows, uint64_t *seed)
{
    uint64_t x = *seed;
    sl_block_init(b);
    sl_block_add_column(b, SL_T_TIMESTAMP, 0);
    sl_block_add_column(b, SL_T_FLOAT, 0);
    sl_block_add_column(b, SL_T_INT, 0);
    sl_block_add_column(b, SL_T_FLOAT, 0);
    for (int r = 0; r < rows; r++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        sl_column_append_i64(&b->cols[0], r);
        sl_column_append_f64(&b->cols[1], 10.0 + (double)(x >> 54) / 100.0);
        sl_column_append_i64(&b->cols[2], 200 + (int64_t)((x >> 20) % 40));
        sl_column_append_f64(&b->cols[3], (double)((x >> 8) % 1000) / 1000.0);
    }
    sl_block_seal(b);
    *seed = x;
}

void bench_meter_stamp(sl_block *b, int i, int rows)
{
    int64_t *ts = b->cols[0].data;
    int64_t base = 1700000000000LL + (int64_t)i * rows * 1000;
    for (int r = 0; r < rows; r++)
        ts[r] = base + (int64_t)r * 1000;
}

int bench_kv_write_block(sl_kv *db, sl_kv_cf *cf, sl_kv_batch *batch, sl_buf *key, sl_buf *val,
                         uint64_t uid, const sl_block *b, bool sync, sl_error *err)
{
    sl_buf_reset(key);
    sl_buf_reset(val);
    sl_kv_batch_clear(batch);
    int rc;
    if ((rc = sl_key_put_u64(key, uid)) != 0 ||
        (rc = sl_key_put_i64(key, ((const int64_t *)b->cols[0].data)[0])) != 0 ||
        (rc = sl_block_encode(b, val)) != 0 ||
        (rc = sl_kv_batch_put(batch, cf, key->data, key->len, val->data, val->len)) != 0)
        return rc;
    return sl_kv_write(db, batch, sync ? SL_KV_SYNC_ON : SL_KV_SYNC_OFF, err);
}

int bench_meter_columns(sl_block *b)
{
    static const sl_type types[4] = {SL_T_TIMESTAMP, SL_T_FLOAT, SL_T_INT, SL_T_FLOAT};
    for (int i = 0; i < 4; i++) {
        int rc = sl_block_add_column(b, types[i], 0);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_pct(const double *v, int n, double p)
{
    int k = (int)ceil(p / 100.0 * n);
    return v[k < 1 ? 0 : k - 1];
}

void bench_print_load(void)
{
    double la[3] = {0};
    if (getloadavg(la, 3) == 3)
        printf("load average: %.2f %.2f %.2f (%ld cores; other work on the machine skews the "
               "figures)\n",
               la[0], la[1], la[2], sysconf(_SC_NPROCESSORS_ONLN));
}
