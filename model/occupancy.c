/* Occupancy: resident blocks per SM from Eq. 3-1...3-15, with the
 * allocation granularities the hardware actually uses. */
#include "occupancy.h"

const char *cp_limiter_name(cp_limiter l)
{
    static const char *const names[] = {"threads (Eq. 3-2)", "blocks (Eq. 3-3)", "warps (Eq. 3-4)",
                                        "registers (Eq. 3-14)", "shared memory (Eq. 3-9)"};
    return names[l];
}

static int round_up(int v, int unit)
{
    return unit > 1 ? (v + unit - 1) / unit * unit : v;
}

int cp_occupancy_calc(const cp_device *d, int threads, int regs_per_thread, int smem_per_block, cp_occupancy *o,
                      cp_error *err)
{
    if (threads < 1 || threads > d->max_threads_per_block) /* Eq. 3-1 */
        return cp_fail(err, NULL, NULL, "%d threads per block: the device allows 1 to %d (Eq. 3-1)", threads,
                       d->max_threads_per_block);
    if (regs_per_thread > d->max_regs_per_thread) /* R_RT <= R_MRT */
        return cp_fail(err, NULL, NULL, "%d registers per thread: the device allows at most %d", regs_per_thread,
                       d->max_regs_per_thread);
    if (smem_per_block > d->smem_per_block) /* Eq. 3-7 */
        return cp_fail(err, NULL, NULL, "%d bytes of shared memory per block: the device allows at most %d (Eq. 3-7)",
                       smem_per_block, d->smem_per_block);
    int wpb = (threads + d->warp_size - 1) / d->warp_size; /* N_WB */
    o->warps_per_block = wpb;

    o->by_threads = d->max_threads_per_sm / (wpb * d->warp_size); /* Eq. 3-2 */
    o->by_blocks = d->max_blocks_per_sm;                           /* Eq. 3-3 */
    o->by_warps = d->max_warps_per_sm / wpb;                       /* Eq. 3-4, 3-5 */

    /* Eq. 3-13/3-14: registers are allocated per warp in units. */
    int regs = regs_per_thread > 0 ? regs_per_thread : 1;
    int regs_per_warp = round_up(regs * d->warp_size, d->reg_alloc_unit);
    long long regs_per_block = (long long)regs_per_warp * wpb;
    if (regs_per_block > d->regs_per_block) /* Eq. 3-12, 3-15 */
        return cp_fail(err, NULL, NULL,
                       "%d threads x %d registers need %lld registers per block: the device allows %d (Eq. 3-12)",
                       threads, regs_per_thread, regs_per_block, d->regs_per_block);
    o->by_regs = (int)(d->regs_per_sm / regs_per_block);

    /* Eq. 3-8/3-9: shared memory, with the runtime's per-block reservation. */
    int smem = round_up(smem_per_block + d->smem_reserved_per_block, d->smem_alloc_unit);
    o->by_smem = smem > 0 ? d->smem_per_sm / smem : d->max_blocks_per_sm;

    int best = o->by_threads;
    o->limiter = CP_LIMIT_THREADS;
    const int bounds[] = {o->by_blocks, o->by_warps, o->by_regs, o->by_smem};
    const cp_limiter which[] = {CP_LIMIT_BLOCKS, CP_LIMIT_WARPS, CP_LIMIT_REGS, CP_LIMIT_SMEM};
    for (int i = 0; i < 4; i++)
        if (bounds[i] < best) {
            best = bounds[i];
            o->limiter = which[i];
        }
    if (best < 1)
        return cp_fail(err, NULL, NULL, "a block of %d threads does not fit on one SM (limited by %s)", threads,
                       cp_limiter_name(o->limiter));
    o->blocks_per_sm = best;
    o->active_warps = best * wpb;
    o->occupancy = (double)o->active_warps / d->max_warps_per_sm;
    return 0;
}
