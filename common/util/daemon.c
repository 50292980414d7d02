/*
 * daemon.c - the daemons' shared flag, environment and config-file parser: one table of
 * typed settings per daemon instead of three copies of the same getopt loop.
 */
#define _GNU_SOURCE
#include "daemon.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "error.h"
#include "log.h"

#define DOPT_MAX 32
#define DOPT_HELP 'h'
#define DOPT_CONFIG 'c'
#define DOPT_FIRST 256 /* getopt value of dc_opts[0]; above every char */
#define DOPT_ENV_PREFIX "SLUICE_"

typedef struct dopt_ctx {
    const sl_daemon_cli *cli;
    void *opts;
} dopt_ctx;

static int bad_value(const sl_daemon_opt *d, const char *val, sl_error *err)
{
    return sl_error_set(err, SL_EINVAL, 0, 0, "bad %s '%s'%s", d->so_name, val,
                        d->so_hint != NULL ? d->so_hint : "");
}

static int set_one(const sl_daemon_opt *d, void *opts, const char *val, sl_error *err)
{
    char *field = (char *)opts + d->so_offset;
    char *end;
    switch (d->so_type) {
    case SL_DOPT_LOG_LEVEL: {
        sl_log_level l;
        if (sl_log_level_parse(val, &l) < 0)
            return bad_value(d, val, err);
    }
        /* fall through */
    case SL_DOPT_STR:
        snprintf(field, d->so_size, "%s", val);
        return 0;
    case SL_DOPT_NICE: {
        long v = strtol(val, &end, 10);
        if (strcmp(val, "idle") == 0)
            v = SL_NICE_IDLE;
        else if (*val == '\0' || *end != '\0' || v < 0 || v > 19)
            return bad_value(d, val, err);
        *(int *)(void *)field = (int)v;
        return 0;
    }
    case SL_DOPT_INT:
    case SL_DOPT_I64: {
        long long v = strtoll(val, &end, 10);
        if (*val == '\0' || *end != '\0' || v < d->so_min || v > d->so_max)
            return bad_value(d, val, err);
        if (d->so_type == SL_DOPT_INT)
            *(int *)(void *)field = (int)v;
        else
            *(int64_t *)(void *)field = (int64_t)v;
        return 0;
    }
    case SL_DOPT_U64: {
        unsigned long long v = strtoull(val, &end, 10);
        if (*val == '\0' || *val == '-' || *end != '\0')
            return bad_value(d, val, err);
        *(uint64_t *)(void *)field = (uint64_t)v;
        return 0;
    }
    case SL_DOPT_BOOL:
        *(bool *)(void *)field = true;
        return 0;
    }
    return bad_value(d, val, err);
}

static int set_opt(const sl_daemon_cli *cli, void *opts, const char *key, const char *val,
                   sl_error *err)
{
    for (size_t i = 0; i < cli->dc_nopts; i++)
        if (cli->dc_opts[i].so_type != SL_DOPT_BOOL && strcmp(key, cli->dc_opts[i].so_name) == 0)
            return set_one(&cli->dc_opts[i], opts, val, err);
    return sl_error_set(err, SL_EINVAL, 0, 0, "unknown setting '%s'", key);
}

static int config_cb(void *arg, const char *key, const char *value, int line, sl_error *err)
{
    dopt_ctx *ctx = arg;
    (void)line;
    return set_opt(ctx->cli, ctx->opts, key, value, err);
}

static void set_log_level(const sl_daemon_cli *cli, const void *opts)
{
    for (size_t i = 0; i < cli->dc_nopts; i++) {
        const sl_daemon_opt *d = &cli->dc_opts[i];
        if (d->so_type != SL_DOPT_LOG_LEVEL)
            continue;
        sl_log_level lvl;
        sl_log_level_parse((const char *)opts + d->so_offset, &lvl);
        sl_log_set_level(lvl);
        return;
    }
}

/* "SLUICE_" + name upper-cased with '-' as '_': "node-timeout-ms" -> SLUICE_NODE_TIMEOUT_MS. */
static void env_name(char *out, size_t n, const char *name)
{
    size_t k = (size_t)snprintf(out, n, "%s", DOPT_ENV_PREFIX);
    for (; *name != '\0' && k + 1 < n; name++)
        out[k++] = *name == '-' ? '_' : (char)toupper((unsigned char)*name);
    out[k < n ? k : n - 1] = '\0';
}

/* Applies the settings given in the environment; returns false after reporting a bad one. */
static bool apply_env(const sl_daemon_cli *cli, void *opts, sl_error *err)
{
    for (size_t i = 0; i < cli->dc_nopts; i++) {
        const sl_daemon_opt *d = &cli->dc_opts[i];
        if (d->so_type == SL_DOPT_BOOL)
            continue;
        char name[96];
        env_name(name, sizeof(name), d->so_name);
        const char *val = getenv(name);
        if (val == NULL || *val == '\0')
            continue;
        if (set_one(d, opts, val, err) < 0) {
            fprintf(stderr, "%s: %s (from %s)\n", cli->dc_prog, err->msg, name);
            return false;
        }
    }
    return true;
}

static void env_usage(const sl_daemon_cli *cli, FILE *f)
{
    char example[96] = DOPT_ENV_PREFIX "LOG_LEVEL";
    const char *flag = "log-level";
    for (size_t i = 0; i < cli->dc_nopts; i++)
        if (cli->dc_opts[i].so_type != SL_DOPT_BOOL) {
            flag = cli->dc_opts[i].so_name;
            env_name(example, sizeof(example), flag);
            break;
        }
    fprintf(f,
            "\n"
            "Every setting (not --help, --health) can also be given in a config file as\n"
            "`%s = VALUE`, or in the environment as %s=VALUE (SLUICE_ and the\n"
            "flag's name upper-cased, '-' as '_'); SLUICE_CONFIG=FILE names a config file\n"
            "when the command line has no --config. Precedence, highest first: command-line\n"
            "flags, environment, config file, defaults. Empty variables count as unset.\n",
            flag, example);
}

bool sl_daemon_args(const sl_daemon_cli *cli, void *opts, int argc, char **argv,
                    int *exit_code)
{
    struct option longopts[DOPT_MAX + 3];
    size_t n = 0;
    assert(cli->dc_nopts <= DOPT_MAX);
    longopts[n++] = (struct option){"help", no_argument, NULL, DOPT_HELP};
    longopts[n++] = (struct option){"config", required_argument, NULL, DOPT_CONFIG};
    for (size_t i = 0; i < cli->dc_nopts; i++)
        longopts[n++] = (struct option){
            cli->dc_opts[i].so_name,
            cli->dc_opts[i].so_type == SL_DOPT_BOOL ? no_argument : required_argument, NULL,
            DOPT_FIRST + (int)i};
    longopts[n] = (struct option){NULL, 0, NULL, 0};

    sl_error err = {0};
    sl_error_clear(&err);
    /* First pass: the config files, then the environment, so that flags given on the
     * command line win over both and the environment over the files. */
    dopt_ctx ctx = {.cli = cli, .opts = opts};
    bool any_config = false, help = false;
    /* With --help nothing is loaded: the usage shows even when a file or variable is bad. */
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            help = true;
    for (int i = 1; i < argc; i++) {
        const char *cfg = NULL;
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            cfg = argv[i + 1];
        else if (strncmp(argv[i], "--config=", 9) == 0)
            cfg = argv[i] + 9;
        if (cfg == NULL)
            continue;
        any_config = true;
        if (!help && sl_config_load(cfg, config_cb, &ctx, &err) < 0) {
            fprintf(stderr, "%s: %s\n", cli->dc_prog, err.msg);
            *exit_code = 2;
            return false;
        }
    }
    const char *env_cfg = getenv(DOPT_ENV_PREFIX "CONFIG");
    if (!help && !any_config && env_cfg != NULL && *env_cfg != '\0' &&
        sl_config_load(env_cfg, config_cb, &ctx, &err) < 0) {
        fprintf(stderr, "%s: %s (from SLUICE_CONFIG)\n", cli->dc_prog, err.msg);
        *exit_code = 2;
        return false;
    }
    if (!help && !apply_env(cli, opts, &err)) {
        *exit_code = 2;
        return false;
    }
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == DOPT_HELP) {
            cli->dc_usage(stdout);
            env_usage(cli, stdout);
            *exit_code = 0;
            return false;
        }
        if (c == DOPT_CONFIG)
            continue;
        if (c < DOPT_FIRST || c >= DOPT_FIRST + (int)cli->dc_nopts) {
            cli->dc_usage(stderr);
            *exit_code = 2;
            return false;
        }
        if (set_one(&cli->dc_opts[c - DOPT_FIRST], opts, optarg, &err) < 0) {
            fprintf(stderr, "%s: %s\n", cli->dc_prog, err.msg);
            *exit_code = 2;
            return false;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", cli->dc_prog, argv[optind]);
        cli->dc_usage(stderr);
        *exit_code = 2;
        return false;
    }
    set_log_level(cli, opts);
    return true;
}

int sl_daemon_advertise(char *out, size_t n, const char *advertise, const char *host, int port)
{
    int k;
    if (advertise != NULL && strcmp(advertise, "auto") == 0) {
        char name[256];
        if (gethostname(name, sizeof(name)) < 0)
            return SL_EIO;
        name[sizeof(name) - 1] = '\0';
        k = snprintf(out, n, "tcp://%s:%d", name, port);
    } else if (advertise != NULL && advertise[0] != '\0') {
        k = snprintf(out, n, "%s", advertise);
    } else {
        k = snprintf(out, n, "tcp://%s:%d", host, port);
    }
    return k < 0 || (size_t)k >= n ? SL_ELIMIT : 0;
}

void sl_daemon_local_url(char *out, size_t n, const char *host, int port)
{
    bool wild = host == NULL || host[0] == '\0' || strcmp(host, "0.0.0.0") == 0 ||
                strcmp(host, "*") == 0 || strcmp(host, "::") == 0;
    snprintf(out, n, "tcp://%s:%d", wild ? "127.0.0.1" : host, port);
}

int sl_daemon_set_priority(int tid, int nice)
{
    if (nice == SL_NICE_IDLE) {
        struct sched_param sp = {.sched_priority = 0};
        return sched_setscheduler((pid_t)tid, SCHED_IDLE, &sp);
    }
    if (nice < 0 || nice > 19) {
        errno = EINVAL;
        return -1;
    }
    return nice > 0 ? setpriority(PRIO_PROCESS, (id_t)tid, nice) : 0;
}

bool sl_daemon_can_unyield(int nice)
{
    if (geteuid() == 0)
        return true;
    FILE *f = fopen("/proc/self/status", "r");
    if (f != NULL) {
        char line[256];
        unsigned long long caps = 0;
        while (fgets(line, sizeof(line), f) != NULL)
            if (sscanf(line, "CapEff: %llx", &caps) == 1)
                break;
        fclose(f);
        if (caps & (1ull << 23)) /* CAP_SYS_NICE */
            return true;
    }
    struct rlimit rl;
    return nice >= 0 && nice <= 19 && getrlimit(RLIMIT_NICE, &rl) == 0 &&
           (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= (rlim_t)(20 - nice));
}

int sl_daemon_thread_yield(bool on)
{
    struct sched_param sp = {.sched_priority = 0};
    return sched_setscheduler(0, on ? SCHED_IDLE : SCHED_OTHER, &sp);
}

const char *sl_daemon_priority_name(int nice, char *buf, size_t n)
{
    if (nice == SL_NICE_IDLE)
        return "idle";
    snprintf(buf, n, "%d", nice);
    return buf;
}
