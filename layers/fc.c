/* Fully connected: a GEMM per pass (cuBLAS), bias fused into the forward
 * epilogue and reduced separately in backward. */
#include "layer.h"

static const char *const fields[] = {"out", "bias", NULL};

static int parse(cp_layer *l, const cJSON *o, cp_jctx *c)
{
    long long out;
    if (cp_jint(c, o, "out", true, 0, 1, 1 << 26, &out) || cp_jbool(c, o, "bias", true, &l->bias))
        return -1;
    l->out_c = (int)out;
    return 0;
}

static int infer(cp_layer *l, cp_jctx *c)
{
    cp_shape in = l->in[0];
    if (in.h != 1 || in.w != 1)
        return cp_jfail(c, "inputs", "an fc layer needs a flat input, got %dx%dx%d (add a 'flatten' layer first)",
                        in.c, in.h, in.w);
    l->out = (cp_shape){l->out_c, 1, 1};
    l->params = (long long)in.c * l->out_c + (l->bias ? l->out_c : 0);
    return 0;
}

static double flops(const cp_layer *l, cp_pass pass, int batch)
{
    if (pass == CP_PASS_UPDATE)
        return 4.0 * (double)l->params;
    return 2.0 * batch * (double)l->in[0].c * l->out_c;
}

static int kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    if (pass == CP_PASS_UPDATE)
        return cp_sgd_kernels(l, x, out, max);
    double n = x->batch, in = l->in[0].c, o = l->out_c;
    double bytes = cp_act_bytes(x, l->in[0]) + cp_act_bytes(x, l->out) + in * o * cp_precision_bytes(x->prec);
    cp_gemm g;
    if (pass == CP_PASS_FWD)
        g = (cp_gemm){n, o, in, 1, bytes, 0, CP_GEMM_CUTLASS};
    else if (pass == CP_PASS_BWD_DATA)
        g = (cp_gemm){n, in, o, 1, bytes, 0, CP_GEMM_CUTLASS};
    else
        g = (cp_gemm){o, in, n, 1, bytes, 1, CP_GEMM_CUTLASS};
    const char *what = pass == CP_PASS_FWD ? "fc_fprop" : pass == CP_PASS_BWD_DATA ? "fc_dgrad" : "fc_wgrad";
    int nk = cp_gemm_kernels(x->dev, x->prec, &g, what, x->gemm_tiles, out, max, err);
    if (nk < 0)
        return -1;
    if (pass == CP_PASS_BWD_WEIGHT && l->bias && nk < max)
        out[nk++] = cp_stream_kernel(x->dev, x->prec, "bias_grad_reduce", n * o, cp_act_bytes(x, l->out), 4.0 * o,
                                     n * o);
    return nk;
}

const cp_layer_kind cp_fc_kind = {"fc", fields, 1, 1, true, parse, infer, flops, kernels,
                                  false, false, CP_SAVES_INPUT | CP_SAVES_WEIGHT_COPY, 0};
