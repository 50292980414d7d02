/*
 * test_exec_split.c - a query split between storage nodes and the querying node gives
 * exactly what one node holding every table gives.
 *
 * Three embedded stores share a super table: "all" holds ten child tables, "a" and "b"
 * hold five each (the same rows). Every query is planned FULL over "all" (the reference)
 * and MERGE over "all"'s metadata with a remote source that runs the PARTIAL plan of the
 * same statement on "a" and on "b" and concatenates their blocks. Results must match
 * (doubles to 10 significant digits: merged float sums and STDDEV may differ in the last
 * bits); row order must match where the query has ORDER BY. The PARTIAL plan's own shape
 * (columns, refusal of MERGE without a remote source) is checked too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/exec/exec.h"
#include "common/exec/memstore.h"
#include "common/exec/plan.h"
#include "common/sql/parser.h"

static sl_memstore *st_all, *st_a, *st_b;

static int64_t fixed_now(void *ud)
{
    (void)ud;
    return 1735689600000LL + 3600000;
}

static void exec_ok(sl_memstore *ms, const char *sql)
{
    sl_result r;
    sl_error err;
    sl_error_clear(&err);
    if (sl_memstore_exec(ms, sql, &r, &err) != 0)
        fail_msg("%s: %s", sql, err.msg);
    sl_result_fini(&r);
}

static int setup(void **state)
{
    (void)state;
    sl_memstore **stores[3] = {&st_all, &st_a, &st_b};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(sl_memstore_open(stores[i], fixed_now, NULL), 0);
        exec_ok(*stores[i], "CREATE DATABASE db; USE db; CREATE STABLE m (ts TIMESTAMP, "
                            "v INT, d DOUBLE, s VARCHAR(8)) TAGS (loc VARCHAR(8), g INT)");
    }
    uint64_t x = 12345;
    char sql[256];
    for (int t = 0; t < 10; t++) {
        sl_memstore *half = t < 5 ? st_a : st_b;
        snprintf(sql, sizeof(sql), "CREATE TABLE d%d USING m TAGS ('%s', %d)", t,
                 t % 3 == 0 ? "SF" : t % 3 == 1 ? "LA" : "NY", t % 4);
        exec_ok(st_all, sql);
        exec_ok(half, sql);
        for (int r = 0; r < 120; r++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            int64_t ts = 1735689600000LL + r * 7000 + (int64_t)(t * 13);
            int v = (int)((x >> 33) % 200) - 50;
            double d = (double)((x >> 20) % 10000) / 16.0;
            bool vnull = (x >> 10) % 9 == 0, dnull = (x >> 14) % 11 == 0;
            char vbuf[32], dbuf[48];
            snprintf(vbuf, sizeof(vbuf), "%d", v);
            snprintf(dbuf, sizeof(dbuf), "%.4f", d);
            snprintf(sql, sizeof(sql), "INSERT INTO d%d VALUES (%lld, %s, %s, '%c')", t,
                     (long long)ts, vnull ? "NULL" : vbuf, dnull ? "NULL" : dbuf,
                     'a' + (int)(x % 5));
            exec_ok(st_all, sql);
            exec_ok(half, sql);
        }
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sl_memstore_close(st_all);
    sl_memstore_close(st_a);
    sl_memstore_close(st_b);
    return 0;
}

/* The remote source: the PARTIAL plan of the statement on both halves, concatenated. */
static int open_remote(void *ud, const sl_select *sel, const sl_table_meta *meta, sl_op **out,
                       sl_error *err)
{
    (void)ud;
    (void)meta;
    sl_memstore *halves[2] = {st_a, st_b};
    sl_op *kids[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        sl_plan_ctx ctx = {.catalog = sl_memstore_catalog(halves[i]), .db = "db",
                           .now_ms = fixed_now(NULL), .mode = SL_PLAN_PARTIAL};
        sl_plan *p;
        int rc = sl_plan_select(sel, &ctx, &p, err);
        if (rc != 0) {
            sl_op_free(kids[0]);
            return rc;
        }
        kids[i] = sl_plan_take_root(p);
        sl_plan_free(p);
    }
    return sl_op_concat_new(kids, 2, out, err);
}

static void fmt_rows(const sl_block *b, char ***out, int *n)
{
    *n = (int)b->nrows;
    *out = calloc(b->nrows + 1, sizeof(char *));
    for (uint32_t r = 0; r < b->nrows; r++) {
        char line[1024];
        size_t off = 0;
        for (uint32_t c = 0; c < b->ncols; c++) {
            sl_value v;
            sl_column_get(&b->cols[c], r, &v);
            char cell[128];
            if (v.is_null)
                snprintf(cell, sizeof(cell), "NULL");
            else if (v.type == SL_T_DOUBLE || v.type == SL_T_FLOAT)
                snprintf(cell, sizeof(cell), "%.10g", v.v.d);
            else
                sl_value_format(&v, SL_PREC_MS, cell, sizeof(cell));
            off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%s", c ? "|" : "", cell);
        }
        (*out)[r] = strdup(line);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run(const sl_select *sel, sl_plan_mode mode, sl_block *rows, sl_error *err)
{
    sl_plan_ctx ctx = {.catalog = sl_memstore_catalog(st_all), .db = "db",
                       .now_ms = fixed_now(NULL), .mode = mode, .open_remote = open_remote};
    sl_plan *p;
    int rc = sl_plan_select(sel, &ctx, &p, err);
    if (rc != 0)
        return rc;
    rc = sl_plan_collect(p, rows, err);
    sl_plan_free(p);
    return rc;
}

static void check_query(const char *sql)
{
    sl_parse_result *pr;
    sl_error err;
    sl_error_clear(&err);
    if (sl_parse(sql, strlen(sql), &pr, &err) != 0)
        fail_msg("parse %s: %s", sql, err.msg);
    const sl_select *sel = pr->stmts[0]->u.select;
    sl_block full, merged;
    sl_block_init(&full);
    sl_block_init(&merged);
    if (run(sel, SL_PLAN_FULL, &full, &err) != 0)
        fail_msg("FULL %s: %s", sql, err.msg);
    if (run(sel, SL_PLAN_MERGE, &merged, &err) != 0)
        fail_msg("MERGE %s: %s", sql, err.msg);
    char **fr, **mr;
    int nf, nm;
    fmt_rows(&full, &fr, &nf);
    fmt_rows(&merged, &mr, &nm);
    if (sel->norder == 0) {
        qsort(fr, (size_t)nf, sizeof(char *), cmp_str);
        qsort(mr, (size_t)nm, sizeof(char *), cmp_str);
    }
    if (nf != nm)
        fail_msg("%s: FULL gave %d rows, MERGE %d", sql, nf, nm);
    assert_true(nf > 0);
    for (int i = 0; i < nf; i++)
        if (strcmp(fr[i], mr[i]) != 0)
            fail_msg("%s: row %d differs:\n FULL  %s\n MERGE %s", sql, i, fr[i], mr[i]);
    for (int i = 0; i < nf; i++) {
        free(fr[i]);
        free(mr[i]);
    }
    free(fr);
    free(mr);
    sl_block_fini(&full);
    sl_block_fini(&merged);
    sl_parse_result_free(pr);
}

static void test_split_equals_full(void **state)
{
    (void)state;
    static const char *queries[] = {
        "SELECT count(*), count(v), sum(v), avg(v), min(v), max(v), spread(v), stddev(v) FROM m",
        "SELECT count(*), sum(d), avg(d), min(d), max(d), stddev(d) FROM m WHERE v > 0",
        "SELECT first(v), last(v), last_row(v), first(s), last(s), min(s), max(s) FROM m",
        "SELECT tbname, count(*), avg(v), max(d) FROM m PARTITION BY tbname",
        "SELECT loc, count(*), sum(v), min(s) FROM m GROUP BY loc",
        "SELECT loc, g, count(*), avg(d) FROM m GROUP BY loc, g HAVING count(*) > 100",
        "SELECT _wstart, _wend, count(*), sum(v), max(d) FROM m INTERVAL(1m)",
        "SELECT tbname, _wstart, count(*), avg(v) FROM m PARTITION BY tbname INTERVAL(2m)",
        "SELECT _wstart, count(*), min(v), first(d), last(d) FROM m INTERVAL(3m) SLIDING(1m)",
        "SELECT _wstart, count(*) FROM m WHERE ts >= '2025-01-01 00:02:00' AND ts < "
        "'2025-01-01 00:09:00' INTERVAL(1m, 10s)",
        "SELECT loc, count(*) AS c FROM m GROUP BY loc ORDER BY c DESC, loc",
        "SELECT tbname, max(v) - min(v) AS r, count(*) * 2 FROM m PARTITION BY tbname ORDER BY "
        "r DESC, tbname LIMIT 4 OFFSET 1",
        "SELECT DISTINCT loc, g FROM m",
        "SELECT count(*) FROM m WHERE v IS NULL OR d IS NULL",
        "SELECT ts, tbname, v, d FROM m WHERE v > 140 ORDER BY ts, tbname",
        "SELECT tbname, ts, v FROM m WHERE s = 'c' AND v < -45 PARTITION BY tbname",
        "SELECT ts, v * 2 + 1, CASE WHEN d > 300 THEN 'hi' ELSE 'lo' END FROM m WHERE g = 2 "
        "ORDER BY ts DESC LIMIT 10",
        "SELECT avg(x) FROM (SELECT v AS x FROM m WHERE v IS NOT NULL)",
        "SELECT count(*), max(c) FROM (SELECT tbname, count(*) AS c FROM m PARTITION BY tbname)",
        "SELECT count(*), sum(v) FROM m WHERE ts > NOW",
    };
    for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++)
        check_query(queries[i]);
}

/* The MERGE plan really merges: its tree reads the remote source. */
static void test_merge_plan_shape(void **state)
{
    (void)state;
    const char *sql = "SELECT tbname, count(*) FROM m PARTITION BY tbname";
    sl_parse_result *pr;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_parse(sql, strlen(sql), &pr, &err), 0);
    sl_plan_ctx ctx = {.catalog = sl_memstore_catalog(st_all), .db = "db",
                       .now_ms = fixed_now(NULL), .mode = SL_PLAN_MERGE,
                       .open_remote = open_remote};
    sl_plan *p;
    assert_int_equal(sl_plan_select(pr->stmts[0]->u.select, &ctx, &p, &err), 0);
    sl_buf ex;
    sl_buf_init(&ex);
    assert_int_equal(sl_plan_explain(p, &ex), 0);
    assert_int_equal(sl_buf_put_u8(&ex, 0), 0);
    assert_non_null(strstr((const char *)ex.data, "Aggregate merge keys=1"));
    assert_non_null(strstr((const char *)ex.data, "Concat inputs=2"));
    assert_null(strstr((const char *)ex.data, "Scan"));
    sl_buf_fini(&ex);
    sl_plan_free(p);
    sl_parse_result_free(pr);
}

static void test_partial_shape(void **state)
{
    (void)state;
    const char *sql = "SELECT loc, _wstart, count(*), avg(v) FROM m PARTITION BY loc INTERVAL(1m)";
    sl_parse_result *pr;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_parse(sql, strlen(sql), &pr, &err), 0);
    sl_plan_ctx ctx = {.catalog = sl_memstore_catalog(st_a), .db = "db",
                       .now_ms = fixed_now(NULL), .mode = SL_PLAN_PARTIAL};
    sl_plan *p;
    assert_int_equal(sl_plan_select(pr->stmts[0]->u.select, &ctx, &p, &err), 0);
    static const char *names[] = {"_key0", "_wstart", "_wend", "_wduration", "_state0",
                                  "_state1"};
    static const sl_type types[] = {SL_T_VARCHAR, SL_T_TIMESTAMP, SL_T_TIMESTAMP, SL_T_BIGINT,
                                    SL_T_VARCHAR, SL_T_VARCHAR};
    assert_int_equal(sl_plan_ncols(p), 6);
    for (int i = 0; i < 6; i++) {
        assert_string_equal(sl_plan_col_name(p, i), names[i]);
        assert_int_equal(sl_plan_col_type(p, i), types[i]);
    }
    sl_buf ex;
    sl_buf_init(&ex);
    assert_int_equal(sl_plan_explain(p, &ex), 0);
    assert_int_equal(sl_buf_put_u8(&ex, 0), 0);
    assert_non_null(strstr((const char *)ex.data, "Aggregate partial"));
    sl_buf_fini(&ex);
    sl_plan_free(p);

    /* MERGE without a remote source is refused with a clear error. */
    ctx.mode = SL_PLAN_MERGE;
    sl_error_clear(&err);
    assert_int_equal(sl_plan_select(pr->stmts[0]->u.select, &ctx, &p, &err), SL_ESTATE);
    assert_string_equal(err.msg, "no remote source to merge from");
    sl_parse_result_free(pr);
}

/* A malformed partial state reaching the merge is an error, not a crash. */
static int open_bad_remote(void *ud, const sl_select *sel, const sl_table_meta *meta,
                           sl_op **out, sl_error *err)
{
    (void)ud;
    (void)sel;
    (void)meta;
    (void)out;
    return sl_error_set(err, SL_EUNAVAILABLE, 0, 0, "vnode 2 is unreachable");
}

static void test_remote_failure(void **state)
{
    (void)state;
    const char *sql = "SELECT count(*) FROM m";
    sl_parse_result *pr;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_parse(sql, strlen(sql), &pr, &err), 0);
    sl_plan_ctx ctx = {.catalog = sl_memstore_catalog(st_all), .db = "db",
                       .now_ms = fixed_now(NULL), .mode = SL_PLAN_MERGE,
                       .open_remote = open_bad_remote};
    sl_plan *p;
    assert_int_equal(sl_plan_select(pr->stmts[0]->u.select, &ctx, &p, &err), SL_EUNAVAILABLE);
    assert_string_equal(err.msg, "vnode 2 is unreachable");
    sl_parse_result_free(pr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_equals_full),
        cmocka_unit_test(test_merge_plan_shape),
        cmocka_unit_test(test_partial_shape),
        cmocka_unit_test(test_remote_failure),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
