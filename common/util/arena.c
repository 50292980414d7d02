/*
 * arena.c - bump allocation in growing chunks; see arena.h.
 */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct sl_arena_chunk {
    sl_arena_chunk *next; /* older chunk */
    size_t used;          /* bytes handed out from data */
    size_t size;          /* bytes in data */
    _Alignas(16) unsigned char data[];
};

#define ARENA_FIRST_CHUNK 4096
#define ARENA_MAX_CHUNK (1u << 20)

void sl_arena_init(sl_arena *a)
{
    a->ar_head = NULL;
    a->ar_total = 0;
}

void sl_arena_fini(sl_arena *a)
{
    if (a == NULL)
        return;
    sl_arena_chunk *c = a->ar_head;
    while (c != NULL) {
        sl_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->ar_head = NULL;
    a->ar_total = 0;
}

void *sl_arena_alloc(sl_arena *a, size_t n)
{
    size_t need = (n + 15) & ~(size_t)15;
    if (need < n)
        return NULL;
    sl_arena_chunk *c = a->ar_head;
    if (c == NULL || c->size - c->used < need) {
        /* Grow geometrically up to a cap; a large request gets a chunk of its own. */
        size_t size = c == NULL ? ARENA_FIRST_CHUNK : c->size * 2;
        if (size > ARENA_MAX_CHUNK)
            size = ARENA_MAX_CHUNK;
        if (size < need)
            size = need;
        if (size > SIZE_MAX - sizeof(sl_arena_chunk))
            return NULL;
        sl_arena_chunk *nc = malloc(sizeof(sl_arena_chunk) + size);
        if (nc == NULL)
            return NULL;
        nc->used = 0;
        nc->size = size;
        if (c != NULL && size == need && c->size - c->used >= 256) {
            /* Keep filling the current chunk: put the dedicated one behind it. */
            nc->next = c->next;
            c->next = nc;
            nc->used = need;
            a->ar_total += size;
            memset(nc->data, 0, need);
            return nc->data;
        }
        nc->next = c;
        a->ar_head = nc;
        a->ar_total += size;
        c = nc;
    }
    void *p = c->data + c->used;
    c->used += need;
    memset(p, 0, need);
    return p;
}

char *sl_arena_strndup(sl_arena *a, const char *s, size_t n)
{
    char *p = sl_arena_alloc(a, n + 1);
    if (p == NULL)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *sl_arena_strdup(sl_arena *a, const char *s)
{
    return sl_arena_strndup(a, s, strlen(s));
}
