/*
 * test_mcatalog_admin.c - the administration statements of the mnode catalog
 * (mnode/catalog_sys.c; docs/sql.md "Administration"): SHOW VNODES ON DNODE n and
 * SHOW [db.]VGROUPS with their refusals, the placement and load columns of ins_streams /
 * SHOW STREAMS (output_table, snodes, tasks, max_lag_ms, error) against the owners and
 * reports the test sets up, SHOW DNODES / SHOW SNODES / DROP SNODE over a cluster of
 * every node kind, the storage load columns of ins_vgroups / ins_dnodes fed by vnode load
 * reports (sl_mcatalog_vnode_report; bad reports ignored), and the mnode's own row
 * (sl_mcatalog_set_self).
 *
 * The scene: vnodes 1 (10.0.0.1:6100) and 2 (10.0.0.2:6100), snodes 3 (10.0.0.1:6200) and
 * 4 (10.0.0.2:6200), mnode 5 (10.0.0.1:6030), registered in that order at T0. Database
 * power has 4 vgroups, placed on the vnode with the fewest (ties: lowest id): 1 -> v1,
 * 2 -> v2, 3 -> v1, 4 -> v2; database other then gets vgroup 5 on v1 (2 each, tie).
 */
#include "mcatalog_fixture.h"

#define T0 NOW_MS

typedef struct fixture {
    MCF_HEAD;
} fixture;

/* The number of rows sql answers. */
static uint32_t nrows(sl_mcatalog *cat, const char *db, const char *sql)
{
    sl_result r;
    query_db(cat, db, sql, &r);
    uint32_t n = r.rows.nrows;
    sl_result_fini(&r);
    return n;
}

/* ------------------------------------------------------------ the scene */

static uint32_t reg(sl_mcatalog *cat, sl_mc_node_kind kind, const char *addr, uint32_t want)
{
    uint32_t id = 0;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_register(cat, kind, addr, T0, &id, &err), 0);
    assert_int_equal(id, want);
    return id;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    if (f == NULL || open_temp(f->dir, sizeof(f->dir), "/tmp/sl-mcadm-XXXXXX", &f->cat) != 0)
        return -1;
    reg(f->cat, SL_MC_VNODE, "10.0.0.1:6100", 1);
    reg(f->cat, SL_MC_VNODE, "10.0.0.2:6100", 2);
    reg(f->cat, SL_MC_SNODE, "10.0.0.1:6200", 3);
    reg(f->cat, SL_MC_SNODE, "10.0.0.2:6200", 4);
    reg(f->cat, SL_MC_MNODE, "10.0.0.1:6030", 5);
    ok(f->cat, NULL, "CREATE DATABASE power VGROUPS 4");
    ok(f->cat, NULL, "CREATE DATABASE other VGROUPS 1");
    ok(f->cat, "power", "CREATE STABLE meters (ts TIMESTAMP, v INT) TAGS (loc VARCHAR(16))");
    *state = f;
    return 0;
}

static void heartbeat_all(fixture *f, int64_t now)
{
    sl_error err;
    sl_error_clear(&err);
    for (uint32_t id = 1; id <= 5; id++)
        assert_int_equal(sl_mcatalog_node_heartbeat(f->cat, id, now, &err), 0);
}

/* Every node but `spare` heartbeats at now, then a sweep (timeout 1 s) that only nodes
 * silent since T0 fail. */
static void sweep_dead(fixture *f, uint32_t spare_a, uint32_t spare_b, int64_t now)
{
    sl_error err;
    sl_error_clear(&err);
    for (uint32_t id = 1; id <= 5; id++)
        if (id != spare_a && id != spare_b)
            assert_int_equal(sl_mcatalog_node_heartbeat(f->cat, id, now, &err), 0);
    assert_int_equal(sl_mcatalog_node_sweep(f->cat, now, 1000, NULL, 0, NULL, &err), 0);
}

static void place(fixture *f)
{
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_place(f->cat, NULL, &err), 0);
}

/* ------------------------------------------------------------ SHOW VNODES ON DNODE */

/* The head of SHOW VNODES ON DNODE and SHOW VGROUPS output. */
#define VGROUPS_HEAD                                                                       \
    " vgroup_id | db_name | vgroup_index | vnode_id |   endpoint    | status | tables | rows |" \
    " disk_bytes | write_requests | rows_written | fenced\n"                                  \
    "-----------+---------+--------------+----------+---------------+--------+--------+------+" \
    "------------+----------------+--------------+--------\n"
/* The load columns of a vgroup without a report. */
#define NO_LOAD " | NULL | NULL       | NULL           | NULL         | NULL\n"

static void test_show_vnodes_on_dnode(void **state)
{
    fixture *f = *state;
    check_format(f->cat, NULL, "SHOW VNODES ON DNODE 2",
                 VGROUPS_HEAD
                 "         2 | power   |            1 |        2 | 10.0.0.2:6100 | alive  |"
                 "      0" NO_LOAD
                 "         4 | power   |            3 |        2 | 10.0.0.2:6100 | alive  |"
                 "      0" NO_LOAD
                 "(2 rows)\n");
    check_format(f->cat, "power", "show vnodes on dnode 1",
                 VGROUPS_HEAD
                 "         1 | power   |            0 |        1 | 10.0.0.1:6100 | alive  |"
                 "      0" NO_LOAD
                 "         3 | power   |            2 |        1 | 10.0.0.1:6100 | alive  |"
                 "      0" NO_LOAD
                 "         5 | other   |            0 |        1 | 10.0.0.1:6100 | alive  |"
                 "      0" NO_LOAD
                 "(3 rows)\n");
    /* Without ON DNODE: every vgroup; LIKE still filters the endpoint. */
    assert_int_equal(nrows(f->cat, NULL, "SHOW VNODES"), 5);
    assert_int_equal(nrows(f->cat, NULL, "SHOW VNODES ON DNODE 1 LIKE '%.2:%'"), 0);
    assert_int_equal(nrows(f->cat, NULL, "SHOW VNODES ON DNODE 2 LIKE '%.2:%'"), 2);

    /* Tables count where hash(db, name) % 4 puts them (the documented placement). */
    const char *names[] = {"t1", "t2", "t3", "t4", "t5", "t6", "t7"};
    int64_t want[4] = {0};
    for (int i = 0; i < 7; i++) {
        char sql[96];
        snprintf(sql, sizeof(sql), "CREATE TABLE %s USING meters TAGS ('x')", names[i]);
        ok(f->cat, "power", sql);
        want[sl_mcatalog_vgroup_index("power", names[i], 4)]++;
    }
    sl_result r;
    query_db(f->cat, NULL, "SHOW VNODES ON DNODE 2", &r);
    assert_int_equal(r.rows.nrows, 2);
    assert_int_equal(cell_i(&r, 0, "tables"), want[1]); /* vgroup 2 = index 1 */
    assert_int_equal(cell_i(&r, 1, "tables"), want[3]); /* vgroup 4 = index 3 */
    sl_result_fini(&r);

    /* A vnode that died: its vgroups are listed, marked dead. */
    sweep_dead(f, 2, 0, T0 + 5000);
    query_db(f->cat, NULL, "SHOW VNODES ON DNODE 2", &r);
    assert_int_equal(r.rows.nrows, 2);
    assert_string_equal(cell_s(&r, 0, "status"), "dead");
    assert_string_equal(cell_s(&r, 1, "status"), "dead");
    sl_result_fini(&r);
    query_db(f->cat, NULL, "SHOW VNODES ON DNODE 1", &r);
    assert_string_equal(cell_s(&r, 0, "status"), "alive");
    sl_result_fini(&r);
}

static void test_show_vnodes_refusals(void **state)
{
    fixture *f = *state;
    refused(f->cat, NULL, "SHOW VNODES ON DNODE 99", SL_ENOTFOUND,
            "1:22: dnode 99 does not exist");
    refused(f->cat, NULL, "SHOW VNODES ON DNODE 0", SL_ENOTFOUND,
            "1:22: dnode 0 does not exist");
    refused(f->cat, NULL, "SHOW VNODES ON DNODE 4294967297", SL_ENOTFOUND,
            "1:22: dnode 4294967297 does not exist");
    refused(f->cat, NULL, "SHOW VNODES ON DNODE 3", SL_EINVAL,
            "1:22: dnode 3 is an snode: only vnodes hold vgroups");
    refused(f->cat, NULL, "SHOW VNODES  ON  DNODE\n5", SL_EINVAL,
            "2:1: dnode 5 is an mnode: only vnodes hold vgroups");
    /* The parser's refusals reach the caller unchanged. */
    refused(f->cat, NULL, "SHOW VNODES ON 3", SL_ESYNTAX,
            "1:16: syntax error near '3': expected DNODE");
}

/* ------------------------------------------------------------ SHOW [db.]VGROUPS */

static void test_show_vgroups(void **state)
{
    fixture *f = *state;
    check_format(f->cat, NULL, "SHOW other.VGROUPS",
                 VGROUPS_HEAD
                 "         5 | other   |            0 |        1 | 10.0.0.1:6100 | alive  |"
                 "      0" NO_LOAD
                 "(1 row)\n");
    sl_result r;
    query_db(f->cat, NULL, "SHOW POWER.vgroups", &r);
    assert_int_equal(r.rows.nrows, 4);
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(cell_i(&r, i, "vgroup_id"), i + 1);
        assert_int_equal(cell_i(&r, i, "vgroup_index"), i);
        assert_int_equal(cell_i(&r, i, "vnode_id"), i % 2 ? 2 : 1);
        assert_string_equal(cell_s(&r, i, "db_name"), "power");
    }
    sl_result_fini(&r);
    /* The current database; without one, every database. */
    assert_int_equal(nrows(f->cat, "power", "SHOW VGROUPS"), 4);
    assert_int_equal(nrows(f->cat, "other", "SHOW VGROUPS"), 1);
    assert_int_equal(nrows(f->cat, NULL, "SHOW VGROUPS"), 5);
    assert_int_equal(nrows(f->cat, "power", "SHOW VGROUPS LIKE '10.0.0.2%'"), 2);
    /* The system database has none. */
    assert_int_equal(nrows(f->cat, NULL, "SHOW information_schema.VGROUPS"), 0);
    assert_int_equal(nrows(f->cat, "information_schema", "SHOW VGROUPS"), 0);
    refused(f->cat, NULL, "SHOW nodb.VGROUPS", SL_ENOTFOUND, "1:1: database 'nodb' does not exist");
    refused(f->cat, "gone", "SHOW VGROUPS", SL_ENOTFOUND, "1:1: database 'gone' does not exist");
    /* The same rows as ins_vgroups filtered by hand. */
    assert_int_equal(nrows(f->cat, NULL,
                           "SELECT * FROM information_schema.ins_vgroups WHERE db_name = 'power'"),
                     4);
    ok(f->cat, NULL, "DROP DATABASE other");
    assert_int_equal(nrows(f->cat, NULL, "SHOW VGROUPS"), 4);
}

/* ------------------------------------------------------------ SHOW STREAMS placement */

/* What ins_stream_tasks says about one stream: its rows and distinct snodes. */
static void tasks_of(fixture *f, const char *stream, int64_t *rows, int64_t *snodes)
{
    char sql[256];
    snprintf(sql, sizeof(sql),
             "SELECT snode_id FROM information_schema.ins_stream_tasks WHERE stream_name = '%s' "
             "ORDER BY snode_id",
             stream);
    sl_result r;
    query_db(f->cat, NULL, sql, &r);
    *rows = r.rows.nrows;
    *snodes = 0;
    for (uint32_t i = 0; i < r.rows.nrows; i++)
        if (!cell_null(&r, i, "snode_id") &&
            (i == 0 || cell_i(&r, i, "snode_id") != cell_i(&r, i - 1, "snode_id")))
            (*snodes)++;
    sl_result_fini(&r);
}

/* Runs of equal owners and distinct non-zero owners of stream `name`, from the placement
 * the catalog hands the snodes. */
typedef struct owners_of {
    const char *name;
    int64_t runs, distinct;
} owners_of;

static int owners_fn(void *arg, const sl_mcatalog_stream *s)
{
    owners_of *o = arg;
    if (strcmp(s->name, o->name) != 0)
        return 0;
    uint32_t seen[8];
    int nseen = 0;
    for (uint32_t i = 0; i < s->nslots; i++) {
        if (i == 0 || s->owners[i] != s->owners[i - 1])
            o->runs++;
        bool known = s->owners[i] == 0;
        for (int k = 0; k < nseen && !known; k++)
            known = seen[k] == s->owners[i];
        if (!known) {
            assert_true(nseen < 8);
            seen[nseen++] = s->owners[i];
        }
    }
    o->distinct = nseen;
    return 1;
}

static void snode_report(fixture *f, uint32_t id, const sl_mcatalog_task_report *t, size_t n,
                         int64_t now)
{
    sl_mcatalog_snode_report r = {
        .epoch = sl_mcatalog_epoch(f->cat),
        .memory_bytes = 1 << 20,
        .groups = 2,
        .ntasks = n,
        .tasks = n ? t : NULL,
    };
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_snode_heartbeat(f->cat, id, &r, now, &err), 0);
}

/* The id of stream name (ins_streams does not show it; ins_stream_tasks does). */
static uint64_t stream_id(fixture *f, const char *name)
{
    char sql[200];
    snprintf(sql, sizeof(sql),
             "SELECT stream_id FROM information_schema.ins_stream_tasks WHERE stream_name = '%s' "
             "LIMIT 1",
             name);
    sl_result r;
    query_db(f->cat, NULL, sql, &r);
    assert_int_equal(r.rows.nrows, 1);
    uint64_t id = (uint64_t)cell_i(&r, 0, "stream_id");
    sl_result_fini(&r);
    return id;
}

/*
 * sweep_dead(f, spare_a, spare_b, now), then streams placed again; SHOW STREAMS of power
 * then in *r (caller finishes it), each of its 4 streams checked to be owned by `snodes`
 * snodes in one run (one task).
 */
static void sweep_and_show(fixture *f, uint32_t spare_a, uint32_t spare_b, int64_t now,
                           int64_t snodes, sl_result *r)
{
    sweep_dead(f, spare_a, spare_b, now);
    place(f);
    query_db(f->cat, "power", "SHOW STREAMS", r);
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(cell_i(r, i, "snodes"), snodes);
        assert_int_equal(cell_i(r, i, "tasks"), 1);
    }
}

static void test_streams_placement_columns(void **state)
{
    fixture *f = *state;
    ok(f->cat, "power", "CREATE TABLE d1 USING meters TAGS ('a')");
    ok(f->cat, "power",
       "CREATE STREAM s1 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o1 AS "
       "SELECT _twstart, COUNT(*) FROM %%trows");
    ok(f->cat, "power",
       "CREATE STREAM s2 SLIDING(1m) FROM d1 INTO other.o2 AS SELECT _tcurrent_ts, COUNT(*) "
       "FROM %%trows");
    ok(f->cat, "power", "CREATE STREAM s3 PERIOD(1d) NOTIFY('ws://h:1')");
    ok(f->cat, "power", "CREATE TABLE `O4` (ts TIMESTAMP, c BIGINT)");
    ok(f->cat, "power",
       "CREATE STREAM s4 SLIDING(1m) FROM d1 INTO power.o4 (ts, c) AS SELECT _tcurrent_ts, "
       "COUNT(*) FROM %%trows");
    static const char *cols[] = {"stream_name", "db_name",  "status", "trigger_table",
                                 "create_time", "output_table", "snodes", "tasks",
                                 "max_lag_ms",  "error",    "sql"};
    sl_result r, all;
    query_db(f->cat, "power", "SHOW STREAMS", &r);
    query_db(f->cat, NULL, "SELECT * FROM information_schema.ins_streams", &all);
    assert_int_equal(r.ncols, 11);
    assert_int_equal(all.ncols, 11);
    for (int i = 0; i < 11; i++) {
        assert_string_equal(r.names[i], cols[i]);
        assert_string_equal(all.names[i], cols[i]);
    }
    sl_result_fini(&all);
    /* Before any placement: no owner, one unassigned run each, nothing reported. */
    assert_int_equal(r.rows.nrows, 4);
    static const char *out[] = {"o1", "other.o2", "NULL", "O4"};
    for (uint32_t i = 0; i < 4; i++) {
        assert_string_equal(cell_s(&r, i, "output_table"), out[i]);
        assert_int_equal(cell_i(&r, i, "snodes"), 0);
        assert_int_equal(cell_i(&r, i, "tasks"), 1);
        assert_true(cell_null(&r, i, "max_lag_ms"));
        assert_true(cell_null(&r, i, "error"));
    }
    sl_result_fini(&r);

    /* Placed on snodes 3 and 4: the counts agree with the owners and ins_stream_tasks. */
    heartbeat_all(f, T0 + 100);
    place(f);
    const char *names[] = {"s1", "s2", "s3", "s4"};
    query_db(f->cat, "power", "SHOW STREAMS", &r);
    for (uint32_t i = 0; i < 4; i++) {
        owners_of o = {.name = names[i]};
        assert_int_equal(sl_mcatalog_each_stream(f->cat, owners_fn, &o), 1);
        int64_t trows, tsn;
        tasks_of(f, names[i], &trows, &tsn);
        assert_string_equal(cell_s(&r, i, "stream_name"), names[i]);
        assert_int_equal(cell_i(&r, i, "snodes"), 2); /* 256 slots over 2 snodes */
        assert_int_equal(o.distinct, 2);
        assert_int_equal(cell_i(&r, i, "tasks"), o.runs);
        assert_int_equal(trows, o.runs);
        assert_int_equal(tsn, 2);
        assert_true(o.runs >= 2);
        assert_true(cell_null(&r, i, "max_lag_ms"));
    }
    sl_result_fini(&r);

    /* Reports: the largest lag of the owners, the lowest-id owner's error. */
    uint64_t id1 = stream_id(f, "s1"), id2 = stream_id(f, "s2");
    sl_mcatalog_task_report a[2] = {
        {.stream_id = id1, .lag_ms = 1500, .rows = 10},
        {.stream_id = id2, .lag_ms = 20, .rows = 1, .error = ""},
    };
    sl_mcatalog_task_report b[2] = {
        {.stream_id = id1, .lag_ms = 700, .rows = 3, .error = "division by zero"},
        {.stream_id = id2, .lag_ms = 90000, .rows = 4},
    };
    snode_report(f, 3, a, 2, T0 + 200);
    snode_report(f, 4, b, 2, T0 + 200);
    check_format(f->cat, "power",
                 "SELECT stream_name, output_table, snodes, max_lag_ms, error FROM "
                 "information_schema.ins_streams ORDER BY stream_name",
                 " stream_name | output_table | snodes | max_lag_ms |      error\n"
                 "-------------+--------------+--------+------------+------------------\n"
                 " s1          | o1           |      2 |       1500 | division by zero\n"
                 " s2          | other.o2     |      2 |      90000 | NULL\n"
                 " s3          | NULL         |      2 | NULL       | NULL\n"
                 " s4          | O4           |      2 | NULL       | NULL\n"
                 "(4 rows)\n");
    /* The example of docs/sql.md: s1 has an error, s2 a lag above a minute. */
    assert_int_equal(nrows(f->cat, NULL,
                           "SELECT stream_name, max_lag_ms, error FROM "
                           "information_schema.ins_streams WHERE error IS NOT NULL OR "
                           "max_lag_ms > 60000"),
                     2);
    a[0].error = "boom";
    snode_report(f, 3, a, 2, T0 + 300);
    check_format(f->cat, "power", "SELECT error FROM information_schema.ins_streams LIMIT 1",
                 " error\n"
                 "-------\n"
                 " boom\n"
                 "(1 row)\n");
    /* SHOW STREAMS LIKE keeps the columns; a stopped stream keeps its placement. */
    ok(f->cat, "power", "STOP STREAM s2");
    place(f);
    query_db(f->cat, "power", "SHOW STREAMS LIKE 's2'", &r);
    assert_int_equal(r.rows.nrows, 1);
    assert_string_equal(cell_s(&r, 0, "status"), "stopped");
    assert_int_equal(cell_i(&r, 0, "snodes"), 2);
    sl_result_fini(&r);

    /* snode 4 dies: everything moves to 3, one run per stream, only 3's reports count. */
    sweep_and_show(f, 4, 0, T0 + 5000, 1, &r);
    assert_int_equal(cell_i(&r, 0, "max_lag_ms"), 1500);
    assert_string_equal(cell_s(&r, 0, "error"), "boom");
    assert_int_equal(cell_i(&r, 1, "max_lag_ms"), 20);
    sl_result_fini(&r);

    /* No snode alive: unowned, nothing reported. */
    sweep_and_show(f, 3, 4, T0 + 10000, 0, &r);
    for (uint32_t i = 0; i < 4; i++) {
        assert_true(cell_null(&r, i, "max_lag_ms"));
        assert_true(cell_null(&r, i, "error"));
    }
    sl_result_fini(&r);
    /* The output table of a dropped stream's INTO is not looked for any more. */
    ok(f->cat, "power", "DROP STREAM s1, s2, s3, s4");
    assert_int_equal(nrows(f->cat, NULL, "SHOW STREAMS"), 0);
}

/* ------------------------------------------------------------ SHOW DNODES / SNODES, DROP */

static void test_dnodes_snodes_drop(void **state)
{
    fixture *f = *state;
    heartbeat_all(f, T0 + 1000);
    check_format(f->cat, NULL, "SHOW DNODES",
                 " id |   endpoint    | kind  | status | vgroups |       create_time       |"
                 "     last_heartbeat      | rows | disk_bytes | write_requests | rows_written |"
                 " fenced | reads_held | reads_held_ms\n"
                 "----+---------------+-------+--------+---------+-------------------------+"
                 "-------------------------+------+------------+----------------+--------------+"
                 "--------+------------+---------------\n"
                 "  1 | 10.0.0.1:6100 | vnode | alive  |       3 | 2023-11-14 22:13:20.000 |"
                 " 2023-11-14 22:13:21.000 | NULL | NULL       | NULL           | NULL         |"
                 " NULL   | NULL       | NULL\n"
                 "  2 | 10.0.0.2:6100 | vnode | alive  |       2 | 2023-11-14 22:13:20.000 |"
                 " 2023-11-14 22:13:21.000 | NULL | NULL       | NULL           | NULL         |"
                 " NULL   | NULL       | NULL\n"
                 "  3 | 10.0.0.1:6200 | snode | alive  |       0 | 2023-11-14 22:13:20.000 |"
                 " 2023-11-14 22:13:21.000 | NULL | NULL       | NULL           | NULL         |"
                 " NULL   | NULL       | NULL\n"
                 "  4 | 10.0.0.2:6200 | snode | alive  |       0 | 2023-11-14 22:13:20.000 |"
                 " 2023-11-14 22:13:21.000 | NULL | NULL       | NULL           | NULL         |"
                 " NULL   | NULL       | NULL\n"
                 "  5 | 10.0.0.1:6030 | mnode | alive  |       0 | 2023-11-14 22:13:20.000 |"
                 " 2023-11-14 22:13:21.000 | NULL | NULL       | NULL           | NULL         |"
                 " NULL   | NULL       | NULL\n"
                 "(5 rows)\n");
    /* DROP SNODE: dropped everywhere, and it stays so across a restart. */
    ok(f->cat, NULL, "DROP SNODE 4");
    sweep_dead(f, 3, 4, T0 + 5000);
    mcf_reopen(&f->head);
    check_format(f->cat, NULL,
                 "SELECT id, kind, status FROM information_schema.ins_dnodes WHERE kind <> 'vnode'",
                 " id | kind  | status\n"
                 "----+-------+---------\n"
                 "  3 | snode | dead\n"
                 "  4 | snode | dropped\n"
                 "  5 | mnode | alive\n"
                 "(3 rows)\n");
    check_format(f->cat, NULL, "SELECT id, status, slots FROM information_schema.ins_snodes",
                 " id | status  | slots\n"
                 "----+---------+-------\n"
                 "  3 | dead    |     0\n"
                 "  4 | dropped |     0\n"
                 "(2 rows)\n");
    assert_int_equal(nrows(f->cat, NULL, "SHOW MNODES"), 1);
    refused(f->cat, NULL, "DROP SNODE 99", SL_ENOTFOUND, "1:12: snode 99 does not exist");
    refused(f->cat, NULL, "DROP SNODE ON DNODE 1", SL_ENOTFOUND, "1:21: snode 1 does not exist");
    refused(f->cat, NULL, "DROP SNODE 0", SL_ENOTFOUND, "1:12: snode 0 does not exist");
}

/* ------------------------------------------------------------ vnode load reports */

#define LOAD(vg, r, d, w, rw, fe)                                                          \
    {                                                                                      \
        .vgroup_id = (vg), .rows = (r), .disk_bytes = (d), .write_requests = (w),         \
        .rows_written = (rw), .fenced = (fe)                                              \
    }

static void report(fixture *f, uint32_t id, const sl_mcatalog_vgroup_load *l, size_t n,
                   uint64_t fenced, uint64_t held, uint64_t held_ms, size_t want_ignored)
{
    sl_error err;
    sl_error_clear(&err);
    size_t ignored = 99;
    sl_mcatalog_vnode_counters ctr = {.fenced = fenced, .reads_held = held,
                                      .reads_held_ms = held_ms};
    assert_int_equal(sl_mcatalog_vnode_report(f->cat, id, l, n, &ctr, &ignored, &err), 0);
    assert_int_equal(ignored, want_ignored);
}

/* Checks the five load columns of row `row` of r (-1: NULL). */
static void check_load(const sl_result *r, uint32_t row, int64_t rows, int64_t disk,
                       int64_t writes, int64_t written, int64_t fenced)
{
    const char *cols[] = {"rows", "disk_bytes", "write_requests", "rows_written", "fenced"};
    int64_t want[] = {rows, disk, writes, written, fenced};
    for (int i = 0; i < 5; i++) {
        if (want[i] < 0) {
            if (!cell_null(r, row, cols[i]))
                fail_msg("row %u %s: want NULL, got %lld", row, cols[i],
                         (long long)cell_i(r, row, cols[i]));
        } else {
            assert_false(cell_null(r, row, cols[i]));
            if (cell_i(r, row, cols[i]) != want[i])
                fail_msg("row %u %s: want %lld, got %lld", row, cols[i], (long long)want[i],
                         (long long)cell_i(r, row, cols[i]));
        }
    }
}

/* The held-read columns of ins_dnodes row `row` of r (-1: NULL). */
static void check_held(const sl_result *r, uint32_t row, int64_t held, int64_t held_ms)
{
    if (held < 0) {
        assert_true(cell_null(r, row, "reads_held"));
        assert_true(cell_null(r, row, "reads_held_ms"));
        return;
    }
    assert_int_equal(cell_i(r, row, "reads_held"), held);
    assert_int_equal(cell_i(r, row, "reads_held_ms"), held_ms);
}

/* Vgroups 1..5 (ordered by id) against the expected loads, and the dnodes 1..5. */
static void check_vgroup_loads(fixture *f, const int64_t want[5][5])
{
    sl_result r;
    query_db(f->cat, NULL, "SELECT * FROM information_schema.ins_vgroups ORDER BY vgroup_id", &r);
    assert_int_equal(r.rows.nrows, 5);
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(cell_i(&r, i, "vgroup_id"), i + 1);
        check_load(&r, i, want[i][0], want[i][1], want[i][2], want[i][3], want[i][4]);
    }
    sl_result_fini(&r);
}

static void test_vnode_loads(void **state)
{
    fixture *f = *state;
    heartbeat_all(f, T0 + 1000);
    char *before = snapshot(f->cat);
    /* Before any report: every load column NULL, for every kind. */
    static const int64_t none[5][5] = {{-1, -1, -1, -1, -1}, {-1, -1, -1, -1, -1},
                                       {-1, -1, -1, -1, -1}, {-1, -1, -1, -1, -1},
                                       {-1, -1, -1, -1, -1}};
    check_vgroup_loads(f, none);

    /* Vnode 1 holds vgroups 1, 3 (power) and 5 (other); it refused 4 fenced requests: 1
     * naming vgroup 1, 2 naming vgroup 5 and 1 naming a vgroup it does not hold. */
    const sl_mcatalog_vgroup_load v1[] = {
        LOAD(1, 100, 4096, 3, 120, 1),
        LOAD(3, 50, 1000, 2, 50, 0),
        LOAD(5, 7, 10, 1, 7, 2),
    };
    report(f, 1, v1, 3, 4, 12, 3400, 0);
    /* Vnode 2 holds 2 and 4: a good load for 2, then garbage - an unknown vgroup, vnode 1's
     * vgroup 1 with absurd numbers, and vgroup 2 a second time - all ignored. */
    const sl_mcatalog_vgroup_load v2[] = {
        LOAD(2, 10, 20, 1, 10, 0),
        LOAD(999, 1, 1, 1, 1, 1),
        LOAD(1, 5, 5, 5, 5, 5),
        LOAD(2, 77777, 77777, 77777, 77777, 77777),
        LOAD(0, 3, 3, 3, 3, 3),
    };
    report(f, 2, v2, 5, 0, 0, 0, 4);
    static const int64_t want1[5][5] = {{100, 4096, 3, 120, 1},
                                        {10, 20, 1, 10, 0},
                                        {50, 1000, 2, 50, 0},
                                        {-1, -1, -1, -1, -1},
                                        {7, 10, 1, 7, 2}};
    check_vgroup_loads(f, want1);
    /* The persistent catalog did not change. */
    expect_snapshot(before, f->cat);

    /* Per dnode: vnode 1 sums its three vgroups (rows 100+50+7, bytes 4096+1000+10, writes
     * 3+2+1, rows written 120+50+7) and shows its own fenced total (4, not 1+0+2); vnode 2
     * its one reported vgroup; snodes and the registered mnode have no load. */
    sl_result r;
    query_db(f->cat, NULL, "SELECT * FROM information_schema.ins_dnodes ORDER BY id", &r);
    assert_int_equal(r.rows.nrows, 5);
    check_load(&r, 0, 157, 5106, 6, 177, 4);
    check_load(&r, 1, 10, 20, 1, 10, 0);
    for (uint32_t i = 2; i < 5; i++)
        check_load(&r, i, -1, -1, -1, -1, -1);
    /* The vnodes' own held-read totals as reported; NULL for the other kinds. */
    check_held(&r, 0, 12, 3400);
    check_held(&r, 1, 0, 0);
    for (uint32_t i = 2; i < 5; i++)
        check_held(&r, i, -1, -1);
    sl_result_fini(&r);
    check_format(f->cat, NULL, "SHOW VNODES ON DNODE 1",
                 VGROUPS_HEAD
                 "         1 | power   |            0 |        1 | 10.0.0.1:6100 | alive  |"
                 "      0 |  100 |       4096 |              3 |          120 |      1\n"
                 "         3 | power   |            2 |        1 | 10.0.0.1:6100 | alive  |"
                 "      0 |   50 |       1000 |              2 |           50 |      0\n"
                 "         5 | other   |            0 |        1 | 10.0.0.1:6100 | alive  |"
                 "      0 |    7 |         10 |              1 |            7 |      2\n"
                 "(3 rows)\n");

    /* Reports of a node that is not a vnode, or not registered, change nothing. */
    sl_error err;
    sl_error_clear(&err);
    const sl_mcatalog_vnode_counters nine = {.fenced = 9, .reads_held = 9};
    assert_int_equal(sl_mcatalog_vnode_report(f->cat, 3, v1, 3, &nine, NULL, &err), SL_EINVAL);
    assert_string_equal(err.msg, "node 3 is an snode: only vnodes report loads");
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_vnode_report(f->cat, 42, v1, 3, &nine, NULL, &err), SL_ENOTFOUND);
    assert_string_equal(err.msg, "node 42 is not registered");
    check_vgroup_loads(f, want1);

    /* A later report replaces the loads it lists; a vgroup it leaves out keeps its last
     * one. Counters beyond a BIGINT show as the largest one, and the per-dnode sums
     * saturate instead of wrapping. */
    const sl_mcatalog_vgroup_load v1b[] = {LOAD(1, 101, 4100, 4, 121, 1)};
    report(f, 1, v1b, 1, 5, 13, 4100, 0);
    const sl_mcatalog_vgroup_load v2b[] = {
        LOAD(2, UINT64_MAX, 1, 1, 1, 0),
        LOAD(4, UINT64_MAX - 5, 2, (uint64_t)INT64_MAX, 2, 0),
    };
    report(f, 2, v2b, 2, UINT64_MAX, UINT64_MAX, 1, 0);
    static const int64_t want2[5][5] = {{101, 4100, 4, 121, 1},
                                        {INT64_MAX, 1, 1, 1, 0},
                                        {50, 1000, 2, 50, 0},
                                        {INT64_MAX, 2, INT64_MAX, 2, 0},
                                        {7, 10, 1, 7, 2}};
    check_vgroup_loads(f, want2);
    query_db(f->cat, NULL,
             "SELECT * FROM information_schema.ins_dnodes WHERE kind = 'vnode' ORDER BY id", &r);
    assert_int_equal(r.rows.nrows, 2);
    check_load(&r, 0, 158, 5110, 7, 178, 5);
    check_load(&r, 1, INT64_MAX, 3, INT64_MAX, 3, INT64_MAX);
    check_held(&r, 0, 13, 4100);
    check_held(&r, 1, INT64_MAX, 1);
    sl_result_fini(&r);
    /* Aggregates over the columns work like any other (what a user adds up). */
    query_db(f->cat, NULL,
             "SELECT sum(rows_written) AS w FROM information_schema.ins_vgroups "
             "WHERE vnode_id = 1",
             &r);
    assert_int_equal(cell_i(&r, 0, "w"), 121 + 50 + 7);
    sl_result_fini(&r);

    /* Dropping a database forgets its vgroups' loads with them; the dnode totals follow. */
    ok(f->cat, NULL, "DROP DATABASE other");
    query_db(f->cat, NULL, "SELECT * FROM information_schema.ins_dnodes WHERE id = 1", &r);
    check_load(&r, 0, 151, 5100, 6, 171, 5);
    sl_result_fini(&r);

    /* Loads are memory only: a restarted mnode shows NULL until the next reports. */
    mcf_reopen(&f->head);
    query_db(f->cat, NULL, "SELECT * FROM information_schema.ins_vgroups ORDER BY vgroup_id", &r);
    assert_int_equal(r.rows.nrows, 4);
    for (uint32_t i = 0; i < 4; i++)
        check_load(&r, i, -1, -1, -1, -1, -1);
    sl_result_fini(&r);
    query_db(f->cat, NULL, "SELECT * FROM information_schema.ins_dnodes ORDER BY id", &r);
    for (uint32_t i = 0; i < r.rows.nrows; i++) {
        check_load(&r, i, -1, -1, -1, -1, -1);
        check_held(&r, i, -1, -1);
    }
    sl_result_fini(&r);
}

/* ------------------------------------------------------------ the mnode's own row */

static void test_self_row(void **state)
{
    fixture *f = *state;
    sl_error err;
    sl_error_clear(&err);
    /* Not named yet: the registered nodes only (the scene's mnode 5 is a registered one). */
    assert_int_equal(nrows(f->cat, NULL, "SHOW DNODES"), 5);
    assert_int_equal(sl_mcatalog_set_self(f->cat, "", T0, &err), SL_EINVAL);
    assert_int_equal(nrows(f->cat, NULL, "SHOW DNODES"), 5);
    assert_int_equal(sl_mcatalog_set_self(f->cat, "tcp://10.0.0.9:6030", T0 + 7, &err), 0);
    g_now = T0 + 2500;
    check_format(f->cat, NULL,
                 "SELECT id, endpoint, kind, status, vgroups, create_time, last_heartbeat, "
                 "rows, fenced FROM information_schema.ins_dnodes WHERE kind = 'mnode'",
                 " id |      endpoint       | kind  | status | vgroups |       create_time       |"
                 "     last_heartbeat      | rows | fenced\n"
                 "----+---------------------+-------+--------+---------+-------------------------+"
                 "-------------------------+------+--------\n"
                 "  0 | tcp://10.0.0.9:6030 | mnode | alive  |       0 | 2023-11-14 22:13:20.007 |"
                 " 2023-11-14 22:13:22.500 | NULL | NULL\n"
                 "  5 | 10.0.0.1:6030       | mnode | alive  |       0 | 2023-11-14 22:13:20.000 |"
                 " 2023-11-14 22:13:20.000 | NULL | NULL\n"
                 "(2 rows)\n");
    /* First in SHOW DNODES (by id), in SHOW MNODES and LIKE, never in SHOW SNODES. */
    sl_result r;
    query_db(f->cat, NULL, "SHOW DNODES", &r);
    assert_int_equal(r.rows.nrows, 6);
    assert_int_equal(cell_i(&r, 0, "id"), 0);
    assert_string_equal(cell_s(&r, 0, "kind"), "mnode");
    sl_result_fini(&r);
    assert_int_equal(nrows(f->cat, NULL, "SHOW MNODES"), 2);
    assert_int_equal(nrows(f->cat, NULL, "SHOW DNODES LIKE 'tcp://%'"), 1);
    assert_int_equal(nrows(f->cat, NULL, "SHOW SNODES"), 2);
    assert_int_equal(nrows(f->cat, NULL, "SELECT * FROM information_schema.ins_dnodes "
                                         "WHERE status <> 'alive'"),
                     0);
    refused(f->cat, NULL, "SHOW VNODES ON DNODE 0", SL_EINVAL,
            "1:22: dnode 0 is an mnode: only vnodes hold vgroups");
    refused(f->cat, NULL, "DROP SNODE 0", SL_ENOTFOUND, "1:12: snode 0 does not exist");
    /* Naming it again replaces the address; nothing of it is stored. */
    assert_int_equal(sl_mcatalog_set_self(f->cat, "tcp://10.0.0.9:7030", T0, &err), 0);
    assert_int_equal(nrows(f->cat, NULL, "SHOW DNODES LIKE '%:7030'"), 1);
    assert_int_equal(nrows(f->cat, NULL, "SHOW DNODES LIKE '%:6030'"), 1);
    mcf_reopen(&f->head);
    assert_int_equal(nrows(f->cat, NULL, "SHOW DNODES"), 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_show_vnodes_on_dnode, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_show_vnodes_refusals, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_show_vgroups, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_streams_placement_columns, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_dnodes_snodes_drop, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_vnode_loads, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_self_row, setup, mcf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
