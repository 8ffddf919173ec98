#include "jsonwrite.h"

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

/* cp_atomic_write's writer: root is the tree cp_json_write prints and frees */
static int put_tree(FILE *f, const void *root, int compact)
{
    return cp_json_write(f, (cJSON *)root, compact);
}

int cp_json_write_file(const char *path, cJSON *root, bool compact, cp_error *err)
{
    int rc = cp_atomic_write(path, put_tree, root, compact, err);
    if (rc == -1) /* never opened, so put_tree did not run to free it */
        cJSON_Delete(root);
    return rc ? -1 : 0;
}
