/* kernels: the few GPU kernels no library provides, compiled at start-up
 * with NVRTC for the GPU at hand (so the build needs no nvcc).
 *
 * - SGD with momentum over one layer's parameters, as torch.optim.SGD does
 *   it, on fp32 master weights; with 16-bit training the same kernel reads
 *   the 16-bit gradient and refreshes the 16-bit weight copy (the predictor's
 *   sgd_momentum kernel, layers/registry.c).
 * - The backward of softmax with cross-entropy: dx = (p - onehot) / batch,
 *   and the per-sample loss for --check-loss.
 * - The bias gradient of a convolution (sum of dy over batch and pixels),
 *   spread over all SMs as a framework's reduction is (cuDNN's
 *   cudnnConvolutionBackwardBias runs one block per channel, and has no
 *   bf16).
 * - Dropout in bf16, which cuDNN's dropout does not take. */
#ifndef CM_KERNELS_H
#define CM_KERNELS_H

#include <stddef.h>

#include "check.h"

typedef enum { CM_F32, CM_F16, CM_BF16, CM_DTYPE_COUNT } cm_dtype;

typedef struct {
    cudaLibrary_t lib;
    cudaKernel_t sgd[CM_DTYPE_COUNT];  /* by gradient type */
    cudaKernel_t xent[CM_DTYPE_COUNT]; /* by activation type */
    cudaKernel_t bias_part[CM_DTYPE_COUNT], bias_rows[CM_DTYPE_COUNT], bias_sum[CM_DTYPE_COUNT];
    cudaKernel_t dropout_fwd_bf16, dropout_bwd_bf16;
    cudaKernel_t spin;
    int max_blocks, sms;
} cm_kernels;

/* Compiles the kernels to a cubin for compute capability major.minor
 * (caller frees). Exits with a message and NVRTC's log on failure. */
char *cm_kernels_compile(int major, int minor, size_t *size);

/* Compiles for the current device and loads the kernels. */
void cm_kernels_load(cm_kernels *k);

/* w, v: fp32 master weights and momentum; g: the gradient (gtype); wlow: the
 * 16-bit weight copy to refresh (NULL when gtype is CM_F32). */
void cm_sgd(const cm_kernels *k, cm_dtype gtype, float *w, float *v, const void *g, void *wlow, long long n,
            float lr, float momentum, cudaStream_t s);

/* p: softmax probabilities (batch x classes, type t); dx written with the
 * same type; loss[batch] gets -log p[label]. */
void cm_xent_backward(const cm_kernels *k, cm_dtype t, const void *p, const int *labels, void *dx, float *loss,
                      int batch, int classes, cudaStream_t s);

/* db[c] = sum of dy[n][c][hw] over n and hw; dy NCHW of type t (hw = 1: a
 * fully connected layer's n x c rows). part: fp32 scratch of
 * c x cm_bias_slices(k, n, c, hw) floats. */
void cm_bias_grad(const cm_kernels *k, cm_dtype t, const void *dy, void *db, int n, int c, long long hw,
                  float *part, cudaStream_t s);
int cm_bias_slices(const cm_kernels *k, int n, int c, long long hw);

/* Dropout of n bf16 elements with probability p: y = x m / (1 - p), the
 * mask m (one byte an element) drawn from seed; backward dx = dy m / (1 - p). */
void cm_dropout_bf16_forward(const cm_kernels *k, const void *x, void *y, unsigned char *mask, long long n, double p,
                             unsigned long long seed, cudaStream_t s);
void cm_dropout_bf16_backward(const cm_kernels *k, const void *dy, const unsigned char *mask, void *dx, long long n,
                              double p, cudaStream_t s);

/* One thread that keeps the GPU busy for us microseconds: work queued
 * behind it waits, and so does a host call that synchronises. */
void cm_spin(const cm_kernels *k, double us, cudaStream_t s);

#endif
