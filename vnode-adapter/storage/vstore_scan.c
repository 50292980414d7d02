/*
 * vstore_scan.c - range scans of one table with projection; see sl_vstore_scan_open in
 * vstore.h.
 *
 * A scan is the merge reader (vstore_read.c) on a snapshot plus the shaping of its runs
 * into output blocks in the form the executor's sl_catalog expects (catalog.h): requested
 * columns in requested order, tags and the table name as constant columns, at most
 * SL_BLOCK_ROWS_MAX rows. A long run of one stored block (the usual case for appended
 * data) is handed out as read-only views of the decoded block, without a copy; short runs
 * (interleaved out-of-order blocks) are gathered into the output block.
 */
#include <stdlib.h>
#include <string.h>

#include "vstore_int.h"

/* Runs at least this long are handed out as views when they start an output block. */
#define BORROW_MIN 256

/* What a projection entry reads. */
enum { SRC_TBNAME = -1, SRC_TAG = -2, SRC_TS = 0 /* > 0: reader column SRC - 1 */ };

struct sl_vs_scan {
    sl_vstore *sc_vs;
    vs_table *sc_table; /* a reference, released at close */
    vs_reader sc_r;
    int sc_nproj;
    int *sc_proj; /* the request's projection */
    int *sc_src;  /* per entry: SRC_* or 1 + index into the reader's columns */
};

static int proj_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void sl_vstore_scan_close(sl_vs_scan *s)
{
    if (s == NULL)
        return;
    sl__vs_reader_close(&s->sc_r);
    if (s->sc_table != NULL) {
        sl__vs_table_unref(s->sc_table);
        atomic_fetch_sub(&s->sc_vs->vs_live, 1);
    }
    free(s->sc_proj);
    free(s->sc_src);
    free(s);
}

int sl_vstore_scan_open(sl_vstore *vs, const sl_vs_snapshot *snap, uint64_t uid, const int *proj,
                        int nproj, int64_t lo, int64_t hi, sl_vs_scan **out, sl_error *err)
{
    if (nproj < 0 || (nproj > 0 && proj == NULL))
        return sl_error_set(err, SL_EINVAL, 0, 0, "vstore scan: bad projection");
    const sl_vs_table_def *def;
    int rc = sl_vstore_table_acquire(vs, uid, &def, err);
    if (rc != 0)
        return rc;
    int ncols = (int)def->ncols, ntags = (int)def->ntags;
    for (int i = 0; i < nproj; i++)
        if (proj[i] != SL_VS_PROJ_TBNAME && (proj[i] < 0 || proj[i] >= ncols + ntags)) {
            rc = sl_error_set(err, SL_EINVAL, 0, 0,
                              "vstore scan of '%s': projection entry %d asks for column %d of %d",
                              def->name, i, proj[i], ncols + ntags);
            sl_vstore_table_release(def);
            return rc;
        }
    sl_vs_scan *s = calloc(1, sizeof(*s));
    uint32_t *need = malloc((size_t)(nproj > 0 ? nproj : 1) * sizeof(uint32_t));
    sl_type *types = malloc((size_t)(nproj > 0 ? nproj : 1) * sizeof(sl_type));
    if (s == NULL || need == NULL || types == NULL) {
        free(s);
        rc = sl__vs_fail(err, SL_ENOMEM, "scan");
        goto fail_early;
    }
    s->sc_vs = vs;
    s->sc_table = (vs_table *)(uintptr_t)def;
    atomic_fetch_add(&vs->vs_live, 1);
    s->sc_nproj = nproj;
    s->sc_proj = malloc((size_t)(nproj > 0 ? nproj : 1) * sizeof(int));
    s->sc_src = malloc((size_t)(nproj > 0 ? nproj : 1) * sizeof(int));
    if (s->sc_proj == NULL || s->sc_src == NULL) {
        rc = sl__vs_fail(err, SL_ENOMEM, "scan");
        goto fail;
    }
    if (nproj > 0)
        memcpy(s->sc_proj, proj, (size_t)nproj * sizeof(int));
    /* The stored columns to decode: the projected data columns, each once, ascending. */
    uint32_t nneed = 0;
    for (int i = 0; i < nproj; i++)
        if (proj[i] >= 1 && proj[i] < ncols)
            need[nneed++] = (uint32_t)proj[i];
    qsort(need, nneed, sizeof(uint32_t), proj_cmp);
    uint32_t u = 0;
    for (uint32_t i = 0; i < nneed; i++)
        if (u == 0 || need[i] != need[u - 1])
            need[u++] = need[i];
    nneed = u;
    for (uint32_t j = 0; j < nneed; j++)
        types[j] = def->cols[need[j]].type;
    for (int i = 0; i < nproj; i++) {
        int p = proj[i];
        if (p == SL_VS_PROJ_TBNAME) {
            s->sc_src[i] = SRC_TBNAME;
        } else if (p >= ncols) {
            s->sc_src[i] = SRC_TAG;
        } else if (p == 0) {
            s->sc_src[i] = SRC_TS;
        } else {
            uint32_t j = 0;
            while (need[j] != (uint32_t)p)
                j++;
            s->sc_src[i] = 1 + (int)j;
        }
    }
    if ((rc = sl__vs_reader_open(&s->sc_r, vs, snap != NULL ? snap->sn_kv : NULL, uid,
                                 vs_key_type(def), need, types, nneed, lo, hi, err)) != 0)
        goto fail;
    free(need);
    free(types);
    *out = s;
    return 0;
fail:
    free(need);
    free(types);
    sl_vstore_scan_close(s);
    return rc;
fail_early:
    free(need);
    free(types);
    sl_vstore_table_release(def);
    return rc;
}

/* Type and width entry i delivers. */
static void entry_type(const sl_vs_scan *s, int i, sl_type *type, uint32_t *width)
{
    const sl_vs_table_def *d = &s->sc_table->def;
    int p = s->sc_proj[i];
    if (p == SL_VS_PROJ_TBNAME) {
        *type = SL_T_VARCHAR;
        *width = SL_TABLE_NAME_MAX;
    } else if (p < (int)d->ncols) {
        *type = d->cols[p].type;
        *width = d->cols[p].width;
    } else {
        *type = d->tags[p - (int)d->ncols].type;
        *width = d->tags[p - (int)d->ncols].width;
    }
}

/* Makes out an empty block of the projection's columns, reusing it when it fits. */
static int prepare_out(const sl_vs_scan *s, sl_block *out)
{
    bool fits = (int)out->ncols == s->sc_nproj;
    for (int i = 0; fits && i < s->sc_nproj; i++) {
        sl_type ty;
        uint32_t w;
        entry_type(s, i, &ty, &w);
        fits = out->cols[i].type == ty && out->cols[i].width == w;
    }
    if (fits) {
        sl_block_reset(out);
        return 0;
    }
    sl_block_fini(out);
    for (int i = 0; i < s->sc_nproj; i++) {
        sl_type ty;
        uint32_t w;
        entry_type(s, i, &ty, &w);
        int rc = sl_block_add_column(out, ty, w);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static const sl_column *run_column(const vs_run *run, int src)
{
    return src == SRC_TS ? &run->c->c_ts : &run->c->c_cols[src - 1];
}

int sl_vstore_scan_next(sl_vs_scan *s, sl_block *out, sl_error *err)
{
    int rc = prepare_out(s, out);
    if (rc < 0)
        return sl__vs_fail(err, rc, "scan");
    uint32_t rows = 0;
    while (rows < SL_BLOCK_ROWS_MAX) {
        vs_run run;
        if ((rc = sl__vs_reader_next(&s->sc_r, SL_BLOCK_ROWS_MAX - rows, &run, err)) < 0)
            goto fail;
        if (rc == 0)
            break;
        bool view = rows == 0 && run.n >= BORROW_MIN;
        for (int i = 0; i < s->sc_nproj; i++) {
            int src = s->sc_src[i];
            if (src < SRC_TS)
                continue;
            const sl_column *c = run_column(&run, src);
            rc = view ? sl_column_borrow(&out->cols[i], c, run.from, run.n)
                      : sl_column_append_rows(&out->cols[i], c, NULL, run.from, run.n);
            if (rc != 0) {
                rc = sl__vs_fail(err, rc, "scan");
                goto fail;
            }
        }
        rows += run.n;
        if (view)
            break; /* the views point into this run's block: end the output here */
    }
    const sl_vs_table_def *d = &s->sc_table->def;
    for (int i = 0; rows > 0 && i < s->sc_nproj; i++) {
        sl_value v;
        if (s->sc_src[i] == SRC_TBNAME)
            v = sl_value_str(SL_T_VARCHAR, d->name, (uint32_t)strlen(d->name));
        else if (s->sc_src[i] == SRC_TAG)
            sl_column_get(&d->tag_values->cols[s->sc_proj[i] - (int)d->ncols], 0, &v);
        else
            continue;
        if ((rc = sl_column_set_const(&out->cols[i], &v, rows)) != 0) {
            rc = sl__vs_fail(err, rc, "scan");
            goto fail;
        }
    }
    out->nrows = rows;
    return 0;
fail:
    sl_block_reset(out);
    return rc;
}
