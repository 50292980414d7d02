/*
 * catalog_assign.c - placement of (stream, slot) pairs on snodes, the assignment epoch,
 * snode reports and the checkpoint store (catalog.h, "Stream placement").
 *
 * The placement is recomputed only when its inputs change: the hash of (candidate snode
 * ids, stream ids with their running flags) is compared with the one the current
 * placement was computed from, so sl_mcatalog_place is O(nodes + streams) when nothing
 * changed and the daemon may call it after every event that could matter. A new placement
 * bumps the epoch only when it differs from the old one (an snode joining while no stream
 * exists moves nothing). The epoch record also holds a hash of the placement it names, so
 * a restarted mnode that computes the same placement keeps the epoch.
 *
 * On disk: meta "epoch" -> u8 version, u64 epoch, u64 placement hash;
 * checkpoints (u64 stream id, u32 slot) -> u8 version (1), u64 epoch, u32 node, bytes state;
 * or, when the checkpoint names consumed versions (catalog_lowwater.c), u8 version (2),
 * u64 epoch, u32 node, u32 n, n x (u32 vgroup id, u64 version), bytes state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_int.h"
#include "common/kv/keycodec.h"
#include "placement.h"

#define EPOCH_KEY "epoch"

/* ------------------------------------------------------------ hashing */

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    return h;
}

/* ------------------------------------------------------------ epoch record */

static int corrupt(const sl_mcatalog *cat, sl_error *err, const char *what)
{
    return sl_error_set(err, SL_ECORRUPT, 0, 0, "catalog '%s': %s", sl_kv_path(cat->c_kv), what);
}

static uint64_t placement_hash(const sl__mc_placed *p, size_t n, uint32_t slots);

int sl__mc_assign_load(sl_mcatalog *cat, sl_error *err)
{
    cat->c_slots = SL_PLACE_SLOTS;
    cat->c_epoch = 1;
    cat->c_place_hash = placement_hash(NULL, 0, cat->c_slots); /* epoch 1 places nothing */
    sl_buf v;
    sl_buf_init(&v);
    int rc = sl_kv_get(cat->c_kv, cat->c_cf_meta, NULL, EPOCH_KEY, sizeof(EPOCH_KEY) - 1, &v, err);
    if (rc == SL_ENOTFOUND) {
        rc = 0;
    } else if (rc == 0) {
        sl_reader r;
        sl_reader_init(&r, v.data, v.len);
        uint8_t ver;
        if (sl_reader_u8(&r, &ver) < 0 || ver != SL__MC_FORMAT ||
            sl_reader_u64(&r, &cat->c_epoch) < 0 || sl_reader_u64(&r, &cat->c_place_hash) < 0 ||
            cat->c_epoch == 0)
            rc = corrupt(cat, err, "bad epoch record");
    }
    sl_buf_fini(&v);
    return rc;
}

static void placed_free(sl__mc_placed *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(p[i].p_owners);
    free(p);
}

void sl__mc_node_tasks_free(sl__mc_node *n)
{
    for (size_t i = 0; i < n->n_ntasks; i++)
        free(n->n_tasks[i].t_error);
    free(n->n_tasks);
    n->n_tasks = NULL;
    n->n_ntasks = 0;
}

void sl__mc_assign_free(sl_mcatalog *cat)
{
    placed_free(cat->c_placed, cat->c_nplaced);
    cat->c_placed = NULL;
    cat->c_nplaced = 0;
    for (uint32_t i = 0; i < cat->c_nnodes; i++)
        sl__mc_node_tasks_free(cat->c_nodes[i]);
}

uint64_t sl_mcatalog_epoch(sl_mcatalog *cat)
{
    return cat->c_epoch;
}

uint32_t sl_mcatalog_slots(sl_mcatalog *cat)
{
    return cat->c_slots;
}

/* ------------------------------------------------------------ placement */

static int cmp_stream_id(const void *a, const void *b)
{
    uint64_t x = (*(sl__mc_stream *const *)a)->s_id, y = (*(sl__mc_stream *const *)b)->s_id;
    return x < y ? -1 : x > y;
}

static const sl__mc_placed *find_placed(const sl_mcatalog *cat, uint64_t id)
{
    size_t lo = 0, hi = cat->c_nplaced;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cat->c_placed[mid].p_stream < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < cat->c_nplaced && cat->c_placed[lo].p_stream == id ? &cat->c_placed[lo] : NULL;
}

const uint32_t *sl__mc_owners(const sl_mcatalog *cat, uint64_t stream_id)
{
    const sl__mc_placed *p = find_placed(cat, stream_id);
    return p ? p->p_owners : NULL;
}

static uint64_t placement_hash(const sl__mc_placed *p, size_t n, uint32_t slots)
{
    uint64_t h = mix(0, n);
    for (size_t i = 0; i < n; i++) {
        h = mix(h, p[i].p_stream);
        h = mix(h, p[i].p_running);
        for (uint32_t s = 0; s < slots; s++)
            h = mix(h, p[i].p_owners[s]);
    }
    return h;
}

static bool same_placement(const sl__mc_placed *a, size_t na, const sl__mc_placed *b, size_t nb,
                           uint32_t slots)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (a[i].p_stream != b[i].p_stream || a[i].p_running != b[i].p_running ||
            memcmp(a[i].p_owners, b[i].p_owners, slots * sizeof(uint32_t)) != 0)
            return false;
    return true;
}

static int write_epoch(sl_mcatalog *cat, uint64_t epoch, uint64_t hash, sl_error *err)
{
    sl_buf v;
    sl_buf_init(&v);
    int rc = sl_buf_put_u8(&v, SL__MC_FORMAT);
    if (rc == 0)
        rc = sl_buf_put_u64(&v, epoch);
    if (rc == 0)
        rc = sl_buf_put_u64(&v, hash);
    sl_kv_batch *b = NULL;
    if (rc == 0)
        rc = sl_kv_batch_open(&b);
    if (rc == 0)
        rc = sl_kv_batch_put(b, cat->c_cf_meta, EPOCH_KEY, sizeof(EPOCH_KEY) - 1, v.data, v.len);
    if (rc < 0)
        sl_error_set(err, rc, 0, 0, "out of memory writing the epoch");
    else
        rc = sl_kv_write(cat->c_kv, b, SL_KV_SYNC_ON, err);
    sl_kv_batch_close(b);
    sl_buf_fini(&v);
    return rc;
}

int sl_mcatalog_place(sl_mcatalog *cat, bool *changed, sl_error *err)
{
    if (changed != NULL)
        *changed = false;
    /* The inputs: candidate snodes (ascending id) and the streams by id. */
    uint32_t *cand = malloc((cat->c_nnodes ? cat->c_nnodes : 1) * sizeof(*cand));
    sl__mc_stream **streams = malloc((size_t)(cat->c_nstreams ? cat->c_nstreams : 1) *
                                     sizeof(*streams));
    sl__mc_placed *np = calloc((size_t)(cat->c_nstreams ? cat->c_nstreams : 1), sizeof(*np));
    size_t ncand = 0, nnp = 0;
    int rc = 0;
    if (cand == NULL || streams == NULL || np == NULL) {
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory placing streams");
        goto done;
    }
    uint64_t inputs = mix(0, cat->c_slots);
    for (uint32_t i = 0; i < cat->c_nnodes; i++) {
        const sl__mc_node *n = cat->c_nodes[i];
        if (n->n_kind == SL_MC_SNODE && n->n_alive && !n->n_dropped) {
            cand[ncand++] = n->n_id;
            inputs = mix(inputs, n->n_id);
        }
    }
    inputs = mix(inputs, UINT64_MAX);
    if (cat->c_nstreams > 0)
        memcpy(streams, cat->c_streams, (size_t)cat->c_nstreams * sizeof(*streams));
    qsort(streams, (size_t)cat->c_nstreams, sizeof(*streams), cmp_stream_id);
    for (int i = 0; i < cat->c_nstreams; i++) {
        inputs = mix(inputs, streams[i]->s_id);
        inputs = mix(inputs, streams[i]->s_running);
    }
    if (cat->c_place_valid && inputs == cat->c_place_inputs)
        goto done; /* nothing that placement depends on changed */
    for (int i = 0; i < cat->c_nstreams; i++) {
        sl__mc_placed *p = &np[nnp];
        p->p_stream = streams[i]->s_id;
        p->p_running = streams[i]->s_running;
        p->p_owners = malloc(cat->c_slots * sizeof(uint32_t));
        if (p->p_owners == NULL) {
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory placing streams");
            goto done;
        }
        nnp++;
        sl_place_stream(p->p_stream, cat->c_slots, cand, ncand, p->p_owners);
    }
    uint64_t hash = placement_hash(np, nnp, cat->c_slots);
    bool same = cat->c_place_valid
                    ? same_placement(np, nnp, cat->c_placed, cat->c_nplaced, cat->c_slots)
                    : hash == cat->c_place_hash; /* first placement of this run */
    if (!same) {
        rc = write_epoch(cat, cat->c_epoch + 1, hash, err);
        if (rc < 0)
            goto done;
        cat->c_epoch++;
        cat->c_place_hash = hash;
        if (changed != NULL)
            *changed = true;
    }
    placed_free(cat->c_placed, cat->c_nplaced);
    cat->c_placed = np;
    cat->c_nplaced = nnp;
    np = NULL;
    nnp = 0;
    cat->c_place_inputs = inputs;
    cat->c_place_valid = true;
done:
    placed_free(np, nnp);
    free(cand);
    free(streams);
    return rc;
}

int sl_mcatalog_each_stream(sl_mcatalog *cat, sl_mcatalog_stream_fn fn, void *arg)
{
    sl__mc_stream **v = malloc((size_t)(cat->c_nstreams ? cat->c_nstreams : 1) * sizeof(*v));
    uint32_t *none = calloc(cat->c_slots, sizeof(uint32_t));
    int rc = 0;
    if (v == NULL || none == NULL) {
        rc = SL_ENOMEM;
        goto done;
    }
    if (cat->c_nstreams > 0)
        memcpy(v, cat->c_streams, (size_t)cat->c_nstreams * sizeof(*v));
    qsort(v, (size_t)cat->c_nstreams, sizeof(*v), cmp_stream_id);
    for (int i = 0; rc == 0 && i < cat->c_nstreams; i++) {
        const uint32_t *owners = sl__mc_owners(cat, v[i]->s_id);
        sl_mcatalog_stream s = {
            .id = v[i]->s_id,
            .db = v[i]->s_db,
            .name = v[i]->s_name,
            .sql = v[i]->s_sql,
            .plan_db = v[i]->s_plan_db ? v[i]->s_plan_db : v[i]->s_db,
            .running = v[i]->s_running,
            .ignore_untreated = v[i]->s_ignore_untreated,
            .ignore_untreated_epoch = v[i]->s_untreated_epoch,
            .nslots = cat->c_slots,
            .owners = owners ? owners : none,
        };
        rc = fn(arg, &s);
    }
done:
    free(v);
    free(none);
    return rc;
}

sl_mcatalog_stream_state sl_mcatalog_stream_state_of(sl_mcatalog *cat, const char *db,
                                                     const char *name)
{
    const sl__mc_stream *st = NULL;
    for (int i = 0; st == NULL && i < cat->c_nstreams; i++)
        if (sl_ddl_name_eq(cat->c_streams[i]->s_db, db) &&
            sl_ddl_name_eq(cat->c_streams[i]->s_name, name))
            st = cat->c_streams[i];
    if (st == NULL)
        return SL_MC_STREAM_GONE;
    const uint32_t *owners = sl__mc_owners(cat, st->s_id);
    if (!st->s_running || owners == NULL)
        return SL_MC_STREAM_IDLE;
    for (uint32_t s = 0; s < cat->c_slots; s++) {
        if (owners[s] == 0)
            return SL_MC_STREAM_IDLE; /* no snode alive */
        if (s > 0 && owners[s] == owners[s - 1])
            continue;
        const sl__mc_node *n = sl__mc_find_node(cat, owners[s]);
        if (n == NULL || n->n_epoch < cat->c_epoch || sl__mc_task_of(n, st->s_id) == NULL)
            return SL_MC_STREAM_STARTING;
    }
    return SL_MC_STREAM_RUNNING;
}

/* ------------------------------------------------------------ snodes */

static sl__mc_node *find_snode(sl_mcatalog *cat, uint32_t id, sl_error *err)
{
    sl__mc_node *n = sl__mc_find_node(cat, id);
    if (n == NULL || n->n_kind != SL_MC_SNODE) {
        sl_error_set(err, SL_ENOTFOUND, 0, 0, "snode %u does not exist", id);
        return NULL;
    }
    return n;
}

int sl_mcatalog_snode_heartbeat(sl_mcatalog *cat, uint32_t id, const sl_mcatalog_snode_report *r,
                                int64_t now_ms, sl_error *err)
{
    sl__mc_node *n = sl__mc_find_node(cat, id);
    if (n == NULL)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "node %u is not registered", id);
    if (n->n_kind != SL_MC_SNODE)
        return sl_error_set(err, SL_EINVAL, 0, 0, "node %u is a %s, not an snode", id,
                            sl_mc_node_kind_name(n->n_kind));
    sl__mc_task *tasks = NULL;
    if (r->ntasks > 0) {
        tasks = calloc(r->ntasks, sizeof(*tasks));
        if (tasks == NULL)
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory recording a heartbeat");
        for (size_t i = 0; i < r->ntasks; i++) {
            const sl_mcatalog_task_report *t = &r->tasks[i];
            tasks[i].t_stream = t->stream_id;
            tasks[i].t_lag_ms = t->lag_ms;
            tasks[i].t_rows = t->rows;
            tasks[i].t_outbox = t->outbox;
            if (t->error != NULL && t->error[0] != '\0' &&
                (tasks[i].t_error = strdup(t->error)) == NULL) {
                sl__mc_node tmp = {.n_tasks = tasks, .n_ntasks = i};
                sl__mc_node_tasks_free(&tmp);
                return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory recording a heartbeat");
            }
        }
    }
    int rc = sl_mcatalog_node_heartbeat(cat, id, now_ms, err);
    if (rc < 0) {
        sl__mc_node tmp = {.n_tasks = tasks, .n_ntasks = r->ntasks};
        sl__mc_node_tasks_free(&tmp);
        return rc;
    }
    sl__mc_node_tasks_free(n);
    n->n_tasks = tasks;
    n->n_ntasks = r->ntasks;
    n->n_epoch = r->epoch;
    n->n_memory = r->memory_bytes;
    n->n_groups = r->groups;
    return 0;
}

const sl__mc_task *sl__mc_task_of(const sl__mc_node *n, uint64_t stream_id)
{
    for (size_t i = 0; n != NULL && i < n->n_ntasks; i++)
        if (n->n_tasks[i].t_stream == stream_id)
            return &n->n_tasks[i];
    return NULL;
}

/* Writes node n as it will be (upd) synced, then applies it. */
static int update_node(sl_mcatalog *cat, sl__mc_node *n, const sl__mc_node *upd, sl_error *err)
{
    sl_buf k, v;
    sl_buf_init(&k);
    sl_buf_init(&v);
    sl_kv_batch *b = NULL;
    int rc = sl__mc_key_id(&k, upd->n_id);
    if (rc == 0)
        rc = sl__mc_enc_node(&v, upd);
    if (rc == 0)
        rc = sl_kv_batch_open(&b);
    if (rc == 0)
        rc = sl_kv_batch_put(b, cat->c_cf_nodes, k.data, k.len, v.data, v.len);
    if (rc < 0)
        sl_error_set(err, rc, 0, 0, "out of memory writing the catalog");
    else
        rc = sl_kv_write(cat->c_kv, b, SL_KV_SYNC_ON, err);
    sl_kv_batch_close(b);
    sl_buf_fini(&k);
    sl_buf_fini(&v);
    if (rc == 0) {
        n->n_alive = upd->n_alive;
        n->n_dropped = upd->n_dropped;
    }
    return rc;
}

int sl_mcatalog_node_leave(sl_mcatalog *cat, uint32_t id, sl_error *err)
{
    sl__mc_node *n = sl__mc_find_node(cat, id);
    if (n == NULL)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "node %u is not registered", id);
    if (!n->n_alive)
        return 0;
    sl__mc_node upd = *n;
    upd.n_alive = false;
    return update_node(cat, n, &upd, err);
}

int sl_mcatalog_snode_drop(sl_mcatalog *cat, uint32_t id, sl_error *err)
{
    sl__mc_node *n = find_snode(cat, id, err);
    if (n == NULL)
        return SL_ENOTFOUND;
    if (n->n_dropped)
        return 0;
    sl__mc_node upd = *n;
    upd.n_alive = false;
    upd.n_dropped = true;
    return update_node(cat, n, &upd, err);
}

/* ------------------------------------------------------------ checkpoints */

static int checkpoint_key(sl_buf *k, uint64_t stream_id, uint32_t slot)
{
    int rc = sl_key_put_u64(k, stream_id);
    return rc ? rc : sl_key_put_u32(k, slot);
}

/* Format of checkpoint records with versions; records without any keep SL__MC_FORMAT (1),
 * so they are byte for byte what earlier versions wrote. */
#define CKPT_FORMAT_VERSIONS 2

int sl__mc_ckpt_decode(const void *v, size_t n, sl__mc_ckpt *out)
{
    sl_reader r;
    sl_reader_init(&r, v, n);
    uint8_t ver;
    memset(out, 0, sizeof(*out));
    if (sl_reader_u8(&r, &ver) < 0 || (ver != SL__MC_FORMAT && ver != CKPT_FORMAT_VERSIONS) ||
        sl_reader_u64(&r, &out->k_epoch) < 0 || sl_reader_u32(&r, &out->k_node) < 0)
        return SL_ECORRUPT;
    if (ver == CKPT_FORMAT_VERSIONS) {
        if (sl_reader_u32(&r, &out->k_nvers) < 0 ||
            out->k_nvers > SL_MCATALOG_CHECKPOINT_VERSIONS_MAX ||
            (out->k_vers = sl_reader_take(&r, (size_t)out->k_nvers * 12)) == NULL)
            return SL_ECORRUPT;
    }
    out->k_state_len = sl_reader_left(&r);
    out->k_state = sl_reader_take(&r, out->k_state_len);
    return 0;
}

int sl_mcatalog_checkpoint_put(sl_mcatalog *cat, uint32_t node, uint64_t epoch, uint64_t stream_id,
                               uint32_t slot, const void *data, size_t len, sl_error *err)
{
    return sl_mcatalog_checkpoint_put_versions(cat, node, epoch, stream_id, slot, data, len, NULL,
                                               0, err);
}

int sl_mcatalog_checkpoint_put_versions(sl_mcatalog *cat, uint32_t node, uint64_t epoch,
                                        uint64_t stream_id, uint32_t slot, const void *data,
                                        size_t len, const sl_mcatalog_vgroup_version *versions,
                                        size_t nversions, sl_error *err)
{
    sl_mcatalog_slot_state one = {.slot = slot, .data = data, .len = len};
    return sl_mcatalog_checkpoint_put_slots(cat, node, epoch, stream_id, &one, 1, versions,
                                            nversions, err);
}

int sl_mcatalog_checkpoint_put_slots(sl_mcatalog *cat, uint32_t node, uint64_t epoch,
                                     uint64_t stream_id, const sl_mcatalog_slot_state *slots,
                                     size_t nslots, const sl_mcatalog_vgroup_version *versions,
                                     size_t nversions, sl_error *err)
{
    if (epoch < cat->c_epoch)
        return sl_error_set(err, SL_ESTALE, 0, 0,
                            "checkpoint of stream %llu slot %u refused: epoch %llu is older "
                            "than the current epoch %llu",
                            (unsigned long long)stream_id, nslots ? slots[0].slot : 0,
                            (unsigned long long)epoch, (unsigned long long)cat->c_epoch);
    if (epoch > cat->c_epoch)
        return sl_error_set(err, SL_EINVAL, 0, 0, "epoch %llu is newer than the current epoch %llu",
                            (unsigned long long)epoch, (unsigned long long)cat->c_epoch);
    sl__mc_stream *st = sl__mc_find_stream_id(cat, stream_id);
    if (st == NULL)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "stream %llu does not exist",
                            (unsigned long long)stream_id);
    if (nslots == 0 || nslots > cat->c_slots)
        return sl_error_set(err, SL_EINVAL, 0, 0, "a checkpoint put names 1 to %u slots, not %zu",
                            cat->c_slots, nslots);
    const uint32_t *owners = sl__mc_owners(cat, stream_id);
    uint8_t *seen = calloc((cat->c_slots + 7) / 8, 1); /* slots named so far: linear work */
    if (seen == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory recording a checkpoint");
    size_t total = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < nslots; i++) {
        uint32_t slot = slots[i].slot;
        total += slots[i].len;
        if (slot >= cat->c_slots)
            rc = sl_error_set(err, SL_EINVAL, 0, 0, "slot %u is out of range (0..%u)", slot,
                              cat->c_slots - 1);
        else if (seen[slot / 8] & (1u << (slot % 8)))
            rc = sl_error_set(err, SL_EINVAL, 0, 0, "slot %u is named twice", slot);
        else if (slots[i].len > SL_MCATALOG_CHECKPOINT_MAX || total > SL_MCATALOG_CHECKPOINT_MAX)
            rc = sl_error_set(err, SL_ELIMIT, 0, 0, "a checkpoint put holds at most %u bytes",
                              SL_MCATALOG_CHECKPOINT_MAX);
        else if (owners == NULL || node == 0 || owners[slot] != node) /* 0: no snode alive */
            rc = sl_error_set(err, SL_ESTALE, 0, 0,
                              "checkpoint of stream %llu slot %u refused: snode %u does not own "
                              "it at epoch %llu",
                              (unsigned long long)stream_id, slot, node,
                              (unsigned long long)cat->c_epoch);
        else
            seen[slot / 8] |= (uint8_t)(1u << (slot % 8));
    }
    free(seen);
    if (rc < 0)
        return rc;
    sl_mcatalog_vgroup_version *kept = NULL;
    size_t nkept = 0;
    rc = sl__mc_hold_prepare(cat, st, versions, nversions, &kept, &nkept, err);
    if (rc < 0)
        return rc;
    sl_buf k, v;
    sl_buf_init(&k);
    sl_buf_init(&v);
    sl_kv_batch *b = NULL;
    rc = sl_kv_batch_open(&b);
    /* Every slot in one batch, synced once. */
    for (size_t i = 0; rc == 0 && i < nslots; i++) {
        sl_buf_reset(&k);
        sl_buf_reset(&v);
        rc = checkpoint_key(&k, stream_id, slots[i].slot);
        if (rc == 0)
            rc = sl_buf_put_u8(&v, nkept > 0 ? CKPT_FORMAT_VERSIONS : SL__MC_FORMAT);
        if (rc == 0)
            rc = sl_buf_put_u64(&v, epoch);
        if (rc == 0)
            rc = sl_buf_put_u32(&v, node);
        if (rc == 0 && nkept > 0)
            rc = sl_buf_put_u32(&v, (uint32_t)nkept);
        for (size_t j = 0; rc == 0 && j < nkept; j++) {
            rc = sl_buf_put_u32(&v, kept[j].vgroup_id);
            if (rc == 0)
                rc = sl_buf_put_u64(&v, kept[j].version);
        }
        if (rc == 0)
            rc = sl_buf_put(&v, slots[i].data, slots[i].len);
        if (rc == 0)
            rc = sl_kv_batch_put(b, cat->c_cf_checkpoints, k.data, k.len, v.data, v.len);
    }
    if (rc < 0)
        sl_error_set(err, rc, 0, 0, "out of memory writing a checkpoint");
    else
        rc = sl_kv_write(cat->c_kv, b, SL_KV_SYNC_ON, err);
    for (size_t i = 0; rc == 0 && i < nslots; i++) /* on disk: the slots' versions are these */
        sl__mc_hold_apply(cat, st, slots[i].slot, kept, nkept);
    sl_kv_batch_close(b);
    sl_buf_fini(&k);
    sl_buf_fini(&v);
    free(kept);
    return rc;
}

int sl_mcatalog_checkpoint_get(sl_mcatalog *cat, uint64_t stream_id, uint32_t slot, sl_buf *out,
                               uint64_t *epoch, uint32_t *node, sl_error *err)
{
    sl_buf k, v;
    sl_buf_init(&k);
    sl_buf_init(&v);
    int rc = checkpoint_key(&k, stream_id, slot);
    if (rc == 0)
        rc = sl_kv_get(cat->c_kv, cat->c_cf_checkpoints, NULL, k.data, k.len, &v, err);
    if (rc == SL_ENOTFOUND) {
        rc = 0;
    } else if (rc == 0) {
        sl__mc_ckpt c;
        if (sl__mc_ckpt_decode(v.data, v.len, &c) < 0) {
            rc = corrupt(cat, err, "bad checkpoint record");
        } else {
            rc = sl_buf_put(out, c.k_state, c.k_state_len);
            if (rc == 0) {
                *epoch = c.k_epoch;
                *node = c.k_node;
                rc = 1;
            }
        }
    }
    sl_buf_fini(&k);
    sl_buf_fini(&v);
    return rc;
}

int sl__mc_checkpoints_batch_drop(sl_mcatalog *cat, sl_kv_batch *b, uint64_t stream_id)
{
    sl_buf lo, hi;
    sl_buf_init(&lo);
    sl_buf_init(&hi);
    int rc = checkpoint_key(&lo, stream_id, 0);
    if (rc == 0)
        rc = stream_id == UINT64_MAX ? sl_buf_put(&hi, "\xff\xff\xff\xff\xff\xff\xff\xff\xff", 9)
                                     : sl_key_put_u64(&hi, stream_id + 1);
    if (rc == 0)
        rc = sl_kv_batch_delete_range(b, cat->c_cf_checkpoints, lo.data, lo.len, hi.data, hi.len);
    sl_buf_fini(&lo);
    sl_buf_fini(&hi);
    return rc;
}
