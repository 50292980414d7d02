/*
 * vdaemon.h - the sluice-vnode daemon's state, shared by its modules:
 *
 *   main.c     flags, config, the loop, signals
 *   mlink.c    the link to the mnode: register, heartbeat, vgroup assignment, catalog sync
 *   vgroup.c   one hosted vgroup: its vstore, its table index, applying synced table defs
 *   service.c  VNODE_WRITE, VNODE_DELETE, VNODE_STATUS
 *   commit.c   the group commit, its log sync on a thread of its own
 *   changes.c  VNODE_CHANGES (long poll), read by the change reader thread
 *   query.c    VNODE_QUERY: an sl_catalog over a vgroup's vstore, PARTIAL plans, paged
 *              cursors
 *
 * Everything runs on one libuv loop: RPC handlers, mnode replies (sl_rpc_call_async),
 * timers and signals, so no state here is locked - except what the change reader thread
 * shares (changes.c): a vgroup's table cache, under vg_tcmu.
 */
#ifndef SL_VDAEMON_H
#define SL_VDAEMON_H

#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>
#include <uv.h>

#include "common/exec/catalog.h"
#include "common/net/rpc.h"
#include "common/util/busy.h"
#include "vnode-adapter/storage/changes_filter.h"
#include "vnode-adapter/storage/vstore.h"

/* A super table of the vgroup's database, as last synced from the mnode. */
typedef struct vn_stable {
    uint64_t uid;
    char *name;      /* owned */
    int ncols;
    sl_field *cols;  /* owned, with owned names */
    int ntags;
    sl_field *tags;  /* owned, with owned names */
} vn_stable;

/* A child or normal table in the vgroup's index (name -> uid). */
typedef struct vn_table {
    uint64_t uid;
    char *name;        /* owned */
    sl_table_kind kind;
    uint64_t suid;     /* child: its super table */
} vn_table;

typedef struct vn_poll vn_poll;
typedef struct vn_cursor vn_cursor;
typedef struct vn_reader vn_reader;
typedef struct vn_syncer vn_syncer;

/* One hosted vgroup. */
typedef struct vn_vgroup {
    uint32_t vg_id;
    sl_vstore *vg_vs;         /* owned */
    sl_vs_tcache *vg_tcache;  /* owned: table metadata and group ids for filtered change
                               * reads; told of every registration and drop. Used by the
                               * change reader thread: only under vg_tcmu */
    pthread_mutex_t vg_tcmu;
    bool vg_closing;          /* closing: no more change-log reads */
    char vg_db[200];          /* its database ("" until the first sync) */
    sl_precision vg_prec;
    uint64_t vg_synced;       /* catalog version of the last applied sync; 0: none */
    bool vg_syncing;          /* an async sync is in flight */
    vn_stable *vg_stables;    /* owned */
    int vg_nstables;
    vn_table *vg_tables;      /* owned */
    int vg_ntables;
    vn_poll *vg_polls;        /* change-log polls not answered yet (list), parked or busy */
    /* Load counters since the vgroup was opened, reported in every heartbeat (mlink.c). */
    uint64_t vg_rows_written;  /* rows of the WRITE requests acknowledged */
    uint64_t vg_write_reqs;    /* WRITE and DELETE requests acknowledged */
    uint64_t vg_fenced;        /* WRITE and DELETE requests refused for a stale epoch */
    bool vg_dirty;            /* written with sync off since the last group commit */
    bool vg_sync_failed;      /* commit.c, while acknowledging: its sync failed */
} vn_vgroup;

/* A write applied (sync off) whose reply waits for the group commit (service.c). */
typedef struct vn_pending vn_pending;

typedef struct sl_vdaemon {
    uv_loop_t *vd_loop;
    sl_rpc_server *vd_srv;
    sl_rpc_client *vd_mnode;   /* client of the mnode */
    char vd_mnode_url[300];
    char vd_addr[300];         /* the address registered with the mnode */
    char vd_data[1024];        /* data directory */
    uint64_t vd_log_max_entries; /* change-log cap of each vgroup's vstore (0: none) */
    uint64_t vd_log_max_bytes;
    uint32_t vd_node_id;       /* 0 until registered */
    uint64_t vd_epoch;         /* newest placement epoch known (mnode heartbeats, requests):
                                * fenced requests with an older one are refused */
    bool vd_registering;       /* a REGISTER call is in flight */
    bool vd_heartbeating;      /* a HEARTBEAT call is in flight */
    bool vd_stopping;
    uv_timer_t vd_tick;        /* register / heartbeat / cursor sweep, every second */
    vn_vgroup **vd_vgroups;    /* owned, hosted vgroups */
    int vd_nvgroups;
    vn_cursor *vd_cursors;     /* open query cursors (list) */
    int vd_ncursors;
    uint64_t vd_next_cursor;
    uint64_t vd_rows_written;
    uint64_t vd_fenced;        /* fenced WRITE/DELETE refusals, hosted vgroup or not */
    int64_t vd_last_refresh;   /* ms of the last sl__vn_refresh_now (rate limit) */
    vn_pending *vd_pending;    /* writes awaiting the group commit, in arrival order */
    vn_pending **vd_pending_tail;
    uv_check_t vd_commit;      /* runs the group commit after each loop iteration's I/O */
    vn_reader *vd_reader;      /* the change reader thread (changes.c); NULL once stopped */
    vn_syncer *vd_syncer;      /* the group commit's sync thread (commit.c) */
    sl_busy vd_wbusy;          /* the loop's time applying client writes */
    sl_busy vd_demand;         /* the loop's time running or waiting for a CPU */
    sl_busy vd_demand_fast;    /* the same over VN_DEMAND_FAST_TAU_MS */
    int vd_schedstat_fd;       /* the loop thread's /proc schedstat (-1: none) */
    _Atomic bool vd_sched_ok;  /* it is read (else the write share alone decides) */
    uint64_t vd_sched_at;      /* its last sample: when (uv_hrtime), run ns, wait ns */
    uint64_t vd_sched_run, vd_sched_wait;
    int vd_yield_ms;           /* most a change-log read waits for heavy writes (0: never) */
    double vd_yield_writes;    /* the write share that counts as heavy (VN_WBUSY_WRITES) */
    double vd_yield_demand;    /* the CPU demand that counts as short (VN_DEMAND_HEAVY) */
    _Atomic uint64_t vd_polls_held;  /* reads that waited for heavy writes */
    _Atomic uint64_t vd_held_ms;     /* and how long, all together */
    _Atomic uint64_t vd_polls_told;  /* reads answered at once with writes_heavy */
    uint64_t vd_held_logged;   /* vd_polls_held when last logged (sl__vn_tick) */
    uint64_t vd_told_logged;   /* vd_polls_told when last logged */
} sl_vdaemon;

/*
 * Stream reads yield to heavy client writes (changes.c; docs/architecture.md). The change
 * reader's gate (sl_busy_gate) says the client writes are heavy when
 *  - client writes flow: the loop spends vd_yield_writes (default VN_WBUSY_WRITES, 2%) of
 *    its time or more applying them (vd_wbusy, over about VN_BUSY_TAU_MS),
 *  - and the loop is short of CPU: the time it ran plus the time it was ready but waited
 *    for a CPU (the thread's schedstat, sampled every VN_SCHED_SAMPLE_MS at most) is
 *    vd_yield_demand (default VN_DEMAND_HEAVY, 25%) of the wall time or more over about
 *    VN_DEMAND_FAST_TAU_MS (vd_demand_fast); once open, it stays open while writes flow
 *    and that demand over either time constant (vd_demand_fast, vd_demand) is half the
 *    mark or more.
 * That is a write load on a host whose CPU the streams would otherwise take from it. While
 * the gate is open the reader holds each read of a stream that already yields
 * (ChangesRequest.yielding) for up to vd_yield_ms, and answers a read that does not yet
 * yield at once, empty, with ChangesReply.writes_heavy: its snode then works on what it
 * holds at idle priority and reads again, yielding. Every reply carries writes_heavy as
 * the gate stands. The write share is only the sign that writes flow, not the measure of
 * their pressure: when the streams have the CPU, the loop gets less of it and applies
 * fewer writes, so its write share falls just when the writes suffer (2-8% during a bulk
 * load starved by ten streams' catch-up, 20-70% without them); the wait for a CPU is what
 * shows the pressure. Writes marked as background (a stream's output,
 * WriteRequest.background) do not count: the streams yield to client writes, not to their
 * own results. A trickle of rows (the usual live case: well under 1% of the loop's time)
 * or a host with CPU to spare never holds a read. Where the schedstat file is missing, the
 * write share alone decides, at VN_WBUSY_HEAVY or vd_yield_writes, whichever is higher.
 *
 * The hold is bounded: a read held vd_yield_ms is answered even if the load goes on, but
 * then with at most VN_TRICKLE_BYTES / VN_TRICKLE_ENTRIES of changes (the reply says there
 * is more, and the stream's next read is held in turn). So under a sustained heavy load
 * every stream still moves, a little each second, and its lag stays visible in
 * ins_stream_tasks; it catches up at full speed once the load calms down. Answering a
 * held read in full instead gave each stream a second's worth of the load at once, and
 * their work on it took the CPU from the writes again (ingest fell to a sixth over a
 * 2-second load).
 */
#define VN_TRICKLE_BYTES (64u << 10)
#define VN_TRICKLE_ENTRIES 64u
#define VN_BUSY_TAU_MS 100
#define VN_DEMAND_FAST_TAU_MS 20
#define VN_WBUSY_WRITES 0.02
#define VN_WBUSY_HEAVY 0.2
#define VN_DEMAND_HEAVY 0.25
#define VN_SCHED_SAMPLE_MS 5
#define VN_DEFAULT_YIELD_MS 1000

/* Most open query cursors; a query past it is refused (SL_ELIMIT). */
#define VN_MAX_CURSORS 64
/* A cursor not continued for this long is closed. */
#define VN_CURSOR_IDLE_MS 60000

/* commit.c: the group commit. sl__vn_commit_cb (the check handle, after every loop
 * iteration) hands the vgroups written since the last commit to the sync thread, which
 * syncs each one's log once; the writes waiting for it are then acknowledged (or failed
 * when their vgroup's sync failed) and change-log polls woken. sl__vn_commit does all of
 * that synchronously, after waiting for the commit in flight: before anything closes a
 * vgroup or the server. */
void sl__vn_commit(sl_vdaemon *vd);
void sl__vn_commit_cb(uv_check_t *h);
/* A pending write's record (free() it when the write fails), and parking the reply of a
 * write applied to vg (sync off) in it until a commit covers it. */
vn_pending *sl__vn_pending_alloc(void);
void sl__vn_pending_park(sl_vdaemon *vd, vn_pending *p, vn_vgroup *vg, sl_rpc_reply *reply,
                         uint64_t version, uint64_t rows);
int sl__vn_syncer_start(sl_vdaemon *vd, sl_error *err);
/* Commits what is pending and stops the thread (loop thread; the loop must run once more
 * to release it). */
void sl__vn_syncer_stop(sl_vdaemon *vd);

/* mlink.c */
void sl__vn_tick(uv_timer_t *t);
/* Fetches the vgroup's tables from the mnode synchronously (short timeout) and applies
 * them: used when a write names a uid the vgroup does not know yet. */
int sl__vn_sync_now(sl_vdaemon *vd, vn_vgroup *vg, sl_error *err);

/* Heartbeats synchronously and applies the reply (vgroups, table syncs): used when a
 * request names a vgroup this vnode does not host yet. Returns 0 or the call's error. */
int sl__vn_refresh_now(sl_vdaemon *vd);

/* vgroup.c */
vn_vgroup *sl__vn_find(sl_vdaemon *vd, uint32_t id);
int sl__vn_vgroup_open(sl_vdaemon *vd, uint32_t id, sl_error *err);
void sl__vn_vgroup_close(sl_vdaemon *vd, vn_vgroup *vg);
/* Applies a VgroupTablesReply (encoded) to vg. */
int sl__vn_apply_tables(vn_vgroup *vg, const uint8_t *p, size_t n, sl_error *err);
const vn_stable *sl__vn_stable_by_name(const vn_vgroup *vg, const char *name);
const vn_table *sl__vn_table_by_name(const vn_vgroup *vg, const char *name);

/* service.c */
extern const sl_rpc_method sl__vnode_methods[];
extern const int sl__vnode_nmethods;
/* Answers reply with err (rc when err carries no code). */
void sl__vn_reply_err(sl_rpc_reply *reply, int rc, sl_error *err);
/* The hosted vgroup id, refreshing the assignment once when unknown; NULL after
 * answering reply with the error. */
vn_vgroup *sl__vn_need_vgroup(sl_vdaemon *vd, sl_rpc_reply *reply, uint32_t id);

/* changes.c */
void sl__vn_changes(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud);
/* Starts the change reader thread at CPU priority nice (0..19). */
int sl__vn_reader_start(sl_vdaemon *vd, int nice, sl_error *err);
/* Waits for every poll the reader holds, stops and joins it (loop thread; the loop must
 * run once more to release it). No change-log read is served after it. */
void sl__vn_reader_stop(sl_vdaemon *vd);
/* Marks vg (every vgroup when NULL) closing and waits until the reader holds none of its
 * polls. */
void sl__vn_reader_quiesce(sl_vdaemon *vd, vn_vgroup *vg);
/* Has the reader read the polls of vg that may now have changes (after a commit). */
void sl__vn_wake_polls(vn_vgroup *vg);
/* Answers every poll of vg with an error (vgroup closing), after the reader is done
 * with them. */
void sl__vn_fail_polls(sl_vdaemon *vd, vn_vgroup *vg);

/* query.c */
void sl__vn_query(sl_rpc_reply *reply, const sl_rpc_request *req, void *ud);
/* Closes cursors idle too long (now_ms) or, with vg non-NULL, every cursor of vg. */
void sl__vn_cursors_sweep(sl_vdaemon *vd, int64_t now_ms, const vn_vgroup *vg);

int64_t sl__vn_now_ms(void);

#endif
