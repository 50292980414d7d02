/*
 * ops.c - the streaming operators: scan, one-row source, filter, project, limit, trim,
 * and the two materialising reorderers, sort and partition.
 *
 * Streaming operators hand blocks through without copying when they can (a filter that
 * keeps every row returns its input block). Sort and partition gather their whole input
 * into one block first, compute a permutation, and emit it in SL_BLOCK_ROWS_MAX slices.
 */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/keymap.h"
#include "exec_int.h"

static int oom(sl_error *err)
{
    return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
}

void sl_op_free(sl_op *op)
{
    if (op != NULL)
        op->vt->free(op);
}

int sl_op_explain(const sl_op *op, sl_buf *out, int depth)
{
    for (; op != NULL; op = op->child, depth++) {
        int rc = sl_buf_printf(out, "%*s%s", depth * 2, "", op->vt->name);
        if (rc == 0 && op->vt->describe != NULL) {
            rc = sl_buf_put_u8(out, ' ');
            if (rc == 0)
                rc = op->vt->describe(op, out);
        }
        if (rc == 0)
            rc = sl_buf_put_u8(out, '\n');
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Copies the columns' layout (types, widths) of src into an empty dst. */
static int block_like(sl_block *dst, const sl_block *src)
{
    for (uint32_t i = 0; i < src->ncols; i++)
        if (sl_block_add_column(dst, src->cols[i].type, src->cols[i].width) < 0)
            return SL_ENOMEM;
    return 0;
}

/* Appends rows of src (sel or range) to dst, column by column. */
static int block_append(sl_block *dst, const sl_block *src, const uint32_t *sel, uint32_t from,
                        uint32_t n)
{
    for (uint32_t c = 0; c < src->ncols; c++) {
        int rc = sl_column_append_rows(&dst->cols[c], &src->cols[c], sel, from, n);
        if (rc != 0)
            return rc;
    }
    dst->nrows += n;
    return 0;
}

/* ------------------------------------------------------------ scan */

typedef struct op_scan {
    sl_op op;
    sl_catalog cat;
    sl_scan_req req;
    sl_table_meta meta; /* copy of *req.table: the planner's meta dies with the planner */
    int *proj;
    void *cursor;
    bool opened;
    bool done;
    sl_block blk;
} op_scan;

static int scan_next(sl_op *o, sl_block **out, sl_error *err)
{
    op_scan *s = (op_scan *)o;
    *out = NULL;
    if (s->done)
        return 0;
    if (!s->opened) {
        int rc = s->cat.ops->scan_open(s->cat.ud, &s->req, &s->cursor, err);
        if (rc != 0)
            return rc;
        s->opened = true;
    }
    for (;;) {
        int rc = s->cat.ops->scan_next(s->cursor, &s->blk, err);
        if (rc != 0)
            return rc;
        if (s->blk.nrows == 0) {
            s->done = true;
            return 0;
        }
        *out = &s->blk;
        return 0;
    }
}

static void scan_free(sl_op *o)
{
    op_scan *s = (op_scan *)o;
    if (s->opened)
        s->cat.ops->scan_close(s->cursor);
    sl_block_fini(&s->blk);
    free(s->proj);
    free(s);
}

static int scan_describe(const sl_op *o, sl_buf *out)
{
    const op_scan *s = (const op_scan *)o;
    return sl_buf_printf(out, "%s%s%s columns=%d", s->req.table->db ? s->req.table->db : "",
                         s->req.table->db ? "." : "", s->req.table->name, s->req.nproj);
}

static const sl_op_vt scan_vt = {
    .name = "Scan", .next = scan_next, .free = scan_free, .describe = scan_describe};

int sl_op_scan_new(const sl_catalog *cat, const sl_scan_req *req, sl_op **out, sl_error *err)
{
    op_scan *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return oom(err);
    s->proj = calloc((size_t)req->nproj + 1, sizeof(int));
    if (s->proj == NULL) {
        free(s);
        return oom(err);
    }
    memcpy(s->proj, req->proj, sizeof(int) * (size_t)req->nproj);
    s->op.vt = &scan_vt;
    s->cat = *cat;
    s->req = *req;
    s->req.proj = s->proj;
    s->meta = *req->table;
    s->req.table = &s->meta;
    sl_block_init(&s->blk);
    *out = &s->op;
    return 0;
}

/* ------------------------------------------------------------ one row */

typedef struct op_one {
    sl_op op;
    bool done;
    sl_block blk;
} op_one;

static int one_next(sl_op *o, sl_block **out, sl_error *err)
{
    op_one *s = (op_one *)o;
    *out = NULL;
    if (s->done)
        return 0;
    s->done = true;
    s->blk.nrows = 1;
    *out = &s->blk;
    return 0;
}

static void one_free(sl_op *o)
{
    op_one *s = (op_one *)o;
    sl_block_fini(&s->blk);
    free(s);
}

static const sl_op_vt one_vt = {.name = "OneRow", .next = one_next, .free = one_free};

int sl_op_one_row_new(sl_op **out, sl_error *err)
{
    op_one *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return oom(err);
    s->op.vt = &one_vt;
    sl_block_init(&s->blk);
    *out = &s->op;
    return 0;
}

/* ------------------------------------------------------------ filter */

typedef struct op_filter {
    sl_op op;
    sl_cexpr *cond;
    uint32_t *sel;
    uint32_t selcap;
    sl_block blk;
} op_filter;

static int filter_next(sl_op *o, sl_block **out, sl_error *err)
{
    op_filter *f = (op_filter *)o;
    for (;;) {
        sl_block *in;
        int rc = sl_op_next(o->child, &in, err);
        if (rc != 0 || in == NULL) {
            *out = NULL;
            return rc;
        }
        if (in->nrows > f->selcap) {
            uint32_t *p = realloc(f->sel, sizeof(uint32_t) * in->nrows);
            if (p == NULL)
                return oom(err);
            f->sel = p;
            f->selcap = in->nrows;
        }
        uint32_t k;
        rc = sl_cexpr_select(f->cond, in, f->sel, &k, err);
        if (rc != 0)
            return rc;
        if (k == 0)
            continue;
        if (k == in->nrows) {
            *out = in;
            return 0;
        }
        sl_block_fini(&f->blk);
        sl_block_init(&f->blk);
        if (block_like(&f->blk, in) != 0 || block_append(&f->blk, in, f->sel, 0, k) != 0)
            return oom(err);
        *out = &f->blk;
        return 0;
    }
}

static void filter_free(sl_op *o)
{
    op_filter *f = (op_filter *)o;
    sl_op_free(o->child);
    sl_cexpr_free(f->cond);
    free(f->sel);
    sl_block_fini(&f->blk);
    free(f);
}

static const sl_op_vt filter_vt = {.name = "Filter", .next = filter_next, .free = filter_free};

int sl_op_filter_new(sl_op *child, sl_cexpr *cond, sl_op **out, sl_error *err)
{
    op_filter *f = calloc(1, sizeof(*f));
    if (f == NULL) {
        sl_op_free(child);
        sl_cexpr_free(cond);
        return oom(err);
    }
    f->op.vt = &filter_vt;
    f->op.child = child;
    f->cond = cond;
    sl_block_init(&f->blk);
    *out = &f->op;
    return 0;
}

/* ------------------------------------------------------------ project */

typedef struct op_project {
    sl_op op;
    int n;
    sl_cexpr **exprs;
    sl_block blk;
} op_project;

static int project_next(sl_op *o, sl_block **out, sl_error *err)
{
    op_project *p = (op_project *)o;
    sl_block *in;
    int rc = sl_op_next(o->child, &in, err);
    if (rc != 0 || in == NULL) {
        *out = NULL;
        return rc;
    }
    sl_block_reset(&p->blk);
    for (int i = 0; i < p->n; i++) {
        const sl_column *c;
        rc = sl_cexpr_eval(p->exprs[i], in, &c, err);
        if (rc != 0)
            return rc;
        sl_column *dst = &p->blk.cols[i];
        if (c->type != dst->type) {
            /* A NULL literal evaluates to a BIGINT column of NULLs. */
            for (uint32_t r = 0; r < in->nrows; r++)
                if (sl_column_append_null(dst) != 0)
                    return oom(err);
            continue;
        }
        if (sl_column_append_rows(dst, c, NULL, 0, in->nrows) != 0)
            return oom(err);
    }
    p->blk.nrows = in->nrows;
    *out = &p->blk;
    return 0;
}

static void project_free(sl_op *o)
{
    op_project *p = (op_project *)o;
    sl_op_free(o->child);
    for (int i = 0; i < p->n; i++)
        sl_cexpr_free(p->exprs[i]);
    free(p->exprs);
    sl_block_fini(&p->blk);
    free(p);
}

static int project_describe(const sl_op *o, sl_buf *out)
{
    return sl_buf_printf(out, "columns=%d", ((const op_project *)o)->n);
}

static const sl_op_vt project_vt = {
    .name = "Project", .next = project_next, .free = project_free, .describe = project_describe};

int sl_op_project_new(sl_op *child, int n, sl_cexpr **exprs, sl_op **out, sl_error *err)
{
    op_project *p = calloc(1, sizeof(*p));
    sl_cexpr **ex = calloc((size_t)n + 1, sizeof(sl_cexpr *));
    if (p == NULL || ex == NULL) {
        free(p);
        free(ex);
        sl_op_free(child);
        for (int i = 0; i < n; i++)
            sl_cexpr_free(exprs[i]);
        return oom(err);
    }
    p->op.vt = &project_vt;
    p->op.child = child;
    p->n = n;
    p->exprs = ex;
    sl_block_init(&p->blk);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        ex[i] = exprs[i];
        sl_type t = sl_cexpr_type(exprs[i]);
        if (rc == 0 && sl_block_add_column(&p->blk, t == SL_T_NULL ? SL_T_BIGINT : t,
                                           sl_cexpr_width(exprs[i])) < 0)
            rc = SL_ENOMEM;
    }
    if (rc != 0) {
        project_free(&p->op);
        return oom(err);
    }
    *out = &p->op;
    return 0;
}

/* ------------------------------------------------------------ limit */

typedef struct op_limit {
    sl_op op;
    int64_t limit;  /* rows still to pass, < 0 unlimited */
    int64_t skip;   /* rows still to skip */
    sl_block blk;
} op_limit;

static int limit_next(sl_op *o, sl_block **out, sl_error *err)
{
    op_limit *l = (op_limit *)o;
    *out = NULL;
    for (;;) {
        if (l->limit == 0)
            return 0;
        sl_block *in;
        int rc = sl_op_next(o->child, &in, err);
        if (rc != 0 || in == NULL)
            return rc;
        uint32_t from = 0, n = in->nrows;
        if (l->skip >= n) {
            l->skip -= n;
            continue;
        }
        from = (uint32_t)l->skip;
        n -= from;
        l->skip = 0;
        if (l->limit >= 0 && (int64_t)n > l->limit)
            n = (uint32_t)l->limit;
        if (l->limit > 0)
            l->limit -= n;
        if (from == 0 && n == in->nrows) {
            *out = in;
            return 0;
        }
        sl_block_fini(&l->blk);
        sl_block_init(&l->blk);
        if (block_like(&l->blk, in) != 0 || block_append(&l->blk, in, NULL, from, n) != 0)
            return oom(err);
        *out = &l->blk;
        return 0;
    }
}

static void limit_free(sl_op *o)
{
    op_limit *l = (op_limit *)o;
    sl_op_free(o->child);
    sl_block_fini(&l->blk);
    free(l);
}

static const sl_op_vt limit_vt = {.name = "Limit", .next = limit_next, .free = limit_free};

int sl_op_limit_new(sl_op *child, int64_t limit, int64_t offset, sl_op **out, sl_error *err)
{
    op_limit *l = calloc(1, sizeof(*l));
    if (l == NULL) {
        sl_op_free(child);
        return oom(err);
    }
    l->op.vt = &limit_vt;
    l->op.child = child;
    l->limit = limit;
    l->skip = offset < 0 ? 0 : offset;
    sl_block_init(&l->blk);
    *out = &l->op;
    return 0;
}

/* ------------------------------------------------------------ concat */

typedef struct op_concat {
    sl_op op;
    int n;
    int cur;
    sl_op **children;
} op_concat;

static int concat_next(sl_op *o, sl_block **out, sl_error *err)
{
    op_concat *c = (op_concat *)o;
    for (; c->cur < c->n; c->cur++) {
        int rc = sl_op_next(c->children[c->cur], out, err);
        if (rc != 0 || *out != NULL)
            return rc;
    }
    *out = NULL;
    return 0;
}

static void concat_free(sl_op *o)
{
    op_concat *c = (op_concat *)o;
    for (int i = 0; i < c->n; i++)
        sl_op_free(c->children[i]);
    free(c->children);
    free(c);
}

static int concat_describe(const sl_op *o, sl_buf *out)
{
    return sl_buf_printf(out, "inputs=%d", ((const op_concat *)o)->n);
}

static const sl_op_vt concat_vt = {
    .name = "Concat", .next = concat_next, .free = concat_free, .describe = concat_describe};

int sl_op_concat_new(sl_op **children, int n, sl_op **out, sl_error *err)
{
    op_concat *c = calloc(1, sizeof(*c));
    sl_op **ch = calloc((size_t)n + 1, sizeof(sl_op *));
    if (c == NULL || ch == NULL) {
        free(c);
        free(ch);
        for (int i = 0; i < n; i++)
            sl_op_free(children[i]);
        return oom(err);
    }
    memcpy(ch, children, sizeof(sl_op *) * (size_t)n);
    c->op.vt = &concat_vt;
    c->n = n;
    c->children = ch;
    *out = &c->op;
    return 0;
}

/* ------------------------------------------------------------ trim */

typedef struct op_trim {
    sl_op op;
    int ncols;
    sl_block view; /* borrows the child's columns; never frees them */
} op_trim;

static int trim_next(sl_op *o, sl_block **out, sl_error *err)
{
    op_trim *t = (op_trim *)o;
    sl_block *in;
    int rc = sl_op_next(o->child, &in, err);
    if (rc != 0 || in == NULL) {
        *out = NULL;
        return rc;
    }
    t->view.cols = in->cols;
    t->view.nrows = in->nrows;
    t->view.ncols = (uint32_t)t->ncols < in->ncols ? (uint32_t)t->ncols : in->ncols;
    *out = &t->view;
    return 0;
}

static void trim_free(sl_op *o)
{
    sl_op_free(o->child);
    free(o);
}

static const sl_op_vt trim_vt = {.name = "Trim", .next = trim_next, .free = trim_free};

int sl_op_trim_new(sl_op *child, int ncols, sl_op **out, sl_error *err)
{
    op_trim *t = calloc(1, sizeof(*t));
    if (t == NULL) {
        sl_op_free(child);
        return oom(err);
    }
    t->op.vt = &trim_vt;
    t->op.child = child;
    t->ncols = ncols;
    *out = &t->op;
    return 0;
}

/* ------------------------------------------------------------ materialising operators */

/* Pulls all of child's rows into all (initialised, empty). */
static int gather(sl_op *child, sl_block *all, sl_error *err)
{
    bool first = true;
    for (;;) {
        sl_block *in;
        int rc = sl_op_next(child, &in, err);
        if (rc != 0)
            return rc;
        if (in == NULL)
            return 0;
        if (first) {
            if (block_like(all, in) != 0)
                return oom(err);
            first = false;
        }
        if (block_append(all, in, NULL, 0, in->nrows) != 0)
            return oom(err);
    }
}

/* Emits rows perm[pos..] of all in slices (perm NULL: identity). */
static int emit_slice(sl_block *all, const uint32_t *perm, uint32_t *pos, sl_block *blk,
                      sl_block **out, sl_error *err)
{
    *out = NULL;
    if (*pos >= all->nrows)
        return 0;
    uint32_t n = all->nrows - *pos;
    if (n > SL_BLOCK_ROWS_MAX)
        n = SL_BLOCK_ROWS_MAX;
    sl_block_fini(blk);
    sl_block_init(blk);
    if (block_like(blk, all) != 0 ||
        block_append(blk, all, perm ? perm + *pos : NULL, perm ? 0 : *pos, n) != 0)
        return oom(err);
    *pos += n;
    *out = blk;
    return 0;
}

typedef struct op_sort {
    sl_op op;
    int nkeys;
    sl_sort_key *keys;
    bool done;
    sl_block all;
    uint32_t *perm;
    uint32_t pos;
    sl_block blk;
} op_sort;

/* Compares rows a and b of column c: NULLs by nulls_first, values by sl_value_compare. */
static int sort_cmp_col(const sl_column *c, const sl_sort_key *k, uint32_t a, uint32_t b)
{
    bool na = sl_column_is_null(c, a), nb = sl_column_is_null(c, b);
    if (na || nb) {
        if (na && nb)
            return 0;
        return (na ? -1 : 1) * (k->nulls_first ? 1 : -1);
    }
    int r = 0;
    switch (c->type) {
    case SL_T_BIGINT: case SL_T_TIMESTAMP: {
        int64_t x = ((const int64_t *)c->data)[sl_column_phys(c, a)];
        int64_t y = ((const int64_t *)c->data)[sl_column_phys(c, b)];
        r = x < y ? -1 : x > y;
        break;
    }
    case SL_T_DOUBLE: {
        double x = ((const double *)c->data)[sl_column_phys(c, a)];
        double y = ((const double *)c->data)[sl_column_phys(c, b)];
        /* NaN sorts above every number and equals itself: a total order for qsort. */
        bool xn = isnan(x), yn = isnan(y);
        r = xn || yn ? (xn && yn ? 0 : xn ? 1 : -1) : (x < y ? -1 : x > y);
        break;
    }
    default: {
        sl_value x, y;
        sl_column_get(c, a, &x);
        sl_column_get(c, b, &y);
        if (sl_value_compare(&x, &y, SL_PREC_MS, &r) != 0)
            r = 0;
    }
    }
    return k->desc ? -r : r;
}

static int sort_cmp(const void *pa, const void *pb, void *ctx)
{
    const op_sort *sort_ctx = ctx;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    for (int i = 0; i < sort_ctx->nkeys; i++) {
        const sl_sort_key *k = &sort_ctx->keys[i];
        int r = sort_cmp_col(&sort_ctx->all.cols[k->col], k, a, b);
        if (r != 0)
            return r;
    }
    return a < b ? -1 : a > b; /* stable */
}

static int sort_next(sl_op *o, sl_block **out, sl_error *err)
{
    op_sort *s = (op_sort *)o;
    if (!s->done) {
        int rc = gather(o->child, &s->all, err);
        if (rc != 0)
            return rc;
        s->done = true;
        s->perm = malloc(sizeof(uint32_t) * ((size_t)s->all.nrows + 1));
        if (s->perm == NULL)
            return oom(err);
        for (uint32_t i = 0; i < s->all.nrows; i++)
            s->perm[i] = i;
        qsort_r(s->perm, s->all.nrows, sizeof(uint32_t), sort_cmp, s);
    }
    return emit_slice(&s->all, s->perm, &s->pos, &s->blk, out, err);
}

static void sort_free(sl_op *o)
{
    op_sort *s = (op_sort *)o;
    sl_op_free(o->child);
    free(s->keys);
    free(s->perm);
    sl_block_fini(&s->all);
    sl_block_fini(&s->blk);
    free(s);
}

static int sort_describe(const sl_op *o, sl_buf *out)
{
    const op_sort *s = (const op_sort *)o;
    int rc = sl_buf_printf(out, "keys=");
    for (int i = 0; i < s->nkeys && rc == 0; i++)
        rc = sl_buf_printf(out, "%s#%d%s", i ? "," : "", s->keys[i].col,
                           s->keys[i].desc ? " desc" : "");
    return rc;
}

static const sl_op_vt sort_vt = {
    .name = "Sort", .next = sort_next, .free = sort_free, .describe = sort_describe};

int sl_op_sort_new(sl_op *child, int nkeys, const sl_sort_key *keys, sl_op **out, sl_error *err)
{
    op_sort *s = calloc(1, sizeof(*s));
    if (s != NULL)
        s->keys = calloc((size_t)nkeys + 1, sizeof(sl_sort_key));
    if (s == NULL || s->keys == NULL) {
        free(s);
        sl_op_free(child);
        return oom(err);
    }
    memcpy(s->keys, keys, sizeof(sl_sort_key) * (size_t)nkeys);
    s->nkeys = nkeys;
    s->op.vt = &sort_vt;
    s->op.child = child;
    sl_block_init(&s->all);
    sl_block_init(&s->blk);
    *out = &s->op;
    return 0;
}

/* ------------------------------------------------------------ partition */

typedef struct op_partition {
    sl_op op;
    int nkeys;
    sl_cexpr **keys;
    bool done;
    sl_block all;
    uint32_t *perm;
    uint32_t pos;
    sl_block blk;
} op_partition;

static int partition_run(op_partition *p, sl_error *err)
{
    int rc = gather(p->op.child, &p->all, err);
    if (rc != 0)
        return rc;
    uint32_t n = p->all.nrows;
    uint32_t *part = malloc(sizeof(uint32_t) * ((size_t)n + 1));
    uint32_t *count = NULL;
    const sl_column **kc = calloc((size_t)p->nkeys + 1, sizeof(*kc));
    p->perm = malloc(sizeof(uint32_t) * ((size_t)n + 1));
    sl_buf kb;
    sl_buf_init(&kb);
    sl_keymap map;
    bool map_ok = sl_keymap_init(&map) == 0;
    if (part == NULL || kc == NULL || p->perm == NULL || !map_ok) {
        rc = oom(err);
        goto done;
    }
    for (int k = 0; k < p->nkeys && rc == 0; k++)
        rc = sl_cexpr_eval(p->keys[k], &p->all, &kc[k], err);
    if (rc != 0)
        goto done;
    for (uint32_t i = 0; i < n; i++) {
        sl_buf_reset(&kb);
        if (sl__key_bytes(kc, p->nkeys, i, &kb) != 0 ||
            sl_keymap_get_or_add(&map, kb.data, kb.len, &part[i], NULL) != 0) {
            rc = oom(err);
            goto done;
        }
    }
    /* Counting sort by partition id keeps rows in input order within a partition. */
    count = calloc((size_t)map.km_count + 1, sizeof(uint32_t));
    if (count == NULL) {
        rc = oom(err);
        goto done;
    }
    for (uint32_t i = 0; i < n; i++)
        count[part[i] + 1]++;
    for (uint32_t k = 0; k < map.km_count; k++)
        count[k + 1] += count[k];
    for (uint32_t i = 0; i < n; i++)
        p->perm[count[part[i]]++] = i;
done:
    free(part);
    free(count);
    free(kc);
    sl_buf_fini(&kb);
    if (map_ok)
        sl_keymap_fini(&map);
    return rc;
}

static int partition_next(sl_op *o, sl_block **out, sl_error *err)
{
    op_partition *p = (op_partition *)o;
    if (!p->done) {
        p->done = true;
        int rc = partition_run(p, err);
        if (rc != 0)
            return rc;
    }
    return emit_slice(&p->all, p->perm, &p->pos, &p->blk, out, err);
}

static void partition_free(sl_op *o)
{
    op_partition *p = (op_partition *)o;
    sl_op_free(o->child);
    for (int i = 0; i < p->nkeys; i++)
        sl_cexpr_free(p->keys[i]);
    free(p->keys);
    free(p->perm);
    sl_block_fini(&p->all);
    sl_block_fini(&p->blk);
    free(p);
}

static int partition_describe(const sl_op *o, sl_buf *out)
{
    return sl_buf_printf(out, "keys=%d", ((const op_partition *)o)->nkeys);
}

static const sl_op_vt partition_vt = {.name = "Partition",
                                      .next = partition_next,
                                      .free = partition_free,
                                      .describe = partition_describe};

int sl_op_partition_new(sl_op *child, int nkeys, sl_cexpr **keys, sl_op **out, sl_error *err)
{
    op_partition *p = calloc(1, sizeof(*p));
    sl_cexpr **k = calloc((size_t)nkeys + 1, sizeof(sl_cexpr *));
    if (p == NULL || k == NULL) {
        free(p);
        free(k);
        sl_op_free(child);
        for (int i = 0; i < nkeys; i++)
            sl_cexpr_free(keys[i]);
        return oom(err);
    }
    memcpy(k, keys, sizeof(sl_cexpr *) * (size_t)nkeys);
    p->op.vt = &partition_vt;
    p->op.child = child;
    p->nkeys = nkeys;
    p->keys = k;
    sl_block_init(&p->all);
    sl_block_init(&p->blk);
    *out = &p->op;
    return 0;
}

int sl__key_bytes(const sl_column **kc, int nkeys, uint32_t i, sl_buf *kb)
{
    for (int k = 0; k < nkeys; k++) {
        const sl_column *c = kc[k];
        if (sl_column_is_null(c, i)) {
            if (sl_buf_put_u8(kb, 0) != 0)
                return SL_ENOMEM;
            continue;
        }
        if (sl_buf_put_u8(kb, 1) != 0)
            return SL_ENOMEM;
        if (sl_type_is_var(c->type)) {
            uint32_t len;
            const char *s = sl_column_get_str(c, i, &len);
            if (sl_buf_put_u32(kb, len) != 0 || sl_buf_put(kb, s, len) != 0)
                return SL_ENOMEM;
        } else if (sl_type_is_float(c->type)) {
            /* Equal keys must give equal bytes: -0.0 is 0.0, and all NaNs are one key. */
            double d = sl_column_get_f64(c, i);
            if (d == 0)
                d = 0;
            else if (d != d)
                d = NAN;
            if (sl_buf_put(kb, &d, sizeof(d)) != 0)
                return SL_ENOMEM;
        } else {
            size_t sz = sl_type_size(c->type);
            if (sl_buf_put(kb, (const uint8_t *)c->data + sz * sl_column_phys(c, i), sz) != 0)
                return SL_ENOMEM;
        }
    }
    return 0;
}
