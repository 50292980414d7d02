/*
 * exec_int.h - helpers shared by the operators of common/exec. Internal.
 */
#ifndef SL_EXEC_INT_H
#define SL_EXEC_INT_H

#include "exec.h"

/*
 * Appends the grouping key of row i to kb: for each key column a presence byte (0 for
 * NULL) and the value's bytes (length-prefixed for strings). Equal keys give equal bytes.
 * Returns 0 or SL_ENOMEM.
 */
int sl__key_bytes(const sl_column **kc, int nkeys, uint32_t i, sl_buf *kb);

#endif
