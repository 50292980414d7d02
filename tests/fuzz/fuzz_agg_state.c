/*
 * fuzz_agg_state.c - libFuzzer target for the aggregate partial-state decoder, which reads
 * states sent by storage nodes. The first two bytes choose the aggregate and its argument
 * type; the rest is decoded as a state. A state that decodes must finalize, merge and
 * re-encode without error other than overflow, and decode again to the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/expr/agg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    sl_agg_kind k = (sl_agg_kind)(data[0] % SL_AGG__COUNT);
    sl_type t = (sl_type)(1 + data[1] % (SL_T__COUNT - 1));
    sl_agg *a;
    if (sl_agg_create(k, t, sl_type_is_var(t) ? 64 : 0, &a, NULL) != 0)
        return 0;
    size_t sz = sl_agg_state_size(a);
    uint8_t *st = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    uint8_t *st2 = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    sl_agg_state_init(a, st);
    sl_agg_state_init(a, st2);
    sl_reader r;
    sl_reader_init(&r, data + 2, size - 2);
    if (sl_agg_state_decode(a, st, &r) == 0) {
        sl_column out;
        sl_column_init(&out, sl_agg_result_type(a), sl_agg_result_width(a));
        sl_error err;
        sl_error_clear(&err);
        int rc = sl_agg_finalize(a, st, &out, &err);
        if (rc != 0 && rc != SL_EOVERFLOW)
            abort();
        sl_column_fini(&out);
        sl_buf b1, b2;
        sl_buf_init(&b1);
        sl_buf_init(&b2);
        if (sl_agg_state_encode(a, st, &b1) != 0)
            abort();
        sl_reader r2;
        sl_reader_init(&r2, b1.data, b1.len);
        if (sl_agg_state_decode(a, st2, &r2) != 0 || sl_reader_left(&r2) != 0)
            abort();
        if (sl_agg_state_encode(a, st2, &b2) != 0 || b1.len != b2.len ||
            memcmp(b1.data, b2.data, b1.len) != 0)
            abort();
        sl_agg_merge(a, st2, st);
        sl_buf_fini(&b1);
        sl_buf_fini(&b2);
    }
    sl_agg_state_fini(a, st);
    sl_agg_state_fini(a, st2);
    free(st);
    free(st2);
    sl_agg_free(a);
    return 0;
}
