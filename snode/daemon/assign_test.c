/*
 * assign_test.c - the snode's assignment handling (assign.c) without a network: replies
 * built in memory are bounds-checked, applied, reparsed only when their text changes, and
 * a text that does not parse marks its stream failed instead of failing the node.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mnode.pb-c.h"
#include "sdaemon.h"

#define GOOD "CREATE STREAM s1 INTERVAL(1m) SLIDING(1m) FROM st PARTITION BY tbname " \
             "INTO o1 AS SELECT _twstart, COUNT(*) FROM %%trows"
#define GOOD2 "CREATE STREAM s2 COUNT_WINDOW(10) FROM t INTO o2 AS SELECT _twstart, COUNT(*) " \
              "FROM %%trows"

typedef struct fixture {
    Sluice__SnodeHeartbeatReply rp;
    Sluice__StreamAssignment a[3];
    Sluice__StreamAssignment *ap[3];
    uint8_t bits[3][32];
} fixture;

static void fill(fixture *f, uint64_t epoch, int n, const char *const *sql)
{
    memset(f, 0, sizeof(*f));
    sluice__snode_heartbeat_reply__init(&f->rp);
    f->rp.epoch = epoch;
    f->rp.slots = 256;
    f->rp.assignment = true;
    for (int i = 0; i < n; i++) {
        sluice__stream_assignment__init(&f->a[i]);
        f->a[i].stream_id = (uint64_t)(10 - i); /* unsorted on purpose */
        f->a[i].db = "db";
        f->a[i].name = "s";
        f->a[i].sql = (char *)sql[i];
        f->a[i].plan_db = "db";
        f->bits[i][0] = 0x0f;                   /* slots 0..3 */
        f->bits[i][31] = 0x80;                  /* slot 255 */
        f->a[i].slots.data = f->bits[i];
        f->a[i].slots.len = 32;
        f->a[i].running = i != 1;
        f->ap[i] = &f->a[i];
    }
    f->rp.n_streams = (size_t)n;
    f->rp.streams = f->ap;
}

static void test_apply_and_reparse(void **state)
{
    (void)state;
    static sl_sdaemon sd;
    memset(&sd, 0, sizeof(sd));
    fixture f;
    const char *sql[] = {GOOD, "CREATE STREAM broken INTERVAL(", "SELECT 1"};
    fill(&f, 5, 3, sql);
    sl_error err = {0};
    assert_int_equal(sl__sn_assign_check(&f.rp, &err), 0);
    assert_int_equal(sl__sn_assign(&sd, &f.rp), 0);
    assert_int_equal(sd.sd_as.epoch, 5);
    assert_int_equal(sd.sd_as.nstreams, 3);
    /* Sorted by id: 8 (not a stream), 9 (broken), 10 (good). */
    sn_stream *s = sd.sd_as.streams;
    assert_int_equal(s[0].id, 8);
    assert_int_equal(s[1].id, 9);
    assert_int_equal(s[2].id, 10);
    assert_int_equal(s[2].nowned, 5);
    assert_non_null(s[2].cs);
    assert_null(s[2].error);
    assert_string_equal(sl__sn_trigger_name(&s[2]), "INTERVAL");
    assert_null(s[1].cs);
    assert_non_null(s[1].error);
    assert_non_null(strstr(s[1].error, "1:31"));
    assert_false(s[1].running);
    assert_non_null(s[0].error);
    assert_non_null(strstr(s[0].error, "not one CREATE STREAM"));
    const sl_create_stream *kept = s[2].cs;

    /* Next epoch: stream 10 unchanged (its parse is kept), 9 gone, 8 now a valid stream. */
    const char *sql2[] = {GOOD, GOOD2};
    fill(&f, 7, 2, sql2);
    f.a[1].stream_id = 8;
    assert_int_equal(sl__sn_assign(&sd, &f.rp), 0);
    assert_int_equal(sd.sd_as.epoch, 7);
    assert_int_equal(sd.sd_as.nstreams, 2);
    s = sd.sd_as.streams;
    assert_int_equal(s[0].id, 8);
    assert_null(s[0].error);
    assert_string_equal(sl__sn_trigger_name(&s[0]), "COUNT_WINDOW");
    assert_int_equal(s[1].id, 10);
    assert_ptr_equal(s[1].cs, kept);
    assert_int_equal(sd.sd_applied, 2);

    /* An empty assignment drops everything but moves the epoch. */
    fill(&f, 9, 0, NULL);
    assert_int_equal(sl__sn_assign(&sd, &f.rp), 0);
    assert_int_equal(sd.sd_as.epoch, 9);
    assert_int_equal(sd.sd_as.nstreams, 0);
    sl__sn_assignment_fini(&sd.sd_as);
}

static void test_bounds(void **state)
{
    (void)state;
    fixture f;
    const char *sql[] = {GOOD, GOOD2};
    sl_error err = {0};
    fill(&f, 3, 2, sql);
    f.rp.slots = 0;
    assert_int_equal(sl__sn_assign_check(&f.rp, &err), SL_ECORRUPT);
    fill(&f, 3, 2, sql);
    f.rp.slots = 100; /* 13 bytes of bitmap at most */
    memset(&err, 0, sizeof(err));
    assert_int_equal(sl__sn_assign_check(&f.rp, &err), SL_ECORRUPT);
    assert_non_null(strstr(err.msg, "bitmap of 32 bytes for 100 slots"));
    fill(&f, 3, 2, sql);
    f.a[1].stream_id = f.a[0].stream_id;
    memset(&err, 0, sizeof(err));
    assert_int_equal(sl__sn_assign_check(&f.rp, &err), SL_ECORRUPT);
    assert_non_null(strstr(err.msg, "assigned twice"));
    /* Without an assignment nothing is checked. */
    f.rp.assignment = false;
    assert_int_equal(sl__sn_assign_check(&f.rp, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apply_and_reparse),
        cmocka_unit_test(test_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
