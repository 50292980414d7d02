/*
 * service.c - the mnode's RPC methods (proto/mnode.proto) over the catalog.
 *
 * Every handler decodes its request (protobuf-c checks every length against the frame,
 * which the RPC layer bounds), answers at once on the loop thread and builds its reply in
 * an arena freed after sending. Catalog errors travel back as Error replies with the
 * statement position.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/exec/ddl.h"
#include "common/sql/parser.h"
#include "common/util/arena.h"
#include "common/util/log.h"
#include "mdaemon.h"
#include "mnode.pb-c.h"
#include "mrequest.h"

/* ------------------------------------------------------------------ helpers */

#define ARENA_NEW(a, T) ((T *)sl_arena_alloc((a), sizeof(T)))

static Sluice__Field **fields_pb(sl_arena *a, const sl_field *f, int n)
{
    Sluice__Field **v = sl_arena_alloc(a, sizeof(*v) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; v && i < n; i++) {
        v[i] = ARENA_NEW(a, Sluice__Field);
        if (v[i] == NULL)
            return NULL;
        sluice__field__init(v[i]);
        v[i]->name = (char *)f[i].name;
        v[i]->type = (uint32_t)f[i].type;
        v[i]->width = f[i].width;
    }
    return v;
}

static int block_pb(sl_arena *a, const sl_block *b, ProtobufCBinaryData *out)
{
    sl_buf buf;
    sl_buf_init(&buf);
    int rc = sl_block_encode(b, &buf);
    if (rc == 0) {
        out->data = sl_arena_alloc(a, buf.len ? buf.len : 1);
        if (out->data == NULL)
            rc = SL_ENOMEM;
        else {
            memcpy(out->data, buf.data, buf.len);
            out->len = buf.len;
        }
    }
    sl_buf_fini(&buf);
    return rc;
}

static Sluice__VgroupInfo *vgroup_pb(sl_arena *a, sl_mcatalog *cat, uint32_t id)
{
    sl_mcatalog_vgroup vg;
    Sluice__VgroupInfo *v = ARENA_NEW(a, Sluice__VgroupInfo);
    if (v == NULL)
        return NULL;
    sluice__vgroup_info__init(v);
    v->vgroup_id = id;
    if (sl_mcatalog_vgroup_get(cat, id, &vg, NULL) == 0) {
        v->vnode_id = vg.vnode_id;
        v->vnode_address = sl_arena_strdup(a, vg.vnode_addr ? vg.vnode_addr : "");
    }
    return v;
}

static Sluice__TableMeta *meta_pb(sl_arena *a, sl_mcatalog *cat, const sl_mcatalog_table *t)
{
    Sluice__TableMeta *m = ARENA_NEW(a, Sluice__TableMeta);
    if (m == NULL)
        return NULL;
    sluice__table_meta__init(m);
    m->kind = (uint32_t)t->meta.kind;
    m->db = sl_arena_strdup(a, t->meta.db);
    m->name = sl_arena_strdup(a, t->meta.name);
    m->uid = t->uid;
    m->precision = (uint32_t)t->meta.precision;
    m->n_columns = (size_t)t->meta.ncols;
    m->columns = fields_pb(a, t->meta.cols, t->meta.ncols);
    m->n_tags = (size_t)t->meta.ntags;
    m->tags = fields_pb(a, t->meta.tags, t->meta.ntags);
    m->composite_key = t->composite_key;
    if (t->tagvals != NULL && block_pb(a, t->tagvals, &m->tag_values) < 0)
        return NULL;
    m->stable_uid = t->stable_uid;
    if (t->stable != NULL)
        m->stable_name = sl_arena_strdup(a, t->stable);
    if (t->meta.kind == SL_TABLE_SUPER) {
        sl_mcatalog_db db;
        if (sl_mcatalog_db_get(cat, t->meta.db, &db, NULL) == 0) {
            m->vgroups = sl_arena_alloc(a, sizeof(*m->vgroups) * (db.nvgroups + 1));
            for (uint32_t i = 0; m->vgroups && i < db.nvgroups; i++)
                m->vgroups[m->n_vgroups++] = vgroup_pb(a, cat, db.vgroup_ids[i]);
        }
    } else {
        m->vgroup = vgroup_pb(a, cat, t->vgroup_id);
    }
    return m;
}

static void reply_sl_error(sl_rpc_reply *reply, int rc, sl_error *err)
{
    if (err->code == 0)
        sl_error_set(err, rc, 0, 0, "%s", sl_strerror(rc));
    sl_rpc_reply_error(reply, err);
}

/* ------------------------------------------------------------------ EXEC */

static bool is_ddl(sl_stmt_kind k)
{
    switch (k) {
    case SL_STMT_CREATE_DATABASE:
    case SL_STMT_DROP_DATABASE:
    case SL_STMT_CREATE_STABLE:
    case SL_STMT_CREATE_TABLE:
    case SL_STMT_CREATE_SUBTABLES:
    case SL_STMT_DROP_TABLE:
    case SL_STMT_DROP_STABLE:
    case SL_STMT_CREATE_STREAM:
    case SL_STMT_DROP_STREAM:
    case SL_STMT_START_STREAM:
    case SL_STMT_STOP_STREAM:
    case SL_STMT_DROP_SNODE:
        return true;
    default:
        return false;
    }
}

/* Most ExecReply.created. */
#define EXEC_CREATED_MAX 1024

/* The metadata of the tables a CREATE TABLE statement st names (ExecReply.created), from
 * the catalog after it ran; names that do not resolve are left out. */
static int created_metas(sl_mdaemon *md, sl_arena *a, const sl_stmt *st, const char *cur,
                         Sluice__ExecReply *rp, sl_error *err)
{
    const sl_qname *one = NULL;
    int n = 0;
    if (st->kind == SL_STMT_CREATE_TABLE) {
        one = &st->u.create_table.name;
        n = 1;
    } else if (st->kind == SL_STMT_CREATE_SUBTABLES) {
        n = st->u.create_subtables.n;
    }
    if (n > EXEC_CREATED_MAX)
        n = EXEC_CREATED_MAX;
    if (n == 0)
        return 0;
    rp->created = sl_arena_alloc(a, sizeof(*rp->created) * (size_t)n);
    if (rp->created == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    for (int i = 0; i < n; i++) {
        const sl_qname *q = one != NULL ? one : &st->u.create_subtables.items[i].name;
        const char *db = q->db != NULL ? q->db : cur;
        sl_mcatalog_table t;
        sl_error e2;
        sl_error_clear(&e2);
        if (db == NULL || sl_mcatalog_table_get(md->md_cat, db, q->name, &t, &e2) < 0)
            continue;
        if ((rp->created[rp->n_created] = meta_pb(a, md->md_cat, &t)) == NULL)
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        rp->n_created++;
    }
    return 0;
}

static void m_exec(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_mdaemon *md = ud;
    Sluice__ExecRequest *rq = sluice__exec_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed ExecRequest");
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    sl_parse_result *pr = NULL;
    sl_result res;
    sl_result_init(&res);
    sl_arena a;
    sl_arena_init(&a);
    const char *cur = rq->current_db[0] ? rq->current_db : NULL;
    const char *new_db = cur;
    int rc = sl__md_parse_one(rq->sql, &pr, &err);
    if (rc < 0)
        goto fail;
    const sl_stmt *st = pr->stmts[0];
    if (st->kind == SL_STMT_USE && sl_ddl_name_eq(st->u.use_db, SL_DDL_INFO_SCHEMA)) {
        /* The system database has no catalog record; its tables are served by the mnode. */
        new_db = SL_DDL_INFO_SCHEMA;
        res.affected = 0;
    } else if (st->kind == SL_STMT_USE) {
        sl_mcatalog_db db;
        rc = sl_mcatalog_db_get(md->md_cat, st->u.use_db, &db, &err);
        if (rc < 0)
            goto fail;
        new_db = db.name;
        res.affected = 0;
    } else if (is_ddl(st->kind)) {
        sl_ddl_result dr;
        rc = sl_mcatalog_exec_ddl(md->md_cat, st, cur, &dr, &err);
        if (rc < 0)
            goto fail;
        sl__md_journal_note(md, &dr);
        sl_log(SL_LOG_INFO, "mnode", "ddl ok stmt=\"%s\" changes=%d version=%" PRIu64,
               sl_stmt_kind_name(st->kind), dr.nchanges, md->md_version);
        sl_ddl_result_fini(&dr);
        sl__md_place(md); /* streams and snodes decide the placement */
        res.affected = 0;
    } else if (st->kind == SL_STMT_SHOW || st->kind == SL_STMT_DESCRIBE ||
               st->kind == SL_STMT_SELECT) {
        rc = sl_mcatalog_query(md->md_cat, st, cur, &res, &err);
        if (rc < 0)
            goto fail;
    } else {
        rc = sl_error_set(&err, SL_EUNSUPPORTED, st->pos.line, st->pos.col,
                          "%s is not served by the mnode (send rows to the vnodes)",
                          sl_stmt_kind_name(st->kind));
        goto fail;
    }
    Sluice__ResultSet rs = SLUICE__RESULT_SET__INIT;
    rs.n_names = (size_t)res.ncols;
    rs.names = res.names;
    rs.precision = (uint32_t)res.precision;
    rs.affected = res.affected;
    if (res.ncols > 0 && (rc = block_pb(&a, &res.rows, &rs.block)) < 0) {
        sl_error_set(&err, rc, 0, 0, "cannot encode the result");
        goto fail;
    }
    Sluice__ExecReply rp = SLUICE__EXEC_REPLY__INIT;
    rp.result = &rs;
    rp.current_db = (char *)(new_db ? new_db : "");
    if ((rc = created_metas(md, &a, st, cur, &rp, &err)) < 0)
        goto fail;
    const sl_qname *sname = st->kind == SL_STMT_CREATE_STREAM  ? &st->u.create_stream.name
                            : st->kind == SL_STMT_START_STREAM ? &st->u.stream_ctl.name
                                                               : NULL;
    const char *sdb = sname == NULL ? NULL : sname->db ? sname->db : cur;
    if (sdb == NULL) {
        sl_rpc_reply_msg(reply, &rp.base);
        goto done;
    }
    /* CREATE / START STREAM: answered once the stream runs (stream_wait.c). */
    size_t plen = sluice__exec_reply__get_packed_size(&rp);
    uint8_t *packed = sl_arena_alloc(&a, plen ? plen : 1);
    if (packed == NULL) {
        rc = sl_error_set(&err, SL_ENOMEM, 0, 0, "out of memory");
        goto fail;
    }
    sluice__exec_reply__pack(&rp, packed);
    sl__md_stream_wait(md, reply, packed, plen, sdb, sname->name);
    goto done;
fail:
    reply_sl_error(reply, rc, &err);
done:
    sl_result_fini(&res);
    sl_parse_result_free(pr);
    sl_arena_fini(&a);
    sluice__exec_request__free_unpacked(rq, NULL);
}

/* ------------------------------------------------------------------ lookups */

/* Most TableMetaRequest.more_names. */
#define TABLE_META_MORE_MAX 1024

static void m_table_meta(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_mdaemon *md = ud;
    Sluice__TableMetaRequest *rq = sluice__table_meta_request__unpack(NULL, req->len,
                                                                       req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed TableMetaRequest");
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    sl_mcatalog_table t;
    sl_arena a;
    sl_arena_init(&a);
    int rc = rq->n_more_names > TABLE_META_MORE_MAX
                 ? sl_error_set(&err, SL_ELIMIT, 0, 0, "a TableMetaRequest names at most %d more "
                                "tables", TABLE_META_MORE_MAX)
                 : sl_mcatalog_table_get(md->md_cat, rq->db, rq->name, &t, &err);
    if (rc < 0) {
        reply_sl_error(reply, rc, &err);
    } else {
        Sluice__TableMetaReply rp = SLUICE__TABLE_META_REPLY__INIT;
        rp.meta = meta_pb(&a, md->md_cat, &t);
        /* The others that exist (a prefetch: the asker looks up a missing one by itself
         * and gets its error then). */
        rp.more = sl_arena_alloc(&a, sizeof(*rp.more) * (rq->n_more_names + 1));
        bool ok = rp.meta != NULL && rp.more != NULL;
        for (size_t i = 0; ok && i < rq->n_more_names; i++) {
            sl_error e2;
            sl_error_clear(&e2);
            if (sl_mcatalog_table_get(md->md_cat, rq->db, rq->more_names[i], &t, &e2) < 0)
                continue;
            ok = (rp.more[rp.n_more] = meta_pb(&a, md->md_cat, &t)) != NULL;
            rp.n_more += ok;
        }
        if (!ok)
            sl_rpc_reply_fail(reply, SL_ENOMEM, "out of memory");
        else
            sl_rpc_reply_msg(reply, &rp.base);
    }
    sl_arena_fini(&a);
    sluice__table_meta_request__free_unpacked(rq, NULL);
}

static void m_db_info(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_mdaemon *md = ud;
    Sluice__DbInfoRequest *rq = sluice__db_info_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed DbInfoRequest");
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    sl_mcatalog_db db;
    sl_arena a;
    sl_arena_init(&a);
    int rc = sl_mcatalog_db_get(md->md_cat, rq->db, &db, &err);
    if (rc < 0) {
        reply_sl_error(reply, rc, &err);
    } else {
        Sluice__DbInfoReply rp = SLUICE__DB_INFO_REPLY__INIT;
        rp.db = (char *)db.name;
        rp.precision = (uint32_t)db.precision;
        rp.vgroups = sl_arena_alloc(&a, sizeof(*rp.vgroups) * (db.nvgroups + 1));
        for (uint32_t i = 0; rp.vgroups && i < db.nvgroups; i++)
            rp.vgroups[rp.n_vgroups++] = vgroup_pb(&a, md->md_cat, db.vgroup_ids[i]);
        sl_rpc_reply_msg(reply, &rp.base);
    }
    sl_arena_fini(&a);
    sluice__db_info_request__free_unpacked(rq, NULL);
}

/* ------------------------------------------------------------------ AUTO_CREATE */

/* Creates one child table as CREATE TABLE IF NOT EXISTS ... USING ... TAGS would. */
static int auto_create_one(sl_mdaemon *md, const Sluice__AutoCreateItem *it,
                           sl_mcatalog_table *out, sl_error *err)
{
    sl_parse_result *pr = NULL;
    int rc = sl__md_auto_create_stmt(it, &pr, err);
    if (rc < 0)
        goto done;
    sl_ddl_result dr;
    rc = sl_mcatalog_exec_ddl(md->md_cat, pr->stmts[0], it->db, &dr, err);
    if (rc < 0)
        goto done;
    sl__md_journal_note(md, &dr);
    sl_ddl_result_fini(&dr);
    rc = sl_mcatalog_table_get(md->md_cat, it->db, it->name, out, err);
    if (rc == 0 && out->meta.kind != SL_TABLE_CHILD)
        rc = sl_error_set(err, SL_EEXIST, 0, 0, "table '%s' exists and is not a child table",
                          it->name);
    if (rc == 0 && out->stable != NULL && strcasecmp(out->stable, it->stable) != 0)
        rc = sl_error_set(err, SL_EEXIST, 0, 0, "table '%s' is a child of '%s', not of '%s'",
                          it->name, out->stable, it->stable);
done:
    sl_parse_result_free(pr);
    return rc;
}

static void m_auto_create(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_mdaemon *md = ud;
    Sluice__AutoCreateRequest *rq = sluice__auto_create_request__unpack(NULL, req->len,
                                                                         req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed AutoCreateRequest");
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    sl_arena a;
    sl_arena_init(&a);
    Sluice__AutoCreateReply rp = SLUICE__AUTO_CREATE_REPLY__INIT;
    rp.metas = sl_arena_alloc(&a, sizeof(*rp.metas) * (rq->n_items + 1));
    int rc = rp.metas ? 0 : SL_ENOMEM;
    for (size_t i = 0; rc == 0 && i < rq->n_items; i++) {
        sl_mcatalog_table t;
        rc = auto_create_one(md, rq->items[i], &t, &err);
        if (rc == 0) {
            rp.metas[i] = meta_pb(&a, md->md_cat, &t);
            rp.n_metas++;
            if (rp.metas[i] == NULL)
                rc = SL_ENOMEM;
        }
    }
    if (rc < 0)
        reply_sl_error(reply, rc, &err);
    else
        sl_rpc_reply_msg(reply, &rp.base);
    sl_arena_fini(&a);
    sluice__auto_create_request__free_unpacked(rq, NULL);
}

/* ------------------------------------------------------------------ nodes */

static void m_register(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_mdaemon *md = ud;
    Sluice__RegisterRequest *rq = sluice__register_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed RegisterRequest");
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    uint32_t id = 0;
    int rc = SL_EINVAL;
    if (rq->kind != SL_MC_VNODE && rq->kind != SL_MC_SNODE)
        sl_error_set(&err, SL_EINVAL, 0, 0, "register: unknown node kind %u", rq->kind);
    else
        rc = sl_mcatalog_node_register(md->md_cat, (sl_mc_node_kind)rq->kind, rq->address,
                                       sl__md_now_ms(), &id, &err);
    if (rc < 0) {
        reply_sl_error(reply, rc, &err);
    } else {
        sl_log(SL_LOG_INFO, "mnode", "node registered node_id=%u kind=%s addr=%s", id,
               sl_mc_node_kind_name((sl_mc_node_kind)rq->kind), rq->address);
        Sluice__RegisterReply rp = SLUICE__REGISTER_REPLY__INIT;
        rp.node_id = id;
        sl__md_place(md);
        rp.epoch = sl_mcatalog_epoch(md->md_cat);
        sl_rpc_reply_msg(reply, &rp.base);
    }
    sluice__register_request__free_unpacked(rq, NULL);
}

typedef struct hb_walk {
    uint32_t node;
    uint32_t *ids;
    size_t n, cap;
} hb_walk;

static int hb_vgroup(void *arg, const sl_mcatalog_vgroup *vg)
{
    hb_walk *w = arg;
    if (vg->vnode_id != w->node)
        return 0;
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        uint32_t *p = realloc(w->ids, cap * sizeof(*p));
        if (p == NULL)
            return SL_ENOMEM;
        w->ids = p;
        w->cap = cap;
    }
    w->ids[w->n++] = vg->id;
    return 0;
}

/* Most vgroup loads one heartbeat may carry; a report with more is ignored (its heartbeat
 * still counts). A vnode lists the vgroups it holds, far fewer. */
#define MD_MAX_LOADS 65536

/* Records the storage load a vnode's heartbeat carries (sl_mcatalog_vnode_report). A
 * report the catalog cannot use only costs a log line: the heartbeat itself succeeded. */
static void note_loads(sl_mdaemon *md, const Sluice__HeartbeatRequest *rq)
{
    if (rq->n_loads > MD_MAX_LOADS) {
        sl_log(SL_LOG_WARN, "mnode", "heartbeat of node_id=%u lists %zu vgroup loads (most %d): "
               "ignored", rq->node_id, rq->n_loads, MD_MAX_LOADS);
        return;
    }
    sl_mcatalog_vgroup_load *l = calloc(rq->n_loads ? rq->n_loads : 1, sizeof(*l));
    if (l == NULL)
        return; /* the next heartbeat brings a fresh report */
    for (size_t i = 0; i < rq->n_loads; i++) {
        const Sluice__VgroupLoad *x = rq->loads[i];
        l[i] = (sl_mcatalog_vgroup_load){.vgroup_id = x->vgroup_id,
                                         .rows = x->rows,
                                         .disk_bytes = x->disk_bytes,
                                         .write_requests = x->write_requests,
                                         .rows_written = x->rows_written,
                                         .fenced = x->fenced};
    }
    sl_error err = {0};
    sl_error_clear(&err);
    size_t ignored = 0;
    sl_mcatalog_vnode_counters ctr = {.fenced = rq->fenced,
                                      .reads_held = rq->reads_held,
                                      .reads_held_ms = rq->reads_held_ms};
    if (sl_mcatalog_vnode_report(md->md_cat, rq->node_id, l, rq->n_loads, &ctr, &ignored,
                                 &err) < 0)
        sl_log(SL_LOG_DEBUG, "mnode", "load report of node_id=%u not recorded: %s", rq->node_id,
               err.msg);
    else if (ignored > 0)
        sl_log(SL_LOG_DEBUG, "mnode", "load report of node_id=%u: %zu vgroup loads ignored "
               "(unknown, not its own or repeated)", rq->node_id, ignored);
    free(l);
}

static void m_heartbeat(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_mdaemon *md = ud;
    Sluice__HeartbeatRequest *rq = sluice__heartbeat_request__unpack(NULL, req->len,
                                                                      req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed HeartbeatRequest");
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    int rc = sl_mcatalog_node_heartbeat(md->md_cat, rq->node_id, sl__md_now_ms(), &err);
    if (rc == 0)
        note_loads(md, rq);
    hb_walk w = {.node = rq->node_id};
    Sluice__VgroupVersion *lw = NULL, **lwp = NULL;
    if (rc == 0)
        rc = sl_mcatalog_each_vgroup(md->md_cat, hb_vgroup, &w);
    if (rc < 0) {
        reply_sl_error(reply, rc, &err);
    } else {
        Sluice__HeartbeatReply rp = SLUICE__HEARTBEAT_REPLY__INIT;
        sl__md_place(md); /* a revived node may change it */
        rp.epoch = sl_mcatalog_epoch(md->md_cat); /* vnodes fence older snode requests */
        rp.catalog_version = md->md_version;
        rp.n_vgroups = w.n;
        rp.vgroups = w.ids;
        /* Change-log retention: what every stream reading a vgroup has checkpointed. */
        lw = calloc(w.n ? w.n : 1, sizeof(*lw));
        lwp = calloc(w.n ? w.n : 1, sizeof(*lwp));
        for (size_t i = 0; lw != NULL && lwp != NULL && i < w.n; i++) {
            uint64_t v;
            if (sl_mcatalog_low_water(md->md_cat, w.ids[i], &v) != 1)
                continue;
            sluice__vgroup_version__init(&lw[rp.n_low_water]);
            lw[rp.n_low_water].vgroup_id = w.ids[i];
            lw[rp.n_low_water].version = v;
            lwp[rp.n_low_water] = &lw[rp.n_low_water];
            rp.n_low_water++;
        }
        rp.low_water = lwp; /* without memory the marks just wait for the next heartbeat */
        sl_rpc_reply_msg(reply, &rp.base);
    }
    free(lw);
    free(lwp);
    free(w.ids);
    sluice__heartbeat_request__free_unpacked(rq, NULL);
}

/* ------------------------------------------------------------------ VGROUP_TABLES */

/* The defs of one reply: every super table of the database, then the vgroup's tables (a
 * full reply: from the catalog's per-vgroup index) or the journal's changes since the
 * vnode's copy. Each list costs what it holds, never a walk of the whole database. */
typedef struct vt_walk {
    sl_arena *a;
    sl_mcatalog *cat;
    uint32_t vgroup;
    Sluice__TableDef **defs;
    size_t n, cap;
    int rc;
} vt_walk;

static int vt_add(vt_walk *w, const sl_mcatalog_table *t, bool dropped);

static int vt_table(void *arg, const sl_mcatalog_table *t)
{
    return vt_add(arg, t, false);
}

/* Appends the def of t (or, dropped, a tombstone for uid t->uid). */
static int vt_add(vt_walk *w, const sl_mcatalog_table *t, bool dropped)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        Sluice__TableDef **p = realloc(w->defs, cap * sizeof(*p));
        if (p == NULL)
            return SL_ENOMEM;
        w->defs = p;
        w->cap = cap;
    }
    Sluice__TableDef *d = ARENA_NEW(w->a, Sluice__TableDef);
    if (d == NULL)
        return SL_ENOMEM;
    sluice__table_def__init(d);
    d->uid = t->uid;
    d->name = sl_arena_strdup(w->a, t->meta.name);
    if (dropped) {
        d->dropped = true;
        w->defs[w->n++] = d;
        return d->name ? 0 : SL_ENOMEM;
    }
    d->kind = (uint32_t)t->meta.kind;
    d->n_columns = (size_t)t->meta.ncols;
    d->columns = fields_pb(w->a, t->meta.cols, t->meta.ncols);
    d->n_tags = (size_t)t->meta.ntags;
    d->tags = fields_pb(w->a, t->meta.tags, t->meta.ntags);
    d->precision = (uint32_t)t->meta.precision;
    d->stable_uid = t->stable_uid;
    d->composite_key = t->composite_key;
    if (d->name == NULL || d->columns == NULL || d->tags == NULL)
        return SL_ENOMEM;
    if (t->tagvals != NULL && block_pb(w->a, t->tagvals, &d->tag_values) < 0)
        return SL_ENOMEM;
    w->defs[w->n++] = d;
    return 0;
}

static void m_vgroup_tables(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_mdaemon *md = ud;
    Sluice__VgroupTablesRequest *rq = sluice__vgroup_tables_request__unpack(NULL, req->len,
                                                                             req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed VgroupTablesRequest");
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    sl_arena a;
    sl_arena_init(&a);
    sl_mcatalog_vgroup vg;
    sl_mcatalog_db db;
    vt_walk w = {.a = &a, .cat = md->md_cat, .vgroup = rq->vgroup_id};
    /* A copy from this run of the mnode gets the journal's changes since it. */
    bool full = rq->after_catalog_version < md->md_floor ||
                rq->after_catalog_version > md->md_version;
    int rc = sl_mcatalog_vgroup_get(md->md_cat, rq->vgroup_id, &vg, &err);
    if (rc == 0)
        rc = sl_mcatalog_db_get(md->md_cat, vg.db, &db, &err);
    if (rc == 0)
        rc = sl_mcatalog_each_stable(md->md_cat, vg.db, vt_table, &w, &err);
    if (rc == 0 && full)
        rc = sl_mcatalog_each_vgroup_table(md->md_cat, rq->vgroup_id, vt_table, &w, &err);
    for (size_t i = sl__md_journal_after(md, rq->after_catalog_version);
         rc == 0 && !full && i < md->md_njournal; i++) {
        const md_jentry *e = &md->md_journal[i];
        if (e->vgroup != rq->vgroup_id)
            continue;
        sl_mcatalog_table t;
        if (e->dropped) {
            memset(&t, 0, sizeof(t));
            t.uid = e->uid;
            t.meta.name = e->name;
            rc = vt_add(&w, &t, true);
        } else if (sl_mcatalog_table_get(md->md_cat, e->db, e->name, &t, NULL) == 0 &&
                   t.uid == e->uid) {
            rc = vt_add(&w, &t, false);
        } /* else dropped later: its tombstone follows */
    }
    if (rc < 0) {
        reply_sl_error(reply, rc, &err);
    } else {
        Sluice__VgroupTablesReply rp = SLUICE__VGROUP_TABLES_REPLY__INIT;
        rp.catalog_version = md->md_version;
        rp.n_tables = w.n;
        rp.tables = w.defs;
        rp.db = (char *)db.name;
        rp.precision = (uint32_t)db.precision;
        rp.full = full;
        sl_rpc_reply_msg(reply, &rp.base);
    }
    free(w.defs);
    sl_arena_fini(&a);
    sluice__vgroup_tables_request__free_unpacked(rq, NULL);
}

/* ------------------------------------------------------------------ snodes */

void sl__md_place(sl_mdaemon *md)
{
    sl_error err = {0};
    bool changed = false;
    uint64_t before = sl_mcatalog_epoch(md->md_cat);
    if (sl_mcatalog_place(md->md_cat, &changed, &err) < 0) {
        sl_log(SL_LOG_ERROR, "mnode", "placement failed: %s", err.msg);
        return;
    }
    if (changed)
        sl_log(SL_LOG_INFO, "mnode", "placement changed epoch=%" PRIu64 " (was %" PRIu64 ")",
               sl_mcatalog_epoch(md->md_cat), before);
    sl__md_stream_wait_check(md);
}

/* Collects the streams with a slot on one snode, with their slot bitmaps. */
typedef struct asg_walk {
    sl_arena *a;
    uint32_t node;
    Sluice__StreamAssignment **v;
    size_t n, cap;
    int rc;
} asg_walk;

static int asg_stream(void *arg, const sl_mcatalog_stream *s)
{
    asg_walk *w = arg;
    size_t nbytes = (s->nslots + 7) / 8;
    uint8_t *bits = NULL;
    for (uint32_t i = 0; i < s->nslots; i++) {
        if (s->owners[i] != w->node)
            continue;
        if (bits == NULL && (bits = sl_arena_alloc(w->a, nbytes)) == NULL)
            return SL_ENOMEM;
        bits[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    if (bits == NULL)
        return 0;
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        Sluice__StreamAssignment **p = realloc(w->v, cap * sizeof(*p));
        if (p == NULL)
            return SL_ENOMEM;
        w->v = p;
        w->cap = cap;
    }
    Sluice__StreamAssignment *x = ARENA_NEW(w->a, Sluice__StreamAssignment);
    if (x == NULL)
        return SL_ENOMEM;
    sluice__stream_assignment__init(x);
    x->stream_id = s->id;
    x->db = sl_arena_strdup(w->a, s->db);
    x->name = sl_arena_strdup(w->a, s->name);
    x->sql = sl_arena_strdup(w->a, s->sql);
    x->plan_db = sl_arena_strdup(w->a, s->plan_db);
    if (x->db == NULL || x->name == NULL || x->sql == NULL || x->plan_db == NULL)
        return SL_ENOMEM;
    x->slots.data = bits;
    x->slots.len = nbytes;
    x->running = s->running;
    x->ignore_untreated = s->ignore_untreated;
    x->ignore_untreated_epoch = s->ignore_untreated_epoch;
    w->v[w->n++] = x;
    return 0;
}

static void m_snode_heartbeat(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_mdaemon *md = ud;
    Sluice__SnodeHeartbeatRequest *rq =
        sluice__snode_heartbeat_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed SnodeHeartbeatRequest");
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    sl_arena a;
    sl_arena_init(&a);
    asg_walk w = {.a = &a, .node = rq->node_id};
    int rc = 0;
    sl_mcatalog_task_report *tasks = NULL;
    if (rq->n_tasks > 0 && (tasks = calloc(rq->n_tasks, sizeof(*tasks))) == NULL)
        rc = sl_error_set(&err, SL_ENOMEM, 0, 0, "out of memory");
    for (size_t i = 0; rc == 0 && i < rq->n_tasks; i++) {
        const Sluice__TaskStatus *t = rq->tasks[i];
        tasks[i] = (sl_mcatalog_task_report){.stream_id = t->stream_id,
                                             .lag_ms = t->lag_ms,
                                             .rows = t->rows,
                                             .outbox = t->outbox,
                                             .error = t->error};
    }
    sl_mcatalog_snode_report r = {.epoch = rq->epoch,
                                  .memory_bytes = rq->memory_bytes,
                                  .groups = rq->groups,
                                  .ntasks = rq->n_tasks,
                                  .tasks = tasks};
    if (rc == 0)
        rc = sl_mcatalog_snode_heartbeat(md->md_cat, rq->node_id, &r, sl__md_now_ms(), &err);
    if (rc == 0)
        sl__md_place(md);
    uint64_t epoch = sl_mcatalog_epoch(md->md_cat);
    bool send = rc == 0 && rq->epoch != epoch;
    if (send)
        rc = sl_mcatalog_each_stream(md->md_cat, asg_stream, &w);
    if (rc < 0) {
        if (rc == SL_ENOMEM && err.code == 0)
            sl_error_set(&err, rc, 0, 0, "out of memory");
        reply_sl_error(reply, rc, &err);
    } else {
        Sluice__SnodeHeartbeatReply rp = SLUICE__SNODE_HEARTBEAT_REPLY__INIT;
        rp.epoch = epoch;
        rp.slots = sl_mcatalog_slots(md->md_cat);
        rp.assignment = send;
        rp.n_streams = w.n;
        rp.streams = w.v;
        sl_rpc_reply_msg(reply, &rp.base);
    }
    free(tasks);
    free(w.v);
    sl_arena_fini(&a);
    sluice__snode_heartbeat_request__free_unpacked(rq, NULL);
}

static void m_leave(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_mdaemon *md = ud;
    Sluice__LeaveRequest *rq = sluice__leave_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed LeaveRequest");
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    int rc = sl_mcatalog_node_leave(md->md_cat, rq->node_id, &err);
    if (rc < 0) {
        reply_sl_error(reply, rc, &err);
    } else {
        sl_log(SL_LOG_INFO, "mnode", "node left node_id=%u", rq->node_id);
        sl__md_place(md);
        Sluice__LeaveReply rp = SLUICE__LEAVE_REPLY__INIT;
        rp.epoch = sl_mcatalog_epoch(md->md_cat);
        sl_rpc_reply_msg(reply, &rp.base);
    }
    sluice__leave_request__free_unpacked(rq, NULL);
}

static void m_checkpoint_put(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_mdaemon *md = ud;
    Sluice__CheckpointPutRequest *rq =
        sluice__checkpoint_put_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed CheckpointPutRequest");
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    int rc = 0;
    sl_mcatalog_vgroup_version *vers = NULL;
    if (rq->n_versions > SL_MCATALOG_CHECKPOINT_VERSIONS_MAX)
        rc = sl_error_set(&err, SL_ELIMIT, 0, 0, "a checkpoint names at most %u versions",
                          SL_MCATALOG_CHECKPOINT_VERSIONS_MAX);
    else if (rq->n_versions > 0 && (vers = calloc(rq->n_versions, sizeof(*vers))) == NULL)
        rc = sl_error_set(&err, SL_ENOMEM, 0, 0, "out of memory");
    for (size_t i = 0; rc == 0 && i < rq->n_versions; i++) {
        vers[i].vgroup_id = rq->versions[i]->vgroup_id;
        vers[i].version = rq->versions[i]->version;
    }
    /* The request's own slot, then the others of the same put (catalog: 1 to the slots per
     * stream, each once). */
    sl_mcatalog_slot_state *slots = NULL;
    size_t nslots = 1 + rq->n_more;
    if (rc == 0 && rq->n_more >= sl_mcatalog_slots(md->md_cat))
        rc = sl_error_set(&err, SL_ELIMIT, 0, 0, "a checkpoint put names at most %u slots",
                          sl_mcatalog_slots(md->md_cat));
    else if (rc == 0 && (slots = calloc(nslots, sizeof(*slots))) == NULL)
        rc = sl_error_set(&err, SL_ENOMEM, 0, 0, "out of memory");
    if (rc == 0) {
        slots[0] = (sl_mcatalog_slot_state){rq->slot, rq->state.data, rq->state.len};
        for (size_t i = 0; i < rq->n_more; i++)
            slots[i + 1] = (sl_mcatalog_slot_state){rq->more[i]->slot, rq->more[i]->state.data,
                                                    rq->more[i]->state.len};
        rc = sl_mcatalog_checkpoint_put_slots(md->md_cat, rq->node_id, req->epoch, rq->stream_id,
                                              slots, nslots, vers, rq->n_versions, &err);
    }
    free(slots);
    free(vers);
    if (rc < 0) {
        reply_sl_error(reply, rc, &err);
    } else {
        Sluice__CheckpointPutReply rp = SLUICE__CHECKPOINT_PUT_REPLY__INIT;
        rp.epoch = sl_mcatalog_epoch(md->md_cat);
        sl_rpc_reply_msg(reply, &rp.base);
    }
    sluice__checkpoint_put_request__free_unpacked(rq, NULL);
}

static void m_checkpoint_get(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud)
{
    sl_mdaemon *md = ud;
    Sluice__CheckpointGetRequest *rq =
        sluice__checkpoint_get_request__unpack(NULL, req->len, req->payload);
    if (rq == NULL) {
        sl_rpc_reply_fail(reply, SL_ECORRUPT, "malformed CheckpointGetRequest");
        return;
    }
    sl_error err = {0};
    sl_error_clear(&err);
    sl_buf state;
    sl_buf_init(&state);
    uint64_t epoch = 0;
    uint32_t node = 0;
    int rc = sl_mcatalog_checkpoint_get(md->md_cat, rq->stream_id, rq->slot, &state, &epoch, &node,
                                        &err);
    if (rc < 0) {
        reply_sl_error(reply, rc, &err);
    } else {
        Sluice__CheckpointGetReply rp = SLUICE__CHECKPOINT_GET_REPLY__INIT;
        rp.found = rc == 1;
        rp.state.data = state.data;
        rp.state.len = state.len;
        rp.epoch = epoch;
        rp.node_id = node;
        sl_rpc_reply_msg(reply, &rp.base);
    }
    sl_buf_fini(&state);
    sluice__checkpoint_get_request__free_unpacked(rq, NULL);
}

const sl_rpc_method sl__mnode_methods[] = {
    {.number = SLUICE__MNODE_METHOD__MNODE_EXEC, .name = "EXEC", .handler = m_exec},
    {.number = SLUICE__MNODE_METHOD__MNODE_TABLE_META, .name = "TABLE_META",
     .handler = m_table_meta},
    {.number = SLUICE__MNODE_METHOD__MNODE_DB_INFO, .name = "DB_INFO", .handler = m_db_info},
    {.number = SLUICE__MNODE_METHOD__MNODE_AUTO_CREATE, .name = "AUTO_CREATE",
     .handler = m_auto_create},
    {.number = SLUICE__MNODE_METHOD__MNODE_REGISTER, .name = "REGISTER", .handler = m_register},
    {.number = SLUICE__MNODE_METHOD__MNODE_HEARTBEAT, .name = "HEARTBEAT",
     .handler = m_heartbeat},
    {.number = SLUICE__MNODE_METHOD__MNODE_VGROUP_TABLES, .name = "VGROUP_TABLES",
     .handler = m_vgroup_tables},
    {.number = SLUICE__MNODE_METHOD__MNODE_SNODE_HEARTBEAT, .name = "SNODE_HEARTBEAT",
     .handler = m_snode_heartbeat},
    {.number = SLUICE__MNODE_METHOD__MNODE_LEAVE, .name = "LEAVE", .handler = m_leave},
    {.number = SLUICE__MNODE_METHOD__MNODE_CHECKPOINT_PUT, .name = "CHECKPOINT_PUT",
     .handler = m_checkpoint_put},
    {.number = SLUICE__MNODE_METHOD__MNODE_CHECKPOINT_GET, .name = "CHECKPOINT_GET",
     .handler = m_checkpoint_get},
};
const int sl__mnode_nmethods = (int)(sizeof(sl__mnode_methods) / sizeof(sl__mnode_methods[0]));
