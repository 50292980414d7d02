/*
 * cmd_timing.c - `\timing [on|off]`: show or hide the elapsed time in "Query OK" lines
 * (shown by default). Without an argument it toggles, as in psql.
 */
#include <stdio.h>
#include <strings.h>

#include "cli.h"

static int timing_exec(sl_cli *c, const char *arg)
{
    if (arg[0] == '\0') {
        c->timing = !c->timing;
    } else if (strcasecmp(arg, "on") == 0) {
        c->timing = true;
    } else if (strcasecmp(arg, "off") == 0) {
        c->timing = false;
    } else {
        fprintf(c->err, "ERROR: \\timing takes on or off, not '%s'\n", arg);
        return SL_CLI_FAIL;
    }
    if (c->interactive)
        fprintf(c->out, "Timing is %s.\n", c->timing ? "on" : "off");
    return SL_CLI_OK;
}

const sl_cli_cmd sl__cli_cmd_timing = {
    .name = "\\timing",
    .aliases = {NULL},
    .args = "[on|off]",
    .summary = "show or hide the time each statement took",
    .exec = timing_exec,
};
