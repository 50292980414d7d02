/*
 * test_mcatalog_lowwater.c - change-log retention driven by stream checkpoints
 * (mnode/catalog_lowwater.c; catalog.h "Change-log retention"): the low-water mark of a
 * vgroup is the minimum, over every stream reading it and every slot, of the version the
 * slot's checkpoint has consumed, 0 while any slot lacks one, and no answer when no stream
 * reads it. Every expected mark below is worked out by hand from the puts made.
 *
 * Scene: databases power (2 vgroups) and other (1 vgroup), one snode owning every slot.
 * Streams s1, s2 on power.meters, s3 in other on other.t, x4 in power on other.t (a
 * trigger table of another database), p5 in power without FROM (reads nothing).
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

#define T0 INT64_C(5000000)
#define NSLOTS 256
#define NONE UINT64_MAX /* expect: no answer */

typedef struct fixture {
    MCF_HEAD;
    uint32_t vnode, snode;
    uint32_t vg1, vg2; /* power's vgroups */
    uint32_t vg3;      /* other's */
    uint64_t s1, s2, s3, x4, p5;
} fixture;

static void place(sl_mcatalog *cat)
{
    sl_error err;
    sl_error_clear(&err);
    if (sl_mcatalog_place(cat, NULL, &err) != 0)
        fail_msg("place: %s", err.msg);
}

typedef struct find_arg {
    const char *name;
    uint64_t id;
} find_arg;

static int find_fn(void *arg, const sl_mcatalog_stream *s)
{
    find_arg *a = arg;
    if (strcmp(s->name, a->name) == 0)
        a->id = s->id;
    return 0;
}

static uint64_t stream_id(sl_mcatalog *cat, const char *name)
{
    find_arg a = {.name = name};
    assert_int_equal(sl_mcatalog_each_stream(cat, find_fn, &a), 0);
    if (a.id == 0)
        fail_msg("no stream %s", name);
    return a.id;
}

static uint32_t db_vgroup(sl_mcatalog *cat, const char *db, uint32_t i)
{
    sl_mcatalog_db d;
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_db_get(cat, db, &d, &err), 0);
    assert_true(i < d.nvgroups);
    return d.vgroup_ids[i];
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    if (f == NULL || open_temp(f->dir, sizeof(f->dir), "/tmp/sl-mclw-XXXXXX", &f->cat) != 0)
        return -1;
    sl_error err;
    sl_error_clear(&err);
    if (sl_mcatalog_node_register(f->cat, SL_MC_VNODE, "127.0.0.1:6100", T0, &f->vnode, &err) ||
        sl_mcatalog_node_register(f->cat, SL_MC_SNODE, "127.0.0.1:7100", T0, &f->snode, &err))
        return -1;
    ok(f->cat, NULL, "CREATE DATABASE power VGROUPS 2");
    ok(f->cat, NULL, "CREATE DATABASE other VGROUPS 1");
    ok(f->cat, "power",
       "CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT) TAGS (location "
       "VARCHAR(64))");
    ok(f->cat, "other", "CREATE TABLE t (ts TIMESTAMP, v INT)");
    ok(f->cat, "power",
       "CREATE STREAM s1 INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname INTO o1 AS "
       "SELECT _twstart, AVG(voltage) FROM %%trows");
    ok(f->cat, "power",
       "CREATE STREAM s2 INTERVAL(1m) SLIDING(1m) FROM meters INTO o2 AS SELECT _twstart, "
       "COUNT(*) FROM %%trows");
    ok(f->cat, "other",
       "CREATE STREAM s3 INTERVAL(1m) SLIDING(1m) FROM t INTO o3 AS SELECT _twstart, COUNT(*) "
       "FROM %%trows");
    ok(f->cat, "power",
       "CREATE STREAM x4 INTERVAL(1m) SLIDING(1m) FROM other.t INTO o4 AS SELECT _twstart, "
       "COUNT(*) FROM %%trows");
    ok(f->cat, "power",
       "CREATE STREAM p5 PERIOD(1d) INTO o5 AS SELECT _tlocaltime, COUNT(*) FROM meters");
    place(f->cat);
    f->vg1 = db_vgroup(f->cat, "power", 0);
    f->vg2 = db_vgroup(f->cat, "power", 1);
    f->vg3 = db_vgroup(f->cat, "other", 0);
    f->s1 = stream_id(f->cat, "s1");
    f->s2 = stream_id(f->cat, "s2");
    f->s3 = stream_id(f->cat, "s3");
    f->x4 = stream_id(f->cat, "x4");
    f->p5 = stream_id(f->cat, "p5");
    *state = f;
    return 0;
}

static void reopen(fixture *f)
{
    mcf_reopen(&f->head);
    place(f->cat);
}

/* ------------------------------------------------------------ helpers */

/* Puts the checkpoint of (stream, slot) with n (vgroup, version) pairs; returns the code. */
static int put_v(fixture *f, uint64_t epoch, uint64_t stream, uint32_t slot,
                 const sl_mcatalog_vgroup_version *v, size_t n, sl_error *err)
{
    sl_error_clear(err);
    return sl_mcatalog_checkpoint_put_versions(f->cat, f->snode, epoch, stream, slot, "st", 2, v,
                                               n, err);
}

static void put2(fixture *f, uint64_t stream, uint32_t slot, uint32_t vga, uint64_t va,
                 uint32_t vgb, uint64_t vb)
{
    sl_mcatalog_vgroup_version v[2] = {{vga, va}, {vgb, vb}};
    sl_error err;
    int rc = put_v(f, sl_mcatalog_epoch(f->cat), stream, slot, v, 2, &err);
    if (rc != 0)
        fail_msg("put stream %llu slot %u: %d %s", (unsigned long long)stream, slot, rc, err.msg);
}

static void put1(fixture *f, uint64_t stream, uint32_t slot, uint32_t vg, uint64_t ver)
{
    sl_mcatalog_vgroup_version v[1] = {{vg, ver}};
    sl_error err;
    int rc = put_v(f, sl_mcatalog_epoch(f->cat), stream, slot, v, 1, &err);
    if (rc != 0)
        fail_msg("put stream %llu slot %u: %d %s", (unsigned long long)stream, slot, rc, err.msg);
}

/* Every slot of stream except `skip` (NSLOTS: none): vga at a0 + slot, vgb at b0 + slot. */
static void fill2(fixture *f, uint64_t stream, uint32_t skip, uint32_t vga, uint64_t a0,
                  uint32_t vgb, uint64_t b0)
{
    for (uint32_t s = 0; s < NSLOTS; s++)
        if (s != skip)
            put2(f, stream, s, vga, a0 + s, vgb, b0 + s);
}

/* Every slot of stream: vg at v0 + slot. */
static void fill1(fixture *f, uint64_t stream, uint32_t vg, uint64_t v0)
{
    for (uint32_t s = 0; s < NSLOTS; s++)
        put1(f, stream, s, vg, v0 + s);
}

static void expect_low_at(fixture *f, uint32_t vg, uint64_t want, int line)
{
    uint64_t got = 12345;
    int rc = sl_mcatalog_low_water(f->cat, vg, &got);
    if (want == NONE) {
        if (rc != 0 || got != 12345)
            fail_msg("line %d: vgroup %u: rc %d low %llu, want no answer", line, vg, rc,
                     (unsigned long long)got);
        return;
    }
    if (rc != 1 || got != want)
        fail_msg("line %d: vgroup %u: rc %d low %llu, want %llu", line, vg, rc,
                 (unsigned long long)got, (unsigned long long)want);
}
#define expect_low(f, vg, want) expect_low_at((f), (vg), (want), __LINE__)

static void expect_all(fixture *f, uint64_t w1, uint64_t w2, uint64_t w3, int line)
{
    expect_low_at(f, f->vg1, w1, line);
    expect_low_at(f, f->vg2, w2, line);
    expect_low_at(f, f->vg3, w3, line);
}
#define EXPECT(f, w1, w2, w3) expect_all((f), (w1), (w2), (w3), __LINE__)

/* ------------------------------------------------------------ tests */

/* Without checkpoints every read vgroup is held at 0; unknown ones get no answer. */
static void test_initial(void **state)
{
    fixture *f = *state;
    EXPECT(f, 0, 0, 0);
    expect_low(f, 999, NONE);
    expect_low(f, 0, NONE);
}

/* Minima over slots and streams, raised and lowered. */
static void test_minima(void **state)
{
    fixture *f = *state;
    /* s1: every slot but 5 -> vg1 at 100+slot, vg2 at 200+slot; slot 5 missing: 0 */
    fill2(f, f->s1, 5, f->vg1, 100, f->vg2, 200);
    EXPECT(f, 0, 0, 0);
    /* slot 5: vg1 50, vg2 300 -> s1 holds vg1 at 50, vg2 at 200 (slot 0); s2 has nothing */
    put2(f, f->s1, 5, f->vg1, 50, f->vg2, 300);
    EXPECT(f, 0, 0, 0);
    /* s2: every slot vg1 at 70+slot, vg2 at 150+slot -> min(50, 70), min(200, 150) */
    fill2(f, f->s2, NSLOTS, f->vg1, 70, f->vg2, 150);
    EXPECT(f, 50, 150, 0);
    /* raising s1's minimum slot: s1's vg1 minimum becomes slot 0's 100 -> min(100, 70) */
    put2(f, f->s1, 5, f->vg1, 500, f->vg2, 300);
    EXPECT(f, 70, 150, 0);
    /* s2 slot 0 raised to 1000 on both: s2's minima are slot 1's 71 and 151 */
    put2(f, f->s2, 0, f->vg1, 1000, f->vg2, 1000);
    EXPECT(f, 71, 151, 0);
    /* a checkpoint of s2 slot 9 naming only vg1 replaces the old one: vg2 is held at 0 */
    put1(f, f->s2, 9, f->vg1, 79);
    EXPECT(f, 71, 0, 0);
    put2(f, f->s2, 9, f->vg1, 79, f->vg2, 159);
    EXPECT(f, 71, 151, 0);
    /* lowering one slot lowers the mark at once */
    put2(f, f->s2, 3, f->vg1, 10, f->vg2, 153);
    EXPECT(f, 10, 151, 0);
    /* the same version again changes nothing */
    put2(f, f->s2, 3, f->vg1, 10, f->vg2, 153);
    EXPECT(f, 10, 151, 0);
    /* vg3: s3 (in other) and x4 (in power, FROM other.t) both read it */
    fill1(f, f->s3, f->vg3, 40);
    EXPECT(f, 10, 151, 0); /* x4 has no checkpoint */
    fill1(f, f->x4, f->vg3, 30);
    EXPECT(f, 10, 151, 30);
    put1(f, f->x4, 0, f->vg3, 45);
    EXPECT(f, 10, 151, 31);
    /* a checkpoint without versions (sl_mcatalog_checkpoint_put) holds the slot at 0 */
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put(f->cat, f->snode, sl_mcatalog_epoch(f->cat), f->s3,
                                                17, "old", 3, &err),
                     0);
    EXPECT(f, 10, 151, 0);
    put1(f, f->s3, 17, f->vg3, 57);
    EXPECT(f, 10, 151, 31);
}

/* Versions of vgroups the stream does not read are ignored; bad lists are refused and
 * change nothing. */
static void test_garbage(void **state)
{
    fixture *f = *state;
    fill2(f, f->s1, NSLOTS, f->vg1, 100, f->vg2, 200);
    fill2(f, f->s2, NSLOTS, f->vg1, 100, f->vg2, 200);
    fill1(f, f->s3, f->vg3, 40);
    fill1(f, f->x4, f->vg3, 40);
    EXPECT(f, 100, 200, 40);
    uint64_t e = sl_mcatalog_epoch(f->cat);
    sl_error err;
    /* s1 names vg3 (another database's) and 999 (unknown) too: ignored */
    sl_mcatalog_vgroup_version g[4] = {{f->vg3, 1}, {f->vg1, 100}, {999, 0}, {f->vg2, 200}};
    assert_int_equal(put_v(f, e, f->s1, 0, g, 4, &err), 0);
    EXPECT(f, 100, 200, 40);
    /* a stream without FROM reads nothing: its versions are ignored, nothing is held */
    sl_mcatalog_vgroup_version pv[3] = {{f->vg1, 0}, {f->vg2, 0}, {f->vg3, 0}};
    for (uint32_t s = 0; s < NSLOTS; s += 51)
        assert_int_equal(put_v(f, e, f->p5, s, pv, 3, &err), 0);
    EXPECT(f, 100, 200, 40);
    /* a vgroup named twice: refused */
    sl_mcatalog_vgroup_version d[3] = {{f->vg1, 1}, {f->vg2, 1}, {f->vg1, 2}};
    assert_int_equal(put_v(f, e, f->s1, 0, d, 3, &err), SL_EINVAL);
    assert_int_equal(err.code, SL_EINVAL);
    EXPECT(f, 100, 200, 40);
    /* even two ignored ones */
    sl_mcatalog_vgroup_version d2[2] = {{999, 1}, {999, 1}};
    assert_int_equal(put_v(f, e, f->s1, 0, d2, 2, &err), SL_EINVAL);
    EXPECT(f, 100, 200, 40);
    /* too many */
    size_t big = (size_t)SL_MCATALOG_CHECKPOINT_VERSIONS_MAX + 1;
    sl_mcatalog_vgroup_version *many = calloc(big, sizeof(*many));
    assert_non_null(many);
    for (size_t i = 0; i < big; i++)
        many[i] = (sl_mcatalog_vgroup_version){(uint32_t)(i + 1), 1};
    assert_int_equal(put_v(f, e, f->s1, 0, many, big, &err), SL_ELIMIT);
    free(many);
    EXPECT(f, 100, 200, 40);
    /* the refused puts left the stored checkpoint as it was */
    sl_buf b;
    sl_buf_init(&b);
    uint64_t ce;
    uint32_t cn;
    assert_int_equal(sl_mcatalog_checkpoint_get(f->cat, f->s1, 0, &b, &ce, &cn, &err), 1);
    assert_int_equal(b.len, 2);
    assert_memory_equal(b.data, "st", 2);
    assert_int_equal(ce, e);
    assert_int_equal(cn, f->snode);
    sl_buf_fini(&b);
}

/* A refused checkpoint (stale epoch, not the owner, unknown stream) changes no minimum. */
static void test_refused(void **state)
{
    fixture *f = *state;
    fill2(f, f->s1, NSLOTS, f->vg1, 100, f->vg2, 200);
    fill2(f, f->s2, NSLOTS, f->vg1, 300, f->vg2, 400);
    EXPECT(f, 100, 200, 0);
    uint64_t e = sl_mcatalog_epoch(f->cat);
    assert_true(e >= 2);
    sl_error err;
    sl_mcatalog_vgroup_version low[2] = {{f->vg1, 1}, {f->vg2, 1}};
    sl_mcatalog_vgroup_version high[2] = {{f->vg1, 9999}, {f->vg2, 9999}};
    /* stale epoch: neither lowering nor raising (slot 0 holds the minimum) */
    assert_int_equal(put_v(f, e - 1, f->s1, 0, low, 2, &err), SL_ESTALE);
    assert_int_equal(put_v(f, e - 1, f->s1, 0, high, 2, &err), SL_ESTALE);
    EXPECT(f, 100, 200, 0);
    /* another node */
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put_versions(f->cat, f->vnode, e, f->s1, 0, "x", 1,
                                                         low, 2, &err),
                     SL_ESTALE);
    EXPECT(f, 100, 200, 0);
    /* unknown stream, slot out of range */
    assert_int_equal(put_v(f, e, 987654, 0, low, 2, &err), SL_ENOTFOUND);
    assert_int_equal(put_v(f, e, f->s1, NSLOTS, low, 2, &err), SL_EINVAL);
    EXPECT(f, 100, 200, 0);
    /* the snode dies: no owner, every put is fenced */
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_node_leave(f->cat, f->snode, &err), 0);
    place(f->cat);
    assert_int_equal(put_v(f, sl_mcatalog_epoch(f->cat), f->s1, 0, low, 2, &err), SL_ESTALE);
    EXPECT(f, 100, 200, 0);
}

/* STOP keeps the hold, START too; DROP STREAM releases it. */
static void test_stop_drop(void **state)
{
    fixture *f = *state;
    fill2(f, f->s1, NSLOTS, f->vg1, 100, f->vg2, 200);
    fill2(f, f->s2, NSLOTS, f->vg1, 300, f->vg2, 50);
    EXPECT(f, 100, 50, 0);
    ok(f->cat, "power", "STOP STREAM s1");
    place(f->cat);
    EXPECT(f, 100, 50, 0);
    ok(f->cat, "power", "START STREAM s1");
    place(f->cat);
    EXPECT(f, 100, 50, 0);
    ok(f->cat, "power", "STOP STREAM s1");
    place(f->cat);
    /* dropping s1 leaves s2's: vg1 300, vg2 50 */
    ok(f->cat, "power", "DROP STREAM s1");
    place(f->cat);
    EXPECT(f, 300, 50, 0);
    /* a stream created again under that name starts without a hold */
    ok(f->cat, "power",
       "CREATE STREAM s1 INTERVAL(1m) SLIDING(1m) FROM meters INTO o1b AS SELECT _twstart, "
       "COUNT(*) FROM %%trows");
    place(f->cat);
    EXPECT(f, 0, 0, 0);
    ok(f->cat, "power", "DROP STREAM s1, s2");
    place(f->cat);
    /* nothing reads power any more: no answer (the vnode keeps its own retention) */
    EXPECT(f, NONE, NONE, 0);
    /* x4 and s3 read vg3; dropping both releases it */
    ok(f->cat, "power", "DROP STREAM x4");
    ok(f->cat, "other", "DROP STREAM s3");
    place(f->cat);
    EXPECT(f, NONE, NONE, NONE);
}

/* DROP DATABASE drops its streams and their holds, also on another database's vgroup. */
static void test_drop_database(void **state)
{
    fixture *f = *state;
    fill1(f, f->s3, f->vg3, 500);
    fill1(f, f->x4, f->vg3, 20);
    fill2(f, f->s1, NSLOTS, f->vg1, 100, f->vg2, 200);
    fill2(f, f->s2, NSLOTS, f->vg1, 100, f->vg2, 200);
    EXPECT(f, 100, 200, 20);
    uint32_t vg1 = f->vg1, vg2 = f->vg2;
    ok(f->cat, NULL, "DROP DATABASE power"); /* s1, s2, x4, p5 */
    place(f->cat);
    expect_low(f, vg1, NONE);
    expect_low(f, vg2, NONE);
    expect_low(f, f->vg3, 500); /* only s3 is left */
    ok(f->cat, NULL, "DROP DATABASE other");
    place(f->cat);
    expect_low(f, f->vg3, NONE);
    /* a new database with a stream starts from nothing */
    ok(f->cat, NULL, "CREATE DATABASE power VGROUPS 2");
    ok(f->cat, "power", "CREATE TABLE m (ts TIMESTAMP, v INT)");
    ok(f->cat, "power",
       "CREATE STREAM s1 INTERVAL(1m) SLIDING(1m) FROM m INTO o1 AS SELECT _twstart, COUNT(*) "
       "FROM %%trows");
    place(f->cat);
    uint32_t n1 = db_vgroup(f->cat, "power", 0), n2 = db_vgroup(f->cat, "power", 1);
    assert_true(n1 != vg1 && n1 != vg2 && n2 != vg1 && n2 != vg2);
    expect_low(f, n1, 0);
    expect_low(f, n2, 0);
    expect_low(f, vg1, NONE);
}

/* The holds survive close/reopen: versions, missing slots, old-format records, the
 * trigger database of a stream reading another database's table. */
static void test_persistence(void **state)
{
    fixture *f = *state;
    fill2(f, f->s1, 7, f->vg1, 100, f->vg2, 200); /* slot 7 missing */
    fill2(f, f->s2, NSLOTS, f->vg1, 60, f->vg2, 250);
    fill1(f, f->s3, f->vg3, 40);
    fill1(f, f->x4, f->vg3, 30);
    put2(f, f->s1, 5, f->vg1, 500, f->vg2, 600);
    EXPECT(f, 0, 0, 30);
    reopen(f);
    EXPECT(f, 0, 0, 30);
    put2(f, f->s1, 7, f->vg1, 300, f->vg2, 300);
    /* s1: vg1 min over slots = slot 0's 100 (slot 5 at 500); vg2 = 200. s2: 60, 250 */
    EXPECT(f, 60, 200, 30);
    reopen(f);
    EXPECT(f, 60, 200, 30);
    /* an old-format checkpoint (no versions) of x4 slot 3 holds vg3 at 0, also after a
     * reopen; its state reads back */
    sl_error err;
    sl_error_clear(&err);
    assert_int_equal(sl_mcatalog_checkpoint_put(f->cat, f->snode, sl_mcatalog_epoch(f->cat), f->x4,
                                                3, "v1", 2, &err),
                     0);
    EXPECT(f, 60, 200, 0);
    reopen(f);
    EXPECT(f, 60, 200, 0);
    sl_buf b;
    sl_buf_init(&b);
    uint64_t ce;
    uint32_t cn;
    assert_int_equal(sl_mcatalog_checkpoint_get(f->cat, f->x4, 3, &b, &ce, &cn, &err), 1);
    assert_int_equal(b.len, 2);
    assert_memory_equal(b.data, "v1", 2);
    sl_buf_reset(&b);
    assert_int_equal(sl_mcatalog_checkpoint_get(f->cat, f->s1, 7, &b, &ce, &cn, &err), 1);
    assert_int_equal(b.len, 2);
    assert_memory_equal(b.data, "st", 2);
    sl_buf_fini(&b);
    put1(f, f->x4, 3, f->vg3, 33);
    EXPECT(f, 60, 200, 30);
    /* a dropped stream's hold does not come back at the next open */
    ok(f->cat, "power", "DROP STREAM s2");
    place(f->cat);
    EXPECT(f, 100, 200, 30);
    reopen(f);
    EXPECT(f, 100, 200, 30);
    ok(f->cat, "power", "DROP STREAM x4");
    reopen(f);
    EXPECT(f, 100, 200, 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_initial, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_minima, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_garbage, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_stop_drop, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_drop_database, setup, mcf_teardown),
        cmocka_unit_test_setup_teardown(test_persistence, setup, mcf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
