/* calib_gpu: the single-GPU microbenchmarks of cnnperf-calibrate.
 *
 *  - cuBLAS GEMM peak per precision (cublasGemmEx, square, best of trials);
 *  - device memory bandwidth: cudaMemcpy device-to-device and two streaming
 *    kernels (copy, triad), counting every byte read and written;
 *  - kernel launch overhead: empty kernels queued behind a busy one (GPU
 *    time per launch), the host's cost to enqueue one, and a launch plus
 *    synchronisation round trip;
 *  - global memory latency: one thread chasing pointers through a random
 *    cycle (ld.global.cg), in an L2-sized and a DRAM-sized buffer;
 *  - host link: pinned cudaMemcpyAsync sweeps host-to-device and back;
 *  - peer to peer: with a second GPU in the process, cudaMemcpyPeerAsync
 *    sweeps from this GPU to the other (NVLink or PCIe P2P), one way and
 *    both ways at once: the bandwidth the GPU link delivers to a copy.
 *
 * The kernels are compiled at start-up by NVRTC for the GPU at hand, as
 * measure/kernels.c does, so the build needs only the C compiler. */
#ifndef CAL_GPU_H
#define CAL_GPU_H

#include "calib_check.h"
#include "calib_fit.h"

enum { CAL_FP32, CAL_TF32, CAL_FP16, CAL_BF16, CAL_FP32_PEDANTIC, CAL_GEMM_KINDS };

typedef struct {
    int device;
    char name[256];
    char pci_bus_id[32];
    int cc_major, cc_minor, sm_count;
    double memory_gib;
    size_t l2_bytes;
    int clock_khz, memory_clock_khz, memory_bus_bits; /* as the driver reports them; 0 if not */
    cudaStream_t stream;
    cublasHandle_t blas;
    cudaLibrary_t lib;
    cudaKernel_t fill_f32, fill_u16, copy4, triad4, empty, tiny, spin, chase_init, chase;
} cal_gpu;

typedef struct {
    int done; /* measured (0: not supported here or skipped) */
    const char *precision, *compute_type, *math_mode;
    int size;                /* m = n = k */
    const char *best_layout; /* "NN" or "TN" */
    double best_ms, median_ms, tflops;
    int trials, reps;
} cal_gemm;

typedef struct {
    int done;
    double bytes;                           /* per buffer */
    double memcpy_gbs, copy_gbs, triad_gbs; /* best of trials, read + written bytes */
} cal_membw;

typedef struct {
    int done, launches;
    double gpu_us;      /* GPU time per empty kernel, queued back to back */
    double gpu_tiny_us; /* the same with a 1-block kernel that stores one value */
    double host_us;     /* host time of one cudaLaunchKernel (median of rounds) */
    double sync_us;     /* launch + cudaStreamSynchronize round trip (median) */
} cal_launch;

typedef struct {
    int done, steps, stride;
    double l2_bytes, dram_bytes;
    double l2_ns, l2_cycles; /* per load; cycles from clock64 at the running clock */
    double dram_ns, dram_cycles;
} cal_latency;

typedef struct {
    int done;
    cal_sweep h2d, d2h;
    cal_fit h2d_fit, d2h_fit;
    double tiny_h2d_us, tiny_d2h_us; /* the smallest size's median */
} cal_hostlink;

typedef struct {
    int done, peer;              /* the other GPU's index */
    cal_sweep one_way;           /* this GPU -> peer */
    cal_fit one_way_fit;
    double both_ways_gbs;        /* largest size, both directions at once: bytes of one direction / time */
} cal_p2p;

/* The calibration kernels' cubin for sm_<major><minor>, by NVRTC (no GPU
 * needed); *size its bytes. Ends the process with NVRTC's log on failure. */
char *cal_kernels_compile(int major, int minor, size_t *size);

/* Selects device dev, reads its properties, creates the stream and cuBLAS
 * handle and compiles the kernels. */
void cal_gpu_init(cal_gpu *g, int dev);
void cal_gpu_free(cal_gpu *g);

/* gemm[CAL_GEMM_KINDS]; kinds the GPU lacks (tf32/bf16 before sm_80,
 * fp16 tensor cores before sm_70) are left not done. */
void cal_run_gemm(cal_gpu *g, int size, int trials, int reps, cal_gemm *gemm);
void cal_run_membw(cal_gpu *g, size_t bytes, int trials, cal_membw *m);
void cal_run_launch(cal_gpu *g, int launches, cal_launch *l);
void cal_run_latency(cal_gpu *g, int steps, cal_latency *l);
void cal_run_hostlink(cal_gpu *g, double min_bytes, double max_bytes, double step, cal_hostlink *h);
/* Needs a second GPU visible to the process that this one can reach
 * directly; p->done stays 0 (with a message) otherwise. */
void cal_run_p2p(cal_gpu *g, double min_bytes, double max_bytes, double step, cal_p2p *p);

/* Work for the co-execution benchmark (calib_comm.h), enqueued on stream
 * st: an FP32 GEMM C = A B of size x size matrices (cuBLAS, FMA lanes), or
 * a streaming copy of n floats (n a multiple of 4) from a to b; the FP16
 * GEMM takes half-precision matrices and accumulates in FP32 on tensor
 * cores, as cuDNN's 16-bit convolutions do. */
void cal_enqueue_gemm_fp32(cal_gpu *g, cudaStream_t st, const float *a, const float *b, float *c, int size);
void cal_enqueue_gemm_fp16(cal_gpu *g, cudaStream_t st, const void *a, const void *b, void *c, int size);
void cal_enqueue_copy(cal_gpu *g, cudaStream_t st, const float *a, float *b, long long n);

/* n floats uniform in [-1, 1) on the GPU's stream (NCCL's send buffers);
 * the _half form fills n FP16 values the same way. */
void cal_fill_random(cal_gpu *g, float *p, long long n, unsigned seed);
void cal_fill_random_half(cal_gpu *g, void *p, long long n, unsigned seed);

#endif
