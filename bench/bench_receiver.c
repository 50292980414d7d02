/* bench_receiver.c - see bench_receiver.h. */
#include "bench_receiver.h"

#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "common/util/buf.h"

struct bench_receiver {
    struct lws_context *ctx;
    int port;
    pthread_t thread;
    atomic_bool stop;
    const char *const *streams;
    int nstreams;
    pthread_mutex_t mu;   /* guards everything below */
    br_event *ev;
    size_t nev, cap;
    uint64_t messages, malformed;
};

/* Finds key (e.g. "\"eventType\":") in [p, end); returns the byte after it or NULL. */
static const char *find_key(const char *p, const char *end, const char *key)
{
    size_t kl = strlen(key);
    for (; p != NULL && p + kl <= end; p++) {
        p = memchr(p, key[0], (size_t)(end - p));
        if (p == NULL || p + kl > end)
            return NULL;
        if (memcmp(p, key, kl) == 0)
            return p + kl;
    }
    return NULL;
}

static int stream_index(const bench_receiver *r, const char *name, size_t len)
{
    for (int i = 0; i < r->nstreams; i++)
        if (strlen(r->streams[i]) == len && memcmp(r->streams[i], name, len) == 0)
            return i;
    return -1;
}

static bool push(bench_receiver *r, const br_event *e)
{
    if (r->nev == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 4096;
        br_event *n = realloc(r->ev, cap * sizeof(*n));
        if (n == NULL)
            return false;
        r->ev = n;
        r->cap = cap;
    }
    r->ev[r->nev++] = *e;
    return true;
}

/* Reads the events of one message (NUL-terminated text of len bytes); caller holds mu. */
static void parse_message(bench_receiver *r, const char *text, size_t len, double arrival)
{
    static const char SK[] = "\"streamName\":\"", EK[] = "\"eventType\":\"",
                      TK[] = "\"triggerId\":\"", WK[] = "\"windowStart\":";
    const char *end = text + len;
    const char *s = find_key(text, end, SK);
    if (s == NULL) {
        r->malformed++;
        return;
    }
    while (s != NULL) {
        const char *name_end = memchr(s, '"', (size_t)(end - s));
        if (name_end == NULL) {
            r->malformed++;
            return;
        }
        int stream = stream_index(r, s, (size_t)(name_end - s));
        const char *next_stream = find_key(name_end, end, SK);
        const char *seg_end = next_stream ? next_stream - (sizeof(SK) - 1) : end;
        const char *e = find_key(name_end, seg_end, EK);
        while (e != NULL) {
            const char *next_ev = find_key(e, seg_end, EK);
            const char *ev_end = next_ev ? next_ev - (sizeof(EK) - 1) : seg_end;
            br_event ev = {.stream = stream, .type = BR_OTHER, .window_start = INT64_MIN,
                           .arrival = arrival};
            if (strncmp(e, "WINDOW_OPEN\"", 12) == 0)
                ev.type = BR_OPEN;
            else if (strncmp(e, "WINDOW_CLOSE\"", 13) == 0)
                ev.type = BR_CLOSE;
            const char *t = find_key(e, ev_end, TK);
            const char *w = find_key(e, ev_end, WK);
            if (t == NULL) {
                r->malformed++;
            } else {
                ev.trigger_id = strtoull(t, NULL, 10);
                if (w != NULL)
                    ev.window_start = strtoll(w, NULL, 10);
                if (!push(r, &ev))
                    r->malformed++;
            }
            e = next_ev;
        }
        s = next_stream;
    }
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    bench_receiver *r = lws_context_user(lws_get_context(wsi));
    sl_buf *cur = user; /* per connection, zeroed by lws */
    switch (reason) {
    case LWS_CALLBACK_RECEIVE:
        if (sl_buf_put(cur, in, len) != 0)
            return -1;
        if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0) {
            double now = bench_now();
            if (sl_buf_put(cur, "", 1) != 0) /* NUL for the parser */
                return -1;
            pthread_mutex_lock(&r->mu);
            r->messages++;
            parse_message(r, (const char *)cur->data, cur->len - 1, now);
            pthread_mutex_unlock(&r->mu);
            sl_buf_reset(cur);
        }
        break;
    case LWS_CALLBACK_CLOSED:
        sl_buf_fini(cur);
        break;
    default:
        break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {
    {"sluice-bench-receiver", callback, sizeof(sl_buf), 65536, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void *serve(void *arg)
{
    bench_receiver *r = arg;
    while (!atomic_load(&r->stop))
        lws_service(r->ctx, 0);
    return NULL;
}

int bench_receiver_open(bench_receiver **out, const char *const *streams, int nstreams,
                        char *msg, size_t msglen)
{
    bench_receiver *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    r->streams = streams;
    r->nstreams = nstreams;
    pthread_mutex_init(&r->mu, NULL);
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    info.port = 0; /* the kernel picks a free one */
    info.iface = "127.0.0.1";
    info.protocols = protocols;
    info.user = r;
    r->ctx = lws_create_context(&info);
    struct lws_vhost *vh = r->ctx ? lws_get_vhost_by_name(r->ctx, "default") : NULL;
    r->port = vh ? lws_get_vhost_listen_port(vh) : 0;
    if (r->port <= 0) {
        snprintf(msg, msglen, "cannot start the WebSocket receiver on 127.0.0.1");
        goto fail;
    }
    if (pthread_create(&r->thread, NULL, serve, r) != 0) {
        snprintf(msg, msglen, "cannot start the receiver thread");
        goto fail;
    }
    *out = r;
    return 0;

fail:
    if (r->ctx != NULL)
        lws_context_destroy(r->ctx);
    pthread_mutex_destroy(&r->mu);
    free(r);
    return -1;
}

int bench_receiver_port(const bench_receiver *r)
{
    return r->port;
}

void bench_receiver_close(bench_receiver *r)
{
    if (r == NULL)
        return;
    atomic_store(&r->stop, true);
    lws_cancel_service(r->ctx);
    pthread_join(r->thread, NULL);
    lws_context_destroy(r->ctx);
    pthread_mutex_destroy(&r->mu);
    free(r->ev);
    free(r);
}

size_t bench_receiver_events(bench_receiver *r, size_t from, br_event **out, size_t *next)
{
    pthread_mutex_lock(&r->mu);
    size_t n = r->nev > from ? r->nev - from : 0;
    *out = NULL;
    if (n > 0) {
        *out = malloc(n * sizeof(**out));
        if (*out == NULL)
            n = 0;
        else
            memcpy(*out, r->ev + from, n * sizeof(**out));
    }
    *next = from + n;
    pthread_mutex_unlock(&r->mu);
    return n;
}

void bench_receiver_stats(bench_receiver *r, uint64_t *messages, uint64_t *malformed)
{
    pthread_mutex_lock(&r->mu);
    *messages = r->messages;
    *malformed = r->malformed;
    pthread_mutex_unlock(&r->mu);
}
