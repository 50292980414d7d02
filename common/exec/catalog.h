/*
 * catalog.h - the interface through which the planner and executor see tables.
 *
 * The same executor runs in the embedded demo (an in-memory store, memstore.h), in the
 * client (scans fanned out to vnodes) and in the stream runner (scans of trigger rows).
 * Each of those implements sl_catalog: look a table up by name, and scan it. A scan
 * returns columnar blocks holding the requested columns in the requested order; tags and
 * tbname are delivered as constant columns when they are constant for a block (every
 * block of a scan over a super table comes from a single child table).
 */
#ifndef SL_CATALOG_H
#define SL_CATALOG_H

#include <stdbool.h>
#include <stdint.h>

#include "../sql/ast.h"
#include "../types/block.h"
#include "../util/error.h"
#include "../util/timeutil.h"

typedef enum sl_table_kind {
    SL_TABLE_SUPER,  /* super table: rows of all its child tables */
    SL_TABLE_CHILD,  /* child table of a super table (has tag values) */
    SL_TABLE_NORMAL  /* table without tags */
} sl_table_kind;

/* One column or tag of a table. */
typedef struct sl_field {
    const char *name; /* owned by the catalog, valid while the table meta is */
    sl_type type;
    uint32_t width;   /* VARCHAR/NCHAR length */
} sl_field;

/*
 * What the planner knows of a table. For a child table, cols/tags are its super table's
 * and the scan delivers its own tag values. cols[0] is the TIMESTAMP key of every user
 * table; a system table (information_schema) may start with another type and then has no
 * timestamp key (no INTERVAL, FIRST/LAST or time-range push-down on it).
 * Memory is owned by the catalog and stays valid until the catalog changes the table.
 */
typedef struct sl_table_meta {
    sl_table_kind kind;
    const char *db;
    const char *name;
    sl_precision precision;
    int ncols;
    const sl_field *cols;
    int ntags;            /* 0 for normal tables */
    const sl_field *tags;
} sl_table_meta;

/* Projection index meaning "the tbname pseudo column" (VARCHAR(192)). */
#define SL_PROJ_TBNAME (-1)

/*
 * A scan request. proj lists what the blocks must contain, in order: an index i < ncols
 * is column i, ncols <= i < ncols+ntags is tag i-ncols, SL_PROJ_TBNAME is tbname.
 * Rows must come with the key within [ts_lo, ts_hi] (inclusive); the source may return
 * rows outside it (the executor filters again) but never fewer. Rows of one table are
 * delivered in ascending timestamp order, each timestamp once (updates already applied);
 * for a table with a composite key (its second column, see ddl.h), in ascending
 * (timestamp, key) order, each (timestamp, key) pair once.
 */
typedef struct sl_scan_req {
    const sl_table_meta *table;
    int nproj;
    const int *proj;
    int64_t ts_lo;
    int64_t ts_hi;
} sl_scan_req;

typedef struct sl_catalog_ops {
    /*
     * Fills *out with the table db.name (db NULL: the session's current database).
     * Returns 0, SL_ENOTFOUND with a message naming what is unknown, or another error.
     */
    int (*get_table)(void *ud, const char *db, const char *name, sl_table_meta *out,
                     sl_error *err);
    /* Starts a scan; *cursor is passed to scan_next/scan_close. */
    int (*scan_open)(void *ud, const sl_scan_req *req, void **cursor, sl_error *err);
    /*
     * Replaces the contents of out (a block the executor owns; the source resets it and
     * adds columns of the requested types) with the next rows. Columns may be read-only
     * views of the source's memory (sl_column_borrow), valid until the next scan_next or
     * scan_close; consumers that keep rows longer copy them. Returns 0 with
     * out->nrows == 0 at the end of the scan, or a negative error.
     */
    int (*scan_next)(void *cursor, sl_block *out, sl_error *err);
    /* Ends a scan (NULL-safe). */
    void (*scan_close)(void *cursor);
} sl_catalog_ops;

typedef struct sl_catalog {
    const sl_catalog_ops *ops;
    void *ud;
} sl_catalog;

#endif
