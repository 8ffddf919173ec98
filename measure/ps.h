/* ps: the parameter-server exchange of cnnperf-measure, CPU and MPI only
 * (no CUDA), so it is tested on a machine without a GPU
 * (tests/test_ps_mpi.c).
 *
 * Ranks: workers 0..W-1, then K servers W..W+K-1 (mpirun -np W+K).
 *
 * What is exchanged: the gradients live in up to three flat buffers
 * ("parts"), one per element type (fp32; fp16 or bf16 where the network
 * trains in 16 bits, cnnperf-measure keeps the gradients in the activation
 * type as train.c does, batch-norm's in fp32). Every part is split at its
 * bucket boundaries ("cuts": where backward has finished a bucket of
 * --bucket-mb, so a worker can push it while backward goes on), and every
 * bucket into K even pieces, piece s to server s, as BytePS and MXNet's
 * kvstore split large tensors: each bucket keeps all K servers and their
 * links busy, which is what the model's sharded PS assumes. (Until
 * 2026-11-26 a part was split into K contiguous shards instead, so each
 * bucket went to one server.) These are the chunks cm_ps_plan lists; a
 * chunk is one message each way.
 *
 * One round (one training iteration):
 *   worker: cm_ps_round_begin posts a receive for every chunk's parameters;
 *           cm_ps_push sends a chunk's gradients (in their own type) to its
 *           server as soon as they are on the host, in any order;
 *           cm_ps_pulled reports chunks whose parameters have arrived (fp32);
 *           cm_ps_round_end waits for its sends.
 *   server: cm_ps_serve_round receives every worker's copy of each of its
 *           chunks; when all W are in, sums them in worker order in fp32,
 *           scales by 1/W and applies SGD with momentum (torch.optim.SGD,
 *           dampening 0: v = mu v + g; w -= lr v) to its fp32 master copy,
 *           and sends the parameters back to every worker.
 * Message tags are chunk numbers on a duplicate of the world communicator.
 * Every worker receives the same bytes, so their parameters are identical.
 * Every wait polls with the cm_mpi_timeout_s deadline (mpi_util.h). */
#ifndef CM_PS_H
#define CM_PS_H

#include <stdbool.h>
#include <stddef.h>

#include "mpi_util.h"

/* Same values as kernels.h's cm_dtype (exchange.c checks). */
typedef enum { CM_PS_F32, CM_PS_F16, CM_PS_BF16, CM_PS_TYPE_COUNT } cm_ps_type;
#define CM_PS_MAX_PARTS 3

typedef struct {
    int n_parts;
    cm_ps_type type[CM_PS_MAX_PARTS];
    long long count[CM_PS_MAX_PARTS];  /* elements */
    int n_cuts[CM_PS_MAX_PARTS];
    long long *cuts[CM_PS_MAX_PARTS];  /* ascending, each in (0, count): bucket boundaries */
} cm_ps_layout;

typedef struct {
    int part;
    long long lo, hi; /* elements [lo, hi) of the part */
    int server;       /* 0..K-1 */
} cm_ps_chunk;

size_t cm_ps_type_size(cm_ps_type t);
float cm_ps_to_float(cm_ps_type t, const void *p, long long i);
/* The chunks of a layout for K servers: each bucket of each part in K
 * pieces (empty ones left out), ordered by part then offset (*out
 * malloc'd, the caller frees). Returns their number, or -1 for a bad
 * layout (cuts not ascending inside the part) or no memory. */
int cm_ps_plan(const cm_ps_layout *lay, int servers, cm_ps_chunk **out);

#ifdef CNNPERF_HAVE_MPI
typedef struct {
    MPI_Comm comm; /* a duplicate of the world communicator */
    int rank, workers, servers;
    bool server;
    cm_ps_layout lay; /* owns its cuts */
    cm_ps_chunk *chunk;
    int n_chunks;
    float lr, momentum;
    int threads; /* server: OpenMP threads for the sum and SGD (1 without OpenMP) */

    /* worker */
    MPI_Request *push, *pull; /* per chunk */
    int pulls_left;
    int *done_idx;

    /* server */
    int n_mine;
    int *mine;       /* chunk numbers this server owns */
    float **w, **v;  /* per owned chunk: fp32 parameters, momentum */
    char **in;       /* per owned chunk: W gradient copies, back to back */
    int *arrived;    /* per owned chunk, this round */
    MPI_Request *rreq, *sreq; /* n_mine x W */
    int *rdone;
} cm_ps;

/* Collective over the world: every rank calls it. Rank 0 (worker 0) passes
 * the layout, which is broadcast (other ranks pass NULL or their own, which
 * is ignored); the last `servers` ranks become servers. threads: server
 * threads (0: as many as this rank may use, shared with the other ranks of
 * its host). */
void cm_ps_setup(cm_ps *ps, MPI_Comm world, int servers, const cm_ps_layout *lay, float lr, float momentum,
                 int threads);
/* Collective: worker 0 sends each server its chunks of the initial fp32
 * parameters w[part] (count elements each); other workers pass NULL. */
void cm_ps_init_params(cm_ps *ps, float *const *w);

/* Worker. params[part]: fp32 host buffers the parameters arrive in;
 * grads[part]: host buffers in the part's type (must stay untouched until
 * cm_ps_round_end). */
void cm_ps_round_begin(cm_ps *ps, float *const *params);
void cm_ps_push(cm_ps *ps, int chunk, void *const *grads);
/* Chunks whose parameters arrived since the last call, written to ids;
 * returns how many (0 when none yet or none left: see ps->pulls_left). */
int cm_ps_pulled(cm_ps *ps, int *ids);
void cm_ps_round_end(cm_ps *ps);

/* Server: one round. Returns the seconds spent summing and updating. */
double cm_ps_serve_round(cm_ps *ps);
/* Server: its current parameters for chunk c (one it owns), NULL otherwise. */
const float *cm_ps_server_params(const cm_ps *ps, int c);

void cm_ps_free(cm_ps *ps);

/* The server's sum and SGD over n parameters of `workers` gradient copies
 * of type t on `threads` threads, on zeroed buffers: the fastest of `reps`
 * passes (after one untimed), in ns per parameter (cnnperf-psbench). */
double cm_ps_sum_sgd_ns(cm_ps_type t, int workers, long long n, int threads, int reps);
/* The same on one thread, as the server sums a chunk of fewer than
 * CP_PS_SERIAL_ELEMS parameters (comm/ps_server.h), each pass as in a job:
 * the gradient copies just written, the parameters and momentum left
 * behind by a 64 MiB write (an iteration ran since the last round); the
 * median of `reps` passes, in ns per parameter. */
double cm_ps_sum_sgd_serial_ns(cm_ps_type t, int workers, long long n, int reps);
#endif

#endif
