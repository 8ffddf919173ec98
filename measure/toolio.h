/* toolio: what the small CPU-side measurement tools (cnnperf-psbench,
 * cnnperf-psexchange) share: option values, the provenance stamp of their
 * JSON, and writing it atomically (FILE.tmp, then rename). */
#ifndef CM_TOOLIO_H
#define CM_TOOLIO_H

#include <stddef.h>
#include <stdio.h>

/* s as an integer in [lo, hi]: 0, else -1. */
int cm_arg_ll(const char *s, long long lo, long long hi, long long *out);

typedef struct {
    char command[1024], host[256], date[32];
    const char *commit; /* $CNNPERF_GIT_COMMIT or "unknown" */
} cm_stamp;
/* The command line, host, UTC date and git commit of this run; the command's
 * quotes, backslashes and control characters become '_', so each prints as
 * a JSON string as it is. */
void cm_stamp_now(cm_stamp *s, int argc, char **argv);
/* The stamp as the provenance object's shared members, `"command": ...,
 * "hostname": ..., "date_utc": ..., "git_commit": ...` (no braces): each
 * tool adds its own after them. */
void cm_stamp_print(FILE *f, const cm_stamp *s);

/* Opens out's temporary file (stdout when out is NULL); NULL after saying
 * why on stderr, prefixed by prog. */
FILE *cm_atomic_open(const char *prog, const char *out, char *tmp, size_t tmp_size);
/* Closes f and renames tmp to out (nothing for stdout): 0, else 1 after
 * saying why and removing tmp. */
int cm_atomic_close(const char *prog, FILE *f, const char *out, const char *tmp);

#endif
