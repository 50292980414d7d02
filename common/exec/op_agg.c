/*
 * op_agg.c - hash aggregation with PARTITION BY / GROUP BY keys and INTERVAL windows.
 *
 * The operator maps every input row to a group in two steps. First its key (the encoded
 * values of the key expressions) becomes a partition id through a key map; when every
 * key column of a block is constant (tags and tbname from a scan are), that happens once
 * per block instead of once per row. Then, with a window, (partition id, window start)
 * becomes the group id, through a one-entry cache (rows of a table arrive in time order,
 * so consecutive rows mostly share a window) in front of a second key map. The rows'
 * group ids go to sl_agg_update, which folds whole blocks into the per-group states
 * (one contiguous record per group holding every aggregate's state).
 *
 * With SLIDING smaller than INTERVAL a row falls into several windows: the block is
 * folded once per overlap k (window start = latest start - k*sliding), rows that are not
 * in their k-th window going to a scratch group that is never output.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../util/keymap.h"
#include "../util/timeutil.h"
#include "exec_int.h"

#define NO_PART UINT32_MAX

typedef struct op_agg {
    sl_op op;
    sl_agg_mode mode;
    int nkeys;
    sl_cexpr **keys;
    sl_window_spec win;
    int naggs;
    sl_agg_spec *specs;
    sl_agg **aggs;
    size_t *off;         /* offset of aggregate j's state in a group record */
    size_t stride;       /* bytes of one group record */
    sl_keymap pmap;      /* key bytes -> partition id */
    sl_block pkeys;      /* key values, one row per partition id */
    struct pwin *pw;     /* per partition: its windows' starts and groups, by start */
    uint32_t npw;        /* partitions with a window index */
    uint8_t *states;     /* group records */
    uint32_t ngroups;
    uint32_t capgroups;
    uint32_t *g_part;    /* group -> partition id (NO_PART: scratch group) */
    int64_t *g_ws;       /* group -> window start */
    uint32_t scratch;    /* the scratch group, or UINT32_MAX before it exists */
    uint32_t *rows_part; /* per input row: partition id */
    uint32_t *gids;      /* per input row: group id (short runs only) */
    uint32_t *run_from;  /* runs of rows sharing a group: first row of run r */
    uint32_t *run_gid;   /* ... and its group */
    uint32_t nruns;
    uint32_t rowcap;
    const sl_column **kc;
    sl_buf kb;
    sl_buf sb;           /* PARTIAL: encoded state scratch */
    uint8_t *tmpstate;   /* MERGE: one decoded state */
    bool done;
    uint32_t *order;     /* output order of groups */
    uint32_t norder;
    uint32_t pos;
    sl_block blk;
} op_agg;

static int oom(sl_error *err)
{
    return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
}

/* Adds a group for (part, ws) with freshly initialised states; returns its id. */
static int group_new(op_agg *a, uint32_t part, int64_t ws, uint32_t *gid)
{
    if (a->ngroups == a->capgroups) {
        uint32_t ncap = a->capgroups ? a->capgroups * 2 : 256;
        uint8_t *s = realloc(a->states, a->stride * ncap);
        if (s == NULL)
            return SL_ENOMEM;
        a->states = s;
        uint32_t *gp = realloc(a->g_part, sizeof(uint32_t) * ncap);
        if (gp == NULL)
            return SL_ENOMEM;
        a->g_part = gp;
        int64_t *gw = realloc(a->g_ws, sizeof(int64_t) * ncap);
        if (gw == NULL)
            return SL_ENOMEM;
        a->g_ws = gw;
        a->capgroups = ncap;
    }
    uint32_t g = a->ngroups++;
    uint8_t *rec = a->states + a->stride * g;
    for (int j = 0; j < a->naggs; j++)
        sl_agg_state_init(a->aggs[j], rec + a->off[j]);
    a->g_part[g] = part;
    a->g_ws[g] = ws;
    *gid = g;
    return 0;
}

/* Partition id of row i of the current key columns (adding a new partition). */
static int part_of(op_agg *a, uint32_t i, uint32_t *part)
{
    sl_buf_reset(&a->kb);
    if (sl__key_bytes(a->kc, a->nkeys, i, &a->kb) != 0)
        return SL_ENOMEM;
    bool added;
    if (sl_keymap_get_or_add(&a->pmap, a->kb.data, a->kb.len, part, &added) != 0)
        return SL_ENOMEM;
    if (added) {
        for (int k = 0; k < a->nkeys; k++) {
            sl_value v;
            sl_column_get(a->kc[k], i, &v);
            if (sl_column_append_value(&a->pkeys.cols[k], &v) != 0)
                return SL_ENOMEM;
        }
        a->pkeys.nrows++;
        if (a->win.enabled == false) {
            uint32_t g;
            if (group_new(a, *part, 0, &g) != 0)
                return SL_ENOMEM;
        }
    }
    return 0;
}

/*
 * The windows of one partition, sorted by start. Rows of a table arrive in time order, so
 * a new window almost always goes at the end and a lookup almost always hits the last
 * entry; rows out of order binary-search and insert in the middle.
 */
typedef struct pwin {
    int64_t *ws;
    uint32_t *gid;
    uint32_t n;
    uint32_t cap;
} pwin;

/* Group id of window ws of partition part (creating the group when new). */
static int window_group(op_agg *a, uint32_t part, int64_t ws, uint32_t *gid)
{
    if (part >= a->npw) {
        uint32_t ncap = a->npw ? a->npw : 16;
        while (ncap <= part)
            ncap *= 2;
        pwin *np = realloc(a->pw, sizeof(pwin) * ncap);
        if (np == NULL)
            return SL_ENOMEM;
        memset(np + a->npw, 0, sizeof(pwin) * (ncap - a->npw));
        a->pw = np;
        a->npw = ncap;
    }
    pwin *w = &a->pw[part];
    uint32_t at = w->n;
    if (w->n > 0 && ws <= w->ws[w->n - 1]) {
        if (ws == w->ws[w->n - 1]) {
            *gid = w->gid[w->n - 1];
            return 0;
        }
        uint32_t lo = 0, hi = w->n;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (w->ws[mid] < ws)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < w->n && w->ws[lo] == ws) {
            *gid = w->gid[lo];
            return 0;
        }
        at = lo;
    }
    if (w->n == w->cap) {
        uint32_t ncap = w->cap ? w->cap * 2 : 8;
        int64_t *nws = realloc(w->ws, sizeof(int64_t) * ncap);
        if (nws == NULL)
            return SL_ENOMEM;
        w->ws = nws;
        uint32_t *ng = realloc(w->gid, sizeof(uint32_t) * ncap);
        if (ng == NULL)
            return SL_ENOMEM;
        w->gid = ng;
        w->cap = ncap;
    }
    uint32_t g;
    if (group_new(a, part, ws, &g) != 0)
        return SL_ENOMEM;
    memmove(w->ws + at + 1, w->ws + at, sizeof(int64_t) * (w->n - at));
    memmove(w->gid + at + 1, w->gid + at, sizeof(uint32_t) * (w->n - at));
    w->ws[at] = ws;
    w->gid[at] = g;
    w->n++;
    *gid = g;
    return 0;
}

static int ensure_rows(op_agg *a, uint32_t n)
{
    if (n + 1 <= a->rowcap)
        return 0;
    uint32_t cap = n + 1;
    uint32_t *p = realloc(a->rows_part, sizeof(uint32_t) * cap);
    if (p == NULL)
        return SL_ENOMEM;
    a->rows_part = p;
    if ((p = realloc(a->gids, sizeof(uint32_t) * cap)) == NULL)
        return SL_ENOMEM;
    a->gids = p;
    if ((p = realloc(a->run_from, sizeof(uint32_t) * cap)) == NULL)
        return SL_ENOMEM;
    a->run_from = p;
    if ((p = realloc(a->run_gid, sizeof(uint32_t) * cap)) == NULL)
        return SL_ENOMEM;
    a->run_gid = p;
    a->rowcap = cap;
    return 0;
}

/* Records that rows from `from` on (until the next run) belong to group gid. */
static inline void run_add(op_agg *a, uint32_t from, uint32_t gid)
{
    if (a->nruns > 0 && a->run_gid[a->nruns - 1] == gid)
        return;
    a->run_from[a->nruns] = from;
    a->run_gid[a->nruns] = gid;
    a->nruns++;
}

/*
 * Folds the block's rows into their groups, given as runs of consecutive rows. Rows of a
 * table arrive in time order, so runs are long (a window's rows): each run is folded with
 * the aggregates' single-group loops, which keep the state in registers. When runs are
 * short the rows are scattered by a per-row group vector instead.
 */
static int fold_runs(op_agg *a, const sl_block *in, uint32_t nr, sl_error *err)
{
    bool by_run = (uint64_t)a->nruns * 16 <= nr;
    if (!by_run) {
        for (uint32_t r = 0; r < a->nruns; r++) {
            uint32_t to = r + 1 < a->nruns ? a->run_from[r + 1] : nr;
            for (uint32_t i = a->run_from[r]; i < to; i++)
                a->gids[i] = a->run_gid[r];
        }
    }
    for (int j = 0; j < a->naggs; j++) {
        const sl_column *arg = NULL, *ts = NULL;
        if (a->specs[j].arg != NULL) {
            int rc = sl_cexpr_eval(a->specs[j].arg, in, &arg, err);
            if (rc != 0)
                return rc;
        }
        if (a->specs[j].ts_col >= 0)
            ts = &in->cols[a->specs[j].ts_col];
        uint8_t *base = a->states + a->off[j];
        if (!by_run) {
            if (sl_agg_update(a->aggs[j], base, a->stride, a->gids, arg, ts, 0, nr) != 0)
                return oom(err);
            continue;
        }
        for (uint32_t r = 0; r < a->nruns; r++) {
            uint32_t from = a->run_from[r];
            uint32_t to = r + 1 < a->nruns ? a->run_from[r + 1] : nr;
            if (sl_agg_update(a->aggs[j], base + a->stride * a->run_gid[r], a->stride, NULL,
                              arg, ts, from, to - from) != 0)
                return oom(err);
        }
    }
    return 0;
}

/* The scratch group (rows outside their k-th sliding window), created on first use. */
static int scratch_group(op_agg *a, uint32_t *gid)
{
    if (a->scratch == UINT32_MAX && group_new(a, NO_PART, INT64_MIN, &a->scratch) != 0)
        return SL_ENOMEM;
    *gid = a->scratch;
    return 0;
}

/* MERGE: folds rows of partial states (PARTIAL's output) into the groups. */
static int consume_partial(op_agg *a, const sl_block *in, sl_error *err)
{
    uint32_t nr = in->nrows;
    for (int k = 0; k < a->nkeys; k++) {
        int rc = sl_cexpr_eval(a->keys[k], in, &a->kc[k], err);
        if (rc != 0)
            return rc;
    }
    int scol = a->nkeys + (a->win.enabled ? 3 : 0);
    if ((uint32_t)(scol + a->naggs) > in->ncols)
        return sl_error_set(err, SL_ECORRUPT, 0, 0,
                            "partial aggregate block has %u columns, expected %d", in->ncols,
                            scol + a->naggs);
    for (uint32_t i = 0; i < nr; i++) {
        uint32_t part, gid;
        if (part_of(a, i, &part) != 0)
            return oom(err);
        if (a->win.enabled) {
            const sl_column *wc = &in->cols[a->nkeys];
            if (wc->type != SL_T_TIMESTAMP || sl_column_is_null(wc, i))
                return sl_error_set(err, SL_ECORRUPT, 0, 0, "partial aggregate without window");
            if (window_group(a, part, sl_column_get_i64(wc, i), &gid) != 0)
                return oom(err);
        } else {
            gid = part;
        }
        uint8_t *rec = a->states + a->stride * gid;
        for (int j = 0; j < a->naggs; j++) {
            const sl_column *sc = &in->cols[scol + j];
            if (!sl_type_is_var(sc->type) || sl_column_is_null(sc, i))
                return sl_error_set(err, SL_ECORRUPT, 0, 0, "partial aggregate state missing");
            uint32_t len;
            const char *p = sl_column_get_str(sc, i, &len);
            sl_reader r;
            sl_reader_init(&r, p, len);
            sl_agg_state_init(a->aggs[j], a->tmpstate);
            int rc = sl_agg_state_decode(a->aggs[j], a->tmpstate, &r);
            if (rc == 0 && sl_reader_left(&r) != 0)
                rc = SL_ECORRUPT;
            if (rc == 0)
                rc = sl_agg_merge(a->aggs[j], rec + a->off[j], a->tmpstate);
            sl_agg_state_fini(a->aggs[j], a->tmpstate);
            if (rc != 0)
                return rc == SL_ENOMEM ? oom(err)
                                       : sl_error_set(err, SL_ECORRUPT, 0, 0,
                                                      "malformed partial state of %s",
                                                      sl_agg_name(a->specs[j].kind));
        }
    }
    return 0;
}

static int consume(op_agg *a, const sl_block *in, sl_error *err)
{
    if (a->mode == SL_AGG_MODE_MERGE)
        return consume_partial(a, in, err);
    uint32_t nr = in->nrows;
    if (nr == 0)
        return 0;
    if (ensure_rows(a, nr) != 0)
        return oom(err);
    bool const_part = true;
    for (int k = 0; k < a->nkeys; k++) {
        int rc = sl_cexpr_eval(a->keys[k], in, &a->kc[k], err);
        if (rc != 0)
            return rc;
        const_part &= a->kc[k]->is_const;
    }
    /* Partition of every row: once per block when the keys are constant in it. */
    uint32_t part0 = 0;
    if (const_part) {
        if ((a->nkeys > 0 || a->pmap.km_count == 0) && part_of(a, 0, &part0) != 0)
            return oom(err);
    } else {
        for (uint32_t i = 0; i < nr; i++)
            if (part_of(a, i, &a->rows_part[i]) != 0)
                return oom(err);
    }
    if (!a->win.enabled) {
        /* Without a window the group is the partition (both dense, same order). */
        a->nruns = 0;
        for (uint32_t i = 0; i < nr; i++)
            run_add(a, i, const_part ? part0 : a->rows_part[i]);
        return fold_runs(a, in, nr, err);
    }
    const sl_column *tsc = &in->cols[a->win.ts_col];
    const int64_t *ts = tsc->data;
    uint32_t tstride = tsc->is_const ? 0 : 1; /* a constant ts column: row 0 for all */
    int64_t iv = a->win.interval, sl = a->win.sliding, off = a->win.offset;
    int64_t overlaps = (iv + sl - 1) / sl;
    /* The common block (one table's rows from a scan) has non-NULL, ascending timestamps
     * and one partition: then each step's end is found by binary search, not row by row. */
    bool fast = const_part && !tsc->has_nulls && !tsc->is_const;
    for (uint32_t i = 1; fast && i < nr; i++)
        fast = ts[i] >= ts[i - 1];
    for (int64_t k = 0; k < overlaps; k++) {
        a->nruns = 0;
        uint32_t i = 0;
        while (i < nr) {
            uint32_t part = const_part ? part0 : a->rows_part[i];
            uint32_t gid;
            if (sl_column_is_null(tsc, i)) {
                /* A row without a timestamp (possible from a subquery) is in no window. */
                if (scratch_group(a, &gid) != 0)
                    return oom(err);
                run_add(a, i, gid);
                i++;
                continue;
            }
            /* The sliding step [base, base + sl) holding row i, and the rows after it that
             * stay in the same step and partition, in ascending time order (the split below
             * needs it; a subquery may deliver rows in any order): they share every window. */
            int64_t t = ts[i * tstride];
            int64_t base = t - sl_floormod(t - off, sl);
            int64_t ws = base - k * sl;
            uint32_t j = i + 1;
            if (fast) {
                uint32_t lo = j, hi = nr; /* first row at or past base + sl */
                while (lo < hi) {
                    uint32_t mid = lo + (hi - lo) / 2;
                    if (ts[mid] - base < sl)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                j = lo;
            }
            while (!fast && j < nr && !sl_column_is_null(tsc, j) &&
                   ts[j * tstride] >= ts[(j - 1) * tstride] && ts[j * tstride] - base < sl &&
                   (const_part || a->rows_part[j] == part))
                j++;
            /* Within the step, rows at or past ws + iv are not in the k-th window. */
            uint32_t split = j;
            if ((k + 1) * sl > iv) {
                split = i;
                while (split < j && ts[split * tstride] < ws + iv)
                    split++;
            }
            if (split > i) {
                if (window_group(a, part, ws, &gid) != 0)
                    return oom(err);
                run_add(a, i, gid);
            }
            if (split < j) {
                if (scratch_group(a, &gid) != 0)
                    return oom(err);
                run_add(a, split, gid);
            }
            i = j;
        }
        if (a->nruns == 1 && k > 0 && a->run_gid[0] == a->scratch)
            continue; /* no row has a k-th window in this block */
        int rc = fold_runs(a, in, nr, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int finish_input(op_agg *a, sl_error *err)
{
    if (a->ngroups == 0 && a->nkeys == 0 && !a->win.enabled) {
        /* An aggregate over no rows still has one result row. */
        uint32_t part;
        if (part_of(a, 0, &part) != 0)
            return oom(err);
    }
    a->order = malloc(sizeof(uint32_t) * ((size_t)a->ngroups + 1));
    if (a->order == NULL)
        return oom(err);
    a->norder = 0;
    if (!a->win.enabled) {
        for (uint32_t g = 0; g < a->ngroups; g++)
            a->order[a->norder++] = g;
        return 0;
    }
    /* Partitions in order of first appearance, each one's windows by start. */
    for (uint32_t p = 0; p < a->npw; p++)
        for (uint32_t k = 0; k < a->pw[p].n; k++)
            a->order[a->norder++] = a->pw[p].gid[k];
    return 0;
}

static int emit(op_agg *a, sl_block **out, sl_error *err)
{
    *out = NULL;
    if (a->pos >= a->norder)
        return 0;
    uint32_t n = a->norder - a->pos;
    if (n > SL_BLOCK_ROWS_MAX)
        n = SL_BLOCK_ROWS_MAX;
    sl_block_reset(&a->blk);
    const uint32_t *gs = a->order + a->pos;
    uint32_t c = 0;
    uint32_t *sel = malloc(sizeof(uint32_t) * n);
    if (sel == NULL)
        return oom(err);
    for (uint32_t i = 0; i < n; i++)
        sel[i] = a->g_part[gs[i]];
    for (int k = 0; k < a->nkeys; k++, c++)
        if (sl_column_append_rows(&a->blk.cols[c], &a->pkeys.cols[k], sel, 0, n) != 0) {
            free(sel);
            return oom(err);
        }
    free(sel);
    if (a->win.enabled) {
        for (uint32_t i = 0; i < n; i++) {
            int64_t ws = a->g_ws[gs[i]];
            if (sl_column_append_i64(&a->blk.cols[c], ws) != 0 ||
                sl_column_append_i64(&a->blk.cols[c + 1], ws + a->win.interval) != 0 ||
                sl_column_append_i64(&a->blk.cols[c + 2], a->win.interval) != 0)
                return oom(err);
        }
        c += 3;
    }
    for (int j = 0; j < a->naggs; j++, c++) {
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *st = a->states + a->stride * gs[i] + a->off[j];
            int rc;
            if (a->mode == SL_AGG_MODE_PARTIAL) {
                sl_buf_reset(&a->sb);
                rc = sl_agg_state_encode(a->aggs[j], st, &a->sb);
                if (rc == 0)
                    rc = sl_column_append_str(&a->blk.cols[c], (const char *)a->sb.data,
                                              (uint32_t)a->sb.len);
                if (rc != 0)
                    return oom(err);
                continue;
            }
            rc = sl_agg_finalize(a->aggs[j], st, &a->blk.cols[c], err);
            if (rc != 0)
                return rc;
        }
    }
    a->blk.nrows = n;
    a->pos += n;
    *out = &a->blk;
    return 0;
}

static int agg_next(sl_op *o, sl_block **out, sl_error *err)
{
    op_agg *a = (op_agg *)o;
    if (!a->done) {
        for (;;) {
            sl_block *in;
            int rc = sl_op_next(o->child, &in, err);
            if (rc != 0)
                return rc;
            if (in == NULL)
                break;
            if ((rc = consume(a, in, err)) != 0)
                return rc;
        }
        a->done = true;
        int rc = finish_input(a, err);
        if (rc != 0)
            return rc;
    }
    return emit(a, out, err);
}

static void agg_free(sl_op *o)
{
    op_agg *a = (op_agg *)o;
    sl_op_free(o->child);
    for (int k = 0; k < a->nkeys; k++)
        sl_cexpr_free(a->keys[k]);
    free(a->keys);
    if (a->states != NULL)
        for (uint32_t g = 0; g < a->ngroups; g++)
            for (int j = 0; j < a->naggs; j++)
                sl_agg_state_fini(a->aggs[j], a->states + a->stride * g + a->off[j]);
    for (int j = 0; j < a->naggs; j++) {
        sl_cexpr_free(a->specs[j].arg);
        sl_agg_free(a->aggs ? a->aggs[j] : NULL);
    }
    free(a->specs);
    free(a->aggs);
    free(a->off);
    sl_keymap_fini(&a->pmap);
    for (uint32_t p = 0; p < a->npw; p++) {
        free(a->pw[p].ws);
        free(a->pw[p].gid);
    }
    free(a->pw);
    sl_block_fini(&a->pkeys);
    free(a->states);
    free(a->g_part);
    free(a->g_ws);
    free(a->rows_part);
    free(a->gids);
    free(a->run_from);
    free(a->run_gid);
    free(a->kc);
    free(a->order);
    free(a->tmpstate);
    sl_buf_fini(&a->kb);
    sl_buf_fini(&a->sb);
    sl_block_fini(&a->blk);
    free(a);
}

static int agg_describe(const sl_op *o, sl_buf *out)
{
    const op_agg *a = (const op_agg *)o;
    static const char *modes[] = {"", "partial ", "merge "};
    int rc = sl_buf_printf(out, "%skeys=%d aggs=", modes[a->mode], a->nkeys);
    for (int j = 0; j < a->naggs && rc == 0; j++)
        rc = sl_buf_printf(out, "%s%s", j ? "," : "", sl_agg_name(a->specs[j].kind));
    if (rc == 0 && a->win.enabled)
        rc = sl_buf_printf(out, " interval=%lld sliding=%lld offset=%lld",
                           (long long)a->win.interval, (long long)a->win.sliding,
                           (long long)a->win.offset);
    return rc;
}

static const sl_op_vt agg_vt = {
    .name = "Aggregate", .next = agg_next, .free = agg_free, .describe = agg_describe};

int sl_op_agg_new(sl_op *child, sl_agg_mode mode, int nkeys, sl_cexpr **keys,
                  const sl_window_spec *win, int naggs, sl_agg_spec *aggs, sl_op **out,
                  sl_error *err)
{
    op_agg *a = calloc(1, sizeof(*a));
    int rc = 0;
    if (a == NULL) {
        sl_op_free(child);
        for (int k = 0; k < nkeys; k++)
            sl_cexpr_free(keys[k]);
        for (int j = 0; j < naggs; j++)
            sl_cexpr_free(aggs[j].arg);
        return oom(err);
    }
    a->op.vt = &agg_vt;
    a->op.child = child;
    a->mode = mode;
    a->scratch = UINT32_MAX;
    sl_block_init(&a->pkeys);
    sl_block_init(&a->blk);
    a->keys = calloc((size_t)nkeys + 1, sizeof(sl_cexpr *));
    a->kc = calloc((size_t)nkeys + 1, sizeof(sl_column *));
    a->specs = calloc((size_t)naggs + 1, sizeof(sl_agg_spec));
    a->aggs = calloc((size_t)naggs + 1, sizeof(sl_agg *));
    a->off = calloc((size_t)naggs + 1, sizeof(size_t));
    bool pm = sl_keymap_init(&a->pmap) == 0;
    if (a->keys == NULL || a->kc == NULL || a->specs == NULL || a->aggs == NULL ||
        a->off == NULL || !pm) {
        for (int k = 0; k < nkeys; k++)
            sl_cexpr_free(keys[k]);
        for (int j = 0; j < naggs; j++)
            sl_cexpr_free(aggs[j].arg);
        if (!pm)
            memset(&a->pmap, 0, sizeof(a->pmap));
        agg_free(&a->op);
        return oom(err);
    }
    a->nkeys = nkeys;
    a->naggs = naggs;
    for (int k = 0; k < nkeys; k++) {
        a->keys[k] = keys[k];
        sl_type t = sl_cexpr_type(keys[k]);
        if (t == SL_T_NULL)
            t = SL_T_BIGINT;
        if (rc == 0 && (sl_block_add_column(&a->pkeys, t, sl_cexpr_width(keys[k])) < 0 ||
                        sl_block_add_column(&a->blk, t, sl_cexpr_width(keys[k])) < 0))
            rc = oom(err);
    }
    if (win != NULL && win->enabled) {
        a->win = *win;
        if (rc == 0 && (sl_block_add_column(&a->blk, SL_T_TIMESTAMP, 0) < 0 ||
                        sl_block_add_column(&a->blk, SL_T_TIMESTAMP, 0) < 0 ||
                        sl_block_add_column(&a->blk, SL_T_BIGINT, 0) < 0))
            rc = oom(err);
    }
    size_t stride = 0, maxstate = 0;
    for (int j = 0; j < naggs; j++) {
        a->specs[j] = aggs[j];
        if (rc != 0)
            continue;
        sl_type at = SL_T_BIGINT;
        uint32_t aw = 0;
        if (aggs[j].arg != NULL) {
            at = sl_cexpr_type(aggs[j].arg);
            aw = sl_cexpr_width(aggs[j].arg);
            if (at == SL_T_NULL)
                at = SL_T_BIGINT;
        }
        rc = sl_agg_create(aggs[j].kind, at, aw, &a->aggs[j], err);
        if (rc != 0)
            continue;
        a->off[j] = stride;
        size_t ssz = (sl_agg_state_size(a->aggs[j]) + 7) & ~(size_t)7;
        stride += ssz;
        if (ssz > maxstate)
            maxstate = ssz;
        bool partial = mode == SL_AGG_MODE_PARTIAL;
        if (sl_block_add_column(&a->blk, partial ? SL_T_VARCHAR : sl_agg_result_type(a->aggs[j]),
                                partial ? 0 : sl_agg_result_width(a->aggs[j])) < 0)
            rc = oom(err);
    }
    a->stride = stride ? stride : 8;
    if (rc == 0 && mode == SL_AGG_MODE_MERGE &&
        (a->tmpstate = aligned_alloc(8, maxstate ? maxstate : 8)) == NULL)
        rc = oom(err);
    if (rc != 0) {
        agg_free(&a->op);
        return rc;
    }
    *out = &a->op;
    return 0;
}
