/*
 * repl.c - the shell's read-run loop: lines in, statements cut, run, results out.
 *
 * Input is a terminal (GNU readline: line editing, prompts "sluice> " and "   ...> ",
 * history kept in ~/.sluice_history), or lines read plainly from a pipe, a file or the -s
 * text, so scripts and tests can feed the shell without a terminal. The same loop serves
 * them all: each line goes to the statement splitter; every complete statement is either
 * one of the shell's commands or SQL for the backend. A command that fits on its line
 * (help, \q, source f.sql) needs no ';'.
 *
 * At the prompt an error is reported and the session goes on; in a script (a pipe, -s, -f,
 * source) the first error ends the script unless --continue.
 */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "cli.h"

#define PROMPT      "sluice> "
#define PROMPT_MORE "   ...> "

/* Entries kept in ~/.sluice_history. */
#define HISTORY_MAX 1000

/* ------------------------------------------------------------ terminal input */

/* Set by SIGINT (Ctrl-C); read by the readline signal hook. */
static volatile sig_atomic_t sigint_seen;
/* The splitter of the terminal session, so Ctrl-C can drop a half-typed statement. */
static sl_stmt_split *tty_split;

static void on_sigint(int sig)
{
    (void)sig;
    sigint_seen = 1;
}

/*
 * Ctrl-C abandons the line and any statement under way and starts afresh at the main
 * prompt, as psql does. Readline calls this after a signal interrupts its read, and also
 * every 0.1 s while it waits for keys (rl_event_hook): a signal that lands just before the
 * read starts does not interrupt it, and the poll still catches it at once.
 */
static int on_signal_event(void)
{
    if (!sigint_seen)
        return 0;
    sigint_seen = 0;
    if (tty_split != NULL)
        sl_stmt_split_clear(tty_split);
    rl_replace_line("", 0);
    rl_crlf();
    rl_set_prompt(PROMPT);
    rl_on_new_line();
    rl_redisplay();
    return 0;
}

/* ~/.sluice_history (malloc'd), or NULL when there is no home directory. */
static char *history_path(void)
{
    const char *home = getenv("HOME");
    if (home == NULL || home[0] == '\0') {
        struct passwd *pw = getpwuid(getuid());
        home = pw != NULL ? pw->pw_dir : NULL;
    }
    if (home == NULL)
        return NULL;
    size_t n = strlen(home) + sizeof("/.sluice_history");
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s/.sluice_history", home);
    return p;
}

void sl__cli_tty_begin(void)
{
    rl_readline_name = "sluice";
    using_history();
    stifle_history(HISTORY_MAX);
    char *path = history_path();
    if (path != NULL)
        read_history(path); /* a missing file is a first session */
    free(path);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    rl_signal_event_hook = on_signal_event;
    rl_event_hook = on_signal_event;
}

void sl__cli_tty_end(void)
{
    char *path = history_path();
    if (path != NULL && write_history(path) == 0)
        history_truncate_file(path, HISTORY_MAX);
    free(path);
    rl_clear_history();
}

/* ------------------------------------------------------------ reading lines */

/*
 * Returns the next line without its newline (malloc'd; *len its length), or NULL at the
 * end of the input. more: a statement is under way (the continuation prompt).
 */
static char *read_line(sl_cli_input *in, bool more, size_t *len)
{
    if (in->tty) {
        sigint_seen = 0;
        char *line = readline(more ? PROMPT_MORE : PROMPT);
        if (line != NULL)
            *len = strlen(line);
        return line;
    }
    if (in->text != NULL) {
        if (in->text_pos >= in->text_len)
            return NULL;
        const char *p = in->text + in->text_pos;
        const char *nl = memchr(p, '\n', in->text_len - in->text_pos);
        size_t n = nl != NULL ? (size_t)(nl - p) : in->text_len - in->text_pos;
        in->text_pos += n + (nl != NULL);
        *len = n;
        return strndup(p, n);
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, in->fp);
    if (n < 0) {
        free(line);
        return NULL;
    }
    if (n > 0 && line[n - 1] == '\n')
        line[--n] = '\0';
    *len = (size_t)n;
    return line;
}

/* ------------------------------------------------------------ running statements */

static double now_secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run_sql(sl_cli *c, const sl_cli_input *in, const sl_stmt_text *st)
{
    sl_result res;
    sl_error err;
    sl_error_clear(&err);
    double t0 = now_secs();
    int rc = sl_backend_exec(c->backend, st->text, &res, &err);
    double secs = now_secs() - t0;
    if (rc < 0) {
        if (err.code == 0)
            err.code = rc;
        fflush(c->out); /* what ran before comes first */
        sl__cli_print_error(c, &err, st->text, in->name, st->line, st->col);
        sl_result_fini(&res);
        return SL_CLI_FAIL;
    }
    rc = sl__cli_formats[c->mode].print(c, &res, secs);
    sl_result_fini(&res);
    fflush(c->out);
    if (rc < 0) {
        fprintf(c->err, "ERROR: cannot print the result: %s\n", sl_strerror(rc));
        return SL_CLI_FAIL;
    }
    return SL_CLI_OK;
}

/* Runs one complete statement: a shell command or SQL. */
static int run_stmt(sl_cli *c, const sl_cli_input *in, const sl_stmt_text *st)
{
    if (in->tty) {
        /* Recall the statement as typed, with its ';'. */
        size_t n = strlen(st->text);
        char *h = malloc(n + 2);
        if (h != NULL) {
            memcpy(h, st->text, n);
            memcpy(h + n, ";", 2);
            add_history(h);
            free(h);
        }
    }
    const char *arg;
    const sl_cli_cmd *cmd =
        strchr(st->text, '\n') == NULL ? sl__cli_cmd_match(st->text, &arg) : NULL;
    int rc = cmd != NULL ? cmd->exec(c, arg) : run_sql(c, in, st);
    fflush(c->out);
    return rc;
}

int sl__cli_run(sl_cli *c, sl_cli_input *in)
{
    sl_stmt_split sp;
    sl_stmt_split_init(&sp);
    if (in->tty)
        tty_split = &sp;
    int status = SL_CLI_OK;
    bool stop = false; /* a script failed and must not go on */
    sl_stmt_text st;
    while (!stop && !c->quit) {
        size_t len = 0;
        char *line = read_line(in, sl_stmt_split_pending(&sp), &len);
        if (in->tty && sigint_seen) {
            /* Ctrl-C that readline reported to neither hook: still drop what came before. */
            sigint_seen = 0;
            sl_stmt_split_clear(&sp);
        }
        if (line == NULL)
            break;
        if (sl_stmt_split_add_line(&sp, line, len) < 0) {
            free(line);
            fprintf(c->err, "ERROR: out of memory\n");
            status = SL_CLI_FAIL;
            break;
        }
        free(line);
        int r = 0;
        while (!stop && !c->quit && (r = sl_stmt_split_next(&sp, false, &st)) > 0) {
            if (run_stmt(c, in, &st) != SL_CLI_OK) {
                status = SL_CLI_FAIL;
                stop = !in->tty && !c->keep_going;
            }
            free(st.text);
        }
        if (r < 0) {
            fprintf(c->err, "ERROR: out of memory\n");
            status = SL_CLI_FAIL;
            break;
        }
        if (stop || c->quit)
            break;
        /* A shell command alone on its line runs without ';'. */
        const char *partial = sl_stmt_split_partial(&sp);
        const char *arg;
        const sl_cli_cmd *cmd = partial != NULL ? sl__cli_cmd_match(partial, &arg) : NULL;
        if (cmd != NULL) {
            if (in->tty)
                add_history(partial);
            if (cmd->exec(c, arg) != SL_CLI_OK) {
                status = SL_CLI_FAIL;
                stop = !in->tty && !c->keep_going;
            }
            fflush(c->out);
            sl_stmt_split_clear(&sp);
        }
    }
    if (in->tty) {
        tty_split = NULL;
        if (!c->quit)
            fputc('\n', c->out); /* Ctrl-D: leave the terminal on a fresh line */
    } else if (!stop && !c->quit) {
        /* End of a script: a last statement may lack its ';'. */
        while (!stop && !c->quit && sl_stmt_split_next(&sp, true, &st) > 0) {
            if (run_stmt(c, in, &st) != SL_CLI_OK) {
                status = SL_CLI_FAIL;
                stop = !c->keep_going;
            }
            free(st.text);
        }
    }
    sl_stmt_split_fini(&sp);
    return status;
}

int sl__cli_run_file(sl_cli *c, const char *path)
{
    bool std = strcmp(path, "-") == 0;
    FILE *f = std ? stdin : fopen(path, "r");
    if (f == NULL) {
        fflush(c->out);
        fprintf(c->err, "ERROR: cannot open %s: %s\n", path, strerror(errno));
        return SL_CLI_FAIL;
    }
    sl_cli_input in = {.name = std ? "<stdin>" : path, .fp = f};
    int rc = sl__cli_run(c, &in);
    if (!std)
        fclose(f);
    return rc;
}
