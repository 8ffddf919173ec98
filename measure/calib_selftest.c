#include "calib_selftest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/device.h"
#include "../util/atomic_file.h"
#include "../util/resources.h"
#include "calib_fit.h"
#include "calib_profile.h"

static int failures;

static void expect(int ok, const char *what, double got, double want)
{
    if (!ok) {
        fprintf(stderr, "cnnperf-calibrate: self-test FAILED: %s: got %.9g, expected %.9g\n", what, got, want);
        failures++;
    }
}

static int near(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fabs(b);
}

static void check_fits(void)
{
    double sizes[64];
    int n = cal_sizes(8, 1073741824.0, 2, sizes, 64);
    expect(n == 28 && sizes[n - 1] == 1073741824.0, "sizes 8 B..1 GiB x2: count", n, 28);
    int n4 = cal_sizes(8, 1073741824.0, 4, sizes, 64);
    expect(n4 == 14 && sizes[n4 - 1] == 536870912.0, "sizes 8 B..1 GiB x4: count", n4, 14);
    n = cal_sizes(8, 1073741824.0, 2, sizes, 64);

    /* Exact data: the fit must give L and B back. */
    const double L = 9.5, B = 52.0; /* us, GB/s */
    cal_sweep s;
    cal_sweep_init(&s, "exact", "synthetic", 1);
    for (int i = 0; i < n; i++)
        cal_sweep_add(&s, sizes[i], L + sizes[i] / (B * 1e3));
    cal_fit f = cal_fit_sweep(&s);
    expect(f.ok && near(f.latency_us, L, 1e-6), "exact fit: latency_us", f.latency_us, L);
    expect(f.ok && near(f.bandwidth_gbs, B, 1e-6), "exact fit: bandwidth_gbs", f.bandwidth_gbs, B);
    expect(f.max_rel_error < 1e-9, "exact fit: max_rel_error", f.max_rel_error, 0);
    expect(near(s.p[n - 1].algbw_gbs, 1073741824.0 / ((L + 1073741824.0 / (B * 1e3)) * 1e3), 1e-12), "algbw = S / t",
           s.p[n - 1].algbw_gbs, 0);
    cal_sweep_free(&s);

    /* All-reduce of 8 ranks: busbw = algbw x 2(n-1)/n = 1.75 algbw. Noise of
     * +-5% alternating: the fit stays within a few percent. */
    cal_sweep a;
    cal_sweep_init(&a, "allreduce", "synthetic", 2.0 * 7 / 8);
    for (int i = 0; i < n; i++)
        cal_sweep_add(&a, sizes[i], (20.0 + sizes[i] / (200.0 * 1e3)) * (i % 2 ? 1.05 : 0.95));
    f = cal_fit_sweep(&a);
    expect(near(a.p[3].busbw_gbs, 1.75 * a.p[3].algbw_gbs, 1e-12), "busbw factor", a.p[3].busbw_gbs,
           1.75 * a.p[3].algbw_gbs);
    expect(f.ok && near(f.latency_us, 20.0, 0.06), "noisy fit: latency_us", f.latency_us, 20.0);
    expect(f.ok && near(f.bandwidth_gbs, 200.0, 0.06), "noisy fit: bandwidth_gbs", f.bandwidth_gbs, 200.0);
    expect(near(f.busbw_gbs, 1.75 * f.bandwidth_gbs, 1e-12), "fit busbw", f.busbw_gbs, 1.75 * f.bandwidth_gbs);
    expect(f.max_rel_error > 0.04 && f.max_rel_error < 0.12, "noisy fit: max_rel_error", f.max_rel_error, 0.05);

    /* The nccl-tests style table, so its look is checked too. */
    cal_sweep b;
    cal_sweep_init(&b, "in-place", "synthetic", 2.0 * 7 / 8);
    for (int i = 0; i < n; i++)
        cal_sweep_add(&b, sizes[i], a.p[i].time_us * 1.01);
    a.name = "out-of-place";
    cal_print_legend(stdout);
    cal_print_table(stdout, "synthetic all-reduce, 8 ranks (self-test, not a measurement)", &a, &b, &f);
    cal_sweep_free(&a);
    cal_sweep_free(&b);

    /* Times that fall faster than linear: L would be negative, so L = 0. */
    cal_sweep c;
    cal_sweep_init(&c, "clamped", "synthetic", 1);
    cal_sweep_add(&c, 1e3, 0.001);
    cal_sweep_add(&c, 1e6, 10.0);
    cal_sweep_add(&c, 1e9, 20000.0);
    f = cal_fit_sweep(&c);
    expect(f.ok && f.latency_clamped && f.latency_us == 0, "negative latency clamped at 0", f.latency_us, 0);
    cal_sweep_free(&c);

    cal_sweep d;
    cal_sweep_init(&d, "one", "synthetic", 1);
    cal_sweep_add(&d, 8, 3);
    f = cal_fit_sweep(&d);
    expect(!f.ok, "one size: no fit", f.ok, 0);
    cal_sweep_free(&d);
}

static void check_names(void)
{
    static const struct {
        const char *name, *id;
    } cases[] = {
        {"NVIDIA H100 80GB HBM3", "h100"},
        {"NVIDIA H100 PCIe", "h100"},
        {"NVIDIA H200", "h200"},
        {"NVIDIA A100-SXM4-80GB", "a100"},
        {"Tesla V100-SXM2-16GB", "v100"},
        {"NVIDIA GeForce GTX 1080 Ti", "gtx1080ti"},
        {"NVIDIA GeForce GTX 1080", "gtx1080"},
        {"NVIDIA GH200 480GB", NULL},
        {"NVIDIA L40S", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char id[64] = "";
        int rc = cp_device_id_from_name(cases[i].name, id, sizeof id);
        int ok = cases[i].id ? rc == 0 && strcmp(id, cases[i].id) == 0 : rc == -1;
        if (!ok) {
            fprintf(stderr, "cnnperf-calibrate: self-test FAILED: GPU name '%s' matched '%s', expected '%s'\n",
                    cases[i].name, rc ? "(none)" : id, cases[i].id ? cases[i].id : "(none)");
            failures++;
        }
    }
}

static void synthetic_results(cal_device_results *r)
{
    memset(r, 0, sizeof *r);
    static const char *const prec[CAL_GEMM_KINDS] = {"fp32", "tf32", "fp16", "bf16", "fp32_pedantic"};
    static const double tflops[CAL_GEMM_KINDS] = {51.23456, 378.9, 702.1, 711.7, 50.9};
    for (int k = 0; k < CAL_GEMM_KINDS; k++) {
        cal_gemm *g = &r->gemm[k];
        g->done = 1;
        g->precision = prec[k];
        g->compute_type = "CUBLAS_COMPUTE_32F";
        g->math_mode = "CUBLAS_DEFAULT_MATH";
        g->size = 8192;
        g->best_layout = "TN";
        g->trials = 5;
        g->reps = 10;
        g->tflops = tflops[k];
        g->best_ms = 2.0 * 8192.0 * 8192.0 * 8192.0 / (tflops[k] * 1e12) * 1e3;
        g->median_ms = g->best_ms * 1.01;
    }
    r->mem = (cal_membw){1, 1073741824.0, 2890, 3010, 3050};
    r->launch = (cal_launch){1, 2000, 1.21, 1.3, 2.2, 6.5};
    r->lat = (cal_latency){1, 100000, 256, 12.5 * 1048576, 400 * 1048576, 290, 510, 640, 1130};
    cal_hostlink *h = &r->host;
    h->done = 1;
    cal_sweep_init(&h->h2d, "host_to_device", "synthetic", 1);
    cal_sweep_init(&h->d2h, "device_to_host", "synthetic", 1);
    double sizes[64];
    int n = cal_sizes(8, 1073741824.0, 2, sizes, 64);
    for (int i = 0; i < n; i++) {
        cal_sweep_add(&h->h2d, sizes[i], 7.0 + sizes[i] / (53.0e3));
        cal_sweep_add(&h->d2h, sizes[i], 8.0 + sizes[i] / (55.0e3));
    }
    h->h2d_fit = cal_fit_sweep(&h->h2d);
    h->d2h_fit = cal_fit_sweep(&h->d2h);
    h->tiny_h2d_us = h->h2d.p[0].time_us;
    h->tiny_d2h_us = h->d2h.p[0].time_us;
}

/* The profile of every built-in device: built, printed, parsed back by the
 * predictor's loader, the measured fields as expected. */
static void check_profiles(const char *out_path)
{
    cal_device_results r;
    synthetic_results(&r);
    cal_stamp st = {"2026-01-01T00:00:00Z", "Synthetic GPU", "000.00", "13.0", "self-test", 1, 0};
    /* co-execution: GEMM 2.0 ms alone, 2.5 beside (0.8), its all-reduces 100 us and 400 (0.25);
     * the copy 0.25 and 0.3125 ms (0.8), its all-reduces 100 and 200 us (0.5) */
    cal_overlap ov = {.done = 1, .ranks = 2, .bytes = 33554432.0,
                      .w = {[CAL_OVERLAP_GEMM] = {"gemm_fp32", 2.0, 2.5, 100, 400},
                            [CAL_OVERLAP_COPY] = {"copy", 0.25, 0.3125, 100, 200}}};
    for (size_t i = 0; i < cp_resource_count; i++) {
        if (strcmp(cp_resources[i].dir, "devices") != 0)
            continue;
        const char *id = cp_resources[i].name;
        char file[256];
        cp_error err;
        char *base = cal_base_load(id, file, sizeof file, &err);
        if (!base) {
            fprintf(stderr, "cnnperf-calibrate: self-test FAILED: base %s: %s\n", id, err.msg);
            failures++;
            continue;
        }
        cp_device before, after;
        cp_device_parse(base, strlen(base), file, &before, &err);
        cJSON *changes = cJSON_CreateArray();
        cJSON *prof = cal_profile_build(base, file, &r, &st, changes, &err);
        if (prof)
            cal_profile_set_overlap(prof, &ov, &st, changes);
        char *text = prof ? cal_profile_text(prof) : NULL;
        if (!text || cp_device_parse(text, strlen(text), "<self-test profile>", &after, &err)) {
            fprintf(stderr, "cnnperf-calibrate: self-test FAILED: calibrated %s does not load: %s\n", id, err.msg);
            failures++;
        } else {
            char what[128];
            snprintf(what, sizeof what, "%s: fp32_tflops", id);
            expect(after.fp32_tflops == 51.23, what, after.fp32_tflops, 51.23);
            snprintf(what, sizeof what, "%s: tensor_tflops_fp16", id);
            double want16 = before.tensor_tflops[CP_PREC_FP16] > 0 ? 702.1 : before.tensor_tflops[CP_PREC_FP16];
            expect(after.tensor_tflops[CP_PREC_FP16] == want16, what, after.tensor_tflops[CP_PREC_FP16], want16);
            snprintf(what, sizeof what, "%s: dram_efficiency", id);
            double eff = cal_round(fmin(1.0, 3050.0 / before.dram_bandwidth_gbs), 3);
            expect(after.dram_efficiency == eff, what, after.dram_efficiency, eff);
            snprintf(what, sizeof what, "%s: dram_bandwidth_gbs kept", id);
            expect(after.dram_bandwidth_gbs == before.dram_bandwidth_gbs, what, after.dram_bandwidth_gbs,
                   before.dram_bandwidth_gbs);
            snprintf(what, sizeof what, "%s: launch_overhead_us", id);
            expect(after.launch_overhead_us == 1.21, what, after.launch_overhead_us, 1.21);
            snprintf(what, sizeof what, "%s: global_latency_cycles", id);
            double lat = cal_round(640 * before.core_clock_mhz * 1e-3, 3);
            expect(after.global_latency_cycles == lat, what, after.global_latency_cycles, lat);
            snprintf(what, sizeof what, "%s: host_link_bandwidth_gbs", id);
            expect(near(after.host_link_bandwidth_gbs, 54.0, 1e-3), what, after.host_link_bandwidth_gbs, 54.0);
            snprintf(what, sizeof what, "%s: host_link_latency_us", id);
            expect(near(after.host_link_latency_us, 7.5, 1e-3), what, after.host_link_latency_us, 7.5);
            snprintf(what, sizeof what, "%s: nccl_overlap", id);
            expect(after.nccl_overlap.loaded && after.nccl_overlap.work_rate[0] == 0.8 &&
                       after.nccl_overlap.allreduce_rate[0] == 0.25 && after.nccl_overlap.work_rate[1] == 0.8 &&
                       after.nccl_overlap.allreduce_rate[1] == 0.5,
                   what, after.nccl_overlap.allreduce_rate[1], 0.5);
            snprintf(what, sizeof what, "%s: id kept", id);
            expect(strcmp(after.id, before.id) == 0, what, 0, 0);
            snprintf(what, sizeof what, "%s: sm_count kept", id);
            expect(after.sm_count == before.sm_count, what, after.sm_count, before.sm_count);
            if (strcmp(id, "h100") == 0 && out_path) {
                cp_error werr;
                cp_atomic_file f;
                if (cp_atomic_open(&f, out_path, &werr) == 0) {
                    fputs(text, f.f);
                    if (cp_atomic_commit(&f, &werr) == 0)
                        fprintf(stderr, "cnnperf-calibrate: self-test: wrote the synthetic h100 profile to %s\n",
                                out_path);
                    else
                        failures++, fprintf(stderr, "cnnperf-calibrate: self-test: %s\n", werr.msg);
                } else {
                    failures++, fprintf(stderr, "cnnperf-calibrate: self-test: %s\n", werr.msg);
                }
            }
        }
        free(text);
        cJSON_Delete(prof);
        cJSON_Delete(changes);
        free(base);
    }
    cal_sweep_free(&r.host.h2d);
    cal_sweep_free(&r.host.d2h);
}

int cal_self_test(const char *out_path)
{
    failures = 0;
    check_fits();
    check_names();
    check_profiles(out_path);
    if (failures) {
        fprintf(stderr, "cnnperf-calibrate: self-test: %d check%s failed\n", failures, failures > 1 ? "s" : "");
        return 1;
    }
    fprintf(stderr, "cnnperf-calibrate: self-test passed (fit, sizes, GPU names, a calibrated profile of every "
                    "built-in device parsed back by the predictor's loader)\n");
    return 0;
}
