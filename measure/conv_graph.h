/* conv_graph: convolutions through cuDNN's graph (backend) API, the path
 * PyTorch's cuDNN convolutions take (cudnn_frontend, ATen's Conv_v8), for
 * `cnnperf-measure --conv-api graph`. The legacy API's cudnnFind lists
 * algorithms (Winograd among them) that this path never offers, and this
 * path reaches engines that the legacy one does not list, so a harness that
 * is to match a PyTorch training step must choose among these engines.
 *
 * The choice is made as torch.backends.cudnn.benchmark makes it: the engine
 * configurations of the heuristic's instant mode, then its fallback list,
 * filtered as PyTorch filters them (no engine that down-converts its
 * inputs; in fp32, no tensor-core engine, as with allow_tf32 off), the first
 * CM_CONV_GRAPH_BENCH_LIMIT that build within the workspace timed (PyTorch's
 * default benchmark_limit), the fastest kept. Engines compiled at run time
 * are left out: building one takes seconds, and plain convolutions have
 * precompiled engines. */
#ifndef CM_CONV_GRAPH_H
#define CM_CONV_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "check.h"

#define CM_CONV_GRAPH_BENCH_LIMIT 10

/* One convolution: x is n x c x h x w, the filters k x (c / groups) x r x s,
 * y is n x k x oh x ow; NCHW, packed, every buffer 16-byte aligned. */
typedef struct {
    cudnnDataType_t type; /* of x, w and y; arithmetic accumulates in fp32 */
    bool fp32_exact;      /* fp32 on the FMA lanes: no tensor-core (TF32) engine */
    int n, c, h, w, k, r, s, groups;
    int ph, pw, sh, sw, dh, dw;
    int oh, ow;
} cm_conv_shape;

/* A pass's operation graph with one chosen engine, ready to run; kept for the
 * process's lifetime, as the layers' other cuDNN descriptors are. */
typedef struct cm_conv_plan cm_conv_plan;

/* The GPU time of one call of plan p, in microseconds, or a negative
 * number when it could not be timed; ctx is the caller's. A plan that cannot
 * beat the best so far may be timed roughly (measure/gpu_layers.c cuts it
 * after one call): only the fastest's time must be exact. */
typedef double (*cm_conv_timer)(const cm_conv_plan *p, void *ctx);

/* The fastest plan by `timer` for pass 0 (forward), 1 (data gradient) or 2
 * (filter gradient) among the candidates above whose workspace fits in
 * ws_limit bytes; its time in *best_us and how many were timed in *timed.
 * *best_us holds the best time so far while the search runs (negative before
 * any), so a timer may read it through its ctx.
 * NULL when none builds (the caller names the layer). */
cm_conv_plan *cm_conv_graph_choose(cudnnHandle_t h, const cm_conv_shape *s, int pass, size_t ws_limit,
                                   cm_conv_timer timer, void *ctx, double *best_us, int *timed);

/* Runs p on the three tensors by their shapes, whichever the pass writes:
 * forward x, w -> y; data gradient dy (y), w -> dx (x); filter gradient
 * x, dy (y) -> dw (w). The output is overwritten (beta 0). */
void cm_conv_graph_run(cudnnHandle_t h, const cm_conv_plan *p, const void *x, const void *w, const void *y,
                       void *workspace);

size_t cm_conv_graph_workspace(const cm_conv_plan *p);
/* cuDNN's global index of the plan's engine, for the record. */
long long cm_conv_graph_engine(const cm_conv_plan *p);

#endif
