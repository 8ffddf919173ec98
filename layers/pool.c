/* Pooling: max, average, global average and adaptive average.
 *
 * All run as streaming kernels: one thread per output element reading its
 * window (which the caches serve, so the input is read from DRAM once).
 *
 * cuDNN's NCHW pooling forward is bound by its instructions, not by DRAM:
 * on the calibration set it takes as long in 16 bits as in 32 (fp16/fp32
 * 0.90, where ReLU takes 0.73), as long on the H200 as on the H100 (whose
 * DRAM is 30% slower), and its time per output grows with the window: 16-bit
 * 2x2 windows (VGG-11) 6.2-7.4 ps per output on the H100, 3x3 windows
 * (ResNet-18, DenseNet-121, Inception-v3, SqueezeNet) 10.5-11.2 ps. That is
 * about 100 thread instructions per output (decomposing its index, setting
 * up the window) and 30 per window element (bounds, address, load, compare)
 * at the H100's issue rate; the forward kernel is given those counts. */
#include <string.h>

#include "layer.h"

static const char *const window_fields[] = {"kernel", "stride", "pad", "ceil_mode", NULL};
static const char *const adaptive_fields[] = {"out", NULL};

static int parse_window(cp_layer *l, const cJSON *o, cp_jctx *c)
{
    int k[2], s[2], p[2];
    if (cp_jpair(c, o, "kernel", true, 0, 1, k))
        return -1;
    if (cp_jpair(c, o, "stride", false, 0, 1, s) || cp_jpair(c, o, "pad", false, 0, 0, p) ||
        cp_jbool(c, o, "ceil_mode", false, &l->ceil_mode))
        return -1;
    if (!cp_jget(o, "stride"))
        s[0] = k[0], s[1] = k[1];
    l->kh = k[0], l->kw = k[1], l->sh = s[0], l->sw = s[1], l->ph = p[0], l->pw = p[1];
    l->dh = l->dw = 1;
    return 0;
}

static int infer_window(cp_layer *l, cp_jctx *c)
{
    cp_shape in = l->in[0];
    if (2 * l->ph > l->kh || 2 * l->pw > l->kw)
        return cp_jfail(c, "pad", "padding %dx%d must be at most half the kernel %dx%d", l->ph, l->pw, l->kh, l->kw);
    if (l->kh > in.h + 2 * l->ph || l->kw > in.w + 2 * l->pw)
        return cp_jfail(c, "kernel", "window %dx%d is larger than the padded input %dx%d", l->kh, l->kw,
                        in.h + 2 * l->ph, in.w + 2 * l->pw);
    l->out = (cp_shape){in.c, cp_out_size(in.h, l->kh, l->sh, l->ph, 1, l->ceil_mode),
                        cp_out_size(in.w, l->kw, l->sw, l->pw, 1, l->ceil_mode)};
    return 0;
}

static int parse_adaptive(cp_layer *l, const cJSON *o, cp_jctx *c)
{
    int out[2];
    if (cp_jpair(c, o, "out", true, 0, 1, out))
        return -1;
    l->out = (cp_shape){0, out[0], out[1]};
    return 0;
}

/* PyTorch's adaptive windows: the largest is ceil(in/out) (+1 when uneven). */
static int adaptive_window(int in, int out)
{
    return (in + out - 1) / out + (in % out ? 1 : 0);
}

static int infer_adaptive(cp_layer *l, cp_jctx *c)
{
    (void)c;
    cp_shape in = l->in[0];
    l->kh = adaptive_window(in.h, l->out.h);
    l->kw = adaptive_window(in.w, l->out.w);
    l->out.c = in.c;
    return 0;
}

static int infer_global(cp_layer *l, cp_jctx *c)
{
    (void)c;
    cp_shape in = l->in[0];
    l->kh = in.h, l->kw = in.w;
    l->out = (cp_shape){in.c, 1, 1};
    return 0;
}

#define POOL_INSTR_PER_OUTPUT 100.0
#define POOL_INSTR_PER_TAP 30.0

static double window_flops(const cp_layer *l, cp_pass pass, int batch)
{
    double outs = (double)batch * cp_shape_elems(l->out);
    if (pass == CP_PASS_FWD)
        return outs * l->kh * l->kw;
    if (pass == CP_PASS_BWD_DATA)
        return l->kind->name[0] == 'm' ? outs : outs * l->kh * l->kw;
    return 0;
}

/* --- max-pooling backward -----------------------------------------------
 *
 * cuDNN finds each window's maximum again and adds the window's gradient
 * there (Nsight Compute, validation/h100/ncu/). An input plane of up to 56x56
 * gets one 256-thread block (`pooling_bw_kernel_max_nchw_fully_packed_small`)
 * that loads the plane, walks its windows tap by tap, adds into dx in shared
 * memory and writes the plane back: a chain of dependent memory round trips,
 * not a stream, so its time is the waves of blocks times the chain. In
 * global-latency units per block: a fixed part, a part per 256 input
 * elements a thread loads and stores, and a part per window tap a thread
 * visits; 16 bits spend three times as long on a tap (conversions, and
 * half-precision adds into shared memory are compare-and-swap loops).
 * Fitted on the one-layer microbenchmarks of validation/layerbench-h100/
 * (11 shapes per precision: windows 2, 3 and 5, strides 1 and 2, planes 7x7
 * to 56x56; mean |log error| 0.06 in fp32, 0.14 in fp16), nothing else.
 * Larger planes run `pooling_bw_kernel_max` over the forward's grid, about
 * 5.3 input elements per thread (ResNet-50's 64x112x112 at b64: 37,888
 * blocks of 255 threads): a chain too, its length growing with how many
 * windows cover an input; 16-bit windows that overlap cost far more (410 us
 * against fp32's 232 for 3x3/2, 211 against 209 for 2x2/2). Two
 * microbenchmark shapes per precision only (112x112 planes, 2x2/2 and
 * 3x3/2): a fit through them, the weakest part of this model. */
#define POOL_PACKED_MAX_PLANE 3136.0
#define POOL_BWD_THREADS 256 /* both kernels' blocks (255 for the large-plane one) */
#define POOL_GENERIC_INPUTS_PER_THREAD 5.3

static const struct {
    double fixed, per_256_inputs, per_tap;     /* the plane kernel */
    double generic_fixed, generic_per_window; /* the large-plane kernel */
} pool_chain[2] = {{3.8, 2.9, 0.59, 34.9, 3.4},  /* 4-byte elements */
                   {3.1, 0.87, 1.93, 9.4, 29.6}}; /* 2-byte */

static cp_kernel maxpool_bwd_kernel(const cp_layer *l, const cp_exec *x)
{
    const cp_device *d = x->dev;
    double xb = cp_act_bytes(x, l->in[0]), yb = cp_act_bytes(x, l->out);
    double in = (double)l->in[0].h * l->in[0].w, outs = (double)l->out.h * l->out.w;
    double planes = (double)x->batch * l->in[0].c, taps = (double)l->kh * l->kw;
    double flops = window_flops(l, CP_PASS_BWD_DATA, x->batch);
    int half = cp_precision_bytes(x->prec) == 2, packed = in <= POOL_PACKED_MAX_PLANE;
    double windows = ((double)l->kh / l->sh) * ((double)l->kw / l->sw); /* covering an input, on average */
    double rounds = packed ? pool_chain[half].fixed + pool_chain[half].per_256_inputs * in / POOL_BWD_THREADS +
                                 pool_chain[half].per_tap * outs * taps / POOL_BWD_THREADS
                           : pool_chain[half].generic_fixed + pool_chain[half].generic_per_window * windows;
    cp_kernel k = cp_stream_kernel(d, x->prec, packed ? "maxpool_bwd_plane" : "maxpool_bwd", planes * in, xb + 2 * yb,
                                   xb, flops);
    k.blocks = packed ? (long long)planes
                      : (long long)cp_cdiv(planes * in, POOL_BWD_THREADS * POOL_GENERIC_INPUTS_PER_THREAD);
    k.threads = POOL_BWD_THREADS;
    k.regs = 24;
    k.smem = packed ? (int)(in * 4) : 0; /* the plane's dx, accumulated in fp32 */
    k.iters = (long long)(rounds + 0.5);
    /* one dependent access per warp and round; the block's share of the
     * traffic spread over its rounds */
    double warps = POOL_BWD_THREADS / d->warp_size, per_round = 1.0 / ((double)k.blocks * (double)k.iters);
    k.I = warps;
    k.ld_bytes = (xb + 2 * yb) * per_round / warps;
    k.K = warps;
    k.st_bytes = xb * per_round / warps;
    k.L = flops * per_round / d->warp_size;
    k.M = warps;
    k.other = warps * 4;
    return k;
}

/* --- channels-last average pooling ----------------------------------------
 *
 * PyTorch pools a channels-last tensor with its own kernels, one thread per
 * element (`avg_pool2d_out_cuda_frame_nhwc` per output, the backward
 * `avg_pool2d_backward_out_cuda_frame_nhwc` per input, adding the windows
 * that cover it), whose 64-bit index arithmetic, not DRAM, sets the pace: in
 * the calibration set's traces (Inception-v3 and DenseNet-121 b32,
 * validation/h100/torch/chlast29/ and chlast31/) the forward took 19-25 ps
 * per output and the backward 18 ps per input of DenseNet's 2x2/2 windows
 * (each input in one) and 32-35 ps of Inception's 3x3/1 (in 7.6-8.7), in
 * 16 and 32 bits alike: 2-3x cuDNN's NCHW pace. Thread instructions per
 * element fitted on those 30 kernels (5.6% mean error); they are timed as they are, not by the
 * NCHW-fitted pooling scales (model/predict.c). */
#define POOL_NHWC_FWD_PER_OUTPUT 470.0
#define POOL_NHWC_FWD_PER_TAP 36.0
#define POOL_NHWC_BWD_PER_INPUT 500.0
#define POOL_NHWC_BWD_PER_WINDOW 74.0

/* The windows covering an input element on average, along one side. */
static double covering(int in, int out, int k, int s, int p)
{
    double taps = 0; /* each output's window taps inside the input */
    for (int o = 0; o < out; o++) {
        int lo = o * s - p, hi = lo + k;
        lo = lo > 0 ? lo : 0;
        hi = hi < in ? hi : in;
        taps += hi > lo ? hi - lo : 0;
    }
    return taps / in;
}

double cp_pool_cover(const cp_layer *l)
{
    return covering(l->in[0].h, l->out.h, l->kh, l->sh, l->ph) * covering(l->in[0].w, l->out.w, l->kw, l->sw, l->pw);
}

static int avgpool_nhwc_kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out)
{
    double xb = cp_act_bytes(x, l->in[0]), yb = cp_act_bytes(x, l->out);
    double outs = (double)x->batch * cp_shape_elems(l->out), ins = (double)x->batch * cp_shape_elems(l->in[0]);
    double flops = window_flops(l, pass, x->batch);
    double cover = cp_pool_cover(l);
    double instr;
    if (pass == CP_PASS_FWD) {
        out[0] = cp_stream_kernel(x->dev, x->prec, "avgpool_fwd_nhwc", outs, xb, yb, flops);
        instr = outs * POOL_NHWC_FWD_PER_OUTPUT + ins * cover * POOL_NHWC_FWD_PER_TAP;
    } else {
        out[0] = cp_stream_kernel(x->dev, x->prec, "avgpool_bwd_nhwc", ins, yb, xb, flops);
        instr = ins * (POOL_NHWC_BWD_PER_INPUT + POOL_NHWC_BWD_PER_WINDOW * cover);
    }
    out[0].L = instr / (double)out[0].blocks / x->dev->warp_size;
    return 1;
}

static int window_kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max,
                          cp_error *err)
{
    (void)err;
    if (max < 1)
        return 0;
    bool nhwc_avg = x->channels_last && strcmp(l->kind->name, "avgpool") == 0;
    if (nhwc_avg && (pass == CP_PASS_FWD || pass == CP_PASS_BWD_DATA))
        return avgpool_nhwc_kernels(l, pass, x, out);
    double xb = cp_act_bytes(x, l->in[0]), yb = cp_act_bytes(x, l->out);
    double outs = (double)x->batch * cp_shape_elems(l->out), ins = (double)x->batch * cp_shape_elems(l->in[0]);
    int is_max = l->kind->name[0] == 'm';
    if (pass == CP_PASS_FWD) {
        double items = l->out.h * l->out.w > 1 ? outs : ins;
        cp_kernel *k = &out[0];
        *k = cp_stream_kernel(x->dev, x->prec, is_max ? "maxpool_fwd" : "avgpool_fwd", items, xb, yb,
                              window_flops(l, pass, x->batch));
        /* one warp instruction per 32 threads' worth of the counts above */
        double instr = outs * (POOL_INSTR_PER_OUTPUT + POOL_INSTR_PER_TAP * (double)l->kh * l->kw);
        k->L = instr / (double)k->blocks / x->dev->warp_size;
        return 1;
    }
    if (pass == CP_PASS_BWD_DATA && is_max) {
        out[0] = maxpool_bwd_kernel(l, x);
        return 1;
    }
    if (pass == CP_PASS_BWD_DATA) {
        out[0] = cp_stream_kernel(x->dev, x->prec, "avgpool_bwd", ins, yb, xb, window_flops(l, pass, x->batch));
        return 1;
    }
    return 0;
}

const cp_layer_kind cp_maxpool_kind = {"maxpool", window_fields, 1, 1, false, parse_window, infer_window,
                                       window_flops, window_kernels, false, false, CP_SAVES_INPUT, 8};
const cp_layer_kind cp_avgpool_kind = {"avgpool", window_fields, 1, 1, false, parse_window, infer_window,
                                       window_flops, window_kernels, false, false, CP_SAVES_INPUT, 0};
const cp_layer_kind cp_global_avgpool_kind = {"global_avgpool", NULL, 1, 1, false, NULL, infer_global,
                                              window_flops, window_kernels, false, false, CP_SAVES_INPUT, 0};
const cp_layer_kind cp_adaptive_avgpool_kind = {"adaptive_avgpool", adaptive_fields, 1, 1, false, parse_adaptive,
                                                infer_adaptive, window_flops, window_kernels, false, false,
                                                CP_SAVES_INPUT, 0};
