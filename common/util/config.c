/*
 * config.c - key = value configuration files (see config.h).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

int sl_config_load(const char *path, sl_config_fn fn, void *arg, sl_error *err)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return sl_error_set(err, SL_EIO, 0, 0, "cannot read config %s: %s", path, strerror(errno));
    char line[4096];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        size_t n = strlen(line);
        if (n == sizeof(line) - 1 && line[n - 1] != '\n') {
            rc = sl_error_set(err, SL_ELIMIT, lineno, 0, "%s:%d: line too long", path, lineno);
            break;
        }
        char *s = trim(line);
        if (*s == '\0' || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (eq == NULL) {
            rc = sl_error_set(err, SL_EINVAL, lineno, 0, "%s:%d: expected key = value", path,
                              lineno);
            break;
        }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        size_t vl = strlen(val);
        if (vl >= 2 && val[0] == '"' && val[vl - 1] == '"') {
            val[vl - 1] = '\0';
            val++;
        }
        if (*key == '\0') {
            rc = sl_error_set(err, SL_EINVAL, lineno, 0, "%s:%d: empty key", path, lineno);
            break;
        }
        rc = fn(arg, key, val, lineno, err);
    }
    fclose(f);
    return rc;
}
