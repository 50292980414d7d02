/*
 * backend.h - what the sluice shell talks to: something that executes SQL and hands back
 * results.
 *
 * The shell does not care whether statements run in this process or on a cluster, so it
 * sees one small interface: open a backend, execute one statement at a time, ask for a
 * status summary, close. A backend is a struct that begins with an sl_backend header
 * pointing at its table of operations (the nng/libuv way of doing a vtable); the shell only
 * calls the functions below. There are two backends: the embedded in-memory store
 * (backend_embedded.c) and the network backend over libsluice (backend_remote.c).
 *
 * Results are sl_result (common/exec/memstore.h): column names, a block of rows whose
 * columns carry the types, the timestamp precision, and the affected-row count of writes.
 * Errors come back as a negative sl_err code plus an sl_error whose line/col (1-based) are
 * relative to the statement text that was passed in.
 *
 * A backend is used by one thread at a time.
 */
#ifndef SL_BACKEND_H
#define SL_BACKEND_H

#include "common/exec/memstore.h"
#include "common/util/buf.h"
#include "common/util/error.h"

typedef struct sl_backend sl_backend;

/* The operations of one kind of backend; a const table per kind. */
typedef struct sl_backend_ops {
    /* Short name for messages ("embedded"). */
    const char *name;
    /* See sl_backend_exec. */
    int (*exec)(sl_backend *b, const char *sql, sl_result *res, sl_error *err);
    /* See sl_backend_status. */
    int (*status)(sl_backend *b, sl_buf *out, sl_error *err);
    /* Frees the backend (never called with NULL). */
    void (*close)(sl_backend *b);
} sl_backend_ops;

/*
 * The header every backend struct starts with. Backends embed it as their first member;
 * nothing but the dispatch functions below reads it.
 */
struct sl_backend {
    const sl_backend_ops *ops; /* the backend's operations */
};

/*
 * Opens the embedded backend: an empty in-memory store private to this process, whose
 * contents last until sl_backend_close. Returns 0 and *out (free with sl_backend_close),
 * or SL_ENOMEM.
 */
int sl_backend_embedded_open(sl_backend **out, sl_error *err);

/*
 * Opens the network backend: a libsluice connection (client/lib/sluice.h) to the mnode at
 * host:port (borrowed). Returns 0 and *out (free with sl_backend_close), or a negative
 * sl_err with "cannot connect to host:port: reason" in *err when the mnode does not answer.
 */
int sl_backend_remote_open(const char *host, int port, sl_backend **out, sl_error *err);

/*
 * Executes one SQL statement (sql is borrowed; NUL-terminated; a trailing ';' is
 * optional). On success returns 0 and fills *res, which the caller frees with
 * sl_result_fini: rows for a query (res->ncols > 0, res->affected -1), the affected row
 * count for a write (ncols 0, affected >= 0), or neither for DDL and USE (ncols 0,
 * affected -1). On failure returns a negative sl_err, leaves *res empty (still safe to
 * sl_result_fini) and describes the problem in *err, with the position in sql when there
 * is one. A failing statement changes nothing.
 */
static inline int sl_backend_exec(sl_backend *b, const char *sql, sl_result *res, sl_error *err)
{
    return b->ops->exec(b, sql, res, err);
}

/*
 * Appends a one-line summary of what the backend serves to out, without a trailing
 * newline ("embedded store: 2 databases, 5 tables"). Returns 0 or a negative sl_err with
 * a message in *err.
 */
static inline int sl_backend_status(sl_backend *b, sl_buf *out, sl_error *err)
{
    return b->ops->status(b, out, err);
}

/* The backend's short name ("embedded"). */
static inline const char *sl_backend_name(const sl_backend *b)
{
    return b->ops->name;
}

/* Closes the backend and frees everything it holds (NULL-safe). */
static inline void sl_backend_close(sl_backend *b)
{
    if (b != NULL)
        b->ops->close(b);
}

#endif
