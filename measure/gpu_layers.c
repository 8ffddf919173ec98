/* Every layer kind on the GPU. Forward writes the layer's y; backward-data
 * writes the input gradients where cm_grad_dst says (train.c sums them where
 * a tensor has several consumers); backward-weight writes L->g. Where the
 * predictor's kernels (layers/<kind>.c) have a counterpart here, the
 * library calls are the same ones cuDNN-based frameworks make. */
#include "gpu_layers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv_graph.h"
#include "mpi_util.h"

static const float one = 1.0f, zero = 0.0f;

#define BN_EPSILON 1e-5 /* PyTorch's default */
#define BN_MOMENTUM 0.1

static void *bias_of(const cm_layer *L, void *base)
{
    return (char *)base + (size_t)L->n_weights * cm_dtype_size(L->ptype);
}

static void *grad_or_fail(cm_net *n, cm_layer *L, int j)
{
    void *dst = cm_grad_dst(n, L, j);
    if (!dst)
        cm_fatal("internal: no gradient destination for input %d", j);
    return dst;
}

/* --- convolution ------------------------------------------------------------- */

/* Room for a bias gradient's partial sums over `channels` (cm_bias_grad),
 * shared by every layer with a bias: grown at set-up, never inside an
 * iteration, which may be captured into a graph. */
static size_t bias_part_bytes(const cm_gpu *g, cp_shape out)
{
    return (size_t)out.c * cm_bias_slices(&g->kern, g->batch, out.c, (long long)out.h * out.w) * sizeof(float);
}

static void reserve_bias_part(cm_gpu *g, cp_shape out)
{
    size_t part = bias_part_bytes(g, out);
    if (part <= g->bias_part_bytes)
        return;
    if (g->bias_part)
        cudaCheck(cudaFree(g->bias_part));
    cm_allocated_bytes -= g->bias_part_bytes;
    cudaCheck(cudaMalloc((void **)&g->bias_part, part));
    cm_allocated_bytes += part;
    g->bias_part_bytes = part;
}

static void conv_setup(cm_net *n, cm_layer *L)
{
    const cp_layer *l = L->l;
    cm_gpu *g = n->gpu;
    cp_shape in = l->in[0], out = l->out;
    int cin = in.c / l->groups;
    cudnnCheck(cudnnCreateFilterDescriptor(&L->w_desc));
    cudnnCheck(cudnnSetFilter4dDescriptor(L->w_desc, g->dnn_type, CUDNN_TENSOR_NCHW, out.c, cin, l->kh, l->kw));
    /* One descriptor per pass: each gets the math type of its chosen algorithm. */
    for (int k = 0; k < 3; k++) {
        cudnnCheck(cudnnCreateConvolutionDescriptor(&L->conv[k]));
        cudnnCheck(cudnnSetConvolution2dDescriptor(L->conv[k], l->ph, l->pw, l->sh, l->sw, l->dh, l->dw,
                                                   CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        cudnnCheck(cudnnSetConvolutionGroupCount(L->conv[k], l->groups));
        cudnnCheck(cudnnSetConvolutionMathType(L->conv[k], g->math));
    }
    int on, oc, oh, ow;
    cudnnCheck(cudnnGetConvolution2dForwardOutputDim(L->conv[0], L->x_desc[0], L->w_desc, &on, &oc, &oh, &ow));
    if (oc != out.c || oh != out.h || ow != out.w)
        cm_fatal("cuDNN computes an output of %dx%dx%d, the network file %dx%dx%d", oc, oh, ow, out.c, out.h, out.w);
    if (l->bias) {
        L->b_desc = cm_tensor(g, 1, out.c, 1, 1);
        reserve_bias_part(g, out);
    }
    long long taps = (long long)cin * l->kh * l->kw;
    cm_params(n, L, (long long)out.c * taps, l->bias ? out.c : 0, g->dtype, taps);
}

/* cudnnFind benchmarks every algorithm, which takes long; layers of the
 * same shape (most of a ResNet) share the result. */
typedef struct {
    int key[13];
    bool have[3];
    int algo[3];
    cudnnMathType_t math[3];
    cm_conv_plan *plan[3]; /* --conv-api graph: the engine chosen instead of algo */
    size_t ws[3];
    double gpu_us[3], find_us[3]; /* the winner: on the GPU alone, and as cudnnFind timed it */
    char tried[3][160];           /* every candidate timed: " id:us" each (cm_layer.candidates) */
} conv_choice;

static conv_choice *choices;
static int n_choices, cap_choices;

static conv_choice *choice_for(const cp_layer *l)
{
    int key[13] = {l->in[0].c, l->in[0].h, l->in[0].w, l->out_c, l->kh, l->kw, l->sh,
                   l->sw,      l->ph,      l->pw,      l->dh,    l->dw, l->groups};
    for (int i = 0; i < n_choices; i++)
        if (memcmp(choices[i].key, key, sizeof key) == 0)
            return &choices[i];
    if (n_choices == cap_choices) {
        cap_choices = cap_choices ? 2 * cap_choices : 32;
        choices = realloc(choices, (size_t)cap_choices * sizeof *choices);
        if (!choices)
            cm_fatal("out of host memory");
    }
    conv_choice *c = &choices[n_choices++];
    memset(c, 0, sizeof *c);
    memcpy(c->key, key, sizeof key);
    return c;
}

/* --- choosing by GPU time -------------------------------------------------------
 *
 * cudnnFind times every algorithm by itself, back to back, so its times
 * include what the host spends enqueueing each call. For some engines that is
 * far more than their GPU time: on an H100, cuDNN 9.14, fp16 NCHW, a 1x1
 * convolution's tensor-op algorithm 1 runs 31 us on the GPU but takes 120-190
 * us to enqueue, so cudnnFind rates it about as fast as default-math algorithm
 * 0 (263 us on the GPU), and which one wins depends on the noise of the
 * moment. In a training iteration the host runs ahead of the GPU and only GPU
 * time counts. So cudnnFind's successful candidates are timed again here, on
 * the GPU alone: the calls are queued behind a gate (a host function that
 * holds the stream until all are enqueued) and timed with events. */

enum { RETIME_CANDIDATES = 6, RETIME_CALLS = 5 };

/* A candidate whose first timed call takes this many times the best mean so
 * far cannot win: its other calls are skipped. The slow FP32 candidates of a
 * large batch made up most of a graph-API engine search (VGG-19 b168 FP32:
 * 117 s of set-up, every candidate called six times); one call more for the
 * candidates that are close keeps the choice as it was. */
#define RETIME_CUT 2.0
#define GATE_LIMIT_S 2.0 /* a call that blocks on the stream must not wait for ever */

static volatile int gate_open;


static void CUDART_CB gate_fn(void *arg)
{
    (void)arg;
    double t0 = cm_mpi_now();
    while (!__atomic_load_n(&gate_open, __ATOMIC_ACQUIRE) && cm_mpi_now() - t0 < GATE_LIMIT_S)
        ;
}

/* A candidate for one pass: a legacy-API algorithm and math type, or a
 * graph-API plan. */
typedef struct {
    int algo;
    cudnnMathType_t math;
    const cm_conv_plan *plan;
} conv_candidate;

/* One call of pass k with candidate c, on the buffers cudnnFind used. */
static void conv_call(cm_net *n, cm_layer *L, int k, const conv_candidate *c)
{
    cm_gpu *g = n->gpu;
    int algo = c->algo;
    if (c->plan) /* the tensors by shape: x (dx: the scratch buffer), w (dw: L->g), y (dy: any y-sized data) */
        cm_conv_graph_run(g->dnn, c->plan, k == 1 ? n->scratch : cm_input(n, L, 0), k == 2 ? L->g : L->w, L->y,
                          g->workspace);
    else if (k == 0)
        cudnnCheck(cudnnConvolutionForward(g->dnn, &one, L->x_desc[0], cm_input(n, L, 0), L->w_desc, L->w, L->conv[0],
                                           (cudnnConvolutionFwdAlgo_t)algo, g->workspace, g->workspace_size, &zero,
                                           L->y_desc, L->y));
    else if (k == 1)
        cudnnCheck(cudnnConvolutionBackwardData(g->dnn, &one, L->w_desc, L->w, L->y_desc, L->y, L->conv[1],
                                                (cudnnConvolutionBwdDataAlgo_t)algo, g->workspace, g->workspace_size,
                                                &zero, L->x_desc[0], n->scratch));
    else
        cudnnCheck(cudnnConvolutionBackwardFilter(g->dnn, &one, L->x_desc[0], cm_input(n, L, 0), L->y_desc, L->y,
                                                  L->conv[2], (cudnnConvolutionBwdFilterAlgo_t)algo, g->workspace,
                                                  g->workspace_size, &zero, L->w_desc, L->g));
}

/* GPU time of `calls` calls of candidate c queued behind the gate, in us, or
 * -1 when a call held the host past the gate. */
static double gated_us(cm_net *n, cm_layer *L, int k, const conv_candidate *c, int calls)
{
    cm_gpu *g = n->gpu;
    cudaEvent_t a, b;
    cudaCheck(cudaEventCreate(&a));
    cudaCheck(cudaEventCreate(&b));
    __atomic_store_n(&gate_open, 0, __ATOMIC_RELEASE);
    cudaCheck(cudaLaunchHostFunc(g->stream, gate_fn, NULL));
    cudaCheck(cudaEventRecord(a, g->stream));
    double t0 = cm_mpi_now();
    for (int i = 0; i < calls; i++)
        conv_call(n, L, k, c);
    cudaCheck(cudaEventRecord(b, g->stream));
    bool held = cm_mpi_now() - t0 > 0.5 * GATE_LIMIT_S;
    __atomic_store_n(&gate_open, 1, __ATOMIC_RELEASE);
    cudaCheck(cudaEventSynchronize(b));
    float ms = 0;
    cudaCheck(cudaEventElapsedTime(&ms, a, b));
    cudaCheck(cudaEventDestroy(a));
    cudaCheck(cudaEventDestroy(b));
    return held ? -1 : ms * 1e3;
}

/* GPU time of one call, in us (the mean of RETIME_CALLS), or -1 when a call
 * held the host past the gate. best_us (< 0: none yet) is the fastest
 * candidate's so far: one that is RETIME_CUT times slower on its first call
 * returns that call's time. */
static double gpu_time_us(cm_net *n, cm_layer *L, int k, const conv_candidate *c, double best_us)
{
    cm_gpu *g = n->gpu;
    /* fp32 stays FMA-only whatever cuDNN reports (conv_tune) */
    if (!c->plan)
        cudnnCheck(cudnnSetConvolutionMathType(L->conv[k], g->prec == CP_PREC_FP32 ? CUDNN_FMA_MATH : c->math));
    conv_call(n, L, k, c); /* warm-up: module loading, plan building */
    cudaCheck(cudaStreamSynchronize(g->stream));
    if (best_us > 0) {
        double first = gated_us(n, L, k, c, 1);
        if (first < 0 || first > RETIME_CUT * best_us)
            return first;
    }
    double us = gated_us(n, L, k, c, RETIME_CALLS);
    return us < 0 ? -1 : us / RETIME_CALLS;
}

/* One timed candidate into a pass's list: the model's engine and algorithm
 * choices can then be checked against what the losers took, not only the
 * winner. A time of one call (cut, gpu_time_us) is marked with ~. */
static void note_candidate(char *tried, size_t cap, const char *id, double us, double best_us)
{
    size_t len = strlen(tried);
    if (len + 1 >= cap)
        return;
    if (us < 0)
        snprintf(tried + len, cap - len, " %s:held", id);
    else
        snprintf(tried + len, cap - len, " %s:%.0f%s", id, us, best_us > 0 && us > RETIME_CUT * best_us ? "~" : "");
}

/* Of cudnnFind's candidates that succeeded within the workspace (perf results
 * of the three passes share their leading fields), the fastest on the GPU;
 * where retiming is impossible (a call held the host), cudnnFind's order. */
#define PICK(perf, got, c, k, ws_size)                                                                                 \
    do {                                                                                                               \
        int best_ = -1, tried_ = 0;                                                                                    \
        double best_us_ = 0, best_find_us_ = 0;                                                                        \
        for (int i_ = 0; i_ < (got) && tried_ < RETIME_CANDIDATES; i_++) {                                            \
            if ((perf)[i_].status != CUDNN_STATUS_SUCCESS || (perf)[i_].memory > (ws_size))                           \
                continue;                                                                                              \
            tried_++;                                                                                                  \
            conv_candidate cand_ = {(int)(perf)[i_].algo, (perf)[i_].mathType, NULL};                                 \
            double us_ = gpu_time_us(n, L, k, &cand_, best_ < 0 ? -1 : best_us_);                                      \
            char id_[16];                                                                                              \
            snprintf(id_, sizeof id_, "%d%s", cand_.algo, cand_.math == CUDNN_TENSOR_OP_MATH ? "t" : "");              \
            note_candidate((c)->tried[k], sizeof(c)->tried[k], id_, us_, best_ < 0 ? -1 : best_us_);                   \
            if (us_ < 0) { /* a call held the host: stop, keep the best so far or this one */                       \
                if (best_ < 0)                                                                                         \
                    best_ = i_, best_us_ = (perf)[i_].time * 1e3, best_find_us_ = best_us_;                            \
                break;                                                                                                 \
            }                                                                                                          \
            if (best_ < 0 || us_ < best_us_)                                                                           \
                best_ = i_, best_us_ = us_, best_find_us_ = (perf)[i_].time * 1e3;                                     \
        }                                                                                                              \
        if (best_ < 0)                                                                                                 \
            cm_fatal("no convolution algorithm for the %s pass runs within a workspace of %zu MiB (--workspace-mb)",  \
                     pass_names[k], (size_t)(ws_size) >> 20);                                                          \
        (c)->algo[k] = (int)(perf)[best_].algo;                                                                        \
        (c)->math[k] = (perf)[best_].mathType;                                                                         \
        (c)->ws[k] = (perf)[best_].memory;                                                                             \
        (c)->gpu_us[k] = best_us_;                                                                                     \
        (c)->find_us[k] = best_find_us_;                                                                               \
        (c)->have[k] = true;                                                                                           \
    } while (0)

static const char *const pass_names[3] = {"forward", "backward-data", "backward-filter"};

static void conv_find(cm_net *n, cm_layer *L, conv_choice *c, int k)
{
    cm_gpu *g = n->gpu;
    int got = 0;
    if (k == 0) {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        cudnnCheck(cudnnFindConvolutionForwardAlgorithmEx(g->dnn, L->x_desc[0], cm_input(n, L, 0), L->w_desc, L->w,
                                                          L->conv[0], L->y_desc, L->y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                          &got, perf, g->workspace, g->workspace_size));
        PICK(perf, got, c, k, g->workspace_size);
    } else if (k == 1) {
        /* Any y-sized data serves as dy; dx goes to the scratch buffer. */
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        cudnnCheck(cudnnFindConvolutionBackwardDataAlgorithmEx(
            g->dnn, L->w_desc, L->w, L->y_desc, L->y, L->conv[1], L->x_desc[0], n->scratch,
            CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, perf, g->workspace, g->workspace_size));
        PICK(perf, got, c, k, g->workspace_size);
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        cudnnCheck(cudnnFindConvolutionBackwardFilterAlgorithmEx(
            g->dnn, L->x_desc[0], cm_input(n, L, 0), L->y_desc, L->y, L->conv[2], L->w_desc, L->g,
            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, perf, g->workspace, g->workspace_size));
        PICK(perf, got, c, k, g->workspace_size);
    }
    /* the descriptor gets the winner's math type in conv_tune */
}

/* --- choosing a graph-API engine (--conv-api graph, conv_graph.h) ------------- */

typedef struct {
    cm_net *n;
    cm_layer *L;
    int k;
    const double *best_us; /* the search's best so far (< 0: none timed) */
    char *tried;           /* the pass's list of candidates timed */
    size_t tried_cap;
} plan_timing;

static double time_plan(const cm_conv_plan *p, void *ctx)
{
    plan_timing *t = ctx;
    conv_candidate c = {0, CUDNN_DEFAULT_MATH, p};
    double us = gpu_time_us(t->n, t->L, t->k, &c, *t->best_us);
    char id[24];
    snprintf(id, sizeof id, "%lld", cm_conv_graph_engine(p));
    note_candidate(t->tried, t->tried_cap, id, us, *t->best_us);
    return us;
}

static void conv_find_graph(cm_net *n, cm_layer *L, conv_choice *c, int k)
{
    cm_gpu *g = n->gpu;
    const cp_layer *l = L->l;
    cm_conv_shape s = {g->dnn_type, g->prec == CP_PREC_FP32, g->batch, l->in[0].c, l->in[0].h, l->in[0].w,
                       l->out_c,    l->kh,    l->kw,    l->groups, l->ph, l->pw, l->sh, l->sw, l->dh, l->dw,
                       l->out.h,    l->out.w};
    double us = -1;
    plan_timing t = {n, L, k, &us, c->tried[k], sizeof c->tried[k]};
    int timed = 0;
    c->plan[k] = cm_conv_graph_choose(g->dnn, &s, k, g->workspace_size, time_plan, &t, &us, &timed);
    if (!c->plan[k])
        cm_fatal("no cuDNN graph-API engine runs the %s pass within a workspace of %zu MiB (%d timed; "
                 "--workspace-mb, or --conv-api legacy)",
                 pass_names[k], g->workspace_size >> 20, timed);
    c->algo[k] = (int)cm_conv_graph_engine(c->plan[k]);
    c->ws[k] = cm_conv_graph_workspace(c->plan[k]);
    c->gpu_us[k] = c->find_us[k] = us;
    c->have[k] = true;
}

static void conv_tune(cm_net *n, cm_layer *L)
{
    cm_gpu *g = n->gpu;
    conv_choice *c = choice_for(L->l);
    bool need[3] = {true, L->l->needs_input_grad, true};
    for (int k = 0; k < 3; k++) {
        if (!need[k])
            continue;
        if (!c->have[k]) {
            if (g->conv_graph)
                conv_find_graph(n, L, c, k);
            else
                conv_find(n, L, c, k);
        }
        L->algo[k] = c->algo[k];
        L->algo_ws[k] = c->ws[k];
        L->plan[k] = c->plan[k];
        /* fp32 stays FMA-only whatever cuDNN reports. */
        if (g->prec != CP_PREC_FP32 && !L->plan[k])
            cudnnCheck(cudnnSetConvolutionMathType(L->conv[k], c->math[k]));
    }
    static const char *const pass_keys[3] = {"fwd", "bwd_data", "bwd_filter"};
    size_t at = 0;
    L->candidates[0] = 0;
    for (int k = 0; k < 3 && at < sizeof L->candidates; k++)
        if (need[k] && c->tried[k][0])
            at += (size_t)snprintf(L->candidates + at, sizeof L->candidates - at, "%s%s%s", at ? "; " : "",
                                   pass_keys[k], c->tried[k]);
    if (g->conv_graph) { /* engines, not algorithms */
        char data[48] = "";
        if (need[1])
            snprintf(data, sizeof data, ", bwd_data engine %d (%.0f us)", L->algo[1], c->gpu_us[1]);
        snprintf(L->note, sizeof L->note, "graph API: fwd engine %d (%.0f us)%s, bwd_filter engine %d (%.0f us)",
                 L->algo[0], c->gpu_us[0], data, L->algo[2], c->gpu_us[2]);
        return;
    }
    static const char *const math_names[] = {"default", "tensor_op", "tensor_op_allow_conversion", "fma"};
    const char *m0 = (unsigned)c->math[0] < 4 ? math_names[c->math[0]] : "?";
    size_t ws = 0;
    for (int k = 0; k < 3; k++)
        if (need[k] && L->algo_ws[k] > ws)
            ws = L->algo_ws[k];
    char data[48] = "";
    if (need[1])
        snprintf(data, sizeof data, ", bwd_data algo %d (%.0f us)", L->algo[1], c->gpu_us[1]);
    snprintf(L->note, sizeof L->note, "fwd algo %d (%s, %.0f us)%s, bwd_filter algo %d (%.0f us), workspace %.1f MiB",
             L->algo[0], m0, c->gpu_us[0], data, L->algo[2], c->gpu_us[2], (double)ws / 1048576.0);
}

static void conv_forward(cm_net *n, cm_layer *L)
{
    cm_gpu *g = n->gpu;
    if (L->plan[0])
        cm_conv_graph_run(g->dnn, L->plan[0], cm_input(n, L, 0), L->w, L->y, g->workspace);
    else
        cudnnCheck(cudnnConvolutionForward(g->dnn, &one, L->x_desc[0], cm_input(n, L, 0), L->w_desc, L->w,
                                           L->conv[0], (cudnnConvolutionFwdAlgo_t)L->algo[0], g->workspace,
                                           g->workspace_size, &zero, L->y_desc, L->y));
    /* A separate broadcast add, as PyTorch does after cuDNN's convolution. */
    if (L->l->bias)
        cudnnCheck(cudnnAddTensor(g->dnn, &one, L->b_desc, bias_of(L, L->w), &one, L->y_desc, L->y));
}

/* The bias gradient as a framework computes it (PyTorch: dy summed over
 * batch and pixels by its reduction kernels), spread over every SM; cuDNN's
 * cudnnConvolutionBackwardBias gives each channel one block, slow for few
 * channels and large images, and refuses bf16. */
static void bias_backward(cm_net *n, cm_layer *L)
{
    cm_gpu *g = n->gpu;
    cp_shape o = L->l->out;
    if (!g->bias_part || bias_part_bytes(g, o) > g->bias_part_bytes)
        cm_fatal("internal: no room for the bias gradient's partial sums of %d channels", o.c);
    cm_bias_grad(&g->kern, g->dtype, cm_dy(L), bias_of(L, L->g), g->batch, o.c, (long long)o.h * o.w, g->bias_part,
                 g->stream);
}

static void conv_backward_data(cm_net *n, cm_layer *L)
{
    cm_gpu *g = n->gpu;
    void *dx = grad_or_fail(n, L, 0);
    if (L->plan[1])
        cm_conv_graph_run(g->dnn, L->plan[1], dx, L->w, cm_dy(L), g->workspace);
    else
        cudnnCheck(cudnnConvolutionBackwardData(g->dnn, &one, L->w_desc, L->w, L->y_desc, cm_dy(L), L->conv[1],
                                                (cudnnConvolutionBwdDataAlgo_t)L->algo[1], g->workspace,
                                                g->workspace_size, &zero, L->x_desc[0], dx));
    cm_grad_done(n, L, 0, dx);
}

static void conv_backward_weight(cm_net *n, cm_layer *L)
{
    cm_gpu *g = n->gpu;
    if (L->plan[2])
        cm_conv_graph_run(g->dnn, L->plan[2], cm_input(n, L, 0), L->g, cm_dy(L), g->workspace);
    else
        cudnnCheck(cudnnConvolutionBackwardFilter(g->dnn, &one, L->x_desc[0], cm_input(n, L, 0), L->y_desc,
                                                  cm_dy(L), L->conv[2], (cudnnConvolutionBwdFilterAlgo_t)L->algo[2],
                                                  g->workspace, g->workspace_size, &zero, L->w_desc, L->g));
    if (L->l->bias)
        bias_backward(n, L);
}

/* --- fully connected ----------------------------------------------------------
 * Row-major y[N][out] = x[N][in] * W[out][in]^T + b is, for column-major
 * cuBLAS, Y'(out x N) = W'^T(out x in) X'(in x N) with W' = in x out. */

static void fc_setup(cm_net *n, cm_layer *L)
{
    const cp_layer *l = L->l;
    int in = l->in[0].c, out = l->out_c;
    if (l->bias) {
        L->b_desc = cm_tensor(n->gpu, 1, out, 1, 1);
        reserve_bias_part(n->gpu, l->out);
    }
    cm_params(n, L, (long long)in * out, l->bias ? out : 0, n->gpu->dtype, in);
}

static void fc_forward(cm_net *n, cm_layer *L)
{
    cm_gpu *g = n->gpu;
    int in = L->l->in[0].c, out = L->l->out_c, B = g->batch;
    cublasCheck(cublasGemmEx(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, out, B, in, &one, L->w, g->blas_type, in,
                             cm_input(n, L, 0), g->blas_type, in, &zero, L->y, g->blas_type, out, g->blas_compute,
                             CUBLAS_GEMM_DEFAULT));
    if (L->l->bias)
        cudnnCheck(cudnnAddTensor(g->dnn, &one, L->b_desc, bias_of(L, L->w), &one, L->y_desc, L->y));
}

static void fc_backward_data(cm_net *n, cm_layer *L)
{
    cm_gpu *g = n->gpu;
    int in = L->l->in[0].c, out = L->l->out_c, B = g->batch;
    void *dx = grad_or_fail(n, L, 0);
    /* dX'(in x N) = W'(in x out) dY'(out x N) */
    cublasCheck(cublasGemmEx(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, in, B, out, &one, L->w, g->blas_type, in, cm_dy(L),
                             g->blas_type, out, &zero, dx, g->blas_type, in, g->blas_compute, CUBLAS_GEMM_DEFAULT));
    cm_grad_done(n, L, 0, dx);
}

static void fc_backward_weight(cm_net *n, cm_layer *L)
{
    cm_gpu *g = n->gpu;
    int in = L->l->in[0].c, out = L->l->out_c, B = g->batch;
    /* dW'(in x out) = X'(in x N) dY'^T(N x out) */
    cublasCheck(cublasGemmEx(g->blas, CUBLAS_OP_N, CUBLAS_OP_T, in, out, B, &one, cm_input(n, L, 0), g->blas_type, in,
                             cm_dy(L), g->blas_type, out, &zero, L->g, g->blas_type, in, g->blas_compute,
                             CUBLAS_GEMM_DEFAULT));
    if (L->l->bias)
        bias_backward(n, L);
}

/* --- pooling ------------------------------------------------------------------ */

static void pool_setup(cm_net *n, cm_layer *L)
{
    const cp_layer *l = L->l;
    const char *kind = l->kind->name;
    cp_shape in = l->in[0], out = l->out;
    int kh = l->kh, kw = l->kw, sh = l->sh, sw = l->sw, ph = l->ph, pw = l->pw;
    if (strcmp(kind, "global_avgpool") == 0) {
        kh = in.h, kw = in.w, sh = sw = 1, ph = pw = 0;
    } else if (strcmp(kind, "adaptive_avgpool") == 0) {
        /* cuDNN has fixed windows: the stride and window that give the same
         * output size (exact where the input divides evenly). */
        sh = in.h / out.h, sw = in.w / out.w;
        if (sh < 1 || sw < 1)
            cm_fatal("adaptive pooling from %dx%d up to %dx%d has no cuDNN equivalent", in.h, in.w, out.h, out.w);
        kh = in.h - (out.h - 1) * sh, kw = in.w - (out.w - 1) * sw, ph = pw = 0;
    }
    cudnnPoolingMode_t mode =
        strcmp(kind, "maxpool") == 0 ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING; /* PyTorch's default */
    cudnnCheck(cudnnCreatePoolingDescriptor(&L->pool));
    int on = 0, oc = 0, oh = 0, ow = 0;
    cudnnCheck(cudnnSetPooling2dDescriptor(L->pool, mode, CUDNN_NOT_PROPAGATE_NAN, kh, kw, ph, pw, sh, sw));
    cudnnCheck(cudnnGetPooling2dForwardOutputDim(L->pool, L->x_desc[0], &on, &oc, &oh, &ow));
    /* cuDNN rounds the output size down; ceil_mode's extra window is had by
     * one more padding row/column, where that gives the size. */
    if (l->ceil_mode && (oh < out.h || ow < out.w)) {
        int ph2 = oh < out.h && ph + 1 < kh ? ph + 1 : ph, pw2 = ow < out.w && pw + 1 < kw ? pw + 1 : pw;
        cudnnCheck(cudnnSetPooling2dDescriptor(L->pool, mode, CUDNN_NOT_PROPAGATE_NAN, kh, kw, ph2, pw2, sh, sw));
        int h2, w2;
        cudnnCheck(cudnnGetPooling2dForwardOutputDim(L->pool, L->x_desc[0], &on, &oc, &h2, &w2));
        if (h2 == out.h && w2 == out.w)
            oh = h2, ow = w2;
        else /* back to the network's padding; the view below covers the rest */
            cudnnCheck(cudnnSetPooling2dDescriptor(L->pool, mode, CUDNN_NOT_PROPAGATE_NAN, kh, kw, ph, pw, sh, sw));
    }
    if (oh > out.h || ow > out.w || oh < 1 || ow < 1)
        cm_fatal("cuDNN pooling gives %dx%d, the network file %dx%d", oh, ow, out.h, out.w);
    if (oh == out.h && ow == out.w) {
        L->view_desc = L->y_desc;
    } else {
        /* The windows cuDNN computes, as a view into the full-size output. */
        cudnnCheck(cudnnCreateTensorDescriptor(&L->view_desc));
        cudnnCheck(cudnnSetTensor4dDescriptorEx(L->view_desc, n->gpu->dnn_type, n->gpu->batch, out.c, oh, ow,
                                                out.c * out.h * out.w, out.h * out.w, out.w, 1));
    }
}

static void pool_forward(cm_net *n, cm_layer *L)
{
    cudnnCheck(cudnnPoolingForward(n->gpu->dnn, L->pool, &one, L->x_desc[0], cm_input(n, L, 0), &zero, L->view_desc,
                                   L->y));
}

static void pool_backward_data(cm_net *n, cm_layer *L)
{
    void *dx = grad_or_fail(n, L, 0);
    cudnnCheck(cudnnPoolingBackward(n->gpu->dnn, L->pool, &one, L->view_desc, L->y, L->view_desc, cm_dy(L),
                                    L->x_desc[0], cm_input(n, L, 0), &zero, L->x_desc[0], dx));
    cm_grad_done(n, L, 0, dx);
}

/* --- activations ------------------------------------------------------------- */

static void act_setup(cm_net *n, cm_layer *L)
{
    (void)n;
    bool six = strcmp(L->l->kind->name, "relu6") == 0;
    cudnnCheck(cudnnCreateActivationDescriptor(&L->act));
    cudnnCheck(cudnnSetActivationDescriptor(L->act, six ? CUDNN_ACTIVATION_CLIPPED_RELU : CUDNN_ACTIVATION_RELU,
                                            CUDNN_NOT_PROPAGATE_NAN, six ? 6.0 : 0.0));
}

static void act_forward(cm_net *n, cm_layer *L)
{
    cudnnCheck(cudnnActivationForward(n->gpu->dnn, L->act, &one, L->x_desc[0], cm_input(n, L, 0), &zero, L->y_desc,
                                      L->y));
}

static void act_backward_data(cm_net *n, cm_layer *L)
{
    void *dx = grad_or_fail(n, L, 0);
    cudnnCheck(cudnnActivationBackward(n->gpu->dnn, L->act, &one, L->y_desc, L->y, L->y_desc, cm_dy(L), L->x_desc[0],
                                       cm_input(n, L, 0), &zero, L->x_desc[0], dx));
    cm_grad_done(n, L, 0, dx);
}

/* --- batch normalisation (training mode) ---------------------------------------- */

static void bn_setup(cm_net *n, cm_layer *L)
{
    int C = L->l->out.c;
    cudnnCheck(cudnnCreateTensorDescriptor(&L->b_desc));
    cudnnCheck(cudnnDeriveBNTensorDescriptor(L->b_desc, L->x_desc[0], CUDNN_BATCHNORM_SPATIAL));
    cm_params_bn(n, L, C);
    L->bn_stats = cm_alloc(4 * (size_t)C * sizeof(float));
}

static void bn_forward(cm_net *n, cm_layer *L)
{
    int C = L->l->out.c;
    float *w = L->w, *s = L->bn_stats;
    cudnnCheck(cudnnBatchNormalizationForwardTraining(n->gpu->dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, L->x_desc[0],
                                                      cm_input(n, L, 0), L->y_desc, L->y, L->b_desc, w, w + C,
                                                      BN_MOMENTUM, s, s + C, BN_EPSILON, s + 2 * C, s + 3 * C));
}

/* cuDNN computes dx, dscale and dshift in one call: it is timed as
 * backward-data where the input needs a gradient, else as backward-weight
 * (dx then goes to the scratch buffer). */
static void bn_backward(cm_net *n, cm_layer *L)
{
    int C = L->l->out.c;
    bool data = L->l->needs_input_grad;
    void *dx = data ? cm_grad_dst(n, L, 0) : NULL;
    if (!dx)
        dx = n->scratch, data = false;
    float *w = L->w, *g = L->g, *s = L->bn_stats;
    cudnnCheck(cudnnBatchNormalizationBackward(n->gpu->dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero,
                                               L->x_desc[0], cm_input(n, L, 0), L->y_desc, cm_dy(L), L->x_desc[0], dx,
                                               L->b_desc, w, g, g + C, BN_EPSILON, s + 2 * C, s + 3 * C));
    if (data)
        cm_grad_done(n, L, 0, dx);
}

/* --- local response normalisation --------------------------------------------- */

static void lrn_setup(cm_net *n, cm_layer *L)
{
    (void)n;
    const cp_layer *l = L->l;
    cudnnCheck(cudnnCreateLRNDescriptor(&L->lrn));
    /* cuDNN's LRN is PyTorch's: x / (k + alpha/n * sum x^2)^beta. */
    cudnnCheck(cudnnSetLRNDescriptor(L->lrn, (unsigned)l->size, l->alpha, l->beta, l->k));
}

static void lrn_forward(cm_net *n, cm_layer *L)
{
    cudnnCheck(cudnnLRNCrossChannelForward(n->gpu->dnn, L->lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, L->x_desc[0],
                                           cm_input(n, L, 0), &zero, L->y_desc, L->y));
}

static void lrn_backward_data(cm_net *n, cm_layer *L)
{
    void *dx = grad_or_fail(n, L, 0);
    cudnnCheck(cudnnLRNCrossChannelBackward(n->gpu->dnn, L->lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, L->y_desc, L->y,
                                            L->y_desc, cm_dy(L), L->x_desc[0], cm_input(n, L, 0), &zero, L->x_desc[0],
                                            dx));
    cm_grad_done(n, L, 0, dx);
}

/* --- dropout ------------------------------------------------------------------- */

/* cuDNN's dropout takes fp32 and fp16, not bf16 (CUDNN_STATUS_NOT_SUPPORTED):
 * bf16 runs the project's own kernel (kernels.h), L->drop left NULL, the
 * reserve its one-byte mask. */
static long long dropout_elements(const cm_net *n, const cm_layer *L)
{
    return (long long)(L->y_bytes / cm_dtype_size(n->gpu->dtype));
}

/* each layer's mask from its own fixed seed, through cuDNN or the bf16 kernel */
static unsigned long long dropout_seed(const cm_layer *L)
{
    return 1234ull + (unsigned long long)L->index;
}

static void dropout_setup(cm_net *n, cm_layer *L)
{
    cm_gpu *g = n->gpu;
    if (g->dtype == CM_BF16) {
        L->drop_reserve_size = (size_t)dropout_elements(n, L);
        L->drop_reserve = cm_alloc(L->drop_reserve_size);
        return;
    }
    size_t states = 0;
    cudnnCheck(cudnnCreateDropoutDescriptor(&L->drop));
    cudnnCheck(cudnnDropoutGetStatesSize(g->dnn, &states));
    L->drop_states = cm_alloc(states);
    cudnnCheck(cudnnSetDropoutDescriptor(L->drop, g->dnn, (float)L->l->p, L->drop_states, states, dropout_seed(L)));
    cudnnCheck(cudnnDropoutGetReserveSpaceSize(L->x_desc[0], &L->drop_reserve_size));
    L->drop_reserve = cm_alloc(L->drop_reserve_size);
}

static void dropout_forward(cm_net *n, cm_layer *L)
{
    if (!L->drop) {
        cm_dropout_bf16_forward(&n->gpu->kern, cm_input(n, L, 0), L->y, L->drop_reserve, dropout_elements(n, L),
                                L->l->p, dropout_seed(L), n->gpu->stream);
        return;
    }
    cudnnCheck(cudnnDropoutForward(n->gpu->dnn, L->drop, L->x_desc[0], cm_input(n, L, 0), L->y_desc, L->y,
                                   L->drop_reserve, L->drop_reserve_size));
}

static void dropout_backward_data(cm_net *n, cm_layer *L)
{
    void *dx = grad_or_fail(n, L, 0);
    if (!L->drop)
        cm_dropout_bf16_backward(&n->gpu->kern, cm_dy(L), L->drop_reserve, dx, dropout_elements(n, L), L->l->p,
                                 n->gpu->stream);
    else
        cudnnCheck(cudnnDropoutBackward(n->gpu->dnn, L->drop, L->y_desc, cm_dy(L), L->x_desc[0], dx, L->drop_reserve,
                                        L->drop_reserve_size));
    cm_grad_done(n, L, 0, dx);
}

/* --- softmax; at the end of the network, with cross-entropy loss ------------------ */

static void softmax_setup(cm_net *n, cm_layer *L)
{
    (void)n, (void)L;
}

static void softmax_forward(cm_net *n, cm_layer *L)
{
    cudnnCheck(cudnnSoftmaxForward(n->gpu->dnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one, L->x_desc[0],
                                   cm_input(n, L, 0), &zero, L->y_desc, L->y));
}

static void softmax_backward_data(cm_net *n, cm_layer *L)
{
    cm_gpu *g = n->gpu;
    void *dx = grad_or_fail(n, L, 0);
    if (L->loss)
        cm_xent_backward(&g->kern, g->dtype, L->y, n->labels, dx, n->loss, g->batch, n->classes, g->stream);
    else
        cudnnCheck(cudnnSoftmaxBackward(g->dnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one, L->y_desc,
                                        L->y, L->y_desc, cm_dy(L), &zero, L->x_desc[0], dx));
    cm_grad_done(n, L, 0, dx);
}

/* --- concat, add, flatten --------------------------------------------------------
 * Concatenating NCHW tensors along C copies, for every sample, each input's
 * C_j x H x W block into its slice: one strided 2-D copy per input. */

static void concat_forward(cm_net *n, cm_layer *L)
{
    cm_gpu *g = n->gpu;
    cp_shape out = L->l->out;
    size_t plane = (size_t)out.h * out.w * g->elt, pitch = (size_t)out.c * plane, off = 0;
    for (int j = 0; j < L->l->n_inputs; j++) {
        size_t width = (size_t)L->l->in[j].c * plane;
        cudaCheck(cudaMemcpy2DAsync((char *)L->y + off, pitch, cm_input(n, L, j), width, width, (size_t)g->batch,
                                    cudaMemcpyDeviceToDevice, g->stream));
        off += width;
    }
}

static void concat_backward_data(cm_net *n, cm_layer *L)
{
    cm_gpu *g = n->gpu;
    cp_shape out = L->l->out;
    size_t plane = (size_t)out.h * out.w * g->elt, pitch = (size_t)out.c * plane, off = 0;
    const char *dy = cm_dy(L);
    for (int j = 0; j < L->l->n_inputs; j++) {
        size_t width = (size_t)L->l->in[j].c * plane;
        void *dx = cm_grad_dst(n, L, j);
        if (dx) {
            cudaCheck(cudaMemcpy2DAsync(dx, width, dy + off, pitch, width, (size_t)g->batch, cudaMemcpyDeviceToDevice,
                                        g->stream));
            cm_grad_done(n, L, j, dx);
        }
        off += width;
    }
}

static void add_setup(cm_net *n, cm_layer *L)
{
    (void)n;
    cudnnCheck(cudnnCreateOpTensorDescriptor(&L->op));
    cudnnCheck(cudnnSetOpTensorDescriptor(L->op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
}

static void add_forward(cm_net *n, cm_layer *L)
{
    cudnnHandle_t dnn = n->gpu->dnn;
    cudnnCheck(cudnnOpTensor(dnn, L->op, &one, L->x_desc[0], cm_input(n, L, 0), &one, L->x_desc[1], cm_input(n, L, 1),
                             &zero, L->y_desc, L->y));
    for (int j = 2; j < L->l->n_inputs; j++)
        cudnnCheck(cudnnAddTensor(dnn, &one, L->x_desc[j], cm_input(n, L, j), &one, L->y_desc, L->y));
}

/* add and flatten: every input's gradient is dy itself. */
static void pass_backward_data(cm_net *n, cm_layer *L)
{
    for (int j = 0; j < L->l->n_inputs; j++)
        cm_grad_pass(n, L, j, cm_dy(L));
}

static void no_setup(cm_net *n, cm_layer *L)
{
    (void)n, (void)L;
}

static const cm_kind kinds[] = {
    /* name, setup, tune, forward, backward_data, backward_weight, joint */
    {"conv", conv_setup, conv_tune, conv_forward, conv_backward_data, conv_backward_weight, false},
    {"fc", fc_setup, NULL, fc_forward, fc_backward_data, fc_backward_weight, false},
    {"maxpool", pool_setup, NULL, pool_forward, pool_backward_data, NULL, false},
    {"avgpool", pool_setup, NULL, pool_forward, pool_backward_data, NULL, false},
    {"global_avgpool", pool_setup, NULL, pool_forward, pool_backward_data, NULL, false},
    {"adaptive_avgpool", pool_setup, NULL, pool_forward, pool_backward_data, NULL, false},
    {"relu", act_setup, NULL, act_forward, act_backward_data, NULL, false},
    {"relu6", act_setup, NULL, act_forward, act_backward_data, NULL, false},
    {"batchnorm", bn_setup, NULL, bn_forward, bn_backward, bn_backward, true},
    {"lrn", lrn_setup, NULL, lrn_forward, lrn_backward_data, NULL, false},
    {"dropout", dropout_setup, NULL, dropout_forward, dropout_backward_data, NULL, false},
    {"softmax", softmax_setup, NULL, softmax_forward, softmax_backward_data, NULL, false},
    {"concat", no_setup, NULL, concat_forward, concat_backward_data, NULL, false},
    {"add", add_setup, NULL, add_forward, pass_backward_data, NULL, false},
    {"flatten", no_setup, NULL, NULL, pass_backward_data, NULL, false},
};

const cm_kind *cm_kind_find(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].name, name) == 0)
            return &kinds[i];
    return NULL;
}
