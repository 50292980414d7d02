/*
 * mrequest.h - the mnode's request decoding, apart from the handlers that act on it on
 * the catalog: parsing an ExecRequest's statement and turning an AutoCreateItem (tag
 * values as an encoded block) into the CREATE TABLE ... USING ... TAGS statement it
 * stands for. Nothing here touches the loop, the RPC layer or the catalog, so the fuzz
 * target tests/fuzz/fuzz_rpc_request.c runs exactly the code the daemon runs on a peer's
 * bytes.
 */
#ifndef SL_MREQUEST_H
#define SL_MREQUEST_H

#include "common/sql/parser.h"
#include "common/util/error.h"
#include "mnode.pb-c.h"

/*
 * Parses sql (borrowed, NUL-terminated) and checks that it holds exactly one statement.
 * Returns 0 and *out (caller frees it with sl_parse_result_free), or the parser's error
 * or SL_EINVAL with err set and *out NULL.
 */
int sl__md_parse_one(const char *sql, sl_parse_result **out, sl_error *err);

/*
 * Decodes the tag values of it (borrowed) (one row, one column per tag name when names are given) and
 * builds and parses the statement CREATE TABLE IF NOT EXISTS db.name USING db.stable
 * [(tag names)] TAGS (values), every name quoted and every value a literal. Returns 0 and
 * *out (one CREATE TABLE statement; caller frees it with sl_parse_result_free), or
 * SL_ECORRUPT (tag block), SL_EINVAL or a parse error with err set and *out NULL.
 */
int sl__md_auto_create_stmt(const Sluice__AutoCreateItem *it, sl_parse_result **out,
                            sl_error *err);

#endif
