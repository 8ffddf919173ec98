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

#include "cp_error.h"

/* Hands the text of spec, an embedded name under dir ("devices") or a
 * file path, to parse together with the name to use in messages
 * ("devices/h100.json" or the path). An unknown name is refused with the
 * list of the embedded ones; `what` ("device") names the kind in that
 * message. Returns parse's result, or -1. */
typedef int (*cp_parse_fn)(const char *text, size_t len, const char *file, void *obj, cp_error *err);
int cp_resource_load(const char *dir, const char *what, const char *spec, cp_parse_fn parse, void *obj,
                     cp_error *err);

#endif
