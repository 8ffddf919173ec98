#include "mpi_util.h"
#include "srcpath.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

cm_mpi_state cm_mpi = {.active = false, .rank = 0, .size = 1, .host = ""};
const char *cm_mpi_prog = "cnnperf-measure";
double cm_mpi_timeout_s = 20.0;
const char *const *cm_mpi_where = NULL;

#ifdef CNNPERF_HAVE_MPI
static bool finalized = false;
#endif

double cm_mpi_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void set_host(void)
{
    if (cm_mpi.host[0])
        return;
    if (gethostname(cm_mpi.host, sizeof cm_mpi.host) != 0)
        snprintf(cm_mpi.host, sizeof cm_mpi.host, "unknown");
    cm_mpi.host[sizeof cm_mpi.host - 1] = 0;
}

const char *cm_mpi_who(void)
{
    static char who[320];
    if (cm_mpi.size <= 1)
        return "";
    set_host();
    snprintf(who, sizeof who, "rank %d (%s): ", cm_mpi.rank, cm_mpi.host);
    return who;
}


bool cm_mpi_launched(void)
{
#ifdef CNNPERF_HAVE_MPI
    const char *force = getenv("CNNPERF_MPI");
    if (force && *force)
        return strcmp(force, "0") != 0;
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK",
                                       "MV2_COMM_WORLD_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return true;
#endif
    return false;
}

#ifdef CNNPERF_HAVE_MPI
/* Any exit() before MPI_Finalize: the other ranks may be waiting for this
 * one, so end them all. MPI_Abort does not return. */
static void exit_hook(void)
{
    if (!cm_mpi.active || finalized)
        return;
    if (cm_mpi.size > 1) {
        fprintf(stderr, "%s: %sexiting before the end of the run: aborting all %d ranks\n", cm_mpi_prog,
                cm_mpi_who(), cm_mpi.size);
        fflush(stderr);
    }
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#endif

void cm_mpi_init(int *argc, char ***argv)
{
    set_host();
#ifdef CNNPERF_HAVE_MPI
    if (!cm_mpi_launched())
        return;
    int rc = MPI_Init(argc, argv);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "%s: MPI_Init failed (%d) on %s\n", cm_mpi_prog, rc, cm_mpi.host);
        exit(1);
    }
    cm_mpi.active = true;
    cm_mpi.world = MPI_COMM_WORLD;
    atexit(exit_hook);
    mpiCheck(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    mpiCheck(MPI_Comm_rank(MPI_COMM_WORLD, &cm_mpi.rank));
    mpiCheck(MPI_Comm_size(MPI_COMM_WORLD, &cm_mpi.size));
#else
    (void)argc, (void)argv;
    /* Started by a launcher with several ranks but built without MPI: every
     * process would think it is alone and write the same result. */
    static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const char *v = getenv(sizes[i]);
        if (v && atoi(v) > 1) {
            fprintf(stderr, "%s: started as one of %s MPI ranks (%s) but built without MPI: rebuild with MPI found\n",
                    cm_mpi_prog, v, sizes[i]);
            exit(2);
        }
    }
#endif
}

void cm_mpi_finalize(void)
{
#ifdef CNNPERF_HAVE_MPI
    if (cm_mpi.active && !finalized) {
        finalized = true;
        mpiCheck(MPI_Finalize());
        cm_mpi.active = false;
    }
#endif
}

void cm_mpi_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
#ifdef CNNPERF_HAVE_MPI
    if (cm_mpi.active && !finalized) {
        finalized = true; /* the exit hook must not abort a second time */
        MPI_Abort(MPI_COMM_WORLD, code);
    }
#endif
    exit(code);
}

#ifdef CNNPERF_HAVE_MPI
void cm_mpi_fail(int err, const char *call, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING + 1] = "";
    int len = 0;
    if (MPI_Error_string(err, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "MPI error %d", err);
    const char *where = cm_mpi_where && *cm_mpi_where ? *cm_mpi_where : NULL;
    fprintf(stderr, "%s: %s%s%s%s%s:%d: %s: %s\n", cm_mpi_prog, cm_mpi_who(), where ? "at '" : "", where ? where : "",
            where ? "': " : "", cm_short_file(file), line, call, msg);
    cm_mpi_abort(1);
}

void cm_mpi_deadline(double since, const char *what)
{
    if (cm_mpi_now() - since <= cm_mpi_timeout_s)
        return;
    fprintf(stderr,
            "%s: %sno progress in %g s waiting for %s (another rank failed or hangs; --timeout-s sets the limit): "
            "aborting all ranks\n",
            cm_mpi_prog, cm_mpi_who(), cm_mpi_timeout_s, what);
    cm_mpi_abort(1);
}

void cm_mpi_waitall(int n, MPI_Request *reqs, const char *what)
{
    double since = cm_mpi_now();
    for (;;) {
        int done = 0;
        mpiCheck(MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE));
        if (done)
            return;
        cm_mpi_deadline(since, what);
        sched_yield();
    }
}
#endif
