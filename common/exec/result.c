/*
 * result.c - constructing and freeing sl_result (result.h). Formatting lives in
 * result_format.c.
 */
#include "result.h"

#include <stdlib.h>
#include <string.h>

void sl_result_init(sl_result *r)
{
    memset(r, 0, sizeof(*r));
    sl_block_init(&r->rows);
    r->precision = SL_PREC_MS;
}

void sl_result_fini(sl_result *r)
{
    if (r == NULL)
        return;
    if (r->names != NULL)
        for (int i = 0; i < r->ncols; i++)
            free(r->names[i]);
    free(r->names);
    sl_block_fini(&r->rows);
    sl_result_init(r);
}

int sl_result_setup(sl_result *r, int ncols, const char *const *names, const sl_type *types,
                    const uint32_t *widths)
{
    r->names = calloc((size_t)(ncols > 0 ? ncols : 1), sizeof(char *));
    if (r->names == NULL)
        return SL_ENOMEM;
    r->ncols = ncols;
    for (int i = 0; i < ncols; i++) {
        r->names[i] = strdup(names[i]);
        if (r->names[i] == NULL)
            return SL_ENOMEM;
        int rc = sl_block_add_column(&r->rows, types[i], widths ? widths[i] : 0);
        if (rc < 0)
            return rc;
    }
    r->affected = -1;
    return 0;
}

int sl_result_put_str(sl_result *r, int i, const char *s)
{
    sl_column *c = &r->rows.cols[i];
    if (s == NULL)
        return sl_column_append_null(c);
    return sl_column_append_str(c, s, (uint32_t)strlen(s));
}
