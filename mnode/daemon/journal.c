/*
 * journal.c - the mnode daemon's in-memory journal of table changes, so that a vnode
 * catching up on its vgroups' tables (MNODE_VGROUP_TABLES after_catalog_version) gets the
 * tables created or dropped since its copy, not the whole list every time a table is
 * created. The journal covers this run of the daemon only (versions from md_floor on,
 * which starts at the boot version); an older copy gets the full list, which is always
 * correct. It restarts when it reaches MD_JOURNAL_MAX entries.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "mdaemon.h"

static void journal_clear(sl_mdaemon *md)
{
    for (size_t i = 0; i < md->md_njournal; i++) {
        free(md->md_journal[i].db);
        free(md->md_journal[i].name);
    }
    md->md_njournal = 0;
}

void sl__md_journal_fini(sl_mdaemon *md)
{
    journal_clear(md);
    free(md->md_journal);
    md->md_journal = NULL;
    md->md_capjournal = 0;
}

/* Forgets every entry: copies older than the current version get full lists again. */
static void journal_restart(sl_mdaemon *md)
{
    journal_clear(md);
    md->md_floor = md->md_version;
}

void sl__md_journal_note(sl_mdaemon *md, const sl_ddl_result *dr)
{
    if (dr->nchanges == 0)
        return;
    md->md_version++;
    for (int i = 0; i < dr->nchanges; i++) {
        const sl_ddl_change *c = &dr->changes[i];
        if (c->kind != SL_DDL_TABLE_CREATED && c->kind != SL_DDL_TABLE_DROPPED)
            continue;
        if (md->md_njournal >= MD_JOURNAL_MAX) {
            journal_restart(md);
            return;
        }
        if (md->md_njournal == md->md_capjournal) {
            size_t cap = md->md_capjournal ? md->md_capjournal * 2 : 256;
            md_jentry *p = realloc(md->md_journal, cap * sizeof(*p));
            if (p == NULL) {
                journal_restart(md);
                return;
            }
            md->md_journal = p;
            md->md_capjournal = cap;
        }
        md_jentry *e = &md->md_journal[md->md_njournal];
        e->version = md->md_version;
        e->uid = c->uid;
        e->vgroup = c->vgroup_id;
        e->dropped = c->kind == SL_DDL_TABLE_DROPPED;
        e->db = strdup(c->db);
        e->name = strdup(c->table ? c->table : "");
        if (e->db == NULL || e->name == NULL) {
            free(e->db);
            free(e->name);
            journal_restart(md);
            return;
        }
        md->md_njournal++;
    }
}

size_t sl__md_journal_after(const sl_mdaemon *md, uint64_t after)
{
    size_t lo = 0, hi = md->md_njournal;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (md->md_journal[mid].version <= after)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
