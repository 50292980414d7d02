/*
 * kv_int.h - internals shared by the files of common/kv (kv.c, kv_batch.c, kv_iter.c).
 *
 * The struct bodies of the opaque kv handles and the translation of RocksDB error strings
 * into sl_err codes live here. Nothing outside common/kv includes this header.
 */
#ifndef SL_KV_INT_H
#define SL_KV_INT_H

#include <rocksdb/c.h>
#include <stdatomic.h>

#include "kv.h"

struct sl_kv_cf {
    sl_kv *cf_db;                         /* database that owns the handle */
    rocksdb_column_family_handle_t *cf_h; /* RocksDB handle, destroyed at sl_kv_close */
    char *cf_name;                        /* owned, NUL-terminated */
};

struct sl_kv {
    rocksdb_t *kv_db;                   /* the open RocksDB instance */
    char *kv_path;                      /* owned copy of the path */
    rocksdb_cache_t *kv_cache;          /* block cache shared by every column family */
    rocksdb_writeoptions_t *kv_wsync;   /* sync = 1 */
    rocksdb_writeoptions_t *kv_wnosync; /* sync = 0 */
    rocksdb_readoptions_t *kv_ro;       /* reads of the latest data */
    bool kv_sync_default;               /* what SL_KV_SYNC_DEFAULT means */
    size_t kv_ncf;                      /* entries in kv_cfs */
    sl_kv_cf *kv_cfs;                   /* every open column family; [0] is "default" */
    atomic_long kv_live;                /* open snapshots + iterators, checked at close */
};

struct sl_kv_snapshot {
    sl_kv *sn_db;                   /* database the snapshot belongs to */
    const rocksdb_snapshot_t *sn_s; /* the RocksDB snapshot */
    rocksdb_readoptions_t *sn_ro;   /* read options pinned to sn_s, shared by its readers */
};

/*
 * Converts the error string RocksDB returned in *rerr into an sl_err code, records it in
 * err as "kv <op> (<path>): <text>", frees the string and sets *rerr to NULL. Returns the
 * code.
 */
int sl__kv_fail(sl_error *err, char **rerr, const sl_kv *db, const char *op);

/* Returns SL_EINVAL when p is NULL while n is not 0, SL_ELIMIT when n > SL_KV_ITEM_MAX. */
int sl__kv_check_item(const void *p, size_t n);

/* Returns the RocksDB batch inside b (kv_batch.c), for sl_kv_write(). */
rocksdb_writebatch_t *sl__kv_batch_rep(sl_kv_batch *b);

/* Compares two byte strings the way the bytewise comparator does. */
int sl__kv_cmp(const void *a, size_t alen, const void *b, size_t blen);

/* Returns p, or "" when p is NULL (RocksDB's Slice wants a pointer even for 0 bytes). */
static inline const char *sl__kv_bytes(const void *p)
{
    return p != NULL ? (const char *)p : "";
}

#endif
