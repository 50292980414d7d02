/*
 * vstore_int.h - internals shared by the files of the vnode storage engine (vstore*.c,
 * changelog.c). Nothing outside vnode-adapter/storage includes it.
 *
 * On-disk layout (one RocksDB database, three column families; integers in keys are
 * big-endian, timestamps sign-flipped big-endian, so byte order is numeric order):
 *
 *   meta  'H'                      -> head: last version, trimmed-through version, retained
 *                                     change-log entries and bytes (rewritten by every
 *                                     versioned batch)
 *         'L'                      -> low-water mark
 *         'R'                      -> visible rows of every table, and the version they
 *                                     are of (written with every head; a store whose 'R'
 *                                     is missing or of another version - written by an
 *                                     older release - is counted again at open)
 *         'T' uid                  -> table definition
 *   data  uid 0x00 version         -> delete tombstone [lo, hi] of that version
 *         uid 0x01                 -> table state: overlap count and dirty intervals
 *         uid 0x02 last_ts version -> a block of rows (a "vblock", see vstore_codec.c)
 *   log   0x00 version             -> version summary: entry count, stored and full bytes
 *         0x01 version seq         -> change-log entry seq of that version; an entry of
 *                                     written rows refers to the data block the same call
 *                                     stored (uid, last_ts, version), whose vblock names
 *                                     the entry back (its aux field), so rows are written
 *                                     once; removing such a block while its version is
 *                                     retained copies the rows into the entry first
 *
 * Blocks. A write stores the rows of each table sorted and de-duplicated, cut into blocks
 * of at most SL_BLOCK_ROWS_MAX rows, each keyed by its last timestamp and the write's
 * version, with its first timestamp inside the value. A table with a composite key sorts
 * and de-duplicates by (timestamp, key) and cuts blocks only between two timestamps (a
 * block holds every key of its timestamps, more than SL_BLOCK_ROWS_MAX rows when one
 * timestamp has more keys), so blocks of one call never share a timestamp or a key. Appends (rows after the table's
 * newest timestamp) make blocks that overlap nothing, so most of a table is a run of
 * disjoint blocks in key order. A block whose range overlaps older blocks (late rows,
 * updates) is allowed; its rows win over older versions at read time.
 *
 * Dirty intervals (the invariant readers rely on). Each table keeps up to VS_DIRTY_MAX
 * disjoint time intervals such that for every two blocks whose [first, last] ranges
 * intersect, both ranges lie inside one of the intervals. Then, outside the intervals, a
 * timestamp is covered by at most one block, and inside an interval [a, b] every block that
 * covers a timestamp has last <= b, except at most one. Readers scanning in key order
 * (last_ts) therefore know when they have seen every block that can hold a timestamp (see
 * vstore_read.c), and the writer keeps the invariant by growing an interval over every
 * block a new block overlaps. Compaction merges everything inside the intervals (and
 * under tombstones) into disjoint blocks and clears them.
 */
#ifndef SL_VSTORE_INT_H
#define SL_VSTORE_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "common/kv/keycodec.h"
#include "vstore.h"

/* ---- keys ---------------------------------------------------------------------------- */

#define VS_KT_TOMB  0x00 /* data: tombstone */
#define VS_KT_STATE 0x01 /* data: table state */
#define VS_KT_BLOCK 0x02 /* data: block */
#define VS_KT_END   0x03 /* data: exclusive bound of a table's keys */

#define VS_TOMB_KEY_LEN  17
#define VS_STATE_KEY_LEN 9
#define VS_BLOCK_KEY_LEN 25
#define VS_TABLE_KEY_LEN 9 /* uid + key type: the bounds of a table's keys */

#define VS_LK_SUM   0x00 /* log: version summary */
#define VS_LK_ENTRY 0x01 /* log: entry */

#define VS_LOG_SUM_KEY_LEN   9
#define VS_LOG_ENTRY_KEY_LEN 13

#define VS_MK_HEAD  'H'
#define VS_MK_LOW   'L'
#define VS_MK_ROWS  'R'
#define VS_MK_TABLE 'T'

/* Most dirty intervals per table; a new one beyond it merges the two closest. */
#define VS_DIRTY_MAX 4

static inline void vs_key_table(uint8_t k[VS_TABLE_KEY_LEN], uint64_t uid, uint8_t type)
{
    sl_key_enc_u64(k, uid);
    k[8] = type;
}

static inline void vs_key_block(uint8_t k[VS_BLOCK_KEY_LEN], uint64_t uid, int64_t last,
                                uint64_t version)
{
    vs_key_table(k, uid, VS_KT_BLOCK);
    sl_key_enc_i64(k + 9, last);
    sl_key_enc_u64(k + 17, version);
}

static inline void vs_key_tomb(uint8_t k[VS_TOMB_KEY_LEN], uint64_t uid, uint64_t version)
{
    vs_key_table(k, uid, VS_KT_TOMB);
    sl_key_enc_u64(k + 9, version);
}

static inline void vs_key_log_sum(uint8_t k[VS_LOG_SUM_KEY_LEN], uint64_t version)
{
    k[0] = VS_LK_SUM;
    sl_key_enc_u64(k + 1, version);
}

static inline void vs_key_log_entry(uint8_t k[VS_LOG_ENTRY_KEY_LEN], uint64_t version, uint32_t seq)
{
    k[0] = VS_LK_ENTRY;
    sl_key_enc_u64(k + 1, version);
    sl_key_enc_u32(k + 9, seq);
}

/* ---- per-table state ----------------------------------------------------------------- */

/* A closed time interval [a, b]. */
typedef struct vs_iv {
    int64_t a;
    int64_t b;
} vs_iv;

/* The persisted state of a table (data key uid 0x01); absent means all zero. */
typedef struct vs_tstate {
    uint32_t n_overlap;     /* blocks written over existing rows since the last compaction */
    uint32_t niv;           /* dirty intervals in use */
    vs_iv iv[VS_DIRTY_MAX]; /* disjoint, ascending */
} vs_tstate;

/* A delete tombstone: rows in [lo, hi] of versions below `version` are gone. */
typedef struct vs_tomb {
    int64_t lo;
    int64_t hi;
    uint64_t version;
} vs_tomb;

/* A registered table: immutable once published, shared by reference counting. */
typedef struct vs_table {
    sl_vs_table_def def;  /* public view; first member (release casts back) */
    atomic_int t_refs;    /* the registry's reference plus one per acquire */
    sl_vs_column *t_cols; /* owned copies; names point into t_names */
    sl_vs_column *t_tags;
    char *t_names;      /* every name, NUL-terminated, back to back */
    sl_block t_tagvals; /* owned copy of the tag values (child tables) */
} vs_table;

/* What the writer knows of a table beyond its definition (writer-owned). */
typedef struct vs_wstate {
    bool ws_loaded;   /* the fields below were read from disk */
    bool ws_has_rows; /* ws_max_ts is an upper bound of the stored timestamps */
    int64_t ws_max_ts;
    vs_tstate ws_st;   /* equal to the persisted state */
    uint32_t ws_ntomb; /* tombstones stored */
} vs_wstate;

/* A registry slot. */
typedef struct vs_entry {
    uint64_t e_uid;
    vs_table *e_table;
    vs_wstate e_ws;
} vs_entry;

/* uid -> entry, open addressing with linear probing. */
typedef struct vs_map {
    vs_entry **m_slots; /* m_cap slots, NULL = empty */
    size_t m_cap;       /* power of two, or 0 */
    size_t m_count;
} vs_map;

/* The persisted head record (meta 'H'). */
typedef struct vs_head {
    uint64_t h_version; /* last committed version */
    uint64_t h_trimmed; /* change-log versions <= h_trimmed may have been removed */
    uint64_t h_entries; /* change-log entries retained */
    uint64_t h_bytes;   /* their encoded value bytes */
    uint64_t h_rows;    /* visible rows of every table (meta 'R', not in the 'H' record) */
} vs_head;

struct sl_vstore {
    sl_kv *vs_db;
    sl_kv_cf *vs_meta;
    sl_kv_cf *vs_data;
    sl_kv_cf *vs_log;
    sl_vstore_options vs_opts; /* copy; vs_opts.kv is NULL */
    pthread_mutex_t vs_wlock;  /* serializes writer calls */
    pthread_rwlock_t vs_rlock; /* guards vs_map against reader lookups */
    vs_map vs_map;
    vs_head vs_head;               /* writer-owned copy of the persisted head */
    uint64_t vs_low;               /* low-water mark (writer-owned) */
    _Atomic uint64_t vs_a_version; /* published head fields, for readers */
    _Atomic uint64_t vs_a_trimmed;
    _Atomic uint64_t vs_a_low;
    _Atomic uint64_t vs_a_entries;
    _Atomic uint64_t vs_a_bytes;
    _Atomic uint64_t vs_a_rows;
    _Atomic uint64_t vs_a_compactions;
    _Atomic uint64_t vs_a_cerrors;
    atomic_long vs_live;   /* open scans and snapshots */
    sl_kv_batch *vs_batch; /* writer scratch */
    sl_buf vs_buf;         /* writer scratch */
    sl_buf vs_lbuf;        /* writer scratch: change-log entries */
    sl_block vs_scratch;   /* writer scratch: rows gathered for encoding */
    sl_block vs_cat;       /* writer scratch: items of one table concatenated */
};

struct sl_vs_snapshot {
    sl_vstore *sn_vs;
    sl_kv_snapshot *sn_kv;
    uint64_t sn_version;
};

/* ---- vstore.c: registry, head ----------------------------------------------------------- */

/* Finds uid's registry entry or NULL. Writer thread, or readers under vs_rlock. */
vs_entry *sl__vs_find(sl_vstore *vs, uint64_t uid);

/* Loads the writer state of e from disk if not yet loaded. Writer call. */
int sl__vs_wstate_load(sl_vstore *vs, vs_entry *e, sl_error *err);

/* Appends the head record h, and the row count h->h_rows of its version, to the batch. */
int sl__vs_batch_head(sl_vstore *vs, sl_kv_batch *b, const vs_head *h);

/* Counts the visible rows of e's table in [lo, hi] into *count. Writer call (or open). */
int sl__vs_count_rows(sl_vstore *vs, vs_entry *e, int64_t lo, int64_t hi, uint64_t *count,
                      sl_error *err);

/* Publishes a committed head to the atomics and runs on_commit if the version grew. */
void sl__vs_publish(sl_vstore *vs, const vs_head *h, bool versioned);

/* Releases a table reference. */
void sl__vs_table_unref(vs_table *t);

/* Checks that text row `row` of col fits `width` (bytes for VARCHAR, characters and
 * valid UTF-8 for NCHAR): returns 0, or SL_ERANGE with *why set. */
int sl__vs_check_text(const sl_column *col, uint32_t row, uint32_t width, const char **why);

/* Wraps a storage error with context: "vstore <what>: <inner message>". */
int sl__vs_fail(sl_error *err, int rc, const char *what);

/* ---- vstore_codec.c: stored blocks, state, tombstones, log entries --------------------- */

/*
 * A parsed vblock (a stored block of rows):
 *   u8 format = 1, u32 nrows, u32 ncols, u32 aux, u32 len[ncols] (LE), then the column
 *   bytes:
 *   column 0, the timestamps, as nrows raw little-endian int64 strictly ascending; column
 *   i > 0 as the sl_block_encode bytes of a one-column block of nrows rows.
 *   Format 2 is the same for a table with a composite key (column 1): its timestamps
 *   ascend but may repeat, and rows ascend strictly by (timestamp, key).
 * Each column is decodable alone, so a scan decodes only the columns it projects, and the
 * first and last timestamps are read in place.
 */
typedef struct vs_vblock {
    uint32_t nrows;
    uint32_t ncols;
    bool keyed;          /* format 2: a composite-key table's block, timestamps ascending
                          * but repeated (one per key), rows ascending by (ts, key) */
    uint32_t aux;        /* the seq of the change-log entry that references it, or
                          * VS_AUX_NONE (compaction output) */
    const uint8_t *lens; /* ncols u32 LE lengths */
    const uint8_t *cols; /* column 0's first byte */
} vs_vblock;

#define VS_AUX_NONE UINT32_MAX

int sl__vs_vblock_parse(const void *p, size_t n, vs_vblock *vb, sl_error *err);
/* The type of table d's composite key (cols[1]), or SL_T_NULL when its rows are identified
 * by their timestamp alone. */
static inline sl_type vs_key_type(const sl_vs_table_def *d)
{
    return d->composite_key && d->ncols > 1 ? d->cols[1].type : SL_T_NULL;
}

/* Makes dst an empty block with src's column types, reusing its memory. */
int sl__vs_block_like(sl_block *dst, const sl_block *src);
int64_t sl__vs_vblock_ts(const vs_vblock *vb, uint32_t i);
/* Decodes the timestamps into ts (reset first), checking that they strictly ascend. */
int sl__vs_vblock_decode_ts(const vs_vblock *vb, sl_column *ts, sl_error *err);
/* Decodes the columns idx[0..n) (ascending, each >= 1) into dst[0..n), which must have
 * the expected types (their contents are replaced). */
int sl__vs_vblock_decode_cols(const vs_vblock *vb, const uint32_t *idx, uint32_t n, sl_column *dst,
                              sl_error *err);
/* Decodes every column into out (initialised, empty): the full rows. */
int sl__vs_vblock_decode_all(const vs_vblock *vb, sl_block *out, sl_error *err);

/*
 * Appends the vblock of n rows of src to out: rows sel[0..n) when sel is given, else rows
 * [from, from+n). ts[i] is the timestamp of src row i (the rows selected must ascend
 * strictly, by (ts, key) when keyed: the block then has format 2). Column widths are
 * taken from schema. scratch is a block reused to gather
 * selected rows. Returns 0 or SL_ENOMEM.
 */
int sl__vs_vblock_encode(const sl_block *src, const int64_t *ts, const uint32_t *sel, uint32_t from,
                         uint32_t n, const sl_vs_column *schema, bool keyed, uint32_t aux,
                         sl_block *scratch, sl_buf *out);

int sl__vs_tstate_encode(const vs_tstate *st, sl_buf *out);
int sl__vs_tstate_decode(const void *p, size_t n, vs_tstate *st, sl_error *err);
int sl__vs_tomb_encode(int64_t lo, int64_t hi, sl_buf *out);
int sl__vs_tomb_decode(const void *p, size_t n, int64_t *lo, int64_t *hi, sl_error *err);

/*
 * Change-log entries. A ROWS entry is a header (sl__vs_log_rows_header) followed by a
 * body byte: VS_BODY_INLINE and the vblock, or VS_BODY_REF and the vari last timestamp of
 * the data block (uid, last, version) that holds the rows. The writer stores references
 * (the rows are written once); whoever removes a referenced block while its version is
 * still in the log first makes the entry inline (sl__vs_log_materialize).
 */
#define VS_BODY_INLINE 0
#define VS_BODY_REF    1

/* kinds NULL means every row an INSERT. */
int sl__vs_log_rows_header(sl_buf *out, uint64_t uid, uint32_t nrows, const uint8_t *kinds);
int sl__vs_log_delete(sl_buf *out, uint64_t uid, int64_t lo, int64_t hi, uint64_t count);
int sl__vs_log_drop(sl_buf *out, uint64_t uid);

/* Where a ROWS entry's rows are. */
typedef struct vs_log_body {
    size_t hdr_len; /* bytes before the body byte */
    uint32_t nrows;
    bool ref; /* a reference (last) rather than inline (vblock) */
    int64_t last;
    const uint8_t *vblock; /* inline: points into the entry */
    size_t vblock_len;
} vs_log_body;

/* Parses an entry into *out (rows not decoded yet; free with the changes) and *body. */
int sl__vs_log_parse(const void *p, size_t n, uint64_t version, sl_vs_change *out,
                     vs_log_body *body, sl_error *err);
/* Decodes the vblock holding a ROWS entry's nrows rows into out->rows. */
int sl__vs_log_rows_decode(const void *vblock, size_t len, uint32_t nrows, sl_vs_change *out,
                           sl_error *err);

/* A version summary: entry count, bytes stored in the log, and bytes the entries would
 * take inline (what a reader receives). */
typedef struct vs_log_sum {
    uint32_t entries;
    uint64_t stored;
    uint64_t logical;
} vs_log_sum;

int sl__vs_log_sum_encode(sl_buf *out, uint32_t entries, uint64_t stored, uint64_t logical);
int sl__vs_log_sum_decode(const void *p, size_t n, vs_log_sum *s, sl_error *err);

/* Adds interval [a, b] to st (merging intervals it touches; past VS_DIRTY_MAX the two
 * closest merge). */
void sl__vs_tstate_add(vs_tstate *st, int64_t a, int64_t b);
/* The interval of st containing t, or NULL. */
const vs_iv *sl__vs_tstate_find(const vs_tstate *st, int64_t t);

/* ---- vstore_read.c: the merge reader ------------------------------------------------- */

/* One stored block loaded by a reader, with its rows in [lo, hi] at [pos, end). */
typedef struct vs_cursor {
    uint64_t c_version;
    uint32_t c_pos;
    uint32_t c_end;
    sl_column c_ts;    /* TIMESTAMP, owned */
    sl_column c_key;   /* the composite key column (keyed readers only), owned */
    sl_column *c_cols; /* the reader's r_nneed decoded columns */
} vs_cursor;

/* A piece of the tombstone cover: timestamps [s, e] are hidden below version maxv. */
typedef struct vs_seg {
    int64_t s;
    int64_t e;
    uint64_t maxv;
} vs_seg;

/*
 * Reads one table's visible rows in [lo, hi] in ascending timestamp order, each
 * timestamp once with its newest version, tombstones applied, by merging the stored
 * blocks. A keyed reader (a composite-key table) orders and de-duplicates by
 * (timestamp, key) and decodes the key of every loaded block (c_key). Everything it reads (blocks, tombstones, dirty intervals) comes from one
 * iterator, hence from one consistent state.
 */
typedef struct vs_reader {
    sl_vstore *r_vs;
    uint64_t r_uid;
    sl_kv_iter *r_it;
    int64_t r_lo;
    int64_t r_hi;
    sl_type r_key;         /* the composite key's type, SL_T_NULL when not keyed */
    uint32_t r_nneed;      /* stored columns (>= 1) decoded besides the timestamps */
    uint32_t *r_need;      /* their indices, owned */
    sl_type *r_need_types; /* their expected types, owned */
    vs_tstate r_st;        /* the table state read */
    vs_tomb *r_tombs;      /* the tombstones read, ascending version */
    size_t r_ntombs;
    vs_seg *r_segs; /* their cover, disjoint ascending */
    size_t r_nsegs;
    size_t r_seg_i;      /* first segment that may still matter */
    bool r_skip_hidden;  /* skip blocks wholly under a newer tombstone undecoded */
    bool r_has_unread;   /* the iterator is on a block not loaded yet */
    bool r_stopped;      /* no further block can matter */
    int64_t r_next_last; /* last ts of that block */
    vs_cursor **r_heap;  /* loaded blocks with rows left, min-heap by (ts, -version) */
    size_t r_nheap;
    size_t r_capheap;
    vs_cursor **r_retired; /* exhausted, freed at the next call (runs point into them) */
    size_t r_nretired;
    size_t r_capretired;
    uint64_t r_max_version; /* newest version among the blocks read in range */
    int64_t r_min_first;    /* smallest first ts among the blocks read in range */
} vs_reader;

/* A run of visible rows: rows [from, from+n) of cursor c, valid until the next call. */
typedef struct vs_run {
    vs_cursor *c;
    uint32_t from;
    uint32_t n;
} vs_run;

/*
 * Opens r on table uid over [lo, hi], reading through snap (NULL: the latest state).
 * key is the table's composite key type (vs_key_type), SL_T_NULL for none. need/need_types
 * list the stored columns (>= 1) to decode (copied). Returns 0 or an error; r is closed on
 * failure.
 */
int sl__vs_reader_open(vs_reader *r, sl_vstore *vs, const sl_kv_snapshot *snap, uint64_t uid,
                       sl_type key, const uint32_t *need, const sl_type *need_types,
                       uint32_t nneed, int64_t lo, int64_t hi, sl_error *err);
/* Produces the next run of at most max_rows rows: returns 1 with *run, 0 at the end, or
 * an error. */
int sl__vs_reader_next(vs_reader *r, uint32_t max_rows, vs_run *run, sl_error *err);
/* Skips every row below t (t ascending over calls). Returns 0 or an error. */
int sl__vs_reader_skip_to(vs_reader *r, int64_t t, sl_error *err);
void sl__vs_reader_close(vs_reader *r);

/*
 * Finds the blocks whose [first, last] contains t, in the latest state of table uid whose
 * state is st, through iterator it (over the table's keys): stores the smallest first and
 * largest last among them in *fmin / *lmax and sets *found. Returns 0 or an error.
 */
int sl__vs_stab(sl_kv_iter *it, uint64_t uid, const vs_tstate *st, int64_t t, bool *found,
                int64_t *fmin, int64_t *lmax, sl_error *err);
/* Sets *found when some block's range intersects [f, l]. */
int sl__vs_any_overlap(sl_kv_iter *it, uint64_t uid, const vs_tstate *st, int64_t f, int64_t l,
                       bool *found, sl_error *err);
/* Opens an iterator over table uid's keys in the latest state. */
int sl__vs_table_iter(sl_vstore *vs, const sl_kv_snapshot *snap, uint64_t uid, sl_kv_iter **out,
                      sl_error *err);

/* ---- vstore_compact.c ---------------------------------------------------------------- */

/* Compacts e's table (writer lock held). */
int sl__vs_compact(sl_vstore *vs, vs_entry *e, sl_error *err);
/* Runs compaction on e if its triggers are past (writer lock held); failures are counted. */
void sl__vs_maybe_compact(sl_vstore *vs, vs_entry *e);

/* ---- changelog.c --------------------------------------------------------------------- */

/*
 * Appends to b the deletions that trim the change log under the retention rules, given the
 * head h as it will be after b (h updated in place: h_trimmed, h_entries, h_bytes). The
 * newest version h->h_version is never trimmed. Returns 0 or an error.
 */
int sl__vs_log_trim(sl_vstore *vs, sl_kv_batch *b, vs_head *h, sl_error *err);

/* Accumulates the change-log bytes that materializing adds per version. */
typedef struct vs_mat {
    struct vs_mat_ver {
        uint64_t v;
        uint64_t delta;
    } * m_v;
    size_t m_n;
    size_t m_cap;
} vs_mat;

/*
 * Appends to b what makes every change-log entry that references a block of table uid
 * with last timestamp in [a, z] inline, for the versions above h->h_trimmed, reading the
 * latest state; the added bytes are noted in acc. Call before b removes those blocks,
 * and sl__vs_log_materialize_done once after the last range. Returns 0 or an error.
 */
int sl__vs_log_materialize(sl_vstore *vs, sl_kv_batch *b, uint64_t uid, int64_t a, int64_t z,
                           const vs_head *h, vs_mat *acc, sl_error *err);
/* Appends the updated version summaries to b, adds the bytes to h and frees acc. */
int sl__vs_log_materialize_done(sl_vstore *vs, sl_kv_batch *b, vs_head *h, vs_mat *acc,
                                sl_error *err);

#endif
