/* cp_error: one-line error messages that name the file and the JSON path.
 *
 * Loaders never print: they fill a cp_error and return -1. The program prints
 * err.msg once and exits with status 2 (bad input). */
#ifndef CP_ERROR_H
#define CP_ERROR_H

#include <stdarg.h>

typedef struct {
    char msg[640];
} cp_error;

/* Formats "file: path: message" into err (file or path may be NULL) and
 * returns -1, so loaders can `return cp_fail(...)`. */
int cp_fail(cp_error *err, const char *file, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
