/*
 * arena.h - a bump allocator for objects that die together.
 *
 * The SQL parser allocates every AST node, string and list of a statement in one arena, so
 * a parse result is freed with one call and no node needs its own destructor. Memory is
 * taken from the system in chunks that grow geometrically; nothing is freed before
 * sl_arena_fini().
 */
#ifndef SL_ARENA_H
#define SL_ARENA_H

#include <stddef.h>

typedef struct sl_arena_chunk sl_arena_chunk;

/* An arena. Callers embed it; zero-initialised memory is a valid empty arena. */
typedef struct sl_arena {
    sl_arena_chunk *ar_head; /* newest chunk first */
    size_t ar_total;         /* bytes obtained from malloc, for accounting */
} sl_arena;

/* Initialises an empty arena. */
void sl_arena_init(sl_arena *a);

/* Frees every chunk of the arena (NULL-safe); the arena is empty afterwards. */
void sl_arena_fini(sl_arena *a);

/* Returns n bytes aligned to 16, zero-filled, or NULL when memory is exhausted. */
void *sl_arena_alloc(sl_arena *a, size_t n);

/* Copies n bytes of s into the arena and NUL-terminates them; NULL on exhaustion. */
char *sl_arena_strndup(sl_arena *a, const char *s, size_t n);

/* Copies the NUL-terminated string s into the arena; NULL on exhaustion. */
char *sl_arena_strdup(sl_arena *a, const char *s);

#endif
