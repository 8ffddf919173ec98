/* kernel_check: GPU tests of cnnperf-measure's own kernels (kernels.c) that
 * a training run alone would not catch. */
#ifndef CM_KERNEL_CHECK_H
#define CM_KERNEL_CHECK_H

/* cnnperf-measure --check-dropout: runs the bf16 dropout kernels on 2^22
 * ones at p = 0.5, 0.1 and 0 and checks every element against y = x m /
 * (1 - p) and dx = dy m / (1 - p), the share kept against 1 - p, and the
 * masks of one seed and of another. Prints what it found on stderr; returns
 * 0 when all hold, CM_EXIT_RUNTIME when one does not, CM_EXIT_SKIP without a
 * GPU. */
int cm_check_dropout(void);

#endif
