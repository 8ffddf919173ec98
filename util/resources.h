/* resources: the network and device files compiled into the program.
 *
 * The build embeds every JSON file of networks/ and devices/ so that
 * `cnnperf predict --network resnet50 --device h100` works from any
 * directory. Names are file names without ".json". */
#ifndef CP_RESOURCES_H
#define CP_RESOURCES_H

#include <stddef.h>

typedef struct {
    const char *dir;  /* "networks" or "devices" */
    const char *name; /* "resnet50" */
    const char *text;
    size_t len;
} cp_resource;

extern const cp_resource cp_resources[];
extern const size_t cp_resource_count;

const cp_resource *cp_resource_find(const char *dir, const char *name);

/* True when spec names a file rather than an embedded resource. */
int cp_spec_is_path(const char *spec);

#endif
