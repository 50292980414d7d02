/*
 * ast.h - the abstract syntax tree of every statement Sluice accepts.
 *
 * The parser (parser.h) builds these nodes in the arena of an sl_parse_result: nodes,
 * strings and arrays are freed together by sl_parse_result_free(), so no node has its own
 * destructor and every pointer below is owned by that arena. Every node carries the
 * source position (1-based line and column) of its first token so later stages (the
 * planner, stream validation) can report errors at the right place. Identifiers are
 * stored as written, except that quoting backticks are removed; keyword matching is
 * case-insensitive, identifiers are compared case-insensitively by later stages.
 *
 * The tree is plain data: later stages read it and never change it.
 */
#ifndef SL_AST_H
#define SL_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "../types/types.h"

typedef struct sl_pos {
    int line; /* 1-based */
    int col;  /* 1-based, counted in bytes */
} sl_pos;

/* A possibly database-qualified name: db.name, or name with db == NULL. */
typedef struct sl_qname {
    const char *db;   /* NULL when not qualified */
    const char *name; /* never NULL */
    sl_pos pos;
} sl_qname;

/* A duration literal such as 10s or 1n: value and unit letter (b u a s m h d w n y). */
typedef struct sl_duration {
    int64_t value;
    char unit;
    sl_pos pos;
} sl_duration;

/* ---------------------------------------------------------------- expressions */

typedef enum sl_expr_kind {
    SL_EX_LITERAL,     /* lit */
    SL_EX_COLUMN,      /* column: a column, tag, or tbname (name "tbname") */
    SL_EX_STAR,        /* '*' in a select list or COUNT(*) (column.table may qualify) */
    SL_EX_UNARY,       /* unary */
    SL_EX_BINARY,      /* binary */
    SL_EX_FUNC,        /* func: scalar or aggregate call, by name */
    SL_EX_CASE,        /* case_ */
    SL_EX_IN,          /* in: x [NOT] IN (list) */
    SL_EX_BETWEEN,     /* between: x [NOT] BETWEEN lo AND hi */
    SL_EX_ISNULL,      /* isnull: x IS [NOT] NULL */
    SL_EX_LIKE,        /* like: x [NOT] LIKE pattern */
    SL_EX_CAST,        /* cast: CAST(x AS type) */
    SL_EX_PLACEHOLDER, /* placeholder: _twstart ... %%n, %%tbname */
    SL_EX_PSEUDO,      /* pseudo: _wstart, _wend, _wduration, _rowts */
    SL_EX_NOW,         /* NOW / NOW() : the statement's current time */
    SL_EX_TODAY        /* TODAY() : midnight UTC of the statement's current time */
} sl_expr_kind;

typedef enum sl_lit_kind {
    SL_LIT_NULL,
    SL_LIT_BOOL,     /* TRUE / FALSE */
    SL_LIT_INT,      /* decimal or 0x hex integer that fits int64 (sign is a unary minus) */
    SL_LIT_UINT,     /* integer literal above INT64_MAX that fits uint64 */
    SL_LIT_FLOAT,    /* a number with '.' or an exponent */
    SL_LIT_STRING,   /* '...' or "..." with escapes resolved */
    SL_LIT_DURATION  /* 10s, 1n ... (value and unit in dur) */
} sl_lit_kind;

typedef enum sl_unop {
    SL_OP_NEG, /* -x */
    SL_OP_NOT, /* NOT x */
    SL_OP_BITNOT /* ~x */
} sl_unop;

typedef enum sl_binop {
    SL_OP_ADD, SL_OP_SUB, SL_OP_MUL, SL_OP_DIV, SL_OP_MOD,
    SL_OP_EQ, SL_OP_NE, SL_OP_LT, SL_OP_LE, SL_OP_GT, SL_OP_GE,
    SL_OP_AND, SL_OP_OR,
    SL_OP_BITAND, SL_OP_BITOR,
    SL_OP_CONCAT /* || */
} sl_binop;

/* Stream placeholders (spec "Placeholders"). */
typedef enum sl_placeholder {
    SL_PH_TWSTART,         /* _twstart */
    SL_PH_TWEND,           /* _twend */
    SL_PH_TWDURATION,      /* _twduration */
    SL_PH_TWROWNUM,        /* _twrownum */
    SL_PH_TPREV_TS,        /* _tprev_ts */
    SL_PH_TCURRENT_TS,     /* _tcurrent_ts */
    SL_PH_TNEXT_TS,        /* _tnext_ts */
    SL_PH_TPREV_LOCALTIME, /* _tprev_localtime */
    SL_PH_TNEXT_LOCALTIME, /* _tnext_localtime */
    SL_PH_TLOCALTIME,      /* _tlocaltime */
    SL_PH_TGRPID,          /* _tgrpid */
    SL_PH_TIDLESTART,      /* _tidlestart */
    SL_PH_TIDLEEND,        /* _tidleend */
    SL_PH_TROLLUP_TBCOUNT, /* _trollup_tbcount */
    SL_PH_PARTITION_COL,   /* %%n: placeholder.index is n (1-based) */
    SL_PH_TBNAME,          /* %%tbname */
    SL_PH_ROLLUP_TAG,      /* %%rollup_tag */
    SL_PH_TROWS            /* %%trows (only valid as a FROM source; see sl_from) */
} sl_placeholder;

typedef enum sl_pseudo {
    SL_PS_WSTART,    /* _wstart */
    SL_PS_WEND,      /* _wend */
    SL_PS_WDURATION, /* _wduration */
    SL_PS_ROWTS      /* _rowts: the row's timestamp key */
} sl_pseudo;

typedef struct sl_expr sl_expr;

typedef struct sl_expr_list {
    int n;
    sl_expr **items;
} sl_expr_list;

typedef struct sl_case_when {
    sl_expr *when;
    sl_expr *then;
} sl_case_when;

struct sl_expr {
    sl_expr_kind kind;
    sl_pos pos;
    union {
        struct {
            sl_lit_kind kind;
            bool b;             /* BOOL */
            int64_t i;          /* INT */
            uint64_t u;         /* UINT */
            double d;           /* FLOAT */
            const char *s;      /* STRING: NUL terminated (len excludes the NUL) */
            uint32_t len;       /* STRING length in bytes */
            sl_duration dur;    /* DURATION */
        } lit;
        struct {
            const char *table;  /* qualifier (table name or alias), NULL when none */
            const char *name;   /* column, tag or "tbname" */
        } column;
        struct {
            const char *table;  /* qualifier for t.*, NULL for * */
        } star;
        struct {
            sl_unop op;
            sl_expr *arg;
        } unary;
        struct {
            sl_binop op;
            sl_expr *left;
            sl_expr *right;
        } binary;
        struct {
            const char *name;   /* as written; compare case-insensitively */
            sl_expr_list args;  /* COUNT(*) has one SL_EX_STAR argument */
            bool distinct;      /* COUNT(DISTINCT x) */
        } func;
        struct {
            sl_expr *operand;   /* CASE x WHEN ...: x, or NULL for searched CASE */
            int nwhen;
            sl_case_when *whens;
            sl_expr *else_;     /* NULL when absent */
        } case_;
        struct {
            sl_expr *arg;
            sl_expr_list list;
            bool negated;       /* NOT IN */
        } in;
        struct {
            sl_expr *arg;
            sl_expr *lo;
            sl_expr *hi;
            bool negated;
        } between;
        struct {
            sl_expr *arg;
            bool negated;       /* IS NOT NULL */
        } isnull;
        struct {
            sl_expr *arg;
            sl_expr *pattern;
            bool negated;
        } like;
        struct {
            sl_expr *arg;
            sl_type type;
            uint32_t width;     /* VARCHAR(n)/NCHAR(n) length, else 0 */
        } cast;
        struct {
            sl_placeholder ph;
            int index;          /* %%n: n; otherwise 0 */
        } placeholder;
        struct {
            sl_pseudo ps;
        } pseudo;
    } u;
};

/* ---------------------------------------------------------------- SELECT */

typedef struct sl_select sl_select;

typedef struct sl_select_item {
    sl_expr *expr;
    const char *alias; /* NULL when none */
    /* The item's source text exactly as written (used as the default column name,
     * e.g. "avg(current)"), NUL terminated. */
    const char *text;
} sl_select_item;

typedef enum sl_from_kind {
    SL_FROM_TABLE,    /* a named table (normal, child or super) */
    SL_FROM_SUBQUERY, /* (SELECT ...) */
    SL_FROM_TROWS,    /* %%trows */
    SL_FROM_TBNAME    /* %%tbname */
} sl_from_kind;

typedef struct sl_from {
    sl_from_kind kind;
    sl_qname table;       /* SL_FROM_TABLE */
    sl_select *subquery;  /* SL_FROM_SUBQUERY */
    const char *alias;    /* NULL when none */
    sl_pos pos;
} sl_from;

typedef struct sl_order_item {
    sl_expr *expr;
    bool desc;
    int nulls;            /* 0 default, 1 NULLS FIRST, 2 NULLS LAST */
} sl_order_item;

typedef enum sl_fill_mode {
    SL_FILL_NONE_GIVEN = 0, /* no FILL clause */
    SL_FILL_NONE,
    SL_FILL_NULL,
    SL_FILL_VALUE,
    SL_FILL_PREV,
    SL_FILL_NEXT,
    SL_FILL_LINEAR
} sl_fill_mode;

struct sl_select {
    sl_pos pos;
    bool distinct;
    int nitems;
    sl_select_item *items;
    sl_from *from;             /* NULL for SELECT without FROM (SELECT 1+1) */
    sl_expr *where;            /* NULL when absent */
    sl_expr_list partition_by; /* PARTITION BY list (n == 0 when absent) */
    sl_expr_list group_by;     /* GROUP BY list */
    bool has_interval;
    sl_duration interval;      /* INTERVAL(i [, offset]) */
    bool has_interval_offset;
    sl_duration interval_offset;
    bool has_sliding;
    sl_duration sliding;       /* SLIDING(s) */
    sl_fill_mode fill;         /* FILL(mode [, values]) */
    sl_expr_list fill_values;  /* FILL(VALUE, v1, ...) */
    sl_expr *having;           /* NULL when absent */
    int norder;
    sl_order_item *order;
    bool has_limit;
    int64_t limit;
    bool has_offset;
    int64_t offset;            /* LIMIT n OFFSET m, or LIMIT m, n */
    const char *text;          /* the SELECT's source text, NUL terminated */
};

/* ---------------------------------------------------------------- DDL */

typedef struct sl_column_def {
    const char *name;
    sl_type type;
    uint32_t width;           /* VARCHAR(n)/BINARY(n)/NCHAR(n) length; 0 if none given */
    bool width_given;         /* the statement wrote a length */
    bool composite_key;       /* COMPOSITE KEY / PRIMARY KEY after the type */
    sl_pos pos;
} sl_column_def;

typedef struct sl_create_database {
    bool if_not_exists;
    const char *name;
    const char *precision;    /* "ms"/"us"/"ns" as written, NULL when not given */
    sl_pos precision_pos;
    int64_t vgroups;          /* -1 when not given */
    sl_pos vgroups_pos;
} sl_create_database;

typedef struct sl_create_stable {
    bool if_not_exists;
    sl_qname name;
    int ncols;
    sl_column_def *cols;
    int ntags;
    sl_column_def *tags;
} sl_create_stable;

/* CREATE TABLE t (cols) */
typedef struct sl_create_table {
    bool if_not_exists;
    sl_qname name;
    int ncols;
    sl_column_def *cols;
} sl_create_table;

/* One `[IF NOT EXISTS] t USING st [(tag names)] TAGS (values)` clause. */
typedef struct sl_create_subtable {
    bool if_not_exists;
    sl_qname name;
    sl_qname stable;
    int ntag_names;           /* 0 when no tag name list */
    const char **tag_names;
    sl_pos *tag_name_pos;
    sl_expr_list tag_values;
} sl_create_subtable;

typedef struct sl_create_subtables {
    int n;
    sl_create_subtable *items;
} sl_create_subtables;

/* DROP TABLE/STABLE/STREAM [IF EXISTS] a [, b ...] and DROP DATABASE [IF EXISTS] db */
typedef struct sl_drop {
    bool if_exists;
    int n;
    sl_qname *names;
} sl_drop;

/* DROP SNODE [ON DNODE] id */
typedef struct sl_drop_node {
    int64_t id;
    sl_pos id_pos;
} sl_drop_node;

typedef enum sl_show_kind {
    SL_SHOW_DATABASES,
    SL_SHOW_STABLES,
    SL_SHOW_TABLES,
    SL_SHOW_STREAMS,
    SL_SHOW_VNODES,
    SL_SHOW_DNODES,
    SL_SHOW_SNODES,
    SL_SHOW_MNODES,
    SL_SHOW_CREATE_STREAM,
    SL_SHOW_CREATE_TABLE,
    SL_SHOW_CREATE_STABLE,
    SL_SHOW_CREATE_DATABASE,
    SL_SHOW_VGROUPS           /* SHOW [db.]VGROUPS: the vgroups of one database */
} sl_show_kind;

typedef struct sl_show {
    sl_show_kind kind;
    const char *db;           /* SHOW db.STABLES: the db, else NULL */
    const char *like;         /* LIKE 'pattern', NULL when absent */
    sl_qname name;            /* SHOW CREATE ...: the object */
    bool on_dnode;            /* SHOW VNODES ON DNODE n */
    int64_t dnode;            /* ... n, as written (checked by whoever answers) */
    sl_pos dnode_pos;         /* ... its position */
} sl_show;

/* ---------------------------------------------------------------- DML */

typedef struct sl_insert_item {
    sl_qname table;
    bool has_using;           /* USING st [(tag names)] TAGS (...) */
    sl_qname stable;
    int ntag_names;
    const char **tag_names;
    sl_expr_list tag_values;
    int ncols;                /* 0 when no column list: all columns in order */
    const char **cols;
    sl_pos *col_pos;
    int nrows;
    sl_expr_list *rows;       /* each row's values */
} sl_insert_item;

typedef struct sl_insert {
    int n;
    sl_insert_item *items;
} sl_insert;

typedef struct sl_delete {
    sl_qname table;
    sl_expr *where;           /* NULL deletes everything */
} sl_delete;

/* ---------------------------------------------------------------- streams */

typedef enum sl_trigger_kind {
    SL_TRIG_PERIOD,
    SL_TRIG_SLIDING,   /* SLIDING(s [, offset]) without INTERVAL */
    SL_TRIG_INTERVAL,  /* INTERVAL(i [, ioff]) SLIDING(s [, off]) */
    SL_TRIG_SESSION,
    SL_TRIG_STATE,
    SL_TRIG_EVENT,
    SL_TRIG_COUNT
} sl_trigger_kind;

typedef enum sl_limit_op {
    SL_LIMIT_DURATION,          /* duration_time */
    SL_LIMIT_COUNT,             /* COUNT n */
    SL_LIMIT_AND,               /* duration AND COUNT n */
    SL_LIMIT_OR                 /* duration OR COUNT n */
} sl_limit_op;

typedef struct sl_limit_expr {
    sl_limit_op op;
    sl_duration duration;       /* DURATION, AND, OR */
    int64_t count;              /* COUNT, AND, OR */
    sl_pos pos;
} sl_limit_expr;

typedef enum sl_true_for_role {
    SL_TF_WINDOW, /* plain limit_expr */
    SL_TF_START,  /* start(limit_expr) */
    SL_TF_END     /* end(limit_expr) */
} sl_true_for_role;

typedef struct sl_true_for_arg {
    sl_true_for_role role;
    sl_limit_expr limit;
    sl_pos pos;
} sl_true_for_arg;

typedef struct sl_true_for {
    int n;                      /* 0 when TRUE_FOR is absent; at most 3 */
    sl_true_for_arg args[3];    /* as written (validation checks duplicates) */
    sl_pos pos;
} sl_true_for;

/* ZEROTH_STATE entry: a constant expression or NO_ZEROTH (expr == NULL). */
typedef struct sl_zeroth {
    sl_expr *expr;              /* NULL for NO_ZEROTH */
    sl_pos pos;
} sl_zeroth;

typedef struct sl_trigger {
    sl_trigger_kind kind;
    sl_pos pos;
    /* PERIOD(p [, off]) */
    sl_duration period;
    bool has_period_offset;
    sl_duration period_offset;
    /* INTERVAL(i [, ioff]) */
    sl_duration interval;
    bool has_interval_offset;
    sl_duration interval_offset;
    /* SLIDING(s [, off]) for SLIDING and INTERVAL */
    sl_duration sliding;
    bool has_sliding_offset;
    sl_duration sliding_offset;
    /* SESSION(ts_col, gap) */
    const char *session_col;
    sl_pos session_col_pos;
    sl_duration session_gap;
    /* STATE_WINDOW(exprs) [EXTEND(n)] [ZEROTH_STATE(...)] */
    sl_expr_list state_exprs;
    bool has_extend;
    int64_t extend;
    sl_pos extend_pos;
    int nzeroth;                /* 0 when ZEROTH_STATE is absent */
    sl_zeroth *zeroth;
    sl_pos zeroth_pos;
    /* EVENT_WINDOW(START WITH c END WITH e) or (START WITH (c1, c2, ...) [END WITH e]) */
    sl_expr_list event_starts;  /* one condition for the plain form */
    bool event_multi;           /* the parenthesised multi-start form was used */
    sl_expr *event_end;         /* NULL when END WITH is absent (multi form only) */
    /* COUNT_WINDOW(n [, slide] [, cols]) */
    int64_t count;
    sl_pos count_pos;
    bool has_count_sliding;
    int64_t count_sliding;
    sl_pos count_sliding_pos;
    int ncount_cols;
    const char **count_cols;
    sl_pos *count_col_pos;
    /* STATE and EVENT: TRUE_FOR(...) */
    sl_true_for true_for;
} sl_trigger;

typedef enum sl_stream_opt_kind {
    SL_SOPT_WATERMARK,            /* dur */
    SL_SOPT_EXPIRED_TIME,         /* dur */
    SL_SOPT_IGNORE_DISORDER,
    SL_SOPT_DELETE_RECALC,
    SL_SOPT_DELETE_OUTPUT_TABLE,
    SL_SOPT_FILL_HISTORY,         /* optional start time in expr */
    SL_SOPT_FILL_HISTORY_FIRST,   /* optional start time in expr */
    SL_SOPT_CALC_NOTIFY_ONLY,
    SL_SOPT_LOW_LATENCY_CALC,
    SL_SOPT_PRE_FILTER,           /* expr */
    SL_SOPT_FORCE_OUTPUT,
    SL_SOPT_MAX_DELAY,            /* dur */
    SL_SOPT_EVENT_TYPE,           /* event_types */
    SL_SOPT_IGNORE_NODATA_TRIGGER,
    SL_SOPT_IDLE_TIMEOUT          /* dur */
} sl_stream_opt_kind;

/* Event type bits for EVENT_TYPE(...) and NOTIFY ... ON (...). */
enum {
    SL_EVT_WINDOW_OPEN = 1 << 0,
    SL_EVT_WINDOW_CLOSE = 1 << 1,
    SL_EVT_IDLE = 1 << 2,
    SL_EVT_RESUME = 1 << 3
};

typedef struct sl_stream_opt {
    sl_stream_opt_kind kind;
    sl_pos pos;
    sl_duration dur;      /* WATERMARK, EXPIRED_TIME, MAX_DELAY, IDLE_TIMEOUT */
    sl_expr *expr;        /* PRE_FILTER condition; FILL_HISTORY[_FIRST] start (NULL if none) */
    unsigned events;      /* EVENT_TYPE bits */
} sl_stream_opt;

typedef struct sl_notify {
    bool present;
    int nurls;
    const char **urls;    /* string literals as written, without quotes */
    sl_pos *url_pos;
    bool has_on;
    unsigned on_events;   /* SL_EVT_* bits */
    sl_pos on_pos;
    sl_expr *where;       /* NULL when absent */
    bool notify_history;  /* NOTIFY_OPTIONS(NOTIFY_HISTORY) */
    int nnotify_opts;     /* options written (for duplicate checks) */
    sl_pos pos;
} sl_notify;

typedef struct sl_out_col {
    const char *name;
    bool composite_key;
    sl_pos pos;
} sl_out_col;

typedef struct sl_tag_def {
    const char *name;
    sl_type type;
    uint32_t width;
    sl_expr *expr;
    sl_pos pos;
} sl_tag_def;

typedef struct sl_create_stream {
    bool if_not_exists;
    sl_qname name;
    sl_trigger trigger;
    bool has_from;
    sl_qname from;            /* FROM trigger table */
    sl_expr_list partition_by;/* PARTITION BY list */
    bool has_rollup;
    const char *rollup_tag;   /* ROLLUP BY tag */
    sl_pos rollup_pos;
    int nopts;                /* STREAM_OPTIONS in written order (duplicates kept) */
    sl_stream_opt *opts;
    sl_notify notify;
    bool has_into;
    sl_qname into;
    bool nodelay_create_subtable;
    sl_expr *output_subtable; /* OUTPUT_SUBTABLE(expr), NULL when absent */
    int nout_cols;            /* (col, col [COMPOSITE KEY], ...) */
    sl_out_col *out_cols;
    int ntags;                /* TAGS (name type AS expr, ...) */
    sl_tag_def *tags;
    sl_select *query;         /* AS subquery, NULL when absent */
} sl_create_stream;

/* START STREAM [IF EXISTS] [IGNORE UNTREATED] name / STOP STREAM [IF EXISTS] name */
typedef struct sl_stream_ctl {
    bool if_exists;
    bool ignore_untreated;
    sl_qname name;
} sl_stream_ctl;

/* ---------------------------------------------------------------- statements */

typedef enum sl_stmt_kind {
    SL_STMT_CREATE_DATABASE,
    SL_STMT_DROP_DATABASE,     /* drop (n == 1) */
    SL_STMT_USE,               /* use_db */
    SL_STMT_SHOW,
    SL_STMT_CREATE_STABLE,
    SL_STMT_CREATE_TABLE,      /* normal table */
    SL_STMT_CREATE_SUBTABLES,  /* CREATE TABLE ... USING ... (one or more) */
    SL_STMT_DROP_TABLE,
    SL_STMT_DROP_STABLE,
    SL_STMT_DESCRIBE,          /* describe */
    SL_STMT_INSERT,
    SL_STMT_DELETE,
    SL_STMT_SELECT,
    SL_STMT_CREATE_STREAM,
    SL_STMT_DROP_STREAM,
    SL_STMT_START_STREAM,
    SL_STMT_STOP_STREAM,
    SL_STMT_DROP_SNODE         /* drop_node */
} sl_stmt_kind;

typedef struct sl_stmt {
    sl_stmt_kind kind;
    sl_pos pos;
    const char *text;          /* this statement's source text (without ';'), NUL terminated */
    union {
        sl_create_database create_db;
        sl_drop drop;          /* DROP DATABASE/TABLE/STABLE/STREAM */
        const char *use_db;
        sl_show show;
        sl_create_stable create_stable;
        sl_create_table create_table;
        sl_create_subtables create_subtables;
        sl_qname describe;
        sl_insert insert;
        sl_delete del;
        sl_select *select;
        sl_create_stream create_stream;
        sl_stream_ctl stream_ctl;
        sl_drop_node drop_node;
    } u;
} sl_stmt;

/* Name of a statement kind ("CREATE DATABASE", ...), for messages and tests. */
const char *sl_stmt_kind_name(sl_stmt_kind k);
/* Name of a placeholder as written ("_twstart", "%%trows"; "%%n" for partition columns). */
const char *sl_placeholder_name(sl_placeholder ph);

#endif
