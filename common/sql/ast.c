/*
 * ast.c - names of AST enumerations, for messages, dumps and tests.
 *
 * The tree itself is plain data built by the parser (see ast.h); these tables turn its
 * enumerations back into the words a user wrote, so an error can say "CREATE STREAM" or
 * "_twstart" instead of a number.
 */
#include "ast.h"

static const char *const stmt_names[] = {
    [SL_STMT_CREATE_DATABASE] = "CREATE DATABASE",
    [SL_STMT_DROP_DATABASE] = "DROP DATABASE",
    [SL_STMT_USE] = "USE",
    [SL_STMT_SHOW] = "SHOW",
    [SL_STMT_CREATE_STABLE] = "CREATE STABLE",
    [SL_STMT_CREATE_TABLE] = "CREATE TABLE",
    [SL_STMT_CREATE_SUBTABLES] = "CREATE TABLE USING",
    [SL_STMT_DROP_TABLE] = "DROP TABLE",
    [SL_STMT_DROP_STABLE] = "DROP STABLE",
    [SL_STMT_DESCRIBE] = "DESCRIBE",
    [SL_STMT_INSERT] = "INSERT",
    [SL_STMT_DELETE] = "DELETE",
    [SL_STMT_SELECT] = "SELECT",
    [SL_STMT_CREATE_STREAM] = "CREATE STREAM",
    [SL_STMT_DROP_STREAM] = "DROP STREAM",
    [SL_STMT_START_STREAM] = "START STREAM",
    [SL_STMT_STOP_STREAM] = "STOP STREAM",
    [SL_STMT_DROP_SNODE] = "DROP SNODE",
};

static const char *const placeholder_names[] = {
    [SL_PH_TWSTART] = "_twstart",
    [SL_PH_TWEND] = "_twend",
    [SL_PH_TWDURATION] = "_twduration",
    [SL_PH_TWROWNUM] = "_twrownum",
    [SL_PH_TPREV_TS] = "_tprev_ts",
    [SL_PH_TCURRENT_TS] = "_tcurrent_ts",
    [SL_PH_TNEXT_TS] = "_tnext_ts",
    [SL_PH_TPREV_LOCALTIME] = "_tprev_localtime",
    [SL_PH_TNEXT_LOCALTIME] = "_tnext_localtime",
    [SL_PH_TLOCALTIME] = "_tlocaltime",
    [SL_PH_TGRPID] = "_tgrpid",
    [SL_PH_TIDLESTART] = "_tidlestart",
    [SL_PH_TIDLEEND] = "_tidleend",
    [SL_PH_TROLLUP_TBCOUNT] = "_trollup_tbcount",
    [SL_PH_PARTITION_COL] = "%%n",
    [SL_PH_TBNAME] = "%%tbname",
    [SL_PH_ROLLUP_TAG] = "%%rollup_tag",
    [SL_PH_TROWS] = "%%trows",
};

const char *sl_stmt_kind_name(sl_stmt_kind k)
{
    if ((unsigned)k >= sizeof(stmt_names) / sizeof(stmt_names[0]) || stmt_names[k] == NULL)
        return "UNKNOWN";
    return stmt_names[k];
}

const char *sl_placeholder_name(sl_placeholder ph)
{
    if ((unsigned)ph >= sizeof(placeholder_names) / sizeof(placeholder_names[0]) ||
        placeholder_names[ph] == NULL)
        return "UNKNOWN";
    return placeholder_names[ph];
}
