/* NCCL all-reduce: ring, double binary tree and hierarchical, each with the
 * three NCCL protocols, as closed forms of Eq. 5-10 applied per step:
 * a step moving a chunk over a hop costs L_hop + chunk / B_hop, and the
 * steps of one algorithm run back to back. Each algorithm's comment gives
 * its form. Which protocol runs is NCCL's choice, made by NCCL's own cost
 * model (its tuner, reproduced below), not the fastest by this one.
 * Nothing here loops over GPUs: 2 or 1,024 cost the same. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "comm.h"

/* --- protocols ------------------------------------------------------------ */

typedef struct {
    const char *name;
    double bw_frac; /* share of the link's bandwidth that carries payload */
    double hop_us;  /* synchronisation a step adds to the link's own latency */
    double base_us; /* once per all-reduce: launch, set-up of the channels, the final flush */
} proto_info;

/* LL: every 8-byte store carries 4 bytes of data and a 4-byte flag, so the
 * receiver polls the data itself: no extra handshake, half the bandwidth.
 * LL128: one 8-byte flag per 128-byte line (120/128 payload), a little
 * synchronisation per step. Simple: full bandwidth, but each chunk is
 * followed by a memory fence and a flag write the peer must see (NCCL's own
 * tuner charges ~3.4-5.7 us per ring hop on NVLink/PCIe, ~0.4-1 us for LL). */
/* base_us: NCCL's own tuner charges every collective a base latency per
 * protocol before any step (src/graph/tuning.cc, baseLat, ring: LL 6.6,
 * LL128 14.0, Simple 8.4 us in NCCL 2.19 and later). */
static const proto_info protos[] = {
    [CP_PROTO_LL] = {"LL", 0.5, 0.0, 6.6},
    [CP_PROTO_LL128] = {"LL128", 120.0 / 128.0, 1.0, 14.0},
    [CP_PROTO_SIMPLE] = {"Simple", 1.0, 5.0, 8.4},
};
#define N_PROTOS ((int)(sizeof protos / sizeof protos[0]))

const char *cp_proto_name(cp_proto p)
{
    return p >= 0 && (int)p < N_PROTOS ? protos[p].name : "?";
}

/* --- the links one all-reduce sees ----------------------------------------- */

typedef struct {
    double bw;   /* bytes/s per direction, before the protocol's share */
    double lat;  /* us per step, before the protocol's synchronisation */
    const char *name;
    double tuner_bw; /* bytes/s: what NCCL's tuner believes bw is */
} hop;

typedef struct {
    const cp_cluster *c;
    int p;      /* GPUs taking part */
    int n;      /* nodes they span */
    int g;      /* GPUs on the fullest node */
    double s;   /* bytes */
    hop intra;  /* GPU to GPU inside a node (used when g > 1) */
    hop net;    /* one node's share of the network (used when n > 1) */
} ar_setup;

/* Without peer-to-peer, a chunk is copied to host memory by the sender and
 * from it by the receiver: two crossings of the host link per step, and all
 * g GPUs of the node write and read host memory at once. */
static hop intra_hop(const cp_cluster *c, int g)
{
    double tuner = c->intra_nccl_tuner_busbw_gbs > 0 ? c->intra_nccl_tuner_busbw_gbs : c->intra.bandwidth_gbs;
    hop h = {c->intra.bandwidth_gbs * 1e9, c->intra.latency_us, "intra-node", tuner * 1e9};
    if (c->intra_p2p)
        return h;
    h.bw /= 2;
    h.tuner_bw /= 2;
    h.lat *= 2;
    h.name = "host link (no P2P)";
    double mem = c->host_memory_bandwidth_gbs * 1e9 / (2.0 * g);
    if (mem < h.bw) {
        h.bw = h.tuner_bw = mem;
        h.name = "host memory (no P2P)";
    }
    return h;
}

/* NCCL spreads its channels over the node's NICs, so a node sends at the
 * NICs' sum; each GPU drives at most one NIC (its PCIe switch's). */
static hop net_hop(const cp_cluster *c, int g)
{
    int nics = c->nics_per_node < g ? c->nics_per_node : g;
    double bw = nics * c->inter.bandwidth_gbs * 1e9;
    hop h = {bw, c->inter.latency_us, "network", bw};
    return h;
}

/* The bottleneck of a path through both kinds of hop: steps run in lock
 * step, so the slowest hop sets both the bandwidth and the latency. */
static hop path_hop(const ar_setup *s)
{
    if (s->n == 1)
        return s->intra;
    if (s->g == 1)
        return s->net;
    hop h = s->intra.bw <= s->net.bw ? s->intra : s->net;
    h.lat = fmax(s->intra.lat, s->net.lat);
    return h;
}

/* --- algorithms ----------------------------------------------------------- */

typedef struct {
    double lat_ms, bw_ms;
    const char *bottleneck;
} ar_cost;

/* `steps` steps over hop h, moving `bytes` in all through each GPU. */
static ar_cost phase(const hop *h, const proto_info *pr, double steps, double bytes)
{
    ar_cost k = {steps * (h->lat + pr->hop_us) * 1e-3, bytes / (h->bw * pr->bw_frac) * 1e3, h->name};
    return k;
}

static ar_cost add(ar_cost a, ar_cost b)
{
    ar_cost k = {a.lat_ms + b.lat_ms, a.bw_ms + b.bw_ms, a.bw_ms >= b.bw_ms ? a.bottleneck : b.bottleneck};
    return k;
}

/* Ring: reduce-scatter then all-gather, 2(p-1) steps each moving S/p.
 * Inside one node, where the link's ring behaviour was measured
 * (intra_ring_*): a pair's two steps cost full hops, each further step only
 * intra_ring_step_us, and a share of a pair's transfer term, S / B, stays
 * S / B however long the ring (each GPU's own passes over the buffer); the
 * rest grows as 2(p-1)/p S / B. Two GPUs cost the same either way. */
static ar_cost ring_time(const ar_setup *s, const proto_info *pr)
{
    hop h = path_hop(s);
    double steps = 2.0 * (s->p - 1), moved = steps / s->p * s->s;
    if (s->n > 1 || !s->c->intra_ring_measured || s->p <= 2)
        return phase(&h, pr, steps, moved);
    double fixed = s->c->intra_ring_fixed_share;
    ar_cost k = phase(&h, pr, 2.0, fixed * s->s + (1.0 - fixed) * moved);
    k.lat_ms += (steps - 2.0) * s->c->intra_ring_step_us * 1e-3;
    return k;
}

/* Double binary tree (NCCL): a chain inside each node and a binary tree
 * across nodes; reduce up and broadcast down, 2 (g-1 + ceil(log2 n)) steps
 * once the pipeline is full. Every GPU is inner node of one tree and leaf
 * of the other, so the busiest send and receive 2S in all (NCCL's tuner:
 * tree algbw = busbw / 2): never less volume than the ring, far fewer steps.
 * Two GPUs have no inner node: each sends its half up one tree and down the
 * other, S in all, as the ring (forced tree Simple on 2 x H100: 3149 us at
 * 1 GiB, the ring's 3257; validation/h100x2/nccl-protocols/). */
static ar_cost tree_time(const ar_setup *s, const proto_info *pr)
{
    hop h = path_hop(s);
    double depth = (s->g - 1) + ceil(log2((double)s->n));
    ar_cost k = phase(&h, pr, 2.0 * depth, (s->p == 2 ? 1.0 : 2.0) * s->s);
    if (s->n > 1 && s->g > 1) /* latency: chain hops are intra-node, tree hops cross the network */
        k.lat_ms = 2.0 * ((s->g - 1) * (s->intra.lat + pr->hop_us) +
                          ceil(log2((double)s->n)) * (s->net.lat + pr->hop_us)) * 1e-3;
    return k;
}

/* Hierarchical: reduce-scatter inside each node (every GPU then owns S/g),
 * a ring all-reduce of each S/g shard among the n nodes (the g shards in
 * parallel, sharing the node's NICs), all-gather inside each node. */
static ar_cost hier_time(const ar_setup *s, const proto_info *pr)
{
    ar_cost k = {0, 0, s->intra.name};
    if (s->g > 1) {
        ar_cost rs = phase(&s->intra, pr, s->g - 1.0, (s->g - 1.0) / s->g * s->s);
        k = add(rs, rs); /* the all-gather mirrors the reduce-scatter */
    }
    if (s->n > 1) {
        double shard = s->s / s->g;
        hop share = s->net;
        share.bw /= s->g;
        k = add(k, phase(&share, pr, 2.0 * (s->n - 1), 2.0 * (s->n - 1) / s->n * shard));
    }
    return k;
}

/* Bytes sent over all links together. */
static double ring_volume(const ar_setup *s)
{
    return s->p * (2.0 * (s->p - 1) / s->p * s->s);
}

static double tree_volume(const ar_setup *s)
{
    /* two trees of S/2, each edge of a p-vertex spanning tree carrying its
     * half up and down */
    return 2.0 * (s->p - 1) * (2.0 * (s->s / 2));
}

static double hier_volume(const ar_setup *s)
{
    /* a node of m GPUs sends 2(m-1)/m S per GPU inside; each node sends
     * 2(n-1)/n S across, however many GPUs share it */
    double intra = 2.0 * (s->p - s->n) * s->s;
    double inter = s->n * (2.0 * (s->n - 1) / s->n * s->s);
    return intra + inter;
}

typedef struct {
    const char *name;
    ar_cost (*time)(const ar_setup *, const proto_info *);
    double (*volume)(const ar_setup *);
} algo_info;

static const algo_info algos[] = {
    [CP_AR_RING] = {"ring", ring_time, ring_volume},
    [CP_AR_TREE] = {"tree", tree_time, tree_volume},
    [CP_AR_HIERARCHICAL] = {"hierarchical", hier_time, hier_volume},
};
#define N_ALGOS ((int)(sizeof algos / sizeof algos[0]))

const char *cp_ar_algo_name(cp_ar_algo a)
{
    if (a == CP_AR_AUTO)
        return "auto";
    return a >= 0 && (int)a < N_ALGOS ? algos[a].name : "?";
}

/* --- NCCL's tuner: which algorithm and protocol NCCL runs ------------------ */

/* NCCL runs the algorithm and protocol that its own model, base latency +
 * a latency per step + S / algbw, says is fastest. That model is not this
 * file's, and its pick is not always the fastest: on 2 x H100 NCCL runs
 * Simple from 2 MiB on, where LL, forced, took 21.8 us against Simple's
 * 29.5 (validation/h100x2/nccl-protocols/). So the pick is NCCL's, the time
 * of what it picked this file's. (Its choice between ring and tree is not
 * followed: see cp_nccl_allreduce.)
 *
 * NCCL 2.28.3 printed its table on 2 x H100 over NVLink
 * (NCCL_DEBUG_SUBSYS=TUNING; validation/h100x2/nccl-protocols/nccl-tuner-2xh100.json):
 *   latency us / algbw GB/s   LL           LL128         Simple
 *   ring                      7.8 / 141.0  17.8 / 331.2  15.2 / 360.0
 *   tree                      8.0 /  61.1  16.5 / 180.6  16.4 / 232.2
 * and picked ring LL up to 1 MiB, ring Simple from 2 MiB. Each latency is
 * base + 2 steps x the NVLink hop below; each algbw a share of ring/Simple's
 * 360 (24 channels x 15 GB/s: the cluster's intra_nccl_tuner_busbw_gbs,
 * otherwise the link's own bandwidth). The PCIe and network hop latencies
 * are the rest of NCCL's hwLat table (src/graph/tuning.cc, 2.18 and later);
 * no machine here has checked them. */
enum { HW_NVLINK, HW_PCI, HW_NET };

typedef struct {
    double base_us;
    double hop_us[3]; /* per step, by the hop's kind */
    double share;     /* algbw / ring Simple's busbw */
} tuner_entry;

static const tuner_entry tuner[2][N_PROTOS] = {
    [CP_AR_RING] =
        {
            [CP_PROTO_LL] = {6.6, {0.6, 1.0, 2.7}, 141.0 / 360.0},
            [CP_PROTO_LL128] = {14.0, {1.9, 2.5, 4.0}, 331.2 / 360.0},
            [CP_PROTO_SIMPLE] = {8.4, {3.4, 5.7, 14.0}, 1.0},
        },
    [CP_AR_TREE] =
        {
            [CP_PROTO_LL] = {6.8, {0.6, 1.0, 5.0}, 61.1 / 360.0},
            [CP_PROTO_LL128] = {14.0, {1.25, 1.9, 8.5}, 180.6 / 360.0},
            [CP_PROTO_SIMPLE] = {8.4, {4.0, 6.0, 14.0}, 232.2 / 360.0},
        },
};

/* NCCL's estimate for ring or tree: latency (us) and algbw (GB/s). */
static void tuner_estimate(const cp_cluster *c, const ar_setup *s, cp_ar_algo a, cp_proto p, double *lat_us,
                           double *algbw_gbs)
{
    const tuner_entry *t = &tuner[a][p];
    int intra = c->intra_p2p ? HW_NVLINK : HW_PCI;
    int log2n = 0;
    while ((2 << log2n) <= s->n) /* NCCL's log2i: floor */
        log2n++;
    double bw = path_hop(s).tuner_bw / 1e9;
    if (a == CP_AR_RING) {
        double steps = 2.0 * (s->p - 1), net = 2.0 * (s->n - 1);
        *lat_us = t->base_us + (steps - net) * t->hop_us[intra] + net * t->hop_us[HW_NET];
        *algbw_gbs = bw * t->share * s->p / steps;
    } else {
        *lat_us = t->base_us + 2.0 * ((s->g - 1) * t->hop_us[intra] + log2n * t->hop_us[HW_NET]);
        *algbw_gbs = bw * t->share;
    }
}

/* The protocol NCCL runs for algorithm a (ring or tree). */
static cp_proto tuner_proto(const cp_cluster *c, const ar_setup *s, cp_ar_algo a)
{
    cp_proto best = CP_PROTO_SIMPLE;
    double best_us = HUGE_VAL;
    for (int p = 0; p < N_PROTOS; p++) {
        double lat, bw;
        tuner_estimate(c, s, a, (cp_proto)p, &lat, &bw);
        double t = lat + s->s / (bw * 1e3);
        if (t < best_us) {
            best_us = t;
            best = (cp_proto)p;
        }
    }
    return best;
}

/* --- entry points --------------------------------------------------------- */

static int setup(const cp_cluster *c, int gpus, double bytes, cp_ar_algo algo, ar_setup *s, cp_error *err)
{
    memset(s, 0, sizeof *s);
    int have = cp_cluster_gpus(c);
    if (gpus < 1 || gpus > have)
        return cp_fail(err, NULL, NULL, "all-reduce over %d GPUs: cluster '%s' has %d (%d node%s x %d)", gpus,
                       c->name, have, c->nodes, c->nodes == 1 ? "" : "s", c->gpus_per_node);
    if (!(bytes >= 0) || !isfinite(bytes))
        return cp_fail(err, NULL, NULL, "all-reduce of %g bytes: the size must be a non-negative number", bytes);
    if (algo != CP_AR_AUTO && (algo < 0 || (int)algo >= N_ALGOS))
        return cp_fail(err, NULL, NULL, "unknown all-reduce algorithm %d", (int)algo);
    s->c = c;
    s->p = gpus;
    s->n = (gpus + c->gpus_per_node - 1) / c->gpus_per_node;
    s->g = cp_cluster_node_gpus(c, gpus);
    s->s = bytes;
    if (s->n > 1 && (c->nics_per_node < 1 || !(c->inter.bandwidth_gbs > 0)))
        return cp_fail(err, NULL, NULL, "cluster '%s' spans %d nodes but has no inter-node network", c->name,
                       s->n);
    if (s->g > 1 && !(c->intra.bandwidth_gbs > 0 && (c->intra_p2p || c->host_memory_bandwidth_gbs > 0)))
        return cp_fail(err, NULL, NULL, "cluster '%s': intra-node bandwidth must be positive", c->name);
    s->intra = intra_hop(c, s->g);
    if (s->n > 1)
        s->net = net_hop(c, s->g);
    return 0;
}

static void fill(cp_ar_est *out, const ar_setup *s, cp_ar_algo a, cp_proto p, ar_cost k)
{
    out->algo = a;
    out->proto = p;
    out->latency_ms = k.lat_ms;
    out->bandwidth_ms = k.bw_ms;
    out->time_ms = k.lat_ms + k.bw_ms;
    out->bottleneck = k.bottleneck;
    out->algbw_gbs = out->time_ms > 0 ? s->s / 1e9 / (out->time_ms / 1e3) : 0;
    out->busbw_gbs = out->algbw_gbs * 2.0 * (s->p - 1) / s->p;
}

/* This file's time of algorithm a with protocol p, base latency included. */
static ar_cost cost(const ar_setup *s, cp_ar_algo a, cp_proto p)
{
    ar_cost k = algos[a].time(s, &protos[p]);
    k.lat_ms += protos[p].base_us * 1e-3;
    return k;
}

int cp_nccl_allreduce(const cp_cluster *c, int gpus, double bytes, cp_ar_algo algo, cp_ar_est *out,
                      cp_error *err)
{
    ar_setup s;
    memset(out, 0, sizeof *out);
    if (setup(c, gpus, bytes, algo, &s, err))
        return -1;
    if (gpus == 1 || bytes == 0) { /* nothing to exchange */
        out->algo = algo == CP_AR_AUTO ? CP_AR_RING : algo;
        out->proto = CP_PROTO_SIMPLE;
        out->bottleneck = "none";
        return 0;
    }
    /* Ring and tree with the protocol NCCL's tuner gives each; of the
     * algorithms, the fastest. NCCL's own choice of algorithm is not
     * followed: its tree estimates were seen on one 2-GPU node only, where
     * the tree never won. Hierarchical is not an NCCL algorithm: across
     * nodes it takes its fastest protocol, on one node it is the ring. */
    int first = algo == CP_AR_AUTO ? 0 : (int)algo, last = algo == CP_AR_AUTO ? N_ALGOS - 1 : (int)algo;
    double best = HUGE_VAL;
    for (int a = first; a <= last; a++) {
        cp_proto p = CP_PROTO_SIMPLE;
        ar_cost k = {HUGE_VAL, 0, NULL};
        if (a == CP_AR_HIERARCHICAL && s.n > 1) {
            for (int q = 0; q < N_PROTOS; q++) {
                ar_cost x = cost(&s, (cp_ar_algo)a, (cp_proto)q);
                if (x.lat_ms + x.bw_ms < k.lat_ms + k.bw_ms) {
                    k = x;
                    p = (cp_proto)q;
                }
            }
        } else {
            p = tuner_proto(c, &s, a == CP_AR_TREE ? CP_AR_TREE : CP_AR_RING);
            k = cost(&s, (cp_ar_algo)a, p);
        }
        if (k.lat_ms + k.bw_ms < best) {
            best = k.lat_ms + k.bw_ms;
            fill(out, &s, (cp_ar_algo)a, p, k);
        }
    }
    return 0;
}

/* Ring, one GPU per node: base + 2(p-1) (L + hop) + 2(p-1)/p S / B. */
void cp_nccl_net_link(int ranks, double latency_us, double algbw_gbs, cp_link *net)
{
    const proto_info *pr = &protos[CP_PROTO_SIMPLE];
    double steps = 2.0 * (ranks - 1);
    net->bandwidth_gbs = algbw_gbs * steps / ranks;
    net->latency_us = fmax(0.0, (latency_us - pr->base_us) / steps - pr->hop_us);
}

int cp_nccl_tuner_estimate(const cp_cluster *c, int gpus, double bytes, cp_ar_algo algo, cp_proto proto,
                           double *latency_us, double *algbw_gbs, cp_error *err)
{
    ar_setup s;
    if (setup(c, gpus, bytes, algo, &s, err))
        return -1;
    if ((algo != CP_AR_RING && algo != CP_AR_TREE) || (int)proto < 0 || (int)proto >= N_PROTOS)
        return cp_fail(err, NULL, NULL, "NCCL's tuner estimates ring and tree with LL, LL128 or Simple only");
    if (gpus < 2)
        return cp_fail(err, NULL, NULL, "NCCL's tuner has no estimate for one GPU");
    tuner_estimate(c, &s, algo, proto, latency_us, algbw_gbs);
    return 0;
}

double cp_nccl_volume_bytes(const cp_cluster *c, int gpus, double bytes, cp_ar_algo algo, cp_error *err)
{
    ar_setup s;
    if (setup(c, gpus, bytes, algo, &s, err))
        return -1;
    if (algo == CP_AR_AUTO) {
        cp_ar_est e;
        if (cp_nccl_allreduce(c, gpus, bytes, algo, &e, err))
            return -1;
        algo = e.algo;
    }
    return algos[algo].volume(&s);
}
