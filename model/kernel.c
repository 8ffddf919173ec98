/* The instruction-queue kernel model (dissertation Eq. 6-9...6-11) and the
 * streaming kernels that make up the non-GEMM layers.
 *
 * One block iteration of a block issues I global loads, M shared accesses,
 * L compute instructions and K global stores. With N_AB blocks resident on
 * an SM, one round of block iterations costs C_b cycles: the largest of what
 * the schedulers, the compute pipe, the shared-memory banks and the SM's
 * share of L2 can absorb (the others overlap with it), but never less than a
 * warp's own dependent chain plus the global latency the pipeline cannot hide
 * (Eq. 3-16: when N_w x T_C < T_M the latency shows). If memory dominates
 * the kernel is memory-intensive (Eq. 6-10: C = C_b N_block + L_GL), otherwise
 * compute-intensive (Eq. 6-11: C = C_b N_block + L_GS). DRAM is shared by all
 * SMs, so the grid as a whole can be no faster than its DRAM traffic. */
#include "kernel.h"

/* fmax/fmin without the NaN rules (no NaN reaches here): they inline. */
static inline double dmax(double a, double b) { return a > b ? a : b; }

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char *cp_bound_name(cp_bound b)
{
    static const char *const names[] = {"compute", "memory", "latency"};
    return names[b];
}

static double pipe_rate(const cp_kernel *k, const cp_device *d)
{
    double clock = d->core_clock_mhz * 1e6;
    if (k->pipe == CP_PIPE_TENSOR && d->tensor_tflops[k->precision] > 0)
        return d->tensor_tflops[k->precision] * 1e12 / (d->sm_count * clock) / k->flops_per_L;
    /* FMA lanes: one warp instruction occupies warp_size lanes. */
    return d->fp32_lanes_per_sm / d->warp_size;
}

int cp_block_cost_of(const cp_kernel *k, const cp_device *d, cp_block_cost *c, cp_error *err)
{
    if (cp_occupancy_calc(d, k->threads, k->regs, k->smem, &c->occ, err))
        return -1;
    double l2_per_clock = d->l2_bytes_per_cycle;
    /* Eq. 3-24...3-26: an uncoalesced warp access is split into one 32-byte
     * sector per thread instead of sharing full lines. */
    double unco = 1.0 - k->coalesced;
    double ld = k->coalesced * k->ld_bytes + unco * dmax(k->ld_bytes, 32.0 * d->warp_size);
    double st = k->coalesced * k->st_bytes + unco * dmax(k->st_bytes, 32.0 * d->warp_size);
    double instr = k->I + k->M + k->L + k->K + k->other;
    c->issue = instr / d->schedulers_per_sm;
    c->compute = k->L / pipe_rate(k, d);
    c->shared = k->M * k->sm_bytes / d->smem_bytes_per_clock;
    c->global = (k->I * ld + k->K * st) / l2_per_clock;
    c->chain = instr / c->occ.warps_per_block;
    c->latency = k->I > 0 ? d->global_latency_cycles / (k->stages > 0 ? k->stages : 1) : 0;
    return 0;
}

/* C_b for `a` resident blocks; *latency_bound tells whether the floor won. */
static double round_cycles(const cp_block_cost *c, int a, int *latency_bound)
{
    double thr = a * dmax(dmax(c->issue, c->compute), dmax(c->shared, c->global));
    double floor_ = c->latency + c->chain;
    if (latency_bound)
        *latency_bound = floor_ > thr;
    return dmax(thr, floor_);
}

double cp_round_cycles(const cp_block_cost *c, int blocks)
{
    return round_cycles(c, blocks, NULL);
}

int cp_kernel_evaluate(const cp_kernel *k, const cp_device *d, cp_kernel_eval *e, cp_error *err)
{
    cp_block_cost c;
    if (cp_block_cost_of(k, d, &c, err))
        return -1;
    cp_kernel_time(k, d, &c, e);
    return 0;
}

double cp_kernels_ms(const cp_kernel *k, int n, const cp_device *d, double enough, cp_error *err)
{
    double t = 0;
    for (int i = 0; i < n && t < enough; i++) {
        cp_kernel_eval e;
        if (cp_kernel_evaluate(&k[i], d, &e, err))
            return -1;
        t += e.time_ms;
    }
    return t;
}

double cp_epilogue_cycles(const cp_kernel *k, const cp_device *d)
{
    /* The epilogue's stores, once per block, through the SM's share of L2. */
    if (k->K_end <= 0)
        return 0;
    return dmax(k->K_end / d->schedulers_per_sm, k->K_end * k->st_bytes / d->l2_bytes_per_cycle);
}

void cp_kernel_time(const cp_kernel *k, const cp_device *d, const cp_block_cost *cost, cp_kernel_eval *e)
{
    const cp_block_cost c = *cost;
    /* every field of e is set below (no memset: this runs for every kernel) */
    e->occ = c.occ;
    int A = e->occ.blocks_per_sm;
    e->c_issue = A * c.issue;
    e->c_compute = A * c.compute;
    e->c_shared = A * c.shared;
    e->c_global = A * c.global;
    double end = cp_epilogue_cycles(k, d), drain = k->drain_bytes / d->dram_bytes_per_cycle;

    /* Waves of N_AB x N_SM blocks (Eq. 3-21), the last one possibly partial. */
    long long per_wave = (long long)A * d->sm_count;
    long long blocks = k->blocks > 0 ? k->blocks : 1;
    long long full = blocks / per_wave, rest = blocks % per_wave;
    int lat_full = 0, lat_tail = 0;
    double iters = k->iters > 0 ? (double)k->iters : 1.0;
    e->c_round = round_cycles(&c, A, &lat_full);
    double sm = (double)full * (e->c_round * iters + cp_wave_epilogue_cycles(end, drain, A, (double)per_wave));
    int tail_blocks = 0;
    if (rest) {
        tail_blocks = (int)((rest + d->sm_count - 1) / d->sm_count);
        sm += round_cycles(&c, tail_blocks, &lat_tail) * iters +
              cp_wave_epilogue_cycles(end, drain, tail_blocks, (double)rest);
    }
    e->waves = full + (rest ? 1 : 0);
    e->resident_warps = (full ? A : tail_blocks) * e->occ.warps_per_block;
    e->rounds = (double)e->waves * iters;
    e->sm_cycles = sm;
    e->c_latency = (full ? lat_full : lat_tail) ? c.latency : 0;

    e->dram_cycles = k->dram_bytes / d->dram_bytes_per_cycle;

    double mem = dmax(c.shared, c.global), comp = dmax(c.issue, c.compute);
    e->memory_intensive = e->dram_cycles > e->sm_cycles || mem > comp;
    /* Eq. 6-10 ends with the last load's latency, Eq. 6-11 with the last store's. */
    e->tail_cycles = d->global_latency_cycles;
    e->launch_cycles = d->launch_cycles;
    double dispatch = (double)blocks * k->dispatch_cycles; /* the grid's blocks handed out */
    e->cycles = (dmax(dmax(e->sm_cycles, e->dram_cycles), dispatch) + e->tail_cycles + e->launch_cycles) *
                cp_kernel_launches(k);
    e->time_ms = e->cycles / d->cycles_per_ms; /* Eq. 6-9: C x t_Gclock */

    int latency_rounds = full ? lat_full : lat_tail;
    double per_launch = e->cycles / cp_kernel_launches(k);
    if (e->launch_cycles + e->tail_cycles > 0.5 * per_launch || (latency_rounds && e->dram_cycles < e->sm_cycles))
        e->bound = CP_BOUND_LATENCY;
    else
        e->bound = e->memory_intensive ? CP_BOUND_MEMORY : CP_BOUND_COMPUTE;
}

/* --- streaming and direct kernels ------------------------------------------ */

#define STREAM_THREADS 256
#define STREAM_VEC 4          /* elements per thread: 16-byte vector loads */
#define WARP_VEC_BYTES 512.0  /* one 16-byte-per-thread warp access */
#define CHANNEL_THREADS 256   /* a per-channel kernel's block */

#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
_Static_assert(sizeof(cp_kernel) == 192, "cp_stream_kernel sets every field of cp_kernel: set the new one there");
_Static_assert(sizeof(cp_kernel_eval) == 176, "cp_kernel_time sets every field of cp_kernel_eval: set the new one there");
#endif

cp_kernel cp_stream_kernel(const cp_device *d, cp_precision p, const char *name, double items, double bytes_in,
                           double bytes_out, double flops)
{
    /* powers of two: multiplying by the inverse is exact, and cheaper */
    double threads = cp_ceil_whole(dmax(items, 1.0) * (1.0 / STREAM_VEC));
    long long blocks = (long long)cp_ceil_whole(threads * (1.0 / STREAM_THREADS));
    double per_block = 1.0 / (double)blocks;
    /* field by field: a zeroing initialiser compiles to `rep stos`, slow
     * for one small struct, and most layer passes build these */
    cp_kernel k;
    k.name = name;
    k.tile_m = k.tile_n = k.tile_k = 0;
    k.splits = 1;
    k.blocks = blocks;
    k.threads = STREAM_THREADS;
    k.regs = 32;
    k.smem = 0;
    k.stages = 1;
    k.iters = 1;
    k.I = bytes_in * per_block * (1.0 / WARP_VEC_BYTES);
    k.M = 0;
    k.L = flops * per_block / d->warp_size;
    k.K = bytes_out * per_block * (1.0 / WARP_VEC_BYTES);
    k.other = STREAM_THREADS / d->warp_size * 8; /* index arithmetic and bounds checks */
    k.K_end = 0;
    k.drain_bytes = 0;
    k.ld_bytes = k.st_bytes = WARP_VEC_BYTES;
    k.sm_bytes = 128;
    k.coalesced = 1.0;
    k.pipe = CP_PIPE_FMA;
    k.precision = p;
    k.flops_per_L = d->warp_size;
    k.flops = flops;
    k.dram_bytes = bytes_in + bytes_out;
    k.dispatch_cycles = 0;
    k.repeat = 1;
    return k;
}

cp_kernel cp_tiny_block_kernel(const cp_device *d, cp_precision p, const char *name, double items, int threads,
                               double bytes_in, double bytes_out)
{
    cp_kernel k = cp_stream_kernel(d, p, name, items, bytes_in, bytes_out, 0);
    double per_block = 1.0 / dmax(items, 1.0);
    k.blocks = (long long)dmax(items, 1.0);
    k.threads = threads;
    /* a warp's one load and one store, however few bytes, and its indexing */
    k.I = 1;
    k.K = 1;
    k.ld_bytes = dmax(bytes_in * per_block, 4.0);
    k.st_bytes = dmax(bytes_out * per_block, 4.0);
    k.other = 64;
    k.dispatch_cycles = CP_BLOCK_DISPATCH_CYCLES;
    return k;
}

cp_kernel cp_direct_conv_kernel(const cp_device *d, cp_precision p, const char *name, double outputs,
                                double macs_per_out, double slots_per_mac, double bytes_in, double bytes_out)
{
    /* A thread computes enough outputs for a few dozen multiply-adds; the
     * window comes from shared memory, one operand load per multiply-add,
     * and each multiply-add holds the schedulers slots_per_mac issue slots
     * in all (at least those two; stalls counted as slots, as model/wgrad.c
     * does). */
    double per_thread = cp_cdiv(32.0, dmax(macs_per_out, 1.0));
    cp_kernel k = cp_stream_kernel(d, p, name, outputs / per_thread * STREAM_VEC, bytes_in, bytes_out,
                                   2.0 * outputs * macs_per_out);
    double per_block = outputs / (double)k.blocks;
    k.L = per_block * macs_per_out / d->warp_size;
    k.M = k.L;
    k.other += dmax(slots_per_mac - 2.0, 0.0) * k.L;
    k.sm_bytes = 128;
    k.smem = 8192;
    k.regs = 40;
    k.flops_per_L = 2.0 * d->warp_size;
    return k;
}

cp_kernel cp_channel_kernel(const cp_device *d, cp_precision p, const char *name, double channels,
                            double per_channel, int serial, double instr, double bytes_in, double bytes_out,
                            double flops)
{
    cp_kernel k = cp_stream_kernel(d, p, name, channels * per_channel, bytes_in, bytes_out, flops);
    k.threads = CHANNEL_THREADS;
    k.blocks = (long long)dmax(channels, 1.0);
    k.iters = serial == 0 ? 1
                          : (long long)cp_cdiv(dmax(per_channel, 1.0), CHANNEL_THREADS * STREAM_VEC) *
                                (serial > 1 ? serial : 1);
    double steps = (double)k.blocks * (double)k.iters, warps = CHANNEL_THREADS / d->warp_size;
    k.I = bytes_in / steps * (1.0 / WARP_VEC_BYTES);
    k.K = bytes_out / steps * (1.0 / WARP_VEC_BYTES);
    k.L = (instr > 0 ? instr * channels * per_channel : flops) / steps / d->warp_size;
    k.M = warps; /* the block's partial sums meet in shared memory */
    k.other = warps * 8;
    return k;
}
