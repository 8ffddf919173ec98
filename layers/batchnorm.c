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
 * another (`serial`).
 *
 * Which kernel cuDNN runs depends on the bytes of one channel (Nsight
 * Compute on ResNet-50 b64 fp16, cuDNN 9.14, and PyTorch's profiler over 32
 * shapes, validation/h100/ncu/): a channel of at most 98 KiB forward, 49 KiB
 * backward (which holds x and dy), is read once into one block's registers
 * (`bn_*_singleread`), a larger one in several passes (`bn_fw_tr_1C11_kernel_NCHW`,
 * `bn_bw_1C11_kernel_new`). In 16 bits, on an even plane, the single read
 * is a half2 kernel (`singleread_spec`) that spends about half as much per
 * element and has all its loads in flight at once, one round (64x128x28x28:
 * 12.3 us forward against 49.6 backward, which is past its limit); on odd
 * planes (7x7) and in 32 bits the single read skips the second pass over x
 * but is no faster per element (fp32 64x2048x7x7: 6.7 ns per thousand
 * elements, the passes of 256x1024x14x14 4.8). */
#include <math.h>

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
#define BN_SINGLEREAD_FWD_BYTES 100352.0 /* one channel, read once forward */
#define BN_SINGLEREAD_BWD_BYTES 50176.0  /* x and dy of one channel backward */

/* Whether cuDNN reads each channel once into registers for this pass. */
static bool single_read(const cp_layer *l, const cp_exec *x, bool backward)
{
    double channel_bytes = x->batch * (double)l->out.h * l->out.w * cp_precision_bytes(x->prec);
    return channel_bytes <= (backward ? BN_SINGLEREAD_BWD_BYTES : BN_SINGLEREAD_FWD_BYTES);
}

/* ... and does so with half2 arithmetic, half the instructions per element. */
static bool half2(const cp_layer *l, const cp_exec *x)
{
    return cp_precision_bytes(x->prec) == 2 && ((long long)l->out.h * l->out.w) % 2 == 0;
}

/* Channels-last activations: cuDNN's NHWC kernels (batchnorm_fwtr_nhwc_semiPersist,
 * batchnorm_bwtr_nhwc_semiPersist; PyTorch's channels-last iterations of
 * ResNet-18, MobileNet-v2 and DenseNet-121, validation/h100/torch/chlast29/)
 * tile pixels by 64-channel groups, one kernel a pass, and stream at DRAM
 * speed: what the part of a tile not kept on chip costs is a second read.
 * ResNet-18 b32 FP16's twenty take 6.6-54 us forward, 5.5 us plus 0.94 us
 * per MB of x (x read twice and y written at 3.2 TB/s), and 6.7-85 us
 * backward, 1.55 us per MB (x and dy twice, dx once). A channel count that
 * is not a multiple of 64 leaves the last group's lanes idle (16 channels
 * ran at a quarter of the pace per byte, MobileNet's first layer). The
 * backward's reduction counts as the weight gradient, dx as the data
 * gradient, as for NCHW. */
static int nhwc_kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out)
{
    double c = l->out.c, groups = ceil(c / 64.0), n = x->batch * cp_shape_elems(l->out);
    double b = cp_act_bytes(x, l->out) * (64.0 * groups / c), stats = 8.0 * c, items = n * 64.0 * groups / c;
    switch (pass) {
    case CP_PASS_FWD:
        out[0] = cp_stream_kernel(x->dev, x->prec, "bn_fwd_nhwc_semipersist", items, 2 * b, b + stats, 5 * n);
        return 1;
    case CP_PASS_BWD_WEIGHT: /* the reduction over x and dy */
        out[0] = cp_stream_kernel(x->dev, x->prec, "bn_bwd_nhwc_reduce", items, 2 * b, stats, 4 * n);
        return 1;
    case CP_PASS_BWD_DATA: /* x and dy again, dx */
        out[0] = cp_stream_kernel(x->dev, x->prec, "bn_bwd_nhwc_dx", items, 2 * b + stats, b, 4 * n);
        return 1;
    default: return 0;
    }
}

static int kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    (void)err;
    if (pass == CP_PASS_UPDATE)
        return cp_sgd_kernels(l, x, out, max);
    if (max < 2)
        return 0;
    if (x->channels_last)
        return nhwc_kernels(l, pass, x, out);
    double n = x->batch * cp_shape_elems(l->out), b = cp_act_bytes(x, l->out), stats = 8.0 * l->out.c;
    double c = l->out.c, per = n / c;
    bool once = single_read(l, x, pass != CP_PASS_FWD), fast = once && half2(l, x);
    double instr = (pass == CP_PASS_FWD ? BN_FWD_INSTR : BN_BWD_INSTR) * (fast ? 0.5 : 1.0);
    switch (pass) {
    case CP_PASS_FWD:
        if (once) { /* statistics and normalisation from the same registers */
            out[0] = cp_channel_kernel(x->dev, x->prec, "bn_fwd_singleread", c, per, fast ? 0 : 1, instr, b,
                                       b + stats, 5 * n);
            return 1;
        }
        out[0] = cp_channel_kernel(x->dev, x->prec, "bn_fwd_stats", c, per, 1, instr * 0.6, b, stats, 3 * n);
        out[1] = cp_channel_kernel(x->dev, x->prec, "bn_fwd_normalize", c, per, 1, instr * 0.4, b + stats, b,
                                   2 * n);
        return 2;
    /* Backward is one library call; its reduction counts as the weight
     * gradient and its dx as the data gradient. Read once, dx computes from
     * the registers the reduction loaded: it only writes. */
    case CP_PASS_BWD_WEIGHT: /* reads x and dy */
        out[0] = cp_channel_kernel(x->dev, x->prec, once ? "bn_bwd_singleread_reduce" : "bn_bwd_reduce", c, per,
                                   fast ? 0 : 2, instr * 0.4, 2 * b, stats, 4 * n);
        return 1;
    case CP_PASS_BWD_DATA: /* reads x and dy, writes dx */
        out[0] = cp_channel_kernel(x->dev, x->prec, once ? "bn_bwd_singleread_dx" : "bn_bwd_dx", c, per,
                                   fast ? 0 : once ? 1 : 3, instr * 0.6, once ? stats : 2 * b + stats, b, 4 * n);
        return 1;
    default: return 0;
    }
}

const cp_layer_kind cp_batchnorm_kind = {"batchnorm", NULL, 1, 1, true, NULL, infer, flops, kernels,
                                         false, false, CP_SAVES_INPUT, 0};
