/*
 * error.h - error codes and the detailed error record every Sluice layer returns.
 *
 * Functions return 0 on success or a negative sl_err code; sl_strerror() names the code.
 * Messages meant for a user (the SQL position, the rule an option breaks) travel in an
 * sl_error out-parameter filled by sl_error_set(), never in globals or errno. A NULL
 * sl_error pointer is always accepted and means "the caller only wants the code".
 */
#ifndef SL_ERROR_H
#define SL_ERROR_H

#include <stdarg.h>

typedef enum sl_err {
    SL_OK = 0,
    SL_ENOMEM = -1,       /* out of memory */
    SL_EINVAL = -2,       /* invalid argument or value */
    SL_ESYNTAX = -3,      /* SQL syntax error */
    SL_ETYPE = -4,        /* type mismatch or invalid conversion */
    SL_ENOTFOUND = -5,    /* unknown database, table, column or function */
    SL_EEXIST = -6,       /* object already exists */
    SL_ERANGE = -7,       /* value out of range */
    SL_EOVERFLOW = -8,    /* arithmetic overflow */
    SL_ECORRUPT = -9,     /* malformed encoded data */
    SL_EUNSUPPORTED = -10, /* valid but not supported */
    SL_EDIVZERO = -11,    /* division by zero */
    SL_ELIMIT = -12,      /* a size limit was exceeded */
    SL_EIO = -13,         /* I/O or storage failure */
    SL_ESTATE = -14,      /* operation not valid in the current state */
    SL_EAMBIGUOUS = -15,  /* ambiguous name */
    SL_ETIMEOUT = -16,    /* no answer within the time allowed */
    SL_EUNAVAILABLE = -17, /* peer cannot be reached or the connection was lost */
    SL_ESTALE = -18,      /* fenced: the request carries an older placement epoch */
    SL_ERR__MIN = -18
} sl_err;

/* Longest message kept in an sl_error, including the terminating NUL. */
#define SL_ERROR_MSG_MAX 512

/*
 * A detailed error. line/col are 1-based source positions in the statement that caused
 * it, or 0 when the error has no position. The struct is plain data so callers embed it.
 */
typedef struct sl_error {
    int code;                   /* negative sl_err, or 0 when no error was recorded */
    int line;                   /* 1-based line of the offending token, 0 if none */
    int col;                    /* 1-based column of the offending token, 0 if none */
    char msg[SL_ERROR_MSG_MAX]; /* human readable message, always NUL terminated */
} sl_error;

/* Returns a static, human readable name for an sl_err code ("syntax error", ...). */
const char *sl_strerror(int code);

/* Clears *err (NULL-safe). */
void sl_error_clear(sl_error *err);

/*
 * Records code, position and a printf-style message in *err (NULL-safe) and returns code,
 * so callers can write `return sl_error_set(err, SL_EINVAL, 0, 0, "...")`.
 * The first error recorded wins: a later call on an error that already holds a code is
 * ignored, so the innermost, most precise message survives unwinding.
 */
int sl_error_set(sl_error *err, int code, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Like sl_error_set but always overwrites an earlier error. */
int sl_error_reset(sl_error *err, int code, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
