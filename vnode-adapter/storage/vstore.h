/*
 * vstore.h - the vnode storage engine: one vgroup's tables, rows and change log in one
 * RocksDB database.
 *
 * The sluice-vnode daemon wraps one sl_vstore per vgroup it hosts; this library has no
 * network code. A vstore keeps:
 *
 *   - a table registry (the definitions the mnode pushes: uid, name, kind, column schema,
 *     tag values of child tables);
 *   - the rows of every table, stored as encoded columnar blocks sorted by timestamp;
 *   - a monotonically increasing *version*: every accepted write, delete or table drop gets
 *     the next one, persisted in the same atomic write batch as its data;
 *   - the change log: per version, what changed (rows inserted or updated, ranges deleted,
 *     tables dropped), readable "after version V" by stream nodes until it is trimmed.
 *
 * Semantics (DESIGN.md sections 2-3):
 *   - Writing a row whose timestamp already exists in the table replaces it (an UPDATE);
 *     within one write call the last occurrence of a timestamp wins. A read returns every
 *     timestamp once, with the newest row.
 *   - A table with a composite key (def.composite_key, on cols[1]) identifies its rows by
 *     (timestamp, key) instead of the timestamp alone: read "(timestamp, key)" for
 *     "timestamp" in the rule above and in the write, scan and change-log contracts below.
 *     Rows are ordered by timestamp, then key (integers numerically, text bytewise), and
 *     deletes remove every key of the timestamps in their range.
 *   - A delete removes the rows of a timestamp range; rows written later are visible again.
 *   - A write/delete/drop is atomic: a reader (scan, change-log read, a database reopened
 *     after kill -9) sees all of it or nothing, and a scan sees exactly the state at one
 *     version.
 *   - With sync = true an acknowledged call survives kill -9 and power loss (the RocksDB
 *     write-ahead log is fsync'ed); with sync = false it survives kill -9 of the process
 *     but may be lost on power loss.
 *
 * Thread rules:
 *   - Writer calls (sl_vstore_put_table, _drop_table, _write, _delete, _compact_table,
 *     _set_low_water) are serialized by an internal mutex: call them from one thread (the
 *     daemon's write loop) or several; they run one at a time.
 *   - Reader calls (snapshots, scans, change-log reads, table lookups, version getters,
 *     stats) may run on any number of threads concurrently with each other and with the
 *     writer. A scan object and a snapshot's scans are used by one thread at a time each;
 *     a snapshot itself may back scans on several threads.
 *   - sl_vstore_close must not race with any other call, and every scan and snapshot must
 *     be closed before it.
 *
 * Errors: functions return 0 or a negative sl_err code (common/util/error.h); a message
 * for the user goes to the sl_error out-parameter (NULL accepted). A failed writer call
 * changes nothing: no data, no version, no log entry.
 */
#ifndef SL_VSTORE_H
#define SL_VSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/kv/kv.h"
#include "common/types/block.h"
#include "common/util/error.h"
#include "common/util/timeutil.h"

typedef struct sl_vstore sl_vstore;
/* A consistent read view of a vstore at one version (see sl_vstore_snapshot_open). */
typedef struct sl_vs_snapshot sl_vs_snapshot;
/* An open range scan of one table. */
typedef struct sl_vs_scan sl_vs_scan;

/* ---------------------------------------------------------------------------------------
 * Opening
 * ------------------------------------------------------------------------------------- */

/* Compaction trigger defaults (see sl_vstore_options). */
#define SL_VS_COMPACT_OVERLAPS_DEFAULT   8
#define SL_VS_COMPACT_TOMBSTONES_DEFAULT 8

/*
 * Options of sl_vstore_open(). All-zero memory selects the defaults given per field.
 */
typedef struct sl_vstore_options {
    const sl_kv_options *kv;     /* RocksDB tuning, borrowed during the call; NULL: defaults */
    uint64_t log_max_entries;    /* change-log cap in entries; 0: no cap */
    uint64_t log_max_bytes;      /* change-log cap in bytes the log itself stores; 0: no cap.
                                  * An entry of written rows refers to the data block holding
                                  * them and is small; it takes the rows' size only once
                                  * compaction or a drop removes that block. */
    uint32_t compact_overlaps;   /* a table is compacted after more than this many written
                                  * blocks overlapped its existing rows; 0: default 8 */
    uint32_t compact_tombstones; /* ... or after more than this many deletes; 0: default 8 */
    bool no_auto_compact;        /* never compact automatically (tests, bulk loads); the
                                  * caller runs sl_vstore_compact_table itself */
    /*
     * Called on the writer's thread after every call that produced a new version has
     * committed, with that version (NULL: none). It must be quick and must not call back
     * into the vstore's writer functions; the daemon uses it to wake long-polling change
     * readers (e.g. uv_async_send). Readers may equally poll sl_vstore_last_version().
     */
    void (*on_commit)(void *ud, uint64_t version);
    void *on_commit_ud;
} sl_vstore_options;

/*
 * Opens (creating if missing) the vstore in directory `dir` (created one level deep) and
 * loads its registry, version counter and change-log bounds. `opts` is borrowed; NULL
 * means the defaults. On success stores the vstore in *out (close it with
 * sl_vstore_close) and returns 0. Errors: SL_EINVAL (empty path, bad options), SL_EIO
 * (cannot open, e.g. already open by another process), SL_ECORRUPT (damaged metadata),
 * SL_ENOMEM. *out is untouched on failure.
 */
int sl_vstore_open(sl_vstore **out, const char *dir, const sl_vstore_options *opts, sl_error *err);

/*
 * Closes the vstore (NULL-safe) and frees everything. Acknowledged writes stay on disk.
 * Every scan and snapshot must have been closed (checked by assert). Not thread-safe.
 */
void sl_vstore_close(sl_vstore *vs);

/* ---------------------------------------------------------------------------------------
 * Table registry
 * ------------------------------------------------------------------------------------- */

typedef enum sl_vs_table_kind {
    SL_VS_TABLE_NORMAL = 1, /* a table without tags */
    SL_VS_TABLE_CHILD = 2,  /* a child table of a super table, with its tag values */
} sl_vs_table_kind;

/* One column or tag of a table definition. */
typedef struct sl_vs_column {
    const char *name; /* 1..SL_NAME_MAX bytes */
    sl_type type;     /* a column type (not SL_T_NULL) */
    uint32_t width;   /* declared length of VARCHAR (bytes) / NCHAR (characters), 1 to
                       * SL_VARCHAR_MAX; 0 for fixed-width types */
} sl_vs_column;

/*
 * A table definition as the mnode pushes it. Every pointer is borrowed by the calls that
 * take a definition; definitions handed out by sl_vstore_table_acquire point into memory
 * owned by the vstore.
 */
typedef struct sl_vs_table_def {
    uint64_t uid;     /* cluster-wide table id, not 0 */
    const char *name; /* table name, 1..SL_TABLE_NAME_MAX bytes */
    sl_vs_table_kind kind;
    uint64_t suid;              /* child tables: the super table's uid (not 0); normal: 0 */
    sl_precision precision;     /* timestamp precision of the table's database */
    uint32_t ncols;             /* 1..SL_MAX_COLUMNS */
    const sl_vs_column *cols;   /* cols[0] is the TIMESTAMP key */
    uint32_t ntags;             /* child tables: 1..SL_MAX_TAGS; normal tables: 0 */
    const sl_vs_column *tags;   /* the super table's tag definitions (ntags entries) */
    const sl_block *tag_values; /* child tables: one row, ntags columns of the tag types
                                 * (NULLs allowed); normal tables: NULL */
    bool composite_key;         /* cols[1] is the COMPOSITE KEY (ncols >= 2; INT, BIGINT, INT
                                 * UNSIGNED, BIGINT UNSIGNED or VARCHAR; never NULL): rows
                                 * are identified by (timestamp, key) */
} sl_vs_table_def;

/*
 * Registers table def->uid, or re-registers it: re-pushing a table with the same column
 * schema replaces its name, tags and tag values (the rows stay); a different column schema
 * (composite key included) for an existing uid is refused with SL_EUNSUPPORTED (schema
 * versions are not supported yet). Not versioned and not in the change log. `def` is
 * borrowed. Errors: SL_EINVAL naming the bad field (uid 0, empty or long names, duplicate
 * column names, first column not TIMESTAMP, bad types or widths, a composite key that is
 * not the second column or not of a key type, kind/tags mismatch, tag values not one row of
 * the tag types), SL_EUNSUPPORTED, storage errors. Writer call.
 */
int sl_vstore_put_table(sl_vstore *vs, const sl_vs_table_def *def, bool sync, sl_error *err);

/*
 * Drops table uid: removes its definition and all its rows, and appends a DROP_TABLE
 * entry to the change log under a new version, stored in *version (may be NULL). Scans
 * already open keep reading their snapshot. Errors: SL_ENOTFOUND (unknown uid), storage
 * errors. Writer call.
 */
int sl_vstore_drop_table(sl_vstore *vs, uint64_t uid, bool sync, uint64_t *version, sl_error *err);

/*
 * Looks table uid up and stores in *out a read-only definition that stays valid, even if
 * the table is dropped or re-registered meanwhile, until sl_vstore_table_release(*out).
 * Returns 0 or SL_ENOTFOUND. Reader call.
 */
int sl_vstore_table_acquire(sl_vstore *vs, uint64_t uid, const sl_vs_table_def **out,
                            sl_error *err);

/* Releases a definition from sl_vstore_table_acquire (NULL-safe). Any thread. */
void sl_vstore_table_release(const sl_vs_table_def *def);

/*
 * Stores in *uids a malloc'ed array (the caller frees it) of the uids of every registered
 * table, ascending, and their count in *n (the array may be NULL when *n is 0). Returns 0
 * or SL_ENOMEM. Reader call.
 */
int sl_vstore_table_list(sl_vstore *vs, uint64_t **uids, size_t *n, sl_error *err);

/* ---------------------------------------------------------------------------------------
 * Writes
 * ------------------------------------------------------------------------------------- */

/* Rows for one table: the block's columns are the table's columns, in order. */
typedef struct sl_vs_write_item {
    uint64_t uid;
    const sl_block *rows; /* borrowed; sealed; any row order; constant columns allowed */
} sl_vs_write_item;

/*
 * Writes the rows of n items (borrowed) as one atomic batch under the next version, stored
 * in *version (may be NULL). Rows of one table (over all its items, in order) are sorted
 * by timestamp and de-duplicated, the last occurrence of a timestamp winning. Each stored
 * row is logged as an INSERT when its (table, timestamp) held no visible row before the
 * call, else as an UPDATE; the log entries of the call carry the rows as stored, at most
 * SL_BLOCK_ROWS_MAX rows per entry (with a composite key an entry holds whole timestamps:
 * more rows only when one timestamp of the call has more keys). A call whose items hold no
 * rows writes nothing and stores the current last version in *version.
 *
 * Validation happens before anything is written; any failure rejects the whole call:
 * SL_ENOTFOUND (unknown uid), SL_ETYPE (column count or a column type differs from the
 * schema), SL_EINVAL (a NULL timestamp or composite key, an unsealed block, NULL rows),
 * SL_ERANGE (text
 * longer than its declared width, NCHAR that is not UTF-8), each naming the item, column
 * and row. Storage errors: SL_EIO, SL_ENOMEM. After the batch commits, a table past its
 * compaction trigger is compacted (see sl_vstore_compact_table); a compaction failure does
 * not fail the write (it is counted in the stats and retried later). Writer call.
 */
int sl_vstore_write(sl_vstore *vs, const sl_vs_write_item *items, size_t n, bool sync,
                    uint64_t *version, sl_error *err);

/*
 * Makes every write, delete and table change that has returned so far durable against
 * power loss (fsyncs the write-ahead log once): the group commit of a burst of calls made
 * with sync = false, which may then be acknowledged. Returns 0 or a storage error (SL_EIO).
 * Writer call.
 */
int sl_vstore_sync(sl_vstore *vs, sl_error *err);

/*
 * Checks the rows of item i (borrowed, it->rows not NULL) against def (borrowed) as
 * sl_vstore_write does before writing: column count and types, one row count per column,
 * no NULL timestamp or composite key, VARCHAR/NCHAR values within their width (NCHAR:
 * valid UTF-8).
 * Returns 0, SL_ETYPE, SL_EINVAL or SL_ERANGE with err set (naming item i). Pure; any
 * thread.
 */
int sl_vstore_check_item(const sl_vs_table_def *def, const sl_vs_write_item *it, size_t i,
                         sl_error *err);

/*
 * Deletes the rows of table uid with lo <= ts <= hi: counts the visible rows there into
 * *ndeleted (may be NULL), records a range tombstone and a DELETE change-log entry under
 * a new version stored in *version (may be NULL). Rows written later in the range are
 * visible again. Deleting a range without visible rows changes nothing: no version, no
 * log entry; *version gets the current last version and *ndeleted 0. Errors: SL_ENOTFOUND,
 * SL_EINVAL (lo > hi), storage errors. Writer call.
 */
int sl_vstore_delete(sl_vstore *vs, uint64_t uid, int64_t lo, int64_t hi, bool sync,
                     uint64_t *version, uint64_t *ndeleted, sl_error *err);

/*
 * Compacts table uid: merges its blocks that overlap in time (out-of-order writes,
 * updates) into non-overlapping blocks holding only the newest row of each timestamp, and
 * applies and removes its delete tombstones, in one atomic batch. No reader, at any
 * version, sees a different result before and after. Does not change the version or the
 * change log. Writer calls run it automatically past the triggers of sl_vstore_options.
 * Errors: SL_ENOTFOUND, storage errors. Writer call.
 */
int sl_vstore_compact_table(sl_vstore *vs, uint64_t uid, sl_error *err);

/* ---------------------------------------------------------------------------------------
 * Versions
 * ------------------------------------------------------------------------------------- */

/*
 * Returns the version of the newest committed call (0 before the first). It only grows;
 * a change-log long poll can wait until it exceeds the reader's cursor (see also
 * sl_vstore_options.on_commit). Reader call (an atomic load).
 */
uint64_t sl_vstore_last_version(sl_vstore *vs);

/*
 * Returns the oldest version the change log may still hold: reads "after V" succeed for
 * V >= first_retained - 1. Equals last_version + 1 when everything was trimmed. Reader
 * call (an atomic load).
 */
uint64_t sl_vstore_first_retained_version(sl_vstore *vs);

/* ---------------------------------------------------------------------------------------
 * Snapshots and scans
 * ------------------------------------------------------------------------------------- */

/*
 * Takes a consistent view of the whole vstore into *out: scans opened on it see exactly
 * the committed state at its version, whatever is written later. Snapshots pin old data
 * on disk; close them soon with sl_vstore_snapshot_close. Returns 0, SL_ENOMEM or a
 * storage error. Reader call.
 */
int sl_vstore_snapshot_open(sl_vstore *vs, sl_vs_snapshot **out, sl_error *err);

/* The version the snapshot shows (every call up to it, nothing after it). */
uint64_t sl_vs_snapshot_version(const sl_vs_snapshot *snap);

/* Releases a snapshot (NULL-safe) after every scan on it has been closed. */
void sl_vstore_snapshot_close(sl_vs_snapshot *snap);

/* Projection entry meaning "the table name", VARCHAR(SL_TABLE_NAME_MAX); equal to
 * SL_PROJ_TBNAME of common/exec/catalog.h. */
#define SL_VS_PROJ_TBNAME (-1)

/*
 * Opens a scan of table uid over lo <= ts <= hi (inclusive) on `snap` (borrowed; it must
 * outlive the scan), or on a snapshot taken now when snap is NULL. proj (nproj entries,
 * copied) lists the columns to deliver, in order, with the meaning of sl_scan_req
 * (catalog.h): i < ncols is column i, ncols <= i < ncols+ntags is tag i-ncols (a constant
 * column), SL_VS_PROJ_TBNAME is the table name (a constant column); entries may repeat.
 * The table must be registered now (a table dropped after the snapshot is SL_ENOTFOUND).
 * On success stores the scan in *out (close it with sl_vstore_scan_close) and returns 0.
 * Errors: SL_ENOTFOUND, SL_EINVAL (a bad projection entry, nproj < 0), SL_ENOMEM, storage
 * errors. An empty range (lo > hi) is a scan without rows. Reader call.
 */
int sl_vstore_scan_open(sl_vstore *vs, const sl_vs_snapshot *snap, uint64_t uid, const int *proj,
                        int nproj, int64_t lo, int64_t hi, sl_vs_scan **out, sl_error *err);

/*
 * Replaces the contents of `out` (a block the caller owns, initialised; its columns are
 * reset and retyped as needed) with the next rows of the scan: ascending timestamps, each
 * timestamp once with its newest row, deleted rows left out, 1 to SL_BLOCK_ROWS_MAX rows.
 * Columns may be read-only views of the scan's memory (sl_column_borrow), valid until the
 * next call on the scan or its close. Returns 0 with out->nrows == 0 at the end, or an
 * error (SL_ECORRUPT for damaged stored data, SL_ENOMEM, SL_EIO) after which the scan can
 * only be closed.
 */
int sl_vstore_scan_next(sl_vs_scan *scan, sl_block *out, sl_error *err);

/* Closes a scan (NULL-safe). */
void sl_vstore_scan_close(sl_vs_scan *scan);

/* ---------------------------------------------------------------------------------------
 * Change log
 * ------------------------------------------------------------------------------------- */

typedef enum sl_vs_change_kind {
    SL_VS_CHANGE_ROWS = 1,       /* rows written: each an INSERT or an UPDATE */
    SL_VS_CHANGE_DELETE = 2,     /* a range [del_lo, del_hi] deleted (del_count rows) */
    SL_VS_CHANGE_DROP_TABLE = 3, /* the table was dropped with all its rows */
} sl_vs_change_kind;

typedef enum sl_vs_row_kind {
    SL_VS_ROW_INSERT = 0, /* no visible row had this (table, ts[, key]) before the write */
    SL_VS_ROW_UPDATE = 1, /* the row replaced a visible row with the same (table, ts[, key]) */
} sl_vs_row_kind;

/* One change-log entry. A version holds one or more entries. */
typedef struct sl_vs_change {
    uint64_t version; /* the call that made the change */
    uint64_t uid;     /* the table */
    sl_vs_change_kind kind;
    sl_block rows;          /* ROWS: the rows as stored (the table's columns in order,
                             * ascending unique ts - unique (ts, key) with a composite
                             * key - 1..SL_BLOCK_ROWS_MAX rows); else empty */
    uint8_t *row_kinds;     /* ROWS: rows.nrows sl_vs_row_kind values; else NULL */
    int64_t del_lo, del_hi; /* DELETE: the range as requested */
    uint64_t del_count;     /* DELETE: visible rows it removed */
} sl_vs_change;

/* The result of sl_vstore_changes_read; callers embed it and free it with
 * sl_vs_changes_fini. */
typedef struct sl_vs_changes {
    size_t n;              /* entries in v */
    sl_vs_change *v;       /* ascending (version, entry order within the version) */
    uint64_t last_version; /* the newest version returned, or after_version when n == 0:
                            * the cursor for the next read */
    bool more;             /* the log held further versions that the bounds left out */
} sl_vs_changes;

/*
 * Reads the change-log entries of the versions after `after_version`, oldest first, into
 * *out (overwritten; free it with sl_vs_changes_fini). Whole versions only: it stops
 * before a version that would take the result past max_bytes (the entries' encoded size,
 * rows included) or max_entries, but always returns at least the first available version,
 * however large (0 means no bound). Returns 0 (n == 0 when nothing newer exists), SL_ERANGE "change
 * log trimmed: oldest retained version is N" when versions after after_version were trimmed,
 * SL_ECORRUPT, SL_ENOMEM, storage errors. Reader call; it reads one consistent state.
 */
int sl_vstore_changes_read(sl_vstore *vs, uint64_t after_version, size_t max_bytes,
                           size_t max_entries, sl_vs_changes *out, sl_error *err);

/* Most entries a filtered read examines (kept or skipped) unless the hook says otherwise. */
#define SL_VS_SCAN_DEFAULT 65536

/* What a filtered change-log read keeps (sl_vstore_changes_read_hook). */
typedef struct sl_vs_changes_hook {
    /*
     * Called for every entry, with its table and kind only, before its rows are fetched or
     * decoded. Returns 1 to keep the entry, 0 to skip it, or a negative sl_err code (with
     * err set) that fails the read. Runs on the reading thread; must not call writer
     * functions.
     */
    int (*keep)(void *ud, uint64_t uid, sl_vs_change_kind kind, sl_error *err);
    void *ud;
    size_t max_scan; /* most entries examined per read (at version boundaries); 0: default */
} sl_vs_changes_hook;

/*
 * sl_vstore_changes_read with an entry filter: `hook` (borrowed; NULL: exactly
 * sl_vstore_changes_read) decides per entry whether it is returned. Skipped entries are
 * neither fetched nor decoded and count toward neither bound; max_bytes and max_entries
 * bound the kept entries (whole versions: a version that would take a non-empty result
 * past a bound is left for the next read, with more set). The read also stops at the
 * first version boundary after max_scan examined entries (more set). last_version is the
 * newest version whose entries were all examined, kept or not - the snapshot's version
 * when the read reached the end of the log - so a read whose entries were all skipped
 * still moves the cursor on (n == 0, last_version > after_version). Errors as
 * sl_vstore_changes_read, plus the hook's.
 */
int sl_vstore_changes_read_hook(sl_vstore *vs, uint64_t after_version, size_t max_bytes,
                                size_t max_entries, const sl_vs_changes_hook *hook,
                                sl_vs_changes *out, sl_error *err);

/* Frees what a result owns and zeroes it (NULL-safe). */
void sl_vs_changes_fini(sl_vs_changes *c);

/*
 * Sets the change-log low-water mark (persisted): every consumer has checkpointed past
 * version v, so entries of versions <= v may be trimmed; they are, at once and by later
 * writer calls. Values above the last version are clamped to it. Lowering the mark keeps
 * what is already trimmed trimmed. Independently, the caps of sl_vstore_options trim the
 * oldest versions beyond them even above the mark (the newest version is always kept).
 * Returns 0 or a storage error. Writer call.
 */
int sl_vstore_set_low_water(sl_vstore *vs, uint64_t v, sl_error *err);

/* ---------------------------------------------------------------------------------------
 * Statistics
 * ------------------------------------------------------------------------------------- */

typedef struct sl_vstore_stats {
    uint64_t last_version;      /* as sl_vstore_last_version */
    uint64_t first_retained;    /* as sl_vstore_first_retained_version */
    uint64_t low_water;         /* the mark as set (clamped) */
    uint64_t log_entries;       /* change-log entries retained */
    uint64_t log_bytes;         /* their encoded bytes */
    uint64_t tables;            /* registered tables */
    uint64_t rows;              /* visible rows of every table (exact: writes add the rows
                                 * they insert, deletes and drops subtract the visible rows
                                 * they remove; updates and compactions change nothing) */
    uint64_t compactions;       /* table compactions run since open */
    uint64_t compaction_errors; /* automatic compactions that failed since open */
} sl_vstore_stats;

/* Fills *st. Reader call. */
void sl_vstore_get_stats(sl_vstore *vs, sl_vstore_stats *st);

/*
 * Stores in *bytes the vstore's size: RocksDB's "rocksdb.total-sst-files-size" (table files
 * on disk, live or not yet deleted) plus "rocksdb.cur-size-all-mem-tables" (data not
 * flushed yet) summed over its column families; the write-ahead log is not counted. An
 * estimate that moves with flushes and compactions, not with each write. Returns 0 or a
 * storage error (SL_ENOTFOUND when RocksDB lacks a property). Reader call.
 */
int sl_vstore_disk_bytes(sl_vstore *vs, uint64_t *bytes, sl_error *err);

#endif
