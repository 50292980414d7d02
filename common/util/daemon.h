/*
 * daemon.h - the command line and configuration file of the Sluice daemons.
 *
 * sluice-mnode, sluice-vnode and sluice-snode take the same shape of settings: `--help`,
 * `--config FILE` (a file of `key = value` lines, see config.h) and a set of typed
 * `--name VALUE` flags whose long names are also the file's keys; flags on the command
 * line win over the file. Each daemon lists its settings in one const table of
 * sl_daemon_opt and calls sl_daemon_args(); the parsing, the range checks, the error
 * messages ("bad port '70000'") and the exit codes live here once.
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
} sl_daemon_opt_type;

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
 * Parses argv into the options struct `opts` (borrowed, already holding the defaults):
 * first every `--config FILE` / `--config=FILE` in order, then the flags, so that flags
 * win. `--help` prints the usage on stdout. On success also sets the process log level
 * from the SL_DOPT_LOG_LEVEL setting, if the table has one.
 *
 * Returns true when the daemon should start. Returns false with *exit_code set when main
 * should return: 0 after --help, 2 after an error, which was written to stderr as
 * "PROG: message" (and the usage, for an unknown flag or a stray argument).
 * Start-up only: uses getopt_long's global state.
 */
bool sl_daemon_args(const sl_daemon_cli *cli, void *opts, int argc, char **argv,
                    int *exit_code);

#endif
