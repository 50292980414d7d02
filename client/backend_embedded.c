/*
 * backend_embedded.c - the shell's in-process backend: an embedded in-memory store.
 *
 * `sluice --embedded` runs every statement against an sl_memstore living in the shell's
 * own process, through the same parser, planner and executor the cluster uses. Nothing is
 * written to disk: the databases last as long as the process. This is the backend for
 * trying Sluice SQL without a cluster and the one the shell's tests drive.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

typedef struct embedded_backend {
    sl_backend eb_base;    /* must be first: the shell sees only this header */
    sl_memstore *eb_store; /* owned */
} embedded_backend;

static int embedded_exec(sl_backend *b, const char *sql, sl_result *res, sl_error *err)
{
    embedded_backend *eb = (embedded_backend *)b;
    return sl_memstore_exec(eb->eb_store, sql, res, err);
}

/* Index of the result column called name, or -1. */
static int result_col(const sl_result *r, const char *name)
{
    for (int i = 0; i < r->ncols; i++)
        if (strcmp(r->names[i], name) == 0)
            return i;
    return -1;
}

/*
 * Counts through SHOW DATABASES, whose rows carry each database's number of tables (child
 * and normal tables; super tables are schemas, not tables of rows), so the summary uses
 * only what any SQL client could ask for.
 */
static int embedded_status(sl_backend *b, sl_buf *out, sl_error *err)
{
    sl_result res;
    int rc = embedded_exec(b, "SHOW DATABASES", &res, err);
    if (rc < 0)
        return rc;
    int ncol = result_col(&res, "ntables");
    if (ncol < 0 || sl_type_is_var(res.rows.cols[ncol].type)) {
        sl_result_fini(&res);
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "SHOW DATABASES has no ntables column");
    }
    int64_t tables = 0;
    for (uint32_t i = 0; i < res.rows.nrows; i++)
        if (!sl_column_is_null(&res.rows.cols[ncol], i))
            tables += sl_column_get_i64(&res.rows.cols[ncol], i);
    uint32_t dbs = res.rows.nrows;
    sl_result_fini(&res);
    rc = sl_buf_printf(out, "embedded store: %u database%s, %lld table%s", dbs, dbs == 1 ? "" : "s",
                       (long long)tables, tables == 1 ? "" : "s");
    return rc < 0 ? sl_error_set(err, rc, 0, 0, "out of memory") : 0;
}

static void embedded_close(sl_backend *b)
{
    embedded_backend *eb = (embedded_backend *)b;
    sl_memstore_close(eb->eb_store);
    free(eb);
}

static const sl_backend_ops embedded_ops = {
    .name = "embedded",
    .exec = embedded_exec,
    .status = embedded_status,
    .close = embedded_close,
};

int sl_backend_embedded_open(sl_backend **out, sl_error *err)
{
    embedded_backend *eb = calloc(1, sizeof(*eb));
    if (eb == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    eb->eb_base.ops = &embedded_ops;
    int rc = sl_memstore_open(&eb->eb_store, NULL, NULL);
    if (rc < 0) {
        free(eb);
        return sl_error_set(err, rc, 0, 0, "cannot open the embedded store: %s", sl_strerror(rc));
    }
    *out = &eb->eb_base;
    return 0;
}
