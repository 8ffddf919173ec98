/* network: a CNN as an array of layers in topological order.
 *
 * Loaded from a cnnperf-network/1 JSON file (networks/FORMAT.md): blocks are
 * expanded, input names resolved, shapes inferred and parameters counted at
 * load time, so a loaded network is always consistent. */
#ifndef CP_NETWORK_H
#define CP_NETWORK_H

#include <stdbool.h>
#include <stddef.h>

#include "../layers/layer.h"

typedef struct {
    char name[64];
    char source[192];
    char file[256]; /* for messages */
    cp_shape input;
    cp_layer *layers;
    int n_layers;
    long long params;
    /* Activations in channels-last (NHWC) order, as PyTorch's
     * model.to(memory_format=torch.channels_last) lays them out: set by the
     * caller for eager mode (--memory-format); files describe the layers,
     * not the layout, and load as NCHW. */
    bool channels_last;
} cp_network;

/* spec is an embedded name ("resnet50") or a path to a JSON file. */
int cp_network_load(const char *spec, cp_network *n, cp_error *err);
int cp_network_parse(const char *text, size_t len, const char *file, cp_network *n, cp_error *err);
void cp_network_free(cp_network *n);

/* Index of the layer with this full name, or -1. */
int cp_network_find(const cp_network *n, const char *name);

#endif
