/*
 * catalog_node.c - membership: node registration, heartbeats and the dead-node sweep
 * (catalog.h).
 *
 * Nodes are identified by the address they register with, so a restarted node gets its
 * old id back; ids come from a persistent counter and are never reused. Times are the
 * caller's (the daemon's loop clock), never read here, so the rules are testable: a node
 * is dead once now - last_seen > timeout at a sweep, and alive again at its next
 * heartbeat or registration. Registrations and status changes are synced writes; a
 * heartbeat that changes nothing but last_seen is not synced (losing one to a power cut
 * only makes a node look a little older).
 */
#include "catalog_int.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ nodes */

const char *sl_mc_node_kind_name(sl_mc_node_kind k)
{
    switch (k) {
    case SL_MC_VNODE: return "vnode";
    case SL_MC_SNODE: return "snode";
    case SL_MC_MNODE: return "mnode";
    }
    return "?";
}

static void node_view(const sl__mc_node *n, sl_mcatalog_node *out)
{
    out->id = n->n_id;
    out->kind = n->n_kind;
    out->addr = n->n_addr;
    out->alive = n->n_alive;
    out->last_seen = n->n_last_seen;
    out->create_time = n->n_created;
    out->nvgroups = n->n_nvgroups;
}

/* Writes the records of nodes (as they will be) in one batch, synced or not. */
static int write_nodes(sl_mcatalog *cat, const sl__mc_node *const *nodes, size_t n, bool counters,
                       uint32_t next_node, sl_kv_sync sync, sl_error *err)
{
    sl_kv_batch *b = NULL;
    sl_buf k, v;
    sl_buf_init(&k);
    sl_buf_init(&v);
    int rc = sl_kv_batch_open(&b);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        sl_buf_reset(&k);
        sl_buf_reset(&v);
        rc = sl__mc_key_id(&k, nodes[i]->n_id);
        if (rc == 0)
            rc = sl__mc_enc_node(&v, nodes[i]);
        if (rc == 0)
            rc = sl_kv_batch_put(b, cat->c_cf_nodes, k.data, k.len, v.data, v.len);
    }
    if (rc == 0 && counters)
        rc = sl__mc_batch_counters(cat, b, cat->c_next_uid, cat->c_next_vgroup, next_node);
    if (rc < 0)
        sl_error_set(err, rc, 0, 0, "out of memory writing the catalog");
    else
        rc = sl_kv_write(cat->c_kv, b, sync, err);
    sl_kv_batch_close(b);
    sl_buf_fini(&k);
    sl_buf_fini(&v);
    return rc;
}

int sl_mcatalog_node_register(sl_mcatalog *cat, sl_mc_node_kind kind, const char *addr,
                              int64_t now_ms, uint32_t *id, sl_error *err)
{
    if (kind < SL_MC_VNODE || kind > SL_MC_MNODE)
        return sl_error_set(err, SL_EINVAL, 0, 0, "unknown node kind %d", (int)kind);
    size_t alen = addr ? strlen(addr) : 0;
    if (alen == 0 || alen > SL_MCATALOG_ADDR_MAX)
        return sl_error_set(err, SL_EINVAL, 0, 0, "a node address must have 1 to %d bytes",
                            SL_MCATALOG_ADDR_MAX);
    for (uint32_t i = 0; i < cat->c_nnodes; i++) {
        sl__mc_node *n = cat->c_nodes[i];
        if (strcmp(n->n_addr, addr) != 0)
            continue;
        if (n->n_kind != kind)
            return sl_error_set(err, SL_EEXIST, 0, 0, "address '%s' is already registered as %s %u",
                                addr, sl_mc_node_kind_name(n->n_kind), n->n_id);
        sl__mc_node upd = *n;
        upd.n_alive = true;
        upd.n_dropped = false; /* registering again brings a dropped snode back */
        upd.n_last_seen = now_ms;
        const sl__mc_node *one = &upd;
        int rc = write_nodes(cat, &one, 1, false, 0, SL_KV_SYNC_ON, err);
        if (rc < 0)
            return rc;
        *n = upd;
        *id = n->n_id;
        return 0;
    }
    if (cat->c_next_node == UINT32_MAX)
        return sl_error_set(err, SL_ELIMIT, 0, 0, "no node ids left");
    if (cat->c_nnodes == cat->c_capnodes) {
        uint32_t cap = cat->c_capnodes ? cat->c_capnodes * 2 : 8;
        sl__mc_node **p = realloc(cat->c_nodes, cap * sizeof(*p));
        if (p == NULL)
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory registering a node");
        cat->c_nodes = p;
        cat->c_capnodes = cap;
    }
    sl__mc_node *n = calloc(1, sizeof(*n));
    if (n == NULL || (n->n_addr = strdup(addr)) == NULL) {
        free(n);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory registering a node");
    }
    n->n_id = cat->c_next_node;
    n->n_kind = kind;
    n->n_alive = true;
    n->n_last_seen = now_ms;
    n->n_created = now_ms;
    const sl__mc_node *one = n;
    int rc = write_nodes(cat, &one, 1, true, n->n_id + 1, SL_KV_SYNC_ON, err);
    if (rc < 0) {
        free(n->n_addr);
        free(n);
        return rc;
    }
    /* Ids only grow, so appending keeps the array sorted. */
    cat->c_nodes[cat->c_nnodes++] = n;
    cat->c_next_node = n->n_id + 1;
    *id = n->n_id;
    return 0;
}

int sl_mcatalog_node_heartbeat(sl_mcatalog *cat, uint32_t id, int64_t now_ms, sl_error *err)
{
    sl__mc_node *n = sl__mc_find_node(cat, id);
    if (n == NULL)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "node %u is not registered", id);
    if (n->n_dropped)
        return sl_error_set(err, SL_ESTATE, 0, 0, "%s %u was dropped", sl_mc_node_kind_name(n->n_kind),
                            id);
    sl__mc_node upd = *n;
    upd.n_last_seen = now_ms;
    upd.n_alive = true;
    /* A revival is a status change and is synced; a routine heartbeat need not be. */
    const sl__mc_node *one = &upd;
    int rc = write_nodes(cat, &one, 1, false, 0, n->n_alive ? SL_KV_SYNC_OFF : SL_KV_SYNC_ON, err);
    if (rc < 0)
        return rc;
    *n = upd;
    return 0;
}

int sl_mcatalog_node_sweep(sl_mcatalog *cat, int64_t now_ms, int64_t timeout_ms, uint32_t *dead,
                           size_t cap, size_t *ndead, sl_error *err)
{
    if (ndead != NULL)
        *ndead = 0;
    if (timeout_ms < 0)
        return sl_error_set(err, SL_EINVAL, 0, 0, "the heartbeat timeout must not be negative");
    size_t n = 0;
    for (uint32_t i = 0; i < cat->c_nnodes; i++) {
        const sl__mc_node *x = cat->c_nodes[i];
        n += x->n_alive && now_ms - x->n_last_seen > timeout_ms;
    }
    if (n == 0)
        return 0;
    sl__mc_node *upd = calloc(n, sizeof(*upd));
    const sl__mc_node **ptrs = calloc(n, sizeof(*ptrs));
    if (upd == NULL || ptrs == NULL) {
        free(upd);
        free(ptrs);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory sweeping nodes");
    }
    size_t k = 0;
    for (uint32_t i = 0; i < cat->c_nnodes; i++) {
        const sl__mc_node *x = cat->c_nodes[i];
        if (x->n_alive && now_ms - x->n_last_seen > timeout_ms) {
            upd[k] = *x;
            upd[k].n_alive = false;
            ptrs[k] = &upd[k];
            k++;
        }
    }
    int rc = write_nodes(cat, ptrs, n, false, 0, SL_KV_SYNC_ON, err);
    if (rc == 0) {
        for (size_t j = 0; j < n; j++) {
            sl__mc_find_node(cat, upd[j].n_id)->n_alive = false;
            if (j < cap)
                dead[j] = upd[j].n_id;
        }
        if (ndead != NULL)
            *ndead = n;
    }
    free(upd);
    free(ptrs);
    return rc;
}

int sl_mcatalog_node_get(sl_mcatalog *cat, uint32_t id, sl_mcatalog_node *out, sl_error *err)
{
    const sl__mc_node *n = sl__mc_find_node(cat, id);
    if (n == NULL)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "node %u is not registered", id);
    node_view(n, out);
    return 0;
}

int sl_mcatalog_set_self(sl_mcatalog *cat, const char *addr, int64_t started_ms, sl_error *err)
{
    size_t alen = addr ? strlen(addr) : 0;
    if (alen == 0 || alen > SL_MCATALOG_ADDR_MAX)
        return sl_error_set(err, SL_EINVAL, 0, 0, "a node address must have 1 to %d bytes",
                            SL_MCATALOG_ADDR_MAX);
    char *copy = strdup(addr);
    if (copy == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    free(cat->c_self.n_addr);
    memset(&cat->c_self, 0, sizeof(cat->c_self));
    cat->c_self.n_id = 0;
    cat->c_self.n_kind = SL_MC_MNODE;
    cat->c_self.n_addr = copy;
    cat->c_self.n_alive = true;
    cat->c_self.n_created = started_ms;
    cat->c_self.n_last_seen = started_ms;
    return 0;
}

/* ------------------------------------------------------------ vnode load reports */

int sl_mcatalog_vnode_report(sl_mcatalog *cat, uint32_t id, const sl_mcatalog_vgroup_load *loads,
                             size_t n, const sl_mcatalog_vnode_counters *ctr, size_t *ignored,
                             sl_error *err)
{
    if (ignored != NULL)
        *ignored = 0;
    sl__mc_node *nd = sl__mc_find_node(cat, id);
    if (nd == NULL)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "node %u is not registered", id);
    if (nd->n_kind != SL_MC_VNODE)
        return sl_error_set(err, SL_EINVAL, 0, 0, "node %u is an %s: only vnodes report loads",
                            id, sl_mc_node_kind_name(nd->n_kind));
    /* A generation per report tells a vgroup listed twice in it from one listed in an
     * earlier report. */
    uint64_t gen = ++cat->c_report_gen;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        sl__mc_vgroup *vg = sl__mc_find_vgroup(cat, loads[i].vgroup_id);
        if (vg == NULL || vg->vg_vnode != id || vg->vg_load_gen == gen) {
            bad++;
            continue;
        }
        vg->vg_load = loads[i];
        vg->vg_load_node = id;
        vg->vg_load_gen = gen;
    }
    nd->n_reported = true;
    nd->n_counters = ctr != NULL ? *ctr : (sl_mcatalog_vnode_counters){0};
    if (ignored != NULL)
        *ignored = bad;
    return 0;
}

int sl_mcatalog_each_node(sl_mcatalog *cat, sl_mcatalog_node_fn fn, void *arg)
{
    for (uint32_t i = 0; i < cat->c_nnodes; i++) {
        sl_mcatalog_node v;
        node_view(cat->c_nodes[i], &v);
        int rc = fn(arg, &v);
        if (rc != 0)
            return rc;
    }
    return 0;
}
