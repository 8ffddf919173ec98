/* calib_selftest: `cnnperf-calibrate --self-test [-o FILE]`, the parts of
 * cnnperf-calibrate that need no GPU, checked on synthetic numbers: the
 * latency/bandwidth fit, the sweep sizes, the GPU-name matching, and a
 * calibrated profile built from every built-in one and parsed back by the
 * predictor's loader. With FILE, the synthetic h100 profile is written
 * there (a CTest then runs `cnnperf predict --device FILE` on it).
 * Returns the exit status: 0 when every check passes, 1 otherwise. */
#ifndef CAL_SELFTEST_H
#define CAL_SELFTEST_H

int cal_self_test(const char *out_path);

#endif
