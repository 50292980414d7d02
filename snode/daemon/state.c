/*
 * state.c - the snode's small durable state: a RocksDB (through common/kv) at
 * DATA/state holding the node id the mnode gave it, so a restarted snode asks for the same
 * id (the mnode also maps its address to the id). Window state, the notification outbox
 * and local checkpoints will live in the same database, in their own column families,
 * when stream execution lands. The database's lock also keeps two snodes off one --data.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "common/util/log.h"
#include "sdaemon.h"

static const char K_NODE_ID[] = "node_id";

int sl__sn_state_open(sl_sdaemon *sd, sl_error *err)
{
    char path[1100];
    snprintf(path, sizeof(path), "%s/state", sd->sd_data);
    static const char *const cfs[] = {"outbox"}; /* notifications (notify.c) */
    int rc = sl_kv_open(&sd->sd_kv, path, NULL, cfs, 1, err);
    if (rc < 0)
        return rc;
    sl_buf v;
    sl_buf_init(&v);
    rc = sl_kv_get(sd->sd_kv, sl_kv_cf_default(sd->sd_kv), NULL, K_NODE_ID, sizeof(K_NODE_ID) - 1,
                   &v, err);
    if (rc == 0 && v.len == 4) {
        sd->sd_node_id = (uint32_t)v.data[0] << 24 | (uint32_t)v.data[1] << 16 |
                         (uint32_t)v.data[2] << 8 | (uint32_t)v.data[3];
        sl_log(SL_LOG_INFO, "snode", "node state loaded node_id=%u", sd->sd_node_id);
    } else if (rc == 0) {
        sl_log(SL_LOG_WARN, "snode", "ignoring a malformed node id in %s (%zu bytes)", path,
               v.len);
    }
    sl_buf_fini(&v);
    if (rc == SL_ENOTFOUND)
        rc = 0;
    if (rc < 0) {
        sl_kv_close(sd->sd_kv);
        sd->sd_kv = NULL;
    }
    return rc;
}

void sl__sn_state_save(sl_sdaemon *sd)
{
    if (sd->sd_kv == NULL)
        return;
    uint8_t v[4] = {(uint8_t)(sd->sd_node_id >> 24), (uint8_t)(sd->sd_node_id >> 16),
                    (uint8_t)(sd->sd_node_id >> 8), (uint8_t)sd->sd_node_id};
    sl_error err = {0};
    sl_error_clear(&err);
    if (sl_kv_put(sd->sd_kv, sl_kv_cf_default(sd->sd_kv), K_NODE_ID, sizeof(K_NODE_ID) - 1, v,
                  sizeof(v), &err) < 0)
        sl_log(SL_LOG_WARN, "snode", "cannot save node_id=%u: %s", sd->sd_node_id, err.msg);
}

void sl__sn_state_close(sl_sdaemon *sd)
{
    sl_kv_close(sd->sd_kv);
    sd->sd_kv = NULL;
}
