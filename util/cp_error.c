#include "cp_error.h"

#include <stdio.h>
#include <string.h>

int cp_fail(cp_error *err, const char *file, const char *path, const char *fmt, ...)
{
    if (!err)
        return -1;
    size_t n = 0;
    err->msg[0] = '\0';
    if (file && *file)
        n += (size_t)snprintf(err->msg, sizeof err->msg, "%s: ", file);
    if (path && *path && n < sizeof err->msg)
        n += (size_t)snprintf(err->msg + n, sizeof err->msg - n, "%s: ", path);
    if (n < sizeof err->msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg + n, sizeof err->msg - n, fmt, ap);
        va_end(ap);
    }
    /* One line, always: a message built from user input must not span lines. */
    for (char *p = err->msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return -1;
}
