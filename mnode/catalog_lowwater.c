/*
 * catalog_lowwater.c - the change-log low-water marks that stream checkpoints hold
 * (catalog.h, "Change-log retention"; DESIGN.md section 3, "Checkpoints").
 *
 * Vnodes keep change-log entries until every stream reading them has checkpointed past
 * them. A checkpoint of (stream, slot) names, per vgroup of its trigger table's database,
 * the version it has consumed up to; the mnode answers each vnode heartbeat with, per
 * vgroup, the minimum of those versions over every stream reading it and every slot.
 *
 * Heartbeats come every second from every vnode, so the answer must not decode stored
 * checkpoints. Each stream keeps a *hold*: one column per vgroup that some checkpoint of it
 * named, with the version of every slot (and whether the slot has one) and the minimum over
 * the slots, kept incrementally: a put that lowers a slot below the minimum updates it at
 * once, one that raises or removes the slot holding the minimum only marks the column
 * stale, and the next answer recomputes it in O(slots). A vgroup with no column, or a
 * column some slot lacks, is held at 0. The holds live in the stream object, so DROP
 * STREAM and DROP DATABASE (which free the stream, its checkpoints being range-deleted in
 * the same batch) release them with no extra step; stopped streams keep them.
 *
 * Records a put cannot fail after its checkpoint is written: sl__mc_hold_prepare validates
 * and allocates first, sl__mc_hold_apply only stores. At open the versions of every stored
 * checkpoint are read back (the state bytes are not decoded).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_int.h"
#include "common/kv/keycodec.h"

/* One vgroup's versions over the slots of a stream. */
typedef struct hold_col {
    uint32_t c_vgroup;
    uint32_t c_nhave; /* slots with a version for it */
    bool c_stale;     /* c_min must be recomputed */
    uint64_t c_min;   /* minimum over the slots that have one (UINT64_MAX: none); valid
                       * unless c_stale */
    uint64_t *c_ver;  /* owned, h_nslots: each slot's version */
    uint8_t *c_have;  /* owned, h_nslots: whether the slot's checkpoint names one */
} hold_col;

struct sl__mc_hold {
    uint32_t h_nslots;
    hold_col *h_cols; /* owned, in no particular order (a database's vgroups: few) */
    size_t h_ncols;
    size_t h_capcols;
};

void sl__mc_hold_free(sl__mc_hold *h)
{
    if (h == NULL)
        return;
    for (size_t i = 0; i < h->h_ncols; i++) {
        free(h->h_cols[i].c_ver);
        free(h->h_cols[i].c_have);
    }
    free(h->h_cols);
    free(h);
}

static hold_col *find_col(const sl__mc_hold *h, uint32_t vgroup)
{
    for (size_t i = 0; h != NULL && i < h->h_ncols; i++)
        if (h->h_cols[i].c_vgroup == vgroup)
            return &h->h_cols[i];
    return NULL;
}

/* Adds an empty column for vgroup (an empty column holds at 0, like a missing one). */
static int add_col(sl__mc_hold *h, uint32_t vgroup)
{
    if (h->h_ncols == h->h_capcols) {
        size_t cap = h->h_capcols ? h->h_capcols * 2 : 4;
        hold_col *p = realloc(h->h_cols, cap * sizeof(*p));
        if (p == NULL)
            return SL_ENOMEM;
        h->h_cols = p;
        h->h_capcols = cap;
    }
    hold_col *c = &h->h_cols[h->h_ncols];
    memset(c, 0, sizeof(*c));
    c->c_vgroup = vgroup;
    c->c_min = UINT64_MAX;
    c->c_ver = calloc(h->h_nslots, sizeof(*c->c_ver));
    c->c_have = calloc(h->h_nslots, sizeof(*c->c_have));
    if (c->c_ver == NULL || c->c_have == NULL) {
        free(c->c_ver);
        free(c->c_have);
        return SL_ENOMEM;
    }
    h->h_ncols++;
    return 0;
}

/* ------------------------------------------------------------ streams */

sl__mc_stream *sl__mc_find_stream_id(const sl_mcatalog *cat, uint64_t id)
{
    for (int i = 0; i < cat->c_nstreams; i++)
        if (cat->c_streams[i]->s_id == id)
            return cat->c_streams[i];
    return NULL;
}

int sl__mc_stream_resolve_tdb(sl_mcatalog *cat, sl__mc_stream *s)
{
    /* CREATE STREAM stored the FROM table as "t" (in the stream's database) or "db.t".
     * Backquoted names may hold dots, so "a.b" is read as a table of the stream's database
     * when it has one by that name, else as db.t at the first dot naming a database. */
    const char *t = s->s_trigger;
    free(s->s_tdb);
    s->s_tdb = NULL;
    if (t == NULL || t[0] == '\0')
        return 0; /* no FROM: reads nothing */
    const char *db = s->s_db;
    size_t dblen = strlen(db);
    const sl__mc_db *own = sl__mc_find_db(cat, s->s_db);
    if (strchr(t, '.') != NULL && (own == NULL || sl__mc_find_table(own, t) == NULL)) {
        const char *first = strchr(t, '.');
        db = t;
        dblen = (size_t)(first - t);
        for (const char *p = first; p != NULL; p = strchr(p + 1, '.')) {
            char name[SL_NAME_MAX + 1];
            size_t n = (size_t)(p - t);
            if (n > SL_NAME_MAX)
                break;
            memcpy(name, t, n);
            name[n] = '\0';
            if (sl__mc_find_db(cat, name) != NULL) {
                dblen = n;
                break;
            }
        }
    }
    s->s_tdb = malloc(dblen + 1);
    if (s->s_tdb == NULL)
        return SL_ENOMEM;
    memcpy(s->s_tdb, db, dblen);
    s->s_tdb[dblen] = '\0';
    return 0;
}

/* Whether stream s reads vgroup vg. */
static bool reads(const sl__mc_stream *s, const sl__mc_vgroup *vg)
{
    return s->s_tdb != NULL && vg != NULL && sl_ddl_name_eq(s->s_tdb, vg->vg_db->d_name);
}

/* ------------------------------------------------------------ recording */

static int cmp_vgroup(const void *a, const void *b)
{
    uint32_t x = ((const sl_mcatalog_vgroup_version *)a)->vgroup_id;
    uint32_t y = ((const sl_mcatalog_vgroup_version *)b)->vgroup_id;
    return x < y ? -1 : x > y;
}

int sl__mc_hold_prepare(sl_mcatalog *cat, sl__mc_stream *s, const sl_mcatalog_vgroup_version *v,
                        size_t n, sl_mcatalog_vgroup_version **kept, size_t *nkept, sl_error *err)
{
    *kept = NULL;
    *nkept = 0;
    if (n == 0)
        return 0;
    if (n > SL_MCATALOG_CHECKPOINT_VERSIONS_MAX)
        return sl_error_set(err, SL_ELIMIT, 0, 0, "a checkpoint names at most %u versions",
                            SL_MCATALOG_CHECKPOINT_VERSIONS_MAX);
    sl_mcatalog_vgroup_version *k = malloc(n * sizeof(*k));
    if (k == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory recording a checkpoint");
    memcpy(k, v, n * sizeof(*k));
    qsort(k, n, sizeof(*k), cmp_vgroup);
    for (size_t i = 1; i < n; i++)
        if (k[i].vgroup_id == k[i - 1].vgroup_id) {
            uint32_t dup = k[i].vgroup_id;
            free(k);
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "checkpoint of stream %llu names vgroup %u twice",
                                (unsigned long long)s->s_id, dup);
        }
    /* Versions of vgroups the stream does not read would hold nothing: drop them. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (reads(s, sl__mc_find_vgroup(cat, k[i].vgroup_id)))
            k[m++] = k[i];
    if (m == 0) {
        free(k);
        return 0;
    }
    if (s->s_hold == NULL) {
        s->s_hold = calloc(1, sizeof(*s->s_hold));
        if (s->s_hold == NULL)
            goto oom;
        s->s_hold->h_nslots = cat->c_slots;
    }
    for (size_t i = 0; i < m; i++)
        if (find_col(s->s_hold, k[i].vgroup_id) == NULL && add_col(s->s_hold, k[i].vgroup_id) < 0)
            goto oom;
    *kept = k;
    *nkept = m;
    return 0;
oom:
    free(k);
    return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory recording a checkpoint");
}

void sl__mc_hold_apply(sl_mcatalog *cat, sl__mc_stream *s, uint32_t slot,
                       const sl_mcatalog_vgroup_version *kept, size_t nkept)
{
    (void)cat;
    sl__mc_hold *h = s->s_hold;
    if (h == NULL)
        return; /* never named a version: every vgroup it reads is held at 0 anyway */
    assert(slot < h->h_nslots);
    /* The new checkpoint replaces the slot's old one whole: a column it does not name
     * loses the slot's version. kept is sorted by vgroup id. */
    for (size_t i = 0; i < h->h_ncols; i++) {
        hold_col *c = &h->h_cols[i];
        const sl_mcatalog_vgroup_version key = {.vgroup_id = c->c_vgroup};
        const sl_mcatalog_vgroup_version *e =
            nkept ? bsearch(&key, kept, nkept, sizeof(*kept), cmp_vgroup) : NULL;
        bool had = c->c_have[slot] != 0;
        uint64_t old = c->c_ver[slot];
        if (e != NULL) {
            c->c_ver[slot] = e->version;
            c->c_have[slot] = 1;
            if (!had)
                c->c_nhave++;
            if (had && old == c->c_min && e->version > old)
                c->c_stale = true; /* the minimum may have risen */
            else if (!c->c_stale && e->version < c->c_min)
                c->c_min = e->version;
        } else if (had) {
            c->c_have[slot] = 0;
            c->c_ver[slot] = 0;
            c->c_nhave--;
            if (old == c->c_min)
                c->c_stale = true;
        }
    }
}

/* ------------------------------------------------------------ answering */

/* The version stream s holds vgroup vg at. */
static uint64_t held_at(const sl__mc_stream *s, uint32_t vgroup)
{
    hold_col *c = find_col(s->s_hold, vgroup);
    if (c == NULL || c->c_nhave < s->s_hold->h_nslots)
        return 0; /* a slot has no checkpoint naming it: nothing may be trimmed */
    if (c->c_stale) {
        uint64_t m = UINT64_MAX;
        for (uint32_t i = 0; i < s->s_hold->h_nslots; i++)
            if (c->c_have[i] && c->c_ver[i] < m)
                m = c->c_ver[i];
        c->c_min = m;
        c->c_stale = false;
    }
    return c->c_min;
}

int sl_mcatalog_low_water(sl_mcatalog *cat, uint32_t vgroup_id, uint64_t *out)
{
    const sl__mc_vgroup *vg = sl__mc_find_vgroup(cat, vgroup_id);
    if (vg == NULL)
        return 0;
    bool any = false;
    uint64_t low = UINT64_MAX;
    for (int i = 0; i < cat->c_nstreams; i++) {
        const sl__mc_stream *s = cat->c_streams[i];
        if (!reads(s, vg))
            continue;
        any = true;
        uint64_t v = held_at(s, vgroup_id);
        if (v < low)
            low = v;
    }
    if (!any)
        return 0;
    *out = low;
    return 1;
}

/* ------------------------------------------------------------ loading */

static int corrupt(const sl_mcatalog *cat, sl_error *err, const char *what)
{
    return sl_error_set(err, SL_ECORRUPT, 0, 0, "catalog '%s': %s", sl_kv_path(cat->c_kv), what);
}

int sl__mc_holds_load(sl_mcatalog *cat, sl_error *err)
{
    sl_kv_iter *it = NULL;
    sl_kv_iter_options o = {.no_fill_cache = true};
    int rc = sl_kv_iter_open(&it, cat->c_kv, cat->c_cf_checkpoints, &o, err);
    if (rc < 0)
        return rc;
    sl__mc_stream *s = NULL; /* keys are in stream order: remember the last one */
    sl_mcatalog_vgroup_version *v = NULL;
    size_t capv = 0;
    for (sl_kv_iter_first(it); rc == 0 && sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        size_t kn, vn;
        const uint8_t *k = sl_kv_iter_key(it, &kn);
        const void *val = sl_kv_iter_value(it, &vn);
        sl__mc_ckpt c;
        if (kn != 12 || sl__mc_ckpt_decode(val, vn, &c) < 0) {
            rc = corrupt(cat, err, "bad checkpoint record");
            break;
        }
        uint64_t sid = sl_key_dec_u64(k);
        uint32_t slot = sl_key_dec_u32(k + 8);
        if (s == NULL || s->s_id != sid)
            s = sl__mc_find_stream_id(cat, sid);
        if (s == NULL || slot >= cat->c_slots || c.k_nvers == 0)
            continue; /* nothing it could hold */
        if (c.k_nvers > capv) {
            sl_mcatalog_vgroup_version *p = realloc(v, c.k_nvers * sizeof(*p));
            if (p == NULL) {
                rc = SL_ENOMEM;
                break;
            }
            v = p;
            capv = c.k_nvers;
        }
        sl_reader r;
        sl_reader_init(&r, c.k_vers, (size_t)c.k_nvers * 12);
        for (uint32_t i = 0; i < c.k_nvers; i++) {
            sl_reader_u32(&r, &v[i].vgroup_id); /* the length was checked by the decoder */
            sl_reader_u64(&r, &v[i].version);
        }
        sl_mcatalog_vgroup_version *kept = NULL;
        size_t nkept = 0;
        rc = sl__mc_hold_prepare(cat, s, v, c.k_nvers, &kept, &nkept, err);
        if (rc == SL_EINVAL || rc == SL_ELIMIT)
            rc = corrupt(cat, err, "bad checkpoint record");
        if (rc == 0)
            sl__mc_hold_apply(cat, s, slot, kept, nkept);
        free(kept);
    }
    if (rc == 0)
        rc = sl_kv_iter_status(it, err);
    sl_kv_iter_close(it);
    free(v);
    return rc;
}
