#include "jsonwrite.h"

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
