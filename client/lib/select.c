/*
 * select.c - distributed SELECT: plan here, scan and partially aggregate on the vnodes,
 * merge here.
 *
 * The statement is planned with the shared planner in SL_PLAN_MERGE mode over the
 * metadata cache. For every table the query reads, the planner asks open_remote for the
 * PARTIAL output of the statement; it gets one remote source operator per vgroup that
 * holds the table (every vgroup of the database for a super table, the owning one for a
 * child or normal table), concatenated with sl_op_concat_new. A remote source sends the
 * SELECT text with the statement's NOW to its vnode (VNODE_QUERY), which runs the PARTIAL
 * plan over that vgroup, and pages the encoded blocks in with the reply's cursor. The
 * first pages of all vgroups are fetched concurrently, one thread per vgroup. The
 * merge aggregate, HAVING, projection, ORDER BY and LIMIT then run here, so the result is
 * what one node holding every table would give.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/exec/exec.h"
#include "common/exec/plan.h"
#include "sluice_int.h"
#include "vnode.pb-c.h"

/* Largest reply page asked of a vnode. */
#define REMOTE_PAGE_BYTES (4u << 20)

/* A source operator reading one vgroup's PARTIAL output. */
typedef struct remote_op {
    sl_op base;
    sl_conn *r_conn;      /* borrowed: outlives the plan */
    uint32_t r_vg;        /* vgroup id */
    char *r_addr;         /* vnode address (owned) */
    char *r_db;           /* database for unqualified names, may be NULL (owned) */
    char *r_sql;          /* the SELECT text (owned) */
    int64_t r_now_ms;     /* the statement's NOW */
    uint64_t r_cursor;    /* next page's cursor */
    bool r_started;       /* the first page was asked for */
    bool r_done;          /* the vnode said there is nothing more */
    sl_block *r_blocks;   /* decoded blocks of the current page */
    size_t r_nblocks;
    size_t r_next;        /* next block of the page to hand out */
} remote_op;

static void page_clear(remote_op *r)
{
    for (size_t i = 0; i < r->r_nblocks; i++)
        sl_block_fini(&r->r_blocks[i]);
    free(r->r_blocks);
    r->r_blocks = NULL;
    r->r_nblocks = r->r_next = 0;
}

/* Fetches the next page from the vnode. */
static int fetch_page(remote_op *r, sl_error *err)
{
    page_clear(r);
    Sluice__QueryRequest req = SLUICE__QUERY_REQUEST__INIT;
    req.vgroup_id = r->r_vg;
    req.db = r->r_db != NULL ? r->r_db : "";
    req.sql = r->r_sql;
    req.now_ms = r->r_now_ms;
    req.cursor = r->r_cursor;
    req.max_bytes = REMOTE_PAGE_BYTES;
    sl_buf b;
    sl_buf_init(&b);
    if (sl_buf_reserve(&b, sluice__query_request__get_packed_size(&req)) < 0)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    b.len = sluice__query_request__pack(&req, b.data);
    int rc = sl__vnode_call(r->r_conn, r->r_addr, SLUICE__VNODE_METHOD__VNODE_QUERY, b.data,
                            b.len, &b, err);
    r->r_started = true;
    if (rc < 0) {
        sl_buf_fini(&b);
        return rc;
    }
    Sluice__QueryReply *rep = sluice__query_reply__unpack(NULL, b.len, b.data);
    sl_buf_fini(&b);
    if (rep == NULL)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed Query reply from vgroup %u",
                            r->r_vg);
    if (rep->n_blocks > 0) {
        r->r_blocks = calloc(rep->n_blocks, sizeof(sl_block));
        if (r->r_blocks == NULL) {
            sluice__query_reply__free_unpacked(rep, NULL);
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        }
    }
    for (size_t i = 0; i < rep->n_blocks; i++) {
        sl_block_init(&r->r_blocks[i]);
        r->r_nblocks++;
        rc = sl_block_decode(rep->blocks[i].data, rep->blocks[i].len, &r->r_blocks[i], err);
        if (rc < 0)
            break;
    }
    /* A cursor that does not move would loop forever: treat it as the end. */
    if (rep->cursor == 0 || rep->cursor == r->r_cursor)
        r->r_done = true;
    r->r_cursor = rep->cursor;
    sluice__query_reply__free_unpacked(rep, NULL);
    return rc;
}

static int remote_next(sl_op *op, sl_block **out, sl_error *err)
{
    remote_op *r = (remote_op *)op;
    *out = NULL;
    for (;;) {
        while (r->r_next < r->r_nblocks) {
            sl_block *b = &r->r_blocks[r->r_next++];
            if (b->nrows > 0) {
                *out = b;
                return 0;
            }
        }
        if (r->r_started && r->r_done)
            return 0;
        r->r_conn->c_stats.vnode_queries++;
        int rc = fetch_page(r, err);
        if (rc < 0)
            return rc;
    }
}

static void remote_free(sl_op *op)
{
    remote_op *r = (remote_op *)op;
    page_clear(r);
    free(r->r_addr);
    free(r->r_db);
    free(r->r_sql);
    free(r);
}

static int remote_describe(const sl_op *op, sl_buf *out)
{
    const remote_op *r = (const remote_op *)op;
    return sl_buf_printf(out, "vgroup=%u vnode=%s", r->r_vg, r->r_addr);
}

static const sl_op_vt remote_vt = {
    .name = "Remote",
    .next = remote_next,
    .free = remote_free,
    .describe = remote_describe,
};

static int remote_new(sl_conn *c, const sl__vgroup *vg, const char *sql, sl_op **out,
                      sl_error *err)
{
    remote_op *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    r->base.vt = &remote_vt;
    r->r_conn = c;
    r->r_vg = vg->vg_id;
    r->r_now_ms = c->c_now_ms;
    r->r_addr = strdup(vg->vg_addr);
    r->r_sql = strdup(sql);
    r->r_db = c->c_db != NULL ? strdup(c->c_db) : NULL;
    if (r->r_addr == NULL || r->r_sql == NULL || (c->c_db != NULL && r->r_db == NULL)) {
        remote_free(&r->base);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    *out = &r->base;
    return 0;
}

/* ---------------------------------------------------------------- parallel first pages */

/* One vgroup's first page, fetched on its own thread. */
typedef struct prefetch {
    remote_op *p_op;
    int p_rc;
    sl_error p_err;
} prefetch;

static void *prefetch_main(void *arg)
{
    prefetch *p = arg;
    sl_error_clear(&p->p_err);
    p->p_rc = fetch_page(p->p_op, &p->p_err);
    return NULL;
}

/*
 * Asks every vgroup for its first page at once, so a query over n vgroups waits for the
 * slowest vnode rather than for the sum of them (most partial aggregates fit one page).
 * The vnode clients are opened first: the threads only read the connection's client list,
 * and each call runs on its own nng context. Falls back to fetching in the caller when a
 * thread cannot start.
 */
static int prefetch_all(sl_conn *c, remote_op **ops, int n, sl_error *err)
{
    for (int i = 0; i < n; i++) {
        int rc = sl__vnode_open(c, ops[i]->r_addr, err);
        if (rc < 0)
            return rc;
    }
    prefetch *pf = calloc((size_t)n, sizeof(*pf));
    pthread_t *th = calloc((size_t)n, sizeof(*th));
    bool *started = calloc((size_t)n, sizeof(bool));
    if (pf == NULL || th == NULL || started == NULL) {
        free(pf);
        free(th);
        free(started);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    c->c_stats.vnode_queries += (uint64_t)n;
    for (int i = 0; i < n; i++) {
        pf[i].p_op = ops[i];
        started[i] = pthread_create(&th[i], NULL, prefetch_main, &pf[i]) == 0;
        if (!started[i])
            prefetch_main(&pf[i]);
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        if (pf[i].p_rc < 0 && rc == 0) {
            rc = pf[i].p_rc;
            if (err != NULL && err->code == 0)
                *err = pf[i].p_err;
        }
    }
    free(pf);
    free(th);
    free(started);
    return rc;
}

/* The planner's open_remote: one remote source per vgroup holding the table. */
static int open_remote(void *ud, const sl_select *sel, const sl_table_meta *meta, sl_op **out,
                       sl_error *err)
{
    sl_conn *c = ud;
    sl__meta *m;
    int rc = sl__meta_get(c, meta->db, meta->name, &m, err);
    if (rc < 0)
        return rc;
    int nvg = m->m_tm.kind == SL_TABLE_SUPER ? m->m_nvg : 1;
    const sl__vgroup *vgs = m->m_tm.kind == SL_TABLE_SUPER ? m->m_vgs : &m->m_vg;
    if (nvg == 0 || vgs[0].vg_addr == NULL)
        return sl_error_set(err, SL_EUNAVAILABLE, 0, 0, "table '%s' has no vgroup to read",
                            m->m_name);
    sl_op **kids = calloc((size_t)nvg, sizeof(*kids));
    if (kids == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    for (int i = 0; i < nvg; i++) {
        if ((rc = remote_new(c, &vgs[i], sel->text, &kids[i], err)) < 0) {
            for (int j = 0; j < i; j++)
                sl_op_free(kids[j]);
            free(kids);
            return rc;
        }
    }
    if (nvg > 1 && (rc = prefetch_all(c, (remote_op **)kids, nvg, err)) < 0) {
        for (int j = 0; j < nvg; j++)
            sl_op_free(kids[j]);
        free(kids);
        return rc;
    }
    rc = sl_op_concat_new(kids, nvg, out, err);
    free(kids);
    return rc;
}

int sl__conn_select(sl_conn *c, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_select *sel = st->u.select;
    sl_plan_ctx ctx = {
        .catalog = sl__meta_catalog(c),
        .db = c->c_db,
        .now_ms = c->c_now_ms,
        .mode = sel->from != NULL ? SL_PLAN_MERGE : SL_PLAN_FULL,
        .open_remote = open_remote,
        .remote_ud = c,
    };
    sl_plan *p;
    int rc = sl_plan_select(sel, &ctx, &p, err);
    if (rc < 0)
        return rc;
    int ncols = sl_plan_ncols(p);
    res->names = calloc((size_t)(ncols > 0 ? ncols : 1), sizeof(char *));
    if (res->names == NULL) {
        sl_plan_free(p);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    for (int i = 0; i < ncols; i++) {
        if ((res->names[i] = strdup(sl_plan_col_name(p, i))) == NULL) {
            sl_plan_free(p);
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        }
        res->ncols = i + 1;
    }
    res->precision = sl_plan_precision(p);
    res->affected = -1;
    rc = sl_plan_collect(p, &res->rows, err);
    sl_plan_free(p);
    return rc;
}
