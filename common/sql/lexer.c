/*
 * lexer.c - SQL text to tokens; see lexer.h.
 *
 * A hand-written scanner over bytes. Identifiers are ASCII letters, digits and '_' not
 * starting with a digit; `backquoted` names may hold any byte except NUL and a lone backquote
 * (`` stands for one). Strings take '...' or "..." with a doubled quote or a backslash
 * escape (\n \t \r \0 \b \\ \' \"; \% and \_ keep their backslash so LIKE can still see
 * them; any other escaped byte stands for itself). Numbers are decimal or 0x hex integers
 * and floats with a fraction and/or exponent; an integer immediately followed by one of
 * the unit letters b u a s m h d w n y is a duration literal. Comments are "--" to the end
 * of the line and C-style blocks (not nested).
 */
#include "lexer.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"

static const struct {
    const char *name;
    bool reserved;
} kw_table[] = {
#define SL__KW_ROW(name, reserved) {#name, reserved},
    SL_KEYWORDS(SL__KW_ROW)
#undef SL__KW_ROW
};

#define KW_COUNT ((int)(sizeof(kw_table) / sizeof(kw_table[0])))

static int upper(int c)
{
    return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

static bool is_ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(int c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Compares len bytes of s with the upper-case keyword k, case-insensitively. */
static int kw_cmp(const char *s, size_t len, const char *k)
{
    size_t i = 0;
    for (; i < len && k[i] != '\0'; i++) {
        int a = upper((unsigned char)s[i]);
        int b = (unsigned char)k[i];
        if (a != b)
            return a < b ? -1 : 1;
    }
    if (i == len)
        return k[i] == '\0' ? 0 : -1;
    return 1;
}

sl_kw sl_keyword_lookup(const char *s, size_t len)
{
    int lo = 0, hi = KW_COUNT - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = kw_cmp(s, len, kw_table[mid].name);
        if (c == 0)
            return (sl_kw)(mid + 1);
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return SL_KW__NONE;
}

const char *sl_keyword_name(sl_kw kw)
{
    if (kw <= SL_KW__NONE || kw >= SL_KW__COUNT)
        return "";
    return kw_table[kw - 1].name;
}

bool sl_keyword_reserved(sl_kw kw)
{
    if (kw <= SL_KW__NONE || kw >= SL_KW__COUNT)
        return false;
    return kw_table[kw - 1].reserved;
}

void sl_lexer_init(sl_lexer *lx, const char *src, size_t len, sl_arena *arena)
{
    memset(lx, 0, sizeof(*lx));
    lx->lx_src = src;
    lx->lx_end = src + len;
    lx->lx_cur = src;
    lx->lx_line_start = src;
    lx->lx_line = 1;
    lx->lx_arena = arena;
}

static sl_pos pos_at(const sl_lexer *lx, const char *p)
{
    sl_pos pos = {lx->lx_line, (int)(p - lx->lx_line_start) + 1};
    return pos;
}

/* Advances over one byte, keeping the line count. */
static void bump(sl_lexer *lx)
{
    if (*lx->lx_cur == '\n') {
        lx->lx_line++;
        lx->lx_line_start = lx->lx_cur + 1;
    }
    lx->lx_cur++;
}

static int peek_at(const sl_lexer *lx, size_t k)
{
    if ((size_t)(lx->lx_end - lx->lx_cur) <= k)
        return -1;
    return (unsigned char)lx->lx_cur[k];
}

void sl_lexer_excerpt(const char *s, size_t len, char out[SL_EXCERPT_SIZE])
{
    size_t n = len > 40 ? 40 : len;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        out[i] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
    }
    if (n < len) {
        memcpy(out + n, "...", 4);
    } else {
        out[n] = '\0';
    }
}

/* Turns the token starting at start into the lexer's sticky error token. */
static void fail(sl_lexer *lx, sl_token *tok, const char *start, sl_pos pos, int code,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void fail(sl_lexer *lx, sl_token *tok, const char *start, sl_pos pos, int code,
                 const char *fmt, ...)
{
    va_list ap;
    lx->lx_failed = true;
    lx->lx_err_code = code;
    va_start(ap, fmt);
    vsnprintf(lx->lx_err_msg, sizeof(lx->lx_err_msg), fmt, ap);
    va_end(ap);
    memset(&lx->lx_err_tok, 0, sizeof(lx->lx_err_tok));
    lx->lx_err_tok.kind = SL_TK_ERROR;
    lx->lx_err_tok.text = start;
    lx->lx_err_tok.len = (size_t)(lx->lx_cur - start);
    lx->lx_err_tok.pos = pos;
    *tok = lx->lx_err_tok;
}

/* Skips blanks and comments; returns false (after failing tok) on an open comment. */
static bool skip_space(sl_lexer *lx, sl_token *tok)
{
    while (lx->lx_cur < lx->lx_end) {
        int c = (unsigned char)*lx->lx_cur;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            bump(lx);
        } else if (c == '-' && peek_at(lx, 1) == '-') {
            while (lx->lx_cur < lx->lx_end && *lx->lx_cur != '\n')
                lx->lx_cur++;
        } else if (c == '/' && peek_at(lx, 1) == '*') {
            const char *start = lx->lx_cur;
            sl_pos pos = pos_at(lx, start);
            lx->lx_cur += 2;
            for (;;) {
                if (lx->lx_cur >= lx->lx_end) {
                    fail(lx, tok, start, pos, SL_ESYNTAX, "unterminated comment");
                    return false;
                }
                if (*lx->lx_cur == '*' && peek_at(lx, 1) == '/') {
                    lx->lx_cur += 2;
                    break;
                }
                bump(lx);
            }
        } else {
            break;
        }
    }
    return true;
}

static void lex_number(sl_lexer *lx, sl_token *tok)
{
    const char *start = lx->lx_cur;
    sl_pos pos = tok->pos;
    char buf[SL_EXCERPT_SIZE], buf2[SL_EXCERPT_SIZE];

    if (*start == '0' && (peek_at(lx, 1) == 'x' || peek_at(lx, 1) == 'X')) {
        lx->lx_cur += 2;
        uint64_t v = 0;
        bool overflow = false;
        int ndigits = 0;
        while (lx->lx_cur < lx->lx_end && hex_value((unsigned char)*lx->lx_cur) >= 0) {
            if (v >> 60)
                overflow = true;
            v = (v << 4) | (uint64_t)hex_value((unsigned char)*lx->lx_cur);
            ndigits++;
            lx->lx_cur++;
        }
        bool junk = lx->lx_cur < lx->lx_end && is_ident_char((unsigned char)*lx->lx_cur);
        while (lx->lx_cur < lx->lx_end && is_ident_char((unsigned char)*lx->lx_cur))
            lx->lx_cur++;
        if (ndigits == 0 || junk) {
            sl_lexer_excerpt(start, (size_t)(lx->lx_cur - start), buf);
            fail(lx, tok, start, pos, SL_ESYNTAX, "invalid hex literal '%s'", buf);
            return;
        }
        if (overflow) {
            fail(lx, tok, start, pos, SL_ERANGE, "integer literal out of range");
            return;
        }
        tok->kind = SL_TK_INT;
        tok->u = v;
        tok->big = v > (uint64_t)INT64_MAX;
        return;
    }

    uint64_t v = 0;
    bool overflow = false, is_float = false;
    while (lx->lx_cur < lx->lx_end && is_digit((unsigned char)*lx->lx_cur)) {
        unsigned d = (unsigned)(*lx->lx_cur - '0');
        if (v > (UINT64_MAX - d) / 10)
            overflow = true;
        v = v * 10 + d;
        lx->lx_cur++;
    }
    if (lx->lx_cur < lx->lx_end && *lx->lx_cur == '.') {
        is_float = true;
        lx->lx_cur++;
        while (lx->lx_cur < lx->lx_end && is_digit((unsigned char)*lx->lx_cur))
            lx->lx_cur++;
    }
    if (lx->lx_cur < lx->lx_end && (*lx->lx_cur == 'e' || *lx->lx_cur == 'E')) {
        int k = 1;
        if (peek_at(lx, 1) == '+' || peek_at(lx, 1) == '-')
            k = 2;
        if (peek_at(lx, (size_t)k) >= 0 && is_digit(peek_at(lx, (size_t)k))) {
            is_float = true;
            lx->lx_cur += k;
            while (lx->lx_cur < lx->lx_end && is_digit((unsigned char)*lx->lx_cur))
                lx->lx_cur++;
        }
    }
    const char *num_end = lx->lx_cur;
    if (lx->lx_cur < lx->lx_end && is_ident_char((unsigned char)*lx->lx_cur)) {
        /* A unit suffix: only a single unit letter after an integer makes a duration. */
        const char *suffix = lx->lx_cur;
        while (lx->lx_cur < lx->lx_end && is_ident_char((unsigned char)*lx->lx_cur))
            lx->lx_cur++;
        size_t slen = (size_t)(lx->lx_cur - suffix);
        sl_lexer_excerpt(start, (size_t)(lx->lx_cur - start), buf);
        if (is_float) {
            fail(lx, tok, start, pos, SL_ESYNTAX,
                 "invalid duration '%s': the value must be an integer", buf);
            return;
        }
        if (slen != 1 || strchr("buasmhdwny", *suffix) == NULL) {
            sl_lexer_excerpt(suffix, slen, buf2);
            fail(lx, tok, start, pos, SL_ESYNTAX, "invalid duration '%s': unknown unit '%s'",
                 buf, buf2);
            return;
        }
        if (overflow || v > (uint64_t)INT64_MAX) {
            fail(lx, tok, start, pos, SL_ERANGE, "integer literal out of range");
            return;
        }
        tok->kind = SL_TK_DURATION;
        tok->u = v;
        tok->unit = *suffix;
        return;
    }
    if (is_float) {
        /* strtod needs a NUL-terminated copy; only very long numbers go to the arena */
        size_t len = (size_t)(num_end - start);
        char small[64];
        char *copy = small;
        if (len < sizeof(small)) {
            memcpy(small, start, len);
            small[len] = '\0';
        } else {
            copy = sl_arena_strndup(lx->lx_arena, start, len);
        }
        if (copy == NULL) {
            fail(lx, tok, start, pos, SL_ENOMEM, "out of memory");
            return;
        }
        double d = strtod(copy, NULL);
        if (isinf(d)) {
            fail(lx, tok, start, pos, SL_ERANGE, "float literal out of range");
            return;
        }
        tok->kind = SL_TK_FLOAT;
        tok->d = d;
        return;
    }
    if (overflow) {
        fail(lx, tok, start, pos, SL_ERANGE, "integer literal out of range");
        return;
    }
    tok->kind = SL_TK_INT;
    tok->u = v;
    tok->big = v > (uint64_t)INT64_MAX;
}

/* Reads '...' / "..." (quote q) or `...` (q == '`'), decoding into the arena. */
static void lex_quoted(sl_lexer *lx, sl_token *tok, char q)
{
    const char *start = lx->lx_cur;
    const char *r = start + 1;
    bool ident = q == '`';
    /* Find the closing quote first, so the decoded copy takes only what it needs. */
    while (r < lx->lx_end) {
        if (*r == q) {
            if (r + 1 < lx->lx_end && r[1] == q) {
                r += 2;
                continue;
            }
            break;
        }
        r += *r == '\\' && !ident && r + 1 < lx->lx_end ? 2 : 1;
    }
    if (r >= lx->lx_end) {
        lx->lx_cur = lx->lx_end;
        fail(lx, tok, start, tok->pos, SL_ESYNTAX, "unterminated %s",
             ident ? "quoted identifier" : "string literal");
        return;
    }
    const char *close = r;
    /* The decoded text is never longer than the raw text between the quotes. */
    char *out = sl_arena_alloc(lx->lx_arena, (size_t)(close - start));
    if (out == NULL) {
        lx->lx_cur = close + 1;
        fail(lx, tok, start, tok->pos, SL_ENOMEM, "out of memory");
        return;
    }
    size_t n = 0;
    for (r = start + 1; r < close;) {
        char c = *r;
        if (c == q) { /* a doubled quote */
            out[n++] = q;
            r += 2;
        } else if (c == '\\' && !ident) { /* the scan above guarantees r + 1 < close */
            char e = r[1];
            switch (e) {
            case 'n': out[n++] = '\n'; break;
            case 't': out[n++] = '\t'; break;
            case 'r': out[n++] = '\r'; break;
            case '0': out[n++] = '\0'; break;
            case 'b': out[n++] = '\b'; break;
            case '%':
            case '_':
                out[n++] = '\\';
                out[n++] = e;
                break;
            default: out[n++] = e; break;
            }
            r += 2;
        } else {
            out[n++] = c;
            r++;
        }
    }
    out[n] = '\0';
    while (lx->lx_cur <= close) /* step over the literal, counting its lines */
        bump(lx);
    if (ident && n == 0) {
        fail(lx, tok, start, tok->pos, SL_ESYNTAX, "empty quoted identifier");
        return;
    }
    if (ident && memchr(out, '\0', n) != NULL) { /* names are C strings: it would cut them */
        fail(lx, tok, start, tok->pos, SL_ESYNTAX, "NUL byte in quoted identifier");
        return;
    }
    tok->kind = ident ? SL_TK_QIDENT : SL_TK_STRING;
    tok->str = out;
    tok->str_len = (uint32_t)n;
}

static void lex_placeholder(sl_lexer *lx, sl_token *tok)
{
    const char *start = lx->lx_cur;
    lx->lx_cur += 2;
    const char *name = lx->lx_cur;
    while (lx->lx_cur < lx->lx_end && is_ident_char((unsigned char)*lx->lx_cur))
        lx->lx_cur++;
    size_t n = (size_t)(lx->lx_cur - name);
    char buf[SL_EXCERPT_SIZE];
    sl_lexer_excerpt(start, (size_t)(lx->lx_cur - start), buf);
    bool digits = n > 0;
    for (size_t i = 0; i < n; i++)
        digits = digits && is_digit((unsigned char)name[i]);
    if (digits) {
        long long v = 0;
        for (size_t i = 0; i < n && v <= 0x7fffffff; i++)
            v = v * 10 + (name[i] - '0');
        if (v < 1 || v > 0x7fffffff) {
            fail(lx, tok, start, tok->pos, SL_ESYNTAX, "invalid placeholder '%s'", buf);
            return;
        }
        tok->kind = SL_TK_PLACEHOLDER;
        tok->ph = SL_PH_PARTITION_COL;
        tok->index = (int)v;
        return;
    }
    static const struct {
        const char *name;
        sl_placeholder ph;
    } names[] = {{"TROWS", SL_PH_TROWS}, {"TBNAME", SL_PH_TBNAME},
                 {"ROLLUP_TAG", SL_PH_ROLLUP_TAG}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (n > 0 && kw_cmp(name, n, names[i].name) == 0) {
            tok->kind = SL_TK_PLACEHOLDER;
            tok->ph = names[i].ph;
            return;
        }
    }
    fail(lx, tok, start, tok->pos, SL_ESYNTAX, "unknown placeholder '%s'", buf);
}

void sl_lexer_next(sl_lexer *lx, sl_token *tok)
{
    if (lx->lx_failed) {
        *tok = lx->lx_err_tok;
        return;
    }
    memset(tok, 0, sizeof(*tok));
    if (!skip_space(lx, tok))
        return;
    const char *s = lx->lx_cur;
    tok->text = s;
    tok->pos = pos_at(lx, s);
    if (s >= lx->lx_end) {
        tok->kind = SL_TK_EOF;
        return;
    }
    int c = (unsigned char)*s;
    int c1 = peek_at(lx, 1);
    if (is_ident_start(c)) {
        while (lx->lx_cur < lx->lx_end && is_ident_char((unsigned char)*lx->lx_cur))
            lx->lx_cur++;
        tok->kind = SL_TK_IDENT;
        tok->kw = sl_keyword_lookup(s, (size_t)(lx->lx_cur - s));
    } else if (is_digit(c) || (c == '.' && c1 >= 0 && is_digit(c1))) {
        lex_number(lx, tok);
    } else if (c == '\'' || c == '"' || c == '`') {
        lex_quoted(lx, tok, (char)c);
    } else if (c == '%' && c1 == '%') {
        lex_placeholder(lx, tok);
    } else {
        sl_tok_kind k;
        int n = 1;
        switch (c) {
        case '(': k = SL_TK_LPAREN; break;
        case ')': k = SL_TK_RPAREN; break;
        case ',': k = SL_TK_COMMA; break;
        case ';': k = SL_TK_SEMI; break;
        case '.': k = SL_TK_DOT; break;
        case '*': k = SL_TK_STAR; break;
        case '+': k = SL_TK_PLUS; break;
        case '-': k = SL_TK_MINUS; break;
        case '/': k = SL_TK_SLASH; break;
        case '%': k = SL_TK_PERCENT; break;
        case '=': k = SL_TK_EQ; break;
        case '~': k = SL_TK_TILDE; break;
        case '&': k = SL_TK_BITAND; break;
        case '|':
            k = c1 == '|' ? SL_TK_CONCAT : SL_TK_BITOR;
            n = c1 == '|' ? 2 : 1;
            break;
        case '<':
            k = c1 == '=' ? SL_TK_LE : c1 == '>' ? SL_TK_NE : SL_TK_LT;
            n = c1 == '=' || c1 == '>' ? 2 : 1;
            break;
        case '>':
            k = c1 == '=' ? SL_TK_GE : SL_TK_GT;
            n = c1 == '=' ? 2 : 1;
            break;
        case '!':
            if (c1 == '=') {
                k = SL_TK_NE;
                n = 2;
                break;
            }
            /* fall through */
        default: {
            char buf[8];
            if (c >= 0x20 && c < 0x7f)
                snprintf(buf, sizeof(buf), "%c", c);
            else
                snprintf(buf, sizeof(buf), "\\x%02X", (unsigned)c);
            lx->lx_cur++;
            fail(lx, tok, s, tok->pos, SL_ESYNTAX, "unexpected character '%s'", buf);
            return;
        }
        }
        tok->kind = k;
        lx->lx_cur += n;
    }
    if (tok->kind != SL_TK_ERROR)
        tok->len = (size_t)(lx->lx_cur - s);
}
