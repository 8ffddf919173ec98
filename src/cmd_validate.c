/* cnnperf validate: re-predict measured runs and compare, file by file.
 *
 * Reads cnnperf-measure results, PyTorch reference runs
 * (tools/torch_bench.py, predicted in eager mode) and calibration raw files
 * (their NCCL all-reduce sweeps), predicts each configuration through the
 * library exactly as `cnnperf predict` would, and hands the pairs to
 * validate.c (metrics, targets) and validate_report.c (output, plots).
 * --baseline/--check turn it into the CI regression guard. */
#include <dirent.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/memory.h"
#include "../util/atomic_file.h"
#include "../util/jsonread.h"
#include "../util/resources.h"
#include "../util/strutil.h"
#include "commands.h"
#include "report.h"
#include "validate_report.h"

#define BASELINE_FORMAT "cnnperf-accuracy-baseline/1"
#define CALIB_SET_NAME "calibration-set.json"

typedef struct {
    const char **measured;
    int n_measured;
    const char *format, *output, *plot, *baseline, *write_baseline, *device, *cluster, *calib_set, *eager_profile;
    const char *calibration; /* --calibration auto|none|FILE, as cnnperf predict */
    const char *host_mpi;    /* --host-mpi FILE|auto|pooled (default auto) */
    const char *net_link;    /* --net-link FILE|auto (default auto) */
    int check;
} val_opts;

#define XIPC_MAX 8 /* server counts a folder's exchange files are kept for */

/* What a folder's device call measured of its host: the MPI link (--host-mpi
 * auto; found: how many MPI ping-pong sweeps the folder holds, 0 for none;
 * cnnperf-psexchange files take their place, one per server count K in
 * xipc[K] (x_found bit K): a K-server job takes the K-server exchange, else
 * the one-server one, since K streams at once share the host), its
 * parameter servers' pass (cnnperf-psbench; ps_found), PyTorch's eager
 * operator costs (torch_bench.py --eager-overhead, without --eager-profile;
 * eager_found), and the network between its nodes (--net-link auto: an NCCL
 * sweep with one rank per node, emulated or not; net_found). */
typedef struct {
    char dir[512];
    int found, ps_found, eager_found, net_found, ddp_found;
    unsigned x_found;
    cp_link ipc, net, xipc[XIPC_MAX + 1];
    cp_ps_server ps_server;
    cp_eager_costs eager, ddp; /* ddp: torch_bench.py --ddp-overhead's, merged into eager */
} folder_host;

/* Networks are loaded once per name and layout: a campaign measures each many times. */
typedef struct {
    char name[256]; /* a built-in name or a network file's path */
    cp_network net;
} net_entry;

typedef struct {
    cp_validation v;
    int runs_cap, ar_cap, skip_cap, unproven_cap;
    net_entry *nets;
    int n_nets;
    const val_opts *o;
    int have_cluster; /* --cluster, loaded once */
    cp_cluster cluster;
    /* where a PyTorch run's host costs come from: its folder's microbenchmark
     * (the device profile's where it has none), --eager-profile FILE (costs),
     * or --eager-profile device (every run the profile's, as predict gives) */
    enum { COSTS_FOLDER, COSTS_FILE, COSTS_DEVICE } costs_from;
    cp_eager_costs costs;
    int have_ipc; /* --host-mpi FILE, loaded once */
    int ipc_pooled; /* --host-mpi pooled: the device machines' pooled stream before a folder's own */
    cp_link ipc;
    int have_net; /* --net-link FILE, loaded once */
    cp_link net;
    folder_host *dirs; /* each measured file's folder, looked up once (run_folder) */
    int n_dirs;
} val_state;

/* --- small helpers --------------------------------------------------------------- */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void *grow(void *p, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return p;
    int nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *q = realloc(p, (size_t)nc * size);
    if (q) {
        memset((char *)q + (size_t)*cap * size, 0, (size_t)(nc - *cap) * size);
        *cap = nc;
    }
    return q;
}

/* file and why, appended to a list of files (skipped, unproven) */
static int note_file(cp_val_skip **list, int *n, int *cap, const char *file, const char *reason)
{
    cp_val_skip *k = grow(*list, cap, *n + 1, sizeof *k);
    if (!k)
        return -1;
    *list = k;
    k = &k[(*n)++];
    snprintf(k->file, sizeof k->file, "%s", file);
    snprintf(k->reason, sizeof k->reason, "%s", reason);
    return 0;
}

static int skip_file(val_state *s, const char *file, const char *reason)
{
    return note_file(&s->v.skipped, &s->v.n_skipped, &s->skip_cap, file, reason);
}

static const char *str_at(const cJSON *o, const char *key)
{
    const cJSON *v = cp_jget(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Appends to a run's note, after "; " where it already says something. */
static void note_add(cp_val_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_add(cp_val_run *r, const char *fmt, ...)
{
    size_t n = strlen(r->note);
    snprintf(r->note + n, sizeof r->note - n, "%s", n ? "; " : "");
    n = strlen(r->note);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note + n, sizeof r->note - n, fmt, ap);
    va_end(ap);
}

/* What every measurement kept under validation/ must say about itself (the project's rule): how it was run, the
 * commit measured, when, on which GPU and driver, and the versions of the libraries its kind of run depends on. */
#define COUNT(list) (int)(sizeof list / sizeof *list)
static const char *const provenance_common[] = {"command", "git_commit", "date_utc", "gpu_name", "driver_version"};
static const char *const provenance_harness[] = {"cuda_runtime", "cudnn", "nccl", "mpi"}; /* cnnperf-measure */
static const char *const provenance_pytorch[] = {"cuda", "cudnn", "torch", "nccl"};      /* nccl last: DDP only */
static const char *const provenance_sweep[] = {"cuda_runtime", "nccl", "mpi"};            /* cnnperf-calibrate */

/* What is wrong with a provenance field's value, or NULL: it must be a non-empty string or a number; the commit
 * must start with a commit's hash (7 hex digits or more: a note may follow it), the date with ISO 8601 UTC. */
static const char *provenance_flaw(const char *key, const cJSON *f)
{
    if (cJSON_IsNumber(f))
        return strcmp(key, "git_commit") == 0 || strcmp(key, "date_utc") == 0 ? "not a string" : NULL;
    if (!cJSON_IsString(f) || !*f->valuestring)
        return "missing";
    const char *v = f->valuestring;
    if (strcmp(key, "git_commit") == 0 && strspn(v, "0123456789abcdef") < 7)
        return "not a commit's hash";
    int y, mo, d, h, mi, sec, n = 0;
    if (strcmp(key, "date_utc") == 0 &&
        (sscanf(v, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 || v[n] != 'Z'))
        return "not a UTC date (YYYY-MM-DDTHH:MM:SSZ)";
    return NULL;
}

/* Counts file among the measured files and notes it in v.unproven where a field of provenance_common or of the
 * n_extra of extra is flawed (provenance_flaw). */
static int check_provenance(val_state *s, const char *file, const cJSON *root, const char *const *extra, int n_extra)
{
    const int n_common = COUNT(provenance_common);
    const cJSON *prov = cp_jget(root, "provenance");
    char flaws[192] = "";
    size_t len = 0;
    for (int i = 0; i < n_common + n_extra && len < sizeof flaws; i++) {
        const char *key = i < n_common ? provenance_common[i] : extra[i - n_common];
        const char *flaw = provenance_flaw(key, cp_jget(prov, key));
        if (!flaw)
            continue;
        int w = snprintf(flaws + len, sizeof flaws - len, "%s$.provenance.%s %s", len ? ", " : "", key, flaw);
        len = w < 0 ? sizeof flaws : len + (size_t)w;
    }
    s->v.n_provenance_files++;
    return flaws[0] ? note_file(&s->v.unproven, &s->v.n_unproven, &s->unproven_cap, file, flaws) : 0;
}

/* The device to predict on: --device, else the file's `device` id where it
 * is a built-in one, else matched from the GPU's name. */
static int resolve_device(val_state *s, cp_jctx *c, const cJSON *root, const char *id_key, char *id, size_t n)
{
    if (s->o->device) { /* an id or a path: the runs are labelled with the profile's id */
        cp_device dev;
        cp_error e;
        if (cp_device_load(s->o->device, &dev, &e))
            return cp_fail(c->err, NULL, NULL, "--device: %s", e.msg);
        snprintf(id, n, "%s", dev.id);
        return 0;
    }
    const char *given = id_key ? str_at(root, id_key) : NULL;
    if (given && cp_resource_find("devices", given)) {
        snprintf(id, n, "%s", given);
        return 0;
    }
    const char *gpu = str_at(cp_jget(root, "provenance"), "gpu_name");
    if (gpu && cp_device_id_from_name(gpu, id, n) == 0)
        return 0;
    const char *dn = str_at(root, "device_name");
    if (dn && cp_device_id_from_name(dn, id, n) == 0)
        return 0;
    return cp_jfail(c, given ? id_key : "provenance.gpu_name",
                    "no built-in device for '%s' (see cnnperf devices; or give --device ID|FILE)",
                    given ? given : gpu ? gpu : "(no GPU name)");
}

/* The cluster a run used: --cluster, else `gpus` of the device on `nodes`
 * nodes (as cp_cluster_homogeneous assumes them, with its network between
 * nodes): an emulated multi-node run has one GPU per node. */
static int run_cluster(val_state *s, const cp_device *dev, int gpus, int nodes, cp_cluster *cl, cp_error *err)
{
    if (s->have_cluster) {
        *cl = s->cluster;
        return 0;
    }
    if (cp_cluster_homogeneous(cl, dev, gpus, err))
        return -1;
    if (nodes <= 1 || gpus % nodes != 0 || nodes == cl->nodes)
        return 0;
    cp_cluster wide;
    if (cp_cluster_homogeneous(&wide, dev, 16, err)) /* for its inter-node network */
        return -1;
    cl->nodes = nodes;
    cl->gpus_per_node = gpus / nodes;
    cl->groups[0].count = cl->gpus_per_node;
    cl->inter = wide.inter;
    cl->nics_per_node = cl->gpus_per_node;
    char name[160];
    snprintf(name, sizeof name, "%d x %s (assumed %d nodes of %d, IB NDR)", gpus, dev->id, nodes, cl->gpus_per_node);
    snprintf(cl->name, sizeof cl->name, "%.*s", (int)sizeof cl->name - 1, name);
    return 0;
}

/* The network file a run's command names (`--network PATH.json` in
 * provenance.command) when its network is no built-in name (a name of its
 * own, or the path itself as torch_bench.py records it): layer
 * microbenchmarks build such networks on the fly. Writes PATH into `file`
 * and returns 1, else 0 (a built-in name is re-predicted by that name). */
static int command_network_file(const cJSON *root, char *file, size_t n)
{
    const char *net = str_at(root, "network"), *cmd = str_at(cp_jget(root, "provenance"), "command");
    const char *arg = cmd ? strstr(cmd, "--network ") : NULL;
    if (!net || !arg)
        return 0;
    arg += strlen("--network ");
    size_t len = strcspn(arg, " ");
    if (len < 6 || len >= n || strncmp(arg + len - 5, ".json", 5) != 0)
        return 0;
    if (!cp_spec_is_path(net) && cp_resource_find("networks", net))
        return 0;
    snprintf(file, n, "%.*s", (int)len, arg);
    return 1;
}

/* ...and that file is not on this machine: the run cannot be re-predicted. */
static int network_file_elsewhere(const cJSON *root, char *file, size_t n)
{
    return command_network_file(root, file, n) && access(file, R_OK) != 0;
}

static const cp_network *network_for(val_state *s, cp_jctx *c, const char *name, bool channels_last)
{
    for (int i = 0; i < s->n_nets; i++)
        if (strcmp(s->nets[i].name, name) == 0 && s->nets[i].net.channels_last == channels_last)
            return &s->nets[i].net;
    net_entry *e = realloc(s->nets, (size_t)(s->n_nets + 1) * sizeof *e);
    if (!e) {
        cp_jfail(c, "network", "out of memory");
        return NULL;
    }
    s->nets = e;
    e = &e[s->n_nets];
    cp_error err;
    if (cp_network_load(name, &e->net, &err)) {
        cp_jfail(c, "network", "%s", err.msg);
        return NULL;
    }
    snprintf(e->name, sizeof e->name, "%s", name);
    e->net.channels_last = channels_last;
    s->n_nets++;
    return &e->net;
}

/* Whether file is one of the calibration set's NCCL sweeps: the listed
 * path (from the repository's root) is file itself or its tail after a '/'. */
static int in_calibration_sweeps(const cp_validation *v, const char *file)
{
    size_t n = strlen(file);
    for (int i = 0; i < v->n_calib_sweeps; i++) {
        size_t k = strlen(v->calib_sweeps[i]);
        if (k <= n && strcmp(file + n - k, v->calib_sweeps[i]) == 0 && (k == n || file[n - k - 1] == '/'))
            return 1;
    }
    return 0;
}

/* Whether file lies in one of the drawn folders: a listed folder (from the
 * repository's root, "validation/h100/holdout53") begins file or follows a
 * '/' in it, and a '/' follows it (holdout53 is not holdout5). */
static int in_drawn_folders(const cp_validation *v, const char *file)
{
    for (int i = 0; i < v->n_drawn_folders; i++) {
        const char *d = v->drawn_folders[i];
        size_t k = strlen(d);
        while (k > 1 && d[k - 1] == '/')
            k--;
        for (const char *p = file; (p = strstr(p, d)) != NULL; p++)
            if ((p == file || p[-1] == '/') && p[k] == '/')
                return 1;
    }
    return 0;
}

static int in_calibration_set(const cp_validation *v, const char *network)
{
    for (int i = 0; i < v->n_calib_networks; i++)
        if (strcmp(v->calib_networks[i], network) == 0)
            return 1;
    return 0;
}

/* --- one measured run -------------------------------------------------------------- */

static const char *const phase_keys[4] = {"loading_ms", "forward_ms", "backward_ms", "update_ms"};
static const char *const pass_keys[CP_VAL_PASSES] = {"forward_ms", "backward_data_ms", "backward_weight_ms"};

typedef struct {
    const char *network, *precision;
    cp_precision prec;
    long long batch, gpus, ps_servers;
    bool overlap, emulated;
    bool graph_api; /* cnnperf-measure --conv-api graph: PyTorch's convolution algorithms */
    bool graph_launch; /* cnnperf-measure --launch graph: one CUDA graph launch, no per-call host work */
    double workspace_mb; /* cnnperf-measure's --workspace-mb (provenance.workspace_limit_mib; default 8192) */
    double bucket_mb;
    const char *comm;
    int nodes, colocated;
    bool ps_contiguous; /* servers held contiguous shards: each bucket went to one (cnnperf-measure before ps_sharding) */
    bool channels_last; /* PyTorch's memory_format "channels_last" (torch_bench.py --channels-last) */
} run_config;

/* Worker and server hosts of a multi-rank run: ranks[] where present,
 * else the first `gpus` of provenance.hostnames. */
static void run_hosts(const cJSON *root, run_config *rc)
{
    const char *workers[256], *servers[64];
    int nw = 0, ns = 0;
    const cJSON *ranks = cp_jget(root, "ranks"), *r;
    if (!cJSON_IsArray(ranks))
        ranks = NULL;
    cJSON_ArrayForEach(r, ranks)
    {
        const char *host = str_at(r, "hostname"), *role = str_at(r, "role");
        if (!host || !role)
            continue;
        if (strcmp(role, "server") == 0 && ns < 64)
            servers[ns++] = host;
        else if (strcmp(role, "worker") == 0 && nw < 256)
            workers[nw++] = host;
    }
    if (nw == 0) {
        const cJSON *h = cp_jget(cp_jget(root, "provenance"), "hostnames");
        if (!cJSON_IsArray(h))
            h = NULL;
        cJSON_ArrayForEach(r, h)
        {
            if (cJSON_IsString(r) && nw < rc->gpus && nw < 256)
                workers[nw++] = r->valuestring;
        }
    }
    int hosts = cp_cluster_distinct_hosts(workers, nw);
    rc->nodes = rc->emulated ? (int)rc->gpus : hosts ? hosts : 1;
    /* servers beside the workers, or (one server, no host list) as cnnperf predict assumes */
    rc->colocated = rc->ps_servers > 1;
    if (ns > 0) {
        rc->colocated = 1;
        for (int i = 0; i < ns; i++) {
            int found = 0;
            for (int j = 0; j < nw && !found; j++)
                found = strcmp(servers[i], workers[j]) == 0;
            rc->colocated &= found;
        }
    }
}

static int read_config(cp_jctx *c, const cJSON *root, run_config *rc)
{
    memset(rc, 0, sizeof *rc);
    if (cp_jstr(c, root, "network", true, &rc->network) || cp_jint(c, root, "batch", true, 0, 1, 1 << 20, &rc->batch) ||
        cp_jstr(c, root, "precision", true, &rc->precision) ||
        cp_jint(c, root, "gpus", false, 1, 1, 1 << 20, &rc->gpus))
        return -1;
    if (cp_precision_parse(rc->precision, &rc->prec))
        return cp_jfail(c, "precision", "expected fp32, tf32, fp16 or bf16, got '%s'", rc->precision);
    const cJSON *api = cp_jget(cp_jget(root, "provenance"), "conv_api");
    rc->graph_api = cJSON_IsString(api) && strcmp(api->valuestring, "graph") == 0;
    const cJSON *launch = cp_jget(cp_jget(root, "provenance"), "launch");
    rc->graph_launch = cJSON_IsString(launch) && strcmp(launch->valuestring, "graph") == 0;
    const cJSON *mf = cp_jget(root, "memory_format");
    rc->channels_last = cJSON_IsString(mf) && strcmp(mf->valuestring, "channels_last") == 0;
    const cJSON *ws = cp_jget(cp_jget(root, "provenance"), "workspace_limit_mib");
    rc->workspace_mb = cJSON_IsNumber(ws) && ws->valuedouble >= 0 ? cp_workspace_limit_mb(ws->valuedouble)
                                                                   : CP_HARNESS_WORKSPACE_MB;
    rc->comm = "none";
    rc->overlap = true;
    rc->bucket_mb = 25;
    rc->ps_servers = 1;
    rc->nodes = 1;
    if (rc->gpus == 1)
        return 0;
    if (cp_jstr(c, root, "comm", false, &rc->comm) || cp_jbool(c, root, "overlap", true, &rc->overlap) ||
        cp_jint(c, root, "ps_servers", false, 1, 1, 1 << 20, &rc->ps_servers) ||
        cp_jbool(c, root, "nccl_network_emulation", false, &rc->emulated))
        return -1;
    if (!rc->comm)
        rc->comm = "nccl"; /* cnnperf-measure's default with several ranks */
    cp_comm_mode m;
    if (cp_comm_parse(rc->comm, &m) || m == CP_COMM_AUTO)
        return cp_jfail(c, "comm", "expected nccl, ps or none, got '%s'", rc->comm);
    const cJSON *ex = cp_jget(cp_jget(root, "provenance"), "exchange");
    if (cJSON_IsObject(ex)) {
        size_t mark = cp_jpush_key(c, "provenance");
        size_t mark2 = cp_jpush_key(c, "exchange");
        int bad = cp_jnum(c, ex, "bucket_mb", false, 25, 1e-6, 1e6, &rc->bucket_mb);
        rc->ps_contiguous = m == CP_COMM_PS && rc->ps_servers > 1 && !cp_jget(ex, "ps_sharding");
        cp_jpop(c, mark2);
        cp_jpop(c, mark);
        if (bad)
            return -1;
    }
    run_hosts(root, rc);
    return 0;
}

static void run_label(cp_val_run *r, const cJSON *root)
{
    char ex[96] = "";
    if (r->gpus > 1) {
        if (strcmp(r->comm, "ps") == 0)
            snprintf(ex, sizeof ex, " ps%d", r->ps_servers);
        else
            snprintf(ex, sizeof ex, " %s", r->comm);
        if (strcmp(r->comm, "none") != 0 && !r->overlap)
            strcat(ex, " no-overlap");
        if (r->emulated)
            strcat(ex, " emulated");
    }
    const char *mf = str_at(root, "memory_format");
    char label[512];
    snprintf(label, sizeof label, "%s b%d %s %dx%s%s%s%s", r->network, r->batch, r->precision, r->gpus, r->device, ex,
             r->source == CP_VAL_PYTORCH ? " pytorch" : "", mf && strcmp(mf, "channels_last") == 0 ? " channels-last" : "");
    snprintf(r->label, sizeof r->label, "%.*s", (int)sizeof r->label - 1, label);
    /* the library the run's time depends on: cuDNN for cnnperf-measure (a string), PyTorch's own version */
    const cJSON *prov = cp_jget(root, "provenance"), *lib = cp_jget(prov, r->source == CP_VAL_PYTORCH ? "torch" : "cudnn");
    char ver[64] = "unknown";
    if (cJSON_IsString(lib))
        snprintf(ver, sizeof ver, "%.63s", lib->valuestring);
    else if (cJSON_IsNumber(lib))
        snprintf(ver, sizeof ver, "%.0f", lib->valuedouble);
    snprintf(r->config, sizeof r->config, "%.190s | %s | %s", label, r->harness, ver);
}

/* Measured phases (required in cnnperf-measure results) and layers. */
static int read_measured_detail(cp_jctx *c, const cJSON *root, const cp_network *net, cp_val_run *r, int *unmatched)
{
    int required = r->source == CP_VAL_CNNPERF;
    const cJSON *ph = cp_jget(root, "phases");
    if (ph || required) {
        if (!cJSON_IsObject(ph))
            return cp_jfail(c, "phases", ph ? "must be an object" : "missing required field");
        size_t mark = cp_jpush_key(c, "phases");
        for (int k = 0; k < 4; k++)
            if (cp_jnum(c, ph, phase_keys[k], true, 0, 0, 1e9, &r->meas_phase[k])) {
                cp_jpop(c, mark);
                return -1;
            }
        cp_jpop(c, mark);
        r->has_phases = 1;
    }
    const cJSON *ls = cp_jget(root, "layers");
    if (!ls && !required)
        return 0;
    if (!cJSON_IsArray(ls))
        return cp_jfail(c, "layers", ls ? "must be an array" : "missing required field");
    int n = cJSON_GetArraySize(ls);
    r->layers = calloc((size_t)(n ? n : 1), sizeof *r->layers);
    if (!r->layers)
        return cp_jfail(c, "layers", "out of memory");
    size_t mark = cp_jpush_key(c, "layers");
    int i = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, ls)
    {
        size_t m2 = cp_jpush_index(c, i++);
        const char *name = NULL, *kind = NULL;
        double ms[CP_VAL_PASSES];
        int bad = !cJSON_IsObject(l) ? cp_jfail(c, NULL, "must be an object")
                                     : cp_jstr(c, l, "name", true, &name) || cp_jstr(c, l, "kind", false, &kind);
        for (int p = 0; p < CP_VAL_PASSES && !bad; p++)
            bad = cp_jnum(c, l, pass_keys[p], true, 0, 0, 1e9, &ms[p]);
        cp_jpop(c, m2);
        if (bad) {
            cp_jpop(c, mark);
            return -1;
        }
        int at = cp_network_find(net, name);
        if (at < 0) {
            (*unmatched)++;
            continue;
        }
        cp_val_layer *y = &r->layers[r->n_layers++];
        snprintf(y->name, sizeof y->name, "%s", name);
        snprintf(y->kind, sizeof y->kind, "%s", kind ? kind : net->layers[at].kind->name);
        memcpy(y->meas, ms, sizeof ms);
        y->pred[0] = at; /* the network's index until the prediction fills it in */
    }
    cp_jpop(c, mark);
    return 0;
}

static void fill_predicted(cp_val_run *r, const cp_prediction *p)
{
    static const cp_pass passes[CP_VAL_PASSES] = {CP_PASS_FWD, CP_PASS_BWD_DATA, CP_PASS_BWD_WEIGHT};
    for (int i = 0; i < r->n_layers; i++) {
        cp_val_layer *y = &r->layers[i];
        const cp_layer_pred *lp = &p->layers[(int)y->pred[0]];
        double ms[CP_VAL_PASSES];
        for (int k = 0; k < CP_VAL_PASSES; k++)
            ms[k] = lp->ms[passes[k]];
        cp_val_layer_set_predicted(y, ms);
    }
}

/* The layer-pass corrections the predictions carry (cp_device_load
 * attaches them), listed once each for the report. */
static void note_calibration(cp_validation *v, const cp_calibration *cal)
{
    const char *f = cal->loaded ? cal->file : "none (the analytic model)";
    if (strstr(v->calibration, f))
        return;
    size_t k = strlen(v->calibration);
    snprintf(v->calibration + k, sizeof v->calibration - k, "%s%s", k ? ", " : "", f);
}


static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The MPI link of dir's cnnperf-calibrate raw files with a ping-pong
 * sweep (each fitted, then the mean time per byte and the mean latency: two
 * sweeps of one host minutes apart differed by up to 20%), and the first
 * (by name) raw file with an NCCL sweep of one rank per node,
 * cnnperf-psbench file and eager-overhead file:
 * run_device.sh keeps one device call's results in one folder, so they
 * measured the host the folder's runs ran on. */
static int scan_folder(const char *dir, folder_host *h, cp_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char **names = NULL;
    int n = 0, cap = 0, rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        char **grown = grow(names, &cap, n + 1, sizeof *names);
        if (!grown || !(grown[n] = strdup(e->d_name))) {
            names = grown ? grown : names;
            rc = cp_fail(err, dir, NULL, "out of memory");
            break;
        }
        names = grown;
        n++;
    }
    closedir(d);
    if (!rc && n > 1) /* a folder whose runs are all kept compressed may have no plain JSON */
        qsort(names, (size_t)n, sizeof *names, by_name);
    double inv_bw = 0, lat = 0;
    char first[64] = "";
    for (int i = 0; !rc && i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        cp_error ignored;
        cJSON *root = cp_json_read_file(path, &ignored);
        const char *format = str_at(root, "format"), *schema;
        int calib = format && strcmp(format, "cnnperf-calibration/1") == 0;
        /* an NCCL sweep of one rank per node measured the network (--net-link auto); its file may
         * hold an MPI sweep too */
        if (calib && !h->net_found && cp_cluster_net_one_per_node(root))
            h->net_found = !(rc = cp_cluster_net_parse(root, path, &h->net, err));
        if (rc) {
            /* the file's error is the folder's */
        } else if (format && strcmp(format, "cnnperf-psexchange/1") == 0 && !cp_cluster_exchange_idle(root)) {
            /* the PS exchange itself measured: it, not a ping-pong, is the folder's server stream (rounds after
             * an idle wait, --idle-ms, time waking the server instead, and no branch takes them) */
            const cJSON *k = cp_jget(root, "servers");
            int servers = cJSON_IsNumber(k) && k->valuedouble >= 1 && k->valuedouble <= XIPC_MAX ? k->valueint : 0;
            if (servers && !(h->x_found & 1u << servers)) {
                rc = cp_cluster_ipc_parse(root, path, &h->xipc[servers], err);
                h->x_found |= rc ? 0 : 1u << servers;
            } else if (!servers) { /* more servers than kept: checked (its error names the field), not used */
                rc = cp_cluster_ipc_parse(root, path, &h->xipc[0], err);
            }
        } else if (calib && cp_jget(root, "mpi_pingpong")) {
            cp_link one;
            rc = cp_cluster_ipc_parse(root, path, &one, err);
            if (!rc && h->found++ == 0)
                snprintf(first, sizeof first, "%.60s", names[i]);
            inv_bw += rc ? 0 : 1 / one.bandwidth_gbs;
            lat += rc ? 0 : one.latency_us;
        } else if (!h->ps_found && format && strcmp(format, "cnnperf-psbench/1") == 0) {
            rc = cp_cluster_ps_server_parse(root, path, &h->ps_server, err);
            h->ps_found = !rc;
        } else if (!h->eager_found && (schema = str_at(root, "schema")) &&
                   strcmp(schema, "cnnperf-eager-overhead/1") == 0) {
            rc = cp_eager_costs_parse_root(root, path, &h->eager, err);
            h->eager_found = !rc;
        } else if (!h->ddp_found && (schema = str_at(root, "schema")) &&
                   strcmp(schema, "cnnperf-ddp-overhead/1") == 0) {
            cp_jctx jc = {.file = path, .path = "$", .err = err};
            rc = cp_eager_ddp_parse(&jc, root, &h->ddp) || (!h->ddp.has_ddp && cp_jfail(&jc, "ddp", "missing"));
            h->ddp_found = !rc;
        }
        cJSON_Delete(root);
    }
    if (!rc && h->ddp_found && h->eager_found) { /* the folder's DDP costs with its operator costs */
        memcpy(h->eager.ddp_us, h->ddp.ddp_us, sizeof h->eager.ddp_us);
        h->eager.has_ddp = 1;
    }
    if (!rc && (h->x_found & 2u)) {
        h->ipc = h->xipc[1];
        h->found = 1;
    } else if (!rc && h->found) {
        h->ipc.bandwidth_gbs = h->found / inv_bw;
        h->ipc.latency_us = lat / h->found;
        if (h->found == 1)
            snprintf(h->ipc.name, sizeof h->ipc.name, "MPI ping-pong of %s", first);
        else
            snprintf(h->ipc.name, sizeof h->ipc.name, "MPI ping-pong, mean of %d sweeps (%s, ...)", h->found, first);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* What the folder of a run's file measured of its host (scan_folder),
 * looked up once per folder; *out NULL on error. */
static int run_folder(val_state *s, const char *file, const folder_host **out, cp_error *err)
{
    *out = NULL;
    char dir[512];
    const char *slash = strrchr(file, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - file) : 1, slash ? file : ".");
    for (int i = 0; i < s->n_dirs; i++)
        if (strcmp(s->dirs[i].dir, dir) == 0) {
            *out = &s->dirs[i];
            return 0;
        }
    int cap = s->n_dirs;
    folder_host *d = grow(s->dirs, &cap, s->n_dirs + 1, sizeof *d);
    if (!d)
        return cp_fail(err, file, NULL, "out of memory");
    s->dirs = d;
    folder_host *h = &d[s->n_dirs];
    memset(h, 0, sizeof *h);
    snprintf(h->dir, sizeof h->dir, "%s", dir);
    if (scan_folder(dir, h, err))
        return -1;
    s->n_dirs++;
    *out = h;
    return 0;
}

/* The host MPI link a multi-GPU run with `workers` workers a node and
 * `servers` parameter servers is predicted with, for cluster cl: --host-mpi
 * FILE; else (auto) the run's own folder's measured one (its exchange with
 * as many servers where measured); NULL: the cluster's, which for an
 * assumed H100 or H200 node is the device machines' stream pooled over
 * calls (calibration/ps-exchange.json), and under --host-mpi pooled that
 * stream wherever cl has one for those counts (ACCURACY.md session 48: it
 * beat each call's own sweep on the calibration set, not on the
 * evaluation set). Outside --host-mpi FILE, *ps: the folder's measured
 * parameter-server pass, or NULL; *exchange: *ipc is a PS exchange sweep
 * (cnnperf-psexchange), not a ping-pong. */
static int run_ipc(val_state *s, const char *file, const cp_cluster *cl, int workers, int servers,
                   const cp_link **ipc, const cp_ps_server **ps, int *exchange, cp_error *err)
{
    *ipc = NULL;
    *ps = NULL;
    *exchange = 0;
    if (s->have_ipc) {
        *ipc = &s->ipc;
        return 0;
    }
    if (s->have_cluster) /* a described cluster brings its own host.ipc */
        return 0;
    const folder_host *h;
    if (run_folder(s, file, &h, err))
        return -1;
    *ps = h->ps_found ? &h->ps_server : NULL;
    if (s->ipc_pooled && cp_cluster_ps_stream(cl, workers, servers) != &cl->ipc)
        return 0;
    int own_k = servers > 1 && servers <= XIPC_MAX && (h->x_found & 1u << servers);
    *ipc = own_k ? &h->xipc[servers] : h->found ? &h->ipc : NULL;
    *exchange = own_k || (h->x_found & 2u);
    return 0;
}

/* The network between nodes a multi-node run is predicted with: --net-link
 * FILE, else (auto) its folder's measured one; NULL: the cluster's. */
static int run_net(val_state *s, const char *file, const cp_link **net, cp_error *err)
{
    *net = NULL;
    if (s->have_net) {
        *net = &s->net;
        return 0;
    }
    if (s->have_cluster)
        return 0;
    const folder_host *h;
    if (run_folder(s, file, &h, err))
        return -1;
    *net = h->net_found ? &h->net : NULL;
    return 0;
}

/* PyTorch's operator costs a run is predicted with: --eager-profile FILE,
 * else the run's own folder's torch_bench.py --eager-overhead file, else
 * the device profile's (NULL); --eager-profile device: the profile's
 * always, what `predict --mode eager` gives a user who measured nothing. */
static int run_eager_costs(val_state *s, const char *file, const cp_eager_costs **costs, cp_error *err)
{
    *costs = NULL;
    if (s->costs_from == COSTS_DEVICE)
        return 0;
    if (s->costs_from == COSTS_FILE) {
        *costs = &s->costs;
        return 0;
    }
    const folder_host *h;
    if (run_folder(s, file, &h, err))
        return -1;
    *costs = h->eager_found ? &h->eager : NULL;
    return 0;
}

/* The run's GPU memory where it recorded one that is scored (predict_memory
 * sets the prediction beside it): cnnperf-measure's rank 0
 * besides its workspace, alone or in an NCCL job (a PS job's rank 0 may be
 * its server), and PyTorch's one-GPU steps' peak allocation (DDP's buckets
 * are not in the eager model); 0 for none. */
static double measured_memory_mib(const cJSON *root, const cp_val_run *r)
{
    if (r->source == CP_VAL_PYTORCH) {
        const cJSON *m = cp_jget(cp_jget(root, "memory"), "peak_allocated_mib");
        return cJSON_IsNumber(m) && r->gpus == 1 ? m->valuedouble : 0;
    }
    const cJSON *prov = cp_jget(root, "provenance"), *used = cp_jget(prov, "memory_used_mib"),
                *ws = cp_jget(prov, "workspace_used_mib");
    if (!cJSON_IsNumber(used) || strcmp(r->comm, "ps") == 0)
        return 0;
    return used->valuedouble - (cJSON_IsNumber(ws) ? ws->valuedouble : 0);
}

/* The footprint predicted for a run whose memory was measured (model/memory.h). */
static void predict_memory(const cp_device *dev, const run_config *rc, const cp_network *net, cp_val_run *r)
{
    int eager = r->source == CP_VAL_PYTORCH;
    cp_memory m;
    cp_comm_mode comm = CP_COMM_NONE;
    if (r->meas_memory_mib <= 0 || cp_comm_parse(r->comm, &comm) ||
        cp_memory_worker(net, dev, r->batch, rc->prec, eager, cp_nccl_gpus(comm, r->gpus), &m))
        return; /* nothing measured, or no host memory to work it out */
    r->has_memory = 1;
    r->pred_memory_mib = (eager ? cp_memory_eager_allocated(&m) : m.total) / 1048576.0;
    r->pred_fits = m.fits;
}

/* The range predict shows beside a one-GPU prediction (report.c): the
 * iteration with the host at either end of what its device profile has
 * seen, eager mode's (x) or cudnnFind's calls' where the profile calibrates
 * them; kept where it moves the prediction. */
static void host_range(const cp_prediction *p, const cp_eager *x, cp_val_run *r)
{
    double range[2] = {0, 0};
    if (x && x->has_range) {
        range[0] = x->range_ms[0], range[1] = x->range_ms[1];
    } else if (!x) {
        cp_legacy_host h = cp_legacy_host_estimate(p);
        cp_legacy_host_range(p, &h, range);
    }
    r->has_range = range[1] > range[0];
    r->pred_low_ms = range[0];
    r->pred_high_ms = range[1];
}

/* PyTorch's runs are predicted as PyTorch runs them (--mode eager: the
 * host's cost per operator, autocast casts, the foreach optimizer);
 * cnnperf-measure's as it runs them (harness mode, with PyTorch's
 * convolution algorithms where it used cuDNN's graph API). */
static int predict_run(val_state *s, cp_jctx *c, const run_config *rc, const cp_network *net, cp_val_run *r)
{
    cp_error e;
    cp_device dev;
    if (cp_device_load(s->o->device ? s->o->device : r->device, &dev, &e))
        return s->o->device ? cp_fail(c->err, NULL, NULL, "--device: %s", e.msg) : cp_jfail(c, "device", "%s", e.msg);
    int eager = r->source == CP_VAL_PYTORCH, rc_ = 0, builtin = 0;
    char ipc_note[320] = "";
    cp_algos algos = eager || rc->graph_api ? CP_ALGOS_PYTORCH : CP_ALGOS_FIND;
    note_calibration(&s->v, cp_device_calibration(&dev, algos));
    if (rc->graph_launch) /* the GPU alone: the host's legacy calls do not pace a graph launch */
        dev.legacy_host.loaded = 0;
    const cp_eager_costs *costs = NULL;
    if (eager && run_eager_costs(s, c->file, &costs, c->err))
        return -1;
    cp_eager_costs toward; /* rule 59: the folder's one call moved toward the profile's median over its calls */
    int moved = costs && s->costs_from == COSTS_FOLDER && dev.eager.given && dev.eager.spread_calls >= 2;
    if (moved) {
        toward = *costs;
        cp_eager_costs_toward(&toward, &dev.eager);
        costs = &toward;
    }
    if (r->gpus == 1) {
        cp_prediction p = {0};
        cp_eager x = {0};
        if (cp_predict_ws(net, &dev, r->batch, rc->prec, algos, cp_run_workspace_mb(eager, rc->workspace_mb), &p, &e) ||
            (eager && (cp_eager_run(&p, costs, &x, &e) || cp_eager_range(&p, costs, &x, &e)))) {
            rc_ = cp_jfail(c, "precision", "cannot predict: %s", e.msg);
        } else {
            host_range(&p, eager ? &x : NULL, r);
            r->pred_ms = eager ? x.iteration_ms : p.iteration_ms;
            double ph[4] = {p.loading_ms, p.forward_ms, p.backward_ms, p.update_ms};
            double pe[4] = {x.loading_ms, x.forward_ms, x.backward_ms, x.update_ms};
            memcpy(r->pred_phase, eager ? pe : ph, sizeof ph);
            fill_predicted(r, &p);
            builtin = eager && x.builtin_costs;
            r->has_pred_host = eager;
            r->pred_host_ms = x.host_ms;
            memcpy(r->pred_host_phase_ms, x.host_phase_ms, sizeof x.host_phase_ms);
        }
        cp_eager_free(&x);
        cp_prediction_free(&p);
    } else {
        cp_cluster cl;
        const cp_link *ipc, *link = NULL;
        const cp_ps_server *ps_server;
        if (run_cluster(s, &dev, r->gpus, rc->nodes, &cl, &e))
            return cp_jfail(c, "gpus", "%s", e.msg);
        int workers = cp_cluster_node_gpus(&cl, (int)r->gpus), exchange;
        if (run_ipc(s, c->file, &cl, workers, (int)r->ps_servers, &ipc, &ps_server, &exchange, c->err) ||
            (cl.nodes > 1 && run_net(s, c->file, &link, c->err)))
            return -1;
        cp_link emulated_net;
        if (!link && cl.nodes > 1 && rc->emulated && !s->have_cluster) {
            /* the emulation measured in another call: closer to what ran than an assumed network */
            cp_cluster_net_emulated_default((int)r->gpus, &emulated_net);
            link = &emulated_net;
        }
        if (link) {
            cl.inter = *link;
            snprintf(ipc_note, sizeof ipc_note, "network measured: %.120s", link->name);
        } else if (cl.nodes > 1) {
            snprintf(ipc_note, sizeof ipc_note, "network assumed: %.120s", cl.inter.name);
        }
        cp_link toward_pool; /* rule 60: the call's exchange moved toward the device machines' pooled stream */
        const cp_ipc_pooled *pool = cp_cluster_ps_pool(&cl, workers, (int)r->ps_servers);
        if (ipc && exchange && pool && strcmp(r->comm, "ps") == 0) {
            toward_pool = *ipc;
            cp_link_toward(&toward_pool, &pool->link);
            ipc = &toward_pool;
        }
        if (ipc)
            cp_cluster_use_ipc(&cl, ipc);
        const cp_link *stream = cp_cluster_ps_stream(&cl, workers, (int)r->ps_servers);
        if ((ipc || stream != &cl.ipc) && strcmp(r->comm, "ps") == 0)
            snprintf(ipc_note + strlen(ipc_note), sizeof ipc_note - strlen(ipc_note), "%shost MPI %.3g GB/s, %.120s",
                     *ipc_note ? "; " : "", stream->bandwidth_gbs, stream->name);
        if (ps_server) {
            cl.ps_server = *ps_server;
            if (strcmp(r->comm, "ps") == 0)
                snprintf(ipc_note + strlen(ipc_note), sizeof ipc_note - strlen(ipc_note),
                         "%sPS server pass measured (cnnperf-psbench)", *ipc_note ? "; " : "");
        }
        if (rc->ps_contiguous) /* scored all the same: the data are what they are */
            snprintf(ipc_note + strlen(ipc_note), sizeof ipc_note - strlen(ipc_note),
                     "%sservers held contiguous shards, each bucket on one (the model splits every bucket)",
                     *ipc_note ? "; " : "");
        cp_dist_config cfg = {.gpus = r->gpus, .batch = r->batch, .prec = rc->prec, .algo = CP_AR_AUTO,
                              .ps = {.servers = r->ps_servers, .colocated = rc->colocated}, .overlap = r->overlap,
                              .bucket_mb = rc->bucket_mb, .mode = eager ? CP_MODE_EAGER : CP_MODE_HARNESS,
                              .algos = algos,
                              .workspace_mb = rc->workspace_mb,
                              .eager_costs = costs};
        cp_comm_parse(r->comm, &cfg.comm);
        cp_single_cache cache = {0};
        cp_dist_prediction d = {0};
        if (cp_predict_distributed(net, &cl, &cfg, &cache, &d, &e)) {
            rc_ = cp_jfail(c, "gpus", "cannot predict: %s", e.msg);
        } else {
            r->pred_ms = d.iteration_ms;
            double ph[4] = {d.loading_ms, d.forward_ms, d.backward_ms, d.update_ms};
            memcpy(r->pred_phase, ph, sizeof ph);
            r->pred_exchange_ms = d.exchange_ms;
            fill_predicted(r, d.group[d.slowest]);
            const cp_eager *x = eager ? d.group_eager[d.slowest] : NULL;
            builtin = x && x->builtin_costs;
            r->has_pred_host = x != NULL;
            r->pred_host_ms = x ? x->host_ms : 0;
            if (x)
                memcpy(r->pred_host_phase_ms, x->host_phase_ms, sizeof x->host_phase_ms);
        }
        cp_dist_prediction_free(&d);
        cp_single_cache_free(&cache);
    }
    snprintf(r->harness, sizeof r->harness, "%s", cp_val_harnesses[eager ? 2 : rc->graph_api ? 1 : 0]);
    if (!rc_ && eager)
        snprintf(r->note, sizeof r->note, "eager mode%s%s",
                 moved   ? ", host costs measured in the run's folder, moved toward the device profile's"
                 : costs && s->costs_from == COSTS_FOLDER ? ", host costs measured in the run's folder"
                 : s->costs_from == COSTS_DEVICE          ? ", host costs of the device profile"
                                                          : "",
                 builtin ? ", host costs partly built-in (no --eager-profile)" : "");
    else if (!rc_ && rc->graph_api)
        snprintf(r->note, sizeof r->note, "graph API");
    if (!rc_)
        predict_memory(&dev, rc, net, r);
    if (!rc_ && ipc_note[0])
        note_add(r, "%s", ipc_note);
    return rc_;
}

/* cnnperf-measure before commit 3bd097b let its compute stream wait for the
 * gradient exchange inside the last backward pass it timed (the first
 * layer's, in network order, as backward runs from the last layer); since,
 * the wait is an interval of no layer's, and provenance.exchange_wait says
 * so. Flags that pass of an older multi-GPU run as unscored; 1 if one was. */
static int exchange_wait_in_last_pass(const cJSON *root, cp_val_run *r)
{
    if (r->source != CP_VAL_CNNPERF || r->gpus < 2 || strcmp(r->comm, "none") == 0 ||
        cp_jget(cp_jget(root, "provenance"), "exchange_wait"))
        return 0;
    for (int l = 0; l < r->n_layers; l++) {
        cp_val_layer *y = &r->layers[l];
        int k = y->meas[2] > 0 ? 2 : y->meas[1] > 0 ? 1 : -1; /* backward-weight runs after backward-data */
        if (k >= 0) {
            y->unscored[k] = 1;
            return 1;
        }
    }
    return 0;
}

/* a run's phases are copied whole from the eager model's (predict_run) and into a run (load_run) */
_Static_assert(CP_VAL_HOST_PHASES == CP_EAGER_HOST_PHASES, "validate.h's host phases are model/eager.h's");

/* A PyTorch run's (or one of its DDP ranks') "host_wall_ms" iteration into *wall; absent: 0 */
static int host_wall(cp_jctx *c, const cJSON *obj, double *wall, double phase[CP_EAGER_HOST_PHASES])
{
    const cJSON *walls = cp_jget(obj, "host_wall_ms");
    *wall = 0;
    for (int i = 0; i < CP_EAGER_HOST_PHASES; i++)
        phase[i] = 0;
    if (!walls)
        return 0;
    if (!cJSON_IsObject(walls))
        return cp_jfail(c, "host_wall_ms", "must be an object {forward, backward, step, iteration}");
    size_t mark = cp_jpush_key(c, "host_wall_ms");
    int bad = cp_jnum(c, walls, "iteration", false, 0, 0, 1e9, wall);
    for (int i = 0; i < CP_EAGER_HOST_PHASES && !bad; i++)
        bad = cp_jnum(c, walls, cp_eager_host_phase_names[i], false, 0, 0, 1e9, &phase[i]);
    cp_jpop(c, mark);
    return bad ? -1 : 0;
}

/* "host_probe": {"before": {...}, "after": {...}} (measure/host_probe.h, torch_bench.py's host_probe): the
 * fixed host work's cost just before and just after the timed iterations, us */
static int host_probe(cp_jctx *c, const cJSON *root, cp_val_source source, double us[2])
{
    static const char *const when[2] = {"before", "after"};
    const char *key = source == CP_VAL_PYTORCH ? "op_us" : "conv_call_us";
    const cJSON *hp = cp_jget(root, "host_probe");
    us[0] = us[1] = 0;
    if (!hp)
        return 0;
    if (!cJSON_IsObject(hp))
        return cp_jfail(c, "host_probe", "must be an object {before, after}");
    size_t mark = cp_jpush_key(c, "host_probe");
    int bad = 0;
    for (int w = 0; w < 2 && !bad; w++) {
        const cJSON *o = cp_jget(hp, when[w]);
        if (!cJSON_IsObject(o)) {
            bad = cp_jfail(c, when[w], "must be an object {%s, ...}", key);
            break;
        }
        size_t at = cp_jpush_key(c, when[w]);
        bad = cp_jnum(c, o, key, true, 0, 0, 1e9, &us[w]);
        cp_jpop(c, at);
    }
    cp_jpop(c, mark);
    return bad ? -1 : 0;
}

static int load_run(val_state *s, cp_jctx *c, const cJSON *root, cp_val_source source)
{
    run_config rc;
    if (read_config(c, root, &rc))
        return -1;
    cp_validation *v = &s->v;
    cp_val_run *runs = grow(v->runs, &s->runs_cap, v->n_runs + 1, sizeof *runs);
    if (!runs)
        return cp_jfail(c, NULL, "out of memory");
    v->runs = runs;
    cp_val_run *r = &runs[v->n_runs];
    memset(r, 0, sizeof *r);
    v->n_runs++; /* counted at once, so its layers are freed on any failure below */
    snprintf(r->file, sizeof r->file, "%s", c->file);
    r->source = source;
    snprintf(r->network, sizeof r->network, "%s", rc.network);
    snprintf(r->precision, sizeof r->precision, "%s", cp_precision_name(rc.prec));
    snprintf(r->comm, sizeof r->comm, "%s", rc.comm);
    r->batch = (int)rc.batch;
    r->gpus = (int)rc.gpus;
    r->overlap = rc.overlap;
    r->ps_servers = (int)rc.ps_servers;
    r->emulated = rc.emulated;
    if (cp_jnum(c, root, "iteration_ms", true, 0, 1e-9, 1e9, &r->meas_ms) ||
        resolve_device(s, c, root, "device", r->device, sizeof r->device))
        return -1;
    if (r->gpus > 1 && cp_jget(root, "exchange_ms")) {
        if (cp_jnum(c, root, "exchange_ms", true, 0, 0, 1e9, &r->meas_exchange_ms))
            return -1;
        r->has_exchange = 1;
    }
    if (rc.channels_last && source != CP_VAL_PYTORCH)
        return cp_jfail(c, "memory_format", "channels_last is eager mode's (PyTorch runs); cnnperf-measure trains NCHW");
    char netfile[256];
    const char *spec = command_network_file(root, netfile, sizeof netfile) ? netfile : rc.network;
    const cp_network *net = network_for(s, c, spec, rc.channels_last);
    if (!net)
        return -1;
    if (spec == netfile && !cp_spec_is_path(rc.network) && strcmp(net->name, rc.network) != 0)
        return cp_jfail(c, "network", "'%s', but the file its command names (%s) describes '%s'", rc.network, spec,
                        net->name);
    int unmatched = 0;
    r->meas_memory_mib = measured_memory_mib(root, r);
    if (read_measured_detail(c, root, net, r, &unmatched) || predict_run(s, c, &rc, net, r))
        return -1;
    if (unmatched)
        note_add(r, "%d measured layers not in %s: left out", unmatched, net->name);
    if (exchange_wait_in_last_pass(root, r))
        note_add(r, "last backward pass holds the exchange's wait: not scored");
    if (r->emulated)
        note_add(r, "NCCL network transport emulated on one host");
    /* --launch graph: the GPU's time alone. The harness model and its
     * calibration (fitted on stream-launched runs, whose per-call costs
     * hold the host's gaps) predict a stream launch: shown, not scored. */
    if (rc.graph_launch) {
        r->excluded = 1;
        note_add(r, "launched as a CUDA graph: GPU time alone, not scored");
    }
    /* issue 5's targets speak of the built-in networks; a network of its
     * own shapes (a layer microbenchmark's, or a user's file) is reported,
     * not scored */
    if (cp_spec_is_path(spec)) {
        r->excluded = 1;
        note_add(r, "network from a file, not a built-in: not scored");
    }
    /* --layers isolated: the passes timed alone, a microbenchmark (the
     * in-iteration runs of the same configurations are scored) */
    const cJSON *prov = cp_jget(root, "provenance");
    const char *cmd = str_at(prov, "command");
    if (cmd && strstr(cmd, "--layers isolated")) {
        r->excluded = 1;
        note_add(r, "layer passes timed alone (--layers isolated): not scored");
    }
    const cJSON *timed = cp_jget(prov, "timed_iterations");
    if (cJSON_IsNumber(timed) && timed->valuedouble < CP_VAL_MIN_TIMED_ITERATIONS) {
        r->excluded = 1;
        note_add(r, "%.0f timed iterations, a memory check's: not scored for time", timed->valuedouble);
    }
    /* cnnperf-measure's own verdict: the GPU waited for the host to enqueue
     * (the model times the GPU; such a run measures the host as much) */
    const cJSON *hb = cp_jget(root, "host_bound"), *he = cp_jget(root, "host_enqueue_ms");
    /* PyTorch's: the host's wall time issuing an iteration (torch_bench.py), with the same 90% share as
     * cnnperf-measure's verdict; under DDP the slowest rank's, which sets the job's pace (the eager model's
     * host is the slowest rank's too) */
    double wall = 0, phase[CP_EAGER_HOST_PHASES] = {0};
    const cJSON *slowest = NULL; /* under DDP the rank whose host wall that is */
    int slowest_at = -1;
    if (r->source == CP_VAL_PYTORCH) {
        if (host_wall(c, root, &wall, phase))
            return -1;
        const cJSON *ranks = cp_jget(root, "ranks");
        size_t mark = cp_jpush_key(c, "ranks");
        int i = 0, bad = 0;
        for (const cJSON *rk = cJSON_IsArray(ranks) ? ranks->child : NULL; rk && !bad; rk = rk->next, i++) {
            double w = 0, ph[CP_EAGER_HOST_PHASES];
            size_t at = cp_jpush_index(c, i);
            bad = host_wall(c, rk, &w, ph);
            cp_jpop(c, at);
            if (w > wall) {
                wall = w;
                memcpy(phase, ph, sizeof ph);
                slowest = rk;
                slowest_at = i;
            }
        }
        cp_jpop(c, mark);
        if (bad)
            return -1;
    }
    if (wall > 0) {
        r->has_host = 1;
        r->host_enqueue_ms = wall;
        r->host_bound = wall >= CP_VAL_HOST_BOUND_SHARE * r->meas_ms;
        r->has_host_phase = phase[0] > 0 && phase[1] > 0 && phase[2] > 0;
        memcpy(r->host_phase_ms, phase, sizeof phase);
    } else if (cJSON_IsNumber(he)) {
        r->has_host = 1;
        r->host_enqueue_ms = he->valuedouble;
        r->host_bound = cJSON_IsTrue(hb);
    }
    /* the probe of the host the wall is: the slowest DDP rank's where it took one */
    if (slowest && cp_jget(slowest, "host_probe")) {
        size_t mark = cp_jpush_key(c, "ranks"), at = cp_jpush_index(c, slowest_at);
        int bad = host_probe(c, slowest, r->source, r->host_probe_us);
        cp_jpop(c, at);
        cp_jpop(c, mark);
        if (bad)
            return -1;
    } else if (host_probe(c, root, r->source, r->host_probe_us))
        return -1;
    if (r->has_host && r->host_bound)
        note_add(r, "host-bound: enqueueing took %.3f ms", r->host_enqueue_ms);
    if (r->has_host && r->host_bound && r->host_probe_us[0] > 0) /* which of its host's speeds it had */
        snprintf(r->note + strlen(r->note), sizeof r->note - strlen(r->note),
                 " (host probe: %s %.1f us before, %.1f after)",
                 r->source == CP_VAL_PYTORCH ? "an eager operator" : "a legacy convolution call", r->host_probe_us[0],
                 r->host_probe_us[1]);
    r->calibration = in_calibration_set(v, r->network);
    r->drawn = in_drawn_folders(v, r->file);
    run_label(r, root);
    return 0;
}

/* --- calibration raw files: the NCCL all-reduce sweep ------------------------------------ */

static int load_calibration(val_state *s, cp_jctx *c, const cJSON *root)
{
    const cJSON *nc = cp_jget(root, "nccl_allreduce");
    if (!nc)
        return skip_file(s, c->file, "calibration file without an NCCL all-reduce sweep")
                   ? cp_jfail(c, NULL, "out of memory")
                   : 0;
    if (!cJSON_IsObject(nc))
        return cp_jfail(c, "nccl_allreduce", "must be an object");
    size_t mark = cp_jpush_key(c, "nccl_allreduce");
    long long ranks;
    const cJSON *ip = cp_jget(nc, "in_place"), *pts = cJSON_IsObject(ip) ? cp_jget(ip, "points") : NULL;
    int bad = cp_jint(c, nc, "ranks", true, 0, 1, 1 << 20, &ranks);
    if (!bad && !cJSON_IsArray(pts))
        bad = cp_jfail(c, cJSON_IsObject(ip) ? "in_place.points" : "in_place", "missing or not an array");
    cp_jpop(c, mark);
    if (bad)
        return -1;
    if (ranks < 2)
        return skip_file(s, c->file, "NCCL sweep of one rank: nothing exchanged")
                   ? cp_jfail(c, NULL, "out of memory")
                   : 0;
    if (cp_cluster_net_one_per_node(root)) /* it measured the network: the link of its folder's runs */
        return skip_file(s, c->file, "NCCL sweep of one rank per node: the network link of its folder's multi-node "
                                     "runs (--net-link auto), fitted on it, so not scored")
                   ? cp_jfail(c, NULL, "out of memory")
                   : 0;
    char id[256];
    if (resolve_device(s, c, root, NULL, id, sizeof id))
        return -1;
    /* ranks' hosts: a comma-separated list; emulated nodes: one GPU each */
    const cJSON *prov = cp_jget(root, "provenance"), *env = cp_jget(prov, "environment");
    const char *forced_algo = str_at(env, "NCCL_ALGO"), *forced_proto = str_at(env, "NCCL_PROTO");
    if (forced_algo || forced_proto) {
        char why[192];
        snprintf(why, sizeof why,
                 "NCCL sweep with NCCL_ALGO=%.24s NCCL_PROTO=%.24s forced: a diagnostic, not NCCL's own choice",
                 forced_algo ? forced_algo : "(any)", forced_proto ? forced_proto : "(any)");
        return skip_file(s, c->file, why) ? cp_jfail(c, NULL, "out of memory") : 0;
    }
    int emulated = cp_cluster_net_emulated(root);
    int hosts = cp_cluster_hosts_in(str_at(prov, "hostnames"), NULL);
    int nodes = emulated ? (int)ranks : hosts ? hosts : 1;

    cp_error e;
    cp_device dev;
    cp_cluster cl;
    if (cp_device_load(s->o->device ? s->o->device : id, &dev, &e))
        return s->o->device ? cp_fail(c->err, NULL, NULL, "--device: %s", e.msg)
                            : cp_jfail(c, "provenance.gpu_name", "%s", e.msg);
    if (run_cluster(s, &dev, (int)ranks, nodes, &cl, &e))
        return cp_jfail(c, "nccl_allreduce.ranks", "%s", e.msg);
    char label[160];
    snprintf(label, sizeof label, "nccl %lldx%s %d node%s%s", ranks, dev.id, nodes, nodes == 1 ? "" : "s",
             emulated ? " emulated" : "");
    mark = cp_jpush_key(c, "nccl_allreduce");
    size_t m2 = cp_jpush_key(c, "in_place");
    size_t m3 = cp_jpush_key(c, "points");
    int i = 0;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, pts)
    {
        size_t m4 = cp_jpush_index(c, i++);
        double bytes, us;
        bad = !cJSON_IsObject(pt) ? cp_jfail(c, NULL, "must be an object")
                                  : cp_jnum(c, pt, "bytes", true, 0, 0, 1e15, &bytes) ||
                                        cp_jnum(c, pt, "time_us", true, 0, 1e-9, 1e12, &us);
        cp_ar_est est;
        /* the target's range: 1 MB ... 1 GB (and 1 GiB) */
        if (!bad && bytes >= 1e6 && bytes <= 1.1e9) {
            if (cp_nccl_allreduce(&cl, (int)ranks, bytes, CP_AR_AUTO, &est, &e)) {
                bad = cp_jfail(c, "bytes", "cannot predict: %s", e.msg);
            } else {
                cp_val_ar *a = grow(s->v.ar, &s->ar_cap, s->v.n_ar + 1, sizeof *a);
                if (!a) {
                    bad = cp_jfail(c, NULL, "out of memory");
                } else {
                    s->v.ar = a;
                    a = &a[s->v.n_ar++];
                    snprintf(a->label, sizeof a->label, "%s", label);
                    snprintf(a->file, sizeof a->file, "%s", c->file);
                    snprintf(a->device, sizeof a->device, "%s", dev.id);
                    a->ranks = (int)ranks;
                    a->nodes = nodes;
                    a->calibration = in_calibration_sweeps(&s->v, c->file);
                    a->emulated = emulated;
                    a->bytes = bytes;
                    a->meas_us = us;
                    a->pred_us = est.time_ms * 1e3;
                }
            }
        }
        cp_jpop(c, m4);
        if (bad)
            break;
    }
    cp_jpop(c, m3);
    cp_jpop(c, m2);
    cp_jpop(c, mark);
    return bad ? -1 : 0;
}

/* --- files ----------------------------------------------------------------------------- */

static int load_file(val_state *s, const char *path, cp_error *err)
{
    cJSON *root = cp_json_read_file(path, err);
    if (!root)
        return -1;
    cp_jctx c = {path, "$", err};
    int rc = 0;
    const char *format = str_at(root, "format"), *schema = str_at(root, "schema"), *source = str_at(root, "source");
    char why[192] = "", netfile[256];
    int runs_before = s->v.n_runs, ar_before = s->v.n_ar;
    if (!cJSON_IsObject(root))
        snprintf(why, sizeof why, "not a JSON object");
    else if (strcmp(base_name(path), CALIB_SET_NAME) == 0)
        snprintf(why, sizeof why, "the calibration-set list");
    else if (format && strcmp(format, "cnnperf-calibration/1") == 0)
        rc = load_calibration(s, &c, root);
    else if (format && strcmp(format, BASELINE_FORMAT) == 0)
        snprintf(why, sizeof why, "an accuracy baseline");
    else if (schema && strcmp(schema, "cnnperf-result/1") == 0 &&
             network_file_elsewhere(root, netfile, sizeof netfile))
        snprintf(why, sizeof why, "its network was a file of the measuring machine (%.80s), not here",
                 base_name(netfile));
    else if (schema && strcmp(schema, "cnnperf-result/1") == 0 && source && strcmp(source, "measurement") == 0)
        rc = load_run(s, &c, root, CP_VAL_CNNPERF);
    else if (schema && strcmp(schema, "cnnperf-result/1") == 0 && source && strcmp(source, "pytorch") == 0)
        rc = load_run(s, &c, root, CP_VAL_PYTORCH);
    else if (schema && strcmp(schema, "cnnperf-result/1") == 0)
        snprintf(why, sizeof why, "not a measurement (source '%.64s')", source ? source : "none");
    else if (schema && strcmp(schema, "cnnperf-eager-overhead/1") == 0)
        snprintf(why, sizeof why,
                 "eager operator costs, not a measurement: the host costs of its folder's PyTorch runs "
                 "(or give it as --eager-profile)");
    else if (schema && strcmp(schema, "cnnperf-ddp-overhead/1") == 0)
        snprintf(why, sizeof why, "DistributedDataParallel's host costs, not a measurement: those of its folder's "
                                  "PyTorch DDP runs");
    else if (schema || format)
        snprintf(why, sizeof why, "not a measurement (%.64s)", schema ? schema : format);
    else
        snprintf(why, sizeof why, "not a measurement (no schema)");
    if (why[0] && skip_file(s, path, why))
        rc = cp_fail(err, path, NULL, "out of memory");
    int prov_rc = 0;
    if (!rc && s->v.n_runs > runs_before) {
        const cp_val_run *r = &s->v.runs[s->v.n_runs - 1];
        prov_rc = r->source == CP_VAL_PYTORCH /* a one-process PyTorch run uses no NCCL: its list less the last */
                      ? check_provenance(s, path, root, provenance_pytorch,
                                         COUNT(provenance_pytorch) - (r->gpus > 1 ? 0 : 1))
                      : check_provenance(s, path, root, provenance_harness, COUNT(provenance_harness));
    } else if (!rc && s->v.n_ar > ar_before)
        prov_rc = check_provenance(s, path, root, provenance_sweep, COUNT(provenance_sweep));
    if (prov_rc)
        rc = cp_fail(err, path, NULL, "out of memory");
    cJSON_Delete(root);
    return rc;
}

/* One list of the calibration set: names of at most `len` - 1 characters. */
static int calib_list(cp_jctx *c, const cJSON *arr, const char *key, const char *what, char *dst, size_t len,
                      int cap, int *n)
{
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        int bad = !cJSON_IsString(e) || !*e->valuestring || strlen(e->valuestring) >= len;
        if (bad || *n == cap) {
            size_t mark = cp_jpush_key(c, key);
            cp_jpush_index(c, i);
            int rc = bad ? cp_jfail(c, NULL, "must be %s", what)
                         : cp_jfail(c, NULL, "one entry too many (at most %d)", cap);
            cp_jpop(c, mark);
            return rc;
        }
        snprintf(dst + (size_t)(*n)++ * len, len, "%s", e->valuestring);
        i++;
    }
    return 0;
}

/* The networks whose measurements may calibrate the model, the NCCL sweeps
 * a link parameter was fitted on, and the folders of configurations drawn at
 * random before their calls (a view of the evaluation set, not a split):
 * {"networks": [...], "nccl_sweeps": [...], "drawn_folders": [...], "note": "..."}. */
static int load_calib_set(val_state *s, const char *path, cp_error *err)
{
    cJSON *root = cp_json_read_file(path, err);
    if (!root)
        return -1;
    cp_jctx c = {path, "$", err};
    const cJSON *nets = cp_jget(root, "networks"), *sweeps = cp_jget(root, "nccl_sweeps"),
                *drawn = cp_jget(root, "drawn_folders");
    int rc = 0;
    if (!cJSON_IsObject(root))
        rc = cp_jfail(&c, NULL, "must be an object {\"networks\": [...], \"note\": \"...\"}");
    else if (!cJSON_IsArray(nets))
        rc = cp_jfail(&c, "networks", nets ? "must be an array of network names" : "missing required field");
    else if (sweeps && !cJSON_IsArray(sweeps))
        rc = cp_jfail(&c, "nccl_sweeps", "must be an array of file paths");
    else if (drawn && !cJSON_IsArray(drawn))
        rc = cp_jfail(&c, "drawn_folders", "must be an array of folder paths");
    if (!rc)
        rc = calib_list(&c, nets, "networks", "a network name", s->v.calib_networks[0],
                        sizeof s->v.calib_networks[0], CP_VAL_MAX_CALIB, &s->v.n_calib_networks) ||
                     calib_list(&c, sweeps, "nccl_sweeps", "a file path", s->v.calib_sweeps[0],
                                sizeof s->v.calib_sweeps[0], CP_VAL_MAX_CALIB, &s->v.n_calib_sweeps) ||
                     calib_list(&c, drawn, "drawn_folders", "a folder path", s->v.drawn_folders[0],
                                sizeof s->v.drawn_folders[0], CP_VAL_MAX_DRAWN, &s->v.n_drawn_folders)
                 ? -1
                 : 0;
    if (!rc)
        snprintf(s->v.calib_file, sizeof s->v.calib_file, "%s", path);
    cJSON_Delete(root);
    return rc;
}

/* --- baseline ---------------------------------------------------------------------------- */

static int put_baseline(FILE *f, const void *what, int unused)
{
    (void)unused;
    const cp_validation *v = what;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "format", BASELINE_FORMAT);
    cJSON_AddStringToObject(o, "note",
                            "written by cnnperf validate --write-baseline; `cnnperf validate --baseline FILE --check` "
                            "fails when a metric here gets worse by more than tolerance_pp percentage points on the "
                            "same runs, or a right PS/NCCL decision turns wrong (CTest validation_accuracy_guard)");
    cJSON_AddNumberToObject(o, "tolerance_pp", CP_VAL_TOLERANCE_PP);
    cJSON *m = cJSON_AddObjectToObject(o, "metrics");
    for (int t = 0; t < CP_T_COUNT; t++) {
        const cp_val_target *x = &v->targets[t];
        if (x->n == 0) {
            cJSON_AddNullToObject(m, x->key);
            continue;
        }
        cJSON *e = cJSON_AddObjectToObject(m, x->key);
        cJSON_AddNumberToObject(e, "value", x->value);
        cJSON_AddNumberToObject(e, "n", x->n);
    }
    cJSON *runs = cJSON_AddArrayToObject(o, "runs");
    for (int i = 0; i < v->n_runs; i++) {
        const cp_val_run *r = &v->runs[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "label", r->label);
        cJSON_AddNumberToObject(e, "measured_ms", r->meas_ms);
        cJSON_AddNumberToObject(e, "predicted_ms", r->pred_ms);
        cJSON_AddNumberToObject(e, "error_pct", cp_val_rel_pct(r->pred_ms, r->meas_ms));
        /* its conv+fc layer passes, so a later check can recompute the layer metric on the same runs */
        cp_val_stat ls = cp_val_layer_stat(r, 1, NULL, CP_VAL_PASSES, 0);
        cJSON_AddNumberToObject(e, "layer_passes", ls.n);
        cJSON_AddNumberToObject(e, "layer_sum_abs_pct", ls.sum_pct);
        cJSON_AddItemToArray(runs, e);
    }
    cJSON *ar = cJSON_AddArrayToObject(o, "nccl_allreduce");
    for (int i = 0; i < v->n_ar; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "label", v->ar[i].label);
        cJSON_AddNumberToObject(e, "bytes", v->ar[i].bytes);
        cJSON_AddNumberToObject(e, "measured_us", v->ar[i].meas_us);
        cJSON_AddNumberToObject(e, "error_pct", cp_val_rel_pct(v->ar[i].pred_us, v->ar[i].meas_us));
        cJSON_AddItemToArray(ar, e);
    }
    cJSON *pairs = cJSON_AddArrayToObject(o, "ps_vs_nccl");
    for (int i = 0; i < v->n_pairs; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "label", v->pairs[i].label);
        cJSON_AddStringToObject(e, "verdict", cp_val_verdict_name(v->pairs[i].verdict));
        cJSON_AddItemToArray(pairs, e);
    }
    return cp_report_json(f, o);
}

/* The index in arr (of objects) of the one whose "label" is label (and
 * "bytes" is bytes, when bytes >= 0), or -1. */
static int find_entry(const cJSON *arr, const char *label, double bytes)
{
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        const char *l = str_at(e, "label");
        const cJSON *b = cp_jget(e, "bytes");
        if (l && strcmp(l, label) == 0 && (bytes < 0 || (cJSON_IsNumber(b) && b->valuedouble == bytes)))
            return i;
        i++;
    }
    return -1;
}

static int add_label(char (**list)[192], int *n, const char *label)
{
    char(*l)[192] = realloc(*list, (size_t)(*n + 1) * sizeof *l);
    if (!l)
        return -1;
    *list = l;
    snprintf(l[(*n)++], 192, "%s", label);
    return 0;
}

static int same_value(double now, double then)
{
    return fabs(now - then) <= 1e-9 * fabs(then);
}

/* The baseline's record of the runs and sizes measured now (marking them
 * selected); the labels of its runs not measured now. */
static int read_baseline_entries(cp_validation *v, cp_jctx *c, const cJSON *runs, const cJSON *ar)
{
    for (int i = 0; i < v->n_runs; i++) {
        cp_val_run *r = &v->runs[i];
        int k = find_entry(runs, r->label, -1);
        if (k < 0)
            continue;
        const cJSON *e = cJSON_GetArrayItem(runs, k);
        long long ln;
        size_t mark = cp_jpush_key(c, "runs");
        cp_jpush_index(c, k);
        int bad = cp_jnum(c, e, "measured_ms", true, 0, 0, 1e12, &r->base_meas_ms) ||
                  cp_jnum(c, e, "predicted_ms", true, 0, 0, 1e12, &r->base_pred_ms) ||
                  cp_jint(c, e, "layer_passes", false, 0, 0, 1 << 30, &ln) ||
                  cp_jnum(c, e, "layer_sum_abs_pct", false, 0, 0, 1e18, &r->base_layer_sum_pct);
        cp_jpop(c, mark);
        if (bad)
            return -1;
        r->base_layer_n = (int)ln;
        /* the same measurement, or the guard would judge the data, not the model */
        r->selected = same_value(r->meas_ms, r->base_meas_ms);
        if (!r->selected && add_label(&v->remeasured, &v->n_remeasured, r->label))
            return cp_jfail(c, NULL, "out of memory");
    }
    for (int i = 0; i < v->n_ar; i++) {
        int k = find_entry(ar, v->ar[i].label, v->ar[i].bytes);
        if (k < 0)
            continue;
        size_t mark = cp_jpush_key(c, "nccl_allreduce");
        cp_jpush_index(c, k);
        const cJSON *e = cJSON_GetArrayItem(ar, k);
        double meas;
        int bad = cp_jnum(c, e, "error_pct", true, 0, -100, 1e9, &v->ar[i].base_error_pct) ||
                  cp_jnum(c, e, "measured_us", true, 0, 0, 1e15, &meas);
        cp_jpop(c, mark);
        if (bad)
            return -1;
        v->ar[i].selected = same_value(v->ar[i].meas_us, meas);
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, runs)
    {
        const char *l = str_at(e, "label");
        int found = 0;
        for (int i = 0; l && i < v->n_runs && !found; i++)
            found = strcmp(v->runs[i].label, l) == 0;
        if (l && !found && add_label(&v->missing, &v->n_missing, l))
            return cp_jfail(c, NULL, "out of memory");
    }
    return 0;
}

/* Reads the baseline and compares: every metric the targets track,
 * recomputed on both sides over the runs both know (added or removed runs
 * move neither), and every PS/NCCL decision the baseline got right. */
static int check_baseline(val_state *s, const char *path, cp_error *err)
{
    cp_validation *v = &s->v;
    cJSON *root = cp_json_read_file(path, err);
    if (!root)
        return -1;
    cp_jctx c = {path, "$", err};
    const char *format = str_at(root, "format");
    const cJSON *runs = cp_jget(root, "runs"), *ar = cp_jget(root, "nccl_allreduce"),
                *pairs = cp_jget(root, "ps_vs_nccl");
    int rc = 0;
    if (!format || strcmp(format, BASELINE_FORMAT) != 0)
        rc = cp_jfail(&c, "format", "expected \"%s\"", BASELINE_FORMAT);
    else if (!cJSON_IsArray(runs) || !cJSON_IsArray(ar) || !cJSON_IsArray(pairs))
        rc = cp_jfail(&c, !cJSON_IsArray(runs) ? "runs" : !cJSON_IsArray(ar) ? "nccl_allreduce" : "ps_vs_nccl",
                      "missing or not an array");
    else
        rc = read_baseline_entries(v, &c, runs, ar);
    for (int i = 0; !rc && i < v->n_pairs; i++) {
        int k = find_entry(pairs, v->pairs[i].label, -1);
        const char *was = k >= 0 ? str_at(cJSON_GetArrayItem(pairs, k), "verdict") : NULL;
        v->pairs[i].selected = k >= 0;
        if (was && strcmp(was, "right") == 0 && v->pairs[i].verdict == CP_VAL_WRONG && !v->pairs[i].calibration &&
            !v->pairs[i].excluded && add_label(&v->flips, &v->n_flips, v->pairs[i].label))
            rc = cp_jfail(&c, "ps_vs_nccl", "out of memory");
    }
    if (!rc) {
        cp_val_target base[CP_T_COUNT];
        cp_val_baseline_targets(v->runs, v->n_runs, v->ar, v->n_ar, base);
        cp_val_targets(v->runs, v->n_runs, v->ar, v->n_ar, v->pairs, v->n_pairs, 1, v->base_now);
        for (int t = 0; t < CP_T_COUNT; t++) {
            v->base_has[t] = t != CP_T_WINNER && base[t].n > 0;
            v->base_value[t] = base[t].value;
            v->regressed[t] = v->base_has[t] && v->base_now[t].n > 0 &&
                              cp_val_regressed(v->base_value[t], v->base_now[t].value);
        }
        v->has_baseline = 1;
        snprintf(v->baseline_file, sizeof v->baseline_file, "%s", path);
    }
    cJSON_Delete(root);
    return rc;
}

/* --- command line ------------------------------------------------------------------------ */

static int parse_args(int argc, char **argv, val_opts *o)
{
    static const cp_valued_option valued[] = {
        {"--format", offsetof(val_opts, format)},
        {"-o", offsetof(val_opts, output)},
        {"--output", offsetof(val_opts, output)},
        {"--plot", offsetof(val_opts, plot)},
        {"--baseline", offsetof(val_opts, baseline)},
        {"--write-baseline", offsetof(val_opts, write_baseline)},
        {"--device", offsetof(val_opts, device)},
        {"--cluster", offsetof(val_opts, cluster)},
        {"--calibration-set", offsetof(val_opts, calib_set)},
        {"--eager-profile", offsetof(val_opts, eager_profile)},
        {"--calibration", offsetof(val_opts, calibration)},
        {"--host-mpi", offsetof(val_opts, host_mpi)},
        {"--net-link", offsetof(val_opts, net_link)},
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--measured") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '-')
                return cp_bad("--measured needs a file or a pattern");
            /* every following argument up to the next option */
            for (; i + 1 < argc && argv[i + 1][0] != '-'; i++)
                o->measured[o->n_measured++] = argv[i + 1];
            continue;
        }
        if (strcmp(a, "--check") == 0) {
            o->check = 1;
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
    if (o->n_measured == 0)
        return cp_bad("validate: --measured FILE|GLOB is required (e.g. --measured 'validation/**/*.json')");
    if (o->calibration) /* read by cp_device_load for every device */
        cp_calibration_set_default(o->calibration);
    if (o->check && !o->baseline)
        return cp_bad("--check needs --baseline FILE");
    return 0;
}

/* The command as typed, patterns quoted, for the generated document
 * (less --write-baseline, which changes nothing in it). */
static void command_text(int argc, char **argv, char *out, size_t n)
{
    size_t k = (size_t)snprintf(out, n, "cnnperf validate");
    for (int i = 1; i < argc && k < n; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--write-baseline") == 0) {
            i++;
            continue;
        }
        int quote = strpbrk(a, "*?[ ") != NULL;
        k += (size_t)snprintf(out + k, n - k, quote ? " '%s'" : " %s", a);
    }
}

static int put_report(FILE *f, const void *v, int fmt)
{
    return cp_validation_report(f, v, (cp_val_format)fmt);
}

/* Markdown into an existing document keeps what follows the marker; a
 * document without the marker is refused unless this program wrote it. */
static int read_tail(const char *path, char **keep, cp_error *err)
{
    *keep = NULL;
    FILE *f = path && strcmp(path, "-") != 0 ? fopen(path, "rb") : NULL;
    if (!f)
        return 0;
    fclose(f);
    size_t len;
    char *doc = cp_read_file(path, &len, err);
    if (!doc)
        return -1;
    const char *tail = cp_val_handwritten(doc);
    if (tail) {
        *keep = strdup(tail);
    } else if (len > 0 && !strstr(doc, "<!-- generated by cnnperf validate")) {
        free(doc);
        return cp_fail(err, path, NULL, "has no line '%s': refusing to overwrite text not generated by "
                                        "cnnperf validate (add the line above the hand-written part)",
                       CP_VAL_MARKER);
    }
    free(doc);
    return 0;
}

static void free_state(val_state *s)
{
    for (int i = 0; i < s->v.n_runs; i++)
        free(s->v.runs[i].layers);
    free(s->v.runs);
    free(s->v.ar);
    free(s->v.pairs);
    free(s->v.skipped);
    free(s->v.unproven);
    free(s->v.flips);
    free(s->v.missing);
    free(s->v.remeasured);
    for (int i = 0; i < s->n_nets; i++)
        cp_network_free(&s->nets[i].net);
    free(s->nets);
    free(s->dirs);
}

/* Files of the same configuration: each named by its file as well, so no
 * key moves from one measurement to another when a file is added. */
static void unique_labels(cp_validation *v)
{
    int *dup = calloc((size_t)(v->n_runs ? v->n_runs : 1), sizeof *dup);
    for (int i = 0; dup && i < v->n_runs; i++)
        for (int j = i + 1; j < v->n_runs; j++)
            if (strcmp(v->runs[i].label, v->runs[j].label) == 0)
                dup[i] = dup[j] = 1;
    for (int i = 0; dup && i < v->n_runs; i++)
        if (dup[i]) {
            char *l = v->runs[i].label;
            const char *name = base_name(v->runs[i].file);
            size_t k = strlen(l), nl = strlen(name);
            if (cp_has_suffix(name, ".gz")) /* a measurement kept compressed: the same key */
                nl -= 3;
            snprintf(l + k, sizeof v->runs[i].label - k, " [%.*s]", (int)nl, name);
        }
    free(dup);
}

int cp_cmd_validate(int argc, char **argv)
{
    const char **measured = calloc((size_t)argc + 1, sizeof *measured);
    if (!measured)
        return cp_bad("out of memory");
    val_opts o = {.measured = measured};
    val_state s = {.o = &o};
    char **files = NULL, *tail = NULL;
    int n_files = 0, cap = 0, rc = parse_args(argc, argv, &o);
    cp_val_format fmt = CP_VFMT_TABLE;
    cp_format base_fmt;
    cp_error err;
    char gnuplot[1024];
    if (rc)
        goto done;
    if (o.format && strcmp(o.format, "markdown") == 0)
        fmt = CP_VFMT_MARKDOWN;
    else if (o.format && cp_format_parse(o.format, &base_fmt) == 0)
        fmt = base_fmt == CP_FMT_JSON ? CP_VFMT_JSON : base_fmt == CP_FMT_CSV ? CP_VFMT_CSV : CP_VFMT_TABLE;
    else if (o.format) {
        rc = cp_bad("--format: expected table, json, csv or markdown, got '%s'", o.format);
        goto done;
    }
    if (o.plot && cp_find_gnuplot(gnuplot, sizeof gnuplot)) {
        rc = cp_bad("--plot: gnuplot not found on PATH (install it, e.g. apt-get install gnuplot-nox)");
        goto done;
    }
    if (o.cluster && cp_cluster_load(o.cluster, &s.cluster, &err)) {
        rc = cp_bad("%s", err.msg);
        goto done;
    }
    s.have_cluster = o.cluster != NULL;
    s.costs_from = !o.eager_profile                         ? COSTS_FOLDER
                   : strcmp(o.eager_profile, "device") == 0 ? COSTS_DEVICE
                                                            : COSTS_FILE;
    if (s.costs_from == COSTS_FILE && cp_eager_costs_load(o.eager_profile, &s.costs, &err)) {
        rc = cp_bad("--eager-profile: %s (a torch_bench.py --eager-overhead file, or 'device')", err.msg);
        goto done;
    }
    s.ipc_pooled = o.host_mpi && strcmp(o.host_mpi, "pooled") == 0;
    if (o.host_mpi && strcmp(o.host_mpi, "auto") != 0 && !s.ipc_pooled) {
        if (cp_cluster_ipc_measured(o.host_mpi, &s.ipc, &err)) {
            rc = cp_bad("%s", err.msg);
            goto done;
        }
        s.have_ipc = 1;
    }
    if (o.net_link && strcmp(o.net_link, "auto") != 0) {
        if (cp_cluster_net_measured(o.net_link, &s.net, &err)) {
            rc = cp_bad("%s", err.msg);
            goto done;
        }
        s.have_net = 1;
    }
    command_text(argc, argv, s.v.command, sizeof s.v.command);
    for (int i = 0; i < o.n_measured; i++)
        if (cp_glob_expand(o.measured[i], &files, &n_files, &cap, &err) < 0) {
            rc = cp_bad("%s", err.msg);
            goto done;
        }
    /* the calibration set: --calibration-set, else one among the files, else validation/'s */
    const char *calib = o.calib_set;
    for (int i = 0; !calib && i < n_files; i++)
        if (strcmp(base_name(files[i]), CALIB_SET_NAME) == 0)
            calib = files[i];
    /* else the nearest one in a folder above the first measured file
     * (validation/h100/x.json -> validation/calibration-set.json) */
    static char found[4096];
    for (int i = 0; !calib && i < n_files && i < 1; i++) {
        snprintf(found, sizeof found, "%s", files[i]);
        for (int up = 0; up < 4 && !calib; up++) {
            char *slash = strrchr(found, '/');
            if (!slash)
                break;
            *slash = 0;
            size_t n = strlen(found);
            if (n + sizeof "/" CALIB_SET_NAME > sizeof found)
                break;
            memcpy(found + n, "/" CALIB_SET_NAME, sizeof "/" CALIB_SET_NAME);
            FILE *f = fopen(found, "r");
            if (f) {
                fclose(f);
                calib = found;
            } else {
                found[n] = 0;
            }
        }
    }
    FILE *probe = calib ? NULL : fopen("validation/" CALIB_SET_NAME, "r");
    if (probe) {
        fclose(probe);
        calib = "validation/" CALIB_SET_NAME;
    }
    if (calib && load_calib_set(&s, calib, &err)) {
        rc = cp_bad("%s", err.msg);
        goto done;
    }
    for (int i = 0; i < n_files; i++)
        if (load_file(&s, files[i], &err)) {
            rc = cp_bad("%s", err.msg);
            goto done;
        }
    unique_labels(&s.v);
    s.v.pairs = calloc((size_t)(s.v.n_runs ? s.v.n_runs : 1), sizeof *s.v.pairs);
    if (!s.v.pairs) {
        rc = cp_bad("out of memory");
        goto done;
    }
    s.v.n_pairs = cp_val_pairs(s.v.runs, s.v.n_runs, s.v.pairs, s.v.n_runs);
    cp_val_targets(s.v.runs, s.v.n_runs, s.v.ar, s.v.n_ar, s.v.pairs, s.v.n_pairs, 0, s.v.targets);
    double limit = s.v.targets[CP_T_ONE_GPU_WORST].limit;
    int floor_rc = 0;
    for (int multi = 0; multi < 2; multi++)
        floor_rc |= cp_val_floor_of(s.v.runs, s.v.n_runs, multi, NULL, limit, &s.v.floor[multi]);
    for (int h = 0; h < 3; h++)
        floor_rc |= cp_val_floor_of(s.v.runs, s.v.n_runs, 0, cp_val_harnesses[h], limit, &s.v.floor_by_harness[h]);
    if (floor_rc) {
        rc = cp_bad("out of memory");
        goto done;
    }
    if (o.baseline && check_baseline(&s, o.baseline, &err)) {
        rc = cp_bad("%s", err.msg);
        goto done;
    }
    if (fmt == CP_VFMT_MARKDOWN && read_tail(o.output, &tail, &err)) {
        rc = cp_bad("%s", err.msg);
        goto done;
    }
    s.v.handwritten = tail;
    s.v.doc_path = o.output;
    if (o.plot && cp_validation_plots(&s.v, o.plot, &err)) {
        rc = cp_bad("--plot: %s", err.msg);
        goto done;
    }
    if ((rc = cp_write_result(o.output, put_report, &s.v, fmt)))
        goto done;
    if (o.write_baseline && (rc = cp_write_result(o.write_baseline, put_baseline, &s.v, 0)))
        goto done;
    if (o.check) {
        const cp_validation *v = &s.v;
        for (int i = 0; i < v->n_unproven; i++) {
            fprintf(stderr, "cnnperf: provenance: %s: %s\n", v->unproven[i].file, v->unproven[i].reason);
            rc = 1;
        }
        for (int t = 0; t < CP_T_COUNT; t++)
            if (v->regressed[t]) {
                fprintf(stderr, "cnnperf: accuracy regression: %s: baseline %.2f%%, now %.2f%%\n", v->targets[t].key,
                        v->base_value[t], v->base_now[t].value);
                rc = 1;
            }
        for (int i = 0; i < v->n_flips; i++) {
            fprintf(stderr, "cnnperf: accuracy regression: ps_vs_nccl %s: baseline right, now wrong\n", v->flips[i]);
            rc = 1;
        }
    }
done:
    for (int i = 0; i < n_files; i++)
        free(files[i]);
    free(files);
    free(tail);
    free(measured);
    free_state(&s);
    return rc;
}
