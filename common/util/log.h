/*
 * log.h - structured, levelled log lines on stderr for the daemons.
 *
 * Every line is "2026-01-02T03:04:05.678Z LEVEL component: message key=value ...": one
 * event per line, UTC timestamps with milliseconds, so operators can grep and tools can
 * split on spaces. Lines below the process-wide level are dropped before formatting. One
 * write(2) per line keeps lines from different threads whole.
 */
#ifndef SL_LOG_H
#define SL_LOG_H

typedef enum sl_log_level {
    SL_LOG_DEBUG = 0,
    SL_LOG_INFO = 1,
    SL_LOG_WARN = 2,
    SL_LOG_ERROR = 3
} sl_log_level;

/* Sets the lowest level written (default SL_LOG_INFO). Call before threads start. */
void sl_log_set_level(sl_log_level lvl);

/* Parses "debug", "info", "warn" or "error" into *out; returns 0 or SL_EINVAL. */
int sl_log_level_parse(const char *s, sl_log_level *out);

/* Writes one line at lvl for component (borrowed, e.g. "mnode"). Any thread. */
void sl_log(sl_log_level lvl, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
