/*
 * config.h - the daemons' configuration files: one "key = value" per line.
 *
 * Blank lines and lines starting with '#' are skipped; keys and values are trimmed;
 * values may be quoted with "..." . The daemons map keys onto their command-line flags
 * (`port = 6030` in the file is `--port 6030`), and flags given on the command line win.
 */
#ifndef SL_CONFIG_H
#define SL_CONFIG_H

#include "error.h"

/* Called once per setting; return 0 to go on or a negative code to stop with it. key and
 * value are borrowed for the call. line is the 1-based line number. */
typedef int (*sl_config_fn)(void *arg, const char *key, const char *value, int line,
                            sl_error *err);

/*
 * Reads file `path` and calls fn for every setting in order. Returns 0, SL_EIO when the
 * file cannot be read, SL_EINVAL "path:line: expected key = value" for a malformed line,
 * SL_ELIMIT for a line over 4 KiB, or fn's error.
 */
int sl_config_load(const char *path, sl_config_fn fn, void *arg, sl_error *err);

#endif
