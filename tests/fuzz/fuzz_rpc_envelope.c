/*
 * fuzz_rpc_envelope.c - libFuzzer target for the RPC frame decoders of common/net: the
 * server's request decoder (sl__rpc_decode_request: size bound, Envelope, version) and the
 * client's reply decoder (sl__rpc_decode_reply: version, request id, error replies). Any
 * bytes must give an Envelope or an error code with a message, never a crash or a leak.
 * A request that decodes is packed again with sl__rpc_pack and must decode to the same
 * method, request id, epoch and payload. Seeds: tests/fuzz/corpus/rpc_envelope/ (written
 * by this target with SLUICE_WRITE_SEEDS=<dir> and -runs=0).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/net/rpc_int.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The server's default frame bound; inputs stay far below it. */
#define MAX_FRAME (1u << 20)

static void write_seed(const char *dir, const char *name, uint32_t method, uint64_t id,
                       uint64_t epoch, const char *payload, const sl_error *e)
{
    nng_msg *m;
    size_t len = payload ? strlen(payload) : 0;
    if (sl__rpc_pack(&m, method, id, epoch, payload, len, e, MAX_FRAME) != 0)
        return;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f != NULL) {
        fwrite(nng_msg_body(m), 1, nng_msg_len(m), f);
        fclose(f);
    }
    nng_msg_free(m);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = getenv("SLUICE_WRITE_SEEDS");
    if (dir == NULL)
        return 0;
    sl_error e;
    sl_error_clear(&e);
    sl_error_set(&e, SL_ENOTFOUND, 3, 14, "table 'm1' does not exist");
    write_seed(dir, "request_empty", 5, 1, 0, NULL, NULL);
    write_seed(dir, "request_payload", 1, 42, 7, "\x08\x01\x12\x05hello", NULL);
    write_seed(dir, "request_epoch_max", 7, UINT64_MAX, UINT64_MAX, "x", NULL);
    write_seed(dir, "reply_error", 2, 1, 0, NULL, &e);
    write_seed(dir, "reply_error_id0", 0, 0, 0, NULL, &e);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sl_error err;
    sl_error_clear(&err);
    Sluice__Envelope *env;
    int rc = sl__rpc_decode_request(data, size, MAX_FRAME, &env, &err);
    CHECK(rc <= 0);
    CHECK(rc == 0 || err.code == rc);
    if (env != NULL && rc == 0) {
        CHECK(env->version >= 1 && env->version <= SL_RPC_PROTOCOL_VERSION);
        /* What the server hands a handler must survive a round trip through the packer. */
        nng_msg *m;
        if (sl__rpc_pack(&m, env->method, env->request_id, env->epoch, env->payload.data,
                         env->payload.len, NULL, MAX_FRAME + 64) == 0) {
            Sluice__Envelope *back;
            sl_error e2;
            sl_error_clear(&e2);
            CHECK(sl__rpc_decode_request(nng_msg_body(m), nng_msg_len(m), MAX_FRAME + 64, &back,
                                         &e2) == 0);
            CHECK(back->method == env->method && back->request_id == env->request_id &&
                  back->epoch == env->epoch && back->payload.len == env->payload.len);
            CHECK(env->payload.len == 0 ||
                  memcmp(back->payload.data, env->payload.data, env->payload.len) == 0);
            sluice__envelope__free_unpacked(back, NULL);
            nng_msg_free(m);
        }
    }
    if (env != NULL)
        sluice__envelope__free_unpacked(env, NULL);
    /* A frame is over the bound exactly when it is longer than the bound. */
    if (size > 0) {
        sl_error_clear(&err);
        rc = sl__rpc_decode_request(data, size, size - 1, &env, &err);
        CHECK(rc == SL_ELIMIT && env == NULL);
    }

    /* The same bytes as a reply, to request 1 and to the id they carry. */
    for (int k = 0; k < 2; k++) {
        uint64_t id = 1;
        if (k == 1) {
            Sluice__Envelope *peek = sluice__envelope__unpack(NULL, size, data);
            if (peek == NULL)
                break;
            id = peek->request_id;
            sluice__envelope__free_unpacked(peek, NULL);
        }
        sl_error_clear(&err);
        rc = sl__rpc_decode_reply(data, size, id, "tcp://peer:1", &env, &err);
        CHECK(rc <= 0);
        if (rc == 0) {
            CHECK(env != NULL && env->error == NULL);
            sluice__envelope__free_unpacked(env, NULL);
        } else {
            CHECK(env == NULL && err.code == rc);
        }
    }
    return 0;
}
