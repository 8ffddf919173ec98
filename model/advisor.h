/* advisor: the block-size advisor of dissertation chapter 3.
 *
 * A user describes a CUDA kernel per THREAD (docs/KERNELS.md, format
 * "cnnperf-kernel/1"): how many threads the problem needs, the registers and
 * shared memory each thread uses, and the instructions one thread issues per
 * loop iteration. The description does not depend on the block size, so the
 * advisor can instantiate it for every block size 32, 64, ... up to
 * min(1024, N_MTB), run each through the instruction-queue model
 * (cp_kernel_evaluate) and recommend the fastest size that can launch.
 *
 * Contract: loaders and cp_advise() never print; they fill a cp_error with
 * one line naming the file and JSON path and return -1. A block size that
 * cannot launch is not an error: its row is marked infeasible with the
 * reason. Only "no size can launch at all" is an error. */
#ifndef CP_ADVISOR_H
#define CP_ADVISOR_H

#include <stdio.h>

#include "../util/cp_error.h"
#include "device.h"
#include "kernel.h"

#define CP_KERNEL_SPEC_FORMAT "cnnperf-kernel/1"
#define CP_ADVISOR_STEP 32       /* block sizes are multiples of this */
#define CP_ADVISOR_MAX_THREADS 1024
#define CP_ADVISOR_MAX_ROWS (CP_ADVISOR_MAX_THREADS / CP_ADVISOR_STEP)

/* A kernel described per thread, independent of the block size. */
typedef struct {
    char name[56];
    char file[256]; /* where it was loaded from, for messages */
    long long total_threads;        /* threads the problem needs in all */
    int regs_per_thread;            /* R_RT */
    long long smem_per_thread;      /* M_TS of Eq. 3-6, bytes */
    long long smem_per_block_fixed; /* bytes a block uses whatever its size */
    long long iterations;           /* loop trip count of one thread */
    /* per thread and loop iteration, in instructions */
    double global_loads, shared_loads, compute, global_stores, other;
    int bytes_per_access; /* bytes one thread moves per memory instruction */
    double coalesced;     /* R_Co of Eq. 3-25 */
    cp_precision precision;
    double dram_bytes; /* whole-kernel DRAM traffic; < 0: every global access misses the caches */
} cp_kernel_spec;

/* text[len] must be 0, as cp_json_parse requires; file names it in messages. */
int cp_kernel_spec_parse(const char *text, size_t len, const char *file, cp_kernel_spec *s, cp_error *err);
int cp_kernel_spec_load(const char *path, cp_kernel_spec *s, cp_error *err);

/* The cp_kernel of spec s launched with `threads` threads per block. */
cp_kernel cp_kernel_spec_instance(const cp_kernel_spec *s, const cp_device *d, int threads);

typedef struct {
    int threads;      /* N_TB */
    long long blocks; /* N_CB = ceil(total_threads / N_TB) */
    long long smem;   /* M_BS, bytes per block */
    int feasible;
    char reason[sizeof(cp_error)]; /* why it cannot launch (infeasible rows) */
    cp_kernel_eval eval;           /* valid for feasible rows */
    double time_us;
} cp_advice_row;

typedef struct {
    char kernel[56];
    char device[32];
    char device_name[96];
    int count;
    int best; /* index of the recommended row */
    cp_advice_row rows[CP_ADVISOR_MAX_ROWS];
} cp_advice;

/* Recommends the fastest feasible block size; among sizes within 0.5 % of
 * the fastest, the one with the highest occupancy, then the smallest.
 * Fails only when no block size can launch (the message names the limit). */
int cp_advise(const cp_kernel_spec *s, const cp_device *d, cp_advice *a, cp_error *err);

typedef enum { CP_ADVICE_TABLE, CP_ADVICE_JSON, CP_ADVICE_CSV } cp_advice_format;

int cp_advice_format_parse(const char *name, cp_advice_format *f); /* 0 ok, -1 unknown */
/* Returns 0, or -1 on a write error. */
int cp_advice_write(FILE *f, const cp_advice *a, const cp_kernel_spec *s, cp_advice_format fmt);

#endif
