/* cluster: the machines a distributed training job runs on.
 *
 * A cluster is `nodes` identical nodes; each node holds one or more groups
 * of GPUs (a group is `count` GPUs of one device profile: the dissertation's
 * own box mixes a GTX 1080 and a GTX 1080 Ti), joined inside the node by the
 * intra-node link (PCIe or NVLink) and across nodes by `nics_per_node`
 * network interfaces. The host side (CPU cores, memory bandwidth) matters
 * for a CPU parameter server. Loaded from a cnnperf-cluster/1 JSON file
 * (clusters/FORMAT.md) by name (embedded) or path. */
#ifndef CP_CLUSTER_H
#define CP_CLUSTER_H

#include "../model/device.h"
#include "../model/system.h"
#include "ps_server.h"

#define CP_MAX_GROUPS 4

typedef struct {
    cp_device dev;
    int count; /* GPUs of this model in one node */
} cp_gpu_group;

/* One server's message stream from `workers` workers to `servers` CPU
 * parameter servers of one node, measured on a host (cnnperf-psexchange). */
typedef struct {
    int workers, servers;
    cp_link link;     /* the median call's stream */
    int sweeps;       /* the calls pooled */
    double min_gbs, max_gbs; /* the slowest and the fastest call's stream (0: not given) */
} cp_ipc_pooled;

#define CP_IPC_POOL_MAX 8

typedef struct {
    char name[64];
    char file[256];
    int nodes;
    cp_gpu_group groups[CP_MAX_GROUPS];
    int n_groups;
    int gpus_per_node;      /* sum of the groups' counts */
    cp_link intra;          /* GPU to GPU inside a node: bandwidth per direction per GPU */
    int intra_p2p;          /* 1: GPUs reach each other directly (NVLink, PCIe P2P); 0: through host memory */
    /* What NCCL's tuner believes the intra-node link moves (its ring busbw:
     * channels x per-channel speed), used only to predict which protocol
     * NCCL picks; 0: the link's bandwidth. */
    double intra_nccl_tuner_busbw_gbs;
    /* How a ring of more than two GPUs inside a node differs from a pair
     * (measured, NVLink 4; ring_measured 0: not measured, every step costs a
     * full hop and all of the transfer scales with the ring). A share of a
     * 2-GPU ring's transfer term that every GPU pays whatever the ring's
     * length (its own reads and writes of the buffer), and the latency of
     * each step beyond a pair's two, which the ring's pipeline overlaps. */
    int intra_ring_measured;
    double intra_ring_fixed_share; /* 0...1 */
    double intra_ring_step_us;
    cp_link inter;          /* one network interface: bandwidth per direction, latency */
    int nics_per_node;
    int cpu_cores;          /* per node */
    double cpu_gflops_per_core;
    double host_memory_bandwidth_gbs; /* per node */
    /* One message stream between two processes of a node (MPI's shared
     * memory, gRPC): how a CPU parameter server's workers reach it.
     * bandwidth 0: not modelled (the server reads the copies in place). */
    cp_link ipc;
    /* The same stream as the device machines' hosts moved it, pooled over
     * the device calls that measured it (calibration/ps-exchange.json), by
     * workers and servers: an assumed cluster's (cp_cluster_homogeneous of
     * a device with a pool); a described cluster or a measured ipc has none
     * (n_ipc_pool 0). cp_cluster_ps_stream picks the link. */
    cp_ipc_pooled ipc_pool[CP_IPC_POOL_MAX];
    int n_ipc_pool;
    /* A CPU parameter server's own pass over its shard (sum of the workers'
     * gradients, SGD with momentum) as measured (cnnperf-psbench, or the
     * host's ps_server_gbs), for FP32, FP16 and BF16 gradients (the
     * cp_ps_grad order); ps_server.h. */
    cp_ps_server ps_server;
} cp_cluster;

/* spec: embedded name ("dgx-h100-x2") or a path to a JSON file. */
int cp_cluster_load(const char *spec, cp_cluster *c, cp_error *err);
int cp_cluster_parse(const char *text, size_t len, const char *file, cp_cluster *c, cp_error *err);

/* A cluster of `gpus` GPUs of one device when the user gave only --device
 * and --gpus: nodes of up to 8 GPUs joined by NVLink (data-centre parts) or
 * PCIe (others), several nodes joined by 400 Gb/s InfiniBand, one NIC per
 * GPU. The name says what was assumed. */
int cp_cluster_homogeneous(cp_cluster *c, const cp_device *d, int gpus, cp_error *err);

int cp_cluster_gpus(const cp_cluster *c); /* nodes x gpus_per_node */

/* The GPUs of a job of `gpus` GPUs that share one node (node-major placement): the workers a node's
 * exchange serves. */
static inline int cp_cluster_node_gpus(const cp_cluster *c, int gpus)
{
    return gpus < c->gpus_per_node ? gpus : c->gpus_per_node;
}

/* A link measured on the user's own host (--host-mpi) becomes the cluster's
 * ipc, and no pooled stream of the device machines stands for it any more. */
static inline void cp_cluster_use_ipc(cp_cluster *c, const cp_link *ipc)
{
    c->ipc = *ipc;
    c->n_ipc_pool = 0;
}

/* The device of GPU number g (0-based, node-major: node g / gpus_per_node). */
const cp_device *cp_cluster_device(const cp_cluster *c, int g);

/* The stream a PS exchange of `workers` workers of a node and `servers`
 * servers moves at: the pool's entry for both counts, else for the workers
 * and one server (K streams at once share the host; no entry slower than
 * that is known), else the cluster's ipc. */
const cp_link *cp_cluster_ps_stream(const cp_cluster *c, int workers, int servers);
/* The pool's entry that stream is, or NULL where it is the cluster's ipc. */
const cp_ipc_pooled *cp_cluster_ps_pool(const cp_cluster *c, int workers, int servers);

/* The host's process-to-process link (ipc) as measured: the MPI ping-pong
 * sweep of a cnnperf-calibrate raw file (`--only mpi --raw FILE`,
 * $.mpi_pingpong.sweep.points), t = L + S / B fitted over the sizes from
 * CP_IPC_FIT_MIN_BYTES up: a parameter server's messages are gradient
 * buckets (25 MB by default) and layers larger than one, and a host copies
 * such messages at DRAM speed, not at the cache speed of the small sizes.
 * Or, from a cnnperf-psexchange file (format cnnperf-psexchange/1: the
 * whole PS exchange of W workers and K servers timed under mpirun), the
 * rate one server's message stream moves while the workers push and pull
 * at once: 2 W S / K bytes per round less the servers' own pass, over the
 * same sizes; the model's one-stream exchange then gives the measured round
 * (not a file of rounds after an idle wait, idle_ms > 0: those time waking
 * the server).
 * The caller gives *ipc to its cluster with cp_cluster_use_ipc. Errors name
 * the file and the JSON path. */
#define CP_IPC_FIT_MIN_BYTES (16.0 * (1 << 20))
int cp_cluster_ipc_measured(const char *path, cp_link *ipc, cp_error *err);
/* 1: a cnnperf-psexchange file whose rounds came after an idle wait
 * (idle_ms > 0): what waking the server costs, which no link takes. */
int cp_cluster_exchange_idle(const cJSON *root);
/* The same from a file already parsed (root; path names it in errors). */
int cp_cluster_ipc_parse(const cJSON *root, const char *path, cp_link *ipc, cp_error *err);

/* The network between nodes as measured: the NCCL all-reduce sweep of a
 * cnnperf-calibrate raw file ($.nccl_allreduce.in_place.points) taken with
 * one rank per node (every rank on its own host in provenance.hostnames),
 * or on one host with NCCL's network transport forced (NCCL_P2P_DISABLE=1
 * and NCCL_SHM_DISABLE=1 in provenance.environment: nodes emulated). Fitted
 * t = L + S / B from CP_IPC_FIT_MIN_BYTES up, then turned into the link
 * that makes comm/nccl.c's ring give that time (cp_nccl_net_link). The
 * caller puts *net into cp_cluster.inter, one NIC per node's GPU. Errors
 * name the file and the JSON path. */
int cp_cluster_net_parse(const cJSON *root, const char *path, cp_link *net, cp_error *err);
int cp_cluster_net_measured(const char *path, cp_link *net, cp_error *err);
/* The network of an emulated run (NCCL's network transport forced on one
 * host) whose folder measured none: the fit of the two such 2-rank sweeps
 * this project took, on two 2 x H200 leases (validation/h200x2/netemu/,
 * netemu2/: 3.46 and 3.44 GB/s, 28.5 and 28.1 us), as a link for a ring of
 * `ranks`. A measured microbenchmark of the same emulation, not the run. */
void cp_cluster_net_emulated_default(int ranks, cp_link *net);
/* Distinct host names among the first 256 of a comma- or space-separated
 * list (provenance.hostnames: one per rank); *total (may be NULL): how many
 * names were read. */
int cp_cluster_hosts_in(const char *list, int *total);
/* Distinct names among names[0..n) (the hosts of a run's ranks). */
int cp_cluster_distinct_hosts(const char *const *names, int n);
/* 1: the file's NCCL ran with its network transport forced on one host. */
int cp_cluster_net_emulated(const cJSON *root);
/* 1: an NCCL sweep of two or more ranks, one per node: emulated, or every
 * rank on its own host (provenance.hostnames): what cp_cluster_net_parse
 * takes. */
int cp_cluster_net_one_per_node(const cJSON *root);

/* The servers' pass as measured: a cnnperf-psbench file (format
 * cnnperf-psbench/1): $.server_gbs on $.threads threads and, where the
 * file has it, $.serial_server_gbs on one thread, for cp_cluster.ps_server.
 * *out is untouched on failure. Errors name the file and the JSON path. */
int cp_cluster_ps_server_parse(const cJSON *root, const char *path, cp_ps_server *out, cp_error *err);
/* The same read from a file (--ps-bench FILE). */
int cp_cluster_ps_server_measured(const char *path, cp_ps_server *out, cp_error *err);

#endif
