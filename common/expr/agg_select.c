/*
 * agg_select.c - FIRST, LAST and LAST_ROW: the aggregates that pick one row by timestamp.
 *
 * Each state remembers the timestamp of the row it picked and that row's value. Rows
 * arrive in any timestamp order (out-of-order writes, merges of vnodes), so the choice
 * is by comparison, with ties broken by arrival: FIRST keeps the earlier-seen row of equal
 * timestamps, LAST and LAST_ROW take the later-seen one. sl_agg_merge treats dst as the
 * earlier input, so merging partial states in input order reproduces one pass exactly.
 * FIRST and LAST skip NULL values; LAST_ROW picks NULL values too. Rows whose timestamp is
 * NULL are skipped by all three.
 *
 * For one group the best row of a range is found on the timestamps alone and its value
 * copied once; for many groups each row is compared with its group's state.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "agg_internal.h"

/* FIRST/LAST/LAST_ROW of a fixed-width type. */
typedef struct st_sel {
    int64_t ts;   /* timestamp of the picked row, valid when has */
    sl__val v;    /* its value, valid when has && !null */
    uint8_t has;  /* a row was picked */
    uint8_t null; /* the picked row's value is NULL (LAST_ROW only) */
} st_sel;

/* FIRST/LAST/LAST_ROW of VARCHAR/NCHAR. */
typedef struct st_sels {
    int64_t ts;   /* as in st_sel */
    sl__str s;    /* owned copy of the value, valid when has && !null */
    uint8_t has;  /* as in st_sel */
    uint8_t null; /* as in st_sel */
} st_sels;

#define FLAG_HAS 1
#define FLAG_NULL 2

static size_t sel_size(const sl_agg *a)
{
    return sl_type_is_var(a->arg_type) ? sizeof(st_sels) : sizeof(st_sel);
}

static void sel_fini(const sl_agg *a, void *st)
{
    if (sl_type_is_var(a->arg_type)) {
        st_sels *s = st;
        sl__str_free(&s->s);
        s->has = 0;
    }
}

/* True when a row with timestamp t replaces a state that picked a row at cur. */
static inline bool sel_better(bool first, int64_t t, int64_t cur)
{
    return first ? t < cur : t >= cur;
}

/* Offers physical row `row` of arg (timestamp t, NULL when vnull) to one state. */
static int sel_offer(const sl_agg *a, void *st, int64_t t, const sl_column *arg, uint32_t row,
                     bool vnull)
{
    bool first = a->kind == SL_AGG_FIRST;
    if (sl_type_is_var(a->arg_type)) {
        st_sels *s = st;
        if (s->has && !sel_better(first, t, s->ts))
            return 0;
        if (!vnull) {
            uint32_t len;
            const char *p = sl__col_str(arg, row, &len);
            int rc = sl__str_set(&s->s, p, len);
            if (rc != 0)
                return rc;
        }
        s->ts = t;
        s->has = 1;
        s->null = vnull;
        return 0;
    }
    st_sel *s = st;
    if (s->has && !sel_better(first, t, s->ts))
        return 0;
    if (!vnull)
        s->v = sl__col_val(arg, row);
    s->ts = t;
    s->has = 1;
    s->null = vnull;
    return 0;
}

/*
 * The grouped loop. STORE copies the value of physical row pr into state s and may
 * return SL_ENOMEM; the state's timestamp is only updated after it succeeded, so a
 * failure leaves the state as it was.
 */
#define SEL_GROUPED(STYPE, STORE)                                                            \
    do {                                                                                     \
        for (uint32_t k = 0; k < n; k++) {                                                   \
            uint32_t r = from + k;                                                           \
            if (tnb != NULL && sl__bit(tnb, r))                                              \
                continue;                                                                    \
            bool vnull = cnull || (anb != NULL && sl__bit(anb, r));                          \
            if (vnull && skip_null)                                                          \
                continue;                                                                    \
            int64_t t = tsv[r & tsm];                                                        \
            STYPE *s = SL__ST(STYPE, states, stride, gids, k);                               \
            if (s->has && !sel_better(first, t, s->ts))                                      \
                continue;                                                                    \
            if (!vnull) {                                                                    \
                uint32_t pr = r & am;                                                        \
                STORE;                                                                       \
            }                                                                                \
            s->ts = t;                                                                       \
            s->has = 1;                                                                      \
            s->null = vnull;                                                                 \
        }                                                                                    \
    } while (0)

#define SEL_CASE(TYPE, T, F, CONV)                                                           \
    case TYPE:                                                                               \
        SEL_GROUPED(st_sel, s->v.F = CONV(((const T *)arg->data)[pr]));                      \
        break

#define V_ID(x) (x)
#define V_BOOL(x) ((x) != 0)

static int sel_update(const sl_agg *a, uint8_t *states, size_t stride, const uint32_t *gids,
                      const sl_column *arg, const sl_column *ts, uint32_t from, uint32_t n)
{
    bool first = a->kind == SL_AGG_FIRST;
    bool skip_null = a->kind != SL_AGG_LAST_ROW;
    /* Constant columns index row 0 through a zero mask, so the loops have no branch on it. */
    uint32_t tsm = ts->is_const ? 0 : UINT32_MAX;
    uint32_t am = arg->is_const ? 0 : UINT32_MAX;
    if (ts->is_const && sl__const_null(ts))
        return 0;
    const uint8_t *tnb = ts->is_const ? NULL : sl__col_nulls(ts);
    bool cnull = arg->is_const && sl__const_null(arg);
    const uint8_t *anb = arg->is_const ? NULL : sl__col_nulls(arg);
    if (cnull && skip_null)
        return 0;
    const int64_t *tsv = ts->data;

    if (gids == NULL) {
        /* Pick the best row of the range on timestamps alone, then copy its value once. */
        const uint8_t *skip = skip_null ? anb : NULL;
        bool found = false;
        uint32_t best = 0;
        int64_t bts = 0;
        if (tnb == NULL && skip == NULL && tsm != 0) {
            const int64_t *tv = tsv + from;
            bts = tv[0];
            found = true;
            if (first) {
                for (uint32_t k = 1; k < n; k++)
                    if (tv[k] < bts) {
                        bts = tv[k];
                        best = k;
                    }
            } else {
                for (uint32_t k = 1; k < n; k++)
                    if (tv[k] >= bts) {
                        bts = tv[k];
                        best = k;
                    }
            }
        } else {
            for (uint32_t k = 0; k < n; k++) {
                uint32_t r = from + k;
                if ((tnb != NULL && sl__bit(tnb, r)) || (skip != NULL && sl__bit(skip, r)))
                    continue;
                int64_t t = tsv[r & tsm];
                if (!found || sel_better(first, t, bts)) {
                    found = true;
                    bts = t;
                    best = k;
                }
            }
        }
        if (!found)
            return 0;
        uint32_t r = from + best;
        bool vnull = cnull || (anb != NULL && sl__bit(anb, r));
        return sel_offer(a, states, bts, arg, r & am, vnull);
    }

    switch (a->arg_type) {
        SEL_CASE(SL_T_BOOL, uint8_t, u, V_BOOL);
        SEL_CASE(SL_T_TINYINT, int8_t, i, V_ID);
        SEL_CASE(SL_T_SMALLINT, int16_t, i, V_ID);
        SEL_CASE(SL_T_INT, int32_t, i, V_ID);
        SEL_CASE(SL_T_BIGINT, int64_t, i, V_ID);
        SEL_CASE(SL_T_TIMESTAMP, int64_t, i, V_ID);
        SEL_CASE(SL_T_UTINYINT, uint8_t, u, V_ID);
        SEL_CASE(SL_T_USMALLINT, uint16_t, u, V_ID);
        SEL_CASE(SL_T_UINT, uint32_t, u, V_ID);
        SEL_CASE(SL_T_UBIGINT, uint64_t, u, V_ID);
        SEL_CASE(SL_T_FLOAT, float, d, V_ID);
        SEL_CASE(SL_T_DOUBLE, double, d, V_ID);
    case SL_T_VARCHAR:
    case SL_T_NCHAR:
        SEL_GROUPED(st_sels, {
            uint32_t len;
            const char *p = sl__col_str(arg, pr, &len);
            if (sl__str_set(&s->s, p, len) != 0)
                return SL_ENOMEM;
        });
        break;
    default:
        assert(!"FIRST/LAST of an unknown type");
        break;
    }
    return 0;
}

static int sel_merge(const sl_agg *a, void *dst, const void *src)
{
    bool first = a->kind == SL_AGG_FIRST;
    if (sl_type_is_var(a->arg_type)) {
        st_sels *d = dst;
        const st_sels *s = src;
        if (!s->has || (d->has && !sel_better(first, s->ts, d->ts)))
            return 0;
        if (!s->null) {
            int rc = sl__str_set(&d->s, s->s.p, s->s.len);
            if (rc != 0)
                return rc;
        }
        d->ts = s->ts;
        d->has = 1;
        d->null = s->null;
        return 0;
    }
    st_sel *d = dst;
    const st_sel *s = src;
    if (s->has && (!d->has || sel_better(first, s->ts, d->ts)))
        *d = *s;
    return 0;
}

static int sel_finalize(const sl_agg *a, const void *st, sl_column *out, sl_error *err)
{
    if (sl_type_is_var(a->arg_type)) {
        const st_sels *s = st;
        if (!s->has || s->null)
            return sl_column_append_null(out);
        return sl_column_append_str(out, s->s.p != NULL ? s->s.p : "", s->s.len);
    }
    const st_sel *s = st;
    if (!s->has || s->null)
        return sl_column_append_null(out);
    return sl__append_val(out, a->arg_type, s->v);
}

/*
 * Encoding: one flags byte (FLAG_HAS, FLAG_NULL); when FLAG_HAS the timestamp (zig-zag
 * varint) and, unless FLAG_NULL, the value (or varint length and bytes for strings).
 */
static int sel_encode(const sl_agg *a, const void *st, sl_buf *out)
{
    bool var = sl_type_is_var(a->arg_type);
    const st_sel *s = st;
    const st_sels *ss = st;
    bool has = var ? ss->has : s->has, null = var ? ss->null : s->null;
    int64_t t = var ? ss->ts : s->ts;
    int rc = sl_buf_put_u8(out, (has ? FLAG_HAS : 0) | (null ? FLAG_NULL : 0));
    if (rc != 0 || !has)
        return rc;
    if ((rc = sl_buf_put_vari(out, t)) != 0 || null)
        return rc;
    return var ? sl__str_encode(out, ss->s.p, ss->s.len) : sl__val_encode(out, a->arg_type, s->v);
}

static int sel_decode(const sl_agg *a, void *st, sl_reader *r)
{
    uint8_t f;
    int64_t t = 0;
    int rc = sl_reader_u8(r, &f);
    if (rc != 0)
        return rc;
    bool has = f & FLAG_HAS, null = f & FLAG_NULL;
    /* Only LAST_ROW picks NULL values, and a NULL value needs a picked row. */
    if ((f & ~(FLAG_HAS | FLAG_NULL)) != 0 || (null && (!has || a->kind != SL_AGG_LAST_ROW)))
        return SL_ECORRUPT;
    if (has && (rc = sl_reader_vari(r, &t)) != 0)
        return rc;
    if (sl_type_is_var(a->arg_type)) {
        st_sels *s = st;
        if (has && !null && (rc = sl__str_decode(r, a->arg_type, &s->s)) != 0)
            return rc;
        s->ts = t;
        s->has = has;
        s->null = null;
        return 0;
    }
    st_sel *s = st;
    if (has && !null && (rc = sl__val_decode(r, a->arg_type, &s->v)) != 0)
        return rc;
    s->ts = t;
    s->has = has;
    s->null = null;
    return 0;
}

const sl__agg_ops sl__agg_select_ops = {
    .size = sel_size,
    .fini = sel_fini,
    .update = sel_update,
    .merge = sel_merge,
    .finalize = sel_finalize,
    .encode = sel_encode,
    .decode = sel_decode,
};
