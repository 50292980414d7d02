/*
 * catalog_stream.c - the streams of the mnode catalog: CREATE/DROP/START/STOP STREAM,
 * their records, loading, SHOW CREATE STREAM (catalog.h; SHOW STREAMS and
 * information_schema.ins_streams are rows of catalog_sys.c).
 *
 * A stream belongs to a database ([db.]name, unqualified: the current database). CREATE
 * STREAM resolves the FROM trigger table (qualified, else the current database, else the
 * stream's database), validates the statement with sl_stream_check (common/sql/stream_check.h)
 * against that table's meta and the database's precision, and stores the record - id,
 * database, name, the statement's exact source text, status, creation time, trigger table -
 * with the next-id counter in one synced batch. SHOW CREATE STREAM returns that text, so it
 * re-parses to the same tree. DROP STREAM a, b is all or nothing; START/STOP persist the
 * status ("running"/"stopped"); DROP DATABASE deletes its streams in its own batch
 * (sl__mc_streams_batch_drop_db). CREATE STREAM ... INTO creates the output table
 * (catalog_stream_out.c derives its schema) in the same synced batch as the stream record,
 * through the DDL applier of catalog_ddl.c, so the table is placed and reported like
 * CREATE [S]TABLE's; DROP STREAM keeps it.
 *
 * On disk: cf "streams", key str(lower db) str(lower name), value
 *   u8 version, u64 id, str db, str name, str sql, str trigger, u8 running, vari created;
 * cf "meta", key "stream_counter": u8 version, u64 next id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog_int.h"
#include "common/kv/keycodec.h"
#include "common/sql/stream_check.h"

#define STREAM_COUNTER_KEY "stream_counter"

bool sl__mc_is_stream_stmt(sl_stmt_kind k)
{
    return k == SL_STMT_CREATE_STREAM || k == SL_STMT_DROP_STREAM || k == SL_STMT_START_STREAM ||
           k == SL_STMT_STOP_STREAM;
}

/* ------------------------------------------------------------ registry */

static void stream_free(sl__mc_stream *s)
{
    if (s == NULL)
        return;
    free(s->s_db);
    free(s->s_name);
    free(s->s_sql);
    free(s->s_trigger);
    free(s->s_plan_db);
    free(s->s_tdb);
    sl__mc_hold_free(s->s_hold); /* DROP STREAM / DATABASE: its holds go with it */
    free(s);
}

void sl__mc_streams_free(sl_mcatalog *cat)
{
    for (int i = 0; i < cat->c_nstreams; i++)
        stream_free(cat->c_streams[i]);
    free(cat->c_streams);
    cat->c_streams = NULL;
    cat->c_nstreams = cat->c_capstreams = 0;
}

static int reserve_streams(sl_mcatalog *cat, int more)
{
    if (cat->c_nstreams + more <= cat->c_capstreams)
        return 0;
    int cap = cat->c_capstreams ? cat->c_capstreams : 8;
    while (cap < cat->c_nstreams + more)
        cap *= 2;
    sl__mc_stream **p = realloc(cat->c_streams, (size_t)cap * sizeof(*p));
    if (p == NULL)
        return SL_ENOMEM;
    cat->c_streams = p;
    cat->c_capstreams = cap;
    return 0;
}

static int find_index(const sl_mcatalog *cat, const char *db, const char *name)
{
    for (int i = 0; i < cat->c_nstreams; i++)
        if (sl_ddl_name_eq(cat->c_streams[i]->s_db, db) &&
            sl_ddl_name_eq(cat->c_streams[i]->s_name, name))
            return i;
    return -1;
}

static void remove_at(sl_mcatalog *cat, int i)
{
    stream_free(cat->c_streams[i]);
    cat->c_streams[i] = cat->c_streams[--cat->c_nstreams];
}

void sl__mc_streams_forget_db(sl_mcatalog *cat, const char *db)
{
    for (int i = cat->c_nstreams - 1; i >= 0; i--)
        if (sl_ddl_name_eq(cat->c_streams[i]->s_db, db))
            remove_at(cat, i);
}

/* ------------------------------------------------------------ records */

static int enc_stream(sl_buf *v, const sl__mc_stream *s, bool running)
{
    int rc = sl_buf_put_u8(v, SL__MC_FORMAT);
    if (rc == 0)
        rc = sl_buf_put_u64(v, s->s_id);
    if (rc == 0)
        rc = sl__mc_put_str(v, s->s_db);
    if (rc == 0)
        rc = sl__mc_put_str(v, s->s_name);
    if (rc == 0)
        rc = sl__mc_put_str(v, s->s_sql);
    if (rc == 0)
        rc = sl__mc_put_str(v, s->s_trigger);
    if (rc == 0)
        rc = sl_buf_put_u8(v, running ? 1 : 0);
    if (rc == 0)
        rc = sl_buf_put_vari(v, s->s_created);
    if (rc == 0)
        rc = sl__mc_put_str(v, s->s_plan_db ? s->s_plan_db : s->s_db); /* added; optional on read */
    return rc;
}

/* Adds a put of s's record (with status `running`) to b. */
static int batch_put_stream(sl_mcatalog *cat, sl_kv_batch *b, const sl__mc_stream *s, bool running)
{
    sl_buf k, v;
    sl_buf_init(&k);
    sl_buf_init(&v);
    int rc = sl__mc_key_table(&k, s->s_db, s->s_name);
    if (rc == 0)
        rc = enc_stream(&v, s, running);
    if (rc == 0)
        rc = sl_kv_batch_put(b, cat->c_cf_streams, k.data, k.len, v.data, v.len);
    sl_buf_fini(&k);
    sl_buf_fini(&v);
    return rc;
}

static int batch_del_stream(sl_mcatalog *cat, sl_kv_batch *b, const sl__mc_stream *s)
{
    sl_buf k;
    sl_buf_init(&k);
    int rc = sl__mc_key_table(&k, s->s_db, s->s_name);
    if (rc == 0)
        rc = sl_kv_batch_delete(b, cat->c_cf_streams, k.data, k.len);
    sl_buf_fini(&k);
    return rc;
}

static int batch_counter(sl_mcatalog *cat, sl_kv_batch *b, uint64_t next)
{
    sl_buf v;
    sl_buf_init(&v);
    int rc = sl_buf_put_u8(&v, SL__MC_FORMAT);
    if (rc == 0)
        rc = sl_buf_put_u64(&v, next);
    if (rc == 0)
        rc = sl_kv_batch_put(b, cat->c_cf_meta, STREAM_COUNTER_KEY, sizeof(STREAM_COUNTER_KEY) - 1,
                             v.data, v.len);
    sl_buf_fini(&v);
    return rc;
}

int sl__mc_streams_batch_drop_db(sl_mcatalog *cat, sl_kv_batch *b, const char *db)
{
    sl_buf k, end;
    sl_buf_init(&k);
    sl_buf_init(&end);
    int rc = sl__mc_key_db(&k, db);
    if (rc == 0)
        rc = sl_buf_put(&end, k.data, k.len);
    if (rc == 0)
        rc = sl_key_successor(&end);
    if (rc == 0)
        rc = sl_kv_batch_delete_range(b, cat->c_cf_streams, k.data, k.len, end.data, end.len);
    for (int i = 0; rc == 0 && i < cat->c_nstreams; i++)
        if (sl_ddl_name_eq(cat->c_streams[i]->s_db, db))
            rc = sl__mc_checkpoints_batch_drop(cat, b, cat->c_streams[i]->s_id);
    sl_buf_fini(&k);
    sl_buf_fini(&end);
    return rc;
}

/* Writes batch b synced. */
static int write_batch(sl_mcatalog *cat, sl_kv_batch *b, sl_pos pos, sl_error *err)
{
    int rc = sl_kv_write(cat->c_kv, b, SL_KV_SYNC_ON, err);
    if (rc < 0 && err != NULL && err->code != 0 && err->line == 0) {
        err->line = pos.line;
        err->col = pos.col;
    }
    return rc;
}

/* ------------------------------------------------------------ loading */

static int decode_stream(const void *v, size_t vn, sl__mc_stream *s)
{
    sl_reader r;
    sl_reader_init(&r, v, vn);
    uint8_t ver, running;
    if (sl_reader_u8(&r, &ver) < 0 || ver != SL__MC_FORMAT || sl_reader_u64(&r, &s->s_id) < 0)
        return SL_ECORRUPT;
    int rc = sl__mc_get_str(&r, &s->s_db);
    if (rc == 0)
        rc = sl__mc_get_str(&r, &s->s_name);
    if (rc == 0)
        rc = sl__mc_get_str(&r, &s->s_sql);
    if (rc == 0)
        rc = sl__mc_get_str(&r, &s->s_trigger);
    if (rc == 0 && (sl_reader_u8(&r, &running) < 0 || running > 1 ||
                    sl_reader_vari(&r, &s->s_created) < 0))
        rc = SL_ECORRUPT;
    if (rc == 0 && sl_reader_left(&r) != 0)
        rc = sl__mc_get_str(&r, &s->s_plan_db);
    if (rc == 0 && sl_reader_left(&r) != 0)
        rc = SL_ECORRUPT;
    if (rc == 0)
        s->s_running = running != 0;
    return rc;
}

static int corrupt(sl_mcatalog *cat, sl_error *err, const char *what)
{
    return sl_error_set(err, SL_ECORRUPT, 0, 0, "catalog '%s': %s", sl_kv_path(cat->c_kv), what);
}

static int load_counter(sl_mcatalog *cat, sl_error *err)
{
    sl_buf v;
    sl_buf_init(&v);
    int rc = sl_kv_get(cat->c_kv, cat->c_cf_meta, NULL, STREAM_COUNTER_KEY,
                       sizeof(STREAM_COUNTER_KEY) - 1, &v, err);
    if (rc == SL_ENOTFOUND) {
        sl_error_clear(err);
        rc = 0;
    } else if (rc == 0) {
        sl_reader r;
        sl_reader_init(&r, v.data, v.len);
        uint8_t ver;
        uint64_t next;
        if (sl_reader_u8(&r, &ver) < 0 || ver != SL__MC_FORMAT || sl_reader_u64(&r, &next) < 0 ||
            next == 0)
            rc = corrupt(cat, err, "bad stream counter record");
        else
            cat->c_next_stream = next;
    }
    sl_buf_fini(&v);
    return rc;
}

int sl__mc_streams_load(sl_mcatalog *cat, sl_error *err)
{
    int rc = load_counter(cat, err);
    if (rc < 0)
        return rc;
    sl_kv_iter *it = NULL;
    sl_kv_iter_options o = {.no_fill_cache = true};
    rc = sl_kv_iter_open(&it, cat->c_kv, cat->c_cf_streams, &o, err);
    if (rc < 0)
        return rc;
    for (sl_kv_iter_first(it); rc == 0 && sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        size_t vn;
        const void *v = sl_kv_iter_value(it, &vn);
        sl__mc_stream *s = calloc(1, sizeof(*s));
        if (s == NULL || reserve_streams(cat, 1) < 0) {
            free(s);
            rc = SL_ENOMEM;
            break;
        }
        rc = decode_stream(v, vn, s);
        if (rc == 0 && (sl__mc_find_db(cat, s->s_db) == NULL ||
                        find_index(cat, s->s_db, s->s_name) >= 0))
            rc = SL_ECORRUPT;
        if (rc == 0)
            rc = sl__mc_stream_resolve_tdb(cat, s);
        if (rc < 0) {
            stream_free(s);
            if (rc == SL_ECORRUPT)
                rc = corrupt(cat, err, "bad stream record");
            break;
        }
        cat->c_streams[cat->c_nstreams++] = s;
        if (s->s_id >= cat->c_next_stream)
            cat->c_next_stream = s->s_id + 1;
    }
    if (rc == 0)
        rc = sl_kv_iter_status(it, err);
    sl_kv_iter_close(it);
    return rc;
}

/* ------------------------------------------------------------ statements */

/* The database of a stream name: q->db, else the current one. */
static int resolve_db(sl_mcatalog *cat, const sl_qname *q, const char *current_db,
                      sl__mc_db **out, bool *info, sl_error *err)
{
    const char *name = q->db ? q->db : current_db;
    *info = false;
    *out = NULL;
    if (name == NULL)
        return sl_ddl_error(err, SL_ENOTFOUND, q->pos,
                            "no database selected for '%s': USE a database or write db.%s", q->name,
                            q->name);
    if (sl_ddl_name_eq(name, SL_DDL_INFO_SCHEMA)) {
        *info = true;
        return 0;
    }
    *out = sl__mc_find_db(cat, name);
    if (*out == NULL)
        return sl_ddl_error(err, SL_ENOTFOUND, q->pos, "database '%s' does not exist", name);
    return 0;
}

static char *dup_str(const char *s)
{
    return strdup(s ? s : "");
}

/* Adds the stream record and the next-id counter to the batch of the INTO table. */
typedef struct create_hook {
    sl_mcatalog *cat;
    sl__mc_stream *s; /* the new stream; NULL once linked */
} create_hook;

static int create_prepare(void *arg, sl_kv_batch *b)
{
    create_hook *h = arg;
    int rc = batch_put_stream(h->cat, b, h->s, true);
    return rc ? rc : batch_counter(h->cat, b, h->s->s_id + 1);
}

static void create_commit(void *arg)
{
    create_hook *h = arg;
    h->cat->c_streams[h->cat->c_nstreams++] = h->s; /* reserved beforehand */
    h->cat->c_next_stream = h->s->s_id + 1;
    h->s = NULL;
}

static int create_stream(sl_mcatalog *cat, const sl_stmt *stmt, const char *current_db,
                         sl_ddl_result *out, sl_error *err)
{
    const sl_create_stream *cs = &stmt->u.create_stream;
    sl__mc_db *db;
    bool info;
    int rc = resolve_db(cat, &cs->name, current_db, &db, &info, err);
    if (rc < 0)
        return rc;
    if (info)
        return sl_ddl_error(err, SL_EINVAL, cs->name.pos,
                            "database '%s' is read-only: it holds the system tables",
                            SL_DDL_INFO_SCHEMA);
    if (strlen(cs->name.name) > SL_TABLE_NAME_MAX)
        return sl_ddl_error(err, SL_ELIMIT, cs->name.pos, "stream name '%s' is longer than %d bytes",
                            cs->name.name, SL_TABLE_NAME_MAX);
    if (find_index(cat, db->d_name, cs->name.name) >= 0) {
        if (cs->if_not_exists)
            return 0;
        return sl_ddl_error(err, SL_EEXIST, cs->name.pos, "stream '%s' already exists",
                            cs->name.name);
    }
    /* The trigger table. */
    sl_mcatalog_table trig;
    char trigger[SL_NAME_MAX + SL_TABLE_NAME_MAX + 2] = "";
    const char *tdb_name = NULL; /* the trigger table's database */
    sl_stream_check_ctx ctx = {.trigger_table = NULL, .precision = db->d_prec};
    if (cs->has_from) {
        const char *tdb = cs->from.db ? cs->from.db : current_db ? current_db : db->d_name;
        if (sl_ddl_name_eq(tdb, SL_DDL_INFO_SCHEMA))
            return sl_ddl_error(err, SL_EINVAL, cs->from.pos,
                                "a system table of '%s' cannot trigger a stream",
                                SL_DDL_INFO_SCHEMA);
        const sl__mc_db *td = sl__mc_find_db(cat, tdb);
        if (td == NULL)
            return sl_ddl_error(err, SL_ENOTFOUND, cs->from.pos, "database '%s' does not exist",
                                tdb);
        const sl__mc_table *t = sl__mc_find_table(td, cs->from.name);
        if (t == NULL)
            return sl_ddl_error(err, SL_ENOTFOUND, cs->from.pos,
                                "table '%s' does not exist in database '%s'", cs->from.name,
                                td->d_name);
        sl__mc_table_view(cat, t, &trig);
        ctx.trigger_table = &trig.meta;
        tdb_name = td->d_name;
        if (td == db)
            snprintf(trigger, sizeof(trigger), "%s", t->t_name);
        else
            snprintf(trigger, sizeof(trigger), "%s.%s", td->d_name, t->t_name);
    }
    rc = sl_stream_check(cs, &ctx, err);
    if (rc < 0)
        return rc;
    if (stmt->text == NULL)
        return sl_ddl_error(err, SL_EINVAL, stmt->pos, "the statement's source text is missing");
    if (strlen(stmt->text) > SL_VARCHAR_MAX)
        return sl_ddl_error(err, SL_ELIMIT, stmt->pos,
                            "a CREATE STREAM statement may be at most %d bytes long",
                            SL_VARCHAR_MAX);
    /* The INTO table (unqualified names of the query resolve like the trigger table's). */
    sl_ddl_plan plan;
    sl_ddl_plan_init(&plan);
    sl__mc_stream *s = NULL;
    rc = sl__mc_stream_out_plan(cat, cs, db, current_db ? current_db : db->d_name,
                                ctx.trigger_table, &plan, err);
    if (rc < 0)
        goto done;
    /* Build, then write the stream with the table in one batch, link. */
    s = calloc(1, sizeof(*s));
    if (s == NULL || reserve_streams(cat, 1) < 0) {
        rc = SL_ENOMEM;
        goto done;
    }
    s->s_id = cat->c_next_stream;
    s->s_db = dup_str(db->d_name);
    s->s_name = dup_str(cs->name.name);
    s->s_sql = dup_str(stmt->text);
    s->s_trigger = dup_str(trigger);
    s->s_running = true;
    s->s_created = sl__mc_now(cat);
    s->s_plan_db = dup_str(current_db ? current_db : db->d_name);
    s->s_tdb = tdb_name ? strdup(tdb_name) : NULL;
    if (!s->s_db || !s->s_name || !s->s_sql || !s->s_trigger || !s->s_plan_db ||
        (tdb_name && !s->s_tdb)) {
        rc = SL_ENOMEM;
        goto done;
    }
    create_hook h = {.cat = cat, .s = s};
    sl__mc_apply_hook hook = {
        .pos = stmt->pos, .prepare = create_prepare, .commit = create_commit, .arg = &h};
    rc = sl__mc_apply_plan(cat, &plan, &hook, out, err);
    if (rc < 0 && err != NULL && err->code != 0 && err->line == 0) {
        err->line = stmt->pos.line; /* a storage error: the statement's position */
        err->col = stmt->pos.col;
    }
    s = h.s;
done:
    if (rc == SL_ENOMEM)
        sl_ddl_error(err, rc, stmt->pos, "out of memory");
    stream_free(s);
    sl_ddl_plan_fini(&plan);
    return rc;
}

static int drop_streams(sl_mcatalog *cat, const sl_stmt *stmt, const char *current_db,
                        sl_error *err)
{
    const sl_drop *d = &stmt->u.drop;
    sl__mc_stream **victims = calloc((size_t)(d->n > 0 ? d->n : 1), sizeof(*victims));
    if (victims == NULL)
        return sl_ddl_error(err, SL_ENOMEM, stmt->pos, "out of memory");
    int nv = 0, rc = 0;
    for (int i = 0; rc == 0 && i < d->n; i++) {
        const sl_qname *q = &d->names[i];
        sl__mc_db *db;
        bool info;
        sl_error e2;
        sl_error_clear(&e2);
        rc = resolve_db(cat, q, current_db, &db, &info, d->if_exists ? &e2 : err);
        if (rc < 0 && d->if_exists && q->db != NULL) {
            rc = 0; /* an unknown database holds no stream */
            continue;
        }
        if (rc < 0) {
            if (d->if_exists)
                rc = sl_ddl_error(err, rc, q->pos, "%s", e2.msg);
            break;
        }
        int k = info ? -1 : find_index(cat, db->d_name, q->name);
        if (k < 0) {
            if (!d->if_exists)
                rc = sl_ddl_error(err, SL_ENOTFOUND, q->pos, "stream '%s' does not exist",
                                  q->name);
            continue;
        }
        bool dup = false;
        for (int j = 0; j < nv; j++)
            dup = dup || victims[j] == cat->c_streams[k];
        if (!dup)
            victims[nv++] = cat->c_streams[k];
    }
    sl_kv_batch *b = NULL;
    if (rc == 0 && nv > 0) {
        if (sl_kv_batch_open(&b) < 0)
            rc = SL_ENOMEM;
        for (int j = 0; rc == 0 && j < nv; j++) {
            rc = batch_del_stream(cat, b, victims[j]);
            if (rc == 0) /* dropping a stream releases its checkpoints */
                rc = sl__mc_checkpoints_batch_drop(cat, b, victims[j]->s_id);
        }
        if (rc == SL_ENOMEM)
            sl_ddl_error(err, rc, stmt->pos, "out of memory");
        if (rc == 0)
            rc = write_batch(cat, b, stmt->pos, err);
        for (int j = 0; rc == 0 && j < nv; j++)
            remove_at(cat, find_index(cat, victims[j]->s_db, victims[j]->s_name));
    }
    sl_kv_batch_close(b);
    free(victims);
    return rc;
}

static int control_stream(sl_mcatalog *cat, const sl_stmt *stmt, const char *current_db,
                          sl_error *err)
{
    const sl_stream_ctl *c = &stmt->u.stream_ctl;
    bool start = stmt->kind == SL_STMT_START_STREAM;
    sl__mc_db *db;
    bool info;
    sl_error e2;
    sl_error_clear(&e2);
    int rc = resolve_db(cat, &c->name, current_db, &db, &info, c->if_exists ? &e2 : err);
    if (rc < 0) {
        if (c->if_exists && c->name.db != NULL)
            return 0;
        if (c->if_exists)
            sl_ddl_error(err, rc, c->name.pos, "%s", e2.msg);
        return rc;
    }
    int k = info ? -1 : find_index(cat, db->d_name, c->name.name);
    if (k < 0)
        return c->if_exists ? 0
                            : sl_ddl_error(err, SL_ENOTFOUND, c->name.pos,
                                           "stream '%s' does not exist", c->name.name);
    sl__mc_stream *s = cat->c_streams[k];
    if (s->s_running == start)
        return 0; /* START of a running stream, STOP of a stopped one: nothing to do */
    s->s_ignore_untreated = start && c->ignore_untreated;
    /* The START changes the placement's running flag: the next placement (right after
     * this statement) bumps the epoch by one, and that epoch marks the checkpoints older
     * than the START. */
    s->s_untreated_epoch = s->s_ignore_untreated ? cat->c_epoch + 1 : 0;
    sl_kv_batch *b = NULL;
    rc = sl_kv_batch_open(&b);
    if (rc == 0)
        rc = batch_put_stream(cat, b, s, start);
    if (rc < 0)
        sl_ddl_error(err, rc, stmt->pos, "out of memory");
    else
        rc = write_batch(cat, b, stmt->pos, err);
    if (rc == 0)
        s->s_running = start;
    sl_kv_batch_close(b);
    return rc;
}

int sl__mc_stream_exec(sl_mcatalog *cat, const sl_stmt *stmt, const char *current_db,
                       sl_ddl_result *out, sl_error *err)
{
    switch (stmt->kind) {
    case SL_STMT_CREATE_STREAM: return create_stream(cat, stmt, current_db, out, err);
    case SL_STMT_DROP_STREAM: return drop_streams(cat, stmt, current_db, err);
    case SL_STMT_START_STREAM:
    case SL_STMT_STOP_STREAM: return control_stream(cat, stmt, current_db, err);
    default:
        return sl_ddl_error(err, SL_EUNSUPPORTED, stmt->pos, "%s is not a stream statement",
                            sl_stmt_kind_name(stmt->kind));
    }
}

/* ------------------------------------------------------------ queries */

int sl__mc_streams_show_db(sl_mcatalog *cat, const sl_stmt *st, const char *current_db,
                           const char **db, sl_error *err)
{
    const char *name = st->u.show.db ? st->u.show.db : current_db;
    *db = NULL;
    if (name == NULL || sl_ddl_name_eq(name, SL_DDL_INFO_SCHEMA)) {
        *db = name; /* NULL: every database; information_schema: none */
        return 0;
    }
    const sl__mc_db *d = sl__mc_find_db(cat, name);
    if (d == NULL)
        return sl_ddl_error(err, SL_ENOTFOUND, st->pos, "database '%s' does not exist", name);
    *db = d->d_name;
    return 0;
}

int sl__mc_stream_show_create(sl_mcatalog *cat, const sl_stmt *st, const char *current_db,
                              sl_result *res, sl_error *err)
{
    const sl_qname *q = &st->u.show.name;
    sl__mc_db *db;
    bool info;
    int rc = resolve_db(cat, q, current_db, &db, &info, err);
    if (rc < 0)
        return rc;
    int k = info ? -1 : find_index(cat, db->d_name, q->name);
    if (k < 0)
        return sl_ddl_error(err, SL_ENOTFOUND, q->pos, "stream '%s' does not exist", q->name);
    const sl__mc_stream *s = cat->c_streams[k];
    const char *names[2] = {"stream_name", "create_stream"};
    sl_type types[2] = {SL_T_VARCHAR, SL_T_VARCHAR};
    uint32_t widths[2] = {SL_TABLE_NAME_MAX, SL_VARCHAR_MAX};
    rc = sl_result_setup(res, 2, names, types, widths);
    sl_value v = sl_value_str(SL_T_VARCHAR, s->s_name, (uint32_t)strlen(s->s_name));
    if (rc == 0)
        rc = sl_column_append_value(&res->rows.cols[0], &v);
    v = sl_value_str(SL_T_VARCHAR, s->s_sql, (uint32_t)strlen(s->s_sql));
    if (rc == 0)
        rc = sl_column_append_value(&res->rows.cols[1], &v);
    if (rc == 0)
        sl_block_seal(&res->rows);
    if (rc < 0)
        return sl_ddl_error(err, rc, st->pos, "out of memory");
    return 0;
}

/* ------------------------------------------------------------ dump */

static int cmp_stream(const void *a, const void *b)
{
    const sl__mc_stream *x = *(sl__mc_stream *const *)a, *y = *(sl__mc_stream *const *)b;
    int c = strcasecmp(x->s_db, y->s_db);
    return c ? c : strcasecmp(x->s_name, y->s_name);
}

int sl__mc_streams_dump(sl_mcatalog *cat, sl_buf *out)
{
    if (cat->c_nstreams == 0)
        return 0;
    sl__mc_stream **v = malloc((size_t)cat->c_nstreams * sizeof(*v));
    if (v == NULL)
        return SL_ENOMEM;
    memcpy(v, cat->c_streams, (size_t)cat->c_nstreams * sizeof(*v));
    qsort(v, (size_t)cat->c_nstreams, sizeof(*v), cmp_stream);
    int rc = sl_buf_printf(out, "stream_counter %llu\n", (unsigned long long)cat->c_next_stream);
    for (int i = 0; rc == 0 && i < cat->c_nstreams; i++)
        rc = sl_buf_printf(out, "stream %s.%s id=%llu %s created=%lld trigger=%s sql=%s\n",
                           v[i]->s_db, v[i]->s_name, (unsigned long long)v[i]->s_id,
                           v[i]->s_running ? "running" : "stopped", (long long)v[i]->s_created,
                           v[i]->s_trigger, v[i]->s_sql);
    free(v);
    return rc;
}
