/*
 * test_mcatalog_assign.c - stream placement, snodes, the assignment epoch and the
 * checkpoint store of the mnode catalog (mnode/catalog_assign.c, catalog.h "Stream
 * placement, snodes, epochs and checkpoints"): the epoch of a new catalog, placement by
 * rendezvous hashing checked against a brute-force owner computed here from
 * sl_place_score, epoch bumps on sweeps, revivals, leaves, DROP SNODE and STOP/START
 * STREAM, the system tables ins_snodes and ins_stream_tasks (checked row by row against a
 * model of the snodes' reports), heartbeat errors, checkpoint fencing, restarts that keep
 * the epoch, and load balance.
 */
#define _GNU_SOURCE
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
#include "mcatalog_fixture.h"
#include "mnode/catalog.h"
#include "mnode/placement.h"

/* The caller's clock for membership (heartbeats, sweeps). */
#define T0 INT64_C(5000000)
#define NSLOTS 256
#define MAXSTREAMS 24
#define MAXSNODES 4

/* What the test knows an snode last reported (the model ins_snodes is checked against). */
typedef struct snode_model {
    uint64_t epoch;
    uint64_t memory;
    uint64_t groups;
    size_t ntasks;
    sl_mcatalog_task_report tasks[4];
} snode_model;

typedef struct fixture {
    MCF_HEAD;
    uint32_t vnode;
    int nsn;
    uint32_t sn[MAXSNODES];
    char addr[MAXSNODES][32];
    snode_model rep[MAXSNODES];
} fixture;

/* ------------------------------------------------------------ placement, brute force */

typedef struct pstream {
    uint64_t id;
    bool running;
    char name[64];
    uint32_t owners[NSLOTS];
} pstream;

typedef struct psnap {
    int n;
    pstream s[MAXSTREAMS];
} psnap;

static int snap_fn(void *arg, const sl_mcatalog_stream *s)
{
    psnap *p = arg;
    assert_true(p->n < MAXSTREAMS);
    assert_int_equal(s->nslots, NSLOTS);
    pstream *x = &p->s[p->n++];
    x->id = s->id;
    x->running = s->running;
    snprintf(x->name, sizeof(x->name), "%s", s->name);
    memcpy(x->owners, s->owners, sizeof(x->owners));
    return 0;
}

/* The current placement as sl_mcatalog_each_stream gives it (heap; caller frees). */
static psnap *take(sl_mcatalog *cat)
{
    psnap *p = calloc(1, sizeof(*p));
    assert_non_null(p);
    assert_int_equal(sl_mcatalog_each_stream(cat, snap_fn, p), 0);
    for (int i = 1; i < p->n; i++)
        assert_true(p->s[i - 1].id < p->s[i].id); /* ascending id */
    return p;
}

/* The owner of (stream, slot) among cand: highest score, ties to the lower id; 0 if none. */
static uint32_t brute_owner(uint64_t stream, uint32_t slot, const uint32_t *cand, size_t n)
{
    uint32_t best = 0;
    uint64_t bs = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t sc = sl_place_score(stream, slot, cand[i]);
        if (best == 0 || sc > bs || (sc == bs && cand[i] < best)) {
            best = cand[i];
            bs = sc;
        }
    }
    return best;
}

/* Every pair of p is owned by its brute-force owner among cand. */
static void expect_placement(const psnap *p, const uint32_t *cand, size_t n)
{
    for (int i = 0; i < p->n; i++)
        for (uint32_t s = 0; s < NSLOTS; s++) {
            uint32_t want = brute_owner(p->s[i].id, s, cand, n);
            if (p->s[i].owners[s] != want)
                fail_msg("stream %llu slot %u: owner %u, want %u",
                         (unsigned long long)p->s[i].id, s, p->s[i].owners[s], want);
        }
}

static void expect_same_owners(const psnap *a, const psnap *b)
{
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        assert_int_equal(a->s[i].id, b->s[i].id);
        assert_memory_equal(a->s[i].owners, b->s[i].owners, sizeof(a->s[i].owners));
    }
}

static int64_t pairs_of(const psnap *p, uint32_t node)
{
    int64_t k = 0;
    for (int i = 0; i < p->n; i++)
        for (uint32_t s = 0; s < NSLOTS; s++)
            k += p->s[i].owners[s] == node;
    return k;
}

static bool place(sl_mcatalog *cat)
{
    bool changed = true;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_mcatalog_place(cat, &changed, &err);
    if (rc != 0)
        fail_msg("place: %d %s", rc, err.msg);
    return changed;
}

/* ------------------------------------------------------------ fixture */

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    if (open_temp(f->dir, sizeof(f->dir), "/tmp/sl-mcas-XXXXXX", &f->cat) != 0)
        return -1;
    sl_error err;
    sl_error_clear(&err);
    if (sl_mcatalog_node_register(f->cat, SL_MC_VNODE, "127.0.0.1:6100", T0, &f->vnode, &err) != 0)
        return -1;
    ok(f->cat, NULL, "CREATE DATABASE power VGROUPS 2");
    ok(f->cat, "power",
       "CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT) "
       "TAGS (location VARCHAR(64), groupId INT)");
    ok(f->cat, "power", "CREATE TABLE d1001 USING meters TAGS ('SF', 2)");
    ok(f->cat, "power", "CREATE TABLE d1002 USING meters TAGS ('LA', 3)");
    *state = f;
    return 0;
}

static void add_snodes(fixture *f, int n)
{
    for (int i = 0; i < n; i++) {
        int k = f->nsn++;
        assert_true(k < MAXSNODES);
        snprintf(f->addr[k], sizeof(f->addr[k]), "10.0.0.%d:7100", k + 1);
        sl_error err;
        sl_error_clear(&err);
        assert_int_equal(
            sl_mcatalog_node_register(f->cat, SL_MC_SNODE, f->addr[k], T0, &f->sn[k], &err), 0);
        assert_true(f->sn[k] != 0 && f->sn[k] != f->vnode);
    }
}

/* Creates streams s<from>..s<to> in database power. */
static void add_streams(fixture *f, int from, int to)
{
    for (int i = from; i <= to; i++) {
        char sql[256];
        snprintf(sql, sizeof(sql),
                 "CREATE STREAM s%d INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname "
                 "INTO o%d AS SELECT _twstart, AVG(voltage) FROM %%%%trows",
                 i, i);
        ok(f->cat, "power", sql);
    }
}

/* The standard scene: 3 snodes, 3 streams, placed at epoch 2. */
static psnap *scene(fixture *f)
{
    add_snodes(f, 3);
    add_streams(f, 1, 3);
    assert_int_equal(sl_mcatalog_epoch(f->cat), 1);
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 2);
    psnap *p = take(f->cat);
    assert_int_equal(p->n, 3);
    expect_placement(p, f->sn, 3);
    return p;
}

static void heartbeat(fixture *f, uint32_t id, int64_t now)
{
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_mcatalog_node_heartbeat(f->cat, id, now, &err);
    if (rc != 0)
        fail_msg("heartbeat %u: %d %s", id, rc, err.msg);
}

/* Kills snode k by the sweep: every other node heartbeats at now, then a sweep with a
 * timeout that only k's age exceeds. */
static void sweep_kill(fixture *f, int k, int64_t now)
{
    heartbeat(f, f->vnode, now);
    for (int i = 0; i < f->nsn; i++)
        if (i != k) {
            sl_error err;
            sl_error_clear(&err);
            sl_mcatalog_node n;
            assert_int_equal(sl_mcatalog_node_get(f->cat, f->sn[i], &n, &err), 0);
            if (n.alive)
                heartbeat(f, f->sn[i], now);
        }
    sl_mcatalog_node n;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_get(f->cat, f->sn[k], &n, &err), 0);
    assert_true(now - n.last_seen > 1000);
    uint32_t dead[4];
    size_t ndead = 99;
    assert_int_equal(sl_mcatalog_node_sweep(f->cat, now, 1000, dead, 4, &ndead, &err), 0);
    assert_int_equal(ndead, 1);
    assert_int_equal(dead[0], f->sn[k]);
}

static bool alive(fixture *f, uint32_t id)
{
    sl_mcatalog_node n;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_get(f->cat, id, &n, &err), 0);
    return n.alive;
}

/* ------------------------------------------------------------ 1. a new catalog */

static void test_new_catalog(void **state)
{
    fixture *f = *state;
    assert_int_equal(sl_mcatalog_epoch(f->cat), 1);
    assert_int_equal(sl_mcatalog_slots(f->cat), NSLOTS);
    bool changed = true;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_place(f->cat, &changed, &err), 0);
    assert_false(changed);
    assert_int_equal(sl_mcatalog_epoch(f->cat), 1);
    assert_int_equal(sl_mcatalog_place(f->cat, NULL, &err), 0);
    assert_int_equal(sl_mcatalog_epoch(f->cat), 1);
    psnap *p = take(f->cat);
    assert_int_equal(p->n, 0);
    free(p);
    /* snodes joining while no stream exists move nothing */
    add_snodes(f, 2);
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 1);
    mcf_reopen(&f->head);
    assert_int_equal(sl_mcatalog_epoch(f->cat), 1);
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 1);
}

/* ------------------------------------------------------------ 2. the first placement */

static void test_place_initial(void **state)
{
    fixture *f = *state;
    psnap *p = scene(f);
    for (int i = 0; i < 3; i++) {
        char want[8];
        snprintf(want, sizeof(want), "s%d", i + 1);
        assert_string_equal(p->s[i].name, want);
        assert_true(p->s[i].running);
        assert_true(pairs_of(p, f->sn[i]) > 0);
    }
    assert_int_equal(pairs_of(p, f->vnode), 0);
    assert_int_equal(pairs_of(p, f->sn[0]) + pairs_of(p, f->sn[1]) + pairs_of(p, f->sn[2]),
                     3 * NSLOTS);
    /* nothing changed: no bump */
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 2);
    /* a node of another kind is no candidate */
    uint32_t m;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_register(f->cat, SL_MC_MNODE, "10.9.9.9:6000", T0, &m, &err),
                     0);
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 2);
    /* an snode restarting (registering again while alive) changes nothing */
    uint32_t again = 0;
    assert_int_equal(
        sl_mcatalog_node_register(f->cat, SL_MC_SNODE, f->addr[0], T0 + 50, &again, &err), 0);
    assert_int_equal(again, f->sn[0]);
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 2);
    psnap *q = take(f->cat);
    expect_same_owners(p, q);
    free(q);
    free(p);
}

/* ------------------------------------------------------------ 3, 4. sweep and revival */

static void test_sweep_and_revive(void **state)
{
    fixture *f = *state;
    psnap *before = scene(f);
    sweep_kill(f, 0, T0 + 10000);
    assert_false(alive(f, f->sn[0]));
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);
    psnap *after = take(f->cat);
    assert_int_equal(after->n, 3);
    assert_int_equal(pairs_of(after, f->sn[0]), 0);
    uint32_t rest[2] = {f->sn[1], f->sn[2]};
    int moved = 0;
    for (int i = 0; i < 3; i++)
        for (uint32_t s = 0; s < NSLOTS; s++) {
            uint32_t was = before->s[i].owners[s], now = after->s[i].owners[s];
            if (was != f->sn[0]) {
                assert_int_equal(now, was);
            } else {
                assert_int_equal(now, brute_owner(after->s[i].id, s, rest, 2));
                moved++;
            }
        }
    assert_int_equal(moved, pairs_of(before, f->sn[0]));
    expect_placement(after, rest, 2);
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);

    /* 4: its heartbeat revives it; the placement is the original one again */
    heartbeat(f, f->sn[0], T0 + 10001);
    assert_true(alive(f, f->sn[0]));
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 4);
    psnap *back = take(f->cat);
    expect_same_owners(before, back);
    expect_placement(back, f->sn, 3);
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 4);
    free(before);
    free(after);
    free(back);
}

/* ------------------------------------------------------------ 5. stop / start / drop / create */

static void test_stop_start(void **state)
{
    fixture *f = *state;
    psnap *before = scene(f);
    ok(f->cat, "power", "STOP STREAM s2");
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);
    psnap *p = take(f->cat);
    assert_true(p->s[0].running);
    assert_false(p->s[1].running);
    assert_true(p->s[2].running);
    expect_same_owners(before, p); /* stopped streams keep their placement */
    free(p);
    ok(f->cat, "power", "STOP STREAM s2"); /* already stopped */
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);
    ok(f->cat, "power", "START STREAM s2");
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 4);
    p = take(f->cat);
    assert_true(p->s[1].running);
    expect_same_owners(before, p);
    free(p);
    /* dropping and creating streams change the placement too */
    ok(f->cat, "power", "DROP STREAM s3");
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 5);
    p = take(f->cat);
    assert_int_equal(p->n, 2);
    free(p);
    add_streams(f, 4, 4);
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 6);
    p = take(f->cat);
    assert_int_equal(p->n, 3);
    assert_string_equal(p->s[2].name, "s4");
    expect_placement(p, f->sn, 3);
    free(p);
    free(before);
}

/* ------------------------------------------------------------ 6. system tables */

static void report(fixture *f, int k, int64_t now)
{
    const snode_model *m = &f->rep[k];
    sl_mcatalog_snode_report r = {
        .epoch = m->epoch,
        .memory_bytes = m->memory,
        .groups = m->groups,
        .ntasks = m->ntasks,
        .tasks = m->ntasks ? m->tasks : NULL,
    };
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_mcatalog_snode_heartbeat(f->cat, f->sn[k], &r, now, &err);
    if (rc != 0)
        fail_msg("snode heartbeat %u: %d %s", f->sn[k], rc, err.msg);
}

static int snode_index(const fixture *f, uint32_t id)
{
    for (int i = 0; i < f->nsn; i++)
        if (f->sn[i] == id)
            return i;
    return -1;
}

/* ins_snodes against the model: status given per snode, streams/slots from p. */
static void check_snodes(fixture *f, const psnap *p, const char *const *status)
{
    sl_result r;
    query_db(f->cat, NULL,
          "SELECT id, endpoint, status, epoch, streams, slots, groups, memory_bytes "
          "FROM information_schema.ins_snodes ORDER BY id",
          &r);
    assert_int_equal(r.rows.nrows, f->nsn);
    int64_t total = 0;
    for (int k = 0; k < f->nsn; k++) {
        assert_int_equal(cell_i(&r, k, "id"), f->sn[k]);
        assert_string_equal(cell_s(&r, k, "endpoint"), f->addr[k]);
        assert_string_equal(cell_s(&r, k, "status"), status[k]);
        assert_int_equal(cell_i(&r, k, "epoch"), f->rep[k].epoch);
        int64_t streams = 0;
        for (int i = 0; i < p->n; i++) {
            bool any = false;
            for (uint32_t s = 0; s < NSLOTS; s++)
                any |= p->s[i].owners[s] == f->sn[k];
            streams += any;
        }
        assert_int_equal(cell_i(&r, k, "streams"), streams);
        assert_int_equal(cell_i(&r, k, "slots"), pairs_of(p, f->sn[k]));
        total += cell_i(&r, k, "slots");
        assert_int_equal(cell_i(&r, k, "groups"), f->rep[k].groups);
        assert_int_equal(cell_i(&r, k, "memory_bytes"), f->rep[k].memory);
    }
    bool anyone = false;
    for (int k = 0; k < f->nsn; k++)
        anyone |= strcmp(status[k], "alive") == 0;
    assert_int_equal(total, anyone ? (int64_t)p->n * NSLOTS : 0);
    sl_result_fini(&r);
}

/* ins_stream_tasks against the brute-force owners among cand and the report model. */
static void check_tasks(fixture *f, const uint32_t *cand, size_t ncand)
{
    psnap *p = take(f->cat);
    uint64_t epoch = sl_mcatalog_epoch(f->cat);
    sl_result r;
    query_db(f->cat, NULL,
          "SELECT stream_name, db_name, stream_id, slot_start, slot_end, snode_id, "
          "snode_endpoint, epoch, status, lag_ms, rows, outbox, error "
          "FROM information_schema.ins_stream_tasks ORDER BY stream_id, slot_start",
          &r);
    uint32_t row = 0;
    for (int i = 0; i < p->n; i++) {
        const pstream *st = &p->s[i];
        uint32_t lo = 0;
        while (lo < NSLOTS) {
            uint32_t o = brute_owner(st->id, lo, cand, ncand), hi = lo;
            while (hi + 1 < NSLOTS && brute_owner(st->id, hi + 1, cand, ncand) == o)
                hi++;
            if (row >= r.rows.nrows)
                fail_msg("only %u rows in ins_stream_tasks", r.rows.nrows);
            assert_string_equal(cell_s(&r, row, "stream_name"), st->name);
            assert_string_equal(cell_s(&r, row, "db_name"), "power");
            assert_int_equal(cell_i(&r, row, "stream_id"), st->id);
            if (cell_i(&r, row, "slot_start") != lo || cell_i(&r, row, "slot_end") != hi)
                fail_msg("stream %s row %u: slots %lld..%lld, want %u..%u", st->name, row,
                         (long long)cell_i(&r, row, "slot_start"),
                         (long long)cell_i(&r, row, "slot_end"), lo, hi);
            assert_int_equal(cell_i(&r, row, "epoch"), epoch);
            const char *want_status;
            const sl_mcatalog_task_report *rep = NULL;
            if (o == 0) {
                assert_true(cell_null(&r, row, "snode_id"));
                assert_true(cell_null(&r, row, "snode_endpoint"));
                want_status = "unassigned";
            } else {
                int k = snode_index(f, o);
                assert_true(k >= 0);
                assert_int_equal(cell_i(&r, row, "snode_id"), o);
                assert_string_equal(cell_s(&r, row, "snode_endpoint"), f->addr[k]);
                want_status = !st->running                 ? "stopped"
                              : f->rep[k].epoch < epoch    ? "assigning"
                                                           : "running";
                for (size_t t = 0; t < f->rep[k].ntasks; t++)
                    if (f->rep[k].tasks[t].stream_id == st->id)
                        rep = &f->rep[k].tasks[t];
            }
            assert_string_equal(cell_s(&r, row, "status"), want_status);
            if (rep == NULL) {
                assert_true(cell_null(&r, row, "lag_ms"));
                assert_true(cell_null(&r, row, "rows"));
                assert_true(cell_null(&r, row, "outbox"));
                assert_true(cell_null(&r, row, "error"));
            } else {
                assert_int_equal(cell_i(&r, row, "lag_ms"), rep->lag_ms);
                assert_int_equal(cell_i(&r, row, "rows"), rep->rows);
                assert_int_equal(cell_i(&r, row, "outbox"), rep->outbox);
                if (rep->error == NULL || rep->error[0] == '\0')
                    assert_true(cell_null(&r, row, "error"));
                else
                    assert_string_equal(cell_s(&r, row, "error"), rep->error);
            }
            row++;
            lo = hi + 1;
        }
    }
    assert_int_equal(r.rows.nrows, row);
    sl_result_fini(&r);

    /* COUNT(*) ... GROUP BY: rows per snode (NULL: unassigned) */
    query_db(f->cat, NULL,
          "SELECT snode_id, COUNT(*) AS n FROM information_schema.ins_stream_tasks "
          "GROUP BY snode_id",
          &r);
    int64_t seen = 0;
    for (uint32_t g = 0; g < r.rows.nrows; g++) {
        uint32_t o = cell_null(&r, g, "snode_id") ? 0 : (uint32_t)cell_i(&r, g, "snode_id");
        int64_t want = 0;
        for (int i = 0; i < p->n; i++)
            for (uint32_t s = 0; s < NSLOTS; s++) {
                uint32_t x = brute_owner(p->s[i].id, s, cand, ncand);
                want += x == o && (s == 0 || brute_owner(p->s[i].id, s - 1, cand, ncand) != x);
            }
        assert_true(want > 0);
        assert_int_equal(cell_i(&r, g, "n"), want);
        seen += want;
    }
    assert_int_equal(seen, row);
    sl_result_fini(&r);
    free(p);
}

/* ------------------------------------------------------------ 5b. stream state */

/* sl_mcatalog_stream_state_of: RUNNING only when every owner acts on the current epoch and
 * reports the stream (CREATE / START STREAM answer then). */
static void test_stream_state(void **state)
{
    fixture *f = *state;
    psnap *p = scene(f); /* 3 snodes, s1..s3 in "power", epoch 2, no reports yet */
    uint64_t s1 = p->s[0].id, s2 = p->s[1].id;
    assert_int_equal(sl_mcatalog_stream_state_of(f->cat, "power", "s1"), SL_MC_STREAM_STARTING);
    assert_int_equal(sl_mcatalog_stream_state_of(f->cat, "POWER", "S1"), SL_MC_STREAM_STARTING);
    assert_int_equal(sl_mcatalog_stream_state_of(f->cat, "power", "nope"), SL_MC_STREAM_GONE);
    assert_int_equal(sl_mcatalog_stream_state_of(f->cat, "other", "s1"), SL_MC_STREAM_GONE);
    /* Every snode at epoch 2 reporting s1; s2 only on two of them. */
    for (int k = 0; k < 3; k++) {
        f->rep[k] = (snode_model){.epoch = 2, .ntasks = k < 2 ? 2 : 1};
        f->rep[k].tasks[0] = (sl_mcatalog_task_report){.stream_id = s1};
        f->rep[k].tasks[1] = (sl_mcatalog_task_report){.stream_id = s2};
        report(f, k, T0 + 10);
    }
    assert_int_equal(sl_mcatalog_stream_state_of(f->cat, "power", "s1"), SL_MC_STREAM_RUNNING);
    assert_int_equal(sl_mcatalog_stream_state_of(f->cat, "power", "s2"), SL_MC_STREAM_STARTING);
    /* An owner still on an older epoch: not running yet, although it reports the stream. */
    f->rep[1].epoch = 1;
    report(f, 1, T0 + 20);
    assert_int_equal(sl_mcatalog_stream_state_of(f->cat, "power", "s1"), SL_MC_STREAM_STARTING);
    f->rep[1].epoch = 2;
    report(f, 1, T0 + 30);
    assert_int_equal(sl_mcatalog_stream_state_of(f->cat, "power", "s1"), SL_MC_STREAM_RUNNING);
    /* STOP: idle (nothing to wait for); START bumps the epoch: starting until re-acked. */
    ok(f->cat, "power", "STOP STREAM s1");
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_stream_state_of(f->cat, "power", "s1"), SL_MC_STREAM_IDLE);
    ok(f->cat, "power", "START STREAM s1");
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_stream_state_of(f->cat, "power", "s1"), SL_MC_STREAM_STARTING);
    uint64_t e = sl_mcatalog_epoch(f->cat);
    for (int k = 0; k < 3; k++) {
        f->rep[k].epoch = e;
        report(f, k, T0 + 40);
    }
    assert_int_equal(sl_mcatalog_stream_state_of(f->cat, "power", "s1"), SL_MC_STREAM_RUNNING);
    /* No snode alive: idle (CREATE does not wait for a start that cannot come). */
    sl_error err;
    sl_error_clear(&err);
    uint32_t dead[4];
    size_t ndead = 0;
    heartbeat(f, f->vnode, T0 + 5000);
    assert_int_equal(sl_mcatalog_node_sweep(f->cat, T0 + 5000, 1000, dead, 4, &ndead, &err), 0);
    assert_int_equal(ndead, 3);
    place(f->cat);
    assert_int_equal(sl_mcatalog_stream_state_of(f->cat, "power", "s1"), SL_MC_STREAM_IDLE);
    ok(f->cat, "power", "DROP STREAM s1");
    assert_int_equal(sl_mcatalog_stream_state_of(f->cat, "power", "s1"), SL_MC_STREAM_GONE);
    free(p);
}

static void test_system_tables(void **state)
{
    fixture *f = *state;
    psnap *p = scene(f);
    const char *all_alive[] = {"alive", "alive", "alive"};
    /* no reports yet: epoch 0 is older than 2, every task is being assigned */
    check_snodes(f, p, all_alive);
    check_tasks(f, f->sn, 3);

    uint64_t s1 = p->s[0].id, s2 = p->s[1].id, s3 = p->s[2].id;
    f->rep[0] = (snode_model){.epoch = 2, .memory = UINT64_C(1) << 30, .groups = 7, .ntasks = 2};
    f->rep[0].tasks[0] = (sl_mcatalog_task_report){
        .stream_id = s1, .lag_ms = 15, .rows = 1000, .outbox = 3, .error = "boom: disk full"};
    f->rep[0].tasks[1] =
        (sl_mcatalog_task_report){.stream_id = s2, .lag_ms = 0, .rows = 5, .outbox = 0, .error = ""};
    f->rep[1] = (snode_model){.epoch = 1, .memory = 2048, .groups = 3, .ntasks = 1};
    f->rep[1].tasks[0] = (sl_mcatalog_task_report){
        .stream_id = s3, .lag_ms = 99, .rows = 1, .outbox = 2, .error = NULL};
    report(f, 0, T0 + 100);
    report(f, 1, T0 + 100);
    check_snodes(f, p, all_alive);
    check_tasks(f, f->sn, 3);

    /* SHOW SNODES: the snodes only, with the columns of ins_snodes */
    sl_result r, all;
    query_db(f->cat, NULL, "SHOW SNODES", &r);
    query_db(f->cat, NULL, "SELECT * FROM information_schema.ins_snodes", &all);
    static const char *cols[] = {"id",     "endpoint",     "status",      "epoch",
                                 "streams", "slots",       "groups",      "memory_bytes",
                                 "create_time", "last_heartbeat"};
    assert_int_equal(r.ncols, 10);
    assert_int_equal(all.ncols, 10);
    for (int i = 0; i < 10; i++) {
        assert_string_equal(r.names[i], cols[i]);
        assert_string_equal(all.names[i], cols[i]);
    }
    assert_int_equal(r.rows.nrows, 3);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(cell_i(&r, k, "id"), f->sn[k]);
        assert_string_equal(cell_s(&r, k, "endpoint"), f->addr[k]);
        assert_string_equal(cell_s(&r, k, "status"), "alive");
        assert_int_equal(cell_i(&r, k, "epoch"), f->rep[k].epoch);
        assert_int_equal(cell_i(&r, k, "slots"), pairs_of(p, f->sn[k]));
        assert_int_equal(cell_i(&r, k, "groups"), f->rep[k].groups);
        assert_int_equal(cell_i(&r, k, "memory_bytes"), f->rep[k].memory);
        assert_int_equal(cell_i(&r, k, "last_heartbeat"), k < 2 ? T0 + 100 : T0);
    }
    sl_result_fini(&r);
    sl_result_fini(&all);
    query_db(f->cat, NULL, "SHOW SNODES LIKE '10.0.0.2%'", &r);
    assert_int_equal(r.rows.nrows, 1);
    assert_int_equal(cell_i(&r, 0, "id"), f->sn[1]);
    sl_result_fini(&r);

    /* aggregates over the tables */
    query_db(f->cat, NULL,
          "SELECT status, COUNT(*) AS n, SUM(slots) AS pairs FROM information_schema.ins_snodes "
          "GROUP BY status",
          &r);
    assert_int_equal(r.rows.nrows, 1);
    assert_string_equal(cell_s(&r, 0, "status"), "alive");
    assert_int_equal(cell_i(&r, 0, "n"), 3);
    assert_int_equal(cell_i(&r, 0, "pairs"), 3 * NSLOTS);
    sl_result_fini(&r);
    query_db(f->cat, NULL,
          "SELECT stream_name, COUNT(*) AS n, MIN(slot_start) AS lo, MAX(slot_end) AS hi "
          "FROM information_schema.ins_stream_tasks GROUP BY stream_name ORDER BY stream_name",
          &r);
    assert_int_equal(r.rows.nrows, 3);
    for (int i = 0; i < 3; i++) {
        int64_t runs = 1;
        for (uint32_t s = 1; s < NSLOTS; s++)
            runs += p->s[i].owners[s] != p->s[i].owners[s - 1];
        assert_string_equal(cell_s(&r, i, "stream_name"), p->s[i].name);
        assert_int_equal(cell_i(&r, i, "n"), runs);
        assert_int_equal(cell_i(&r, i, "lo"), 0);
        assert_int_equal(cell_i(&r, i, "hi"), NSLOTS - 1);
    }
    sl_result_fini(&r);

    /* a stopped stream's tasks say so; the bump makes snode 1's epoch old */
    ok(f->cat, "power", "STOP STREAM s2");
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);
    check_snodes(f, p, all_alive);
    check_tasks(f, f->sn, 3);
    for (int k = 0; k < 3; k++) {
        f->rep[k].epoch = 3;
        report(f, k, T0 + 200);
    }
    check_snodes(f, p, all_alive);
    check_tasks(f, f->sn, 3);
    query_db(f->cat, NULL,
          "SELECT COUNT(*) AS n FROM information_schema.ins_stream_tasks WHERE status = 'stopped'",
          &r);
    int64_t runs2 = 1;
    for (uint32_t s = 1; s < NSLOTS; s++)
        runs2 += p->s[1].owners[s] != p->s[1].owners[s - 1];
    assert_int_equal(cell_i(&r, 0, "n"), runs2);
    sl_result_fini(&r);
    ok(f->cat, "power", "START STREAM s2");
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 4);
    check_tasks(f, f->sn, 3);

    /* a dead snode owns nothing */
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_leave(f->cat, f->sn[2], &err), 0);
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 5);
    free(p);
    p = take(f->cat);
    const char *two_alive[] = {"alive", "alive", "dead"};
    check_snodes(f, p, two_alive);
    check_tasks(f, f->sn, 2);

    /* no snode alive: every stream is one unassigned row */
    assert_int_equal(sl_mcatalog_node_leave(f->cat, f->sn[0], &err), 0);
    assert_int_equal(sl_mcatalog_node_leave(f->cat, f->sn[1], &err), 0);
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 6);
    free(p);
    p = take(f->cat);
    const char *none_alive[] = {"dead", "dead", "dead"};
    check_snodes(f, p, none_alive);
    check_tasks(f, NULL, 0);
    query_db(f->cat, NULL, "SELECT COUNT(*) AS n FROM information_schema.ins_stream_tasks", &r);
    assert_int_equal(cell_i(&r, 0, "n"), 3);
    sl_result_fini(&r);
    free(p);
}

/* ------------------------------------------------------------ 7. heartbeat errors */

static void test_heartbeat_errors(void **state)
{
    fixture *f = *state;
    add_snodes(f, 1);
    uint32_t m;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_register(f->cat, SL_MC_MNODE, "10.9.9.9:6000", T0, &m, &err),
                     0);
    sl_mcatalog_snode_report r = {.epoch = 1, .memory_bytes = 5, .groups = 1};
    assert_int_equal(sl_mcatalog_snode_heartbeat(f->cat, 4242, &r, T0 + 1, &err), SL_ENOTFOUND);
    assert_int_equal(err.code, SL_ENOTFOUND);
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_snode_heartbeat(f->cat, f->vnode, &r, T0 + 1, &err), SL_EINVAL);
    assert_int_equal(err.code, SL_EINVAL);
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_snode_heartbeat(f->cat, m, &r, T0 + 1, &err), SL_EINVAL);
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_heartbeat(f->cat, 4242, T0 + 1, &err), SL_ENOTFOUND);
    /* the refused heartbeat of the vnode did not count as one */
    sl_mcatalog_node n;
    assert_int_equal(sl_mcatalog_node_get(f->cat, f->vnode, &n, &err), 0);
    assert_int_equal(n.last_seen, T0);
    /* an snode's heartbeat with a report revives it after a sweep */
    uint32_t dead[4];
    size_t ndead = 0;
    assert_int_equal(sl_mcatalog_node_sweep(f->cat, T0 + 5000, 1000, dead, 4, &ndead, &err), 0);
    assert_int_equal(ndead, 3);
    assert_false(alive(f, f->sn[0]));
    assert_int_equal(sl_mcatalog_snode_heartbeat(f->cat, f->sn[0], &r, T0 + 5001, &err), 0);
    assert_true(alive(f, f->sn[0]));
    assert_int_equal(sl_mcatalog_node_get(f->cat, f->sn[0], &n, &err), 0);
    assert_int_equal(n.last_seen, T0 + 5001);
}

/* ------------------------------------------------------------ 8. checkpoints */

static void expect_cp(fixture *f, uint64_t stream, uint32_t slot, const char *bytes, size_t len,
                      uint64_t epoch, uint32_t node)
{
    sl_buf b;
    sl_buf_init(&b);
    uint64_t e = 0;
    uint32_t n = 0;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_get(f->cat, stream, slot, &b, &e, &n, &err), 1);
    assert_int_equal(b.len, len);
    if (len > 0)
        assert_memory_equal(b.data, bytes, len);
    assert_int_equal(e, epoch);
    assert_int_equal(n, node);
    sl_buf_fini(&b);
}

static void cp_refused(fixture *f, uint32_t node, uint64_t epoch, uint64_t stream, uint32_t slot,
                       int code)
{
    char *before = snapshot(f->cat);
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_mcatalog_checkpoint_put(f->cat, node, epoch, stream, slot, "zzzz", 4, &err);
    if (rc != code) {
        free(before);
        fail_msg("put node %u epoch %llu stream %llu slot %u: %d '%s', want %d", node,
                 (unsigned long long)epoch, (unsigned long long)stream, slot, rc, err.msg, code);
    }
    assert_int_equal(err.code, code);
    expect_snapshot(before, f->cat);
}

static void test_checkpoints(void **state)
{
    fixture *f = *state;
    psnap *p = scene(f);
    uint64_t s = p->s[1].id;
    uint32_t slot = 7;
    uint32_t owner = brute_owner(s, slot, f->sn, 3);
    uint32_t other = owner == f->sn[0] ? f->sn[1] : f->sn[0];
    sl_error err;
    sl_buf b;
    sl_buf_init(&b);
    uint64_t e = 99;
    uint32_t n = 99;

    /* a missing checkpoint */
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_get(f->cat, s, slot, &b, &e, &n, &err), 0);
    assert_int_equal(b.len, 0);

    /* an older epoch: stale, and the message names both epochs */
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put(f->cat, owner, 1, s, slot, "abc", 3, &err),
                     SL_ESTALE);
    assert_non_null(strstr(err.msg, "epoch 1 "));
    assert_non_null(strstr(err.msg, "epoch 2"));
    cp_refused(f, owner, 1, s, slot, SL_ESTALE);
    /* not the owner */
    cp_refused(f, other, 2, s, slot, SL_ESTALE);
    cp_refused(f, f->vnode, 2, s, slot, SL_ESTALE);
    /* an epoch from the future */
    cp_refused(f, owner, 3, s, slot, SL_EINVAL);
    /* unknown stream */
    cp_refused(f, owner, 2, 987654321, slot, SL_ENOTFOUND);
    /* slot out of range */
    cp_refused(f, owner, 2, s, NSLOTS, SL_EINVAL);
    cp_refused(f, owner, 2, s, UINT32_MAX, SL_EINVAL);
    /* too large */
    size_t big = (size_t)SL_MCATALOG_CHECKPOINT_MAX + 1;
    char *bigbuf = calloc(1, big);
    assert_non_null(bigbuf);
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put(f->cat, owner, 2, s, slot, bigbuf, big, &err),
                     SL_ELIMIT);
    free(bigbuf);
    assert_int_equal(sl_mcatalog_checkpoint_get(f->cat, s, slot, &b, &e, &n, &err), 0);

    /* a valid one */
    static const char st1[] = {'s', 't', 0, 1, 2, (char)0xff};
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put(f->cat, owner, 2, s, slot, st1, sizeof(st1), &err),
                     0);
    expect_cp(f, s, slot, st1, sizeof(st1), 2, owner);
    /* other slots and streams are still missing */
    assert_int_equal(sl_mcatalog_checkpoint_get(f->cat, s, slot + 1, &b, &e, &n, &err), 0);
    assert_int_equal(sl_mcatalog_checkpoint_get(f->cat, p->s[0].id, slot, &b, &e, &n, &err), 0);
    /* a second put replaces */
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put(f->cat, owner, 2, s, slot, "second", 6, &err), 0);
    expect_cp(f, s, slot, "second", 6, 2, owner);
    /* refusals change nothing */
    cp_refused(f, other, 2, s, slot, SL_ESTALE);
    cp_refused(f, owner, 1, s, slot, SL_ESTALE);
    expect_cp(f, s, slot, "second", 6, 2, owner);
    /* an empty state is a checkpoint too */
    uint32_t slot0 = 0, owner0 = brute_owner(s, slot0, f->sn, 3);
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put(f->cat, owner0, 2, s, slot0, "", 0, &err), 0);
    expect_cp(f, s, slot0, "", 0, 2, owner0);

    /* the owner dies: the new owner writes at epoch 3, the deposed one is fenced */
    int k = snode_index(f, owner);
    sweep_kill(f, k, T0 + 10000);
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);
    uint32_t rest[2], nr = 0;
    for (int i = 0; i < 3; i++)
        if (f->sn[i] != owner)
            rest[nr++] = f->sn[i];
    uint32_t heir = brute_owner(s, slot, rest, 2);
    cp_refused(f, owner, 2, s, slot, SL_ESTALE);
    cp_refused(f, owner, 3, s, slot, SL_ESTALE);
    expect_cp(f, s, slot, "second", 6, 2, owner);
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put(f->cat, heir, 3, s, slot, "third!", 6, &err), 0);
    expect_cp(f, s, slot, "third!", 6, 3, heir);

    /* durable */
    mcf_reopen(&f->head);
    expect_cp(f, s, slot, "third!", 6, 3, heir);
    expect_cp(f, s, slot0, "", 0, 2, owner0);
    assert_int_equal(sl_mcatalog_checkpoint_get(f->cat, s, slot + 1, &b, &e, &n, &err), 0);

    /* a dropped stream takes no more checkpoints (what happens to the stored ones is not
     * part of the contract) */
    ok(f->cat, "power", "DROP STREAM s2");
    assert_true(place(f->cat));
    uint64_t e4 = sl_mcatalog_epoch(f->cat);
    assert_int_equal(e4, 4);
    cp_refused(f, heir, e4, s, slot, SL_ENOTFOUND);
    sl_buf_fini(&b);
    free(p);
}

/* Several slots of one stream in one put (an snode's checkpoint round): stored together,
 * every one readable with its own state; all or nothing when one of them is refused. */
static void test_checkpoint_slots(void **state)
{
    fixture *f = *state;
    psnap *p = scene(f);
    uint64_t s = p->s[1].id;
    uint32_t owner = brute_owner(s, 0, f->sn, 3);
    /* the first three slots owner holds, and one it does not */
    uint32_t mine[3], nm = 0, theirs = UINT32_MAX;
    for (uint32_t slot = 0; slot < NSLOTS && (nm < 3 || theirs == UINT32_MAX); slot++) {
        if (brute_owner(s, slot, f->sn, 3) == owner) {
            if (nm < 3)
                mine[nm++] = slot;
        } else if (theirs == UINT32_MAX) {
            theirs = slot;
        }
    }
    assert_int_equal(nm, 3);
    assert_int_not_equal(theirs, UINT32_MAX);
    static const char *states[3] = {"alpha", "", "gamma-state"};
    sl_mcatalog_slot_state ss[4];
    for (int i = 0; i < 3; i++)
        ss[i] = (sl_mcatalog_slot_state){mine[i], states[i], strlen(states[i])};
    sl_mcatalog_vgroup_version none[1];
    sl_error err;

    /* refused as a whole: a slot of another snode, a slot named twice, none, too many
     * bytes together, an old epoch - and nothing is stored */
    ss[3] = (sl_mcatalog_slot_state){theirs, "x", 1};
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put_slots(f->cat, owner, 2, s, ss, 4, none, 0, &err),
                     SL_ESTALE);
    assert_non_null(strstr(err.msg, "does not own"));
    ss[3] = ss[0];
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put_slots(f->cat, owner, 2, s, ss, 4, none, 0, &err),
                     SL_EINVAL);
    assert_non_null(strstr(err.msg, "named twice"));
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put_slots(f->cat, owner, 2, s, ss, 0, none, 0, &err),
                     SL_EINVAL);
    size_t half = (size_t)SL_MCATALOG_CHECKPOINT_MAX / 2 + 1;
    char *big = calloc(1, half);
    assert_non_null(big);
    sl_mcatalog_slot_state two[2] = {{mine[0], big, half}, {mine[1], big, half}};
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put_slots(f->cat, owner, 2, s, two, 2, none, 0, &err),
                     SL_ELIMIT);
    free(big);
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put_slots(f->cat, owner, 1, s, ss, 3, none, 0, &err),
                     SL_ESTALE);
    sl_buf b;
    sl_buf_init(&b);
    uint64_t e;
    uint32_t n;
    for (int i = 0; i < 3; i++)
        assert_int_equal(sl_mcatalog_checkpoint_get(f->cat, s, mine[i], &b, &e, &n, &err), 0);

    /* accepted: each slot holds its own state, also after a reopen */
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put_slots(f->cat, owner, 2, s, ss, 3, none, 0, &err),
                     0);
    for (int i = 0; i < 3; i++)
        expect_cp(f, s, mine[i], states[i], strlen(states[i]), 2, owner);
    assert_int_equal(sl_mcatalog_checkpoint_get(f->cat, s, theirs, &b, &e, &n, &err), 0);
    mcf_reopen(&f->head);
    for (int i = 0; i < 3; i++)
        expect_cp(f, s, mine[i], states[i], strlen(states[i]), 2, owner);
    sl_buf_fini(&b);
    free(p);
}

/* With no snode alive no pair has an owner, so no checkpoint is accepted - not from the
 * snode that owned it before, and not from node id 0, which names no node ("0: no snode
 * alive", catalog.h). */
static void test_checkpoint_unowned(void **state)
{
    fixture *f = *state;
    add_snodes(f, 1);
    add_streams(f, 1, 1);
    assert_true(place(f->cat));
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_leave(f->cat, f->sn[0], &err), 0);
    assert_true(place(f->cat));
    uint64_t epoch = sl_mcatalog_epoch(f->cat);
    assert_int_equal(epoch, 3);
    psnap *p = take(f->cat);
    assert_int_equal(p->n, 1);
    assert_int_equal(pairs_of(p, 0), NSLOTS);
    uint64_t sid = p->s[0].id;
    free(p);
    cp_refused(f, f->sn[0], epoch, sid, 3, SL_ESTALE);
    cp_refused(f, 0, epoch, sid, 3, SL_ESTALE);
    sl_buf b;
    sl_buf_init(&b);
    uint64_t e;
    uint32_t n;
    assert_int_equal(sl_mcatalog_checkpoint_get(f->cat, sid, 3, &b, &e, &n, &err), 0);
    sl_buf_fini(&b);
}

/* ------------------------------------------------------------ 9. DROP SNODE */

static const char *status_in_snodes(fixture *f, uint32_t id)
{
    static char buf[16];
    char sql[128];
    snprintf(sql, sizeof(sql), "SELECT status FROM information_schema.ins_snodes WHERE id = %u",
             id);
    sl_result r;
    query_db(f->cat, NULL, sql, &r);
    assert_int_equal(r.rows.nrows, 1);
    snprintf(buf, sizeof(buf), "%s", cell_s(&r, 0, "status"));
    sl_result_fini(&r);
    return buf;
}

static void test_drop_snode(void **state)
{
    fixture *f = *state;
    psnap *before = scene(f);
    refused(f->cat, NULL, "DROP SNODE 99", SL_ENOTFOUND, "1:12: snode 99 does not exist");
    char sql[64], msg[64];
    snprintf(sql, sizeof(sql), "DROP SNODE %u", f->vnode);
    snprintf(msg, sizeof(msg), "1:12: snode %u does not exist", f->vnode);
    refused(f->cat, NULL, sql, SL_ENOTFOUND, msg);
    refused(f->cat, NULL, "DROP SNODE 0", SL_ENOTFOUND, "1:12: snode 0 does not exist");
    refused(f->cat, NULL, "DROP SNODE 4294967296", SL_ENOTFOUND,
            "1:12: snode 4294967296 does not exist");
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_snode_drop(f->cat, f->vnode, &err), SL_ENOTFOUND);
    assert_false(place(f->cat));

    uint32_t d = f->sn[1];
    snprintf(sql, sizeof(sql), "DROP SNODE ON DNODE %u", d);
    ok(f->cat, NULL, sql);
    assert_string_equal(status_in_snodes(f, d), "dropped");
    assert_false(alive(f, d));
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);
    psnap *after = take(f->cat);
    uint32_t rest[2] = {f->sn[0], f->sn[2]};
    assert_int_equal(pairs_of(after, d), 0);
    for (int i = 0; i < 3; i++)
        for (uint32_t s = 0; s < NSLOTS; s++)
            if (before->s[i].owners[s] != d)
                assert_int_equal(after->s[i].owners[s], before->s[i].owners[s]);
    expect_placement(after, rest, 2);

    /* its heartbeats are refused: it must leave */
    sl_mcatalog_snode_report r = {.epoch = 3};
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_snode_heartbeat(f->cat, d, &r, T0 + 10, &err), SL_ESTATE);
    char want[64];
    snprintf(want, sizeof(want), "snode %u was dropped", d);
    assert_string_equal(err.msg, want);
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_heartbeat(f->cat, d, T0 + 10, &err), SL_ESTATE);
    assert_string_equal(status_in_snodes(f, d), "dropped");
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);

    /* it stays dropped across a restart */
    mcf_reopen(&f->head);
    assert_string_equal(status_in_snodes(f, d), "dropped");
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_heartbeat(f->cat, d, T0 + 20, &err), SL_ESTATE);
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);
    psnap *again = take(f->cat);
    expect_same_owners(after, again);
    free(again);

    /* registering again at its address brings it back, with its id */
    uint32_t id2 = 0;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_register(f->cat, SL_MC_SNODE, f->addr[1], T0 + 30, &id2, &err),
                     0);
    assert_int_equal(id2, d);
    assert_string_equal(status_in_snodes(f, d), "alive");
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 4);
    again = take(f->cat);
    expect_same_owners(before, again);
    assert_true(pairs_of(again, d) > 0);
    free(again);
    heartbeat(f, d, T0 + 40);
    mcf_reopen(&f->head);
    assert_string_equal(status_in_snodes(f, d), "alive");
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 4);
    /* a dead snode can be dropped too; dropping twice is harmless */
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_leave(f->cat, f->sn[2], &err), 0);
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 5);
    assert_int_equal(sl_mcatalog_snode_drop(f->cat, f->sn[2], &err), 0);
    assert_string_equal(status_in_snodes(f, f->sn[2]), "dropped");
    assert_false(place(f->cat));
    snprintf(sql, sizeof(sql), "DROP SNODE %u", f->sn[2]);
    ok(f->cat, NULL, sql);
    assert_string_equal(status_in_snodes(f, f->sn[2]), "dropped");
    assert_int_equal(sl_mcatalog_epoch(f->cat), 5);
    free(before);
    free(after);
}

/* ------------------------------------------------------------ 10. leave */

static void test_leave(void **state)
{
    fixture *f = *state;
    psnap *before = scene(f);
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_leave(f->cat, 777777, &err), SL_ENOTFOUND);
    uint32_t l = f->sn[2];
    assert_int_equal(sl_mcatalog_node_leave(f->cat, l, &err), 0);
    assert_false(alive(f, l));
    assert_string_equal(status_in_snodes(f, l), "dead");
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);
    psnap *after = take(f->cat);
    assert_int_equal(pairs_of(after, l), 0);
    uint32_t rest[2] = {f->sn[0], f->sn[1]};
    for (int i = 0; i < 3; i++)
        for (uint32_t s = 0; s < NSLOTS; s++)
            if (before->s[i].owners[s] != l)
                assert_int_equal(after->s[i].owners[s], before->s[i].owners[s]);
    expect_placement(after, rest, 2);
    /* leaving twice is harmless */
    assert_int_equal(sl_mcatalog_node_leave(f->cat, l, &err), 0);
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);
    /* it stays gone across a restart */
    mcf_reopen(&f->head);
    assert_false(alive(f, l));
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);
    free(before);
    free(after);
}

/* ------------------------------------------------------------ 11. restart */

static void test_restart(void **state)
{
    fixture *f = *state;
    psnap *before = scene(f);
    mcf_reopen(&f->head);
    assert_int_equal(sl_mcatalog_epoch(f->cat), 2);
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 2);
    psnap *p = take(f->cat);
    expect_same_owners(before, p);
    free(p);

    /* a node dies before the restart and nobody placed since */
    sweep_kill(f, 1, T0 + 10000);
    mcf_reopen(&f->head);
    assert_int_equal(sl_mcatalog_epoch(f->cat), 2);
    assert_false(alive(f, f->sn[1]));
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);
    uint32_t rest[2] = {f->sn[0], f->sn[2]};
    p = take(f->cat);
    expect_placement(p, rest, 2);
    free(p);
    mcf_reopen(&f->head);
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 3);
    p = take(f->cat);
    expect_placement(p, rest, 2);
    free(p);

    /* revived, placed, restarted: the placement of epoch 4 is kept */
    heartbeat(f, f->sn[1], T0 + 10001);
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 4);
    mcf_reopen(&f->head);
    assert_int_equal(sl_mcatalog_epoch(f->cat), 4);
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 4);
    p = take(f->cat);
    expect_same_owners(before, p);
    free(p);

    /* a stream stopped before the restart: the flag is part of the placement */
    ok(f->cat, "power", "STOP STREAM s3");
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 5);
    mcf_reopen(&f->head);
    assert_false(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 5);
    ok(f->cat, "power", "START STREAM s3");
    mcf_reopen(&f->head);
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 6);
    free(before);
}

/* ------------------------------------------------------------ 12. balance */

static void test_balance(void **state)
{
    fixture *f = *state;
    add_snodes(f, 3);
    add_streams(f, 1, 20);
    assert_true(place(f->cat));
    assert_int_equal(sl_mcatalog_epoch(f->cat), 2);
    psnap *p = take(f->cat);
    assert_int_equal(p->n, 20);
    expect_placement(p, f->sn, 3);
    int64_t total = 20 * NSLOTS, sum = 0;
    for (int k = 0; k < 3; k++) {
        int64_t n = pairs_of(p, f->sn[k]);
        sum += n;
        if (n * 100 < total * 25 || n * 100 > total * 42)
            fail_msg("snode %u owns %lld of %lld pairs", f->sn[k], (long long)n,
                     (long long)total);
    }
    assert_int_equal(sum, total);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_new_catalog, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_place_initial, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_sweep_and_revive, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_stop_start, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_stream_state, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_system_tables, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_heartbeat_errors, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_checkpoints, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_checkpoint_unowned, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_checkpoint_slots, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_drop_snode, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_leave, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_restart, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_balance, setup, mcf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
