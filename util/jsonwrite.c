#include "jsonwrite.h"

#include <string.h>

#include "atomic_file.h"

int cp_json_write(FILE *f, cJSON *root, bool compact)
{
    char *text = !root ? NULL : compact ? cJSON_PrintUnformatted(root) : cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return -1;
    fputs(text, f);
    fputc('\n', f);
    cJSON_free(text);
    return ferror(f) ? -1 : 0;
}

int cp_json_write_file(const char *path, cJSON *root, bool compact, cp_error *err)
{
    cp_atomic_file out;
    if (cp_atomic_open(&out, path, err)) {
        cJSON_Delete(root);
        return -1;
    }
    if (cp_json_write(out.f, root, compact)) {
        cp_atomic_abort(&out);
        /* cp_json_write cannot tell a tree it could not print (memory) from a stream that failed */
        return cp_fail(err, path && strcmp(path, "-") ? path : "<stdout>", NULL,
                       "could not write the JSON (out of memory or a write error)");
    }
    return cp_atomic_commit(&out, err);
}
