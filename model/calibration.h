/* calibration: how far the kernels cuDNN actually runs are from the
 * modelled decomposition, per class of layer pass, fitted on a named
 * training set of measured networks (calibration/FORMAT.md).
 *
 * The queue model times the kernels a layer pass is decomposed into. cuDNN
 * picks other algorithms (FFT, Winograd, NCHW<->NHWC transposes around
 * tensor-core kernels, several kernels for one batch-norm pass), so each
 * pass of a class is corrected as t = scale x t_model + offset, with
 * offset the per-call cost the decomposition lacks. The correction is a
 * property of a device and a library version, fitted once from networks
 * kept apart from the ones the accuracy is judged on. */
#ifndef CP_CALIBRATION_H
#define CP_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/cp_error.h"

/* Precision groups: fp32 on FMA lanes, tf32 and 16-bit on tensor cores. */
typedef enum { CP_CG_FP32, CP_CG_TF32, CP_CG_HALF, CP_CG_COUNT } cp_calib_group;

#define CP_CONV_3X3_WIDE_PLANE 27

typedef enum {
    CP_CC_CONV_FIRST,   /* a convolution of the input image (<= 4 channels) */
    CP_CC_CONV_GROUPED, /* depthwise (one input channel a group); other grouped layers take their filter's class */
    CP_CC_CONV_1X1,
    CP_CC_CONV_3X3,     /* the one size with Winograd */
    CP_CC_CONV_3X3_WIDE, /* 3x3 on planes of CP_CONV_3X3_WIDE_PLANE and more: PyTorch's path takes FFT
                            for their data gradient and GEMMs for the narrow ones' (layers/conv.c) */
    CP_CC_CONV_KXK,     /* other small filters (1x7, 7x1, 1x3, 3x1, ...) */
    CP_CC_CONV_LARGE,   /* more than 9 taps (5x5, 7x7, 11x11), where FP32 may run as FFT tiling */
    CP_CC_FC,
    CP_CC_BATCHNORM,
    CP_CC_ELEMENTWISE, /* relu, relu6, dropout, add, softmax, flatten */
    CP_CC_CONCAT,      /* concat: a strided copy per input (a file without the class: elementwise's terms) */
    CP_CC_MAXPOOL,     /* max pooling: its backward is a chain of its own (layers/pool.c) */
    CP_CC_POOL,        /* avg, adaptive and global average pooling */
    CP_CC_OTHER,       /* lrn */
    CP_CC_COUNT
} cp_calib_class;

#define CP_CALIB_PASSES 4 /* forward, backward-data, backward-weight, update */

/* The factors a 16-bit convolution pass's scale takes in channels-last,
 * for the 3x3 classes and for the others. The scales are fitted on NCHW
 * runs, where cuDNN's tensor-core engines sit between layout transposes and
 * run their NCHW-adapted variants; part of a 16-bit scale is that path's
 * cost beyond the transposes the model times, which a channels-last pass
 * (the engine alone) never pays. Fitted on the calibration set's GPU-paced
 * channels-last 16-bit PyTorch runs (tools/fit_constant.sh;
 * validation/h100/torch/clcal42/, clcal42b/; docs/CALIBRATION.md). */
#ifndef CP_CL_HALF_CONV_FACTOR_3X3
#define CP_CL_HALF_CONV_FACTOR_3X3 0.70
#endif
#ifndef CP_CL_HALF_CONV_FACTOR_OTHER
#define CP_CL_HALF_CONV_FACTOR_OTHER 1.10
#endif

/* The factor on the calibrated time of a strided convolution's data
 * gradient (stride > 1; not a first layer, not depthwise). cuDNN runs it on
 * other engines than its stride-1 class (the graph API's FP32 3x3 data
 * gradient on engine 25, PyTorch's dgrad_engine), which the class scales,
 * fitted on all strides together and few strided layers, do not see; so it
 * applies where the file fitted the class's term. Fitted on the calibration
 * set's GPU-paced cnnperf-measure runs (graph and legacy API), the smallest
 * mean error of their strided data gradients on a 0.05 grid, and carried
 * from either calibration network with such layers to the other (the
 * weight gradient's 1.05 did not: docs/CALIBRATION.md, session 39). */
#ifndef CP_STRIDED_DGRAD_FACTOR
#define CP_STRIDED_DGRAD_FACTOR 1.15
#endif
/* The same for the weight gradient of such a layer in FP32, whose engines
 * (the graph API's 20 and 67, PyTorch's wgrad_alg0_engine, cudnnFind's
 * choice) take 1.3-1.6x the class; 16-bit ones run as their class (the
 * graph API's engine 65: 1.00), so a factor over all precisions did not
 * carry from one calibration network to the other. Fitted on the
 * calibration set's FP32 strided weight gradients as the data gradient's
 * factor is, and carried both ways (docs/CALIBRATION.md, session 39). */
#ifndef CP_STRIDED_WGRAD_FP32_FACTOR
#define CP_STRIDED_WGRAD_FP32_FACTOR 1.40
#endif

typedef struct {
    double scale;     /* 1 when not set */
    double offset_ms; /* 0 when not set */
    double host_ms;   /* what the host spends issuing the pass's library calls; 0 when not set */
} cp_calib_term;

/* Activation layouts of eager mode's factors: NCHW, channels-last. */
typedef enum { CP_LAYOUT_NCHW, CP_LAYOUT_CHANNELS_LAST, CP_LAYOUT_COUNT } cp_calib_layout;

/* PyTorch's own pooling kernel of one layout and kind, per element (cp_calibration.eager_pool). */
typedef struct {
    bool set;
    double fwd_per_output_ps, fwd_per_tap_ps, bwd_per_input_ps, bwd_per_cover_ps;
} cp_eager_pool_rate;

typedef struct {
    bool loaded;
    char file[256];
    char source[512]; /* one line: what it was fitted on (training runs and microbenchmarks) */
    cp_calib_term term[CP_CG_COUNT][CP_CC_COUNT][CP_CALIB_PASSES];
    /* eager mode's factors on the analytic time of the element-wise kernels
     * PyTorch runs itself (ReLU, ReLU6: model/eager.c), fitted on the
     * calibration set's PyTorch kernel traces ("eager_terms",
     * tools/fit_eager_terms.py); 0 where none was fitted (the pass keeps its
     * term above) */
    double eager_scale[CP_LAYOUT_COUNT][CP_CG_COUNT][CP_CC_COUNT][CP_CALIB_PASSES];
    bool has_eager;
    /* eager mode's windowed pooling as PyTorch's own kernels ("eager_pool",
     * tools/fit_eager_pool.py; rule 36): per element, in any precision, the
     * forward's time per output and per tap of its window, the backward's per
     * input and per window covering it; picoseconds. By layout, then kind (0:
     * max pooling, 1: average pooling); .set false where none was fitted (the
     * shipped files have NCHW rates only) */
    cp_eager_pool_rate eager_pool[CP_LAYOUT_COUNT][2];
    /* the device's own channels-last 16-bit convolution factors
     * ("cl_half_conv_factors": {"conv_3x3": A, "other": B}, rule 38): 0
     * where the file has none (CP_CL_HALF_CONV_FACTOR_3X3 and _OTHER hold) */
    double cl_half_conv_3x3, cl_half_conv_other;
    /* some term has host_ms: predictions put the host's issue of every pass
     * ahead of its kernels (predict.h, host time line) */
    bool has_host;
    char host_source[256]; /* one line: what the host costs were measured on */
} cp_calibration;

const char *cp_calib_class_name(cp_calib_class c);
const char *cp_calib_group_name(cp_calib_group g);

/* spec: an embedded name under calibration/ ("h100") or a path. */
int cp_calibration_load(const char *spec, cp_calibration *c, cp_error *err);
int cp_calibration_parse(const char *text, size_t len, const char *file, cp_calibration *c, cp_error *err);

/* What cp_device_load attaches to every device it loads:
 *   "none" (the library's default): the analytic model alone;
 *   "auto" (the program's default): calibration/<device id> when embedded;
 *   a path or embedded name: that file, for every device. */
void cp_calibration_set_default(const char *spec);
const char *cp_calibration_default(void);

#endif
