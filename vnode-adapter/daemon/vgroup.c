/*
 * vgroup.c - one vgroup hosted by the vnode: its vstore under <data>/vgroup-<id>, the
 * super tables of its database and a name index of its tables, refreshed from the
 * mnode's full table list (MNODE_VGROUP_TABLES).
 *
 * The mnode's reply is authoritative: child and normal tables it names are registered in
 * the vstore (tables already registered under the same uid and name are left alone, as
 * DDL never changes a table in place) and tables it marks dropped are dropped with their
 * rows. A full reply lists every table of the vgroup: registered tables it does not name
 * are dropped too and the index is rebuilt from it; an incremental reply (only the
 * changes since our catalog version) is applied to the index we have. Super tables are
 * always listed in full.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/util/log.h"
#include "mnode.pb-c.h"
#include "vdaemon.h"

vn_vgroup *sl__vn_find(sl_vdaemon *vd, uint32_t id)
{
    for (int i = 0; i < vd->vd_nvgroups; i++)
        if (vd->vd_vgroups[i]->vg_id == id)
            return vd->vd_vgroups[i];
    return NULL;
}

static void free_fields(sl_field *f, int n)
{
    for (int i = 0; f && i < n; i++)
        free((char *)f[i].name);
    free(f);
}

static void free_index(vn_vgroup *vg)
{
    for (int i = 0; i < vg->vg_nstables; i++) {
        free(vg->vg_stables[i].name);
        free_fields(vg->vg_stables[i].cols, vg->vg_stables[i].ncols);
        free_fields(vg->vg_stables[i].tags, vg->vg_stables[i].ntags);
    }
    free(vg->vg_stables);
    vg->vg_stables = NULL;
    vg->vg_nstables = 0;
    for (int i = 0; i < vg->vg_ntables; i++)
        free(vg->vg_tables[i].name);
    free(vg->vg_tables);
    vg->vg_tables = NULL;
    vg->vg_ntables = 0;
}

/* Builds the name index from the vstore's registry (before the first sync). */
static int index_from_store(vn_vgroup *vg, sl_error *err)
{
    uint64_t *uids = NULL;
    size_t n = 0;
    int rc = sl_vstore_table_list(vg->vg_vs, &uids, &n, err);
    if (rc < 0)
        return rc;
    vg->vg_tables = calloc(n ? n : 1, sizeof(*vg->vg_tables));
    if (vg->vg_tables == NULL) {
        free(uids);
        return SL_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const sl_vs_table_def *d;
        if (sl_vstore_table_acquire(vg->vg_vs, uids[i], &d, NULL) < 0)
            continue;
        vn_table *t = &vg->vg_tables[vg->vg_ntables];
        t->uid = d->uid;
        t->name = strdup(d->name);
        t->kind = d->kind == SL_VS_TABLE_CHILD ? SL_TABLE_CHILD : SL_TABLE_NORMAL;
        t->suid = d->suid;
        vg->vg_prec = d->precision;
        sl_vstore_table_release(d);
        if (t->name != NULL)
            vg->vg_ntables++;
    }
    free(uids);
    return 0;
}

/* The table cache calls of the loop thread: the change reader uses the cache too. */
static void tcache_forget(vn_vgroup *vg, uint64_t uid)
{
    pthread_mutex_lock(&vg->vg_tcmu);
    sl_vs_tcache_forget(vg->vg_tcache, uid);
    pthread_mutex_unlock(&vg->vg_tcmu);
}

static void tcache_note_drop(vn_vgroup *vg, uint64_t uid)
{
    pthread_mutex_lock(&vg->vg_tcmu);
    sl_vs_tcache_note_drop(vg->vg_tcache, uid);
    pthread_mutex_unlock(&vg->vg_tcmu);
}

int sl__vn_vgroup_open(sl_vdaemon *vd, uint32_t id, sl_error *err)
{
    vn_vgroup *vg = calloc(1, sizeof(*vg));
    vn_vgroup **v = realloc(vd->vd_vgroups, sizeof(*v) * (size_t)(vd->vd_nvgroups + 1));
    if (vg == NULL || v == NULL) {
        free(vg);
        if (v != NULL)
            vd->vd_vgroups = v;
        return SL_ENOMEM;
    }
    vd->vd_vgroups = v;
    vg->vg_id = id;
    pthread_mutex_init(&vg->vg_tcmu, NULL);
    char dir[1200];
    snprintf(dir, sizeof(dir), "%s/vgroup-%u", vd->vd_data, id);
    sl_vstore_options o;
    memset(&o, 0, sizeof(o));
    o.log_max_entries = vd->vd_log_max_entries;
    o.log_max_bytes = vd->vd_log_max_bytes;
    int rc = sl_vstore_open(&vg->vg_vs, dir, &o, err);
    if (rc == 0)
        rc = index_from_store(vg, err);
    if (rc == 0 && (rc = sl_vs_tcache_open(&vg->vg_tcache, vg->vg_vs)) < 0)
        sl_error_set(err, rc, 0, 0, "out of memory");
    if (rc < 0) {
        free_index(vg);
        sl_vs_tcache_close(vg->vg_tcache);
        pthread_mutex_destroy(&vg->vg_tcmu);
        sl_vstore_close(vg->vg_vs);
        free(vg);
        return rc;
    }
    vd->vd_vgroups[vd->vd_nvgroups++] = vg;
    sl_log(SL_LOG_INFO, "vnode", "vgroup opened vgroup_id=%u dir=%s tables=%d version=%" PRIu64,
           id, dir, vg->vg_ntables, sl_vstore_last_version(vg->vg_vs));
    return 0;
}

void sl__vn_vgroup_close(sl_vdaemon *vd, vn_vgroup *vg)
{
    sl__vn_commit(vd); /* no pending write may outlive its vgroup */
    sl__vn_cursors_sweep(vd, 0, vg);
    sl__vn_fail_polls(vd, vg);
    for (int i = 0; i < vd->vd_nvgroups; i++) {
        if (vd->vd_vgroups[i] == vg) {
            vd->vd_vgroups[i] = vd->vd_vgroups[--vd->vd_nvgroups];
            break;
        }
    }
    sl_log(SL_LOG_INFO, "vnode", "vgroup closed vgroup_id=%u", vg->vg_id);
    sl_vs_tcache_close(vg->vg_tcache);
    pthread_mutex_destroy(&vg->vg_tcmu);
    sl_vstore_close(vg->vg_vs);
    free_index(vg);
    free(vg);
}

const vn_stable *sl__vn_stable_by_name(const vn_vgroup *vg, const char *name)
{
    for (int i = 0; i < vg->vg_nstables; i++)
        if (strcasecmp(vg->vg_stables[i].name, name) == 0)
            return &vg->vg_stables[i];
    return NULL;
}

const vn_table *sl__vn_table_by_name(const vn_vgroup *vg, const char *name)
{
    for (int i = 0; i < vg->vg_ntables; i++)
        if (strcasecmp(vg->vg_tables[i].name, name) == 0)
            return &vg->vg_tables[i];
    return NULL;
}

/* Copies proto fields into owned sl_fields; NULL on exhaustion or a bad type. */
static sl_field *fields_from_pb(Sluice__Field **f, size_t n)
{
    sl_field *v = calloc(n ? n : 1, sizeof(*v));
    for (size_t i = 0; v && i < n; i++) {
        v[i].name = strdup(f[i]->name);
        v[i].type = (sl_type)f[i]->type;
        v[i].width = f[i]->width;
        if (v[i].name == NULL || f[i]->type == SL_T_NULL || f[i]->type >= SL_T__COUNT) {
            free_fields(v, (int)i + 1);
            return NULL;
        }
    }
    return v;
}

static sl_vs_column *vs_cols(Sluice__Field **f, size_t n)
{
    sl_vs_column *v = calloc(n ? n : 1, sizeof(*v));
    for (size_t i = 0; v && i < n; i++) {
        v[i].name = f[i]->name;
        v[i].type = (sl_type)f[i]->type;
        v[i].width = f[i]->width;
    }
    return v;
}

/* Registers one child/normal table unless the vstore already has it under that name. */
static int put_def(vn_vgroup *vg, const Sluice__TableDef *d, sl_precision prec, sl_error *err)
{
    const sl_vs_table_def *have;
    if (sl_vstore_table_acquire(vg->vg_vs, d->uid, &have, NULL) == 0) {
        bool same = strcmp(have->name, d->name) == 0;
        sl_vstore_table_release(have);
        if (same)
            return 0;
    }
    sl_vs_table_def def;
    memset(&def, 0, sizeof(def));
    sl_block tv;
    sl_block_init(&tv);
    int rc = 0;
    def.uid = d->uid;
    def.name = d->name;
    def.kind = d->kind == SL_TABLE_CHILD ? SL_VS_TABLE_CHILD : SL_VS_TABLE_NORMAL;
    def.suid = d->kind == SL_TABLE_CHILD ? d->stable_uid : 0;
    def.precision = prec;
    def.ncols = (uint32_t)d->n_columns;
    def.composite_key = d->composite_key;
    sl_vs_column *cols = vs_cols(d->columns, d->n_columns);
    sl_vs_column *tags = NULL;
    def.cols = cols;
    if (d->kind == SL_TABLE_CHILD) {
        def.ntags = (uint32_t)d->n_tags;
        tags = vs_cols(d->tags, d->n_tags);
        def.tags = tags;
        rc = sl_block_decode(d->tag_values.data, d->tag_values.len, &tv, err);
        def.tag_values = &tv;
    }
    if (cols == NULL || (d->kind == SL_TABLE_CHILD && tags == NULL))
        rc = SL_ENOMEM;
    if (rc == 0)
        rc = sl_vstore_put_table(vg->vg_vs, &def, false, err);
    if (rc == 0)
        tcache_forget(vg, d->uid); /* name or tags may have changed */
    free(cols);
    free(tags);
    sl_block_fini(&tv);
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Removes uid from tb (n entries); returns the new count. */
static int tb_remove(vn_table *tb, int n, uint64_t uid)
{
    for (int i = 0; i < n; i++) {
        if (tb[i].uid == uid) {
            free(tb[i].name);
            tb[i] = tb[--n];
            return n;
        }
    }
    return n;
}

int sl__vn_apply_tables(vn_vgroup *vg, const uint8_t *p, size_t n, sl_error *err)
{
    Sluice__VgroupTablesReply *rp = sluice__vgroup_tables_reply__unpack(NULL, n, p);
    if (rp == NULL)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed VgroupTablesReply");
    int rc = 0;
    sl_precision prec = (sl_precision)rp->precision;
    size_t captb = rp->n_tables + (rp->full ? 0 : (size_t)vg->vg_ntables) + 1;
    vn_stable *st = calloc(rp->n_tables + 1, sizeof(*st));
    vn_table *tb = calloc(captb, sizeof(*tb));
    uint64_t *listed = calloc(rp->n_tables + 1, sizeof(*listed));
    int nst = 0, ntb = 0;
    size_t nlisted = 0;
    if (st == NULL || tb == NULL || listed == NULL) {
        rc = SL_ENOMEM;
        goto done;
    }
    /* An incremental reply applies to the index we have. */
    for (int i = 0; !rp->full && i < vg->vg_ntables; i++) {
        tb[ntb] = vg->vg_tables[i];
        tb[ntb].name = strdup(vg->vg_tables[i].name);
        if (tb[ntb].name == NULL) {
            rc = SL_ENOMEM;
            goto done;
        }
        ntb++;
    }
    for (size_t i = 0; i < rp->n_tables; i++) {
        const Sluice__TableDef *d = rp->tables[i];
        if (d->dropped) {
            ntb = tb_remove(tb, ntb, d->uid);
            /* Its retained change-log entries still need its group (filtered reads). */
            tcache_note_drop(vg, d->uid);
            if (sl_vstore_drop_table(vg->vg_vs, d->uid, true, NULL, NULL) == 0)
                sl_log(SL_LOG_INFO, "vnode", "dropped table vgroup_id=%u uid=%" PRIu64,
                       vg->vg_id, d->uid);
            continue;
        }
        if (d->kind == SL_TABLE_SUPER) {
            vn_stable *s = &st[nst];
            s->uid = d->uid;
            s->name = strdup(d->name);
            s->ncols = (int)d->n_columns;
            s->cols = fields_from_pb(d->columns, d->n_columns);
            s->ntags = (int)d->n_tags;
            s->tags = fields_from_pb(d->tags, d->n_tags);
            nst++;
            if (s->name == NULL || s->cols == NULL || s->tags == NULL) {
                rc = SL_ENOMEM;
                goto done;
            }
            continue;
        }
        sl_error e = {0};
        int prc = put_def(vg, d, prec, &e);
        if (prc < 0) {
            sl_log(SL_LOG_WARN, "vnode", "table def refused vgroup_id=%u uid=%" PRIu64 " name=%s: %s",
                   vg->vg_id, d->uid, d->name, e.msg);
            continue;
        }
        listed[nlisted++] = d->uid;
        ntb = tb_remove(tb, ntb, d->uid);
        vn_table *t = &tb[ntb];
        t->uid = d->uid;
        t->name = strdup(d->name);
        t->kind = d->kind == SL_TABLE_CHILD ? SL_TABLE_CHILD : SL_TABLE_NORMAL;
        t->suid = d->stable_uid;
        if (t->name == NULL) {
            rc = SL_ENOMEM;
            goto done;
        }
        ntb++;
    }
    /* A full list: drop what the mnode no longer lists. */
    qsort(listed, nlisted, sizeof(*listed), cmp_u64);
    uint64_t *uids = NULL;
    size_t nu = 0;
    if (rp->full && sl_vstore_table_list(vg->vg_vs, &uids, &nu, NULL) == 0) {
        for (size_t i = 0; i < nu; i++) {
            if (bsearch(&uids[i], listed, nlisted, sizeof(*listed), cmp_u64) != NULL)
                continue;
            sl_log(SL_LOG_INFO, "vnode", "dropping table vgroup_id=%u uid=%" PRIu64, vg->vg_id,
                   uids[i]);
            tcache_note_drop(vg, uids[i]);
            sl_vstore_drop_table(vg->vg_vs, uids[i], true, NULL, NULL);
        }
        free(uids);
    }
    free_index(vg);
    vg->vg_stables = st;
    vg->vg_nstables = nst;
    vg->vg_tables = tb;
    vg->vg_ntables = ntb;
    st = NULL;
    tb = NULL;
    snprintf(vg->vg_db, sizeof(vg->vg_db), "%s", rp->db);
    vg->vg_prec = prec;
    vg->vg_synced = rp->catalog_version;
    sl_log(SL_LOG_DEBUG, "vnode",
           "synced vgroup_id=%u db=%s full=%d tables=%d stables=%d version=%" PRIu64, vg->vg_id,
           vg->vg_db, (int)rp->full, vg->vg_ntables, nst, rp->catalog_version);
done:
    if (st != NULL) {
        for (int i = 0; i < nst; i++) {
            free(st[i].name);
            free_fields(st[i].cols, st[i].ncols);
            free_fields(st[i].tags, st[i].ntags);
        }
        free(st);
    }
    if (tb != NULL) {
        for (int i = 0; i < ntb; i++)
            free(tb[i].name);
        free(tb);
    }
    free(listed);
    sluice__vgroup_tables_reply__free_unpacked(rp, NULL);
    if (rc < 0 && err != NULL && err->code == 0)
        sl_error_set(err, rc, 0, 0, "cannot apply the table list");
    return rc;
}
