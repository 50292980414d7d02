/*
 * parser_expr.c - expressions: precedence climbing over the operator table below.
 *
 * From loosest to tightest binding: OR; AND; prefix NOT; comparisons (= <> != < <= > >=),
 * IS [NOT] NULL, [NOT] IN (list), [NOT] BETWEEN a AND b, [NOT] LIKE; '|'; '&'; '||';
 * + and -; * / %; prefix - + ~; then primaries (literals, columns, t.col, t.*, calls,
 * CASE, CAST, NOW, TODAY(), placeholders and pseudo columns, parenthesised expressions).
 * Binary operators associate to the left. A node's position is that of its first token.
 *
 * Every node is allocated behind a small header holding the height of its subtree, so
 * the depth limit (SL_SQL_MAX_DEPTH) covers left-leaning chains such as a+b+c+... that the
 * loop below builds without recursing.
 */
#include <stddef.h>
#include <string.h>

#include "parser_int.h"

enum {
    PREC_NONE = 0,
    PREC_OR,
    PREC_AND,
    PREC_NOT,
    PREC_CMP,
    PREC_BITOR,
    PREC_BITAND,
    PREC_CONCAT,
    PREC_ADD,
    PREC_MUL,
    PREC_UNARY
};

typedef struct expr_box {
    int height; /* 0 for a leaf */
    sl_expr e;
} expr_box;

static int height_of(const sl_expr *e)
{
    if (e == NULL)
        return -1;
    const expr_box *b = (const expr_box *)(const void *)((const char *)e - offsetof(expr_box, e));
    return b->height;
}

static int list_height(const sl_expr_list *l)
{
    int h = -1;
    for (int i = 0; i < l->n; i++) {
        int x = height_of(l->items[i]);
        h = x > h ? x : h;
    }
    return h;
}

static int max3(int a, int b, int c)
{
    int m = a > b ? a : b;
    return m > c ? m : c;
}

sl_expr *sl__new_expr(sl__parser *p, sl_expr_kind kind, sl_pos pos)
{
    expr_box *b = sl__alloc(p, sizeof(*b));
    if (b == NULL)
        return NULL;
    b->e.kind = kind;
    b->e.pos = pos;
    return &b->e;
}

/* Records the height of a finished node; fails with SL_ELIMIT when it is too tall. */
static int finish(sl__parser *p, sl_expr *e, sl_pos at)
{
    int h = -1;
    switch (e->kind) {
    case SL_EX_UNARY: h = height_of(e->u.unary.arg); break;
    case SL_EX_BINARY: h = max3(height_of(e->u.binary.left), height_of(e->u.binary.right), -1); break;
    case SL_EX_FUNC: h = list_height(&e->u.func.args); break;
    case SL_EX_CASE:
        h = max3(height_of(e->u.case_.operand), height_of(e->u.case_.else_), -1);
        for (int i = 0; i < e->u.case_.nwhen; i++)
            h = max3(h, height_of(e->u.case_.whens[i].when), height_of(e->u.case_.whens[i].then));
        break;
    case SL_EX_IN: h = max3(height_of(e->u.in.arg), list_height(&e->u.in.list), -1); break;
    case SL_EX_BETWEEN:
        h = max3(height_of(e->u.between.arg), height_of(e->u.between.lo),
                 height_of(e->u.between.hi));
        break;
    case SL_EX_ISNULL: h = height_of(e->u.isnull.arg); break;
    case SL_EX_LIKE: h = max3(height_of(e->u.like.arg), height_of(e->u.like.pattern), -1); break;
    case SL_EX_CAST: h = height_of(e->u.cast.arg); break;
    default: break;
    }
    expr_box *b = (expr_box *)(void *)((char *)e - offsetof(expr_box, e));
    b->height = h + 1;
    if (b->height > SL_SQL_MAX_DEPTH)
        return sl__fail_at(p, at, SL_ELIMIT, "nesting too deep (more than %d levels)",
                           SL_SQL_MAX_DEPTH);
    return 0;
}

static int parse_bp(sl__parser *p, int min, sl_expr **out);
static int parse_infix(sl__parser *p, sl_expr *lhs, sl_pos start, int min, sl_expr **out);

int sl__expr(sl__parser *p, sl_expr **out)
{
    return parse_bp(p, PREC_NONE, out);
}

int sl__expr_continue(sl__parser *p, sl_expr *lhs, sl_pos start, sl_expr **out)
{
    return parse_infix(p, lhs, start, PREC_NONE, out);
}

int sl__expr_list(sl__parser *p, sl_expr_list *out)
{
    sl__vec v = {0};
    do {
        sl_expr *e;
        SL__TRY(sl__expr(p, &e));
        SL__TRY(sl__vec_push(p, &v, sizeof(e), &e));
    } while (sl__accept(p, SL_TK_COMMA));
    out->n = v.n;
    out->items = v.items;
    return 0;
}

/* ---------------------------------------------------------------- primaries */

static const struct {
    const char *name;
    sl_placeholder ph;
} placeholder_names[] = {
    {"_twstart", SL_PH_TWSTART},
    {"_twend", SL_PH_TWEND},
    {"_twduration", SL_PH_TWDURATION},
    {"_twrownum", SL_PH_TWROWNUM},
    {"_tprev_ts", SL_PH_TPREV_TS},
    {"_tcurrent_ts", SL_PH_TCURRENT_TS},
    {"_tnext_ts", SL_PH_TNEXT_TS},
    {"_tprev_localtime", SL_PH_TPREV_LOCALTIME},
    {"_tnext_localtime", SL_PH_TNEXT_LOCALTIME},
    {"_tlocaltime", SL_PH_TLOCALTIME},
    {"_tgrpid", SL_PH_TGRPID},
    {"_tidlestart", SL_PH_TIDLESTART},
    {"_tidleend", SL_PH_TIDLEEND},
    {"_trollup_tbcount", SL_PH_TROLLUP_TBCOUNT},
};

static const struct {
    const char *name;
    sl_pseudo ps;
} pseudo_names[] = {
    {"_wstart", SL_PS_WSTART},
    {"_wend", SL_PS_WEND},
    {"_wduration", SL_PS_WDURATION},
    {"_rowts", SL_PS_ROWTS},
};

static bool word_is(const sl_token *t, const char *name)
{
    return strlen(name) == t->len && strncasecmp(t->text, name, t->len) == 0;
}

static int make_literal(sl__parser *p, sl_lit_kind kind, sl_expr **out)
{
    sl_expr *e = sl__new_expr(p, SL_EX_LITERAL, p->tok.pos);
    if (e == NULL)
        return SL_ENOMEM;
    const sl_token *t = &p->tok;
    e->u.lit.kind = kind;
    switch (kind) {
    case SL_LIT_BOOL: e->u.lit.b = t->kw == SL_KW_TRUE; break;
    case SL_LIT_INT: e->u.lit.i = (int64_t)t->u; break;
    case SL_LIT_UINT: e->u.lit.u = t->u; break;
    case SL_LIT_FLOAT: e->u.lit.d = t->d; break;
    case SL_LIT_STRING:
        e->u.lit.s = t->str;
        e->u.lit.len = t->str_len;
        break;
    case SL_LIT_DURATION:
        e->u.lit.dur.value = (int64_t)t->u;
        e->u.lit.dur.unit = t->unit;
        e->u.lit.dur.pos = t->pos;
        break;
    case SL_LIT_NULL: break;
    }
    sl__next(p);
    *out = e;
    return 0;
}

/* name '(' [DISTINCT] args | '*' ')' ; the name is the current token. */
static int parse_call(sl__parser *p, sl_expr **out)
{
    sl_pos pos = p->tok.pos;
    sl_expr *e = sl__new_expr(p, SL_EX_FUNC, pos);
    if (e == NULL)
        return SL_ENOMEM;
    e->u.func.name = sl__strndup(p, p->tok.text, p->tok.len);
    if (e->u.func.name == NULL)
        return SL_ENOMEM;
    sl__next(p);
    sl_pos lp = p->tok.pos;
    sl__next(p); /* '(' */
    SL__TRY(sl__enter(p, lp));
    if (sl__is(p, SL_TK_STAR)) {
        sl_expr *star = sl__new_expr(p, SL_EX_STAR, p->tok.pos);
        if (star == NULL)
            return SL_ENOMEM;
        sl__next(p);
        e->u.func.args.items = sl__alloc(p, sizeof(sl_expr *));
        if (e->u.func.args.items == NULL)
            return SL_ENOMEM;
        e->u.func.args.items[0] = star;
        e->u.func.args.n = 1;
    } else if (!sl__is(p, SL_TK_RPAREN)) {
        e->u.func.distinct = sl__accept_kw(p, SL_KW_DISTINCT);
        SL__TRY(sl__expr_list(p, &e->u.func.args));
    }
    SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
    sl__leave(p);
    SL__TRY(finish(p, e, pos));
    *out = e;
    return 0;
}

/* CASE [operand] WHEN c THEN r ... [ELSE e] END */
static int parse_case(sl__parser *p, sl_expr **out)
{
    sl_pos pos = p->tok.pos;
    sl_expr *e = sl__new_expr(p, SL_EX_CASE, pos);
    if (e == NULL)
        return SL_ENOMEM;
    SL__TRY(sl__enter(p, pos));
    sl__next(p);
    /* CASE END / CASE ELSE ...: say what is missing rather than "an expression" */
    if (!sl__is_kw(p, SL_KW_WHEN) && !sl__is_kw(p, SL_KW_END) && !sl__is_kw(p, SL_KW_ELSE) &&
        !sl__is_kw(p, SL_KW_THEN))
        SL__TRY(sl__expr(p, &e->u.case_.operand));
    if (!sl__is_kw(p, SL_KW_WHEN))
        return sl__fail_expected(p, "WHEN");
    sl__vec whens = {0};
    while (sl__accept_kw(p, SL_KW_WHEN)) {
        sl_case_when w;
        SL__TRY(sl__expr(p, &w.when));
        SL__TRY(sl__expect_kw(p, SL_KW_THEN, "THEN"));
        SL__TRY(sl__expr(p, &w.then));
        SL__TRY(sl__vec_push(p, &whens, sizeof(w), &w));
    }
    e->u.case_.nwhen = whens.n;
    e->u.case_.whens = whens.items;
    if (sl__accept_kw(p, SL_KW_ELSE))
        SL__TRY(sl__expr(p, &e->u.case_.else_));
    SL__TRY(sl__expect_kw(p, SL_KW_END, "WHEN, ELSE or END"));
    sl__leave(p);
    SL__TRY(finish(p, e, pos));
    *out = e;
    return 0;
}

/* CAST '(' expr AS type ')' */
static int parse_cast(sl__parser *p, sl_expr **out)
{
    sl_pos pos = p->tok.pos;
    sl_expr *e = sl__new_expr(p, SL_EX_CAST, pos);
    if (e == NULL)
        return SL_ENOMEM;
    sl__next(p);
    sl_pos lp = p->tok.pos;
    SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
    SL__TRY(sl__enter(p, lp));
    SL__TRY(sl__expr(p, &e->u.cast.arg));
    SL__TRY(sl__expect_kw(p, SL_KW_AS, "AS"));
    SL__TRY(sl__type(p, &e->u.cast.type, &e->u.cast.width, NULL));
    SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
    sl__leave(p);
    SL__TRY(finish(p, e, pos));
    *out = e;
    return 0;
}

/* A word that is not a literal keyword: a column, t.col, t.*, a call or a placeholder. */
static int parse_word(sl__parser *p, sl_expr **out)
{
    const sl_token *t = &p->tok;
    sl_pos pos = t->pos;
    sl_expr *e;
    if (t->kind == SL_TK_IDENT) {
        if (t->kw == SL_KW_TODAY && sl__peek(p, 1)->kind == SL_TK_LPAREN) {
            if ((e = sl__new_expr(p, SL_EX_TODAY, pos)) == NULL)
                return SL_ENOMEM;
            sl__next(p);
            sl__next(p);
            SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
            *out = e;
            return 0;
        }
        for (size_t i = 0; i < sizeof(placeholder_names) / sizeof(placeholder_names[0]); i++) {
            if (!word_is(t, placeholder_names[i].name))
                continue;
            if ((e = sl__new_expr(p, SL_EX_PLACEHOLDER, pos)) == NULL)
                return SL_ENOMEM;
            e->u.placeholder.ph = placeholder_names[i].ph;
            sl__next(p);
            *out = e;
            return 0;
        }
        for (size_t i = 0; i < sizeof(pseudo_names) / sizeof(pseudo_names[0]); i++) {
            if (!word_is(t, pseudo_names[i].name))
                continue;
            if ((e = sl__new_expr(p, SL_EX_PSEUDO, pos)) == NULL)
                return SL_ENOMEM;
            e->u.pseudo.ps = pseudo_names[i].ps;
            sl__next(p);
            *out = e;
            return 0;
        }
        if (!sl_keyword_reserved(t->kw) && sl__peek(p, 1)->kind == SL_TK_LPAREN)
            return parse_call(p, out);
    }
    const char *name;
    SL__TRY(sl__name(p, &name, NULL, "an expression"));
    if (sl__accept(p, SL_TK_DOT)) {
        if (sl__is(p, SL_TK_STAR)) {
            if ((e = sl__new_expr(p, SL_EX_STAR, pos)) == NULL)
                return SL_ENOMEM;
            e->u.star.table = name;
            sl__next(p);
            *out = e;
            return 0;
        }
        if ((e = sl__new_expr(p, SL_EX_COLUMN, pos)) == NULL)
            return SL_ENOMEM;
        e->u.column.table = name;
        SL__TRY(sl__name(p, &e->u.column.name, NULL, "a column name"));
        *out = e;
        return 0;
    }
    if ((e = sl__new_expr(p, SL_EX_COLUMN, pos)) == NULL)
        return SL_ENOMEM;
    e->u.column.name = name;
    *out = e;
    return 0;
}

static int parse_primary(sl__parser *p, sl_expr **out)
{
    const sl_token *t = &p->tok;
    switch (t->kind) {
    case SL_TK_INT: return make_literal(p, t->big ? SL_LIT_UINT : SL_LIT_INT, out);
    case SL_TK_FLOAT: return make_literal(p, SL_LIT_FLOAT, out);
    case SL_TK_STRING: return make_literal(p, SL_LIT_STRING, out);
    case SL_TK_DURATION: return make_literal(p, SL_LIT_DURATION, out);
    case SL_TK_PLACEHOLDER: {
        sl_expr *e = sl__new_expr(p, SL_EX_PLACEHOLDER, t->pos);
        if (e == NULL)
            return SL_ENOMEM;
        e->u.placeholder.ph = t->ph;
        e->u.placeholder.index = t->index;
        sl__next(p);
        *out = e;
        return 0;
    }
    case SL_TK_LPAREN: {
        SL__TRY(sl__enter(p, t->pos));
        sl__next(p);
        SL__TRY(sl__expr(p, out));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
        sl__leave(p);
        return 0;
    }
    case SL_TK_IDENT:
        switch (t->kw) {
        case SL_KW_NULL: return make_literal(p, SL_LIT_NULL, out);
        case SL_KW_TRUE:
        case SL_KW_FALSE: return make_literal(p, SL_LIT_BOOL, out);
        case SL_KW_CASE: return parse_case(p, out);
        case SL_KW_CAST: return parse_cast(p, out);
        case SL_KW_NOW: {
            sl_expr *e = sl__new_expr(p, SL_EX_NOW, t->pos);
            if (e == NULL)
                return SL_ENOMEM;
            sl__next(p);
            if (sl__accept(p, SL_TK_LPAREN))
                SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
            *out = e;
            return 0;
        }
        default: return parse_word(p, out);
        }
    case SL_TK_QIDENT: return parse_word(p, out);
    default: return sl__fail_expected(p, "an expression");
    }
}

/* Prefix operators, then a primary. */
static int parse_prefix(sl__parser *p, int min, sl_expr **out)
{
    sl_pos pos = p->tok.pos;
    sl_unop op;
    int operand_prec;
    if (sl__is_kw(p, SL_KW_NOT) && min <= PREC_NOT) {
        op = SL_OP_NOT;
        operand_prec = PREC_NOT;
    } else if (sl__is(p, SL_TK_MINUS)) {
        op = SL_OP_NEG;
        operand_prec = PREC_UNARY;
    } else if (sl__is(p, SL_TK_TILDE)) {
        op = SL_OP_BITNOT;
        operand_prec = PREC_UNARY;
    } else if (sl__is(p, SL_TK_PLUS)) {
        /* unary plus changes nothing: return the operand itself */
        SL__TRY(sl__enter(p, pos));
        sl__next(p);
        SL__TRY(parse_bp(p, PREC_UNARY, out));
        sl__leave(p);
        return 0;
    } else {
        return parse_primary(p, out);
    }
    SL__TRY(sl__enter(p, pos));
    sl__next(p);
    sl_expr *arg;
    SL__TRY(parse_bp(p, operand_prec, &arg));
    sl__leave(p);
    sl_expr *e = sl__new_expr(p, SL_EX_UNARY, pos);
    if (e == NULL)
        return SL_ENOMEM;
    e->u.unary.op = op;
    e->u.unary.arg = arg;
    SL__TRY(finish(p, e, pos));
    *out = e;
    return 0;
}

static int parse_bp(sl__parser *p, int min, sl_expr **out)
{
    sl_pos start = p->tok.pos;
    sl_expr *lhs;
    SL__TRY(parse_prefix(p, min, &lhs));
    return parse_infix(p, lhs, start, min, out);
}

/* The binary operator the current token spells, with its precedence; 0 when none. */
static int binop_of(const sl__parser *p, sl_binop *op)
{
    switch (p->tok.kind) {
    case SL_TK_EQ: *op = SL_OP_EQ; return PREC_CMP;
    case SL_TK_NE: *op = SL_OP_NE; return PREC_CMP;
    case SL_TK_LT: *op = SL_OP_LT; return PREC_CMP;
    case SL_TK_LE: *op = SL_OP_LE; return PREC_CMP;
    case SL_TK_GT: *op = SL_OP_GT; return PREC_CMP;
    case SL_TK_GE: *op = SL_OP_GE; return PREC_CMP;
    case SL_TK_BITOR: *op = SL_OP_BITOR; return PREC_BITOR;
    case SL_TK_BITAND: *op = SL_OP_BITAND; return PREC_BITAND;
    case SL_TK_CONCAT: *op = SL_OP_CONCAT; return PREC_CONCAT;
    case SL_TK_PLUS: *op = SL_OP_ADD; return PREC_ADD;
    case SL_TK_MINUS: *op = SL_OP_SUB; return PREC_ADD;
    case SL_TK_STAR: *op = SL_OP_MUL; return PREC_MUL;
    case SL_TK_SLASH: *op = SL_OP_DIV; return PREC_MUL;
    case SL_TK_PERCENT: *op = SL_OP_MOD; return PREC_MUL;
    case SL_TK_IDENT:
        if (p->tok.kw == SL_KW_OR) {
            *op = SL_OP_OR;
            return PREC_OR;
        }
        if (p->tok.kw == SL_KW_AND) {
            *op = SL_OP_AND;
            return PREC_AND;
        }
        return 0;
    default: return 0;
    }
}

/* The comparison-level postfix forms: IS, [NOT] IN / BETWEEN / LIKE. */
static sl_kw postfix_of(sl__parser *p, bool *negated)
{
    *negated = false;
    if (p->tok.kind != SL_TK_IDENT)
        return SL_KW__NONE;
    sl_kw kw = p->tok.kw;
    if (kw == SL_KW_NOT) {
        const sl_token *n = sl__peek(p, 1);
        if (n->kind != SL_TK_IDENT)
            return SL_KW__NONE;
        kw = n->kw;
        *negated = true;
        if (kw != SL_KW_IN && kw != SL_KW_BETWEEN && kw != SL_KW_LIKE)
            return SL_KW__NONE;
        return kw;
    }
    if (kw == SL_KW_IS || kw == SL_KW_IN || kw == SL_KW_BETWEEN || kw == SL_KW_LIKE)
        return kw;
    return SL_KW__NONE;
}

static int parse_postfix(sl__parser *p, sl_kw kw, bool negated, sl_expr *lhs, sl_pos start,
                         sl_expr **out)
{
    sl_pos at = p->tok.pos;
    if (negated)
        sl__next(p);
    sl__next(p);
    sl_expr *e;
    switch (kw) {
    case SL_KW_IS:
        if ((e = sl__new_expr(p, SL_EX_ISNULL, start)) == NULL)
            return SL_ENOMEM;
        e->u.isnull.arg = lhs;
        e->u.isnull.negated = sl__accept_kw(p, SL_KW_NOT);
        SL__TRY(sl__expect_kw(p, SL_KW_NULL, e->u.isnull.negated ? "NULL" : "NULL or NOT NULL"));
        break;
    case SL_KW_IN: {
        if ((e = sl__new_expr(p, SL_EX_IN, start)) == NULL)
            return SL_ENOMEM;
        e->u.in.arg = lhs;
        e->u.in.negated = negated;
        sl_pos lp = p->tok.pos;
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        SL__TRY(sl__enter(p, lp));
        SL__TRY(sl__expr_list(p, &e->u.in.list));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
        sl__leave(p);
        break;
    }
    case SL_KW_BETWEEN:
        if ((e = sl__new_expr(p, SL_EX_BETWEEN, start)) == NULL)
            return SL_ENOMEM;
        e->u.between.arg = lhs;
        e->u.between.negated = negated;
        SL__TRY(parse_bp(p, PREC_BITOR, &e->u.between.lo));
        SL__TRY(sl__expect_kw(p, SL_KW_AND, "AND"));
        SL__TRY(parse_bp(p, PREC_BITOR, &e->u.between.hi));
        break;
    default: /* LIKE */
        if ((e = sl__new_expr(p, SL_EX_LIKE, start)) == NULL)
            return SL_ENOMEM;
        e->u.like.arg = lhs;
        e->u.like.negated = negated;
        SL__TRY(parse_bp(p, PREC_BITOR, &e->u.like.pattern));
        break;
    }
    SL__TRY(finish(p, e, at));
    *out = e;
    return 0;
}

static int parse_infix(sl__parser *p, sl_expr *lhs, sl_pos start, int min, sl_expr **out)
{
    for (;;) {
        bool negated;
        sl_kw post = postfix_of(p, &negated);
        if (post != SL_KW__NONE) {
            if (PREC_CMP < min)
                break;
            SL__TRY(parse_postfix(p, post, negated, lhs, start, &lhs));
            continue;
        }
        sl_binop op;
        int prec = binop_of(p, &op);
        if (prec == 0 || prec < min)
            break;
        sl_pos at = p->tok.pos;
        sl__next(p);
        sl_expr *rhs;
        SL__TRY(parse_bp(p, prec + 1, &rhs));
        sl_expr *e = sl__new_expr(p, SL_EX_BINARY, start);
        if (e == NULL)
            return SL_ENOMEM;
        e->u.binary.op = op;
        e->u.binary.left = lhs;
        e->u.binary.right = rhs;
        SL__TRY(finish(p, e, at));
        lhs = e;
    }
    *out = lhs;
    return 0;
}
