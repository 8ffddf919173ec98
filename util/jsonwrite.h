/* jsonwrite: one way to put a cJSON tree on a stream. */
#ifndef CP_JSONWRITE_H
#define CP_JSONWRITE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

/* Prints root, indented or (compact) on one line, and a newline, then frees
 * root. 0, or -1 when root is NULL (a tree that could not be built), the
 * text could not be made, or the stream has a write error. */
int cp_json_write(FILE *f, cJSON *root, bool compact);

#endif
