/* cnnperf-bench: the speed and plausibility figures quoted in README.md.
 *
 *   1. predicting one ResNet-50 iteration (all layers, all passes) once the
 *      network and device are loaded: median of many runs, in microseconds;
 *   2. `cnnperf predict` end to end (process start, parsing, output), when
 *      the path of the cnnperf binary is given as the first argument;
 *   3. how many convolution layers, over all shipped networks, devices and
 *      precisions at batch 32 and 64, have a backward time outside 1x...3x
 *      of their forward time;
 *   4. a sweep of 100,000 multi-GPU configurations of ResNet-50 (GPU counts,
 *      batch sizes, precisions, exchange modes), on one core;
 *   5. predicting a 1,024-GPU cluster against a 2-GPU one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/distributed.h"
#include "util/resources.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    cp_error err;
    cp_network net;
    cp_device dev;
    if (cp_network_load("resnet50", &net, &err) || cp_device_load("h100", &dev, &err)) {
        fprintf(stderr, "cnnperf-bench: %s\n", err.msg);
        return 2;
    }
    enum { RUNS = 200 };
    double t[RUNS], fresh[RUNS];
    cp_prediction p = {0};
    /* the program's default algorithm set (cuDNN's graph API, PyTorch's path);
     * one prediction reusing its buffers, as a sweep does, back to back... */
    for (int i = 0; i < RUNS; i++) {
        double t0 = now_us();
        int rc = cp_predict_with(&net, &dev, 64, CP_PREC_FP32, CP_ALGOS_PYTORCH, &p, &err);
        t[i] = now_us() - t0;
        if (rc) {
            fprintf(stderr, "cnnperf-bench: %s\n", err.msg);
            return 2;
        }
    }
    /* ...and a fresh prediction each time, as a single `cnnperf predict` does */
    for (int i = 0; i < RUNS; i++) {
        cp_prediction q = {0};
        double t0 = now_us();
        int rc = cp_predict_with(&net, &dev, 64, CP_PREC_FP32, CP_ALGOS_PYTORCH, &q, &err);
        fresh[i] = now_us() - t0;
        cp_prediction_free(&q);
        if (rc) {
            fprintf(stderr, "cnnperf-bench: %s\n", err.msg);
            return 2;
        }
    }
    cp_prediction_free(&p);
    printf("predict resnet50 on h100 (batch 64, fp32, graph API: the program's default), network loaded: median "
           "%.1f us reusing buffers, "
           "%.1f us with fresh allocations, over %d runs (target < 100 us)\n",
           median(t, RUNS), median(fresh, RUNS), RUNS);
    cp_network_free(&net);

    if (argc > 1) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "%s predict > /dev/null", argv[1]);
        enum { E2E = 30 };
        double e[E2E];
        for (int i = 0; i < E2E; i++) {
            double t0 = now_us();
            if (system(cmd) != 0) {
                fprintf(stderr, "cnnperf-bench: '%s' failed\n", cmd);
                return 1;
            }
            e[i] = now_us() - t0;
        }
        printf("cnnperf predict end to end (via system(), shell start included): median %.2f ms over %d runs (target < 20 ms)\n",
               median(e, E2E) / 1e3, E2E);
    }

    /* A 100,000-configuration sweep. */
    {
        cp_network r50;
        cp_device h100;
        cp_cluster cl;
        if (cp_network_load("resnet50", &r50, &err) || cp_device_load("h100", &h100, &err) ||
            cp_cluster_homogeneous(&cl, &h100, 1024, &err)) {
            fprintf(stderr, "cnnperf-bench: %s\n", err.msg);
            return 2;
        }
        cp_single_cache cache = {0};
        cp_dist_prediction dp = {0};
        cp_dist_config cfg = {.gpus = 1, .batch = 64, .prec = CP_PREC_FP32, .comm = CP_COMM_NCCL,
                              .algo = CP_AR_AUTO, .ps = {.servers = 1}, .overlap = 1, .bucket_mb = 25};
        long configs = 0;
        double t0 = now_us();
        /* in the order `cnnperf sweep` visits a grid */
        for (int pr = 0; pr < 4; pr++)
            for (int b = 1; b <= 50; b++)
                for (int c = 0; c < 2; c++)
                    for (int g = 1; g <= 250; g++) {
                        cfg.gpus = g;
                        cfg.batch = 8 * b;
                        cfg.comm = c ? CP_COMM_PS : CP_COMM_NCCL;
                        cfg.prec = (cp_precision)pr;
                        if (cp_predict_distributed(&r50, &cl, &cfg, &cache, &dp, &err)) {
                            fprintf(stderr, "cnnperf-bench: %s\n", err.msg);
                            return 2;
                        }
                        configs++;
                    }
        double sweep_s = (now_us() - t0) / 1e6;
        printf("sweep of %ld ResNet-50 configurations (1..250 H100s x 50 batch sizes x nccl/ps x 4 precisions): %.2f s "
               "(target < 10 s)\n",
               configs, sweep_s);
        /* one GPU count against another, single predictions already cached */
        double t2[RUNS], t1024[RUNS];
        cfg.batch = 64;
        cfg.prec = CP_PREC_FP32;
        cfg.comm = CP_COMM_NCCL;
        for (int i = 0; i < RUNS; i++) {
            cfg.gpus = 2;
            double a = now_us();
            cp_predict_distributed(&r50, &cl, &cfg, &cache, &dp, &err);
            t2[i] = now_us() - a;
            cfg.gpus = 1024;
            a = now_us();
            cp_predict_distributed(&r50, &cl, &cfg, &cache, &dp, &err);
            t1024[i] = now_us() - a;
        }
        printf("multi-GPU prediction (ResNet-50, NCCL, single-GPU part cached): 2 GPUs %.1f us, 1,024 GPUs %.1f us\n",
               median(t2, RUNS), median(t1024, RUNS));
        cp_dist_prediction_free(&dp);
        cp_single_cache_free(&cache);
        cp_network_free(&r50);
    }

    /* Conv backward / forward ratios. */
    static const char *const devices[] = {"h100", "h200", "a100", "v100", "gtx1080", "gtx1080ti"};
    long total = 0, low = 0, high = 0;
    double worst = 0;
    char worst_at[256] = "";
    for (size_t r = 0; r < cp_resource_count; r++) {
        if (strcmp(cp_resources[r].dir, "networks") != 0 || cp_network_load(cp_resources[r].name, &net, &err))
            continue;
        for (size_t d = 0; d < sizeof devices / sizeof devices[0]; d++) {
            if (cp_device_load(devices[d], &dev, &err))
                continue;
            for (int pr = 0; pr < CP_PREC_COUNT; pr++) {
                if (!cp_device_supports(&dev, (cp_precision)pr))
                    continue;
                for (int batch = 32; batch <= 64; batch *= 2) {
                    if (cp_predict(&net, &dev, batch, (cp_precision)pr, &p, &err))
                        continue;
                    for (int i = 0; i < net.n_layers; i++) {
                        if (strcmp(net.layers[i].kind->name, "conv") != 0)
                            continue;
                        const cp_layer_pred *lp = &p.layers[i];
                        if (!net.layers[i].needs_input_grad)
                            continue; /* the first layer has no data gradient: one GEMM each way */
                        double ratio = (lp->ms[CP_PASS_BWD_DATA] + lp->ms[CP_PASS_BWD_WEIGHT]) / lp->ms[CP_PASS_FWD];
                        total++;
                        low += ratio < 1;
                        high += ratio > 3;
                        double off = ratio < 1 ? 1 / ratio : ratio / 3;
                        if (off > worst) {
                            worst = off;
                            snprintf(worst_at, sizeof worst_at, "%s %s %s b%d %s: %.2fx", net.name, dev.id,
                                     cp_precision_name((cp_precision)pr), batch, net.layers[i].name, ratio);
                        }
                    }
                }
            }
        }
        cp_network_free(&net);
    }
    cp_prediction_free(&p);
    printf("conv backward/forward (layers with both gradients): %ld of %ld predictions outside 1x..3x (%ld below 1x, %ld above 3x); "
           "furthest: %s\n",
           low + high, total, low, high, worst_at);
    return 0;
}
