/*
 * sluice.h - libsluice, the client library of a Sluice cluster.
 *
 * A connection talks to the cluster's mnode for everything that concerns the catalog
 * (DDL, USE, SHOW, DESCRIBE, information_schema queries, table metadata) and straight to
 * the vnodes for data: INSERT rows are evaluated here, grouped by the vgroup that owns
 * each table and sent in one write batch per vgroup; DELETE goes to the owning vgroup(s);
 * a SELECT over user tables is planned here with the shared planner (common/exec/plan.h)
 * in MERGE mode: every vgroup runs the PARTIAL half of the statement and this library
 * merges the partial aggregates and runs the rest of the query, so a super-table query
 * over many vgroups returns exactly what one big table would.
 *
 * Table metadata (schema, uid, vgroup and vnode address) is cached per connection; DDL
 * sent through the connection drops the entries it changes (the table created, dropped or
 * altered, a child's super table, a database's tables on CREATE/DROP DATABASE), and a
 * write or scan refused because a cached table is gone drops that request's entries.
 *
 * Results are sl_result (common/exec/result.h): column names, one block of rows whose
 * columns carry the types, the timestamp precision and the affected-row count; the
 * sl_res_* accessors below read them without touching the block layout.
 *
 * Errors: functions return 0 or a negative sl_err (sl_strerror names it) and fill an
 * sl_error (may be NULL) with a message; statement errors carry the 1-based line and
 * column in the SQL text passed in, and the message starts with "line:col: ".
 *
 * Threads: a connection is used by one thread at a time; open one connection per thread
 * (connections share nothing).
 */
#ifndef SLUICE_H
#define SLUICE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/exec/catalog.h"
#include "common/exec/result.h"
#include "common/types/block.h"
#include "common/types/value.h"
#include "common/util/error.h"

typedef struct sl_conn sl_conn;

/* Default client-side timeout of one request, ms. */
#define SL_CONN_TIMEOUT_MS 30000
/* How long sl_connect waits for the mnode to answer, ms. */
#define SL_CONNECT_TIMEOUT_MS 3000

/*
 * Connects to the mnode at host:port (host is borrowed) and checks that it answers.
 * Returns 0 and *out (close with sl_close), or SL_EINVAL (bad host/port), SL_ENOMEM,
 * SL_EUNAVAILABLE / SL_ETIMEOUT when nothing answered within SL_CONNECT_TIMEOUT_MS; err
 * then says "cannot connect to host:port: <reason>".
 */
int sl_connect(const char *host, int port, sl_conn **out, sl_error *err);

/* Closes the connection and every vnode connection it opened (NULL-safe). */
void sl_close(sl_conn *c);

/*
 * Runs every statement of sql (borrowed, NUL-terminated; ';'-separated, a trailing ';'
 * optional) in order and leaves the last statement's result in *res (initialised by the
 * call; free with sl_result_fini): rows for a query (ncols > 0, affected -1), the row
 * count of INSERT/DELETE (ncols 0), or nothing for DDL and USE. Stops at the first
 * failing statement (earlier ones stay applied) and returns its negative code with the
 * message and position in *err; *res is then empty. An INSERT is atomic per vgroup: its
 * rows for one vgroup are accepted or refused together; when a later vgroup's batch
 * fails, earlier vgroups keep theirs and the error says so.
 */
int sl_query(sl_conn *c, const char *sql, sl_result *res, sl_error *err);

/* The connection's current database (set by USE), or NULL. Borrowed, valid until the
 * next sl_query. */
const char *sl_conn_db(const sl_conn *c);

/* "host:port" of the mnode this connection talks to. Borrowed. */
const char *sl_conn_addr(const sl_conn *c);

/*
 * Writes rows (borrowed; its columns must be the table's columns in order, with their
 * types) into the existing child or normal table db.table (db NULL: the current
 * database) without SQL: one write request to the vnode owning the table. Returns 0, or
 * SL_ENOTFOUND (no such table), SL_ETYPE (columns do not match the schema), SL_EINVAL (a
 * super table, a NULL timestamp or composite key), or the vnode's error.
 */
int sl_insert_block(sl_conn *c, const char *db, const char *table, const sl_block *rows,
                    sl_error *err);

/*
 * Sets the placement epoch that the connection's writes and deletes carry (0, the default,
 * means not fenced). An snode sets the epoch of the assignment it acts on, so that vnodes
 * refuse its output writes with SL_ESTALE once its slots moved (DESIGN.md section 3).
 * Queries are never fenced.
 */
void sl_conn_set_epoch(sl_conn *c, uint64_t epoch);

/* A table as a stream node sees it (sl_table_info_get). */
typedef struct sl_table_info {
    sl_table_meta meta;       /* schema, as the planner sees it */
    uint64_t uid;             /* the table's uid */
    uint64_t stable_uid;      /* child: its super table's uid; else 0 */
    const sl_block *tagvals;  /* child: one row of its tag values; else NULL */
    int nvgroups;             /* child/normal: 1 (its vgroup); super: every vgroup of the db */
    const uint32_t *vgroup_ids;      /* nvgroups ids */
    const char *const *vnode_addrs;  /* nvgroups addresses (tcp://host:port) */
    bool composite_key;       /* cols[1] is the COMPOSITE KEY: rows are (ts, key) */
} sl_table_info;

/*
 * Looks table db.name up (db NULL: the current database) through the connection's
 * metadata cache. Returns 0 and *out - pointers valid until the cache changes
 * (sl_conn_flush_meta, DDL on this connection, sl_close) - or SL_ENOTFOUND / the mnode's
 * error.
 */
int sl_table_info_get(sl_conn *c, const char *db, const char *name, sl_table_info *out,
                      sl_error *err);

/* Counters of one connection, for tests and diagnostics. */
typedef struct sl_conn_stats {
    uint64_t meta_hits;    /* table lookups answered by the cache */
    uint64_t meta_misses;  /* table lookups that asked the mnode */
    uint64_t mnode_calls;  /* requests sent to the mnode */
    uint64_t vnode_writes; /* VNODE_WRITE requests sent */
    uint64_t vnode_queries;/* VNODE_QUERY requests sent (pages) */
} sl_conn_stats;

/* Copies the connection's counters into *out. */
void sl_conn_get_stats(const sl_conn *c, sl_conn_stats *out);

/* Drops every cached table and database (the next lookup asks the mnode). */
void sl_conn_flush_meta(sl_conn *c);

/* ------------------------------------------------------------ reading results */

/* Number of columns, 0 for statements without rows. */
static inline int sl_res_ncols(const sl_result *r)
{
    return r->ncols;
}

/* Number of rows. */
static inline uint32_t sl_res_nrows(const sl_result *r)
{
    return r->ncols > 0 ? r->rows.nrows : 0;
}

/* Name of column i (0 <= i < ncols); borrowed from r. */
static inline const char *sl_res_name(const sl_result *r, int i)
{
    return r->names[i];
}

/* Type of column i. */
static inline sl_type sl_res_type(const sl_result *r, int i)
{
    return r->rows.cols[i].type;
}

/* Rows inserted or deleted by a write, -1 for a query. */
static inline int64_t sl_res_affected(const sl_result *r)
{
    return r->affected;
}

/* True when the value at (row, col) is NULL. */
static inline bool sl_res_is_null(const sl_result *r, uint32_t row, int col)
{
    return sl_column_is_null(&r->rows.cols[col], row);
}

/* Typed getters of a non-NULL value at (row, col). Integers, BOOL and TIMESTAMP read as
 * i64/u64 (widening), every numeric type as f64; text columns with sl_res_str. */
static inline int64_t sl_res_i64(const sl_result *r, uint32_t row, int col)
{
    return sl_column_get_i64(&r->rows.cols[col], row);
}
static inline uint64_t sl_res_u64(const sl_result *r, uint32_t row, int col)
{
    return sl_column_get_u64(&r->rows.cols[col], row);
}
static inline double sl_res_f64(const sl_result *r, uint32_t row, int col)
{
    return sl_column_get_f64(&r->rows.cols[col], row);
}
/* Text of a VARCHAR/NCHAR value (not NUL-terminated; *len bytes), borrowed from r. */
static inline const char *sl_res_str(const sl_result *r, uint32_t row, int col, uint32_t *len)
{
    return sl_column_get_str(&r->rows.cols[col], row, len);
}
/* Any value as an sl_value (strings borrowed from r). */
static inline void sl_res_value(const sl_result *r, uint32_t row, int col, sl_value *out)
{
    sl_column_get(&r->rows.cols[col], row, out);
}

#endif
