/*
 * unparse.c - SQL text from an AST; see unparse.h.
 *
 * The printer mirrors the parser (parser_expr.c, parser_select.c) rule by rule, so that
 * parse(unparse(tree)) has the same dump as tree. Parentheses follow the parser's
 * precedence climbing exactly: every node has a binding level (the parser's PREC_*), and a
 * child is parenthesised only when the position it is printed in is parsed at a higher
 * level than the child binds (a left operand at the operator's level, a right operand one
 * above, BETWEEN bounds and LIKE patterns at '|', the operand of NOT at NOT, of - and ~ at
 * the unary level). Adding parentheses everywhere would be simpler but would count against
 * the parser's nesting limit: a chain a+b+c+... that the parser accepts would come back
 * too deep. With minimal parentheses every paren we print was also needed in any text
 * that produced the same tree.
 *
 * Names are quoted when the lexer would not read them back as the same identifier in an
 * identifier position: not a plain [A-Za-z_][A-Za-z0-9_]* word, any keyword (reserved or
 * not), or a word parse_word() turns into a placeholder or pseudo column (_twstart,
 * _wstart, ...). Function names cannot be quoted (a quoted word followed by '(' is not a
 * call), so a name that would not parse as a call is refused.
 */
#include "unparse.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lexer.h"
#include "parser.h"

/* Binding levels, as in parser_expr.c (loosest first); ATOM for everything else. */
enum {
    LV_NONE = 0,
    LV_OR,
    LV_AND,
    LV_NOT,
    LV_CMP,
    LV_BITOR,
    LV_BITAND,
    LV_CONCAT,
    LV_ADD,
    LV_MUL,
    LV_UNARY,
    LV_ATOM
};

/* Deepest recursion accepted: subqueries and expressions the parser bounds separately. */
#define MAX_DEPTH (4 * SL_SQL_MAX_DEPTH)

typedef struct writer {
    sl_buf *out;
    const sl_unparse_subst *subst; /* NULL when no hook */
    sl_error err;                  /* the first error met */
    int rc;                        /* its code; once set, nothing more is written */
    int depth;                     /* current recursion depth */
} writer;

static int fail(writer *w, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(writer *w, int code, const char *fmt, ...)
{
    if (w->rc != 0)
        return w->rc;
    char msg[SL_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    sl_error_set(&w->err, code, 0, 0, "%s", msg);
    w->rc = code;
    return code;
}

static void putn(writer *w, const char *s, size_t n)
{
    if (w->rc == 0 && sl_buf_put(w->out, s, n) != 0)
        fail(w, SL_ENOMEM, "out of memory");
}

static void put(writer *w, const char *s)
{
    putn(w, s, strlen(s));
}

static void putf(writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void putf(writer *w, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(tmp)) {
        fail(w, SL_EINVAL, "internal: formatted text too long");
        return;
    }
    putn(w, tmp, (size_t)n);
}

/* ---------------------------------------------------------------- names */

static bool is_word(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return false;
    for (const char *c = s; *c != '\0'; c++) {
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_'))
            return false;
    }
    return true;
}

static const char *const pseudo_names[] = {
    [SL_PS_WSTART] = "_wstart",
    [SL_PS_WEND] = "_wend",
    [SL_PS_WDURATION] = "_wduration",
    [SL_PS_ROWTS] = "_rowts",
};

/* True when parse_word() reads the bare word s as a placeholder or a pseudo column. */
static bool is_special_word(const char *s)
{
    for (int ph = SL_PH_TWSTART; ph <= SL_PH_TROLLUP_TBCOUNT; ph++) {
        if (strcasecmp(s, sl_placeholder_name((sl_placeholder)ph)) == 0)
            return true;
    }
    for (size_t i = 0; i < sizeof(pseudo_names) / sizeof(pseudo_names[0]); i++) {
        if (strcasecmp(s, pseudo_names[i]) == 0)
            return true;
    }
    return false;
}

static void put_name(writer *w, const char *s)
{
    if (s == NULL || s[0] == '\0') {
        fail(w, SL_EINVAL, "cannot unparse an empty name");
        return;
    }
    if (is_word(s) && sl_keyword_lookup(s, strlen(s)) == SL_KW__NONE && !is_special_word(s)) {
        put(w, s);
        return;
    }
    put(w, "`");
    for (const char *c = s; *c != '\0'; c++) {
        const char *q = strchr(c, '`');
        size_t run = q == NULL ? strlen(c) : (size_t)(q - c);
        putn(w, c, run);
        if (q == NULL)
            break;
        put(w, "``");
        c = q;
    }
    put(w, "`");
}

static void put_qname(writer *w, const sl_qname *q)
{
    if (q->db != NULL) {
        put_name(w, q->db);
        put(w, ".");
    }
    put_name(w, q->name);
}

/* ---------------------------------------------------------------- literals */

static void put_string(writer *w, const char *s, size_t len)
{
    put(w, "'");
    size_t run = 0; /* bytes of s[i - run .. i) still to copy as they are */
    for (size_t i = 0; i < len; i++) {
        const char *esc = NULL;
        switch (s[i]) {
        case '\'': esc = "''"; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\0': esc = "\\0"; break;
        default: run++; continue;
        }
        putn(w, s + i - run, run);
        run = 0;
        put(w, esc);
    }
    putn(w, s + len - run, run);
    put(w, "'");
}

static bool valid_unit(char u)
{
    return u != '\0' && strchr("buasmhdwny", u) != NULL;
}

static void put_dur(writer *w, const sl_duration *d)
{
    if (d->value < 0 || !valid_unit(d->unit)) {
        fail(w, SL_EINVAL, "cannot unparse the duration %" PRId64 "%c", d->value,
             d->unit != '\0' ? d->unit : '?');
        return;
    }
    putf(w, "%" PRId64 "%c", d->value, d->unit);
}

/* A non-negative finite double, shortest text that reads back the same, always a float. */
static void put_udouble(writer *w, double v)
{
    char tmp[64];
    if (v < 1e15 && v == (double)(int64_t)v) {
        putf(w, "%.0f.0", v); /* 1000.0 rather than 1e+03; 1000 would read back as an integer */
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    put(w, tmp);
    if (strpbrk(tmp, ".e") == NULL)
        put(w, ".0");
}

static void put_literal(writer *w, const sl_expr *e)
{
    switch (e->u.lit.kind) {
    case SL_LIT_NULL: put(w, "NULL"); return;
    case SL_LIT_BOOL: put(w, e->u.lit.b ? "TRUE" : "FALSE"); return;
    case SL_LIT_INT:
        /* The parser only makes non-negative ones; a hand-built negative is -(n). */
        if (e->u.lit.i >= 0)
            putf(w, "%" PRId64, e->u.lit.i);
        else
            putf(w, "(-%" PRIu64 ")", (uint64_t)0 - (uint64_t)e->u.lit.i);
        return;
    case SL_LIT_UINT: putf(w, "%" PRIu64, e->u.lit.u); return;
    case SL_LIT_FLOAT: {
        double d = e->u.lit.d;
        if (!isfinite(d)) {
            fail(w, SL_EINVAL, "cannot unparse a non-finite float");
            return;
        }
        if (signbit(d)) {
            put(w, "(-");
            put_udouble(w, -d);
            put(w, ")");
        } else {
            put_udouble(w, d);
        }
        return;
    }
    case SL_LIT_STRING:
        put_string(w, e->u.lit.s == NULL ? "" : e->u.lit.s, e->u.lit.len);
        return;
    case SL_LIT_DURATION: put_dur(w, &e->u.lit.dur); return;
    }
    fail(w, SL_EINVAL, "cannot unparse literal kind %d", (int)e->u.lit.kind);
}

/* ---------------------------------------------------------------- types */

static const char *const type_names[SL_T__COUNT] = {
    [SL_T_BOOL] = "BOOL",
    [SL_T_TINYINT] = "TINYINT",
    [SL_T_SMALLINT] = "SMALLINT",
    [SL_T_INT] = "INT",
    [SL_T_BIGINT] = "BIGINT",
    [SL_T_UTINYINT] = "TINYINT UNSIGNED",
    [SL_T_USMALLINT] = "SMALLINT UNSIGNED",
    [SL_T_UINT] = "INT UNSIGNED",
    [SL_T_UBIGINT] = "BIGINT UNSIGNED",
    [SL_T_FLOAT] = "FLOAT",
    [SL_T_DOUBLE] = "DOUBLE",
    [SL_T_TIMESTAMP] = "TIMESTAMP",
    [SL_T_VARCHAR] = "VARCHAR",
    [SL_T_NCHAR] = "NCHAR",
};

static void put_type(writer *w, sl_type t, uint32_t width)
{
    if ((unsigned)t >= SL_T__COUNT || type_names[t] == NULL) {
        fail(w, SL_EINVAL, "cannot unparse type %d", (int)t);
        return;
    }
    put(w, type_names[t]);
    if ((t == SL_T_VARCHAR || t == SL_T_NCHAR) && width != 0)
        putf(w, "(%" PRIu32 ")", width);
}

/* ---------------------------------------------------------------- expressions */

static const struct {
    const char *text;
    int level;
} binops[] = {
    [SL_OP_ADD] = {"+", LV_ADD},       [SL_OP_SUB] = {"-", LV_ADD},
    [SL_OP_MUL] = {"*", LV_MUL},       [SL_OP_DIV] = {"/", LV_MUL},
    [SL_OP_MOD] = {"%", LV_MUL},       [SL_OP_EQ] = {"=", LV_CMP},
    [SL_OP_NE] = {"<>", LV_CMP},       [SL_OP_LT] = {"<", LV_CMP},
    [SL_OP_LE] = {"<=", LV_CMP},       [SL_OP_GT] = {">", LV_CMP},
    [SL_OP_GE] = {">=", LV_CMP},       [SL_OP_AND] = {"AND", LV_AND},
    [SL_OP_OR] = {"OR", LV_OR},        [SL_OP_BITAND] = {"&", LV_BITAND},
    [SL_OP_BITOR] = {"|", LV_BITOR},   [SL_OP_CONCAT] = {"||", LV_CONCAT},
};

static bool valid_binop(sl_binop op)
{
    return (unsigned)op < sizeof(binops) / sizeof(binops[0]) && binops[op].text != NULL;
}

/* How loosely e binds: the parser level its own text ends at. */
static int level_of(const sl_expr *e)
{
    switch (e->kind) {
    case SL_EX_BINARY: return valid_binop(e->u.binary.op) ? binops[e->u.binary.op].level : LV_ATOM;
    case SL_EX_UNARY: return e->u.unary.op == SL_OP_NOT ? LV_NOT : LV_UNARY;
    case SL_EX_IN:
    case SL_EX_BETWEEN:
    case SL_EX_ISNULL:
    case SL_EX_LIKE: return LV_CMP;
    default: return LV_ATOM; /* primaries, and literals that parenthesise themselves */
    }
}

static void put_expr_at(writer *w, const sl_expr *e, int min);

static void put_expr(writer *w, const sl_expr *e)
{
    put_expr_at(w, e, LV_NONE);
}

static void put_list(writer *w, const sl_expr_list *l)
{
    for (int i = 0; i < l->n && w->rc == 0; i++) {
        if (i > 0)
            put(w, ", ");
        put_expr(w, l->items[i]);
    }
}

/* The call syntax works only for a bare word that parse_word() turns into a call. */
static bool callable_name(const char *s)
{
    if (s == NULL || !is_word(s) || is_special_word(s))
        return false;
    sl_kw kw = sl_keyword_lookup(s, strlen(s));
    return !sl_keyword_reserved(kw) && kw != SL_KW_TODAY;
}

static void put_placeholder(writer *w, const sl_expr *e)
{
    const sl_unparse_subst *s = w->subst;
    if (s != NULL && s->placeholder != NULL) {
        size_t mark = w->out->len;
        put(w, "(");
        if (w->rc != 0)
            return;
        size_t start = w->out->len;
        sl_error herr;
        sl_error_clear(&herr);
        int rc = s->placeholder(s->ud, e, w->out, &herr);
        if (rc < 0) {
            if (herr.code != 0)
                w->err = herr;
            else
                sl_error_set(&w->err, rc, 0, 0, "placeholder %s refused: %s",
                             sl_placeholder_name(e->u.placeholder.ph), sl_strerror(rc));
            w->rc = rc;
            return;
        }
        if (rc == 0) {
            if (w->out->len == start) {
                fail(w, SL_EINVAL, "the placeholder hook wrote no text for %s",
                     sl_placeholder_name(e->u.placeholder.ph));
                return;
            }
            put(w, ")");
            return;
        }
        w->out->len = mark; /* SL_UNPARSE_ASIS: print it as written */
    }
    if (e->u.placeholder.ph == SL_PH_PARTITION_COL) {
        if (e->u.placeholder.index < 1) {
            fail(w, SL_EINVAL, "cannot unparse placeholder %%%%%d", e->u.placeholder.index);
            return;
        }
        putf(w, "%%%%%d", e->u.placeholder.index);
        return;
    }
    if ((unsigned)e->u.placeholder.ph > SL_PH_TROWS) {
        fail(w, SL_EINVAL, "cannot unparse placeholder kind %d", (int)e->u.placeholder.ph);
        return;
    }
    put(w, sl_placeholder_name(e->u.placeholder.ph));
}

static void put_expr_body(writer *w, const sl_expr *e)
{
    switch (e->kind) {
    case SL_EX_LITERAL: put_literal(w, e); return;
    case SL_EX_COLUMN:
        if (e->u.column.table != NULL) {
            put_name(w, e->u.column.table);
            put(w, ".");
        }
        put_name(w, e->u.column.name);
        return;
    case SL_EX_STAR:
        if (e->u.star.table != NULL) {
            put_name(w, e->u.star.table);
            put(w, ".");
        }
        put(w, "*");
        return;
    case SL_EX_UNARY:
        switch (e->u.unary.op) {
        case SL_OP_NOT: put(w, "NOT "); put_expr_at(w, e->u.unary.arg, LV_NOT); return;
        case SL_OP_BITNOT: put(w, "~"); put_expr_at(w, e->u.unary.arg, LV_UNARY); return;
        case SL_OP_NEG:
            /* "--" would start a comment */
            put(w, e->u.unary.arg->kind == SL_EX_UNARY && e->u.unary.arg->u.unary.op == SL_OP_NEG
                       ? "- "
                       : "-");
            put_expr_at(w, e->u.unary.arg, LV_UNARY);
            return;
        }
        fail(w, SL_EINVAL, "cannot unparse unary operator %d", (int)e->u.unary.op);
        return;
    case SL_EX_BINARY: {
        if (!valid_binop(e->u.binary.op)) {
            fail(w, SL_EINVAL, "cannot unparse binary operator %d", (int)e->u.binary.op);
            return;
        }
        int lv = binops[e->u.binary.op].level;
        put_expr_at(w, e->u.binary.left, lv); /* left associative */
        put(w, " ");
        put(w, binops[e->u.binary.op].text);
        put(w, " ");
        put_expr_at(w, e->u.binary.right, lv + 1);
        return;
    }
    case SL_EX_FUNC:
        if (!callable_name(e->u.func.name)) {
            fail(w, SL_EINVAL, "cannot unparse a call of '%s'",
                 e->u.func.name == NULL ? "" : e->u.func.name);
            return;
        }
        put(w, e->u.func.name);
        put(w, "(");
        if (e->u.func.distinct)
            put(w, "DISTINCT ");
        put_list(w, &e->u.func.args);
        put(w, ")");
        return;
    case SL_EX_CASE:
        if (e->u.case_.nwhen < 1) {
            fail(w, SL_EINVAL, "cannot unparse CASE without WHEN");
            return;
        }
        put(w, "CASE");
        if (e->u.case_.operand != NULL) {
            put(w, " ");
            put_expr(w, e->u.case_.operand);
        }
        for (int i = 0; i < e->u.case_.nwhen; i++) {
            put(w, " WHEN ");
            put_expr(w, e->u.case_.whens[i].when);
            put(w, " THEN ");
            put_expr(w, e->u.case_.whens[i].then);
        }
        if (e->u.case_.else_ != NULL) {
            put(w, " ELSE ");
            put_expr(w, e->u.case_.else_);
        }
        put(w, " END");
        return;
    case SL_EX_IN:
        if (e->u.in.list.n < 1) {
            fail(w, SL_EINVAL, "cannot unparse an empty IN list");
            return;
        }
        put_expr_at(w, e->u.in.arg, LV_CMP);
        put(w, e->u.in.negated ? " NOT IN (" : " IN (");
        put_list(w, &e->u.in.list);
        put(w, ")");
        return;
    case SL_EX_BETWEEN:
        put_expr_at(w, e->u.between.arg, LV_CMP);
        put(w, e->u.between.negated ? " NOT BETWEEN " : " BETWEEN ");
        put_expr_at(w, e->u.between.lo, LV_BITOR);
        put(w, " AND ");
        put_expr_at(w, e->u.between.hi, LV_BITOR);
        return;
    case SL_EX_ISNULL:
        put_expr_at(w, e->u.isnull.arg, LV_CMP);
        put(w, e->u.isnull.negated ? " IS NOT NULL" : " IS NULL");
        return;
    case SL_EX_LIKE:
        put_expr_at(w, e->u.like.arg, LV_CMP);
        put(w, e->u.like.negated ? " NOT LIKE " : " LIKE ");
        put_expr_at(w, e->u.like.pattern, LV_BITOR);
        return;
    case SL_EX_CAST:
        put(w, "CAST(");
        put_expr(w, e->u.cast.arg);
        put(w, " AS ");
        put_type(w, e->u.cast.type, e->u.cast.width);
        put(w, ")");
        return;
    case SL_EX_PLACEHOLDER: put_placeholder(w, e); return;
    case SL_EX_PSEUDO:
        if ((unsigned)e->u.pseudo.ps >= sizeof(pseudo_names) / sizeof(pseudo_names[0])) {
            fail(w, SL_EINVAL, "cannot unparse pseudo column %d", (int)e->u.pseudo.ps);
            return;
        }
        put(w, pseudo_names[e->u.pseudo.ps]);
        return;
    case SL_EX_NOW: put(w, "NOW()"); return;
    case SL_EX_TODAY: put(w, "TODAY()"); return;
    }
    fail(w, SL_EINVAL, "cannot unparse expression kind %d", (int)e->kind);
}

/* Prints e where the parser reads an operand at level min, parenthesised if needed. */
static void put_expr_at(writer *w, const sl_expr *e, int min)
{
    if (w->rc != 0)
        return;
    if (e == NULL) {
        fail(w, SL_EINVAL, "cannot unparse a missing expression");
        return;
    }
    if (++w->depth > MAX_DEPTH) {
        fail(w, SL_ELIMIT, "expression nested too deep to unparse");
        return;
    }
    bool paren = level_of(e) < min;
    if (paren)
        put(w, "(");
    put_expr_body(w, e);
    if (paren)
        put(w, ")");
    w->depth--;
}

/* ---------------------------------------------------------------- SELECT */

static void put_select(writer *w, const sl_select *s);

/* FROM source [AS alias]; *extra is set when a hook added a WHERE condition. */
static void put_from(writer *w, const sl_from *f, const char **extra)
{
    switch (f->kind) {
    case SL_FROM_TABLE: put_qname(w, &f->table); break;
    case SL_FROM_SUBQUERY:
        if (f->subquery == NULL) {
            fail(w, SL_EINVAL, "cannot unparse a missing subquery");
            return;
        }
        put(w, "(");
        put_select(w, f->subquery);
        put(w, ")");
        break;
    case SL_FROM_TROWS:
    case SL_FROM_TBNAME: {
        const char *as_written = f->kind == SL_FROM_TROWS ? "%%trows" : "%%tbname";
        const sl_unparse_subst *s = w->subst;
        int rc = SL_UNPARSE_ASIS;
        if (s != NULL && s->source != NULL && w->rc == 0) {
            size_t start = w->out->len;
            sl_error herr;
            sl_error_clear(&herr);
            *extra = NULL;
            rc = s->source(s->ud, f, w->out, extra, &herr);
            if (rc < 0) {
                if (herr.code != 0)
                    w->err = herr;
                else
                    sl_error_set(&w->err, rc, 0, 0, "FROM %s refused: %s", as_written,
                                 sl_strerror(rc));
                w->rc = rc;
                return;
            }
            if (rc > 0) {
                w->out->len = start;
                *extra = NULL;
            } else if (w->out->len == start) {
                fail(w, SL_EINVAL, "the source hook wrote no text for FROM %s", as_written);
                return;
            }
        }
        if (rc > 0)
            put(w, as_written);
        break;
    }
    default: fail(w, SL_EINVAL, "cannot unparse FROM kind %d", (int)f->kind); return;
    }
    if (f->alias != NULL) {
        put(w, " AS ");
        put_name(w, f->alias);
    }
}

static const char *const fill_names[] = {
    [SL_FILL_NONE] = "NONE", [SL_FILL_NULL] = "NULL", [SL_FILL_VALUE] = "VALUE",
    [SL_FILL_PREV] = "PREV", [SL_FILL_NEXT] = "NEXT", [SL_FILL_LINEAR] = "LINEAR",
};

/* Rejects what the parser never builds and the grammar cannot say. */
static int check_select(writer *w, const sl_select *s)
{
    if (s->nitems < 1 || s->items == NULL)
        return fail(w, SL_EINVAL, "cannot unparse a SELECT without items");
    if ((s->has_sliding || s->fill != SL_FILL_NONE_GIVEN || s->has_interval_offset) &&
        !s->has_interval)
        return fail(w, SL_EINVAL, "cannot unparse SLIDING or FILL without INTERVAL");
    if ((unsigned)s->fill >= sizeof(fill_names) / sizeof(fill_names[0]) ||
        (s->fill != SL_FILL_NONE_GIVEN && fill_names[s->fill] == NULL))
        return fail(w, SL_EINVAL, "cannot unparse FILL mode %d", (int)s->fill);
    if ((s->fill == SL_FILL_VALUE) != (s->fill_values.n > 0))
        return fail(w, SL_EINVAL, "cannot unparse FILL values with mode %d", (int)s->fill);
    if (s->has_offset && !s->has_limit)
        return fail(w, SL_EINVAL, "cannot unparse OFFSET without LIMIT");
    if ((s->has_limit && s->limit < 0) || (s->has_offset && s->offset < 0))
        return fail(w, SL_EINVAL, "cannot unparse a negative LIMIT or OFFSET");
    for (int i = 0; i < s->norder; i++) {
        if (s->order[i].nulls < 0 || s->order[i].nulls > 2)
            return fail(w, SL_EINVAL, "cannot unparse NULLS mode %d", s->order[i].nulls);
    }
    return 0;
}

static void put_select(writer *w, const sl_select *s)
{
    if (w->rc != 0 || check_select(w, s) != 0)
        return;
    if (++w->depth > MAX_DEPTH) {
        fail(w, SL_ELIMIT, "subqueries nested too deep to unparse");
        return;
    }
    put(w, s->distinct ? "SELECT DISTINCT " : "SELECT ");
    for (int i = 0; i < s->nitems; i++) {
        const sl_select_item *it = &s->items[i];
        if (i > 0)
            put(w, ", ");
        put_expr(w, it->expr);
        if (it->alias != NULL) {
            put(w, " AS ");
            put_name(w, it->alias);
        } else if (w->subst != NULL && w->subst->keep_item_names && it->text != NULL &&
                   it->text[0] != '\0' && it->expr != NULL && it->expr->kind != SL_EX_STAR) {
            put(w, " AS ");
            put_name(w, it->text);
        }
    }
    const char *extra = NULL;
    if (s->from != NULL) {
        put(w, " FROM ");
        put_from(w, s->from, &extra);
    }
    if (s->where != NULL && extra != NULL) {
        put(w, " WHERE (");
        put_expr(w, s->where);
        put(w, ") AND (");
        put(w, extra);
        put(w, ")");
    } else if (extra != NULL) {
        put(w, " WHERE (");
        put(w, extra);
        put(w, ")");
    } else if (s->where != NULL) {
        put(w, " WHERE ");
        put_expr(w, s->where);
    }
    if (s->partition_by.n > 0) {
        put(w, " PARTITION BY ");
        put_list(w, &s->partition_by);
    }
    if (s->has_interval) {
        put(w, " INTERVAL(");
        put_dur(w, &s->interval);
        if (s->has_interval_offset) {
            put(w, ", ");
            put_dur(w, &s->interval_offset);
        }
        put(w, ")");
        if (s->has_sliding) {
            put(w, " SLIDING(");
            put_dur(w, &s->sliding);
            put(w, ")");
        }
        if (s->fill != SL_FILL_NONE_GIVEN) {
            put(w, " FILL(");
            put(w, fill_names[s->fill]);
            if (s->fill == SL_FILL_VALUE) {
                put(w, ", ");
                put_list(w, &s->fill_values);
            }
            put(w, ")");
        }
    }
    if (s->group_by.n > 0) {
        put(w, " GROUP BY ");
        put_list(w, &s->group_by);
    }
    if (s->having != NULL) {
        put(w, " HAVING ");
        put_expr(w, s->having);
    }
    for (int i = 0; i < s->norder; i++) {
        put(w, i == 0 ? " ORDER BY " : ", ");
        put_expr(w, s->order[i].expr);
        if (s->order[i].desc)
            put(w, " DESC");
        if (s->order[i].nulls != 0)
            put(w, s->order[i].nulls == 1 ? " NULLS FIRST" : " NULLS LAST");
    }
    if (s->has_limit)
        putf(w, " LIMIT %" PRId64, s->limit);
    if (s->has_offset)
        putf(w, " OFFSET %" PRId64, s->offset);
    w->depth--;
}

/* ---------------------------------------------------------------- entry points */

/* Ends a run: keeps a NUL after the text on success, restores out on failure. */
static int finish(writer *w, size_t mark, sl_error *err)
{
    if (w->rc == 0 && sl_buf_reserve(w->out, 1) != 0)
        fail(w, SL_ENOMEM, "out of memory");
    if (w->rc != 0) {
        w->out->len = mark;
        if (w->out->data != NULL && w->out->cap > mark)
            w->out->data[mark] = '\0';
        if (err != NULL)
            *err = w->err;
        return w->rc;
    }
    w->out->data[w->out->len] = '\0';
    return 0;
}

int sl_unparse_select(const sl_select *sel, const sl_unparse_subst *subst, sl_buf *out,
                      sl_error *err)
{
    writer w = {.out = out, .subst = subst};
    size_t mark = out->len;
    if (sel == NULL)
        fail(&w, SL_EINVAL, "no SELECT to unparse");
    else
        put_select(&w, sel);
    return finish(&w, mark, err);
}

int sl_unparse_expr(const sl_expr *e, const sl_unparse_subst *subst, sl_buf *out,
                    sl_error *err)
{
    writer w = {.out = out, .subst = subst};
    size_t mark = out->len;
    put_expr(&w, e);
    return finish(&w, mark, err);
}
