/* ps: see ps.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "ps.h"
#include "../comm/ps_server.h"

#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

size_t cm_ps_type_size(cm_ps_type t)
{
    return t == CM_PS_F32 ? 4 : 2;
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, bits;
    float f;
    if (exp == 0) {
        f = (float)mant * (1.0f / 16777216.0f); /* subnormal (or zero): mant x 2^-24, exact */
        return sign ? -f : f;
    }
    if (exp == 31)
        bits = sign | 0x7f800000u | (mant << 13);
    else
        bits = sign | ((exp + 112u) << 23) | (mant << 13);
    memcpy(&f, &bits, sizeof f);
    return f;
}

static float bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

float cm_ps_to_float(cm_ps_type t, const void *p, long long i)
{
    switch (t) {
    case CM_PS_F32:
        return ((const float *)p)[i];
    case CM_PS_F16:
        return half_to_float(((const uint16_t *)p)[i]);
    default:
        return bf16_to_float(((const uint16_t *)p)[i]);
    }
}

/* Piece s of K of `count` elements: [*lo, *hi). */
static void shard(long long count, int servers, int s, long long *lo, long long *hi)
{
    *lo = count * s / servers;
    *hi = count * (s + 1) / servers;
}

int cm_ps_plan(const cm_ps_layout *lay, int servers, cm_ps_chunk **out)
{
    *out = NULL;
    if (servers < 1 || lay->n_parts < 0 || lay->n_parts > CM_PS_MAX_PARTS)
        return -1;
    long long cap = 0;
    for (int p = 0; p < lay->n_parts; p++) {
        if (lay->count[p] < 0 || lay->n_cuts[p] < 0)
            return -1;
        for (int k = 0; k < lay->n_cuts[p]; k++)
            if (lay->cuts[p][k] <= 0 || lay->cuts[p][k] >= lay->count[p] ||
                (k > 0 && lay->cuts[p][k] <= lay->cuts[p][k - 1]))
                return -1;
        cap += (long long)(lay->n_cuts[p] + 1) * servers;
    }
    if (cap > INT_MAX)
        return -1;
    cm_ps_chunk *c = calloc((size_t)(cap ? cap : 1), sizeof *c);
    if (!c)
        return -1;
    int n = 0;
    for (int p = 0; p < lay->n_parts; p++) {
        /* bucket by bucket: [lo, hi) between two cuts, split over the servers */
        for (int k = 0; k <= lay->n_cuts[p] && lay->count[p] > 0; k++) {
            long long lo = k ? lay->cuts[p][k - 1] : 0, hi = k < lay->n_cuts[p] ? lay->cuts[p][k] : lay->count[p];
            for (int s = 0; s < servers; s++) {
                long long a, b;
                shard(hi - lo, servers, s, &a, &b);
                if (b > a)
                    c[n++] = (cm_ps_chunk){p, lo + a, lo + b, s};
            }
        }
    }
    *out = c;
    return n;
}

#ifdef CNNPERF_HAVE_MPI

static MPI_Datatype mpi_type(cm_ps_type t)
{
    return t == CM_PS_F32 ? MPI_FLOAT : MPI_UINT16_T;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "%s: %sout of host memory for the parameter server (%zu x %zu bytes)\n", cm_mpi_prog,
                cm_mpi_who(), n, size);
        cm_mpi_abort(1);
    }
    return p;
}

static void fatal(const char *msg)
{
    fprintf(stderr, "%s: %sparameter server: %s\n", cm_mpi_prog, cm_mpi_who(), msg);
    cm_mpi_abort(1);
}

static int chunk_len(const cm_ps *ps, int c)
{
    return (int)(ps->chunk[c].hi - ps->chunk[c].lo);
}

/* Cores this rank may use (its affinity mask), shared among the servers of
 * its host after one core for each worker there. */
static int default_threads(cm_ps *ps)
{
    int cores = 1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cores = CPU_COUNT(&set);
    MPI_Comm node;
    mpiCheck(MPI_Comm_split_type(ps->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int here = 0, servers_here = 0, me = ps->server ? 1 : 0;
    mpiCheck(MPI_Comm_size(node, &here));
    mpiCheck(MPI_Allreduce(&me, &servers_here, 1, MPI_INT, MPI_SUM, node));
    mpiCheck(MPI_Comm_free(&node));
    if (!ps->server)
        return 1;
    int free_cores = cores - (here - servers_here);
    int t = free_cores / (servers_here > 0 ? servers_here : 1);
    return t < 1 ? 1 : t;
}

void cm_ps_setup(cm_ps *ps, MPI_Comm world, int servers, const cm_ps_layout *lay, float lr, float momentum,
                 int threads)
{
    memset(ps, 0, sizeof *ps);
    mpiCheck(MPI_Comm_dup(world, &ps->comm));
    mpiCheck(MPI_Comm_set_errhandler(ps->comm, MPI_ERRORS_RETURN));
    int size = 0;
    mpiCheck(MPI_Comm_rank(ps->comm, &ps->rank));
    mpiCheck(MPI_Comm_size(ps->comm, &size));
    if (servers < 1 || servers >= size)
        fatal("needs at least one server and one worker rank");
    ps->servers = servers;
    ps->workers = size - servers;
    ps->server = ps->rank >= ps->workers;

    /* The layout and the SGD settings of rank 0 (worker 0). */
    long long head[2 + 3 * CM_PS_MAX_PARTS] = {0};
    float sgd[2] = {lr, momentum};
    if (ps->rank == 0) {
        if (!lay || lay->n_parts < 0 || lay->n_parts > CM_PS_MAX_PARTS)
            fatal("internal: no layout on rank 0");
        head[0] = lay->n_parts;
        for (int p = 0; p < lay->n_parts; p++) {
            head[1 + 3 * p] = lay->type[p];
            head[2 + 3 * p] = lay->count[p];
            head[3 + 3 * p] = lay->n_cuts[p];
            head[1 + 3 * CM_PS_MAX_PARTS] += lay->n_cuts[p];
        }
    }
    mpiCheck(MPI_Bcast(head, 2 + 3 * CM_PS_MAX_PARTS, MPI_LONG_LONG, 0, ps->comm));
    mpiCheck(MPI_Bcast(sgd, 2, MPI_FLOAT, 0, ps->comm));
    ps->lr = sgd[0];
    ps->momentum = sgd[1];
    long long total_cuts = head[1 + 3 * CM_PS_MAX_PARTS];
    if (head[0] < 0 || head[0] > CM_PS_MAX_PARTS || total_cuts < 0 || total_cuts > INT_MAX)
        fatal("internal: bad layout");
    long long *cuts = xcalloc((size_t)total_cuts, sizeof *cuts);
    if (ps->rank == 0)
        for (int p = 0, k = 0; p < lay->n_parts; k += lay->n_cuts[p], p++)
            if (lay->n_cuts[p] > 0)
                memcpy(cuts + k, lay->cuts[p], (size_t)lay->n_cuts[p] * sizeof *cuts);
    if (total_cuts)
        mpiCheck(MPI_Bcast(cuts, (int)total_cuts, MPI_LONG_LONG, 0, ps->comm));
    ps->lay.n_parts = (int)head[0];
    for (int p = 0, k = 0; p < ps->lay.n_parts; p++) {
        ps->lay.type[p] = (cm_ps_type)head[1 + 3 * p];
        ps->lay.count[p] = head[2 + 3 * p];
        ps->lay.n_cuts[p] = (int)head[3 + 3 * p];
        ps->lay.cuts[p] = xcalloc((size_t)ps->lay.n_cuts[p], sizeof(long long));
        memcpy(ps->lay.cuts[p], cuts + k, (size_t)ps->lay.n_cuts[p] * sizeof(long long));
        k += ps->lay.n_cuts[p];
    }
    free(cuts);

    ps->n_chunks = cm_ps_plan(&ps->lay, servers, &ps->chunk);
    if (ps->n_chunks < 0)
        fatal("bad layout (bucket boundaries must ascend inside each part)");
    void *attr = NULL;
    int has_ub = 0;
    mpiCheck(MPI_Comm_get_attr(ps->comm, MPI_TAG_UB, &attr, &has_ub));
    if (has_ub && ps->n_chunks > *(int *)attr)
        fatal("more chunks than MPI message tags: use a larger --bucket-mb");
    for (int c = 0; c < ps->n_chunks; c++)
        if (ps->chunk[c].hi - ps->chunk[c].lo > INT_MAX)
            fatal("a shard of more than 2^31 elements: use more --ps-servers or a smaller --bucket-mb");

    ps->threads = threads > 0 ? threads : default_threads(ps);
    if (!ps->server) {
        ps->push = xcalloc((size_t)ps->n_chunks, sizeof *ps->push);
        ps->pull = xcalloc((size_t)ps->n_chunks, sizeof *ps->pull);
        ps->done_idx = xcalloc((size_t)ps->n_chunks, sizeof *ps->done_idx);
        for (int c = 0; c < ps->n_chunks; c++)
            ps->push[c] = ps->pull[c] = MPI_REQUEST_NULL;
        return;
    }
    int me = ps->rank - ps->workers, W = ps->workers;
    ps->mine = xcalloc((size_t)ps->n_chunks, sizeof *ps->mine);
    for (int c = 0; c < ps->n_chunks; c++)
        if (ps->chunk[c].server == me)
            ps->mine[ps->n_mine++] = c;
    int m = ps->n_mine;
    ps->w = xcalloc((size_t)m, sizeof *ps->w);
    ps->v = xcalloc((size_t)m, sizeof *ps->v);
    ps->in = xcalloc((size_t)m, sizeof *ps->in);
    ps->arrived = xcalloc((size_t)m, sizeof *ps->arrived);
    ps->rreq = xcalloc((size_t)m * W, sizeof *ps->rreq);
    ps->sreq = xcalloc((size_t)m * W, sizeof *ps->sreq);
    ps->rdone = xcalloc((size_t)m * W, sizeof *ps->rdone);
    for (int k = 0; k < m; k++) {
        int c = ps->mine[k];
        size_t n = (size_t)chunk_len(ps, c), e = cm_ps_type_size(ps->lay.type[ps->chunk[c].part]);
        ps->w[k] = xcalloc(n, sizeof(float));
        ps->v[k] = xcalloc(n, sizeof(float));
        ps->in[k] = xcalloc(n * W, e);
    }
    for (int k = 0; k < m * W; k++)
        ps->rreq[k] = ps->sreq[k] = MPI_REQUEST_NULL;
}

void cm_ps_init_params(cm_ps *ps, float *const *w)
{
    int n = ps->server ? ps->n_mine : ps->rank == 0 ? ps->n_chunks : 0;
    MPI_Request *req = xcalloc((size_t)n, sizeof *req);
    for (int k = 0; k < n; k++) {
        if (ps->server) {
            int c = ps->mine[k];
            mpiCheck(MPI_Irecv(ps->w[k], chunk_len(ps, c), MPI_FLOAT, 0, c, ps->comm, &req[k]));
        } else {
            const cm_ps_chunk *c = &ps->chunk[k];
            mpiCheck(MPI_Isend(w[c->part] + c->lo, chunk_len(ps, k), MPI_FLOAT, ps->workers + c->server, k, ps->comm,
                               &req[k]));
        }
    }
    cm_mpi_waitall(n, req, ps->server ? "the initial parameters from worker 0" : "servers to take the parameters");
    free(req);
}

void cm_ps_round_begin(cm_ps *ps, float *const *params)
{
    for (int c = 0; c < ps->n_chunks; c++) {
        const cm_ps_chunk *k = &ps->chunk[c];
        mpiCheck(MPI_Irecv(params[k->part] + k->lo, chunk_len(ps, c), MPI_FLOAT, ps->workers + k->server, c, ps->comm,
                           &ps->pull[c]));
    }
    ps->pulls_left = ps->n_chunks;
}

void cm_ps_push(cm_ps *ps, int c, void *const *grads)
{
    const cm_ps_chunk *k = &ps->chunk[c];
    cm_ps_type t = ps->lay.type[k->part];
    char *src = (char *)grads[k->part] + (size_t)k->lo * cm_ps_type_size(t);
    mpiCheck(MPI_Isend(src, chunk_len(ps, c), mpi_type(t), ps->workers + k->server, c, ps->comm, &ps->push[c]));
}

int cm_ps_pulled(cm_ps *ps, int *ids)
{
    if (ps->pulls_left == 0)
        return 0;
    int out = 0;
    mpiCheck(MPI_Testsome(ps->n_chunks, ps->pull, &out, ps->done_idx, MPI_STATUSES_IGNORE));
    if (out == MPI_UNDEFINED || out <= 0)
        return 0;
    memcpy(ids, ps->done_idx, (size_t)out * sizeof *ids);
    ps->pulls_left -= out;
    return out;
}

void cm_ps_round_end(cm_ps *ps)
{
    cm_mpi_waitall(ps->n_chunks, ps->push, "the gradients to reach the servers");
}

/* Sum of W copies of n gradients of type t (`stride` bytes apart) in worker
 * order, mean, SGD with momentum on the fp32 w and v, on nt threads. */
static void sum_sgd(cm_ps_type t, const char *in, size_t stride, int W, long long n, float *w, float *v, float lr,
                    float mu, int nt)
{
    const float inv = 1.0f / (float)W;
    (void)nt;
    /* Dynamic blocks of 32 Ki elements, not a static share per thread: the
     * server runs beside the workers' busy processes, and a thread the OS
     * parks would hold the whole pass at the loop's end (four workers' server
     * on 60 of 64 cores: 0.48-0.92 ns per parameter with static shares,
     * 0.25 on 32 threads; validation/psthreads4-h100x4/). */
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 32768)
#endif
    for (long long i = 0; i < n; i++) {
        float s = 0.0f;
        if (t == CM_PS_F32)
            for (int j = 0; j < W; j++)
                s += ((const float *)(in + j * stride))[i];
        else if (t == CM_PS_F16)
            for (int j = 0; j < W; j++)
                s += half_to_float(((const uint16_t *)(in + j * stride))[i]);
        else
            for (int j = 0; j < W; j++)
                s += bf16_to_float(((const uint16_t *)(in + j * stride))[i]);
        float g = s * inv;
        float vi = mu * v[i] + g;
        v[i] = vi;
        w[i] = w[i] - lr * vi;
    }
}

static void aggregate(cm_ps *ps, int k)
{
    int c = ps->mine[k];
    long long n = chunk_len(ps, c);
    cm_ps_type t = ps->lay.type[ps->chunk[c].part];
    sum_sgd(t, ps->in[k], (size_t)n * cm_ps_type_size(t), ps->workers, n, ps->w[k], ps->v[k], ps->lr, ps->momentum,
            cp_ps_server_one_thread((double)n) ? 1 : ps->threads);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define JOB_EVICT_BYTES (64u << 20)

/* `reps` timed passes (ns per parameter, sorted) of the sum and SGD over n
 * parameters of `workers` copies. Back to back after one untimed pass that
 * touches the pages, or (as_in_a_job) each after a 64 MiB write, as a job's
 * iteration runs between rounds, and a fresh write of the copies, as MPI
 * just received them. */
static double *timed_passes(cm_ps_type t, int workers, long long n, int threads, int reps, bool as_in_a_job)
{
    size_t stride = (size_t)n * cm_ps_type_size(t);
    char *in = xcalloc((size_t)workers, stride), *evict = as_in_a_job ? xcalloc(1, JOB_EVICT_BYTES) : NULL;
    float *w = xcalloc((size_t)n, sizeof *w), *v = xcalloc((size_t)n, sizeof *v);
    double *ns = xcalloc((size_t)reps, sizeof *ns);
    for (int r = as_in_a_job ? 0 : -1; r < reps; r++) {
        if (as_in_a_job) {
            memset(evict, r + 1, JOB_EVICT_BYTES);
            memset(in, 0, (size_t)workers * stride);
        }
        double t0 = cm_mpi_now();
        sum_sgd(t, in, stride, workers, n, w, v, 0.01f, 0.9f, threads);
        if (r >= 0)
            ns[r] = (cm_mpi_now() - t0) * 1e9 / (double)n;
    }
    qsort(ns, (size_t)reps, sizeof *ns, by_value);
    free(in);
    free(evict);
    free(w);
    free(v);
    return ns;
}

double cm_ps_sum_sgd_ns(cm_ps_type t, int workers, long long n, int threads, int reps)
{
    double *ns = timed_passes(t, workers, n, threads, reps, false), best = ns[0];
    free(ns);
    return best;
}

double cm_ps_sum_sgd_serial_ns(cm_ps_type t, int workers, long long n, int reps)
{
    double *ns = timed_passes(t, workers, n, 1, reps, true), median = ns[reps / 2];
    free(ns);
    return median;
}

double cm_ps_serve_round(cm_ps *ps)
{
    int W = ps->workers, m = ps->n_mine;
    for (int k = 0; k < m; k++) {
        int c = ps->mine[k];
        cm_ps_type t = ps->lay.type[ps->chunk[c].part];
        size_t stride = (size_t)chunk_len(ps, c) * cm_ps_type_size(t);
        for (int j = 0; j < W; j++)
            mpiCheck(MPI_Irecv(ps->in[k] + j * stride, chunk_len(ps, c), mpi_type(t), j, c, ps->comm,
                               &ps->rreq[k * W + j]));
        ps->arrived[k] = 0;
    }
    double busy = 0, since = cm_mpi_now();
    for (int left = m; left > 0;) {
        int out = 0;
        mpiCheck(MPI_Testsome(m * W, ps->rreq, &out, ps->rdone, MPI_STATUSES_IGNORE));
        if (out == MPI_UNDEFINED)
            fatal("internal: no gradients left to wait for");
        if (out == 0) {
            cm_mpi_deadline(since, "gradients from the workers");
            sched_yield();
            continue;
        }
        since = cm_mpi_now();
        for (int r = 0; r < out; r++) {
            int k = ps->rdone[r] / W;
            if (++ps->arrived[k] < W)
                continue;
            double t0 = cm_mpi_now();
            aggregate(ps, k);
            busy += cm_mpi_now() - t0;
            int c = ps->mine[k];
            for (int j = 0; j < W; j++)
                mpiCheck(MPI_Isend(ps->w[k], chunk_len(ps, c), MPI_FLOAT, j, c, ps->comm, &ps->sreq[k * W + j]));
            left--;
        }
    }
    cm_mpi_waitall(m * W, ps->sreq, "the parameters to reach the workers");
    return busy;
}

const float *cm_ps_server_params(const cm_ps *ps, int c)
{
    for (int k = 0; ps->server && k < ps->n_mine; k++)
        if (ps->mine[k] == c)
            return ps->w[k];
    return NULL;
}

void cm_ps_free(cm_ps *ps)
{
    for (int k = 0; k < ps->n_mine; k++) {
        free(ps->w[k]);
        free(ps->v[k]);
        free(ps->in[k]);
    }
    free(ps->w);
    free(ps->v);
    free(ps->in);
    free(ps->mine);
    free(ps->arrived);
    free(ps->rreq);
    free(ps->sreq);
    free(ps->rdone);
    free(ps->push);
    free(ps->pull);
    free(ps->done_idx);
    free(ps->chunk);
    for (int p = 0; p < ps->lay.n_parts; p++)
        free(ps->lay.cuts[p]);
    if (ps->comm != MPI_COMM_NULL && ps->comm != (MPI_Comm)0)
        mpiCheck(MPI_Comm_free(&ps->comm));
    memset(ps, 0, sizeof *ps);
    ps->comm = MPI_COMM_NULL;
}
#endif
