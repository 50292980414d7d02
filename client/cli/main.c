/*
 * main.c - `sluice`, the interactive shell of Sluice: command line, backend, session.
 *
 * Modelled on the shells people like (psql, the taos shell, sqlite3): with no statements
 * on the command line it is a REPL on a terminal, or runs what is piped in; -s and -f run
 * statements and exit; --csv/--json switch the output format; --status prints a summary.
 * The cluster is reached with -h/-P; --embedded runs an in-memory store inside the
 * process instead (backend.h). The option names are fixed by DESIGN.md section 7.
 *
 * Exit status: 0 when everything ran, 1 when a statement, command or file failed, 2 for
 * bad usage or when the backend cannot be reached.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#ifndef SLUICE_VERSION
#define SLUICE_VERSION "unknown"
#endif

#define DEFAULT_HOST "localhost"
#define DEFAULT_PORT 6030

/* Exit statuses. */
#define EXIT_FAILED 1
#define EXIT_USAGE  2

/* A -s or -f argument, run in command-line order. */
typedef struct action {
    bool is_file; /* -f (path) or -s (sql) */
    const char *arg;
} action;

enum {
    OPT_CSV = 256,
    OPT_JSON,
    OPT_STATUS,
    OPT_EMBEDDED,
    OPT_CONTINUE,
    OPT_HELP,
};

static const struct option long_opts[] = {
    {.name = "host", .has_arg = required_argument, .val = 'h'},
    {.name = "port", .has_arg = required_argument, .val = 'P'},
    {.name = "sql", .has_arg = required_argument, .val = 's'},
    {.name = "file", .has_arg = required_argument, .val = 'f'},
    {.name = "csv", .has_arg = no_argument, .val = OPT_CSV},
    {.name = "json", .has_arg = no_argument, .val = OPT_JSON},
    {.name = "status", .has_arg = no_argument, .val = OPT_STATUS},
    {.name = "embedded", .has_arg = no_argument, .val = OPT_EMBEDDED},
    {.name = "continue", .has_arg = no_argument, .val = OPT_CONTINUE},
    {.name = "help", .has_arg = no_argument, .val = OPT_HELP},
    {.name = "version", .has_arg = no_argument, .val = 'V'},
    {0},
};

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: sluice [OPTION]...\n"
            "The Sluice shell: runs SQL on a Sluice cluster, or on an in-memory store.\n"
            "With no -s or -f it reads statements from the terminal (a prompt with line\n"
            "editing and history in ~/.sluice_history) or from standard input.\n"
            "\n"
            "Connection:\n"
            "  -h, --host HOST      mnode host (default " DEFAULT_HOST ")\n"
            "  -P, --port PORT      mnode port (default %d)\n"
            "      --embedded       run statements on an embedded in-memory store in this\n"
            "                       process instead of a cluster (data lasts until exit)\n"
            "\n"
            "Input:\n"
            "  -s, --sql \"SQL;...\"  run these statements, then exit (may be repeated)\n"
            "  -f, --file FILE      run the statements in FILE, then exit (may be repeated;\n"
            "                       - is standard input); -s and -f run in the order given\n"
            "      --continue       keep going after a failing statement (the exit status\n"
            "                       is still 1)\n"
            "\n"
            "Output:\n"
            "      --csv            print results as CSV (RFC 4180) with a header line\n"
            "      --json           print each result as a JSON array of objects\n"
            "      --status         print a summary of the cluster (nodes, databases, streams)\n"
            "                       and exit, non-zero when the mnode does not answer; after\n"
            "                       the statements of -s/-f when given\n"
            "\n"
            "Other:\n"
            "      --help           show this help and exit\n"
            "  -V, --version        print the version and exit\n"
            "\n"
            "In the shell, statements end with ';'; type help for the statements and the\n"
            "shell's commands (\\q quits). Exit status: 0 success, 1 a statement failed,\n"
            "2 bad usage or the cluster cannot be reached.\n",
            DEFAULT_PORT);
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs("sluice: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'sluice --help' for more information.\n", stderr);
    return EXIT_USAGE;
}

static bool parse_port(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < 1 || v > 65535)
        return false;
    *out = (int)v;
    return true;
}

/* The interactive session: banner, history, prompt. */
static int run_terminal(sl_cli *c)
{
    c->interactive = true;
    fprintf(c->out,
            "Welcome to the Sluice shell %s (%s backend).\n"
            "Type help for help, \\q to quit. Statements end with ';'.\n\n",
            SLUICE_VERSION, sl_backend_name(c->backend));
    sl__cli_tty_begin();
    sl_cli_input in = {.tty = true};
    int rc = sl__cli_run(c, &in);
    sl__cli_tty_end();
    return rc;
}

/* What the command line asked for. */
typedef struct options {
    const char *host; /* -h, or NULL */
    int port;         /* -P, or 0 */
    bool embedded;    /* --embedded */
    bool want_status; /* --status */
    bool keep_going;  /* --continue */
    sl_cli_mode mode; /* --csv / --json */
    action *actions;  /* -s and -f in order */
    int nactions;
} options;

/* Runs the session the options describe; returns the exit status. */
static int run(const options *o)
{
    sl_backend *backend = NULL;
    sl_error err;
    sl_error_clear(&err);
    char endpoint[300];
    snprintf(endpoint, sizeof(endpoint), "%s:%d", o->host != NULL ? o->host : DEFAULT_HOST,
             o->port != 0 ? o->port : DEFAULT_PORT);
    if (o->embedded) {
        if (sl_backend_embedded_open(&backend, &err) < 0) {
            fprintf(stderr, "sluice: %s\n", err.msg);
            return EXIT_USAGE;
        }
    } else if (sl_backend_remote_open(o->host != NULL ? o->host : DEFAULT_HOST,
                                      o->port != 0 ? o->port : DEFAULT_PORT, &backend,
                                      &err) < 0) {
        fprintf(stderr, "sluice: %s\n", err.msg);
        return EXIT_USAGE;
    }
    sl_cli c = {
        .backend = backend,
        .endpoint = o->embedded ? NULL : endpoint,
        .mode = o->mode,
        .timing = true,
        .keep_going = o->keep_going,
        .out = stdout,
        .err = stderr,
    };
    int status = 0;
    for (int i = 0; i < o->nactions && !c.quit; i++) {
        const action *a = &o->actions[i];
        int rc;
        if (a->is_file) {
            rc = sl__cli_run_file(&c, a->arg);
        } else {
            sl_cli_input in = {.text = a->arg, .text_len = strlen(a->arg)};
            rc = sl__cli_run(&c, &in);
        }
        if (rc != SL_CLI_OK) {
            status = EXIT_FAILED;
            if (!o->keep_going)
                break;
        }
    }
    if (o->nactions == 0 && !o->want_status) {
        if (isatty(STDIN_FILENO)) {
            /* Errors at the prompt were shown as they happened; the session itself is fine. */
            run_terminal(&c);
        } else {
            sl_cli_input in = {.fp = stdin};
            if (sl__cli_run(&c, &in) != SL_CLI_OK)
                status = EXIT_FAILED;
        }
    }
    if (o->want_status && sl__cli_cmd_status.exec(&c, "") != SL_CLI_OK)
        status = EXIT_FAILED;
    fflush(stdout);
    sl_backend_close(backend);
    return status;
}

/*
 * Parses the command line into *o. Returns -1 when the session should start, or the exit
 * status to leave with (--help, --version, a usage error).
 */
static int parse_options(int argc, char **argv, options *o)
{
    int ch;
    bool mode_set = false;
    while ((ch = getopt_long(argc, argv, "h:P:s:f:V", long_opts, NULL)) != -1) {
        switch (ch) {
        case 'h': o->host = optarg; break;
        case 'P':
            if (!parse_port(optarg, &o->port))
                return usage_error("invalid port '%s': expected a number from 1 to 65535", optarg);
            break;
        case 's':
        case 'f':
            o->actions[o->nactions].is_file = ch == 'f';
            o->actions[o->nactions++].arg = optarg;
            break;
        case OPT_CSV:
        case OPT_JSON: {
            sl_cli_mode m = ch == OPT_CSV ? SL_CLI_MODE_CSV : SL_CLI_MODE_JSON;
            if (mode_set && o->mode != m)
                return usage_error("%s", "--csv and --json exclude each other");
            o->mode = m;
            mode_set = true;
            break;
        }
        case OPT_STATUS: o->want_status = true; break;
        case OPT_EMBEDDED: o->embedded = true; break;
        case OPT_CONTINUE: o->keep_going = true; break;
        case OPT_HELP: usage(stdout); return 0;
        case 'V': printf("sluice %s\n", SLUICE_VERSION); return 0;
        default:
            /* getopt has named the problem. */
            fputs("Try 'sluice --help' for more information.\n", stderr);
            return EXIT_USAGE;
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (o->embedded && (o->host != NULL || o->port != 0))
        return usage_error("%s", "--embedded runs without a cluster: drop -h/-P");
    return -1;
}

int main(int argc, char **argv)
{
    options o = {.mode = SL_CLI_MODE_TABLE};
    /* At most one action per argument. */
    o.actions = calloc((size_t)argc, sizeof(*o.actions));
    if (o.actions == NULL) {
        fputs("sluice: out of memory\n", stderr);
        return EXIT_FAILED;
    }
    int status = parse_options(argc, argv, &o);
    if (status < 0)
        status = run(&o);
    free(o.actions);
    return status;
}
