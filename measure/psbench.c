/* cnnperf-psbench: the parameter server's sum and SGD (measure/ps.c, the
 * loop cnnperf-measure's server ranks run) timed on this host's CPUs, for
 * each gradient type, as a streaming rate the PS model takes
 * (comm/ps.c: a cluster's host.ps_server_gbs).
 *
 *   cnnperf-psbench [--workers W] [--params N] [--threads T] [--beside B] [-o FILE]
 *
 * W gradient copies (default 2) of N parameters (default 2^26) on T threads
 * (default: the cores this process may use less W, what a server rank beside
 * W workers gets), the fastest of 5 passes after one untimed. The rate
 * counts the bytes the pass moves per parameter: W gradients read, the fp32
 * parameters and their momentum read and written. --beside B runs B more
 * threads meanwhile, each copying 64 MiB buffers over and over, as B worker
 * processes copy their gradients into MPI's shared memory while a server
 * sums (the pass shares the host's memory with them). CPU only: no GPU, no
 * MPI launch. Writes JSON (format cnnperf-psbench/1) to FILE atomically, or
 * to stdout. Then the same pass on one thread over CP_PS_SERIAL_ELEMS / 2
 * parameters, as the server sums a small chunk (comm/ps_server.h), each
 * pass after a 64 MiB write as in a job (the --beside copies still
 * running); the median of 15 (serial_server_gbs; the model takes it for
 * such chunks). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../comm/ps_server.h"
#include "ps.h"
#include "toolio.h"

#define COPY_BYTES (64u << 20)

static atomic_int copying = 1;

/* A worker's copies into shared memory, until told to stop. */
static void *copy_loop(void *arg)
{
    (void)arg;
    char *a = malloc(COPY_BYTES), *b = malloc(COPY_BYTES);
    if (a && b) {
        memset(a, 1, COPY_BYTES);
        while (atomic_load_explicit(&copying, memory_order_relaxed))
            memcpy(b, a, COPY_BYTES);
    }
    free(a);
    free(b);
    return NULL;
}

/* GB/s of the bytes a pass moves per parameter: the gradient copies read,
 * the fp32 parameters and momentum read and written */
static double pass_gbs(long long workers, cm_ps_type t, double ns_per_param)
{
    return ((double)workers * (double)cm_ps_type_size(t) + 16.0) / ns_per_param;
}

static int usage(const char *why)
{
    fprintf(stderr,
            "cnnperf-psbench: %s\nusage: cnnperf-psbench [--workers W] [--params N] [--threads T] [--beside B] "
            "[-o FILE]\n",
            why);
    return 2;
}

int main(int argc, char **argv)
{
    long long workers = 2, params = 1LL << 26, threads = 0, beside = 0;
    const char *out = NULL;
    for (int i = 1; i < argc; i += 2) { /* every option takes a value */
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return usage("the parameter server's sum and SGD, timed"), 0;
        if (!v)
            return usage("an option without its value");
        if (strcmp(a, "--workers") == 0 ? cm_arg_ll(v, 1, 64, &workers)
            : strcmp(a, "--params") == 0 ? cm_arg_ll(v, 1 << 16, 1LL << 30, &params)
            : strcmp(a, "--threads") == 0 ? cm_arg_ll(v, 1, 4096, &threads)
            : strcmp(a, "--beside") == 0  ? cm_arg_ll(v, 0, 64, &beside)
            : strcmp(a, "-o") == 0 ? (out = v, 0)
                                   : -1)
            return usage("unknown option or value out of range");
    }
    int cores = 1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cores = CPU_COUNT(&set);
    if (threads == 0)
        threads = cores > workers ? cores - workers : 1;

    pthread_t copiers[64];
    int started = 0;
    for (int e; started < beside; started++)
        if ((e = pthread_create(&copiers[started], NULL, copy_loop, NULL)) != 0) { /* returns the error, no errno */
            fprintf(stderr, "cnnperf-psbench: cannot start copy thread %d: %s\n", started + 1, strerror(e));
            break;
        }
    static const char *const names[CM_PS_TYPE_COUNT] = {"fp32", "fp16", "bf16"};
    double ns[CM_PS_TYPE_COUNT], gbs[CM_PS_TYPE_COUNT];
    for (int t = 0; t < CM_PS_TYPE_COUNT; t++) {
        ns[t] = cm_ps_sum_sgd_ns((cm_ps_type)t, (int)workers, params, (int)threads, 5);
        gbs[t] = pass_gbs(workers, (cm_ps_type)t, ns[t]);
        fprintf(stderr,
                "cnnperf-psbench: %s gradients: %.3f ns per parameter, %.1f GB/s (%lld workers, %lld threads, "
                "%lld copying beside)\n",
                names[t], ns[t], gbs[t], workers, threads, beside);
    }

    const long long serial_n = CP_PS_SERIAL_ELEMS / 2;
    double sns[CM_PS_TYPE_COUNT], sgbs[CM_PS_TYPE_COUNT];
    for (int t = 0; t < CM_PS_TYPE_COUNT; t++) {
        sns[t] = cm_ps_sum_sgd_serial_ns((cm_ps_type)t, (int)workers, serial_n, 15);
        sgbs[t] = pass_gbs(workers, (cm_ps_type)t, sns[t]);
        fprintf(stderr, "cnnperf-psbench: %s gradients, %lld parameters on one thread: %.3f ns per parameter, %.1f GB/s\n",
                names[t], serial_n, sns[t], sgbs[t]);
    }

    atomic_store(&copying, 0);
    for (int i = 0; i < started; i++)
        pthread_join(copiers[i], NULL);
    if (started < beside)
        return 1;

    char tmp[4096];
    FILE *f = cm_json_open("cnnperf-psbench", "cnnperf-psbench/1", out, tmp, sizeof tmp, argc, argv);
    if (!f)
        return 1;
    fprintf(f,
            ", \"affinity_cores\": %d},\n"
            " \"workers\": %lld, \"params\": %lld, \"threads\": %lld, \"beside\": %lld, \"serial_params\": %lld,\n",
            cores, workers, params, threads, beside, serial_n);
    fprintf(f, " \"ns_per_param\": {\"fp32\": %.4f, \"fp16\": %.4f, \"bf16\": %.4f},\n", ns[0], ns[1], ns[2]);
    fprintf(f, " \"server_gbs\": {\"fp32\": %.2f, \"fp16\": %.2f, \"bf16\": %.2f},\n", gbs[0], gbs[1], gbs[2]);
    fprintf(f, " \"serial_ns_per_param\": {\"fp32\": %.4f, \"fp16\": %.4f, \"bf16\": %.4f},\n", sns[0], sns[1], sns[2]);
    fprintf(f, " \"serial_server_gbs\": {\"fp32\": %.2f, \"fp16\": %.2f, \"bf16\": %.2f}\n}\n", sgbs[0], sgbs[1],
            sgbs[2]);
    return cm_atomic_close("cnnperf-psbench", f, out, tmp);
}
