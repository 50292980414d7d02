/*
 * kv.h - the one RocksDB wrapper: an ordered, durable key-value store with named keyspaces.
 *
 * Every Sluice process that keeps state on disk (the vnode's rows and change log, the
 * mnode's catalog and checkpoint store, the snode's window state and notification outbox)
 * goes through this module, and only this module includes RocksDB headers (DESIGN.md
 * section 5). It exposes what those stores need and nothing more: a database at a path,
 * column families (independent keyspaces that share one write-ahead log, so one write batch
 * is atomic across them), point reads into an sl_buf, atomic write batches with a per-write
 * durability flag, snapshots that give a consistent view across column families, bounded
 * iterators in both directions, and the maintenance calls (flush, compaction, size
 * estimates, statistics, on-disk checkpoints).
 *
 * Keys are compared bytewise (memcmp, shorter-is-smaller on a common prefix); build them
 * with keycodec.h so that byte order matches numeric order.
 *
 * Durability: a write made with SL_KV_SYNC_ON returns only after its write-ahead-log record
 * has been fsync'ed, so an acknowledged write survives kill -9 and power loss. Any write
 * that returned 0, synced or not, survives the death of the process alone (kill -9), as its
 * log record is in the kernel by then; unsynced writes may be lost on power loss or a kernel
 * crash. After a crash, the database reopens at a point in time: a write batch is either
 * entirely present or entirely absent, never half.
 *
 * Thread rules, unless a function says otherwise: an open sl_kv and its column family
 * handles may be used from any number of threads at once (reads, writes, snapshots,
 * iterators, maintenance), except sl_kv_open/sl_kv_close. An sl_kv_batch and an sl_kv_iter
 * are used by one thread at a time (no internal locking). An sl_kv_snapshot may be read
 * through from several threads at once and is closed once, when no reader uses it.
 *
 * Errors: functions return 0 or a negative sl_err code (common/util/error.h) and, when given
 * an sl_error, fill it with a message that names the operation, the database path and the
 * RocksDB status text. RocksDB statuses map to codes as: Corruption -> SL_ECORRUPT, Invalid
 * argument -> SL_EINVAL, Not implemented -> SL_EUNSUPPORTED, Not found -> SL_ENOTFOUND,
 * everything else (I/O error, busy, shutdown, ...) -> SL_EIO.
 */
#ifndef SL_KV_H
#define SL_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/util/buf.h"
#include "common/util/error.h"

/* An open database. */
typedef struct sl_kv sl_kv;
/* A column family (named keyspace) of an open database; owned by the database. */
typedef struct sl_kv_cf sl_kv_cf;
/* An atomic group of writes, built in memory and applied by sl_kv_write(). */
typedef struct sl_kv_batch sl_kv_batch;
/* A consistent, read-only view of the whole database (all column families) at one instant. */
typedef struct sl_kv_snapshot sl_kv_snapshot;
/* An ordered cursor over one column family. */
typedef struct sl_kv_iter sl_kv_iter;

/* The name of the column family every database has; it may be listed in sl_kv_open(). */
#define SL_KV_DEFAULT_CF "default"
/* Longest column family name accepted, in bytes. Names use [A-Za-z0-9_.-] only. */
#define SL_KV_CF_NAME_MAX 64
/* Longest key or value accepted by a write, in bytes (a RocksDB limit). */
#define SL_KV_ITEM_MAX ((size_t)UINT32_MAX)

/* Block compression of the stored tables (the write-ahead log is never compressed). */
typedef enum sl_kv_compression {
    /* LZ4 for recent data and ZSTD for the bottommost level when the RocksDB library was
     * built with them, else LZ4 alone, else none. Never fails for want of a codec. */
    SL_KV_COMPRESS_AUTO = 0,
    SL_KV_COMPRESS_NONE = 1,
    SL_KV_COMPRESS_LZ4 = 2,  /* fails with SL_EUNSUPPORTED when not available */
    SL_KV_COMPRESS_ZSTD = 3, /* fails with SL_EUNSUPPORTED when not available */
} sl_kv_compression;

/*
 * Options of sl_kv_open(). All-zero memory (or sl_kv_options_init()) selects the defaults
 * written beside each field. The same settings apply to every column family.
 */
typedef struct sl_kv_options {
    size_t write_buffer_size;      /* bytes of one memtable per column family; 0: 64 MiB */
    size_t block_cache_size;       /* bytes of the LRU block cache shared by all column
                                    * families; index and filter blocks live in it too, so
                                    * it bounds read memory; 0: 32 MiB */
    sl_kv_compression compression; /* default SL_KV_COMPRESS_AUTO */
    int max_open_files;            /* table files kept open; 0 or negative: no limit */
    int background_jobs;           /* flush and compaction threads; 0: 2 */
    bool sync_default;             /* sync the WAL on writes made with SL_KV_SYNC_DEFAULT
                                    * and on sl_kv_put/sl_kv_delete/sl_kv_delete_range */
    bool background_low_priority;  /* flushes and compactions at nice 19 and idle I/O
                                    * priority, for daemons whose foreground work must
                                    * win; process-wide (RocksDB's default environment) */
} sl_kv_options;

/* How a write treats the write-ahead log; see "Durability" above. */
typedef enum sl_kv_sync {
    SL_KV_SYNC_DEFAULT = 0, /* the database's sync_default option */
    SL_KV_SYNC_ON = 1,      /* fsync the log before returning: survives power loss */
    SL_KV_SYNC_OFF = 2,     /* return once the log record is written to the kernel */
} sl_kv_sync;

/* Options of sl_kv_iter_open(). All-zero memory is an unbounded iterator on live data. */
typedef struct sl_kv_iter_options {
    /* Borrowed; NULL: an implicit snapshot taken when the iterator opens (later writes are
     * not seen either way). */
    const sl_kv_snapshot *snapshot;
    const void *lower; /* inclusive lower bound, copied; NULL: none */
    size_t lower_len;
    const void *upper; /* exclusive upper bound, copied; NULL: none */
    size_t upper_len;
    /* Do not keep the blocks this scan reads in the block cache (one-off full scans:
     * checkpoints, recovery), so it does not evict the hot set. */
    bool no_fill_cache;
} sl_kv_iter_options;

/* ---------------------------------------------------------------------------------------
 * Database
 * ------------------------------------------------------------------------------------- */

/* Fills *o with the defaults (the same as all-zero memory, with the values spelled out). */
void sl_kv_options_init(sl_kv_options *o);

/*
 * Opens the database in directory `path`, creating the directory (one level) and the
 * database if missing. `cf_names` lists the column families the caller will use (n_cf
 * names, borrowed; NULL when n_cf is 0); missing ones are created. Column families that
 * exist on disk but are not listed are opened too (RocksDB requires it) and reachable with
 * sl_kv_cf_get(). The default column family always exists. `opts` is borrowed; NULL means
 * the defaults.
 *
 * On success stores the database in *out (the caller closes it with sl_kv_close()) and
 * returns 0. Errors: SL_EINVAL for an empty path, a path that exists and is not a directory,
 * or a column family name that is empty, too long, uses other characters than
 * [A-Za-z0-9_.-] or is listed twice; SL_EUNSUPPORTED for a compression this RocksDB lacks;
 * SL_EIO when RocksDB cannot open the database (permissions, the database is open in
 * another process or another sl_kv of this one, ...); SL_ECORRUPT for damaged files;
 * SL_ENOMEM. *out is untouched on failure.
 */
int sl_kv_open(sl_kv **out, const char *path, const sl_kv_options *opts,
               const char *const *cf_names, size_t n_cf, sl_error *err);

/*
 * Closes the database (NULL-safe): waits for running background work, releases the column
 * family handles and frees everything. Writes that returned 0 are kept (they are in the
 * log); nothing is flushed on purpose. Every iterator and snapshot of the database must be
 * closed first (checked by assert); batches are independent of the database and may
 * outlive it. Not thread-safe: no other call on the database may run or follow.
 */
void sl_kv_close(sl_kv *db);

/* Returns the path the database was opened at (owned by the database). */
const char *sl_kv_path(const sl_kv *db);

/*
 * Returns the handle of the column family called `name`, or NULL when the database has no
 * such column family. The handle is owned by the database and valid until sl_kv_close().
 * Thread-safe.
 */
sl_kv_cf *sl_kv_cf_get(sl_kv *db, const char *name);

/* Returns the default column family of the database (never NULL). */
sl_kv_cf *sl_kv_cf_default(sl_kv *db);

/* Returns the name of a column family (owned by the database). */
const char *sl_kv_cf_name(const sl_kv_cf *cf);

/* ---------------------------------------------------------------------------------------
 * Point reads and single writes. `cf` must belong to `db`. Keys and values are borrowed
 * byte ranges; a NULL pointer is accepted only with length 0.
 * ------------------------------------------------------------------------------------- */

/*
 * Reads the value of `key` in `cf`, as of `snap` (borrowed; NULL: the latest data). On
 * success replaces the contents of `out` with the value (the allocation is reused) and
 * returns 0. Returns SL_ENOTFOUND when the key is absent; that ordinary outcome leaves `out`
 * and `err` untouched. Other errors: SL_EINVAL (NULL key with a length), SL_ENOMEM (out
 * cannot grow), SL_EIO/SL_ECORRUPT from storage.
 */
int sl_kv_get(sl_kv *db, sl_kv_cf *cf, const sl_kv_snapshot *snap, const void *key, size_t klen,
              sl_buf *out, sl_error *err);

/*
 * Sets `key` to `val` in `cf`, with the database's default durability. Returns 0, SL_EINVAL,
 * SL_ELIMIT (key or value longer than SL_KV_ITEM_MAX) or a storage error.
 */
int sl_kv_put(sl_kv *db, sl_kv_cf *cf, const void *key, size_t klen, const void *val, size_t vlen,
              sl_error *err);

/* Removes `key` from `cf` (absent keys are fine), with the default durability. Returns 0,
 * SL_EINVAL, SL_ELIMIT or a storage error. */
int sl_kv_delete(sl_kv *db, sl_kv_cf *cf, const void *key, size_t klen, sl_error *err);

/*
 * Removes every key k of `cf` with begin <= k < end, with the default durability, in time
 * independent of the number of keys (one range tombstone; the space is reclaimed by later
 * compactions). Both bounds are required (see sl_key_successor() for a prefix's end).
 * begin == end removes nothing. Returns 0, SL_EINVAL (begin > end, NULL bounds with a
 * length), SL_ELIMIT or a storage error.
 */
int sl_kv_delete_range(sl_kv *db, sl_kv_cf *cf, const void *begin, size_t blen, const void *end,
                       size_t elen, sl_error *err);

/* ---------------------------------------------------------------------------------------
 * Write batches
 * ------------------------------------------------------------------------------------- */

/*
 * Creates an empty batch in *out; the caller frees it with sl_kv_batch_close(). A batch
 * may span column families of one database and is reusable after sl_kv_batch_clear().
 * Returns 0 or SL_ENOMEM.
 */
int sl_kv_batch_open(sl_kv_batch **out);

/* Frees a batch and the writes it holds (NULL-safe). */
void sl_kv_batch_close(sl_kv_batch *b);

/*
 * Append one operation to the batch; the key and value bytes are copied. The operations
 * take effect in order when the batch is written. `cf` must belong to the database the
 * batch will be written to. Return 0, SL_EINVAL (NULL bytes with a length; begin > end for
 * a range) or SL_ELIMIT (an item longer than SL_KV_ITEM_MAX); the batch is unchanged on
 * failure. A range with begin == end appends nothing.
 */
int sl_kv_batch_put(sl_kv_batch *b, sl_kv_cf *cf, const void *key, size_t klen, const void *val,
                    size_t vlen);
int sl_kv_batch_delete(sl_kv_batch *b, sl_kv_cf *cf, const void *key, size_t klen);
int sl_kv_batch_delete_range(sl_kv_batch *b, sl_kv_cf *cf, const void *begin, size_t blen,
                             const void *end, size_t elen);

/* Returns the number of operations in the batch. */
size_t sl_kv_batch_count(const sl_kv_batch *b);

/* Returns the encoded size of the batch in bytes (a measure for "flush at N bytes"). */
size_t sl_kv_batch_bytes(const sl_kv_batch *b);

/* Removes every operation from the batch, keeping its memory for reuse. */
void sl_kv_batch_clear(sl_kv_batch *b);

/*
 * Applies every operation of `b` to `db` atomically: readers, snapshots and a database
 * reopened after a crash see all of them or none. `sync` chooses the durability (see
 * sl_kv_sync); with SL_KV_SYNC_ON a return of 0 is an acknowledgement that survives power
 * loss. The batch is left as it was (clear it to reuse it). An empty batch is a no-op.
 * Returns 0, SL_EINVAL (bad sync value) or a storage error, in which case nothing of the
 * batch was applied. Concurrent writers are grouped into one log write by RocksDB.
 */
int sl_kv_write(sl_kv *db, sl_kv_batch *b, sl_kv_sync sync, sl_error *err);

/*
 * Makes every write that has returned so far durable against power loss (fsyncs the log),
 * so a burst of SL_KV_SYNC_OFF writes can be acknowledged with one sync. Returns 0 or a
 * storage error.
 */
int sl_kv_sync_wal(sl_kv *db, sl_error *err);

/* ---------------------------------------------------------------------------------------
 * Snapshots
 * ------------------------------------------------------------------------------------- */

/*
 * Takes a snapshot of the whole database (every column family at the same instant) into
 * *out. Reads through it ignore every later write. A snapshot pins old versions of the data
 * it sees, so long-lived snapshots cost disk space: close it when done, with
 * sl_kv_snapshot_close(), before closing the database and after closing the iterators that
 * use it. Returns 0 or SL_ENOMEM.
 */
int sl_kv_snapshot_open(sl_kv_snapshot **out, sl_kv *db);

/* Releases a snapshot (NULL-safe). */
void sl_kv_snapshot_close(sl_kv_snapshot *snap);

/* ---------------------------------------------------------------------------------------
 * Iterators. A fresh iterator is not positioned (not valid): call first, last, seek or
 * seek_for_prev. Positioning calls never fail outright: when the iterator becomes invalid,
 * sl_kv_iter_status() tells the end of the range (0) from an error.
 * ------------------------------------------------------------------------------------- */

/*
 * Opens an iterator over the keys of `cf` inside the bounds of `opts` (borrowed; NULL: no
 * bounds, latest data). The iterator sees one consistent state (its snapshot, or the
 * implicit one taken now). Close it with sl_kv_iter_close() before the database and before
 * its snapshot. Returns 0, SL_EINVAL (lower > upper, NULL bound with a length) or SL_ENOMEM.
 */
int sl_kv_iter_open(sl_kv_iter **out, sl_kv *db, sl_kv_cf *cf, const sl_kv_iter_options *opts,
                    sl_error *err);

/* Closes an iterator (NULL-safe). */
void sl_kv_iter_close(sl_kv_iter *it);

/* Positions at the smallest key (at or above the lower bound). */
void sl_kv_iter_first(sl_kv_iter *it);
/* Positions at the largest key (below the upper bound). */
void sl_kv_iter_last(sl_kv_iter *it);
/* Positions at the smallest key >= key (a target below the lower bound acts as the bound). */
void sl_kv_iter_seek(sl_kv_iter *it, const void *key, size_t klen);
/* Positions at the largest key <= key (a target at or above the upper bound acts as "last"). */
void sl_kv_iter_seek_for_prev(sl_kv_iter *it, const void *key, size_t klen);
/* Moves to the next / previous key. The iterator must be valid. */
void sl_kv_iter_next(sl_kv_iter *it);
void sl_kv_iter_prev(sl_kv_iter *it);

/* Returns true while the iterator is positioned on a key inside its bounds. */
bool sl_kv_iter_valid(const sl_kv_iter *it);

/*
 * Return the current key / value and store their length in *len. The iterator must be
 * valid. The bytes belong to the iterator and stay valid until it moves or closes.
 */
const void *sl_kv_iter_key(const sl_kv_iter *it, size_t *len);
const void *sl_kv_iter_value(const sl_kv_iter *it, size_t *len);

/*
 * Returns 0 when the iterator has met no error (an invalid iterator then simply ran out of
 * keys), else the error (SL_EIO, SL_ECORRUPT, ...) with its message in err.
 */
int sl_kv_iter_status(const sl_kv_iter *it, sl_error *err);

/* ---------------------------------------------------------------------------------------
 * Maintenance and statistics
 * ------------------------------------------------------------------------------------- */

/*
 * Writes the memtables of `cf` (NULL: of every column family) to table files and waits for
 * it. Not needed for durability (the log provides it); it bounds recovery time and makes
 * the data visible to sl_kv_approximate_size(). Returns 0 or a storage error.
 */
int sl_kv_flush(sl_kv *db, sl_kv_cf *cf, sl_error *err);

/*
 * Compacts the keys of `cf` in [begin, end] (NULL begin/end: unbounded on that side) down
 * to the last level, dropping deleted and overwritten data, and waits for it. Slow; for
 * maintenance and after large deletes. Returns 0, SL_EINVAL (NULL bound with a length) or
 * a storage error.
 */
int sl_kv_compact_range(sl_kv *db, sl_kv_cf *cf, const void *begin, size_t blen, const void *end,
                        size_t elen, sl_error *err);

/*
 * Stores in *size an estimate of the bytes on disk of the keys of `cf` in [begin, end).
 * Only data in table files counts: data still in memtables is not included until flushed.
 * Returns 0, SL_EINVAL (begin > end, NULL bound with a length) or a storage error.
 */
int sl_kv_approximate_size(sl_kv *db, sl_kv_cf *cf, const void *begin, size_t blen, const void *end,
                           size_t elen, uint64_t *size, sl_error *err);

/*
 * Reads the RocksDB property `name` of `cf` (NULL: the default column family), e.g.
 * "rocksdb.stats" or "rocksdb.estimate-num-keys". On success replaces the contents of `out`
 * with the text (NUL-terminated after len) and returns 0. Returns SL_ENOTFOUND for an
 * unknown property, SL_ENOMEM.
 */
int sl_kv_property(sl_kv *db, sl_kv_cf *cf, const char *name, sl_buf *out, sl_error *err);

/*
 * Reads an integer property (e.g. "rocksdb.estimate-num-keys",
 * "rocksdb.estimate-live-data-size", "rocksdb.num-running-compactions") into *value.
 * Returns 0, or SL_ENOTFOUND for an unknown or non-integer property.
 */
int sl_kv_property_u64(sl_kv *db, sl_kv_cf *cf, const char *name, uint64_t *value, sl_error *err);

/*
 * Creates an openable, consistent copy of the whole database in directory `dir`, which
 * must not exist (its parent must). Table files are hard-linked when on the same file
 * system, so it is cheap; memtables are flushed first. Returns 0, SL_EINVAL (dir exists) or
 * a storage error.
 */
int sl_kv_checkpoint(sl_kv *db, const char *dir, sl_error *err);

#endif
