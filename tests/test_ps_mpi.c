/* test_ps_mpi: the parameter-server exchange of cnnperf-measure
 * (measure/ps.c) on CPUs, without a GPU:
 *
 *   mpirun -np 3 test_ps_mpi                 2 workers + 1 server
 *   mpirun -np 5 test_ps_mpi --servers 2     3 workers + 2 sharded servers
 *
 * Fake gradients (fp32, fp16 and bf16 parts, with bucket boundaries and
 * shards that do not line up) are pushed for several rounds in a different
 * order on each worker; after every round each worker's parameters must
 * equal a serial computation of the same sums, means and SGD steps, and be
 * identical on all workers. The chunk plan is checked for every server
 * count up to 5.
 *
 * --hang R, --die R: worker 1 stops pushing (sleeps) or exits in round R,
 * to show that every rank then ends, non-zero, within --timeout-s instead
 * of hanging (the tests look for the message). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../measure/ps.h"

#define ROUNDS 4
#define PARTS 3

static const cm_ps_type part_type[PARTS] = {CM_PS_F32, CM_PS_F16, CM_PS_BF16};
static const long long part_count[PARTS] = {150001, 257, 77};
static long long cuts_f32[] = {100, 102, 333, 700, 70000}; /* [100, 102): fewer elements than servers */
static long long cuts_f16[] = {128};
static const float LR = 0.05f, MU = 0.9f;

static int failures = 0;

#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "test_ps_mpi: rank %d: %s:%d: ", cm_mpi.rank, __FILE__, __LINE__);                         \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static uint16_t to_half(float f) /* exact for the small multiples of 1/64 used here */
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
    int32_t exp = (int32_t)((x >> 23) & 0xffu);
    if (exp == 0)
        return (uint16_t)sign;
    return (uint16_t)(sign | (uint32_t)(exp - 127 + 15) << 10 | (mant >> 13));
}

static float grad_value(int worker, int round, int part, long long i)
{
    return (float)((int)((i * 7 + worker * 13 + round * 5 + part * 3) % 17) - 8) / 64.0f;
}

static float init_value(int part, long long i)
{
    return (float)((int)((i * 31 + part * 11) % 101) - 50) / 100.0f;
}

static void fill_grads(void *g, int part, int worker, int round)
{
    for (long long i = 0; i < part_count[part]; i++) {
        float v = grad_value(worker, round, part, i);
        if (part_type[part] == CM_PS_F32) {
            ((float *)g)[i] = v;
        } else if (part_type[part] == CM_PS_F16) {
            ((uint16_t *)g)[i] = to_half(v);
        } else {
            uint32_t x;
            memcpy(&x, &v, sizeof x);
            ((uint16_t *)g)[i] = (uint16_t)(x >> 16);
        }
    }
}

/* The plan covers every part exactly, in order, cut at every bucket
 * boundary, and splits every bucket evenly over the K servers: piece s of
 * each bucket to server s, the pieces' sizes at most one element apart. */
static void check_plan(const cm_ps_layout *lay)
{
    for (int K = 1; K <= 5; K++) {
        cm_ps_chunk *c = NULL;
        int n = cm_ps_plan(lay, K, &c);
        EXPECT(n > 0, "plan for %d servers failed", K);
        int k = 0;
        for (int p = 0; p < lay->n_parts; p++) {
            long long at = 0;
            for (int b = 0; b <= lay->n_cuts[p]; b++) {
                long long lo = b ? lay->cuts[p][b - 1] : 0, hi = b < lay->n_cuts[p] ? lay->cuts[p][b] : lay->count[p];
                long long len = hi - lo, small = len / K;
                int pieces = 0;
                for (; k < n && c[k].part == p && c[k].lo < hi; k++, pieces++) {
                    EXPECT(c[k].lo == at && c[k].hi > c[k].lo && c[k].hi <= hi,
                           "K=%d part %d: chunk %d is [%lld, %lld), expected [%lld, <= %lld)", K, p, k, c[k].lo,
                           c[k].hi, at, hi);
                    long long size = c[k].hi - c[k].lo;
                    EXPECT(size == small || size == small + 1,
                           "K=%d part %d bucket %d: a piece of %lld of %lld elements, not an even split", K, p, b,
                           size, len);
                    EXPECT(c[k].server >= 0 && c[k].server < K && (pieces == 0 || c[k].server > c[k - 1].server),
                           "K=%d part %d bucket %d: piece %d on server %d", K, p, b, pieces, c[k].server);
                    at = c[k].hi;
                }
                EXPECT(at == hi, "K=%d part %d: bucket %d covered to %lld of [%lld, %lld)", K, p, b, at, lo, hi);
                EXPECT(pieces == (len < K ? len : K), "K=%d part %d bucket %d: %d pieces of %lld elements", K, p, b,
                       pieces, len);
            }
            EXPECT(at == lay->count[p], "K=%d part %d: chunks end at %lld of %lld", K, p, at, lay->count[p]);
        }
        EXPECT(k == n, "K=%d: %d chunks out of part order", K, n - k);
        free(c);
    }
    long long bad_cuts[] = {5, 5};
    cm_ps_layout bad = {1, {CM_PS_F32}, {10}, {2}, {bad_cuts}};
    cm_ps_chunk *c = NULL;
    EXPECT(cm_ps_plan(&bad, 1, &c) == -1 && c == NULL, "a repeated cut must be refused");
}

static uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

int main(int argc, char **argv)
{
    int servers = 1, threads = 0, hang = -1, die = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--servers") == 0)
            servers = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--threads") == 0)
            threads = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--timeout-s") == 0)
            cm_mpi_timeout_s = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--hang") == 0)
            hang = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--die") == 0)
            die = atoi(argv[i + 1]);
    }
    cm_mpi_prog = "test_ps_mpi";
    setenv("CNNPERF_MPI", "1", 1); /* always MPI, also when started without mpirun (a singleton) */
    cm_mpi_init(&argc, &argv);
    if (cm_mpi.size <= servers) {
        fprintf(stderr, "test_ps_mpi: needs more ranks than --servers %d (got %d): mpirun -np %d\n", servers,
                cm_mpi.size, servers + 2);
        cm_mpi_finalize();
        return 2;
    }
    int W = cm_mpi.size - servers, rank = cm_mpi.rank;

    cm_ps_layout lay = {PARTS,
                        {part_type[0], part_type[1], part_type[2]},
                        {part_count[0], part_count[1], part_count[2]},
                        {5, 1, 0},
                        {cuts_f32, cuts_f16, NULL}};
    if (rank == 0)
        check_plan(&lay);

    cm_ps ps;
    cm_ps_setup(&ps, cm_mpi.world, servers, rank == 0 ? &lay : NULL, LR, MU, threads);
    EXPECT(ps.workers == W && ps.server == (rank >= W), "roles: %d workers, server %d", ps.workers, ps.server);

    float *ref_w[PARTS], *ref_v[PARTS], *params[PARTS];
    void *grads[PARTS];
    for (int p = 0; p < PARTS; p++) {
        size_t n = (size_t)part_count[p];
        ref_w[p] = calloc(n, sizeof(float));
        ref_v[p] = calloc(n, sizeof(float));
        params[p] = calloc(n, sizeof(float));
        grads[p] = calloc(n, cm_ps_type_size(part_type[p]));
        if (!ref_w[p] || !ref_v[p] || !params[p] || !grads[p]) {
            fprintf(stderr, "test_ps_mpi: out of memory\n");
            cm_mpi_abort(1);
        }
        for (size_t i = 0; i < n; i++)
            ref_w[p][i] = init_value(p, (long long)i);
    }
    cm_ps_init_params(&ps, rank == 0 ? ref_w : NULL);

    double max_diff = 0, busy = 0;
    long long inexact = 0;
    int *ids = calloc((size_t)ps.n_chunks + 1, sizeof *ids);
    for (int r = 0; r < ROUNDS; r++) {
        if (ps.server) {
            busy += cm_ps_serve_round(&ps);
            continue;
        }
        if (rank == 1 && r == die) {
            fprintf(stderr, "test_ps_mpi: rank 1: exiting in round %d as asked (--die)\n", r);
            exit(3);
        }
        for (int p = 0; p < PARTS; p++)
            fill_grads(grads[p], p, rank, r);
        cm_ps_round_begin(&ps, params);
        int pulled = 0;
        if (!(rank == 1 && r == hang)) {
            /* Worker 0 pushes the chunks last to first, the others first to last. */
            for (int k = 0; k < ps.n_chunks; k++) {
                cm_ps_push(&ps, rank == 0 ? ps.n_chunks - 1 - k : k, grads);
                pulled += cm_ps_pulled(&ps, ids);
            }
        } else {
            fprintf(stderr, "test_ps_mpi: rank 1: not pushing in round %d, as asked (--hang)\n", r);
            sleep(120);
        }
        double since = cm_mpi_now();
        while (ps.pulls_left > 0) {
            int got = cm_ps_pulled(&ps, ids);
            pulled += got;
            if (got)
                since = cm_mpi_now();
            else
                cm_mpi_deadline(since, "parameters from the servers");
        }
        cm_ps_round_end(&ps);
        EXPECT(pulled == ps.n_chunks, "round %d: %d of %d chunks pulled", r, pulled, ps.n_chunks);

        /* The serial computation: sum in worker order, mean, SGD. */
        const float inv = 1.0f / (float)W;
        for (int p = 0; p < PARTS; p++) {
            void *g = calloc((size_t)part_count[p], cm_ps_type_size(part_type[p]));
            float *sum = calloc((size_t)part_count[p], sizeof *sum);
            for (int j = 0; j < W; j++) {
                fill_grads(g, p, j, r);
                for (long long i = 0; i < part_count[p]; i++)
                    sum[i] += cm_ps_to_float(part_type[p], g, i);
            }
            for (long long i = 0; i < part_count[p]; i++) {
                float gi = sum[i] * inv;
                float vi = MU * ref_v[p][i] + gi;
                ref_v[p][i] = vi;
                ref_w[p][i] = ref_w[p][i] - LR * vi;
                double d = (double)params[p][i] - (double)ref_w[p][i];
                d = d < 0 ? -d : d;
                if (d > max_diff)
                    max_diff = d;
                if (params[p][i] != ref_w[p][i])
                    inexact++;
                double tol = 1e-6 * (1.0 + (ref_w[p][i] < 0 ? -ref_w[p][i] : ref_w[p][i]));
                if (d > tol && failures < 20)
                    EXPECT(0, "round %d part %d element %lld: %.9g from the servers, %.9g serially", r, p, i,
                           (double)params[p][i], (double)ref_w[p][i]);
            }
            free(g);
            free(sum);
        }
    }

    /* Identical on every worker: a checksum of the parameter bytes. */
    uint64_t h = 0xcbf29ce484222325ull, all[256] = {0};
    if (!ps.server)
        for (int p = 0; p < PARTS; p++)
            h = fnv1a(params[p], (size_t)part_count[p] * sizeof(float), h);
    if (cm_mpi.size <= 256) {
        mpiCheck(MPI_Allgather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, cm_mpi.world));
        for (int j = 1; j < W; j++)
            EXPECT(all[j] == all[0], "worker %d's parameters differ from worker 0's (checksum %016llx vs %016llx)", j,
                   (unsigned long long)all[j], (unsigned long long)all[0]);
    }
    double worst = 0;
    long long inexact_all = 0;
    int failed = 0;
    mpiCheck(MPI_Reduce(&max_diff, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, cm_mpi.world));
    mpiCheck(MPI_Reduce(&inexact, &inexact_all, 1, MPI_LONG_LONG, MPI_SUM, 0, cm_mpi.world));
    mpiCheck(MPI_Allreduce(&failures, &failed, 1, MPI_INT, MPI_SUM, cm_mpi.world));
    if (ps.server)
        printf("test_ps_mpi: server rank %d (%d threads): %d chunks, %.3f ms summing and updating\n", rank, ps.threads,
               ps.n_mine, busy * 1e3);
    if (rank == 0)
        printf("test_ps_mpi: %d workers + %d server%s, %d rounds, %d chunks, %lld parameters: %s "
               "(max |difference| from the serial computation %.3g, %lld of %lld values not bit-equal), "
               "checksum %016llx on every worker\n",
               W, servers, servers == 1 ? "" : "s", ROUNDS, ps.n_chunks,
               part_count[0] + part_count[1] + part_count[2], failed ? "FAILED" : "OK", worst, inexact_all,
               (long long)W * ROUNDS * (part_count[0] + part_count[1] + part_count[2]), (unsigned long long)all[0]);
    for (int p = 0; p < PARTS; p++) {
        free(ref_w[p]);
        free(ref_v[p]);
        free(params[p]);
        free(grads[p]);
    }
    free(ids);
    cm_ps_free(&ps);
    cm_mpi_finalize();
    return failed ? 1 : 0;
}
