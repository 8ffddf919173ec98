/* srcpath: how the measurement programs name a source file in an error. */
#ifndef CM_SRCPATH_H
#define CM_SRCPATH_H

#include <string.h>

/* __FILE__ is an absolute path under CMake: keep "measure/x.c" (or the
 * base name of a file outside measure/). */
static inline const char *cm_short_file(const char *file)
{
    const char *m = strstr(file, "measure/");
    if (m)
        return m;
    const char *slash = strrchr(file, '/');
    return slash ? slash + 1 : file;
}

#endif
