/* cnnperf-psexchange: a parameter server's whole exchange, measured apart
 * from training, as nccl-tests measure an all-reduce apart from a job.
 *
 *   mpirun -np W+K cnnperf-psexchange [--servers K] [--bucket-mb M] [--min-mb s] [--max-mb S] [--rounds R]
 *                                     [--idle-ms I] [--idle-spin 0|1] [--threads T] [-o FILE]
 *
 * Ranks 0..W-1 are workers, the last K servers, running cnnperf-measure's
 * own parameter server (measure/ps.c: every bucket of M MB split over the
 * servers). Per size S (--min-mb, default 1, doubling up to --max-mb,
 * default 256, per worker, fp32 gradients; the sizes below 16 MB hold the
 * round's fixed cost, which a small network's exchange is mostly): each round every worker pushes its S bytes,
 * bucket by bucket, as fast as it can, the servers sum and apply SGD, the
 * workers pull the parameters back; no GPU and no compute between. The
 * round is timed from a barrier to the last worker's last pull, R rounds
 * (default 5) after 2 untimed, the median; with it the servers' own pass
 * (the busiest server's sum-and-SGD time). The PS model takes from it the
 * rate a server's message stream moves while W workers push and pull at
 * once (comm/cluster.c, cp_cluster_ipc_parse). --idle-ms I: the workers
 * wait I ms after the barrier before they push, as a training job's
 * backward leaves its server idle between rounds; the round is timed from
 * the end of the wait, and the file (idle_ms) measures what waking the
 * server costs, not its host link (the PS model takes no such file as
 * one). --idle-spin 1: the workers wait on the clock, each keeping a core
 * busy, as a job's workers do waiting on their GPU, instead of sleeping.
 * --threads T: each server's team (default: the cores its host's workers
 * leave, as in a job; cnnperf-measure --ps-threads). CPU and MPI only.
 * Writes JSON (format cnnperf-psexchange/1) to FILE atomically, or to
 * stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ps.h"
#include "toolio.h"

#define MAX_POINTS 16
#define TIMED_MAX 64

typedef struct {
    double bytes, round_us, pass_us;
} point;

static int usage(const char *why)
{
    fprintf(stderr,
            "cnnperf-psexchange: %s\nusage: mpirun -np W+K cnnperf-psexchange [--servers K] [--bucket-mb M] "
            "[--min-mb s] [--max-mb S] [--rounds R] [--idle-ms I] [--idle-spin 0|1] [--threads T] [-o FILE]\n",
            why);
    return 2;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void idle(long long ms, bool spin)
{
    if (spin) {
        for (double end = cm_mpi_now() + ms * 1e-3; cm_mpi_now() < end;)
            ;
        return;
    }
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

/* How a round is paced and who serves it. */
typedef struct {
    int servers, rounds, threads; /* threads: each server's team, 0 for the default */
    double bucket_mb;
    long long idle_ms;
    bool idle_spin;
} plan;

/* One size: the median round and the busiest server's pass over the plan's
 * timed rounds of `count` fp32 gradients per worker, each round's push
 * after idle_ms of waiting (not timed). *team: the largest server team. */
static point measure_size(long long count, const plan *pl, int *team)
{
    int servers = pl->servers, rounds = pl->rounds;
    long long bucket = (long long)(pl->bucket_mb * 1e6 / 4), n_cuts = count > 0 ? (count - 1) / bucket : 0;
    long long *cuts = calloc((size_t)(n_cuts + 1), sizeof *cuts);
    float *params = calloc((size_t)count, sizeof *params), *grads = calloc((size_t)count, sizeof *grads);
    if (!cuts || !params || !grads) {
        fprintf(stderr, "cnnperf-psexchange: %sout of memory for %lld parameters\n", cm_mpi_who(), count);
        cm_mpi_abort(1);
    }
    for (long long k = 0; k < n_cuts; k++)
        cuts[k] = (k + 1) * bucket;
    for (long long i = 0; i < count; i++)
        grads[i] = params[i] = 1e-3f * (float)(i % 1000);
    cm_ps_layout lay = {1, {CM_PS_F32}, {count}, {(int)n_cuts}, {cuts}};
    cm_ps ps;
    cm_ps_setup(&ps, cm_mpi.world, servers, cm_mpi.rank == 0 ? &lay : NULL, 0.01f, 0.9f, pl->threads);
    int mine_team = ps.server ? ps.threads : 0;
    mpiCheck(MPI_Allreduce(&mine_team, team, 1, MPI_INT, MPI_MAX, cm_mpi.world));
    float *const w[1] = {params};
    void *const g[1] = {grads};
    cm_ps_init_params(&ps, cm_mpi.rank == 0 ? w : NULL);
    int *ids = calloc((size_t)ps.n_chunks + 1, sizeof *ids);
    double round_us[TIMED_MAX], pass_us[TIMED_MAX];
    for (int r = -2; r < rounds; r++) {
        mpiCheck(MPI_Barrier(cm_mpi.world));
        double t0 = cm_mpi_now() + pl->idle_ms * 1e-3, busy = 0;
        if (ps.server) {
            busy = cm_ps_serve_round(&ps);
        } else {
            if (pl->idle_ms > 0)
                idle(pl->idle_ms, pl->idle_spin);
            cm_ps_round_begin(&ps, w);
            for (int c = ps.n_chunks - 1; c >= 0; c--) /* backward order: the last bucket first */
                cm_ps_push(&ps, c, g);
            double since = cm_mpi_now();
            while (ps.pulls_left > 0)
                if (cm_ps_pulled(&ps, ids))
                    since = cm_mpi_now();
                else
                    cm_mpi_deadline(since, "parameters from the servers");
            cm_ps_round_end(&ps);
        }
        double mine[2] = {(cm_mpi_now() - t0) * 1e6, busy * 1e6}, most[2];
        mpiCheck(MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, cm_mpi.world));
        if (r >= 0) {
            round_us[r] = most[0];
            pass_us[r] = most[1];
        }
    }
    qsort(round_us, (size_t)rounds, sizeof *round_us, by_value);
    qsort(pass_us, (size_t)rounds, sizeof *pass_us, by_value);
    point p = {(double)count * 4, round_us[rounds / 2], pass_us[rounds / 2]};
    cm_ps_free(&ps);
    free(ids);
    free(cuts);
    free(params);
    free(grads);
    return p;
}

static int write_json(const char *out, int argc, char **argv, int workers, const plan *pl, int team,
                      const point *pts, int n)
{
    char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "?";
    int len = 0;
    MPI_Get_library_version(mpi, &len);
    mpi[strcspn(mpi, ",\n")] = 0; /* "Open MPI v4.1.6, package: ..." -> the name and version */
    char tmp[4096];
    FILE *f = cm_json_open("cnnperf-psexchange", "cnnperf-psexchange/1", out, tmp, sizeof tmp, argc, argv);
    if (!f)
        return 1;
    fprintf(f,
            ", \"mpi\": \"%s\"},\n"
            " \"workers\": %d, \"servers\": %d, \"server_threads\": %d, \"bucket_mb\": %g, \"rounds\": %d, "
            "\"idle_ms\": %lld, \"idle_spin\": %s,\n"
            " \"timing\": \"per size: every worker pushes its fp32 gradients bucket by bucket (measure/ps.c, each bucket "
            "split over the servers), the servers sum and apply SGD, the workers pull the parameters; from a barrier "
            "to the last pull, the median of the rounds after 2 untimed; server_pass_us: the median over the rounds of "
            "the busiest server's sum and SGD; idle_ms: the workers' wait before each round's push, not timed (idle_spin: "
            "on the clock, a core busy each, else asleep); server_threads: each server's team\",\n"
            " \"points\": [",
            mpi, workers, pl->servers, team, pl->bucket_mb, pl->rounds, pl->idle_ms, pl->idle_spin ? "true" : "false");
    for (int i = 0; i < n; i++)
        fprintf(f, "%s\n  {\"bytes_per_worker\": %.0f, \"round_us\": %.1f, \"server_pass_us\": %.1f}", i ? "," : "",
                pts[i].bytes, pts[i].round_us, pts[i].pass_us);
    fprintf(f, "\n ]\n}\n");
    return cm_atomic_close("cnnperf-psexchange", f, out, tmp);
}

int main(int argc, char **argv)
{
    long long servers = 1, bucket = 25, min_mb = 1, max_mb = 256, rounds = 5, idle_ms = 0, spin = 0, threads = 0;
    const char *out = NULL;
    for (int i = 1; i < argc; i += 2) { /* every option takes a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return usage("a parameter server's whole exchange, timed"), 0;
        if (!v)
            return usage("an option without its value");
        if (strcmp(a, "--servers") == 0 ? cm_arg_ll(v, 1, 64, &servers)
            : strcmp(a, "--bucket-mb") == 0 ? cm_arg_ll(v, 1, 4096, &bucket)
            : strcmp(a, "--min-mb") == 0 ? cm_arg_ll(v, 1, 4096, &min_mb)
            : strcmp(a, "--max-mb") == 0 ? cm_arg_ll(v, 1, 4096, &max_mb)
            : strcmp(a, "--rounds") == 0 ? cm_arg_ll(v, 1, TIMED_MAX, &rounds)
            : strcmp(a, "--idle-ms") == 0 ? cm_arg_ll(v, 0, 10000, &idle_ms)
            : strcmp(a, "--idle-spin") == 0 ? cm_arg_ll(v, 0, 1, &spin)
            : strcmp(a, "--threads") == 0 ? cm_arg_ll(v, 0, 4096, &threads)
            : strcmp(a, "-o") == 0 ? (out = v, 0)
                                   : -1)
            return usage("unknown option or value out of range");
    }
    cm_mpi_prog = "cnnperf-psexchange";
    setenv("CNNPERF_MPI", "1", 0); /* MPI even as a singleton, which then refuses below */
    cm_mpi_init(&argc, &argv);
    int workers = cm_mpi.size - (int)servers;
    if (workers < 1) {
        fprintf(stderr, "cnnperf-psexchange: needs more ranks than --servers %lld (got %d): mpirun -np W+K\n",
                servers, cm_mpi.size);
        cm_mpi_finalize();
        return 2;
    }
    plan pl = {(int)servers, (int)rounds, (int)threads, (double)bucket, idle_ms, spin != 0};
    point pts[MAX_POINTS];
    int n = 0, team = 0;
    for (long long mb = min_mb < max_mb ? min_mb : max_mb; mb <= max_mb && n < MAX_POINTS; mb *= 2) {
        pts[n] = measure_size(mb * 1000000 / 4, &pl, &team);
        if (cm_mpi.rank == 0)
            fprintf(stderr,
                    "cnnperf-psexchange: %d workers, %lld server%s: %.0f MB each, round %.1f ms, servers' pass "
                    "%.1f ms on %d threads%s\n",
                    workers, servers, servers == 1 ? "" : "s", pts[n].bytes / 1e6, pts[n].round_us / 1e3,
                    pts[n].pass_us / 1e3, team, idle_ms > 0 ? " (after an idle wait)" : "");
        n++;
    }
    int rc = cm_mpi.rank == 0
                 ? write_json(out, argc, argv, workers, &pl, team, pts, n)
                 : 0;
    cm_mpi_finalize();
    return rc;
}
