/* gpus: how many GPUs CUDA sees, for cnnperf-measure and cnnperf-calibrate.
 * No GPU is not a failure: with none, one line "<tool>: <who>skipped: no GPU
 * (CUDA's reason)" on stderr and 0, and the caller exits 77, which CTest
 * counts as skipped. who: a rank's prefix, or "". */
#ifndef CNNPERF_MEASURE_GPUS_H
#define CNNPERF_MEASURE_GPUS_H

int gpus_or_skip(const char *tool, const char *who);

#endif
