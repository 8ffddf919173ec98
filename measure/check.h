/* check: every CUDA, cuDNN, cuBLAS and NVRTC call goes through one of these
 * macros (the llm.c style). A failure prints one line with file:line, the
 * call as written and the library's own message, then exits with status 1.
 * Running out of memory also names the layer being worked on (cm_where) and
 * suggests a smaller --batch. */
#ifndef CM_CHECK_H
#define CM_CHECK_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>
#include <cudnn.h>

#define CM_EXIT_RUNTIME 1
#define CM_EXIT_BAD_INPUT 2
#define CM_EXIT_SKIP 77 /* CTest's SKIP_RETURN_CODE: no GPU here */

/* What the program is doing, for messages: the layer being set up or run
 * ("conv1"), or a phase ("workspace"). Never NULL. */
extern const char *cm_where;
/* The batch size, so an out-of-memory message can suggest a smaller one. */
extern int cm_batch;

void cm_cuda_fail(cudaError_t e, const char *call, const char *file, int line);
void cm_cudnn_fail(cudnnStatus_t s, const char *call, const char *file, int line);
void cm_cublas_fail(cublasStatus_t s, const char *call, const char *file, int line);
void cm_nvrtc_fail(nvrtcResult r, const char *call, const char *file, int line);

#define cudaCheck(x)                                                                                                   \
    do {                                                                                                               \
        cudaError_t cm_e_ = (x);                                                                                       \
        if (cm_e_ != cudaSuccess)                                                                                      \
            cm_cuda_fail(cm_e_, #x, __FILE__, __LINE__);                                                               \
    } while (0)

#define cudnnCheck(x)                                                                                                  \
    do {                                                                                                               \
        cudnnStatus_t cm_s_ = (x);                                                                                     \
        if (cm_s_ != CUDNN_STATUS_SUCCESS)                                                                             \
            cm_cudnn_fail(cm_s_, #x, __FILE__, __LINE__);                                                              \
    } while (0)

#define cublasCheck(x)                                                                                                 \
    do {                                                                                                               \
        cublasStatus_t cm_s_ = (x);                                                                                    \
        if (cm_s_ != CUBLAS_STATUS_SUCCESS)                                                                            \
            cm_cublas_fail(cm_s_, #x, __FILE__, __LINE__);                                                             \
    } while (0)

#define nvrtcCheck(x)                                                                                                  \
    do {                                                                                                               \
        nvrtcResult cm_r_ = (x);                                                                                       \
        if (cm_r_ != NVRTC_SUCCESS)                                                                                    \
            cm_nvrtc_fail(cm_r_, #x, __FILE__, __LINE__);                                                              \
    } while (0)

/* Host allocation that exits with a message instead of returning NULL. */
void *cm_xcalloc(size_t n, size_t size);

/* The GPUs CUDA sees; with none, one line "cnnperf-measure: <who>skipped: no GPU (why)" on stderr and 0 (no GPU
 * is not a failure: the caller exits CM_EXIT_SKIP, which CTest counts as skipped). who: a rank's prefix or "". */
int cm_gpu_count(const char *who);

#endif
