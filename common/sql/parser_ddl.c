/*
 * parser_ddl.c - statements about databases and tables: CREATE DATABASE/STABLE/TABLE,
 * DROP DATABASE/TABLE/STABLE/STREAM, USE, SHOW and DESCRIBE.
 *
 * Only the shape is checked here; whether names exist, types fit or a VARCHAR has a
 * length is the catalog's business. The one value rule applied is PRECISION, whose three
 * spellings are part of the grammar.
 */
#include <string.h>
#include <strings.h>

#include "parser_int.h"

int sl__create_database(sl__parser *p, sl_stmt *st)
{
    sl_create_database *c = &st->u.create_db;
    st->kind = SL_STMT_CREATE_DATABASE;
    c->vgroups = -1;
    sl__next(p); /* DATABASE */
    SL__TRY(sl__if_not_exists(p, &c->if_not_exists));
    SL__TRY(sl__name(p, &c->name, NULL, "a database name"));
    bool has_vgroups = false;
    for (;;) {
        sl_pos pos = p->tok.pos;
        if (sl__accept_kw(p, SL_KW_PRECISION)) {
            if (c->precision != NULL)
                return sl__fail_at(p, pos, SL_ESYNTAX, "duplicate option PRECISION");
            sl_pos vpos;
            SL__TRY(sl__string(p, &c->precision, &vpos, "a precision such as 'ms'"));
            if (strcasecmp(c->precision, "ms") != 0 && strcasecmp(c->precision, "us") != 0 &&
                strcasecmp(c->precision, "ns") != 0) {
                char v[SL_EXCERPT_SIZE];
                sl_lexer_excerpt(c->precision, strlen(c->precision), v);
                return sl__fail_at(p, vpos, SL_ESYNTAX,
                                   "invalid precision '%s': expected 'ms', 'us' or 'ns'", v);
            }
            c->precision_pos = pos;
        } else if (sl__accept_kw(p, SL_KW_VGROUPS)) {
            if (has_vgroups)
                return sl__fail_at(p, pos, SL_ESYNTAX, "duplicate option VGROUPS");
            has_vgroups = true;
            SL__TRY(sl__int64(p, &c->vgroups, NULL, "an integer"));
            c->vgroups_pos = pos;
        } else {
            return 0;
        }
    }
}

/* col type [COMPOSITE KEY | PRIMARY KEY] ; keys only when allow_key. */
static int parse_column_defs(sl__parser *p, bool allow_key, int *n, sl_column_def **out)
{
    sl__vec cols = {0};
    SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
    do {
        sl_column_def c = {0};
        SL__TRY(sl__name(p, &c.name, &c.pos, allow_key ? "a column name" : "a tag name"));
        SL__TRY(sl__type(p, &c.type, &c.width, &c.width_given));
        if (allow_key && (sl__is_kw(p, SL_KW_COMPOSITE) || sl__is_kw(p, SL_KW_PRIMARY))) {
            sl__next(p);
            SL__TRY(sl__expect_kw(p, SL_KW_KEY, "KEY"));
            c.composite_key = true;
        }
        SL__TRY(sl__vec_push(p, &cols, sizeof(c), &c));
    } while (sl__accept(p, SL_TK_COMMA));
    SL__TRY(sl__expect(p, SL_TK_RPAREN, "',' or ')'"));
    *n = cols.n;
    *out = cols.items;
    return 0;
}

int sl__create_stable(sl__parser *p, sl_stmt *st)
{
    sl_create_stable *c = &st->u.create_stable;
    st->kind = SL_STMT_CREATE_STABLE;
    sl__next(p); /* STABLE */
    SL__TRY(sl__if_not_exists(p, &c->if_not_exists));
    SL__TRY(sl__qname(p, &c->name, "a table name"));
    SL__TRY(parse_column_defs(p, true, &c->ncols, &c->cols));
    SL__TRY(sl__expect_kw(p, SL_KW_TAGS, "TAGS"));
    return parse_column_defs(p, false, &c->ntags, &c->tags);
}

/* USING st [(tag names)] TAGS (values); the name is already in sub. */
static int parse_using(sl__parser *p, sl_create_subtable *sub)
{
    SL__TRY(sl__expect_kw(p, SL_KW_USING, "USING"));
    SL__TRY(sl__qname(p, &sub->stable, "a table name"));
    if (sl__accept(p, SL_TK_LPAREN)) {
        sl__vec names = {0}, pos = {0};
        do {
            const char *name;
            sl_pos npos;
            SL__TRY(sl__name(p, &name, &npos, "a tag name"));
            SL__TRY(sl__vec_push(p, &names, sizeof(name), &name));
            SL__TRY(sl__vec_push(p, &pos, sizeof(npos), &npos));
        } while (sl__accept(p, SL_TK_COMMA));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "',' or ')'"));
        sub->ntag_names = names.n;
        sub->tag_names = names.items;
        sub->tag_name_pos = pos.items;
    }
    SL__TRY(sl__expect_kw(p, SL_KW_TAGS, "TAGS"));
    SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
    SL__TRY(sl__expr_list(p, &sub->tag_values));
    return sl__expect(p, SL_TK_RPAREN, "',' or ')'");
}

int sl__create_table(sl__parser *p, sl_stmt *st)
{
    bool if_not_exists;
    sl_qname name;
    sl__next(p); /* TABLE */
    SL__TRY(sl__if_not_exists(p, &if_not_exists));
    SL__TRY(sl__qname(p, &name, "a table name"));
    if (sl__is(p, SL_TK_LPAREN)) {
        sl_create_table *c = &st->u.create_table;
        st->kind = SL_STMT_CREATE_TABLE;
        c->if_not_exists = if_not_exists;
        c->name = name;
        return parse_column_defs(p, true, &c->ncols, &c->cols);
    }
    if (!sl__is_kw(p, SL_KW_USING))
        return sl__fail_expected(p, "USING or '('");
    st->kind = SL_STMT_CREATE_SUBTABLES;
    sl__vec subs = {0};
    for (;;) {
        sl_create_subtable sub = {0};
        sub.if_not_exists = if_not_exists;
        sub.name = name;
        SL__TRY(parse_using(p, &sub));
        SL__TRY(sl__vec_push(p, &subs, sizeof(sub), &sub));
        if (!sl__is_name(p))
            break;
        SL__TRY(sl__if_not_exists(p, &if_not_exists));
        SL__TRY(sl__qname(p, &name, "a table name"));
    }
    st->u.create_subtables.n = subs.n;
    st->u.create_subtables.items = subs.items;
    return 0;
}

int sl__drop(sl__parser *p, sl_stmt *st)
{
    sl_drop *d = &st->u.drop;
    sl__next(p); /* DROP */
    if (sl__accept_kw(p, SL_KW_DATABASE)) {
        st->kind = SL_STMT_DROP_DATABASE;
        SL__TRY(sl__if_exists(p, &d->if_exists));
        d->names = sl__alloc(p, sizeof(sl_qname));
        if (d->names == NULL)
            return SL_ENOMEM;
        d->n = 1;
        d->names[0].pos = p->tok.pos;
        return sl__name(p, &d->names[0].name, NULL, "a database name");
    }
    if (sl__accept_kw(p, SL_KW_SNODE)) {
        /* DROP SNODE [ON DNODE] id: the node id of ins_snodes / SHOW SNODES. */
        st->kind = SL_STMT_DROP_SNODE;
        if (sl__accept_kw(p, SL_KW_ON))
            SL__TRY(sl__expect_kw(p, SL_KW_DNODE, "DNODE"));
        return sl__int64(p, &st->u.drop_node.id, &st->u.drop_node.id_pos, "an snode id");
    }
    const char *what;
    if (sl__accept_kw(p, SL_KW_TABLE)) {
        st->kind = SL_STMT_DROP_TABLE;
        what = "a table name";
    } else if (sl__accept_kw(p, SL_KW_STABLE)) {
        st->kind = SL_STMT_DROP_STABLE;
        what = "a table name";
    } else if (sl__accept_kw(p, SL_KW_STREAM)) {
        st->kind = SL_STMT_DROP_STREAM;
        what = "a stream name";
    } else {
        return sl__fail_expected(p, "DATABASE, STABLE, TABLE, STREAM or SNODE");
    }
    SL__TRY(sl__if_exists(p, &d->if_exists));
    sl__vec names = {0};
    do {
        sl_qname q;
        SL__TRY(sl__qname(p, &q, what));
        SL__TRY(sl__vec_push(p, &names, sizeof(q), &q));
    } while (sl__accept(p, SL_TK_COMMA));
    d->n = names.n;
    d->names = names.items;
    return 0;
}

static const struct {
    sl_kw kw;
    sl_show_kind kind;
} show_plain[] = {
    {SL_KW_DATABASES, SL_SHOW_DATABASES}, {SL_KW_VNODES, SL_SHOW_VNODES},
    {SL_KW_DNODES, SL_SHOW_DNODES},       {SL_KW_SNODES, SL_SHOW_SNODES},
    {SL_KW_MNODES, SL_SHOW_MNODES},
}, show_listing[] = {
    {SL_KW_STABLES, SL_SHOW_STABLES},
    {SL_KW_TABLES, SL_SHOW_TABLES},
    {SL_KW_STREAMS, SL_SHOW_STREAMS},
    {SL_KW_VGROUPS, SL_SHOW_VGROUPS},
}, show_create[] = {
    {SL_KW_TABLE, SL_SHOW_CREATE_TABLE},
    {SL_KW_STABLE, SL_SHOW_CREATE_STABLE},
    {SL_KW_DATABASE, SL_SHOW_CREATE_DATABASE},
    {SL_KW_STREAM, SL_SHOW_CREATE_STREAM},
};

/* [db.]STABLES|TABLES|STREAMS|VGROUPS [LIKE 'pattern'] */
static int parse_show_listing(sl__parser *p, sl_show *s)
{
    for (size_t i = 0; i < sizeof(show_listing) / sizeof(show_listing[0]); i++) {
        if (sl__accept_kw(p, show_listing[i].kw)) {
            s->kind = show_listing[i].kind;
            if (sl__accept_kw(p, SL_KW_LIKE))
                SL__TRY(sl__string(p, &s->like, NULL, "a pattern string"));
            return 0;
        }
    }
    return sl__fail_expected(p, "STABLES, TABLES, STREAMS or VGROUPS");
}

int sl__show(sl__parser *p, sl_stmt *st)
{
    sl_show *s = &st->u.show;
    st->kind = SL_STMT_SHOW;
    sl__next(p); /* SHOW */
    if (sl__is_name(p) && sl__peek(p, 1)->kind == SL_TK_DOT) {
        SL__TRY(sl__name(p, &s->db, NULL, "a database name"));
        sl__next(p); /* '.' */
        return parse_show_listing(p, s);
    }
    for (size_t i = 0; i < sizeof(show_plain) / sizeof(show_plain[0]); i++) {
        if (sl__accept_kw(p, show_plain[i].kw)) {
            s->kind = show_plain[i].kind;
            /* SHOW VNODES ON DNODE n: the vgroups one vnode holds (TDengine's form). */
            if (s->kind == SL_SHOW_VNODES && sl__accept_kw(p, SL_KW_ON)) {
                SL__TRY(sl__expect_kw(p, SL_KW_DNODE, "DNODE"));
                s->on_dnode = true;
                SL__TRY(sl__int64(p, &s->dnode, &s->dnode_pos, "a dnode id"));
            }
            /* DATABASES filters names, the node listings endpoints. */
            if (sl__accept_kw(p, SL_KW_LIKE))
                SL__TRY(sl__string(p, &s->like, NULL, "a pattern string"));
            return 0;
        }
    }
    if (sl__accept_kw(p, SL_KW_CREATE)) {
        for (size_t i = 0; i < sizeof(show_create) / sizeof(show_create[0]); i++) {
            if (!sl__accept_kw(p, show_create[i].kw))
                continue;
            s->kind = show_create[i].kind;
            if (s->kind == SL_SHOW_CREATE_DATABASE) {
                s->name.pos = p->tok.pos;
                return sl__name(p, &s->name.name, NULL, "a database name");
            }
            return sl__qname(p, &s->name, s->kind == SL_SHOW_CREATE_STREAM ? "a stream name"
                                                                          : "a table name");
        }
        return sl__fail_expected(p, "DATABASE, STABLE, TABLE or STREAM");
    }
    if (sl__is_kw(p, SL_KW_STABLES) || sl__is_kw(p, SL_KW_TABLES) ||
        sl__is_kw(p, SL_KW_STREAMS) || sl__is_kw(p, SL_KW_VGROUPS))
        return parse_show_listing(p, s);
    return sl__fail_expected(p, "DATABASES, STABLES, TABLES, STREAMS, VGROUPS, VNODES, DNODES, "
                                "SNODES, MNODES or CREATE");
}

int sl__use(sl__parser *p, sl_stmt *st)
{
    st->kind = SL_STMT_USE;
    sl__next(p); /* USE */
    return sl__name(p, &st->u.use_db, NULL, "a database name");
}

int sl__describe(sl__parser *p, sl_stmt *st)
{
    st->kind = SL_STMT_DESCRIBE;
    sl__next(p); /* DESCRIBE or DESC */
    return sl__qname(p, &st->u.describe, "a table name");
}
