/*
 * daemon.c - the daemons' shared flag and config-file parser: one table of typed settings
 * per daemon instead of three copies of the same getopt loop.
 */
#define _GNU_SOURCE
#include "daemon.h"

#include <assert.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "error.h"
#include "log.h"

#define DOPT_MAX 32
#define DOPT_HELP 'h'
#define DOPT_CONFIG 'c'
#define DOPT_FIRST 256 /* getopt value of dc_opts[0]; above every char */

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
    }
    return bad_value(d, val, err);
}

static int set_opt(const sl_daemon_cli *cli, void *opts, const char *key, const char *val,
                   sl_error *err)
{
    for (size_t i = 0; i < cli->dc_nopts; i++)
        if (strcmp(key, cli->dc_opts[i].so_name) == 0)
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

bool sl_daemon_args(const sl_daemon_cli *cli, void *opts, int argc, char **argv,
                    int *exit_code)
{
    struct option longopts[DOPT_MAX + 3];
    size_t n = 0;
    assert(cli->dc_nopts <= DOPT_MAX);
    longopts[n++] = (struct option){"help", no_argument, NULL, DOPT_HELP};
    longopts[n++] = (struct option){"config", required_argument, NULL, DOPT_CONFIG};
    for (size_t i = 0; i < cli->dc_nopts; i++)
        longopts[n++] = (struct option){cli->dc_opts[i].so_name, required_argument, NULL,
                                        DOPT_FIRST + (int)i};
    longopts[n] = (struct option){NULL, 0, NULL, 0};

    sl_error err = {0};
    sl_error_clear(&err);
    /* First pass: the config files, so that flags given on the command line win. */
    dopt_ctx ctx = {.cli = cli, .opts = opts};
    for (int i = 1; i < argc; i++) {
        const char *cfg = NULL;
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            cfg = argv[i + 1];
        else if (strncmp(argv[i], "--config=", 9) == 0)
            cfg = argv[i] + 9;
        if (cfg != NULL && sl_config_load(cfg, config_cb, &ctx, &err) < 0) {
            fprintf(stderr, "%s: %s\n", cli->dc_prog, err.msg);
            *exit_code = 2;
            return false;
        }
    }
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == DOPT_HELP) {
            cli->dc_usage(stdout);
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
