/* fit: t = L + S / B, the latency/bandwidth law of one transfer (Eq. 5-10
 * with one message), fitted to a message-size sweep.
 *
 * Least squares weighted by 1/t^2, so that every size counts by its
 * relative error. A negative L is clamped to 0 and B refitted alone
 * (latency_clamped). Units: bytes, microseconds, GB/s (1e9 bytes/s). */
#ifndef CP_FIT_H
#define CP_FIT_H

#include <math.h>

typedef struct {
    int ok;               /* 0: fewer than two usable points, or B came out non-positive */
    int n;                /* points used (time > 0 and finite) */
    int latency_clamped;
    double latency_us;    /* L */
    double bandwidth_gbs; /* B */
    double max_rel_error; /* max over the points used of |L + S/B - t| / t */
} cp_lat_bw_fit;

cp_lat_bw_fit cp_fit_lat_bw(const double *bytes, const double *time_us, int n);

/* One measurement of a quantity moved toward the median of many of its kind
 * (rules 59 and 60: one sample of a host whose speed moves): their geometric
 * mean, or their mean where either is 0. */
static inline double cp_toward(double one, double many)
{
    return one > 0 && many > 0 ? sqrt(one * many) : 0.5 * (one + many);
}

#endif
