/* bench_cluster.c - see bench_cluster.h. */
#define _GNU_SOURCE /* mkdtemp, prctl */
#include "bench_cluster.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "client/lib/sluice.h"

#define BC_MAX_PROCS 64
#define BC_START_TIMEOUT_S 30.0
#define BC_STOP_TIMEOUT_S 10.0

typedef struct bc_proc {
    char name[24];  /* "mnode", "vnode1", "snode2" */
    pid_t pid;      /* 0 once reaped */
    int status;     /* wait status once reaped */
    int port;
    char addr[64];  /* tcp://127.0.0.1:PORT */
} bc_proc;

struct bench_cluster {
    bench_cluster_opts opts;
    char bindir[PATH_MAX];
    char dir[256];
    bc_proc procs[BC_MAX_PROCS]; /* mnode, vnodes, snodes in that order */
    int nprocs;
    int mport;
};

/* The running cluster, for the atexit hook and the signal handler. */
static bench_cluster *g_cluster;

static void fmt(char *msg, size_t msglen, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(msg, msglen, f, ap);
    va_end(ap);
}

/* Reserves n distinct free loopback ports: all sockets stay bound until every port is
 * known, so no two are the same (another program may still take one before the daemon
 * binds it; the start then fails with that daemon's log). */
static int free_ports(int *ports, int n)
{
    int fds[BC_MAX_PROCS];
    int rc = 0, k = 0;
    for (; k < n; k++) {
        fds[k] = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof(a);
        if (fds[k] < 0 || bind(fds[k], (struct sockaddr *)&a, sizeof(a)) != 0 ||
            getsockname(fds[k], (struct sockaddr *)&a, &len) != 0) {
            rc = -1;
            k++;
            break;
        }
        ports[k] = ntohs(a.sin_port);
    }
    for (int i = 0; i < k; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    return rc;
}

/* Reaps p without blocking; true when it has exited. */
static bool proc_exited(bc_proc *p)
{
    if (p->pid == 0)
        return true;
    int st;
    pid_t r = waitpid(p->pid, &st, WNOHANG);
    if (r == p->pid || (r < 0 && errno == ECHILD)) {
        p->status = r == p->pid ? st : 0;
        p->pid = 0;
        return true;
    }
    return false;
}

static void describe_status(int st, char *out, size_t n)
{
    if (WIFEXITED(st))
        snprintf(out, n, "exited with status %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(out, n, "was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(out, n, "stopped (wait status %d)", st);
}

/* Appends the last `lines` lines of the daemon's log to msg. */
static void append_log_tail(const bench_cluster *c, const bc_proc *p, char *msg, size_t msglen,
                            int lines)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s.log", c->dir, p->name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    char buf[4096];
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    long from = size > (long)sizeof(buf) - 1 ? size - (long)sizeof(buf) + 1 : 0;
    fseek(f, from, SEEK_SET);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *start = buf + n;
    for (int seen = 0; start > buf; start--)
        if (start[-1] == '\n' && start != buf + n && ++seen > lines)
            break;
    size_t used = strlen(msg);
    snprintf(msg + used, msglen - used, "\n--- last lines of %s ---\n%s", path, start);
}

static int spawn(bench_cluster *c, bc_proc *p, char *const argv[], char *msg, size_t msglen)
{
    char log[PATH_MAX];
    snprintf(log, sizeof(log), "%s/%s.log", c->dir, p->name);
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        fmt(msg, msglen, "cannot open %s: %s", log, strerror(errno));
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        fmt(msg, msglen, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* Only async-signal-safe calls between fork and exec. */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        int in = open("/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        execv(argv[0], argv);
        static const char e[] = "bench_cluster: exec failed\n";
        ssize_t w = write(2, e, sizeof(e) - 1);
        (void)w;
        _exit(127);
    }
    close(fd);
    p->pid = pid;
    p->status = 0;
    return 0;
}

/* Starts daemon p (an entry of c->procs) with its flags: the same data folder, port and
 * settings every time, so a restarted daemon comes back as itself. */
static int start_proc(bench_cluster *c, bc_proc *p, char *msg, size_t msglen)
{
    const bench_cluster_opts *o = &c->opts;
    char exe[PATH_MAX + 32], data[512], port[16], hb[16], nt[24], maddr[64];
    snprintf(maddr, sizeof(maddr), "tcp://127.0.0.1:%d", c->mport);
    snprintf(exe, sizeof(exe), "%s/sluice-%.5s", c->bindir, p->name);
    snprintf(data, sizeof(data), "%s/%s", c->dir, p->name);
    snprintf(port, sizeof(port), "%d", p->port);
    char *argv[16];
    int k = 0;
    argv[k++] = exe;
    argv[k++] = "--data";
    argv[k++] = data;
    argv[k++] = "--port";
    argv[k++] = port;
    if (p == &c->procs[0]) {
        if (o->node_timeout_ms > 0) {
            snprintf(nt, sizeof(nt), "%d", o->node_timeout_ms);
            argv[k++] = "--node-timeout-ms";
            argv[k++] = nt;
        }
    } else {
        argv[k++] = "--mnode";
        argv[k++] = maddr;
        if (p->name[0] == 's' && o->heartbeat_ms > 0) {
            snprintf(hb, sizeof(hb), "%d", o->heartbeat_ms);
            argv[k++] = "--heartbeat-ms";
            argv[k++] = hb;
        }
        if (p->name[0] == 's' && o->snode_nice != NULL) {
            argv[k++] = "--nice";
            argv[k++] = (char *)o->snode_nice;
        }
        if (p->name[0] == 'v' && o->reader_nice != NULL) {
            argv[k++] = "--reader-nice";
            argv[k++] = (char *)o->reader_nice;
        }
    }
    argv[k] = NULL;
    return spawn(c, p, argv, msg, msglen);
}

static void on_signal(int sig)
{
    bench_cluster *c = g_cluster;
    if (c != NULL) {
        for (int i = 0; i < c->nprocs; i++)
            if (c->procs[i].pid > 0)
                kill(c->procs[i].pid, SIGKILL);
        for (int i = 0; i < c->nprocs; i++)
            if (c->procs[i].pid > 0)
                waitpid(c->procs[i].pid, NULL, 0);
        if (!c->opts.keep) {
            pid_t rm = fork();
            if (rm == 0) {
                execl("/bin/rm", "rm", "-rf", c->dir, (char *)NULL);
                _exit(127);
            }
            if (rm > 0)
                waitpid(rm, NULL, 0);
        }
    }
    static const char m[] = "\nsluice-bench: interrupted; the local cluster was killed\n";
    ssize_t w = write(2, m, sizeof(m) - 1);
    (void)w;
    _exit(128 + sig);
}

static void at_exit(void)
{
    if (g_cluster != NULL)
        bench_cluster_stop(g_cluster);
}

/* Connects to the mnode and counts the alive vnodes and snodes among ours. Returns -1 when
 * the mnode does not answer. */
static int count_alive(bench_cluster *c, int *vn, int *sn)
{
    sl_conn *conn;
    sl_error err;
    sl_error_clear(&err);
    if (sl_connect("127.0.0.1", c->mport, &conn, &err) != 0)
        return -1;
    *vn = *sn = 0;
    static const char *const q[2] = {
        "SELECT endpoint FROM information_schema.ins_dnodes WHERE kind = 'vnode' AND "
        "status = 'alive'",
        "SELECT endpoint FROM information_schema.ins_snodes WHERE status = 'alive'"};
    for (int k = 0; k < 2; k++) {
        sl_result res;
        if (sl_query(conn, q[k], &res, &err) != 0)
            continue;
        for (uint32_t r = 0; r < sl_res_nrows(&res); r++) {
            uint32_t len;
            const char *s = sl_res_str(&res, r, 0, &len);
            for (int i = 1; i < c->nprocs; i++) {
                const bc_proc *p = &c->procs[i];
                bool is_vnode = p->name[0] == 'v';
                if ((k == 0) == is_vnode && strlen(p->addr) == len && memcmp(p->addr, s, len) == 0)
                    (*(k == 0 ? vn : sn))++;
            }
        }
        sl_result_fini(&res);
    }
    sl_close(conn);
    return 0;
}

int bench_cluster_start(bench_cluster **out, const bench_cluster_opts *o, char *msg,
                        size_t msglen)
{
    msg[0] = '\0';
    if (g_cluster != NULL || o->vnodes < 1 || o->snodes < 0 ||
        1 + o->vnodes + o->snodes > BC_MAX_PROCS) {
        fmt(msg, msglen, "bad cluster options (or a cluster already runs)");
        return -1;
    }
    bench_cluster *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        fmt(msg, msglen, "out of memory");
        return -1;
    }
    c->opts = *o;
    ssize_t n = readlink("/proc/self/exe", c->bindir, sizeof(c->bindir) - 1);
    char *slash = n > 0 ? (c->bindir[n] = '\0', strrchr(c->bindir, '/')) : NULL;
    if (slash == NULL) {
        fmt(msg, msglen, "cannot find the benchmark's own folder");
        free(c);
        return -1;
    }
    *slash = '\0';
    static const char *const bins[] = {"sluice-mnode", "sluice-vnode", "sluice-snode"};
    for (int i = 0; i < 3; i++) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof(path), "%s/%s", c->bindir, bins[i]);
        if (access(path, X_OK) != 0) {
            fmt(msg, msglen, "%s not found: build it (it must sit beside sluice-bench)", path);
            free(c);
            return -1;
        }
    }
    snprintf(c->dir, sizeof(c->dir), "/tmp/sluice-bench-%s.XXXXXX",
             o->tag != NULL ? o->tag : "stream");
    if (mkdtemp(c->dir) == NULL) {
        fmt(msg, msglen, "mkdtemp: %s", strerror(errno));
        free(c);
        return -1;
    }
    int nprocs = 1 + o->vnodes + o->snodes;
    int ports[BC_MAX_PROCS] = {0};
    if (free_ports(ports, nprocs) != 0) {
        fmt(msg, msglen, "cannot reserve %d loopback ports", nprocs);
        bench_rm_rf(c->dir);
        free(c);
        return -1;
    }
    c->mport = ports[0];
    for (int i = 0; i < nprocs; i++) {
        bc_proc *p = &c->procs[i];
        if (i == 0)
            snprintf(p->name, sizeof(p->name), "mnode");
        else if (i <= o->vnodes)
            snprintf(p->name, sizeof(p->name), "vnode%d", i);
        else
            snprintf(p->name, sizeof(p->name), "snode%d", i - o->vnodes);
        p->port = ports[i];
        snprintf(p->addr, sizeof(p->addr), "tcp://127.0.0.1:%d", ports[i]);
    }

    g_cluster = c;
    static bool hooked;
    if (!hooked) {
        atexit(at_exit);
        struct sigaction sa = {.sa_handler = on_signal};
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        hooked = true;
    }

    fprintf(stderr, "cluster: starting mnode, %d vnodes, %d snodes in %s\n", o->vnodes,
            o->snodes, c->dir);
    for (int i = 0; i < nprocs; i++) {
        if (start_proc(c, &c->procs[i], msg, msglen) != 0)
            goto fail;
        c->nprocs++;
    }

    /* Wait until the mnode answers and lists every vnode and snode as alive. */
    double deadline = bench_now() + BC_START_TIMEOUT_S;
    int vn = 0, sn = 0;
    for (;;) {
        if (bench_cluster_check(c, msg, msglen) != 0)
            goto fail;
        if (count_alive(c, &vn, &sn) == 0 && vn == o->vnodes && sn == o->snodes)
            break;
        if (bench_now() > deadline) {
            fmt(msg, msglen, "after %.0f s the mnode lists %d of %d vnodes and %d of %d snodes "
                "as alive; logs in %s", BC_START_TIMEOUT_S, vn, o->vnodes, sn, o->snodes,
                c->dir);
            c->opts.keep = true; /* the logs tell why */
            goto fail;
        }
        usleep(100000);
    }
    fprintf(stderr, "cluster: up, mnode 127.0.0.1:%d\n", c->mport);
    *out = c;
    return 0;

fail:
    bench_cluster_stop(c);
    return -1;
}

static void stop_procs(bench_cluster *c, char kind)
{
    for (int i = 0; i < c->nprocs; i++)
        if (c->procs[i].name[0] == kind && c->procs[i].pid > 0)
            kill(c->procs[i].pid, SIGTERM);
    double deadline = bench_now() + BC_STOP_TIMEOUT_S;
    for (;;) {
        bool left = false;
        for (int i = 0; i < c->nprocs; i++)
            if (c->procs[i].name[0] == kind && !proc_exited(&c->procs[i]))
                left = true;
        if (!left)
            return;
        if (bench_now() > deadline)
            break;
        usleep(20000);
    }
    for (int i = 0; i < c->nprocs; i++) {
        bc_proc *p = &c->procs[i];
        if (p->name[0] == kind && p->pid > 0) {
            fprintf(stderr, "sluice-bench: %s did not stop in %.0f s; killing it\n", p->name,
                    BC_STOP_TIMEOUT_S);
            kill(p->pid, SIGKILL);
            waitpid(p->pid, &p->status, 0);
            p->pid = 0;
        }
    }
}

void bench_cluster_stop(bench_cluster *c)
{
    if (c == NULL)
        return;
    stop_procs(c, 's');
    stop_procs(c, 'v');
    stop_procs(c, 'm');
    for (int i = 0; i < c->nprocs; i++) {
        const bc_proc *p = &c->procs[i];
        if (p->status != 0) {
            char how[96];
            describe_status(p->status, how, sizeof(how));
            fprintf(stderr, "sluice-bench: warning: at shutdown %s %s (log: %s/%s.log%s)\n",
                    p->name, how, c->dir, p->name, c->opts.keep ? "" : ", removed");
        }
    }
    if (c->opts.keep)
        fprintf(stderr, "cluster: data and logs kept in %s\n", c->dir);
    else
        bench_rm_rf(c->dir);
    if (g_cluster == c)
        g_cluster = NULL;
    free(c);
}

int bench_cluster_check(bench_cluster *c, char *msg, size_t msglen)
{
    for (int i = 0; i < c->nprocs; i++) {
        bc_proc *p = &c->procs[i];
        if (p->pid == 0 || !proc_exited(p))
            continue;
        char how[96];
        describe_status(p->status, how, sizeof(how));
        fmt(msg, msglen, "%s (%s) %s", p->name, p->addr, how);
        append_log_tail(c, p, msg, msglen, 15);
        c->opts.keep = true; /* keep the evidence */
        return -1;
    }
    return 0;
}

int bench_cluster_mnode_port(const bench_cluster *c)
{
    return c->mport;
}

const char *bench_cluster_dir(const bench_cluster *c)
{
    return c->dir;
}

int bench_cluster_nsnodes(const bench_cluster *c)
{
    return c->opts.snodes;
}

static const bc_proc *snode(const bench_cluster *c, int i)
{
    return &c->procs[1 + c->opts.vnodes + i];
}

pid_t bench_cluster_snode_pid(const bench_cluster *c, int i)
{
    return snode(c, i)->pid;
}

pid_t bench_cluster_pid(const bench_cluster *c, const char *name)
{
    for (int i = 0; i < c->nprocs; i++)
        if (strcmp(c->procs[i].name, name) == 0)
            return c->procs[i].pid;
    return 0;
}

const char *bench_cluster_snode_addr(const bench_cluster *c, int i)
{
    return snode(c, i)->addr;
}

int bench_cluster_kill_snode(bench_cluster *c, int i)
{
    if (i < 0 || i >= c->opts.snodes)
        return -1;
    bc_proc *p = &c->procs[1 + c->opts.vnodes + i];
    if (p->pid == 0 || proc_exited(p))
        return -1;
    if (kill(p->pid, SIGKILL) != 0)
        return -1;
    /* Reap it now: the exit was asked for, so neither bench_cluster_check nor the warning
     * of bench_cluster_stop may report it. */
    int st;
    while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
        ;
    p->pid = 0;
    p->status = 0;
    return 0;
}

int bench_cluster_restart_snode(bench_cluster *c, int i, char *msg, size_t msglen)
{
    msg[0] = '\0';
    if (i < 0 || i >= c->opts.snodes) {
        fmt(msg, msglen, "no snode %d", i + 1);
        return -1;
    }
    bc_proc *p = &c->procs[1 + c->opts.vnodes + i];
    if (p->pid != 0 && !proc_exited(p)) {
        fmt(msg, msglen, "%s still runs", p->name);
        return -1;
    }
    return start_proc(c, p, msg, msglen);
}

void bench_cluster_keep(bench_cluster *c)
{
    c->opts.keep = true;
}

int bench_cluster_snode_log_count(const bench_cluster *c, int i, const char *pat)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s.log", c->dir, snode(c, i)->name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    int count = 0;
    char line[4096];
    while (fgets(line, sizeof(line), f) != NULL)
        if (strstr(line, pat) != NULL)
            count++;
    fclose(f);
    return count;
}

/* utime + stime (seconds) of a /proc stat file; -1 when unreadable, or when comm is not
 * NULL and the file's command name differs. */
static double stat_cpu_sec(const char *path, const char *comm)
{
    char buf[2048];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* Fields after the command name (which may hold spaces) start after the last ')':
     * state(3) ... utime(14) stime(15). */
    const char *open = strchr(buf, '(');
    const char *p = strrchr(buf, ')');
    if (open == NULL || p == NULL || p < open)
        return -1;
    if (comm != NULL &&
        ((size_t)(p - open - 1) != strlen(comm) || memcmp(open + 1, comm, strlen(comm)) != 0))
        return -1;
    unsigned long long utime = 0, stime = 0;
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
               &stime) != 2)
        return -1;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

double bench_proc_cpu_sec(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    return stat_cpu_sec(path, NULL);
}

double bench_thread_cpu_sec(pid_t pid, const char *comm)
{
    char path[96];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return -1;
    double sum = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%d/task/%.20s/stat", (int)pid, e->d_name);
        double s = stat_cpu_sec(path, comm);
        if (s > 0)
            sum += s;
    }
    closedir(d);
    return sum;
}

long long bench_proc_rss_bytes(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    long long kb = -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "VmRSS: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}
