/*
 * catalog_int.h - the internals shared by the files of the mnode catalog.
 *
 * catalog.c holds the in-memory registry (databases, tables, vgroups, nodes), open/close,
 * lookups and the text dump; catalog_store.c the record encodings, loading at open and
 * the raw dump; catalog_node.c membership (register, heartbeat, sweep); catalog_ddl.c
 * plans DDL with the shared rules (common/exec/ddl.h) and applies it as one write batch;
 * catalog_stream.c the streams and catalog_stream_out.c the schema of their INTO tables;
 * catalog_assign.c placement, epochs and the checkpoint store; catalog_lowwater.c the
 * change-log low-water marks that stream checkpoints hold;
 * catalog_sys.c answers SHOW/DESCRIBE/SELECT and implements the information_schema
 * system tables. Everything here is internal (sl__mc prefix); catalog.h is the surface.
 *
 * On disk (column families of one RocksDB, keys built with common/kv/keycodec.h):
 *   meta    "counters"                      -> next uid, next vgroup id, next node id
 *   dbs     str(lower db)                   -> database record
 *   vgroups u32 id                          -> vgroup record
 *   tables  str(lower db) str(lower table)  -> table record
 *   nodes   u32 id                          -> node record
 *   streams str(lower db) str(lower stream) -> stream record (catalog_stream.c)
 *   checkpoints u64 stream id, u32 slot     -> checkpoint with its consumed versions
 *                                              (catalog_assign.c, catalog_lowwater.c)
 * and meta "stream_counter" -> the next stream id, meta "epoch" -> the assignment epoch
 * and the hash of its placement (catalog_assign.c).
 * Values start with a format version byte; see the encoders in catalog_store.c.
 */
#ifndef SL_MCATALOG_INT_H
#define SL_MCATALOG_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog.h"
#include "common/exec/ddl.h"
#include "common/kv/kv.h"
#include "common/util/nameset.h"

typedef struct sl__mc_db sl__mc_db;
typedef struct sl__mc_table sl__mc_table;
typedef struct sl__mc_vgroup sl__mc_vgroup;
typedef struct sl__mc_node sl__mc_node;
typedef struct sl__mc_stream sl__mc_stream;
typedef struct sl__mc_hold sl__mc_hold;

/* Version byte that starts every stored value. */
#define SL__MC_FORMAT 1

/* A registered node. */
struct sl__mc_node {
    uint32_t n_id;
    sl_mc_node_kind n_kind;
    char *n_addr; /* owned */
    bool n_alive;
    int64_t n_last_seen; /* caller's clock, ms */
    int64_t n_created;   /* caller's clock, ms */
    uint32_t n_nvgroups; /* vgroups placed on it */
    bool n_dropped;      /* DROP SNODE (persistent; implies !n_alive) */
    /* snodes, from their last heartbeat (memory only; catalog_assign.c) */
    uint64_t n_epoch;    /* the epoch it acts on */
    uint64_t n_memory;
    uint64_t n_groups;
    struct sl__mc_task *n_tasks; /* owned, n_ntasks */
    size_t n_ntasks;
    /* vnodes, from their last heartbeat (memory only; catalog_node.c) */
    bool n_reported;     /* a load report arrived since the mnode started */
    sl_mcatalog_vnode_counters n_counters; /* its own totals (fenced, reads held) */
};

/* What an snode last reported about one stream (catalog_assign.c). */
typedef struct sl__mc_task {
    uint64_t t_stream;
    int64_t t_lag_ms;
    uint64_t t_rows;
    uint64_t t_outbox;
    char *t_error; /* owned, NULL when none */
} sl__mc_task;

/* The placement of one stream (catalog_assign.c). */
typedef struct sl__mc_placed {
    uint64_t p_stream;
    bool p_running;
    uint32_t *p_owners; /* owned, c_slots entries */
} sl__mc_placed;

/* A stream (catalog_stream.c). Its database is named, not pointed at: DROP DATABASE
 * forgets the database's streams (sl__mc_streams_forget_db). */
struct sl__mc_stream {
    uint64_t s_id;
    char *s_db;      /* owned: the database's name as created */
    char *s_name;    /* owned, as created */
    char *s_sql;     /* owned: the CREATE STREAM statement's exact text */
    char *s_trigger; /* owned: the FROM table as written ("" when none) */
    bool s_running;  /* false after STOP STREAM */
    char *s_plan_db; /* owned: the database unqualified names of the query resolve in (the
                      * session's at CREATE, else the stream's) */
    bool s_ignore_untreated; /* the last START said IGNORE UNTREATED (memory only) */
    uint64_t s_untreated_epoch; /* the epoch that START takes effect in (memory only) */
    int64_t s_created;
    char *s_tdb; /* owned: the trigger table's database, whose vgroups the stream reads;
                  * NULL without FROM (memory only: resolved at CREATE and at load) */
    struct sl__mc_hold *s_hold; /* owned, NULL until a checkpoint names a version: its
                                 * change-log holds (catalog_lowwater.c) */
};

/* A vgroup of a database. */
struct sl__mc_vgroup {
    uint32_t vg_id;
    sl__mc_db *vg_db;
    uint32_t vg_index;  /* hash index in its database */
    uint32_t vg_vnode;  /* node id of its vnode */
    int64_t vg_ntables; /* child and normal tables placed in it */
    /* The same tables, in no particular order (memory only, rebuilt at load from the
     * tables' records): the index that lists a vgroup's tables without walking its
     * database. vg_ntables entries; each table's t_index_pos is its position. */
    sl__mc_table **vg_tables;
    int64_t vg_captables;
    /* The latest load its vnode reported (memory only; catalog_node.c): valid when
     * vg_load_node is vg_vnode (0: none yet). vg_load_gen is the report that set it. */
    sl_mcatalog_vgroup_load vg_load;
    uint32_t vg_load_node;
    uint64_t vg_load_gen;
};

/* A table. A child's schema is its super table's; a super table has no vgroup. */
struct sl__mc_table {
    sl_table_kind t_kind;
    char *t_name; /* owned, as created */
    uint64_t t_uid;
    int64_t t_created; /* ms since the epoch */
    sl__mc_db *t_db;
    sl__mc_vgroup *t_vgroup; /* child/normal: its vgroup; super: NULL */
    sl__mc_table *t_super;   /* child: its super table */
    int t_ncols;             /* super/normal: owned fields with owned names */
    sl_field *t_cols;
    bool t_key;              /* super/normal: t_cols[1] is the COMPOSITE KEY (persisted) */
    int t_ntags; /* super: owned fields */
    sl_field *t_tags;
    sl_block t_tagvals;        /* child: one row of tag values */
    sl__mc_table **t_children; /* super: child tables */
    int t_nchildren;
    int t_capchildren;
    int t_child_pos; /* child: index in its super's t_children */
    int64_t t_index_pos; /* child/normal: index in t_vgroup->vg_tables; super: in
                          * t_db->d_supers */
};

/* A database and its tables, found by case-insensitive name in a hash set. */
struct sl__mc_db {
    char *d_name; /* owned, as created */
    sl_precision d_prec;
    int64_t d_created; /* ms since the epoch */
    uint32_t d_nvgroups;
    sl__mc_vgroup **d_vgroups; /* d_nvgroups, by hash index */
    uint32_t *d_vgroup_ids;    /* the same, as ids (sl_mcatalog_db.vgroup_ids) */
    sl_nameset d_tables;       /* every table, super tables included, by name */
    uint32_t d_nsupers;        /* super tables among them */
    sl__mc_table **d_supers;   /* the same d_nsupers super tables, in no particular order
                                * (memory only; t_index_pos is each one's position) */
    uint32_t d_capsupers;
};

struct sl_mcatalog {
    sl_kv *c_kv;
    sl_kv_cf *c_cf_meta;
    sl_kv_cf *c_cf_dbs;
    sl_kv_cf *c_cf_vgroups;
    sl_kv_cf *c_cf_tables;
    sl_kv_cf *c_cf_nodes;
    sl_kv_cf *c_cf_streams;
    int64_t (*c_now)(void *ud);
    void *c_now_ud;
    uint64_t c_next_uid; /* counters: the next id to hand out */
    uint32_t c_next_vgroup;
    uint32_t c_next_node;
    sl__mc_db **c_dbs; /* in creation order (load: key order) */
    int c_ndbs;
    int c_capdbs;
    sl__mc_vgroup **c_vgroups; /* every vgroup, ascending id */
    uint32_t c_nvgroups;
    uint32_t c_capvgroups;
    sl__mc_node **c_nodes; /* every node, ascending id */
    uint32_t c_nnodes;
    uint32_t c_capnodes;
    sl__mc_stream **c_streams; /* every stream, in no particular order */
    int c_nstreams;
    int c_capstreams;
    uint64_t c_next_stream; /* the next stream id */
    /* placement (catalog_assign.c) */
    sl_kv_cf *c_cf_checkpoints;
    uint32_t c_slots;         /* slots per stream */
    uint64_t c_epoch;         /* assignment epoch (persistent) */
    uint64_t c_place_hash;    /* hash of the placement of c_epoch (persistent) */
    uint64_t c_place_inputs;  /* hash of the inputs c_placed was computed from */
    bool c_place_valid;       /* c_placed is computed from the current inputs' hash */
    sl__mc_placed *c_placed;  /* ascending stream id */
    size_t c_nplaced;
    /* the mnode itself (sl_mcatalog_set_self; memory only): listed in ins_dnodes as
     * dnode 0 when c_self.n_addr is set; never in c_nodes */
    sl__mc_node c_self;
    uint64_t c_report_gen;    /* load reports received (sl_mcatalog_vnode_report) */
};

/* The pseudo database object of information_schema in sl_ddl_db.obj (never a sl__mc_db). */
extern const char sl__mc_info_schema_obj;

/* ------------------------------------------------------------ catalog.c: registry */

int64_t sl__mc_now(const sl_mcatalog *cat);
sl__mc_db *sl__mc_find_db(const sl_mcatalog *cat, const char *name);
/* Initialises db's empty table set (sl__mc_db_free finalises it). Allocates nothing. */
void sl__mc_init_tables(sl__mc_db *db);

sl__mc_table *sl__mc_find_table(const sl__mc_db *db, const char *name);
sl__mc_vgroup *sl__mc_find_vgroup(const sl_mcatalog *cat, uint32_t id);
sl__mc_node *sl__mc_find_node(const sl_mcatalog *cat, uint32_t id);

/* The table's columns and tags (a child's are its super table's). */
int sl__mc_ncols(const sl__mc_table *t);
const sl_field *sl__mc_cols(const sl__mc_table *t);
int sl__mc_ntags(const sl__mc_table *t);
/* Whether cols[1] is the table's COMPOSITE KEY (a child's: its super table's). */
bool sl__mc_key(const sl__mc_table *t);
const sl_field *sl__mc_tags(const sl__mc_table *t);

/* Fills the public view of t. */
void sl__mc_table_view(const sl_mcatalog *cat, const sl__mc_table *t, sl_mcatalog_table *out);

/* Allocation that linking needs, so linking cannot fail: see catalog.c. */
int sl__mc_reserve_dbs(sl_mcatalog *cat, int more);
int sl__mc_reserve_vgroups(sl_mcatalog *cat, uint32_t more);
int sl__mc_reserve_tables(sl__mc_db *db, uint32_t more);
/* Room for `more` more entries in the index that will hold t (unlinked, with t_kind and
 * t_vgroup set): its vgroup's vg_tables, or its database's d_supers for a super table. */
int sl__mc_reserve_index(sl__mc_table *t, uint32_t more);
int sl__mc_reserve_children(sl__mc_table *st, int more);
void sl__mc_link_db(sl_mcatalog *cat, sl__mc_db *db);
void sl__mc_link_vgroup(sl_mcatalog *cat, sl__mc_vgroup *vg);
void sl__mc_link_table(sl__mc_table *t);
/* Unlinks and frees a table (a super table with its children). */
void sl__mc_drop_table(sl__mc_table *t);
/* Unlinks and frees a database with its tables and vgroups. */
void sl__mc_drop_db(sl_mcatalog *cat, sl__mc_db *db);

sl__mc_table *sl__mc_table_new(sl__mc_db *db, sl_table_kind kind, const char *name);
void sl__mc_table_free(sl__mc_table *t);
void sl__mc_db_free(sl__mc_db *db);

/* Appends the lower-cased (ASCII) name to b. 0 or SL_ENOMEM. */
int sl__mc_put_lower(sl_buf *b, const char *s);
/* Frees n owned fields and their names (NULL-safe). */
void sl__mc_fields_free(sl_field *f, int n);

/* ------------------------------------------------------------ catalog_store.c: records */

/* The column families, in the order of the layout above. */
#define SL__MC_NCF 7
extern const char *const sl__mc_cf_names[SL__MC_NCF];
/* The key of the counters record in "meta". */
#define SL__MC_COUNTERS_KEY "counters"

/* Reads every record back into the (empty) registry. 0, SL_ECORRUPT, SL_EIO, SL_ENOMEM. */
int sl__mc_load(sl_mcatalog *cat, sl_error *err);

/* Keys; each appends to an empty or reset buffer. 0 or SL_ENOMEM. */
int sl__mc_key_db(sl_buf *k, const char *db);
int sl__mc_key_table(sl_buf *k, const char *db, const char *table);
int sl__mc_key_id(sl_buf *k, uint32_t id);

/* A length-prefixed string (varint length, bytes): append / read into a new
 * NUL-terminated copy (SL_ECORRUPT for a short record or an embedded NUL, SL_ENOMEM). */
int sl__mc_put_str(sl_buf *v, const char *s);
int sl__mc_get_str(sl_reader *r, char **out);

/* Values. 0 or SL_ENOMEM. */
int sl__mc_enc_counters(sl_buf *v, uint64_t next_uid, uint32_t next_vgroup, uint32_t next_node);
int sl__mc_enc_db(sl_buf *v, const sl__mc_db *db);
int sl__mc_enc_vgroup(sl_buf *v, const sl__mc_vgroup *vg);
int sl__mc_enc_table(sl_buf *v, const sl__mc_table *t);
int sl__mc_enc_node(sl_buf *v, const sl__mc_node *n);

/* Appends a put of the counters record with the given values to b. */
int sl__mc_batch_counters(sl_mcatalog *cat, sl_kv_batch *b, uint64_t next_uid, uint32_t next_vgroup,
                          uint32_t next_node);

/* ------------------------------------------------------------ catalog_assign.c */

/* Loads the epoch record (open). 0, SL_ECORRUPT, SL_EIO. */
int sl__mc_assign_load(sl_mcatalog *cat, sl_error *err);
/* Frees the placement and the snode reports (close). */
void sl__mc_assign_free(sl_mcatalog *cat);
/* The owners of stream id (c_slots entries) at the current placement, or NULL. */
const uint32_t *sl__mc_owners(const sl_mcatalog *cat, uint64_t stream_id);
/* What snode n last reported about stream id, or NULL. */
const sl__mc_task *sl__mc_task_of(const sl__mc_node *n, uint64_t stream_id);
/* Frees a node's reports. */
void sl__mc_node_tasks_free(sl__mc_node *n);
/* Appends range deletes of the checkpoints of stream id to b. */
int sl__mc_checkpoints_batch_drop(sl_mcatalog *cat, sl_kv_batch *b, uint64_t stream_id);

/* A stored checkpoint record, decoded in place (pointers into the value). */
typedef struct sl__mc_ckpt {
    uint64_t k_epoch;
    uint32_t k_node;
    uint32_t k_nvers;        /* versions (format 2; 0 for format 1) */
    const uint8_t *k_vers;   /* k_nvers x (u32 vgroup id, u64 version), little-endian */
    const uint8_t *k_state;  /* the snode's opaque state */
    size_t k_state_len;
} sl__mc_ckpt;
/* Decodes a checkpoint record value. 0 or SL_ECORRUPT. */
int sl__mc_ckpt_decode(const void *v, size_t n, sl__mc_ckpt *out);

/* ------------------------------------------------------------ catalog_lowwater.c */

/* Frees a stream's holds (NULL-safe). */
void sl__mc_hold_free(sl__mc_hold *h);
/* Resolves s->s_tdb from its trigger text (load; the databases and tables are loaded).
 * 0 or SL_ENOMEM. */
int sl__mc_stream_resolve_tdb(sl_mcatalog *cat, sl__mc_stream *s);
/* The stream with id, or NULL. */
sl__mc_stream *sl__mc_find_stream_id(const sl_mcatalog *cat, uint64_t id);
/*
 * First half of recording a checkpoint's versions: validates them (SL_EINVAL for a vgroup
 * listed twice, SL_ELIMIT beyond SL_MCATALOG_CHECKPOINT_VERSIONS_MAX, with a message),
 * keeps those of vgroups s reads in *kept (owned by the caller, *nkept entries; NULL when
 * none) and allocates what sl__mc_hold_apply will need, so that it cannot fail. Changes
 * no minimum. 0, SL_EINVAL, SL_ELIMIT, SL_ENOMEM.
 */
int sl__mc_hold_prepare(sl_mcatalog *cat, sl__mc_stream *s, const sl_mcatalog_vgroup_version *v,
                        size_t n, sl_mcatalog_vgroup_version **kept, size_t *nkept,
                        sl_error *err);
/* Second half, once the checkpoint is on disk: the slot's versions become kept. */
void sl__mc_hold_apply(sl_mcatalog *cat, sl__mc_stream *s, uint32_t slot,
                       const sl_mcatalog_vgroup_version *kept, size_t nkept);
/* Loads the versions of every stored checkpoint (open, after the streams and the epoch).
 * 0, SL_ECORRUPT, SL_EIO, SL_ENOMEM. */
int sl__mc_holds_load(sl_mcatalog *cat, sl_error *err);

/* ------------------------------------------------------------ catalog_ddl.c */

/* The catalog as seen by the shared DDL rules (information_schema included, read-only). */
sl_ddl_source sl__mc_source(sl_mcatalog *cat, const char *current_db);

/* Records a statement adds to the write batch of a DDL plan (CREATE STREAM: the stream). */
typedef struct sl__mc_apply_hook {
    sl_pos pos; /* where to report a failure when the plan has no op */
    /* Adds puts to b before it is written: 0 or SL_ENOMEM (then nothing is written). */
    int (*prepare)(void *arg, sl_kv_batch *b);
    /* Called once the batch is on disk and the plan's objects are linked; cannot fail. */
    void (*commit)(void *arg);
    void *arg;
} sl__mc_apply_hook;

/*
 * Applies a validated plan as sl_mcatalog_exec_ddl does (prepare, one synced batch, link)
 * with hook's records (hook may be NULL) in that same batch; with a hook the batch is
 * written even when the plan has no op. Appends the changes to out. Nothing changes on
 * error.
 */
int sl__mc_apply_plan(sl_mcatalog *cat, sl_ddl_plan *plan, const sl__mc_apply_hook *hook,
                      sl_ddl_result *out, sl_error *err);

/* ------------------------------------------------------------ catalog_stream.c */

/* Whether k is CREATE/DROP/START/STOP STREAM. */
bool sl__mc_is_stream_stmt(sl_stmt_kind k);
/* Executes a stream statement (sl_mcatalog_exec_ddl; out: the INTO table CREATE STREAM
 * made, else empty). */
int sl__mc_stream_exec(sl_mcatalog *cat, const sl_stmt *stmt, const char *current_db,
                       sl_ddl_result *out, sl_error *err);
/* Loads the stream records (after the databases). 0, SL_ECORRUPT, SL_EIO, SL_ENOMEM. */
int sl__mc_streams_load(sl_mcatalog *cat, sl_error *err);
/* Frees every stream in memory (close). */
void sl__mc_streams_free(sl_mcatalog *cat);
/* Forgets (in memory) the streams of database db: its records went with DROP DATABASE. */
void sl__mc_streams_forget_db(sl_mcatalog *cat, const char *db);
/* Appends a range delete of every stream record of database db to b. */
int sl__mc_streams_batch_drop_db(sl_mcatalog *cat, sl_kv_batch *b, const char *db);
/* Appends the streams to the text dump (sorted). */
int sl__mc_streams_dump(sl_mcatalog *cat, sl_buf *out);
/* SHOW CREATE STREAM. */
int sl__mc_stream_show_create(sl_mcatalog *cat, const sl_stmt *st, const char *current_db,
                              sl_result *res, sl_error *err);
/* SHOW [db.]STREAMS [LIKE]: the database to list (NULL: every one) or an error. */
int sl__mc_streams_show_db(sl_mcatalog *cat, const sl_stmt *st, const char *current_db,
                           const char **db, sl_error *err);

/* ------------------------------------------------------------ catalog_stream_out.c */

/*
 * The INTO output table of CREATE STREAM cs (borrowed, like everything else here): plans
 * the subquery against the catalog (unqualified names in query_db) with the placeholders
 * typed, derives the output columns and tags, validates them with the shared DDL rules and
 * appends the CREATE_TABLE op to plan - or nothing without INTO or when the table exists
 * with exactly that schema. stream_db is the stream's database (the default output
 * database), trigger the FROM table's meta (NULL without FROM). Returns 0, or an error with
 * its position and nothing appended (see catalog_stream_out.c for the rules and messages).
 */
int sl__mc_stream_out_plan(sl_mcatalog *cat, const sl_create_stream *cs, const sl__mc_db *stream_db,
                           const char *query_db, const sl_table_meta *trigger, sl_ddl_plan *plan,
                           sl_error *err);

/* ------------------------------------------------------------ catalog_sys.c */

/* The system tables of information_schema. */
int sl__mc_sys_count(void);
/* Fills the ddl view of system table i (kind normal, no tags). */
void sl__mc_sys_view(int i, sl_ddl_table *out);
/* Index of system table `name`, or -1. */
int sl__mc_sys_find(const char *name);

#endif
