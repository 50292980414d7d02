/*
 * cli.h - the internals shared by the files of the sluice shell.
 *
 * main.c parses the command line and picks the backend; repl.c reads input (a terminal
 * through readline, a pipe, a file, or -s text), cuts it into statements, runs them and
 * reports errors; output*.c print results as an aligned table, CSV or JSON; cmd*.c are the
 * shell's own commands (help, \q, \timing, source, ...), one file each, listed in the
 * table of cmd.c. Everything here is internal to the shell (sl__ prefix).
 */
#ifndef SL_CLI_H
#define SL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "client/backend.h"
#include "stmt_split.h"

/* How results are printed. */
typedef enum sl_cli_mode {
    SL_CLI_MODE_TABLE = 0, /* aligned table plus a "Query OK" line */
    SL_CLI_MODE_CSV,       /* RFC 4180 CSV with a header line */
    SL_CLI_MODE_JSON,      /* one JSON array of objects per result */
    SL_CLI_MODE__COUNT
} sl_cli_mode;

/* Deepest nesting of `source` commands (a file sourcing itself stops here). */
#define SL_CLI_SOURCE_DEPTH_MAX 16

/* One shell session. */
typedef struct sl_cli {
    sl_backend *backend; /* borrowed: where statements run */
    const char *endpoint; /* borrowed: the mnode's "host:port" on a cluster; NULL embedded */
    sl_cli_mode mode;    /* output format */
    bool timing;         /* show the elapsed time in "Query OK" lines */
    bool interactive;    /* reading a terminal: errors do not end the session */
    bool keep_going;     /* --continue: scripts run on after an error */
    bool quit;           /* a quit command was given: stop reading input */
    int depth;           /* how many `source` files are open */
    FILE *out;           /* results (stdout) */
    FILE *err;           /* errors and diagnostics (stderr) */
} sl_cli;

/* Where input lines come from. */
typedef struct sl_cli_input {
    const char *name; /* file name for error positions, or NULL (terminal, pipe, -s) */
    bool tty;         /* a terminal: readline with prompts and history */
    FILE *fp;         /* a stream read line by line, when not tty and text is NULL */
    const char *text; /* -s text, cut at newlines */
    size_t text_len;  /* bytes of text */
    size_t text_pos;  /* bytes of text consumed */
} sl_cli_input;

/* Result of running input: everything ran, or something failed. */
#define SL_CLI_OK   0
#define SL_CLI_FAIL 1

/*
 * Reads in to its end (or until a quit command), running every statement and command.
 * Interactive input reports errors and goes on; other input stops at the first failure
 * unless c->keep_going. Returns SL_CLI_OK, or SL_CLI_FAIL when any statement or command
 * failed.
 */
int sl__cli_run(sl_cli *c, sl_cli_input *in);

/*
 * Runs the statements of the file at path (borrowed) as a script, the way -f and the
 * source command do. Returns SL_CLI_OK or SL_CLI_FAIL (a message was printed).
 */
int sl__cli_run_file(sl_cli *c, const char *path);

/*
 * Prepares readline for a terminal session: loads the history from ~/.sluice_history and
 * makes Ctrl-C cancel the statement being typed. sl__cli_tty_end writes the history back
 * (the last 1000 entries) and frees it.
 */
void sl__cli_tty_begin(void);
void sl__cli_tty_end(void);

/* ------------------------------------------------------------ output */

/* One output format: prints a successful statement's result. */
typedef struct sl_cli_format {
    const char *name; /* "table", "csv", "json" */
    /* Prints r (secs: time the statement took) to c->out; returns 0 or SL_ENOMEM. */
    int (*print)(sl_cli *c, const sl_result *r, double secs);
} sl_cli_format;

/* The formats, indexed by sl_cli_mode. */
extern const sl_cli_format sl__cli_formats[SL_CLI_MODE__COUNT];

/* Looks a format up by name; returns true and *out when found. */
bool sl__cli_mode_from_name(const char *name, sl_cli_mode *out);

/* The table, CSV and JSON printers (output.c, output_csv.c, output_json.c). */
int sl__cli_print_table(sl_cli *c, const sl_result *r, double secs);
int sl__cli_print_csv(sl_cli *c, const sl_result *r, double secs);
int sl__cli_print_json(sl_cli *c, const sl_result *r, double secs);

/* Room for any formatted non-string cell. */
#define SL_CLI_CELL_BUF 64

/* What a cell holds, for formats that quote or type their output. */
typedef enum sl_cli_cell_kind {
    SL_CLI_CELL_NULL,    /* NULL */
    SL_CLI_CELL_NUMBER,  /* integer or floating point: text is a plain number */
    SL_CLI_CELL_SPECIAL, /* NaN or an infinity: a number without a JSON spelling */
    SL_CLI_CELL_BOOL,    /* true/false */
    SL_CLI_CELL_TEXT     /* strings and timestamps (formatted in the result's precision) */
} sl_cli_cell_kind;

/*
 * Points *s and *len at the text of row `row` of column col (buf, of SL_CLI_CELL_BUF bytes,
 * holds formatted values; strings point into the column) and returns its kind.
 */
sl_cli_cell_kind sl__cli_cell(const sl_column *col, uint32_t row, sl_precision prec, char *buf,
                              const char **s, size_t *len);

/*
 * Prints an error: "ERROR: message", then the statement's line at err->line with a caret
 * under err->col (both relative to stmt). When src names a file, the message's position
 * is given in the file (line/col: where the statement starts in it).
 */
void sl__cli_print_error(sl_cli *c, const sl_error *err, const char *stmt, const char *src,
                         int line, int col);

/* ------------------------------------------------------------ cluster summary */

/* A running stream whose owners report a lag above this (ms) is listed by the summary. */
#define SL_CLI_LAG_WARN_MS 60000

/*
 * Appends the cluster summary of `sluice --status` (cluster_status.c, whose comment gives
 * its lines) to out, from information_schema queries run on c's backend; c->endpoint must
 * be set. Returns 0, or the first query's error (the mnode does not answer, ...) with its
 * message in *err and out unchanged.
 */
int sl__cli_cluster_status(sl_cli *c, sl_buf *out, sl_error *err);

/* ------------------------------------------------------------ commands */

/* A shell command (not SQL): recognised at the start of a statement, ';' optional. */
typedef struct sl_cli_cmd {
    const char *name;       /* the name ("help") */
    const char *aliases[3]; /* other spellings ("\\h"), NULL-terminated */
    const char *args;       /* argument synopsis for help ("FILE"), or NULL */
    const char *summary;    /* one line for help */
    /*
     * Runs the command; arg is the rest of the line without surrounding blanks ("" when
     * none). Returns SL_CLI_OK, or SL_CLI_FAIL after printing why.
     */
    int (*exec)(sl_cli *c, const char *arg);
} sl_cli_cmd;

/* Every command, in the order help lists them; NULL-terminated. */
extern const sl_cli_cmd *const sl__cli_cmds[];

extern const sl_cli_cmd sl__cli_cmd_help;
extern const sl_cli_cmd sl__cli_cmd_quit;
extern const sl_cli_cmd sl__cli_cmd_source;
extern const sl_cli_cmd sl__cli_cmd_timing;
extern const sl_cli_cmd sl__cli_cmd_mode;
extern const sl_cli_cmd sl__cli_cmd_status;

/*
 * When text (one line without trailing blanks or ';') invokes a shell command, returns
 * the command and points *arg at its argument, the rest of text after the command word and
 * its blanks; otherwise NULL. The match ignores case.
 */
const sl_cli_cmd *sl__cli_cmd_match(const char *text, const char **arg);

#endif
