/*
 * cmd_source.c - `source FILE` (also \i): run the statements of a file as a script, as
 * -f does. The file's first error ends it (unless --continue); at the prompt the session
 * then goes on, in a script the error ends the script too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int source_exec(sl_cli *c, const char *arg)
{
    size_t len = strlen(arg);
    if (len == 0) {
        fprintf(c->err, "ERROR: source needs a file name: source FILE\n");
        return SL_CLI_FAIL;
    }
    /* A name in quotes may hold blanks. */
    char *path = NULL;
    if (len >= 2 && (arg[0] == '\'' || arg[0] == '"') && arg[len - 1] == arg[0])
        path = strndup(arg + 1, len - 2);
    else
        path = strdup(arg);
    if (path == NULL) {
        fprintf(c->err, "ERROR: out of memory\n");
        return SL_CLI_FAIL;
    }
    int rc;
    if (c->depth >= SL_CLI_SOURCE_DEPTH_MAX) {
        fprintf(c->err, "ERROR: source %s: files nested more than %d deep\n", path,
                SL_CLI_SOURCE_DEPTH_MAX);
        rc = SL_CLI_FAIL;
    } else {
        c->depth++;
        rc = sl__cli_run_file(c, path);
        c->depth--;
    }
    free(path);
    return rc;
}

const sl_cli_cmd sl__cli_cmd_source = {
    .name = "source",
    .aliases = {"\\i", NULL},
    .args = "FILE",
    .summary = "run the statements in FILE",
    .exec = source_exec,
};
