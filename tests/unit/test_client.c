/*
 * test_client.c - libsluice's routing, against an in-process fake cluster.
 *
 * The fake is a test double for the routing logic only: three sl_rpc servers on loopback,
 * run by one libuv loop in a thread - an "mnode" answering MNODE_EXEC / TABLE_META /
 * DB_INFO / AUTO_CREATE over a reference embedded store that sees every statement and
 * every row, and two "vnodes" each serving one vgroup (VNODE_WRITE, VNODE_DELETE,
 * VNODE_QUERY) over an embedded store of their own that only receives the rows routed to
 * it. Tables are placed by a hash of their name. VNODE_QUERY runs the PARTIAL plan of the
 * statement on the vgroup's store and pages one block per reply.
 *
 * Checked: DDL, USE and SHOW go to the mnode and nothing to the vnodes; a multi-table
 * INSERT becomes one write per vgroup and one auto-create; the metadata cache answers
 * repeated lookups, and a DDL forgets exactly what it changed (the tables it created or
 * dropped, a child's super table, a super table's children, a database's tables) and keeps
 * the rest; the multi-table block write (sl__insert_blocks) sends one request per vgroup
 * and fails items one by one; SELECTs planned in MERGE mode over the two
 * vgroups return exactly the reference store's rows (aggregates, INTERVAL, PARTITION BY,
 * ORDER BY/LIMIT, subqueries); DELETE reaches every vgroup of a super table; errors keep
 * their codes and line:col positions; the bulk block API.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "client/lib/sluice.h"
#include "client/lib/sluice_int.h"
#include "common/exec/ddl.h"
#include "common/exec/exec.h"
#include "common/exec/memstore.h"
#include "common/exec/plan.h"
#include "common/net/rpc.h"
#include "common/sql/parser.h"
#include "mnode.pb-c.h"
#include "vnode.pb-c.h"

#define NVG 2
#define NOW_MS (1735689600000LL + 3600000)

/* ---------------------------------------------------------------- the fake cluster */

typedef struct fake_table {
    char db[64];
    char name[200];
    char stable[200]; /* "" unless a child table */
    uint64_t uid;
} fake_table;

typedef struct fake {
    uv_loop_t loop;
    uv_thread_t thread;
    uv_async_t stop;
    sl_rpc_server *mnode;
    sl_rpc_server *vnode[NVG];
    int mnode_port;
    char vnode_url[NVG][64];
    sl_memstore *ref;          /* every table, every row */
    sl_memstore *vg[NVG];      /* every table, the rows routed to that vgroup */
    fake_table tables[4096];
    int ntables;
    atomic_int exec_calls, meta_calls, dbinfo_calls, autocreate_calls;
    atomic_int writes[NVG], queries[NVG], deletes[NVG];
    _Atomic uint64_t last_write_epoch; /* envelope epoch of the last WRITE */
    atomic_int last_write_background;  /* WriteRequest.background of the last WRITE */
    atomic_int wrong_vgroup;   /* requests that reached a vnode not serving their vgroup */
    atomic_bool send_created;  /* EXEC of CREATE TABLE answers ExecReply.created, as the
                                * mnode does (mnode/daemon/service.c created_metas) */
} fake;

static fake *F;

static int64_t fixed_now(void *ud)
{
    (void)ud;
    return NOW_MS;
}

/* Placement: a hash of the lowercased table name. */
static uint32_t place(const char *name)
{
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++) {
        char ch = (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
        h = (h ^ (uint8_t)ch) * 16777619u;
    }
    return h % NVG;
}

static fake_table *table_find(const char *db, const char *name)
{
    for (int i = 0; i < F->ntables; i++)
        if (sl_ddl_name_eq(F->tables[i].db, db) && sl_ddl_name_eq(F->tables[i].name, name))
            return &F->tables[i];
    return NULL;
}

static fake_table *table_reg(const char *db, const char *name)
{
    fake_table *t = table_find(db, name);
    if (t != NULL || F->ntables == 4096)
        return t;
    t = &F->tables[F->ntables++];
    snprintf(t->db, sizeof(t->db), "%s", db);
    snprintf(t->name, sizeof(t->name), "%s", name);
    t->uid = 1000 + (uint64_t)F->ntables;
    return t;
}

static fake_table *table_by_uid(uint64_t uid)
{
    for (int i = 0; i < F->ntables; i++)
        if (F->tables[i].uid == uid)
            return &F->tables[i];
    return NULL;
}

static void reply_err(sl_rpc_reply *r, int code, const char *msg)
{
    sl_error e;
    sl_error_clear(&e);
    sl_error_set(&e, code, 0, 0, "%s", msg);
    sl_rpc_reply_error(r, &e);
}

#define REPLY_PB(r, fn, msg)                                                                   \
    do {                                                                                       \
        size_t n_ = fn##__get_packed_size(msg);                                                \
        uint8_t *b_ = malloc(n_ + 1);                                                          \
        fn##__pack(msg, b_);                                                                   \
        sl_rpc_reply_ok(r, b_, n_);                                                            \
        free(b_);                                                                              \
    } while (0)

/* Runs sql on every store (DDL replicated as the mnode would sync it), in db. */
static int exec_all(const char *db, const char *sql, sl_result *ref_res, sl_error *err)
{
    sl_memstore *st[NVG + 1] = {F->ref, F->vg[0], F->vg[1]};
    int rc = 0;
    for (int i = 0; i < NVG + 1; i++) {
        sl_result r;
        if (db != NULL && db[0]) {
            char use[128];
            snprintf(use, sizeof(use), "USE %s", db);
            if (sl_memstore_exec(st[i], use, &r, NULL) == 0)
                sl_result_fini(&r);
        }
        sl_error e;
        sl_error_clear(&e);
        int x = sl_memstore_exec(st[i], sql, &r, &e);
        if (i == 0) {
            rc = x;
            if (x < 0) {
                *err = e;
                return rc;
            }
            *ref_res = r;
        } else if (x == 0) {
            sl_result_fini(&r);
        }
    }
    return rc;
}

/* Fills pb (fields allocated; free with meta_pb_fini) for table db.name. */
static int meta_pb(const char *db, const char *name, Sluice__TableMeta *pb, sl_error *err)
{
    sl_catalog cat = sl_memstore_catalog(F->ref);
    sl_table_meta tm;
    int rc = cat.ops->get_table(cat.ud, db, name, &tm, err);
    if (rc < 0)
        return rc;
    fake_table *t = table_reg(tm.db, tm.name);
    sluice__table_meta__init(pb);
    pb->kind = tm.kind;
    pb->db = (char *)t->db;
    pb->name = (char *)t->name;
    pb->uid = t->uid;
    pb->precision = tm.precision;
    pb->n_columns = (size_t)tm.ncols;
    pb->columns = calloc((size_t)tm.ncols, sizeof(Sluice__Field *));
    for (int i = 0; i < tm.ncols; i++) {
        pb->columns[i] = calloc(1, sizeof(Sluice__Field));
        sluice__field__init(pb->columns[i]);
        pb->columns[i]->name = (char *)tm.cols[i].name;
        pb->columns[i]->type = tm.cols[i].type;
        pb->columns[i]->width = tm.cols[i].width;
    }
    pb->n_tags = (size_t)tm.ntags;
    pb->tags = calloc((size_t)(tm.ntags + 1), sizeof(Sluice__Field *));
    for (int i = 0; i < tm.ntags; i++) {
        pb->tags[i] = calloc(1, sizeof(Sluice__Field));
        sluice__field__init(pb->tags[i]);
        pb->tags[i]->name = (char *)tm.tags[i].name;
        pb->tags[i]->type = tm.tags[i].type;
        pb->tags[i]->width = tm.tags[i].width;
    }
    pb->stable_name = t->stable;
    static char urls[NVG][64];
    pb->vgroups = calloc(NVG, sizeof(Sluice__VgroupInfo *));
    if (tm.kind == SL_TABLE_SUPER) {
        pb->n_vgroups = NVG;
        for (int i = 0; i < NVG; i++) {
            pb->vgroups[i] = calloc(1, sizeof(Sluice__VgroupInfo));
            sluice__vgroup_info__init(pb->vgroups[i]);
            pb->vgroups[i]->vgroup_id = (uint32_t)i;
            pb->vgroups[i]->vnode_id = (uint32_t)i + 1;
            snprintf(urls[i], sizeof(urls[i]), "%s", F->vnode_url[i]);
            pb->vgroups[i]->vnode_address = urls[i];
        }
    } else {
        pb->vgroup = calloc(1, sizeof(Sluice__VgroupInfo));
        sluice__vgroup_info__init(pb->vgroup);
        uint32_t v = place(t->name);
        pb->vgroup->vgroup_id = v;
        pb->vgroup->vnode_id = v + 1;
        pb->vgroup->vnode_address = F->vnode_url[v];
    }
    return 0;
}

static void meta_pb_fini(Sluice__TableMeta *pb)
{
    for (size_t i = 0; i < pb->n_columns; i++)
        free(pb->columns[i]);
    for (size_t i = 0; i < pb->n_tags; i++)
        free(pb->tags[i]);
    for (size_t i = 0; i < pb->n_vgroups; i++)
        free(pb->vgroups[i]);
    free(pb->columns);
    free(pb->tags);
    free(pb->vgroups);
    free(pb->vgroup);
}

/* Remembers the super table of every child table a statement creates (none for a normal
 * table created under a name a dropped child had). */
static void note_children(const char *cur_db, const char *sql)
{
    sl_parse_result *pr;
    if (sl_parse(sql, strlen(sql), &pr, NULL) != 0)
        return;
    for (int i = 0; i < pr->nstmts; i++) {
        const sl_stmt *st = pr->stmts[i];
        if (st->kind == SL_STMT_CREATE_TABLE) {
            const sl_qname *q = &st->u.create_table.name;
            fake_table *t = table_find(q->db ? q->db : cur_db, q->name);
            if (t != NULL)
                t->stable[0] = '\0';
        }
        if (st->kind != SL_STMT_CREATE_SUBTABLES)
            continue;
        for (int k = 0; k < st->u.create_subtables.n; k++) {
            const sl_create_subtable *s = &st->u.create_subtables.items[k];
            fake_table *t = table_reg(s->name.db ? s->name.db : cur_db, s->name.name);
            if (t != NULL)
                snprintf(t->stable, sizeof(t->stable), "%s", s->stable.name);
        }
    }
    sl_parse_result_free(pr);
}

/* Reads the string literal after `key = '` in sql into out. */
static void literal_after(const char *sql, const char *key, char *out, size_t n)
{
    out[0] = '\0';
    const char *p = strstr(sql, key);
    if (p == NULL)
        return;
    p += strlen(key);
    size_t k = 0;
    while (*p && *p != '\'' && k + 1 < n)
        out[k++] = *p++;
    out[k] = '\0';
}

/* The one information_schema query the client sends itself: a super table's children. */
static bool answer_ins_tables(const char *sql, sl_result *res)
{
    if (strstr(sql, "information_schema.ins_tables") == NULL)
        return false;
    char db[64], st[200];
    literal_after(sql, "db_name = '", db, sizeof(db));
    literal_after(sql, "stable_name = '", st, sizeof(st));
    static const char *const names[] = {"uid", "vgroup_id"};
    static const sl_type types[] = {SL_T_BIGINT, SL_T_INT};
    sl_result_init(res);
    sl_result_setup(res, 2, names, types, NULL);
    for (int i = 0; i < F->ntables; i++) {
        const fake_table *t = &F->tables[i];
        if (sl_ddl_name_eq(t->db, db) && sl_ddl_name_eq(t->stable, st)) {
            sl_column_append_i64(&res->rows.cols[0], (int64_t)t->uid);
            sl_column_append_i64(&res->rows.cols[1], place(t->name));
        }
    }
    sl_block_seal(&res->rows);
    return true;
}

static void h_exec(sl_rpc_reply *r, const sl_rpc_request *req, void *ud)
{
    atomic_fetch_add(&F->exec_calls, 1);
    Sluice__ExecRequest *q = sluice__exec_request__unpack(NULL, req->len, req->payload);
    if (q == NULL)
        return reply_err(r, SL_ECORRUPT, "bad ExecRequest");
    sl_result res;
    sl_error err;
    sl_error_clear(&err);
    sl_parse_result *pr = NULL;
    bool is_use = false, is_ddl = false;
    const char *use_db = NULL;
    if (sl_parse(q->sql, strlen(q->sql), &pr, &err) == 0 && pr->nstmts == 1) {
        sl_stmt_kind k = pr->stmts[0]->kind;
        is_use = k == SL_STMT_USE;
        use_db = is_use ? pr->stmts[0]->u.use_db : NULL;
        is_ddl = k != SL_STMT_SHOW && k != SL_STMT_DESCRIBE && k != SL_STMT_SELECT && !is_use;
    }
    int rc;
    if (answer_ins_tables(q->sql, &res)) {
        rc = 0;
    } else if (is_ddl) {
        rc = exec_all(q->current_db, q->sql, &res, &err);
        if (rc == 0)
            note_children(q->current_db, q->sql);
    } else {
        sl_result u;
        if (q->current_db[0]) {
            char use[128];
            snprintf(use, sizeof(use), "USE %s", q->current_db);
            if (sl_memstore_exec(F->ref, use, &u, NULL) == 0)
                sl_result_fini(&u);
        }
        rc = sl_memstore_exec(F->ref, q->sql, &res, &err);
    }
    if (rc < 0) {
        sl_rpc_reply_error(r, &err);
    } else {
        Sluice__ResultSet rs = SLUICE__RESULT_SET__INIT;
        sl_buf blk;
        sl_buf_init(&blk);
        rs.n_names = (size_t)res.ncols;
        rs.names = res.names;
        if (res.ncols > 0) {
            sl_block_encode(&res.rows, &blk);
            rs.block.data = blk.data;
            rs.block.len = blk.len;
        }
        rs.precision = res.precision;
        rs.affected = res.affected;
        Sluice__ExecReply rep = SLUICE__EXEC_REPLY__INIT;
        rep.result = &rs;
        rep.current_db = (char *)(is_use ? use_db : q->current_db);
        /* CREATE TABLE: the metadata of the tables it names, when asked to send it */
        Sluice__TableMeta created[8], *cp[8];
        const sl_stmt *st = pr != NULL && pr->nstmts == 1 ? pr->stmts[0] : NULL;
        int nnames = st == NULL || !atomic_load(&F->send_created) ? 0
                     : st->kind == SL_STMT_CREATE_TABLE       ? 1
                     : st->kind == SL_STMT_CREATE_SUBTABLES   ? st->u.create_subtables.n
                                                              : 0;
        for (int i = 0; i < nnames && rep.n_created < 8; i++) {
            const sl_qname *qn = st->kind == SL_STMT_CREATE_TABLE
                                     ? &st->u.create_table.name
                                     : &st->u.create_subtables.items[i].name;
            sl_error e2;
            sl_error_clear(&e2);
            if (meta_pb(qn->db != NULL ? qn->db : q->current_db, qn->name,
                        &created[rep.n_created], &e2) == 0) {
                cp[rep.n_created] = &created[rep.n_created];
                rep.n_created++;
            }
        }
        rep.created = cp;
        REPLY_PB(r, sluice__exec_reply, &rep);
        for (size_t i = 0; i < rep.n_created; i++)
            meta_pb_fini(&created[i]);
        sl_buf_fini(&blk);
        sl_result_fini(&res);
    }
    sl_parse_result_free(pr);
    sluice__exec_request__free_unpacked(q, NULL);
}

static void h_table_meta(sl_rpc_reply *r, const sl_rpc_request *req, void *ud)
{
    atomic_fetch_add(&F->meta_calls, 1);
    Sluice__TableMetaRequest *q = sluice__table_meta_request__unpack(NULL, req->len, req->payload);
    if (q == NULL)
        return reply_err(r, SL_ECORRUPT, "bad TableMetaRequest");
    Sluice__TableMeta pb;
    sl_error err;
    sl_error_clear(&err);
    if (meta_pb(q->db, q->name, &pb, &err) < 0) {
        sl_rpc_reply_error(r, &err);
    } else {
        /* more_names: those that exist, as the mnode answers them (mnode/daemon/service.c) */
        Sluice__TableMeta *more = calloc(q->n_more_names + 1, sizeof(*more));
        Sluice__TableMeta **mp = calloc(q->n_more_names + 1, sizeof(*mp));
        assert_non_null(more);
        assert_non_null(mp);
        Sluice__TableMetaReply rep = SLUICE__TABLE_META_REPLY__INIT;
        rep.meta = &pb;
        for (size_t i = 0; i < q->n_more_names; i++) {
            sl_error e2;
            sl_error_clear(&e2);
            if (meta_pb(q->db, q->more_names[i], &more[rep.n_more], &e2) == 0) {
                mp[rep.n_more] = &more[rep.n_more];
                rep.n_more++;
            }
        }
        rep.more = mp;
        REPLY_PB(r, sluice__table_meta_reply, &rep);
        meta_pb_fini(&pb);
        for (size_t i = 0; i < rep.n_more; i++)
            meta_pb_fini(&more[i]);
        free(more);
        free(mp);
    }
    sluice__table_meta_request__free_unpacked(q, NULL);
}

static void h_db_info(sl_rpc_reply *r, const sl_rpc_request *req, void *ud)
{
    atomic_fetch_add(&F->dbinfo_calls, 1);
    Sluice__DbInfoRequest *q = sluice__db_info_request__unpack(NULL, req->len, req->payload);
    if (q == NULL)
        return reply_err(r, SL_ECORRUPT, "bad DbInfoRequest");
    sl_result res;
    bool found = false;
    if (sl_memstore_exec(F->ref, "SHOW DATABASES", &res, NULL) == 0) {
        for (uint32_t i = 0; i < res.rows.nrows; i++) {
            uint32_t len;
            const char *s = sl_column_get_str(&res.rows.cols[0], i, &len);
            found = found || (len == strlen(q->db) && strncasecmp(s, q->db, len) == 0);
        }
        sl_result_fini(&res);
    }
    if (!found) {
        char msg[128];
        snprintf(msg, sizeof(msg), "database '%s' does not exist", q->db);
        reply_err(r, SL_ENOTFOUND, msg);
    } else {
        Sluice__DbInfoReply rep = SLUICE__DB_INFO_REPLY__INIT;
        Sluice__VgroupInfo vi[NVG], *vp[NVG];
        for (int i = 0; i < NVG; i++) {
            sluice__vgroup_info__init(&vi[i]);
            vi[i].vgroup_id = (uint32_t)i;
            vi[i].vnode_address = F->vnode_url[i];
            vp[i] = &vi[i];
        }
        rep.db = q->db;
        rep.precision = SL_PREC_MS;
        rep.n_vgroups = NVG;
        rep.vgroups = vp;
        REPLY_PB(r, sluice__db_info_reply, &rep);
    }
    sluice__db_info_request__free_unpacked(q, NULL);
}

/* Appends v as an SQL literal. */
static void put_literal(sl_buf *b, const sl_value *v)
{
    if (v->is_null) {
        sl_buf_printf(b, "NULL");
    } else if (v->type == SL_T_VARCHAR || v->type == SL_T_NCHAR) {
        sl_buf_printf(b, "'");
        for (uint32_t i = 0; i < v->v.s.len; i++)
            sl_buf_printf(b, v->v.s.ptr[i] == '\'' ? "''" : "%c", v->v.s.ptr[i]);
        sl_buf_printf(b, "'");
    } else if (v->type == SL_T_TIMESTAMP) {
        sl_buf_printf(b, "%lld", (long long)v->v.i);
    } else {
        char tmp[64];
        sl_value_format(v, SL_PREC_MS, tmp, sizeof(tmp));
        sl_buf_printf(b, "%s", tmp);
    }
}

static void h_auto_create(sl_rpc_reply *r, const sl_rpc_request *req, void *ud)
{
    atomic_fetch_add(&F->autocreate_calls, 1);
    Sluice__AutoCreateRequest *q = sluice__auto_create_request__unpack(NULL, req->len, req->payload);
    if (q == NULL)
        return reply_err(r, SL_ECORRUPT, "bad AutoCreateRequest");
    Sluice__TableMeta *metas = calloc(q->n_items + 1, sizeof(*metas));
    Sluice__TableMeta **mp = calloc(q->n_items + 1, sizeof(*mp));
    size_t done = 0;
    sl_error err;
    sl_error_clear(&err);
    int rc = 0;
    for (size_t i = 0; i < q->n_items && rc == 0; i++) {
        const Sluice__AutoCreateItem *it = q->items[i];
        sl_block tv;
        sl_block_init(&tv);
        if ((rc = sl_block_decode(it->tag_values.data, it->tag_values.len, &tv, &err)) < 0)
            break;
        sl_buf sql;
        sl_buf_init(&sql);
        sl_buf_printf(&sql, "CREATE TABLE IF NOT EXISTS %s.%s USING %s.%s TAGS (", it->db, it->name,
                      it->db, it->stable);
        for (uint32_t k = 0; k < tv.ncols; k++) {
            sl_value v;
            sl_column_get(&tv.cols[k], 0, &v);
            if (k > 0)
                sl_buf_printf(&sql, ", ");
            put_literal(&sql, &v);
        }
        sl_buf_printf(&sql, ")");
        sl_buf_put_u8(&sql, 0);
        sl_result res;
        rc = exec_all(NULL, (const char *)sql.data, &res, &err);
        if (rc == 0) {
            sl_result_fini(&res);
            fake_table *t = table_reg(it->db, it->name);
            snprintf(t->stable, sizeof(t->stable), "%s", it->stable);
            rc = meta_pb(it->db, it->name, &metas[i], &err);
            if (rc == 0)
                mp[done++] = &metas[i];
        }
        sl_buf_fini(&sql);
        sl_block_fini(&tv);
    }
    if (rc < 0) {
        sl_rpc_reply_error(r, &err);
    } else {
        Sluice__AutoCreateReply rep = SLUICE__AUTO_CREATE_REPLY__INIT;
        rep.n_metas = done;
        rep.metas = mp;
        REPLY_PB(r, sluice__auto_create_reply, &rep);
    }
    for (size_t i = 0; i < done; i++)
        meta_pb_fini(&metas[i]);
    free(metas);
    free(mp);
    sluice__auto_create_request__free_unpacked(q, NULL);
}

static const sl_rpc_method mnode_methods[] = {
    {.number = SLUICE__MNODE_METHOD__MNODE_EXEC, .name = "EXEC", .handler = h_exec},
    {.number = SLUICE__MNODE_METHOD__MNODE_TABLE_META, .name = "TABLE_META", .handler = h_table_meta},
    {.number = SLUICE__MNODE_METHOD__MNODE_DB_INFO, .name = "DB_INFO", .handler = h_db_info},
    {.number = SLUICE__MNODE_METHOD__MNODE_AUTO_CREATE, .name = "AUTO_CREATE",
     .handler = h_auto_create},
};

/* The vgroup a vnode handler serves (ud is its index). */
static int vnode_of(void *ud)
{
    return (int)(intptr_t)ud;
}

static void h_write(sl_rpc_reply *r, const sl_rpc_request *req, void *ud)
{
    int v = vnode_of(ud);
    atomic_fetch_add(&F->writes[v], 1);
    atomic_store(&F->last_write_epoch, req->epoch);
    Sluice__WriteRequest *q = sluice__write_request__unpack(NULL, req->len, req->payload);
    if (q == NULL)
        return reply_err(r, SL_ECORRUPT, "bad WriteRequest");
    atomic_store(&F->last_write_background, q->background ? 1 : 0);
    if (q->vgroup_id != (uint32_t)v)
        atomic_fetch_add(&F->wrong_vgroup, 1);
    uint64_t rows = 0;
    sl_error err;
    sl_error_clear(&err);
    int rc = 0;
    for (size_t i = 0; i < q->n_items && rc == 0; i++) {
        fake_table *t = table_by_uid(q->items[i]->uid);
        if (t == NULL || place(t->name) != (uint32_t)v) {
            rc = sl_error_set(&err, SL_ENOTFOUND, 0, 0, "vgroup %d has no table uid %llu", v,
                              (unsigned long long)q->items[i]->uid);
            break;
        }
        sl_block b;
        sl_block_init(&b);
        rc = sl_block_decode(q->items[i]->block.data, q->items[i]->block.len, &b, &err);
        if (rc == 0)
            rc = sl_memstore_append(F->vg[v], t->db, t->name, &b, &err);
        if (rc == 0)
            rc = sl_memstore_append(F->ref, t->db, t->name, &b, &err);
        rows += b.nrows;
        sl_block_fini(&b);
    }
    if (rc < 0) {
        sl_rpc_reply_error(r, &err);
    } else {
        Sluice__WriteReply rep = SLUICE__WRITE_REPLY__INIT;
        rep.rows = rows;
        REPLY_PB(r, sluice__write_reply, &rep);
    }
    sluice__write_request__free_unpacked(q, NULL);
}

static void h_delete(sl_rpc_reply *r, const sl_rpc_request *req, void *ud)
{
    int v = vnode_of(ud);
    atomic_fetch_add(&F->deletes[v], 1);
    Sluice__DeleteRequest *q = sluice__delete_request__unpack(NULL, req->len, req->payload);
    if (q == NULL)
        return reply_err(r, SL_ECORRUPT, "bad DeleteRequest");
    fake_table *t = table_by_uid(q->uid);
    if (t == NULL) {
        reply_err(r, SL_ENOTFOUND, "no such table");
    } else {
        char sql[512];
        snprintf(sql, sizeof(sql), "DELETE FROM %s.%s WHERE _rowts >= %lld AND _rowts <= %lld",
                 t->db, t->name, (long long)q->ts_lo, (long long)q->ts_hi);
        sl_result res, res2;
        sl_error err;
        sl_error_clear(&err);
        if (sl_memstore_exec(F->vg[v], sql, &res, &err) < 0) {
            sl_rpc_reply_error(r, &err);
        } else {
            if (sl_memstore_exec(F->ref, sql, &res2, NULL) == 0)
                sl_result_fini(&res2);
            Sluice__DeleteReply rep = SLUICE__DELETE_REPLY__INIT;
            rep.deleted = (uint64_t)res.affected;
            REPLY_PB(r, sluice__delete_reply, &rep);
            sl_result_fini(&res);
        }
    }
    sluice__delete_request__free_unpacked(q, NULL);
}

static void h_query(sl_rpc_reply *r, const sl_rpc_request *req, void *ud)
{
    int v = vnode_of(ud);
    atomic_fetch_add(&F->queries[v], 1);
    Sluice__QueryRequest *q = sluice__query_request__unpack(NULL, req->len, req->payload);
    if (q == NULL)
        return reply_err(r, SL_ECORRUPT, "bad QueryRequest");
    sl_error err;
    sl_error_clear(&err);
    sl_parse_result *pr = NULL;
    sl_plan *p = NULL;
    int rc = sl_parse(q->sql, strlen(q->sql), &pr, &err);
    if (rc == 0) {
        sl_plan_ctx ctx = {.catalog = sl_memstore_catalog(F->vg[v]),
                           .db = q->db[0] ? q->db : NULL,
                           .now_ms = q->now_ms,
                           .mode = SL_PLAN_PARTIAL};
        rc = sl_plan_select(pr->stmts[0]->u.select, &ctx, &p, &err);
    }
    /* One block per page: skip the blocks earlier pages returned. */
    sl_buf enc;
    sl_buf_init(&enc);
    uint64_t idx = 0;
    bool more = false, have = false;
    while (rc == 0) {
        sl_block *b;
        if ((rc = sl_plan_next(p, &b, &err)) < 0 || b == NULL)
            break;
        if (have) {
            more = true;
            break;
        }
        if (idx++ == q->cursor) {
            sl_block_encode(b, &enc);
            have = true;
        }
    }
    if (rc < 0) {
        sl_rpc_reply_error(r, &err);
    } else {
        Sluice__QueryReply rep = SLUICE__QUERY_REPLY__INIT;
        ProtobufCBinaryData blk = {.len = enc.len, .data = enc.data};
        rep.n_blocks = have ? 1 : 0;
        rep.blocks = &blk;
        rep.cursor = more ? q->cursor + 1 : 0;
        REPLY_PB(r, sluice__query_reply, &rep);
    }
    sl_buf_fini(&enc);
    sl_plan_free(p);
    sl_parse_result_free(pr);
    sluice__query_request__free_unpacked(q, NULL);
}

static const sl_rpc_method vnode_methods[] = {
    {.number = SLUICE__VNODE_METHOD__VNODE_WRITE, .name = "WRITE", .handler = h_write},
    {.number = SLUICE__VNODE_METHOD__VNODE_DELETE, .name = "DELETE", .handler = h_delete},
    {.number = SLUICE__VNODE_METHOD__VNODE_QUERY, .name = "QUERY", .handler = h_query},
};

static void on_stop(uv_async_t *h)
{
    sl_rpc_server_close(F->mnode);
    for (int i = 0; i < NVG; i++)
        sl_rpc_server_close(F->vnode[i]);
    uv_close((uv_handle_t *)&F->stop, NULL);
}

static void loop_main(void *arg)
{
    (void)arg;
    uv_run(&F->loop, UV_RUN_DEFAULT);
}

static int fake_start(void **state)
{
    (void)state;
    F = calloc(1, sizeof(*F));
    assert_non_null(F);
    assert_int_equal(uv_loop_init(&F->loop), 0);
    assert_int_equal(sl_memstore_open(&F->ref, fixed_now, NULL), 0);
    for (int i = 0; i < NVG; i++)
        assert_int_equal(sl_memstore_open(&F->vg[i], fixed_now, NULL), 0);
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_rpc_server_open(&F->mnode, &F->loop, "tcp://127.0.0.1:0", mnode_methods,
                                        4, NULL, NULL, &err),
                     0);
    F->mnode_port = sl_rpc_server_port(F->mnode);
    for (int i = 0; i < NVG; i++) {
        assert_int_equal(sl_rpc_server_open(&F->vnode[i], &F->loop, "tcp://127.0.0.1:0",
                                            vnode_methods, 3, (void *)(intptr_t)i, NULL, &err),
                         0);
        snprintf(F->vnode_url[i], sizeof(F->vnode_url[i]), "tcp://127.0.0.1:%d",
                 sl_rpc_server_port(F->vnode[i]));
    }
    uv_async_init(&F->loop, &F->stop, on_stop);
    assert_int_equal(uv_thread_create(&F->thread, loop_main, NULL), 0);
    return 0;
}

static int fake_stop(void **state)
{
    (void)state;
    uv_async_send(&F->stop);
    uv_thread_join(&F->thread);
    uv_loop_close(&F->loop);
    sl_memstore_close(F->ref);
    for (int i = 0; i < NVG; i++)
        sl_memstore_close(F->vg[i]);
    free(F);
    F = NULL;
    return 0;
}

/* ---------------------------------------------------------------- helpers */

static sl_conn *connect_fake(void)
{
    sl_conn *c;
    sl_error err;
    sl_error_clear(&err);
    if (sl_connect("127.0.0.1", F->mnode_port, &c, &err) != 0)
        fail_msg("connect: %s", err.msg);
    return c;
}

static void q_ok(sl_conn *c, const char *sql, sl_result *res)
{
    sl_error err;
    sl_error_clear(&err);
    if (sl_query(c, sql, res, &err) != 0)
        fail_msg("%s: %s", sql, err.msg);
}

static void q_ok0(sl_conn *c, const char *sql)
{
    sl_result r;
    q_ok(c, sql, &r);
    sl_result_fini(&r);
}

static void fmt_rows(const sl_result *res, char ***out, int *n)
{
    const sl_block *b = &res->rows;
    *n = res->ncols > 0 ? (int)b->nrows : 0;
    *out = calloc((size_t)*n + 1, sizeof(char *));
    for (int r = 0; r < *n; r++) {
        char line[2048];
        size_t off = 0;
        for (uint32_t c = 0; c < b->ncols; c++) {
            sl_value v;
            sl_column_get(&b->cols[c], (uint32_t)r, &v);
            char cell[128];
            if (v.is_null)
                snprintf(cell, sizeof(cell), "NULL");
            else if (v.type == SL_T_DOUBLE || v.type == SL_T_FLOAT)
                snprintf(cell, sizeof(cell), "%.10g", v.v.d);
            else
                sl_value_format(&v, SL_PREC_MS, cell, sizeof(cell));
            off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%s", c ? "|" : "", cell);
        }
        (*out)[r] = strdup(line);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_rows(char **r, int n)
{
    for (int i = 0; i < n; i++)
        free(r[i]);
    free(r);
}

/* ---------------------------------------------------------------- tests */

/* Data: super table m with 10 children, 120 rows each, written through the client. */
static void load(sl_conn *c)
{
    q_ok0(c, "CREATE DATABASE db; USE db; CREATE STABLE m (ts TIMESTAMP, v INT, d DOUBLE, "
             "s VARCHAR(8)) TAGS (loc VARCHAR(8), g INT)");
    uint64_t x = 12345;
    sl_buf sql;
    sl_buf_init(&sql);
    sl_buf_printf(&sql, "INSERT INTO");
    for (int t = 0; t < 10; t++) {
        sl_buf_printf(&sql, " d%d USING m TAGS ('%s', %d) VALUES", t,
                      t % 3 == 0 ? "SF" : t % 3 == 1 ? "LA" : "NY", t % 4);
        for (int r = 0; r < 120; r++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            int64_t ts = 1735689600000LL + r * 7000 + (int64_t)(t * 13);
            int v = (int)((x >> 33) % 200) - 50;
            double d = (double)((x >> 20) % 10000) / 16.0;
            bool vnull = (x >> 10) % 9 == 0, dnull = (x >> 14) % 11 == 0;
            char vbuf[32], dbuf[48];
            snprintf(vbuf, sizeof(vbuf), "%d", v);
            snprintf(dbuf, sizeof(dbuf), "%.4f", d);
            sl_buf_printf(&sql, " (%lld, %s, %s, '%c')", (long long)ts, vnull ? "NULL" : vbuf,
                          dnull ? "NULL" : dbuf, 'a' + (int)(x % 5));
        }
    }
    sl_buf_put_u8(&sql, 0);
    sl_result res;
    q_ok(c, (const char *)sql.data, &res);
    assert_int_equal(res.affected, 1200);
    sl_result_fini(&res);
    sl_buf_fini(&sql);
}

static void test_ddl_goes_to_mnode(void **state)
{
    (void)state;
    sl_conn *c = connect_fake();
    int exec0 = atomic_load(&F->exec_calls);
    q_ok0(c, "CREATE DATABASE db; USE db");
    assert_string_equal(sl_conn_db(c), "db");
    q_ok0(c, "CREATE STABLE m (ts TIMESTAMP, v INT) TAGS (g INT); CREATE TABLE n1 (ts "
             "TIMESTAMP, x DOUBLE)");
    assert_int_equal(atomic_load(&F->exec_calls) - exec0, 4);
    sl_result r;
    q_ok(c, "SHOW STABLES", &r);
    assert_int_equal(sl_res_ncols(&r), 4);
    assert_string_equal(sl_res_name(&r, 0), "stable_name");
    assert_int_equal(sl_res_nrows(&r), 1);
    uint32_t len;
    const char *s = sl_res_str(&r, 0, 0, &len);
    assert_int_equal(len, 1);
    assert_memory_equal(s, "m", 1);
    sl_result_fini(&r);
    q_ok(c, "DESCRIBE m", &r);
    assert_int_equal(sl_res_nrows(&r), 3);
    sl_result_fini(&r);
    /* nothing reached a vnode */
    for (int i = 0; i < NVG; i++) {
        assert_int_equal(atomic_load(&F->writes[i]), 0);
        assert_int_equal(atomic_load(&F->queries[i]), 0);
    }
    /* SELECT without FROM runs in the client */
    int exec1 = atomic_load(&F->exec_calls);
    q_ok(c, "SELECT 1 + 2", &r);
    assert_int_equal(sl_res_nrows(&r), 1);
    assert_int_equal(sl_res_i64(&r, 0, 0), 3);
    sl_result_fini(&r);
    assert_int_equal(atomic_load(&F->exec_calls), exec1);
    sl_close(c);
}

static void test_insert_batches_per_vgroup_and_cache(void **state)
{
    (void)state;
    sl_conn *c = connect_fake();
    int ac0 = atomic_load(&F->autocreate_calls);
    load(c);
    /* one auto-create for the ten new children, one write per vgroup holding any */
    assert_int_equal(atomic_load(&F->autocreate_calls) - ac0, 1);
    int want_writes[NVG] = {0, 0};
    char name[16];
    for (int t = 0; t < 10; t++) {
        snprintf(name, sizeof(name), "d%d", t);
        want_writes[place(name)] = 1;
    }
    assert_true(want_writes[0] == 1 && want_writes[1] == 1); /* both vgroups used */
    for (int i = 0; i < NVG; i++)
        assert_int_equal(atomic_load(&F->writes[i]), want_writes[i]);
    assert_int_equal(atomic_load(&F->wrong_vgroup), 0);
    sl_conn_stats st0, st1;
    sl_conn_get_stats(c, &st0);
    assert_int_equal(st0.vnode_writes, 2);

    /* The same tables again: every lookup is a cache hit, no mnode call. */
    int meta0 = atomic_load(&F->meta_calls);
    int exec0 = atomic_load(&F->exec_calls);
    sl_result r;
    q_ok(c, "INSERT INTO d0 VALUES (1735700000000, 1, 1.5, 'x') d1 VALUES (1735700000000, 2, "
            "NULL, 'y') d2 USING m TAGS ('NY', 2) VALUES (1735700000000, 3, 2.5, NULL)",
         &r);
    assert_int_equal(r.affected, 3);
    sl_result_fini(&r);
    sl_conn_get_stats(c, &st1);
    assert_int_equal(atomic_load(&F->meta_calls), meta0);
    assert_int_equal(atomic_load(&F->exec_calls), exec0);
    assert_int_equal(st1.meta_misses, st0.meta_misses);
    assert_true(st1.meta_hits >= st0.meta_hits + 3);

    /* A DDL forgets only what it changed: d0 stays cached across CREATE TABLE n2
     * (test_cache_forgets_what_ddl_changed checks what goes). */
    q_ok0(c, "CREATE TABLE n2 (ts TIMESTAMP, x INT)");
    q_ok0(c, "INSERT INTO d0 VALUES (1735700001000, 4, 0.5, 'z')");
    sl_conn_get_stats(c, &st0);
    assert_int_equal(st0.meta_misses, st1.meta_misses);
    assert_int_equal(atomic_load(&F->meta_calls), meta0);

    /* A second connection has its own cache and sees the rows. */
    sl_conn *c2 = connect_fake();
    q_ok0(c2, "USE db");
    q_ok(c2, "SELECT count(*) FROM m", &r);
    assert_int_equal(sl_res_i64(&r, 0, 0), 1204);
    sl_result_fini(&r);
    sl_close(c2);
    sl_close(c);
}

static void check_same(sl_conn *c, const char *sql)
{
    sl_result got, want;
    q_ok(c, sql, &got);
    sl_error err;
    sl_error_clear(&err);
    sl_result u;
    if (sl_memstore_exec(F->ref, "USE db", &u, NULL) == 0)
        sl_result_fini(&u);
    if (sl_memstore_exec(F->ref, sql, &want, &err) != 0)
        fail_msg("reference %s: %s", sql, err.msg);
    assert_int_equal(got.ncols, want.ncols);
    for (int i = 0; i < got.ncols; i++)
        assert_string_equal(got.names[i], want.names[i]);
    char **gr, **wr;
    int ng, nw;
    fmt_rows(&got, &gr, &ng);
    fmt_rows(&want, &wr, &nw);
    if (strstr(sql, "ORDER BY") == NULL) {
        qsort(gr, (size_t)ng, sizeof(char *), cmp_str);
        qsort(wr, (size_t)nw, sizeof(char *), cmp_str);
    }
    if (ng != nw)
        fail_msg("%s: client %d rows, reference %d", sql, ng, nw);
    assert_true(ng > 0);
    for (int i = 0; i < ng; i++)
        if (strcmp(gr[i], wr[i]) != 0)
            fail_msg("%s: row %d differs:\n client %s\n ref    %s", sql, i, gr[i], wr[i]);
    free_rows(gr, ng);
    free_rows(wr, nw);
    sl_result_fini(&got);
    sl_result_fini(&want);
}

static void test_select_merges_like_one_store(void **state)
{
    (void)state;
    sl_conn *c = connect_fake();
    load(c);
    static const char *queries[] = {
        "SELECT count(*), count(v), sum(v), avg(v), min(v), max(v), spread(v), stddev(v) FROM m",
        "SELECT count(*), sum(d), avg(d), min(d), max(d) FROM m WHERE v > 0",
        "SELECT first(v), last(v), last_row(v), first(s), last(s), min(s), max(s) FROM m",
        "SELECT tbname, count(*), avg(v), max(d) FROM m PARTITION BY tbname",
        "SELECT loc, count(*), sum(v), min(s) FROM m GROUP BY loc",
        "SELECT loc, g, count(*), avg(d) FROM m GROUP BY loc, g HAVING count(*) > 100",
        "SELECT _wstart, _wend, count(*), sum(v), max(d) FROM m INTERVAL(1m)",
        "SELECT tbname, _wstart, count(*), avg(v) FROM m PARTITION BY tbname INTERVAL(2m)",
        "SELECT _wstart, count(*), min(v), first(d), last(d) FROM m INTERVAL(3m) SLIDING(1m)",
        "SELECT loc, count(*) AS c FROM m GROUP BY loc ORDER BY c DESC, loc",
        "SELECT tbname, max(v) - min(v) AS r FROM m PARTITION BY tbname ORDER BY r DESC, tbname "
        "LIMIT 4 OFFSET 1",
        "SELECT DISTINCT loc, g FROM m",
        "SELECT ts, tbname, v, d FROM m WHERE v > 140 ORDER BY ts, tbname",
        "SELECT count(*), max(c) FROM (SELECT tbname, count(*) AS c FROM m PARTITION BY tbname)",
        "SELECT count(*), sum(v), avg(d) FROM d3",
        "SELECT _wstart, count(*), max(v) FROM d7 INTERVAL(1m)",
        "SELECT * FROM d5 ORDER BY ts LIMIT 7",
    };
    for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++)
        check_same(c, queries[i]);
    /* The super-table scans reached both vgroups, paging with cursors. */
    for (int i = 0; i < NVG; i++)
        assert_true(atomic_load(&F->queries[i]) > 0);

    /* DELETE over the super table reaches every child on its vgroup, and matches the
     * reference. */
    int d0 = atomic_load(&F->deletes[0]), d1 = atomic_load(&F->deletes[1]);
    sl_result r;
    q_ok(c, "DELETE FROM m WHERE ts < '2025-01-01 00:05:00'", &r);
    int want_del[NVG] = {0, 0};
    char name[16];
    for (int t = 0; t < 10; t++) {
        snprintf(name, sizeof(name), "d%d", t);
        want_del[place(name)]++;
    }
    assert_int_equal(atomic_load(&F->deletes[0]) - d0, want_del[0]);
    assert_int_equal(atomic_load(&F->deletes[1]) - d1, want_del[1]);
    /* rows r*7000+t*13 < 300000: r <= 42 for every t (42*7000+117 < 300000) -> 43 per table */
    assert_int_equal(r.affected, 430);
    sl_result_fini(&r);
    check_same(c, "SELECT count(*), min(ts) FROM m");
    q_ok(c, "DELETE FROM d1 WHERE ts >= '2025-01-01 00:10:00' AND ts <= '2025-01-01 00:10:30'", &r);
    /* d1 timestamps: r*7000+13 in [600000, 630000] -> r = 86..89 */
    assert_int_equal(r.affected, 4);
    sl_result_fini(&r);
    check_same(c, "SELECT tbname, count(*) FROM m PARTITION BY tbname");
    sl_close(c);
}

static void expect_error(sl_conn *c, const char *sql, int code, int line, int col,
                         const char *needle)
{
    sl_result r;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_query(c, sql, &r, &err);
    if (rc != code)
        fail_msg("%s: expected code %d, got %d (%s)", sql, code, rc, err.msg);
    if (err.code != code || err.line != line || err.col != col)
        fail_msg("%s: expected %d at %d:%d, got %d at %d:%d (%s)", sql, code, line, col, err.code,
                 err.line, err.col, err.msg);
    char prefix[32];
    snprintf(prefix, sizeof(prefix), "%d:%d: ", line, col);
    if (line > 0 && strncmp(err.msg, prefix, strlen(prefix)) != 0)
        fail_msg("%s: message '%s' lacks prefix '%s'", sql, err.msg, prefix);
    if (strstr(err.msg, needle) == NULL)
        fail_msg("%s: message '%s' lacks '%s'", sql, err.msg, needle);
    assert_int_equal(r.ncols, 0);
    sl_result_fini(&r);
}

static void test_errors_keep_positions(void **state)
{
    (void)state;
    sl_conn *c = connect_fake();
    load(c);
    int w0 = atomic_load(&F->writes[0]) + atomic_load(&F->writes[1]);
    /* parser */
    expect_error(c, "SELECT FROM m", SL_ESYNTAX, 1, 8, "syntax error");
    /* planner, in the client */
    expect_error(c, "SELECT nope FROM m", SL_ENOTFOUND, 1, 8, "nope");
    /* mnode error in the second statement, shifted to the caller's text */
    expect_error(c, "USE db;\n  CREATE STABLE m (ts TIMESTAMP, v INT) TAGS (g INT)", SL_EEXIST, 2,
                 17, "m");
    /* value conversion in the client: the second row's v */
    expect_error(c, "INSERT INTO d0 VALUES (1735700000000, 1, 1.0, 'a')\n (1735700001000, 'abc', "
                    "2.0, 'b')",
                 SL_ETYPE, 2, 18, "'v'");
    /* string too long for VARCHAR(8), on the third item */
    expect_error(c, "INSERT INTO d0 VALUES (1735700000000, 1, 1.0, 'a') d1 VALUES "
                    "(1735700000000, 1, 1.0, 'a') d2 VALUES (1735700000000, 1, 1.0, '123456789')",
                 SL_ERANGE, 1, 125, "'s'");
    expect_error(c, "INSERT INTO nosuch VALUES (1735700000000, 1)", SL_ENOTFOUND, 1, 13, "nosuch");
    expect_error(c, "INSERT INTO m VALUES (1735700000000, 1, 1.0, 'a')", SL_EINVAL, 1, 13,
                 "super table");
    expect_error(c, "INSERT INTO dx USING m TAGS ('SF', 'abc') VALUES (1735700000000, 1, 1.0, 'a')",
                 SL_ETYPE, 1, 36, "tag 'g'");
    expect_error(c, "DELETE FROM m WHERE v > 3", SL_EUNSUPPORTED, 1, 21, "DELETE supports");
    /* nothing failing was written */
    assert_int_equal(atomic_load(&F->writes[0]) + atomic_load(&F->writes[1]), w0);
    sl_result r;
    q_ok(c, "SELECT count(*) FROM m", &r);
    assert_int_equal(sl_res_i64(&r, 0, 0), 1200);
    sl_result_fini(&r);
    /* no database selected */
    sl_conn *c2 = connect_fake();
    sl_error err;
    sl_error_clear(&err);
    assert_int_not_equal(sl_query(c2, "SELECT count(*) FROM m", &r, &err), 0);
    sl_result_fini(&r);
    sl_close(c2);
    sl_close(c);
}

static void test_insert_block(void **state)
{
    (void)state;
    sl_conn *c = connect_fake();
    load(c);
    sl_block b;
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
    sl_block_add_column(&b, SL_T_INT, 0);
    sl_block_add_column(&b, SL_T_DOUBLE, 0);
    sl_block_add_column(&b, SL_T_VARCHAR, 8);
    for (int i = 0; i < 50; i++) {
        sl_column_append_i64(&b.cols[0], 1736000000000LL + i);
        sl_column_append_i64(&b.cols[1], i);
        sl_column_append_f64(&b.cols[2], i / 2.0);
        sl_column_append_str(&b.cols[3], "blk", 3);
    }
    sl_block_seal(&b);
    sl_error err;
    sl_error_clear(&err);
    int w0 = atomic_load(&F->writes[place("d4")]);
    assert_int_equal(sl_insert_block(c, "db", "d4", &b, &err), 0);
    assert_int_equal(atomic_load(&F->writes[place("d4")]) - w0, 1);
    assert_true(atomic_load(&F->last_write_epoch) == 0); /* a client's writes are not fenced */
    /* An snode's connection carries its placement epoch on every write. */
    sl_conn_set_epoch(c, 7);
    assert_int_equal(sl_insert_block(c, "db", "d4", &b, &err), 0);
    assert_true(atomic_load(&F->last_write_epoch) == 7);
    sl_conn_set_epoch(c, 0);
    /* A client's writes are client ingest; a stream's output writer marks its writes as
     * background (vnodes do not count them as the load stream reads yield to). */
    assert_int_equal(atomic_load(&F->last_write_background), 0);
    sl__conn_set_background(c, true);
    assert_int_equal(sl_insert_block(c, "db", "d4", &b, &err), 0);
    assert_int_equal(atomic_load(&F->last_write_background), 1);
    sl__conn_set_background(c, false);
    assert_int_equal(sl_insert_block(c, "db", "d4", &b, &err), 0);
    assert_int_equal(atomic_load(&F->last_write_background), 0);
    sl_result r;
    q_ok(c, "SELECT count(*), sum(v) FROM d4 WHERE s = 'blk'", &r);
    assert_int_equal(sl_res_i64(&r, 0, 0), 50);
    assert_int_equal(sl_res_i64(&r, 0, 1), 49 * 50 / 2);
    sl_result_fini(&r);
    /* wrong shape, super table, unknown table */
    sl_block_fini(&b);
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_TIMESTAMP, 0);
    sl_error_clear(&err);
    assert_int_equal(sl_insert_block(c, "db", "d4", &b, &err), SL_ETYPE);
    sl_error_clear(&err);
    assert_int_equal(sl_insert_block(c, "db", "m", &b, &err), SL_EINVAL);
    sl_error_clear(&err);
    assert_int_equal(sl_insert_block(c, "db", "nosuch", &b, &err), SL_ENOTFOUND);
    sl_block_fini(&b);

    /* sl_table_info_get: a child lives in one vgroup, the super table spans every vgroup.
     * (The fake mnode sends no tag values; the cluster tests read real ones.) */
    sl_table_info ti;
    sl_error_clear(&err);
    assert_int_equal(sl_table_info_get(c, "db", "d4", &ti, &err), 0);
    assert_int_equal(ti.meta.kind, SL_TABLE_CHILD);
    assert_int_equal(ti.meta.ncols, 4);
    assert_int_equal(ti.meta.ntags, 2);
    assert_int_equal(ti.nvgroups, 1);
    assert_int_equal(ti.vgroup_ids[0], place("d4"));
    assert_non_null(ti.vnode_addrs[0]);
    assert_non_null(ti.tagvals);
    uint64_t child_uid = ti.uid;
    assert_true(child_uid != 0);
    assert_int_equal(sl_table_info_get(c, "db", "m", &ti, &err), 0);
    assert_int_equal(ti.meta.kind, SL_TABLE_SUPER);
    assert_true(ti.uid != 0 && ti.uid != child_uid);
    assert_int_equal(ti.nvgroups, NVG);
    assert_null(ti.tagvals);
    assert_true(ti.vgroup_ids[0] != ti.vgroup_ids[1]);
    sl_error_clear(&err);
    assert_int_equal(sl_table_info_get(c, "db", "nosuch", &ti, &err), SL_ENOTFOUND);
    sl_close(c);
}

/* A table the vnode no longer knows under the cached uid (dropped and created again by
 * another client): the insert is refused before anything is written, the table's cache
 * entry is forgotten, and the statement is resolved again once and succeeds. */
static void test_stale_cache_retried(void **state)
{
    (void)state;
    sl_conn *c = connect_fake();
    load(c);
    fake_table *t = table_find("db", "d6");
    assert_non_null(t);
    t->uid += 100000; /* the loop thread is idle between calls */
    int w0 = atomic_load(&F->writes[place("d6")]);
    sl_conn_stats s0, s1;
    sl_conn_get_stats(c, &s0);
    sl_result r;
    q_ok(c, "INSERT INTO d6 VALUES (1736000000000, 9, 9.5, 'r')", &r);
    assert_int_equal(r.affected, 1);
    sl_result_fini(&r);
    sl_conn_get_stats(c, &s1);
    assert_int_equal(atomic_load(&F->writes[place("d6")]) - w0, 2); /* refused, then written */
    assert_int_equal(s1.meta_misses, s0.meta_misses + 1);          /* d6 alone asked again */
    q_ok(c, "SELECT count(*) FROM d6 WHERE v = 9 AND s = 'r'", &r);
    assert_int_equal(sl_res_i64(&r, 0, 0), 1);
    sl_result_fini(&r);
    sl_close(c);
}

/* sl__meta_prefetch: the tables not cached yet in one mnode call, missing ones skipped;
 * every later lookup of them is a cache hit. */
static void test_meta_prefetch(void **state)
{
    (void)state;
    sl_conn *w = connect_fake();
    load(w); /* w caches what it wrote: a fresh connection asks */
    sl_close(w);
    sl_conn *c = connect_fake();
    sl_error err;
    sl_error_clear(&err);
    sl_table_info ti;
    assert_int_equal(sl_table_info_get(c, "db", "d1", &ti, &err), 0); /* d1 cached already */
    const char *names[] = {"d1", "d2", "no_such", "d3", "d4", "d2"};
    int m0 = atomic_load(&F->meta_calls);
    assert_int_equal(sl__meta_prefetch(c, "db", names, 6, &err), 0);
    assert_int_equal(atomic_load(&F->meta_calls) - m0, 1);
    sl_conn_stats s0, s1;
    sl_conn_get_stats(c, &s0);
    for (int i = 1; i <= 4; i++) {
        char nm[8];
        snprintf(nm, sizeof(nm), "d%d", i);
        assert_int_equal(sl_table_info_get(c, "db", nm, &ti, &err), 0);
        assert_string_equal(ti.meta.name, nm);
    }
    sl_conn_get_stats(c, &s1);
    assert_int_equal(s1.meta_hits, s0.meta_hits + 4);
    assert_int_equal(s1.meta_misses, s0.meta_misses);
    /* all cached: no call at all; a missing first name fails that request, nothing cached */
    m0 = atomic_load(&F->meta_calls);
    assert_int_equal(sl__meta_prefetch(c, "db", names, 2, &err), 0);
    assert_int_equal(atomic_load(&F->meta_calls), m0);
    const char *bad[] = {"no_such", "d5"};
    assert_true(sl__meta_prefetch(c, "db", bad, 2, &err) < 0);
    assert_non_null(strstr(err.msg, "no_such"));
    sl_close(c);
}

/*
 * ExecReply.created: the tables a CREATE TABLE names are cached from the EXEC answer, so
 * the first write to them asks no TABLE_META; with sl__conn_meta_to they go to another
 * connection's cache (the snode creates on a DDL connection and writes on another). A
 * reply without them (an older mnode) leaves the lookups as they were.
 */
static void test_exec_reply_created(void **state)
{
    (void)state;
    sl_conn *c = connect_fake();
    load(c);
    sl_close(c);
    atomic_store(&F->send_created, true);
    c = connect_fake();
    sl_conn *w = connect_fake();
    sl_error err;
    sl_error_clear(&err);
    q_ok0(c, "USE db");
    int m0 = atomic_load(&F->meta_calls);
    q_ok0(c, "CREATE TABLE n7 (ts TIMESTAMP, x INT)");
    q_ok0(c, "CREATE TABLE IF NOT EXISTS e1 USING m TAGS ('LA', 3) e2 USING m TAGS ('NY', 4)");
    sl_table_info ti;
    assert_int_equal(sl_table_info_get(c, "db", "n7", &ti, &err), 0);
    assert_int_equal(ti.meta.kind, SL_TABLE_NORMAL);
    assert_int_equal(ti.meta.ncols, 2);
    assert_int_equal(sl_table_info_get(c, "db", "e2", &ti, &err), 0);
    assert_int_equal(ti.meta.kind, SL_TABLE_CHILD);
    assert_int_equal(atomic_load(&F->meta_calls), m0); /* no lookup for either */
    sl_result r;
    assert_int_equal(sl_query(c, "INSERT INTO e1 VALUES (1000, 2, 1.5, 'a')", &r, &err), 0);
    sl_result_fini(&r);
    assert_int_equal(atomic_load(&F->meta_calls), m0);
    /* Into another connection's cache: w answers e3 without asking, c asks. */
    sl__conn_meta_to(c, w);
    q_ok0(c, "CREATE TABLE e3 USING m TAGS ('SF', 5)");
    assert_int_equal(sl_table_info_get(w, "db", "e3", &ti, &err), 0);
    assert_string_equal(ti.meta.name, "e3");
    assert_int_equal(atomic_load(&F->meta_calls), m0);
    assert_int_equal(sl_table_info_get(c, "db", "e3", &ti, &err), 0);
    assert_int_equal(atomic_load(&F->meta_calls), m0 + 1);
    /* Without created metadata in the answer: looked up as before. */
    atomic_store(&F->send_created, false);
    sl__conn_meta_to(c, NULL);
    q_ok0(c, "CREATE TABLE n8 (ts TIMESTAMP, x INT)");
    assert_int_equal(sl_table_info_get(c, "db", "n8", &ti, &err), 0);
    assert_int_equal(atomic_load(&F->meta_calls), m0 + 2);
    /* A failed CREATE caches nothing. */
    atomic_store(&F->send_created, true);
    assert_true(sl_query(c, "CREATE TABLE n8 (ts TIMESTAMP, x INT)", &r, &err) < 0);
    sl_close(w);
    sl_close(c);
}

/* Whether table db.name is answered by the cache (no mnode call), and its kind/columns. */
static bool cached(sl_conn *c, const char *db, const char *name, sl_table_info *ti)
{
    sl_conn_stats s0, s1;
    sl_conn_get_stats(c, &s0);
    sl_error err;
    sl_error_clear(&err);
    if (sl_table_info_get(c, db, name, ti, &err) != 0)
        fail_msg("lookup %s.%s: %s", db, name, err.msg);
    sl_conn_get_stats(c, &s1);
    assert_int_equal(s1.meta_hits + s1.meta_misses, s0.meta_hits + s0.meta_misses + 1);
    return s1.meta_hits == s0.meta_hits + 1;
}

/* A DDL forgets what it changed and nothing else; a later lookup of a forgotten table
 * sees the catalog's new answer. */
static void test_cache_forgets_what_ddl_changed(void **state)
{
    (void)state;
    sl_conn *c = connect_fake();
    load(c); /* d0..d9 of m cached by the auto-create, m by the INSERT's USING */
    q_ok0(c, "CREATE TABLE n1 (ts TIMESTAMP, x INT); CREATE DATABASE db2; CREATE TABLE db2.t "
             "(ts TIMESTAMP, x INT)");
    sl_table_info ti;
    char name[16];
    assert_false(cached(c, "db", "n1", &ti)); /* first lookups */
    assert_false(cached(c, "db2", "t", &ti));
    for (int t = 0; t < 10; t++) {
        snprintf(name, sizeof(name), "d%d", t);
        assert_true(cached(c, "db", name, &ti));
    }
    assert_true(cached(c, "db", "m", &ti));

    /* Statements that change no table keep everything. */
    q_ok0(c, "SHOW TABLES; DESCRIBE m; USE db");
    assert_true(cached(c, "db", "n1", &ti));
    assert_true(cached(c, "db2", "t", &ti));

    /* CREATE TABLE of a normal table: only that name goes (another's stays). */
    q_ok0(c, "CREATE TABLE n2 (ts TIMESTAMP, x INT)");
    assert_true(cached(c, "db", "n1", &ti));
    assert_true(cached(c, "db", "d0", &ti));
    assert_true(cached(c, "db", "m", &ti));

    /* DROP TABLE then CREATE TABLE again with another schema: the new one is answered,
     * not the cached child. */
    assert_true(cached(c, "db", "d3", &ti));
    q_ok0(c, "DROP TABLE d3");
    q_ok0(c, "CREATE TABLE d3 (ts TIMESTAMP, a INT, b INT)");
    assert_false(cached(c, "db", "d3", &ti));
    assert_int_equal(ti.meta.kind, SL_TABLE_NORMAL);
    assert_int_equal(ti.meta.ncols, 3);
    assert_true(cached(c, "db", "d4", &ti)); /* siblings stay */

    /* CREATE TABLE ... USING: the new child and its super table's entry; the other
     * children stay. */
    q_ok0(c, "CREATE TABLE d10 USING m TAGS ('SF', 1)");
    assert_false(cached(c, "db", "m", &ti));
    assert_true(cached(c, "db", "d5", &ti));
    assert_false(cached(c, "db", "d10", &ti));
    assert_int_equal(ti.meta.kind, SL_TABLE_CHILD);

    /* DROP STABLE: the super table and every cached child of it go - a lookup then hears
     * that they are gone instead of getting the stale entries; the rest stays. */
    q_ok0(c, "DROP STABLE m");
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_table_info_get(c, "db", "d5", &ti, &err), SL_ENOTFOUND);
    sl_error_clear(&err);
    assert_int_equal(sl_table_info_get(c, "db", "m", &ti, &err), SL_ENOTFOUND);
    assert_true(cached(c, "db", "n1", &ti));
    assert_true(cached(c, "db", "d3", &ti));
    assert_true(cached(c, "db2", "t", &ti));

    /* DROP DATABASE: its tables go, other databases' stay. */
    q_ok0(c, "DROP DATABASE db2");
    sl_error_clear(&err);
    assert_int_equal(sl_table_info_get(c, "db2", "t", &ti, &err), SL_ENOTFOUND);
    assert_true(cached(c, "db", "n1", &ti));
    /* ... and a database of that name created again is asked for afresh. */
    q_ok0(c, "CREATE DATABASE db2; CREATE TABLE db2.t (ts TIMESTAMP, x INT, y INT)");
    assert_false(cached(c, "db2", "t", &ti));
    assert_int_equal(ti.meta.ncols, 3);

    /* A refused DDL changes nothing, so it forgets nothing. */
    sl_result r;
    sl_error_clear(&err);
    assert_int_equal(sl_query(c, "CREATE TABLE n1 (ts TIMESTAMP, x INT)", &r, &err), SL_EEXIST);
    sl_result_fini(&r);
    assert_true(cached(c, "db", "n1", &ti));
    sl_close(c);
}

/* A 4-column block of rows (ts, v, d, s) for the children of m, ts from ts0. */
static void make_rows(sl_block *b, int64_t ts0, int n, int v)
{
    sl_block_init(b);
    sl_block_add_column(b, SL_T_TIMESTAMP, 0);
    sl_block_add_column(b, SL_T_INT, 0);
    sl_block_add_column(b, SL_T_DOUBLE, 0);
    sl_block_add_column(b, SL_T_VARCHAR, 8);
    for (int i = 0; i < n; i++) {
        sl_column_append_i64(&b->cols[0], ts0 + i);
        sl_column_append_i64(&b->cols[1], v);
        sl_column_append_f64(&b->cols[2], 0.5);
        sl_column_append_str(&b->cols[3], "mb", 2);
    }
    sl_block_seal(b);
}

static int64_t count_where(sl_conn *c, const char *sql)
{
    sl_result r;
    q_ok(c, sql, &r);
    int64_t n = sl_res_i64(&r, 0, 0);
    sl_result_fini(&r);
    return n;
}

/* sl__insert_blocks: one write request per vgroup for many tables; items that fail their
 * checks fail alone; a request the vnode refuses fails its items only and forgets their
 * entries; bad arguments are refused before anything is sent. */
static void test_insert_blocks(void **state)
{
    (void)state;
    sl_conn *c = connect_fake();
    load(c);
    sl_block rows[10];
    sl__block_write w[10];
    char names[10][8];
    for (int t = 0; t < 10; t++) {
        make_rows(&rows[t], 1737000000000LL, 3 + t, 1000 + t);
        snprintf(names[t], sizeof(names[t]), "d%d", t);
        w[t] = (sl__block_write){.table = names[t], .rows = &rows[t], .rc = 99};
    }
    int w0[NVG];
    for (int i = 0; i < NVG; i++)
        w0[i] = atomic_load(&F->writes[i]);
    sl_error err;
    sl_error_clear(&err);
    sl_conn_set_epoch(c, 5);
    assert_int_equal(sl__insert_blocks(c, "db", w, 10, &err), 0);
    assert_true(atomic_load(&F->last_write_epoch) == 5);
    sl_conn_set_epoch(c, 0);
    for (int i = 0; i < NVG; i++) /* load() showed both vgroups hold some of d0..d9 */
        assert_int_equal(atomic_load(&F->writes[i]) - w0[i], 1);
    for (int t = 0; t < 10; t++)
        assert_int_equal(w[t].rc, 0);
    /* 3 + 4 + ... + 12 rows, each table's with its own v */
    assert_int_equal(count_where(c, "SELECT count(*) FROM m WHERE s = 'mb'"), 75);
    assert_int_equal(count_where(c, "SELECT count(*) FROM d7 WHERE s = 'mb' AND v = 1007"), 10);
    /* Written again: idempotent, rows replace rows of the same timestamp. */
    assert_int_equal(sl__insert_blocks(c, "db", w, 10, &err), 0);
    assert_int_equal(count_where(c, "SELECT count(*) FROM m WHERE s = 'mb'"), 75);

    /* Per item: a super table, an unknown table and a wrong shape fail alone. */
    sl_block bad;
    sl_block_init(&bad);
    sl_block_add_column(&bad, SL_T_TIMESTAMP, 0);
    sl_column_append_i64(&bad.cols[0], 1737000000000LL);
    sl_block_seal(&bad);
    sl_block more;
    make_rows(&more, 1737100000000LL, 2, 2007);
    sl__block_write mix[5] = {
        {.table = "d1", .rows = &more}, {.table = "m", .rows = &more},
        {.table = "nosuch", .rows = &more}, {.table = "d2", .rows = &bad},
        {.table = "d8", .rows = &more}};
    sl_error_clear(&err);
    assert_int_equal(sl__insert_blocks(c, "db", mix, 5, &err), SL_EINVAL);
    assert_non_null(strstr(err.msg, "super table 'm'"));
    assert_int_equal(mix[0].rc, 0);
    assert_int_equal(mix[1].rc, SL_EINVAL);
    assert_int_equal(mix[2].rc, SL_ENOTFOUND);
    assert_int_equal(mix[3].rc, SL_ETYPE);
    assert_int_equal(mix[4].rc, 0);
    assert_int_equal(count_where(c, "SELECT count(*) FROM m WHERE v = 2007"), 4);

    /* The vnode refuses one request (a stale uid, first in its vgroup's request): the other
     * vgroup's item is written, only the refused request's entries (and their super
     * table's) are forgotten, and the call looks those up again and writes them: every
     * item succeeds, the other vgroup's is neither asked for nor written twice. */
    const char *other = NULL; /* a table of the other vgroup than d6's */
    const char *same = NULL;  /* another table of d6's vgroup */
    for (int t = 0; t < 10; t++) {
        if (t == 6)
            continue;
        if (place(names[t]) != place("d6") && other == NULL)
            other = names[t];
        if (place(names[t]) == place("d6") && same == NULL)
            same = names[t];
    }
    assert_non_null(other);
    assert_non_null(same);
    fake_table *stale = table_find("db", "d6");
    stale->uid += 100000;
    sl_block late;
    make_rows(&late, 1737200000000LL, 1, 2008);
    sl__block_write three[3] = {{.table = "d6", .rows = &late},
                                {.table = same, .rows = &late},
                                {.table = other, .rows = &late}};
    sl_error_clear(&err);
    sl_conn_stats s0, s1;
    sl_conn_get_stats(c, &s0);
    int wbefore = atomic_load(&F->writes[0]) + atomic_load(&F->writes[1]);
    assert_int_equal(sl__insert_blocks(c, "db", three, 3, &err), 0);
    assert_int_equal(err.code, 0);
    assert_int_equal(three[0].rc, 0);
    assert_int_equal(three[1].rc, 0);
    assert_int_equal(three[2].rc, 0);
    sl_conn_get_stats(c, &s1);
    /* the refused request's two tables were asked again, the other vgroup's was not */
    assert_int_equal(s1.meta_misses, s0.meta_misses + 2);
    /* three requests: the refused one, the other vgroup's, and the refused one again */
    assert_int_equal(atomic_load(&F->writes[0]) + atomic_load(&F->writes[1]), wbefore + 3);
    sl_table_info ti;
    assert_true(cached(c, "db", other, &ti));
    assert_int_equal(count_where(c, "SELECT count(*) FROM m WHERE v = 2008"), 3);

    /* A stale entry is retried even when another item failed first for another reason:
     * the call reports that item's error, and the stale table's rows are written. */
    stale->uid += 100000;
    sl_block later;
    make_rows(&later, 1737300000000LL, 1, 2009);
    sl__block_write two[2] = {{.table = "d2", .rows = &bad}, {.table = "d6", .rows = &later}};
    sl_error_clear(&err);
    assert_int_equal(sl__insert_blocks(c, "db", two, 2, &err), SL_ETYPE);
    assert_int_equal(err.code, SL_ETYPE);
    assert_int_equal(two[0].rc, SL_ETYPE);
    assert_int_equal(two[1].rc, 0);
    assert_int_equal(count_where(c, "SELECT count(*) FROM m WHERE v = 2009"), 1);
    sl_block_fini(&later);

    /* Bad arguments: nothing is sent. */
    int wsum = atomic_load(&F->writes[0]) + atomic_load(&F->writes[1]);
    sl__block_write none[2] = {{.table = "d1", .rows = &late}, {.table = NULL, .rows = &late}};
    sl_error_clear(&err);
    assert_int_equal(sl__insert_blocks(c, "db", none, 2, &err), SL_EINVAL);
    assert_string_equal(err.msg, "sl__insert_blocks: item 2 has no table");
    sl_error_clear(&err);
    assert_int_equal(sl__insert_blocks(NULL, "db", none, 1, &err), SL_EINVAL);
    assert_int_equal(sl__insert_blocks(c, "db", NULL, 0, &err), 0);
    assert_int_equal(atomic_load(&F->writes[0]) + atomic_load(&F->writes[1]), wsum);

    for (int t = 0; t < 10; t++)
        sl_block_fini(&rows[t]);
    sl_block_fini(&bad);
    sl_block_fini(&more);
    sl_block_fini(&late);
    sl_close(c);
}

static void test_connect_refused(void **state)
{
    (void)state;
    sl_conn *c = NULL;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_connect("127.0.0.1", 1, &c, &err);
    assert_true(rc == SL_EUNAVAILABLE || rc == SL_ETIMEOUT);
    assert_null(c);
    assert_non_null(strstr(err.msg, "cannot connect to 127.0.0.1:1: "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ddl_goes_to_mnode, fake_start, fake_stop),
        cmocka_unit_test_setup_teardown(test_insert_batches_per_vgroup_and_cache, fake_start,
                                        fake_stop),
        cmocka_unit_test_setup_teardown(test_select_merges_like_one_store, fake_start, fake_stop),
        cmocka_unit_test_setup_teardown(test_errors_keep_positions, fake_start, fake_stop),
        cmocka_unit_test_setup_teardown(test_insert_block, fake_start, fake_stop),
        cmocka_unit_test_setup_teardown(test_stale_cache_retried, fake_start, fake_stop),
        cmocka_unit_test_setup_teardown(test_meta_prefetch, fake_start, fake_stop),
        cmocka_unit_test_setup_teardown(test_exec_reply_created, fake_start, fake_stop),
        cmocka_unit_test_setup_teardown(test_cache_forgets_what_ddl_changed, fake_start,
                                        fake_stop),
        cmocka_unit_test_setup_teardown(test_insert_blocks, fake_start, fake_stop),
        cmocka_unit_test(test_connect_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
