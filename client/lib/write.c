/*
 * write.c - INSERT, DELETE and bulk blocks: evaluated here, sent straight to the vnodes.
 *
 * An INSERT is resolved with the shared rules (sl_ddl_plan_insert_target over the
 * metadata cache): child tables that USING ... TAGS must create are created in one
 * MNODE_AUTO_CREATE request, with tag values evaluated and checked here exactly as the
 * embedded store does. Every item's VALUES rows are converted by the shared evaluator
 * (sl_ddl_insert_rows) into a block in the table's column order; the blocks are grouped
 * by the vgroup owning their table, and each vgroup gets one VNODE_WRITE request holding
 * all of its blocks, which the vnode applies atomically. Nothing is sent until every row
 * of the statement has been converted, so a bad value anywhere writes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mnode.pb-c.h"
#include "sluice_int.h"
#include "vnode.pb-c.h"

static int oom(sl_error *err)
{
    return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
}

/* Encodes a block into a freshly allocated ProtobufCBinaryData. */
static int encode_bin(const sl_block *b, ProtobufCBinaryData *out)
{
    sl_buf buf;
    sl_buf_init(&buf);
    int rc = sl_block_encode(b, &buf);
    if (rc < 0) {
        sl_buf_fini(&buf);
        return rc;
    }
    out->data = buf.data;
    out->len = buf.len;
    return 0;
}

void sl__conn_set_background(sl_conn *c, bool on)
{
    c->c_background = on;
}

/* Sends one WriteRequest for vgroup vg; returns 0 or the vnode's error. */
static int send_write(sl_conn *c, const sl__vgroup *vg, Sluice__WriteItem **items, size_t n,
                      sl_error *err)
{
    Sluice__WriteRequest req = SLUICE__WRITE_REQUEST__INIT;
    req.vgroup_id = vg->vg_id;
    req.n_items = n;
    req.items = items;
    req.background = c->c_background;
    sl_buf b;
    sl_buf_init(&b);
    if (sl_buf_reserve(&b, sluice__write_request__get_packed_size(&req)) < 0)
        return oom(err);
    b.len = sluice__write_request__pack(&req, b.data);
    c->c_stats.vnode_writes++;
    int rc = sl__vnode_call(c, vg->vg_addr, SLUICE__VNODE_METHOD__VNODE_WRITE, b.data, b.len,
                            NULL, err);
    sl_buf_fini(&b);
    return rc; /* SL_ENOTFOUND: a table we had cached is unknown there; callers forget it */
}

/*
 * Forgets the cached entries of the n tables in v (repeats allowed) that a vnode did not
 * know (its SL_ENOTFOUND): only they are looked up again. The names are copied first, as
 * forgetting one table may free another's entry too (sl__meta_forget: a child's super
 * table); without memory for the copies the whole cache goes.
 */
static void forget_stale(sl_conn *c, sl__meta *const *v, size_t n)
{
    if (n == 0)
        return;
    char(*names)[2][SL_TABLE_NAME_MAX + 1] = calloc(n, sizeof(*names));
    if (names == NULL) {
        sl_conn_flush_meta(c);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i][0], sizeof(names[i][0]), "%s", v[i]->m_db);
        snprintf(names[i][1], sizeof(names[i][1]), "%s", v[i]->m_name);
    }
    for (size_t i = 0; i < n; i++)
        sl__meta_forget(c, names[i][0], names[i][1]);
    free(names);
}

/* ---------------------------------------------------------------- INSERT */

/* One INSERT item on its way to a vnode. */
typedef struct ins_item {
    sl__meta *m;         /* target table */
    int new_op;          /* plan op creating it, -1 when it existed */
    sl_block rows;       /* converted rows */
    Sluice__WriteItem w; /* its write item (block encoded) */
} ins_item;

/* Creates the child tables of plan's ops through the mnode and caches their metadata. */
static int auto_create(sl_conn *c, sl_ddl_plan *plan, sl__meta **made, sl_error *err)
{
    int n = plan->nops;
    Sluice__AutoCreateItem *items = calloc((size_t)n, sizeof(*items));
    Sluice__AutoCreateItem **ptrs = calloc((size_t)n, sizeof(*ptrs));
    sl_buf b;
    sl_buf_init(&b);
    Sluice__AutoCreateReply *rep = NULL;
    int rc = 0;
    if (items == NULL || ptrs == NULL) {
        rc = oom(err);
        goto done;
    }
    for (int k = 0; k < n; k++) {
        const sl_ddl_op *op = &plan->ops[k];
        sluice__auto_create_item__init(&items[k]);
        items[k].db = (char *)op->db.name;
        items[k].name = (char *)op->name;
        items[k].stable = (char *)op->super.name;
        if (encode_bin(&op->tagvals, &items[k].tag_values) < 0) {
            rc = oom(err);
            goto done;
        }
        ptrs[k] = &items[k];
    }
    Sluice__AutoCreateRequest req = SLUICE__AUTO_CREATE_REQUEST__INIT;
    req.n_items = (size_t)n;
    req.items = ptrs;
    if (sl_buf_reserve(&b, sluice__auto_create_request__get_packed_size(&req)) < 0) {
        rc = oom(err);
        goto done;
    }
    b.len = sluice__auto_create_request__pack(&req, b.data);
    rc = sl__mnode_call(c, SLUICE__MNODE_METHOD__MNODE_AUTO_CREATE, b.data, b.len, &b, err);
    if (rc < 0)
        goto done;
    rep = sluice__auto_create_reply__unpack(NULL, b.len, b.data);
    if (rep == NULL || rep->n_metas != (size_t)n) {
        rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed AutoCreate reply from the mnode");
        goto done;
    }
    for (int k = 0; k < n; k++)
        if ((rc = sl__meta_add_pb(c, rep->metas[k], &made[k], err)) < 0)
            goto done;
done:
    if (rep != NULL)
        sluice__auto_create_reply__free_unpacked(rep, NULL);
    if (items != NULL)
        for (int k = 0; k < n; k++)
            free(items[k].tag_values.data);
    free(items);
    free(ptrs);
    sl_buf_fini(&b);
    return rc;
}

/* Reports the RPC failure hidden behind a lookup that the DDL rules turned into "not
 * found", at the same position. */
static int lookup_error(sl_conn *c, int rc, sl_error *err)
{
    if (rc != SL_ENOTFOUND || c->c_lookup_err.code == 0 || err == NULL)
        return rc;
    int line = err->line, col = err->col;
    *err = c->c_lookup_err;
    err->line = line;
    err->col = col;
    return err->code;
}

int sl__conn_insert(sl_conn *c, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_insert *ins = &st->u.insert;
    int n = ins->n;
    ins_item *items = calloc((size_t)(n > 0 ? n : 1), sizeof(*items));
    sl__meta **made = NULL;
    Sluice__WriteItem **batch = calloc((size_t)(n > 0 ? n : 1), sizeof(*batch));
    sl__meta **batchm = calloc((size_t)(n > 0 ? n : 1), sizeof(*batchm));
    bool *sent = calloc((size_t)(n > 0 ? n : 1), sizeof(bool));
    sl_ddl_plan plan;
    sl_ddl_plan_init(&plan);
    int rc = 0, written_groups = 0;
    int64_t total = 0;
    if (items == NULL || batch == NULL || batchm == NULL || sent == NULL) {
        free(items);
        free(batch);
        free(batchm);
        free(sent);
        return oom(err);
    }
    for (int i = 0; i < n; i++)
        sl_block_init(&items[i].rows);

    /* Targets first: every table must exist or be creatable before anything is sent. */
    sl_ddl_source src = sl__meta_ddl_source(c);
    for (int i = 0; i < n; i++) {
        sl_ddl_target tg;
        if ((rc = sl_ddl_plan_insert_target(&src, &ins->items[i], &plan, &tg, err)) < 0) {
            rc = lookup_error(c, rc, err);
            goto done;
        }
        items[i].new_op = tg.new_op;
        items[i].m = tg.new_op < 0 ? tg.table.obj : NULL;
    }
    /* Convert every row before creating anything, so a bad value changes nothing. The
     * schema of a table to be created is its super table's. */
    for (int i = 0; i < n; i++) {
        const sl_insert_item *it = &ins->items[i];
        const sl_ddl_table *schema_src = NULL;
        sl_ddl_table tmp;
        const char *tname;
        sl_precision prec;
        if (items[i].m != NULL) {
            memset(&tmp, 0, sizeof(tmp));
            tmp.ncols = items[i].m->m_tm.ncols;
            tmp.cols = items[i].m->m_cols;
            tmp.ntags = items[i].m->m_tm.ntags;
            tmp.tags = items[i].m->m_tags;
            tmp.composite_key = items[i].m->m_key;
            schema_src = &tmp;
            tname = items[i].m->m_name;
            prec = items[i].m->m_tm.precision;
        } else {
            schema_src = &plan.ops[items[i].new_op].super;
            tname = plan.ops[items[i].new_op].name;
            prec = plan.ops[items[i].new_op].db.precision;
        }
        for (int k = 0; k < schema_src->ncols; k++) {
            if (sl_block_add_column(&items[i].rows, schema_src->cols[k].type,
                                    schema_src->cols[k].width) < 0) {
                rc = oom(err);
                goto done;
            }
        }
        rc = sl_ddl_insert_rows(it, tname, schema_src->ncols, schema_src->cols,
                                schema_src->composite_key, schema_src->ntags, schema_src->tags,
                                prec, c->c_now_ms, &items[i].rows, err);
        if (rc < 0)
            goto done;
        total += it->nrows;
    }
    if (plan.nops > 0) {
        made = calloc((size_t)plan.nops, sizeof(*made));
        if (made == NULL) {
            rc = oom(err);
            goto done;
        }
        if ((rc = auto_create(c, &plan, made, err)) < 0)
            goto done;
        for (int i = 0; i < n; i++)
            if (items[i].m == NULL)
                items[i].m = made[items[i].new_op];
    }
    for (int i = 0; i < n; i++) {
        sluice__write_item__init(&items[i].w);
        items[i].w.uid = items[i].m->m_uid;
        if (encode_bin(&items[i].rows, &items[i].w.block) < 0) {
            rc = oom(err);
            goto done;
        }
    }
    /* One request per vgroup, in order of first appearance. */
    for (int i = 0; i < n; i++) {
        if (sent[i])
            continue;
        size_t nb = 0;
        const sl__vgroup *vg = &items[i].m->m_vg;
        for (int j = i; j < n; j++) {
            if (!sent[j] && items[j].m->m_vg.vg_id == vg->vg_id &&
                strcmp(items[j].m->m_vg.vg_addr, vg->vg_addr) == 0) {
                batchm[nb] = items[j].m;
                batch[nb++] = &items[j].w;
                sent[j] = true;
            }
        }
        if ((rc = send_write(c, vg, batch, nb, err)) < 0) {
            /* The vnode did not know a table of this batch: those entries are forgotten (no
             * item is used after this) and, when nothing was written, the statement is
             * resolved afresh once (exec_stmt). */
            if (rc == SL_ENOTFOUND)
                forget_stale(c, batchm, nb);
            c->c_retry = rc == SL_ENOTFOUND && written_groups == 0;
            if (written_groups > 0 && err != NULL) {
                char note[96];
                snprintf(note, sizeof(note), " (rows for %d other vgroup%s were written)",
                         written_groups, written_groups == 1 ? "" : "s");
                size_t l = strlen(err->msg);
                snprintf(err->msg + l, sizeof(err->msg) - l, "%s", note);
            }
            goto done;
        }
        written_groups++;
    }
    res->affected = total;
done:
    for (int i = 0; i < n; i++) {
        sl_block_fini(&items[i].rows);
        free(items[i].w.block.data);
    }
    free(items);
    free(made);
    free(batch);
    free(batchm);
    free(sent);
    sl_ddl_plan_fini(&plan);
    return rc;
}

/* ---------------------------------------------------------------- DELETE */

/* Looks a table up for a statement, reporting a failure at pos. */
static int stmt_table(sl_conn *c, const sl_qname *q, sl__meta **out, sl_error *err)
{
    sl_error e;
    sl_error_clear(&e);
    int rc = sl__meta_get(c, q->db, q->name, out, &e);
    if (rc == SL_ENOTFOUND)
        return sl_ddl_error(err, rc, q->pos, "table '%s' does not exist in database '%s'",
                            q->name, q->db != NULL ? q->db : c->c_db);
    if (rc < 0)
        return sl_ddl_error(err, rc, q->pos, "%s", e.msg);
    return 0;
}

/* Appends name to b as the body of a single-quoted SQL string. */
static void put_quoted(sl_buf *b, const char *name)
{
    for (const char *p = name; *p; p++)
        sl_buf_printf(b, *p == '\'' ? "''" : "%c", *p);
}

/* One table a DELETE reaches: its uid and vgroup. */
typedef struct del_target {
    uint64_t uid;
    const sl__vgroup *vg;
} del_target;

/*
 * The children of super table m with their vgroups, from information_schema.ins_tables
 * on the mnode (a vnode deletes by table uid). *out is malloc'ed; *n may be 0.
 */
static int super_children(sl_conn *c, const sl__meta *m, del_target **out, int *n,
                          sl_error *err)
{
    sl_buf q;
    sl_buf_init(&q);
    sl_buf_printf(&q, "SELECT uid, vgroup_id FROM information_schema.ins_tables WHERE db_name = '");
    put_quoted(&q, m->m_db);
    sl_buf_printf(&q, "' AND stable_name = '");
    put_quoted(&q, m->m_name);
    sl_buf_printf(&q, "'");
    if (sl_buf_put_u8(&q, 0) < 0) {
        sl_buf_fini(&q);
        return oom(err);
    }
    sl_result res;
    int rc = sl__mnode_query(c, (const char *)q.data, &res, err);
    sl_buf_fini(&q);
    if (rc < 0)
        return rc;
    *n = 0;
    *out = NULL;
    if (res.ncols != 2 || res.rows.ncols != 2) {
        sl_result_fini(&res);
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "unexpected ins_tables result from the mnode");
    }
    uint32_t nr = res.rows.nrows;
    *out = calloc(nr > 0 ? nr : 1, sizeof(**out));
    if (*out == NULL) {
        sl_result_fini(&res);
        return oom(err);
    }
    for (uint32_t i = 0; i < nr; i++) {
        uint32_t vg = (uint32_t)sl_column_get_i64(&res.rows.cols[1], i);
        const sl__vgroup *v = NULL;
        for (int k = 0; k < m->m_nvg && v == NULL; k++)
            if (m->m_vgs[k].vg_id == vg)
                v = &m->m_vgs[k];
        if (v == NULL) {
            free(*out);
            *out = NULL;
            sl_result_fini(&res);
            return sl_error_set(err, SL_ESTATE, 0, 0,
                                "vgroup %u of a child of '%s' is unknown: retry", vg, m->m_name);
        }
        (*out)[(*n)++] = (del_target){.uid = (uint64_t)sl_column_get_i64(&res.rows.cols[0], i),
                                      .vg = v};
    }
    sl_result_fini(&res);
    return 0;
}

int sl__conn_delete(sl_conn *c, const sl_stmt *st, sl_result *res, sl_error *err)
{
    const sl_delete *del = &st->u.del;
    sl__meta *m;
    int rc = stmt_table(c, &del->table, &m, err);
    if (rc < 0)
        return rc;
    sl_ddl_ts_range r;
    rc = sl_ddl_delete_range(del->where, m->m_name, &m->m_cols[0], m->m_tm.precision,
                             c->c_now_ms, &r, err);
    if (rc < 0)
        return rc;
    res->affected = 0;
    if (r.empty)
        return 0;
    /* A super table's rows are deleted child by child, each on its own vgroup. */
    del_target one = {.uid = m->m_uid, .vg = &m->m_vg}, *tg = &one;
    int ntg = 1;
    if (m->m_tm.kind == SL_TABLE_SUPER && (rc = super_children(c, m, &tg, &ntg, err)) < 0)
        return rc;
    int64_t total = 0;
    for (int i = 0; i < ntg; i++) {
        Sluice__DeleteRequest req = SLUICE__DELETE_REQUEST__INIT;
        req.vgroup_id = tg[i].vg->vg_id;
        req.uid = tg[i].uid;
        req.ts_lo = r.lo;
        req.ts_hi = r.hi;
        uint8_t buf[64];
        size_t len = sluice__delete_request__pack(&req, buf);
        sl_buf reply;
        sl_buf_init(&reply);
        rc = sl__vnode_call(c, tg[i].vg->vg_addr, SLUICE__VNODE_METHOD__VNODE_DELETE, buf, len,
                            &reply, err);
        Sluice__DeleteReply *rep =
            rc == 0 ? sluice__delete_reply__unpack(NULL, reply.len, reply.data) : NULL;
        sl_buf_fini(&reply);
        if (rc == 0 && rep == NULL)
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed Delete reply from a vnode");
        if (rc < 0) {
            if (tg != &one)
                free(tg);
            if (rc == SL_ENOTFOUND) /* the table (a super table: with its children) */
                forget_stale(c, &m, 1);
            return rc;
        }
        total += (int64_t)rep->deleted;
        sluice__delete_reply__free_unpacked(rep, NULL);
    }
    if (tg != &one)
        free(tg);
    res->affected = total;
    return 0;
}

/* ---------------------------------------------------------------- bulk blocks */

/* Checks rows against table m as sl_insert_block documents. */
static int check_block(const sl__meta *m, const sl_block *rows, sl_error *err)
{
    if (m->m_tm.kind == SL_TABLE_SUPER)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "cannot insert into super table '%s': insert into a child table",
                            m->m_name);
    if ((int)rows->ncols != m->m_tm.ncols)
        return sl_error_set(err, SL_ETYPE, 0, 0, "table '%s' has %d columns, the block %u",
                            m->m_name, m->m_tm.ncols, rows->ncols);
    for (int k = 0; k < m->m_tm.ncols; k++) {
        sl_type want = m->m_cols[k].type, got = rows->cols[k].type;
        bool text_ok = (want == SL_T_VARCHAR || want == SL_T_NCHAR) &&
                       (got == SL_T_VARCHAR || got == SL_T_NCHAR);
        if (want != got && !text_ok)
            return sl_error_set(err, SL_ETYPE, 0, 0,
                                "column %d ('%s') of table '%s' is %s, the block's is %s", k + 1,
                                m->m_cols[k].name, m->m_name, sl_type_name(want),
                                sl_type_name(got));
    }
    if (rows->nrows > 0 && rows->cols[0].has_nulls)
        for (uint32_t r = 0; r < rows->nrows; r++)
            if (sl_column_is_null(&rows->cols[0], r))
                return sl_error_set(err, SL_EINVAL, 0, 0,
                                    "the timestamp column '%s' cannot be NULL (row %u)",
                                    m->m_cols[0].name, r + 1);
    if (rows->nrows > 0 && m->m_key && rows->cols[1].has_nulls)
        for (uint32_t r = 0; r < rows->nrows; r++)
            if (sl_column_is_null(&rows->cols[1], r))
                return sl_error_set(err, SL_EINVAL, 0, 0,
                                    "the composite key column '%s' cannot be NULL (row %u)",
                                    m->m_cols[1].name, r + 1);
    return 0;
}

/* One pass of sl__insert_blocks over w[0..n); vn_stale[i] is set when item i was refused
 * by its vnode as unknown (SL_ENOTFOUND: its cache entry is forgotten), cleared otherwise. */
static int insert_blocks_pass(sl_conn *c, const char *db, sl__block_write *w, size_t n,
                              sl_error *err, bool *vn_stale)
{
    for (size_t i = 0; i < n; i++)
        vn_stale[i] = false;
    sl__meta **ms = calloc(n, sizeof(*ms));
    Sluice__WriteItem *wi = calloc(n, sizeof(*wi));
    Sluice__WriteItem **batch = calloc(n, sizeof(*batch));
    size_t *members = calloc(n, sizeof(*members));
    bool *done = calloc(n, sizeof(*done));
    sl__meta **stale = calloc(n, sizeof(*stale)); /* entries a vnode did not know */
    size_t nstale = 0;
    int first = 0;
    if (ms == NULL || wi == NULL || batch == NULL || members == NULL || done == NULL ||
        stale == NULL) {
        first = oom(err);
        for (size_t i = 0; i < n; i++)
            w[i].rc = first;
        goto out;
    }
    /* Every item is looked up, checked and encoded before anything is sent; an item that
     * fails here fails alone. */
    for (size_t i = 0; i < n; i++) {
        sluice__write_item__init(&wi[i]);
        sl_error e;
        sl_error_clear(&e);
        int rc = sl__meta_get(c, db, w[i].table, &ms[i], &e);
        if (rc == 0)
            rc = check_block(ms[i], w[i].rows, &e);
        if (rc == 0 && w[i].rows->nrows > 0) {
            wi[i].uid = ms[i]->m_uid;
            if (encode_bin(w[i].rows, &wi[i].block) < 0)
                rc = oom(&e);
        }
        w[i].rc = rc;
        done[i] = rc < 0 || w[i].rows->nrows == 0;
        if (rc < 0 && first == 0) {
            first = rc;
            if (err != NULL)
                *err = e;
        }
    }
    /* One request per vgroup, in order of first appearance; a refused request fails every
     * item it carried. */
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        const sl__vgroup *vg = &ms[i]->m_vg;
        size_t nb = 0;
        for (size_t j = i; j < n; j++) {
            if (!done[j] && ms[j]->m_vg.vg_id == vg->vg_id &&
                strcmp(ms[j]->m_vg.vg_addr, vg->vg_addr) == 0) {
                members[nb] = j;
                batch[nb++] = &wi[j];
                done[j] = true;
            }
        }
        sl_error e;
        sl_error_clear(&e);
        int rc = send_write(c, vg, batch, nb, &e);
        if (rc == 0)
            continue;
        for (size_t k = 0; k < nb; k++) {
            w[members[k]].rc = rc;
            if (rc == SL_ENOTFOUND) {
                stale[nstale++] = ms[members[k]];
                vn_stale[members[k]] = true;
            }
        }
        if (first == 0) {
            first = rc;
            if (err != NULL)
                *err = e;
        }
    }
    /* Only now: forgetting frees entries that other items point at. */
    forget_stale(c, stale, nstale);
out:
    for (size_t i = 0; wi != NULL && i < n; i++)
        free(wi[i].block.data);
    free(ms);
    free(wi);
    free(batch);
    free(members);
    free(done);
    free(stale);
    return first;
}

int sl__insert_blocks(sl_conn *c, const char *db, sl__block_write *w, size_t n, sl_error *err)
{
    if (c == NULL || (w == NULL && n > 0))
        return sl_error_set(err, SL_EINVAL, 0, 0, "sl__insert_blocks: NULL argument");
    for (size_t i = 0; i < n; i++)
        if (w[i].table == NULL || w[i].rows == NULL)
            return sl_error_set(err, SL_EINVAL, 0, 0, "sl__insert_blocks: item %zu has no %s",
                                i + 1, w[i].table == NULL ? "table" : "rows");
    if (n == 0)
        return 0;
    bool *stale = calloc(n, sizeof(*stale)), *stale2 = calloc(n, sizeof(*stale2));
    sl__block_write *sub = calloc(n, sizeof(*sub));
    size_t *at = calloc(n, sizeof(*at));
    if (stale == NULL || stale2 == NULL || sub == NULL || at == NULL) {
        free(stale);
        free(stale2);
        free(sub);
        free(at);
        int rc = oom(err);
        for (size_t i = 0; i < n; i++)
            w[i].rc = rc;
        return rc;
    }
    int rc = insert_blocks_pass(c, db, w, n, err, stale);
    /* A vnode that does not know a table the cache placed on it: the table moved, was
     * dropped and created again, or its vgroup is new and the vnode has not opened it yet
     * (vnodes learn their vgroups from the mnode's heartbeat replies, up to a second after
     * CREATE DATABASE). Its items are looked up afresh and sent again, with growing pauses
     * for a few seconds; items written already are not repeated. */
    int pause_ms = 10, waited_ms = 0;
    while (rc != 0 && waited_ms < SL_VNODE_RETRY_MS) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (stale[i]) {
                at[k] = i;
                sub[k++] = (sl__block_write){.table = w[i].table, .rows = w[i].rows};
            }
        if (k == 0)
            break; /* the error is of another kind: nothing to retry */
        sl__retry_pause(&pause_ms, &waited_ms, 250);
        sl_error e;
        sl_error_clear(&e);
        int rc2 = insert_blocks_pass(c, db, sub, k, &e, stale2);
        for (size_t j = 0; j < k; j++) {
            w[at[j]].rc = sub[j].rc;
            stale[at[j]] = stale2[j];
        }
        /* The call's error is the first item's that still failed. */
        rc = 0;
        for (size_t i = 0; i < n && rc == 0; i++)
            rc = w[i].rc;
        if (rc == 0) {
            if (err != NULL)
                sl_error_clear(err);
        } else if (rc2 != 0 && err != NULL && (err->code == SL_ENOTFOUND || err->code == 0)) {
            *err = e;
            rc = rc2;
        }
    }
    free(stale);
    free(stale2);
    free(sub);
    free(at);
    return rc;
}

int sl_insert_block(sl_conn *c, const char *db, const char *table, const sl_block *rows,
                    sl_error *err)
{
    if (c == NULL || table == NULL || rows == NULL)
        return sl_error_set(err, SL_EINVAL, 0, 0, "sl_insert_block: NULL argument");
    sl__block_write w = {.table = table, .rows = rows};
    return sl__insert_blocks(c, db, &w, 1, err);
}
