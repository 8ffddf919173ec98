#include "fit.h"

#include <math.h>
#include <string.h>

cp_lat_bw_fit cp_fit_lat_bw(const double *bytes, const double *time_us, int n)
{
    /* Unknowns L (us) and x = 1/B (us per byte): minimise sum w (t - L - S x)^2, w = 1/t^2. */
    cp_lat_bw_fit f;
    memset(&f, 0, sizeof f);
    double sw = 0, ss = 0, sss = 0, st = 0, sst = 0;
    for (int i = 0; i < n; i++) {
        double t = time_us[i], S = bytes[i];
        if (!(t > 0) || !isfinite(t))
            continue;
        double w = 1.0 / (t * t);
        sw += w, ss += w * S, sss += w * S * S, st += w * t, sst += w * S * t;
        f.n++;
    }
    if (f.n < 2)
        return f;
    double det = sw * sss - ss * ss;
    double L = 0, x = 0;
    if (det > 0) {
        L = (sss * st - ss * sst) / det;
        x = (sw * sst - ss * st) / det;
    }
    if (!(det > 0) || L < 0) {
        L = 0;
        x = sss > 0 ? sst / sss : 0;
        f.latency_clamped = 1;
    }
    if (!(x > 0))
        return f;
    f.ok = 1;
    f.latency_us = L;
    f.bandwidth_gbs = 1.0 / (x * 1e3);
    for (int i = 0; i < n; i++) {
        double t = time_us[i];
        if (t > 0 && isfinite(t)) {
            double e = fabs(L + bytes[i] * x - t) / t;
            if (e > f.max_rel_error)
                f.max_rel_error = e;
        }
    }
    return f;
}
