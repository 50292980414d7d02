/*
 * test_notify_outbox.c - the durable notification outbox (snode/notify/outbox.h) on a real
 * RocksDB in a temporary directory: append / next / ack, message formation and order,
 * messageIds and texts that survive a reopen byte for byte, sequence numbers that never
 * repeat, the two bound policies, atomic multi-destination appends, and refusal of
 * corrupt records.
 */
#define _GNU_SOURCE /* nftw */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/kv/kv.h"
#include "common/util/keymap.h"
#include "snode/notify/outbox.h"

#define CF "notify_outbox"
#define URL_A "ws://127.0.0.1:9001/a"
#define URL_B "ws://127.0.0.1:9002/b"

typedef struct fx {
    char dir[64];
    sl_kv *kv;
    sl_kv_cf *cf;
    sl_outbox *ob;
    sl_outbox_opts o;
} fx;

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    return remove(p);
}

static void fx_open_kv(fx *f)
{
    sl_error err = {0};
    const char *cfs[] = {CF};
    char path[96];
    snprintf(path, sizeof(path), "%s/db", f->dir);
    assert_int_equal(sl_kv_open(&f->kv, path, NULL, cfs, 1, &err), 0);
    f->cf = sl_kv_cf_get(f->kv, CF);
    assert_non_null(f->cf);
}

static int fx_reopen(fx *f, sl_error *err)
{
    sl_outbox_close(f->ob);
    f->ob = NULL;
    sl_kv_close(f->kv);
    fx_open_kv(f);
    return sl_outbox_open(&f->ob, f->kv, f->cf, &f->o, err);
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof(*f));
    strcpy(f->dir, "/tmp/sl_outbox_XXXXXX");
    if (mkdtemp(f->dir) == NULL)
        return -1;
    fx_open_kv(f);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    sl_outbox_close(f->ob);
    sl_kv_close(f->kv);
    nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

static void open_ob(fx *f)
{
    sl_error err = {0};
    int rc = sl_outbox_open(&f->ob, f->kv, f->cf, &f->o, &err);
    if (rc != 0)
        fail_msg("open: %s", err.msg);
}

static void append1(fx *f, const char *url, const char *stream, const char *json, int want)
{
    sl_outbox_entry e = {url, stream, json, strlen(json)};
    sl_error err = {0};
    int rc = sl_outbox_append(f->ob, &e, 1, &err);
    if (rc != want)
        fail_msg("append %s: %d (%s), want %d", json, rc, err.msg, want);
}

static void next_ok(fx *f, const char *url, uint64_t after, int64_t now, sl_outbox_msg *m)
{
    sl_error err = {0};
    int rc = sl_outbox_next(f->ob, url, after, now, m, &err);
    if (rc != 0)
        fail_msg("next: %d %s", rc, err.msg);
}

static char *expected(const char *id, int64_t ts, const char *streams)
{
    static char buf[4096];
    snprintf(buf, sizeof(buf), "{\"messageId\":\"%s\",\"timestamp\":%lld,\"streams\":[%s]}", id,
             (long long)ts, streams);
    return buf;
}

static void text_is(const sl_outbox_msg *m, const char *want)
{
    assert_int_equal(m->text.len, strlen(want));
    assert_memory_equal(m->text.data, want, m->text.len);
}

static void test_append_next_ack(void **state)
{
    fx *f = *state;
    open_ob(f);
    append1(f, URL_A, "s1", "{\"e\":1}", 0);
    append1(f, URL_A, "s2", "{\"e\":2}", 0);
    append1(f, URL_A, "s1", "{\"e\":3}", 0);
    sl_outbox_stats st;
    sl_outbox_dest_stats(f->ob, URL_A, &st);
    assert_int_equal(st.events, 3);
    assert_int_equal(st.pending, 3);
    assert_int_equal(st.messages, 0);
    assert_true(st.bytes > 0);
    assert_true(sl_outbox_has_data(f->ob, URL_A));
    assert_false(sl_outbox_has_data(f->ob, URL_B));

    sl_outbox_msg m = {0};
    next_ok(f, URL_A, 0, 1000, &m);
    assert_int_equal(m.first_seq, 1);
    assert_int_equal(m.last_seq, 3);
    assert_int_equal(m.nevents, 3);
    assert_int_equal(m.timestamp_ms, 1000);
    /* "<incarnation hex16>-<xxhash(url) hex16>-<first seq>" */
    char dest[32];
    snprintf(dest, sizeof(dest), "-%016llx-1",
             (unsigned long long)sl_hash_bytes(URL_A, strlen(URL_A)));
    assert_int_equal(strlen(m.message_id), 16 + strlen(dest));
    assert_string_equal(m.message_id + 16, dest);
    text_is(&m, expected(m.message_id, 1000,
                         "{\"streamName\":\"s1\",\"events\":[{\"e\":1},{\"e\":3}]},"
                         "{\"streamName\":\"s2\",\"events\":[{\"e\":2}]}"));
    sl_outbox_dest_stats(f->ob, URL_A, &st);
    assert_int_equal(st.events, 3);
    assert_int_equal(st.pending, 0);
    assert_int_equal(st.messages, 1);
    /* Asking again returns the same message (not a new one), whatever the time. */
    sl_outbox_msg m2 = {0};
    next_ok(f, URL_A, 0, 5000, &m2);
    assert_string_equal(m2.message_id, m.message_id);
    assert_int_equal(m2.timestamp_ms, 1000);
    text_is(&m2, (const char *)expected(m.message_id, 1000,
                                        "{\"streamName\":\"s1\",\"events\":[{\"e\":1},{\"e\":3}]},"
                                        "{\"streamName\":\"s2\",\"events\":[{\"e\":2}]}"));
    /* Nothing after it. */
    assert_int_equal(sl_outbox_next(f->ob, URL_A, 1, 0, &m2, NULL), SL_ENOTFOUND);
    assert_int_equal(sl_outbox_next(f->ob, URL_B, 0, 0, &m2, NULL), SL_ENOTFOUND);
    assert_int_equal(sl_outbox_ack(f->ob, URL_A, 2, NULL), SL_ENOTFOUND);
    assert_int_equal(sl_outbox_ack(f->ob, URL_A, 1, NULL), 0);
    assert_int_equal(sl_outbox_ack(f->ob, URL_A, 1, NULL), SL_ENOTFOUND);
    sl_outbox_dest_stats(f->ob, URL_A, &st);
    assert_int_equal(st.events, 0);
    assert_int_equal(st.bytes, 0);
    assert_int_equal(st.acked, 1);
    assert_int_equal(st.appended, 3);
    assert_false(sl_outbox_has_data(f->ob, URL_A));
    assert_int_equal(sl_outbox_next(f->ob, URL_A, 0, 0, &m2, NULL), SL_ENOTFOUND);
    /* Entries without destination or stream. */
    append1(f, "", "s", "{}", SL_EINVAL);
    append1(f, URL_A, "", "{}", SL_EINVAL);
    sl_buf_fini(&m.text);
    sl_buf_fini(&m2.text);
}

static void test_order_and_batches(void **state)
{
    fx *f = *state;
    f->o.max_message_events = 2;
    open_ob(f);
    char j[32];
    for (int i = 1; i <= 5; i++) {
        snprintf(j, sizeof(j), "{\"e\":%d}", i);
        append1(f, URL_A, "s", j, 0);
    }
    sl_outbox_msg m = {0};
    uint64_t firsts[3] = {0}, lasts[3] = {0};
    uint64_t after = 0;
    for (int k = 0; k < 3; k++) {
        next_ok(f, URL_A, after, 100 + k, &m);
        firsts[k] = m.first_seq;
        lasts[k] = m.last_seq;
        after = m.first_seq;
    }
    assert_int_equal(firsts[0], 1);
    assert_int_equal(lasts[0], 2);
    assert_int_equal(firsts[1], 3);
    assert_int_equal(lasts[1], 4);
    assert_int_equal(firsts[2], 5);
    assert_int_equal(lasts[2], 5);
    text_is(&m, expected(m.message_id, 102, "{\"streamName\":\"s\",\"events\":[{\"e\":5}]}"));
    assert_int_equal(sl_outbox_next(f->ob, URL_A, 5, 0, &m, NULL), SL_ENOTFOUND);
    /* From the start again: the oldest, unchanged. */
    next_ok(f, URL_A, 0, 999, &m);
    assert_int_equal(m.first_seq, 1);
    assert_int_equal(m.timestamp_ms, 100);
    text_is(&m, expected(m.message_id, 100,
                         "{\"streamName\":\"s\",\"events\":[{\"e\":1},{\"e\":2}]}"));
    /* Acks out of order are accepted (a message dropped in between is fine). */
    assert_int_equal(sl_outbox_ack(f->ob, URL_A, 3, NULL), 0);
    next_ok(f, URL_A, 1, 0, &m);
    assert_int_equal(m.first_seq, 5);
    assert_int_equal(sl_outbox_ack(f->ob, URL_A, 1, NULL), 0);
    assert_int_equal(sl_outbox_ack(f->ob, URL_A, 5, NULL), 0);
    sl_outbox_stats st;
    sl_outbox_stats_total(f->ob, &st);
    assert_int_equal(st.events, 0);
    assert_int_equal(st.messages, 0);
    sl_buf_fini(&m.text);
}

/* Message size bound: events are cut so a message stays under max_message_bytes. */
static void test_message_bytes(void **state)
{
    fx *f = *state;
    f->o.max_message_bytes = 4096;
    open_ob(f);
    char big[1600];
    memset(big, 'x', sizeof(big));
    big[0] = '"';
    big[sizeof(big) - 2] = '"';
    big[sizeof(big) - 1] = '\0';
    for (int i = 0; i < 5; i++)
        append1(f, URL_A, "s", big, 0);
    sl_outbox_msg m = {0};
    uint64_t after = 0;
    uint32_t total = 0;
    while (sl_outbox_next(f->ob, URL_A, after, 1, &m, NULL) == 0) {
        assert_true(m.text.len <= 4096);
        assert_true(m.nevents >= 1 && m.nevents <= 2);
        total += m.nevents;
        after = m.first_seq;
    }
    assert_int_equal(total, 5);
    /* An event that cannot fit any message is refused. */
    char huge[4200];
    memset(huge, 'y', sizeof(huge) - 1);
    huge[sizeof(huge) - 1] = '\0';
    append1(f, URL_A, "s", huge, SL_ELIMIT);
    sl_buf_fini(&m.text);
}

static void test_restart(void **state)
{
    fx *f = *state;
    f->o.max_message_events = 2;
    open_ob(f);
    append1(f, URL_A, "s", "{\"e\":1}", 0);
    append1(f, URL_A, "s", "{\"e\":2}", 0);
    append1(f, URL_A, "t", "{\"e\":3}", 0);
    append1(f, URL_B, "s", "{\"e\":4}", 0);
    sl_outbox_msg m1 = {0}, m = {0};
    next_ok(f, URL_A, 0, 1111, &m1); /* formed: [1,2] */
    sl_error err = {0};
    assert_int_equal(fx_reopen(f, &err), 0);
    assert_int_equal(sl_outbox_ndest(f->ob), 2);
    sl_outbox_stats st;
    sl_outbox_dest_stats(f->ob, URL_A, &st);
    assert_int_equal(st.events, 3);
    assert_int_equal(st.messages, 1);
    assert_int_equal(st.pending, 1);
    /* The formed message comes back byte for byte, with its id and timestamp. */
    next_ok(f, URL_A, 0, 2222, &m);
    assert_int_equal(m.first_seq, 1);
    assert_string_equal(m.message_id, m1.message_id);
    assert_int_equal(m.timestamp_ms, 1111);
    assert_int_equal(m.text.len, m1.text.len);
    assert_memory_equal(m.text.data, m1.text.data, m.text.len);
    /* Then the pending event, formed now. */
    next_ok(f, URL_A, 1, 3333, &m);
    assert_int_equal(m.first_seq, 3);
    text_is(&m, expected(m.message_id, 3333, "{\"streamName\":\"t\",\"events\":[{\"e\":3}]}"));
    next_ok(f, URL_B, 0, 3333, &m);
    assert_int_equal(m.first_seq, 1);
    /* Ack everything, reopen: sequence numbers continue (ids never repeat). */
    assert_int_equal(sl_outbox_ack(f->ob, URL_A, 1, NULL), 0);
    assert_int_equal(sl_outbox_ack(f->ob, URL_A, 3, NULL), 0);
    assert_int_equal(sl_outbox_ack(f->ob, URL_B, 1, NULL), 0);
    char inc[17];
    memcpy(inc, m1.message_id, 16);
    inc[16] = '\0';
    assert_int_equal(fx_reopen(f, &err), 0);
    sl_outbox_stats_total(f->ob, &st);
    assert_int_equal(st.events, 0);
    append1(f, URL_A, "s", "{\"e\":5}", 0);
    next_ok(f, URL_A, 0, 4444, &m);
    assert_int_equal(m.first_seq, 4);
    assert_memory_equal(m.message_id, inc, 16); /* same outbox incarnation */
    sl_buf_fini(&m.text);
    sl_buf_fini(&m1.text);
}

static void test_bound_drop_oldest(void **state)
{
    fx *f = *state;
    f->o.max_events = 3;
    f->o.max_message_events = 2;
    open_ob(f);
    char j[32];
    for (int i = 1; i <= 5; i++) {
        snprintf(j, sizeof(j), "{\"e\":%d}", i);
        append1(f, URL_A, "s", j, 0);
    }
    sl_outbox_stats st;
    sl_outbox_dest_stats(f->ob, URL_A, &st);
    assert_int_equal(st.events, 3);
    assert_int_equal(st.dropped, 2);
    sl_outbox_msg m = {0};
    next_ok(f, URL_A, 0, 7, &m); /* [3,4] formed */
    assert_int_equal(m.first_seq, 3);
    text_is(&m, expected(m.message_id, 7, "{\"streamName\":\"s\",\"events\":[{\"e\":3},{\"e\":4}]}"));
    /* One more: the oldest unit is the whole formed message [3,4]. */
    append1(f, URL_A, "s", "{\"e\":6}", 0);
    sl_outbox_dest_stats(f->ob, URL_A, &st);
    assert_int_equal(st.events, 2); /* the whole message went: 5 and 6 are left */
    assert_int_equal(st.dropped, 4);
    assert_int_equal(st.messages, 0);
    assert_int_equal(sl_outbox_ack(f->ob, URL_A, 3, NULL), SL_ENOTFOUND);
    next_ok(f, URL_A, 0, 8, &m);
    assert_int_equal(m.first_seq, 5);
    text_is(&m, expected(m.message_id, 8, "{\"streamName\":\"s\",\"events\":[{\"e\":5},{\"e\":6}]}"));
    /* The drops are durable. */
    sl_error err = {0};
    assert_int_equal(fx_reopen(f, &err), 0);
    sl_outbox_dest_stats(f->ob, URL_A, &st);
    assert_int_equal(st.events, 2);
    assert_int_equal(st.messages, 1);
    /* Byte bound: max_bytes smaller than one record is refused outright. */
    f->o.max_bytes = 20;
    assert_int_equal(fx_reopen(f, &err), 0);
    append1(f, URL_B, "s", "{\"e\":\"0123456789\"}", SL_ELIMIT);
    sl_buf_fini(&m.text);
}

static void test_bound_refuse(void **state)
{
    fx *f = *state;
    f->o.max_events = 3;
    f->o.refuse_when_full = true;
    open_ob(f);
    append1(f, URL_A, "s", "{\"e\":1}", 0);
    append1(f, URL_A, "s", "{\"e\":2}", 0);
    append1(f, URL_A, "s", "{\"e\":3}", 0);
    append1(f, URL_A, "s", "{\"e\":4}", SL_ELIMIT);
    /* A batch that does not fit is refused whole, even for the destination with room. */
    sl_outbox_entry two[] = {{URL_B, "s", "{}", 2}, {URL_A, "s", "{}", 2}};
    sl_error err = {0};
    assert_int_equal(sl_outbox_append(f->ob, two, 2, &err), SL_ELIMIT);
    assert_non_null(strstr(err.msg, "is full"));
    sl_outbox_stats st;
    sl_outbox_dest_stats(f->ob, URL_B, &st);
    assert_int_equal(st.events, 0);
    assert_int_equal(fx_reopen(f, &err), 0);
    sl_outbox_stats_total(f->ob, &st);
    assert_int_equal(st.events, 3);
    assert_int_equal(st.dropped, 0);
    /* Room again after an ack. */
    sl_outbox_msg m = {0};
    next_ok(f, URL_A, 0, 1, &m);
    assert_int_equal(m.nevents, 3);
    assert_int_equal(sl_outbox_ack(f->ob, URL_A, m.first_seq, NULL), 0);
    append1(f, URL_A, "s", "{\"e\":4}", 0);
    sl_buf_fini(&m.text);
}

static void test_multi_destination_atomic(void **state)
{
    fx *f = *state;
    open_ob(f);
    sl_outbox_entry es[] = {
        {URL_A, "s", "{\"e\":1}", 7},
        {URL_B, "s", "{\"e\":1}", 7},
        {URL_A, "t", "{\"e\":2}", 7},
    };
    sl_error err = {0};
    assert_int_equal(sl_outbox_append(f->ob, es, 3, &err), 0);
    sl_outbox_stats a, b;
    sl_outbox_dest_stats(f->ob, URL_A, &a);
    sl_outbox_dest_stats(f->ob, URL_B, &b);
    assert_int_equal(a.events, 2);
    assert_int_equal(b.events, 1);
    sl_outbox_msg m = {0};
    next_ok(f, URL_A, 0, 1, &m);
    text_is(&m, expected(m.message_id, 1,
                         "{\"streamName\":\"s\",\"events\":[{\"e\":1}]},"
                         "{\"streamName\":\"t\",\"events\":[{\"e\":2}]}"));
    /* A failing entry anywhere leaves every destination unchanged. */
    sl_outbox_entry bad[] = {{URL_B, "s", "{}", 2}, {URL_A, NULL, "{}", 2}};
    assert_int_equal(sl_outbox_append(f->ob, bad, 2, &err), SL_EINVAL);
    sl_outbox_dest_stats(f->ob, URL_B, &b);
    assert_int_equal(b.events, 1);
    sl_buf_fini(&m.text);
}

static void put_raw(fx *f, const void *k, size_t kl, const void *v, size_t vl)
{
    sl_error err = {0};
    assert_int_equal(sl_kv_put(f->kv, f->cf, k, kl, v, vl, &err), 0);
}

/* Closes the outbox and expects a reopen to refuse the stored data. */
static void open_corrupt(fx *f, const char *needle)
{
    sl_error err = {0};
    sl_outbox_close(f->ob);
    f->ob = NULL;
    int rc = sl_outbox_open(&f->ob, f->kv, f->cf, &f->o, &err);
    assert_int_equal(rc, SL_ECORRUPT);
    assert_null(f->ob);
    if (strstr(err.msg, needle) == NULL)
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
}

static void seq_key(uint8_t *k, char tag, uint64_t id, uint64_t seq)
{
    k[0] = (uint8_t)tag;
    for (int i = 0; i < 8; i++) {
        k[1 + i] = (uint8_t)(id >> (56 - 8 * i));
        k[9 + i] = (uint8_t)(seq >> (56 - 8 * i));
    }
}

static void test_corrupt(void **state)
{
    fx *f = *state;
    open_ob(f);
    append1(f, URL_A, "s", "{\"e\":1}", 0);
    append1(f, URL_A, "s", "{\"e\":2}", 0);
    sl_outbox_msg m = {0}, m2 = {0};
    next_ok(f, URL_A, 0, 1, &m);
    append1(f, URL_A, "s", "{\"e\":3}", 0);
    uint64_t id = sl_hash_bytes(URL_A, strlen(URL_A));
    uint8_t ek[17], mk[17], xk[17];
    seq_key(ek, 'E', id, 3);
    seq_key(mk, 'M', id, 1);
    sl_buf ev = {0}, mv = {0}, bad = {0};
    sl_error err = {0};
    assert_int_equal(sl_kv_get(f->kv, f->cf, NULL, ek, 17, &ev, &err), 0);
    assert_int_equal(sl_kv_get(f->kv, f->cf, NULL, mk, 17, &mv, &err), 0);

    /* One flipped bit in the event's JSON: checksum mismatch. */
    sl_buf_put(&bad, ev.data, ev.len);
    bad.data[bad.len - 1] ^= 0x20;
    put_raw(f, ek, 17, bad.data, bad.len);
    open_corrupt(f, "corrupt event record");
    /* Another format version. */
    sl_buf_reset(&bad);
    sl_buf_put(&bad, ev.data, ev.len);
    bad.data[1] = 99;
    put_raw(f, ek, 17, bad.data, bad.len);
    open_corrupt(f, "corrupt event record");
    put_raw(f, ek, 17, ev.data, ev.len);
    /* A truncated message record. */
    put_raw(f, mk, 17, mv.data, 12);
    open_corrupt(f, "corrupt message record");
    put_raw(f, mk, 17, mv.data, mv.len);
    /* An event of a destination the outbox does not know. */
    seq_key(xk, 'E', id ^ 1, 1);
    put_raw(f, xk, 17, ev.data, ev.len);
    open_corrupt(f, "corrupt event record");
    assert_int_equal(sl_kv_delete(f->kv, f->cf, xk, 17, &err), 0);
    /* A key of no known kind. */
    put_raw(f, "Zz", 2, "x", 1);
    open_corrupt(f, "corrupt unknown record");
    assert_int_equal(sl_kv_delete(f->kv, f->cf, "Zz", 2, &err), 0);
    /* Everything restored: the same message, then event 3. */
    open_ob(f);
    next_ok(f, URL_A, 0, 50, &m2);
    assert_string_equal(m2.message_id, m.message_id);
    assert_int_equal(m2.text.len, m.text.len);
    assert_memory_equal(m2.text.data, m.text.data, m.text.len);
    next_ok(f, URL_A, 1, 50, &m2);
    assert_int_equal(m2.first_seq, 3);
    /* A record damaged after open is refused when read, not sent. */
    sl_buf_reset(&bad);
    sl_buf_put(&bad, mv.data, mv.len);
    bad.data[bad.len - 3] ^= 1;
    put_raw(f, mk, 17, bad.data, bad.len);
    assert_int_equal(sl_outbox_next(f->ob, URL_A, 0, 60, &m2, &err), SL_ECORRUPT);
    sl_buf_fini(&ev);
    sl_buf_fini(&mv);
    sl_buf_fini(&bad);
    sl_buf_fini(&m.text);
    sl_buf_fini(&m2.text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_append_next_ack, setup, teardown),
        cmocka_unit_test_setup_teardown(test_order_and_batches, setup, teardown),
        cmocka_unit_test_setup_teardown(test_message_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bound_drop_oldest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bound_refuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_multi_destination_atomic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
