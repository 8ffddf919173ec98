/* calib_fit: the message-size sweeps of cnnperf-calibrate (host link,
 * NCCL all-reduce, MPI ping-pong), their latency/bandwidth fit, the
 * nccl-tests style table and their JSON.
 *
 * Units: bytes; time in microseconds; bandwidth in GB/s (1e9 bytes/s), as
 * nccl-tests prints it. For a size S and a time t:
 *   algbw = S / t
 *   busbw = algbw x factor, factor = 2(n-1)/n for an all-reduce of n ranks,
 *           1 for a copy or a point-to-point message (nccl-tests' factors). */
#ifndef CAL_FIT_H
#define CAL_FIT_H

#include <stdio.h>

#include <cjson/cJSON.h>

typedef struct {
    double bytes;
    double time_us; /* the sweep's statistic (see cal_sweep.timing) */
    double algbw_gbs, busbw_gbs;
} cal_point;

typedef struct {
    const char *name;   /* "h2d", "nccl_allreduce_out_of_place", ... */
    const char *timing; /* how time_us was obtained, for the JSON */
    double busbw_factor;
    cal_point *p;
    int n, cap;
} cal_sweep;

/* t = L + S / B over a sweep: cp_fit_lat_bw (util/fit.h), with busbw. */
typedef struct {
    int ok, n, latency_clamped;
    double latency_us;    /* L */
    double bandwidth_gbs; /* B, in algbw terms */
    double busbw_gbs;     /* B x busbw_factor */
    double max_rel_error; /* max over the sizes of |fit - t| / t */
} cal_fit;

void cal_sweep_init(cal_sweep *s, const char *name, const char *timing, double busbw_factor);
void cal_sweep_add(cal_sweep *s, double bytes, double time_us);
void cal_sweep_free(cal_sweep *s);

cal_fit cal_fit_sweep(const cal_sweep *s);

/* The sizes of a sweep: min, min x step, ... up to and including max. */
int cal_sizes(double min_bytes, double max_bytes, double step, double *out, int cap);

/* Prints the column legend once (size, time_us, algbw, busbw). */
void cal_print_legend(FILE *f);
/* A table of one sweep, or two of the same sizes side by side (b may be
 * NULL), e.g. NCCL's out-of-place and in-place, then the fit of a. */
void cal_print_table(FILE *f, const char *title, const cal_sweep *a, const cal_sweep *b, const cal_fit *fit);

/* {"timing":..., "busbw_factor":..., "points":[{bytes,time_us,algbw_gbs,busbw_gbs}...]} */
cJSON *cal_sweep_json(const cal_sweep *s);
cJSON *cal_fit_json(const cal_fit *f);

#endif
