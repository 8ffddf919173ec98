/* calib_profile: turns cnnperf-calibrate's measurements into a device
 * profile (devices/FORMAT.md, cnnperf-device/1) that `cnnperf predict
 * --device FILE` accepts.
 *
 * The profile starts as a copy of the built-in profile of the same GPU
 * model (or --base), every field in its order; the measured fields are
 * replaced by {"value": X, "source": "measured: cnnperf-calibrate <what>,
 * <UTC date>, <GPU>, driver <v>, CUDA <v>"}, `name` gets "(calibrated
 * DATE)" and `description` says where the rest comes from. `id` stays the
 * base's, so what is keyed by device id (NVLink defaults of assumed
 * clusters) still applies. Before it is written, the text is parsed by
 * the predictor's own loader (cp_device_parse). */
#ifndef CAL_PROFILE_H
#define CAL_PROFILE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../util/cp_error.h"
#include "calib_comm.h"
#include "calib_gpu.h"

typedef struct {
    cal_gemm gemm[CAL_GEMM_KINDS];
    cal_membw mem;
    cal_launch launch;
    cal_latency lat;
    cal_hostlink host;
    cal_p2p p2p; /* raw file only: a cluster's intra-node link, not a device field */
} cal_device_results;

typedef struct {
    const char *date; /* UTC, 2026-11-23T10:31:00Z */
    const char *gpu_name, *driver, *cuda, *host;
    int synthetic; /* --self-test: sources say the numbers are made up */
    int quick;     /* --quick: sources say the sizes were small */
} cal_stamp;

/* The text of a base profile: a built-in id or a path. *file gets the name
 * used in messages ("devices/h100.json"). Caller frees; NULL and err on
 * failure. */
char *cal_base_load(const char *spec, char *file, size_t file_size, cp_error *err);

/* The calibrated profile, or NULL and err. `changes` (may be NULL), an
 * array, gets one {"field", "old", "new", "source"} per replaced field and
 * one {"field", "kept", "why"} per measured quantity not written. */
cJSON *cal_profile_build(const char *base_text, const char *base_file, const cal_device_results *r, const cal_stamp *st,
                         cJSON *changes, cp_error *err);

/* Sets the profile's nccl_overlap section (devices/FORMAT.md) to what
 * `--only overlap` measured (ov->done), replacing the base's: GEMM as
 * compute-bound, copy as memory-bound work. One change per rate. */
void cal_profile_set_overlap(cJSON *profile, const cal_overlap *ov, const cal_stamp *st, cJSON *changes);

/* One field per line, as the shipped profiles are written. Caller frees. */
char *cal_profile_text(const cJSON *profile);

/* 0 when cp_device_parse accepts text; else -1 and err. */
int cal_profile_check(const char *text, const char *file, cp_error *err);

/* Rounds to `digits` significant digits (keeps files readable). */
double cal_round(double x, int digits);

#endif
