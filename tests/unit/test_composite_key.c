/*
 * test_composite_key.c - COMPOSITE KEY (a table whose rows are identified by (timestamp,
 * second column)) in the embedded engine (memstore) and in the vnode storage engine
 * (vstore): several keys per timestamp, last write wins per (timestamp, key), scans in
 * (timestamp, key) order, deletes by time range over every key, compaction of overlapping
 * blocks, change-log INSERT/UPDATE kinds per (timestamp, key), refusals that change
 * nothing, and persistence across a reopen.
 *
 * Expected rows are written out by hand, or, for the larger vstore cases, computed by a
 * model in this file (a plain array of (ts, key, value) kept sorted with last write wins)
 * that shares no code with the store.
 */
#define _GNU_SOURCE /* nftw */
#include "memstore_fixture.h"
#include "test_vstore_util.h"

/* ================================================================== blocks of (ts, key, v) */

/* An empty block of columns ts TIMESTAMP, k <kt> (VARCHAR(16) when text), v <vt>. */
static sl_block *key_block(sl_type kt, sl_type vt)
{
    sl_block *b = sl_block_new();
    assert_int_equal(sl_block_add_column(b, SL_T_TIMESTAMP, 0), 0);
    assert_int_equal(sl_block_add_column(b, kt, kt == SL_T_VARCHAR ? 16 : 0), 1);
    assert_int_equal(sl_block_add_column(b, vt, 0), 2);
    return b;
}

/* Appends (ts, key, v) to an INT/BIGINT-keyed block. */
static void kv_row(sl_block *b, int64_t ts, int64_t key, int64_t v)
{
    assert_int_equal(sl_column_append_i64(&b->cols[0], ts), 0);
    assert_int_equal(sl_column_append_i64(&b->cols[1], key), 0);
    assert_int_equal(sl_column_append_i64(&b->cols[2], v), 0);
    sl_block_seal(b);
}

/* Appends (ts, text key, v) to a VARCHAR-keyed block. */
static void kv_srow(sl_block *b, int64_t ts, const char *key, int64_t v)
{
    assert_int_equal(sl_column_append_i64(&b->cols[0], ts), 0);
    assert_int_equal(sl_column_append_str(&b->cols[1], key, (uint32_t)strlen(key)), 0);
    assert_int_equal(sl_column_append_i64(&b->cols[2], v), 0);
    sl_block_seal(b);
}

/* Appends (ts, NULL key, v), a row every store must refuse. */
static void kv_null_key_row(sl_block *b, int64_t ts, int64_t v)
{
    assert_int_equal(sl_column_append_i64(&b->cols[0], ts), 0);
    assert_int_equal(sl_column_append_null(&b->cols[1]), 0);
    assert_int_equal(sl_column_append_i64(&b->cols[2], v), 0);
    sl_block_seal(b);
}

/* ================================================================== the embedded engine */

/* A new store with database db in use. */
static sl_memstore *open_db(void)
{
    sl_memstore *ms = open_store();
    run(ms, "CREATE DATABASE db", 0);
    run(ms, "USE db", 0);
    return ms;
}

/* The rows of sql as "v,v,v;" per row: integers and timestamps as numbers, floats as %g,
 * text as is, NULL as "NULL"; the same for any column widths (caller frees). */
static char *ms_rows(sl_memstore *ms, const char *sql)
{
    sl_result r;
    exec_ok(ms, sql, &r);
    sl_buf b;
    sl_buf_init(&b);
    for (uint32_t i = 0; i < r.rows.nrows; i++) {
        for (uint32_t c = 0; c < r.rows.ncols; c++) {
            const sl_column *col = &r.rows.cols[c];
            if (c > 0)
                sl_buf_put(&b, ",", 1);
            if (sl_column_is_null(col, i)) {
                sl_buf_printf(&b, "NULL");
            } else if (sl_type_is_var(col->type)) {
                uint32_t len;
                const char *p = sl_column_get_str(col, i, &len);
                sl_buf_put(&b, p, len);
            } else if (sl_type_is_float(col->type)) {
                sl_buf_printf(&b, "%g", sl_column_get_f64(col, i));
            } else {
                sl_buf_printf(&b, "%lld", (long long)sl_column_get_i64(col, i));
            }
        }
        sl_buf_put(&b, ";", 1);
    }
    sl_buf_put_u8(&b, 0);
    sl_result_fini(&r);
    return (char *)b.data;
}

static void ms_expect(sl_memstore *ms, const char *sql, const char *want)
{
    char *got = ms_rows(ms, sql);
    if (strcmp(got, want) != 0)
        fail_msg("sql: %s\n  got  %s\n  want %s", sql, got, want);
    free(got);
}

static void test_mem_keys(void **state)
{
    (void)state;
    sl_memstore *ms = open_db();
    run(ms, "CREATE TABLE t (ts TIMESTAMP, id INT PRIMARY KEY, v DOUBLE)", 0);
    /* Same timestamp, several keys; within one statement the last (ts, key) wins. */
    run(ms,
        "INSERT INTO t VALUES (1000, 2, 1.5) (1000, 1, 2.5) (2000, 1, 3.5) (1000, 2, 4.5) "
        "(1000, -7, 0.5)",
        5);
    /* A later statement replaces (1000, 1) and adds keys before and after. */
    run(ms, "INSERT INTO t VALUES (1000, 1, 5.5) (500, 3, 6.5) (2000, 0, 7.5)", 3);
    ms_expect(ms, "SELECT ts, id, v FROM t",
              "500,3,6.5;1000,-7,0.5;1000,1,5.5;1000,2,4.5;2000,0,7.5;2000,1,3.5;");
    ms_expect(ms, "SELECT COUNT(*), SUM(v) FROM t WHERE ts = 1000", "3,10.5;");
    /* DESCRIBE and SHOW CREATE name the key. */
    ms_expect(ms, "DESCRIBE t", "ts,TIMESTAMP,8,;id,INT,4,COMPOSITE KEY;v,DOUBLE,8,;");
    char *sc = formatted(ms, "SHOW CREATE TABLE t");
    assert_non_null(
        strstr(sc, "CREATE TABLE `t` (`ts` TIMESTAMP, `id` INT COMPOSITE KEY, `v` DOUBLE)"));
    free(sc);
    /* A time-range delete removes every key of the range. */
    run(ms, "DELETE FROM t WHERE ts >= 1000 AND ts <= 1000", 3);
    ms_expect(ms, "SELECT ts, id, v FROM t", "500,3,6.5;2000,0,7.5;2000,1,3.5;");
    /* Rows written again after a delete are back. */
    run(ms, "INSERT INTO t VALUES (1000, 9, 9.5)", 1);
    ms_expect(ms, "SELECT COUNT(*) FROM t", "4;");
    sl_memstore_close(ms);
}

/* Many statements (pending writes merged into the main block) over a VARCHAR key. */
static void test_mem_varchar_merge(void **state)
{
    (void)state;
    sl_memstore *ms = open_db();
    run(ms, "CREATE STABLE st (ts TIMESTAMP, k VARCHAR(16) COMPOSITE KEY, c INT) TAGS (g INT)",
        0);
    run(ms, "INSERT INTO d1 USING st TAGS (1) VALUES (10, 'b', 1) (10, 'a', 2) (20, 'a', 3)", 3);
    /* 40 more statements, out of order: key 'k<i % 4>' at ts 10 + 10 * (i % 3), value i;
     * the last write of each (ts, key) is the largest i with that pair. */
    char sql[160];
    for (int i = 0; i < 40; i++) {
        snprintf(sql, sizeof(sql), "INSERT INTO d1 VALUES (%d, 'k%d', %d)", 10 + 10 * (i % 3),
                 i % 4, i);
        run(ms, sql, 1);
    }
    /* (ts, key) pairs: i % 12 decides both (lcm of 3 and 4); the last i of residue r is
     * 36 + r for r < 4 and 24 + r for 4 <= r < 12. ts 10: r in {0, 3, 6, 9} -> keys
     * k0 (36), k3 (39), k2 (30), k1 (33); ts 20: r in {1, 4, 7, 10} -> k1 (37), k0 (28),
     * k3 (31), k2 (34); ts 30: r in {2, 5, 8, 11} -> k2 (38), k1 (29), k0 (32), k3 (35). */
    ms_expect(ms, "SELECT ts, k, c FROM d1",
              "10,a,2;10,b,1;10,k0,36;10,k1,33;10,k2,30;10,k3,39;"
              "20,a,3;20,k0,28;20,k1,37;20,k2,34;20,k3,31;"
              "30,k0,32;30,k1,29;30,k2,38;30,k3,35;");
    ms_expect(ms, "SELECT k, COUNT(*) FROM st GROUP BY k ORDER BY k",
              "a,2;b,1;k0,3;k1,3;k2,3;k3,3;");
    /* Bulk appends: in order they go to the main block, out of order they merge. */
    sl_block *b = key_block(SL_T_VARCHAR, SL_T_INT);
    kv_srow(b, 30, "k9", 100);
    kv_srow(b, 30, "k0", 101);
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_append(ms, "db", "d1", b, &err), 0);
    ms_expect(ms, "SELECT ts, k, c FROM d1 WHERE ts = 30",
              "30,k0,101;30,k1,29;30,k2,38;30,k3,35;30,k9,100;");
    /* A NULL key in a bulk block is refused and nothing of it is stored. */
    sl_block_reset(b);
    kv_srow(b, 40, "z", 1);
    kv_null_key_row(b, 41, 2);
    sl_error_clear(&err);
    assert_int_equal(sl_memstore_append(ms, "db", "d1", b, &err), SL_EINVAL);
    assert_string_equal(err.msg, "row 2: the composite key column 'k' cannot be NULL");
    ms_expect(ms, "SELECT COUNT(*) FROM d1 WHERE ts >= 40", "0;");
    sl_block_free(b);
    sl_memstore_close(ms);
}

/* The types a composite key may have, as the refusal of any other names them. */
#define KEY_TYPES "INT, BIGINT, INT UNSIGNED, BIGINT UNSIGNED or VARCHAR/BINARY"

static void test_mem_refusals(void **state)
{
    (void)state;
    sl_memstore *ms = open_db();
    run(ms, "CREATE TABLE t (ts TIMESTAMP, id BIGINT UNSIGNED PRIMARY KEY, v DOUBLE)", 0);
    run(ms, "INSERT INTO t VALUES (1000, 1, 1.0)", 1);
    const char *probe = "SELECT ts, id, v FROM t";
    /* Each sql is refused with code and msg at needle; probe answers the same after. */
    const struct {
        const char *sql, *needle;
        int code;
        const char *msg, *probe;
    } cases[] = {
        /* Only the second column; only INT, BIGINT, their UNSIGNED forms and VARCHAR. */
        {"CREATE TABLE r1 (ts TIMESTAMP, a INT, b INT PRIMARY KEY)", "b INT", SL_EINVAL,
         "COMPOSITE KEY can only mark the second column, 'b' is column 3", "SHOW TABLES"},
        {"CREATE TABLE r1 (ts TIMESTAMP COMPOSITE KEY, a INT)", "ts TIMESTAMP", SL_EINVAL,
         "COMPOSITE KEY can only mark the second column, 'ts' is column 1", "SHOW TABLES"},
        {"CREATE TABLE r1 (ts TIMESTAMP, d DOUBLE COMPOSITE KEY)", "d DOUBLE", SL_ETYPE,
         "COMPOSITE KEY column 'd' must be " KEY_TYPES ", not DOUBLE", "SHOW TABLES"},
        {"CREATE STABLE r2 (ts TIMESTAMP, n NCHAR(8) COMPOSITE KEY) TAGS (g INT)", "n NCHAR",
         SL_ETYPE, "COMPOSITE KEY column 'n' must be " KEY_TYPES ", not NCHAR", "SHOW STABLES"},
        {"CREATE TABLE r1 (ts TIMESTAMP, s SMALLINT PRIMARY KEY)", "s SMALLINT", SL_ETYPE,
         "COMPOSITE KEY column 's' must be " KEY_TYPES ", not SMALLINT", "SHOW TABLES"},
        /* A NULL key refuses the whole statement: the good rows before it are not written. */
        {"INSERT INTO t VALUES (2000, 2, 2.0) (3000, NULL, 3.0)", "NULL", SL_EINVAL,
         "the composite key column 'id' cannot be NULL", probe},
        {"INSERT INTO t (ts, v) VALUES (2000, 2.0)", "ts, v", SL_EINVAL,
         "the column list must include the composite key column 'id'", probe},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        expect_refused(ms, cases[i].sql, cases[i].code,
                       at(cases[i].sql, cases[i].needle, cases[i].msg), cases[i].probe);
    ms_expect(ms, probe, "1000,1,1;");
    sl_memstore_close(ms);
}

/* ================================================================== the vstore */

/* Table kv: ts TIMESTAMP, k <key type>, v BIGINT; composite key k. */
static void put_keyed(sl_vstore *vs, uint64_t uid, const char *name, sl_type kt)
{
    sl_vs_column cols[3] = {{"ts", SL_T_TIMESTAMP, 0},
                            {"k", kt, kt == SL_T_VARCHAR ? 16 : 0},
                            {"v", SL_T_BIGINT, 0}};
    sl_vs_table_def d = {.uid = uid,
                         .name = name,
                         .kind = SL_VS_TABLE_NORMAL,
                         .precision = SL_PREC_MS,
                         .ncols = 3,
                         .cols = cols,
                         .composite_key = true};
    sl_error err = {0};
    int rc = sl_vstore_put_table(vs, &d, false, &err);
    if (rc != 0)
        fail_msg("put_table %llu: %s", (unsigned long long)uid, err.msg);
}

/* An empty block for table kv (v BIGINT). */
static sl_block *kv_block(sl_type kt)
{
    return key_block(kt, SL_T_BIGINT);
}

/* Every row of uid over [lo, hi] as one block (order as delivered). */
static sl_block *kv_scan(sl_vstore *vs, uint64_t uid, int64_t lo, int64_t hi)
{
    static const int proj[3] = {0, 1, 2};
    sl_vs_scan *s = NULL;
    sl_error err = {0};
    int rc = sl_vstore_scan_open(vs, NULL, uid, proj, 3, lo, hi, &s, &err);
    if (rc != 0)
        fail_msg("scan_open: %d %s", rc, err.msg);
    const sl_vs_table_def *d;
    TV_OK(sl_vstore_table_acquire(vs, uid, &d, &err_));
    sl_block *all = kv_block(d->cols[1].type), out;
    sl_vstore_table_release(d);
    sl_block_init(&out);
    for (;;) {
        if ((rc = sl_vstore_scan_next(s, &out, &err)) != 0)
            fail_msg("scan_next: %d %s", rc, err.msg);
        if (out.nrows == 0)
            break;
        assert_true(out.nrows <= SL_BLOCK_ROWS_MAX);
        for (uint32_t c = 0; c < 3; c++)
            assert_int_equal(sl_column_append_rows(&all->cols[c], &out.cols[c], NULL, 0, out.nrows),
                             0);
        sl_block_seal(all);
    }
    sl_block_fini(&out);
    sl_vstore_scan_close(s);
    return all;
}

/* Checks an INT-keyed scan result against n expected (ts, key, v) triples. */
static void expect_rows(const sl_block *b, const int64_t (*want)[3], uint32_t n)
{
    if (b->nrows != n)
        fail_msg("expected %u rows, got %u", n, b->nrows);
    for (uint32_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            if (sl_column_get_i64(&b->cols[c], i) != want[i][c])
                fail_msg("row %u column %d: %lld, expected %lld", i, c,
                         (long long)sl_column_get_i64(&b->cols[c], i), (long long)want[i][c]);
}

static uint64_t kv_write(sl_vstore *vs, uint64_t uid, const sl_block *b)
{
    return tv_write1(vs, uid, b);
}

static void test_vs_basic(void **state)
{
    tv_fix *f = *state;
    sl_vstore_options o = {.no_auto_compact = true};
    sl_vstore *vs = tv_open(f->path, &o);
    put_keyed(vs, 1, "kt", SL_T_INT);
    tv_put_meter(vs, 2, "plain"); /* no key: same timestamp still replaces */

    sl_block *b = kv_block(SL_T_INT);
    kv_row(b, 1000, 2, 10);
    kv_row(b, 1000, 1, 11);
    kv_row(b, 2000, 1, 12);
    kv_row(b, 1000, 2, 13); /* the later (1000, 2) wins within the call */
    kv_row(b, 1000, -5, 14);
    uint64_t v1 = kv_write(vs, 1, b);
    sl_block_reset(b);
    kv_row(b, 1000, 1, 21); /* update */
    kv_row(b, 500, 3, 22);  /* insert before everything */
    kv_row(b, 2000, 0, 23); /* insert: new key at a stored timestamp */
    kv_row(b, 3000, 7, 24); /* append */
    uint64_t v2 = kv_write(vs, 1, b);
    assert_int_equal(v2, v1 + 1);

    static const int64_t want[][3] = {{500, 3, 22},  {1000, -5, 14}, {1000, 1, 21},
                                      {1000, 2, 13}, {2000, 0, 23},  {2000, 1, 12},
                                      {3000, 7, 24}};
    sl_block *got = kv_scan(vs, 1, INT64_MIN, INT64_MAX);
    expect_rows(got, want, 7);
    sl_block_free(got);
    got = kv_scan(vs, 1, 1000, 1000);
    expect_rows(got, want + 1, 3);
    sl_block_free(got);

    /* Change-log kinds: the first call inserts 4 rows (sorted, de-duplicated); the second
     * updates (1000, 1) and inserts the other three. */
    sl_vs_changes c = tv_changes(vs, 0);
    assert_int_equal(c.n, 2);
    assert_int_equal(c.v[0].kind, SL_VS_CHANGE_ROWS);
    assert_int_equal(c.v[0].rows.nrows, 4);
    static const int64_t c1[][3] = {{1000, -5, 14}, {1000, 1, 11}, {1000, 2, 13}, {2000, 1, 12}};
    expect_rows(&c.v[0].rows, c1, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(c.v[0].row_kinds[i], SL_VS_ROW_INSERT);
    static const int64_t c2[][3] = {{500, 3, 22}, {1000, 1, 21}, {2000, 0, 23}, {3000, 7, 24}};
    expect_rows(&c.v[1].rows, c2, 4);
    static const uint8_t k2[] = {SL_VS_ROW_INSERT, SL_VS_ROW_UPDATE, SL_VS_ROW_INSERT,
                                 SL_VS_ROW_INSERT};
    assert_memory_equal(c.v[1].row_kinds, k2, 4);
    sl_vs_changes_fini(&c);

    /* A delete by time range takes every key: 3 rows at 1000 and 2 at 2000. */
    uint64_t ndel = 0, vd = 0;
    TV_OK(sl_vstore_delete(vs, 1, 1000, 2000, false, &vd, &ndel, &err_));
    assert_int_equal(ndel, 5);
    got = kv_scan(vs, 1, INT64_MIN, INT64_MAX);
    static const int64_t after_del[][3] = {{500, 3, 22}, {3000, 7, 24}};
    expect_rows(got, after_del, 2);
    sl_block_free(got);
    /* Written again after the delete: visible, and an INSERT. */
    sl_block_reset(b);
    kv_row(b, 1000, 1, 31);
    kv_row(b, 3000, 7, 32);
    uint64_t v3 = kv_write(vs, 1, b);
    c = tv_changes(vs, v3 - 1);
    assert_int_equal(c.n, 1);
    static const uint8_t k3[] = {SL_VS_ROW_INSERT, SL_VS_ROW_UPDATE};
    assert_memory_equal(c.v[0].row_kinds, k3, 2);
    sl_vs_changes_fini(&c);

    /* The plain table keeps one row per timestamp. */
    sl_block *m = tv_meter_block();
    tv_meter_row(m, 1000, 1, 1, 1);
    tv_meter_row(m, 1000, 2, 2, 2);
    tv_write1(vs, 2, m);
    sl_block_free(m);
    got = tv_scan(vs, NULL, 2, TV_ALL4, 4, INT64_MIN, INT64_MAX);
    assert_int_equal(got->nrows, 1);
    assert_int_equal(sl_column_get_i64(&got->cols[2], 0), 2);
    sl_block_free(got);

    /* Compaction (deletes and overlaps) changes nothing a reader sees. */
    TV_OK(sl_vstore_compact_table(vs, 1, &err_));
    got = kv_scan(vs, 1, INT64_MIN, INT64_MAX);
    static const int64_t final[][3] = {{500, 3, 22}, {1000, 1, 31}, {3000, 7, 32}};
    expect_rows(got, final, 3);
    sl_block_free(got);

    /* Reopen: the key is remembered (same rows, same order; a later write still merges
     * by key). */
    sl_block_free(b);
    sl_vstore_close(vs);
    vs = tv_open(f->path, &o);
    const sl_vs_table_def *d;
    TV_OK(sl_vstore_table_acquire(vs, 1, &d, &err_));
    assert_true(d->composite_key);
    sl_vstore_table_release(d);
    TV_OK(sl_vstore_table_acquire(vs, 2, &d, &err_));
    assert_false(d->composite_key);
    sl_vstore_table_release(d);
    b = kv_block(SL_T_INT);
    kv_row(b, 3000, 6, 41);
    kv_write(vs, 1, b);
    got = kv_scan(vs, 1, INT64_MIN, INT64_MAX);
    static const int64_t reopened[][3] = {{500, 3, 22}, {1000, 1, 31}, {3000, 6, 41},
                                          {3000, 7, 32}};
    expect_rows(got, reopened, 4);
    sl_block_free(got);
    sl_block_free(b);
    sl_vstore_close(vs);
}

static void test_vs_varchar_key(void **state)
{
    tv_fix *f = *state;
    sl_vstore_options o = {.no_auto_compact = true};
    sl_vstore *vs = tv_open(f->path, &o);
    put_keyed(vs, 9, "sk", SL_T_VARCHAR);
    sl_block *b = kv_block(SL_T_VARCHAR);
    kv_srow(b, 10, "b", 1);
    kv_srow(b, 10, "ab", 2);
    kv_srow(b, 10, "a", 3);
    kv_srow(b, 10, "", 4);
    kv_write(vs, 9, b);
    sl_block_reset(b);
    kv_srow(b, 10, "ab", 5);
    kv_srow(b, 5, "zz", 6);
    kv_write(vs, 9, b);
    sl_block *got = kv_scan(vs, 9, INT64_MIN, INT64_MAX);
    /* Bytewise order, the shorter first on a common prefix. */
    static const char *keys[] = {"zz", "", "a", "ab", "b"};
    static const int64_t ts[] = {5, 10, 10, 10, 10};
    static const int64_t vals[] = {6, 4, 3, 5, 1};
    assert_int_equal(got->nrows, 5);
    for (uint32_t i = 0; i < 5; i++) {
        uint32_t len;
        const char *p = sl_column_get_str(&got->cols[1], i, &len);
        assert_int_equal(sl_column_get_i64(&got->cols[0], i), ts[i]);
        assert_int_equal(len, strlen(keys[i]));
        assert_memory_equal(p, keys[i], len);
        assert_int_equal(sl_column_get_i64(&got->cols[2], i), vals[i]);
    }
    sl_block_free(got);
    sl_block_free(b);
    sl_vstore_close(vs);
}

static void test_vs_refusals(void **state)
{
    tv_fix *f = *state;
    sl_vstore *vs = tv_open(f->path, NULL);
    sl_error err = {0};
    /* A key of a type that cannot be one, or without a second column. */
    sl_vs_column bad[2] = {{"ts", SL_T_TIMESTAMP, 0}, {"d", SL_T_DOUBLE, 0}};
    sl_vs_table_def d = {.uid = 3,
                         .name = "bad",
                         .kind = SL_VS_TABLE_NORMAL,
                         .precision = SL_PREC_MS,
                         .ncols = 2,
                         .cols = bad,
                         .composite_key = true};
    assert_int_equal(sl_vstore_put_table(vs, &d, false, &err), SL_EINVAL);
    assert_string_equal(err.msg, "vstore: table 3: composite key 'd' cannot be DOUBLE");
    sl_error_clear(&err);
    d.ncols = 1;
    assert_int_equal(sl_vstore_put_table(vs, &d, false, &err), SL_EINVAL);
    assert_string_equal(err.msg, "vstore: table 3: a composite key needs a second column");
    uint64_t *uids = NULL;
    size_t n = 0;
    TV_OK(sl_vstore_table_list(vs, &uids, &n, &err_));
    assert_int_equal(n, 0);
    free(uids);

    /* The key cannot be added to or dropped from an existing table. */
    put_keyed(vs, 1, "kt", SL_T_BIGINT);
    sl_vs_column cols[3] = {{"ts", SL_T_TIMESTAMP, 0}, {"k", SL_T_BIGINT, 0}, {"v", SL_T_BIGINT, 0}};
    sl_vs_table_def same = {.uid = 1,
                            .name = "kt",
                            .kind = SL_VS_TABLE_NORMAL,
                            .precision = SL_PREC_MS,
                            .ncols = 3,
                            .cols = cols};
    sl_error_clear(&err);
    assert_int_equal(sl_vstore_put_table(vs, &same, false, &err), SL_EUNSUPPORTED);
    sl_error_clear(&err);

    /* A NULL key refuses the whole call: no version, no rows. */
    sl_block *b = kv_block(SL_T_BIGINT);
    kv_row(b, 1000, 1, 1);
    uint64_t v1 = kv_write(vs, 1, b);
    sl_block_reset(b);
    kv_row(b, 2000, 2, 2);
    assert_int_equal(sl_column_append_i64(&b->cols[0], 3000), 0);
    assert_int_equal(sl_column_append_null(&b->cols[1]), 0);
    assert_int_equal(sl_column_append_i64(&b->cols[2], 3), 0);
    sl_block_seal(b);
    sl_vs_write_item it = {1, b};
    uint64_t v = 0;
    assert_int_equal(sl_vstore_write(vs, &it, 1, false, &v, &err), SL_EINVAL);
    assert_string_equal(err.msg,
                        "vstore write: item 0 (table 'kt'): row 1: NULL composite key 'k'");
    assert_int_equal(sl_vstore_last_version(vs), v1);
    sl_block *got = kv_scan(vs, 1, INT64_MIN, INT64_MAX);
    static const int64_t want[][3] = {{1000, 1, 1}};
    expect_rows(got, want, 1);
    sl_block_free(got);
    sl_block_free(b);
    sl_vstore_close(vs);
}

/* ---- the model: rows (ts, key, v), sorted by (ts, key), one per pair */

typedef struct mrow {
    int64_t ts, key, v;
} mrow;

typedef struct model {
    mrow *r;
    size_t n, cap;
} model;

static void model_put(model *m, int64_t ts, int64_t key, int64_t v)
{
    size_t i = 0;
    while (i < m->n && (m->r[i].ts < ts || (m->r[i].ts == ts && m->r[i].key < key)))
        i++;
    if (i < m->n && m->r[i].ts == ts && m->r[i].key == key) {
        m->r[i].v = v;
        return;
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 1024;
        m->r = realloc(m->r, m->cap * sizeof(mrow));
        assert_non_null(m->r);
    }
    memmove(&m->r[i + 1], &m->r[i], (m->n - i) * sizeof(mrow));
    m->r[i] = (mrow){ts, key, v};
    m->n++;
}

static size_t model_delete(model *m, int64_t lo, int64_t hi)
{
    size_t k = 0, gone = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (m->r[i].ts >= lo && m->r[i].ts <= hi)
            gone++;
        else
            m->r[k++] = m->r[i];
    }
    m->n = k;
    return gone;
}

static void expect_model(sl_vstore *vs, uint64_t uid, const model *m)
{
    sl_block *got = kv_scan(vs, uid, INT64_MIN, INT64_MAX);
    if (got->nrows != m->n)
        fail_msg("expected %zu rows, got %u", m->n, got->nrows);
    for (uint32_t i = 0; i < got->nrows; i++) {
        int64_t ts = sl_column_get_i64(&got->cols[0], i), k = sl_column_get_i64(&got->cols[1], i),
                v = sl_column_get_i64(&got->cols[2], i);
        if (ts != m->r[i].ts || k != m->r[i].key || v != m->r[i].v)
            fail_msg("row %u: (%lld, %lld, %lld), expected (%lld, %lld, %lld)", i, (long long)ts,
                     (long long)k, (long long)v, (long long)m->r[i].ts, (long long)m->r[i].key,
                     (long long)m->r[i].v);
    }
    sl_block_free(got);
}

/*
 * Overlapping blocks and compaction: one timestamp with more keys than a block holds
 * (6000 > SL_BLOCK_ROWS_MAX), late writes into it and around it, updates of some keys,
 * a delete; read before and after compaction and after a reopen. Change-log kinds of a
 * write into the crowded timestamp are checked against the model.
 */
static void test_vs_compaction(void **state)
{
    tv_fix *f = *state;
    sl_vstore_options o = {.no_auto_compact = true};
    sl_vstore *vs = tv_open(f->path, &o);
    put_keyed(vs, 4, "big", SL_T_BIGINT);
    model m = {0};
    sl_block *b = kv_block(SL_T_BIGINT);
    /* Call 1: ts 100 with keys 0..5999 (descending in the block), ts 50 and 200 with 3
     * keys each. */
    for (int64_t k = 5999; k >= 0; k--) {
        kv_row(b, 100, k, k);
        model_put(&m, 100, k, k);
    }
    for (int64_t k = 0; k < 3; k++) {
        kv_row(b, 50, k, 1000 + k);
        model_put(&m, 50, k, 1000 + k);
        kv_row(b, 200, k, 2000 + k);
        model_put(&m, 200, k, 2000 + k);
    }
    kv_write(vs, 4, b);
    expect_model(vs, 4, &m);
    /* Call 2: every third key of ts 100 updated, keys 6000..6099 added, ts 150 new. */
    sl_block_reset(b);
    for (int64_t k = 0; k < 6100; k += 3) {
        kv_row(b, 100, k, -k);
        model_put(&m, 100, k, -k);
    }
    kv_row(b, 150, 42, 42);
    model_put(&m, 150, 42, 42);
    uint64_t v2 = kv_write(vs, 4, b);
    expect_model(vs, 4, &m);
    sl_vs_changes c = tv_changes(vs, v2 - 1);
    uint32_t seen = 0;
    for (size_t e = 0; e < c.n; e++) {
        const sl_vs_change *ch = &c.v[e];
        for (uint32_t i = 0; i < ch->rows.nrows; i++, seen++) {
            int64_t ts = sl_column_get_i64(&ch->rows.cols[0], i);
            int64_t k = sl_column_get_i64(&ch->rows.cols[1], i);
            /* Before call 2, ts 100 held keys 0..5999; ts 150 nothing. */
            bool existed = ts == 100 && k < 6000;
            assert_int_equal(ch->row_kinds[i], existed ? SL_VS_ROW_UPDATE : SL_VS_ROW_INSERT);
        }
    }
    assert_int_equal(seen, 2034 + 1); /* ceil(6100 / 3) keys at ts 100, one at 150 */
    sl_vs_changes_fini(&c);
    /* Call 3: a few keys at 100 and 200 again (in one block), one older timestamp. */
    sl_block_reset(b);
    kv_row(b, 200, 1, 7);
    kv_row(b, 100, 5999, 7);
    kv_row(b, 100, -1, 7);
    kv_row(b, 10, 0, 7);
    model_put(&m, 200, 1, 7);
    model_put(&m, 100, 5999, 7);
    model_put(&m, 100, -1, 7);
    model_put(&m, 10, 0, 7);
    kv_write(vs, 4, b);
    expect_model(vs, 4, &m);
    /* A delete of ts 150..150 and 200..250. */
    uint64_t ndel = 0;
    TV_OK(sl_vstore_delete(vs, 4, 150, 150, false, NULL, &ndel, &err_));
    assert_int_equal(ndel, model_delete(&m, 150, 150));
    TV_OK(sl_vstore_delete(vs, 4, 200, 250, false, NULL, &ndel, &err_));
    assert_int_equal(ndel, model_delete(&m, 200, 250));
    assert_int_equal(ndel, 3);
    expect_model(vs, 4, &m);
    TV_OK(sl_vstore_compact_table(vs, 4, &err_));
    expect_model(vs, 4, &m);
    /* After compaction the blocks are disjoint: a late key still merges in. */
    sl_block_reset(b);
    kv_row(b, 100, 3000, 99);
    model_put(&m, 100, 3000, 99);
    kv_write(vs, 4, b);
    expect_model(vs, 4, &m);
    TV_OK(sl_vstore_compact_table(vs, 4, &err_));
    sl_vstore_close(vs);
    vs = tv_open(f->path, &o);
    expect_model(vs, 4, &m);
    /* ts 100 holds keys -1..5999 and the 34 multiples of 3 in 6000..6099: 6035 rows;
     * plus ts 10 and the 3 keys of ts 50. */
    assert_int_equal(m.n, 6035 + 1 + 3);
    sl_block_free(b);
    free(m.r);
    sl_vstore_close(vs);
}

/* Whether the model holds (ts, key). */
static bool model_has(const model *m, int64_t ts, int64_t key)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i].ts == ts && m->r[i].key == key)
            return true;
    return false;
}

/*
 * Random writes (out of order, duplicates within a call, many keys per timestamp), deletes
 * and compactions - automatic ones after 2 overlaps, and explicit ones - against the
 * model after every call, change-log kinds included. A fixed xorshift seed keeps it
 * reproducible.
 */
static void test_vs_random(void **state)
{
    tv_fix *f = *state;
    sl_vstore_options o = {.compact_overlaps = 2, .compact_tombstones = 2};
    sl_vstore *vs = tv_open(f->path, &o);
    put_keyed(vs, 5, "rnd", SL_T_INT);
    model m = {0};
    uint64_t x = 88172645463325252ull;
#define RND() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
    sl_block *b = kv_block(SL_T_INT);
    for (int op = 0; op < 120; op++) {
        uint64_t kind = RND() % 10;
        if (kind < 7) {
            sl_block_reset(b);
            uint32_t n = 1 + (uint32_t)(RND() % 300);
            model before = {0};
            before.n = m.n;
            before.cap = m.n ? m.n : 1;
            before.r = malloc(before.cap * sizeof(mrow));
            assert_non_null(before.r);
            if (m.n > 0)
                memcpy(before.r, m.r, m.n * sizeof(mrow));
            for (uint32_t i = 0; i < n; i++) {
                int64_t ts = (int64_t)(RND() % 60) * 10, key = (int64_t)(RND() % 40) - 20;
                int64_t v = op * 1000 + (int64_t)i;
                kv_row(b, ts, key, v);
                model_put(&m, ts, key, v);
            }
            uint64_t ver = kv_write(vs, 5, b);
            sl_vs_changes c = tv_changes(vs, ver - 1);
            for (size_t e = 0; e < c.n; e++)
                for (uint32_t i = 0; i < c.v[e].rows.nrows; i++) {
                    int64_t ts = sl_column_get_i64(&c.v[e].rows.cols[0], i);
                    int64_t key = sl_column_get_i64(&c.v[e].rows.cols[1], i);
                    bool existed = model_has(&before, ts, key);
                    assert_int_equal(c.v[e].row_kinds[i],
                                     existed ? SL_VS_ROW_UPDATE : SL_VS_ROW_INSERT);
                }
            sl_vs_changes_fini(&c);
            free(before.r);
        } else if (kind < 9) {
            int64_t lo = (int64_t)(RND() % 60) * 10, hi = lo + (int64_t)(RND() % 100);
            uint64_t ndel = 0;
            TV_OK(sl_vstore_delete(vs, 5, lo, hi, false, NULL, &ndel, &err_));
            assert_int_equal(ndel, model_delete(&m, lo, hi));
        } else {
            TV_OK(sl_vstore_compact_table(vs, 5, &err_));
        }
        expect_model(vs, 5, &m);
    }
#undef RND
    sl_vstore_stats st;
    sl_vstore_get_stats(vs, &st);
    assert_true(st.compactions > 12); /* the explicit ones alone are about 12 */
    assert_int_equal(st.compaction_errors, 0);
    sl_vstore_close(vs);
    vs = tv_open(f->path, &o);
    expect_model(vs, 5, &m);
    sl_block_free(b);
    free(m.r);
    sl_vstore_close(vs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mem_keys),
        cmocka_unit_test(test_mem_varchar_merge),
        cmocka_unit_test(test_mem_refusals),
        cmocka_unit_test_setup_teardown(test_vs_basic, tv_setup, tv_teardown),
        cmocka_unit_test_setup_teardown(test_vs_varchar_key, tv_setup, tv_teardown),
        cmocka_unit_test_setup_teardown(test_vs_refusals, tv_setup, tv_teardown),
        cmocka_unit_test_setup_teardown(test_vs_compaction, tv_setup, tv_teardown),
        cmocka_unit_test_setup_teardown(test_vs_random, tv_setup, tv_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
