/*
 * test_notify_e2e.c - the notifier (snode/notify/notifier.h) end to end: a real
 * libwebsockets SERVER on 127.0.0.1 runs on the same libuv loop as the notifier's client,
 * with the outbox in a real RocksDB.
 *
 *  - in order: posted events arrive as exactly the expected JSON, batched per message;
 *  - receiver down: the server is destroyed, events are posted while it is away (the
 *    client retries with backoff), the server is re-created on the same port and every
 *    event arrives afterwards, in order;
 *  - slow receiver: the server stops reading while megabytes are posted; the client holds
 *    the unconfirmed messages in the outbox; when it reads again everything arrives, in
 *    order, nothing lost;
 *  - notifier restart: messages formed and written but not confirmed are sent again by a
 *    new notifier on the same store, byte for byte (same messageId).
 *
 * The receiver side de-duplicates by messageId (a repeated messageId must carry the same
 * bytes) and then checks the triggerIds of all events: 1..N in order.
 */
#define _GNU_SOURCE /* nftw */
#include <arpa/inet.h>
#include <ftw.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <libwebsockets.h>
#include <uv.h>

#include "common/kv/kv.h"
#include "common/util/keymap.h"
#include "snode/notify/notifier.h"
#include "snode/notify/notify_json.h"

#define CF "notify_outbox"
#define TS 1733284887203

/* ------------------------------------------------------------------ the test receiver */

typedef struct rmsg {
    char *text;
    size_t len;
} rmsg;

typedef struct srv {
    uv_loop_t *loop;
    struct lws_context *ctx;
    int port;
    bool paused;          /* do not read from connections */
    struct lws *wsi;      /* the current connection */
    rmsg *msgs;
    size_t nmsgs, cap;
    unsigned connections;
} srv;

static srv *g_srv;

static int srv_cb(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                  size_t len)
{
    srv *s = g_srv;
    sl_buf *cur = user; /* per-connection data, zeroed by lws */
    if (s == NULL)
        return 0;
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED:
        s->wsi = wsi;
        s->connections++;
        if (s->paused)
            lws_rx_flow_control(wsi, 0);
        break;
    case LWS_CALLBACK_RECEIVE:
        /* Each connection assembles its own frames (an old one may still be drained). */
        sl_buf_put(cur, in, len);
        if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0) {
            if (s->nmsgs == s->cap) {
                s->cap = s->cap ? s->cap * 2 : 64;
                s->msgs = realloc(s->msgs, s->cap * sizeof(*s->msgs));
            }
            rmsg *m = &s->msgs[s->nmsgs++];
            m->len = cur->len;
            m->text = malloc(m->len + 1);
            memcpy(m->text, cur->data, m->len);
            m->text[m->len] = '\0';
            sl_buf_reset(cur);
        }
        break;
    case LWS_CALLBACK_CLOSED:
        if (s->wsi == wsi)
            s->wsi = NULL;
        sl_buf_fini(cur);
        break;
    default: break;
    }
    return 0;
}

static const struct lws_protocols srv_protocols[] = {
    {"sl-notify-test", srv_cb, sizeof(sl_buf), 65536, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void srv_start(srv *s)
{
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    void *loops[1] = {s->loop};
    info.port = s->port;
    info.iface = "127.0.0.1";
    info.protocols = srv_protocols;
    info.options = LWS_SERVER_OPTION_LIBUV;
    info.foreign_loops = loops;
    s->ctx = lws_create_context(&info);
    assert_non_null(s->ctx);
    g_srv = s;
}

static void count_ctx_handles(uv_handle_t *h, void *arg)
{
    void **a = arg;
    if (h->data == a[0])
        a[1] = (void *)((uintptr_t)a[1] + 1);
}

/* lws 4.1 on a foreign loop destroys a context in two calls, the second once its uv
 * handles (data == the context) are closed; the notifier does the same in its close. */
static void srv_stop(srv *s)
{
    struct lws_context *ctx = s->ctx;
    lws_context_destroy(ctx);
    for (int i = 0; i < 100000; i++) {
        void *a[2] = {ctx, NULL};
        uv_walk(s->loop, count_ctx_handles, a);
        if (a[1] == NULL)
            break;
        uv_run(s->loop, UV_RUN_NOWAIT);
    }
    lws_context_destroy(ctx);
    s->ctx = NULL;
    s->wsi = NULL;
}

static void srv_resume(srv *s)
{
    s->paused = false;
    if (s->wsi != NULL)
        lws_rx_flow_control(s->wsi, 1);
}

static void srv_fini(srv *s)
{
    for (size_t i = 0; i < s->nmsgs; i++)
        free(s->msgs[i].text);
    free(s->msgs);
    g_srv = NULL;
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    socklen_t l = sizeof(a);
    getsockname(fd, (struct sockaddr *)&a, &l);
    close(fd);
    return ntohs(a.sin_port);
}

/* --------------------------------------------------------------------------- fixture */

typedef struct fx {
    char dir[64];
    uv_loop_t loop;
    uv_timer_t tick;
    sl_kv *kv;
    sl_kv_cf *cf;
    sl_notifier *n;
    sl_notifier_opts o;
    srv s;
    char url[96];
} fx;

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    return remove(p);
}

static int64_t fixed_clock(void *ud)
{
    return TS;
}

static void tick_cb(uv_timer_t *t)
{
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs the loop until pred(f) holds or ms pass; returns whether it holds. */
static bool run_until(fx *f, bool (*pred)(fx *), int64_t ms)
{
    int64_t end = mono_ms() + ms;
    while (!pred(f)) {
        if (mono_ms() > end)
            return false;
        uv_run(&f->loop, UV_RUN_ONCE);
    }
    return true;
}

static bool never(fx *f)
{
    return false;
}

static void run_for(fx *f, int64_t ms)
{
    run_until(f, never, ms);
}

static void notifier_open(fx *f)
{
    sl_error err = {0};
    int rc = sl_notifier_open(&f->n, &f->o, &err);
    if (rc != 0)
        fail_msg("notifier open: %s", err.msg);
}

static void notifier_close(fx *f)
{
    sl_notifier_close(f->n);
    f->n = NULL;
    run_for(f, 50); /* let the close callbacks run */
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof(*f));
    strcpy(f->dir, "/tmp/sl_notify_XXXXXX");
    if (mkdtemp(f->dir) == NULL)
        return -1;
    uv_loop_init(&f->loop);
    uv_timer_init(&f->loop, &f->tick);
    uv_timer_start(&f->tick, tick_cb, 5, 5); /* wakes UV_RUN_ONCE regularly */
    char path[96];
    snprintf(path, sizeof(path), "%s/db", f->dir);
    const char *cfs[] = {CF};
    sl_error err = {0};
    if (sl_kv_open(&f->kv, path, NULL, cfs, 1, &err) != 0)
        return -1;
    f->cf = sl_kv_cf_get(f->kv, CF);
    f->o.loop = &f->loop;
    f->o.kv = f->kv;
    f->o.cf = f->cf;
    f->o.backoff_min_ms = 20;
    f->o.backoff_max_ms = 200;
    f->o.wall_ms = fixed_clock;
    f->s.loop = &f->loop;
    f->s.port = free_port();
    snprintf(f->url, sizeof(f->url), "ws://127.0.0.1:%d/notify?key=foo", f->s.port);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    if (f->n != NULL)
        notifier_close(f);
    if (f->s.ctx != NULL)
        srv_stop(&f->s);
    uv_timer_stop(&f->tick);
    uv_close((uv_handle_t *)&f->tick, NULL);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&f->loop), 0);
    srv_fini(&f->s);
    sl_kv_close(f->kv);
    nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

/* ----------------------------------------------------------------------------- events */

/* An Interval WINDOW_CLOSE with triggerId id and a result padded with pad bytes. */
static void make_event(sl_notify_event *ev, uint64_t id, size_t pad)
{
    sl_notify_event_init(ev);
    ev->ne_stream = strdup("avg_current_stream");
    ev->ne_table = strdup("t_1");
    ev->ne_trigger = SL_NOTIFY_TRIG_INTERVAL;
    ev->ne_type = SL_NOTIFY_EV_WINDOW_CLOSE;
    ev->ne_event_time_ms = 1733284887000 + (int64_t)id;
    ev->ne_trigger_id = id;
    ev->ne_group_id = 7;
    ev->ne_wstart = 1733284800000 + (int64_t)id * 60000;
    ev->ne_wend = ev->ne_wstart + 60000;
    static char padding[8192];
    memset(padding, 'p', sizeof(padding));
    const char *names[] = {"_wstart", "avg(current)", "note"};
    sl_value vals[] = {sl_value_int(SL_T_TIMESTAMP, ev->ne_wstart),
                       sl_value_double(SL_T_DOUBLE, 1.5),
                       sl_value_str(SL_T_VARCHAR, padding, (uint32_t)pad)};
    assert_int_equal(sl_notify_event_set_result(ev, names, vals, pad ? 3 : 2), 0);
}

static void post_range(fx *f, uint64_t from, uint64_t to, size_t pad)
{
    for (uint64_t i = from; i <= to; i++) {
        sl_notify_event ev;
        make_event(&ev, i, pad);
        const sl_notify_event *evs[] = {&ev};
        const char *urls[] = {f->url};
        sl_error err = {0};
        int rc = sl_notifier_post(f->n, urls, 1, evs, 1, &err);
        sl_notify_event_fini(&ev);
        if (rc != 0)
            fail_msg("post %llu: %s", (unsigned long long)i, err.msg);
    }
}

static char *event_json(uint64_t id)
{
    sl_notify_event ev;
    make_event(&ev, id, 0);
    sl_buf b = {0};
    assert_int_equal(sl_notify_json_event(&b, &ev, NULL), 0);
    sl_buf_put_u8(&b, 0);
    sl_notify_event_fini(&ev);
    return (char *)b.data;
}

/* Copies the messageId of a received message into id. */
static void message_id(const rmsg *m, char *id, size_t n)
{
    const char *p = strstr(m->text, "{\"messageId\":\"");
    assert_ptr_equal(p, m->text);
    p += 14;
    const char *q = strchr(p, '"');
    assert_non_null(q);
    assert_true((size_t)(q - p) < n);
    memcpy(id, p, (size_t)(q - p));
    id[q - p] = '\0';
}

/*
 * Checks the received messages: a repeated messageId carries the same bytes; after
 * de-duplication, the triggerIds are exactly 1..want in order. Returns the number of
 * repeated messages.
 */
static size_t check_received(const srv *s, uint64_t want)
{
    size_t dups = 0;
    uint64_t next = 1;
    char id[64], id2[64];
    for (size_t i = 0; i < s->nmsgs; i++) {
        message_id(&s->msgs[i], id, sizeof(id));
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++) {
            message_id(&s->msgs[j], id2, sizeof(id2));
            if (strcmp(id, id2) == 0) {
                assert_int_equal(s->msgs[i].len, s->msgs[j].len);
                assert_memory_equal(s->msgs[i].text, s->msgs[j].text, s->msgs[i].len);
                dup = true;
            }
        }
        if (dup) {
            dups++;
            continue;
        }
        for (const char *p = s->msgs[i].text; (p = strstr(p, "\"triggerId\":\"")) != NULL;) {
            p += 13;
            uint64_t t = strtoull(p, NULL, 10);
            if (t != next)
                fail_msg("message %zu: triggerId %llu, expected %llu", i,
                         (unsigned long long)t, (unsigned long long)next);
            next++;
        }
    }
    if (next != want + 1)
        fail_msg("received triggerIds up to %llu, expected %llu", (unsigned long long)next - 1,
                 (unsigned long long)want);
    return dups;
}

static uint64_t g_want;

static bool all_received(fx *f)
{
    /* Count distinct events cheaply: the last triggerId seen in the last message. */
    if (f->s.nmsgs == 0)
        return false;
    const rmsg *m = &f->s.msgs[f->s.nmsgs - 1];
    const char *last = NULL;
    for (const char *p = m->text; (p = strstr(p, "\"triggerId\":\"")) != NULL; p += 13)
        last = p;
    return last != NULL && strtoull(last + 13, NULL, 10) == g_want;
}

static bool outbox_empty(fx *f)
{
    sl_outbox_stats st;
    sl_outbox_stats_total(sl_notifier_outbox(f->n), &st);
    return st.events == 0;
}

static bool disconnected(fx *f)
{
    sl_notifier_dest_stats st;
    sl_notifier_get_dest_stats(f->n, f->url, &st);
    return !st.connected;
}

/* ------------------------------------------------------------------------------ tests */

static void test_in_order(void **state)
{
    fx *f = *state;
    srv_start(&f->s);
    notifier_open(f);
    /* Posted before the loop runs: one message with the three events. */
    post_range(f, 1, 3, 0);
    g_want = 3;
    assert_true(run_until(f, all_received, 5000));
    assert_int_equal(f->s.nmsgs, 1);
    char id[64];
    message_id(&f->s.msgs[0], id, sizeof(id));
    char suffix[40];
    snprintf(suffix, sizeof(suffix), "-%016llx-1",
             (unsigned long long)sl_hash_bytes(f->url, strlen(f->url)));
    assert_int_equal(strlen(id), 16 + strlen(suffix));
    assert_string_equal(id + 16, suffix);
    char *e1 = event_json(1), *e2 = event_json(2), *e3 = event_json(3), *e4 = event_json(4);
    char want[4096];
    snprintf(want, sizeof(want),
             "{\"messageId\":\"%s\",\"timestamp\":%lld,\"streams\":[{\"streamName\":"
             "\"avg_current_stream\",\"events\":[%s,%s,%s]}]}",
             id, (long long)TS, e1, e2, e3);
    assert_string_equal(f->s.msgs[0].text, want);
    /* The event text itself, by hand from the spec's Interval close example. */
    assert_string_equal(e1, "{\"tableName\":\"t_1\",\"eventType\":\"WINDOW_CLOSE\",\"eventTime\":"
                            "1733284887001,\"triggerId\":\"1\",\"triggerType\":\"Interval\","
                            "\"groupId\":\"7\",\"windowStart\":1733284860000,\"windowEnd\":"
                            "1733284920000,\"result\":{\"_wstart\":1733284860000,"
                            "\"avg(current)\":1.5}}");
    assert_true(run_until(f, outbox_empty, 5000));
    /* One more: the second message, first sequence number 4. */
    post_range(f, 4, 4, 0);
    g_want = 4;
    assert_true(run_until(f, all_received, 5000));
    assert_int_equal(f->s.nmsgs, 2);
    message_id(&f->s.msgs[1], id, sizeof(id));
    assert_int_equal(id[strlen(id) - 1], '4');
    snprintf(want, sizeof(want),
             "{\"messageId\":\"%s\",\"timestamp\":%lld,\"streams\":[{\"streamName\":"
             "\"avg_current_stream\",\"events\":[%s]}]}",
             id, (long long)TS, e4);
    assert_string_equal(f->s.msgs[1].text, want);
    assert_true(run_until(f, outbox_empty, 5000));
    sl_notifier_dest_stats st;
    sl_notifier_get_dest_stats(f->n, f->url, &st);
    assert_true(st.connected);
    assert_int_equal(st.connects, 1); /* one persistent connection */
    assert_int_equal(st.written, 2);
    assert_int_equal(st.confirmed, 2);
    assert_int_equal(st.outbox.acked, 2);
    assert_int_equal(f->s.connections, 1);
    check_received(&f->s, 4);
    free(e1);
    free(e2);
    free(e3);
    free(e4);
}

static void test_receiver_down(void **state)
{
    fx *f = *state;
    /* Nothing listens yet: the client retries with backoff. */
    notifier_open(f);
    post_range(f, 1, 5, 0);
    run_for(f, 300);
    sl_notifier_dest_stats st;
    sl_notifier_get_dest_stats(f->n, f->url, &st);
    assert_false(st.connected);
    assert_true(st.failures >= 2);
    assert_true(st.last_error[0] != '\0');
    assert_int_equal(st.outbox.events, 5);
    srv_start(&f->s);
    g_want = 5;
    assert_true(run_until(f, all_received, 5000));
    /* Stop the receiver for a while; events keep coming. */
    assert_true(run_until(f, outbox_empty, 5000));
    srv_stop(&f->s);
    assert_true(run_until(f, disconnected, 5000));
    for (uint64_t i = 6; i <= 60; i += 5) {
        post_range(f, i, i + 4, 0);
        run_for(f, 40);
    }
    sl_notifier_get_dest_stats(f->n, f->url, &st);
    assert_false(st.connected);
    assert_int_equal(st.outbox.events, 55);
    assert_true(st.backoff_ms >= 20 && st.backoff_ms <= 200);
    /* Back on the same port: everything arrives, in order. */
    srv_start(&f->s);
    g_want = 60;
    if (!run_until(f, all_received, 10000)) {
        sl_notifier_get_dest_stats(f->n, f->url, &st);
        fail_msg("not received: msgs %zu connected %d connects %llu failures %llu events %llu "
                 "inflight %u backoff %u err '%s' srv conns %u",
                 f->s.nmsgs, st.connected, (unsigned long long)st.connects,
                 (unsigned long long)st.failures, (unsigned long long)st.outbox.events,
                 st.inflight, st.backoff_ms, st.last_error, f->s.connections);
    }
    assert_true(run_until(f, outbox_empty, 5000));
    check_received(&f->s, 60);
    sl_notifier_get_dest_stats(f->n, f->url, &st);
    assert_true(st.connects >= 2);
    assert_int_equal(st.outbox.dropped, 0);
}

static bool writes_held(fx *f)
{
    sl_notifier_dest_stats st;
    sl_notifier_get_dest_stats(f->n, f->url, &st);
    return st.inflight > 0 && st.outbox.messages > 0;
}

static bool nothing_held(fx *f)
{
    sl_notifier_dest_stats st;
    sl_notifier_get_dest_stats(f->n, f->url, &st);
    return st.inflight == 0;
}

static void test_slow_receiver(void **state)
{
    fx *f = *state;
    f->o.outbox.max_message_bytes = 256 * 1024;
    f->s.paused = true; /* reads nothing until resumed */
    srv_start(&f->s);
    notifier_open(f);
    /* 3000 events of ~4 KiB: ~12 MiB, more than the socket buffers hold. */
    post_range(f, 1, 3000, 4000);
    run_for(f, 1000);
    assert_int_equal(f->s.nmsgs, 0);
    /* Written messages the receiver has not taken stay in the outbox, unconfirmed. */
    assert_true(writes_held(f));
    sl_notifier_dest_stats st;
    sl_notifier_get_dest_stats(f->n, f->url, &st);
    assert_true(st.outbox.events > 0);
    assert_true(st.inflight_max > 0);
    assert_true(st.inflight_max <= 32);
    assert_int_equal(st.connects, 1);
    /* The receiver catches up: everything, in order, once. */
    srv_resume(&f->s);
    g_want = 3000;
    assert_true(run_until(f, all_received, 30000));
    assert_true(run_until(f, outbox_empty, 5000));
    assert_true(run_until(f, nothing_held, 5000));
    assert_int_equal(check_received(&f->s, 3000), 0);
    sl_notifier_get_dest_stats(f->n, f->url, &st);
    assert_int_equal(st.connects, 1);
    assert_int_equal(st.rewritten, 0);
    assert_int_equal(st.outbox.dropped, 0);
    assert_int_equal(st.written, st.confirmed);
}

typedef struct formed {
    char id[64];
    char *text;
    size_t len;
} formed;

static void test_notifier_restart(void **state)
{
    fx *f = *state;
    f->o.outbox.max_message_bytes = 256 * 1024;
    f->s.paused = true;
    srv_start(&f->s);
    notifier_open(f);
    post_range(f, 1, 2000, 4000);
    run_for(f, 500);
    assert_true(writes_held(f));
    /* The "process" stops with messages written but not confirmed. */
    notifier_close(f);
    /* What the store holds now, in order (pending events get formed here, as the new
     * notifier would). */
    sl_outbox *ob = NULL;
    sl_error err = {0};
    assert_int_equal(sl_outbox_open(&ob, f->kv, f->cf, &f->o.outbox, &err), 0);
    formed *fm = calloc(2000, sizeof(*fm));
    size_t nfm = 0;
    sl_outbox_msg m = {0};
    uint64_t after = 0;
    while (sl_outbox_next(ob, f->url, after, TS, &m, &err) == 0) {
        strcpy(fm[nfm].id, m.message_id);
        fm[nfm].text = malloc(m.text.len);
        memcpy(fm[nfm].text, m.text.data, m.text.len);
        fm[nfm].len = m.text.len;
        nfm++;
        after = m.first_seq;
    }
    sl_buf_fini(&m.text);
    sl_outbox_close(ob);
    assert_true(nfm > 0);
    /* A new notifier on the same store; the receiver reads again. */
    srv_resume(&f->s);
    notifier_open(f);
    g_want = 2000;
    assert_true(run_until(f, all_received, 30000));
    assert_true(run_until(f, outbox_empty, 5000));
    check_received(&f->s, 2000);
    /* Every message left in the store arrived with its messageId and its exact bytes. */
    char id[64];
    for (size_t i = 0; i < nfm; i++) {
        bool found = false;
        for (size_t j = 0; j < f->s.nmsgs && !found; j++) {
            message_id(&f->s.msgs[j], id, sizeof(id));
            if (strcmp(id, fm[i].id) == 0) {
                assert_int_equal(f->s.msgs[j].len, fm[i].len);
                assert_memory_equal(f->s.msgs[j].text, fm[i].text, fm[i].len);
                found = true;
            }
        }
        if (!found)
            fail_msg("message %s left in the outbox never arrived", fm[i].id);
        free(fm[i].text);
    }
    free(fm);
}

/* An idle connection is kept alive by pings: with a 1 s ping and a 3 s hang-up, 4.5 s of
 * silence must not close it (the server's pongs are its valid traffic). */
static void test_keepalive(void **state)
{
    fx *f = *state;
    f->o.ping_secs = 1;
    f->o.hangup_secs = 3;
    srv_start(&f->s);
    notifier_open(f);
    post_range(f, 1, 1, 0);
    g_want = 1;
    assert_true(run_until(f, all_received, 5000));
    run_for(f, 4500);
    sl_notifier_dest_stats st;
    sl_notifier_get_dest_stats(f->n, f->url, &st);
    assert_true(st.connected);
    assert_int_equal(st.connects, 1);
    assert_int_equal(st.failures, 0);
    assert_int_equal(f->s.connections, 1);
    post_range(f, 2, 2, 0);
    g_want = 2;
    assert_true(run_until(f, all_received, 5000));
    check_received(&f->s, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_receiver_down, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slow_receiver, setup, teardown),
        cmocka_unit_test_setup_teardown(test_notifier_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keepalive, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
