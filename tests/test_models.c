/* The kernel model and the framework against examples worked by hand:
 * occupancy (Eq. 3-1...3-15), both instruction-queue regimes (Eq. 6-10,
 * 6-11), exposed latency (Eq. 3-16), transfers (Eq. 5-10) and task trees
 * (Eq. 5-1...5-8, 5-13...5-15). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "model/kernel.h"
#include "model/occupancy.h"
#include "model/system.h"
#include "model/task.h"

static cp_device h100, gtx1080;

static int setup(void **state)
{
    (void)state;
    cp_error err;
    if (cp_device_load("h100", &h100, &err) || cp_device_load("gtx1080", &gtx1080, &err))
        fail_msg("%s", err.msg);
    return 0;
}

static void occ(const cp_device *d, int threads, int regs, int smem, int blocks, cp_limiter lim, double occupancy)
{
    cp_occupancy o;
    cp_error err;
    if (cp_occupancy_calc(d, threads, regs, smem, &o, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(o.blocks_per_sm, blocks);
    assert_int_equal(o.limiter, lim);
    assert_true(fabs(o.occupancy - occupancy) < 1e-9);
}

static void test_occupancy(void **state)
{
    (void)state;
    /* H100: 2048 threads, 32 blocks, 64 warps, 65536 registers (256 per
     * warp allocation), 228 KiB shared memory with 1 KiB reserved per block. */
    occ(&h100, 256, 32, 0, 8, CP_LIMIT_THREADS, 1.0);       /* 2048/256 = 8; regs 8192/block -> 8 */
    occ(&h100, 128, 128, 0, 4, CP_LIMIT_REGS, 0.25);        /* 128 x 128 = 16384 regs -> 4 blocks, 16 warps */
    occ(&h100, 64, 16, 49152, 4, CP_LIMIT_SMEM, 8 / 64.0);  /* 233472 / (49152 + 1024) = 4.65 */
    occ(&h100, 32, 16, 0, 32, CP_LIMIT_BLOCKS, 0.5);        /* 64 by threads, 32 by blocks */
    occ(&h100, 96, 32, 0, 21, CP_LIMIT_THREADS, 63 / 64.0); /* 2048/96 = 21 blocks of 3 warps; regs 3072 -> 21 */
    /* 40 x 32 = 1280 registers per warp, 3840 per block: 65536 / 3840 = 17 blocks, 51 warps */
    occ(&h100, 96, 40, 0, 17, CP_LIMIT_REGS, 51 / 64.0);
    /* 42 x 32 = 1344, rounded up to 1536 per warp, 4608 per block: 14 blocks */
    occ(&h100, 96, 42, 0, 14, CP_LIMIT_REGS, 42 / 64.0);
    /* GTX 1080: 96 KiB per SM, 256-byte shared and register units, no reservation. */
    occ(&gtx1080, 256, 64, 12288, 4, CP_LIMIT_REGS, 0.5); /* 64 x 256 = 16384 regs -> 4; smem 8 */
    occ(&gtx1080, 256, 32, 20000, 4, CP_LIMIT_SMEM, 0.5); /* 20000 -> 20224; 98304 / 20224 = 4.86 */
}

static void test_occupancy_limits(void **state)
{
    (void)state;
    cp_occupancy o;
    cp_error err;
    assert_int_equal(cp_occupancy_calc(&h100, 2048, 32, 0, &o, &err), -1); /* Eq. 3-1 */
    assert_non_null(strstr(err.msg, "Eq. 3-1"));
    assert_int_equal(cp_occupancy_calc(&h100, 1024, 255, 0, &o, &err), -1); /* Eq. 3-12 */
    assert_non_null(strstr(err.msg, "Eq. 3-12"));
    assert_int_equal(cp_occupancy_calc(&gtx1080, 256, 32, 60000, &o, &err), -1); /* Eq. 3-7 */
    assert_non_null(strstr(err.msg, "Eq. 3-7"));
}

static cp_kernel base_kernel(void)
{
    cp_kernel k;
    memset(&k, 0, sizeof k);
    k.name = "hand";
    k.threads = 256;
    k.regs = 32;
    k.stages = 1;
    k.ld_bytes = k.st_bytes = k.sm_bytes = 512;
    k.coalesced = 1;
    k.pipe = CP_PIPE_FMA;
    k.flops_per_L = 64;
    return k;
}

#define CLOCK (1980e6)
#define LAUNCH_CYCLES (2.5e-6 * CLOCK)

/* Eq. 6-11: one full wave (132 SMs x 8 blocks), 10 iterations, 4000 FMA
 * and one global load per block iteration. */
static void test_queue_compute_intensive(void **state)
{
    (void)state;
    cp_kernel k = base_kernel();
    k.blocks = 132 * 8;
    k.iters = 10;
    k.L = 4000;
    k.I = 1;
    cp_kernel_eval e;
    cp_error err;
    assert_int_equal(cp_kernel_evaluate(&k, &h100, &e, &err), 0);
    assert_int_equal(e.occ.blocks_per_sm, 8);
    assert_int_equal(e.waves, 1);
    /* issue: (4000 + 1) / 4 per block; 8 blocks per round */
    double c_b = 8 * 4001 / 4.0;
    assert_true(fabs(e.c_round - c_b) < 1e-6);
    assert_true(fabs(e.c_compute - 8 * 4000 / 4.0) < 1e-6); /* 128 lanes = 4 warp FMAs per clock */
    assert_false(e.memory_intensive);
    assert_int_equal(e.bound, CP_BOUND_COMPUTE);
    double cycles = c_b * 10 + 600 + LAUNCH_CYCLES; /* C_b x N_block + L_GS + launch */
    assert_true(fabs(e.cycles - cycles) < 1e-6);
    assert_true(fabs(e.time_ms - cycles / CLOCK * 1e3) < 1e-12); /* Eq. 6-9 */
    /* the same grid launched 32 times over (a library looping over groups):
     * each launch its own launch cost and tail, nothing shared; the bound
     * is judged per launch */
    k.repeat = 32;
    cp_kernel_eval r;
    assert_int_equal(cp_kernel_evaluate(&k, &h100, &r, &err), 0);
    assert_true(fabs(r.cycles - 32 * cycles) < 1e-6);
    assert_int_equal(r.bound, e.bound);
    k.repeat = 0; /* zero-initialised kernels: one launch */
    assert_int_equal(cp_kernel_evaluate(&k, &h100, &r, &err), 0);
    assert_true(fabs(r.cycles - cycles) < 1e-6);
}

/* Eq. 6-10: a streaming kernel whose DRAM traffic dominates. */
static void test_queue_memory_intensive(void **state)
{
    (void)state;
    double n = 1e8, bytes = 4 * n;
    cp_kernel k = cp_stream_kernel(&h100, CP_PREC_FP32, "copy", n, bytes, bytes, 0);
    cp_kernel_eval e;
    cp_error err;
    assert_int_equal(cp_kernel_evaluate(&k, &h100, &e, &err), 0);
    assert_true(e.memory_intensive);
    assert_int_equal(e.bound, CP_BOUND_MEMORY);
    double dram_ms = 2 * bytes / (3350e9 * 0.9) * 1e3;
    double expect = dram_ms + (600 + LAUNCH_CYCLES) / CLOCK * 1e3;
    assert_true(e.dram_cycles > e.sm_cycles);
    assert_true(fabs(e.time_ms - expect) / expect < 1e-9);
}

/* Eq. 3-16: one warp per SM cannot cover the global latency. */
static void test_queue_latency(void **state)
{
    (void)state;
    cp_kernel k = base_kernel();
    k.threads = 32;
    k.blocks = 132;
    k.iters = 100;
    k.I = 1;
    k.L = 10;
    cp_kernel_eval e;
    cp_error err;
    assert_int_equal(cp_kernel_evaluate(&k, &h100, &e, &err), 0);
    /* round: max(1 x 11/4, 600 latency + 11 own instructions) */
    assert_true(fabs(e.c_latency - 600) < 1e-9);
    assert_true(fabs(e.sm_cycles - 100 * 611) < 1e-6);
    assert_int_equal(e.bound, CP_BOUND_LATENCY);
    /* With a 4-stage pipeline the exposed latency shrinks to a quarter. */
    k.stages = 4;
    assert_int_equal(cp_kernel_evaluate(&k, &h100, &e, &err), 0);
    assert_true(fabs(e.sm_cycles - 100 * 161) < 1e-6);
}

/* Eq. 3-24...3-26: uncoalesced accesses cost a sector per thread. */
static void test_coalescing(void **state)
{
    (void)state;
    cp_kernel k = base_kernel();
    k.blocks = 132 * 8;
    k.I = 100;
    k.ld_bytes = 128;
    cp_kernel_eval a, b;
    cp_error err;
    assert_int_equal(cp_kernel_evaluate(&k, &h100, &a, &err), 0);
    k.coalesced = 0.5;
    assert_int_equal(cp_kernel_evaluate(&k, &h100, &b, &err), 0);
    /* 0.5 x 128 + 0.5 x 1024 bytes per request instead of 128 */
    assert_true(fabs(b.c_global / a.c_global - (64.0 + 512.0) / 128.0) < 1e-9);
}

/* A tail wave with fewer blocks per SM is cheaper than a full one. */
static void test_waves(void **state)
{
    (void)state;
    cp_kernel k = base_kernel();
    k.L = 4000;
    k.blocks = 132 * 8 + 132; /* one full wave and a tail of one block per SM */
    cp_kernel_eval e;
    cp_error err;
    assert_int_equal(cp_kernel_evaluate(&k, &h100, &e, &err), 0);
    assert_int_equal(e.waves, 2);
    double full = 8 * 4000 / 4.0, tail = fmax(4000 / 4.0, 4000 / 8.0);
    assert_true(fabs(e.sm_cycles - (full + tail)) < 1e-6);
}

/* Rule 12c (docs/ACCURACY.md, session 42): a wave's epilogue takes the
 * longer of each SM's stores through L2 and the wave's output bound for
 * DRAM at DRAM bandwidth; only an unsplit GEMM's own output drains. */
static void test_wave_epilogue_drain(void **state)
{
    (void)state;
    cp_kernel k = base_kernel();
    k.L = 4000;
    k.blocks = 132 * 8 + 132; /* one full wave and a tail of one block per SM */
    k.K_end = 64;             /* 32 KB a block in 512-byte stores */
    cp_kernel_eval kept, drained;
    cp_error err;
    assert_int_equal(cp_kernel_evaluate(&k, &h100, &kept, &err), 0);
    k.drain_bytes = k.K_end * k.st_bytes;
    assert_int_equal(cp_kernel_evaluate(&k, &h100, &drained, &err), 0);
    double end = cp_epilogue_cycles(&k, &h100), out = k.drain_bytes / h100.dram_bytes_per_cycle;
    double full = 8 * 4000 / 4.0, tail = fmax(4000 / 4.0, 4000 / 8.0);
    assert_true(fabs(kept.sm_cycles - (full + 8 * end + tail + end)) < 1e-6);
    /* 1,056 blocks' 32 KB at DRAM speed outlast 8 blocks' stores through one SM's L2 share */
    assert_true(132 * 8 * out > 8 * end);
    assert_true(fabs(drained.sm_cycles - (full + 132 * 8 * out + tail + fmax(end, 132 * out))) < 1e-6);

    /* the tile chooser's kernels: the output tile drains unsplit, split-K's partial sums do not */
    static const cp_gemm gemms[] = {
        {100352, 256, 64, 1, 1e8, 0, CP_GEMM_CUTLASS}, /* a 1x1 forward on a 56x56 plane, batch 32 */
        {64, 576, 12544, 1, 2e7, 1, CP_GEMM_CUTLASS},  /* a weight gradient: split-K */
    };
    enum { MAX = 64 };
    cp_gemm_candidate cand[MAX];
    int split = 0, unsplit = 0;
    for (size_t gi = 0; gi < sizeof gemms / sizeof gemms[0]; gi++) {
        int n = cp_gemm_candidates(&h100, CP_PREC_FP16, &gemms[gi], cand, MAX);
        assert_true(n > 0);
        for (int c = 0; c < n; c++) {
            const cp_kernel *t = &cand[c].k;
            if (t->splits > 1)
                assert_true(t->drain_bytes == 0), split++;
            else
                assert_true(t->drain_bytes == t->tile_m * t->tile_n * 2.0), unsplit++;
        }
    }
    assert_true(split > 0 && unsplit > 0);
}

/* --- framework ------------------------------------------------------------- */

static void test_transfer(void **state)
{
    (void)state;
    cp_system s = {0};
    cp_error err;
    assert_int_equal(cp_system_add_link(&s, "l", 1.0, 10.0, &err), 0);
    /* Eq. 5-10: 1e6 B / 1 GB/s + 2 x 10 us = 1.02 ms */
    assert_true(fabs(cp_transfer_ms(&s.links[0], 1e6, 2) - 1.02) < 1e-12);
    assert_int_equal(cp_system_add_link(&s, "zero", 0.0, 1.0, &err), -1);
    assert_non_null(strstr(err.msg, "bandwidth must be positive"));
}

/* Rule 60: one call's link moved toward the pool's median: geometric means, the name says so. */
static void test_link_toward(void **state)
{
    (void)state;
    cp_link call = {.name = "PS exchange of psexchange.json", .bandwidth_gbs = 8, .latency_us = 0};
    const cp_link pool = {.name = "pooled", .bandwidth_gbs = 2, .latency_us = 6};
    cp_link_toward(&call, &pool);
    assert_true(fabs(call.bandwidth_gbs - 4) < 1e-12);
    assert_true(fabs(call.latency_us - 3) < 1e-12); /* one side 0: their mean */
    assert_string_equal(call.name, "PS exchange of psexchange.json, moved toward pooled");
}

static void test_flynn_rules(void **state)
{
    (void)state;
    double t[] = {1.0, 3.0, 2.0};
    assert_true(cp_flynn_combine(CP_SISD, t, 3) == 6.0);  /* one stream: serial */
    assert_true(cp_flynn_combine(CP_SIMD, t, 3) == 3.0);  /* Eq. 5-13 */
    assert_true(cp_flynn_combine(CP_MISD, t, 3) == 3.0);  /* Eq. 5-14 */
    assert_true(cp_flynn_combine(CP_MIMD, t, 3) == 3.0);  /* Eq. 5-15 */
}

/* Eq. 5-8 on a small tree, worked by hand with a 1 GB/s, 10 us link:
 *   root SEQ
 *     T(1e6 B)                          1.01
 *     PAR on MIMD                       max(2.01, SEQ(0.51 + 0.51) = 1.02) = 2.01
 *     PAR on SISD                       0.26 + 0.26 = 0.52
 *   total                               3.54 ms */
static void test_task_tree(void **state)
{
    (void)state;
    cp_system s = {0};
    cp_error err;
    int cpu = cp_system_add_unit(&s, "cpu", CP_SISD, NULL, 1.0, 1, &err);
    int cluster = cp_system_add_unit(&s, "cluster", CP_MIMD, NULL, 1.0, 4, &err);
    int link = cp_system_add_link(&s, "l", 1.0, 10.0, &err);
    assert_true(cpu >= 0 && cluster >= 0 && link >= 0);
    cp_tree tr;
    cp_tree_init(&tr);
    int root = cp_tree_node(&tr, -1, CP_TASK_SEQ, "root", -1);
    cp_tree_transfer(&tr, root, "a", link, 1e6, 1);
    int par = cp_tree_node(&tr, root, CP_TASK_PAR, "par", cluster);
    cp_tree_transfer(&tr, par, "b", link, 2e6, 1);
    int seq = cp_tree_node(&tr, par, CP_TASK_SEQ, "seq", -1);
    cp_tree_transfer(&tr, seq, "c", link, 5e5, 1);
    cp_tree_transfer(&tr, seq, "d", link, 5e5, 1);
    int ser = cp_tree_node(&tr, root, CP_TASK_PAR, "serial", cpu);
    cp_tree_transfer(&tr, ser, "e", link, 2.5e5, 1);
    cp_tree_transfer(&tr, ser, "f", link, 2.5e5, 1);
    assert_int_equal(cp_tree_eval(&tr, root, &s, &err), 0);
    assert_true(fabs(tr.t[seq].time_ms - 1.02) < 1e-12);
    assert_true(fabs(tr.t[par].time_ms - 2.01) < 1e-12);
    assert_true(fabs(tr.t[ser].time_ms - 0.52) < 1e-12);
    assert_true(fabs(tr.t[root].time_ms - 3.54) < 1e-12);
    assert_int_equal(tr.t[root].count, 3);
    cp_tree_free(&tr);
}

/* A compute leaf on a SIMT unit is timed by the kernel model; a PAR node
 * without a unit is an error, not a guess. */
static void test_task_compute(void **state)
{
    (void)state;
    cp_system s;
    cp_error err;
    assert_int_equal(cp_system_single_gpu(&s, &h100, &err), 0);
    cp_tree tr;
    cp_tree_init(&tr);
    int root = cp_tree_node(&tr, -1, CP_TASK_SEQ, "root", -1);
    cp_kernel k = cp_stream_kernel(&h100, CP_PREC_FP32, "copy", 1e6, 4e6, 4e6, 0);
    int leaf = cp_tree_compute(&tr, root, CP_UNIT_GPU, &k);
    assert_int_equal(cp_tree_eval(&tr, root, &s, &err), 0);
    cp_kernel_eval e;
    assert_int_equal(cp_kernel_evaluate(&k, &h100, &e, &err), 0);
    assert_true(tr.t[leaf].time_ms == e.time_ms && tr.t[root].time_ms == e.time_ms);
    int bad = cp_tree_node(&tr, root, CP_TASK_PAR, "nounit", -1);
    (void)bad;
    assert_int_equal(cp_tree_eval(&tr, root, &s, &err), -1);
    cp_tree_free(&tr);
}

/* A DAG worked by hand: A(2) then B(2) on the compute stream, C(3) on the
 * communication stream after A; compute runs at half speed while C runs.
 *   0-2 A; at 2 both B and C start; C ends at 5, by then B has done 1.5
 *   (3 x 0.5) and finishes its last 0.5 alone: 5.5. */
static void test_dag_schedule(void **state)
{
    (void)state;
    cp_system s = {0};
    cp_error err;
    cp_tree tr;
    cp_tree_init(&tr);
    int root = cp_tree_node(&tr, -1, CP_TASK_DAG, "dag", -1);
    tr.t[root].interference = 0.5;
    int a = cp_tree_fixed(&tr, root, "A", 2.0);
    int b = cp_tree_fixed(&tr, root, "B", 2.0);
    int c = cp_tree_fixed(&tr, root, "C", 3.0);
    assert_int_equal(cp_tree_place(&tr, a, 0, -1), 0);
    assert_int_equal(cp_tree_place(&tr, b, 0, -1), 0);
    assert_int_equal(cp_tree_place(&tr, c, 1, a), 0);
    assert_int_equal(cp_tree_eval(&tr, root, &s, &err), 0);
    assert_true(fabs(tr.t[root].time_ms - 5.5) < 1e-9);
    assert_true(fabs(tr.t[c].start_ms - 2.0) < 1e-9 && fabs(tr.t[c].end_ms - 5.0) < 1e-9);
    assert_true(fabs(tr.t[b].end_ms - 5.5) < 1e-9);
    /* Without interference the streams just overlap: max(4, 2 + 3) = 5. */
    tr.t[root].interference = 0;
    assert_int_equal(cp_tree_eval(&tr, root, &s, &err), 0);
    assert_true(fabs(tr.t[root].time_ms - 5.0) < 1e-9);
    /* Rates measured per task: A runs at 0.5 and holds C to 0.25 while both
     * run. While C waits for A, A runs alone at full speed. */
    tr.t[a].co_rate = 0.5;
    tr.t[a].co_other_rate = 0.25;
    assert_int_equal(cp_tree_eval(&tr, root, &s, &err), 0);
    assert_true(fabs(tr.t[a].end_ms - 2.0) < 1e-9); /* C waits for A, so A runs alone */
    tr.t[c].ndeps = 0;                               /* now C runs beside A from the start */
    assert_int_equal(cp_tree_eval(&tr, root, &s, &err), 0);
    /* C: 0.25 x 4 = 1 ms of its 3 done while A runs (0 .. 4), 2 left beside B at full speed: ends at 6;
     * B: 4 .. 6 at full speed */
    assert_true(fabs(tr.t[a].end_ms - 4.0) < 1e-9);
    assert_true(fabs(tr.t[c].end_ms - 6.0) < 1e-9);
    assert_true(fabs(tr.t[root].time_ms - 6.0) < 1e-9);
    tr.t[a].co_rate = tr.t[a].co_other_rate = -1;
    tr.t[c].ndeps = 1;
    /* A dependency on a task that can never run is reported, not looped on. */
    int d = cp_tree_fixed(&tr, root, "D", 1.0);
    int e = cp_tree_fixed(&tr, root, "E", 1.0);
    cp_tree_place(&tr, d, 2, e);
    cp_tree_place(&tr, e, 2, -1);
    assert_int_equal(cp_tree_eval(&tr, root, &s, &err), -1);
    cp_tree_free(&tr);
}

/* The tile search times each (tile, split) by grid arithmetic on the tile's
 * known costs, not by evaluating a kernel: for every candidate, on GPUs of
 * each generation and every precision, that must be exactly what
 * cp_kernel_evaluate gives the kernel itself, and the chosen kernel must be
 * the fastest candidate. */
static void test_gemm_search_matches_kernel_model(void **state)
{
    (void)state;
    static const char *const devices[] = {"h100", "a100", "v100", "gtx1080"};
    const cp_gemm gemms[] = {
        {12544, 64, 576, 1, 2e7, 0, CP_GEMM_CUTLASS},     /* a 3x3 convolution's forward */
        {64, 576, 12544, 1, 2e7, 1, CP_GEMM_CUTLASS},     /* its weight gradient: split-K */
        {200704, 256, 64, 1, 1e8, 0, CP_GEMM_CUTLASS},    /* wide and shallow */
        {64, 4096, 9216, 1, 8e7, 0, CP_GEMM_CUTLASS},     /* a batch-64 fully connected layer */
        {4096, 9216, 64, 1, 8e7, 1, CP_GEMM_CUTLASS},     /* its weight gradient */
        {3136, 32, 16, 36, 3e6, 0, CP_GEMM_CUTLASS},      /* Winograd's 36 batched GEMMs */
        {96, 17, 5, 1, 1e4, 0, CP_GEMM_CUTLASS},          /* tiny: one block */
        {1568, 960, 160, 1, 4e6, 0, CP_GEMM_CUTLASS},
        {1568, 512, 4608, 1, 2e7, 0, CP_GEMM_XMMA_NCHW_FP32},  /* cuDNN's NCHW forward, 7x7 plane */
        {100352, 64, 576, 1, 5e7, 0, CP_GEMM_XMMA_NCHW_FP32},  /* and a 56x56 one */
        {256, 256, 5408, 36, 2e8, -1, CP_GEMM_XMMA_WINO_WGRAD_FP32}, /* winograd_nonfused's weight gradient */
    };
    enum { MAX = 64 };
    cp_gemm_candidate cand[MAX];
    int checked = 0;
    for (size_t di = 0; di < sizeof devices / sizeof devices[0]; di++) {
        cp_device d;
        cp_error err;
        if (cp_device_load(devices[di], &d, &err))
            fail_msg("%s", err.msg);
        for (int p = 0; p < CP_PREC_COUNT; p++) {
            if (!cp_device_supports(&d, (cp_precision)p))
                continue;
            for (size_t gi = 0; gi < sizeof gemms / sizeof gemms[0]; gi++) {
                int n = cp_gemm_candidates(&d, (cp_precision)p, &gemms[gi], cand, MAX);
                assert_true(n > 0);
                double best = INFINITY;
                for (int c = 0; c < n; c++) {
                    cp_kernel_eval e;
                    assert_int_equal(cp_kernel_evaluate(&cand[c].k, &d, &e, &err), 0);
                    if (e.cycles != cand[c].cycles)
                        fail_msg("%s %s gemm %zu candidate %d (tile %dx%d, %d splits): search %.17g cycles, kernel "
                                 "model %.17g",
                                 devices[di], cp_precision_name((cp_precision)p), gi, c, cand[c].k.tile_m,
                                 cand[c].k.tile_n, cand[c].k.splits, cand[c].cycles, e.cycles);
                    best = fmin(best, e.cycles);
                    checked++;
                }
                cp_kernel chosen;
                assert_int_equal(cp_gemm_kernels(&d, (cp_precision)p, &gemms[gi], "gemm", NULL, &chosen, 1, &err), 1);
                cp_kernel_eval e;
                assert_int_equal(cp_kernel_evaluate(&chosen, &d, &e, &err), 0);
                assert_true(e.cycles <= best * (1 + 1e-12));
            }
        }
    }
    assert_true(checked > 300);
}

/* Warp instructions a kernel's block iteration issues per FFMA: what Nsight
 * Compute's counts of cuDNN's xmma kernels are held against. */
static double instructions_per_ffma(const cp_kernel *k)
{
    return (k->I + k->M + k->L + k->K + k->other) / k->L;
}

/* cuDNN's NCHW FP32 implicit-GEMM tiles issue, per FFMA, what Nsight
 * Compute counted on the graph API's layer microbenchmarks
 * (validation/layerbench-h100/graph-3x3-ffma/ and xmma/): 1.37-1.41 warp
 * instructions for 256x64, 1.85-1.91 for 128x32, 2.15-2.21 for 32x32, once
 * their loads and shared-memory fragments are counted in. Their grids never
 * split the reduction. */
static void test_xmma_instruction_mix(void **state)
{
    (void)state;
    const cp_gemm g = {1568, 512, 4608, 1, 2e7, 0, CP_GEMM_XMMA_NCHW_FP32};
    enum { MAX = 16 };
    cp_gemm_candidate cand[MAX];
    int n = cp_gemm_candidates(&h100, CP_PREC_FP32, &g, cand, MAX);
    assert_int_equal(n, 3);
    for (int i = 0; i < n; i++) {
        const cp_kernel *k = &cand[i].k;
        double per_ffma = instructions_per_ffma(k);
        print_message("xmma %dx%d, %d threads: %.3f instructions per FFMA, %d splits\n", k->tile_m, k->tile_n,
                      k->threads, per_ffma, k->splits);
        assert_int_equal(k->splits, 1);
        if (k->tile_m == 256)
            assert_true(per_ffma > 1.37 && per_ffma < 1.41);
        else if (k->tile_m == 128)
            assert_true(per_ffma > 1.85 && per_ffma < 1.91);
        else
            assert_true(per_ffma > 2.15 && per_ffma < 2.21);
    }
}

/* winograd_nonfused's FP32 weight gradient runs one GEMM per Winograd point
 * on cuDNN's xmma tiles, with the grids Nsight Compute showed on the graph
 * API's 3x3 microbenchmarks (validation/layerbench-h100/graph-3x3/): 32x32
 * tiles of 64 threads for 64 -> 64 channels ([2,2,36]), 64x64 of 128 for
 * 256 -> 256 ([4,4,36]), never split; 1.73 and 1.40 warp instructions per
 * FFMA. */
static void test_winograd_wgrad_tiles(void **state)
{
    (void)state;
    const struct {
        double channels, tiles;
        int tile, threads;
        double per_ffma;
    } cases[] = {
        {64, 64.0 * 25 * 25, 32, 64, 1.73},   /* 64 -> 64 on 100x100, batch 64 */
        {256, 32.0 * 13 * 13, 64, 128, 1.40}, /* 256 -> 256 on 50x50, batch 32 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double c = cases[i].channels;
        const cp_gemm g = {c, c, cases[i].tiles, 36, 36.0 * cases[i].tiles * 2 * c * 4, -1,
                           CP_GEMM_XMMA_WINO_WGRAD_FP32};
        cp_kernel k;
        cp_error err;
        assert_int_equal(cp_gemm_kernels(&h100, CP_PREC_FP32, &g, "winograd_gemm", NULL, &k, 1, &err), 1);
        double per_ffma = instructions_per_ffma(&k);
        print_message("winograd wgrad %.0f channels: %dx%d tile, %d threads, %lld blocks, %.3f per FFMA\n", c,
                      k.tile_m, k.tile_n, k.threads, k.blocks, per_ffma);
        assert_int_equal(k.tile_m, cases[i].tile);
        assert_int_equal(k.tile_n, cases[i].tile);
        assert_int_equal(k.threads, cases[i].threads);
        assert_int_equal(k.splits, 1);
        double side = c / cases[i].tile;
        assert_int_equal(k.blocks, (long long)(side * side * 36));
        assert_true(fabs(per_ffma - cases[i].per_ffma) < 0.01);
    }
}

/* cuDNN's flip_filter, one 9-thread block per 3x3 filter: 262,144 blocks
 * took about 136 us on the H100 at full clock (160 us under Nsight
 * Compute) and 167-199 us in PyTorch's trace; the work distributor's rate,
 * not the blocks' work, sets it (CP_BLOCK_DISPATCH_CYCLES). */
static void test_tiny_block_grid(void **state)
{
    (void)state;
    double filters = 512.0 * 512.0, bytes = 9 * 4 * filters;
    cp_kernel k = cp_tiny_block_kernel(&h100, CP_PREC_FP32, "flip_filter", filters, 9, bytes, bytes);
    cp_kernel_eval e;
    cp_error err;
    assert_int_equal(cp_kernel_evaluate(&k, &h100, &e, &err), 0);
    print_message("flip_filter over 512 x 512 filters: %.1f us (measured 136-199)\n", e.time_ms * 1e3);
    assert_true(e.time_ms * 1e3 > 120 && e.time_ms * 1e3 < 200);
    /* a streaming kernel over the same bytes: far fewer, fuller blocks */
    cp_kernel st = cp_stream_kernel(&h100, CP_PREC_FP32, "copy", 9 * filters, bytes, bytes, 0);
    assert_int_equal(cp_kernel_evaluate(&st, &h100, &e, &err), 0);
    assert_true(e.time_ms * 1e3 < 30);
}

/* cuDNN's FP32 weight-gradient kernels (model/wgrad.c) against Nsight
 * Compute's times of 1x1 layer microbenchmarks of our choosing
 * (validation/layerbench-h100/wgrad1x1/, H100 at 1980 MHz), the kernel the
 * model picks being the one cudnnFind ran; and the 32x32 engine's step: past
 * 192 partial tiles added into each dW element its atomics queue. */
static double wgrad_kernel_taps_us(cp_wgrad_tiles tiles, int cin, int cout, int taps, int hw, int images,
                                   const char **name)
{
    cp_kernel k[3];
    cp_error err;
    double plane = (double)hw * hw;
    int n = cp_wgrad_fp32_kernels(&h100, tiles, cout, (double)cin * taps, taps, images, plane,
                                  4.0 * images * cin * plane, 4.0 * images * cout * plane, k, 3, &err);
    if (n <= 0)
        fail_msg("%s", n < 0 ? err.msg : "no kernel");
    *name = k[n - 1].name;
    double ms = cp_kernels_ms(&k[n - 1], 1, &h100, INFINITY, &err); /* the weight gradient, transposes apart */
    if (ms < 0)
        fail_msg("%s", err.msg);
    return ms * 1e3;
}

static double wgrad_kernel_us(cp_wgrad_tiles tiles, int cin, int cout, int hw, int images, const char **name)
{
    return wgrad_kernel_taps_us(tiles, cin, cout, 1, hw, images, name);
}

static void test_wgrad_fp32_kernels(void **state)
{
    (void)state;
    static const struct {
        int cin, cout, hw, images;
        const char *kernel;
        double us;
    } bench[] = {
        {160, 96, 64, 32, "wgrad_engine_32x32", 441.8},   {352, 96, 18, 64, "wgrad_engine_32x32", 118.8},
        {96, 160, 96, 32, "wgrad_engine_32x32", 937.4},   {64, 192, 48, 64, "wgrad_engine_32x32", 417.0},
        {448, 448, 12, 64, "wgrad_engine_64x128", 197.0}, {768, 288, 9, 128, "wgrad_engine_64x128", 268.3},
    };
    for (size_t i = 0; i < sizeof bench / sizeof bench[0]; i++) {
        const char *name;
        double us =
            wgrad_kernel_us(CP_WGRAD_TILES_FIND, bench[i].cin, bench[i].cout, bench[i].hw, bench[i].images, &name);
        print_message("wgrad %d -> %d at %dx%d, b%d: %s %.0f us (measured %s %.0f)\n", bench[i].cin, bench[i].cout,
                      bench[i].hw, bench[i].hw, bench[i].images, name, us, bench[i].kernel, bench[i].us);
        assert_string_equal(name, bench[i].kernel);
        assert_true(us > 0.8 * bench[i].us && us < 1.2 * bench[i].us);
    }
    /* one plane chunk per image (18x18): z = images; 64 -> 128 doubles the
     * work, 128 -> 256 also crosses the step */
    const char *name;
    double b64 = wgrad_kernel_us(CP_WGRAD_TILES_FIND, 96, 160, 18, 64, &name),
           b128 = wgrad_kernel_us(CP_WGRAD_TILES_FIND, 96, 160, 18, 128, &name),
           b256 = wgrad_kernel_us(CP_WGRAD_TILES_FIND, 96, 160, 18, 256, &name);
    print_message("32x32 engine, 96 -> 160 at 18x18: b64 %.0f, b128 %.0f, b256 %.0f us\n", b64, b128, b256);
    assert_string_equal(name, "wgrad_engine_32x32");
    assert_true(b128 / b64 > 1.8 && b128 / b64 < 2.2);
    assert_true(b256 / b128 > 2.4 && b256 / b128 < 3.0);
    /* the graph API's engine 20 takes the 64x128 tile from 96 output
     * channels (wgrad1x1/graph-ncu/): faster than cudnnFind's 32x32 there */
    static const struct {
        int cin, cout, hw, images;
        double us;
    } graph[] = {{160, 96, 64, 32, 338.6}, {64, 96, 80, 32, 201.4}, {96, 160, 96, 32, 805.7}, {224, 96, 36, 64, 272.2}};
    for (size_t i = 0; i < sizeof graph / sizeof graph[0]; i++) {
        const char *find_name;
        double us = wgrad_kernel_us(CP_WGRAD_TILES_GRAPH, graph[i].cin, graph[i].cout, graph[i].hw, graph[i].images,
                                    &name),
               find = wgrad_kernel_us(CP_WGRAD_TILES_FIND, graph[i].cin, graph[i].cout, graph[i].hw,
                                      graph[i].images, &find_name);
        print_message("graph API wgrad %d -> %d at %dx%d, b%d: %s %.0f us (measured 64x128 engine %.0f); cudnnFind "
                      "%s %.0f\n", graph[i].cin, graph[i].cout, graph[i].hw, graph[i].hw, graph[i].images, name, us,
                      graph[i].us, find_name, find);
        assert_string_equal(name, "wgrad_engine_64x128");
        assert_string_equal(find_name, "wgrad_engine_32x32");
        assert_true(us > 0.75 * graph[i].us && us < 1.25 * graph[i].us && us < find);
    }
    /* 3x3 filters read their pixels from L1, one per tap: the 32x32 engine at
     * 3.1 slots, no step (validation/layerbench-h100/wsbench/: 48 -> 80 on
     * 200x200, b240, wgrad_alg0_engine 38.16 ms; 56 -> 56 on 240x240, b160,
     * wgrad_alg1_engine 31.01 ms), and far faster than the 1x1 engine's slots
     * would have it (7.2 past the step) */
    static const struct {
        int cin, cout, hw, images;
        double us;
    } rs[] = {{48, 80, 200, 240, 38161.5}, {56, 56, 240, 160, 31012.9}};
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
        double us = wgrad_kernel_taps_us(CP_WGRAD_TILES_GRAPH, rs[i].cin, rs[i].cout, 9, rs[i].hw, rs[i].images,
                                         &name);
        print_message("3x3 wgrad %d -> %d at %dx%d, b%d: %s %.0f us (measured %.0f)\n", rs[i].cin, rs[i].cout,
                      rs[i].hw, rs[i].hw, rs[i].images, name, us, rs[i].us);
        assert_string_equal(name, "wgrad_engine_32x32_rs");
        assert_true(us > 0.8 * rs[i].us && us < 1.2 * rs[i].us);
    }
    double thin = wgrad_kernel_us(CP_WGRAD_TILES_GRAPH, 384, 64, 14, 64, &name);
    assert_string_equal(name, "wgrad_engine_32x32");
    assert_true(thin > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_occupancy),          cmocka_unit_test(test_occupancy_limits),
        cmocka_unit_test(test_queue_compute_intensive), cmocka_unit_test(test_queue_memory_intensive),
        cmocka_unit_test(test_queue_latency),      cmocka_unit_test(test_coalescing),
        cmocka_unit_test(test_waves),              cmocka_unit_test(test_wave_epilogue_drain),
        cmocka_unit_test(test_transfer),
        cmocka_unit_test(test_flynn_rules),        cmocka_unit_test(test_task_tree),
        cmocka_unit_test(test_task_compute),       cmocka_unit_test(test_dag_schedule),
        cmocka_unit_test(test_gemm_search_matches_kernel_model),
        cmocka_unit_test(test_xmma_instruction_mix),
        cmocka_unit_test(test_winograd_wgrad_tiles),
        cmocka_unit_test(test_tiny_block_grid),
        cmocka_unit_test(test_wgrad_fp32_kernels),
        cmocka_unit_test(test_link_toward),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
