/* cnnperf-measure: run real training iterations of a cnnperf network on the
 * GPU (cuDNN, cuBLAS) and write their times in the schema cnnperf predict
 * writes (cnnperf-result/1), so the two can be compared field by field.
 *
 * Exit status: 0 success, 1 a CUDA/cuDNN/cuBLAS failure or an output error,
 * 2 bad input or usage (one line on stderr, as cnnperf), 77 no GPU here
 * (one line "cnnperf-measure: skipped: no GPU (...)"; CTest counts it as
 * skipped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/atomic_file.h"
#include "gpu_layers.h"
#include "provenance.h"

static const char usage[] =
    "usage: cnnperf-measure [options]\n"
    "\n"
    "Runs training iterations of a network on GPU 0 and reports their times in the JSON schema of\n"
    "`cnnperf predict --format json` (cnnperf-result/1), with provenance.\n"
    "\n"
    "  --network NAME|FILE   built-in network or a cnnperf-network/1 JSON file (default resnet50)\n"
    "  --batch N             images per iteration (default 64)\n"
    "  --precision P         fp32 (FP32 arithmetic), tf32, fp16 or bf16 (tensor cores, fp32 accumulation;\n"
    "                        default fp32)\n"
    "  --warmup N            untimed iterations first (default 5)\n"
    "  --iters N             timed iterations (default 20)\n"
    "  --workspace-mb N      cuDNN convolution workspace limit in MiB (default 1024)\n"
    "  --check-loss N        train N iterations on one fixed batch, print the loss of each to stderr;\n"
    "                        exit 0 only if the last loss is lower than the first\n"
    "  -o, --output FILE     write the result to FILE (atomically) instead of standard output\n"
    "  -h, --help            this text\n"
    "\n"
    "Exit status: 0 success, 1 GPU or output error, 2 bad input, 77 no GPU (skipped).\n";

typedef struct {
    const char *network, *precision, *output;
    int batch, warmup, iters, workspace_mb, check_loss;
} options;

static int bad(const char *fmt, const char *a)
{
    fprintf(stderr, "cnnperf-measure: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return CM_EXIT_BAD_INPUT;
}

static int parse_int(const char *s, long min, long max, int *out)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < min || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **text = NULL;
        int *num = NULL;
        long min = 1, max = 1 << 20;
        const char *what = "a positive integer";
        if (strcmp(a, "--network") == 0)
            text = &o->network;
        else if (strcmp(a, "--precision") == 0)
            text = &o->precision;
        else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)
            text = &o->output;
        else if (strcmp(a, "--batch") == 0)
            num = &o->batch;
        else if (strcmp(a, "--iters") == 0)
            num = &o->iters;
        else if (strcmp(a, "--warmup") == 0)
            num = &o->warmup, min = 0, what = "a non-negative integer";
        else if (strcmp(a, "--workspace-mb") == 0)
            num = &o->workspace_mb, min = 0, max = 1 << 24, what = "a non-negative integer";
        else if (strcmp(a, "--check-loss") == 0)
            num = &o->check_loss, min = 2, what = "an integer of at least 2";
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            exit(0);
        } else
            return bad("unknown option '%s' (see cnnperf-measure --help)", a);
        if (i + 1 >= argc)
            return bad("%s needs a value", a);
        const char *v = argv[++i];
        if (text) {
            *text = v;
        } else if (parse_int(v, min, max, num)) {
            fprintf(stderr, "cnnperf-measure: %s: expected %s, got '%s'\n", a, what, v);
            return CM_EXIT_BAD_INPUT;
        }
    }
    return 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile q of v[0..n) with linear interpolation (v is reordered). */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double pos = q * (n - 1);
    int lo = (int)pos;
    if (lo >= n - 1)
        return v[n - 1];
    return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

static int check_loss(cm_net *n, int iterations)
{
    double *layer_ms = cm_xcalloc((size_t)n->n * CP_PASS_COUNT, sizeof *layer_ms);
    double phase_ms[CM_PHASE_COUNT], it_ms, first = 0, last = 0;
    for (int i = 1; i <= iterations; i++) {
        cm_iteration(n);
        cm_collect(n, &it_ms, phase_ms, layer_ms);
        last = cm_loss(n);
        if (i == 1)
            first = last;
        fprintf(stderr, "cnnperf-measure: iteration %d: loss %.6f (%.3f ms)\n", i, last, it_ms);
    }
    free(layer_ms);
    if (isfinite(first) && isfinite(last) && last < first) {
        fprintf(stderr, "cnnperf-measure: loss fell from %.6f to %.6f in %d iterations\n", first, last, iterations);
        return 0;
    }
    fprintf(stderr, "cnnperf-measure: loss did not fall: %.6f after 1 iteration, %.6f after %d\n", first, last,
            iterations);
    return CM_EXIT_RUNTIME;
}

/* What the predictor counts (model/predict.c): every pass's useful FLOPs,
 * backward-data only where the input needs a gradient. */
static double pass_flops(const cp_layer *l, int pass, int batch)
{
    if (pass == CP_PASS_BWD_DATA && !l->needs_input_grad)
        return 0;
    return l->kind->flops(l, (cp_pass)pass, batch);
}

static cJSON *result_json(const cm_net *n, const options *o, const cm_run_info *run, double *iter, double *phases,
                          double *layers)
{
    const cm_gpu *g = n->gpu;
    int T = o->iters, N = n->n;
    double *tmp = cm_xcalloc((size_t)T, sizeof *tmp);
    char id[256];
    cm_device_id(g->name, id, sizeof id);
    double it_med = quantile(iter, T, 0.5), it_p10 = quantile(iter, T, 0.1), it_p90 = quantile(iter, T, 0.9);

    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "cnnperf-result/1");
    cJSON_AddStringToObject(root, "source", "measurement");
    cJSON_AddStringToObject(root, "network", n->net->name);
    cJSON_AddStringToObject(root, "device", id);
    cJSON_AddStringToObject(root, "device_name", g->name);
    cJSON_AddNumberToObject(root, "batch", g->batch);
    cJSON_AddStringToObject(root, "precision", cp_precision_name(g->prec));
    cJSON_AddNumberToObject(root, "gpus", 1);
    cJSON_AddNumberToObject(root, "iteration_ms", it_med);
    cJSON_AddNumberToObject(root, "iteration_p10_ms", it_p10);
    cJSON_AddNumberToObject(root, "iteration_p90_ms", it_p90);
    cJSON_AddNumberToObject(root, "images_per_s", g->batch / (it_med * 1e-3));

    static const char *const phase_keys[CM_PHASE_COUNT] = {"loading_ms", "forward_ms", "backward_ms", "update_ms"};
    cJSON *ph = cJSON_CreateObject();
    for (int p = 0; p < CM_PHASE_COUNT; p++) {
        for (int t = 0; t < T; t++)
            tmp[t] = phases[t * CM_PHASE_COUNT + p];
        cJSON_AddNumberToObject(ph, phase_keys[p], quantile(tmp, T, 0.5));
    }

    static const char *const pass_keys[CP_PASS_COUNT] = {"forward_ms", "backward_data_ms", "backward_weight_ms",
                                                         "update_ms"};
    cJSON *arr = cJSON_CreateArray();
    double total_flops = 0;
    for (int i = 0; i < N; i++) {
        const cp_layer *l = n->layers[i].l;
        cJSON *lo = cJSON_CreateObject();
        char shape[64];
        snprintf(shape, sizeof shape, "%dx%dx%d", l->out.c, l->out.h, l->out.w);
        cJSON_AddStringToObject(lo, "name", l->name);
        cJSON_AddStringToObject(lo, "kind", l->kind->name);
        cJSON_AddStringToObject(lo, "output", shape);
        double flops = 0;
        for (int p = 0; p < CP_PASS_COUNT; p++) {
            for (int t = 0; t < T; t++)
                tmp[t] = layers[((size_t)t * N + i) * CP_PASS_COUNT + p];
            cJSON_AddNumberToObject(lo, pass_keys[p], quantile(tmp, T, 0.5));
            flops += pass_flops(l, p, g->batch);
        }
        total_flops += flops;
        /* A measurement has no DRAM byte count, bound or roofline of its own. */
        cJSON_AddNumberToObject(lo, "flops", flops);
        cJSON_AddNumberToObject(lo, "bytes", 0);
        cJSON_AddNumberToObject(lo, "arithmetic_intensity", 0);
        cJSON_AddStringToObject(lo, "bound", "-");
        cJSON_AddNumberToObject(lo, "roofline_ms", 0);
        cJSON_AddItemToArray(arr, lo);
    }
    cJSON_AddNumberToObject(root, "flops", total_flops);
    cJSON_AddItemToObject(root, "phases", ph);
    cJSON_AddItemToObject(root, "layers", arr);
    cJSON_AddItemToObject(root, "provenance", cm_provenance(n, run));
    free(tmp);
    return root;
}

static int write_result(cJSON *root, const char *path)
{
    cp_error err;
    cp_atomic_file out;
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text) {
        fprintf(stderr, "cnnperf-measure: out of memory writing the result\n");
        return CM_EXIT_RUNTIME;
    }
    if (cp_atomic_open(&out, path, &err)) {
        free(text);
        fprintf(stderr, "cnnperf-measure: %s\n", err.msg);
        return CM_EXIT_RUNTIME;
    }
    fputs(text, out.f);
    fputc('\n', out.f);
    free(text);
    if (ferror(out.f)) {
        cp_atomic_abort(&out);
        fprintf(stderr, "cnnperf-measure: write error on %s\n", path ? path : "standard output");
        return CM_EXIT_RUNTIME;
    }
    if (cp_atomic_commit(&out, &err)) {
        fprintf(stderr, "cnnperf-measure: %s\n", err.msg);
        return CM_EXIT_RUNTIME;
    }
    return 0;
}

int main(int argc, char **argv)
{
    options o = {"resnet50", "fp32", NULL, 64, 5, 20, 1024, 0};
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc;
    cp_precision prec;
    if (cp_precision_parse(o.precision, &prec))
        return bad("--precision: expected fp32, tf32, fp16 or bf16, got '%s'", o.precision);
    cp_error err;
    cp_network net;
    if (cp_network_load(o.network, &net, &err))
        return bad("%s", err.msg);
    for (int i = 0; i < net.n_layers; i++)
        if (!cm_kind_find(net.layers[i].kind->name)) {
            fprintf(stderr, "cnnperf-measure: %s: layer '%s': kind '%s' is not implemented by cnnperf-measure\n",
                    net.file, net.layers[i].name, net.layers[i].kind->name);
            cp_network_free(&net);
            return CM_EXIT_BAD_INPUT;
        }
    if (o.check_loss && strcmp(net.layers[net.n_layers - 1].kind->name, "softmax") != 0) {
        rc = bad("--check-loss needs a network that ends in a softmax layer (the loss); %s does not", net.file);
        cp_network_free(&net);
        return rc;
    }

    /* No GPU is not a failure: tests that need one are skipped. */
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        fprintf(stderr, "cnnperf-measure: skipped: no GPU (%s)\n",
                cudaGetErrorString(e != cudaSuccess ? e : cudaErrorNoDevice));
        cp_network_free(&net);
        return CM_EXIT_SKIP;
    }

    cm_batch = o.batch;
    cm_gpu g;
    cm_gpu_init(&g, 0, prec, o.batch, (size_t)o.workspace_mb << 20);
    fprintf(stderr, "cnnperf-measure: %s, batch %d, %s on %s (sm_%d%d, %d SMs, %.0f GiB)\n", net.name, o.batch,
            cp_precision_name(prec), g.name, g.cc_major, g.cc_minor, g.sm_count, g.memory_gb);
    double t0 = now_s();
    cm_net n;
    cm_net_build(&n, &g, &net);
    cm_run_info run = {argc, argv, o.warmup, o.iters, o.workspace_mb, now_s() - t0};
    fprintf(stderr, "cnnperf-measure: set up %d layers in %.1f s (convolution workspace %.1f MiB)\n", n.n, run.setup_s,
            (double)g.workspace_size / 1048576.0);

    if (o.check_loss)
        return check_loss(&n, o.check_loss);

    int T = o.iters, N = n.n;
    double *iter = cm_xcalloc((size_t)T, sizeof *iter);
    double *phases = cm_xcalloc((size_t)T * CM_PHASE_COUNT, sizeof *phases);
    double *layers = cm_xcalloc((size_t)T * N * CP_PASS_COUNT, sizeof *layers);
    double *scratch = cm_xcalloc((size_t)N * CP_PASS_COUNT, sizeof *scratch);
    double scratch_phase[CM_PHASE_COUNT], scratch_it;
    for (int i = 0; i < o.warmup; i++) {
        cm_iteration(&n);
        cm_collect(&n, &scratch_it, scratch_phase, scratch);
    }
    for (int t = 0; t < T; t++) {
        cm_iteration(&n);
        cm_collect(&n, &iter[t], &phases[t * CM_PHASE_COUNT], &layers[(size_t)t * N * CP_PASS_COUNT]);
    }
    free(scratch);
    cJSON *root = result_json(&n, &o, &run, iter, phases, layers);
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, "iteration_ms");
    const cJSON *p10 = cJSON_GetObjectItemCaseSensitive(root, "iteration_p10_ms");
    const cJSON *p90 = cJSON_GetObjectItemCaseSensitive(root, "iteration_p90_ms");
    fprintf(stderr,
            "cnnperf-measure: %d warm-up + %d timed iterations: %.3f ms median (p10 %.3f, p90 %.3f), %.1f images/s\n",
            o.warmup, T, it->valuedouble, p10->valuedouble, p90->valuedouble, o.batch / (it->valuedouble * 1e-3));
    free(iter);
    free(phases);
    free(layers);
    rc = write_result(root, o.output);
    cp_network_free(&net);
    return rc;
}
