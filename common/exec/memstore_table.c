/*
 * memstore_table.c - the rows of one in-memory table, and catalog scans over them.
 *
 * A table keeps its rows in one columnar block sorted by timestamp with each timestamp
 * once (`main`), plus the blocks written since (`pend`). A table with a composite key
 * (sl__ms_key, on cols[1]) identifies rows by (timestamp, key) instead: read "row
 * identity" for "timestamp" below; main is then sorted by (timestamp, key). Writes never sort or search:
 * an INSERT or a bulk append that is not simply "newer than everything" becomes a pending
 * block, and the pending blocks are folded into main before the next scan or DELETE: a
 * stable sort of the pending rows by timestamp, keeping the newest row of each timestamp
 * (last write wins), then a run-wise merge with main in which a pending row replaces the
 * main row of the same timestamp. Data that arrives in order (the bulk loader, a
 * generator) skips all of that and is appended to main with one memcpy per column.
 *
 * Scans deliver each table's rows within [ts_lo, ts_hi] (found by binary search) in
 * blocks of at most SL_BLOCK_ROWS_MAX rows, with tags and tbname as constant columns.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "memstore_int.h"
#include "common/util/ts_bound.h"

/* ------------------------------------------------------------ helpers */

static const int64_t *ts_of(const sl_block *b)
{
    return (const int64_t *)b->cols[0].data;
}

/* True when t's rows are identified by (timestamp, composite key). */
static bool has_key(const sl__ms_table *t)
{
    return sl__ms_key(t) && sl__ms_ncols(t) > 1;
}

/* Orders row i of a against row j of b by timestamp, then by the key when key is set. */
static int row_cmp(const sl_block *a, uint32_t i, const sl_block *b, uint32_t j, bool key)
{
    int64_t x = sl_column_get_i64(&a->cols[0], i), y = sl_column_get_i64(&b->cols[0], j);
    if (x != y)
        return x < y ? -1 : 1;
    return key ? sl_column_cmp_rows(&a->cols[1], i, &b->cols[1], j) : 0;
}

/* First index k in [from, to) of a (sorted by row identity) with row k >= row j of b. */
static uint32_t lower_bound_row(const sl_block *a, uint32_t from, uint32_t to, const sl_block *b,
                                uint32_t j, bool key)
{
    while (from < to) {
        uint32_t mid = from + (to - from) / 2;
        if (row_cmp(a, mid, b, j, key) < 0)
            from = mid + 1;
        else
            to = mid;
    }
    return from;
}

/* Adds the table's columns to an empty block. */
static int block_schema(sl_block *b, const sl__ms_table *t)
{
    int n = sl__ms_ncols(t);
    const sl_field *f = sl__ms_cols(t);
    for (int i = 0; i < n; i++) {
        int rc = sl_block_add_column(b, f[i].type, f[i].width);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Cuts a column back to its first n rows (undoing a partial append). */
static void col_truncate(sl_column *c, uint32_t n)
{
    if (c->nulls != NULL)
        for (uint32_t i = n; i < c->nrows; i++)
            c->nulls[i >> 3] &= (uint8_t) ~(1u << (i & 7));
    if (sl_type_is_var(c->type) && c->offsets != NULL)
        c->heap_len = c->offsets[n];
    c->nrows = n;
}

static void block_truncate(sl_block *b, uint32_t n)
{
    for (uint32_t i = 0; i < b->ncols; i++)
        col_truncate(&b->cols[i], n);
    b->nrows = n;
}

/* Appends rows (sel or [from, from+n)) of every column of src to dst; undone on error. */
static int block_append(sl_block *dst, const sl_block *src, const uint32_t *sel, uint32_t from,
                        uint32_t n)
{
    uint32_t old = dst->nrows;
    for (uint32_t c = 0; c < dst->ncols; c++) {
        int rc = sl_column_append_rows(&dst->cols[c], &src->cols[c], sel, from, n);
        if (rc < 0) {
            block_truncate(dst, old);
            return rc;
        }
    }
    dst->nrows = old + n;
    return 0;
}

/* True when the n timestamps are strictly ascending. */
static bool strictly_ascending(const int64_t *ts, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        if (ts[i] <= ts[i - 1])
            return false;
    return true;
}

/* True when the rows of b are strictly ascending by (timestamp, key) (key set) or by
 * timestamp (the timestamps must not be a constant column then). */
static bool rows_ascending(const sl_block *b, bool key)
{
    if (!key)
        return strictly_ascending(ts_of(b), b->nrows);
    for (uint32_t i = 1; i < b->nrows; i++)
        if (row_cmp(b, i - 1, b, i, true) >= 0)
            return false;
    return true;
}

/* ------------------------------------------------------------ storage lifecycle */

int sl__ms_rows_init(sl__ms_table *t)
{
    sl_block_init(&t->t_main);
    return block_schema(&t->t_main, t);
}

void sl__ms_rows_fini(sl__ms_table *t)
{
    sl_block_fini(&t->t_main);
    for (int i = 0; i < t->t_npend; i++)
        sl_block_free(t->t_pend[i]);
    free(t->t_pend);
    t->t_pend = NULL;
    t->t_npend = t->t_cappend = 0;
}

int sl__ms_reserve_pend(sl__ms_table *t, int more)
{
    int need = t->t_npend + more;
    if (need <= t->t_cappend)
        return 0;
    int cap = t->t_cappend ? t->t_cappend : 4;
    while (cap < need)
        cap *= 2;
    sl_block **p = realloc(t->t_pend, (size_t)cap * sizeof(*p));
    if (p == NULL)
        return SL_ENOMEM;
    t->t_pend = p;
    t->t_cappend = cap;
    return 0;
}

void sl__ms_add_pend(sl__ms_table *t, sl_block *b)
{
    assert(t->t_npend < t->t_cappend);
    t->t_pend[t->t_npend++] = b;
}

/* ------------------------------------------------------------ merging pending writes */

/* Stable merge sort of idx[0..n) by the identity of row idx[i] of p (by timestamp
 * alone, ts, when key is false); tmp has room for n entries. */
static void sort_idx(uint32_t *idx, uint32_t *tmp, uint32_t n, const sl_block *p, bool key)
{
    const int64_t *ts = ts_of(p);
    for (uint32_t width = 1; width < n; width *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * width) {
            uint32_t mid = lo + width < n ? lo + width : n;
            uint32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint32_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                tmp[k++] = (key ? row_cmp(p, idx[b], p, idx[a], true) < 0 : ts[idx[b]] < ts[idx[a]])
                               ? idx[b++]
                               : idx[a++];
            while (a < mid)
                tmp[k++] = idx[a++];
            while (b < hi)
                tmp[k++] = idx[b++];
        }
        memcpy(idx, tmp, n * sizeof(*idx));
    }
}

/* A run of the merged output: main rows [from, from+n), or pending rows sel[from..+n). */
typedef struct merge_run {
    bool pend;     /* rows of the pending block (through sel), else of main */
    uint32_t from; /* first row, or first index into sel */
    uint32_t n;    /* number of rows */
} merge_run;

/*
 * Merges main (sorted, unique) with the pending rows p in the order of sel (sorted,
 * unique; NULL: p's own order) into a new block, pending rows winning ties.
 */
static int merge_into(const sl__ms_table *t, const sl_block *p, const uint32_t *sel, uint32_t npend,
                      sl_block *out)
{
    const sl_block *m = &t->t_main;
    const int64_t *mts = ts_of(m), *pts = ts_of(p);
    uint32_t nm = m->nrows;
    bool key = has_key(t);
    merge_run *runs = NULL;
    size_t nruns = 0, capruns = 0;
    uint32_t i = 0, j = 0;
    int rc = 0;
    while (i < nm || j < npend) {
        merge_run r;
        if (j == npend) {
            r = (merge_run){false, i, nm - i};
            i = nm;
        } else if (i == nm) {
            r = (merge_run){true, j, npend - j};
            j = npend;
        } else if (key) {
            uint32_t pj = sel ? sel[j] : j;
            if (row_cmp(m, i, p, pj, true) < 0) {
                uint32_t k = lower_bound_row(m, i, nm, p, pj, true);
                r = (merge_run){false, i, k - i};
                i = k;
            } else {
                uint32_t k = j;
                while (k < npend && row_cmp(p, sel ? sel[k] : k, m, i, true) <= 0)
                    k++;
                r = (merge_run){true, j, k - j};
                if (row_cmp(p, sel ? sel[k - 1] : k - 1, m, i, true) == 0)
                    i++; /* the pending row replaces this main row */
                j = k;
            }
        } else {
            int64_t tp = pts[sel ? sel[j] : j];
            if (mts[i] < tp) {
                uint32_t k = sl_ts_lower_bound(mts, i, nm, tp);
                r = (merge_run){false, i, k - i};
                i = k;
            } else {
                uint32_t k = j;
                while (k < npend && pts[sel ? sel[k] : k] <= mts[i])
                    k++;
                r = (merge_run){true, j, k - j};
                if (pts[sel ? sel[k - 1] : k - 1] == mts[i])
                    i++; /* the pending row replaces this main row */
                j = k;
            }
        }
        if (nruns == capruns) {
            size_t cap = capruns ? capruns * 2 : 64;
            merge_run *nr = realloc(runs, cap * sizeof(*nr));
            if (nr == NULL) {
                rc = SL_ENOMEM;
                goto done;
            }
            runs = nr;
            capruns = cap;
        }
        runs[nruns++] = r;
    }
    sl_block_init(out);
    rc = block_schema(out, t);
    for (uint32_t c = 0; rc == 0 && c < out->ncols; c++) {
        for (size_t k = 0; rc == 0 && k < nruns; k++) {
            const merge_run *r = &runs[k];
            if (r->pend)
                rc = sl_column_append_rows(&out->cols[c], &p->cols[c], sel ? sel + r->from : NULL,
                                           r->from, r->n);
            else
                rc = sl_column_append_rows(&out->cols[c], &m->cols[c], NULL, r->from, r->n);
        }
    }
    if (rc == 0)
        sl_block_seal(out);
    else
        sl_block_fini(out);
done:
    free(runs);
    return rc;
}

int sl__ms_table_flush(sl__ms_table *t)
{
    if (t->t_npend == 0)
        return 0;
    int rc = 0;
    sl_block cat;
    sl_block_init(&cat);
    uint32_t *idx = NULL, *tmp = NULL;
    const sl_block *p = t->t_pend[0];
    if (t->t_npend > 1) {
        rc = block_schema(&cat, t);
        for (int i = 0; rc == 0 && i < t->t_npend; i++)
            rc = block_append(&cat, t->t_pend[i], NULL, 0, t->t_pend[i]->nrows);
        if (rc < 0)
            goto done;
        p = &cat;
    }
    uint32_t n = p->nrows, nsel = n;
    bool key = has_key(t);
    if (!rows_ascending(p, key)) {
        idx = malloc((size_t)n * sizeof(*idx));
        tmp = malloc((size_t)n * sizeof(*tmp));
        if (idx == NULL || tmp == NULL) {
            rc = SL_ENOMEM;
            goto done;
        }
        for (uint32_t i = 0; i < n; i++)
            idx[i] = i;
        sort_idx(idx, tmp, n, p, key);
        /* Equal identities are in write order after the stable sort: keep the last. */
        nsel = 0;
        for (uint32_t i = 0; i < n; i++)
            if (i + 1 == n || row_cmp(p, idx[i + 1], p, idx[i], key) != 0)
                idx[nsel++] = idx[i];
    }
    sl_block *m = &t->t_main;
    uint32_t nm = m->nrows;
    uint32_t first = idx ? idx[0] : 0;
    if (nm == 0 && idx == NULL && p == t->t_pend[0]) {
        /* A fresh table receiving one ordered write: take the block as it is. */
        sl_block_fini(m);
        *m = *t->t_pend[0];
        free(t->t_pend[0]);
        t->t_pend[0] = NULL;
    } else if (nm == 0 || row_cmp(m, nm - 1, p, first, key) < 0) {
        rc = block_append(m, p, idx, 0, nsel);
        if (rc < 0)
            goto done;
    } else {
        sl_block merged;
        rc = merge_into(t, p, idx, nsel, &merged);
        if (rc < 0)
            goto done;
        sl_block_fini(m);
        *m = merged;
    }
    for (int i = 0; i < t->t_npend; i++)
        sl_block_free(t->t_pend[i]);
    t->t_npend = 0;
done:
    sl_block_fini(&cat);
    free(idx);
    free(tmp);
    return rc;
}

/* ------------------------------------------------------------ bulk append */

/* Checks that a bulk block matches the table's schema and holds no NULL timestamp. */
static int check_append(const sl__ms_table *t, const sl_block *rows, sl_error *err)
{
    sl_pos nopos = {0, 0};
    int ncols = sl__ms_ncols(t);
    const sl_field *f = sl__ms_cols(t);
    if ((int)rows->ncols != ncols)
        return sl_ddl_error(err, SL_EINVAL, nopos,
                            "block for table '%s' has %u columns, the table has %d", t->t_name,
                            rows->ncols, ncols);
    for (int i = 0; i < ncols; i++) {
        const sl_column *c = &rows->cols[i];
        if (c->type != f[i].type)
            return sl_ddl_error(
                err, SL_ETYPE, nopos, "column %d ('%s') of table '%s' is %s, the block has %s",
                i + 1, f[i].name, t->t_name, sl_type_name(f[i].type), sl_type_name(c->type));
        if (c->nrows != rows->nrows)
            return sl_ddl_error(err, SL_EINVAL, nopos,
                                "column %d of the block has %u rows, the block %u", i + 1, c->nrows,
                                rows->nrows);
        if (sl_type_is_var(c->type) && f[i].width > 0) {
            for (uint32_t r = 0; r < rows->nrows; r++) {
                uint32_t len;
                if (sl_column_is_null(c, r))
                    continue;
                const char *p = sl_column_get_str(c, r, &len);
                /* NCHAR counts characters, of which there are at most as many as bytes. */
                if (len <= f[i].width)
                    continue;
                int64_t chars = c->type == SL_T_NCHAR ? sl_utf8_count(p, len) : -1;
                if (chars >= 0 && chars <= (int64_t)f[i].width)
                    continue;
                return sl_ddl_error(err, SL_ERANGE, nopos,
                                    "row %u: value of %u bytes does not fit column '%s' %s(%u)",
                                    r + 1, len, f[i].name, sl_type_name(c->type), f[i].width);
            }
        }
    }
    const sl_column *ts = &rows->cols[0];
    if (ts->has_nulls)
        for (uint32_t r = 0; r < rows->nrows; r++)
            if (sl_column_is_null(ts, r))
                return sl_ddl_error(err, SL_EINVAL, nopos,
                                    "row %u: the timestamp column '%s' cannot be NULL", r + 1,
                                    f[0].name);
    if (has_key(t) && rows->cols[1].has_nulls)
        for (uint32_t r = 0; r < rows->nrows; r++)
            if (sl_column_is_null(&rows->cols[1], r))
                return sl_ddl_error(err, SL_EINVAL, nopos,
                                    "row %u: the composite key column '%s' cannot be NULL", r + 1,
                                    f[1].name);
    return 0;
}

int sl__ms_table_append(sl__ms_table *t, const sl_block *rows, sl_error *err)
{
    int rc = check_append(t, rows, err);
    if (rc < 0)
        return rc;
    uint32_t n = rows->nrows;
    if (n == 0)
        return 0;
    const sl_column *tsc = &rows->cols[0];
    sl_block *m = &t->t_main;
    if (t->t_npend == 0 && !tsc->is_const) {
        bool key = has_key(t);
        bool after = m->nrows == 0 || row_cmp(m, m->nrows - 1, rows, 0, key) < 0;
        if (after && rows_ascending(rows, key)) {
            rc = block_append(m, rows, NULL, 0, n);
            if (rc < 0)
                return sl_ddl_error(err, rc, (sl_pos){0, 0}, "out of memory appending to '%s'",
                                    t->t_name);
            return 0;
        }
    }
    /* Out of order or overlapping: keep a copy as a pending write. */
    sl_block *b = sl_block_new();
    if (b == NULL || sl__ms_reserve_pend(t, 1) < 0 || block_schema(b, t) < 0 ||
        block_append(b, rows, NULL, 0, n) < 0) {
        sl_block_free(b);
        return sl_ddl_error(err, SL_ENOMEM, (sl_pos){0, 0}, "out of memory appending to '%s'",
                            t->t_name);
    }
    sl__ms_add_pend(t, b);
    if (t->t_npend >= SL__MS_PEND_COMPACT)
        (void)sl__ms_table_flush(t); /* compaction only; the rows are stored either way */
    return 0;
}

/* ------------------------------------------------------------ delete */

int sl__ms_delete_prepare(sl__ms_table *t, int64_t lo, int64_t hi, sl__ms_delete_op *op)
{
    memset(op, 0, sizeof(*op));
    op->t = t;
    int rc = sl__ms_table_flush(t);
    if (rc < 0)
        return rc;
    const sl_block *m = &t->t_main;
    uint32_t nm = m->nrows;
    if (lo > hi || nm == 0)
        return 0;
    const int64_t *ts = ts_of(m);
    op->from = sl_ts_lower_bound(ts, 0, nm, lo);
    op->to = sl_ts_upper_bound(ts, op->from, nm, hi);
    if (op->from == op->to || op->to == nm)
        return 0; /* nothing, or a suffix cut in place */
    sl_block *nb = sl_block_new();
    if (nb == NULL)
        return SL_ENOMEM;
    rc = block_schema(nb, t);
    if (rc == 0)
        rc = block_append(nb, m, NULL, 0, op->from);
    if (rc == 0)
        rc = block_append(nb, m, NULL, op->to, nm - op->to);
    if (rc < 0) {
        sl_block_free(nb);
        op->from = op->to = 0;
        return rc;
    }
    op->rebuilt = nb;
    return 0;
}

int64_t sl__ms_delete_apply(sl__ms_delete_op *op)
{
    int64_t n = (int64_t)op->to - op->from;
    if (n == 0)
        return 0;
    sl_block *m = &op->t->t_main;
    if (op->rebuilt != NULL) {
        sl_block_fini(m);
        *m = *op->rebuilt;
        free(op->rebuilt);
        op->rebuilt = NULL;
    } else {
        block_truncate(m, op->from);
    }
    return n;
}

void sl__ms_delete_discard(sl__ms_delete_op *op)
{
    sl_block_free(op->rebuilt);
    op->rebuilt = NULL;
}

/* ------------------------------------------------------------ catalog */

void sl__ms_table_meta(const sl__ms_table *t, sl_table_meta *meta)
{
    meta->kind = t->t_kind;
    meta->db = t->t_db->d_name;
    meta->name = t->t_name;
    meta->precision = t->t_db->d_prec;
    meta->ncols = sl__ms_ncols(t);
    meta->cols = sl__ms_cols(t);
    meta->ntags = sl__ms_ntags(t);
    meta->tags = sl__ms_tags(t);
}

static int cat_get_table(void *ud, const char *db, const char *name, sl_table_meta *out,
                         sl_error *err)
{
    sl_memstore *ms = ud;
    sl_pos nopos = {0, 0};
    sl__ms_db *d = db ? sl__ms_find_db(ms, db) : ms->m_cur;
    if (d == NULL) {
        if (db != NULL)
            return sl_ddl_error(err, SL_ENOTFOUND, nopos, "database '%s' does not exist", db);
        return sl_ddl_error(err, SL_ENOTFOUND, nopos,
                            "no database selected for '%s': USE a database or write db.%s", name,
                            name);
    }
    sl__ms_table *t = sl__ms_find_table(d, name);
    if (t == NULL)
        return sl_ddl_error(err, SL_ENOTFOUND, nopos, "table '%s' does not exist in database '%s'",
                            name, d->d_name);
    sl__ms_table_meta(t, out);
    return 0;
}

typedef struct ms_scan {
    sl__ms_table **tabs;  /* tables to scan, in order */
    int ntabs;            /* entries of tabs */
    int cur;              /* index of the table being scanned */
    bool ranged;          /* pos/end are set for tabs[cur] */
    uint32_t pos;         /* next row of tabs[cur] */
    uint32_t end;         /* one past its last row within [lo, hi] */
    int64_t lo;           /* smallest timestamp asked for */
    int64_t hi;           /* largest timestamp asked for */
    int nproj;            /* entries of proj */
    int *proj;            /* owned copy of the request's projection */
    int ncols;            /* the scanned schema's column count */
    const sl_field *cols; /* its columns (owned by the table) */
    const sl_field *tags; /* its tags (owned by the table) */
} ms_scan;

static void cat_scan_close(void *cursor)
{
    ms_scan *s = cursor;
    if (s == NULL)
        return;
    free(s->tabs);
    free(s->proj);
    free(s);
}

static int cat_scan_open(void *ud, const sl_scan_req *req, void **cursor, sl_error *err)
{
    sl_memstore *ms = ud;
    sl_pos nopos = {0, 0};
    const sl_table_meta *meta = req->table;
    sl__ms_db *d = meta->db ? sl__ms_find_db(ms, meta->db) : ms->m_cur;
    sl__ms_table *t = d ? sl__ms_find_table(d, meta->name) : NULL;
    if (t == NULL)
        return sl_ddl_error(err, SL_ENOTFOUND, nopos, "table '%s' does not exist", meta->name);
    int ncols = sl__ms_ncols(t), ntags = sl__ms_ntags(t);
    for (int i = 0; i < req->nproj; i++) {
        int p = req->proj[i];
        if (p != SL_PROJ_TBNAME && (p < 0 || p >= ncols + ntags))
            return sl_ddl_error(err, SL_EINVAL, nopos, "scan of '%s' asks for column %d of %d",
                                t->t_name, p, ncols + ntags);
    }
    ms_scan *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return SL_ENOMEM;
    int n = t->t_kind == SL_TABLE_SUPER ? t->t_nchildren : 1;
    s->tabs = malloc((size_t)(n > 0 ? n : 1) * sizeof(*s->tabs));
    s->proj = malloc((size_t)(req->nproj > 0 ? req->nproj : 1) * sizeof(int));
    if (s->tabs == NULL || s->proj == NULL) {
        cat_scan_close(s);
        return SL_ENOMEM;
    }
    if (t->t_kind == SL_TABLE_SUPER)
        memcpy(s->tabs, t->t_children, (size_t)n * sizeof(*s->tabs));
    else
        s->tabs[0] = t;
    s->ntabs = n;
    if (req->nproj > 0)
        memcpy(s->proj, req->proj, (size_t)req->nproj * sizeof(int));
    s->nproj = req->nproj;
    s->lo = req->ts_lo;
    s->hi = req->ts_hi;
    s->ncols = ncols;
    s->cols = sl__ms_cols(t);
    s->tags = sl__ms_tags(t);
    for (int i = 0; i < n; i++) {
        int rc = sl__ms_table_flush(s->tabs[i]);
        if (rc < 0) {
            sl_ddl_error(err, rc, nopos, "out of memory preparing the scan of '%s'",
                         s->tabs[i]->t_name);
            cat_scan_close(s);
            return rc;
        }
    }
    *cursor = s;
    return 0;
}

/* Type and width the scan delivers for projection entry p. */
static void proj_type(const ms_scan *s, int p, sl_type *type, uint32_t *width)
{
    if (p == SL_PROJ_TBNAME) {
        *type = SL_T_VARCHAR;
        *width = SL__MS_TBNAME_WIDTH;
    } else if (p < s->ncols) {
        *type = s->cols[p].type;
        *width = s->cols[p].width;
    } else {
        *type = s->tags[p - s->ncols].type;
        *width = s->tags[p - s->ncols].width;
    }
}

/* Makes out an empty block with the projection's columns, reusing it when it fits. */
static int prepare_out(const ms_scan *s, sl_block *out)
{
    bool fits = (int)out->ncols == s->nproj;
    for (int i = 0; fits && i < s->nproj; i++) {
        sl_type ty;
        uint32_t w;
        proj_type(s, s->proj[i], &ty, &w);
        fits = out->cols[i].type == ty && out->cols[i].width == w;
    }
    if (fits) {
        sl_block_reset(out);
        return 0;
    }
    sl_block_fini(out);
    sl_block_init(out);
    for (int i = 0; i < s->nproj; i++) {
        sl_type ty;
        uint32_t w;
        proj_type(s, s->proj[i], &ty, &w);
        int rc = sl_block_add_column(out, ty, w);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int cat_scan_next(void *cursor, sl_block *out, sl_error *err)
{
    ms_scan *s = cursor;
    int rc = prepare_out(s, out);
    if (rc < 0)
        return sl_ddl_error(err, rc, (sl_pos){0, 0}, "out of memory in a scan");
    while (s->cur < s->ntabs) {
        sl__ms_table *t = s->tabs[s->cur];
        const sl_block *m = &t->t_main;
        if (!s->ranged) {
            const int64_t *ts = ts_of(m);
            s->pos = s->lo <= s->hi ? sl_ts_lower_bound(ts, 0, m->nrows, s->lo) : m->nrows;
            s->end = s->lo <= s->hi ? sl_ts_upper_bound(ts, s->pos, m->nrows, s->hi) : m->nrows;
            s->ranged = true;
        }
        if (s->pos >= s->end) {
            s->cur++;
            s->ranged = false;
            continue;
        }
        uint32_t n = s->end - s->pos;
        if (n > SL_BLOCK_ROWS_MAX)
            n = SL_BLOCK_ROWS_MAX;
        for (int i = 0; rc == 0 && i < s->nproj; i++) {
            int p = s->proj[i];
            sl_column *c = &out->cols[i];
            sl_value v;
            if (p == SL_PROJ_TBNAME) {
                v = sl_value_str(SL_T_VARCHAR, t->t_name, (uint32_t)strlen(t->t_name));
                rc = sl_column_set_const(c, &v, n);
            } else if (p < s->ncols) {
                /* A view of the stored rows, not a copy (valid until the next call). */
                rc = sl_column_borrow(c, &m->cols[p], s->pos, n);
            } else {
                sl_column_get(&t->t_tagvals.cols[p - s->ncols], 0, &v);
                rc = sl_column_set_const(c, &v, n);
            }
        }
        if (rc < 0) {
            sl_block_reset(out);
            return sl_ddl_error(err, rc, (sl_pos){0, 0}, "out of memory in a scan of '%s'",
                                t->t_name);
        }
        out->nrows = n;
        s->pos += n;
        return 0;
    }
    out->nrows = 0;
    return 0;
}

const sl_catalog_ops sl__ms_catalog_ops = {
    .get_table = cat_get_table,
    .scan_open = cat_scan_open,
    .scan_next = cat_scan_next,
    .scan_close = cat_scan_close,
};
