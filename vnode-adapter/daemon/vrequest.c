/*
 * vrequest.c - decoding and bounding of the vnode's requests (see vrequest.h), kept apart
 * from the handlers so that what a peer's bytes reach can be fuzzed without a server.
 */
#include "vrequest.h"

#include <stdlib.h>
#include <string.h>

int sl__vn_write_decode(const Sluice__WriteRequest *rq, vn_write *w, sl_error *err)
{
    memset(w, 0, sizeof(*w));
    w->w_n = rq->n_items;
    w->w_blocks = calloc(rq->n_items + 1, sizeof(*w->w_blocks));
    w->w_items = calloc(rq->n_items + 1, sizeof(*w->w_items));
    if (w->w_blocks == NULL || w->w_items == NULL)
        return SL_ENOMEM;
    for (size_t i = 0; i < rq->n_items; i++) {
        sl_block_init(&w->w_blocks[i]);
        w->w_ndec++;
        sl_error e = {0};
        int rc = sl_block_decode(rq->items[i]->block.data, rq->items[i]->block.len,
                                 &w->w_blocks[i], &e);
        if (rc < 0)
            return sl_error_set(err, rc, 0, 0, "item %zu: %s", i, e.msg);
        w->w_items[i].uid = rq->items[i]->uid;
        w->w_items[i].rows = &w->w_blocks[i];
        w->w_rows += w->w_blocks[i].nrows;
    }
    return 0;
}

void sl__vn_write_fini(vn_write *w)
{
    if (w == NULL)
        return;
    for (size_t i = 0; i < w->w_ndec; i++)
        sl_block_fini(&w->w_blocks[i]);
    free(w->w_blocks);
    free(w->w_items);
    memset(w, 0, sizeof(*w));
}

void sl__vn_changes_bounds(const Sluice__ChangesRequest *rq, uint32_t *max_bytes,
                           uint32_t *wait_ms)
{
    *max_bytes = rq->max_bytes == 0 || rq->max_bytes > VN_CHANGES_MAX_BYTES ? VN_CHANGES_MAX_BYTES
                                                                           : rq->max_bytes;
    *wait_ms = rq->wait_ms > VN_CHANGES_MAX_WAIT_MS ? VN_CHANGES_MAX_WAIT_MS : rq->wait_ms;
}

int sl__vn_changes_filter_decode(const Sluice__ChangesRequest *rq, sl_vs_filter_spec *spec,
                                 sl_error *err)
{
    const Sluice__ChangesFilter *f = rq->filter;
    memset(spec, 0, sizeof(*spec));
    if (f->table_uid == 0)
        return sl_error_set(err, SL_EINVAL, 0, 0, "change filter: table_uid is 0");
    if (f->n_group_items > SL_VS_FILTER_MAX_GROUP)
        return sl_error_set(err, SL_ELIMIT, 0, 0, "change filter: %zu group items (at most %u)",
                            f->n_group_items, SL_VS_FILTER_MAX_GROUP);
    if (f->nslots > SL_VS_FILTER_MAX_SLOTS)
        return sl_error_set(err, SL_ELIMIT, 0, 0, "change filter: %u slots (at most %u)",
                            f->nslots, SL_VS_FILTER_MAX_SLOTS);
    if (f->slots.len != (f->nslots + 7u) / 8u)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "change filter: slot bitmap of %zu bytes for %u slots (needs %u)",
                            f->slots.len, f->nslots, (f->nslots + 7u) / 8u);
    if (f->n_proj > SL_VS_FILTER_MAX_PROJ)
        return sl_error_set(err, SL_ELIMIT, 0, 0,
                            "change filter: %zu projection entries (at most %u)", f->n_proj,
                            SL_VS_FILTER_MAX_PROJ);
    size_t tl = f->pre_filter != NULL ? strlen(f->pre_filter) : 0;
    if (tl > SL_VS_FILTER_MAX_TEXT)
        return sl_error_set(err, SL_ELIMIT, 0, 0,
                            "change filter: PRE_FILTER of %zu bytes (at most %u)", tl,
                            SL_VS_FILTER_MAX_TEXT);
    spec->table_uid = f->table_uid;
    spec->ngroup = (uint32_t)f->n_group_items;
    spec->group = f->group_items;
    spec->rollup = f->rollup;
    spec->nslots = f->nslots;
    spec->slots = f->slots.data;
    spec->slots_len = f->slots.len;
    spec->nproj = (uint32_t)f->n_proj;
    spec->proj = f->proj;
    spec->pre_filter = tl ? f->pre_filter : NULL;
    spec->pre_filter_len = tl;
    return 0;
}

int sl__vn_query_parse(const Sluice__QueryRequest *rq, sl_parse_result **out, sl_error *err)
{
    sl_parse_result *pr = NULL;
    *out = NULL;
    int rc = sl_parse(rq->sql, strlen(rq->sql), &pr, err);
    if (rc < 0)
        return rc;
    if (pr->nstmts != 1 || pr->stmts[0]->kind != SL_STMT_SELECT) {
        sl_parse_result_free(pr);
        return sl_error_set(err, SL_EINVAL, 0, 0, "VNODE_QUERY takes exactly one SELECT");
    }
    *out = pr;
    return 0;
}

int sl__vn_change_block(const sl_vs_change *c, sl_buf *out)
{
    sl_block b;
    sl_block_init(&b);
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < c->rows.ncols; i++) {
        const sl_column *src = &c->rows.cols[i];
        rc = sl_block_add_column(&b, src->type, src->width);
        if (rc >= 0)
            rc = sl_column_borrow(&b.cols[rc], src, 0, c->rows.nrows);
    }
    if (rc >= 0)
        rc = sl_block_add_column(&b, SL_T_TINYINT, 0);
    for (uint32_t r = 0; rc >= 0 && r < c->rows.nrows; r++)
        rc = sl_column_append_i64(&b.cols[b.ncols - 1],
                                  c->row_kinds[r] == SL_VS_ROW_UPDATE ? 2 : 1);
    if (rc >= 0) {
        sl_block_seal(&b);
        rc = sl_block_encode(&b, out);
    }
    sl_block_fini(&b);
    return rc < 0 ? rc : 0;
}
