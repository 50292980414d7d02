/*
 * sluice_int.h - libsluice internals shared by its files: the connection, its metadata
 * cache (meta.c), the RPC helpers that talk protobuf to the mnode and the vnodes, and the
 * statement handlers (conn.c: mnode statements; write.c: INSERT, DELETE, bulk blocks;
 * select.c: distributed SELECT).
 */
#ifndef SLUICE_INT_H
#define SLUICE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/exec/catalog.h"
#include "common/exec/ddl.h"
#include "common/net/rpc.h"
#include "common/sql/ast.h"
#include "sluice.h"

/* A vgroup and the vnode that serves it. */
typedef struct sl__vgroup {
    uint32_t vg_id;   /* vgroup id */
    char *vg_addr;    /* vnode address, tcp://host:port (owned) */
} sl__vgroup;

/* One cached table: what TableMeta said, in the shapes the planner and DDL code read. */
typedef struct sl__meta {
    struct sl__meta *m_next; /* hash chain */
    uint64_t m_hash;         /* of the lowercased "db.name" */
    char *m_db;              /* database (owned) */
    char *m_name;            /* table name (owned) */
    char *m_stable;          /* child: its super table's name (owned), else NULL */
    uint64_t m_uid;          /* table uid */
    uint64_t m_stable_uid;   /* child: its super table's uid */
    sl_table_meta m_tm;      /* planner view; points at the fields below */
    sl_field *m_cols;        /* columns, names owned */
    bool m_key;              /* m_cols[1] is the COMPOSITE KEY (never NULL) */
    sl_field *m_tags;        /* tags, names owned */
    sl_block m_tagvals;      /* child: one row of tag values (may have 0 columns) */
    sl__vgroup m_vg;         /* child/normal: where it lives */
    int m_nvg;               /* super: every vgroup of the database */
    sl__vgroup *m_vgs;
    uint32_t *m_info_ids;    /* sl_table_info views of m_vg/m_vgs (owned, made on demand) */
    const char **m_info_addrs;
} sl__meta;

/* One cached database. */
typedef struct sl__dbinfo {
    struct sl__dbinfo *d_next;
    char *d_name;            /* as the mnode spells it (owned) */
    sl_precision d_prec;
    int d_nvg;
    sl__vgroup *d_vgs;
} sl__dbinfo;

/* An open RPC client to one vnode address. */
typedef struct sl__vnode_cli {
    struct sl__vnode_cli *v_next;
    char *v_addr;            /* owned */
    sl_rpc_client *v_cli;
} sl__vnode_cli;

#define SL__META_BUCKETS 1024

struct sl_conn {
    char c_addr[300];          /* "host:port" */
    sl_rpc_client *c_mnode;    /* the mnode */
    char *c_db;                /* current database (owned) or NULL */
    sl__meta *c_meta[SL__META_BUCKETS]; /* table cache */
    sl__dbinfo *c_dbs;         /* database cache */
    sl__vnode_cli *c_vnodes;   /* vnode clients by address */
    int c_timeout_ms;          /* per request */
    uint64_t c_epoch;          /* placement epoch of writes and deletes (0: not fenced) */
    int64_t c_now_ms;          /* the running statement's NOW */
    sl_error c_lookup_err;     /* an RPC failure hidden behind a "not found" lookup */
    bool c_retry;              /* the statement failed on stale metadata before writing
                                * anything: running it once more may succeed */
    sl_conn *c_meta_to;        /* caches the tables a CREATE TABLE names (ExecReply.created);
                                * NULL: this connection (sl__conn_meta_to) */
    bool c_background;         /* its writes are background work (WriteRequest.background) */
    sl_conn_stats c_stats;
};

/* Marks c's writes as background work (a stream's output): vnodes do not count them as
 * the client write load their stream reads yield to. */
void sl__conn_set_background(sl_conn *c, bool on);

/* ---------------------------------------------------------------- RPC helpers (meta.c) */

/*
 * Calls the mnode: packs nothing itself; req/len is the packed body, the reply payload
 * lands in reply. Counts the call. Returns 0 or the error as sl_rpc_call.
 */
int sl__mnode_call(sl_conn *c, uint32_t method, const void *req, size_t len, sl_buf *reply,
                   sl_error *err);

/* Opens (once) the client of the vnode at addr, so that later calls to it only read the
 * connection's client list (they may then run on several threads at once). */
int sl__vnode_open(sl_conn *c, const char *addr, sl_error *err);

/* Calls the vnode at addr (opening a client for it on first use). Thread-safe only for
 * addresses already opened with sl__vnode_open. */
int sl__vnode_call(sl_conn *c, const char *addr, uint32_t method, const void *req, size_t len,
                   sl_buf *reply, sl_error *err);

/* ---------------------------------------------------------------- metadata cache (meta.c) */

/*
 * Finds table db.name (db NULL: the current database) in the cache or asks the mnode.
 * Returns 0 and *out (owned by the cache, valid until the cache is flushed or the entry
 * dropped), SL_ENOTFOUND with a message, or another error.
 */
int sl__meta_get(sl_conn *c, const char *db, const char *name, sl__meta **out, sl_error *err);
/* Caches the metadata of the tables names[0..n) of db (NULL: the current database) that
 * are not cached yet, in one MNODE_TABLE_META per META_PREFETCH_MAX + 1 of them (an
 * snode about to write to the output subtables it just created). Tables that do not exist
 * are skipped, unless the first of a request is missing: then that request fails. Returns
 * 0 or an error (nothing needs undoing: later lookups ask again). */
#define META_PREFETCH_MAX 1024
/* Has the metadata of the tables c's CREATE TABLE statements name (the mnode sends it with
 * its answer) cached in to's table cache instead of c's: a connection that only runs DDL
 * for another. to must outlive c's statements; the same thread uses both. */
void sl__conn_meta_to(sl_conn *c, sl_conn *to);

int sl__meta_prefetch(sl_conn *c, const char *db, const char *const *names, size_t n,
                      sl_error *err);

/* Finds database name in the cache or asks the mnode. As sl__meta_get. */
int sl__db_get(sl_conn *c, const char *name, sl__dbinfo **out, sl_error *err);

/* Adds a TableMeta (a Sluice__TableMeta *, as void to keep protobuf out of this header) to
 * the cache, replacing an entry of the same name. Returns 0 and *out, or SL_ENOMEM /
 * SL_ECORRUPT. */
int sl__meta_add_pb(sl_conn *c, const void *pb, sl__meta **out, sl_error *err);

/* Drops one table from the cache (NULL-safe). */
void sl__meta_drop(sl_conn *c, sl__meta *m);

/*
 * What a catalog change makes stale, dropped from the cache so that only it is asked for
 * again (the rest stays cached). sl__meta_forget: table db.name (both borrowed; NULL-safe),
 * its super table's entry when it is a cached child, and the cached children of it when it
 * is a super table. sl__meta_forget_db: database db's entry and every cached table of it.
 * Entry pointers the caller holds for the forgotten tables become invalid.
 */
void sl__meta_forget(sl_conn *c, const char *db, const char *name);
void sl__meta_forget_db(sl_conn *c, const char *db);
/* Drops the cached entry of table db.name alone (NULL-safe): a super table a CREATE TABLE
 * ... USING named, whose children stay valid. */
void sl__meta_forget_entry(sl_conn *c, const char *db, const char *name);

/* Frees every cache entry and vnode client. */
void sl__meta_fini(sl_conn *c);

/* An sl_ddl_source over the cache, for the shared INSERT target rules. */
sl_ddl_source sl__meta_ddl_source(sl_conn *c);

/* The cache as a planner catalog (get_table only; scans are remote). */
sl_catalog sl__meta_catalog(sl_conn *c);

/* ---------------------------------------------------------------- statements */

/* Runs one catalog statement (sql, borrowed) on the mnode in the current database and
 * fills *res (initialised by the call). For internal lookups (information_schema). */
int sl__mnode_query(sl_conn *c, const char *sql, sl_result *res, sl_error *err);

/* INSERT (write.c). Sets res->affected. */
int sl__conn_insert(sl_conn *c, const sl_stmt *st, sl_result *res, sl_error *err);
/* DELETE (write.c). */
int sl__conn_delete(sl_conn *c, const sl_stmt *st, sl_result *res, sl_error *err);
/* SELECT over user tables (select.c). */
int sl__conn_select(sl_conn *c, const sl_stmt *st, sl_result *res, sl_error *err);

/* How long a vnode request keeps retrying while the vnode answers "unavailable", and a
 * write while a vnode does not know a table the cache placed on it (ms). */
#define SL_VNODE_RETRY_MS 5000

/* One growing pause between retries (meta.c): sleeps *pause_ms, adds it to *waited_ms and
 * doubles *pause_ms for the next one, up to cap_ms. */
void sl__retry_pause(int *pause_ms, int *waited_ms, int cap_ms);

/* One table's rows for sl__insert_blocks. */
typedef struct sl__block_write {
    const char *table;     /* a child or normal table of the call's database (borrowed) */
    const sl_block *rows;  /* its rows, as sl_insert_block takes them (borrowed) */
    int rc;                /* out: 0 when the rows were written (or there were none), else
                            * the error that refused them */
} sl__block_write;

/*
 * sl_insert_block for n tables of database db (NULL: the current one) at once, for writers
 * of many tables' rows - the snode's output writer: every item is looked up and checked as
 * sl_insert_block checks one, then the items are grouped by the vgroup of their table and
 * each vgroup gets one VNODE_WRITE request carrying all of its items (applied atomically
 * by the vnode), instead of one request per table. The writes carry the connection's epoch
 * and are idempotent (rows replace rows of the same key), so a failed call may be repeated.
 * A table should be listed once: two items of one table in one request reach the vnode in
 * one batch. Items whose lookup or check fails fail alone; a request the vnode refuses
 * fails every item it carried, and its SL_ENOTFOUND forgets their cached entries (the next
 * call looks them up again). Sets every item's rc and returns 0 when all were written,
 * else the first failure's code with its message in err. SL_EINVAL for a NULL argument
 * (nothing is sent, no rc set). w is borrowed; only the rc fields are written.
 */
int sl__insert_blocks(sl_conn *c, const char *db, sl__block_write *w, size_t n, sl_error *err);

/* Case-insensitive (ASCII) equality. */
bool sl__name_eq(const char *a, const char *b);

#endif
