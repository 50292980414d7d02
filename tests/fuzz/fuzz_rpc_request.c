/*
 * fuzz_rpc_request.c - libFuzzer target for every request body a peer can send the mnode
 * or a vnode, and the mnode replies a vnode decodes. The first byte selects the message
 * (table below); the rest goes to its protobuf-c unpack and then to the daemon's own
 * decoding and validation (mnode/daemon/mrequest.c, vnode-adapter/daemon/vrequest.c):
 * ExecRequest's statement parse, AutoCreateRequest's tag block and generated CREATE TABLE,
 * WriteRequest's blocks (sl_block_decode per item) checked against a fixed table with
 * sl_vstore_check_item as sl_vstore_write does, QueryRequest's parse, ChangesRequest's
 * bounds. Seeds: tests/fuzz/corpus/rpc_request/ (written by this target with
 * SLUICE_WRITE_SEEDS=<dir> and -runs=0).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mnode.pb-c.h"
#include "mnode/daemon/mrequest.h"
#include "vnode-adapter/daemon/vrequest.h"
#include "vnode.pb-c.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The table every WriteRequest item is checked against (uid 1):
 * ts TIMESTAMP, i INT, d DOUBLE, s VARCHAR(16), n NCHAR(8), b BOOL, u BIGINT UNSIGNED. */
static const sl_vs_column g_cols[] = {
    {.name = "ts", .type = SL_T_TIMESTAMP}, {.name = "i", .type = SL_T_INT},
    {.name = "d", .type = SL_T_DOUBLE},     {.name = "s", .type = SL_T_VARCHAR, .width = 16},
    {.name = "n", .type = SL_T_NCHAR, .width = 8}, {.name = "b", .type = SL_T_BOOL},
    {.name = "u", .type = SL_T_UBIGINT},
};
static const sl_vs_table_def g_def = {
    .uid = 1,
    .name = "m1",
    .kind = SL_VS_TABLE_NORMAL,
    .precision = SL_PREC_MS,
    .ncols = sizeof(g_cols) / sizeof(g_cols[0]),
    .cols = g_cols,
};

static void run_exec(const uint8_t *p, size_t n)
{
    Sluice__ExecRequest *rq = sluice__exec_request__unpack(NULL, n, p);
    if (rq == NULL)
        return;
    sl_error err;
    sl_error_clear(&err);
    sl_parse_result *pr;
    int rc = sl__md_parse_one(rq->sql, &pr, &err);
    CHECK((rc == 0) == (pr != NULL));
    if (rc == 0)
        CHECK(pr->nstmts == 1);
    sl_parse_result_free(pr);
    sluice__exec_request__free_unpacked(rq, NULL);
}

static void run_auto_create(const uint8_t *p, size_t n)
{
    Sluice__AutoCreateRequest *rq = sluice__auto_create_request__unpack(NULL, n, p);
    if (rq == NULL)
        return;
    for (size_t i = 0; i < rq->n_items; i++) {
        sl_error err;
        sl_error_clear(&err);
        sl_parse_result *pr;
        int rc = sl__md_auto_create_stmt(rq->items[i], &pr, &err);
        CHECK((rc == 0) == (pr != NULL));
        CHECK(rc == 0 || err.code != 0);
        /* Names are quoted and values literals: a valid tag block always builds a
         * statement, never a syntax error or another statement. */
        CHECK(rc != SL_EINVAL || strstr(err.msg, "built no single") == NULL);
        sl_parse_result_free(pr);
    }
    sluice__auto_create_request__free_unpacked(rq, NULL);
}

static void run_write(const uint8_t *p, size_t n)
{
    Sluice__WriteRequest *rq = sluice__write_request__unpack(NULL, n, p);
    if (rq == NULL)
        return;
    sl_error err;
    sl_error_clear(&err);
    vn_write w;
    int rc = sl__vn_write_decode(rq, &w, &err);
    if (rc == 0) {
        CHECK(w.w_n == rq->n_items && w.w_ndec == rq->n_items);
        for (size_t i = 0; i < w.w_n; i++) {
            sl_error e;
            sl_error_clear(&e);
            int crc = sl_vstore_check_item(&g_def, &w.w_items[i], i, &e);
            CHECK(crc == 0 || (crc == e.code && crc < 0));
        }
    } else {
        CHECK(rc < 0);
    }
    sl__vn_write_fini(&w);
    sluice__write_request__free_unpacked(rq, NULL);
}

static void run_query(const uint8_t *p, size_t n)
{
    Sluice__QueryRequest *rq = sluice__query_request__unpack(NULL, n, p);
    if (rq == NULL)
        return;
    sl_error err;
    sl_error_clear(&err);
    sl_parse_result *pr;
    int rc = sl__vn_query_parse(rq, &pr, &err);
    CHECK((rc == 0) == (pr != NULL));
    if (rc == 0)
        CHECK(pr->nstmts == 1 && pr->stmts[0]->kind == SL_STMT_SELECT);
    sl_parse_result_free(pr);
    sluice__query_request__free_unpacked(rq, NULL);
}

static void run_changes(const uint8_t *p, size_t n)
{
    Sluice__ChangesRequest *rq = sluice__changes_request__unpack(NULL, n, p);
    if (rq == NULL)
        return;
    uint32_t mb, wait;
    sl__vn_changes_bounds(rq, &mb, &wait);
    CHECK(mb > 0 && mb <= VN_CHANGES_MAX_BYTES && wait <= VN_CHANGES_MAX_WAIT_MS);
    sluice__changes_request__free_unpacked(rq, NULL);
}

/* Messages whose handlers take their fields as they are (lookups by name or id): the
 * unpack is the whole decoder. */
static void run_plain(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n)
{
    ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, n, p);
    if (m == NULL)
        return;
    CHECK(protobuf_c_message_check(m));
    protobuf_c_message_free_unpacked(m, NULL);
}

typedef struct method {
    const char *name;
    void (*run)(const uint8_t *p, size_t n);           /* a decoder of the daemon, or */
    const ProtobufCMessageDescriptor *plain;           /* only the unpack */
} method;

static const method g_methods[] = {
    {.name = "mnode_exec", .run = run_exec},
    {.name = "mnode_table_meta", .plain = &sluice__table_meta_request__descriptor},
    {.name = "mnode_db_info", .plain = &sluice__db_info_request__descriptor},
    {.name = "mnode_auto_create", .run = run_auto_create},
    {.name = "mnode_register", .plain = &sluice__register_request__descriptor},
    {.name = "mnode_heartbeat", .plain = &sluice__heartbeat_request__descriptor},
    {.name = "mnode_vgroup_tables", .plain = &sluice__vgroup_tables_request__descriptor},
    {.name = "vnode_write", .run = run_write},
    {.name = "vnode_delete", .plain = &sluice__delete_request__descriptor},
    {.name = "vnode_query", .run = run_query},
    {.name = "vnode_changes", .run = run_changes},
    {.name = "vnode_status", .plain = &sluice__status_request__descriptor},
    {.name = "reply_register", .plain = &sluice__register_reply__descriptor},
    {.name = "reply_heartbeat", .plain = &sluice__heartbeat_reply__descriptor},
    {.name = "reply_vgroup_tables", .plain = &sluice__vgroup_tables_reply__descriptor},
};
#define NMETHODS (sizeof(g_methods) / sizeof(g_methods[0]))

/* ---------------------------------------------------------------- seeds */

static void seed(const char *dir, const char *name, uint8_t sel, const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n + 1);
    buf[0] = sel;
    protobuf_c_message_pack(m, buf + 1);
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f != NULL) {
        fwrite(buf, 1, n + 1, f);
        fclose(f);
    }
    free(buf);
}

/* A block of the fixed table with nrows rows (bad: a VARCHAR past its width). */
static void table_block(sl_buf *out, uint32_t nrows, int bad)
{
    sl_block b;
    sl_block_init(&b);
    for (uint32_t c = 0; c < g_def.ncols; c++)
        sl_block_add_column(&b, g_cols[c].type, g_cols[c].width);
    for (uint32_t r = 0; r < nrows; r++) {
        sl_column_append_i64(&b.cols[0], 1700000000000 + r);
        if (r % 3 == 2)
            sl_column_append_null(&b.cols[1]);
        else
            sl_column_append_i64(&b.cols[1], (int64_t)r * 7 - 3);
        sl_column_append_f64(&b.cols[2], r * 0.5);
        const char *s = bad ? "much longer than sixteen bytes" : "abc";
        sl_column_append_str(&b.cols[3], s, (uint32_t)strlen(s));
        sl_column_append_str(&b.cols[4], "\xc3\xa9t\xc3\xa9", 6);
        sl_column_append_bool(&b.cols[5], r & 1);
        sl_column_append_u64(&b.cols[6], UINT64_MAX - r);
    }
    sl_block_seal(&b);
    sl_block_encode(&b, out);
    sl_block_fini(&b);
}

/* A one-row tag block: tag1 INT, tag2 VARCHAR(8), tag3 DOUBLE. */
static void tag_block(sl_buf *out)
{
    sl_block b;
    sl_block_init(&b);
    sl_block_add_column(&b, SL_T_INT, 0);
    sl_block_add_column(&b, SL_T_VARCHAR, 8);
    sl_block_add_column(&b, SL_T_DOUBLE, 0);
    sl_column_append_i64(&b.cols[0], 42);
    sl_column_append_str(&b.cols[1], "it's`", 5);
    sl_column_append_null(&b.cols[2]);
    sl_block_seal(&b);
    sl_block_encode(&b, out);
    sl_block_fini(&b);
}

static void write_seeds(const char *dir)
{
    Sluice__ExecRequest ex = SLUICE__EXEC_REQUEST__INIT;
    ex.sql = "CREATE TABLE m1 (ts TIMESTAMP, v INT, s VARCHAR(16))";
    ex.current_db = "db1";
    seed(dir, "exec_create", 0, &ex.base);
    ex.sql = "SELECT * FROM information_schema.ins_tables WHERE db_name = 'db1'";
    seed(dir, "exec_select", 0, &ex.base);

    Sluice__TableMetaRequest tm = SLUICE__TABLE_META_REQUEST__INIT;
    tm.db = "db1";
    tm.name = "m1";
    seed(dir, "table_meta", 1, &tm.base);

    Sluice__DbInfoRequest di = SLUICE__DB_INFO_REQUEST__INIT;
    di.db = "db1";
    seed(dir, "db_info", 2, &di.base);

    sl_buf tags;
    sl_buf_init(&tags);
    tag_block(&tags);
    Sluice__AutoCreateItem it = SLUICE__AUTO_CREATE_ITEM__INIT;
    it.db = "db1";
    it.name = "d1001";
    it.stable = "meters";
    char *names[] = {"tag1", "tag2", "tag3"};
    it.n_tag_names = 3;
    it.tag_names = names;
    it.tag_values.data = tags.data;
    it.tag_values.len = tags.len;
    Sluice__AutoCreateItem *items[] = {&it};
    Sluice__AutoCreateRequest ac = SLUICE__AUTO_CREATE_REQUEST__INIT;
    ac.n_items = 1;
    ac.items = items;
    seed(dir, "auto_create", 3, &ac.base);

    Sluice__RegisterRequest rg = SLUICE__REGISTER_REQUEST__INIT;
    rg.kind = 1;
    rg.address = "tcp://127.0.0.1:6031";
    seed(dir, "register", 4, &rg.base);

    Sluice__HeartbeatRequest hb = SLUICE__HEARTBEAT_REQUEST__INIT;
    hb.node_id = 3;
    seed(dir, "heartbeat", 5, &hb.base);

    Sluice__VgroupTablesRequest vt = SLUICE__VGROUP_TABLES_REQUEST__INIT;
    vt.vgroup_id = 2;
    seed(dir, "vgroup_tables", 6, &vt.base);

    sl_buf b1, b2;
    sl_buf_init(&b1);
    sl_buf_init(&b2);
    table_block(&b1, 5, 0);
    table_block(&b2, 1, 1);
    Sluice__WriteItem w1 = SLUICE__WRITE_ITEM__INIT, w2 = SLUICE__WRITE_ITEM__INIT;
    w1.uid = 1;
    w1.block.data = b1.data;
    w1.block.len = b1.len;
    w2.uid = 1;
    w2.block.data = b2.data;
    w2.block.len = b2.len;
    Sluice__WriteItem *wi[] = {&w1, &w2};
    Sluice__WriteRequest wr = SLUICE__WRITE_REQUEST__INIT;
    wr.vgroup_id = 2;
    wr.n_items = 1;
    wr.items = wi;
    seed(dir, "write_5_rows", 7, &wr.base);
    wr.n_items = 2;
    seed(dir, "write_bad_width", 7, &wr.base);

    Sluice__DeleteRequest dl = SLUICE__DELETE_REQUEST__INIT;
    dl.vgroup_id = 2;
    dl.uid = 1;
    dl.ts_lo = -5;
    dl.ts_hi = 1700000000004;
    seed(dir, "delete", 8, &dl.base);

    Sluice__QueryRequest q = SLUICE__QUERY_REQUEST__INIT;
    q.vgroup_id = 2;
    q.db = "db1";
    q.sql = "SELECT _wstart, avg(v), max(s) FROM meters WHERE ts >= now - 1h INTERVAL(10s)";
    q.now_ms = 1700000000000;
    seed(dir, "query", 9, &q.base);

    Sluice__ChangesRequest ch = SLUICE__CHANGES_REQUEST__INIT;
    ch.vgroup_id = 2;
    ch.after_version = 10;
    ch.max_bytes = 65536;
    ch.wait_ms = 1000;
    seed(dir, "changes", 10, &ch.base);

    Sluice__StatusRequest st = SLUICE__STATUS_REQUEST__INIT;
    st.vgroup_id = 2;
    seed(dir, "status", 11, &st.base);

    sl_buf_fini(&tags);
    sl_buf_fini(&b1);
    sl_buf_fini(&b2);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = getenv("SLUICE_WRITE_SEEDS");
    if (dir != NULL)
        write_seeds(dir);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const method *m = &g_methods[data[0] % NMETHODS];
    if (m->run != NULL)
        m->run(data + 1, size - 1);
    else
        run_plain(m->plain, data + 1, size - 1);
    return 0;
}
