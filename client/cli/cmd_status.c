/*
 * cmd_status.c - `status` (also \status): what `sluice --status` prints. On a cluster,
 * the cluster summary of cluster_status.c; on the embedded store, the backend's one line.
 */
#include <stdio.h>

#include "cli.h"

static int status_exec(sl_cli *c, const char *arg)
{
    (void)arg;
    sl_buf b;
    sl_error err;
    sl_buf_init(&b);
    sl_error_clear(&err);
    int rc = c->endpoint != NULL ? sl__cli_cluster_status(c, &b, &err)
                                 : sl_backend_status(c->backend, &b, &err);
    if (rc < 0)
        fprintf(c->err, "ERROR: %s\n", err.msg[0] ? err.msg : sl_strerror(rc));
    else if (c->endpoint != NULL)
        fprintf(c->out, "%.*s", (int)b.len, (const char *)b.data); /* whole lines */
    else
        fprintf(c->out, "%.*s\n", (int)b.len, (const char *)b.data);
    sl_buf_fini(&b);
    return rc < 0 ? SL_CLI_FAIL : SL_CLI_OK;
}

const sl_cli_cmd sl__cli_cmd_status = {
    .name = "status",
    .aliases = {"\\status", NULL},
    .args = NULL,
    .summary = "summary of the cluster (or embedded store)",
    .exec = status_exec,
};
