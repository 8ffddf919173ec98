/* GEMM kernels as cuBLAS and cuDNN's implicit-GEMM convolutions run them.
 *
 * A GEMM is tiled into BM x BN output tiles, one per block; each block
 * iteration consumes a BK slice of the reduction dimension from a
 * multi-stage shared-memory pipeline. The tile shapes below follow the
 * CUTLASS-style kernels these libraries ship: SIMT tiles for FP32, mma.sync
 * tiles (Volta/Ampere) and warpgroup wgmma tiles (Hopper) for tensor-core
 * precisions. Like cudnnFind, we evaluate every candidate with the queue
 * model and keep the fastest; a weight-gradient GEMM may also split its long
 * reduction dimension across blocks and finish with a reduction kernel. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"

typedef struct {
    int bm, bn;      /* block tile */
    int wm, wn;      /* tile of one consumer warp (SIMT, mma.sync) or warpgroup (wgmma) */
    int threads;
    int regs;
    int stages;      /* maximum pipeline depth; reduced to fit shared memory */
} tile;

/* FP32 on the FMA lanes: each thread owns an 8x8 accumulator. */
static const tile simt_tiles[] = {
    {128, 128, 64, 32, 256, 128, 2},
    {128, 64, 64, 32, 128, 128, 2},
    {64, 64, 32, 64, 64, 128, 2},
    {64, 32, 32, 32, 64, 72, 2},
};
/* mma.sync (Volta, Ampere): warps of 32 threads. */
static const tile mma_tiles[] = {
    {256, 128, 64, 64, 256, 232, 3},
    {128, 128, 64, 32, 256, 168, 4},
    {128, 64, 64, 32, 128, 168, 4},
    {64, 64, 32, 32, 128, 128, 4},
};
/* wgmma (Hopper): consumer warpgroups of 128 threads plus one producer. */
static const tile wgmma_tiles[] = {
    {128, 256, 64, 256, 384, 168, 4},
    {128, 128, 64, 128, 384, 168, 5},
    {64, 128, 64, 128, 256, 168, 6},
    {64, 64, 64, 64, 256, 128, 6},
};

static double cdiv(double a, double b)
{
    return ceil(a / b);
}

static void build(cp_kernel *k, const cp_device *d, cp_precision p, const tile *t, int tensor, int hopper,
                  const cp_gemm *g, double splits, const char *what)
{
    int b = cp_precision_bytes(p);
    /* One shared-memory stage holds 128 bytes of the reduction dimension per row. */
    int bk = tensor ? (hopper ? 128 : 64) / b : 8;
    int stage_bytes = (t->bm + t->bn) * bk * b;
    int stages = t->stages;
    while (stages > 2 && stages * stage_bytes > d->smem_per_block)
        stages--;
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s %dx%dx%d %s%s", what, t->bm, t->bn, bk,
             tensor ? (hopper ? "wgmma" : "mma") : "fma", splits > 1 ? " splitk" : "");
    k->threads = t->threads;
    k->regs = t->regs;
    k->smem = stages * stage_bytes;
    k->stages = stages;
    k->blocks = (long long)(cdiv(g->M, t->bm) * cdiv(g->N, t->bn) * g->count * splits);
    k->iters = (long long)cdiv(cdiv(g->K, splits), bk);
    if (k->iters < 1)
        k->iters = 1;
    double units = (double)(t->bm / t->wm) * (t->bn / t->wn); /* consumer warps or warpgroups */
    /* Global loads: the A and B slices, 16 bytes per thread per instruction. */
    k->I = (double)stage_bytes / 512.0;
    k->ld_bytes = 512.0;
    /* Shared memory: the tile is stored once and every consumer reads its slices. */
    double smem_read = units * (t->wm + t->wn) * (double)bk * b;
    int warps = t->threads / d->warp_size;
    if (tensor) {
        k->M = (stage_bytes + smem_read) / 512.0; /* ldmatrix / wgmma operand fetches */
    } else {
        /* each thread fetches its 8+8 operands per k step as four 16-byte
         * loads, broadcast within the warp */
        k->M = warps * bk * 4.0 + stage_bytes / 512.0;
    }
    k->sm_bytes = (stage_bytes + smem_read) / k->M;
    if (tensor) {
        k->pipe = CP_PIPE_TENSOR;
        k->flops_per_L = b == 2 ? 4096.0 : 2048.0; /* m16n8k16 (16-bit) or m16n8k8 (tf32) */
        k->L = 2.0 * t->bm * t->bn * bk / k->flops_per_L;
    } else {
        k->pipe = CP_PIPE_FMA;
        k->flops_per_L = 2.0 * d->warp_size;
        k->L = (double)t->bm * t->bn * bk / d->warp_size;
    }
    k->other = warps * (12.0 + bk / 4.0); /* addressing, loop, barriers */
    /* The epilogue writes the tile once; spread it over the iterations. */
    double out_bytes = (double)t->bm * t->bn * (splits > 1 ? 4 : b);
    k->K = out_bytes / 512.0 / (double)k->iters;
    k->st_bytes = 512.0;
    k->coalesced = 1.0;
    k->precision = p;
    k->flops = 2.0 * g->M * g->N * g->K * g->count;
    k->dram_bytes = g->unique_bytes + (splits > 1 ? splits * g->M * g->N * g->count * 4.0 : 0);
}

int cp_gemm_kernels(const cp_device *d, cp_precision p, const cp_gemm *g, const char *what, cp_kernel *out, int max,
                    cp_error *err)
{
    if (max < 2)
        return cp_fail(err, NULL, NULL, "internal: no room for GEMM kernels");
    int tensor = p != CP_PREC_FP32 && d->tensor_tflops[p] > 0;
    int hopper = tensor && d->compute_capability[0] >= '9';
    const tile *tiles = tensor ? (hopper ? wgmma_tiles : mma_tiles) : simt_tiles;
    size_t n_tiles = 4;
    double best = INFINITY;
    int best_n = 0;
    for (size_t i = 0; i < n_tiles; i++) {
        for (double s = 1; s <= 64; s *= 2) {
            if (s > 1 && (!g->splitk_ok || g->K / s < 256))
                break;
            cp_kernel k[2];
            int nk = 1;
            build(&k[0], d, p, &tiles[i], tensor, hopper, g, s, what);
            if (s > 1) {
                double mn = g->M * g->N * g->count;
                k[1] = cp_stream_kernel(d, p, "splitk_reduce", mn, s * mn * 4.0, mn * cp_precision_bytes(p), s * mn);
                nk = 2;
            }
            double t = 0;
            int ok = 1;
            for (int j = 0; j < nk && ok; j++) {
                cp_kernel_eval e;
                ok = cp_kernel_evaluate(&k[j], d, &e, NULL) == 0;
                t += e.time_ms;
            }
            if (ok && t < best) {
                best = t;
                best_n = nk;
                memcpy(out, k, (size_t)nk * sizeof k[0]);
            }
        }
    }
    if (best_n == 0)
        return cp_fail(err, NULL, NULL, "%s: no GEMM tile fits on %s", what, d->name);
    return best_n;
}
