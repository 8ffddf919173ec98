/* host_probe: see host_probe.h. */
#include "host_probe.h"

#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "mpi_util.h"
#include "stats.h"

enum {
    REPS = 7,         /* repetitions of each workload: the median is kept */
    ROUNDS = 16,      /* convolution rounds (three calls each) per repetition */
    LAUNCHES = 64,    /* memsets per repetition */
    CPU_STEPS = 1 << 20,
};

static double median(double *v, int n)
{
    return cm_quantile(v, n, 0.5);
}

static double cpu_ns(void)
{
    double t[REPS];
    volatile uint64_t sink = 0;
    for (int r = 0; r < REPS; r++) {
        uint64_t x = 0x9e3779b97f4a7c15ull + (uint64_t)r;
        double t0 = cm_mpi_now();
        for (int i = 0; i < CPU_STEPS; i++) { /* xorshift64: a dependent chain the compiler cannot fold */
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        t[r] = (cm_mpi_now() - t0) * 1e9 / CPU_STEPS;
        sink += x;
    }
    (void)sink;
    return median(t, REPS);
}

static double launch_us(cm_gpu *g, void *dst)
{
    double t[REPS];
    for (int r = 0; r < REPS; r++) {
        cudaCheck(cudaStreamSynchronize(g->stream));
        double t0 = cm_mpi_now();
        for (int i = 0; i < LAUNCHES; i++)
            cudaCheck(cudaMemsetAsync(dst, 0, 4, g->stream));
        t[r] = (cm_mpi_now() - t0) * 1e6 / LAUNCHES;
    }
    cudaCheck(cudaStreamSynchronize(g->stream));
    return median(t, REPS);
}

/* The tiny convolution's descriptors, buffers and the algorithms cuDNN's
 * heuristics rank first (a fixed choice: no timing decides it). */
typedef struct {
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    cudnnConvolutionFwdAlgo_t fwd;
    cudnnConvolutionBwdDataAlgo_t bwd_data;
    cudnnConvolutionBwdFilterAlgo_t bwd_filter;
    void *bx, *by, *bw, *ws;
    size_t ws_bytes;
} probe_conv;

/* Into out: the first algorithm the heuristics rank that cuDNN can run, else
 * fallback (the three passes' perf results share their leading fields). */
#define FIRST_OK(out, perf, got, fallback)                                                                             \
    do {                                                                                                               \
        int i_ = 0;                                                                                                    \
        while (i_ < (got) && (perf)[i_].status != CUDNN_STATUS_SUCCESS)                                               \
            i_++;                                                                                                      \
        (out) = i_ < (got) ? (perf)[i_].algo : (fallback);                                                             \
    } while (0)

static void conv_setup(cm_gpu *g, probe_conv *c)
{
    enum { N = 1, C = 16, H = 8, W = 8, K = 16, R = 3 };
    cudnnCheck(cudnnCreateTensorDescriptor(&c->x));
    cudnnCheck(cudnnCreateTensorDescriptor(&c->y));
    cudnnCheck(cudnnCreateFilterDescriptor(&c->w));
    cudnnCheck(cudnnCreateConvolutionDescriptor(&c->conv));
    cudnnCheck(cudnnSetTensor4dDescriptor(c->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
    cudnnCheck(cudnnSetTensor4dDescriptor(c->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, H, W));
    cudnnCheck(cudnnSetFilter4dDescriptor(c->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, R));
    cudnnCheck(cudnnSetConvolution2dDescriptor(c->conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                               CUDNN_DATA_FLOAT));
    int got = 0;
    cudnnConvolutionFwdAlgoPerf_t f[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    cudnnCheck(cudnnGetConvolutionForwardAlgorithm_v7(g->dnn, c->x, c->w, c->conv, c->y,
                                                      CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, f));
    cudnnConvolutionBwdDataAlgoPerf_t d[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int got_d = 0;
    cudnnCheck(cudnnGetConvolutionBackwardDataAlgorithm_v7(g->dnn, c->w, c->y, c->conv, c->x,
                                                           CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got_d, d));
    cudnnConvolutionBwdFilterAlgoPerf_t b[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    int got_b = 0;
    cudnnCheck(cudnnGetConvolutionBackwardFilterAlgorithm_v7(g->dnn, c->x, c->y, c->conv, c->w,
                                                             CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got_b, b));
    FIRST_OK(c->fwd, f, got, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
    FIRST_OK(c->bwd_data, d, got_d, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0);
    FIRST_OK(c->bwd_filter, b, got_b, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0);
    size_t a = 0, bb = 0, cc = 0;
    cudnnCheck(cudnnGetConvolutionForwardWorkspaceSize(g->dnn, c->x, c->w, c->conv, c->y, c->fwd, &a));
    cudnnCheck(cudnnGetConvolutionBackwardDataWorkspaceSize(g->dnn, c->w, c->y, c->conv, c->x, c->bwd_data, &bb));
    cudnnCheck(cudnnGetConvolutionBackwardFilterWorkspaceSize(g->dnn, c->x, c->y, c->conv, c->w, c->bwd_filter, &cc));
    c->ws_bytes = a > bb ? a : bb;
    c->ws_bytes = c->ws_bytes > cc ? c->ws_bytes : cc;
    cudaCheck(cudaMalloc(&c->bx, (size_t)N * C * H * W * sizeof(float)));
    cudaCheck(cudaMalloc(&c->by, (size_t)N * K * H * W * sizeof(float)));
    cudaCheck(cudaMalloc(&c->bw, (size_t)K * C * R * R * sizeof(float)));
    cudaCheck(cudaMemsetAsync(c->bx, 0, (size_t)N * C * H * W * sizeof(float), g->stream));
    cudaCheck(cudaMemsetAsync(c->by, 0, (size_t)N * K * H * W * sizeof(float), g->stream));
    cudaCheck(cudaMemsetAsync(c->bw, 0, (size_t)K * C * R * R * sizeof(float), g->stream));
    c->ws = NULL;
    if (c->ws_bytes)
        cudaCheck(cudaMalloc(&c->ws, c->ws_bytes));
}

static void conv_round(cm_gpu *g, probe_conv *c)
{
    const float one = 1.0f, zero = 0.0f;
    cudnnCheck(cudnnConvolutionForward(g->dnn, &one, c->x, c->bx, c->w, c->bw, c->conv, c->fwd, c->ws, c->ws_bytes,
                                       &zero, c->y, c->by));
    cudnnCheck(cudnnConvolutionBackwardData(g->dnn, &one, c->w, c->bw, c->y, c->by, c->conv, c->bwd_data, c->ws,
                                            c->ws_bytes, &zero, c->x, c->bx));
    cudnnCheck(cudnnConvolutionBackwardFilter(g->dnn, &one, c->x, c->bx, c->y, c->by, c->conv, c->bwd_filter, c->ws,
                                              c->ws_bytes, &zero, c->w, c->bw));
}

static void conv_free(probe_conv *c)
{
    cudaCheck(cudaFree(c->bx));
    cudaCheck(cudaFree(c->by));
    cudaCheck(cudaFree(c->bw));
    if (c->ws)
        cudaCheck(cudaFree(c->ws));
    cudnnCheck(cudnnDestroyConvolutionDescriptor(c->conv));
    cudnnCheck(cudnnDestroyFilterDescriptor(c->w));
    cudnnCheck(cudnnDestroyTensorDescriptor(c->y));
    cudnnCheck(cudnnDestroyTensorDescriptor(c->x));
}

static double conv_call_us(cm_gpu *g)
{
    probe_conv c;
    conv_setup(g, &c);
    for (int i = 0; i < 4; i++) /* cuDNN builds its plans on the first calls */
        conv_round(g, &c);
    double t[REPS];
    for (int r = 0; r < REPS; r++) {
        cudaCheck(cudaStreamSynchronize(g->stream));
        double t0 = cm_mpi_now();
        for (int i = 0; i < ROUNDS; i++)
            conv_round(g, &c);
        t[r] = (cm_mpi_now() - t0) * 1e6 / (3.0 * ROUNDS);
    }
    cudaCheck(cudaStreamSynchronize(g->stream));
    conv_free(&c);
    return median(t, REPS);
}

void cm_host_probe_run(cm_gpu *g, cm_host_probe *out)
{
    const char *was = cm_where;
    cm_where = "host probe (cm_host_probe_run)";
    void *dst;
    cudaCheck(cudaMalloc(&dst, 4));
    out->cpu_ns = cpu_ns();
    out->launch_us = launch_us(g, dst);
    out->conv_call_us = conv_call_us(g);
    cudaCheck(cudaFree(dst));
    cm_where = was;
}

void cm_host_probe_pack(const cm_host_probe *p, double out[CM_HOST_PROBE_FIELDS])
{
    out[0] = p->conv_call_us;
    out[1] = p->launch_us;
    out[2] = p->cpu_ns;
}
