/*
 * mrequest.c - decoding of the mnode's requests (see mrequest.h), kept apart from the
 * handlers so that what a peer's bytes reach can be fuzzed without a server or catalog.
 */
#include "mrequest.h"

#include <inttypes.h>
#include <string.h>

#include "common/types/block.h"
#include "common/util/buf.h"

int sl__md_parse_one(const char *sql, sl_parse_result **out, sl_error *err)
{
    sl_parse_result *pr = NULL;
    *out = NULL;
    int rc = sl_parse(sql, strlen(sql), &pr, err);
    if (rc < 0)
        return rc;
    if (pr->nstmts != 1) {
        rc = sl_error_set(err, SL_EINVAL, 0, 0, "expected exactly one statement, got %d",
                          pr->nstmts);
        sl_parse_result_free(pr);
        return rc;
    }
    *out = pr;
    return 0;
}

/* Appends name as a backquoted identifier. */
static void put_ident(sl_buf *b, const char *s)
{
    sl_buf_put_u8(b, '`');
    for (; *s; s++) {
        if (*s == '`')
            sl_buf_put_u8(b, '`');
        sl_buf_put_u8(b, (uint8_t)*s);
    }
    sl_buf_put_u8(b, '`');
}

/* Appends row 0 of column c as an SQL literal. */
static void put_literal(sl_buf *b, const sl_column *c)
{
    if (sl_column_is_null(c, 0)) {
        sl_buf_printf(b, "NULL");
    } else if (sl_type_is_var(c->type)) {
        uint32_t n;
        const char *s = sl_column_get_str(c, 0, &n);
        sl_buf_put_u8(b, '\'');
        for (uint32_t i = 0; i < n; i++) {
            if (s[i] == '\'' || s[i] == '\\')
                sl_buf_put_u8(b, (uint8_t)s[i]);
            sl_buf_put_u8(b, (uint8_t)s[i]);
        }
        sl_buf_put_u8(b, '\'');
    } else if (c->type == SL_T_BOOL) {
        sl_buf_printf(b, "%s", sl_column_get_i64(c, 0) ? "true" : "false");
    } else if (c->type == SL_T_FLOAT || c->type == SL_T_DOUBLE) {
        sl_buf_printf(b, "%.17g", sl_column_get_f64(c, 0));
    } else if (sl_type_is_unsigned_int(c->type)) {
        sl_buf_printf(b, "%" PRIu64, sl_column_get_u64(c, 0));
    } else {
        sl_buf_printf(b, "%" PRId64, sl_column_get_i64(c, 0));
    }
}

int sl__md_auto_create_stmt(const Sluice__AutoCreateItem *it, sl_parse_result **out,
                            sl_error *err)
{
    *out = NULL;
    sl_block tv;
    sl_block_init(&tv);
    sl_buf sql;
    sl_buf_init(&sql);
    sl_parse_result *pr = NULL;
    int rc = sl_block_decode(it->tag_values.data, it->tag_values.len, &tv, err);
    if (rc < 0)
        goto done;
    if (tv.nrows != 1 || (it->n_tag_names > 0 && tv.ncols != it->n_tag_names)) {
        rc = sl_error_set(err, SL_EINVAL, 0, 0,
                          "tag values of '%s' must be one row with one column per tag name",
                          it->name);
        goto done;
    }
    sl_buf_printf(&sql, "CREATE TABLE IF NOT EXISTS ");
    put_ident(&sql, it->db);
    sl_buf_put_u8(&sql, '.');
    put_ident(&sql, it->name);
    sl_buf_printf(&sql, " USING ");
    put_ident(&sql, it->db);
    sl_buf_put_u8(&sql, '.');
    put_ident(&sql, it->stable);
    if (it->n_tag_names > 0) {
        sl_buf_printf(&sql, " (");
        for (size_t i = 0; i < it->n_tag_names; i++) {
            if (i)
                sl_buf_put_u8(&sql, ',');
            put_ident(&sql, it->tag_names[i]);
        }
        sl_buf_put_u8(&sql, ')');
    }
    sl_buf_printf(&sql, " TAGS (");
    for (uint32_t i = 0; i < tv.ncols; i++) {
        if (i)
            sl_buf_put_u8(&sql, ',');
        put_literal(&sql, &tv.cols[i]);
    }
    sl_buf_put_u8(&sql, ')');
    rc = sl_parse((const char *)sql.data, sql.len, &pr, err);
    if (rc < 0)
        goto done;
    if (pr->nstmts != 1 || pr->stmts[0]->kind != SL_STMT_CREATE_SUBTABLES) {
        /* Every name is quoted and every value a literal, so this is a bug, not input. */
        rc = sl_error_set(err, SL_EINVAL, 0, 0, "auto-create of '%s' built no single CREATE TABLE",
                          it->name);
        goto done;
    }
    *out = pr;
    pr = NULL;
done:
    sl_parse_result_free(pr);
    sl_buf_fini(&sql);
    sl_block_fini(&tv);
    return rc;
}
