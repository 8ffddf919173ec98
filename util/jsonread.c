#include "jsonread.h"
#include "strutil.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CP_HAVE_ZLIB
#include <zlib.h>
#endif

/* The first key that appears twice in one object under v, its JSON path in
 * path; 0 if none. cJSON keeps both and finds the first, so a second one
 * would be silently ignored, or worse. */
static int duplicate_key(const cJSON *v, char *path, size_t size)
{
    size_t at = strlen(path);
    int index = 0;
    for (const cJSON *it = v->child; it; it = it->next, index++) {
        if (cJSON_IsObject(v))
            for (const cJSON *o = v->child; o != it; o = o->next)
                if (it->string && o->string && strcmp(o->string, it->string) == 0) {
                    snprintf(path + at, size - at, ".%s", it->string);
                    return 1;
                }
        if (cJSON_IsObject(it) || cJSON_IsArray(it)) {
            if (cJSON_IsObject(v))
                snprintf(path + at, size - at, ".%s", it->string ? it->string : "?");
            else
                snprintf(path + at, size - at, "[%d]", index);
            if (duplicate_key(it, path, size))
                return 1;
            path[at] = 0;
        }
    }
    return 0;
}

cJSON *cp_json_parse(const char *text, size_t len, const char *file, cp_error *err)
{
    const char *end = NULL;
    /* text[len] is the terminating NUL: including it lets cJSON reject
     * anything but whitespace after the value. */
    cJSON *root = len ? cJSON_ParseWithLengthOpts(text, len + 1, &end, true) : NULL;
    if (root) {
        char path[512] = "$";
        if (!duplicate_key(root, path, sizeof path))
            return root;
        cJSON_Delete(root);
        cp_fail(err, file, path, "duplicate key: a JSON object names each of its fields once");
        return NULL;
    }
    /* cJSON reports where it stopped; turn that into line:column. */
    size_t off = (end && end >= text && end <= text + len) ? (size_t)(end - text) : 0;
    /* cJSON may stop past the offending token: point at the last non-blank one. */
    if (off >= len)
        off = len ? len - 1 : 0;
    while (off > 0 && strchr(" \t\r\n", text[off]))
        off--;
    int line = 1, col = 1;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    if (len == 0)
        cp_fail(err, file, "$", "empty file, expected a JSON object");
    else
        cp_fail(err, file, "$", "malformed JSON near line %d, column %d", line, col);
    return NULL;
}

/* A whole stream into a NUL-terminated buffer, by chunks from rd (bytes
 * read, 0 at its end, negative on error): one growing buffer for plain and
 * compressed files. NULL with *bad 1 when memory ran out, 2 on a read error. */
typedef long (*chunk_reader)(void *src, char *buf, size_t n);

static char *read_all(void *src, chunk_reader rd, size_t *len, int *bad)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    *bad = buf ? 0 : 1;
    for (long got; buf && (got = rd(src, buf + n, cap - n)) != 0;) {
        if (got < 0) {
            *bad = 2;
            break;
        }
        n += (size_t)got;
        if (n < cap)
            continue;
        char *nb = realloc(buf, 2 * cap + 1);
        if (!nb) {
            *bad = 1;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    if (*bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static long read_stdio(void *src, char *buf, size_t n)
{
    size_t got = fread(buf, 1, n, src);
    return got == 0 && ferror((FILE *)src) ? -1 : (long)got;
}

#ifdef CP_HAVE_ZLIB
static long read_zlib(void *src, char *buf, size_t n)
{
    return gzread(src, buf, n > INT_MAX ? INT_MAX : (unsigned)n);
}
#endif

/* A gzip-compressed file (a name ending in ".gz"), whole, NUL-terminated. */
static char *read_gz(const char *path, size_t *len, cp_error *err)
{
#ifdef CP_HAVE_ZLIB
    gzFile z = gzopen(path, "rb");
    if (!z) {
        cp_fail(err, path, NULL, "cannot open: %s", errno ? strerror(errno) : "out of memory");
        return NULL;
    }
    int bad, zerr = 0;
    char *buf = read_all(z, read_zlib, len, &bad);
    if (bad == 2)
        cp_fail(err, path, NULL, "not a whole gzip file: %s", gzerror(z, &zerr));
    else if (bad)
        cp_fail(err, path, NULL, "out of memory");
    gzclose(z);
    return buf;
#else
    (void)len;
    cp_fail(err, path, NULL, "a gzip-compressed file, and cnnperf was built without zlib (install zlib1g-dev and "
                             "rebuild, or gunzip it)");
    return NULL;
#endif
}

char *cp_read_file(const char *path, size_t *len, cp_error *err)
{
    if (cp_has_suffix(path, ".gz"))
        return read_gz(path, len, err);
    FILE *f = fopen(path, "rb");
    if (!f) {
        cp_fail(err, path, NULL, "cannot open: %s", strerror(errno));
        return NULL;
    }
    int bad;
    char *buf = read_all(f, read_stdio, len, &bad);
    fclose(f);
    if (bad)
        cp_fail(err, path, NULL, bad == 2 ? "read error" : "out of memory");
    return buf;
}

size_t cp_jpush_key(cp_jctx *c, const char *key)
{
    size_t mark = strlen(c->path);
    snprintf(c->path + mark, sizeof c->path - mark, ".%s", key);
    return mark;
}

size_t cp_jpush_index(cp_jctx *c, int index)
{
    size_t mark = strlen(c->path);
    snprintf(c->path + mark, sizeof c->path - mark, "[%d]", index);
    return mark;
}

void cp_jpop(cp_jctx *c, size_t mark)
{
    if (mark < sizeof c->path)
        c->path[mark] = '\0';
}

int cp_jfail(cp_jctx *c, const char *key, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t mark = key ? cp_jpush_key(c, key) : strlen(c->path);
    cp_fail(c->err, c->file, c->path, "%s", msg);
    cp_jpop(c, mark);
    return -1;
}

const cJSON *cp_jget(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* A number, or the "value" of a {"value": N, "source": "..."} object.
 * Returns NULL and reports the offending member for a malformed object;
 * returns NULL without a report for anything that is not an object. */
static const cJSON *number_of(cp_jctx *c, const char *key, const cJSON *v, const char *what, int *reported)
{
    *reported = 0;
    if (!cJSON_IsObject(v))
        return cJSON_IsNumber(v) ? v : NULL;
    size_t mark = cp_jpush_key(c, key);
    const cJSON *inner = NULL;
    for (const cJSON *k = v->child; k && !*reported; k = k->next) {
        if (strcmp(k->string, "value") == 0) {
            inner = k;
            if (!cJSON_IsNumber(k))
                *reported = cp_jfail(c, "value", "must be %s", what) != 0;
        } else if (strcmp(k->string, "source") == 0) {
            if (!cJSON_IsString(k))
                *reported = cp_jfail(c, "source", "must be a string") != 0;
        } else {
            *reported = cp_jfail(c, k->string, "unknown field (expected \"value\" and \"source\")") != 0;
        }
    }
    if (!*reported && !inner)
        *reported = cp_jfail(c, "value", "missing required field") != 0;
    cp_jpop(c, mark);
    return *reported ? NULL : inner;
}

/* The number at key for cp_jint and cp_jnum: 0 with *n set, 1 when the field
 * is absent and not required (the caller's default), -1 after a report. */
static int number_field(cp_jctx *c, const cJSON *obj, const char *key, bool required, const char *what,
                        const cJSON **n)
{
    const cJSON *v = cp_jget(obj, key);
    if (!v)
        return required ? cp_jfail(c, key, "missing required field") : 1;
    int reported;
    *n = number_of(c, key, v, what, &reported);
    if (!*n)
        return reported ? -1 : cp_jfail(c, key, "must be %s", what);
    return 0;
}

int cp_jint(cp_jctx *c, const cJSON *obj, const char *key, bool required, long long def, long long min,
            long long max, long long *out)
{
    const cJSON *n = NULL;
    int rc = number_field(c, obj, key, required, "an integer", &n);
    if (rc) {
        if (rc > 0)
            *out = def;
        return rc > 0 ? 0 : rc;
    }
    double d = n->valuedouble;
    if (!isfinite(d) || d != floor(d))
        return cp_jfail(c, key, "must be an integer, got %g", d);
    if (d < (double)min || d > (double)max) {
        if (min == 1)
            return cp_jfail(c, key, "must be a positive integer (at most %lld), got %g", max, d);
        return cp_jfail(c, key, "must be an integer in [%lld, %lld], got %g", min, max, d);
    }
    *out = (long long)d;
    return 0;
}

int cp_jnum(cp_jctx *c, const cJSON *obj, const char *key, bool required, double def, double min, double max,
            double *out)
{
    const cJSON *n = NULL;
    int rc = number_field(c, obj, key, required, "a number", &n);
    if (rc) {
        if (rc > 0)
            *out = def;
        return rc > 0 ? 0 : rc;
    }
    double d = n->valuedouble;
    if (!isfinite(d) || d < min || d > max)
        return cp_jfail(c, key, "must be a number in [%g, %g], got %g", min, max, d);
    *out = d;
    return 0;
}

int cp_jbool(cp_jctx *c, const cJSON *obj, const char *key, bool def, bool *out)
{
    const cJSON *v = cp_jget(obj, key);
    if (!v) {
        *out = def;
        return 0;
    }
    if (!cJSON_IsBool(v))
        return cp_jfail(c, key, "must be true or false");
    *out = cJSON_IsTrue(v);
    return 0;
}

int cp_jstr(cp_jctx *c, const cJSON *obj, const char *key, bool required, const char **out)
{
    const cJSON *v = cp_jget(obj, key);
    if (!v) {
        if (required)
            return cp_jfail(c, key, "missing required field");
        *out = NULL;
        return 0;
    }
    if (!cJSON_IsString(v) || !v->valuestring || !*v->valuestring)
        return cp_jfail(c, key, "must be a non-empty string");
    *out = v->valuestring;
    return 0;
}

int cp_jpair(cp_jctx *c, const cJSON *obj, const char *key, bool required, int def, int min, int out[2])
{
    const cJSON *v = cp_jget(obj, key);
    if (!v) {
        if (required)
            return cp_jfail(c, key, "missing required field");
        out[0] = out[1] = def;
        return 0;
    }
    const cJSON *item[2] = {v, v};
    if (cJSON_IsArray(v)) {
        if (cJSON_GetArraySize(v) != 2)
            return cp_jfail(c, key, "must be a number or a two-element array [h, w]");
        item[0] = cJSON_GetArrayItem(v, 0);
        item[1] = cJSON_GetArrayItem(v, 1);
    }
    for (int i = 0; i < 2; i++) {
        const cJSON *n = item[i];
        size_t mark = cp_jpush_key(c, key);
        if (cJSON_IsArray(v))
            cp_jpush_index(c, i);
        int rc = 0;
        if (!cJSON_IsNumber(n) || !isfinite(n->valuedouble) || n->valuedouble != floor(n->valuedouble))
            rc = cp_jfail(c, NULL, "must be an integer");
        else if (n->valuedouble < min || n->valuedouble > 1e6)
            rc = cp_jfail(c, NULL, "must be an integer in [%d, 1000000], got %g", min, n->valuedouble);
        cp_jpop(c, mark);
        if (rc)
            return rc;
        out[i] = (int)n->valuedouble;
    }
    return 0;
}

int cp_jonly(cp_jctx *c, const cJSON *obj, const char *const *known)
{
    for (const cJSON *it = obj ? obj->child : NULL; it; it = it->next) {
        bool ok = false;
        for (const char *const *k = known; *k && !ok; k++)
            ok = it->string && strcmp(it->string, *k) == 0;
        if (!ok)
            return cp_jfail(c, it->string ? it->string : "?", "unknown field");
    }
    return 0;
}

cJSON *cp_json_read_file(const char *path, cp_error *err)
{
    size_t len;
    char *text = cp_read_file(path, &len, err);
    if (!text)
        return NULL;
    cJSON *root = cp_json_parse(text, len, path, err);
    free(text);
    return root;
}
