/* eager: one training iteration as PyTorch runs it eagerly (--mode eager).
 *
 * The harness mode (predict.c, what cnnperf-measure runs) is the kernels
 * back to back with their launch gaps. In PyTorch each layer is an operator
 * issued from Python: the host spends c_op (module call, dispatcher,
 * autograd bookkeeping, launches; eager_costs.h) and then the operator's
 * kernels join the GPU's queue. With h_i the time operator i is issued,
 *
 *     h_i = h_{i-1} + c_op(i),    a kernel of operator i starts at max(h_i, end of the previous kernel),
 *
 * and the iteration ends when both host and GPU are done (the step ends in
 * a synchronisation). Short kernels starve the GPU and the host cost is what
 * shows; long ones let the host run ahead.
 *
 * The kernels are the prediction's own (each with its predicted time) plus
 * what PyTorch runs and the harness does not, timed by the same streaming
 * kernel model (cp_stream_kernel): autocast's casts of the fp32 weights to
 * 16 bits each forward and of their gradients back, BN's num_batches_tracked
 * increment, nll_loss and the loss backward's seed and scatter, and, instead
 * of one SGD kernel per layer, torch.optim.SGD's foreach implementation: a
 * few multi-tensor kernels over all parameters (mul_, add_, add_). Where a
 * tensor feeds several layers, autograd sums its gradients as PyTorch's
 * graph has them (a concatenation of concatenations is one torch.cat of all
 * their inputs, as torchvision's DenseNet writes it): each sum an operator
 * of its own with its kernel, in place of the harness's sums. One pass over
 * the prediction's kernels; the harness prediction is not changed. */
#ifndef CP_EAGER_H
#define CP_EAGER_H

/* What a real network's operator costs the host against the microbenchmark's
 * (tools/torch_bench.py --eager-overhead times chains of tiny modules): each
 * operator's host cost, and the iteration's fixed part, is scaled by this in
 * one process, fitted on the calibration set's one-GPU PyTorch runs alone
 * (NCHW and channels-last, H100 and H200: 169 runs; the smallest MAPE on a 0.05
 * grid from 1.0 to 1.5, with the host's two speeds around it (rule 55): 9.64% at
 * 1.0, 8.84% at 1.10, 8.85% at 1.15, 9.76% at 1.25 with the profiles of 102 and
 * 85 calls; after rule 59, 8.69% at 1.05, 8.48% at 1.10, 8.59% at 1.15; with the H200's rebuilt from 109
 * calls (rule 63), 8.67% at 1.05, 8.50% at 1.10, 8.64% at 1.15;
 * tools/fit_constant.sh eager-host-one, docs/CALIBRATION.md, rules 53-55, 61, 63). */
#ifndef CP_EAGER_HOST_SCALE
#define CP_EAGER_HOST_SCALE 1.10
#endif
/* The same factor for a DDP job's ranks (rule 53, docs/ACCURACY.md session 68): several processes issuing at once
 * on one VM's CPUs are not the one-process host CP_EAGER_HOST_SCALE is fitted for, so their operators, their
 * iteration's fixed part and DDP's own costs take this one, fitted on the calibration set's DDP runs alone
 * (32 runs, with rule 55's two speeds and, since rule 61, each call's costs moved toward the profile's as
 * validate predicts them (rule 59): 7.07% at 1.15, 6.88% at 1.20, 7.18% at 1.25, 8.20% at 1.30; with the
 * H200's profile of 109 calls (rule 63): 7.06% at 1.15, 6.87% at 1.20, 7.23% at 1.25;
 * tools/fit_constant.sh eager-host-ddp). */
#ifndef CP_EAGER_DDP_HOST_SCALE
#define CP_EAGER_DDP_HOST_SCALE 1.20
#endif

/* Rule 55 (docs/ACCURACY.md, session 69): the host of the machines measured runs at one of two speeds about this
 * far apart (session 33's pin33), which no input tells, so an eager prediction is the mean of the iteration with
 * every host cost at 1/sqrt(this) and at sqrt(this) times the fitted scale: where host and GPU are near balance,
 * the iteration at the average host is short of the average iteration. 1 turns it off. */
#ifndef CP_EAGER_HOST_LEVELS
#define CP_EAGER_HOST_LEVELS 1.5
#endif

#include "predict.h"

typedef enum { CP_MODE_HARNESS, CP_MODE_EAGER } cp_mode;

const char *cp_mode_name(cp_mode m);
int cp_mode_parse(const char *s, cp_mode *m); /* 0 ok, -1 unknown */

/* The host/GPU clock of the timeline, from the start of the iteration. */
typedef struct {
    double host_ms; /* when the host has issued everything so far */
    double gpu_ms;  /* when the GPU finishes the last kernel queued so far */
    double busy_ms; /* GPU time spent in kernels and copies */
} cp_eager_clock;

/* One operator: the host spends host_ms, then its n kernels queue. */
void cp_eager_op(cp_eager_clock *c, double host_ms, const double *kernel_ms, int n);
/* Both done: max(host, GPU). */
double cp_eager_end(const cp_eager_clock *c);

/* What the timeline records for a trace (only when asked: record = 1). */
typedef struct {
    const char *name, *detail; /* not owned */
    double start_ms, end_ms;
    int gpu; /* 0: a host operator, 1: a kernel or copy on the GPU */
} cp_eager_event;

typedef struct {
    double fwd_ms, bwd_ms; /* the GPU time line's advance over the layer's operator */
} cp_eager_layer;

/* The phases the host's issue time is split into, as PyTorch's host_wall_ms
 * splits a step (tools/torch_bench.py's keys): "forward" (with loading and
 * the loss), "backward" (loss.backward()), "step" (opt.step()). */
#define CP_EAGER_HOST_PHASES 3
extern const char *const cp_eager_host_phase_names[CP_EAGER_HOST_PHASES];

typedef struct {
    const cp_prediction *pred;
    double iteration_ms, images_per_s;
    double loading_ms, forward_ms, backward_ms, update_ms; /* spans of the time line: they add up */
    double host_ms;     /* the host's issue time of all operators */
    double host_phase_ms[CP_EAGER_HOST_PHASES]; /* of it, by phase (cp_eager_host_phase_names); DDP's hooks in
                                                   loss.backward()'s */
    double gpu_busy_ms; /* kernels and copies */
    double gpu_idle_ms; /* the GPU waiting for the host: iteration - busy */
    double host_share;  /* gpu_idle / iteration: what the host adds */
    int host_bound;     /* the host alone takes at least as long as the kernels */
    double harness_ms;  /* the prediction's kernels back to back, no host: harness mode's own time
                           (PyTorch's algorithms, harness mode's default since 2026-11-25) */
    double optimizer_ms; /* GPU time of the optimizer's foreach kernels */
    int ops, kernels, extra_kernels, optimizer_kernels, param_tensors;
    int accumulations; /* autograd's sums of a tensor's gradients (a tensor read by several layers) */
    /* cp_eager_range: the iteration with the host as cheap and as dear as the
     * device profile's calls measured it (has_range 0: no spread given);
     * spread: the factors applied to the costs; one_call: costs of one call, the spread widened */
    int has_range, range_one_call;
    double range_ms[2], spread[2];
    int builtin_costs;  /* some host cost came from the built-in typical values */
    const char *costs_source;
    cp_eager_layer *layers;
    int layers_cap;
    int record; /* set before cp_eager_run to keep events (trace) */
    /* set before cp_eager_run: > 1 when the model runs in PyTorch's
     * DistributedDataParallel over that many GPUs with NCCL. Backward then
     * also runs DDP's own kernels: each gradient copied into its bucket as
     * it is ready; after backward, the buckets divided by the world size and
     * copied back into the gradients (three passes over the fp32 gradient
     * bytes). The all-reduces themselves are the distributed prediction's
     * (distributed.c). DDP's host work is charged as measured
     * (eager_costs.h, "ddp"): a cost per step and per batch norm's buffers
     * before the forward, and one per parameter tensor as its hook fires in
     * backward. ddp_local: how many of the workers share this GPU's host (one
     * process each); with two or more every operator costs the host the
     * "ddp" section's operator_scale times what it costs a process alone. */
    int ddp_workers, ddp_local;
    double base_scale; /* CP_EAGER_HOST_SCALE, or CP_EAGER_DDP_HOST_SCALE for a DDP rank (rule 53) */
    double host_levels; /* the times are the mean over the host's speeds this far apart around base_scale
                           (CP_EAGER_HOST_LEVELS, rule 55); 1: one run at base_scale */
    double host_scale; /* what every operator's measured cost was scaled by: base_scale, times the two DDP
                          factors below */
    double fixed_ms;   /* the host's share of the iteration paid once, not per operator (cp_eager_fixed_us,
                          rule 52): the three phases' together, scaled as an operator */
    double operator_scale; /* the "ddp" operator_scale where DDP's processes share a host, else 1 */
    double rank_scale;     /* the slowest of the workers' hosts against a typical one (cp_eager_slowest_rank;
                              1 for one GPU): synchronous data parallelism runs at the slowest rank's pace */
    double ddp_gpu_ms; /* what DDP's own kernels added to the GPU's time line */
    cp_eager_event *events;
    int n_events, events_cap;
} cp_eager;

/* The expected host time of the slowest of `ranks` processes against a
 * typical one, where each process's host is off the typical by a normal
 * deviation of relative size `spread` (the "ddp" section's rank_spread):
 * 1 + spread x E[max of `ranks` standard normals] (0 for one rank,
 * 1/sqrt(pi) for two, 1.03 for four, 1.42 for eight). */
double cp_eager_slowest_rank(int ranks, double spread);

/* e must be zeroed before its first use (set record then if wanted); later
 * runs reuse its buffers. costs NULL: the device profile's (p->dev->eager).
 * The times are the mean over the host's two levels (CP_EAGER_HOST_LEVELS);
 * the events of a trace are the run at the fitted scale's. */
int cp_eager_run(const cp_prediction *p, const cp_eager_costs *costs, cp_eager *e, cp_error *err);

/* After cp_eager_run (same p and costs): sets e's range from the device
 * profile's eager "host_spread", each bound a run with every host cost
 * scaled by it; where costs are one call's (given, no spread of their own:
 * a torch_bench.py --eager-overhead file), by the spread to the power
 * sqrt(2), as the run's host and that call's each move as the profile's
 * calls do. Where the profile gives none, has_range stays 0. */
int cp_eager_range(const cp_prediction *p, const cp_eager_costs *costs, cp_eager *e, cp_error *err);
void cp_eager_free(cp_eager *e);

#endif
