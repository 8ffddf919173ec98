#include "memory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Each layer's parameters start on a multiple of this many elements in the
 * harness's flat buffers (measure/train.h, CM_FLAT_ALIGN). */
#define FLAT_ALIGN 128.0

/* Bytes a parameter takes in training: FP32 master weight and momentum, a
 * gradient in the training precision and, in 16 bits, a 16-bit copy of the
 * weight; 12 either way (batch norm's FP32 parameters: 4 + 4 + 4). */
#define PARAM_BYTES 12.0

/* Without a measured "runtime_memory_mib" in the profile: the H100's
 * (devices/h100.json), the same CUDA, cuDNN and cuBLAS. */
#define RUNTIME_BYTES_DEFAULT (604.0 * 1048576.0)

/* cudaMalloc gives an allocation of 1 MiB or more whole 2 MiB pages and
 * packs smaller ones together: over nine networks of 23 to 428 layers
 * (validation/memory-h100/, session 28) the memory a run held beyond its
 * buffers was LeNet-5's (the runtime's) plus their rounding up so, within
 * -1 to +46 MiB; without the packing DenseNet-121 FP16's many small
 * tensors came out 156 MiB over, and ResNet-152's 980 buffers take 1.8 GiB
 * of rounding. */
#define CUDA_PAGE_BYTES (2.0 * 1048576.0)
#define CUDA_PACKED_BELOW (1.0 * 1048576.0)

/* One cudaMalloc of `bytes`: returns them, adds its pages' rounding to *pages. */
static double alloc(double *pages, double bytes)
{
    if (bytes >= CUDA_PACKED_BELOW)
        *pages += ceil(bytes / CUDA_PAGE_BYTES) * CUDA_PAGE_BYTES - bytes;
    return bytes;
}

/* What the GPU offers, what must stay free besides, and whether m->total fits. */
static void settle(cp_memory *m, const cp_device *dev, double reserve)
{
    m->device = (dev->dram_usable_gib > 0 ? dev->dram_usable_gib : dev->dram_size_gb) * 1073741824.0;
    m->reserve = reserve;
    m->fits = m->total + m->reserve <= m->device;
}

int cp_memory_harness(const cp_network *net, const cp_device *dev, int batch, cp_precision prec, cp_memory *m)
{
    memset(m, 0, sizeof *m);
    double elt = cp_precision_bytes(prec), n = batch;
    double input = n * cp_shape_elems(net->input) * elt, biggest = input, params = 0, own_grads = 0;
    /* the pages' rounding of the activations, the output gradients, the flat
     * parameter buffers and the layers' own ones (freed once flattened) */
    double act_pages = 0, grad_pages = 0, flat_pages = 0, layer_pages = 0;
    /* the batch, its int labels, the per-image losses */
    m->activations = alloc(&act_pages, input) + alloc(&act_pages, 4.0 * n) + alloc(&act_pages, 4.0 * n);
    for (int i = 0; i < net->n_layers; i++) {
        const cp_layer *l = &net->layers[i];
        double y = n * cp_shape_elems(l->out) * elt;
        biggest = fmax(biggest, y);
        if (!l->kind->aliases_input)
            m->activations += alloc(&act_pages, y);
        if (l->params > 0) {
            params += ceil((double)l->params / FLAT_ALIGN) * FLAT_ALIGN;
            double np = (double)l->params;
            alloc(&layer_pages, 4 * np), alloc(&layer_pages, 4 * np), alloc(&layer_pages, elt * np);
            if (elt != 4)
                alloc(&layer_pages, elt * np);
        }
        /* A gradient buffer of its own unless the last layer's loss seeds
         * it, no gradient is wanted, or its one reader passes dy on. */
        bool last_loss = i == net->n_layers - 1 && strcmp(l->kind->name, "softmax") == 0;
        bool wants = l->params > 0 || l->needs_input_grad;
        bool by_reference = false;
        if (l->consumers == 1) /* its one reader: the first layer after it that reads it */
            for (int j = i + 1, found = 0; j < net->n_layers && !found; j++)
                for (int k = 0; k < net->layers[j].n_inputs && !found; k++)
                    if (net->layers[j].inputs[k] == i) {
                        found = 1;
                        by_reference = net->layers[j].kind->grad_by_reference;
                    }
        if (!last_loss && wants && (l->consumers == 0 || !by_reference))
            own_grads += alloc(&grad_pages, y);
    }
    /* one flat buffer of each kind, every layer's parameters in it */
    m->params = PARAM_BYTES * params;
    alloc(&flat_pages, 4 * params), alloc(&flat_pages, 4 * params), alloc(&flat_pages, elt * params);
    if (elt != 4)
        alloc(&flat_pages, elt * params);
    m->gradients = own_grads + alloc(&grad_pages, biggest); /* the scratch buffer: the largest tensor */
    m->runtime = dev->runtime_memory_mib > 0 ? dev->runtime_memory_mib * 1048576.0 : RUNTIME_BYTES_DEFAULT;
    /* While the harness moves each layer's parameters into one flat buffer
     * both copies exist, before any gradient buffer does (cm_net_build): the
     * peak is the larger of that moment and the end of the build. */
    double flatten = m->activations + act_pages + 2 * m->params + flat_pages + layer_pages;
    double built = m->activations + act_pages + m->params + flat_pages + m->gradients + grad_pages;
    m->pages = built > flatten ? act_pages + flat_pages + grad_pages : act_pages + flat_pages + layer_pages;
    m->total = fmax(flatten, built) + m->runtime;
    m->held = built + m->runtime;
    settle(m, dev, CP_MEMORY_RESERVE_BYTES);
    return 0;
}

/* PyTorch's eager step (tools/torch_bench.py): what the process held beyond
 * its allocator's reservation, 769 MiB in every run of
 * validation/h100/torch/memory28/ (the CUDA context with PyTorch's kernels,
 * cuDNN and cuBLAS); and the headroom a step needs beyond the predicted peak
 * allocation. Session 28 first took 10% of the peak (nine runs had
 * allocated 0.5-7% more than predicted); across the H100's edge
 * (validation/memory-h100/torchmem2/) that refused two batches that ran,
 * whose allocation the model had within 0.1%. What it leaves out is
 * absolute, not a share: the small runs' cuDNN workspaces and casts, 89-180
 * MiB beyond the prediction, and the allocator's reserved but unallocated
 * blocks when a step failed, 200-343 MiB. VGG's FFT workspaces (1.8 GiB at
 * b48 FP32) are not covered. */
#define EAGER_RUNTIME_BYTES (769.0 * 1048576.0)
#define EAGER_HEADROOM_BYTES (512.0 * 1048576.0)

int cp_memory_eager(const cp_network *net, const cp_device *dev, int batch, cp_precision prec, cp_memory *m)
{
    memset(m, 0, sizeof *m);
    int n = net->n_layers;
    bool autocast = prec == CP_PREC_FP16 || prec == CP_PREC_BF16;
    double elt = cp_precision_bytes(prec), images = batch;
    /* per layer: after whose backward its output is no longer kept (-1: not
     * kept), the bytes that frees, and whether its output's gradient exists */
    int *kept_until = malloc((size_t)n * sizeof *kept_until);
    double *freed = calloc((size_t)n, sizeof *freed);
    bool *grad = calloc((size_t)n, sizeof *grad);
    if (!kept_until || !freed || !grad) {
        free(kept_until), free(freed), free(grad);
        return -1;
    }
    for (int i = 0; i < n; i++)
        kept_until[i] = -1;
    double params = 0;
    for (int i = 0; i < n; i++) {
        const cp_layer *l = &net->layers[i];
        params += (double)l->params;
        if (l->kind->eager_saves & CP_SAVES_OUTPUT)
            kept_until[i] = i;
        for (int k = 0; k < l->n_inputs; k++) {
            int r = l->inputs[k];
            if (r >= 0 && (l->kind->eager_saves & CP_SAVES_INPUT) && kept_until[r] < 0)
                kept_until[r] = i; /* the first reader that keeps it is the last to run backward */
        }
    }
    /* the FP32 batch copied in, its int64 labels, under autocast the 16-bit
     * copy of it the first convolution casts and keeps; the weights and their
     * momentum (FP32), the kept outputs, each layer's own tensors (indices,
     * masks) and autocast's 16-bit copies of the weights */
    double in = images * cp_shape_elems(net->input);
    double persistent = 4 * in + 8 * images + (autocast ? 2 * in : 0);
    m->params = 8 * params;
    for (int i = 0; i < n; i++) {
        const cp_layer *l = &net->layers[i];
        double y = images * cp_shape_elems(l->out);
        if (kept_until[i] >= 0) {
            m->activations += y * elt;
            freed[kept_until[i]] += y * elt;
        }
        m->activations += y * l->kind->eager_extra_bytes;
        if (autocast && (l->kind->eager_saves & CP_SAVES_WEIGHT_COPY))
            m->params += 2.0 * (double)l->params;
    }
    double live = persistent + m->params + m->activations, peak = live;
    /* backward, last layer first: its inputs' gradients and its weights'
     * appear, then its output's gradient, its own tensors, its weight copy
     * and the outputs it was the last to keep go */
    for (int i = n - 1; i >= 0; i--) {
        const cp_layer *l = &net->layers[i];
        double y = images * cp_shape_elems(l->out);
        for (int k = 0; k < l->n_inputs; k++) {
            int r = l->inputs[k];
            const cp_layer *p = r >= 0 ? &net->layers[r] : NULL;
            if (p && !grad[r] && (p->params > 0 || p->needs_input_grad)) {
                grad[r] = true;
                live += images * cp_shape_elems(p->out) * elt;
            }
        }
        live += 4.0 * (double)l->params; /* kept for the step */
        peak = fmax(peak, live);
        live -= (grad[i] ? y * elt : 0) + y * l->kind->eager_extra_bytes + freed[i];
        if (autocast && (l->kind->eager_saves & CP_SAVES_WEIGHT_COPY))
            live -= 2.0 * (double)l->params;
    }
    free(kept_until), free(freed), free(grad);
    m->gradients = peak - (persistent + m->params + m->activations);
    m->activations += persistent;
    m->pages = EAGER_HEADROOM_BYTES;
    m->runtime = EAGER_RUNTIME_BYTES;
    m->total = peak + m->pages + m->runtime;
    settle(m, dev, 0);
    return 0;
}

/* A 2-GPU NCCL job's worker held 866 MiB more than the same configuration on
 * one GPU, for ResNet-50 FP32 and DenseNet-121 FP16 alike (NCCL 2.28.3, two
 * H100s of one host, validation/memory-h100x2/); its communicator's buffers
 * grow with the channels and peers of larger jobs, which were not measured. */
#define NCCL_WORKER_BYTES (866.0 * 1048576.0)

int cp_memory_worker(const cp_network *net, const cp_device *dev, int batch, cp_precision prec, bool eager,
                     int nccl_gpus, cp_memory *m)
{
    if ((eager ? cp_memory_eager : cp_memory_harness)(net, dev, batch, prec, m))
        return -1;
    if (nccl_gpus > 1) {
        m->runtime += NCCL_WORKER_BYTES;
        m->total += NCCL_WORKER_BYTES;
        settle(m, dev, m->reserve);
    }
    return 0;
}
