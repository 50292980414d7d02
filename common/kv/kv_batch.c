/*
 * kv_batch.c - write batches: operations collected in memory and applied atomically by
 * sl_kv_write(); see kv.h.
 *
 * RocksDB's C API appends to a batch without reporting errors, while its C++ core rejects
 * items longer than 4 GiB by returning a status that the C layer drops. The checks here keep
 * such an item out of the batch and tell the caller, instead of writing a batch that lacks
 * one operation.
 */
#include "kv_int.h"

#include <assert.h>
#include <stdlib.h>

struct sl_kv_batch {
    rocksdb_writebatch_t *wb_rep; /* the RocksDB batch */
    size_t wb_count;              /* operations appended since the last clear */
};

rocksdb_writebatch_t *sl__kv_batch_rep(sl_kv_batch *b)
{
    return b->wb_rep;
}

int sl_kv_batch_open(sl_kv_batch **out)
{
    sl_kv_batch *b = calloc(1, sizeof(*b));
    if (b == NULL)
        return SL_ENOMEM;
    b->wb_rep = rocksdb_writebatch_create();
    *out = b;
    return 0;
}

void sl_kv_batch_close(sl_kv_batch *b)
{
    if (b == NULL)
        return;
    rocksdb_writebatch_destroy(b->wb_rep);
    free(b);
}

int sl_kv_batch_put(sl_kv_batch *b, sl_kv_cf *cf, const void *key, size_t klen, const void *val,
                    size_t vlen)
{
    int rc = sl__kv_check_item(key, klen);
    if (rc == 0)
        rc = sl__kv_check_item(val, vlen);
    if (rc != 0)
        return rc;
    rocksdb_writebatch_put_cf(b->wb_rep, cf->cf_h, sl__kv_bytes(key), klen, sl__kv_bytes(val),
                              vlen);
    b->wb_count++;
    return 0;
}

int sl_kv_batch_delete(sl_kv_batch *b, sl_kv_cf *cf, const void *key, size_t klen)
{
    int rc = sl__kv_check_item(key, klen);
    if (rc != 0)
        return rc;
    rocksdb_writebatch_delete_cf(b->wb_rep, cf->cf_h, sl__kv_bytes(key), klen);
    b->wb_count++;
    return 0;
}

int sl_kv_batch_delete_range(sl_kv_batch *b, sl_kv_cf *cf, const void *begin, size_t blen,
                             const void *end, size_t elen)
{
    int rc = sl__kv_check_item(begin, blen);
    if (rc == 0)
        rc = sl__kv_check_item(end, elen);
    if (rc != 0)
        return rc;
    int c = sl__kv_cmp(begin, blen, end, elen);
    if (c > 0)
        return SL_EINVAL;
    if (c == 0)
        return 0;
    rocksdb_writebatch_delete_range_cf(b->wb_rep, cf->cf_h, sl__kv_bytes(begin), blen,
                                       sl__kv_bytes(end), elen);
    b->wb_count++;
    return 0;
}

size_t sl_kv_batch_count(const sl_kv_batch *b)
{
    assert((int)b->wb_count == rocksdb_writebatch_count(b->wb_rep));
    return b->wb_count;
}

size_t sl_kv_batch_bytes(const sl_kv_batch *b)
{
    size_t n = 0;
    (void)rocksdb_writebatch_data(b->wb_rep, &n);
    return n;
}

void sl_kv_batch_clear(sl_kv_batch *b)
{
    rocksdb_writebatch_clear(b->wb_rep);
    b->wb_count = 0;
}
