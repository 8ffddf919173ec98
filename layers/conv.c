/* Convolution: shape inference, parameters, FLOPs, and its kernels.
 *
 * Forward, backward-data and backward-weight are each an implicit GEMM, as
 * cuDNN runs them (no im2col copy: the GEMM reads the tensors themselves).
 * Depthwise and other thin-group convolutions have too little reuse for a
 * GEMM and run as a direct kernel on the FMA pipe.
 *
 * A 3x3, stride-1 convolution in FP32 may instead run as Winograd
 * F(4x4, 3x3), cuDNN's WINOGRAD_NONFUSED algorithm, for each of its three
 * passes: transform the input tiles and the filters, 36 batched GEMMs in the
 * transformed domain (a quarter of the multiplies), transform back. Like
 * cudnnFind, each pass takes whichever decomposition the model times faster.
 * (Measured FP32 3x3 layers on the H100 run at up to 1.8x the FP32 peak
 * counted in direct multiply-adds: validation/h100/vgg16-b64-fp32.json.)
 * Larger FP32 filters (5x5, 7x7) may run as FFT tiling instead (below).
 * PyTorch's path (CP_ALGOS_PYTORCH) offers Winograd for weight gradients
 * only, and FFT for 3x3 filters too (pytorch_winograd, pytorch_offers_fft).
 * With tensor cores cuDNN keeps to implicit GEMM, on NHWC copies of the
 * NCHW tensors (transposes below), and so does the model. */
#include "layer.h"
#include "../model/calibration.h"

#include <math.h>
#include <string.h>

static const char *const fields[] = {"out", "kernel", "stride", "pad", "dilation", "groups", "bias", NULL};

static int parse(cp_layer *l, const cJSON *o, cp_jctx *c)
{
    long long out, groups;
    int k[2], s[2], p[2], d[2];
    if (cp_jint(c, o, "out", true, 0, 1, 1 << 20, &out) || cp_jpair(c, o, "kernel", true, 0, 1, k) ||
        cp_jpair(c, o, "stride", false, 1, 1, s) || cp_jpair(c, o, "pad", false, 0, 0, p) ||
        cp_jpair(c, o, "dilation", false, 1, 1, d) || cp_jint(c, o, "groups", false, 1, 1, 1 << 20, &groups) ||
        cp_jbool(c, o, "bias", true, &l->bias))
        return -1;
    l->out_c = (int)out;
    l->groups = (int)groups;
    l->kh = k[0], l->kw = k[1], l->sh = s[0], l->sw = s[1];
    l->ph = p[0], l->pw = p[1], l->dh = d[0], l->dw = d[1];
    return 0;
}

static int infer(cp_layer *l, cp_jctx *c)
{
    cp_shape in = l->in[0];
    if (in.c % l->groups)
        return cp_jfail(c, "groups", "input channels %d are not divisible by groups %d", in.c, l->groups);
    if (l->out_c % l->groups)
        return cp_jfail(c, "groups", "output channels %d are not divisible by groups %d", l->out_c, l->groups);
    int eh = l->dh * (l->kh - 1) + 1, ew = l->dw * (l->kw - 1) + 1;
    if (eh > in.h + 2 * l->ph || ew > in.w + 2 * l->pw)
        return cp_jfail(c, "kernel", "kernel %dx%d (dilated %dx%d) is larger than the padded input %dx%d", l->kh,
                        l->kw, eh, ew, in.h + 2 * l->ph, in.w + 2 * l->pw);
    l->out = (cp_shape){l->out_c, cp_out_size(in.h, l->kh, l->sh, l->ph, l->dh, false),
                        cp_out_size(in.w, l->kw, l->sw, l->pw, l->dw, false)};
    l->params = (long long)l->out_c * (in.c / l->groups) * l->kh * l->kw + (l->bias ? l->out_c : 0);
    return 0;
}

/* Multiply-adds of one pass: all three passes do the same work. */
static double macs(const cp_layer *l, int batch)
{
    return (double)batch * cp_shape_elems(l->out) * (l->in[0].c / l->groups) * l->kh * l->kw;
}

static double flops(const cp_layer *l, cp_pass pass, int batch)
{
    if (pass == CP_PASS_UPDATE)
        return 4.0 * (double)l->params;
    return 2.0 * macs(l, batch);
}

/* Thin groups (depthwise): fewer than this many channels per group. */
#define DIRECT_MAX_GROUP_CHANNELS 8

/* A grouped layer that is not depthwise, on PyTorch's path: group by group
 * in FP32, one grouped GEMM between NHWC transposes in 16 bits ("grouped
 * convolutions" below). */
static bool graph_grouped(const cp_layer *l, const cp_exec *x)
{
    return l->groups > 1 && !cp_layer_depthwise(l) && x->algos == CP_ALGOS_PYTORCH;
}

/* FP32 1x1 weight gradients run cuDNN's own kernels (model/wgrad.c), not a
 * CUTLASS-like GEMM, through either API: Nsight Compute on 1x1
 * microbenchmarks (validation/layerbench-h100/ncu/, wgrad1x1/). Over the
 * calibration set's 158 cudnnFind passes (H100) the model's spread drops
 * from 0.27 to 0.22 (log of model / measured). PyTorch's path (graph API
 * engine 20, engine 67 on the smallest planes) runs the same kernels with
 * the engine's 64x128 tile from 96 output channels, where cudnnFind's
 * heuristic keeps 32x32 tiles below 192 x 256 (DenseNet's transition1: 0.62
 * against 1.26 ms). Timed as the split-K GEMM they had needed a calibration
 * scale of 2.58; on the engine, 0.90, and the evaluation's graph-API FP32 1x1
 * weight-gradient passes went from 18.2% to 10.5% (session 19). Other
 * filters keep the GEMM, except the FP32 3x3 ones below. */
static bool wgrad_engine_1x1(const cp_layer *l, cp_precision pipe)
{
    return pipe == CP_PREC_FP32 && l->groups == 1 && l->kh == 1 && l->kw == 1;
}

static bool winograd_fits(const cp_layer *l, cp_pass pass, const cp_exec *x);

/* FP32 3x3 weight gradients with 48 or more channels on both sides have no
 * GEMM like the model's split-K tile, through either API. The graph API ran
 * nine of the ten such layer microbenchmarks as winograd_nonfused (engine
 * 17), and Nsight Compute shows its GEMM unsplit: 144 blocks of 64 threads
 * for 64 -> 64 channels (validation/layerbench-h100/graph-3x3/). Timed as a
 * split-K GEMM, the 64-channel layers came out at 0.48 of the measured
 * time and the rest at 0.7-0.96; timed as Winograd, at 0.7-1.17. On the
 * calibration set cudnnFind picks the same two algorithms for them
 * (WINOGRAD_NONFUSED or FFT), and the graph API engines 17 and 18. So the
 * candidates there are Winograd and cuDNN's own weight-gradient kernels
 * (model/wgrad.c). With fewer channels on a side the calibration set's
 * layers ran other algorithms: implicit GEMM (engine 20; cudnnFind's 0 and
 * 3) for 16 and 32 input channels, FFT for DenseNet's 32 outputs, where
 * Winograd times 1.2-1.7x the measured. Those keep the GEMM, as do planes
 * smaller than 13x13, the smallest this was measured on: there the model's
 * four Winograd kernels are launch-bound, and on 7x7 a V100's backward came
 * out at 3.8x its forward, past what any measured layer shows. */
#define WINOGRAD_WGRAD_MIN_CHANNELS 48
#define WINOGRAD_WGRAD_MIN_PLANE 13

static bool fp32_3x3_wgrad_without_gemm(const cp_layer *l, cp_pass pass, const cp_exec *x)
{
    return pass == CP_PASS_BWD_WEIGHT && winograd_fits(l, pass, x) && l->in[0].c >= WINOGRAD_WGRAD_MIN_CHANNELS &&
           l->out_c >= WINOGRAD_WGRAD_MIN_CHANNELS && l->out.h >= WINOGRAD_WGRAD_MIN_PLANE &&
           l->out.w >= WINOGRAD_WGRAD_MIN_PLANE;
}

/* PyTorch's path runs an FP32 forward's implicit GEMM as cuDNN's NCHW xmma
 * kernels (graph API engine 70: every FP32 3x3 and 1x1 forward of the
 * calibration set's graph-API runs that is not FFT), three fixed tiles
 * with their own instruction mix (model/gemm.c, CP_GEMM_XMMA_NCHW_FP32),
 * not the model's best CUTLASS-like tile: on small output planes (7x7,
 * the strided layers) cuDNN's 32x32 tile of 64 threads, 2.2 instructions
 * per FFMA, is what fills the GPU. Its data gradients of filters larger
 * than 1x1 that are not FFT run the same family's dgrad kernels
 * (sm80_xmma_dgrad_implicit_gemm_..._nchw in PyTorch's trace of
 * MobileNet-V2, 32x32 tiles of 64 threads) or cuDNN's direct dgrad_engine,
 * both timed as this family, which has no split-K either: on the
 * calibration set's graph-API runs that took the FP32 3x3 data gradients
 * from 27.4% to 15.4% mean error. Its 1x1 data gradients (engines 74, 25
 * and 1) went from 11.1% to 13.7% so, and keep the model's GEMM.
 *
 * cudnnFind runs the same kernels. Under Nsight Compute
 * (validation/layerbench-h100/wgrad1x1/, 1x1 layers) its forward algorithm
 * 1 ran this family's xmma fprop kernel and algorithm 0
 * implicit_convolve_sgemm, its data-gradient algorithms 0 and 1 cuDNN's
 * dgrad_engine and this family's xmma dgrad, none near the FMA lanes' peak.
 * Strided convolutions show it most, having no Winograd: ResNet-50's
 * layer3.0.conv2 forward took 548 us where its stride-1 neighbours, the
 * same FLOPs through Winograd, took 181. Timed as the model's CUTLASS-like
 * tile, cudnnFind's strided 3x3 passes came out 30-58% short on both sets;
 * as this family, the calibration set's strided forwards went from 30.5% to
 * 11.0% mean error and data gradients from 39.4% to 21.3%, its legacy FP32
 * iterations (applied to every cudnnFind FP32 forward and data gradient of
 * filters larger than 1x1, not only strided ones) from 6.71% to 6.64%
 * (session 19). */
static bool xmma_nchw(const cp_layer *l, const cp_exec *x, cp_precision pipe)
{
    return x->prec == CP_PREC_FP32 && pipe == CP_PREC_FP32 && l->groups == 1;
}

/* The pass as one implicit GEMM on the pipe of precision `pipe` (x->prec, or
 * FP32 for a 16-bit pass that cuDNN runs on the FMA lanes); a weight
 * gradient cuDNN has no such GEMM for (the two rules above) as its own
 * kernels instead. */
static int gemm_on(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_precision pipe, cp_kernel *out, int max,
                   cp_error *err)
{
    cp_shape in = l->in[0], o = l->out;
    double n = x->batch, g = l->groups;
    double cin = in.c / g, cout = l->out_c / g, rs = (double)l->kh * l->kw;
    double wbytes = (double)l->params * cp_precision_bytes(x->prec);
    double xb = cp_act_bytes(x, in), yb = cp_act_bytes(x, o);
    cp_gemm gm;
    const char *what;
    if (pass == CP_PASS_FWD) {
        gm = (cp_gemm){n * o.h * o.w, cout, cin * rs, g, xb + yb + wbytes, 0, CP_GEMM_CUTLASS};
        what = "conv_fprop";
        if (xmma_nchw(l, x, pipe)) {
            gm.family = CP_GEMM_XMMA_NCHW_FP32;
            what = "xmma_fprop_nchw";
        }
    } else if (pass == CP_PASS_BWD_DATA) {
        /* A strided dgrad touches each input pixel with 1/(sh*sw) of the taps. */
        double k = cout * rs / ((double)l->sh * l->sw);
        gm = (cp_gemm){n * in.h * in.w, cin, k < 1 ? 1 : k, g, xb + yb + wbytes, 0, CP_GEMM_CUTLASS};
        what = "conv_dgrad";
        if (xmma_nchw(l, x, pipe) && rs > 1) {
            gm.family = CP_GEMM_XMMA_NCHW_FP32;
            what = "xmma_dgrad_nchw";
        }
    } else {
        if (wgrad_engine_1x1(l, pipe) || fp32_3x3_wgrad_without_gemm(l, pass, x))
            return cp_wgrad_fp32_kernels(x->dev, x->algos == CP_ALGOS_FIND ? CP_WGRAD_TILES_FIND : CP_WGRAD_TILES_GRAPH,
                                         cout, cin * rs, rs, n, (double)o.h * o.w, xb, yb, out, max, err);
        gm = (cp_gemm){cout, cin * rs, n * o.h * o.w, g, xb + yb + wbytes, 1, CP_GEMM_CUTLASS};
        what = "conv_wgrad";
    }
    /* the tile table is built for x->prec: another pipe builds its own */
    return cp_gemm_kernels(x->dev, pipe, &gm, what, pipe == x->prec ? x->gemm_tiles : NULL, out, max, err);
}

static int gemm_pass(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    return gemm_on(l, pass, x, x->prec, out, max, err);
}

/* --- Winograd F(4x4, 3x3) ------------------------------------------------- */

#define WINO_M 4                        /* output tile side */
#define WINO_A (WINO_M + 2)             /* input tile side, alpha */
#define WINO_POINTS (WINO_A * WINO_A)   /* 36 independent GEMMs */

/* PyTorch's path offers Winograd for the weight gradient only, and there
 * instead of FFT: its kernel trace of VGG-11 in FP32 (the calibration set,
 * validation/h100/ncu/kernels-torch-networks-h100.json.xz) runs every 3x3 weight
 * gradient, 14x14 to 112x112 planes, as winograd_nonfused (data and delta
 * transforms, 36 batched GEMMs, output transform), while its forward and
 * data-gradient passes run implicit GEMM, FFT or dgrad_engine. */
static bool pytorch_winograd(cp_pass pass, const cp_exec *x)
{
    return x->algos == CP_ALGOS_PYTORCH && pass == CP_PASS_BWD_WEIGHT;
}

static bool winograd_fits(const cp_layer *l, cp_pass pass, const cp_exec *x)
{
    return x->prec == CP_PREC_FP32 && (x->algos == CP_ALGOS_FIND || pytorch_winograd(pass, x)) && l->groups == 1 &&
           l->kh == 3 && l->kw == 3 && l->sh == 1 && l->sw == 1 && l->dh == 1 && l->dw == 1;
}

/* The kernels of one Winograd pass. A forward-like pass (forward, and the
 * data gradient, which is the same convolution from dy with the filters
 * turned around) maps `cin` channels of an input tensor to `cout` channels of
 * an hxw output; the weight gradient reduces input and output-gradient tiles
 * into the filters. Transforms are streaming kernels (an alpha x alpha tile
 * per channel is a few hundred adds); the GEMMs are timed like any other.
 * None (0) where its transformed tensors exceed x's workspace limit. */
static int winograd_kernels(const cp_layer *l, const cp_exec *x, cp_pass pass, double n, double cin, double cout,
                            int h, int w, double in_bytes, double out_bytes, cp_kernel *out, int max, cp_error *err)
{
    (void)l; /* the filter is 3x3 */
    if (max < 4)
        return 0;
    bool wgrad = pass == CP_PASS_BWD_WEIGHT;
    const cp_device *d = x->dev;
    double b = cp_precision_bytes(x->prec);
    double tiles = n * cp_cdiv(h, WINO_M) * cp_cdiv(w, WINO_M);
    double filters = cin * cout;
    /* The transformed tensors winograd_nonfused keeps in cuDNN's workspace:
     * the input's and the second operand's tiles and the filters. On the
     * graph API's FP32 3x3 weight gradients this is the workspace cuDNN
     * reports to the MiB: 6076 MiB for a layer of our choosing, 80 -> 112
     * channels on 120x120 at batch 256 (validation/layerbench-h100/wsbench/),
     * and VGG-16's 128-channel 112x112 layer's 6176 at batch 224 and
     * 64-channel 224x224 one's 7057 at batch 128 (validation/h100/holdout26/,
     * graph-api/: workspace_used_mib). Where they exceed the workspace cuDNN
     * may use, it runs another engine: three layers of our choosing whose
     * tiles take 8.6-10.3 GiB ran engines 20 and 1 (cuDNN's weight-gradient
     * engine, model/wgrad.c) under cnnperf-measure's 8 GiB, where one of 5.9
     * GiB ran engine 17 (wsbench); so did VGG-16's 64-channel 224x224 weight
     * gradient at batch 224, 12.1 GiB (holdout26). FFT is not held to it: its
     * engines work through the batch in parts (engine 50 ran those data
     * gradients with a fraction of its whole transforms' size), and the
     * workspace each part takes is not modelled. */
    double volume = WINO_POINTS * (tiles * cin + filters + tiles * cout) * b;
    if (x->workspace_bytes > 0 && volume > x->workspace_bytes)
        return 0; /* not a candidate */
    int k = 0;
    out[k++] = cp_stream_kernel(d, x->prec, "winograd_input_transform", tiles * cin, in_bytes,
                                WINO_POINTS * tiles * cin * b, 144.0 * tiles * cin);
    /* the second operand: the filters forward, the output gradient's tiles
     * (out_bytes) for the weight gradient */
    if (!wgrad)
        out[k++] = cp_stream_kernel(d, x->prec, "winograd_filter_transform", filters, 9 * filters * b,
                                    WINO_POINTS * filters * b, 324.0 * filters);
    else
        out[k++] = cp_stream_kernel(d, x->prec, "winograd_grad_transform", tiles * cout, out_bytes,
                                    WINO_POINTS * tiles * cout * b, 240.0 * tiles * cout);
    /* winograd_nonfused's weight gradient does not split its long
     * reduction: its GEMM's grid is the filters' tiles times the 36 points
     * ([8, 8, 36] for 512 channels in PyTorch's trace,
     * validation/h100/ncu/kernels-torch-networks-h100.json.xz; [2, 2, 36] of
     * 32x32 for 64 in the graph API's, validation/layerbench-h100/graph-3x3/),
     * on cuDNN's own FP32 xmma tiles (CP_GEMM_XMMA_WINO_WGRAD_FP32, rule 25 in
     * docs/ACCURACY.md). cudnnFind's WINOGRAD_NONFUSED is the same
     * implementation. */
    int split = wgrad ? -1 : 0;
    cp_gemm g = wgrad ? (cp_gemm){cout, cin, tiles, WINO_POINTS, volume, split, CP_GEMM_XMMA_WINO_WGRAD_FP32}
                      : (cp_gemm){tiles, cout, cin, WINO_POINTS, volume, split, CP_GEMM_CUTLASS};
    int r = cp_gemm_kernels(d, x->prec, &g, "winograd_gemm", x->gemm_tiles, out + k, max - k, err);
    if (r < 0)
        return -1;
    k += r;
    if (!wgrad)
        out[k++] = cp_stream_kernel(d, x->prec, "winograd_output_transform", tiles * cout,
                                    WINO_POINTS * tiles * cout * b, out_bytes, 480.0 * tiles * cout);
    else
        out[k++] = cp_stream_kernel(d, x->prec, "winograd_filter_inverse", filters, WINO_POINTS * filters * b,
                                    9 * filters * b, 324.0 * filters);
    return k;
}

/* --- FFT ------------------------------------------------------------------- */

/* cuDNN's FFT algorithms (forward, data and filter gradients, FP32, stride
 * 1): each channel's plane is Fourier-transformed, and a convolution
 * becomes, per frequency, a complex GEMM over channels, which is 4 real
 * multiply-adds per pair of channels and bin against R x S per output for
 * the direct sum; an inverse transform gives the outputs (or the filters).
 * FFT_TILING cuts planes into 32x32 tiles overlapping by the filter's halo.
 * Plain FFT transforms a whole padded plane at the smallest power of two
 * that holds it: Nsight Compute shows the graph API's forward engine 3 on
 * 16x16 transforms for 12x12 outputs and 32x32 for 25x25 ones
 * (validation/layerbench-h100/graph-3x3/), and cudnnFind picks plain FFT
 * (forward algo 4, both gradients' algo 2) for ResNet-18's 14x14 and 28x28
 * layers (the calibration set). A 16x16 transform has a quarter of a 32x32
 * one's bins, so on a 14x14 plane the complex GEMM does a quarter of the
 * tiled one's work. Without that, 3x3 forwards on 13x13 and 14x14 planes were
 * timed as implicit GEMM, whose time grows with the batch where the FFT's
 * per-image work is a third of it. Filters larger than 3x3 took FFT first:
 * there Winograd does not reach and the saving is large (AlexNet's 5x5
 * layer runs at 3.5x the FP32 peak counted in direct multiply-adds on the
 * H100, validation/h100/alexnet-b256-fp32.json). */
#define FFT_TILE 32            /* FFT_TILING's tile, and the largest plain transform */
#define FFT_MIN_TILE 16        /* the smallest transform measured */
#define FFT_COMPLEX_BYTES 8.0

/* tile positions of an h x w output plane for t x t transforms of an
 * l->kh x l->kw filter */
static double fft_positions(const cp_layer *l, int t, int h, int w)
{
    return cp_cdiv(h, t - l->kh + 1) * cp_cdiv(w, t - l->kw + 1);
}

/* complex outputs of a real 2-D FFT of t x t points */
static double fft_bins(int t) { return (double)t * (t / 2 + 1); }
/* 5/2 n log2 n flops for n = t x t real points */
static double fft_tile_flops(int t) { return 2.5 * t * t * 2.0 * log2((double)t); }

static bool fft_fits(const cp_layer *l, const cp_exec *x)
{
    int min_taps = x->algos == CP_ALGOS_PYTORCH ? 9 : 10; /* PyTorch's path tiles 3x3 filters too */
    return x->prec == CP_PREC_FP32 && l->groups == 1 && l->kh * l->kw >= min_taps && l->kh < FFT_TILE &&
           l->kw < FFT_TILE && l->sh == 1 && l->sw == 1 && l->dh == 1 && l->dw == 1;
}

/* The smallest plane PyTorch's path runs a 3x3 data gradient on as FFT: in
 * the calibration set's graph-API FP32 runs every such pass on 7x7 to 17x17
 * planes ran engines 1, 25 or 74 (374 passes), on 27x27 and 28x28 engine
 * 50 (116 of 126), and larger planes engine 50 almost always. */
#define PYTORCH_FFT_DGRAD_MIN_PLANE CP_CONV_3X3_WIDE_PLANE /* their own calibration class */

/* Whether PyTorch's path offers FFT for this pass (any other set: yes). Its
 * weight gradient takes Winograd wherever that fits (pytorch_winograd), its
 * 3x3 data gradient FFT only from PYTORCH_FFT_DGRAD_MIN_PLANE up. It
 * runs a 3x3 forward as FFT only where the output plane fits one tile;
 * larger planes run as implicit GEMM (sm80_xmma_fprop_implicit_gemm 256x64
 * in its kernel trace of VGG-11 and ResNet-18, the calibration set:
 * validation/h100/ncu/kernels-torch-networks-h100.json.xz; the graph API's
 * engines for the same layers, validation/h100/graph-api/), although the
 * model times FFT faster there. */
static bool pytorch_offers_fft(const cp_layer *l, cp_pass pass, const cp_exec *x)
{
    if (x->algos != CP_ALGOS_PYTORCH)
        return true;
    if (pass == CP_PASS_BWD_WEIGHT)
        return !winograd_fits(l, pass, x);
    if (pass == CP_PASS_BWD_DATA)
        return l->kh * l->kw != 9 ||
               (l->in[0].h >= PYTORCH_FFT_DGRAD_MIN_PLANE && l->in[0].w >= PYTORCH_FFT_DGRAD_MIN_PLANE);
    return l->kh * l->kw != 9 || (l->out.h <= FFT_TILE && l->out.w <= FFT_TILE);
}

/* The transform's side for a forward-like pass with an h x w output: plain
 * FFT's where the algorithm set has it for this pass and the padded plane
 * fits FFT_TILE, else FFT_TILING's. PyTorch's path runs plain FFT forward
 * only: its data gradients on such planes are engine 50 (FFT tiled over the
 * batch), 25 or 1, and its 12x12 microbenchmark's dgrad_engine, which a
 * 16x16 transform would beat, shows it has none there. */
static int fft_tile(const cp_layer *l, cp_pass pass, const cp_exec *x, int h, int w)
{
    if (x->algos == CP_ALGOS_PYTORCH && pass != CP_PASS_FWD)
        return FFT_TILE;
    int need = h + l->kh - 1 > w + l->kw - 1 ? h + l->kh - 1 : w + l->kw - 1, t = FFT_MIN_TILE;
    while (t < need && t < FFT_TILE)
        t *= 2;
    return t;
}

/* The transform of the cin x cout filters (r x s taps each) to t x t. */
static cp_kernel fft_filter_kernel(const cp_layer *l, const cp_exec *x, double filters, int t)
{
    double rs = (double)l->kh * l->kw, b = cp_precision_bytes(x->prec);
    return cp_stream_kernel(x->dev, x->prec, "fft_filter", filters * fft_bins(t), rs * filters * b,
                            filters * fft_bins(t) * FFT_COMPLEX_BYTES, fft_tile_flops(t) * filters);
}

/* PyTorch's path runs a data gradient on planes larger than one tile as
 * engine 50, which goes through the tile positions one after another: per
 * position an r2c over that position's tile of every image and channel, the
 * complex GEMM per frequency (M = the images, a short reduction over the
 * channels) and a c2r (Nsight Compute, validation/layerbench-h100/graph-3x3/
 * and wsbench/: 49 positions of a 200x200 plane, 16 of a 100x100 one, each
 * three launches; the filters transformed once). cuDNN's 32x32 transforms
 * run 16 of them a block of 512 threads, 64 registers and 36,928 bytes of
 * shared memory, at about 18,200 warp instructions a block (17,504-18,784
 * over the graph-3x3-ffma/ layers), and its complex GEMM is its own family
 * of tiles (model/gemm.c, CP_GEMM_XMMA_CGEMM_FP32). */
#define FFT_TRANSFORMS_PER_BLOCK 16
#define FFT_TRANSFORM_THREADS 512
#define FFT_TRANSFORM_REGS 64
#define FFT_TRANSFORM_SMEM 36928
#define FFT_TRANSFORM_INSTRUCTIONS 18200.0

static bool fft_by_position(cp_pass pass, const cp_exec *x, int t)
{
    return x->algos == CP_ALGOS_PYTORCH && pass == CP_PASS_BWD_DATA && t == FFT_TILE;
}

/* One launch of cuDNN's 32x32 transform over `transforms` tiles, reading
 * bytes_in and writing bytes_out in all. */
static cp_kernel fft_transform_kernel(const cp_device *d, cp_precision p, const char *name, double transforms,
                                      double bytes_in, double bytes_out, double flops)
{
    cp_kernel k = cp_stream_kernel(d, p, name, transforms, bytes_in, bytes_out, flops);
    double blocks = cp_cdiv(transforms, FFT_TRANSFORMS_PER_BLOCK), per = 1.0 / blocks;
    k.blocks = (long long)blocks;
    k.threads = FFT_TRANSFORM_THREADS;
    k.regs = FFT_TRANSFORM_REGS;
    k.smem = FFT_TRANSFORM_SMEM;
    k.I = bytes_in * per / k.ld_bytes;
    k.K = bytes_out * per / k.st_bytes;
    k.L = flops * per / d->warp_size;
    k.other = FFT_TRANSFORM_INSTRUCTIONS - k.I - k.K - k.L;
    if (k.other < 0)
        k.other = 0;
    return k;
}

/* The data gradient as engine 50 runs it (above): the filters' transform,
 * then per tile position its r2c, complex GEMM and c2r, each a launch
 * repeated once per position. */
static int fft_kernels_by_position(const cp_layer *l, const cp_exec *x, double n, double cin, double cout, int h,
                                   int w, double in_bytes, double out_bytes, cp_kernel *out, int max, cp_error *err)
{
    const cp_device *d = x->dev;
    int t = FFT_TILE;
    double positions = fft_positions(l, t, h, w);
    double bins = fft_bins(t), per = bins * FFT_COMPLEX_BYTES, filters = cin * cout, tf = fft_tile_flops(t);
    /* each position reads its tile with the halo its neighbours read too */
    double window = (double)t * t / ((double)(t - l->kh + 1) * (t - l->kw + 1));
    int k = 0;
    out[k++] = fft_filter_kernel(l, x, filters, t);
    out[k] = fft_transform_kernel(d, x->prec, "fft_input", n * cin, in_bytes * window / positions, n * cin * per,
                                  tf * n * cin);
    out[k++].repeat = positions;
    cp_gemm g = {n, 2 * cout, 2 * cin, bins, (n * cin + filters + n * cout) * per, 0, CP_GEMM_XMMA_CGEMM_FP32};
    int r = cp_gemm_kernels(d, x->prec, &g, "fft_cgemm", x->gemm_tiles, out + k, max - k - 1, err);
    if (r <= 0)
        return r;
    for (int i = 0; i < r; i++)
        out[k + i].repeat = positions;
    k += r;
    out[k] = fft_transform_kernel(d, x->prec, "fft_inverse_output", n * cout, n * cout * per, out_bytes / positions,
                                  tf * n * cout);
    out[k++].repeat = positions;
    return k;
}

/* The kernels of one FFT pass, with the same arguments as Winograd's: the
 * output plane h x w of a forward-like pass sets the tiles. */
static int fft_kernels(const cp_layer *l, const cp_exec *x, cp_pass pass, double n, double cin, double cout, int h,
                       int w, double in_bytes, double out_bytes, cp_kernel *out, int max, cp_error *err)
{
    if (max < 5)
        return 0;
    const cp_device *d = x->dev;
    bool wgrad = pass == CP_PASS_BWD_WEIGHT;
    int t = fft_tile(l, pass, x, h, w);
    if (fft_by_position(pass, x, t))
        return fft_kernels_by_position(l, x, n, cin, cout, h, w, in_bytes, out_bytes, out, max, err);
    double b = cp_precision_bytes(x->prec), rs = (double)l->kh * l->kw;
    double tiles = n * fft_positions(l, t, h, w);
    double bins = fft_bins(t), per = bins * FFT_COMPLEX_BYTES, filters = cin * cout, tf = fft_tile_flops(t);
    double volume = (tiles * cin + filters + tiles * cout) * per;
    int k = 0;
    out[k++] = cp_stream_kernel(d, x->prec, "fft_input", tiles * cin * bins, in_bytes, tiles * cin * per,
                                tf * tiles * cin);
    /* The forward correlates, and a product of transforms convolves: cuDNN
     * turns every filter around first, one tiny block per filter. */
    if (pass == CP_PASS_FWD)
        out[k++] = cp_tiny_block_kernel(d, x->prec, "fft_flip_filter", filters, (int)rs, rs * filters * b,
                                        rs * filters * b);
    if (!wgrad)
        out[k++] = fft_filter_kernel(l, x, filters, t);
    else
        out[k++] = cp_stream_kernel(d, x->prec, "fft_grad", tiles * cout * bins, out_bytes, tiles * cout * per,
                                    tf * tiles * cout);
    /* a complex product is a real GEMM twice as wide and twice as deep */
    cp_gemm g = wgrad ? (cp_gemm){2 * cout, 2 * cin, tiles, bins, volume, 1, CP_GEMM_CUTLASS}
                      : (cp_gemm){tiles, 2 * cout, 2 * cin, bins, volume, 0, CP_GEMM_CUTLASS};
    int r = cp_gemm_kernels(d, x->prec, &g, "fft_gemm", x->gemm_tiles, out + k, max - k - 1, err);
    if (r < 0)
        return -1;
    if (r == 0)
        return 0;
    k += r;
    if (!wgrad)
        out[k++] = cp_stream_kernel(d, x->prec, "fft_inverse_output", tiles * cout * bins, tiles * cout * per,
                                    out_bytes, tf * tiles * cout);
    else
        out[k++] = cp_stream_kernel(d, x->prec, "fft_inverse_filter", filters * bins, filters * per,
                                    rs * filters * b, tf * filters);
    return k;
}

/* --- choosing among algorithms ---------------------------------------------- */

/* An alternative algorithm's kernels for one forward-like pass (cin channels
 * in, cout out, an h x w output plane) or weight gradient. */
typedef int (*algorithm_fn)(const cp_layer *l, const cp_exec *x, cp_pass pass, double n, double cin, double cout,
                            int h, int w, double in_bytes, double out_bytes, cp_kernel *out, int max, cp_error *err);

/* Implicit GEMM, Winograd or FFT, whichever the model times fastest, as
 * cudnnFind picks, among those whose workspace fits: the kernels written,
 * or -1 on error. */
static int fastest_algorithm(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max,
                             cp_error *err)
{
    enum { ALT = 8 };
    cp_kernel alt[ALT];
    cp_shape in = l->in[0], o = l->out;
    double n = x->batch, xb = cp_act_bytes(x, in), yb = cp_act_bytes(x, o);
    int ng = gemm_pass(l, pass, x, out, max, err);
    if (ng < 0)
        return -1;
    double best = cp_kernels_ms(out, ng, x->dev, INFINITY, err);
    if (best < 0)
        return -1;
    for (int algo = 0; algo < 2; algo++) {
        if (algo == 0 ? !winograd_fits(l, pass, x) : !fft_fits(l, x) || !pytorch_offers_fft(l, pass, x))
            continue;
        algorithm_fn build = algo == 0 ? winograd_kernels : fft_kernels;
        int na;
        if (pass == CP_PASS_FWD)
            na = build(l, x, pass, n, in.c, l->out_c, o.h, o.w, xb, yb, alt, ALT, err);
        else if (pass == CP_PASS_BWD_DATA)
            na = build(l, x, pass, n, l->out_c, in.c, in.h, in.w, yb, xb, alt, ALT, err);
        else
            na = build(l, x, pass, n, in.c, l->out_c, o.h, o.w, xb, yb, alt, ALT, err);
        if (na < 0)
            return -1;
        if (na == 0 || na > max)
            continue;
        double t = cp_kernels_ms(alt, na, x->dev, best, err);
        if (t < 0)
            return -1;
        if (t >= best)
            continue;
        best = t;
        for (int i = 0; i < na; i++)
            out[i] = alt[i];
        ng = na;
    }
    return ng;
}

/* --- NCHW tensors on tensor cores ------------------------------------------ */

/* cuDNN's tensor-core convolution kernels are NHWC kernels: an NCHW pass runs
 * on NHWC copies, each activation it reads transposed in and the one it
 * writes transposed back (the nchwToNhwc/nhwcToNchw kernels of any NCHW
 * 16-bit profile; why frameworks recommend channels-last). On the calibration
 * set this takes the model's 16-bit 3x3 layers from 1.6-3.0x under the
 * measured time, the more the fewer channels, to an even 1.3-1.6x (VGG-11:
 * 64 channels at 224x224 2.8x -> 1.6x, 512 at 28x28 1.6x -> 1.3x), and TF32
 * 3x3 forward passes from 18% to 6% mean error after the fit.
 *
 * One exception: a 1x1 convolution is a GEMM over each image's C x (H x W)
 * matrix, which kernels load straight from NCHW in 16-byte vectors along
 * the plane, unless a plane is not a whole number of such vectors (14x14 in
 * 16 bits: 392 bytes) or a stride skips pixels. (Calibration set: 16-bit 1x1
 * convolutions on 56x56 and 28x28 planes run at the GEMM's time, on 7x7,
 * 13x13, 14x14, 17x17 and 35x35 planes and with stride 2 at 2-4x; TF32 is
 * slowed on 7x7, far less on 14x14, whose 784-byte plane is aligned for
 * 4-byte elements.) */
#define TC_VECTOR_BYTES 16

static bool plane_misaligned(cp_shape s, double elem_bytes)
{
    return fmod((double)s.h * s.w * elem_bytes, TC_VECTOR_BYTES) != 0;
}

/* PyTorch's path has two 16-bit 1x1 weight-gradient engines for NCHW: one
 * reads the planes as they are (engine 62), the other copies x and dy to
 * NHWC first (engine 65), and cuDNN's search takes the second once the
 * gradient has more than 512 x 256 elements: single 1x1 layers at 12x12 to
 * 40x40 (validation/layerbench-h100/wgrad16/) and the calibration set's
 * Inception-v3 8x8 layers ran it, 54-63% past the time without the copies
 * and within 9% of it with them (docs/ACCURACY.md, session 47, rule 21). */
#define WGRAD16_1X1_DIRECT_MAX_CHANNELS 131072.0

/* TF32 passes past the same bound are timed between transposes in every
 * API and mode, even where the plane is aligned. From 4x the bound the graph
 * API's searches mostly pick cuDNN 9.14's transposing NHWC engines for all
 * three passes (validation/ncu-tf32-h200/, layerbench-h200/tf32wide61/,
 * h200/tf32hold63/).
 * Between the bounds it keeps its NCHW engines, but on 14x14 planes their
 * forward and weight gradient take about the transposed time, 1.5x what the
 * model's NCHW GEMM gives, and the data gradient lies between the two: the
 * transposes stand for a rate, not for kernels (docs/ACCURACY.md, rules 42
 * and 43 and the note after them). */
#define TF32_DGRAD_1X1_NHWC_MIN_CHANNELS (4.0 * WGRAD16_1X1_DIRECT_MAX_CHANNELS)

static bool wide_1x1_via_nhwc(const cp_layer *l, cp_pass pass, const cp_exec *x)
{
    double pairs = (double)l->in[0].c * l->out_c;
    if (l->kh != 1 || l->kw != 1 || pairs <= WGRAD16_1X1_DIRECT_MAX_CHANNELS)
        return false;
    if (x->prec == CP_PREC_TF32)
        return l->groups == 1 && l->sh == 1 && l->sw == 1 &&
               (pass != CP_PASS_BWD_DATA || pairs >= TF32_DGRAD_1X1_NHWC_MIN_CHANNELS);
    return pass == CP_PASS_BWD_WEIGHT && x->algos == CP_ALGOS_PYTORCH && cp_precision_bytes(x->prec) == 2;
}

const char *cp_conv_pass_algorithm(const cp_kernel *k, int n)
{
    static const struct {
        const char *prefix, *algorithm;
    } by_name[] = {
        {"winograd_", "winograd"},       {"fft_", "fft"},          {"wgrad_engine", "wgrad_engine"},
        {"wgrad_xmma", "wgrad_engine"},  {"conv_direct", "direct"}, {"xmma_", "implicit_gemm"},
        {"conv_fprop", "implicit_gemm"}, {"conv_dgrad", "implicit_gemm"}, {"conv_wgrad", "implicit_gemm"},
    };
    for (size_t a = 0; a < sizeof by_name / sizeof by_name[0]; a++)
        for (int i = 0; i < n; i++)
            if (strncmp(k[i].name, by_name[a].prefix, strlen(by_name[a].prefix)) == 0)
                return by_name[a].algorithm;
    return "other";
}

bool cp_conv_wgrad_winograd_unsplit(const cp_layer *l, const cp_exec *x)
{
    return fp32_3x3_wgrad_without_gemm(l, CP_PASS_BWD_WEIGHT, x);
}

bool cp_conv_wgrad_1x1_via_nhwc(const cp_layer *l, const cp_exec *x)
{
    return wide_1x1_via_nhwc(l, CP_PASS_BWD_WEIGHT, x);
}

/* Appends the layout transposes of a pass whose kernels want the other
 * layout, returns the new kernel count: a tensor-core pass on NCHW
 * activations, unless it is a 1x1 convolution that reads NCHW as it is, and
 * an FP32 pass on channels-last ones. cuDNN's FP32 engines are NCHW kernels:
 * in PyTorch's channels-last ResNet-18 FP32 iteration they run between
 * nhwcToNchw and nchwToNhwc kernels, the tensor-core ones in 16 bits with
 * none (tools/kernel_trace.py --channels-last; validation/h100/torch/chlast29/). */
static int layout_transposes(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int nk, int max)
{
    double eb = cp_precision_bytes(x->prec);
    cp_shape in = l->in[0], o = l->out;
    bool nchw_kernels = x->prec == CP_PREC_FP32;
    if (nchw_kernels != x->channels_last || (l->groups != 1 && !graph_grouped(l, x)))
        return nk;
    if (!x->channels_last && l->kh == 1 && l->kw == 1 && l->sh == 1 && l->sw == 1 && !plane_misaligned(in, eb) &&
        !plane_misaligned(o, eb) && !wide_1x1_via_nhwc(l, pass, x))
        return nk;
    const char *to_kernels = x->channels_last ? "nhwc_to_nchw" : "nchw_to_nhwc";
    const char *back = x->channels_last ? "nchw_to_nhwc" : "nhwc_to_nchw";
    double n = x->batch, xe = n * cp_shape_elems(in), ye = n * cp_shape_elems(o);
    double xb = cp_act_bytes(x, in), yb = cp_act_bytes(x, o);
    /* read in: forward x; backward-data dy; backward-weight x and dy */
    double rd[2] = {pass == CP_PASS_BWD_DATA ? ye : xe, pass == CP_PASS_BWD_WEIGHT ? ye : 0};
    double rb[2] = {pass == CP_PASS_BWD_DATA ? yb : xb, pass == CP_PASS_BWD_WEIGHT ? yb : 0};
    cp_kernel t[2];
    int nt = 0;
    for (int i = 0; i < 2; i++)
        if (rd[i] > 0)
            t[nt++] = cp_stream_kernel(x->dev, x->prec, to_kernels, rd[i], rb[i], rb[i], 0);
    if (nk + nt + 1 > max)
        return nk;
    for (int i = nk - 1; i >= 0; i--) /* the transposes in run first */
        out[i + nt] = out[i];
    for (int i = 0; i < nt; i++)
        out[i] = t[i];
    nk += nt;
    /* written back: forward y, backward-data dx (the weight gradient is small) */
    if (pass == CP_PASS_FWD)
        out[nk++] = cp_stream_kernel(x->dev, x->prec, back, ye, yb, yb, 0);
    else if (pass == CP_PASS_BWD_DATA)
        out[nk++] = cp_stream_kernel(x->dev, x->prec, back, xe, xb, xb, 0);
    return nk;
}

/* --- fewer channels than a tensor-core vector --------------------------------
 *
 * An input of fewer channels than one 16-byte vector (the 3 of an image;
 * LeNet's 6 in 16 bits) does not fit tensor-core kernels' loads. cuDNN has
 * one tensor-core kernel for it, FP16 7x7 stride 2 into 64 channels
 * (`sm90_xmma_fprop_image_first_layer_..._k64c4r7s7_stride2x2`, Nsight
 * Compute, validation/h100/ncu/); every other such pass runs at the FP32
 * lanes' pace whatever the precision (`implicit_convolve_sgemm`, cudnnFind's
 * "default" math). Layer microbenchmarks of 3-channel convolutions on the H100
 * (validation/layerbench-h100/): 16-bit forward against FP32 11x11/4 0.80,
 * 9x9/3 0.84, 5x5/2 1.48, 3x3/1 0.96, 3x3/2 1.02, and 7x7/2 0.50 (the
 * kernel above); TF32 forward within 0.88-1.0 of FP32 everywhere, bf16 7x7/2
 * too, and TF32 weight gradients within 0.73-1.02. The 16-bit weight
 * gradient is another kernel (0.62-1.75 of FP32's) and stays a tensor-core
 * GEMM here. */

static bool on_fma_lanes(const cp_layer *l, cp_pass pass, const cp_exec *x)
{
    if (x->prec == CP_PREC_FP32 || x->dev->tensor_tflops[x->prec] <= 0 || l->groups != 1 ||
        l->in[0].c * cp_precision_bytes(x->prec) >= TC_VECTOR_BYTES)
        return false; /* no tensor cores in play */
    if (pass == CP_PASS_BWD_WEIGHT && x->prec != CP_PREC_TF32)
        return false;
    bool image_first_layer = x->prec == CP_PREC_FP16 && l->kh == 7 && l->kw == 7 && l->sh == 2 && l->sw == 2 &&
                             l->out_c == 64;
    return !image_first_layer;
}

/* --- grouped convolutions ---------------------------------------------------
 *
 * Depthwise layers (one input channel a group: MobileNet, MNASNet) run
 * cuDNN's direct kernels below. Other grouped layers (ResNeXt's 32 groups of
 * 4 to 32 channels, RegNet's) run, through the graph API (PyTorch's path),
 * as layer microbenchmarks of our choosing showed on the H100
 * (validation/layerbench-h100/groupbench/: 3 to 24 channels a group, 8 to 64
 * groups): in FP32 one dense convolution per group, one group after another
 * (engines 28, 1 and 20; Nsight Compute lists winograd_nonfused's four
 * kernels per group for the forward and data gradient and wgrad_alg0_engine
 * per group for the weights, 32 launches each for 32 groups), and in 16 bits
 * as one grouped implicit GEMM on NHWC copies (sm80_xmma_fprop/dgrad and
 * sm90_xmma_wgrad ..._g8, with the nchwToNhwc/nhwcToNchw transposes of any
 * 16-bit pass). The per-group FP32 convolution's algorithm is timed as
 * cudnnFind would pick it, which is where those engines come from. */
static int kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err);

/* cuDNN's depthwise engine 0 (FP32 and TF32, and 16 bits with a stride)
 * takes about 1.0 ps per output and filter tap on an H100 however the layer
 * is shaped: 0.98-1.07 over the calibration set's MobileNet-v2 FP32 3x3
 * forwards (32 to 960 channels, 7x7 to 112x112; validation/h100/graph-api/),
 * its data gradients 1.42-1.46 per input pixel and tap with or without a
 * stride. At 528 schedulers and 1.98 GHz that is ~33 issue slots per warp's
 * multiply-add: bound by its latency, not its arithmetic or bytes, its time
 * follows the taps. The 16-bit stride-1 engines (57, 62) run at 0.3-0.9 ps
 * and keep the plain two slots, their class calibration the rest. */
#define DEPTHWISE_ENGINE0_SLOTS_PER_MAC 33.0

static double direct_slots_per_mac(const cp_layer *l, const cp_exec *x)
{
    /* channels-last depthwise layers run cuDNN's NHWC kernels, stride or
     * not: in 16 bits sm90_xmma_depthwise and dgrad2d_c1_k1_nhwc (PyTorch's
     * MobileNet-v2, validation/h100/torch/chlast29/: 41 us forward and 134 us
     * data gradient for the 96-channel 112x112 stride-2 layer at b32, where
     * engine 0's pace would be 87 and 482), in FP32 conv2d_c1_k1_nhwc,
     * dgrad2d_c1_k1_nhwc_specialized and sm90_xmma_depthwise wgrad (all 17
     * of MobileNet-v2's at b32: 311, 554 and 578 us in all, where engine 0's
     * pace would be 714, 1621 and 837; validation/h100/torch/chlast31/) */
    if (x->channels_last)
        return 2.0;
    bool engine0 = x->prec == CP_PREC_FP32 || x->prec == CP_PREC_TF32 || cp_layer_strided(l);
    return engine0 ? DEPTHWISE_ENGINE0_SLOTS_PER_MAC : 2.0;
}

/* 16-bit grouped layers (not depthwise) run one packed implicit GEMM behind
 * either API and in PyTorch, 64 / P groups a tile (P: a group's channels
 * rounded up to a power of two; ..._g16_ kernels at 4 channels a group,
 * _g2_ at 32, 3 channels padded to 4), and at a power of two of channels a
 * group its time follows its operands, not its multiply-adds: per output
 * element and filter tap it is nearly constant from 4 to 32 channels a group
 * (PyTorch's channels-last kernels, validation/layerbench-h100/groupblock2/
 * and groupbench2/). So the pass is modelled as that operand traffic through
 * L2, its bytes per output element and tap fitted on groupbench2's
 * channels-last traces and checked on groupbench3's, measured after
 * (docs/ACCURACY.md, session 46, rule 20b); an NCHW pass adds the layout
 * transposes of any 16-bit pass, at cuDNN's rate (below). Both APIs
 * (layer.h, cp_layer_packed_grouped): the legacy API runs the same kernels
 * in the same time, 0.96-1.04x the graph API's when each pass is timed
 * behind a spin that hides the legacy call's 20-100 us host latency
 * (validation/layerbench-h200/groupbehind63; rules 44 and 46). Groups not a
 * power of two wide take 1.5-1.7x what padding accounts for (groupbench's
 * 3-24 channels), and strided data gradients still 1.2-1.7x this model with
 * rule 48's taps: neither is modelled so. */
static const double GROUPED16_L2_BYTES[CP_PASS_UPDATE] = {
    [CP_PASS_FWD] = 3.22, [CP_PASS_BWD_DATA] = 3.25, [CP_PASS_BWD_WEIGHT] = 3.91};

/* The NCHW pass's transposes at cuDNN's rate, not a stream kernel's: in groupbench2's 16-bit NCHW PyTorch traces
 * (the layers above, H100), transposes of 20 us or more took a median 1.26x the stream model into NHWC and 1.47x
 * back into NCHW, as if they moved that much more DRAM traffic: a tile of 2-byte elements reads or writes the NCHW
 * side in 64-byte pieces, half a line. Only here, where no calibration term stands over the pass: given to every
 * 16-bit transpose, the calibrated classes' fitted scales had been absorbing it, and refitted with it they came out
 * worse (docs/ACCURACY.md session 63, rule 47). */
static const double GROUPED16_TRANSPOSE_DRAM_TO_NHWC = 1.26, GROUPED16_TRANSPOSE_DRAM_TO_NCHW = 1.47;

static void transposes_at_cudnn_rate(cp_kernel *k, int nk)
{
    for (int i = 0; i < nk; i++)
        if (strcmp(k[i].name, "nchw_to_nhwc") == 0)
            k[i].dram_bytes *= GROUPED16_TRANSPOSE_DRAM_TO_NHWC;
        else if (strcmp(k[i].name, "nhwc_to_nchw") == 0)
            k[i].dram_bytes *= GROUPED16_TRANSPOSE_DRAM_TO_NCHW;
}

static double pow2_ceil(double v)
{
    double p = 1;
    while (p < v)
        p *= 2;
    return p;
}

static int packed_grouped_kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max)
{
    cp_shape in = l->in[0], o = l->out;
    double n = x->batch, g = l->groups, rs = (double)l->kh * l->kw;
    bool dgrad = pass == CP_PASS_BWD_DATA;
    /* the GEMM's group-local side: input channels a group, output channels for the data gradient */
    double w = (dgrad ? l->out_c : in.c) / g;
    double outs = n * cp_shape_elems(dgrad ? in : o); /* output elements (the input's for the data gradient) */
    /* a strided data gradient's input pixels take 1 to ceil(k/s) taps a side by their phase (3x3 stride 2: 1 or
     * 2, 2.25 in all on average); the kernel gives every pixel the most, 4, not the average (rule 48) */
    double taps = dgrad ? (double)cp_cdiv(l->kh, l->sh) * cp_cdiv(l->kw, l->sw) : rs;
    double count = outs * taps * pow2_ceil(w) / w;
    double wbytes = (double)l->params * cp_precision_bytes(x->prec);
    double xb = cp_act_bytes(x, in), yb = cp_act_bytes(x, o);
    double rd = pass == CP_PASS_FWD ? xb + wbytes : dgrad ? yb + wbytes : xb + yb;
    double wr = pass == CP_PASS_FWD ? yb : dgrad ? xb : wbytes;
    static const char *const names[CP_PASS_UPDATE] = {"grouped_fprop", "grouped_dgrad", "grouped_wgrad"};
    if (max < 1)
        return 0;
    cp_kernel k = cp_stream_kernel(x->dev, x->prec, names[pass], outs, rd, wr,
                                   2.0 * n * cp_shape_elems(o) * (in.c / g) * rs);
    k.I = count * GROUPED16_L2_BYTES[pass] / (double)k.blocks / k.ld_bytes;
    /* the multiply-adds, padded groups' included: a few percent of the tensor cores' rate at these widths, hidden
     * behind the operands (on a GPU without tensor cores for this precision, its FMA lanes) */
    double padded_flops = k.flops * pow2_ceil(w) / w;
    if (x->dev->tensor_tflops[x->prec] > 0) {
        k.pipe = CP_PIPE_TENSOR;
        k.flops_per_L = 4096.0; /* m16n8k16 */
    } else {
        k.flops_per_L = 2.0 * x->dev->warp_size;
    }
    k.L = padded_flops / (double)k.blocks / k.flops_per_L;
    out[0] = k;
    return 1;
}

/* FP32 grouped (not depthwise) through the graph API: one group's dense
 * convolution, launched once per group. */
static int group_by_group(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    cp_layer one = *l;
    one.groups = 1;
    one.in[0].c = l->in[0].c / l->groups;
    one.out_c = one.out.c = l->out_c / l->groups;
    one.params = (long long)one.out_c * one.in[0].c * l->kh * l->kw;
    one.bias = false; /* the layer's bias, once, below */
    cp_exec sub = *x;
    sub.algos = CP_ALGOS_FIND;
    sub.channels_last = false; /* a channels-last tensor is transposed once, whole, not group by group */
    int nk = kernels(&one, pass, &sub, out, max, err);
    for (int i = 0; i < nk; i++)
        out[i].repeat = l->groups;
    if (nk > 0 && x->channels_last) {
        cp_layer whole = *l;
        whole.groups = 1; /* layout_transposes leaves grouped layers alone */
        nk = layout_transposes(&whole, pass, x, out, nk, max);
    }
    return nk;
}

static int kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    if (pass == CP_PASS_UPDATE)
        return cp_sgd_kernels(l, x, out, max);
    cp_shape in = l->in[0], o = l->out;
    double n = x->batch, g = l->groups;
    double cin = in.c / g, cout = l->out_c / g, rs = (double)l->kh * l->kw;
    double wbytes = (double)l->params * cp_precision_bytes(x->prec);
    double xb = cp_act_bytes(x, in), yb = cp_act_bytes(x, o);
    int nk = 0;
    bool by_graph = graph_grouped(l, x);
    if (cp_layer_packed_grouped(l, x)) {
        nk = packed_grouped_kernels(l, pass, x, out, max);
        cp_layer whole = *l;
        whole.groups = 1; /* layout_transposes leaves grouped layers alone */
        if (nk > 0)
            nk = layout_transposes(&whole, pass, x, out, nk, max);
        transposes_at_cudnn_rate(out, nk);
    } else if (by_graph && x->prec == CP_PREC_FP32) {
        nk = group_by_group(l, pass, x, out, max, err);
    } else if (l->groups > 1 && !by_graph && cin < DIRECT_MAX_GROUP_CHANNELS) {
        double outs = n * cp_shape_elems(o), slots = direct_slots_per_mac(l, x);
        if (pass == CP_PASS_FWD)
            out[nk++] = cp_direct_conv_kernel(x->dev, x->prec, "conv_direct_fprop", outs, cin * rs, slots,
                                              xb + wbytes, yb);
        else if (pass == CP_PASS_BWD_DATA)
            /* every tap for every input pixel, whatever the stride: the
             * calibration set's strided depthwise data gradients take as
             * long per input pixel as its stride-1 ones (MobileNet-v2, H100
             * FP32: 1.42 and 1.46 ps per pixel and tap) */
            out[nk++] = cp_direct_conv_kernel(x->dev, x->prec, "conv_direct_dgrad", n * cp_shape_elems(in),
                                              cout * rs, slots, yb + wbytes, xb);
        else
            out[nk++] = cp_direct_conv_kernel(x->dev, x->prec, "conv_direct_wgrad", outs, cin * rs, slots,
                                              xb + yb, wbytes);
    } else if (on_fma_lanes(l, pass, x)) {
        nk = gemm_on(l, pass, x, CP_PREC_FP32, out, max, err);
    } else if (winograd_fits(l, pass, x) || fft_fits(l, x)) {
        nk = fastest_algorithm(l, pass, x, out, max, err);
        if (nk > 0 && x->channels_last) /* Winograd and FFT are NCHW engines too */
            nk = layout_transposes(l, pass, x, out, nk, max);
    } else {
        nk = gemm_pass(l, pass, x, out, max, err);
        /* an implicit-GEMM weight gradient of channels-last FP32 tensors runs
         * on cuDNN's NHWC kernels as they are (wgrad_alg0_engine_NHWC,
         * ..._wgrad_implicit_gemm_indexed_..._nhwc: MobileNet-v2's 35 dense
         * weight gradients, none between transposes; validation/h100/torch/chlast31/) */
        bool nhwc_wgrad = pass == CP_PASS_BWD_WEIGHT && x->channels_last && x->prec == CP_PREC_FP32;
        if (nk > 0 && !nhwc_wgrad)
            nk = layout_transposes(l, pass, x, out, nk, max);
    }
    if (nk < 0)
        return -1;
    /* Frameworks add a convolution's bias as a separate broadcast kernel
     * after cuDNN's convolution (PyTorch's _convolution does output.add_). */
    if (pass == CP_PASS_FWD && l->bias && nk < max)
        out[nk++] = cp_stream_kernel(x->dev, x->prec, "bias_add", n * cp_shape_elems(o), yb + 4.0 * l->out_c, yb,
                                     n * cp_shape_elems(o));
    if (pass == CP_PASS_BWD_WEIGHT && l->bias && nk < max)
        out[nk++] = cp_stream_kernel(x->dev, x->prec, "bias_grad_reduce", n * cp_shape_elems(o), yb,
                                     4.0 * l->out_c, n * cp_shape_elems(o));
    return nk;
}

const cp_layer_kind cp_conv_kind = {"conv", fields, 1, 1, true, parse, infer, flops, kernels,
                                    false, false, CP_SAVES_INPUT | CP_SAVES_WEIGHT_COPY, 0};
