/*
 * parser_stream.c - CREATE STREAM, START STREAM and STOP STREAM (spec/stream-syntax.txt).
 *
 * CREATE STREAM [IF NOT EXISTS] [db.]name trigger [FROM [db.]t]
 *     [PARTITION BY exprs | ROLLUP BY tag] [STREAM_OPTIONS(opt | ...)]
 *     [NOTIFY(urls) [ON (events)] [WHERE cond] [NOTIFY_OPTIONS(opt | ...)]]
 *     [INTO [db.]t] [NODELAY_CREATE_SUBTABLE] [OUTPUT_SUBTABLE(expr)]
 *     [(col [COMPOSITE KEY], ...)] [TAGS (name type AS expr, ...)] [AS subquery]
 *
 * The clauses are taken in this order, each at most once. Nothing is validated beyond the
 * grammar: a stream option written twice is kept twice, a TRUE_FOR on a COUNT_WINDOW is a
 * syntax error only because the grammar has no place for it. Stream validation reports the
 * rules (trigger table required, option combinations, ranges) with the positions kept here.
 */
#include <string.h>

#include "parser_int.h"

/* '(' d [, d2] ')' */
static int parse_dur_pair(sl__parser *p, sl_duration *d, bool *has_d2, sl_duration *d2)
{
    SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
    SL__TRY(sl__duration(p, d));
    if (sl__accept(p, SL_TK_COMMA)) {
        *has_d2 = true;
        SL__TRY(sl__duration(p, d2));
    }
    return sl__expect(p, SL_TK_RPAREN, "')'");
}

/* duration | COUNT n | duration AND COUNT n | duration OR COUNT n */
static int parse_limit_expr(sl__parser *p, sl_limit_expr *l)
{
    l->pos = p->tok.pos;
    if (sl__accept_kw(p, SL_KW_COUNT)) {
        l->op = SL_LIMIT_COUNT;
        return sl__int64(p, &l->count, NULL, "an integer");
    }
    if (!sl__is(p, SL_TK_DURATION))
        return sl__fail_expected(p, "a duration such as 10s or COUNT n");
    SL__TRY(sl__duration(p, &l->duration));
    if (sl__accept_kw(p, SL_KW_AND))
        l->op = SL_LIMIT_AND;
    else if (sl__accept_kw(p, SL_KW_OR))
        l->op = SL_LIMIT_OR;
    else {
        l->op = SL_LIMIT_DURATION;
        return 0;
    }
    SL__TRY(sl__expect_kw(p, SL_KW_COUNT, "COUNT"));
    return sl__int64(p, &l->count, NULL, "an integer");
}

/* [TRUE_FOR(arg [, arg [, arg]])], arg: limit | start(limit) | end(limit) */
static int parse_true_for(sl__parser *p, sl_true_for *tf)
{
    sl_pos pos = p->tok.pos;
    if (!sl__accept_kw(p, SL_KW_TRUE_FOR))
        return 0;
    tf->pos = pos;
    SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
    do {
        sl_true_for_arg *a = &tf->args[tf->n++];
        a->pos = p->tok.pos;
        a->role = SL_TF_WINDOW;
        if ((sl__is_kw(p, SL_KW_START) || sl__is_kw(p, SL_KW_END)) &&
            sl__peek(p, 1)->kind == SL_TK_LPAREN) {
            a->role = sl__is_kw(p, SL_KW_START) ? SL_TF_START : SL_TF_END;
            sl__next(p);
            sl__next(p);
            SL__TRY(parse_limit_expr(p, &a->limit));
            SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
        } else {
            SL__TRY(parse_limit_expr(p, &a->limit));
        }
    } while (tf->n < 3 && sl__accept(p, SL_TK_COMMA));
    return sl__expect(p, SL_TK_RPAREN, "')'");
}

/* STATE_WINDOW(exprs) [EXTEND(n)] [ZEROTH_STATE(v | NO_ZEROTH, ...)] [TRUE_FOR(...)] */
static int parse_state_window(sl__parser *p, sl_trigger *t)
{
    SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
    SL__TRY(sl__expr_list(p, &t->state_exprs));
    SL__TRY(sl__expect(p, SL_TK_RPAREN, "',' or ')'"));
    sl_pos pos = p->tok.pos;
    if (sl__accept_kw(p, SL_KW_EXTEND)) {
        t->has_extend = true;
        t->extend_pos = pos;
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        SL__TRY(sl__int64(p, &t->extend, NULL, "an integer"));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
    }
    pos = p->tok.pos;
    if (sl__accept_kw(p, SL_KW_ZEROTH_STATE)) {
        sl__vec zs = {0};
        t->zeroth_pos = pos;
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        do {
            sl_zeroth z = {NULL, p->tok.pos};
            if (!sl__accept_kw(p, SL_KW_NO_ZEROTH))
                SL__TRY(sl__expr(p, &z.expr));
            SL__TRY(sl__vec_push(p, &zs, sizeof(z), &z));
        } while (sl__accept(p, SL_TK_COMMA));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "',' or ')'"));
        t->nzeroth = zs.n;
        t->zeroth = zs.items;
    }
    return parse_true_for(p, &t->true_for);
}

/*
 * EVENT_WINDOW(START WITH c END WITH e) or EVENT_WINDOW(START WITH (c1, c2, ...)
 * [END WITH e]) [TRUE_FOR(...)]. A parenthesised single condition, START WITH (c) ...,
 * is the plain form: the parentheses only group.
 */
static int parse_event_window(sl__parser *p, sl_trigger *t)
{
    sl__vec starts = {0};
    sl_expr *c;
    SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
    SL__TRY(sl__expect_kw(p, SL_KW_START, "START"));
    SL__TRY(sl__expect_kw(p, SL_KW_WITH, "WITH"));
    if (sl__is(p, SL_TK_LPAREN)) {
        sl_pos lp = p->tok.pos;
        SL__TRY(sl__enter(p, lp));
        sl__next(p);
        SL__TRY(sl__expr(p, &c));
        if (sl__is(p, SL_TK_COMMA)) {
            t->event_multi = true;
            SL__TRY(sl__vec_push(p, &starts, sizeof(c), &c));
            while (sl__accept(p, SL_TK_COMMA)) {
                SL__TRY(sl__expr(p, &c));
                SL__TRY(sl__vec_push(p, &starts, sizeof(c), &c));
            }
        }
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
        sl__leave(p);
        if (!t->event_multi) {
            SL__TRY(sl__expr_continue(p, c, lp, &c));
            SL__TRY(sl__vec_push(p, &starts, sizeof(c), &c));
        }
    } else {
        SL__TRY(sl__expr(p, &c));
        SL__TRY(sl__vec_push(p, &starts, sizeof(c), &c));
    }
    t->event_starts.n = starts.n;
    t->event_starts.items = starts.items;
    if (sl__accept_kw(p, SL_KW_END)) {
        SL__TRY(sl__expect_kw(p, SL_KW_WITH, "WITH"));
        SL__TRY(sl__expr(p, &t->event_end));
    } else if (!t->event_multi) {
        return sl__fail_expected(p, "END WITH");
    }
    SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
    return parse_true_for(p, &t->true_for);
}

/* COUNT_WINDOW(n [, slide] [, col ...]): after n an integer is the slide, names are columns. */
static int parse_count_window(sl__parser *p, sl_trigger *t)
{
    SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
    SL__TRY(sl__int64(p, &t->count, &t->count_pos, "an integer"));
    if (sl__accept(p, SL_TK_COMMA)) {
        bool cols = true;
        if (sl__is(p, SL_TK_INT)) {
            t->has_count_sliding = true;
            SL__TRY(sl__int64(p, &t->count_sliding, &t->count_sliding_pos, "an integer"));
            cols = sl__accept(p, SL_TK_COMMA);
        } else if (!sl__is_name(p)) {
            return sl__fail_expected(p, "an integer or a column name");
        }
        if (cols) {
            sl__vec names = {0}, pos = {0};
            do {
                const char *name;
                sl_pos npos;
                SL__TRY(sl__name(p, &name, &npos, "a column name"));
                SL__TRY(sl__vec_push(p, &names, sizeof(name), &name));
                SL__TRY(sl__vec_push(p, &pos, sizeof(npos), &npos));
            } while (sl__accept(p, SL_TK_COMMA));
            t->ncount_cols = names.n;
            t->count_cols = names.items;
            t->count_col_pos = pos.items;
        }
    }
    return sl__expect(p, SL_TK_RPAREN, "',' or ')'");
}

static int parse_trigger(sl__parser *p, sl_trigger *t)
{
    t->pos = p->tok.pos;
    sl_kw kw = p->tok.kind == SL_TK_IDENT ? p->tok.kw : SL_KW__NONE;
    switch (kw) {
    case SL_KW_PERIOD:
        t->kind = SL_TRIG_PERIOD;
        sl__next(p);
        return parse_dur_pair(p, &t->period, &t->has_period_offset, &t->period_offset);
    case SL_KW_SLIDING:
        t->kind = SL_TRIG_SLIDING;
        sl__next(p);
        return parse_dur_pair(p, &t->sliding, &t->has_sliding_offset, &t->sliding_offset);
    case SL_KW_INTERVAL:
        t->kind = SL_TRIG_INTERVAL;
        sl__next(p);
        SL__TRY(parse_dur_pair(p, &t->interval, &t->has_interval_offset, &t->interval_offset));
        SL__TRY(sl__expect_kw(p, SL_KW_SLIDING, "SLIDING"));
        return parse_dur_pair(p, &t->sliding, &t->has_sliding_offset, &t->sliding_offset);
    case SL_KW_SESSION:
        t->kind = SL_TRIG_SESSION;
        sl__next(p);
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        SL__TRY(sl__name(p, &t->session_col, &t->session_col_pos, "a column name"));
        SL__TRY(sl__expect(p, SL_TK_COMMA, "','"));
        SL__TRY(sl__duration(p, &t->session_gap));
        return sl__expect(p, SL_TK_RPAREN, "')'");
    case SL_KW_STATE_WINDOW:
        t->kind = SL_TRIG_STATE;
        sl__next(p);
        return parse_state_window(p, t);
    case SL_KW_EVENT_WINDOW:
        t->kind = SL_TRIG_EVENT;
        sl__next(p);
        return parse_event_window(p, t);
    case SL_KW_COUNT_WINDOW:
        t->kind = SL_TRIG_COUNT;
        sl__next(p);
        return parse_count_window(p, t);
    default:
        return sl__fail_expected(p, "a trigger: PERIOD, SLIDING, INTERVAL, SESSION, "
                                    "STATE_WINDOW, EVENT_WINDOW or COUNT_WINDOW");
    }
}

typedef enum opt_arg {
    OPT_ARG_NONE,     /* a bare word */
    OPT_ARG_DURATION, /* (duration) */
    OPT_ARG_EXPR,     /* (expr) */
    OPT_ARG_OPT_EXPR, /* [(expr)] */
    OPT_ARG_EVENTS    /* (event | event ...) */
} opt_arg;

static const struct {
    sl_kw kw;
    sl_stream_opt_kind kind;
    opt_arg arg;
} stream_opts[] = {
    {.kw = SL_KW_WATERMARK, .kind = SL_SOPT_WATERMARK, .arg = OPT_ARG_DURATION},
    {.kw = SL_KW_EXPIRED_TIME, .kind = SL_SOPT_EXPIRED_TIME, .arg = OPT_ARG_DURATION},
    {.kw = SL_KW_IGNORE_DISORDER, .kind = SL_SOPT_IGNORE_DISORDER, .arg = OPT_ARG_NONE},
    {.kw = SL_KW_DELETE_RECALC, .kind = SL_SOPT_DELETE_RECALC, .arg = OPT_ARG_NONE},
    {.kw = SL_KW_DELETE_OUTPUT_TABLE, .kind = SL_SOPT_DELETE_OUTPUT_TABLE, .arg = OPT_ARG_NONE},
    {.kw = SL_KW_FILL_HISTORY, .kind = SL_SOPT_FILL_HISTORY, .arg = OPT_ARG_OPT_EXPR},
    {.kw = SL_KW_FILL_HISTORY_FIRST, .kind = SL_SOPT_FILL_HISTORY_FIRST, .arg = OPT_ARG_OPT_EXPR},
    {.kw = SL_KW_CALC_NOTIFY_ONLY, .kind = SL_SOPT_CALC_NOTIFY_ONLY, .arg = OPT_ARG_NONE},
    {.kw = SL_KW_LOW_LATENCY_CALC, .kind = SL_SOPT_LOW_LATENCY_CALC, .arg = OPT_ARG_NONE},
    {.kw = SL_KW_PRE_FILTER, .kind = SL_SOPT_PRE_FILTER, .arg = OPT_ARG_EXPR},
    {.kw = SL_KW_FORCE_OUTPUT, .kind = SL_SOPT_FORCE_OUTPUT, .arg = OPT_ARG_NONE},
    {.kw = SL_KW_MAX_DELAY, .kind = SL_SOPT_MAX_DELAY, .arg = OPT_ARG_DURATION},
    {.kw = SL_KW_EVENT_TYPE, .kind = SL_SOPT_EVENT_TYPE, .arg = OPT_ARG_EVENTS},
    {.kw = SL_KW_IGNORE_NODATA_TRIGGER, .kind = SL_SOPT_IGNORE_NODATA_TRIGGER,
     .arg = OPT_ARG_NONE},
    {.kw = SL_KW_IDLE_TIMEOUT, .kind = SL_SOPT_IDLE_TIMEOUT, .arg = OPT_ARG_DURATION},
};

static int parse_stream_option(sl__parser *p, sl_stream_opt *o)
{
    size_t i = 0, n = sizeof(stream_opts) / sizeof(stream_opts[0]);
    while (i < n && !sl__is_kw(p, stream_opts[i].kw))
        i++;
    if (i == n)
        return sl__fail_expected(p, "a stream option");
    o->kind = stream_opts[i].kind;
    o->pos = p->tok.pos;
    sl__next(p);
    switch (stream_opts[i].arg) {
    case OPT_ARG_NONE: return 0;
    case OPT_ARG_OPT_EXPR:
        if (!sl__is(p, SL_TK_LPAREN))
            return 0;
        /* fall through */
    case OPT_ARG_EXPR:
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        SL__TRY(sl__expr(p, &o->expr));
        break;
    case OPT_ARG_DURATION:
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        SL__TRY(sl__duration(p, &o->dur));
        break;
    case OPT_ARG_EVENTS:
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        SL__TRY(sl__event_types(p, &o->events));
        break;
    }
    return sl__expect(p, SL_TK_RPAREN, "')'");
}

/* NOTIFY(url [, url ...]) [ON (events)] [WHERE cond] [NOTIFY_OPTIONS(opt [| opt])] */
static int parse_notify(sl__parser *p, sl_notify *n)
{
    sl__vec urls = {0}, pos = {0};
    n->present = true;
    n->pos = p->tok.pos;
    sl__next(p);
    SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
    do {
        const char *url;
        sl_pos upos;
        SL__TRY(sl__string(p, &url, &upos, "a URL string such as 'ws://host:port'"));
        SL__TRY(sl__vec_push(p, &urls, sizeof(url), &url));
        SL__TRY(sl__vec_push(p, &pos, sizeof(upos), &upos));
    } while (sl__accept(p, SL_TK_COMMA));
    SL__TRY(sl__expect(p, SL_TK_RPAREN, "',' or ')'"));
    n->nurls = urls.n;
    n->urls = urls.items;
    n->url_pos = pos.items;
    sl_pos on_pos = p->tok.pos;
    if (sl__accept_kw(p, SL_KW_ON)) {
        n->has_on = true;
        n->on_pos = on_pos;
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        SL__TRY(sl__event_types(p, &n->on_events));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
    }
    if (sl__accept_kw(p, SL_KW_WHERE))
        SL__TRY(sl__expr(p, &n->where));
    if (sl__accept_kw(p, SL_KW_NOTIFY_OPTIONS)) {
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        do {
            SL__TRY(sl__expect_kw(p, SL_KW_NOTIFY_HISTORY, "NOTIFY_HISTORY"));
            n->notify_history = true;
            n->nnotify_opts++;
        } while (sl__accept(p, SL_TK_BITOR));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
    }
    return 0;
}

/* The output clauses after the options: INTO ... AS subquery. */
static int parse_output(sl__parser *p, sl_create_stream *c)
{
    if (sl__accept_kw(p, SL_KW_INTO)) {
        c->has_into = true;
        SL__TRY(sl__qname(p, &c->into, "a table name"));
    }
    c->nodelay_create_subtable = sl__accept_kw(p, SL_KW_NODELAY_CREATE_SUBTABLE);
    if (sl__accept_kw(p, SL_KW_OUTPUT_SUBTABLE)) {
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        SL__TRY(sl__expr(p, &c->output_subtable));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "')'"));
    }
    if (sl__accept(p, SL_TK_LPAREN)) {
        sl__vec cols = {0};
        do {
            sl_out_col col = {0};
            SL__TRY(sl__name(p, &col.name, &col.pos, "a column name"));
            if (sl__is_kw(p, SL_KW_COMPOSITE) || sl__is_kw(p, SL_KW_PRIMARY)) {
                sl__next(p);
                SL__TRY(sl__expect_kw(p, SL_KW_KEY, "KEY"));
                col.composite_key = true;
            }
            SL__TRY(sl__vec_push(p, &cols, sizeof(col), &col));
        } while (sl__accept(p, SL_TK_COMMA));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "',' or ')'"));
        c->nout_cols = cols.n;
        c->out_cols = cols.items;
    }
    if (sl__accept_kw(p, SL_KW_TAGS)) {
        sl__vec tags = {0};
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        do {
            sl_tag_def tag = {0};
            SL__TRY(sl__name(p, &tag.name, &tag.pos, "a tag name"));
            SL__TRY(sl__type(p, &tag.type, &tag.width, NULL));
            SL__TRY(sl__expect_kw(p, SL_KW_AS, "AS"));
            SL__TRY(sl__expr(p, &tag.expr));
            SL__TRY(sl__vec_push(p, &tags, sizeof(tag), &tag));
        } while (sl__accept(p, SL_TK_COMMA));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "',' or ')'"));
        c->ntags = tags.n;
        c->tags = tags.items;
    }
    if (sl__accept_kw(p, SL_KW_AS)) {
        if (!sl__is_kw(p, SL_KW_SELECT))
            return sl__fail_expected(p, "SELECT");
        SL__TRY(sl__select(p, &c->query));
    }
    return 0;
}

int sl__create_stream(sl__parser *p, sl_stmt *st)
{
    sl_create_stream *c = &st->u.create_stream;
    st->kind = SL_STMT_CREATE_STREAM;
    sl__next(p); /* STREAM */
    SL__TRY(sl__if_not_exists(p, &c->if_not_exists));
    SL__TRY(sl__qname(p, &c->name, "a stream name"));
    SL__TRY(parse_trigger(p, &c->trigger));
    if (sl__accept_kw(p, SL_KW_FROM)) {
        c->has_from = true;
        SL__TRY(sl__qname(p, &c->from, "a table name"));
    }
    if (sl__accept_kw(p, SL_KW_PARTITION)) {
        SL__TRY(sl__expect_kw(p, SL_KW_BY, "BY"));
        SL__TRY(sl__expr_list(p, &c->partition_by));
    } else if (sl__accept_kw(p, SL_KW_ROLLUP)) {
        SL__TRY(sl__expect_kw(p, SL_KW_BY, "BY"));
        c->has_rollup = true;
        SL__TRY(sl__name(p, &c->rollup_tag, &c->rollup_pos, "a tag name"));
    }
    if (sl__accept_kw(p, SL_KW_STREAM_OPTIONS)) {
        sl__vec opts = {0};
        SL__TRY(sl__expect(p, SL_TK_LPAREN, "'('"));
        do {
            sl_stream_opt o = {0};
            SL__TRY(parse_stream_option(p, &o));
            SL__TRY(sl__vec_push(p, &opts, sizeof(o), &o));
        } while (sl__accept(p, SL_TK_BITOR));
        SL__TRY(sl__expect(p, SL_TK_RPAREN, "'|' or ')'"));
        c->nopts = opts.n;
        c->opts = opts.items;
    }
    if (sl__is_kw(p, SL_KW_NOTIFY))
        SL__TRY(parse_notify(p, &c->notify));
    return parse_output(p, c);
}

int sl__stream_ctl(sl__parser *p, sl_stmt *st)
{
    sl_stream_ctl *c = &st->u.stream_ctl;
    bool start = sl__is_kw(p, SL_KW_START);
    st->kind = start ? SL_STMT_START_STREAM : SL_STMT_STOP_STREAM;
    sl__next(p); /* START or STOP */
    SL__TRY(sl__expect_kw(p, SL_KW_STREAM, "STREAM"));
    SL__TRY(sl__if_exists(p, &c->if_exists));
    if (start && sl__is_kw(p, SL_KW_IGNORE)) {
        const sl_token *t = sl__peek(p, 1);
        if (t->kind == SL_TK_IDENT && t->kw == SL_KW_UNTREATED) {
            sl__next(p);
            sl__next(p);
            c->ignore_untreated = true;
        }
    }
    return sl__qname(p, &c->name, "a stream name");
}
