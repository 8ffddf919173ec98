/* distributed: one data-parallel training iteration on a cluster.
 *
 * Every GPU runs the single-GPU iteration of predict.c on its share of the
 * data (--batch is per GPU); gradients are exchanged by NCCL all-reduce or a
 * parameter server (comm/). The iteration is a task tree whose loading,
 * forward and update phases take the slowest GPU group (MIMD, Eq. 5-15) and
 * whose backward phase is a DAG task: per-layer backward on the compute
 * stream, gradient buckets exchanged on the communication stream as soon as
 * the backward pass has produced them, computation slowed while
 * communication kernels hold SMs. With overlap off the exchange follows
 * backward, as in the dissertation's t_update. */
#ifndef CP_DISTRIBUTED_H
#define CP_DISTRIBUTED_H

#include "../comm/comm.h"
#include "eager.h"
#include "predict.h"

typedef enum { CP_COMM_NONE, CP_COMM_NCCL, CP_COMM_PS, CP_COMM_AUTO } cp_comm_mode;

const char *cp_comm_name(cp_comm_mode m);
int cp_comm_parse(const char *s, cp_comm_mode *m);

typedef struct {
    int gpus;          /* GPUs used: the first `gpus` of the cluster, node by node */
    int batch;         /* images per GPU */
    cp_precision prec;
    cp_comm_mode comm; /* AUTO: the faster of NCCL and PS */
    cp_ar_algo algo;   /* NCCL algorithm, CP_AR_AUTO to let the model pick */
    cp_ps_config ps;
    int overlap;       /* exchange buckets during backward */
    double bucket_mb;  /* gradient bucket size (PyTorch DDP: 25 MB) */
    cp_mode mode;      /* EAGER: every GPU's compute is the eager time line (eager.h) */
    cp_algos algos;    /* convolution algorithms: CP_ALGOS_PYTORCH in eager mode */
    /* harness mode's convolution workspace limit, MiB (0: CP_HARNESS_WORKSPACE_MB;
     * eager mode has none: PyTorch takes what memory is free) */
    double workspace_mb;
    const cp_eager_costs *eager_costs; /* NULL: each device profile's own */
} cp_dist_config;

/* One gradient bucket: the layers whose gradients it holds and how they
 * were exchanged (--explain). Layers are indices into the network, the
 * bucket holding last_layer .. first_layer (backward produces the higher
 * index first); nodes are indices into the prediction's tree. */
typedef struct {
    int first_layer, last_layer;
    double bytes;
    int after;            /* the backward node it waits for */
    int first_node, node; /* its exchange's first and last nodes (PS: push, pull; NCCL: the all-reduce) */
    cp_ar_est ar;         /* NCCL */
    cp_ps_est ps;         /* PS */
} cp_dist_bucket;

/* Single-GPU predictions by (device, batch, precision): a sweep or a
 * cluster of one GPU model predicts each only once. Zero-initialise. */
#define CP_SINGLE_CACHE 64
typedef struct {
    struct {
        char device[32];
        int batch;
        cp_precision prec;
        const cp_network *net;
        cp_prediction p;
        cp_eager eager; /* its eager time line, when eager_costs says it is valid */
        const cp_eager_costs *eager_costs;
        int eager_ok, eager_ddp, eager_local; /* the DDP world size and processes per host the time line was run with */
    } e[CP_SINGLE_CACHE];
    int n, next;
} cp_single_cache;

void cp_single_cache_free(cp_single_cache *c);

typedef struct {
    cp_dist_config cfg;
    const cp_network *net;
    const cp_cluster *cluster;
    cp_comm_mode comm; /* as resolved from AUTO */

    int n_groups;                          /* distinct GPU models in use */
    const cp_device *group_dev[CP_MAX_GROUPS];
    int group_gpus[CP_MAX_GROUPS];
    const cp_prediction *group[CP_MAX_GROUPS]; /* owned by the cache */
    const cp_eager *group_eager[CP_MAX_GROUPS]; /* eager mode: their time lines (cache's); else NULL */
    int slowest;                           /* the group that bounds every step */

    cp_system sys;
    cp_tree tree;
    int root, phase[4]; /* loading, forward, backward + exchange (DAG), update */

    double loading_ms, forward_ms, backward_ms, update_ms, iteration_ms;
    double compute_backward_ms; /* backward alone, slowest group */
    double exchange_ms;         /* the exchange's own time, as if nothing overlapped */
    double exposed_exchange_ms; /* what the exchange adds to the iteration */
    double grad_bytes;
    int buckets;
    cp_dist_bucket *bucket; /* buckets of them, in the order backward fills them */
    int bucket_cap;
    double images_per_s, scaling_efficiency;
    cp_ar_est ar; /* whole-gradient all-reduce (NCCL) */
    cp_ps_est ps; /* whole-gradient exchange (PS) */
    char dominant[256]; /* what sets the exchange time, in words */
    /* A CPU parameter server on the workers' node whose message stream is
     * the device machines' pooled one (calibration/ps-exchange.json): the
     * iteration with the slowest and the fastest call's stream, as a user's
     * host may be either (NULL and 0 otherwise). */
    const cp_ipc_pooled *ps_pool;
    double ps_range_slow_ms, ps_range_fast_ms;
} cp_dist_prediction;

/* p must be zeroed before first use; later calls reuse its buffers. */
int cp_predict_distributed(const cp_network *net, const cp_cluster *cl, const cp_dist_config *cfg,
                           cp_single_cache *cache, cp_dist_prediction *p, cp_error *err);
void cp_dist_prediction_free(cp_dist_prediction *p);
/* The GPUs one worker's NCCL buffers span (model/memory.h): the job's with
 * NCCL, 1 with a parameter server or on one GPU. */
static inline int cp_nccl_gpus(cp_comm_mode comm, int gpus) { return comm == CP_COMM_NCCL ? gpus : 1; }
static inline int cp_dist_nccl_gpus(const cp_dist_prediction *p) { return cp_nccl_gpus(p->comm, p->cfg.gpus); }

#endif
