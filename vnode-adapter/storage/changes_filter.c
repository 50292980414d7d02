/*
 * changes_filter.c - filtered change-log reads (see changes_filter.h): the table metadata
 * cache, compiling a reader's filter, and the read that applies it.
 *
 * The read runs in two passes over what sl_vstore_changes_read_hook returns. The hook
 * decides from an entry's table alone: is it the trigger table (or one of its children),
 * and is the table's group in the reader's slots - both answered from the cache, with the
 * group id hashed once per (table, grouping). Only the entries it keeps are fetched and
 * decoded; the second pass then evaluates PRE_FILTER over each kept block (tags and tbname
 * as constant columns) and gathers the projected columns of the rows that pass.
 *
 * A ROLLUP BY filter (spec.rollup) keeps a table when any prefix group of its path tag
 * (common/types/rollup.h) falls in the reader's slots; that answer is memoised per table
 * like a group id, under a key that also covers the slots.
 */
#define _GNU_SOURCE
#include "changes_filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/expr/expr.h"
#include "common/sql/parser.h"
#include "common/types/rollup.h"
#include "common/types/value.h"
#include "common/util/keymap.h"

/* ---------------------------------------------------------------- table metadata cache */

/* Group ids remembered per table (one per grouping of the readers seen lately; a rollup
 * reader also remembers whether the table passes its slots). */
#define TC_MEMO 4

typedef struct tc_entry {
    bool loaded;        /* false: read the vstore at the next use */
    bool known;         /* the vstore had the table when loaded */
    uint64_t uid, suid; /* suid: child tables */
    sl_vs_table_kind kind;
    char *name;          /* owned */
    uint32_t ncols;
    sl_block tags;       /* child tables: one row of tag values (owned copy) */
    uint64_t dropped_at; /* version of its DROP entry; 0: live */
    struct {
        uint64_t sig, gid;
    } memo[TC_MEMO];
    int nmemo, memo_next;
} tc_entry;

struct sl_vs_tcache {
    sl_vstore *tc_vs;      /* borrowed */
    sl_keymap tc_ids;      /* uid (8 bytes) -> index in tc_v */
    tc_entry *tc_v;        /* entries by id; the first tc_init initialised */
    size_t tc_cap, tc_init;
    size_t tc_dropped;     /* entries with dropped_at != 0 */
};

static void entry_clear(tc_entry *e)
{
    free(e->name);
    sl_block_fini(&e->tags);
    uint64_t uid = e->uid;
    memset(e, 0, sizeof(*e));
    sl_block_init(&e->tags);
    e->uid = uid;
}

int sl_vs_tcache_open(sl_vs_tcache **out, sl_vstore *vs)
{
    sl_vs_tcache *tc = calloc(1, sizeof(*tc));
    if (tc == NULL)
        return SL_ENOMEM;
    if (sl_keymap_init(&tc->tc_ids) != 0) {
        free(tc);
        return SL_ENOMEM;
    }
    tc->tc_vs = vs;
    *out = tc;
    return 0;
}

void sl_vs_tcache_close(sl_vs_tcache *tc)
{
    if (tc == NULL)
        return;
    for (size_t i = 0; i < tc->tc_init; i++)
        entry_clear(&tc->tc_v[i]);
    free(tc->tc_v);
    sl_keymap_fini(&tc->tc_ids);
    free(tc);
}

size_t sl_vs_tcache_size(const sl_vs_tcache *tc)
{
    size_t n = 0;
    for (size_t i = 0; i < tc->tc_init; i++)
        n += tc->tc_v[i].loaded;
    return n;
}

/* Loads e (its uid set) from the vstore. */
static int entry_load(sl_vs_tcache *tc, tc_entry *e)
{
    const sl_vs_table_def *d;
    entry_clear(e);
    e->loaded = true;
    if (sl_vstore_table_acquire(tc->tc_vs, e->uid, &d, NULL) != 0)
        return 0; /* known = false */
    int rc = 0;
    e->name = strdup(d->name);
    e->kind = d->kind;
    e->suid = d->suid;
    e->ncols = d->ncols;
    if (e->name == NULL)
        rc = SL_ENOMEM;
    for (uint32_t i = 0; rc == 0 && d->tag_values != NULL && i < d->tag_values->ncols; i++) {
        const sl_column *src = &d->tag_values->cols[i];
        rc = sl_block_add_column(&e->tags, src->type, src->width);
        if (rc >= 0)
            rc = sl_column_append_rows(&e->tags.cols[rc], src, NULL, 0, 1);
    }
    sl_vstore_table_release(d);
    if (rc < 0) {
        entry_clear(e);
        return SL_ENOMEM; /* loaded stays false: tried again next time */
    }
    sl_block_seal(&e->tags);
    e->known = true;
    return 0;
}

/* Makes room for and initialises the entries of every id the map holds. */
static int tc_grow(sl_vs_tcache *tc)
{
    size_t need = tc->tc_ids.km_count;
    if (need > tc->tc_cap) {
        size_t ncap = tc->tc_cap ? 2 * tc->tc_cap : 64;
        while (ncap < need)
            ncap *= 2;
        tc_entry *nv = realloc(tc->tc_v, ncap * sizeof(*nv));
        if (nv == NULL)
            return SL_ENOMEM; /* the id stays in the map; its entry is made on a retry */
        tc->tc_v = nv;
        tc->tc_cap = ncap;
    }
    for (; tc->tc_init < need; tc->tc_init++) {
        tc_entry *e = &tc->tc_v[tc->tc_init];
        size_t kl;
        const uint8_t *k = sl_keymap_key(&tc->tc_ids, (uint32_t)tc->tc_init, &kl);
        memset(e, 0, sizeof(*e));
        sl_block_init(&e->tags);
        memcpy(&e->uid, k, sizeof(e->uid));
    }
    return 0;
}

/* The entry of uid (NULL on exhaustion); loaded when `load`. */
static tc_entry *tc_find(sl_vs_tcache *tc, uint64_t uid, bool load)
{
    uint32_t id;
    if (sl_keymap_get_or_add(&tc->tc_ids, &uid, sizeof(uid), &id, NULL) != 0 ||
        tc_grow(tc) != 0)
        return NULL;
    tc_entry *e = &tc->tc_v[id];
    if (load && !e->loaded && entry_load(tc, e) != 0)
        return NULL;
    return e;
}

static tc_entry *tc_get(sl_vs_tcache *tc, uint64_t uid)
{
    return tc_find(tc, uid, true);
}

void sl_vs_tcache_forget(sl_vs_tcache *tc, uint64_t uid)
{
    if (tc == NULL)
        return;
    tc_entry *e = tc_find(tc, uid, false);
    if (e != NULL && e->dropped_at == 0)
        entry_clear(e);
}

int sl_vs_tcache_note_drop(sl_vs_tcache *tc, uint64_t uid)
{
    sl_vs_tcache_forget(tc, uid); /* the newest definition */
    tc_entry *e = tc_get(tc, uid);
    if (e == NULL)
        return SL_ENOMEM;
    if (!e->known)
        return SL_ENOTFOUND;
    if (e->dropped_at == 0)
        tc->tc_dropped++;
    /* Writer calls are serialised on the caller's thread: the drop gets the next version. */
    e->dropped_at = sl_vstore_last_version(tc->tc_vs) + 1;
    return 0;
}

/* Releases dropped tables whose DROP entry the log no longer holds. */
static void tc_purge(sl_vs_tcache *tc)
{
    if (tc->tc_dropped == 0)
        return;
    uint64_t first = sl_vstore_first_retained_version(tc->tc_vs);
    for (size_t i = 0; i < tc->tc_init; i++) {
        tc_entry *e = &tc->tc_v[i];
        if (e->dropped_at != 0 && e->dropped_at < first) {
            entry_clear(e); /* read again if ever needed: unknown once really dropped */
            tc->tc_dropped--;
        }
    }
}

/* ---------------------------------------------------------------- filters */

/* A field of the trigger table the PRE_FILTER reads: a table index (catalog numbering). */
struct sl_vs_cfilter {
    uint64_t cf_uid;
    bool cf_super;            /* the trigger table is a super table */
    int cf_ncols, cf_ntags;
    sl_field *cf_fields;      /* owned: ncols columns then ntags tags (names owned) */
    sl_precision cf_prec;
    int32_t *cf_group;        /* owned */
    uint32_t cf_ngroup;
    uint64_t cf_sig;          /* the grouping's memo key */
    bool cf_rollup;           /* ROLLUP BY: cf_group[0] is the path tag */
    uint64_t cf_sig_own;      /* rollup: memo key of "some prefix is in the slots" */
    uint32_t cf_nslots;
    uint8_t *cf_slots;        /* owned */
    int32_t *cf_proj;         /* owned, cf_nproj entries (never 0: empty means all columns) */
    uint32_t cf_nproj;
    sl_cexpr *cf_expr;        /* NULL: no PRE_FILTER */
    int32_t *cf_need;         /* table indexes the expression reads, in binding order */
    int cf_nneed, cf_capneed;
    int cf_error;             /* binder error while compiling */
    const char *cf_tname;     /* for messages during compile (borrowed) */
    sl_vs_tcache *cf_tc;      /* during a read: for the hook */
};

void sl_vs_cfilter_free(sl_vs_cfilter *f)
{
    if (f == NULL)
        return;
    for (int i = 0; f->cf_fields != NULL && i < f->cf_ncols + f->cf_ntags; i++)
        free((char *)f->cf_fields[i].name);
    free(f->cf_fields);
    free(f->cf_group);
    free(f->cf_slots);
    free(f->cf_proj);
    sl_cexpr_free(f->cf_expr);
    free(f->cf_need);
    free(f);
}

static void field_of(const sl_vs_cfilter *f, int32_t idx, sl_type *t, uint32_t *w)
{
    if (idx == SL_PROJ_TBNAME) {
        *t = SL_T_VARCHAR;
        *w = SL_TABLE_NAME_MAX;
    } else {
        *t = f->cf_fields[idx].type;
        *w = f->cf_fields[idx].width;
    }
}

static int need_add(sl_vs_cfilter *f, int32_t idx)
{
    for (int i = 0; i < f->cf_nneed; i++)
        if (f->cf_need[i] == idx)
            return i;
    if (f->cf_nneed == f->cf_capneed) {
        int ncap = f->cf_capneed ? 2 * f->cf_capneed : 8;
        int32_t *nv = realloc(f->cf_need, (size_t)ncap * sizeof(*nv));
        if (nv == NULL)
            return SL_ENOMEM;
        f->cf_need = nv;
        f->cf_capneed = ncap;
    }
    f->cf_need[f->cf_nneed] = idx;
    return f->cf_nneed++;
}

/* Binds columns, tags and tbname of the trigger table to evaluation-block columns. */
static int pf_bind(void *ud, const sl_expr *e, sl_binding *b, sl_error *err)
{
    sl_vs_cfilter *f = ud;
    int32_t idx = -2;
    if (e->kind == SL_EX_PSEUDO && e->u.pseudo.ps == SL_PS_ROWTS) {
        idx = 0;
    } else if (e->kind == SL_EX_PSEUDO || e->kind == SL_EX_PLACEHOLDER) {
        return sl_error_set(err, SL_EINVAL, e->pos.line, e->pos.col,
                            "PRE_FILTER may only read the trigger table's columns, tags and "
                            "tbname");
    } else if (e->kind == SL_EX_COLUMN) {
        const char *name = e->u.column.name;
        for (int i = 0; i < f->cf_ncols + f->cf_ntags && idx == -2; i++)
            if (strcasecmp(f->cf_fields[i].name, name) == 0)
                idx = i;
        if (idx == -2 && strcasecmp(name, "tbname") == 0)
            idx = SL_PROJ_TBNAME;
        if (idx == -2)
            return sl_error_set(err, SL_ENOTFOUND, e->pos.line, e->pos.col,
                                "unknown column '%s' in table '%s'", name, f->cf_tname);
    } else {
        return 0;
    }
    int k = need_add(f, idx);
    if (k < 0)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    b->kind = SL_BIND_COLUMN;
    b->index = k;
    field_of(f, idx, &b->type, &b->width);
    return 0;
}

/* Rewrites a parser message "L:C: text" of "SELECT <filter>" to a position in the filter. */
static int pf_parse_error(sl_error *err, int rc, size_t prefix)
{
    if (err == NULL)
        return rc;
    const char *msg = err->msg;
    const char *sep = strstr(msg, ": ");
    char text[sizeof(err->msg)];
    snprintf(text, sizeof(text), "%s", sep != NULL ? sep + 2 : msg);
    int line = err->line, col = err->col;
    if (line == 1 && col > (int)prefix)
        col -= (int)prefix;
    return sl_error_reset(err, rc, line, col, "PRE_FILTER %d:%d: %s", line, col, text);
}

static int64_t now_in(sl_precision p)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t per = sl_precision_per_sec(p);
    return (int64_t)ts.tv_sec * per + (int64_t)ts.tv_nsec / (1000000000 / per);
}

/* Parses and compiles the PRE_FILTER text: "SELECT <text>" must be one bare select item. */
static int pf_compile(sl_vs_cfilter *f, const char *text, size_t len, sl_error *err)
{
    static const char pre[] = "SELECT ";
    const size_t np = sizeof(pre) - 1;
    char *sql = malloc(np + len + 1);
    if (sql == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    memcpy(sql, pre, np);
    memcpy(sql + np, text, len);
    sql[np + len] = '\0';
    sl_parse_result *pr = NULL;
    int rc = sl_parse(sql, np + len, &pr, err);
    free(sql);
    if (rc < 0)
        return pf_parse_error(err, rc, np);
    const sl_select *s = pr->nstmts == 1 && pr->stmts[0]->kind == SL_STMT_SELECT
                             ? pr->stmts[0]->u.select
                             : NULL;
    if (s == NULL || s->nitems != 1 || s->items[0].alias != NULL || s->distinct ||
        s->from != NULL || s->where != NULL || s->partition_by.n != 0 || s->group_by.n != 0 ||
        s->has_interval || s->has_sliding || s->fill != SL_FILL_NONE_GIVEN ||
        s->having != NULL || s->norder != 0 || s->has_limit || s->has_offset ||
        s->items[0].expr->kind == SL_EX_STAR) {
        sl_parse_result_free(pr);
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "PRE_FILTER must be a single boolean expression");
    }
    sl_binder b = {.bind = pf_bind, .ud = f, .precision = f->cf_prec, .now = now_in(f->cf_prec)};
    rc = sl_cexpr_compile(s->items[0].expr, &b, &f->cf_expr, err);
    sl_parse_result_free(pr);
    if (rc < 0 && err != NULL) {
        /* Positions from the compiler are in "SELECT <text>" too. */
        char text2[sizeof(err->msg)];
        snprintf(text2, sizeof(text2), "%s", err->msg);
        int col = err->line == 1 && err->col > (int)np ? err->col - (int)np : err->col;
        if (err->line > 0)
            sl_error_reset(err, rc, err->line, col, "PRE_FILTER %d:%d: %s", err->line, col,
                           text2);
        else
            sl_error_reset(err, rc, 0, 0, "PRE_FILTER: %s", text2);
    }
    if (rc < 0)
        return rc;
    if (sl_cexpr_type(f->cf_expr) != SL_T_BOOL)
        return sl_error_set(err, SL_EINVAL, 0, 0, "PRE_FILTER must be a boolean condition");
    return 0;
}

static bool proj_ok(const sl_vs_cfilter *f, int32_t idx)
{
    return idx == SL_PROJ_TBNAME || (idx >= 0 && idx < f->cf_ncols + f->cf_ntags);
}

int sl_vs_cfilter_compile(const sl_vs_filter_spec *spec, const sl_table_meta *table,
                          sl_vs_cfilter **out, sl_error *err)
{
    *out = NULL;
    if (spec->ngroup > SL_VS_FILTER_MAX_GROUP || spec->nslots > SL_VS_FILTER_MAX_SLOTS ||
        spec->nproj > SL_VS_FILTER_MAX_PROJ || spec->pre_filter_len > SL_VS_FILTER_MAX_TEXT)
        return sl_error_set(err, SL_ELIMIT, 0, 0,
                            "change filter past a bound (group items <= %u, slots <= %u, "
                            "projection <= %u, PRE_FILTER <= %u bytes)",
                            SL_VS_FILTER_MAX_GROUP, SL_VS_FILTER_MAX_SLOTS,
                            SL_VS_FILTER_MAX_PROJ, SL_VS_FILTER_MAX_TEXT);
    if (spec->slots_len != (spec->nslots + 7u) / 8u)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "slot bitmap of %zu bytes for %u slots (needs %u)", spec->slots_len,
                            spec->nslots, (spec->nslots + 7u) / 8u);
    if (table->ncols < 1 || table->ntags < 0 || (table->kind == SL_TABLE_NORMAL && table->ntags))
        return sl_error_set(err, SL_EINVAL, 0, 0, "bad trigger table schema");
    sl_vs_cfilter *f = calloc(1, sizeof(*f));
    if (f == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    int rc = 0;
    f->cf_uid = spec->table_uid;
    f->cf_super = table->kind == SL_TABLE_SUPER;
    f->cf_ncols = table->ncols;
    f->cf_ntags = table->ntags;
    f->cf_prec = table->precision;
    f->cf_tname = table->name != NULL ? table->name : "?";
    f->cf_fields = calloc((size_t)(table->ncols + table->ntags), sizeof(*f->cf_fields));
    f->cf_group = calloc(spec->ngroup + 1, sizeof(*f->cf_group));
    f->cf_slots = calloc(spec->slots_len + 1, 1);
    f->cf_nproj = spec->nproj ? spec->nproj : (uint32_t)table->ncols;
    f->cf_proj = calloc(f->cf_nproj, sizeof(*f->cf_proj));
    if (f->cf_fields == NULL || f->cf_group == NULL || f->cf_slots == NULL ||
        f->cf_proj == NULL) {
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        goto fail;
    }
    for (int i = 0; i < table->ncols + table->ntags; i++) {
        const sl_field *src = i < table->ncols ? &table->cols[i] : &table->tags[i - table->ncols];
        f->cf_fields[i] = *src;
        f->cf_fields[i].name = strdup(src->name);
        if (f->cf_fields[i].name == NULL) {
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
            goto fail;
        }
    }
    for (uint32_t i = 0; i < spec->ngroup; i++) {
        int32_t g = spec->group[i];
        if (g != SL_VS_GROUP_TBNAME && (g < 0 || g >= table->ntags)) {
            rc = sl_error_set(err, SL_EINVAL, 0, 0,
                              "group item %u: %d is neither tbname (-1) nor a tag index of "
                              "'%s' (%d tags)",
                              i, (int)g, f->cf_tname, table->ntags);
            goto fail;
        }
        f->cf_group[i] = g;
    }
    f->cf_ngroup = spec->ngroup;
    f->cf_rollup = spec->rollup;
    if (spec->rollup) {
        int32_t g = spec->ngroup == 1 ? spec->group[0] : SL_VS_GROUP_TBNAME;
        if (!f->cf_super || g < 0 ||
            (table->tags[g].type != SL_T_VARCHAR && table->tags[g].type != SL_T_NCHAR)) {
            rc = sl_error_set(err, SL_EINVAL, 0, 0,
                              "a rollup filter groups by one VARCHAR or NCHAR tag of a super "
                              "table ('%s')",
                              f->cf_tname);
            goto fail;
        }
    }
    /* The memo key: the grouping's items, hashed (count included). */
    {
        int32_t tmp[SL_VS_FILTER_MAX_GROUP + 1];
        tmp[0] = (int32_t)spec->ngroup;
        memcpy(tmp + 1, f->cf_group, spec->ngroup * sizeof(int32_t));
        f->cf_sig = sl_hash_bytes(tmp, (spec->ngroup + 1) * sizeof(int32_t));
    }
    f->cf_nslots = spec->nslots;
    if (spec->slots_len)
        memcpy(f->cf_slots, spec->slots, spec->slots_len);
    if (spec->rollup) {
        /* "Passes the slots" depends on the slots too: one key per (grouping, slots). */
        sl_buf k;
        sl_buf_init(&k);
        if (sl_buf_put_u64(&k, f->cf_sig) < 0 || sl_buf_put_u32(&k, f->cf_nslots) < 0 ||
            sl_buf_put(&k, f->cf_slots, spec->slots_len) < 0) {
            sl_buf_fini(&k);
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
            goto fail;
        }
        f->cf_sig_own = sl_hash_bytes(k.data, k.len) ^ 0x726f6c6c7570ull; /* "rollup" */
        sl_buf_fini(&k);
    }
    for (uint32_t i = 0; i < f->cf_nproj; i++) {
        int32_t p = spec->nproj ? spec->proj[i] : (int32_t)i;
        if (!proj_ok(f, p)) {
            rc = sl_error_set(err, SL_EINVAL, 0, 0,
                              "projection entry %u: %d is not a column (0..%d), tag (%d..%d) "
                              "or tbname (-1) of '%s'",
                              i, (int)p, table->ncols - 1, table->ncols,
                              table->ncols + table->ntags - 1, f->cf_tname);
            goto fail;
        }
        f->cf_proj[i] = p;
    }
    if (spec->pre_filter != NULL && spec->pre_filter_len > 0 &&
        (rc = pf_compile(f, spec->pre_filter, spec->pre_filter_len, err)) < 0)
        goto fail;
    f->cf_tname = NULL; /* borrowed from the caller for messages only */
    *out = f;
    return 0;
fail:
    sl_vs_cfilter_free(f);
    return rc;
}

static bool memo_get(const tc_entry *e, uint64_t sig, uint64_t *val)
{
    for (int i = 0; i < e->nmemo; i++)
        if (e->memo[i].sig == sig) {
            *val = e->memo[i].gid;
            return true;
        }
    return false;
}

static void memo_put(tc_entry *e, uint64_t sig, uint64_t val)
{
    int k = e->nmemo < TC_MEMO ? e->nmemo++ : e->memo_next++ % TC_MEMO;
    e->memo[k].sig = sig;
    e->memo[k].gid = val;
}

/* The group id of e under f's grouping, memoised in e. */
static uint64_t entry_gid(const sl_vs_cfilter *f, tc_entry *e)
{
    uint64_t memo;
    if (memo_get(e, f->cf_sig, &memo))
        return memo;
    sl_value keys[SL_VS_FILTER_MAX_GROUP];
    for (uint32_t i = 0; i < f->cf_ngroup; i++) {
        int32_t g = f->cf_group[i];
        if (g == SL_VS_GROUP_TBNAME)
            keys[i] = sl_value_str(SL_T_VARCHAR, e->name, (uint32_t)strlen(e->name));
        else if ((uint32_t)g < e->tags.ncols)
            sl_column_get(&e->tags.cols[g], 0, &keys[i]);
        else
            keys[i] = sl_value_null(SL_T_NULL); /* a normal table has no tags */
    }
    uint64_t gid = sl_group_id(keys, (int)f->cf_ngroup);
    memo_put(e, f->cf_sig, gid);
    return gid;
}

int sl_vs_cfilter_group_id(sl_vs_cfilter *f, sl_vs_tcache *tc, uint64_t uid, uint64_t *gid)
{
    tc_entry *e = tc_get(tc, uid);
    if (e == NULL)
        return SL_ENOMEM;
    if (!e->known)
        return SL_ENOTFOUND;
    *gid = entry_gid(f, e);
    return 0;
}

/* Is e one of the trigger table's tables? */
static bool member(const sl_vs_cfilter *f, const tc_entry *e)
{
    return f->cf_super ? e->kind == SL_VS_TABLE_CHILD && e->suid == f->cf_uid
                       : e->uid == f->cf_uid;
}

static bool slot_owned(const sl_vs_cfilter *f, uint64_t gid)
{
    if (f->cf_nslots == 0)
        return true;
    uint64_t s = gid % f->cf_nslots;
    return (f->cf_slots[s / 8] >> (s % 8)) & 1;
}

/* Whether some prefix group of e's path is in f's slots (rollup filters), memoised in e.
 * NULL or empty: no group. An invalid path: the group of the whole value, so that exactly
 * one reader gets the table and reports the path. */
static bool rollup_owned(const sl_vs_cfilter *f, tc_entry *e)
{
    uint64_t memo;
    if (memo_get(e, f->cf_sig_own, &memo))
        return memo != 0;
    bool own = false;
    uint32_t g = (uint32_t)f->cf_group[0];
    sl_value v = sl_value_null(SL_T_VARCHAR);
    if (g < e->tags.ncols)
        sl_column_get(&e->tags.cols[g], 0, &v);
    if (!v.is_null && sl_type_is_var(v.type)) {
        uint32_t ends[SL_ROLLUP_MAX_DEPTH];
        int np = sl_rollup_prefixes(v.v.s.ptr, v.v.s.len, ends, NULL);
        if (np < 0)
            own = slot_owned(f, entry_gid(f, e));
        for (int i = 0; i < np && !own; i++)
            own = slot_owned(f, sl_rollup_group_id(v.type, v.v.s.ptr, ends[i]));
    }
    memo_put(e, f->cf_sig_own, own);
    return own;
}

static int hook_keep(void *ud, uint64_t uid, sl_vs_change_kind kind, sl_error *err)
{
    sl_vs_cfilter *f = ud;
    tc_entry *e = tc_get(f->cf_tc, uid);
    if (e == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory filtering changes");
    if (!e->known)
        return kind == SL_VS_CHANGE_DROP_TABLE; /* metadata lost: every reader sees it */
    if (!member(f, e))
        return 0;
    return f->cf_rollup ? rollup_owned(f, e) : slot_owned(f, entry_gid(f, e));
}

/* ---------------------------------------------------------------- reading */

void sl_vs_fchanges_fini(sl_vs_fchanges *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].name);
        sl_block_fini(&c->v[i].rows);
    }
    free(c->v);
    memset(c, 0, sizeof(*c));
}

/* Sets col to the constant of table field idx (tag or tbname) for e, nrows rows. */
static int const_field(const sl_vs_cfilter *f, const tc_entry *e, int32_t idx, sl_column *col,
                       uint32_t nrows)
{
    sl_value v;
    if (idx == SL_PROJ_TBNAME) {
        v = sl_value_str(SL_T_VARCHAR, e->name, (uint32_t)strlen(e->name));
    } else {
        uint32_t t = (uint32_t)(idx - f->cf_ncols);
        if (t < e->tags.ncols)
            sl_column_get(&e->tags.cols[t], 0, &v);
        else
            v = sl_value_null(f->cf_fields[idx].type);
        if (v.is_null)
            v.type = f->cf_fields[idx].type;
    }
    return sl_column_set_const(col, &v, nrows);
}

/* Evaluates the PRE_FILTER over c's rows; *nsel rows of sel pass. */
static int pre_filter(sl_vs_cfilter *f, const tc_entry *e, const sl_vs_change *c, uint32_t *sel,
                      uint32_t *nsel, sl_error *err)
{
    sl_block eb;
    sl_block_init(&eb);
    int rc = 0;
    uint32_t n = c->rows.nrows;
    for (int i = 0; rc >= 0 && i < f->cf_nneed; i++) {
        int32_t idx = f->cf_need[i];
        sl_type t;
        uint32_t w;
        field_of(f, idx, &t, &w);
        rc = sl_block_add_column(&eb, t, w);
        if (rc < 0)
            break;
        if (idx >= 0 && idx < f->cf_ncols)
            rc = sl_column_borrow(&eb.cols[rc], &c->rows.cols[idx], 0, n);
        else
            rc = const_field(f, e, idx, &eb.cols[rc], n);
    }
    if (rc >= 0) {
        eb.nrows = n;
        rc = sl_cexpr_select(f->cf_expr, &eb, sel, nsel, err);
    }
    sl_block_fini(&eb);
    return rc < 0 ? rc : 0;
}

/* Builds the projected block of c's rows sel[0..nsel) (sel NULL: all) into out. */
static int project(const sl_vs_cfilter *f, const tc_entry *e, const sl_vs_change *c,
                   const uint32_t *sel, uint32_t nsel, sl_block *out)
{
    int rc = 0;
    for (uint32_t i = 0; rc >= 0 && i < f->cf_nproj; i++) {
        int32_t idx = f->cf_proj[i];
        sl_type t;
        uint32_t w;
        field_of(f, idx, &t, &w);
        bool data = idx >= 0 && idx < f->cf_ncols;
        /* Data columns keep the stored type and width (the table's). */
        rc = data ? sl_block_add_column(out, c->rows.cols[idx].type, c->rows.cols[idx].width)
                  : sl_block_add_column(out, t, w);
        if (rc < 0)
            break;
        if (data) {
            rc = sl_column_append_rows(&out->cols[rc], &c->rows.cols[idx], sel, 0, nsel);
        } else {
            rc = const_field(f, e, idx, &out->cols[rc], nsel);
        }
    }
    if (rc >= 0)
        rc = sl_block_add_column(out, SL_T_TINYINT, 0);
    for (uint32_t r = 0; rc >= 0 && r < nsel; r++) {
        uint32_t row = sel != NULL ? sel[r] : r;
        rc = sl_column_append_i64(&out->cols[out->ncols - 1],
                                  c->row_kinds[row] == SL_VS_ROW_UPDATE ? 2 : 1);
    }
    if (rc < 0)
        return rc;
    sl_block_seal(out);
    return 0;
}

int sl_vs_changes_read_filtered(sl_vstore *vs, sl_vs_tcache *tc, sl_vs_cfilter *f,
                                uint64_t after, size_t max_bytes, size_t max_entries,
                                size_t max_scan, sl_vs_fchanges *out, sl_error *err)
{
    memset(out, 0, sizeof(*out));
    out->last_version = after;
    tc_purge(tc);
    f->cf_tc = tc;
    sl_vs_changes_hook hook = {.keep = hook_keep, .ud = f, .max_scan = max_scan};
    sl_vs_changes raw;
    int rc = sl_vstore_changes_read_hook(vs, after, max_bytes, max_entries, &hook, &raw, err);
    f->cf_tc = NULL;
    if (rc < 0)
        return rc;
    uint32_t *sel = NULL;
    out->v = calloc(raw.n + 1, sizeof(*out->v));
    if (out->v == NULL) {
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory filtering changes");
        goto done;
    }
    for (size_t i = 0; i < raw.n; i++) {
        const sl_vs_change *c = &raw.v[i];
        tc_entry *e = tc_get(tc, c->uid);
        if (e == NULL) {
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory filtering changes");
            goto done;
        }
        sl_vs_fchange *o = &out->v[out->n];
        memset(o, 0, sizeof(*o));
        sl_block_init(&o->rows);
        o->version = c->version;
        o->uid = c->uid;
        o->kind = c->kind;
        o->name = strdup(e->known ? e->name : "");
        out->n++; /* counted now so that fini frees it */
        if (o->name == NULL) {
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory filtering changes");
            goto done;
        }
        o->group_id = e->known ? entry_gid(f, e) : 0;
        if (c->kind == SL_VS_CHANGE_DELETE) {
            o->del_lo = c->del_lo;
            o->del_hi = c->del_hi;
            o->count = c->del_count;
        }
        if (c->kind != SL_VS_CHANGE_ROWS)
            continue;
        if (c->rows.ncols != (uint32_t)f->cf_ncols) {
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0,
                              "change of version %llu (table %llu) has %u columns, the trigger "
                              "table %d",
                              (unsigned long long)c->version, (unsigned long long)c->uid,
                              c->rows.ncols, f->cf_ncols);
            goto done;
        }
        uint32_t nsel = c->rows.nrows;
        const uint32_t *use = NULL;
        if (f->cf_expr != NULL) {
            free(sel);
            sel = malloc(((size_t)c->rows.nrows + 1) * sizeof(*sel));
            if (sel == NULL) {
                rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory filtering changes");
                goto done;
            }
            sl_error perr;
            sl_error_clear(&perr);
            if (pre_filter(f, e, c, sel, &nsel, &perr) == 0) {
                use = sel;
            } else {
                /* A row the condition cannot be evaluated on: keep them all (a superset;
                 * the snode's trigger applies PRE_FILTER again and reports it). */
                nsel = c->rows.nrows;
                o->unfiltered = true;
            }
        }
        if (nsel == 0) { /* every row filtered out: the version is consumed all the same */
            free(o->name);
            sl_block_fini(&o->rows);
            out->n--;
            continue;
        }
        if ((rc = project(f, e, c, use, nsel, &o->rows)) < 0) {
            rc = sl_error_set(err, rc, 0, 0, "cannot project changes: %s", sl_strerror(rc));
            goto done;
        }
        o->count = nsel;
    }
    out->last_version = raw.last_version;
    out->more = raw.more;
done:
    free(sel);
    sl_vs_changes_fini(&raw);
    if (rc < 0)
        sl_vs_fchanges_fini(out);
    return rc < 0 ? rc : 0;
}
