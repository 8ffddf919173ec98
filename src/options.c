#include "options.h"

#include "../model/calibration.h"
#include "../util/atomic_file.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cp_usage[] =
    "usage: cnnperf <command> [options]\n"
    "\n"
    "commands:\n"
    "  predict   time of one training iteration, per layer and per phase, on one GPU or a cluster\n"
    "  choose    parameter server or NCCL all-reduce for a network on a cluster, by how much and why\n"
    "  sweep     predict a grid of GPU counts, batch sizes, exchange modes and precisions (CSV or JSON)\n"
    "  layers    shapes, parameters and FLOPs of every layer of a network\n"
    "  kernel    block-size advisor: time of a CUDA kernel for every block size\n"
    "  networks  list the built-in networks\n"
    "  devices   list the built-in device profiles\n"
    "  clusters  list the built-in clusters\n"
    "  validate  re-predict measured runs (cnnperf-measure, PyTorch, NCCL sweeps) and report the errors\n"
    "\n"
    "options:\n"
    "  --network NAME|FILE     built-in network or a cnnperf-network/1 JSON file (default resnet50)\n"
    "  --device ID|FILE        built-in device or a cnnperf-device/1 JSON file (default h100)\n"
    "  --batch N               images per iteration per GPU (default 64; layers: 1)\n"
    "  --precision P           fp32, tf32, fp16 or bf16 (default fp32)\n"
    "  --gpus N                data-parallel GPUs (default 1; with --device a cluster of that GPU is assumed)\n"
    "  --cluster NAME|FILE     built-in cluster or a cnnperf-cluster/1 JSON file (default: all its GPUs)\n"
    "  --comm MODE             nccl, ps, none or auto (default auto: the faster)\n"
    "  --nccl-algo A           ring, tree, hierarchical or auto (default auto)\n"
    "  --ps-servers K          parameter servers, sharded (default 1)\n"
    "  --ps-on cpu|gpu         where the parameter servers run (default cpu, as in the dissertation)\n"
    "  --overlap on|off        exchange gradient buckets during backward (default on)\n"
    "  --bucket-mb M           gradient bucket size (default 25, as PyTorch DDP)\n"
    "  --host-mpi FILE         the host's MPI link between a worker and a CPU parameter server, measured:\n"
    "                          a cnnperf-calibrate --only mpi --raw FILE, or a cnnperf-psexchange file (the\n"
    "                          whole PS exchange timed); default: the H100 and H200 device machines' PS\n"
    "                          exchange pooled over calls (calibration/ps-exchange.json), else 8.5 GB/s\n"
    "  --net-link FILE         the network between nodes, measured: a cnnperf-calibrate --only nccl --raw FILE\n"
    "                          with one rank per node (default: 400 Gb/s InfiniBand NDR per GPU, assumed)\n"
    "  --ps-bench FILE         a CPU parameter server's own sum and SGD, measured: a cnnperf-psbench -o FILE\n"
    "                          (default: the cluster's host.ps_server_gbs, else its memory bandwidth; an\n"
    "                          assumed cluster: the median of this project's psbench runs, 118 GB/s FP32\n"
    "                          on 30 threads); a shard under 65,536 parameters is summed on one thread\n"
    "  --mode M                harness (default: kernels and launch gaps, as cnnperf-measure runs them) or\n"
    "                          eager (as PyTorch runs them: per-operator host costs, autocast casts, foreach SGD)\n"
    "  --eager-profile FILE    host costs of eager operators: tools/torch_bench.py --eager-overhead JSON\n"
    "  --conv-api API          harness mode's convolution algorithms: graph (default: cuDNN's graph API,\n"
    "                          PyTorch's path, as cnnperf-measure) or legacy (cudnnFind over cuDNN's legacy\n"
    "                          API, as cnnperf-measure --conv-api legacy); eager mode is always graph\n"
    "  --workspace-mb N        harness mode's cuDNN convolution workspace limit in MiB, as cnnperf-measure's\n"
    "                          (default 8192): an algorithm whose workspace exceeds it is not a candidate\n"
    "  --memory-format F       eager mode's activation layout: nchw (default, PyTorch's) or channels_last\n"
    "                          (model.to(memory_format=torch.channels_last): no layout transposes around\n"
    "                          tensor-core convolutions); cnnperf-measure (harness mode) trains NCHW\n"
    "  --format F              table, json or csv (default table)\n"
    "  --calibration auto|none|FILE  per-class corrections fitted on measured networks (calibration/);\n"
    "                          auto (default): the device's own when there is one; none: the analytic model\n"
    "  --explain               print the task tree with every kernel's queue-model terms (several GPUs:\n"
    "                          the exchange bucket by bucket, with NCCL's estimates that picked the protocol)\n"
    "  --layer NAME            with --explain: only this layer's passes\n"
    "  --trace FILE            write the predicted iteration as Chrome trace-event JSON (Perfetto)\n"
    "  -o, --output FILE       write the result to FILE (atomically) instead of standard output\n"
    "sweep takes comma-separated lists for --gpus, --batch, --comm and --precision.\n"
    "\n"
    "validate --measured FILE|GLOB... ['dir/**/*.json': any depth] [--format table|json|csv|markdown] [-o FILE]\n"
    "         [--plot PREFIX|FILE.svg|FILE.png] [--baseline FILE [--check]] [--write-baseline FILE] [--device ID|FILE]\n"
    "         [--cluster NAME|FILE] [--calibration-set FILE] [--eager-profile FILE|device]\n"
    "         [--calibration auto|none|FILE] [--host-mpi FILE|auto|pooled] [--net-link FILE|auto] (auto, the\n"
    "         default: a measured file's own folder's PS exchange, moved toward the device machines' pooled\n"
    "         stream, or its MPI ping-pong, else that pooled stream (pooled: the pool first,\n"
    "         calibration/ps-exchange.json), and its NCCL sweep of one rank per node, if any; PyTorch runs take\n"
    "         their folder's torch_bench.py --eager-overhead file, moved toward the device profile's costs,\n"
    "         else the profile's; --eager-profile FILE: that file's; device: the profile's always)\n"
    "         (README.md, \"cnnperf validate\")\n";

int cp_bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cnnperf: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

long cp_parse_count(const char *s, long max)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > max)
        return -1;
    return v;
}

int cp_take_valued(int argc, char **argv, int *i, const cp_valued_option *table, size_t n, void *opts)
{
    const char *a = argv[*i];
    size_t k = 0;
    while (k < n && strcmp(a, table[k].flag) != 0)
        k++;
    if (k == n)
        return cp_bad("unknown option '%s' (see cnnperf --help)", a);
    if (*i + 1 >= argc)
        return cp_bad("%s needs a value", a);
    *(const char **)((char *)opts + table[k].offset) = argv[++*i];
    return 0;
}

int cp_options_parse(int argc, char **argv, cp_options *o)
{
    static const cp_valued_option valued[] = {
        {"--network", offsetof(cp_options, network)},     {"--device", offsetof(cp_options, device)},
        {"--cluster", offsetof(cp_options, cluster)},     {"--precision", offsetof(cp_options, precision)},
        {"--format", offsetof(cp_options, format)},       {"--layer", offsetof(cp_options, layer)},
        {"-o", offsetof(cp_options, output)},             {"--output", offsetof(cp_options, output)},
        {"--trace", offsetof(cp_options, trace)},         {"--batch", offsetof(cp_options, batch)},
        {"--gpus", offsetof(cp_options, gpus)},           {"--comm", offsetof(cp_options, comm)},
        {"--nccl-algo", offsetof(cp_options, nccl_algo)}, {"--overlap", offsetof(cp_options, overlap)},
        {"--bucket-mb", offsetof(cp_options, bucket_mb)}, {"--ps-servers", offsetof(cp_options, ps_servers)},
        {"--ps-on", offsetof(cp_options, ps_on)},         {"--host-mpi", offsetof(cp_options, host_mpi)},
        {"--ps-bench", offsetof(cp_options, ps_bench)},   {"--net-link", offsetof(cp_options, net_link)},
        {"--mode", offsetof(cp_options, mode)},           {"--eager-profile", offsetof(cp_options, eager_profile)},
        {"--calibration", offsetof(cp_options, calibration)},
        {"--conv-api", offsetof(cp_options, conv_api)},   {"--workspace-mb", offsetof(cp_options, workspace_mb)},
        {"--memory-format", offsetof(cp_options, memory_format)},
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--explain") == 0) {
            o->explain = 1;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(cp_usage, stdout);
            exit(0);
        }
        int rc = cp_take_valued(argc, argv, &i, valued, sizeof valued / sizeof valued[0], o);
        if (rc)
            return rc;
    }
    if (o->calibration) /* read by cp_device_load for every device the command loads */
        cp_calibration_set_default(o->calibration);
    return 0;
}

int cp_write_result(const char *path, int (*fn)(FILE *, const void *, int), const void *what, int arg)
{
    cp_error err;
    int rc = cp_atomic_write(path, fn, what, arg, &err);
    if (rc)
        fprintf(stderr, "cnnperf: %s\n", err.msg);
    return rc == 0 ? 0 : rc == -1 ? 2 : 1;
}
