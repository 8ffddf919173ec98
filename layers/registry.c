/* The table of layer kinds and helpers the kinds share. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layer.h"

extern const cp_layer_kind cp_conv_kind, cp_fc_kind, cp_maxpool_kind, cp_avgpool_kind, cp_global_avgpool_kind,
    cp_adaptive_avgpool_kind, cp_relu_kind, cp_relu6_kind, cp_batchnorm_kind, cp_lrn_kind, cp_dropout_kind,
    cp_softmax_kind, cp_concat_kind, cp_add_kind, cp_flatten_kind;

static const cp_layer_kind *const kinds[] = {
    &cp_conv_kind,    &cp_fc_kind,      &cp_maxpool_kind, &cp_avgpool_kind, &cp_global_avgpool_kind,
    &cp_adaptive_avgpool_kind, &cp_relu_kind, &cp_relu6_kind, &cp_batchnorm_kind, &cp_lrn_kind,
    &cp_dropout_kind, &cp_softmax_kind, &cp_concat_kind,  &cp_add_kind,     &cp_flatten_kind,
};

const cp_layer_kind *cp_layer_kind_find(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i]->name, name) == 0)
            return kinds[i];
    return NULL;
}

const char *cp_layer_kind_list(void)
{
    static char list[256];
    if (!list[0]) {
        size_t n = 0;
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && n < sizeof list; i++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", kinds[i]->name);
    }
    return list;
}

const char *cp_pass_name(cp_pass p)
{
    static const char *const names[] = {"forward", "backward_data", "backward_weight", "update"};
    return p < CP_PASS_COUNT ? names[p] : "?";
}

int cp_infer_same(cp_layer *l, cp_jctx *c)
{
    (void)c;
    l->out = l->in[0];
    return 0;
}

int cp_out_size(int in, int k, int stride, int pad, int dilation, bool ceil_mode)
{
    long span = (long)in + 2L * pad - (long)dilation * (k - 1) - 1;
    if (span < 0)
        return 0;
    long out = ceil_mode ? (span + stride - 1) / stride + 1 : span / stride + 1;
    /* PyTorch: with ceil_mode the last window must start inside the input or left padding. */
    if (ceil_mode && (out - 1) * stride >= (long)in + pad)
        out--;
    return (int)out;
}

double cp_act_bytes(const cp_exec *x, cp_shape s)
{
    return (double)x->batch * cp_shape_elems(s) * cp_precision_bytes(x->prec);
}

double cp_param_bytes(const cp_layer *l)
{
    return 4.0 * (double)l->params;
}

int cp_sgd_kernels(const cp_layer *l, const cp_exec *x, cp_kernel *out, int max)
{
    if (l->params == 0 || max < 1)
        return 0;
    double p = (double)l->params;
    /* fp32 master weight, gradient and momentum in; weight and momentum out;
     * with 16-bit training the 16-bit weight copy is written too. */
    double grad = cp_precision_bytes(x->prec);
    double extra = cp_precision_bytes(x->prec) < 4 ? 2.0 : 0.0;
    out[0] = cp_stream_kernel(x->dev, x->prec, "sgd_momentum", p, p * (8.0 + grad), p * (8.0 + extra), 4.0 * p);
    return 1;
}
