/*
 * catalog_store.c - the mnode catalog's records: keys, value encodings, loading them back
 * at open, and the raw dump (catalog_int.h lists the layout).
 *
 * Values are versioned (first byte SL__MC_FORMAT) and use the little-endian fixed-width
 * and LEB128 varint encodings of common/util/buf.h; keys use the order-preserving
 * encodings of common/kv/keycodec.h, with names lower-cased so that lookups by any
 * spelling find the record. Loading rebuilds the registry of catalog.c and checks that
 * the records agree: a database's vgroups all exist and point back at it, every vgroup's
 * vnode is a registered node, every child table's super table exists in its database and
 * its tag block matches the super table's tags. Anything else is SL_ECORRUPT.
 */
#include "catalog_int.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/kv/keycodec.h"

const char *const sl__mc_cf_names[SL__MC_NCF] = {"meta",  "dbs",     "vgroups",    "tables",
                                                     "nodes", "streams", "checkpoints"};

/* ------------------------------------------------------------ records */

int sl__mc_key_db(sl_buf *k, const char *db)
{
    sl_buf low;
    sl_buf_init(&low);
    int rc = sl__mc_put_lower(&low, db);
    if (rc == 0)
        rc = sl_key_put_str(k, low.data, low.len);
    sl_buf_fini(&low);
    return rc;
}

int sl__mc_key_table(sl_buf *k, const char *db, const char *table)
{
    int rc = sl__mc_key_db(k, db);
    return rc ? rc : sl__mc_key_db(k, table);
}

int sl__mc_key_id(sl_buf *k, uint32_t id)
{
    return sl_key_put_u32(k, id);
}

int sl__mc_put_str(sl_buf *v, const char *s)
{
    size_t n = strlen(s);
    int rc = sl_buf_put_varu(v, n);
    return rc ? rc : sl_buf_put(v, s, n);
}

/* The type byte of the second column of a table record carries the COMPOSITE KEY flag in
 * its high bit (types stay below it), so records written before composite keys read back
 * unchanged. */
#define FIELD_KEY_BIT 0x80u

/* Writes n fields; key: the second one is the table's COMPOSITE KEY. */
static int put_fields(sl_buf *v, const sl_field *f, int n, bool key)
{
    int rc = sl_buf_put_varu(v, (uint64_t)n);
    for (int i = 0; rc == 0 && i < n; i++) {
        rc = sl__mc_put_str(v, f[i].name);
        if (rc == 0)
            rc = sl_buf_put_u8(v, (uint8_t)((unsigned)f[i].type |
                                            (key && i == 1 ? FIELD_KEY_BIT : 0u)));
        if (rc == 0)
            rc = sl_buf_put_varu(v, f[i].width);
    }
    return rc;
}

int sl__mc_enc_counters(sl_buf *v, uint64_t next_uid, uint32_t next_vgroup, uint32_t next_node)
{
    int rc = sl_buf_put_u8(v, SL__MC_FORMAT);
    if (rc == 0)
        rc = sl_buf_put_u64(v, next_uid);
    if (rc == 0)
        rc = sl_buf_put_u32(v, next_vgroup);
    if (rc == 0)
        rc = sl_buf_put_u32(v, next_node);
    return rc;
}

int sl__mc_enc_db(sl_buf *v, const sl__mc_db *db)
{
    int rc = sl_buf_put_u8(v, SL__MC_FORMAT);
    if (rc == 0)
        rc = sl__mc_put_str(v, db->d_name);
    if (rc == 0)
        rc = sl_buf_put_u8(v, (uint8_t)db->d_prec);
    if (rc == 0)
        rc = sl_buf_put_vari(v, db->d_created);
    if (rc == 0)
        rc = sl_buf_put_varu(v, db->d_nvgroups);
    for (uint32_t i = 0; rc == 0 && i < db->d_nvgroups; i++)
        rc = sl_buf_put_u32(v, db->d_vgroup_ids[i]);
    return rc;
}

int sl__mc_enc_vgroup(sl_buf *v, const sl__mc_vgroup *vg)
{
    int rc = sl_buf_put_u8(v, SL__MC_FORMAT);
    if (rc == 0)
        rc = sl__mc_put_str(v, vg->vg_db->d_name);
    if (rc == 0)
        rc = sl_buf_put_varu(v, vg->vg_index);
    if (rc == 0)
        rc = sl_buf_put_u32(v, vg->vg_vnode);
    return rc;
}

int sl__mc_enc_table(sl_buf *v, const sl__mc_table *t)
{
    int rc = sl_buf_put_u8(v, SL__MC_FORMAT);
    if (rc == 0)
        rc = sl_buf_put_u8(v, (uint8_t)t->t_kind);
    if (rc == 0)
        rc = sl__mc_put_str(v, t->t_name);
    if (rc == 0)
        rc = sl_buf_put_u64(v, t->t_uid);
    if (rc == 0)
        rc = sl_buf_put_vari(v, t->t_created);
    if (rc != 0)
        return rc;
    switch (t->t_kind) {
    case SL_TABLE_SUPER:
        rc = put_fields(v, t->t_cols, t->t_ncols, t->t_key);
        return rc ? rc : put_fields(v, t->t_tags, t->t_ntags, false);
    case SL_TABLE_NORMAL:
        rc = sl_buf_put_u32(v, t->t_vgroup->vg_id);
        return rc ? rc : put_fields(v, t->t_cols, t->t_ncols, t->t_key);
    case SL_TABLE_CHILD: {
        rc = sl_buf_put_u32(v, t->t_vgroup->vg_id);
        if (rc == 0)
            rc = sl_buf_put_u64(v, t->t_super->t_uid);
        if (rc != 0)
            return rc;
        sl_buf blk;
        sl_buf_init(&blk);
        rc = sl_block_encode(&t->t_tagvals, &blk);
        if (rc == 0)
            rc = sl_buf_put_varu(v, blk.len);
        if (rc == 0)
            rc = sl_buf_put(v, blk.data, blk.len);
        sl_buf_fini(&blk);
        return rc;
    }
    }
    return SL_EINVAL;
}

int sl__mc_enc_node(sl_buf *v, const sl__mc_node *n)
{
    int rc = sl_buf_put_u8(v, SL__MC_FORMAT);
    if (rc == 0)
        rc = sl_buf_put_u8(v, (uint8_t)n->n_kind);
    if (rc == 0)
        rc = sl__mc_put_str(v, n->n_addr);
    if (rc == 0)
        rc = sl_buf_put_u8(v, n->n_dropped ? 2 : n->n_alive ? 1 : 0); /* 2: dropped */
    if (rc == 0)
        rc = sl_buf_put_vari(v, n->n_last_seen);
    if (rc == 0)
        rc = sl_buf_put_vari(v, n->n_created);
    return rc;
}

int sl__mc_batch_counters(sl_mcatalog *cat, sl_kv_batch *b, uint64_t next_uid, uint32_t next_vgroup,
                          uint32_t next_node)
{
    sl_buf v;
    sl_buf_init(&v);
    int rc = sl__mc_enc_counters(&v, next_uid, next_vgroup, next_node);
    if (rc == 0)
        rc = sl_kv_batch_put(b, cat->c_cf_meta, SL__MC_COUNTERS_KEY,
                             sizeof(SL__MC_COUNTERS_KEY) - 1, v.data, v.len);
    sl_buf_fini(&v);
    return rc;
}

/* ------------------------------------------------------------ decoding */

int sl__mc_get_str(sl_reader *r, char **out)
{
    uint64_t n;
    if (sl_reader_varu(r, &n) < 0 || n > sl_reader_left(r))
        return SL_ECORRUPT;
    const uint8_t *p = sl_reader_take(r, (size_t)n);
    char *s = malloc((size_t)n + 1);
    if (s == NULL)
        return SL_ENOMEM;
    memcpy(s, p, (size_t)n);
    s[n] = '\0';
    if (strlen(s) != n) {
        free(s);
        return SL_ECORRUPT;
    }
    *out = s;
    return 0;
}

static int get_version(sl_reader *r)
{
    uint8_t v;
    if (sl_reader_u8(r, &v) < 0 || v != SL__MC_FORMAT)
        return SL_ECORRUPT;
    return 0;
}

/* Reads fields; *key (NULL: none may carry it) gets the COMPOSITE KEY flag of the second. */
static int get_fields(sl_reader *r, int max, sl_field **out, int *nout, bool *keyp)
{
    uint64_t n;
    if (sl_reader_varu(r, &n) < 0 || n < 1 || n > (uint64_t)max)
        return SL_ECORRUPT;
    sl_field *f = calloc((size_t)n, sizeof(*f));
    if (f == NULL)
        return SL_ENOMEM;
    int rc = 0;
    uint64_t i;
    for (i = 0; i < n; i++) {
        uint8_t ty = SL_T_NULL;
        uint64_t w;
        char *name = NULL;
        if ((rc = sl__mc_get_str(r, &name)) < 0)
            break;
        f[i].name = name;
        bool key = false;
        if (sl_reader_u8(r, &ty) == 0) {
            key = (ty & FIELD_KEY_BIT) != 0;
            ty = (uint8_t)(ty & ~FIELD_KEY_BIT);
        }
        if (ty == SL_T_NULL || ty >= SL_T__COUNT || (key && (i != 1 || keyp == NULL)) ||
            sl_reader_varu(r, &w) < 0 || w > SL_VARCHAR_MAX) {
            rc = SL_ECORRUPT;
            i++;
            break;
        }
        if (key)
            *keyp = true;
        f[i].type = (sl_type)ty;
        f[i].width = (uint32_t)w;
    }
    if (rc < 0) {
        sl__mc_fields_free(f, (int)i);
        return rc;
    }
    *out = f;
    *nout = (int)n;
    return 0;
}

static int corrupt(sl_error *err, const sl_mcatalog *cat, const char *what)
{
    return sl_error_set(err, SL_ECORRUPT, 0, 0, "catalog '%s': %s", sl_kv_path(cat->c_kv), what);
}

/* Iterates every record of cf, calling fn with key and value. */
typedef int (*record_fn)(sl_mcatalog *cat, const void *k, size_t kn, const void *v, size_t vn,
                         void *arg, sl_error *err);

static int each_record(sl_mcatalog *cat, sl_kv_cf *cf, record_fn fn, void *arg, sl_error *err)
{
    sl_kv_iter *it = NULL;
    sl_kv_iter_options o = {.no_fill_cache = true};
    int rc = sl_kv_iter_open(&it, cat->c_kv, cf, &o, err);
    if (rc < 0)
        return rc;
    for (sl_kv_iter_first(it); rc == 0 && sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        size_t kn, vn;
        const void *k = sl_kv_iter_key(it, &kn);
        const void *v = sl_kv_iter_value(it, &vn);
        rc = fn(cat, k, kn, v, vn, arg, err);
    }
    if (rc == 0)
        rc = sl_kv_iter_status(it, err);
    sl_kv_iter_close(it);
    return rc;
}

static int load_node(sl_mcatalog *cat, const void *k, size_t kn, const void *v, size_t vn,
                     void *arg, sl_error *err)
{
    (void)arg;
    if (kn != SL_KEY_U32_LEN)
        return corrupt(err, cat, "bad node key");
    sl__mc_node *n = calloc(1, sizeof(*n));
    if (n == NULL)
        return SL_ENOMEM;
    n->n_id = sl_key_dec_u32(k);
    sl_reader r;
    sl_reader_init(&r, v, vn);
    uint8_t kind, alive;
    int rc = get_version(&r);
    if (rc == 0 && (sl_reader_u8(&r, &kind) < 0 || kind < SL_MC_VNODE || kind > SL_MC_MNODE))
        rc = SL_ECORRUPT;
    if (rc == 0)
        rc = sl__mc_get_str(&r, &n->n_addr);
    if (rc == 0 && (sl_reader_u8(&r, &alive) < 0 || sl_reader_vari(&r, &n->n_last_seen) < 0 ||
                    sl_reader_vari(&r, &n->n_created) < 0))
        rc = SL_ECORRUPT;
    if (rc == 0 && n->n_id <= (cat->c_nnodes ? cat->c_nodes[cat->c_nnodes - 1]->n_id : 0))
        rc = SL_ECORRUPT;
    if (rc == 0 && cat->c_nnodes == cat->c_capnodes) {
        uint32_t cap = cat->c_capnodes ? cat->c_capnodes * 2 : 8;
        sl__mc_node **p = realloc(cat->c_nodes, cap * sizeof(*p));
        if (p == NULL)
            rc = SL_ENOMEM;
        else {
            cat->c_nodes = p;
            cat->c_capnodes = cap;
        }
    }
    if (rc < 0) {
        free(n->n_addr);
        free(n);
        return rc == SL_ECORRUPT ? corrupt(err, cat, "bad node record") : rc;
    }
    n->n_kind = (sl_mc_node_kind)kind;
    if (alive > 2) {
        free(n->n_addr);
        free(n);
        return corrupt(err, cat, "bad node record");
    }
    n->n_alive = alive == 1;
    n->n_dropped = alive == 2;
    cat->c_nodes[cat->c_nnodes++] = n;
    if (n->n_id >= cat->c_next_node)
        cat->c_next_node = n->n_id + 1;
    return 0;
}

static int load_db(sl_mcatalog *cat, const void *k, size_t kn, const void *v, size_t vn, void *arg,
                   sl_error *err)
{
    (void)k;
    (void)kn;
    (void)arg;
    sl__mc_db *db = calloc(1, sizeof(*db));
    if (db == NULL)
        return SL_ENOMEM;
    sl__mc_init_tables(db);
    sl_reader r;
    sl_reader_init(&r, v, vn);
    uint8_t prec;
    uint64_t nvg = 0;
    int rc = get_version(&r);
    if (rc == 0)
        rc = sl__mc_get_str(&r, &db->d_name);
    if (rc == 0 && (sl_reader_u8(&r, &prec) < 0 || prec > SL_PREC_NS ||
                    sl_reader_vari(&r, &db->d_created) < 0 || sl_reader_varu(&r, &nvg) < 0 ||
                    nvg < 1 || nvg > SL_DDL_VGROUPS_MAX || sl_reader_left(&r) != nvg * 4))
        rc = SL_ECORRUPT;
    if (rc == 0) {
        db->d_prec = (sl_precision)prec;
        db->d_vgroups = calloc((size_t)nvg, sizeof(*db->d_vgroups));
        db->d_vgroup_ids = calloc((size_t)nvg, sizeof(*db->d_vgroup_ids));
        if (db->d_vgroups == NULL || db->d_vgroup_ids == NULL)
            rc = SL_ENOMEM;
        else
            db->d_nvgroups = (uint32_t)nvg;
    }
    for (uint64_t i = 0; rc == 0 && i < nvg; i++)
        rc = sl_reader_u32(&r, &db->d_vgroup_ids[i]);
    if (rc == 0 && sl__mc_find_db(cat, db->d_name) != NULL)
        rc = SL_ECORRUPT;
    if (rc == 0)
        rc = sl__mc_reserve_dbs(cat, 1);
    if (rc < 0) {
        sl__mc_db_free(db);
        return rc == SL_ECORRUPT ? corrupt(err, cat, "bad database record") : rc;
    }
    sl__mc_link_db(cat, db);
    return 0;
}

static int load_vgroup(sl_mcatalog *cat, const void *k, size_t kn, const void *v, size_t vn,
                       void *arg, sl_error *err)
{
    (void)arg;
    if (kn != SL_KEY_U32_LEN)
        return corrupt(err, cat, "bad vgroup key");
    uint32_t id = sl_key_dec_u32(k);
    sl_reader r;
    sl_reader_init(&r, v, vn);
    char *dbname = NULL;
    uint64_t index;
    uint32_t vnode;
    int rc = get_version(&r);
    if (rc == 0)
        rc = sl__mc_get_str(&r, &dbname);
    if (rc == 0 && (sl_reader_varu(&r, &index) < 0 || sl_reader_u32(&r, &vnode) < 0))
        rc = SL_ECORRUPT;
    sl__mc_db *db = rc == 0 ? sl__mc_find_db(cat, dbname) : NULL;
    free(dbname);
    if (rc == 0 && (db == NULL || index >= db->d_nvgroups || db->d_vgroup_ids[index] != id ||
                    db->d_vgroups[index] != NULL || sl__mc_find_node(cat, vnode) == NULL))
        rc = SL_ECORRUPT;
    if (rc < 0)
        return rc == SL_ECORRUPT ? corrupt(err, cat, "bad vgroup record") : rc;
    sl__mc_vgroup *vg = calloc(1, sizeof(*vg));
    if (vg == NULL || sl__mc_reserve_vgroups(cat, 1) < 0) {
        free(vg);
        return SL_ENOMEM;
    }
    vg->vg_id = id;
    vg->vg_db = db;
    vg->vg_index = (uint32_t)index;
    vg->vg_vnode = vnode;
    sl__mc_link_vgroup(cat, vg);
    if (id >= cat->c_next_vgroup)
        cat->c_next_vgroup = id + 1;
    return 0;
}

/* Child tables read before their super table is known, linked after the scan. */
typedef struct pending_child {
    sl__mc_table *t;
    uint64_t super_uid;
} pending_child;

typedef struct table_load {
    pending_child *kids;
    size_t nkids, capkids;
    sl__mc_table **supers; /* every super table, sorted by uid after the scan */
    size_t nsupers, capsupers;
} table_load;

static int push(void **arr, size_t *n, size_t *cap, size_t elem, const void *item)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        void *p = realloc(*arr, c * elem);
        if (p == NULL)
            return SL_ENOMEM;
        *arr = p;
        *cap = c;
    }
    memcpy((char *)*arr + *n * elem, item, elem);
    (*n)++;
    return 0;
}

/* Decodes a table record into an unlinked table of db. */
static int decode_table(sl_mcatalog *cat, sl__mc_db *db, const void *v, size_t vn,
                        sl__mc_table **out, uint64_t *super_uid)
{
    sl_reader r;
    sl_reader_init(&r, v, vn);
    uint8_t kind;
    char *name = NULL;
    int rc = get_version(&r);
    if (rc == 0 && (sl_reader_u8(&r, &kind) < 0 || kind > SL_TABLE_NORMAL))
        rc = SL_ECORRUPT;
    if (rc == 0)
        rc = sl__mc_get_str(&r, &name);
    if (rc < 0)
        return rc;
    sl__mc_table *t = sl__mc_table_new(db, (sl_table_kind)kind, name);
    free(name);
    if (t == NULL)
        return SL_ENOMEM;
    if (sl_reader_u64(&r, &t->t_uid) < 0 || sl_reader_vari(&r, &t->t_created) < 0)
        rc = SL_ECORRUPT;
    uint32_t vgid = 0;
    if (rc == 0 && kind != SL_TABLE_SUPER) {
        if (sl_reader_u32(&r, &vgid) < 0)
            rc = SL_ECORRUPT;
        else if ((t->t_vgroup = sl__mc_find_vgroup(cat, vgid)) == NULL || t->t_vgroup->vg_db != db)
            rc = SL_ECORRUPT;
    }
    if (rc == 0 && kind != SL_TABLE_CHILD)
        rc = get_fields(&r, SL_MAX_COLUMNS, &t->t_cols, &t->t_ncols, &t->t_key);
    if (rc == 0 && kind == SL_TABLE_SUPER)
        rc = get_fields(&r, SL_MAX_TAGS, &t->t_tags, &t->t_ntags, NULL);
    if (rc == 0 && kind == SL_TABLE_CHILD) {
        uint64_t blen;
        if (sl_reader_u64(&r, super_uid) < 0 || sl_reader_varu(&r, &blen) < 0 ||
            blen != sl_reader_left(&r))
            rc = SL_ECORRUPT;
        else if (sl_block_decode(r.p, (size_t)blen, &t->t_tagvals, NULL) < 0 ||
                 t->t_tagvals.nrows != 1)
            rc = SL_ECORRUPT;
        else
            r.p += blen;
    }
    if (rc == 0 && sl_reader_left(&r) != 0)
        rc = SL_ECORRUPT;
    if (rc == 0 && t->t_uid >= cat->c_next_uid)
        cat->c_next_uid = t->t_uid + 1;
    if (rc < 0) {
        sl__mc_table_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

static int load_table(sl_mcatalog *cat, const void *k, size_t kn, const void *v, size_t vn,
                      void *arg, sl_error *err)
{
    table_load *tl = arg;
    sl_reader r;
    sl_reader_init(&r, k, kn);
    sl_buf dbname;
    sl_buf_init(&dbname);
    int rc = sl_key_get_str(&r, &dbname);
    if (rc == 0)
        rc = sl_buf_put_u8(&dbname, 0);
    sl__mc_db *db = rc == 0 ? sl__mc_find_db(cat, (const char *)dbname.data) : NULL;
    sl_buf_fini(&dbname);
    if (rc == SL_ENOMEM)
        return rc;
    if (db == NULL)
        return corrupt(err, cat, "a table record names no known database");
    sl__mc_table *t = NULL;
    uint64_t super_uid = 0;
    rc = decode_table(cat, db, v, vn, &t, &super_uid);
    if (rc < 0)
        return rc == SL_ECORRUPT ? corrupt(err, cat, "bad table record") : rc;
    if (sl__mc_find_table(db, t->t_name) != NULL) {
        sl__mc_table_free(t);
        return corrupt(err, cat, "a table is stored twice");
    }
    if (t->t_kind == SL_TABLE_CHILD) {
        pending_child pc = {t, super_uid};
        rc = push((void **)&tl->kids, &tl->nkids, &tl->capkids, sizeof(pc), &pc);
    } else {
        rc = sl__mc_reserve_tables(db, 1);
        if (rc == 0)
            rc = sl__mc_reserve_index(t, 1);
        if (rc == 0 && t->t_kind == SL_TABLE_SUPER)
            rc = push((void **)&tl->supers, &tl->nsupers, &tl->capsupers, sizeof(t), &t);
        if (rc == 0)
            sl__mc_link_table(t);
    }
    if (rc < 0)
        sl__mc_table_free(t);
    return rc;
}

static int cmp_super_uid(const void *a, const void *b)
{
    uint64_t x = (*(sl__mc_table *const *)a)->t_uid, y = (*(sl__mc_table *const *)b)->t_uid;
    return x < y ? -1 : x > y;
}

/* Links the children read by load_table to their super tables. */
static int link_children(sl_mcatalog *cat, table_load *tl, sl_error *err)
{
    if (tl->nsupers > 0)
        qsort(tl->supers, tl->nsupers, sizeof(*tl->supers), cmp_super_uid);
    size_t i;
    for (i = 0; i < tl->nkids; i++) {
        sl__mc_table *t = tl->kids[i].t;
        size_t lo = 0, hi = tl->nsupers;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (tl->supers[mid]->t_uid < tl->kids[i].super_uid)
                lo = mid + 1;
            else
                hi = mid;
        }
        sl__mc_table *st = lo < tl->nsupers && tl->supers[lo]->t_uid == tl->kids[i].super_uid
                               ? tl->supers[lo]
                               : NULL;
        if (st == NULL || st->t_db != t->t_db || t->t_tagvals.ncols != (uint32_t)st->t_ntags)
            break;
        bool types_ok = true;
        for (int k = 0; k < st->t_ntags; k++)
            types_ok = types_ok && t->t_tagvals.cols[k].type == st->t_tags[k].type;
        if (!types_ok)
            break;
        if (sl__mc_reserve_tables(t->t_db, 1) < 0 || sl__mc_reserve_index(t, 1) < 0 ||
            sl__mc_reserve_children(st, 1) < 0) {
            for (size_t j = i; j < tl->nkids; j++)
                sl__mc_table_free(tl->kids[j].t);
            return SL_ENOMEM;
        }
        t->t_super = st;
        sl__mc_link_table(t);
    }
    if (i == tl->nkids)
        return 0;
    for (size_t j = i; j < tl->nkids; j++)
        sl__mc_table_free(tl->kids[j].t);
    return corrupt(err, cat, "a child table record does not match its super table");
}

static int load_counters(sl_mcatalog *cat, sl_error *err)
{
    sl_buf v;
    sl_buf_init(&v);
    int rc = sl_kv_get(cat->c_kv, cat->c_cf_meta, NULL, SL__MC_COUNTERS_KEY,
                       sizeof(SL__MC_COUNTERS_KEY) - 1, &v, err);
    if (rc == SL_ENOTFOUND) {
        sl_buf_fini(&v);
        return 0;
    }
    if (rc == 0) {
        sl_reader r;
        sl_reader_init(&r, v.data, v.len);
        uint64_t uid;
        uint32_t vg, node;
        if (get_version(&r) < 0 || sl_reader_u64(&r, &uid) < 0 || sl_reader_u32(&r, &vg) < 0 ||
            sl_reader_u32(&r, &node) < 0 || uid == 0 || vg == 0 || node == 0)
            rc = corrupt(err, cat, "bad counters record");
        else {
            cat->c_next_uid = uid;
            cat->c_next_vgroup = vg;
            cat->c_next_node = node;
        }
    }
    sl_buf_fini(&v);
    return rc;
}

int sl__mc_load(sl_mcatalog *cat, sl_error *err)
{
    int rc = load_counters(cat, err);
    if (rc == 0)
        rc = each_record(cat, cat->c_cf_nodes, load_node, NULL, err);
    if (rc == 0)
        rc = each_record(cat, cat->c_cf_dbs, load_db, NULL, err);
    if (rc == 0)
        rc = each_record(cat, cat->c_cf_vgroups, load_vgroup, NULL, err);
    for (int i = 0; rc == 0 && i < cat->c_ndbs; i++)
        for (uint32_t k = 0; rc == 0 && k < cat->c_dbs[i]->d_nvgroups; k++)
            if (cat->c_dbs[i]->d_vgroups[k] == NULL)
                rc = corrupt(err, cat, "a database lacks one of its vgroups");
    if (rc != 0)
        return rc;
    table_load tl = {0};
    rc = each_record(cat, cat->c_cf_tables, load_table, &tl, err);
    if (rc == 0)
        rc = link_children(cat, &tl, err);
    else
        for (size_t j = 0; j < tl.nkids; j++)
            sl__mc_table_free(tl.kids[j].t);
    free(tl.kids);
    free(tl.supers);
    if (rc == 0)
        rc = sl__mc_streams_load(cat, err);
    return rc;
}

/* ------------------------------------------------------------ raw dump */

static int put_hex(sl_buf *out, const void *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    int rc = sl_buf_reserve(out, 2 * n);
    if (rc < 0)
        return rc;
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        out->data[out->len++] = (uint8_t)hex[b[i] >> 4];
        out->data[out->len++] = (uint8_t)hex[b[i] & 15];
    }
    return 0;
}

typedef struct stored_dump {
    sl_buf *out;
    const char *cf;
} stored_dump;

static int dump_record(sl_mcatalog *cat, const void *k, size_t kn, const void *v, size_t vn,
                       void *arg, sl_error *err)
{
    (void)cat;
    (void)err;
    stored_dump *d = arg;
    int rc = sl_buf_printf(d->out, "%s ", d->cf);
    if (rc == 0)
        rc = put_hex(d->out, k, kn);
    if (rc == 0)
        rc = sl_buf_put(d->out, " ", 1);
    if (rc == 0)
        rc = put_hex(d->out, v, vn);
    return rc ? rc : sl_buf_put(d->out, "\n", 1);
}

int sl_mcatalog_dump_stored(sl_mcatalog *cat, sl_buf *out, sl_error *err)
{
    sl_kv_cf *cfs[] = {cat->c_cf_meta,  cat->c_cf_dbs,     cat->c_cf_vgroups,      cat->c_cf_tables,
                       cat->c_cf_nodes, cat->c_cf_streams, cat->c_cf_checkpoints};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof(cfs) / sizeof(cfs[0]); i++) {
        stored_dump d = {out, sl__mc_cf_names[i]};
        rc = each_record(cat, cfs[i], dump_record, &d, err);
    }
    return rc;
}
