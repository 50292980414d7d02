/*
 * fuzz_notify_url.c - libFuzzer target for the NOTIFY URL parser (snode/notify/notify_url.h),
 * which reads URLs from CREATE STREAM statements. The input is the URL bytes (not NUL
 * terminated). Whatever the bytes, the parser must return 0, SL_EINVAL or SL_EUNSUPPORTED
 * with a message; an accepted URL must have a host, a port 1..65535 and a request target
 * starting with '/', and its canonical form must parse again to exactly the same parts.
 * Seeds: tests/fuzz/corpus/notify_url/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snode/notify/notify_url.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly size bytes, so ASan catches any read past the end. */
    char *s = malloc(size ? size : 1);
    if (s == NULL)
        return 0;
    memcpy(s, data, size);
    static sl_notify_url u, v;
    sl_error err = {0};
    int rc = sl_notify_url_parse(s, size, &u, &err);
    free(s);
    if (rc != 0) {
        CHECK(rc == SL_EINVAL || rc == SL_EUNSUPPORTED);
        CHECK(err.code == rc && err.msg[0] != '\0');
        return 0;
    }
    CHECK(u.host[0] != '\0' && strlen(u.host) <= SL_NOTIFY_HOST_MAX);
    CHECK(u.port >= 1);
    CHECK(u.path[0] == '/' && u.path_len >= 1 && u.path_len <= strlen(u.path));
    CHECK(u.path[u.path_len] == '\0' || u.path[u.path_len] == '?');
    static char buf[SL_NOTIFY_URL_MAX + SL_NOTIFY_HOST_MAX + 32];
    int n = sl_notify_url_format(&u, buf, sizeof(buf));
    CHECK(n > 0);
    /* The canonical form may be one byte longer than the input ('/' added). */
    if ((size_t)n <= SL_NOTIFY_URL_MAX) {
        CHECK(sl_notify_url_parse(buf, (size_t)n, &v, NULL) == 0);
        CHECK(memcmp(&u, &v, sizeof(u)) == 0);
    }
    return 0;
}
