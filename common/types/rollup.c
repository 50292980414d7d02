/*
 * rollup.c - ROLLUP BY paths (rollup.h): validation, prefixes, group ids and the LIKE
 * pattern of a node's descendants.
 */
#include "rollup.h"

#include "value.h"

int sl_rollup_prefixes(const char *s, size_t n, uint32_t ends[SL_ROLLUP_MAX_DEPTH],
                       const char **why)
{
    const char *dummy;
    if (why == NULL)
        why = &dummy;
    if (n == 0)
        return 0;
    if (n > UINT32_MAX) {
        *why = "the path is too long";
        return SL_EINVAL;
    }
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != SL_ROLLUP_SEP) {
            unsigned char c = (unsigned char)s[i];
            if (c < 0x20 || c == 0x7f) {
                *why = "a control character in the path";
                return SL_EINVAL;
            }
            continue;
        }
        /* A segment s[start..i) ends here. */
        if (i == start) {
            *why = i == 0 ? "a leading separator"
                   : i == n ? "a trailing separator"
                            : "an empty segment (repeated separator)";
            return SL_EINVAL;
        }
        if (s[start] == ' ' || s[i - 1] == ' ') {
            *why = "a segment with leading or trailing whitespace";
            return SL_EINVAL;
        }
        if (depth == SL_ROLLUP_MAX_DEPTH) {
            *why = "more than 64 segments";
            return SL_EINVAL;
        }
        ends[depth++] = (uint32_t)i;
        start = i + 1;
    }
    return depth;
}

size_t sl_rollup_last_segment(const char *s, size_t n)
{
    for (size_t i = n; i > 0; i--)
        if (s[i - 1] == SL_ROLLUP_SEP)
            return i;
    return 0;
}

uint64_t sl_rollup_group_id(sl_type t, const char *path, size_t n)
{
    sl_value v = sl_value_str(t, path, (uint32_t)n);
    return sl_group_id(&v, 1);
}

int sl_rollup_like_pattern(const char *path, size_t n, sl_buf *out)
{
    size_t at = out->len;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char c = path[i];
        if (c == '\\' || c == '%' || c == '_')
            rc = sl_buf_put(out, "\\", 1);
        if (rc == 0)
            rc = sl_buf_put(out, &c, 1);
    }
    if (rc == 0)
        rc = sl_buf_put(out, ".%", 2);
    if (rc != 0)
        out->len = at;
    return rc;
}
