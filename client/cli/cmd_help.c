/*
 * cmd_help.c - `help` (also \h, \?): the SQL statements Sluice understands and the shell's
 * own commands.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* A synopsis of every statement, in the order a session usually needs them. */
static const char *const statements[] = {
    "CREATE DATABASE [IF NOT EXISTS] db [PRECISION 'ms'|'us'|'ns'] [VGROUPS n]",
    "DROP DATABASE [IF EXISTS] db",
    "USE db",
    "SHOW DATABASES | STABLES | TABLES [LIKE 'pattern']",
    "SHOW CREATE DATABASE db | CREATE STABLE st | CREATE TABLE t",
    "CREATE STABLE [IF NOT EXISTS] st (ts TIMESTAMP, col type, ...) TAGS (tag type, ...)",
    "CREATE TABLE [IF NOT EXISTS] t (ts TIMESTAMP, col type, ...)",
    "CREATE TABLE [IF NOT EXISTS] t USING st TAGS (value, ...)",
    "DROP TABLE [IF EXISTS] t | DROP STABLE [IF EXISTS] st",
    "DESCRIBE t",
    "INSERT INTO t [USING st TAGS (value, ...)] [(col, ...)] VALUES (ts, value, ...) ...",
    "DELETE FROM t [WHERE ts >= ... AND ts < ...]",
    "SELECT exprs FROM t [WHERE cond] [PARTITION BY ...] [INTERVAL(d) [SLIDING(d)]]\n"
    "      [GROUP BY ...] [ORDER BY ...] [LIMIT n [OFFSET m]]",
    "CREATE STREAM ... | DROP STREAM s | START STREAM s | STOP STREAM s | SHOW STREAMS\n"
    "      (on a cluster)",
    "SHOW DNODES | SNODES | VNODES [ON DNODE n] | [db.]VGROUPS [LIKE 'endpoint']\n"
    "      | DROP SNODE n (on a cluster; status prints a summary)",
};

static int help_exec(sl_cli *c, const char *arg)
{
    (void)arg;
    FILE *f = c->out;
    fputs("SQL statements (end each with ';'; it may span several lines):\n", f);
    for (size_t i = 0; i < sizeof(statements) / sizeof(statements[0]); i++)
        fprintf(f, "  %s\n", statements[i]);
    fputs("\nShell commands (';' optional):\n", f);
    for (int i = 0; sl__cli_cmds[i] != NULL; i++) {
        const sl_cli_cmd *cmd = sl__cli_cmds[i];
        char names[80];
        int n = snprintf(names, sizeof(names), "%s%s%s", cmd->name, cmd->args ? " " : "",
                         cmd->args ? cmd->args : "");
        for (int a = 0; a < 3 && cmd->aliases[a] != NULL && n < (int)sizeof(names); a++)
            n += snprintf(names + n, sizeof(names) - (size_t)n, ", %s", cmd->aliases[a]);
        fprintf(f, "  %-28s %s\n", names, cmd->summary);
    }
    fputs("\nOutput modes: table (default), csv, json (--csv, --json or \\mode).\n", f);
    return SL_CLI_OK;
}

const sl_cli_cmd sl__cli_cmd_help = {
    .name = "help",
    .aliases = {"\\h", "\\?", NULL},
    .args = NULL,
    .summary = "show this help",
    .exec = help_exec,
};
