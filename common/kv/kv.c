/*
 * kv.c - opening and closing a RocksDB database, column families, point reads and writes,
 * maintenance and statistics; see kv.h. Batches live in kv_batch.c, snapshots and iterators
 * in kv_iter.c.
 *
 * Opening does more than rocksdb_open: RocksDB refuses to open a database unless every
 * column family on disk is named, so the names on disk are listed first and merged with
 * the caller's; and a compression codec the library lacks is only noticed at open time, so
 * SL_KV_COMPRESS_AUTO retries with weaker codecs.
 */
#include "kv_int.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Defaults of sl_kv_options (see kv.h). */
#define KV_DEF_WRITE_BUFFER ((size_t)64 << 20)
#define KV_DEF_BLOCK_CACHE  ((size_t)32 << 20)
#define KV_DEF_JOBS         2
#define KV_MIN_WAL_TOTAL    ((size_t)64 << 20)
/* Info LOG files kept in the database directory, and the size at which one rolls over. */
#define KV_LOG_FILES     4
#define KV_LOG_FILE_SIZE ((size_t)8 << 20)
/* BottommostLevelCompaction::kForceOptimized and WALRecoveryMode::kPointInTimeRecovery. */
#define KV_BOTTOMMOST_FORCE_OPTIMIZED 3
#define KV_WAL_POINT_IN_TIME          2

/* ---------------------------------------------------------------------------------------
 * Errors and argument checks
 * ------------------------------------------------------------------------------------- */

static int kv_code_of(const char *msg)
{
    static const struct {
        const char *prefix;
        int code;
    } map[] = {
        {"Corruption", SL_ECORRUPT},
        {"Invalid argument", SL_EINVAL},
        {"Not implemented", SL_EUNSUPPORTED},
        {"NotFound", SL_ENOTFOUND},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strncmp(msg, map[i].prefix, strlen(map[i].prefix)) == 0)
            return map[i].code;
    return SL_EIO;
}

int sl__kv_fail(sl_error *err, char **rerr, const sl_kv *db, const char *op)
{
    const char *msg = *rerr != NULL ? *rerr : "unknown RocksDB error";
    int code = kv_code_of(msg);
    sl_error_set(err, code, 0, 0, "kv %s (%s): %s", op, db != NULL ? db->kv_path : "?", msg);
    rocksdb_free(*rerr);
    *rerr = NULL;
    return code;
}

int sl__kv_check_item(const void *p, size_t n)
{
    if (p == NULL && n != 0)
        return SL_EINVAL;
    if (n > SL_KV_ITEM_MAX)
        return SL_ELIMIT;
    return 0;
}

int sl__kv_cmp(const void *a, size_t alen, const void *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n != 0 ? memcmp(a, b, n) : 0;
    if (c != 0)
        return c;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

static int kv_check_range(const void *b, size_t blen, const void *e, size_t elen)
{
    int rc = sl__kv_check_item(b, blen);
    if (rc == 0)
        rc = sl__kv_check_item(e, elen);
    if (rc == 0 && sl__kv_cmp(b, blen, e, elen) > 0)
        rc = SL_EINVAL;
    return rc;
}

static int kv_arg_fail(sl_error *err, int code, const sl_kv *db, const char *op)
{
    return sl_error_set(err, code, 0, 0, "kv %s (%s): %s", op, db->kv_path,
                        code == SL_ELIMIT   ? "key or value longer than 4 GiB"
                        : code == SL_EINVAL ? "invalid key, value or range"
                                            : sl_strerror(code));
}

/* ---------------------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------------------- */

void sl_kv_options_init(sl_kv_options *o)
{
    memset(o, 0, sizeof(*o));
    o->write_buffer_size = KV_DEF_WRITE_BUFFER;
    o->block_cache_size = KV_DEF_BLOCK_CACHE;
    o->compression = SL_KV_COMPRESS_AUTO;
    o->max_open_files = -1;
    o->background_jobs = KV_DEF_JOBS;
    o->sync_default = false;
}

/* One attempt at a compression setting: for recent levels and for the bottommost level. */
typedef struct kv_codec {
    int recent;
    int bottom;
} kv_codec;

/* Fills `out` with the settings to try in order for `c`; returns how many. */
static size_t kv_codecs(sl_kv_compression c, kv_codec out[3])
{
    switch (c) {
    case SL_KV_COMPRESS_AUTO:
        out[0] = (kv_codec){rocksdb_lz4_compression, rocksdb_zstd_compression};
        out[1] = (kv_codec){rocksdb_lz4_compression, rocksdb_lz4_compression};
        out[2] = (kv_codec){rocksdb_no_compression, rocksdb_no_compression};
        return 3;
    case SL_KV_COMPRESS_NONE:
        out[0] = (kv_codec){rocksdb_no_compression, rocksdb_no_compression};
        return 1;
    case SL_KV_COMPRESS_LZ4:
        out[0] = (kv_codec){rocksdb_lz4_compression, rocksdb_lz4_compression};
        return 1;
    case SL_KV_COMPRESS_ZSTD:
        out[0] = (kv_codec){rocksdb_zstd_compression, rocksdb_zstd_compression};
        return 1;
    }
    return 0;
}

static rocksdb_env_t *low_env;
static pthread_once_t low_env_once = PTHREAD_ONCE_INIT;

static void low_env_init(void)
{
    low_env = rocksdb_create_default_env();
    rocksdb_env_lower_thread_pool_cpu_priority(low_env);
    rocksdb_env_lower_thread_pool_io_priority(low_env);
    rocksdb_env_lower_high_priority_thread_pool_cpu_priority(low_env);
}

/* RocksDB's default environment with its background pools lowered (kept for the life of
 * the process, like the pools themselves). */
static rocksdb_env_t *kv_low_priority_env(void)
{
    pthread_once(&low_env_once, low_env_init);
    return low_env;
}

/* Builds the RocksDB options shared by the database and all its column families. */
static rocksdb_options_t *kv_make_options(const sl_kv_options *o, rocksdb_cache_t *cache)
{
    rocksdb_options_t *ro = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(ro, 1);
    rocksdb_options_set_create_missing_column_families(ro, 1);
    rocksdb_options_set_paranoid_checks(ro, 1);
    rocksdb_options_set_wal_recovery_mode(ro, KV_WAL_POINT_IN_TIME);
    rocksdb_options_set_write_buffer_size(ro, o->write_buffer_size ? o->write_buffer_size
                                                                   : KV_DEF_WRITE_BUFFER);
    rocksdb_options_set_max_open_files(ro, o->max_open_files > 0 ? o->max_open_files : -1);
    rocksdb_options_set_max_background_jobs(ro, o->background_jobs > 0 ? o->background_jobs
                                                                       : KV_DEF_JOBS);
    rocksdb_options_set_level_compaction_dynamic_level_bytes(ro, 1);
    /* A column family written rarely keeps every write-ahead log file since its last
     * flush alive; past this total RocksDB flushes it, so the logs stay bounded (the
     * default is four times all the memtables together). */
    size_t wb = o->write_buffer_size ? o->write_buffer_size : KV_DEF_WRITE_BUFFER;
    rocksdb_options_set_max_total_wal_size(ro, wb * 4 > KV_MIN_WAL_TOTAL ? wb * 4
                                                                         : KV_MIN_WAL_TOTAL);
    if (o->background_low_priority)
        rocksdb_options_set_env(ro, kv_low_priority_env());
    rocksdb_options_set_keep_log_file_num(ro, KV_LOG_FILES);
    rocksdb_options_set_max_log_file_size(ro, KV_LOG_FILE_SIZE);

    /* Index and filter blocks go through the block cache, so the cache size bounds the
     * memory reads take however many table files there are (a million idle window groups
     * cost disk, not RAM). A full bloom filter makes point reads of absent keys cheap. */
    rocksdb_block_based_table_options_t *bb = rocksdb_block_based_options_create();
    rocksdb_block_based_options_set_block_cache(bb, cache);
    rocksdb_block_based_options_set_cache_index_and_filter_blocks(bb, 1);
    rocksdb_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(bb, 1);
    rocksdb_block_based_options_set_filter_policy(bb, rocksdb_filterpolicy_create_bloom_full(10));
    rocksdb_options_set_block_based_table_factory(ro, bb);
    rocksdb_block_based_options_destroy(bb);
    return ro;
}

/* ---------------------------------------------------------------------------------------
 * Column family names
 * ------------------------------------------------------------------------------------- */

static int kv_check_cf_name(const char *name, sl_error *err, const char *path)
{
    if (name == NULL || name[0] == '\0')
        return sl_error_set(err, SL_EINVAL, 0, 0, "kv open (%s): empty column family name", path);
    size_t n = strlen(name);
    if (n > SL_KV_CF_NAME_MAX)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "kv open (%s): column family name '%.16s...' is longer than %d "
                            "bytes",
                            path, name, SL_KV_CF_NAME_MAX);
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == '-';
        if (!ok)
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "kv open (%s): column family name '%s' has a character "
                                "outside [A-Za-z0-9_.-] at byte %zu",
                                path, name, i);
    }
    return 0;
}

static bool kv_name_in(const char *name, char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

/* Appends a copy of name to names[*n] unless already there. Returns 0 or SL_ENOMEM. */
static int kv_name_add(char **names, size_t *n, const char *name)
{
    if (kv_name_in(name, names, *n))
        return 0;
    char *copy = strdup(name);
    if (copy == NULL)
        return SL_ENOMEM;
    names[(*n)++] = copy;
    return 0;
}

/*
 * Lists the column families to open: "default", those on disk, then the requested ones not
 * on disk. On success *names_out is an array of *n_out malloc'ed strings.
 */
static int kv_cf_names(const char *path, const rocksdb_options_t *ro, const char *const *req,
                       size_t nreq, char ***names_out, size_t *n_out, sl_error *err)
{
    char **disk = NULL;
    size_t ndisk = 0;
    char *rerr = NULL;

    /* A database exists when its CURRENT file does; only then are there names to list. */
    size_t plen = strlen(path);
    char *current = malloc(plen + sizeof("/CURRENT"));
    if (current == NULL)
        return SL_ENOMEM;
    memcpy(current, path, plen);
    memcpy(current + plen, "/CURRENT", sizeof("/CURRENT"));
    struct stat st;
    bool exists = stat(current, &st) == 0;
    free(current);
    if (exists) {
        disk = rocksdb_list_column_families(ro, path, &ndisk, &rerr);
        if (rerr != NULL) {
            /* Even on failure RocksDB returns a malloc'ed (empty) array. */
            if (disk != NULL)
                rocksdb_list_column_families_destroy(disk, ndisk);
            sl_kv fake = {.kv_path = (char *)path};
            return sl__kv_fail(err, &rerr, &fake, "open: list column families");
        }
    }

    int rc = SL_ENOMEM;
    size_t n = 0;
    char **names = calloc(1 + ndisk + nreq, sizeof(char *));
    if (names == NULL)
        goto fail;
    if (kv_name_add(names, &n, SL_KV_DEFAULT_CF) != 0)
        goto fail;
    for (size_t i = 0; i < ndisk; i++)
        if (kv_name_add(names, &n, disk[i]) != 0)
            goto fail;
    for (size_t i = 0; i < nreq; i++)
        if (kv_name_add(names, &n, req[i]) != 0)
            goto fail;
    if (disk != NULL)
        rocksdb_list_column_families_destroy(disk, ndisk);
    *names_out = names;
    *n_out = n;
    return 0;

fail:
    if (disk != NULL)
        rocksdb_list_column_families_destroy(disk, ndisk);
    if (names != NULL)
        for (size_t i = 0; i < n; i++)
            free(names[i]);
    free(names);
    return sl_error_set(err, rc, 0, 0, "kv open (%s): out of memory", path);
}

/* ---------------------------------------------------------------------------------------
 * Open and close
 * ------------------------------------------------------------------------------------- */

int sl_kv_open(sl_kv **out, const char *path, const sl_kv_options *opts,
               const char *const *cf_names, size_t n_cf, sl_error *err)
{
    sl_kv_options defaults;
    if (opts == NULL) {
        sl_kv_options_init(&defaults);
        opts = &defaults;
    }
    if (path == NULL || path[0] == '\0')
        return sl_error_set(err, SL_EINVAL, 0, 0, "kv open: empty database path");
    if (n_cf != 0 && cf_names == NULL)
        return sl_error_set(err, SL_EINVAL, 0, 0, "kv open (%s): NULL column family list", path);
    for (size_t i = 0; i < n_cf; i++) {
        int rc = kv_check_cf_name(cf_names[i], err, path);
        if (rc != 0)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (strcmp(cf_names[i], cf_names[j]) == 0)
                return sl_error_set(err, SL_EINVAL, 0, 0,
                                    "kv open (%s): column family '%s' is listed twice", path,
                                    cf_names[i]);
    }
    kv_codec codecs[3];
    size_t ncodecs = kv_codecs(opts->compression, codecs);
    if (ncodecs == 0)
        return sl_error_set(err, SL_EINVAL, 0, 0, "kv open (%s): unknown compression %d", path,
                            (int)opts->compression);

    /* RocksDB's own message for a file in the way ("While mkdir if missing: ... File
     * exists") does not say what is wrong; say it. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "kv open (%s): the path exists and is not a directory", path);

    int rc = SL_ENOMEM;
    char *rerr = NULL;
    char **names = NULL;
    size_t nnames = 0;
    rocksdb_options_t *ro = NULL;
    rocksdb_options_t **cfo = NULL;
    rocksdb_column_family_handle_t **handles = NULL;
    sl_kv *db = calloc(1, sizeof(*db));
    if (db == NULL || (db->kv_path = strdup(path)) == NULL)
        goto fail_nomem;
    atomic_init(&db->kv_live, 0);
    db->kv_sync_default = opts->sync_default;
    db->kv_cache = rocksdb_cache_create_lru(opts->block_cache_size ? opts->block_cache_size
                                                                   : KV_DEF_BLOCK_CACHE);
    db->kv_wsync = rocksdb_writeoptions_create();
    rocksdb_writeoptions_set_sync(db->kv_wsync, 1);
    db->kv_wnosync = rocksdb_writeoptions_create();
    rocksdb_writeoptions_set_sync(db->kv_wnosync, 0);
    db->kv_ro = rocksdb_readoptions_create();
    ro = kv_make_options(opts, db->kv_cache);

    rc = kv_cf_names(path, ro, cf_names, n_cf, &names, &nnames, err);
    if (rc != 0)
        goto fail;
    cfo = calloc(nnames, sizeof(*cfo));
    handles = calloc(nnames, sizeof(*handles));
    db->kv_cfs = calloc(nnames, sizeof(*db->kv_cfs));
    if (cfo == NULL || handles == NULL || db->kv_cfs == NULL)
        goto fail_nomem;

    for (size_t c = 0; c < ncodecs; c++) {
        rocksdb_options_set_compression(ro, codecs[c].recent);
        rocksdb_options_set_bottommost_compression(ro, codecs[c].bottom);
        for (size_t i = 0; i < nnames; i++)
            cfo[i] = ro;
        db->kv_db =
            rocksdb_open_column_families(ro, path, (int)nnames, (const char *const *)names,
                                         (const rocksdb_options_t *const *)cfo, handles, &rerr);
        if (rerr == NULL)
            break;
        /* RocksDB checks codecs before touching the disk: "Compression type LZ4 is not
         * linked with the binary." Only AUTO may fall back to the next setting. */
        bool missing_codec = strstr(rerr, "not linked with the binary") != NULL;
        if (missing_codec && c + 1 < ncodecs) {
            rocksdb_free(rerr);
            rerr = NULL;
            continue;
        }
        if (missing_codec) {
            rc = sl_error_set(err, SL_EUNSUPPORTED, 0, 0, "kv open (%s): %s", path, rerr);
            rocksdb_free(rerr);
            rerr = NULL;
        } else {
            rc = sl__kv_fail(err, &rerr, db, "open");
        }
        goto fail;
    }

    for (size_t i = 0; i < nnames; i++) {
        db->kv_cfs[i].cf_db = db;
        db->kv_cfs[i].cf_h = handles[i];
        db->kv_cfs[i].cf_name = names[i];
        names[i] = NULL;
    }
    db->kv_ncf = nnames;
    assert(strcmp(db->kv_cfs[0].cf_name, SL_KV_DEFAULT_CF) == 0);
    free(names);
    free(handles);
    free(cfo);
    rocksdb_options_destroy(ro);
    *out = db;
    return 0;

fail_nomem:
    rc = sl_error_set(err, SL_ENOMEM, 0, 0, "kv open (%s): out of memory", path);
fail:
    if (names != NULL)
        for (size_t i = 0; i < nnames; i++)
            free(names[i]);
    free(names);
    free(handles);
    free(cfo);
    if (ro != NULL)
        rocksdb_options_destroy(ro);
    if (db != NULL) {
        /* No column family handle exists: the open failed, so kv_ncf is 0. */
        sl_kv_close(db);
    }
    return rc;
}

void sl_kv_close(sl_kv *db)
{
    if (db == NULL)
        return;
    assert(atomic_load(&db->kv_live) == 0 && "close iterators and snapshots before the db");
    for (size_t i = 0; i < db->kv_ncf; i++) {
        rocksdb_column_family_handle_destroy(db->kv_cfs[i].cf_h);
        free(db->kv_cfs[i].cf_name);
    }
    free(db->kv_cfs);
    if (db->kv_db != NULL)
        rocksdb_close(db->kv_db);
    if (db->kv_ro != NULL)
        rocksdb_readoptions_destroy(db->kv_ro);
    if (db->kv_wsync != NULL)
        rocksdb_writeoptions_destroy(db->kv_wsync);
    if (db->kv_wnosync != NULL)
        rocksdb_writeoptions_destroy(db->kv_wnosync);
    if (db->kv_cache != NULL)
        rocksdb_cache_destroy(db->kv_cache);
    free(db->kv_path);
    free(db);
}

const char *sl_kv_path(const sl_kv *db)
{
    return db->kv_path;
}

sl_kv_cf *sl_kv_cf_get(sl_kv *db, const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < db->kv_ncf; i++)
        if (strcmp(db->kv_cfs[i].cf_name, name) == 0)
            return &db->kv_cfs[i];
    return NULL;
}

sl_kv_cf *sl_kv_cf_default(sl_kv *db)
{
    return &db->kv_cfs[0];
}

const char *sl_kv_cf_name(const sl_kv_cf *cf)
{
    return cf->cf_name;
}

/* ---------------------------------------------------------------------------------------
 * Point reads and single writes
 * ------------------------------------------------------------------------------------- */

static const rocksdb_writeoptions_t *kv_wopts(const sl_kv *db, sl_kv_sync sync)
{
    switch (sync) {
    case SL_KV_SYNC_DEFAULT: return db->kv_sync_default ? db->kv_wsync : db->kv_wnosync;
    case SL_KV_SYNC_ON: return db->kv_wsync;
    case SL_KV_SYNC_OFF: return db->kv_wnosync;
    }
    return NULL;
}

int sl_kv_get(sl_kv *db, sl_kv_cf *cf, const sl_kv_snapshot *snap, const void *key, size_t klen,
              sl_buf *out, sl_error *err)
{
    assert(cf->cf_db == db);
    int rc = sl__kv_check_item(key, klen);
    if (rc != 0)
        return kv_arg_fail(err, rc, db, "get");
    assert(snap == NULL || snap->sn_db == db);
    const rocksdb_readoptions_t *ro = snap != NULL ? snap->sn_ro : db->kv_ro;
    char *rerr = NULL;
    rocksdb_pinnableslice_t *v =
        rocksdb_get_pinned_cf(db->kv_db, ro, cf->cf_h, sl__kv_bytes(key), klen, &rerr);
    if (rerr != NULL)
        return sl__kv_fail(err, &rerr, db, "get");
    if (v == NULL)
        return SL_ENOTFOUND;
    size_t vlen = 0;
    const char *vp = rocksdb_pinnableslice_value(v, &vlen);
    size_t old = out->len;
    out->len = 0;
    rc = sl_buf_put(out, vp, vlen);
    rocksdb_pinnableslice_destroy(v);
    if (rc != 0) {
        out->len = old;
        return sl_error_set(err, rc, 0, 0, "kv get (%s): out of memory for a %zu-byte value",
                            db->kv_path, vlen);
    }
    return 0;
}

int sl_kv_put(sl_kv *db, sl_kv_cf *cf, const void *key, size_t klen, const void *val, size_t vlen,
              sl_error *err)
{
    assert(cf->cf_db == db);
    int rc = sl__kv_check_item(key, klen);
    if (rc == 0)
        rc = sl__kv_check_item(val, vlen);
    if (rc != 0)
        return kv_arg_fail(err, rc, db, "put");
    char *rerr = NULL;
    rocksdb_put_cf(db->kv_db, kv_wopts(db, SL_KV_SYNC_DEFAULT), cf->cf_h, sl__kv_bytes(key), klen,
                   sl__kv_bytes(val), vlen, &rerr);
    return rerr != NULL ? sl__kv_fail(err, &rerr, db, "put") : 0;
}

int sl_kv_delete(sl_kv *db, sl_kv_cf *cf, const void *key, size_t klen, sl_error *err)
{
    assert(cf->cf_db == db);
    int rc = sl__kv_check_item(key, klen);
    if (rc != 0)
        return kv_arg_fail(err, rc, db, "delete");
    char *rerr = NULL;
    rocksdb_delete_cf(db->kv_db, kv_wopts(db, SL_KV_SYNC_DEFAULT), cf->cf_h, sl__kv_bytes(key),
                      klen, &rerr);
    return rerr != NULL ? sl__kv_fail(err, &rerr, db, "delete") : 0;
}

int sl_kv_delete_range(sl_kv *db, sl_kv_cf *cf, const void *begin, size_t blen, const void *end,
                       size_t elen, sl_error *err)
{
    assert(cf->cf_db == db);
    int rc = kv_check_range(begin, blen, end, elen);
    if (rc != 0)
        return kv_arg_fail(err, rc, db, "delete_range");
    if (sl__kv_cmp(begin, blen, end, elen) == 0)
        return 0;
    char *rerr = NULL;
    rocksdb_delete_range_cf(db->kv_db, kv_wopts(db, SL_KV_SYNC_DEFAULT), cf->cf_h,
                            sl__kv_bytes(begin), blen, sl__kv_bytes(end), elen, &rerr);
    return rerr != NULL ? sl__kv_fail(err, &rerr, db, "delete_range") : 0;
}

/* ---------------------------------------------------------------------------------------
 * Writes of batches (the batch itself is in kv_batch.c)
 * ------------------------------------------------------------------------------------- */

int sl_kv_write(sl_kv *db, sl_kv_batch *b, sl_kv_sync sync, sl_error *err)
{
    const rocksdb_writeoptions_t *wo = kv_wopts(db, sync);
    if (wo == NULL)
        return sl_error_set(err, SL_EINVAL, 0, 0, "kv write (%s): bad sync mode %d", db->kv_path,
                            (int)sync);
    if (sl_kv_batch_count(b) == 0)
        return 0;
    char *rerr = NULL;
    rocksdb_write(db->kv_db, wo, sl__kv_batch_rep(b), &rerr);
    return rerr != NULL ? sl__kv_fail(err, &rerr, db, "write") : 0;
}

int sl_kv_sync_wal(sl_kv *db, sl_error *err)
{
    char *rerr = NULL;
    rocksdb_flush_wal(db->kv_db, 1, &rerr);
    return rerr != NULL ? sl__kv_fail(err, &rerr, db, "sync_wal") : 0;
}

/* ---------------------------------------------------------------------------------------
 * Maintenance and statistics
 * ------------------------------------------------------------------------------------- */

int sl_kv_flush(sl_kv *db, sl_kv_cf *cf, sl_error *err)
{
    assert(cf == NULL || cf->cf_db == db);
    rocksdb_flushoptions_t *fo = rocksdb_flushoptions_create();
    rocksdb_flushoptions_set_wait(fo, 1);
    char *rerr = NULL;
    for (size_t i = 0; i < db->kv_ncf && rerr == NULL; i++)
        if (cf == NULL || cf == &db->kv_cfs[i])
            rocksdb_flush_cf(db->kv_db, fo, db->kv_cfs[i].cf_h, &rerr);
    rocksdb_flushoptions_destroy(fo);
    return rerr != NULL ? sl__kv_fail(err, &rerr, db, "flush") : 0;
}

int sl_kv_compact_range(sl_kv *db, sl_kv_cf *cf, const void *begin, size_t blen, const void *end,
                        size_t elen, sl_error *err)
{
    assert(cf->cf_db == db);
    if ((begin == NULL && blen != 0) || (end == NULL && elen != 0))
        return kv_arg_fail(err, SL_EINVAL, db, "compact_range");
    rocksdb_compactoptions_t *co = rocksdb_compactoptions_create();
    /* Rewrite the last level too, or tombstones that reached it would stay forever. */
    rocksdb_compactoptions_set_bottommost_level_compaction(co, KV_BOTTOMMOST_FORCE_OPTIMIZED);
    /* The C API passes a NULL pointer on as "unbounded" and reports no error. */
    rocksdb_compact_range_cf_opt(db->kv_db, cf->cf_h, co, begin, blen, end, elen);
    rocksdb_compactoptions_destroy(co);
    return 0;
}

int sl_kv_approximate_size(sl_kv *db, sl_kv_cf *cf, const void *begin, size_t blen, const void *end,
                           size_t elen, uint64_t *size, sl_error *err)
{
    assert(cf->cf_db == db);
    int rc = kv_check_range(begin, blen, end, elen);
    if (rc != 0)
        return kv_arg_fail(err, rc, db, "approximate_size");
    const char *b = sl__kv_bytes(begin), *e = sl__kv_bytes(end);
    uint64_t sz = 0;
    char *rerr = NULL;
    rocksdb_approximate_sizes_cf(db->kv_db, cf->cf_h, 1, &b, &blen, &e, &elen, &sz, &rerr);
    if (rerr != NULL)
        return sl__kv_fail(err, &rerr, db, "approximate_size");
    *size = sz;
    return 0;
}

int sl_kv_property(sl_kv *db, sl_kv_cf *cf, const char *name, sl_buf *out, sl_error *err)
{
    assert(cf == NULL || cf->cf_db == db);
    if (cf == NULL)
        cf = sl_kv_cf_default(db);
    char *v = rocksdb_property_value_cf(db->kv_db, cf->cf_h, name);
    if (v == NULL)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "kv property (%s): unknown property '%s'",
                            db->kv_path, name);
    size_t n = strlen(v);
    size_t old = out->len;
    out->len = 0;
    int rc = sl_buf_reserve(out, n + 1);
    if (rc == 0) {
        memcpy(out->data, v, n);
        out->data[n] = '\0';
        out->len = n;
    } else {
        out->len = old;
    }
    rocksdb_free(v);
    if (rc != 0)
        return sl_error_set(err, rc, 0, 0, "kv property (%s): out of memory", db->kv_path);
    return 0;
}

int sl_kv_property_u64(sl_kv *db, sl_kv_cf *cf, const char *name, uint64_t *value, sl_error *err)
{
    assert(cf == NULL || cf->cf_db == db);
    if (cf == NULL)
        cf = sl_kv_cf_default(db);
    uint64_t v = 0;
    if (rocksdb_property_int_cf(db->kv_db, cf->cf_h, name, &v) != 0)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0,
                            "kv property (%s): '%s' is not an integer property", db->kv_path, name);
    *value = v;
    return 0;
}

int sl_kv_checkpoint(sl_kv *db, const char *dir, sl_error *err)
{
    if (dir == NULL || dir[0] == '\0')
        return sl_error_set(err, SL_EINVAL, 0, 0, "kv checkpoint (%s): empty directory",
                            db->kv_path);
    struct stat st;
    if (stat(dir, &st) == 0)
        return sl_error_set(err, SL_EINVAL, 0, 0, "kv checkpoint (%s): '%s' already exists",
                            db->kv_path, dir);
    char *rerr = NULL;
    rocksdb_checkpoint_t *cp = rocksdb_checkpoint_object_create(db->kv_db, &rerr);
    if (rerr != NULL)
        return sl__kv_fail(err, &rerr, db, "checkpoint");
    /* log_size_for_flush 0: always flush memtables, so the copy needs no log replay. */
    rocksdb_checkpoint_create(cp, dir, 0, &rerr);
    rocksdb_checkpoint_object_destroy(cp);
    return rerr != NULL ? sl__kv_fail(err, &rerr, db, "checkpoint") : 0;
}
