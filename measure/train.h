/* train: real training iterations of a cnnperf network on one GPU, timed
 * the way the predictor reports them (model/predict.c, Eq. 6-4):
 *
 *   loading   the synthetic batch and its labels copied from pinned host memory
 *   forward   every layer in the network file's (topological) order
 *   backward  every layer in reverse order: backward-data (skipped where no
 *             upstream layer has parameters), then backward-weight
 *   update    SGD with momentum on every layer's parameters
 *
 * Gradients that meet where a tensor feeds several layers are summed as
 * they arrive, and that time is the producer's backward-data, as in the
 * predictor. Every layer pass and phase is bracketed by CUDA events. */
#ifndef CM_TRAIN_H
#define CM_TRAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "../networks/network.h"
#include "kernels.h"

/* The GPU, its library handles and what the precision means for them. */
typedef struct {
    int device;
    char name[256];
    int cc_major, cc_minor, sm_count;
    double memory_gb;
    cudaStream_t stream;
    cudnnHandle_t dnn;
    cublasHandle_t blas;
    cm_kernels kern;

    cp_precision prec;
    cm_dtype dtype;                   /* activations, weights, gradients */
    cudnnDataType_t dnn_type;
    cudaDataType_t blas_type;
    cublasComputeType_t blas_compute; /* fp32 accumulation in every precision */
    cudnnMathType_t math;             /* what convolutions may use: FMA only for fp32 */
    bool conv_graph;                  /* --conv-api graph: convolutions by cuDNN's graph API (conv_graph.h) */
    size_t elt;                       /* bytes of one element of dtype */
    int batch;
    int rank;                         /* worker rank: picks the synthetic batch, so ranks see different data */

    size_t workspace_limit;           /* --workspace-mb */
    void *workspace;                  /* shared by all convolutions */
    size_t workspace_size;
    float *bias_part;                 /* the bias gradients' partial sums (cm_bias_grad), sized at set-up */
    size_t bias_part_bytes;
} cm_gpu;

struct cm_kind;

/* "fwd 70:411 1:520~; bwd_data ...; bwd_filter ...": id:us per candidate timed for a convolution pass (an
 * engine, or a legacy algorithm with t for tensor-op math), ~ after a time of one call (a candidate cut after
 * its first call ran RETIME_CUT times the best so far), "held" where a call held the host */
#define CM_CANDIDATES_NOTE 512

typedef struct cm_layer {
    const cp_layer *l;
    const struct cm_kind *kind;
    int index;
    bool wants_grad; /* has parameters, or a layer upstream has */
    bool loss;       /* the softmax at the end: softmax cross-entropy */

    cudnnTensorDescriptor_t x_desc[CP_MAX_INPUTS], y_desc;
    void *y;         /* output; flatten: its input's memory */
    size_t y_bytes;
    void *dy_own;    /* this layer's own gradient buffer, NULL where gradients only arrive by reference */
    void *grad;      /* the gradient of y this iteration: NULL until a consumer delivers one */

    /* Parameters, [weights | bias], in ptype (the activation type, fp32 for
     * batch norm); fp32 master copy and momentum for SGD. All four are
     * views into the network's flat buffers of ptype (cm_flat), from
     * element flat_off on. */
    long long n_params, n_weights;
    cm_dtype ptype;
    void *w, *g;
    float *w32, *v32;
    long long flat_off;

    /* What each kind needs (gpu_layers.c). */
    cudnnFilterDescriptor_t w_desc;
    cudnnTensorDescriptor_t b_desc, view_desc;
    cudnnConvolutionDescriptor_t conv[3]; /* forward, backward-data, backward-filter */
    int algo[3];                          /* legacy API: the algorithm; graph API: the engine's global index */
    size_t algo_ws[3];
    struct cm_conv_plan *plan[3];         /* --conv-api graph: the chosen engines, shared by equal shapes */
    cudnnPoolingDescriptor_t pool;
    cudnnActivationDescriptor_t act;
    cudnnLRNDescriptor_t lrn;
    cudnnDropoutDescriptor_t drop;
    void *drop_states, *drop_reserve;
    size_t drop_reserve_size;
    cudnnOpTensorDescriptor_t op;
    float *bn_stats; /* running mean, running variance, saved mean, saved inverse std: 4 x C */
    char note[160];  /* chosen algorithms, for the provenance */
    char candidates[CM_CANDIDATES_NOTE]; /* every algorithm or engine timed for each pass, for the provenance */
} cm_layer;

/* CUDA events of one iteration; interval k (from event k to k+1) belongs to
 * owner[k] (layer * CP_PASS_COUNT + pass, or -1) and phase[k]. */
typedef struct {
    cudaEvent_t *ev;
    int *owner;
    signed char *phase;
    int n, cap;
} cm_timeline;

/* All parameters of one element type, back to back in reverse layer order
 * (the order backward produces the gradients: a gradient bucket is a
 * contiguous range), each layer's start aligned to CM_FLAT_ALIGN elements;
 * the padding is zero and stays zero. */
#define CM_FLAT_ALIGN 128
typedef struct {
    long long count; /* elements, padding included */
    void *g;         /* gradients, of the type */
    float *w32, *v32;
    void *w;         /* what the layers read: w32 for fp32, else the 16-bit copy */
} cm_flat;

struct cm_exchange;

enum { CM_PHASE_LOADING, CM_PHASE_FORWARD, CM_PHASE_BACKWARD, CM_PHASE_UPDATE, CM_PHASE_COUNT };

typedef struct {
    cm_gpu *gpu;
    const cp_network *net;
    cm_layer *layers;
    int n;

    cudnnTensorDescriptor_t in_desc;
    void *input, *input_host; /* the synthetic batch; host copy pinned */
    size_t input_bytes;
    int *labels, *labels_host;
    float *loss;              /* per sample, written by the loss layer's backward */
    int classes;
    void *scratch;            /* a gradient that must be added to one already there */
    size_t scratch_bytes;
    float lr, momentum;
    float lr_scale;           /* the SGD runs with lr * lr_scale (1; 1/N after an all-reduce sum; 0: no change) */
    cm_flat flat[CM_DTYPE_COUNT];
    struct cm_exchange *ex;   /* the gradient exchange between backward and update, or NULL */

    cm_timeline tl;
    int phase, cur_layer, cur_pass;
    double host_ms; /* wall-clock time cm_iteration took to enqueue the iteration */
    bool sync_each_pass; /* CNNPERF_MEASURE_SYNC=1: find the layer an asynchronous error comes from */
    /* cm_host_profile: with host_us set, every mark synchronises the stream
     * and adds the host time since the previous mark's synchronisation to
     * that mark's owner (n x CP_PASS_COUNT entries, µs) */
    double *host_us;
    double host_mark, host_other_us; /* the last synchronisation's end; host time of no layer */
    /* --host-profile-behind: after each synchronisation a kernel spinning this
     * long (µs) is queued first, so a pass whose library calls wait for the
     * GPU shows at least this much host time */
    double host_behind_us;
    /* --isolated-behind: isolated passes whose calls the host was still
     * enqueueing when the spin ahead of them ended, over all rounds (their
     * times hold host time) */
    int isolated_overruns;
    /* --launch graph: the first cm_iteration captures the iteration into a
     * CUDA graph, every one launches it (one GPU, no exchange) */
    bool graph, capturing;
    cudaGraphExec_t graph_exec;
} cm_net;

/* Handles, stream, NVRTC kernels and the precision's types for device dev. */
void cm_gpu_init(cm_gpu *g, int dev, cp_precision prec, int batch, size_t workspace_limit);

/* Allocates and initialises everything, chooses convolution algorithms.
 * Exits with a message (naming the layer) when something does not fit. */
void cm_net_build(cm_net *n, cm_gpu *g, const cp_network *net);

/* Enqueues one training iteration with its events (with n->graph set:
 * captures it once, then launches the graph). */
void cm_iteration(cm_net *n);
/* Waits for the iteration and reads its times: layer_ms has n x CP_PASS_COUNT entries. */
void cm_collect(cm_net *n, double *iteration_ms, double phase_ms[CM_PHASE_COUNT], double *layer_ms);
/* With CNNPERF_MEASURE_PROFILE=1 in the environment, cudaProfilerStart (on)
 * and Stop (off) around the timed iterations, so that a profiler started with
 * profiling off (ncu --profile-from-start off) sees only those; else nothing. */
void cm_profile_timed(int on);
/* --layers isolated: every layer pass alone, `reps` times back to back in
 * the state a normal iteration gives it (run after at least one); layer_ms
 * as cm_collect's, the time of one repetition. One GPU, no exchange.
 * behind_us > 0: a kernel spinning that long is queued ahead of each pass's
 * start event, so the host's library calls are all enqueued before the GPU
 * reaches them (a legacy-API call costs the host more than a short pass
 * takes, and would otherwise be timed with it). */
void cm_isolated(cm_net *n, int reps, double behind_us, double *layer_ms);
/* --layers behind: one more training iteration, queued behind a kernel
 * spinning `us` microseconds, so that the host has enqueued all of its calls
 * before the GPU reaches the first: the events around each pass then time
 * the GPU's work alone, with none of the host's gaps (the iteration itself
 * is not the training iteration's time). layer_ms as cm_collect's. Returns
 * whether the host took longer than the spin to enqueue the iteration (some
 * pass times may then hold host time). One GPU, stream launch, no exchange. */
bool cm_iteration_behind(cm_net *n, double us, double *layer_ms);
/* One iteration with the stream synchronised before every layer pass, so
 * that no call waits for a full launch queue: host_us (n x CP_PASS_COUNT,
 * zeroed here) gets what the host spent in each pass's library calls,
 * launches and event records, in µs; returns the host's total for the
 * iteration in ms (the loading copies and phase marks included). One GPU,
 * stream launch, no exchange. */
double cm_host_profile(cm_net *n, double *host_us);
/* Mean loss of the last iteration (the network must end in softmax). */
double cm_loss(cm_net *n);
/* 64-bit FNV-1a over the bytes of the fp32 master parameters (every flat
 * buffer, by type), copied to the host. Equal on two ranks when their
 * parameters are bit-identical. */
uint64_t cm_params_checksum(const cm_net *n);

/* --- for the layer kinds ------------------------------------------------- */

/* Device memory, zeroed; out of memory names cm_where. */
void *cm_alloc(size_t bytes);
/* Bytes of device memory the harness's own buffers hold now (cm_alloc's,
 * less what it has freed): the footprint model/memory.c predicts, plus the
 * convolution workspace. */
extern size_t cm_allocated_bytes;
/* The layer feeding input j, NULL for the network input. */
cm_layer *cm_producer(cm_net *n, const cm_layer *L, int j);
const void *cm_input(const cm_net *n, const cm_layer *L, int j);
/* The gradient of L's output in this iteration. */
const void *cm_dy(const cm_layer *L);
/* Where L writes the gradient of its input j (NULL: that input needs none);
 * after writing, cm_grad_done hands it over. */
void *cm_grad_dst(cm_net *n, cm_layer *L, int j);
void cm_grad_done(cm_net *n, cm_layer *L, int j, void *dst);
/* Input j's gradient is src unchanged (add, flatten): no copy. */
void cm_grad_pass(cm_net *n, cm_layer *L, int j, const void *src);
/* Parameters of n_weights (He-uniform for fan_in) then n_bias (zero), in ptype. */
void cm_params(cm_net *n, cm_layer *L, long long n_weights, long long n_bias, cm_dtype ptype, long long fan_in);
/* Batch norm: scale 1, shift 0, fp32. */
void cm_params_bn(cm_net *n, cm_layer *L, int channels);

size_t cm_dtype_size(cm_dtype t);
/* A float as bf16, rounded to nearest even (NaN stays NaN), as the NVRTC kernels' st_bf16 stores it. */
uint16_t cm_to_bf16(float f);
/* An NCHW tensor of the GPU's activation type. */
cudnnTensorDescriptor_t cm_tensor(const cm_gpu *g, int n, int c, int h, int w);
/* One line "cnnperf-measure: at 'layer': message", then exit status 1. */
void cm_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
