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
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

/* fmax/fmin without the NaN rules (no NaN reaches here): they inline. */
static inline double dmax(double a, double b) { return a > b ? a : b; }
static inline double dmin(double a, double b) { return a < b ? a : b; }

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
    {128, 16, 128, 16, 32, 128, 2}, /* thin N: few output channels */
    {64, 16, 64, 16, 32, 72, 2},
    {32, 64, 32, 64, 32, 128, 2},   /* thin M: weight gradients of narrow layers */
    {32, 32, 32, 32, 32, 72, 2},
};
/* mma.sync (Volta, Ampere): warps of 32 threads. */
static const tile mma_tiles[] = {
    {256, 128, 64, 64, 256, 232, 3},
    {128, 256, 64, 64, 256, 232, 3},
    {128, 128, 64, 32, 256, 168, 4},
    {128, 64, 64, 32, 128, 168, 4},
    {64, 128, 32, 64, 128, 168, 4},
    {64, 64, 32, 32, 128, 128, 4},
    {128, 32, 64, 32, 64, 128, 4},
    {32, 128, 32, 64, 64, 128, 4},
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
    {128, 32, 64, 32, 384, 128, 6},
    {64, 32, 64, 32, 256, 128, 8},
};

/* cuDNN's own FP32 kernels (xmma), each family a few fixed tiles with
 * their measured instruction mix and grids without a split dimension. */
/* The implicit-GEMM forward on NCHW tensors, graph API engine 70:
 * sm80_xmma_fprop_implicit_gemm_..._nchwkcrs_nchw_tilesize{256x64,128x32,
 * 32x32}x8_stage3 with warps of 2x2, 2x2 and 1x2, 128, 128 and 64 threads,
 * 255, 166 and 94 registers (PyTorch's kernel trace of the calibration
 * set, validation/h100/ncu/kernels-torch-networks-h100.json.xz; Nsight Compute
 * on layer microbenchmarks, validation/layerbench-h100/graph-3x3-ffma/ and
 * xmma/). */
static const tile xmma_nchw_tiles[] = {
    {256, 64, 128, 32, 128, 255, 3},
    {128, 32, 64, 16, 128, 166, 3},
    {32, 32, 32, 16, 64, 94, 3},
};
/* Warp instructions per FFMA, as Nsight Compute counts them on the graph
 * API's FP32 layer microbenchmarks (3x3 and 1x1, shapes of our choosing;
 * K of at least 288): 1.37-1.41 for 256x64 (nine layers), 1.85-1.91 for
 * 128x32 (four), 2.15-2.21 for 32x32 (two). Scalar loads (`aligna4`) with
 * their im2col addresses and predicates are the rest. */
static const double xmma_nchw_inst_per_ffma[] = {1.39, 1.88, 2.18};

/* The complex GEMM of cuDNN's FFT convolutions (graph API engines 3 and
 * 50): sm80_xmma_gemm_cf32cf32_f32f32_cf32_{nt,tn}_n_tilesize{32x32,64x32,
 * 32x64,64x64}x8_stage3_warpsize2x2x1 (complex outputs a block; 128
 * threads; 78, 104, 126 and 164-168 registers), Nsight Compute on the graph
 * API's FP32 3x3 layer microbenchmarks (validation/layerbench-h100/
 * graph-3x3-ffma/): 1.44-1.55 warp instructions per FFMA for 32x32,
 * 1.28-1.51 for 64x32, 1.20-1.24 for 32x64, 1.12-1.15 for 64x64. In the
 * real GEMM twice as wide (N = 2 x complex columns) a complex Mt x Nt tile
 * is Mt x 2Nt. */
static const tile xmma_cgemm_tiles[] = {
    {32, 64, 16, 32, 128, 78, 3},
    {64, 64, 32, 32, 128, 104, 3},
    {32, 128, 16, 64, 128, 126, 3},
    {64, 128, 32, 64, 128, 166, 3},
};
static const double xmma_cgemm_inst_per_ffma[] = {1.50, 1.35, 1.22, 1.14};

/* The GEMM of cuDNN's winograd_nonfused weight gradient (graph API engine
 * 17, cudnnFind's WINOGRAD_NONFUSED), one per Winograd point:
 * sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize{32x32,64x64,64x128}x8_stage3
 * with warps of 1x2, 1x4 and 1x4, 64, 128 and 128 threads, 90, 114 and 220
 * registers, grids of the filters' tiles alone ([2,2,36] for 64 -> 64
 * channels, [4,4,36] for 128 -> 128 with 32x32 and 256 -> 256 with 64x64,
 * [8,8,36] for 512 -> 512, [8,4,36] with 64x128 at batch 64 on 12x12);
 * Nsight Compute on the graph API's FP32 3x3 layer microbenchmarks
 * (validation/layerbench-h100/graph-3x3/): 1.727-1.730 warp instructions per
 * FFMA for 32x32 (five layers), 1.399-1.412 for 64x64 (three), 1.272 for
 * 64x128 (one). */
static const tile xmma_wino_tiles[] = {
    {32, 32, 32, 16, 64, 90, 3},
    {64, 64, 64, 16, 128, 114, 3},
    {64, 128, 64, 32, 128, 220, 3},
};
static const double xmma_wino_inst_per_ffma[] = {1.73, 1.40, 1.27};

typedef struct {
    const tile *tiles;
    const double *inst_per_ffma;
    int n_tiles;
} xmma_family;

static const xmma_family xmma_families[] = {
    [CP_GEMM_XMMA_NCHW_FP32] = {xmma_nchw_tiles, xmma_nchw_inst_per_ffma,
                                sizeof xmma_nchw_tiles / sizeof xmma_nchw_tiles[0]},
    [CP_GEMM_XMMA_CGEMM_FP32] = {xmma_cgemm_tiles, xmma_cgemm_inst_per_ffma,
                                 sizeof xmma_cgemm_tiles / sizeof xmma_cgemm_tiles[0]},
    [CP_GEMM_XMMA_WINO_WGRAD_FP32] = {xmma_wino_tiles, xmma_wino_inst_per_ffma,
                                      sizeof xmma_wino_tiles / sizeof xmma_wino_tiles[0]},
};

#define cdiv cp_cdiv

/* ceil(a / b) and floor(a / b) for whole b > 0 and 0 <= a < 2^50, given
 * inv = 1 / b: the product's guess is off by at most one and products of
 * whole numbers are exact, so one comparison each way corrects it. The tile
 * search does thousands of these; a division costs several multiplies. */
static inline double cdiv_inv(double a, double b, double inv)
{
    double t = (double)(long long)(a * inv);
    t += (double)(t * b < a); /* without branches: which way it is off is random */
    t -= (double)(t > 0 && (t - 1) * b >= a);
    return t;
}
static inline double fdiv_inv(double a, double b, double inv)
{
    double t = (double)(long long)(a * inv);
    t -= (double)(t * b > a);
    t += (double)((t + 1) * b <= a);
    return t;
}

/* A tile's block: launch configuration and its shared-memory pipeline,
 * as deep as the tile allows and one block's shared memory holds; the rest
 * of k zeroed. Returns the bytes of one stage. */
static int tile_block(cp_kernel *k, const cp_device *d, const tile *t, int bk, int elem_bytes, const char *what)
{
    int stage_bytes = (t->bm + t->bn) * bk * elem_bytes, stages = t->stages;
    while (stages > 2 && stages * stage_bytes > d->smem_per_block)
        stages--;
    memset(k, 0, sizeof *k);
    k->name = what;
    k->tile_m = t->bm;
    k->tile_n = t->bn;
    k->tile_k = bk;
    k->threads = t->threads;
    k->regs = t->regs;
    k->smem = stages * stage_bytes;
    k->stages = stages;
    return stage_bytes;
}

/* Tile i of one of cuDNN's xmma FP32 families: the same pipeline as
 * build_tile's SIMT tiles, issuing the family's measured instructions per
 * FFMA. */
static void build_xmma_tile(cp_kernel *k, const cp_device *d, const xmma_family *f, int i, const char *what)
{
    const tile *t = &f->tiles[i];
    const int b = 4, bk = 8, lanes_m = 8, lanes_n = 4;
    int stage_bytes = tile_block(k, d, t, bk, b, what);
    double warps = (double)t->threads / d->warp_size, units = (double)(t->bm / t->wm) * (t->bn / t->wn);
    /* a thread's tile over 8x4 lanes, its fragments as LDS.128 */
    double tm = (double)t->wm / lanes_m, tn = (double)t->wn / lanes_n;
    k->I = (double)(t->bm + t->bn) * bk / d->warp_size; /* scalar loads */
    k->ld_bytes = 4.0 * d->warp_size;
    k->M = warps * bk * (tm + tn) / 4.0;
    k->sm_bytes = (stage_bytes + units * (t->wm + t->wn) * (double)bk * b) / k->M;
    k->pipe = CP_PIPE_FMA;
    k->flops_per_L = 2.0 * d->warp_size;
    k->L = (double)t->bm * t->bn * bk / d->warp_size;
    k->other = (f->inst_per_ffma[i] - 1.0) * k->L - k->I - k->M;
    k->st_bytes = 512.0;
    k->coalesced = 1.0;
    k->precision = CP_PREC_FP32;
}

/* The tile's block: launch configuration and per-iteration counts. These do
 * not depend on the GEMM's shape, so each tile is built once per choice. */
static void build_tile(cp_kernel *k, const cp_device *d, cp_precision p, const tile *t, int tensor, int hopper,
                       const char *what)
{
    int b = cp_precision_bytes(p);
    /* One shared-memory stage holds 128 bytes of the reduction dimension per row. */
    int bk = tensor ? (hopper ? 128 : 64) / b : 8;
    int stage_bytes = tile_block(k, d, t, bk, b, what);
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
    k->st_bytes = 512.0;
    k->coalesced = 1.0;
    k->precision = p;
}

/* Stores of a tile's epilogue, in 512-byte warp accesses: the output tile,
 * or its fp32 partial sums when the reduction is split. */
static double epilogue_stores(const cp_kernel *t, int split)
{
    return (double)t->tile_m * t->tile_n * (split ? 4 : cp_precision_bytes(t->precision)) / 512.0;
}

/* Bytes of a block's epilogue that drain to DRAM: its output tile; split-K's
 * partial sums stay in L2 (their traffic is in split_dram_bytes). */
static double drain_bytes(const cp_kernel *t, int split)
{
    return split ? 0 : epilogue_stores(t, 0) * 512.0;
}

/* DRAM traffic of a GEMM split `splits` ways: split-K has every slice write
 * its fp32 partial tile and the last one read them back. */
static double split_dram_bytes(const cp_gemm *g, double splits)
{
    return g->unique_bytes + (splits > 1 ? (splits + 1) * g->M * g->N * g->count * 4.0 : 0);
}

/* The grid of a tile over one GEMM, its reduction split `splits` ways. */
static void set_grid(cp_kernel *k, const cp_gemm *g, double splits)
{
    k->splits = (int)splits;
    k->blocks = (long long)(cdiv(g->M, k->tile_m) * cdiv(g->N, k->tile_n) * g->count * splits);
    k->iters = (long long)cdiv(cdiv(g->K, splits), k->tile_k);
    if (k->iters < 1)
        k->iters = 1;
    k->K_end = epilogue_stores(k, splits > 1); /* once, after the last iteration */
    k->drain_bytes = drain_bytes(k, splits > 1);
    k->flops = 2.0 * g->M * g->N * g->K * g->count;
    k->dram_bytes = split_dram_bytes(g, splits);
}

/* The cycles cp_kernel_time gives tile i's grid over g, its reduction split
 * `splits` ways, computed from the tile's known per-iteration costs: the
 * same arithmetic, without building and evaluating a kernel per candidate. */
static double grid_cycles(const cp_gemm_tiles *tt, int i, const cp_device *d, const cp_gemm *g, double tiles_n,
                          double splits)
{
    const cp_block_cost *c = &tt->cost[i];
    /* whole numbers held in doubles (exact far beyond any grid), divided by
     * multiplying with inverses: a division is the slowest step here */
    /* ceil(ceil(K / splits) / BK) = ceil(K / (splits BK)), and splits and BK
     * are powers of two: the product with the inverse is exact */
    double iters = cp_ceil_whole(g->K * (tt->inv_k[i] / splits));
    if (iters < 1)
        iters = 1;
    double blocks = (double)(long long)(tiles_n * splits);
    if (blocks < 1)
        blocks = 1;
    double a = c->occ.blocks_per_sm, per_wave = tt->per_wave[i];
    double full = fdiv_inv(blocks, per_wave, tt->inv_wave[i]), rest = blocks - full * per_wave;
    double end = tt->end[i][splits > 1], out = tt->drain[i][splits > 1];
    double sm = full * (tt->round_full[i] * iters + cp_wave_epilogue_cycles(end, out, a, per_wave));
    if (rest > 0) {
        double tail = cdiv_inv(rest, d->sm_count, tt->inv_sm); /* 1...blocks_per_sm */
        double round = tail < CP_GEMM_TAIL_ROUNDS ? tt->round_tail[i][(int)tail] : cp_round_cycles(c, (int)tail);
        sm += round * iters + cp_wave_epilogue_cycles(end, out, tail, rest);
    }
    double dram = split_dram_bytes(g, splits) / d->dram_bytes_per_cycle;
    return dmax(sm, dram) + d->global_latency_cycles + d->launch_cycles;
}

/* The tiles of this device and precision, built once per table: their
 * launch configuration, per-iteration costs and the constants grid_cycles
 * needs. Returns the number of tiles. */
static int tiles_ready(cp_gemm_tiles *tt, const cp_device *d, cp_precision p, cp_gemm_family family)
{
    int tensor = p != CP_PREC_FP32 && d->tensor_tflops[p] > 0;
    int hopper = tensor && d->compute_capability[0] >= '9';
    const xmma_family *xmma = family != CP_GEMM_CUTLASS && p == CP_PREC_FP32 ? &xmma_families[family] : NULL;
    const tile *tiles = xmma ? xmma->tiles : tensor ? (hopper ? wgmma_tiles : mma_tiles) : simt_tiles;
    size_t n_tiles = xmma     ? (size_t)xmma->n_tiles
                     : tensor ? (hopper ? sizeof wgmma_tiles / sizeof wgmma_tiles[0] : sizeof mma_tiles / sizeof mma_tiles[0])
                              : sizeof simt_tiles / sizeof simt_tiles[0];
    if (n_tiles > CP_GEMM_MAX_TILES)
        n_tiles = CP_GEMM_MAX_TILES;
    if (!tt->ready) {
        for (size_t i = 0; i < n_tiles; i++) {
            if (xmma)
                build_xmma_tile(&tt->k[i], d, xmma, (int)i, NULL);
            else
                build_tile(&tt->k[i], d, p, &tiles[i], tensor, hopper, NULL);
            tt->fits[i] = cp_block_cost_of(&tt->k[i], d, &tt->cost[i], NULL) == 0;
            if (tt->fits[i]) {
                int a = tt->cost[i].occ.blocks_per_sm;
                tt->per_wave[i] = (double)a * d->sm_count;
                tt->inv_wave[i] = 1.0 / tt->per_wave[i];
                tt->inv_m[i] = 1.0 / tt->k[i].tile_m;
                tt->inv_n[i] = 1.0 / tt->k[i].tile_n;
                tt->inv_k[i] = 1.0 / tt->k[i].tile_k;
                tt->round_full[i] = cp_round_cycles(&tt->cost[i], a);
                for (int b = 1; b <= a && b < CP_GEMM_TAIL_ROUNDS; b++)
                    tt->round_tail[i][b] = cp_round_cycles(&tt->cost[i], b);
                const cp_block_cost *c = &tt->cost[i];
                tt->thr[i] = dmax(dmax(c->issue, c->compute), dmax(c->shared, c->global));
                for (int split = 0; split < 2; split++) {
                    cp_kernel k = tt->k[i];
                    k.K_end = epilogue_stores(&k, split);
                    tt->end[i][split] = cp_epilogue_cycles(&k, d);
                    tt->drain[i][split] = drain_bytes(&k, split) / d->dram_bytes_per_cycle;
                }
            }
        }
        tt->inv_sm = 1.0 / d->sm_count;
        tt->ready = 1;
    }
    return (int)n_tiles;
}

/* The largest split: slices of at least 64 (weight gradients) or 128
 * reduction steps. */
static inline double split_max(const cp_gemm *g)
{
    if (g->splitk_ok < 0 || g->family != CP_GEMM_CUTLASS)
        return 1;
    double min_slice = g->splitk_ok ? 64 : 128, s_max = 1;
    while (s_max < 1024 && 2 * s_max * min_slice <= g->K)
        s_max *= 2;
    return s_max;
}

/* The splits tried with tile i, fewest first and each once: unsplit, and
 * split just enough to fill one and two waves (beyond that more slices only
 * add partial sums). Returns how many. */
static inline int split_tries(const cp_gemm_tiles *tt, int i, double tiles_n, double s_max, double tries[3])
{
    double s_fill = 1;
    while (s_fill * tiles_n < tt->per_wave[i] && s_fill < s_max)
        s_fill *= 2;
    int n = 0;
    tries[n++] = 1;
    if (s_fill > 1)
        tries[n++] = s_fill;
    if (dmin(2 * s_fill, s_max) > tries[n - 1])
        tries[n++] = dmin(2 * s_fill, s_max);
    return n;
}

static inline double tiles_along(const cp_gemm_tiles *tt, int i, const cp_gemm *g)
{
    const cp_kernel *t = &tt->k[i];
    return cdiv_inv(g->M, t->tile_m, tt->inv_m[i]) * cdiv_inv(g->N, t->tile_n, tt->inv_n[i]) * g->count;
}

int cp_gemm_candidates(const cp_device *d, cp_precision p, const cp_gemm *g, cp_gemm_candidate *out, int max)
{
    cp_gemm_tiles *tt = malloc(sizeof *tt);
    if (!tt)
        return -1;
    tt->ready = tt->n_memo = 0;
    int n_tiles = tiles_ready(tt, d, p, g->family), n = 0;
    double s_max = split_max(g);
    for (int i = 0; i < n_tiles; i++) {
        if (!tt->fits[i])
            continue;
        double tiles_n = tiles_along(tt, i, g), tries[3];
        int n_tries = split_tries(tt, i, tiles_n, s_max, tries);
        for (int j = 0; j < n_tries && n < max; j++) {
            out[n].k = tt->k[i];
            out[n].k.name = "gemm_candidate";
            set_grid(&out[n].k, g, tries[j]);
            out[n].cycles = grid_cycles(tt, i, d, g, tiles_n, tries[j]);
            n++;
        }
    }
    free(tt);
    return n;
}

int cp_gemm_kernels(const cp_device *d, cp_precision p, const cp_gemm *g, const char *what, cp_gemm_tiles *tiles_done,
                    cp_kernel *out, int max, cp_error *err)
{
    if (max < 1)
        return cp_fail(err, NULL, NULL, "internal: no room for GEMM kernels");
    double best = INFINITY;
    int best_n = 0;
    cp_gemm_tiles local, *tt = tiles_done ? &tiles_done[g->family] : &local;
    if (!tiles_done)
        local.ready = 0, local.n_memo = 0;
    int n_tiles = tiles_ready(tt, d, p, g->family);
    /* solved already? (open addressing on the problem's sizes) */
    if (tt->n_memo == 0)
        memset(tt->memo_slot, 0xff, sizeof tt->memo_slot);
    unsigned long long h = (unsigned long long)g->splitk_ok;
    const double key[] = {g->M, g->N, g->K, g->count};
    for (int j = 0; j < 4; j++) {
        unsigned long long b;
        memcpy(&b, &key[j], sizeof b);
        h = (h ^ b) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    unsigned slot = (unsigned)h & (2 * CP_GEMM_MEMO - 1);
    for (; tt->memo_slot[slot] >= 0; slot = (slot + 1) & (2 * CP_GEMM_MEMO - 1)) {
        int m = tt->memo_slot[slot];
        const cp_gemm *q = &tt->memo_key[m];
        if (q->M == g->M && q->N == g->N && q->K == g->K && q->count == g->count &&
            q->unique_bytes == g->unique_bytes && q->splitk_ok == g->splitk_ok) {
            out[0] = tt->memo_k[m];
            out[0].name = what;
            return 1;
        }
    }
    /* Candidates are (tile, split) pairs: each tile unsplit, and split just
     * enough to fill one and two waves (beyond that more slices only add
     * partial sums). Each is timed by grid_cycles, the queue model's grid
     * arithmetic with the tile's per-iteration costs already known; only the
     * winner is built as a kernel.
     *
     * A tile's lower bound holds for every split: splitting never lowers
     * the block iterations (at least tiles x ceil(K / BK)), each costs an SM
     * at least the busiest of its issue, pipe, shared and L2 cycles, and the
     * grid moves at least the unique bytes. Tiles are tried from the lowest
     * bound up until a bound exceeds the best time. Ties go to fewer slices,
     * then to the earlier tile, whatever the order of trying. */
    double s_max = split_max(g);
    double fixed = d->global_latency_cycles + d->launch_cycles;
    double dram_lb = g->unique_bytes / d->dram_bytes_per_cycle;
    double lb[CP_GEMM_MAX_TILES], tiles_of[CP_GEMM_MAX_TILES];
    int order[CP_GEMM_MAX_TILES], n_order = 0;
    for (int i = 0; i < n_tiles; i++) {
        if (!tt->fits[i])
            continue; /* this tile does not fit the device */
        tiles_of[i] = tiles_along(tt, i, g);
        double work = tiles_of[i] * cp_ceil_whole(g->K * tt->inv_k[i]) * tt->thr[i] * tt->inv_sm;
        lb[i] = dmax(work, dram_lb) + fixed;
        int at = n_order++;
        while (at > 0 && lb[order[at - 1]] > lb[i]) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
    int best_tile = -1;
    double best_split = 1;
    for (int o = 0; o < n_order && lb[order[o]] <= best; o++) {
        int i = order[o];
        double tiles_n = tiles_of[i], tries[3];
        int n_tries = split_tries(tt, i, tiles_n, s_max, tries);
        for (int j = 0; j < n_tries; j++) {
            double c = grid_cycles(tt, i, d, g, tiles_n, tries[j]);
            if (c < best || (c == best && (tries[j] < best_split || (tries[j] == best_split && i < best_tile)))) {
                best = c;
                best_tile = i;
                best_split = tries[j];
            }
        }
    }
    if (best_tile >= 0) {
        out[0] = tt->k[best_tile];
        out[0].name = what;
        set_grid(&out[0], g, best_split);
        best_n = 1;
    }
    if (best_n == 0)
        return cp_fail(err, NULL, NULL, "%s: no GEMM tile fits on %s", what, d->name);
    if (tt->n_memo < CP_GEMM_MEMO) {
        tt->memo_slot[slot] = (short)tt->n_memo;
        tt->memo_key[tt->n_memo] = *g;
        tt->memo_k[tt->n_memo++] = out[0];
    }
    return best_n;
}
