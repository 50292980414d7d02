/*
 * main.c - sluice-mnode: flags and config, the catalog, the RPC server, the dead-node
 * sweep and clean shutdown on SIGTERM/SIGINT; `--health` checks a running one.
 *
 * Configuration: `--config FILE` holds `key = value` lines with the flags' long names
 * (data, port, host, node-timeout-ms, log-level), the environment SLUICE_DATA,
 * SLUICE_PORT, ...; flags on the command line win over the environment, which wins over
 * the file (common/util/daemon.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util/daemon.h"
#include "common/util/log.h"
#include "mdaemon.h"
#include "mnode.pb-c.h"

#define MD_DEFAULT_PORT 6030

typedef struct md_opts {
    char data[1024];
    char host[256];
    int port;
    int64_t node_timeout_ms;
    int64_t sweep_ms;
    char log_level[16];
    bool health;
} md_opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sluice-mnode [options]\n"
            "  --help                 this text\n"
            "  --config FILE          key = value settings (same names as the flags)\n"
            "  --data DIR             catalog directory (default ./mnode-data)\n"
            "  --port N               listen port (default %d)\n"
            "  --host ADDR            listen address (default 127.0.0.1)\n"
            "  --node-timeout-ms N    heartbeat silence before a node is dead (default 5000)\n"
            "  --log-level LEVEL      debug, info, warn, error (default info)\n"
            "  --health               do not start: ask the mnode running with these settings\n"
            "                         for its node list (SHOW DNODES); exit 0 when it answers,\n"
            "                         1 otherwise (the container healthcheck)\n",
            MD_DEFAULT_PORT);
}

static const sl_daemon_opt md_settings[] = {
    SL_DOPT_STRING(md_opts, "data", data),
    SL_DOPT_NUMBER(md_opts, "port", port, SL_DOPT_INT, 0, 65535, NULL),
    SL_DOPT_STRING(md_opts, "host", host),
    SL_DOPT_NUMBER(md_opts, "node-timeout-ms", node_timeout_ms, SL_DOPT_I64, 100, INT64_MAX,
                   NULL),
    SL_DOPT_LEVEL(md_opts, "log-level", log_level),
    SL_DOPT_FLAG(md_opts, "health", health),
};

static const sl_daemon_cli md_cli = {
    .dc_prog = "sluice-mnode",
    .dc_usage = usage,
    .dc_opts = md_settings,
    .dc_nopts = sizeof(md_settings) / sizeof(md_settings[0]),
};

int64_t sl__md_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void on_sweep(uv_timer_t *t)
{
    sl_mdaemon *md = t->data;
    uint32_t dead[16];
    size_t ndead = 0;
    sl_error err = {0};
    /* A restarted mnode gives every node one timeout to heartbeat again: the last-seen
     * times it loaded are from before its restart, and sweeping on them would declare the
     * whole cluster dead (and move every stream) after any mnode outage longer than it. */
    if (sl__md_now_ms() - md->md_started_ms <= md->md_node_timeout) {
        sl__md_place(md);
        return;
    }
    int rc = sl_mcatalog_node_sweep(md->md_cat, sl__md_now_ms(), md->md_node_timeout, dead, 16,
                                    &ndead, &err);
    if (rc < 0)
        sl_log(SL_LOG_ERROR, "mnode", "sweep failed: %s", err.msg);
    for (size_t i = 0; i < ndead && i < 16; i++)
        sl_log(SL_LOG_WARN, "mnode", "node marked dead node_id=%u", dead[i]);
    sl__md_place(md);
}

typedef struct md_shutdown {
    sl_mdaemon *md;
    uv_signal_t sigterm, sigint;
    uv_timer_t sweep;
} md_shutdown;

static void on_signal(uv_signal_t *h, int signum)
{
    md_shutdown *s = h->data;
    sl_log(SL_LOG_INFO, "mnode", "signal %d: shutting down", signum);
    sl_rpc_server_log_served(s->md->md_srv, "mnode");
    sl_rpc_server_close(s->md->md_srv);
    s->md->md_srv = NULL;
    uv_close((uv_handle_t *)&s->sigterm, NULL);
    uv_close((uv_handle_t *)&s->sigint, NULL);
    uv_close((uv_handle_t *)&s->sweep, NULL);
}

/* --health: one SHOW DNODES on the local mnode, bounded by 3 s. */
static int health(const md_opts *o)
{
    char url[320];
    sl_daemon_local_url(url, sizeof(url), o->host, o->port);
    sl_error err = {0};
    sl_error_clear(&err);
    sl_rpc_client *c = NULL;
    int rc = sl_rpc_client_open(&c, url, NULL, &err);
    if (rc == 0) {
        Sluice__ExecRequest rq = SLUICE__EXEC_REQUEST__INIT;
        rq.sql = "SHOW DNODES";
        size_t n = protobuf_c_message_get_packed_size(&rq.base);
        uint8_t *p = malloc(n ? n : 1);
        if (p == NULL) {
            rc = SL_ENOMEM;
        } else {
            protobuf_c_message_pack(&rq.base, p);
            rc = sl_rpc_call(c, SLUICE__MNODE_METHOD__MNODE_EXEC, 0, p, n, NULL, 3000, &err);
            free(p);
        }
    }
    sl_rpc_client_close(c);
    if (rc < 0) {
        printf("unhealthy: mnode %s: %s\n", url, err.msg[0] ? err.msg : sl_strerror(rc));
        return 1;
    }
    printf("healthy: mnode %s answers\n", url);
    return 0;
}

int main(int argc, char **argv)
{
    md_opts o = {.port = MD_DEFAULT_PORT, .node_timeout_ms = 5000, .sweep_ms = 1000};
    snprintf(o.data, sizeof(o.data), "./mnode-data");
    snprintf(o.host, sizeof(o.host), "127.0.0.1");
    snprintf(o.log_level, sizeof(o.log_level), "info");
    int exit_code;
    if (!sl_daemon_args(&md_cli, &o, argc, argv, &exit_code))
        return exit_code;
    if (o.health)
        return health(&o);
    sl_error err = {0};
    sl_error_clear(&err);

    sl_mdaemon md = {.md_loop = uv_default_loop(), .md_node_timeout = o.node_timeout_ms};
    /* The version starts from the boot time so that it differs from any version an older
     * run of the mnode handed out; vnodes only compare versions for equality. */
    md.md_version = (uint64_t)sl__md_now_ms() << 16;
    md.md_floor = md.md_version;
    int rc = sl_mcatalog_open(&md.md_cat, o.data, NULL, &err);
    if (rc < 0) {
        sl_log(SL_LOG_ERROR, "mnode", "cannot open catalog dir=%s: %s", o.data, err.msg);
        return 1;
    }
    char url[320];
    snprintf(url, sizeof(url), "tcp://%s:%d", o.host, o.port);
    sl_rpc_limits lim;
    sl_rpc_limits_default(&lim);
    lim.max_msg_bytes = 16u << 20;
    lim.max_inflight = 64;
    rc = sl_rpc_server_open(&md.md_srv, md.md_loop, url, sl__mnode_methods, sl__mnode_nmethods,
                            &md, &lim, &err);
    if (rc < 0) {
        sl_log(SL_LOG_ERROR, "mnode", "cannot listen url=%s: %s", url, err.msg);
        sl_mcatalog_close(md.md_cat);
        return 1;
    }
    /* ins_dnodes lists the mnode itself (dnode 0) under the address nodes dial: the
     * listen URL, or this host's name when it listens on every interface. */
    char self[320];
    bool wild = o.host[0] == '\0' || strcmp(o.host, "0.0.0.0") == 0 || strcmp(o.host, "*") == 0 ||
                strcmp(o.host, "::") == 0;
    md.md_started_ms = sl__md_now_ms();
    if (sl_daemon_advertise(self, sizeof(self), wild ? "auto" : NULL, o.host,
                            sl_rpc_server_port(md.md_srv)) < 0 ||
        sl_mcatalog_set_self(md.md_cat, self, md.md_started_ms, &err) < 0)
        sl_log(SL_LOG_WARN, "mnode", "cannot name the mnode in ins_dnodes: it is not listed");
    sl__md_place(&md); /* the placement of the nodes and streams as stored */
    /* Sweep often enough that a dead node is noticed within about a quarter of the timeout
     * after it expires. */
    if (o.node_timeout_ms / 4 < o.sweep_ms)
        o.sweep_ms = o.node_timeout_ms / 4 > 50 ? o.node_timeout_ms / 4 : 50;
    md_shutdown sd = {.md = &md};
    uv_signal_init(md.md_loop, &sd.sigterm);
    uv_signal_init(md.md_loop, &sd.sigint);
    sd.sigterm.data = sd.sigint.data = &sd;
    uv_signal_start(&sd.sigterm, on_signal, SIGTERM);
    uv_signal_start(&sd.sigint, on_signal, SIGINT);
    uv_timer_init(md.md_loop, &sd.sweep);
    sd.sweep.data = &md;
    md.md_started_ms = sl__md_now_ms();
    uv_timer_start(&sd.sweep, on_sweep, (uint64_t)o.sweep_ms, (uint64_t)o.sweep_ms);
    sl_log(SL_LOG_INFO, "mnode", "listening url=tcp://%s:%d data=%s", o.host,
           sl_rpc_server_port(md.md_srv), o.data);
    uv_run(md.md_loop, UV_RUN_DEFAULT);
    sl_rpc_server_close(md.md_srv);
    uv_run(md.md_loop, UV_RUN_DEFAULT);
    sl_mcatalog_close(md.md_cat);
    sl__md_journal_fini(&md);
    uv_loop_close(md.md_loop);
    sl_log(SL_LOG_INFO, "mnode", "stopped");
    return 0;
}
