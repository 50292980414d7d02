/*
 * parser.c - the parser's entry point, token cursor, error reporting and shared pieces.
 *
 * sl_parse() runs a hand-written recursive-descent parser (this file plus parser_expr.c,
 * parser_select.c, parser_ddl.c, parser_dml.c and parser_stream.c; see parser_int.h) over
 * the tokens of lexer.c, with up to two tokens of look-ahead. Keywords are identifiers the
 * lexer tagged; only the reserved ones (lexer.h) are refused as names, so words such as
 * PERIOD, VALUE or COUNT can still name columns. Nesting of parentheses, calls, unary
 * operators, CASE, IN lists and subqueries is counted and capped at SL_SQL_MAX_DEPTH, and
 * so is the height of every expression tree (a chain a+b+c... is as deep as it is long),
 * so no later stage that walks a tree recursively can run out of stack.
 *
 * The dump (sl_ast_dump, ast_dump.c) renders a statement on one line as nested
 * parenthesised lists, "(head field field ...)". Optional parts appear only when given;
 * flags are bare words (if-not-exists, distinct, composite-key, ...). Positions and the
 * source texts (sl_stmt.text, sl_select.text, item texts) are not rendered. Names are
 * printed as written, wrapped in backquotes when they are not plain [A-Za-z0-9_] words;
 * db.name when qualified. Strings are single-quoted with ' doubled and \\ \n \r \t \0 and
 * other control bytes escaped (\xNN). Durations print as value and unit: 10s. Floats
 * print in the shortest form that reads back (1.5, 1000, 1e+300). Types print as in SQL,
 * BINARY as VARCHAR, with "(n)" when a column definition wrote a length (elsewhere, when
 * the length is not 0).
 *
 *   expressions   (int 5) (uint 18446744073709551615) (float 1.5) (str 'a') (dur 10s)
 *                 (null) (true) (false) (col c) (col t.c) (star) (star t) (now) (today)
 *                 (- x) (not x) (~ x)      unary
 *                 (op l r) with op one of + - * / % = <> < <= > >= and or & | ||
 *                 (func name [distinct] arg...)   name as written
 *                 (case [operand] (when c r)... [(else e)])
 *                 (in x v...) (not-in x v...) (between x lo hi) (not-between x lo hi)
 *                 (like x p) (not-like x p) (is-null x) (is-not-null x)
 *                 (cast x TYPE)   TYPE as in SQL: INT, BIGINT UNSIGNED, VARCHAR(20)
 *                 (ph _twstart) (ph %%1) (ph %%tbname) (ph %%rollup_tag) (ph %%trows)
 *                 (pseudo _wstart)
 *   select        (select [distinct] (items item...) [(from src [(alias a)])] [(where e)]
 *                  [(partition-by e...)] [(interval i [offset])] [(sliding s)]
 *                  [(fill mode [v...])] [(group-by e...)] [(having e)]
 *                  [(order-by (asc|desc e [nulls-first|nulls-last])...)] [(limit n)]
 *                  [(offset m)])
 *                 item: expr | (as expr alias); src: name | (select ...) | %%trows |
 *                 %%tbname; fill mode: none null value prev next linear
 *   databases     (create-database [if-not-exists] db [(precision 'ms')] [(vgroups n)])
 *                 (drop-database [if-exists] db) (use db)
 *   tables        (create-stable [if-not-exists] name (columns col...) (tags col...))
 *                 (create-table [if-not-exists] name (columns col...))
 *                 col: (name TYPE [composite-key])
 *                 (create-subtables (subtable [if-not-exists] name (using st)
 *                  [(tag-names a...)] (tags e...))...)
 *                 (drop-table [if-exists] name...) (drop-stable [if-exists] name...)
 *                 (describe name)
 *   show          (show databases|vnodes|dnodes|snodes|mnodes [(like 'p')])
 *                 (show vnodes (on-dnode n) [(like 'p')])
 *                 (show stables|tables|streams|vgroups [(db d)] [(like 'p')])
 *                 (show create-table|create-stable|create-database|create-stream name)
 *   nodes         (drop-snode n)
 *   dml           (insert (into name [(using st [(tag-names a...)] (tags e...))]
 *                  [(columns c...)] (values (row e...)...))...)
 *                 (delete name [(where e)])
 *   streams       (create-stream [if-not-exists] name trigger [(from t)]
 *                  [(partition-by e...)] [(rollup-by tag)] [(options opt...)]
 *                  [(notify (urls 'u'...) [(on evt...)] [(where e)]
 *                   [(notify-options notify-history...)])] [(into t)]
 *                  [nodelay-create-subtable] [(output-subtable e)]
 *                  [(columns c|(c composite-key)...)] [(tags (name TYPE e)...)]
 *                  [(query (select ...))])
 *                 trigger: (period p [off]) | (sliding s [off])
 *                  | (interval i [ioff] (sliding s [off])) | (session col gap)
 *                  | (state-window (exprs e...) [(extend n)] [(zeroth-state z...)] [tf])
 *                  | (event-window (start c) (end e) [tf])
 *                  | (event-window (starts c...) [(end e)] [tf])
 *                  | (count-window n [(sliding m)] [(columns c...)])
 *                 z: expr | no-zeroth; tf: (true-for arg...), arg: limit | (start limit)
 *                  | (end limit), limit: 10s | (count n) | (and 10s (count n))
 *                  | (or 10s (count n))
 *                 opt: (watermark d) (expired-time d) (ignore-disorder) (delete-recalc)
 *                  (delete-output-table) (fill-history [e]) (fill-history-first [e])
 *                  (calc-notify-only) (low-latency-calc) (pre-filter e) (force-output)
 *                  (max-delay d) (event-type evt...) (ignore-nodata-trigger)
 *                  (idle-timeout d)
 *                 evt: window-open window-close idle resume (in that order)
 *                 (drop-stream [if-exists] name...)
 *                 (start-stream [if-exists] [ignore-untreated] name)
 *                 (stop-stream [if-exists] name)
 */
#include "parser.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parser_int.h"

/* ---------------------------------------------------------------- arrays and memory */

int sl__vec_push(sl__parser *p, sl__vec *v, size_t elsz, const void *elem)
{
    if (v->n == v->cap) {
        if (v->cap >= INT_MAX / 2)
            return sl__fail_at(p, p->tok.pos, SL_ELIMIT, "too many list items");
        int cap = v->cap == 0 ? 4 : v->cap * 2;
        void *items = sl__alloc(p, (size_t)cap * elsz);
        if (items == NULL)
            return SL_ENOMEM;
        if (v->n > 0)
            memcpy(items, v->items, (size_t)v->n * elsz);
        v->items = items;
        v->cap = cap;
    }
    memcpy((char *)v->items + (size_t)v->n * elsz, elem, elsz);
    v->n++;
    return 0;
}

void *sl__alloc(sl__parser *p, size_t n)
{
    void *m = sl_arena_alloc(p->arena, n);
    if (m == NULL)
        sl__fail_at(p, p->tok.pos, SL_ENOMEM, "out of memory");
    return m;
}

char *sl__strndup(sl__parser *p, const char *s, size_t n)
{
    char *m = sl_arena_strndup(p->arena, s, n);
    if (m == NULL)
        sl__fail_at(p, p->tok.pos, SL_ENOMEM, "out of memory");
    return m;
}

/* ---------------------------------------------------------------- token cursor */

void sl__next(sl__parser *p)
{
    if (p->tok.kind != SL_TK_EOF && p->tok.kind != SL_TK_ERROR)
        p->prev_end = p->tok.text + p->tok.len;
    if (p->nla > 0) {
        p->tok = p->la[0];
        p->la[0] = p->la[1];
        p->nla--;
    } else {
        sl_lexer_next(&p->lx, &p->tok);
    }
}

const sl_token *sl__peek(sl__parser *p, int k)
{
    while (p->nla < k)
        sl_lexer_next(&p->lx, &p->la[p->nla++]);
    return &p->la[k - 1];
}

bool sl__is(const sl__parser *p, sl_tok_kind k)
{
    return p->tok.kind == k;
}

bool sl__is_kw(const sl__parser *p, sl_kw kw)
{
    return p->tok.kind == SL_TK_IDENT && p->tok.kw == kw;
}

bool sl__accept(sl__parser *p, sl_tok_kind k)
{
    if (!sl__is(p, k))
        return false;
    sl__next(p);
    return true;
}

bool sl__accept_kw(sl__parser *p, sl_kw kw)
{
    if (!sl__is_kw(p, kw))
        return false;
    sl__next(p);
    return true;
}

int sl__expect(sl__parser *p, sl_tok_kind k, const char *what)
{
    if (!sl__accept(p, k))
        return sl__fail_expected(p, what);
    return 0;
}

int sl__expect_kw(sl__parser *p, sl_kw kw, const char *what)
{
    if (!sl__accept_kw(p, kw))
        return sl__fail_expected(p, what);
    return 0;
}

/* ---------------------------------------------------------------- errors */

int sl__fail_at(sl__parser *p, sl_pos pos, int code, const char *fmt, ...)
{
    char msg[SL_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return sl_error_set(&p->err, code, pos.line, pos.col, "%d:%d: %s", pos.line, pos.col, msg);
}

int sl__fail_expected(sl__parser *p, const char *what)
{
    const sl_token *t = &p->tok;
    if (t->kind == SL_TK_ERROR)
        return sl__fail_at(p, t->pos, p->lx.lx_err_code, "%s", p->lx.lx_err_msg);
    if (t->kind == SL_TK_EOF)
        return sl__fail_at(p, t->pos, SL_ESYNTAX, "syntax error at end of input: expected %s",
                           what);
    char near[SL_EXCERPT_SIZE];
    sl_lexer_excerpt(t->text, t->len, near);
    return sl__fail_at(p, t->pos, SL_ESYNTAX, "syntax error near '%s': expected %s", near, what);
}

int sl__enter(sl__parser *p, sl_pos pos)
{
    if (p->nest >= SL_SQL_MAX_DEPTH)
        return sl__fail_at(p, pos, SL_ELIMIT, "nesting too deep (more than %d levels)",
                           SL_SQL_MAX_DEPTH);
    p->nest++;
    return 0;
}

void sl__leave(sl__parser *p)
{
    p->nest--;
}

/* ---------------------------------------------------------------- common pieces */

bool sl__is_name(const sl__parser *p)
{
    if (p->tok.kind == SL_TK_QIDENT)
        return true;
    return p->tok.kind == SL_TK_IDENT && !sl_keyword_reserved(p->tok.kw);
}

int sl__name(sl__parser *p, const char **out, sl_pos *pos, const char *what)
{
    if (!sl__is_name(p))
        return sl__fail_expected(p, what);
    if (p->tok.kind == SL_TK_QIDENT) {
        *out = p->tok.str;
    } else {
        *out = sl__strndup(p, p->tok.text, p->tok.len);
        if (*out == NULL)
            return SL_ENOMEM;
    }
    if (pos != NULL)
        *pos = p->tok.pos;
    sl__next(p);
    return 0;
}

int sl__qname(sl__parser *p, sl_qname *out, const char *what)
{
    memset(out, 0, sizeof(*out));
    out->pos = p->tok.pos;
    SL__TRY(sl__name(p, &out->name, NULL, what));
    if (sl__accept(p, SL_TK_DOT)) {
        out->db = out->name;
        SL__TRY(sl__name(p, &out->name, NULL, what));
    }
    return 0;
}

int sl__duration(sl__parser *p, sl_duration *out)
{
    if (!sl__is(p, SL_TK_DURATION))
        return sl__fail_expected(p, "a duration such as 10s");
    out->value = (int64_t)p->tok.u;
    out->unit = p->tok.unit;
    out->pos = p->tok.pos;
    sl__next(p);
    return 0;
}

int sl__int64(sl__parser *p, int64_t *out, sl_pos *pos, const char *what)
{
    if (!sl__is(p, SL_TK_INT))
        return sl__fail_expected(p, what);
    if (p->tok.big)
        return sl__fail_at(p, p->tok.pos, SL_ERANGE, "integer literal out of range");
    *out = (int64_t)p->tok.u;
    if (pos != NULL)
        *pos = p->tok.pos;
    sl__next(p);
    return 0;
}

int sl__string(sl__parser *p, const char **out, sl_pos *pos, const char *what)
{
    if (!sl__is(p, SL_TK_STRING))
        return sl__fail_expected(p, what);
    *out = p->tok.str;
    if (pos != NULL)
        *pos = p->tok.pos;
    sl__next(p);
    return 0;
}

/* The type keywords; integer types may be followed by UNSIGNED. */
static const struct {
    sl_kw kw;
    sl_type type;
    sl_type unsigned_type; /* SL_T_NULL when UNSIGNED is not allowed */
    bool has_width;        /* takes an optional (n) */
} type_table[] = {
    {SL_KW_TIMESTAMP, SL_T_TIMESTAMP, SL_T_NULL, false},
    {SL_KW_BOOL, SL_T_BOOL, SL_T_NULL, false},
    {SL_KW_TINYINT, SL_T_TINYINT, SL_T_UTINYINT, false},
    {SL_KW_SMALLINT, SL_T_SMALLINT, SL_T_USMALLINT, false},
    {SL_KW_INT, SL_T_INT, SL_T_UINT, false},
    {SL_KW_INTEGER, SL_T_INT, SL_T_UINT, false},
    {SL_KW_BIGINT, SL_T_BIGINT, SL_T_UBIGINT, false},
    {SL_KW_FLOAT, SL_T_FLOAT, SL_T_NULL, false},
    {SL_KW_DOUBLE, SL_T_DOUBLE, SL_T_NULL, false},
    {SL_KW_VARCHAR, SL_T_VARCHAR, SL_T_NULL, true},
    {SL_KW_BINARY, SL_T_VARCHAR, SL_T_NULL, true},
    {SL_KW_NCHAR, SL_T_NCHAR, SL_T_NULL, true},
};

int sl__type(sl__parser *p, sl_type *type, uint32_t *width, bool *width_given)
{
    *width = 0;
    if (width_given != NULL)
        *width_given = false;
    if (p->tok.kind == SL_TK_IDENT) {
        for (size_t i = 0; i < sizeof(type_table) / sizeof(type_table[0]); i++) {
            if (type_table[i].kw != p->tok.kw)
                continue;
            sl__next(p);
            *type = type_table[i].type;
            if (type_table[i].unsigned_type != SL_T_NULL && sl__accept_kw(p, SL_KW_UNSIGNED))
                *type = type_table[i].unsigned_type;
            if (type_table[i].has_width && sl__accept(p, SL_TK_LPAREN)) {
                int64_t n = 0;
                sl_pos npos;
                SL__TRY(sl__int64(p, &n, &npos, "a length"));
                if (n > (int64_t)UINT32_MAX)
                    return sl__fail_at(p, npos, SL_ERANGE, "integer literal out of range");
                SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
                *width = (uint32_t)n;
                if (width_given != NULL)
                    *width_given = true;
            }
            return 0;
        }
    }
    return sl__fail_expected(p, "a type name");
}

int sl__if_not_exists(sl__parser *p, bool *out)
{
    *out = false;
    if (!sl__is_kw(p, SL_KW_IF) || sl__peek(p, 1)->kw != SL_KW_NOT ||
        sl__peek(p, 1)->kind != SL_TK_IDENT)
        return 0;
    sl__next(p);
    sl__next(p);
    SL__TRY(sl__expect_kw(p, SL_KW_EXISTS, "EXISTS"));
    *out = true;
    return 0;
}

int sl__if_exists(sl__parser *p, bool *out)
{
    *out = false;
    const sl_token *t = sl__peek(p, 1);
    if (!sl__is_kw(p, SL_KW_IF) || t->kind != SL_TK_IDENT || t->kw != SL_KW_EXISTS)
        return 0;
    sl__next(p);
    sl__next(p);
    *out = true;
    return 0;
}

int sl__event_types(sl__parser *p, unsigned *out)
{
    *out = 0;
    do {
        if (sl__accept_kw(p, SL_KW_WINDOW_OPEN))
            *out |= SL_EVT_WINDOW_OPEN;
        else if (sl__accept_kw(p, SL_KW_WINDOW_CLOSE))
            *out |= SL_EVT_WINDOW_CLOSE;
        else if (sl__accept_kw(p, SL_KW_IDLE))
            *out |= SL_EVT_IDLE;
        else if (sl__accept_kw(p, SL_KW_RESUME))
            *out |= SL_EVT_RESUME;
        else
            return sl__fail_expected(p, "WINDOW_OPEN, WINDOW_CLOSE, IDLE or RESUME");
    } while (sl__accept(p, SL_TK_BITOR));
    return 0;
}

/* ---------------------------------------------------------------- statements */

static int parse_create(sl__parser *p, sl_stmt *st)
{
    sl__next(p);
    if (sl__is_kw(p, SL_KW_DATABASE))
        return sl__create_database(p, st);
    if (sl__is_kw(p, SL_KW_STABLE))
        return sl__create_stable(p, st);
    if (sl__is_kw(p, SL_KW_TABLE))
        return sl__create_table(p, st);
    if (sl__is_kw(p, SL_KW_STREAM))
        return sl__create_stream(p, st);
    return sl__fail_expected(p, "DATABASE, STABLE, TABLE or STREAM");
}

static int parse_statement(sl__parser *p, sl_stmt *st)
{
    if (p->tok.kind == SL_TK_IDENT) {
        switch (p->tok.kw) {
        case SL_KW_CREATE: return parse_create(p, st);
        case SL_KW_DROP: return sl__drop(p, st);
        case SL_KW_USE: return sl__use(p, st);
        case SL_KW_SHOW: return sl__show(p, st);
        case SL_KW_DESCRIBE:
        case SL_KW_DESC: return sl__describe(p, st);
        case SL_KW_INSERT: return sl__insert(p, st);
        case SL_KW_DELETE: return sl__delete(p, st);
        case SL_KW_START:
        case SL_KW_STOP: return sl__stream_ctl(p, st);
        case SL_KW_SELECT:
            st->kind = SL_STMT_SELECT;
            return sl__select(p, &st->u.select);
        default: break;
        }
    }
    return sl__fail_expected(p, "a statement");
}

static int parse_all(sl__parser *p, sl_parse_result *r)
{
    sl__vec stmts = {0};
    sl__next(p);
    for (;;) {
        while (sl__accept(p, SL_TK_SEMI))
            ;
        if (sl__is(p, SL_TK_EOF))
            break;
        sl_stmt *st = sl__alloc(p, sizeof(*st));
        if (st == NULL)
            return SL_ENOMEM;
        const char *start = p->tok.text;
        st->pos = p->tok.pos;
        SL__TRY(parse_statement(p, st));
        if (!sl__is(p, SL_TK_SEMI) && !sl__is(p, SL_TK_EOF))
            return sl__fail_expected(p, "';' or end of input");
        st->text = sl__strndup(p, start, (size_t)(p->prev_end - start));
        if (st->text == NULL)
            return SL_ENOMEM;
        SL__TRY(sl__vec_push(p, &stmts, sizeof(st), &st));
    }
    r->nstmts = stmts.n;
    r->stmts = stmts.items;
    return 0;
}

int sl_parse(const char *sql, size_t len, sl_parse_result **out, sl_error *err)
{
    *out = NULL;
    if (len > SL_SQL_MAX_LEN)
        return sl_error_reset(err, SL_ELIMIT, 1, 1,
                              "1:1: SQL text too long: %zu bytes (at most %u)", len,
                              SL_SQL_MAX_LEN);
    if (sql == NULL && len > 0)
        return sl_error_reset(err, SL_EINVAL, 0, 0, "no SQL text");
    sl_parse_result *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return sl_error_reset(err, SL_ENOMEM, 0, 0, "out of memory");
    sl_arena_init(&r->arena);

    sl__parser p;
    memset(&p, 0, sizeof(p));
    p.arena = &r->arena;
    sl_lexer_init(&p.lx, sql == NULL ? "" : sql, len, p.arena);
    int rc = parse_all(&p, r);
    if (rc != 0)
        goto fail;
    *out = r;
    return 0;

fail:
    if (p.err.code != 0) {
        rc = p.err.code;
        if (err != NULL)
            *err = p.err;
    } else {
        sl_error_reset(err, rc, 0, 0, "%s", sl_strerror(rc));
    }
    sl_arena_fini(&r->arena);
    free(r);
    return rc;
}

void sl_parse_result_free(sl_parse_result *r)
{
    if (r == NULL)
        return;
    sl_arena_fini(&r->arena);
    free(r);
}
