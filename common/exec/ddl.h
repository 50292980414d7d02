/*
 * ddl.h - the semantics of DDL, SHOW and DESCRIBE, shared by every store that keeps a
 * catalog: the embedded in-memory store (memstore.h) and the mnode's persistent catalog
 * (mnode/catalog.h).
 *
 * Both must accept and refuse exactly the same statements with exactly the same messages
 * ("tag 'groupId' expects INT, got 'abc'", "duplicate column name 'v'", ...), and list
 * the same SHOW columns, so the rules live here once. A store describes what it holds
 * through a small lookup interface (sl_ddl_source: find a database or a table, visit all
 * of them); the functions below read that and the statement's AST, never change anything,
 * and produce either
 *
 *   - a plan (sl_ddl_plan): the list of databases and tables the statement creates or
 *     drops, fully validated (schemas checked, tag values evaluated and converted into a
 *     one-row block, IF [NOT] EXISTS resolved), which the store then applies in a way that
 *     cannot fail halfway (the memstore links preallocated objects; the catalog writes one
 *     atomic RocksDB batch) - so a refused statement changes nothing; or
 *   - a result (sl_result) for SHOW DATABASES/STABLES/TABLES, SHOW CREATE ... and
 *     DESCRIBE.
 *
 * It also holds the constant-expression evaluator that INSERT values and tag values use
 * (literals, NOW, TODAY, arithmetic, timestamp +/- duration, CAST), the LIKE matcher of
 * SHOW, and the "line:col: message" error convention of statement execution.
 *
 * Names of databases, tables, columns and tags compare case-insensitively (ASCII) and are
 * kept as first written. All functions are pure with respect to the store and may be
 * called from any thread that may read the store.
 */
#ifndef SL_DDL_H
#define SL_DDL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "../sql/ast.h"
#include "../types/block.h"
#include "../types/value.h"
#include "../util/arena.h"
#include "../util/error.h"
#include "../util/timeutil.h"
#include "catalog.h"
#include "result.h"

/* Default and largest VGROUPS of a database. */
#define SL_DDL_VGROUPS_DEFAULT 2
#define SL_DDL_VGROUPS_MAX     1024

/* The database name no store may create (the catalog serves its system tables there). */
#define SL_DDL_INFO_SCHEMA "information_schema"

/* ------------------------------------------------------------ the lookup interface */

/* What a store tells about one database. Strings are the store's, valid while it is
 * unchanged. */
typedef struct sl_ddl_db {
    const char *name;       /* as created */
    sl_precision precision; /* timestamp precision of its tables */
    int64_t vgroups;        /* VGROUPS */
    int64_t ntables;        /* child and normal tables (SHOW DATABASES) */
    void *obj;              /* the store's object; equal objects are the same database */
} sl_ddl_db;

/* What a store tells about one table. A child table's schema is its super table's. */
typedef struct sl_ddl_table {
    sl_table_kind kind;
    const char *name;   /* as created */
    const char *stable; /* child: its super table's name; else NULL */
    int ncols;          /* columns; cols[0] is the TIMESTAMP key */
    const sl_field *cols;
    int ntags; /* super and child: the super table's tags; normal: 0 */
    const sl_field *tags;
    const sl_block *tagvals; /* child: one row of tag values in tag order; else NULL */
    int64_t nchildren;       /* super: number of child tables; else 0 */
    void *obj;               /* the store's object; equal objects are the same table */
    bool composite_key;      /* cols[1] is the COMPOSITE KEY (a child: its super table's):
                              * rows are identified by (timestamp, key), the key is never
                              * NULL; stores that fill the struct field by field memset it */
} sl_ddl_table;

/* Visitors of sl_ddl_source_ops.each_*: return 0 to go on, nonzero to stop with it. */
typedef int (*sl_ddl_db_fn)(void *arg, const sl_ddl_db *db);
typedef int (*sl_ddl_table_fn)(void *arg, const sl_ddl_table *t);

typedef struct sl_ddl_source_ops {
    /* Fills *out and returns true when database `name` exists (case-insensitive). */
    bool (*find_db)(void *ud, const char *name, sl_ddl_db *out);
    /* Fills *out and returns true when table `name` exists in db (found by find_db). */
    bool (*find_table)(void *ud, const sl_ddl_db *db, const char *name, sl_ddl_table *out);
    /* Calls fn for every database, in any order; returns the first nonzero fn result, or 0. */
    int (*each_db)(void *ud, sl_ddl_db_fn fn, void *arg);
    /* Calls fn for every table of db (super tables included), in any order; as each_db. */
    int (*each_table)(void *ud, const sl_ddl_db *db, sl_ddl_table_fn fn, void *arg);
} sl_ddl_source_ops;

/* A store seen by the DDL functions, plus the session state a statement runs in. */
typedef struct sl_ddl_source {
    const sl_ddl_source_ops *ops;
    void *ud;               /* the store, passed to every op */
    const char *current_db; /* the session's USE database, NULL when none */
    int64_t now_ms;         /* the statement's NOW, ms since the epoch (tag values) */
} sl_ddl_source;

/* ------------------------------------------------------------ plans */

typedef enum sl_ddl_op_kind {
    SL_DDL_CREATE_DB,    /* create database db (db.obj is NULL) */
    SL_DDL_DROP_DB,      /* drop database db with all its tables */
    SL_DDL_CREATE_TABLE, /* create table `name` of kind tkind in db */
    SL_DDL_DROP_TABLE    /* drop `table` of db (a super table with all its children) */
} sl_ddl_op_kind;

/* One change a statement makes. Strings are borrowed from the statement or the store. */
typedef struct sl_ddl_op {
    sl_ddl_op_kind kind;
    sl_pos pos;   /* the clause it comes from */
    sl_ddl_db db; /* CREATE_DB: name as written, precision and vgroups; else the
                   * database as found */
    /* CREATE_TABLE */
    sl_table_kind tkind; /* super, child or normal */
    const char *name;    /* as written */
    int ncols;           /* super/normal: the validated columns (plan-owned array) */
    const sl_field *cols;
    bool composite_key;  /* super/normal/child: cols[1] is the COMPOSITE KEY */
    int ntags; /* super: the validated tags (plan-owned array) */
    const sl_field *tags;
    sl_ddl_table super; /* child: its super table as found */
    sl_block tagvals;   /* child: its tag values, one row in tag order, owned by the plan
                         * (a store may take it: move it out and sl_block_init the field) */
    /* DROP_TABLE */
    sl_ddl_table table; /* the table as found */
} sl_ddl_op;

/* The changes of one statement, in order. Callers embed it. */
typedef struct sl_ddl_plan {
    int nops;
    int capops;
    sl_ddl_op *ops; /* owned */
    sl_arena arena; /* field arrays of the ops */
} sl_ddl_plan;

void sl_ddl_plan_init(sl_ddl_plan *p);
/* Frees the plan's ops, their tag blocks and arrays (NULL-safe); the plan is empty after. */
void sl_ddl_plan_fini(sl_ddl_plan *p);

/*
 * Validates a DDL statement against the store and appends what it changes to plan (which
 * may already hold ops: they count as existing for name checks, as in a multi-item
 * INSERT). Handles CREATE/DROP DATABASE, CREATE STABLE, CREATE TABLE (normal, and one or
 * more USING ... TAGS clauses), DROP TABLE and DROP STABLE, with IF [NOT] EXISTS: an
 * object skipped by them adds no op (so an empty plan means "nothing to do"). Names are
 * resolved in src->current_db unless qualified.
 *
 * Returns 0, or a negative code with a message at the position of the offending node
 * (err->line/col; no "line:col:" prefix, see sl_ddl_error_prefix): unknown database,
 * duplicate or reserved names, bad types and lengths, too many columns or tags, tag value
 * mismatches, wrong object kind, ... On error the ops appended by this call are removed.
 * Other statement kinds give SL_EUNSUPPORTED. Borrowed: st (the plan points into it) and
 * the store's strings: apply the plan before either changes.
 */
int sl_ddl_plan_stmt(const sl_ddl_source *src, const sl_stmt *st, sl_ddl_plan *plan, sl_error *err);

/* The table an INSERT item writes to (sl_ddl_plan_insert_target). */
typedef struct sl_ddl_target {
    sl_ddl_db db;       /* its database */
    sl_ddl_table table; /* the existing table, when new_op < 0 */
    int new_op;         /* index in plan->ops of the CREATE_TABLE that makes it, or -1 */
    bool created;       /* this call appended that op */
} sl_ddl_target;

/*
 * Resolves the table of one INSERT item. The table may exist in the store or be created
 * by an earlier op of plan (an earlier item of the same INSERT). With USING st TAGS (...),
 * a missing table becomes a new child table of st (a CREATE_TABLE op appended to plan,
 * tags evaluated and checked), and an existing one must be a child of st. Without USING
 * the table must exist and must not be a super table. Returns 0 and *out, or an error at
 * the item's position, as sl_ddl_plan_stmt. Rows are not looked at.
 */
int sl_ddl_plan_insert_target(const sl_ddl_source *src, const sl_insert_item *it, sl_ddl_plan *plan,
                              sl_ddl_target *out, sl_error *err);

/* ------------------------------------------------------------ SHOW and DESCRIBE */

/* True for the SHOW kinds sl_ddl_show answers: DATABASES, STABLES, TABLES, CREATE
 * DATABASE/STABLE/TABLE. Streams and nodes are the store's own business. */
bool sl_ddl_show_handles(sl_show_kind kind);

/*
 * Answers a SHOW statement (sl_ddl_show_handles) into res, an empty result
 * (sl_result_init). Rows are sorted by name; LIKE filters names case-insensitively.
 * Columns:
 *   DATABASES: name, precision, vgroups, ntables
 *   STABLES:   stable_name, columns, tags, tables
 *   TABLES:    table_name, stable_name (NULL for normal tables), type (CHILD_TABLE or
 *              NORMAL_TABLE), columns
 *   CREATE ...: the object's name and its CREATE statement.
 * Returns 0 or an error with a message (unknown database or table, no database selected).
 */
int sl_ddl_show(const sl_ddl_source *src, const sl_stmt *st, sl_result *res, sl_error *err);

/*
 * Answers DESCRIBE [db.]table into res (empty): one row per column then per tag, with
 * columns field, type, length (declared length of VARCHAR/NCHAR, else the value size) and
 * note ("TAG" for tags, "COMPOSITE KEY" for the composite key column, else empty).
 * Returns 0 or an error with a message.
 */
int sl_ddl_describe(const sl_ddl_source *src, const sl_stmt *st, sl_result *res, sl_error *err);

/* ------------------------------------------------------------ constants */

/*
 * Evaluates a constant expression (literals, NULL, NOW, TODAY, unary minus, arithmetic,
 * timestamp +/- duration with calendar units, CAST) with NOW = now_ms, and converts it to
 * the type of field f, a "column" or "tag" (what) of a table in precision prec. Strings in
 * *out point into the AST or into buf (bufn bytes; SL_DDL_VALUE_BUF are enough).
 * Returns 0, or an error naming the field at the expression's position, e.g.
 * "tag 'groupId' expects INT, got 'abc'" or "value 300 is out of range for column 'v'
 * TINYINT".
 */
#define SL_DDL_VALUE_BUF 72

int sl_ddl_const_to(const sl_expr *e, const sl_field *f, const char *what, sl_precision prec,
                    int64_t now_ms, char *buf, size_t bufn, sl_value *out, sl_error *err);

/* ------------------------------------------------------------ INSERT and DELETE values */

/*
 * Converts the VALUES rows of one INSERT item into b, which holds one empty column per
 * table column (cols[0..ncols), the table's types and widths, in order), appending one row
 * per VALUES row and sealing b. tname, tags/ntags (for "is a tag" messages), key (cols[1]
 * is a COMPOSITE KEY) and prec are the target table's; now_ms is the statement's NOW. The
 * item's column list, if any, is resolved against cols; missing columns get NULL. Returns
 * 0, or an error at the position of the offending value or name (unknown or repeated
 * column, tag named as a column, no timestamp or composite key column, wrong number of
 * values, NULL timestamp or composite key, conversion failures as sl_ddl_const_to); b
 * then holds part of the rows and the caller discards it.
 */
int sl_ddl_insert_rows(const sl_insert_item *it, const char *tname, int ncols,
                       const sl_field *cols, bool key, int ntags, const sl_field *tags,
                       sl_precision prec, int64_t now_ms, sl_block *b, sl_error *err);

/* The rows a DELETE selects: lo <= ts <= hi, or nothing when empty. */
typedef struct sl_ddl_ts_range {
    int64_t lo;  /* smallest timestamp selected */
    int64_t hi;  /* largest timestamp selected */
    bool empty;  /* the conditions select nothing */
} sl_ddl_ts_range;

/*
 * Reduces a DELETE's WHERE (NULL: everything) over table tname, whose timestamp key is
 * tscol, to one inclusive range. Accepted: comparisons (=, <, <=, >, >=) and BETWEEN of
 * the key with constants, combined with AND; a NULL bound selects nothing. Returns 0 and
 * *out, or SL_EUNSUPPORTED at the position of any other condition, or a bound's
 * conversion error.
 */
int sl_ddl_delete_range(const sl_expr *where, const char *tname, const sl_field *tscol,
                        sl_precision prec, int64_t now_ms, sl_ddl_ts_range *out, sl_error *err);

/* ------------------------------------------------------------ small shared helpers */

/* Case-insensitive (ASCII) name equality. */
bool sl_ddl_name_eq(const char *a, const char *b);

/*
 * SQL LIKE over a name, case-insensitively: '%' matches any run, '_' one byte, '\' quotes
 * the next character.
 */
bool sl_ddl_like(const char *pattern, const char *name);

/*
 * True for the types a COMPOSITE KEY column may have: INT, BIGINT, INT UNSIGNED, BIGINT
 * UNSIGNED and VARCHAR (BINARY).
 */
bool sl_ddl_key_type_ok(sl_type t);

/* "super table", "child table" or "table". */
const char *sl_ddl_kind_desc(sl_table_kind k);

/* A type as written in DDL, "INT" or "VARCHAR(64)", into buf (n bytes); returns buf. */
const char *sl_ddl_type_str(sl_type t, uint32_t width, char *buf, size_t n);

/*
 * Records an error at pos (line 0: none) unless err already holds one (the first error
 * wins), and returns code. The message has no position prefix; see sl_ddl_error_prefix.
 */
int sl_ddl_error(sl_error *err, int code, sl_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int sl_ddl_verror(sl_error *err, int code, sl_pos pos, const char *fmt, va_list ap);

/*
 * Gives a positioned error the parser's form, "line:col: message" (idempotent), so every
 * statement error reads the same whichever layer recorded it.
 */
void sl_ddl_error_prefix(sl_error *err);

#endif
