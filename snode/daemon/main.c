/*
 * main.c - sluice-snode: flags and config, the RPC server, the mnode link's timer, and the
 * two ways out: SIGTERM/SIGINT (graceful leave: drain with the heartbeats going on,
 * MNODE_LEAVE, exit 0) and DROP SNODE (leave at once, told by the mnode).
 *
 * Configuration: `--config FILE` holds `key = value` lines with the flags' long names
 * (data, port, host, advertise, mnode, heartbeat-ms, nice, log-level), the environment
 * SLUICE_DATA, SLUICE_ADVERTISE, ...; flags on the command line win over the environment,
 * which wins over the file (common/util/daemon.h). `--health` checks a running snode.
 *
 * Identity: the node registers under its advertised address (and its node id kept in
 * DATA/state). `--advertise auto` uses the host name, so each replica of a scaled compose
 * service registers as its own node and keeps its id across restarts of its container.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util/daemon.h"
#include "common/util/log.h"
#include "sdaemon.h"
#include "snode.pb-c.h"

#define SD_DEFAULT_PORT 6200
#define SD_DEFAULT_HEARTBEAT_MS 500

typedef struct sd_opts {
    char data[1024];
    char host[256];
    char advertise[300];
    char mnode[300];
    int port;
    int heartbeat_ms;
    int nice;
    char log_level[16];
    bool health; /* --health: check the running snode and exit */
} sd_opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sluice-snode [options]\n"
            "  --help               this text\n"
            "  --config FILE        key = value settings (same names as the flags)\n"
            "  --data DIR           data directory (default ./snode-data)\n"
            "  --port N             listen port of its RPC service (default %d)\n"
            "  --host ADDR          listen address (default 127.0.0.1)\n"
            "  --advertise URL      address registered with the mnode (default tcp://HOST:PORT;\n"
            "                       auto: tcp://HOSTNAME:PORT with this machine's host name)\n"
            "  --mnode URL          the mnode (default tcp://127.0.0.1:6030)\n"
            "  --heartbeat-ms N     heartbeat interval to the mnode (default %d)\n"
            "  --nice N|idle        CPU priority of every thread, 0..19 (default 0) or idle\n"
            "                       (SCHED_IDLE: only CPU nothing else wants); on a host\n"
            "                       shared with vnodes it lets writes go first and the\n"
            "                       streams catch up after\n"
            "  --log-level LEVEL    debug, info, warn, error (default info)\n"
            "  --health             do not start: ask the snode running with these settings\n"
            "                       for its status; exit 0 when it is registered and its\n"
            "                       mnode link is up, 1 otherwise (the container healthcheck)\n",
            SD_DEFAULT_PORT, SD_DEFAULT_HEARTBEAT_MS);
}

static const sl_daemon_opt sd_settings[] = {
    SL_DOPT_STRING(sd_opts, "data", data),
    SL_DOPT_NUMBER(sd_opts, "port", port, SL_DOPT_INT, 1, 65535, NULL),
    SL_DOPT_STRING(sd_opts, "host", host),
    SL_DOPT_STRING(sd_opts, "advertise", advertise),
    SL_DOPT_STRING(sd_opts, "mnode", mnode),
    SL_DOPT_NUMBER(sd_opts, "heartbeat-ms", heartbeat_ms, SL_DOPT_INT, 10, 600000,
                   " (10..600000)"),
    SL_DOPT_PRIORITY(sd_opts, "nice", nice),
    SL_DOPT_LEVEL(sd_opts, "log-level", log_level),
    SL_DOPT_FLAG(sd_opts, "health", health),
};

static const sl_daemon_cli sd_cli = {
    .dc_prog = "sluice-snode",
    .dc_usage = usage,
    .dc_opts = sd_settings,
    .dc_nopts = sizeof(sd_settings) / sizeof(sd_settings[0]),
};

/* SIGTERM/SIGINT: drain first - every task stops after a last checkpoint while the node
 * still owns its slots and keeps heartbeating (a drain taking longer than the mnode's node
 * timeout must not get the node declared dead: the mnode would move its slots before the
 * last checkpoints, and refuse them) - then leave (sl__sn_tasks_stopped). */
static void on_signal(uv_signal_t *h, int signum)
{
    sl_sdaemon *sd = h->data;
    if (sd->sd_stopping || sd->sd_draining) {
        sl_log(SL_LOG_INFO, "snode", "signal %d while %s: still waiting for it", signum,
               sd->sd_stopping ? "leaving" : "draining");
        return;
    }
    sd->sd_draining = true;
    int n = sd->sd_ntasks;
    sl__sn_tasks_stop_all(sd, true);
    sl_log(SL_LOG_INFO, "snode",
           "signal %d: draining %d task(s) (%d stopping) before leaving the cluster", signum,
           n, sl__sn_tasks_stopping(sd));
    if (sl__sn_tasks_idle(sd))
        sl__sn_tasks_stopped(sd);
}

void sl__sn_tasks_stopped(sl_sdaemon *sd)
{
    if (sd->sd_stopping) {
        /* Every task thread has ended: nothing posts notifications any more. */
        if (sd->sd_notify_open) {
            sd->sd_notify_open = false;
            sl__sn_notify_close(sd);
        }
    } else if (sd->sd_draining) {
        sl_log(SL_LOG_INFO, "snode", "drained: every task stopped");
        sl__sn_leave(sd, "signal", 0);
    }
}

static void close_handle(uv_handle_t *h)
{
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

void sl__sn_shutdown(sl_sdaemon *sd)
{
    sd->sd_stopping = true;
    uv_timer_stop(&sd->sd_tick);
    uv_timer_stop(&sd->sd_stop);
    close_handle((uv_handle_t *)&sd->sd_tick);
    close_handle((uv_handle_t *)&sd->sd_stop);
    close_handle((uv_handle_t *)&sd->sd_sigterm);
    close_handle((uv_handle_t *)&sd->sd_sigint);
    sl_rpc_server_log_served(sd->sd_srv, "snode");
    sl_rpc_server_close(sd->sd_srv);
    sd->sd_srv = NULL;
    sl_rpc_client_close(sd->sd_mnode);
    sd->sd_mnode = NULL;
    sl__sn_tasks_stop_all(sd, true); /* no-op after a drain */
    /* Tasks still stopping post notifications until they end: the notifier closes after
     * the last one is joined (sl__sn_tasks_stopped), the loop running until then. */
    if (sl__sn_tasks_idle(sd))
        sl__sn_tasks_stopped(sd);
}

/* --health: SNODE_STATUS of the local snode, bounded by 3 s. */
static int health(const sd_opts *o)
{
    char url[320];
    sl_daemon_local_url(url, sizeof(url), o->host, o->port);
    sl_error err = {0};
    sl_error_clear(&err);
    sl_rpc_client *c = NULL;
    sl_buf reply;
    sl_buf_init(&reply);
    int rc = sl_rpc_client_open(&c, url, NULL, &err);
    if (rc == 0) {
        Sluice__SnodeStatusRequest rq = SLUICE__SNODE_STATUS_REQUEST__INIT;
        rq.version = 1;
        uint8_t p[16];
        size_t n = protobuf_c_message_pack(&rq.base, p);
        rc = sl_rpc_call(c, SLUICE__SNODE_METHOD__SNODE_STATUS, 0, p, n, &reply, 3000, &err);
    }
    sl_rpc_client_close(c);
    int code = 1;
    if (rc < 0) {
        printf("unhealthy: snode %s: %s\n", url, err.msg[0] ? err.msg : sl_strerror(rc));
    } else {
        Sluice__SnodeStatusReply *rp =
            sluice__snode_status_reply__unpack(NULL, reply.len, reply.data);
        if (rp == NULL)
            printf("unhealthy: snode %s: undecodable status reply\n", url);
        else if (rp->node_id == 0)
            printf("unhealthy: snode %s: not registered with the mnode yet\n", url);
        else if (!rp->mnode_ok)
            printf("unhealthy: snode %s node_id=%u: mnode link down\n", url, rp->node_id);
        else {
            printf("healthy: snode %s node_id=%u epoch=%llu\n", url, rp->node_id,
                   (unsigned long long)rp->epoch);
            code = 0;
        }
        if (rp != NULL)
            sluice__snode_status_reply__free_unpacked(rp, NULL);
    }
    sl_buf_fini(&reply);
    return code;
}

int main(int argc, char **argv)
{
    sd_opts o = {.port = SD_DEFAULT_PORT, .heartbeat_ms = SD_DEFAULT_HEARTBEAT_MS};
    snprintf(o.data, sizeof(o.data), "./snode-data");
    snprintf(o.host, sizeof(o.host), "127.0.0.1");
    snprintf(o.mnode, sizeof(o.mnode), "tcp://127.0.0.1:6030");
    snprintf(o.log_level, sizeof(o.log_level), "info");
    int exit_code;
    if (!sl_daemon_args(&sd_cli, &o, argc, argv, &exit_code))
        return exit_code;
    if (o.health)
        return health(&o);
    /* Before any thread exists: Linux keeps the nice value and the scheduling class per
     * thread, and new threads (nng's, libuv's pool, the stream tasks) inherit their
     * creator's. */
    char nb[16];
    const char *nice_name = sl_daemon_priority_name(o.nice, nb, sizeof(nb));
    if (sl_daemon_set_priority(0, o.nice) < 0) {
        sl_log(SL_LOG_ERROR, "snode", "cannot set nice=%s: %s", nice_name, strerror(errno));
        return 1;
    }
    sl_error err = {0};
    sl_error_clear(&err);

    static sl_sdaemon sd;
    sd.sd_loop = uv_default_loop();
    sd.sd_heartbeat_ms = o.heartbeat_ms;
    sd.sd_nice = o.nice;
    snprintf(sd.sd_data, sizeof(sd.sd_data), "%s", o.data);
    snprintf(sd.sd_mnode_url, sizeof(sd.sd_mnode_url), "%s", o.mnode);
    if (sl_daemon_advertise(sd.sd_addr, sizeof(sd.sd_addr), o.advertise, o.host, o.port) < 0) {
        sl_log(SL_LOG_ERROR, "snode", "bad advertise=%s: cannot build the address",
               o.advertise);
        return 1;
    }
    if (mkdir(o.data, 0755) < 0 && errno != EEXIST) {
        sl_log(SL_LOG_ERROR, "snode", "cannot create data dir=%s: %s", o.data, strerror(errno));
        return 1;
    }
    if (sl__sn_state_open(&sd, &err) < 0) {
        sl_log(SL_LOG_ERROR, "snode", "cannot open node state in data=%s: %s", o.data, err.msg);
        return 1;
    }
    int rc = sl_rpc_client_open(&sd.sd_mnode, o.mnode, NULL, &err);
    if (rc < 0) {
        sl_log(SL_LOG_ERROR, "snode", "bad mnode url=%s: %s", o.mnode, err.msg);
        sl__sn_state_close(&sd);
        return 1;
    }
    char url[320];
    snprintf(url, sizeof(url), "tcp://%s:%d", o.host, o.port);
    /* Requests to the snode's service are small status queries: a small frame bound. */
    sl_rpc_limits lim;
    sl_rpc_limits_default(&lim);
    lim.max_msg_bytes = 1u << 20;
    lim.max_inflight = 32;
    rc = sl_rpc_server_open(&sd.sd_srv, sd.sd_loop, url, sl__snode_methods, sl__snode_nmethods,
                            &sd, &lim, &err);
    if (rc < 0) {
        sl_log(SL_LOG_ERROR, "snode", "cannot listen url=%s: %s", url, err.msg);
        sl_rpc_client_close(sd.sd_mnode);
        sl__sn_state_close(&sd);
        return 1;
    }
    if (sl__sn_notify_open(&sd, &err) < 0) {
        sl_log(SL_LOG_ERROR, "snode", "cannot open the notifier: %s", err.msg);
        sl_rpc_server_close(sd.sd_srv);
        sl_rpc_client_close(sd.sd_mnode);
        sl__sn_state_close(&sd);
        return 1;
    }
    sd.sd_notify_open = true;
    uv_signal_init(sd.sd_loop, &sd.sd_sigterm);
    uv_signal_init(sd.sd_loop, &sd.sd_sigint);
    sd.sd_sigterm.data = sd.sd_sigint.data = &sd;
    uv_signal_start(&sd.sd_sigterm, on_signal, SIGTERM);
    uv_signal_start(&sd.sd_sigint, on_signal, SIGINT);
    uv_timer_init(sd.sd_loop, &sd.sd_stop);
    sd.sd_stop.data = &sd;
    uv_timer_init(sd.sd_loop, &sd.sd_tick);
    sd.sd_tick.data = &sd;
    uv_timer_start(&sd.sd_tick, sl__sn_tick, 0, (uint64_t)sd.sd_heartbeat_ms);
    sl_log(SL_LOG_INFO, "snode",
           "listening url=%s advertise=%s mnode=%s data=%s heartbeat_ms=%d nice=%s", url,
           sd.sd_addr, o.mnode, o.data, sd.sd_heartbeat_ms, nice_name);
    uv_run(sd.sd_loop, UV_RUN_DEFAULT);
    sl__sn_shutdown(&sd);
    uv_run(sd.sd_loop, UV_RUN_DEFAULT);
    sl__sn_assignment_fini(&sd.sd_as);
    sl__sn_state_close(&sd);
    uv_run(sd.sd_loop, UV_RUN_NOWAIT);
    uv_loop_close(sd.sd_loop);
    sl_log(SL_LOG_INFO, "snode", "stopped exit=%d", sd.sd_exit_code);
    return sd.sd_exit_code;
}
