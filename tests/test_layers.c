/* Layer decompositions that measurements forced on the model, held to the
 * property that made them necessary:
 *  - batch-norm backward streams its tensors one access at a time per
 *    channel block: with fewer channels than SMs it takes ~2.5x the forward
 *    (measured 2.2-2.5x on the calibration set); with many channels both
 *    are bound by their instructions per element (~1.5x);
 *  - a convolution on tensor cores runs between NHWC transposes, except a
 *    1x1 one whose NCHW planes are whole 16-byte vectors and whose stride is
 *    1; FP32 (no tensor cores) never;
 *  - cuDNN's pooling forward is bound by its instructions: it takes about as
 *    long in 16 bits as in 32, and longer for a larger window over the same
 *    outputs (measured 2x2: 6.2-7.4 ps per output, 3x3: 10.5-11.2, H100);
 *  - an FP32 stride-1 convolution with a filter larger than 3x3 may run as
 *    FFT tiling, whichever is faster, as cudnnFind picks: AlexNet's 5x5
 *    layer measured at 3.5x the FP32 peak counted in direct multiply-adds;
 *  - a concat is one copy per input, each with its own launch (GoogLeNet's
 *    four-way joins measured at 1.3-1.9x one copy);
 *  - a grouped convolution that is not depthwise runs, on PyTorch's path, one
 *    dense convolution per group in FP32 (its kernels launched once per
 *    group) and one grouped GEMM between NHWC transposes in 16 bits; a
 *    depthwise one a direct kernel in either;
 *  - that 16-bit grouped GEMM, at a power of two of channels a group, is
 *    cuDNN's packed one, whose time follows output elements x taps, not
 *    multiply-adds (4 and 8 channels a group at the same multiply-adds:
 *    about twice the time where twice the outputs; groupbench2/3);
 *  - channels-last activations need no transposes on tensor cores, and FP32
 *    ones need them both ways; batch norm runs cuDNN's NHWC kernels. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model/kernel.h"
#include "model/predict.h"
#include "networks/network.h"

static cp_device h100;

static int setup(void **state)
{
    (void)state;
    cp_error err;
    if (cp_device_load("h100", &h100, &err))
        fail_msg("%s", err.msg);
    return 0;
}

/* A one-layer network on a c x hw x hw input, built from JSON text. */
static void one_layer(cp_network *n, int c, int hw, const char *layer)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"format\": \"cnnperf-network/1\", \"name\": \"t\", "
             "\"input\": {\"channels\": %d, \"height\": %d, \"width\": %d}, \"layers\": [%s]}",
             c, hw, hw, layer);
    cp_error err;
    if (cp_network_parse(text, strlen(text), "t.json", n, &err))
        fail_msg("%s", err.msg);
}

/* One k x k convolution (stride 1, padding k/2, no bias) of c channels on hw x hw to out, in `groups` groups */
static void one_conv(cp_network *n, int c, int hw, int out, int k, int groups)
{
    char layer[160];
    snprintf(layer, sizeof layer,
             "{\"name\": \"c\", \"kind\": \"conv\", \"out\": %d, \"kernel\": %d, \"pad\": %d, \"groups\": %d, "
             "\"bias\": false}",
             out, k, k / 2, groups);
    one_layer(n, c, hw, layer);
}

static void one_conv3x3(cp_network *n, int c, int hw, int out, int groups) { one_conv(n, c, hw, out, 3, groups); }

enum { MAXK = 16 };

/* The convolution workspace limit layer_kernels passes, bytes (0: none). */
static double workspace_bytes;
/* Whether layer_kernels lays the activations out channels-last. */
static bool channels_last;

/* The kernels of one pass on the H100 with the given algorithm set. */
static int layer_kernels(const cp_layer *l, cp_pass pass, cp_precision prec, int batch, cp_algos algos,
                         cp_kernel k[MAXK])
{
    cp_exec x = {&h100, prec, batch, NULL, algos, workspace_bytes, channels_last};
    cp_error err;
    int nk = l->kind->kernels(l, pass, &x, k, MAXK, &err);
    if (nk < 0)
        fail_msg("%s", err.msg);
    return nk;
}

/* Time of one pass and, in *names, its kernels' names joined by spaces. */
static double pass_ms_with(const cp_layer *l, cp_pass pass, cp_precision prec, int batch, cp_algos algos,
                           char *names, size_t cap)
{
    cp_kernel k[MAXK];
    cp_error err;
    int nk = layer_kernels(l, pass, prec, batch, algos, k);
    double t = 0;
    if (names)
        names[0] = 0;
    for (int i = 0; i < nk; i++) {
        cp_kernel_eval e;
        if (cp_kernel_evaluate(&k[i], &h100, &e, &err))
            fail_msg("%s", err.msg);
        t += e.time_ms;
        if (names && strlen(names) + strlen(k[i].name) + 2 < cap) {
            strcat(names, k[i].name);
            strcat(names, " ");
        }
    }
    return t;
}

static double pass_ms(const cp_layer *l, cp_pass pass, cp_precision prec, int batch, char *names, size_t cap)
{
    return pass_ms_with(l, pass, prec, batch, CP_ALGOS_FIND, names, cap);
}

static double bn_ratio(int c, int hw, int batch)
{
    cp_network n;
    one_layer(&n, c, hw, "{\"name\": \"bn\", \"kind\": \"batchnorm\"}");
    const cp_layer *l = &n.layers[0];
    double f = pass_ms(l, CP_PASS_FWD, CP_PREC_FP32, batch, NULL, 0);
    double b = pass_ms(l, CP_PASS_BWD_DATA, CP_PREC_FP32, batch, NULL, 0) +
               pass_ms(l, CP_PASS_BWD_WEIGHT, CP_PREC_FP32, batch, NULL, 0);
    cp_network_free(&n);
    return b / f;
}

static double bn_fwd(int c, int hw, int batch, cp_precision prec)
{
    cp_network n;
    one_layer(&n, c, hw, "{\"name\": \"bn\", \"kind\": \"batchnorm\"}");
    double t = pass_ms(&n.layers[0], CP_PASS_FWD, prec, batch, NULL, 0);
    cp_network_free(&n);
    return t;
}

/* Bound by instructions per element, not bytes: 16 bits take about as long
 * as 32 on large channels (measured 0.86-0.91), except the smaller channels
 * cuDNN handles with a leaner kernel (measured ~0.4-0.5). */
static void test_batchnorm_precision(void **state)
{
    (void)state;
    double large = bn_fwd(256, 56, 256, CP_PREC_FP16) / bn_fwd(256, 56, 256, CP_PREC_FP32);
    double small = bn_fwd(1024, 14, 64, CP_PREC_FP16) / bn_fwd(1024, 14, 64, CP_PREC_FP32);
    print_message("batch-norm forward fp16/fp32: %.2f (802816 per channel), %.2f (12544)\n", large, small);
    assert_true(large > 0.8 && large <= 1.0);
    assert_true(small < 0.7);
}

/* The kernel cuDNN picks (Nsight Compute, ResNet-50 b64 fp16, cuDNN 9.14;
 * PyTorch's profiler over 32 shapes): a channel of at most 98 KiB forward
 * and 49 KiB backward is read once; in 16 bits on an even plane with half2
 * arithmetic, which took 64x128x28x28 forward in 12.3 us against 31.4 in
 * fp32. */
static const char *bn_kernel(int c, int hw, int batch, cp_precision prec, cp_pass pass, char *names, size_t cap)
{
    cp_network n;
    one_layer(&n, c, hw, "{\"name\": \"bn\", \"kind\": \"batchnorm\"}");
    pass_ms(&n.layers[0], pass, prec, batch, names, cap);
    cp_network_free(&n);
    return names;
}

static void test_batchnorm_kernel_choice(void **state)
{
    (void)state;
    char k[256];
    assert_string_equal(bn_kernel(128, 28, 64, CP_PREC_FP16, CP_PASS_FWD, k, sizeof k), "bn_fwd_singleread ");
    assert_string_equal(bn_kernel(128, 28, 64, CP_PREC_FP16, CP_PASS_BWD_DATA, k, sizeof k), "bn_bwd_dx ");
    assert_string_equal(bn_kernel(256, 14, 64, CP_PREC_FP16, CP_PASS_BWD_DATA, k, sizeof k), "bn_bwd_singleread_dx ");
    assert_string_equal(bn_kernel(64, 56, 8, CP_PREC_FP32, CP_PASS_FWD, k, sizeof k), "bn_fwd_singleread ");
    assert_string_equal(bn_kernel(64, 56, 8, CP_PREC_FP32, CP_PASS_BWD_WEIGHT, k, sizeof k), "bn_bwd_reduce ");
    assert_string_equal(bn_kernel(2048, 7, 64, CP_PREC_FP32, CP_PASS_BWD_WEIGHT, k, sizeof k),
                        "bn_bwd_singleread_reduce ");
    assert_string_equal(bn_kernel(64, 56, 32, CP_PREC_FP16, CP_PASS_FWD, k, sizeof k),
                        "bn_fwd_stats bn_fwd_normalize ");
    double half2 = bn_fwd(128, 28, 64, CP_PREC_FP16) / bn_fwd(128, 28, 64, CP_PREC_FP32);
    double odd = bn_fwd(2048, 7, 64, CP_PREC_FP16) / bn_fwd(2048, 7, 64, CP_PREC_FP32);
    print_message("batch-norm forward fp16/fp32 at b64: 128x28x28 %.2f (measured 0.39), 2048x7x7 %.2f (0.79)\n",
                  half2, odd);
    assert_true(half2 < 0.5);
    assert_true(odd > 0.7);
}

static void test_batchnorm_backward(void **state)
{
    (void)state;
    double few = bn_ratio(64, 56, 256);    /* 64 channel blocks on 132 SMs: latency-bound */
    double many = bn_ratio(1024, 14, 256); /* 1024 blocks: DRAM-bound */
    print_message("batch-norm backward / forward: %.2f (64 channels), %.2f (1024 channels)\n", few, many);
    assert_true(few > 2.0 && few < 2.8); /* measured 2.2-2.5 */
    assert_true(many > 1.4 && many < 2.0);
}

/* A convolution pass's time, with its kernels' names in names. */
static double conv_pass(int c, int hw, int out, int k, int stride, cp_precision prec, cp_pass pass, int batch,
                        char *names, size_t cap)
{
    char layer[160];
    snprintf(layer, sizeof layer,
             "{\"name\": \"c\", \"kind\": \"conv\", \"out\": %d, \"kernel\": %d, \"stride\": %d, \"pad\": %d, "
             "\"bias\": false}",
             out, k, stride, k / 2);
    cp_network n;
    one_layer(&n, c, hw, layer);
    double t = pass_ms(&n.layers[0], pass, prec, batch, names, cap);
    cp_network_free(&n);
    return t;
}

/* Whether a convolution's pass runs between layout transposes. */
static bool transposed(int c, int hw, int stride, cp_precision prec, cp_pass pass, int kernel)
{
    char names[512];
    conv_pass(c, hw, 256, kernel, stride, prec, pass, 64, names, sizeof names);
    bool in = strstr(names, "nchw_to_nhwc") != NULL, out = strstr(names, "nhwc_to_nchw") != NULL;
    /* the weight gradient writes no activation back */
    if (pass == CP_PASS_BWD_WEIGHT)
        assert_false(out);
    else
        assert_true(in == out);
    return in;
}

static void test_conv_layout(void **state)
{
    (void)state;
    for (int p = CP_PASS_FWD; p <= CP_PASS_BWD_WEIGHT; p++) {
        cp_pass pass = (cp_pass)p;
        assert_false(transposed(512, 28, 1, CP_PREC_FP16, pass, 1)); /* 784 x 2 B: whole vectors */
        assert_true(transposed(1024, 14, 1, CP_PREC_FP16, pass, 1)); /* 196 x 2 B = 392: not */
        assert_true(transposed(512, 7, 1, CP_PREC_BF16, pass, 1));
        assert_false(transposed(512, 14, 1, CP_PREC_TF32, pass, 1)); /* 196 x 4 B = 784: whole */
        /* unless 1024 x 256 channels, whose TF32 forward and weight gradient cuDNN runs on NHWC (rules 42
         * and 43); the data gradient only from 4x as many pairs (test_wgrad_1x1_nhwc) */
        assert_true(transposed(1024, 14, 1, CP_PREC_TF32, pass, 1) == (pass != CP_PASS_BWD_DATA));
        assert_true(transposed(1024, 7, 1, CP_PREC_TF32, pass, 1));
        assert_true(transposed(256, 56, 2, CP_PREC_FP16, pass, 1));   /* strided */
        assert_false(transposed(1024, 14, 1, CP_PREC_FP32, pass, 1)); /* no tensor cores */
        assert_true(transposed(256, 28, 1, CP_PREC_FP16, pass, 3));   /* NHWC kernels, whatever the plane */
        assert_true(transposed(256, 28, 1, CP_PREC_TF32, pass, 3));
        assert_false(transposed(256, 28, 1, CP_PREC_FP32, pass, 3));
    }
}

/* Channels-last (PyTorch's memory_format=torch.channels_last, validation/h100/torch/chlast29/):
 * tensor-core passes read and write NHWC as it is, FP32 ones run cuDNN's NCHW
 * engines between transposes; batch norm is cuDNN's NHWC kernel, one a pass,
 * at DRAM speed (ResNet-18 b32 FP16's 64x112x112 layer: 54 us forward, 85
 * backward); 16-bit depthwise layers keep their fast kernels with a stride. */
static int count_of(const char *names, const char *word)
{
    int n = 0;
    for (const char *p = strstr(names, word); p; p = strstr(p + 1, word))
        n++;
    return n;
}

static void test_channels_last(void **state)
{
    (void)state;
    char names[512];
    channels_last = true;
    for (int p = CP_PASS_FWD; p <= CP_PASS_BWD_WEIGHT; p++) {
        cp_pass pass = (cp_pass)p;
        conv_pass(256, 28, 256, 3, 1, CP_PREC_FP16, pass, 64, names, sizeof names);
        assert_int_equal(count_of(names, "nhwc") + count_of(names, "nchw_to"), 0);
        conv_pass(1024, 14, 256, 1, 1, CP_PREC_TF32, pass, 64, names, sizeof names);
        assert_int_equal(count_of(names, "_to_"), 0);
        conv_pass(256, 28, 256, 3, 1, CP_PREC_FP32, pass, 64, names, sizeof names);
        assert_int_equal(count_of(names, "nhwc_to_nchw"), pass == CP_PASS_BWD_WEIGHT ? 2 : 1); /* in */
        assert_int_equal(count_of(names, "nchw_to_nhwc"), pass == CP_PASS_BWD_WEIGHT ? 0 : 1); /* back */
    }
    cp_network n;
    one_layer(&n, 64, 112, "{\"name\": \"bn\", \"kind\": \"batchnorm\"}");
    const cp_layer *bn = &n.layers[0];
    double fwd = pass_ms(bn, CP_PASS_FWD, CP_PREC_FP16, 32, names, sizeof names);
    assert_non_null(strstr(names, "bn_fwd_nhwc"));
    double bwd = pass_ms(bn, CP_PASS_BWD_DATA, CP_PREC_FP16, 32, NULL, 0) +
                 pass_ms(bn, CP_PASS_BWD_WEIGHT, CP_PREC_FP16, 32, NULL, 0);
    if (fwd < 0.054 * 0.7 || fwd > 0.054 * 1.3 || bwd < 0.085 * 0.7 || bwd > 0.085 * 1.3)
        fail_msg("NHWC batch norm %.1f us forward, %.1f backward; measured 54 and 85", fwd * 1e3, bwd * 1e3);
    channels_last = false;
    double nchw = pass_ms(bn, CP_PASS_FWD, CP_PREC_FP16, 32, NULL, 0);
    assert_true(nchw > 2 * fwd); /* cuDNN's NCHW kernels: 304 us for this layer in PyTorch's trace */
    cp_network_free(&n);
    /* MobileNet-v2's 96-channel stride-2 depthwise layer at b32: 41 us forward, 134 data gradient */
    one_layer(&n, 96, 112, "{\"name\": \"dw\", \"kind\": \"conv\", \"out\": 96, \"kernel\": 3, \"stride\": 2, "
                           "\"pad\": 1, \"groups\": 96, \"bias\": false}");
    double dw_nchw = pass_ms_with(&n.layers[0], CP_PASS_BWD_DATA, CP_PREC_FP16, 32, CP_ALGOS_PYTORCH, NULL, 0);
    double dw32_nchw = pass_ms_with(&n.layers[0], CP_PASS_BWD_DATA, CP_PREC_FP32, 32, CP_ALGOS_PYTORCH, NULL, 0);
    channels_last = true;
    double dw_cl = pass_ms_with(&n.layers[0], CP_PASS_BWD_DATA, CP_PREC_FP16, 32, CP_ALGOS_PYTORCH, NULL, 0);
    /* and in FP32 (chlast31: all 17 of MobileNet-v2's on NHWC kernels, none between transposes) */
    double dw32_cl = pass_ms_with(&n.layers[0], CP_PASS_BWD_DATA, CP_PREC_FP32, 32, CP_ALGOS_PYTORCH, names,
                                  sizeof names);
    assert_int_equal(count_of(names, "_to_"), 0);
    channels_last = false;
    cp_network_free(&n);
    assert_true(dw_cl < dw_nchw / 2);
    assert_true(dw32_cl < dw32_nchw / 2);
    /* a channels-last FP32 1x1 layer's weight gradient (an implicit GEMM) reads NHWC as it is; its forward and
     * data gradient run between transposes (chlast31: wgrad_alg0_engine_NHWC and the indexed NHWC wgrad) */
    channels_last = true;
    for (int p = CP_PASS_FWD; p <= CP_PASS_BWD_WEIGHT; p++) {
        conv_pass(96, 56, 576, 1, 1, CP_PREC_FP32, (cp_pass)p, 32, names, sizeof names);
        assert_int_equal(count_of(names, "_to_"), p == CP_PASS_BWD_WEIGHT ? 0 : 2);
    }
    channels_last = false;
    /* FP32 grouped layers (ResNeXt's 32 groups) run one dense convolution per group; the channels-last
     * tensor is transposed once, whole, not group by group */
    one_layer(&n, 128, 28, "{\"name\": \"g\", \"kind\": \"conv\", \"out\": 128, \"kernel\": 3, \"pad\": 1, "
                           "\"groups\": 32, \"bias\": false}");
    channels_last = true;
    cp_kernel k[MAXK];
    int nk = layer_kernels(&n.layers[0], CP_PASS_FWD, CP_PREC_FP32, 32, CP_ALGOS_PYTORCH, k);
    channels_last = false;
    cp_network_free(&n);
    int in = 0, back = 0;
    for (int i = 0; i < nk; i++) {
        in += strcmp(k[i].name, "nhwc_to_nchw") == 0 && k[i].repeat == 1;
        back += strcmp(k[i].name, "nchw_to_nhwc") == 0 && k[i].repeat == 1;
        assert_true(k[i].repeat == 1 || strstr(k[i].name, "_to_") == NULL);
    }
    assert_int_equal(in, 1);
    assert_int_equal(back, 1);
}

/* Channels-last average pooling runs PyTorch's NHWC kernels, bound by their
 * index arithmetic (chlast29's traces, b32 FP16): Inception-v3's 3x3/1 over
 * 192x35x35 169 us forward, 260 backward; DenseNet-121's 2x2/2 over
 * 128x56x56 68 and 235. NCHW keeps cuDNN's kernels. */
static void test_channels_last_avgpool(void **state)
{
    (void)state;
    static const struct {
        int c, hw;
        const char *layer;
        double fwd_us, bwd_us;
    } cases[] = {
        {192, 35, "{\"name\": \"p\", \"kind\": \"avgpool\", \"kernel\": 3, \"stride\": 1, \"pad\": 1}", 169.2, 259.7},
        {128, 56, "{\"name\": \"p\", \"kind\": \"avgpool\", \"kernel\": 2, \"stride\": 2}", 67.7, 235.3},
    };
    char names[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cp_network n;
        one_layer(&n, cases[i].c, cases[i].hw, cases[i].layer);
        channels_last = true;
        double fwd = pass_ms(&n.layers[0], CP_PASS_FWD, CP_PREC_FP16, 32, names, sizeof names) * 1e3;
        assert_non_null(strstr(names, "avgpool_fwd_nhwc"));
        double bwd = pass_ms(&n.layers[0], CP_PASS_BWD_DATA, CP_PREC_FP16, 32, names, sizeof names) * 1e3;
        assert_non_null(strstr(names, "avgpool_bwd_nhwc"));
        channels_last = false;
        pass_ms(&n.layers[0], CP_PASS_FWD, CP_PREC_FP16, 32, names, sizeof names);
        assert_null(strstr(names, "nhwc"));
        cp_network_free(&n);
        if (fabs(fwd / cases[i].fwd_us - 1) > 0.15 || fabs(bwd / cases[i].bwd_us - 1) > 0.15)
            fail_msg("case %zu: %.1f us forward, %.1f backward; traced %.1f and %.1f", i, fwd, bwd, cases[i].fwd_us,
                     cases[i].bwd_us);
    }
}

static bool has_kernel(const cp_kernel *k, int nk, const char *name)
{
    for (int i = 0; i < nk; i++)
        if (strcmp(k[i].name, name) == 0)
            return true;
    return false;
}

/* Rule 20b (docs/ACCURACY.md session 46): 16-bit, power-of-two groups; both APIs and cuDNN's transposes since
 * rules 46 and 47 (session 63) */
static void test_packed_grouped(void **state)
{
    (void)state;
    cp_network g4, g8, g6;
    /* 4 channels a group on 48x48 and 8 on 24x24: the same multiply-adds, twice the output elements */
    one_conv3x3(&g4, 128, 48, 128, 32);
    one_conv3x3(&g8, 256, 24, 256, 32);
    one_conv3x3(&g6, 192, 40, 192, 32);
    static const char *const names[] = {"grouped_fprop", "grouped_dgrad", "grouped_wgrad"};
    for (int p = CP_PASS_FWD; p <= CP_PASS_BWD_WEIGHT; p++) {
        cp_pass pass = (cp_pass)p;
        cp_kernel k[MAXK];
        int nk = layer_kernels(&g4.layers[0], pass, CP_PREC_FP16, 64, CP_ALGOS_PYTORCH, k);
        assert_true(has_kernel(k, nk, names[p]) && has_kernel(k, nk, "nchw_to_nhwc"));
        /* the legacy API runs the same kernels in the same time (rule 46); FP32 and 6-channel groups keep the
         * grouped GEMM of their class */
        nk = layer_kernels(&g4.layers[0], pass, CP_PREC_FP16, 64, CP_ALGOS_FIND, k);
        assert_true(has_kernel(k, nk, names[p]) && has_kernel(k, nk, "nchw_to_nhwc"));
        assert_true(pass_ms_with(&g4.layers[0], pass, CP_PREC_FP16, 64, CP_ALGOS_FIND, NULL, 0) ==
                    pass_ms_with(&g4.layers[0], pass, CP_PREC_FP16, 64, CP_ALGOS_PYTORCH, NULL, 0));
        nk = layer_kernels(&g4.layers[0], pass, CP_PREC_FP32, 64, CP_ALGOS_FIND, k);
        assert_false(has_kernel(k, nk, names[p]));
        /* its NCHW transposes at cuDNN's rate (rule 47): more DRAM traffic than the bytes they move */
        nk = layer_kernels(&g4.layers[0], pass, CP_PREC_FP16, 64, CP_ALGOS_PYTORCH, k);
        double moved = 2.0 * 64 * 128 * 48 * 48 * 2; /* an activation read and written once, 2-byte elements */
        for (int i = 0; i < nk; i++) {
            double f = k[i].dram_bytes / moved;
            if ((strcmp(k[i].name, "nchw_to_nhwc") == 0 && !(f > 1.2 && f < 1.3)) ||
                (strcmp(k[i].name, "nhwc_to_nchw") == 0 && !(f > 1.4 && f < 1.5)))
                fail_msg("pass %d: %s moves %.2fx its bytes in DRAM traffic", p, k[i].name, f);
        }
        nk = layer_kernels(&g6.layers[0], pass, CP_PREC_FP16, 64, CP_ALGOS_PYTORCH, k);
        assert_false(has_kernel(k, nk, names[p]));
        /* channels-last: the packed kernel alone; its time follows the outputs */
        channels_last = true;
        nk = layer_kernels(&g4.layers[0], pass, CP_PREC_FP16, 256, CP_ALGOS_PYTORCH, k);
        assert_int_equal(nk, 1);
        double t4 = pass_ms_with(&g4.layers[0], pass, CP_PREC_FP16, 256, CP_ALGOS_PYTORCH, NULL, 0);
        double t8 = pass_ms_with(&g8.layers[0], pass, CP_PREC_FP16, 256, CP_ALGOS_PYTORCH, NULL, 0);
        channels_last = false;
        if (!(t4 > 1.7 * t8 && t4 < 2.3 * t8))
            fail_msg("pass %d: 4 channels a group %g ms, 8 channels %g ms: not about twice", p, t4, t8);
    }
    cp_network_free(&g4);
    cp_network_free(&g8);
    cp_network_free(&g6);
}

/* Rule 48 (docs/ACCURACY.md session 63): a stride-2 3x3 packed data gradient gives every input pixel the most taps
 * a phase takes, 2 x 2, not the 9/4 average: 4 x 4 = 16 taps per output element against the forward's 9 */
static void test_packed_grouped_strided_dgrad(void **state)
{
    (void)state;
    cp_network s2;
    one_layer(&s2, 256, 48,
              "{\"name\": \"c\", \"kind\": \"conv\", \"out\": 256, \"kernel\": 3, \"stride\": 2, \"pad\": 1, "
              "\"groups\": 32, \"bias\": false}");
    channels_last = true; /* the packed kernel alone */
    cp_kernel f[MAXK], d[MAXK];
    int nf = layer_kernels(&s2.layers[0], CP_PASS_FWD, CP_PREC_FP16, 256, CP_ALGOS_PYTORCH, f);
    int nd = layer_kernels(&s2.layers[0], CP_PASS_BWD_DATA, CP_PREC_FP16, 256, CP_ALGOS_PYTORCH, d);
    channels_last = false;
    assert_int_equal(nf, 1);
    assert_int_equal(nd, 1);
    /* the L2 operand loads of all blocks, per tap counted: 3.25 / 3.22 bytes an element and tap (GROUPED16_L2_BYTES) */
    double ratio = (d[0].I * (double)d[0].blocks) / (f[0].I * (double)f[0].blocks) * 3.22 / 3.25;
    if (fabs(ratio - 16.0 / 9.0) > 0.01)
        fail_msg("strided data gradient's loads %.3fx the forward's, not 16/9", ratio);
    cp_network_free(&s2);
}

/* Rule 21 (docs/ACCURACY.md session 47): PyTorch's path copies x and dy to NHWC for a 16-bit 1x1 weight gradient
 * of more than 512 x 256 channels, even on a plane it could read as NCHW; not at 512 x 256, not the other passes,
 * not the legacy API's */
/* The algorithm predict reports for a convolution pass, from its kernels' names: a pass's transposes and
 * accumulations do not name it, its main kernels do (what tools/conv_candidates.py --model compares). */
static void test_conv_pass_algorithm(void **state)
{
    (void)state;
    cp_kernel k[3];
    memset(k, 0, sizeof k);
    k[0].name = "nchw_to_nhwc";
    k[1].name = "conv_fprop";
    k[2].name = "nhwc_to_nchw";
    assert_string_equal(cp_conv_pass_algorithm(k, 3), "implicit_gemm");
    k[1].name = "winograd_gemm";
    assert_string_equal(cp_conv_pass_algorithm(k, 3), "winograd");
    k[1].name = "fft_cgemm";
    assert_string_equal(cp_conv_pass_algorithm(k, 3), "fft");
    k[1].name = "wgrad_engine_32x32_rs";
    assert_string_equal(cp_conv_pass_algorithm(k, 3), "wgrad_engine");
    k[1].name = "conv_direct_wgrad";
    assert_string_equal(cp_conv_pass_algorithm(k, 3), "direct");
    assert_string_equal(cp_conv_pass_algorithm(k, 1), "other");
    /* and on a real network: DenseNet-121's 28x28 3x3 forward is FFT in the model, as cuDNN's engine 3 runs it */
    cp_network net;
    cp_error err;
    if (cp_network_load("densenet121", &net, &err))
        fail_msg("%s", err.msg);
    cp_prediction p;
    memset(&p, 0, sizeof p);
    if (cp_predict_with(&net, &h100, 64, CP_PREC_FP32, CP_ALGOS_PYTORCH, &p, &err))
        fail_msg("%s", err.msg);
    int i = cp_network_find(&net, "denseblock2.0.conv2");
    assert_true(i >= 0);
    assert_string_equal(p.layers[i].algorithm[CP_PASS_FWD], "fft");
    assert_null(p.layers[i].algorithm[CP_PASS_UPDATE]);
    assert_null(p.layers[cp_network_find(&net, "denseblock2.0.norm1")].algorithm[CP_PASS_FWD]);
    cp_prediction_free(&p);
    cp_network_free(&net);
}

/* Which layout copies a 1x1 pass runs at b128: 1 copies in (nchw_to_nhwc), 2
 * writes back (nhwc_to_nchw). */
static int nhwc_copies(const cp_layer *l, cp_pass pass, cp_precision prec, cp_algos algos)
{
    cp_kernel k[MAXK];
    int nk = layer_kernels(l, pass, prec, 128, algos, k);
    return has_kernel(k, nk, "nchw_to_nhwc") | 2 * has_kernel(k, nk, "nhwc_to_nchw");
}

static void test_wgrad_1x1_nhwc(void **state)
{
    (void)state;
    cp_network big, edge;
    one_conv(&big, 1024, 12, 512, 1, 1);
    one_conv(&edge, 512, 24, 256, 1, 1);
    const cp_layer *wide = &big.layers[0], *narrow = &edge.layers[0];
    cp_kernel k[MAXK];
    int nk = layer_kernels(wide, CP_PASS_BWD_WEIGHT, CP_PREC_FP16, 128, CP_ALGOS_PYTORCH, k);
    assert_int_equal(nk, 3); /* x and dy copied, the GEMM; nothing written back */
    assert_int_equal(nhwc_copies(wide, CP_PASS_BWD_WEIGHT, CP_PREC_FP16, CP_ALGOS_PYTORCH), 1);
    assert_int_equal(nhwc_copies(wide, CP_PASS_BWD_WEIGHT, CP_PREC_BF16, CP_ALGOS_PYTORCH), 1);
    assert_int_equal(nhwc_copies(narrow, CP_PASS_BWD_WEIGHT, CP_PREC_FP16, CP_ALGOS_PYTORCH), 0);
    assert_int_equal(nhwc_copies(wide, CP_PASS_FWD, CP_PREC_FP16, CP_ALGOS_PYTORCH), 0);
    assert_int_equal(nhwc_copies(wide, CP_PASS_BWD_DATA, CP_PREC_FP16, CP_ALGOS_PYTORCH), 0);
    assert_int_equal(nhwc_copies(wide, CP_PASS_BWD_WEIGHT, CP_PREC_FP16, CP_ALGOS_FIND), 0);
    /* channels-last tensors need no copies */
    channels_last = true;
    assert_int_equal(nhwc_copies(wide, CP_PASS_BWD_WEIGHT, CP_PREC_FP16, CP_ALGOS_PYTORCH), 0);
    channels_last = false;
    /* TF32 (rules 42 and 43), in every API: the copies each pass runs, by
     * layer (y and dx written back where the forward and data gradient run
     * between copies) */
    cp_network mid_net;
    one_conv(&mid_net, 1024, 12, 256, 1, 1);
    const struct {
        const char *what;
        const cp_layer *l;
        int copies[CP_PASS_UPDATE];
    } tf32[] = {
        {"524,288 pairs", wide, {[CP_PASS_FWD] = 3, [CP_PASS_BWD_DATA] = 3, [CP_PASS_BWD_WEIGHT] = 1}},
        {"262,144 pairs", &mid_net.layers[0], {[CP_PASS_FWD] = 3, [CP_PASS_BWD_DATA] = 0, [CP_PASS_BWD_WEIGHT] = 1}},
        {"131,072 pairs", narrow, {0, 0, 0}},
    };
    for (int a = 0; a < 2; a++)
        for (size_t i = 0; i < sizeof tf32 / sizeof tf32[0]; i++)
            for (int p = CP_PASS_FWD; p <= CP_PASS_BWD_WEIGHT; p++) {
                int got = nhwc_copies(tf32[i].l, (cp_pass)p, CP_PREC_TF32, a ? CP_ALGOS_PYTORCH : CP_ALGOS_FIND);
                if (got != tf32[i].copies[p])
                    fail_msg("TF32 1x1 of %s, pass %d, %s: copies %d, expected %d", tf32[i].what, p,
                             a ? "PyTorch's algorithms" : "cudnnFind's", got, tf32[i].copies[p]);
            }
    cp_network_free(&big);
    cp_network_free(&mid_net);
    cp_network_free(&edge);
}

static void test_grouped_conv(void **state)
{
    (void)state;
    cp_network grouped, dense, dw;
    /* 192 channels in 32 groups, and one group of it alone (6 -> 6) */
    one_conv3x3(&grouped, 192, 40, 192, 32);
    one_conv3x3(&dense, 6, 40, 6, 1);
    one_conv3x3(&dw, 192, 40, 192, 192);
    for (int p = CP_PASS_FWD; p <= CP_PASS_BWD_WEIGHT; p++) {
        cp_pass pass = (cp_pass)p;
        cp_kernel k[MAXK];
        /* FP32: every kernel launched once per group, 32 times the group's own
         * dense convolution (its algorithm as cudnnFind would pick it) */
        int nk = layer_kernels(&grouped.layers[0], pass, CP_PREC_FP32, 64, CP_ALGOS_PYTORCH, k);
        assert_true(nk > 0);
        for (int i = 0; i < nk; i++)
            assert_true(cp_kernel_launches(&k[i]) == 32);
        double g = pass_ms_with(&grouped.layers[0], pass, CP_PREC_FP32, 64, CP_ALGOS_PYTORCH, NULL, 0);
        double one = pass_ms_with(&dense.layers[0], pass, CP_PREC_FP32, 64, CP_ALGOS_FIND, NULL, 0);
        assert_true(fabs(g - 32 * one) <= 1e-9 * g);
        /* 16 bits: one launch, between NHWC transposes */
        nk = layer_kernels(&grouped.layers[0], pass, CP_PREC_FP16, 64, CP_ALGOS_PYTORCH, k);
        assert_true(has_kernel(k, nk, "nchw_to_nhwc"));
        for (int i = 0; i < nk; i++)
            assert_true(cp_kernel_launches(&k[i]) == 1);
        /* depthwise: cuDNN's direct kernel, once, in either precision */
        static const cp_precision precs[] = {CP_PREC_FP32, CP_PREC_FP16};
        for (size_t i = 0; i < sizeof precs / sizeof precs[0]; i++) {
            nk = layer_kernels(&dw.layers[0], pass, precs[i], 64, CP_ALGOS_PYTORCH, k);
            assert_int_equal(nk, 1);
            assert_true(strncmp(k[0].name, "conv_direct", 11) == 0 && cp_kernel_launches(&k[0]) == 1);
        }
    }
    cp_network_free(&grouped);
    cp_network_free(&dense);
    cp_network_free(&dw);
}

/* cuDNN's depthwise engine 0 (FP32) is bound by its latency per output and
 * tap: a 5x5 forward takes about 25/9 of a 3x3 one on the same plane (0.87
 * and 0.98-1.07 ps per output and tap, MNASNet and MobileNet-v2 on the H100),
 * and a strided data gradient visits every tap of every input pixel, as
 * long as the stride-1 one over the same input (1.42 and 1.46 ps). */
static void test_depthwise_taps(void **state)
{
    (void)state;
    cp_network k3, k5, s2;
    one_layer(&k3, 240, 28, "{\"name\": \"c\", \"kind\": \"conv\", \"out\": 240, \"kernel\": 3, \"pad\": 1, "
                            "\"groups\": 240, \"bias\": false}");
    one_layer(&k5, 240, 28, "{\"name\": \"c\", \"kind\": \"conv\", \"out\": 240, \"kernel\": 5, \"pad\": 2, "
                            "\"groups\": 240, \"bias\": false}");
    one_layer(&s2, 240, 28, "{\"name\": \"c\", \"kind\": \"conv\", \"out\": 240, \"kernel\": 3, \"pad\": 1, "
                            "\"stride\": 2, \"groups\": 240, \"bias\": false}");
    double f3 = pass_ms_with(&k3.layers[0], CP_PASS_FWD, CP_PREC_FP32, 64, CP_ALGOS_PYTORCH, NULL, 0);
    double f5 = pass_ms_with(&k5.layers[0], CP_PASS_FWD, CP_PREC_FP32, 64, CP_ALGOS_PYTORCH, NULL, 0);
    assert_true(f5 / f3 > 2.2 && f5 / f3 < 25.0 / 9 * 1.05);
    double d1 = pass_ms_with(&k3.layers[0], CP_PASS_BWD_DATA, CP_PREC_FP32, 64, CP_ALGOS_PYTORCH, NULL, 0);
    double d2 = pass_ms_with(&s2.layers[0], CP_PASS_BWD_DATA, CP_PREC_FP32, 64, CP_ALGOS_PYTORCH, NULL, 0);
    assert_true(d2 > 0.9 * d1 && d2 < 1.1 * d1);
    cp_network_free(&k3);
    cp_network_free(&k5);
    cp_network_free(&s2);
}

static void test_fft_tiling(void **state)
{
    (void)state;
    char names[512];
    double peak = cp_device_peak_flops(&h100, CP_PREC_FP32);
    for (int p = CP_PASS_FWD; p <= CP_PASS_BWD_WEIGHT; p++) {
        /* AlexNet's second convolution, batch 256: 114.7 GFLOP counted directly */
        double t = conv_pass(64, 27, 192, 5, 1, CP_PREC_FP32, (cp_pass)p, 256, names, sizeof names);
        assert_non_null(strstr(names, "fft_gemm"));
        assert_true(t * 1e-3 < 114.7e9 / peak);
        /* no FFT: 16 bits (tensor cores), a stride, a 3x3 filter (Winograd's) */
        conv_pass(64, 27, 192, 5, 1, CP_PREC_FP16, (cp_pass)p, 256, names, sizeof names);
        assert_null(strstr(names, "fft_"));
        conv_pass(64, 27, 192, 5, 2, CP_PREC_FP32, (cp_pass)p, 256, names, sizeof names);
        assert_null(strstr(names, "fft_"));
        conv_pass(64, 27, 192, 3, 1, CP_PREC_FP32, (cp_pass)p, 256, names, sizeof names);
        assert_null(strstr(names, "fft_"));
    }
}

/* PyTorch's data gradient on a plane larger than one 32x32 tile goes tile
 * position by position (engine 50): the 64 -> 64 layer on 200x200 at b32
 * under Nsight Compute ran 49 positions, each an r2c, a complex GEMM and a
 * c2r, after one transform of the filters (validation/layerbench-h100/
 * graph-3x3/); cudnnFind's FFT_TILING is timed over the whole batch at once. */
static void test_fft_by_position(void **state)
{
    (void)state;
    cp_network n;
    one_layer(&n, 64, 200, "{\"name\": \"c\", \"kind\": \"conv\", \"out\": 64, \"kernel\": 3, \"pad\": 1, \"bias\": false}");
    cp_kernel k[MAXK];
    int nk = layer_kernels(&n.layers[0], CP_PASS_BWD_DATA, CP_PREC_FP32, 32, CP_ALGOS_PYTORCH, k);
    assert_int_equal(nk, 4);
    assert_string_equal(k[0].name, "fft_filter");
    assert_true(cp_kernel_launches(&k[0]) == 1);
    for (int i = 1; i < 4; i++)
        assert_true(cp_kernel_launches(&k[i]) == 49); /* 7 x 7 positions of 30 outputs */
    assert_string_equal(k[1].name, "fft_input");
    assert_int_equal(k[1].blocks, 32 * 64 / 16); /* 16 transforms a block */
    assert_string_equal(k[2].name, "fft_cgemm");
    assert_true(k[2].tile_m <= 64); /* M is the batch's 32 images */
    /* below 27x27 PyTorch's path has no FFT data gradient (engines 1, 25 and 74 on
     * every 7x7 to 17x17 plane of the calibration set's graph-API runs) */
    for (int hw = 7; hw <= 17; hw++) {
        cp_network tiny;
        one_layer(&tiny, 512, hw, "{\"name\": \"c\", \"kind\": \"conv\", \"out\": 512, \"kernel\": 3, \"pad\": 1, \"bias\": false}");
        char names[256];
        pass_ms_with(&tiny.layers[0], CP_PASS_BWD_DATA, CP_PREC_FP32, 256, CP_ALGOS_PYTORCH, names, sizeof names);
        assert_null(strstr(names, "fft_"));
        cp_network_free(&tiny);
    }
    /* a 28x28 plane is one position */
    cp_network small;
    one_layer(&small, 64, 28, "{\"name\": \"c\", \"kind\": \"conv\", \"out\": 64, \"kernel\": 3, \"pad\": 1, \"bias\": false}");
    nk = layer_kernels(&small.layers[0], CP_PASS_BWD_DATA, CP_PREC_FP32, 32, CP_ALGOS_PYTORCH, k);
    for (int i = 0; i < nk; i++)
        assert_true(cp_kernel_launches(&k[i]) == 1);
    cp_network_free(&small);
    cp_network_free(&n);
}

/* PyTorch's FP32 forward of a 3x3 convolution (pad 1) of c channels on an
 * hw x hw plane into `out`, its kernels' names in names. */
static double torch_3x3_forward(int c, int hw, int out, int batch, char *names, size_t cap)
{
    char layer[160];
    snprintf(layer, sizeof layer,
             "{\"name\": \"c\", \"kind\": \"conv\", \"out\": %d, \"kernel\": 3, \"pad\": 1, \"bias\": false}", out);
    cp_network n;
    one_layer(&n, c, hw, layer);
    double t = pass_ms_with(&n.layers[0], CP_PASS_FWD, CP_PREC_FP32, batch, CP_ALGOS_PYTORCH, names, cap);
    cp_network_free(&n);
    return t;
}

/* Plain FFT transforms a whole padded plane at the smallest power of two
 * from 16 that holds it: the graph API's forward engine 3 on the 512 -> 512
 * 12x12 layer microbenchmark at b64 ran 16x16 transforms and took 721 us
 * (validation/layerbench-h100/graph-3x3/). Its filter transform does not
 * grow with the batch, and per image it does a third of the direct sum's
 * multiply-adds, so the pass grows far slower than the batch; FFT_TILING's
 * 32x32 tiles would have four times the bins on such a plane. */
static void test_fft_whole_plane(void **state)
{
    (void)state;
    char names[512];
    double t = torch_3x3_forward(512, 12, 512, 64, names, sizeof names);
    print_message("FP32 3x3 forward 512 -> 512, 12x12, b64 (PyTorch): %s= %.3f ms (measured 0.721)\n", names, t);
    assert_non_null(strstr(names, "fft_gemm"));
    assert_true(t > 0.5 * 0.721 && t < 1.3 * 0.721);
    double b32 = torch_3x3_forward(256, 14, 256, 32, NULL, 0);
    double b256 = torch_3x3_forward(256, 14, 256, 256, names, sizeof names);
    print_message("FP32 3x3 forward 256 -> 256, 14x14 (PyTorch): b32 %.3f ms, b256 %.3f ms = %.2fx; %s\n", b32, b256,
                  b256 / b32, names);
    assert_non_null(strstr(names, "fft_gemm"));
    assert_true(b256 / b32 < 6.0);
}

/* PyTorch's FP32 forward runs cuDNN's NCHW xmma implicit GEMM, whose
 * smallest tile is 32x32 of 64 threads at 2.2 instructions per FFMA: on a
 * 7x7 plane (ResNet-18's 512 -> 512 layers at b32, the calibration set:
 * 232 us measured through the graph API on the H100, validation/h100/
 * graph-api/resnet18-b32-fp32-graphapi.json) it fills the GPU at under half
 * the FMA peak, where a 56x56 plane's 256x64 tile reaches 0.7. */
static void test_xmma_forward(void **state)
{
    (void)state;
    char names[512];
    double t = torch_3x3_forward(512, 7, 512, 32, names, sizeof names);
    double peak = cp_device_peak_flops(&h100, CP_PREC_FP32), small = 2.0 * 512 * 512 * 9 * 49 * 32 / (t * 1e-3) / peak;
    print_message("FP32 3x3 forward 512 -> 512, 7x7, b32 (PyTorch): %s= %.3f ms (measured 0.232), %.2f of peak\n",
                  names, t, small);
    assert_non_null(strstr(names, "xmma_fprop_nchw"));
    assert_true(t > 0.7 * 0.232 && t < 1.3 * 0.232);
    t = torch_3x3_forward(256, 56, 256, 32, names, sizeof names);
    double large = 2.0 * 256 * 256 * 9 * 3136 * 32 / (t * 1e-3) / peak;
    print_message("FP32 3x3 forward 256 -> 256, 56x56, b32 (PyTorch): %s= %.3f ms, %.2f of peak\n", names, t, large);
    assert_non_null(strstr(names, "xmma_fprop_nchw"));
    assert_true(small < 0.5 && large > 0.6);
}

/* cudnnFind's FP32 3x3 convolutions with stride 2 run cuDNN's own implicit
 * GEMMs (layers/conv.c, xmma_nchw), the kernels PyTorch's path runs: ResNet-50's
 * layer3.0.conv2 (256 -> 256, 28x28 -> 14x14, b64) took 548 us forward and
 * 556 us for the data gradient on the H100, 3x what its stride-1
 * neighbours, the same FLOPs through Winograd, took (181 and 179). */
static double conv3x3_pass(int c, int hw, int stride, cp_pass pass, cp_algos algos, char *names, size_t cap)
{
    char layer[160];
    snprintf(layer, sizeof layer,
             "{\"name\": \"c\", \"kind\": \"conv\", \"out\": %d, \"kernel\": 3, \"stride\": %d, \"pad\": 1, "
             "\"bias\": false}",
             c, stride);
    cp_network n;
    one_layer(&n, c, hw, layer);
    double t = pass_ms_with(&n.layers[0], pass, CP_PREC_FP32, 64, algos, names, cap);
    cp_network_free(&n);
    return t;
}

static void test_strided_legacy_gemm(void **state)
{
    (void)state;
    char names[512], torch[512];
    for (int p = 0; p < 2; p++) {
        cp_pass pass = p ? CP_PASS_BWD_DATA : CP_PASS_FWD;
        double strided = conv3x3_pass(256, 28, 2, pass, CP_ALGOS_FIND, names, sizeof names);
        double same = conv3x3_pass(256, 28, 2, pass, CP_ALGOS_PYTORCH, torch, sizeof torch);
        double unstrided = conv3x3_pass(256, 14, 1, pass, CP_ALGOS_FIND, NULL, 0);
        print_message("FP32 3x3 %s 256 -> 256, 28x28 stride 2, b64 (cudnnFind): %s= %.3f ms; stride 1 on 14x14 "
                      "%.3f ms\n", p ? "data gradient" : "forward", names, strided, unstrided);
        assert_non_null(strstr(names, p ? "xmma_dgrad_nchw" : "xmma_fprop_nchw"));
        assert_string_equal(names, torch);
        assert_true(strided - same < 1e-9 && same - strided < 1e-9);
        assert_true(strided > 1.2 * unstrided);
    }
}

static double pool_pass(int c, int hw, int k, int stride, cp_precision prec, int batch, cp_pass pass, char *names,
                        size_t cap)
{
    char layer[160];
    snprintf(layer, sizeof layer,
             "{\"name\": \"p\", \"kind\": \"maxpool\", \"kernel\": %d, \"stride\": %d, \"pad\": %d}", k, stride,
             stride == 1 ? k / 2 : 0);
    cp_network n;
    one_layer(&n, c, hw, layer);
    double t = pass_ms(&n.layers[0], pass, prec, batch, names, cap);
    cp_network_free(&n);
    return t;
}

static double pool_fwd(int c, int hw, int k, int stride, cp_precision prec, int batch)
{
    return pool_pass(c, hw, k, stride, prec, batch, CP_PASS_FWD, NULL, 0);
}

static void test_pool_forward(void **state)
{
    (void)state;
    /* VGG-11's pool1 at batch 128: 102.8 M outputs of 2x2 windows (measured 638 us fp16, 763 fp32) */
    double h = pool_fwd(64, 224, 2, 2, CP_PREC_FP16, 128), f = pool_fwd(64, 224, 2, 2, CP_PREC_FP32, 128);
    print_message("2x2 max pool, 102.8 M outputs: %.0f us fp16, %.0f us fp32\n", h * 1e3, f * 1e3);
    assert_true(h > 0.8 * f && h <= f);
    assert_true(h * 1e3 > 500 && h * 1e3 < 800);
    /* the same outputs from 3x3 windows (stride 2 over a 225x225 plane): longer */
    double w3 = pool_fwd(64, 225, 3, 2, CP_PREC_FP16, 128);
    assert_true(w3 > 1.3 * h);
}

/* A concat runs one strided copy per input (cnnperf-measure's
 * cudaMemcpy2DAsync, as GoogLeNet's four-way joins measured at 1.3-1.9x one
 * copy): as many kernels as inputs, moving the output's bytes between them,
 * and each pays its own launch, so four inputs take longer than two of the
 * same total size. */
static double concat_ms(const char *layers, int *nk)
{
    cp_network n;
    one_layer(&n, 64, 28, layers);
    const cp_layer *l = &n.layers[n.n_layers - 1];
    cp_kernel k[MAXK];
    *nk = layer_kernels(l, CP_PASS_FWD, CP_PREC_FP32, 32, CP_ALGOS_FIND, k);
    double bytes = 0;
    for (int i = 0; i < *nk; i++)
        bytes += k[i].dram_bytes;
    assert_float_equal(bytes, 2 * 32.0 * cp_shape_elems(l->out) * 4, 1);
    cp_kernel back[MAXK];
    assert_int_equal(layer_kernels(l, CP_PASS_BWD_DATA, CP_PREC_FP32, 32, CP_ALGOS_FIND, back), *nk);
    double t = pass_ms(l, CP_PASS_FWD, CP_PREC_FP32, 32, NULL, 0);
    cp_network_free(&n);
    return t;
}

static void test_concat_copies(void **state)
{
    (void)state;
    int n4, n2;
    double four = concat_ms("{\"name\": \"a\", \"kind\": \"relu\", \"inputs\": [\"@in\"]}, "
                            "{\"name\": \"b\", \"kind\": \"relu\", \"inputs\": [\"@in\"]}, "
                            "{\"name\": \"c\", \"kind\": \"relu\", \"inputs\": [\"@in\"]}, "
                            "{\"name\": \"d\", \"kind\": \"relu\", \"inputs\": [\"@in\"]}, "
                            "{\"name\": \"j\", \"kind\": \"concat\", \"inputs\": [\"a\", \"b\", \"c\", \"d\"]}",
                            &n4);
    double two = concat_ms("{\"name\": \"a\", \"kind\": \"conv\", \"out\": 128, \"kernel\": 1}, "
                           "{\"name\": \"b\", \"kind\": \"conv\", \"out\": 128, \"kernel\": 1, \"inputs\": [\"@in\"]}, "
                           "{\"name\": \"j\", \"kind\": \"concat\", \"inputs\": [\"a\", \"b\"]}",
                           &n2);
    print_message("concat of 256 x 28 x 28, batch 32: 4 inputs %.1f us, 2 inputs %.1f us\n", four * 1e3, two * 1e3);
    assert_int_equal(n4, 4);
    assert_int_equal(n2, 2);
    assert_true(four > two);
}

/* PyTorch's path into cuDNN reaches no Winograd engine and tiles 3x3
 * filters by FFT too (torch.profiler, validation/h100/ncu/
 * kernels-torch-networks-h100.json.xz); cudnnFind over the legacy API picks
 * Winograd for such layers. */
static void conv_algos_names(cp_algos algos, char *names, size_t cap)
{
    cp_network n;
    one_layer(&n, 256, 56,
              "{\"name\": \"c\", \"kind\": \"conv\", \"out\": 256, \"kernel\": 3, \"pad\": 1, \"bias\": false}");
    pass_ms_with(&n.layers[0], CP_PASS_FWD, CP_PREC_FP32, 32, algos, names, cap);
    cp_network_free(&n);
}

static void test_conv_algorithm_sets(void **state)
{
    (void)state;
    char find[512], torch[512];
    conv_algos_names(CP_ALGOS_FIND, find, sizeof find);
    conv_algos_names(CP_ALGOS_PYTORCH, torch, sizeof torch);
    print_message("FP32 3x3, 256 channels, 56x56, b32: cudnnFind %s| PyTorch %s\n", find, torch);
    assert_non_null(strstr(find, "winograd"));
    assert_null(strstr(torch, "winograd"));
}

/* The FP32 3x3 weight gradient (layers/conv.c, WINOGRAD_WGRAD_MIN_*), with
 * either algorithm set: Winograd or cuDNN's own weight-gradient kernels
 * where both sides have 48 channels or more and the plane is 13x13 or
 * larger, never the split-K GEMM (the layer microbenchmark 64 -> 64 on
 * 100x100 at b64 measured 1.79 ms through the graph API; the GEMM had
 * timed it at 0.86); with 32 output channels or on 7x7, the GEMM. */
static void wgrad_names_b(cp_algos algos, int cin, int hw, int cout, int batch, char *names, size_t cap, double *ms)
{
    char layer[160];
    snprintf(layer, sizeof layer,
             "{\"name\": \"c\", \"kind\": \"conv\", \"out\": %d, \"kernel\": 3, \"pad\": 1, \"bias\": false}",
             cout);
    cp_network n;
    one_layer(&n, cin, hw, layer);
    *ms = pass_ms_with(&n.layers[0], CP_PASS_BWD_WEIGHT, CP_PREC_FP32, batch, algos, names, cap);
    cp_network_free(&n);
}

static void wgrad_names(cp_algos algos, int cin, int hw, int cout, char *names, size_t cap, double *ms)
{
    wgrad_names_b(algos, cin, hw, cout, 64, names, cap, ms);
}

static void test_3x3_weight_gradient(void **state)
{
    (void)state;
    char names[512];
    double ms;
    for (int a = 0; a < 2; a++) {
        cp_algos algos = a ? CP_ALGOS_PYTORCH : CP_ALGOS_FIND;
        wgrad_names(algos, 64, 100, 64, names, sizeof names, &ms);
        print_message("FP32 3x3 wgrad 64 -> 64, 100x100, b64 (%s): %s= %.3f ms (graph API measured 1.793)\n",
                      a ? "PyTorch" : "cudnnFind", names, ms);
        assert_non_null(strstr(names, "winograd_gemm"));
        assert_null(strstr(names, "conv_wgrad"));
        assert_true(ms > 0.7 * 1.793 && ms < 1.3 * 1.793);
        wgrad_names(algos, 128, 50, 32, names, sizeof names, &ms); /* DenseNet-like: other engines */
        assert_non_null(strstr(names, "conv_wgrad"));
        wgrad_names(algos, 512, 7, 512, names, sizeof names, &ms);
        assert_null(strstr(names, "wgrad_engine"));
    }
    /* Winograd only where its transformed tiles fit the workspace: 64 -> 64
     * on 224x224 takes 7057 MiB at b128, 12349 at b224, past
     * cnnperf-measure's 8 GiB, where cuDNN ran another engine (VGG-16,
     * validation/h100/holdout26/; wsbench's layers of our choosing, above
     * and below it, validation/layerbench-h100/wsbench/) */
    workspace_bytes = 8192.0 * 1048576;
    wgrad_names_b(CP_ALGOS_PYTORCH, 64, 224, 64, 128, names, sizeof names, &ms);
    assert_non_null(strstr(names, "winograd_gemm"));
    wgrad_names_b(CP_ALGOS_PYTORCH, 64, 224, 64, 224, names, sizeof names, &ms);
    print_message("FP32 3x3 wgrad 64 -> 64, 224x224, b224, 8 GiB: %s= %.1f ms (graph API engine 1 measured 47.7)\n",
                  names, ms);
    assert_null(strstr(names, "winograd"));
    assert_non_null(strstr(names, "wgrad_engine_32x32_rs"));
    workspace_bytes = 16384.0 * 1048576;
    wgrad_names_b(CP_ALGOS_PYTORCH, 64, 224, 64, 224, names, sizeof names, &ms);
    assert_non_null(strstr(names, "winograd_gemm"));
    workspace_bytes = 0;
}

/* Max-pool backward: a chain of dependent accesses per plane (up to 56x56)
 * or per 5.3 inputs (larger planes), not a stream; 16-bit overlapping
 * windows far slower than fp32, 2x2/2 alike (layer microbenchmarks,
 * validation/layerbench-h100/: 3x3/1 on 256x28x28 at b32 194 us fp16, 71
 * fp32; 2x2/2 on 256x56x56 94 and 115). */
static void test_pool_backward(void **state)
{
    (void)state;
    char names[128];
    double h = pool_pass(256, 28, 3, 1, CP_PREC_FP16, 32, CP_PASS_BWD_DATA, names, sizeof names);
    assert_string_equal(names, "maxpool_bwd_plane ");
    double f = pool_pass(256, 28, 3, 1, CP_PREC_FP32, 32, CP_PASS_BWD_DATA, NULL, 0);
    double h2 = pool_pass(256, 56, 2, 2, CP_PREC_FP16, 32, CP_PASS_BWD_DATA, NULL, 0);
    double f2 = pool_pass(256, 56, 2, 2, CP_PREC_FP32, 32, CP_PASS_BWD_DATA, NULL, 0);
    print_message("max-pool backward: 3x3/1 %.0f us fp16, %.0f fp32; 2x2/2 %.0f, %.0f\n", h * 1e3, f * 1e3, h2 * 1e3,
                  f2 * 1e3);
    assert_true(h > 1.5 * f);
    assert_true(h2 > 0.7 * f2 && h2 < 1.3 * f2);
    assert_true(f * 1e3 > 50 && f * 1e3 < 100);
    pool_pass(64, 112, 3, 2, CP_PREC_FP16, 32, CP_PASS_BWD_DATA, names, sizeof names);
    assert_string_equal(names, "maxpool_bwd ");
}

/* 3-channel convolutions: the FP32 lanes' GEMM in every precision, except
 * FP16 7x7/2 into 64 channels (cuDNN's image-first-layer kernel) and the
 * 16-bit weight gradient (layer microbenchmarks, validation/layerbench-h100/). */
static bool fma_tiles(int c, int k, int stride, int out, cp_precision prec, cp_pass pass)
{
    char layer[160];
    snprintf(layer, sizeof layer,
             "{\"name\": \"c\", \"kind\": \"conv\", \"out\": %d, \"kernel\": %d, \"stride\": %d, \"bias\": false}", out,
             k, stride);
    cp_network n;
    one_layer(&n, c, 224, layer);
    cp_kernel kk[MAXK];
    int nk = layer_kernels(&n.layers[0], pass, prec, 32, CP_ALGOS_FIND, kk);
    bool fma = false, tensor = false;
    for (int i = 0; i < nk; i++)
        if (strncmp(kk[i].name, "conv_", 5) == 0 || strncmp(kk[i].name, "xmma_", 5) == 0)
            *(kk[i].pipe == CP_PIPE_FMA ? &fma : &tensor) = true;
    cp_network_free(&n);
    return fma && !tensor;
}

static void test_conv_three_channels(void **state)
{
    (void)state;
    assert_true(fma_tiles(3, 11, 4, 96, CP_PREC_FP16, CP_PASS_FWD));
    assert_true(fma_tiles(3, 3, 1, 32, CP_PREC_BF16, CP_PASS_FWD));
    assert_true(fma_tiles(3, 7, 2, 64, CP_PREC_TF32, CP_PASS_FWD));
    assert_true(fma_tiles(3, 7, 2, 64, CP_PREC_BF16, CP_PASS_FWD));
    assert_false(fma_tiles(3, 7, 2, 64, CP_PREC_FP16, CP_PASS_FWD));
    assert_true(fma_tiles(3, 7, 2, 96, CP_PREC_FP16, CP_PASS_FWD));
    assert_true(fma_tiles(3, 5, 2, 64, CP_PREC_TF32, CP_PASS_BWD_WEIGHT));
    assert_false(fma_tiles(3, 5, 2, 64, CP_PREC_FP16, CP_PASS_BWD_WEIGHT));
    assert_false(fma_tiles(8, 3, 1, 64, CP_PREC_FP16, CP_PASS_FWD)); /* 8 x 2 B: one whole vector */
    assert_true(fma_tiles(3, 3, 1, 64, CP_PREC_FP32, CP_PASS_FWD));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batchnorm_backward),
        cmocka_unit_test(test_batchnorm_precision),
        cmocka_unit_test(test_batchnorm_kernel_choice),
        cmocka_unit_test(test_conv_layout),
        cmocka_unit_test(test_conv_three_channels),
        cmocka_unit_test(test_conv_algorithm_sets),
        cmocka_unit_test(test_3x3_weight_gradient),
        cmocka_unit_test(test_grouped_conv),
        cmocka_unit_test(test_packed_grouped),
        cmocka_unit_test(test_packed_grouped_strided_dgrad),
        cmocka_unit_test(test_wgrad_1x1_nhwc),
        cmocka_unit_test(test_conv_pass_algorithm),
        cmocka_unit_test(test_depthwise_taps),
        cmocka_unit_test(test_channels_last),
        cmocka_unit_test(test_channels_last_avgpool),
        cmocka_unit_test(test_fft_tiling),
        cmocka_unit_test(test_fft_by_position),
        cmocka_unit_test(test_fft_whole_plane),
        cmocka_unit_test(test_xmma_forward),
        cmocka_unit_test(test_strided_legacy_gemm),
        cmocka_unit_test(test_pool_forward),
        cmocka_unit_test(test_concat_copies),
        cmocka_unit_test(test_pool_backward),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
