/*
 * keymap.c - open-addressing map from byte strings to dense ids; see keymap.h.
 */
#include "keymap.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "error.h"

struct sl_keymap_slot {
    uint64_t hash;
    uint32_t id; /* UINT32_MAX: empty */
};

uint64_t sl_hash_bytes(const void *p, size_t n)
{
    return XXH3_64bits(p, n);
}

static sl_keymap_slot *slots_new(size_t cap)
{
    sl_keymap_slot *s = malloc(sizeof(*s) * cap);
    if (s != NULL)
        for (size_t i = 0; i < cap; i++)
            s[i].id = UINT32_MAX;
    return s;
}

int sl_keymap_init(sl_keymap *m)
{
    memset(m, 0, sizeof(*m));
    m->km_cap = 64;
    m->km_slots = slots_new(m->km_cap);
    m->km_offs_cap = 64;
    m->km_offs = malloc(sizeof(size_t) * m->km_offs_cap);
    if (m->km_slots == NULL || m->km_offs == NULL) {
        sl_keymap_fini(m);
        return SL_ENOMEM;
    }
    m->km_offs[0] = 0;
    return 0;
}

void sl_keymap_fini(sl_keymap *m)
{
    if (m == NULL)
        return;
    free(m->km_slots);
    free(m->km_offs);
    sl_buf_fini(&m->km_bytes);
    memset(m, 0, sizeof(*m));
}

const uint8_t *sl_keymap_key(const sl_keymap *m, uint32_t id, size_t *len)
{
    *len = m->km_offs[id + 1] - m->km_offs[id];
    /* Empty keys (no key columns) may leave the byte buffer unallocated. */
    return m->km_bytes.data != NULL ? m->km_bytes.data + m->km_offs[id] : (const uint8_t *)"";
}

static int grow(sl_keymap *m)
{
    size_t ncap = m->km_cap * 2;
    sl_keymap_slot *ns = slots_new(ncap);
    if (ns == NULL)
        return SL_ENOMEM;
    for (size_t i = 0; i < m->km_cap; i++) {
        if (m->km_slots[i].id == UINT32_MAX)
            continue;
        size_t q = m->km_slots[i].hash & (ncap - 1);
        while (ns[q].id != UINT32_MAX)
            q = (q + 1) & (ncap - 1);
        ns[q] = m->km_slots[i];
    }
    free(m->km_slots);
    m->km_slots = ns;
    m->km_cap = ncap;
    return 0;
}

int sl_keymap_get_or_add(sl_keymap *m, const void *key, size_t len, uint32_t *id, bool *added)
{
    uint64_t h = XXH3_64bits(key, len);
    size_t mask = m->km_cap - 1;
    size_t q = h & mask;
    for (;;) {
        sl_keymap_slot *s = &m->km_slots[q];
        if (s->id == UINT32_MAX)
            break;
        if (s->hash == h) {
            size_t klen;
            const uint8_t *k = sl_keymap_key(m, s->id, &klen);
            if (klen == len && (len == 0 || memcmp(k, key, len) == 0)) {
                *id = s->id;
                if (added)
                    *added = false;
                return 0;
            }
        }
        q = (q + 1) & mask;
    }
    if (m->km_count + 2 > m->km_offs_cap) {
        size_t *no = realloc(m->km_offs, sizeof(size_t) * m->km_offs_cap * 2);
        if (no == NULL)
            return SL_ENOMEM;
        m->km_offs = no;
        m->km_offs_cap *= 2;
    }
    if (sl_buf_put(&m->km_bytes, key, len) != 0)
        return SL_ENOMEM;
    uint32_t nid = m->km_count++;
    m->km_offs[nid + 1] = m->km_bytes.len;
    m->km_slots[q].hash = h;
    m->km_slots[q].id = nid;
    *id = nid;
    if (added)
        *added = true;
    if ((size_t)m->km_count * 2 > m->km_cap && grow(m) != 0) {
        /* The key is stored; only the table could not grow. Probing still works while
         * one empty slot remains, so refuse further growth failures later. */
        if ((size_t)m->km_count + 1 >= m->km_cap)
            return SL_ENOMEM;
    }
    return 0;
}
