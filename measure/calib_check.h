/* calib_check: error checking for cnnperf-calibrate, in the style of
 * measure/check.h (one macro per library, the llm.c way), with what a
 * multi-rank run needs on top: every failure prints one line
 *
 *   cnnperf-calibrate: rank R of N on HOST: at 'WHAT': measure/x.c:LINE: CALL: MESSAGE
 *
 * and then ends the whole job (MPI_Abort when several ranks run, so no rank
 * is left waiting in a collective; exit status 1 otherwise). The macros have
 * the names check.h uses, so code reads the same in both programs; the two
 * headers are not included together. check.c's messages name
 * cnnperf-measure and its --batch, which is why this program has its own. */
#ifndef CAL_CHECK_H
#define CAL_CHECK_H

#include <stddef.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>
#ifdef CNNPERF_HAVE_NCCL
#include <nccl.h>
#endif
#ifdef CNNPERF_HAVE_MPI
#include <mpi.h>
#endif

#define CAL_EXIT_RUNTIME 1
#define CAL_EXIT_BAD_INPUT 2
#define CAL_EXIT_SKIP 77 /* CTest's SKIP_RETURN_CODE: no GPU here */

/* Who and where, for messages. cal_rank is -1 until MPI (if any) is up. */
extern int cal_rank, cal_ranks;
extern char cal_host[64];
extern const char *cal_where; /* the benchmark under way, never NULL */

/* One line on stderr, "cnnperf-calibrate: rank R of N on HOST: ...", then
 * the job ends with status 1 (cal_die) or `status` (cal_fail). */
void cal_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void cal_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/* Progress and warnings, prefixed "cnnperf-calibrate: " (and the rank when
 * several run); the job goes on. */
void cal_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void cal_cuda_fail(cudaError_t e, const char *call, const char *file, int line) __attribute__((noreturn));
void cal_cublas_fail(cublasStatus_t s, const char *call, const char *file, int line) __attribute__((noreturn));
void cal_nvrtc_fail(nvrtcResult r, const char *call, const char *file, int line) __attribute__((noreturn));

#define cudaCheck(x)                                                                                                   \
    do {                                                                                                               \
        cudaError_t cal_e_ = (x);                                                                                      \
        if (cal_e_ != cudaSuccess)                                                                                     \
            cal_cuda_fail(cal_e_, #x, __FILE__, __LINE__);                                                             \
    } while (0)

#define cublasCheck(x)                                                                                                 \
    do {                                                                                                               \
        cublasStatus_t cal_s_ = (x);                                                                                   \
        if (cal_s_ != CUBLAS_STATUS_SUCCESS)                                                                           \
            cal_cublas_fail(cal_s_, #x, __FILE__, __LINE__);                                                           \
    } while (0)

#define nvrtcCheck(x)                                                                                                  \
    do {                                                                                                               \
        nvrtcResult cal_r_ = (x);                                                                                      \
        if (cal_r_ != NVRTC_SUCCESS)                                                                                   \
            cal_nvrtc_fail(cal_r_, #x, __FILE__, __LINE__);                                                            \
    } while (0)

#ifdef CNNPERF_HAVE_NCCL
/* The communicator whose last error ncclGetLastError should report, and
 * which a failure aborts (ncclCommAbort) before the job ends; NULL if none. */
extern ncclComm_t cal_nccl_comm;
void cal_nccl_fail(ncclResult_t r, const char *call, const char *file, int line) __attribute__((noreturn));
#define ncclCheck(x)                                                                                                   \
    do {                                                                                                               \
        ncclResult_t cal_n_ = (x);                                                                                     \
        if (cal_n_ != ncclSuccess)                                                                                     \
            cal_nccl_fail(cal_n_, #x, __FILE__, __LINE__);                                                             \
    } while (0)
#endif

#ifdef CNNPERF_HAVE_MPI
extern int cal_mpi_up; /* MPI_Init has run and MPI_Finalize has not */
void cal_mpi_fail(int code, const char *call, const char *file, int line) __attribute__((noreturn));
#define mpiCheck(x)                                                                                                    \
    do {                                                                                                               \
        int cal_m_ = (x);                                                                                              \
        if (cal_m_ != MPI_SUCCESS)                                                                                     \
            cal_mpi_fail(cal_m_, #x, __FILE__, __LINE__);                                                              \
    } while (0)
#endif

/* Host allocation that ends the job with a message instead of returning NULL. */
void *cal_xcalloc(size_t n, size_t size);

/* Monotonic wall clock in seconds. */
double cal_now_s(void);
/* The smallest of v[0..n). */
double cal_min(const double *v, int n);

#endif
