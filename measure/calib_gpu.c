#include "calib_gpu.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spin_kernel.h"
#include "stats.h"

/* No header is included, so NVRTC needs no include path on the GPU
 * machine; the timers and the cache-global load are inline PTX. */
static const char source[] =
    "typedef unsigned short u16;\n"
    "typedef unsigned long long u64;\n"
    "struct alignas(16) f4 { float x, y, z, w; };\n"
    "#define GRID_STRIDE(i, n) for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n);"
    " i += (long long)gridDim.x * blockDim.x)\n"
    "__device__ __forceinline__ u64 gtimer() { u64 t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));"
    " return t; }\n"
    "__device__ __forceinline__ u64 clk() { u64 t; asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(t)); return t; }\n"
    "__device__ __forceinline__ unsigned mix(unsigned x) {\n"
    "    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16; return x; }\n"
    /* uniform in [-1, 1): GEMMs on random data, not zeros (zeros run faster and cooler) */
    "__device__ __forceinline__ float unif(long long i, unsigned seed) {\n"
    "    unsigned h = mix((unsigned)i ^ mix(seed + (unsigned)(i >> 32)));\n"
    "    return (float)(h >> 8) * (2.0f / 16777216.0f) - 1.0f; }\n"
    "extern \"C\" __global__ void fill_f32(float *p, long long n, unsigned seed) {\n"
    "    GRID_STRIDE(i, n) p[i] = unif(i, seed); }\n"
    "extern \"C\" __global__ void fill_u16(u16 *p, long long n, unsigned seed, int bf16) {\n"
    "    GRID_STRIDE(i, n) { float x = unif(i, seed); u16 h;\n"
    "        if (bf16) h = (u16)(__float_as_uint(x) >> 16);\n"
    "        else asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(x));\n"
    "        p[i] = h; } }\n"
    "extern \"C\" __global__ void copy4(const f4 *__restrict__ a, f4 *__restrict__ b, long long n) {\n"
    "    GRID_STRIDE(i, n) b[i] = a[i]; }\n"
    "extern \"C\" __global__ void triad4(f4 *__restrict__ a, const f4 *__restrict__ b, const f4 *__restrict__ c,"
    " float s, long long n) {\n"
    "    GRID_STRIDE(i, n) { f4 x = b[i], y = c[i], r;\n"
    "        r.x = x.x + s * y.x; r.y = x.y + s * y.y; r.z = x.z + s * y.z; r.w = x.w + s * y.w; a[i] = r; } }\n"
    "extern \"C\" __global__ void empty() {}\n"
    "extern \"C\" __global__ void tiny(int *p) { if (threadIdx.x == 0) p[blockIdx.x] += 1; }\n"
    CM_SPIN_KERNEL_SRC /* launches queue up behind it */
    /* node i (stride bytes apart) holds the address of node next[i] */
    "extern \"C\" __global__ void chase_init(char *base, const u64 *next, long long m, int stride) {\n"
    "    GRID_STRIDE(i, m) *(u64 *)(base + i * (long long)stride) = (u64)(base + next[i] * (u64)stride); }\n"
    /* one thread, each load's address is the previous load's value; .cg: cached in L2 only */
    "extern \"C\" __global__ void chase(u64 start, long long steps, u64 *out) {\n"
    "    u64 p = start, c0 = clk(), g0 = gtimer();\n"
    "    for (long long i = 0; i < steps; i++) asm volatile(\"ld.global.cg.u64 %0, [%0];\" : \"+l\"(p));\n"
    "    u64 c1 = clk(), g1 = gtimer();\n"
    "    out[0] = c1 - c0; out[1] = g1 - g0; out[2] = p; }\n";

char *cal_kernels_compile(int major, int minor, size_t *size)
{
    nvrtcProgram prog;
    nvrtcCheck(nvrtcCreateProgram(&prog, source, "cnnperf_calibrate_kernels.cu", 0, NULL, NULL));
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    const char *opts[] = {arch, "-std=c++17"};
    nvrtcResult r = nvrtcCompileProgram(prog, 2, opts);
    if (r != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        char *log = cal_xcalloc(n + 1, 1);
        nvrtcGetProgramLog(prog, log);
        cal_die("NVRTC could not compile the calibration kernels for sm_%d%d: %s\n%s", major, minor,
                nvrtcGetErrorString(r), log);
    }
    nvrtcCheck(nvrtcGetCUBINSize(prog, size));
    char *cubin = cal_xcalloc(*size, 1);
    nvrtcCheck(nvrtcGetCUBIN(prog, cubin));
    nvrtcCheck(nvrtcDestroyProgram(&prog));
    return cubin;
}

void cal_gpu_init(cal_gpu *g, int dev)
{
    memset(g, 0, sizeof *g);
    cal_where = "GPU set-up";
    g->device = dev;
    cudaCheck(cudaSetDevice(dev));
    struct cudaDeviceProp p;
    cudaCheck(cudaGetDeviceProperties(&p, dev));
    snprintf(g->name, sizeof g->name, "%s", p.name);
    g->cc_major = p.major;
    g->cc_minor = p.minor;
    g->sm_count = p.multiProcessorCount;
    g->memory_gib = (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
    g->l2_bytes = (size_t)p.l2CacheSize;
    g->memory_bus_bits = p.memoryBusWidth;
    /* Clock attributes are informative only; some drivers report 0. */
    if (cudaDeviceGetAttribute(&g->clock_khz, cudaDevAttrClockRate, dev) != cudaSuccess)
        g->clock_khz = 0;
    if (cudaDeviceGetAttribute(&g->memory_clock_khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess)
        g->memory_clock_khz = 0;
    (void)cudaGetLastError(); /* clear a failed attribute query */
    cudaCheck(cudaDeviceGetPCIBusId(g->pci_bus_id, (int)sizeof g->pci_bus_id, dev));

    cudaCheck(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    cublasCheck(cublasCreate(&g->blas));
    cublasCheck(cublasSetStream(g->blas, g->stream));

    cal_where = "NVRTC kernels";
    size_t size = 0;
    char *cubin = cal_kernels_compile(g->cc_major, g->cc_minor, &size);
    cudaCheck(cudaLibraryLoadData(&g->lib, cubin, NULL, NULL, 0, NULL, NULL, 0));
    free(cubin);
    struct {
        cudaKernel_t *k;
        const char *name;
    } ks[] = {{&g->fill_f32, "fill_f32"}, {&g->fill_u16, "fill_u16"},     {&g->copy4, "copy4"},
              {&g->triad4, "triad4"},     {&g->empty, "empty"},           {&g->tiny, "tiny"},
              {&g->spin, "spin"},         {&g->chase_init, "chase_init"}, {&g->chase, "chase"}};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        cudaCheck(cudaLibraryGetKernel(ks[i].k, g->lib, ks[i].name));
    cudaCheck(cudaDeviceSynchronize());
}

void cal_gpu_free(cal_gpu *g)
{
    cal_where = "GPU tear-down";
    cublasCheck(cublasDestroy(g->blas));
    cudaCheck(cudaStreamDestroy(g->stream));
    cudaCheck(cudaLibraryUnload(g->lib));
}

/* --- helpers --------------------------------------------------------------- */

static dim3 grid_of(long long n)
{
    long long b = (n + 255) / 256;
    if (b > 0x7fffffffLL)
        b = 0x7fffffffLL;
    dim3 d = {(unsigned)(b < 1 ? 1 : b), 1, 1};
    return d;
}

static const dim3 block256 = {256, 1, 1};
static const dim3 one = {1, 1, 1};

static void launch(cal_gpu *g, cudaKernel_t k, dim3 grid, dim3 block, void **args)
{
    /* A cudaKernel_t is launched through the runtime by passing it as the function. */
    cudaCheck(cudaLaunchKernel((const void *)k, grid, block, args, 0, g->stream));
}

static void fill(cal_gpu *g, void *p, long long n, int kind, unsigned seed)
{
    if (kind == CAL_FP16 || kind == CAL_BF16) {
        int bf16 = kind == CAL_BF16;
        void *args[] = {&p, &n, &seed, &bf16};
        launch(g, g->fill_u16, grid_of(n), block256, args);
    } else {
        void *args[] = {&p, &n, &seed};
        launch(g, g->fill_f32, grid_of(n), block256, args);
    }
}

void cal_enqueue_gemm_fp32(cal_gpu *g, cudaStream_t st, const float *a, const float *b, float *c, int size)
{
    static const float alpha = 1.0f, beta = 0.0f;
    cublasCheck(cublasSetStream(g->blas, st));
    cublasCheck(cublasSgemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &alpha, a, size, b, size, &beta, c,
                            size));
    cublasCheck(cublasSetStream(g->blas, g->stream));
}

void cal_enqueue_gemm_fp16(cal_gpu *g, cudaStream_t st, const void *a, const void *b, void *c, int size)
{
    static const float alpha = 1.0f, beta = 0.0f;
    cublasCheck(cublasSetStream(g->blas, st));
    cublasCheck(cublasGemmEx(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &alpha, a, CUDA_R_16F, size, b,
                             CUDA_R_16F, size, &beta, c, CUDA_R_16F, size, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    cublasCheck(cublasSetStream(g->blas, g->stream));
}

void cal_enqueue_copy(cal_gpu *g, cudaStream_t st, const float *a, float *b, long long n)
{
    long long n4 = n / 4;
    void *args[] = {&a, &b, &n4};
    cudaCheck(cudaLaunchKernel((const void *)g->copy4, grid_of(n4), block256, args, 0, st));
}

void cal_fill_random(cal_gpu *g, float *p, long long n, unsigned seed)
{
    fill(g, p, n, CAL_FP32, seed);
}

void cal_fill_random_half(cal_gpu *g, void *p, long long n, unsigned seed)
{
    fill(g, p, n, CAL_FP16, seed);
}

static void spin(cal_gpu *g, double us)
{
    long long ns = (long long)(us * 1e3);
    void *args[] = {&ns};
    launch(g, g->spin, one, one, args);
}

static double event_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    cudaCheck(cudaEventSynchronize(b));
    cudaCheck(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

/* --- GEMM ------------------------------------------------------------------ */

void cal_run_gemm(cal_gpu *g, int size, int trials, int reps, cal_gemm *gemm)
{
    static const struct {
        const char *prec, *compute_name, *math_name;
        cublasComputeType_t compute;
        cublasMath_t math;
        cudaDataType_t type;
        int min_cc;
    } kinds[CAL_GEMM_KINDS] = {
        [CAL_FP32] = {"fp32", "CUBLAS_COMPUTE_32F", "CUBLAS_DEFAULT_MATH (no TF32)", CUBLAS_COMPUTE_32F,
                      CUBLAS_DEFAULT_MATH, CUDA_R_32F, 0},
        [CAL_TF32] = {"tf32", "CUBLAS_COMPUTE_32F_FAST_TF32", "CUBLAS_TF32_TENSOR_OP_MATH",
                      CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_TF32_TENSOR_OP_MATH, CUDA_R_32F, 80},
        [CAL_FP16] = {"fp16", "CUBLAS_COMPUTE_32F", "CUBLAS_DEFAULT_MATH", CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH,
                      CUDA_R_16F, 70},
        [CAL_BF16] = {"bf16", "CUBLAS_COMPUTE_32F", "CUBLAS_DEFAULT_MATH", CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH,
                      CUDA_R_16BF, 80},
        [CAL_FP32_PEDANTIC] = {"fp32_pedantic", "CUBLAS_COMPUTE_32F_PEDANTIC", "CUBLAS_PEDANTIC_MATH",
                               CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_PEDANTIC_MATH, CUDA_R_32F, 0},
    };
    long long n2 = (long long)size * size;
    void *A, *B, *C;
    cal_where = "GEMM buffers";
    cudaCheck(cudaMalloc(&A, (size_t)n2 * 4));
    cudaCheck(cudaMalloc(&B, (size_t)n2 * 4));
    cudaCheck(cudaMalloc(&C, (size_t)n2 * 4));
    cudaEvent_t e0, e1;
    cudaCheck(cudaEventCreate(&e0));
    cudaCheck(cudaEventCreate(&e1));
    double *ms = cal_xcalloc((size_t)trials, sizeof *ms);
    const float alpha = 1.0f, beta = 0.0f;
    int cc = 10 * g->cc_major + g->cc_minor;
    for (int k = 0; k < CAL_GEMM_KINDS; k++) {
        cal_gemm *r = &gemm[k];
        memset(r, 0, sizeof *r);
        r->precision = kinds[k].prec;
        r->compute_type = kinds[k].compute_name;
        r->math_mode = kinds[k].math_name;
        r->size = size;
        if (cc < kinds[k].min_cc)
            continue;
        char where[96];
        snprintf(where, sizeof where, "GEMM %s %dx%dx%d", kinds[k].prec, size, size, size);
        cal_where = where;
        fill(g, A, n2, k, 1);
        fill(g, B, n2, k, 2);
        cublasCheck(cublasSetMathMode(g->blas, kinds[k].math));
        double best = INFINITY, best_median = 0;
        const char *best_layout = "NN";
        for (int layout = 0; layout < 2; layout++) {
            cublasOperation_t ta = layout ? CUBLAS_OP_T : CUBLAS_OP_N;
#define GEMM()                                                                                                         \
    cublasCheck(cublasGemmEx(g->blas, ta, CUBLAS_OP_N, size, size, size, &alpha, A, kinds[k].type, size, B,            \
                             kinds[k].type, size, &beta, C, kinds[k].type, size, kinds[k].compute,                     \
                             CUBLAS_GEMM_DEFAULT))
            for (int w = 0; w < 3; w++)
                GEMM();
            for (int t = 0; t < trials; t++) {
                cudaCheck(cudaEventRecord(e0, g->stream));
                for (int i = 0; i < reps; i++)
                    GEMM();
                cudaCheck(cudaEventRecord(e1, g->stream));
                ms[t] = event_ms(e0, e1) / reps;
            }
#undef GEMM
            double m = cal_min(ms, trials);
            if (m < best) {
                best = m;
                best_layout = layout ? "TN" : "NN";
                best_median = cm_quantile(ms, trials, 0.5);
            }
        }
        r->done = 1;
        r->best_layout = best_layout;
        r->best_ms = best;
        r->median_ms = best_median;
        r->trials = trials;
        r->reps = reps;
        r->tflops = 2.0 * size * (double)size * size / (best * 1e-3) / 1e12;
        cal_say("GEMM %-13s %dx%dx%d: %8.1f TFLOP/s (best of %d x %d, %s, %.3f ms)", kinds[k].prec, size, size, size,
                r->tflops, trials, reps, best_layout, best);
    }
    cublasCheck(cublasSetMathMode(g->blas, CUBLAS_DEFAULT_MATH));
    free(ms);
    cudaCheck(cudaEventDestroy(e0));
    cudaCheck(cudaEventDestroy(e1));
    cudaCheck(cudaFree(A));
    cudaCheck(cudaFree(B));
    cudaCheck(cudaFree(C));
}

/* --- device memory bandwidth ------------------------------------------------ */

void cal_run_membw(cal_gpu *g, size_t bytes, int trials, cal_membw *m)
{
    memset(m, 0, sizeof *m);
    cal_where = "memory bandwidth buffers";
    bytes &= ~(size_t)15;
    float *a, *b, *c;
    cudaCheck(cudaMalloc((void **)&a, bytes));
    cudaCheck(cudaMalloc((void **)&b, bytes));
    cudaCheck(cudaMalloc((void **)&c, bytes));
    long long nf = (long long)(bytes / 4), n4 = (long long)(bytes / 16);
    fill(g, a, nf, CAL_FP32, 3);
    fill(g, b, nf, CAL_FP32, 4);
    fill(g, c, nf, CAL_FP32, 5);
    cudaEvent_t e0, e1;
    cudaCheck(cudaEventCreate(&e0));
    cudaCheck(cudaEventCreate(&e1));
    float s = 0.5f;
    double best[3] = {INFINITY, INFINITY, INFINITY};
    for (int t = -1; t < trials; t++) { /* t = -1: warm-up */
        cal_where = "cudaMemcpy device to device";
        cudaCheck(cudaEventRecord(e0, g->stream));
        cudaCheck(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, g->stream));
        cudaCheck(cudaEventRecord(e1, g->stream));
        double ms0 = event_ms(e0, e1);

        cal_where = "stream copy kernel";
        void *cargs[] = {&a, &b, &n4};
        cudaCheck(cudaEventRecord(e0, g->stream));
        launch(g, g->copy4, grid_of(n4), block256, cargs);
        cudaCheck(cudaEventRecord(e1, g->stream));
        double ms1 = event_ms(e0, e1);

        cal_where = "stream triad kernel";
        void *targs[] = {&a, &b, &c, &s, &n4};
        cudaCheck(cudaEventRecord(e0, g->stream));
        launch(g, g->triad4, grid_of(n4), block256, targs);
        cudaCheck(cudaEventRecord(e1, g->stream));
        double ms2 = event_ms(e0, e1);
        if (t >= 0) {
            best[0] = fmin(best[0], ms0);
            best[1] = fmin(best[1], ms1);
            best[2] = fmin(best[2], ms2);
        }
    }
    m->done = 1;
    m->bytes = (double)bytes;
    m->memcpy_gbs = 2.0 * bytes / (best[0] * 1e-3) / 1e9;
    m->copy_gbs = 2.0 * bytes / (best[1] * 1e-3) / 1e9;
    m->triad_gbs = 3.0 * bytes / (best[2] * 1e-3) / 1e9;
    cal_say("device memory, %.0f MiB buffers, bytes read + written, best of %d: cudaMemcpy D2D %.0f GB/s, copy "
            "kernel %.0f GB/s, triad kernel %.0f GB/s",
            bytes / 1048576.0, trials, m->memcpy_gbs, m->copy_gbs, m->triad_gbs);
    cudaCheck(cudaEventDestroy(e0));
    cudaCheck(cudaEventDestroy(e1));
    cudaCheck(cudaFree(a));
    cudaCheck(cudaFree(b));
    cudaCheck(cudaFree(c));
}

/* --- launch overhead -------------------------------------------------------- */

/* GPU time per kernel of `count` kernels queued behind a spinning one, so
 * that the host's enqueue rate does not set the pace. `count` stays well
 * below the depth of the launch queue (about a thousand launches), or the
 * host would block and feed the GPU at its own rate again. */
static double queued_us(cal_gpu *g, cudaKernel_t k, void **args, int count, cudaEvent_t e0, cudaEvent_t e1)
{
    spin(g, 20000.0 + 10.0 * count); /* far longer than enqueueing `count` launches */
    cudaCheck(cudaEventRecord(e0, g->stream));
    for (int i = 0; i < count; i++)
        launch(g, k, one, one, args);
    cudaCheck(cudaEventRecord(e1, g->stream));
    return event_ms(e0, e1) * 1e3 / count;
}

void cal_run_launch(cal_gpu *g, int launches, cal_launch *l)
{
    memset(l, 0, sizeof *l);
    cal_where = "launch overhead";
    int *cell;
    cudaCheck(cudaMalloc((void **)&cell, sizeof(int)));
    cudaCheck(cudaMemsetAsync(cell, 0, sizeof(int), g->stream));
    cudaEvent_t e0, e1;
    cudaCheck(cudaEventCreate(&e0));
    cudaCheck(cudaEventCreate(&e1));
    void *targs[] = {&cell};
    for (int i = 0; i < 100; i++) /* warm-up: module loading, first-launch costs */
        launch(g, g->empty, one, one, NULL);
    cudaCheck(cudaStreamSynchronize(g->stream));

    enum { ROUNDS = 7, HOST_ROUNDS = 20, HOST_BATCH = 100, SYNC_REPS = 200 };
    double v[SYNC_REPS > ROUNDS ? SYNC_REPS : ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        v[r] = queued_us(g, g->empty, NULL, launches, e0, e1);
    l->gpu_us = cm_quantile(v, ROUNDS, 0.5);
    for (int r = 0; r < ROUNDS; r++)
        v[r] = queued_us(g, g->tiny, targs, launches, e0, e1);
    l->gpu_tiny_us = cm_quantile(v, ROUNDS, 0.5);

    /* Host cost of one launch: batches small enough never to fill the queue. */
    double hv[HOST_ROUNDS];
    for (int r = 0; r < HOST_ROUNDS; r++) {
        spin(g, 5000.0);
        double t0 = cal_now_s();
        for (int i = 0; i < HOST_BATCH; i++)
            launch(g, g->empty, one, one, NULL);
        hv[r] = (cal_now_s() - t0) * 1e6 / HOST_BATCH;
        cudaCheck(cudaStreamSynchronize(g->stream));
    }
    l->host_us = cm_quantile(hv, HOST_ROUNDS, 0.5);

    for (int r = 0; r < SYNC_REPS; r++) {
        double t0 = cal_now_s();
        launch(g, g->empty, one, one, NULL);
        cudaCheck(cudaStreamSynchronize(g->stream));
        v[r] = (cal_now_s() - t0) * 1e6;
    }
    l->sync_us = cm_quantile(v, SYNC_REPS, 0.5);
    l->launches = launches;
    l->done = 1;
    cal_say("kernel launch: %.2f us per empty kernel on the GPU (%d queued back to back; %.2f us for a 1-block "
            "store), host enqueue %.2f us, launch + synchronise %.2f us",
            l->gpu_us, launches, l->gpu_tiny_us, l->host_us, l->sync_us);
    cudaCheck(cudaEventDestroy(e0));
    cudaCheck(cudaEventDestroy(e1));
    cudaCheck(cudaFree(cell));
}

/* --- global memory latency --------------------------------------------------- */

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Average time of one dependent load over a random single cycle (Sattolo)
 * through `bytes` of memory in `stride`-byte steps. */
static void chase(cal_gpu *g, size_t bytes, int stride, long long steps, long long warm, double *ns, double *cycles)
{
    long long m = (long long)(bytes / (size_t)stride);
    uint64_t *next = cal_xcalloc((size_t)m, sizeof *next);
    for (long long i = 0; i < m; i++)
        next[i] = (uint64_t)i;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    for (long long i = m - 1; i > 0; i--) { /* Sattolo: one cycle through all nodes */
        long long j = (long long)(xorshift(&seed) % (uint64_t)i);
        uint64_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    char *base;
    uint64_t *dnext, *out;
    cudaCheck(cudaMalloc((void **)&base, (size_t)m * (size_t)stride));
    cudaCheck(cudaMalloc((void **)&dnext, (size_t)m * sizeof *dnext));
    cudaCheck(cudaMalloc((void **)&out, 3 * sizeof *out));
    cudaCheck(cudaMemcpyAsync(dnext, next, (size_t)m * sizeof *dnext, cudaMemcpyHostToDevice, g->stream));
    void *iargs[] = {&base, &dnext, &m, &stride};
    launch(g, g->chase_init, grid_of(m), block256, iargs);
    uint64_t start = (uint64_t)(uintptr_t)base;
    if (warm > 0) {
        void *wargs[] = {&start, &warm, &out};
        launch(g, g->chase, one, one, wargs);
    }
    void *args[] = {&start, &steps, &out};
    launch(g, g->chase, one, one, args);
    uint64_t h[3];
    cudaCheck(cudaMemcpyAsync(h, out, sizeof h, cudaMemcpyDeviceToHost, g->stream));
    cudaCheck(cudaStreamSynchronize(g->stream));
    *cycles = (double)h[0] / (double)steps;
    *ns = (double)h[1] / (double)steps;
    cudaCheck(cudaFree(base));
    cudaCheck(cudaFree(dnext));
    cudaCheck(cudaFree(out));
    free(next);
}

void cal_run_latency(cal_gpu *g, int steps, cal_latency *l)
{
    memset(l, 0, sizeof *l);
    const int stride = 256; /* two 128-byte lines apart: no neighbour-line effects */
    size_t free_b = 0, total_b = 0;
    cal_where = "pointer chase";
    cudaCheck(cudaMemGetInfo(&free_b, &total_b));
    /* L2: a quarter of it, walked twice first so it is resident. DRAM: 8 x L2
     * (at least 256 MiB), so that ~7/8 of the loads miss L2, few enough
     * 2 MiB pages for the TLBs; no warm-up walk. */
    size_t l2 = g->l2_bytes ? g->l2_bytes : (size_t)40 << 20;
    size_t small = l2 / 4, big = 8 * l2;
    if (big < (size_t)256 << 20)
        big = (size_t)256 << 20;
    if (big > free_b / 4)
        big = free_b / 4;
    long long small_nodes = (long long)(small / stride);
    cal_where = "pointer chase in L2";
    chase(g, small, stride, steps, 2 * small_nodes, &l->l2_ns, &l->l2_cycles);
    cal_where = "pointer chase in DRAM";
    chase(g, big, stride, steps, 0, &l->dram_ns, &l->dram_cycles);
    l->steps = steps;
    l->stride = stride;
    l->l2_bytes = (double)small;
    l->dram_bytes = (double)big;
    l->done = 1;
    cal_say("global load latency (1 thread, ld.global.cg, random cycle, %d B steps): %.0f ns = %.0f cycles over "
            "%.1f MiB (L2), %.0f ns = %.0f cycles over %.0f MiB (DRAM); cycles at the running SM clock",
            stride, l->l2_ns, l->l2_cycles, small / 1048576.0, l->dram_ns, l->dram_cycles, big / 1048576.0);
}

/* --- host link ------------------------------------------------------------- */

static void copy_sweep(cal_gpu *g, void *dst, const void *src, enum cudaMemcpyKind kind, const double *sizes, int n,
                       cal_sweep *s)
{
    double *v = cal_xcalloc(200, sizeof *v);
    for (int i = 0; i < n; i++) {
        size_t bytes = (size_t)sizes[i];
        int reps = (int)fmin(200, fmax(5, (double)(1 << 29) / sizes[i]));
        for (int w = 0; w < 2; w++) {
            cudaCheck(cudaMemcpyAsync(dst, src, bytes, kind, g->stream));
            cudaCheck(cudaStreamSynchronize(g->stream));
        }
        for (int r = 0; r < reps; r++) {
            double t0 = cal_now_s();
            cudaCheck(cudaMemcpyAsync(dst, src, bytes, kind, g->stream));
            cudaCheck(cudaStreamSynchronize(g->stream));
            v[r] = (cal_now_s() - t0) * 1e6;
        }
        cal_sweep_add(s, sizes[i], cm_quantile(v, reps, 0.5));
    }
    free(v);
}

void cal_run_p2p(cal_gpu *g, double min_bytes, double max_bytes, double step, cal_p2p *p)
{
    memset(p, 0, sizeof *p);
    int count = 0, can = 0;
    cudaCheck(cudaGetDeviceCount(&count));
    p->peer = g->device == 0 ? 1 : 0;
    if (count < 2) {
        cal_say("peer to peer: one GPU visible to this process, no peer copy");
        return;
    }
    cudaCheck(cudaDeviceCanAccessPeer(&can, g->device, p->peer));
    if (!can) {
        cal_say("peer to peer: GPU %d cannot reach GPU %d directly, no peer copy", g->device, p->peer);
        return;
    }
    static const char timing[] = "median over 5-200 repetitions of one cudaMemcpyPeerAsync to the other GPU plus "
                                 "cudaStreamSynchronize, host wall clock, peer access enabled";
    cal_sweep_init(&p->one_way, "peer_one_way", timing, 1);
    double sizes[64];
    int n = cal_sizes(min_bytes, max_bytes, step, sizes, 64);
    void *src, *dst, *back_src, *back_dst;
    cudaStream_t back;
    cal_where = "peer to peer buffers";
    cudaError_t e = cudaDeviceEnablePeerAccess(p->peer, 0);
    if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
        cudaCheck(e);
    (void)cudaGetLastError();
    cudaCheck(cudaMalloc(&src, (size_t)max_bytes));
    cudaCheck(cudaMemset(src, 1, (size_t)max_bytes));
    cudaCheck(cudaSetDevice(p->peer));
    e = cudaDeviceEnablePeerAccess(g->device, 0);
    if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
        cudaCheck(e);
    (void)cudaGetLastError();
    cudaCheck(cudaMalloc(&dst, (size_t)max_bytes));
    cudaCheck(cudaMalloc(&back_src, (size_t)max_bytes));
    cudaCheck(cudaStreamCreateWithFlags(&back, cudaStreamNonBlocking));
    cudaCheck(cudaSetDevice(g->device));
    cudaCheck(cudaMalloc(&back_dst, (size_t)max_bytes));
    cal_where = "peer to peer copies";
    double *v = cal_xcalloc(200, sizeof *v);
    for (int i = 0; i < n; i++) {
        size_t bytes = (size_t)sizes[i];
        int reps = (int)fmin(200, fmax(5, (double)(1 << 30) / sizes[i]));
        for (int r = -2; r < reps; r++) {
            double t0 = cal_now_s();
            cudaCheck(cudaMemcpyPeerAsync(dst, p->peer, src, g->device, bytes, g->stream));
            cudaCheck(cudaStreamSynchronize(g->stream));
            if (r >= 0)
                v[r] = (cal_now_s() - t0) * 1e6;
        }
        cal_sweep_add(&p->one_way, sizes[i], cm_quantile(v, reps, 0.5));
    }
    /* both directions at once, the largest size (a ring step sends and receives) */
    size_t big = (size_t)sizes[n - 1];
    for (int r = -2; r < 5; r++) {
        double t0 = cal_now_s();
        cudaCheck(cudaMemcpyPeerAsync(dst, p->peer, src, g->device, big, g->stream));
        cudaCheck(cudaMemcpyPeerAsync(back_dst, g->device, back_src, p->peer, big, back));
        cudaCheck(cudaStreamSynchronize(g->stream));
        cudaCheck(cudaStreamSynchronize(back));
        if (r >= 0)
            v[r] = (cal_now_s() - t0) * 1e6;
    }
    p->both_ways_gbs = (double)big / (cm_quantile(v, 5, 0.5) * 1e3);
    free(v);
    p->one_way_fit = cal_fit_sweep(&p->one_way);
    p->done = 1;
    cal_say("peer to peer GPU %d -> GPU %d: %.1f GB/s, %.2f us (fit t = L + S/B); both ways at once %.1f GB/s each",
            g->device, p->peer, p->one_way_fit.bandwidth_gbs, p->one_way_fit.latency_us, p->both_ways_gbs);
    cudaCheck(cudaFree(src));
    cudaCheck(cudaFree(back_dst));
    cudaCheck(cudaSetDevice(p->peer));
    cudaCheck(cudaFree(dst));
    cudaCheck(cudaFree(back_src));
    cudaCheck(cudaStreamDestroy(back));
    cudaCheck(cudaSetDevice(g->device));
}

void cal_run_hostlink(cal_gpu *g, double min_bytes, double max_bytes, double step, cal_hostlink *h)
{
    memset(h, 0, sizeof *h);
    static const char timing[] = "median over 5-200 repetitions of one cudaMemcpyAsync from/to pinned host memory "
                                 "plus cudaStreamSynchronize, host wall clock";
    cal_sweep_init(&h->h2d, "host_to_device", timing, 1);
    cal_sweep_init(&h->d2h, "device_to_host", timing, 1);
    double sizes[64];
    int n = cal_sizes(min_bytes, max_bytes, step, sizes, 64);
    void *host, *dev;
    cal_where = "host link buffers";
    cudaCheck(cudaHostAlloc(&host, (size_t)max_bytes, cudaHostAllocDefault));
    cudaCheck(cudaMalloc(&dev, (size_t)max_bytes));
    memset(host, 1, (size_t)max_bytes);
    cal_where = "host to device copies";
    copy_sweep(g, dev, host, cudaMemcpyHostToDevice, sizes, n, &h->h2d);
    cal_where = "device to host copies";
    copy_sweep(g, host, dev, cudaMemcpyDeviceToHost, sizes, n, &h->d2h);
    h->h2d_fit = cal_fit_sweep(&h->h2d);
    h->d2h_fit = cal_fit_sweep(&h->d2h);
    h->tiny_h2d_us = h->h2d.n ? h->h2d.p[0].time_us : 0;
    h->tiny_d2h_us = h->d2h.n ? h->d2h.p[0].time_us : 0;
    h->done = 1;
    cal_say("host link (pinned): H2D %.1f GB/s, %.2f us; D2H %.1f GB/s, %.2f us (fit t = L + S/B); %.0f-byte copy "
            "%.2f / %.2f us",
            h->h2d_fit.bandwidth_gbs, h->h2d_fit.latency_us, h->d2h_fit.bandwidth_gbs, h->d2h_fit.latency_us, min_bytes,
            h->tiny_h2d_us, h->tiny_d2h_us);
    cudaCheck(cudaFreeHost(host));
    cudaCheck(cudaFree(dev));
}
