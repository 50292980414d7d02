/*
 * trigger_ckpt.c - checkpoint and restore of a whole trigger engine.
 *
 * A checkpoint is one self-checking record: magic "SLTRIGCK", a format version, the
 * definition fingerprint and stream id (a checkpoint only restores into the same
 * definition), the PERIOD schedule, then every directory entry in creation order (so
 * ticks visit groups in the same order after a restore) with its encoded group state, and
 * an XXH3 checksum of everything before it. Monotonic instants are stored relative to the
 * clock at checkpoint time and rebased on restore, because a monotonic clock means nothing
 * in another process. Restore validates and decodes everything into new structures before
 * touching the engine, so a bad record changes nothing.
 */
#include "trigger_int.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "common/kv/keycodec.h"

static const char MAGIC[8] = {'S', 'L', 'T', 'R', 'I', 'G', 'C', 'K'};
#define CKPT_VERSION 3u /* 2: STATE/EVENT values live in the group state (GROUP_FMT 2);
                        * 3: + the PERIOD row range (p_lo, p_hi) of every group */

static int64_t rel(int64_t v, int64_t now)
{
    if (v == INT64_MIN || v == INT64_MAX)
        return v;
    return v - now;
}

static int64_t unrel(int64_t v, int64_t now)
{
    if (v == INT64_MIN || v == INT64_MAX)
        return v;
    return v + now;
}

int sl_trig_checkpoint(sl_trig *t, sl_buf *out, sl_error *err)
{
    size_t start = out->len;
    int64_t now = sl__trig_mono(t);
    sl_buf gb = {0};
    int rc = sl_buf_put(out, MAGIC, sizeof MAGIC);
    if (rc == 0) rc = sl_buf_put_u32(out, CKPT_VERSION);
    if (rc == 0) rc = sl_buf_put_u64(out, t->def->fingerprint);
    if (rc == 0) rc = sl_buf_put_u64(out, t->def->stream_id);
    if (rc == 0) rc = sl_buf_put_vari(out, t->period_prev);
    if (rc == 0) rc = sl_buf_put_vari(out, t->period_next);
    if (rc == 0) rc = sl_buf_put_varu(out, t->ndir);
    for (uint32_t i = 0; i < t->ndir && rc == 0; i++) {
        sl__trig_dirent *de = &t->dir[i];
        rc = sl_buf_put_u64(out, de->gid);
        if (rc == 0) rc = sl_buf_put_varu(out, de->flags & ~(uint32_t)SL__DE_STORED);
        if (rc == 0) rc = sl_buf_put_vari(out, de->last_wall);
        if (rc == 0) rc = sl_buf_put_vari(out, rel(de->last_mono, now));
        if (rc == 0) rc = sl_buf_put_vari(out, rel(de->md_deadline, now));
        if (rc == 0) rc = sl_buf_put_vari(out, de->md_wstart);
        if (rc == 0) rc = sl_buf_put_vari(out, de->p_lo);
        if (rc == 0) rc = sl_buf_put_vari(out, de->p_hi);
        if (rc == 0) {
            sl_buf_reset(&gb);
            rc = sl__trig_group_bytes(t, de, &gb, err);
        }
        if (rc == 0) rc = sl_buf_put_varu(out, gb.len);
        if (rc == 0) rc = sl_buf_put(out, gb.data, gb.len);
    }
    if (rc == 0)
        rc = sl_buf_put_u64(out, XXH3_64bits(out->data + start, out->len - start));
    sl_buf_fini(&gb);
    if (rc != 0) {
        out->len = start;
        return sl_error_set(err, rc, 0, 0, "trigger checkpoint failed: %s", sl_strerror(rc));
    }
    return 0;
}

int sl_trig_restore(sl_trig *t, const void *p, size_t n, sl_error *err)
{
    const uint8_t *b = p;
    if (!p || n < sizeof MAGIC + 4 + 8 + 8 + 8)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger checkpoint: truncated (%zu bytes)",
                            n);
    if (memcmp(b, MAGIC, sizeof MAGIC) != 0)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger checkpoint: bad magic");
    uint64_t sum;
    sl_reader cr;
    sl_reader_init(&cr, b + n - 8, 8);
    if (sl_reader_u64(&cr, &sum) != 0 || sum != XXH3_64bits(b, n - 8))
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger checkpoint: checksum mismatch");
    sl_reader r;
    sl_reader_init(&r, b + sizeof MAGIC, n - sizeof MAGIC - 8);
    uint32_t ver;
    uint64_t fp, sid, ndir;
    int64_t pprev, pnext;
    if (sl_reader_u32(&r, &ver) != 0 || ver < 2 || ver > CKPT_VERSION)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger checkpoint: unknown version");
    if (sl_reader_u64(&r, &fp) != 0 || sl_reader_u64(&r, &sid) != 0)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger checkpoint: truncated header");
    if (sid != t->def->stream_id)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "trigger checkpoint belongs to stream %llu, not to stream %llu",
                            (unsigned long long)sid, (unsigned long long)t->def->stream_id);
    if (fp != t->def->fingerprint)
        return sl_error_set(err, SL_EINVAL, 0, 0,
                            "trigger checkpoint was made for a different trigger definition "
                            "(fingerprint %016llx, this definition %016llx): the trigger type, "
                            "its parameters or options that shape window state changed",
                            (unsigned long long)fp, (unsigned long long)t->def->fingerprint);
    if (sl_reader_vari(&r, &pprev) != 0 || sl_reader_vari(&r, &pnext) != 0 ||
        sl_reader_varu(&r, &ndir) != 0 || ndir > sl_reader_left(&r) / 10)
        return sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger checkpoint: bad header");

    /* Build the new directory in a scratch engine, then swap. */
    sl_trig nt;
    memset(&nt, 0, sizeof nt);
    nt.def = t->def;
    nt.clock = t->clock;
    int64_t now = sl__trig_mono(t);
    int rc = 0;
    for (uint64_t i = 0; i < ndir && rc == 0; i++) {
        uint64_t gid, flags, glen;
        int64_t lw, lm, mdd, mds;
        /* Format 2 has no PERIOD row range: a group with rows since the last point then
         * reads every row of the group at the next point (once, after an upgrade). */
        int64_t plo = INT64_MIN, phi = INT64_MAX;
        if (sl_reader_u64(&r, &gid) != 0 || sl_reader_varu(&r, &flags) != 0 ||
            sl_reader_vari(&r, &lw) != 0 || sl_reader_vari(&r, &lm) != 0 ||
            sl_reader_vari(&r, &mdd) != 0 || sl_reader_vari(&r, &mds) != 0 ||
            (ver >= 3 && (sl_reader_vari(&r, &plo) != 0 || sl_reader_vari(&r, &phi) != 0)) ||
            sl_reader_varu(&r, &glen) != 0 || glen > sl_reader_left(&r) ||
            (flags & ~(uint64_t)(SL__DE_IDLE | SL__DE_HAS_DATA | SL__DE_SEEN))) {
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger checkpoint: bad group entry");
            break;
        }
        sl__trig_dirent *de;
        if (sl__trig_dir_get(&nt, gid, false, &de) == 0) {
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger checkpoint: group listed twice");
            break;
        }
        if (sl__trig_dir_get(&nt, gid, true, &de) != 0) {
            rc = sl_error_set(err, SL_ENOMEM, 0, 0, "out of memory");
            break;
        }
        de->flags = (uint32_t)flags;
        de->last_wall = lw;
        de->last_mono = unrel(lm, now);
        de->md_deadline = unrel(mdd, now);
        de->md_wstart = mds;
        de->p_lo = plo;
        de->p_hi = phi;
        const uint8_t *gp = sl_reader_take(&r, (size_t)glen);
        sl__trig_group *g = NULL;
        if ((rc = sl__trig_group_decode(t->def, gp, (size_t)glen, &g, err)) != 0)
            break;
        if (g->gid != gid) {
            sl__trig_group_free(g);
            rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger checkpoint: group id mismatch");
            break;
        }
        de->hot = g;
    }
    if (rc == 0 && sl_reader_left(&r) != 0)
        rc = sl_error_set(err, SL_ECORRUPT, 0, 0, "trigger checkpoint: trailing bytes");
    if (rc == 0 && t->kv) {
        /* Replace this stream's stored groups. */
        sl_buf lo = {0}, hi = {0};
        rc = sl_buf_put_u8(&lo, 'T');
        if (rc == 0) rc = sl_key_put_u64(&lo, t->def->stream_id);
        if (rc == 0) rc = sl_buf_put(&hi, lo.data, lo.len);
        if (rc == 0) rc = sl_key_successor(&hi);
        if (rc == 0)
            rc = sl_kv_delete_range(t->kv, t->cf, lo.data, lo.len, hi.data, hi.len, err);
        sl_buf_fini(&lo);
        sl_buf_fini(&hi);
    }
    if (rc != 0) {
        sl__trig_dir_free(&nt);
        return rc;
    }
    /* Swap in; the hot set is rebuilt in directory order, then trimmed by spilling. */
    sl__trig_dir_free(t);
    t->dir = nt.dir;
    t->ndir = nt.ndir;
    t->capdir = nt.capdir;
    t->index = nt.index;
    t->index_cap = nt.index_cap;
    t->period_prev = pprev;
    t->period_next = pnext;
    t->st.groups = t->ndir;
    for (uint32_t i = 0; i < t->ndir; i++) {
        sl__trig_group *g = t->dir[i].hot;
        g->dirty = true;
        g->lru_prev = NULL;
        g->lru_next = t->lru_head;
        if (t->lru_head)
            t->lru_head->lru_prev = g;
        t->lru_head = g;
        if (!t->lru_tail)
            t->lru_tail = g;
        t->nhot++;
    }
    if (t->kv && t->nhot > t->max_hot) {
        /* Spill everything (flush), then drop the least recent beyond the bound. */
        if ((rc = sl_trig_flush(t, err)) != 0)
            return rc;
        while (t->nhot > t->max_hot && t->lru_tail) {
            sl__trig_group *g = t->lru_tail;
            sl__trig_dirent *de;
            sl__trig_dir_get(t, g->gid, false, &de);
            t->lru_tail = g->lru_prev;
            if (t->lru_tail)
                t->lru_tail->lru_next = NULL;
            else
                t->lru_head = NULL;
            de->hot = NULL;
            de->flags |= SL__DE_STORED;
            t->nhot--;
            sl__trig_group_free(g);
        }
    }
    return 0;
}
