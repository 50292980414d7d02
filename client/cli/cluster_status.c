/*
 * cluster_status.c - the cluster summary of `sluice --status` and the `status` command.
 *
 * An operator's first question is "is the cluster healthy?": is the mnode answering, which
 * vnodes and snodes are alive, how much is stored and placed, and which streams need
 * attention. The summary answers it from four information_schema queries (ins_dnodes,
 * ins_snodes, ins_databases, ins_streams), the same tables a script would read, so it
 * shows nothing the SQL surface does not. Its lines are fixed (docs/operations.md,
 * "Monitor"; tests/cluster/test_admin.py pins them):
 *
 *   mnode: HOST:PORT
 *   vnodes: N (A alive, D dead)
 *   snodes: N (A alive, D dead, X dropped)
 *   databases: N (V vgroups, T tables)
 *   streams: N (R running, S stopped)
 *   vnode ID ENDPOINT STATUS: V vgroups                        (one per vnode)
 *   snode ID ENDPOINT STATUS: S streams, P slots, G groups, M MiB   (one per snode)
 *   stream DB.NAME STATUS: no snode alive | lag L ms | error: TEXT  (only those that need
 *                                                                   attention)
 *
 * A stream needs attention when an owner reports an error, when it is running without any
 * snode to run it, or when its largest lag passes SL_CLI_LAG_WARN_MS.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* One query's result with its columns looked up by name. */
typedef struct summary_q {
    sl_result res;
    int col[8];
} summary_q;

/* Runs sql and finds the n columns named in names; 0, or an error with a message. */
static int summary_run(sl_cli *c, const char *sql, const char *const *names, int n, summary_q *q,
                       sl_error *err)
{
    int rc = sl_backend_exec(c->backend, sql, &q->res, err);
    if (rc < 0)
        return rc;
    for (int i = 0; i < n; i++) {
        q->col[i] = -1;
        for (int k = 0; k < q->res.ncols; k++)
            if (strcmp(q->res.names[k], names[i]) == 0)
                q->col[i] = k;
        if (q->col[i] < 0) {
            sl_result_fini(&q->res);
            return sl_error_set(err, SL_ECORRUPT, 0, 0, "the mnode's answer to \"%s\" has no %s",
                                sql, names[i]);
        }
    }
    return 0;
}

/* Integer cell (0 for NULL or text) and whether it was NULL. */
static int64_t cell_i64(const summary_q *q, uint32_t row, int i, bool *null)
{
    const sl_column *col = &q->res.rows.cols[q->col[i]];
    bool isnull = sl_column_is_null(col, row) || sl_type_is_var(col->type);
    if (null != NULL)
        *null = isnull;
    return isnull ? 0 : sl_column_get_i64(col, row);
}

/* Text cell as a NUL-terminated copy in buf (n bytes); "" for NULL, and *null set. */
static const char *cell_str(const summary_q *q, uint32_t row, int i, char *buf, size_t n,
                            bool *null)
{
    const sl_column *col = &q->res.rows.cols[q->col[i]];
    bool isnull = sl_column_is_null(col, row) || !sl_type_is_var(col->type);
    if (null != NULL)
        *null = isnull;
    uint32_t len = 0;
    const char *s = isnull ? "" : sl_column_get_str(col, row, &len);
    snprintf(buf, n, "%.*s", (int)len, s);
    return buf;
}

/* Node counts of one kind. */
typedef struct node_counts {
    int64_t total, alive, dead, dropped;
} node_counts;

static void count_status(node_counts *k, const char *status)
{
    k->total++;
    if (strcmp(status, "alive") == 0)
        k->alive++;
    else if (strcmp(status, "dropped") == 0)
        k->dropped++;
    else
        k->dead++;
}

static const char *plural(int64_t n)
{
    return n == 1 ? "" : "s";
}

/* The node lines: counts from ins_dnodes, then one line per vnode and per snode. */
static int summary_nodes(sl_cli *c, sl_buf *head, sl_buf *tail, sl_error *err)
{
    static const char *const dn[] = {"id", "endpoint", "kind", "status", "vgroups"};
    static const char *const sn[] = {"id",    "endpoint", "status",      "streams",
                                     "slots", "groups",   "memory_bytes"};
    summary_q q;
    int rc = summary_run(c,
                         "SELECT id, endpoint, kind, status, vgroups FROM "
                         "information_schema.ins_dnodes ORDER BY id",
                         dn, 5, &q, err);
    if (rc < 0)
        return rc;
    node_counts v = {0}, s = {0};
    char ep[300], kind[16], st[16];
    for (uint32_t r = 0; rc >= 0 && r < q.res.rows.nrows; r++) {
        cell_str(&q, r, 2, kind, sizeof(kind), NULL);
        cell_str(&q, r, 3, st, sizeof(st), NULL);
        if (strcmp(kind, "vnode") == 0) {
            count_status(&v, st);
            int64_t vg = cell_i64(&q, r, 4, NULL);
            rc = sl_buf_printf(tail, "vnode %lld %s %s: %lld vgroup%s\n",
                               (long long)cell_i64(&q, r, 0, NULL),
                               cell_str(&q, r, 1, ep, sizeof(ep), NULL), st, (long long)vg,
                               plural(vg));
        } else if (strcmp(kind, "snode") == 0) {
            count_status(&s, st);
        }
    }
    sl_result_fini(&q.res);
    if (rc >= 0)
        rc = sl_buf_printf(head,
                           "vnodes: %lld (%lld alive, %lld dead)\n"
                           "snodes: %lld (%lld alive, %lld dead, %lld dropped)\n",
                           (long long)v.total, (long long)v.alive, (long long)(v.dead + v.dropped),
                           (long long)s.total, (long long)s.alive, (long long)s.dead,
                           (long long)s.dropped);
    if (rc < 0)
        return sl_error_set(err, rc, 0, 0, "out of memory");
    rc = summary_run(c,
                     "SELECT id, endpoint, status, streams, slots, groups, memory_bytes FROM "
                     "information_schema.ins_snodes ORDER BY id",
                     sn, 7, &q, err);
    if (rc < 0)
        return rc;
    for (uint32_t r = 0; rc >= 0 && r < q.res.rows.nrows; r++) {
        int64_t streams = cell_i64(&q, r, 3, NULL), slots = cell_i64(&q, r, 4, NULL);
        int64_t groups = cell_i64(&q, r, 5, NULL), mem = cell_i64(&q, r, 6, NULL);
        rc = sl_buf_printf(tail, "snode %lld %s %s: %lld stream%s, %lld slot%s, %lld group%s, "
                                 "%.1f MiB\n",
                           (long long)cell_i64(&q, r, 0, NULL),
                           cell_str(&q, r, 1, ep, sizeof(ep), NULL),
                           cell_str(&q, r, 2, st, sizeof(st), NULL), (long long)streams,
                           plural(streams), (long long)slots, plural(slots), (long long)groups,
                           plural(groups), (double)mem / (1024.0 * 1024.0));
    }
    sl_result_fini(&q.res);
    return rc < 0 ? sl_error_set(err, rc, 0, 0, "out of memory") : 0;
}

/* The databases line. */
static int summary_databases(sl_cli *c, sl_buf *head, sl_error *err)
{
    static const char *const names[] = {"vgroups", "ntables"};
    summary_q q;
    int rc = summary_run(c, "SELECT vgroups, ntables FROM information_schema.ins_databases",
                         names, 2, &q, err);
    if (rc < 0)
        return rc;
    int64_t vgroups = 0, tables = 0, dbs = q.res.rows.nrows;
    for (uint32_t r = 0; r < q.res.rows.nrows; r++) {
        vgroups += cell_i64(&q, r, 0, NULL);
        tables += cell_i64(&q, r, 1, NULL);
    }
    sl_result_fini(&q.res);
    rc = sl_buf_printf(head, "databases: %lld (%lld vgroup%s, %lld table%s)\n", (long long)dbs,
                       (long long)vgroups, plural(vgroups), (long long)tables, plural(tables));
    return rc < 0 ? sl_error_set(err, rc, 0, 0, "out of memory") : 0;
}

/* The streams line and a line per stream that needs attention. */
static int summary_streams(sl_cli *c, sl_buf *head, sl_buf *tail, sl_error *err)
{
    static const char *const names[] = {"db_name", "stream_name", "status",
                                        "snodes",  "max_lag_ms",  "error"};
    summary_q q;
    int rc = summary_run(c,
                         "SELECT db_name, stream_name, status, snodes, max_lag_ms, error FROM "
                         "information_schema.ins_streams ORDER BY db_name, stream_name",
                         names, 6, &q, err);
    if (rc < 0)
        return rc;
    int64_t running = 0, stopped = 0;
    char db[200], name[200], st[16], error[1100];
    for (uint32_t r = 0; rc >= 0 && r < q.res.rows.nrows; r++) {
        cell_str(&q, r, 2, st, sizeof(st), NULL);
        bool run = strcmp(st, "running") == 0, lag_null, err_null;
        running += run;
        stopped += !run;
        int64_t snodes = cell_i64(&q, r, 3, NULL);
        int64_t lag = cell_i64(&q, r, 4, &lag_null);
        cell_str(&q, r, 5, error, sizeof(error), &err_null);
        bool orphan = run && snodes == 0, lagging = run && !lag_null && lag > SL_CLI_LAG_WARN_MS;
        if (!orphan && !lagging && err_null)
            continue;
        rc = sl_buf_printf(tail, "stream %s.%s %s:", cell_str(&q, r, 0, db, sizeof(db), NULL),
                           cell_str(&q, r, 1, name, sizeof(name), NULL), st);
        const char *sep = " ";
        if (rc >= 0 && orphan) {
            rc = sl_buf_printf(tail, "%sno snode alive", sep);
            sep = ", ";
        }
        if (rc >= 0 && lagging) {
            rc = sl_buf_printf(tail, "%slag %lld ms", sep, (long long)lag);
            sep = ", ";
        }
        if (rc >= 0 && !err_null)
            rc = sl_buf_printf(tail, "%serror: %s", sep, error);
        if (rc >= 0)
            rc = sl_buf_printf(tail, "\n");
    }
    sl_result_fini(&q.res);
    if (rc >= 0)
        rc = sl_buf_printf(head, "streams: %lld (%lld running, %lld stopped)\n",
                           (long long)(running + stopped), (long long)running, (long long)stopped);
    return rc < 0 ? sl_error_set(err, rc, 0, 0, "out of memory") : 0;
}

int sl__cli_cluster_status(sl_cli *c, sl_buf *out, sl_error *err)
{
    sl_buf head, tail;
    sl_buf_init(&head);
    sl_buf_init(&tail);
    size_t mark = out->len;
    int rc = sl_buf_printf(&head, "mnode: %s\n", c->endpoint);
    if (rc < 0)
        rc = sl_error_set(err, rc, 0, 0, "out of memory");
    if (rc >= 0)
        rc = summary_nodes(c, &head, &tail, err);
    if (rc >= 0)
        rc = summary_databases(c, &head, err);
    if (rc >= 0)
        rc = summary_streams(c, &head, &tail, err);
    if (rc >= 0 && (sl_buf_put(out, head.data, head.len) < 0 ||
                    sl_buf_put(out, tail.data, tail.len) < 0))
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    if (rc < 0)
        out->len = mark;
    sl_buf_fini(&head);
    sl_buf_fini(&tail);
    return rc < 0 ? rc : 0;
}
