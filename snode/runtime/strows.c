/*
 * strows.c - FROM %%trows served from the rows the task already read (docs/streams.md,
 * "Where a computation runs").
 *
 * The reader receives every column of every trigger row (stask.c), so a computation that
 * reads nothing but %%trows needs no query to the vnodes: it can run here, over the rows
 * of the group the task keeps, through the same planner and executor (FULL mode). This
 * file keeps those rows and tells when they are enough.
 *
 * What is kept: per group whose rows all come from one table (PARTITION BY tbname, or a
 * child or normal trigger table), its rows, newest version of each timestamp, ascending,
 * with the table's tags and tbname once. The invariant that makes a local answer equal the
 * vnodes' is:
 *
 *   every row the table stores at ts >= cover_lo, as of the change-log position the task
 *   has fed, is in the buffer, with its newest values.
 *
 * It holds because the change log has every write, update and delete in order and full
 * rows (an update replaces the row), and because cover_lo starts past everything stored
 * before the task's first position: setup asks the vnodes for MAX(ts) of the trigger
 * table after the positions are fixed, and a group's cover starts above it (rows written
 * since are in the log the task reads). cover_lo only grows: when rows are dropped (a
 * closed window's, a group over its share of memory) it moves above them. An event whose
 * rows start below cover_lo, or any surprise (an INSERT at a timestamp the buffer has,
 * which a composite key allows; rows out of order; a layout change), goes to the vnodes as
 * before - a surprise also turns the local path off for the rest of the task's life.
 *
 * Not with PRE_FILTER: the vnodes filter the change log with it (stask.c), so an update
 * that makes a row fail the filter never reaches the snode, and the kept row would be stale.
 *
 * Memory: a closed window's computation drops the rows before its start (later windows
 * start later; an ON_TIME's range likewise), a group keeps at most RB_GROUP_ROWS rows, and the task at most RB_BUDGET
 * bytes; past that, whole groups are dropped round robin. A group costs 24 bytes plus its
 * rows while it has any.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/log.h"
#include "common/util/ts_bound.h"
#include "snode/trigger/trigger.h"
#include "stask_int.h"

#define RB_BUDGET ((size_t)64 << 20) /* bytes of rows per task */
#define RB_GROUP_ROWS (1u << 16)      /* rows per group */

/* The rows of one group. */
typedef struct rb_rows {
    sl_block rows;   /* the table's columns: ascending, unique timestamps >= cover_lo */
    sl_block consts; /* one row: the tags, then tbname (no columns before the first row) */
    size_t mem;      /* bytes counted in st_rows.mem */
} rb_rows;

/* One group: its cover and its rows (NULL while it has none). */
typedef struct rb_group {
    int64_t cover_lo;
    int64_t seen_hi; /* newest timestamp fed (INT64_MIN: none) */
    rb_rows *r;
} rb_group;

struct st_rows {
    bool on;          /* computations may run here */
    bool need_rows;   /* the query reads %%trows (a query without FROM needs none) */
    int ncols, ntags;
    int64_t base_lo;  /* cover_lo of a group seen for the first time */
    sl_keymap map;    /* group id -> index in g */
    rb_group *g;
    size_t ng, capg;
    size_t mem;
    size_t clock;     /* next group the budget evicts */
    uint32_t *sel;    /* scratch: the rows of a block at or above the cover */
    uint32_t scratch;
    /* the event being computed (scan source) */
    const rb_group *cur;
    int64_t cur_lo, cur_hi;
};

/* ---------------------------------------------------------------- eligibility */

/* Whether every FROM of q, at any depth, is %%trows (or absent); sets *rows when one is. */
static bool only_trows(const sl_select *q, bool *rows)
{
    if (q->from == NULL)
        return true;
    switch (q->from->kind) {
    case SL_FROM_TROWS: *rows = true; return true;
    case SL_FROM_SUBQUERY: return only_trows(q->from->subquery, rows);
    default: return false;
    }
}

/* Whether each group's rows come from one table. */
static bool one_table_groups(const sl_stask *t)
{
    if (!t->has_table || t->rollup)
        return false;
    if (t->trig.meta.kind != SL_TABLE_SUPER)
        return true;
    for (int k = 0; k < t->nkeys; k++)
        if (t->keys[k] < 0)
            return true;
    return false;
}

/* MAX(ts) of the trigger table now, into *out (INT64_MIN: no rows). */
static int stored_max(sl_stask *t, int64_t *out, sl_error *err)
{
    sl_buf q;
    sl_buf_init(&q);
    int rc = sl_buf_printf(&q, "SELECT MAX(");
    if (rc == 0)
        rc = sl__st_put_ident(&q, t->trig.meta.cols[0].name);
    if (rc == 0)
        rc = sl_buf_printf(&q, ") FROM ");
    if (rc == 0)
        rc = sl__st_put_ident(&q, t->trig_db);
    if (rc == 0)
        rc = sl_buf_put(&q, ".", 1);
    if (rc == 0)
        rc = sl__st_put_ident(&q, t->trig_name);
    bool null = false;
    if (rc == 0)
        rc = sl__st_query_i64(t, &q, out, &null, "MAX(ts)", err);
    else
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    sl_buf_fini(&q);
    if (rc == 0 && null)
        *out = INT64_MIN;
    return rc;
}

void sl__st_rows_free(sl_stask *t)
{
    st_rows *s = t->rows;
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->ng; i++) {
        if (s->g[i].r != NULL) {
            sl_block_fini(&s->g[i].r->rows);
            sl_block_fini(&s->g[i].r->consts);
            free(s->g[i].r);
        }
    }
    free(s->g);
    free(s->sel);
    sl_keymap_fini(&s->map);
    free(s);
    t->rows = NULL;
}

void sl__st_rows_setup(sl_stask *t)
{
    sl__st_rows_free(t);
    bool rows = false;
    if (t->cs->query == NULL || !only_trows(t->cs->query, &rows))
        return;
    /* Not kept here: rows of groups over several tables, rows keyed by (ts, key), rows
     * the vnodes filter by PRE_FILTER (see the top). */
    if (rows && (!one_table_groups(t) || t->trig.composite_key || t->prefilter_sql != NULL))
        return;
    st_rows *s = calloc(1, sizeof(*s));
    if (s == NULL || sl_keymap_init(&s->map) < 0) {
        free(s);
        return; /* the vnodes answer every computation */
    }
    s->need_rows = rows;
    s->base_lo = INT64_MIN;
    if (rows) {
        s->ncols = t->trig.meta.ncols;
        s->ntags = t->trig.meta.ntags;
        int64_t m = INT64_MIN;
        sl_error err;
        sl_error_clear(&err);
        if (stored_max(t, &m, &err) < 0) {
            sl_keymap_fini(&s->map);
            free(s);
            return;
        }
        s->base_lo = m == INT64_MIN ? INT64_MIN : m + 1;
    }
    s->on = true;
    t->rows = s;
}

/* Turns the local path off for the rest of the task (a surprise, see the top). */
static void rows_off(sl_stask *t, const char *why)
{
    sl__st_rows_free(t);
    sl_log(SL_LOG_INFO, "snode", "stream %s.%s: %%%%trows from memory off: %s", t->c_db,
           t->c_name, why);
}

/* ---------------------------------------------------------------- groups */

/* The entry of group gid, made (cover base_lo, no rows) when absent; NULL without memory.
 * A group no row of which was fed in this task's life has none at or above base_lo. */
static rb_group *group_get(st_rows *s, uint64_t gid)
{
    uint32_t id;
    bool added = false;
    if (sl_keymap_get_or_add(&s->map, &gid, sizeof(gid), &id, &added) < 0)
        return NULL;
    if (added) {
        if (id >= s->capg) {
            size_t cap = s->capg ? s->capg * 2 : 64;
            rb_group *ng = realloc(s->g, cap * sizeof(*ng));
            if (ng == NULL)
                return NULL; /* the key stays: its entry is made on the next call */
            s->g = ng;
            s->capg = cap;
        }
        while (s->ng <= id)
            s->g[s->ng++] = (rb_group){.cover_lo = s->base_lo, .seen_hi = INT64_MIN};
    } else if (id >= s->ng) {
        return NULL;
    }
    return &s->g[id];
}

static size_t rows_mem(const rb_rows *r)
{
    size_t m = sizeof(*r);
    for (uint32_t i = 0; i < r->rows.ncols; i++)
        m += sl_column_mem(&r->rows.cols[i]);
    for (uint32_t i = 0; i < r->consts.ncols; i++)
        m += sl_column_mem(&r->consts.cols[i]);
    return m;
}

static void account(st_rows *s, rb_rows *r)
{
    size_t m = rows_mem(r);
    s->mem = s->mem - r->mem + m;
    r->mem = m;
}

/* Drops every row of g; its cover moves past the newest row fed. */
static void group_clear(st_rows *s, rb_group *g)
{
    if (g->r != NULL) {
        s->mem -= g->r->mem;
        sl_block_fini(&g->r->rows);
        sl_block_fini(&g->r->consts);
        free(g->r);
        g->r = NULL;
    }
    if (g->seen_hi != INT64_MIN && g->seen_hi + 1 > g->cover_lo)
        g->cover_lo = g->seen_hi + 1;
}

static const int64_t *ts_of(const sl_block *b)
{
    return (const int64_t *)b->cols[0].data;
}

/* Makes nb (built from r->rows and the change) r's rows when rc is 0; frees it otherwise.
 * Returns rc. */
static int replace_rows(rb_rows *r, sl_block *nb, int rc)
{
    if (rc < 0) {
        sl_block_fini(nb);
        return rc;
    }
    sl_block_seal(nb);
    sl_block_fini(&r->rows);
    r->rows = *nb;
    return 0;
}

/* Keeps rows [from, nrows) of r->rows, or none. 0 or SL_ENOMEM. */
static int keep_from(rb_rows *r, uint32_t from)
{
    if (from == 0)
        return 0;
    sl_block nb;
    sl_block_init(&nb);
    int rc = 0;
    for (uint32_t c = 0; rc == 0 && c < r->rows.ncols; c++) {
        rc = sl_block_add_column(&nb, r->rows.cols[c].type, r->rows.cols[c].width);
        if (rc >= 0 && from < r->rows.nrows)
            rc = sl_column_append_rows(&nb.cols[c], &r->rows.cols[c], NULL, from,
                                       r->rows.nrows - from);
        rc = rc < 0 ? rc : 0;
    }
    return replace_rows(r, &nb, rc);
}

/* Raises g's cover to lo, dropping the rows below it. */
static void group_raise(st_rows *s, rb_group *g, int64_t lo)
{
    if (lo <= g->cover_lo)
        return;
    g->cover_lo = lo;
    rb_rows *r = g->r;
    if (r == NULL || r->rows.nrows == 0)
        return;
    uint32_t from = sl_ts_lower_bound(ts_of(&r->rows), 0, r->rows.nrows, lo);
    if (from == 0)
        return;
    if (from >= r->rows.nrows || keep_from(r, from) < 0) {
        group_clear(s, g);
        if (g->cover_lo < lo)
            g->cover_lo = lo;
        return;
    }
    account(s, r);
}

/* Keeps the task under its budget: drops whole groups, round robin, down to 3/4 of it. */
static void budget(st_rows *s, const rb_group *keep)
{
    if (s->mem <= RB_BUDGET)
        return;
    for (size_t n = 0; n < s->ng && s->mem > RB_BUDGET / 4 * 3; n++) {
        rb_group *g = &s->g[s->clock];
        s->clock = (s->clock + 1) % s->ng;
        if (g != keep && g->r != NULL)
            group_clear(s, g);
    }
}

/* ---------------------------------------------------------------- feeding */

static int ensure_scratch(st_rows *s, uint32_t n)
{
    if (n <= s->scratch)
        return 0;
    uint32_t *sel = realloc(s->sel, (size_t)n * sizeof(*sel));
    if (sel == NULL)
        return SL_ENOMEM;
    s->sel = sel;
    s->scratch = n;
    return 0;
}

static bool layout_ok(const st_rows *s, const sl_stask *t, const sl_block *b)
{
    if ((int)b->ncols != s->ncols + s->ntags + 1)
        return false;
    for (int c = 0; c < s->ncols; c++)
        if (b->cols[c].type != t->trig.meta.cols[c].type)
            return false;
    return b->cols[0].type == SL_T_TIMESTAMP && !b->cols[0].is_const;
}

static int start_rows(rb_group *g, const sl_block *b, int ncols, uint32_t row)
{
    rb_rows *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return SL_ENOMEM;
    sl_block_init(&r->rows);
    sl_block_init(&r->consts);
    int rc = 0;
    for (uint32_t c = 0; rc == 0 && c < b->ncols; c++) {
        sl_block *dst = (int)c < ncols ? &r->rows : &r->consts;
        int k = sl_block_add_column(dst, b->cols[c].type, b->cols[c].width);
        rc = k < 0 ? k : 0;
        if (rc == 0 && (int)c >= ncols)
            rc = sl_column_append_rows(&dst->cols[k], &b->cols[c], &row, 0, 1);
    }
    if (rc < 0) {
        sl_block_fini(&r->rows);
        sl_block_fini(&r->consts);
        free(r);
        return rc;
    }
    sl_block_seal(&r->consts);
    g->r = r;
    return 0;
}

/* Appends row `row` of b (its first ncols columns) to dst. */
static int append_row(sl_block *dst, const sl_block *b, uint32_t row)
{
    for (uint32_t c = 0; c < dst->ncols; c++) {
        int rc = sl_column_append_rows(&dst->cols[c], &b->cols[c], &row, 0, 1);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/*
 * Merges rows sel[0..n) of b (ascending timestamps >= cover_lo; kinds says which were
 * updates) into r->rows. Returns 0, SL_ENOMEM, or SL_ESTATE on a surprise (an INSERT at a
 * timestamp the buffer has, an UPDATE of one it lacks).
 */
static int merge_rows(rb_rows *r, const sl_block *b, const uint32_t *sel, uint32_t n,
                      const uint8_t *kinds)
{
    sl_block nb;
    sl_block_init(&nb);
    int rc = 0;
    for (uint32_t c = 0; rc == 0 && c < r->rows.ncols; c++) {
        int k = sl_block_add_column(&nb, r->rows.cols[c].type, r->rows.cols[c].width);
        rc = k < 0 ? k : 0;
    }
    const int64_t *old = r->rows.nrows ? ts_of(&r->rows) : NULL;
    const sl_column *tc = &b->cols[0];
    uint32_t i = 0, j = 0, on = r->rows.nrows;
    while (rc == 0 && (i < on || j < n)) {
        int64_t bt = j < n ? sl_column_get_i64(tc, sel[j]) : INT64_MAX;
        if (i < on && (j >= n || old[i] < bt)) {
            rc = append_row(&nb, &r->rows, i++);
            continue;
        }
        uint32_t row = sel[j++];
        bool update = kinds != NULL && kinds[row] == SL_TRIG_ROW_UPDATE;
        bool have = i < on && old[i] == bt;
        if (have != update) {
            rc = SL_ESTATE;
            break;
        }
        if (have)
            i++;
        rc = append_row(&nb, b, row);
    }
    return replace_rows(r, &nb, rc);
}

void sl__st_rows_add(sl_stask *t, uint64_t gid, const sl_block *b, const uint8_t *kinds)
{
    st_rows *s = t->rows;
    if (s == NULL || !s->need_rows || b->nrows == 0)
        return;
    if (!layout_ok(s, t, b)) {
        rows_off(t, "the change rows do not have the table's layout");
        return;
    }
    rb_group *g = group_get(s, gid);
    if (g == NULL) {
        rows_off(t, "out of memory");
        return;
    }
    uint32_t nrows = b->nrows;
    if (ensure_scratch(s, nrows) < 0) {
        rows_off(t, "out of memory");
        return;
    }
    /* The rows at or above the cover, in order. */
    const sl_column *tc = &b->cols[0];
    uint32_t n = 0;
    int64_t prev = INT64_MIN;
    bool ordered = true, appends = true;
    int64_t last = g->r != NULL && g->r->rows.nrows > 0
                       ? ts_of(&g->r->rows)[g->r->rows.nrows - 1]
                       : INT64_MIN;
    for (uint32_t r = 0; r < nrows; r++) {
        int64_t ts = sl_column_get_i64(tc, r);
        if (r > 0 && ts <= prev)
            ordered = false;
        prev = ts;
        if (ts > g->seen_hi)
            g->seen_hi = ts;
        if (ts < g->cover_lo)
            continue;
        s->sel[n++] = r;
        if (ts <= last || (kinds != NULL && kinds[r] == SL_TRIG_ROW_UPDATE))
            appends = false;
    }
    if (!ordered) {
        rows_off(t, "change rows out of timestamp order");
        return;
    }
    if (n == 0)
        return;
    int rc = g->r == NULL ? start_rows(g, b, s->ncols, s->sel[0]) : 0;
    if (rc == 0 && appends) {
        /* The common case: new rows after the newest kept, appended column by column. */
        sl_block *dst = &g->r->rows;
        for (uint32_t c = 0; rc == 0 && c < dst->ncols; c++)
            rc = sl_column_append_rows(&dst->cols[c], &b->cols[c], s->sel, 0, n);
        if (rc == 0)
            sl_block_seal(dst);
    } else if (rc == 0) {
        rc = merge_rows(g->r, b, s->sel, n, kinds);
    }
    if (rc == SL_ESTATE) {
        rows_off(t, "a change that does not match the rows kept");
        return;
    }
    if (rc < 0) {
        rows_off(t, "out of memory");
        return;
    }
    rb_rows *r = g->r;
    if (r->rows.nrows > RB_GROUP_ROWS)
        group_raise(s, g, ts_of(&r->rows)[r->rows.nrows - RB_GROUP_ROWS / 2]);
    if (g->r != NULL)
        account(s, g->r);
    budget(s, g);
}

void sl__st_rows_delete(sl_stask *t, uint64_t gid, int64_t lo, int64_t hi)
{
    st_rows *s = t->rows;
    if (s == NULL || !s->need_rows)
        return;
    rb_group *g = group_get(s, gid);
    if (g == NULL) {
        rows_off(t, "out of memory");
        return;
    }
    rb_rows *r = g->r;
    if (r == NULL || r->rows.nrows == 0 || lo > hi)
        return;
    const int64_t *ts = ts_of(&r->rows);
    uint32_t a = sl_ts_lower_bound(ts, 0, r->rows.nrows, lo);
    uint32_t z = sl_ts_upper_bound(ts, 0, r->rows.nrows, hi);
    if (a >= z)
        return;
    sl_block nb;
    sl_block_init(&nb);
    int rc = 0;
    for (uint32_t c = 0; rc == 0 && c < r->rows.ncols; c++) {
        const sl_column *src = &r->rows.cols[c];
        int k = sl_block_add_column(&nb, src->type, src->width);
        rc = k < 0 ? k : 0;
        if (rc == 0 && a > 0)
            rc = sl_column_append_rows(&nb.cols[k], src, NULL, 0, a);
        if (rc == 0 && z < r->rows.nrows)
            rc = sl_column_append_rows(&nb.cols[k], src, NULL, z, r->rows.nrows - z);
    }
    if (replace_rows(r, &nb, rc) < 0) {
        group_clear(s, g);
        return;
    }
    account(s, r);
}

void sl__st_rows_dropped(sl_stask *t, uint64_t gid)
{
    st_rows *s = t->rows;
    if (s == NULL || !s->need_rows)
        return;
    rb_group *g = group_get(s, gid);
    if (g != NULL)
        group_clear(s, g);
}

/* ---------------------------------------------------------------- computing */

bool sl__st_rows_ready(sl_stask *t, const sl_trig_event *ev)
{
    st_rows *s = t->rows;
    if (s == NULL || !s->on)
        return false;
    s->cur = NULL;
    if (!s->need_rows)
        return true;
    if (ev->rows_lo > ev->rows_hi)
        return false;
    rb_group *g = group_get(s, ev->group_id);
    if (g == NULL || ev->rows_lo < g->cover_lo)
        return false;
    s->cur = g;
    s->cur_lo = ev->rows_lo;
    s->cur_hi = ev->rows_hi;
    return true;
}

void sl__st_rows_done(sl_stask *t, const sl_trig_event *ev)
{
    st_rows *s = t->rows;
    bool closed = ev->type == SL_TRIG_EV_WINDOW_CLOSE && ev->window_index < 0;
    if (s == NULL || !s->need_rows || !(closed || ev->type == SL_TRIG_EV_ON_TIME) ||
        ev->rows_lo > ev->rows_hi)
        return;
    rb_group *g = group_get(s, ev->group_id);
    if (g != NULL)
        group_raise(s, g, ev->rows_lo);
}

/* The scan of %%trows: the current group's rows in the event's range. */
typedef struct rb_scan {
    const rb_rows *r;
    int ncols;
    int nproj;
    int *proj;
    const sl_table_meta *meta;
    uint32_t pos, end;
} rb_scan;

static int cat_get_table(void *ud, const char *db, const char *name, sl_table_meta *out,
                         sl_error *err)
{
    (void)ud;
    (void)out;
    return sl_error_set(err, SL_ENOTFOUND, 0, 0, "table %s%s%s is not read here",
                        db ? db : "", db ? "." : "", name ? name : "");
}

static int cat_scan_open(void *ud, const sl_scan_req *req, void **cursor, sl_error *err)
{
    st_rows *s = ud;
    rb_scan *sc = calloc(1, sizeof(*sc));
    if (sc == NULL || (sc->proj = malloc((size_t)(req->nproj ? req->nproj : 1) *
                                         sizeof(int))) == NULL) {
        free(sc);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    memcpy(sc->proj, req->proj, (size_t)req->nproj * sizeof(int));
    sc->nproj = req->nproj;
    sc->ncols = s->ncols;
    sc->meta = req->table;
    sc->r = s->cur != NULL ? s->cur->r : NULL;
    if (sc->r != NULL && sc->r->rows.nrows > 0) {
        int64_t lo = req->ts_lo > s->cur_lo ? req->ts_lo : s->cur_lo;
        int64_t hi = req->ts_hi < s->cur_hi ? req->ts_hi : s->cur_hi;
        const int64_t *ts = ts_of(&sc->r->rows);
        uint32_t n = sc->r->rows.nrows;
        if (lo <= hi) {
            sc->pos = sl_ts_lower_bound(ts, 0, n, lo);
            sc->end = sl_ts_upper_bound(ts, 0, n, hi);
        }
    }
    *cursor = sc;
    return 0;
}

static void proj_type(const rb_scan *sc, int p, sl_type *ty, uint32_t *w)
{
    if (p == SL_PROJ_TBNAME) {
        *ty = SL_T_VARCHAR;
        *w = 192;
    } else if (p < sc->ncols) {
        *ty = sc->meta->cols[p].type;
        *w = sc->meta->cols[p].width;
    } else {
        *ty = sc->meta->tags[p - sc->ncols].type;
        *w = sc->meta->tags[p - sc->ncols].width;
    }
}

static int cat_scan_next(void *cursor, sl_block *out, sl_error *err)
{
    rb_scan *sc = cursor;
    bool fits = (int)out->ncols == sc->nproj;
    for (int i = 0; fits && i < sc->nproj; i++) {
        sl_type ty;
        uint32_t w;
        proj_type(sc, sc->proj[i], &ty, &w);
        fits = out->cols[i].type == ty && out->cols[i].width == w;
    }
    if (fits) {
        sl_block_reset(out);
    } else {
        sl_block_fini(out);
        sl_block_init(out);
        for (int i = 0; i < sc->nproj; i++) {
            sl_type ty;
            uint32_t w;
            proj_type(sc, sc->proj[i], &ty, &w);
            if (sl_block_add_column(out, ty, w) < 0)
                return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
        }
    }
    if (sc->pos >= sc->end) {
        out->nrows = 0;
        return 0;
    }
    uint32_t n = sc->end - sc->pos;
    if (n > SL_BLOCK_ROWS_MAX)
        n = SL_BLOCK_ROWS_MAX;
    int rc = 0;
    for (int i = 0; rc == 0 && i < sc->nproj; i++) {
        int p = sc->proj[i];
        sl_column *c = &out->cols[i];
        if (p >= 0 && p < sc->ncols) {
            rc = sl_column_borrow(c, &sc->r->rows.cols[p], sc->pos, n);
        } else {
            /* tags, then tbname, are the constant row */
            int k = p == SL_PROJ_TBNAME ? (int)sc->r->consts.ncols - 1 : p - sc->ncols;
            sl_value v;
            sl_column_get(&sc->r->consts.cols[k], 0, &v);
            rc = sl_column_set_const(c, &v, n);
        }
    }
    if (rc < 0) {
        sl_block_reset(out);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    out->nrows = n;
    sc->pos += n;
    return 0;
}

static void cat_scan_close(void *cursor)
{
    rb_scan *sc = cursor;
    if (sc != NULL)
        free(sc->proj);
    free(sc);
}

static const sl_catalog_ops rows_catalog_ops = {
    .get_table = cat_get_table,
    .scan_open = cat_scan_open,
    .scan_next = cat_scan_next,
    .scan_close = cat_scan_close,
};

sl_catalog sl__st_rows_catalog(sl_stask *t)
{
    return (sl_catalog){.ops = &rows_catalog_ops, .ud = t->rows};
}

size_t sl__st_rows_mem(const sl_stask *t)
{
    return t->rows != NULL ? t->rows->mem : 0;
}
