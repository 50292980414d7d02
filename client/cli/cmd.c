/*
 * cmd.c - the table of the shell's own commands and how a line is matched against it.
 *
 * Commands are not SQL: they change the session (\timing, \mode), read files (source),
 * or leave (\q). Each lives in its own cmd_*.c file as one const sl_cli_cmd with
 * designated initializers (the way tmux lists its commands); this table is the only
 * place that knows them all, and help prints it.
 */
#include <string.h>
#include <strings.h>

#include "cli.h"

const sl_cli_cmd *const sl__cli_cmds[] = {
    &sl__cli_cmd_help,
    &sl__cli_cmd_quit,
    &sl__cli_cmd_source,
    &sl__cli_cmd_timing,
    &sl__cli_cmd_mode,
    &sl__cli_cmd_status,
    NULL,
};

static bool word_is(const char *word, size_t len, const char *name)
{
    return name != NULL && strlen(name) == len && strncasecmp(word, name, len) == 0;
}

const sl_cli_cmd *sl__cli_cmd_match(const char *text, const char **arg)
{
    size_t len = strcspn(text, " \t\r\n");
    if (len == 0)
        return NULL;
    for (int i = 0; sl__cli_cmds[i] != NULL; i++) {
        const sl_cli_cmd *cmd = sl__cli_cmds[i];
        bool hit = word_is(text, len, cmd->name);
        for (int a = 0; !hit && a < 3 && cmd->aliases[a] != NULL; a++)
            hit = word_is(text, len, cmd->aliases[a]);
        if (hit) {
            const char *rest = text + len;
            *arg = rest + strspn(rest, " \t\r\n");
            return cmd;
        }
    }
    return NULL;
}
