/* cnnperf: predict how long one training iteration of a CNN takes on a GPU
 * or a cluster, which layers dominate, and why.
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
#include "trace.h"

/* A prediction with its eager time line (NULL in harness mode). */
typedef struct {
    const cp_prediction *p;
    const cp_eager *e;
} predict_job;

static int put_prediction(FILE *f, const void *job, int fmt)
{
    const predict_job *j = job;
    return cp_report_prediction_mode(f, j->p, j->e, (cp_format)fmt);
}
static int put_trace(FILE *f, const void *job, int unused)
{
    (void)unused;
    const predict_job *j = job;
    return j->e ? cp_trace_eager(f, j->e) : cp_trace_single(f, j->p);
}
static const char *explain_layer;
static int put_explain(FILE *f, const void *p, int unused)
{
    (void)unused;
    return cp_report_explain(f, p, explain_layer);
}
typedef struct {
    const cp_network *net;
    int batch;
} layers_job;

static int put_layers(FILE *f, const void *job, int fmt)
{
    const layers_job *j = job;
    return cp_report_layers(f, j->net, j->batch, (cp_format)fmt);
}

static int cmd_predict(int argc, char **argv)
{
    cp_options o = {0};
    int rc = cp_options_parse(argc, argv, &o);
    if (rc)
        return rc;
    if (o.cluster || (o.gpus && strcmp(o.gpus, "1") != 0))
        return cp_cmd_predict_distributed(&o);
    cp_precision prec = CP_PREC_FP32;
    cp_format fmt = CP_FMT_TABLE;
    long batch = o.batch ? cp_parse_count(o.batch, 1 << 20) : 64;
    if (batch < 0)
        return cp_bad("--batch: expected a positive integer, got '%s'", o.batch);
    if (o.gpus && cp_parse_count(o.gpus, 1 << 20) < 0)
        return cp_bad("--gpus: expected a positive integer, got '%s'", o.gpus);
    if (o.precision && cp_precision_parse(o.precision, &prec))
        return cp_bad("--precision: expected fp32, tf32, fp16 or bf16, got '%s'", o.precision);
    if (o.format && cp_format_parse(o.format, &fmt))
        return cp_bad("--format: expected table, json or csv, got '%s'", o.format);
    if (o.layer && !o.explain)
        return cp_bad("--layer %s only makes sense with --explain", o.layer);
    cp_mode mode;
    cp_eager_costs costs;
    int have_costs;
    cp_algos algos;
    double workspace_mb;
    bool channels_last;
    if ((rc = cp_mode_option(&o, &mode, &costs, &have_costs, &algos, &workspace_mb, &channels_last)))
        return rc;

    cp_error err;
    cp_device dev;
    cp_network net;
    if (cp_device_load(o.device ? o.device : "h100", &dev, &err))
        return cp_bad("%s", err.msg);
    if (cp_network_load(o.network ? o.network : "resnet50", &net, &err))
        return cp_bad("%s", err.msg);
    net.channels_last = channels_last;
    if (o.layer && cp_network_find(&net, o.layer) < 0) {
        cp_network_free(&net);
        return cp_bad("--layer: no layer named '%s' (see cnnperf layers)", o.layer);
    }
    cp_prediction p = {0};
    cp_eager e = {.record = o.trace != NULL};
    predict_job job = {&p, mode == CP_MODE_EAGER ? &e : NULL};
    if (cp_predict_ws(&net, &dev, (int)batch, prec, algos, workspace_mb, &p, &err) ||
        (job.e && (cp_eager_run(&p, have_costs ? &costs : NULL, &e, &err) ||
                   cp_eager_range(&p, have_costs ? &costs : NULL, &e, &err)))) {
        rc = cp_bad("%s", err.msg);
    } else {
        explain_layer = o.layer;
        cp_report_memory_warning(&p, mode == CP_MODE_EAGER, 1, "predict");
        rc = o.explain ? cp_write_result(o.output, put_explain, &p, 0)
                       : cp_write_result(o.output, put_prediction, &job, fmt);
        if (!rc && o.trace)
            rc = cp_write_result(o.trace, put_trace, &job, 0);
    }
    cp_eager_free(&e);
    cp_prediction_free(&p);
    cp_network_free(&net);
    return rc;
}

static int cmd_layers(int argc, char **argv)
{
    cp_options o = {0};
    int rc = cp_options_parse(argc, argv, &o);
    if (rc)
        return rc;
    cp_format fmt = CP_FMT_TABLE;
    long batch = o.batch ? cp_parse_count(o.batch, 1 << 20) : 1;
    if (batch < 0)
        return cp_bad("--batch: expected a positive integer, got '%s'", o.batch);
    if (o.format && cp_format_parse(o.format, &fmt))
        return cp_bad("--format: expected table, json or csv, got '%s'", o.format);
    cp_error err;
    cp_network net;
    if (cp_network_load(o.network ? o.network : "resnet50", &net, &err))
        return cp_bad("%s", err.msg);
    layers_job job = {&net, (int)batch};
    rc = cp_write_result(o.output, put_layers, &job, fmt);
    cp_network_free(&net);
    return rc;
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
        } else if (dir[0] == 'd') {
            cp_device d;
            if (cp_device_parse(r->text, r->len, r->name, &d, &err) == 0)
                printf("%-12s %-32s %4d SMs  %7.1f TFLOP/s fp32  %7.1f fp16 tensor  %6.0f GB/s\n", r->name, d.name,
                       d.sm_count, d.fp32_tflops, d.tensor_tflops[CP_PREC_FP16], d.dram_bandwidth_gbs);
        } else {
            cp_cluster c;
            if (cp_cluster_parse(r->text, r->len, r->name, &c, &err) == 0)
                printf("%-28s %3d node%s x %2d GPUs  intra %-28s inter %s\n", r->name, c.nodes, c.nodes == 1 ? " " : "s",
                       c.gpus_per_node, c.intra.name, c.nodes > 1 ? c.inter.name : "-");
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    cp_calibration_set_default("auto"); /* --calibration overrides */
    if (argc < 2)
        return cmd_predict(1, argv); /* the embedded default: ResNet-50 on H100 */
    const char *cmd = argv[1];
    if (strcmp(cmd, "predict") == 0)
        return cmd_predict(argc - 1, argv + 1);
    if (strcmp(cmd, "layers") == 0)
        return cmd_layers(argc - 1, argv + 1);
    if (strcmp(cmd, "kernel") == 0)
        return cp_cmd_kernel(argc - 1, argv + 1);
    if (strcmp(cmd, "choose") == 0)
        return cp_cmd_choose(argc - 1, argv + 1);
    if (strcmp(cmd, "sweep") == 0)
        return cp_cmd_sweep(argc - 1, argv + 1);
    if (strcmp(cmd, "validate") == 0)
        return cp_cmd_validate(argc - 1, argv + 1);
    if (strcmp(cmd, "networks") == 0 || strcmp(cmd, "devices") == 0 || strcmp(cmd, "clusters") == 0)
        return cmd_list(cmd);
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(cp_usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("cnnperf 0.2.0\n");
        return 0;
    }
    return cp_bad("unknown command '%s' (see cnnperf --help)", cmd);
}
