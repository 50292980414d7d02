/*
 * bench_cluster.h - a throw-away local cluster for the benchmarks: one sluice-mnode, N
 * sluice-vnode and M sluice-snode processes started from the bin folder of the running
 * benchmark, on free loopback ports, with data and logs in a fresh temporary folder.
 *
 * The benchmark owns the processes: they are forked and exec'd here (each in its own process
 * group, so a Ctrl-C reaches only the benchmark, and with a parent-death signal, so they
 * never outlive it), watched for unexpected exits, and stopped at the end - snodes first,
 * SIGTERM then SIGKILL - also when the benchmark exits through exit() on an error path
 * (atexit) or is interrupted by SIGINT/SIGTERM (signal handler: SIGKILL, remove the folder).
 * Nothing of the test suite (tests/cluster) or of scripts/sluice-local is reused, so the
 * benchmark measures exactly the daemons it starts. For failover measurements an snode can be
 * killed with SIGKILL and started again as itself (same data folder, port and node id).
 *
 * One cluster per process at a time. Not thread-safe: call from the benchmark's main thread.
 */
#ifndef SL_BENCH_CLUSTER_H
#define SL_BENCH_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct bench_cluster bench_cluster;

/* What to start. */
typedef struct bench_cluster_opts {
    int vnodes;           /* sluice-vnode processes, >= 1 */
    int snodes;           /* sluice-snode processes, >= 0 */
    int heartbeat_ms;     /* snodes' --heartbeat-ms (0: the daemon's default) */
    const char *snode_nice;  /* snodes' --nice, "0".."19" or "idle" (NULL: not given) */
    const char *reader_nice; /* vnodes' --reader-nice (NULL: not given) */
    int node_timeout_ms;  /* mnode's --node-timeout-ms (0: the daemon's default) */
    bool keep;            /* leave the folder (data, logs) behind at the end */
    const char *tag;      /* folder /tmp/sluice-bench-TAG.XXXXXX (NULL: "stream"); borrowed,
                             must outlive the cluster */
} bench_cluster_opts;

/*
 * Starts the cluster and waits (up to 30 s) until the mnode answers and lists every vnode
 * and snode as alive. Binaries come from the folder of /proc/self/exe. Progress goes to
 * stderr. Returns 0 and *out (stop with bench_cluster_stop), or -1 with a message in
 * msg (msglen bytes) naming what failed (a missing binary, a daemon that exited - with the
 * tail of its log -, a timeout); whatever was started is then stopped again.
 */
int bench_cluster_start(bench_cluster **out, const bench_cluster_opts *o, char *msg,
                        size_t msglen);

/*
 * Stops every daemon (snodes, then vnodes, then the mnode; SIGTERM, SIGKILL after 10 s),
 * prints a warning on stderr for each that exited with a non-zero status or a signal, and
 * removes the folder unless opts.keep. NULL-safe.
 */
void bench_cluster_stop(bench_cluster *c);

/* Loopback port of the mnode (the client connects to 127.0.0.1 on it). */
int bench_cluster_mnode_port(const bench_cluster *c);

/* The cluster's folder (data and logs: mnode.log, vnodeI.log, snodeI.log). Borrowed. */
const char *bench_cluster_dir(const bench_cluster *c);

/* Number of snodes started. */
int bench_cluster_nsnodes(const bench_cluster *c);

/* Pid of snode i (0 <= i < nsnodes). */
pid_t bench_cluster_snode_pid(const bench_cluster *c, int i);

/* Pid of the daemon named name ("mnode", "vnode1", "snode2", ...; the names of the log
 * files), 0 when there is none or it exited. */
pid_t bench_cluster_pid(const bench_cluster *c, const char *name);

/* The address snode i registered under ("tcp://127.0.0.1:PORT"). Borrowed. */
const char *bench_cluster_snode_addr(const bench_cluster *c, int i);

/*
 * Checks that every daemon still runs. Returns 0, or -1 with a message in msg naming the
 * first daemon that exited, how, and the last lines of its log.
 */
int bench_cluster_check(bench_cluster *c, char *msg, size_t msglen);

/*
 * Kills snode i (0 <= i < nsnodes) with SIGKILL - no drain, no LEAVE: to the mnode it
 * simply stops heartbeating - and reaps it before returning, so bench_cluster_check does
 * not report it and bench_cluster_stop does not warn about it. Its data folder, port and
 * log stay. Returns 0, or -1 when it does not run.
 */
int bench_cluster_kill_snode(bench_cluster *c, int i);

/*
 * Starts snode i again after bench_cluster_kill_snode (or after it exited) with the same
 * flags, data folder and port, so it registers under the same address and gets the same
 * node id back. Its log is appended to. Does not wait for the registration: watch
 * ins_snodes. Returns 0, or -1 with a message in msg (it still runs, fork failed).
 */
int bench_cluster_restart_snode(bench_cluster *c, int i, char *msg, size_t msglen);

/* Keeps the cluster's folder at bench_cluster_stop (evidence for a failed check). */
void bench_cluster_keep(bench_cluster *c);

/*
 * Counts how often the log of snode i holds the text pat (0 when unreadable). The snodes
 * log "stream DB.NAME running on N vgroup(s)" when a stream's task is set up.
 */
int bench_cluster_snode_log_count(const bench_cluster *c, int i, const char *pat);

/* CPU time (user + system, seconds) of process pid from /proc/PID/stat; -1 on error. */
double bench_proc_cpu_sec(pid_t pid);

/* CPU time (seconds) of the threads of process pid named comm (/proc/PID/task/TID/stat;
 * threads that ended are not counted); -1 when the process is gone. */
double bench_thread_cpu_sec(pid_t pid, const char *comm);

/* Resident set size (VmRSS, bytes) of process pid from /proc/PID/status; -1 on error. */
long long bench_proc_rss_bytes(pid_t pid);

#endif
