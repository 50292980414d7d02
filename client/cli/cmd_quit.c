/*
 * cmd_quit.c - `quit` (also exit, \q): leave the shell. In a script it ends the run; what
 * ran before keeps its exit status.
 */
#include "cli.h"

static int quit_exec(sl_cli *c, const char *arg)
{
    (void)arg;
    c->quit = true;
    return SL_CLI_OK;
}

const sl_cli_cmd sl__cli_cmd_quit = {
    .name = "quit",
    .aliases = {"exit", "\\q", NULL},
    .args = NULL,
    .summary = "leave the shell",
    .exec = quit_exec,
};
