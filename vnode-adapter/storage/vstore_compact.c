/*
 * vstore_compact.c - table compaction: rewrite the overlapping parts of a table as
 * disjoint blocks of visible rows and drop its tombstones; see sl_vstore_compact_table.
 *
 * Out-of-order writes and updates leave blocks that overlap in time, and deletes leave
 * tombstones; both make reads slower (readers hold a dirty interval's blocks in memory and
 * test rows against tombstones). Compaction bounds that cost.
 *
 * Only what can overlap is touched: the dirty intervals and the tombstone ranges, each
 * widened until no block crosses its ends (a block crossing an end joins it, which moves
 * the end). Such a closed range holds whole blocks only, and its blocks overlap nothing
 * outside it, so it can be rewritten alone: every block keyed inside it is removed (one
 * range deletion), and the merge reader's visible rows over it are written back as new
 * disjoint blocks tagged with the current version (newer than anything they replace,
 * older than anything written later). Blocks wholly under a newer tombstone are dropped
 * without being decoded. Tombstones and the table state go too, all in one atomic batch,
 * so readers see the same rows before and after, and a snapshot taken before still reads
 * the old blocks. Change-log entries that refer to a removed block are made inline in the
 * same batch, so change readers see the same rows too. A composite-key table's new blocks
 * end only between two timestamps (vstore_int.h), so they stay disjoint in time.
 */
#include <stdlib.h>
#include <string.h>

#include "vstore_int.h"

typedef struct ivlist {
    vs_iv *v;
    size_t n;
    size_t cap;
} ivlist;

static int iv_push(ivlist *l, int64_t a, int64_t b)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? 2 * l->cap : 16;
        vs_iv *v = realloc(l->v, ncap * sizeof(*v));
        if (v == NULL)
            return SL_ENOMEM;
        l->v = v;
        l->cap = ncap;
    }
    l->v[l->n++] = (vs_iv){a, b};
    return 0;
}

static int iv_cmp(const void *a, const void *b)
{
    const vs_iv *x = a, *y = b;
    return (x->a > y->a) - (x->a < y->a);
}

/* Sorts l and merges intersecting intervals. */
static void iv_normalize(ivlist *l)
{
    qsort(l->v, l->n, sizeof(vs_iv), iv_cmp);
    size_t m = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (m > 0 && l->v[i].a <= l->v[m - 1].b) {
            if (l->v[i].b > l->v[m - 1].b)
                l->v[m - 1].b = l->v[i].b;
        } else {
            l->v[m++] = l->v[i];
        }
    }
    l->n = m;
}

/* Widens every interval until no block crosses its ends, merging as they meet. */
static int close_ranges(sl_kv_iter *it, uint64_t uid, const vs_tstate *st, ivlist *l, sl_error *err)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < l->n; i++) {
            bool found;
            int64_t fmin, lmax;
            int rc = sl__vs_stab(it, uid, st, l->v[i].a, &found, &fmin, &lmax, err);
            if (rc != 0)
                return rc;
            if (found && fmin < l->v[i].a) {
                l->v[i].a = fmin;
                changed = true;
            }
            if ((rc = sl__vs_stab(it, uid, st, l->v[i].b, &found, &fmin, &lmax, err)) != 0)
                return rc;
            if (found && lmax > l->v[i].b) {
                l->v[i].b = lmax;
                changed = true;
            }
        }
        iv_normalize(l);
    }
    return 0;
}

/* Encodes the rows gathered in t as one block and puts it in the batch. */
static int flush_rows(sl_vstore *vs, vs_entry *e, sl_block *t, uint64_t version)
{
    if (t->nrows == 0)
        return 0;
    const int64_t *ts = t->cols[0].data;
    uint8_t k[VS_BLOCK_KEY_LEN];
    vs_key_block(k, e->e_uid, ts[t->nrows - 1], version);
    sl_buf_reset(&vs->vs_buf);
    int rc = sl__vs_vblock_encode(t, ts, NULL, 0, t->nrows, e->e_table->def.cols,
                                  vs_key_type(&e->e_table->def) != SL_T_NULL, VS_AUX_NONE,
                                  &vs->vs_scratch, &vs->vs_buf);
    if (rc == 0)
        rc = sl_kv_batch_put(vs->vs_batch, vs->vs_data, k, sizeof(k), vs->vs_buf.data,
                             vs->vs_buf.len);
    sl_block_reset(t);
    return rc;
}

/* Rewrites the blocks of closed range [a, b] into the batch. */
static int rewrite_range(sl_vstore *vs, vs_entry *e, int64_t a, int64_t b, const uint32_t *need,
                         const sl_type *types, uint32_t nneed, sl_block *t, sl_error *err)
{
    const sl_vs_table_def *d = &e->e_table->def;
    uint8_t k0[VS_BLOCK_KEY_LEN], k1[VS_BLOCK_KEY_LEN + 1];
    vs_key_block(k0, e->e_uid, a, 0);
    vs_key_block(k1, e->e_uid, b, UINT64_MAX);
    k1[VS_BLOCK_KEY_LEN] = 0; /* just past every key with last ts b */
    int rc = sl_kv_batch_delete_range(vs->vs_batch, vs->vs_data, k0, sizeof(k0), k1, sizeof(k1));
    if (rc != 0)
        return sl__vs_fail(err, rc, "compact");
    vs_reader r;
    bool keyed = vs_key_type(d) != SL_T_NULL;
    if ((rc = sl__vs_reader_open(&r, vs, NULL, e->e_uid, vs_key_type(d), need, types, nneed, a, b,
                                 err)) != 0)
        return rc;
    r.r_skip_hidden = true;
    uint64_t version = vs->vs_head.h_version;
    vs_run run;
    /* A full block of a keyed table takes one row at a time until the timestamp changes. */
    while ((rc = sl__vs_reader_next(&r,
                                    t->nrows < SL_BLOCK_ROWS_MAX ? SL_BLOCK_ROWS_MAX - t->nrows : 1,
                                    &run, err)) > 0) {
        rc = 0;
        if (keyed && t->nrows >= SL_BLOCK_ROWS_MAX &&
            ((const int64_t *)t->cols[0].data)[t->nrows - 1] !=
                ((const int64_t *)run.c->c_ts.data)[run.from])
            rc = flush_rows(vs, e, t, version);
        if (rc == 0)
            rc = sl_column_append_rows(&t->cols[0], &run.c->c_ts, NULL, run.from, run.n);
        for (uint32_t c = 1; rc == 0 && c < d->ncols; c++)
            rc = sl_column_append_rows(&t->cols[c], &run.c->c_cols[c - 1], NULL, run.from, run.n);
        if (rc == 0) {
            sl_block_seal(t);
            if (!keyed && t->nrows == SL_BLOCK_ROWS_MAX)
                rc = flush_rows(vs, e, t, version);
        }
        if (rc != 0) {
            rc = sl__vs_fail(err, rc, "compact");
            break;
        }
    }
    if (rc == 0 && (rc = flush_rows(vs, e, t, version)) != 0)
        rc = sl__vs_fail(err, rc, "compact");
    /* Everything removed above must have been read: a block reaching below a would lose
     * rows. The dirty-interval invariant rules it out; check rather than trust. */
    if (rc == 0 && r.r_min_first < a)
        rc = sl_error_set(err, SL_ECORRUPT, 0, 0,
                          "vstore compact: table %llu: a block crosses compacted range "
                          "[%lld, %lld]; compaction refused",
                          (unsigned long long)e->e_uid, (long long)a, (long long)b);
    sl__vs_reader_close(&r);
    return rc;
}

int sl__vs_compact(sl_vstore *vs, vs_entry *e, sl_error *err)
{
    int rc = sl__vs_wstate_load(vs, e, err);
    if (rc != 0)
        return rc;
    vs_wstate *ws = &e->e_ws;
    const sl_vs_table_def *d = &e->e_table->def;
    ivlist ranges = {0};
    sl_kv_iter *it = NULL;
    uint32_t *need = NULL;
    sl_type *types = NULL;
    sl_block t;
    sl_block_init(&t);
    if ((rc = sl__vs_table_iter(vs, NULL, e->e_uid, &it, err)) != 0)
        goto out;
    sl_kv_batch_clear(vs->vs_batch);

    /* What may overlap: the dirty intervals and the tombstone ranges (tombstones go). */
    for (uint32_t i = 0; i < ws->ws_st.niv; i++)
        if ((rc = iv_push(&ranges, ws->ws_st.iv[i].a, ws->ws_st.iv[i].b)) != 0)
            goto nomem;
    uint8_t k0[VS_TABLE_KEY_LEN];
    vs_key_table(k0, e->e_uid, VS_KT_TOMB);
    for (sl_kv_iter_seek(it, k0, sizeof(k0)); sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        size_t kl, vl;
        const uint8_t *k = sl_kv_iter_key(it, &kl);
        if (k[8] != VS_KT_TOMB)
            break;
        int64_t lo, hi;
        const void *v = sl_kv_iter_value(it, &vl);
        if ((rc = sl__vs_tomb_decode(v, vl, &lo, &hi, err)) != 0)
            goto out;
        if ((rc = iv_push(&ranges, lo, hi)) != 0 ||
            (rc = sl_kv_batch_delete(vs->vs_batch, vs->vs_data, k, kl)) != 0)
            goto nomem;
    }
    if ((rc = sl_kv_iter_status(it, err)) != 0)
        goto out;
    if (ranges.n == 0 && ws->ws_st.n_overlap == 0)
        goto out;
    iv_normalize(&ranges);
    if ((rc = close_ranges(it, e->e_uid, &ws->ws_st, &ranges, err)) != 0)
        goto out;
    sl_kv_iter_close(it);
    it = NULL;

    uint32_t nneed = d->ncols - 1;
    need = malloc((nneed ? nneed : 1) * sizeof(uint32_t));
    types = malloc((nneed ? nneed : 1) * sizeof(sl_type));
    if (need == NULL || types == NULL)
        goto nomem;
    for (uint32_t c = 1; c < d->ncols; c++) {
        need[c - 1] = c;
        types[c - 1] = d->cols[c].type;
    }
    for (uint32_t c = 0; c < d->ncols; c++)
        if ((rc = sl_block_add_column(&t, d->cols[c].type, d->cols[c].width)) < 0)
            goto nomem;
    rc = 0; /* sl_block_add_column returned an index */
    /* Change-log entries still pointing at the blocks about to go get their rows. */
    vs_head h = vs->vs_head;
    vs_mat acc = {0};
    for (size_t i = 0; rc == 0 && i < ranges.n; i++)
        rc = sl__vs_log_materialize(vs, vs->vs_batch, e->e_uid, ranges.v[i].a, ranges.v[i].b, &h,
                                    &acc, err);
    if (rc != 0) {
        free(acc.m_v);
        goto out;
    }
    if ((rc = sl__vs_log_materialize_done(vs, vs->vs_batch, &h, &acc, err)) != 0)
        goto out;
    if (h.h_bytes != vs->vs_head.h_bytes && (rc = sl__vs_batch_head(vs, vs->vs_batch, &h)) != 0)
        goto nomem;
    for (size_t i = 0; i < ranges.n; i++)
        if ((rc = rewrite_range(vs, e, ranges.v[i].a, ranges.v[i].b, need, types, nneed, &t,
                                err)) != 0)
            goto out;
    uint8_t sk[VS_STATE_KEY_LEN];
    vs_key_table(sk, e->e_uid, VS_KT_STATE);
    if ((rc = sl_kv_batch_delete(vs->vs_batch, vs->vs_data, sk, sizeof(sk))) != 0)
        goto nomem;
    /* Not synced: compaction acknowledges nothing, and a crash that loses it leaves the
     * equivalent state before it (the log replays in order). */
    if ((rc = sl_kv_write(vs->vs_db, vs->vs_batch, SL_KV_SYNC_OFF, err)) != 0)
        goto out;
    sl__vs_publish(vs, &h, false);
    memset(&ws->ws_st, 0, sizeof(ws->ws_st));
    ws->ws_ntomb = 0;
    atomic_fetch_add(&vs->vs_a_compactions, 1);
    goto out;
nomem:
    rc = sl__vs_fail(err, rc < 0 ? rc : SL_ENOMEM, "compact");
out:
    sl_kv_iter_close(it);
    sl_block_fini(&t);
    free(need);
    free(types);
    free(ranges.v);
    return rc;
}

void sl__vs_maybe_compact(sl_vstore *vs, vs_entry *e)
{
    const vs_wstate *ws = &e->e_ws;
    if (vs->vs_opts.no_auto_compact || (ws->ws_st.n_overlap <= vs->vs_opts.compact_overlaps &&
                                        ws->ws_ntomb <= vs->vs_opts.compact_tombstones))
        return;
    if (sl__vs_compact(vs, e, NULL) != 0)
        atomic_fetch_add(&vs->vs_a_cerrors, 1);
}

int sl_vstore_compact_table(sl_vstore *vs, uint64_t uid, sl_error *err)
{
    pthread_mutex_lock(&vs->vs_wlock);
    vs_entry *e = sl__vs_find(vs, uid);
    int rc = e != NULL
                 ? sl__vs_compact(vs, e, err)
                 : sl_error_set(err, SL_ENOTFOUND, 0, 0, "vstore compact: unknown table uid %llu",
                                (unsigned long long)uid);
    pthread_mutex_unlock(&vs->vs_wlock);
    return rc;
}
