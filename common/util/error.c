/*
 * error.c - names of the sl_err codes and the sl_error record helpers.
 */
#include "error.h"

#include <stdio.h>
#include <string.h>

const char *sl_strerror(int code)
{
    switch (code) {
    case SL_OK: return "success";
    case SL_ENOMEM: return "out of memory";
    case SL_EINVAL: return "invalid argument";
    case SL_ESYNTAX: return "syntax error";
    case SL_ETYPE: return "type error";
    case SL_ENOTFOUND: return "not found";
    case SL_EEXIST: return "already exists";
    case SL_ERANGE: return "value out of range";
    case SL_EOVERFLOW: return "arithmetic overflow";
    case SL_ECORRUPT: return "malformed data";
    case SL_EUNSUPPORTED: return "not supported";
    case SL_EDIVZERO: return "division by zero";
    case SL_ELIMIT: return "limit exceeded";
    case SL_EIO: return "I/O error";
    case SL_ESTATE: return "invalid state";
    case SL_EAMBIGUOUS: return "ambiguous name";
    case SL_ETIMEOUT: return "timed out";
    case SL_EUNAVAILABLE: return "peer unavailable";
    case SL_ESTALE: return "stale placement epoch";
    default: return "unknown error";
    }
}

void sl_error_clear(sl_error *err)
{
    if (err == NULL)
        return;
    err->code = 0;
    err->line = 0;
    err->col = 0;
    err->msg[0] = '\0';
}

static void error_vset(sl_error *err, int code, int line, int col, const char *fmt, va_list ap)
{
    err->code = code;
    err->line = line;
    err->col = col;
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

int sl_error_set(sl_error *err, int code, int line, int col, const char *fmt, ...)
{
    if (err == NULL || err->code != 0)
        return code;
    va_list ap;
    va_start(ap, fmt);
    error_vset(err, code, line, col, fmt, ap);
    va_end(ap);
    return code;
}

int sl_error_reset(sl_error *err, int code, int line, int col, const char *fmt, ...)
{
    if (err == NULL)
        return code;
    va_list ap;
    va_start(ap, fmt);
    error_vset(err, code, line, col, fmt, ap);
    va_end(ap);
    return code;
}
