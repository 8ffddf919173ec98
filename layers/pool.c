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

static int window_kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max,
                          cp_error *err)
{
    (void)err;
    if (max < 1)
        return 0;
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
    if (pass == CP_PASS_BWD_DATA) {
        /* cuDNN's max-pool backward re-reads x and y to find each window's maximum. */
        double in_bytes = is_max ? xb + 2 * yb : yb;
        out[0] = cp_stream_kernel(x->dev, x->prec, is_max ? "maxpool_bwd" : "avgpool_bwd", ins, in_bytes, xb,
                                  window_flops(l, pass, x->batch));
        return 1;
    }
    return 0;
}

const cp_layer_kind cp_maxpool_kind = {"maxpool", window_fields, 1, 1, false, parse_window, infer_window,
                                       window_flops, window_kernels};
const cp_layer_kind cp_avgpool_kind = {"avgpool", window_fields, 1, 1, false, parse_window, infer_window,
                                       window_flops, window_kernels};
const cp_layer_kind cp_global_avgpool_kind = {"global_avgpool", NULL, 1, 1, false, NULL, infer_global,
                                              window_flops, window_kernels};
const cp_layer_kind cp_adaptive_avgpool_kind = {"adaptive_avgpool", adaptive_fields, 1, 1, false, parse_adaptive,
                                                infer_adaptive, window_flops, window_kernels};
