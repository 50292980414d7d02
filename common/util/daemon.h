/*
 * daemon.h - the command line, environment and configuration file of the Sluice daemons.
 *
 * sluice-mnode, sluice-vnode and sluice-snode take the same shape of settings: `--help`,
 * `--config FILE` (a file of `key = value` lines, see config.h) and a set of typed
 * `--name VALUE` flags whose long names are also the file's keys. Every setting can also
 * come from the environment: `--foo-bar` is `SLUICE_FOO_BAR` (upper case, '-' as '_'), and
 * `SLUICE_CONFIG` names a config file when the command line gives none; that is how the
 * containers of docker/docker-compose.yml are configured. Precedence, highest first:
 * command-line flags, environment, config file, built-in defaults. Each daemon lists its
 * settings in one const table of sl_daemon_opt and calls sl_daemon_args(); the parsing,
 * the range checks, the error messages ("bad port '70000'") and the exit codes live here
 * once.
 */
#ifndef SL_DAEMON_H
#define SL_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum sl_daemon_opt_type {
    SL_DOPT_STR,       /* char[so_size], copied (truncated) as given */
    SL_DOPT_INT,       /* int, decimal in so_min..so_max */
    SL_DOPT_I64,       /* int64_t, decimal in so_min..so_max */
    SL_DOPT_U64,       /* uint64_t, decimal without a sign */
    SL_DOPT_LOG_LEVEL, /* char[so_size] holding a name sl_log_level_parse accepts */
    SL_DOPT_BOOL,      /* bool set by a flag without a value; command line only (no
                        * environment variable, no config key): for actions like --health */
    SL_DOPT_NICE,      /* int: a CPU priority, 0..19 or `idle` (SL_NICE_IDLE) */
} sl_daemon_opt_type;

/* The `idle` CPU priority: Linux's SCHED_IDLE class, which runs only when no other thread
 * of the host wants the CPU (nice 19 still takes a share of it). */
#define SL_NICE_IDLE 20

typedef struct sl_daemon_opt {
    const char *so_name;     /* long flag name and config-file key, e.g. "port" */
    sl_daemon_opt_type so_type;
    size_t so_offset;        /* offsetof() the field in the daemon's options struct */
    size_t so_size;          /* size of the field (buffer size for strings) */
    int64_t so_min, so_max;  /* inclusive range of SL_DOPT_INT / SL_DOPT_I64 */
    const char *so_hint;     /* appended to the "bad NAME 'VALUE'" message, or NULL */
} sl_daemon_opt;

/* Table entries for a field `field` of options struct type T, set by flag/key `name`. */
#define SL_DOPT_STRING(T, name, field)                                                     \
    {.so_name = (name), .so_type = SL_DOPT_STR, .so_offset = offsetof(T, field),          \
     .so_size = sizeof(((T *)0)->field)}
#define SL_DOPT_LEVEL(T, name, field)                                                      \
    {.so_name = (name), .so_type = SL_DOPT_LOG_LEVEL, .so_offset = offsetof(T, field),    \
     .so_size = sizeof(((T *)0)->field)}
#define SL_DOPT_FLAG(T, name, field)                                                       \
    {.so_name = (name), .so_type = SL_DOPT_BOOL, .so_offset = offsetof(T, field),         \
     .so_size = sizeof(((T *)0)->field)}
#define SL_DOPT_PRIORITY(T, name, field)                                                   \
    {.so_name = (name), .so_type = SL_DOPT_NICE, .so_offset = offsetof(T, field),         \
     .so_size = sizeof(((T *)0)->field), .so_hint = " (0..19 or idle)"}
#define SL_DOPT_NUMBER(T, name, field, type, lo, hi, hint)                                 \
    {.so_name = (name), .so_type = (type), .so_offset = offsetof(T, field),               \
     .so_size = sizeof(((T *)0)->field), .so_min = (lo), .so_max = (hi), .so_hint = (hint)}

typedef struct sl_daemon_cli {
    const char *dc_prog;            /* program name prefixed to messages, "sluice-mnode" */
    void (*dc_usage)(FILE *f);      /* prints the usage text to f */
    const sl_daemon_opt *dc_opts;   /* the settings table (borrowed) */
    size_t dc_nopts;                /* entries in dc_opts, at most 32 */
} sl_daemon_cli;

/*
 * Parses the settings into the options struct `opts` (borrowed, already holding the
 * defaults): first every `--config FILE` / `--config=FILE` in order (or, when there is
 * none, the file named by $SLUICE_CONFIG), then the environment ($SLUICE_FOO_BAR for each
 * setting `foo-bar` except SL_DOPT_BOOL ones; an empty variable counts as unset), then the
 * flags, so that flags win. `--help` prints the usage, then a paragraph on the environment
 * and precedence, on stdout. On success also sets the process log level from the
 * SL_DOPT_LOG_LEVEL setting, if the table has one. A bad value from the environment is
 * reported with the variable's name ("bad port '70000' (from SLUICE_PORT)").
 *
 * Returns true when the daemon should start. Returns false with *exit_code set when main
 * should return: 0 after --help, 2 after an error, which was written to stderr as
 * "PROG: message" (and the usage, for an unknown flag or a stray argument).
 * Start-up only: uses getopt_long's global state.
 */
bool sl_daemon_args(const sl_daemon_cli *cli, void *opts, int argc, char **argv,
                    int *exit_code);

/*
 * Writes into out (n bytes) the address a node registers with the mnode: `advertise`
 * itself when it is a URL, `tcp://HOSTNAME:port` when it is "auto" (HOSTNAME is
 * gethostname(): in a container, the container's own name on its networks, stable across
 * restarts of that container, so every replica of a scaled service gets its own address
 * and keeps it), and `tcp://host:port` when it is empty. Returns 0, or SL_EIO when the
 * host name cannot be read, SL_ELIMIT when the result does not fit.
 */
int sl_daemon_advertise(char *out, size_t n, const char *advertise, const char *host, int port);

/*
 * Writes into out (n bytes) the URL a local client (`--health`) dials to reach a daemon
 * listening on host:port: `tcp://127.0.0.1:port` when host is a wildcard ("0.0.0.0", "*",
 * "::" or empty), `tcp://host:port` otherwise.
 */
void sl_daemon_local_url(char *out, size_t n, const char *host, int port);

/*
 * Gives thread tid (0: the calling thread) the CPU priority nice: a nice value 1..19, or
 * SL_NICE_IDLE for the SCHED_IDLE class; 0 leaves it as it is. Threads created by it later
 * inherit it. Returns 0, or -1 with errno set.
 */
int sl_daemon_set_priority(int tid, int nice);

/*
 * A thread's temporary yield of the CPU: sl_daemon_thread_yield(true) moves the calling
 * thread to the SCHED_IDLE class (it runs only on a CPU nothing else wants), false back
 * to SCHED_OTHER at the nice value it had. Linux lets a thread leave SCHED_IDLE only with
 * the right to lower its nice value: sl_daemon_can_unyield(nice) says whether this process
 * has it for nice (root, CAP_SYS_NICE, or an RLIMIT_NICE of 20 - nice or more); without
 * it, do not yield (there would be no way back). 0 or -1 (errno).
 */
bool sl_daemon_can_unyield(int nice);
int sl_daemon_thread_yield(bool on);

/* "idle" for SL_NICE_IDLE, else the number (buf holds it). */
const char *sl_daemon_priority_name(int nice, char *buf, size_t n);

#endif
