#include "system.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../util/fit.h"

const char *cp_flynn_name(cp_flynn f)
{
    static const char *const names[] = {"SISD", "SIMD/SIMT", "MISD", "MIMD", "heterogeneous"};
    return names[f];
}

int cp_system_add_unit(cp_system *s, const char *name, cp_flynn cls, const cp_device *gpu, double gflops,
                       int streams, cp_error *err)
{
    if (s->n_units == CP_MAX_UNITS)
        return cp_fail(err, NULL, NULL, "a system holds at most %d processing units", CP_MAX_UNITS);
    if (cls == CP_SIMD && !gpu)
        return cp_fail(err, NULL, NULL, "unit '%s': a SIMT unit needs a device profile", name);
    if (cls != CP_SIMD && !(gflops > 0))
        return cp_fail(err, NULL, NULL, "unit '%s': compute rate must be positive", name);
    cp_unit *u = &s->units[s->n_units];
    snprintf(u->name, sizeof u->name, "%s", name);
    u->cls = cls;
    u->gpu = gpu;
    u->gflops = gflops;
    u->streams = streams > 0 ? streams : 1;
    return s->n_units++;
}

int cp_system_add_link(cp_system *s, const char *name, double bandwidth_gbs, double latency_us, cp_error *err)
{
    if (s->n_links == CP_MAX_LINKS)
        return cp_fail(err, NULL, NULL, "a system holds at most %d links", CP_MAX_LINKS);
    if (!(bandwidth_gbs > 0) || !isfinite(bandwidth_gbs))
        return cp_fail(err, NULL, NULL, "link '%s': bandwidth must be positive, got %g GB/s", name, bandwidth_gbs);
    if (!(latency_us >= 0) || !isfinite(latency_us))
        return cp_fail(err, NULL, NULL, "link '%s': latency must be zero or positive, got %g us", name, latency_us);
    cp_link *l = &s->links[s->n_links];
    snprintf(l->name, sizeof l->name, "%s", name);
    l->bandwidth_gbs = bandwidth_gbs;
    l->latency_us = latency_us;
    return s->n_links++;
}

int cp_system_single_gpu(cp_system *s, const cp_device *d, cp_error *err)
{
    memset(s, 0, sizeof *s);
    s->cls = CP_HETEROGENEOUS;
    /* The host only enqueues work here; its rate matters for CPU-side tasks
     * such as a parameter server, not for the one-GPU iteration. */
    if (cp_system_add_unit(s, "host CPU", CP_SISD, NULL, 50.0, 1, err) < 0 ||
        cp_system_add_unit(s, d->name, CP_SIMD, d, 0, 1, err) < 0)
        return -1;
    char name[96];
    snprintf(name, sizeof name, "%s host link", d->host_link[0] ? d->host_link : "host");
    if (cp_system_add_link(s, name, d->host_link_bandwidth_gbs, d->host_link_latency_us, err) < 0)
        return -1;
    /* Instructions reach the GPU as kernel launches through the driver's
     * command queue: no volume to speak of, one launch latency per message. */
    if (cp_system_add_link(s, "kernel launch queue", d->host_link_bandwidth_gbs, d->launch_overhead_us, err) < 0)
        return -1;
    return 0;
}

double cp_flynn_combine(cp_flynn f, const double *t, int n)
{
    double r = 0;
    for (int i = 0; i < n; i++)
        r = f == CP_SISD ? r + t[i] : fmax(r, t[i]);
    return r;
}

void cp_link_toward(cp_link *l, const cp_link *steady)
{
    l->bandwidth_gbs = cp_toward(l->bandwidth_gbs, steady->bandwidth_gbs);
    l->latency_us = cp_toward(l->latency_us, steady->latency_us);
    size_t n = strlen(l->name);
    snprintf(l->name + n, sizeof l->name - n, ", moved toward %s", steady->name);
}

double cp_transfer_ms(const cp_link *l, double bytes, int msgs)
{
    return (bytes / (l->bandwidth_gbs * 1e9) + l->latency_us * 1e-6 * msgs) * 1e3;
}

int cp_unit_compute(const cp_unit *u, const cp_kernel *k, cp_kernel_eval *e, cp_error *err)
{
    if (u->cls == CP_SIMD)
        return cp_kernel_evaluate(k, u->gpu, e, err);
    /* A CPU unit: one instruction stream (SISD) or several (MIMD). */
    memset(e, 0, sizeof *e);
    double rate = u->gflops * 1e9 * (u->cls == CP_MIMD ? u->streams : 1);
    e->time_ms = k->flops / rate * 1e3;
    e->bound = CP_BOUND_COMPUTE;
    return 0;
}
