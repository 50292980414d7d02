/*
 * cmd_mode.c - `\mode [table|csv|json]`: the output format for the results that follow
 * (what --csv and --json choose at start-up). Without an argument it names the mode.
 */
#include <stdio.h>

#include "cli.h"

static int mode_exec(sl_cli *c, const char *arg)
{
    if (arg[0] == '\0') {
        fprintf(c->out, "Output mode is %s.\n", sl__cli_formats[c->mode].name);
        return SL_CLI_OK;
    }
    sl_cli_mode m;
    if (!sl__cli_mode_from_name(arg, &m)) {
        fprintf(c->err, "ERROR: unknown output mode '%s': use table, csv or json\n", arg);
        return SL_CLI_FAIL;
    }
    c->mode = m;
    if (c->interactive)
        fprintf(c->out, "Output mode is %s.\n", sl__cli_formats[m].name);
    return SL_CLI_OK;
}

const sl_cli_cmd sl__cli_cmd_mode = {
    .name = "\\mode",
    .aliases = {NULL},
    .args = "[table|csv|json]",
    .summary = "set the output format",
    .exec = mode_exec,
};
