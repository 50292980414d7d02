/*
 * ast_dump.c - the canonical one-line rendering of statements and expressions.
 *
 * Tests compare whole trees through this text and tools print it to show what was
 * parsed, so it is stable, unambiguous and covers every field given; the notation is
 * described in parser.c. Recursion follows the tree, whose depth the parser bounds.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

typedef struct dumper {
    sl_buf *out;
    int rc; /* first failure; later writes are skipped */
} dumper;

static void put(dumper *d, const char *s)
{
    if (d->rc == 0)
        d->rc = sl_buf_put(d->out, s, strlen(s));
}

static void putf(dumper *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void putf(dumper *d, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    put(d, tmp);
}

static void put_name(dumper *d, const char *s)
{
    bool plain = s[0] != '\0';
    for (const char *c = s; *c != '\0'; c++) {
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_'))
            plain = false;
    }
    if (plain) {
        put(d, s);
        return;
    }
    put(d, "`");
    for (const char *c = s; *c != '\0'; c++)
        put(d, *c == '`' ? "``" : (char[]){*c, '\0'});
    put(d, "`");
}

static void put_qname(dumper *d, const sl_qname *q)
{
    if (q->db != NULL) {
        put_name(d, q->db);
        put(d, ".");
    }
    put_name(d, q->name);
}

static void put_string(dumper *d, const char *s, size_t len)
{
    put(d, "'");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '\'': put(d, "''"); break;
        case '\\': put(d, "\\\\"); break;
        case '\n': put(d, "\\n"); break;
        case '\r': put(d, "\\r"); break;
        case '\t': put(d, "\\t"); break;
        case '\0': put(d, "\\0"); break;
        default:
            if (c < 0x20 || c == 0x7f)
                putf(d, "\\x%02X", c);
            else
                put(d, (char[]){(char)c, '\0'});
        }
    }
    put(d, "'");
}

static void put_dur(dumper *d, const sl_duration *dur)
{
    putf(d, "%" PRId64 "%c", dur->value, dur->unit);
}

/* Shortest text that reads back as the same double. */
static void put_double(dumper *d, double v)
{
    char tmp[64];
    if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v) {
        /* an integral value prints as digits, e.g. 1500 rather than 1.5e+03 */
        putf(d, "%.0f", v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    put(d, tmp);
}

static const char *const type_names[SL_T__COUNT] = {
    [SL_T_NULL] = "NULL",
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

static void put_type(dumper *d, sl_type t, uint32_t width, bool show_width)
{
    put(d, (unsigned)t < SL_T__COUNT ? type_names[t] : "?");
    if (show_width)
        putf(d, "(%" PRIu32 ")", width);
}

static void put_events(dumper *d, unsigned ev)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{SL_EVT_WINDOW_OPEN, " window-open"},
                 {SL_EVT_WINDOW_CLOSE, " window-close"},
                 {SL_EVT_IDLE, " idle"},
                 {SL_EVT_RESUME, " resume"}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (ev & names[i].bit)
            put(d, names[i].name);
    }
}

/* ---------------------------------------------------------------- expressions */

static void put_expr(dumper *d, const sl_expr *e);

/* " e1 e2 ..." */
static void put_list(dumper *d, const sl_expr_list *l)
{
    for (int i = 0; i < l->n; i++) {
        put(d, " ");
        put_expr(d, l->items[i]);
    }
}

static void put_literal(dumper *d, const sl_expr *e)
{
    switch (e->u.lit.kind) {
    case SL_LIT_NULL: put(d, "(null)"); break;
    case SL_LIT_BOOL: put(d, e->u.lit.b ? "(true)" : "(false)"); break;
    case SL_LIT_INT: putf(d, "(int %" PRId64 ")", e->u.lit.i); break;
    case SL_LIT_UINT: putf(d, "(uint %" PRIu64 ")", e->u.lit.u); break;
    case SL_LIT_FLOAT:
        put(d, "(float ");
        put_double(d, e->u.lit.d);
        put(d, ")");
        break;
    case SL_LIT_STRING:
        put(d, "(str ");
        put_string(d, e->u.lit.s, e->u.lit.len);
        put(d, ")");
        break;
    case SL_LIT_DURATION:
        put(d, "(dur ");
        put_dur(d, &e->u.lit.dur);
        put(d, ")");
        break;
    }
}

static const char *const binop_names[] = {
    [SL_OP_ADD] = "+",    [SL_OP_SUB] = "-",       [SL_OP_MUL] = "*",     [SL_OP_DIV] = "/",
    [SL_OP_MOD] = "%",    [SL_OP_EQ] = "=",        [SL_OP_NE] = "<>",     [SL_OP_LT] = "<",
    [SL_OP_LE] = "<=",    [SL_OP_GT] = ">",        [SL_OP_GE] = ">=",     [SL_OP_AND] = "and",
    [SL_OP_OR] = "or",    [SL_OP_BITAND] = "&",    [SL_OP_BITOR] = "|",   [SL_OP_CONCAT] = "||",
};

static const char *const pseudo_names[] = {
    [SL_PS_WSTART] = "_wstart",
    [SL_PS_WEND] = "_wend",
    [SL_PS_WDURATION] = "_wduration",
    [SL_PS_ROWTS] = "_rowts",
};

static void put_expr(dumper *d, const sl_expr *e)
{
    switch (e->kind) {
    case SL_EX_LITERAL: put_literal(d, e); break;
    case SL_EX_COLUMN:
        put(d, "(col ");
        if (e->u.column.table != NULL) {
            put_name(d, e->u.column.table);
            put(d, ".");
        }
        put_name(d, e->u.column.name);
        put(d, ")");
        break;
    case SL_EX_STAR:
        put(d, "(star");
        if (e->u.star.table != NULL) {
            put(d, " ");
            put_name(d, e->u.star.table);
        }
        put(d, ")");
        break;
    case SL_EX_UNARY:
        put(d, e->u.unary.op == SL_OP_NEG ? "(- " : e->u.unary.op == SL_OP_NOT ? "(not " : "(~ ");
        put_expr(d, e->u.unary.arg);
        put(d, ")");
        break;
    case SL_EX_BINARY:
        putf(d, "(%s ", binop_names[e->u.binary.op]);
        put_expr(d, e->u.binary.left);
        put(d, " ");
        put_expr(d, e->u.binary.right);
        put(d, ")");
        break;
    case SL_EX_FUNC:
        put(d, "(func ");
        put_name(d, e->u.func.name);
        if (e->u.func.distinct)
            put(d, " distinct");
        put_list(d, &e->u.func.args);
        put(d, ")");
        break;
    case SL_EX_CASE:
        put(d, "(case");
        if (e->u.case_.operand != NULL) {
            put(d, " ");
            put_expr(d, e->u.case_.operand);
        }
        for (int i = 0; i < e->u.case_.nwhen; i++) {
            put(d, " (when ");
            put_expr(d, e->u.case_.whens[i].when);
            put(d, " ");
            put_expr(d, e->u.case_.whens[i].then);
            put(d, ")");
        }
        if (e->u.case_.else_ != NULL) {
            put(d, " (else ");
            put_expr(d, e->u.case_.else_);
            put(d, ")");
        }
        put(d, ")");
        break;
    case SL_EX_IN:
        put(d, e->u.in.negated ? "(not-in " : "(in ");
        put_expr(d, e->u.in.arg);
        put_list(d, &e->u.in.list);
        put(d, ")");
        break;
    case SL_EX_BETWEEN:
        put(d, e->u.between.negated ? "(not-between " : "(between ");
        put_expr(d, e->u.between.arg);
        put(d, " ");
        put_expr(d, e->u.between.lo);
        put(d, " ");
        put_expr(d, e->u.between.hi);
        put(d, ")");
        break;
    case SL_EX_ISNULL:
        put(d, e->u.isnull.negated ? "(is-not-null " : "(is-null ");
        put_expr(d, e->u.isnull.arg);
        put(d, ")");
        break;
    case SL_EX_LIKE:
        put(d, e->u.like.negated ? "(not-like " : "(like ");
        put_expr(d, e->u.like.arg);
        put(d, " ");
        put_expr(d, e->u.like.pattern);
        put(d, ")");
        break;
    case SL_EX_CAST:
        put(d, "(cast ");
        put_expr(d, e->u.cast.arg);
        put(d, " ");
        put_type(d, e->u.cast.type, e->u.cast.width, e->u.cast.width != 0);
        put(d, ")");
        break;
    case SL_EX_PLACEHOLDER:
        if (e->u.placeholder.ph == SL_PH_PARTITION_COL)
            putf(d, "(ph %%%%%d)", e->u.placeholder.index);
        else
            putf(d, "(ph %s)", sl_placeholder_name(e->u.placeholder.ph));
        break;
    case SL_EX_PSEUDO: putf(d, "(pseudo %s)", pseudo_names[e->u.pseudo.ps]); break;
    case SL_EX_NOW: put(d, "(now)"); break;
    case SL_EX_TODAY: put(d, "(today)"); break;
    }
}

/* ---------------------------------------------------------------- SELECT */

static void put_select(dumper *d, const sl_select *s);

static void put_from(dumper *d, const sl_from *f)
{
    put(d, " (from ");
    switch (f->kind) {
    case SL_FROM_TABLE: put_qname(d, &f->table); break;
    case SL_FROM_SUBQUERY: put_select(d, f->subquery); break;
    case SL_FROM_TROWS: put(d, "%%trows"); break;
    case SL_FROM_TBNAME: put(d, "%%tbname"); break;
    }
    if (f->alias != NULL) {
        put(d, " (alias ");
        put_name(d, f->alias);
        put(d, ")");
    }
    put(d, ")");
}

static void put_select(dumper *d, const sl_select *s)
{
    static const char *const fill_names[] = {
        [SL_FILL_NONE] = "none",   [SL_FILL_NULL] = "null", [SL_FILL_VALUE] = "value",
        [SL_FILL_PREV] = "prev",   [SL_FILL_NEXT] = "next", [SL_FILL_LINEAR] = "linear",
    };
    put(d, "(select");
    if (s->distinct)
        put(d, " distinct");
    put(d, " (items");
    for (int i = 0; i < s->nitems; i++) {
        put(d, " ");
        if (s->items[i].alias != NULL) {
            put(d, "(as ");
            put_expr(d, s->items[i].expr);
            put(d, " ");
            put_name(d, s->items[i].alias);
            put(d, ")");
        } else {
            put_expr(d, s->items[i].expr);
        }
    }
    put(d, ")");
    if (s->from != NULL)
        put_from(d, s->from);
    if (s->where != NULL) {
        put(d, " (where ");
        put_expr(d, s->where);
        put(d, ")");
    }
    if (s->partition_by.n > 0) {
        put(d, " (partition-by");
        put_list(d, &s->partition_by);
        put(d, ")");
    }
    if (s->has_interval) {
        put(d, " (interval ");
        put_dur(d, &s->interval);
        if (s->has_interval_offset) {
            put(d, " ");
            put_dur(d, &s->interval_offset);
        }
        put(d, ")");
    }
    if (s->has_sliding) {
        put(d, " (sliding ");
        put_dur(d, &s->sliding);
        put(d, ")");
    }
    if (s->fill != SL_FILL_NONE_GIVEN) {
        putf(d, " (fill %s", fill_names[s->fill]);
        put_list(d, &s->fill_values);
        put(d, ")");
    }
    if (s->group_by.n > 0) {
        put(d, " (group-by");
        put_list(d, &s->group_by);
        put(d, ")");
    }
    if (s->having != NULL) {
        put(d, " (having ");
        put_expr(d, s->having);
        put(d, ")");
    }
    if (s->norder > 0) {
        put(d, " (order-by");
        for (int i = 0; i < s->norder; i++) {
            put(d, s->order[i].desc ? " (desc " : " (asc ");
            put_expr(d, s->order[i].expr);
            if (s->order[i].nulls == 1)
                put(d, " nulls-first");
            else if (s->order[i].nulls == 2)
                put(d, " nulls-last");
            put(d, ")");
        }
        put(d, ")");
    }
    if (s->has_limit)
        putf(d, " (limit %" PRId64 ")", s->limit);
    if (s->has_offset)
        putf(d, " (offset %" PRId64 ")", s->offset);
    put(d, ")");
}

/* ---------------------------------------------------------------- DDL and DML */

static void put_column_defs(dumper *d, const char *head, int n, const sl_column_def *cols)
{
    putf(d, " (%s", head);
    for (int i = 0; i < n; i++) {
        put(d, " (");
        put_name(d, cols[i].name);
        put(d, " ");
        put_type(d, cols[i].type, cols[i].width, cols[i].width_given);
        if (cols[i].composite_key)
            put(d, " composite-key");
        put(d, ")");
    }
    put(d, ")");
}

/* " (head n1 n2 ...)" */
static void put_names(dumper *d, const char *head, int n, const char *const *names)
{
    putf(d, " (%s", head);
    for (int i = 0; i < n; i++) {
        put(d, " ");
        put_name(d, names[i]);
    }
    put(d, ")");
}

static void put_drop(dumper *d, const char *head, const sl_drop *dr)
{
    putf(d, "(%s", head);
    if (dr->if_exists)
        put(d, " if-exists");
    for (int i = 0; i < dr->n; i++) {
        put(d, " ");
        put_qname(d, &dr->names[i]);
    }
    put(d, ")");
}

static void put_show(dumper *d, const sl_show *s)
{
    static const char *const names[] = {
        [SL_SHOW_DATABASES] = "databases",
        [SL_SHOW_STABLES] = "stables",
        [SL_SHOW_TABLES] = "tables",
        [SL_SHOW_STREAMS] = "streams",
        [SL_SHOW_VNODES] = "vnodes",
        [SL_SHOW_DNODES] = "dnodes",
        [SL_SHOW_SNODES] = "snodes",
        [SL_SHOW_MNODES] = "mnodes",
        [SL_SHOW_CREATE_STREAM] = "create-stream",
        [SL_SHOW_CREATE_TABLE] = "create-table",
        [SL_SHOW_CREATE_STABLE] = "create-stable",
        [SL_SHOW_CREATE_DATABASE] = "create-database",
        [SL_SHOW_VGROUPS] = "vgroups",
    };
    putf(d, "(show %s", names[s->kind]);
    if (s->name.name != NULL) { /* SHOW CREATE ... */
        put(d, " ");
        put_qname(d, &s->name);
    }
    if (s->db != NULL) {
        put(d, " (db ");
        put_name(d, s->db);
        put(d, ")");
    }
    if (s->on_dnode)
        putf(d, " (on-dnode %lld)", (long long)s->dnode);
    if (s->like != NULL) {
        put(d, " (like ");
        put_string(d, s->like, strlen(s->like));
        put(d, ")");
    }
    put(d, ")");
}

static void put_insert(dumper *d, const sl_insert *ins)
{
    put(d, "(insert");
    for (int i = 0; i < ins->n; i++) {
        const sl_insert_item *it = &ins->items[i];
        put(d, " (into ");
        put_qname(d, &it->table);
        if (it->has_using) {
            put(d, " (using ");
            put_qname(d, &it->stable);
            if (it->ntag_names > 0)
                put_names(d, "tag-names", it->ntag_names, it->tag_names);
            put(d, " (tags");
            put_list(d, &it->tag_values);
            put(d, "))");
        }
        if (it->ncols > 0)
            put_names(d, "columns", it->ncols, it->cols);
        put(d, " (values");
        for (int r = 0; r < it->nrows; r++) {
            put(d, " (row");
            put_list(d, &it->rows[r]);
            put(d, ")");
        }
        put(d, "))");
    }
    put(d, ")");
}

/* ---------------------------------------------------------------- streams */

static void put_dur_pair(dumper *d, const char *head, const sl_duration *a, bool has_b,
                         const sl_duration *b)
{
    putf(d, "(%s ", head);
    put_dur(d, a);
    if (has_b) {
        put(d, " ");
        put_dur(d, b);
    }
}

static void put_limit(dumper *d, const sl_limit_expr *l)
{
    switch (l->op) {
    case SL_LIMIT_DURATION: put_dur(d, &l->duration); break;
    case SL_LIMIT_COUNT: putf(d, "(count %" PRId64 ")", l->count); break;
    case SL_LIMIT_AND:
    case SL_LIMIT_OR:
        put(d, l->op == SL_LIMIT_AND ? "(and " : "(or ");
        put_dur(d, &l->duration);
        putf(d, " (count %" PRId64 "))", l->count);
        break;
    }
}

static void put_true_for(dumper *d, const sl_true_for *tf)
{
    if (tf->n == 0)
        return;
    put(d, " (true-for");
    for (int i = 0; i < tf->n; i++) {
        put(d, " ");
        const sl_true_for_arg *a = &tf->args[i];
        if (a->role != SL_TF_WINDOW)
            put(d, a->role == SL_TF_START ? "(start " : "(end ");
        put_limit(d, &a->limit);
        if (a->role != SL_TF_WINDOW)
            put(d, ")");
    }
    put(d, ")");
}

static void put_trigger(dumper *d, const sl_trigger *t)
{
    switch (t->kind) {
    case SL_TRIG_PERIOD:
        put_dur_pair(d, "period", &t->period, t->has_period_offset, &t->period_offset);
        break;
    case SL_TRIG_SLIDING:
        put_dur_pair(d, "sliding", &t->sliding, t->has_sliding_offset, &t->sliding_offset);
        break;
    case SL_TRIG_INTERVAL:
        put_dur_pair(d, "interval", &t->interval, t->has_interval_offset, &t->interval_offset);
        put(d, " ");
        put_dur_pair(d, "sliding", &t->sliding, t->has_sliding_offset, &t->sliding_offset);
        put(d, ")");
        break;
    case SL_TRIG_SESSION:
        put(d, "(session ");
        put_name(d, t->session_col);
        put(d, " ");
        put_dur(d, &t->session_gap);
        break;
    case SL_TRIG_STATE:
        put(d, "(state-window (exprs");
        put_list(d, &t->state_exprs);
        put(d, ")");
        if (t->has_extend)
            putf(d, " (extend %" PRId64 ")", t->extend);
        if (t->nzeroth > 0) {
            put(d, " (zeroth-state");
            for (int i = 0; i < t->nzeroth; i++) {
                put(d, " ");
                if (t->zeroth[i].expr == NULL)
                    put(d, "no-zeroth");
                else
                    put_expr(d, t->zeroth[i].expr);
            }
            put(d, ")");
        }
        put_true_for(d, &t->true_for);
        break;
    case SL_TRIG_EVENT:
        put(d, t->event_multi ? "(event-window (starts" : "(event-window (start");
        put_list(d, &t->event_starts);
        put(d, ")");
        if (t->event_end != NULL) {
            put(d, " (end ");
            put_expr(d, t->event_end);
            put(d, ")");
        }
        put_true_for(d, &t->true_for);
        break;
    case SL_TRIG_COUNT:
        putf(d, "(count-window %" PRId64, t->count);
        if (t->has_count_sliding)
            putf(d, " (sliding %" PRId64 ")", t->count_sliding);
        if (t->ncount_cols > 0)
            put_names(d, "columns", t->ncount_cols, t->count_cols);
        break;
    }
    put(d, ")");
}

static void put_option(dumper *d, const sl_stream_opt *o)
{
    static const char *const names[] = {
        [SL_SOPT_WATERMARK] = "watermark",
        [SL_SOPT_EXPIRED_TIME] = "expired-time",
        [SL_SOPT_IGNORE_DISORDER] = "ignore-disorder",
        [SL_SOPT_DELETE_RECALC] = "delete-recalc",
        [SL_SOPT_DELETE_OUTPUT_TABLE] = "delete-output-table",
        [SL_SOPT_FILL_HISTORY] = "fill-history",
        [SL_SOPT_FILL_HISTORY_FIRST] = "fill-history-first",
        [SL_SOPT_CALC_NOTIFY_ONLY] = "calc-notify-only",
        [SL_SOPT_LOW_LATENCY_CALC] = "low-latency-calc",
        [SL_SOPT_PRE_FILTER] = "pre-filter",
        [SL_SOPT_FORCE_OUTPUT] = "force-output",
        [SL_SOPT_MAX_DELAY] = "max-delay",
        [SL_SOPT_EVENT_TYPE] = "event-type",
        [SL_SOPT_IGNORE_NODATA_TRIGGER] = "ignore-nodata-trigger",
        [SL_SOPT_IDLE_TIMEOUT] = "idle-timeout",
    };
    putf(d, " (%s", names[o->kind]);
    switch (o->kind) {
    case SL_SOPT_WATERMARK:
    case SL_SOPT_EXPIRED_TIME:
    case SL_SOPT_MAX_DELAY:
    case SL_SOPT_IDLE_TIMEOUT:
        put(d, " ");
        put_dur(d, &o->dur);
        break;
    case SL_SOPT_EVENT_TYPE: put_events(d, o->events); break;
    default:
        if (o->expr != NULL) {
            put(d, " ");
            put_expr(d, o->expr);
        }
        break;
    }
    put(d, ")");
}

static void put_notify(dumper *d, const sl_notify *n)
{
    put(d, " (notify (urls");
    for (int i = 0; i < n->nurls; i++) {
        put(d, " ");
        put_string(d, n->urls[i], strlen(n->urls[i]));
    }
    put(d, ")");
    if (n->has_on) {
        put(d, " (on");
        put_events(d, n->on_events);
        put(d, ")");
    }
    if (n->where != NULL) {
        put(d, " (where ");
        put_expr(d, n->where);
        put(d, ")");
    }
    if (n->nnotify_opts > 0) {
        put(d, " (notify-options");
        for (int i = 0; i < n->nnotify_opts; i++)
            put(d, " notify-history");
        put(d, ")");
    }
    put(d, ")");
}

static void put_create_stream(dumper *d, const sl_create_stream *c)
{
    put(d, "(create-stream");
    if (c->if_not_exists)
        put(d, " if-not-exists");
    put(d, " ");
    put_qname(d, &c->name);
    put(d, " ");
    put_trigger(d, &c->trigger);
    if (c->has_from) {
        put(d, " (from ");
        put_qname(d, &c->from);
        put(d, ")");
    }
    if (c->partition_by.n > 0) {
        put(d, " (partition-by");
        put_list(d, &c->partition_by);
        put(d, ")");
    }
    if (c->has_rollup) {
        put(d, " (rollup-by ");
        put_name(d, c->rollup_tag);
        put(d, ")");
    }
    if (c->nopts > 0) {
        put(d, " (options");
        for (int i = 0; i < c->nopts; i++)
            put_option(d, &c->opts[i]);
        put(d, ")");
    }
    if (c->notify.present)
        put_notify(d, &c->notify);
    if (c->has_into) {
        put(d, " (into ");
        put_qname(d, &c->into);
        put(d, ")");
    }
    if (c->nodelay_create_subtable)
        put(d, " nodelay-create-subtable");
    if (c->output_subtable != NULL) {
        put(d, " (output-subtable ");
        put_expr(d, c->output_subtable);
        put(d, ")");
    }
    if (c->nout_cols > 0) {
        put(d, " (columns");
        for (int i = 0; i < c->nout_cols; i++) {
            put(d, " ");
            if (c->out_cols[i].composite_key)
                put(d, "(");
            put_name(d, c->out_cols[i].name);
            if (c->out_cols[i].composite_key)
                put(d, " composite-key)");
        }
        put(d, ")");
    }
    if (c->ntags > 0) {
        put(d, " (tags");
        for (int i = 0; i < c->ntags; i++) {
            const sl_tag_def *t = &c->tags[i];
            put(d, " (");
            put_name(d, t->name);
            put(d, " ");
            put_type(d, t->type, t->width, t->width != 0);
            put(d, " ");
            put_expr(d, t->expr);
            put(d, ")");
        }
        put(d, ")");
    }
    if (c->query != NULL) {
        put(d, " (query ");
        put_select(d, c->query);
        put(d, ")");
    }
    put(d, ")");
}

/* ---------------------------------------------------------------- statements */

static void put_stmt(dumper *d, const sl_stmt *st)
{
    switch (st->kind) {
    case SL_STMT_CREATE_DATABASE: {
        const sl_create_database *c = &st->u.create_db;
        put(d, "(create-database");
        if (c->if_not_exists)
            put(d, " if-not-exists");
        put(d, " ");
        put_name(d, c->name);
        if (c->precision != NULL) {
            put(d, " (precision ");
            put_string(d, c->precision, strlen(c->precision));
            put(d, ")");
        }
        if (c->vgroups >= 0)
            putf(d, " (vgroups %" PRId64 ")", c->vgroups);
        put(d, ")");
        break;
    }
    case SL_STMT_DROP_DATABASE: put_drop(d, "drop-database", &st->u.drop); break;
    case SL_STMT_USE:
        put(d, "(use ");
        put_name(d, st->u.use_db);
        put(d, ")");
        break;
    case SL_STMT_SHOW: put_show(d, &st->u.show); break;
    case SL_STMT_CREATE_STABLE: {
        const sl_create_stable *c = &st->u.create_stable;
        put(d, "(create-stable");
        if (c->if_not_exists)
            put(d, " if-not-exists");
        put(d, " ");
        put_qname(d, &c->name);
        put_column_defs(d, "columns", c->ncols, c->cols);
        put_column_defs(d, "tags", c->ntags, c->tags);
        put(d, ")");
        break;
    }
    case SL_STMT_CREATE_TABLE: {
        const sl_create_table *c = &st->u.create_table;
        put(d, "(create-table");
        if (c->if_not_exists)
            put(d, " if-not-exists");
        put(d, " ");
        put_qname(d, &c->name);
        put_column_defs(d, "columns", c->ncols, c->cols);
        put(d, ")");
        break;
    }
    case SL_STMT_CREATE_SUBTABLES:
        put(d, "(create-subtables");
        for (int i = 0; i < st->u.create_subtables.n; i++) {
            const sl_create_subtable *s = &st->u.create_subtables.items[i];
            put(d, " (subtable");
            if (s->if_not_exists)
                put(d, " if-not-exists");
            put(d, " ");
            put_qname(d, &s->name);
            put(d, " (using ");
            put_qname(d, &s->stable);
            put(d, ")");
            if (s->ntag_names > 0)
                put_names(d, "tag-names", s->ntag_names, s->tag_names);
            put(d, " (tags");
            put_list(d, &s->tag_values);
            put(d, "))");
        }
        put(d, ")");
        break;
    case SL_STMT_DROP_TABLE: put_drop(d, "drop-table", &st->u.drop); break;
    case SL_STMT_DROP_STABLE: put_drop(d, "drop-stable", &st->u.drop); break;
    case SL_STMT_DROP_STREAM: put_drop(d, "drop-stream", &st->u.drop); break;
    case SL_STMT_DESCRIBE:
        put(d, "(describe ");
        put_qname(d, &st->u.describe);
        put(d, ")");
        break;
    case SL_STMT_INSERT: put_insert(d, &st->u.insert); break;
    case SL_STMT_DELETE:
        put(d, "(delete ");
        put_qname(d, &st->u.del.table);
        if (st->u.del.where != NULL) {
            put(d, " (where ");
            put_expr(d, st->u.del.where);
            put(d, ")");
        }
        put(d, ")");
        break;
    case SL_STMT_SELECT: put_select(d, st->u.select); break;
    case SL_STMT_CREATE_STREAM: put_create_stream(d, &st->u.create_stream); break;
    case SL_STMT_START_STREAM:
    case SL_STMT_STOP_STREAM: {
        const sl_stream_ctl *c = &st->u.stream_ctl;
        put(d, st->kind == SL_STMT_START_STREAM ? "(start-stream" : "(stop-stream");
        if (c->if_exists)
            put(d, " if-exists");
        if (c->ignore_untreated)
            put(d, " ignore-untreated");
        put(d, " ");
        put_qname(d, &c->name);
        put(d, ")");
        break;
    }
    case SL_STMT_DROP_SNODE: {
        char num[32];
        snprintf(num, sizeof(num), "(drop-snode %lld)", (long long)st->u.drop_node.id);
        put(d, num);
        break;
    }
    }
}

/* Keeps a NUL after the text (not counted in len), as sl_buf_printf does. */
static int finish(dumper *d)
{
    if (d->rc == 0)
        d->rc = sl_buf_reserve(d->out, 1);
    if (d->rc == 0)
        d->out->data[d->out->len] = '\0';
    return d->rc;
}

int sl_ast_dump(const sl_stmt *stmt, sl_buf *out)
{
    dumper d = {out, 0};
    put_stmt(&d, stmt);
    return finish(&d);
}

int sl_ast_dump_expr(const sl_expr *e, sl_buf *out)
{
    dumper d = {out, 0};
    put_expr(&d, e);
    return finish(&d);
}
