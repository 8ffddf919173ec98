/* jsonwrite: one way to put a cJSON tree on a stream or into a file. */
#ifndef CP_JSONWRITE_H
#define CP_JSONWRITE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "cp_error.h"

/* Prints root, indented or (compact) on one line, and a newline, then frees
 * root. 0, or -1 when root is NULL (a tree that could not be built), the
 * text could not be made, or the stream has a write error. */
int cp_json_write(FILE *f, cJSON *root, bool compact);

/* cp_json_write into path through a temporary renamed over it when complete
 * (util/atomic_file.h; "-" or NULL: standard output); frees root either way.
 * 0, or -1 with err naming the file; an earlier file at path is untouched. */
int cp_json_write_file(const char *path, cJSON *root, bool compact, cp_error *err);

#endif
