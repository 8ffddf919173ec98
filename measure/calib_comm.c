#include "calib_comm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(CNNPERF_HAVE_NCCL) && defined(CNNPERF_HAVE_MPI)

enum { MARKS = 4 }; /* progress marks per batch of all-reduces */

/* The operations a sweep times, nccl-tests style: one harness for both. */
typedef enum {
    OP_ALLREDUCE, /* ncclAllReduce, float sum */
    OP_SENDRECV,  /* ncclSend to rank+1 and ncclRecv from rank-1 at once (a ring of exchanges) */
    OP_ALLGATHER, /* ncclAllGather: count floats from every rank */
    OP_REDUCESCATTER, /* ncclReduceScatter, float sum: count floats to every rank */
} nccl_op;

static const char *const op_names[] = {"all-reduce", "send/receive", "all-gather", "reduce-scatter"};

static void enqueue(nccl_op op, ncclComm_t comm, const float *send, float *dst, size_t count, cudaStream_t st)
{
    if (op == OP_ALLREDUCE) {
        ncclCheck(ncclAllReduce(send, dst, count, ncclFloat, ncclSum, comm, st));
        return;
    }
    if (op == OP_ALLGATHER) {
        ncclCheck(ncclAllGather(send, dst, count, ncclFloat, comm, st));
        return;
    }
    if (op == OP_REDUCESCATTER) {
        ncclCheck(ncclReduceScatter(send, dst, count, ncclFloat, ncclSum, comm, st));
        return;
    }
    ncclCheck(ncclGroupStart());
    ncclCheck(ncclSend(send, count, ncclFloat, (cal_rank + 1) % cal_ranks, comm, st));
    ncclCheck(ncclRecv(dst, count, ncclFloat, (cal_rank + cal_ranks - 1) % cal_ranks, comm, st));
    ncclCheck(ncclGroupEnd());
}

/* Waits for events ev[0..n-1] in turn like cudaEventSynchronize, polling
 * NCCL's asynchronous error; when none completes for timeout_s, the job
 * ends (cal_die aborts the communicator) instead of every rank hanging. */
static void wait_events(ncclComm_t comm, cudaEvent_t *ev, int n, const char *what, size_t count, double timeout_s)
{
    double last = cal_now_s();
    for (int done = 0; done < n;) {
        cudaError_t e = cudaEventQuery(ev[done]);
        if (e == cudaSuccess) {
            done++;
            last = cal_now_s();
            continue;
        }
        if (e != cudaErrorNotReady)
            cudaCheck(e);
        ncclResult_t async = ncclSuccess;
        ncclCheck(ncclCommGetAsyncError(comm, &async));
        if (async != ncclSuccess && async != ncclInProgress)
            cal_nccl_fail(async, "ncclCommGetAsyncError (asynchronous NCCL error)", __FILE__, __LINE__);
        if (cal_now_s() - last > timeout_s)
            cal_die("at '%s': no NCCL %s of %zu floats finished for %.0f s (a rank died or hangs?); "
                    "aborting the communicator and the job",
                    cal_where, what, count, timeout_s);
    }
}

/* Enqueues `ops` operations of count floats and waits for them like
 * cudaStreamSynchronize, but with NCCL's asynchronous error polled and an
 * event recorded after every quarter of the batch: when none of them
 * completes for timeout_s, the communicator is aborted and the job ends
 * (cal_die) instead of every rank hanging. Four events among the operations
 * cost next to nothing, so the batch can be timed as a whole. */
static void run_ops(cal_gpu *g, nccl_op op, ncclComm_t comm, const float *send, float *dst, size_t count, int ops,
                    cudaEvent_t ev[MARKS + 1], double timeout_s)
{
    int every = (ops + MARKS - 1) / MARKS, marks = 0;
    for (int i = 0; i < ops; i++) {
        enqueue(op, comm, send, dst, count, g->stream);
        if ((i + 1) % every == 0 || i == ops - 1)
            cudaCheck(cudaEventRecord(ev[marks++], g->stream));
    }
    wait_events(comm, ev, marks, op_names[op], count, timeout_s);
}

/* One sweep point: warm-up, a barrier, `iters` operations back to back
 * timed on the host; the mean over the ranks of elapsed / iters, in us. */
static double time_ops(cal_gpu *g, nccl_op op, ncclComm_t comm, const float *send, float *dst, size_t count,
                       int iters, int warmup, cudaEvent_t *ev, double timeout_s)
{
    if (warmup > 0)
        run_ops(g, op, comm, send, dst, count, warmup, ev, timeout_s);
    mpiCheck(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = cal_now_s();
    run_ops(g, op, comm, send, dst, count, iters, ev, timeout_s);
    double us = (cal_now_s() - t0) * 1e6 / iters, sum = 0;
    mpiCheck(MPI_Allreduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    return sum / cal_ranks;
}

/* A communicator over all ranks (cal_nccl_comm, aborted on a fatal error);
 * version: NCCL's, as text. */
static ncclComm_t open_comm(char *version, size_t n)
{
    cal_where = "NCCL set-up";
    int v = 0;
    ncclCheck(ncclGetVersion(&v));
    if (v >= 20900)
        snprintf(version, n, "%d.%d.%d", v / 10000, v % 10000 / 100, v % 100);
    else
        snprintf(version, n, "%d.%d.%d", v / 1000, v % 1000 / 100, v % 100);
    ncclUniqueId id;
    if (cal_rank == 0)
        ncclCheck(ncclGetUniqueId(&id));
    mpiCheck(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD));
    ncclComm_t comm;
    ncclCheck(ncclCommInitRank(&comm, cal_ranks, id, cal_rank));
    cal_nccl_comm = comm;
    return comm;
}

static void close_comm(ncclComm_t comm)
{
    cal_where = "NCCL tear-down";
    cal_nccl_comm = NULL;
    ncclCheck(ncclCommFinalize(comm));
    ncclCheck(ncclCommDestroy(comm));
}

/* Every rank contributes rank+1: every element must come back n(n+1)/2. */
static void check_sum(cal_gpu *g, ncclComm_t comm, float *send, float *recv, cudaEvent_t *ev, double timeout_s)
{
    enum { N = 4096 };
    float *h = cal_xcalloc(N, sizeof *h);
    for (int i = 0; i < N; i++)
        h[i] = (float)(cal_rank + 1);
    cudaCheck(cudaMemcpyAsync(send, h, N * sizeof *h, cudaMemcpyHostToDevice, g->stream));
    run_ops(g, OP_ALLREDUCE, comm, send, recv, N, 1, ev, timeout_s);
    cudaCheck(cudaMemcpyAsync(h, recv, N * sizeof *h, cudaMemcpyDeviceToHost, g->stream));
    cudaCheck(cudaStreamSynchronize(g->stream));
    float want = (float)cal_ranks * (cal_ranks + 1) / 2;
    for (int i = 0; i < N; i++)
        if (h[i] != want)
            cal_die("NCCL all-reduce check: element %d is %g, expected %g", i, h[i], want);
    free(h);
}

/* One sweep of `op` over sizes[0..ns-1] bytes, `parts` floats per byte
 * count's share (all-gather and reduce-scatter pass count = S / n per rank;
 * the bytes recorded are what was moved in all, count x n x 4). */
static void sweep_op(cal_gpu *g, nccl_op op, ncclComm_t comm, float *send, float *recv, const double *sizes, int ns,
                     int parts, int iters, int warmup, cudaEvent_t *ev, double timeout_s, cal_sweep *out)
{
    static char where[96]; /* cal_where may be read after we return */
    for (int i = 0; i < ns; i++) {
        size_t count = (size_t)(sizes[i] / 4 / parts);
        if (count < 1)
            count = 1;
        snprintf(where, sizeof where, "NCCL %s %.0f bytes", op_names[op], sizes[i]);
        cal_where = where;
        double us = time_ops(g, op, comm, send, recv, count, iters, warmup, ev, timeout_s);
        cal_sweep_add(out, (double)count * 4 * parts, us);
    }
}

void cal_run_nccl(cal_gpu *g, double min_bytes, double max_bytes, double step, int iters, int warmup, double timeout_s,
                  cal_nccl *r)
{
    memset(r, 0, sizeof *r);
    ncclComm_t comm = open_comm(r->version, sizeof r->version);

    float *send, *recv;
    cudaCheck(cudaMalloc((void **)&send, (size_t)max_bytes));
    cudaCheck(cudaMalloc((void **)&recv, (size_t)max_bytes));
    cudaEvent_t ev[MARKS + 1];
    for (int i = 0; i <= MARKS; i++)
        cudaCheck(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));
    cal_where = "NCCL all-reduce check";
    check_sum(g, comm, send, recv, ev, timeout_s);
    cal_fill_random(g, send, (long long)(max_bytes / 4), 100u + (unsigned)cal_rank);
    cal_fill_random(g, recv, (long long)(max_bytes / 4), 200u + (unsigned)cal_rank);

    double n = cal_ranks, factor = 2.0 * (n - 1) / n;
    static const char timing[] = "nccl-tests all_reduce_perf method: MPI barrier, then `iters` ncclAllReduce (float, "
                                 "sum) back to back, host wall clock until the stream is done, / iters; mean over "
                                 "the ranks";
    static const char timing_sr[] = "nccl-tests sendrecv_perf method: MPI barrier, then `iters` times every rank "
                                    "ncclSend to rank+1 and ncclRecv from rank-1 in one group (float), back to back, "
                                    "host wall clock until the stream is done, / iters; mean over the ranks; each "
                                    "GPU sends and receives S at once";
    cal_sweep_init(&r->oop, "out-of-place", timing, factor);
    cal_sweep_init(&r->ip, "in-place", timing, factor);
    static const char timing_ag[] = "nccl-tests all_gather_perf method: MPI barrier, then `iters` ncclAllGather "
                                    "(float) back to back, host wall clock until the stream is done, / iters; mean "
                                    "over the ranks; bytes: the gathered buffer S, S/n from each rank";
    static const char timing_rs[] = "nccl-tests reduce_scatter_perf method: MPI barrier, then `iters` "
                                    "ncclReduceScatter (float, sum) back to back, host wall clock until the stream "
                                    "is done, / iters; mean over the ranks; bytes: each rank's input S, S/n to each";
    cal_sweep_init(&r->sendrecv, "send/receive", timing_sr, 1.0);
    cal_sweep_init(&r->allgather, "all-gather", timing_ag, (n - 1) / n);
    cal_sweep_init(&r->reducescatter, "reduce-scatter", timing_rs, (n - 1) / n);
    double sizes[64];
    int ns = cal_sizes(min_bytes, max_bytes, step, sizes, 64);

    cal_where = "NCCL warm-up";
    if (warmup > 0)
        run_ops(g, OP_ALLREDUCE, comm, send, recv, (size_t)(max_bytes / 4), warmup, ev, timeout_s);

    char where[96];
    for (int i = 0; i < ns; i++) {
        size_t count = (size_t)(sizes[i] / 4);
        if (count < 1)
            count = 1;
        for (int in_place = 0; in_place < 2; in_place++) {
            snprintf(where, sizeof where, "NCCL all-reduce %.0f bytes%s", sizes[i], in_place ? " in place" : "");
            cal_where = where;
            float *dst = in_place ? send : recv;
            double us = time_ops(g, OP_ALLREDUCE, comm, send, dst, count, iters, warmup, ev, timeout_s);
            cal_sweep_add(in_place ? &r->ip : &r->oop, (double)count * 4, us);
        }
    }
    /* The transport alone, without the reduction: what NCCL's kernels move
     * between GPUs (the cluster model's link bandwidth), measured apart from
     * the all-reduces that validate the model. */
    sweep_op(g, OP_SENDRECV, comm, send, recv, sizes, ns, 1, iters, warmup, ev, timeout_s, &r->sendrecv);
    /* The all-reduce's two halves as collectives of their own: a ring of n
     * GPUs each moving (n-1)/n S, without (all-gather) and with (reduce-
     * scatter) the reduction; how a ring's link changes with its length. */
    sweep_op(g, OP_ALLGATHER, comm, send, recv, sizes, ns, cal_ranks, iters, warmup, ev, timeout_s, &r->allgather);
    sweep_op(g, OP_REDUCESCATTER, comm, send, recv, sizes, ns, cal_ranks, iters, warmup, ev, timeout_s,
             &r->reducescatter);
    r->oop_fit = cal_fit_sweep(&r->oop);
    r->ip_fit = cal_fit_sweep(&r->ip);
    r->sendrecv_fit = cal_fit_sweep(&r->sendrecv);
    r->allgather_fit = cal_fit_sweep(&r->allgather);
    r->reducescatter_fit = cal_fit_sweep(&r->reducescatter);
    r->ranks = cal_ranks;
    r->iters = iters;
    r->warmup = warmup;
    r->done = 1;

    close_comm(comm);
    for (int i = 0; i <= MARKS; i++)
        cudaCheck(cudaEventDestroy(ev[i]));
    cudaCheck(cudaFree(send));
    cudaCheck(cudaFree(recv));
    for (int i = 0; i < r->ip.n; i++)
        if (cal_rank == 0 && r->ip.p[i].bytes == 268435456.0)
            cal_say("NCCL %s all-reduce of 256 MiB over %d ranks: busbw %.1f GB/s in place, %.1f out of place; "
                    "send/receive %.1f GB/s; all-gather %.1f, reduce-scatter %.1f",
                    r->version, cal_ranks, r->ip.p[i].busbw_gbs, r->oop.p[i].busbw_gbs,
                    i < r->sendrecv.n ? r->sendrecv.p[i].busbw_gbs : 0.0,
                    i < r->allgather.n ? r->allgather.p[i].busbw_gbs : 0.0,
                    i < r->reducescatter.n ? r->reducescatter.p[i].busbw_gbs : 0.0);
}

/* --- co-execution: all-reduces beside compute ------------------------------------------- */

typedef struct {
    cal_gpu *g;
    int kind;              /* CAL_OVERLAP_GEMM, _COPY or _GEMM16 */
    float *a, *b, *c;      /* the work's buffers (FP16 values for _GEMM16) */
    int gemm, gemm16;      /* GEMM sizes, FP32 and FP16 */
    long long copy;        /* copy length, floats */
    cudaStream_t work;     /* the work's stream; the all-reduces run on g->stream */
    ncclComm_t comm;
    float *buf;            /* all-reduced in place */
    size_t count;
    cudaEvent_t ev[4];
    double timeout_s;
} co_bench;

static void work_round(co_bench *b)
{
    if (b->kind == CAL_OVERLAP_GEMM)
        cal_enqueue_gemm_fp32(b->g, b->work, b->a, b->b, b->c, b->gemm);
    else if (b->kind == CAL_OVERLAP_GEMM16)
        cal_enqueue_gemm_fp16(b->g, b->work, b->a, b->b, b->c, b->gemm16);
    else
        cal_enqueue_copy(b->g, b->work, b->a, b->b, b->copy);
}

static void allreduce(co_bench *b)
{
    ncclCheck(ncclAllReduce(b->buf, b->buf, b->count, ncclFloat, ncclSum, b->comm, b->g->stream));
}

/* `n` units of one side (work rounds on the work stream, or all-reduces on
 * the GPU's stream) timed with CUDA events; with `beside` > 0, that many
 * units of the other side are enqueued first and the timed ones start after
 * the first of them is done, so they run beside all of it. Returns ms per
 * timed unit. */
static double time_beside(co_bench *b, int timed_work, int n, int beside)
{
    void (*timed)(co_bench *) = timed_work ? work_round : allreduce;
    void (*other)(co_bench *) = timed_work ? allreduce : work_round;
    cudaStream_t timed_st = timed_work ? b->work : b->g->stream, other_st = timed_work ? b->g->stream : b->work;
    mpiCheck(MPI_Barrier(MPI_COMM_WORLD));
    if (beside > 0) {
        other(b);
        cudaCheck(cudaEventRecord(b->ev[2], other_st));
        for (int i = 1; i < beside; i++)
            other(b);
        cudaCheck(cudaEventRecord(b->ev[3], other_st));
        cudaCheck(cudaStreamWaitEvent(timed_st, b->ev[2], 0));
    }
    cudaCheck(cudaEventRecord(b->ev[0], timed_st));
    for (int i = 0; i < n; i++)
        timed(b);
    cudaCheck(cudaEventRecord(b->ev[1], timed_st));
    wait_events(b->comm, b->ev, 2, "all-reduce", b->count, b->timeout_s);
    if (beside > 0)
        wait_events(b->comm, b->ev + 3, 1, "all-reduce", b->count, b->timeout_s);
    float ms = 0;
    cudaCheck(cudaEventElapsedTime(&ms, b->ev[0], b->ev[1]));
    return ms / n;
}

/* `rounds` of work, ms per round; beside `ars` all-reduces when ars > 0 */
static double time_work(co_bench *b, int rounds, int ars)
{
    return time_beside(b, 1, rounds, ars);
}

/* `ars` all-reduces, us per all-reduce; beside `rounds` of work when rounds > 0 */
static double time_allreduces(co_bench *b, int ars, int rounds)
{
    return time_beside(b, 0, ars, rounds) * 1e3;
}

static double median3(double x, double y, double z)
{
    return fmax(fmin(x, y), fmin(fmax(x, y), z));
}

static double rank_mean(double v)
{
    double sum = 0;
    mpiCheck(MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    return sum / cal_ranks;
}

void cal_run_overlap(cal_gpu *g, double bytes, double timeout_s, cal_overlap *r)
{
    memset(r, 0, sizeof *r);
    char version[32];
    /* an FP16 GEMM of 8192^3 on tensor cores takes about what the FP32 one of 4096^3 does on FMA lanes */
    co_bench b = {.g = g, .gemm = 4096, .gemm16 = 8192, .copy = 1LL << 27, .timeout_s = timeout_s};
    b.comm = open_comm(version, sizeof version);
    cal_where = "co-execution set-up";
    b.count = (size_t)(bytes / 4);
    size_t gemm_floats = (size_t)b.gemm * (size_t)b.gemm, gemm16_halves = (size_t)b.gemm16 * (size_t)b.gemm16;
    if (gemm_floats < gemm16_halves / 2)
        gemm_floats = gemm16_halves / 2;
    size_t work_floats = gemm_floats > (size_t)b.copy ? gemm_floats : (size_t)b.copy;
    cudaCheck(cudaMalloc((void **)&b.buf, b.count * sizeof(float)));
    cudaCheck(cudaMalloc((void **)&b.a, work_floats * sizeof(float)));
    cudaCheck(cudaMalloc((void **)&b.b, work_floats * sizeof(float)));
    cudaCheck(cudaMalloc((void **)&b.c, gemm_floats * sizeof(float)));
    cal_fill_random(g, b.buf, (long long)b.count, 300u + (unsigned)cal_rank);
    cal_fill_random(g, b.a, (long long)work_floats, 301u);
    cal_fill_random(g, b.b, (long long)work_floats, 302u);
    cudaCheck(cudaStreamSynchronize(g->stream));
    cudaCheck(cudaStreamCreateWithFlags(&b.work, cudaStreamNonBlocking));
    for (int i = 0; i < 4; i++)
        cudaCheck(cudaEventCreate(&b.ev[i]));
    static const char *const kinds[CAL_OVERLAP_WORKS] = {
        [CAL_OVERLAP_GEMM] = "gemm_fp32", [CAL_OVERLAP_COPY] = "copy", [CAL_OVERLAP_GEMM16] = "gemm_fp16"};
    for (int k = 0; k < CAL_OVERLAP_WORKS; k++) {
        cal_overlap_work *w = &r->w[k];
        b.kind = k;
        w->kind = kinds[k];
        static char where[48]; /* cal_where may be read after we return */
        snprintf(where, sizeof where, "co-execution: %s", kinds[k]);
        cal_where = where;
        if (k == CAL_OVERLAP_GEMM16) { /* FP16 values, not FP32 bits read as FP16 (NaNs, infinities) */
            cal_fill_random_half(g, b.a, (long long)gemm16_halves, 303u);
            cal_fill_random_half(g, b.b, (long long)gemm16_halves, 304u);
            cudaCheck(cudaStreamSynchronize(g->stream));
        }
        time_work(&b, 2, 0); /* warm-up of both */
        time_allreduces(&b, 5, 0);
        double wa[3], aa[3], wb[3], ab[3];
        for (int t = 0; t < 3; t++) {
            wa[t] = time_work(&b, 10, 0);
            aa[t] = time_allreduces(&b, 50, 0);
        }
        /* every rank must enqueue as many all-reduces: the counts come from the ranks' means */
        double work_ms = rank_mean(median3(wa[0], wa[1], wa[2])), ar_us = rank_mean(median3(aa[0], aa[1], aa[2]));
        /* the other side outlasts the timed one: 3 x its time alone, so also while both slow */
        int rounds = 10, ars = 50;
        int ars_long = 2 + (int)ceil(3.0 * rounds * work_ms * 1e3 / ar_us);
        int rounds_long = 2 + (int)ceil(3.0 * ars * ar_us / (work_ms * 1e3));
        for (int t = 0; t < 3; t++) {
            wb[t] = time_work(&b, rounds, ars_long);
            ab[t] = time_allreduces(&b, ars, rounds_long);
        }
        w->work_alone_ms = work_ms;
        w->ar_alone_us = ar_us;
        w->work_beside_ms = rank_mean(median3(wb[0], wb[1], wb[2]));
        w->ar_beside_us = rank_mean(median3(ab[0], ab[1], ab[2]));
        if (cal_rank == 0)
            cal_say("co-execution, %s: work %.3f ms alone, %.3f beside all-reduces (x%.2f); all-reduce of %.0f MiB "
                    "%.1f us alone, %.1f beside the work (x%.2f)",
                    w->kind, w->work_alone_ms, w->work_beside_ms, w->work_beside_ms / w->work_alone_ms,
                    bytes / 1048576, w->ar_alone_us, w->ar_beside_us, w->ar_beside_us / w->ar_alone_us);
    }
    r->bytes = (double)b.count * 4;
    r->ranks = cal_ranks;
    r->done = 1;
    for (int i = 0; i < 4; i++)
        cudaCheck(cudaEventDestroy(b.ev[i]));
    cudaCheck(cudaStreamDestroy(b.work));
    close_comm(b.comm);
    cudaCheck(cudaFree(b.buf));
    cudaCheck(cudaFree(b.a));
    cudaCheck(cudaFree(b.b));
    cudaCheck(cudaFree(b.c));
}

#else

void cal_run_nccl(cal_gpu *g, double min_bytes, double max_bytes, double step, int iters, int warmup, double timeout_s,
                  cal_nccl *r)
{
    (void)g, (void)min_bytes, (void)max_bytes, (void)step, (void)iters, (void)warmup, (void)timeout_s;
    memset(r, 0, sizeof *r);
}

void cal_run_overlap(cal_gpu *g, double bytes, double timeout_s, cal_overlap *r)
{
    (void)g, (void)bytes, (void)timeout_s;
    memset(r, 0, sizeof *r);
}

#endif

#ifdef CNNPERF_HAVE_MPI

void cal_run_mpi(double min_bytes, double max_bytes, double step, cal_mpi *r)
{
    memset(r, 0, sizeof *r);
    if (max_bytes > 1073741824.0) /* MPI counts are int */
        max_bytes = 1073741824.0;
    cal_sweep_init(&r->sweep, "ping-pong",
                   "rank 0 <-> rank 1, host memory, MPI_Send + MPI_Recv: clamp(2^28 / size, 5, 1000) round trips "
                   "timed after 10 untimed ones (2 where fewer than 10 are timed), host wall clock on rank 0; "
                   "one-way time = round trip / 2",
                   1);
    double sizes[64];
    int ns = cal_sizes(min_bytes, max_bytes, step, sizes, 64);
    char *buf = NULL;
    if (cal_rank <= 1) {
        buf = cal_xcalloc((size_t)max_bytes, 1);
        memset(buf, cal_rank + 1, (size_t)max_bytes);
    }
    char where[96];
    for (int i = 0; i < ns; i++) {
        int bytes = (int)sizes[i];
        int iters = (int)fmin(1000, fmax(5, (double)(1 << 28) / sizes[i]));
        int warm = iters < 10 ? 2 : 10;
        snprintf(where, sizeof where, "MPI ping-pong %d bytes", bytes);
        cal_where = where;
        mpiCheck(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = 0;
        if (cal_rank == 0) {
            for (int it = 0; it < warm + iters; it++) {
                if (it == warm)
                    t0 = cal_now_s();
                mpiCheck(MPI_Send(buf, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
                mpiCheck(MPI_Recv(buf, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            }
            cal_sweep_add(&r->sweep, sizes[i], (cal_now_s() - t0) * 1e6 / (2.0 * iters));
        } else if (cal_rank == 1) {
            for (int it = 0; it < warm + iters; it++) {
                mpiCheck(MPI_Recv(buf, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                mpiCheck(MPI_Send(buf, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD));
            }
        }
    }
    mpiCheck(MPI_Barrier(MPI_COMM_WORLD));
    free(buf);
    r->fit = cal_fit_sweep(&r->sweep);
    r->warmup = 10;
    r->done = 1;
}

#else

void cal_run_mpi(double min_bytes, double max_bytes, double step, cal_mpi *r)
{
    (void)min_bytes, (void)max_bytes, (void)step;
    memset(r, 0, sizeof *r);
}

#endif
