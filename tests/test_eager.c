/* --mode eager (model/eager.c, model/eager_costs.c): the host/GPU time line
 * on cases worked by hand, its bounds against harness mode on every
 * built-in network, monotonicity in the host costs, the cost tables and
 * their two readers, the JSON fields, and the multi-GPU use. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/distributed.h"
#include "model/eager.h"
#include "src/report.h"
#include "util/resources.h"

#define DATA CNNPERF_SOURCE_DIR "/tests/data"

static void near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want))))
        fail_msg("got %.12g, want %.12g", got, want);
}

/* The host's times are the mean over its two speeds (rule 55): a cost c appears in them as c times this. */
static double level_mean(void)
{
    double k = sqrt(CP_EAGER_HOST_LEVELS);
    return CP_EAGER_HOST_LEVELS > 1 ? 0.5 * (k + 1 / k) : 1;
}

/* --- the time line by itself -------------------------------------------------- */

/* Host-bound: every operator's kernels finish before the next is issued,
 * so the time is all host costs plus the last operator's kernels. */
static void test_clock_host_bound(void **state)
{
    (void)state;
    cp_eager_clock c = {0};
    const double k1[] = {0.1}, k2[] = {0.2, 0.3};
    cp_eager_op(&c, 1.0, k1, 1); /* host 1, GPU 1.0-1.1 */
    cp_eager_op(&c, 1.0, k1, 1); /* host 2, GPU 2.0-2.1 */
    cp_eager_op(&c, 1.0, k2, 2); /* host 3, GPU 3.0-3.5 */
    near(cp_eager_end(&c), 3.0 + 0.2 + 0.3);
    near(c.busy_ms, 0.7);
    /* an operator without kernels at the end: the host sets the end */
    cp_eager_op(&c, 2.0, NULL, 0);
    near(cp_eager_end(&c), 5.0);
}

/* GPU-bound: the host runs ahead after its first operator, so the time is
 * the first host cost plus all kernels. */
static void test_clock_gpu_bound(void **state)
{
    (void)state;
    cp_eager_clock c = {0};
    const double k[] = {1.0, 2.0, 3.0};
    for (int i = 0; i < 3; i++)
        cp_eager_op(&c, 0.01, &k[i], 1);
    near(cp_eager_end(&c), 0.01 + 6.0);
    near(c.host_ms, 0.03);
}

/* Mixed: host 2, 1, 1; kernels 1, 3, 1. Issued at 2, 3, 4; the GPU runs
 * 2-3, 3-6 (issued at 3, the GPU free at 3), 6-7 (issued at 4, waits for
 * the GPU): 7, of which 5 busy and 2 waiting for the host. */
static void test_clock_mixed(void **state)
{
    (void)state;
    cp_eager_clock c = {0};
    const double a = 1, b = 3;
    cp_eager_op(&c, 2, &a, 1);
    cp_eager_op(&c, 1, &b, 1);
    cp_eager_op(&c, 1, &a, 1);
    near(cp_eager_end(&c), 7);
    near(c.busy_ms, 5);
}

/* --- on predictions ------------------------------------------------------------ */

static cp_device h100, gtx1080;

static int setup(void **state)
{
    (void)state;
    cp_error err;
    if (cp_device_load("h100", &h100, &err) || cp_device_load("gtx1080", &gtx1080, &err))
        fail_msg("%s", err.msg);
    /* eager mode against the GPU's own harness time: no legacy-call host (test_calibration's) */
    h100.legacy_host.loaded = 0;
    return 0;
}

/* Costs with every table entry and the optimizer given as v µs. */
static void uniform_costs(cp_eager_costs *c, double v)
{
    memset(c, 0, sizeof *c);
    for (int t = 0; t < CP_EAGER_TABLES; t++)
        for (int k = 0; k < CP_EAGER_KEYS; k++) {
            c->us[t][k] = v;
            c->has[t][k] = 1;
        }
    c->opt_step_us = v;
    c->opt_tensor_us = v / 10;
    c->has_opt = 1;
    /* the iteration's fixed walls no more than their head's operators: nothing charged once (rule 52) */
    for (int i = 0; i < 2; i++)
        for (int ph = 0; ph < 3; ph++)
            c->fixed_us[i][ph] = v;
    c->has_fixed = 1;
    c->given = 1;
    snprintf(c->source, sizeof c->source, "test: %g us", v);
}

static void predict_with(const char *network, const cp_device *d, int batch, cp_precision prec, cp_algos algos,
                         cp_network *net, cp_prediction *p)
{
    cp_error err;
    if (cp_network_load(network, net, &err))
        fail_msg("%s", err.msg);
    if (cp_predict_with(net, d, batch, prec, algos, p, &err))
        fail_msg("%s: %s", network, err.msg);
}

static void predict(const char *network, const cp_device *d, int batch, cp_precision prec, cp_network *net,
                    cp_prediction *p)
{
    predict_with(network, d, batch, prec, CP_ALGOS_FIND, net, p);
}

static void run(const cp_prediction *p, const cp_eager_costs *c, cp_eager *e)
{
    cp_error err;
    if (cp_eager_run(p, c, e, &err))
        fail_msg("%s", err.msg);
}

/* Both extremes on LeNet-5 by hand: with no host cost the GPU never waits
 * and the time is its kernels; with 1 s per operator every kernel ends long
 * before the next operator is issued, so the time is the host's plus the
 * last operator's kernels, the optimizer's three foreach kernels (ten
 * tensors of under 65,536 elements: one launch per foreach op). */
static void test_extremes(void **state)
{
    (void)state;
    cp_network net;
    cp_prediction p = {0};
    cp_eager e = {0};
    cp_eager_costs c;
    predict("lenet5", &h100, 1, CP_PREC_FP32, &net, &p);

    uniform_costs(&c, 0);
    run(&p, &c, &e);
    near(e.host_ms, 0);
    near(e.iteration_ms, e.gpu_busy_ms);
    near(e.gpu_idle_ms, 0);
    assert_false(e.host_bound);
    assert_int_equal(e.param_tensors, 10);
    assert_int_equal(e.optimizer_kernels, 3);
    assert_false(e.builtin_costs);

    uniform_costs(&c, 1e6);
    run(&p, &c, &e);
    near(e.iteration_ms, e.host_ms + e.optimizer_ms);
    assert_true(e.host_bound);
    assert_true(e.host_share > 0.999);
    /* the spans add up to the iteration */
    near(e.loading_ms + e.forward_ms + e.backward_ms + e.update_ms, e.iteration_ms);

    cp_eager_free(&e);
    cp_prediction_free(&p);
    cp_network_free(&net);
}

/* Eager runs every harness kernel of loading, forward and backward at its
 * predicted time, in the same order, plus its own kernels and the host's
 * waits: each of those phases is at least harness mode's, and the
 * iteration is at least those phases plus the optimizer's kernels. Only the
 * optimizer differs in kind: the foreach SGD's few multi-tensor kernels
 * against harness mode's one SGD kernel per layer (fewer launches, more
 * bytes), so eager's update alone may be the shorter. */
static void test_not_faster_than_harness(void **state)
{
    (void)state;
    const cp_device *devs[] = {&h100, &gtx1080};
    const cp_precision precs[] = {CP_PREC_FP32, CP_PREC_FP16};
    const int batches[] = {1, 64};
    int checked = 0;
    for (size_t r = 0; r < cp_resource_count; r++) {
        if (strcmp(cp_resources[r].dir, "networks") != 0)
            continue;
        cp_network net;
        cp_error err;
        if (cp_network_load(cp_resources[r].name, &net, &err))
            fail_msg("%s", err.msg);
        cp_prediction p = {0};
        cp_eager e = {0};
        for (int d = 0; d < 2; d++)
            for (int q = 0; q < 2; q++)
                for (int b = 0; b < 2; b++) {
                    if (cp_predict(&net, devs[d], batches[b], precs[q], &p, &err))
                        fail_msg("%s: %s", net.name, err.msg);
                    run(&p, NULL, &e);
                    double tol = 1e-9 * p.iteration_ms;
                    if (e.loading_ms < p.loading_ms - tol || e.forward_ms < p.forward_ms - tol ||
                        e.backward_ms < p.backward_ms - tol ||
                        e.iteration_ms < p.loading_ms + p.forward_ms + p.backward_ms + e.optimizer_ms - tol)
                        fail_msg("%s on %s, %s, batch %d: eager %.6f ms (%.6f + %.6f + %.6f + %.6f) against harness "
                                 "%.6f ms (%.6f + %.6f + %.6f + %.6f)",
                                 net.name, devs[d]->id, cp_precision_name(precs[q]), batches[b], e.iteration_ms,
                                 e.loading_ms, e.forward_ms, e.backward_ms, e.update_ms, p.iteration_ms, p.loading_ms,
                                 p.forward_ms, p.backward_ms, p.update_ms);
                    near(e.loading_ms + e.forward_ms + e.backward_ms + e.update_ms, e.iteration_ms);
                    near(e.harness_ms, p.iteration_ms);
                    /* h100 and h200 carry measured costs (devices/FORMAT.md), the others none */
                    int measured = strcmp(devs[d]->id, "h100") == 0 || strcmp(devs[d]->id, "h200") == 0;
                    assert_true((e.builtin_costs != 0) == !measured);
                    checked++;
                }
        cp_eager_free(&e);
        cp_prediction_free(&p);
        cp_network_free(&net);
    }
    assert_true(checked >= 15 * 8);
}

/* More host cost never lowers the time: all costs scaled together, and one
 * kind's cost alone. */
static void test_more_host_cost_never_less_time(void **state)
{
    (void)state;
    const char *nets[] = {"resnet18", "mobilenet_v2"};
    const int batches[] = {1, 32};
    const double scale[] = {0, 0.5, 1, 2, 5, 10, 40, 200};
    const cp_precision precs[] = {CP_PREC_FP32, CP_PREC_FP16};
    for (int n = 0; n < 2; n++)
        for (int b = 0; b < 2; b++)
            for (int q = 0; q < 2; q++) {
                cp_network net;
                cp_prediction p = {0};
                cp_eager e = {0};
                cp_eager_costs c;
                predict(nets[n], &h100, batches[b], precs[q], &net, &p);
                double last = 0, last_host = 0;
                for (size_t s = 0; s < sizeof scale / sizeof scale[0]; s++) {
                    uniform_costs(&c, scale[s]);
                    run(&p, &c, &e);
                    assert_true(e.iteration_ms >= last);
                    assert_true(e.host_ms >= last_host);
                    assert_true(e.iteration_ms >= e.gpu_busy_ms && e.iteration_ms >= e.host_ms);
                    last = e.iteration_ms;
                    last_host = e.host_ms;
                }
                /* one kind dearer, backward only (keys[2] is conv) */
                uniform_costs(&c, 5);
                run(&p, &c, &e);
                double before = e.iteration_ms;
                c.us[CP_EAGER_BWD][2] = c.us[CP_EAGER_AC_BWD][2] = 500;
                run(&p, &c, &e);
                assert_true(e.iteration_ms >= before);
                near(cp_eager_op_us(&c, "conv", CP_EAGER_BWD, NULL), 500);
                cp_eager_free(&e);
                cp_prediction_free(&p);
                cp_network_free(&net);
            }
}

/* --- the cost tables ------------------------------------------------------------ */

/* Autograd's gradient sums, counted by hand. ResNet-50: each of its 16
 * blocks' input is read by the block's first convolution and by the add or
 * the downsample: 16. GoogLeNet: each of the nine inception blocks' input
 * feeds four branches: 27. DenseNet-121 as torchvision writes it (every
 * dense layer concatenates all earlier features): in a block of n layers the
 * block's input receives n + 1 gradients and the j-th layer's output n - j
 * (j = 1..n), n (n + 1) / 2 sums; blocks of 6, 12, 24 and 16 layers give
 * 21 + 78 + 300 + 136 = 535. Inception-v3's blocks feed 3 or 4 branches, and
 * inner branches split in two: 35; SqueezeNet's fire modules feed two
 * expands: 8; MobileNet-v2's residual blocks: 10. PyTorch's own counts agree
 * (validation/h200/torch/opcounts/: torch.profiler's aten::add and add_ of
 * one step, less BN's counters, in-place residual adds and conv biases).
 * A sum costs the host its own entry, and an add layer's backward as much
 * less (torch_bench times an add as x + x). */
static void test_gradient_sums(void **state)
{
    (void)state;
    const struct {
        const char *net;
        int sums;
    } cases[] = {{"resnet50", 16},     {"googlenet", 27},     {"densenet121", 535}, {"vgg16", 0},
                 {"inception_v3", 35}, {"squeezenet1_1", 8}, {"mobilenet_v2", 10}};
    cp_eager_costs c;
    cp_error err;
    if (cp_eager_costs_load(DATA "/eager-overhead-sample.json", &c, &err))
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cp_network net;
        cp_prediction p = {0};
        cp_eager e = {0};
        predict(cases[i].net, &h100, 32, CP_PREC_FP32, &net, &p);
        run(&p, &c, &e);
        assert_int_equal(e.accumulations, cases[i].sums);
        /* the host's total moves by (sums - adds) x the sum's cost when only that cost moves (each
         * operator's cost scaled as a network's, CP_EAGER_HOST_SCALE) */
        int adds = 0;
        for (int l = 0; l < net.n_layers; l++)
            adds += strcmp(net.layers[l].kind->name, "add") == 0;
        double host = e.host_ms;
        c.us[CP_EAGER_BWD][CP_EAGER_KEYS - 1] += 1; /* 1 us more per sum */
        run(&p, &c, &e);
        near(e.host_ms - host, level_mean() * CP_EAGER_HOST_SCALE * (cases[i].sums - adds) * 1e-3);
        c.us[CP_EAGER_BWD][CP_EAGER_KEYS - 1] -= 1;
        cp_eager_free(&e);
        cp_prediction_free(&p);
        cp_network_free(&net);
    }
}

/* The range from the device profile's host_spread: with every cost 100 us
 * LeNet-5 at batch 1 is all host, so halving and doubling the costs halves
 * and doubles the host's part (one call's costs: widened, below); a profile without a spread gives no range,
 * and a spread below 1 at the top or above 1 at the bottom is refused. */
static void test_host_spread(void **state)
{
    (void)state;
    cp_network net;
    cp_prediction p = {0};
    cp_eager e = {0};
    cp_device d = h100;
    cp_error err;
    predict("lenet5", &d, 1, CP_PREC_FP32, &net, &p);
    cp_eager_costs c;
    uniform_costs(&c, 100);
    d.eager.spread_calls = 0;
    run(&p, &c, &e);
    if (cp_eager_range(&p, &c, &e, &err))
        fail_msg("%s", err.msg);
    assert_false(e.has_range);
    d.eager.spread_low = 0.5;
    d.eager.spread_high = 2;
    d.eager.spread_calls = 4;
    /* costs that are themselves a median over calls (a profile's): the spread as measured; costs of one call (a
     * torch_bench.py file's, spread_calls 0): the run's host and that call's both move, sqrt(2) as far in log */
    for (int one_call = 0; one_call < 2; one_call++) {
        c.spread_calls = one_call ? 0 : 4;
        run(&p, &c, &e);
        double host = e.host_ms, it = e.iteration_ms;
        if (cp_eager_range(&p, &c, &e, &err))
            fail_msg("%s", err.msg);
        assert_true(e.has_range);
        double lo = one_call ? pow(0.5, sqrt(2.0)) : 0.5, hi = one_call ? pow(2, sqrt(2.0)) : 2;
        near(e.spread[0], lo);
        near(e.spread[1], hi);
        assert_true(e.host_bound);
        /* host-bound throughout: the iteration moves by the host's change, from the typical host's run (the
         * range's bounds are single runs; the point is the mean over the host's two speeds, rule 55) */
        double host1 = host / level_mean(), it1 = it - (host - host1);
        near(e.range_ms[0], it1 - (1 - lo) * host1);
        near(e.range_ms[1], it1 + (hi - 1) * host1);
        near(e.iteration_ms, it); /* the point prediction is kept */
        cp_eager_free(&e);
    }
    cp_prediction_free(&p);
    cp_network_free(&net);

    const char *bad[] = {"{\"host_spread\": {\"low\": 1.2, \"high\": 1.5, \"calls\": 3}}",
                         "{\"host_spread\": {\"low\": 0.8, \"high\": 0.9, \"calls\": 3}}",
                         "{\"host_spread\": {\"low\": 0.8, \"high\": 1.2}}",
                         "{\"host_spread\": [0.8, 1.2]}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *o = cJSON_Parse(bad[i]);
        cp_jctx jc = {.file = "test.json", .path = "$.eager", .err = &err};
        assert_int_equal(cp_eager_costs_parse(&jc, o, &c), -1);
        assert_non_null(strstr(err.msg, "host_spread"));
        cJSON_Delete(o);
    }
}

/* DistributedDataParallel's host: with the costs' "ddp" given, a DDP step of
 * ResNet-18 costs the host per step + 20 BN layers x per BN + 62 parameter
 * tensors (20 convolutions without bias, 20 BN x 2, the fc's 2) x per tensor
 * more than the same step with those zero; lacking them the machine's apply,
 * and with neither none (a built-in 0). */
static void test_ddp_host(void **state)
{
    (void)state;
    cp_network net;
    cp_prediction p = {0};
    predict("resnet18", &h100, 8, CP_PREC_FP32, &net, &p);
    cp_eager_costs c;
    uniform_costs(&c, 10);
    c.has_ddp = 1;
    cp_eager e = {.ddp_workers = 2};
    run(&p, &c, &e);
    double host0 = e.host_ms, phase0[3];
    memcpy(phase0, e.host_phase_ms, sizeof phase0);
    c.ddp_us[CP_DDP_PER_PARAM] = 1;
    c.ddp_us[CP_DDP_PER_BN] = 10;
    c.ddp_us[CP_DDP_PER_STEP] = 100;
    run(&p, &c, &e);
    /* the slowest of the two ranks' hosts (the machine's rank_spread) at DDP's own costs too */
    double k = level_mean() * e.rank_scale * CP_EAGER_DDP_HOST_SCALE * 1e-3; /* a DDP rank's scale (rule 53) */
    near(e.host_ms - host0, k * (100 + 20 * 10 + 62 * 1));
    /* by phase, as PyTorch's host_wall_ms divides a step: DDP's step and buffers before the forward, its hooks
     * in loss.backward(), nothing of it in opt.step(); the phases make up the host's whole time */
    near(e.host_phase_ms[0] - phase0[0], k * (100 + 20 * 10));
    near(e.host_phase_ms[1] - phase0[1], k * 62 * 1);
    near(e.host_phase_ms[2], phase0[2]);
    near(e.host_phase_ms[0] + e.host_phase_ms[1] + e.host_phase_ms[2], e.host_ms);
    assert_true(e.host_phase_ms[2] > 0);
    near(e.rank_scale, cp_eager_slowest_rank(2, h100.eager.ddp_rank_spread));
    assert_false(e.builtin_costs);
    cp_eager_costs machine = c;
    c.has_ddp = 0;
    int builtin = 0;
    near(cp_eager_ddp_us(&c, &machine, CP_DDP_PER_BN, &builtin), 10);
    assert_false(builtin);
    machine.has_ddp = 0;
    near(cp_eager_ddp_us(&c, &machine, CP_DDP_PER_STEP, &builtin), 0);
    assert_true(builtin);
    cp_eager_free(&e);
    cp_prediction_free(&p);
    cp_network_free(&net);
}

/* ResNet-18 b8 with every operator at op_us and DDP at 3 us a tensor, the
 * H100 profile's own DDP factors put aside (saved) so that only c's count */
static void ddp_fixture(cp_network *net, cp_prediction *p, cp_eager_costs *c, double op_us, double saved[2])
{
    saved[0] = h100.eager.ddp_operator_scale;
    saved[1] = h100.eager.ddp_rank_spread;
    h100.eager.ddp_operator_scale = 0;
    h100.eager.ddp_rank_spread = 0;
    predict("resnet18", &h100, 8, CP_PREC_FP32, net, p);
    uniform_costs(c, op_us);
    c->has_ddp = 1;
    c->ddp_us[CP_DDP_PER_PARAM] = 3;
}

static void ddp_fixture_end(cp_network *net, cp_prediction *p, const double saved[2])
{
    h100.eager.ddp_operator_scale = saved[0];
    h100.eager.ddp_rank_spread = saved[1];
    cp_prediction_free(p);
    cp_network_free(net);
}

/* DDP's processes sharing a host: with two of them on it every operator's
 * host cost is operator_scale times a process's alone, DDP's own costs
 * (measured with every rank at work) not; one process per host, or no
 * scale given anywhere, changes nothing; the costs' own scale before the
 * machine's. */
static void test_ddp_shared_host(void **state)
{
    (void)state;
    cp_network net;
    cp_prediction p = {0};
    cp_eager_costs c;
    double saved[2];
    ddp_fixture(&net, &p, &c, 10, saved);
    c.ddp_us[CP_DDP_PER_STEP] = 50;
    cp_eager alone = {.ddp_workers = 2, .ddp_local = 1}, shared = {.ddp_workers = 2, .ddp_local = 2};
    run(&p, &c, &alone);
    run(&p, &c, &shared);
    near(shared.host_ms, alone.host_ms); /* no scale given, the machine's taken away */
    double ddp_ms = level_mean() * CP_EAGER_DDP_HOST_SCALE * (50 + 62 * 3) * 1e-3;
    c.ddp_operator_scale = 1.5;
    run(&p, &c, &alone);
    run(&p, &c, &shared);
    near(shared.host_scale, 1.5 * CP_EAGER_DDP_HOST_SCALE);
    near(alone.host_scale, CP_EAGER_DDP_HOST_SCALE);
    near(shared.host_ms - ddp_ms, 1.5 * (alone.host_ms - ddp_ms));
    cp_eager_costs machine;
    memset(&machine, 0, sizeof machine);
    machine.ddp_operator_scale = 1.2;
    near(cp_eager_ddp_operator_scale(&c, &machine), 1.5);
    c.ddp_operator_scale = 0;
    near(cp_eager_ddp_operator_scale(&c, &machine), 1.2);
    near(cp_eager_ddp_operator_scale(&c, NULL), 1.0);
    /* read from a "ddp" object, its range checked */
    const char *bad = "{\"ddp\": {\"per_param_us\": 1, \"per_bn_us\": 1, \"per_step_us\": 1, \"operator_scale\": 0}}";
    cJSON *o = cJSON_Parse(bad);
    cp_error err;
    cp_jctx jc = {.file = "test.json", .path = "$.eager", .err = &err};
    assert_int_equal(cp_eager_ddp_parse(&jc, o, &machine), -1);
    assert_non_null(strstr(err.msg, "operator_scale"));
    cJSON_Delete(o);
    o = cJSON_Parse("{\"ddp\": {\"per_param_us\": 1, \"per_bn_us\": 1, \"per_step_us\": 1, \"operator_scale\": 1.25}}");
    assert_int_equal(cp_eager_ddp_parse(&jc, o, &machine), 0);
    near(machine.ddp_operator_scale, 1.25);
    cJSON_Delete(o);
    cp_eager_free(&alone);
    cp_eager_free(&shared);
    ddp_fixture_end(&net, &p, saved);
}

/* The slowest of N processes' hosts: the expected maximum of N standard
 * normals, known in closed form for two and three (1/sqrt(pi),
 * 3/(2 sqrt(pi))) and tabulated beyond (four 1.0294, eight 1.4236); one
 * process or no spread changes nothing. A DDP job's every operator and
 * DDP's own costs take it. */
static void test_slowest_rank(void **state)
{
    (void)state;
    near(cp_eager_slowest_rank(1, 0.1), 1);
    near(cp_eager_slowest_rank(8, 0), 1);
    assert_true(fabs(cp_eager_slowest_rank(2, 1) - (1 + 1 / sqrt(3.14159265358979))) < 1e-6);
    assert_true(fabs(cp_eager_slowest_rank(3, 1) - (1 + 1.5 / sqrt(3.14159265358979))) < 1e-6);
    assert_true(fabs(cp_eager_slowest_rank(4, 0.1) - 1.10294) < 1e-5);
    assert_true(fabs(cp_eager_slowest_rank(8, 0.1) - 1.14236) < 1e-5);
    for (int n = 2; n < 64; n++)
        assert_true(cp_eager_slowest_rank(n + 1, 0.1) > cp_eager_slowest_rank(n, 0.1));

    cp_network net;
    cp_prediction p = {0};
    cp_eager_costs c;
    double saved[2];
    ddp_fixture(&net, &p, &c, 200, saved); /* host-bound */
    cp_eager even = {.ddp_workers = 4, .ddp_local = 1}, spread = {.ddp_workers = 4, .ddp_local = 1};
    run(&p, &c, &even);
    c.ddp_rank_spread = 0.1;
    run(&p, &c, &spread);
    near(even.rank_scale, 1);
    near(spread.rank_scale, cp_eager_slowest_rank(4, 0.1));
    near(spread.host_ms, even.host_ms * spread.rank_scale);
    assert_true(even.host_bound && spread.iteration_ms > even.iteration_ms);
    cp_eager_costs machine;
    memset(&machine, 0, sizeof machine);
    machine.ddp_rank_spread = 0.2;
    near(cp_eager_ddp_rank_spread(&c, &machine), 0.1);
    near(cp_eager_ddp_rank_spread(NULL, &machine), 0.2);
    near(cp_eager_ddp_rank_spread(NULL, NULL), 0);
    /* read from a "ddp" object, its range checked */
    cJSON *o = cJSON_Parse("{\"ddp\": {\"per_param_us\": 1, \"per_bn_us\": 1, \"per_step_us\": 1, \"rank_spread\": 2}}");
    cp_error err;
    cp_jctx jc = {.file = "test.json", .path = "$.eager", .err = &err};
    assert_int_equal(cp_eager_ddp_parse(&jc, o, &machine), -1);
    assert_non_null(strstr(err.msg, "rank_spread"));
    cJSON_Delete(o);
    cp_eager_free(&even);
    cp_eager_free(&spread);
    ddp_fixture_end(&net, &p, saved);
}

static void test_cost_lookup(void **state)
{
    (void)state;
    cp_eager_costs none;
    memset(&none, 0, sizeof none);
    int builtin = 0;
    /* built-in values through the chain: kind, group, default */
    near(cp_eager_op_us(&none, "maxpool", CP_EAGER_FWD, &builtin), 10);
    assert_true(builtin);
    near(cp_eager_op_us(&none, "relu6", CP_EAGER_FWD, NULL), 8);
    near(cp_eager_op_us(&none, "conv", CP_EAGER_BWD, NULL), 15);
    near(cp_eager_op_us(&none, "no_such_kind", CP_EAGER_FWD, NULL), 10);
    near(cp_eager_optimizer_us(&none, 10, NULL), 80 + 10 * 2.0);
    near(cp_eager_op_us(&none, "grad_accumulate", CP_EAGER_BWD, NULL), 5);

    cp_eager_costs c;
    cp_error err;
    if (cp_eager_costs_load(DATA "/eager-overhead-sample.json", &c, &err))
        fail_msg("%s", err.msg);
    builtin = 0;
    near(cp_eager_op_us(&c, "conv", CP_EAGER_FWD, &builtin), 30);
    near(cp_eager_op_us(&c, "global_avgpool", CP_EAGER_FWD, &builtin), 15); /* "pool" */
    near(cp_eager_op_us(&c, "softmax", CP_EAGER_BWD, &builtin), 11);        /* "default" */
    near(cp_eager_op_us(&c, "conv", CP_EAGER_AC_FWD, &builtin), 41);
    near(cp_eager_optimizer_us(&c, 100, &builtin), 120 + 350);
    near(cp_eager_op_us(&c, "grad_accumulate", CP_EAGER_BWD, &builtin), 4);
    assert_false(builtin);
    /* a gradient sum is no module call: no "default" for it */
    c.has[CP_EAGER_BWD][CP_EAGER_KEYS - 1] = 0;
    near(cp_eager_op_us(&c, "grad_accumulate", CP_EAGER_BWD, &builtin), 5);
    assert_true(builtin);
    c.has[CP_EAGER_BWD][CP_EAGER_KEYS - 1] = 1;
    builtin = 0;
    assert_non_null(strstr(c.source, "measured"));
    assert_non_null(strstr(c.source, "test-sample"));
    assert_non_null(strstr(c.source, "0.0-sample"));

    /* a missing autocast table: the measured plain cost plus the built-in surcharge */
    memset(c.has[CP_EAGER_AC_FWD], 0, sizeof c.has[CP_EAGER_AC_FWD]);
    builtin = 0;
    near(cp_eager_op_us(&c, "conv", CP_EAGER_AC_FWD, &builtin), 30 + (28 - 20));
    assert_true(builtin);
}

static void bad_text(const char *text, const char *want)
{
    cp_eager_costs c;
    cp_error err = {{0}};
    assert_int_equal(cp_eager_costs_parse_text(text, strlen(text), "x.json", &c, &err), -1);
    if (!strstr(err.msg, want))
        fail_msg("message '%s' lacks '%s'", err.msg, want);
}

static void test_bad_overhead_files(void **state)
{
    (void)state;
    bad_text("{\"schema\": \"cnnperf-eager-overhead/2\"}", "x.json: $.schema: unsupported schema");
    bad_text("{\"forward_op_us\": {}}", "x.json: $.schema: missing required field");
    bad_text("{\"schema\": \"cnnperf-eager-overhead/1\", \"forward_op_us\": {\"conv\": \"fast\"}}",
             "x.json: $.forward_op_us.conv:");
    bad_text("{\"schema\": \"cnnperf-eager-overhead/1\", \"backward_op_us\": {\"cnv\": 3}}",
             "x.json: $.backward_op_us.cnv: unknown layer kind");
    bad_text("{\"schema\": \"cnnperf-eager-overhead/1\", \"optimizer\": {\"per_step_us\": -1001, \"per_tensor_us\": 1}}",
             "x.json: $.optimizer.per_step_us: must be a number in [-1000");
    bad_text("[1]", "x.json: $: an eager-overhead file must be a JSON object");
    cp_eager_costs c;
    cp_error err;
    /* a line's intercept a little below zero, host noise: no fixed cost per step */
    const char *noisy = "{\"schema\": \"cnnperf-eager-overhead/1\", \"optimizer\": {\"per_step_us\": -11.01, "
                        "\"per_tensor_us\": 14.0}}";
    assert_int_equal(cp_eager_costs_parse_text(noisy, strlen(noisy), "x.json", &c, &err), 0);
    assert_true(c.has_opt && c.opt_step_us == 0 && c.opt_tensor_us == 14.0);
    assert_int_equal(cp_eager_costs_load(DATA "/no-such-overhead.json", &c, &err), -1);
    assert_non_null(strstr(err.msg, "no-such-overhead.json"));
}

/* --- outputs and the multi-GPU path --------------------------------------------- */

static cJSON *report_json(const cp_prediction *p, const cp_eager *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(cp_report_prediction_mode(f, p, e, CP_FMT_JSON), 0);
    fclose(f);
    cJSON *o = cJSON_Parse(buf);
    free(buf);
    assert_non_null(o);
    return o;
}

static void test_json_fields(void **state)
{
    (void)state;
    cp_network net;
    cp_prediction p = {0};
    cp_eager e = {0};
    predict("resnet18", &h100, 1, CP_PREC_FP32, &net, &p);
    run(&p, NULL, &e);

    cJSON *o = report_json(&p, &e);
    assert_string_equal(cJSON_GetObjectItem(o, "mode")->valuestring, "eager");
    assert_true(cJSON_IsBool(cJSON_GetObjectItem(o, "host_bound")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "host_bound")) == (e.host_bound != 0));
    double share = cJSON_GetObjectItem(o, "host_share")->valuedouble;
    assert_true(share >= 0 && share <= 1);
    near(cJSON_GetObjectItem(o, "iteration_ms")->valuedouble, e.iteration_ms);
    const cJSON *x = cJSON_GetObjectItem(o, "eager");
    assert_non_null(x);
    /* devices/h100.json carries costs measured by tools/torch_bench.py --eager-overhead */
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(x, "host_costs_calibrated")));
    assert_non_null(strstr(cJSON_GetObjectItem(x, "host_costs")->valuestring, "measured"));
    cJSON_Delete(o);

    o = report_json(&p, NULL);
    assert_string_equal(cJSON_GetObjectItem(o, "mode")->valuestring, "harness");
    assert_null(cJSON_GetObjectItem(o, "host_bound"));
    near(cJSON_GetObjectItem(o, "iteration_ms")->valuedouble, p.iteration_ms);
    cJSON_Delete(o);

    cp_mode m;
    assert_int_equal(cp_mode_parse("eager", &m), 0);
    assert_int_equal(m, CP_MODE_EAGER);
    assert_int_equal(cp_mode_parse("harness", &m), 0);
    assert_int_equal(m, CP_MODE_HARNESS);
    assert_int_equal(cp_mode_parse("graph", &m), -1);

    cp_eager_free(&e);
    cp_prediction_free(&p);
    cp_network_free(&net);
}

/* Rule 39: TF32 is the math of convolutions and matrix products; PyTorch's
 * ReLU on a TF32 run is the FP32 run's kernel on the same FP32 tensors, so
 * eager mode gives it the FP32 time (the H200's graph calibration has traced
 * FP32 ReLU factors and none for TF32). */
static double relu_kernels_ms(const char *network, const cp_device *d, cp_precision prec)
{
    cp_network net;
    cp_prediction p = {0};
    cp_eager e = {.record = 1};
    predict_with(network, d, 64, prec, CP_ALGOS_PYTORCH, &net, &p); /* eager mode's path, as the CLI runs it */
    run(&p, NULL, &e);
    double relu = 0;
    for (int i = 0; i < e.n_events; i++)
        if (e.events[i].gpu && strncmp(e.events[i].name, "relu_", 5) == 0)
            relu += e.events[i].end_ms - e.events[i].start_ms;
    cp_eager_free(&e);
    cp_prediction_free(&p);
    cp_network_free(&net);
    return relu;
}

static void test_tf32_relu_as_fp32(void **state)
{
    (void)state;
    cp_device h200;
    cp_error err;
    cp_calibration_set_default("auto"); /* calibration/h200-graph.json, as the program loads it */
    int rc = cp_device_load("h200", &h200, &err);
    cp_calibration_set_default("none");
    if (rc)
        fail_msg("%s", err.msg);
    assert_true(cp_device_calibration(&h200, CP_ALGOS_PYTORCH)->has_eager);
    double fp32 = relu_kernels_ms("resnet18", &h200, CP_PREC_FP32);
    double tf32 = relu_kernels_ms("resnet18", &h200, CP_PREC_TF32);
    assert_true(fp32 > 0);
    /* the same kernels; the time line's clock differences leave ~1e-5 of rounding (the harness's TF32 term was 1.4x) */
    if (fabs(tf32 / fp32 - 1) > 1e-4)
        fail_msg("ReLU kernels: TF32 %.9f ms, FP32 %.9f ms", tf32, fp32);
}

/* One GPU through the multi-GPU path in eager mode is the eager time line;
 * with 8 GPUs the per-GPU compute is still eager, so the iteration is at
 * least the single GPU's. */
static void test_distributed_eager(void **state)
{
    (void)state;
    cp_network net;
    cp_prediction p = {0};
    cp_eager e = {0};
    cp_error err;
    /* as eager mode predicts: PyTorch's algorithms, the workspace whatever memory is free */
    if (cp_network_load("resnet18", &net, &err) ||
        cp_predict_ws(&net, &h100, 8, CP_PREC_FP32, CP_ALGOS_PYTORCH, cp_run_workspace_mb(1, 0), &p, &err))
        fail_msg("%s", err.msg);
    run(&p, NULL, &e);

    /* DDP's kernels alone: no DDP host costs, whose waits would count in them (the H100 profile has some) */
    cp_device quiet = h100;
    quiet.eager.has_ddp = 0;
    cp_cluster cl;
    if (cp_cluster_homogeneous(&cl, &quiet, 8, &err))
        fail_msg("%s", err.msg);
    cp_dist_config cfg = {.gpus = 1, .batch = 8, .prec = CP_PREC_FP32, .comm = CP_COMM_NONE, .algo = CP_AR_AUTO,
                          .ps = {.servers = 1}, .overlap = 1, .bucket_mb = 25, .mode = CP_MODE_EAGER};
    cp_single_cache cache = {0};
    cp_dist_prediction d = {0};
    if (cp_predict_distributed(&net, &cl, &cfg, &cache, &d, &err))
        fail_msg("%s", err.msg);
    near(d.iteration_ms, e.iteration_ms);
    near(d.scaling_efficiency, 1);
    cfg.gpus = 8;
    cfg.comm = CP_COMM_NCCL;
    if (cp_predict_distributed(&net, &cl, &cfg, &cache, &d, &err))
        fail_msg("%s", err.msg);
    assert_true(d.iteration_ms >= e.iteration_ms - 1e-9);
    assert_non_null(d.group_eager[d.slowest]);
    /* DistributedDataParallel's own kernels: three passes over the fp32
     * gradients (into the buckets, / world size, back), each a read and a
     * write: at least 24 bytes per parameter at the device's DRAM speed */
    const cp_eager *ddp = d.group_eager[d.slowest];
    assert_int_equal(ddp->ddp_workers, 8);
    double floor_ms = 24.0 * (double)net.params / (h100.dram_bandwidth_gbs * 1e9) * 1e3;
    if (!(ddp->ddp_gpu_ms >= floor_ms && ddp->ddp_gpu_ms < 3 * floor_ms + 1.0))
        fail_msg("DDP's kernels %g ms, the bytes alone %g ms", ddp->ddp_gpu_ms, floor_ms);
    assert_true(ddp->iteration_ms >= e.iteration_ms); /* never faster; at batch 8 the host sets the pace */
    assert_true(e.ddp_workers == 0 && e.ddp_gpu_ms == 0);

    cp_dist_prediction_free(&d);
    cp_single_cache_free(&cache);
    cp_eager_free(&e);
    cp_prediction_free(&p);
    cp_network_free(&net);
}


/* A training iteration's fixed host part (rule 52): each phase's measured wall less what the same costs charge
 * the head it was measured with, never below 0, at the run's host scale, once per iteration: LeNet-5 with every
 * operator at 10 us (heads: forward 2 copies + flatten + fc + loss = 50 us, backward 30, step 10 + 2 x 1) and
 * each wall 100 us above its head. Costs without the walls take the machine's; a DDP rank takes the DDP scale
 * (rule 53). */
static void test_fixed_part(void **state)
{
    (void)state;
    cp_network net;
    cp_prediction p = {0}, p16 = {0};
    cp_eager e = {0};
    cp_eager_costs c;
    predict("lenet5", &h100, 1, CP_PREC_FP32, &net, &p);
    uniform_costs(&c, 10);
    run(&p, &c, &e);
    near(e.fixed_ms, 0);
    double host0 = e.host_ms, phase0[3];
    memcpy(phase0, e.host_phase_ms, sizeof phase0);
    const double head[3] = {50, 30, 12};
    for (int ph = 0; ph < 3; ph++) {
        c.fixed_us[0][ph] = head[ph] + 100;
        near(cp_eager_fixed_us(&c, NULL, 0, ph), 100);
        near(cp_eager_fixed_us(&c, NULL, 1, ph), 0); /* autocast's walls: still at 10 */
    }
    run(&p, &c, &e);
    near(e.base_scale, CP_EAGER_HOST_SCALE);
    double m = level_mean() * CP_EAGER_HOST_SCALE; /* a cost's scale in the host's times */
    near(e.fixed_ms, m * 0.3);
    near(e.host_ms - host0, m * 0.3);
    for (int ph = 0; ph < 3; ph++)
        near(e.host_phase_ms[ph] - phase0[ph], m * 0.1);

    /* 16-bit runs under autocast: its walls, not the plain ones */
    cp_network net16;
    predict("lenet5", &h100, 1, CP_PREC_FP16, &net16, &p16);
    run(&p16, &c, &e);
    near(e.fixed_ms, 0);
    for (int ph = 0; ph < 3; ph++)
        c.fixed_us[1][ph] = c.fixed_us[0][ph] + 50;
    run(&p16, &c, &e);
    double ac_head = cp_eager_fixed_us(&c, NULL, 1, 0) + cp_eager_fixed_us(&c, NULL, 1, 1) +
                     cp_eager_fixed_us(&c, NULL, 1, 2);
    assert_true(ac_head > 0);
    near(e.fixed_ms, m * ac_head * 1e-3);

    /* without walls of their own, the machine's (the H100 profile's), priced with these costs' heads */
    c.has_fixed = 0;
    run(&p, &c, &e);
    double machine = 0;
    for (int ph = 0; ph < 3; ph++)
        machine += cp_eager_fixed_us(&c, &h100.eager, 0, ph);
    assert_true(h100.eager.has_fixed && machine > 0);
    near(e.fixed_ms, m * machine * 1e-3);
    /* and with neither, nothing */
    cp_eager_costs none;
    memset(&none, 0, sizeof none);
    near(cp_eager_fixed_us(&c, &none, 0, 0), 0);
    near(cp_eager_fixed_us(&c, NULL, 0, 1), 0);

    /* a DDP rank: the DDP scale, times its slowest-rank factor */
    c.has_fixed = 1;
    cp_eager d = {.ddp_workers = 2};
    run(&p, &c, &d);
    near(d.base_scale, CP_EAGER_DDP_HOST_SCALE);
    near(d.fixed_ms, level_mean() * CP_EAGER_DDP_HOST_SCALE * d.rank_scale * d.operator_scale * 0.3);
    cp_eager_free(&d);
    cp_eager_free(&e);
    cp_prediction_free(&p);
    cp_prediction_free(&p16);
    cp_network_free(&net);
    cp_network_free(&net16);
}

/* The typical host's run as its trace records it: the time line's end and the host's last operator's. */
static void traced(const cp_eager *e, double *iteration, double *host)
{
    *iteration = *host = 0;
    for (int i = 0; i < e->n_events; i++) {
        *iteration = fmax(*iteration, e->events[i].end_ms);
        if (!e->events[i].gpu)
            *host = fmax(*host, e->events[i].end_ms);
    }
}

/* Rule 55: the times are the mean over the host's two speeds, the trace the typical host's run. ResNet-18 b8 with
 * every operator at v us: all host (1 ms an operator), the host's times are the typical host's times the levels'
 * mean and so is the iteration's host part; GPU-paced (0.01 us), the same iteration; at the balance (the host's
 * issue as long as the kernels), the mean is above the typical host's iteration (the slow level paces, the fast one
 * gains less), and never below it on either side. */
static void test_host_levels(void **state)
{
    (void)state;
    cp_network net;
    cp_prediction p = {0};
    cp_eager_costs c;
    cp_eager e = {.record = 1};
    double it1, host1;
    predict("resnet18", &h100, 8, CP_PREC_FP32, &net, &p);

    uniform_costs(&c, 1000);
    run(&p, &c, &e);
    traced(&e, &it1, &host1);
    assert_true(e.host_bound);
    near(e.host_ms, level_mean() * host1);
    assert_true(e.iteration_ms - e.host_ms > 0 && e.iteration_ms - e.host_ms < 0.01 * e.iteration_ms);
    assert_true(fabs((e.iteration_ms - e.host_ms) - (it1 - host1)) < 1e-3 * it1); /* the same kernels after it */

    uniform_costs(&c, 0.01);
    run(&p, &c, &e);
    traced(&e, &it1, &host1);
    assert_false(e.host_bound);
    assert_true(fabs(e.iteration_ms - it1) < 1e-3 * it1);

    /* the costs at which the typical host's issue takes as long as the kernels */
    double balance = 0.01 * e.gpu_busy_ms / host1;
    for (double f = 0.25; f <= 4; f *= 2) {
        uniform_costs(&c, balance * f);
        run(&p, &c, &e);
        traced(&e, &it1, &host1);
        assert_true(e.iteration_ms >= it1 * (1 - 1e-9));
        if (f == 1)
            assert_true(e.iteration_ms > 1.02 * it1); /* ResNet-18 b8: 4.56 ms against 4.41 */
    }
    cp_eager_free(&e);
    cp_prediction_free(&p);
    cp_network_free(&net);
}

/* "iteration_fixed_us" read from an eager-overhead file: all six walls, an intercept a little below zero read as
 * 0, and one clear error for a wrong shape, an unknown or a missing wall. */
static void test_fixed_part_file(void **state)
{
    (void)state;
    const char *good = "{\"schema\": \"cnnperf-eager-overhead/1\", \"iteration_fixed_us\": {\"forward\": 300, "
                       "\"backward\": 400, \"step\": -5, \"autocast_forward\": 350, \"autocast_backward\": 450, "
                       "\"autocast_step\": 200, \"head\": \"Flatten + Linear\"}}";
    cp_eager_costs c;
    cp_error err;
    assert_int_equal(cp_eager_costs_parse_text(good, strlen(good), "x.json", &c, &err), 0);
    assert_true(c.has_fixed);
    near(c.fixed_us[0][0], 300);
    near(c.fixed_us[0][1], 400);
    near(c.fixed_us[0][2], 0);
    near(c.fixed_us[1][2], 200);
    bad_text("{\"schema\": \"cnnperf-eager-overhead/1\", \"iteration_fixed_us\": [300, 400]}",
             "x.json: $.iteration_fixed_us: must be an object");
    bad_text("{\"schema\": \"cnnperf-eager-overhead/1\", \"iteration_fixed_us\": {\"forward\": 1, \"backward\": 1, "
             "\"step\": 1, \"autocast_forward\": 1, \"autocast_backward\": 1, \"autocast_step\": 1, \"fwd\": 1}}",
             "x.json: $.iteration_fixed_us.fwd");
    bad_text("{\"schema\": \"cnnperf-eager-overhead/1\", \"iteration_fixed_us\": {\"forward\": 1}}",
             "x.json: $.iteration_fixed_us.backward");
}

/* Rule 59: one call's costs move toward the machine's: the geometric mean where both give a value, the
 * machine's where only it does, the call's where only the call does. */
static void test_costs_toward(void **state)
{
    (void)state;
    cp_eager_costs call = {.given = 1}, machine = {.given = 1};
    call.us[CP_EAGER_FWD][0] = 100, call.has[CP_EAGER_FWD][0] = 1;
    machine.us[CP_EAGER_FWD][0] = 64, machine.has[CP_EAGER_FWD][0] = 1;
    machine.us[CP_EAGER_BWD][1] = 30, machine.has[CP_EAGER_BWD][1] = 1;
    call.us[CP_EAGER_AC_FWD][2] = 12, call.has[CP_EAGER_AC_FWD][2] = 1;
    call.opt_step_us = 160, call.opt_tensor_us = 4, call.has_opt = 1;
    machine.opt_step_us = 40, machine.opt_tensor_us = 1, machine.has_opt = 1;
    machine.fixed_us[1][2] = 250, machine.has_fixed = 1;
    call.ddp_us[0] = 9, call.has_ddp = 1;
    machine.ddp_us[0] = 1, machine.has_ddp = 1;
    cp_eager_costs_toward(&call, &machine);
    near(call.us[CP_EAGER_FWD][0], 80);
    assert_true(call.has[CP_EAGER_BWD][1]);
    near(call.us[CP_EAGER_BWD][1], 30);
    near(call.us[CP_EAGER_AC_FWD][2], 12);
    near(call.opt_step_us, 80);
    near(call.opt_tensor_us, 2);
    assert_true(call.has_fixed);
    near(call.fixed_us[1][2], 250);
    near(call.ddp_us[0], 3);
    /* a machine that gave nothing moves nothing */
    cp_eager_costs none = {0}, before = call;
    cp_eager_costs_toward(&call, &none);
    assert_memory_equal(&call, &before, sizeof call);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock_host_bound),
        cmocka_unit_test(test_clock_gpu_bound),
        cmocka_unit_test(test_clock_mixed),
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_not_faster_than_harness),
        cmocka_unit_test(test_more_host_cost_never_less_time),
        cmocka_unit_test(test_gradient_sums),
        cmocka_unit_test(test_host_spread),
        cmocka_unit_test(test_ddp_host),
        cmocka_unit_test(test_ddp_shared_host),
        cmocka_unit_test(test_slowest_rank),
        cmocka_unit_test(test_cost_lookup),
        cmocka_unit_test(test_bad_overhead_files),
        cmocka_unit_test(test_json_fields),
        cmocka_unit_test(test_distributed_eager),
        cmocka_unit_test(test_tf32_relu_as_fp32),
        cmocka_unit_test(test_fixed_part),
        cmocka_unit_test(test_fixed_part_file),
        cmocka_unit_test(test_host_levels),
        cmocka_unit_test(test_costs_toward),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
