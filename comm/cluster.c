/* Cluster descriptions: loading, validation, and the assumed cluster of
 * `--device X --gpus N`. Format: clusters/FORMAT.md. */
#include "cluster.h"
#include "comm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fit.h"
#include "../util/jsonread.h"
#include "../util/resources.h"

#define MAX_NODES (1 << 20)
#define MAX_GPUS_PER_NODE 64

/* A number that must be positive (bandwidths, rates): zero would divide by
 * zero in every transfer, so it is refused here with a message that says so. */
static int positive(cp_jctx *c, const cJSON *obj, const char *key, double max, double *out)
{
    if (cp_jnum(c, obj, key, true, 0, -HUGE_VAL, max, out))
        return -1;
    if (*out <= 0)
        return cp_jfail(c, key, "must be positive, got %g", *out);
    return 0;
}

static int text(cp_jctx *c, const cJSON *obj, const char *key, char *dst, size_t n)
{
    const char *s = NULL;
    if (cp_jstr(c, obj, key, true, &s))
        return -1;
    if (strlen(s) >= n)
        return cp_jfail(c, key, "at most %zu characters, got %zu", n - 1, strlen(s));
    snprintf(dst, n, "%s", s);
    return 0;
}

/* An object member that must be present and be an object. */
static const cJSON *object(cp_jctx *c, const cJSON *obj, const char *key, int required, int *failed)
{
    const cJSON *v = cp_jget(obj, key);
    *failed = 0;
    if (!v) {
        if (required)
            *failed = cp_jfail(c, key, "missing required field") != 0;
        return NULL;
    }
    if (!cJSON_IsObject(v)) {
        *failed = cp_jfail(c, key, "must be a JSON object") != 0;
        return NULL;
    }
    return v;
}

static int parse_link(cp_jctx *c, const cJSON *o, cp_link *l)
{
    if (text(c, o, "name", l->name, sizeof l->name) || positive(c, o, "bandwidth_gbs", 1e6, &l->bandwidth_gbs))
        return -1;
    return cp_jnum(c, o, "latency_us", true, 0, 0, 1e6, &l->latency_us);
}

static int parse_intra(cp_jctx *c, const cJSON *root, cp_cluster *cl)
{
    static const char *const known[] = {"name",           "bandwidth_gbs",      "latency_us", "p2p", "nccl_tuner_busbw_gbs",
                                        "ring_fixed_share", "ring_step_us", NULL};
    int failed;
    const cJSON *o = object(c, root, "intra_node", 1, &failed);
    if (failed)
        return -1;
    size_t mark = cp_jpush_key(c, "intra_node");
    bool p2p = true;
    int rc = cp_jonly(c, o, known) || parse_link(c, o, &cl->intra) || cp_jbool(c, o, "p2p", true, &p2p) ? -1 : 0;
    cl->intra_p2p = p2p;
    if (!rc && cp_jget(o, "nccl_tuner_busbw_gbs"))
        rc = positive(c, o, "nccl_tuner_busbw_gbs", 1e6, &cl->intra_nccl_tuner_busbw_gbs);
    /* both or neither: one without the other would mix a measured ring with an assumed one */
    int share = cp_jget(o, "ring_fixed_share") != NULL, step = cp_jget(o, "ring_step_us") != NULL;
    if (!rc && share != step)
        rc = cp_jfail(c, share ? "ring_step_us" : "ring_fixed_share",
                      "missing: ring_fixed_share and ring_step_us are given together");
    if (!rc && share)
        rc = cp_jnum(c, o, "ring_fixed_share", true, 0, 0, 1, &cl->intra_ring_fixed_share) ||
                     cp_jnum(c, o, "ring_step_us", true, 0, 0, 1e6, &cl->intra_ring_step_us)
                 ? -1
                 : 0;
    cl->intra_ring_measured = share;
    cp_jpop(c, mark);
    return rc;
}

/* The network is needed only to join nodes: required when nodes > 1. */
static int parse_inter(cp_jctx *c, const cJSON *root, cp_cluster *cl)
{
    static const char *const known[] = {"name", "bandwidth_gbs", "latency_us", "nics_per_node", NULL};
    int failed;
    const cJSON *o = object(c, root, "inter_node", 0, &failed);
    if (failed)
        return -1;
    if (!o) {
        if (cl->nodes > 1)
            return cp_jfail(c, "inter_node", "missing required field (the cluster has %d nodes)", cl->nodes);
        return 0;
    }
    size_t mark = cp_jpush_key(c, "inter_node");
    long long nics = 0;
    int rc = cp_jonly(c, o, known) || parse_link(c, o, &cl->inter) ||
                     cp_jint(c, o, "nics_per_node", true, 0, 1, 64, &nics)
                 ? -1
                 : 0;
    cl->nics_per_node = (int)nics;
    cp_jpop(c, mark);
    return rc;
}

/* host.ipc: optional, {bandwidth_gbs, latency_us} of one process-to-process stream */
static int parse_ipc(cp_jctx *c, const cJSON *host, cp_cluster *cl)
{
    static const char *const known[] = {"name", "bandwidth_gbs", "latency_us", "source", NULL};
    int failed;
    const cJSON *o = object(c, host, "ipc", 0, &failed);
    if (failed || !o)
        return failed ? -1 : 0;
    size_t mark = cp_jpush_key(c, "ipc");
    snprintf(cl->ipc.name, sizeof cl->ipc.name, "process to process");
    int rc = cp_jonly(c, o, known) || positive(c, o, "bandwidth_gbs", 1e6, &cl->ipc.bandwidth_gbs) ||
                     cp_jnum(c, o, "latency_us", true, 0, 0, 1e6, &cl->ipc.latency_us)
                 ? -1
                 : 0;
    cp_jpop(c, mark);
    return rc;
}

static const char *const ps_grad_keys[3] = {"fp32", "fp16", "bf16"};

/* server_gbs (cnnperf-psbench) or host.ps_server_gbs: GB/s for each gradient type, all optional */
static int ps_server_rates(cp_jctx *c, const cJSON *o, double gbs[3])
{
    static const char *const known[] = {"fp32", "fp16", "bf16", NULL};
    if (!cJSON_IsObject(o))
        return cp_jfail(c, NULL, "must be an object {\"fp32\": GB/s, \"fp16\": GB/s, \"bf16\": GB/s}");
    if (cp_jonly(c, o, known))
        return -1;
    for (int i = 0; i < 3; i++)
        if (cp_jget(o, ps_grad_keys[i]) && positive(c, o, ps_grad_keys[i], 1e6, &gbs[i]))
            return -1;
    return 0;
}

static int parse_ps_server(cp_jctx *c, const cJSON *host, cp_cluster *cl)
{
    const cJSON *o = cp_jget(host, "ps_server_gbs");
    if (!o) /* the threads a measured rate was taken on mean nothing without the rate: refused, not ignored */
        return cp_jget(host, "ps_server_threads")
                   ? cp_jfail(c, "ps_server_threads", "given without ps_server_gbs, the rate measured on them")
                   : 0;
    size_t mark = cp_jpush_key(c, "ps_server_gbs");
    int rc = ps_server_rates(c, o, cl->ps_server.gbs);
    cp_jpop(c, mark);
    long long threads = 0;
    if (!rc && cp_jint(c, host, "ps_server_threads", false, 0, 1, 1 << 16, &threads))
        rc = -1;
    cl->ps_server.threads = (int)threads; /* 0: the cores its workers leave (comm/ps.c) */
    return rc;
}

static int parse_host(cp_jctx *c, const cJSON *root, cp_cluster *cl)
{
    static const char *const known[] = {"name", "cpu_cores", "cpu_gflops_per_core", "memory_bandwidth_gbs",
                                        "ipc", "ps_server_gbs", "ps_server_threads", NULL};
    int failed;
    const cJSON *o = object(c, root, "host", 1, &failed);
    if (failed)
        return -1;
    size_t mark = cp_jpush_key(c, "host");
    const char *name = NULL;
    long long cores = 0;
    int rc = cp_jonly(c, o, known) || cp_jstr(c, o, "name", false, &name) ||
                     cp_jint(c, o, "cpu_cores", true, 0, 1, 1 << 16, &cores) ||
                     positive(c, o, "cpu_gflops_per_core", 1e6, &cl->cpu_gflops_per_core) ||
                     positive(c, o, "memory_bandwidth_gbs", 1e6, &cl->host_memory_bandwidth_gbs) ||
                     parse_ipc(c, o, cl) || parse_ps_server(c, o, cl)
                 ? -1
                 : 0;
    cl->cpu_cores = (int)cores;
    cp_jpop(c, mark);
    return rc;
}

/* Built-in ids, for the message about an unknown one. */
static void device_ids(char *list, size_t n)
{
    size_t len = 0;
    list[0] = '\0';
    for (size_t i = 0; i < cp_resource_count && len < n; i++)
        if (strcmp(cp_resources[i].dir, "devices") == 0)
            len += (size_t)snprintf(list + len, n - len, "%s%s", len ? ", " : "", cp_resources[i].name);
}

/* A device id or a path; a relative path is taken from the cluster file's
 * directory, so a cluster and its own device profiles travel together. The
 * error is reported at the "device" field, whatever went wrong inside. */
static int load_device(cp_jctx *c, const char *spec, cp_device *d)
{
    cp_error inner;
    if (!cp_spec_is_path(spec)) {
        if (!cp_resource_find("devices", spec)) {
            char list[256];
            device_ids(list, sizeof list);
            return cp_jfail(c, "device", "unknown device '%s' (built in: %s; or a path to a .json file)", spec,
                            list);
        }
        if (cp_device_load(spec, d, &inner) == 0)
            return 0;
        return cp_jfail(c, "device", "%s", inner.msg);
    }
    char path[512];
    const char *slash = strrchr(c->file, '/');
    if (spec[0] != '/' && slash)
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - c->file), c->file, spec);
    else
        snprintf(path, sizeof path, "%s", spec);
    if (cp_device_load(path, d, &inner) == 0)
        return 0;
    return cp_jfail(c, "device", "%s", inner.msg);
}

static int parse_group(cp_jctx *c, const cJSON *o, cp_gpu_group *g)
{
    static const char *const known[] = {"device", "count", NULL};
    if (!cJSON_IsObject(o))
        return cp_jfail(c, NULL, "must be a JSON object {\"device\": ..., \"count\": ...}");
    const char *spec = NULL;
    long long count = 0;
    if (cp_jonly(c, o, known) || cp_jstr(c, o, "device", true, &spec) ||
        cp_jint(c, o, "count", true, 0, 1, MAX_GPUS_PER_NODE, &count))
        return -1;
    g->count = (int)count;
    return load_device(c, spec, &g->dev);
}

static int parse_groups(cp_jctx *c, const cJSON *root, cp_cluster *cl)
{
    const cJSON *arr = cp_jget(root, "gpus_per_node");
    if (!arr)
        return cp_jfail(c, "gpus_per_node", "missing required field");
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1)
        return cp_jfail(c, "gpus_per_node", "must be a non-empty array of {\"device\": ..., \"count\": ...}");
    if (cJSON_GetArraySize(arr) > CP_MAX_GROUPS)
        return cp_jfail(c, "gpus_per_node", "at most %d GPU groups per node, got %d", CP_MAX_GROUPS,
                        cJSON_GetArraySize(arr));
    size_t mark = cp_jpush_key(c, "gpus_per_node");
    int i = 0, rc = 0;
    for (const cJSON *o = arr->child; o && !rc; o = o->next, i++) {
        size_t m = cp_jpush_index(c, i);
        rc = parse_group(c, o, &cl->groups[i]);
        cp_jpop(c, m);
        cl->gpus_per_node += cl->groups[i].count;
    }
    cl->n_groups = i;
    if (!rc && cl->gpus_per_node > MAX_GPUS_PER_NODE)
        rc = cp_jfail(c, NULL, "at most %d GPUs per node, got %d", MAX_GPUS_PER_NODE, cl->gpus_per_node);
    cp_jpop(c, mark);
    return rc;
}

static int parse_root(cp_jctx *c, const cJSON *root, cp_cluster *cl)
{
    static const char *const known[] = {"format", "name", "description", "nodes", "gpus_per_node",
                                        "intra_node", "inter_node", "host", NULL};
    const char *format = NULL, *desc = NULL;
    long long nodes = 0;
    if (!cJSON_IsObject(root))
        return cp_jfail(c, NULL, "a cluster description must be a JSON object");
    if (cp_jstr(c, root, "format", true, &format))
        return -1;
    if (strcmp(format, "cnnperf-cluster/1") != 0)
        return cp_jfail(c, "format", "unsupported format '%s' (expected 'cnnperf-cluster/1')", format);
    if (cp_jonly(c, root, known) || text(c, root, "name", cl->name, sizeof cl->name) ||
        cp_jstr(c, root, "description", false, &desc) ||
        cp_jint(c, root, "nodes", true, 0, 1, MAX_NODES, &nodes))
        return -1;
    cl->nodes = (int)nodes;
    return parse_groups(c, root, cl) || parse_intra(c, root, cl) || parse_inter(c, root, cl) ||
                   parse_host(c, root, cl)
               ? -1
               : 0;
}

int cp_cluster_parse(const char *text_, size_t len, const char *file, cp_cluster *c, cp_error *err)
{
    memset(c, 0, sizeof *c);
    snprintf(c->file, sizeof c->file, "%s", file);
    cJSON *root = cp_json_parse(text_, len, file, err);
    if (!root)
        return -1;
    cp_jctx ctx = {.file = file, .path = "$", .err = err};
    int rc = parse_root(&ctx, root, c);
    cJSON_Delete(root);
    return rc;
}

static int parse_cluster(const char *text, size_t len, const char *file, void *c, cp_error *err)
{
    return cp_cluster_parse(text, len, file, c, err);
}

int cp_cluster_load(const char *spec, cp_cluster *c, cp_error *err)
{
    memset(c, 0, sizeof *c);
    return cp_resource_load("clusters", "cluster", spec, parse_cluster, c, err);
}

/* --- the assumed cluster of --device/--gpus ------------------------------ */

typedef struct {
    const char *id;
    const char *link; /* also goes into the cluster's name */
    double bandwidth_gbs, latency_us;
    double nccl_tuner_busbw_gbs; /* 0: not seen, the link's bandwidth */
    double ring_fixed_share, ring_step_us; /* ring_fixed_share < 0: not measured */
} nvlink_gen;

/* Per direction per GPU, through NVSwitch (or the V100 hybrid cube mesh).
 * NVLink 4: what NCCL's own kernels move over it, 302.5 GB/s: the fit of
 * t = L + S/B (weights 1/t^2, 8 B...1 GiB) to an ncclSend/ncclRecv sweep
 * between two H200s (cnnperf-calibrate's nccl_sendrecv,
 * validation/h200x2/nccl-sendrecv/), a microbenchmark apart from the
 * all-reduces the model is judged on. A copy engine's peer copy moves 389
 * (validation/h200x2/calibrated-p2p-raw.json; 450 nominal), but NCCL does
 * not use the copy engines; its send/receive reaches 210 GB/s at 16 MiB
 * and 361 at 1 GiB, and the fit weighs the sizes a training job's buckets
 * have. The older generations are nominal: nobody measured them here.
 * NCCL's tuner, to choose a protocol, takes NVLink 4 for 360 GB/s (24
 * channels x 15), as NCCL 2.28.3 printed it on 2 x H100
 * (validation/h100x2/nccl-protocols/nccl-tuner-2xh100.json). */
#define NCCL_TUNER_NVLINK4_GBS 360.0
/* A ring of more than two NVLink 4 GPUs (cp_cluster's intra_ring_*), from
 * validation/h200x4/ringsize/ (2, 3 and 4 x H200, 2026-11-26). Each step
 * beyond a pair's two adds 0.3 us: the fitted latency of NCCL's all-gather
 * and reduce-scatter sweeps, 4 ranks against 2 (two more steps; all-gather
 * 11.14 against 10.54 us, reduce-scatter 11.75 against 11.13), so the
 * ring's pipeline overlaps its steps' handshakes. The share of a pair's
 * transfer term that does not grow with the ring, 0.34: the value, over
 * 0.20-0.45, at which the model's all-reduce time (MAPE, 1 MB-1 GiB) is
 * nearest that folder's 4-rank all-reduce sweep (3.1%; 2 ranks do not
 * depend on it). Those sweeps are a training set, named in
 * validation/calibration-set.json and kept out of the targets; the
 * folder's 3-rank sweep was held out of the fit (4.0% with it). */
#define NVLINK4_RING_FIXED_SHARE 0.34
#define NVLINK4_RING_STEP_US 0.3
static const nvlink_gen nvlinks[] = {
    {"h100", "NVLink 4", 302.5, 1, NCCL_TUNER_NVLINK4_GBS, NVLINK4_RING_FIXED_SHARE, NVLINK4_RING_STEP_US},
    {"h200", "NVLink 4", 302.5, 1, NCCL_TUNER_NVLINK4_GBS, NVLINK4_RING_FIXED_SHARE, NVLINK4_RING_STEP_US},
    {"a100", "NVLink 3", 300, 1, 0, -1, 0},
    {"v100", "NVLink 2", 150, 1, 0, -1, 0},
};

/* calibration/ps-exchange.json (tools/ps_exchange_pool.py): the pools of
 * device `id` into c->ipc_pool; other devices' are checked and skipped. */
static int ipc_pool_parse(const char *text, size_t len, const char *file, const char *id, cp_cluster *cl,
                          cp_error *err)
{
    static const char *const top[] = {"format", "source", "pools", NULL};
    static const char *const known[] = {"device", "workers", "servers", "bandwidth_gbs", "sweeps",
                                        "min_gbs", "max_gbs", "files", NULL};
    cJSON *root = cp_json_parse(text, len, file, err);
    if (!root)
        return -1;
    cp_jctx c = {file, "$", err};
    const char *format = NULL;
    const cJSON *pools = cp_jget(root, "pools"), *p;
    int rc = cp_jonly(&c, root, top) || cp_jstr(&c, root, "format", true, &format);
    if (!rc && strcmp(format, "cnnperf-ps-exchange/1") != 0)
        rc = cp_jfail(&c, "format", "expected cnnperf-ps-exchange/1, got '%s'", format);
    if (!rc && !cJSON_IsArray(pools))
        rc = cp_jfail(&c, "pools", "missing or not an array");
    const cJSON *list = rc ? NULL : pools;
    size_t mark = cp_jpush_key(&c, "pools");
    int i = 0;
    cJSON_ArrayForEach(p, list)
    {
        size_t m = cp_jpush_index(&c, i++);
        const char *dev = NULL;
        long long w = 0, k = 0, n = 0;
        double bw = 0, lo = 0, hi = 0;
        rc = !cJSON_IsObject(p) ? cp_jfail(&c, NULL, "must be an object") : 0;
        rc = rc || cp_jonly(&c, p, known) || cp_jstr(&c, p, "device", true, &dev) ||
             cp_jint(&c, p, "workers", true, 0, 1, 4096, &w) || cp_jint(&c, p, "servers", true, 0, 1, 4096, &k) ||
             cp_jint(&c, p, "sweeps", true, 0, 1, 1 << 20, &n) || positive(&c, p, "bandwidth_gbs", 1e6, &bw) ||
             cp_jnum(&c, p, "min_gbs", false, 0, 0, 1e6, &lo) || cp_jnum(&c, p, "max_gbs", false, 0, 0, 1e6, &hi);
        if (!rc && (lo > 0 || hi > 0) && !(lo > 0 && lo <= bw && bw <= hi))
            rc = cp_jfail(&c, "min_gbs", "%g and max_gbs %g must hold bandwidth_gbs %g between them", lo, hi, bw);
        if (!rc && strcmp(dev, id) == 0) {
            if (cl->n_ipc_pool == CP_IPC_POOL_MAX)
                rc = cp_jfail(&c, NULL, "more than %d pools of device %s", CP_IPC_POOL_MAX, id);
            else {
                cp_ipc_pooled *q = &cl->ipc_pool[cl->n_ipc_pool++];
                q->workers = (int)w, q->servers = (int)k;
                q->link.bandwidth_gbs = bw;
                q->link.latency_us = 0; /* the rounds hold it, as a psexchange file's */
                q->sweeps = (int)n;
                q->min_gbs = lo;
                q->max_gbs = hi;
                snprintf(q->link.name, sizeof q->link.name, "PS exchange pooled: median of %lld sweeps (%s)", n,
                         file);
            }
        }
        cp_jpop(&c, m);
        if (rc)
            break;
    }
    cp_jpop(&c, mark);
    cJSON_Delete(root);
    return rc ? -1 : 0;
}

#define NODE_GPUS 8
#define IB_NDR_GBS 50.0 /* 400 Gb/s per NIC per direction */
#define IB_NDR_US 3.0

int cp_cluster_homogeneous(cp_cluster *c, const cp_device *d, int gpus, cp_error *err)
{
    memset(c, 0, sizeof *c);
    if (gpus < 1 || gpus > MAX_NODES)
        return cp_fail(err, NULL, NULL, "--gpus must be in [1, %d], got %d", MAX_NODES, gpus);
    c->nodes = (gpus + NODE_GPUS - 1) / NODE_GPUS;
    c->gpus_per_node = (gpus + c->nodes - 1) / c->nodes; /* balanced: 12 GPUs are 2 nodes of 6 */
    c->groups[0].dev = *d;
    c->groups[0].count = c->gpus_per_node;
    c->n_groups = 1;

    const nvlink_gen *nv = NULL;
    for (size_t i = 0; i < sizeof nvlinks / sizeof nvlinks[0]; i++)
        if (strcmp(d->id, nvlinks[i].id) == 0)
            nv = &nvlinks[i];
    const char *kind = nv ? nv->link : "PCIe";
    if (nv) {
        snprintf(c->intra.name, sizeof c->intra.name, "%s (assumed)", nv->link);
        c->intra.bandwidth_gbs = nv->bandwidth_gbs;
        c->intra.latency_us = nv->latency_us;
        c->intra_p2p = 1;
        c->intra_nccl_tuner_busbw_gbs = nv->nccl_tuner_busbw_gbs;
        c->intra_ring_measured = nv->ring_fixed_share >= 0;
        c->intra_ring_fixed_share = c->intra_ring_measured ? nv->ring_fixed_share : 0;
        c->intra_ring_step_us = nv->ring_step_us;
    } else {
        /* The device's own host link; GeForce cards have peer-to-peer disabled. */
        snprintf(c->intra.name, sizeof c->intra.name, "%s (assumed)", d->host_link[0] ? d->host_link : "PCIe");
        c->intra.bandwidth_gbs = d->host_link_bandwidth_gbs;
        c->intra.latency_us = d->host_link_latency_us;
        c->intra_p2p = strstr(d->name, "GeForce") == NULL;
    }
    char name[160];
    if (c->nodes > 1) {
        snprintf(c->inter.name, sizeof c->inter.name, "InfiniBand NDR 400 Gb/s (assumed)");
        c->inter.bandwidth_gbs = IB_NDR_GBS;
        c->inter.latency_us = IB_NDR_US;
        c->nics_per_node = c->gpus_per_node; /* one NIC per GPU, as in a DGX */
        snprintf(name, sizeof name, "%d x %s (assumed %d %s nodes, IB NDR)", c->nodes * c->gpus_per_node, d->id,
                 c->nodes, kind);
    } else {
        snprintf(name, sizeof name, "%d x %s (assumed %s node)", gpus, d->id, kind);
    }
    snprintf(c->name, sizeof c->name, "%.*s", (int)sizeof c->name - 1, name);
    c->cpu_cores = 112; /* two 56-core sockets */
    c->cpu_gflops_per_core = 50;
    c->host_memory_bandwidth_gbs = 300;
    /* Open MPI 4.1's shared-memory transport between two ranks of one node:
     * 8.5 GB/s and 0.5 us, measured by cnnperf-calibrate's MPI ping-pong on
     * a 2 x H200 node (validation/h200x2/calibrated-nccl-2gpu-raw.json,
     * 1 GiB: 8.54 GB/s; fitted latency 0.52 us). Hosts differ (a 2 x H100
     * node: 5.8-7.0 GB/s): --host-mpi FILE gives the user's own, and the
     * device machines' pooled streams (below) replace it where measured. */
    snprintf(c->ipc.name, sizeof c->ipc.name, "MPI shared memory (assumed)");
    c->ipc.bandwidth_gbs = 8.5;
    c->ipc.latency_us = 0.5;
    /* A CPU server's own sum and SGD (GB/s moved, FP32 / FP16 / BF16
     * gradients): the median of the eight cnnperf-psbench runs under
     * validation/ (2 x H100, 2 and 4 x H200 hosts, 2026-11-25/26: FP32
     * 76-155, FP16 55-90, BF16 50-124), not the host memory's bandwidth,
     * which no server pass reached. --ps-bench FILE gives the user's own. */
    c->ps_server.gbs[0] = 118.1;
    c->ps_server.gbs[1] = 65.6;
    c->ps_server.gbs[2] = 70.6;
    c->ps_server.threads = 30; /* what those runs' servers had (32-core hosts, 2 workers) */
    snprintf(c->file, sizeof c->file, "(assumed from --device %s --gpus %d)", d->id, gpus);
    /* The device machines' own hosts, where measured: their streams pooled over calls */
    const cp_resource *pool = cp_resource_find("calibration", "ps-exchange");
    return pool ? ipc_pool_parse(pool->text, pool->len, "calibration/ps-exchange.json", d->id, c, err) : 0;
}

const cp_ipc_pooled *cp_cluster_ps_pool(const cp_cluster *c, const int workers, const int servers)
{
    const cp_ipc_pooled *one = NULL;
    for (int i = 0; i < c->n_ipc_pool; i++) {
        const cp_ipc_pooled *p = &c->ipc_pool[i];
        if (p->workers == workers && p->servers == servers)
            return p;
        if (p->workers == workers && p->servers == 1)
            one = p;
    }
    return one;
}

const cp_link *cp_cluster_ps_stream(const cp_cluster *c, const int workers, const int servers)
{
    const cp_ipc_pooled *p = cp_cluster_ps_pool(c, workers, servers);
    return p ? &p->link : &c->ipc;
}

int cp_cluster_gpus(const cp_cluster *c)
{
    return c->nodes * c->gpus_per_node;
}

const cp_device *cp_cluster_device(const cp_cluster *c, int g)
{
    if (g < 0 || g >= cp_cluster_gpus(c))
        return NULL;
    int local = g % c->gpus_per_node;
    for (int i = 0; i < c->n_groups; i++) {
        if (local < c->groups[i].count)
            return &c->groups[i].dev;
        local -= c->groups[i].count;
    }
    return NULL;
}

/* --- the host's process-to-process link, measured ----------------------------------- */

/* The sizes from CP_IPC_FIT_MIN_BYTES up of a sweep's points
 * [{bytes, time_us}] at root.k1.k2.points, fitted t = L + S / B. what:
 * the error when root.k1 is missing. */
static int fit_sweep(cp_jctx *c, const cJSON *root, const char *k1, const char *k2, const char *what,
                     cp_lat_bw_fit *f)
{
    const cJSON *a = cp_jget(root, k1), *b = cJSON_IsObject(a) ? cp_jget(a, k2) : NULL;
    const cJSON *pts = cJSON_IsObject(b) ? cp_jget(b, "points") : NULL;
    char where[96];
    int rc = 0, n = 0;
    snprintf(where, sizeof where, "%s.%s", k1, k2);
    if (!cJSON_IsObject(root))
        return cp_jfail(c, NULL, "not a JSON object");
    if (!cJSON_IsObject(a))
        return cp_jfail(c, k1, "missing or not an object: %s", what);
    if (!cJSON_IsObject(b))
        return cp_jfail(c, where, "missing or not an object");
    if (!cJSON_IsArray(pts))
        return cp_jfail(c, strcat(where, ".points"), "missing or not an array");
    int total = cJSON_GetArraySize(pts);
    double *bytes = malloc(sizeof *bytes * (size_t)(total + 1)), *us = malloc(sizeof *us * (size_t)(total + 1));
    if (!bytes || !us)
        rc = cp_fail(c->err, c->file, NULL, "out of memory");
    size_t mark = cp_jpush_key(c, k1);
    cp_jpush_key(c, k2);
    cp_jpush_key(c, "points");
    for (int i = 0; !rc && i < total; i++) {
        const cJSON *p = cJSON_GetArrayItem(pts, i);
        size_t m = cp_jpush_index(c, i);
        double s, t;
        if (!cJSON_IsObject(p))
            rc = cp_jfail(c, NULL, "must be an object {bytes, time_us}");
        else if (cp_jnum(c, p, "bytes", true, 0, 1, 1e15, &s) || cp_jnum(c, p, "time_us", true, 0, 1e-9, 1e12, &t))
            rc = -1;
        else if (s >= CP_IPC_FIT_MIN_BYTES)
            bytes[n] = s, us[n++] = t;
        cp_jpop(c, m);
    }
    if (!rc) {
        *f = cp_fit_lat_bw(bytes, us, n);
        if (!f->ok)
            rc = cp_jfail(c, NULL, "%d sizes of %.0f MiB or more: a bandwidth needs at least two that grow in time", n,
                          CP_IPC_FIT_MIN_BYTES / (1 << 20));
    }
    cp_jpop(c, mark);
    free(bytes);
    free(us);
    return rc;
}

static const char *file_part(const char *path)
{
    const char *base = strrchr(path, '/');
    return base ? base + 1 : path;
}

/* cnnperf-psexchange's rounds: a server's stream moved 2 W S / K bytes
 * (its shard pushed by W workers and pulled back) in the round less its own
 * sum and SGD; the rate over the sizes from CP_IPC_FIT_MIN_BYTES up, all
 * their bytes over all their time. Latency 0: the rounds hold it. */
static int ipc_from_exchange(cp_jctx *c, const cJSON *root, const char *path, cp_link *ipc)
{
    long long w, k;
    double idle_ms;
    const cJSON *pts = cp_jget(root, "points"), *p;
    if (cp_jint(c, root, "workers", true, 0, 1, 4096, &w) || cp_jint(c, root, "servers", true, 0, 1, 4096, &k) ||
        cp_jnum(c, root, "idle_ms", false, 0, 0, 1e7, &idle_ms))
        return -1;
    if (idle_ms > 0)
        return cp_jfail(c, "idle_ms", "%g ms: rounds pushed after an idle wait time waking the parameter server, not "
                                      "its host link (cnnperf-psexchange without --idle-ms measures that)", idle_ms);
    if (!cJSON_IsArray(pts))
        return cp_jfail(c, "points", "missing or not an array");
    double bytes = 0, us = 0;
    int i = 0, used = 0, rc = 0;
    size_t mark = cp_jpush_key(c, "points");
    cJSON_ArrayForEach(p, pts)
    {
        size_t m = cp_jpush_index(c, i++);
        double s, round, pass;
        if (!cJSON_IsObject(p))
            rc = cp_jfail(c, NULL, "must be an object {bytes_per_worker, round_us, server_pass_us}");
        else if (cp_jnum(c, p, "bytes_per_worker", true, 0, 1, 1e15, &s) ||
                 cp_jnum(c, p, "round_us", true, 0, 1e-9, 1e12, &round) ||
                 cp_jnum(c, p, "server_pass_us", true, 0, 0, 1e12, &pass))
            rc = -1;
        else if (round <= pass)
            rc = cp_jfail(c, "round_us", "%g us is not longer than the servers' pass (%g us)", round, pass);
        else if (s >= CP_IPC_FIT_MIN_BYTES)
            bytes += 2.0 * (double)w * s / (double)k, us += round - pass, used++;
        cp_jpop(c, m);
        if (rc)
            break;
    }
    cp_jpop(c, mark);
    if (!rc && !used)
        rc = cp_jfail(c, "points", "no size of %.0f MiB or more per worker", CP_IPC_FIT_MIN_BYTES / (1 << 20));
    if (rc)
        return -1;
    snprintf(ipc->name, sizeof ipc->name, "PS exchange of %.80s (%lld worker%s, %lld server%s)", file_part(path), w,
             w == 1 ? "" : "s", k, k == 1 ? "" : "s");
    ipc->bandwidth_gbs = bytes / us / 1e3;
    ipc->latency_us = 0;
    return 0;
}

int cp_cluster_exchange_idle(const cJSON *root)
{
    const cJSON *idle = cJSON_IsObject(root) ? cp_jget(root, "idle_ms") : NULL;
    return cJSON_IsNumber(idle) && idle->valuedouble > 0;
}

/* cnnperf-calibrate's MPI ping-pong (two ranks of one node, host memory):
 * $.mpi_pingpong.sweep.points[{bytes, time_us}], time one way; or a
 * cnnperf-psexchange file. */
int cp_cluster_ipc_parse(const cJSON *root, const char *path, cp_link *ipc, cp_error *err)
{
    cp_jctx c = {path, "$", err};
    const cJSON *format = cJSON_IsObject(root) ? cp_jget(root, "format") : NULL;
    if (cJSON_IsString(format) && strcmp(format->valuestring, "cnnperf-psexchange/1") == 0)
        return ipc_from_exchange(&c, root, path, ipc);
    cp_lat_bw_fit f;
    if (fit_sweep(&c, root, "mpi_pingpong", "sweep",
                  "no MPI ping-pong sweep here (cnnperf-calibrate --only mpi --raw FILE writes one)", &f))
        return -1;
    snprintf(ipc->name, sizeof ipc->name, "MPI ping-pong of %.100s", file_part(path));
    ipc->bandwidth_gbs = f.bandwidth_gbs;
    ipc->latency_us = f.latency_us;
    return 0;
}

static const char *str_in(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_IsObject(o) ? cp_jget(o, key) : NULL;
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int cp_cluster_net_emulated(const cJSON *root)
{
    const cJSON *env = cp_jget(cp_jget(root, "provenance"), "environment");
    const char *p2p = str_in(env, "NCCL_P2P_DISABLE"), *shm = str_in(env, "NCCL_SHM_DISABLE");
    return p2p && shm && strcmp(p2p, "1") == 0 && strcmp(shm, "1") == 0;
}

int cp_cluster_distinct_hosts(const char *const *names, int n)
{
    int distinct = 0;
    for (int i = 0; i < n; i++) {
        int again = 0;
        for (int j = 0; j < i && !again; j++)
            again = strcmp(names[i], names[j]) == 0;
        distinct += !again;
    }
    return distinct;
}

int cp_cluster_hosts_in(const char *list, int *total)
{
    char buf[4096], *save = NULL;
    const char *names[256];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", list ? list : "");
    for (char *t = strtok_r(buf, ", ", &save); t && n < 256; t = strtok_r(NULL, ", ", &save))
        names[n++] = t;
    if (total)
        *total = n;
    return cp_cluster_distinct_hosts(names, n);
}

int cp_cluster_net_one_per_node(const cJSON *root)
{
    const cJSON *nc = cp_jget(root, "nccl_allreduce"), *r = cJSON_IsObject(nc) ? cp_jget(nc, "ranks") : NULL;
    if (!cJSON_IsNumber(r) || r->valuedouble < 2)
        return 0;
    int ranks = (int)r->valuedouble, total = 0;
    return cp_cluster_net_emulated(root) ||
           (cp_cluster_hosts_in(str_in(cp_jget(root, "provenance"), "hostnames"), &total) == ranks && total == ranks);
}

int cp_cluster_net_parse(const cJSON *root, const char *path, cp_link *net, cp_error *err)
{
    cp_jctx c = {path, "$", err};
    long long ranks = 0;
    const cJSON *nc = cJSON_IsObject(root) ? cp_jget(root, "nccl_allreduce") : NULL;
    if (!cJSON_IsObject(nc))
        return cp_jfail(&c, "nccl_allreduce", "missing or not an object: no NCCL all-reduce sweep here "
                                              "(cnnperf-calibrate --only nccl --raw FILE writes one)");
    size_t mark = cp_jpush_key(&c, "nccl_allreduce");
    int rc = cp_jint(&c, nc, "ranks", true, 0, 2, 1 << 20, &ranks);
    cp_jpop(&c, mark);
    if (rc)
        return -1;
    int emulated = cp_cluster_net_emulated(root);
    if (!cp_cluster_net_one_per_node(root))
        return cp_jfail(&c, "provenance.hostnames",
                        "the sweep's %lld ranks are not one per node: its all-reduce need not have crossed a "
                        "network (run one rank per node, or on one host with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1)",
                        ranks);
    cp_lat_bw_fit f;
    if (fit_sweep(&c, root, "nccl_allreduce", "in_place", "no NCCL all-reduce sweep here", &f))
        return -1;
    cp_nccl_net_link((int)ranks, f.latency_us, f.bandwidth_gbs, net);
    snprintf(net->name, sizeof net->name, "NCCL network sweep of %.80s%s", file_part(path),
             emulated ? " (one host, emulated)" : "");
    return 0;
}

void cp_cluster_net_emulated_default(int ranks, cp_link *net)
{
    cp_nccl_net_link(ranks, (28.50 + 28.06) / 2, (3.463 + 3.443) / 2, net);
    snprintf(net->name, sizeof net->name, "NCCL's emulated network on a 2 x H200 host (validation/h200x2/netemu*/)");
}

int cp_cluster_net_measured(const char *path, cp_link *net, cp_error *err)
{
    cJSON *root = cp_json_read_file(path, err);
    if (!root)
        return -1;
    int rc = cp_cluster_net_parse(root, path, net, err);
    cJSON_Delete(root);
    return rc;
}

int cp_cluster_ps_server_parse(const cJSON *root, const char *path, cp_ps_server *out, cp_error *err)
{
    cp_jctx c = {path, "$", err};
    if (!cJSON_IsObject(root))
        return cp_jfail(&c, NULL, "not a JSON object");
    const cJSON *f = cp_jget(root, "format");
    if (!cJSON_IsString(f) || strcmp(f->valuestring, "cnnperf-psbench/1") != 0)
        return cp_jfail(&c, "format", "expected \"cnnperf-psbench/1\" (cnnperf-psbench -o FILE writes one)");
    const cJSON *o = cp_jget(root, "server_gbs");
    if (!o)
        return cp_jfail(&c, "server_gbs", "missing");
    cp_ps_server r;
    memset(&r, 0, sizeof r);
    long long threads = 0;
    size_t mark = cp_jpush_key(&c, "server_gbs");
    int rc = ps_server_rates(&c, o, r.gbs);
    cp_jpop(&c, mark);
    const cJSON *serial = cp_jget(root, "serial_server_gbs"); /* files before 2026-11-27 lack it */
    if (!rc && serial) {
        mark = cp_jpush_key(&c, "serial_server_gbs");
        rc = ps_server_rates(&c, serial, r.serial_gbs);
        cp_jpop(&c, mark);
    }
    if (!rc && cp_jint(&c, root, "threads", false, 0, 1, 1 << 16, &threads))
        rc = -1;
    r.threads = (int)threads;
    if (!rc)
        *out = r;
    return rc;
}

int cp_cluster_ps_server_measured(const char *path, cp_ps_server *out, cp_error *err)
{
    cJSON *root = cp_json_read_file(path, err);
    if (!root)
        return -1;
    int rc = cp_cluster_ps_server_parse(root, path, out, err);
    cJSON_Delete(root);
    return rc;
}

int cp_cluster_ipc_measured(const char *path, cp_link *ipc, cp_error *err)
{
    cJSON *root = cp_json_read_file(path, err);
    if (!root)
        return -1;
    int rc = cp_cluster_ipc_parse(root, path, ipc, err);
    cJSON_Delete(root);
    return rc;
}
