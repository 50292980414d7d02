/*
 * sdaemon.h - the sluice-snode daemon's state, shared by its modules:
 *
 *   main.c     flags, config, the loop, signals, shutdown
 *   state.c    the node's small durable state (node id) in a RocksDB under --data
 *   mlink.c    the link to the mnode: register, heartbeat, assignments, leave, drop
 *   assign.c   the in-memory assignment: streams, their parsed CREATE STREAM, slot bitmaps
 *   service.c  the snode's RPC service (SNODE_STATUS)
 *   tasks.c    the running streams: one stream task (snode/runtime) per running stream
 *              with slots here, reconciled with every assignment; stopping tasks are
 *              joined on libuv's thread pool, never on the loop
 *   notify.c   stream events to the notifier (WebSocket receivers, the durable outbox)
 *
 * Everything runs on one libuv loop: RPC handlers, mnode replies (sl_rpc_call_async),
 * timers and signals, so no state here is locked (stream tasks run on their own threads
 * and hand notifications over under sd_nmu). Nothing on the loop waits for a task: the
 * heartbeats go on while tasks stop, however many move at once.
 */
#ifndef SL_SDAEMON_H
#define SL_SDAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "common/kv/kv.h"
#include "common/net/rpc.h"
#include "common/net/wake.h"
#include "common/sql/parser.h"
#include "snode/notify/notifier.h"
#include "snode/runtime/stask.h"

#include <pthread.h>

typedef struct sn_nitem sn_nitem;
typedef struct sn_join sn_join;

/* Upper bounds applied to what the mnode sends (a reply beyond them is refused). */
#define SN_MAX_STREAMS    100000   /* streams in one assignment */
#define SN_MAX_SLOTS      65536    /* slots per stream */
#define SN_MAX_NAME       256      /* db and stream name bytes */

/* One stream of the current assignment. */
typedef struct sn_stream {
    uint64_t id;
    char *db;                 /* owned */
    char *name;               /* owned */
    char *sql;                /* owned: the CREATE STREAM text */
    char *plan_db;            /* owned: the database unqualified names of its query resolve in */
    uint8_t *slots;           /* owned bitmap, (nslots + 7) / 8 bytes */
    uint32_t nowned;          /* bits set in slots */
    bool running;
    bool ignore_untreated;
    uint64_t ignore_untreated_epoch; /* see StreamAssignment (proto/mnode.proto) */
    sl_parse_result *parsed;  /* owned; NULL when the text did not parse */
    const sl_create_stream *cs; /* into parsed */
    char *error;              /* owned; parse error, NULL when parsed */
} sn_stream;

/* The whole assignment at one epoch. */
typedef struct sn_assignment {
    uint64_t epoch;           /* 0: none received yet */
    uint32_t nslots;          /* slots per stream */
    sn_stream *streams;       /* owned, sorted by id */
    int nstreams;
} sn_assignment;

/* Where the link to the mnode stands; changes are logged once each. */
typedef enum sn_link_state {
    SN_LINK_UNREGISTERED = 0, /* no node id yet, or the mnode forgot it */
    SN_LINK_OK,               /* the last exchange succeeded */
    SN_LINK_DOWN              /* the last exchange failed; retrying */
} sn_link_state;

typedef struct sl_sdaemon {
    uv_loop_t *sd_loop;
    sl_rpc_server *sd_srv;
    sl_rpc_client *sd_mnode;    /* client of the mnode */
    char sd_mnode_url[300];
    char sd_addr[300];          /* the address registered with the mnode */
    char sd_data[1024];         /* data directory */
    sl_kv *sd_kv;               /* node state (state.c) */
    int sd_heartbeat_ms;
    uint32_t sd_node_id;        /* 0 until registered (or as loaded from sd_kv) */
    bool sd_registered;         /* the mnode acknowledged sd_node_id in this run */
    bool sd_calling;            /* a REGISTER or HEARTBEAT call is in flight */
    sn_link_state sd_link;
    bool sd_stopping;           /* leaving: no new calls, shutdown follows */
    int sd_exit_code;
    uint64_t sd_applied;        /* assignments applied since start */
    sn_assignment sd_as;
    uv_timer_t sd_tick;         /* register / heartbeat every sd_heartbeat_ms */
    uv_timer_t sd_stop;         /* runs the shutdown outside RPC callbacks */
    uv_signal_t sd_sigterm, sd_sigint;
    /* running streams (tasks.c) */
    sl_stask **sd_tasks;        /* running tasks, at most one per stream (reported) */
    int sd_ntasks, sd_captasks;
    sn_join *sd_joins;          /* tasks asked to stop, joined on the thread pool (not
                                 * reported; their streams start again once joined) */
    int sd_njoins;
    bool sd_draining;           /* SIGTERM: every task stops with a last checkpoint, none
                                 * starts; the node leaves once they are all joined */
    int sd_nice;                /* the CPU priority the daemon runs at (--nice) */
    int sd_checkpoint_ms;       /* between a task's checkpoints (0: the task's default) */
    sl_stask_event_fn sd_on_event; /* event hook of every task (notifications) */
    sl_stask_sync_fn sd_on_sync;   /* their sync hook (the notifications are stored) */
    void *sd_event_ud;
    /* notifications (notify.c): tasks queue records, the loop posts them */
    sl_notifier *sd_notifier;
    bool sd_notify_open;
    sl_wake sd_nwake;
    pthread_mutex_t sd_nmu;
    pthread_cond_t sd_ncond;
    sn_nitem *sd_nhead, *sd_ntail;
} sl_sdaemon;

/* notify.c */
/* Opens the notifier on the loop with its outbox in sd_kv (column family "outbox") and
 * installs the tasks' event hook. Returns 0 or an error. */
int sl__sn_notify_open(sl_sdaemon *sd, sl_error *err);
/* Posts what is queued and starts closing the notifier (the loop must run afterwards). */
void sl__sn_notify_close(sl_sdaemon *sd);

/* tasks.c */
/* Starts, moves and stops stream tasks to match sd_as (after an assignment is applied).
 * Never waits for a task: stopping ones are joined off the loop, and a stream whose task
 * is still stopping gets its new task once that one is joined. */
void sl__sn_tasks_reconcile(sl_sdaemon *sd);
/* Asks every running task to stop, after a last checkpoint when `checkpoint`, and joins
 * them off the loop (the loop runs until they are joined; sl__sn_tasks_stopped tells when
 * the last one is). Returns at once. */
void sl__sn_tasks_stop_all(sl_sdaemon *sd, bool checkpoint);
/* Whether no task runs and none is stopping (every task thread has ended). */
bool sl__sn_tasks_idle(const sl_sdaemon *sd);
/* How many tasks are stopping (asked to stop, not joined yet). */
int sl__sn_tasks_stopping(const sl_sdaemon *sd);
/* The status of the running task of stream_id; false when none runs here (also while the
 * stream's task is stopping: it is not reported then). */
bool sl__sn_task_status(sl_sdaemon *sd, uint64_t stream_id, sl_stask_status *out);

/* state.c: opens (creating) the node-state store under sd_data and loads the node id.
 * Returns 0 or a negative code with err set. */
int sl__sn_state_open(sl_sdaemon *sd, sl_error *err);
/* Saves sd_node_id durably; failures are logged. */
void sl__sn_state_save(sl_sdaemon *sd);
void sl__sn_state_close(sl_sdaemon *sd);

/* mlink.c */
void sl__sn_tick(uv_timer_t *t);
/* Starts a graceful leave: drains, sends MNODE_LEAVE (bounded wait) and then shuts the
 * daemon down with exit code `code`. Idempotent. */
void sl__sn_leave(sl_sdaemon *sd, const char *why, int code);

/* assign.c */
/* Replaces sd->sd_as with the streams of a SnodeHeartbeatReply (already decoded and
 * bounded by the caller), parsing each CREATE STREAM text (reusing the parse of an
 * unchanged stream), and logs the change at INFO. Returns 0 or SL_ENOMEM (the old
 * assignment is then kept). */
struct Sluice__SnodeHeartbeatReply;
int sl__sn_assign(sl_sdaemon *sd, const struct Sluice__SnodeHeartbeatReply *rp);
/* Checks the bounds of a decoded reply; returns 0 or SL_ECORRUPT with err set. */
int sl__sn_assign_check(const struct Sluice__SnodeHeartbeatReply *rp, sl_error *err);
/* Frees every stream of as and zeroes it. */
void sl__sn_assignment_fini(sn_assignment *as);
/* Name of a trigger kind for status ("INTERVAL", ...). */
const char *sl__sn_trigger_name(const sn_stream *s);

/* The drain hook of the leave (mlink.c): asks every running task to stop after a last
 * checkpoint (sl__sn_tasks_stop_all; returns at once). A SIGTERM drains before leaving
 * (main.c: sd_draining, heartbeats going on until every task is joined), so nothing runs
 * any more by then; DROP SNODE leaves at once (its slots have moved already). */
void sl__sn_drain(sl_sdaemon *sd);

/* service.c */
extern const sl_rpc_method sl__snode_methods[];
extern const int sl__snode_nmethods;

/* main.c: closes the server, the mnode client, timers and signals, and the notifier once
 * every task thread has ended; the loop then ends. */
void sl__sn_shutdown(sl_sdaemon *sd);
/* main.c: called on the loop (tasks.c) when the last stopping task was joined and none
 * runs: a SIGTERM drain goes on to leave the cluster, a shutdown closes the notifier. */
void sl__sn_tasks_stopped(sl_sdaemon *sd);

#endif
