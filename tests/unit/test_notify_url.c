/*
 * test_notify_url.c - the NOTIFY URL parser of snode/notify: the spec's examples and other
 * good URLs with their exact parts, and bad URLs refused with the right code and a message
 * naming the problem.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "snode/notify/notifier.h"
#include "snode/notify/notify_url.h"

static void ok(const char *s, const char *host, unsigned port, const char *path,
               size_t path_len, const char *canon)
{
    sl_notify_url u;
    sl_error err = {0};
    int rc = sl_notify_url_parse(s, strlen(s), &u, &err);
    if (rc != 0)
        fail_msg("'%s' refused: %s", s, err.msg);
    assert_string_equal(u.host, host);
    assert_int_equal(u.port, port);
    assert_string_equal(u.path, path);
    assert_int_equal(u.path_len, path_len);
    assert_false(u.tls);
    char buf[SL_NOTIFY_URL_MAX + 64];
    int n = sl_notify_url_format(&u, buf, sizeof(buf));
    assert_true(n > 0);
    assert_string_equal(buf, canon);
    /* The canonical form parses to the same thing. */
    sl_notify_url v;
    assert_int_equal(sl_notify_url_parse(buf, (size_t)n, &v, NULL), 0);
    assert_memory_equal(&u, &v, sizeof(u));
}

static void test_accept(void **state)
{
    /* The spec's examples. */
    ok("ws://localhost:8080", "localhost", 8080, "/", 1, "ws://localhost:8080/");
    ok("ws://localhost:8080/notify", "localhost", 8080, "/notify", 7,
       "ws://localhost:8080/notify");
    ok("ws://localhost:8080/notify?key=foo", "localhost", 8080, "/notify?key=foo", 7,
       "ws://localhost:8080/notify?key=foo");
    /* Case of scheme and host is folded; the path's is kept. */
    ok("WS://Example.COM:1/A/b", "example.com", 1, "/A/b", 4, "ws://example.com:1/A/b");
    ok("ws://127.0.0.1:65535?x=1&y=%2F", "127.0.0.1", 65535, "/?x=1&y=%2F", 1,
       "ws://127.0.0.1:65535/?x=1&y=%2F");
    ok("ws://[::1]:6041/ws", "::1", 6041, "/ws", 3, "ws://[::1]:6041/ws");
    ok("ws://[FE80::1:2]:80/", "fe80::1:2", 80, "/", 1, "ws://[fe80::1:2]:80/");
    ok("ws://my-host_1.local:00080/a/../b;p=1?q=a:b@c/d?e", "my-host_1.local", 80,
       "/a/../b;p=1?q=a:b@c/d?e", 11, "ws://my-host_1.local:80/a/../b;p=1?q=a:b@c/d?e");
    /* Not NUL terminated: only n bytes are read. */
    sl_notify_url u;
    assert_int_equal(sl_notify_url_parse("ws://h:1/abcdef", 10, &u, NULL), 0);
    assert_string_equal(u.path, "/a");
    assert_int_equal(sl_notifier_check_url("ws://localhost:8080/notify?key=foo", NULL), 0);
}

static void bad(const char *s, size_t n, int code, const char *needle)
{
    sl_notify_url u;
    sl_error err = {0};
    int rc = sl_notify_url_parse(s, n, &u, &err);
    if (rc != code)
        fail_msg("'%.*s': got %d (%s), want %d", (int)n, s, rc, err.msg, code);
    if (strstr(err.msg, needle) == NULL)
        fail_msg("'%.*s': message '%s' lacks '%s'", (int)n, s, err.msg, needle);
}

#define BAD(s, code, needle) bad(s, strlen(s), code, needle)

static void test_refuse(void **state)
{
    BAD("", SL_EINVAL, "empty");
    BAD("localhost:8080", SL_EINVAL, "must start with ws://");
    BAD("http://localhost:8080/", SL_EINVAL, "scheme 'http' is not supported");
    BAD("ws:/localhost:8080", SL_EINVAL, "must start with ws://");
    BAD("wss://localhost:8080/x", SL_EUNSUPPORTED, "wss:// (TLS) is not supported");
    BAD("ws://localhost/notify", SL_EINVAL, "port is missing");
    BAD("ws://localhost", SL_EINVAL, "port is missing");
    BAD("ws://localhost:", SL_EINVAL, "empty port");
    BAD("ws://localhost:0", SL_EINVAL, "port out of range");
    BAD("ws://localhost:65536", SL_EINVAL, "port out of range");
    BAD("ws://localhost:99999999999999999999", SL_EINVAL, "port out of range");
    BAD("ws://localhost:80a", SL_EINVAL, "decimal number");
    BAD("ws://localhost:-1", SL_EINVAL, "decimal number");
    BAD("ws://:8080/", SL_EINVAL, "no host");
    BAD("ws:///x", SL_EINVAL, "no host");
    BAD("ws://user:pw@host:80/", SL_EINVAL, "user information");
    BAD("ws://ho$t:80/", SL_EINVAL, "character '$' not allowed in host");
    BAD("ws://a..b:80/", SL_EINVAL, "empty label");
    BAD("ws://a.:80/", SL_EINVAL, "ends with a dot");
    BAD("ws://[::1:80/", SL_EINVAL, "unterminated IPv6");
    BAD("ws://[::g]:80/", SL_EINVAL, "bad IPv6 address");
    BAD("ws://[]:80/", SL_EINVAL, "bad IPv6 address");
    BAD("ws://[::1]x:80/", SL_EINVAL, "expected ':'");
    BAD("ws://[::1]/", SL_EINVAL, "port is missing");
    BAD("ws://h:80/a b", SL_EINVAL, "space");
    BAD("ws://h:80/a\tb", SL_EINVAL, "control character");
    BAD("ws://h:80/\xc3\xa9", SL_EINVAL, "non-ASCII");
    BAD("ws://h:80/a#frag", SL_EINVAL, "fragments");
    BAD("ws://h:80/a%2", SL_EINVAL, "bad %-escape");
    BAD("ws://h:80/a%zz", SL_EINVAL, "bad %-escape");
    BAD("ws://h:80/a\"b", SL_EINVAL, "not allowed in the path");
    BAD("ws://h:80/a?b<c", SL_EINVAL, "not allowed in the query");
    bad("ws://h:80/a\0b", 13, SL_EINVAL, "control character");
    char label[80];
    memset(label, 'a', 64);
    strcpy(label + 64, ":80/");
    char url[128] = "ws://";
    strcat(url, label);
    BAD(url, SL_EINVAL, "longer than 63");
    char longhost[400] = "ws://";
    for (int i = 0; i < 60; i++)
        strcat(longhost, "abcd.");
    strcat(longhost, "x:80/");
    BAD(longhost, SL_EINVAL, "host longer than 253");
    static char huge[SL_NOTIFY_URL_MAX + 10];
    memset(huge, 'a', sizeof(huge) - 1);
    memcpy(huge, "ws://h:80/", 10);
    BAD(huge, SL_EINVAL, "longer than 2048");
    BAD("ws://h:80/x", 0 /* accepted */, "");
    sl_error err = {0};
    assert_int_equal(sl_notifier_check_url("wss://h:1/", &err), SL_EUNSUPPORTED);
    assert_int_equal(sl_notifier_check_url(NULL, NULL), SL_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accept),
        cmocka_unit_test(test_refuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
