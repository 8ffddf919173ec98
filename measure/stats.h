/* stats: the order statistics both measurement programs report. */
#ifndef CM_STATS_H
#define CM_STATS_H

/* Quantile q in [0, 1] of v[0..n) by linear interpolation between order
 * statistics (v is sorted in place); 0 for n <= 0. */
double cm_quantile(double *v, int n, double q);

#endif
