/*
 * test_proto.c - the common protobuf envelope: round trip of every field, and refusal of
 * truncated and garbage input by the generated decoder (no crash, NULL result).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.pb-c.h"

static uint8_t *pack_sample(size_t *len)
{
    Sluice__Error e = SLUICE__ERROR__INIT;
    e.code = -3;
    e.message = "1:8: syntax error near 'FORM': expected FROM";
    e.line = 1;
    e.col = 8;
    Sluice__Envelope env = SLUICE__ENVELOPE__INIT;
    env.version = SLUICE__PROTOCOL_VERSION__PROTOCOL_VERSION_1;
    env.method = 7;
    env.request_id = 0x1122334455667788ull;
    env.epoch = 42;
    env.error = &e;
    uint8_t payload[3] = {1, 2, 3};
    env.payload.data = payload;
    env.payload.len = sizeof(payload);
    *len = sluice__envelope__get_packed_size(&env);
    uint8_t *buf = malloc(*len);
    assert_non_null(buf);
    assert_int_equal(sluice__envelope__pack(&env, buf), *len);
    return buf;
}

static void test_envelope_round_trip(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = pack_sample(&len);
    Sluice__Envelope *d = sluice__envelope__unpack(NULL, len, buf);
    assert_non_null(d);
    assert_int_equal(d->version, 1);
    assert_int_equal(d->method, 7);
    assert_true(d->request_id == 0x1122334455667788ull);
    assert_int_equal(d->epoch, 42);
    assert_non_null(d->error);
    assert_int_equal(d->error->code, -3);
    assert_string_equal(d->error->message, "1:8: syntax error near 'FORM': expected FROM");
    assert_int_equal(d->error->line, 1);
    assert_int_equal(d->error->col, 8);
    assert_int_equal(d->payload.len, 3);
    assert_memory_equal(d->payload.data, "\1\2\3", 3);
    sluice__envelope__free_unpacked(d, NULL);
    free(buf);
}

static void test_envelope_truncated(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = pack_sample(&len);
    /* Every strict prefix that cuts a field in the middle must be refused. A prefix that
     * ends exactly on a field boundary is a valid (shorter) message, so count refusals. */
    int refused = 0;
    for (size_t n = 1; n < len; n++) {
        Sluice__Envelope *d = sluice__envelope__unpack(NULL, n, buf);
        if (d == NULL)
            refused++;
        else
            sluice__envelope__free_unpacked(d, NULL);
    }
    assert_true(refused > 0);
    /* A length prefix claiming more bytes than present must be refused. */
    uint8_t bad[] = {0x32, 0x7f, 0x01}; /* field 6 (payload), length 127, 1 byte */
    assert_null(sluice__envelope__unpack(NULL, sizeof(bad), bad));
    free(buf);
}

static void test_envelope_garbage(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ull;
    uint8_t buf[64];
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)(round % 64) + 1;
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[i] = (uint8_t)x;
        }
        Sluice__Envelope *d = sluice__envelope__unpack(NULL, n, buf);
        if (d != NULL)
            sluice__envelope__free_unpacked(d, NULL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_envelope_round_trip),
        cmocka_unit_test(test_envelope_truncated),
        cmocka_unit_test(test_envelope_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
