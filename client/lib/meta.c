/*
 * meta.c - the connection's metadata cache and its RPC plumbing.
 *
 * Every table a statement touches is looked up here: the first lookup asks the mnode
 * (MNODE_TABLE_META) and keeps the answer - schema, uid, vgroup and vnode address, a
 * child's tag values, a super table's vgroups - so later INSERTs and SELECTs route without
 * asking again. Databases (precision, vgroups) are cached the same way (MNODE_DB_INFO).
 * The cache is shown to the shared code in the two shapes it expects: an sl_ddl_source
 * (INSERT target rules, USING ... TAGS evaluation) and an sl_catalog (the planner).
 * Vnode RPC clients are opened on first use, one per address, and kept.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util/keymap.h"
#include "mnode.pb-c.h"
#include "vnode.pb-c.h"
#include "sluice_int.h"

bool sl__name_eq(const char *a, const char *b)
{
    return sl_ddl_name_eq(a, b);
}

/* ---------------------------------------------------------------- RPC */


int sl__mnode_call(sl_conn *c, uint32_t method, const void *req, size_t len, sl_buf *reply,
                   sl_error *err)
{
    c->c_stats.mnode_calls++;
    return sl_rpc_call(c->c_mnode, method, 0, req, len, reply, c->c_timeout_ms, err);
}

/* Finds or opens the client of addr. */
static int vnode_cli(sl_conn *c, const char *addr, sl__vnode_cli **out, sl_error *err)
{
    sl__vnode_cli *v = c->c_vnodes;
    while (v != NULL && strcmp(v->v_addr, addr) != 0)
        v = v->v_next;
    if (v == NULL) {
        v = calloc(1, sizeof(*v));
        if (v == NULL || (v->v_addr = strdup(addr)) == NULL) {
            free(v);
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        }
        int rc = sl_rpc_client_open(&v->v_cli, addr, NULL, err);
        if (rc < 0) {
            free(v->v_addr);
            free(v);
            return rc;
        }
        v->v_next = c->c_vnodes;
        c->c_vnodes = v;
    }
    *out = v;
    return 0;
}

int sl__vnode_open(sl_conn *c, const char *addr, sl_error *err)
{
    sl__vnode_cli *v;
    return vnode_cli(c, addr, &v, err);
}

void sl__retry_pause(int *pause_ms, int *waited_ms, int cap_ms)
{
    struct timespec ts = {.tv_sec = *pause_ms / 1000, .tv_nsec = (*pause_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    *waited_ms += *pause_ms;
    *pause_ms = *pause_ms * 2 > cap_ms ? cap_ms : *pause_ms * 2;
}

int sl__vnode_call(sl_conn *c, const char *addr, uint32_t method, const void *req, size_t len,
                   sl_buf *reply, sl_error *err)
{
    sl__vnode_cli *v;
    int rc = vnode_cli(c, addr, &v, err);
    if (rc < 0)
        return rc;
    /* A vnode that is starting (or restarting) answers SL_EUNAVAILABLE until it has
     * registered and opened its vgroups. Every vnode request is idempotent (a row written
     * twice is one row, a range deleted twice is deleted, reads change nothing), so it is
     * retried with a growing pause for a few seconds before the error is returned. */
    int pause_ms = 25, waited_ms = 0;
    for (;;) {
        bool fenced = method == SLUICE__VNODE_METHOD__VNODE_WRITE ||
                      method == SLUICE__VNODE_METHOD__VNODE_DELETE;
        rc = sl_rpc_call(v->v_cli, method, fenced ? c->c_epoch : 0, req, len, reply,
                         c->c_timeout_ms, err);
        if (rc != SL_EUNAVAILABLE || waited_ms >= SL_VNODE_RETRY_MS)
            return rc;
        sl__retry_pause(&pause_ms, &waited_ms, 500);
        sl_error_clear(err);
    }
}

/* Packs a protobuf-c message into buf. */
#define PACK(buf, fn, msg)                                                                     \
    (sl_buf_reset(buf), sl_buf_reserve(buf, fn##__get_packed_size(msg)) < 0                    \
                            ? SL_ENOMEM                                                        \
                            : ((buf)->len = fn##__pack(msg, (buf)->data), 0))

/* ---------------------------------------------------------------- table entries */

static uint64_t key_hash(const char *db, const char *name)
{
    char k[512];
    size_t n = 0;
    for (const char *p = db; *p && n < sizeof(k) - 1; p++)
        k[n++] = (char)tolower((unsigned char)*p);
    if (n < sizeof(k) - 1)
        k[n++] = '.';
    for (const char *p = name; *p && n < sizeof(k) - 1; p++)
        k[n++] = (char)tolower((unsigned char)*p);
    return sl_hash_bytes(k, n);
}

static void meta_free(sl__meta *m)
{
    if (m == NULL)
        return;
    free(m->m_db);
    free(m->m_name);
    free(m->m_stable);
    for (int i = 0; i < m->m_tm.ncols; i++)
        free((char *)m->m_cols[i].name);
    for (int i = 0; i < m->m_tm.ntags; i++)
        free((char *)m->m_tags[i].name);
    free(m->m_cols);
    free(m->m_tags);
    sl_block_fini(&m->m_tagvals);
    free(m->m_info_ids);
    free(m->m_info_addrs);
    free(m->m_vg.vg_addr);
    for (int i = 0; i < m->m_nvg; i++)
        free(m->m_vgs[i].vg_addr);
    free(m->m_vgs);
    free(m);
}

static void db_free(sl__dbinfo *d);

static sl__meta *cache_find(sl_conn *c, const char *db, const char *name)
{
    uint64_t h = key_hash(db, name);
    for (sl__meta *m = c->c_meta[h % SL__META_BUCKETS]; m != NULL; m = m->m_next)
        if (m->m_hash == h && sl__name_eq(m->m_db, db) && sl__name_eq(m->m_name, name))
            return m;
    return NULL;
}

void sl__meta_drop(sl_conn *c, sl__meta *m)
{
    if (m == NULL)
        return;
    sl__meta **pp = &c->c_meta[m->m_hash % SL__META_BUCKETS];
    while (*pp != NULL && *pp != m)
        pp = &(*pp)->m_next;
    if (*pp == m)
        *pp = m->m_next;
    meta_free(m);
}

/* Drops the cached tables of database db: every one (stable NULL), or the children of
 * super table `stable`. Costs a walk of the cache: for DROP STABLE and DROP DATABASE. */
static void drop_where(sl_conn *c, const char *db, const char *stable)
{
    for (int i = 0; i < SL__META_BUCKETS; i++) {
        sl__meta **pp = &c->c_meta[i];
        while (*pp != NULL) {
            sl__meta *m = *pp;
            bool hit = sl__name_eq(m->m_db, db) &&
                       (stable == NULL ||
                        (m->m_stable != NULL && sl__name_eq(m->m_stable, stable)));
            if (hit) {
                *pp = m->m_next;
                meta_free(m);
            } else {
                pp = &m->m_next;
            }
        }
    }
}

void sl__meta_forget(sl_conn *c, const char *dbname, const char *tname)
{
    if (dbname == NULL || tname == NULL)
        return;
    /* Copies: the arguments may be strings of the entries this frees. Names longer than
     * any valid one (the mnode refuses them) cannot be told apart here: drop everything. */
    char db[SL_NAME_MAX + 1], name[SL_TABLE_NAME_MAX + 1];
    if (strlen(dbname) >= sizeof(db) || strlen(tname) >= sizeof(name)) {
        sl_conn_flush_meta(c);
        return;
    }
    strcpy(db, dbname);
    strcpy(name, tname);
    sl__meta *m = cache_find(c, db, name);
    /* A super table's children share its schema and vgroup list: they go with it, also
     * when it is not cached itself (DROP STABLE of a super table never looked up). */
    drop_where(c, db, name);
    if (m == NULL)
        return;
    char stable[SL_TABLE_NAME_MAX + 1] = "";
    if (m->m_stable != NULL)
        snprintf(stable, sizeof(stable), "%s", m->m_stable);
    sl__meta_drop(c, m);
    if (stable[0] != '\0')
        sl__meta_drop(c, cache_find(c, db, stable));
}

void sl__meta_forget_entry(sl_conn *c, const char *db, const char *name)
{
    if (db != NULL && name != NULL)
        sl__meta_drop(c, cache_find(c, db, name));
}

void sl__meta_forget_db(sl_conn *c, const char *dbname)
{
    char db[SL_NAME_MAX + 1];
    if (dbname == NULL)
        return;
    if (strlen(dbname) >= sizeof(db)) {
        sl_conn_flush_meta(c);
        return;
    }
    strcpy(db, dbname);
    drop_where(c, db, NULL);
    for (sl__dbinfo **pp = &c->c_dbs; *pp != NULL;) {
        sl__dbinfo *d = *pp;
        if (sl__name_eq(d->d_name, db)) {
            *pp = d->d_next;
            db_free(d);
        } else {
            pp = &d->d_next;
        }
    }
}

static int copy_fields(Sluice__Field **pb, size_t n, sl_field **out)
{
    *out = calloc(n > 0 ? n : 1, sizeof(sl_field));
    if (*out == NULL)
        return SL_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        (*out)[i].type = (sl_type)pb[i]->type;
        (*out)[i].width = pb[i]->width;
        if (((*out)[i].name = strdup(pb[i]->name)) == NULL)
            return SL_ENOMEM;
    }
    return 0;
}

static int copy_vg(const Sluice__VgroupInfo *pb, sl__vgroup *out)
{
    out->vg_id = pb->vgroup_id;
    out->vg_addr = strdup(pb->vnode_address);
    return out->vg_addr == NULL ? SL_ENOMEM : 0;
}

int sl__meta_add_pb(sl_conn *c, const void *pbv, sl__meta **out, sl_error *err)
{
    const Sluice__TableMeta *pb = pbv;
    if (pb->n_columns == 0 || pb->n_columns > SL_MAX_COLUMNS || pb->n_tags > SL_MAX_TAGS ||
        pb->kind > SL_TABLE_NORMAL)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "bad table metadata for '%s' from the mnode",
                            pb->name);
    sl__meta *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    sl_block_init(&m->m_tagvals);
    m->m_db = strdup(pb->db);
    m->m_name = strdup(pb->name);
    m->m_stable = pb->stable_name[0] ? strdup(pb->stable_name) : NULL;
    m->m_uid = pb->uid;
    m->m_stable_uid = pb->stable_uid;
    m->m_tm.ncols = (int)pb->n_columns;
    m->m_tm.ntags = (int)pb->n_tags;
    m->m_key = pb->composite_key && pb->n_columns > 1;
    int rc = 0;
    if (m->m_db == NULL || m->m_name == NULL || (pb->stable_name[0] && m->m_stable == NULL) ||
        copy_fields(pb->columns, pb->n_columns, &m->m_cols) < 0 ||
        copy_fields(pb->tags, pb->n_tags, &m->m_tags) < 0) {
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        goto fail;
    }
    if (pb->tag_values.len > 0 &&
        (rc = sl_block_decode(pb->tag_values.data, pb->tag_values.len, &m->m_tagvals, err)) < 0)
        goto fail;
    if (pb->vgroup != NULL && copy_vg(pb->vgroup, &m->m_vg) < 0) {
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        goto fail;
    }
    if (pb->n_vgroups > 0) {
        m->m_vgs = calloc(pb->n_vgroups, sizeof(*m->m_vgs));
        if (m->m_vgs == NULL) {
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
            goto fail;
        }
        for (size_t i = 0; i < pb->n_vgroups; i++) {
            if (copy_vg(pb->vgroups[i], &m->m_vgs[i]) < 0) {
                rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
                goto fail;
            }
            m->m_nvg++;
        }
    }
    m->m_tm.kind = (sl_table_kind)pb->kind;
    m->m_tm.db = m->m_db;
    m->m_tm.name = m->m_name;
    m->m_tm.precision = (sl_precision)pb->precision;
    m->m_tm.cols = m->m_cols;
    m->m_tm.tags = m->m_tags;
    m->m_hash = key_hash(m->m_db, m->m_name);
    sl__meta_drop(c, cache_find(c, m->m_db, m->m_name));
    m->m_next = c->c_meta[m->m_hash % SL__META_BUCKETS];
    c->c_meta[m->m_hash % SL__META_BUCKETS] = m;
    *out = m;
    return 0;
fail:
    meta_free(m);
    return rc;
}

int sl__meta_get(sl_conn *c, const char *db, const char *name, sl__meta **out, sl_error *err)
{
    if (db == NULL)
        db = c->c_db;
    if (db == NULL)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "no database selected: USE a database or qualify '%s'", name);
    sl__meta *m = cache_find(c, db, name);
    if (m != NULL) {
        c->c_stats.meta_hits++;
        *out = m;
        return 0;
    }
    c->c_stats.meta_misses++;
    Sluice__TableMetaRequest req = SLUICE__TABLE_META_REQUEST__INIT;
    req.db = (char *)db;
    req.name = (char *)name;
    sl_buf b;
    sl_buf_init(&b);
    int rc = PACK(&b, sluice__table_meta_request, &req);
    if (rc == 0)
        rc = sl__mnode_call(c, SLUICE__MNODE_METHOD__MNODE_TABLE_META, b.data, b.len, &b, err);
    if (rc < 0) {
        sl_buf_fini(&b);
        return rc == SL_ENOMEM ? sl_error_set(err, rc, 0, 0, "out of memory") : rc;
    }
    Sluice__TableMetaReply *rep = sluice__table_meta_reply__unpack(NULL, b.len, b.data);
    sl_buf_fini(&b);
    if (rep == NULL || rep->meta == NULL) {
        if (rep != NULL)
            sluice__table_meta_reply__free_unpacked(rep, NULL);
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed TableMeta reply from the mnode");
    }
    rc = sl__meta_add_pb(c, rep->meta, out, err);
    sluice__table_meta_reply__free_unpacked(rep, NULL);
    return rc;
}

int sl__meta_prefetch(sl_conn *c, const char *db, const char *const *names, size_t n,
                      sl_error *err)
{
    if (db == NULL)
        db = c->c_db;
    if (db == NULL)
        return 0;
    char **want = calloc(n ? n : 1, sizeof(*want));
    if (want == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    int rc = 0;
    for (size_t at = 0; rc == 0 && at < n;) {
        /* The next up to META_PREFETCH_MAX + 1 names not cached. */
        size_t nw = 0;
        for (; at < n && nw <= META_PREFETCH_MAX; at++)
            if (cache_find(c, db, names[at]) == NULL)
                want[nw++] = (char *)names[at];
        if (nw == 0)
            break;
        Sluice__TableMetaRequest req = SLUICE__TABLE_META_REQUEST__INIT;
        req.db = (char *)db;
        req.name = want[0];
        req.n_more_names = nw - 1;
        req.more_names = want + 1;
        sl_buf b;
        sl_buf_init(&b);
        rc = PACK(&b, sluice__table_meta_request, &req);
        if (rc == 0)
            rc = sl__mnode_call(c, SLUICE__MNODE_METHOD__MNODE_TABLE_META, b.data, b.len, &b,
                                err);
        Sluice__TableMetaReply *rep =
            rc == 0 ? sluice__table_meta_reply__unpack(NULL, b.len, b.data) : NULL;
        sl_buf_fini(&b);
        if (rc == 0 && (rep == NULL || rep->meta == NULL))
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed TableMeta reply from the mnode");
        sl__meta *m;
        if (rc == 0)
            rc = sl__meta_add_pb(c, rep->meta, &m, err);
        for (size_t i = 0; rc == 0 && i < rep->n_more; i++)
            rc = sl__meta_add_pb(c, rep->more[i], &m, err);
        if (rep != NULL)
            sluice__table_meta_reply__free_unpacked(rep, NULL);
        c->c_stats.meta_misses += nw;
    }
    free(want);
    return rc;
}

int sl_table_info_get(sl_conn *c, const char *db, const char *name, sl_table_info *out,
                      sl_error *err)
{
    sl__meta *m;
    int rc = sl__meta_get(c, db, name, &m, err);
    if (rc < 0)
        return rc;
    bool super = m->m_tm.kind == SL_TABLE_SUPER;
    int n = super ? m->m_nvg : 1;
    if (m->m_info_ids == NULL) {
        m->m_info_ids = calloc((size_t)(n > 0 ? n : 1), sizeof(*m->m_info_ids));
        m->m_info_addrs = calloc((size_t)(n > 0 ? n : 1), sizeof(*m->m_info_addrs));
        if (m->m_info_ids == NULL || m->m_info_addrs == NULL) {
            free(m->m_info_ids);
            free(m->m_info_addrs);
            m->m_info_ids = NULL;
            m->m_info_addrs = NULL;
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        }
        for (int i = 0; i < n; i++) {
            const sl__vgroup *vg = super ? &m->m_vgs[i] : &m->m_vg;
            m->m_info_ids[i] = vg->vg_id;
            m->m_info_addrs[i] = vg->vg_addr;
        }
    }
    memset(out, 0, sizeof(*out));
    out->meta = m->m_tm;
    out->uid = m->m_uid;
    out->stable_uid = m->m_stable_uid;
    out->composite_key = m->m_key;
    out->tagvals = m->m_tm.kind == SL_TABLE_CHILD ? &m->m_tagvals : NULL;
    out->nvgroups = n;
    out->vgroup_ids = m->m_info_ids;
    out->vnode_addrs = m->m_info_addrs;
    return 0;
}

/* ---------------------------------------------------------------- databases */

static void db_free(sl__dbinfo *d)
{
    if (d == NULL)
        return;
    free(d->d_name);
    for (int i = 0; i < d->d_nvg; i++)
        free(d->d_vgs[i].vg_addr);
    free(d->d_vgs);
    free(d);
}

int sl__db_get(sl_conn *c, const char *name, sl__dbinfo **out, sl_error *err)
{
    for (sl__dbinfo *d = c->c_dbs; d != NULL; d = d->d_next) {
        if (sl__name_eq(d->d_name, name)) {
            *out = d;
            return 0;
        }
    }
    Sluice__DbInfoRequest req = SLUICE__DB_INFO_REQUEST__INIT;
    req.db = (char *)name;
    sl_buf b;
    sl_buf_init(&b);
    int rc = PACK(&b, sluice__db_info_request, &req);
    if (rc == 0)
        rc = sl__mnode_call(c, SLUICE__MNODE_METHOD__MNODE_DB_INFO, b.data, b.len, &b, err);
    if (rc < 0) {
        sl_buf_fini(&b);
        return rc == SL_ENOMEM ? sl_error_set(err, rc, 0, 0, "out of memory") : rc;
    }
    Sluice__DbInfoReply *rep = sluice__db_info_reply__unpack(NULL, b.len, b.data);
    sl_buf_fini(&b);
    if (rep == NULL)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed DbInfo reply from the mnode");
    sl__dbinfo *d = calloc(1, sizeof(*d));
    if (d == NULL)
        goto oom;
    d->d_name = strdup(rep->db[0] ? rep->db : name);
    d->d_prec = (sl_precision)rep->precision;
    d->d_vgs = calloc(rep->n_vgroups > 0 ? rep->n_vgroups : 1, sizeof(*d->d_vgs));
    if (d->d_name == NULL || d->d_vgs == NULL)
        goto oom;
    for (size_t i = 0; i < rep->n_vgroups; i++) {
        if (copy_vg(rep->vgroups[i], &d->d_vgs[i]) < 0)
            goto oom;
        d->d_nvg++;
    }
    sluice__db_info_reply__free_unpacked(rep, NULL);
    d->d_next = c->c_dbs;
    c->c_dbs = d;
    *out = d;
    return 0;
oom:
    sluice__db_info_reply__free_unpacked(rep, NULL);
    db_free(d);
    return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
}

void sl_conn_set_epoch(sl_conn *c, uint64_t epoch)
{
    c->c_epoch = epoch;
}

void sl_conn_flush_meta(sl_conn *c)
{
    for (int i = 0; i < SL__META_BUCKETS; i++) {
        while (c->c_meta[i] != NULL) {
            sl__meta *m = c->c_meta[i];
            c->c_meta[i] = m->m_next;
            meta_free(m);
        }
    }
    while (c->c_dbs != NULL) {
        sl__dbinfo *d = c->c_dbs;
        c->c_dbs = d->d_next;
        db_free(d);
    }
}

void sl__meta_fini(sl_conn *c)
{
    sl_conn_flush_meta(c);
    while (c->c_vnodes != NULL) {
        sl__vnode_cli *v = c->c_vnodes;
        c->c_vnodes = v->v_next;
        sl_rpc_client_close(v->v_cli);
        free(v->v_addr);
        free(v);
    }
}

/* ---------------------------------------------------------------- the shapes shared code reads */

/* A lookup failure other than "not found" is kept so the caller can report it instead of
 * the "does not exist" the DDL rules then produce. */
static void keep_lookup_err(sl_conn *c, int rc, const sl_error *e)
{
    if (rc != SL_ENOTFOUND && c->c_lookup_err.code == 0)
        c->c_lookup_err = *e;
}

static bool src_find_db(void *ud, const char *name, sl_ddl_db *out)
{
    sl_conn *c = ud;
    sl__dbinfo *d;
    sl_error e;
    sl_error_clear(&e);
    int rc = sl__db_get(c, name, &d, &e);
    if (rc < 0) {
        keep_lookup_err(c, rc, &e);
        return false;
    }
    memset(out, 0, sizeof(*out));
    out->name = d->d_name;
    out->precision = d->d_prec;
    out->vgroups = d->d_nvg;
    out->obj = d;
    return true;
}

static bool src_find_table(void *ud, const sl_ddl_db *db, const char *name, sl_ddl_table *out)
{
    sl_conn *c = ud;
    sl__meta *m;
    sl_error e;
    sl_error_clear(&e);
    int rc = sl__meta_get(c, db->name, name, &m, &e);
    if (rc < 0) {
        keep_lookup_err(c, rc, &e);
        return false;
    }
    memset(out, 0, sizeof(*out));
    out->kind = m->m_tm.kind;
    out->name = m->m_name;
    out->stable = m->m_stable;
    out->ncols = m->m_tm.ncols;
    out->cols = m->m_cols;
    out->ntags = m->m_tm.ntags;
    out->tags = m->m_tags;
    out->tagvals = m->m_tagvals.ncols > 0 ? &m->m_tagvals : NULL;
    out->obj = m;
    out->composite_key = m->m_key;
    return true;
}

static int src_each_db(void *ud, sl_ddl_db_fn fn, void *arg)
{
    return 0; /* listing is the mnode's business (SHOW); INSERT rules never list */
}

static int src_each_table(void *ud, const sl_ddl_db *db, sl_ddl_table_fn fn, void *arg)
{
    return 0;
}

static const sl_ddl_source_ops src_ops = {
    .find_db = src_find_db,
    .find_table = src_find_table,
    .each_db = src_each_db,
    .each_table = src_each_table,
};

sl_ddl_source sl__meta_ddl_source(sl_conn *c)
{
    return (sl_ddl_source){.ops = &src_ops, .ud = c, .current_db = c->c_db,
                           .now_ms = c->c_now_ms};
}

static int cat_get_table(void *ud, const char *db, const char *name, sl_table_meta *out,
                         sl_error *err)
{
    sl__meta *m;
    int rc = sl__meta_get(ud, db, name, &m, err);
    if (rc < 0)
        return rc;
    *out = m->m_tm;
    return 0;
}

static int cat_scan_open(void *ud, const sl_scan_req *req, void **cursor, sl_error *err)
{
    return sl_error_set(err, SL_EUNSUPPORTED, 0, 0,
                        "table '%s' can only be scanned on its vnodes", req->table->name);
}

static int cat_scan_next(void *cursor, sl_block *out, sl_error *err)
{
    return sl_error_set(err, SL_ESTATE, 0, 0, "no scan is open");
}

static void cat_scan_close(void *cursor)
{
}

static const sl_catalog_ops cat_ops = {
    .get_table = cat_get_table,
    .scan_open = cat_scan_open,
    .scan_next = cat_scan_next,
    .scan_close = cat_scan_close,
};

sl_catalog sl__meta_catalog(sl_conn *c)
{
    return (sl_catalog){.ops = &cat_ops, .ud = c};
}
