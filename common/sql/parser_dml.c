/*
 * parser_dml.c - INSERT and DELETE.
 *
 * One INSERT may write several tables: INSERT INTO t1 [(cols)] VALUES (...)(...) t2 ...;
 * each table may be created on the fly with USING st [(tag names)] TAGS (...). Rows may be
 * separated by commas or written back to back. Values are ordinary expressions (NOW + 1s,
 * -5, '2025-01-01 00:00:00.000'); evaluating them is left to the writer.
 */
#include "parser_int.h"

/* (name [, name ...]) into parallel name/position arrays; pos may be NULL. */
static int parse_name_list(sl__parser *p, const char *what, int *n, const char ***names,
                           sl_pos **pos)
{
    sl__vec nv = {0}, pv = {0};
    SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
    do {
        const char *name;
        sl_pos npos;
        SL__TRY(sl__name(p, &name, &npos, what));
        SL__TRY(sl__vec_push(p, &nv, sizeof(name), &name));
        if (pos != NULL)
            SL__TRY(sl__vec_push(p, &pv, sizeof(npos), &npos));
    } while (sl__accept(p, SL_TK_COMMA));
    SL__TRY(sl__expect(p, SL_TK_RPAREN, "',' or ')'"));
    *n = nv.n;
    *names = nv.items;
    if (pos != NULL)
        *pos = pv.items;
    return 0;
}

static int parse_insert_item(sl__parser *p, sl_insert_item *it)
{
    SL__TRY(sl__qname(p, &it->table, "a table name"));
    if (sl__accept_kw(p, SL_KW_USING)) {
        it->has_using = true;
        SL__TRY(sl__qname(p, &it->stable, "a table name"));
        if (sl__is(p, SL_TK_LPAREN))
            SL__TRY(parse_name_list(p, "a tag name", &it->ntag_names, &it->tag_names, NULL));
        SL__TRY(sl__expect_kw(p, SL_KW_TAGS, "TAGS"));
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        SL__TRY(sl__expr_list(p, &it->tag_values));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "',' or ')'"));
    }
    if (sl__is(p, SL_TK_LPAREN))
        SL__TRY(parse_name_list(p, "a column name", &it->ncols, &it->cols, &it->col_pos));
    SL__TRY(sl__expect_kw(p, SL_KW_VALUES, "VALUES"));
    sl__vec rows = {0};
    do {
        sl_expr_list row;
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        SL__TRY(sl__expr_list(p, &row));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "',' or ')'"));
        SL__TRY(sl__vec_push(p, &rows, sizeof(row), &row));
        if (sl__is(p, SL_TK_COMMA) && sl__peek(p, 1)->kind == SL_TK_LPAREN)
            sl__next(p);
    } while (sl__is(p, SL_TK_LPAREN));
    it->nrows = rows.n;
    it->rows = rows.items;
    return 0;
}

int sl__insert(sl__parser *p, sl_stmt *st)
{
    st->kind = SL_STMT_INSERT;
    sl__next(p); /* INSERT */
    SL__TRY(sl__expect_kw(p, SL_KW_INTO, "INTO"));
    sl__vec items = {0};
    do {
        sl_insert_item it = {0};
        SL__TRY(parse_insert_item(p, &it));
        SL__TRY(sl__vec_push(p, &items, sizeof(it), &it));
    } while (sl__is_name(p));
    st->u.insert.n = items.n;
    st->u.insert.items = items.items;
    return 0;
}

int sl__delete(sl__parser *p, sl_stmt *st)
{
    st->kind = SL_STMT_DELETE;
    sl__next(p); /* DELETE */
    SL__TRY(sl__expect_kw(p, SL_KW_FROM, "FROM"));
    SL__TRY(sl__qname(p, &st->u.del.table, "a table name"));
    if (sl__accept_kw(p, SL_KW_WHERE))
        SL__TRY(sl__expr(p, &st->u.del.where));
    return 0;
}
