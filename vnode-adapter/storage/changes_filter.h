/*
 * changes_filter.h - filtered change-log reads: what an snode's trigger reader asks a vnode
 * for (DESIGN.md section 3, "Trigger path"): the changes of one trigger table after a
 * version, only for the trigger groups in the reader's slots, only the columns it needs,
 * with PRE_FILTER applied on the vnode. Two objects make it:
 *
 *   sl_vs_tcache   the per-vgroup table metadata cache: name, super table, tag values and
 *                  the group ids already computed for a table (a group depends only on the
 *                  table for tbname/tag grouping, so it is hashed once per table and
 *                  grouping, never per row). It also remembers tables dropped while their
 *                  change-log entries are still retained, so their rows and the DROP entry
 *                  still reach the right slot.
 *   sl_vs_cfilter  one reader's filter compiled against the trigger table's schema.
 *
 * Skipping is cheap: an entry of another table, or of a group outside the slots, is
 * rejected from its key and header alone (sl_vstore_changes_read_hook), without fetching
 * or decoding its rows. This module has no network code; the daemon decodes the request
 * (vrequest.c) and encodes the reply. Everything here is used by one thread at a time.
 */
#ifndef SL_CHANGES_FILTER_H
#define SL_CHANGES_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/exec/catalog.h"
#include "vstore.h"

/* Bounds of a filter (a request past one is refused). */
#define SL_VS_FILTER_MAX_SLOTS 65536u  /* nslots */
#define SL_VS_FILTER_MAX_PROJ 4096u    /* projection entries */
#define SL_VS_FILTER_MAX_TEXT 65536u   /* PRE_FILTER text bytes */
#define SL_VS_FILTER_MAX_GROUP 64u     /* group key items */

/* Group key item meaning "the table name" (else a tag index of the super table). */
#define SL_VS_GROUP_TBNAME (-1)

/* ---------------------------------------------------------------- table metadata cache */

typedef struct sl_vs_tcache sl_vs_tcache;

/* Opens an empty cache over vs (borrowed; must outlive the cache). Returns 0 or SL_ENOMEM. */
int sl_vs_tcache_open(sl_vs_tcache **out, sl_vstore *vs);

/* Frees the cache (NULL-safe). */
void sl_vs_tcache_close(sl_vs_tcache *tc);

/*
 * Forgets what the cache holds of table uid, so that the next use reads the vstore again.
 * Call it after (re-)registering uid with sl_vstore_put_table: a table unknown when first
 * looked up is remembered as unknown until then. A dropped table's metadata is kept.
 */
void sl_vs_tcache_forget(sl_vs_tcache *tc, uint64_t uid);

/*
 * Call right before sl_vstore_drop_table(uid) (same thread as the writer calls): loads
 * uid's metadata if needed and keeps it past the drop, so that the change-log entries of
 * the table still retained (its rows, the DROP entry) can be filtered by slot. Kept until
 * the change log no longer holds the drop (checked during filtered reads). Returns 0,
 * SL_ENOTFOUND (not registered: nothing kept) or SL_ENOMEM.
 */
int sl_vs_tcache_note_drop(sl_vs_tcache *tc, uint64_t uid);

/* Tables the cache holds (live, dropped and known-unknown), for tests and stats. */
size_t sl_vs_tcache_size(const sl_vs_tcache *tc);

/* ---------------------------------------------------------------- filters */

/* A reader's filter, as the request carries it; every pointer is borrowed. */
typedef struct sl_vs_filter_spec {
    uint64_t table_uid;      /* normal or child table, or a super table (its children here) */
    uint32_t ngroup;         /* group key items; 0: a single group */
    const int32_t *group;    /* SL_VS_GROUP_TBNAME or a tag index of the table's tags */
    bool rollup;             /* ROLLUP BY: group is one VARCHAR/NCHAR tag holding a path
                              * (common/types/rollup.h); a table passes when any prefix
                              * group of its path is in the slots, never when the path is
                              * NULL or empty; an invalid path counts as the one group of
                              * the whole value (so exactly one reader reports it) */
    uint32_t nslots;         /* 0: every group passes (slots ignored, must be empty) */
    const uint8_t *slots;    /* bit i (byte i/8, bit i%8) set: slot i is the reader's */
    size_t slots_len;        /* must be ceil(nslots/8) */
    uint32_t nproj;          /* 0: every column of the table */
    const int32_t *proj;     /* as sl_scan_req.proj: column, ncols+tag, SL_PROJ_TBNAME */
    const char *pre_filter;  /* a boolean SQL expression, NULL or "" for none */
    size_t pre_filter_len;
} sl_vs_filter_spec;

typedef struct sl_vs_cfilter sl_vs_cfilter;

/*
 * Compiles spec (borrowed) against the trigger table's schema `table` (borrowed, copied as
 * needed): kind SL_TABLE_SUPER for a super table uid, otherwise the table's own kind; for a
 * child table, cols/tags are its super table's. The PRE_FILTER may name columns, tags and
 * tbname (case-insensitive) and must be boolean. On success stores the filter in *out
 * (free with sl_vs_cfilter_free) and returns 0. Errors, with a message in err:
 * SL_EINVAL (bounds, slot bitmap length, group item or projection index out of the
 * schema, a tag item on a normal table, a rollup filter whose grouping is not one
 * VARCHAR/NCHAR tag of a super table, a PRE_FILTER that is not one expression or not
 * boolean), SL_ELIMIT (past a SL_VS_FILTER_MAX_* bound), the parser's SL_ESYNTAX with the
 * position inside the PRE_FILTER text, SL_ENOTFOUND (an unknown column), SL_ENOMEM.
 */
int sl_vs_cfilter_compile(const sl_vs_filter_spec *spec, const sl_table_meta *table,
                          sl_vs_cfilter **out, sl_error *err);

/* Frees a compiled filter (NULL-safe). */
void sl_vs_cfilter_free(sl_vs_cfilter *f);

/* The group id of a child/normal table under f's grouping (cache used and filled), as the
 * snode computes it: sl_group_id of (tbname as VARCHAR, tag values as typed); for a rollup
 * filter that of the whole tag value (the path's deepest node). Returns 0 and *gid,
 * SL_ENOTFOUND (unknown table) or SL_ENOMEM. */
int sl_vs_cfilter_group_id(sl_vs_cfilter *f, sl_vs_tcache *tc, uint64_t uid, uint64_t *gid);

/* ---------------------------------------------------------------- reading */

/* One entry of a filtered read. */
typedef struct sl_vs_fchange {
    uint64_t version;
    uint64_t uid;            /* the child (or normal) table */
    sl_vs_change_kind kind;
    char *name;              /* owned; "" for a dropped table whose metadata was lost */
    uint64_t group_id;       /* 0 when name is "" */
    sl_block rows;           /* ROWS: the projected columns, then the row kind (TINYINT:
                              * 1 insert, 2 update); rows failing PRE_FILTER left out */
    int64_t del_lo, del_hi;  /* DELETE: the range */
    uint64_t count;          /* ROWS: rows in `rows`; DELETE: rows it removed */
    bool unfiltered;         /* ROWS: PRE_FILTER could not be evaluated (e.g. division by
                              * zero): every row was kept; the reader filters again */
} sl_vs_fchange;

typedef struct sl_vs_fchanges {
    size_t n;
    sl_vs_fchange *v;        /* ascending versions */
    uint64_t last_version;   /* cursor for the next read (see sl_vstore_changes_read_hook):
                              * advances past skipped entries too */
    bool more;               /* a bound stopped the read before the end of the log */
} sl_vs_fchanges;

/*
 * Reads the changes after `after` that pass f (used by this call only; one thread at a
 * time) into *out (overwritten; free with sl_vs_fchanges_fini): ROWS entries of the
 * trigger table's tables in the reader's slots, projected and PRE_FILTERed (an entry left
 * without rows is dropped, its version still consumed), their DELETE and DROP entries
 * as they are. A DROP of a table whose metadata was lost (dropped before the vnode
 * restarted) passes every filter with an empty name. Bounds as sl_vstore_changes_read_hook
 * (max_scan 0: the default). Errors: as sl_vstore_changes_read (SL_ERANGE when trimmed),
 * SL_ECORRUPT when a change's columns do not match the filter's schema, SL_ENOMEM.
 */
int sl_vs_changes_read_filtered(sl_vstore *vs, sl_vs_tcache *tc, sl_vs_cfilter *f,
                                uint64_t after, size_t max_bytes, size_t max_entries,
                                size_t max_scan, sl_vs_fchanges *out, sl_error *err);

/* Frees a result and zeroes it (NULL-safe). */
void sl_vs_fchanges_fini(sl_vs_fchanges *c);

#endif
