/* jsonread: typed access to cJSON values that reports errors by JSON path.
 *
 * A cp_jpath is the "$.layers[3].kernel" string of the value being read; the
 * helpers append to it and restore it, so an error always names exactly the
 * offending value. */
#ifndef CP_JSONREAD_H
#define CP_JSONREAD_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "cp_error.h"

typedef struct {
    const char *file; /* name used in messages */
    char path[512];   /* JSON path of the value being read */
    cp_error *err;
} cp_jctx;

/* Parses text (len bytes, with text[len] == 0) into a cJSON tree; on failure
 * reports line:column. */
cJSON *cp_json_parse(const char *text, size_t len, const char *file, cp_error *err);

/* Reads a whole file into a NUL-terminated buffer (caller frees); a name
 * ending in ".gz" is read through zlib (a measurement kept compressed). */
char *cp_read_file(const char *path, size_t *len, cp_error *err);

/* cp_read_file then cp_json_parse: the tree (caller deletes) or NULL. */
cJSON *cp_json_read_file(const char *path, cp_error *err);

/* Path stack: push returns the previous length, pop restores it. */
size_t cp_jpush_key(cp_jctx *c, const char *key);
size_t cp_jpush_index(cp_jctx *c, int index);
void cp_jpop(cp_jctx *c, size_t mark);

/* Error at the current path (optionally extended by key). Returns -1. */
int cp_jfail(cp_jctx *c, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Getters. `obj` must be an object. Missing optional fields take `def`.
 * Numbers may be bare or {"value": N, "source": "..."}. */
const cJSON *cp_jget(const cJSON *obj, const char *key);
int cp_jint(cp_jctx *c, const cJSON *obj, const char *key, bool required, long long def, long long min,
            long long max, long long *out);
int cp_jnum(cp_jctx *c, const cJSON *obj, const char *key, bool required, double def, double min, double max,
            double *out);
int cp_jbool(cp_jctx *c, const cJSON *obj, const char *key, bool def, bool *out);
int cp_jstr(cp_jctx *c, const cJSON *obj, const char *key, bool required, const char **out);
/* One positive integer or a two-element array [h, w]. */
int cp_jpair(cp_jctx *c, const cJSON *obj, const char *key, bool required, int def, int min, int out[2]);

/* Rejects keys of obj that are not in the NULL-terminated list `known`. */
int cp_jonly(cp_jctx *c, const cJSON *obj, const char *const *known);

#endif
