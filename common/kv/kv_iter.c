/*
 * kv_iter.c - snapshots and iterators; see kv.h.
 *
 * RocksDB keeps pointers to the bound slices and to the read options inside a live
 * iterator, so an sl_kv_iter owns copies of its bounds and its own read options and frees
 * them only after the RocksDB iterator is gone. Every open snapshot and iterator is counted
 * on its database so that sl_kv_close() can catch one left open (RocksDB would read freed
 * memory later).
 */
#include "kv_int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------
 * Snapshots
 * ------------------------------------------------------------------------------------- */

int sl_kv_snapshot_open(sl_kv_snapshot **out, sl_kv *db)
{
    sl_kv_snapshot *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return SL_ENOMEM;
    s->sn_db = db;
    s->sn_s = rocksdb_create_snapshot(db->kv_db);
    s->sn_ro = rocksdb_readoptions_create();
    rocksdb_readoptions_set_snapshot(s->sn_ro, s->sn_s);
    atomic_fetch_add(&db->kv_live, 1);
    *out = s;
    return 0;
}

void sl_kv_snapshot_close(sl_kv_snapshot *s)
{
    if (s == NULL)
        return;
    rocksdb_readoptions_destroy(s->sn_ro);
    rocksdb_release_snapshot(s->sn_db->kv_db, s->sn_s);
    atomic_fetch_sub(&s->sn_db->kv_live, 1);
    free(s);
}

/* ---------------------------------------------------------------------------------------
 * Iterators
 * ------------------------------------------------------------------------------------- */

struct sl_kv_iter {
    sl_kv *it_db;                 /* database the iterator reads */
    rocksdb_iterator_t *it_rep;   /* the RocksDB iterator */
    rocksdb_readoptions_t *it_ro; /* its read options; must outlive it_rep */
    char *it_bounds;              /* owned copies of lower then upper bound, or NULL */
};

int sl_kv_iter_open(sl_kv_iter **out, sl_kv *db, sl_kv_cf *cf, const sl_kv_iter_options *opts,
                    sl_error *err)
{
    assert(cf->cf_db == db);
    static const sl_kv_iter_options none;
    if (opts == NULL)
        opts = &none;
    assert(opts->snapshot == NULL || opts->snapshot->sn_db == db);
    if ((opts->lower == NULL && opts->lower_len != 0) ||
        (opts->upper == NULL && opts->upper_len != 0) ||
        (opts->lower != NULL && opts->upper != NULL &&
         sl__kv_cmp(opts->lower, opts->lower_len, opts->upper, opts->upper_len) > 0))
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "kv iter (%s): bad bounds (NULL with a length, or lower > upper)",
                            db->kv_path);

    sl_kv_iter *it = calloc(1, sizeof(*it));
    size_t nb = (opts->lower ? opts->lower_len : 0) + (opts->upper ? opts->upper_len : 0);
    char *bounds = nb != 0 ? malloc(nb) : NULL;
    if (it == NULL || (nb != 0 && bounds == NULL)) {
        free(it);
        free(bounds);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "kv iter (%s): out of memory", db->kv_path);
    }
    it->it_db = db;
    it->it_bounds = bounds;
    it->it_ro = rocksdb_readoptions_create();
    if (opts->snapshot != NULL)
        rocksdb_readoptions_set_snapshot(it->it_ro, opts->snapshot->sn_s);
    if (opts->no_fill_cache)
        rocksdb_readoptions_set_fill_cache(it->it_ro, 0);
    size_t off = 0;
    if (opts->lower != NULL) {
        if (opts->lower_len != 0)
            memcpy(bounds, opts->lower, opts->lower_len);
        rocksdb_readoptions_set_iterate_lower_bound(it->it_ro, sl__kv_bytes(bounds),
                                                    opts->lower_len);
        off = opts->lower_len;
    }
    if (opts->upper != NULL) {
        if (opts->upper_len != 0)
            memcpy(bounds + off, opts->upper, opts->upper_len);
        /* An empty upper bound admits no key; "" + 0 bytes expresses it. */
        rocksdb_readoptions_set_iterate_upper_bound(
            it->it_ro, opts->upper_len != 0 ? bounds + off : "", opts->upper_len);
    }
    it->it_rep = rocksdb_create_iterator_cf(db->kv_db, it->it_ro, cf->cf_h);
    atomic_fetch_add(&db->kv_live, 1);
    *out = it;
    return 0;
}

void sl_kv_iter_close(sl_kv_iter *it)
{
    if (it == NULL)
        return;
    rocksdb_iter_destroy(it->it_rep);
    rocksdb_readoptions_destroy(it->it_ro);
    atomic_fetch_sub(&it->it_db->kv_live, 1);
    free(it->it_bounds);
    free(it);
}

void sl_kv_iter_first(sl_kv_iter *it)
{
    rocksdb_iter_seek_to_first(it->it_rep);
}

void sl_kv_iter_last(sl_kv_iter *it)
{
    rocksdb_iter_seek_to_last(it->it_rep);
}

void sl_kv_iter_seek(sl_kv_iter *it, const void *key, size_t klen)
{
    rocksdb_iter_seek(it->it_rep, sl__kv_bytes(key), klen);
}

void sl_kv_iter_seek_for_prev(sl_kv_iter *it, const void *key, size_t klen)
{
    rocksdb_iter_seek_for_prev(it->it_rep, sl__kv_bytes(key), klen);
}

void sl_kv_iter_next(sl_kv_iter *it)
{
    assert(sl_kv_iter_valid(it));
    rocksdb_iter_next(it->it_rep);
}

void sl_kv_iter_prev(sl_kv_iter *it)
{
    assert(sl_kv_iter_valid(it));
    rocksdb_iter_prev(it->it_rep);
}

bool sl_kv_iter_valid(const sl_kv_iter *it)
{
    return rocksdb_iter_valid(it->it_rep) != 0;
}

const void *sl_kv_iter_key(const sl_kv_iter *it, size_t *len)
{
    assert(sl_kv_iter_valid(it));
    return rocksdb_iter_key(it->it_rep, len);
}

const void *sl_kv_iter_value(const sl_kv_iter *it, size_t *len)
{
    assert(sl_kv_iter_valid(it));
    return rocksdb_iter_value(it->it_rep, len);
}

int sl_kv_iter_status(const sl_kv_iter *it, sl_error *err)
{
    char *rerr = NULL;
    rocksdb_iter_get_error(it->it_rep, &rerr);
    return rerr != NULL ? sl__kv_fail(err, &rerr, it->it_db, "iter") : 0;
}
