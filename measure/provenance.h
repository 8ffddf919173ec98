/* provenance: where a measurement comes from, so a result file can be
 * trusted (or not) without the run at hand: the command, the GPU, driver
 * and library versions, host, date, git commit, settings, and the
 * convolution algorithms cudnnFind chose. */
#ifndef CM_PROVENANCE_H
#define CM_PROVENANCE_H

#include <cjson/cJSON.h>

#include "train.h"

typedef struct {
    int argc;
    char **argv;
    int warmup, iters, workspace_mb;
    double setup_s; /* network set-up, algorithm search included */
    const char *launch; /* "stream" or "graph" (--launch) */
    const char *conv_api; /* "legacy" or "graph" (--conv-api) */
} cm_run_info;

cJSON *cm_provenance(const cm_net *n, const cm_run_info *run);

/* The short device id cnnperf predict uses ("h100", "h200", ...) when the
 * GPU's name contains one, else the name itself. */
void cm_device_id(const char *gpu_name, char *id, size_t size);

#endif
