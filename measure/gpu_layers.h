/* gpu_layers: every layer kind of the network format on the GPU, through
 * cuDNN and cuBLAS, behind one table of per-kind functions (the measuring
 * counterpart of layers/layer.h's cp_layer_kind). */
#ifndef CM_GPU_LAYERS_H
#define CM_GPU_LAYERS_H

#include "train.h"

typedef struct cm_kind {
    const char *name; /* as in the network format */
    /* Descriptors, parameters, the kind's own buffers. */
    void (*setup)(cm_net *n, cm_layer *L);
    /* Algorithm choice, run once the convolution workspace exists; may be NULL. */
    void (*tune)(cm_net *n, cm_layer *L);
    /* Each NULL where the kind has no such pass. */
    void (*forward)(cm_net *n, cm_layer *L);
    void (*backward_data)(cm_net *n, cm_layer *L);
    void (*backward_weight)(cm_net *n, cm_layer *L);
    bool joint_backward; /* backward_data also writes the weight gradients (cuDNN batch norm) */
    /* which buffers a layer shares: its model kind's grad_by_reference and aliases_input (layers/layer.h) */
} cm_kind;

/* NULL for a kind this backend does not implement. */
const cm_kind *cm_kind_find(const char *name);

#endif
