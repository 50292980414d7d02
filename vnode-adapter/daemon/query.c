/*
 * query.c - VNODE_QUERY: the PARTIAL half of a SELECT over one vgroup, paged.
 *
 * The statement is planned with SL_PLAN_PARTIAL against an sl_catalog over the vgroup:
 * names resolve through the vgroup's index (super tables as synced from the mnode, child
 * and normal tables as registered in the vstore); a super table's scan walks the local
 * children of that super table that the WHERE's tbname and tag equalities leave (see
 * "Child-table pruning"), delivering tags and tbname as the constant columns the vstore's
 * scans produce. Every scan of one query reads one vstore snapshot, whose version
 * the reply reports, so pages of a query never mix versions.
 *
 * A query whose output exceeds the request's max_bytes stays open as a cursor (at most
 * VN_MAX_CURSORS, each closed after VN_CURSOR_IDLE_MS without a continuation); the reply
 * carries its id and the next request continues it.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/exec/plan.h"
#include "common/sql/parser.h"
#include "common/util/arena.h"
#include "common/util/log.h"
#include "vdaemon.h"
#include "vrequest.h"
#include "vnode.pb-c.h"

#define VN_PAGE_DEFAULT (1u << 20)
#define VN_PAGE_MAX (16u << 20)


int64_t sl__vn_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Child-table pruning. A query reads one base table (the innermost FROM; the grammar has
 * no joins and no subqueries in expressions). When that is a super table, the AND-ed
 * conjuncts of that SELECT's WHERE of the forms
 *
 *     tbname = 'x'    tbname IN ('x', 'y', ...)    tag = <integer>    tag = 'x'    tag IS NULL
 *
 * (either side for =) say which child tables can have a row at all; the scan opens only
 * those, instead of a vstore scan per child table of the vgroup for every query - the
 * cost of a stream's %%trows over a group of a tag grouping or a ROLLUP BY node, and of
 * any `WHERE tbname = ...` query. The filter itself still runs over the rows, so pruning
 * only has to be conservative: a conjunct of another form, or a tag whose type and literal
 * are not integer/integer or string/string, prunes nothing. Comparisons are those of the
 * executor: integers by value, strings by bytes (sl_value_compare), NULL equal to nothing.
 */
#define QP_MAX_TERMS 16

typedef enum { QP_TBNAME, QP_TAG_INT, QP_TAG_STR, QP_TAG_NULL } qp_kind;

typedef struct qp_term {
    qp_kind kind;
    const char *tag;       /* QP_TAG_*: the tag's name */
    int64_t i;             /* QP_TAG_INT */
    int nstr;              /* QP_TBNAME: names; QP_TAG_STR: 1 */
    const char **str;      /* arena copies */
    uint32_t *len;
} qp_term;

typedef struct qp_prune {
    const char *table;     /* the base table as named in FROM (NULL: no pruning) */
    const char *alias;
    int nterms;
    qp_term terms[QP_MAX_TERMS];
} qp_prune;

/* The catalog of one query: the vgroup at one snapshot. Metas live in the arena. */
typedef struct vn_qctx {
    vn_vgroup *vg;
    sl_vs_snapshot *snap;
    sl_arena arena;
    qp_prune prune;
    bool missing;           /* a table the query names is not in the vgroup (q_get_table) */
} vn_qctx;

struct vn_cursor {
    vn_cursor *next;
    uint64_t id;
    vn_vgroup *vg;
    vn_qctx *q;
    sl_plan *plan;
    int64_t last_used;
    sl_buf pending; /* an encoded block that did not fit the previous page */
};

/* ---------------------------------------------------------------- catalog */

static sl_field *arena_fields(sl_arena *a, const sl_field *f, int n)
{
    sl_field *v = sl_arena_alloc(a, sizeof(*v) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; v && i < n; i++) {
        v[i] = f[i];
        v[i].name = sl_arena_strdup(a, f[i].name);
        if (v[i].name == NULL)
            return NULL;
    }
    return v;
}

static sl_field *arena_vs_fields(sl_arena *a, const sl_vs_column *c, uint32_t n)
{
    sl_field *v = sl_arena_alloc(a, sizeof(*v) * (n > 0 ? n : 1));
    for (uint32_t i = 0; v && i < n; i++) {
        v[i].name = sl_arena_strdup(a, c[i].name);
        v[i].type = c[i].type;
        v[i].width = c[i].width;
        if (v[i].name == NULL)
            return NULL;
    }
    return v;
}

static int q_get_table(void *ud, const char *db, const char *name, sl_table_meta *out,
                       sl_error *err)
{
    vn_qctx *q = ud;
    vn_vgroup *vg = q->vg;
    if (db != NULL && vg->vg_db[0] != '\0' && strcasecmp(db, vg->vg_db) != 0)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "database '%s' is not in vgroup %u", db,
                            vg->vg_id);
    memset(out, 0, sizeof(*out));
    out->db = sl_arena_strdup(&q->arena, vg->vg_db);
    out->precision = vg->vg_prec;
    const vn_stable *st = sl__vn_stable_by_name(vg, name);
    if (st != NULL) {
        out->kind = SL_TABLE_SUPER;
        out->name = sl_arena_strdup(&q->arena, st->name);
        out->ncols = st->ncols;
        out->cols = arena_fields(&q->arena, st->cols, st->ncols);
        out->ntags = st->ntags;
        out->tags = arena_fields(&q->arena, st->tags, st->ntags);
    } else {
        const vn_table *t = sl__vn_table_by_name(vg, name);
        const sl_vs_table_def *d;
        if (t == NULL || sl_vstore_table_acquire(vg->vg_vs, t->uid, &d, NULL) < 0) {
            q->missing = true;
            return sl_error_set(err, SL_ENOTFOUND, 0, 0,
                                "table '%s' does not exist in vgroup %u of database '%s'", name,
                                vg->vg_id, vg->vg_db);
        }
        out->kind = d->kind == SL_VS_TABLE_CHILD ? SL_TABLE_CHILD : SL_TABLE_NORMAL;
        out->name = sl_arena_strdup(&q->arena, d->name);
        out->precision = d->precision;
        out->ncols = (int)d->ncols;
        out->cols = arena_vs_fields(&q->arena, d->cols, d->ncols);
        out->ntags = (int)d->ntags;
        out->tags = arena_vs_fields(&q->arena, d->tags, d->ntags);
        sl_vstore_table_release(d);
    }
    if (out->db == NULL || out->name == NULL || out->cols == NULL || out->tags == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    return 0;
}

/* ---------------------------------------------------------------- pruning */

/* The column e names when it is a column of the base table (unqualified, or qualified by
 * its name or alias); NULL otherwise. */
static const char *qp_column(const qp_prune *pr, const sl_expr *e)
{
    if (e == NULL || e->kind != SL_EX_COLUMN)
        return NULL;
    const char *q = e->u.column.table;
    if (q != NULL && strcasecmp(q, pr->table) != 0 &&
        (pr->alias == NULL || strcasecmp(q, pr->alias) != 0))
        return NULL;
    return e->u.column.name;
}

/* An integer literal (with an optional unary minus) into *v. */
static bool qp_int(const sl_expr *e, int64_t *v)
{
    if (e != NULL && e->kind == SL_EX_UNARY && e->u.unary.op == SL_OP_NEG) {
        const sl_expr *a = e->u.unary.arg;
        if (a == NULL || a->kind != SL_EX_LITERAL || a->u.lit.kind != SL_LIT_INT ||
            a->u.lit.i == INT64_MIN)
            return false;
        *v = -a->u.lit.i;
        return true;
    }
    if (e == NULL || e->kind != SL_EX_LITERAL || e->u.lit.kind != SL_LIT_INT)
        return false;
    *v = e->u.lit.i;
    return true;
}

static bool qp_str(const sl_expr *e)
{
    return e != NULL && e->kind == SL_EX_LITERAL && e->u.lit.kind == SL_LIT_STRING;
}

static bool qp_strings(sl_arena *a, qp_term *t, const sl_expr *const *items, int n)
{
    t->str = sl_arena_alloc(a, (size_t)n * sizeof(*t->str));
    t->len = sl_arena_alloc(a, (size_t)n * sizeof(*t->len));
    if (t->str == NULL || t->len == NULL)
        return false;
    for (int i = 0; i < n; i++) {
        if (!qp_str(items[i]))
            return false;
        t->str[i] = sl_arena_strndup(a, items[i]->u.lit.s, items[i]->u.lit.len);
        t->len[i] = items[i]->u.lit.len;
        if (t->str[i] == NULL)
            return false;
    }
    t->nstr = n;
    return true;
}

/* Adds the prune term of conjunct e, if it has one of the forms above. */
static void qp_conjunct(sl_arena *a, qp_prune *pr, const sl_expr *e)
{
    if (e == NULL || pr->nterms == QP_MAX_TERMS)
        return;
    if (e->kind == SL_EX_BINARY && e->u.binary.op == SL_OP_AND) {
        qp_conjunct(a, pr, e->u.binary.left);
        qp_conjunct(a, pr, e->u.binary.right);
        return;
    }
    qp_term t = {0};
    const char *col = NULL;
    if (e->kind == SL_EX_BINARY && e->u.binary.op == SL_OP_EQ) {
        const sl_expr *l = e->u.binary.left, *r = e->u.binary.right;
        if ((col = qp_column(pr, l)) == NULL) {
            const sl_expr *x = l;
            l = r;
            r = x;
            col = qp_column(pr, l);
        }
        if (col == NULL)
            return;
        if (strcasecmp(col, "tbname") == 0) {
            t.kind = QP_TBNAME;
            if (!qp_strings(a, &t, &r, 1))
                return;
        } else if (qp_int(r, &t.i)) {
            t.kind = QP_TAG_INT;
        } else if (qp_str(r)) {
            t.kind = QP_TAG_STR;
            if (!qp_strings(a, &t, &r, 1))
                return;
        } else {
            return;
        }
    } else if (e->kind == SL_EX_IN && !e->u.in.negated && e->u.in.list.n > 0 &&
               (col = qp_column(pr, e->u.in.arg)) != NULL && strcasecmp(col, "tbname") == 0) {
        t.kind = QP_TBNAME;
        if (!qp_strings(a, &t, (const sl_expr *const *)e->u.in.list.items, e->u.in.list.n))
            return;
    } else if (e->kind == SL_EX_ISNULL && !e->u.isnull.negated &&
               (col = qp_column(pr, e->u.isnull.arg)) != NULL && strcasecmp(col, "tbname") != 0) {
        t.kind = QP_TAG_NULL;
    } else {
        return;
    }
    if (t.kind != QP_TBNAME && (t.tag = sl_arena_strdup(a, col)) == NULL)
        return;
    pr->terms[pr->nterms++] = t;
}

/* Fills q->prune from the statement: the innermost SELECT's FROM table and WHERE. */
static void qp_build(vn_qctx *q, const sl_select *sel)
{
    memset(&q->prune, 0, sizeof(q->prune));
    while (sel != NULL && sel->from != NULL && sel->from->kind == SL_FROM_SUBQUERY)
        sel = sel->from->subquery;
    if (sel == NULL || sel->from == NULL || sel->from->kind != SL_FROM_TABLE ||
        sel->from->table.name == NULL || sel->where == NULL)
        return;
    qp_prune *pr = &q->prune;
    pr->table = sl_arena_strdup(&q->arena, sel->from->table.name);
    pr->alias = sel->from->alias ? sl_arena_strdup(&q->arena, sel->from->alias) : NULL;
    if (pr->table == NULL)
        return;
    qp_conjunct(&q->arena, pr, sel->where);
    if (pr->nterms == 0)
        pr->table = NULL;
}

/* Whether child table `t` of super table m can have rows the query keeps. */
static bool qp_keep(const vn_qctx *q, const sl_table_meta *m, const vn_table *t)
{
    const qp_prune *pr = &q->prune;
    const sl_vs_table_def *d = NULL;
    bool keep = true;
    for (int i = 0; keep && i < pr->nterms; i++) {
        const qp_term *x = &pr->terms[i];
        if (x->kind == QP_TBNAME) {
            size_t n = strlen(t->name);
            bool any = false;
            for (int k = 0; !any && k < x->nstr; k++)
                any = x->len[k] == n && memcmp(x->str[k], t->name, n) == 0;
            keep = any;
            continue;
        }
        int tag = -1;
        for (int k = 0; k < m->ntags && tag < 0; k++)
            if (strcasecmp(m->tags[k].name, x->tag) == 0)
                tag = k;
        if (tag < 0)
            continue; /* a data column: no pruning */
        if (d == NULL && sl_vstore_table_acquire(q->vg->vg_vs, t->uid, &d, NULL) < 0) {
            d = NULL;
            break; /* unknown here: let the scan decide */
        }
        if (d->tag_values == NULL || (uint32_t)tag >= d->tag_values->ncols ||
            d->tag_values->nrows < 1)
            continue;
        sl_value v;
        sl_column_get(&d->tag_values->cols[tag], 0, &v);
        sl_type ty = m->tags[tag].type;
        if (x->kind == QP_TAG_NULL) {
            keep = v.is_null;
        } else if (x->kind == QP_TAG_INT && sl_type_is_int(ty) && ty == v.type) {
            if (v.is_null)
                keep = false;
            else if (sl_type_is_unsigned_int(ty))
                keep = x->i >= 0 && v.v.u == (uint64_t)x->i;
            else
                keep = v.v.i == x->i;
        } else if (x->kind == QP_TAG_STR && (ty == SL_T_VARCHAR || ty == SL_T_NCHAR) &&
                   ty == v.type) {
            keep = !v.is_null && v.v.s.len == x->len[0] &&
                   (x->len[0] == 0 || memcmp(v.v.s.ptr, x->str[0], x->len[0]) == 0);
        }
    }
    if (d != NULL)
        sl_vstore_table_release(d);
    return keep;
}

typedef struct vn_qscan {
    vn_qctx *q;
    uint64_t *uids; /* the tables to scan, fixed at open */
    size_t n, cur;
    sl_vs_scan *scan; /* of uids[cur], or NULL */
    int *proj;
    int nproj;
    int64_t lo, hi;
    sl_type *types; /* of the projection, for an empty result */
    uint32_t *widths;
} vn_qscan;

static void q_scan_close(void *cursor)
{
    vn_qscan *s = cursor;
    if (s == NULL)
        return;
    sl_vstore_scan_close(s->scan);
    free(s->uids);
    free(s->proj);
    free(s->types);
    free(s->widths);
    free(s);
}

static int q_scan_open(void *ud, const sl_scan_req *req, void **cursor, sl_error *err)
{
    vn_qctx *q = ud;
    vn_vgroup *vg = q->vg;
    const sl_table_meta *m = req->table;
    vn_qscan *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return SL_ENOMEM;
    s->q = q;
    s->nproj = req->nproj;
    s->lo = req->ts_lo;
    s->hi = req->ts_hi;
    size_t np = (size_t)(req->nproj > 0 ? req->nproj : 1);
    s->proj = malloc(np * sizeof(int));
    s->types = malloc(np * sizeof(sl_type));
    s->widths = malloc(np * sizeof(uint32_t));
    /* One table, or a super table's children (counted below): not the whole vgroup's
     * table count per query, which made every query a large allocation. */
    s->uids = malloc(sizeof(uint64_t));
    if (s->proj == NULL || s->types == NULL || s->widths == NULL || s->uids == NULL) {
        q_scan_close(s);
        return SL_ENOMEM;
    }
    for (int i = 0; i < req->nproj; i++) {
        int p = req->proj[i];
        s->proj[i] = p;
        if (p == SL_PROJ_TBNAME) {
            s->types[i] = SL_T_VARCHAR;
            s->widths[i] = SL_TABLE_NAME_MAX;
        } else if (p >= 0 && p < m->ncols) {
            s->types[i] = m->cols[p].type;
            s->widths[i] = m->cols[p].width;
        } else if (p >= m->ncols && p < m->ncols + m->ntags) {
            s->types[i] = m->tags[p - m->ncols].type;
            s->widths[i] = m->tags[p - m->ncols].width;
        } else {
            q_scan_close(s);
            return sl_error_set(err, SL_EINVAL, 0, 0, "scan of '%s' asks for column %d", m->name,
                                p);
        }
    }
    if (m->kind == SL_TABLE_SUPER) {
        const vn_stable *st = sl__vn_stable_by_name(vg, m->name);
        bool prune = q->prune.table != NULL && strcasecmp(q->prune.table, m->name) == 0;
        size_t cap = 1;
        for (int i = 0; st && i < vg->vg_ntables; i++) {
            const vn_table *t = &vg->vg_tables[i];
            if (t->kind != SL_TABLE_CHILD || t->suid != st->uid || (prune && !qp_keep(q, m, t)))
                continue;
            if (s->n == cap) {
                cap *= 2;
                uint64_t *nu = realloc(s->uids, cap * sizeof(*nu));
                if (nu == NULL) {
                    q_scan_close(s);
                    return SL_ENOMEM;
                }
                s->uids = nu;
            }
            s->uids[s->n++] = t->uid;
        }
    } else {
        const vn_table *t = sl__vn_table_by_name(vg, m->name);
        if (t != NULL)
            s->uids[s->n++] = t->uid;
    }
    *cursor = s;
    return 0;
}

static int q_scan_next(void *cursor, sl_block *out, sl_error *err)
{
    vn_qscan *s = cursor;
    while (s->cur < s->n) {
        if (s->scan == NULL) {
            sl_error e = {0};
            int rc = sl_vstore_scan_open(s->q->vg->vg_vs, s->q->snap, s->uids[s->cur], s->proj,
                                         s->nproj, s->lo, s->hi, &s->scan, &e);
            if (rc == SL_ENOTFOUND) { /* dropped meanwhile */
                s->cur++;
                continue;
            }
            if (rc < 0)
                return sl_error_set(err, rc, 0, 0, "%s", e.msg);
        }
        int rc = sl_vstore_scan_next(s->scan, out, err);
        if (rc < 0)
            return rc;
        if (out->nrows > 0)
            return 0;
        sl_vstore_scan_close(s->scan);
        s->scan = NULL;
        s->cur++;
    }
    /* The end: an empty block with the projection's columns. */
    sl_block_fini(out);
    sl_block_init(out);
    for (int i = 0; i < s->nproj; i++) {
        int rc = sl_block_add_column(out, s->types[i], s->widths[i]);
        if (rc < 0)
            return rc;
    }
    out->nrows = 0;
    return 0;
}

static const sl_catalog_ops vn_catalog_ops = {
    .get_table = q_get_table,
    .scan_open = q_scan_open,
    .scan_next = q_scan_next,
    .scan_close = q_scan_close,
};

/* ---------------------------------------------------------------- cursors */

static void cursor_free(vn_cursor *c)
{
    if (c == NULL)
        return;
    sl_plan_free(c->plan);
    if (c->q != NULL) {
        sl_vstore_snapshot_close(c->q->snap);
        sl_arena_fini(&c->q->arena);
        free(c->q);
    }
    sl_buf_fini(&c->pending);
    free(c);
}

static void cursor_unlink(sl_vdaemon *vd, vn_cursor *c)
{
    vn_cursor **pp = &vd->vd_cursors;
    while (*pp != NULL && *pp != c)
        pp = &(*pp)->next;
    if (*pp == c) {
        *pp = c->next;
        vd->vd_ncursors--;
    }
}

void sl__vn_cursors_sweep(sl_vdaemon *vd, int64_t now_ms, const vn_vgroup *vg)
{
    vn_cursor **pp = &vd->vd_cursors;
    while (*pp != NULL) {
        vn_cursor *c = *pp;
        bool drop = vg != NULL ? c->vg == vg : now_ms - c->last_used > VN_CURSOR_IDLE_MS;
        if (vg == NULL && now_ms == 0)
            drop = true;
        if (drop) {
            *pp = c->next;
            vd->vd_ncursors--;
            cursor_free(c);
        } else {
            pp = &c->next;
        }
    }
}

/* Starts a cursor for rq's SELECT; *missing: it failed because a table it names is not in
 * the vgroup (as far as the vgroup's copy of the catalog knows). */
static int cursor_start(sl_vdaemon *vd, vn_vgroup *vg, const Sluice__QueryRequest *rq,
                        vn_cursor **out, bool *missing, sl_error *err)
{
    *missing = false;
    (void)vd;
    vn_cursor *c = calloc(1, sizeof(*c));
    vn_qctx *q = calloc(1, sizeof(*q));
    sl_parse_result *pr = NULL;
    int rc = 0;
    if (c == NULL || q == NULL) {
        free(c);
        free(q);
        return SL_ENOMEM;
    }
    sl_buf_init(&c->pending);
    sl_arena_init(&q->arena);
    q->vg = vg;
    c->q = q;
    c->vg = vg;
    rc = sl__vn_query_parse(rq, &pr, err);
    if (rc < 0)
        goto fail;
    rc = sl_vstore_snapshot_open(vg->vg_vs, &q->snap, err);
    if (rc < 0)
        goto fail;
    sl_plan_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.catalog.ops = &vn_catalog_ops;
    ctx.catalog.ud = q;
    ctx.db = rq->db[0] ? rq->db : (vg->vg_db[0] ? vg->vg_db : NULL);
    ctx.now_ms = rq->now_ms ? rq->now_ms : sl__vn_now_ms();
    ctx.mode = SL_PLAN_PARTIAL;
    qp_build(q, pr->stmts[0]->u.select);
    rc = sl_plan_select(pr->stmts[0]->u.select, &ctx, &c->plan, err);
    if (rc < 0)
        goto fail;
    sl_parse_result_free(pr);
    *out = c;
    return 0;
fail:
    *missing = q->missing;
    sl_parse_result_free(pr);
    cursor_free(c);
    return rc;
}

/* ---------------------------------------------------------------- VNODE_QUERY */

void sl__vn_query(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_vdaemon *vd = ud;
    Sluice__QueryRequest *rq = sluice__query_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed QueryRequest");
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    vn_cursor *c = NULL;
    bool fresh = false;
    int rc = 0;
    size_t nb = 0, capb = 0, total = 0;
    sl_buf *bufs = NULL;
    vn_vgroup *vg = sl__vn_find(vd, rq->vgroup_id);
    if (vg == NULL && sl__vn_refresh_now(vd) == 0)
        vg = sl__vn_find(vd, rq->vgroup_id);
    if (vg == NULL && vd->vd_node_id == 0) {
        rc = sl_error_set(&err, SL_EUNAVAILABLE, 0, 0,
                          "vnode is starting: not registered with the mnode yet");
        goto fail;
    }
    if (vg == NULL) {
        rc = sl_error_set(&err, SL_ENOTFOUND, 0, 0, "vgroup %u is not hosted by this vnode",
                          rq->vgroup_id);
        goto fail;
    }
    uint32_t max_bytes = rq->max_bytes == 0 ? VN_PAGE_DEFAULT : rq->max_bytes;
    if (max_bytes > VN_PAGE_MAX)
        max_bytes = VN_PAGE_MAX;
    if (rq->cursor != 0) {
        for (c = vd->vd_cursors; c != NULL && c->id != rq->cursor; c = c->next)
            ;
        if (c == NULL || c->vg != vg) {
            c = NULL;
            rc = sl_error_set(&err, SL_ENOTFOUND, 0, 0,
                              "query cursor %" PRIu64 " is unknown or expired", rq->cursor);
            goto fail;
        }
        cursor_unlink(vd, c);
    } else {
        if (vd->vd_ncursors >= VN_MAX_CURSORS) {
            rc = sl_error_set(&err, SL_ELIMIT, 0, 0, "too many open queries (%d)",
                              VN_MAX_CURSORS);
            goto fail;
        }
        bool missing;
        rc = cursor_start(vd, vg, rq, &c, &missing, &err);
        if (rc == SL_ENOTFOUND && missing && sl__vn_sync_now(vd, vg, NULL) == 0) {
            /* Perhaps created on the mnode since our last sync (the client found it
             * there): a query right after CREATE TABLE sees the table, as a write does. */
            sl_error_clear(&err);
            rc = cursor_start(vd, vg, rq, &c, &missing, &err);
        }
        if (rc < 0)
            goto fail;
        fresh = true;
        c->id = ++vd->vd_next_cursor;
    }
    bool done = false;
    for (;;) {
        if (nb == capb) {
            size_t cap = capb ? capb * 2 : 8;
            sl_buf *p = realloc(bufs, cap * sizeof(*p));
            if (p == NULL) {
                rc = sl_error_set(&err, SL_ENOMEM, 0, 0, "out of memory");
                goto fail;
            }
            bufs = p;
            capb = cap;
        }
        sl_buf_init(&bufs[nb]);
        if (c->pending.len > 0) {
            bufs[nb] = c->pending;
            sl_buf_init(&c->pending);
            total += bufs[nb++].len;
            continue;
        }
        if (total >= max_bytes)
            break;
        sl_block *b = NULL;
        rc = sl_plan_next(c->plan, &b, &err);
        if (rc < 0)
            goto fail;
        if (b == NULL) {
            done = true;
            break;
        }
        if (b->nrows == 0)
            continue;
        rc = sl_block_encode(b, &bufs[nb]);
        if (rc < 0) {
            sl_error_set(&err, rc, 0, 0, "cannot encode a result block");
            goto fail;
        }
        if (nb > 0 && total + bufs[nb].len > max_bytes) {
            c->pending = bufs[nb];
            sl_buf_init(&bufs[nb]);
            break;
        }
        total += bufs[nb++].len;
    }
    Sluice__QueryReply rp = SLUICE__QUERY_REPLY__INIT;
    ProtobufCBinaryData *bd = calloc(nb + 1, sizeof(*bd));
    if (bd == NULL) {
        rc = sl_error_set(&err, SL_ENOMEM, 0, 0, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < nb; i++) {
        bd[i].data = bufs[i].data;
        bd[i].len = bufs[i].len;
    }
    rp.n_blocks = nb;
    rp.blocks = bd;
    rp.version = sl_vs_snapshot_version(c->q->snap);
    if (done) {
        rp.cursor = 0;
        sl_rpc_reply_msg(reply, &rp.base);
        cursor_free(c);
    } else {
        rp.cursor = c->id;
        c->last_used = sl__vn_now_ms();
        c->next = vd->vd_cursors;
        vd->vd_cursors = c;
        vd->vd_ncursors++;
        sl_rpc_reply_msg(reply, &rp.base);
    }
    free(bd);
    goto out;
fail:
    (void)fresh;
    cursor_free(c);
    if (err.code == 0)
        sl_error_set(&err, rc, 0, 0, "%s", sl_strerror(rc));
    sl_rpc_reply_error(reply, &err);
out:
    for (size_t i = 0; bufs != NULL && i <= nb && i < capb; i++)
        sl_buf_fini(&bufs[i]);
    free(bufs);
    sluice__query_request__free_unpacked(rq, NULL);
}
