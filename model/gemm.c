/* GEMM kernels as cuBLAS and cuDNN's implicit-GEMM convolutions run them.
 *
 * A GEMM is tiled into BM x BN output tiles, one per block; each block
 * iteration consumes a BK slice of the reduction dimension from a
 * multi-stage shared-memory pipeline. The tile shapes below follow the
 * CUTLASS-style kernels these libraries ship: SIMT tiles for FP32, mma.sync
 * tiles (Volta/Ampere) and warpgroup wgmma tiles (Hopper) for tensor-core
 * precisions. Like cudnnFind, we evaluate every candidate with the queue
 * model and keep the fastest. A GEMM whose tiles cannot fill the GPU may
 * split its reduction dimension across blocks and finish with a reduction
 * (split-K, as cuBLAS and cuDNN do): the blocks of one tile add their fp32
 * partial sums into a workspace in the same kernel, which costs stores and
 * DRAM traffic but no second launch. Weight gradients, whose reduction runs
 * over the whole batch, split most readily. */
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
    {128, 256, 64, 64, 256, 232, 3},
    {128, 128, 64, 32, 256, 168, 4},
    {128, 64, 64, 32, 128, 168, 4},
    {64, 128, 32, 64, 128, 168, 4},
    {64, 64, 32, 32, 128, 128, 4},
};
/* wgmma (Hopper): consumer warpgroups of 128 threads plus one producer. */
static const tile wgmma_tiles[] = {
    {128, 256, 64, 256, 384, 168, 4},
    {256, 128, 64, 128, 640, 96, 4},
    {128, 192, 64, 192, 384, 168, 4},
    {128, 128, 64, 128, 384, 168, 5},
    {256, 64, 64, 64, 640, 96, 5},
    {128, 64, 64, 64, 384, 128, 6},
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
    k->name = what;
    k->tile_m = t->bm;
    k->tile_n = t->bn;
    k->tile_k = bk;
    k->splits = (int)splits;
    k->threads = t->threads;
    k->regs = t->regs;
    k->smem = stages * stage_bytes;
    k->stages = stages;
    k->blocks = (long long)(cdiv(g->M, t->bm) * cdiv(g->N, t->bn) * g->count * splits);
    k->iters = (long long)cdiv(cdiv(g->K, splits), bk);
    if (k->iters < 1)
        k->iters = 1;
    double units = (double)(t->bm / t->wm) * (t->bn / t->wn); /* consumer warps or warpgroups */
    /* Global loads: the A and B slices, 16 bytes per thread per instruction.
     * Hopper kernels run in clusters of two blocks that multicast one
     * operand through TMA, so each block fetches half of that operand. */
    k->I = (double)stage_bytes / 512.0 * (hopper ? 0.75 : 1.0);
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
    /* split-K: every slice writes its fp32 partial tile, the last one reads them back */
    k->dram_bytes = g->unique_bytes + (splits > 1 ? (splits + 1) * g->M * g->N * g->count * 4.0 : 0);
}

static unsigned cache_slot(const cp_gemm *g, const char *what)
{
    double h = g->M * 1.0e-3 + g->N * 7.0 + g->K * 13.0 + g->count * 101.0 + g->splitk_ok * 977.0;
    unsigned long long x = (unsigned long long)fmod(h, 1e15) ^ (unsigned long long)(size_t)what;
    x ^= x >> 29;
    x *= 0x9E3779B97F4A7C15ull;
    return (unsigned)(x >> 40) % CP_GEMM_CACHE_SLOTS;
}

static int same(const cp_gemm *a, const cp_gemm *b)
{
    return a->M == b->M && a->N == b->N && a->K == b->K && a->count == b->count &&
           a->unique_bytes == b->unique_bytes && a->splitk_ok == b->splitk_ok;
}

int cp_gemm_kernels(const cp_device *d, cp_precision p, const cp_gemm *g, const char *what, cp_gemm_cache *cache,
                    cp_kernel *out, int max, cp_error *err)
{
    if (max < 1)
        return cp_fail(err, NULL, NULL, "internal: no room for GEMM kernels");
    unsigned slot = cache ? cache_slot(g, what) : 0;
    for (unsigned probe = 0; cache && probe < 8; probe++) {
        unsigned i = (slot + probe) % CP_GEMM_CACHE_SLOTS;
        if (!cache->slot[i].used)
            break;
        if (cache->slot[i].what == what && same(&cache->slot[i].key, g)) {
            out[0] = cache->slot[i].k;
            return 1;
        }
    }
    int tensor = p != CP_PREC_FP32 && d->tensor_tflops[p] > 0;
    int hopper = tensor && d->compute_capability[0] >= '9';
    const tile *tiles = tensor ? (hopper ? wgmma_tiles : mma_tiles) : simt_tiles;
    size_t n_tiles = tensor ? (hopper ? sizeof wgmma_tiles / sizeof wgmma_tiles[0] : sizeof mma_tiles / sizeof mma_tiles[0])
                            : sizeof simt_tiles / sizeof simt_tiles[0];
    double best = INFINITY;
    int best_n = 0;
    double peak = tensor ? d->tensor_tflops[p] * 1e12 : d->fp32_tflops * 1e12;
    double fixed_ms = (d->launch_overhead_us * 1e-3) + d->global_latency_cycles / (d->core_clock_mhz * 1e3);
    for (size_t i = 0; i < n_tiles; i++) {
        cp_kernel k;
        cp_kernel_eval e;
        cp_occupancy occ;
        build(&k, d, p, &tiles[i], tensor, hopper, g, 1, what);
        if (cp_occupancy_calc(d, k.threads, k.regs, k.smem, &occ, NULL))
            continue; /* this tile does not fit the device */
        double wave = (double)occ.blocks_per_sm * d->sm_count;
        /* Unsplit, then split just enough to fill one and two waves: beyond
         * that more slices only add partial sums. */
        double tiles_n = (double)k.blocks; /* output tiles, unsplit */
        double min_slice = g->splitk_ok ? 128 : 256, s_max = 1, s_fill = 1;
        while (s_max < 1024 && g->K / (2 * s_max) >= min_slice)
            s_max *= 2;
        while (s_fill * tiles_n < wave && s_fill < s_max)
            s_fill *= 2;
        double tries[3] = {1, s_fill, fmin(2 * s_fill, s_max)};
        for (int j = 0; j < 3; j++) {
            double s = tries[j];
            if (j > 0 && s == tries[j - 1])
                continue;
            /* No candidate beats the padded tiles' arithmetic at peak plus the
             * fixed costs: skip those that cannot win. */
            double iters = fmax(1, cdiv(cdiv(g->K, s), k.tile_k));
            double padded = tiles_n * s * iters * k.tile_m * k.tile_n * k.tile_k * 2.0;
            if (padded / peak * 1e3 + fixed_ms >= best)
                continue;
            if (s > 1)
                build(&k, d, p, &tiles[i], tensor, hopper, g, s, what);
            cp_kernel_evaluate_at(&k, d, &occ, &e);
            if (e.time_ms < best) {
                best = e.time_ms;
                best_n = 1;
                out[0] = k;
            }
        }
    }
    for (unsigned probe = 0; cache && best_n && probe < 8; probe++) {
        unsigned i = (slot + probe) % CP_GEMM_CACHE_SLOTS;
        if (!cache->slot[i].used) {
            cache->slot[i].used = 1;
            cache->slot[i].key = *g;
            cache->slot[i].what = what;
            cache->slot[i].k = out[0];
            break;
        }
    }
    if (best_n == 0)
        return cp_fail(err, NULL, NULL, "%s: no GEMM tile fits on %s", what, d->name);
    return best_n;
}
