/* calib_comm: the multi-rank sweeps of cnnperf-calibrate, one MPI rank per
 * GPU.
 *
 *  - NCCL all-reduce (float sum), out-of-place and in-place, the way
 *    nccl-tests' all_reduce_perf times it: per size a few warm-up
 *    operations, an MPI barrier, `iters` operations back to back timed on
 *    the host until the stream is done; time = elapsed / iters, averaged
 *    over the ranks (nccl-tests' default -a 1); algbw = S / time, busbw =
 *    algbw x 2(n-1)/n. While waiting, NCCL's asynchronous errors are polled,
 *    and when no all-reduce of a batch finishes for the time-out (events
 *    after every quarter of the batch tell), the communicator is aborted
 *    and the job ends.
 *  - NCCL send/receive (nccl-tests' sendrecv_perf): every rank sends S to
 *    the next and receives S from the previous one in one group, timed the
 *    same way; algbw = busbw = S / time. That is the transport alone, what
 *    NCCL's kernels move over a link, apart from the all-reduces the model
 *    is validated against.
 *  - NCCL all-gather and reduce-scatter (all_gather_perf, reduce_scatter_
 *    perf): the all-reduce's two halves, each a ring in which every GPU
 *    moves (n-1)/n of the buffer S; busbw = S / time x (n-1)/n. They tell
 *    how a ring's link behaves as the ring grows, apart from the all-reduce.
 *  - MPI ping-pong between ranks 0 and 1 (host memory, MPI_Send/MPI_Recv,
 *    osu_latency's method): one-way time = round trip / 2, measured on
 *    rank 0; algbw = busbw = S / time.
 *  - Co-execution (`overlap`): how an all-reduce and compute slow each other
 *    when they run at once, as a training step's bucketed exchange runs
 *    beside backward. Per kind of work (an FP32 GEMM, compute-bound; a
 *    streaming copy, memory-bound; an FP16 GEMM on tensor cores, the
 *    16-bit compute-bound kind), on every rank: the work alone, then
 *    beside a stream of all-reduces that outlasts it (the work's slowdown);
 *    all-reduces alone, then beside work that outlasts them (theirs). Each
 *    the median of 3 rounds, averaged over the ranks. */
#ifndef CAL_COMM_H
#define CAL_COMM_H

#include "calib_fit.h"
#include "calib_gpu.h"

typedef struct {
    int done, ranks, iters, warmup;
    char version[32];
    cal_sweep oop, ip; /* all-reduce out-of-place, in-place */
    cal_fit oop_fit, ip_fit;
    cal_sweep sendrecv; /* ncclSend/ncclRecv around a ring of ranks */
    cal_fit sendrecv_fit;
    cal_sweep allgather, reducescatter; /* the all-reduce's halves, bytes = the full buffer */
    cal_fit allgather_fit, reducescatter_fit;
} cal_nccl;

typedef struct {
    int done, warmup;
    cal_sweep sweep;
    cal_fit fit;
} cal_mpi;

enum { CAL_OVERLAP_GEMM, CAL_OVERLAP_COPY, CAL_OVERLAP_GEMM16, CAL_OVERLAP_WORKS };
typedef struct {
    const char *kind;                /* "gemm_fp32", "copy", "gemm_fp16" */
    double work_alone_ms, work_beside_ms; /* one round of work; beside all-reduces */
    double ar_alone_us, ar_beside_us;     /* one all-reduce; beside the work */
} cal_overlap_work;

typedef struct {
    int done, ranks;
    double bytes; /* per all-reduce */
    cal_overlap_work w[CAL_OVERLAP_WORKS];
} cal_overlap;

/* Both need several ranks; collective over all ranks (each rank calls them
 * with the same arguments). */
void cal_run_nccl(cal_gpu *g, double min_bytes, double max_bytes, double step, int iters, int warmup, double timeout_s,
                  cal_nccl *r);
void cal_run_mpi(double min_bytes, double max_bytes, double step, cal_mpi *r);
void cal_run_overlap(cal_gpu *g, double bytes, double timeout_s, cal_overlap *r);

#endif
