/*
 * fuzz_changes_filter.c - libFuzzer target for a filtered VNODE_CHANGES request: the bytes
 * are a ChangesRequest as a peer sends it. Whatever they hold, the vnode's path must either
 * refuse them with an error (unpack, sl__vn_changes_filter_decode bounds, or
 * sl_vs_cfilter_compile against the trigger table's schema: indexes, the slot bitmap, the
 * PRE_FILTER text) or compile a filter, and then compute group ids without a crash, a leak
 * or an allocation the input does not justify. The schema is fixed: a super table
 * (ts TIMESTAMP, v BIGINT, s VARCHAR(16)) TAGS (loc VARCHAR(8), g INT).
 * Seeds: tests/fuzz/corpus/changes_filter/ (encoded ChangesRequests with filters).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnode-adapter/daemon/vrequest.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static const sl_field COLS[] = {
    {"ts", SL_T_TIMESTAMP, 0}, {"v", SL_T_BIGINT, 0}, {"s", SL_T_VARCHAR, 16}};
static const sl_field TAGS[] = {{"loc", SL_T_VARCHAR, 8}, {"g", SL_T_INT, 0}};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Sluice__ChangesRequest *rq = sluice__changes_request__unpack(NULL, size, data);
    if (rq == NULL)
        return 0;
    if (rq->filter != NULL) {
        sl_vs_filter_spec spec;
        sl_error err;
        sl_error_clear(&err);
        int rc = sl__vn_changes_filter_decode(rq, &spec, &err);
        CHECK(rc == 0 || (rc < 0 && err.code == rc && err.msg[0] != '\0'));
        if (rc == 0) {
            CHECK(spec.ngroup <= SL_VS_FILTER_MAX_GROUP && spec.nslots <= SL_VS_FILTER_MAX_SLOTS);
            CHECK(spec.slots_len == (spec.nslots + 7u) / 8u);
            CHECK(spec.nproj <= SL_VS_FILTER_MAX_PROJ);
            CHECK(spec.pre_filter_len <= SL_VS_FILTER_MAX_TEXT);
            sl_table_meta m = {.kind = SL_TABLE_SUPER, .db = "db", .name = "st",
                               .precision = SL_PREC_MS, .ncols = 3, .cols = COLS, .ntags = 2,
                               .tags = TAGS};
            sl_vs_cfilter *f = NULL;
            sl_error_clear(&err);
            rc = sl_vs_cfilter_compile(&spec, &m, &f, &err);
            CHECK((rc == 0) == (f != NULL));
            CHECK(rc == 0 || err.msg[0] != '\0');
            sl_vs_cfilter_free(f);
        }
    }
    uint32_t mb, wait;
    sl__vn_changes_bounds(rq, &mb, &wait);
    CHECK(mb > 0 && mb <= VN_CHANGES_MAX_BYTES && wait <= VN_CHANGES_MAX_WAIT_MS);
    sluice__changes_request__free_unpacked(rq, NULL);
    return 0;
}
