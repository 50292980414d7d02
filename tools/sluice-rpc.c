/*
 * sluice-rpc - a small diagnostic client for the mnode and vnode services: sends one
 * request built from the command line (or a CSV on stdin for writes) and prints the reply.
 * Scripts (scripts/sluice-local) and the cluster tests (tests/cluster) use it to drive the
 * daemons without the client library.
 *
 *   sluice-rpc exec MNODE SQL [DB]              MNODE_EXEC; prints CSV (header first) or
 *                                               "OK affected=N db=DB"
 *   sluice-rpc meta MNODE DB TABLE              MNODE_TABLE_META summary
 *   sluice-rpc write MNODE DB TABLE [BATCH]     rows from CSV on stdin (table's column
 *                                               order; empty or NULL = NULL) to the owning
 *                                               vnode, BATCH rows per request (default
 *                                               1000); prints "ack ROWS VERSION" after
 *                                               every acknowledged request
 *   sluice-rpc delete MNODE DB TABLE LO HI      VNODE_DELETE of a timestamp range
 *   sluice-rpc autocreate MNODE DB TABLE STABLE TAGS_CSV   MNODE_AUTO_CREATE of one child
 *                                               table (every tag, in order); prints its meta
 *   sluice-rpc query MNODE DB SQL [PAGE_BYTES]  VNODE_QUERY on every vgroup of DB, all pages;
 *                                               prints the PARTIAL rows as CSV
 *   sluice-rpc changes VNODE VGROUP AFTER [WAIT_MS [YIELDING]]   VNODE_CHANGES summary
 *                                               ("last_version=V changes=N", then
 *                                               " writes_heavy=1" when the reply says so;
 *                                               YIELDING 1 sets the request's yielding)
 *   sluice-rpc fchanges VNODE VGROUP AFTER TABLE_UID GROUP NSLOTS SLOTS PROJ [PRE_FILTER
 *                       [WAIT_MS [MAX_ENTRIES]]]   filtered VNODE_CHANGES (ChangesFilter):
 *                                               GROUP, PROJ comma lists (-1 tbname) or
 *                                               "-"; SLOTS owned slots "0,3" or "-" or raw
 *                                               bitmap "x:HEX"; prints "last_version=V
 *                                               changes=N more=M", then per change "change
 *                                               version= uid= kind= name= group= count=
 *                                               unfiltered=" and its rows as CSV
 *   sluice-rpc status VNODE VGROUP              VNODE_STATUS
 *   sluice-rpc raw URL HEX|random:N             an unwrapped frame; prints the reply size
 *   sluice-rpc snode-status SNODE               SNODE_STATUS; prints one JSON object:
 *                                               {"node_id", "epoch", "slots", "address",
 *                                               "mnode_ok", "assignments", "streams": [{
 *                                               "stream_id", "db", "name", "running",
 *                                               "failed", "error", "trigger", "plan_db",
 *                                               "owned", "ranges": [[first, last], ...]}]}
 *   sluice-rpc checkpoint-put MNODE NODE_ID EPOCH STREAM_ID SLOT DATA
 *                                               MNODE_CHECKPOINT_PUT with envelope epoch
 *                                               EPOCH; prints "epoch=N"
 *   sluice-rpc checkpoint-get MNODE STREAM_ID SLOT    MNODE_CHECKPOINT_GET; prints
 *                                               "found=0" or "found=1 epoch=E node_id=N
 *                                               state=DATA"
 *
 * Options before the command: --epoch N sends write and delete requests to the vnode with
 * envelope epoch N (fencing; default 0, a client write).
 *
 * Errors print "error CODE: message" on stderr and exit 1.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/net/rpc.h"
#include "common/types/block.h"
#include "mnode.pb-c.h"
#include "snode.pb-c.h"
#include "vnode.pb-c.h"

#define TIMEOUT_MS 10000

/* --epoch: the envelope epoch of vnode writes and deletes. */
static uint64_t g_epoch;

static int fail(int rc, const sl_error *err)
{
    fprintf(stderr, "error %d: %s\n", rc, err && err->msg[0] ? err->msg : sl_strerror(rc));
    return 1;
}

static sl_rpc_client *open_client(const char *url)
{
    sl_error err = {0};
    sl_rpc_client *c = NULL;
    sl_rpc_limits lim;
    sl_rpc_limits_default(&lim);
    lim.max_msg_bytes = 64u << 20;
    if (sl_rpc_client_open(&c, url, &lim, &err) < 0) {
        fail(SL_EINVAL, &err);
        exit(1);
    }
    return c;
}

/* Packs m, calls method with envelope epoch, leaves the reply payload in *reply. */
static int call_epoch(sl_rpc_client *c, uint32_t method, uint64_t epoch, const ProtobufCMessage *m,
                      sl_buf *reply, sl_error *err)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *p = malloc(n ? n : 1);
    protobuf_c_message_pack(m, p);
    int rc = sl_rpc_call(c, method, epoch, p, n, reply, TIMEOUT_MS, err);
    free(p);
    return rc;
}

static int call(sl_rpc_client *c, uint32_t method, const ProtobufCMessage *m, sl_buf *reply,
                sl_error *err)
{
    return call_epoch(c, method, 0, m, reply, err);
}

static void print_cell(const sl_column *c, uint32_t r)
{
    if (sl_column_is_null(c, r)) {
        fputs("NULL", stdout);
        return;
    }
    uint32_t i = sl_column_phys(c, r);
    if (sl_type_is_var(c->type)) {
        uint32_t n;
        const char *s = sl_column_get_str(c, i, &n);
        fwrite(s, 1, n, stdout);
    } else if (c->type == SL_T_BOOL) {
        fputs(sl_column_get_i64(c, i) ? "true" : "false", stdout);
    } else if (c->type == SL_T_FLOAT || c->type == SL_T_DOUBLE) {
        printf("%.17g", sl_column_get_f64(c, i));
    } else if (sl_type_is_unsigned_int(c->type)) {
        printf("%" PRIu64, sl_column_get_u64(c, i));
    } else {
        printf("%" PRId64, sl_column_get_i64(c, i));
    }
}

static int print_block(const void *p, size_t n)
{
    sl_block b;
    sl_block_init(&b);
    sl_error err = {0};
    int rc = sl_block_decode(p, n, &b, &err);
    if (rc < 0)
        return fail(rc, &err);
    for (uint32_t r = 0; r < b.nrows; r++) {
        for (uint32_t i = 0; i < b.ncols; i++) {
            if (i)
                putchar(',');
            print_cell(&b.cols[i], r);
        }
        putchar('\n');
    }
    sl_block_fini(&b);
    return 0;
}

static int cmd_exec(int argc, char **argv)
{
    if (argc < 2)
        return fail(SL_EINVAL, NULL);
    sl_rpc_client *c = open_client(argv[0]);
    Sluice__ExecRequest rq = SLUICE__EXEC_REQUEST__INIT;
    rq.sql = argv[1];
    rq.current_db = argc > 2 ? argv[2] : "";
    sl_buf reply;
    sl_buf_init(&reply);
    sl_error err = {0};
    int rc = call(c, SLUICE__MNODE_METHOD__MNODE_EXEC, &rq.base, &reply, &err);
    if (rc < 0)
        return fail(rc, &err);
    Sluice__ExecReply *rp = sluice__exec_reply__unpack(NULL, reply.len, reply.data);
    if (rp == NULL)
        return fail(SL_ECORRUPT, NULL);
    if (rp->result == NULL || rp->result->n_names == 0) {
        printf("OK affected=%" PRId64 " db=%s\n", rp->result ? rp->result->affected : 0,
               rp->current_db);
    } else {
        for (size_t i = 0; i < rp->result->n_names; i++)
            printf("%s%s", i ? "," : "", rp->result->names[i]);
        putchar('\n');
        if (print_block(rp->result->block.data, rp->result->block.len) != 0)
            return 1;
    }
    sluice__exec_reply__free_unpacked(rp, NULL);
    sl_buf_fini(&reply);
    sl_rpc_client_close(c);
    return 0;
}

static Sluice__TableMeta *get_meta(sl_rpc_client *c, const char *db, const char *table,
                                   Sluice__TableMetaReply **keep)
{
    Sluice__TableMetaRequest rq = SLUICE__TABLE_META_REQUEST__INIT;
    rq.db = (char *)db;
    rq.name = (char *)table;
    sl_buf reply;
    sl_buf_init(&reply);
    sl_error err = {0};
    int rc = call(c, SLUICE__MNODE_METHOD__MNODE_TABLE_META, &rq.base, &reply, &err);
    if (rc < 0) {
        fail(rc, &err);
        exit(1);
    }
    *keep = sluice__table_meta_reply__unpack(NULL, reply.len, reply.data);
    sl_buf_fini(&reply);
    if (*keep == NULL || (*keep)->meta == NULL) {
        fail(SL_ECORRUPT, NULL);
        exit(1);
    }
    return (*keep)->meta;
}

static int cmd_meta(int argc, char **argv)
{
    if (argc < 3)
        return fail(SL_EINVAL, NULL);
    sl_rpc_client *c = open_client(argv[0]);
    Sluice__TableMetaReply *keep;
    Sluice__TableMeta *m = get_meta(c, argv[1], argv[2], &keep);
    printf("kind=%u uid=%" PRIu64 " columns=%zu tags=%zu", m->kind, m->uid, m->n_columns,
           m->n_tags);
    if (m->vgroup)
        printf(" vgroup=%u vnode=%s", m->vgroup->vgroup_id, m->vgroup->vnode_address);
    printf(" vgroups=%zu\n", m->n_vgroups);
    sluice__table_meta_reply__free_unpacked(keep, NULL);
    sl_rpc_client_close(c);
    return 0;
}

/* Appends one CSV field to column c. */
static int put_field(sl_column *c, char *s)
{
    if (*s == '\0' || strcasecmp(s, "NULL") == 0)
        return sl_column_append_null(c);
    if (sl_type_is_var(c->type))
        return sl_column_append_str(c, s, (uint32_t)strlen(s));
    if (c->type == SL_T_BOOL)
        return sl_column_append_bool(c, strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0);
    if (c->type == SL_T_FLOAT || c->type == SL_T_DOUBLE)
        return sl_column_append_f64(c, strtod(s, NULL));
    if (sl_type_is_unsigned_int(c->type))
        return sl_column_append_u64(c, strtoull(s, NULL, 10));
    return sl_column_append_i64(c, strtoll(s, NULL, 10));
}

static int send_rows(sl_rpc_client *v, uint32_t vgroup, uint64_t uid, sl_block *b, uint64_t *acked)
{
    sl_block_seal(b);
    sl_buf enc;
    sl_buf_init(&enc);
    sl_block_encode(b, &enc);
    Sluice__WriteItem it = SLUICE__WRITE_ITEM__INIT;
    Sluice__WriteItem *its[1] = {&it};
    it.uid = uid;
    it.block.data = enc.data;
    it.block.len = enc.len;
    Sluice__WriteRequest rq = SLUICE__WRITE_REQUEST__INIT;
    rq.vgroup_id = vgroup;
    rq.n_items = 1;
    rq.items = its;
    sl_buf reply;
    sl_buf_init(&reply);
    sl_error err = {0};
    int rc = call_epoch(v, SLUICE__VNODE_METHOD__VNODE_WRITE, g_epoch, &rq.base, &reply, &err);
    sl_buf_fini(&enc);
    if (rc < 0) {
        sl_buf_fini(&reply);
        return fail(rc, &err);
    }
    Sluice__WriteReply *rp = sluice__write_reply__unpack(NULL, reply.len, reply.data);
    sl_buf_fini(&reply);
    if (rp == NULL)
        return fail(SL_ECORRUPT, NULL);
    *acked += b->nrows;
    printf("ack %" PRIu64 " %" PRIu64 "\n", *acked, rp->version);
    fflush(stdout);
    sluice__write_reply__free_unpacked(rp, NULL);
    sl_block_reset(b);
    return 0;
}

static int cmd_write(int argc, char **argv)
{
    if (argc < 3)
        return fail(SL_EINVAL, NULL);
    long batch = argc > 3 ? strtol(argv[3], NULL, 10) : 1000;
    if (batch <= 0)
        batch = 1000;
    sl_rpc_client *c = open_client(argv[0]);
    Sluice__TableMetaReply *keep;
    Sluice__TableMeta *m = get_meta(c, argv[1], argv[2], &keep);
    if (m->vgroup == NULL)
        return fail(SL_EINVAL, NULL);
    sl_rpc_client *v = open_client(m->vgroup->vnode_address);
    sl_block b;
    sl_block_init(&b);
    for (size_t i = 0; i < m->n_columns; i++)
        sl_block_add_column(&b, (sl_type)m->columns[i]->type, m->columns[i]->width);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    uint64_t acked = 0;
    uint32_t pending = 0;
    while ((len = getline(&line, &cap, stdin)) > 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0)
            continue;
        char *save = line;
        for (size_t i = 0; i < m->n_columns; i++) {
            char *f = strsep(&save, ",");
            put_field(&b.cols[i], f ? f : "");
        }
        if (++pending >= (uint32_t)batch) {
            if (send_rows(v, m->vgroup->vgroup_id, m->uid, &b, &acked) != 0)
                return 1;
            pending = 0;
        }
    }
    if (pending > 0 && send_rows(v, m->vgroup->vgroup_id, m->uid, &b, &acked) != 0)
        return 1;
    free(line);
    sl_block_fini(&b);
    sluice__table_meta_reply__free_unpacked(keep, NULL);
    sl_rpc_client_close(v);
    sl_rpc_client_close(c);
    return 0;
}

static int cmd_autocreate(int argc, char **argv)
{
    if (argc < 5)
        return fail(SL_EINVAL, NULL);
    sl_rpc_client *c = open_client(argv[0]);
    Sluice__TableMetaReply *keep;
    Sluice__TableMeta *st = get_meta(c, argv[1], argv[3], &keep);
    sl_block b;
    sl_block_init(&b);
    char *save = argv[4];
    for (size_t i = 0; i < st->n_tags; i++) {
        sl_block_add_column(&b, (sl_type)st->tags[i]->type, st->tags[i]->width);
        char *f = strsep(&save, ",");
        put_field(&b.cols[i], f ? f : "");
    }
    sl_block_seal(&b);
    sl_buf enc;
    sl_buf_init(&enc);
    sl_block_encode(&b, &enc);
    Sluice__AutoCreateItem it = SLUICE__AUTO_CREATE_ITEM__INIT;
    Sluice__AutoCreateItem *its[1] = {&it};
    it.db = argv[1];
    it.name = argv[2];
    it.stable = argv[3];
    it.tag_values.data = enc.data;
    it.tag_values.len = enc.len;
    Sluice__AutoCreateRequest rq = SLUICE__AUTO_CREATE_REQUEST__INIT;
    rq.n_items = 1;
    rq.items = its;
    sl_buf reply;
    sl_buf_init(&reply);
    sl_error err = {0};
    int rc = call(c, SLUICE__MNODE_METHOD__MNODE_AUTO_CREATE, &rq.base, &reply, &err);
    if (rc < 0)
        return fail(rc, &err);
    Sluice__AutoCreateReply *rp = sluice__auto_create_reply__unpack(NULL, reply.len, reply.data);
    if (rp == NULL || rp->n_metas != 1)
        return fail(SL_ECORRUPT, NULL);
    Sluice__TableMeta *m = rp->metas[0];
    printf("kind=%u uid=%" PRIu64 " stable=%s vgroup=%u\n", m->kind, m->uid, m->stable_name,
           m->vgroup ? m->vgroup->vgroup_id : 0);
    sluice__auto_create_reply__free_unpacked(rp, NULL);
    sluice__table_meta_reply__free_unpacked(keep, NULL);
    sl_buf_fini(&reply);
    sl_buf_fini(&enc);
    sl_block_fini(&b);
    sl_rpc_client_close(c);
    return 0;
}

static int cmd_delete(int argc, char **argv)
{
    if (argc < 5)
        return fail(SL_EINVAL, NULL);
    sl_rpc_client *c = open_client(argv[0]);
    Sluice__TableMetaReply *keep;
    Sluice__TableMeta *m = get_meta(c, argv[1], argv[2], &keep);
    if (m->vgroup == NULL)
        return fail(SL_EINVAL, NULL);
    sl_rpc_client *v = open_client(m->vgroup->vnode_address);
    Sluice__DeleteRequest rq = SLUICE__DELETE_REQUEST__INIT;
    rq.vgroup_id = m->vgroup->vgroup_id;
    rq.uid = m->uid;
    rq.ts_lo = strtoll(argv[3], NULL, 10);
    rq.ts_hi = strtoll(argv[4], NULL, 10);
    sl_buf reply;
    sl_buf_init(&reply);
    sl_error err = {0};
    int rc = call_epoch(v, SLUICE__VNODE_METHOD__VNODE_DELETE, g_epoch, &rq.base, &reply, &err);
    if (rc < 0)
        return fail(rc, &err);
    Sluice__DeleteReply *rp = sluice__delete_reply__unpack(NULL, reply.len, reply.data);
    if (rp == NULL)
        return fail(SL_ECORRUPT, NULL);
    printf("deleted %" PRIu64 " version %" PRIu64 "\n", rp->deleted, rp->version);
    sluice__delete_reply__free_unpacked(rp, NULL);
    sl_buf_fini(&reply);
    sluice__table_meta_reply__free_unpacked(keep, NULL);
    return 0;
}

static int cmd_query(int argc, char **argv)
{
    if (argc < 3)
        return fail(SL_EINVAL, NULL);
    uint32_t page = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 0;
    sl_rpc_client *c = open_client(argv[0]);
    Sluice__DbInfoRequest dq = SLUICE__DB_INFO_REQUEST__INIT;
    dq.db = argv[1];
    sl_buf reply;
    sl_buf_init(&reply);
    sl_error err = {0};
    int rc = call(c, SLUICE__MNODE_METHOD__MNODE_DB_INFO, &dq.base, &reply, &err);
    if (rc < 0)
        return fail(rc, &err);
    Sluice__DbInfoReply *di = sluice__db_info_reply__unpack(NULL, reply.len, reply.data);
    if (di == NULL)
        return fail(SL_ECORRUPT, NULL);
    size_t nmissing = 0;
    sl_error missing = {0};
    for (size_t g = 0; g < di->n_vgroups; g++) {
        sl_rpc_client *v = open_client(di->vgroups[g]->vnode_address);
        uint64_t cursor = 0;
        do {
            Sluice__QueryRequest rq = SLUICE__QUERY_REQUEST__INIT;
            rq.vgroup_id = di->vgroups[g]->vgroup_id;
            rq.db = argv[1];
            rq.sql = argv[2];
            rq.cursor = cursor;
            rq.max_bytes = page;
            rc = call(v, SLUICE__VNODE_METHOD__VNODE_QUERY, &rq.base, &reply, &err);
            if (rc == SL_ENOTFOUND && strstr(err.msg, "does not exist in vgroup") != NULL) {
                /* A child or normal table lives in one vgroup only. */
                missing = err;
                nmissing++;
                break;
            }
            if (rc < 0)
                return fail(rc, &err);
            Sluice__QueryReply *rp = sluice__query_reply__unpack(NULL, reply.len, reply.data);
            if (rp == NULL)
                return fail(SL_ECORRUPT, NULL);
            for (size_t i = 0; i < rp->n_blocks; i++)
                if (print_block(rp->blocks[i].data, rp->blocks[i].len) != 0)
                    return 1;
            cursor = rp->cursor;
            sluice__query_reply__free_unpacked(rp, NULL);
        } while (cursor != 0);
        sl_rpc_client_close(v);
    }
    if (nmissing > 0 && nmissing == di->n_vgroups)
        return fail(SL_ENOTFOUND, &missing);
    sluice__db_info_reply__free_unpacked(di, NULL);
    sl_buf_fini(&reply);
    sl_rpc_client_close(c);
    return 0;
}

static int cmd_changes(int argc, char **argv)
{
    if (argc < 3)
        return fail(SL_EINVAL, NULL);
    sl_rpc_client *v = open_client(argv[0]);
    Sluice__ChangesRequest rq = SLUICE__CHANGES_REQUEST__INIT;
    rq.vgroup_id = (uint32_t)strtoul(argv[1], NULL, 10);
    rq.after_version = strtoull(argv[2], NULL, 10);
    rq.wait_ms = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 0;
    rq.yielding = argc > 4 && strcmp(argv[4], "1") == 0;
    sl_buf reply;
    sl_buf_init(&reply);
    sl_error err = {0};
    int rc = call(v, SLUICE__VNODE_METHOD__VNODE_CHANGES, &rq.base, &reply, &err);
    if (rc < 0)
        return fail(rc, &err);
    Sluice__ChangesReply *rp = sluice__changes_reply__unpack(NULL, reply.len, reply.data);
    if (rp == NULL)
        return fail(SL_ECORRUPT, NULL);
    printf("last_version=%" PRIu64 " changes=%zu%s\n", rp->last_version, rp->n_changes,
           rp->writes_heavy ? " writes_heavy=1" : "");
    for (size_t i = 0; i < rp->n_changes; i++)
        printf("change version=%" PRIu64 " uid=%" PRIu64 " kind=%u count=%" PRIu64 "\n",
               rp->changes[i]->version, rp->changes[i]->uid, rp->changes[i]->kind,
               rp->changes[i]->count);
    sluice__changes_reply__free_unpacked(rp, NULL);
    sl_buf_fini(&reply);
    return 0;
}

/* fchanges: parses "a,b,c" (or "-") into a malloc'ed int32 list. */
static int32_t *fch_list(const char *s, size_t *n)
{
    *n = 0;
    int32_t *v = calloc(strlen(s) + 1, sizeof(*v));
    if (v == NULL || strcmp(s, "-") == 0 || *s == '\0')
        return v;
    for (const char *p = s; *p;) {
        char *end;
        v[(*n)++] = (int32_t)strtol(p, &end, 10);
        p = *end == ',' ? end + 1 : end + strlen(end);
    }
    return v;
}

static int cmd_fchanges(int argc, char **argv)
{
    if (argc < 8)
        return fail(SL_EINVAL, NULL);
    sl_rpc_client *v = open_client(argv[0]);
    Sluice__ChangesRequest rq = SLUICE__CHANGES_REQUEST__INIT;
    Sluice__ChangesFilter fl = SLUICE__CHANGES_FILTER__INIT;
    rq.vgroup_id = (uint32_t)strtoul(argv[1], NULL, 10);
    rq.after_version = strtoull(argv[2], NULL, 10);
    rq.wait_ms = argc > 9 ? (uint32_t)strtoul(argv[9], NULL, 10) : 0;
    rq.max_entries = argc > 10 ? (uint32_t)strtoul(argv[10], NULL, 10) : 0;
    rq.filter = &fl;
    fl.table_uid = strtoull(argv[3], NULL, 10);
    int32_t *group = fch_list(argv[4], &fl.n_group_items);
    fl.group_items = group;
    fl.nslots = (uint32_t)strtoul(argv[5], NULL, 10);
    uint8_t *bits = calloc(strlen(argv[6]) + fl.nslots / 8 + 2, 1);
    if (strncmp(argv[6], "x:", 2) == 0) {
        for (const char *h = argv[6] + 2; h[0] && h[1]; h += 2) {
            unsigned x;
            sscanf(h, "%2x", &x);
            bits[fl.slots.len++] = (uint8_t)x;
        }
    } else {
        size_t ns;
        int32_t *owned = fch_list(argv[6], &ns);
        fl.slots.len = (fl.nslots + 7) / 8;
        for (size_t i = 0; owned && i < ns; i++)
            if (owned[i] >= 0 && (uint32_t)owned[i] < fl.nslots)
                bits[owned[i] / 8] |= (uint8_t)(1u << (owned[i] % 8));
        free(owned);
    }
    fl.slots.data = bits;
    int32_t *proj = fch_list(argv[7], &fl.n_proj);
    fl.proj = proj;
    fl.pre_filter = argc > 8 ? argv[8] : "";
    sl_buf reply;
    sl_buf_init(&reply);
    sl_error err = {0};
    int rc = call(v, SLUICE__VNODE_METHOD__VNODE_CHANGES, &rq.base, &reply, &err);
    free(group);
    free(bits);
    free(proj);
    if (rc < 0)
        return fail(rc, &err);
    Sluice__ChangesReply *rp = sluice__changes_reply__unpack(NULL, reply.len, reply.data);
    if (rp == NULL)
        return fail(SL_ECORRUPT, NULL);
    printf("last_version=%" PRIu64 " changes=%zu more=%d\n", rp->last_version, rp->n_changes,
           (int)rp->more);
    for (size_t i = 0; i < rp->n_changes; i++) {
        const Sluice__Change *c = rp->changes[i];
        printf("change version=%" PRIu64 " uid=%" PRIu64 " kind=%u name=%s group=%" PRIu64
               " count=%" PRIu64 " unfiltered=%d",
               c->version, c->uid, c->kind, c->table_name, c->group_id, c->count,
               (int)c->unfiltered);
        if (c->kind == 2)
            printf(" lo=%" PRId64 " hi=%" PRId64, c->ts_lo, c->ts_hi);
        putchar('\n');
        if (c->kind == 1 && print_block(c->block.data, c->block.len) != 0)
            return 1;
    }
    sluice__changes_reply__free_unpacked(rp, NULL);
    sl_buf_fini(&reply);
    sl_rpc_client_close(v);
    return 0;
}

static int cmd_status(int argc, char **argv)
{
    if (argc < 2)
        return fail(SL_EINVAL, NULL);
    sl_rpc_client *v = open_client(argv[0]);
    Sluice__StatusRequest rq = SLUICE__STATUS_REQUEST__INIT;
    rq.vgroup_id = (uint32_t)strtoul(argv[1], NULL, 10);
    sl_buf reply;
    sl_buf_init(&reply);
    sl_error err = {0};
    int rc = call(v, SLUICE__VNODE_METHOD__VNODE_STATUS, &rq.base, &reply, &err);
    if (rc < 0)
        return fail(rc, &err);
    Sluice__StatusReply *rp = sluice__status_reply__unpack(NULL, reply.len, reply.data);
    if (rp == NULL)
        return fail(SL_ECORRUPT, NULL);
    printf("last_version=%" PRIu64 " first_retained=%" PRIu64 " tables=%" PRIu64 "\n",
           rp->last_version, rp->first_retained_version, rp->tables);
    sluice__status_reply__free_unpacked(rp, NULL);
    sl_buf_fini(&reply);
    return 0;
}

static int cmd_raw(int argc, char **argv)
{
    if (argc < 2)
        return fail(SL_EINVAL, NULL);
    sl_rpc_client *c = open_client(argv[0]);
    sl_buf frame;
    sl_buf_init(&frame);
    if (strncmp(argv[1], "random:", 7) == 0) {
        long n = strtol(argv[1] + 7, NULL, 10);
        srandom((unsigned)getpid());
        for (long i = 0; i < n; i++)
            sl_buf_put_u8(&frame, (uint8_t)random());
    } else {
        const char *hex = strncmp(argv[1], "hex:", 4) == 0 ? argv[1] + 4 : argv[1];
        for (const char *h = hex; h[0] && h[1]; h += 2) {
            unsigned x;
            sscanf(h, "%2x", &x);
            sl_buf_put_u8(&frame, (uint8_t)x);
        }
    }
    sl_buf reply;
    sl_buf_init(&reply);
    sl_error err = {0};
    int rc = sl_rpc_call_frame(c, frame.data, frame.len, &reply, 5000, &err);
    if (rc < 0)
        return fail(rc, &err);
    printf("reply %zu bytes\n", reply.len);
    sl_buf_fini(&reply);
    sl_buf_fini(&frame);
    sl_rpc_client_close(c);
    return 0;
}

/* Prints s as a JSON string literal. */
static void json_str(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static int cmd_snode_status(int argc, char **argv)
{
    if (argc < 1)
        return fail(SL_EINVAL, NULL);
    sl_rpc_client *c = open_client(argv[0]);
    Sluice__SnodeStatusRequest rq = SLUICE__SNODE_STATUS_REQUEST__INIT;
    rq.version = 1;
    sl_buf reply;
    sl_buf_init(&reply);
    sl_error err = {0};
    int rc = call(c, SLUICE__SNODE_METHOD__SNODE_STATUS, &rq.base, &reply, &err);
    if (rc < 0)
        return fail(rc, &err);
    Sluice__SnodeStatusReply *rp = sluice__snode_status_reply__unpack(NULL, reply.len, reply.data);
    if (rp == NULL)
        return fail(SL_ECORRUPT, NULL);
    printf("{\"node_id\": %u, \"epoch\": %" PRIu64 ", \"slots\": %u, \"address\": ", rp->node_id,
           rp->epoch, rp->slots);
    json_str(rp->address);
    printf(", \"mnode_ok\": %s, \"assignments\": %" PRIu64 ", \"streams\": [",
           rp->mnode_ok ? "true" : "false", rp->assignments);
    for (size_t i = 0; i < rp->n_streams; i++) {
        const Sluice__SnodeStream *s = rp->streams[i];
        printf("%s{\"stream_id\": %" PRIu64 ", \"db\": ", i ? ", " : "", s->stream_id);
        json_str(s->db);
        fputs(", \"name\": ", stdout);
        json_str(s->name);
        printf(", \"running\": %s, \"failed\": %s, \"error\": ", s->running ? "true" : "false",
               s->failed ? "true" : "false");
        json_str(s->error);
        fputs(", \"trigger\": ", stdout);
        json_str(s->trigger);
        fputs(", \"plan_db\": ", stdout);
        json_str(s->plan_db);
        printf(", \"calc_here\": %" PRIu64 ", \"calc_remote\": %" PRIu64
               ", \"rows_kept_bytes\": %" PRIu64, s->calc_here, s->calc_remote, s->rows_kept_bytes);
        printf(", \"owned\": %u, \"ranges\": [", s->nslots_owned);
        /* Contiguous runs of owned slots, [first, last] inclusive. */
        int nr = 0;
        uint32_t nbits = (uint32_t)s->slots.len * 8;
        if (rp->slots > 0 && rp->slots < nbits)
            nbits = rp->slots;
        for (uint32_t b = 0; b < nbits;) {
            if (!((s->slots.data[b / 8] >> (b % 8)) & 1u)) {
                b++;
                continue;
            }
            uint32_t e = b;
            while (e + 1 < nbits && ((s->slots.data[(e + 1) / 8] >> ((e + 1) % 8)) & 1u))
                e++;
            printf("%s[%u, %u]", nr++ ? ", " : "", b, e);
            b = e + 1;
        }
        fputs("]}", stdout);
    }
    fputs("]}\n", stdout);
    sluice__snode_status_reply__free_unpacked(rp, NULL);
    sl_buf_fini(&reply);
    sl_rpc_client_close(c);
    return 0;
}

static int cmd_checkpoint_put(int argc, char **argv)
{
    if (argc < 6)
        return fail(SL_EINVAL, NULL);
    sl_rpc_client *c = open_client(argv[0]);
    Sluice__CheckpointPutRequest rq = SLUICE__CHECKPOINT_PUT_REQUEST__INIT;
    rq.node_id = (uint32_t)strtoul(argv[1], NULL, 10);
    uint64_t epoch = strtoull(argv[2], NULL, 10);
    rq.stream_id = strtoull(argv[3], NULL, 10);
    rq.slot = (uint32_t)strtoul(argv[4], NULL, 10);
    rq.state.data = (uint8_t *)argv[5];
    rq.state.len = strlen(argv[5]);
    sl_buf reply;
    sl_buf_init(&reply);
    sl_error err = {0};
    int rc = call_epoch(c, SLUICE__MNODE_METHOD__MNODE_CHECKPOINT_PUT, epoch, &rq.base, &reply,
                        &err);
    if (rc < 0)
        return fail(rc, &err);
    Sluice__CheckpointPutReply *rp = sluice__checkpoint_put_reply__unpack(NULL, reply.len,
                                                                          reply.data);
    if (rp == NULL)
        return fail(SL_ECORRUPT, NULL);
    printf("epoch=%" PRIu64 "\n", rp->epoch);
    sluice__checkpoint_put_reply__free_unpacked(rp, NULL);
    sl_buf_fini(&reply);
    sl_rpc_client_close(c);
    return 0;
}

static int cmd_checkpoint_get(int argc, char **argv)
{
    if (argc < 3)
        return fail(SL_EINVAL, NULL);
    sl_rpc_client *c = open_client(argv[0]);
    Sluice__CheckpointGetRequest rq = SLUICE__CHECKPOINT_GET_REQUEST__INIT;
    rq.stream_id = strtoull(argv[1], NULL, 10);
    rq.slot = (uint32_t)strtoul(argv[2], NULL, 10);
    sl_buf reply;
    sl_buf_init(&reply);
    sl_error err = {0};
    int rc = call(c, SLUICE__MNODE_METHOD__MNODE_CHECKPOINT_GET, &rq.base, &reply, &err);
    if (rc < 0)
        return fail(rc, &err);
    Sluice__CheckpointGetReply *rp = sluice__checkpoint_get_reply__unpack(NULL, reply.len,
                                                                          reply.data);
    if (rp == NULL)
        return fail(SL_ECORRUPT, NULL);
    if (!rp->found) {
        printf("found=0\n");
    } else {
        printf("found=1 epoch=%" PRIu64 " node_id=%u state=", rp->epoch, rp->node_id);
        fwrite(rp->state.data, 1, rp->state.len, stdout);
        putchar('\n');
    }
    sluice__checkpoint_get_reply__free_unpacked(rp, NULL);
    sl_buf_fini(&reply);
    sl_rpc_client_close(c);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        {"exec", cmd_exec},       {"meta", cmd_meta},   {"write", cmd_write},
        {"delete", cmd_delete},   {"query", cmd_query}, {"changes", cmd_changes},
        {"fchanges", cmd_fchanges},
        {"autocreate", cmd_autocreate},
        {"status", cmd_status},   {"raw", cmd_raw},
        {"snode-status", cmd_snode_status},
        {"checkpoint-put", cmd_checkpoint_put},
        {"checkpoint-get", cmd_checkpoint_get},
    };
    while (argc >= 3 && strcmp(argv[1], "--epoch") == 0) {
        char *end;
        g_epoch = strtoull(argv[2], &end, 10);
        if (*argv[2] == '\0' || *argv[2] == '-' || *end != '\0') {
            fprintf(stderr, "sluice-rpc: bad --epoch '%s'\n", argv[2]);
            return 2;
        }
        argv += 2;
        argc -= 2;
    }
    if (argc >= 2) {
        for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
            if (strcmp(argv[1], cmds[i].name) == 0)
                return cmds[i].fn(argc - 2, argv + 2);
    }
    fprintf(stderr, "usage: sluice-rpc [--epoch N] exec|meta|write|autocreate|delete|query|changes|"
                    "fchanges|status|raw|snode-status|checkpoint-put|checkpoint-get ...\n"
                    "(see the comment at the top of tools/sluice-rpc.c)\n");
    return 2;
}
