/*
 * main.c - sluice-mnode: flags and config, the catalog, the RPC server, the dead-node
 * sweep and clean shutdown on SIGTERM/SIGINT.
 *
 * Configuration: `--config FILE` holds `key = value` lines with the flags' long names
 * (data, port, listen, node-timeout-ms, log-level); flags on the command line win.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util/config.h"
#include "common/util/log.h"
#include "mdaemon.h"

#define MD_DEFAULT_PORT 6030

typedef struct md_opts {
    char data[1024];
    char host[256];
    int port;
    int64_t node_timeout_ms;
    int64_t sweep_ms;
    char log_level[16];
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
            "  --log-level LEVEL      debug, info, warn, error (default info)\n",
            MD_DEFAULT_PORT);
}

static int set_opt(md_opts *o, const char *key, const char *val, sl_error *err)
{
    char *end;
    if (strcmp(key, "data") == 0) {
        snprintf(o->data, sizeof(o->data), "%s", val);
    } else if (strcmp(key, "host") == 0) {
        snprintf(o->host, sizeof(o->host), "%s", val);
    } else if (strcmp(key, "port") == 0) {
        long p = strtol(val, &end, 10);
        if (*val == '\0' || *end != '\0' || p < 0 || p > 65535)
            return sl_error_set(err, SL_EINVAL, 0, 0, "bad port '%s'", val);
        o->port = (int)p;
    } else if (strcmp(key, "node-timeout-ms") == 0) {
        long long v = strtoll(val, &end, 10);
        if (*val == '\0' || *end != '\0' || v < 100)
            return sl_error_set(err, SL_EINVAL, 0, 0, "bad node-timeout-ms '%s'", val);
        o->node_timeout_ms = v;
    } else if (strcmp(key, "log-level") == 0) {
        sl_log_level l;
        if (sl_log_level_parse(val, &l) < 0)
            return sl_error_set(err, SL_EINVAL, 0, 0, "bad log-level '%s'", val);
        snprintf(o->log_level, sizeof(o->log_level), "%s", val);
    } else {
        return sl_error_set(err, SL_EINVAL, 0, 0, "unknown setting '%s'", key);
    }
    return 0;
}

static int config_cb(void *arg, const char *key, const char *value, int line, sl_error *err)
{
    (void)line;
    return set_opt(arg, key, value, err);
}

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
    sl_rpc_server_close(s->md->md_srv);
    s->md->md_srv = NULL;
    uv_close((uv_handle_t *)&s->sigterm, NULL);
    uv_close((uv_handle_t *)&s->sigint, NULL);
    uv_close((uv_handle_t *)&s->sweep, NULL);
}

int main(int argc, char **argv)
{
    md_opts o = {.port = MD_DEFAULT_PORT, .node_timeout_ms = 5000, .sweep_ms = 1000};
    snprintf(o.data, sizeof(o.data), "./mnode-data");
    snprintf(o.host, sizeof(o.host), "127.0.0.1");
    snprintf(o.log_level, sizeof(o.log_level), "info");
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"config", required_argument, NULL, 'c'},
        {"data", required_argument, NULL, 'd'},
        {"port", required_argument, NULL, 'p'},
        {"host", required_argument, NULL, 'H'},
        {"node-timeout-ms", required_argument, NULL, 't'},
        {"log-level", required_argument, NULL, 'l'},
        {NULL, 0, NULL, 0},
    };
    sl_error err = {0};
    sl_error_clear(&err);
    /* First pass: the config file, so that flags given on the command line win. */
    for (int i = 1; i < argc; i++) {
        const char *cfg = NULL;
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            cfg = argv[i + 1];
        else if (strncmp(argv[i], "--config=", 9) == 0)
            cfg = argv[i] + 9;
        if (cfg != NULL && sl_config_load(cfg, config_cb, &o, &err) < 0) {
            fprintf(stderr, "sluice-mnode: %s\n", err.msg);
            return 2;
        }
    }
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        const char *key = NULL;
        switch (c) {
        case 'h': usage(stdout); return 0;
        case 'c': continue;
        case 'd': key = "data"; break;
        case 'p': key = "port"; break;
        case 'H': key = "host"; break;
        case 't': key = "node-timeout-ms"; break;
        case 'l': key = "log-level"; break;
        default: usage(stderr); return 2;
        }
        if (set_opt(&o, key, optarg, &err) < 0) {
            fprintf(stderr, "sluice-mnode: %s\n", err.msg);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "sluice-mnode: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    sl_log_level lvl;
    sl_log_level_parse(o.log_level, &lvl);
    sl_log_set_level(lvl);

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
