#include "distributed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const comm_names[] = {"none", "nccl", "ps", "auto"};

const char *cp_comm_name(cp_comm_mode m)
{
    return m >= CP_COMM_NONE && m <= CP_COMM_AUTO ? comm_names[m] : "?";
}

int cp_comm_parse(const char *s, cp_comm_mode *m)
{
    for (int i = 0; i <= CP_COMM_AUTO; i++)
        if (strcmp(s, comm_names[i]) == 0) {
            *m = (cp_comm_mode)i;
            return 0;
        }
    return -1;
}

void cp_single_cache_free(cp_single_cache *c)
{
    for (int i = 0; i < c->n; i++) {
        cp_prediction_free(&c->e[i].p);
        cp_eager_free(&c->e[i].eager);
    }
    c->n = c->next = 0;
}

/* The single-GPU prediction; in eager mode *eager gets its time line, with
 * DistributedDataParallel's own work over ddp GPUs when ddp > 1, local of
 * them (one process each) on each host. */
static const cp_prediction *single(cp_single_cache *c, const cp_network *net, const cp_device *d, int batch,
                                   const cp_dist_config *cfg, int ddp, int local, const cp_eager **eager,
                                   cp_error *err)
{
    cp_precision prec = cfg->prec;
    cp_algos algos = cfg->mode == CP_MODE_EAGER ? CP_ALGOS_PYTORCH : cfg->algos;
    double ws = cp_run_workspace_mb(cfg->mode == CP_MODE_EAGER, cfg->workspace_mb);
    int i = 0;
    while (i < c->n && !(c->e[i].net == net && c->e[i].batch == batch && c->e[i].prec == prec &&
                         c->e[i].p.algos == algos && c->e[i].p.workspace_mb == ws && strcmp(c->e[i].device, d->id) == 0 &&
                         c->e[i].p.dev == d))
        i++;
    if (i == c->n) {
        i = c->n < CP_SINGLE_CACHE ? c->n++ : c->next++ % CP_SINGLE_CACHE;
        snprintf(c->e[i].device, sizeof c->e[i].device, "%s", d->id);
        c->e[i].batch = batch;
        c->e[i].prec = prec;
        c->e[i].net = net;
        c->e[i].eager_ok = 0;
        if (cp_predict_ws(net, d, batch, prec, algos, ws, &c->e[i].p, err)) {
            c->e[i].net = NULL; /* never matches */
            return NULL;
        }
    }
    *eager = NULL;
    if (cfg->mode == CP_MODE_EAGER) {
        if (!c->e[i].eager_ok || c->e[i].eager_costs != cfg->eager_costs || c->e[i].eager_ddp != ddp ||
            c->e[i].eager_local != local) {
            c->e[i].eager_ok = 0;
            c->e[i].eager.ddp_workers = ddp;
            c->e[i].eager.ddp_local = local;
            if (cp_eager_run(&c->e[i].p, cfg->eager_costs, &c->e[i].eager, err))
                return NULL;
            c->e[i].eager_costs = cfg->eager_costs;
            c->e[i].eager_ddp = ddp;
            c->e[i].eager_local = local;
            c->e[i].eager_ok = 1;
        }
        *eager = &c->e[i].eager;
    }
    return &c->e[i].p;
}

/* One PAR node over the GPU groups, each child the group's time. */
static int per_group(cp_dist_prediction *p, int parent, const char *name,
                     double (*time_of)(const cp_dist_prediction *, int, int), int arg)
{
    int node = cp_tree_node(&p->tree, parent, CP_TASK_PAR, name, 0);
    for (int g = 0; node >= 0 && g < p->n_groups; g++)
        if (cp_tree_fixed(&p->tree, node, p->group_dev[g]->id, time_of(p, g, arg)) < 0)
            return -1;
    return node;
}

/* A group's phase times: its eager time line's spans in eager mode. */
static double loading_of(const cp_dist_prediction *p, int g, int arg)
{
    (void)arg;
    return p->group_eager[g] ? p->group_eager[g]->loading_ms : p->group[g]->loading_ms;
}
static double forward_of(const cp_dist_prediction *p, int g, int arg)
{
    (void)arg;
    return p->group_eager[g] ? p->group_eager[g]->forward_ms : p->group[g]->forward_ms;
}
static double update_of(const cp_dist_prediction *p, int g, int arg)
{
    (void)arg;
    return p->group_eager[g] ? p->group_eager[g]->update_ms : p->group[g]->update_ms;
}
static double backward_of_layer(const cp_dist_prediction *p, int g, int i)
{
    if (p->group_eager[g])
        return p->group_eager[g]->layers[i].bwd_ms;
    const cp_prediction *q = p->group[g];
    /* a host that paces the legacy calls stretches every backward pass alike (predict.c) */
    double scale = q->legacy_paced ? q->legacy_backward_scale : 1;
    return scale * (q->layers[i].ms[CP_PASS_BWD_DATA] + q->layers[i].ms[CP_PASS_BWD_WEIGHT]);
}
static double zero_of(const cp_dist_prediction *p, int g, int arg)
{
    (void)p, (void)g, (void)arg;
    return 0;
}
/* forward + backward of a group, which decides the slowest */
static double compute_of(const cp_dist_prediction *p, int g)
{
    const cp_eager *e = p->group_eager[g];
    return e ? e->forward_ms + e->backward_ms : p->group[g]->forward_ms + p->group[g]->backward_ms;
}

/* Gradient bytes layer l exchanges. cnnperf-measure (harness mode) keeps
 * the gradients of 16-bit training in 16 bits, batch norm's in fp32, and
 * exchanges them so; PyTorch's mixed precision (eager mode) keeps fp32
 * parameters, so fp32 gradients. */
static double grad_bytes_of(const cp_dist_config *cfg, const cp_layer *l)
{
    int sixteen = cfg->prec == CP_PREC_FP16 || cfg->prec == CP_PREC_BF16;
    int fp32 = cfg->mode == CP_MODE_EAGER || !sixteen || strcmp(l->kind->name, "batchnorm") == 0;
    return (fp32 ? 4.0 : 2.0) * (double)l->params;
}

/* The exchange of one bucket of `bytes` gradients on the communication
 * stream (resource 1), after node `after`. A PS bucket is pushed, summed
 * and applied by the server (resource 2) and pulled back on the
 * host-to-device stream (resource 3) as soon as every worker has pushed it,
 * while the next buckets are pushed: per bucket, as the workers' copies and
 * the server's messages are -- unless the server is a process that moves
 * every message itself (cp_ps_est.one_stream): then push, sum and pull of
 * each bucket queue on the server (resource 2). Returns the last node of
 * the bucket or -1. */
static int exchange_bucket(cp_dist_prediction *p, int dag, int after, double bytes, int first_layer, int last_layer,
                           cp_error *err)
{
    cp_tree *tr = &p->tree;
    if (p->buckets == p->bucket_cap) {
        int cap = p->bucket_cap ? 2 * p->bucket_cap : 16;
        cp_dist_bucket *b = realloc(p->bucket, (size_t)cap * sizeof *b);
        if (!b)
            return cp_fail(err, NULL, NULL, "out of memory");
        p->bucket = b;
        p->bucket_cap = cap;
    }
    cp_dist_bucket *b = &p->bucket[p->buckets++];
    memset(b, 0, sizeof *b);
    b->first_layer = first_layer;
    b->last_layer = last_layer;
    b->bytes = bytes;
    b->after = after;
    if (p->comm == CP_COMM_NCCL) {
        if (cp_nccl_allreduce(p->cluster, p->cfg.gpus, bytes, p->cfg.algo, &b->ar, err))
            return -1;
        int node = cp_tree_fixed(tr, dag, "all-reduce", b->ar.time_ms);
        if (node < 0 || cp_tree_place(tr, node, 1, after))
            return cp_fail(err, NULL, NULL, "out of memory");
        return b->first_node = b->node = node;
    }
    cp_ps_est *e = &b->ps;
    if (cp_ps_exchange(p->cluster, p->cfg.gpus, bytes, &p->cfg.ps, e, err))
        return -1;
    int push = cp_tree_fixed(tr, dag, "push to PS", e->push_ms);
    int agg = cp_tree_fixed(tr, dag, "PS aggregate + SGD", e->aggregate_ms);
    int pull = cp_tree_fixed(tr, dag, "pull from PS", e->pull_ms);
    /* A server process moving one message at a time takes the whole bucket
     * on its own stream; separate links pipeline push, sum and pull. */
    int r_push = e->one_stream ? 2 : 1, r_pull = e->one_stream ? 2 : 3;
    if (push < 0 || agg < 0 || pull < 0 || cp_tree_place(tr, push, r_push, after) ||
        cp_tree_place(tr, agg, 2, push) || cp_tree_place(tr, pull, r_pull, agg))
        return cp_fail(err, NULL, NULL, "out of memory");
    b->first_node = push;
    return b->node = pull;
}

static int build(cp_dist_prediction *p, cp_error *err)
{
    cp_tree *tr = &p->tree;
    const cp_network *net = p->net;
    int exchanging = p->comm != CP_COMM_NONE && p->cfg.gpus > 1;
    int root = p->root = cp_tree_node(tr, -1, CP_TASK_SEQ, "iteration", -1);
    p->phase[0] = per_group(p, root, "loading", loading_of, 0);
    p->phase[1] = per_group(p, root, "forward", forward_of, 0);
    int dag = p->phase[2] = cp_tree_node(tr, root, CP_TASK_DAG, exchanging ? "backward + exchange" : "backward", -1);
    if (p->phase[0] < 0 || p->phase[1] < 0 || dag < 0)
        return cp_fail(err, NULL, NULL, "out of memory");
    /* Communication kernels hold SMs (NCCL: one block per channel, ~16
     * channels) while they run; a PS exchange is copy-engine DMA and only
     * competes for memory bandwidth. */
    const cp_device *slow_dev = p->group_dev[p->slowest];
    tr->t[dag].interference = p->comm == CP_COMM_NCCL ? fmin(0.5, 16.0 / slow_dev->sm_count) : 0.03;

    double bucket = p->cfg.bucket_mb * 1e6, acc = 0;
    int last_compute = -1, first_layer = -1, last_layer = -1;
    for (int i = net->n_layers - 1; i >= 0; i--) {
        double longest = 0;
        for (int g = 0; g < p->n_groups; g++)
            longest = fmax(longest, backward_of_layer(p, g, i));
        if (longest <= 0 && net->layers[i].params == 0)
            continue;
        /* Eq. 5-15: every GPU's step waits for the slowest */
        int node = cp_tree_node(tr, dag, CP_TASK_PAR, net->layers[i].name, 0);
        for (int g = 0; node >= 0 && g < p->n_groups; g++)
            if (cp_tree_fixed(tr, node, p->group_dev[g]->id, backward_of_layer(p, g, i)) < 0)
                node = -1;
        if (node < 0 || cp_tree_place(tr, node, 0, -1))
            return cp_fail(err, NULL, NULL, "out of memory");
        if (p->comm == CP_COMM_NCCL && slow_dev->nccl_overlap.loaded && p->cluster->nodes == 1) {
            /* beside an all-reduce, as the device's co-execution benchmark measured this kind of work
             * (inside one node: NCCL's kernels move the data; across nodes its proxy and the network do) */
            int mem = p->group[p->slowest]->layers[i].bound != CP_BOUND_COMPUTE;
            tr->t[node].co_rate = slow_dev->nccl_overlap.work_rate[mem];
            tr->t[node].co_other_rate = slow_dev->nccl_overlap.allreduce_rate[mem];
        }
        last_compute = node;
        if (net->layers[i].params > 0) { /* the bucket's layers: those with gradients */
            if (first_layer < 0)
                first_layer = i;
            last_layer = i;
        }
        acc += grad_bytes_of(&p->cfg, &net->layers[i]);
        if (exchanging && p->cfg.overlap && acc >= bucket) {
            if (exchange_bucket(p, dag, node, acc, first_layer, i, err) < 0)
                return -1;
            acc = 0;
            first_layer = -1;
        }
    }
    if (exchanging && acc > 0 &&
        exchange_bucket(p, dag, last_compute, acc, first_layer, last_layer, err) < 0)
        return -1;
    /* The workers apply SGD themselves, except under a PS, which did. */
    p->phase[3] = per_group(p, root, exchanging && p->comm == CP_COMM_PS ? "update (on the PS)" : "update",
                            exchanging && p->comm == CP_COMM_PS ? zero_of : update_of, 0);
    if (p->phase[3] < 0)
        return cp_fail(err, NULL, NULL, "out of memory");
    return 0;
}

static int predict_mode(const cp_network *net, const cp_cluster *cl, const cp_dist_config *cfg, cp_comm_mode mode,
                        cp_single_cache *cache, cp_dist_prediction *p, cp_error *err)
{
    cp_tree tree = p->tree;
    cp_dist_bucket *bucket = p->bucket;
    int bucket_cap = p->bucket_cap;
    memset(p, 0, sizeof *p);
    p->tree = tree;
    p->bucket = bucket;
    p->bucket_cap = bucket_cap;
    p->tree.n = p->tree.nk = 0;
    p->cfg = *cfg;
    p->net = net;
    p->cluster = cl;
    p->comm = mode;

    /* The GPU models in use and how many of each: full nodes, then the
     * first GPUs of a last partial node (counted per group, not per GPU,
     * so 1,024 GPUs cost no more than 2). */
    int full = cfg->gpus / cl->gpus_per_node, rest = cfg->gpus % cl->gpus_per_node;
    for (int i = 0, offset = 0; i < cl->n_groups; offset += cl->groups[i].count, i++) {
        int in_rest = rest - offset;
        int n = full * cl->groups[i].count +
                (in_rest <= 0 ? 0 : in_rest < cl->groups[i].count ? in_rest : cl->groups[i].count);
        if (n > 0) {
            p->group_dev[p->n_groups] = &cl->groups[i].dev;
            p->group_gpus[p->n_groups++] = n;
        }
    }
    /* PyTorch exchanges through DistributedDataParallel, which has work of its own */
    int ddp = p->comm == CP_COMM_NCCL && cfg->gpus > 1 ? cfg->gpus : 0;
    int local = cp_cluster_node_gpus(cl, ddp);
    for (int k = 0; k < p->n_groups; k++) {
        if (!(p->group[k] = single(cache, net, p->group_dev[k], cfg->batch, cfg, ddp, local, &p->group_eager[k], err)))
            return -1;
        if (compute_of(p, k) > compute_of(p, p->slowest))
            p->slowest = k;
    }
    p->grad_bytes = 0;
    for (int i = 0; i < net->n_layers; i++)
        p->grad_bytes += grad_bytes_of(cfg, &net->layers[i]);
    if (p->grad_bytes > 0) /* the servers send fp32 parameters back */
        p->cfg.ps.pull_ratio = 4.0 * (double)net->params / p->grad_bytes;
    p->cfg.ps.grad_type = cfg->prec == CP_PREC_FP16 ? 1 : cfg->prec == CP_PREC_BF16 ? 2 : 0;
    if (mode == CP_COMM_NCCL && cp_nccl_allreduce(cl, cfg->gpus, p->grad_bytes, cfg->algo, &p->ar, err))
        return -1;
    if (mode == CP_COMM_PS && cp_ps_exchange(cl, cfg->gpus, p->grad_bytes, &p->cfg.ps, &p->ps, err))
        return -1;

    memset(&p->sys, 0, sizeof p->sys);
    p->sys.cls = CP_HETEROGENEOUS;
    if (cp_system_add_unit(&p->sys, "GPUs of the cluster", CP_MIMD, NULL, 1.0, cfg->gpus, err) < 0)
        return -1;
    if (build(p, err) || cp_tree_eval(&p->tree, p->root, &p->sys, err))
        return -1;

    const cp_task *t = p->tree.t;
    const cp_prediction *s = p->group[p->slowest];
    p->loading_ms = t[p->phase[0]].time_ms;
    p->forward_ms = t[p->phase[1]].time_ms;
    p->backward_ms = t[p->phase[2]].time_ms;
    p->update_ms = t[p->phase[3]].time_ms;
    p->iteration_ms = t[p->root].time_ms;
    const cp_eager *se = p->group_eager[p->slowest];
    p->compute_backward_ms = se ? se->backward_ms : s->backward_ms;
    for (int c = t[p->phase[2]].first; c >= 0; c = t[c].next)
        if (t[c].resource != 0)
            p->exchange_ms += t[c].time_ms;
    /* the schedule and the plain sum add the same times in another order */
    double exposed = p->backward_ms - p->compute_backward_ms;
    p->exposed_exchange_ms = exposed > 1e-9 * p->backward_ms ? exposed : 0;
    p->images_per_s = (double)cfg->batch * cfg->gpus / (p->iteration_ms * 1e-3);
    p->scaling_efficiency = p->images_per_s / (cfg->gpus * (se ? se->images_per_s : s->images_per_s));
    if (cfg->gpus < 2 || mode == CP_COMM_NONE)
        snprintf(p->dominant, sizeof p->dominant, "no gradient exchange");
    else if (mode == CP_COMM_NCCL)
        snprintf(p->dominant, sizeof p->dominant, "NCCL %s/%s all-reduce of %.0f MB, limited by the %s (bus bandwidth %.0f GB/s)",
                 cp_ar_algo_name(p->ar.algo), cp_proto_name(p->ar.proto), p->grad_bytes / 1e6,
                 p->ar.bottleneck ? p->ar.bottleneck : "link", p->ar.busbw_gbs);
    else
        snprintf(p->dominant, sizeof p->dominant, "%s", p->ps.why);
    return 0;
}

/* p's iteration again with the PS stream of the slowest and of the fastest
 * call its pool holds, where the stream is pooled and the calls differ. */
static int ps_stream_range(const cp_network *net, const cp_cluster *cl, const cp_dist_config *cfg,
                           cp_single_cache *cache, cp_dist_prediction *p, cp_error *err)
{
    if (p->comm != CP_COMM_PS || cfg->gpus < 2 || !p->ps.one_stream)
        return 0;
    const cp_ipc_pooled *pool = cp_cluster_ps_pool(cl, cp_cluster_node_gpus(cl, cfg->gpus), cfg->ps.servers);
    if (!pool || !(pool->min_gbs > 0 && pool->max_gbs > pool->min_gbs))
        return 0;
    cp_dist_config c = *cfg;
    cp_dist_prediction q = {0};
    c.ps.stream_scale = pool->min_gbs / pool->link.bandwidth_gbs;
    int rc = predict_mode(net, cl, &c, CP_COMM_PS, cache, &q, err);
    double slow = q.iteration_ms;
    c.ps.stream_scale = pool->max_gbs / pool->link.bandwidth_gbs;
    rc = rc || predict_mode(net, cl, &c, CP_COMM_PS, cache, &q, err);
    double fast = q.iteration_ms;
    cp_dist_prediction_free(&q);
    if (rc)
        return -1;
    p->ps_pool = pool;
    p->ps_range_slow_ms = slow;
    p->ps_range_fast_ms = fast;
    return 0;
}

int cp_predict_distributed(const cp_network *net, const cp_cluster *cl, const cp_dist_config *cfg,
                           cp_single_cache *cache, cp_dist_prediction *p, cp_error *err)
{
    if (cfg->gpus < 1)
        return cp_fail(err, NULL, "gpus", "must be at least 1, got %d", cfg->gpus);
    if (cfg->gpus > cp_cluster_gpus(cl))
        return cp_fail(err, cl->file[0] ? cl->file : NULL, NULL, "%d GPUs requested but cluster '%s' has %d",
                       cfg->gpus, cl->name, cp_cluster_gpus(cl));
    if (cfg->batch < 1)
        return cp_fail(err, NULL, "batch", "must be a positive integer, got %d", cfg->batch);
    if (!(cfg->bucket_mb > 0))
        return cp_fail(err, NULL, "bucket-mb", "must be positive, got %g", cfg->bucket_mb);
    cp_comm_mode mode = cfg->comm;
    if (mode == CP_COMM_AUTO) { /* both, keep the faster */
        if (predict_mode(net, cl, cfg, CP_COMM_PS, cache, p, err))
            return -1;
        double ps = p->iteration_ms;
        if (predict_mode(net, cl, cfg, CP_COMM_NCCL, cache, p, err))
            return -1;
        if (ps >= p->iteration_ms)
            return 0;
        mode = CP_COMM_PS;
    }
    if (predict_mode(net, cl, cfg, mode, cache, p, err))
        return -1;
    return ps_stream_range(net, cl, cfg, cache, p, err);
}

void cp_dist_prediction_free(cp_dist_prediction *p)
{
    cp_tree_free(&p->tree);
    free(p->bucket);
    p->bucket = NULL;
    p->bucket_cap = p->buckets = 0;
}
