/* hostinfo: what a result file says about the machine and the source
 * measured, shared by cnnperf-measure and cnnperf-calibrate. */
#ifndef CM_HOSTINFO_H
#define CM_HOSTINFO_H

#include <stddef.h>

/* "580.159.04" from the kernel module's banner ("unknown" without one); the
 * CUDA driver API version is reported separately. */
void cm_driver_version(char *out, size_t size);

/* $CNNPERF_GIT_COMMIT when set (a copied tree has no .git), else
 * `git rev-parse HEAD`, with "+modified" when tracked files differ from
 * it, else "unknown". */
void cm_git_commit(char *out, size_t size);

#endif
