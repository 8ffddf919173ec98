/* trace: a predicted iteration as Chrome trace-event JSON, which Perfetto
 * and chrome://tracing open: one process per GPU group (and the parameter
 * server), one thread per stream, one slice per task. */
#ifndef CP_TRACE_H
#define CP_TRACE_H

#include <stdio.h>

#include "../model/distributed.h"
#include "../model/eager.h"

int cp_trace_single(FILE *f, const cp_prediction *p);
int cp_trace_distributed(FILE *f, const cp_dist_prediction *p);
/* --mode eager: host operators and GPU kernels on their own tracks
 * (the time line must have been run with record = 1). */
int cp_trace_eager(FILE *f, const cp_eager *e);

#endif
