/* exchange: see exchange.h. */
#include "exchange.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ps.h" /* the plan of the buckets in every build; the server itself with MPI */

#if defined(CNNPERF_HAVE_NCCL) && defined(CNNPERF_HAVE_MPI)
#define CM_WITH_NCCL 1
#endif

const char *cm_comm_name(cm_comm c)
{
    return c == CM_COMM_NCCL ? "nccl" : c == CM_COMM_PS ? "ps" : "none";
}

/* A range of one flat gradient buffer exchanged as one piece: an NCCL
 * bucket, or a PS chunk (a bucket's share of one server). */
typedef struct {
    int type;         /* cm_dtype of the flat buffer */
    long long lo, hi; /* elements */
    int trigger;      /* the layer after whose backward it is complete; -1: after backward */
    bool fired, sent;
} piece;

struct cm_exchange {
    cm_net *net;
    cm_comm comm;
    bool overlap, active;
    int workers, rank;
    int n;
    piece *p;
    cm_ps_layout lay; /* the flat buffers (parts) and their bucket cuts, as cm_ps_plan splits them */
    double bytes;
    cudaStream_t side, pull;     /* NCCL all-reduce or PS device-to-host; PS host-to-device */
    cudaEvent_t *ready, *start, *end; /* per piece: gradients complete (main stream); exchange start/end (side) */
    cudaEvent_t done;            /* the whole exchange, on the side (NCCL) or pull (PS) stream */
    int first;                   /* the piece fired first this iteration */
    bool ran;                    /* this iteration exchanged */
#ifdef CM_WITH_NCCL
    ncclComm_t nccl;
#endif
#ifdef CNNPERF_HAVE_MPI
    cm_ps ps;
    int part_of_type[CM_DTYPE_COUNT];
    void *hg[CM_PS_MAX_PARTS]; /* pinned: gradients pushed */
    float *hw[CM_PS_MAX_PARTS]; /* pinned: parameters pulled */
    int *ids;
#endif
};

#ifdef CM_WITH_NCCL
static ncclComm_t abort_comm; /* aborted before the ranks are, on any fatal error */

/* ncclCommAbort unblocks this rank's NCCL kernels; should it hang itself,
 * SIGALRM ends the process after 5 s and the launcher ends the others. */
static void abort_nccl(void)
{
    if (!abort_comm)
        return;
    ncclComm_t c = abort_comm;
    abort_comm = NULL;
    alarm(5);
    ncclCommAbort(c); /* its result does not matter: the run is failing already */
    alarm(0);
}

static ncclDataType_t nccl_type(int t)
{
    return t == CM_F32 ? ncclFloat32 : t == CM_F16 ? ncclFloat16 : ncclBfloat16;
}
#endif

#ifdef CNNPERF_HAVE_NCCL
void cm_nccl_fail(ncclResult_t r, const char *call, const char *file, int line)
{
    const char *slash = strstr(file, "measure/");
    const char *last = ncclGetLastError(NULL);
    fprintf(stderr, "cnnperf-measure: %sat '%s': %s:%d: %s: %s (%d)%s%s\n", cm_mpi_who(), cm_where,
            slash ? slash : file, line, call, ncclGetErrorString(r), (int)r, last && *last ? ": " : "",
            last ? last : "");
#ifdef CM_WITH_NCCL
    abort_nccl();
#endif
    cm_mpi_abort(CM_EXIT_RUNTIME);
}
#endif

static void give_up(const char *what)
{
    fprintf(stderr,
            "cnnperf-measure: %sno progress in %g s waiting for %s (another rank failed or hangs; --timeout-s sets "
            "the limit): aborting all ranks\n",
            cm_mpi_who(), cm_mpi_timeout_s, what);
#ifdef CM_WITH_NCCL
    abort_nccl();
#endif
    cm_mpi_abort(CM_EXIT_RUNTIME);
}

/* The pieces: buckets of --bucket-mb in backward order per flat buffer (the
 * layout's parts and cuts), under a PS each split over the servers by ps.c's
 * cm_ps_plan, the plan the servers use, each piece with the layer that
 * completes it. */
static void plan(cm_exchange *x, const cm_exchange_opts *o)
{
    cm_net *n = x->net;
    long long *cuts[CM_DTYPE_COUNT] = {0};
    int n_cuts[CM_DTYPE_COUNT] = {0};
    double acc[CM_DTYPE_COUNT] = {0}, bucket = o->bucket_mb * 1e6;
    for (int t = 0; t < CM_DTYPE_COUNT; t++)
        cuts[t] = cm_xcalloc((size_t)n->n + 1, sizeof **cuts);
    for (int i = n->n - 1; i >= 0; i--) {
        const cm_layer *L = &n->layers[i];
        if (L->n_params == 0)
            continue;
        int t = L->ptype;
        x->bytes += (double)L->n_params * (double)cm_dtype_size(L->ptype);
        acc[t] += (double)L->n_params * (double)cm_dtype_size(L->ptype);
        long long end = L->flat_off + (L->n_params + CM_FLAT_ALIGN - 1) / CM_FLAT_ALIGN * CM_FLAT_ALIGN;
        if (x->overlap && acc[t] >= bucket) {
            if (end < n->flat[t].count)
                cuts[t][n_cuts[t]++] = end;
            acc[t] = 0;
        }
    }
    cm_ps_layout *lay = &x->lay;
    memset(lay, 0, sizeof *lay);
    for (int t = 0; t < CM_DTYPE_COUNT; t++) {
        if (!n->flat[t].count) {
            free(cuts[t]);
            continue;
        }
        int p = lay->n_parts++;
        lay->type[p] = (cm_ps_type)t;
        lay->count[p] = n->flat[t].count;
        lay->n_cuts[p] = n_cuts[t];
        lay->cuts[p] = cuts[t];
    }
    cm_ps_chunk *c = NULL;
    int nc = cm_ps_plan(lay, x->comm == CM_COMM_PS ? o->servers : 1, &c);
    if (nc < 0)
        cm_fatal("internal: no plan for the gradient buckets (cuts out of order, or out of memory)");
    x->p = cm_xcalloc((size_t)nc + 1, sizeof *x->p);
    for (int k = 0; k < nc; k++) {
        piece *q = &x->p[x->n++];
        int t = (int)lay->type[c[k].part];
        q->type = t;
        q->lo = c[k].lo;
        q->hi = c[k].hi;
        q->trigger = -1;
        if (x->overlap) /* the layer holding the last element: the last of the range backward finishes */
            for (int i = 0; i < n->n; i++) {
                const cm_layer *L = &n->layers[i];
                long long seg = (L->n_params + CM_FLAT_ALIGN - 1) / CM_FLAT_ALIGN * CM_FLAT_ALIGN;
                if (L->n_params && (int)L->ptype == t && L->flat_off <= q->hi - 1 && q->hi - 1 < L->flat_off + seg)
                    q->trigger = i;
            }
    }
    free(c);
}

#ifdef CNNPERF_HAVE_MPI
/* The servers plan the same chunks from the same layout (cm_ps_plan), in the
 * same order; checked, since pieces and chunks share their message tags. */
static void ps_setup(cm_exchange *x, const cm_exchange_opts *o)
{
    cm_net *n = x->net;
    for (int t = 0; t < CM_DTYPE_COUNT; t++)
        x->part_of_type[t] = -1;
    for (int p = 0; p < x->lay.n_parts; p++)
        x->part_of_type[x->lay.type[p]] = p;
    cm_ps_setup(&x->ps, cm_mpi.world, o->servers, &x->lay, n->lr, n->momentum, o->threads);
    if (x->ps.n_chunks != x->n)
        cm_fatal("internal: %d parameter-server chunks for %d gradient pieces", x->ps.n_chunks, x->n);
    for (int k = 0; k < x->n; k++) {
        const cm_ps_chunk *c = &x->ps.chunk[k];
        if (c->part != x->part_of_type[x->p[k].type] || c->lo != x->p[k].lo || c->hi != x->p[k].hi)
            cm_fatal("internal: parameter-server chunk %d does not match gradient piece %d", k, k);
    }
    cm_where = "pinned host buffers for the parameter server";
    for (int t = 0; t < CM_DTYPE_COUNT; t++) {
        int p = x->part_of_type[t];
        if (p < 0)
            continue;
        size_t count = (size_t)n->flat[t].count;
        cudaCheck(cudaMallocHost(&x->hg[p], count * cm_dtype_size((cm_dtype)t)));
        cudaCheck(cudaMallocHost((void **)&x->hw[p], count * sizeof(float)));
        if (o->worker_rank == 0) /* the initial parameters for the servers */
            cudaCheck(cudaMemcpy(x->hw[p], n->flat[t].w32, count * sizeof(float), cudaMemcpyDeviceToHost));
    }
    x->ids = cm_xcalloc((size_t)x->n + 1, sizeof *x->ids);
    cm_where = "parameter server: initial parameters";
    cm_ps_init_params(&x->ps, o->worker_rank == 0 ? x->hw : NULL);
}
#endif

cm_exchange *cm_exchange_create(cm_net *n, const cm_exchange_opts *o)
{
    cm_exchange *x = cm_xcalloc(1, sizeof *x);
    x->net = n;
    x->comm = o->comm;
    x->overlap = o->overlap;
    x->workers = o->workers;
    x->rank = o->worker_rank;
    x->active = true;
    n->ex = x;
    cm_where = "gradient exchange set-up";
    plan(x, o);
    cudaCheck(cudaStreamCreateWithFlags(&x->side, cudaStreamNonBlocking));
    cudaCheck(cudaStreamCreateWithFlags(&x->pull, cudaStreamNonBlocking));
    x->ready = cm_xcalloc((size_t)x->n + 1, sizeof *x->ready);
    x->start = cm_xcalloc((size_t)x->n + 1, sizeof *x->start);
    x->end = cm_xcalloc((size_t)x->n + 1, sizeof *x->end);
    for (int k = 0; k < x->n; k++) {
        cudaCheck(cudaEventCreate(&x->ready[k]));
        cudaCheck(cudaEventCreate(&x->start[k]));
        cudaCheck(cudaEventCreate(&x->end[k]));
    }
    cudaCheck(cudaEventCreate(&x->done));

    if (x->comm == CM_COMM_NCCL) {
#ifdef CM_WITH_NCCL
        cm_where = "NCCL communicator";
        ncclUniqueId id;
        memset(&id, 0, sizeof id);
        if (o->worker_rank == 0)
            ncclCheck(ncclGetUniqueId(&id));
        if (o->workers > 1)
            mpiCheck(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, o->workers_comm));
        ncclCheck(ncclCommInitRank(&x->nccl, o->workers, id, o->worker_rank));
        abort_comm = x->nccl;
        n->lr_scale = 1.0f / (float)o->workers; /* SGD on the mean of the summed gradients */
#else
        cm_fatal("--comm nccl: cnnperf-measure was built without NCCL or MPI");
#endif
    } else if (x->comm == CM_COMM_PS) {
#ifdef CNNPERF_HAVE_MPI
        ps_setup(x, o);
#else
        cm_fatal("--comm ps: cnnperf-measure was built without MPI");
#endif
    }
    cm_where = "gradient exchange set-up";
    cudaCheck(cudaDeviceSynchronize());
    return x;
}

void cm_exchange_set_active(cm_exchange *x, bool on)
{
    x->active = on;
    if (!on)
        x->net->lr_scale = 0.0f; /* same kernels, parameters unchanged */
    else
        x->net->lr_scale = x->comm == CM_COMM_NCCL ? 1.0f / (float)x->workers : 1.0f;
}

int cm_exchange_buckets(const cm_exchange *x)
{
    return x->n;
}

double cm_exchange_bytes(const cm_exchange *x)
{
    return x->bytes;
}

/* --- one iteration ---------------------------------------------------------- */

void cm_exchange_iteration_begin(cm_exchange *x)
{
    x->ran = x->active && x->comm != CM_COMM_NONE && x->n > 0;
    x->first = -1;
    for (int k = 0; k < x->n; k++)
        x->p[k].fired = x->p[k].sent = false;
#ifdef CNNPERF_HAVE_MPI
    if (x->ran && x->comm == CM_COMM_PS)
        cm_ps_round_begin(&x->ps, x->hw);
#endif
}

static void fire(cm_exchange *x, int k)
{
    cm_net *n = x->net;
    piece *q = &x->p[k];
    cm_flat *f = &n->flat[q->type];
    size_t e = cm_dtype_size((cm_dtype)q->type), count = (size_t)(q->hi - q->lo);
    char *g = (char *)f->g + (size_t)q->lo * e;
    (void)g, (void)count; /* unused in a build without NCCL and MPI */
    q->fired = true;
    if (x->first < 0)
        x->first = k;
    cudaCheck(cudaEventRecord(x->ready[k], n->gpu->stream));
    cudaCheck(cudaStreamWaitEvent(x->side, x->ready[k], 0));
    cudaCheck(cudaEventRecord(x->start[k], x->side));
    if (x->comm == CM_COMM_NCCL) {
#ifdef CM_WITH_NCCL
        ncclCheck(ncclAllReduce(g, g, count, nccl_type(q->type), ncclSum, x->nccl, x->side));
#endif
    } else {
#ifdef CNNPERF_HAVE_MPI
        char *h = (char *)x->hg[x->part_of_type[q->type]] + (size_t)q->lo * e;
        cudaCheck(cudaMemcpyAsync(h, g, count * e, cudaMemcpyDeviceToHost, x->side));
#endif
    }
    cudaCheck(cudaEventRecord(x->end[k], x->side));
}

void cm_exchange_layer_done(cm_exchange *x, int layer)
{
    if (!x->ran)
        return;
    cm_where = "gradient exchange";
    for (int k = 0; k < x->n; k++)
        if (!x->p[k].fired && x->p[k].trigger == layer)
            fire(x, k);
}

#ifdef CNNPERF_HAVE_MPI
/* Push each piece once it is on the host, copy parameters to the GPU as
 * they come back, until all are back. */
static void ps_finish(cm_exchange *x)
{
    cm_net *n = x->net;
    int sent = 0;
    double since = cm_mpi_now();
    while (sent < x->n || x->ps.pulls_left > 0) {
        bool progress = false;
        for (int k = 0; k < x->n; k++) {
            if (x->p[k].sent)
                continue;
            cudaError_t e = cudaEventQuery(x->end[k]);
            if (e == cudaErrorNotReady)
                continue;
            cudaCheck(e);
            cm_ps_push(&x->ps, k, x->hg);
            x->p[k].sent = true;
            sent++;
            progress = true;
        }
        int got = cm_ps_pulled(&x->ps, x->ids);
        for (int j = 0; j < got; j++) {
            const piece *q = &x->p[x->ids[j]];
            const float *h = x->hw[x->part_of_type[q->type]] + q->lo;
            cudaCheck(cudaMemcpyAsync(n->flat[q->type].w32 + q->lo, h, (size_t)(q->hi - q->lo) * sizeof(float),
                                      cudaMemcpyHostToDevice, x->pull));
        }
        if (got || progress)
            since = cm_mpi_now();
        else if (cm_mpi_now() - since > cm_mpi_timeout_s)
            give_up(sent < x->n ? "this GPU's gradients (device-to-host copies)" : "parameters from the servers");
    }
    cm_ps_round_end(&x->ps);
}
#endif

void cm_exchange_backward_done(cm_exchange *x)
{
    if (!x->ran)
        return;
    cm_net *n = x->net;
    cm_where = "gradient exchange";
    for (int k = 0; k < x->n; k++)
        if (!x->p[k].fired)
            fire(x, k);
    if (x->comm == CM_COMM_NCCL) {
        cudaCheck(cudaEventRecord(x->done, x->side));
    } else {
#ifdef CNNPERF_HAVE_MPI
        ps_finish(x);
        cudaCheck(cudaEventRecord(x->done, x->pull));
#endif
    }
    cudaCheck(cudaStreamWaitEvent(n->gpu->stream, x->done, 0));
}

bool cm_exchange_update(cm_exchange *x)
{
    if (x->comm != CM_COMM_PS)
        return false;
    if (!x->active)
        return true; /* compute only: the server's SGD is not the workers' to time */
    cm_net *n = x->net;
    cm_where = "refreshing the 16-bit parameters";
    /* The 16-bit copy from the new fp32 parameters: the SGD kernel with lr 0
     * writes w unchanged into the copy (the workers' momentum is not used
     * under a PS). */
    for (int t = 0; t < CM_DTYPE_COUNT; t++)
        if (t != CM_F32 && n->flat[t].count)
            cm_sgd(&n->gpu->kern, (cm_dtype)t, n->flat[t].w32, n->flat[t].v32, n->flat[t].g, n->flat[t].w,
                   n->flat[t].count, 0.0f, 0.0f, n->gpu->stream);
    return true;
}

void cm_exchange_wait(cm_exchange *x, cudaEvent_t ev)
{
    double since = cm_mpi_now();
    for (;;) {
        cudaError_t e = cudaEventQuery(ev);
        if (e == cudaSuccess)
            return;
        if (e != cudaErrorNotReady)
            cudaCheck(e);
#ifdef CM_WITH_NCCL
        if (x->nccl) {
            ncclResult_t r = ncclSuccess;
            ncclCheck(ncclCommGetAsyncError(x->nccl, &r));
            if (r != ncclSuccess && r != ncclInProgress)
                cm_nccl_fail(r, "ncclCommGetAsyncError (an all-reduce failed)", __FILE__, __LINE__);
        }
#else
        (void)x;
#endif
        if (cm_mpi_now() - since > cm_mpi_timeout_s)
            give_up("the GPU to finish the iteration");
        sched_yield();
    }
}

double cm_exchange_ms(cm_exchange *x)
{
    if (!x->ran)
        return 0;
    float ms = 0, total = 0;
    if (x->comm == CM_COMM_NCCL) {
        for (int k = 0; k < x->n; k++) {
            cudaCheck(cudaEventElapsedTime(&ms, x->start[k], x->end[k]));
            total += ms;
        }
    } else if (x->first >= 0) {
        cudaCheck(cudaEventElapsedTime(&total, x->ready[x->first], x->done));
    }
    return total;
}

void cm_exchange_destroy(cm_exchange *x)
{
    if (!x)
        return;
    cm_where = "gradient exchange clean-up";
    cudaCheck(cudaDeviceSynchronize());
#ifdef CM_WITH_NCCL
    if (x->nccl) {
        abort_comm = NULL;
        ncclCheck(ncclCommDestroy(x->nccl));
    }
#endif
#ifdef CNNPERF_HAVE_MPI
    if (x->comm == CM_COMM_PS) {
        cm_ps_free(&x->ps);
        for (int p = 0; p < CM_PS_MAX_PARTS; p++) {
            if (x->hg[p])
                cudaCheck(cudaFreeHost(x->hg[p]));
            if (x->hw[p])
                cudaCheck(cudaFreeHost(x->hw[p]));
        }
        free(x->ids);
    }
#endif
    for (int k = 0; k < x->n; k++) {
        cudaCheck(cudaEventDestroy(x->ready[k]));
        cudaCheck(cudaEventDestroy(x->start[k]));
        cudaCheck(cudaEventDestroy(x->end[k]));
    }
    cudaCheck(cudaEventDestroy(x->done));
    cudaCheck(cudaStreamDestroy(x->side));
    cudaCheck(cudaStreamDestroy(x->pull));
    free(x->ready);
    free(x->start);
    free(x->end);
    free(x->p);
    for (int p = 0; p < x->lay.n_parts; p++)
        free(x->lay.cuts[p]);
    x->net->ex = NULL;
    free(x);
}
