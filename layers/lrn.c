/* Local response normalisation across channels (cudnnLRNCrossChannel). */
#include "layer.h"

static const char *const fields[] = {"size", "alpha", "beta", "k", NULL};

static int parse(cp_layer *l, const cJSON *o, cp_jctx *c)
{
    long long size;
    if (cp_jint(c, o, "size", false, 5, 1, 16, &size) || cp_jnum(c, o, "alpha", false, 1e-4, 0, 1e6, &l->alpha) ||
        cp_jnum(c, o, "beta", false, 0.75, 0, 1e6, &l->beta) || cp_jnum(c, o, "k", false, 1.0, 0, 1e6, &l->k))
        return -1;
    l->size = (int)size;
    return 0;
}

static double flops(const cp_layer *l, cp_pass pass, int batch)
{
    double n = batch * cp_shape_elems(l->out);
    if (pass == CP_PASS_FWD)
        return n * (l->size + 4); /* window sum of squares, pow, divide */
    if (pass == CP_PASS_BWD_DATA)
        return n * (2.0 * l->size + 6);
    return 0;
}

static int kernels(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err)
{
    (void)err;
    if (max < 1 || (pass != CP_PASS_FWD && pass != CP_PASS_BWD_DATA))
        return 0;
    double n = x->batch * cp_shape_elems(l->out), b = cp_act_bytes(x, l->out);
    if (pass == CP_PASS_FWD)
        out[0] = cp_stream_kernel(x->dev, x->prec, "lrn_fwd", n, b, b, flops(l, pass, x->batch));
    else /* reads x, y and dy */
        out[0] = cp_stream_kernel(x->dev, x->prec, "lrn_bwd", n, 3 * b, b, flops(l, pass, x->batch));
    return 1;
}

const cp_layer_kind cp_lrn_kind = {"lrn", fields, 1, 1, false, parse, cp_infer_same, flops, kernels,
                                   false, false, CP_SAVES_INPUT | CP_SAVES_OUTPUT, 0};
