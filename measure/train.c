#include "train.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_profiler_api.h>

#include "check.h"
#include "exchange.h"
#include "gpu_layers.h"
#include "mpi_util.h"

/* Input values, weights and the dropout seeds come from fixed seeds, so two
 * runs train on the same numbers. */
#define CM_SEED 20261122u

void cm_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cnnperf-measure: at '%s': ", cm_where);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(CM_EXIT_RUNTIME);
}

size_t cm_dtype_size(cm_dtype t)
{
    return t == CM_F32 ? 4 : 2;
}

size_t cm_allocated_bytes;

void *cm_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes == 0)
        return NULL;
    cudaCheck(cudaMalloc(&p, bytes));
    cm_allocated_bytes += bytes;
    cudaCheck(cudaMemset(p, 0, bytes));
    return p;
}

cudnnTensorDescriptor_t cm_tensor(const cm_gpu *g, int n, int c, int h, int w)
{
    cudnnTensorDescriptor_t d;
    cudnnCheck(cudnnCreateTensorDescriptor(&d));
    cudnnCheck(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, g->dnn_type, n, c, h, w));
    return d;
}

/* --- host-side numbers ----------------------------------------------------- */

static uint64_t rng_next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float rng_uniform(uint64_t *s, float bound) /* in [-bound, bound) */
{
    return (float)((double)(rng_next(s) >> 11) / 9007199254740992.0 * 2.0 - 1.0) * bound;
}

/* IEEE half, round to nearest even. */
static uint16_t to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
    int32_t exp = (int32_t)((x >> 23) & 0xffu);
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
    exp = exp - 127 + 15;
    if (exp >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (exp <= 0) { /* subnormal half */
        if (exp < -10)
            return (uint16_t)sign;
        mant |= 0x800000u;
        int shift = 14 - exp;
        uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (h & 1u)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)exp << 10) | (mant >> 13), rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++; /* a carry into the exponent is the right result */
    return (uint16_t)(sign | h);
}

uint16_t cm_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return 0x7fc0u;
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

/* Copies n floats to device memory of type t. */
static void upload(void *dst, const float *src, size_t n, cm_dtype t)
{
    if (t == CM_F32) {
        cudaCheck(cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyHostToDevice));
        return;
    }
    uint16_t *tmp = cm_xcalloc(n, sizeof *tmp);
    for (size_t i = 0; i < n; i++)
        tmp[i] = t == CM_F16 ? to_half(src[i]) : cm_to_bf16(src[i]);
    cudaCheck(cudaMemcpy(dst, tmp, n * sizeof *tmp, cudaMemcpyHostToDevice));
    free(tmp);
}

/* --- the GPU --------------------------------------------------------------- */

void cm_gpu_init(cm_gpu *g, int dev, cp_precision prec, int batch, size_t workspace_limit)
{
    memset(g, 0, sizeof *g);
    cm_where = "GPU set-up";
    g->device = dev;
    g->prec = prec;
    g->batch = batch;
    g->workspace_limit = workspace_limit;
    cudaCheck(cudaSetDevice(dev));
    struct cudaDeviceProp p;
    cudaCheck(cudaGetDeviceProperties(&p, dev));
    snprintf(g->name, sizeof g->name, "%s", p.name);
    g->cc_major = p.major;
    g->cc_minor = p.minor;
    g->sm_count = p.multiProcessorCount;
    g->memory_gb = (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
    if ((prec == CP_PREC_TF32 || prec == CP_PREC_BF16) && g->cc_major < 8) {
        fprintf(stderr, "cnnperf-measure: --precision %s needs compute capability 8.0 or newer; %s is %d.%d\n",
                cp_precision_name(prec), g->name, g->cc_major, g->cc_minor);
        exit(CM_EXIT_BAD_INPUT);
    }

    cudaCheck(cudaStreamCreate(&g->stream));
    cudnnCheck(cudnnCreate(&g->dnn));
    cudnnCheck(cudnnSetStream(g->dnn, g->stream));
    cublasCheck(cublasCreate(&g->blas));
    cublasCheck(cublasSetStream(g->blas, g->stream));

    /* fp32 means FP32 arithmetic: FMA-only convolutions (cuDNN's default math
     * would allow TF32 on Ampere and later) and cuBLAS's default math, which
     * never uses TF32 for CUBLAS_COMPUTE_32F. The other precisions use tensor
     * cores with fp32 accumulation, as PyTorch does. */
    cublasMath_t blas_math = CUBLAS_DEFAULT_MATH;
    g->blas_compute = CUBLAS_COMPUTE_32F;
    g->math = CUDNN_TENSOR_OP_MATH;
    switch (prec) {
    case CP_PREC_FP32:
        g->dtype = CM_F32, g->dnn_type = CUDNN_DATA_FLOAT, g->blas_type = CUDA_R_32F;
        g->math = CUDNN_FMA_MATH;
        break;
    case CP_PREC_TF32:
        /* TENSOR_OP (not ..._ALLOW_CONVERSION, which may round fp32 to fp16). */
        g->dtype = CM_F32, g->dnn_type = CUDNN_DATA_FLOAT, g->blas_type = CUDA_R_32F;
        g->blas_compute = CUBLAS_COMPUTE_32F_FAST_TF32;
        blas_math = CUBLAS_TF32_TENSOR_OP_MATH;
        break;
    case CP_PREC_FP16:
        g->dtype = CM_F16, g->dnn_type = CUDNN_DATA_HALF, g->blas_type = CUDA_R_16F;
        break;
    default:
        g->dtype = CM_BF16, g->dnn_type = CUDNN_DATA_BFLOAT16, g->blas_type = CUDA_R_16BF;
        break;
    }
    g->elt = cm_dtype_size(g->dtype);
    cublasCheck(cublasSetMathMode(g->blas, blas_math));
    cm_where = "NVRTC kernels";
    cm_kernels_load(&g->kern);
}

/* --- gradient routing ------------------------------------------------------ */

cm_layer *cm_producer(cm_net *n, const cm_layer *L, int j)
{
    int r = L->l->inputs[j];
    return r == CP_INPUT_DATA ? NULL : &n->layers[r];
}

const void *cm_input(const cm_net *n, const cm_layer *L, int j)
{
    int r = L->l->inputs[j];
    return r == CP_INPUT_DATA ? n->input : n->layers[r].y;
}

const void *cm_dy(const cm_layer *L)
{
    return L->grad ? L->grad : L->dy_own;
}

/* From here on, GPU time belongs to (layer, pass); layer -1: to no layer. */
static void mark(cm_net *n, int layer, int pass)
{
    cm_timeline *t = &n->tl;
    if (n->host_us) {
        /* the calls since the last mark: the previous owner's host cost */
        double now = cm_mpi_now();
        if (t->n > 0)
            *(t->owner[t->n - 1] >= 0 ? &n->host_us[t->owner[t->n - 1]] : &n->host_other_us) +=
                (now - n->host_mark) * 1e6;
        cudaCheck(cudaStreamSynchronize(n->gpu->stream));
        if (n->host_behind_us > 0)
            cm_spin(&n->gpu->kern, n->host_behind_us, n->gpu->stream);
        n->host_mark = cm_mpi_now();
    } else if (n->sync_each_pass && !n->capturing) /* an error surfaces here, while cm_where still names its layer */
        cudaCheck(cudaStreamSynchronize(n->gpu->stream));
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        t->ev = realloc(t->ev, (size_t)cap * sizeof *t->ev);
        t->owner = realloc(t->owner, (size_t)cap * sizeof *t->owner);
        t->phase = realloc(t->phase, (size_t)cap * sizeof *t->phase);
        if (!t->ev || !t->owner || !t->phase)
            cm_fatal("out of host memory for CUDA events");
        for (int i = t->cap; i < cap; i++)
            cudaCheck(cudaEventCreate(&t->ev[i]));
        t->cap = cap;
    }
    t->owner[t->n] = layer < 0 ? -1 : layer * CP_PASS_COUNT + pass;
    t->phase[t->n] = (signed char)n->phase;
    /* captured into a graph, an event must be external to be read outside it */
    cudaCheck(cudaEventRecordWithFlags(t->ev[t->n], n->gpu->stream,
                                       n->capturing ? cudaEventRecordExternal : cudaEventRecordDefault));
    t->n++;
    n->cur_layer = layer;
    n->cur_pass = pass;
}

/* Adds src to P's gradient: in place when P owns it, else out of place into
 * P's own buffer (the one there may be another layer's dy, still needed).
 * Timed as P's backward-data, like the predictor's grad_accumulate. */
static void accumulate(cm_net *n, cm_layer *P, const void *src)
{
    static const float one = 1.0f, zero = 0.0f;
    cm_gpu *g = n->gpu;
    int layer = n->cur_layer, pass = n->cur_pass;
    if (!P->dy_own)
        cm_fatal("internal: layer '%s' has no gradient buffer to sum into", P->l->name);
    mark(n, P->index, CP_PASS_BWD_DATA);
    if (P->grad == P->dy_own) {
        cudnnCheck(cudnnAddTensor(g->dnn, &one, P->y_desc, src, &one, P->y_desc, P->dy_own));
    } else {
        if (!P->op) {
            cudnnCheck(cudnnCreateOpTensorDescriptor(&P->op));
            cudnnCheck(cudnnSetOpTensorDescriptor(P->op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
        }
        cudnnCheck(cudnnOpTensor(g->dnn, P->op, &one, P->y_desc, P->grad, &one, P->y_desc, src, &zero, P->y_desc,
                                 P->dy_own));
        P->grad = P->dy_own;
    }
    mark(n, layer, pass);
}

void *cm_grad_dst(cm_net *n, cm_layer *L, int j)
{
    cm_layer *P = cm_producer(n, L, j);
    if (!P || !P->wants_grad)
        return NULL;
    if (P->grad)
        return n->scratch;
    if (!P->dy_own)
        cm_fatal("internal: layer '%s' has no gradient buffer", P->l->name);
    return P->dy_own;
}

void cm_grad_done(cm_net *n, cm_layer *L, int j, void *dst)
{
    cm_layer *P = cm_producer(n, L, j);
    if (!P || !dst)
        return;
    if (dst == n->scratch)
        accumulate(n, P, dst);
    else
        P->grad = dst;
}

void cm_grad_pass(cm_net *n, cm_layer *L, int j, const void *src)
{
    cm_layer *P = cm_producer(n, L, j);
    if (!P || !P->wants_grad)
        return;
    if (P->grad)
        accumulate(n, P, src);
    else
        P->grad = (void *)src;
}

/* --- parameters ------------------------------------------------------------ */

static void params_alloc(cm_layer *L, const float *host)
{
    size_t np = (size_t)L->n_params, e = cm_dtype_size(L->ptype);
    L->w32 = cm_alloc(np * sizeof(float));
    L->v32 = cm_alloc(np * sizeof(float));
    cudaCheck(cudaMemcpy(L->w32, host, np * sizeof(float), cudaMemcpyHostToDevice));
    if (L->ptype == CM_F32) {
        L->w = L->w32;
    } else {
        L->w = cm_alloc(np * e);
        upload(L->w, host, np, L->ptype);
    }
    L->g = cm_alloc(np * e);
}

void cm_params(cm_net *n, cm_layer *L, long long n_weights, long long n_bias, cm_dtype ptype, long long fan_in)
{
    (void)n;
    L->n_weights = n_weights;
    L->n_params = n_weights + n_bias;
    L->ptype = ptype;
    if (L->n_params == 0)
        return;
    float *host = cm_xcalloc((size_t)L->n_params, sizeof *host);
    /* He-uniform: keeps activations from shrinking through ReLU stacks. */
    float bound = sqrtf(6.0f / (float)(fan_in > 0 ? fan_in : 1));
    uint64_t s = CM_SEED + 7919u * (uint64_t)L->index;
    for (long long i = 0; i < n_weights; i++)
        host[i] = rng_uniform(&s, bound);
    params_alloc(L, host);
    free(host);
}

void cm_params_bn(cm_net *n, cm_layer *L, int channels)
{
    (void)n;
    L->n_weights = channels;
    L->n_params = 2LL * channels;
    L->ptype = CM_F32; /* cuDNN keeps batch-norm scale and shift in fp32 for every data type */
    float *host = cm_xcalloc((size_t)L->n_params, sizeof *host);
    for (int c = 0; c < channels; c++)
        host[c] = 1.0f;
    params_alloc(L, host);
    free(host);
}

/* Moves every layer's parameters, master copy, momentum and gradients into
 * one flat buffer per type (cm_flat), in reverse layer order, so that a
 * gradient bucket is one contiguous range and a checksum or a parameter
 * server sees one array. Before the algorithm search, which runs on the
 * final pointers. */
static void flatten_params(cm_net *n)
{
    long long off[CM_DTYPE_COUNT] = {0};
    for (int i = n->n - 1; i >= 0; i--) {
        cm_layer *L = &n->layers[i];
        if (L->n_params == 0)
            continue;
        L->flat_off = off[L->ptype];
        off[L->ptype] += (L->n_params + CM_FLAT_ALIGN - 1) / CM_FLAT_ALIGN * CM_FLAT_ALIGN;
    }
    for (int t = 0; t < CM_DTYPE_COUNT; t++) {
        cm_flat *f = &n->flat[t];
        f->count = off[t];
        if (!f->count)
            continue;
        cm_where = "flat parameter buffers";
        size_t e = cm_dtype_size((cm_dtype)t);
        f->w32 = cm_alloc((size_t)f->count * sizeof(float));
        f->v32 = cm_alloc((size_t)f->count * sizeof(float));
        f->g = cm_alloc((size_t)f->count * e);
        f->w = t == CM_F32 ? (void *)f->w32 : cm_alloc((size_t)f->count * e);
    }
    for (int i = 0; i < n->n; i++) {
        cm_layer *L = &n->layers[i];
        if (L->n_params == 0)
            continue;
        cm_where = L->l->name;
        cm_flat *f = &n->flat[L->ptype];
        size_t np = (size_t)L->n_params, e = cm_dtype_size(L->ptype), o = (size_t)L->flat_off;
        cudaCheck(cudaMemcpy(f->w32 + o, L->w32, np * sizeof(float), cudaMemcpyDeviceToDevice));
        if (L->ptype != CM_F32) {
            cudaCheck(cudaMemcpy((char *)f->w + o * e, L->w, np * e, cudaMemcpyDeviceToDevice));
            cudaCheck(cudaFree(L->w));
        }
        cudaCheck(cudaFree(L->w32));
        cudaCheck(cudaFree(L->v32));
        cudaCheck(cudaFree(L->g));
        cm_allocated_bytes -= np * (2 * sizeof(float) + e + (L->ptype != CM_F32 ? e : 0));
        L->w32 = f->w32 + o;
        L->v32 = f->v32 + o;
        L->g = (char *)f->g + o * e;
        L->w = L->ptype == CM_F32 ? (void *)L->w32 : (void *)((char *)f->w + o * e);
    }
}

uint64_t cm_params_checksum(const cm_net *n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int t = 0; t < CM_DTYPE_COUNT; t++) {
        const cm_flat *f = &n->flat[t];
        if (!f->count)
            continue;
        size_t bytes = (size_t)f->count * sizeof(float);
        unsigned char *host = cm_xcalloc(bytes, 1);
        cudaCheck(cudaMemcpy(host, f->w32, bytes, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < bytes; i++)
            h = (h ^ host[i]) * 0x100000001b3ull;
        free(host);
    }
    return h;
}

/* --- building the network -------------------------------------------------- */

static void seed_gradient(cm_gpu *g, cm_layer *L)
{
    /* A layer nobody reads: its output gradient is that of the mean of its
     * outputs (what the loss would be for a network not ending in softmax). */
    float v = 1.0f / (float)((double)g->batch * cp_shape_elems(L->l->out));
    uint16_t h = g->dtype == CM_F16 ? to_half(v) : cm_to_bf16(v);
    cudnnCheck(cudnnSetTensor(g->dnn, L->y_desc, L->dy_own, g->dtype == CM_F32 ? (const void *)&v : (const void *)&h));
}

void cm_net_build(cm_net *n, cm_gpu *g, const cp_network *net)
{
    memset(n, 0, sizeof *n);
    n->gpu = g;
    n->net = net;
    n->n = net->n_layers;
    n->lr = 0.01f;
    n->momentum = 0.9f;
    n->lr_scale = 1.0f;
    n->layers = cm_xcalloc((size_t)n->n, sizeof *n->layers);
    const char *sync = getenv("CNNPERF_MEASURE_SYNC");
    n->sync_each_pass = sync && *sync && strcmp(sync, "0") != 0;
    int B = g->batch;

    /* The synthetic batch: uniform values, labels in a fixed pattern. */
    cm_where = "input batch";
    cp_shape in = net->input;
    size_t in_elems = (size_t)B * (size_t)cp_shape_elems(in);
    n->in_desc = cm_tensor(g, B, in.c, in.h, in.w);
    n->input_bytes = in_elems * g->elt;
    n->input = cm_alloc(n->input_bytes);
    cudaCheck(cudaMallocHost(&n->input_host, n->input_bytes));
    float *tmp = cm_xcalloc(in_elems, sizeof *tmp);
    uint64_t s = CM_SEED + 1000003u * (uint64_t)g->rank; /* weights are the same on every rank, data is not */
    for (size_t i = 0; i < in_elems; i++)
        tmp[i] = rng_uniform(&s, 1.0f);
    if (g->dtype == CM_F32)
        memcpy(n->input_host, tmp, in_elems * sizeof *tmp);
    else
        for (size_t i = 0; i < in_elems; i++)
            ((uint16_t *)n->input_host)[i] = g->dtype == CM_F16 ? to_half(tmp[i]) : cm_to_bf16(tmp[i]);
    free(tmp);
    const cp_layer *last = &net->layers[n->n - 1];
    n->classes = strcmp(last->kind->name, "softmax") == 0 ? (int)cp_shape_elems(last->out) : 1;
    cudaCheck(cudaMallocHost((void **)&n->labels_host, (size_t)B * sizeof(int)));
    for (int i = 0; i < B; i++)
        n->labels_host[i] = i % n->classes;
    n->labels = cm_alloc((size_t)B * sizeof(int));
    n->loss = cm_alloc((size_t)B * sizeof(float));

    /* Which layers receive their gradient only by reference (their single
     * consumer is an add or flatten): they need no buffer of their own. */
    int *last_consumer = cm_xcalloc((size_t)n->n, sizeof *last_consumer);
    for (int i = 0; i < n->n; i++)
        for (int j = 0; j < net->layers[i].n_inputs; j++)
            if (net->layers[i].inputs[j] != CP_INPUT_DATA)
                last_consumer[net->layers[i].inputs[j]] = i;

    size_t biggest = n->input_bytes;
    for (int i = 0; i < n->n; i++) {
        cm_layer *L = &n->layers[i];
        const cp_layer *l = &net->layers[i];
        L->l = l;
        L->index = i;
        cm_where = l->name;
        L->kind = cm_kind_find(l->kind->name);
        if (!L->kind) {
            fprintf(stderr, "cnnperf-measure: %s: layer '%s': kind '%s' is not implemented by cnnperf-measure\n",
                    net->file, l->name, l->kind->name);
            exit(CM_EXIT_BAD_INPUT);
        }
        L->wants_grad = l->params > 0 || l->needs_input_grad;
        L->loss = i == n->n - 1 && strcmp(l->kind->name, "softmax") == 0;
        for (int j = 0; j < l->n_inputs; j++)
            L->x_desc[j] = cm_tensor(g, B, l->in[j].c, l->in[j].h, l->in[j].w);
        L->y_desc = cm_tensor(g, B, l->out.c, l->out.h, l->out.w);
        L->y_bytes = (size_t)B * (size_t)cp_shape_elems(l->out) * g->elt;
        if (L->y_bytes > biggest)
            biggest = L->y_bytes;
        L->y = l->kind->aliases_input ? (void *)cm_input(n, L, 0) : cm_alloc(L->y_bytes);
        L->kind->setup(n, L);
    }
    flatten_params(n);
    for (int i = 0; i < n->n; i++) {
        cm_layer *L = &n->layers[i];
        const cp_layer *l = L->l;
        if (L->loss || !L->wants_grad)
            continue;
        cm_where = l->name;
        bool seed = l->consumers == 0;
        bool by_reference = l->consumers == 1 && n->layers[last_consumer[i]].l->kind->grad_by_reference;
        if (seed || !by_reference)
            L->dy_own = cm_alloc(L->y_bytes);
        if (seed)
            seed_gradient(g, L);
    }
    free(last_consumer);
    cm_where = "gradient scratch buffer";
    n->scratch_bytes = biggest;
    n->scratch = cm_alloc(n->scratch_bytes);

    /* Convolution algorithms are chosen by cudnnFind with the workspace the
     * limit allows and the memory left after all tensors, as a framework
     * would; the workspace kept is what the chosen algorithms need. */
    cm_where = "convolution workspace";
    size_t free_b = 0, total_b = 0, reserve = (size_t)256 << 20;
    cudaCheck(cudaMemGetInfo(&free_b, &total_b));
    size_t ws = g->workspace_limit, avail = free_b > reserve ? free_b - reserve : 0;
    if (ws > avail)
        ws = avail;
    void *find_ws = NULL;
    while (ws >= ((size_t)1 << 20)) {
        if (cudaMalloc(&find_ws, ws) == cudaSuccess)
            break;
        (void)cudaGetLastError(); /* a failed cudaMalloc is not sticky; clear it and try half */
        find_ws = NULL;
        ws /= 2;
    }
    g->workspace = find_ws;
    g->workspace_size = find_ws ? ws : 0;
    size_t need = 0;
    for (int i = 0; i < n->n; i++) {
        cm_layer *L = &n->layers[i];
        if (!L->kind->tune)
            continue;
        cm_where = L->l->name;
        L->kind->tune(n, L);
        for (int k = 0; k < 3; k++)
            if (L->algo_ws[k] > need)
                need = L->algo_ws[k];
    }
    cm_where = "convolution workspace";
    if (find_ws)
        cudaCheck(cudaFree(find_ws));
    g->workspace = cm_alloc(need);
    g->workspace_size = need;
    cudaCheck(cudaDeviceSynchronize());
}

/* --- one iteration ----------------------------------------------------------- */

static bool runs_backward_data(const cm_layer *L)
{
    return L->kind->backward_data && L->l->needs_input_grad;
}

static bool runs_backward_weight(const cm_layer *L)
{
    return L->kind->backward_weight && L->n_params > 0 && !(L->kind->joint_backward && L->l->needs_input_grad);
}

/* Marks first, then names the layer: with CNNPERF_MEASURE_SYNC the mark's
 * synchronisation reports an error under the layer that caused it. */
static void begin(cm_net *n, cm_layer *L, int pass)
{
    mark(n, L->index, pass);
    cm_where = L->l->name;
}

static void enqueue_iteration(cm_net *n)
{
    cm_gpu *g = n->gpu;
    n->tl.n = 0;
    if (n->ex)
        cm_exchange_iteration_begin(n->ex);

    n->phase = CM_PHASE_LOADING;
    mark(n, -1, 0);
    cm_where = "loading";
    cudaCheck(cudaMemcpyAsync(n->input, n->input_host, n->input_bytes, cudaMemcpyHostToDevice, g->stream));
    cudaCheck(cudaMemcpyAsync(n->labels, n->labels_host, (size_t)g->batch * sizeof(int), cudaMemcpyHostToDevice,
                              g->stream));

    n->phase = CM_PHASE_FORWARD;
    mark(n, -1, 0);
    for (int i = 0; i < n->n; i++) {
        cm_layer *L = &n->layers[i];
        if (!L->kind->forward)
            continue;
        begin(n, L, CP_PASS_FWD);
        L->kind->forward(n, L);
    }

    n->phase = CM_PHASE_BACKWARD;
    mark(n, -1, 0);
    for (int i = 0; i < n->n; i++)
        n->layers[i].grad = NULL;
    for (int i = n->n - 1; i >= 0; i--) {
        cm_layer *L = &n->layers[i];
        if (runs_backward_data(L)) {
            begin(n, L, CP_PASS_BWD_DATA);
            L->kind->backward_data(n, L);
        }
        if (runs_backward_weight(L)) {
            begin(n, L, CP_PASS_BWD_WEIGHT);
            L->kind->backward_weight(n, L);
        }
        if (n->ex) /* layer i's gradients are complete: a bucket may go */
            cm_exchange_layer_done(n->ex, i);
    }
    if (n->ex) { /* the rest of the exchange; the stream waits for it within the backward phase */
        mark(n, -1, 0); /* the wait is no layer's (provenance.exchange_wait) */
        cm_exchange_backward_done(n->ex);
        cm_where = "end of backward";
    }

    n->phase = CM_PHASE_UPDATE;
    mark(n, -1, 0);
    if (!(n->ex && cm_exchange_update(n->ex)))
        for (int i = 0; i < n->n; i++) {
            cm_layer *L = &n->layers[i];
            if (L->n_params == 0)
                continue;
            begin(n, L, CP_PASS_UPDATE);
            cm_sgd(&g->kern, L->ptype, L->w32, L->v32, L->g, L->ptype == CM_F32 ? NULL : L->w, L->n_params,
                   n->lr * n->lr_scale, n->momentum, g->stream);
        }
    mark(n, -1, 0); /* the end */
    cm_where = "end of iteration";
}

void cm_iteration(cm_net *n)
{
    double t0 = cm_mpi_now();
    if (!n->graph) {
        enqueue_iteration(n);
        /* The GPU starts each iteration idle (cm_collect waits for the last
         * one): if enqueueing takes about as long as the GPU runs, the host
         * sets the pace, not the kernels. */
        n->host_ms = (cm_mpi_now() - t0) * 1e3;
        return;
    }
    if (!n->graph_exec) {
        /* The same calls with the same pointers every iteration: capture them
         * once. A library call that cannot be captured fails here, named. */
        cudaStream_t st = n->gpu->stream;
        cudaCheck(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
        n->capturing = true;
        enqueue_iteration(n);
        n->capturing = false;
        cm_where = "capturing the iteration into a CUDA graph (--launch graph)";
        cudaGraph_t graph;
        cudaCheck(cudaStreamEndCapture(st, &graph));
        cudaCheck(cudaGraphInstantiate(&n->graph_exec, graph, 0));
        cudaCheck(cudaGraphDestroy(graph));
        t0 = cm_mpi_now();
    }
    cm_where = "launching the iteration's CUDA graph";
    cudaCheck(cudaGraphLaunch(n->graph_exec, n->gpu->stream));
    n->host_ms = (cm_mpi_now() - t0) * 1e3;
    cm_where = "end of iteration";
}

bool cm_iteration_behind(cm_net *n, double us, double *layer_ms)
{
    if (n->graph || n->ex)
        cm_fatal("internal: --layers behind needs one GPU's stream-launched iteration");
    cm_spin(&n->gpu->kern, us, n->gpu->stream);
    double t0 = cm_mpi_now();
    enqueue_iteration(n);
    bool overrun = (cm_mpi_now() - t0) * 1e6 > us;
    double iteration_ms, phase_ms[CM_PHASE_COUNT];
    cm_collect(n, &iteration_ms, phase_ms, layer_ms);
    return overrun;
}

double cm_host_profile(cm_net *n, double *host_us)
{
    if (n->graph || n->ex)
        cm_fatal("internal: a host profile needs one GPU's stream-launched iteration");
    memset(host_us, 0, (size_t)n->n * CP_PASS_COUNT * sizeof *host_us);
    n->host_us = host_us;
    n->host_other_us = 0;
    n->host_mark = cm_mpi_now();
    enqueue_iteration(n);
    n->host_us = NULL;
    double total_us = n->host_other_us, iteration_ms, phase_ms[CM_PHASE_COUNT];
    for (int i = 0; i < n->n * CP_PASS_COUNT; i++)
        total_us += host_us[i];
    double *scratch = cm_xcalloc((size_t)n->n * CP_PASS_COUNT, sizeof *scratch);
    cm_collect(n, &iteration_ms, phase_ms, scratch);
    free(scratch);
    return total_us * 1e-3;
}

/* One pass of one layer `reps` times back to back between two events;
 * before each repetition the gradient pointers of the layer's producers are
 * put back as the iteration had them, so that every repetition runs what the
 * iteration runs once (a gradient sum where a tensor forks included). */
static double isolate(cm_net *n, cm_layer *L, int pass, int reps, double behind_us, cudaEvent_t ev[2])
{
    void *saved[CP_MAX_INPUTS] = {0};
    cm_layer *prod[CP_MAX_INPUTS] = {0};
    for (int j = 0; j < L->l->n_inputs; j++)
        if ((prod[j] = cm_producer(n, L, j)))
            saved[j] = prod[j]->grad;
    cm_where = L->l->name;
    double enqueue_from = 0;
    if (behind_us > 0) {
        cm_spin(&n->gpu->kern, behind_us, n->gpu->stream);
        enqueue_from = cm_mpi_now();
    }
    cudaCheck(cudaEventRecord(ev[0], n->gpu->stream));
    for (int r = 0; r < reps; r++) {
        for (int j = 0; j < L->l->n_inputs; j++)
            if (prod[j])
                prod[j]->grad = saved[j];
        if (pass == CP_PASS_FWD)
            L->kind->forward(n, L);
        else if (pass == CP_PASS_BWD_DATA)
            L->kind->backward_data(n, L);
        else if (pass == CP_PASS_BWD_WEIGHT)
            L->kind->backward_weight(n, L);
        else
            cm_sgd(&n->gpu->kern, L->ptype, L->w32, L->v32, L->g, L->ptype == CM_F32 ? NULL : L->w, L->n_params,
                   n->lr * n->lr_scale, n->momentum, n->gpu->stream);
    }
    cudaCheck(cudaEventRecord(ev[1], n->gpu->stream));
    if (behind_us > 0 && (cm_mpi_now() - enqueue_from) * 1e6 > behind_us)
        n->isolated_overruns++;
    cudaCheck(cudaEventSynchronize(ev[1]));
    cudaCheck(cudaGetLastError());
    float ms = 0;
    cudaCheck(cudaEventElapsedTime(&ms, ev[0], ev[1]));
    n->tl.n = 0; /* the gradient sums' own marks: not this timeline's */
    return ms / reps;
}

void cm_isolated(cm_net *n, int reps, double behind_us, double *layer_ms)
{
    cm_gpu *g = n->gpu;
    cudaEvent_t ev[2];
    cudaCheck(cudaEventCreate(&ev[0]));
    cudaCheck(cudaEventCreate(&ev[1]));
    memset(layer_ms, 0, (size_t)n->n * CP_PASS_COUNT * sizeof *layer_ms);
    n->tl.n = 0;
    cm_where = "loading";
    cudaCheck(cudaMemcpyAsync(n->input, n->input_host, n->input_bytes, cudaMemcpyHostToDevice, g->stream));
    cudaCheck(cudaMemcpyAsync(n->labels, n->labels_host, (size_t)g->batch * sizeof(int), cudaMemcpyHostToDevice,
                              g->stream));
    n->phase = CM_PHASE_FORWARD;
    for (int i = 0; i < n->n; i++) {
        cm_layer *L = &n->layers[i];
        if (L->kind->forward)
            layer_ms[i * CP_PASS_COUNT + CP_PASS_FWD] = isolate(n, L, CP_PASS_FWD, reps, behind_us, ev);
    }
    n->phase = CM_PHASE_BACKWARD;
    for (int i = 0; i < n->n; i++)
        n->layers[i].grad = NULL;
    for (int i = n->n - 1; i >= 0; i--) {
        cm_layer *L = &n->layers[i];
        if (runs_backward_data(L))
            layer_ms[i * CP_PASS_COUNT + CP_PASS_BWD_DATA] = isolate(n, L, CP_PASS_BWD_DATA, reps, behind_us, ev);
        if (runs_backward_weight(L))
            layer_ms[i * CP_PASS_COUNT + CP_PASS_BWD_WEIGHT] = isolate(n, L, CP_PASS_BWD_WEIGHT, reps, behind_us, ev);
    }
    n->phase = CM_PHASE_UPDATE;
    for (int i = 0; i < n->n; i++) {
        cm_layer *L = &n->layers[i];
        if (L->n_params > 0)
            layer_ms[i * CP_PASS_COUNT + CP_PASS_UPDATE] = isolate(n, L, CP_PASS_UPDATE, reps, behind_us, ev);
    }
    cudaCheck(cudaEventDestroy(ev[0]));
    cudaCheck(cudaEventDestroy(ev[1]));
    cm_where = "end of the isolated passes";
}

void cm_collect(cm_net *n, double *iteration_ms, double phase_ms[CM_PHASE_COUNT], double *layer_ms)
{
    cm_timeline *t = &n->tl;
    cm_where = "waiting for the iteration";
    if (n->ex)
        cm_exchange_wait(n->ex, t->ev[t->n - 1]); /* polls NCCL errors and the deadline */
    else
        cudaCheck(cudaEventSynchronize(t->ev[t->n - 1]));
    cudaCheck(cudaGetLastError());
    memset(layer_ms, 0, (size_t)n->n * CP_PASS_COUNT * sizeof *layer_ms);
    for (int p = 0; p < CM_PHASE_COUNT; p++)
        phase_ms[p] = 0;
    for (int k = 0; k + 1 < t->n; k++) {
        float ms = 0;
        cudaCheck(cudaEventElapsedTime(&ms, t->ev[k], t->ev[k + 1]));
        if (t->owner[k] >= 0)
            layer_ms[t->owner[k]] += ms;
        phase_ms[t->phase[k]] += ms;
    }
    float total = 0;
    cudaCheck(cudaEventElapsedTime(&total, t->ev[0], t->ev[t->n - 1]));
    *iteration_ms = total;
}

void cm_profile_timed(int on)
{
    const char *e = getenv("CNNPERF_MEASURE_PROFILE");
    if (!e || !*e || strcmp(e, "0") == 0)
        return;
    cudaCheck(cudaDeviceSynchronize()); /* nothing of the warm-up in the window, all of the timed part */
    cudaCheck(on ? cudaProfilerStart() : cudaProfilerStop());
}

double cm_loss(cm_net *n)
{
    int B = n->gpu->batch;
    float *host = cm_xcalloc((size_t)B, sizeof *host);
    cudaCheck(cudaMemcpy(host, n->loss, (size_t)B * sizeof *host, cudaMemcpyDeviceToHost));
    double sum = 0;
    for (int i = 0; i < B; i++)
        sum += host[i];
    free(host);
    return sum / B;
}
