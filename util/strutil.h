/* strutil: small string predicates the file-name checks share. */
#ifndef CP_STRUTIL_H
#define CP_STRUTIL_H

#include <stdbool.h>
#include <string.h>

/* s is a name ending in suffix, longer than the suffix alone ("x.gz", not ".gz"). */
static inline bool cp_has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

#endif
