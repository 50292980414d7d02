/*
 * memstore_int.h - the internals shared by the files of the embedded store.
 *
 * memstore.c holds the registry of databases and tables, statement dispatch and SELECT;
 * memstore_table.c the row storage of one table (sorted main block plus pending writes,
 * merged lazily) and the catalog scans; memstore_ddl.c the DDL, SHOW and DESCRIBE
 * statements on top of the shared rules of ddl.h; memstore_insert.c INSERT and DELETE. Everything
 * here is internal (sl__ prefix); memstore.h is the public surface.
 */
#ifndef SL_MEMSTORE_INT_H
#define SL_MEMSTORE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "../sql/ast.h"
#include "../types/block.h"
#include "../types/value.h"
#include "../util/error.h"
#include "../util/nameset.h"
#include "../util/timeutil.h"
#include "catalog.h"
#include "ddl.h"
#include "memstore.h"

typedef struct sl__ms_db sl__ms_db;
typedef struct sl__ms_table sl__ms_table;

/* Type of the tbname pseudo column. */
#define SL__MS_TBNAME_WIDTH 192

/* Merge pending writes into the main block once a table holds this many pending blocks. */
#define SL__MS_PEND_COMPACT 32

/*
 * One table. A super table has a schema and child tables but no rows; a child table
 * shares its super table's schema and has tag values; a normal table has a schema and
 * rows. Rows live in `main` (sorted by timestamp, each timestamp once; with a composite key
 * by (timestamp, key), each pair once) and in `pend`, the
 * blocks written since the last merge, oldest first; the table's content is main with
 * every pending block applied in order (a later row replaces an earlier one of the same
 * timestamp). sl__ms_table_flush folds pend into main.
 */
struct sl__ms_table {
    sl_table_kind t_kind;      /* super, child or normal */
    char *t_name;              /* owned, as written by CREATE */
    sl__ms_db *t_db;           /* database holding the table */
    sl__ms_table *t_super;     /* child: its super table, else NULL */
    int t_ncols;               /* super/normal: columns (child: its super's) */
    sl_field *t_cols;          /* super/normal: owned fields with owned names; child: NULL */
    bool t_key;                /* super/normal: t_cols[1] is the COMPOSITE KEY (child: its
                                * super's); rows are then identified by (ts, key) */
    int t_ntags;               /* super: tags; 0 otherwise */
    sl_field *t_tags;          /* super: owned fields; NULL otherwise */
    sl_block t_tagvals;        /* child: one row holding its tag values, in tag order */
    sl__ms_table **t_children; /* super: child tables in creation order */
    int t_nchildren;           /* super: number of child tables */
    int t_capchildren;         /* super: allocated entries of t_children */
    sl_block t_main;           /* child/normal: sorted, unique rows */
    sl_block **t_pend;         /* child/normal: pending blocks, oldest first */
    int t_npend;               /* child/normal: pending blocks in use */
    int t_cappend;             /* child/normal: allocated entries of t_pend */
    int t_scratch;             /* scratch count for the statement being validated */
};

/* One database: its options and its tables, found by case-insensitive name. */
struct sl__ms_db {
    char *d_name;        /* owned, as written */
    sl_precision d_prec; /* timestamp precision of every table */
    int64_t d_vgroups;   /* VGROUPS, kept as metadata */
    sl_nameset d_tables; /* every table, super tables included, by name */
    uint32_t d_nsupers;  /* super tables among them */
};

struct sl_memstore {
    sl__ms_db **m_dbs;          /* in creation order */
    int m_ndbs;                 /* databases in use */
    int m_capdbs;               /* allocated entries of m_dbs */
    sl__ms_db *m_cur;           /* USE database, or NULL */
    int64_t (*m_now)(void *ud); /* the clock, milliseconds since the epoch */
    void *m_now_ud;             /* argument of m_now */
    int64_t m_stmt_now_ms;      /* NOW of the statement being executed */
};

/* ------------------------------------------------------------ memstore.c: registry */

/* Frees a database and all its tables (NULL-safe); the caller unlinks it first. */
void sl__ms_db_free(sl__ms_db *db);

/*
 * Errors are recorded with sl_ddl_error (ddl.h) at the offending node's position;
 * sl_memstore_exec prefixes the message with "line:col: " as the parser does.
 */

sl__ms_db *sl__ms_find_db(sl_memstore *ms, const char *name);

/*
 * Resolves the database of a possibly qualified name: q->db, or the current database.
 * Returns 0 and *out, or SL_ENOTFOUND with a message at q->pos.
 */
int sl__ms_resolve_db(sl_memstore *ms, const sl_qname *q, sl__ms_db **out, sl_error *err);

/* Initialises db's empty table set (sl__ms_db_free finalises it). Allocates nothing. */
void sl__ms_init_tables(sl__ms_db *db);

sl__ms_table *sl__ms_find_table(sl__ms_db *db, const char *name);

/* Ensures the table set can take `more` tables without allocating. 0 or SL_ENOMEM. */
int sl__ms_reserve_tables(sl__ms_db *db, uint32_t more);

/* Adds t to db (capacity reserved beforehand, so it cannot fail) and to its super. */
void sl__ms_link_table(sl__ms_db *db, sl__ms_table *t);

/* Removes t from db and from its super table's children, and frees it. */
void sl__ms_drop_table(sl__ms_db *db, sl__ms_table *t);

/* Ensures the super table can take `more` children without allocating. */
int sl__ms_reserve_children(sl__ms_table *st, int more);

/* Allocates an unlinked table named name (copied). NULL on exhaustion. */
sl__ms_table *sl__ms_table_new(sl__ms_db *db, sl_table_kind kind, const char *name);

/* Frees an unlinked table and everything it owns (NULL-safe). */
void sl__ms_table_free(sl__ms_table *t);

/* The table's columns and tags (a child's are its super table's). */
int sl__ms_ncols(const sl__ms_table *t);
const sl_field *sl__ms_cols(const sl__ms_table *t);
int sl__ms_ntags(const sl__ms_table *t);
/* Whether the table's rows are identified by (timestamp, composite key) (a child's: its
 * super table's). */
bool sl__ms_key(const sl__ms_table *t);
const sl_field *sl__ms_tags(const sl__ms_table *t);

/* ------------------------------------------------------------ memstore_table.c: rows */

/* Initialises the empty row storage of a child or normal table. */
int sl__ms_rows_init(sl__ms_table *t);

/* Frees the row storage (main and pending). */
void sl__ms_rows_fini(sl__ms_table *t);

/* Ensures pend can take `more` blocks without allocating. 0 or SL_ENOMEM. */
int sl__ms_reserve_pend(sl__ms_table *t, int more);

/*
 * Adds a block of rows (the table's columns, ts never NULL) as the newest pending write;
 * the table takes it. Capacity must have been reserved: this cannot fail.
 */
void sl__ms_add_pend(sl__ms_table *t, sl_block *b);

/*
 * Folds the pending writes into the main block. The table's content does not change, so
 * a failure (SL_ENOMEM) leaves a consistent table that is merely not compacted yet.
 */
int sl__ms_table_flush(sl__ms_table *t);

/* Appends rows to a child or normal table (bulk path of sl_memstore_append). */
int sl__ms_table_append(sl__ms_table *t, const sl_block *rows, sl_error *err);

/* A prepared deletion of the rows of t within [lo, hi] (see memstore_table.c). */
typedef struct sl__ms_delete_op {
    sl__ms_table *t;
    uint32_t from;     /* first main row deleted */
    uint32_t to;       /* one past the last main row deleted */
    sl_block *rebuilt; /* main without the rows, or NULL when truncating in place */
} sl__ms_delete_op;

/*
 * Prepares the deletion of t's rows with lo <= ts <= hi: flushes t and computes what to
 * remove, allocating what is needed, without changing t's content. Returns 0 or
 * SL_ENOMEM (op then owns nothing).
 */
int sl__ms_delete_prepare(sl__ms_table *t, int64_t lo, int64_t hi, sl__ms_delete_op *op);

/* Applies a prepared deletion (cannot fail) and returns the number of rows deleted. */
int64_t sl__ms_delete_apply(sl__ms_delete_op *op);

/* Releases a prepared deletion that is not applied. */
void sl__ms_delete_discard(sl__ms_delete_op *op);

/* The catalog operations of the store (sl_memstore_catalog). */
extern const sl_catalog_ops sl__ms_catalog_ops;

/* Fills meta for t (valid while t exists and is unchanged). */
void sl__ms_table_meta(const sl__ms_table *t, sl_table_meta *meta);

/* ------------------------------------------------------------ memstore_ddl.c */

int sl__ms_create_database(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err);
int sl__ms_drop_database(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err);
int sl__ms_use(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err);
int sl__ms_show(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err);
int sl__ms_create_stable(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err);
int sl__ms_create_table(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err);
int sl__ms_create_subtables(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err);
int sl__ms_drop_tables(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err);
int sl__ms_describe(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err);

/* The store as seen by the shared DDL rules (ddl.h), with the session's state. */
sl_ddl_source sl__ms_source(sl_memstore *ms);

/*
 * Makes the unlinked tables of the CREATE_TABLE ops plan->ops[from..] into news[i - from]
 * (other entries stay NULL; child tables take their op's tag block) and reserves what
 * linking them needs, so sl__ms_link_table cannot fail afterwards. Returns 0 or SL_ENOMEM
 * with a message; the caller frees news either way (sl__ms_table_free is NULL-safe).
 */
int sl__ms_make_tables(sl_ddl_plan *plan, int from, sl__ms_table **news, sl_error *err);

/* ------------------------------------------------------------ memstore_insert.c */

int sl__ms_insert(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err);
int sl__ms_delete(sl_memstore *ms, const sl_stmt *st, sl_result *res, sl_error *err);

#endif
