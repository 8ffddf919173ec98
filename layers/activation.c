/* ReLU and ReLU6: one element-wise kernel forward, one backward. */
#include "layer.h"

static double flops(const cp_layer *l, cp_pass pass, int batch)
{
    return pass == CP_PASS_FWD || pass == CP_PASS_BWD_DATA ? batch * cp_shape_elems(l->out) : 0;
}

static int kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    (void)err;
    if (max < 1 || (pass != CP_PASS_FWD && pass != CP_PASS_BWD_DATA))
        return 0;
    double n = x->batch * cp_shape_elems(l->out), b = cp_act_bytes(x, l->out);
    int six = l->kind->name[4] == '6';
    if (pass == CP_PASS_FWD)
        out[0] = cp_stream_kernel(x->dev, x->prec, six ? "relu6_fwd" : "relu_fwd", n, b, b, n);
    else /* reads dy and y, writes dx */
        out[0] = cp_stream_kernel(x->dev, x->prec, six ? "relu6_bwd" : "relu_bwd", n, 2 * b, b, n);
    return 1;
}

const cp_layer_kind cp_relu_kind = {"relu", NULL, 1, 1, false, NULL, cp_infer_same, flops, kernels,
                                    false, false, CP_SAVES_OUTPUT, 0};
const cp_layer_kind cp_relu6_kind = {"relu6", NULL, 1, 1, false, NULL, cp_infer_same, flops, kernels,
                                     false, false, CP_SAVES_OUTPUT, 0};
