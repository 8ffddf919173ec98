/* cnnperf-measure: run real training iterations of a cnnperf network on the
 * GPU (cuDNN, cuBLAS) and write their times in the schema cnnperf predict
 * writes (cnnperf-result/1), so the two can be compared field by field.
 *
 * Started on its own it trains on GPU 0. Started by an MPI launcher it runs
 * one rank per GPU (data parallel): each worker rank takes the GPU of its
 * local rank on its host and the gradients are exchanged by NCCL all-reduce
 * or through parameter-server ranks on CPUs (the last --ps-servers ranks);
 * rank 0 writes the result.
 *
 * Exit status: 0 success, 1 a CUDA/cuDNN/cuBLAS/NCCL/MPI failure, ranks
 * whose parameters differ after the exchange, or an output error, 2 bad
 * input or usage (one line on stderr, as cnnperf), 77 no GPU here (one line
 * "cnnperf-measure: skipped: no GPU (...)"; CTest counts it as skipped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/validate.h" /* CP_VAL_HOST_BOUND_SHARE: what validate reads host-bound as */
#include "../util/jsonwrite.h"
#include "exchange.h"
#include "gpu_layers.h"
#include "host_probe.h"
#include "kernel_check.h"
#include "mpi_util.h"
#include "provenance.h"
#include "stats.h"
#ifdef CNNPERF_HAVE_MPI
#include "ps.h"
#endif

extern char **environ;

static const char usage[] =
    "usage: cnnperf-measure [options]\n"
    "       mpirun -np N cnnperf-measure [options]          one rank per GPU, any number of nodes\n"
    "\n"
    "Runs training iterations of a network on the GPU(s) and reports their times in the JSON schema of\n"
    "`cnnperf predict --format json` (cnnperf-result/1), with provenance.\n"
    "\n"
    "  --network NAME|FILE   built-in network or a cnnperf-network/1 JSON file (default resnet50)\n"
    "  --batch N             images per iteration and GPU (default 64)\n"
    "  --precision P         fp32 (FP32 arithmetic), tf32, fp16 or bf16 (tensor cores, fp32 accumulation;\n"
    "                        default fp32)\n"
    "  --warmup N            untimed iterations first (default 5)\n"
    "  --iters N             timed iterations (default 20)\n"
    "  --workspace-mb N      cuDNN convolution workspace limit in MiB (default 8192,\n"
    "                        less when the GPU has less memory free after the tensors)\n"
    "  --layers MODE         iteration (default): each layer pass timed inside the training iteration;\n"
    "                        isolated: each pass also alone, 5 times back to back in the iteration's state\n"
    "                        (one GPU, --comm none); layers[] then holds those times\n"
    "                        behind: as many iterations again, each enqueued while a kernel spins twice the\n"
    "                        host's median enqueueing time, so no pass waits for the host's next call\n"
    "                        (one GPU, --comm none, --launch stream); layers[] then holds those times\n"
    "  --launch MODE         stream (default): the host enqueues every call of every iteration, as a\n"
    "                        framework does; graph: the first iteration is captured into a CUDA graph and\n"
    "                        each one launches it, so the host's cost per call is out of the times (one\n"
    "                        GPU, --comm none)\n"
    "  --conv-api API        graph (default): engines of cuDNN's graph API, PyTorch's path, chosen as its\n"
    "                        cudnn.benchmark does (the heuristic's first 10 usable engines timed, the fastest\n"
    "                        kept); legacy: algorithms by cudnnFind over cuDNN's legacy API, which costs the\n"
    "                        host up to ~350 us per call (16-bit runs of small batches wait for the host)\n"
    "  --host-profile N      after the timed iterations, N more with the stream synchronised before every\n"
    "                        layer pass, timing on the host what each pass's library calls and launches\n"
    "                        cost (layers[].host_us, host_issue_ms: medians; default 5, 0: none; one GPU,\n"
    "                        --launch stream, --comm none)\n"
    "  --host-profile-behind US  in those iterations, queue a kernel spinning US microseconds ahead of every\n"
    "                        pass: a pass whose library calls wait for the GPU then shows US or more of host\n"
    "                        time (default 0: none)\n"
    "  --isolated-behind US  with --layers isolated, queue a kernel spinning US microseconds ahead of each\n"
    "                        pass's start event, so the host's library calls are enqueued before the GPU\n"
    "                        reaches them and the pass's time holds none of the host's (default 0: none; a\n"
    "                        legacy-API call costs the host 40-450 us, five of them are timed)\n"
    "  --check-loss N        train N iterations on one fixed batch, print the loss of each to stderr;\n"
    "                        exit 0 only if the last loss is lower than the first\n"
    "  --comm MODE           gradient exchange between MPI ranks: nccl, ps or none (default: none for one\n"
    "                        rank, nccl for several)\n"
    "  --overlap on|off      exchange gradient buckets during backward, or all after it (default on)\n"
    "  --bucket-mb M         gradient bucket size in MB (10^6 bytes; default 25, as cnnperf predict)\n"
    "  --ps-servers K        with --comm ps: the last K ranks are CPU parameter servers (default 1)\n"
    "  --ps-threads N        threads of each server for the sum and SGD (default: its cores)\n"
    "  --timeout-s S         a rank that waits S seconds without progress for the others aborts them all\n"
    "                        (default 20)\n"
    "  --check-kernels CC    only compile the NVRTC kernels for compute capability CC (e.g. 90) and exit:\n"
    "                        no GPU needed\n"
    "  --check-dropout       only check the bf16 dropout kernels element by element on the GPU and exit\n"
    "  -o, --output FILE     write the result to FILE (atomically; rank 0) instead of standard output\n"
    "  -h, --help            this text\n"
    "\n"
    "Exit status: 0 success, 1 GPU, NCCL, MPI or output error, or parameters that differ between ranks,\n"
    "2 bad input, 77 no GPU (skipped).\n";

typedef struct {
    const char *network, *precision, *output, *comm, *overlap, *bucket_mb, *timeout_s, *layers, *launch, *conv_api;
    int batch, warmup, iters, workspace_mb, check_loss, ps_servers, ps_threads, check_kernels, host_profile;
    int host_behind_us, isolated_behind_us, check_dropout;
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
        else if (strcmp(a, "--comm") == 0)
            text = &o->comm;
        else if (strcmp(a, "--overlap") == 0)
            text = &o->overlap;
        else if (strcmp(a, "--bucket-mb") == 0)
            text = &o->bucket_mb;
        else if (strcmp(a, "--timeout-s") == 0)
            text = &o->timeout_s;
        else if (strcmp(a, "--batch") == 0)
            num = &o->batch;
        else if (strcmp(a, "--iters") == 0)
            num = &o->iters;
        else if (strcmp(a, "--warmup") == 0)
            num = &o->warmup, min = 0, what = "a non-negative integer";
        else if (strcmp(a, "--workspace-mb") == 0)
            num = &o->workspace_mb, min = 0, max = 1 << 24, what = "a non-negative integer";
        else if (strcmp(a, "--layers") == 0)
            text = &o->layers;
        else if (strcmp(a, "--launch") == 0)
            text = &o->launch;
        else if (strcmp(a, "--conv-api") == 0)
            text = &o->conv_api;
        else if (strcmp(a, "--check-kernels") == 0)
            num = &o->check_kernels, min = 10, max = 199, what = "a compute capability such as 90";
        else if (strcmp(a, "--host-profile") == 0)
            num = &o->host_profile, min = 0, max = 1000, what = "a non-negative integer";
        else if (strcmp(a, "--host-profile-behind") == 0)
            num = &o->host_behind_us, min = 0, max = 1000000, what = "microseconds, 0 to 1000000";
        else if (strcmp(a, "--isolated-behind") == 0)
            num = &o->isolated_behind_us, min = 0, max = 1000000, what = "microseconds, 0 to 1000000";
        else if (strcmp(a, "--check-loss") == 0)
            num = &o->check_loss, min = 2, what = "an integer of at least 2";
        else if (strcmp(a, "--ps-servers") == 0)
            num = &o->ps_servers;
        else if (strcmp(a, "--ps-threads") == 0)
            num = &o->ps_threads, max = 4096;
        else if (strcmp(a, "--check-dropout") == 0) {
            o->check_dropout = 1; /* a flag: no value */
            continue;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
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

static double parse_positive(const char *s, double max)
{
    char *end = NULL;
    double v = strtod(s, &end);
    return *s && !*end && v > 0 && v <= max ? v : -1;
}

/* --- what the ranks are ---------------------------------------------------- */

typedef struct {
    cm_comm comm;
    int size, workers, servers;
    bool server;          /* this rank */
    int worker_rank, local_rank, local_size;
#ifdef CNNPERF_HAVE_MPI
    MPI_Comm role;        /* the workers, or the servers */
#endif
} ranks;

/* One record per world rank, gathered by rank 0 (plain bytes). */
typedef struct {
    int rank, server, local_rank, device, threads, pad;
    char host[64], gpu[128], pci[32];
    double aggregate_ms, round_ms; /* servers: medians over the timed rounds */
    unsigned long long checksum;
} rank_info;

static void info_base(rank_info *r, const ranks *k)
{
    memset(r, 0, sizeof *r);
    r->rank = cm_mpi.rank;
    r->server = k->server;
    r->local_rank = k->local_rank;
    r->device = -1;
    snprintf(r->host, sizeof r->host, "%.63s", cm_mpi.host);
}

/* Every rank's record at rank 0 (out: size records there). */
static void gather_info(const rank_info *mine, rank_info *all)
{
#ifdef CNNPERF_HAVE_MPI
    if (cm_mpi.active) {
        mpiCheck(MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine, MPI_BYTE, 0, cm_mpi.world));
        return;
    }
#endif
    all[0] = *mine;
}

/* Rank 0's status to every rank, so all exit with it. */
static int share_status(int rc)
{
#ifdef CNNPERF_HAVE_MPI
    if (cm_mpi.active)
        mpiCheck(MPI_Bcast(&rc, 1, MPI_INT, 0, cm_mpi.world));
#endif
    return rc;
}

/* --- per-rank summary ------------------------------------------------------ */

enum {
    S_IT,      /* iteration median */
    S_P10,
    S_P90,
    S_PH,      /* + CM_PHASE_COUNT phase medians */
    S_EX = S_PH + CM_PHASE_COUNT,
    S_CO,      /* compute-only iteration median */
    S_EXPOSED, /* S_IT - S_CO, at least 0 */
    S_COPH,    /* + CM_PHASE_COUNT compute-only phase medians */
    S_HOST = S_COPH + CM_PHASE_COUNT, /* host time to enqueue an iteration, median */
    S_PROBE,   /* + CM_HOST_PROBE_FIELDS: the host probe just before the timed iterations, */
    S_PROBE_AFTER = S_PROBE + CM_HOST_PROBE_FIELDS, /* + as many just after them */
    S_LAYERS = S_PROBE_AFTER + CM_HOST_PROBE_FIELDS, /* + N x CP_PASS_COUNT layer-pass medians */
};

typedef struct {
    int T, Tc, N;
    double *iter, *phases, *layers, *exch, *host; /* T, T x phases, T x N x passes, T, T */
    double *co_iter, *co_phases;           /* Tc, Tc x phases */
} samples;

static void summarize(const samples *s, double *out)
{
    int T = s->T, N = s->N, n = T > s->Tc ? T : s->Tc;
    double *tmp = cm_xcalloc((size_t)(n ? n : 1), sizeof *tmp);
    memcpy(tmp, s->iter, (size_t)T * sizeof *tmp);
    out[S_IT] = cm_quantile(tmp, T, 0.5);
    out[S_P10] = cm_quantile(tmp, T, 0.1);
    out[S_P90] = cm_quantile(tmp, T, 0.9);
    for (int p = 0; p < CM_PHASE_COUNT; p++) {
        for (int t = 0; t < T; t++)
            tmp[t] = s->phases[t * CM_PHASE_COUNT + p];
        out[S_PH + p] = cm_quantile(tmp, T, 0.5);
    }
    memcpy(tmp, s->exch, (size_t)T * sizeof *tmp);
    out[S_EX] = cm_quantile(tmp, T, 0.5);
    memcpy(tmp, s->host, (size_t)T * sizeof *tmp);
    out[S_HOST] = cm_quantile(tmp, T, 0.5);
    if (s->Tc > 0) {
        memcpy(tmp, s->co_iter, (size_t)s->Tc * sizeof *tmp);
        out[S_CO] = cm_quantile(tmp, s->Tc, 0.5);
        for (int p = 0; p < CM_PHASE_COUNT; p++) {
            for (int t = 0; t < s->Tc; t++)
                tmp[t] = s->co_phases[t * CM_PHASE_COUNT + p];
            out[S_COPH + p] = cm_quantile(tmp, s->Tc, 0.5);
        }
    } else { /* no exchange: the iteration is compute only */
        out[S_CO] = out[S_IT];
        for (int p = 0; p < CM_PHASE_COUNT; p++)
            out[S_COPH + p] = out[S_PH + p];
    }
    out[S_EXPOSED] = fmax(0, out[S_IT] - out[S_CO]);
    for (int i = 0; i < N; i++)
        for (int p = 0; p < CP_PASS_COUNT; p++) {
            for (int t = 0; t < T; t++)
                tmp[t] = s->layers[((size_t)t * N + i) * CP_PASS_COUNT + p];
            out[S_LAYERS + i * CP_PASS_COUNT + p] = cm_quantile(tmp, T, 0.5);
        }
    free(tmp);
}

/* --- the result ------------------------------------------------------------ */

static const char *const phase_keys[CM_PHASE_COUNT] = {"loading_ms", "forward_ms", "backward_ms", "update_ms"};
static const char *const pass_keys[CP_PASS_COUNT] = {"forward_ms", "backward_data_ms", "backward_weight_ms",
                                                     "update_ms"};
static const char *const host_pass_keys[CP_PASS_COUNT] = {"forward", "backward_data", "backward_weight", "update"};

/* What the predictor counts (model/predict.c): every pass's useful FLOPs,
 * backward-data only where the input needs a gradient. */
static double pass_flops(const cp_layer *l, int pass, int batch)
{
    if (pass == CP_PASS_BWD_DATA && !l->needs_input_grad)
        return 0;
    return l->kind->flops(l, (cp_pass)pass, batch);
}

static cJSON *phases_json(const double *ph)
{
    cJSON *o = cJSON_CreateObject();
    for (int p = 0; p < CM_PHASE_COUNT; p++)
        cJSON_AddNumberToObject(o, phase_keys[p], ph[p]);
    return o;
}

static bool env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v && strcmp(v, value) == 0;
}

typedef struct {
    const cm_net *n;
    const options *o;
    const cm_run_info *run;
    const ranks *k;
    const cm_exchange *ex;
    const double *sum;      /* workers x len */
    int len;
    const rank_info *info;  /* world size */
    bool identical;
    const double *host_us;  /* NULL, or medians per layer pass (cm_host_profile) */
    double host_issue_ms;
} result_in;

/* The host probe taken just before and just after the timed iterations
 * (host_probe.h), from a rank's summary (or the slowest rank's, per field). */
static cJSON *probe_json(const double *s)
{
    static const char *const keys[CM_HOST_PROBE_FIELDS] = {"conv_call_us", "launch_us", "cpu_ns"};
    cJSON *o = cJSON_CreateObject();
    const char *when[2] = {"before", "after"};
    for (int w = 0; w < 2; w++) {
        cJSON *x = cJSON_AddObjectToObject(o, when[w]);
        for (int f = 0; f < CM_HOST_PROBE_FIELDS; f++)
            cJSON_AddNumberToObject(x, keys[f], s[(w ? S_PROBE_AFTER : S_PROBE) + f]);
    }
    return o;
}

static cJSON *result_json(const result_in *in)
{
    const cm_net *n = in->n;
    const cm_gpu *g = n->gpu;
    int N = n->n, W = in->k->workers;
    /* Across ranks: the slowest rank's median of everything. */
    double *mx = cm_xcalloc((size_t)in->len, sizeof *mx);
    for (int r = 0; r < W; r++)
        for (int j = 0; j < in->len; j++)
            mx[j] = r == 0 ? in->sum[j] : fmax(mx[j], in->sum[(size_t)r * in->len + j]);
    char id[256];
    cm_device_id(g->name, id, sizeof id);
    bool exchanging = in->ex != NULL;

    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "cnnperf-result/1");
    cJSON_AddStringToObject(root, "source", "measurement");
    cJSON_AddStringToObject(root, "network", n->net->name);
    cJSON_AddStringToObject(root, "device", id);
    cJSON_AddStringToObject(root, "device_name", g->name);
    cJSON_AddNumberToObject(root, "batch", g->batch);
    cJSON_AddStringToObject(root, "precision", cp_precision_name(g->prec));
    cJSON_AddNumberToObject(root, "gpus", W);
    cJSON_AddNumberToObject(root, "iteration_ms", mx[S_IT]);
    cJSON_AddNumberToObject(root, "iteration_p10_ms", mx[S_P10]);
    cJSON_AddNumberToObject(root, "iteration_p90_ms", mx[S_P90]);
    cJSON_AddNumberToObject(root, "images_per_s", (double)g->batch * W / (mx[S_IT] * 1e-3));
    /* The slowest rank's median time to enqueue an iteration; at 90% of the
     * iteration or more, the GPU waited for the host. A parameter server's
     * workers wait for it on the host, so that says nothing there. */
    cJSON_AddNumberToObject(root, "host_enqueue_ms", mx[S_HOST]);
    cJSON_AddBoolToObject(root, "host_bound",
                          in->k->comm != CM_COMM_PS && mx[S_HOST] >= CP_VAL_HOST_BOUND_SHARE * mx[S_IT]);
    if (in->host_us)
        cJSON_AddNumberToObject(root, "host_issue_ms", in->host_issue_ms);
    cJSON_AddItemToObject(root, "host_probe", probe_json(mx));
    cJSON_AddItemToObject(root, "phases", phases_json(mx + S_PH));

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
            cJSON_AddNumberToObject(lo, pass_keys[p], mx[S_LAYERS + i * CP_PASS_COUNT + p]);
            flops += pass_flops(l, p, g->batch);
        }
        total_flops += flops;
        /* A measurement has no DRAM byte count, bound or roofline of its own:
         * those fields of a prediction's layers are left out (they were
         * written as 0 and "-" before session 27: 62 bytes a layer, 9 MB
         * over the recorded runs). */
        cJSON_AddNumberToObject(lo, "flops", flops);
        if (in->host_us) {
            cJSON *h = cJSON_AddObjectToObject(lo, "host_us");
            for (int p = 0; p < CP_PASS_COUNT; p++)
                cJSON_AddNumberToObject(h, host_pass_keys[p], in->host_us[i * CP_PASS_COUNT + p]);
        }
        cJSON_AddItemToArray(arr, lo);
    }
    cJSON_AddNumberToObject(root, "flops", total_flops);
    cJSON_AddItemToObject(root, "layers", arr);

    /* The distributed fields of cnnperf predict --gpus N. */
    cJSON_AddStringToObject(root, "comm", cm_comm_name(in->k->comm));
    cJSON_AddBoolToObject(root, "overlap", strcmp(in->o->overlap, "on") == 0);
    cJSON_AddNumberToObject(root, "exchange_ms", mx[S_EX]);
    cJSON_AddNumberToObject(root, "exposed_exchange_ms", mx[S_EXPOSED]);
    cJSON_AddNumberToObject(root, "compute_only_ms", mx[S_CO]);
    cJSON_AddItemToObject(root, "compute_only_phases", phases_json(mx + S_COPH));
    cJSON_AddNumberToObject(root, "gradient_bytes", exchanging ? cm_exchange_bytes(in->ex) : 0);
    cJSON_AddNumberToObject(root, "buckets", exchanging ? cm_exchange_buckets(in->ex) : 0);
    cJSON_AddNumberToObject(root, "scaling_efficiency", mx[S_CO] / mx[S_IT]);
    if (in->k->comm == CM_COMM_PS)
        cJSON_AddNumberToObject(root, "ps_servers", in->k->servers);
    if (in->k->comm == CM_COMM_NCCL)
        cJSON_AddBoolToObject(root, "nccl_network_emulation",
                              env_is("NCCL_P2P_DISABLE", "1") && env_is("NCCL_SHM_DISABLE", "1"));
    char ck[64];
    snprintf(ck, sizeof ck, "fnv1a64:%016llx", in->info[0].checksum);
    cJSON_AddStringToObject(root, "parameter_checksum", ck);
    if (exchanging && W > 1)
        cJSON_AddBoolToObject(root, "parameters_identical", in->identical);

    cJSON *rk = cJSON_CreateArray();
    for (int r = 0; r < in->k->size; r++) {
        const rank_info *ri = &in->info[r];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "rank", ri->rank);
        cJSON_AddStringToObject(o, "role", ri->server ? "server" : "worker");
        cJSON_AddStringToObject(o, "hostname", ri->host);
        cJSON_AddNumberToObject(o, "local_rank", ri->local_rank);
        if (ri->server) {
            cJSON_AddNumberToObject(o, "threads", ri->threads);
            cJSON_AddNumberToObject(o, "aggregate_ms", ri->aggregate_ms);
            cJSON_AddNumberToObject(o, "round_ms", ri->round_ms);
            cJSON_AddItemToArray(rk, o);
            continue;
        }
        const double *s = in->sum + (size_t)r * in->len; /* workers are world ranks 0..W-1 */
        cJSON_AddNumberToObject(o, "gpu", ri->device);
        cJSON_AddStringToObject(o, "gpu_name", ri->gpu);
        cJSON_AddStringToObject(o, "pci_bus_id", ri->pci);
        cJSON_AddNumberToObject(o, "iteration_ms", s[S_IT]);
        cJSON_AddNumberToObject(o, "iteration_p10_ms", s[S_P10]);
        cJSON_AddNumberToObject(o, "iteration_p90_ms", s[S_P90]);
        cJSON_AddItemToObject(o, "phases", phases_json(s + S_PH));
        cJSON_AddNumberToObject(o, "exchange_ms", s[S_EX]);
        cJSON_AddNumberToObject(o, "exposed_exchange_ms", s[S_EXPOSED]);
        cJSON_AddNumberToObject(o, "compute_only_ms", s[S_CO]);
        cJSON_AddNumberToObject(o, "host_enqueue_ms", s[S_HOST]);
        cJSON_AddItemToObject(o, "host_probe", probe_json(s));
        snprintf(ck, sizeof ck, "fnv1a64:%016llx", ri->checksum);
        cJSON_AddStringToObject(o, "parameter_checksum", ck);
        /* per layer: [forward, backward-data, backward-weight, update] medians */
        cJSON *lm = cJSON_CreateArray();
        for (int i = 0; i < N; i++)
            cJSON_AddItemToArray(lm, cJSON_CreateDoubleArray(s + S_LAYERS + i * CP_PASS_COUNT, CP_PASS_COUNT));
        cJSON_AddItemToObject(o, "layer_ms", lm);
        cJSON_AddItemToArray(rk, o);
    }
    cJSON_AddItemToObject(root, "ranks", rk);

    cJSON *prov = cm_provenance(n, in->run);
    cJSON *hosts = cJSON_CreateArray();
    for (int r = 0; r < in->k->size; r++)
        cJSON_AddItemToArray(hosts, cJSON_CreateString(in->info[r].host));
    cJSON_AddItemToObject(prov, "hostnames", hosts);
    cJSON_AddNumberToObject(prov, "mpi_ranks", in->k->size);
#ifdef CNNPERF_HAVE_MPI
    if (cm_mpi.active) {
        int ver = 0, sub = 0;
        if (MPI_Get_version(&ver, &sub) == MPI_SUCCESS) {
            char v[32];
            snprintf(v, sizeof v, "%d.%d", ver, sub);
            cJSON_AddStringToObject(prov, "mpi_standard", v);
        }
    }
#endif
    cJSON *ex = cJSON_AddObjectToObject(prov, "exchange");
    cJSON_AddStringToObject(ex, "comm", cm_comm_name(in->k->comm));
    cJSON_AddNumberToObject(ex, "workers", W);
    cJSON_AddNumberToObject(ex, "bucket_mb", atof(in->o->bucket_mb));
    cJSON_AddStringToObject(ex, "overlap", in->o->overlap);
    cJSON_AddNumberToObject(ex, "timeout_s", cm_mpi_timeout_s);
    if (in->k->comm == CM_COMM_PS)
        cJSON_AddStringToObject(ex, "ps_sharding", "bucket"); /* each bucket split over the servers (ps.h) */
    cJSON_AddStringToObject(ex, "gradient_types",
                            "gradients are exchanged in the type training keeps them in: fp32 for fp32/tf32; "
                            "fp16/bf16 (batch norm fp32) for 16-bit training, whose master weights and momentum "
                            "are fp32");
    cJSON_AddStringToObject(ex, "timing",
                            "exchange_ms: NCCL all-reduce kernels summed (CUDA events on the exchange stream), or "
                            "PS from the first gradient bucket complete on the GPU to the last parameters back on "
                            "it (push, aggregate, pull); phases.backward_ms includes the exchange not hidden by "
                            "backward; compute_only_ms: the same rank's iteration without exchange (SGD with "
                            "learning rate 0; under a PS no update), timed right after; exposed_exchange_ms = "
                            "iteration_ms - compute_only_ms per rank; top-level values are the maximum over the "
                            "worker ranks of each rank's median");
    cJSON *env = cJSON_AddObjectToObject(ex, "nccl_env");
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "NCCL_", 5) == 0) {
            const char *eq = strchr(*e, '=');
            if (!eq)
                continue;
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
            cJSON_AddStringToObject(env, name, eq + 1);
        }
    if (in->k->comm == CM_COMM_NCCL && env_is("NCCL_P2P_DISABLE", "1") && env_is("NCCL_SHM_DISABLE", "1"))
        cJSON_AddStringToObject(ex, "note",
                                "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1: NCCL's network transport between the GPUs "
                                "(emulates separate nodes on one host)");
    cJSON_AddItemToObject(root, "provenance", prov);
    free(mx);
    return root;
}

static int write_result(cJSON *root, const char *path)
{
    cp_error err;
    /* compact: a campaign's files are committed under validation/, which must
     * stay small enough for the GPU machine's copy of the tree */
    if (cp_json_write_file(path, root, true, &err)) {
        fprintf(stderr, "cnnperf-measure: %s\n", err.msg);
        return CM_EXIT_RUNTIME;
    }
    return 0;
}

/* --- set-up of the ranks --------------------------------------------------- */

/* Decides the exchange and the roles; 0 or an exit status (2: every rank
 * decides the same from the same options, so all return it). */
static int setup_ranks(const options *o, ranks *k)
{
    memset(k, 0, sizeof *k);
    k->size = cm_mpi.size;
    if (!o->comm)
        k->comm = k->size > 1 ? CM_COMM_NCCL : CM_COMM_NONE;
    else if (strcmp(o->comm, "nccl") == 0)
        k->comm = CM_COMM_NCCL;
    else if (strcmp(o->comm, "ps") == 0)
        k->comm = CM_COMM_PS;
    else if (strcmp(o->comm, "none") == 0)
        k->comm = CM_COMM_NONE;
    else
        return cm_mpi.rank == 0 ? bad("--comm: expected nccl, ps or none, got '%s'", o->comm) : CM_EXIT_BAD_INPUT;
#if !defined(CNNPERF_HAVE_NCCL) || !defined(CNNPERF_HAVE_MPI)
    if (k->comm == CM_COMM_NCCL)
        return cm_mpi.rank == 0
                   ? bad("--comm nccl: %s", "cnnperf-measure was built without NCCL or without MPI (it needs both)")
                   : CM_EXIT_BAD_INPUT;
#endif
    k->servers = k->comm == CM_COMM_PS ? o->ps_servers : 0;
    if (k->comm == CM_COMM_PS && !cm_mpi.active)
        return bad("--comm ps needs MPI: start the workers and %s", "servers with mpirun -np W+K (K: --ps-servers)");
    if (k->comm == CM_COMM_PS && k->servers >= k->size) {
        if (cm_mpi.rank == 0)
            fprintf(stderr,
                    "cnnperf-measure: --comm ps: %d server rank%s leave no worker among %d ranks (mpirun -np W+K)\n",
                    k->servers, k->servers == 1 ? "" : "s", k->size);
        return CM_EXIT_BAD_INPUT;
    }
    k->workers = k->size - k->servers;
    k->server = cm_mpi.rank >= k->workers;
    k->worker_rank = k->server ? -1 : cm_mpi.rank;
    k->local_size = 1;
#ifdef CNNPERF_HAVE_MPI
    k->role = MPI_COMM_NULL;
    if (cm_mpi.active) {
        /* workers first, then servers: world order is kept */
        mpiCheck(MPI_Comm_split(cm_mpi.world, k->server ? 1 : 0, cm_mpi.rank, &k->role));
        MPI_Comm node;
        mpiCheck(MPI_Comm_split_type(k->role, MPI_COMM_TYPE_SHARED, cm_mpi.rank, MPI_INFO_NULL, &node));
        mpiCheck(MPI_Comm_rank(node, &k->local_rank));
        mpiCheck(MPI_Comm_size(node, &k->local_size));
        mpiCheck(MPI_Comm_free(&node));
    }
#endif
    return 0;
}

/* The GPU of this worker: its local rank among the workers of its host. */
static int pick_device(const ranks *k, int count)
{
    if (k->local_rank < count)
        return k->local_rank;
    if (count == 1) { /* the launcher gave every rank its own GPU (CUDA_VISIBLE_DEVICES) */
        return 0;
    }
    fprintf(stderr,
            "cnnperf-measure: %s%d worker ranks on this host but %d GPUs: start at most one rank per GPU "
            "(mpirun --map-by ppr:%d:node)\n",
            cm_mpi_who(), k->local_size, count, count);
    cm_mpi_abort(CM_EXIT_BAD_INPUT);
}

#ifdef CNNPERF_HAVE_MPI
/* A parameter-server rank: no GPU; sums, updates and answers for as many
 * rounds as the workers run iterations with exchange. */
static int run_server(const options *o, ranks *k)
{
    cm_where = "parameter server";
    cm_ps ps;
    cm_ps_setup(&ps, cm_mpi.world, k->servers, NULL, 0, 0, o->ps_threads);
    cm_ps_init_params(&ps, NULL);
    int rounds = o->check_loss ? o->check_loss : o->warmup + o->iters, timed = o->check_loss ? rounds : o->iters;
    double *busy = cm_xcalloc((size_t)rounds, sizeof *busy), *wall = cm_xcalloc((size_t)rounds, sizeof *wall);
    for (int r = 0; r < rounds; r++) {
        double t0 = cm_mpi_now();
        busy[r] = 1e3 * cm_ps_serve_round(&ps);
        wall[r] = 1e3 * (cm_mpi_now() - t0);
    }
    if (cm_mpi.rank == k->workers)
        fprintf(stderr, "cnnperf-measure: %sparameter server: %d chunk%s, %d thread%s, %d rounds\n", cm_mpi_who(),
                ps.n_mine, ps.n_mine == 1 ? "" : "s", ps.threads, ps.threads == 1 ? "" : "s", rounds);
    rank_info me, dummy;
    info_base(&me, k);
    me.threads = ps.threads;
    me.aggregate_ms = cm_quantile(busy + (rounds - timed), timed, 0.5);
    me.round_ms = cm_quantile(wall + (rounds - timed), timed, 0.5);
    free(busy);
    free(wall);
    /* the workers' order: the results, then the communicators */
    if (!o->check_loss)
        gather_info(&me, &dummy);
    int rc = 0;
    if (o->check_loss)
        mpiCheck(MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, cm_mpi.world));
    else
        rc = share_status(0);
    cm_ps_free(&ps);
    mpiCheck(MPI_Comm_free(&k->role));
    cm_mpi_finalize();
    return rc;
}
#endif

/* --- the run ---------------------------------------------------------------- */

/* CNNPERF_MEASURE_FAULT=hang:R:I or exit:R:I: worker rank R hangs (sleeps)
 * or exits with status 1 before iteration I (counted from 0, warm-up
 * included), to check that the other ranks then end too (run_device.sh
 * MODE=multi). */
static void maybe_fault(int rank, int iteration)
{
    static int parsed = 0, kind = 0, at_rank = -1, at_iter = -1;
    if (!parsed) {
        parsed = 1;
        const char *f = getenv("CNNPERF_MEASURE_FAULT");
        char what[8] = "";
        if (f && sscanf(f, "%7[a-z]:%d:%d", what, &at_rank, &at_iter) == 3)
            kind = strcmp(what, "hang") == 0 ? 1 : strcmp(what, "exit") == 0 ? 2 : 0;
    }
    if (!kind || rank != at_rank || iteration != at_iter)
        return;
    fprintf(stderr, "cnnperf-measure: %s%s before iteration %d, as asked (CNNPERF_MEASURE_FAULT)\n", cm_mpi_who(),
            kind == 1 ? "hanging" : "exiting", iteration);
    fflush(stderr);
    if (kind == 2)
        exit(CM_EXIT_RUNTIME);
    for (;;)
        sleep(60);
}

static int check_loss(cm_net *n, int iterations)
{
    double *layer_ms = cm_xcalloc((size_t)n->n * CP_PASS_COUNT, sizeof *layer_ms);
    double phase_ms[CM_PHASE_COUNT], it_ms, first = 0, last = 0;
    bool talk = cm_mpi.rank == 0;
    for (int i = 1; i <= iterations; i++) {
        cm_iteration(n);
        cm_collect(n, &it_ms, phase_ms, layer_ms);
        last = cm_loss(n);
        if (i == 1)
            first = last;
        if (talk)
            fprintf(stderr, "cnnperf-measure: iteration %d: loss %.6f (%.3f ms)\n", i, last, it_ms);
    }
    free(layer_ms);
    if (isfinite(first) && isfinite(last) && last < first) {
        if (talk)
            fprintf(stderr, "cnnperf-measure: loss fell from %.6f to %.6f in %d iterations\n", first, last,
                    iterations);
        return 0;
    }
    fprintf(stderr, "cnnperf-measure: %sloss did not fall: %.6f after 1 iteration, %.6f after %d\n", cm_mpi_who(),
            first, last, iterations);
    return CM_EXIT_RUNTIME;
}

/* A worker's last steps, on every way out after its set-up. */
static void finish_worker(cm_exchange *ex, ranks *k, cp_network *net)
{
    cm_exchange_destroy(ex);
#ifdef CNNPERF_HAVE_MPI
    if (cm_mpi.active)
        mpiCheck(MPI_Comm_free(&k->role));
#else
    (void)k;
#endif
    cp_network_free(net);
    cm_mpi_finalize();
}

int main(int argc, char **argv)
{
    options o = {"resnet50", "fp32", NULL, NULL, "on", "25", "20", "iteration", "stream", "graph",
                 64,         5,      20,   8192, 0,    1,    0,    0,  5,   0, 0, 0};
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc;
    if (o.check_kernels) {
        /* the kernels' source checked by NVRTC itself, without a GPU */
        size_t size = 0;
        free(cm_kernels_compile(o.check_kernels / 10, o.check_kernels % 10, &size));
        fprintf(stderr, "cnnperf-measure: NVRTC built the kernels for sm_%d (%zu bytes)\n", o.check_kernels, size);
        return 0;
    }
    if (o.check_dropout)
        return cm_check_dropout();
    cp_precision prec;
    if (cp_precision_parse(o.precision, &prec))
        return bad("--precision: expected fp32, tf32, fp16 or bf16, got '%s'", o.precision);
    if (strcmp(o.overlap, "on") != 0 && strcmp(o.overlap, "off") != 0)
        return bad("--overlap: expected on or off, got '%s'", o.overlap);
    double bucket_mb = parse_positive(o.bucket_mb, 1e6);
    if (bucket_mb < 0)
        return bad("--bucket-mb: expected a positive number of megabytes, got '%s'", o.bucket_mb);
    double timeout_s = parse_positive(o.timeout_s, 1e6);
    if (timeout_s < 0)
        return bad("--timeout-s: expected a positive number of seconds, got '%s'", o.timeout_s);
    if (o.comm && strcmp(o.comm, "nccl") != 0 && strcmp(o.comm, "ps") != 0 && strcmp(o.comm, "none") != 0)
        return bad("--comm: expected nccl, ps or none, got '%s'", o.comm);
    bool isolated = strcmp(o.layers, "isolated") == 0, behind = strcmp(o.layers, "behind") == 0;
    if (!isolated && !behind && strcmp(o.layers, "iteration") != 0)
        return bad("--layers: expected iteration, isolated or behind, got '%s'", o.layers);
    if (isolated && o.comm && strcmp(o.comm, "none") != 0)
        return bad("--layers isolated times one GPU's passes alone: use it with --comm none, not '%s'", o.comm);
    if (behind && o.comm && strcmp(o.comm, "none") != 0)
        return bad("--layers behind times one GPU's iteration behind a spin: use it with --comm none, not '%s'",
                   o.comm);
    if (!isolated && o.isolated_behind_us > 0)
        return bad("--isolated-behind spins ahead of the passes --layers isolated times: use it with --layers "
                   "isolated, not '%s'", o.layers);
    bool graph = strcmp(o.launch, "graph") == 0;
    if (!graph && strcmp(o.launch, "stream") != 0)
        return bad("--launch: expected stream or graph, got '%s'", o.launch);
    if (graph && o.comm && strcmp(o.comm, "none") != 0)
        return bad("--launch graph captures one GPU's iteration: use it with --comm none, not '%s'", o.comm);
    if (graph && behind)
        return bad("--layers behind keeps the host's calls out of a stream-launched iteration's pass times; a "
                   "graph launch has none in them: use it with --launch stream, not '%s'", o.launch);
    bool conv_graph = strcmp(o.conv_api, "graph") == 0;
    if (!conv_graph && strcmp(o.conv_api, "legacy") != 0)
        return bad("--conv-api: expected legacy or graph, got '%s'", o.conv_api);
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

    /* MPI only when a launcher started us; then one rank per GPU. */
    cm_mpi_where = &cm_where;
    cm_mpi_timeout_s = timeout_s;
    cm_mpi_init(&argc, &argv);
    ranks k;
    if ((rc = setup_ranks(&o, &k)) != 0) {
        cp_network_free(&net);
        cm_mpi_finalize();
        return rc;
    }
#ifdef CNNPERF_HAVE_MPI
    if (k.server) {
        cp_network_free(&net);
        return run_server(&o, &k);
    }
#endif

    /* No GPU is not a failure: tests that need one are skipped. */
    int count = cm_gpu_count(cm_mpi_who());
    if (count == 0) {
        cp_network_free(&net);
        if (k.size > 1)
            cm_mpi_abort(CM_EXIT_SKIP); /* the other ranks may not know yet */
        cm_mpi_finalize();
        return CM_EXIT_SKIP;
    }

    cm_batch = o.batch;
    cm_gpu g;
    int dev = pick_device(&k, count);
    cm_gpu_init(&g, dev, prec, o.batch, (size_t)o.workspace_mb << 20);
    g.rank = k.worker_rank;
    g.conv_graph = conv_graph;
    fprintf(stderr, "cnnperf-measure: %s%s, batch %d, %s on GPU %d, %s (sm_%d%d, %d SMs, %.0f GiB)\n", cm_mpi_who(),
            net.name, o.batch, cp_precision_name(prec), dev, g.name, g.cc_major, g.cc_minor, g.sm_count, g.memory_gb);
    if (graph && k.comm != CM_COMM_NONE)
        return bad("--launch graph captures one GPU's iteration: several ranks exchange gradients (%s); run one "
                   "rank, or --launch stream",
                   cm_comm_name(k.comm));
    double t0 = cm_mpi_now();
    cm_net n;
    cm_net_build(&n, &g, &net);
    n.graph = graph;
    cm_exchange *ex = NULL;
    if (k.comm != CM_COMM_NONE) {
        cm_exchange_opts xo = {k.comm, strcmp(o.overlap, "on") == 0, bucket_mb, k.servers, o.ps_threads, k.workers,
                               k.worker_rank,
#ifdef CNNPERF_HAVE_MPI
                               k.role
#endif
        };
        ex = cm_exchange_create(&n, &xo);
    }
    cm_run_info run = {argc, argv, o.warmup, o.iters, o.workspace_mb, cm_mpi_now() - t0, o.launch, o.conv_api};
    if (cm_mpi.rank == 0) {
        fprintf(stderr, "cnnperf-measure: set up %d layers in %.1f s (convolution workspace %.1f MiB)", n.n,
                run.setup_s, (double)g.workspace_size / 1048576.0);
        if (ex)
            fprintf(stderr, "; %s exchange of %.1f MB in %d piece%s between %d worker%s%s, overlap %s\n",
                    cm_comm_name(k.comm), cm_exchange_bytes(ex) / 1e6, cm_exchange_buckets(ex),
                    cm_exchange_buckets(ex) == 1 ? "" : "s", k.workers, k.workers == 1 ? "" : "s",
                    k.comm == CM_COMM_PS ? " and CPU servers" : "", o.overlap);
        else
            fputc('\n', stderr);
    }

    if (o.check_loss) {
        rc = check_loss(&n, o.check_loss);
#ifdef CNNPERF_HAVE_MPI
        if (cm_mpi.active)
            mpiCheck(MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, cm_mpi.world));
#endif
        finish_worker(ex, &k, &net);
        return rc;
    }

    int T = o.iters, N = n.n, Tc = ex ? o.iters : 0;
    samples s = {T, Tc, N, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    s.iter = cm_xcalloc((size_t)T, sizeof *s.iter);
    s.phases = cm_xcalloc((size_t)T * CM_PHASE_COUNT, sizeof *s.phases);
    s.layers = cm_xcalloc((size_t)T * N * CP_PASS_COUNT, sizeof *s.layers);
    s.exch = cm_xcalloc((size_t)T, sizeof *s.exch);
    s.host = cm_xcalloc((size_t)T, sizeof *s.host);
    s.co_iter = cm_xcalloc((size_t)Tc, sizeof *s.co_iter);
    s.co_phases = cm_xcalloc((size_t)Tc * CM_PHASE_COUNT, sizeof *s.co_phases);
    double *scratch = cm_xcalloc((size_t)N * CP_PASS_COUNT, sizeof *scratch);
    double scratch_phase[CM_PHASE_COUNT], scratch_it;
    for (int i = 0; i < o.warmup; i++) {
        maybe_fault(k.worker_rank, i);
        cm_iteration(&n);
        cm_collect(&n, &scratch_it, scratch_phase, scratch);
    }
    cm_host_probe probe[2];
    cm_host_probe_run(&g, &probe[0]);
    cm_profile_timed(1);
    for (int t = 0; t < T; t++) {
        maybe_fault(k.worker_rank, o.warmup + t);
        cm_iteration(&n);
        cm_collect(&n, &s.iter[t], &s.phases[t * CM_PHASE_COUNT], &s.layers[(size_t)t * N * CP_PASS_COUNT]);
        s.exch[t] = ex ? cm_exchange_ms(ex) : 0;
        s.host[t] = n.host_ms;
    }
    cm_profile_timed(0);
    cm_host_probe_run(&g, &probe[1]);
    /* --layers isolated: the layer medians come from passes run alone */
    if (isolated && ex)
        cm_fatal("--layers isolated needs one rank without gradient exchange (--comm none)");
    for (int t = 0; isolated && t < T; t++)
        cm_isolated(&n, 5, o.isolated_behind_us, &s.layers[(size_t)t * N * CP_PASS_COUNT]);
    /* --layers behind: the layer medians come from as many iterations again, each enqueued while the GPU spins
     * twice the host's median enqueueing time (at least 1 ms), so that no pass waits for the host's next call */
    double behind_us = 0;
    int behind_overruns = 0;
    if (behind) {
        double *host = cm_xcalloc((size_t)T, sizeof *host);
        memcpy(host, s.host, (size_t)T * sizeof *host);
        behind_us = fmax(2e3 * cm_quantile(host, T, 0.5), 1000.0);
        free(host);
        for (int t = 0; t < T; t++)
            behind_overruns += cm_iteration_behind(&n, behind_us, &s.layers[(size_t)t * N * CP_PASS_COUNT]);
    }
    /* The host's cost of each pass, with the GPU kept from setting its pace. */
    int H = !graph && !ex ? o.host_profile : 0;
    double *host_us = NULL, host_issue_ms = 0;
    if (H > 0) {
        double *runs = cm_xcalloc((size_t)H * N * CP_PASS_COUNT, sizeof *runs);
        double *totals = cm_xcalloc((size_t)H, sizeof *totals);
        n.host_behind_us = o.host_behind_us;
        for (int h = 0; h < H; h++)
            totals[h] = cm_host_profile(&n, &runs[(size_t)h * N * CP_PASS_COUNT]);
        n.host_behind_us = 0;
        host_us = cm_xcalloc((size_t)N * CP_PASS_COUNT, sizeof *host_us);
        double *v = cm_xcalloc((size_t)H, sizeof *v);
        for (int j = 0; j < N * CP_PASS_COUNT; j++) {
            for (int h = 0; h < H; h++)
                v[h] = runs[(size_t)h * N * CP_PASS_COUNT + j];
            host_us[j] = cm_quantile(v, H, 0.5);
        }
        host_issue_ms = cm_quantile(totals, H, 0.5);
        free(v);
        free(runs);
        free(totals);
    }
    /* The parameters as the exchange left them (the compute-only iterations
     * below run the SGD with learning rate 0). */
    unsigned long long checksum = cm_params_checksum(&n);
    if (ex) {
        /* The same rank without exchange: compute only (the parameters stay). */
        cm_exchange_set_active(ex, false);
        for (int i = 0; i < 2; i++) {
            cm_iteration(&n);
            cm_collect(&n, &scratch_it, scratch_phase, scratch);
        }
        for (int t = 0; t < Tc; t++) {
            cm_iteration(&n);
            cm_collect(&n, &s.co_iter[t], &s.co_phases[t * CM_PHASE_COUNT], scratch);
        }
    }
    free(scratch);

    /* Per-rank medians, at rank 0 for every worker. */
    cm_where = "gathering the results";
    int len = S_LAYERS + N * CP_PASS_COUNT;
    double *mine = cm_xcalloc((size_t)len, sizeof *mine);
    summarize(&s, mine);
    cm_host_probe_pack(&probe[0], mine + S_PROBE);
    cm_host_probe_pack(&probe[1], mine + S_PROBE_AFTER);
    double *all = mine;
#ifdef CNNPERF_HAVE_MPI
    if (cm_mpi.active) {
        all = cm_xcalloc((size_t)len * k.workers, sizeof *all);
        mpiCheck(MPI_Gather(mine, len, MPI_DOUBLE, all, len, MPI_DOUBLE, 0, k.role));
    }
#endif
    rank_info me;
    info_base(&me, &k);
    me.device = dev;
    snprintf(me.gpu, sizeof me.gpu, "%.127s", g.name);
    if (cudaDeviceGetPCIBusId(me.pci, (int)sizeof me.pci, dev) != cudaSuccess)
        snprintf(me.pci, sizeof me.pci, "unknown");
    me.checksum = checksum;
    rank_info *info = cm_xcalloc((size_t)k.size, sizeof *info);
    gather_info(&me, info);

    rc = 0;
    if (cm_mpi.rank == 0) {
        bool identical = true;
        for (int r = 1; r < k.workers; r++)
            if (info[r].checksum != info[0].checksum)
                identical = false;
        result_in in = {&n, &o, &run, &k, ex, all, len, info, identical, host_us, host_issue_ms};
        cJSON *root = result_json(&in);
        cJSON *prov = cJSON_GetObjectItemCaseSensitive(root, "provenance");
        if (prov)
            cJSON_AddStringToObject(prov, "layer_timing",
                                    isolated ? "isolated: each layer pass alone, 5 times back to back between two CUDA "
                                               "events in the state a training iteration gives it, after the timed "
                                               "iterations; medians over as many rounds as timed iterations. "
                                               "iteration_ms and phases are the training iterations'. With "
                                               "isolated_behind_us, a kernel spinning that long was queued ahead "
                                               "of each pass's start event, so the host's calls were enqueued "
                                               "before the GPU reached them"
                                    : behind ? "behind: CUDA events around each layer pass inside as many training "
                                               "iterations again after the timed ones, each enqueued while a kernel "
                                               "spun layers_behind_us ahead of it (twice the host's median "
                                               "enqueueing time, at least 1 ms), so the passes ran back to back with "
                                               "none of the host's gaps; medians. iteration_ms and phases are the "
                                               "timed iterations'"
                                             : "iteration: CUDA events around each layer pass inside the timed "
                                               "training iterations");
        if (prov && behind) {
            cJSON_AddNumberToObject(prov, "layers_behind_us", behind_us);
            /* iterations the host was still enqueueing when the spin ended: some pass times hold host time */
            cJSON_AddNumberToObject(prov, "layers_behind_overruns", behind_overruns);
            if (behind_overruns > 0)
                fprintf(stderr, "cnnperf-measure: warning: the host was still enqueueing %d of %d iterations when "
                                "the %.0f us spin ahead of them ended; some pass times hold host time (an "
                                "iteration of more launches than CUDA's queue holds blocks the host behind the "
                                "spin; --launch graph replays it with no host call inside)\n",
                        behind_overruns, T, behind_us);
        }
        if (prov && o.isolated_behind_us > 0) {
            cJSON_AddNumberToObject(prov, "isolated_behind_us", o.isolated_behind_us);
            /* passes whose calls outlasted the spin: their times hold host time after all */
            cJSON_AddNumberToObject(prov, "isolated_behind_overruns", n.isolated_overruns);
            if (n.isolated_overruns > 0)
                fprintf(stderr, "cnnperf-measure: warning: %d isolated pass timings were still being enqueued when the "
                                "%d us spin ahead of them ended; their times hold host time (a longer "
                                "--isolated-behind leaves none)\n", n.isolated_overruns, o.isolated_behind_us);
        }
        if (prov)
            cJSON_AddStringToObject(prov, "host_probe",
                                    "host_probe (each rank's in ranks, the slowest per field at the top): fixed "
                                    "host workloads just before and just after the timed iterations, medians of 7: "
                                    "conv_call_us a legacy cuDNN FP32 convolution call on 1x16x8x8 (forward, "
                                    "backward-data, backward-filter in turn, heuristics' first algorithms), "
                                    "launch_us a 4-byte cudaMemsetAsync, cpu_ns a step of an xorshift loop");
        if (prov && ex)
            cJSON_AddStringToObject(prov, "exchange_wait",
                                    "the compute stream's wait for the gradient exchange after the last backward "
                                    "pass: an interval of its own in the backward phase, in no layer's pass");
        if (prov && host_us) {
            char txt[512];
            snprintf(txt, sizeof txt,
                     "%d iterations after the timed ones with the stream synchronised before every layer pass%s; "
                     "host_us: wall-clock time from the end of that synchronisation to the next, per pass (its "
                     "library calls, launches and event record); host_issue_ms: the whole iteration's; medians",
                     H, o.host_behind_us > 0 ? " and a kernel spinning --host-profile-behind microseconds queued "
                                               "ahead of it (host_profile_behind_us)" : "");
            if (o.host_behind_us > 0)
                cJSON_AddNumberToObject(prov, "host_profile_behind_us", o.host_behind_us);
            cJSON_AddStringToObject(prov, "host_profile", txt);
        }
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, "iteration_ms");
        const cJSON *p10 = cJSON_GetObjectItemCaseSensitive(root, "iteration_p10_ms");
        const cJSON *p90 = cJSON_GetObjectItemCaseSensitive(root, "iteration_p90_ms");
        fprintf(stderr,
                "cnnperf-measure: %d warm-up + %d timed iterations: %.3f ms median (p10 %.3f, p90 %.3f), %.1f "
                "images/s%s\n",
                o.warmup, T, it->valuedouble, p10->valuedouble, p90->valuedouble,
                (double)o.batch * k.workers / (it->valuedouble * 1e-3), k.workers > 1 ? " in all" : "");
        const cJSON *host = cJSON_GetObjectItemCaseSensitive(root, "host_enqueue_ms");
        if (host_us)
            fprintf(stderr, "cnnperf-measure: host profile: the library calls of an iteration cost the host %.3f ms "
                            "when no call waits for the GPU (median of %d)\n",
                    host_issue_ms, H);
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "host_bound")))
            fprintf(stderr,
                    "cnnperf-measure: warning: enqueueing an iteration took the host %.3f ms of its %.3f: the "
                    "iteration is bound by the host (library call costs, CPU speed), not by the GPU\n",
                    host->valuedouble, it->valuedouble);
        if (ex) {
            const cJSON *x = cJSON_GetObjectItemCaseSensitive(root, "exchange_ms");
            const cJSON *xp = cJSON_GetObjectItemCaseSensitive(root, "exposed_exchange_ms");
            const cJSON *co = cJSON_GetObjectItemCaseSensitive(root, "compute_only_ms");
            fprintf(stderr,
                    "cnnperf-measure: %s exchange %.3f ms, %.3f ms of it exposed (compute only %.3f ms); parameters "
                    "%s on all %d workers (%s)\n",
                    cm_comm_name(k.comm), x->valuedouble, xp->valuedouble, co->valuedouble,
                    identical ? "identical" : "DIFFER", k.workers,
                    cJSON_GetObjectItemCaseSensitive(root, "parameter_checksum")->valuestring);
        }
        rc = write_result(root, o.output);
        if (ex && !identical) {
            for (int r = 0; r < k.workers; r++)
                fprintf(stderr, "cnnperf-measure: rank %d (%s): parameter checksum %016llx\n", r, info[r].host,
                        info[r].checksum);
            fprintf(stderr, "cnnperf-measure: the workers' parameters differ after the %s exchange\n",
                    cm_comm_name(k.comm));
            rc = CM_EXIT_RUNTIME;
        }
    }
    rc = share_status(rc);

    free(info);
    if (all != mine)
        free(all);
    free(mine);
    free(s.iter);
    free(s.phases);
    free(s.layers);
    free(s.exch);
    free(s.host);
    free(s.co_iter);
    free(s.co_phases);
    free(host_us);
    finish_worker(ex, &k, &net);
    return rc;
}
