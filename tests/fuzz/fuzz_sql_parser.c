/*
 * fuzz_sql_parser.c - libFuzzer target for the SQL parser (common/sql).
 *
 * Each input is taken as SQL text: it is parsed, every statement of a successful parse is
 * dumped, and the result is freed. Beyond the sanitizers' checks it asserts the parser's
 * contract: a failure leaves no result and carries a known code and a message that starts
 * with its own "<line>:<col>: " position; a success dumps every statement to a
 * parenthesised line. Seeds live in tests/fuzz/corpus/sql_parser/ (one statement each).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sql/parser.h"

static void check(int ok)
{
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sl_parse_result *r = NULL;
    sl_error err;
    sl_error_clear(&err);
    int rc = sl_parse((const char *)data, size, &r, &err);
    if (rc != 0) {
        check(r == NULL);
        check(rc == SL_ESYNTAX || rc == SL_ERANGE || rc == SL_ELIMIT || rc == SL_ENOMEM);
        check(err.code == rc);
        if (rc != SL_ENOMEM) { /* only running out of memory may come without a position */
            char prefix[32];
            snprintf(prefix, sizeof(prefix), "%d:%d: ", err.line, err.col);
            check(err.line >= 1 && err.col >= 1);
            check(strncmp(err.msg, prefix, strlen(prefix)) == 0);
        }
        return 0;
    }
    sl_buf b;
    sl_buf_init(&b);
    for (int i = 0; i < r->nstmts; i++) {
        sl_buf_reset(&b);
        check(sl_ast_dump(r->stmts[i], &b) == 0);
        check(b.len > 0 && b.data[0] == '(' && b.data[b.len - 1] == ')');
        check(r->stmts[i]->text != NULL && r->stmts[i]->text[0] != '\0');
    }
    sl_buf_fini(&b);
    sl_parse_result_free(r);
    return 0;
}
