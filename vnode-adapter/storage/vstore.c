/*
 * vstore.c - opening and closing a vstore, the table registry, the head record (version
 * counter and change-log bounds), snapshots and statistics; see vstore.h.
 *
 * The registry lives in the meta column family and, once opened, in a uid-keyed hash map
 * of immutable, reference-counted table objects: readers on other threads take a reference
 * under a read lock and keep using it while the writer replaces or drops the table. The
 * writer's private knowledge of each table (newest timestamp, dirty intervals, tombstone
 * count) hangs off the same map entry and is loaded lazily from disk.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vstore_int.h"

#define HEAD_FORMAT  1
#define TABLE_FORMAT 1

static const char *const CF_NAMES[] = {"meta", "data", "log"};

int sl__vs_fail(sl_error *err, int rc, const char *what)
{
    return sl_error_set(err, rc, 0, 0, "vstore %s: %s", what, sl_strerror(rc));
}

/* ---------------------------------------------------------------------------------------
 * The uid map
 * ------------------------------------------------------------------------------------- */

static size_t map_slot(const vs_map *m, uint64_t uid)
{
    uint64_t h = uid * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 17) & (m->m_cap - 1);
}

static vs_entry *map_get(const vs_map *m, uint64_t uid)
{
    if (m->m_cap == 0)
        return NULL;
    for (size_t i = map_slot(m, uid);; i = (i + 1) & (m->m_cap - 1)) {
        vs_entry *e = m->m_slots[i];
        if (e == NULL || e->e_uid == uid)
            return e;
    }
}

static int map_put(vs_map *m, vs_entry *e)
{
    if ((m->m_count + 1) * 2 > m->m_cap) {
        size_t ncap = m->m_cap ? 2 * m->m_cap : 64;
        vs_entry **slots = calloc(ncap, sizeof(*slots));
        if (slots == NULL)
            return SL_ENOMEM;
        vs_map nm = {slots, ncap, 0};
        for (size_t i = 0; i < m->m_cap; i++)
            if (m->m_slots[i] != NULL) {
                size_t j = map_slot(&nm, m->m_slots[i]->e_uid);
                while (slots[j] != NULL)
                    j = (j + 1) & (ncap - 1);
                slots[j] = m->m_slots[i];
            }
        free(m->m_slots);
        m->m_slots = slots;
        m->m_cap = ncap;
    }
    size_t i = map_slot(m, e->e_uid);
    while (m->m_slots[i] != NULL)
        i = (i + 1) & (m->m_cap - 1);
    m->m_slots[i] = e;
    m->m_count++;
    return 0;
}

/* Removes uid's entry (present) with backward-shift deletion. */
static void map_del(vs_map *m, uint64_t uid)
{
    size_t mask = m->m_cap - 1, i = map_slot(m, uid);
    while (m->m_slots[i]->e_uid != uid)
        i = (i + 1) & mask;
    m->m_slots[i] = NULL;
    for (size_t j = (i + 1) & mask; m->m_slots[j] != NULL; j = (j + 1) & mask) {
        size_t home = map_slot(m, m->m_slots[j]->e_uid);
        /* Move j back into the hole at i unless its home lies cyclically in (i, j]. */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            m->m_slots[i] = m->m_slots[j];
            m->m_slots[j] = NULL;
            i = j;
        }
    }
    m->m_count--;
}

vs_entry *sl__vs_find(sl_vstore *vs, uint64_t uid)
{
    return map_get(&vs->vs_map, uid);
}

/* ---------------------------------------------------------------------------------------
 * Table objects and their encoding
 * ------------------------------------------------------------------------------------- */

void sl__vs_table_unref(vs_table *t)
{
    if (t == NULL || atomic_fetch_sub(&t->t_refs, 1) != 1)
        return;
    free(t->t_cols);
    free(t->t_tags);
    free(t->t_names);
    sl_block_fini(&t->t_tagvals);
    free(t);
}

void sl_vstore_table_release(const sl_vs_table_def *def)
{
    /* def is the first member of its vs_table. */
    sl__vs_table_unref((vs_table *)(uintptr_t)def);
}

static bool valid_type(sl_type t)
{
    return t > SL_T_NULL && t < SL_T__COUNT;
}

static int name_cmp(const void *a, const void *b)
{
    return strcasecmp(*(const char *const *)a, *(const char *const *)b);
}

static int bad(sl_error *err, const sl_vs_table_def *def, const char *fmt, const char *what)
{
    return sl_error_set(err, SL_EINVAL, 0, 0, "vstore: table %llu: %s%s",
                        (unsigned long long)def->uid, fmt, what);
}

static int check_columns(const sl_vs_table_def *def, const sl_vs_column *cols, uint32_t n,
                         const char *what, sl_error *err)
{
    for (uint32_t i = 0; i < n; i++) {
        const sl_vs_column *c = &cols[i];
        size_t len = c->name != NULL ? strlen(c->name) : 0;
        if (len == 0 || len > SL_NAME_MAX)
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "vstore: table %llu: %s %u has an empty or too long name",
                                (unsigned long long)def->uid, what, i);
        if (!valid_type(c->type))
            return sl_error_set(err, SL_EINVAL, 0, 0, "vstore: table %llu: %s '%s' has bad type %d",
                                (unsigned long long)def->uid, what, c->name, (int)c->type);
        if (sl_type_is_var(c->type) && (c->width == 0 || c->width > SL_VARCHAR_MAX))
            return sl_error_set(err, SL_EINVAL, 0, 0,
                                "vstore: table %llu: %s '%s' needs a width of 1 to %d",
                                (unsigned long long)def->uid, what, c->name, SL_VARCHAR_MAX);
    }
    return 0;
}

/* Checks the composite key: the second column, of a key type. */
static int check_key(const sl_vs_table_def *def, sl_error *err)
{
    if (!def->composite_key)
        return 0;
    if (def->ncols < 2)
        return bad(err, def, "a composite key needs a second column", "");
    sl_type t = def->cols[1].type;
    if (t != SL_T_INT && t != SL_T_BIGINT && t != SL_T_UINT && t != SL_T_UBIGINT &&
        t != SL_T_VARCHAR)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "vstore: table %llu: composite key '%s' cannot be %s",
                            (unsigned long long)def->uid, def->cols[1].name, sl_type_name(t));
    return 0;
}

static int validate_def(const sl_vs_table_def *def, sl_error *err)
{
    if (def == NULL)
        return sl_error_set(err, SL_EINVAL, 0, 0, "vstore: NULL table definition");
    size_t nlen = def->name != NULL ? strlen(def->name) : 0;
    if (def->uid == 0)
        return bad(err, def, "uid 0 is reserved", "");
    if (nlen == 0 || nlen > SL_TABLE_NAME_MAX)
        return bad(err, def, "the name is empty or longer than 192 bytes", "");
    if (def->precision != SL_PREC_MS && def->precision != SL_PREC_US &&
        def->precision != SL_PREC_NS)
        return bad(err, def, "bad precision", "");
    if (def->ncols == 0 || def->ncols > SL_MAX_COLUMNS || def->cols == NULL)
        return bad(err, def, "needs 1 to 4096 columns", "");
    if (def->cols[0].type != SL_T_TIMESTAMP)
        return bad(err, def, "the first column must be the TIMESTAMP key", "");
    int rc = check_columns(def, def->cols, def->ncols, "column", err);
    if (rc == 0)
        rc = check_key(def, err);
    if (rc != 0)
        return rc;
    if (def->kind == SL_VS_TABLE_NORMAL) {
        if (def->ntags != 0 || def->tag_values != NULL || def->suid != 0)
            return bad(err, def, "a normal table has no tags and no super table", "");
    } else if (def->kind == SL_VS_TABLE_CHILD) {
        if (def->suid == 0)
            return bad(err, def, "a child table needs its super table uid", "");
        if (def->ntags == 0 || def->ntags > SL_MAX_TAGS || def->tags == NULL)
            return bad(err, def, "a child table needs 1 to 128 tags", "");
        if ((rc = check_columns(def, def->tags, def->ntags, "tag", err)) != 0)
            return rc;
        const sl_block *tv = def->tag_values;
        if (tv == NULL || tv->nrows != 1 || tv->ncols != def->ntags)
            return bad(err, def, "tag values must be one row with one column per tag", "");
        for (uint32_t i = 0; i < def->ntags; i++) {
            const char *why;
            if (tv->cols[i].type != def->tags[i].type || tv->cols[i].nrows != 1)
                return bad(err, def, "tag value of the wrong type: ", def->tags[i].name);
            if (sl_type_is_var(tv->cols[i].type) && !sl_column_is_null(&tv->cols[i], 0) &&
                sl__vs_check_text(&tv->cols[i], 0, def->tags[i].width, &why) != 0)
                return sl_error_set(err, SL_ERANGE, 0, 0, "vstore: table %llu: tag '%s' %s",
                                    (unsigned long long)def->uid, def->tags[i].name, why);
        }
    } else {
        return bad(err, def, "unknown table kind", "");
    }
    /* Column and tag names are unique, case-insensitively. */
    size_t n = def->ncols + def->ntags;
    const char **names = malloc(n * sizeof(*names));
    if (names == NULL)
        return sl__vs_fail(err, SL_ENOMEM, "put table");
    for (uint32_t i = 0; i < def->ncols; i++)
        names[i] = def->cols[i].name;
    for (uint32_t i = 0; i < def->ntags; i++)
        names[def->ncols + i] = def->tags[i].name;
    qsort(names, n, sizeof(*names), name_cmp);
    for (size_t i = 1; i < n; i++)
        if (strcasecmp(names[i - 1], names[i]) == 0) {
            rc = bad(err, def, "duplicate column or tag name ", names[i]);
            break;
        }
    free(names);
    return rc;
}

/* Builds an owned copy of a (valid) definition, with fixed-type widths normalised to 0. */
static int table_new(const sl_vs_table_def *def, vs_table **out)
{
    vs_table *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return SL_ENOMEM;
    atomic_init(&t->t_refs, 1);
    sl_block_init(&t->t_tagvals);
    size_t bytes = strlen(def->name) + 1;
    for (uint32_t i = 0; i < def->ncols; i++)
        bytes += strlen(def->cols[i].name) + 1;
    for (uint32_t i = 0; i < def->ntags; i++)
        bytes += strlen(def->tags[i].name) + 1;
    t->t_names = malloc(bytes);
    t->t_cols = malloc(def->ncols * sizeof(sl_vs_column));
    t->t_tags = def->ntags > 0 ? malloc(def->ntags * sizeof(sl_vs_column)) : NULL;
    if (t->t_names == NULL || t->t_cols == NULL || (def->ntags > 0 && t->t_tags == NULL))
        goto fail;
    char *p = t->t_names;
#define COPY_NAME(dst, src)                                                                        \
    do {                                                                                           \
        size_t l_ = strlen(src) + 1;                                                               \
        memcpy(p, src, l_);                                                                        \
        (dst) = p;                                                                                 \
        p += l_;                                                                                   \
    } while (0)
    t->def = *def;
    COPY_NAME(t->def.name, def->name);
    for (uint32_t i = 0; i < def->ncols; i++) {
        t->t_cols[i] = def->cols[i];
        if (!sl_type_is_var(def->cols[i].type))
            t->t_cols[i].width = 0;
        COPY_NAME(t->t_cols[i].name, def->cols[i].name);
    }
    for (uint32_t i = 0; i < def->ntags; i++) {
        t->t_tags[i] = def->tags[i];
        if (!sl_type_is_var(def->tags[i].type))
            t->t_tags[i].width = 0;
        COPY_NAME(t->t_tags[i].name, def->tags[i].name);
    }
#undef COPY_NAME
    t->def.cols = t->t_cols;
    t->def.tags = t->t_tags;
    t->def.tag_values = NULL;
    if (def->tag_values != NULL) {
        for (uint32_t i = 0; i < def->ntags; i++) {
            if (sl_block_add_column(&t->t_tagvals, def->tags[i].type, t->t_tags[i].width) < 0 ||
                sl_column_append_rows(&t->t_tagvals.cols[i], &def->tag_values->cols[i], NULL, 0,
                                      1) != 0)
                goto fail;
        }
        t->t_tagvals.nrows = 1;
        t->def.tag_values = &t->t_tagvals;
    }
    *out = t;
    return 0;
fail:
    sl__vs_table_unref(t);
    return SL_ENOMEM;
}

static int put_str(sl_buf *b, const char *s)
{
    size_t n = strlen(s);
    int rc = sl_buf_put_varu(b, n);
    return rc != 0 ? rc : sl_buf_put(b, s, n);
}

/* The stored type byte of the second column carries the composite key flag in its high
 * bit (types stay below it), so definitions stored before composite keys read back
 * unchanged. */
#define COL_KEY_BIT 0x80u

/* Writes n columns; key: the second one is the composite key. */
static int put_cols(sl_buf *b, const sl_vs_column *c, uint32_t n, bool key)
{
    int rc = sl_buf_put_varu(b, n);
    for (uint32_t i = 0; rc == 0 && i < n; i++)
        if ((rc = put_str(b, c[i].name)) == 0 &&
            (rc = sl_buf_put_u8(b, (uint8_t)((unsigned)c[i].type |
                                             (key && i == 1 ? COL_KEY_BIT : 0u)))) == 0)
            rc = sl_buf_put_varu(b, c[i].width);
    return rc;
}

static int table_encode(const sl_vs_table_def *d, sl_buf *b)
{
    int rc;
    if ((rc = sl_buf_put_u8(b, TABLE_FORMAT)) != 0 || (rc = sl_buf_put_varu(b, d->uid)) != 0 ||
        (rc = sl_buf_put_u8(b, (uint8_t)d->kind)) != 0 || (rc = sl_buf_put_varu(b, d->suid)) != 0 ||
        (rc = sl_buf_put_u8(b, (uint8_t)d->precision)) != 0 || (rc = put_str(b, d->name)) != 0 ||
        (rc = put_cols(b, d->cols, d->ncols, d->composite_key)) != 0 ||
        (rc = put_cols(b, d->tags, d->ntags, false)) != 0)
        return rc;
    if (d->tag_values == NULL)
        return 0;
    sl_buf tb = {0};
    if ((rc = sl_block_encode(d->tag_values, &tb)) == 0 && (rc = sl_buf_put_varu(b, tb.len)) == 0)
        rc = sl_buf_put(b, tb.data, tb.len);
    sl_buf_fini(&tb);
    return rc;
}

/* Reads a length-prefixed string into a NUL-terminated copy inside names. */
static int get_str(sl_reader *r, sl_buf *names, size_t *off)
{
    uint64_t n;
    const uint8_t *p;
    if (sl_reader_varu(r, &n) != 0 || n > SL_TABLE_NAME_MAX || (p = sl_reader_take(r, n)) == NULL)
        return SL_ECORRUPT;
    *off = names->len;
    int rc = sl_buf_put(names, p, n);
    return rc != 0 ? rc : sl_buf_put_u8(names, 0);
}

/* Reads columns; *key (NULL: none may carry it) gets the composite key flag. */
static int get_cols(sl_reader *r, sl_buf *names, sl_vs_column **cols, size_t **offs, uint32_t *n,
                    bool *key)
{
    uint64_t cnt, w;
    uint8_t ty;
    if (sl_reader_varu(r, &cnt) != 0 || cnt > SL_MAX_COLUMNS || cnt > sl_reader_left(r))
        return SL_ECORRUPT;
    *n = (uint32_t)cnt;
    *cols = calloc(cnt ? cnt : 1, sizeof(sl_vs_column));
    *offs = calloc(cnt ? cnt : 1, sizeof(size_t));
    if (*cols == NULL || *offs == NULL)
        return SL_ENOMEM;
    for (uint32_t i = 0; i < cnt; i++) {
        int rc = get_str(r, names, &(*offs)[i]);
        if (rc != 0)
            return rc;
        if (sl_reader_u8(r, &ty) != 0 || sl_reader_varu(r, &w) != 0 || w > SL_VARCHAR_MAX)
            return SL_ECORRUPT;
        if ((ty & COL_KEY_BIT) != 0) {
            if (key == NULL || i != 1)
                return SL_ECORRUPT;
            *key = true;
        }
        (*cols)[i].type = (sl_type)(ty & ~COL_KEY_BIT);
        (*cols)[i].width = (uint32_t)w;
    }
    return 0;
}

/* Decodes a stored definition and builds its table object (validated like a new one). */
static int table_decode(const void *p, size_t n, vs_table **out, sl_error *err)
{
    sl_reader r;
    uint8_t fmt, kind, prec;
    sl_vs_table_def d = {0};
    sl_buf names = {0};
    size_t name_off = 0, *coff = NULL, *toff = NULL;
    sl_vs_column *cols = NULL, *tags = NULL;
    sl_block tv;
    sl_block_init(&tv);
    int rc = SL_ECORRUPT;
    sl_reader_init(&r, p, n);
    if (sl_reader_u8(&r, &fmt) != 0 || fmt != TABLE_FORMAT || sl_reader_varu(&r, &d.uid) != 0 ||
        sl_reader_u8(&r, &kind) != 0 || sl_reader_varu(&r, &d.suid) != 0 ||
        sl_reader_u8(&r, &prec) != 0)
        goto fail;
    d.kind = (sl_vs_table_kind)kind;
    d.precision = (sl_precision)prec;
    if ((rc = get_str(&r, &names, &name_off)) != 0 ||
        (rc = get_cols(&r, &names, &cols, &coff, &d.ncols, &d.composite_key)) != 0 ||
        (rc = get_cols(&r, &names, &tags, &toff, &d.ntags, NULL)) != 0)
        goto fail;
    if (d.kind == SL_VS_TABLE_CHILD) {
        uint64_t len;
        const uint8_t *tb;
        rc = SL_ECORRUPT;
        if (sl_reader_varu(&r, &len) != 0 || (tb = sl_reader_take(&r, len)) == NULL ||
            sl_block_decode(tb, len, &tv, NULL) != 0)
            goto fail;
        d.tag_values = &tv;
    }
    rc = SL_ECORRUPT;
    if (sl_reader_left(&r) != 0)
        goto fail;
    /* Names are resolved only now: the buffer may have moved while it grew. */
    d.name = (const char *)names.data + name_off;
    for (uint32_t i = 0; i < d.ncols; i++)
        cols[i].name = (const char *)names.data + coff[i];
    for (uint32_t i = 0; i < d.ntags; i++)
        tags[i].name = (const char *)names.data + toff[i];
    d.cols = cols;
    d.tags = d.ntags > 0 ? tags : NULL;
    if (validate_def(&d, NULL) != 0)
        goto fail;
    rc = table_new(&d, out);
fail:
    sl_buf_fini(&names);
    free(cols);
    free(tags);
    free(coff);
    free(toff);
    sl_block_fini(&tv);
    if (rc == SL_ECORRUPT)
        return sl_error_set(err, rc, 0, 0, "vstore: damaged table definition");
    return rc != 0 ? sl__vs_fail(err, rc, "open") : 0;
}

/* ---------------------------------------------------------------------------------------
 * Head record
 * ------------------------------------------------------------------------------------- */

static int head_decode(const void *p, size_t n, vs_head *h, sl_error *err)
{
    sl_reader r;
    uint8_t fmt;
    sl_reader_init(&r, p, n);
    if (sl_reader_u8(&r, &fmt) != 0 || fmt != HEAD_FORMAT ||
        sl_reader_varu(&r, &h->h_version) != 0 || sl_reader_varu(&r, &h->h_trimmed) != 0 ||
        sl_reader_varu(&r, &h->h_entries) != 0 || sl_reader_varu(&r, &h->h_bytes) != 0 ||
        sl_reader_left(&r) != 0 || h->h_trimmed > h->h_version)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "vstore: damaged head record");
    return 0;
}

/* The row count rides in its own record rather than in the head, so that the head keeps
 * the format older releases read; its version says which head it belongs to. */
static int rows_put(sl_vstore *vs, sl_kv_batch *b, const vs_head *h)
{
    static const uint8_t key = VS_MK_ROWS;
    sl_buf v = {0};
    int rc;
    if ((rc = sl_buf_put_varu(&v, h->h_rows)) == 0 &&
        (rc = sl_buf_put_varu(&v, h->h_version)) == 0)
        rc = sl_kv_batch_put(b, vs->vs_meta, &key, 1, v.data, v.len);
    sl_buf_fini(&v);
    return rc;
}

int sl__vs_batch_head(sl_vstore *vs, sl_kv_batch *b, const vs_head *h)
{
    static const uint8_t key = VS_MK_HEAD;
    sl_buf v = {0};
    int rc;
    if ((rc = sl_buf_put_u8(&v, HEAD_FORMAT)) == 0 &&
        (rc = sl_buf_put_varu(&v, h->h_version)) == 0 &&
        (rc = sl_buf_put_varu(&v, h->h_trimmed)) == 0 &&
        (rc = sl_buf_put_varu(&v, h->h_entries)) == 0 &&
        (rc = sl_buf_put_varu(&v, h->h_bytes)) == 0)
        rc = sl_kv_batch_put(b, vs->vs_meta, &key, 1, v.data, v.len);
    sl_buf_fini(&v);
    if (rc == 0)
        rc = rows_put(vs, b, h);
    return rc;
}

void sl__vs_publish(sl_vstore *vs, const vs_head *h, bool versioned)
{
    vs->vs_head = *h;
    atomic_store(&vs->vs_a_trimmed, h->h_trimmed);
    atomic_store(&vs->vs_a_entries, h->h_entries);
    atomic_store(&vs->vs_a_bytes, h->h_bytes);
    atomic_store(&vs->vs_a_rows, h->h_rows);
    atomic_store(&vs->vs_a_version, h->h_version);
    if (versioned && vs->vs_opts.on_commit != NULL)
        vs->vs_opts.on_commit(vs->vs_opts.on_commit_ud, h->h_version);
}

/* ---------------------------------------------------------------------------------------
 * Writer state of a table
 * ------------------------------------------------------------------------------------- */

int sl__vs_wstate_load(sl_vstore *vs, vs_entry *e, sl_error *err)
{
    vs_wstate *ws = &e->e_ws;
    if (ws->ws_loaded)
        return 0;
    sl_kv_iter *it;
    int rc = sl__vs_table_iter(vs, NULL, e->e_uid, &it, err);
    if (rc != 0)
        return rc;
    memset(ws, 0, sizeof(*ws));
    uint8_t k0[VS_TABLE_KEY_LEN];
    vs_key_table(k0, e->e_uid, VS_KT_TOMB);
    for (sl_kv_iter_seek(it, k0, sizeof(k0)); sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        size_t kl, vl;
        const uint8_t *k = sl_kv_iter_key(it, &kl);
        if (k[8] == VS_KT_TOMB) {
            ws->ws_ntomb++;
        } else if (k[8] == VS_KT_STATE) {
            const void *v = sl_kv_iter_value(it, &vl);
            if ((rc = sl__vs_tstate_decode(v, vl, &ws->ws_st, err)) != 0)
                goto done;
        } else {
            break;
        }
    }
    /* The newest timestamp is the last key of the table (blocks sort by last ts). */
    uint8_t kmax[VS_BLOCK_KEY_LEN];
    vs_key_block(kmax, e->e_uid, INT64_MAX, UINT64_MAX);
    sl_kv_iter_seek_for_prev(it, kmax, sizeof(kmax));
    if (sl_kv_iter_valid(it)) {
        size_t kl;
        const uint8_t *k = sl_kv_iter_key(it, &kl);
        if (kl == VS_BLOCK_KEY_LEN && k[8] == VS_KT_BLOCK) {
            ws->ws_has_rows = true;
            ws->ws_max_ts = sl_key_dec_i64(k + 9);
        }
    }
    if ((rc = sl_kv_iter_status(it, err)) == 0)
        ws->ws_loaded = true;
done:
    sl_kv_iter_close(it);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * Open, close
 * ------------------------------------------------------------------------------------- */

static int load_registry(sl_vstore *vs, sl_error *err)
{
    static const uint8_t lo = VS_MK_TABLE, hi = VS_MK_TABLE + 1;
    sl_kv_iter_options o = {.lower = &lo, .lower_len = 1, .upper = &hi, .upper_len = 1};
    sl_kv_iter *it;
    int rc = sl_kv_iter_open(&it, vs->vs_db, vs->vs_meta, &o, err);
    if (rc != 0)
        return rc;
    for (sl_kv_iter_first(it); rc == 0 && sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        size_t vl;
        const void *v = sl_kv_iter_value(it, &vl);
        vs_table *t;
        if ((rc = table_decode(v, vl, &t, err)) != 0)
            break;
        vs_entry *e = calloc(1, sizeof(*e));
        if (e != NULL) {
            e->e_uid = t->def.uid;
            e->e_table = t;
        }
        if (e == NULL || map_put(&vs->vs_map, e) != 0) {
            free(e);
            sl__vs_table_unref(t);
            rc = sl__vs_fail(err, SL_ENOMEM, "open");
            break;
        }
    }
    if (rc == 0)
        rc = sl_kv_iter_status(it, err);
    sl_kv_iter_close(it);
    return rc;
}

static int load_head(sl_vstore *vs, sl_error *err)
{
    sl_buf v = {0};
    static const uint8_t kh = VS_MK_HEAD, kl = VS_MK_LOW;
    int rc = sl_kv_get(vs->vs_db, vs->vs_meta, NULL, &kh, 1, &v, err);
    if (rc == 0)
        rc = head_decode(v.data, v.len, &vs->vs_head, err);
    else if (rc == SL_ENOTFOUND)
        rc = 0;
    if (rc == 0) {
        int r2 = sl_kv_get(vs->vs_db, vs->vs_meta, NULL, &kl, 1, &v, err);
        if (r2 == 0) {
            sl_reader r;
            sl_reader_init(&r, v.data, v.len);
            if (sl_reader_varu(&r, &vs->vs_low) != 0 || sl_reader_left(&r) != 0)
                rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "vstore: damaged low-water mark");
        } else if (r2 != SL_ENOTFOUND) {
            rc = r2;
        }
    }
    sl_buf_fini(&v);
    return rc;
}

/*
 * Loads the row count of the head's version (meta 'R'). When it is missing or of another
 * version (the store was last written by a release that did not keep it), counts every
 * table's visible rows - a read of all the data, once - and stores the count.
 */
static int load_rows(sl_vstore *vs, sl_error *err)
{
    static const uint8_t key = VS_MK_ROWS;
    sl_buf v = {0};
    int rc = sl_kv_get(vs->vs_db, vs->vs_meta, NULL, &key, 1, &v, err);
    if (rc == 0) {
        sl_reader r;
        uint64_t rows, version;
        sl_reader_init(&r, v.data, v.len);
        if (sl_reader_varu(&r, &rows) != 0 || sl_reader_varu(&r, &version) != 0 ||
            sl_reader_left(&r) != 0)
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "vstore: damaged row count");
        else if (version == vs->vs_head.h_version) {
            vs->vs_head.h_rows = rows;
            sl_buf_fini(&v);
            return 0;
        }
    } else if (rc == SL_ENOTFOUND) {
        rc = 0;
    }
    sl_buf_fini(&v);
    if (rc != 0)
        return rc;
    uint64_t total = 0;
    for (size_t i = 0; rc == 0 && i < vs->vs_map.m_cap; i++) {
        vs_entry *e = vs->vs_map.m_slots[i];
        uint64_t n = 0;
        if (e != NULL && (rc = sl__vs_count_rows(vs, e, INT64_MIN, INT64_MAX, &n, err)) == 0)
            total += n;
    }
    if (rc != 0)
        return rc;
    vs->vs_head.h_rows = total;
    sl_kv_batch_clear(vs->vs_batch);
    if ((rc = rows_put(vs, vs->vs_batch, &vs->vs_head)) != 0)
        return sl__vs_fail(err, rc, "open");
    return sl_kv_write(vs->vs_db, vs->vs_batch, SL_KV_SYNC_OFF, err);
}

int sl_vstore_open(sl_vstore **out, const char *dir, const sl_vstore_options *opts, sl_error *err)
{
    if (dir == NULL || dir[0] == '\0')
        return sl_error_set(err, SL_EINVAL, 0, 0, "vstore open: empty path");
    sl_vstore *vs = calloc(1, sizeof(*vs));
    if (vs == NULL)
        return sl__vs_fail(err, SL_ENOMEM, "open");
    if (opts != NULL)
        vs->vs_opts = *opts;
    const sl_kv_options *kvo = vs->vs_opts.kv;
    vs->vs_opts.kv = NULL;
    if (vs->vs_opts.compact_overlaps == 0)
        vs->vs_opts.compact_overlaps = SL_VS_COMPACT_OVERLAPS_DEFAULT;
    if (vs->vs_opts.compact_tombstones == 0)
        vs->vs_opts.compact_tombstones = SL_VS_COMPACT_TOMBSTONES_DEFAULT;
    pthread_mutex_init(&vs->vs_wlock, NULL);
    pthread_rwlock_init(&vs->vs_rlock, NULL);
    int rc = sl_kv_open(&vs->vs_db, dir, kvo, CF_NAMES, 3, err);
    if (rc != 0)
        goto fail;
    vs->vs_meta = sl_kv_cf_get(vs->vs_db, "meta");
    vs->vs_data = sl_kv_cf_get(vs->vs_db, "data");
    vs->vs_log = sl_kv_cf_get(vs->vs_db, "log");
    if ((rc = sl_kv_batch_open(&vs->vs_batch)) != 0) {
        rc = sl__vs_fail(err, rc, "open");
        goto fail;
    }
    if ((rc = load_head(vs, err)) != 0 || (rc = load_registry(vs, err)) != 0 ||
        (rc = load_rows(vs, err)) != 0)
        goto fail;
    if (vs->vs_low > vs->vs_head.h_version)
        vs->vs_low = vs->vs_head.h_version;
    atomic_store(&vs->vs_a_low, vs->vs_low);
    sl__vs_publish(vs, &vs->vs_head, false);
    *out = vs;
    return 0;
fail:
    sl_vstore_close(vs);
    return rc;
}

void sl_vstore_close(sl_vstore *vs)
{
    if (vs == NULL)
        return;
    assert(atomic_load(&vs->vs_live) == 0 && "close scans and snapshots before the vstore");
    for (size_t i = 0; i < vs->vs_map.m_cap; i++) {
        vs_entry *e = vs->vs_map.m_slots[i];
        if (e != NULL) {
            sl__vs_table_unref(e->e_table);
            free(e);
        }
    }
    free(vs->vs_map.m_slots);
    sl_kv_batch_close(vs->vs_batch);
    sl_buf_fini(&vs->vs_buf);
    sl_buf_fini(&vs->vs_lbuf);
    sl_block_fini(&vs->vs_scratch);
    sl_block_fini(&vs->vs_cat);
    sl_kv_close(vs->vs_db);
    pthread_rwlock_destroy(&vs->vs_rlock);
    pthread_mutex_destroy(&vs->vs_wlock);
    free(vs);
}

/* ---------------------------------------------------------------------------------------
 * Registry calls
 * ------------------------------------------------------------------------------------- */

/* True when a table with schema a can read rows stored under schema b. */
static bool same_schema(const sl_vs_table_def *a, const sl_vs_table_def *b)
{
    if (a->ncols != b->ncols || a->composite_key != b->composite_key)
        return false;
    for (uint32_t i = 0; i < a->ncols; i++) {
        if (a->cols[i].type != b->cols[i].type)
            return false;
        /* Text may widen (its stored values still fit), never narrow. */
        if (sl_type_is_var(a->cols[i].type) && a->cols[i].width < b->cols[i].width)
            return false;
    }
    return true;
}

int sl_vstore_put_table(sl_vstore *vs, const sl_vs_table_def *def, bool sync, sl_error *err)
{
    int rc = validate_def(def, err);
    if (rc != 0)
        return rc;
    pthread_mutex_lock(&vs->vs_wlock);
    vs_entry *e = sl__vs_find(vs, def->uid), *fresh = NULL;
    vs_table *t = NULL;
    if (e != NULL && !same_schema(def, &e->e_table->def)) {
        rc = sl_error_set(err, SL_EUNSUPPORTED, 0, 0,
                          "vstore: table %llu ('%s') exists with another column schema; "
                          "schema changes are not supported",
                          (unsigned long long)def->uid, e->e_table->def.name);
        goto out;
    }
    if ((rc = table_new(def, &t)) != 0) {
        rc = sl__vs_fail(err, rc, "put table");
        goto out;
    }
    uint8_t key[9];
    key[0] = VS_MK_TABLE;
    sl_key_enc_u64(key + 1, def->uid);
    sl_buf_reset(&vs->vs_buf);
    sl_kv_batch_clear(vs->vs_batch);
    if ((rc = table_encode(&t->def, &vs->vs_buf)) != 0 ||
        (rc = sl_kv_batch_put(vs->vs_batch, vs->vs_meta, key, sizeof(key), vs->vs_buf.data,
                              vs->vs_buf.len)) != 0) {
        rc = sl__vs_fail(err, rc, "put table");
        goto out;
    }
    if (e == NULL && (fresh = calloc(1, sizeof(*fresh))) == NULL) {
        rc = sl__vs_fail(err, SL_ENOMEM, "put table");
        goto out;
    }
    if ((rc = sl_kv_write(vs->vs_db, vs->vs_batch, sync ? SL_KV_SYNC_ON : SL_KV_SYNC_OFF, err)) !=
        0)
        goto out;
    pthread_rwlock_wrlock(&vs->vs_rlock);
    if (e != NULL) {
        vs_table *old = e->e_table;
        e->e_table = t;
        t = old;
    } else {
        fresh->e_uid = def->uid;
        fresh->e_table = t;
        t = NULL;
        if (map_put(&vs->vs_map, fresh) != 0) {
            /* Stored but not in memory: it will be loaded on the next open. */
            t = fresh->e_table;
            rc = sl__vs_fail(err, SL_ENOMEM, "put table");
        } else {
            fresh = NULL;
        }
    }
    pthread_rwlock_unlock(&vs->vs_rlock);
out:
    pthread_mutex_unlock(&vs->vs_wlock);
    sl__vs_table_unref(t);
    free(fresh);
    return rc;
}

int sl_vstore_drop_table(sl_vstore *vs, uint64_t uid, bool sync, uint64_t *version, sl_error *err)
{
    pthread_mutex_lock(&vs->vs_wlock);
    vs_entry *e = sl__vs_find(vs, uid);
    int rc;
    if (e == NULL) {
        rc = sl_error_set(err, SL_ENOTFOUND, 0, 0, "vstore: unknown table uid %llu",
                          (unsigned long long)uid);
        goto out;
    }
    uint64_t nrows = 0;
    if ((rc = sl__vs_count_rows(vs, e, INT64_MIN, INT64_MAX, &nrows, err)) != 0)
        goto out;
    vs_head h = vs->vs_head;
    h.h_version++;
    h.h_rows = h.h_rows > nrows ? h.h_rows - nrows : 0;
    sl_kv_batch *b = vs->vs_batch;
    sl_kv_batch_clear(b);
    uint8_t mkey[9], lo[VS_TABLE_KEY_LEN], hi[VS_TABLE_KEY_LEN], ek[VS_LOG_ENTRY_KEY_LEN],
        sk[VS_LOG_SUM_KEY_LEN], sum[32];
    mkey[0] = VS_MK_TABLE;
    sl_key_enc_u64(mkey + 1, uid);
    vs_key_table(lo, uid, VS_KT_TOMB);
    vs_key_table(hi, uid, VS_KT_END);
    vs_key_log_entry(ek, h.h_version, 0);
    vs_key_log_sum(sk, h.h_version);
    sl_buf_reset(&vs->vs_buf);
    if ((rc = sl__vs_log_drop(&vs->vs_buf, uid)) != 0)
        goto nomem;
    size_t elen = vs->vs_buf.len;
    if ((rc = sl__vs_log_sum_encode(&vs->vs_buf, 1, elen, elen)) != 0)
        goto nomem;
    memcpy(sum, vs->vs_buf.data + elen, vs->vs_buf.len - elen);
    h.h_entries++;
    h.h_bytes += elen;
    if ((rc = sl_kv_batch_put(b, vs->vs_log, ek, sizeof(ek), vs->vs_buf.data, elen)) != 0 ||
        (rc = sl_kv_batch_put(b, vs->vs_log, sk, sizeof(sk), sum, vs->vs_buf.len - elen)) != 0)
        goto nomem;
    /* Trim first, then give the entries still retained that point at the table's blocks
     * their rows, then remove the table. */
    if ((rc = sl__vs_log_trim(vs, b, &h, err)) != 0)
        goto out;
    vs_mat acc = {0};
    if ((rc = sl__vs_log_materialize(vs, b, uid, INT64_MIN, INT64_MAX, &h, &acc, err)) != 0) {
        free(acc.m_v);
        goto out;
    }
    if ((rc = sl__vs_log_materialize_done(vs, b, &h, &acc, err)) != 0)
        goto out;
    if ((rc = sl_kv_batch_delete(b, vs->vs_meta, mkey, sizeof(mkey))) != 0 ||
        (rc = sl_kv_batch_delete_range(b, vs->vs_data, lo, sizeof(lo), hi, sizeof(hi))) != 0 ||
        (rc = sl__vs_batch_head(vs, b, &h)) != 0)
        goto nomem;
    if ((rc = sl_kv_write(vs->vs_db, b, sync ? SL_KV_SYNC_ON : SL_KV_SYNC_OFF, err)) != 0)
        goto out;
    pthread_rwlock_wrlock(&vs->vs_rlock);
    map_del(&vs->vs_map, uid);
    pthread_rwlock_unlock(&vs->vs_rlock);
    sl__vs_table_unref(e->e_table);
    free(e);
    sl__vs_publish(vs, &h, true);
    if (version != NULL)
        *version = h.h_version;
    goto out;
nomem:
    rc = sl__vs_fail(err, rc, "drop table");
out:
    pthread_mutex_unlock(&vs->vs_wlock);
    return rc;
}

int sl_vstore_table_acquire(sl_vstore *vs, uint64_t uid, const sl_vs_table_def **out, sl_error *err)
{
    pthread_rwlock_rdlock(&vs->vs_rlock);
    vs_entry *e = map_get(&vs->vs_map, uid);
    if (e != NULL) {
        atomic_fetch_add(&e->e_table->t_refs, 1);
        *out = &e->e_table->def;
    }
    pthread_rwlock_unlock(&vs->vs_rlock);
    if (e == NULL)
        return sl_error_set(err, SL_ENOTFOUND, 0, 0, "vstore: unknown table uid %llu",
                            (unsigned long long)uid);
    return 0;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int sl_vstore_table_list(sl_vstore *vs, uint64_t **uids, size_t *n, sl_error *err)
{
    pthread_rwlock_rdlock(&vs->vs_rlock);
    size_t cnt = vs->vs_map.m_count;
    uint64_t *v = cnt > 0 ? malloc(cnt * sizeof(uint64_t)) : NULL;
    if (cnt > 0 && v == NULL) {
        pthread_rwlock_unlock(&vs->vs_rlock);
        return sl__vs_fail(err, SL_ENOMEM, "table list");
    }
    size_t k = 0;
    for (size_t i = 0; i < vs->vs_map.m_cap; i++)
        if (vs->vs_map.m_slots[i] != NULL)
            v[k++] = vs->vs_map.m_slots[i]->e_uid;
    pthread_rwlock_unlock(&vs->vs_rlock);
    if (k > 1)
        qsort(v, k, sizeof(uint64_t), u64_cmp);
    *uids = v;
    *n = k;
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Versions, snapshots, statistics
 * ------------------------------------------------------------------------------------- */

int sl_vstore_sync(sl_vstore *vs, sl_error *err)
{
    return sl_kv_sync_wal(vs->vs_db, err);
}

uint64_t sl_vstore_last_version(sl_vstore *vs)
{
    return atomic_load(&vs->vs_a_version);
}

uint64_t sl_vstore_first_retained_version(sl_vstore *vs)
{
    return atomic_load(&vs->vs_a_trimmed) + 1;
}

int sl_vstore_snapshot_open(sl_vstore *vs, sl_vs_snapshot **out, sl_error *err)
{
    sl_vs_snapshot *s = calloc(1, sizeof(*s));
    if (s == NULL || sl_kv_snapshot_open(&s->sn_kv, vs->vs_db) != 0) {
        free(s);
        return sl__vs_fail(err, SL_ENOMEM, "snapshot");
    }
    s->sn_vs = vs;
    /* The version is read through the snapshot itself, so it names exactly what it shows. */
    static const uint8_t kh = VS_MK_HEAD;
    sl_buf v = {0};
    vs_head h = {0};
    int rc = sl_kv_get(vs->vs_db, vs->vs_meta, s->sn_kv, &kh, 1, &v, err);
    if (rc == 0)
        rc = head_decode(v.data, v.len, &h, err);
    else if (rc == SL_ENOTFOUND)
        rc = 0;
    sl_buf_fini(&v);
    if (rc != 0) {
        sl_kv_snapshot_close(s->sn_kv);
        free(s);
        return rc;
    }
    s->sn_version = h.h_version;
    atomic_fetch_add(&vs->vs_live, 1);
    *out = s;
    return 0;
}

uint64_t sl_vs_snapshot_version(const sl_vs_snapshot *snap)
{
    return snap->sn_version;
}

void sl_vstore_snapshot_close(sl_vs_snapshot *snap)
{
    if (snap == NULL)
        return;
    atomic_fetch_sub(&snap->sn_vs->vs_live, 1);
    sl_kv_snapshot_close(snap->sn_kv);
    free(snap);
}

int sl_vstore_disk_bytes(sl_vstore *vs, uint64_t *bytes, sl_error *err)
{
    static const char *const props[] = {"rocksdb.total-sst-files-size",
                                        "rocksdb.cur-size-all-mem-tables"};
    sl_kv_cf *cfs[] = {vs->vs_meta, vs->vs_data, vs->vs_log};
    uint64_t total = 0;
    for (size_t c = 0; c < sizeof(cfs) / sizeof(cfs[0]); c++)
        for (size_t p = 0; p < sizeof(props) / sizeof(props[0]); p++) {
            uint64_t v = 0;
            int rc = sl_kv_property_u64(vs->vs_db, cfs[c], props[p], &v, err);
            if (rc != 0)
                return rc;
            total += v;
        }
    *bytes = total;
    return 0;
}

void sl_vstore_get_stats(sl_vstore *vs, sl_vstore_stats *st)
{
    memset(st, 0, sizeof(*st));
    st->last_version = atomic_load(&vs->vs_a_version);
    st->first_retained = atomic_load(&vs->vs_a_trimmed) + 1;
    st->low_water = atomic_load(&vs->vs_a_low);
    st->log_entries = atomic_load(&vs->vs_a_entries);
    st->log_bytes = atomic_load(&vs->vs_a_bytes);
    st->rows = atomic_load(&vs->vs_a_rows);
    st->compactions = atomic_load(&vs->vs_a_compactions);
    st->compaction_errors = atomic_load(&vs->vs_a_cerrors);
    pthread_rwlock_rdlock(&vs->vs_rlock);
    st->tables = vs->vs_map.m_count;
    pthread_rwlock_unlock(&vs->vs_rlock);
}
