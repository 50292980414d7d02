/*
 * vstore_read.c - the merge reader: one table's visible rows over a time range, in
 * timestamp order, from the stored blocks, the tombstones and the dirty intervals.
 *
 * Scans, the writer's insert/update probes, delete counting and compaction all read
 * through it, so "which row is visible" is decided in one place.
 *
 * Blocks are keyed by their last timestamp, so seeking to lo finds the first block that
 * can hold a row >= lo, and reading on in key order meets blocks by ascending last
 * timestamp. A block may cover timestamps of blocks met later only inside a dirty interval
 * (vstore_int.h), hence two rules:
 *
 *   - Emitting. A timestamp t of a loaded block outside every dirty interval is in no
 *     other block, so it can go out. Inside an interval [a, b], it can go out once the next
 *     unread block ends after b (every other block covering t ends at or before b). Then
 *     no unread block overlaps t's block at all (an overlapping one would lie in [a, b]
 *     too), so the rows of that block that no loaded block interleaves can follow t out
 *     in one run.
 *   - Stopping. Once a block starts after hi, later blocks can still reach back into
 *     [lo, hi] only if hi lies in an interval [a, b] and they end by b: the reader stops at
 *     the first block that starts after hi and ends after that b (or after hi when hi is in
 *     no interval).
 *
 * Among the loaded blocks a min-heap ordered by (timestamp, newest version first) yields
 * the winner of each timestamp; the runs handed out are stretches of one block's rows that
 * no other loaded block interleaves, cut where the tombstone cover changes, so clean,
 * append-only data flows out a whole block at a time without copying. The memory held is
 * the blocks of one dirty interval at most; compaction keeps the intervals small.
 *
 * A table with a composite key has several rows per timestamp, one per key. Blocks and
 * intervals still speak of timestamps only (a timestamp's keys may be spread over several
 * blocks, which then overlap and lie in one interval), so the rules above hold unchanged;
 * only the heap orders by (timestamp, key, newest version first), a winner is a (timestamp,
 * key) pair, and runs stop before the next pair another block holds.
 */
#include <stdlib.h>
#include <string.h>

#include "vstore_int.h"
#include "common/util/ts_bound.h"

static inline int64_t cur_ts(const vs_cursor *c, uint32_t i)
{
    return ((const int64_t *)c->c_ts.data)[i];
}

/* Orders row i of a against row j of b by (timestamp, key); cursors of a keyed reader
 * carry their key column, others have c_key.type SL_T_NULL. */
static int row_cmp(const vs_cursor *a, uint32_t i, const vs_cursor *b, uint32_t j)
{
    int64_t x = cur_ts(a, i), y = cur_ts(b, j);
    if (x != y)
        return x < y ? -1 : 1;
    return a->c_key.type != SL_T_NULL ? sl_column_cmp_rows(&a->c_key, i, &b->c_key, j) : 0;
}

/* First index in [from, to) of c whose row is >= row j of o, by (timestamp, key). */
static uint32_t lower_bound_row(const vs_cursor *c, uint32_t from, uint32_t to, const vs_cursor *o,
                                uint32_t j)
{
    while (from < to) {
        uint32_t mid = from + (to - from) / 2;
        if (row_cmp(c, mid, o, j) < 0)
            from = mid + 1;
        else
            to = mid;
    }
    return from;
}

/* First index in [from, to) of c's timestamps that is >= t / > t. */
static uint32_t lower_bound(const vs_cursor *c, uint32_t from, uint32_t to, int64_t t)
{
    return sl_ts_lower_bound(c->c_ts.data, from, to, t);
}

static uint32_t upper_bound(const vs_cursor *c, uint32_t from, uint32_t to, int64_t t)
{
    return sl_ts_upper_bound(c->c_ts.data, from, to, t);
}

int sl__vs_table_iter(sl_vstore *vs, const sl_kv_snapshot *snap, uint64_t uid, sl_kv_iter **out,
                      sl_error *err)
{
    uint8_t lo[VS_TABLE_KEY_LEN], hi[VS_TABLE_KEY_LEN];
    vs_key_table(lo, uid, VS_KT_TOMB);
    vs_key_table(hi, uid, VS_KT_END);
    sl_kv_iter_options o = {.snapshot = snap,
                            .lower = lo,
                            .lower_len = sizeof(lo),
                            .upper = hi,
                            .upper_len = sizeof(hi)};
    return sl_kv_iter_open(out, vs->vs_db, vs->vs_data, &o, err);
}

static void seek_block(sl_kv_iter *it, uint64_t uid, int64_t t)
{
    uint8_t k[VS_BLOCK_KEY_LEN];
    vs_key_block(k, uid, t, 0);
    sl_kv_iter_seek(it, k, sizeof(k));
}

/*
 * Reads the block the iterator is on: returns 1 with its last timestamp, version and
 * parsed value, 0 past the table's blocks, or an error (storage, or a damaged block).
 */
static int iter_block(sl_kv_iter *it, int64_t *last, uint64_t *version, vs_vblock *vb,
                      sl_error *err)
{
    if (!sl_kv_iter_valid(it))
        return sl_kv_iter_status(it, err);
    size_t kl, vl;
    const uint8_t *k = sl_kv_iter_key(it, &kl);
    if (kl < VS_TABLE_KEY_LEN || k[8] != VS_KT_BLOCK)
        return 0;
    if (kl != VS_BLOCK_KEY_LEN)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "vstore: damaged stored data: block key");
    *last = sl_key_dec_i64(k + 9);
    *version = sl_key_dec_u64(k + 17);
    const void *v = sl_kv_iter_value(it, &vl);
    int rc = sl__vs_vblock_parse(v, vl, vb, err);
    if (rc != 0)
        return rc;
    if (sl__vs_vblock_ts(vb, vb->nrows - 1) != *last)
        return sl_error_set(err, SL_ECORRUPT, 0, 0,
                            "vstore: damaged stored data: block key and rows disagree");
    return 1;
}

int sl__vs_stab(sl_kv_iter *it, uint64_t uid, const vs_tstate *st, int64_t t, bool *found,
                int64_t *fmin, int64_t *lmax, sl_error *err)
{
    const vs_iv *iv = sl__vs_tstate_find(st, t);
    *found = false;
    seek_block(it, uid, t);
    for (;;) {
        int64_t l = 0;
        uint64_t ver = 0;
        vs_vblock vb = {0};
        int rc = iter_block(it, &l, &ver, &vb, err);
        if (rc <= 0)
            return rc;
        int64_t f = sl__vs_vblock_ts(&vb, 0);
        if (f <= t) {
            if (!*found || f < *fmin)
                *fmin = f;
            if (!*found || l > *lmax)
                *lmax = l;
            *found = true;
        }
        /* Only blocks ending inside t's interval can share t with another block. */
        if (iv == NULL || l > iv->b)
            return 0;
        sl_kv_iter_next(it);
    }
}

int sl__vs_any_overlap(sl_kv_iter *it, uint64_t uid, const vs_tstate *st, int64_t f, int64_t l,
                       bool *found, sl_error *err)
{
    const vs_iv *iv = sl__vs_tstate_find(st, l);
    *found = false;
    seek_block(it, uid, f);
    for (;;) {
        int64_t bl = 0;
        uint64_t ver = 0;
        vs_vblock vb = {0};
        int rc = iter_block(it, &bl, &ver, &vb, err);
        if (rc <= 0)
            return rc;
        if (sl__vs_vblock_ts(&vb, 0) <= l) {
            *found = true;
            return 0;
        }
        if (iv == NULL || bl > iv->b)
            return 0;
        sl_kv_iter_next(it);
    }
}

/* ---------------------------------------------------------------------------------------
 * Tombstone cover
 * ------------------------------------------------------------------------------------- */

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Builds r_segs from r_tombs: elementary pieces between tombstone edges, each with the
 * newest version covering it, neighbours with equal versions merged. */
static int build_segs(vs_reader *r)
{
    size_t n = r->r_ntombs;
    if (n == 0)
        return 0;
    int64_t *pts = malloc(2 * n * sizeof(int64_t));
    r->r_segs = malloc(2 * n * sizeof(vs_seg));
    if (pts == NULL || r->r_segs == NULL) {
        free(pts);
        return SL_ENOMEM;
    }
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        pts[np++] = r->r_tombs[i].lo;
        if (r->r_tombs[i].hi < INT64_MAX)
            pts[np++] = r->r_tombs[i].hi + 1;
    }
    qsort(pts, np, sizeof(int64_t), i64_cmp);
    size_t u = 0;
    for (size_t i = 0; i < np; i++)
        if (u == 0 || pts[i] != pts[u - 1])
            pts[u++] = pts[i];
    size_t ns = 0;
    for (size_t i = 0; i < u; i++) {
        int64_t s = pts[i], e = i + 1 < u ? pts[i + 1] - 1 : INT64_MAX;
        uint64_t maxv = 0;
        for (size_t k = 0; k < n; k++)
            if (r->r_tombs[k].lo <= s && s <= r->r_tombs[k].hi && r->r_tombs[k].version > maxv)
                maxv = r->r_tombs[k].version;
        if (maxv == 0)
            continue;
        if (ns > 0 && r->r_segs[ns - 1].maxv == maxv && r->r_segs[ns - 1].e + 1 == s)
            r->r_segs[ns - 1].e = e;
        else
            r->r_segs[ns++] = (vs_seg){s, e, maxv};
    }
    free(pts);
    r->r_nsegs = ns;
    return 0;
}

/* The first segment ending at or after t (r_nsegs when none). */
static size_t seg_find(const vs_reader *r, int64_t t)
{
    size_t lo = 0, hi = r->r_nsegs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->r_segs[mid].e < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether rows of version v at t are visible, and the last timestamp up to which that
 * answer holds. */
static bool visible(const vs_reader *r, int64_t t, uint64_t v, int64_t *until)
{
    size_t i = seg_find(r, t);
    if (i < r->r_nsegs && r->r_segs[i].s <= t) {
        *until = r->r_segs[i].e;
        return v >= r->r_segs[i].maxv;
    }
    *until = i < r->r_nsegs ? r->r_segs[i].s - 1 : INT64_MAX;
    return true;
}

/* ---------------------------------------------------------------------------------------
 * Cursors and the heap
 * ------------------------------------------------------------------------------------- */

static void cursor_free(vs_cursor *c, uint32_t nneed)
{
    if (c == NULL)
        return;
    sl_column_fini(&c->c_ts);
    sl_column_fini(&c->c_key);
    for (uint32_t j = 0; j < nneed; j++)
        sl_column_fini(&c->c_cols[j]);
    free(c->c_cols);
    free(c);
}

static bool cur_less(const vs_cursor *a, const vs_cursor *b)
{
    int c = row_cmp(a, a->c_pos, b, b->c_pos);
    return c < 0 || (c == 0 && a->c_version > b->c_version);
}

static void sift_down(vs_cursor **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && cur_less(h[l], h[m]))
            m = l;
        if (l + 1 < n && cur_less(h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        vs_cursor *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static int heap_push(vs_reader *r, vs_cursor *c)
{
    if (r->r_nheap == r->r_capheap) {
        size_t ncap = r->r_capheap ? 2 * r->r_capheap : 8;
        vs_cursor **h = realloc(r->r_heap, ncap * sizeof(*h));
        if (h == NULL)
            return SL_ENOMEM;
        r->r_heap = h;
        r->r_capheap = ncap;
    }
    size_t i = r->r_nheap++;
    r->r_heap[i] = c;
    while (i > 0 && cur_less(r->r_heap[i], r->r_heap[(i - 1) / 2])) {
        vs_cursor *t = r->r_heap[i];
        r->r_heap[i] = r->r_heap[(i - 1) / 2];
        r->r_heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    return 0;
}

static vs_cursor *heap_pop(vs_reader *r)
{
    vs_cursor *top = r->r_heap[0];
    r->r_heap[0] = r->r_heap[--r->r_nheap];
    sift_down(r->r_heap, r->r_nheap, 0);
    return top;
}

/* Parks an exhausted cursor until the next call (a run handed out may point into it). */
static int retire(vs_reader *r, vs_cursor *c)
{
    if (r->r_nretired == r->r_capretired) {
        size_t ncap = r->r_capretired ? 2 * r->r_capretired : 8;
        vs_cursor **v = realloc(r->r_retired, ncap * sizeof(*v));
        if (v == NULL) {
            cursor_free(c, r->r_nneed);
            return SL_ENOMEM;
        }
        r->r_retired = v;
        r->r_capretired = ncap;
    }
    r->r_retired[r->r_nretired++] = c;
    return 0;
}

static void free_retired(vs_reader *r)
{
    for (size_t i = 0; i < r->r_nretired; i++)
        cursor_free(r->r_retired[i], r->r_nneed);
    r->r_nretired = 0;
}

/* Puts c back in the heap if it has rows left, else retires it. */
static int requeue(vs_reader *r, vs_cursor *c)
{
    if (c->c_pos < c->c_end) {
        int rc = heap_push(r, c);
        if (rc != 0)
            cursor_free(c, r->r_nneed);
        return rc;
    }
    return retire(r, c);
}

/* ---------------------------------------------------------------------------------------
 * Loading blocks
 * ------------------------------------------------------------------------------------- */

/* Notes whether the iterator is on an unread block, and that block's last timestamp. */
static int update_unread(vs_reader *r, sl_error *err)
{
    r->r_has_unread = false;
    if (r->r_stopped || !sl_kv_iter_valid(r->r_it))
        return r->r_stopped ? 0 : sl_kv_iter_status(r->r_it, err);
    size_t kl;
    const uint8_t *k = sl_kv_iter_key(r->r_it, &kl);
    if (kl != VS_BLOCK_KEY_LEN || k[8] != VS_KT_BLOCK)
        return 0;
    r->r_next_last = sl_key_dec_i64(k + 9);
    r->r_has_unread = true;
    return 0;
}

/* True when a tombstone newer than version v covers all of [f, l]. */
static bool wholly_hidden(const vs_reader *r, int64_t f, int64_t l, uint64_t v)
{
    size_t i = seg_find(r, f);
    return i < r->r_nsegs && r->r_segs[i].s <= f && r->r_segs[i].e >= l && r->r_segs[i].maxv > v;
}

static int oom(sl_error *err)
{
    return sl_error_set(err, SL_ENOMEM, 0, 0, "vstore: out of memory reading rows");
}

/* Reads the block under the iterator: loads it as a cursor when it has rows in range,
 * skips it otherwise, or stops the reader when no later block can matter. */
static int load_next(vs_reader *r, sl_error *err)
{
    int64_t l = 0;
    uint64_t ver = 0;
    vs_vblock vb = {0};
    int rc = iter_block(r->r_it, &l, &ver, &vb, err);
    if (rc <= 0) {
        r->r_has_unread = false;
        return rc;
    }
    int64_t f = sl__vs_vblock_ts(&vb, 0);
    if (f > r->r_hi) {
        const vs_iv *iv = sl__vs_tstate_find(&r->r_st, r->r_hi);
        if (iv == NULL || l > iv->b) {
            r->r_stopped = true;
            r->r_has_unread = false;
            return 0;
        }
    } else if (!(r->r_skip_hidden && wholly_hidden(r, f, l, ver))) {
        if (ver > r->r_max_version)
            r->r_max_version = ver;
        if (f < r->r_min_first)
            r->r_min_first = f;
        vs_cursor *c = calloc(1, sizeof(*c));
        if (c == NULL ||
            (r->r_nneed > 0 && (c->c_cols = calloc(r->r_nneed, sizeof(sl_column))) == NULL)) {
            free(c);
            return oom(err);
        }
        c->c_version = ver;
        sl_column_init(&c->c_ts, SL_T_TIMESTAMP, 0);
        for (uint32_t j = 0; j < r->r_nneed; j++)
            sl_column_init(&c->c_cols[j], r->r_need_types[j], 0);
        if (vb.keyed && r->r_key == SL_T_NULL) {
            cursor_free(c, r->r_nneed);
            return sl_error_set(err, SL_ECORRUPT, 0, 0,
                                "vstore: damaged stored data: a keyed block in a table without "
                                "a composite key");
        }
        static const uint32_t key_col = 1;
        if (r->r_key != SL_T_NULL)
            sl_column_init(&c->c_key, r->r_key, 0);
        if ((rc = sl__vs_vblock_decode_ts(&vb, &c->c_ts, err)) != 0 ||
            (r->r_key != SL_T_NULL &&
             (rc = sl__vs_vblock_decode_cols(&vb, &key_col, 1, &c->c_key, err)) != 0) ||
            (rc = sl__vs_vblock_decode_cols(&vb, r->r_need, r->r_nneed, c->c_cols, err)) != 0) {
            cursor_free(c, r->r_nneed);
            return rc;
        }
        if (r->r_key != SL_T_NULL && c->c_key.has_nulls) {
            cursor_free(c, r->r_nneed);
            return sl_error_set(err, SL_ECORRUPT, 0, 0,
                                "vstore: damaged stored data: NULL composite key");
        }
        c->c_pos = lower_bound(c, 0, vb.nrows, r->r_lo);
        c->c_end = upper_bound(c, c->c_pos, vb.nrows, r->r_hi);
        if (c->c_pos < c->c_end) {
            if ((rc = heap_push(r, c)) != 0) {
                cursor_free(c, r->r_nneed);
                return oom(err);
            }
        } else {
            cursor_free(c, r->r_nneed);
        }
    } else {
        if (ver > r->r_max_version)
            r->r_max_version = ver;
        if (f < r->r_min_first)
            r->r_min_first = f;
    }
    sl_kv_iter_next(r->r_it);
    return update_unread(r, err);
}

/* Timestamp t may go out only when no unread block can hold it (see the file comment). */
static bool need_more(const vs_reader *r, int64_t t)
{
    const vs_iv *iv = sl__vs_tstate_find(&r->r_st, t);
    return iv != NULL && r->r_next_last <= iv->b;
}

/* ---------------------------------------------------------------------------------------
 * The reader
 * ------------------------------------------------------------------------------------- */

/* Reads the table's tombstones and state, which sort before its blocks. */
static int read_meta(vs_reader *r, sl_error *err)
{
    uint8_t k0[VS_TABLE_KEY_LEN];
    vs_key_table(k0, r->r_uid, VS_KT_TOMB);
    size_t cap = 0;
    for (sl_kv_iter_seek(r->r_it, k0, sizeof(k0)); sl_kv_iter_valid(r->r_it);
         sl_kv_iter_next(r->r_it)) {
        size_t kl, vl;
        const uint8_t *k = sl_kv_iter_key(r->r_it, &kl);
        const void *v = sl_kv_iter_value(r->r_it, &vl);
        if (kl < VS_TABLE_KEY_LEN || k[8] > VS_KT_STATE)
            break;
        int rc;
        if (k[8] == VS_KT_STATE) {
            if ((rc = sl__vs_tstate_decode(v, vl, &r->r_st, err)) != 0)
                return rc;
            continue;
        }
        if (kl != VS_TOMB_KEY_LEN)
            return sl_error_set(err, SL_ECORRUPT, 0, 0, "vstore: damaged tombstone key");
        if (r->r_ntombs == cap) {
            size_t ncap = cap ? 2 * cap : 8;
            vs_tomb *t = realloc(r->r_tombs, ncap * sizeof(*t));
            if (t == NULL)
                return oom(err);
            r->r_tombs = t;
            cap = ncap;
        }
        vs_tomb *t = &r->r_tombs[r->r_ntombs];
        if ((rc = sl__vs_tomb_decode(v, vl, &t->lo, &t->hi, err)) != 0)
            return rc;
        t->version = sl_key_dec_u64(k + 9);
        r->r_ntombs++;
    }
    int rc = sl_kv_iter_status(r->r_it, err);
    if (rc != 0)
        return rc;
    return build_segs(r) != 0 ? oom(err) : 0;
}

int sl__vs_reader_open(vs_reader *r, sl_vstore *vs, const sl_kv_snapshot *snap, uint64_t uid,
                       sl_type key, const uint32_t *need, const sl_type *need_types,
                       uint32_t nneed, int64_t lo, int64_t hi, sl_error *err)
{
    memset(r, 0, sizeof(*r));
    r->r_vs = vs;
    r->r_uid = uid;
    r->r_key = key;
    r->r_lo = lo;
    r->r_hi = hi;
    r->r_min_first = INT64_MAX;
    int rc;
    if (nneed > 0) {
        r->r_need = malloc(nneed * sizeof(uint32_t));
        r->r_need_types = malloc(nneed * sizeof(sl_type));
        if (r->r_need == NULL || r->r_need_types == NULL) {
            rc = oom(err);
            goto fail;
        }
        memcpy(r->r_need, need, nneed * sizeof(uint32_t));
        memcpy(r->r_need_types, need_types, nneed * sizeof(sl_type));
        r->r_nneed = nneed;
    }
    if ((rc = sl__vs_table_iter(vs, snap, uid, &r->r_it, err)) != 0 ||
        (rc = read_meta(r, err)) != 0)
        goto fail;
    if (lo > hi) {
        r->r_stopped = true;
        return 0;
    }
    seek_block(r->r_it, uid, lo);
    if ((rc = update_unread(r, err)) != 0)
        goto fail;
    return 0;
fail:
    sl__vs_reader_close(r);
    return rc;
}

void sl__vs_reader_close(vs_reader *r)
{
    free_retired(r);
    for (size_t i = 0; i < r->r_nheap; i++)
        cursor_free(r->r_heap[i], r->r_nneed);
    free(r->r_heap);
    free(r->r_retired);
    sl_kv_iter_close(r->r_it);
    free(r->r_need);
    free(r->r_need_types);
    free(r->r_tombs);
    free(r->r_segs);
    memset(r, 0, sizeof(*r));
}

int sl__vs_reader_next(vs_reader *r, uint32_t max_rows, vs_run *run, sl_error *err)
{
    int rc;
    free_retired(r);
    for (;;) {
        if (r->r_nheap == 0) {
            if (!r->r_has_unread)
                return 0;
            if ((rc = load_next(r, err)) != 0)
                return rc;
            continue;
        }
        vs_cursor *w = r->r_heap[0];
        int64_t t = cur_ts(w, w->c_pos);
        if (r->r_has_unread && need_more(r, t)) {
            if ((rc = load_next(r, err)) != 0)
                return rc;
            continue;
        }
        heap_pop(r);
        /* Older rows of the same timestamp (and key) lose to the heap's top. */
        while (r->r_nheap > 0) {
            vs_cursor *c = r->r_heap[0];
            if (row_cmp(c, c->c_pos, w, w->c_pos) != 0)
                break;
            heap_pop(r);
            c->c_pos++;
            if ((rc = requeue(r, c)) != 0) {
                cursor_free(w, r->r_nneed);
                return oom(err);
            }
        }
        /* The run may go on as long as no other loaded block interleaves: no unread block
         * can, since one overlapping w would lie with w in t's interval and need_more(t)
         * would have loaded it. */
        int64_t bound = INT64_MAX, until;
        uint32_t from = w->c_pos, end = w->c_end;
        if (r->r_nheap > 0 && r->r_key != SL_T_NULL) {
            /* The top may hold w's timestamp with a greater key: stop before its row. */
            end = lower_bound_row(w, from, end, r->r_heap[0], r->r_heap[0]->c_pos);
        } else if (r->r_nheap > 0) {
            int64_t other = cur_ts(r->r_heap[0], r->r_heap[0]->c_pos) - 1;
            if (other < bound)
                bound = other;
        }
        bool vis = visible(r, t, w->c_version, &until);
        if (until < bound)
            bound = until;
        uint32_t e = upper_bound(w, from, end, bound);
        if (vis && e - from > max_rows)
            e = from + max_rows;
        w->c_pos = e;
        if ((rc = requeue(r, w)) != 0)
            return oom(err);
        if (vis) {
            run->c = w;
            run->from = from;
            run->n = e - from;
            return 1;
        }
    }
}

int sl__vs_reader_skip_to(vs_reader *r, int64_t t, sl_error *err)
{
    if (t <= r->r_lo)
        return 0;
    r->r_lo = t;
    size_t k = 0;
    int rc = 0;
    for (size_t i = 0; i < r->r_nheap; i++) {
        vs_cursor *c = r->r_heap[i];
        c->c_pos = lower_bound(c, c->c_pos, c->c_end, t);
        if (c->c_pos < c->c_end)
            r->r_heap[k++] = c;
        else if (retire(r, c) != 0)
            rc = oom(err);
    }
    r->r_nheap = k;
    for (size_t i = k / 2; i-- > 0;)
        sift_down(r->r_heap, k, i);
    if (rc != 0)
        return rc;
    /* Blocks ending before t cannot matter any more: jump over them. */
    if (r->r_has_unread && r->r_next_last < t) {
        seek_block(r->r_it, r->r_uid, t);
        return update_unread(r, err);
    }
    return 0;
}
