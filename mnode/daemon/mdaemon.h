/*
 * mdaemon.h - the sluice-mnode daemon's state, shared by its main loop (main.c) and its
 * RPC service (service.c).
 *
 * The daemon is a thin shell around the catalog library (mnode/catalog.h): one libuv loop
 * owns the catalog, the RPC server (common/net/rpc.h), the dead-node sweep timer and the
 * signal handlers. Every handler runs on that loop, so nothing here is locked.
 */
#ifndef SL_MDAEMON_H
#define SL_MDAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "common/net/rpc.h"
#include "mnode/catalog.h"

/* One table created or dropped by a statement of this run (journal.c). */
typedef struct md_jentry {
    uint64_t version; /* catalog version the statement produced */
    uint64_t uid;
    uint32_t vgroup;  /* 0 for super tables */
    bool dropped;
    char *db, *name;  /* owned */
} md_jentry;

typedef struct sl_mdaemon {
    uv_loop_t *md_loop;       /* borrowed: the process's loop */
    sl_mcatalog *md_cat;      /* owned */
    sl_rpc_server *md_srv;    /* owned */
    uint64_t md_version;      /* catalog version: changes with every committed DDL */
    int64_t md_node_timeout;  /* ms without heartbeat before a node is marked dead */
    int64_t md_started_ms;    /* wall clock when this run started (sweep grace period) */
    /* Table changes since md_floor, ascending by version: a vnode whose copy is at least
     * md_floor gets only the changes after it (MNODE_VGROUP_TABLES), else the full list. */
    md_jentry *md_journal;
    size_t md_njournal, md_capjournal;
    uint64_t md_floor;
    struct md_waiter *md_waiters; /* CREATE / START STREAM replies waiting (stream_wait.c) */
} sl_mdaemon;

/* Most journal entries kept; past it the journal restarts (older copies get full lists). */
#define MD_JOURNAL_MAX 200000

/* Records what a committed DDL statement changed under a new catalog version (when it
 * changed anything). Out of memory restarts the journal instead of failing. */
void sl__md_journal_note(sl_mdaemon *md, const sl_ddl_result *dr);

/* Index of the first journal entry with version > after (md_njournal when none). */
size_t sl__md_journal_after(const sl_mdaemon *md, uint64_t after);

/* Frees the journal. */
void sl__md_journal_fini(sl_mdaemon *md);

/* The mnode's method table (proto/mnode.proto), served with the daemon as ud. */
extern const sl_rpc_method sl__mnode_methods[];
extern const int sl__mnode_nmethods;

/* Recomputes the stream placement when its inputs changed (sl_mcatalog_place) and logs an
 * epoch change. Called after every event that may change it. */
void sl__md_place(sl_mdaemon *md);

/*
 * CREATE STREAM and START STREAM answer once the stream runs (sl_mcatalog_stream_state_of),
 * so rows written after the statement returns are processed; at most MD_STREAM_WAIT_MS,
 * and at once when nothing can run it soon (stopped, no snode alive) or it was dropped.
 * sl__md_stream_wait keeps `reply` with the packed reply (len bytes, copied) for stream
 * `name` of database `db`, or answers at once; sl__md_stream_wait_check answers the waiters
 * whose stream runs or whose time is up (called after every placement check).
 */
#define MD_STREAM_WAIT_MS 10000
void sl__md_stream_wait(sl_mdaemon *md, sl_rpc_reply *reply, const void *msg, size_t len,
                        const char *db, const char *name);
void sl__md_stream_wait_check(sl_mdaemon *md);

/* Wall clock in ms since the epoch. */
int64_t sl__md_now_ms(void);

#endif
