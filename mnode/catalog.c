/*
 * catalog.c - the mnode catalog's in-memory registry, its lifecycle and lookups
 * (catalog.h).
 *
 * The whole catalog lives in memory - databases in a list, each with its tables in an
 * open-addressing hash set by case-insensitive name and its super tables in a list, every
 * vgroup with the list of its tables (so listing a vgroup's tables costs what it holds),
 * vgroups and nodes in arrays sorted by id - and every change is mirrored by one RocksDB
 * write batch (catalog_int.h lists the keys, catalog_store.c encodes them; the lists are
 * memory only, rebuilt at load). The batch is written, synced, before the in-memory
 * change, and everything the in-memory change needs is allocated (reserved) before the
 * batch is written, so memory and disk never disagree: a failed write changes neither, a
 * successful one is followed by linking that cannot fail.
 */
#include "common/util/grow.h"
#include "catalog_int.h"

#include <assert.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/util/keymap.h"

/* ------------------------------------------------------------ names */

int sl__mc_put_lower(sl_buf *b, const char *s)
{
    size_t n = strlen(s);
    int rc = sl_buf_reserve(b, n);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n; i++)
        b->data[b->len + i] = (uint8_t)tolower((unsigned char)s[i]);
    b->len += n;
    return 0;
}

uint32_t sl_mcatalog_vgroup_index(const char *db, const char *table, uint32_t nvgroups)
{
    assert(nvgroups > 0);
    /* Valid names fit, so this never allocates; longer ones are cut (catalog.h). */
    char buf[SL_NAME_MAX + 1 + SL_TABLE_NAME_MAX];
    size_t n = 0;
    for (const char *p = db; *p != '\0' && n < SL_NAME_MAX; p++)
        buf[n++] = (char)tolower((unsigned char)*p);
    buf[n++] = '\0';
    for (const char *p = table; *p != '\0' && n < sizeof(buf); p++)
        buf[n++] = (char)tolower((unsigned char)*p);
    return (uint32_t)(sl_hash_bytes(buf, n) % nvgroups);
}

/* ------------------------------------------------------------ registry */

int64_t sl__mc_now(const sl_mcatalog *cat)
{
    return cat->c_now(cat->c_now_ud);
}

sl__mc_db *sl__mc_find_db(const sl_mcatalog *cat, const char *name)
{
    for (int i = 0; i < cat->c_ndbs; i++)
        if (sl_ddl_name_eq(cat->c_dbs[i]->d_name, name))
            return cat->c_dbs[i];
    return NULL;
}

static const char *table_name(const void *item)
{
    return ((const sl__mc_table *)item)->t_name;
}

void sl__mc_init_tables(sl__mc_db *db)
{
    sl_nameset_init(&db->d_tables, table_name);
}

sl__mc_table *sl__mc_find_table(const sl__mc_db *db, const char *name)
{
    return sl_nameset_find(&db->d_tables, name);
}

sl__mc_vgroup *sl__mc_find_vgroup(const sl_mcatalog *cat, uint32_t id)
{
    uint32_t lo = 0, hi = cat->c_nvgroups;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t v = cat->c_vgroups[mid]->vg_id;
        if (v == id)
            return cat->c_vgroups[mid];
        if (v < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

sl__mc_node *sl__mc_find_node(const sl_mcatalog *cat, uint32_t id)
{
    uint32_t lo = 0, hi = cat->c_nnodes;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t v = cat->c_nodes[mid]->n_id;
        if (v == id)
            return cat->c_nodes[mid];
        if (v < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int sl__mc_ncols(const sl__mc_table *t)
{
    return t->t_super ? t->t_super->t_ncols : t->t_ncols;
}

const sl_field *sl__mc_cols(const sl__mc_table *t)
{
    return t->t_super ? t->t_super->t_cols : t->t_cols;
}

bool sl__mc_key(const sl__mc_table *t)
{
    return t->t_super ? t->t_super->t_key : t->t_key;
}

int sl__mc_ntags(const sl__mc_table *t)
{
    return t->t_super ? t->t_super->t_ntags : t->t_ntags;
}

const sl_field *sl__mc_tags(const sl__mc_table *t)
{
    return t->t_super ? t->t_super->t_tags : t->t_tags;
}

int sl__mc_reserve_dbs(sl_mcatalog *cat, int more)
{
    return sl_grow(&cat->c_dbs, sizeof(*cat->c_dbs), &cat->c_capdbs, cat->c_ndbs + more, 4);
}

int sl__mc_reserve_vgroups(sl_mcatalog *cat, uint32_t more)
{
    uint64_t need = (uint64_t)cat->c_nvgroups + more;
    if (need <= cat->c_capvgroups)
        return 0;
    uint64_t cap = cat->c_capvgroups ? cat->c_capvgroups : 16;
    while (cap < need)
        cap *= 2;
    if (cap > UINT32_MAX)
        return SL_ENOMEM;
    sl__mc_vgroup **p = realloc(cat->c_vgroups, (size_t)cap * sizeof(*p));
    if (p == NULL)
        return SL_ENOMEM;
    cat->c_vgroups = p;
    cat->c_capvgroups = (uint32_t)cap;
    return 0;
}

int sl__mc_reserve_tables(sl__mc_db *db, uint32_t more)
{
    return sl_nameset_reserve(&db->d_tables, more);
}

/* Grows an array of table pointers with n entries to hold n + more. */
static int reserve_ptrs(sl__mc_table ***arr, int64_t n, int64_t *cap, uint64_t more)
{
    uint64_t need = (uint64_t)n + more;
    if (need <= (uint64_t)*cap)
        return 0;
    uint64_t c = *cap > 0 ? (uint64_t)*cap : 16;
    while (c < need)
        c *= 2;
    if (c > SIZE_MAX / sizeof(**arr) || c > (uint64_t)INT64_MAX)
        return SL_ENOMEM;
    sl__mc_table **p = realloc(*arr, (size_t)c * sizeof(*p));
    if (p == NULL)
        return SL_ENOMEM;
    *arr = p;
    *cap = (int64_t)c;
    return 0;
}

int sl__mc_reserve_index(sl__mc_table *t, uint32_t more)
{
    if (t->t_kind == SL_TABLE_SUPER) {
        sl__mc_db *db = t->t_db;
        int64_t cap = db->d_capsupers;
        int rc = reserve_ptrs(&db->d_supers, db->d_nsupers, &cap, more);
        if (rc == 0 && cap > UINT32_MAX)
            return SL_ENOMEM; /* cannot happen: a database holds fewer tables */
        db->d_capsupers = (uint32_t)cap;
        return rc;
    }
    assert(t->t_vgroup != NULL);
    sl__mc_vgroup *vg = t->t_vgroup;
    return reserve_ptrs(&vg->vg_tables, vg->vg_ntables, &vg->vg_captables, more);
}

int sl__mc_reserve_children(sl__mc_table *st, int more)
{
    return sl_grow(&st->t_children, sizeof(*st->t_children), &st->t_capchildren,
                   st->t_nchildren + more, 8);
}

void sl__mc_link_db(sl_mcatalog *cat, sl__mc_db *db)
{
    assert(cat->c_ndbs < cat->c_capdbs);
    cat->c_dbs[cat->c_ndbs++] = db;
}

void sl__mc_link_vgroup(sl_mcatalog *cat, sl__mc_vgroup *vg)
{
    assert(cat->c_nvgroups < cat->c_capvgroups);
    uint32_t i = cat->c_nvgroups;
    while (i > 0 && cat->c_vgroups[i - 1]->vg_id > vg->vg_id) {
        cat->c_vgroups[i] = cat->c_vgroups[i - 1];
        i--;
    }
    cat->c_vgroups[i] = vg;
    cat->c_nvgroups++;
    sl__mc_node *n = sl__mc_find_node(cat, vg->vg_vnode);
    if (n != NULL)
        n->n_nvgroups++;
    vg->vg_db->d_vgroups[vg->vg_index] = vg;
}

void sl__mc_link_table(sl__mc_table *t)
{
    sl__mc_db *db = t->t_db;
    /* Callers reserve first, so linking never allocates. */
    sl_nameset_insert(&db->d_tables, t);
    if (t->t_kind == SL_TABLE_SUPER) {
        assert(db->d_nsupers < db->d_capsupers);
        t->t_index_pos = db->d_nsupers;
        db->d_supers[db->d_nsupers++] = t;
    }
    if (t->t_super != NULL) {
        sl__mc_table *st = t->t_super;
        assert(st->t_nchildren < st->t_capchildren);
        t->t_child_pos = st->t_nchildren;
        st->t_children[st->t_nchildren++] = t;
    }
    if (t->t_vgroup != NULL) {
        sl__mc_vgroup *vg = t->t_vgroup;
        assert(vg->vg_ntables < vg->vg_captables);
        t->t_index_pos = vg->vg_ntables;
        vg->vg_tables[vg->vg_ntables++] = t;
    }
}

/* Removes entry pos of an index of n tables by moving the last one into its place. */
static void index_remove(sl__mc_table **v, int64_t *n, int64_t pos)
{
    assert(pos >= 0 && pos < *n);
    sl__mc_table *last = v[--*n];
    v[pos] = last;
    last->t_index_pos = pos;
}

/* Unlinks one table from its database, vgroup and super table, and frees it. */
static void unlink_free(sl__mc_table *t)
{
    sl__mc_db *db = t->t_db;
    sl_nameset_remove(&db->d_tables, t);
    if (t->t_kind == SL_TABLE_SUPER) {
        int64_t n = db->d_nsupers;
        index_remove(db->d_supers, &n, t->t_index_pos);
        db->d_nsupers = (uint32_t)n;
    }
    if (t->t_vgroup != NULL)
        index_remove(t->t_vgroup->vg_tables, &t->t_vgroup->vg_ntables, t->t_index_pos);
    if (t->t_super != NULL) {
        sl__mc_table *st = t->t_super;
        sl__mc_table *last = st->t_children[--st->t_nchildren];
        st->t_children[t->t_child_pos] = last;
        last->t_child_pos = t->t_child_pos;
    }
    sl__mc_table_free(t);
}

void sl__mc_drop_table(sl__mc_table *t)
{
    if (t->t_kind == SL_TABLE_SUPER)
        while (t->t_nchildren > 0)
            unlink_free(t->t_children[t->t_nchildren - 1]);
    unlink_free(t);
}

void sl__mc_drop_db(sl_mcatalog *cat, sl__mc_db *db)
{
    for (uint32_t i = 0; i < db->d_nvgroups; i++) {
        sl__mc_vgroup *vg = db->d_vgroups[i];
        if (vg == NULL)
            continue;
        sl__mc_node *n = sl__mc_find_node(cat, vg->vg_vnode);
        if (n != NULL && n->n_nvgroups > 0)
            n->n_nvgroups--;
        for (uint32_t k = 0; k < cat->c_nvgroups; k++) {
            if (cat->c_vgroups[k] == vg) {
                memmove(&cat->c_vgroups[k], &cat->c_vgroups[k + 1],
                        (size_t)(cat->c_nvgroups - k - 1) * sizeof(cat->c_vgroups[0]));
                cat->c_nvgroups--;
                break;
            }
        }
    }
    for (int i = 0; i < cat->c_ndbs; i++) {
        if (cat->c_dbs[i] == db) {
            memmove(&cat->c_dbs[i], &cat->c_dbs[i + 1],
                    (size_t)(cat->c_ndbs - i - 1) * sizeof(cat->c_dbs[0]));
            cat->c_ndbs--;
            break;
        }
    }
    sl__mc_db_free(db);
}

sl__mc_table *sl__mc_table_new(sl__mc_db *db, sl_table_kind kind, const char *name)
{
    sl__mc_table *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->t_kind = kind;
    t->t_db = db;
    sl_block_init(&t->t_tagvals);
    t->t_name = strdup(name);
    if (t->t_name == NULL) {
        free(t);
        return NULL;
    }
    return t;
}

void sl__mc_fields_free(sl_field *f, int n)
{
    if (f == NULL)
        return;
    for (int i = 0; i < n; i++)
        free((char *)f[i].name);
    free(f);
}

void sl__mc_table_free(sl__mc_table *t)
{
    if (t == NULL)
        return;
    sl_block_fini(&t->t_tagvals);
    sl__mc_fields_free(t->t_cols, t->t_ncols);
    sl__mc_fields_free(t->t_tags, t->t_ntags);
    free(t->t_children);
    free(t->t_name);
    free(t);
}

void sl__mc_db_free(sl__mc_db *db)
{
    if (db == NULL)
        return;
    /* Child and normal tables first: a child's schema is its super table's. */
    void **slots = db->d_tables.ns_slots;
    for (uint32_t i = 0; i < db->d_tables.ns_cap; i++) {
        sl__mc_table *t = slots[i];
        if (t != NULL && t->t_kind != SL_TABLE_SUPER) {
            sl__mc_table_free(t);
            slots[i] = NULL;
        }
    }
    for (uint32_t i = 0; i < db->d_tables.ns_cap; i++)
        sl__mc_table_free(slots[i]);
    for (uint32_t i = 0; i < db->d_nvgroups; i++) {
        if (db->d_vgroups[i] != NULL)
            free(db->d_vgroups[i]->vg_tables);
        free(db->d_vgroups[i]);
    }
    free(db->d_vgroups);
    free(db->d_supers);
    free(db->d_vgroup_ids);
    sl_nameset_fini(&db->d_tables);
    free(db->d_name);
    free(db);
}

void sl__mc_table_view(const sl_mcatalog *cat, const sl__mc_table *t, sl_mcatalog_table *out)
{
    memset(out, 0, sizeof(*out));
    out->meta.kind = t->t_kind;
    out->meta.db = t->t_db->d_name;
    out->meta.name = t->t_name;
    out->meta.precision = t->t_db->d_prec;
    out->meta.ncols = sl__mc_ncols(t);
    out->meta.cols = sl__mc_cols(t);
    out->meta.ntags = sl__mc_ntags(t);
    out->meta.tags = sl__mc_tags(t);
    out->composite_key = sl__mc_key(t);
    out->uid = t->t_uid;
    out->create_time = t->t_created;
    if (t->t_super != NULL) {
        out->stable_uid = t->t_super->t_uid;
        out->stable = t->t_super->t_name;
        out->tagvals = &t->t_tagvals;
    }
    if (t->t_vgroup != NULL) {
        out->vgroup_id = t->t_vgroup->vg_id;
        out->vnode_id = t->t_vgroup->vg_vnode;
        const sl__mc_node *n = sl__mc_find_node(cat, t->t_vgroup->vg_vnode);
        out->vnode_addr = n ? n->n_addr : NULL;
        out->vnode_alive = n ? n->n_alive : false;
    }
}

/* ------------------------------------------------------------ lifecycle */

static int64_t system_now_ms(void *ud)
{
    (void)ud;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sl_mcatalog_open(sl_mcatalog **out, const char *dir, const sl_mcatalog_options *opts,
                     sl_error *err)
{
    sl_mcatalog *cat = calloc(1, sizeof(*cat));
    if (cat == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory opening the catalog");
    cat->c_now = opts && opts->now_ms ? opts->now_ms : system_now_ms;
    cat->c_now_ud = opts ? opts->now_ud : NULL;
    cat->c_next_uid = 1;
    cat->c_next_vgroup = 1;
    cat->c_next_node = 1;
    cat->c_next_stream = 1;
    sl_kv_options ko;
    sl_kv_options_init(&ko);
    /* The catalog proper is small and written rarely, but the streams' checkpoints are
     * rewritten all the time: memtables large enough that most superseded checkpoints
     * never reach a table file, LZ4 (compacting them with ZSTD took 40% of the mnode's
     * CPU while streams caught up), and flushes and compactions behind the requests. */
    ko.write_buffer_size = 16u << 20;
    ko.block_cache_size = 8u << 20;
    ko.compression = SL_KV_COMPRESS_LZ4;
    ko.background_low_priority = true;
    ko.sync_default = true;
    size_t ncf = SL__MC_NCF;
    int rc = sl_kv_open(&cat->c_kv, dir, &ko, sl__mc_cf_names, ncf, err);
    if (rc < 0) {
        free(cat);
        return rc;
    }
    cat->c_cf_meta = sl_kv_cf_get(cat->c_kv, "meta");
    cat->c_cf_dbs = sl_kv_cf_get(cat->c_kv, "dbs");
    cat->c_cf_vgroups = sl_kv_cf_get(cat->c_kv, "vgroups");
    cat->c_cf_tables = sl_kv_cf_get(cat->c_kv, "tables");
    cat->c_cf_nodes = sl_kv_cf_get(cat->c_kv, "nodes");
    cat->c_cf_streams = sl_kv_cf_get(cat->c_kv, "streams");
    cat->c_cf_checkpoints = sl_kv_cf_get(cat->c_kv, "checkpoints");
    assert(cat->c_cf_meta && cat->c_cf_dbs && cat->c_cf_vgroups && cat->c_cf_tables &&
           cat->c_cf_nodes && cat->c_cf_streams && cat->c_cf_checkpoints);
    rc = sl__mc_load(cat, err);
    if (rc == 0)
        rc = sl__mc_assign_load(cat, err);
    if (rc == 0)
        rc = sl__mc_holds_load(cat, err);
    if (rc < 0) {
        if (rc == SL_ENOMEM)
            sl_error_set(err, rc, 0, 0, "out of memory loading the catalog '%s'", dir);
        sl_mcatalog_close(cat);
        return rc;
    }
    *out = cat;
    return 0;
}

void sl_mcatalog_close(sl_mcatalog *cat)
{
    if (cat == NULL)
        return;
    for (int i = 0; i < cat->c_ndbs; i++)
        sl__mc_db_free(cat->c_dbs[i]);
    free(cat->c_dbs);
    free(cat->c_vgroups);
    sl__mc_assign_free(cat);
    for (uint32_t i = 0; i < cat->c_nnodes; i++) {
        free(cat->c_nodes[i]->n_addr);
        free(cat->c_nodes[i]);
    }
    free(cat->c_nodes);
    free(cat->c_self.n_addr);
    sl__mc_streams_free(cat);
    sl_kv_close(cat->c_kv);
    free(cat);
}

/* ------------------------------------------------------------ lookups */

static int no_db(sl_error *err, const char *name)
{
    return sl_error_set(err, SL_ENOTFOUND, 0, 0, "database '%s' does not exist", name);
}

int sl_mcatalog_table_get(sl_mcatalog *cat, const char *db, const char *name,
                          sl_mcatalog_table *out, sl_error *err)
{
    sl__mc_db *d = sl__mc_find_db(cat, db);
    if (d == NULL)
        return no_db(err, db);
    sl__mc_table *t = sl__mc_find_table(d, name);
    if (t == NULL)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "table '%s' does not exist in database '%s'",
                            name, d->d_name);
    sl__mc_table_view(cat, t, out);
    return 0;
}

int sl_mcatalog_each_table(sl_mcatalog *cat, const char *db, const char *stable,
                           sl_mcatalog_table_fn fn, void *arg, sl_error *err)
{
    sl__mc_db *d = sl__mc_find_db(cat, db);
    if (d == NULL)
        return no_db(err, db);
    sl_mcatalog_table v;
    if (stable != NULL) {
        sl__mc_table *st = sl__mc_find_table(d, stable);
        if (st == NULL || st->t_kind != SL_TABLE_SUPER)
            return sl_error_set(err, SL_ENOTFOUND, 0, 0, "super table '%s' does not exist", stable);
        for (int i = 0; i < st->t_nchildren; i++) {
            sl__mc_table_view(cat, st->t_children[i], &v);
            int rc = fn(arg, &v);
            if (rc != 0)
                return rc;
        }
        return 0;
    }
    uint32_t pos = 0;
    for (const sl__mc_table *t; (t = sl_nameset_next(&d->d_tables, &pos)) != NULL;) {
        sl__mc_table_view(cat, t, &v);
        int rc = fn(arg, &v);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int sl_mcatalog_each_vgroup_table(sl_mcatalog *cat, uint32_t vgroup_id, sl_mcatalog_table_fn fn,
                                  void *arg, sl_error *err)
{
    sl__mc_vgroup *vg = sl__mc_find_vgroup(cat, vgroup_id);
    if (vg == NULL)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "vgroup %u does not exist", vgroup_id);
    sl_mcatalog_table v;
    for (int64_t i = 0; i < vg->vg_ntables; i++) {
        sl__mc_table_view(cat, vg->vg_tables[i], &v);
        int rc = fn(arg, &v);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int sl_mcatalog_each_stable(sl_mcatalog *cat, const char *db, sl_mcatalog_table_fn fn, void *arg,
                            sl_error *err)
{
    sl__mc_db *d = sl__mc_find_db(cat, db);
    if (d == NULL)
        return no_db(err, db);
    sl_mcatalog_table v;
    for (uint32_t i = 0; i < d->d_nsupers; i++) {
        sl__mc_table_view(cat, d->d_supers[i], &v);
        int rc = fn(arg, &v);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int sl_mcatalog_db_get(sl_mcatalog *cat, const char *name, sl_mcatalog_db *out, sl_error *err)
{
    sl__mc_db *d = sl__mc_find_db(cat, name);
    if (d == NULL)
        return no_db(err, name);
    out->name = d->d_name;
    out->precision = d->d_prec;
    out->create_time = d->d_created;
    out->nvgroups = d->d_nvgroups;
    out->vgroup_ids = d->d_vgroup_ids;
    out->ntables = (int64_t)d->d_tables.ns_count - d->d_nsupers;
    out->nstables = d->d_nsupers;
    return 0;
}

int sl_mcatalog_vgroup_get(sl_mcatalog *cat, uint32_t id, sl_mcatalog_vgroup *out, sl_error *err)
{
    sl__mc_vgroup *vg = sl__mc_find_vgroup(cat, id);
    if (vg == NULL)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "vgroup %u does not exist", id);
    const sl__mc_node *n = sl__mc_find_node(cat, vg->vg_vnode);
    out->id = vg->vg_id;
    out->db = vg->vg_db->d_name;
    out->index = vg->vg_index;
    out->vnode_id = vg->vg_vnode;
    out->vnode_addr = n ? n->n_addr : NULL;
    out->vnode_alive = n ? n->n_alive : false;
    out->ntables = vg->vg_ntables;
    return 0;
}

int sl_mcatalog_each_vgroup(sl_mcatalog *cat, sl_mcatalog_vgroup_fn fn, void *arg)
{
    for (uint32_t i = 0; i < cat->c_nvgroups; i++) {
        sl_mcatalog_vgroup v;
        int rc = sl_mcatalog_vgroup_get(cat, cat->c_vgroups[i]->vg_id, &v, NULL);
        if (rc == 0)
            rc = fn(arg, &v);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------ dumps */

static int cmp_db_ptr(const void *a, const void *b)
{
    const sl__mc_db *x = *(sl__mc_db *const *)a, *y = *(sl__mc_db *const *)b;
    int c = strcasecmp(x->d_name, y->d_name);
    return c ? c : strcmp(x->d_name, y->d_name);
}

static int cmp_table_ptr(const void *a, const void *b)
{
    const sl__mc_table *x = *(sl__mc_table *const *)a, *y = *(sl__mc_table *const *)b;
    int c = strcasecmp(x->t_name, y->t_name);
    return c ? c : strcmp(x->t_name, y->t_name);
}

static int dump_fields(sl_buf *out, const sl_field *f, int n, bool key)
{
    int rc = sl_buf_put(out, "(", 1);
    for (int i = 0; rc == 0 && i < n; i++) {
        char ty[48];
        rc = sl_buf_printf(out, "%s%s %s%s", i ? ", " : "", f[i].name,
                           sl_ddl_type_str(f[i].type, f[i].width, ty, sizeof(ty)),
                           key && i == 1 ? " COMPOSITE KEY" : "");
    }
    return rc ? rc : sl_buf_put(out, ")", 1);
}

static int dump_table(sl_buf *out, const sl__mc_table *t)
{
    static const char *const kinds[] = {"stable", "child", "table"};
    int rc = sl_buf_printf(out, "  %s %s uid=%llu created=%lld", kinds[t->t_kind], t->t_name,
                           (unsigned long long)t->t_uid, (long long)t->t_created);
    if (rc == 0 && t->t_vgroup != NULL)
        rc = sl_buf_printf(out, " vgroup=%u", t->t_vgroup->vg_id);
    if (rc == 0 && t->t_kind == SL_TABLE_CHILD) {
        rc = sl_buf_printf(out, " of %s tags=(", t->t_super->t_name);
        for (uint32_t i = 0; rc == 0 && i < t->t_tagvals.ncols; i++) {
            sl_value v;
            char buf[128];
            sl_column_get(&t->t_tagvals.cols[i], 0, &v);
            if (sl_type_is_var(v.type) && !v.is_null)
                rc = sl_buf_printf(out, "%s'%.*s'", i ? ", " : "", (int)v.v.s.len, v.v.s.ptr);
            else {
                sl_value_format(&v, t->t_db->d_prec, buf, sizeof(buf));
                rc = sl_buf_printf(out, "%s%s", i ? ", " : "", buf);
            }
        }
        if (rc == 0)
            rc = sl_buf_put(out, ")", 1);
    } else if (rc == 0) {
        rc = sl_buf_put(out, " ", 1);
        if (rc == 0)
            rc = dump_fields(out, t->t_cols, t->t_ncols, t->t_key);
        if (rc == 0 && t->t_kind == SL_TABLE_SUPER) {
            rc = sl_buf_printf(out, " tags ");
            if (rc == 0)
                rc = dump_fields(out, t->t_tags, t->t_ntags, false);
        }
    }
    return rc ? rc : sl_buf_put(out, "\n", 1);
}

static int dump_db(sl_buf *out, const sl__mc_db *db)
{
    int rc = sl_buf_printf(out, "db %s precision=%s created=%lld tables=%u stables=%u\n",
                           db->d_name, sl_precision_name(db->d_prec), (long long)db->d_created,
                           db->d_tables.ns_count - db->d_nsupers, db->d_nsupers);
    for (uint32_t i = 0; rc == 0 && i < db->d_nvgroups; i++) {
        const sl__mc_vgroup *vg = db->d_vgroups[i];
        rc = sl_buf_printf(out, "  vgroup %u index=%u vnode=%u tables=%lld\n", vg->vg_id,
                           vg->vg_index, vg->vg_vnode, (long long)vg->vg_ntables);
    }
    if (rc != 0)
        return rc;
    sl__mc_table **v =
        malloc((size_t)(db->d_tables.ns_count ? db->d_tables.ns_count : 1) * sizeof(*v));
    if (v == NULL)
        return SL_ENOMEM;
    uint32_t n = 0;
    uint32_t pos = 0;
    for (sl__mc_table *t; (t = sl_nameset_next(&db->d_tables, &pos)) != NULL;)
        v[n++] = t;
    qsort(v, n, sizeof(*v), cmp_table_ptr);
    for (uint32_t i = 0; rc == 0 && i < n; i++)
        rc = dump_table(out, v[i]);
    free(v);
    return rc;
}

int sl_mcatalog_dump(sl_mcatalog *cat, sl_buf *out)
{
    int rc =
        sl_buf_printf(out, "counters uid=%llu vgroup=%u node=%u epoch=%llu\n",
                      (unsigned long long)cat->c_next_uid, cat->c_next_vgroup, cat->c_next_node,
                      (unsigned long long)cat->c_epoch);
    for (uint32_t i = 0; rc == 0 && i < cat->c_nnodes; i++) {
        const sl__mc_node *n = cat->c_nodes[i];
        rc =
            sl_buf_printf(out, "node %u %s %s %s last_seen=%lld created=%lld vgroups=%u\n", n->n_id,
                          sl_mc_node_kind_name(n->n_kind), n->n_addr,
                          n->n_dropped ? "dropped" : n->n_alive ? "alive" : "dead",
                          (long long)n->n_last_seen, (long long)n->n_created, n->n_nvgroups);
    }
    if (rc != 0)
        return rc;
    sl__mc_db **v = malloc((size_t)(cat->c_ndbs ? cat->c_ndbs : 1) * sizeof(*v));
    if (v == NULL)
        return SL_ENOMEM;
    if (cat->c_ndbs > 0) {
        memcpy(v, cat->c_dbs, (size_t)cat->c_ndbs * sizeof(*v));
        qsort(v, (size_t)cat->c_ndbs, sizeof(*v), cmp_db_ptr);
    }
    for (int i = 0; rc == 0 && i < cat->c_ndbs; i++)
        rc = dump_db(out, v[i]);
    free(v);
    return rc ? rc : sl__mc_streams_dump(cat, out);
}
