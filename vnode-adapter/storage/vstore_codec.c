/*
 * vstore_codec.c - the byte formats of the vnode storage engine: stored row blocks
 * (vblocks), table state records, tombstones, change-log entries and version summaries.
 *
 * Everything read back from disk goes through a bounded reader and is checked before use,
 * so damaged data gives SL_ECORRUPT with a message rather than a crash. Each format starts
 * with a format byte so that it can evolve. A vblock keeps every column separately
 * decodable (see vstore_int.h): scans decode only what they project, and the timestamps
 * are a raw array that the writer's existence probes and the readers' planning read in
 * place.
 */
#include <stdlib.h>
#include <string.h>

#include "vstore_int.h"

#define VBLOCK_FORMAT     1
#define VBLOCK_FORMAT_KEY 2 /* a composite-key table's block (vstore_int.h) */
#define TSTATE_FORMAT     1
#define VBLOCK_HDR(ncols) (13 + 4 * (size_t)(ncols))
#define VBLOCK_LENS       13 /* offset of the column lengths */

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le64(uint8_t *p, uint64_t v)
{
    put_le32(p, (uint32_t)v);
    put_le32(p + 4, (uint32_t)(v >> 32));
}

static uint64_t get_le64(const uint8_t *p)
{
    return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static int corrupt(sl_error *err, const char *what)
{
    return sl_error_set(err, SL_ECORRUPT, 0, 0, "vstore: damaged stored data: %s", what);
}

/* ---------------------------------------------------------------------------------------
 * vblocks
 * ------------------------------------------------------------------------------------- */

/* Makes scratch a block with src's column types (rows dropped), reusing its memory. */
int sl__vs_block_like(sl_block *scratch, const sl_block *src)
{
    bool fits = scratch->ncols == src->ncols;
    for (uint32_t c = 0; fits && c < src->ncols; c++)
        fits = scratch->cols[c].type == src->cols[c].type;
    if (fits) {
        sl_block_reset(scratch);
        return 0;
    }
    sl_block_fini(scratch);
    for (uint32_t c = 0; c < src->ncols; c++) {
        int rc = sl_block_add_column(scratch, src->cols[c].type, src->cols[c].width);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int sl__vs_vblock_encode(const sl_block *src, const int64_t *ts, const uint32_t *sel, uint32_t from,
                         uint32_t n, const sl_vs_column *schema, bool keyed, uint32_t aux,
                         sl_block *scratch, sl_buf *out)
{
    uint32_t ncols = src->ncols;
    size_t start = out->len, hdr = VBLOCK_HDR(ncols);
    int rc;
    if ((rc = sl_buf_reserve(out, hdr + 8 * (size_t)n)) != 0)
        return rc;
    uint8_t *h = out->data + start;
    h[0] = keyed && ncols > 1 ? VBLOCK_FORMAT_KEY : VBLOCK_FORMAT;
    put_le32(h + 1, n);
    put_le32(h + 5, ncols);
    put_le32(h + 9, aux);
    put_le32(h + VBLOCK_LENS, 8 * n);
    uint8_t *t = h + hdr;
    for (uint32_t k = 0; k < n; k++)
        put_le64(t + 8 * (size_t)k, (uint64_t)ts[sel != NULL ? sel[k] : from + k]);
    out->len = start + hdr + 8 * (size_t)n;

    /* The other columns come from src itself when the rows are all of it, in order;
     * otherwise they are gathered into scratch first. */
    const sl_block *g = src;
    if (ncols > 1 && (sel != NULL || from != 0 || n != src->nrows)) {
        if ((rc = sl__vs_block_like(scratch, src)) != 0)
            goto fail;
        for (uint32_t c = 1; c < ncols; c++)
            if ((rc = sl_column_append_rows(&scratch->cols[c], &src->cols[c], sel, from, n)) != 0)
                goto fail;
        g = scratch;
    }
    for (uint32_t c = 1; c < ncols; c++) {
        sl_column view = g->cols[c];
        view.width = sl_type_is_var(view.type) ? schema[c].width : 0;
        view.nrows = n;
        sl_block one = {.nrows = n, .ncols = 1, .capcols = 1, .cols = &view};
        size_t before = out->len;
        if ((rc = sl_block_encode(&one, out)) != 0)
            goto fail;
        if (out->len - before > UINT32_MAX) {
            rc = SL_ELIMIT;
            goto fail;
        }
        /* out may have moved: address the header through its offset. */
        put_le32(out->data + start + VBLOCK_LENS + 4 * (size_t)c, (uint32_t)(out->len - before));
    }
    return 0;
fail:
    out->len = start;
    return rc;
}

int sl__vs_vblock_parse(const void *p, size_t n, vs_vblock *vb, sl_error *err)
{
    const uint8_t *b = p;
    if (n < VBLOCK_LENS || (b[0] != VBLOCK_FORMAT && b[0] != VBLOCK_FORMAT_KEY))
        return corrupt(err, "block header");
    uint32_t nrows = get_le32(b + 1), ncols = get_le32(b + 5);
    if (nrows == 0 || nrows > SL_BLOCK_DECODE_ROWS_MAX || ncols == 0 ||
        ncols > SL_BLOCK_DECODE_COLS_MAX || VBLOCK_HDR(ncols) > n)
        return corrupt(err, "block dimensions");
    uint64_t total = 0;
    for (uint32_t c = 0; c < ncols; c++)
        total += get_le32(b + VBLOCK_LENS + 4 * (size_t)c);
    if (total != n - VBLOCK_HDR(ncols) || get_le32(b + VBLOCK_LENS) != 8 * (uint64_t)nrows)
        return corrupt(err, "block column lengths");
    if (b[0] == VBLOCK_FORMAT_KEY && ncols < 2)
        return corrupt(err, "keyed block without a key column");
    vb->nrows = nrows;
    vb->ncols = ncols;
    vb->keyed = b[0] == VBLOCK_FORMAT_KEY;
    vb->aux = get_le32(b + 9);
    vb->lens = b + VBLOCK_LENS;
    vb->cols = b + VBLOCK_HDR(ncols);
    return 0;
}

int64_t sl__vs_vblock_ts(const vs_vblock *vb, uint32_t i)
{
    return (int64_t)get_le64(vb->cols + 8 * (size_t)i);
}

int sl__vs_vblock_decode_ts(const vs_vblock *vb, sl_column *ts, sl_error *err)
{
    sl_column_reset(ts);
    int rc = sl_column_reserve(ts, vb->nrows, 0);
    if (rc != 0)
        return sl_error_set(err, rc, 0, 0, "vstore: out of memory decoding a block");
    int64_t *d = ts->data;
    for (uint32_t i = 0; i < vb->nrows; i++) {
        d[i] = (int64_t)get_le64(vb->cols + 8 * (size_t)i);
        if (i > 0 && (d[i] < d[i - 1] || (d[i] == d[i - 1] && !vb->keyed)))
            return corrupt(err, "block timestamps out of order");
    }
    ts->nrows = vb->nrows;
    return 0;
}

/* Decodes the one-column block at p[0..n) into dst, keeping dst's type and width. */
static int decode_one(const vs_vblock *vb, const uint8_t *p, size_t n, sl_column *dst,
                      sl_error *err)
{
    sl_block tmp;
    sl_block_init(&tmp);
    int rc = sl_block_decode(p, n, &tmp, err);
    if (rc != 0)
        return rc;
    if (tmp.ncols != 1 || tmp.nrows != vb->nrows || tmp.cols[0].type != dst->type) {
        sl_block_fini(&tmp);
        return corrupt(err, "block column shape or type");
    }
    uint32_t width = dst->width;
    sl_column_fini(dst);
    *dst = tmp.cols[0];
    dst->width = width;
    tmp.ncols = 0; /* the column moved to dst */
    sl_block_fini(&tmp);
    return 0;
}

int sl__vs_vblock_decode_cols(const vs_vblock *vb, const uint32_t *idx, uint32_t n, sl_column *dst,
                              sl_error *err)
{
    size_t off = 0;
    uint32_t c = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (idx[k] == 0 || idx[k] >= vb->ncols || (k > 0 && idx[k] <= idx[k - 1]))
            return corrupt(err, "block has fewer columns than the table");
        for (; c < idx[k]; c++)
            off += get_le32(vb->lens + 4 * (size_t)c);
        int rc = decode_one(vb, vb->cols + off, get_le32(vb->lens + 4 * (size_t)c), &dst[k], err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int sl__vs_vblock_decode_all(const vs_vblock *vb, sl_block *out, sl_error *err)
{
    int rc = sl_block_add_column(out, SL_T_TIMESTAMP, 0);
    if (rc < 0)
        return sl_error_set(err, rc, 0, 0, "vstore: out of memory decoding a block");
    if ((rc = sl__vs_vblock_decode_ts(vb, &out->cols[0], err)) != 0)
        return rc;
    size_t off = 8 * (size_t)vb->nrows;
    for (uint32_t c = 1; c < vb->ncols; c++) {
        size_t len = get_le32(vb->lens + 4 * (size_t)c);
        sl_block tmp;
        sl_block_init(&tmp);
        if ((rc = sl_block_decode(vb->cols + off, len, &tmp, err)) != 0)
            return rc;
        if (tmp.ncols != 1 || tmp.nrows != vb->nrows) {
            sl_block_fini(&tmp);
            return corrupt(err, "block column shape");
        }
        int idx = sl_block_add_column(out, tmp.cols[0].type, tmp.cols[0].width);
        if (idx < 0) {
            sl_block_fini(&tmp);
            return sl_error_set(err, idx, 0, 0, "vstore: out of memory decoding a block");
        }
        out->cols[idx] = tmp.cols[0];
        tmp.ncols = 0;
        sl_block_fini(&tmp);
        off += len;
    }
    out->nrows = vb->nrows;
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Table state, tombstones
 * ------------------------------------------------------------------------------------- */

int sl__vs_tstate_encode(const vs_tstate *st, sl_buf *out)
{
    int rc;
    if ((rc = sl_buf_put_u8(out, TSTATE_FORMAT)) != 0 ||
        (rc = sl_buf_put_varu(out, st->n_overlap)) != 0 ||
        (rc = sl_buf_put_varu(out, st->niv)) != 0)
        return rc;
    for (uint32_t i = 0; i < st->niv; i++)
        if ((rc = sl_buf_put_vari(out, st->iv[i].a)) != 0 ||
            (rc = sl_buf_put_vari(out, st->iv[i].b)) != 0)
            return rc;
    return 0;
}

int sl__vs_tstate_decode(const void *p, size_t n, vs_tstate *st, sl_error *err)
{
    sl_reader r;
    uint8_t fmt;
    uint64_t nov, niv;
    memset(st, 0, sizeof(*st));
    sl_reader_init(&r, p, n);
    if (sl_reader_u8(&r, &fmt) != 0 || fmt != TSTATE_FORMAT || sl_reader_varu(&r, &nov) != 0 ||
        sl_reader_varu(&r, &niv) != 0 || nov > UINT32_MAX || niv > VS_DIRTY_MAX)
        return corrupt(err, "table state");
    st->n_overlap = (uint32_t)nov;
    st->niv = (uint32_t)niv;
    for (uint32_t i = 0; i < st->niv; i++) {
        if (sl_reader_vari(&r, &st->iv[i].a) != 0 || sl_reader_vari(&r, &st->iv[i].b) != 0 ||
            st->iv[i].a > st->iv[i].b || (i > 0 && st->iv[i].a <= st->iv[i - 1].b))
            return corrupt(err, "table state intervals");
    }
    if (sl_reader_left(&r) != 0)
        return corrupt(err, "table state length");
    return 0;
}

static int iv_cmp(const void *a, const void *b)
{
    const vs_iv *x = a, *y = b;
    return (x->a > y->a) - (x->a < y->a);
}

void sl__vs_tstate_add(vs_tstate *st, int64_t a, int64_t b)
{
    vs_iv all[VS_DIRTY_MAX + 1];
    uint32_t n = st->niv;
    memcpy(all, st->iv, n * sizeof(vs_iv));
    all[n++] = (vs_iv){a, b};
    qsort(all, n, sizeof(vs_iv), iv_cmp);
    /* Sweep-merge intervals that intersect. */
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (m > 0 && all[i].a <= all[m - 1].b) {
            if (all[i].b > all[m - 1].b)
                all[m - 1].b = all[i].b;
        } else {
            all[m++] = all[i];
        }
    }
    if (m > VS_DIRTY_MAX) {
        /* Merge the two neighbours with the smallest gap (a superset keeps the invariant). */
        uint32_t best = 0;
        uint64_t best_gap = UINT64_MAX;
        for (uint32_t i = 0; i + 1 < m; i++) {
            uint64_t gap = (uint64_t)all[i + 1].a - (uint64_t)all[i].b;
            if (gap < best_gap) {
                best_gap = gap;
                best = i;
            }
        }
        all[best].b = all[best + 1].b;
        memmove(&all[best + 1], &all[best + 2], (m - best - 2) * sizeof(vs_iv));
        m--;
    }
    memcpy(st->iv, all, m * sizeof(vs_iv));
    st->niv = m;
}

const vs_iv *sl__vs_tstate_find(const vs_tstate *st, int64_t t)
{
    for (uint32_t i = 0; i < st->niv; i++)
        if (st->iv[i].a <= t && t <= st->iv[i].b)
            return &st->iv[i];
    return NULL;
}

int sl__vs_tomb_encode(int64_t lo, int64_t hi, sl_buf *out)
{
    int rc = sl_buf_put_vari(out, lo);
    return rc != 0 ? rc : sl_buf_put_vari(out, hi);
}

int sl__vs_tomb_decode(const void *p, size_t n, int64_t *lo, int64_t *hi, sl_error *err)
{
    sl_reader r;
    sl_reader_init(&r, p, n);
    if (sl_reader_vari(&r, lo) != 0 || sl_reader_vari(&r, hi) != 0 || *lo > *hi ||
        sl_reader_left(&r) != 0)
        return corrupt(err, "tombstone");
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Change-log entries:
 *   u8 kind, varu uid, then
 *   ROWS:   varu nrows, u8 kinds flag (0 all INSERT, 1 all UPDATE, 2 one byte per row),
 *           [nrows kind bytes], then the rows: u8 0 and the vblock (inline), or u8 1 and
 *           vari last_ts: a reference to the data block (uid, last_ts, version), which
 *           holds the same rows (written by the same call, see vstore_write.c)
 *   DELETE: vari lo, vari hi, varu count
 *   DROP:   nothing
 * ------------------------------------------------------------------------------------- */

#define KINDS_ALL_INSERT 0
#define KINDS_ALL_UPDATE 1
#define KINDS_EACH       2

int sl__vs_log_rows_header(sl_buf *out, uint64_t uid, uint32_t nrows, const uint8_t *kinds)
{
    uint8_t flag = KINDS_ALL_INSERT;
    if (kinds != NULL) {
        uint32_t nup = 0;
        for (uint32_t i = 0; i < nrows; i++)
            nup += kinds[i] == SL_VS_ROW_UPDATE;
        flag = nup == 0 ? KINDS_ALL_INSERT : nup == nrows ? KINDS_ALL_UPDATE : KINDS_EACH;
    }
    int rc;
    if ((rc = sl_buf_put_u8(out, SL_VS_CHANGE_ROWS)) != 0 ||
        (rc = sl_buf_put_varu(out, uid)) != 0 || (rc = sl_buf_put_varu(out, nrows)) != 0 ||
        (rc = sl_buf_put_u8(out, flag)) != 0)
        return rc;
    return flag == KINDS_EACH ? sl_buf_put(out, kinds, nrows) : 0;
}

int sl__vs_log_delete(sl_buf *out, uint64_t uid, int64_t lo, int64_t hi, uint64_t count)
{
    int rc;
    if ((rc = sl_buf_put_u8(out, SL_VS_CHANGE_DELETE)) != 0 ||
        (rc = sl_buf_put_varu(out, uid)) != 0 || (rc = sl_buf_put_vari(out, lo)) != 0 ||
        (rc = sl_buf_put_vari(out, hi)) != 0)
        return rc;
    return sl_buf_put_varu(out, count);
}

int sl__vs_log_drop(sl_buf *out, uint64_t uid)
{
    int rc = sl_buf_put_u8(out, SL_VS_CHANGE_DROP_TABLE);
    return rc != 0 ? rc : sl_buf_put_varu(out, uid);
}

int sl__vs_log_parse(const void *p, size_t n, uint64_t version, sl_vs_change *out,
                     vs_log_body *body, sl_error *err)
{
    sl_reader r;
    uint8_t kind;
    memset(out, 0, sizeof(*out));
    memset(body, 0, sizeof(*body));
    sl_block_init(&out->rows);
    out->version = version;
    sl_reader_init(&r, p, n);
    if (sl_reader_u8(&r, &kind) != 0 || sl_reader_varu(&r, &out->uid) != 0)
        return corrupt(err, "change-log entry header");
    switch (kind) {
    case SL_VS_CHANGE_ROWS: {
        uint64_t nrows;
        uint8_t flag, how;
        if (sl_reader_varu(&r, &nrows) != 0 || sl_reader_u8(&r, &flag) != 0 || nrows == 0 ||
            nrows > SL_BLOCK_DECODE_ROWS_MAX || flag > KINDS_EACH)
            return corrupt(err, "change-log rows header");
        const uint8_t *kinds = NULL;
        if (flag == KINDS_EACH && (kinds = sl_reader_take(&r, (size_t)nrows)) == NULL)
            return corrupt(err, "change-log row kinds");
        body->hdr_len = n - sl_reader_left(&r);
        body->nrows = (uint32_t)nrows;
        if (sl_reader_u8(&r, &how) != 0 || how > VS_BODY_REF)
            return corrupt(err, "change-log rows body");
        body->ref = how == VS_BODY_REF;
        if (body->ref) {
            if (sl_reader_vari(&r, &body->last) != 0 || sl_reader_left(&r) != 0)
                return corrupt(err, "change-log block reference");
        } else {
            body->vblock = r.p;
            body->vblock_len = sl_reader_left(&r);
        }
        out->kind = SL_VS_CHANGE_ROWS;
        out->row_kinds = malloc((size_t)nrows);
        if (out->row_kinds == NULL)
            return sl_error_set(err, SL_ENOMEM, 0, 0, "vstore: out of memory reading changes");
        for (uint64_t i = 0; i < nrows; i++) {
            uint8_t k = flag == KINDS_EACH ? kinds[i] : flag;
            if (k > SL_VS_ROW_UPDATE)
                return corrupt(err, "change-log row kind");
            out->row_kinds[i] = k;
        }
        return 0;
    }
    case SL_VS_CHANGE_DELETE:
        if (sl_reader_vari(&r, &out->del_lo) != 0 || sl_reader_vari(&r, &out->del_hi) != 0 ||
            sl_reader_varu(&r, &out->del_count) != 0 || sl_reader_left(&r) != 0)
            return corrupt(err, "change-log delete entry");
        out->kind = SL_VS_CHANGE_DELETE;
        return 0;
    case SL_VS_CHANGE_DROP_TABLE:
        if (sl_reader_left(&r) != 0)
            return corrupt(err, "change-log drop entry");
        out->kind = SL_VS_CHANGE_DROP_TABLE;
        return 0;
    default: return corrupt(err, "change-log entry kind");
    }
}

int sl__vs_log_rows_decode(const void *vblock, size_t len, uint32_t nrows, sl_vs_change *out,
                           sl_error *err)
{
    vs_vblock vb = {0};
    int rc = sl__vs_vblock_parse(vblock, len, &vb, err);
    if (rc != 0)
        return rc;
    if (vb.nrows != nrows)
        return corrupt(err, "change-log row count");
    return sl__vs_vblock_decode_all(&vb, &out->rows, err);
}

int sl__vs_log_sum_encode(sl_buf *out, uint32_t entries, uint64_t stored, uint64_t logical)
{
    int rc;
    if ((rc = sl_buf_put_varu(out, entries)) != 0 || (rc = sl_buf_put_varu(out, stored)) != 0)
        return rc;
    return sl_buf_put_varu(out, logical);
}

int sl__vs_log_sum_decode(const void *p, size_t n, vs_log_sum *s, sl_error *err)
{
    sl_reader r;
    uint64_t e;
    sl_reader_init(&r, p, n);
    if (sl_reader_varu(&r, &e) != 0 || sl_reader_varu(&r, &s->stored) != 0 ||
        sl_reader_varu(&r, &s->logical) != 0 || e == 0 || e > UINT32_MAX || sl_reader_left(&r) != 0)
        return corrupt(err, "change-log version summary");
    s->entries = (uint32_t)e;
    return 0;
}
