/* predict: one training iteration of a CNN on one GPU (dissertation 6.3).
 *
 * Builds the iteration's task tree, t = loading + forward + backward +
 * update (Eq. 6-1...6-8), with every layer pass a sequence of kernels
 * (Eq. 6-7, 6-8), places it on the heterogeneous host+GPU system and
 * evaluates it (Eq. 5-8). The per-layer and per-phase times reported are the
 * evaluated times of the tree's nodes. */
#ifndef CP_PREDICT_H
#define CP_PREDICT_H

#include "../networks/network.h"
#include "system.h"
#include "task.h"

typedef struct {
    double ms[CP_PASS_COUNT];
    double flops[CP_PASS_COUNT];      /* the layer's arithmetic, as direct multiply-adds count it */
    double exec_flops[CP_PASS_COUNT]; /* what its kernels execute (Winograd: fewer, transforms: more) */
    double bytes[CP_PASS_COUNT];
    int node[CP_PASS_COUNT]; /* task-tree node of each pass, -1 if none */
    const char *algorithm[CP_PASS_COUNT]; /* a convolution pass's (cp_conv_pass_algorithm), else NULL */
    double roofline_ms;      /* sum over passes of max(executed FLOPs / peak, bytes / bandwidth) */
    cp_bound bound;          /* of the kernel that takes longest */
    int kernels;
} cp_layer_pred;

typedef struct {
    const cp_network *net;
    const cp_device *dev;
    int batch;
    cp_precision prec;
    cp_algos algos;
    double workspace_mb; /* the convolution workspace limit it was predicted with; negative: none */
    double workspace_left_mb; /* the workspace cuDNN may use: the limit, or less where the GPU's memory is short */
    cp_system sys;
    cp_tree tree;
    int root, phase[4]; /* nodes: loading, forward, backward, update */
    /* Where the calibration gives the host's cost of issuing each pass
     * (calibration.h, host_ms): the iteration is a DAG of the host issuing
     * the passes one after another and the GPU running each once it is
     * issued and the one before is done (node `timeline`, -1 without host
     * costs). A layer pass's ms and the phases are then the GPU's advance
     * over it, waiting for the host included. */
    int timeline;
    double host_ms;        /* the host's issue of the whole iteration (0: no host costs) */
    double kernels_ms;     /* the tree alone: every pass back to back */
    int host_bound;        /* the GPU waits for the host for at least 10% of the iteration */
    /* cudnnFind's path on a device whose profile calibrates its host
     * ("legacy_host"): the host issues the convolution calls at the median
     * cost while the GPU runs the kernels, and where the calls take longer
     * the host sets the pace (legacy_paced): the iteration is the calls'
     * time, forward and backward grow by their share of the calls, and the
     * layer passes keep the GPU's times (kernels_ms: the GPU's own) */
    int legacy_paced;
    double legacy_backward_scale; /* paced backward / the GPU's (1 when not paced): each backward pass's share */
    double loading_ms, forward_ms, backward_ms, update_ms, iteration_ms;
    double images_per_s;
    double flops; /* whole iteration */
    cp_layer_pred *layers;
    int layers_cap;
} cp_prediction;

/* p must be zeroed ({0}) before its first use; afterwards each cp_predict
 * reuses its buffers (so a sweep allocates once), and cp_prediction_free
 * releases them. On failure the buffers are kept and the results are not
 * valid. */
int cp_predict(const cp_network *net, const cp_device *dev, int batch, cp_precision prec, cp_prediction *p,
               cp_error *err);
/* The same with the convolution algorithms of another framework path
 * (layer.h): cp_predict is CP_ALGOS_FIND, eager mode's PyTorch
 * CP_ALGOS_PYTORCH; both with cnnperf-measure's default workspace limit. */
int cp_predict_with(const cp_network *net, const cp_device *dev, int batch, cp_precision prec, cp_algos algos,
                    cp_prediction *p, cp_error *err);
/* cnnperf-measure's default convolution workspace limit (--workspace-mb),
 * and its --workspace-mb 0 (no workspace) where 0 means "not given". */
#define CP_HARNESS_WORKSPACE_MB 8192.0
#define CP_NO_WORKSPACE_MB 1e-9
/* The limit for a --workspace-mb or provenance.workspace_limit_mib of mib
 * (>= 0): 0 is no workspace at all. */
static inline double cp_workspace_limit_mb(double mib) { return mib > 0 ? mib : CP_NO_WORKSPACE_MB; }
/* The limit a prediction runs with: none (-1) in eager mode, PyTorch's
 * benchmark mode taking what memory is free; in harness mode limit_mb, or
 * cnnperf-measure's default where it is 0 (not given). */
static inline double cp_run_workspace_mb(bool eager, double limit_mb)
{
    return eager ? -1 : limit_mb > 0 ? limit_mb : CP_HARNESS_WORKSPACE_MB;
}
/* And with the convolution workspace cuDNN may use, MiB: an algorithm whose
 * workspace exceeds it is not a candidate (layers/conv.c). Negative: no
 * limit, as PyTorch's benchmark mode takes whatever memory is free. */
int cp_predict_ws(const cp_network *net, const cp_device *dev, int batch, cp_precision prec, cp_algos algos,
                  double workspace_mb, cp_prediction *p, cp_error *err);
void cp_prediction_free(cp_prediction *p);

/* The host's cost of cudnnFind's path (CP_ALGOS_FIND, cuDNN's legacy API):
 * a convolution call costs the host 40-450 us, by algorithm, problem and
 * the host's speed at the time, not one number per layer class
 * (docs/CALIBRATION.md). A device profile's "legacy_host" section gives
 * what its host spends issuing an iteration per convolution call, all other
 * calls included (10th, 50th and 90th percentile over the calibration set's
 * runs; devices/FORMAT.md); the estimate is the iteration's convolution
 * calls times those. Where the profile has none, the H100 host's per-call
 * profile (the calibration set's 2,599 calls in validation/h100/host-profile/:
 * 64, 137 and 253 us) is reported, not used (calibrated 0). host_may_pace:
 * the median estimate reaches 80% of the GPU's own iteration (kernels_ms).
 * Zeroes for other algorithm sets. */
#define CP_LEGACY_CONV_HOST_US_P10 64.0
#define CP_LEGACY_CONV_HOST_US_MEDIAN 137.0
#define CP_LEGACY_CONV_HOST_US_P90 253.0
typedef struct {
    int calls;                  /* convolution passes of one iteration */
    int forward_calls;          /* of them, forward */
    double p10_ms, median_ms, p90_ms;
    /* the GPU's work after the host's last convolution call (the first
     * convolution layer's last backward pass and the update): a host-paced
     * iteration ends that much after the host's issue */
    double tail_ms;
    int host_may_pace;
    int calibrated;             /* the device's own host (its "legacy_host"), else the H100's */
} cp_legacy_host;
cp_legacy_host cp_legacy_host_estimate(const cp_prediction *p);
/* The iteration with the legacy host's issue taking host_ms (its median or
 * one of its percentiles): the GPU's own time, or the host's and the GPU's
 * tail after it, whichever is longer (the pipeline legacy_host_pace models). */
double cp_legacy_host_iteration_ms(const cp_prediction *p, const cp_legacy_host *h, double host_ms);
/* The range predict shows beside the iteration: with that host at its 10th
 * and at its 90th percentile (range[0], range[1]), where the device profile
 * calibrates it and no host timeline of the calibration's paces the
 * prediction: 1; else 0, range untouched. */
int cp_legacy_host_range(const cp_prediction *p, const cp_legacy_host *h, double range[2]);

/* The calibration a prediction with algorithm set `algos` applies: the
 * device's graph-API one for PyTorch's algorithms where it has one. */
const cp_calibration *cp_device_calibration(const cp_device *d, cp_algos algos);

/* The calibration class of a layer's passes (calibration.h), as the
 * prediction applies it: for reports and the fitting tool. */
cp_calib_class cp_layer_calib_class(const cp_layer *l);

/* The precision group a calibration keeps a precision's terms by. */
cp_calib_group cp_calib_group_of(cp_precision prec);

#endif
