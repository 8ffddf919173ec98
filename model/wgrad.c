/* cuDNN's FP32 weight-gradient kernels for NCHW tensors.
 *
 * An FP32 weight gradient dW[K x CRS] = sum over pixels of dy[K, p] x[CRS, p]
 * is a GEMM whose reduction runs over every output pixel of the batch. A
 * split-K CUTLASS tile would take it near the FMA lanes' peak; cuDNN runs
 * none. Nsight Compute on the H100 (validation/layerbench-h100/ncu/, 1x1
 * layer microbenchmarks of our choosing, cuDNN 9.14) shows three kernels:
 *
 *  - wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, .., 512>: 32x32 filter
 *    tiles, 8x8 = 64 threads, 80 registers, one 2.3 KB shared stage. Its grid
 *    is the tiles x images x ceil(plane / 512): a block reduces at most 512
 *    pixels of one image and adds its tile into dW atomically (grid z = 448
 *    for b64 on 56x56 planes: 64 images x 7 chunks).
 *  - the same engine with 64x128 tiles (<.., 6, 7, 3, 3, 5, ..>): 8x32 = 256
 *    threads, 64 registers, 6.4 KB. cudnnFind's algorithm 0 ran it for dW of
 *    1024x256 and 256x1024 (14x14 planes), the 32x32 tiles for 64x256,
 *    128x512 and 96x576. The calibration set's rates put 256x512 (2.9 issue
 *    slots per FFMA, below) and 192x768 (3.8) on the 64x128 tiles and
 *    160x768 (4.6) on the 32x32 ones: 64x128 where dW has at least 192
 *    output channels and 256 filter elements.
 *  - sm80_xmma_wgrad_implicit_gemm_indexed ..nhwc.. 32x32 (algorithm 1): NHWC,
 *    so x and dy are transposed first (nchwToNhwcKernel); 64 threads, 80
 *    registers, three 2 KB stages, its grid the tiles alone (no split).
 *
 * None comes near the lanes' peak. They issue 2.25, 1.59 and 1.71 warp
 * instructions per FFMA (smsp__inst_executed) and keep the schedulers 30-46%,
 * 55% and 77% busy, which the occupancy and latency rules do not explain. So
 * each kernel's block iteration is given the issue slots it was measured to
 * take per FFMA: the value that makes this model's time of the kernel, waves
 * and tails included, the GPU time Nsight Compute measured (at the GPU's own
 * clock), the median over twenty 1x1 layer microbenchmarks of our choosing
 * (validation/layerbench-h100/wgrad1x1/: planes 5x5 to 144x144, channel
 * counts no shipped network has, cudnnFind choosing the kernel):
 *  - 2.85 for the 64x128 engine (six layers, 2.5-3.4),
 *  - 2.5 for the NHWC kernel (three, 2.2-2.6),
 *  - for the 32x32 engine, 5.3 while each dW element receives at most 192
 *    partial tiles (grid z = images x plane chunks; five layers, 4.4-6.9) and
 *    7.2 beyond (six, 6.3-8.3). The adds of one tile go to the same
 *    addresses, so the more blocks share a tile the longer its atomics queue
 *    in L2; the step, not a slope, is what the microbenchmarks show (z of 256
 *    and 656 cost alike).
 * The graph API's engine 20 (PyTorch's path) runs the same engine, its tile
 * not cudnnFind's: 64x128 on eighteen of the twenty microbenchmarks through
 * that API (48 to 1280 input and 96 to 1536 output channels;
 * wgrad1x1/graph-ncu/), 32x32 on 48 -> 48 and, in session 18's (xmma/), on
 * 24 and 32 output channels. The calibration set's graph-API runs put 64
 * output channels on the 32x32 tile (on 64x128: +38% and +54% on 14x14), so
 * the wide tile starts at 96 (GRAPH_WIDE_MIN_M). Its engine 67 is the NHWC
 * kernel, on 5x5 and 6x6 planes.
 * Filters larger than 1x1 read each input pixel once per tap their tile
 * holds, from L1, where a 1x1 tile streams every operand from L2: the same
 * 32x32 engine on 3x3 filters issued 2.23 instructions per FFMA and kept the
 * schedulers 72% busy, 3.09 slots per FFMA, over 796,320 blocks (500 waves,
 * so no tail in it) for 48 -> 80 channels on 200x200 planes, batch 240
 * (validation/layerbench-h100/wsbench/, a layer of our choosing whose
 * Winograd tiles exceed cnnperf-measure's workspace; its sibling
 * wgrad_alg1_engine, 4096 pixels of the batch per block, took 3.43 and 3.83
 * on two others). So a filter of more than one tap takes the 32x32 tile at
 * 3.1 slots, without the step, which the 1x1 layers' L2 queues are behind.
 * Session 15 had taken the slots from the calibration set's cudnnFind times
 * (5.5, 3.3 and 3.1), which mix the kernels' own waves and tails in. Grid,
 * waves, tails and the choice between the kernels follow from the shapes.
 * The slots were measured on Hopper and are used on every device; older
 * GPUs' cuDNN builds were not profiled. */
#include <math.h>

#include <stdbool.h>

#include "kernel.h"

#define ENGINE_CHUNK 512.0 /* pixels of one image a block reduces */
#define WGRAD_BK 8.0       /* pixels per block iteration: one shared stage */
#define CONTENDED_ADDS 192 /* partial tiles added into one dW element beyond which the atomics queue */
#define GRAPH_WIDE_MIN_M 96  /* output channels from which the graph API's engine 20 takes the 64x128 tile */

typedef struct {
    const char *name;
    double tile_m, tile_n;     /* output channels x filter elements */
    double thread_m, thread_n; /* one thread's outputs */
    int threads, regs, smem, stages;
    double slots_per_ffma;  /* issue slots one FFMA warp instruction costs, as measured (above) */
    double slots_contended; /* the same beyond CONTENDED_ADDS partial tiles per dW element (0: no change) */
    int chunked;          /* grid x images x plane chunks, partial sums added atomically */
} wgrad_kernel;

static const wgrad_kernel kinds[] = {
    {"wgrad_engine_32x32", 32, 32, 4, 4, 64, 80, 3328, 1, 5.3, 7.2, 1},
    {"wgrad_engine_64x128", 128, 64, 8, 4, 256, 64, 7424, 1, 2.85, 0, 1},
    {"wgrad_xmma_nhwc_32x32", 32, 32, 4, 4, 64, 80, 7168, 3, 2.5, 0, 0},
    {"wgrad_engine_32x32_rs", 32, 32, 4, 4, 64, 80, 3328, 1, 3.1, 0, 1}, /* filters of more than one tap */
};

static cp_kernel build(const cp_device *d, const wgrad_kernel *w, double m, double n, double images, double plane,
                       double bytes)
{
    double chunks = w->chunked ? cp_cdiv(plane, ENGINE_CHUNK) : 1;
    double pixels = w->chunked ? cp_cdiv(plane, chunks) : images * plane; /* one block's reduction */
    double blocks = cp_cdiv(m, w->tile_m) * cp_cdiv(n, w->tile_n) * (w->chunked ? images * chunks : 1);
    /* a stream kernel's fields give the flops and the DRAM traffic (x and dy
     * read, dW written); the launch and the block iteration are set below */
    cp_kernel k = cp_stream_kernel(d, CP_PREC_FP32, w->name, 1, bytes, 4.0 * m * n, 2.0 * m * n * images * plane);
    double warps = w->threads / d->warp_size;
    k.tile_m = (int)w->tile_m;
    k.tile_n = (int)w->tile_n;
    k.tile_k = (int)WGRAD_BK;
    k.blocks = (long long)blocks;
    k.threads = w->threads;
    k.regs = w->regs;
    k.smem = w->smem;
    k.stages = w->stages;
    k.iters = (long long)cp_cdiv(pixels, WGRAD_BK);
    double operands = (w->tile_m + w->tile_n) * WGRAD_BK; /* floats per block iteration */
    k.L = w->tile_m * w->tile_n * WGRAD_BK / d->warp_size;
    k.I = operands * 4.0 / 512.0; /* 16 bytes per thread */
    /* stored once, then each thread reads its rows and columns of the tile
     * for every pixel, 16 bytes at a time */
    double reads = warps * WGRAD_BK * (w->thread_m + w->thread_n) / 4.0;
    k.M = k.I + reads;
    k.sm_bytes = 512.0;
    k.K = 0;
    double adds = w->chunked ? images * chunks : 1; /* partial tiles per dW element */
    double slots = adds > CONTENDED_ADDS && w->slots_contended > 0 ? w->slots_contended : w->slots_per_ffma;
    k.other = k.L * slots - (k.L + k.I + k.M);
    if (k.other < 0)
        k.other = 0;
    /* the tile leaves once: atomic adds (engine) or stores, 4 bytes a thread */
    k.K_end = w->tile_m * w->tile_n / d->warp_size;
    k.st_bytes = 4.0 * d->warp_size;
    k.flops_per_L = 2.0 * d->warp_size;
    return k;
}

int cp_wgrad_fp32_kernels(const cp_device *d, cp_wgrad_tiles tiles, double m, double n, double taps, double images,
                          double plane, double x_bytes, double dy_bytes, cp_kernel *out, int max, cp_error *err)
{
    double best = INFINITY;
    int nk = 0;
    /* the engine's tile is cuDNN's heuristic, not a search; the engine and
     * the NHWC kernel are timed against each other, as cudnnFind does */
    bool wide = tiles == CP_WGRAD_TILES_GRAPH ? m >= GRAPH_WIDE_MIN_M : m >= 192 && n >= 256;
    const wgrad_kernel *engine = taps > 1 ? &kinds[3] : &kinds[wide ? 1 : 0];
    const wgrad_kernel *candidates[] = {engine, &kinds[2]};
    for (size_t i = 0; i < 2; i++) {
        cp_kernel c[3];
        int nc = 0;
        const wgrad_kernel *w = candidates[i];
        if (!w->chunked) { /* NHWC copies of x and dy first */
            c[nc++] = cp_stream_kernel(d, CP_PREC_FP32, "nchw_to_nhwc", x_bytes / 4.0, x_bytes, x_bytes, 0);
            c[nc++] = cp_stream_kernel(d, CP_PREC_FP32, "nchw_to_nhwc", dy_bytes / 4.0, dy_bytes, dy_bytes, 0);
        }
        c[nc++] = build(d, w, m, n, images, plane, x_bytes + dy_bytes);
        if (nc > max)
            continue;
        double t = cp_kernels_ms(c, nc, d, best, err);
        if (t < 0)
            return -1;
        if (t < best) {
            best = t;
            for (int j = 0; j < nc; j++)
                out[j] = c[j];
            nk = nc;
        }
    }
    return nk;
}
