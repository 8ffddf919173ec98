/* memory: the GPU memory one data-parallel worker needs to train a network,
 * as the harness (cnnperf-measure) or PyTorch (eager mode) trains it, and
 * whether that fits. A time for a configuration that cannot run is a wrong
 * answer, so predict and sweep report this beside the time.
 *
 * The harness keeps every layer's output for the backward pass and an
 * output gradient for every layer that needs one of its own (a layer whose
 * single reader hands its gradient on as it is, an add or a flatten, shares
 * that reader's); parameters as FP32 master weights, FP32 momentum,
 * gradients in the training precision and, in 16-bit training, a 16-bit copy
 * (batch norm's stay FP32). cudaMalloc rounds each buffer of 1 MiB or more up
 * to whole 2 MiB pages (`pages`), and the CUDA context and the libraries'
 * handles come on top (`runtime`, measured). cuDNN's workspace is not
 * counted: the harness sizes it to what is left after all of this (train.c,
 * cm_net_build), so it never makes a run fail; it does not fit when the rest
 * and the 256 MiB it leaves free exceed the GPU's memory.
 *
 * PyTorch keeps what autograd saves for backward instead (cp_memory_eager).
 * Measured and judged in validation/memory-h100/ and memory-h100x2/. */
#ifndef CP_MEMORY_H
#define CP_MEMORY_H

#include <stdbool.h>

#include "../networks/network.h"
#include "device.h"

/* What the harness leaves free before it sizes the workspace (train.c). */
#define CP_MEMORY_RESERVE_BYTES (256.0 * 1048576.0)

typedef struct {
    double params;      /* master weights, momentum, gradients, 16-bit copies */
    double activations; /* every layer's output, the input batch, labels and losses */
    double gradients;   /* output gradients with a buffer of their own, and the scratch buffer */
    double pages;       /* what cudaMalloc's whole pages add to the three above at the peak */
    double runtime;     /* CUDA context, cuDNN and cuBLAS handles (the device profile's, measured) */
    double total;       /* the peak of the five above: all but the workspace */
    double held;        /* harness: what is held when the workspace is sized (the build's end, runtime included) */
    double device;      /* what the GPU offers (cudaMemGetInfo's total) */
    double reserve;     /* what must stay free besides (harness: CP_MEMORY_RESERVE_BYTES; eager: 0) */
    bool fits;          /* total + reserve <= device */
} cp_memory;

/* The footprint of one worker training `net` at `batch` images in `prec`. */
int cp_memory_harness(const cp_network *net, const cp_device *dev, int batch, cp_precision prec, cp_memory *m);

/* What the GPU has left for cuDNN's workspace once the harness footprint
 * `m` is built and the reserve set aside, MiB (negative: nothing): the
 * harness gives cuDNN the smaller of this and --workspace-mb (train.c sizes
 * it so, before NCCL's buffers exist), so a network near the GPU's memory
 * gets only the algorithms that fit what is left. */
static inline double cp_memory_workspace_left_mb(const cp_memory *m)
{
    return (m->device - m->held - m->reserve) / 1048576.0;
}

/* What PyTorch's caching allocator has handed out at the peak of a training
 * step as tools/torch_bench.py runs it (torch.cuda.max_memory_allocated over
 * the timed iterations), and whether the step fits: the weights and their
 * momentum, the input, what autograd saved for backward (kinds'
 * eager_saves), autocast's 16-bit weight copies, and, walking backward, the
 * gradients as they are made and the saved tensors as they are freed; the
 * peak over that walk. m->activations: the saved tensors at the start of
 * backward; m->gradients: what backward adds on top at its peak; m->pages:
 * the headroom a step needs beyond that (measured); m->runtime:
 * the CUDA context with PyTorch's kernels (measured). cuDNN's workspaces,
 * which cudnn.benchmark sizes to the memory free, are not counted. Both
 * return 0, or -1 (eager: out of host memory, *m zeroed). */
int cp_memory_eager(const cp_network *net, const cp_device *dev, int batch, cp_precision prec, cp_memory *m);

/* What PyTorch's caching allocator hands out at the peak in an eager
 * footprint (torch.cuda.max_memory_allocated): all of it but the runtime
 * and the headroom, which the allocator does not count. */
static inline double cp_memory_eager_allocated(const cp_memory *m) { return m->total - m->runtime - m->pages; }

/* A worker's footprint as the harness or (eager) PyTorch trains it, with
 * what NCCL holds on each worker of a job of nccl_gpus GPUs exchanging
 * gradients by NCCL (1: none); 0, or -1 as the two above. */
int cp_memory_worker(const cp_network *net, const cp_device *dev, int batch, cp_precision prec, bool eager,
                     int nccl_gpus, cp_memory *m);

#endif
