/* Batch normalisation in training mode (cudnnBatchNormalizationForwardTraining
 * and ...Backward): a statistics reduction then a normalising pass forward;
 * backward reduces dgamma/dbeta (backward-weight) then applies dx
 * (backward-data). Each kernel works channel by channel (cp_channel_kernel):
 * how fast it streams depends on how many channels there are.
 *
 * What bounds it (H100, calibration set and evaluation runs alike): per SM
 * that holds a channel, the forward handles 0.6-0.9 elements per clock and
 * the backward 0.3-0.5, in 16 bits as in 32 and on the H200 as on the H100,
 * with one channel per SM or several. That is an instruction bound, ~160
 * thread instructions per element forward and ~256 backward at the issue
 * rate, not a DRAM one. With few channels the backward is slower still (2.2-
 * 2.5x the forward): its five tensor accesses wait on memory one after
 * another (`serial`). 16-bit channels of up to 64 x 28 x 28 elements run
 * about twice as fast per element (1.3-1.8 forward): cuDNN's kernel for
 * them does half the work per element. */
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

#define BN_FWD_INSTR 160.0
#define BN_BWD_INSTR 256.0
#define BN_SMALL_CHANNEL 50176.0

static int kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    (void)err;
    if (pass == CP_PASS_UPDATE)
        return cp_sgd_kernels(l, x, out, max);
    if (max < 2)
        return 0;
    double n = x->batch * cp_shape_elems(l->out), b = cp_act_bytes(x, l->out), stats = 8.0 * l->out.c;
    double c = l->out.c, per = n / c;
    /* 16-bit channels of up to 64 x 28 x 28 elements: a kernel that spends
     * half as much on each */
    double fast = cp_precision_bytes(x->prec) == 2 && per <= BN_SMALL_CHANNEL ? 0.5 : 1.0;
    double fi = BN_FWD_INSTR * fast, bi = BN_BWD_INSTR * fast;
    switch (pass) {
    case CP_PASS_FWD:
        out[0] = cp_channel_kernel(x->dev, x->prec, "bn_fwd_stats", c, per, 1, fi * 0.6, b, stats, 3 * n);
        out[1] = cp_channel_kernel(x->dev, x->prec, "bn_fwd_normalize", c, per, 1, fi * 0.4, b + stats, b,
                                   2 * n);
        return 2;
    case CP_PASS_BWD_WEIGHT: /* reads x and dy */
        out[0] = cp_channel_kernel(x->dev, x->prec, "bn_bwd_reduce", c, per, 2, bi * 0.4, 2 * b, stats,
                                   4 * n);
        return 1;
    case CP_PASS_BWD_DATA: /* reads x and dy, writes dx */
        out[0] = cp_channel_kernel(x->dev, x->prec, "bn_bwd_dx", c, per, 3, bi * 0.6, 2 * b + stats, b,
                                   4 * n);
        return 1;
    default: return 0;
    }
}

const cp_layer_kind cp_batchnorm_kind = {"batchnorm", NULL, 1, 1, true, NULL, infer, flops, kernels};
