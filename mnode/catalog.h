/*
 * catalog.h - the mnode catalog: databases, super, child and normal tables, vgroups and
 * the cluster's nodes, kept in one RocksDB directory.
 *
 * The `sluice-mnode` daemon wraps this library; it has no network code. It answers what
 * the rest of the cluster asks the mnode (DESIGN.md sections 1-2):
 *
 *   - DDL: CREATE/DROP DATABASE, CREATE STABLE, CREATE TABLE (normal, and USING ... TAGS,
 *     several at once), DROP TABLE/STABLE, with IF [NOT] EXISTS, validated by exactly the
 *     rules and messages of the embedded store (common/exec/ddl.h); and the child tables
 *     that `INSERT INTO t USING st TAGS (...)` creates on first write.
 *   - Lookups: a table's schema, uid, tag values and where it lives (table -> vgroup ->
 *     vnode and its address), a database's options and vgroups.
 *   - Placement: a table lives in vgroup hash(db, table) % vgroups of its database; a new
 *     database's vgroups are placed on the alive vnodes, fewest vgroups first.
 *   - Membership: nodes (vnode, snode, mnode) register by address, heartbeat, and are
 *     marked dead by a sweep when their heartbeats stop.
 *   - SHOW DATABASES/STABLES/TABLES/VNODES/DNODES [LIKE], SHOW CREATE ..., DESCRIBE, and
 *     the system tables information_schema.ins_databases, ins_stables, ins_tables,
 *     ins_tags, ins_vgroups and ins_dnodes, which the shared planner reads through the
 *     catalog's sl_catalog (SELECT ... FROM information_schema.ins_tables GROUP BY ...).
 *
 * Durability: every DDL statement, registration and status change is one atomic RocksDB
 * write batch synced to disk before the call returns 0, so an acknowledged change
 * survives kill -9 and power loss, a crash never leaves half a statement, and a refused
 * statement (or one whose write fails) changes nothing, on disk or in memory. Heartbeats
 * that do not change a node's status are written without a sync (they survive the death of
 * the process, not a power loss; a lost one is just an older last-seen time). Reopening
 * the directory restores everything, the uid, vgroup and node id counters included. The
 * whole catalog is also held in memory, so lookups never touch the disk.
 *
 * Time: the catalog reads no clock for membership: heartbeats and sweeps carry the
 * caller's time (ms since the epoch). Creation times and NOW in tag values come from the
 * clock given at open (tests inject a fixed one).
 *
 * Thread rules: a catalog is used by one thread at a time - the daemon's event loop - with
 * no internal locking. Pointers a lookup returns (names, schemas, tag blocks, addresses)
 * are owned by the catalog and stay valid until the next call that changes it (DDL,
 * auto-create, register, heartbeat, sweep) or closes it. A scan of a system table must be
 * finished (or closed) before the catalog changes.
 *
 * Errors: functions return 0 or a negative sl_err code (common/util/error.h) and fill an
 * sl_error, when given, with a message for the user. Statement errors have the parser's
 * form "line:col: message".
 */
#ifndef SL_MCATALOG_H
#define SL_MCATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/exec/catalog.h"
#include "common/exec/result.h"
#include "common/sql/ast.h"
#include "common/types/block.h"
#include "common/util/arena.h"
#include "common/util/buf.h"
#include "common/util/error.h"

typedef struct sl_mcatalog sl_mcatalog;

/* Options of sl_mcatalog_open(); all-zero memory selects the defaults. */
typedef struct sl_mcatalog_options {
    /* Clock for creation times and NOW in tag values, ms since the epoch; NULL: the
     * system's real-time clock. */
    int64_t (*now_ms)(void *ud);
    void *now_ud; /* argument of now_ms */
} sl_mcatalog_options;

/* Longest node address accepted, in bytes ("host:port", "tcp://host:port", ...). */
#define SL_MCATALOG_ADDR_MAX 255

/* ---------------------------------------------------------------------------------------
 * Lifecycle
 * ------------------------------------------------------------------------------------- */

/*
 * Opens the catalog kept in directory `dir` (created, one level, when missing) and loads
 * it into memory. `opts` is borrowed (NULL: defaults). On success stores the catalog in
 * *out (close it with sl_mcatalog_close) and returns 0. Errors: SL_EINVAL (bad path),
 * SL_EIO (cannot open, e.g. the directory is in use by another process), SL_ECORRUPT
 * (records that do not decode or refer to missing objects), SL_ENOMEM. *out is untouched
 * on failure.
 */
int sl_mcatalog_open(sl_mcatalog **out, const char *dir, const sl_mcatalog_options *opts,
                     sl_error *err);

/* Closes the catalog (NULL-safe). Every acknowledged change is already on disk. */
void sl_mcatalog_close(sl_mcatalog *cat);

/* ---------------------------------------------------------------------------------------
 * DDL
 * ------------------------------------------------------------------------------------- */

/* What a DDL statement changed, for the daemon to tell the vnodes. */
typedef enum sl_ddl_change_kind {
    SL_DDL_DB_CREATED,     /* db */
    SL_DDL_DB_DROPPED,     /* db (its tables go with it; no table entries are listed) */
    SL_DDL_VGROUP_CREATED, /* db, vgroup_id, vnode_id: a vgroup of a new database */
    SL_DDL_VGROUP_DROPPED, /* db, vgroup_id, vnode_id: a vgroup of a dropped database */
    SL_DDL_TABLE_CREATED,  /* db, table, table_kind, uid, stable_uid, vgroup_id, vnode_id */
    SL_DDL_TABLE_DROPPED   /* the same; a dropped super table lists its children too */
} sl_ddl_change_kind;

typedef struct sl_ddl_change {
    sl_ddl_change_kind kind;
    const char *db;           /* database name as created (owned by the result) */
    const char *table;        /* table changes: its name as created; else NULL */
    sl_table_kind table_kind; /* table changes */
    uint64_t uid;             /* table changes: the table's uid */
    uint64_t stable_uid;      /* child tables: the super table's uid; else 0 */
    uint32_t vgroup_id;       /* vgroups, child and normal tables; else 0 */
    uint32_t vnode_id;        /* the vgroup's vnode; else 0 */
} sl_ddl_change;

/* The changes of one statement, in order (empty when IF [NOT] EXISTS skipped it all). */
typedef struct sl_ddl_result {
    int nchanges;
    sl_ddl_change *changes; /* owned */
    int capchanges;
    sl_arena arena; /* the strings of the changes */
} sl_ddl_result;

/* Makes an empty result. */
void sl_ddl_result_init(sl_ddl_result *r);
/* Frees what a result holds (NULL-safe); it is empty afterwards. */
void sl_ddl_result_fini(sl_ddl_result *r);

/*
 * Executes one DDL statement: CREATE DATABASE, DROP DATABASE, CREATE STABLE, CREATE TABLE
 * (normal, or one or more USING ... TAGS clauses), DROP TABLE, DROP STABLE (which drops its
 * child tables), with IF [NOT] EXISTS. Unqualified names resolve in current_db (borrowed,
 * may be NULL). New tables get the next uid; child and normal tables are placed in vgroup
 * hash(db, name) % vgroups of their database (sl_mcatalog_vgroup_index); a new database's
 * vgroups are placed on the alive vnodes, each on the vnode that holds the fewest vgroups
 * at that moment (ties: lowest node id).
 *
 * The statement is validated whole (common/exec/ddl.h: names, types, limits, tag values,
 * object kinds) and then applied as one synced write batch. On success returns 0 and
 * fills *out (initialised by the call; free with sl_ddl_result_fini) with what changed.
 * On error returns a negative code with "line:col: message" in err and changes nothing:
 * the rules' errors (SL_EEXIST, SL_ENOTFOUND, SL_ETYPE, SL_ERANGE, SL_ELIMIT, SL_EINVAL),
 * SL_ESTATE when a database is created while no vnode is alive, SL_EINVAL for changes to
 * the read-only information_schema, SL_EUNSUPPORTED for other statement kinds, SL_EIO
 * when the write fails, SL_ENOMEM. `stmt` is borrowed.
 *
 * Stream statements: CREATE STREAM [IF NOT EXISTS] [db.]name resolves the FROM table
 * (qualified, else current_db, else the stream's database), validates with
 * sl_stream_check (its message and position are the error) against that table and the
 * database's precision, refuses a duplicate ("stream 'x' already exists", SL_EEXIST; with
 * IF NOT EXISTS nothing at all is done) and stores the stream - with the statement's exact
 * text (sl_stmt.text), status "running" - in one synced batch. With INTO [db.]t (db: else
 * the stream's database, which must exist) that batch also creates the output table when
 * it does not exist: a super table when the stream is grouped (PARTITION BY / ROLLUP BY),
 * else a normal table placed like CREATE TABLE's, reported in out as SL_DDL_TABLE_CREATED
 * (out is empty otherwise). Its columns come from planning the AS subquery against the
 * catalog (unqualified names as the FROM table's; placeholders typed as listed in
 * catalog_stream_out.c) renamed by the (col, ...) list; its tags from TAGS, else from the
 * grouping columns (tbname: tag_tbname VARCHAR(270)). The derived schema is checked by the
 * CREATE [S]TABLE rules with their messages (names, types, limits, COMPOSITE KEY), plus:
 * the first column must be a TIMESTAMP, the list must name as many columns as the query
 * returns, output names are unique, derived tags are distinct and differ from the columns
 * (SL_EINVAL); subquery errors are the planner's, at their position. An existing INTO
 * table must have exactly that kind, column and tag names and types, else SL_EEXIST
 * "output table 't' already exists with a different schema: <difference>". DROP STREAM
 * [IF EXISTS] a, b is all or nothing (an unknown name without IF EXISTS refuses the whole
 * statement, SL_ENOTFOUND) and keeps the output tables; START/STOP STREAM [IF EXISTS]
 * persist the status (START of a running stream does nothing). DROP DATABASE drops its
 * streams. No snode is involved (yet).
 */
int sl_mcatalog_exec_ddl(sl_mcatalog *cat, const sl_stmt *stmt, const char *current_db,
                         sl_ddl_result *out, sl_error *err);

/* ---------------------------------------------------------------------------------------
 * Lookups. Returned pointers follow the rule of the file comment.
 * ------------------------------------------------------------------------------------- */

/* A table as the catalog knows it. */
typedef struct sl_mcatalog_table {
    sl_table_meta meta;      /* schema for the planner (a child's columns and tags are its
                              * super table's) */
    uint64_t uid;            /* unique in the cluster, never reused */
    uint64_t stable_uid;     /* child: its super table's uid; else 0 */
    const char *stable;      /* child: its super table's name; else NULL */
    int64_t create_time;     /* ms since the epoch */
    uint32_t vgroup_id;      /* child and normal tables; 0 for a super table */
    uint32_t vnode_id;       /* the vnode of that vgroup; 0 for a super table */
    const char *vnode_addr;  /* its address; NULL for a super table */
    bool vnode_alive;        /* whether that vnode is alive */
    const sl_block *tagvals; /* child: one row of tag values in tag order; else NULL */
    bool composite_key;      /* meta.cols[1] is the COMPOSITE KEY (a child: its super's):
                              * rows are identified by (timestamp, key) */
} sl_mcatalog_table;

/*
 * Looks up table `name` of database `db` (both borrowed, case-insensitive). Returns 0 and
 * *out, or SL_ENOTFOUND with a message naming the unknown database or table.
 */
int sl_mcatalog_table_get(sl_mcatalog *cat, const char *db, const char *name,
                          sl_mcatalog_table *out, sl_error *err);

/*
 * Resolves the table an INSERT item writes to, creating it when the item says
 * `USING st [(tags)] TAGS (...)` and it does not exist yet - exactly as CREATE TABLE name
 * USING st TAGS (...) would, in one synced write (an existing table must then be a child of
 * st). Unqualified names resolve in current_db. Returns 0, *out (the table) and *created
 * (whether this call made it), or an error as sl_mcatalog_exec_ddl (unknown table without
 * USING, tag value mismatches, ...) with nothing changed. The item's rows are not looked at.
 */
int sl_mcatalog_auto_create(sl_mcatalog *cat, const sl_insert_item *item, const char *current_db,
                            sl_mcatalog_table *out, bool *created, sl_error *err);

/* Visitor of sl_mcatalog_each_table: return 0 to go on, nonzero to stop with that value. */
typedef int (*sl_mcatalog_table_fn)(void *arg, const sl_mcatalog_table *t);

/*
 * Calls fn for every table of database db (stable NULL: every table, super tables
 * included; else the child tables of that super table), in no particular order. The
 * catalog must not change during the walk. Returns 0, the first nonzero value fn returned,
 * or SL_ENOTFOUND (with a message) for an unknown database or super table.
 */
int sl_mcatalog_each_table(sl_mcatalog *cat, const char *db, const char *stable,
                           sl_mcatalog_table_fn fn, void *arg, sl_error *err);

/*
 * Calls fn for every child and normal table placed in vgroup `vgroup_id`, in no particular
 * order. The catalog keeps these lists per vgroup, so the cost is proportional to the
 * vgroup's tables, not to its database's. The catalog must not change during the walk.
 * Returns 0, the first nonzero value fn returned, or SL_ENOTFOUND (with a message) for an
 * unknown vgroup.
 */
int sl_mcatalog_each_vgroup_table(sl_mcatalog *cat, uint32_t vgroup_id, sl_mcatalog_table_fn fn,
                                  void *arg, sl_error *err);

/*
 * Calls fn for every super table of database db (borrowed), in no particular order, at a
 * cost proportional to the super tables (not the child tables). The catalog must not
 * change during the walk. Returns 0, the first nonzero value fn returned, or SL_ENOTFOUND
 * (with a message) for an unknown database.
 */
int sl_mcatalog_each_stable(sl_mcatalog *cat, const char *db, sl_mcatalog_table_fn fn, void *arg,
                            sl_error *err);

/* A database. */
typedef struct sl_mcatalog_db {
    const char *name; /* as created */
    sl_precision precision;
    int64_t create_time; /* ms since the epoch */
    uint32_t nvgroups;
    const uint32_t *vgroup_ids; /* nvgroups ids; entry i is the vgroup of hash index i */
    int64_t ntables;            /* child and normal tables */
    int64_t nstables;           /* super tables */
} sl_mcatalog_db;

/* Looks up database `name`. Returns 0 and *out, or SL_ENOTFOUND with a message. */
int sl_mcatalog_db_get(sl_mcatalog *cat, const char *name, sl_mcatalog_db *out, sl_error *err);

/* A vgroup: a shard of one database, owned by one vnode. */
typedef struct sl_mcatalog_vgroup {
    uint32_t id;            /* unique in the cluster, never reused */
    const char *db;         /* its database */
    uint32_t index;         /* its hash index in the database, 0..nvgroups-1 */
    uint32_t vnode_id;      /* the node that holds it */
    const char *vnode_addr; /* that node's address */
    bool vnode_alive;
    int64_t ntables; /* child and normal tables placed in it */
} sl_mcatalog_vgroup;

/* Looks up vgroup `id`. Returns 0 and *out, or SL_ENOTFOUND with a message. */
int sl_mcatalog_vgroup_get(sl_mcatalog *cat, uint32_t id, sl_mcatalog_vgroup *out, sl_error *err);

/* Visitor of sl_mcatalog_each_vgroup: return 0 to go on, nonzero to stop with that value. */
typedef int (*sl_mcatalog_vgroup_fn)(void *arg, const sl_mcatalog_vgroup *vg);

/* Calls fn for every vgroup in ascending id order (the catalog must not change during the
 * walk); returns 0 or the first nonzero fn value. */
int sl_mcatalog_each_vgroup(sl_mcatalog *cat, sl_mcatalog_vgroup_fn fn, void *arg);

/*
 * The hash index (0..nvgroups-1, nvgroups > 0) of table `table` of database `db`:
 * xxHash3-64 (sl_hash_bytes) of the lower-cased database name, one 0 byte and the
 * lower-cased table name, modulo nvgroups. Pure and stable across versions and processes,
 * so a client may compute it too. Names longer than any valid one (SL_NAME_MAX,
 * SL_TABLE_NAME_MAX bytes) are hashed by that many leading bytes.
 */
uint32_t sl_mcatalog_vgroup_index(const char *db, const char *table, uint32_t nvgroups);

/* ---------------------------------------------------------------------------------------
 * Nodes
 * ------------------------------------------------------------------------------------- */

typedef enum sl_mc_node_kind {
    SL_MC_VNODE = 1, /* storage node: holds vgroups */
    SL_MC_SNODE = 2, /* stream node */
    SL_MC_MNODE = 3  /* management node */
} sl_mc_node_kind;

/* Returns "vnode", "snode" or "mnode" ("?" for anything else). */
const char *sl_mc_node_kind_name(sl_mc_node_kind k);

typedef struct sl_mcatalog_node {
    uint32_t id; /* unique in the cluster, never reused */
    sl_mc_node_kind kind;
    const char *addr; /* the address it registered with */
    bool alive;
    int64_t last_seen;   /* time of the last registration or heartbeat (caller's clock) */
    int64_t create_time; /* time of the first registration (caller's clock) */
    uint32_t nvgroups;   /* vgroups it holds (vnodes) */
} sl_mcatalog_node;

/*
 * Registers a node of `kind` at address `addr` (borrowed; 1..SL_MCATALOG_ADDR_MAX bytes)
 * at time now_ms, and stores its id in *id. Idempotent by address: a node that registers
 * again (a restart) keeps its id, and is marked alive with last_seen = now_ms. Returns 0,
 * SL_EINVAL (bad address or kind), SL_EEXIST (the address is registered as another kind),
 * SL_EIO or SL_ENOMEM; nothing changes on error.
 */
int sl_mcatalog_node_register(sl_mcatalog *cat, sl_mc_node_kind kind, const char *addr,
                              int64_t now_ms, uint32_t *id, sl_error *err);

/*
 * Records a heartbeat of node `id` at now_ms: last_seen = now_ms, and a dead node is alive
 * again. Returns 0, SL_ENOTFOUND (unknown id; the node should register), SL_EIO.
 */
int sl_mcatalog_node_heartbeat(sl_mcatalog *cat, uint32_t id, int64_t now_ms, sl_error *err);

/*
 * Marks dead every alive node not seen for more than timeout_ms (now_ms - last_seen >
 * timeout_ms), in one synced write. Stores the number of nodes it marked in *ndead (may be
 * NULL) and the first `cap` of their ids, ascending, in dead (may be NULL when cap is 0).
 * Returns 0, SL_EINVAL (negative timeout), SL_EIO (then nothing is marked).
 */
int sl_mcatalog_node_sweep(sl_mcatalog *cat, int64_t now_ms, int64_t timeout_ms, uint32_t *dead,
                           size_t cap, size_t *ndead, sl_error *err);

/* Looks up node `id`. Returns 0 and *out, or SL_ENOTFOUND with a message. */
int sl_mcatalog_node_get(sl_mcatalog *cat, uint32_t id, sl_mcatalog_node *out, sl_error *err);

/* Visitor of sl_mcatalog_each_node: return 0 to go on, nonzero to stop with that value. */
typedef int (*sl_mcatalog_node_fn)(void *arg, const sl_mcatalog_node *n);

/* Calls fn for every node in ascending id order; returns 0 or the first nonzero fn value. */
int sl_mcatalog_each_node(sl_mcatalog *cat, sl_mcatalog_node_fn fn, void *arg);

/*
 * Names the management node this catalog serves: ins_dnodes / SHOW DNODES / SHOW MNODES
 * then list it as dnode 0 (kind mnode, status alive, 0 vgroups), with create_time
 * started_ms and last_heartbeat the catalog clock's now at each query (it answers, so it
 * is alive). Memory only: the mnode is not a registered member (it is the registry), so it
 * takes no node id and moves no other node's. `addr` is copied (1..SL_MCATALOG_ADDR_MAX
 * bytes); calling again replaces it. Returns 0, SL_EINVAL or SL_ENOMEM.
 */
int sl_mcatalog_set_self(sl_mcatalog *cat, const char *addr, int64_t started_ms, sl_error *err);

/* The storage load of one vgroup as its vnode reports it in a heartbeat (counters since
 * the vnode opened the vgroup; see proto/mnode.proto VgroupLoad). */
typedef struct sl_mcatalog_vgroup_load {
    uint32_t vgroup_id;
    uint64_t rows;           /* visible rows stored */
    uint64_t disk_bytes;     /* table files + memtables of its store */
    uint64_t write_requests; /* WRITE and DELETE requests acknowledged */
    uint64_t rows_written;   /* rows of those WRITE requests */
    uint64_t fenced;         /* WRITE/DELETE requests refused for a stale epoch */
} sl_mcatalog_vgroup_load;

/*
 * Records the load report of vnode `id` (memory only: ins_vgroups shows each vgroup's
 * latest load, ins_dnodes each vnode's totals; a restarted mnode shows NULL until the
 * next report). Each of the n loads (borrowed array) replaces the load of its vgroup when
 * the catalog places that vgroup on vnode `id`; a load naming an unknown vgroup, a vgroup
 * placed on another vnode, or a vgroup already listed earlier in the same report is
 * ignored and counted in *ignored (may be NULL), and changes nothing. `ctr` holds the
 * vnode's own totals (NULL: all 0): stale-epoch refusals (requests naming vgroups it does
 * not hold included) and the change-log reads it held for heavy client writes. Values
 * above INT64_MAX show as INT64_MAX. Does not count as a heartbeat (call
 * sl_mcatalog_node_heartbeat). Returns 0, SL_ENOTFOUND (unknown id) or SL_EINVAL (not a
 * vnode; then nothing is recorded).
 */
typedef struct sl_mcatalog_vnode_counters {
    uint64_t fenced;        /* WRITE/DELETE refused for a stale epoch */
    uint64_t reads_held;    /* change-log reads held for heavy client writes */
    uint64_t reads_held_ms; /* and the ms they waited, all together */
} sl_mcatalog_vnode_counters;
int sl_mcatalog_vnode_report(sl_mcatalog *cat, uint32_t id, const sl_mcatalog_vgroup_load *loads,
                             size_t n, const sl_mcatalog_vnode_counters *ctr, size_t *ignored,
                             sl_error *err);

/* ---------------------------------------------------------------------------------------
 * Stream placement, snodes, epochs and checkpoints (catalog_assign.c; DESIGN.md section 3)
 *
 * Every (stream, slot) pair - SL_PLACE_SLOTS slots per stream - is owned by one snode,
 * chosen by rendezvous hashing (mnode/placement.h) among the snodes that are alive and not
 * dropped; stopped streams keep their placement (their snodes hold but do not run them).
 * The placement is a pure function of the candidate set and the streams, so a restarted
 * mnode recomputes the same one. Every change of it - an snode joining, leaving, dying or
 * dropped, a stream created, dropped, started or stopped - bumps the cluster's assignment
 * **epoch**, a persistent counter that only grows. Snodes act only on the assignment of
 * the epoch they last received; vnodes and the checkpoint store refuse fenced requests
 * that carry an older epoch (SL_ESTALE), so a deposed snode cannot write.
 * ------------------------------------------------------------------------------------- */

/* The current assignment epoch (starts at 1 for a new catalog). */
uint64_t sl_mcatalog_epoch(sl_mcatalog *cat);

/* Slots per stream (SL_PLACE_SLOTS). */
uint32_t sl_mcatalog_slots(sl_mcatalog *cat);

/*
 * Recomputes the placement when something that affects it changed since the last call
 * (node status, streams); when the result differs from the current one, bumps the epoch
 * in a synced write and sets *changed (may be NULL). Returns 0, SL_EIO or SL_ENOMEM (then
 * the old placement and epoch stay). Cheap when nothing changed.
 */
int sl_mcatalog_place(sl_mcatalog *cat, bool *changed, sl_error *err);

/* What an snode reports about one stream it runs (heartbeat). */
typedef struct sl_mcatalog_task_report {
    uint64_t stream_id;
    int64_t lag_ms;
    uint64_t rows;
    uint64_t outbox;
    const char *error; /* borrowed; NULL or "" when none */
} sl_mcatalog_task_report;

/* An snode's heartbeat report: the epoch it acts on and its load. */
typedef struct sl_mcatalog_snode_report {
    uint64_t epoch;
    uint64_t memory_bytes;
    uint64_t groups;
    size_t ntasks;
    const sl_mcatalog_task_report *tasks;
} sl_mcatalog_snode_report;

/*
 * Records the heartbeat of snode `id` at now_ms (as sl_mcatalog_node_heartbeat) and its
 * report (kept in memory only; shown by ins_snodes and ins_stream_tasks). Returns 0,
 * SL_ENOTFOUND (unknown id: register), SL_ESTATE ("snode N was dropped": it must leave),
 * SL_EINVAL (not an snode), SL_EIO, SL_ENOMEM.
 */
int sl_mcatalog_snode_heartbeat(sl_mcatalog *cat, uint32_t id, const sl_mcatalog_snode_report *r,
                                int64_t now_ms, sl_error *err);

/* Marks node `id` dead at once (graceful leave: its pairs move without waiting for the
 * sweep). Returns 0, SL_ENOTFOUND, SL_EIO. */
int sl_mcatalog_node_leave(sl_mcatalog *cat, uint32_t id, sl_error *err);

/*
 * DROP SNODE id: marks the snode dropped (persistent): no pair is placed on it, its
 * heartbeats are answered SL_ESTATE so it drains and leaves, and registering again at its
 * address brings it back as a new member. Returns 0, SL_ENOTFOUND ("snode N does not
 * exist", also for ids of other kinds), SL_EIO.
 */
int sl_mcatalog_snode_drop(sl_mcatalog *cat, uint32_t id, sl_error *err);

/* A stream as placed. owners[slot] is the owning snode id (0: no snode alive). */
typedef struct sl_mcatalog_stream {
    uint64_t id;
    const char *db;
    const char *name;
    const char *sql; /* the CREATE STREAM text */
    const char *plan_db; /* unqualified names of its query resolve in this database */
    bool running;
    bool ignore_untreated; /* the last START said IGNORE UNTREATED */
    uint64_t ignore_untreated_epoch; /* ... and the epoch that START took effect in */
    uint32_t nslots;
    const uint32_t *owners; /* nslots entries; valid until the next change of the catalog */
} sl_mcatalog_stream;

/*
 * Whether stream `name` of database `db` (names compared as the catalog does) runs at the
 * current placement: every slot has an owner that acts on the current epoch and reports
 * the stream among its ready tasks. CREATE STREAM and START STREAM answer only then, so
 * rows written after the statement returns are the stream's (an owner reports a task
 * after reading the change log's end). Returns SL_MC_STREAM_RUNNING, SL_MC_STREAM_STARTING
 * (not yet), SL_MC_STREAM_IDLE (stopped, or no snode alive: nothing will start it soon)
 * or SL_MC_STREAM_GONE (no such stream: dropped meanwhile). Call sl_mcatalog_place first.
 */
typedef enum sl_mcatalog_stream_state {
    SL_MC_STREAM_GONE = 0,
    SL_MC_STREAM_IDLE = 1,
    SL_MC_STREAM_STARTING = 2,
    SL_MC_STREAM_RUNNING = 3
} sl_mcatalog_stream_state;
sl_mcatalog_stream_state sl_mcatalog_stream_state_of(sl_mcatalog *cat, const char *db,
                                                     const char *name);

/* Visitor of sl_mcatalog_each_stream: return 0 to go on, nonzero to stop with that value. */
typedef int (*sl_mcatalog_stream_fn)(void *arg, const sl_mcatalog_stream *s);

/* Calls fn for every stream, ascending id, with its current placement (call
 * sl_mcatalog_place first). Returns 0 or the first nonzero fn value. */
int sl_mcatalog_each_stream(sl_mcatalog *cat, sl_mcatalog_stream_fn fn, void *arg);

/*
 * Stores the checkpoint of (stream_id, slot) written by snode `node` under `epoch`
 * (bytes borrowed, at most SL_MCATALOG_CHECKPOINT_MAX), synced. Fencing: refused with
 * SL_ESTALE when epoch is older than the current epoch or the pair is not owned by node
 * at the current placement; SL_ENOTFOUND for an unknown stream, SL_EINVAL for a slot out
 * of range, SL_ELIMIT when too large. Nothing changes on error. The same as
 * sl_mcatalog_checkpoint_put_versions without versions: the slot then holds the
 * change-log low-water mark of every vgroup its stream reads at 0.
 */
int sl_mcatalog_checkpoint_put(sl_mcatalog *cat, uint32_t node, uint64_t epoch, uint64_t stream_id,
                               uint32_t slot, const void *data, size_t len, sl_error *err);

/* The change-log version of one vgroup that a checkpoint has consumed up to (inclusive). */
typedef struct sl_mcatalog_vgroup_version {
    uint32_t vgroup_id;
    uint64_t version;
} sl_mcatalog_vgroup_version;

/* Most versions one checkpoint may carry (a database has far fewer vgroups). */
#define SL_MCATALOG_CHECKPOINT_VERSIONS_MAX 65536u

/*
 * Change-log retention (DESIGN.md section 3, "Checkpoints"; catalog_lowwater.c).
 *
 * A stream *reads* the vgroups of its trigger table's database (a stream without FROM
 * reads none). A checkpoint of (stream, slot) carries, per vgroup, the change-log version
 * it has consumed up to; a vnode may drop change-log entries of a vgroup at or below the
 * minimum, over every stream reading it and every slot of that stream (running or
 * stopped: START resumes from the checkpoint), of those versions. A slot with no
 * checkpoint, or whose checkpoint names no version for the vgroup, holds it at 0.
 * DROP STREAM and DROP DATABASE release the holds of the streams they drop (their
 * checkpoints go in the same batch).
 *
 * The versions are persisted in the checkpoint record (format 2; format-1 records, written
 * before, load as checkpoints without versions) and kept in memory per (stream, vgroup)
 * with the minimum over the slots maintained incrementally, so answering costs no disk
 * read and no decoding: O(streams) per vgroup, plus O(slots) for a (stream, vgroup) whose
 * minimum slot was raised since the last answer.
 */

/*
 * sl_mcatalog_checkpoint_put with the versions the checkpoint has consumed up to
 * (`versions`, borrowed, nversions entries; NULL when 0). Entries for vgroups the stream
 * does not read (another database's, unknown ids, any for a stream without FROM) are
 * ignored: neither stored nor counted. A vgroup listed twice is refused (SL_EINVAL), as
 * are more than SL_MCATALOG_CHECKPOINT_VERSIONS_MAX entries (SL_ELIMIT). The checkpoint
 * replaces the slot's previous one whole, its versions included (a vgroup the new one does
 * not list holds at 0 again). Nothing changes on error (a fenced put leaves the minima as
 * they were).
 */
int sl_mcatalog_checkpoint_put_versions(sl_mcatalog *cat, uint32_t node, uint64_t epoch,
                                        uint64_t stream_id, uint32_t slot, const void *data,
                                        size_t len, const sl_mcatalog_vgroup_version *versions,
                                        size_t nversions, sl_error *err);

/* One slot's checkpoint state in a put of several (bytes borrowed). */
typedef struct sl_mcatalog_slot_state {
    uint32_t slot;
    const void *data;
    size_t len;
} sl_mcatalog_slot_state;

/*
 * sl_mcatalog_checkpoint_put_versions for several slots of one stream at once, with the
 * same versions: one write to disk for all of them. All or nothing: any slot refused (out
 * of range, named twice, not owned by node - SL_ESTALE -, the states together over
 * SL_MCATALOG_CHECKPOINT_MAX bytes) refuses the whole put. nslots is 1 to the slots per
 * stream.
 */
int sl_mcatalog_checkpoint_put_slots(sl_mcatalog *cat, uint32_t node, uint64_t epoch,
                                     uint64_t stream_id, const sl_mcatalog_slot_state *slots,
                                     size_t nslots, const sl_mcatalog_vgroup_version *versions,
                                     size_t nversions, sl_error *err);

/*
 * The change-log low-water mark of vgroup `vgroup_id`: when at least one stream reads it,
 * stores in *out the minimum over those streams and their slots of the checkpointed
 * version (0 when any slot has none) and returns 1 - the vnode may trim its change log up
 * to and including *out. Returns 0 (no answer; *out untouched) when no stream reads the
 * vgroup or it does not exist: the vnode keeps its own cap-based retention. Cannot fail.
 */
int sl_mcatalog_low_water(sl_mcatalog *cat, uint32_t vgroup_id, uint64_t *out);

/* Largest checkpoint of one (stream, slot), in bytes. */
#define SL_MCATALOG_CHECKPOINT_MAX (64u << 20)

/*
 * Reads the checkpoint of (stream_id, slot) into out (appended) with the epoch and node
 * that wrote it. Returns 1 when found, 0 when there is none, or an error (SL_EIO).
 */
int sl_mcatalog_checkpoint_get(sl_mcatalog *cat, uint64_t stream_id, uint32_t slot, sl_buf *out,
                               uint64_t *epoch, uint32_t *node, sl_error *err);

/* ---------------------------------------------------------------------------------------
 * Queries
 * ------------------------------------------------------------------------------------- */

/*
 * Answers a statement that reads the catalog into res (initialised by the call; free with
 * sl_result_fini):
 *   - SHOW DATABASES/STABLES/TABLES [LIKE], SHOW CREATE DATABASE/STABLE/TABLE and
 *     DESCRIBE, with the columns of the embedded store (common/exec/ddl.h);
 *   - SHOW DNODES (all nodes, the mnode itself included) and SHOW MNODES (nodes of that
 *     kind), the columns of ins_dnodes; SHOW SNODES, the rows of ins_snodes; SHOW VNODES, one row per vgroup with
 *     the columns of ins_vgroups, and SHOW VNODES ON DNODE n the vgroups vnode n holds
 *     (SL_ENOTFOUND "dnode n does not exist", SL_EINVAL when n is not a vnode - dnode 0
 *     is the mnode once named - at n);
 *     SHOW [db.]VGROUPS, the rows of ins_vgroups of that database, else the current one,
 *     else every database (SL_ENOTFOUND for an unknown one); [LIKE] filters on the
 *     endpoint;
 *   - SELECT over the system tables of information_schema (sl_mcatalog_catalog), planned
 *     by the shared planner with NOW = the catalog's clock.
 * Unqualified names resolve in current_db (borrowed, may be NULL). Returns 0 or an error
 *   - SHOW [db.]STREAMS [LIKE] (rows of ins_streams of that database, else the current
 *     one, else every database; LIKE on the stream name) and SHOW CREATE STREAM (columns
 *     stream_name, create_stream: the statement's exact text, which re-parses to the
 *     same tree).
 * with "line:col: message"; SL_EUNSUPPORTED for other statements (DML).
 */
int sl_mcatalog_query(sl_mcatalog *cat, const sl_stmt *st, const char *current_db, sl_result *res,
                      sl_error *err);

/*
 * The catalog as an sl_catalog for the planner (valid while cat is). Database
 * "information_schema" holds the system tables, whose rows the catalog produces:
 *   ins_databases: name, create_time, precision, vgroups, ntables, nstables
 *   ins_stables:   stable_name, db_name, create_time, columns, tags, uid, tables
 *   ins_tables:    table_name, db_name, create_time, columns, stable_name, uid, vgroup_id,
 *                  type (CHILD_TABLE or NORMAL_TABLE; super tables are in ins_stables)
 *   ins_tags:      table_name, db_name, stable_name, tag_name, tag_type, tag_value (one
 *                  row per tag of every child table; values as text, NULL as NULL)
 *   ins_vgroups:   vgroup_id, db_name, vgroup_index, vnode_id, endpoint, status, tables,
 *                  rows, disk_bytes, write_requests, rows_written, fenced (the load its
 *                  vnode last reported: sl_mcatalog_vnode_report; NULL before)
 *   ins_dnodes:    id, endpoint, kind, status, vgroups, create_time, last_heartbeat, rows,
 *                  disk_bytes, write_requests, rows_written, fenced (vnodes: the sums of
 *                  their vgroups' loads, fenced their own total; NULL otherwise); the
 *                  mnode itself first, as dnode 0, once named (sl_mcatalog_set_self)
 *   ins_streams:   stream_name, db_name, status (running or stopped), trigger_table (the
 *                  FROM table, db-qualified when not in the stream's database; NULL
 *                  without FROM), create_time, output_table (the INTO table, named the
 *                  same way; NULL without INTO), snodes (distinct snodes owning its slots),
 *                  tasks (its rows of ins_stream_tasks), max_lag_ms (the largest lag its
 *                  owners report; NULL before any report), error (the lowest-id owner's
 *                  reported error; NULL when none), sql (the CREATE STREAM text)
 *   ins_snodes:    id, endpoint, status (alive, dead, dropped), epoch (the one it acts
 *                  on), streams, slots (pairs it owns), groups, memory_bytes, create_time,
 *                  last_heartbeat
 *   ins_stream_tasks: stream_name, db_name, stream_id, slot_start, slot_end, snode_id,
 *                  snode_endpoint, epoch, status (running, assigning, stopped,
 *                  unassigned), lag_ms, rows, outbox, error - one row per run of
 *                  consecutive slots of a stream with the same owner
 * Their first column is not a timestamp key (no INTERVAL over them). Tables of user
 * databases can be looked up (schema) but not scanned: their rows live on the vnodes.
 */
sl_catalog sl_mcatalog_catalog(sl_mcatalog *cat);

/* ---------------------------------------------------------------------------------------
 * Inspection (tests, tools)
 * ------------------------------------------------------------------------------------- */

/*
 * Appends a canonical text rendering of everything the catalog holds in memory (counters,
 * nodes, databases, vgroups, tables with schemas and tag values), sorted, so two catalogs
 * with the same content render identically. Returns 0 or SL_ENOMEM.
 */
int sl_mcatalog_dump(sl_mcatalog *cat, sl_buf *out);

/*
 * Appends every stored record, one line per key: column family, key and value in hex, in
 * key order. Returns 0, SL_ENOMEM or a storage error.
 */
int sl_mcatalog_dump_stored(sl_mcatalog *cat, sl_buf *out, sl_error *err);

#endif
