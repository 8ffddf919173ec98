#include "resources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonread.h"
#include "strutil.h"

const cp_resource *cp_resource_find(const char *dir, const char *name)
{
    for (size_t i = 0; i < cp_resource_count; i++)
        if (strcmp(cp_resources[i].dir, dir) == 0 && strcmp(cp_resources[i].name, name) == 0)
            return &cp_resources[i];
    return NULL;
}

int cp_spec_is_path(const char *spec)
{
    return strchr(spec, '/') != NULL || cp_has_suffix(spec, ".json");
}

int cp_resource_load(const char *dir, const char *what, const char *spec, cp_parse_fn parse, void *obj,
                     cp_error *err)
{
    if (!cp_spec_is_path(spec)) {
        const cp_resource *r = cp_resource_find(dir, spec);
        if (!r) {
            char list[512] = "";
            size_t n = 0;
            for (size_t i = 0; i < cp_resource_count; i++)
                if (strcmp(cp_resources[i].dir, dir) == 0 && n < sizeof list)
                    n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", cp_resources[i].name);
            return cp_fail(err, NULL, NULL, "unknown %s '%s' (built in: %s; or give a path to a .json file)", what,
                           spec, list);
        }
        char file[160];
        snprintf(file, sizeof file, "%s/%s.json", dir, spec);
        return parse(r->text, r->len, file, obj, err);
    }
    size_t len = 0;
    char *text = cp_read_file(spec, &len, err);
    if (!text)
        return -1;
    int rc = parse(text, len, spec, obj, err);
    free(text);
    return rc;
}
