/*
 * fuzz_unparse.c - libFuzzer target for the unparser (common/sql/unparse.h).
 *
 * Each input is taken as SQL text. When it parses, every SELECT (and the AS query of every
 * CREATE STREAM) is unparsed and re-parsed, and the two trees must have the same dump
 * (sl_ast_dump); the re-parsed tree must unparse to the same text again. The expressions
 * of other statements (stream conditions, tags, DELETE WHERE, INSERT values) go through
 * sl_unparse_expr and "SELECT <text>" the same way. Finally each SELECT is unparsed with a
 * hook that replaces every placeholder and every FROM %%trows / %%tbname, and the result
 * must parse (or only hit the nesting limit, which the added parentheses can reach) with
 * no placeholder left. Any mismatch aborts. Seeds live in tests/fuzz/corpus/unparse/.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sql/parser.h"
#include "common/sql/unparse.h"

static void check(int ok, const char *what, const char *a, const char *b)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_unparse: %s\n  <%s>\n  <%s>\n", what, a ? a : "", b ? b : "");
    abort();
}

static char *dump_select(const sl_select *s)
{
    sl_stmt st;
    memset(&st, 0, sizeof(st));
    st.kind = SL_STMT_SELECT;
    st.u.select = (sl_select *)s;
    sl_buf b;
    sl_buf_init(&b);
    check(sl_ast_dump(&st, &b) == 0, "dump failed", NULL, NULL);
    return (char *)b.data; /* NUL terminated; caller frees */
}

static char *dump_expr(const sl_expr *e)
{
    sl_buf b;
    sl_buf_init(&b);
    check(sl_ast_dump_expr(e, &b) == 0, "dump failed", NULL, NULL);
    return (char *)b.data;
}

static char *unparse(const sl_select *s, const sl_unparse_subst *subst)
{
    sl_buf b;
    sl_buf_init(&b);
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_unparse_select(s, subst, &b, &err);
    check(rc == 0, "unparse failed", err.msg, s->text);
    return (char *)b.data;
}

static void round_trip_select(const sl_select *s)
{
    char *want = dump_select(s);
    char *text = unparse(s, NULL);
    sl_parse_result *r = NULL;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_parse(text, strlen(text), &r, &err);
    check(rc == 0, "re-parse failed", text, err.msg);
    check(r->nstmts == 1 && r->stmts[0]->kind == SL_STMT_SELECT, "not one SELECT", text, NULL);
    char *got = dump_select(r->stmts[0]->u.select);
    check(strcmp(want, got) == 0, "dump differs", want, got);
    char *text2 = unparse(r->stmts[0]->u.select, NULL);
    check(strcmp(text, text2) == 0, "not a fixed point", text, text2);
    free(text2);
    free(got);
    sl_parse_result_free(r);
    free(text);
    free(want);
}

static void round_trip_expr(const sl_expr *e)
{
    if (e == NULL)
        return;
    char *want = dump_expr(e);
    sl_buf b;
    sl_buf_init(&b);
    sl_error err;
    sl_error_clear(&err);
    check(sl_buf_printf(&b, "SELECT ") == 0, "out of memory", NULL, NULL);
    check(sl_unparse_expr(e, NULL, &b, &err) == 0, "unparse_expr failed", err.msg, want);
    sl_parse_result *r = NULL;
    int rc = sl_parse((const char *)b.data, b.len, &r, &err);
    check(rc == 0, "re-parse of expression failed", (const char *)b.data, err.msg);
    char *got = dump_expr(r->stmts[0]->u.select->items[0].expr);
    check(strcmp(want, got) == 0, "expression dump differs", want, got);
    free(got);
    sl_parse_result_free(r);
    sl_buf_fini(&b);
    free(want);
}

static void round_trip_list(const sl_expr_list *l)
{
    for (int i = 0; i < l->n; i++)
        round_trip_expr(l->items[i]);
}

/* ---------------------------------------------------------------- substitution */

static int ph_hook(void *ud, const sl_expr *ph, sl_buf *out, sl_error *err)
{
    (void)ud;
    (void)err;
    if (ph->u.placeholder.ph == SL_PH_TBNAME)
        return sl_buf_printf(out, "'d1001'");
    return sl_buf_printf(out, "CAST('2025-01-01 00:00:00.000' AS TIMESTAMP)");
}

static int src_hook(void *ud, const sl_from *from, sl_buf *out, const char **extra_where,
                    sl_error *err)
{
    (void)ud;
    (void)err;
    *extra_where = from->kind == SL_FROM_TROWS ? "ts >= 0 AND ts < 60000 OR tbname = 'x'" : NULL;
    return sl_buf_printf(out, "power.`d 1001`");
}

static bool list_has_placeholder(const sl_expr_list *l);
static bool has_placeholder(const sl_select *s);

static bool expr_has_placeholder(const sl_expr *e)
{
    if (e == NULL)
        return false;
    switch (e->kind) {
    case SL_EX_PLACEHOLDER: return true;
    case SL_EX_UNARY: return expr_has_placeholder(e->u.unary.arg);
    case SL_EX_BINARY:
        return expr_has_placeholder(e->u.binary.left) || expr_has_placeholder(e->u.binary.right);
    case SL_EX_FUNC: return list_has_placeholder(&e->u.func.args);
    case SL_EX_CASE:
        for (int i = 0; i < e->u.case_.nwhen; i++) {
            if (expr_has_placeholder(e->u.case_.whens[i].when) ||
                expr_has_placeholder(e->u.case_.whens[i].then))
                return true;
        }
        return expr_has_placeholder(e->u.case_.operand) || expr_has_placeholder(e->u.case_.else_);
    case SL_EX_IN: return expr_has_placeholder(e->u.in.arg) || list_has_placeholder(&e->u.in.list);
    case SL_EX_BETWEEN:
        return expr_has_placeholder(e->u.between.arg) || expr_has_placeholder(e->u.between.lo) ||
               expr_has_placeholder(e->u.between.hi);
    case SL_EX_ISNULL: return expr_has_placeholder(e->u.isnull.arg);
    case SL_EX_LIKE:
        return expr_has_placeholder(e->u.like.arg) || expr_has_placeholder(e->u.like.pattern);
    case SL_EX_CAST: return expr_has_placeholder(e->u.cast.arg);
    default: return false;
    }
}

static bool list_has_placeholder(const sl_expr_list *l)
{
    for (int i = 0; i < l->n; i++) {
        if (expr_has_placeholder(l->items[i]))
            return true;
    }
    return false;
}

/* True when s still holds a placeholder or a FROM %%trows / %%tbname anywhere. */
static bool has_placeholder(const sl_select *s)
{
    for (int i = 0; i < s->nitems; i++) {
        if (expr_has_placeholder(s->items[i].expr))
            return true;
    }
    for (int i = 0; i < s->norder; i++) {
        if (expr_has_placeholder(s->order[i].expr))
            return true;
    }
    if (s->from != NULL) {
        if (s->from->kind == SL_FROM_TROWS || s->from->kind == SL_FROM_TBNAME)
            return true;
        if (s->from->kind == SL_FROM_SUBQUERY && has_placeholder(s->from->subquery))
            return true;
    }
    return expr_has_placeholder(s->where) || expr_has_placeholder(s->having) ||
           list_has_placeholder(&s->partition_by) || list_has_placeholder(&s->group_by) ||
           list_has_placeholder(&s->fill_values);
}

static void substituted(const sl_select *s)
{
    sl_unparse_subst subst = {.placeholder = ph_hook, .source = src_hook, .keep_item_names = true};
    char *text = unparse(s, &subst);
    sl_parse_result *r = NULL;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_parse(text, strlen(text), &r, &err);
    if (rc == SL_ELIMIT) { /* the hook's parentheses and CASTs add one level each */
        free(text);
        return;
    }
    check(rc == 0, "substituted text does not parse", text, err.msg);
    check(r->nstmts == 1 && r->stmts[0]->kind == SL_STMT_SELECT, "not one SELECT", text, NULL);
    check(!has_placeholder(r->stmts[0]->u.select), "placeholder left", text, NULL);
    sl_parse_result_free(r);
    free(text);
}

/* ---------------------------------------------------------------- statements */

static void one_select(const sl_select *s)
{
    round_trip_select(s);
    substituted(s);
}

static void stream_exprs(const sl_create_stream *c)
{
    const sl_trigger *t = &c->trigger;
    round_trip_list(&t->state_exprs);
    for (int i = 0; i < t->nzeroth; i++)
        round_trip_expr(t->zeroth[i].expr);
    round_trip_list(&t->event_starts);
    round_trip_expr(t->event_end);
    round_trip_list(&c->partition_by);
    for (int i = 0; i < c->nopts; i++)
        round_trip_expr(c->opts[i].expr);
    round_trip_expr(c->notify.where);
    round_trip_expr(c->output_subtable);
    for (int i = 0; i < c->ntags; i++)
        round_trip_expr(c->tags[i].expr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sl_parse_result *r = NULL;
    sl_error err;
    sl_error_clear(&err);
    if (sl_parse((const char *)data, size, &r, &err) != 0)
        return 0;
    for (int i = 0; i < r->nstmts; i++) {
        const sl_stmt *st = r->stmts[i];
        switch (st->kind) {
        case SL_STMT_SELECT: one_select(st->u.select); break;
        case SL_STMT_CREATE_STREAM:
            if (st->u.create_stream.query != NULL)
                one_select(st->u.create_stream.query);
            stream_exprs(&st->u.create_stream);
            break;
        case SL_STMT_DELETE: round_trip_expr(st->u.del.where); break;
        case SL_STMT_INSERT:
            for (int k = 0; k < st->u.insert.n; k++) {
                const sl_insert_item *it = &st->u.insert.items[k];
                round_trip_list(&it->tag_values);
                for (int row = 0; row < it->nrows; row++)
                    round_trip_list(&it->rows[row]);
            }
            break;
        case SL_STMT_CREATE_SUBTABLES:
            for (int k = 0; k < st->u.create_subtables.n; k++)
                round_trip_list(&st->u.create_subtables.items[k].tag_values);
            break;
        default: break;
        }
    }
    sl_parse_result_free(r);
    return 0;
}
