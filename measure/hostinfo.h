/* hostinfo: what a result file says about the machine and the source
 * measured, shared by cnnperf-measure, cnnperf-calibrate and the host-only
 * tools (cnnperf-psbench, cnnperf-psexchange). Each reader takes the proc
 * directory it reads ("/proc"; tests give a fixture's). */
#ifndef CM_HOSTINFO_H
#define CM_HOSTINFO_H

#include <stddef.h>

/* "580.159.04" from the kernel module's banner, PROC/driver/nvidia/version
 * ("unknown" without one); the CUDA driver API version is reported
 * separately. */
void cm_driver_version(const char *proc, char *out, size_t size);

/* The first "model name" of PROC/cpuinfo ("unknown" without one): the
 * host's speed sets a host-paced run's pace and a parameter server's. */
void cm_cpu_model(const char *proc, char *out, size_t size);

/* The NVIDIA GPUs the driver lists (PROC/driver/nvidia/gpus/BUS/information,
 * "Model:"), in bus order, at most max: their names in names[i] (quotes and
 * control characters made '_', so each prints as a JSON string as it is).
 * Returns how many (0 without a driver). Host-only tools record what they
 * ran beside; no CUDA call, so they need no GPU library. */
#define CM_GPU_NAME_SIZE 128
int cm_node_gpus(const char *proc, char names[][CM_GPU_NAME_SIZE], int max);

/* s's quotes, backslashes and control characters made '_', so it prints as
 * a JSON string as it is (the host-only tools write their JSON by printf). */
void cm_json_safe(char *s);

/* $CNNPERF_GIT_COMMIT when set (a copied tree has no .git), else
 * `git rev-parse HEAD`, with "+modified" when tracked files differ from
 * it, else "unknown". */
void cm_git_commit(char *out, size_t size);

#endif
