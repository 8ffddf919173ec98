#include "stats.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cm_quantile(double *v, int n, double q)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double pos = q * (n - 1);
    int lo = (int)pos;
    if (lo >= n - 1)
        return v[n - 1];
    return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}
