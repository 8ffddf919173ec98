#include "gpus.h"

#include <cuda_runtime.h>
#include <stdio.h>

int gpus_or_skip(const char *tool, const char *who)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && count > 0)
        return count;
    fprintf(stderr, "%s: %sskipped: no GPU (%s)\n", tool, who,
            cudaGetErrorString(e != cudaSuccess ? e : cudaErrorNoDevice));
    return 0;
}
