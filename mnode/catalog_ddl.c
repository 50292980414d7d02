/*
 * catalog_ddl.c - DDL on the mnode catalog: the shared rules of common/exec/ddl.h over the
 * catalog, turned into one atomic, synced write batch (catalog.h).
 *
 * A statement goes through three phases. Planning validates it whole against the catalog
 * (sl_ddl_plan_stmt, the very rules and messages of the embedded store). Preparing makes
 * every new object (databases with their vgroups placed on vnodes, tables with their uid
 * and vgroup), reserves every array slot linking will need, fills the caller's result and
 * builds the write batch - without touching the catalog. Then the batch is written with a
 * sync; only if that succeeds are the objects linked, which cannot fail. A refused
 * statement, or one whose write fails, therefore leaves disk and memory as they were.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_int.h"
#include "common/kv/keycodec.h"

const char sl__mc_info_schema_obj = 'i';

/* ------------------------------------------------------------ the catalog as a ddl source */

static bool is_info(const sl_ddl_db *db)
{
    return db->obj == (const void *)&sl__mc_info_schema_obj;
}

static void db_info(const sl__mc_db *db, sl_ddl_db *out)
{
    out->name = db->d_name;
    out->precision = db->d_prec;
    out->vgroups = db->d_nvgroups;
    out->ntables = (int64_t)db->d_tables.ns_count - db->d_nsupers;
    out->obj = (void *)db;
}

static void table_info(const sl__mc_table *t, sl_ddl_table *out)
{
    out->kind = t->t_kind;
    out->name = t->t_name;
    out->stable = t->t_super ? t->t_super->t_name : NULL;
    out->ncols = sl__mc_ncols(t);
    out->cols = sl__mc_cols(t);
    out->ntags = sl__mc_ntags(t);
    out->tags = sl__mc_tags(t);
    out->tagvals = t->t_kind == SL_TABLE_CHILD ? &t->t_tagvals : NULL;
    out->nchildren = t->t_nchildren;
    out->obj = (void *)t;
    out->composite_key = sl__mc_key(t);
}

static bool src_find_db(void *ud, const char *name, sl_ddl_db *out)
{
    if (sl_ddl_name_eq(name, SL_DDL_INFO_SCHEMA)) {
        out->name = SL_DDL_INFO_SCHEMA;
        out->precision = SL_PREC_MS;
        out->vgroups = 0;
        out->ntables = sl__mc_sys_count();
        out->obj = (void *)&sl__mc_info_schema_obj;
        return true;
    }
    sl__mc_db *db = sl__mc_find_db(ud, name);
    if (db == NULL)
        return false;
    db_info(db, out);
    return true;
}

static bool src_find_table(void *ud, const sl_ddl_db *db, const char *name, sl_ddl_table *out)
{
    (void)ud;
    if (is_info(db)) {
        int i = sl__mc_sys_find(name);
        if (i < 0)
            return false;
        sl__mc_sys_view(i, out);
        return true;
    }
    sl__mc_table *t = sl__mc_find_table(db->obj, name);
    if (t == NULL)
        return false;
    table_info(t, out);
    return true;
}

static int src_each_db(void *ud, sl_ddl_db_fn fn, void *arg)
{
    sl_mcatalog *cat = ud;
    for (int i = 0; i < cat->c_ndbs; i++) {
        sl_ddl_db d;
        db_info(cat->c_dbs[i], &d);
        int rc = fn(arg, &d);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int src_each_table(void *ud, const sl_ddl_db *db, sl_ddl_table_fn fn, void *arg)
{
    (void)ud;
    sl_ddl_table t;
    if (is_info(db)) {
        for (int i = 0; i < sl__mc_sys_count(); i++) {
            sl__mc_sys_view(i, &t);
            int rc = fn(arg, &t);
            if (rc != 0)
                return rc;
        }
        return 0;
    }
    const sl__mc_db *d = db->obj;
    uint32_t pos = 0;
    for (const sl__mc_table *tab; (tab = sl_nameset_next(&d->d_tables, &pos)) != NULL;) {
        table_info(tab, &t);
        int rc = fn(arg, &t);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static const sl_ddl_source_ops source_ops = {
    .find_db = src_find_db,
    .find_table = src_find_table,
    .each_db = src_each_db,
    .each_table = src_each_table,
};

sl_ddl_source sl__mc_source(sl_mcatalog *cat, const char *current_db)
{
    sl_ddl_source s = {
        .ops = &source_ops,
        .ud = cat,
        .current_db = current_db,
        .now_ms = sl__mc_now(cat),
    };
    return s;
}

/* ------------------------------------------------------------ results */

void sl_ddl_result_init(sl_ddl_result *r)
{
    memset(r, 0, sizeof(*r));
    sl_arena_init(&r->arena);
}

void sl_ddl_result_fini(sl_ddl_result *r)
{
    if (r == NULL)
        return;
    free(r->changes);
    sl_arena_fini(&r->arena);
    sl_ddl_result_init(r);
}

/* Appends a change (room reserved beforehand). Strings are copied. */
static int add_change(sl_ddl_result *r, sl_ddl_change_kind kind, const char *db,
                      const sl__mc_table *t, uint32_t vgroup, uint32_t vnode)
{
    if (r->nchanges == r->capchanges) {
        int cap = r->capchanges ? r->capchanges * 2 : 8;
        sl_ddl_change *p = realloc(r->changes, (size_t)cap * sizeof(*p));
        if (p == NULL)
            return SL_ENOMEM;
        r->changes = p;
        r->capchanges = cap;
    }
    sl_ddl_change *c = &r->changes[r->nchanges];
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    c->db = sl_arena_strdup(&r->arena, db);
    c->vgroup_id = vgroup;
    c->vnode_id = vnode;
    if (t != NULL) {
        c->table = sl_arena_strdup(&r->arena, t->t_name);
        c->table_kind = t->t_kind;
        c->uid = t->t_uid;
        c->stable_uid = t->t_super ? t->t_super->t_uid : 0;
        if (t->t_vgroup != NULL) {
            c->vgroup_id = t->t_vgroup->vg_id;
            c->vnode_id = t->t_vgroup->vg_vnode;
        }
        if (c->table == NULL)
            return SL_ENOMEM;
    }
    if (c->db == NULL)
        return SL_ENOMEM;
    r->nchanges++;
    return 0;
}

/* ------------------------------------------------------------ preparing */

/* What preparing made for one op: the objects to link after the write. */
typedef struct prep {
    sl__mc_db *db;   /* CREATE_DB: the new database with its vgroups (unlinked) */
    sl__mc_table *t; /* CREATE_TABLE: the new table (unlinked) */
} prep;

typedef struct applier {
    sl_mcatalog *cat;
    sl_ddl_plan *plan;
    prep *preps;       /* one per op */
    uint32_t *extra;   /* per node index: vgroups placed on it by this statement */
    uint64_t next_uid; /* counters as they will be */
    uint32_t next_vgroup;
    sl_kv_batch *batch;
    sl_buf k, v;
    sl_ddl_result *out;
    sl_error *err;
} applier;

static int oom(applier *a, sl_pos pos)
{
    return sl_ddl_error(a->err, SL_ENOMEM, pos, "out of memory");
}

/* Adds a put of key k / value v (the applier's buffers) to the batch. */
static int batch_put(applier *a, sl_kv_cf *cf)
{
    return sl_kv_batch_put(a->batch, cf, a->k.data, a->k.len, a->v.data, a->v.len);
}

static int batch_del(applier *a, sl_kv_cf *cf)
{
    return sl_kv_batch_delete(a->batch, cf, a->k.data, a->k.len);
}

/* Index (in the node array) of the alive vnode with the fewest vgroups, or -1. */
static int least_loaded_vnode(const applier *a)
{
    const sl_mcatalog *cat = a->cat;
    int best = -1;
    uint64_t best_load = 0;
    for (uint32_t i = 0; i < cat->c_nnodes; i++) {
        const sl__mc_node *n = cat->c_nodes[i];
        if (n->n_kind != SL_MC_VNODE || !n->n_alive)
            continue;
        uint64_t load = (uint64_t)n->n_nvgroups + a->extra[i];
        if (best < 0 || load < best_load) {
            best = (int)i;
            best_load = load;
        }
    }
    return best;
}

static int prep_create_db(applier *a, const sl_ddl_op *op, prep *p)
{
    sl_mcatalog *cat = a->cat;
    uint32_t n = (uint32_t)op->db.vgroups;
    if (least_loaded_vnode(a) < 0)
        return sl_ddl_error(a->err, SL_ESTATE, op->pos,
                            "no alive vnode to place the %u vgroup%s of database '%s' on: start "
                            "a vnode first",
                            n, n == 1 ? "" : "s", op->db.name);
    if ((uint64_t)a->next_vgroup + n >= UINT32_MAX)
        return sl_ddl_error(a->err, SL_ELIMIT, op->pos, "no vgroup ids left");
    sl__mc_db *db = calloc(1, sizeof(*db));
    if (db == NULL)
        return oom(a, op->pos);
    sl__mc_init_tables(db);
    p->db = db;
    db->d_name = strdup(op->db.name);
    db->d_prec = op->db.precision;
    db->d_created = sl__mc_now(cat);
    db->d_vgroups = calloc(n, sizeof(*db->d_vgroups));
    db->d_vgroup_ids = calloc(n, sizeof(*db->d_vgroup_ids));
    if (db->d_name == NULL || db->d_vgroups == NULL || db->d_vgroup_ids == NULL)
        return oom(a, op->pos);
    db->d_nvgroups = n; /* only now: sl__mc_db_free walks the arrays by it */
    for (uint32_t i = 0; i < n; i++) {
        sl__mc_vgroup *vg = calloc(1, sizeof(*vg));
        if (vg == NULL)
            return oom(a, op->pos);
        int node = least_loaded_vnode(a);
        a->extra[node]++;
        vg->vg_id = a->next_vgroup++;
        vg->vg_db = db;
        vg->vg_index = i;
        vg->vg_vnode = cat->c_nodes[node]->n_id;
        db->d_vgroups[i] = vg;
        db->d_vgroup_ids[i] = vg->vg_id;
    }
    int rc = sl__mc_reserve_dbs(cat, 1);
    if (rc == 0)
        rc = sl__mc_reserve_vgroups(cat, n);
    sl_buf_reset(&a->k);
    sl_buf_reset(&a->v);
    if (rc == 0)
        rc = sl__mc_key_db(&a->k, db->d_name);
    if (rc == 0)
        rc = sl__mc_enc_db(&a->v, db);
    if (rc == 0)
        rc = batch_put(a, cat->c_cf_dbs);
    if (rc == 0)
        rc = add_change(a->out, SL_DDL_DB_CREATED, db->d_name, NULL, 0, 0);
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        const sl__mc_vgroup *vg = db->d_vgroups[i];
        sl_buf_reset(&a->k);
        sl_buf_reset(&a->v);
        rc = sl__mc_key_id(&a->k, vg->vg_id);
        if (rc == 0)
            rc = sl__mc_enc_vgroup(&a->v, vg);
        if (rc == 0)
            rc = batch_put(a, cat->c_cf_vgroups);
        if (rc == 0)
            rc = add_change(a->out, SL_DDL_VGROUP_CREATED, db->d_name, NULL, vg->vg_id,
                            vg->vg_vnode);
    }
    return rc < 0 ? oom(a, op->pos) : 0;
}

static int prep_drop_db(applier *a, const sl_ddl_op *op)
{
    sl_mcatalog *cat = a->cat;
    const sl__mc_db *db = op->db.obj;
    sl_buf_reset(&a->k);
    int rc = sl__mc_key_db(&a->k, db->d_name);
    if (rc == 0)
        rc = batch_del(a, cat->c_cf_dbs);
    /* Every table key of the database starts with its name's key: one range delete. */
    sl_buf end;
    sl_buf_init(&end);
    if (rc == 0)
        rc = sl_buf_put(&end, a->k.data, a->k.len);
    if (rc == 0)
        rc = sl_key_successor(&end);
    if (rc == 0)
        rc = sl_kv_batch_delete_range(a->batch, cat->c_cf_tables, a->k.data, a->k.len, end.data,
                                      end.len);
    sl_buf_fini(&end);
    if (rc == 0)
        rc = sl__mc_streams_batch_drop_db(cat, a->batch, db->d_name);
    if (rc == 0)
        rc = add_change(a->out, SL_DDL_DB_DROPPED, db->d_name, NULL, 0, 0);
    for (uint32_t i = 0; rc == 0 && i < db->d_nvgroups; i++) {
        const sl__mc_vgroup *vg = db->d_vgroups[i];
        sl_buf_reset(&a->k);
        rc = sl__mc_key_id(&a->k, vg->vg_id);
        if (rc == 0)
            rc = batch_del(a, cat->c_cf_vgroups);
        if (rc == 0)
            rc = add_change(a->out, SL_DDL_VGROUP_DROPPED, db->d_name, NULL, vg->vg_id,
                            vg->vg_vnode);
    }
    return rc < 0 ? oom(a, op->pos) : 0;
}

/* Copies validated fields into owned ones. NULL on exhaustion. */
static sl_field *copy_fields(const sl_field *src, int n)
{
    sl_field *f = calloc((size_t)(n > 0 ? n : 1), sizeof(*f));
    if (f == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        f[i] = src[i];
        f[i].name = strdup(src[i].name);
        if (f[i].name == NULL) {
            sl__mc_fields_free(f, i);
            return NULL;
        }
    }
    return f;
}

static int prep_create_table(applier *a, sl_ddl_op *op, prep *p)
{
    sl__mc_db *db = op->db.obj;
    sl__mc_table *t = sl__mc_table_new(db, op->tkind, op->name);
    if (t == NULL)
        return oom(a, op->pos);
    p->t = t;
    if (a->next_uid == UINT64_MAX)
        return sl_ddl_error(a->err, SL_ELIMIT, op->pos, "no table uids left");
    t->t_uid = a->next_uid++;
    t->t_created = sl__mc_now(a->cat);
    if (op->tkind == SL_TABLE_CHILD) {
        t->t_super = op->super.obj;
        t->t_tagvals = op->tagvals;
        sl_block_init(&op->tagvals);
    } else {
        t->t_cols = copy_fields(op->cols, op->ncols);
        if (t->t_cols == NULL)
            return oom(a, op->pos);
        t->t_ncols = op->ncols;
        t->t_key = op->composite_key;
        if (op->ntags > 0) {
            t->t_tags = copy_fields(op->tags, op->ntags);
            if (t->t_tags == NULL)
                return oom(a, op->pos);
            t->t_ntags = op->ntags;
        }
    }
    if (op->tkind != SL_TABLE_SUPER)
        t->t_vgroup =
            db->d_vgroups[sl_mcatalog_vgroup_index(db->d_name, t->t_name, db->d_nvgroups)];
    int n = a->plan->nops;
    int rc = sl__mc_reserve_tables(db, (uint32_t)n);
    if (rc == 0)
        rc = sl__mc_reserve_index(t, (uint32_t)n);
    if (rc == 0 && t->t_super != NULL)
        rc = sl__mc_reserve_children(t->t_super, n);
    sl_buf_reset(&a->k);
    sl_buf_reset(&a->v);
    if (rc == 0)
        rc = sl__mc_key_table(&a->k, db->d_name, t->t_name);
    if (rc == 0)
        rc = sl__mc_enc_table(&a->v, t);
    if (rc == 0)
        rc = batch_put(a, a->cat->c_cf_tables);
    if (rc == 0)
        rc = add_change(a->out, SL_DDL_TABLE_CREATED, db->d_name, t, 0, 0);
    return rc < 0 ? oom(a, op->pos) : 0;
}

/* Deletes the record of t and reports it. */
static int drop_one(applier *a, const sl__mc_table *t)
{
    sl_buf_reset(&a->k);
    int rc = sl__mc_key_table(&a->k, t->t_db->d_name, t->t_name);
    if (rc == 0)
        rc = batch_del(a, a->cat->c_cf_tables);
    if (rc == 0)
        rc = add_change(a->out, SL_DDL_TABLE_DROPPED, t->t_db->d_name, t, 0, 0);
    return rc;
}

static int prep_drop_table(applier *a, const sl_ddl_op *op)
{
    const sl__mc_table *t = op->table.obj;
    int rc = 0;
    for (int i = 0; rc == 0 && i < t->t_nchildren; i++)
        rc = drop_one(a, t->t_children[i]);
    if (rc == 0)
        rc = drop_one(a, t);
    return rc < 0 ? oom(a, op->pos) : 0;
}

/* ------------------------------------------------------------ applying */

static void link_all(applier *a)
{
    sl_mcatalog *cat = a->cat;
    for (int i = 0; i < a->plan->nops; i++) {
        const sl_ddl_op *op = &a->plan->ops[i];
        prep *p = &a->preps[i];
        switch (op->kind) {
        case SL_DDL_CREATE_DB:
            sl__mc_link_db(cat, p->db);
            for (uint32_t k = 0; k < p->db->d_nvgroups; k++)
                sl__mc_link_vgroup(cat, p->db->d_vgroups[k]);
            p->db = NULL;
            break;
        case SL_DDL_DROP_DB:
            sl__mc_streams_forget_db(cat, ((const sl__mc_db *)op->db.obj)->d_name);
            sl__mc_drop_db(cat, op->db.obj);
            break;
        case SL_DDL_CREATE_TABLE:
            sl__mc_link_table(p->t);
            p->t = NULL;
            break;
        case SL_DDL_DROP_TABLE: sl__mc_drop_table(op->table.obj); break;
        }
    }
    cat->c_next_uid = a->next_uid;
    cat->c_next_vgroup = a->next_vgroup;
}

/*
 * Applies plan->ops (validated by the shared rules) to the catalog: prepare, write one
 * synced batch, link. Appends the changes to out. Nothing changes on error. hook (may be
 * NULL) adds its own records to the same batch and links its objects after ours.
 */
static int apply_plan(sl_mcatalog *cat, sl_ddl_plan *plan, const sl__mc_apply_hook *hook,
                      sl_ddl_result *out, sl_error *err)
{
    if (plan->nops == 0 && hook == NULL)
        return 0;
    sl_pos pos0 = plan->nops > 0 ? plan->ops[0].pos : hook->pos;
    for (int i = 0; i < plan->nops; i++)
        if (is_info(&plan->ops[i].db))
            return sl_ddl_error(err, SL_EINVAL, plan->ops[i].pos,
                                "database '%s' is read-only: it holds the system tables",
                                SL_DDL_INFO_SCHEMA);
    applier a = {
        .cat = cat,
        .plan = plan,
        .next_uid = cat->c_next_uid,
        .next_vgroup = cat->c_next_vgroup,
        .out = out,
        .err = err,
    };
    sl_buf_init(&a.k);
    sl_buf_init(&a.v);
    int keep = out->nchanges;
    int rc = 0;
    a.preps = calloc((size_t)plan->nops + 1, sizeof(*a.preps));
    a.extra = calloc((size_t)cat->c_nnodes + 1, sizeof(*a.extra));
    if (a.preps == NULL || a.extra == NULL || sl_kv_batch_open(&a.batch) < 0) {
        rc = oom(&a, pos0);
        goto done;
    }
    for (int i = 0; rc == 0 && i < plan->nops; i++) {
        sl_ddl_op *op = &plan->ops[i];
        switch (op->kind) {
        case SL_DDL_CREATE_DB: rc = prep_create_db(&a, op, &a.preps[i]); break;
        case SL_DDL_DROP_DB: rc = prep_drop_db(&a, op); break;
        case SL_DDL_CREATE_TABLE: rc = prep_create_table(&a, op, &a.preps[i]); break;
        case SL_DDL_DROP_TABLE: rc = prep_drop_table(&a, op); break;
        }
    }
    if (rc == 0 && (a.next_uid != cat->c_next_uid || a.next_vgroup != cat->c_next_vgroup) &&
        sl__mc_batch_counters(cat, a.batch, a.next_uid, a.next_vgroup, cat->c_next_node) < 0)
        rc = oom(&a, pos0);
    if (rc == 0 && hook != NULL && hook->prepare(hook->arg, a.batch) < 0)
        rc = oom(&a, pos0);
    if (rc == 0)
        rc = sl_kv_write(cat->c_kv, a.batch, SL_KV_SYNC_ON, err);
    if (rc == 0) {
        link_all(&a);
        if (hook != NULL)
            hook->commit(hook->arg);
    }
done:
    if (a.preps != NULL) {
        for (int i = 0; i < plan->nops; i++) {
            sl__mc_db_free(a.preps[i].db);
            sl__mc_table_free(a.preps[i].t);
        }
    }
    if (rc < 0)
        out->nchanges = keep;
    free(a.preps);
    free(a.extra);
    sl_kv_batch_close(a.batch);
    sl_buf_fini(&a.k);
    sl_buf_fini(&a.v);
    return rc;
}

int sl__mc_apply_plan(sl_mcatalog *cat, sl_ddl_plan *plan, const sl__mc_apply_hook *hook,
                      sl_ddl_result *out, sl_error *err)
{
    return apply_plan(cat, plan, hook, out, err);
}

/* ------------------------------------------------------------ entry points */

int sl_mcatalog_exec_ddl(sl_mcatalog *cat, const sl_stmt *stmt, const char *current_db,
                         sl_ddl_result *out, sl_error *err)
{
    sl_ddl_result_init(out);
    sl_error_clear(err); /* the first error recorded wins: start from none */
    if (stmt->kind == SL_STMT_DROP_SNODE) {
        const sl_drop_node *d = &stmt->u.drop_node;
        int rc = d->id <= 0 || d->id > UINT32_MAX
                     ? SL_ENOTFOUND
                     : sl_mcatalog_snode_drop(cat, (uint32_t)d->id, err);
        if (rc < 0 && err != NULL) {
            char msg[SL_ERROR_MSG_MAX];
            if (rc == SL_ENOTFOUND)
                snprintf(msg, sizeof(msg), "snode %lld does not exist", (long long)d->id);
            else
                snprintf(msg, sizeof(msg), "%s", err->code ? err->msg : sl_strerror(rc));
            sl_error_clear(err);
            sl_ddl_error(err, rc, d->id_pos, "%s", msg);
            sl_ddl_error_prefix(err);
        }
        return rc;
    }
    if (sl__mc_is_stream_stmt(stmt->kind)) {
        int src_rc = sl__mc_stream_exec(cat, stmt, current_db, out, err);
        if (src_rc < 0) {
            if (err != NULL && err->code == 0)
                sl_ddl_error(err, src_rc, stmt->pos, "%s failed: %s",
                             sl_stmt_kind_name(stmt->kind), sl_strerror(src_rc));
            sl_ddl_error_prefix(err);
            sl_ddl_result_fini(out);
        }
        return src_rc;
    }
    sl_ddl_source src = sl__mc_source(cat, current_db);
    sl_ddl_plan plan;
    sl_ddl_plan_init(&plan);
    int rc = sl_ddl_plan_stmt(&src, stmt, &plan, err);
    if (rc == 0)
        rc = apply_plan(cat, &plan, NULL, out, err);
    sl_ddl_plan_fini(&plan);
    if (rc < 0) {
        if (err != NULL && err->code == 0)
            sl_ddl_error(err, rc, stmt->pos, "%s failed: %s", sl_stmt_kind_name(stmt->kind),
                         sl_strerror(rc));
        sl_ddl_error_prefix(err);
        sl_ddl_result_fini(out);
    }
    return rc;
}

int sl_mcatalog_auto_create(sl_mcatalog *cat, const sl_insert_item *item, const char *current_db,
                            sl_mcatalog_table *out, bool *created, sl_error *err)
{
    sl_error_clear(err);
    *created = false;
    sl_ddl_source src = sl__mc_source(cat, current_db);
    sl_ddl_plan plan;
    sl_ddl_plan_init(&plan);
    sl_ddl_result res;
    sl_ddl_result_init(&res);
    sl_ddl_target tg;
    int rc = sl_ddl_plan_insert_target(&src, item, &plan, &tg, err);
    if (rc == 0 && is_info(&tg.db))
        rc = sl_ddl_error(err, SL_EINVAL, item->table.pos,
                          "database '%s' is read-only: it holds the system tables",
                          SL_DDL_INFO_SCHEMA);
    if (rc == 0 && tg.created)
        rc = apply_plan(cat, &plan, NULL, &res, err);
    if (rc == 0) {
        const sl__mc_table *t =
            tg.created ? sl__mc_find_table(tg.db.obj, item->table.name) : tg.table.obj;
        sl__mc_table_view(cat, t, out);
        *created = tg.created;
    }
    sl_ddl_result_fini(&res);
    sl_ddl_plan_fini(&plan);
    if (rc < 0) {
        if (err != NULL && err->code == 0)
            sl_ddl_error(err, rc, item->table.pos, "creating '%s' failed: %s", item->table.name,
                         sl_strerror(rc));
        sl_ddl_error_prefix(err);
    }
    return rc;
}
