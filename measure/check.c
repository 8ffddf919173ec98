#include "check.h"
#include "gpus.h"
#include "srcpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cm_where = "start-up";
int cm_batch = 0;

static void oom_hint(void)
{
    fprintf(stderr, "out of GPU memory at '%s' with --batch %d (try a smaller --batch): ", cm_where, cm_batch);
}

void cm_cuda_fail(cudaError_t e, const char *call, const char *file, int line)
{
    fprintf(stderr, "cnnperf-measure: ");
    if (e == cudaErrorMemoryAllocation)
        oom_hint();
    else
        fprintf(stderr, "at '%s': ", cm_where);
    fprintf(stderr, "%s:%d: %s: %s (%s)\n", cm_short_file(file), line, call, cudaGetErrorString(e),
            cudaGetErrorName(e));
    exit(CM_EXIT_RUNTIME);
}

void cm_cudnn_fail(cudnnStatus_t s, const char *call, const char *file, int line)
{
    /* cuDNN 9 keeps a more specific message of the last failure. */
    char detail[512] = "";
    cudnnGetLastErrorString(detail, sizeof detail);
    for (char *p = detail; *p; p++)
        if (*p == '\n')
            *p = ' ';
    fprintf(stderr, "cnnperf-measure: ");
    if (s == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED ||
        s == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
        oom_hint();
    else
        fprintf(stderr, "at '%s': ", cm_where);
    fprintf(stderr, "%s:%d: %s: %s (%d)%s%s\n", cm_short_file(file), line, call, cudnnGetErrorString(s), (int)s,
            detail[0] ? ": " : "", detail);
    exit(CM_EXIT_RUNTIME);
}

void cm_cublas_fail(cublasStatus_t s, const char *call, const char *file, int line)
{
    fprintf(stderr, "cnnperf-measure: ");
    if (s == CUBLAS_STATUS_ALLOC_FAILED)
        oom_hint();
    else
        fprintf(stderr, "at '%s': ", cm_where);
    fprintf(stderr, "%s:%d: %s: %s (%s)\n", cm_short_file(file), line, call, cublasGetStatusString(s),
            cublasGetStatusName(s));
    exit(CM_EXIT_RUNTIME);
}

void cm_nvrtc_fail(nvrtcResult r, const char *call, const char *file, int line)
{
    fprintf(stderr, "cnnperf-measure: at '%s': %s:%d: %s: %s\n", cm_where, cm_short_file(file), line, call,
            nvrtcGetErrorString(r));
    exit(CM_EXIT_RUNTIME);
}

void *cm_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "cnnperf-measure: out of host memory at '%s'\n", cm_where);
        exit(CM_EXIT_RUNTIME);
    }
    return p;
}

int cm_gpu_count(const char *who)
{
    return gpus_or_skip("cnnperf-measure", who);
}
