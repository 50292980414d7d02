/*
 * backend_remote.c - the shell's network backend: a libsluice connection to a cluster.
 *
 * `sluice -h host -P port` runs every statement through libsluice (lib/sluice.h): catalog
 * statements on the mnode, INSERT and SELECT on the vnodes, merged in this process. The
 * results are the same sl_result the embedded backend hands back, so the shell prints
 * both the same way.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "lib/sluice.h"

typedef struct remote_backend {
    sl_backend rb_base; /* must be first: the shell sees only this header */
    sl_conn *rb_conn;   /* owned */
} remote_backend;

static int remote_exec(sl_backend *b, const char *sql, sl_result *res, sl_error *err)
{
    remote_backend *rb = (remote_backend *)b;
    return sl_query(rb->rb_conn, sql, res, err);
}

/* Index of the result column called name, or -1. */
static int result_col(const sl_result *r, const char *name)
{
    for (int i = 0; i < r->ncols; i++)
        if (strcmp(r->names[i], name) == 0)
            return i;
    return -1;
}

/* Counts through SHOW DATABASES, as the embedded backend does. */
static int remote_status(sl_backend *b, sl_buf *out, sl_error *err)
{
    remote_backend *rb = (remote_backend *)b;
    sl_result res;
    int rc = sl_query(rb->rb_conn, "SHOW DATABASES", &res, err);
    if (rc < 0)
        return rc;
    int ncol = result_col(&res, "ntables");
    int64_t tables = 0;
    if (ncol >= 0 && !sl_type_is_var(res.rows.cols[ncol].type))
        for (uint32_t i = 0; i < res.rows.nrows; i++)
            if (!sl_column_is_null(&res.rows.cols[ncol], i))
                tables += sl_column_get_i64(&res.rows.cols[ncol], i);
    uint32_t dbs = res.rows.nrows;
    sl_result_fini(&res);
    rc = sl_buf_printf(out, "cluster at %s: %u database%s, %lld table%s",
                       sl_conn_addr(rb->rb_conn), dbs, dbs == 1 ? "" : "s", (long long)tables,
                       tables == 1 ? "" : "s");
    return rc < 0 ? sl_error_set(err, rc, 0, 0, "out of memory") : 0;
}

static void remote_close(sl_backend *b)
{
    remote_backend *rb = (remote_backend *)b;
    sl_close(rb->rb_conn);
    free(rb);
}

static const sl_backend_ops remote_ops = {
    .name = "cluster",
    .exec = remote_exec,
    .status = remote_status,
    .close = remote_close,
};

int sl_backend_remote_open(const char *host, int port, sl_backend **out, sl_error *err)
{
    remote_backend *rb = calloc(1, sizeof(*rb));
    if (rb == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    rb->rb_base.ops = &remote_ops;
    int rc = sl_connect(host, port, &rb->rb_conn, err);
    if (rc < 0) {
        free(rb);
        return rc;
    }
    *out = &rb->rb_base;
    return 0;
}
