/* exchange: the gradient exchange of a worker rank between backward and the
 * SGD update, hooked into train.c's iteration.
 *
 *   nccl  ncclAllReduce (sum) of the gradients, bucketed: the gradients lie
 *         in one flat buffer per element type in the order backward
 *         produces them (reverse layer order, train.c), cut into buckets of
 *         --bucket-mb; with --overlap on a bucket is reduced on a second
 *         CUDA stream as soon as backward has finished its last layer (an
 *         event dependency), with --overlap off all of it after backward
 *         (one all-reduce per element type). The update waits for the
 *         exchange and applies SGD with lr/N to the summed gradient, which is
 *         torch.optim.SGD on the mean gradient with the momentum buffer held
 *         N times larger (bit for bit the same where N is a power of two).
 *   ps    the same buckets, further cut at the K server shards (ps.h), are
 *         copied to pinned host memory on a second stream as they complete
 *         and sent to their server; the servers sum, average and apply SGD
 *         with momentum in fp32; the workers copy the returned fp32
 *         parameters to the GPU (a third stream) and, when training in 16
 *         bits, refresh the 16-bit copy (the update phase). The workers'
 *         own SGD does not run.
 * Gradients are exchanged in the type train.c keeps them in: fp32 for fp32
 * and tf32 training; fp16/bf16 (batch norm fp32) for 16-bit training, where
 * the fp32 master weights and the momentum stay fp32.
 *
 * Every wait for the GPU polls the event, ncclCommGetAsyncError (nccl) and
 * the --timeout-s deadline; on an NCCL error or the deadline the NCCL
 * communicator is aborted (ncclCommAbort) and every rank with it
 * (MPI_Abort). */
#ifndef CM_EXCHANGE_H
#define CM_EXCHANGE_H

#include "mpi_util.h"
#include "train.h"

#ifdef CNNPERF_HAVE_NCCL
#include <nccl.h>
#endif

typedef enum { CM_COMM_NONE, CM_COMM_NCCL, CM_COMM_PS } cm_comm;

typedef struct {
    cm_comm comm;
    bool overlap;
    double bucket_mb; /* 10^6 bytes, as cnnperf predict --bucket-mb */
    int servers;      /* ps */
    int threads;      /* ps servers' threads (0: automatic) */
    int workers, worker_rank;
#ifdef CNNPERF_HAVE_MPI
    MPI_Comm workers_comm; /* the worker ranks (MPI_COMM_NULL without MPI) */
#endif
} cm_exchange_opts;

typedef struct cm_exchange cm_exchange;

const char *cm_comm_name(cm_comm c);

/* After cm_net_build; collective over the workers (nccl) or the world (ps).
 * Sets n->ex. */
cm_exchange *cm_exchange_create(cm_net *n, const cm_exchange_opts *o);
/* Off: iterations without exchange (and, under a PS, without update), for
 * the compute-only time; the SGD's learning rate is then 0, so the
 * parameters stay as the exchange left them. */
void cm_exchange_set_active(cm_exchange *x, bool on);
void cm_exchange_destroy(cm_exchange *x);

/* What was exchanged: messages or all-reduce calls per iteration, bytes. */
int cm_exchange_buckets(const cm_exchange *x);
double cm_exchange_bytes(const cm_exchange *x);
/* The last iteration's exchange time (after cm_collect): NCCL all-reduce
 * kernels summed; PS from the first gradient bucket complete on the GPU to
 * the last parameters back on it (push, aggregate, pull). 0 when off. */
double cm_exchange_ms(cm_exchange *x);

/* --- called by train.c ---------------------------------------------------- */
void cm_exchange_iteration_begin(cm_exchange *x);
void cm_exchange_layer_done(cm_exchange *x, int layer);
void cm_exchange_backward_done(cm_exchange *x);
/* The update phase under a PS: true when it replaces the workers' SGD. */
bool cm_exchange_update(cm_exchange *x);
/* Waits for ev, polling NCCL's asynchronous errors and the deadline. */
void cm_exchange_wait(cm_exchange *x, cudaEvent_t ev);

#ifdef CNNPERF_HAVE_NCCL
void cm_nccl_fail(ncclResult_t r, const char *call, const char *file, int line) __attribute__((noreturn));
#define ncclCheck(x)                                                                                                   \
    do {                                                                                                               \
        ncclResult_t cm_n_ = (x);                                                                                      \
        if (cm_n_ != ncclSuccess)                                                                                      \
            cm_nccl_fail(cm_n_, #x, __FILE__, __LINE__);                                                               \
    } while (0)
#endif

#endif
