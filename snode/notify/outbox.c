/*
 * outbox.c - the durable per-destination notification outbox of outbox.h. The stored
 * records are the truth; the in-memory index (per destination: a queue of formed
 * messages and a queue of pending events with their sizes) is rebuilt by one scan at open
 * and changed only after the write batch that changes the store has succeeded.
 */
#include "snode/notify/outbox.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/kv/keycodec.h"
#include "common/util/keymap.h"
#include "snode/notify/notify_json.h"

#define OB_VERSION 1
#define OB_HDR 6 /* magic, version, u32 checksum */
#define OB_KEY_DEST 9
#define OB_KEY_SEQ 17
/* Bytes a message spends around its events (root fields, one stream's wrapper). */
#define OB_MSG_OVERHEAD 256

enum { MAG_INC = 'i', MAG_DEST = 'd', MAG_EVENT = 'e', MAG_MSG = 'm' };

/* A queue with a moving head; elements are esz bytes. */
typedef struct ob_q {
    uint8_t *a;
    size_t esz, head, len, cap;
} ob_q;

typedef struct ob_ev {
    uint64_t seq;
    uint32_t bytes; /* record value bytes */
} ob_ev;

typedef struct ob_msg {
    uint64_t first, last;
    uint32_t nevents;
    uint32_t bytes;
} ob_msg;

typedef struct ob_dest {
    char *url;
    uint64_t id;         /* xxHash of url */
    uint64_t next_seq;   /* next sequence number to assign (>= 1) */
    ob_q msgs;           /* ob_msg, oldest first */
    ob_q evs;            /* ob_ev, oldest first */
    uint64_t events;     /* stored events */
    uint64_t bytes;      /* stored record bytes */
    uint64_t dropped, appended, acked;
    /* Scratch of sl_outbox_append. */
    uint64_t t_events, t_bytes, t_drop_msgs, t_drop_evs, t_drop_events, t_drop_bytes;
    bool t_touched;
} ob_dest;

struct sl_outbox {
    sl_kv *kv;
    sl_kv_cf *cf;
    sl_outbox_opts o;
    uint64_t incarnation;
    ob_dest **dests;
    size_t ndest, cap;
    sl_buf scratch;
};

/* ------------------------------------------------------------------------------ queues */

static void *q_at(const ob_q *q, size_t i)
{
    return q->a + (q->head + i) * q->esz;
}

static int q_push(ob_q *q, const void *e)
{
    if (q->head + q->len == q->cap) {
        if (q->head > 0) {
            memmove(q->a, q->a + q->head * q->esz, q->len * q->esz);
            q->head = 0;
        } else {
            size_t nc = q->cap ? q->cap * 2 : 16;
            uint8_t *na = realloc(q->a, nc * q->esz);
            if (na == NULL)
                return SL_ENOMEM;
            q->a = na;
            q->cap = nc;
        }
    }
    memcpy(q->a + (q->head + q->len) * q->esz, e, q->esz);
    q->len++;
    return 0;
}

static void q_remove(ob_q *q, size_t i)
{
    if (i == 0) {
        q->head++;
    } else if (i + 1 < q->len) {
        memmove(q_at(q, i), q_at(q, i + 1), (q->len - i - 1) * q->esz);
    }
    if (--q->len == 0)
        q->head = 0;
}

/* ----------------------------------------------------------------------------- records */

static uint32_t checksum(const uint8_t *p, size_t n)
{
    return (uint32_t)sl_hash_bytes(p, n);
}

/* Starts a record in b (reset): magic, version, checksum placeholder. */
static int rec_begin(sl_buf *b, uint8_t magic)
{
    sl_buf_reset(b);
    uint8_t h[OB_HDR] = {magic, OB_VERSION, 0, 0, 0, 0};
    return sl_buf_put(b, h, sizeof(h));
}

static void rec_seal(sl_buf *b)
{
    uint32_t c = checksum(b->data + OB_HDR, b->len - OB_HDR);
    b->data[2] = (uint8_t)c;
    b->data[3] = (uint8_t)(c >> 8);
    b->data[4] = (uint8_t)(c >> 16);
    b->data[5] = (uint8_t)(c >> 24);
}

/* Checks the header of a stored record and positions r on its body. */
static bool rec_check(const void *v, size_t n, uint8_t magic, sl_reader *r)
{
    const uint8_t *p = v;
    if (n < OB_HDR || p[0] != magic || p[1] != OB_VERSION)
        return false;
    uint32_t c = (uint32_t)p[2] | (uint32_t)p[3] << 8 | (uint32_t)p[4] << 16 |
                 (uint32_t)p[5] << 24;
    if (c != checksum(p + OB_HDR, n - OB_HDR))
        return false;
    sl_reader_init(r, p + OB_HDR, n - OB_HDR);
    return true;
}

static void key_dest(uint8_t *k, uint64_t id)
{
    k[0] = 'D';
    sl_key_enc_u64(k + 1, id);
}

static void key_seq(uint8_t *k, char tag, uint64_t id, uint64_t seq)
{
    k[0] = (uint8_t)tag;
    sl_key_enc_u64(k + 1, id);
    sl_key_enc_u64(k + 9, seq);
}

static int enc_dest(sl_buf *b, const ob_dest *d, uint64_t next_seq)
{
    size_t l = strlen(d->url);
    int rc = rec_begin(b, MAG_DEST);
    if (rc == 0)
        rc = sl_buf_put_u64(b, next_seq);
    if (rc == 0)
        rc = sl_buf_put_u32(b, (uint32_t)l);
    if (rc == 0)
        rc = sl_buf_put(b, d->url, l);
    if (rc == 0)
        rec_seal(b);
    return rc;
}

static int enc_event(sl_buf *b, const sl_outbox_entry *e)
{
    size_t l = strlen(e->stream);
    int rc = rec_begin(b, MAG_EVENT);
    if (rc == 0)
        rc = sl_buf_put_u32(b, (uint32_t)l);
    if (rc == 0)
        rc = sl_buf_put(b, e->stream, l);
    if (rc == 0)
        rc = sl_buf_put(b, e->json, e->json_len);
    if (rc == 0)
        rec_seal(b);
    return rc;
}

/* Decodes an event record body: stream and json point into v. */
static bool dec_event(const void *v, size_t n, const char **stream, size_t *slen,
                      const char **json, size_t *jlen)
{
    sl_reader r;
    uint32_t l;
    if (!rec_check(v, n, MAG_EVENT, &r) || sl_reader_u32(&r, &l) != 0)
        return false;
    const uint8_t *s = sl_reader_take(&r, l);
    if (s == NULL || l == 0)
        return false;
    *stream = (const char *)s;
    *slen = l;
    *jlen = sl_reader_left(&r);
    *json = (const char *)r.p;
    return true;
}

/* Decodes a message record into msg (text copied). */
static int dec_msg(const void *v, size_t n, uint64_t first, sl_outbox_msg *msg)
{
    sl_reader r;
    uint32_t nev;
    uint64_t last, ts;
    uint8_t idlen;
    if (!rec_check(v, n, MAG_MSG, &r) || sl_reader_u64(&r, &last) != 0 ||
        sl_reader_u32(&r, &nev) != 0 || sl_reader_u64(&r, &ts) != 0 ||
        sl_reader_u8(&r, &idlen) != 0 || idlen >= sizeof(msg->message_id))
        return SL_ECORRUPT;
    const uint8_t *id = sl_reader_take(&r, idlen);
    if (id == NULL || last < first || nev == 0)
        return SL_ECORRUPT;
    msg->first_seq = first;
    msg->last_seq = last;
    msg->nevents = nev;
    msg->timestamp_ms = (int64_t)ts;
    memcpy(msg->message_id, id, idlen);
    msg->message_id[idlen] = '\0';
    sl_buf_reset(&msg->text);
    return sl_buf_put(&msg->text, r.p, sl_reader_left(&r));
}

/* ------------------------------------------------------------------------ destinations */

static ob_dest *dest_find(const sl_outbox *ob, const char *url)
{
    uint64_t id = sl_hash_bytes(url, strlen(url));
    for (size_t i = 0; i < ob->ndest; i++)
        if (ob->dests[i]->id == id && strcmp(ob->dests[i]->url, url) == 0)
            return ob->dests[i];
    return NULL;
}

static ob_dest *dest_find_id(const sl_outbox *ob, uint64_t id)
{
    for (size_t i = 0; i < ob->ndest; i++)
        if (ob->dests[i]->id == id)
            return ob->dests[i];
    return NULL;
}

static void dest_free(ob_dest *d)
{
    if (d == NULL)
        return;
    free(d->url);
    free(d->msgs.a);
    free(d->evs.a);
    free(d);
}

static int dest_add(sl_outbox *ob, const char *url, size_t len, uint64_t id, ob_dest **out)
{
    if (ob->ndest == ob->cap) {
        size_t nc = ob->cap ? ob->cap * 2 : 8;
        ob_dest **na = realloc(ob->dests, nc * sizeof(*na));
        if (na == NULL)
            return SL_ENOMEM;
        ob->dests = na;
        ob->cap = nc;
    }
    ob_dest *d = calloc(1, sizeof(*d));
    if (d == NULL || (d->url = malloc(len + 1)) == NULL) {
        free(d);
        return SL_ENOMEM;
    }
    memcpy(d->url, url, len);
    d->url[len] = '\0';
    d->id = id;
    d->next_seq = 1;
    d->msgs.esz = sizeof(ob_msg);
    d->evs.esz = sizeof(ob_ev);
    ob->dests[ob->ndest++] = d;
    *out = d;
    return 0;
}

/* ------------------------------------------------------------------------------- open */

static uint64_t make_incarnation(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed[4] = {(uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec, (uint64_t)getpid(),
                        (uint64_t)(uintptr_t)&ts};
    FILE *f = fopen("/dev/urandom", "rb");
    if (f != NULL) {
        if (fread(&seed[3], sizeof(seed[3]), 1, f) != 1)
            seed[3] ^= (uint64_t)clock();
        fclose(f);
    }
    uint64_t v = sl_hash_bytes(seed, sizeof(seed));
    return v ? v : 1;
}

static int corrupt(sl_error *err, const char *what, const void *key, size_t klen)
{
    const uint8_t *k = key;
    uint64_t id = klen >= 9 ? sl_key_dec_u64(k + 1) : 0;
    uint64_t seq = klen >= 17 ? sl_key_dec_u64(k + 9) : 0;
    return sl_error_set(err, SL_ECORRUPT, 0, 0,
                        "notification outbox: corrupt %s record (destination %016" PRIx64
                        ", seq %" PRIu64 ")",
                        what, id, seq);
}

static int load_record(sl_outbox *ob, const uint8_t *k, size_t kl, const void *v, size_t vl,
                       bool *have_inc, sl_error *err)
{
    sl_reader r;
    switch (k[0]) {
    case 'I': {
        uint64_t inc;
        if (kl != 1 || !rec_check(v, vl, MAG_INC, &r) || sl_reader_u64(&r, &inc) != 0)
            return corrupt(err, "incarnation", k, kl);
        ob->incarnation = inc;
        *have_inc = true;
        return 0;
    }
    case 'D': {
        uint64_t next;
        uint32_t ul;
        const uint8_t *u;
        if (kl != OB_KEY_DEST || !rec_check(v, vl, MAG_DEST, &r) ||
            sl_reader_u64(&r, &next) != 0 || sl_reader_u32(&r, &ul) != 0 || ul == 0 ||
            (u = sl_reader_take(&r, ul)) == NULL || memchr(u, '\0', ul) != NULL ||
            sl_hash_bytes(u, ul) != sl_key_dec_u64(k + 1) || next == 0)
            return corrupt(err, "destination", k, kl);
        ob_dest *d;
        int rc = dest_add(ob, (const char *)u, ul, sl_key_dec_u64(k + 1), &d);
        if (rc != 0)
            return sl_error_set(err, rc, 0, 0, "notification outbox: out of memory");
        d->next_seq = next;
        return 0;
    }
    case 'E':
    case 'M': {
        ob_dest *d = kl == OB_KEY_SEQ ? dest_find_id(ob, sl_key_dec_u64(k + 1)) : NULL;
        uint64_t seq = kl == OB_KEY_SEQ ? sl_key_dec_u64(k + 9) : 0;
        const char *what = k[0] == 'E' ? "event" : "message";
        if (d == NULL || seq == 0)
            return corrupt(err, what, k, kl);
        int rc;
        if (k[0] == 'E') {
            const char *s, *j;
            size_t sl, jl;
            if (!dec_event(v, vl, &s, &sl, &j, &jl))
                return corrupt(err, what, k, kl);
            ob_ev e = {seq, (uint32_t)vl};
            rc = q_push(&d->evs, &e);
            d->events++;
            if (seq >= d->next_seq)
                d->next_seq = seq + 1;
        } else {
            sl_outbox_msg m = {0};
            rc = dec_msg(v, vl, seq, &m);
            sl_buf_fini(&m.text);
            if (rc == SL_ECORRUPT)
                return corrupt(err, what, k, kl);
            ob_msg mm = {seq, m.last_seq, m.nevents, (uint32_t)vl};
            if (rc == 0)
                rc = q_push(&d->msgs, &mm);
            d->events += m.nevents;
            if (m.last_seq >= d->next_seq)
                d->next_seq = m.last_seq + 1;
        }
        if (rc != 0)
            return sl_error_set(err, rc, 0, 0, "notification outbox: out of memory");
        d->bytes += vl;
        return 0;
    }
    default: return corrupt(err, "unknown", k, kl);
    }
}

int sl_outbox_open(sl_outbox **out, sl_kv *kv, sl_kv_cf *cf, const sl_outbox_opts *o,
                   sl_error *err)
{
    sl_outbox *ob = calloc(1, sizeof(*ob));
    if (ob == NULL)
        return sl_error_set(err, SL_ENOMEM, 0, 0, "notification outbox: out of memory");
    ob->kv = kv;
    ob->cf = cf;
    if (o != NULL)
        ob->o = *o;
    if (ob->o.max_events == 0)
        ob->o.max_events = 100000;
    if (ob->o.max_bytes == 0)
        ob->o.max_bytes = 64u << 20;
    if (ob->o.max_message_bytes == 0)
        ob->o.max_message_bytes = 1u << 20;
    if (ob->o.max_message_bytes < 4096)
        ob->o.max_message_bytes = 4096;
    if (ob->o.max_message_events == 0)
        ob->o.max_message_events = 1000;

    sl_kv_iter *it = NULL;
    sl_kv_iter_options io = {.no_fill_cache = true};
    int rc = sl_kv_iter_open(&it, kv, cf, &io, err);
    if (rc != 0)
        goto fail;
    bool have_inc = false;
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        size_t kl, vl;
        const uint8_t *k = sl_kv_iter_key(it, &kl);
        const void *v = sl_kv_iter_value(it, &vl);
        if (kl == 0) {
            rc = corrupt(err, "empty-key", k, kl);
            goto fail;
        }
        rc = load_record(ob, k, kl, v, vl, &have_inc, err);
        if (rc != 0)
            goto fail;
    }
    rc = sl_kv_iter_status(it, err);
    if (rc != 0)
        goto fail;
    sl_kv_iter_close(it);
    it = NULL;
    if (!have_inc) {
        ob->incarnation = make_incarnation();
        rc = rec_begin(&ob->scratch, MAG_INC);
        if (rc == 0)
            rc = sl_buf_put_u64(&ob->scratch, ob->incarnation);
        if (rc == 0) {
            rec_seal(&ob->scratch);
            rc = sl_kv_put(kv, cf, "I", 1, ob->scratch.data, ob->scratch.len, err);
        }
        if (rc != 0)
            goto fail;
    }
    *out = ob;
    return 0;
fail:
    sl_kv_iter_close(it);
    sl_outbox_close(ob);
    return rc;
}

void sl_outbox_close(sl_outbox *ob)
{
    if (ob == NULL)
        return;
    for (size_t i = 0; i < ob->ndest; i++)
        dest_free(ob->dests[i]);
    free(ob->dests);
    sl_buf_fini(&ob->scratch);
    free(ob);
}

/* ----------------------------------------------------------------------------- append */

/* Picks the oldest units of d to drop so that extra events / bytes fit the bounds. */
static bool plan_drops(const sl_outbox *ob, ob_dest *d)
{
    uint64_t ev = d->events + d->t_events, by = d->bytes + d->t_bytes;
    size_t mi = 0, ei = 0;
    while (ev > ob->o.max_events || by > ob->o.max_bytes) {
        if (mi < d->msgs.len) {
            const ob_msg *m = q_at(&d->msgs, mi++);
            ev -= m->nevents;
            by -= m->bytes;
            d->t_drop_events += m->nevents;
            d->t_drop_bytes += m->bytes;
        } else if (ei < d->evs.len) {
            const ob_ev *e = q_at(&d->evs, ei++);
            ev -= 1;
            by -= e->bytes;
            d->t_drop_events += 1;
            d->t_drop_bytes += e->bytes;
        } else {
            return false; /* the new events alone do not fit */
        }
    }
    d->t_drop_msgs = mi;
    d->t_drop_evs = ei;
    return true;
}

int sl_outbox_append(sl_outbox *ob, const sl_outbox_entry *e, size_t n, sl_error *err)
{
    if (n == 0)
        return 0;
    ob_dest **touched = calloc(n, sizeof(*touched));
    sl_kv_batch *b = NULL;
    size_t nt = 0;
    int rc = touched ? sl_kv_batch_open(&b) : SL_ENOMEM;
    if (rc != 0) {
        rc = sl_error_set(err, rc, 0, 0, "notification outbox: out of memory");
        goto done;
    }
    /* Pass 1: validate, find or create destinations, size the new records. */
    for (size_t i = 0; i < n; i++) {
        if (e[i].url == NULL || e[i].url[0] == '\0' || e[i].stream == NULL ||
            e[i].stream[0] == '\0' || (e[i].json == NULL && e[i].json_len > 0)) {
            rc = sl_error_set(err, SL_EINVAL, 0, 0,
                              "notification outbox: entry without destination or stream");
            goto done;
        }
        size_t slen = strlen(e[i].stream);
        if (e[i].json_len + 6 * slen + OB_MSG_OVERHEAD > ob->o.max_message_bytes) {
            rc = sl_error_set(err, SL_ELIMIT, 0, 0,
                              "notification event of %zu bytes does not fit a message of at "
                              "most %zu bytes",
                              e[i].json_len, ob->o.max_message_bytes);
            goto done;
        }
        ob_dest *d = dest_find(ob, e[i].url);
        if (d == NULL) {
            size_t ul = strlen(e[i].url);
            uint64_t id = sl_hash_bytes(e[i].url, ul);
            if (dest_find_id(ob, id) != NULL) {
                rc = sl_error_set(err, SL_EEXIST, 0, 0,
                                  "notification outbox: destination hash collision for '%s'",
                                  e[i].url);
                goto done;
            }
            rc = dest_add(ob, e[i].url, ul, id, &d);
            if (rc != 0) {
                rc = sl_error_set(err, rc, 0, 0, "notification outbox: out of memory");
                goto done;
            }
        }
        if (!d->t_touched) {
            d->t_touched = true;
            d->t_events = d->t_bytes = 0;
            d->t_drop_msgs = d->t_drop_evs = d->t_drop_events = d->t_drop_bytes = 0;
            touched[nt++] = d;
        }
        d->t_events++;
        d->t_bytes += OB_HDR + 4 + slen + e[i].json_len;
    }
    /* Pass 2: bounds. */
    for (size_t t = 0; t < nt; t++) {
        ob_dest *d = touched[t];
        bool over = d->events + d->t_events > ob->o.max_events ||
                    d->bytes + d->t_bytes > ob->o.max_bytes;
        if (over && (ob->o.refuse_when_full || !plan_drops(ob, d))) {
            rc = sl_error_set(err, SL_ELIMIT, 0, 0,
                              "notification outbox for '%s' is full (%" PRIu64
                              " events, %" PRIu64 " bytes; at most %" PRIu64 " events, %" PRIu64
                              " bytes)",
                              d->url, d->events, d->bytes, ob->o.max_events, ob->o.max_bytes);
            goto done;
        }
    }
    /* Pass 3: the write batch - drops, events, destination records. */
    uint8_t k[OB_KEY_SEQ];
    for (size_t t = 0; t < nt && rc == 0; t++) {
        ob_dest *d = touched[t];
        for (size_t i = 0; i < d->t_drop_msgs && rc == 0; i++) {
            key_seq(k, 'M', d->id, ((ob_msg *)q_at(&d->msgs, i))->first);
            rc = sl_kv_batch_delete(b, ob->cf, k, sizeof(k));
        }
        for (size_t i = 0; i < d->t_drop_evs && rc == 0; i++) {
            key_seq(k, 'E', d->id, ((ob_ev *)q_at(&d->evs, i))->seq);
            rc = sl_kv_batch_delete(b, ob->cf, k, sizeof(k));
        }
        if (rc == 0)
            rc = enc_dest(&ob->scratch, d, d->next_seq + d->t_events);
        if (rc == 0) {
            key_dest(k, d->id);
            rc = sl_kv_batch_put(b, ob->cf, k, OB_KEY_DEST, ob->scratch.data, ob->scratch.len);
        }
        d->t_events = 0; /* reused below as the running sequence offset */
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        ob_dest *d = dest_find(ob, e[i].url);
        rc = enc_event(&ob->scratch, &e[i]);
        if (rc == 0) {
            key_seq(k, 'E', d->id, d->next_seq + d->t_events++);
            rc = sl_kv_batch_put(b, ob->cf, k, sizeof(k), ob->scratch.data, ob->scratch.len);
        }
    }
    if (rc != 0) {
        rc = sl_error_set(err, rc, 0, 0, "notification outbox: cannot build the write: %s",
                          sl_strerror(rc));
        goto done;
    }
    rc = sl_kv_write(ob->kv, b, ob->o.sync, err);
    if (rc != 0)
        goto done;
    /* Stored: now the index. Pushes below can only fail on memory; the store is right
     * and a reopen would rebuild the index, so report the error. */
    for (size_t t = 0; t < nt; t++) {
        ob_dest *d = touched[t];
        for (size_t i = 0; i < d->t_drop_msgs; i++)
            q_remove(&d->msgs, 0);
        for (size_t i = 0; i < d->t_drop_evs; i++)
            q_remove(&d->evs, 0);
        d->events -= d->t_drop_events;
        d->bytes -= d->t_drop_bytes;
        d->dropped += d->t_drop_events;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        ob_dest *d = dest_find(ob, e[i].url);
        ob_ev ev = {d->next_seq++, (uint32_t)(OB_HDR + 4 + strlen(e[i].stream) + e[i].json_len)};
        rc = q_push(&d->evs, &ev);
        d->events++;
        d->bytes += ev.bytes;
        d->appended++;
    }
    if (rc != 0)
        rc = sl_error_set(err, rc, 0, 0, "notification outbox: out of memory after append");
done:
    for (size_t t = 0; t < nt; t++)
        touched[t]->t_touched = false;
    free(touched);
    sl_kv_batch_close(b);
    return rc;
}

/* ------------------------------------------------------------------------ next and ack */

static int read_msg(sl_outbox *ob, ob_dest *d, uint64_t first, sl_outbox_msg *msg, sl_error *err)
{
    uint8_t k[OB_KEY_SEQ];
    key_seq(k, 'M', d->id, first);
    int rc = sl_kv_get(ob->kv, ob->cf, NULL, k, sizeof(k), &ob->scratch, err);
    if (rc == SL_ENOTFOUND)
        return sl_error_set(err, SL_ECORRUPT, 0, 0,
                            "notification outbox: message %" PRIu64 " of '%s' is missing",
                            first, d->url);
    if (rc != 0)
        return rc;
    rc = dec_msg(ob->scratch.data, ob->scratch.len, first, msg);
    if (rc == SL_ECORRUPT)
        return corrupt(err, "message", k, sizeof(k));
    return rc;
}

/* Forms the next message from the oldest pending events of d. */
static int form_msg(sl_outbox *ob, ob_dest *d, int64_t now_ms, sl_outbox_msg *msg, sl_error *err)
{
    const ob_ev *e0 = q_at(&d->evs, 0);
    uint64_t first = e0->seq;
    uint8_t lo[OB_KEY_SEQ], hi[OB_KEY_SEQ];
    key_seq(lo, 'E', d->id, first);
    key_seq(hi, 'E', d->id, UINT64_MAX);
    sl_kv_iter_options io = {.lower = lo, .lower_len = sizeof(lo), .upper = hi,
                             .upper_len = sizeof(hi)};
    sl_kv_iter *it = NULL;
    sl_buf pool = {0};
    sl_notify_json_item *items = NULL;
    size_t *offs = NULL;
    sl_kv_batch *b = NULL;
    size_t cnt = 0, cap = 0, est = OB_MSG_OVERHEAD;
    uint64_t last = first;
    int rc = sl_kv_iter_open(&it, ob->kv, ob->cf, &io, err);
    if (rc != 0)
        goto fail;
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it) && cnt < d->evs.len &&
                               cnt < ob->o.max_message_events;
         sl_kv_iter_next(it)) {
        size_t kl, vl, sl, jl;
        const uint8_t *k = sl_kv_iter_key(it, &kl);
        const void *v = sl_kv_iter_value(it, &vl);
        const char *s, *j;
        const ob_ev *want = q_at(&d->evs, cnt);
        if (kl != OB_KEY_SEQ || sl_key_dec_u64(k + 9) != want->seq || !dec_event(v, vl, &s, &sl, &j, &jl)) {
            rc = corrupt(err, "event", k, kl);
            goto fail;
        }
        /* An upper bound of what the event adds: its text, a comma, and its stream's
         * wrapper with the name escaped (at most 6 bytes per byte). */
        size_t add = jl + 6 * sl + 32;
        if (cnt > 0 && est + add > ob->o.max_message_bytes)
            break;
        est += add;
        if (cnt == cap) {
            cap = cap ? cap * 2 : 64;
            size_t *no = realloc(offs, cap * 4 * sizeof(size_t));
            if (no == NULL) {
                rc = SL_ENOMEM;
                goto nomem;
            }
            offs = no;
        }
        /* Offsets, not pointers: the pool moves as it grows. */
        offs[cnt * 4 + 0] = pool.len;
        offs[cnt * 4 + 1] = sl;
        rc = sl_buf_put(&pool, s, sl);
        offs[cnt * 4 + 2] = pool.len;
        offs[cnt * 4 + 3] = jl;
        if (rc == 0)
            rc = sl_buf_put(&pool, j, jl);
        if (rc != 0)
            goto nomem;
        last = want->seq;
        cnt++;
    }
    rc = sl_kv_iter_status(it, err);
    if (rc != 0)
        goto fail;
    if (cnt == 0) {
        rc = sl_error_set(err, SL_ECORRUPT, 0, 0,
                          "notification outbox: pending events of '%s' are missing", d->url);
        goto fail;
    }
    items = calloc(cnt, sizeof(*items));
    if (items == NULL) {
        rc = SL_ENOMEM;
        goto nomem;
    }
    for (size_t i = 0; i < cnt; i++) {
        items[i].stream = (const char *)pool.data + offs[i * 4 + 0];
        items[i].stream_len = offs[i * 4 + 1];
        items[i].event = (const char *)pool.data + offs[i * 4 + 2];
        items[i].event_len = offs[i * 4 + 3];
    }
    snprintf(msg->message_id, sizeof(msg->message_id), "%016" PRIx64 "-%016" PRIx64 "-%" PRIu64,
             ob->incarnation, d->id, first);
    msg->first_seq = first;
    msg->last_seq = last;
    msg->nevents = (uint32_t)cnt;
    msg->timestamp_ms = now_ms;
    sl_buf_reset(&msg->text);
    rc = sl_notify_json_message(&msg->text, msg->message_id, now_ms, items, cnt);
    /* The stored record: header, last, count, timestamp, id, text. */
    size_t idlen = strlen(msg->message_id);
    if (rc == 0)
        rc = rec_begin(&ob->scratch, MAG_MSG);
    if (rc == 0)
        rc = sl_buf_put_u64(&ob->scratch, last);
    if (rc == 0)
        rc = sl_buf_put_u32(&ob->scratch, (uint32_t)cnt);
    if (rc == 0)
        rc = sl_buf_put_u64(&ob->scratch, (uint64_t)now_ms);
    if (rc == 0)
        rc = sl_buf_put_u8(&ob->scratch, (uint8_t)idlen);
    if (rc == 0)
        rc = sl_buf_put(&ob->scratch, msg->message_id, idlen);
    if (rc == 0)
        rc = sl_buf_put(&ob->scratch, msg->text.data, msg->text.len);
    if (rc == 0)
        rc = sl_kv_batch_open(&b);
    if (rc != 0)
        goto nomem;
    rec_seal(&ob->scratch);
    uint8_t mk[OB_KEY_SEQ], ek[OB_KEY_SEQ];
    key_seq(mk, 'M', d->id, first);
    rc = sl_kv_batch_put(b, ob->cf, mk, sizeof(mk), ob->scratch.data, ob->scratch.len);
    /* The message's events go, one point delete each: a range delete per message left a
     * range tombstone per message in the memtable, and every iterator opened after (one
     * per message formed) sorted them all again - the snode spent most of a long
     * notification load there. */
    for (size_t i = 0; rc == 0 && i < cnt; i++) {
        key_seq(ek, 'E', d->id, ((const ob_ev *)q_at(&d->evs, i))->seq);
        rc = sl_kv_batch_delete(b, ob->cf, ek, sizeof(ek));
    }
    if (rc != 0) {
        rc = sl_error_set(err, rc, 0, 0, "notification outbox: message of %zu bytes: %s",
                          ob->scratch.len, sl_strerror(rc));
        goto fail;
    }
    sl_kv_iter_close(it);
    it = NULL;
    rc = sl_kv_write(ob->kv, b, ob->o.sync, err);
    if (rc != 0)
        goto fail;
    uint64_t freed = 0;
    for (size_t i = 0; i < cnt; i++) {
        freed += ((ob_ev *)q_at(&d->evs, 0))->bytes;
        q_remove(&d->evs, 0);
    }
    ob_msg m = {first, last, (uint32_t)cnt, (uint32_t)ob->scratch.len};
    d->bytes = d->bytes - freed + m.bytes;
    rc = q_push(&d->msgs, &m);
    if (rc != 0)
        goto nomem;
    goto out;
nomem:
    rc = sl_error_set(err, rc, 0, 0, "notification outbox: out of memory");
fail:
out:
    sl_kv_iter_close(it);
    sl_kv_batch_close(b);
    sl_buf_fini(&pool);
    free(items);
    free(offs);
    return rc;
}

int sl_outbox_next(sl_outbox *ob, const char *url, uint64_t after, int64_t now_ms,
                   sl_outbox_msg *msg, sl_error *err)
{
    ob_dest *d = dest_find(ob, url);
    if (d == NULL)
        return SL_ENOTFOUND;
    for (size_t i = 0; i < d->msgs.len; i++) {
        const ob_msg *m = q_at(&d->msgs, i);
        if (m->first > after)
            return read_msg(ob, d, m->first, msg, err);
    }
    if (d->evs.len == 0)
        return SL_ENOTFOUND;
    return form_msg(ob, d, now_ms, msg, err);
}

int sl_outbox_ack(sl_outbox *ob, const char *url, uint64_t first_seq, sl_error *err)
{
    ob_dest *d = dest_find(ob, url);
    if (d == NULL)
        return SL_ENOTFOUND;
    for (size_t i = 0; i < d->msgs.len; i++) {
        const ob_msg *m = q_at(&d->msgs, i);
        if (m->first != first_seq)
            continue;
        uint8_t k[OB_KEY_SEQ];
        key_seq(k, 'M', d->id, first_seq);
        int rc = sl_kv_delete(ob->kv, ob->cf, k, sizeof(k), err);
        if (rc != 0)
            return rc;
        d->events -= m->nevents;
        d->bytes -= m->bytes;
        d->acked++;
        q_remove(&d->msgs, i);
        return 0;
    }
    return SL_ENOTFOUND;
}

/* ------------------------------------------------------------------------------ stats */

static void add_stats(const ob_dest *d, sl_outbox_stats *st)
{
    st->events += d->events;
    st->bytes += d->bytes;
    st->messages += d->msgs.len;
    st->pending += d->evs.len;
    st->dropped += d->dropped;
    st->appended += d->appended;
    st->acked += d->acked;
}

void sl_outbox_dest_stats(const sl_outbox *ob, const char *url, sl_outbox_stats *st)
{
    memset(st, 0, sizeof(*st));
    const ob_dest *d = dest_find(ob, url);
    if (d != NULL)
        add_stats(d, st);
}

void sl_outbox_stats_total(const sl_outbox *ob, sl_outbox_stats *st)
{
    memset(st, 0, sizeof(*st));
    for (size_t i = 0; i < ob->ndest; i++)
        add_stats(ob->dests[i], st);
}

size_t sl_outbox_ndest(const sl_outbox *ob)
{
    return ob->ndest;
}

const char *sl_outbox_dest_url(const sl_outbox *ob, size_t i)
{
    return i < ob->ndest ? ob->dests[i]->url : NULL;
}

bool sl_outbox_has_data(const sl_outbox *ob, const char *url)
{
    const ob_dest *d = dest_find(ob, url);
    return d != NULL && (d->msgs.len > 0 || d->evs.len > 0);
}
