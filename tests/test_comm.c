/* Transfer models (comm/): closed forms worked by hand on synthetic
 * clusters, properties over the shipped ones, and the cluster loader's
 * errors (tests/data/bad/cluster-*.json).
 *
 * Protocol constants the hand-worked numbers use (comm/nccl.c): a step
 * costs (L + h) + chunk / (B f) with LL h = 0, f = 1/2; LL128 h = 1 us,
 * f = 120/128; Simple h = 5 us, f = 1. Which protocol runs is NCCL's
 * tuner's pick, checked against what NCCL 2.28.3 printed and picked on
 * 2 x H100 (validation/h100x2/nccl-protocols/nccl-tuner-2xh100.json). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "comm/comm.h"
#include "util/jsonread.h"
#include "util/jsonread.h"
#include "util/fit.h"
#include "util/resources.h"

#define BAD_DIR CNNPERF_SOURCE_DIR "/tests/data/bad"
#define NCCL_TUNER_LOG CNNPERF_SOURCE_DIR "/validation/h100x2/nccl-protocols/nccl-tuner-2xh100.json"
#define MB100 1e8

/* --- synthetic clusters --------------------------------------------------- */

static cp_device synth_device(void)
{
    cp_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.id, sizeof d.id, "synth");
    snprintf(d.name, sizeof d.name, "synthetic GPU");
    d.host_link_bandwidth_gbs = 10;
    d.host_link_latency_us = 10;
    d.dram_bandwidth_gbs = 1000;
    d.dram_efficiency = 1;
    d.fp32_tflops = 10;
    return d;
}

/* nodes x gpn GPUs; intra bw/latency; nics x nic bw/latency (nics 0: none).
 * Host: 10 cores x 10 GFLOP/s, 100 GB/s. */
static cp_cluster synth(int nodes, int gpn, double intra_gbs, double intra_us, int p2p, int nics, double nic_gbs,
                        double nic_us)
{
    cp_cluster c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "synthetic %dx%d", nodes, gpn);
    c.nodes = nodes;
    c.gpus_per_node = gpn;
    c.groups[0].dev = synth_device();
    c.groups[0].count = gpn;
    c.n_groups = 1;
    c.intra.bandwidth_gbs = intra_gbs;
    c.intra.latency_us = intra_us;
    c.intra_p2p = p2p;
    c.nics_per_node = nics;
    c.inter.bandwidth_gbs = nic_gbs;
    c.inter.latency_us = nic_us;
    c.cpu_cores = 10;
    c.cpu_gflops_per_core = 10;
    c.host_memory_bandwidth_gbs = 100;
    return c;
}

static cp_ar_est allreduce(const cp_cluster *c, int p, double bytes, cp_ar_algo a)
{
    cp_ar_est e;
    cp_error err = {{0}};
    int rc = cp_nccl_allreduce(c, p, bytes, a, &e, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, 0);
    return e;
}

static cp_ps_est ps(const cp_cluster *c, int w, double bytes, int k, int on_gpu, int colocated)
{
    cp_ps_config cfg = {.servers = k, .on_gpu = on_gpu, .colocated = colocated};
    cp_ps_est e;
    cp_error err = {{0}};
    int rc = cp_ps_exchange(c, w, bytes, &cfg, &e, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, 0);
    return e;
}

static void near(double a, double b, int line)
{
    if (!(fabs(a - b) <= 1e-9 + 1e-9 * fabs(b)))
        fail_msg("line %d: got %.12g, want %.12g", line, a, b);
}
#define NEAR(a, b) near((a), (b), __LINE__)

/* --- NCCL closed forms ---------------------------------------------------- */

/* One node, 100 GB/s, 2 us, 100 MB: Simple, 7 us a step plus NCCL's 8.4 us
 * base latency once.
 *   p = 2:  2 steps = 14 us + 8.4, 1   x 1e8/1e11 s = 1.00 ms -> 1.0224 ms
 *   p = 4:  6 steps = 42 us + 8.4, 1.5 x 1 ms = 1.50 ms       -> 1.5504 ms
 *   p = 8: 14 steps = 98 us + 8.4, 1.75 x 1 ms = 1.75 ms      -> 1.8564 ms
 * (LL128 at p = 2: 6 us + 14 + 1/0.9375 ms = 1.0867 ms, slower.) */
static void ring_closed_form(void **state)
{
    (void)state;
    cp_cluster c = synth(1, 8, 100, 2, 1, 0, 0, 0);
    const int p[] = {2, 4, 8};
    const double want[] = {1.0224, 1.5504, 1.8564}, lat[] = {0.0224, 0.0504, 0.1064};
    for (int i = 0; i < 3; i++) {
        cp_ar_est e = allreduce(&c, p[i], MB100, CP_AR_RING);
        NEAR(e.time_ms, want[i]);
        NEAR(e.latency_ms, lat[i]);
        NEAR(e.bandwidth_ms, want[i] - lat[i]);
        assert_int_equal(e.algo, CP_AR_RING);
        assert_int_equal(e.proto, CP_PROTO_SIMPLE);
        assert_string_equal(e.bottleneck, "intra-node");
    }
    /* p = 8: algbw = 0.1 GB / 1.8564 ms = 53.87 GB/s; busbw = x 1.75 = 94.27 */
    cp_ar_est e = allreduce(&c, 8, MB100, CP_AR_RING);
    NEAR(e.algbw_gbs, 0.1 / 1.8564e-3);
    NEAR(e.busbw_gbs, 0.1 / 1.8564e-3 * 1.75);
}

/* The same cluster with its ring measured (intra_ring_*): a share 0.4 of a
 * pair's transfer term that does not grow with the ring, 0.5 us for each
 * step beyond a pair's two.
 *   p = 2:  as unmeasured, 1.0224 ms
 *   p = 4:  2 steps = 14 us + 8.4 + 4 x 0.5 = 24.4 us, (0.4 + 0.6 x 1.5) ms = 1.30  -> 1.3244 ms
 *   p = 8:  14 us + 8.4 + 12 x 0.5 = 28.4 us,         (0.4 + 0.6 x 1.75) ms = 1.45 -> 1.4784 ms
 * Across nodes the measured ring does not apply: 2 nodes of 4 cost as before. */
static void ring_measured_closed_form(void **state)
{
    (void)state;
    cp_cluster c = synth(1, 8, 100, 2, 1, 0, 0, 0);
    c.intra_ring_measured = 1;
    c.intra_ring_fixed_share = 0.4;
    c.intra_ring_step_us = 0.5;
    const int p[] = {2, 4, 8};
    const double want[] = {1.0224, 1.3244, 1.4784}, lat[] = {0.0224, 0.0244, 0.0284};
    for (int i = 0; i < 3; i++) {
        cp_ar_est e = allreduce(&c, p[i], MB100, CP_AR_RING);
        NEAR(e.time_ms, want[i]);
        NEAR(e.latency_ms, lat[i]);
    }
    cp_cluster two = synth(2, 4, 100, 2, 1, 4, 100, 2), measured = two;
    measured.intra_ring_measured = 1;
    measured.intra_ring_fixed_share = 0.4;
    measured.intra_ring_step_us = 0.5;
    NEAR(allreduce(&measured, 8, MB100, CP_AR_RING).time_ms, allreduce(&two, 8, MB100, CP_AR_RING).time_ms);
}

/* 8 bytes over 8 GPUs: LL wins, 14 steps x 2 us = 28 us plus its 6.6 us
 * base plus 1.75 x 8 B / 50 GB/s = 2.8e-7 ms (LL128: 42 + 14 us; Simple:
 * 98 + 8.4 us). */
static void ring_small_message_ll(void **state)
{
    (void)state;
    cp_cluster c = synth(1, 8, 100, 2, 1, 0, 0, 0);
    cp_ar_est e = allreduce(&c, 8, 8, CP_AR_RING);
    assert_int_equal(e.proto, CP_PROTO_LL);
    NEAR(e.time_ms, 0.0346 + 2.8e-7);
}

/* One node, 100 GB/s, 2 us, 100 MB, tree with Simple (NCCL's tuner picks
 * it at this size): 2(g-1) steps of 7 us + 8.4 us base, and the busiest
 * GPU's volume: two GPUs each send S (one tree's half up, the other's
 * down), as the ring does; from three on the inner GPUs send 2S.
 *   g = 2: 2 x 7 + 8.4 = 22.4 us + 1e8 / 1e11 s = 1.0224 ms (the ring's)
 *   g = 4: 6 x 7 + 8.4 = 50.4 us + 2e8 / 1e11 s = 2.0504 ms */
static void tree_closed_form(void **state)
{
    (void)state;
    cp_cluster c = synth(1, 8, 100, 2, 1, 0, 0, 0);
    cp_ar_est t2 = allreduce(&c, 2, MB100, CP_AR_TREE), t4 = allreduce(&c, 4, MB100, CP_AR_TREE);
    assert_int_equal(t2.proto, CP_PROTO_SIMPLE);
    NEAR(t2.time_ms, 1.0224);
    NEAR(t2.time_ms, allreduce(&c, 2, MB100, CP_AR_RING).time_ms);
    NEAR(t4.time_ms, 2.0504);
}

/* 2 nodes x 4 GPUs: intra 100 GB/s, 2 us; 2 NICs x 25 GB/s, 4 us (the node
 * sends 50 GB/s). 100 MB over 8 GPUs, Simple:
 *   ring: 14 x (max(2,4) + 5) = 126 us, 1.75 x 1e8 / 50e9 = 3.5 ms -> 3.626 ms
 *   tree: 2 x 3 x 7 + 2 x 1 x 9 = 60 us, 2 x 1e8 / 50e9 = 4 ms      -> 4.060 ms
 *   hierarchical: reduce-scatter + all-gather 2 x 3 x 7 = 42 us, 2 x 0.75 x 1 ms = 1.5 ms;
 *                 across 2 x 1 x 9 = 18 us, 2 x 0.5 x 1e8 / 50e9 = 2 ms -> 3.560 ms
 * each plus Simple's 8.4 us base latency. */
static void multinode_closed_forms(void **state)
{
    (void)state;
    cp_cluster c = synth(2, 4, 100, 2, 1, 2, 25, 4);
    cp_ar_est r = allreduce(&c, 8, MB100, CP_AR_RING);
    cp_ar_est t = allreduce(&c, 8, MB100, CP_AR_TREE);
    cp_ar_est h = allreduce(&c, 8, MB100, CP_AR_HIERARCHICAL);
    cp_ar_est a = allreduce(&c, 8, MB100, CP_AR_AUTO);
    NEAR(r.time_ms, 3.6344);
    assert_string_equal(r.bottleneck, "network");
    NEAR(t.time_ms, 4.0684);
    NEAR(h.time_ms, 3.5684);
    assert_string_equal(h.bottleneck, "network"); /* 2 ms across vs 1.5 ms inside */
    assert_int_equal(a.algo, CP_AR_HIERARCHICAL);
    NEAR(a.time_ms, 3.5684);
}

/* No P2P: 2 GPUs, 10 GB/s, 5 us PCIe each. A step crosses the host link
 * twice: 5 GB/s, 10 us. Ring Simple: 2 x 15 us + 8.4 us + 1e8 / 5e9 = 20.0384 ms.
 * With 16 GB/s of host memory (2 GPUs x write + read), 4 GB/s: 25.0384 ms. */
static void no_p2p_staging(void **state)
{
    (void)state;
    cp_cluster c = synth(1, 2, 10, 5, 0, 0, 0, 0);
    cp_ar_est e = allreduce(&c, 2, MB100, CP_AR_RING);
    NEAR(e.time_ms, 20.0384);
    assert_string_equal(e.bottleneck, "host link (no P2P)");
    c.host_memory_bandwidth_gbs = 16;
    e = allreduce(&c, 2, MB100, CP_AR_RING);
    NEAR(e.time_ms, 25.0384);
    assert_string_equal(e.bottleneck, "host memory (no P2P)");
}

static void one_gpu_is_free(void **state)
{
    (void)state;
    cp_cluster c = synth(2, 4, 100, 2, 1, 2, 25, 4);
    for (int a = CP_AR_AUTO; a <= CP_AR_HIERARCHICAL; a++) {
        cp_ar_est e = allreduce(&c, 1, MB100, (cp_ar_algo)a);
        assert_true(e.time_ms == 0 && e.latency_ms == 0 && e.bandwidth_ms == 0);
        e = allreduce(&c, 8, 0, (cp_ar_algo)a);
        assert_true(e.time_ms == 0);
    }
}

/* --- PS closed forms ------------------------------------------------------ */

/* One CPU server on its own node, workers one per node; every link 10 GB/s
 * (host link 10 us, NIC 5 us), host memory 100 GB/s, 100 GFLOP/s; 100 MB:
 *   push = copy to host 10 ms + 10 us, then W x 100 MB into the server's
 *          NIC: 10 W ms + W x 5 us          = 10.01 + 10.005 W
 *   aggregate = (W + 4) x 100 MB / 100 GB/s = W + 4 (W gradients read; the
 *               parameters and their momentum read and written; CPU: 0.25 (W+2) ms),
 *               and the round's cost for the 9 threads one worker leaves of 10 cores
 *   pull = push
 *   total = 24.02 + 21.01 W (45.03, 66.04, 108.06, 192.1 ms for W = 1, 2, 4, 8), plus the round */
#define TEAM9 (9 * CP_PS_ROUND_MS_PER_THREAD_FP32)
static void ps_incast_linear(void **state)
{
    (void)state;
    cp_cluster c = synth(8, 1, 100, 2, 1, 1, 10, 5);
    const int w[] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++) {
        cp_ps_est e = ps(&c, w[i], MB100, 1, 0, 0);
        NEAR(e.push_ms, 10.01 + 10.005 * w[i]);
        NEAR(e.pull_ms, e.push_ms);
        NEAR(e.aggregate_ms, w[i] + 4.0 + TEAM9);
        NEAR(e.round_ms, TEAM9);
        NEAR(e.time_ms, 24.02 + 21.01 * w[i] + TEAM9);
    }
    cp_ps_est e = ps(&c, 8, MB100, 1, 0, 0);
    assert_string_equal(e.bottleneck, "server link");
    assert_string_equal(e.why, "PS server link saturated: 8 workers x 100 MB");
    /* two servers halve the incast: 8 x 50 MB = 40 ms + 8 x 5 us */
    e = ps(&c, 8, MB100, 2, 0, 0);
    NEAR(e.push_ms, 10.01 + 40.04);
    assert_string_equal(e.why, "PS server links saturated: 8 workers x 100 MB / 2 servers");
}

/* The same with 16-bit gradients of fp32 parameters (pull_ratio 2): the
 * push stays 10.01 + 10.005 W, the pull carries 200 MB: 20.01 + 20.005 W;
 * the servers read W x 100 MB of gradients and read and write 200 MB of
 * parameters and 200 MB of momentum at 100 GB/s: W + 8 ms, and the round. */
static void ps_pull_ratio(void **state)
{
    (void)state;
    cp_cluster c = synth(8, 1, 100, 2, 1, 1, 10, 5);
    cp_ps_config cfg = {.servers = 1, .pull_ratio = 2};
    cp_error err;
    for (int w = 1; w <= 8; w *= 2) {
        cp_ps_est e;
        assert_int_equal(cp_ps_exchange(&c, w, MB100, &cfg, &e, &err), 0);
        NEAR(e.push_ms, 10.01 + 10.005 * w);
        NEAR(e.pull_ms, 20.01 + 20.005 * w);
        NEAR(e.aggregate_ms, w + 8.0 + TEAM9);
    }
    cp_ps_est e;
    cfg.pull_ratio = -1;
    assert_int_equal(cp_ps_exchange(&c, 2, MB100, &cfg, &e, &err), -1);
    assert_non_null(strstr(err.msg, "parameter bytes per gradient byte"));
}

/* One node, 4 GPUs, server on one of them (P2P, 100 GB/s, 2 us): the other
 * 3 send 100 MB each into it: 3 ms + 3 x 2 us = 3.006 ms; it reads 4
 * gradients, the weights and their momentum and writes both back at
 * 1000 GB/s: 0.8 ms. */
static void ps_gpu_server(void **state)
{
    (void)state;
    cp_cluster c = synth(1, 4, 100, 2, 1, 0, 0, 0);
    cp_ps_est e = ps(&c, 4, MB100, 1, 1, 1);
    NEAR(e.push_ms, 3.006);
    NEAR(e.aggregate_ms, 0.8);
    NEAR(e.round_ms, 0); /* a GPU server has no thread team */
    NEAR(e.time_ms, 6.812);
    assert_string_equal(e.bottleneck, "intra-node");
    c.ipc.bandwidth_gbs = 10; /* a GPU server is reached by NVLink, not a host process */
    e = ps(&c, 4, MB100, 1, 1, 1);
    assert_false(e.one_stream);
}

/* A CPU server process on the workers' node, reached by one message stream
 * per worker (host.ipc: 10 GB/s, 1 us): one node of 4 GPUs, host links
 * 10 GB/s and 10 us, host memory 100 GB/s, 100 MB:
 *   push = host copy max(10 ms + 10 us, 4 x 100 MB / 100 GB/s = 4 ms) = 10.01 ms
 *          + the server's 4 streams one after the other, 4 x (10 ms + 1 us) = 40.004 ms
 *   two servers: 4 streams of 50 MB each at each, 4 x (5 ms + 1 us) = 20.004 ms
 *   without ipc the stage is absent (the dissertation's model) */
static void ps_server_process(void **state)
{
    (void)state;
    cp_cluster c = synth(1, 4, 100, 2, 1, 0, 0, 0);
    cp_ps_est e = ps(&c, 4, MB100, 1, 0, 0);
    NEAR(e.push_ms, 10.01);
    assert_false(e.one_stream); /* no process link modelled: the directions pipeline */
    c.ipc.bandwidth_gbs = 10;
    c.ipc.latency_us = 1;
    e = ps(&c, 4, MB100, 1, 0, 0);
    NEAR(e.push_ms, 10.01 + 40.004);
    NEAR(e.pull_ms, e.push_ms);
    assert_string_equal(e.bottleneck, "server process");
    assert_true(e.one_stream); /* the server process moves pushes and pulls itself */
    e = ps(&c, 4, MB100, 2, 0, 0);
    NEAR(e.push_ms, 10.01 + 20.004);
    /* more workers, more streams: linear in W */
    cp_ps_est e2 = ps(&c, 2, MB100, 1, 0, 0);
    NEAR(e2.push_ms, 10.01 + 20.002);
}

/* The dissertation's box: 2 GPUs on PCIe x8 (6.3 GB/s, 10 us), CPU server
 * on the host, 102.2 MB (ResNet-50 fp32 gradients):
 *   push = 102.2e6 / 6.3e9 = 16.222 ms + 0.01 (host memory 2 x 102.2 MB /
 *          40 GB/s = 5.11 ms is not the limit)
 *   aggregate = 6 x 102.2 MB / 40 GB/s = 15.33 ms (2 gradients read, the
 *               parameters and their momentum read and written; CPU: 4 x
 *               25.55 M / 920 GFLOP/s = 0.11 ms), and the round's cost on the
 *               6 threads the 2 workers leave of its 8 cores */
static void ps_dissertation_box(void **state)
{
    (void)state;
    cp_cluster c;
    cp_error err;
    assert_int_equal(cp_cluster_load("dissertation-1080-1080ti", &c, &err), 0);
    cp_ps_est e = ps(&c, 2, 102.2e6, 1, 0, 0);
    NEAR(e.push_ms, 102.2e6 / 6.3e9 * 1e3 + 0.01);
    double agg = 15.33 + (c.cpu_cores - 2) * CP_PS_ROUND_MS_PER_THREAD_FP32;
    assert_int_equal(c.cpu_cores, 8);
    NEAR(e.aggregate_ms, agg);
    NEAR(e.time_ms, 2 * e.push_ms + agg);
    assert_string_equal(e.bottleneck, "host link");
}

static void refusals(void **state)
{
    (void)state;
    cp_cluster c = synth(2, 4, 100, 2, 1, 2, 25, 4);
    cp_error err;
    cp_ps_est pe;
    cp_ar_est ae;
    cp_ps_config zero = {.servers = 0}, nine = {.servers = 9}, one = {.servers = 1};
    assert_int_equal(cp_ps_exchange(&c, 8, MB100, &zero, &pe, &err), -1);
    assert_non_null(strstr(err.msg, "at least one server, got 0"));
    assert_int_equal(cp_ps_exchange(&c, 8, MB100, &nine, &pe, &err), -1);
    assert_non_null(strstr(err.msg, "9 servers for 8 workers"));
    assert_int_equal(cp_ps_exchange(&c, 9, MB100, &one, &pe, &err), -1);
    assert_non_null(strstr(err.msg, "9 workers: cluster 'synthetic 2x4' has 8 GPUs"));
    assert_int_equal(cp_ps_exchange(&c, 0, MB100, &one, &pe, &err), -1);
    assert_int_equal(cp_nccl_allreduce(&c, 16, MB100, CP_AR_AUTO, &ae, &err), -1);
    assert_non_null(strstr(err.msg, "16 GPUs: cluster 'synthetic 2x4' has 8"));
    assert_int_equal(cp_nccl_allreduce(&c, 8, -1, CP_AR_AUTO, &ae, &err), -1);
    assert_non_null(strstr(err.msg, "non-negative"));
    assert_true(cp_nccl_volume_bytes(&c, 0, MB100, CP_AR_RING, &err) < 0);
}

/* --- properties ----------------------------------------------------------- */

static const char *const shipped[] = {"dissertation-1080-1080ti", "dgx-h100", "dgx-h100-x2", "h100-x16-nodes",
                                      "h200-x4"};
#define N_SHIPPED (sizeof shipped / sizeof shipped[0])
static const double sizes[] = {8, 4096, 1e6, 25e6, 102.2e6, 2e9};
#define N_SIZES (sizeof sizes / sizeof sizes[0])

/* Every file in clusters/ is embedded, loads, and is one of the above. */
static void shipped_clusters_load(void **state)
{
    (void)state;
    size_t n = 0;
    for (size_t i = 0; i < cp_resource_count; i++) {
        if (strcmp(cp_resources[i].dir, "clusters") != 0)
            continue;
        cp_cluster c;
        cp_error err = {{0}};
        if (cp_cluster_load(cp_resources[i].name, &c, &err))
            fail_msg("%s", err.msg);
        n++;
    }
    assert_int_equal(n, N_SHIPPED);
    const int gpus[] = {2, 8, 16, 128, 4};
    for (size_t i = 0; i < N_SHIPPED; i++) {
        cp_cluster c;
        cp_error err;
        assert_int_equal(cp_cluster_load(shipped[i], &c, &err), 0);
        assert_int_equal(cp_cluster_gpus(&c), gpus[i]);
    }
    cp_cluster d;
    cp_error err;
    assert_int_equal(cp_cluster_load("dissertation-1080-1080ti", &d, &err), 0);
    assert_string_equal(cp_cluster_device(&d, 0)->id, "gtx1080");
    assert_string_equal(cp_cluster_device(&d, 1)->id, "gtx1080ti");
    assert_null(cp_cluster_device(&d, 2));
    assert_int_equal(d.intra_p2p, 0);
    /* a path works as well as a name */
    assert_int_equal(cp_cluster_load(CNNPERF_SOURCE_DIR "/clusters/dgx-h100-x2.json", &d, &err), 0);
    assert_int_equal(d.nics_per_node, 8);
    assert_int_equal(cp_cluster_device(&d, 15)->sm_count, 132);
    assert_int_equal(cp_cluster_load("dgx-h1000", &d, &err), -1);
    assert_non_null(strstr(err.msg, "unknown cluster 'dgx-h1000' (built in: "));
}

/* The clusters the property sweeps run over: the shipped ones plus
 * synthetic ones with and without P2P and with a thin network. */
static int sweep_clusters(cp_cluster *out)
{
    int n = 0;
    for (size_t i = 0; i < N_SHIPPED; i++) {
        cp_error err;
        assert_int_equal(cp_cluster_load(shipped[i], &out[n++], &err), 0);
    }
    out[n++] = synth(2, 4, 100, 2, 1, 2, 25, 4);
    out[n++] = synth(4, 2, 10, 5, 0, 1, 12.5, 3);
    out[n++] = synth(64, 1, 100, 2, 1, 1, 25, 4);
    return n;
}

static double nccl_ms(const cp_cluster *c, int p, double s, cp_ar_algo a)
{
    return allreduce(c, p, s, a).time_ms;
}

static double ps_ms(const cp_cluster *c, int w, double s, int k, int on_gpu, int colocated)
{
    return ps(c, w, s, k, on_gpu, colocated).time_ms;
}

/* Scaling one bandwidth up never makes any prediction slower. */
static void more_bandwidth_never_slower(void **state)
{
    (void)state;
    cp_cluster base[16];
    int nc = sweep_clusters(base);
    const double factor[] = {0.25, 0.5, 1, 2, 4, 16};
    for (int ci = 0; ci < nc; ci++)
        for (int which = 0; which < 4; which++)
            for (size_t si = 0; si < N_SIZES; si++) {
                int p = cp_cluster_gpus(&base[ci]);
                double prev[5] = {HUGE_VAL, HUGE_VAL, HUGE_VAL, HUGE_VAL, HUGE_VAL};
                for (size_t f = 0; f < sizeof factor / sizeof factor[0]; f++) {
                    cp_cluster c = base[ci];
                    double *bw[] = {&c.intra.bandwidth_gbs, &c.inter.bandwidth_gbs, &c.host_memory_bandwidth_gbs,
                                    &c.groups[0].dev.host_link_bandwidth_gbs};
                    *bw[which] *= factor[f];
                    double t[5];
                    for (int a = CP_AR_AUTO; a <= CP_AR_HIERARCHICAL; a++)
                        t[a + 1] = nccl_ms(&c, p, sizes[si], (cp_ar_algo)a);
                    t[4] = ps_ms(&c, p, sizes[si], 1, 0, 0) + ps_ms(&c, p, sizes[si], p > 1 ? 2 : 1, 0, 1) +
                           ps_ms(&c, p, sizes[si], 1, 1, 1);
                    for (int k = 0; k < 5; k++) {
                        if (t[k] > prev[k] * (1 + 1e-12))
                            fail_msg("%s: bandwidth %d x %g made model %d slower at %g B: %g -> %g ms",
                                     c.name, which, factor[f], k, sizes[si], prev[k], t[k]);
                        prev[k] = t[k];
                    }
                }
            }
}

/* Volume: 2(p-1)S for every algorithm, never shrinking as GPUs are added. */
static void more_gpus_never_less_volume(void **state)
{
    (void)state;
    cp_cluster cs[16];
    int nc = sweep_clusters(cs);
    cp_error err;
    for (int ci = 0; ci < nc; ci++)
        for (int a = CP_AR_AUTO; a <= CP_AR_HIERARCHICAL; a++)
            for (size_t si = 0; si < N_SIZES; si++) {
                double prev = -1;
                for (int p = 1; p <= cp_cluster_gpus(&cs[ci]); p++) {
                    double v = cp_nccl_volume_bytes(&cs[ci], p, sizes[si], (cp_ar_algo)a, &err);
                    assert_true(v >= prev);
                    NEAR(v, 2.0 * (p - 1) * sizes[si]);
                    prev = v;
                }
            }
}

static void auto_never_slower(void **state)
{
    (void)state;
    cp_cluster cs[16];
    int nc = sweep_clusters(cs);
    for (int ci = 0; ci < nc; ci++)
        for (int p = 1; p <= cp_cluster_gpus(&cs[ci]); p++)
            for (size_t si = 0; si < N_SIZES; si++) {
                double best = nccl_ms(&cs[ci], p, sizes[si], CP_AR_AUTO);
                for (int a = CP_AR_RING; a <= CP_AR_HIERARCHICAL; a++)
                    assert_true(best <= nccl_ms(&cs[ci], p, sizes[si], (cp_ar_algo)a));
            }
}

/* Large messages leave the protocol latencies behind: the ring's busbw
 * approaches the bottleneck link, 302.5 GB/s in a DGX H100 (NVLink 4 as
 * NCCL's send/receive measured it), over 2(p-1)/p / (F + (1-F) 2(p-1)/p)
 * inside the node, where a share F of the transfer does not grow with the
 * ring (intra_ring_fixed_share): 1.75 / 1.495 x 302.5 = 354 GB/s on 8. */
static void busbw_approaches_link(void **state)
{
    (void)state;
    cp_cluster c;
    cp_error err;
    assert_int_equal(cp_cluster_load("dgx-h100", &c, &err), 0);
    assert_true(c.intra_ring_measured && c.intra_ring_fixed_share > 0);
    double f = c.intra_ring_fixed_share, ring = 1.75 / (f + (1 - f) * 1.75) * 302.5;
    cp_ar_est e = allreduce(&c, 8, 8e9, CP_AR_AUTO);
    assert_true(e.busbw_gbs > 0.99 * ring && e.busbw_gbs <= ring);
    e = allreduce(&c, 2, 8e9, CP_AR_AUTO); /* a pair: the link itself */
    assert_true(e.busbw_gbs > 0.99 * 302.5 && e.busbw_gbs <= 302.5);
    /* two DGX nodes: 8 NICs x 50 GB/s = 400 GB/s per node, so the ring's
     * slowest hop is still the NVLink */
    assert_int_equal(cp_cluster_load("dgx-h100-x2", &c, &err), 0);
    e = allreduce(&c, 16, 8e9, CP_AR_RING);
    assert_true(e.busbw_gbs > 0.99 * 302.5 && e.busbw_gbs <= 302.5);
    assert_string_equal(e.bottleneck, "intra-node");
    /* with one NIC per node, the network */
    c.nics_per_node = 1;
    e = allreduce(&c, 16, 8e9, CP_AR_RING);
    assert_true(e.busbw_gbs > 0.99 * 50 && e.busbw_gbs <= 50);
    assert_string_equal(e.bottleneck, "network");
}

/* --- NCCL's tuner, against what NCCL printed and did --------------------- */

/* The shipped DGX H100 in *c, and what NCCL printed and picked on two H100s. */
static cJSON *dgx_h100_and_tuner_log(cp_cluster *c)
{
    cp_error err;
    assert_int_equal(cp_cluster_load("dgx-h100", c, &err), 0);
    cJSON *root = cp_json_read_file(NCCL_TUNER_LOG, &err);
    if (!root)
        fail_msg("%s", err.msg);
    return root;
}

static cp_ar_algo algo_named(const char *s)
{
    return strcmp(s, "ring") == 0 ? CP_AR_RING : strcmp(s, "tree") == 0 ? CP_AR_TREE : CP_AR_HIERARCHICAL;
}

static cp_proto proto_named(const char *s)
{
    return strcmp(s, "ll") == 0 ? CP_PROTO_LL : strcmp(s, "ll128") == 0 ? CP_PROTO_LL128 : CP_PROTO_SIMPLE;
}

/* On two GPUs of the shipped DGX H100, the tuner's latency and algbw of
 * every ring and tree protocol are NCCL's own, as printed to 0.1. */
static void nccl_tuner_matches_printed_table(void **state)
{
    (void)state;
    cp_cluster c;
    cp_error err;
    cJSON *root = dgx_h100_and_tuner_log(&c);
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, cp_jget(root, "allreduce_estimates"))
    {
        const char *a = cJSON_GetStringValue(cp_jget(e, "algorithm")), *p = cJSON_GetStringValue(cp_jget(e, "protocol"));
        double lat, bw;
        assert_int_equal(cp_nccl_tuner_estimate(&c, 2, 1e6, algo_named(a), proto_named(p), &lat, &bw, &err), 0);
        if (fabs(lat - cp_jget(e, "latency_us")->valuedouble) > 0.051 ||
            fabs(bw - cp_jget(e, "algbw_gbs")->valuedouble) > 0.051)
            fail_msg("%s/%s: %.2f us / %.2f GB/s, NCCL printed %.1f / %.1f", a, p, lat, bw,
                     cp_jget(e, "latency_us")->valuedouble, cp_jget(e, "algbw_gbs")->valuedouble);
        n++;
    }
    assert_int_equal(n, 6);
    assert_int_equal(cp_nccl_tuner_estimate(&c, 2, 1e6, CP_AR_HIERARCHICAL, CP_PROTO_LL, &(double){0},
                                            &(double){0}, &err),
                     -1);
    cJSON_Delete(root);
}

/* Every size of that run: NCCL's algorithm and protocol (ring LL up to
 * 1 MiB, ring Simple from 2 MiB, where LL would have been faster). */
static void nccl_picks_as_logged(void **state)
{
    (void)state;
    cp_cluster c;
    cJSON *root = dgx_h100_and_tuner_log(&c);
    const cJSON *pk;
    int n = 0;
    cJSON_ArrayForEach(pk, cp_jget(root, "allreduce_picks"))
    {
        double bytes = cp_jget(pk, "bytes")->valuedouble;
        const char *a = cJSON_GetStringValue(cp_jget(pk, "algorithm")), *p = cJSON_GetStringValue(cp_jget(pk, "protocol"));
        cp_ar_est e = allreduce(&c, 2, bytes, CP_AR_AUTO);
        if (e.algo != algo_named(a) || e.proto != proto_named(p))
            fail_msg("%.0f B: %s/%s, NCCL ran %s/%s", bytes, cp_ar_algo_name(e.algo), cp_proto_name(e.proto), a, p);
        n++;
    }
    assert_true(n >= 20);
    cJSON_Delete(root);
}

/* --- the assumed cluster of --device/--gpus ------------------------------- */

static void homogeneous(void **state)
{
    (void)state;
    cp_device d;
    cp_cluster c;
    cp_error err;
    assert_int_equal(cp_device_load("h100", &d, &err), 0);
    assert_int_equal(cp_cluster_homogeneous(&c, &d, 8, &err), 0);
    assert_string_equal(c.name, "8 x h100 (assumed NVLink 4 node)");
    assert_int_equal(c.nodes, 1);
    NEAR(c.intra.bandwidth_gbs, 302.5); /* NVLink 4 as NCCL's send/receive measured it */
    assert_int_equal(cp_cluster_homogeneous(&c, &d, 16, &err), 0);
    assert_int_equal(c.nodes, 2);
    assert_int_equal(c.gpus_per_node, 8);
    assert_int_equal(c.nics_per_node, 8);
    NEAR(c.inter.bandwidth_gbs, 50);
    assert_non_null(strstr(c.name, "assumed"));
    assert_int_equal(cp_cluster_homogeneous(&c, &d, 12, &err), 0); /* 2 nodes of 6 */
    assert_int_equal(c.gpus_per_node, 6);
    assert_int_equal(cp_cluster_homogeneous(&c, &d, 1024, &err), 0);
    assert_int_equal(cp_cluster_gpus(&c), 1024);
    assert_int_equal(cp_cluster_homogeneous(&c, &d, 0, &err), -1);

    assert_int_equal(cp_device_load("gtx1080ti", &d, &err), 0);
    assert_int_equal(cp_cluster_homogeneous(&c, &d, 4, &err), 0);
    assert_int_equal(c.intra_p2p, 0);
    NEAR(c.intra.bandwidth_gbs, d.host_link_bandwidth_gbs);
    assert_string_equal(c.name, "4 x gtx1080ti (assumed PCIe node)");
    assert_int_equal(cp_device_load("a100", &d, &err), 0);
    assert_int_equal(cp_cluster_homogeneous(&c, &d, 8, &err), 0);
    NEAR(c.intra.bandwidth_gbs, 300);
    assert_int_equal(cp_device_load("v100", &d, &err), 0);
    assert_int_equal(cp_cluster_homogeneous(&c, &d, 8, &err), 0);
    NEAR(c.intra.bandwidth_gbs, 150);
}

/* An assumed H100 node carries the device machines' pooled PS streams
 * (calibration/ps-exchange.json): the entry for the workers and servers,
 * else the workers' one-server entry, else the assumed MPI link; a device
 * no call measured has none. */
static void ps_stream_pooled(void **state)
{
    (void)state;
    cp_device d;
    cp_cluster c;
    cp_error err;
    assert_int_equal(cp_device_load("h100", &d, &err), 0);
    assert_int_equal(cp_cluster_homogeneous(&c, &d, 4, &err), 0);
    assert_true(c.n_ipc_pool >= 4);
    const cp_link *two = cp_cluster_ps_stream(&c, 2, 2), *one = cp_cluster_ps_stream(&c, 2, 1);
    assert_ptr_not_equal(one, &c.ipc);
    assert_ptr_not_equal(two, one); /* two servers' streams share the host: measured apart */
    assert_non_null(strstr(one->name, "pooled"));
    assert_true(one->bandwidth_gbs > 1 && one->bandwidth_gbs < 50);
    assert_ptr_equal(cp_cluster_ps_stream(&c, 2, 3), one); /* no 3-server pool: the one-server stream */
    assert_ptr_equal(cp_cluster_ps_stream(&c, 8, 1), &c.ipc); /* no 8-worker pool */
    for (int i = 0; i < c.n_ipc_pool; i++) { /* each entry holds its calls' spread around their median */
        const cp_ipc_pooled *q = &c.ipc_pool[i];
        assert_true(q->sweeps >= 1);
        assert_true(q->min_gbs > 0 && q->min_gbs <= q->link.bandwidth_gbs && q->link.bandwidth_gbs <= q->max_gbs);
    }
    NEAR(c.ipc.bandwidth_gbs, 8.5);
    cp_link measured = c.ipc;
    cp_cluster_use_ipc(&c, &measured); /* a measured link (--host-mpi) clears the pool */
    assert_int_equal(c.n_ipc_pool, 0);
    assert_ptr_equal(cp_cluster_ps_stream(&c, 2, 1), &c.ipc);
    assert_int_equal(cp_device_load("a100", &d, &err), 0);
    assert_int_equal(cp_cluster_homogeneous(&c, &d, 4, &err), 0);
    assert_int_equal(c.n_ipc_pool, 0);
}

/* Predicting for 1,024 GPUs is a closed form: no slower than for 2. */
static void cost_independent_of_gpus(void **state)
{
    (void)state;
    cp_device d;
    cp_cluster c;
    cp_error err;
    assert_int_equal(cp_device_load("h100", &d, &err), 0);
    assert_int_equal(cp_cluster_homogeneous(&c, &d, 1024, &err), 0);
    cp_ar_est e = allreduce(&c, 1024, 102.2e6, CP_AR_AUTO);
    assert_true(e.time_ms > 0 && isfinite(e.time_ms));
    cp_ps_est p = ps(&c, 1024, 102.2e6, 16, 0, 1);
    assert_true(p.time_ms > 0 && isfinite(p.time_ms));
}

/* --- bad cluster files ---------------------------------------------------- */

typedef struct {
    const char *file, *path, *msg;
} bad_case;

static const bad_case bad[] = {
    {"cluster-malformed-truncated.json", "$", "malformed JSON"},
    {"cluster-malformed-trailing-comma.json", "$", "malformed JSON near line 9"},
    {"cluster-not-object.json", "$", "must be a JSON object"},
    {"cluster-format-wrong.json", "$.format", "unsupported format 'cnnperf-cluster/2'"},
    {"cluster-top-field-unknown.json", "$.switches", "unknown field"},
    {"cluster-field-unknown.json", "$.intra_node.bandwith_gbs", "unknown field"},
    {"cluster-ring-share-alone.json", "$.intra_node.ring_step_us", "given together"},
    {"cluster-ring-share-range.json", "$.intra_node.ring_fixed_share", "must be a number in [0, 1], got 1.5"},
    {"cluster-nodes-missing.json", "$.nodes", "missing required field"},
    {"cluster-nodes-string.json", "$.nodes", "must be an integer"},
    {"cluster-gpus-empty.json", "$.gpus_per_node", "non-empty array"},
    {"cluster-count-zero.json", "$.gpus_per_node[0].count", "must be a positive integer"},
    {"cluster-device-unknown.json", "$.gpus_per_node[1].device", "unknown device 'gtx1070' (built in: "},
    {"cluster-device-path-missing.json", "$.gpus_per_node[0].device", "no-such-dir/gpu.json: cannot open"},
    {"cluster-intra-bandwidth-zero.json", "$.intra_node.bandwidth_gbs", "must be positive, got 0"},
    {"cluster-tuner-busbw-zero.json", "$.intra_node.nccl_tuner_busbw_gbs", "must be positive, got 0"},
    {"cluster-inter-bandwidth-negative.json", "$.inter_node.bandwidth_gbs", "must be positive, got -50"},
    {"cluster-inter-latency-negative.json", "$.inter_node.latency_us", "got -3"},
    {"cluster-nics-zero.json", "$.inter_node.nics_per_node", "must be a positive integer"},
    {"cluster-inter-missing.json", "$.inter_node", "missing required field (the cluster has 2 nodes)"},
    {"cluster-p2p-string.json", "$.intra_node.p2p", "must be true or false"},
    {"cluster-host-missing.json", "$.host", "missing required field"},
    {"cluster-host-memory-value-string.json", "$.host.memory_bandwidth_gbs.value", "must be a number"},
    {"cluster-ipc-bandwidth-zero.json", "$.host.ipc.bandwidth_gbs", "must be positive, got 0"},
    {"cluster-ipc-field-unknown.json", "$.host.ipc.streams", "unknown field"},
    {"cluster-ps-server-zero.json", "$.host.ps_server_gbs.fp16", "must be positive, got 0"},
    {"cluster-ps-server-type-unknown.json", "$.host.ps_server_gbs.int8", "unknown field"},
    {"cluster-ps-server-threads-zero.json", "$.host.ps_server_threads", "0"},
    {"cluster-ps-server-threads-alone.json", "$.host.ps_server_threads", "given without ps_server_gbs"},
};
#define N_BAD (sizeof bad / sizeof bad[0])

/* A loader refused tests/data/bad/<name> (rc -1) with one line "<file>:
 * <path>: ...<msg>...". */
static void expect_refused(const char *name, int rc, const cp_error *err, const char *path, const char *msg)
{
    char file[512], prefix[700];
    snprintf(file, sizeof file, "%s/%s", BAD_DIR, name);
    snprintf(prefix, sizeof prefix, "%s: %s: ", file, path);
    if (rc != -1)
        fail_msg("%s: accepted", name);
    if (strncmp(err->msg, prefix, strlen(prefix)) != 0 || !strstr(err->msg + strlen(prefix), msg) ||
        strchr(err->msg, '\n'))
        fail_msg("%s:\n  got  '%s'\n  want '%s...%s...'", name, err->msg, prefix, msg);
}

static void bad_cluster_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_BAD; i++) {
        char file[512];
        snprintf(file, sizeof file, "%s/%s", BAD_DIR, bad[i].file);
        cp_cluster c;
        cp_error err = {{0}};
        expect_refused(bad[i].file, cp_cluster_load(file, &c, &err), &err, bad[i].path, bad[i].msg);
    }
}

/* Every cluster-*.json under tests/data/bad/ is in the table above. */
static void bad_cluster_files_all_listed(void **state)
{
    (void)state;
    DIR *dir = opendir(BAD_DIR);
    assert_non_null(dir);
    size_t seen = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        if (strncmp(e->d_name, "cluster-", 8) != 0)
            continue;
        int listed = 0;
        for (size_t i = 0; i < N_BAD && !listed; i++)
            listed = strcmp(bad[i].file, e->d_name) == 0;
        if (!listed)
            fail_msg("%s is not in test_comm.c's table", e->d_name);
        seen++;
    }
    closedir(dir);
    assert_int_equal(seen, N_BAD);
}

/* --- the host's MPI link from a measured sweep (comm/cluster.h, util/fit.h) --- */

/* t = L + S / B recovered exactly from exact points; a negative intercept
 * is clamped to L = 0 with B refitted; fewer than two points is no fit. */
static void lat_bw_fit(void **state)
{
    (void)state;
    double S[] = {1e6, 4e6, 16e6, 64e6}, t[4];
    for (int i = 0; i < 4; i++)
        t[i] = 3.0 + S[i] / 8e9 * 1e6; /* L 3 us, B 8 GB/s */
    cp_lat_bw_fit f = cp_fit_lat_bw(S, t, 4);
    assert_true(f.ok);
    assert_int_equal(f.n, 4);
    NEAR(f.latency_us, 3.0);
    NEAR(f.bandwidth_gbs, 8.0);
    assert_true(f.max_rel_error < 1e-9);
    /* bandwidth falling with size (a cache, then DRAM): the line through the
     * points crosses below zero, so L = 0 */
    double u[] = {100.0, 500.0}, Z[] = {1e6, 4e6};
    f = cp_fit_lat_bw(Z, u, 2);
    assert_true(f.ok && f.latency_clamped);
    assert_true(f.latency_us == 0 && f.bandwidth_gbs > 0);
    f = cp_fit_lat_bw(S, t, 1);
    assert_false(f.ok);
}

/* tests/data/host-mpi-5gbs.json: t = 2 us + S / 5 GB/s from 1 KiB to
 * 256 MiB; the fit takes the sizes from 16 MiB up and recovers it, and the
 * parameter server's worker-to-server stream then runs at 5 GB/s. */
static void host_mpi_measured(void **state)
{
    (void)state;
    cp_link l;
    cp_error err = {{0}};
    if (cp_cluster_ipc_measured(CNNPERF_SOURCE_DIR "/tests/data/host-mpi-5gbs.json", &l, &err))
        fail_msg("%s", err.msg);
    NEAR(l.bandwidth_gbs, 5.0);
    NEAR(l.latency_us, 2.0);
    assert_non_null(strstr(l.name, "host-mpi-5gbs.json"));
    cp_cluster c = synth(1, 4, 100, 2, 1, 0, 0, 0);
    c.ipc = l;
    cp_ps_est e = ps(&c, 2, MB100, 1, 0, 0);
    NEAR(e.push_ms, 10.01 + 2 * (20.0 + 0.002)); /* PCIe as in ps_server_process, then 2 x 100 MB at 5 GB/s */
}

/* tests/data/net-emulated-4gbs.json: 2 ranks on one host with NCCL's
 * network transport forced, t = 40 us + S / 4 GB/s. The link fitted from
 * it makes the model's all-reduce over two one-GPU nodes give the sweep's
 * own times back: ring Simple, 2 steps of (L + 5 us) after 8.4 us, S / B. */
static void net_link_measured(void **state)
{
    (void)state;
    cp_link l;
    cp_error err = {{0}};
    if (cp_cluster_net_measured(CNNPERF_SOURCE_DIR "/tests/data/net-emulated-4gbs.json", &l, &err))
        fail_msg("%s", err.msg);
    NEAR(l.bandwidth_gbs, 4.0);
    NEAR(l.latency_us, (40.0 - 8.4) / 2 - 5.0);
    assert_non_null(strstr(l.name, "emulated"));
    cp_cluster c = synth(2, 1, 100, 2, 1, 1, l.bandwidth_gbs, l.latency_us);
    for (double s = 32e6; s <= 1e9; s *= 4) {
        cp_ar_est e = allreduce(&c, 2, s, CP_AR_AUTO);
        NEAR(e.time_ms * 1e3, 40.0 + s / 4e9 * 1e6);
    }
    cp_link shared;
    expect_refused("netlink-shared-host.json",
                   cp_cluster_net_measured(BAD_DIR "/netlink-shared-host.json", &shared, &err), &err,
                   "$.provenance.hostnames", "not one per node");
    expect_refused("netlink-no-points.json", cp_cluster_net_measured(BAD_DIR "/netlink-no-points.json", &shared, &err),
                   &err, "$.nccl_allreduce.in_place", "missing or not an object");
}

static const struct {
    const char *file, *path, *msg;
} bad_mpi[] = {
    {"hostmpi-no-sweep.json", "$.mpi_pingpong", "no MPI ping-pong sweep"},
    {"hostmpi-points-not-array.json", "$.mpi_pingpong.sweep.points", "not an array"},
    {"hostmpi-time-negative.json", "$.mpi_pingpong.sweep.points[1].time_us", "got -1"},
    {"hostmpi-bytes-missing.json", "$.mpi_pingpong.sweep.points[1].bytes", "missing required field"},
    {"hostmpi-too-few-large.json", "$.mpi_pingpong.sweep.points", "1 sizes of 16 MiB or more"},
    {"hostmpi-malformed.json", "$", "malformed JSON"},
};

static void host_mpi_bad_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_mpi / sizeof bad_mpi[0]; i++) {
        char file[512];
        snprintf(file, sizeof file, "%s/%s", BAD_DIR, bad_mpi[i].file);
        cp_link l;
        cp_error err = {{0}};
        expect_refused(bad_mpi[i].file, cp_cluster_ipc_measured(file, &l, &err), &err, bad_mpi[i].path,
                       bad_mpi[i].msg);
    }
}

/* The servers' pass as cnnperf-psbench measured it (tests/data/psbench-sample.json:
 * 150 GB/s with FP32 gradients, 50 with FP16) replaces the host memory's
 * bandwidth in the server's roofline: with 2 FP32 workers of 100 MB,
 * (2 + 4) x 100 MB / 150 GB/s = 4 ms; 16-bit gradients of FP32 parameters
 * (pull ratio 2): (2 + 8) x 100 MB / 50 GB/s = 20 ms; each with the round's
 * cost for the file's 30 threads. */
static void ps_server_measured(void **state)
{
    (void)state;
    cp_error err = {{0}};
    cJSON *root = cp_json_read_file(CNNPERF_SOURCE_DIR "/tests/data/psbench-sample.json", &err);
    assert_non_null(root);
    cp_cluster c = synth(8, 1, 100, 2, 1, 1, 10, 5);
    if (cp_cluster_ps_server_parse(root, "psbench-sample.json", &c.ps_server, &err))
        fail_msg("%s", err.msg);
    cJSON_Delete(root);
    NEAR(c.ps_server.gbs[0], 150);
    NEAR(c.ps_server.gbs[1], 50);
    cp_ps_est e = ps(&c, 2, MB100, 1, 0, 0);
    assert_int_equal(c.ps_server.threads, 30);
    NEAR(e.aggregate_ms, 4.0 + 30 * CP_PS_ROUND_MS_PER_THREAD_FP32);
    cp_ps_config cfg = {.servers = 1, .pull_ratio = 2, .grad_type = 1};
    assert_int_equal(cp_ps_exchange(&c, 2, MB100, &cfg, &e, &err), 0);
    NEAR(e.aggregate_ms, 20.0 + 30 * CP_PS_ROUND_MS_PER_THREAD_16BIT);
    cfg.grad_type = 7;
    assert_int_equal(cp_ps_exchange(&c, 2, MB100, &cfg, &e, &err), -1);
    assert_non_null(strstr(err.msg, "gradient type 7"));
    static const struct {
        const char *file, *path, *msg;
    } bad_files[] = {
        {"psbench-format-wrong.json", "$.format", "expected \"cnnperf-psbench/1\""},
        {"psbench-rate-negative.json", "$.server_gbs.fp16", "must be positive, got -3"},
        {"psbench-serial-zero.json", "$.serial_server_gbs.fp16", "must be positive, got 0"},
        {"psbench-threads-zero.json", "$.threads", "0"},
    };
    for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
        char file[512];
        snprintf(file, sizeof file, "%s/%s", BAD_DIR, bad_files[i].file);
        cp_ps_server kept = {{1, 2, 3}, {0, 0, 0}, 7};
        cJSON *r = cp_json_read_file(file, &err);
        assert_non_null(r);
        expect_refused(bad_files[i].file, cp_cluster_ps_server_parse(r, file, &kept, &err), &err, bad_files[i].path,
                       bad_files[i].msg);
        cJSON_Delete(r);
        assert_true(kept.gbs[0] == 1 && kept.gbs[1] == 2 && kept.gbs[2] == 3 && kept.threads == 7); /* untouched */
    }
}

/* A shard under CP_PS_SERIAL_ELEMS parameters is summed on one thread, as
 * cnnperf-measure's server does (measure/ps.c): at psbench's one-thread rate
 * where the file has it, else at its rate over its threads. 2 FP32 workers
 * of 100 kB (25,000 parameters): (2 + 4) x 100 kB at 150 / 30 = 5 GB/s is
 * 0.12 ms, at a measured 10 GB/s 0.06 ms; two servers, each on a core of
 * its own with half: 0.03 ms; no thread team, no round's cost. 65,536
 * parameters take the threads' rate and pay the team's round. */
static void ps_server_small_chunk_on_one_thread(void **state)
{
    (void)state;
    cp_error err = {{0}};
    cp_cluster c = synth(1, 8, 100, 2, 1, 1, 10, 5);
    c.ipc.bandwidth_gbs = 0; /* the server's pass alone */
    if (cp_cluster_ps_server_measured(CNNPERF_SOURCE_DIR "/tests/data/psbench-sample.json", &c.ps_server, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(c.ps_server.threads, 30);
    NEAR(ps(&c, 2, 100e3, 1, 0, 0).aggregate_ms, 0.12);
    NEAR(ps(&c, 2, 100e3, 1, 0, 0).round_ms, 0); /* one thread: no team to wake */
    if (cp_cluster_ps_server_measured(CNNPERF_SOURCE_DIR "/tests/data/psbench-serial-sample.json", &c.ps_server,
                                      &err))
        fail_msg("%s", err.msg);
    NEAR(c.ps_server.serial_gbs[0], 10);
    NEAR(ps(&c, 2, 100e3, 1, 0, 0).aggregate_ms, 0.06);
    NEAR(ps(&c, 2, 100e3, 2, 0, 0).aggregate_ms, 0.03);
    double big = 4.0 * CP_PS_SERIAL_ELEMS;
    NEAR(ps(&c, 2, big, 1, 0, 0).aggregate_ms, 6 * big / 150e9 * 1e3 + 30 * CP_PS_ROUND_MS_PER_THREAD_FP32);
    c.ps_server.threads = 0; /* a cluster file without ps_server_threads: the cores its 2 workers leave, 10 - 2 */
    c.ps_server.serial_gbs[0] = 0;
    NEAR(ps(&c, 2, 100e3, 1, 0, 0).aggregate_ms, 6 * 100e3 / (150e9 / 8) * 1e3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ring_closed_form),
        cmocka_unit_test(ring_measured_closed_form),
        cmocka_unit_test(ring_small_message_ll),
        cmocka_unit_test(tree_closed_form),
        cmocka_unit_test(multinode_closed_forms),
        cmocka_unit_test(no_p2p_staging),
        cmocka_unit_test(one_gpu_is_free),
        cmocka_unit_test(ps_incast_linear),
        cmocka_unit_test(ps_pull_ratio),
        cmocka_unit_test(ps_gpu_server),
        cmocka_unit_test(ps_server_measured),
        cmocka_unit_test(ps_server_small_chunk_on_one_thread),
        cmocka_unit_test(ps_stream_pooled),
        cmocka_unit_test(ps_server_process),
        cmocka_unit_test(ps_dissertation_box),
        cmocka_unit_test(refusals),
        cmocka_unit_test(shipped_clusters_load),
        cmocka_unit_test(more_bandwidth_never_slower),
        cmocka_unit_test(more_gpus_never_less_volume),
        cmocka_unit_test(auto_never_slower),
        cmocka_unit_test(nccl_tuner_matches_printed_table),
        cmocka_unit_test(nccl_picks_as_logged),
        cmocka_unit_test(busbw_approaches_link),
        cmocka_unit_test(homogeneous),
        cmocka_unit_test(cost_independent_of_gpus),
        cmocka_unit_test(bad_cluster_files),
        cmocka_unit_test(bad_cluster_files_all_listed),
        cmocka_unit_test(lat_bw_fit),
        cmocka_unit_test(host_mpi_measured),
        cmocka_unit_test(host_mpi_bad_files),
        cmocka_unit_test(net_link_measured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
