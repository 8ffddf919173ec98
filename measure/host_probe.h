/* host_probe: how fast this process's host issues work right now, measured
 * beside a run's timed iterations with a fixed workload that does not depend
 * on the network.
 *
 * Host-paced runs move with the host's speed: the same configuration's
 * enqueue time has moved 1.5-3x between calls and processes on one machine
 * (docs/ACCURACY.md, "Where the targets stand"). A run that records the
 * probe says how fast its host was, so the probe can be set against the
 * run's host time, and a model of the host can be given the speed it stands
 * for.
 *
 * Three workloads, each a median over repetitions:
 *   conv_call_us  a legacy cuDNN convolution call (forward, backward-data and
 *                 backward-filter in turn, FP32, 1x16x8x8 with 16 3x3
 *                 filters, the algorithms cuDNN's heuristics rank first):
 *                 the host's cost of what a legacy-API iteration is made of
 *   launch_us     cudaMemsetAsync of 4 bytes: the driver's enqueue path
 *   cpu_ns        one step of a fixed integer loop: the core alone
 * The GPU runs each workload's work long before the host issues the next,
 * so none of them waits for the GPU. */
#ifndef CM_HOST_PROBE_H
#define CM_HOST_PROBE_H

#include "train.h"

typedef struct {
    double conv_call_us;
    double launch_us;
    double cpu_ns;
} cm_host_probe;

enum { CM_HOST_PROBE_FIELDS = 3 };

/* Runs the three workloads on g's stream and cuDNN handle; the stream is
 * idle when it returns. */
void cm_host_probe_run(cm_gpu *g, cm_host_probe *out);

/* The fields in the order above, for gathering across ranks. */
void cm_host_probe_pack(const cm_host_probe *p, double out[CM_HOST_PROBE_FIELDS]);

#endif
