/* calibration (model/calibration.c): the file format and its errors, that
 * a pass's correction t = scale x t_model + offset lands on exactly the
 * passes of its class and precision group, that host costs put the host's
 * issue of each pass ahead of its kernels, and which devices cp_device_load
 * calibrates under each default. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/calibration.h"
#include "model/eager.h"
#include "model/predict.h"

static int parse(const char *text, cp_calibration *c, cp_error *err)
{
    return cp_calibration_parse(text, strlen(text), "test.json", c, err);
}

#define HEAD "{\"format\": \"cnnperf-calibration-factors/1\", \"source\": \"test\", "

static void test_parse_defaults_to_identity(void **state)
{
    (void)state;
    cp_calibration c;
    cp_error err;
    assert_int_equal(parse(HEAD "\"terms\": {\"half\": {\"conv_1x1\": {\"forward\": {\"scale\": 2.5, "
                                "\"offset_us\": 20}}}}}",
                           &c, &err),
                     0);
    assert_true(c.loaded);
    assert_true(fabs(c.term[CP_CG_HALF][CP_CC_CONV_1X1][0].scale - 2.5) < 1e-12);
    assert_true(fabs(c.term[CP_CG_HALF][CP_CC_CONV_1X1][0].offset_ms - 0.020) < 1e-12);
    /* everything not named is left alone */
    assert_true(c.term[CP_CG_HALF][CP_CC_CONV_1X1][1].scale == 1 && c.term[CP_CG_HALF][CP_CC_CONV_1X1][1].offset_ms == 0);
    assert_true(c.term[CP_CG_FP32][CP_CC_CONV_1X1][0].scale == 1);
}

/* Concatenation has a class of its own since session 50; a file fitted
 * before gives it the element-wise class's terms, group by group, as it
 * had them, and a file with the class keeps its own. */
static void test_concat_class_falls_back_to_elementwise(void **state)
{
    (void)state;
    cp_calibration c;
    cp_error err;
    assert_int_equal(parse(HEAD "\"terms\": {\"fp32\": {\"elementwise\": {\"forward\": {\"scale\": 1.25, "
                                "\"offset_us\": 2}}}, \"half\": {\"elementwise\": {\"forward\": {\"scale\": 1.5}}, "
                                "\"concat\": {\"forward\": {\"scale\": 1.75}}}}}",
                           &c, &err),
                     0);
    assert_true(fabs(c.term[CP_CG_FP32][CP_CC_CONCAT][0].scale - 1.25) < 1e-12);
    assert_true(fabs(c.term[CP_CG_FP32][CP_CC_CONCAT][0].offset_ms - 0.002) < 1e-12);
    assert_true(fabs(c.term[CP_CG_HALF][CP_CC_CONCAT][0].scale - 1.75) < 1e-12);
    assert_true(fabs(c.term[CP_CG_HALF][CP_CC_ELEMENTWISE][0].scale - 1.5) < 1e-12);
    assert_string_equal(cp_calib_class_name(CP_CC_CONCAT), "concat");
    cp_network net;
    assert_int_equal(cp_network_load("googlenet", &net, &err), 0);
    int concats = 0;
    for (int i = 0; i < net.n_layers; i++)
        if (strcmp(net.layers[i].kind->name, "concat") == 0) {
            assert_int_equal(cp_layer_calib_class(&net.layers[i]), CP_CC_CONCAT);
            concats++;
        } else {
            assert_int_not_equal(cp_layer_calib_class(&net.layers[i]), CP_CC_CONCAT);
        }
    assert_int_equal(concats, 9); /* GoogLeNet's nine inception blocks */
    cp_network_free(&net);
}

/* three of eager_pool's four rates (the fourth, backward_ps_per_cover, where a case needs it) */
#define POOL_RATES "\"forward_ps_per_output\": 10, \"forward_ps_per_tap\": 1, \"backward_ps_per_input\": 8"

static void test_bad_files_name_the_field(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"[1]", "test.json: $: must be an object"},
        {"{\"format\": \"x\", \"source\": \"s\", \"terms\": {}}", "$.format"},
        {"{\"format\": \"cnnperf-calibration-factors/1\", \"terms\": {}}", "$.source"},
        {HEAD "\"terms\": {\"fp64\": {}}}", "$.terms.fp64"},
        {HEAD "\"terms\": {\"fp32\": {\"conv_5x5\": {}}}}", "$.terms.fp32.conv_5x5"},
        {HEAD "\"terms\": {\"fp32\": {\"fc\": {\"sideways\": {\"scale\": 1}}}}}", "$.terms.fp32.fc.sideways"},
        {HEAD "\"terms\": {\"fp32\": {\"fc\": {\"forward\": {\"scale\": 0}}}}}", "$.terms.fp32.fc.forward.scale"},
        {HEAD "\"terms\": {\"fp32\": {\"fc\": {\"forward\": {\"scale\": 1, \"offset_us\": -3}}}}}",
         "$.terms.fp32.fc.forward.offset_us"},
        {HEAD "\"terms\": {\"fp32\": {\"fc\": {\"forward\": {\"offset_us\": 3}}}}}", "$.terms.fp32.fc.forward.scale"},
        {HEAD "\"terms\": {\"fp32\": {\"fc\": {\"forward\": {\"scale\": 1, \"bias\": 3}}}}}",
         "$.terms.fp32.fc.forward.bias"},
        {HEAD "\"unknown\": 1, \"terms\": {}}", "$.unknown"},
        {HEAD "\"terms\": [1]}", "$.terms"},
        {HEAD "\"terms\": {\"fp32\": 3}}", "$.terms.fp32"},
        {"{\"format\": ", "test.json"},
        {HEAD "\"terms\": {\"fp32\": {\"fc\": {\"forward\": {\"scale\": 1, \"host_us\": 5}}}}}", "$.host_source"},
        {HEAD "\"host_source\": \"h\", \"terms\": {\"fp32\": {\"fc\": {\"forward\": {\"scale\": 1, \"host_us\": -5}}}}}",
         "$.terms.fp32.fc.forward.host_us"},
        {HEAD "\"terms\": {}, \"eager_pool\": {\"nchw\": {\"lppool\": {}}}}", "$.eager_pool.nchw.lppool"},
        {HEAD "\"terms\": {}, \"eager_pool\": [1]}", "$.eager_pool"},
        {HEAD "\"terms\": {}, \"eager_pool\": {\"nhwc\": {}}}", "$.eager_pool.nhwc"},
        {HEAD "\"terms\": {}, \"eager_pool\": {\"nchw\": {\"maxpool\": {\"forward_ps_per_output\": 9}}}}",
         "$.eager_pool.nchw.maxpool.forward_ps_per_tap"},
        {HEAD "\"terms\": {}, \"eager_pool\": {\"nchw\": {\"maxpool\": {" POOL_RATES ", \"backward_ps_per_cover\": -1}}}}",
         "$.eager_pool.nchw.maxpool.backward_ps_per_cover"},
        {HEAD "\"terms\": {}, \"eager_pool\": {\"channels_last\": {\"avgpool\": {" POOL_RATES ", \"backward_ps_per_cover\": 1, \"taps\": 3}}}}",
         "$.eager_pool.channels_last.avgpool.taps"},
        {HEAD "\"terms\": {}, \"cl_half_conv_factors\": [0.7]}", "$.cl_half_conv_factors"},
        {HEAD "\"terms\": {}, \"cl_half_conv_factors\": {\"conv_3x3\": 0.7}}", "$.cl_half_conv_factors.other"},
        {HEAD "\"terms\": {}, \"cl_half_conv_factors\": {\"conv_3x3\": 0.7, \"other\": 0}}",
         "$.cl_half_conv_factors.other"},
        {HEAD "\"terms\": {}, \"cl_half_conv_factors\": {\"conv_3x3\": 0.7, \"other\": 1, \"conv_1x1\": 1}}",
         "$.cl_half_conv_factors.conv_1x1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cp_calibration c;
        cp_error err = {0};
        if (parse(cases[i].text, &c, &err) == 0)
            fail_msg("case %zu parsed: %s", i, cases[i].text);
        if (!strstr(err.msg, cases[i].want) || !strstr(err.msg, "test.json"))
            fail_msg("case %zu: message '%s' does not name '%s'", i, err.msg, cases[i].want);
        assert_false(c.loaded);
    }
}

/* The H100 without any calibration, and ResNet-18. */
static void load_uncalibrated(cp_device *dev, cp_network *net)
{
    cp_error err;
    cp_calibration_set_default("none");
    assert_int_equal(cp_device_load("h100", dev, &err), 0);
    assert_false(dev->calib.loaded);
    assert_false(dev->calib_graph.loaded);
    assert_int_equal(cp_network_load("resnet18", net, &err), 0);
}

/* ResNet-18 at batch 32, fp32, predicted without calibration (a) and with
 * the calibration `text` (b). */
typedef struct {
    cp_device dev;
    cp_network net;
    cp_prediction a, b;
} before_after;

static void predict_before_after(before_after *f, const char *text)
{
    cp_error err;
    memset(f, 0, sizeof *f);
    load_uncalibrated(&f->dev, &f->net);
    assert_int_equal(cp_predict(&f->net, &f->dev, 32, CP_PREC_FP32, &f->a, &err), 0);
    assert_int_equal(parse(text, &f->dev.calib, &err), 0);
    assert_int_equal(cp_predict(&f->net, &f->dev, 32, CP_PREC_FP32, &f->b, &err), 0);
}

static void before_after_free(before_after *f)
{
    cp_prediction_free(&f->a);
    cp_prediction_free(&f->b);
    cp_network_free(&f->net);
}

static void test_scale_and_offset_apply_to_their_class(void **state)
{
    (void)state;
    before_after f;
    predict_before_after(&f, HEAD "\"terms\": {\"fp32\": {\"conv_3x3\": {\"forward\": {\"scale\": 2, \"offset_us\": 10}},"
                                  "\"conv_3x3_wide\": {\"forward\": {\"scale\": 2, \"offset_us\": 10}},"
                                  "\"batchnorm\": {\"backward_data\": {\"scale\": 3}}},"
                                  "\"half\": {\"fc\": {\"forward\": {\"scale\": 7}}}}}");
    int kxk = 0, wide = 0;
    double added = 0;
    for (int i = 0; i < f.net.n_layers; i++) {
        const cp_layer *l = &f.net.layers[i];
        cp_calib_class cls = cp_layer_calib_class(l);
        for (int p = 0; p < CP_PASS_COUNT; p++) {
            double want = f.a.layers[i].ms[p];
            if ((cls == CP_CC_CONV_3X3 || cls == CP_CC_CONV_3X3_WIDE) && p == CP_PASS_FWD)
                want = 2 * want + 0.010, kxk++, wide += cls == CP_CC_CONV_3X3_WIDE;
            if (cls == CP_CC_BATCHNORM && p == CP_PASS_BWD_DATA)
                want = 3 * want;
            if (fabs(f.b.layers[i].ms[p] - want) > 1e-9 * fmax(1, want))
                fail_msg("%s pass %d: %.9f ms, want %.9f", l->name, p, f.b.layers[i].ms[p], want);
            added += f.b.layers[i].ms[p] - f.a.layers[i].ms[p];
        }
    }
    /* ResNet-18: conv1 is conv_first (7x7 on 3 channels), the downsampling convolutions 1x1, the rest 3x3,
     * those on 56x56 and 28x28 inputs (the first of layer3 included) in the wide class */
    assert_int_equal(kxk, 16);
    assert_int_equal(wide, 9);
    /* the task tree carries the corrections up to the iteration */
    assert_true(fabs((f.b.iteration_ms - f.a.iteration_ms) - added) < 1e-6);
    before_after_free(&f);
}

/* Host costs: the host issues the passes one after another, the GPU runs
 * each once issued. With 5 ms of host time on every 3x3 forward of
 * ResNet-18 (16 of them, each far longer than the GPU's work between two)
 * the GPU waits for each; the iteration is the host's 80 ms plus the GPU
 * time of everything from the last one on (in issue order: the rest of
 * forward, backward in reverse, update). */
static void test_host_costs_make_a_pipeline(void **state)
{
    (void)state;
    before_after f;
    predict_before_after(&f, HEAD "\"host_source\": \"test\", \"terms\": {\"fp32\": {\"conv_3x3\": "
                                  "{\"forward\": {\"scale\": 1, \"host_us\": 5000}}, \"conv_3x3_wide\": "
                                  "{\"forward\": {\"scale\": 1, \"host_us\": 5000}}}}}");
    assert_int_equal(f.a.timeline, -1);
    assert_true(f.a.host_ms == 0 && f.a.kernels_ms == f.a.iteration_ms);
    assert_true(f.dev.calib.has_host);
    assert_true(f.b.timeline >= 0 && f.b.host_bound);
    assert_true(fabs(f.b.host_ms - 80) < 1e-9);
    assert_true(fabs(f.b.kernels_ms - f.a.iteration_ms) < 1e-9);
    int last = -1;
    for (int i = 0; i < f.net.n_layers; i++)
        if (cp_layer_calib_class(&f.net.layers[i]) == CP_CC_CONV_3X3 ||
            cp_layer_calib_class(&f.net.layers[i]) == CP_CC_CONV_3X3_WIDE)
            last = i;
    double after = 0; /* GPU time from the last 3x3 forward on */
    for (int i = last; i < f.net.n_layers; i++)
        after += f.a.layers[i].ms[CP_PASS_FWD];
    for (int i = 0; i < f.net.n_layers; i++)
        after += f.a.layers[i].ms[CP_PASS_BWD_DATA] + f.a.layers[i].ms[CP_PASS_BWD_WEIGHT] + f.a.layers[i].ms[CP_PASS_UPDATE];
    assert_true(f.a.forward_ms < 5);
    if (fabs(f.b.iteration_ms - (80 + after)) > 1e-9 * f.b.iteration_ms)
        fail_msg("iteration %.9f ms, want %.9f", f.b.iteration_ms, 80 + after);
    /* the passes' advances add up to the phases and these to the iteration */
    double sum[4] = {f.b.loading_ms, 0, 0, 0};
    for (int i = 0; i < f.net.n_layers; i++)
        for (int p = 0; p < CP_PASS_COUNT; p++) {
            assert_true(f.b.layers[i].ms[p] >= f.a.layers[i].ms[p] - 1e-12);
            sum[p == CP_PASS_FWD ? 1 : p == CP_PASS_UPDATE ? 3 : 2] += f.b.layers[i].ms[p];
        }
    assert_true(fabs(sum[1] - f.b.forward_ms) < 1e-9 && fabs(sum[2] - f.b.backward_ms) < 1e-9);
    assert_true(fabs(sum[0] + sum[1] + sum[2] + sum[3] - f.b.iteration_ms) < 1e-9);
    /* every backward and update pass runs as soon as the GPU is free: unchanged */
    for (int i = 0; i < f.net.n_layers; i++)
        assert_true(fabs(f.b.layers[i].ms[CP_PASS_UPDATE] - f.a.layers[i].ms[CP_PASS_UPDATE]) < 1e-12);
    before_after_free(&f);
}

/* A host whose whole issue is shorter than the GPU's kernels runs ahead
 * from one iteration to the next: 1 us per 3x3 forward changes nothing but
 * the host's total (the DAG is still built, for --explain). */
static void test_host_ahead_leaves_gpu_times(void **state)
{
    (void)state;
    before_after f;
    predict_before_after(&f, HEAD "\"host_source\": \"test\", \"terms\": {\"fp32\": {\"conv_3x3\": "
                                  "{\"forward\": {\"scale\": 1, \"host_us\": 1}}}}}");
    assert_true(f.b.timeline >= 0);
    assert_true(f.b.host_ms > 0 && f.b.host_ms < f.b.kernels_ms);
    assert_false(f.b.host_bound);
    assert_true(fabs(f.b.iteration_ms - f.a.iteration_ms) < 1e-12);
    for (int i = 0; i < f.net.n_layers; i++)
        for (int p = 0; p < CP_PASS_COUNT; p++)
            assert_true(fabs(f.b.layers[i].ms[p] - f.a.layers[i].ms[p]) < 1e-12);
    before_after_free(&f);
}

/* cudnnFind's path and the host's legacy calls: ResNet-18's 3 x 20 - 1
 * convolution passes (the first computes no data gradient), 20 of them
 * forward. On the H100, whose profile has its host's issue per call
 * ("legacy_host"), the estimate is the calls times it; at batch 32 in fp16
 * it exceeds the GPU's own time, so the host sets the pace: the iteration
 * is the estimate and the GPU's tail after the host's last convolution call
 * (conv1's weight gradient and the update), forward and backward take on
 * the difference 20 : 39, and
 * the layer passes keep the GPU's times. At 256 in fp32 the GPU sets it.
 * Without the section the H100 host's profile is reported and nothing
 * paced; PyTorch's algorithms (graph API) have no such estimate. */
static void test_legacy_host_estimate(void **state)
{
    (void)state;
    cp_device dev;
    cp_network net;
    cp_error err;
    cp_calibration_set_default("auto");
    assert_int_equal(cp_device_load("h100", &dev, &err), 0);
    assert_true(dev.legacy_host.loaded);
    assert_int_equal(cp_network_load("resnet18", &net, &err), 0);
    cp_prediction p = {0}, gpu = {0};
    assert_int_equal(cp_predict(&net, &dev, 32, CP_PREC_FP16, &p, &err), 0);
    cp_legacy_host h = cp_legacy_host_estimate(&p);
    assert_int_equal(h.calls, 3 * 20 - 1);
    assert_int_equal(h.forward_calls, 20);
    assert_true(h.calibrated);
    assert_true(fabs(h.median_ms - h.calls * dev.legacy_host.issue_us[1] * 1e-3) < 1e-12);
    assert_true(h.p10_ms < h.median_ms && h.median_ms < h.p90_ms);
    assert_true(h.host_may_pace);
    cp_device bare = dev;
    bare.legacy_host.loaded = 0;
    assert_int_equal(cp_predict(&net, &bare, 32, CP_PREC_FP16, &gpu, &err), 0);
    assert_true(p.legacy_paced && !gpu.legacy_paced);
    assert_true(h.median_ms > gpu.iteration_ms);
    /* the GPU's tail: conv1's weight gradient (its last convolution call) and the update */
    assert_true(fabs(h.tail_ms - gpu.layers[0].ms[CP_PASS_BWD_WEIGHT] - gpu.update_ms) < 1e-12 && h.tail_ms > 0);
    assert_true(fabs(p.iteration_ms - (h.median_ms + h.tail_ms)) < 1e-9);
    assert_true(fabs(p.kernels_ms - gpu.iteration_ms) < 1e-9);
    double excess = h.median_ms + h.tail_ms - gpu.iteration_ms;
    assert_true(fabs(p.forward_ms - gpu.forward_ms - excess * 20 / 59) < 1e-9);
    assert_true(fabs(p.backward_ms - gpu.backward_ms - excess * 39 / 59) < 1e-9);
    assert_true(fabs(p.legacy_backward_scale - p.backward_ms / gpu.backward_ms) < 1e-12);
    for (int i = 0; i < net.n_layers; i++)
        for (int k = 0; k < CP_PASS_COUNT; k++)
            assert_true(p.layers[i].ms[k] == gpu.layers[i].ms[k]);
    cp_legacy_host hb = cp_legacy_host_estimate(&gpu); /* no section: the H100 host's profile, reported */
    assert_false(hb.calibrated);
    assert_true(fabs(hb.median_ms - hb.calls * CP_LEGACY_CONV_HOST_US_MEDIAN * 1e-3) < 1e-12);
    assert_int_equal(cp_predict(&net, &dev, 256, CP_PREC_FP32, &p, &err), 0);
    assert_false(cp_legacy_host_estimate(&p).host_may_pace);
    assert_false(p.legacy_paced);
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP16, CP_ALGOS_PYTORCH, &p, &err), 0);
    assert_int_equal(cp_legacy_host_estimate(&p).calls, 0);
    assert_false(p.legacy_paced);
    cp_prediction_free(&p);
    cp_prediction_free(&gpu);
    cp_network_free(&net);
}

/* A device's graph-API calibration applies to predictions with PyTorch's
 * algorithms only; without one they take the legacy API's. */
static void test_graph_calibration_applies_to_pytorch_algorithms(void **state)
{
    (void)state;
    cp_error err;
    cp_device dev;
    cp_network net;
    load_uncalibrated(&dev, &net);
    cp_prediction find0 = {0}, torch0 = {0}, find1 = {0}, torch1 = {0}, torch2 = {0};
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP32, CP_ALGOS_FIND, &find0, &err), 0);
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP32, CP_ALGOS_PYTORCH, &torch0, &err), 0);
    const char *fc = HEAD "\"terms\": {\"fp32\": {\"fc\": {\"forward\": {\"scale\": %d}}}}}";
    char text[256];
    snprintf(text, sizeof text, fc, 2);
    assert_int_equal(parse(text, &dev.calib, &err), 0);
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP32, CP_ALGOS_PYTORCH, &torch2, &err), 0);
    snprintf(text, sizeof text, fc, 5);
    assert_int_equal(parse(text, &dev.calib_graph, &err), 0);
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP32, CP_ALGOS_FIND, &find1, &err), 0);
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP32, CP_ALGOS_PYTORCH, &torch1, &err), 0);
    int fc_layers = 0;
    for (int i = 0; i < net.n_layers; i++) {
        if (cp_layer_calib_class(&net.layers[i]) != CP_CC_FC)
            continue;
        fc_layers++;
        assert_true(fabs(find1.layers[i].ms[CP_PASS_FWD] - 2 * find0.layers[i].ms[CP_PASS_FWD]) < 1e-9);
        assert_true(fabs(torch1.layers[i].ms[CP_PASS_FWD] - 5 * torch0.layers[i].ms[CP_PASS_FWD]) < 1e-9);
        /* no graph-API calibration loaded: the legacy one */
        assert_true(fabs(torch2.layers[i].ms[CP_PASS_FWD] - 2 * torch0.layers[i].ms[CP_PASS_FWD]) < 1e-9);
    }
    assert_int_equal(fc_layers, 1);
    assert_ptr_equal(cp_device_calibration(&dev, CP_ALGOS_PYTORCH), &dev.calib_graph);
    assert_ptr_equal(cp_device_calibration(&dev, CP_ALGOS_FIND), &dev.calib);
    cp_prediction_free(&find0);
    cp_prediction_free(&torch0);
    cp_prediction_free(&find1);
    cp_prediction_free(&torch1);
    cp_prediction_free(&torch2);
    cp_network_free(&net);
}

/* Channels-last FP32: cuDNN's FP32 engines are NCHW kernels, so each such
 * convolution pass runs between layout transposes the NCHW runs its class's
 * scale was fitted on never had. The scale applies to the engine's kernels,
 * the transposes keep their own time, and the offset (the NCHW pass's fixed
 * cost) is dropped: t = scale x (t_model - t_transposes) + t_transposes. */
static void test_channels_last_fp32_transposes_keep_their_time(void **state)
{
    (void)state;
    cp_error err;
    cp_device dev;
    cp_network net;
    load_uncalibrated(&dev, &net);
    net.channels_last = true;
    cp_prediction a = {0}, b = {0};
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP32, CP_ALGOS_PYTORCH, &a, &err), 0);
    assert_int_equal(parse(HEAD "\"terms\": {\"fp32\": {\"conv_3x3\": {\"forward\": {\"scale\": 2, \"offset_us\": 10}},"
                                "\"conv_3x3_wide\": {\"forward\": {\"scale\": 2, \"offset_us\": 10}}}}}",
                           &dev.calib_graph, &err),
                     0);
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP32, CP_ALGOS_PYTORCH, &b, &err), 0);
    cp_exec x = {&dev, CP_PREC_FP32, 32, NULL, CP_ALGOS_PYTORCH, CP_HARNESS_WORKSPACE_MB * 1048576.0, true};
    int checked = 0;
    for (int i = 0; i < net.n_layers; i++) {
        const cp_layer *l = &net.layers[i];
        cp_calib_class cls = cp_layer_calib_class(l);
        if (cls != CP_CC_CONV_3X3 && cls != CP_CC_CONV_3X3_WIDE)
            continue;
        cp_kernel k[CP_MAX_KERNELS];
        int n = l->kind->kernels(l, CP_PASS_FWD, &x, k, CP_MAX_KERNELS, &err);
        assert_true(n > 1);
        double tr = 0;
        for (int j = 0; j < n; j++)
            if (strcmp(k[j].name, "nchw_to_nhwc") == 0 || strcmp(k[j].name, "nhwc_to_nchw") == 0)
                tr += cp_kernels_ms(&k[j], 1, &dev, INFINITY, &err);
        assert_true(tr > 0);
        double want = 2 * (a.layers[i].ms[CP_PASS_FWD] - tr) + tr;
        if (fabs(b.layers[i].ms[CP_PASS_FWD] - want) > 1e-6 * want)
            fail_msg("%s forward: %.9f ms, want %.9f", l->name, b.layers[i].ms[CP_PASS_FWD], want);
        checked++;
    }
    assert_int_equal(checked, 16);
    cp_prediction_free(&a);
    cp_prediction_free(&b);
    cp_network_free(&net);
}

/* Channels-last 16-bit: the engines run alone, no transposes, so a 3x3
 * convolution pass is its kernels times its class's NCHW-fitted scale times
 * CP_CL_HALF_CONV_FACTOR_3X3, a 1x1 one times _OTHER, without the offset;
 * FP32 (above) and NCHW passes never take the factors. */
static void test_channels_last_half_takes_the_factor(void **state)
{
    (void)state;
    cp_error err;
    cp_device dev;
    cp_network net;
    load_uncalibrated(&dev, &net);
    cp_prediction a = {0}, b = {0}, c = {0}, d = {0};
    net.channels_last = true;
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP16, CP_ALGOS_PYTORCH, &a, &err), 0);
    net.channels_last = false;
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP16, CP_ALGOS_PYTORCH, &c, &err), 0);
    assert_int_equal(parse(HEAD "\"terms\": {\"half\": {\"conv_3x3\": {\"forward\": {\"scale\": 2, \"offset_us\": 10}},"
                                "\"conv_3x3_wide\": {\"forward\": {\"scale\": 2, \"offset_us\": 10}},"
                                "\"conv_1x1\": {\"forward\": {\"scale\": 3, \"offset_us\": 10}}}}}",
                           &dev.calib_graph, &err),
                     0);
    net.channels_last = true;
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP16, CP_ALGOS_PYTORCH, &b, &err), 0);
    net.channels_last = false;
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP16, CP_ALGOS_PYTORCH, &d, &err), 0);
    int checked = 0, others = 0;
    for (int i = 0; i < net.n_layers; i++) {
        cp_calib_class cls = cp_layer_calib_class(&net.layers[i]);
        if (cls == CP_CC_CONV_1X1) { /* the other classes' factor */
            double want = 3 * CP_CL_HALF_CONV_FACTOR_OTHER * a.layers[i].ms[CP_PASS_FWD];
            if (fabs(b.layers[i].ms[CP_PASS_FWD] - want) > 1e-6 * want)
                fail_msg("%s forward: %.9f ms, want %.9f", net.layers[i].name, b.layers[i].ms[CP_PASS_FWD], want);
            others++;
        }
        if (cls != CP_CC_CONV_3X3 && cls != CP_CC_CONV_3X3_WIDE)
            continue;
        double want = 2 * CP_CL_HALF_CONV_FACTOR_3X3 * a.layers[i].ms[CP_PASS_FWD];
        if (fabs(b.layers[i].ms[CP_PASS_FWD] - want) > 1e-6 * want)
            fail_msg("%s forward: %.9f ms, want %.9f", net.layers[i].name, b.layers[i].ms[CP_PASS_FWD], want);
        want = 2 * c.layers[i].ms[CP_PASS_FWD] + 0.010; /* NCHW: the scale and the offset as fitted */
        if (fabs(d.layers[i].ms[CP_PASS_FWD] - want) > 1e-6 * want)
            fail_msg("%s NCHW forward: %.9f ms, want %.9f", net.layers[i].name, d.layers[i].ms[CP_PASS_FWD], want);
        checked++;
    }
    assert_int_equal(checked, 16);
    assert_true(others > 0);
    cp_prediction_free(&a);
    cp_prediction_free(&b);
    cp_prediction_free(&c);
    cp_prediction_free(&d);
    cp_network_free(&net);
}

/* A graph calibration file's own channels-last factors (rule 38) replace
 * CP_CL_HALF_CONV_FACTOR_3X3 and _OTHER for that device's 16-bit passes. */
static void test_channels_last_half_takes_the_files_factors(void **state)
{
    (void)state;
    cp_error err;
    cp_device dev;
    cp_network net;
    load_uncalibrated(&dev, &net);
    cp_prediction a = {0}, b = {0};
    net.channels_last = true;
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP16, CP_ALGOS_PYTORCH, &a, &err), 0);
    assert_int_equal(parse(HEAD "\"terms\": {\"half\": {\"conv_3x3\": {\"forward\": {\"scale\": 2}},"
                                "\"conv_1x1\": {\"forward\": {\"scale\": 3}}}},"
                                "\"cl_half_conv_factors\": {\"conv_3x3\": 0.5, \"other\": 1.5}}",
                           &dev.calib_graph, &err),
                     0);
    assert_int_equal(cp_predict_with(&net, &dev, 32, CP_PREC_FP16, CP_ALGOS_PYTORCH, &b, &err), 0);
    int threes = 0, ones = 0;
    for (int i = 0; i < net.n_layers; i++) {
        cp_calib_class cls = cp_layer_calib_class(&net.layers[i]);
        double f = cls == CP_CC_CONV_3X3 ? 2 * 0.5 : cls == CP_CC_CONV_1X1 ? 3 * 1.5 : 0;
        if (f == 0)
            continue;
        double want = f * a.layers[i].ms[CP_PASS_FWD];
        if (fabs(b.layers[i].ms[CP_PASS_FWD] - want) > 1e-6 * want)
            fail_msg("%s forward: %.9f ms, want %.9f", net.layers[i].name, b.layers[i].ms[CP_PASS_FWD], want);
        *(cls == CP_CC_CONV_3X3 ? &threes : &ones) += 1;
    }
    assert_true(threes > 0 && ones > 0);
    cp_prediction_free(&a);
    cp_prediction_free(&b);
    cp_network_free(&net);
}

/* A strided convolution's data gradient (not a first layer's, not a
 * depthwise one's) takes CP_STRIDED_DGRAD_FACTOR on its calibrated time,
 * scale and offset alike, and in FP32 its weight gradient
 * CP_STRIDED_WGRAD_FP32_FACTOR; its forward, a 16-bit weight gradient and
 * every stride-1 pass keep the class's terms. ResNet-18 has three strided
 * 3x3 layers and three strided 1x1 (the downsampling shortcuts). */
static void test_strided_gradients_take_their_factors(void **state)
{
    (void)state;
    cp_error err;
    cp_device dev;
    cp_network net;
    load_uncalibrated(&dev, &net);
    const char *terms = "{\"forward\": {\"scale\": 2, \"offset_us\": 10}, \"backward_data\": {\"scale\": 2, "
                        "\"offset_us\": 10}, \"backward_weight\": {\"scale\": 2, \"offset_us\": 10}}";
    char text[2048];
    snprintf(text, sizeof text,
             HEAD "\"terms\": {\"fp32\": {\"conv_1x1\": %s, \"conv_3x3\": %s, \"conv_3x3_wide\": %s}, "
                  "\"half\": {\"conv_1x1\": %s, \"conv_3x3\": %s, \"conv_3x3_wide\": %s}}}",
             terms, terms, terms, terms, terms, terms);
    const cp_precision precs[2] = {CP_PREC_FP32, CP_PREC_FP16};
    for (int q = 0; q < 2; q++) {
        cp_prediction a = {0}, b = {0};
        dev.calib.loaded = false;
        assert_int_equal(cp_predict_with(&net, &dev, 32, precs[q], CP_ALGOS_FIND, &a, &err), 0);
        assert_int_equal(parse(text, &dev.calib, &err), 0);
        assert_int_equal(cp_predict_with(&net, &dev, 32, precs[q], CP_ALGOS_FIND, &b, &err), 0);
        int strided = 0, plain = 0;
        for (int i = 0; i < net.n_layers; i++) {
            const cp_layer *l = &net.layers[i];
            cp_calib_class cls = cp_layer_calib_class(l);
            if (cls != CP_CC_CONV_1X1 && cls != CP_CC_CONV_3X3 && cls != CP_CC_CONV_3X3_WIDE)
                continue;
            bool s = cp_layer_strided(l);
            for (cp_pass p = CP_PASS_FWD; p <= CP_PASS_BWD_WEIGHT; p++) {
                double f = !s                                              ? 1
                           : p == CP_PASS_BWD_DATA                         ? CP_STRIDED_DGRAD_FACTOR
                           : p == CP_PASS_BWD_WEIGHT && precs[q] == CP_PREC_FP32 ? CP_STRIDED_WGRAD_FP32_FACTOR
                                                                           : 1;
                double want = f * (2 * a.layers[i].ms[p] + 0.010);
                if (fabs(b.layers[i].ms[p] - want) > 1e-6 * want)
                    fail_msg("%s %s pass %d: %.9f ms, want %.9f", cp_precision_name(precs[q]), l->name, (int)p,
                             b.layers[i].ms[p], want);
            }
            strided += s;
            plain += !s;
        }
        assert_int_equal(strided, 6);
        assert_true(plain > 0);
        cp_prediction_free(&a);
        cp_prediction_free(&b);
    }
    /* and the factors are real: such a gradient takes more than its class alone */
    assert_true(CP_STRIDED_DGRAD_FACTOR > 1 && CP_STRIDED_WGRAD_FP32_FACTOR > 1);
    cp_network_free(&net);
}

static void test_auto_attaches_embedded_calibrations(void **state)
{
    (void)state;
    cp_error err;
    cp_device dev;
    cp_calibration_set_default("auto");
    assert_int_equal(cp_device_load("h100", &dev, &err), 0);
    assert_true(dev.calib.loaded);
    assert_non_null(strstr(dev.calib.source, "calibration set"));
    assert_true(dev.calib_graph.loaded); /* calibration/h100-graph.json */
    assert_non_null(strstr(dev.calib_graph.source, "calibration set"));
    assert_int_equal(cp_device_load("gtx1080", &dev, &err), 0); /* nobody calibrated it */
    assert_false(dev.calib.loaded);
    cp_calibration_set_default("no-such-calibration");
    assert_int_not_equal(cp_device_load("h100", &dev, &err), 0);
    assert_non_null(strstr(err.msg, "no-such-calibration"));
    cp_calibration_set_default("none");
}

/* Rule 36: eager mode times an NCHW windowed pooling pass as PyTorch's own kernel, the file's rate per element
 * (any precision) plus the launch gap, in place of the prediction's kernels and their terms; the global average
 * pooling, channels-last runs and kinds without a rate keep the prediction's. ResNet-18's 3x3/2 max pooling of
 * a 64x112x112 input, batch 32, FP16. */
static double event_ms(const cp_eager *e, const char *name, const char *layer)
{
    double ms = -1;
    for (int i = 0; i < e->n_events; i++)
        if (e->events[i].gpu && strcmp(e->events[i].name, name) == 0 && strcmp(e->events[i].detail, layer) == 0)
            ms = e->events[i].end_ms - e->events[i].start_ms;
    return ms;
}

/* ResNet-18 b32 FP16 in eager mode, NCHW or channels-last: the recorded times of the PyTorch pooling kernels
 * rule 36 puts in (max pooling forward and backward, the global average pooling's backward), -1 where none. */
static void torch_pool_events(cp_network *net, const cp_device *dev, int channels_last, double out[3])
{
    cp_error err;
    cp_prediction p = {0};
    cp_eager e = {0};
    cp_eager_costs costs = {0};
    e.record = 1;
    net->channels_last = channels_last;
    assert_int_equal(cp_predict_with(net, dev, 32, CP_PREC_FP16, CP_ALGOS_PYTORCH, &p, &err), 0);
    assert_int_equal(cp_eager_run(&p, &costs, &e, &err), 0);
    out[0] = event_ms(&e, "torch_pool_fwd", "maxpool");
    out[1] = event_ms(&e, "torch_pool_bwd", "maxpool");
    out[2] = event_ms(&e, "torch_pool_bwd", "avgpool");
    cp_eager_free(&e);
    cp_prediction_free(&p);
}

static void test_eager_pool_times_pytorch_kernels(void **state)
{
    (void)state;
    cp_device dev;
    cp_network net;
    cp_error err;
    double t[3];
    load_uncalibrated(&dev, &net);
    assert_int_equal(parse(HEAD "\"terms\": {}, \"eager_pool\": {\"nchw\": {\"maxpool\": {" POOL_RATES
                                ", \"backward_ps_per_cover\": 2}}}}",
                           &dev.calib_graph, &err),
                     0);
    assert_true(dev.calib_graph.eager_pool[CP_LAYOUT_NCHW][0].set);
    assert_false(dev.calib_graph.eager_pool[CP_LAYOUT_NCHW][1].set);
    assert_false(dev.calib_graph.eager_pool[CP_LAYOUT_CHANNELS_LAST][0].set);
    const cp_layer *pool = NULL;
    for (int i = 0; i < net.n_layers; i++)
        if (strcmp(net.layers[i].name, "maxpool") == 0)
            pool = &net.layers[i];
    assert_non_null(pool);
    double cover = cp_pool_cover(pool); /* 167 taps over 112 rows, squared */
    assert_true(fabs(cover - (167.0 / 112) * (167.0 / 112)) < 1e-12);
    torch_pool_events(&net, &dev, 0, t);
    double launch = dev.launch_overhead_us * 1e-3;
    assert_true(fabs(t[0] - (32.0 * 64 * 56 * 56 * (10 + 1 * 9) * 1e-9 + launch)) < 1e-9);
    assert_true(fabs(t[1] - (32.0 * 64 * 112 * 112 * (8 + 2 * cover) * 1e-9 + launch)) < 1e-9);
    assert_true(t[2] < 0); /* the global average pooling: aten::mean, not avg_pool2d */
    torch_pool_events(&net, &dev, 1, t); /* channels-last, where the file has no rates: the prediction's kernels */
    assert_true(t[0] < 0 && t[1] < 0);
    /* rates of the other layout only: now channels-last takes them and NCHW keeps the prediction's kernels */
    assert_int_equal(parse(HEAD "\"terms\": {}, \"eager_pool\": {\"channels_last\": {\"maxpool\": {" POOL_RATES
                                ", \"backward_ps_per_cover\": 2}}}}",
                           &dev.calib_graph, &err),
                     0);
    torch_pool_events(&net, &dev, 1, t);
    assert_true(t[0] >= 0 && t[1] >= 0);
    torch_pool_events(&net, &dev, 0, t);
    assert_true(t[0] < 0 && t[1] < 0);
    cp_network_free(&net);
}

/* The fitted files must never have been fitted on an evaluation network. */
static void test_fitted_files_name_only_the_calibration_set(void **state)
{
    (void)state;
    static const char *const evaluation[] = {"resnet50", "vgg16", "alexnet", "googlenet", "lenet5"};
    static const char *const files[] = {CNNPERF_SOURCE_DIR "/calibration/h100.json",
                                        CNNPERF_SOURCE_DIR "/calibration/h200.json",
                                        CNNPERF_SOURCE_DIR "/calibration/h100-graph.json",
                                        CNNPERF_SOURCE_DIR "/calibration/h200-graph.json"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        FILE *in = fopen(files[f], "r");
        assert_non_null(in);
        static char text[1 << 20];
        size_t n = fread(text, 1, sizeof text - 1, in);
        fclose(in);
        text[n] = 0;
        for (size_t e = 0; e < sizeof evaluation / sizeof evaluation[0]; e++) {
            char needle[64];
            snprintf(needle, sizeof needle, "/%s-b", evaluation[e]);
            if (strstr(text, needle))
                fail_msg("%s was fitted on %s runs", files[f], evaluation[e]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_defaults_to_identity),
        cmocka_unit_test(test_concat_class_falls_back_to_elementwise),
        cmocka_unit_test(test_bad_files_name_the_field),
        cmocka_unit_test(test_scale_and_offset_apply_to_their_class),
        cmocka_unit_test(test_host_costs_make_a_pipeline),
        cmocka_unit_test(test_host_ahead_leaves_gpu_times),
        cmocka_unit_test(test_legacy_host_estimate),
        cmocka_unit_test(test_graph_calibration_applies_to_pytorch_algorithms),
        cmocka_unit_test(test_channels_last_fp32_transposes_keep_their_time),
        cmocka_unit_test(test_channels_last_half_takes_the_factor),
        cmocka_unit_test(test_channels_last_half_takes_the_files_factors),
        cmocka_unit_test(test_strided_gradients_take_their_factors),
        cmocka_unit_test(test_auto_attaches_embedded_calibrations),
        cmocka_unit_test(test_fitted_files_name_only_the_calibration_set),
        cmocka_unit_test(test_eager_pool_times_pytorch_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
