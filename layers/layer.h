/* layer: one node of a CNN's DAG, and the table of per-kind functions.
 *
 * A layer has a kind, its hyper-parameters, the shapes inferred from its
 * inputs and its learnable-parameter count. Everything that depends on the
 * kind lives in one file per kind (conv.c, fc.c, pool.c, ...) behind
 * cp_layer_kind: parsing, shape inference, FLOPs, and the kernels each
 * training pass is made of. To find where a layer's cost is computed, open
 * layers/<kind>.c. */
#ifndef CP_LAYER_H
#define CP_LAYER_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "../model/kernel.h"
#include "../util/jsonread.h"

#define CP_MAX_INPUTS 8
#define CP_MAX_KERNELS 8
#define CP_INPUT_DATA (-1) /* the network input */

/* The passes of one training iteration (Eq. 6-4 splits backward in two). */
typedef enum { CP_PASS_FWD, CP_PASS_BWD_DATA, CP_PASS_BWD_WEIGHT, CP_PASS_UPDATE, CP_PASS_COUNT } cp_pass;
const char *cp_pass_name(cp_pass p);

typedef struct {
    int c, h, w; /* per sample; the batch is a prediction parameter */
} cp_shape;

static inline double cp_shape_elems(cp_shape s) { return (double)s.c * s.h * s.w; }

typedef struct cp_layer_kind cp_layer_kind;

typedef struct cp_layer {
    char name[128];
    const cp_layer_kind *kind;
    int n_inputs;
    int inputs[CP_MAX_INPUTS]; /* layer indices, or CP_INPUT_DATA */
    int consumers;             /* how many layers read this one's output */
    bool needs_input_grad;     /* false when nothing upstream has parameters */

    cp_shape in[CP_MAX_INPUTS];
    cp_shape out;
    long long params;

    /* hyper-parameters; each kind uses its own subset */
    int out_c;
    int kh, kw, sh, sw, ph, pw, dh, dw;
    int groups;
    bool bias, ceil_mode;
    int size;
    double p, alpha, beta, k;
} cp_layer;

/* A depthwise convolution: one input channel a group (MobileNet, MNASNet). */
static inline bool cp_layer_depthwise(const cp_layer *l) { return l->groups > 1 && l->in[0].c == l->groups; }
/* A window (convolution, pooling) that moves more than one pixel a step. */
static inline bool cp_layer_strided(const cp_layer *l) { return l->sh > 1 || l->sw > 1; }

/* The convolution algorithms the framework's path into cuDNN reaches.
 * CP_ALGOS_FIND: cudnnFind over the legacy API, as cnnperf-measure runs,
 * where FP32 3x3 passes may run as Winograd. CP_ALGOS_PYTORCH: PyTorch's
 * (cudnn.benchmark over the engines its frontend path lists): no Winograd,
 * and FFT tiling for 3x3 filters too. A profile of PyTorch training VGG-11
 * and ResNet-18 in FP32 (validation/h100/ncu/kernels-torch-networks-h100.json.xz)
 * shows FFT and implicit GEMM kernels for their 3x3 convolutions, Winograd
 * only in a few weight gradients. */
typedef enum { CP_ALGOS_FIND, CP_ALGOS_PYTORCH } cp_algos;

/* What a kernel decomposition depends on besides the layer. */
typedef struct {
    const cp_device *dev;
    cp_precision prec;
    int batch;
    cp_gemm_tiles *gemm_tiles; /* NULL or one table per GEMM family (cp_gemm_kernels) */
    cp_algos algos;
    /* the convolution workspace cuDNN may use, bytes (cnnperf-measure's
     * --workspace-mb); 0: no limit (PyTorch takes what memory is free) */
    double workspace_bytes;
    /* activations in NHWC (cp_network.channels_last): tensor-core kernels
     * read and write them as they are, with no layout transposes */
    bool channels_last;
} cp_exec;

/* A grouped convolution that is not depthwise, in 16 bits, with a power of two of channels a group on both
 * sides (ResNeXt's 4 to 32), through either cuDNN API and in eager mode: cuDNN's packed grouped GEMM (conv.c),
 * timed by its own microbenchmark constants and so outside its filter's calibration class (model/predict.c).
 * Timed behind a spin that hides the legacy call's host latency, the legacy API's passes take the graph API's
 * time, 0.96-1.04x (docs/ACCURACY.md session 63, rule 46). */
static inline bool cp_layer_packed_grouped(const cp_layer *l, const cp_exec *x)
{
    if (l->groups <= 1 || cp_layer_depthwise(l) || cp_precision_bytes(x->prec) != 2)
        return false;
    int in = l->in[0].c / l->groups, out = l->out_c / l->groups;
    return (in & (in - 1)) == 0 && (out & (out - 1)) == 0; /* powers of two */
}

/* A pooling window's cover: how many windows hold an input element, on average over the input (layers/pool.c). */
double cp_pool_cover(const cp_layer *l);

/* Two weight-gradient kernels layers/conv.c picks by a convolution's shape, for the tests that bound what they
 * cost: FP32 3x3 as winograd_nonfused with its GEMM unsplit (WINOGRAD_WGRAD_MIN_*), and PyTorch's 16-bit 1x1
 * between NHWC copies (WGRAD16_1X1_DIRECT_MAX_CHANNELS, docs/ACCURACY.md rule 21), and TF32 1x1 past the same
 * bound in every API, its forward too, and its data gradient from 4x the bound (rules 42 and 43). */
bool cp_conv_wgrad_winograd_unsplit(const cp_layer *l, const cp_exec *x);
bool cp_conv_wgrad_1x1_via_nhwc(const cp_layer *l, const cp_exec *x);

/* The algorithm a convolution pass's kernels (layers/conv.c, model/wgrad.c) make: "winograd", "fft",
 * "wgrad_engine" (cuDNN's weight-gradient engine), "direct", "implicit_gemm" or "other"; what `predict` reports
 * beside the time, to be set against the algorithm cuDNN chose (provenance.conv_candidates,
 * tools/conv_candidates.py --model). */
const char *cp_conv_pass_algorithm(const cp_kernel *k, int n);

struct cp_layer_kind {
    const char *name;
    const char *const *fields; /* JSON fields besides name/kind/inputs, NULL-terminated */
    int min_inputs, max_inputs;
    bool has_params;
    /* Reads the kind's fields from obj (the path in c points at the layer). */
    int (*parse)(cp_layer *l, const cJSON *obj, cp_jctx *c);
    /* Infers l->out and l->params from l->in[]; errors go to c. */
    int (*infer)(cp_layer *l, cp_jctx *c);
    /* Useful floating-point operations of one pass for the whole batch. */
    double (*flops)(const cp_layer *l, cp_pass pass, int batch);
    /* The kernels the pass launches; returns how many (0 for none) or -1. */
    int (*kernels)(const cp_layer *l, cp_pass pass, const cp_exec *x, cp_kernel *out, int max, cp_error *err);
    /* How training holds the layer's tensors (model/memory.c; cnnperf-measure
     * allocates by the same flags). */
    bool grad_by_reference; /* backward hands dy on to its inputs as it is (add, flatten) */
    bool aliases_input;     /* the output is the input's memory (flatten) */
    /* What PyTorch's autograd keeps of the layer for backward (eager mode's
     * memory, model/memory.c): its input, its output, under autocast a 16-bit
     * copy of its weights (CP_SAVES_*), and bytes per output element of a
     * tensor of its own (max pooling's int64 indices: 8, dropout's bool
     * mask: 1). */
    unsigned char eager_saves;
    unsigned char eager_extra_bytes;
};

enum { CP_SAVES_INPUT = 1, CP_SAVES_OUTPUT = 2, CP_SAVES_WEIGHT_COPY = 4 };

/* Kind lookup by JSON name; NULL if unknown. */
const cp_layer_kind *cp_layer_kind_find(const char *name);
/* "conv, fc, ..." for messages. */
const char *cp_layer_kind_list(void);

/* Helpers shared by the kinds. */
/* Shape inference of the element-wise kinds: the output is the input. */
int cp_infer_same(cp_layer *l, cp_jctx *c);
int cp_out_size(int in, int k, int stride, int pad, int dilation, bool ceil_mode);
double cp_act_bytes(const cp_exec *x, cp_shape s); /* one activation tensor for the batch */
double cp_param_bytes(const cp_layer *l);          /* fp32 master weights */
/* SGD with momentum over the layer's parameters: read w, g, v; write w, v. */
int cp_sgd_kernels(const cp_layer *l, const cp_exec *x, cp_kernel *out, int max);

#endif
