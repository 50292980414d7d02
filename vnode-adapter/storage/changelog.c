/*
 * changelog.c - reading and trimming the change log; see sl_vstore_changes_read and
 * sl_vstore_set_low_water in vstore.h.
 *
 * The log is written by the writer calls themselves (vstore_write.c, vstore.c), in the
 * same batch as the data they describe, so a version's entries exist exactly when its
 * data does. A write's entry refers to the data block the same call stored (the rows are
 * written once); a reader fetches the block through its snapshot, and whoever removes
 * such a block while its version is retained (compaction, drop) first copies the rows
 * into the entry, in the same batch (sl__vs_log_materialize). Each version has a small summary key
 * (entry count, bytes) beside its entries; trimming walks the summaries from the oldest retained
 * version, so it never reads the entries themselves, and the running totals in the head record make
 * the caps cheap to check. Trimming rides along in the writer's batch, so the head record, the log
 * and the data always agree, even after a crash.
 */
#include <stdlib.h>
#include <string.h>

#include "vstore_int.h"

/* Point deletes up to this many keys per trim, one range deletion per key kind beyond:
 * a steady trickle of range tombstones would slow every later iterator over the log. */
#define TRIM_POINT_MAX 256

typedef struct trim_ver {
    uint64_t v;
    uint32_t entries;
} trim_ver;

int sl__vs_log_trim(sl_vstore *vs, sl_kv_batch *b, vs_head *h, sl_error *err)
{
    uint64_t cap_e = vs->vs_opts.log_max_entries, cap_b = vs->vs_opts.log_max_bytes;
#define OVER() ((cap_e != 0 && h->h_entries > cap_e) || (cap_b != 0 && h->h_bytes > cap_b))
    if (!OVER() && vs->vs_low <= h->h_trimmed)
        return 0;
    if (h->h_trimmed + 1 >= h->h_version)
        return 0; /* only the newest version is left, and it stays */
    uint8_t lo[VS_LOG_SUM_KEY_LEN], hi[VS_LOG_SUM_KEY_LEN];
    vs_key_log_sum(lo, h->h_trimmed + 1);
    vs_key_log_sum(hi, h->h_version);
    sl_kv_iter_options o = {
        .lower = lo, .lower_len = sizeof(lo), .upper = hi, .upper_len = sizeof(hi)};
    sl_kv_iter *it;
    int rc = sl_kv_iter_open(&it, vs->vs_db, vs->vs_log, &o, err);
    if (rc != 0)
        return rc;
    trim_ver *vers = NULL;
    size_t nv = 0, cap = 0, keys = 0;
    uint64_t first = h->h_trimmed + 1, last = h->h_trimmed;
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        size_t kl, vl;
        const uint8_t *k = sl_kv_iter_key(it, &kl);
        const void *v = sl_kv_iter_value(it, &vl);
        uint64_t ver = sl_key_dec_u64(k + 1);
        vs_log_sum sum;
        if (!(ver <= vs->vs_low || OVER()))
            break;
        if (kl != VS_LOG_SUM_KEY_LEN || (rc = sl__vs_log_sum_decode(v, vl, &sum, err)) != 0) {
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "vstore: damaged change-log summary");
            goto out;
        }
        if (nv == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            trim_ver *t = realloc(vers, ncap * sizeof(*t));
            if (t == NULL) {
                rc = sl__vs_fail(err, SL_ENOMEM, "trim");
                goto out;
            }
            vers = t;
            cap = ncap;
        }
        vers[nv++] = (trim_ver){ver, sum.entries};
        keys += 1 + sum.entries;
        h->h_entries -= sum.entries < h->h_entries ? sum.entries : h->h_entries;
        h->h_bytes -= sum.stored < h->h_bytes ? sum.stored : h->h_bytes;
        last = ver;
    }
#undef OVER
    if ((rc = sl_kv_iter_status(it, err)) != 0 || last < first)
        goto out;
    if (keys <= TRIM_POINT_MAX) {
        for (size_t i = 0; rc == 0 && i < nv; i++) {
            uint8_t sk[VS_LOG_SUM_KEY_LEN], ek[VS_LOG_ENTRY_KEY_LEN];
            vs_key_log_sum(sk, vers[i].v);
            rc = sl_kv_batch_delete(b, vs->vs_log, sk, sizeof(sk));
            for (uint32_t s = 0; rc == 0 && s < vers[i].entries; s++) {
                vs_key_log_entry(ek, vers[i].v, s);
                rc = sl_kv_batch_delete(b, vs->vs_log, ek, sizeof(ek));
            }
        }
    } else {
        uint8_t s0[VS_LOG_SUM_KEY_LEN], s1[VS_LOG_SUM_KEY_LEN], e0[VS_LOG_ENTRY_KEY_LEN],
            e1[VS_LOG_ENTRY_KEY_LEN];
        vs_key_log_sum(s0, first);
        vs_key_log_sum(s1, last + 1);
        vs_key_log_entry(e0, first, 0);
        vs_key_log_entry(e1, last + 1, 0);
        if ((rc = sl_kv_batch_delete_range(b, vs->vs_log, s0, sizeof(s0), s1, sizeof(s1))) == 0)
            rc = sl_kv_batch_delete_range(b, vs->vs_log, e0, sizeof(e0), e1, sizeof(e1));
    }
    if (rc != 0) {
        rc = sl__vs_fail(err, rc, "trim");
        goto out;
    }
    h->h_trimmed = last;
out:
    free(vers);
    sl_kv_iter_close(it);
    return rc;
}

void sl_vs_changes_fini(sl_vs_changes *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->n; i++) {
        sl_block_fini(&c->v[i].rows);
        free(c->v[i].row_kinds);
    }
    free(c->v);
    memset(c, 0, sizeof(*c));
}

/* Reads the version summary of v through snap (NULL: the latest state). */
static int read_sum(sl_vstore *vs, const sl_kv_snapshot *snap, uint64_t v, vs_log_sum *sum,
                    sl_buf *tmp, sl_error *err)
{
    uint8_t sk[VS_LOG_SUM_KEY_LEN];
    vs_key_log_sum(sk, v);
    int rc = sl_kv_get(vs->vs_db, vs->vs_log, snap, sk, sizeof(sk), tmp, err);
    if (rc == SL_ENOTFOUND)
        return sl_error_set(err, SL_ECORRUPT, 0, 0,
                            "vstore: change-log summary of version %llu is missing",
                            (unsigned long long)v);
    return rc != 0 ? rc : sl__vs_log_sum_decode(tmp->data, tmp->len, sum, err);
}

/* Decodes the entry at p[0..n) of version ver into c, fetching referenced rows through
 * snap; adds the bytes the entry stands for to *bytes. */
static int read_entry(sl_vstore *vs, const sl_kv_snapshot *snap, const void *p, size_t n,
                      uint64_t ver, sl_vs_change *c, sl_buf *tmp, size_t *bytes, sl_error *err)
{
    vs_log_body body;
    int rc = sl__vs_log_parse(p, n, ver, c, &body, err);
    if (rc != 0 || c->kind != SL_VS_CHANGE_ROWS) {
        *bytes += n;
        return rc;
    }
    if (body.ref) {
        uint8_t dk[VS_BLOCK_KEY_LEN];
        vs_key_block(dk, c->uid, body.last, ver);
        rc = sl_kv_get(vs->vs_db, vs->vs_data, snap, dk, sizeof(dk), tmp, err);
        if (rc == SL_ENOTFOUND)
            return sl_error_set(err, SL_ECORRUPT, 0, 0,
                                "vstore: the rows of change-log version %llu (table %llu) are "
                                "missing",
                                (unsigned long long)ver, (unsigned long long)c->uid);
        if (rc != 0)
            return rc;
        body.vblock = tmp->data;
        body.vblock_len = tmp->len;
    }
    *bytes += body.hdr_len + 1 + body.vblock_len;
    return sl__vs_log_rows_decode(body.vblock, body.vblock_len, body.nrows, c, err);
}

int sl_vstore_changes_read(sl_vstore *vs, uint64_t after_version, size_t max_bytes,
                           size_t max_entries, sl_vs_changes *out, sl_error *err)
{
    return sl_vstore_changes_read_hook(vs, after_version, max_bytes, max_entries, NULL, out, err);
}

/* The kind and table of an entry, from its first bytes (nothing decoded, nothing fetched). */
static int peek_entry(const void *p, size_t n, uint64_t *uid, sl_vs_change_kind *kind,
                      sl_error *err)
{
    sl_reader r;
    uint8_t k;
    sl_reader_init(&r, p, n);
    if (sl_reader_u8(&r, &k) != 0 || sl_reader_varu(&r, uid) != 0 || k < SL_VS_CHANGE_ROWS ||
        k > SL_VS_CHANGE_DROP_TABLE)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "vstore: damaged change-log entry header");
    *kind = (sl_vs_change_kind)k;
    return 0;
}

/* Drops the entries of out from index n on (a version taken back). */
static void changes_truncate(sl_vs_changes *out, size_t n)
{
    for (size_t i = n; i < out->n; i++) {
        sl_block_fini(&out->v[i].rows);
        free(out->v[i].row_kinds);
    }
    out->n = n;
}

int sl_vstore_changes_read_hook(sl_vstore *vs, uint64_t after_version, size_t max_bytes,
                                size_t max_entries, const sl_vs_changes_hook *hook,
                                sl_vs_changes *out, sl_error *err)
{
    memset(out, 0, sizeof(*out));
    out->last_version = after_version;
    sl_vs_snapshot *snap;
    int rc = sl_vstore_snapshot_open(vs, &snap, err);
    if (rc != 0)
        return rc;
    sl_kv_iter *it = NULL;
    sl_buf tmp = {0};
    static const uint8_t kh = VS_MK_HEAD;
    /* The trimmed mark is read from the same snapshot as the entries. */
    uint64_t trimmed = 0;
    if ((rc = sl_kv_get(vs->vs_db, vs->vs_meta, snap->sn_kv, &kh, 1, &tmp, err)) == 0) {
        sl_reader r;
        uint8_t fmt;
        uint64_t ver;
        sl_reader_init(&r, tmp.data, tmp.len);
        if (sl_reader_u8(&r, &fmt) != 0 || sl_reader_varu(&r, &ver) != 0 ||
            sl_reader_varu(&r, &trimmed) != 0) {
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "vstore: damaged head record");
            goto out;
        }
    } else if (rc != SL_ENOTFOUND) {
        goto out;
    }
    rc = 0;
    if (after_version < trimmed) {
        rc = sl_error_set(err, SL_ERANGE, 0, 0,
                          "change log trimmed: oldest retained version is %llu",
                          (unsigned long long)(trimmed + 1));
        goto out;
    }
    if (after_version >= snap->sn_version)
        goto out;
    uint8_t lo[VS_LOG_ENTRY_KEY_LEN], hi[1] = {VS_LK_ENTRY + 1};
    vs_key_log_entry(lo, after_version + 1, 0);
    sl_kv_iter_options o = {.snapshot = snap->sn_kv,
                            .lower = lo,
                            .lower_len = sizeof(lo),
                            .upper = hi,
                            .upper_len = sizeof(hi)};
    if ((rc = sl_kv_iter_open(&it, vs->vs_db, vs->vs_log, &o, err)) != 0)
        goto out;
    size_t cap = 0, bytes = 0;
    uint64_t cur = 0;
    /* Filtered reads (hook): the version being read started at entry ver_n / byte
     * ver_bytes of out; examined counts entries looked at, kept or not. */
    size_t ver_n = 0, ver_bytes = 0, examined = 0;
    size_t max_scan = hook == NULL ? 0 : hook->max_scan ? hook->max_scan : SL_VS_SCAN_DEFAULT;
    bool ended = true;
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        size_t kl, vl;
        const uint8_t *k = sl_kv_iter_key(it, &kl);
        const void *v = sl_kv_iter_value(it, &vl);
        if (kl != VS_LOG_ENTRY_KEY_LEN) {
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "vstore: damaged change-log key");
            goto out;
        }
        uint64_t ver = sl_key_dec_u64(k + 1);
        if (hook != NULL) {
            /* Whole versions only, as unfiltered; the size of what a version keeps is only
             * known once it is read, so a version that takes the result past a bound is
             * read and then taken back. Skipped entries cost a key and a header. */
            if (ver != cur) {
                if (cur != 0)
                    out->last_version = cur; /* every entry of cur was examined */
                if (cur != 0 && examined >= max_scan) {
                    out->more = true;
                    ended = false;
                    break;
                }
                cur = ver;
                ver_n = out->n;
                ver_bytes = bytes;
            }
            examined++;
            uint64_t uid = 0;
            sl_vs_change_kind kind = SL_VS_CHANGE_ROWS;
            if ((rc = peek_entry(v, vl, &uid, &kind, err)) != 0)
                goto out;
            int keep = hook->keep(hook->ud, uid, kind, err);
            if (keep < 0) {
                rc = keep;
                goto out;
            }
            if (keep == 0)
                continue;
            if (out->n == cap) {
                size_t ncap = cap ? 2 * cap : 16;
                sl_vs_change *nvv = realloc(out->v, ncap * sizeof(*nvv));
                if (nvv == NULL) {
                    rc = sl__vs_fail(err, SL_ENOMEM, "changes read");
                    goto out;
                }
                out->v = nvv;
                cap = ncap;
            }
            rc = read_entry(vs, snap->sn_kv, v, vl, ver, &out->v[out->n], &tmp, &bytes, err);
            out->n++;
            if (rc != 0)
                goto out;
            if (ver_n > 0 && ((max_entries != 0 && out->n > max_entries) ||
                              (max_bytes != 0 && bytes > max_bytes))) {
                changes_truncate(out, ver_n);
                bytes = ver_bytes;
                out->more = true;
                ended = false;
                break;
            }
            continue;
        }
        if (ver != cur) {
            /* A new version: take it whole or stop before it. */
            vs_log_sum sum;
            if (out->n > 0 && (max_entries != 0 || max_bytes != 0)) {
                if ((rc = read_sum(vs, snap->sn_kv, ver, &sum, &tmp, err)) != 0)
                    goto out;
                if ((max_entries != 0 && out->n + sum.entries > max_entries) ||
                    (max_bytes != 0 && bytes + sum.logical > max_bytes)) {
                    out->more = true;
                    break;
                }
            }
            cur = ver;
        }
        if (out->n == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            sl_vs_change *nvv = realloc(out->v, ncap * sizeof(*nvv));
            if (nvv == NULL) {
                rc = sl__vs_fail(err, SL_ENOMEM, "changes read");
                goto out;
            }
            out->v = nvv;
            cap = ncap;
        }
        sl_vs_change *c = &out->v[out->n];
        rc = read_entry(vs, snap->sn_kv, v, vl, ver, c, &tmp, &bytes, err);
        out->n++; /* counted even on failure, so that fini frees what it holds */
        if (rc != 0)
            goto out;
        out->last_version = ver;
    }
    rc = sl_kv_iter_status(it, err);
    /* A filtered read that ran to the end examined every version of the snapshot. */
    if (rc == 0 && hook != NULL && ended)
        out->last_version = snap->sn_version;
out:
    sl_kv_iter_close(it);
    sl_buf_fini(&tmp);
    sl_vstore_snapshot_close(snap);
    if (rc != 0)
        sl_vs_changes_fini(out);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * Materializing referenced rows
 * ------------------------------------------------------------------------------------- */

static int mat_note(vs_mat *acc, uint64_t v, uint64_t delta)
{
    for (size_t i = 0; i < acc->m_n; i++)
        if (acc->m_v[i].v == v) {
            acc->m_v[i].delta += delta;
            return 0;
        }
    if (acc->m_n == acc->m_cap) {
        size_t ncap = acc->m_cap ? 2 * acc->m_cap : 8;
        struct vs_mat_ver *nv = realloc(acc->m_v, ncap * sizeof(*nv));
        if (nv == NULL)
            return SL_ENOMEM;
        acc->m_v = nv;
        acc->m_cap = ncap;
    }
    acc->m_v[acc->m_n++] = (struct vs_mat_ver){v, delta};
    return 0;
}

int sl__vs_log_materialize(sl_vstore *vs, sl_kv_batch *b, uint64_t uid, int64_t a, int64_t z,
                           const vs_head *h, vs_mat *acc, sl_error *err)
{
    if (h->h_trimmed >= h->h_version)
        return 0; /* the log is empty */
    uint8_t k0[VS_BLOCK_KEY_LEN], k1[VS_BLOCK_KEY_LEN + 1];
    vs_key_block(k0, uid, a, 0);
    vs_key_block(k1, uid, z, UINT64_MAX);
    k1[VS_BLOCK_KEY_LEN] = 0;
    sl_kv_iter_options o = {
        .lower = k0, .lower_len = sizeof(k0), .upper = k1, .upper_len = sizeof(k1)};
    sl_kv_iter *it;
    int rc = sl_kv_iter_open(&it, vs->vs_db, vs->vs_data, &o, err);
    if (rc != 0)
        return rc;
    sl_buf old = {0}, entry = {0};
    for (sl_kv_iter_first(it); sl_kv_iter_valid(it); sl_kv_iter_next(it)) {
        size_t kl, vl;
        const uint8_t *k = sl_kv_iter_key(it, &kl);
        const void *v = sl_kv_iter_value(it, &vl);
        uint64_t ver = sl_key_dec_u64(k + 17);
        vs_vblock vb = {0};
        if (ver <= h->h_trimmed)
            continue; /* its log entry is gone already */
        if ((rc = sl__vs_vblock_parse(v, vl, &vb, err)) != 0)
            break;
        if (vb.aux == VS_AUX_NONE)
            continue; /* compaction output: no entry refers to it */
        uint8_t lk[VS_LOG_ENTRY_KEY_LEN];
        vs_key_log_entry(lk, ver, vb.aux);
        if ((rc = sl_kv_get(vs->vs_db, vs->vs_log, NULL, lk, sizeof(lk), &old, err)) != 0) {
            if (rc == SL_ENOTFOUND)
                rc = sl_error_set(err, SL_ECORRUPT, 0, 0,
                                  "vstore: change-log entry %llu/%u of a stored block is missing",
                                  (unsigned long long)ver, vb.aux);
            break;
        }
        sl_vs_change c;
        vs_log_body body;
        rc = sl__vs_log_parse(old.data, old.len, ver, &c, &body, err);
        free(c.row_kinds);
        if (rc != 0)
            break;
        if (c.kind != SL_VS_CHANGE_ROWS || !body.ref || c.uid != uid ||
            body.last != sl_key_dec_i64(k + 9)) {
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0,
                              "vstore: change-log entry %llu/%u does not refer to its block",
                              (unsigned long long)ver, vb.aux);
            break;
        }
        sl_buf_reset(&entry);
        if ((rc = sl_buf_put(&entry, old.data, body.hdr_len)) != 0 ||
            (rc = sl_buf_put_u8(&entry, VS_BODY_INLINE)) != 0 ||
            (rc = sl_buf_put(&entry, v, vl)) != 0 ||
            (rc = sl_kv_batch_put(b, vs->vs_log, lk, sizeof(lk), entry.data, entry.len)) != 0 ||
            (rc = mat_note(acc, ver, entry.len - old.len)) != 0) {
            rc = sl__vs_fail(err, rc, "materialize");
            break;
        }
    }
    if (rc == 0)
        rc = sl_kv_iter_status(it, err);
    sl_kv_iter_close(it);
    sl_buf_fini(&old);
    sl_buf_fini(&entry);
    return rc;
}

int sl__vs_log_materialize_done(sl_vstore *vs, sl_kv_batch *b, vs_head *h, vs_mat *acc,
                                sl_error *err)
{
    sl_buf tmp = {0};
    int rc = 0;
    for (size_t i = 0; i < acc->m_n; i++) {
        vs_log_sum sum;
        uint8_t sk[VS_LOG_SUM_KEY_LEN];
        if ((rc = read_sum(vs, NULL, acc->m_v[i].v, &sum, &tmp, err)) != 0)
            break;
        vs_key_log_sum(sk, acc->m_v[i].v);
        sl_buf_reset(&tmp);
        if ((rc = sl__vs_log_sum_encode(&tmp, sum.entries, sum.stored + acc->m_v[i].delta,
                                        sum.logical)) != 0 ||
            (rc = sl_kv_batch_put(b, vs->vs_log, sk, sizeof(sk), tmp.data, tmp.len)) != 0) {
            rc = sl__vs_fail(err, rc, "materialize");
            break;
        }
        h->h_bytes += acc->m_v[i].delta;
    }
    sl_buf_fini(&tmp);
    free(acc->m_v);
    memset(acc, 0, sizeof(*acc));
    return rc;
}
