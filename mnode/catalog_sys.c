/*
 * catalog_sys.c - what reads the mnode catalog: SHOW, DESCRIBE and SELECT over the
 * information_schema system tables (catalog.h).
 *
 * The system tables are views computed from the in-memory catalog when a scan opens: the
 * objects a table lists (databases, super tables, tables, child tables, vgroups, nodes)
 * are collected and sorted into a stable order, and each scan_next turns the next few
 * thousand of them into a block holding just the projected columns. The shared planner
 * reads them through the catalog's sl_catalog like any other table, so filters, GROUP BY,
 * ORDER BY and aggregates over them need no code here. SHOW DATABASES/STABLES/TABLES,
 * SHOW CREATE and DESCRIBE are the shared ones of common/exec/ddl.h; the administration
 * listings are rows of the system tables: SHOW DNODES/MNODES of ins_dnodes, SHOW SNODES of
 * ins_snodes, SHOW VNODES [ON DNODE n] and SHOW [db.]VGROUPS of ins_vgroups, SHOW STREAMS
 * of ins_streams, whose placement columns (snodes, tasks, max_lag_ms, error) summarise
 * what ins_stream_tasks lists per slot run. The load columns of ins_vgroups are each
 * vgroup's latest report from its vnode, and those of ins_dnodes a vnode's totals over
 * them (NULL for other kinds and before the first report); ins_dnodes also lists the mnode
 * itself as dnode 0 once the daemon named it (sl_mcatalog_set_self).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog_int.h"
#include "common/exec/plan.h"
#include "common/sql/parser.h"

/* ------------------------------------------------------------ the system tables */

enum {
    SYS_DATABASES,
    SYS_STABLES,
    SYS_TABLES,
    SYS_TAGS,
    SYS_VGROUPS,
    SYS_DNODES,
    SYS_STREAMS,
    SYS_SNODES,
    SYS_STREAM_TASKS,
    SYS_COUNT
};

#define ADDR_W SL_MCATALOG_ADDR_MAX

static const sl_field DATABASES_COLS[] = {
    {"name", SL_T_VARCHAR, SL_NAME_MAX}, {"create_time", SL_T_TIMESTAMP, 0},
    {"precision", SL_T_VARCHAR, 2},      {"vgroups", SL_T_INT, 0},
    {"ntables", SL_T_BIGINT, 0},         {"nstables", SL_T_BIGINT, 0},
};
static const sl_field STABLES_COLS[] = {
    {"stable_name", SL_T_VARCHAR, SL_TABLE_NAME_MAX},
    {"db_name", SL_T_VARCHAR, SL_NAME_MAX},
    {"create_time", SL_T_TIMESTAMP, 0},
    {"columns", SL_T_INT, 0},
    {"tags", SL_T_INT, 0},
    {"uid", SL_T_BIGINT, 0},
    {"tables", SL_T_BIGINT, 0},
};
static const sl_field TABLES_COLS[] = {
    {"table_name", SL_T_VARCHAR, SL_TABLE_NAME_MAX},
    {"db_name", SL_T_VARCHAR, SL_NAME_MAX},
    {"create_time", SL_T_TIMESTAMP, 0},
    {"columns", SL_T_INT, 0},
    {"stable_name", SL_T_VARCHAR, SL_TABLE_NAME_MAX},
    {"uid", SL_T_BIGINT, 0},
    {"vgroup_id", SL_T_INT, 0},
    {"type", SL_T_VARCHAR, 12},
};
static const sl_field TAGS_COLS[] = {
    {"table_name", SL_T_VARCHAR, SL_TABLE_NAME_MAX},
    {"db_name", SL_T_VARCHAR, SL_NAME_MAX},
    {"stable_name", SL_T_VARCHAR, SL_TABLE_NAME_MAX},
    {"tag_name", SL_T_VARCHAR, SL_NAME_MAX},
    {"tag_type", SL_T_VARCHAR, 32},
    {"tag_value", SL_T_VARCHAR, SL_VARCHAR_MAX},
};
static const sl_field VGROUPS_COLS[] = {
    {"vgroup_id", SL_T_INT, 0},         {"db_name", SL_T_VARCHAR, SL_NAME_MAX},
    {"vgroup_index", SL_T_INT, 0},      {"vnode_id", SL_T_INT, 0},
    {"endpoint", SL_T_VARCHAR, ADDR_W}, {"status", SL_T_VARCHAR, 5},
    {"tables", SL_T_BIGINT, 0},
    /* The load its vnode last reported (NULL before the first report). */
    {"rows", SL_T_BIGINT, 0},           /* visible rows stored */
    {"disk_bytes", SL_T_BIGINT, 0},     /* table files + memtables of its store */
    {"write_requests", SL_T_BIGINT, 0}, /* WRITE/DELETE requests acknowledged */
    {"rows_written", SL_T_BIGINT, 0},   /* rows those WRITE requests carried */
    {"fenced", SL_T_BIGINT, 0},         /* WRITE/DELETE refused for a stale epoch */
};

/* The first load column of ins_vgroups and ins_dnodes; both list the same five. */
#define VGROUPS_LOAD_COL 7
#define DNODES_LOAD_COL 7

static const sl_field DNODES_COLS[] = {
    {"id", SL_T_INT, 0},
    {"endpoint", SL_T_VARCHAR, ADDR_W},
    {"kind", SL_T_VARCHAR, 5},
    {"status", SL_T_VARCHAR, 7},
    {"vgroups", SL_T_INT, 0},
    {"create_time", SL_T_TIMESTAMP, 0},
    {"last_heartbeat", SL_T_TIMESTAMP, 0},
    /* vnodes: the totals of their vgroups' reports (fenced: the vnode's own count, which
     * includes requests naming a vgroup it does not hold); NULL for other kinds and before
     * the first report */
    {"rows", SL_T_BIGINT, 0},
    {"disk_bytes", SL_T_BIGINT, 0},
    {"write_requests", SL_T_BIGINT, 0},
    {"rows_written", SL_T_BIGINT, 0},
    {"fenced", SL_T_BIGINT, 0},
    /* vnodes: change-log reads held for heavy client writes, and the ms they waited */
    {"reads_held", SL_T_BIGINT, 0},
    {"reads_held_ms", SL_T_BIGINT, 0},
};

static const sl_field STREAMS_COLS[] = {
    {"stream_name", SL_T_VARCHAR, SL_TABLE_NAME_MAX},
    {"db_name", SL_T_VARCHAR, SL_NAME_MAX},
    {"status", SL_T_VARCHAR, 7},
    {"trigger_table", SL_T_VARCHAR, SL_NAME_MAX + 1 + SL_TABLE_NAME_MAX},
    {"create_time", SL_T_TIMESTAMP, 0},
    {"output_table", SL_T_VARCHAR, SL_NAME_MAX + 1 + SL_TABLE_NAME_MAX}, /* INTO; NULL: none */
    {"snodes", SL_T_INT, 0},          /* snodes owning some of its slots */
    {"tasks", SL_T_INT, 0},           /* its rows of ins_stream_tasks */
    {"max_lag_ms", SL_T_BIGINT, 0},   /* largest lag its owners report; NULL: none yet */
    {"error", SL_T_VARCHAR, 1024},    /* first error an owner reports (lowest id); NULL */
    {"sql", SL_T_VARCHAR, SL_VARCHAR_MAX},
};

/* The column of ins_streams that costs a parse per stream. */
#define STREAMS_OUTPUT_COL 5

static const sl_field SNODES_COLS[] = {
    {"id", SL_T_INT, 0},
    {"endpoint", SL_T_VARCHAR, ADDR_W},
    {"status", SL_T_VARCHAR, 7},
    {"epoch", SL_T_BIGINT, 0},       /* the assignment epoch it acts on */
    {"streams", SL_T_INT, 0},        /* streams with a slot on it */
    {"slots", SL_T_INT, 0},          /* (stream, slot) pairs it owns */
    {"groups", SL_T_BIGINT, 0},      /* trigger groups it holds (reported) */
    {"memory_bytes", SL_T_BIGINT, 0},
    {"create_time", SL_T_TIMESTAMP, 0},
    {"last_heartbeat", SL_T_TIMESTAMP, 0},
};

static const sl_field STREAM_TASKS_COLS[] = {
    {"stream_name", SL_T_VARCHAR, SL_TABLE_NAME_MAX},
    {"db_name", SL_T_VARCHAR, SL_NAME_MAX},
    {"stream_id", SL_T_BIGINT, 0},
    {"slot_start", SL_T_INT, 0},
    {"slot_end", SL_T_INT, 0},
    {"snode_id", SL_T_INT, 0},
    {"snode_endpoint", SL_T_VARCHAR, ADDR_W},
    {"epoch", SL_T_BIGINT, 0},
    {"status", SL_T_VARCHAR, 10},
    {"lag_ms", SL_T_BIGINT, 0},
    {"rows", SL_T_BIGINT, 0},
    {"outbox", SL_T_BIGINT, 0},
    {"error", SL_T_VARCHAR, 1024},
};

#define META(n, c)                                                                                 \
    {                                                                                              \
        .kind = SL_TABLE_NORMAL, .db = SL_DDL_INFO_SCHEMA, .name = n, .precision = SL_PREC_MS,     \
        .ncols = (int)(sizeof(c) / sizeof(c[0])), .cols = c, .ntags = 0, .tags = NULL              \
    }

static const sl_table_meta SYS_META[SYS_COUNT] = {
    [SYS_DATABASES] = META("ins_databases", DATABASES_COLS),
    [SYS_STABLES] = META("ins_stables", STABLES_COLS),
    [SYS_TABLES] = META("ins_tables", TABLES_COLS),
    [SYS_TAGS] = META("ins_tags", TAGS_COLS),
    [SYS_VGROUPS] = META("ins_vgroups", VGROUPS_COLS),
    [SYS_DNODES] = META("ins_dnodes", DNODES_COLS),
    [SYS_STREAMS] = META("ins_streams", STREAMS_COLS),
    [SYS_SNODES] = META("ins_snodes", SNODES_COLS),
    [SYS_STREAM_TASKS] = META("ins_stream_tasks", STREAM_TASKS_COLS),
};

int sl__mc_sys_count(void)
{
    return SYS_COUNT;
}

int sl__mc_sys_find(const char *name)
{
    for (int i = 0; i < SYS_COUNT; i++)
        if (sl_ddl_name_eq(SYS_META[i].name, name))
            return i;
    return -1;
}

void sl__mc_sys_view(int i, sl_ddl_table *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = SL_TABLE_NORMAL;
    out->name = SYS_META[i].name;
    out->ncols = SYS_META[i].ncols;
    out->cols = SYS_META[i].cols;
    out->obj = (void *)&SYS_META[i];
}

/* ------------------------------------------------------------ rows */

/* The objects one system table lists, in output order; own holds objects made for the
 * listing (ins_stream_tasks and ins_streams rows), arena their strings, both freed with it. */
typedef struct rows {
    void **v;
    size_t n, cap;
    void *own;
    sl_arena arena;
    bool outputs; /* ins_streams: fill output_table (set before collecting) */
} rows;

static void rows_free(rows *r)
{
    free(r->v);
    free(r->own);
    sl_arena_fini(&r->arena);
}

/* A row of ins_streams: the stream and what its placement and owners' reports say. */
typedef struct stream_row {
    const sl__mc_stream *st;
    const char *output; /* the INTO table (db-qualified when not in the stream's database),
                         * NULL without INTO or when not asked for; in the rows' arena */
    int32_t snodes;     /* distinct owners */
    int32_t tasks;      /* runs of consecutive slots with one owner */
    bool has_lag;       /* some owner reported the stream */
    int64_t max_lag;
    const char *error;  /* the lowest-id owner's non-empty error, else NULL (the report's) */
} stream_row;

/* A row of ins_dnodes: a node (or the mnode itself) and, for a vnode, the sums of the
 * loads its vgroups reported: rows, disk_bytes, write_requests, rows_written. */
typedef struct dnode_row {
    const sl__mc_node *nd;
    uint64_t sum[4];
} dnode_row;

/* A row of ins_stream_tasks: slots [lo, hi] of a stream owned by one snode. */
typedef struct task_row {
    const sl__mc_stream *st;
    uint32_t lo, hi;
    uint32_t owner;
} task_row;

static int rows_push(rows *r, const void *p)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        void **v = realloc(r->v, cap * sizeof(*v));
        if (v == NULL)
            return SL_ENOMEM;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = (void *)p;
    return 0;
}

static int cmp_names(const char *x, const char *y)
{
    int c = strcasecmp(x, y);
    return c ? c : strcmp(x, y);
}

static int cmp_db(const void *a, const void *b)
{
    return cmp_names((*(sl__mc_db *const *)a)->d_name, (*(sl__mc_db *const *)b)->d_name);
}

static int cmp_table(const void *a, const void *b)
{
    const sl__mc_table *x = *(sl__mc_table *const *)a, *y = *(sl__mc_table *const *)b;
    int c = cmp_names(x->t_db->d_name, y->t_db->d_name);
    return c ? c : cmp_names(x->t_name, y->t_name);
}

static int cmp_stream(const void *a, const void *b)
{
    const sl__mc_stream *x = *(sl__mc_stream *const *)a, *y = *(sl__mc_stream *const *)b;
    int c = cmp_names(x->s_db, y->s_db);
    return c ? c : cmp_names(x->s_name, y->s_name);
}

/* ins_stream_tasks: per stream (by database and name), one row per run of consecutive
 * slots with the same owner. */
static int collect_tasks(const sl_mcatalog *cat, rows *r)
{
    rows s = {0};
    int rc = 0;
    for (int i = 0; rc == 0 && i < cat->c_nstreams; i++)
        rc = rows_push(&s, cat->c_streams[i]);
    if (rc == 0 && s.n > 1)
        qsort(s.v, s.n, sizeof(*s.v), cmp_stream);
    size_t n = 0, cap = 0;
    task_row *tr = NULL;
    for (size_t i = 0; rc == 0 && i < s.n; i++) {
        const sl__mc_stream *st = s.v[i];
        const uint32_t *own = sl__mc_owners(cat, st->s_id);
        for (uint32_t lo = 0; rc == 0 && lo < cat->c_slots;) {
            uint32_t o = own ? own[lo] : 0, hi = lo;
            while (hi + 1 < cat->c_slots && (own ? own[hi + 1] : 0) == o)
                hi++;
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 64;
                task_row *p = realloc(tr, nc * sizeof(*p));
                if (p == NULL) {
                    rc = SL_ENOMEM;
                    break;
                }
                tr = p;
                cap = nc;
            }
            tr[n++] = (task_row){.st = st, .lo = lo, .hi = hi, .owner = o};
            lo = hi + 1;
        }
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = rows_push(r, &tr[i]);
    r->own = tr;
    rows_free(&s);
    return rc;
}

/* The INTO table of stream st as ins_streams shows it: from its statement text (stored
 * streams always parse), named as created when the table exists, db-qualified when it is
 * in another database. NULL without INTO; SL_ENOMEM. */
static int stream_output(const sl_mcatalog *cat, const sl__mc_stream *st, sl_arena *a,
                         const char **out)
{
    *out = NULL;
    sl_parse_result *pr = NULL;
    sl_error perr;
    sl_error_clear(&perr);
    if (sl_parse(st->s_sql, strlen(st->s_sql), &pr, &perr) < 0)
        return 0; /* not ours to judge: the stream's record is what was accepted */
    int rc = 0;
    const sl_stmt *stmt = pr->nstmts == 1 ? pr->stmts[0] : NULL;
    if (stmt != NULL && stmt->kind == SL_STMT_CREATE_STREAM && stmt->u.create_stream.has_into) {
        const sl_qname *q = &stmt->u.create_stream.into;
        const char *dbname = q->db != NULL ? q->db : st->s_db;
        const sl__mc_db *db = sl__mc_find_db(cat, dbname);
        const sl__mc_table *t = db != NULL ? sl__mc_find_table(db, q->name) : NULL;
        const char *name = t != NULL ? t->t_name : q->name;
        if (db != NULL)
            dbname = db->d_name;
        size_t n = strlen(dbname) + strlen(name) + 2;
        char *p = sl_arena_alloc(a, n);
        if (p == NULL)
            rc = SL_ENOMEM;
        else if (sl_ddl_name_eq(dbname, st->s_db))
            snprintf(p, n, "%s", name);
        else
            snprintf(p, n, "%s.%s", dbname, name);
        *out = p;
    }
    sl_parse_result_free(pr);
    return rc;
}

/* Scratch room of stream_load: the distinct owners of one stream, and per node id the
 * generation (stream) that last saw it, so a stream costs O(slots) whatever the snodes. */
typedef struct owner_set {
    uint32_t *ids;  /* distinct owners, at most the number of nodes */
    uint32_t n;
    uint64_t *seen; /* indexed by node id, 0..maxid */
    uint32_t maxid;
    uint64_t gen;
} owner_set;

/* Fills the placement columns of row sr from the current owners of its stream and their
 * reports. */
static void stream_load(const sl_mcatalog *cat, stream_row *sr, owner_set *os)
{
    const uint32_t *own = sl__mc_owners(cat, sr->st->s_id);
    os->n = 0;
    os->gen++;
    /* As collect_tasks: without a placement every slot is unowned, one run. */
    sr->tasks = own == NULL ? 1 : 0;
    for (uint32_t s = 0; own != NULL && s < cat->c_slots; s++) {
        uint32_t o = own[s];
        if (s > 0 && o == own[s - 1])
            continue;
        sr->tasks++;
        /* Owners are registered nodes (ids <= maxid); anything else is not counted. */
        if (o != 0 && o <= os->maxid && os->seen[o] != os->gen) {
            os->seen[o] = os->gen;
            os->ids[os->n++] = o;
        }
    }
    sr->snodes = (int32_t)os->n;
    const char *error = NULL;
    uint32_t error_node = 0;
    for (uint32_t k = 0; k < os->n; k++) {
        uint32_t id = os->ids[k];
        const sl__mc_task *rep = sl__mc_task_of(sl__mc_find_node(cat, id), sr->st->s_id);
        if (rep == NULL)
            continue;
        if (!sr->has_lag || rep->t_lag_ms > sr->max_lag)
            sr->max_lag = rep->t_lag_ms;
        sr->has_lag = true;
        if (rep->t_error != NULL && rep->t_error[0] != '\0' &&
            (error == NULL || id < error_node)) {
            error = rep->t_error;
            error_node = id;
        }
    }
    sr->error = error;
}

/* ins_streams: by database and name, with their placement and load; the output table only
 * when r->outputs (it costs a parse of the statement). */
static int collect_streams(const sl_mcatalog *cat, rows *r)
{
    rows s = {0};
    int rc = 0;
    for (int i = 0; rc == 0 && i < cat->c_nstreams; i++)
        rc = rows_push(&s, cat->c_streams[i]);
    if (rc == 0 && s.n > 1)
        qsort(s.v, s.n, sizeof(*s.v), cmp_stream);
    /* Nodes are kept in ascending id order: the last has the largest id. */
    owner_set os = {.maxid = cat->c_nnodes ? cat->c_nodes[cat->c_nnodes - 1]->n_id : 0};
    stream_row *sr = rc == 0 ? calloc(s.n ? s.n : 1, sizeof(*sr)) : NULL;
    os.ids = malloc((cat->c_nnodes ? cat->c_nnodes : 1) * sizeof(*os.ids));
    os.seen = calloc((size_t)os.maxid + 1, sizeof(*os.seen));
    if (sr == NULL || os.ids == NULL || os.seen == NULL)
        rc = SL_ENOMEM;
    for (size_t i = 0; rc == 0 && i < s.n; i++) {
        sr[i].st = s.v[i];
        stream_load(cat, &sr[i], &os);
        if (r->outputs)
            rc = stream_output(cat, sr[i].st, &r->arena, &sr[i].output);
        if (rc == 0)
            rc = rows_push(r, &sr[i]);
    }
    r->own = sr;
    free(os.ids);
    free(os.seen);
    rows_free(&s);
    return rc;
}

/* a + b, saturating: reports come from the network and are summed. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ins_dnodes: the mnode itself (dnode 0) when named, then every node by id, each vnode
 * with the sums of the loads its vgroups last reported. */
static int collect_dnodes(const sl_mcatalog *cat, rows *r)
{
    bool self = cat->c_self.n_addr != NULL;
    size_t n = cat->c_nnodes + (self ? 1 : 0);
    dnode_row *dr = calloc(n ? n : 1, sizeof(*dr));
    if (dr == NULL)
        return SL_ENOMEM;
    r->own = dr;
    size_t k = 0;
    if (self)
        dr[k++].nd = &cat->c_self;
    size_t first = k; /* dr[first + i] is c_nodes[i] (ascending id) */
    for (uint32_t i = 0; i < cat->c_nnodes; i++)
        dr[k++].nd = cat->c_nodes[i];
    for (uint32_t i = 0; i < cat->c_nvgroups; i++) {
        const sl__mc_vgroup *vg = cat->c_vgroups[i];
        if (vg->vg_load_node == 0 || vg->vg_load_node != vg->vg_vnode)
            continue;
        size_t lo = first, hi = k;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (dr[mid].nd->n_id < vg->vg_vnode)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == k || dr[lo].nd->n_id != vg->vg_vnode)
            continue;
        uint64_t *s = dr[lo].sum;
        s[0] = add_sat(s[0], vg->vg_load.rows);
        s[1] = add_sat(s[1], vg->vg_load.disk_bytes);
        s[2] = add_sat(s[2], vg->vg_load.write_requests);
        s[3] = add_sat(s[3], vg->vg_load.rows_written);
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < k; i++)
        rc = rows_push(r, &dr[i]);
    return rc;
}

/* Collects the objects of system table sys: sorted by name, vgroups and nodes by id. */
static int collect(const sl_mcatalog *cat, int sys, rows *r)
{
    int rc = 0;
    switch (sys) {
    case SYS_DATABASES:
        for (int i = 0; rc == 0 && i < cat->c_ndbs; i++)
            rc = rows_push(r, cat->c_dbs[i]);
        if (rc == 0 && r->n > 1)
            qsort(r->v, r->n, sizeof(*r->v), cmp_db);
        return rc;
    case SYS_STABLES:
    case SYS_TABLES:
    case SYS_TAGS:
        for (int i = 0; rc == 0 && i < cat->c_ndbs; i++) {
            const sl__mc_db *db = cat->c_dbs[i];
            uint32_t pos = 0;
            for (const sl__mc_table *t;
                 rc == 0 && (t = sl_nameset_next(&db->d_tables, &pos)) != NULL;) {
                bool want = sys == SYS_STABLES  ? t->t_kind == SL_TABLE_SUPER
                            : sys == SYS_TABLES ? t->t_kind != SL_TABLE_SUPER
                                                : t->t_kind == SL_TABLE_CHILD;
                if (want)
                    rc = rows_push(r, t);
            }
        }
        if (rc == 0 && r->n > 1)
            qsort(r->v, r->n, sizeof(*r->v), cmp_table);
        return rc;
    case SYS_VGROUPS:
        for (uint32_t i = 0; rc == 0 && i < cat->c_nvgroups; i++)
            rc = rows_push(r, cat->c_vgroups[i]);
        return rc;
    case SYS_STREAMS:
        return collect_streams(cat, r);
    case SYS_STREAM_TASKS:
        return collect_tasks(cat, r);
    case SYS_SNODES:
        for (uint32_t i = 0; rc == 0 && i < cat->c_nnodes; i++)
            if (cat->c_nodes[i]->n_kind == SL_MC_SNODE)
                rc = rows_push(r, cat->c_nodes[i]);
        return rc;
    default:
        return collect_dnodes(cat, r);
    }
}

/* Number of output rows of object obj (ins_tags: one per tag; else 1). */
static int sub_rows(int sys, const void *obj)
{
    if (sys != SYS_TAGS)
        return 1;
    return ((const sl__mc_table *)obj)->t_super->t_ntags;
}

static sl_value str_value(const char *s)
{
    if (s == NULL)
        return sl_value_null(SL_T_VARCHAR);
    return sl_value_str(SL_T_VARCHAR, s, (uint32_t)strlen(s));
}

static const char *node_status_name(const sl__mc_node *n)
{
    return n == NULL ? NULL : n->n_dropped ? "dropped" : n->n_alive ? "alive" : "dead";
}

static sl_value node_status(const sl_mcatalog *cat, uint32_t id)
{
    const sl__mc_node *n = sl__mc_find_node(cat, id);
    return str_value(node_status_name(n));
}

/* A reported counter as a BIGINT (the largest one for anything above it). */
static sl_value load_value(uint64_t v)
{
    return sl_value_int(SL_T_BIGINT, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

/*
 * The value of column col in row (obj, sub) of system table sys. Strings point into the
 * catalog or into buf (n bytes).
 */
static sl_value row_value(const sl_mcatalog *cat, int sys, const void *obj, int sub, int col,
                          char *buf, size_t n)
{
    switch (sys) {
    case SYS_DATABASES: {
        const sl__mc_db *db = obj;
        switch (col) {
        case 0: return str_value(db->d_name);
        case 1: return sl_value_int(SL_T_TIMESTAMP, db->d_created);
        case 2: return str_value(sl_precision_name(db->d_prec));
        case 3: return sl_value_int(SL_T_INT, db->d_nvgroups);
        case 4: return sl_value_int(SL_T_BIGINT, (int64_t)db->d_tables.ns_count - db->d_nsupers);
        default: return sl_value_int(SL_T_BIGINT, db->d_nsupers);
        }
    }
    case SYS_STABLES: {
        const sl__mc_table *t = obj;
        switch (col) {
        case 0: return str_value(t->t_name);
        case 1: return str_value(t->t_db->d_name);
        case 2: return sl_value_int(SL_T_TIMESTAMP, t->t_created);
        case 3: return sl_value_int(SL_T_INT, t->t_ncols);
        case 4: return sl_value_int(SL_T_INT, t->t_ntags);
        case 5: return sl_value_int(SL_T_BIGINT, (int64_t)t->t_uid);
        default: return sl_value_int(SL_T_BIGINT, t->t_nchildren);
        }
    }
    case SYS_TABLES: {
        const sl__mc_table *t = obj;
        switch (col) {
        case 0: return str_value(t->t_name);
        case 1: return str_value(t->t_db->d_name);
        case 2: return sl_value_int(SL_T_TIMESTAMP, t->t_created);
        case 3: return sl_value_int(SL_T_INT, sl__mc_ncols(t));
        case 4: return str_value(t->t_super ? t->t_super->t_name : NULL);
        case 5: return sl_value_int(SL_T_BIGINT, (int64_t)t->t_uid);
        case 6: return sl_value_int(SL_T_INT, t->t_vgroup->vg_id);
        default: return str_value(t->t_super ? "CHILD_TABLE" : "NORMAL_TABLE");
        }
    }
    case SYS_TAGS: {
        const sl__mc_table *t = obj;
        const sl_field *f = &t->t_super->t_tags[sub];
        switch (col) {
        case 0: return str_value(t->t_name);
        case 1: return str_value(t->t_db->d_name);
        case 2: return str_value(t->t_super->t_name);
        case 3: return str_value(f->name);
        case 4: return str_value(sl_ddl_type_str(f->type, f->width, buf, n));
        default: {
            sl_value v;
            sl_column_get(&t->t_tagvals.cols[sub], 0, &v);
            if (v.is_null)
                return sl_value_null(SL_T_VARCHAR);
            if (sl_type_is_var(v.type))
                return sl_value_str(SL_T_VARCHAR, v.v.s.ptr, v.v.s.len);
            int len = sl_value_format(&v, t->t_db->d_prec, buf, n);
            return sl_value_str(SL_T_VARCHAR, buf, (uint32_t)(len < (int)n ? len : (int)n - 1));
        }
        }
    }
    case SYS_VGROUPS: {
        const sl__mc_vgroup *vg = obj;
        const sl__mc_node *nd = sl__mc_find_node(cat, vg->vg_vnode);
        switch (col) {
        case 0: return sl_value_int(SL_T_INT, vg->vg_id);
        case 1: return str_value(vg->vg_db->d_name);
        case 2: return sl_value_int(SL_T_INT, vg->vg_index);
        case 3: return sl_value_int(SL_T_INT, vg->vg_vnode);
        case 4: return str_value(nd ? nd->n_addr : NULL);
        case 5: return node_status(cat, vg->vg_vnode);
        case 6: return sl_value_int(SL_T_BIGINT, vg->vg_ntables);
        default: break;
        }
        if (vg->vg_load_node == 0 || vg->vg_load_node != vg->vg_vnode)
            return sl_value_null(SL_T_BIGINT);
        const sl_mcatalog_vgroup_load *l = &vg->vg_load;
        switch (col - VGROUPS_LOAD_COL) {
        case 0: return load_value(l->rows);
        case 1: return load_value(l->disk_bytes);
        case 2: return load_value(l->write_requests);
        case 3: return load_value(l->rows_written);
        default: return load_value(l->fenced);
        }
    }
    case SYS_STREAMS: {
        const stream_row *sr = obj;
        const sl__mc_stream *st = sr->st;
        switch (col) {
        case 0: return str_value(st->s_name);
        case 1: return str_value(st->s_db);
        case 2: return str_value(st->s_running ? "running" : "stopped");
        case 3: return str_value(st->s_trigger[0] ? st->s_trigger : NULL);
        case 4: return sl_value_int(SL_T_TIMESTAMP, st->s_created);
        case STREAMS_OUTPUT_COL: return str_value(sr->output);
        case 6: return sl_value_int(SL_T_INT, sr->snodes);
        case 7: return sl_value_int(SL_T_INT, sr->tasks);
        case 8:
            return sr->has_lag ? sl_value_int(SL_T_BIGINT, sr->max_lag)
                               : sl_value_null(SL_T_BIGINT);
        case 9: return str_value(sr->error);
        default: return str_value(st->s_sql);
        }
    }
    case SYS_SNODES: {
        const sl__mc_node *nd = obj;
        switch (col) {
        case 0: return sl_value_int(SL_T_INT, nd->n_id);
        case 1: return str_value(nd->n_addr);
        case 2: return str_value(node_status_name(nd));
        case 3: return sl_value_int(SL_T_BIGINT, (int64_t)nd->n_epoch);
        case 4:
        case 5: {
            int64_t streams = 0, slots = 0;
            for (size_t i = 0; i < cat->c_nplaced; i++) {
                int64_t k = 0;
                for (uint32_t s = 0; s < cat->c_slots; s++)
                    k += cat->c_placed[i].p_owners[s] == nd->n_id;
                streams += k > 0;
                slots += k;
            }
            return col == 4 ? sl_value_int(SL_T_INT, streams) : sl_value_int(SL_T_INT, slots);
        }
        case 6: return sl_value_int(SL_T_BIGINT, (int64_t)nd->n_groups);
        case 7: return sl_value_int(SL_T_BIGINT, (int64_t)nd->n_memory);
        case 8: return sl_value_int(SL_T_TIMESTAMP, nd->n_created);
        default: return sl_value_int(SL_T_TIMESTAMP, nd->n_last_seen);
        }
    }
    case SYS_STREAM_TASKS: {
        const task_row *t = obj;
        const sl__mc_node *nd = t->owner ? sl__mc_find_node(cat, t->owner) : NULL;
        const sl__mc_task *rep = sl__mc_task_of(nd, t->st->s_id);
        switch (col) {
        case 0: return str_value(t->st->s_name);
        case 1: return str_value(t->st->s_db);
        case 2: return sl_value_int(SL_T_BIGINT, (int64_t)t->st->s_id);
        case 3: return sl_value_int(SL_T_INT, t->lo);
        case 4: return sl_value_int(SL_T_INT, t->hi);
        case 5: return nd ? sl_value_int(SL_T_INT, nd->n_id) : sl_value_null(SL_T_INT);
        case 6: return str_value(nd ? nd->n_addr : NULL);
        case 7: return sl_value_int(SL_T_BIGINT, (int64_t)cat->c_epoch);
        case 8:
            return str_value(nd == NULL               ? "unassigned"
                             : !t->st->s_running      ? "stopped"
                             : nd->n_epoch < cat->c_epoch ? "assigning"
                                                          : "running");
        case 9: return rep ? sl_value_int(SL_T_BIGINT, rep->t_lag_ms) : sl_value_null(SL_T_BIGINT);
        case 10:
            return rep ? sl_value_int(SL_T_BIGINT, (int64_t)rep->t_rows) : sl_value_null(SL_T_BIGINT);
        case 11:
            return rep ? sl_value_int(SL_T_BIGINT, (int64_t)rep->t_outbox)
                       : sl_value_null(SL_T_BIGINT);
        default: return str_value(rep ? rep->t_error : NULL);
        }
    }
    default: {
        const dnode_row *dr = obj;
        const sl__mc_node *nd = dr->nd;
        switch (col) {
        case 0: return sl_value_int(SL_T_INT, nd->n_id);
        case 1: return str_value(nd->n_addr);
        case 2: return str_value(sl_mc_node_kind_name(nd->n_kind));
        case 3: return str_value(node_status_name(nd));
        case 4: return sl_value_int(SL_T_INT, nd->n_nvgroups);
        case 5: return sl_value_int(SL_T_TIMESTAMP, nd->n_created);
        case 6:
            /* The mnode answers this very query: it is seen now. */
            return sl_value_int(SL_T_TIMESTAMP,
                                nd == &cat->c_self ? sl__mc_now(cat) : nd->n_last_seen);
        default: break;
        }
        if (nd->n_kind != SL_MC_VNODE || !nd->n_reported)
            return sl_value_null(SL_T_BIGINT);
        int k = col - DNODES_LOAD_COL;
        if (k < 4)
            return load_value(dr->sum[k]);
        const sl_mcatalog_vnode_counters *ctr = &nd->n_counters;
        return load_value(k == 4 ? ctr->fenced : k == 5 ? ctr->reads_held : ctr->reads_held_ms);
    }
    }
}

/* ------------------------------------------------------------ scans */

typedef struct sys_scan {
    const sl_mcatalog *cat;
    int sys;    /* which system table */
    rows objs;  /* its objects */
    size_t pos; /* next object */
    int sub;    /* ins_tags: next tag of objs.v[pos] */
    int nproj;  /* the projection */
    int *proj;
} sys_scan;

static void sys_scan_close(void *cursor)
{
    sys_scan *s = cursor;
    if (s == NULL)
        return;
    rows_free(&s->objs);
    free(s->proj);
    free(s);
}

static int sys_scan_next(void *cursor, sl_block *out, sl_error *err)
{
    sys_scan *s = cursor;
    const sl_table_meta *m = &SYS_META[s->sys];
    sl_block_fini(out);
    sl_block_init(out);
    int rc = 0;
    for (int i = 0; rc >= 0 && i < s->nproj; i++) {
        int p = s->proj[i];
        rc = p == SL_PROJ_TBNAME ? sl_block_add_column(out, SL_T_VARCHAR, SL_TABLE_NAME_MAX)
                                 : sl_block_add_column(out, m->cols[p].type, m->cols[p].width);
    }
    uint32_t nrows = 0;
    while (rc >= 0 && nrows < SL_BLOCK_ROWS_MAX && s->pos < s->objs.n) {
        const void *obj = s->objs.v[s->pos];
        if (s->sub >= sub_rows(s->sys, obj)) {
            s->pos++;
            s->sub = 0;
            continue;
        }
        for (int i = 0; rc >= 0 && i < s->nproj; i++) {
            char buf[128];
            sl_value v = s->proj[i] == SL_PROJ_TBNAME
                             ? str_value(m->name)
                             : row_value(s->cat, s->sys, obj, s->sub, s->proj[i], buf, sizeof(buf));
            rc = sl_column_append_value(&out->cols[i], &v);
        }
        s->sub++;
        nrows++;
    }
    if (rc < 0) {
        sl_block_reset(out);
        return sl_error_set(err, rc, 0, 0, "out of memory scanning %s.%s", SL_DDL_INFO_SCHEMA,
                            m->name);
    }
    out->nrows = nrows;
    return 0;
}

static int sys_scan_open(const sl_mcatalog *cat, int sys, const sl_scan_req *req, void **cursor,
                         sl_error *err)
{
    const sl_table_meta *m = &SYS_META[sys];
    for (int i = 0; i < req->nproj; i++) {
        int p = req->proj[i];
        if (p != SL_PROJ_TBNAME && (p < 0 || p >= m->ncols))
            return sl_error_set(err, SL_EINVAL, 0, 0, "scan of '%s' asks for column %d of %d",
                                m->name, p, m->ncols);
    }
    sys_scan *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    s->cat = cat;
    s->sys = sys;
    s->nproj = req->nproj;
    s->proj = malloc((size_t)(req->nproj > 0 ? req->nproj : 1) * sizeof(int));
    for (int i = 0; i < req->nproj; i++)
        s->objs.outputs |= sys == SYS_STREAMS && req->proj[i] == STREAMS_OUTPUT_COL;
    if (s->proj == NULL || collect(cat, sys, &s->objs) < 0) {
        sys_scan_close(s);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
    }
    if (req->nproj > 0)
        memcpy(s->proj, req->proj, (size_t)req->nproj * sizeof(int));
    *cursor = s;
    return 0;
}

/* ------------------------------------------------------------ the catalog for the planner */

static int cat_get_table(void *ud, const char *db, const char *name, sl_table_meta *out,
                         sl_error *err)
{
    sl_mcatalog *cat = ud;
    if (db == NULL)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0,
                            "no database selected for '%s': USE a database or write db.%s", name,
                            name);
    if (sl_ddl_name_eq(db, SL_DDL_INFO_SCHEMA)) {
        int i = sl__mc_sys_find(name);
        if (i < 0)
            return sl_error_set(err, SL_ENOTFOUND, 0, 0,
                                "table '%s' does not exist in database '%s'", name,
                                SL_DDL_INFO_SCHEMA);
        *out = SYS_META[i];
        return 0;
    }
    sl_mcatalog_table t;
    int rc = sl_mcatalog_table_get(cat, db, name, &t, err);
    if (rc == 0)
        *out = t.meta;
    return rc;
}

static int cat_scan_open(void *ud, const sl_scan_req *req, void **cursor, sl_error *err)
{
    const sl_table_meta *m = req->table;
    int i =
        m->db != NULL && sl_ddl_name_eq(m->db, SL_DDL_INFO_SCHEMA) ? sl__mc_sys_find(m->name) : -1;
    if (i < 0)
        return sl_error_set(err, SL_EUNSUPPORTED, 0, 0,
                            "the rows of '%s.%s' are stored on the vnodes: the catalog serves "
                            "only %s",
                            m->db ? m->db : "?", m->name, SL_DDL_INFO_SCHEMA);
    return sys_scan_open(ud, i, req, cursor, err);
}

static const sl_catalog_ops catalog_ops = {
    .get_table = cat_get_table,
    .scan_open = cat_scan_open,
    .scan_next = sys_scan_next,
    .scan_close = sys_scan_close,
};

sl_catalog sl_mcatalog_catalog(sl_mcatalog *cat)
{
    sl_catalog c = {.ops = &catalog_ops, .ud = cat};
    return c;
}

/* ------------------------------------------------------------ queries */

/* SHOW [db.]STREAMS [LIKE]: the rows of ins_streams of database db (NULL: all) whose
 * stream name matches like (NULL: all). */
static int streams_result(const sl_mcatalog *cat, const char *db, const char *like,
                          sl_result *res)
{
    const sl_table_meta *m = &SYS_META[SYS_STREAMS];
    const char *names[16];
    sl_type types[16];
    uint32_t widths[16];
    for (int i = 0; i < m->ncols; i++) {
        names[i] = m->cols[i].name;
        types[i] = m->cols[i].type;
        widths[i] = m->cols[i].width;
    }
    int rc = sl_result_setup(res, m->ncols, names, types, widths);
    rows r = {.outputs = true};
    if (rc == 0)
        rc = collect(cat, SYS_STREAMS, &r);
    for (size_t k = 0; rc == 0 && k < r.n; k++) {
        const sl__mc_stream *st = ((const stream_row *)r.v[k])->st;
        if (db != NULL && !sl_ddl_name_eq(db, st->s_db))
            continue;
        if (like != NULL && !sl_ddl_like(like, st->s_name))
            continue;
        for (int i = 0; rc == 0 && i < m->ncols; i++) {
            char buf[128];
            sl_value v = row_value(cat, SYS_STREAMS, r.v[k], 0, i, buf, sizeof(buf));
            rc = sl_column_append_value(&res->rows.cols[i], &v);
        }
    }
    rows_free(&r);
    if (rc == 0)
        sl_block_seal(&res->rows);
    return rc;
}

/* Which rows of a system table a SHOW lists. */
typedef struct sys_filter {
    const char *like;  /* endpoint pattern; NULL: any */
    int kind;          /* nodes: of this sl_mc_node_kind; 0: any */
    uint32_t vnode;    /* vgroups: held by this node; 0: any */
    bool by_db;        /* vgroups: of database db only */
    const char *db;    /* ... (NULL then: none) */
} sys_filter;

/* Whether row obj of system table sys passes the vgroup and node parts of f. */
static bool sys_keep(int sys, const void *obj, const sys_filter *f)
{
    if (sys == SYS_VGROUPS) {
        const sl__mc_vgroup *vg = obj;
        if (f->vnode != 0 && vg->vg_vnode != f->vnode)
            return false;
        return !f->by_db || (f->db != NULL && sl_ddl_name_eq(f->db, vg->vg_db->d_name));
    }
    const sl__mc_node *nd = sys == SYS_DNODES ? ((const dnode_row *)obj)->nd : obj;
    return f->kind == 0 || nd->n_kind == (sl_mc_node_kind)f->kind;
}

/* A whole system table as a result: the rows f keeps. */
static int sys_result(const sl_mcatalog *cat, int sys, const sys_filter *f, sl_result *res)
{
    const sl_table_meta *m = &SYS_META[sys];
    const char *names[16];
    sl_type types[16];
    uint32_t widths[16];
    int endpoint = -1;
    for (int i = 0; i < m->ncols; i++) {
        names[i] = m->cols[i].name;
        types[i] = m->cols[i].type;
        widths[i] = m->cols[i].width;
        if (strcmp(names[i], "endpoint") == 0)
            endpoint = i;
    }
    int rc = sl_result_setup(res, m->ncols, names, types, widths);
    rows r = {0};
    if (rc == 0)
        rc = collect(cat, sys, &r);
    for (size_t k = 0; rc == 0 && k < r.n; k++) {
        char buf[128];
        if (!sys_keep(sys, r.v[k], f))
            continue;
        if (f->like != NULL) {
            sl_value ep = row_value(cat, sys, r.v[k], 0, endpoint, buf, sizeof(buf));
            if (ep.is_null || !sl_ddl_like(f->like, ep.v.s.ptr))
                continue;
        }
        for (int i = 0; rc == 0 && i < m->ncols; i++) {
            sl_value v = row_value(cat, sys, r.v[k], 0, i, buf, sizeof(buf));
            rc = sl_column_append_value(&res->rows.cols[i], &v);
        }
    }
    rows_free(&r);
    if (rc == 0)
        sl_block_seal(&res->rows);
    return rc;
}

/* SHOW VNODES ON DNODE n: n must name a vnode. Stores its id in *id. */
static int vnode_of(const sl_mcatalog *cat, const sl_show *sh, uint32_t *id, sl_error *err)
{
    const sl__mc_node *n = sh->dnode > 0 && sh->dnode <= UINT32_MAX
                               ? sl__mc_find_node(cat, (uint32_t)sh->dnode)
                           : sh->dnode == 0 && cat->c_self.n_addr != NULL ? &cat->c_self
                                                                          : NULL;
    if (n == NULL)
        return sl_ddl_error(err, SL_ENOTFOUND, sh->dnode_pos, "dnode %lld does not exist",
                            (long long)sh->dnode);
    if (n->n_kind != SL_MC_VNODE)
        return sl_ddl_error(err, SL_EINVAL, sh->dnode_pos,
                            "dnode %lld is an %s: only vnodes hold vgroups", (long long)sh->dnode,
                            sl_mc_node_kind_name(n->n_kind));
    *id = n->n_id;
    return 0;
}

static int run_select(sl_mcatalog *cat, const sl_stmt *st, const char *current_db, sl_result *res,
                      sl_error *err)
{
    sl_plan_ctx ctx = {
        .catalog = sl_mcatalog_catalog(cat),
        .db = current_db,
        .now_ms = sl__mc_now(cat),
    };
    sl_plan *plan = NULL;
    int rc = sl_plan_select(st->u.select, &ctx, &plan, err);
    if (rc < 0)
        return rc;
    int ncols = sl_plan_ncols(plan);
    res->names = calloc((size_t)(ncols > 0 ? ncols : 1), sizeof(char *));
    if (res->names == NULL) {
        rc = SL_ENOMEM;
        goto done;
    }
    res->ncols = ncols;
    for (int i = 0; i < ncols; i++) {
        res->names[i] = strdup(sl_plan_col_name(plan, i));
        if (res->names[i] == NULL) {
            rc = SL_ENOMEM;
            goto done;
        }
    }
    res->precision = sl_plan_precision(plan);
    res->affected = -1;
    rc = sl_plan_collect(plan, &res->rows, err);
done:
    sl_plan_free(plan);
    return rc;
}

int sl_mcatalog_query(sl_mcatalog *cat, const sl_stmt *st, const char *current_db, sl_result *res,
                      sl_error *err)
{
    sl_result_init(res);
    sl_error_clear(err);
    sl_ddl_source src = sl__mc_source(cat, current_db);
    int rc;
    switch (st->kind) {
    case SL_STMT_SHOW: {
        const sl_show *sh = &st->u.show;
        sys_filter f = {.like = sh->like};
        switch (sh->kind) {
        case SL_SHOW_DNODES: rc = sys_result(cat, SYS_DNODES, &f, res); break;
        case SL_SHOW_SNODES: rc = sys_result(cat, SYS_SNODES, &f, res); break;
        case SL_SHOW_MNODES:
            f.kind = SL_MC_MNODE;
            rc = sys_result(cat, SYS_DNODES, &f, res);
            break;
        case SL_SHOW_VNODES:
            rc = sh->on_dnode ? vnode_of(cat, sh, &f.vnode, err) : 0;
            if (rc == 0)
                rc = sys_result(cat, SYS_VGROUPS, &f, res);
            break;
        case SL_SHOW_VGROUPS:
            f.by_db = true;
            rc = sl__mc_streams_show_db(cat, st, current_db, &f.db, err);
            if (rc == 0 && f.db == NULL) /* no database named or selected: every one */
                f.by_db = false;
            if (rc == 0)
                rc = sys_result(cat, SYS_VGROUPS, &f, res);
            break;
        case SL_SHOW_STREAMS: {
            const char *db = NULL;
            rc = sl__mc_streams_show_db(cat, st, current_db, &db, err);
            if (rc == 0)
                rc = streams_result(cat, db, sh->like, res);
            break;
        }
        case SL_SHOW_CREATE_STREAM:
            rc = sl__mc_stream_show_create(cat, st, current_db, res, err);
            break;
        default:
            if (!sl_ddl_show_handles(sh->kind)) {
                rc = sl_ddl_error(err, SL_EUNSUPPORTED, st->pos,
                                  "this SHOW statement is not answered by the catalog");
                break;
            }
            rc = sl_ddl_show(&src, st, res, err);
            break;
        }
        if (rc == SL_ENOMEM)
            sl_ddl_error(err, rc, st->pos, "out of memory");
        break;
    }
    case SL_STMT_DESCRIBE: rc = sl_ddl_describe(&src, st, res, err); break;
    case SL_STMT_SELECT: rc = run_select(cat, st, current_db, res, err); break;
    default:
        rc = sl_ddl_error(err, SL_EUNSUPPORTED, st->pos, "%s is not answered by the catalog",
                          sl_stmt_kind_name(st->kind));
        break;
    }
    if (rc < 0) {
        if (err != NULL && err->code == 0)
            sl_ddl_error(err, rc, st->pos, "%s failed: %s", sl_stmt_kind_name(st->kind),
                         sl_strerror(rc));
        sl_ddl_error_prefix(err);
        sl_result_fini(res);
    }
    return rc;
}
