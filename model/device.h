/* device: a GPU as the system model's SIMT processing unit.
 *
 * Holds the hardware parameters of the dissertation's Tables 3-1 and 3-2 plus
 * the rates the instruction-queue model needs. Loaded from a profile JSON
 * (devices/FORMAT.md) by id ("h100", embedded in the program) or by path. */
#ifndef CP_DEVICE_H
#define CP_DEVICE_H

#include <stddef.h>

#include "../util/cp_error.h"
#include "calibration.h"
#include "eager_costs.h"

typedef enum { CP_PREC_FP32, CP_PREC_TF32, CP_PREC_FP16, CP_PREC_BF16, CP_PREC_COUNT } cp_precision;

const char *cp_precision_name(cp_precision p);
int cp_precision_parse(const char *s, cp_precision *p); /* 0 ok, -1 unknown */
int cp_precision_bytes(cp_precision p);                  /* storage bytes of one activation */

typedef struct {
    char id[32];
    char name[96];
    char compute_capability[16];
    char host_link[64];
    char file[256]; /* where it was loaded from, for messages */

    /* Table 3-1: thread hierarchy */
    int warp_size;             /* N_W */
    int sm_count;              /* N_SM */
    int max_threads_per_sm;    /* N_MTS */
    int max_threads_per_block; /* N_MTB */
    int max_blocks_per_sm;     /* N_MBS */
    int max_warps_per_sm;      /* N_MWS */
    int schedulers_per_sm;     /* warp instructions issued per clock per SM */

    /* Table 3-2: memory hierarchy */
    int regs_per_sm;         /* R_MRM */
    int regs_per_block;      /* R_MRB */
    int max_regs_per_thread; /* R_MRT */
    int reg_alloc_unit;      /* registers per warp allocation unit */
    int smem_per_sm;         /* M_MSM */
    int smem_per_block;      /* M_MSB */
    int smem_alloc_unit;
    int smem_reserved_per_block;

    /* rates */
    double core_clock_mhz; /* 1 / t_Gclock */
    double fp32_lanes_per_sm;
    double fp32_tflops;
    double tensor_tflops[CP_PREC_COUNT]; /* [CP_PREC_FP32] is 0: fp32 runs on the FMA lanes */
    double smem_bytes_per_clock;
    double dram_bandwidth_gbs;
    double dram_efficiency;
    double dram_size_gb;
    double dram_usable_gib;    /* cudaMemGetInfo's total (0: unmeasured, dram_size_gb is used) */
    double runtime_memory_mib; /* CUDA context and library handles (0: unmeasured) */
    double l2_size_mb;
    double l2_bandwidth_gbs;
    double global_latency_cycles;
    double launch_overhead_us;
    double host_link_bandwidth_gbs;
    double host_link_latency_us;

    /* derived once at load, for the kernel model's inner loops */
    double cycles_per_ms;
    double l2_bytes_per_cycle; /* one SM's share of L2 bandwidth */
    double dram_bytes_per_cycle; /* sustained, whole device */
    double launch_cycles;

    /* the optional "eager" section: the framework host's costs (--mode eager) */
    cp_eager_costs eager;

    /* the optional "nccl_overlap" section: how an all-reduce and backward's
     * kernels slow each other while both run (cnnperf-calibrate --only
     * overlap), for compute-bound [0] and memory-bound [1] work: the work's
     * rate beside all-reduces and the all-reduce's beside the work, as
     * fractions of their rates alone. loaded 0: 16 SMs' share is assumed
     * lost to NCCL and the all-reduce is taken to run at full speed. */
    struct {
        int loaded;
        double work_rate[2], allreduce_rate[2];
        char source[256];
    } nccl_overlap;

    /* the optional "legacy_host" section: what this GPU's host spends
     * issuing a training iteration through cuDNN's legacy API, every call
     * and launch, per convolution call (10th, 50th and 90th percentile over
     * the calibration set's runs, us; tools/legacy_host_profile.py).
     * loaded 0: predictions only report the H100 host's. */
    struct {
        int loaded;
        double issue_us[3];
        int runs;
        char source[512]; /* the folders its runs came from: long */
    } legacy_host;

    /* attached by cp_device_load (cp_calibration_set_default); not loaded: analytic only */
    cp_calibration calib;
    /* "auto" only: calibration/<id>-graph, fitted on runs whose convolutions went
     * through cuDNN's graph API (PyTorch's path, CP_ALGOS_PYTORCH); predictions
     * with those algorithms use it, and calib where it is not loaded */
    cp_calibration calib_graph;
} cp_device;

/* spec is an embedded id ("h100") or a path to a JSON file. */
int cp_device_load(const char *spec, cp_device *d, cp_error *err);
/* The built-in device whose id a GPU's name contains, compared without case
 * or spaces, the longest id winning ("NVIDIA GeForce GTX 1080 Ti" ->
 * gtx1080ti); a GH200 is another machine than an H200. 0, or -1 if none. */
int cp_device_id_from_name(const char *gpu_name, char *id, size_t size);
int cp_device_parse(const char *text, size_t len, const char *file, cp_device *d, cp_error *err);

/* Peak rate of the compute pipe used for precision p, in FLOP/s. */
double cp_device_peak_flops(const cp_device *d, cp_precision p);
/* Whether the device can run precision p at all (tf32 needs tensor cores). */
int cp_device_supports(const cp_device *d, cp_precision p);

#endif
