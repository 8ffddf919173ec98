/* cnnperf: predict how long one training iteration of a CNN takes on a GPU,
 * which layers dominate, and why.
 *
 * Exit status: 0 success, 2 bad input or usage (one line on stderr naming
 * the file and JSON path), 1 an internal or output error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/predict.h"
#include "../util/atomic_file.h"
#include "../util/resources.h"
#include "commands.h"
#include "report.h"

#define EXIT_BAD_INPUT 2

static const char usage[] =
    "usage: cnnperf <command> [options]\n"
    "\n"
    "commands:\n"
    "  predict   per-layer and iteration time of one training iteration on one GPU\n"
    "  layers    shapes, parameters and FLOPs of every layer of a network\n"
    "  kernel    block-size advisor: time of a CUDA kernel for every block size\n"
    "  networks  list the built-in networks\n"
    "  devices   list the built-in device profiles\n"
    "\n"
    "predict / layers options:\n"
    "  --network NAME|FILE     built-in network or a cnnperf-network/1 JSON file (default resnet50)\n"
    "  --device ID|FILE        built-in device or a cnnperf-device/1 JSON file (default h100)\n"
    "  --batch N               images per iteration (default 64; layers: 1)\n"
    "  --precision P           fp32, tf32, fp16 or bf16 (default fp32)\n"
    "  --format F              table, json or csv (default table)\n"
    "  --explain               print the task tree with every kernel's queue-model terms\n"
    "  --layer NAME            with --explain: only this layer's passes\n"
    "  -o, --output FILE       write the result to FILE (atomically) instead of standard output\n";

typedef struct {
    const char *network, *device, *precision, *format, *layer, *output;
    int batch;
    int explain;
} options;

static int bad(const char *fmt, const char *a)
{
    fprintf(stderr, "cnnperf: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return EXIT_BAD_INPUT;
}

static int parse_batch(const char *s, int *out)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > 1 << 20)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "--network") == 0)
            slot = &o->network;
        else if (strcmp(a, "--device") == 0)
            slot = &o->device;
        else if (strcmp(a, "--precision") == 0)
            slot = &o->precision;
        else if (strcmp(a, "--format") == 0)
            slot = &o->format;
        else if (strcmp(a, "--layer") == 0)
            slot = &o->layer;
        else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)
            slot = &o->output;
        else if (strcmp(a, "--explain") == 0) {
            o->explain = 1;
            continue;
        } else if (strcmp(a, "--batch") == 0) {
            if (i + 1 >= argc)
                return bad("--batch needs a value", NULL);
            if (parse_batch(argv[++i], &o->batch))
                return bad("--batch: expected a positive integer, got '%s'", argv[i]);
            continue;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            exit(0);
        } else {
            return bad("unknown option '%s' (see cnnperf --help)", a);
        }
        if (i + 1 >= argc)
            return bad("%s needs a value", a);
        *slot = argv[++i];
    }
    return 0;
}

static int finish(cp_atomic_file *out, int write_failed)
{
    cp_error err;
    if (write_failed) {
        cp_atomic_abort(out);
        fprintf(stderr, "cnnperf: write error on output\n");
        return 1;
    }
    if (cp_atomic_commit(out, &err)) {
        fprintf(stderr, "cnnperf: %s\n", err.msg);
        return 1;
    }
    return 0;
}

static int cmd_predict(int argc, char **argv)
{
    options o = {"resnet50", "h100", "fp32", "table", NULL, NULL, 64, 0};
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc;
    cp_precision prec;
    cp_format fmt;
    if (cp_precision_parse(o.precision, &prec))
        return bad("--precision: expected fp32, tf32, fp16 or bf16, got '%s'", o.precision);
    if (cp_format_parse(o.format, &fmt))
        return bad("--format: expected table, json or csv, got '%s'", o.format);
    if (o.layer && !o.explain)
        return bad("--layer %s only makes sense with --explain", o.layer);

    cp_error err;
    cp_device dev;
    cp_network net;
    if (cp_device_load(o.device, &dev, &err))
        return bad("%s", err.msg);
    if (cp_network_load(o.network, &net, &err))
        return bad("%s", err.msg);
    if (o.layer && cp_network_find(&net, o.layer) < 0) {
        cp_network_free(&net);
        return bad("--layer: no layer named '%s' (see cnnperf layers)", o.layer);
    }
    cp_prediction p = {0};
    if (cp_predict(&net, &dev, o.batch, prec, &p, &err)) {
        cp_prediction_free(&p);
        cp_network_free(&net);
        return bad("%s", err.msg);
    }
    cp_atomic_file out;
    if (cp_atomic_open(&out, o.output, &err)) {
        cp_prediction_free(&p);
        cp_network_free(&net);
        return bad("%s", err.msg);
    }
    int failed = o.explain ? cp_report_explain(out.f, &p, o.layer) : cp_report_prediction(out.f, &p, fmt);
    cp_prediction_free(&p);
    cp_network_free(&net);
    return finish(&out, failed);
}

static int cmd_layers(int argc, char **argv)
{
    options o = {"resnet50", "h100", "fp32", "table", NULL, NULL, 1, 0};
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc;
    cp_format fmt;
    if (cp_format_parse(o.format, &fmt))
        return bad("--format: expected table, json or csv, got '%s'", o.format);
    cp_error err;
    cp_network net;
    if (cp_network_load(o.network, &net, &err))
        return bad("%s", err.msg);
    cp_atomic_file out;
    if (cp_atomic_open(&out, o.output, &err)) {
        cp_network_free(&net);
        return bad("%s", err.msg);
    }
    int failed = cp_report_layers(out.f, &net, o.batch, fmt);
    cp_network_free(&net);
    return finish(&out, failed);
}

static int cmd_list(const char *dir)
{
    cp_error err;
    for (size_t i = 0; i < cp_resource_count; i++) {
        const cp_resource *r = &cp_resources[i];
        if (strcmp(r->dir, dir) != 0)
            continue;
        if (dir[0] == 'n') {
            cp_network n;
            if (cp_network_parse(r->text, r->len, r->name, &n, &err) == 0) {
                printf("%-16s %4d layers %12lld params  %s\n", r->name, n.n_layers, n.params, n.source);
                cp_network_free(&n);
            }
        } else {
            cp_device d;
            if (cp_device_parse(r->text, r->len, r->name, &d, &err) == 0)
                printf("%-12s %-32s %4d SMs  %7.1f TFLOP/s fp32  %7.1f fp16 tensor  %6.0f GB/s\n", r->name, d.name,
                       d.sm_count, d.fp32_tflops, d.tensor_tflops[CP_PREC_FP16], d.dram_bandwidth_gbs);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return cmd_predict(1, argv); /* the embedded default: ResNet-50 on H100 */
    const char *cmd = argv[1];
    if (strcmp(cmd, "predict") == 0)
        return cmd_predict(argc - 1, argv + 1);
    if (strcmp(cmd, "layers") == 0)
        return cmd_layers(argc - 1, argv + 1);
    if (strcmp(cmd, "kernel") == 0)
        return cp_cmd_kernel(argc - 1, argv + 1);
    if (strcmp(cmd, "networks") == 0)
        return cmd_list("networks");
    if (strcmp(cmd, "devices") == 0)
        return cmd_list("devices");
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("cnnperf 0.1.0\n");
        return 0;
    }
    return bad("unknown command '%s' (see cnnperf --help)", cmd);
}
