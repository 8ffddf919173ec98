/* spin_kernel: the CUDA source of one kernel that cnnperf-measure and
 * cnnperf-calibrate both compile with NVRTC into their own modules:
 * spin(ns) keeps one thread busy for ns nanoseconds of the GPU's global
 * timer, so that what is queued behind it waits (launch overhead,
 * --host-profile-behind). A string, spliced into each module's source. */
#ifndef CM_SPIN_KERNEL_H
#define CM_SPIN_KERNEL_H

#define CM_SPIN_KERNEL_SRC                                                                                       \
    "extern \"C\" __global__ void spin(long long ns) { unsigned long long t0, t;\n"                              \
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t0));\n"                                          \
    "    do { asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); } while ((long long)(t - t0) < ns); }\n"

#endif
