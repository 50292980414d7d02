/*
 * vrequest.h - the vnode's request decoding, apart from the handlers that act on it:
 * turning a WriteRequest's items into blocks, bounding a ChangesRequest, parsing a
 * QueryRequest, and building a change's rows block. Nothing here touches the loop, the
 * RPC layer or a vstore, so the fuzz targets (tests/fuzz/fuzz_vnode_*.c, fuzz_rpc_request.c)
 * run exactly the code the daemon runs on a peer's bytes.
 */
#ifndef SL_VREQUEST_H
#define SL_VREQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "common/sql/parser.h"
#include "common/types/block.h"
#include "common/util/buf.h"
#include "common/util/error.h"
#include "vnode-adapter/storage/changes_filter.h"
#include "vnode-adapter/storage/vstore.h"
#include "vnode.pb-c.h"

/* Largest change-log page (bytes) and wait a poll may ask for. */
#define VN_CHANGES_MAX_BYTES (8u << 20)
#define VN_CHANGES_MAX_WAIT_MS 60000u

/* A decoded WriteRequest: one block and one write item per request item. */
typedef struct vn_write {
    sl_block *w_blocks;        /* owned, w_n + 1 entries; the first w_ndec initialised */
    sl_vs_write_item *w_items; /* owned, w_n + 1 entries; rows point into w_blocks */
    size_t w_n;                /* items of the request */
    size_t w_ndec;             /* blocks initialised (to finalise) */
    uint64_t w_rows;           /* rows over every item */
} vn_write;

/*
 * Decodes every item of rq (borrowed; must outlive nothing: blocks own their data) into
 * *w with sl_block_decode. Returns 0, SL_ENOMEM (err not set) or the first item's decode
 * error, with err set to "item <i>: <reason>". *w is always initialised and must be
 * released with sl__vn_write_fini, whatever the result.
 */
int sl__vn_write_decode(const Sluice__WriteRequest *rq, vn_write *w, sl_error *err);

/* Frees what sl__vn_write_decode allocated. NULL-safe. */
void sl__vn_write_fini(vn_write *w);

/* The page size and the long-poll wait of a ChangesRequest (borrowed), clamped to
 * VN_CHANGES_MAX_BYTES (0 also meaning the maximum) and VN_CHANGES_MAX_WAIT_MS. */
void sl__vn_changes_bounds(const Sluice__ChangesRequest *rq, uint32_t *max_bytes,
                           uint32_t *wait_ms);

/*
 * Checks the bounds of a ChangesRequest's filter (borrowed; rq->filter not NULL) and fills
 * *spec with views of it (valid while rq is): group items <= SL_VS_FILTER_MAX_GROUP, nslots
 * <= SL_VS_FILTER_MAX_SLOTS with a bitmap of exactly ceil(nslots/8) bytes, projection <=
 * SL_VS_FILTER_MAX_PROJ entries, PRE_FILTER text <= SL_VS_FILTER_MAX_TEXT bytes, table uid
 * not 0. Returns 0, or SL_EINVAL / SL_ELIMIT with err naming the field. Nothing is
 * allocated; the schema checks happen when the filter is compiled (sl_vs_cfilter_compile).
 */
int sl__vn_changes_filter_decode(const Sluice__ChangesRequest *rq, sl_vs_filter_spec *spec,
                                 sl_error *err);

/*
 * Parses the SQL of a QueryRequest (borrowed) and checks that it is exactly one SELECT.
 * Returns 0 and *out (caller frees it with sl_parse_result_free), or the parser's error,
 * or SL_EINVAL, with err set and *out NULL.
 */
int sl__vn_query_parse(const Sluice__QueryRequest *rq, sl_parse_result **out, sl_error *err);

/*
 * Encodes a ROWS change's block (c borrowed) into out (appended) with the per-row kind
 * column (TINYINT: 1 insert, 2 update) appended. Returns 0 or a negative sl_err code.
 */
int sl__vn_change_block(const sl_vs_change *c, sl_buf *out);

#endif
