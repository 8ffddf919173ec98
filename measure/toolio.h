/* toolio: what the small CPU-side measurement tools (cnnperf-psbench,
 * cnnperf-psexchange) share: option values, the provenance stamp of their
 * JSON, and writing it atomically (FILE.tmp, then rename). */
#ifndef CM_TOOLIO_H
#define CM_TOOLIO_H

#include <stddef.h>
#include <stdio.h>

/* s as an integer in [lo, hi]: 0, else -1. */
int cm_arg_ll(const char *s, long long lo, long long hi, long long *out);

/* Opens out's temporary file (stdout when out is NULL) and begins the
 * tool's JSON: `{ "format": FORMAT, "provenance": {` with the run's command
 * line, host, UTC date, git commit ($CNNPERF_GIT_COMMIT or "unknown"), the
 * host's CPU model and online CPUs, and the NVIDIA driver and GPUs of the
 * node (hostinfo.h), the object left open for the tool's own members
 * (`, "mpi": ...}`). NULL after saying why on stderr, prefixed by prog. */
FILE *cm_json_open(const char *prog, const char *format, const char *out, char *tmp, size_t tmp_size, int argc,
                   char **argv);
/* Closes f and renames tmp to out (nothing for stdout): 0, else 1 after
 * saying why and removing tmp. */
int cm_atomic_close(const char *prog, FILE *f, const char *out, const char *tmp);

#endif
