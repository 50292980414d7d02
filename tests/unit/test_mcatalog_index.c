/*
 * test_mcatalog_index.c - the catalog's per-vgroup table index and per-database super
 * table list (sl_mcatalog_each_vgroup_table, sl_mcatalog_each_stable; catalog.h), which
 * the mnode's VGROUP_TABLES handler answers from instead of walking a whole database.
 *
 * A random sequence of DDL (databases of 1..5 vgroups, super, child and normal tables,
 * several tables per statement, DROP TABLE, DROP STABLE with its children, DROP DATABASE
 * and creating it again) runs against the catalog while the test keeps its own model of
 * which tables exist. After every few statements, and after reopening the catalog from
 * disk (the index is rebuilt at load), every vgroup's listing must hold exactly the model's
 * tables that the placement rule of catalog.h (xxHash3-64 of the lower-cased database
 * name, a 0 byte and the lower-cased table name, modulo the vgroups) puts there, computed
 * here from the rule, and every database's super table listing exactly the model's super
 * tables. Unknown vgroups and databases are refused with SL_ENOTFOUND.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/sql/parser.h"
#include "common/util/keymap.h"
#include "mcatalog_fixture.h"
#include "mnode/catalog.h"

#define NDB 3
#define MAXT 400 /* model tables per database */

/* The test's own idea of one table. */
typedef struct mtab {
    char name[32];
    sl_table_kind kind;
    int super; /* child: index of its super table in the model, else -1 */
    bool live;
} mtab;

typedef struct mdb {
    char name[16];
    bool live;
    uint32_t nvgroups;
    mtab t[MAXT];
    int n;
} mdb;

typedef struct fixture {
    MCF_HEAD;
    mdb db[NDB];
    uint64_t rng;
    int serial; /* for unique table names */
} fixture;

static uint32_t rnd(fixture *f, uint32_t n)
{
    /* xorshift64*: deterministic, so a failure repeats */
    f->rng ^= f->rng >> 12;
    f->rng ^= f->rng << 25;
    f->rng ^= f->rng >> 27;
    return (uint32_t)((f->rng * UINT64_C(2685821657736338717)) >> 33) % n;
}

/* The placement rule of catalog.h, worked out here. */
static uint32_t rule_index(const char *db, const char *table, uint32_t nvgroups)
{
    char buf[256];
    size_t n = 0;
    for (const char *p = db; *p; p++)
        buf[n++] = (char)tolower((unsigned char)*p);
    buf[n++] = '\0';
    for (const char *p = table; *p; p++)
        buf[n++] = (char)tolower((unsigned char)*p);
    return (uint32_t)(sl_hash_bytes(buf, n) % nvgroups);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    if (f == NULL || open_temp(f->dir, sizeof(f->dir), "/tmp/sl-mcidx-XXXXXX", &f->cat) != 0)
        return -1;
    uint32_t id;
    sl_error err;
    sl_error_clear(&err);
    if (sl_mcatalog_node_register(f->cat, SL_MC_VNODE, "127.0.0.1:6100", NOW_MS, &id, &err) ||
        sl_mcatalog_node_register(f->cat, SL_MC_VNODE, "127.0.0.1:6101", NOW_MS, &id, &err))
        return -1;
    f->rng = UINT64_C(0x9e3779b97f4a7c15);
    *state = f;
    return 0;
}

/* ------------------------------------------------------------ the model's DDL */

static void create_db(fixture *f, int d)
{
    mdb *m = &f->db[d];
    snprintf(m->name, sizeof(m->name), "Db%d", d);
    m->nvgroups = 1 + rnd(f, 5);
    m->n = 0;
    m->live = true;
    char sql[128];
    snprintf(sql, sizeof(sql), "CREATE DATABASE %s VGROUPS %u", m->name, m->nvgroups);
    ok(f->cat, NULL, sql);
}

static int add_tab(mdb *m, const char *name, sl_table_kind kind, int super)
{
    assert_true(m->n < MAXT);
    mtab *t = &m->t[m->n];
    snprintf(t->name, sizeof(t->name), "%s", name);
    t->kind = kind;
    t->super = super;
    t->live = true;
    return m->n++;
}

/* A live super table of m, or -1. */
static int pick(fixture *f, mdb *m, bool super)
{
    int c[MAXT], n = 0;
    for (int i = 0; i < m->n; i++)
        if (m->t[i].live && (m->t[i].kind == SL_TABLE_SUPER) == super)
            c[n++] = i;
    return n == 0 ? -1 : c[rnd(f, (uint32_t)n)];
}

static void random_step(fixture *f)
{
    int d = (int)rnd(f, NDB);
    mdb *m = &f->db[d];
    char sql[1024];
    if (!m->live) {
        create_db(f, d);
        return;
    }
    if (m->n >= MAXT - 8) { /* full: start over with another vgroup count */
        snprintf(sql, sizeof(sql), "DROP DATABASE %s", m->name);
        ok(f->cat, NULL, sql);
        m->live = false;
        return;
    }
    uint32_t op = rnd(f, 100);
    char name[32];
    if (op < 8) { /* a super table */
        snprintf(name, sizeof(name), "St%d", f->serial++);
        snprintf(sql, sizeof(sql), "CREATE STABLE %s (ts TIMESTAMP, v INT) TAGS (g INT)", name);
        ok(f->cat, m->name, sql);
        add_tab(m, name, SL_TABLE_SUPER, -1);
    } else if (op < 45) { /* one to four child tables in one statement */
        int st = pick(f, m, true);
        if (st < 0)
            return;
        int k = 1 + (int)rnd(f, 4);
        size_t len = (size_t)snprintf(sql, sizeof(sql), "CREATE TABLE");
        for (int i = 0; i < k; i++) {
            snprintf(name, sizeof(name), "c%d", f->serial++);
            len += (size_t)snprintf(sql + len, sizeof(sql) - len, " %s USING %s TAGS (%d)", name,
                                    m->t[st].name, i);
            add_tab(m, name, SL_TABLE_CHILD, st);
        }
        ok(f->cat, m->name, sql);
    } else if (op < 65) { /* a normal table */
        snprintf(name, sizeof(name), "N%d", f->serial++);
        snprintf(sql, sizeof(sql), "CREATE TABLE %s (ts TIMESTAMP, v DOUBLE)", name);
        ok(f->cat, m->name, sql);
        add_tab(m, name, SL_TABLE_NORMAL, -1);
    } else if (op < 90) { /* drop a child or normal table */
        int t = pick(f, m, false);
        if (t < 0)
            return;
        snprintf(sql, sizeof(sql), "DROP TABLE %s", m->t[t].name);
        ok(f->cat, m->name, sql);
        m->t[t].live = false;
    } else if (op < 97) { /* drop a super table and its children */
        int st = pick(f, m, true);
        if (st < 0)
            return;
        snprintf(sql, sizeof(sql), "DROP STABLE %s", m->t[st].name);
        ok(f->cat, m->name, sql);
        for (int i = 0; i < m->n; i++)
            if (i == st || m->t[i].super == st)
                m->t[i].live = false;
    } else {
        snprintf(sql, sizeof(sql), "DROP DATABASE %s", m->name);
        ok(f->cat, NULL, sql);
        m->live = false;
    }
}

/* ------------------------------------------------------------ checking */

typedef struct listing {
    sl_mcatalog *cat;
    uint32_t vgroup; /* 0: a super table listing */
    char (*names)[32];
    int n;
} listing;

static int collect(void *arg, const sl_mcatalog_table *t)
{
    listing *l = arg;
    assert_true(l->n < MAXT);
    /* Each entry is the table as a lookup by name sees it. */
    sl_mcatalog_table byname;
    assert_int_equal(sl_mcatalog_table_get(l->cat, t->meta.db, t->meta.name, &byname, NULL), 0);
    assert_int_equal(byname.uid, t->uid);
    assert_int_equal(byname.meta.kind, t->meta.kind);
    if (l->vgroup != 0) {
        assert_int_not_equal(t->meta.kind, SL_TABLE_SUPER);
        assert_int_equal(t->vgroup_id, l->vgroup);
    } else {
        assert_int_equal(t->meta.kind, SL_TABLE_SUPER);
    }
    snprintf(l->names[l->n++], 32, "%s", t->meta.name);
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

static void expect_names(char (*got)[32], int ngot, char (*want)[32], int nwant, const char *what)
{
    qsort(got, (size_t)ngot, 32, cmp_name);
    qsort(want, (size_t)nwant, 32, cmp_name);
    if (ngot != nwant)
        fail_msg("%s: %d tables listed, %d expected", what, ngot, nwant);
    for (int i = 0; i < ngot; i++)
        if (strcmp(got[i], want[i]) != 0)
            fail_msg("%s: entry %d is %s, expected %s", what, i, got[i], want[i]);
}

static void check_all(fixture *f)
{
    static char got[MAXT][32], want[MAXT][32];
    for (int d = 0; d < NDB; d++) {
        mdb *m = &f->db[d];
        if (!m->live)
            continue;
        sl_mcatalog_db info;
        assert_int_equal(sl_mcatalog_db_get(f->cat, m->name, &info, NULL), 0);
        assert_int_equal(info.nvgroups, m->nvgroups);
        int64_t total = 0;
        for (uint32_t v = 0; v < m->nvgroups; v++) {
            int nwant = 0;
            for (int i = 0; i < m->n; i++)
                if (m->t[i].live && m->t[i].kind != SL_TABLE_SUPER &&
                    rule_index(m->name, m->t[i].name, m->nvgroups) == v)
                    snprintf(want[nwant++], 32, "%s", m->t[i].name);
            listing l = {.cat = f->cat, .vgroup = info.vgroup_ids[v], .names = got};
            assert_int_equal(sl_mcatalog_each_vgroup_table(f->cat, l.vgroup, collect, &l, NULL), 0);
            char what[64];
            snprintf(what, sizeof(what), "%s vgroup %u (index %u)", m->name, l.vgroup, v);
            expect_names(got, l.n, want, nwant, what);
            sl_mcatalog_vgroup vg;
            assert_int_equal(sl_mcatalog_vgroup_get(f->cat, l.vgroup, &vg, NULL), 0);
            assert_int_equal(vg.ntables, nwant);
            total += nwant;
        }
        assert_int_equal(info.ntables, total);
        int nwant = 0;
        for (int i = 0; i < m->n; i++)
            if (m->t[i].live && m->t[i].kind == SL_TABLE_SUPER)
                snprintf(want[nwant++], 32, "%s", m->t[i].name);
        listing l = {.cat = f->cat, .vgroup = 0, .names = got};
        assert_int_equal(sl_mcatalog_each_stable(f->cat, m->name, collect, &l, NULL), 0);
        char what[64];
        snprintf(what, sizeof(what), "%s super tables", m->name);
        expect_names(got, l.n, want, nwant, what);
        assert_int_equal(info.nstables, nwant);
    }
}

/* ------------------------------------------------------------ tests */

static void test_random_catalog(void **state)
{
    fixture *f = *state;
    for (int d = 0; d < NDB; d++)
        create_db(f, d);
    for (int step = 1; step <= 1500; step++) {
        random_step(f);
        if (step % 25 == 0)
            check_all(f);
        if (step % 300 == 0) { /* the index is rebuilt from the records at load */
            mcf_reopen(&f->head);
            check_all(f);
        }
    }
    check_all(f);
}

static int stop_at_two(void *arg, const sl_mcatalog_table *t)
{
    (void)t;
    return ++*(int *)arg == 2 ? 7 : 0;
}

static void test_refusals(void **state)
{
    fixture *f = *state;
    ok(f->cat, NULL, "CREATE DATABASE one VGROUPS 1");
    ok(f->cat, "one", "CREATE STABLE st (ts TIMESTAMP, v INT) TAGS (g INT)");
    ok(f->cat, "one", "CREATE STABLE st2 (ts TIMESTAMP, v INT) TAGS (g INT)");
    ok(f->cat, "one", "CREATE TABLE a USING st TAGS (1) b USING st TAGS (2) c USING st TAGS (3)");
    sl_mcatalog_db info;
    assert_int_equal(sl_mcatalog_db_get(f->cat, "one", &info, NULL), 0);
    uint32_t vg = info.vgroup_ids[0];

    /* A visitor's nonzero value stops the walk and is returned. */
    int calls = 0;
    assert_int_equal(sl_mcatalog_each_vgroup_table(f->cat, vg, stop_at_two, &calls, NULL), 7);
    assert_int_equal(calls, 2);
    calls = 0;
    assert_int_equal(sl_mcatalog_each_stable(f->cat, "one", stop_at_two, &calls, NULL), 7);
    assert_int_equal(calls, 2);

    /* Unknown vgroups and databases, a dropped database's vgroup included. */
    sl_error err;
    sl_error_clear(&err);
    calls = 0;
    assert_int_equal(sl_mcatalog_each_vgroup_table(f->cat, 999999, stop_at_two, &calls, &err),
                     SL_ENOTFOUND);
    assert_string_equal(err.msg, "vgroup 999999 does not exist");
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_each_stable(f->cat, "nope", stop_at_two, &calls, &err),
                     SL_ENOTFOUND);
    assert_string_equal(err.msg, "database 'nope' does not exist");
    ok(f->cat, NULL, "DROP DATABASE one");
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_each_vgroup_table(f->cat, vg, stop_at_two, &calls, &err),
                     SL_ENOTFOUND);
    assert_int_equal(calls, 0);
    /* A refused statement leaves the index as it was. */
    ok(f->cat, NULL, "CREATE DATABASE two VGROUPS 1");
    ok(f->cat, "two", "CREATE STABLE st (ts TIMESTAMP, v INT) TAGS (g INT)");
    ok(f->cat, "two", "CREATE TABLE n1 USING st TAGS (1)");
    refused(f->cat, "two", "CREATE TABLE n2 USING st TAGS (2) n3 USING nosuch TAGS (3)",
            SL_ENOTFOUND, "1:44: super table 'nosuch' does not exist");
    assert_int_equal(sl_mcatalog_db_get(f->cat, "two", &info, NULL), 0);
    calls = 0;
    assert_int_equal(
        sl_mcatalog_each_vgroup_table(f->cat, info.vgroup_ids[0], stop_at_two, &calls, NULL), 0);
    assert_int_equal(calls, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_random_catalog, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, mcf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
