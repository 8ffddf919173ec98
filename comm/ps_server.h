/* ps_server: a CPU parameter server's own pass over its shard (the sum of
 * the workers' gradients and SGD with momentum), as the PS model times it
 * (comm/ps.c), and the one rule of cnnperf-measure's server (measure/ps.c)
 * both sides keep: a chunk of fewer than CP_PS_SERIAL_ELEMS parameters is
 * summed on one thread, a larger one on all the server's threads. No
 * dependencies, so the measurement side includes it too. */
#ifndef CP_PS_SERVER_H
#define CP_PS_SERVER_H

#define CP_PS_SERIAL_ELEMS 65536

/* Whether a chunk of `elems` parameters is summed on one thread. */
static inline int cp_ps_server_one_thread(double elems)
{
    return elems < CP_PS_SERIAL_ELEMS;
}

/* Rates in GB/s of the bytes the pass moves (gradients read, FP32
 * parameters and momentum read and written), per gradient type (FP32,
 * FP16, BF16). gbs: on the server's `threads` threads (0: not measured,
 * the host memory's bandwidth instead); serial_gbs: on one thread, the
 * pass of a small chunk (0: not measured, gbs / threads instead). */
typedef struct {
    double gbs[3];
    double serial_gbs[3];
    int threads;
} cp_ps_server;

/* The rate of a chunk of `elems` parameters with gradients of type t; 0
 * where nothing is measured. threads: what the server has where s->threads
 * is not known (0). */
static inline double cp_ps_server_rate(const cp_ps_server *s, int t, double elems, int threads)
{
    if (s->threads > 0)
        threads = s->threads;
    if (!(s->gbs[t] > 0))
        return 0;
    if (!cp_ps_server_one_thread(elems))
        return s->gbs[t];
    if (s->serial_gbs[t] > 0)
        return s->serial_gbs[t];
    return threads > 1 ? s->gbs[t] / threads : s->gbs[t];
}

#endif
