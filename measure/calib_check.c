#include "calib_check.h"
#include "srcpath.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cal_rank = -1, cal_ranks = 1;
char cal_host[64] = "?";
const char *cal_where = "start-up";
#ifdef CNNPERF_HAVE_NCCL
ncclComm_t cal_nccl_comm = NULL;
#endif
#ifdef CNNPERF_HAVE_MPI
int cal_mpi_up = 0;
#endif

static void prefix(int always)
{
    if (cal_ranks > 1 || (always && cal_rank >= 0))
        fprintf(stderr, "cnnperf-calibrate: rank %d of %d on %s: ", cal_rank, cal_ranks, cal_host);
    else
        fprintf(stderr, "cnnperf-calibrate: ");
}

/* Ends every rank: a rank that merely exited would leave the others
 * waiting in a collective until mpirun noticed. */
static void __attribute__((noreturn)) end_job(int status)
{
    fflush(stdout);
    fflush(stderr);
#ifdef CNNPERF_HAVE_NCCL
    if (cal_nccl_comm) {
        ncclComm_t c = cal_nccl_comm;
        cal_nccl_comm = NULL;
        ncclCommAbort(c); /* best effort: we are failing already */
    }
#endif
#ifdef CNNPERF_HAVE_MPI
    if (cal_mpi_up && cal_ranks > 1)
        MPI_Abort(MPI_COMM_WORLD, status);
#endif
    exit(status);
}

static void __attribute__((noreturn)) vfail(int status, const char *fmt, va_list ap)
{
    prefix(1);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    end_job(status);
}

void cal_fail(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(status, fmt, ap);
    va_end(ap);
}

void cal_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(CAL_EXIT_RUNTIME, fmt, ap);
    va_end(ap);
}

void cal_say(const char *fmt, ...)
{
    prefix(0);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

void cal_cuda_fail(cudaError_t e, const char *call, const char *file, int line)
{
    cal_die("at '%s': %s:%d: %s: %s (%s)%s", cal_where, cm_short_file(file), line, call, cudaGetErrorString(e),
            cudaGetErrorName(e),
            e == cudaErrorMemoryAllocation ? "; try smaller sizes (--gemm-size, --max-bytes) or --quick" : "");
}

void cal_cublas_fail(cublasStatus_t s, const char *call, const char *file, int line)
{
    cal_die("at '%s': %s:%d: %s: %s (%s)", cal_where, cm_short_file(file), line, call, cublasGetStatusString(s),
            cublasGetStatusName(s));
}

void cal_nvrtc_fail(nvrtcResult r, const char *call, const char *file, int line)
{
    cal_die("at '%s': %s:%d: %s: %s", cal_where, cm_short_file(file), line, call, nvrtcGetErrorString(r));
}

#ifdef CNNPERF_HAVE_NCCL
void cal_nccl_fail(ncclResult_t r, const char *call, const char *file, int line)
{
    const char *last = ncclGetLastError(cal_nccl_comm);
    cal_die("at '%s': %s:%d: %s: %s%s%s", cal_where, cm_short_file(file), line, call, ncclGetErrorString(r),
            last && *last ? ": " : "", last && *last ? last : "");
}
#endif

#ifdef CNNPERF_HAVE_MPI
void cal_mpi_fail(int code, const char *call, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "MPI error %d", code);
    cal_die("at '%s': %s:%d: %s: %s", cal_where, cm_short_file(file), line, call, msg);
}
#endif

void *cal_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        cal_die("out of host memory at '%s' (%zu x %zu bytes)", cal_where, n, size);
    return p;
}

double cal_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double cal_min(const double *v, int n)
{
    double m = n > 0 ? v[0] : 0;
    for (int i = 1; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}
