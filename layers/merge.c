/* The layers that join branches of the DAG (concat, add) and flatten, which
 * only reinterprets a tensor. */
#include "layer.h"

static int infer_concat(cp_layer *l, cp_jctx *c)
{
    cp_shape s = l->in[0];
    for (int i = 1; i < l->n_inputs; i++) {
        if (l->in[i].h != s.h || l->in[i].w != s.w)
            return cp_jfail(c, "inputs", "concat inputs differ in height/width: %dx%d (input 0) vs %dx%d (input %d)",
                            s.h, s.w, l->in[i].h, l->in[i].w, i);
        s.c += l->in[i].c;
    }
    l->out = s;
    return 0;
}

static int infer_add(cp_layer *l, cp_jctx *c)
{
    cp_shape s = l->in[0];
    for (int i = 1; i < l->n_inputs; i++)
        if (l->in[i].c != s.c || l->in[i].h != s.h || l->in[i].w != s.w)
            return cp_jfail(c, "inputs", "add inputs differ in shape: %dx%dx%d (input 0) vs %dx%dx%d (input %d)", s.c,
                            s.h, s.w, l->in[i].c, l->in[i].h, l->in[i].w, i);
    l->out = s;
    return 0;
}

static int infer_flatten(cp_layer *l, cp_jctx *c)
{
    cp_shape s = l->in[0];
    double e = cp_shape_elems(s);
    if (e > 2147483647.0)
        return cp_jfail(c, NULL, "flattened size %.0f is too large", e);
    l->out = (cp_shape){(int)e, 1, 1};
    return 0;
}

static double flops_concat(const cp_layer *l, cp_pass pass, int batch)
{
    (void)l, (void)pass, (void)batch;
    return 0;
}

static double flops_add(const cp_layer *l, cp_pass pass, int batch)
{
    return pass == CP_PASS_FWD ? (double)batch * cp_shape_elems(l->out) * (l->n_inputs - 1) : 0;
}

/* Forward copies every input into its slice of the output; backward copies
 * the slices of dy out again: one strided 2-D copy per input, as
 * cnnperf-measure and frameworks without a fused concat run it, each with
 * its own launch (GoogLeNet's four-way concats measured 1.3-1.9x one copy's
 * time). */
static int kernels_concat(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    (void)err;
    if (max < 1 || (pass != CP_PASS_FWD && pass != CP_PASS_BWD_DATA))
        return 0;
    int k = l->n_inputs < max ? l->n_inputs : max;
    for (int j = 0; j < k; j++) {
        cp_shape in = l->in[j];
        for (int m = k; j == k - 1 && m < l->n_inputs; m++) /* more inputs than kernels: the last takes the rest */
            in.c += l->in[m].c;
        double n = x->batch * cp_shape_elems(in), b = cp_act_bytes(x, in);
        out[j] = cp_stream_kernel(x->dev, x->prec, pass == CP_PASS_FWD ? "concat_copy" : "concat_split", n, b, b, 0);
    }
    return k;
}

/* Backward of add passes dy through unchanged: no kernel. (Gradients that
 * meet at a fork are summed by the producer, see predict.c.) */
static int kernels_add(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    (void)err;
    if (max < 1 || pass != CP_PASS_FWD)
        return 0;
    double n = x->batch * cp_shape_elems(l->out), b = cp_act_bytes(x, l->out);
    out[0] = cp_stream_kernel(x->dev, x->prec, "add_fwd", n, b * l->n_inputs, b, flops_add(l, pass, x->batch));
    return 1;
}

static int kernels_none(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    (void)l, (void)pass, (void)x, (void)out, (void)max, (void)err;
    return 0;
}

const cp_layer_kind cp_concat_kind = {"concat", NULL, 2, CP_MAX_INPUTS, false, NULL, infer_concat, flops_concat,
                                      kernels_concat, false, false, 0, 0};
const cp_layer_kind cp_add_kind = {"add", NULL, 2, CP_MAX_INPUTS, false, NULL, infer_add, flops_add, kernels_add,
                                   true, false, 0, 0};
const cp_layer_kind cp_flatten_kind = {"flatten", NULL, 1, 1, false, NULL, infer_flatten, flops_concat,
                                       kernels_none, true, true, 0, 0};
