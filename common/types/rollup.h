/*
 * rollup.h - the paths of ROLLUP BY (spec/stream-syntax.txt, "Trigger Grouping"): a
 * VARCHAR/NCHAR tag value such as "f1.w2.l3" names a node of a hierarchy, and a child table
 * with that value belongs to every prefix group f1, f1.w2, f1.w2.l3. The vnode's change
 * filter (which rows a reader gets) and the snode's stream task (which groups a row feeds)
 * must cut paths and hash their groups identically, so both use this one module.
 *
 * A path is valid when it is not empty, has at most SL_ROLLUP_MAX_DEPTH segments separated
 * by SL_ROLLUP_SEP, and every segment is non-empty, has no control byte (< 0x20 or 0x7f)
 * and does not begin or end with a space. Bytes are compared as they are (NCHAR values are
 * UTF-8; multi-byte characters never contain the byte '.').
 */
#ifndef SL_ROLLUP_H
#define SL_ROLLUP_H

#include <stddef.h>
#include <stdint.h>

#include "../util/buf.h"
#include "types.h"

#define SL_ROLLUP_SEP '.'
/* Most segments of a path (deeper paths are invalid: the stream reports an error). */
#define SL_ROLLUP_MAX_DEPTH 64

/*
 * Cuts path s (n bytes, borrowed) into its prefixes: ends[i] is the length of prefix i
 * (prefix i is s[0..ends[i]), the root first, the whole path last); ends has room for
 * SL_ROLLUP_MAX_DEPTH entries. Returns the number of prefixes (>= 1), 0 for an empty
 * path (no group: the spec's "NULL or empty string"), or SL_EINVAL for an invalid path
 * with *why (may be NULL) set to a static reason.
 */
int sl_rollup_prefixes(const char *s, size_t n, uint32_t ends[SL_ROLLUP_MAX_DEPTH],
                       const char **why);

/* The offset of the last segment of a valid path s (0 when it has one segment): the
 * value of %%rollup_tag is s[offset..n). */
size_t sl_rollup_last_segment(const char *s, size_t n);

/* The group id of rollup node `path` (n bytes) of a tag of type t (VARCHAR or NCHAR):
 * sl_group_id of the one key (t, path), the id PARTITION BY that tag gives a table whose
 * value is the path. */
uint64_t sl_rollup_group_id(sl_type t, const char *path, size_t n);

/* Appends the LIKE pattern that matches exactly the descendants of path (n bytes): the
 * path with '\\', '%' and '_' escaped by a backslash, then ".%". No NUL is added. Returns
 * 0 or SL_ENOMEM. */
int sl_rollup_like_pattern(const char *path, size_t n, sl_buf *out);

#endif
