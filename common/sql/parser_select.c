/*
 * parser_select.c - the SELECT statement, also used for subqueries and stream queries.
 *
 * Clauses are taken in the order TDengine allows: select list, FROM, WHERE, PARTITION BY,
 * INTERVAL(i [, offset]) [SLIDING(s)] [FILL(...)], GROUP BY, HAVING, ORDER BY, LIMIT. The
 * source is a table, a parenthesised subquery, %%trows or %%tbname, optionally aliased.
 * Each select item keeps its exact source text (the default column name), and the
 * SELECT keeps its own text for the stream layer.
 */
#include <string.h>

#include "parser_int.h"

static int parse_items(sl__parser *p, sl_select *s)
{
    sl__vec items = {0};
    do {
        sl_select_item it = {0};
        const char *start = p->tok.text;
        if (sl__is(p, SL_TK_STAR)) {
            it.expr = sl__new_expr(p, SL_EX_STAR, p->tok.pos);
            if (it.expr == NULL)
                return SL_ENOMEM;
            sl__next(p);
        } else {
            SL__TRY(sl__expr(p, &it.expr));
        }
        it.text = sl__strndup(p, start, (size_t)(p->prev_end - start));
        if (it.text == NULL)
            return SL_ENOMEM;
        if (sl__accept_kw(p, SL_KW_AS))
            SL__TRY(sl__name(p, &it.alias, NULL, "an alias"));
        else if (sl__is_name(p))
            SL__TRY(sl__name(p, &it.alias, NULL, "an alias"));
        SL__TRY(sl__vec_push(p, &items, sizeof(it), &it));
    } while (sl__accept(p, SL_TK_COMMA));
    s->nitems = items.n;
    s->items = items.items;
    return 0;
}

static int parse_from(sl__parser *p, sl_select *s)
{
    sl_from *f = sl__alloc(p, sizeof(*f));
    if (f == NULL)
        return SL_ENOMEM;
    f->pos = p->tok.pos;
    if (sl__is(p, SL_TK_LPAREN)) {
        SL__TRY(sl__enter(p, p->tok.pos));
        sl__next(p);
        if (!sl__is_kw(p, SL_KW_SELECT))
            return sl__fail_expected(p, "SELECT");
        f->kind = SL_FROM_SUBQUERY;
        SL__TRY(sl__select(p, &f->subquery));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
        sl__leave(p);
    } else if (sl__is(p, SL_TK_PLACEHOLDER) &&
               (p->tok.ph == SL_PH_TROWS || p->tok.ph == SL_PH_TBNAME)) {
        f->kind = p->tok.ph == SL_PH_TROWS ? SL_FROM_TROWS : SL_FROM_TBNAME;
        sl__next(p);
    } else {
        f->kind = SL_FROM_TABLE;
        SL__TRY(sl__qname(p, &f->table, "a table name"));
    }
    if (sl__accept_kw(p, SL_KW_AS))
        SL__TRY(sl__name(p, &f->alias, NULL, "an alias"));
    else if (sl__is_name(p))
        SL__TRY(sl__name(p, &f->alias, NULL, "an alias"));
    s->from = f;
    return 0;
}

/* INTERVAL(i [, offset]) [SLIDING(s)] [FILL(mode [, v ...])]; INTERVAL is current. */
static int parse_interval(sl__parser *p, sl_select *s)
{
    sl__next(p);
    SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
    s->has_interval = true;
    SL__TRY(sl__duration(p, &s->interval));
    if (sl__accept(p, SL_TK_COMMA)) {
        s->has_interval_offset = true;
        SL__TRY(sl__duration(p, &s->interval_offset));
    }
    SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
    if (sl__accept_kw(p, SL_KW_SLIDING)) {
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        s->has_sliding = true;
        SL__TRY(sl__duration(p, &s->sliding));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
    }
    if (sl__accept_kw(p, SL_KW_FILL)) {
        static const struct {
            sl_kw kw;
            sl_fill_mode mode;
        } modes[] = {
            {SL_KW_NONE, SL_FILL_NONE}, {SL_KW_NULL, SL_FILL_NULL},
            {SL_KW_PREV, SL_FILL_PREV}, {SL_KW_NEXT, SL_FILL_NEXT},
            {SL_KW_LINEAR, SL_FILL_LINEAR}, {SL_KW_VALUE, SL_FILL_VALUE},
        };
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
            if (sl__accept_kw(p, modes[i].kw)) {
                s->fill = modes[i].mode;
                break;
            }
        }
        if (s->fill == SL_FILL_NONE_GIVEN)
            return sl__fail_expected(p, "NONE, NULL, PREV, NEXT, LINEAR or VALUE");
        if (s->fill == SL_FILL_VALUE) {
            SL__TRY(sl__expect(p, SL_TK_COMMA, "','"));
            SL__TRY(sl__expr_list(p, &s->fill_values));
        }
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
    }
    return 0;
}

static int parse_order(sl__parser *p, sl_select *s)
{
    sl__vec order = {0};
    do {
        sl_order_item it = {0};
        SL__TRY(sl__expr(p, &it.expr));
        if (sl__accept_kw(p, SL_KW_DESC))
            it.desc = true;
        else
            sl__accept_kw(p, SL_KW_ASC);
        if (sl__accept_kw(p, SL_KW_NULLS)) {
            if (sl__accept_kw(p, SL_KW_FIRST))
                it.nulls = 1;
            else if (sl__accept_kw(p, SL_KW_LAST))
                it.nulls = 2;
            else
                return sl__fail_expected(p, "FIRST or LAST");
        }
        SL__TRY(sl__vec_push(p, &order, sizeof(it), &it));
    } while (sl__accept(p, SL_TK_COMMA));
    s->norder = order.n;
    s->order = order.items;
    return 0;
}

/* LIMIT n [OFFSET m] | LIMIT m, n; LIMIT is current. */
static int parse_limit(sl__parser *p, sl_select *s)
{
    sl__next(p);
    s->has_limit = true;
    SL__TRY(sl__int64(p, &s->limit, NULL, "an integer"));
    if (sl__accept(p, SL_TK_COMMA)) {
        s->has_offset = true;
        s->offset = s->limit;
        SL__TRY(sl__int64(p, &s->limit, NULL, "an integer"));
    } else if (sl__accept_kw(p, SL_KW_OFFSET)) {
        s->has_offset = true;
        SL__TRY(sl__int64(p, &s->offset, NULL, "an integer"));
    }
    return 0;
}

int sl__select(sl__parser *p, sl_select **out)
{
    sl_select *s = sl__alloc(p, sizeof(*s));
    if (s == NULL)
        return SL_ENOMEM;
    const char *start = p->tok.text;
    s->pos = p->tok.pos;
    SL__TRY(sl__expect_kw(p, SL_KW_SELECT, "SELECT"));
    s->distinct = sl__accept_kw(p, SL_KW_DISTINCT);
    SL__TRY(parse_items(p, s));
    if (sl__accept_kw(p, SL_KW_FROM))
        SL__TRY(parse_from(p, s));
    if (sl__accept_kw(p, SL_KW_WHERE))
        SL__TRY(sl__expr(p, &s->where));
    if (sl__accept_kw(p, SL_KW_PARTITION)) {
        SL__TRY(sl__expect_kw(p, SL_KW_BY, "BY"));
        SL__TRY(sl__expr_list(p, &s->partition_by));
    }
    if (sl__is_kw(p, SL_KW_INTERVAL))
        SL__TRY(parse_interval(p, s));
    if (sl__accept_kw(p, SL_KW_GROUP)) {
        SL__TRY(sl__expect_kw(p, SL_KW_BY, "BY"));
        SL__TRY(sl__expr_list(p, &s->group_by));
    }
    if (sl__accept_kw(p, SL_KW_HAVING))
        SL__TRY(sl__expr(p, &s->having));
    if (sl__accept_kw(p, SL_KW_ORDER)) {
        SL__TRY(sl__expect_kw(p, SL_KW_BY, "BY"));
        SL__TRY(parse_order(p, s));
    }
    if (sl__is_kw(p, SL_KW_LIMIT))
        SL__TRY(parse_limit(p, s));
    s->text = sl__strndup(p, start, (size_t)(p->prev_end - start));
    if (s->text == NULL)
        return SL_ENOMEM;
    *out = s;
    return 0;
}
