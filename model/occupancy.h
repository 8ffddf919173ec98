/* occupancy: how many blocks of a kernel are resident on one SM.
 *
 * Dissertation Eq. 3-1...3-15: each of threads, warps, blocks, registers and
 * shared memory bounds the resident blocks per SM (N_BS); the smallest bound
 * wins and is reported as the limiter. */
#ifndef CP_OCCUPANCY_H
#define CP_OCCUPANCY_H

#include "device.h"

typedef enum {
    CP_LIMIT_THREADS, /* Eq. 3-2: N_MTS >= N_TB x N_BS */
    CP_LIMIT_BLOCKS,  /* Eq. 3-3: N_MBS >= N_BS */
    CP_LIMIT_WARPS,   /* Eq. 3-4/3-5 */
    CP_LIMIT_REGS,    /* Eq. 3-14 */
    CP_LIMIT_SMEM,    /* Eq. 3-9 */
} cp_limiter;

const char *cp_limiter_name(cp_limiter l);

typedef struct {
    int blocks_per_sm;   /* N_AB: active blocks per SM */
    int warps_per_block; /* N_WB */
    int active_warps;    /* N_AW */
    double occupancy;    /* N_AW / N_MWS */
    cp_limiter limiter;
    int by_threads, by_blocks, by_warps, by_regs, by_smem; /* each bound on N_BS */
} cp_occupancy;

/* Fails (returns -1 with a message) when a single block cannot be launched:
 * Eq. 3-1 (threads), 3-7 (shared memory), 3-12/3-15 (registers). */
int cp_occupancy_calc(const cp_device *d, int threads, int regs_per_thread, int smem_per_block, cp_occupancy *o,
                      cp_error *err);

#endif
