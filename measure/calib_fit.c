#include "calib_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib_check.h"
#include "fit.h"

void cal_sweep_init(cal_sweep *s, const char *name, const char *timing, double busbw_factor)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->timing = timing;
    s->busbw_factor = busbw_factor;
}

void cal_sweep_add(cal_sweep *s, double bytes, double time_us)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 32;
        cal_point *p = realloc(s->p, (size_t)cap * sizeof *p);
        if (!p)
            cal_die("out of host memory adding to sweep %s", s->name);
        s->p = p;
        s->cap = cap;
    }
    cal_point *q = &s->p[s->n++];
    q->bytes = bytes;
    q->time_us = time_us;
    q->algbw_gbs = time_us > 0 ? bytes / (time_us * 1e3) : 0; /* bytes/us = MB/s; /1e3 = GB/s */
    q->busbw_gbs = q->algbw_gbs * s->busbw_factor;
}

void cal_sweep_free(cal_sweep *s)
{
    free(s->p);
    s->p = NULL;
    s->n = s->cap = 0;
}

cal_fit cal_fit_sweep(const cal_sweep *s)
{
    cal_fit f;
    memset(&f, 0, sizeof f);
    double *bytes = malloc((size_t)(s->n ? s->n : 1) * sizeof *bytes);
    double *us = malloc((size_t)(s->n ? s->n : 1) * sizeof *us);
    if (!bytes || !us)
        cal_die("out of host memory fitting sweep %s", s->name);
    for (int i = 0; i < s->n; i++)
        bytes[i] = s->p[i].bytes, us[i] = s->p[i].time_us;
    cp_lat_bw_fit g = cp_fit_lat_bw(bytes, us, s->n);
    free(bytes);
    free(us);
    f.ok = g.ok;
    f.n = g.n;
    f.latency_clamped = g.latency_clamped;
    f.latency_us = g.latency_us;
    f.bandwidth_gbs = g.bandwidth_gbs;
    f.busbw_gbs = g.bandwidth_gbs * s->busbw_factor;
    f.max_rel_error = g.max_rel_error;
    return f;
}

int cal_sizes(double min_bytes, double max_bytes, double step, double *out, int cap)
{
    int n = 0;
    if (!(step > 1))
        step = 2;
    for (double s = min_bytes; s <= max_bytes * (1 + 1e-9) && n < cap; s *= step)
        out[n++] = floor(s + 0.5);
    return n;
}

void cal_print_legend(FILE *f)
{
    fprintf(f, "# Columns of every table below (nccl-tests' definitions):\n"
               "#   size     bytes per rank (one direction for a copy or a message)\n"
               "#   time_us  time of one operation in microseconds (the table's title says which statistic)\n"
               "#   algbw    size / time_us, GB/s (1e9 bytes/s)\n"
               "#   busbw    algbw x 2(n-1)/n for an all-reduce of n ranks; algbw for copies and messages\n");
}

static void size_text(double b, char *buf, size_t n)
{
    if (b >= 1 << 30 && fmod(b, 1 << 30) == 0)
        snprintf(buf, n, "%.0fG", b / (1 << 30));
    else if (b >= 1 << 20 && fmod(b, 1 << 20) == 0)
        snprintf(buf, n, "%.0fM", b / (1 << 20));
    else if (b >= 1 << 10 && fmod(b, 1 << 10) == 0)
        snprintf(buf, n, "%.0fK", b / (1 << 10));
    else
        snprintf(buf, n, "%.0f", b);
}

void cal_print_table(FILE *f, const char *title, const cal_sweep *a, const cal_sweep *b, const cal_fit *fit)
{
    fprintf(f, "#\n# %s\n", title);
    if (b)
        fprintf(f, "# %21s   %-34s   %s\n", "", a->name, b->name);
    fprintf(f, "# %14s %6s   %12s %10s %10s", "size", "", "time_us", "algbw", "busbw");
    if (b)
        fprintf(f, "   %12s %10s %10s", "time_us", "algbw", "busbw");
    fputc('\n', f);
    for (int i = 0; i < a->n; i++) {
        char sz[32];
        size_text(a->p[i].bytes, sz, sizeof sz);
        fprintf(f, "  %14.0f %6s   %12.2f %10.2f %10.2f", a->p[i].bytes, sz, a->p[i].time_us, a->p[i].algbw_gbs,
                a->p[i].busbw_gbs);
        if (b && i < b->n)
            fprintf(f, "   %12.2f %10.2f %10.2f", b->p[i].time_us, b->p[i].algbw_gbs, b->p[i].busbw_gbs);
        fputc('\n', f);
    }
    if (fit && fit->ok)
        fprintf(f,
                "# fit t = L + S/B over %d sizes (least squares, weights 1/t^2): L = %.2f us%s, B = %.2f GB/s algbw "
                "(busbw %.2f); worst size off by %.0f%%\n",
                fit->n, fit->latency_us, fit->latency_clamped ? " (clamped at 0)" : "", fit->bandwidth_gbs,
                fit->busbw_gbs, 100 * fit->max_rel_error);
    else if (fit)
        fprintf(f, "# fit t = L + S/B: not possible from these sizes\n");
}

cJSON *cal_sweep_json(const cal_sweep *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "timing", s->timing);
    cJSON_AddNumberToObject(o, "busbw_factor", s->busbw_factor);
    cJSON *arr = cJSON_AddArrayToObject(o, "points");
    for (int i = 0; i < s->n; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "bytes", s->p[i].bytes);
        cJSON_AddNumberToObject(p, "time_us", s->p[i].time_us);
        cJSON_AddNumberToObject(p, "algbw_gbs", s->p[i].algbw_gbs);
        cJSON_AddNumberToObject(p, "busbw_gbs", s->p[i].busbw_gbs);
        cJSON_AddItemToArray(arr, p);
    }
    return o;
}

cJSON *cal_fit_json(const cal_fit *f)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "model", "t = L + S/B, least squares weighted by 1/t^2 over all sizes");
    cJSON_AddBoolToObject(o, "ok", f->ok);
    cJSON_AddNumberToObject(o, "sizes", f->n);
    if (f->ok) {
        cJSON_AddNumberToObject(o, "latency_us", f->latency_us);
        cJSON_AddBoolToObject(o, "latency_clamped_at_0", f->latency_clamped);
        cJSON_AddNumberToObject(o, "bandwidth_gbs", f->bandwidth_gbs);
        cJSON_AddNumberToObject(o, "busbw_gbs", f->busbw_gbs);
        cJSON_AddNumberToObject(o, "max_rel_error", f->max_rel_error);
    }
    return o;
}
