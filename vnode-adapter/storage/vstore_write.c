/*
 * vstore_write.c - writes and deletes: validation, sorting and de-duplication, insert/update
 * classification, block and change-log encoding, dirty-interval upkeep, and the one atomic
 * batch per call; see sl_vstore_write / sl_vstore_delete in vstore.h.
 *
 * The common case is an append: rows after the table's newest timestamp, already sorted.
 * It costs one pass to check the order, one encoding of the rows (shared by the data block
 * and the change-log entry, which are the same bytes) and a few small keys; no read of the
 * database. Rows at or before the newest timestamp are classified exactly by probing the
 * stored rows through the merge reader, and a block that overlaps stored blocks grows the
 * table's dirty intervals so that readers stay correct (vstore_int.h). A table with a
 * composite key does the same by (timestamp, key).
 */
#include <stdlib.h>
#include <string.h>

#include "vstore_int.h"

int sl__vs_check_text(const sl_column *col, uint32_t row, uint32_t width, const char **why)
{
    uint32_t len;
    const char *p = sl_column_get_str(col, row, &len);
    if (col->type == SL_T_NCHAR) {
        int64_t chars = sl_utf8_count(p, len);
        if (chars < 0) {
            *why = "is not valid UTF-8";
            return SL_ERANGE;
        }
        if ((uint64_t)chars > width) {
            *why = "is longer than the column width";
            return SL_ERANGE;
        }
    } else if (len > width) {
        *why = "is longer than the column width";
        return SL_ERANGE;
    }
    return 0;
}

static sl_kv_sync kv_sync(bool sync)
{
    return sync ? SL_KV_SYNC_ON : SL_KV_SYNC_OFF;
}

/* ---------------------------------------------------------------------------------------
 * Validation
 * ------------------------------------------------------------------------------------- */

int sl_vstore_check_item(const sl_vs_table_def *d, const sl_vs_write_item *it, size_t i,
                         sl_error *err)
{
    const sl_block *b = it->rows;
    if (b->ncols != d->ncols)
        return sl_error_set(err, SL_ETYPE, 0, 0,
                            "vstore write: item %zu (table '%s'): %u columns, the table has %u", i,
                            d->name, b->ncols, d->ncols);
    for (uint32_t c = 0; c < b->ncols; c++) {
        const sl_column *col = &b->cols[c];
        if (col->type != d->cols[c].type)
            return sl_error_set(err, SL_ETYPE, 0, 0,
                                "vstore write: item %zu (table '%s'): column %u ('%s') is %s, "
                                "the table says %s",
                                i, d->name, c, d->cols[c].name, sl_type_name(col->type),
                                sl_type_name(d->cols[c].type));
        if (col->nrows != b->nrows)
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "vstore write: item %zu (table '%s'): column %u has %u rows, "
                                "the block %u (not sealed)",
                                i, d->name, c, col->nrows, b->nrows);
        uint32_t m = col->is_const ? (b->nrows > 0 ? 1 : 0) : b->nrows;
        if (c == 0 && col->has_nulls) {
            for (uint32_t r = 0; r < m; r++)
                if (sl_column_is_null(col, r))
                    return sl_error_set(err, SL_EINVAL, 0, 0,
                                        "vstore write: item %zu (table '%s'): row %u: NULL "
                                        "timestamp",
                                        i, d->name, r);
        }
        if (c == 1 && d->composite_key && col->has_nulls) {
            for (uint32_t r = 0; r < m; r++)
                if (sl_column_is_null(col, r))
                    return sl_error_set(err, SL_EINVAL, 0, 0,
                                        "vstore write: item %zu (table '%s'): row %u: NULL "
                                        "composite key '%s'",
                                        i, d->name, r, d->cols[c].name);
        }
        if (sl_type_is_var(col->type)) {
            for (uint32_t r = 0; r < m; r++) {
                const char *why;
                if (!sl_column_is_null(col, r) &&
                    sl__vs_check_text(col, r, d->cols[c].width, &why) != 0)
                    return sl_error_set(err, SL_ERANGE, 0, 0,
                                        "vstore write: item %zu (table '%s'): row %u: column "
                                        "'%s' %s (%u)",
                                        i, d->name, r, d->cols[c].name, why, d->cols[c].width);
            }
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Sorting and de-duplication
 * ------------------------------------------------------------------------------------- */

/* qsort has no context argument: the arrays being sorted, per thread (a process hosts
 * several vstores, whose writers run concurrently). */
static _Thread_local const int64_t *g_sort_ts;
static _Thread_local const sl_column *g_sort_key; /* the composite key column, or NULL */

static int sel_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int64_t tx = g_sort_ts[x], ty = g_sort_ts[y];
    if (tx != ty)
        return tx < ty ? -1 : 1;
    if (g_sort_key != NULL) {
        int c = sl_column_cmp_rows(g_sort_key, x, g_sort_key, y);
        if (c != 0)
            return c;
    }
    return (x > y) - (x < y);
}

/* One table's rows of a call, prepared for storing. */
typedef struct group {
    vs_entry *e;
    const sl_block *src; /* the rows (an item's block, or vs_cat) */
    int64_t *ts_own;     /* timestamps when src's are a constant column */
    const int64_t *ts;   /* timestamp of src row i */
    const sl_column *key; /* src's composite key column, or NULL (timestamps alone) */
    uint32_t *sel;       /* sorted unique rows of src, or NULL: all rows, in order */
    uint32_t n;          /* rows to store */
    uint8_t *kinds;      /* per stored row, or NULL: all INSERT */
    int64_t new_max;     /* the table's newest timestamp after the call */
    vs_tstate st;        /* the table state after the call */
    bool st_changed;
} group;

static void group_fini(group *g)
{
    free(g->ts_own);
    free(g->sel);
    free(g->kinds);
}

/* The rows of g that are new (INSERT): the stored row count grows by them. */
static uint64_t group_inserts(const group *g)
{
    if (g->kinds == NULL)
        return g->n;
    uint64_t n = 0;
    for (uint32_t k = 0; k < g->n; k++)
        n += g->kinds[k] == SL_VS_ROW_INSERT;
    return n;
}

static inline int64_t g_ts(const group *g, uint32_t k)
{
    return g->ts[g->sel != NULL ? g->sel[k] : k];
}

/* Orders src rows x and y by (timestamp, key). */
static int g_cmp_src(const group *g, uint32_t x, uint32_t y)
{
    if (g->ts[x] != g->ts[y])
        return g->ts[x] < g->ts[y] ? -1 : 1;
    return g->key != NULL ? sl_column_cmp_rows(g->key, x, g->key, y) : 0;
}

/* Sorts and de-duplicates g's rows (the last occurrence of a timestamp, or of a
 * (timestamp, key) pair, wins). */
static int group_sort(group *g)
{
    const sl_column *tc = &g->src->cols[0];
    uint32_t n = g->src->nrows;
    if (tc->is_const) {
        g->ts_own = malloc((size_t)n * sizeof(int64_t));
        if (g->ts_own == NULL)
            return SL_ENOMEM;
        for (uint32_t i = 0; i < n; i++)
            g->ts_own[i] = ((const int64_t *)tc->data)[0];
        g->ts = g->ts_own;
    } else {
        g->ts = tc->data;
    }
    uint32_t i = 1;
    while (i < n && g_cmp_src(g, i - 1, i) < 0)
        i++;
    g->n = n;
    if (i >= n)
        return 0;
    g->sel = malloc((size_t)n * sizeof(uint32_t));
    if (g->sel == NULL)
        return SL_ENOMEM;
    for (uint32_t k = 0; k < n; k++)
        g->sel[k] = k;
    g_sort_ts = g->ts;
    g_sort_key = g->key;
    qsort(g->sel, n, sizeof(uint32_t), sel_cmp);
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (k + 1 < n && g_cmp_src(g, g->sel[k + 1], g->sel[k]) == 0)
            continue; /* a later occurrence follows */
        g->sel[m++] = g->sel[k];
    }
    g->n = m;
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Classification and dirty intervals
 * ------------------------------------------------------------------------------------- */

/* classify() for a composite-key table: walks the stored rows of [first, last] along the
 * new rows [0, p), both ascending by (timestamp, key). */
static int classify_keyed(vs_reader *r, group *g, uint32_t p, sl_error *err)
{
    vs_run run = {0};
    bool have = false; /* run holds the next stored row not below the new rows passed */
    int rc = 0;
    for (uint32_t k = 0; k < p; k++) {
        uint32_t src = g->sel != NULL ? g->sel[k] : k;
        int64_t t = g->ts[src];
        int c = -1;
        for (;;) {
            if (have) {
                int64_t st = ((const int64_t *)run.c->c_ts.data)[run.from];
                c = st != t ? (st < t ? -1 : 1)
                            : sl_column_cmp_rows(&run.c->c_key, run.from, g->key, src);
                if (c >= 0)
                    break;
                if (st < t && (rc = sl__vs_reader_skip_to(r, t, err)) != 0)
                    return rc;
            }
            if ((rc = sl__vs_reader_next(r, 1, &run, err)) < 0)
                return rc;
            if (rc == 0)
                return 0; /* nothing stored after: the rest are inserts */
            rc = 0;
            have = true;
        }
        if (c == 0)
            g->kinds[k] = SL_VS_ROW_UPDATE;
    }
    return 0;
}

/* Marks rows [0, p) (those at or before the stored maximum) INSERT or UPDATE by probing. */
static int classify(sl_vstore *vs, group *g, uint32_t p, sl_error *err)
{
    g->kinds = calloc(g->n, 1);
    if (g->kinds == NULL)
        return sl__vs_fail(err, SL_ENOMEM, "write");
    vs_reader r;
    int rc = sl__vs_reader_open(&r, vs, NULL, g->e->e_uid, vs_key_type(&g->e->e_table->def), NULL,
                                NULL, 0, g_ts(g, 0), g_ts(g, p - 1), err);
    if (rc != 0)
        return rc;
    if (g->key != NULL) {
        rc = classify_keyed(&r, g, p, err);
        sl__vs_reader_close(&r);
        return rc;
    }
    /* The probe reads the next visible row at or after each t; that row also answers
     * every later t up to it, so it is kept rather than read again. */
    bool have = false;
    int64_t next = 0;
    for (uint32_t k = 0; k < p; k++) {
        int64_t t = g_ts(g, k);
        if (!have || next < t) {
            vs_run run;
            if ((rc = sl__vs_reader_skip_to(&r, t, err)) != 0)
                break;
            if ((rc = sl__vs_reader_next(&r, 1, &run, err)) < 0)
                break;
            if (rc == 0)
                break; /* nothing stored at or after t: the rest are inserts */
            rc = 0;
            have = true;
            next = ((const int64_t *)run.c->c_ts.data)[run.from];
        }
        if (next == t)
            g->kinds[k] = SL_VS_ROW_UPDATE;
    }
    sl__vs_reader_close(&r);
    return rc;
}

/* Grows g's intervals over block [f, l] and every stored block it overlaps, if any. */
static int note_overlap(sl_kv_iter *it, group *g, const vs_tstate *old, int64_t f, int64_t l,
                        sl_error *err)
{
    bool found;
    int64_t fmin, lmax, a = f, b = l;
    int rc = sl__vs_any_overlap(it, g->e->e_uid, old, f, l, &found, err);
    if (rc != 0 || !found)
        return rc;
    /* Blocks inside [f, l] add nothing; those crossing its ends stretch it. */
    if ((rc = sl__vs_stab(it, g->e->e_uid, old, f, &found, &fmin, &lmax, err)) != 0)
        return rc;
    if (found && fmin < a)
        a = fmin;
    if ((rc = sl__vs_stab(it, g->e->e_uid, old, l, &found, &fmin, &lmax, err)) != 0)
        return rc;
    if (found && lmax > b)
        b = lmax;
    sl__vs_tstate_add(&g->st, a, b);
    g->st.n_overlap++;
    g->st_changed = true;
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Encoding a group into the batch
 * ------------------------------------------------------------------------------------- */

static int put_group(sl_vstore *vs, group *g, uint64_t version, uint32_t *seq, vs_log_sum *bytes,
                     sl_error *err)
{
    vs_entry *e = g->e;
    const vs_wstate *ws = &e->e_ws;
    const sl_vs_table_def *d = &e->e_table->def;
    sl_kv_batch *b = vs->vs_batch;
    sl_kv_iter *it = NULL;
    int rc = 0;
    g->st = ws->ws_st;
    g->new_max =
        ws->ws_has_rows && ws->ws_max_ts > g_ts(g, g->n - 1) ? ws->ws_max_ts : g_ts(g, g->n - 1);
    /* Rows after the stored maximum are inserts without a look; the rest are probed. */
    uint32_t p = 0;
    if (ws->ws_has_rows)
        while (p < g->n && g_ts(g, p) <= ws->ws_max_ts)
            p++;
    if (p > 0 && (rc = classify(vs, g, p, err)) != 0)
        return rc;

    for (uint32_t off = 0, cn; off < g->n; off += cn) {
        cn = g->n - off < SL_BLOCK_ROWS_MAX ? g->n - off : SL_BLOCK_ROWS_MAX;
        if (g->key != NULL && off + cn < g->n && g_ts(g, off + cn) == g_ts(g, off + cn - 1)) {
            /* Keys of one timestamp stay in one block (vstore_int.h): end the block before
             * that timestamp, or, when it fills the block alone, after its last key. */
            uint32_t back = cn;
            while (back > 0 && g_ts(g, off + back - 1) == g_ts(g, off + cn))
                back--;
            if (back > 0) {
                cn = back;
            } else {
                while (off + cn < g->n && g_ts(g, off + cn) == g_ts(g, off))
                    cn++;
            }
        }
        int64_t f = g_ts(g, off), l = g_ts(g, off + cn - 1);
        if (off < p) {
            /* This block reaches back among stored rows: keep the intervals right. */
            if (it == NULL && (rc = sl__vs_table_iter(vs, NULL, e->e_uid, &it, err)) != 0)
                break;
            if ((rc = note_overlap(it, g, &ws->ws_st, f, l, err)) != 0)
                break;
        }
        /* The rows are stored once, in the data block; the log entry refers to it. */
        sl_buf *v = &vs->vs_buf, *lg = &vs->vs_lbuf;
        sl_buf_reset(v);
        sl_buf_reset(lg);
        uint32_t s = (*seq)++;
        if ((rc = sl__vs_vblock_encode(g->src, g->ts, g->sel ? g->sel + off : NULL, off, cn,
                                       d->cols, g->key != NULL, s, &vs->vs_scratch, v)) != 0 ||
            (rc = sl__vs_log_rows_header(lg, e->e_uid, cn, g->kinds ? g->kinds + off : NULL)) !=
                0) {
            rc = sl__vs_fail(err, rc, "write");
            break;
        }
        size_t hdr = lg->len;
        if ((rc = sl_buf_put_u8(lg, VS_BODY_REF)) != 0 || (rc = sl_buf_put_vari(lg, l)) != 0) {
            rc = sl__vs_fail(err, rc, "write");
            break;
        }
        uint8_t dk[VS_BLOCK_KEY_LEN], lk[VS_LOG_ENTRY_KEY_LEN];
        vs_key_block(dk, e->e_uid, l, version);
        vs_key_log_entry(lk, version, s);
        if ((rc = sl_kv_batch_put(b, vs->vs_data, dk, sizeof(dk), v->data, v->len)) != 0 ||
            (rc = sl_kv_batch_put(b, vs->vs_log, lk, sizeof(lk), lg->data, lg->len)) != 0) {
            rc = sl__vs_fail(err, rc, "write");
            break;
        }
        bytes->stored += lg->len;
        bytes->logical += hdr + 1 + v->len;
    }
    sl_kv_iter_close(it);
    if (rc == 0 && g->st_changed) {
        uint8_t sk[VS_STATE_KEY_LEN];
        vs_key_table(sk, e->e_uid, VS_KT_STATE);
        sl_buf_reset(&vs->vs_buf);
        if ((rc = sl__vs_tstate_encode(&g->st, &vs->vs_buf)) != 0 ||
            (rc = sl_kv_batch_put(b, vs->vs_data, sk, sizeof(sk), vs->vs_buf.data,
                                  vs->vs_buf.len)) != 0)
            rc = sl__vs_fail(err, rc, "write");
    }
    return rc;
}

/* Appends the version summary, trimming and the head to the batch. */
static int finish_batch(sl_vstore *vs, vs_head *h, const vs_log_sum *sum, sl_error *err)
{
    uint8_t sk[VS_LOG_SUM_KEY_LEN];
    vs_key_log_sum(sk, h->h_version);
    h->h_entries += sum->entries;
    h->h_bytes += sum->stored;
    sl_buf_reset(&vs->vs_buf);
    int rc;
    if ((rc = sl__vs_log_sum_encode(&vs->vs_buf, sum->entries, sum->stored, sum->logical)) != 0 ||
        (rc = sl_kv_batch_put(vs->vs_batch, vs->vs_log, sk, sizeof(sk), vs->vs_buf.data,
                              vs->vs_buf.len)) != 0)
        return sl__vs_fail(err, rc, "write");
    if ((rc = sl__vs_log_trim(vs, vs->vs_batch, h, err)) != 0)
        return rc;
    if ((rc = sl__vs_batch_head(vs, vs->vs_batch, h)) != 0)
        return sl__vs_fail(err, rc, "write");
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * sl_vstore_write
 * ------------------------------------------------------------------------------------- */

static _Thread_local const sl_vs_write_item *g_sort_items;

static int item_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    uint64_t ux = g_sort_items[x].uid, uy = g_sort_items[y].uid;
    if (ux != uy)
        return ux < uy ? -1 : 1;
    return (x > y) - (x < y);
}

int sl_vstore_write(sl_vstore *vs, const sl_vs_write_item *items, size_t n, bool sync,
                    uint64_t *version, sl_error *err)
{
    if (n > 0 && items == NULL)
        return sl_error_set(err, SL_EINVAL, 0, 0, "vstore write: NULL items");
    pthread_mutex_lock(&vs->vs_wlock);
    size_t *order = NULL;
    group *groups = NULL;
    size_t ngroups = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        vs_entry *e = sl__vs_find(vs, items[i].uid);
        if (items[i].rows == NULL) {
            rc = sl_error_set(err, SL_EINVAL, 0, 0, "vstore write: item %zu has no rows", i);
            goto out;
        }
        if (e == NULL) {
            rc = sl_error_set(err, SL_ENOTFOUND, 0, 0,
                              "vstore write: item %zu: unknown table uid %llu", i,
                              (unsigned long long)items[i].uid);
            goto out;
        }
        if ((rc = sl_vstore_check_item(&e->e_table->def, &items[i], i, err)) != 0)
            goto out;
    }
    order = malloc((n ? n : 1) * sizeof(size_t));
    groups = calloc(n ? n : 1, sizeof(group));
    if (order == NULL || groups == NULL) {
        rc = sl__vs_fail(err, SL_ENOMEM, "write");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    g_sort_items = items;
    qsort(order, n, sizeof(size_t), item_cmp);

    vs_head h = vs->vs_head;
    h.h_version++;
    uint32_t seq = 0;
    vs_log_sum bytes = {0};
    sl_kv_batch_clear(vs->vs_batch);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && items[order[j]].uid == items[order[i]].uid)
            j++;
        group *g = &groups[ngroups];
        g->e = sl__vs_find(vs, items[order[i]].uid);
        g->src = items[order[i]].rows;
        if (j - i > 1) {
            /* Several items for one table: their rows in order, as one block. vs_cat is
             * free again once the previous group is encoded into the batch. */
            if ((rc = sl__vs_block_like(&vs->vs_cat, g->src)) != 0)
                goto nomem;
            for (size_t k = i; k < j; k++) {
                const sl_block *s = items[order[k]].rows;
                for (uint32_t c = 0; c < s->ncols; c++)
                    if ((rc = sl_column_append_rows(&vs->vs_cat.cols[c], &s->cols[c], NULL, 0,
                                                    s->nrows)) != 0)
                        goto nomem;
            }
            sl_block_seal(&vs->vs_cat);
            g->src = &vs->vs_cat;
        }
        i = j;
        if (g->src->nrows == 0)
            continue;
        if ((rc = sl__vs_wstate_load(vs, g->e, err)) != 0)
            goto out;
        g->key = vs_key_type(&g->e->e_table->def) != SL_T_NULL ? &g->src->cols[1] : NULL;
        if ((rc = group_sort(g)) != 0)
            goto nomem;
        ngroups++;
        if ((rc = put_group(vs, g, h.h_version, &seq, &bytes, err)) != 0)
            goto out;
        h.h_rows += group_inserts(g);
    }
    if (seq == 0) {
        if (version != NULL)
            *version = vs->vs_head.h_version;
        goto out;
    }
    bytes.entries = seq;
    if ((rc = finish_batch(vs, &h, &bytes, err)) != 0)
        goto out;
    if ((rc = sl_kv_write(vs->vs_db, vs->vs_batch, kv_sync(sync), err)) != 0)
        goto out;
    for (size_t k = 0; k < ngroups; k++) {
        vs_wstate *ws = &groups[k].e->e_ws;
        ws->ws_has_rows = true;
        ws->ws_max_ts = groups[k].new_max;
        ws->ws_st = groups[k].st;
    }
    sl__vs_publish(vs, &h, true);
    if (version != NULL)
        *version = h.h_version;
    for (size_t k = 0; k < ngroups; k++)
        sl__vs_maybe_compact(vs, groups[k].e);
    goto out;
nomem:
    rc = sl__vs_fail(err, rc, "write");
out:
    for (size_t k = 0; k < ngroups; k++)
        group_fini(&groups[k]);
    free(groups);
    free(order);
    pthread_mutex_unlock(&vs->vs_wlock);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * sl_vstore_delete
 * ------------------------------------------------------------------------------------- */

int sl__vs_count_rows(sl_vstore *vs, vs_entry *e, int64_t lo, int64_t hi, uint64_t *count,
                      sl_error *err)
{
    vs_reader r;
    int rc = sl__vs_reader_open(&r, vs, NULL, e->e_uid, vs_key_type(&e->e_table->def), NULL, NULL,
                                0, lo, hi, err);
    if (rc != 0)
        return rc;
    vs_run run;
    *count = 0;
    while ((rc = sl__vs_reader_next(&r, UINT32_MAX, &run, err)) > 0)
        *count += run.n;
    sl__vs_reader_close(&r);
    return rc;
}

int sl_vstore_delete(sl_vstore *vs, uint64_t uid, int64_t lo, int64_t hi, bool sync,
                     uint64_t *version, uint64_t *ndeleted, sl_error *err)
{
    if (lo > hi)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "vstore delete: empty range [%lld, %lld] (lo > hi)", (long long)lo,
                            (long long)hi);
    pthread_mutex_lock(&vs->vs_wlock);
    vs_entry *e = sl__vs_find(vs, uid);
    uint64_t count = 0;
    int rc;
    if (e == NULL) {
        rc = sl_error_set(err, SL_ENOTFOUND, 0, 0, "vstore delete: unknown table uid %llu",
                          (unsigned long long)uid);
        goto out;
    }
    if ((rc = sl__vs_wstate_load(vs, e, err)) != 0 ||
        (rc = sl__vs_count_rows(vs, e, lo, hi, &count, err)) != 0)
        goto out;
    if (count == 0) {
        if (version != NULL)
            *version = vs->vs_head.h_version;
        if (ndeleted != NULL)
            *ndeleted = 0;
        goto out;
    }
    vs_head h = vs->vs_head;
    h.h_version++;
    h.h_rows = h.h_rows > count ? h.h_rows - count : 0;
    sl_kv_batch *b = vs->vs_batch;
    sl_kv_batch_clear(b);
    uint8_t tk[VS_TOMB_KEY_LEN], lk[VS_LOG_ENTRY_KEY_LEN];
    vs_key_tomb(tk, uid, h.h_version);
    vs_key_log_entry(lk, h.h_version, 0);
    sl_buf *v = &vs->vs_buf;
    sl_buf_reset(v);
    if ((rc = sl__vs_tomb_encode(lo, hi, v)) != 0 ||
        (rc = sl_kv_batch_put(b, vs->vs_data, tk, sizeof(tk), v->data, v->len)) != 0) {
        rc = sl__vs_fail(err, rc, "delete");
        goto out;
    }
    sl_buf_reset(v);
    if ((rc = sl__vs_log_delete(v, uid, lo, hi, count)) != 0 ||
        (rc = sl_kv_batch_put(b, vs->vs_log, lk, sizeof(lk), v->data, v->len)) != 0) {
        rc = sl__vs_fail(err, rc, "delete");
        goto out;
    }
    vs_log_sum sum = {1, v->len, v->len};
    if ((rc = finish_batch(vs, &h, &sum, err)) != 0)
        goto out;
    if ((rc = sl_kv_write(vs->vs_db, b, kv_sync(sync), err)) != 0)
        goto out;
    e->e_ws.ws_ntomb++;
    sl__vs_publish(vs, &h, true);
    if (version != NULL)
        *version = h.h_version;
    if (ndeleted != NULL)
        *ndeleted = count;
    sl__vs_maybe_compact(vs, e);
out:
    pthread_mutex_unlock(&vs->vs_wlock);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * sl_vstore_set_low_water
 * ------------------------------------------------------------------------------------- */

int sl_vstore_set_low_water(sl_vstore *vs, uint64_t v, sl_error *err)
{
    pthread_mutex_lock(&vs->vs_wlock);
    if (v > vs->vs_head.h_version)
        v = vs->vs_head.h_version;
    uint64_t old = vs->vs_low;
    vs_head h = vs->vs_head;
    sl_kv_batch *b = vs->vs_batch;
    sl_kv_batch_clear(b);
    static const uint8_t key = VS_MK_LOW;
    sl_buf_reset(&vs->vs_buf);
    int rc;
    vs->vs_low = v; /* the trim below reads it */
    if ((rc = sl_buf_put_varu(&vs->vs_buf, v)) != 0 ||
        (rc = sl_kv_batch_put(b, vs->vs_meta, &key, 1, vs->vs_buf.data, vs->vs_buf.len)) != 0) {
        rc = sl__vs_fail(err, rc, "set low water");
        goto fail;
    }
    if ((rc = sl__vs_log_trim(vs, b, &h, err)) != 0)
        goto fail;
    if ((rc = sl__vs_batch_head(vs, b, &h)) != 0) {
        rc = sl__vs_fail(err, rc, "set low water");
        goto fail;
    }
    if ((rc = sl_kv_write(vs->vs_db, b, SL_KV_SYNC_OFF, err)) != 0)
        goto fail;
    atomic_store(&vs->vs_a_low, v);
    sl__vs_publish(vs, &h, false);
    pthread_mutex_unlock(&vs->vs_wlock);
    return 0;
fail:
    vs->vs_low = old;
    pthread_mutex_unlock(&vs->vs_wlock);
    return rc;
}
