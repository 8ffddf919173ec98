/* kernel_check: cnnperf-measure --check-dropout, a GPU test of the bf16
 * dropout kernels (kernels.c), which cuDNN's dropout cannot stand in for
 * (it takes no bf16). Training a network in bf16 only shows that the loss
 * falls; this checks the kernels themselves against what they promise:
 * y = x m / (1 - p) with m drawn per element from the seed, the share kept
 * near 1 - p, the same mask for the same seed, another for another seed, and
 * a backward that applies the forward's mask and scale. */
#include "kernel_check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "ps.h"    /* cm_ps_to_float: an element of a 16-bit buffer as float */
#include "train.h" /* cm_to_bf16: the harness's own rounding to bf16 */

typedef uint16_t bf16;

static float from_bf16(const bf16 *v, long long i) { return cm_ps_to_float(CM_PS_BF16, v, i); }

typedef struct {
    long long n;
    bf16 *x, *y, *dx;    /* device */
    unsigned char *mask; /* device */
    bf16 *hy, *hdx;      /* host */
    unsigned char *hmask, *hmask2;
} buffers;

/* i: the element that broke it, or -1 for a property of the whole mask */
static int fail(const char *what, double p, long long i)
{
    if (i >= 0)
        fprintf(stderr, "cnnperf-measure: bf16 dropout at p %.2f: %s (element %lld)\n", p, what, i);
    else
        fprintf(stderr, "cnnperf-measure: bf16 dropout at p %.2f: %s\n", p, what);
    return CM_EXIT_RUNTIME;
}

/* One probability: forward twice with the same seed and once with another, backward of ones. */
static int check_p(const cm_kernels *k, buffers *b, double p)
{
    const unsigned long long seed = 1234, other = 1235;
    long long n = b->n;
    cm_dropout_bf16_forward(k, b->x, b->y, b->mask, n, p, seed, 0);
    cm_dropout_bf16_backward(k, b->x, b->mask, b->dx, n, p, 0); /* dy = x = ones */
    cudaCheck(cudaMemcpy(b->hy, b->y, (size_t)n * sizeof(bf16), cudaMemcpyDeviceToHost));
    cudaCheck(cudaMemcpy(b->hdx, b->dx, (size_t)n * sizeof(bf16), cudaMemcpyDeviceToHost));
    cudaCheck(cudaMemcpy(b->hmask, b->mask, (size_t)n, cudaMemcpyDeviceToHost));
    cm_dropout_bf16_forward(k, b->x, b->y, b->mask, n, p, seed, 0);
    cudaCheck(cudaMemcpy(b->hmask2, b->mask, (size_t)n, cudaMemcpyDeviceToHost));
    if (memcmp(b->hmask, b->hmask2, (size_t)n) != 0)
        return fail("the same seed drew another mask", p, -1);
    cm_dropout_bf16_forward(k, b->x, b->y, b->mask, n, p, other, 0);
    cudaCheck(cudaMemcpy(b->hmask2, b->mask, (size_t)n, cudaMemcpyDeviceToHost));
    bf16 kept_bits = cm_to_bf16((float)(1.0 / (1.0 - p)));
    float kept_value = from_bf16(&kept_bits, 0);
    long long kept = 0, differ = 0;
    for (long long i = 0; i < n; i++) {
        if (b->hmask[i] > 1)
            return fail("a mask byte is neither 0 nor 1", p, i);
        float want = b->hmask[i] ? kept_value : 0.0f;
        if (from_bf16(b->hy, i) != want)
            return fail("y is not x m / (1 - p)", p, i);
        if (from_bf16(b->hdx, i) != want)
            return fail("dx is not dy m / (1 - p) with the forward's mask", p, i);
        kept += b->hmask[i];
        differ += b->hmask[i] != b->hmask2[i];
    }
    double share = (double)kept / n, sd = sqrt(p * (1.0 - p) / n), expect_differ = 2.0 * p * (1.0 - p);
    fprintf(stderr, "cnnperf-measure: bf16 dropout at p %.2f: kept %.5f of %lld (1 - p = %.5f), kept value %g, "
                    "%.4f differ under another seed (independent draws: %.4f)\n",
            p, share, n, 1.0 - p, kept_value, (double)differ / n, expect_differ);
    if (fabs(share - (1.0 - p)) > 6.0 * sd)
        return fail("the share kept is more than 6 standard deviations from 1 - p", p, -1);
    if (fabs((double)differ / n - expect_differ) > 0.01)
        return fail("another seed's mask is not an independent draw", p, -1);
    return 0;
}

int cm_check_dropout(void)
{
    if (cm_gpu_count("") == 0)
        return CM_EXIT_SKIP;
    cm_where = "the dropout check";
    cudaCheck(cudaSetDevice(0));
    cm_kernels k;
    cm_kernels_load(&k);
    buffers b = {.n = 1 << 22};
    size_t bytes = (size_t)b.n * sizeof(bf16);
    cudaCheck(cudaMalloc((void **)&b.x, bytes));
    cudaCheck(cudaMalloc((void **)&b.y, bytes));
    cudaCheck(cudaMalloc((void **)&b.dx, bytes));
    cudaCheck(cudaMalloc((void **)&b.mask, (size_t)b.n));
    b.hy = cm_xcalloc((size_t)b.n, sizeof(bf16));
    b.hdx = cm_xcalloc((size_t)b.n, sizeof(bf16));
    b.hmask = cm_xcalloc((size_t)b.n, 1);
    b.hmask2 = cm_xcalloc((size_t)b.n, 1);
    for (long long i = 0; i < b.n; i++)
        b.hy[i] = cm_to_bf16(1.0f);
    cudaCheck(cudaMemcpy(b.x, b.hy, bytes, cudaMemcpyHostToDevice));
    static const double ps[] = {0.5, 0.1, 0.0};
    int rc = 0;
    for (size_t i = 0; i < sizeof ps / sizeof ps[0] && !rc; i++)
        rc = check_p(&k, &b, ps[i]);
    cudaCheck(cudaFree(b.x));
    cudaCheck(cudaFree(b.y));
    cudaCheck(cudaFree(b.dx));
    cudaCheck(cudaFree(b.mask));
    free(b.hy);
    free(b.hdx);
    free(b.hmask);
    free(b.hmask2);
    if (!rc)
        fprintf(stderr, "cnnperf-measure: bf16 dropout kernels: ok\n");
    return rc;
}
