/* Parameter server (dissertation Fig. 6-2): workers push gradients to the
 * servers, the servers sum them and apply SGD, workers pull the parameters
 * back. Each transfer is Eq. 5-10 (V/B + L x N_msg) on the link that carries
 * the most bytes; the stages of one path add up (a tensor is copied whole
 * before it is sent on), disjoint paths run at once and the slowest counts
 * (Eq. 5-15). Pull mirrors push: what arrived (incast) leaves the servers
 * (outcast) over the same links in the other direction, as parameters: as
 * many bytes, or twice as many for 16-bit gradients of fp32 parameters. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "comm.h"

/* Where the servers run, which decides which links the gradients cross. */
typedef enum {
    SAME_NODE,  /* the host CPU or a GPU of the workers' one node (the dissertation's box) */
    OWN_NODES,  /* k dedicated server nodes, each with the cluster's NICs */
    ON_WORKERS, /* k shards spread over the workers' nodes (CPUs or GPUs) */
} placement;

typedef struct {
    int w, n, g, k;  /* workers, nodes they span, workers on the fullest node, servers */
    int s_max, s_min; /* servers on the busiest and on the least busy worker node */
    double bytes;      /* gradients pushed (in pull_ms: parameters pulled) */
    double pull_ratio; /* parameter bytes per gradient byte */
    int grad_type;     /* 0 FP32, 1 FP16, 2 BF16 gradients */
    placement where;
    int on_gpu;
    const cp_link *ipc; /* a CPU server process's message stream for g workers and k servers (cp_cluster_ps_stream) */
    double ipc_gbs;     /* its bandwidth, times cp_ps_config.stream_scale */
    /* the slowest of the GPUs taking part (MIMD: the last one to finish sets the time) */
    double host_bw, host_lat, dram_bw, gpu_flops;
} ps_setup;

/* The largest single term seen so far: it names the bottleneck. */
typedef struct {
    double ms;
    const char *name;
    char why[192];
} worst_term;

static double consider(worst_term *w, double ms, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static double consider(worst_term *w, double ms, const char *name, const char *fmt, ...)
{
    if (ms > w->ms) {
        w->ms = ms;
        w->name = name;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->why, sizeof w->why, fmt, ap);
        va_end(ap);
    }
    return ms;
}

static const char *mb(double bytes, char *buf, size_t n)
{
    snprintf(buf, n, bytes >= 1e9 ? "%.3g GB" : bytes >= 1e6 ? "%.0f MB" : "%.0f kB",
             bytes >= 1e9 ? bytes / 1e9 : bytes >= 1e6 ? bytes / 1e6 : bytes / 1e3);
    return buf;
}

/* " / 4 servers" after a per-worker size, nothing for one server */
static const char *shards(int k, char *buf, size_t n)
{
    if (k == 1)
        buf[0] = '\0';
    else
        snprintf(buf, n, " / %d servers", k);
    return buf;
}

static const char *plural(int n)
{
    return n == 1 ? "" : "s";
}

static double ms_of(double bytes, double gbs)
{
    return bytes / (gbs * 1e9) * 1e3;
}

/* --- setup ---------------------------------------------------------------- */

static void slowest_gpus(const cp_cluster *c, ps_setup *s)
{
    s->host_bw = s->dram_bw = s->gpu_flops = HUGE_VAL;
    s->host_lat = 0;
    int seen = 0;
    for (int i = 0; i < c->n_groups && seen < s->w; i++) {
        const cp_device *d = &c->groups[i].dev;
        seen += c->groups[i].count;
        s->host_bw = fmin(s->host_bw, d->host_link_bandwidth_gbs);
        s->host_lat = fmax(s->host_lat, d->host_link_latency_us);
        s->dram_bw = fmin(s->dram_bw, d->dram_bandwidth_gbs * d->dram_efficiency);
        s->gpu_flops = fmin(s->gpu_flops, d->fp32_tflops * 1e3); /* GFLOP/s */
    }
    /* Without P2P the intra-node link is each GPU's own PCIe link to the
     * host: the cluster may know it better (x8 slots) than the profile. */
    if (!c->intra_p2p && c->intra.bandwidth_gbs > 0) {
        s->host_bw = fmin(s->host_bw, c->intra.bandwidth_gbs);
        s->host_lat = fmax(s->host_lat, c->intra.latency_us);
    }
}

static int setup(const cp_cluster *c, int gpus, double bytes, const cp_ps_config *ps, ps_setup *s, cp_error *err)
{
    memset(s, 0, sizeof *s);
    int have = cp_cluster_gpus(c);
    if (ps->servers < 1)
        return cp_fail(err, NULL, NULL, "parameter server: needs at least one server, got %d", ps->servers);
    if (gpus < 1 || gpus > have)
        return cp_fail(err, NULL, NULL, "parameter server with %d workers: cluster '%s' has %d GPUs (%d node%s x %d)",
                       gpus, c->name, have, c->nodes, c->nodes == 1 ? "" : "s", c->gpus_per_node);
    if (ps->servers > gpus)
        return cp_fail(err, NULL, NULL, "parameter server: %d servers for %d workers (at most one shard per worker)",
                       ps->servers, gpus);
    if (!(bytes >= 0) || !isfinite(bytes))
        return cp_fail(err, NULL, NULL, "parameter server exchange of %g bytes: the size must be non-negative",
                       bytes);
    if (!(ps->pull_ratio >= 0) || !isfinite(ps->pull_ratio))
        return cp_fail(err, NULL, NULL, "parameter server: parameter bytes per gradient byte must be >= 0, got %g",
                       ps->pull_ratio);
    s->w = gpus;
    s->k = ps->servers;
    s->bytes = bytes;
    s->pull_ratio = ps->pull_ratio > 0 ? ps->pull_ratio : 1;
    if (ps->grad_type < 0 || ps->grad_type > 2)
        return cp_fail(err, NULL, NULL, "parameter server: gradient type %d is not 0 (FP32), 1 (FP16) or 2 (BF16)",
                       ps->grad_type);
    s->grad_type = ps->grad_type;
    s->on_gpu = ps->on_gpu != 0;
    s->n = (gpus + c->gpus_per_node - 1) / c->gpus_per_node;
    s->g = cp_cluster_node_gpus(c, gpus);
    s->ipc = cp_cluster_ps_stream(c, s->g, s->k);
    if (!(ps->stream_scale >= 0) || !isfinite(ps->stream_scale))
        return cp_fail(err, NULL, NULL, "parameter server: stream scale must be >= 0, got %g", ps->stream_scale);
    s->ipc_gbs = s->ipc->bandwidth_gbs * (ps->stream_scale > 0 ? ps->stream_scale : 1);
    s->s_max = (s->k + s->n - 1) / s->n;
    s->s_min = s->k / s->n;
    int net = c->nics_per_node > 0 && c->inter.bandwidth_gbs > 0;
    if (s->n > 1 && !net)
        return cp_fail(err, NULL, NULL, "cluster '%s' spans %d nodes but has no inter-node network", c->name, s->n);
    /* A GPU server is one of the workers' GPUs (so always co-located); a
     * CPU server not co-located runs on a node of its own where a network
     * reaches one, else on the workers' host, as in the dissertation. */
    int with_workers = s->on_gpu || ps->colocated;
    if (s->n == 1 && (with_workers || !net))
        s->where = SAME_NODE;
    else
        s->where = with_workers ? ON_WORKERS : OWN_NODES;
    slowest_gpus(c, s);
    return 0;
}

/* --- one direction of the exchange (push; pull is its mirror) -------------- */

/* GPU <-> its host over PCIe: every worker at once on its own link, all of
 * a node's copies landing in (or leaving) the node's host memory. */
static double host_copy(const cp_cluster *c, const ps_setup *s, worst_term *w)
{
    char b[32];
    double link = consider(w, ms_of(s->bytes, s->host_bw) + s->host_lat * 1e-3, "host link",
                           "workers' host links: %s each way per GPU at %.3g GB/s", mb(s->bytes, b, sizeof b),
                           s->host_bw);
    double mem = consider(w, ms_of(s->g * s->bytes, c->host_memory_bandwidth_gbs), "host memory",
                          "host memory: %d GPUs x %s at %.3g GB/s", s->g, mb(s->bytes, b, sizeof b),
                          c->host_memory_bandwidth_gbs);
    return fmax(link, mem);
}

/* Across the network: the busiest server node's NICs take the incast, the
 * workers' NICs the fan-out; one message per remote worker at each server. */
static double network(const cp_cluster *c, const ps_setup *s, worst_term *w)
{
    char b[32];
    double per_shard = s->bytes / s->k;
    int worker_nics = c->nics_per_node < s->g ? c->nics_per_node : s->g;
    double in, out, senders;
    if (s->where == OWN_NODES) {
        in = s->w * per_shard; /* one server per node */
        out = s->g * s->bytes;
        senders = s->w;
    } else { /* ON_WORKERS: local workers' shards stay on the node */
        in = s->s_max * (s->w - s->g) * per_shard;
        out = s->g * (s->k - s->s_min) * per_shard;
        senders = s->w - s->g;
    }
    /* A CPU server's host reaches all of its node's NICs; GPU servers get
     * their node's data through the NICs next to the GPUs. */
    int server_nics = s->on_gpu ? worker_nics : c->nics_per_node;
    double lat = senders * c->inter.latency_us * 1e-3;
    double t_in = ms_of(in, server_nics * c->inter.bandwidth_gbs) + lat;
    double t_out = ms_of(out, worker_nics * c->inter.bandwidth_gbs) + lat;
    char k[32];
    consider(w, t_in, "server link", "PS server link%s saturated: %d worker%s x %s%s", plural(s->k), (int)senders,
             plural((int)senders), mb(s->bytes, b, sizeof b), shards(s->k, k, sizeof k));
    consider(w, t_out, "worker network", "workers' network links: %d GPUs x %s per node over %d NIC%s", s->g,
             mb(s->bytes, b, sizeof b), worker_nics, plural(worker_nics));
    return fmax(t_in, t_out);
}

/* A GPU server: the other workers of its node send their shards over the
 * intra-node link (through host memory without P2P), remote workers over
 * the network straight into its memory (GPUDirect RDMA) -- at once. */
static double to_gpu_server(const cp_cluster *c, const ps_setup *s, worst_term *w)
{
    char b[32];
    double local_in = (s->g - 1) * (s->bytes / s->k); /* into one server GPU */
    double bw = c->intra.bandwidth_gbs, lat = c->intra.latency_us;
    if (!c->intra_p2p) {
        bw /= 2;
        lat *= 2;
    }
    char k[32];
    double t = consider(w, ms_of(local_in, bw) + (s->g - 1) * lat * 1e-3, "intra-node",
                        "PS server GPU's link: %d local worker%s x %s%s at %.3g GB/s", s->g - 1, plural(s->g - 1),
                        mb(s->bytes, b, sizeof b), shards(s->k, k, sizeof k), bw);
    if (!c->intra_p2p) /* every staged byte is written to and read from host memory */
        t = fmax(t, consider(w, ms_of(2.0 * s->s_max * local_in, c->host_memory_bandwidth_gbs), "host memory",
                             "host memory: staging %d GPUs x %s without P2P at %.3g GB/s", s->g,
                             mb(s->bytes, b, sizeof b), c->host_memory_bandwidth_gbs));
    if (s->where == ON_WORKERS) {
        double remote_in = (s->w - s->g) * (s->bytes / s->k); /* through the server GPU's PCIe */
        t = fmax(t, consider(w, ms_of(remote_in, s->host_bw), "server GPU's PCIe",
                             "PS server GPU's PCIe: %d remote worker%s x %s%s at %.3g GB/s", s->w - s->g,
                             plural(s->w - s->g), mb(s->bytes, b, sizeof b), shards(s->k, k, sizeof k),
                             s->host_bw));
        t = fmax(t, network(c, s, w));
    }
    return t;
}

/* Workers and a CPU server are separate processes: on one node, the host
 * copies then go as messages from each worker process to the server's, one
 * stream each, and a server takes its node's streams one after the other
 * (a receiving process copies one message at a time). */
static double to_server_process(const ps_setup *s, worst_term *w)
{
    const cp_link *ipc = s->ipc;
    if (s->ipc_gbs <= 0 || s->where == OWN_NODES)
        return 0;
    char b[32], k[32];
    double shard = s->bytes / s->k;
    return consider(w, s->g * (ms_of(shard, s->ipc_gbs) + ipc->latency_us * 1e-3), "server process",
                    "PS server process: %d worker%s x %s%s, one message stream at a time at %.3g GB/s", s->g,
                    plural(s->g), mb(s->bytes, b, sizeof b), shards(s->k, k, sizeof k), s->ipc_gbs);
}

static double one_way(const cp_cluster *c, const ps_setup *s, worst_term *w)
{
    if (s->on_gpu)
        return to_gpu_server(c, s, w);
    double t = host_copy(c, s, w) + to_server_process(s, w);
    if (s->where != SAME_NODE)
        t += network(c, s, w);
    return t;
}

/* --- aggregation ---------------------------------------------------------- */

/* Per server: read W gradient shards, the parameters and their momentum,
 * write both back (the sum stays in registers: one fused pass, as
 * measure/ps.c's aggregate does); W-1 adds and the momentum SGD's two
 * multiply-adds per fp32 parameter. Servers sharing a host share its
 * memory and cores. A roofline: the slower of memory and arithmetic. A
 * shard under CP_PS_SERIAL_ELEMS parameters is summed on one thread, as
 * cnnperf-measure's server does (ps_server.h): each server on a core of
 * its own, at one thread's rate. */
static double aggregate(const cp_cluster *c, const ps_setup *s, worst_term *w, double *round_ms)
{
    *round_ms = 0;
    char b[32];
    int per_host = s->where == SAME_NODE ? s->k : s->where == OWN_NODES ? 1 : s->s_max;
    double shard = s->bytes / s->k, params = shard * s->pull_ratio;
    double bytes = s->w * shard + 4.0 * params, flops = (s->w + 2.0) * params / 4;
    if (s->on_gpu) {
        double mem = consider(w, ms_of(bytes, s->dram_bw), "server GPU memory",
                              "PS server GPU memory: summing %d gradient copies of %s at %.3g GB/s", s->w,
                              mb(shard, b, sizeof b), s->dram_bw);
        return fmax(mem, flops / (s->gpu_flops * 1e9) * 1e3);
    }
    /* the pass as cnnperf-psbench measured it, else the host memory's bandwidth */
    double elems = params / 4;
    int serial = cp_ps_server_one_thread(elems);
    int threads = c->cpu_cores - s->g > 1 ? c->cpu_cores - s->g : 1; /* what its workers leave it */
    double measured_bw = cp_ps_server_rate(&c->ps_server, s->grad_type, elems, threads);
    int measured = measured_bw > 0, sharing = serial ? 1 : per_host;
    double bw = measured ? measured_bw : c->host_memory_bandwidth_gbs;
    double mem = consider(w, ms_of(sharing * bytes, bw), measured ? "server pass" : "server memory",
                          "%s%d gradient copies of %s at %.3g GB/s%s%s",
                          measured ? "PS server's sum and SGD: " : "PS server memory bandwidth: summing ", s->w,
                          mb(sharing * shard, b, sizeof b), bw, measured ? " (measured)" : "",
                          measured && serial ? " on one thread" : "");
    double rate = (serial ? 1 : c->cpu_cores) * c->cpu_gflops_per_core;
    double cpu = consider(w, sharing * flops / (rate * 1e9) * 1e3, "server CPU",
                          "PS server CPU: %.2g GFLOP of sums and SGD at %.0f GFLOP/s", sharing * flops / 1e9, rate);
    /* Each round wakes and joins the server's thread team, which psbench's
     * back-to-back passes never let sleep (docs/ACCURACY.md, rules 13 and 15:
     * per thread, by the gradients' precision). */
    double team = serial ? 0 : c->ps_server.threads > 0 ? c->ps_server.threads : threads;
    *round_ms = team * cp_ps_round_ms_per_thread(s->grad_type);
    return fmax(mem, cpu) + *round_ms;
}

int cp_ps_exchange(const cp_cluster *c, int gpus, double bytes, const cp_ps_config *ps, cp_ps_est *out,
                   cp_error *err)
{
    ps_setup s;
    memset(out, 0, sizeof *out);
    if (setup(c, gpus, bytes, ps, &s, err))
        return -1;
    if (bytes == 0) {
        out->bottleneck = "none";
        snprintf(out->why, sizeof out->why, "nothing to exchange");
        return 0;
    }
    worst_term w = {0, "none", "nothing to exchange"};
    out->push_ms = one_way(c, &s, &w);
    out->aggregate_ms = aggregate(c, &s, &w, &out->round_ms);
    ps_setup back = s; /* the parameters, over the same links */
    back.bytes = s.bytes * s.pull_ratio;
    out->pull_ms = back.bytes == s.bytes ? out->push_ms : one_way(c, &back, &w);
    out->time_ms = out->push_ms + out->aggregate_ms + out->pull_ms;
    out->one_stream = !s.on_gpu && s.where != OWN_NODES && s.ipc_gbs > 0;
    out->bottleneck = w.name;
    snprintf(out->why, sizeof out->why, "%s", w.why);
    return 0;
}
