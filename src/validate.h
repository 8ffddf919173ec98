/* validate: measured against predicted, the metrics of `cnnperf validate`.
 *
 * Pure computations over run records, so the unit tests can check them on
 * numbers worked by hand: relative errors and MAPE, the PS-vs-NCCL
 * verdict, the summaries and the accuracy targets of issue 5, the check
 * against a baseline, `**` path patterns and the hand-written tail of a
 * generated document. Reading files and predicting are cmd_validate.c's,
 * printing validate_report.c's. */
#ifndef CP_VALIDATE_H
#define CP_VALIDATE_H

#include <stddef.h>

#include "../util/cp_error.h"

#define CP_VAL_PASSES 3            /* forward, backward-data, backward-weight */
#define CP_VAL_HOST_PHASES 3       /* forward, backward, step: model/eager.h's CP_EAGER_HOST_PHASES */
#define CP_VAL_MIN_PASS_MS 0.005   /* passes measured below 5 us are timer noise, not model error */
#define CP_VAL_WINNER_MARGIN 0.10  /* PS and NCCL closer than 10%: no winner to get right */
#define CP_VAL_TOLERANCE_PP 0.5    /* a metric regresses when worse by more than this (percentage points) */
#define CP_VAL_MIN_TIMED_ITERATIONS 5 /* fewer: a run of a memory check (memory-h100/), its time no timing */
/* The host's share of an iteration from which the GPU waited for it: cnnperf-measure's host_bound verdict,
 * and validate's on PyTorch runs' host walls */
#define CP_VAL_HOST_BOUND_SHARE 0.9
#define CP_VAL_MARKER "<!-- hand-written below: kept by the generator -->"

typedef enum { CP_VAL_CNNPERF, CP_VAL_PYTORCH } cp_val_source;

typedef struct {
    char name[128], kind[32];
    double meas[CP_VAL_PASSES], pred[CP_VAL_PASSES];
    /* the measured pass also holds a wait that is no layer's (a multi-GPU run's
     * wait for its gradient exchange, before the harness timed it apart):
     * shown, left out of the layer metrics and the worst layers */
    unsigned char unscored[CP_VAL_PASSES];
} cp_val_layer;

/* One measured iteration and its prediction. */
typedef struct {
    char file[512];
    char label[192]; /* stable key: network, batch, precision, GPUs, exchange */
    cp_val_source source;
    char network[64], device[32], precision[8], comm[8]; /* device: the profile id; comm "none" on one GPU */
    char harness[16]; /* cp_val_harnesses[]: cnnperf-measure's convolution API, or PyTorch */
    char config[320];  /* the configuration: label, harness and library versions ("": unknown, matches none) */
    int batch, gpus, overlap, ps_servers, emulated;
    int calibration;  /* network in the calibration set: kept out of the targets */
    int drawn;        /* in a folder of configurations drawn at random before their call (the calibration
                         set's drawn_folders): the measurements no model choice could have seen */
    int excluded;     /* kept out of the targets for another reason (note says why) */
    double meas_ms, pred_ms;
    int has_phases;   /* loading, forward, backward, update */
    double meas_phase[4], pred_phase[4];
    int has_exchange;
    double meas_exchange_ms, pred_exchange_ms;
    int has_host, host_bound; /* cnnperf-measure's host_enqueue_ms and host_bound, where the file has them;
                                 PyTorch's host wall of an iteration (host_wall_ms), bound at 90% of it */
    double host_enqueue_ms;
    int has_pred_host;        /* eager mode: the host's issue time of every operator (cp_eager host_ms) */
    double pred_host_ms;
    /* PyTorch's host wall by phase (host_wall_ms: forward with loading and the loss, loss.backward(),
     * opt.step()) and the eager model's host clock over the same spans (cp_eager host_phase_ms) */
    int has_host_phase;
    double host_phase_ms[CP_VAL_HOST_PHASES], pred_host_phase_ms[CP_VAL_HOST_PHASES]; /* in cp_eager_host_phase_names'
                                                                                        order */
    /* GPU memory, where the run recorded it (model/memory.h): cnnperf-measure's
     * rank 0 besides its convolution workspace (memory_used_mib -
     * workspace_used_mib) against the harness footprint; PyTorch's peak
     * allocation (memory.peak_allocated_mib) against eager mode's, less the
     * runtime and headroom, which the allocator does not count */
    int has_memory;
    double meas_memory_mib, pred_memory_mib;
    /* the host probe the run took in its own process just before and just
     * after its timed iterations (cnnperf-measure's legacy convolution call,
     * torch_bench.py's eager operator, us): which of its host's speeds the
     * run had; 0 where not recorded (before session 33) */
    double host_probe_us[2];
    int pred_fits; /* the prediction says it fits */
    /* one GPU: the iteration with the host as fast and as slow as the device
     * profile has seen it (cudnnFind's calls at their 10th and 90th
     * percentile, eager mode's operators at their cheapest and dearest
     * call), where that moves the prediction: pred_low_ms < pred_high_ms */
    int has_range;
    double pred_low_ms, pred_high_ms;
    cp_val_layer *layers;
    int n_layers;
    char note[384];
    int selected;     /* summaries can be restricted to selected runs (the baseline's) */
    /* the baseline's record of a selected run */
    double base_meas_ms, base_pred_ms, base_layer_sum_pct;
    int base_layer_n;
} cp_val_run;

/* One size of a measured NCCL all-reduce sweep. */
typedef struct {
    char label[160]; /* stable key of the sweep: device, ranks, nodes */
    char file[512];
    char device[32];
    int ranks, nodes, emulated;
    double bytes, meas_us, pred_us;
    int calibration; /* a sweep of the calibration set's nccl_sweeps: kept out of the target */
    int selected;
    double base_error_pct; /* the baseline's record of a selected size */
} cp_val_ar;

/* The same job measured with both exchanges: the faster of each mode. */
typedef enum { CP_VAL_TIE, CP_VAL_RIGHT, CP_VAL_WRONG } cp_val_verdict;
typedef struct {
    char label[192];
    double meas_ps, meas_nccl, pred_ps, pred_nccl;
    cp_val_verdict verdict;
    int calibration, excluded, selected;
} cp_val_pair;

/* Absolute relative errors in percent: n = 0 means no data. */
typedef struct {
    int n;
    double sum_pct, worst_pct;
} cp_val_stat;

/* Signed (pred - meas) / meas in percent; 0 when meas is not positive. */
double cp_val_rel_pct(double pred, double meas);
void cp_val_stat_add(cp_val_stat *s, double pred, double meas);
double cp_val_mape(const cp_val_stat *s); /* mean, 0 for no data */
/* Mean absolute percentage error of n pairs (0 for n = 0). */
double cp_mape(const double *pred, const double *meas, int n);

/* TIE when the measured times differ by 10% or less (not counted); else
 * RIGHT when the predicted faster mode is the measured faster one. */
cp_val_verdict cp_val_winner(double meas_ps, double meas_nccl, double pred_ps, double pred_nccl);
const char *cp_val_verdict_name(cp_val_verdict v);

/* Pairs PS and NCCL runs of the same network, device, batch, precision,
 * GPU count and emulation; returns how many (at most cap). */
int cp_val_pairs(const cp_val_run *runs, int n, cp_val_pair *out, int cap);

/* Whether a run counts in the target statistics (evaluation set). */
int cp_val_in_targets(const cp_val_run *r);
/* Whether a run is in the one-GPU target's scope: H100/H200, fp32 or
 * fp16, batch 32...256, one GPU. */
int cp_val_one_gpu_scope(const cp_val_run *r);
/* A layer pass that counts in the per-layer statistics. */
int cp_val_pass_counts(double meas_ms);
/* The memory of the runs of one source that recorded it, calibration and
 * evaluation sets alike (no run fitted the memory model's constants but
 * the folders validation/README.md names); *wrong: runs that ran where the
 * prediction says they do not fit. */
cp_val_stat cp_val_memory_stat(const cp_val_run *runs, int n, cp_val_source source, int *wrong);
/* The one-GPU target's runs of one source and set (calibration 0/1) whose
 * prediction the host's speed moves by a tenth or more (has_range, the
 * range at least CP_VAL_RANGE_WIDTH of the prediction: where the host may
 * pace the run; a narrower range says only that the host does not matter):
 * how many measured below it, inside it and above it. Says whether the
 * range a user is shown holds what the runs did. */
#define CP_VAL_RANGE_WIDTH 0.1
typedef struct {
    int below, inside, above;
} cp_val_range_count;
cp_val_range_count cp_val_host_range(const cp_val_run *runs, int n, cp_val_source source, int calibration);
/* Where a run with a range measured: -1 below it, 0 inside (ends included), 1 above. */
int cp_val_range_side(const cp_val_run *r);
/* PyTorch's host: the eager model's issue time against the run's measured
 * host wall, over the host-bound runs (the host's wall is its issue time
 * only where the GPU waited for it: elsewhere the host also waits) of one set
 * (calibration 0/1) on one GPU (ddp 0) or in DDP (ddp 1). Says where an
 * iteration's error is the host's and where the GPU's. */
cp_val_stat cp_val_host_stat(const cp_val_run *runs, int n, int calibration, int ddp);
/* The host-bound PyTorch runs of one set (calibration 0/1) and GPU count (ddp: several) with the host's wall by
 * phase: the median over them of measured / predicted for forward, backward and the step (median[]); returns how
 * many runs. */
int cp_val_host_phase_ratios(const cp_val_run *runs, int n, int calibration, int ddp,
                             double median[CP_VAL_HOST_PHASES]);

/* --- targets ----------------------------------------------------------------- */

typedef enum {
    CP_T_ONE_GPU_MAPE,
    CP_T_ONE_GPU_WORST,
    CP_T_LAYER_MAPE,
    CP_T_MULTI_GPU_MAPE,
    CP_T_NCCL_MAPE,
    CP_T_WINNER,
    CP_T_COUNT
} cp_val_target_id;

typedef struct {
    const char *key;  /* stable metric name, e.g. "one_gpu_iteration_mape" */
    const char *what; /* the target in words */
    double limit;     /* percent; for the winner the wrong decisions allowed (0) */
    double value;     /* percent, or wrong decisions */
    int n;            /* runs, passes, sizes or decisions it is over; 0: no data */
    int met;
} cp_val_target;

/* The targets over the evaluation set (only_selected: only selected runs,
 * sizes and pairs, to compare with a baseline on the runs it knows). */
void cp_val_targets(const cp_val_run *runs, int n, const cp_val_ar *ar, int nar, const cp_val_pair *pairs,
                    int npairs, int only_selected, cp_val_target out[CP_T_COUNT]);
const char *cp_val_status(const cp_val_target *t); /* "met", "NOT met", "no data" */
/* A target's value as the reports print it into buf: "4.96%", "0 wrong"
 * (is_count), "-" without data; a value that rounds onto its limit gets a
 * third decimal ("5.004%" is not met; "5.00%" would read as met). */
void cp_val_target_value(const cp_val_target *t, int is_count, char *buf, size_t n);

/* Iteration-time statistics of runs grouped by one field. */
/* Ways to group runs. harness: how the iteration ran (cnnperf-measure through cuDNN's legacy or graph API, or
 * PyTorch); host: whether the run was bound by the host's enqueueing (cnnperf-measure's host_bound), which no
 * GPU model predicts; "unknown" where the file does not say; drawn: whether its configuration was drawn at
 * random and committed before the call that measured it ("one GPU, before its call", "several GPUs, before its
 * call"; "other" for the rest). */
typedef enum {
    CP_DIM_NETWORK,
    CP_DIM_DEVICE,
    CP_DIM_PRECISION,
    CP_DIM_COMM,
    CP_DIM_GPUS,
    CP_DIM_HARNESS,
    CP_DIM_HOST,
    CP_DIM_DRAWN,
    CP_DIM_COUNT
} cp_val_dim;
extern const char *const cp_val_dim_names[CP_DIM_COUNT];
/* How a run ran: "legacy API", "graph API" (cnnperf-measure) or "PyTorch". */
extern const char *const cp_val_harnesses[3];
/* Whether the host bound a run: "bound", "not bound", or "unknown" where the file has no host time (the "host"
 * dimension's values). */
const char *cp_val_host_verdict(const cp_val_run *r);
typedef struct {
    char value[64];
    cp_val_stat st;
} cp_val_group;
/* calibration: 1 the calibration set, 0 the evaluation set. Returns the
 * number of groups (at most cap), in order of first appearance. */
int cp_val_groups(const cp_val_run *runs, int n, cp_val_dim d, int calibration, cp_val_group *out, int cap);

/* Per-layer statistics of one layer kind ("conv"; NULL: conv and fc) and
 * pass (CP_VAL_PASSES: all three) over the evaluation set. */
cp_val_stat cp_val_layer_stat(const cp_val_run *runs, int n, const char *kind, int pass, int only_selected);

/* Sets y's predicted passes (forward, backward-data, backward-weight, ms).
 * Where one library call computes both gradients and is measured as
 * backward-data (cuDNN's batch-norm backward: its weight gradient measured
 * 0, both predicted), the model's two backward passes are compared as their
 * sum on backward-data, as tools/fit_calibration.py fits them. */
void cp_val_layer_set_predicted(cp_val_layer *y, const double pred[CP_VAL_PASSES]);

/* Indices of the k layers of r with the largest |predicted - measured|
 * over the three passes; returns how many (at most k). */
int cp_val_worst_layers(const cp_val_run *r, int *idx, int k);

/* The targets as the baseline recorded them, over the selected runs and
 * sizes only (their base_* fields), so that a baseline and today compare
 * on the same runs whatever was added or removed since. The winner target
 * is left with no data: decisions are compared one by one. */
void cp_val_baseline_targets(const cp_val_run *runs, int n, const cp_val_ar *ar, int nar,
                             cp_val_target out[CP_T_COUNT]);

/* A lower-is-better metric regressed: now worse than base by more than
 * CP_VAL_TOLERANCE_PP. */
int cp_val_regressed(double base, double now);

/* --- repeatability ------------------------------------------------------------ */

/* Runs of one configuration measured more than once bound what any model can
 * reach: a prediction is one number per configuration (cp_val_run.config:
 * network, device, batch, precision, GPUs, exchange, memory format, harness,
 * cuDNN or PyTorch version), so it cannot be nearer to all of them than their
 * spread allows. */
typedef struct {
    int runs, configs;                   /* runs in the scope, distinct configurations among them */
    int repeated_configs, repeated_runs; /* configurations measured more than once, and their runs */
    double mape_floor_pct;  /* the least MAPE any one prediction per configuration reaches over the runs */
    double repeated_floor_pct; /* the same over the repeated configurations' runs only: the noise per run */
    double worst_floor_pct; /* the least worst |error|: (max - min) / (max + min) of the widest configuration */
    int worst_run;          /* a run of that configuration (index into runs), -1 when none repeats */
    double worst_min_ms, worst_max_ms;
    int worst_n;
    double limit_pct; /* a worst-case limit (the one-GPU target's), and */
    int wide_configs; /* the configurations whose own spread (max - min) / (max + min) exceeds it */
} cp_val_floor;
/* Whether two runs are the same configuration (same non-empty config). */
int cp_val_same_config(const cp_val_run *a, const cp_val_run *b);
/* The floor over the target's runs: multi 0 the one-GPU scope, 1 the
 * multi-GPU runs (evaluation set, cp_val_in_targets), of one harness
 * (cp_val_run.harness; NULL: all); limit_pct: the worst case to count
 * wide configurations against. Returns 0, or -1 when out of memory. */
int cp_val_floor_of(const cp_val_run *runs, int n, int multi, const char *harness, double limit_pct,
                    cp_val_floor *out);

/* --- paths ------------------------------------------------------------------- */

/* Whether path matches pattern: fnmatch(3) per '/'-separated segment (a
 * leading '.' only matched explicitly), and a segment "**" matches any
 * number of directories, none included. */
int cp_glob_match(const char *pattern, const char *path);
/* Appends the regular files pattern names to *list (each malloc'd, each
 * listed once): a file, a directory (its *.json at any depth), or a
 * pattern with * ? [ ] and "**" segments. Returns the number of files
 * matched; -1 (err filled) when a pattern matches nothing, a file is
 * missing, or memory runs out. */
int cp_glob_expand(const char *pattern, char ***list, int *n, int *cap, cp_error *err);

/* The hand-written tail of a generated document: the text after the
 * CP_VAL_MARKER line, or NULL when there is no such line. */
const char *cp_val_handwritten(const char *doc);

#endif
