/* Softmax with cross-entropy loss: the training objective at the end of a
 * network. Forward computes probabilities and the loss; backward writes
 * (p - onehot) / batch. */
#include "layer.h"

static double flops(const cp_layer *l, cp_pass pass, int batch)
{
    double n = batch * cp_shape_elems(l->out);
    return pass == CP_PASS_FWD ? 5 * n : pass == CP_PASS_BWD_DATA ? 2 * n : 0;
}

static int kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    (void)err;
    if (max < 1 || (pass != CP_PASS_FWD && pass != CP_PASS_BWD_DATA))
        return 0;
    double n = x->batch * cp_shape_elems(l->out), b = cp_act_bytes(x, l->out), labels = 4.0 * x->batch;
    if (pass == CP_PASS_FWD)
        out[0] = cp_stream_kernel(x->dev, x->prec, "softmax_xent_fwd", n, b + labels, b + 4.0, flops(l, pass, x->batch));
    else
        out[0] = cp_stream_kernel(x->dev, x->prec, "softmax_xent_bwd", n, b + labels, b, flops(l, pass, x->batch));
    return 1;
}

const cp_layer_kind cp_softmax_kind = {"softmax", NULL, 1, 1, false, NULL, cp_infer_same, flops, kernels,
                                       false, false, CP_SAVES_OUTPUT, 0};
