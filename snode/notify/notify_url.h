/*
 * notify_url.h - parsing of NOTIFY('url') destinations.
 *
 * The spec: "Each URL must include the protocol, IP or domain, and port; it may also
 * include a path and query parameters ... Currently, only the WebSocket protocol is
 * supported", e.g. ws://localhost:8080/notify?key=foo. The parser is strict so that a bad
 * URL fails at CREATE STREAM with a message naming the problem rather than as endless
 * reconnects later: scheme ws:// (wss:// is recognised and refused as not supported yet),
 * a host that is a DNS name, an IPv4 address or a bracketed IPv6 address, a mandatory
 * decimal port 1..65535, then an optional path starting with '/' and an optional
 * ?query, both made of printable ASCII with well-formed %XX escapes. User info
 * (user@host), fragments (#...), spaces, control characters and non-ASCII bytes are
 * refused. Pure functions; safe on untrusted input (fuzzed by tests/fuzz/fuzz_notify_url).
 */
#ifndef SL_NOTIFY_URL_H
#define SL_NOTIFY_URL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/util/error.h"

/* Longest URL accepted, in bytes. */
#define SL_NOTIFY_URL_MAX 2048
/* Longest host name (DNS limit; an IPv6 literal is shorter). */
#define SL_NOTIFY_HOST_MAX 253

/* A parsed URL. Plain data; callers embed it. */
typedef struct sl_notify_url {
    bool tls;                            /* wss:// (never set today: refused) */
    bool ipv6;                           /* host was a bracketed IPv6 literal */
    char host[SL_NOTIFY_HOST_MAX + 1];   /* without brackets, NUL terminated */
    uint16_t port;                       /* 1..65535 */
    char path[SL_NOTIFY_URL_MAX + 1];    /* request target: path (at least "/") and
                                          * "?query" when there is one */
    size_t path_len;                     /* bytes of the path part (before '?') */
} sl_notify_url;

/*
 * Parses the n bytes of s into *out. Returns 0, or SL_EINVAL with a message naming the
 * problem (missing or unknown scheme, empty or bad host, missing or bad port, bad
 * character, fragment, user info, too long), or SL_EUNSUPPORTED for wss://. *out is
 * unspecified on error.
 */
int sl_notify_url_parse(const char *s, size_t n, sl_notify_url *out, sl_error *err);

/*
 * Writes the canonical form of u ("ws://host:port/path?query", the scheme and host lower
 * case, brackets around IPv6) to buf of size bufn, NUL terminated. Returns the length, or
 * SL_ELIMIT when buf is too small.
 */
int sl_notify_url_format(const sl_notify_url *u, char *buf, size_t bufn);

#endif
