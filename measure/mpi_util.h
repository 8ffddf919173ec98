/* mpi_util: MPI for cnnperf-measure, optional at build and at run time.
 *
 * A process started by an MPI launcher (mpirun/mpiexec, srun: recognised by
 * the environment variables they set, see cm_mpi_launched) calls MPI_Init;
 * a process started on its own does not, and runs as rank 0 of 1 exactly as
 * before. Without MPI at build time every function here is a stub.
 *
 * Errors: every MPI call goes through mpiCheck, which prints
 *   cnnperf-measure: rank R (host): at 'what': file:line: call: MPI's message
 * and calls MPI_Abort, which makes the launcher kill every rank. MPI's own
 * handler is replaced by MPI_ERRORS_RETURN so the message is ours. A rank
 * that calls exit() anywhere else (a CUDA/cuDNN failure in check.c, bad
 * input found late) without having finalised MPI also aborts every rank,
 * from an atexit handler, so no rank is left waiting for it. Waits on other
 * ranks poll with a deadline (cm_mpi_timeout_s of no progress) and abort all
 * ranks when it passes, so a hung peer does not hang the job either. */
#ifndef CM_MPI_UTIL_H
#define CM_MPI_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#ifdef CNNPERF_HAVE_MPI
#include <mpi.h>
#endif

typedef struct {
    bool active;        /* MPI_Init was called (and MPI_Finalize not yet) */
    int rank, size;     /* in the world: 0 and 1 when MPI is not in use */
    char host[256];
#ifdef CNNPERF_HAVE_MPI
    MPI_Comm world;     /* MPI_COMM_WORLD, errors returned */
#endif
} cm_mpi_state;

extern cm_mpi_state cm_mpi;

/* Program name at the start of messages ("cnnperf-measure"). */
extern const char *cm_mpi_prog;
/* Seconds without progress after which a wait on other ranks gives up and
 * aborts every rank (--timeout-s). */
extern double cm_mpi_timeout_s;
/* Where the program is, for messages (points at check.c's cm_where in
 * cnnperf-measure); NULL: nothing. */
extern const char *const *cm_mpi_where;

/* True when an MPI launcher started this process: OMPI_COMM_WORLD_SIZE
 * (Open MPI), PMI_SIZE / PMI_RANK (MPICH, Intel MPI, srun --mpi=pmi2),
 * PMIX_RANK (PMIx: srun --mpi=pmix, Open MPI 5), MV2_COMM_WORLD_SIZE
 * (MVAPICH2). CNNPERF_MPI=1 forces MPI (a singleton), CNNPERF_MPI=0 forbids
 * it. Always false when built without MPI. */
bool cm_mpi_launched(void);

/* MPI_Init when launched (else rank 0 of 1), errors returned to the caller,
 * host name, the exit hook. */
void cm_mpi_init(int *argc, char ***argv);
/* MPI_Finalize when active; after it exit() no longer aborts other ranks. */
void cm_mpi_finalize(void);
/* Ends this rank with `code`: with MPI active and more than one rank,
 * MPI_Abort(code) (the launcher ends the others); else exit(code). */
void cm_mpi_abort(int code) __attribute__((noreturn));

/* "rank R (host): " when there are several ranks, else "". */
const char *cm_mpi_who(void);
/* Monotonic clock, seconds. */
double cm_mpi_now(void);

#ifdef CNNPERF_HAVE_MPI
void cm_mpi_fail(int err, const char *call, const char *file, int line) __attribute__((noreturn));

#define mpiCheck(x)                                                                                                    \
    do {                                                                                                               \
        int cm_m_ = (x);                                                                                               \
        if (cm_m_ != MPI_SUCCESS)                                                                                      \
            cm_mpi_fail(cm_m_, #x, __FILE__, __LINE__);                                                                \
    } while (0)

/* Called in a polling loop: when more than cm_mpi_timeout_s have passed
 * since `since` (the last progress), prints what was being waited for and
 * aborts every rank. */
void cm_mpi_deadline(double since, const char *what);
/* MPI_Waitall by polling MPI_Testall, with the deadline. */
void cm_mpi_waitall(int n, MPI_Request *reqs, const char *what);
#endif

#endif
