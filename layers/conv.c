/* Convolution: shape inference, parameters, FLOPs, and its kernels.
 *
 * Forward, backward-data and backward-weight are each an implicit GEMM, as
 * cuDNN runs them (no im2col copy: the GEMM reads the tensors themselves).
 * Depthwise and other thin-group convolutions have too little reuse for a
 * GEMM and run as a direct kernel on the FMA pipe. */
#include "layer.h"

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
    if (l->groups > 1 && cin < DIRECT_MAX_GROUP_CHANNELS) {
        double outs = n * cp_shape_elems(o);
        if (pass == CP_PASS_FWD)
            out[nk++] = cp_direct_conv_kernel(x->dev, x->prec, "conv_direct_fprop", outs, cin * rs, xb + wbytes, yb);
        else if (pass == CP_PASS_BWD_DATA)
            out[nk++] = cp_direct_conv_kernel(x->dev, x->prec, "conv_direct_dgrad", n * cp_shape_elems(in),
                                              cout * rs / ((double)l->sh * l->sw), yb + wbytes, xb);
        else
            out[nk++] = cp_direct_conv_kernel(x->dev, x->prec, "conv_direct_wgrad", outs, cin * rs, xb + yb,
                                              wbytes);
    } else {
        cp_gemm gm;
        const char *what;
        if (pass == CP_PASS_FWD) {
            gm = (cp_gemm){n * o.h * o.w, cout, cin * rs, g, xb + yb + wbytes, 0};
            what = "conv_fprop";
        } else if (pass == CP_PASS_BWD_DATA) {
            /* A strided dgrad touches each input pixel with 1/(sh*sw) of the taps. */
            double k = cout * rs / ((double)l->sh * l->sw);
            gm = (cp_gemm){n * in.h * in.w, cin, k < 1 ? 1 : k, g, xb + yb + wbytes, 0};
            what = "conv_dgrad";
        } else {
            gm = (cp_gemm){cout, cin * rs, n * o.h * o.w, g, xb + yb + wbytes, 1};
            what = "conv_wgrad";
        }
        int r = cp_gemm_kernels(x->dev, x->prec, &gm, what, x->gemm_tiles, out, max, err);
        if (r < 0)
            return -1;
        nk += r;
    }
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

const cp_layer_kind cp_conv_kind = {"conv", fields, 1, 1, true, parse, infer, flops, kernels};
