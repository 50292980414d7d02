/*
 * sluice-demo.c - a tour of Sluice's SQL over the embedded in-memory store.
 *
 * Creates the `power` database with the classic `meters` super table and a few child
 * tables (one of them created on first write by INSERT ... USING ... TAGS), bulk-loads a
 * few thousand generated rows through the columnar append path, then runs a series of
 * queries, echoing each statement before its result: counts, per-table aggregates,
 * one-minute windows, tag filters, grouping, ordering, CASE, and an update and a delete
 * with their effect. Everything runs in-process through the same planner and executor the
 * cluster uses. Exits 0 on success; on the first error it prints the message and exits 1.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/exec/memstore.h"

/* 2025-01-01 00:00:00 UTC in milliseconds: the first generated row. */
#define DEMO_T0 INT64_C(1735689600000)
/* One row every 10 seconds per table. */
#define DEMO_STEP_MS      10000
#define DEMO_ROWS_DEFAULT 2000

typedef struct demo_table {
    const char *name;
    const char *location;
    int group_id;
    double base_current;
} demo_table;

static const demo_table demo_tables[] = {
    {.name = "d1001", .location = "San Francisco", .group_id = 2, .base_current = 10.0},
    {.name = "d1002", .location = "San Francisco", .group_id = 3, .base_current = 11.0},
    {.name = "d1003", .location = "Los Angeles", .group_id = 2, .base_current = 12.0},
    {.name = "d1004", .location = "Los Angeles", .group_id = 3, .base_current = 9.5},
};
#define DEMO_NTABLES (sizeof(demo_tables) / sizeof(demo_tables[0]))

/* A small deterministic generator, so every run prints the same tables. */
static uint32_t demo_rand(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*state >> 33);
}

static int fail(const char *what, const sl_error *err)
{
    fprintf(stderr, "sluice-demo: %s failed: %s\n", what,
            err->msg[0] ? err->msg : sl_strerror(err->code));
    return 1;
}

/* Runs sql, optionally echoing it and printing its result table. */
static int run_sql(sl_memstore *ms, const char *sql, bool show)
{
    sl_result res;
    sl_error err;
    sl_error_clear(&err);
    if (show)
        printf("sluice> %s;\n", sql);
    if (sl_memstore_exec(ms, sql, &res, &err) != 0)
        return fail("statement", &err);
    if (show) {
        sl_buf out;
        sl_buf_init(&out);
        int rc = sl_result_format(&res, &out);
        if (rc == 0)
            fwrite(out.data, 1, out.len, stdout);
        sl_buf_fini(&out);
        printf("\n");
        if (rc != 0) {
            sl_result_fini(&res);
            fprintf(stderr, "sluice-demo: formatting failed: %s\n", sl_strerror(rc));
            return 1;
        }
    }
    sl_result_fini(&res);
    return 0;
}

/* Generates rows [from, from+n) of table t into b (empty, with the meters columns). */
static int generate(sl_block *b, const demo_table *t, int from, int n, uint64_t *rng)
{
    for (int i = from; i < from + n; i++) {
        /* A daily-ish wave plus noise; voltage around 220 V; phase in [0, 1). */
        double wave = (double)((i / 30) % 10) * 0.3;
        double current = t->base_current + wave + (double)(demo_rand(rng) % 100) / 100.0;
        int voltage = 205 + (int)(demo_rand(rng) % 31);
        double phase = (double)(demo_rand(rng) % 1000) / 1000.0;
        if (sl_column_append_i64(&b->cols[0], DEMO_T0 + (int64_t)i * DEMO_STEP_MS) < 0 ||
            sl_column_append_f64(&b->cols[1], current) < 0 ||
            sl_column_append_i64(&b->cols[2], voltage) < 0 ||
            sl_column_append_f64(&b->cols[3], phase) < 0)
            return SL_ENOMEM;
    }
    sl_block_seal(b);
    return 0;
}

/* Bulk-loads rows_per_table rows into every demo table, printing progress. */
static int load(sl_memstore *ms, int rows_per_table)
{
    uint64_t rng = 42;
    long long total = (long long)rows_per_table * (long long)DEMO_NTABLES, done = 0;
    fflush(stdout); /* keep the echoed statements before the progress line */
    for (size_t k = 0; k < DEMO_NTABLES; k++) {
        const demo_table *t = &demo_tables[k];
        for (int off = 0; off < rows_per_table; off += SL_BLOCK_ROWS_MAX) {
            int n =
                rows_per_table - off < SL_BLOCK_ROWS_MAX ? rows_per_table - off : SL_BLOCK_ROWS_MAX;
            sl_block b;
            sl_block_init(&b);
            sl_error err;
            sl_error_clear(&err);
            int rc = 0;
            if (sl_block_add_column(&b, SL_T_TIMESTAMP, 0) < 0 ||
                sl_block_add_column(&b, SL_T_FLOAT, 0) < 0 ||
                sl_block_add_column(&b, SL_T_INT, 0) < 0 ||
                sl_block_add_column(&b, SL_T_FLOAT, 0) < 0 || generate(&b, t, off, n, &rng) < 0)
                rc = sl_error_set(&err, SL_ENOMEM, 0, 0, "out of memory generating rows");
            if (rc == 0)
                rc = sl_memstore_append(ms, "power", t->name, &b, &err);
            sl_block_fini(&b);
            if (rc != 0) {
                fprintf(stderr, "\n");
                return fail("loading", &err);
            }
            done += n;
            fprintf(stderr, "\rloading: %lld / %lld rows", done, total);
        }
    }
    fprintf(stderr, "\n");
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sluice-demo [--rows N]\n"
            "  Runs a tour of Sluice SQL over an in-memory database.\n"
            "  --rows N   rows generated per child table (default %d, at least 100)\n",
            DEMO_ROWS_DEFAULT);
}

int main(int argc, char **argv)
{
    int rows = DEMO_ROWS_DEFAULT;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end != '\0' || v < 100 || v > 10000000) {
                fprintf(stderr, "sluice-demo: --rows wants a number from 100 to 10000000\n");
                return 2;
            }
            rows = (int)v;
            continue;
        }
        usage(stderr);
        return 2;
    }

    sl_memstore *ms = NULL;
    if (sl_memstore_open(&ms, NULL, NULL) != 0) {
        fprintf(stderr, "sluice-demo: out of memory\n");
        return 1;
    }
    int rc = 0;
    /* Schema: the database, the super table and the child tables. */
    static const char *const setup[] = {
        "CREATE DATABASE power PRECISION 'ms' VGROUPS 2",
        "USE power",
        "CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT) "
        "TAGS (location VARCHAR(64), groupId INT)",
        "CREATE TABLE d1001 USING meters TAGS ('San Francisco', 2) "
        "d1002 USING meters TAGS ('San Francisco', 3) "
        "d1003 USING meters TAGS ('Los Angeles', 2) "
        "d1004 USING meters TAGS ('Los Angeles', 3)",
    };
    for (size_t i = 0; rc == 0 && i < sizeof(setup) / sizeof(setup[0]); i++)
        rc = run_sql(ms, setup[i], true);
    if (rc == 0)
        rc = load(ms, rows);
    /* A fifth meter appears on its first write, with timestamps as text and NOW. */
    if (rc == 0)
        rc = run_sql(ms,
                     "INSERT INTO d1005 USING meters TAGS ('Seattle', 4) VALUES "
                     "('2025-01-01 00:00:05', 8.5, 221, 0.31) "
                     "('2025-01-01 00:00:15', 8.75, 219, 0.32) "
                     "('2025-01-01 00:01:05', 9.25, 224, 0.30)",
                     true);

    static const char *const queries[] = {
        "SHOW STABLES",
        "SELECT count(*) FROM meters",
        "SELECT tbname, count(*), avg(current), min(voltage), max(voltage) FROM meters "
        "PARTITION BY tbname ORDER BY tbname",
        "SELECT _wstart, count(*), avg(current), max(voltage) FROM meters "
        "WHERE ts >= '2025-01-01 00:00:00' AND ts < '2025-01-01 00:05:00' INTERVAL(1m)",
        "SELECT tbname, ts, current, voltage FROM meters "
        "WHERE location = 'San Francisco' AND groupId = 2 AND voltage >= 234 "
        "ORDER BY ts LIMIT 5",
        "SELECT location, count(*), avg(voltage), max(current) FROM meters "
        "GROUP BY location ORDER BY location",
        "SELECT ts, tbname, current FROM meters ORDER BY current DESC, ts LIMIT 5",
        "SELECT ts, voltage, CASE WHEN voltage >= 230 THEN 'high' WHEN voltage < 210 "
        "THEN 'low' ELSE 'normal' END AS level FROM d1001 LIMIT 6",
    };
    for (size_t i = 0; rc == 0 && i < sizeof(queries) / sizeof(queries[0]); i++)
        rc = run_sql(ms, queries[i], true);

    /* An update: writing an existing timestamp replaces the row. */
    static const char *const update[] = {
        "SELECT ts, current, voltage, phase FROM d1001 WHERE ts = '2025-01-01 00:00:10'",
        "INSERT INTO d1001 VALUES ('2025-01-01 00:00:10', 99.5, 250, 0.5)",
        "SELECT ts, current, voltage, phase FROM d1001 WHERE ts = '2025-01-01 00:00:10'",
        "SELECT count(*), max(current) FROM d1001",
    };
    for (size_t i = 0; rc == 0 && i < sizeof(update) / sizeof(update[0]); i++)
        rc = run_sql(ms, update[i], true);

    /* A delete by time range, on one table and then on the super table. */
    static const char *const del[] = {
        "DELETE FROM d1001 WHERE ts >= '2025-01-01 00:00:00' AND ts < '2025-01-01 00:10:00'",
        "SELECT count(*), min(ts) FROM d1001",
        "DELETE FROM meters WHERE ts < '2025-01-01 01:00:00'",
        "SELECT tbname, count(*), min(ts) FROM meters PARTITION BY tbname ORDER BY tbname",
    };
    for (size_t i = 0; rc == 0 && i < sizeof(del) / sizeof(del[0]); i++)
        rc = run_sql(ms, del[i], true);

    sl_memstore_close(ms);
    return rc;
}
