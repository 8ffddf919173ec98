/* --mode and --eager-profile, shared by predict, choose and sweep. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

int cp_mode_option(const cp_options *o, cp_mode *mode, cp_eager_costs *costs, int *have_costs, cp_algos *algos,
                   double *workspace_mb, bool *channels_last)
{
    *channels_last = false;
    *mode = CP_MODE_HARNESS;
    *have_costs = 0;
    *algos = CP_ALGOS_FIND;
    *workspace_mb = 0; /* not given */
    if (o->mode && cp_mode_parse(o->mode, mode))
        return cp_bad("--mode: expected harness (kernels and launch gaps, as cnnperf-measure) or eager (as PyTorch "
                      "runs it), got '%s'",
                      o->mode);
    /* the graph API unless the legacy one is asked for, as cnnperf-measure */
    bool legacy = o->conv_api && strcmp(o->conv_api, "legacy") == 0;
    if (o->conv_api && !legacy && strcmp(o->conv_api, "graph") != 0)
        return cp_bad("--conv-api: expected legacy or graph, got '%s'", o->conv_api);
    if (*mode == CP_MODE_EAGER && legacy)
        return cp_bad("--conv-api legacy: eager mode predicts PyTorch, whose convolutions go through cuDNN's graph "
                      "API (--conv-api graph)");
    if (!legacy)
        *algos = CP_ALGOS_PYTORCH;
    if (o->workspace_mb) {
        char *end = NULL;
        double mb = strtod(o->workspace_mb, &end);
        if (!*o->workspace_mb || *end || !(mb >= 0) || mb > 1 << 24)
            return cp_bad("--workspace-mb: expected a number of MiB from 0 to 16777216, got '%s'", o->workspace_mb);
        if (*mode == CP_MODE_EAGER)
            return cp_bad("--workspace-mb %s: a limit of cnnperf-measure's (harness mode); PyTorch takes what "
                          "memory is free",
                          o->workspace_mb);
        *workspace_mb = cp_workspace_limit_mb(mb);
    }
    *workspace_mb = cp_run_workspace_mb(*mode == CP_MODE_EAGER, *workspace_mb);
    if (o->memory_format) {
        *channels_last = strcmp(o->memory_format, "channels_last") == 0;
        if (!*channels_last && strcmp(o->memory_format, "nchw") != 0)
            return cp_bad("--memory-format: expected nchw or channels_last, got '%s'", o->memory_format);
        if (*channels_last && *mode != CP_MODE_EAGER)
            return cp_bad("--memory-format channels_last: harness mode predicts cnnperf-measure, which trains NCHW; "
                          "channels-last is for --mode eager (PyTorch)");
    }
    if (o->eager_profile && *mode != CP_MODE_EAGER)
        return cp_bad("--eager-profile %s: host costs are for --mode eager", o->eager_profile);
    if (o->eager_profile) {
        cp_error err;
        if (cp_eager_costs_load(o->eager_profile, costs, &err))
            return cp_bad("%s", err.msg);
        *have_costs = 1;
    }
    return 0;
}
