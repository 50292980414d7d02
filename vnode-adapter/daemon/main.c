/*
 * main.c - sluice-vnode: flags and config, the RPC server, the mnode link's timer and
 * clean shutdown on SIGTERM/SIGINT; `--health` checks a running one.
 *
 * Configuration: `--config FILE` holds `key = value` lines with the flags' long names
 * (data, port, host, advertise, mnode, log-level, ...), the environment SLUICE_DATA,
 * SLUICE_ADVERTISE, ...; flags on the command line win over the environment, which wins
 * over the file (common/util/daemon.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util/daemon.h"
#include "common/util/log.h"
#include "vdaemon.h"

#define VD_DEFAULT_PORT 6100
/* Change-log entries a vgroup keeps until stream checkpoints set a low-water mark. */
#define VD_DEFAULT_LOG_ENTRIES 1000000
/* The change reader thread's nice value: client writes first, stream reads after. */
#define VD_DEFAULT_READER_NICE 10

typedef struct vd_opts {
    char data[1024];
    char host[256];
    char advertise[300];
    char mnode[300];
    int port;
    char log_level[16];
    uint64_t log_max_entries; /* change-log cap per vgroup (entries), 0: none */
    uint64_t log_max_bytes;   /* change-log cap per vgroup (bytes), 0: none */
    int reader_nice;          /* CPU priority of the change reader thread */
    int yield_ms;             /* most a change-log read waits for heavy writes */
    int yield_writes;         /* percent of the loop's time in writes that is heavy */
    int yield_demand;         /* percent of CPU demand that is short of CPU */
    bool health;              /* --health: check the running vnode and exit */
} vd_opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sluice-vnode [options]\n"
            "  --help               this text\n"
            "  --config FILE        key = value settings (same names as the flags)\n"
            "  --data DIR           data directory (default ./vnode-data)\n"
            "  --port N             listen port (default %d)\n"
            "  --host ADDR          listen address (default 127.0.0.1)\n"
            "  --advertise URL      address registered with the mnode (default tcp://HOST:PORT;\n"
            "                       auto: tcp://HOSTNAME:PORT with this machine's host name)\n"
            "  --mnode URL          the mnode (default tcp://127.0.0.1:6030)\n"
            "  --log-level LEVEL    debug, info, warn, error (default info)\n"
            "  --changelog-max-entries N  change-log entries kept per vgroup beyond the\n"
            "                       low-water mark (default %d; 0 keeps all)\n"
            "  --changelog-max-bytes N    change-log bytes kept per vgroup (default 0: no cap)\n"
            "  --reader-nice N|idle CPU priority of the thread answering change-log reads (the\n"
            "                       streams' trigger readers), 0..19 (default %d) or idle\n"
            "                       (SCHED_IDLE): client writes come first when the host is\n"
            "                       short of CPU\n"
            "  --stream-yield-ms N  while client writes keep the vnode busy (a bulk load),\n"
            "                       hold each change-log read up to N ms so that the streams\n"
            "                       catch up after the load instead of slowing it (default %d;\n"
            "                       0: never hold)\n"
            "  --stream-yield-writes P  the share of its time (percent) the vnode must spend\n"
            "                       applying client writes for reads to be held (default %d)\n"
            "  --stream-yield-demand P  and the share of the time (percent) its loop thread\n"
            "                       must run or wait for a CPU (default %d: the host is short\n"
            "                       of CPU); 0 and 0 hold every read. A stream not yet\n"
            "                       yielding is told at once instead, and its snode works at\n"
            "                       idle priority until the writes calm down\n"
            "  --health             do not start: check the vnode running with these settings;\n"
            "                       exit 0 when it answers and has its node id from the mnode\n"
            "                       in DATA/node_id, 1 otherwise (the container healthcheck)\n",
            VD_DEFAULT_PORT, VD_DEFAULT_LOG_ENTRIES, VD_DEFAULT_READER_NICE,
            VN_DEFAULT_YIELD_MS, (int)(VN_WBUSY_WRITES * 100), (int)(VN_DEMAND_HEAVY * 100));
}

static const sl_daemon_opt vd_settings[] = {
    SL_DOPT_STRING(vd_opts, "data", data),
    SL_DOPT_NUMBER(vd_opts, "port", port, SL_DOPT_INT, 1, 65535, NULL),
    SL_DOPT_STRING(vd_opts, "host", host),
    SL_DOPT_STRING(vd_opts, "advertise", advertise),
    SL_DOPT_STRING(vd_opts, "mnode", mnode),
    SL_DOPT_LEVEL(vd_opts, "log-level", log_level),
    SL_DOPT_NUMBER(vd_opts, "changelog-max-entries", log_max_entries, SL_DOPT_U64, 0, 0, NULL),
    SL_DOPT_NUMBER(vd_opts, "changelog-max-bytes", log_max_bytes, SL_DOPT_U64, 0, 0, NULL),
    SL_DOPT_PRIORITY(vd_opts, "reader-nice", reader_nice),
    SL_DOPT_NUMBER(vd_opts, "stream-yield-ms", yield_ms, SL_DOPT_INT, 0, 60000, NULL),
    SL_DOPT_NUMBER(vd_opts, "stream-yield-writes", yield_writes, SL_DOPT_INT, 0, 100, NULL),
    SL_DOPT_NUMBER(vd_opts, "stream-yield-demand", yield_demand, SL_DOPT_INT, 0, 100, NULL),
    SL_DOPT_FLAG(vd_opts, "health", health),
};

static const sl_daemon_cli vd_cli = {
    .dc_prog = "sluice-vnode",
    .dc_usage = usage,
    .dc_opts = vd_settings,
    .dc_nopts = sizeof(vd_settings) / sizeof(vd_settings[0]),
};

typedef struct vd_main {
    sl_vdaemon *vd;
    uv_signal_t sigterm, sigint;
} vd_main;

static void on_signal(uv_signal_t *h, int signum)
{
    vd_main *m = h->data;
    sl_vdaemon *vd = m->vd;
    sl_log(SL_LOG_INFO, "vnode", "signal %d: shutting down", signum);
    vd->vd_stopping = true;
    sl__vn_syncer_stop(vd); /* acknowledge (durably) what was applied before replies close */
    uv_check_stop(&vd->vd_commit);
    uv_close((uv_handle_t *)&vd->vd_commit, NULL);
    uv_timer_stop(&vd->vd_tick);
    uv_close((uv_handle_t *)&vd->vd_tick, NULL);
    uv_close((uv_handle_t *)&m->sigterm, NULL);
    uv_close((uv_handle_t *)&m->sigint, NULL);
    /* Polls and cursors first (they hold reply handles and snapshots), then the server. */
    sl__vn_cursors_sweep(vd, 0, NULL);
    for (int i = 0; i < vd->vd_nvgroups; i++)
        sl__vn_fail_polls(vd, vd->vd_vgroups[i]);
    sl__vn_reader_stop(vd);
    sl_rpc_server_log_served(vd->vd_srv, "vnode");
    sl_rpc_server_close(vd->vd_srv);
    vd->vd_srv = NULL;
    sl_rpc_client_close(vd->vd_mnode);
    vd->vd_mnode = NULL;
}

/*
 * --health: the vnode's server must answer (a request for an unknown method, which the RPC
 * server answers SL_EUNSUPPORTED from its loop without touching the vnode's state or the
 * mnode), bounded by 3 s, and DATA/node_id must hold the node id the mnode gave it.
 */
#define VD_HEALTH_METHOD 0x7fff

static int health(const vd_opts *o)
{
    char url[320];
    sl_daemon_local_url(url, sizeof(url), o->host, o->port);
    sl_error err = {0};
    sl_error_clear(&err);
    sl_rpc_client *c = NULL;
    int rc = sl_rpc_client_open(&c, url, NULL, &err);
    if (rc == 0) {
        rc = sl_rpc_call(c, VD_HEALTH_METHOD, 0, NULL, 0, NULL, 3000, &err);
        if (rc == SL_EUNSUPPORTED)
            rc = 0;
        else if (rc == 0)
            rc = SL_ECORRUPT; /* something else answers on that port */
    }
    sl_rpc_client_close(c);
    if (rc < 0) {
        printf("unhealthy: vnode %s: %s\n", url, err.msg[0] ? err.msg : sl_strerror(rc));
        return 1;
    }
    char path[1100];
    snprintf(path, sizeof(path), "%s/node_id", o->data);
    unsigned id = 0;
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        if (fscanf(f, "%u", &id) != 1)
            id = 0;
        fclose(f);
    }
    if (id == 0) {
        printf("unhealthy: vnode %s answers but has no node id in %s (not registered)\n", url,
               path);
        return 1;
    }
    printf("healthy: vnode %s node_id=%u\n", url, id);
    return 0;
}

int main(int argc, char **argv)
{
    vd_opts o = {.port = VD_DEFAULT_PORT};
    snprintf(o.data, sizeof(o.data), "./vnode-data");
    snprintf(o.host, sizeof(o.host), "127.0.0.1");
    snprintf(o.mnode, sizeof(o.mnode), "tcp://127.0.0.1:6030");
    snprintf(o.log_level, sizeof(o.log_level), "info");
    o.log_max_entries = VD_DEFAULT_LOG_ENTRIES;
    o.reader_nice = VD_DEFAULT_READER_NICE;
    o.yield_ms = VN_DEFAULT_YIELD_MS;
    o.yield_writes = (int)(VN_WBUSY_WRITES * 100);
    o.yield_demand = (int)(VN_DEMAND_HEAVY * 100);
    int exit_code;
    if (!sl_daemon_args(&vd_cli, &o, argc, argv, &exit_code))
        return exit_code;
    if (o.health)
        return health(&o);
    sl_error err = {0};
    sl_error_clear(&err);

    static sl_vdaemon vd;
    vd.vd_loop = uv_default_loop();
    vd.vd_next_cursor = (uint64_t)sl__vn_now_ms() << 16;
    snprintf(vd.vd_data, sizeof(vd.vd_data), "%s", o.data);
    snprintf(vd.vd_mnode_url, sizeof(vd.vd_mnode_url), "%s", o.mnode);
    vd.vd_log_max_entries = o.log_max_entries;
    vd.vd_log_max_bytes = o.log_max_bytes;
    vd.vd_yield_ms = o.yield_ms;
    vd.vd_yield_writes = o.yield_writes / 100.0;
    vd.vd_yield_demand = o.yield_demand / 100.0;
    sl_busy_init(&vd.vd_wbusy, (uint64_t)VN_BUSY_TAU_MS * 1000000u);
    sl_busy_init(&vd.vd_demand, (uint64_t)VN_BUSY_TAU_MS * 1000000u);
    sl_busy_init(&vd.vd_demand_fast, (uint64_t)VN_DEMAND_FAST_TAU_MS * 1000000u);
    /* The loop runs on this thread. */
    vd.vd_schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    atomic_store(&vd.vd_sched_ok, vd.vd_schedstat_fd >= 0);
    if (sl_daemon_advertise(vd.vd_addr, sizeof(vd.vd_addr), o.advertise, o.host, o.port) < 0) {
        sl_log(SL_LOG_ERROR, "vnode", "bad advertise=%s: cannot build the address",
               o.advertise);
        return 1;
    }
    if (mkdir(o.data, 0755) < 0 && errno != EEXIST) {
        sl_log(SL_LOG_ERROR, "vnode", "cannot create data dir=%s: %s", o.data, strerror(errno));
        return 1;
    }
    int rc = sl_rpc_client_open(&vd.vd_mnode, o.mnode, NULL, &err);
    if (rc < 0) {
        sl_log(SL_LOG_ERROR, "vnode", "bad mnode url=%s: %s", o.mnode, err.msg);
        return 1;
    }
    char url[320];
    snprintf(url, sizeof(url), "tcp://%s:%d", o.host, o.port);
    sl_rpc_limits lim;
    sl_rpc_limits_default(&lim);
    lim.max_msg_bytes = 64u << 20;
    lim.max_inflight = 256;
    rc = sl_rpc_server_open(&vd.vd_srv, vd.vd_loop, url, sl__vnode_methods, sl__vnode_nmethods,
                            &vd, &lim, &err);
    if (rc < 0) {
        sl_log(SL_LOG_ERROR, "vnode", "cannot listen url=%s: %s", url, err.msg);
        sl_rpc_client_close(vd.vd_mnode);
        return 1;
    }
    if (sl__vn_reader_start(&vd, o.reader_nice, &err) < 0 ||
        sl__vn_syncer_start(&vd, &err) < 0) {
        sl_log(SL_LOG_ERROR, "vnode", "%s", err.msg);
        sl_rpc_server_close(vd.vd_srv);
        sl_rpc_client_close(vd.vd_mnode);
        return 1;
    }
    vd_main m = {.vd = &vd};
    uv_signal_init(vd.vd_loop, &m.sigterm);
    uv_signal_init(vd.vd_loop, &m.sigint);
    m.sigterm.data = m.sigint.data = &m;
    uv_signal_start(&m.sigterm, on_signal, SIGTERM);
    uv_signal_start(&m.sigint, on_signal, SIGINT);
    vd.vd_pending_tail = &vd.vd_pending;
    uv_check_init(vd.vd_loop, &vd.vd_commit);
    vd.vd_commit.data = &vd;
    uv_check_start(&vd.vd_commit, sl__vn_commit_cb);
    uv_timer_init(vd.vd_loop, &vd.vd_tick);
    vd.vd_tick.data = &vd;
    uv_timer_start(&vd.vd_tick, sl__vn_tick, 0, 1000);
    char nb[16];
    sl_log(SL_LOG_INFO, "vnode",
           "listening url=%s advertise=%s mnode=%s data=%s reader_nice=%s stream_yield_ms=%d",
           url, vd.vd_addr, o.mnode, o.data,
           sl_daemon_priority_name(o.reader_nice, nb, sizeof(nb)), o.yield_ms);
    uv_run(vd.vd_loop, UV_RUN_DEFAULT);
    sl_rpc_server_close(vd.vd_srv);
    sl_rpc_client_close(vd.vd_mnode);
    uv_run(vd.vd_loop, UV_RUN_DEFAULT);
    while (vd.vd_nvgroups > 0)
        sl__vn_vgroup_close(&vd, vd.vd_vgroups[vd.vd_nvgroups - 1]);
    free(vd.vd_vgroups);
    uv_run(vd.vd_loop, UV_RUN_NOWAIT);
    uv_loop_close(vd.vd_loop);
    sl_log(SL_LOG_INFO, "vnode", "stopped");
    return 0;
}
