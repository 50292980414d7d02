/*
 * notifier.c - the libwebsockets client side of notifier.h. One nt_conn per destination
 * URL drives a small state machine (idle -> connecting -> open -> backoff -> connecting),
 * reads messages from the outbox in order and writes them from LWS_CALLBACK_CLIENT_WRITEABLE,
 * and confirms written messages against the socket's unacknowledged byte count.
 *
 * lws callbacks find their connection through the wsi's opaque user data; close clears it
 * before destroying the context, so callbacks made during the destruction touch nothing.
 */
#include "snode/notify/notifier.h"

#include <inttypes.h>
#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#ifdef __linux__
#include <linux/sockios.h>
#endif

#include "common/util/log.h"
#include "snode/notify/notify_json.h"
#include "snode/notify/notify_url.h"

typedef enum nt_state { NC_IDLE, NC_CONNECTING, NC_OPEN, NC_BACKOFF } nt_state;

/* A written message waiting for confirmation. */
typedef struct nt_flight {
    uint64_t first_seq;
    uint64_t end;   /* payload bytes written on this connection up to its end */
    uint64_t len;
} nt_flight;

typedef struct nt_conn {
    sl_notifier *n;
    char *url;             /* the destination as posted (outbox key) */
    sl_notify_url pu;      /* parsed */
    char hostport[SL_NOTIFY_HOST_MAX + 16]; /* Host header */
    struct lws *wsi;       /* NULL unless connecting or open */
    nt_state state;
    uv_timer_t retry;      /* reconnect after backoff */
    uv_timer_t confirm;    /* re-checks unconfirmed writes */
    uint32_t attempts;     /* failures since the last established connection */
    uint32_t backoff_ms;
    uint64_t cursor;       /* first seq of the last message written on this connection */
    uint64_t wbytes;       /* payload bytes written on this connection */
    nt_flight *fl;         /* unconfirmed writes, oldest first */
    uint32_t nfl, capfl;
    uint64_t max_written;  /* highest first seq ever written (to count re-writes) */
    sl_outbox_msg msg;     /* message being read */
    sl_buf wbuf;           /* LWS_PRE bytes + the frame payload */
    bool stalled;          /* the outbox returned an error: stop until the next post */
    sl_notifier_dest_stats st;
} nt_conn;

struct sl_notifier {
    uv_loop_t *loop;
    sl_notifier_opts o;
    sl_outbox *ob;
    struct lws_context *ctx;
    lws_retry_bo_t retry_policy;
    nt_conn **conns;
    size_t nconn, capconn;
    unsigned handles;     /* uv handles still to be closed */
    bool closing;
    uv_timer_t fin;       /* finishes the lws context destruction (see close) */
    unsigned fin_ticks;
    sl_buf jbuf;          /* event JSON scratch */
};

static int conn_kick(nt_conn *c);

/* ---------------------------------------------------------------------------- helpers */

static int64_t now_ms(const sl_notifier *n)
{
    if (n->o.wall_ms != NULL)
        return n->o.wall_ms(n->o.clock_ud);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void lws_log_to_sl(int level, const char *line)
{
    size_t l = strlen(line);
    while (l > 0 && (line[l - 1] == '\n' || line[l - 1] == '\r'))
        l--;
    sl_log(level == LLL_ERR ? SL_LOG_ERROR : SL_LOG_WARN, "notify", "lws: %.*s", (int)l, line);
}

static void set_error(nt_conn *c, const char *why)
{
    const char *w = why ? why : "unknown error";
    size_t l = strnlen(w, sizeof(c->st.last_error) - 1);
    memcpy(c->st.last_error, w, l);
    c->st.last_error[l] = '\0';
}

static void maybe_free(sl_notifier *n);

static void handle_closed(uv_handle_t *h)
{
    nt_conn *c = h->data;
    sl_notifier *n = c->n;
    n->handles--;
    maybe_free(n);
}

static void fin_closed(uv_handle_t *h)
{
    sl_notifier *n = h->data;
    n->handles--;
    maybe_free(n);
}

static void count_ctx_handles(uv_handle_t *h, void *arg)
{
    void **a = arg;
    if (h->data == a[0])
        a[1] = (void *)((uintptr_t)a[1] + 1);
}

/*
 * lws 4.1 with a foreign libuv loop destroys a context in two calls: the first closes its
 * uv handles, which libuv finishes asynchronously; only once they are gone may
 * lws_context_destroy() be called again to free the context (calling it earlier crashes).
 * lws marks its static handles with data == the context, so wait until none is left.
 */
static void fin_cb(uv_timer_t *t)
{
    sl_notifier *n = t->data;
    void *a[2] = {n->ctx, NULL};
    if (n->ctx != NULL)
        uv_walk(n->loop, count_ctx_handles, a);
    n->fin_ticks++;
    if (n->ctx != NULL && a[1] != NULL) {
        if (n->fin_ticks < 10000)
            return;
        sl_log(SL_LOG_WARN, "notify", "libwebsockets context did not close; leaving it");
    } else if (n->ctx != NULL) {
        lws_context_destroy(n->ctx); /* second call: frees it, sets n->ctx to NULL */
    }
    n->ctx = NULL;
    uv_timer_stop(t);
    uv_close((uv_handle_t *)t, fin_closed);
}

static void conn_free(nt_conn *c)
{
    free(c->url);
    free(c->fl);
    sl_buf_fini(&c->msg.text);
    sl_buf_fini(&c->wbuf);
    free(c);
}

static void maybe_free(sl_notifier *n)
{
    if (!n->closing || n->handles > 0)
        return;
    for (size_t i = 0; i < n->nconn; i++)
        conn_free(n->conns[i]);
    free(n->conns);
    sl_buf_fini(&n->jbuf);
    free(n);
}

/* ------------------------------------------------------------------------ confirmation */

/* Removes from the outbox every written message the receiver's TCP stack acknowledged. */
static void conn_confirm(nt_conn *c)
{
    if (c->nfl == 0 || c->wsi == NULL)
        return;
    uint64_t unsent = 0;
#ifdef __linux__
    int q = 0;
    int fd = (int)lws_get_socket_fd(c->wsi);
    if (fd < 0 || ioctl(fd, SIOCOUTQ, &q) != 0)
        return; /* cannot tell: keep waiting, a drop re-sends */
    unsent = (uint64_t)(q > 0 ? q : 0);
#endif
    /* lws keeps the unsent tail of the last write itself; the kernel's count includes
     * frame headers and pings, so both corrections are on the safe side. */
    uint64_t limit = c->wbytes;
    if (lws_partial_buffered(c->wsi))
        limit -= c->fl[c->nfl - 1].len;
    limit = limit > unsent ? limit - unsent : 0;
    uint32_t done = 0;
    sl_notifier *n = c->n;
    while (done < c->nfl && c->fl[done].end <= limit) {
        sl_error err = {0};
        int rc = sl_outbox_ack(n->ob, c->url, c->fl[done].first_seq, &err);
        if (rc != 0 && rc != SL_ENOTFOUND) {
            sl_log(SL_LOG_ERROR, "notify", "cannot remove a sent message of %s: %s", c->url,
                   err.msg);
            break;
        }
        c->st.confirmed++;
        done++;
    }
    if (done > 0) {
        memmove(c->fl, c->fl + done, (c->nfl - done) * sizeof(*c->fl));
        c->nfl -= done;
    }
}

static void confirm_cb(uv_timer_t *t)
{
    nt_conn *c = t->data;
    if (c->n->closing)
        return;
    uint32_t before = c->nfl;
    conn_confirm(c);
    if (c->nfl == 0)
        uv_timer_stop(t);
    if (c->nfl < before && c->state == NC_OPEN && c->wsi != NULL)
        lws_callback_on_writable(c->wsi);
}

static void confirm_arm(nt_conn *c)
{
    if (c->nfl > 0 && !uv_is_active((uv_handle_t *)&c->confirm))
        uv_timer_start(&c->confirm, confirm_cb, c->n->o.confirm_poll_ms, c->n->o.confirm_poll_ms);
}

/* ----------------------------------------------------------------------------- writing */

static int conn_write_next(nt_conn *c)
{
    sl_notifier *n = c->n;
    conn_confirm(c);
    if (c->nfl >= n->o.max_inflight || lws_partial_buffered(c->wsi) || c->stalled) {
        confirm_arm(c);
        return 0;
    }
    sl_error err = {0};
    int rc = sl_outbox_next(n->ob, c->url, c->cursor, now_ms(n), &c->msg, &err);
    if (rc == SL_ENOTFOUND) {
        confirm_arm(c);
        return 0;
    }
    if (rc != 0) {
        /* A damaged or unreadable outbox: do not skip (order) nor spin; wait for a post. */
        sl_log(SL_LOG_ERROR, "notify", "cannot read the outbox of %s: %s", c->url, err.msg);
        set_error(c, err.msg);
        c->stalled = true;
        confirm_arm(c);
        return 0;
    }
    if (c->nfl == c->capfl) {
        uint32_t nc = c->capfl ? c->capfl * 2 : 16;
        nt_flight *nf = realloc(c->fl, nc * sizeof(*nf));
        if (nf == NULL)
            return 0; /* retried on the next writeable callback */
        c->fl = nf;
        c->capfl = nc;
    }
    size_t len = c->msg.text.len;
    sl_buf_reset(&c->wbuf);
    if (sl_buf_reserve(&c->wbuf, LWS_PRE + len) != 0)
        return 0;
    memcpy(c->wbuf.data + LWS_PRE, c->msg.text.data, len);
    int w = lws_write(c->wsi, c->wbuf.data + LWS_PRE, len, LWS_WRITE_TEXT);
    if (w < 0 || (size_t)w < len) {
        set_error(c, "write failed");
        return -1; /* lws closes the connection; the message stays unconfirmed */
    }
    c->wbytes += len;
    c->fl[c->nfl++] = (nt_flight){c->msg.first_seq, c->wbytes, len};
    if (c->nfl > c->st.inflight_max)
        c->st.inflight_max = c->nfl;
    c->cursor = c->msg.first_seq;
    c->st.written++;
    if (c->msg.first_seq <= c->max_written)
        c->st.rewritten++;
    else
        c->max_written = c->msg.first_seq;
    conn_confirm(c);
    confirm_arm(c);
    lws_callback_on_writable(c->wsi);
    return 0;
}

/* ------------------------------------------------------------------------- connections */

static void retry_cb(uv_timer_t *t)
{
    nt_conn *c = t->data;
    if (c->n->closing || c->state != NC_BACKOFF)
        return;
    c->state = NC_IDLE;
    conn_kick(c);
}

/* The connection failed or closed: keep unconfirmed messages, retry if there is work. */
static void conn_lost(nt_conn *c, const char *why)
{
    sl_notifier *n = c->n;
    bool was_open = c->state == NC_OPEN;
    c->wsi = NULL;
    c->nfl = 0;
    c->cursor = 0;
    c->wbytes = 0;
    uv_timer_stop(&c->confirm);
    c->st.failures++;
    set_error(c, why);
    if (was_open)
        sl_log(SL_LOG_WARN, "notify", "connection to %s lost: %s", c->url, c->st.last_error);
    if (!sl_outbox_has_data(n->ob, c->url)) {
        c->state = NC_IDLE;
        c->backoff_ms = 0;
        return;
    }
    uint32_t d = n->o.backoff_min_ms;
    for (uint32_t i = 0; i < c->attempts && d < n->o.backoff_max_ms; i++)
        d *= 2;
    if (d > n->o.backoff_max_ms)
        d = n->o.backoff_max_ms;
    c->attempts++;
    c->backoff_ms = d;
    c->state = NC_BACKOFF;
    uv_timer_start(&c->retry, retry_cb, d, 0);
}

static int conn_connect(nt_conn *c)
{
    sl_notifier *n = c->n;
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof(ci));
    ci.context = n->ctx;
    ci.address = c->pu.host;
    ci.port = c->pu.port;
    ci.path = c->pu.path;
    ci.host = c->hostport;
    ci.origin = c->hostport;
    ci.local_protocol_name = "sl-notify";
    ci.pwsi = &c->wsi;
    ci.opaque_user_data = c;
    ci.retry_and_idle_policy = &n->retry_policy;
    c->state = NC_CONNECTING;
    struct lws *w = lws_client_connect_via_info(&ci);
    if (w == NULL && c->state == NC_CONNECTING)
        conn_lost(c, "cannot start the connection");
    return 0;
}

/* Makes the connection move: connect when idle, ask to write when open. */
static int conn_kick(nt_conn *c)
{
    if (c->n->closing)
        return 0;
    switch (c->state) {
    case NC_IDLE:
        if (sl_outbox_has_data(c->n->ob, c->url))
            return conn_connect(c);
        return 0;
    case NC_OPEN:
        if (c->wsi != NULL)
            lws_callback_on_writable(c->wsi);
        return 0;
    default: return 0; /* connecting or waiting: the data goes when it is up */
    }
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    nt_conn *c = lws_get_opaque_user_data(wsi);
    if (c == NULL || c->n->closing)
        return 0;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        c->wsi = wsi;
        c->state = NC_OPEN;
        c->attempts = 0;
        c->backoff_ms = 0;
        c->cursor = 0;
        c->wbytes = 0;
        c->nfl = 0;
        c->st.connects++;
        c->st.last_error[0] = '\0';
        lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: {
        char why[128];
        snprintf(why, sizeof(why), "connect: %s", in ? (const char *)in : "failed");
        lws_set_opaque_user_data(wsi, NULL);
        conn_lost(c, why);
        return 0;
    }
    case LWS_CALLBACK_CLIENT_CLOSED:
        lws_set_opaque_user_data(wsi, NULL);
        conn_lost(c, "closed");
        return 0;
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        if (c->state != NC_OPEN)
            return 0;
        return conn_write_next(c);
    case LWS_CALLBACK_CLIENT_RECEIVE:
        return 0; /* receivers have nothing to say in this protocol; ignore it */
    default: return 0;
    }
}

static const struct lws_protocols protocols[] = {
    {"sl-notify", callback, 0, 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static nt_conn *conn_find(const sl_notifier *n, const char *url)
{
    for (size_t i = 0; i < n->nconn; i++)
        if (strcmp(n->conns[i]->url, url) == 0)
            return n->conns[i];
    return NULL;
}

static int conn_get(sl_notifier *n, const char *url, nt_conn **out, sl_error *err)
{
    nt_conn *c = conn_find(n, url);
    if (c != NULL) {
        *out = c;
        return 0;
    }
    sl_notify_url pu;
    int rc = sl_notify_url_parse(url, strlen(url), &pu, err);
    if (rc != 0)
        return rc;
    if (n->nconn == n->capconn) {
        size_t nc = n->capconn ? n->capconn * 2 : 8;
        nt_conn **na = realloc(n->conns, nc * sizeof(*na));
        if (na == NULL)
            return sl_error_set(err, SL_ENOMEM, 0, 0, "notifier: out of memory");
        n->conns = na;
        n->capconn = nc;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL || (c->url = strdup(url)) == NULL) {
        free(c);
        return sl_error_set(err, SL_ENOMEM, 0, 0, "notifier: out of memory");
    }
    c->n = n;
    c->pu = pu;
    snprintf(c->hostport, sizeof(c->hostport), "%s%s%s:%u", pu.ipv6 ? "[" : "", pu.host,
             pu.ipv6 ? "]" : "", (unsigned)pu.port);
    uv_timer_init(n->loop, &c->retry);
    uv_timer_init(n->loop, &c->confirm);
    c->retry.data = c;
    c->confirm.data = c;
    n->handles += 2;
    n->conns[n->nconn++] = c;
    *out = c;
    return 0;
}

/* ------------------------------------------------------------------------------ public */

int sl_notifier_check_url(const char *url, sl_error *err)
{
    sl_notify_url u;
    if (url == NULL)
        return sl_error_set(err, SL_EINVAL, 0, 0, "bad notification URL: empty");
    return sl_notify_url_parse(url, strlen(url), &u, err);
}

int sl_notifier_open(sl_notifier **out, const sl_notifier_opts *o, sl_error *err)
{
    if (o == NULL || o->loop == NULL || o->kv == NULL || o->cf == NULL)
        return sl_error_set(err, SL_EINVAL, 0, 0, "notifier: a loop and an outbox store are "
                                                  "required");
    sl_notifier *n = calloc(1, sizeof(*n));
    if (n == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "notifier: out of memory");
    n->loop = o->loop;
    n->o = *o;
    if (n->o.backoff_min_ms == 0)
        n->o.backoff_min_ms = 200;
    if (n->o.backoff_max_ms == 0)
        n->o.backoff_max_ms = 30000;
    if (n->o.backoff_max_ms < n->o.backoff_min_ms)
        n->o.backoff_max_ms = n->o.backoff_min_ms;
    if (n->o.ping_secs == 0)
        n->o.ping_secs = 30;
    if (n->o.hangup_secs == 0)
        n->o.hangup_secs = 90;
    if (n->o.hangup_secs <= n->o.ping_secs)
        n->o.hangup_secs = (uint16_t)(n->o.ping_secs + 1);
    if (n->o.max_inflight == 0)
        n->o.max_inflight = 32;
    if (n->o.confirm_poll_ms == 0)
        n->o.confirm_poll_ms = 5;
    n->retry_policy.secs_since_valid_ping = n->o.ping_secs;
    n->retry_policy.secs_since_valid_hangup = n->o.hangup_secs;

    int rc = sl_outbox_open(&n->ob, o->kv, o->cf, &o->outbox, err);
    if (rc != 0) {
        free(n);
        return rc;
    }
    lws_set_log_level(LLL_ERR, lws_log_to_sl);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    void *loops[1] = {n->loop};
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_LIBUV;
    info.foreign_loops = loops;
    info.retry_and_idle_policy = &n->retry_policy;
    info.pcontext = &n->ctx;
    n->ctx = lws_create_context(&info);
    if (n->ctx == NULL) {
        sl_outbox_close(n->ob);
        free(n);
        return sl_error_set(err, SL_EIO, 0, 0,
                            "notifier: libwebsockets could not create its libuv context");
    }
    *out = n;
    /* Deliver what a previous run left in the outbox. */
    for (size_t i = 0; i < sl_outbox_ndest(n->ob); i++) {
        const char *url = sl_outbox_dest_url(n->ob, i);
        if (!sl_outbox_has_data(n->ob, url))
            continue;
        nt_conn *c;
        sl_error e2 = {0};
        if (conn_get(n, url, &c, &e2) != 0) {
            sl_log(SL_LOG_ERROR, "notify", "outbox destination %s is unusable: %s", url,
                   e2.msg);
            continue;
        }
        conn_kick(c);
    }
    return 0;
}

void sl_notifier_close(sl_notifier *n)
{
    if (n == NULL || n->closing)
        return;
    n->closing = true;
    for (size_t i = 0; i < n->nconn; i++) {
        nt_conn *c = n->conns[i];
        if (c->wsi != NULL)
            lws_set_opaque_user_data(c->wsi, NULL);
        uv_close((uv_handle_t *)&c->retry, handle_closed);
        uv_close((uv_handle_t *)&c->confirm, handle_closed);
    }
    lws_context_destroy(n->ctx); /* first call: closes its handles (see fin_cb) */
    sl_outbox_close(n->ob);
    n->ob = NULL;
    uv_timer_init(n->loop, &n->fin);
    n->fin.data = n;
    n->handles++;
    uv_timer_start(&n->fin, fin_cb, 1, 1);
}

int sl_notifier_post(sl_notifier *n, const char *const *urls, size_t nurls,
                     const sl_notify_event *const *evs, size_t nev, sl_error *err)
{
    if (n->closing)
        return sl_error_set(err, SL_ESTATE, 0, 0, "notifier is closing");
    if (nurls == 0 || nev == 0)
        return 0;
    nt_conn **cs = calloc(nurls, sizeof(*cs));
    size_t *offs = calloc(nev + 1, sizeof(*offs));
    sl_outbox_entry *es = calloc(nurls * nev, sizeof(*es));
    int rc = 0;
    if (cs == NULL || offs == NULL || es == NULL) {
        rc = sl_error_set(err, SL_ENOMEM, 0, 0, "notifier: out of memory");
        goto done;
    }
    for (size_t u = 0; u < nurls && rc == 0; u++) {
        if (urls[u] == NULL) {
            rc = sl_error_set(err, SL_EINVAL, 0, 0, "bad notification URL: empty");
            break;
        }
        rc = conn_get(n, urls[u], &cs[u], err);
    }
    sl_buf_reset(&n->jbuf);
    for (size_t i = 0; i < nev && rc == 0; i++) {
        offs[i] = n->jbuf.len;
        rc = sl_notify_json_event(&n->jbuf, evs[i], err);
    }
    if (rc != 0)
        goto done;
    offs[nev] = n->jbuf.len;
    for (size_t u = 0; u < nurls; u++) {
        for (size_t i = 0; i < nev; i++) {
            sl_outbox_entry *e = &es[u * nev + i];
            e->url = urls[u];
            e->stream = evs[i]->ne_stream;
            e->json = (const char *)n->jbuf.data + offs[i];
            e->json_len = offs[i + 1] - offs[i];
        }
    }
    rc = sl_outbox_append(n->ob, es, nurls * nev, err);
    if (rc != 0)
        goto done;
    for (size_t u = 0; u < nurls; u++) {
        cs[u]->stalled = false;
        conn_kick(cs[u]);
    }
done:
    free(cs);
    free(offs);
    free(es);
    return rc;
}

void sl_notifier_get_dest_stats(const sl_notifier *n, const char *url, sl_notifier_dest_stats *st)
{
    const nt_conn *c = conn_find(n, url);
    if (c != NULL) {
        *st = c->st;
        st->connected = c->state == NC_OPEN;
        st->inflight = c->nfl;
        st->backoff_ms = c->state == NC_BACKOFF ? c->backoff_ms : 0;
    } else {
        memset(st, 0, sizeof(*st));
    }
    if (n->ob != NULL)
        sl_outbox_dest_stats(n->ob, url, &st->outbox);
}

const sl_outbox *sl_notifier_outbox(const sl_notifier *n)
{
    return n->ob;
}
