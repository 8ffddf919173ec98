#include "resources.h"

#include <string.h>

const cp_resource *cp_resource_find(const char *dir, const char *name)
{
    for (size_t i = 0; i < cp_resource_count; i++)
        if (strcmp(cp_resources[i].dir, dir) == 0 && strcmp(cp_resources[i].name, name) == 0)
            return &cp_resources[i];
    return NULL;
}

int cp_spec_is_path(const char *spec)
{
    size_t n = strlen(spec);
    return strchr(spec, '/') != NULL || (n > 5 && strcmp(spec + n - 5, ".json") == 0);
}
