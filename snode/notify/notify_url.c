/*
 * notify_url.c - the strict ws:// URL parser of notify_url.h. It walks the bytes once,
 * never reads past n (the input need not be NUL terminated) and writes only inside the
 * fixed buffers of sl_notify_url.
 */
#include "snode/notify/notify_url.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Characters allowed in a path or query besides %XX (RFC 3986 pchar, '/', '?'). */
static bool is_target_char(char c)
{
    if (is_alpha(c) || is_digit(c))
        return true;
    return strchr("-._~!$&'()*+,;=:@/?", c) != NULL && c != '\0';
}

static bool prefix_ci(const char *s, size_t n, const char *p)
{
    size_t l = strlen(p);
    if (n < l)
        return false;
    for (size_t i = 0; i < l; i++)
        if (lower(s[i]) != p[i])
            return false;
    return true;
}

/* Validates a DNS name or dotted IPv4 address (already lower-cased). */
static int check_hostname(const char *h, size_t n, sl_error *err)
{
    size_t label = 0;
    for (size_t i = 0; i < n; i++) {
        char c = h[i];
        if (c == '.') {
            if (label == 0)
                return sl_error_set(err, SL_EINVAL, 0, 0,
                                    "bad notification URL: empty label in host '%.*s'",
                                    (int)n, h);
            label = 0;
            continue;
        }
        if (!(is_alpha(c) || is_digit(c) || c == '-' || c == '_'))
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "bad notification URL: character '%c' not allowed in host",
                                c);
        if (++label > 63)
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "bad notification URL: host label longer than 63 characters");
    }
    if (label == 0)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "bad notification URL: host '%.*s' ends with a dot", (int)n, h);
    return 0;
}

int sl_notify_url_parse(const char *s, size_t n, sl_notify_url *out, sl_error *err)
{
    memset(out, 0, sizeof(*out));
    if (s == NULL || n == 0)
        return sl_error_set(err, SL_EINVAL, 0, 0, "bad notification URL: empty");
    if (n > SL_NOTIFY_URL_MAX)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "bad notification URL: longer than %d bytes", SL_NOTIFY_URL_MAX);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 0x20 || c >= 0x7f)
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "bad notification URL: %s at offset %zu",
                                c == ' ' ? "space" : c < 0x20 || c == 0x7f
                                                         ? "control character"
                                                         : "non-ASCII byte",
                                i);
    }
    size_t i;
    if (prefix_ci(s, n, "ws://")) {
        i = 5;
    } else if (prefix_ci(s, n, "wss://")) {
        return sl_error_set(err, SL_EUNSUPPORTED, 0, 0,
                            "notification URL '%.*s': wss:// (TLS) is not supported yet; "
                            "use ws://",
                            (int)(n > 200 ? 200 : n), s);
    } else {
        size_t k = 0;
        while (k < n && k < 16 && (is_alpha(s[k]) || is_digit(s[k]) || s[k] == '+' ||
                                   s[k] == '-' || s[k] == '.'))
            k++;
        if (k > 0 && k + 2 < n && s[k] == ':' && s[k + 1] == '/' && s[k + 2] == '/')
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "bad notification URL: scheme '%.*s' is not supported; "
                                "only ws:// is",
                                (int)k, s);
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "bad notification URL: must start with ws://");
    }
    /* Authority: up to the first '/', '?' or '#'. */
    size_t a0 = i;
    while (i < n && s[i] != '/' && s[i] != '?' && s[i] != '#')
        i++;
    const char *auth = s + a0;
    size_t alen = i - a0;
    if (memchr(auth, '@', alen) != NULL)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "bad notification URL: user information (user@host) is not "
                            "allowed");
    if (alen == 0)
        return sl_error_set(err, SL_EINVAL, 0, 0, "bad notification URL: no host");
    size_t hlen, colon;
    if (auth[0] == '[') {
        const char *rb = memchr(auth, ']', alen);
        if (rb == NULL)
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "bad notification URL: unterminated IPv6 address");
        hlen = (size_t)(rb - auth) - 1;
        if (hlen == 0 || hlen > 45)
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "bad notification URL: bad IPv6 address");
        memcpy(out->host, auth + 1, hlen);
        out->host[hlen] = '\0';
        unsigned char a6[16];
        if (inet_pton(AF_INET6, out->host, a6) != 1)
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "bad notification URL: bad IPv6 address '%s'", out->host);
        for (size_t k = 0; k < hlen; k++)
            out->host[k] = lower(out->host[k]);
        out->ipv6 = true;
        colon = hlen + 2;
        if (colon < alen && auth[colon] != ':')
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "bad notification URL: expected ':' after the IPv6 address");
    } else {
        const char *c = memchr(auth, ':', alen);
        hlen = c ? (size_t)(c - auth) : alen;
        colon = hlen;
        if (hlen == 0)
            return sl_error_set(err, SL_EINVAL, 0, 0, "bad notification URL: no host");
        if (hlen > SL_NOTIFY_HOST_MAX)
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "bad notification URL: host longer than %d characters",
                                SL_NOTIFY_HOST_MAX);
        for (size_t k = 0; k < hlen; k++)
            out->host[k] = lower(auth[k]);
        out->host[hlen] = '\0';
        int rc = check_hostname(out->host, hlen, err);
        if (rc != 0)
            return rc;
    }
    if (colon >= alen)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "bad notification URL: the port is missing (e.g. ws://%s:8080)",
                            out->ipv6 ? "[::1]" : out->host);
    size_t p0 = colon + 1;
    if (p0 == alen)
        return sl_error_set(err, SL_EINVAL, 0, 0, "bad notification URL: empty port");
    uint32_t port = 0;
    for (size_t k = p0; k < alen; k++) {
        if (!is_digit(auth[k]))
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "bad notification URL: port must be a decimal number");
        port = port * 10 + (uint32_t)(auth[k] - '0');
        if (port > 65535)
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "bad notification URL: port out of range 1..65535");
    }
    if (port == 0)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "bad notification URL: port out of range 1..65535");
    out->port = (uint16_t)port;
    /* Request target: path (default "/") and query. */
    size_t t = 0;
    if (i == n || s[i] != '/')
        out->path[t++] = '/';
    bool in_query = false;
    out->path_len = t;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '#')
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "bad notification URL: fragments (#...) are not allowed");
        if (c == '%') {
            if (i + 2 >= n || !is_hex(s[i + 1]) || !is_hex(s[i + 2]))
                return sl_error_set(err, SL_EINVAL, 0, 0,
                                    "bad notification URL: bad %%-escape at offset %zu", i);
        } else if (!is_target_char(c)) {
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "bad notification URL: character '%c' not allowed in the %s",
                                c, in_query ? "query" : "path");
        }
        if (c == '?' && !in_query) {
            in_query = true;
            out->path_len = t;
        }
        if (t >= SL_NOTIFY_URL_MAX)
            return sl_error_set(err, SL_EINVAL, 0, 0, "bad notification URL: too long");
        out->path[t++] = c;
    }
    if (!in_query)
        out->path_len = t;
    out->path[t] = '\0';
    return 0;
}

int sl_notify_url_format(const sl_notify_url *u, char *buf, size_t bufn)
{
    int n = snprintf(buf, bufn, "%s://%s%s%s:%u%s", u->tls ? "wss" : "ws", u->ipv6 ? "[" : "",
                     u->host, u->ipv6 ? "]" : "", (unsigned)u->port, u->path);
    if (n < 0 || (size_t)n >= bufn)
        return SL_ELIMIT;
    return n;
}
