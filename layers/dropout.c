/* Dropout in training mode: forward draws a mask (one byte per element) and
 * scales; backward applies the mask to dy. */
#include "layer.h"

static const char *const fields[] = {"p", NULL};

static int parse(cp_layer *l, const cJSON *o, cp_jctx *c)
{
    if (cp_jnum(c, o, "p", false, 0.5, 0, 0.999999, &l->p))
        return -1;
    return 0;
}

static double flops(const cp_layer *l, cp_pass pass, int batch)
{
    double n = batch * cp_shape_elems(l->out);
    return pass == CP_PASS_FWD ? 8 * n : pass == CP_PASS_BWD_DATA ? n : 0; /* Philox draw, compare, scale */
}

static int kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    (void)err;
    if (max < 1 || (pass != CP_PASS_FWD && pass != CP_PASS_BWD_DATA))
        return 0;
    double n = x->batch * cp_shape_elems(l->out), b = cp_act_bytes(x, l->out);
    if (pass == CP_PASS_FWD)
        out[0] = cp_stream_kernel(x->dev, x->prec, "dropout_fwd", n, b, b + n, flops(l, pass, x->batch));
    else
        out[0] = cp_stream_kernel(x->dev, x->prec, "dropout_bwd", n, b + n, b, flops(l, pass, x->batch));
    return 1;
}

const cp_layer_kind cp_dropout_kind = {"dropout", fields, 1, 1, false, parse, cp_infer_same, flops, kernels,
                                       false, false, 0, 1};
