/*
 * test_exec.c - the SELECT planner (plan.h) and the block operators (exec.h) on small,
 * hand-built tables whose every result was computed by hand.
 *
 * The tables live in a tiny sl_catalog written here (not the embedded store), so the
 * tests also pin the catalog interface: a super table with three child tables whose scan
 * delivers tags and tbname as constant columns, blocks of a few rows (so every operator
 * sees several blocks), and a record of the time range each scan asked for (pushdown).
 * The last tests run the same kind of statements end to end through the embedded store
 * (memstore.h): CREATE, INSERT, SELECT.
 *
 * Data (precision ms; timestamps are small epoch counts so windows are easy to follow):
 *
 *   t (normal):  ts     a     b     s       meters (super): ts, cur DOUBLE, volt INT
 *                1000   1     1.5   'x'                    TAGS (loc VARCHAR, gid INT)
 *                2000   NULL  2.5   'y'       d1 ('SF',1): (1000,10,220) (5000,11,NULL)
 *                3000   3     NULL  NULL                   (12000,12,230)
 *                11000  4     4.0   'x'       d2 ('LA',2): (2000,20,210) (13000,NULL,215)
 *                12000  -2    0.5   'z'       d3 ('SF',3): (500,30,240) (21000,31,250)
 *                25000  10    NULL  'y'                    (22000,32,NULL)
 *   e (normal):  (ts, a INT), no rows
 *
 * Cells are compared as text: NULL, integers in decimal, doubles with %.10g, strings raw,
 * timestamps as their epoch count; columns are joined with '|'.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "common/exec/memstore.h"
#include "common/exec/plan.h"
#include "common/sql/parser.h"

/* ------------------------------------------------------------ the test catalog */

#define TC_MAXT 8
#define TC_MAXPROJ 32

typedef struct tc_table {
    const char *name;
    sl_table_kind kind;
    int super;              /* child: index of its super table, else -1 */
    int ncols;
    sl_field cols[6];
    int ntags;
    sl_field tags[4];
    sl_value tagv[4];       /* child: its tag values (strings are literals) */
    sl_block rows;          /* child/normal: the rows, the table's columns in order */
} tc_table;

typedef struct tcat {
    tc_table t[TC_MAXT];
    int n;
    uint32_t block_rows;    /* most rows per delivered block */
    int nscans;             /* scans opened */
    int open;               /* scans not closed yet */
    int64_t last_lo, last_hi;
    int last_nproj;
    char last_db[32];       /* database the last get_table asked for */
    int fail_open;          /* > 0: scan_open fails with SL_EIO */
    int fail_after;         /* > 0: scan_next fails with SL_EIO after this many blocks */
} tcat;

typedef struct tc_cursor {
    tcat *c;
    const tc_table *schema; /* the scanned table: fields come from its super when a child */
    int tabs[TC_MAXT];
    int ntabs;
    int cur;
    uint32_t pos;
    int64_t lo, hi;
    int nproj;
    int proj[TC_MAXPROJ];
    int nblocks;            /* blocks delivered */
} tc_cursor;

static const tc_table *tc_schema(const tcat *c, const tc_table *t)
{
    return t->kind == SL_TABLE_CHILD ? &c->t[t->super] : t;
}

static int tc_get_table(void *ud, const char *db, const char *name, sl_table_meta *out,
                        sl_error *err)
{
    tcat *c = ud;
    snprintf(c->last_db, sizeof(c->last_db), "%s", db ? db : "(null)");
    if (db != NULL && strcasecmp(db, "db") != 0)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "database '%s' does not exist", db);
    for (int i = 0; i < c->n; i++) {
        const tc_table *t = &c->t[i];
        if (strcasecmp(t->name, name) != 0)
            continue;
        const tc_table *s = tc_schema(c, t);
        *out = (sl_table_meta){.kind = t->kind,
                               .db = "db",
                               .name = t->name,
                               .precision = SL_PREC_MS,
                               .ncols = s->ncols,
                               .cols = s->cols,
                               .ntags = s->ntags,
                               .tags = s->ntags ? s->tags : NULL};
        return 0;
    }
    return sl_error_set(err, SL_ENOTFOUND, 0, 0, "table '%s' does not exist in database 'db'",
                        name);
}

static int tc_scan_open(void *ud, const sl_scan_req *req, void **cursor, sl_error *err)
{
    tcat *c = ud;
    if (c->fail_open)
        return sl_error_set(err, SL_EIO, 0, 0, "vnode unreachable");
    tc_cursor *k = calloc(1, sizeof(*k));
    assert_non_null(k);
    assert_true(req->nproj <= TC_MAXPROJ);
    k->c = c;
    for (int i = 0; i < c->n; i++) {
        const tc_table *t = &c->t[i];
        if (strcasecmp(t->name, req->table->name) == 0) {
            k->schema = tc_schema(c, t);
            if (t->kind == SL_TABLE_SUPER) {
                for (int j = 0; j < c->n; j++)
                    if (c->t[j].kind == SL_TABLE_CHILD && c->t[j].super == i)
                        k->tabs[k->ntabs++] = j;
            } else {
                k->tabs[k->ntabs++] = i;
            }
        }
    }
    assert_non_null(k->schema);
    for (int i = 0; i < req->nproj; i++) {
        int p = req->proj[i];
        assert_true(p == SL_PROJ_TBNAME ||
                    (p >= 0 && p < k->schema->ncols + k->schema->ntags));
        k->proj[i] = p;
    }
    k->nproj = req->nproj;
    k->lo = req->ts_lo;
    k->hi = req->ts_hi;
    c->nscans++;
    c->open++;
    c->last_lo = req->ts_lo;
    c->last_hi = req->ts_hi;
    c->last_nproj = req->nproj;
    *cursor = k;
    return 0;
}

static int tc_scan_next(void *cursor, sl_block *out, sl_error *err)
{
    tc_cursor *k = cursor;
    const tc_table *s = k->schema;
    if (k->c->fail_after > 0 && k->nblocks++ >= k->c->fail_after)
        return sl_error_set(err, SL_EIO, 0, 0, "disk on fire");
    sl_block_fini(out);
    sl_block_init(out);
    for (int i = 0; i < k->nproj; i++) {
        int p = k->proj[i];
        sl_type t = p == SL_PROJ_TBNAME ? SL_T_VARCHAR
                    : p < s->ncols     ? s->cols[p].type
                                       : s->tags[p - s->ncols].type;
        uint32_t w = p == SL_PROJ_TBNAME ? SL_TABLE_NAME_MAX
                     : p < s->ncols     ? s->cols[p].width
                                        : s->tags[p - s->ncols].width;
        assert_true(sl_block_add_column(out, t, w) >= 0);
    }
    while (k->cur < k->ntabs) {
        const tc_table *t = &k->c->t[k->tabs[k->cur]];
        const int64_t *ts = t->rows.nrows ? t->rows.cols[0].data : NULL;
        while (k->pos < t->rows.nrows && ts[k->pos] < k->lo)
            k->pos++;
        uint32_t end = k->pos;
        while (end < t->rows.nrows && ts[end] <= k->hi && end - k->pos < k->c->block_rows)
            end++;
        if (end == k->pos) {
            k->cur++;
            k->pos = 0;
            continue;
        }
        uint32_t n = end - k->pos;
        for (int i = 0; i < k->nproj; i++) {
            int p = k->proj[i];
            sl_value v;
            if (p == SL_PROJ_TBNAME) {
                v = sl_value_str(SL_T_VARCHAR, t->name, (uint32_t)strlen(t->name));
                assert_int_equal(sl_column_set_const(&out->cols[i], &v, n), 0);
            } else if (p < s->ncols) {
                assert_int_equal(
                    sl_column_append_rows(&out->cols[i], &t->rows.cols[p], NULL, k->pos, n), 0);
            } else {
                assert_int_equal(sl_column_set_const(&out->cols[i], &t->tagv[p - s->ncols], n),
                                 0);
            }
        }
        out->nrows = n;
        k->pos = end;
        return 0;
    }
    out->nrows = 0;
    return 0;
}

static void tc_scan_close(void *cursor)
{
    tc_cursor *k = cursor;
    if (k == NULL)
        return;
    k->c->open--;
    free(k);
}

static const sl_catalog_ops tc_ops = {
    .get_table = tc_get_table,
    .scan_open = tc_scan_open,
    .scan_next = tc_scan_next,
    .scan_close = tc_scan_close,
};

static tcat g_cat;

#define F(n, ty, w) ((sl_field){.name = (n), .type = (ty), .width = (w)})
#define VTS(x) sl_value_int(SL_T_TIMESTAMP, (x))
#define VI(x) sl_value_int(SL_T_INT, (x))
#define VD(x) sl_value_double(SL_T_DOUBLE, (x))
#define VS(x) sl_value_str(SL_T_VARCHAR, (x), (uint32_t)strlen(x))
#define VN(ty) sl_value_null(ty)

static tc_table *tc_add(tcat *c, const char *name, sl_table_kind kind, int super)
{
    assert_true(c->n < TC_MAXT);
    tc_table *t = &c->t[c->n++];
    memset(t, 0, sizeof(*t));
    t->name = name;
    t->kind = kind;
    t->super = super;
    sl_block_init(&t->rows);
    return t;
}

/* Gives a child or normal table its (empty) row columns. */
static void tc_rows_init(tcat *c, tc_table *t)
{
    const tc_table *s = tc_schema(c, t);
    for (int i = 0; i < s->ncols; i++)
        assert_true(sl_block_add_column(&t->rows, s->cols[i].type, s->cols[i].width) >= 0);
}

static void tc_row(tc_table *t, const sl_value *v)
{
    for (uint32_t i = 0; i < t->rows.ncols; i++)
        assert_int_equal(sl_column_append_value(&t->rows.cols[i], &v[i]), 0);
    sl_block_seal(&t->rows);
}

static int setup_catalog(void **state)
{
    (void)state;
    tcat *c = &g_cat;
    memset(c, 0, sizeof(*c));
    c->block_rows = 2;

    tc_table *t = tc_add(c, "t", SL_TABLE_NORMAL, -1);
    t->ncols = 4;
    t->cols[0] = F("ts", SL_T_TIMESTAMP, 0);
    t->cols[1] = F("a", SL_T_INT, 0);
    t->cols[2] = F("b", SL_T_DOUBLE, 0);
    t->cols[3] = F("s", SL_T_VARCHAR, 10);
    tc_rows_init(c, t);
    tc_row(t, (sl_value[]){VTS(1000), VI(1), VD(1.5), VS("x")});
    tc_row(t, (sl_value[]){VTS(2000), VN(SL_T_INT), VD(2.5), VS("y")});
    tc_row(t, (sl_value[]){VTS(3000), VI(3), VN(SL_T_DOUBLE), VN(SL_T_VARCHAR)});
    tc_row(t, (sl_value[]){VTS(11000), VI(4), VD(4.0), VS("x")});
    tc_row(t, (sl_value[]){VTS(12000), VI(-2), VD(0.5), VS("z")});
    tc_row(t, (sl_value[]){VTS(25000), VI(10), VN(SL_T_DOUBLE), VS("y")});

    int mi = c->n;
    tc_table *m = tc_add(c, "meters", SL_TABLE_SUPER, -1);
    m->ncols = 3;
    m->cols[0] = F("ts", SL_T_TIMESTAMP, 0);
    m->cols[1] = F("cur", SL_T_DOUBLE, 0);
    m->cols[2] = F("volt", SL_T_INT, 0);
    m->ntags = 2;
    m->tags[0] = F("loc", SL_T_VARCHAR, 16);
    m->tags[1] = F("gid", SL_T_INT, 0);

    tc_table *d1 = tc_add(c, "d1", SL_TABLE_CHILD, mi);
    d1->tagv[0] = VS("SF");
    d1->tagv[1] = VI(1);
    tc_rows_init(c, d1);
    tc_row(d1, (sl_value[]){VTS(1000), VD(10), VI(220)});
    tc_row(d1, (sl_value[]){VTS(5000), VD(11), VN(SL_T_INT)});
    tc_row(d1, (sl_value[]){VTS(12000), VD(12), VI(230)});

    tc_table *d2 = tc_add(c, "d2", SL_TABLE_CHILD, mi);
    d2->tagv[0] = VS("LA");
    d2->tagv[1] = VI(2);
    tc_rows_init(c, d2);
    tc_row(d2, (sl_value[]){VTS(2000), VD(20), VI(210)});
    tc_row(d2, (sl_value[]){VTS(13000), VN(SL_T_DOUBLE), VI(215)});

    tc_table *d3 = tc_add(c, "d3", SL_TABLE_CHILD, mi);
    d3->tagv[0] = VS("SF");
    d3->tagv[1] = VI(3);
    tc_rows_init(c, d3);
    tc_row(d3, (sl_value[]){VTS(500), VD(30), VI(240)});
    tc_row(d3, (sl_value[]){VTS(21000), VD(31), VI(250)});
    tc_row(d3, (sl_value[]){VTS(22000), VD(32), VN(SL_T_INT)});

    tc_table *e = tc_add(c, "e", SL_TABLE_NORMAL, -1);
    e->ncols = 2;
    e->cols[0] = F("ts", SL_T_TIMESTAMP, 0);
    e->cols[1] = F("a", SL_T_INT, 0);
    tc_rows_init(c, e);
    return 0;
}

static int teardown_catalog(void **state)
{
    (void)state;
    for (int i = 0; i < g_cat.n; i++)
        sl_block_fini(&g_cat.t[i].rows);
    memset(&g_cat, 0, sizeof(g_cat));
    return 0;
}

/* ------------------------------------------------------------ running statements */

static void fmt_cell(const sl_column *c, uint32_t i, char *buf, size_t n)
{
    if (sl_column_is_null(c, i)) {
        snprintf(buf, n, "NULL");
        return;
    }
    if (c->type == SL_T_BOOL) {
        sl_value v;
        sl_column_get(c, i, &v);
        snprintf(buf, n, "%s", v.v.b ? "true" : "false");
    } else if (sl_type_is_signed_int(c->type) || c->type == SL_T_TIMESTAMP) {
        snprintf(buf, n, "%lld", (long long)sl_column_get_i64(c, i));
    } else if (sl_type_is_unsigned_int(c->type)) {
        snprintf(buf, n, "%llu", (unsigned long long)sl_column_get_u64(c, i));
    } else if (sl_type_is_float(c->type)) {
        snprintf(buf, n, "%.10g", sl_column_get_f64(c, i));
    } else {
        uint32_t len;
        const char *s = sl_column_get_str(c, i, &len);
        snprintf(buf, n, "%.*s", (int)len, s);
    }
}

static void fmt_row(const sl_block *b, uint32_t r, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    for (uint32_t c = 0; c < b->ncols && at < n; c++) {
        char cell[256];
        fmt_cell(&b->cols[c], r, cell, sizeof(cell));
        at += (size_t)snprintf(buf + at, n - at, "%s%s", c ? "|" : "", cell);
    }
}

static sl_plan_ctx test_ctx(void)
{
    sl_plan_ctx ctx = {.catalog = {.ops = &tc_ops, .ud = &g_cat},
                       .db = "db",
                       .now_ms = 1700000000000};
    return ctx;
}

/*
 * Parses sql (one SELECT) and plans it. Returns the planner's code; on success *plan is
 * set. The parse must succeed: every statement here is valid syntax.
 */
static int plan_sql(const char *sql, sl_plan **plan, sl_error *err)
{
    sl_parse_result *pr = NULL;
    sl_error perr;
    sl_error_clear(&perr);
    int rc = sl_parse(sql, strlen(sql), &pr, &perr);
    if (rc != 0)
        fail_msg("parse of \"%s\" failed: %s", sql, perr.msg);
    assert_int_equal(pr->nstmts, 1);
    assert_int_equal(pr->stmts[0]->kind, SL_STMT_SELECT);
    sl_plan_ctx ctx = test_ctx();
    sl_error_clear(err);
    *plan = (sl_plan *)0x1;
    rc = sl_plan_select(pr->stmts[0]->u.select, &ctx, plan, err);
    sl_parse_result_free(pr);
    if (rc != 0)
        assert_null(*plan);
    return rc;
}

/* Plans and runs sql into out (initialised, empty); fails the test on any error. */
static void run_sql(const char *sql, sl_block *out)
{
    sl_plan *plan;
    sl_error err;
    int rc = plan_sql(sql, &plan, &err);
    if (rc != 0)
        fail_msg("planning \"%s\" failed: %d %d:%d %s", sql, rc, err.line, err.col, err.msg);
    rc = sl_plan_collect(plan, out, &err);
    if (rc != 0)
        fail_msg("running \"%s\" failed: %d %s", sql, rc, err.msg);
    assert_int_equal((int)out->ncols, sl_plan_ncols(plan));
    for (uint32_t c = 0; c < out->ncols; c++)
        assert_int_equal(out->cols[c].nrows, out->nrows);
    sl_plan_free(plan);
    assert_int_equal(g_cat.open, 0);
}

/* Checks the rows of sql against want (NULL terminated), in order. */
static void expect_rows(const char *sql, const char *const *want)
{
    sl_block out;
    sl_block_init(&out);
    run_sql(sql, &out);
    int nwant = 0;
    while (want[nwant] != NULL)
        nwant++;
    bool ok = (int)out.nrows == nwant;
    char got[1024];
    for (uint32_t r = 0; ok && r < out.nrows; r++) {
        fmt_row(&out, r, got, sizeof(got));
        ok = strcmp(got, want[r]) == 0;
    }
    if (!ok) {
        print_error("query: %s\n got %u rows:\n", sql, out.nrows);
        for (uint32_t r = 0; r < out.nrows; r++) {
            fmt_row(&out, r, got, sizeof(got));
            print_error("   %s\n", got);
        }
        print_error(" want %d rows:\n", nwant);
        for (int r = 0; r < nwant; r++)
            print_error("   %s\n", want[r]);
    }
    sl_block_fini(&out);
    if (!ok)
        fail_msg("result mismatch for \"%s\"", sql);
}

#define EXPECT(sql, ...) expect_rows((sql), (const char *const[]){__VA_ARGS__, NULL})
#define EXPECT_NONE(sql) expect_rows((sql), (const char *const[]){NULL})

/* Checks the result column names and types of sql. */
static void expect_cols(const char *sql, int n, const char *const *names, const sl_type *types)
{
    sl_plan *plan;
    sl_error err;
    int rc = plan_sql(sql, &plan, &err);
    if (rc != 0)
        fail_msg("planning \"%s\" failed: %s", sql, err.msg);
    assert_int_equal(sl_plan_ncols(plan), n);
    for (int i = 0; i < n; i++) {
        if (strcmp(sl_plan_col_name(plan, i), names[i]) != 0)
            fail_msg("%s: column %d is named '%s', want '%s'", sql, i, sl_plan_col_name(plan, i),
                     names[i]);
        if (sl_plan_col_type(plan, i) != types[i])
            fail_msg("%s: column %d has type %s, want %s", sql, i,
                     sl_type_name(sl_plan_col_type(plan, i)), sl_type_name(types[i]));
    }
    sl_plan_free(plan);
}

/* Checks that planning sql fails with code, position and message exactly. */
static void expect_error(const char *sql, int code, int line, int col, const char *msg)
{
    sl_plan *plan;
    sl_error err;
    int rc = plan_sql(sql, &plan, &err);
    if (rc == 0) {
        sl_plan_free(plan);
        fail_msg("\"%s\" was accepted; want error \"%s\"", sql, msg);
    }
    if (rc != code || err.code != code || strcmp(err.msg, msg) != 0 || err.line != line ||
        err.col != col)
        fail_msg("\"%s\": got %d (%s) at %d:%d \"%s\"; want %d at %d:%d \"%s\"", sql, rc,
                 sl_strerror(rc), err.line, err.col, err.msg, code, line, col, msg);
    assert_int_equal(g_cat.open, 0);
}

/* ------------------------------------------------------------ projections */

static void test_select_star(void **state)
{
    (void)state;
    EXPECT("SELECT * FROM t", "1000|1|1.5|x", "2000|NULL|2.5|y", "3000|3|NULL|NULL",
           "11000|4|4|x", "12000|-2|0.5|z", "25000|10|NULL|y");
    expect_cols("SELECT * FROM t", 4, (const char *[]){"ts", "a", "b", "s"},
                (sl_type[]){SL_T_TIMESTAMP, SL_T_INT, SL_T_DOUBLE, SL_T_VARCHAR});
    /* A super table's rows come child by child; '*' includes the tags. */
    EXPECT("SELECT * FROM meters", "1000|10|220|SF|1", "5000|11|NULL|SF|1",
           "12000|12|230|SF|1", "2000|20|210|LA|2", "13000|NULL|215|LA|2", "500|30|240|SF|3",
           "21000|31|250|SF|3", "22000|32|NULL|SF|3");
    expect_cols("SELECT * FROM meters", 5, (const char *[]){"ts", "cur", "volt", "loc", "gid"},
                (sl_type[]){SL_T_TIMESTAMP, SL_T_DOUBLE, SL_T_INT, SL_T_VARCHAR, SL_T_INT});
    /* On a child table '*' is its columns only (as in TDengine); its own tag values are
     * still there by name. */
    EXPECT("SELECT * FROM d2", "2000|20|210", "13000|NULL|215");
    EXPECT("SELECT ts, loc, gid FROM d2", "2000|LA|2", "13000|LA|2");
    EXPECT_NONE("SELECT * FROM e");
    expect_cols("SELECT * FROM e", 2, (const char *[]){"ts", "a"},
                (sl_type[]){SL_T_TIMESTAMP, SL_T_INT});
}

static void test_select_columns_expressions(void **state)
{
    (void)state;
    EXPECT("SELECT s, a FROM t", "x|1", "y|NULL", "NULL|3", "x|4", "z|-2", "y|10");
    EXPECT("SELECT a, b * 2 AS bb, a + 1, s FROM t", "1|3|2|x", "NULL|5|NULL|y",
           "3|NULL|4|NULL", "4|8|5|x", "-2|1|-1|z", "10|NULL|11|y");
    expect_cols("SELECT a, b * 2 AS bb, a + 1, s FROM t", 4,
                (const char *[]){"a", "bb", "a + 1", "s"},
                (sl_type[]){SL_T_INT, SL_T_DOUBLE, SL_T_BIGINT, SL_T_VARCHAR});
    /* Division always gives DOUBLE. */
    EXPECT("SELECT a / 2 FROM t WHERE a IS NOT NULL", "0.5", "1.5", "2", "-1", "5");
    /* Tags and tbname are constant columns of the scan; they mix with ordinary ones. */
    EXPECT("SELECT tbname, loc, volt + gid, ts FROM meters", "d1|SF|221|1000",
           "d1|SF|NULL|5000", "d1|SF|231|12000", "d2|LA|212|2000", "d2|LA|217|13000",
           "d3|SF|243|500", "d3|SF|253|21000", "d3|SF|NULL|22000");
    /* Qualified names and table aliases. */
    EXPECT("SELECT t.a, x.b FROM t x WHERE x.a > 3", "4|4", "10|NULL");
    EXPECT("SELECT t.a FROM t WHERE t.a < 0", "-2");
    /* A constant column next to table columns. */
    EXPECT("SELECT 7, a FROM t WHERE a = 3", "7|3");
    /* _rowts is the row's timestamp. */
    EXPECT("SELECT _rowts, a FROM t WHERE a = 3", "3000|3");
    /* The same column twice. */
    EXPECT("SELECT a, a FROM t WHERE ts = 1000", "1|1");
    /* '*' columns can be ordered by name. */
    EXPECT("SELECT * FROM t ORDER BY a DESC LIMIT 2", "25000|10|NULL|y", "11000|4|4|x");
    /* Boolean expressions as columns. */
    EXPECT("SELECT a > 2, a IS NULL FROM t WHERE ts <= 3000", "false|false", "NULL|true",
           "true|false");
    /* A database-qualified name; an unqualified one is looked up in ctx.db. */
    EXPECT("SELECT a FROM db.t WHERE ts = 1000", "1");
    assert_string_equal(g_cat.last_db, "db");
    EXPECT("SELECT a FROM t WHERE ts = 1000", "1");
    assert_string_equal(g_cat.last_db, "db");
}

static void test_select_without_from(void **state)
{
    (void)state;
    EXPECT("SELECT 1+1", "2");
    expect_cols("SELECT 1+1", 1, (const char *[]){"1+1"}, (sl_type[]){SL_T_BIGINT});
    EXPECT("SELECT 1+1, 'abc', 2.5 * 2, NULL", "2|abc|5|NULL");
    EXPECT("SELECT 7 AS seven", "7");
    /* Aggregates over the single row of a FROM-less query. */
    EXPECT("SELECT count(*), max(1 + 1), sum(3)", "1|2|3");
    expect_cols("SELECT 7 AS seven", 1, (const char *[]){"seven"}, (sl_type[]){SL_T_BIGINT});
}

/* ------------------------------------------------------------ WHERE */

static void test_where_predicates(void **state)
{
    (void)state;
    EXPECT("SELECT ts FROM t WHERE a = 3", "3000");
    EXPECT("SELECT ts FROM t WHERE a != 3", "1000", "11000", "12000", "25000");
    EXPECT("SELECT ts FROM t WHERE a <> 3", "1000", "11000", "12000", "25000");
    EXPECT("SELECT ts FROM t WHERE a < 3", "1000", "12000");
    EXPECT("SELECT ts FROM t WHERE a <= 3", "1000", "3000", "12000");
    EXPECT("SELECT ts FROM t WHERE a > 3", "11000", "25000");
    EXPECT("SELECT ts FROM t WHERE a >= 3", "3000", "11000", "25000");
    EXPECT("SELECT ts FROM t WHERE b >= 2.5", "2000", "11000");
    EXPECT("SELECT ts FROM t WHERE a BETWEEN 1 AND 4", "1000", "3000", "11000");
    EXPECT("SELECT ts FROM t WHERE a NOT BETWEEN 1 AND 4", "12000", "25000");
    EXPECT("SELECT ts FROM t WHERE a IN (1, 10)", "1000", "25000");
    EXPECT("SELECT ts FROM t WHERE a NOT IN (1, 10)", "3000", "11000", "12000");
    EXPECT("SELECT ts FROM t WHERE a IS NULL", "2000");
    EXPECT("SELECT ts FROM t WHERE b IS NOT NULL", "1000", "2000", "11000", "12000");
    EXPECT("SELECT ts FROM t WHERE s LIKE 'x%'", "1000", "11000");
    EXPECT("SELECT ts FROM t WHERE s NOT LIKE 'x'", "2000", "12000", "25000");
    EXPECT("SELECT ts FROM t WHERE s = 'y'", "2000", "25000");
    EXPECT("SELECT ts FROM t WHERE s > 'x'", "2000", "12000", "25000");
    /* Three-valued logic: NOT (NULL = 'y') is NULL, so the row with s NULL is dropped. */
    EXPECT("SELECT ts FROM t WHERE (a > 2 OR b < 1) AND NOT s = 'y'", "11000", "12000");
    EXPECT("SELECT ts FROM t WHERE a > 2 OR s IS NULL", "3000", "11000", "25000");
    EXPECT("SELECT ts FROM t WHERE a * 2 = 8", "11000");
    EXPECT("SELECT ts FROM t WHERE a + b > 5", "11000");
    EXPECT_NONE("SELECT ts FROM t WHERE a > 100");
    EXPECT_NONE("SELECT ts FROM t WHERE 1 = 0");
    EXPECT("SELECT ts FROM t WHERE 1 = 1 AND a = 1", "1000");
    EXPECT("SELECT ts FROM t WHERE ts >= '1970-01-01 00:00:03'", "3000", "11000", "12000",
           "25000");
    /* Tags and tbname in WHERE. */
    EXPECT("SELECT tbname, ts FROM meters WHERE loc = 'LA'", "d2|2000", "d2|13000");
    EXPECT("SELECT ts FROM meters WHERE tbname = 'd3'", "500", "21000", "22000");
    EXPECT("SELECT ts FROM meters WHERE gid >= 2 AND cur > 20", "500", "21000", "22000");
    EXPECT("SELECT ts FROM meters WHERE tbname IN ('d1', 'd2') AND volt IS NULL", "5000");
}

/* ------------------------------------------------------------ aggregates */

static void test_aggregates_all(void **state)
{
    (void)state;
    /* a: 1, NULL, 3, 4, -2, 10. mean 3.2, population stddev sqrt(78.8/5) */
    EXPECT("SELECT count(*), count(a), sum(a), avg(a), min(a), max(a), first(a), last(a), "
           "last_row(a), spread(a), stddev(a) FROM t",
           "6|5|16|3.2|-2|10|1|10|10|12|3.969886648");
    /* b: 1.5, 2.5, NULL, 4.0, 0.5, NULL; the last row's b is NULL. */
    EXPECT("SELECT count(b), sum(b), avg(b), min(b), max(b), first(b), last(b), last_row(b), "
           "spread(b), stddev(b) FROM t",
           "4|8.5|2.125|0.5|4|1.5|0.5|NULL|3.5|1.293010054");
    /* Strings: MIN/MAX bytewise, FIRST/LAST skip NULLs. */
    EXPECT("SELECT count(s), min(s), max(s), first(s), last(s) FROM t", "5|x|z|x|y");
    expect_cols("SELECT count(*), count(a), sum(a), avg(a), min(a), max(a), first(a), "
                "last(a), last_row(a), spread(a), stddev(a), sum(b), min(s) FROM t",
                13,
                (const char *[]){"count(*)", "count(a)", "sum(a)", "avg(a)", "min(a)", "max(a)",
                                 "first(a)", "last(a)", "last_row(a)", "spread(a)", "stddev(a)",
                                 "sum(b)", "min(s)"},
                (sl_type[]){SL_T_BIGINT, SL_T_BIGINT, SL_T_BIGINT, SL_T_DOUBLE, SL_T_INT,
                            SL_T_INT, SL_T_INT, SL_T_INT, SL_T_INT, SL_T_DOUBLE, SL_T_DOUBLE,
                            SL_T_DOUBLE, SL_T_VARCHAR});
    /* Over a super table: every child's rows; FIRST/LAST by timestamp, not scan order. */
    EXPECT("SELECT count(*), count(cur), sum(volt), first(cur), last(cur), last_row(volt), "
           "first(ts), last(ts), spread(ts) FROM meters",
           "8|7|1365|30|32|NULL|500|22000|21500");
    /* Tags and tbname as aggregate arguments are constant columns of each block. */
    EXPECT("SELECT sum(gid), avg(gid), spread(gid), count(loc), max(loc), first(loc), "
           "min(tbname), last(tbname), last_row(gid) FROM meters",
           "16|2|2|8|SF|SF|d1|d3|3");
    EXPECT("SELECT loc, sum(gid), min(tbname), max(tbname) FROM meters PARTITION BY loc",
           "SF|12|d1|d3", "LA|4|d2|d2");
    /* Expressions over aggregates and inside them. */
    EXPECT("SELECT sum(a) * 2, max(a) - min(a), avg(a * 10), count(*) + 1 FROM t",
           "32|12|32|7");
    /* The same aggregate twice is computed once and given twice. */
    EXPECT("SELECT count(*), count(*) AS n FROM t", "6|6");
    /* Aggregates with WHERE. */
    EXPECT("SELECT count(*), sum(a), min(b) FROM t WHERE a > 0", "4|18|1.5");
    /* Only NULL inputs: COUNT is 0, the others NULL. */
    EXPECT("SELECT count(*), count(a), sum(a), avg(a), min(a), max(a), first(a), last(a), "
           "last_row(a), spread(a), stddev(a) FROM t WHERE a IS NULL",
           "1|0|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL");
}

static void test_aggregates_empty(void **state)
{
    (void)state;
    const char *want = "0|0|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL";
    EXPECT("SELECT count(*), count(a), sum(a), avg(a), min(a), max(a), first(a), last(a), "
           "last_row(a), spread(a), stddev(a) FROM e",
           want);
    EXPECT("SELECT count(*), count(a), sum(a), avg(a), min(a), max(a), first(a), last(a), "
           "last_row(a), spread(a), stddev(a) FROM t WHERE a > 100",
           want);
    EXPECT("SELECT count(*), sum(cur) FROM meters WHERE ts > 100000", "0|NULL");
    /* A grouped or windowed aggregate over nothing has no rows. */
    EXPECT_NONE("SELECT s, count(*) FROM t WHERE a > 100 GROUP BY s");
    EXPECT_NONE("SELECT count(*) FROM e INTERVAL(10s)");
    EXPECT_NONE("SELECT tbname, count(*) FROM meters WHERE ts > 100000 PARTITION BY tbname");
}

/* ------------------------------------------------------------ GROUP BY / PARTITION BY */

static void test_group_by(void **state)
{
    (void)state;
    /* Groups in order of first appearance; NULL is a group of its own. */
    EXPECT("SELECT s, count(*), sum(a) FROM t GROUP BY s", "x|2|5", "y|2|10", "NULL|1|3",
           "z|1|-2");
    /* The key need not be selected, and may come after the aggregates. */
    EXPECT("SELECT count(*) FROM t GROUP BY s", "2", "2", "1", "1");
    EXPECT("SELECT max(a), s FROM t GROUP BY s", "4|x", "10|y", "3|NULL", "-2|z");
    /* A tag: SF covers d1 and d3. */
    EXPECT("SELECT loc, count(*), avg(cur), max(volt), stddev(cur) FROM meters GROUP BY loc",
           "SF|6|21|250|10.03327796", "LA|2|20|215|0");
    EXPECT("SELECT gid, count(*) FROM meters GROUP BY gid", "1|3", "2|2", "3|3");
    /* Two keys, and an expression key used in the select list. */
    EXPECT("SELECT loc, gid, sum(volt) FROM meters GROUP BY loc, gid", "SF|1|450", "LA|2|425",
           "SF|3|490");
    EXPECT("SELECT a % 2, count(*) FROM t WHERE a IS NOT NULL GROUP BY a % 2", "1|2", "0|3");
    EXPECT("SELECT gid * 10 + 1, count(*) FROM meters GROUP BY gid * 10 + 1", "11|3", "21|2",
           "31|3");
    /* A constant key (a tag) next to a per-row key. */
    EXPECT("SELECT loc, volt IS NULL, count(*) FROM meters GROUP BY loc, volt IS NULL",
           "SF|false|4", "SF|true|2", "LA|false|2");
    /* Key used inside an expression of the select list. */
    EXPECT("SELECT gid + 100, sum(volt) FROM meters GROUP BY gid", "101|450", "102|425",
           "103|490");
}

static void test_partition_by(void **state)
{
    (void)state;
    /* With aggregates: one row per child table, in first-seen order. */
    EXPECT("SELECT tbname, count(*), last(cur), sum(volt) FROM meters PARTITION BY tbname",
           "d1|3|12|450", "d2|2|20|425", "d3|3|32|490");
    EXPECT("SELECT count(*) FROM meters PARTITION BY tbname", "3", "2", "3");
    EXPECT("SELECT loc, tbname, count(*) FROM meters PARTITION BY loc, tbname", "SF|d1|3",
           "LA|d2|2", "SF|d3|3");
    /* Without aggregates: every row, each partition's rows together, in input order. */
    EXPECT("SELECT s, ts FROM t PARTITION BY s", "x|1000", "x|11000", "y|2000", "y|25000",
           "NULL|3000", "z|12000");
    EXPECT("SELECT loc, ts FROM meters PARTITION BY loc", "SF|1000", "SF|5000", "SF|12000",
           "SF|500", "SF|21000", "SF|22000", "LA|2000", "LA|13000");
    EXPECT("SELECT tbname, ts FROM meters WHERE volt > 215 PARTITION BY tbname", "d1|1000",
           "d1|12000", "d3|500", "d3|21000");
}

/* ------------------------------------------------------------ INTERVAL */

static void test_interval(void **state)
{
    (void)state;
    EXPECT("SELECT _wstart, _wend, _wduration, count(*), sum(a) FROM t INTERVAL(10s)",
           "0|10000|10000|3|4", "10000|20000|10000|2|2", "20000|30000|10000|1|10");
    expect_cols("SELECT _wstart, _wend, _wduration, count(*) FROM t INTERVAL(10s)", 4,
                (const char *[]){"_wstart", "_wend", "_wduration", "count(*)"},
                (sl_type[]){SL_T_TIMESTAMP, SL_T_TIMESTAMP, SL_T_BIGINT, SL_T_BIGINT});
    /* Empty windows are not output. */
    EXPECT("SELECT _wstart, count(*) FROM t WHERE ts < 5000 OR ts > 20000 INTERVAL(10s)",
           "0|3", "20000|1");
    /* _wend is exclusive: the row at 20000 opens the next window. */
    EXPECT("SELECT _wstart, _wend, count(*) FROM meters WHERE ts >= 12000 INTERVAL(10s)",
           "10000|20000|2", "20000|30000|2");
    /* A window query selecting only window columns; other durations. */
    EXPECT("SELECT _wstart FROM t INTERVAL(1m)", "0");
    EXPECT("SELECT _wstart, count(*) FROM t INTERVAL(1500a)", "0|1", "1500|1", "3000|1",
           "10500|1", "12000|1", "24000|1");
    /* Windows with an expression over the window columns. */
    EXPECT("SELECT _wend - _wstart, max(a) FROM t INTERVAL(10s)", "10000|3", "10000|4",
           "10000|10");
    /* With a tag key: per key, windows ascending. */
    EXPECT("SELECT loc, _wstart, count(*), sum(volt) FROM meters PARTITION BY loc "
           "INTERVAL(10s)",
           "SF|0|3|460", "SF|10000|1|230", "SF|20000|2|250", "LA|0|1|210", "LA|10000|1|215");
}

static void test_interval_offset(void **state)
{
    (void)state;
    /* Windows start at 2s + k*10s. */
    EXPECT("SELECT _wstart, _wend, count(*), sum(a) FROM t INTERVAL(10s, 2s)",
           "-8000|2000|1|1", "2000|12000|3|7", "12000|22000|1|-2", "22000|32000|1|10");
}

static void test_interval_sliding(void **state)
{
    (void)state;
    /* Windows of 10s every 5s: each row is in two windows. */
    EXPECT("SELECT _wstart, _wend, count(*), sum(a), first(a), last(a) FROM t "
           "INTERVAL(10s) SLIDING(5s)",
           "-5000|5000|3|4|1|3", "0|10000|3|4|1|3", "5000|15000|2|2|4|-2",
           "10000|20000|2|2|4|-2", "20000|30000|1|10|10|10", "25000|35000|1|10|10|10");
    /* SLIDING equal to INTERVAL is a tumbling window. */
    EXPECT("SELECT _wstart, count(*) FROM t INTERVAL(10s) SLIDING(10s)", "0|3", "10000|2",
           "20000|1");
    /* Sliding that does not divide the interval: windows [k*4s, k*4s+10s). */
    EXPECT("SELECT _wstart, count(*) FROM t WHERE ts <= 3000 INTERVAL(10s) SLIDING(4s)",
           "-8000|1", "-4000|3", "0|3");
    /* Offset with sliding: windows start at 1s + k*5s. */
    EXPECT("SELECT _wstart, count(*) FROM t WHERE ts >= 11000 INTERVAL(10s, 1s) SLIDING(5s)",
           "6000|2", "11000|2", "16000|1", "21000|1");
}

static void test_partition_interval_order(void **state)
{
    (void)state;
    EXPECT("SELECT tbname, _wstart, count(*), max(cur) FROM meters PARTITION BY tbname "
           "INTERVAL(10s)",
           "d1|0|2|11", "d1|10000|1|12", "d2|0|1|20", "d2|10000|1|NULL", "d3|0|1|30",
           "d3|20000|2|32");
    /* A non-constant key: rows of different keys interleave in the input. */
    EXPECT("SELECT s, _wstart, count(*) FROM t PARTITION BY s INTERVAL(10s)", "x|0|1",
           "x|10000|1", "y|0|1", "y|20000|1", "NULL|0|1", "z|10000|1");
    /* Sliding windows per partition, still ascending within a partition. */
    EXPECT("SELECT tbname, _wstart, count(*) FROM meters WHERE gid = 2 OR gid = 3 "
           "PARTITION BY tbname INTERVAL(10s) SLIDING(5s)",
           "d2|-5000|1", "d2|0|1", "d2|5000|1", "d2|10000|1", "d3|-5000|1", "d3|0|1",
           "d3|15000|2", "d3|20000|2");
}

/* ------------------------------------------------------------ HAVING */

static void test_having(void **state)
{
    (void)state;
    EXPECT("SELECT s, count(*) FROM t GROUP BY s HAVING count(*) > 1", "x|2", "y|2");
    /* An aggregate that only HAVING uses. */
    EXPECT("SELECT s FROM t GROUP BY s HAVING sum(a) > 4", "x", "y");
    /* HAVING on a key. */
    EXPECT("SELECT s, count(*) FROM t GROUP BY s HAVING s IS NULL OR s = 'z'", "NULL|1",
           "z|1");
    /* HAVING without GROUP BY filters the single row. */
    EXPECT("SELECT count(*) FROM t HAVING count(*) > 3", "6");
    EXPECT_NONE("SELECT count(*) FROM t HAVING count(*) > 6");
    EXPECT("SELECT _wstart, count(*) FROM t INTERVAL(10s) HAVING count(*) >= 2", "0|3",
           "10000|2");
    EXPECT("SELECT tbname, avg(cur) FROM meters PARTITION BY tbname HAVING avg(cur) > 15",
           "d2|20", "d3|31");
    /* HAVING and ORDER BY each bring an aggregate that is not selected. */
    EXPECT("SELECT s FROM t GROUP BY s HAVING count(*) > 1 ORDER BY max(a)", "x", "y");
    EXPECT("SELECT s FROM t GROUP BY s HAVING count(*) > 1 ORDER BY max(a) DESC", "y", "x");
    /* An aggregate only in HAVING makes the query an aggregate one. */
    EXPECT("SELECT 1 FROM t HAVING count(*) > 1", "1");
}

/* ------------------------------------------------------------ ORDER BY, LIMIT */

static void test_order_by(void **state)
{
    (void)state;
    /* Ascending puts NULLs first, descending last. */
    EXPECT("SELECT ts, a FROM t ORDER BY a", "2000|NULL", "12000|-2", "1000|1", "3000|3",
           "11000|4", "25000|10");
    EXPECT("SELECT ts, a FROM t ORDER BY a ASC", "2000|NULL", "12000|-2", "1000|1", "3000|3",
           "11000|4", "25000|10");
    EXPECT("SELECT ts, a FROM t ORDER BY a DESC", "25000|10", "11000|4", "3000|3", "1000|1",
           "12000|-2", "2000|NULL");
    EXPECT("SELECT ts, a FROM t ORDER BY a NULLS LAST", "12000|-2", "1000|1", "3000|3",
           "11000|4", "25000|10", "2000|NULL");
    EXPECT("SELECT ts, a FROM t ORDER BY a DESC NULLS FIRST", "2000|NULL", "25000|10",
           "11000|4", "3000|3", "1000|1", "12000|-2");
    /* By alias; ties (the two NULLs) keep input order. */
    EXPECT("SELECT ts, b * 2 AS bb FROM t ORDER BY bb DESC", "11000|8", "2000|5", "1000|3",
           "12000|1", "3000|NULL", "25000|NULL");
    /* By position, two keys with different directions. */
    EXPECT("SELECT s, a FROM t ORDER BY 1, 2 DESC", "NULL|3", "x|4", "x|1", "y|10", "y|NULL",
           "z|-2");
    /* By an expression that is not selected: the hidden column is dropped. */
    EXPECT("SELECT ts FROM t ORDER BY a * -1", "2000", "25000", "11000", "3000", "1000",
           "12000");
    expect_cols("SELECT ts FROM t ORDER BY a * -1", 1, (const char *[]){"ts"},
                (sl_type[]){SL_T_TIMESTAMP});
    /* By a column that is not selected. */
    EXPECT("SELECT s FROM t ORDER BY b DESC, ts DESC", "x", "y", "x", "z", "y", "NULL");
    /* By the select item's expression written again. */
    EXPECT("SELECT a + 1 FROM t WHERE a > 0 ORDER BY a + 1 DESC", "11", "5", "4", "2");
    /* Strings and doubles. */
    EXPECT("SELECT s, b FROM t ORDER BY s DESC, b", "z|0.5", "y|NULL", "y|2.5", "x|1.5",
           "x|4", "NULL|NULL");
    /* Tags and timestamps over a super table. */
    EXPECT("SELECT tbname, ts FROM meters ORDER BY gid DESC, ts", "d3|500", "d3|21000",
           "d3|22000", "d2|2000", "d2|13000", "d1|1000", "d1|5000", "d1|12000");
    EXPECT("SELECT ts, tbname FROM meters ORDER BY ts", "500|d3", "1000|d1", "2000|d2",
           "5000|d1", "12000|d1", "13000|d2", "21000|d3", "22000|d3");
    /* Aggregate queries: by an aggregate that is not selected, by alias, by key. */
    EXPECT("SELECT s, count(*) FROM t GROUP BY s ORDER BY sum(a) DESC", "y|2", "x|2",
           "NULL|1", "z|1");
    EXPECT("SELECT tbname, count(*) AS n FROM meters PARTITION BY tbname ORDER BY n, tbname",
           "d2|2", "d1|3", "d3|3");
    EXPECT("SELECT count(*) FROM meters GROUP BY loc ORDER BY loc", "2", "6");
    EXPECT("SELECT _wstart, count(*) FROM t INTERVAL(10s) ORDER BY _wstart DESC", "20000|1",
           "10000|2", "0|3");
    EXPECT("SELECT _wstart, count(*) FROM t INTERVAL(10s) ORDER BY 2", "20000|1", "10000|2",
           "0|3");
    /* DISTINCT with ORDER BY on the selected column. */
    EXPECT("SELECT DISTINCT s FROM t ORDER BY s", "NULL", "x", "y", "z");
}

static void test_limit_offset(void **state)
{
    (void)state;
    EXPECT("SELECT ts FROM t ORDER BY ts LIMIT 2", "1000", "2000");
    EXPECT("SELECT ts FROM t ORDER BY ts LIMIT 2 OFFSET 3", "11000", "12000");
    EXPECT("SELECT ts FROM t ORDER BY ts LIMIT 3, 2", "11000", "12000");
    EXPECT("SELECT ts FROM t ORDER BY ts LIMIT 10 OFFSET 5", "25000");
    EXPECT_NONE("SELECT ts FROM t ORDER BY ts LIMIT 10 OFFSET 6");
    EXPECT_NONE("SELECT ts FROM t LIMIT 0");
    EXPECT("SELECT ts FROM t ORDER BY ts DESC LIMIT 1", "25000");
    /* Without ORDER BY, over blocks of two rows: the skip spans blocks. */
    EXPECT("SELECT ts FROM meters LIMIT 3 OFFSET 2", "12000", "2000", "13000");
    EXPECT("SELECT ts FROM meters LIMIT 1 OFFSET 7", "22000");
    EXPECT("SELECT ts FROM meters LIMIT 5", "1000", "5000", "12000", "2000", "13000");
    /* LIMIT applies after aggregation and HAVING. */
    EXPECT("SELECT tbname, count(*) FROM meters PARTITION BY tbname LIMIT 2 OFFSET 1", "d2|2",
           "d3|3");
    EXPECT("SELECT _wstart FROM t INTERVAL(10s) LIMIT 1 OFFSET 1", "10000");
}

static void test_distinct(void **state)
{
    (void)state;
    EXPECT("SELECT DISTINCT s FROM t", "x", "y", "NULL", "z");
    EXPECT("SELECT DISTINCT loc FROM meters", "SF", "LA");
    EXPECT("SELECT DISTINCT loc, gid FROM meters", "SF|1", "LA|2", "SF|3");
    EXPECT("SELECT DISTINCT a % 2 FROM t WHERE a IS NOT NULL", "1", "0");
    EXPECT("SELECT DISTINCT tbname FROM meters WHERE volt IS NULL", "d1", "d3");
    EXPECT("SELECT DISTINCT loc FROM meters ORDER BY loc", "LA", "SF");
    EXPECT("SELECT DISTINCT loc FROM meters LIMIT 1", "SF");
}

static void test_subquery(void **state)
{
    (void)state;
    EXPECT("SELECT avg(a) FROM (SELECT ts, a FROM t WHERE a > 0)", "4.5");
    EXPECT("SELECT avg(c) FROM (SELECT ts, a * 2 AS c FROM t)", "6.4");
    EXPECT("SELECT max(n), min(n), sum(n) FROM (SELECT tbname, count(*) AS n FROM meters "
           "PARTITION BY tbname)",
           "3|2|8");
    EXPECT("SELECT count(*) FROM (SELECT _wstart, count(*) FROM t INTERVAL(10s))", "3");
    /* The outer query windows on the subquery's leading timestamp column. */
    EXPECT("SELECT _wstart, sum(c) FROM (SELECT ts, a AS c FROM t) INTERVAL(10s)", "0|4",
           "10000|2", "20000|10");
    EXPECT("SELECT first(c), last(c) FROM (SELECT ts, a AS c FROM t)", "1|10");
    /* WHERE, ORDER BY and an alias on the subquery. */
    EXPECT("SELECT q.n FROM (SELECT s, count(*) AS n FROM t GROUP BY s) q WHERE q.n > 1 "
           "ORDER BY q.s DESC",
           "2", "2");
    EXPECT("SELECT * FROM (SELECT ts, a FROM t WHERE a > 3)", "11000|4", "25000|10");
    /* tbname of the subquery is an ordinary column outside: a key per row. */
    EXPECT("SELECT tb, count(*), sum(v) FROM (SELECT tbname AS tb, ts, volt AS v FROM meters) "
           "PARTITION BY tb",
           "d1|3|450", "d2|2|425", "d3|3|490");
    EXPECT("SELECT tb, _wstart, count(*) FROM (SELECT ts, tbname AS tb FROM meters) "
           "PARTITION BY tb INTERVAL(10s)",
           "d1|0|2", "d1|10000|1", "d2|0|1", "d2|10000|1", "d3|0|1", "d3|20000|2");
    /* The subquery's window columns are read by name. */
    EXPECT("SELECT _wstart, n FROM (SELECT _wstart, count(*) AS n FROM t INTERVAL(10s)) "
           "WHERE n > 1",
           "0|3", "10000|2");
    EXPECT("SELECT max(_wstart), min(_wend) FROM (SELECT _wstart, _wend, count(*) FROM t "
           "INTERVAL(10s))",
           "20000|10000");
    /* Nested twice. */
    EXPECT("SELECT sum(x) FROM (SELECT ts, c + 1 AS x FROM (SELECT ts, a AS c FROM t))", "21");
}

/* ------------------------------------------------------------ time range pushdown */

static void test_time_range_pushdown(void **state)
{
    (void)state;
    EXPECT("SELECT ts FROM t WHERE ts >= '1970-01-01 00:00:02' AND ts < '1970-01-01 00:00:12'",
           "2000", "3000", "11000");
    assert_int_equal(g_cat.last_lo, 2000);
    assert_int_equal(g_cat.last_hi, 11999);
    /* The bound may come first; other conjuncts stay as filters. */
    EXPECT("SELECT ts FROM t WHERE a > 0 AND ts > 2000 AND 12000 >= ts", "3000", "11000");
    assert_int_equal(g_cat.last_lo, 2001);
    assert_int_equal(g_cat.last_hi, 12000);
    EXPECT("SELECT ts FROM t WHERE ts = 11000", "11000");
    assert_int_equal(g_cat.last_lo, 11000);
    assert_int_equal(g_cat.last_hi, 11000);
    EXPECT("SELECT ts FROM t WHERE ts <= 2000", "1000", "2000");
    assert_int_equal(g_cat.last_lo, INT64_MIN);
    assert_int_equal(g_cat.last_hi, 2000);
    /* OR must not narrow the scan. */
    EXPECT("SELECT ts FROM t WHERE ts < 2000 OR ts > 20000", "1000", "25000");
    assert_int_equal(g_cat.last_lo, INT64_MIN);
    assert_int_equal(g_cat.last_hi, INT64_MAX);
    /* Contradictory bounds give nothing. */
    EXPECT_NONE("SELECT ts FROM t WHERE ts > 5000 AND ts < 4000");
    /* A super table and an aggregate over the range. */
    EXPECT("SELECT count(*), sum(volt) FROM meters WHERE ts >= 12000", "4|695");
    assert_int_equal(g_cat.last_lo, 12000);
    /* Non-integer bounds must not lose rows: 1000 < 1000.5 and 1000 >= 999.5. */
    EXPECT("SELECT ts FROM t WHERE ts < 1000.5", "1000");
    EXPECT("SELECT ts FROM t WHERE ts <= 1000.5", "1000");
    EXPECT("SELECT ts FROM t WHERE ts > 999.5 AND ts < 2000", "1000");
    EXPECT("SELECT ts FROM t WHERE ts >= 999.5 AND ts < 2000", "1000");
    EXPECT_NONE("SELECT ts FROM t WHERE ts = 1000.5");
    /* Windows over a pushed-down range. */
    EXPECT("SELECT _wstart, count(*) FROM meters WHERE ts >= 2000 AND ts < 21000 "
           "INTERVAL(10s)",
           "0|2", "10000|2");
}

/* ------------------------------------------------------------ EXPLAIN */

/* Identifiers match case-insensitively between the select list and the keys. */
static void test_identifier_case(void **state)
{
    (void)state;
    EXPECT("SELECT LOC, count(*) FROM meters GROUP BY loc", "SF|6", "LA|2");
    EXPECT("SELECT TBNAME, count(*) FROM meters PARTITION BY tbname", "d1|3", "d2|2", "d3|3");
    EXPECT("SELECT Gid * 10, COUNT(*) FROM meters GROUP BY gid * 10", "10|3", "20|2", "30|3");
    EXPECT("SELECT DISTINCT S FROM t ORDER BY s", "NULL", "x", "y", "z");
    EXPECT("SELECT s, COUNT(*) FROM t GROUP BY s HAVING count(*) > 1", "x|2", "y|2");
    EXPECT("SELECT a + 1 FROM t WHERE a > 3 ORDER BY A + 1 DESC", "11", "5");
    /* String literals keep their case: s = 'X' is not the key s = 'x'. */
    EXPECT("SELECT s = 'x', count(*) FROM t GROUP BY s = 'x'", "true|2", "false|3",
           "NULL|1");
    expect_error("SELECT s = 'X', count(*) FROM t GROUP BY s = 'x'", SL_EINVAL, 1, 8,
                 "column 's' must appear in PARTITION BY or GROUP BY, or be used in an "
                 "aggregate function");
}

/* Corners found by probing: float keys, NULL window timestamps, NOW, window HAVING. */
static void test_edge_cases(void **state)
{
    (void)state;
    /* -0.0 and 0.0 are one key (a * -0.0 is -0.0 for positive a, 0.0 for a = -2). */
    EXPECT("SELECT count(*) FROM t WHERE a IS NOT NULL GROUP BY a * -0.0", "5");
    EXPECT("SELECT DISTINCT a * -0.0 FROM t WHERE a IS NOT NULL", "-0");
    EXPECT("SELECT a * 0.0, count(*) FROM t WHERE a IS NOT NULL PARTITION BY a * 0.0 "
           "INTERVAL(1m)",
           "0|5");
    /* A subquery row whose timestamp is NULL falls into no window. */
    EXPECT_NONE("SELECT _wstart, count(*) FROM (SELECT last(ts) AS ts FROM t WHERE a > 100) "
                "INTERVAL(10s)");
    /* Rows out of time order (a sorted subquery) still land in the right windows. */
    EXPECT("SELECT _wstart, count(*), first(a), last(a) FROM (SELECT ts, a FROM t ORDER BY a) "
           "INTERVAL(10s)",
           "0|3|1|3", "10000|2|4|-2", "20000|1|10|10");
    EXPECT("SELECT _wstart, count(*) FROM (SELECT ts FROM t ORDER BY ts DESC) INTERVAL(10s) "
           "SLIDING(5s)",
           "-5000|3", "0|3", "5000|2", "10000|2", "20000|1", "25000|1");
    /* NOW is the context's clock, and a bound computed from it is pushed down. */
    EXPECT("SELECT count(*) FROM t WHERE ts >= NOW - 1h", "0");
    assert_int_equal(g_cat.last_lo, 1700000000000 - 3600000);
    EXPECT("SELECT count(*) FROM t WHERE ts < NOW", "6");
    /* HAVING on a window column; ORDER BY an expression over an aggregate. */
    EXPECT("SELECT _wstart, count(*) FROM t INTERVAL(10s) HAVING _wstart > 5000", "10000|2",
           "20000|1");
    EXPECT("SELECT s FROM t GROUP BY s ORDER BY count(*) * -1, s", "x", "y", "NULL", "z");
}

/* More shapes: CASE keys, qualified ORDER BY, tbname of a normal table, ts predicates. */
static void test_more_shapes(void **state)
{
    (void)state;
    EXPECT("SELECT CASE WHEN a > 2 THEN 'big' ELSE 'small' END AS k, count(*) FROM t "
           "GROUP BY CASE WHEN a > 2 THEN 'big' ELSE 'small' END",
           "small|3", "big|3");
    EXPECT("SELECT tbname FROM t WHERE a = 1", "t");
    EXPECT("SELECT a FROM t WHERE a > 0 ORDER BY t.a DESC", "10", "4", "3", "1");
    EXPECT("SELECT tbname, count(*) FROM meters GROUP BY tbname ORDER BY count(*), tbname DESC "
           "LIMIT 1",
           "d2|2");
    EXPECT("SELECT DISTINCT s, a FROM t WHERE a > 0 ORDER BY 2 DESC", "y|10", "x|4", "NULL|3",
           "x|1");
    EXPECT("SELECT count(*) FROM t INTERVAL(10s) FILL(NONE)", "3", "2", "1");
    EXPECT("SELECT ts FROM t WHERE _rowts > 12000", "25000");
    EXPECT("SELECT ts FROM t WHERE ts BETWEEN 2000 AND 11000", "2000", "3000", "11000");
    EXPECT("SELECT ts FROM t WHERE ts IN (1000, 25000)", "1000", "25000");
    EXPECT("SELECT tbname, _wstart, count(*) FROM meters PARTITION BY tbname INTERVAL(10s) "
           "ORDER BY _wstart, tbname",
           "d1|0|2", "d2|0|1", "d3|0|1", "d1|10000|1", "d2|10000|1", "d3|20000|2");
    EXPECT("SELECT count(*) FROM t WHERE s IS NULL OR s IN ('z')", "2");
    EXPECT("SELECT ts FROM t WHERE NOT (ts < 12000)", "12000", "25000");
    EXPECT("SELECT ts FROM t WHERE ts + 1000 > 25000", "25000");
    EXPECT("SELECT ts, a FROM t WHERE ts >= '1970-01-01T00:00:12Z'", "12000|-2", "25000|10");
    EXPECT("SELECT max(ts) - min(ts) FROM t", "24000");
    EXPECT("SELECT count(*) FROM meters WHERE loc LIKE 'S%' AND ts < 6000", "3");
    EXPECT("SELECT avg(volt) FROM meters WHERE gid IN (1, 3) PARTITION BY gid", "225", "245");
    EXPECT("SELECT a FROM t WHERE a > 0 ORDER BY a LIMIT 2 OFFSET 1", "3", "4");
    EXPECT("SELECT s, max(a) FROM t WHERE s IS NOT NULL GROUP BY s ORDER BY max(a) DESC LIMIT 2",
           "y|10", "x|4");
    EXPECT("SELECT _wstart, sum(a) FROM t WHERE ts > 1000 INTERVAL(10s) SLIDING(10s) "
           "ORDER BY 2 DESC NULLS LAST",
           "20000|10", "0|3", "10000|2");
}

static void test_explain(void **state)
{
    (void)state;
    sl_plan *plan;
    sl_error err;
    assert_int_equal(plan_sql("SELECT s, count(*) FROM t WHERE a > 0 GROUP BY s ORDER BY s "
                              "LIMIT 2",
                              &plan, &err),
                     0);
    sl_buf b;
    sl_buf_init(&b);
    assert_int_equal(sl_plan_explain(plan, &b), 0);
    assert_int_equal(sl_buf_put_u8(&b, 0), 0);
    const char *text = (const char *)b.data;
    const char *names[] = {"Limit", "Sort", "Project", "Aggregate", "Filter", "Scan"};
    const char *at = text;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *f = strstr(at, names[i]);
        if (f == NULL)
            fail_msg("EXPLAIN lacks %s (in order):\n%s", names[i], text);
        at = f;
    }
    /* One operator per line, the scan names the table. */
    assert_non_null(strstr(text, "Scan db.t"));
    assert_non_null(strstr(text, "count"));
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 6);
    sl_buf_fini(&b);
    sl_plan_free(plan);

    /* A plain query has no aggregate, a window query says its interval. */
    assert_int_equal(plan_sql("SELECT count(*) FROM meters INTERVAL(10s)", &plan, &err), 0);
    sl_buf_init(&b);
    assert_int_equal(sl_plan_explain(plan, &b), 0);
    assert_int_equal(sl_buf_put_u8(&b, 0), 0);
    assert_non_null(strstr((const char *)b.data, "Aggregate"));
    assert_non_null(strstr((const char *)b.data, "interval=10000"));
    assert_non_null(strstr((const char *)b.data, "Scan db.meters"));
    assert_null(strstr((const char *)b.data, "Filter"));
    sl_buf_fini(&b);
    sl_plan_free(plan);
}

/* ------------------------------------------------------------ refusals */

static void test_refusals(void **state)
{
    (void)state;
    expect_error("SELECT * FROM nosuch", SL_ENOTFOUND, 1, 15,
                 "table 'nosuch' does not exist in database 'db'");
    expect_error("SELECT zz FROM t", SL_ENOTFOUND, 1, 8, "unknown column 'zz' in table 't'");
    expect_error("SELECT a FROM t WHERE zz > 1", SL_ENOTFOUND, 1, 23,
                 "unknown column 'zz' in table 't'");
    expect_error("SELECT q.a FROM t", SL_ENOTFOUND, 1, 8, "unknown table or alias 'q'");
    expect_error("SELECT a, count(*) FROM t", SL_EINVAL, 1, 8,
                 "column 'a' must appear in PARTITION BY or GROUP BY, or be used in an "
                 "aggregate function");
    expect_error("SELECT s, a FROM t GROUP BY s", SL_EINVAL, 1, 11,
                 "column 'a' must appear in PARTITION BY or GROUP BY, or be used in an "
                 "aggregate function");
    expect_error("SELECT volt, count(*) FROM meters PARTITION BY tbname", SL_EINVAL, 1, 8,
                 "column 'volt' must appear in PARTITION BY or GROUP BY, or be used in an "
                 "aggregate function");
    expect_error("SELECT count(*) FROM t ORDER BY a", SL_EINVAL, 1, 33,
                 "column 'a' must appear in PARTITION BY or GROUP BY, or be used in an "
                 "aggregate function");
    expect_error("SELECT a FROM t WHERE count(*) > 1", SL_EINVAL, 1, 23,
                 "aggregate functions are not allowed in WHERE");
    expect_error("SELECT sum(max(a)) FROM t", SL_EINVAL, 1, 8,
                 "aggregate calls cannot be nested");
    expect_error("SELECT sum(s) FROM t", SL_ETYPE, 1, 8, "function SUM does not accept VARCHAR");
    expect_error("SELECT count(*) FROM t GROUP BY count(*)", SL_EINVAL, 1, 33,
                 "aggregate functions are not allowed in PARTITION BY or GROUP BY");
    expect_error("SELECT _wstart, count(*) FROM t", SL_EINVAL, 1, 8,
                 "_wstart is only valid in a query with INTERVAL");
    expect_error("SELECT _wend FROM t", SL_EINVAL, 1, 8,
                 "_wend is only valid in a query with INTERVAL");
    expect_error("SELECT count(*) FROM t INTERVAL(5s) SLIDING(10s)", SL_EINVAL, 1, 45,
                 "SLIDING must be positive and not larger than INTERVAL");
    expect_error("SELECT count(*) FROM t INTERVAL(10s, 10s)", SL_EINVAL, 1, 38,
                 "INTERVAL offset must be smaller than the interval");
    expect_error("SELECT count(*) FROM t INTERVAL(10s, 15s)", SL_EINVAL, 1, 38,
                 "INTERVAL offset must be smaller than the interval");
    expect_error("SELECT count(*) FROM t INTERVAL(1n)", SL_EUNSUPPORTED, 1, 33,
                 "INTERVAL with month or year units is not supported in queries");
    expect_error("SELECT count(*) FROM t INTERVAL(10s) FILL(PREV)", SL_EUNSUPPORTED, 1, 1,
                 "FILL other than NONE is not supported yet");
    expect_error("SELECT _twstart, count(*) FROM t", SL_EINVAL, 1, 8,
                 "placeholder _twstart is only valid in a stream computation");
    expect_error("SELECT a FROM t WHERE ts > _twstart", SL_EINVAL, 1, 28,
                 "placeholder _twstart is only valid in a stream computation");
    expect_error("SELECT * FROM %%trows", SL_EINVAL, 1, 15,
                 "%%trows is only valid in a stream computation");
    expect_error("SELECT a FROM t ORDER BY 3", SL_EINVAL, 1, 26,
                 "ORDER BY position 3 is not in the select list (1..1)");
    expect_error("SELECT a, b FROM t ORDER BY 0", SL_EINVAL, 1, 29,
                 "ORDER BY position 0 is not in the select list (1..2)");
    expect_error("SELECT a FROM t HAVING a > 1", SL_EINVAL, 1, 24,
                 "HAVING needs GROUP BY, INTERVAL or an aggregate function");
    expect_error("SELECT count(*), * FROM t", SL_EINVAL, 1, 18,
                 "'*' cannot be selected in an aggregate query");
    expect_error("SELECT a FROM t WHERE a + 1", SL_ETYPE, 1, 23,
                 "WHERE needs a boolean condition, got BIGINT");
    expect_error("SELECT DISTINCT s FROM t ORDER BY a", SL_EINVAL, 1, 35,
                 "ORDER BY of a DISTINCT query must use selected columns");
    expect_error("SELECT first(a) FROM (SELECT a FROM t)", SL_EINVAL, 1, 8,
                 "first needs a source with a timestamp key");
    /* Errors inside a subquery come out with their position, nothing leaks. */
    expect_error("SELECT * FROM (SELECT zz FROM t)", SL_ENOTFOUND, 1, 23,
                 "unknown column 'zz' in table 't'");
    expect_error("SELECT y FROM (SELECT a AS x FROM t)", SL_ENOTFOUND, 1, 8,
                 "unknown column 'y'");
    expect_error("SELECT a FROM t ORDER BY zz", SL_ENOTFOUND, 1, 26,
                 "unknown column 'zz' in table 't'");
    expect_error("SELECT s, count(*) FROM t GROUP BY s HAVING count(*)", SL_ETYPE, 1, 45,
                 "HAVING needs a boolean condition");
    expect_error("SELECT count(DISTINCT a) FROM t", SL_EUNSUPPORTED, 1, 8,
                 "count(DISTINCT ...) is not supported");
    expect_error("SELECT _wstart, count(*) FROM (SELECT a FROM t) INTERVAL(10s)", SL_EINVAL, 1,
                 58, "INTERVAL needs a source with a timestamp key");
    expect_error("SELECT a FROM nodb.t", SL_ENOTFOUND, 1, 15,
                 "database 'nodb' does not exist");
    expect_error("SELECT count(*) FROM t INTERVAL(10s) SLIDING(0s)", SL_EINVAL, 1, 46,
                 "SLIDING must be positive and not larger than INTERVAL");
    expect_error("SELECT count(a, b) FROM t", SL_EINVAL, 1, 8, "count takes 1 argument, got 2");
    expect_error("SELECT sum(*) FROM t", SL_EINVAL, 1, 8,
                 "sum(*) is not valid; only COUNT(*) is");
    expect_error("SELECT _wstart FROM t WHERE _wend > 0 INTERVAL(10s)", SL_EINVAL, 1, 29,
                 "_wend is only valid in a window query");
}

/* The current database of the context is where unqualified names are looked up. */
static void test_current_database(void **state)
{
    (void)state;
    sl_parse_result *pr = NULL;
    sl_error err;
    assert_int_equal(sl_parse("SELECT a FROM t", 15, &pr, &err), 0);
    sl_plan_ctx ctx = test_ctx();
    ctx.db = "other";
    sl_plan *plan = NULL;
    sl_error_clear(&err);
    assert_int_equal(sl_plan_select(pr->stmts[0]->u.select, &ctx, &plan, &err), SL_ENOTFOUND);
    assert_null(plan);
    assert_string_equal(g_cat.last_db, "other");
    assert_string_equal(err.msg, "database 'other' does not exist");
    assert_int_equal(err.line, 1);
    assert_int_equal(err.col, 15);
    sl_parse_result_free(pr);
}

/* Errors while running (not planning) come back from sl_plan_collect, nothing leaks. */
static void test_runtime_error(void **state)
{
    (void)state;
    sl_plan *plan;
    sl_error err;
    assert_int_equal(plan_sql("SELECT a % 0 FROM t ORDER BY a", &plan, &err), 0);
    sl_block out;
    sl_block_init(&out);
    sl_error_clear(&err);
    assert_int_equal(sl_plan_collect(plan, &out, &err), SL_EDIVZERO);
    assert_int_equal(err.code, SL_EDIVZERO);
    sl_block_fini(&out);
    sl_plan_free(plan);
    assert_int_equal(g_cat.open, 0);

    /* A plan freed before it is run, and one freed half way. */
    assert_int_equal(plan_sql("SELECT s, count(*) FROM t GROUP BY s", &plan, &err), 0);
    sl_plan_free(plan);
    assert_int_equal(plan_sql("SELECT ts FROM meters", &plan, &err), 0);
    sl_block *b;
    assert_int_equal(sl_plan_next(plan, &b, &err), 0);
    assert_non_null(b);
    assert_int_equal(b->nrows, 2);
    sl_plan_free(plan);
    assert_int_equal(g_cat.open, 0);

    /* After the end, next keeps saying "end" for every kind of root operator. */
    const char *queries[] = {"SELECT ts FROM t", "SELECT count(*) FROM t",
                             "SELECT s FROM t PARTITION BY s", "SELECT ts FROM t ORDER BY a",
                             "SELECT ts FROM t LIMIT 2", "SELECT 1",
                             "SELECT ts FROM t WHERE a > 0"};
    for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
        assert_int_equal(plan_sql(queries[q], &plan, &err), 0);
        int blocks = 0;
        do {
            assert_int_equal(sl_plan_next(plan, &b, &err), 0);
            blocks++;
        } while (b != NULL && blocks < 100);
        assert_null(b);
        assert_int_equal(sl_plan_next(plan, &b, &err), 0);
        assert_null(b);
        sl_plan_free(plan);
    }
    assert_int_equal(g_cat.open, 0);
}

/* A scan that fails to open or fails half way: every operator hands the error up. */
static void test_scan_errors(void **state)
{
    (void)state;
    const char *queries[] = {
        "SELECT ts FROM meters",
        "SELECT ts FROM meters WHERE volt > 0",
        "SELECT count(*) FROM meters",
        "SELECT tbname, _wstart, count(*) FROM meters PARTITION BY tbname INTERVAL(10s)",
        "SELECT ts FROM meters PARTITION BY loc",
        "SELECT ts FROM meters ORDER BY cur",
        "SELECT ts FROM meters LIMIT 5 OFFSET 3",
        "SELECT DISTINCT loc FROM meters",
        "SELECT avg(v) FROM (SELECT ts, volt AS v FROM meters)",
    };
    for (int mode = 0; mode < 2; mode++) {
        for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
            g_cat.fail_open = mode == 0;
            g_cat.fail_after = mode == 1 ? 2 : 0;
            sl_plan *plan;
            sl_error err;
            assert_int_equal(plan_sql(queries[q], &plan, &err), 0);
            sl_block out;
            sl_block_init(&out);
            sl_error_clear(&err);
            int rc = sl_plan_collect(plan, &out, &err);
            if (rc != SL_EIO)
                fail_msg("%s: got %d (%s), want SL_EIO", queries[q], rc, err.msg);
            assert_string_equal(err.msg, mode == 0 ? "vnode unreachable" : "disk on fire");
            sl_block_fini(&out);
            sl_plan_free(plan);
            assert_int_equal(g_cat.open, 0);
        }
    }
    g_cat.fail_open = 0;
    g_cat.fail_after = 0;
}

/* ------------------------------------------------------------ through the embedded store */

static int64_t fixed_now(void *ud)
{
    (void)ud;
    return 1700000000000;
}

static void ms_exec_ok(sl_memstore *ms, const char *sql, sl_result *res)
{
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_memstore_exec(ms, sql, res, &err);
    if (rc != 0)
        fail_msg("\"%s\" failed: %d %s", sql, rc, err.msg);
}

static void ms_expect(sl_memstore *ms, const char *sql, const char *const *want)
{
    sl_result res;
    ms_exec_ok(ms, sql, &res);
    int nwant = 0;
    while (want[nwant] != NULL)
        nwant++;
    bool ok = (int)res.rows.nrows == nwant;
    char got[1024];
    for (uint32_t r = 0; ok && r < res.rows.nrows; r++) {
        fmt_row(&res.rows, r, got, sizeof(got));
        ok = strcmp(got, want[r]) == 0;
    }
    if (!ok) {
        print_error("query: %s\n got %u rows:\n", sql, res.rows.nrows);
        for (uint32_t r = 0; r < res.rows.nrows; r++) {
            fmt_row(&res.rows, r, got, sizeof(got));
            print_error("   %s\n", got);
        }
    }
    sl_result_fini(&res);
    if (!ok)
        fail_msg("result mismatch for \"%s\"", sql);
}

#define MS_EXPECT(ms, sql, ...) ms_expect((ms), (sql), (const char *const[]){__VA_ARGS__, NULL})

static void test_memstore_end_to_end(void **state)
{
    (void)state;
    sl_memstore *ms;
    assert_int_equal(sl_memstore_open(&ms, fixed_now, NULL), 0);
    sl_result res;
    ms_exec_ok(ms,
               "CREATE DATABASE db; USE db;"
               "CREATE STABLE meters (ts TIMESTAMP, cur DOUBLE, volt INT) "
               "TAGS (loc VARCHAR(16), gid INT);"
               "CREATE TABLE d1 USING meters TAGS ('SF', 1);"
               "INSERT INTO d1 VALUES (1000, 10, 220) (5000, 11, NULL) (12000, 12, 230);"
               "INSERT INTO d2 USING meters TAGS ('LA', 2) VALUES (2000, 20, 210) "
               "(13000, NULL, 215);"
               "INSERT INTO d3 USING meters TAGS ('SF', 3) VALUES (500, 30, 240) "
               "(21000, 31, 250) (22000, 32, NULL)",
               &res);
    sl_result_fini(&res);
    MS_EXPECT(ms, "SELECT tbname, count(*), last(cur), sum(volt) FROM meters PARTITION BY tbname",
              "d1|3|12|450", "d2|2|20|425", "d3|3|32|490");
    MS_EXPECT(ms, "SELECT loc, count(*), avg(cur) FROM meters GROUP BY loc", "SF|6|21",
              "LA|2|20");
    MS_EXPECT(ms,
              "SELECT tbname, _wstart, count(*), max(cur) FROM meters PARTITION BY tbname "
              "INTERVAL(10s)",
              "d1|0|2|11", "d1|10000|1|12", "d2|0|1|20", "d2|10000|1|NULL", "d3|0|1|30",
              "d3|20000|2|32");
    MS_EXPECT(ms,
              "SELECT ts, volt FROM meters WHERE ts >= '1970-01-01 00:00:02' AND "
              "ts < '1970-01-01 00:00:13' ORDER BY ts DESC",
              "12000|230", "5000|NULL", "2000|210");
    /* An update of an existing timestamp replaces the row. */
    ms_exec_ok(ms, "INSERT INTO d1 VALUES (5000, 15, 225)", &res);
    sl_result_fini(&res);
    MS_EXPECT(ms, "SELECT count(*), sum(volt), max(cur) FROM d1", "3|675|15");
    MS_EXPECT(ms, "SELECT count(*) FROM meters WHERE ts > 100000", "0");
    /* The store's own message for an unknown table, with the position. */
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_exec(ms, "SELECT * FROM nosuch", &res, &err), SL_ENOTFOUND);
    assert_string_equal(err.msg, "1:15: table 'nosuch' does not exist in database 'db'");
    assert_int_equal(err.line, 1);
    assert_int_equal(err.col, 15);
    sl_result_fini(&res);
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_exec(ms, "SELECT volt, count(*) FROM meters", &res, &err),
                     SL_EINVAL);
    assert_non_null(strstr(err.msg, "column 'volt' must appear in PARTITION BY or GROUP BY, "
                                    "or be used in an aggregate function"));
    sl_result_fini(&res);

    /* Microsecond precision: durations and _wduration are counted in microseconds. */
    ms_exec_ok(ms,
               "CREATE DATABASE du PRECISION 'us';"
               "CREATE TABLE du.m (ts TIMESTAMP, v INT);"
               "INSERT INTO du.m VALUES ('1970-01-01 00:00:01', 1) ('1970-01-01 00:00:02.5', 2) "
               "('1970-01-01 00:00:12', 3)",
               &res);
    sl_result_fini(&res);
    MS_EXPECT(ms, "SELECT _wstart, _wend, _wduration, sum(v) FROM du.m INTERVAL(10s)",
              "0|10000000|10000000|3", "10000000|20000000|10000000|3");
    MS_EXPECT(ms, "SELECT ts FROM du.m WHERE ts > '1970-01-01 00:00:02' AND ts < 12000000",
              "2500000");
    MS_EXPECT(ms, "SELECT _wstart, count(*) FROM du.m INTERVAL(2500a)", "0|1", "2500000|1",
              "10000000|1");
    sl_memstore_close(ms);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_select_star),
        cmocka_unit_test(test_select_columns_expressions),
        cmocka_unit_test(test_select_without_from),
        cmocka_unit_test(test_where_predicates),
        cmocka_unit_test(test_aggregates_all),
        cmocka_unit_test(test_aggregates_empty),
        cmocka_unit_test(test_group_by),
        cmocka_unit_test(test_partition_by),
        cmocka_unit_test(test_interval),
        cmocka_unit_test(test_interval_offset),
        cmocka_unit_test(test_interval_sliding),
        cmocka_unit_test(test_partition_interval_order),
        cmocka_unit_test(test_having),
        cmocka_unit_test(test_order_by),
        cmocka_unit_test(test_limit_offset),
        cmocka_unit_test(test_distinct),
        cmocka_unit_test(test_subquery),
        cmocka_unit_test(test_time_range_pushdown),
        cmocka_unit_test(test_identifier_case),
        cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_more_shapes),
        cmocka_unit_test(test_explain),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_current_database),
        cmocka_unit_test(test_runtime_error),
        cmocka_unit_test(test_scan_errors),
        cmocka_unit_test(test_memstore_end_to_end),
    };
    return cmocka_run_group_tests(tests, setup_catalog, teardown_catalog);
}
