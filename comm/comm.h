/* comm: how long exchanging gradients takes, by parameter server or NCCL.
 *
 * Every function is a closed form over the cluster's links (Eq. 5-10:
 * T = V/B + L x N_msg, applied step by step) and costs the same for 2 or
 * 1,024 GPUs. Times are in milliseconds, sizes in bytes. */
#ifndef CP_COMM_H
#define CP_COMM_H

#include "cluster.h"

/* --- NCCL all-reduce ---------------------------------------------------- */

typedef enum { CP_AR_AUTO = -1, CP_AR_RING = 0, CP_AR_TREE, CP_AR_HIERARCHICAL } cp_ar_algo;
typedef enum { CP_PROTO_LL, CP_PROTO_LL128, CP_PROTO_SIMPLE } cp_proto;

const char *cp_ar_algo_name(cp_ar_algo a);
const char *cp_proto_name(cp_proto p);

typedef struct {
    double time_ms;
    cp_ar_algo algo;
    cp_proto proto;
    double algbw_gbs; /* bytes / time, as nccl-tests defines it */
    double busbw_gbs; /* algbw x 2(n-1)/n */
    double latency_ms;   /* the latency part of time_ms */
    double bandwidth_ms; /* the volume part */
    const char *bottleneck; /* the link that sets the bandwidth term: "intra-node", "network", ... */
} cp_ar_est;

/* All-reduce of `bytes` over the first `gpus` GPUs of the cluster. Ring
 * and tree run the protocol NCCL's tuner picks by its own estimates
 * (cp_nccl_tuner_estimate), timed by this model: it need not be the
 * fastest. Hierarchical, not an NCCL algorithm, takes its fastest protocol
 * across nodes and is the ring on one node. CP_AR_AUTO takes the fastest
 * algorithm. One GPU: zero time. Returns -1 on a request the cluster cannot
 * serve (more GPUs than it has, bytes < 0). */
int cp_nccl_allreduce(const cp_cluster *c, int gpus, double bytes, cp_ar_algo algo, cp_ar_est *out,
                      cp_error *err);

/* The network link (per direction, per NIC) with which this model's ring
 * all-reduce of `ranks` GPUs, one per node, takes latency_us + S / algbw:
 * a measured sweep's fit (cp_cluster_net_parse) turned back through the
 * ring's form with the Simple protocol, which NCCL runs at such sizes. */
void cp_nccl_net_link(int ranks, double latency_us, double algbw_gbs, cp_link *net);

/* NCCL's own estimate of ring or tree with one protocol, as its tuner
 * computes it to choose: *latency_us (base + per-step hop latencies) and
 * *algbw_gbs (time = latency + bytes / algbw). NCCL 2.28's constants,
 * comm/nccl.c. Returns -1 for another algorithm, a bad protocol, fewer than
 * 2 GPUs or what cp_nccl_allreduce refuses. */
int cp_nccl_tuner_estimate(const cp_cluster *c, int gpus, double bytes, cp_ar_algo algo, cp_proto proto,
                           double *latency_us, double *algbw_gbs, cp_error *err);

/* --- parameter server --------------------------------------------------- */

typedef struct {
    int servers;   /* k >= 1 */
    int on_gpu;    /* 0: CPU servers (dissertation), 1: a GPU server co-located with a worker */
    int colocated; /* servers run on the workers' nodes (sharded) rather than a separate node */
    /* Parameter bytes pulled per gradient byte pushed: 1 (0 means 1) when
     * both have one type; 2 for 16-bit gradients of fp32 parameters. */
    double pull_ratio;
    int grad_type; /* the gradients' type, for a measured server pass: 0 FP32, 1 FP16, 2 BF16 */
    /* A CPU server process's message stream at this multiple of the
     * cluster's (0 means 1): predict's range over the calls a pooled stream
     * was measured in (cp_dist_prediction.ps_range_*). */
    double stream_scale;
} cp_ps_config;

typedef struct {
    double push_ms;      /* device -> host -> server, including incast at the server's link */
    double aggregate_ms; /* the server sums the workers' gradients and applies SGD */
    double round_ms;     /* of aggregate_ms, the round's fixed cost for the server's thread team */
    double pull_ms;      /* server -> workers, parameters */
    double time_ms;      /* push + aggregate + pull */
    /* 1: every byte passes through CPU server processes that move one
     * message at a time, pushes and pulls alike (MPI over shared memory:
     * the server process's own thread copies each message), so one bucket's
     * pull cannot run beside the next bucket's push. 0: the directions are
     * separate links (a network, a GPU server) and pipeline. */
    int one_stream;
    const char *bottleneck; /* "server link", "server memory", "host link", ... */
    char why[192];       /* e.g. "PS server link saturated: 8 workers x 102 MB" */
} cp_ps_est;

/* A CPU server's round (one bucket's sum and SGD) costs, beside its bytes,
 * this many ms per thread of its team (0 for a shard summed on one thread),
 * by the gradients' precision: the median over the calibration set's PS
 * jobs (validation/h100x2/pscalib33, pswake34, h100x4/pscalib39,
 * h200x4/psov42) with 16-bit (15 jobs) and with FP32 gradients (16) of the
 * server's measured pass less the model's, per bucket and thread
 * (docs/ACCURACY.md, rules 13 and 15; BF16, never measured, takes the 16-bit
 * value). */
#define CP_PS_ROUND_MS_PER_THREAD_FP32 0.0469
#define CP_PS_ROUND_MS_PER_THREAD_16BIT 0.0802
static inline double cp_ps_round_ms_per_thread(int grad_type)
{
    return grad_type == 0 ? CP_PS_ROUND_MS_PER_THREAD_FP32 : CP_PS_ROUND_MS_PER_THREAD_16BIT;
}

/* One PS exchange of `bytes` of gradients (and pull_ratio times as many
 * parameter bytes) by `gpus` workers. Returns -1 for zero servers, more
 * GPUs than the cluster has, a server count larger than the GPUs or a
 * negative ratio. */
int cp_ps_exchange(const cp_cluster *c, int gpus, double bytes, const cp_ps_config *ps, cp_ps_est *out,
                   cp_error *err);

/* Bytes all GPUs send in all for one all-reduce of `bytes` by algorithm
 * `algo` (CP_AR_AUTO: the one cp_nccl_allreduce picks), as the model
 * schedules it: 2(p-1)S for each of them. -1 on a request
 * cp_nccl_allreduce would refuse. */
double cp_nccl_volume_bytes(const cp_cluster *c, int gpus, double bytes, cp_ar_algo algo, cp_error *err);

#endif
