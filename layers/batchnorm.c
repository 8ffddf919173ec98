/* Batch normalisation in training mode (cudnnBatchNormalizationForwardTraining
 * and ...Backward): a statistics reduction then a normalising pass forward;
 * backward reduces dgamma/dbeta (backward-weight) then applies dx
 * (backward-data). Each kernel works channel by channel (cp_channel_kernel):
 * how fast it streams depends on how many channels there are. */
#include "layer.h"

static int infer(cp_layer *l, cp_jctx *c)
{
    (void)c;
    l->out = l->in[0];
    l->params = 2LL * l->out.c;
    return 0;
}

static double flops(const cp_layer *l, cp_pass pass, int batch)
{
    double n = batch * cp_shape_elems(l->out);
    switch (pass) {
    case CP_PASS_FWD: return 5 * n;        /* mean, variance, normalise, scale, shift */
    case CP_PASS_BWD_DATA: return 4 * n;
    case CP_PASS_BWD_WEIGHT: return 4 * n; /* sums of dy and dy*xhat */
    default: return 4.0 * (double)l->params;
    }
}

static int kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    (void)err;
    if (pass == CP_PASS_UPDATE)
        return cp_sgd_kernels(l, x, out, max);
    if (max < 2)
        return 0;
    double n = x->batch * cp_shape_elems(l->out), b = cp_act_bytes(x, l->out), stats = 8.0 * l->out.c;
    double c = l->out.c, per = n / c;
    switch (pass) {
    case CP_PASS_FWD:
        out[0] = cp_channel_kernel(x->dev, x->prec, "bn_fwd_stats", c, per, 1, b, stats, 3 * n);
        out[1] = cp_channel_kernel(x->dev, x->prec, "bn_fwd_normalize", c, per, 1, b + stats, b, 2 * n);
        return 2;
    case CP_PASS_BWD_WEIGHT: /* reads x and dy */
        out[0] = cp_channel_kernel(x->dev, x->prec, "bn_bwd_reduce", c, per, 2, 2 * b, stats, 4 * n);
        return 1;
    case CP_PASS_BWD_DATA: /* reads x and dy, writes dx */
        out[0] = cp_channel_kernel(x->dev, x->prec, "bn_bwd_dx", c, per, 3, 2 * b + stats, b, 4 * n);
        return 1;
    default: return 0;
    }
}

const cp_layer_kind cp_batchnorm_kind = {"batchnorm", NULL, 1, 1, true, NULL, infer, flops, kernels};
