#include "memory.h"

#include <math.h>
#include <string.h>

/* Each layer's parameters start on a multiple of this many elements in the
 * harness's flat buffers (measure/train.h, CM_FLAT_ALIGN). */
#define FLAT_ALIGN 128.0

/* Bytes a parameter takes in training: FP32 master weight and momentum, a
 * gradient in the training precision and, in 16 bits, a 16-bit copy of the
 * weight; 12 either way (batch norm's FP32 parameters: 4 + 4 + 4). */
#define PARAM_BYTES 12.0

/* Without a measured "runtime_memory_mib" in the profile: what the CUDA 13
 * context with cuDNN and cuBLAS loaded took on the H100 (devices/h100.json). */
#define RUNTIME_BYTES_DEFAULT (560.0 * 1048576.0)

void cp_memory_harness(const cp_network *net, const cp_device *dev, int batch, cp_precision prec, cp_memory *m)
{
    memset(m, 0, sizeof *m);
    double elt = cp_precision_bytes(prec), n = batch;
    double input = n * cp_shape_elems(net->input) * elt, biggest = input, params = 0, own_grads = 0;
    m->activations = input + 2 * 4.0 * n; /* the batch, its int labels, the per-image losses */
    for (int i = 0; i < net->n_layers; i++) {
        const cp_layer *l = &net->layers[i];
        double y = n * cp_shape_elems(l->out) * elt;
        biggest = fmax(biggest, y);
        if (!l->kind->aliases_input)
            m->activations += y;
        if (l->params > 0)
            params += ceil((double)l->params / FLAT_ALIGN) * FLAT_ALIGN;
        /* A gradient buffer of its own unless the last layer's loss seeds
         * it, no gradient is wanted, or its one reader passes dy on. */
        bool last_loss = i == net->n_layers - 1 && strcmp(l->kind->name, "softmax") == 0;
        bool wants = l->params > 0 || l->needs_input_grad;
        bool by_reference = false;
        if (l->consumers == 1)
            for (int j = i + 1; j < net->n_layers && !by_reference; j++)
                for (int k = 0; k < net->layers[j].n_inputs; k++)
                    if (net->layers[j].inputs[k] == i)
                        by_reference = net->layers[j].kind->grad_by_reference;
        if (!last_loss && wants && (l->consumers == 0 || !by_reference))
            own_grads += y;
    }
    m->params = PARAM_BYTES * params;
    m->gradients = own_grads + biggest; /* the scratch buffer: the largest tensor */
    m->runtime = dev->runtime_memory_mib > 0 ? dev->runtime_memory_mib * 1048576.0 : RUNTIME_BYTES_DEFAULT;
    /* While the harness moves each layer's parameters into one flat buffer
     * both copies exist, before any gradient buffer does (cm_net_build): the
     * peak is the larger of that moment and the end of the build. */
    double flatten = m->activations + 2 * m->params;
    double built = m->activations + m->params + m->gradients;
    m->total = fmax(flatten, built) + m->runtime;
    m->device = (dev->dram_usable_gib > 0 ? dev->dram_usable_gib : dev->dram_size_gb) * 1073741824.0;
    m->fits = m->total + CP_MEMORY_RESERVE_BYTES <= m->device;
}
