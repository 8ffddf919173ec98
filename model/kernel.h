/* kernel: one CUDA kernel as the instruction-queue model sees it.
 *
 * A kernel is a grid of blocks; each block runs `iters` block iterations, and
 * each iteration issues, per block, I global loads, M shared-memory accesses,
 * L compute instructions and K global stores (dissertation Table 6-1), all
 * counted in warp instructions. cp_kernel_evaluate() turns that into cycles
 * with the instruction-queue model (Eq. 6-9...6-11), the occupancy model
 * (Eq. 3-1...3-15) and the latency-hiding condition (Eq. 3-16...3-23). */
#ifndef CP_KERNEL_H
#define CP_KERNEL_H

#include "device.h"
#include "occupancy.h"

typedef enum { CP_PIPE_FMA, CP_PIPE_TENSOR } cp_pipe;

/* ceil(q) for 0 <= q < 2^63, and ceil(a / b) for positive a and b, inline
 * (libm's ceil is a call on baseline x86-64, and the tile search does
 * thousands of them). */
static inline double cp_ceil_whole(double q)
{
    long long t = (long long)q;
    return (double)(t + (q > (double)t));
}
static inline double cp_cdiv(double a, double b)
{
    return cp_ceil_whole(a / b);
}
typedef enum { CP_BOUND_COMPUTE, CP_BOUND_MEMORY, CP_BOUND_LATENCY } cp_bound;

const char *cp_bound_name(cp_bound b);

typedef struct {
    const char *name; /* static text, e.g. "conv_fprop"; GEMM tiles add the fields below */
    int tile_m, tile_n, tile_k; /* GEMM block tile, 0 for other kernels */
    int splits;                 /* split-K slices, 1 if not split */
    long long blocks; /* N_CB */
    int threads;      /* N_TB */
    int regs;         /* R_RT, registers per thread */
    int smem;         /* M_BS, bytes per block */
    int stages;       /* software-pipeline depth: global latency is hidden over this many iterations */
    long long iters;  /* block iterations each block runs */

    /* per block and per block iteration, in warp instructions */
    double I, M, L, K;
    double other;    /* address, loop and barrier instructions: they take issue slots */
    double K_end;    /* global stores once per block after its last iteration (a GEMM's epilogue) */
    double drain_bytes; /* of those, the bytes that go on to DRAM: an unsplit GEMM's output tile; 0 where
                           L2 holds them (split-K partial sums, weight-gradient atomics) */
    double ld_bytes; /* bytes one global-load warp instruction moves (128 = 4 B per thread) */
    double sm_bytes; /* bytes one shared-memory warp instruction moves */
    double st_bytes;
    double coalesced; /* R_Co of Eq. 3-25: share of global accesses that coalesce */

    cp_pipe pipe;
    cp_precision precision;
    double flops_per_L; /* floating-point operations of one compute warp instruction */

    /* whole-kernel totals */
    double flops;      /* useful floating-point operations */
    double dram_bytes; /* traffic between DRAM and L2 */
    double dispatch_cycles; /* GPU-wide clocks to hand out one block: CP_BLOCK_DISPATCH_CYCLES for
                               cp_tiny_block_kernel's grids, 0 (not modelled) for the rest */
    /* launches of this same grid one after another (a library looping over
     * groups): the fields above describe one launch, the evaluation's time
     * is all of them; 0 or 1: one */
    double repeat;
} cp_kernel;

/* How many launches k stands for (its repeat, at least 1). */
static inline double cp_kernel_launches(const cp_kernel *k) { return k->repeat > 1 ? k->repeat : 1; }

typedef struct {
    cp_occupancy occ;
    int resident_warps;  /* warps of the busiest wave on one SM */
    long long waves;     /* ceil(N_CB / (N_AB N_SM)), Eq. 3-21 */
    /* cycles of one block-iteration round on one SM with N_AB blocks */
    double c_issue;      /* all warp instructions through the schedulers */
    double c_compute;    /* L through the FMA or tensor pipe */
    double c_shared;     /* M through the shared-memory banks */
    double c_global;     /* I and K through the SM's share of L2 */
    double c_latency;    /* exposed global latency when warps cannot cover it (Eq. 3-16) */
    double c_round;      /* C_b */
    double rounds;       /* N_block: rounds over the whole grid */
    double sm_cycles;    /* C_b x N_block */
    double dram_cycles;  /* DRAM traffic at sustained bandwidth */
    double tail_cycles;  /* L_GL (Eq. 6-10) or L_GS (Eq. 6-11) */
    double launch_cycles;
    double cycles;       /* C_kernel */
    double time_ms;      /* Eq. 6-9: C_kernel x t_Gclock */
    int memory_intensive; /* 1: Eq. 6-10 regime, 0: Eq. 6-11 */
    cp_bound bound;
} cp_kernel_eval;

/* Instruction-queue model. Returns -1 (with a message) if the kernel cannot
 * be launched on the device at all. */
int cp_kernel_evaluate(const cp_kernel *k, const cp_device *d, cp_kernel_eval *e, cp_error *err);
/* The time of n kernels run back to back, in ms: their Eq. 6-9 times added,
 * stopping once the sum reaches `enough` (INFINITY: all of them), as a search
 * for the fastest decomposition needs no more; -1 on error. */
double cp_kernels_ms(const cp_kernel *k, int n, const cp_device *d, double enough, cp_error *err);

/* The evaluation in its two steps. What one block iteration costs depends
 * only on the launch configuration and the per-iteration counts, so a caller
 * trying many grids of one kernel (tile choice) computes it once. */
typedef struct {
    cp_occupancy occ;
    double issue, compute, shared, global; /* cycles of one block iteration of one block */
    double chain;                          /* a warp's own instructions in one iteration */
    double latency;                        /* global latency left after software pipelining */
} cp_block_cost;

int cp_block_cost_of(const cp_kernel *k, const cp_device *d, cp_block_cost *c, cp_error *err);
/* Times the grid of k (blocks, iterations, epilogue, DRAM traffic) given c. */
void cp_kernel_time(const cp_kernel *k, const cp_device *d, const cp_block_cost *c, cp_kernel_eval *e);
/* Cycles of a block's epilogue (its K_end stores). */
double cp_epilogue_cycles(const cp_kernel *k, const cp_device *d);
/* Cycles a wave of wave_blocks blocks (per_sm on each SM) spends in its
 * epilogues. The blocks of a wave finish their main loops together, so the
 * output tiles they store queue for DRAM at once (docs/ACCURACY.md, rule
 * 12c): the wave's output at DRAM bandwidth (drain: cycles of one block's
 * drain_bytes at the device's DRAM bytes per cycle), or each SM's stores
 * through its share of L2 (end per block), whichever is longer. Inline: the
 * tile chooser times every candidate grid with it. */
static inline double cp_wave_epilogue_cycles(double end, double drain, double per_sm, double wave_blocks)
{
    double sm = per_sm * end, dram = wave_blocks * drain;
    return sm > dram ? sm : dram;
}
/* C_b: cycles of one round of block iterations with `blocks` resident per SM. */
double cp_round_cycles(const cp_block_cost *c, int blocks);

/* --- kernels that cuDNN and cuBLAS run ------------------------------------ */

/* Which kernels run a GEMM. CP_GEMM_CUTLASS: the CUTLASS-style tiles of
 * cuBLAS and cuDNN, the fastest the model times, split-K allowed. The
 * others are cuDNN's own FP32 kernels, a few fixed tiles each with their
 * measured instruction mix and no split (model/gemm.c):
 * CP_GEMM_XMMA_NCHW_FP32 the implicit-GEMM forward on NCHW tensors (graph
 * API engine 70, PyTorch's path); CP_GEMM_XMMA_CGEMM_FP32 the complex GEMM
 * of an FFT convolution per frequency, given as the real GEMM twice as wide
 * and twice as deep (its tiles in those real terms); CP_GEMM_XMMA_WINO_WGRAD_FP32
 * the per-point GEMM of winograd_nonfused's weight gradient. */
typedef enum {
    CP_GEMM_CUTLASS = 0,
    CP_GEMM_XMMA_NCHW_FP32,
    CP_GEMM_XMMA_CGEMM_FP32,
    CP_GEMM_XMMA_WINO_WGRAD_FP32,
    CP_GEMM_FAMILY_COUNT
} cp_gemm_family;

/* A (batched) GEMM C[M x N] = A[M x K] B[K x N], `count` independent copies
 * (groups). unique_bytes is the data a kernel must read and write at least
 * (the tensors themselves, not im2col copies). */
typedef struct {
    double M, N, K;
    double count;
    double unique_bytes;
    int splitk_ok; /* long reduction (weight gradients): split even into short slices; -1: never split
                      (a library kernel whose grid is its tiles alone) */
    cp_gemm_family family; /* whose kernels: CUTLASS-like (0) or cuDNN's NCHW FP32 xmma convolutions */
} cp_gemm;

#define CP_GEMM_MAX_TILES 12
/* The tiles' blocks and what one of their iterations costs: the same for
 * every GEMM of one device and precision, so a prediction computes them
 * once. Set ready and n_memo to 0 before first use (the rest need not be
 * cleared); valid for one device and precision. */
typedef struct {
    int ready;
    cp_kernel k[CP_GEMM_MAX_TILES];
    cp_block_cost cost[CP_GEMM_MAX_TILES];
    int fits[CP_GEMM_MAX_TILES];
    double per_wave[CP_GEMM_MAX_TILES]; /* blocks in one full wave */
    double round_full[CP_GEMM_MAX_TILES]; /* C_b of a full wave, in cycles */
#define CP_GEMM_TAIL_ROUNDS 16
    double round_tail[CP_GEMM_MAX_TILES][CP_GEMM_TAIL_ROUNDS]; /* C_b of a last wave of 1...N_AB blocks per SM */
    double end[CP_GEMM_MAX_TILES][2];     /* epilogue cycles per block: unsplit, split */
    double drain[CP_GEMM_MAX_TILES][2];   /* DRAM cycles of a block's epilogue's drain_bytes: unsplit, split */
    double thr[CP_GEMM_MAX_TILES];        /* the least cycles one block iteration holds an SM */
    /* inverses of the tile's sides and wave, and of the SM count */
    double inv_m[CP_GEMM_MAX_TILES], inv_n[CP_GEMM_MAX_TILES], inv_k[CP_GEMM_MAX_TILES];
    double inv_wave[CP_GEMM_MAX_TILES], inv_sm;
    /* GEMMs already solved in this prediction (a bottleneck's data gradient
     * is often another layer's forward GEMM): problem -> chosen kernel */
#define CP_GEMM_MEMO 64
    int n_memo;
    cp_gemm memo_key[CP_GEMM_MEMO];
    cp_kernel memo_k[CP_GEMM_MEMO];
    short memo_slot[2 * CP_GEMM_MEMO]; /* hash slots: memo index or -1 */
} cp_gemm_tiles;

/* Chooses, like cudnnFind / cuBLAS heuristics, the fastest tile
 * configuration (and split-K factor) for this GEMM on the device and writes
 * its kernel. tiles is NULL or CP_GEMM_FAMILY_COUNT tables, one per family
 * (g->family picks it), each with `ready` and `n_memo` zeroed before first
 * use and then kept for one device and precision. Returns the number of
 * kernels written (1), or -1. */
int cp_gemm_kernels(const cp_device *d, cp_precision p, const cp_gemm *g, const char *what, cp_gemm_tiles *tiles,
                    cp_kernel *out, int max, cp_error *err);

/* Every (tile, split) cp_gemm_kernels considers for g, built as a kernel,
 * with the cycles the search timed it at (grid arithmetic on the tile's
 * known per-iteration costs, standing in for cp_kernel_evaluate): for tests,
 * which hold the two equal. Returns how many were written, or -1 when out
 * of memory. */
typedef struct {
    cp_kernel k;
    double cycles;
} cp_gemm_candidate;
int cp_gemm_candidates(const cp_device *d, cp_precision p, const cp_gemm *g, cp_gemm_candidate *out, int max);

/* How fast the GPU hands out thread blocks bounds a grid of many tiny
 * blocks however little each does. cuDNN's flip_filter, one 9-thread block
 * per 3x3 filter ahead of an FFT forward, shows it on the H100: 262,144
 * blocks took 160 us under Nsight Compute, about 136 us at full clock, and
 * 167-199 us in PyTorch's trace, 1.0-1.5 clocks a block
 * (validation/layerbench-h100/graph-3x3-ffma/, the 512 -> 512 12x12 layer;
 * validation/h100/ncu/kernels-torch-networks-h100.json.xz, VGG-11). Whether
 * other grids (a copy in 64-thread blocks) meet the same floor was not
 * measured, so only cp_tiny_block_kernel's kernels carry it. */
#define CP_BLOCK_DISPATCH_CYCLES 1.0

/* One block per small item (a filter), `threads` threads each moving
 * bytes_in / items and bytes_out / items: cuDNN's flip_filter. */
cp_kernel cp_tiny_block_kernel(const cp_device *d, cp_precision p, const char *name, double items, int threads,
                               double bytes_in, double bytes_out);

/* A memory-streaming kernel: `items` independent work items (one thread
 * each, vectorised by 4), reading bytes_in and writing bytes_out in total and
 * doing `flops` on the FMA pipe. Element-wise, reduction and window kernels
 * (activation, batch norm, pooling, LRN, softmax, SGD) are all of this form. */
cp_kernel cp_stream_kernel(const cp_device *d, cp_precision p, const char *name, double items, double bytes_in,
                           double bytes_out, double flops);

/* A direct (depthwise or small-group) convolution: each output element does
 * `macs_per_out` multiply-adds on the FMA pipe from a window held in shared
 * memory, each holding the schedulers `slots_per_mac` issue slots (2: its
 * operand load and its FMA, nothing waiting). */
/* A per-channel kernel, as cuDNN's batch normalisation for NCHW tensors
 * runs: one block per channel walks that channel's per_channel elements of
 * every image, so fewer channels than SMs leave SMs idle and each block's
 * loads in flight bound its bandwidth (the queue model's latency floor).
 * `serial` is how many of an element's tensor accesses wait on memory one
 * after another (1: all of them in flight together); each is a round; 0:
 * the block loads its whole channel at once into registers (cuDNN's
 * single-read kernels), one round however long the channel.
 * `instr` is the thread instructions the kernel spends on an element (0:
 * its arithmetic alone), which bound an SM however many blocks it holds. */
cp_kernel cp_channel_kernel(const cp_device *d, cp_precision p, const char *name, double channels,
                            double per_channel, int serial, double instr, double bytes_in, double bytes_out,
                            double flops);

cp_kernel cp_direct_conv_kernel(const cp_device *d, cp_precision p, const char *name, double outputs,
                                double macs_per_out, double slots_per_mac, double bytes_in, double bytes_out);

/* Which tile cuDNN's wgrad_alg0_engine takes: cudnnFind's heuristic over
 * the legacy API, or the graph API's engine 20 (PyTorch's path). */
typedef enum { CP_WGRAD_TILES_FIND, CP_WGRAD_TILES_GRAPH } cp_wgrad_tiles;

/* The FP32 weight gradient dW[m x n] (m output channels, n = input channels
 * x `taps` filter taps) reduced over `images` x `plane` output pixels, as
 * cuDNN runs it on NCHW tensors: the fastest of its weight-gradient kernels
 * (model/wgrad.c). Writes up to 3 kernels (layout transposes first);
 * returns how many, 0 if max is too small, or -1. */
int cp_wgrad_fp32_kernels(const cp_device *d, cp_wgrad_tiles tiles, double m, double n, double taps, double images,
                          double plane, double x_bytes, double dy_bytes, cp_kernel *out, int max, cp_error *err);

#endif
