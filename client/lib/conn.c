/*
 * conn.c - a libsluice connection: connecting to the mnode, running statements, and the
 * statements the mnode answers itself.
 *
 * sl_query parses the whole text once with the shared parser and runs the statements in
 * order. Catalog statements (DDL, USE, SHOW, DESCRIBE, streams, and SELECTs over
 * information_schema) travel to the mnode as their own text (MNODE_EXEC) with the
 * connection's current database; the reply's positions are relative to that text and
 * are shifted back to the caller's. INSERT, DELETE and the other SELECTs run here and on
 * the vnodes (write.c, select.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/sql/parser.h"
#include "mnode.pb-c.h"
#include "sluice_int.h"

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *sl_conn_db(const sl_conn *c)
{
    return c->c_db;
}

const char *sl_conn_addr(const sl_conn *c)
{
    return c->c_addr;
}

void sl_conn_get_stats(const sl_conn *c, sl_conn_stats *out)
{
    *out = c->c_stats;
}

/* Replaces the current database. */
static int set_db(sl_conn *c, const char *db)
{
    char *d = NULL;
    if (db != NULL && db[0] != '\0' && (d = strdup(db)) == NULL)
        return SL_ENOMEM;
    free(c->c_db);
    c->c_db = d;
    return 0;
}

/* Turns a ResultSet into an sl_result. */
static int result_from_pb(const Sluice__ResultSet *rs, sl_result *res, sl_error *err)
{
    sl_result_init(res);
    res->affected = rs->affected;
    res->precision = (sl_precision)rs->precision;
    if (rs->n_names == 0)
        return 0;
    res->names = calloc(rs->n_names, sizeof(char *));
    if (res->names == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    for (size_t i = 0; i < rs->n_names; i++) {
        if ((res->names[i] = strdup(rs->names[i])) == NULL) {
            res->ncols = (int)i;
            return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        }
    }
    res->ncols = (int)rs->n_names;
    int rc = sl_block_decode(rs->block.data, rs->block.len, &res->rows, err);
    if (rc < 0)
        return rc;
    if (res->rows.ncols != rs->n_names)
        return sl_error_set(err, SL_ECORRUPT, 0, 0,
                            "the mnode's result has %zu names but %u columns", rs->n_names,
                            res->rows.ncols);
    return 0;
}

/*
 * Moves an error positioned in one statement's text to the caller's whole text: the
 * statement starts at st->pos. Drops an old "line:col: " prefix and writes the new one.
 */
static void shift_error(const sl_stmt *st, sl_error *err)
{
    if (err == NULL || err->line <= 0)
        return;
    char prefix[32];
    int n = snprintf(prefix, sizeof(prefix), "%d:%d: ", err->line, err->col);
    if (strncmp(err->msg, prefix, (size_t)n) == 0)
        memmove(err->msg, err->msg + n, strlen(err->msg + n) + 1);
    if (err->line == 1)
        err->col += st->pos.col - 1;
    err->line += st->pos.line - 1;
    sl_ddl_error_prefix(err);
}

/* The database a statement's name q resolves in: its own, else the current one. */
static const char *qdb(const sl_conn *c, const sl_qname *q)
{
    return q->db != NULL ? q->db : c->c_db;
}

/*
 * After catalog statement st succeeded on the mnode: drops from the metadata cache what it
 * may have changed - the tables it created or dropped (with a child's super table entry
 * and a super table's children, sl__meta_forget), the super table entry of the children
 * CREATE TABLE ... USING made, a created or dropped database with its tables - and keeps
 * everything else, so that a DDL (an snode creating output subtables) does not make every
 * later statement ask for every table again. Statements that change no table (USE, SHOW,
 * DESCRIBE, information_schema SELECTs, the stream statements but CREATE STREAM, DROP
 * SNODE) keep the whole cache; a kind this does not know drops it all.
 */
static void forget_changed(sl_conn *c, const sl_stmt *st)
{
    switch (st->kind) {
    case SL_STMT_USE:
    case SL_STMT_SHOW:
    case SL_STMT_DESCRIBE:
    case SL_STMT_SELECT:
    case SL_STMT_DROP_STREAM:
    case SL_STMT_START_STREAM:
    case SL_STMT_STOP_STREAM:
    case SL_STMT_DROP_SNODE: return;
    case SL_STMT_CREATE_DATABASE:
        sl__meta_forget_db(c, st->u.create_db.name);
        return;
    case SL_STMT_DROP_DATABASE:
        for (int i = 0; i < st->u.drop.n; i++)
            sl__meta_forget_db(c, st->u.drop.names[i].name);
        return;
    case SL_STMT_CREATE_STABLE:
        sl__meta_forget(c, qdb(c, &st->u.create_stable.name), st->u.create_stable.name.name);
        return;
    case SL_STMT_CREATE_TABLE:
        sl__meta_forget(c, qdb(c, &st->u.create_table.name), st->u.create_table.name.name);
        return;
    case SL_STMT_CREATE_SUBTABLES:
        for (int i = 0; i < st->u.create_subtables.n; i++) {
            const sl_create_subtable *it = &st->u.create_subtables.items[i];
            sl__meta_forget(c, qdb(c, &it->name), it->name.name);
            sl__meta_forget_entry(c, qdb(c, &it->stable), it->stable.name);
        }
        return;
    case SL_STMT_DROP_TABLE:
    case SL_STMT_DROP_STABLE:
        for (int i = 0; i < st->u.drop.n; i++)
            sl__meta_forget(c, qdb(c, &st->u.drop.names[i]), st->u.drop.names[i].name);
        return;
    case SL_STMT_CREATE_STREAM: {
        /* It may create its INTO table, in the INTO database, else the stream's. */
        const sl_create_stream *cs = &st->u.create_stream;
        if (cs->has_into)
            sl__meta_forget(c, cs->into.db != NULL ? cs->into.db : qdb(c, &cs->name),
                            cs->into.name);
        return;
    }
    default: sl_conn_flush_meta(c); return;
    }
}

/* Runs one statement's text (sql) on the mnode; st (may be NULL) places its errors. */
static int exec_mnode_text(sl_conn *c, const sl_stmt *st, const char *sql, sl_result *res,
                           sl_error *err)
{
    Sluice__ExecRequest req = SLUICE__EXEC_REQUEST__INIT;
    req.sql = (char *)sql;
    req.current_db = c->c_db != NULL ? c->c_db : "";
    sl_buf b;
    sl_buf_init(&b);
    size_t n = sluice__exec_request__get_packed_size(&req);
    if (sl_buf_reserve(&b, n) < 0)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    b.len = sluice__exec_request__pack(&req, b.data);
    sl_error e;
    sl_error_clear(&e);
    int rc = sl__mnode_call(c, SLUICE__MNODE_METHOD__MNODE_EXEC, b.data, b.len, &b, &e);
    if (rc < 0) {
        sl_buf_fini(&b);
        if (st != NULL)
            shift_error(st, &e);
        if (err != NULL && err->code == 0)
            *err = e;
        return rc;
    }
    Sluice__ExecReply *rep = sluice__exec_reply__unpack(NULL, b.len, b.data);
    sl_buf_fini(&b);
    if (rep == NULL)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "malformed Exec reply from the mnode");
    rc = 0;
    if (rep->result != NULL)
        rc = result_from_pb(rep->result, res, err);
    else
        res->affected = -1;
    if (rc == 0 && st != NULL && st->kind == SL_STMT_USE)
        rc = set_db(c, rep->current_db[0] ? rep->current_db : st->u.use_db);
    if (rc == SL_ENOMEM)
        sl_error_set(err, rc, 0, 0, "out of memory");
    if (rc == 0 && st != NULL)
        forget_changed(c, st);
    /* The tables a CREATE TABLE named, cached now: its first write needs no lookup. Only
     * a cache: an entry that cannot be added is looked up when needed. */
    sl_conn *mc = c->c_meta_to != NULL ? c->c_meta_to : c;
    for (size_t i = 0; rc == 0 && i < rep->n_created; i++) {
        sl__meta *m;
        sl_error e2;
        sl_error_clear(&e2);
        if (sl__meta_add_pb(mc, rep->created[i], &m, &e2) < 0)
            break;
    }
    sluice__exec_reply__free_unpacked(rep, NULL);
    if (rc < 0) {
        sl_result_fini(res);
        return rc;
    }
    return 0;
}

void sl__conn_meta_to(sl_conn *c, sl_conn *to)
{
    c->c_meta_to = to;
}

static int exec_mnode(sl_conn *c, const sl_stmt *st, sl_result *res, sl_error *err)
{
    return exec_mnode_text(c, st, st->text, res, err);
}

int sl__mnode_query(sl_conn *c, const char *sql, sl_result *res, sl_error *err)
{
    sl_result_init(res);
    return exec_mnode_text(c, NULL, sql, res, err);
}

/* True when a SELECT reads (at its innermost FROM) a table of information_schema: the
 * mnode answers those. A SELECT without FROM runs here. */
static bool select_on_mnode(const sl_conn *c, const sl_select *sel)
{
    while (sel->from != NULL && sel->from->kind != SL_FROM_TABLE)
        sel = sel->from->subquery;
    if (sel->from == NULL)
        return false;
    const char *db = sel->from->table.db != NULL ? sel->from->table.db : c->c_db;
    return db != NULL && sl__name_eq(db, SL_DDL_INFO_SCHEMA);
}

static int exec_stmt(sl_conn *c, const sl_stmt *st, sl_result *res, sl_error *err)
{
    c->c_now_ms = wall_ms();
    sl_error_clear(&c->c_lookup_err);
    int rc;
    c->c_retry = false;
    switch (st->kind) {
    case SL_STMT_INSERT:
        rc = sl__conn_insert(c, st, res, err);
        for (int pause_ms = 10, waited_ms = 0, tries = 0;
             rc == SL_ENOTFOUND && c->c_retry && waited_ms < SL_VNODE_RETRY_MS; tries++) {
            /* A vnode did not know a cached table (dropped and created again elsewhere, or
             * its vgroup new and not opened there yet): nothing was written and the stale
             * entries are forgotten, so resolve afresh: at once, then after growing
             * pauses. */
            if (tries > 0)
                sl__retry_pause(&pause_ms, &waited_ms, 250);
            if (err != NULL)
                sl_error_clear(err);
            sl_error_clear(&c->c_lookup_err);
            c->c_retry = false;
            rc = sl__conn_insert(c, st, res, err);
        }
        break;
    case SL_STMT_DELETE: rc = sl__conn_delete(c, st, res, err); break;
    case SL_STMT_SELECT:
        if (select_on_mnode(c, st->u.select))
            return exec_mnode(c, st, res, err);
        rc = sl__conn_select(c, st, res, err);
        break;
    default: return exec_mnode(c, st, res, err);
    }
    /* Errors of local statements carry positions in the whole text already. */
    if (rc < 0)
        sl_ddl_error_prefix(err);
    return rc;
}

int sl_query(sl_conn *c, const char *sql, sl_result *res, sl_error *err)
{
    sl_result_init(res);
    if (c == NULL || sql == NULL)
        return sl_error_set(err, SL_EINVAL, 0, 0, "sl_query: NULL argument");
    sl_parse_result *pr;
    int rc = sl_parse(sql, strlen(sql), &pr, err);
    if (rc < 0)
        return rc;
    if (pr->nstmts == 0) {
        sl_parse_result_free(pr);
        res->affected = -1;
        return 0;
    }
    for (int i = 0; i < pr->nstmts; i++) {
        sl_result_fini(res);
        sl_result_init(res);
        rc = exec_stmt(c, pr->stmts[i], res, err);
        if (rc < 0) {
            sl_result_fini(res);
            sl_result_init(res);
            break;
        }
    }
    sl_parse_result_free(pr);
    return rc;
}

int sl_connect(const char *host, int port, sl_conn **out, sl_error *err)
{
    *out = NULL;
    if (host == NULL || host[0] == '\0' || port <= 0 || port > 65535)
        return sl_error_set(err, SL_EINVAL, 0, 0, "cannot connect: bad address %s:%d",
                            host ? host : "(null)", port);
    sl_conn *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    c->c_timeout_ms = SL_CONN_TIMEOUT_MS;
    snprintf(c->c_addr, sizeof(c->c_addr), "%s:%d", host, port);
    char url[320];
    snprintf(url, sizeof(url), "tcp://%s:%d", host, port);
    sl_error e;
    sl_error_clear(&e);
    int rc = sl_rpc_client_open(&c->c_mnode, url, NULL, &e);
    if (rc == 0) {
        /* Ask something cheap; any answer, even an error reply, proves the mnode is there. */
        Sluice__DbInfoRequest req = SLUICE__DB_INFO_REQUEST__INIT;
        req.db = SL_DDL_INFO_SCHEMA;
        uint8_t buf[64];
        size_t n = sluice__db_info_request__pack(&req, buf);
        rc = sl_rpc_call(c->c_mnode, SLUICE__MNODE_METHOD__MNODE_DB_INFO, 0, buf, n, NULL,
                         SL_CONNECT_TIMEOUT_MS, &e);
        if (rc != SL_EUNAVAILABLE && rc != SL_ETIMEOUT && rc != SL_EIO && rc != SL_ENOMEM)
            rc = 0;
    }
    if (rc < 0) {
        if (rc == SL_EUNAVAILABLE || rc == SL_ETIMEOUT)
            sl_error_set(err, rc, 0, 0, "cannot connect to %s: no answer within %d ms (is "
                         "sluice-mnode running there?)", c->c_addr, SL_CONNECT_TIMEOUT_MS);
        else
            sl_error_set(err, rc, 0, 0, "cannot connect to %s: %s", c->c_addr,
                         e.msg[0] ? e.msg : sl_strerror(rc));
        sl_close(c);
        return rc;
    }
    *out = c;
    return 0;
}

void sl_close(sl_conn *c)
{
    if (c == NULL)
        return;
    sl__meta_fini(c);
    sl_rpc_client_close(c->c_mnode);
    free(c->c_db);
    free(c);
}
