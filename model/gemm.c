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

#define cdiv cp_cdiv

/* The tile's block: launch configuration and per-iteration counts. These do
 * not depend on the GEMM's shape, so each tile is built once per choice. */
static void build_tile(cp_kernel *k, const cp_device *d, cp_precision p, const tile *t, int tensor, int hopper,
                       const char *what)
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
    k->threads = t->threads;
    k->regs = t->regs;
    k->smem = stages * stage_bytes;
    k->stages = stages;
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

/* The grid of a tile over one GEMM, its reduction split `splits` ways. */
static void set_grid(cp_kernel *k, const cp_gemm *g, double splits)
{
    k->splits = (int)splits;
    k->blocks = (long long)(cdiv(g->M, k->tile_m) * cdiv(g->N, k->tile_n) * g->count * splits);
    k->iters = (long long)cdiv(cdiv(g->K, splits), k->tile_k);
    if (k->iters < 1)
        k->iters = 1;
    /* The epilogue writes the tile once, after the last iteration. */
    double out_bytes = (double)k->tile_m * k->tile_n * (splits > 1 ? 4 : cp_precision_bytes(k->precision));
    k->K_end = out_bytes / 512.0;
    k->flops = 2.0 * g->M * g->N * g->K * g->count;
    /* split-K: every slice writes its fp32 partial tile, the last one reads them back */
    k->dram_bytes = g->unique_bytes + (splits > 1 ? (splits + 1) * g->M * g->N * g->count * 4.0 : 0);
}

int cp_gemm_kernels(const cp_device *d, cp_precision p, const cp_gemm *g, const char *what, cp_gemm_tiles *tiles_done,
                    cp_kernel *out, int max, cp_error *err)
{
    if (max < 1)
        return cp_fail(err, NULL, NULL, "internal: no room for GEMM kernels");
    int tensor = p != CP_PREC_FP32 && d->tensor_tflops[p] > 0;
    int hopper = tensor && d->compute_capability[0] >= '9';
    const tile *tiles = tensor ? (hopper ? wgmma_tiles : mma_tiles) : simt_tiles;
    size_t n_tiles = tensor ? (hopper ? sizeof wgmma_tiles / sizeof wgmma_tiles[0] : sizeof mma_tiles / sizeof mma_tiles[0])
                            : sizeof simt_tiles / sizeof simt_tiles[0];
    double best = INFINITY;
    int best_n = 0;
    double fixed_ms = (d->launch_overhead_us * 1e-3) + d->global_latency_cycles / (d->core_clock_mhz * 1e3);
    cp_gemm_tiles local, *tt = tiles_done ? tiles_done : &local;
    if (!tiles_done)
        local.ready = 0, local.n_memo = 0;
    if (!tt->ready) {
        for (size_t i = 0; i < n_tiles && i < CP_GEMM_MAX_TILES; i++) {
            build_tile(&tt->k[i], d, p, &tiles[i], tensor, hopper, NULL);
            tt->fits[i] = cp_block_cost_of(&tt->k[i], d, &tt->cost[i], NULL) == 0;
            if (tt->fits[i]) {
                int a = tt->cost[i].occ.blocks_per_sm;
                tt->per_wave[i] = (double)a * d->sm_count;
                tt->round_ms[i] = cp_round_cycles(&tt->cost[i], a) / d->cycles_per_ms;
                tt->floor_ms[i] = cp_round_cycles(&tt->cost[i], 1) / d->cycles_per_ms;
            }
        }
        tt->ready = 1;
    }
    for (int m = 0; m < tt->n_memo; m++) {
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
     * partial sums). A candidate's lower bound is its block iterations
     * spread evenly over full waves at C_b each, plus the fixed costs (a
     * partial wave, the epilogue or a DRAM-bound grid only add). Trying them
     * from the lowest bound up, the first bound above the best time so far
     * ends the search. */
    enum { MAX_CAND = 3 * CP_GEMM_MAX_TILES };
    /* the most slices: each keeps at least a minimum share of the reduction */
    double min_slice = g->splitk_ok ? 64 : 128, s_max = 1;
    while (s_max < 1024 && 2 * s_max * min_slice <= g->K)
        s_max *= 2;
    double lb[MAX_CAND], split[MAX_CAND];
    double dram_per_ms = d->dram_bytes_per_cycle * d->cycles_per_ms;
    int tile_of[MAX_CAND], n_cand = 0;
    for (size_t i = 0; i < n_tiles && i < CP_GEMM_MAX_TILES; i++) {
        if (!tt->fits[i])
            continue; /* this tile does not fit the device */
        const cp_kernel *t = &tt->k[i];
        double tiles_n = cdiv(g->M, t->tile_m) * cdiv(g->N, t->tile_n) * g->count;
        double s_fill = 1;
        while (s_fill * tiles_n < tt->per_wave[i] && s_fill < s_max)
            s_fill *= 2;
        double tries[3] = {1, s_fill, dmin(2 * s_fill, s_max)};
        for (int j = 0; j < 3; j++) {
            if (j > 0 && tries[j] == tries[j - 1])
                continue;
            double iters = dmax(1, cdiv(cdiv(g->K, tries[j]), t->tile_k));
            double dram = g->unique_bytes + (tries[j] > 1 ? (tries[j] + 1) * g->M * g->N * g->count * 4.0 : 0);
            double sm = dmax(tiles_n * tries[j] / tt->per_wave[i], 1.0) * iters *
                        (tiles_n * tries[j] >= tt->per_wave[i] ? tt->round_ms[i] : tt->floor_ms[i]);
            lb[n_cand] = dmax(sm, dram / dram_per_ms) + fixed_ms;
            split[n_cand] = tries[j];
            tile_of[n_cand++] = (int)i;
        }
    }
    /* in the order of their bounds (insertion sort: a few dozen), until a
     * bound cannot beat the best */
    int order[MAX_CAND];
    for (int j = 0; j < n_cand; j++) {
        int at = j;
        while (at > 0 && lb[order[at - 1]] > lb[j]) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = j;
    }
    for (int o = 0; o < n_cand && lb[order[o]] < best; o++) {
        int c = order[o], i = tile_of[c];
        cp_kernel k = tt->k[i];
        cp_kernel_eval e;
        k.name = what;
        set_grid(&k, g, split[c]);
        cp_kernel_time(&k, d, &tt->cost[i], &e);
        if (e.time_ms < best) {
            best = e.time_ms;
            best_n = 1;
            out[0] = k;
        }
    }
    if (best_n == 0)
        return cp_fail(err, NULL, NULL, "%s: no GEMM tile fits on %s", what, d->name);
    if (tt->n_memo < CP_GEMM_MEMO) {
        tt->memo_key[tt->n_memo] = *g;
        tt->memo_k[tt->n_memo++] = out[0];
    }
    return best_n;
}
