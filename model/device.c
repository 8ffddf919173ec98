/* Device profiles: loading and validation. */
#include "device.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/jsonread.h"
#include "../util/resources.h"

static const char *const precision_names[CP_PREC_COUNT] = {"fp32", "tf32", "fp16", "bf16"};

const char *cp_precision_name(cp_precision p)
{
    return p < CP_PREC_COUNT ? precision_names[p] : "?";
}

int cp_precision_parse(const char *s, cp_precision *p)
{
    for (int i = 0; i < CP_PREC_COUNT; i++)
        if (strcmp(s, precision_names[i]) == 0) {
            *p = (cp_precision)i;
            return 0;
        }
    return -1;
}

int cp_precision_bytes(cp_precision p)
{
    return p == CP_PREC_FP16 || p == CP_PREC_BF16 ? 2 : 4;
}

typedef struct {
    const char *key;
    size_t offset;
    int is_int;
    double min, max;
    int optional; /* default used when absent */
    double def;
} field;

#define I(k, lo, hi) {#k, offsetof(cp_device, k), 1, lo, hi, 0, 0}
#define D(k, lo, hi) {#k, offsetof(cp_device, k), 0, lo, hi, 0, 0}
static const field fields[] = {
    I(warp_size, 1, 64),
    I(sm_count, 1, 4096),
    I(max_threads_per_sm, 32, 1 << 16),
    I(max_threads_per_block, 32, 1 << 16),
    I(max_blocks_per_sm, 1, 1024),
    I(max_warps_per_sm, 1, 4096),
    {"schedulers_per_sm", offsetof(cp_device, schedulers_per_sm), 1, 1, 64, 1, 4},
    I(regs_per_sm, 1024, 1 << 24),
    I(regs_per_block, 1024, 1 << 24),
    I(max_regs_per_thread, 16, 4096),
    I(reg_alloc_unit, 1, 4096),
    I(smem_per_sm, 1024, 1 << 26),
    I(smem_per_block, 1024, 1 << 26),
    I(smem_alloc_unit, 1, 1 << 16),
    I(smem_reserved_per_block, 0, 1 << 20),
    D(core_clock_mhz, 1, 1e5),
    D(fp32_lanes_per_sm, 1, 1e5),
    D(fp32_tflops, 1e-3, 1e6),
    {"tensor_tflops_tf32", offsetof(cp_device, tensor_tflops) + CP_PREC_TF32 * sizeof(double), 0, 0, 1e6, 0, 0},
    {"tensor_tflops_fp16", offsetof(cp_device, tensor_tflops) + CP_PREC_FP16 * sizeof(double), 0, 0, 1e6, 0, 0},
    {"tensor_tflops_bf16", offsetof(cp_device, tensor_tflops) + CP_PREC_BF16 * sizeof(double), 0, 0, 1e6, 0, 0},
    D(smem_bytes_per_clock, 1, 1e5),
    D(dram_bandwidth_gbs, 1e-3, 1e7),
    D(dram_efficiency, 0.01, 1),
    D(dram_size_gb, 1e-3, 1e6),
    {"dram_usable_gib", offsetof(cp_device, dram_usable_gib), 0, 1e-3, 1e6, 1, 0},
    {"runtime_memory_mib", offsetof(cp_device, runtime_memory_mib), 0, 0, 1e6, 1, 0},
    D(l2_size_mb, 0, 1e6),
    D(l2_bandwidth_gbs, 1e-3, 1e8),
    D(global_latency_cycles, 0, 1e6),
    D(launch_overhead_us, 0, 1e6),
    D(host_link_bandwidth_gbs, 1e-3, 1e6),
    D(host_link_latency_us, 0, 1e6),
};
#undef I
#undef D

static int get_text(cp_jctx *c, const cJSON *root, const char *key, int required, char *dst, size_t n)
{
    const char *s = NULL;
    if (cp_jstr(c, root, key, required, &s))
        return -1;
    snprintf(dst, n, "%s", s ? s : "");
    return 0;
}

/* "nccl_overlap": {"compute_bound": {"work_rate", "allreduce_rate"},
 * "memory_bound": {...}, "source"}: rates in (0, 1]. */
static int parse_nccl_overlap(cp_jctx *c, const cJSON *o, cp_device *d)
{
    static const char *const kinds[2] = {"compute_bound", "memory_bound"};
    static const char *const known[] = {"compute_bound", "memory_bound", "source", NULL};
    size_t mark = cp_jpush_key(c, "nccl_overlap");
    int rc = !cJSON_IsObject(o) ? cp_jfail(c, NULL, "must be an object {compute_bound, memory_bound, source}")
                                : cp_jonly(c, o, known);
    for (int k = 0; k < 2 && !rc; k++) {
        const cJSON *w = cp_jget(o, kinds[k]);
        size_t m = cp_jpush_key(c, kinds[k]);
        if (!cJSON_IsObject(w))
            rc = cp_jfail(c, NULL, "missing or not an object {work_rate, allreduce_rate}");
        else
            rc = cp_jnum(c, w, "work_rate", true, 1, 0.01, 1, &d->nccl_overlap.work_rate[k]) ||
                 cp_jnum(c, w, "allreduce_rate", true, 1, 0.01, 1, &d->nccl_overlap.allreduce_rate[k]);
        cp_jpop(c, m);
    }
    const cJSON *src = rc ? NULL : cp_jget(o, "source");
    if (cJSON_IsString(src))
        snprintf(d->nccl_overlap.source, sizeof d->nccl_overlap.source, "%s", src->valuestring);
    cp_jpop(c, mark);
    d->nccl_overlap.loaded = !rc;
    return rc;
}

/* "legacy_host": {"issue_per_conv_call_us": {"p10", "median", "p90"}, "runs", "source"} */
static int parse_legacy_host(cp_jctx *c, const cJSON *o, cp_device *d)
{
    static const char *const q[3] = {"p10", "median", "p90"};
    static const char *const known[] = {"issue_per_conv_call_us", "runs", "source", NULL};
    size_t mark = cp_jpush_key(c, "legacy_host");
    double runs = 0;
    int rc = !cJSON_IsObject(o) ? cp_jfail(c, NULL, "must be an object {issue_per_conv_call_us, runs, source}")
                                : cp_jonly(c, o, known) || cp_jnum(c, o, "runs", true, 0, 1, 1e9, &runs);
    const cJSON *u = rc ? NULL : cp_jget(o, "issue_per_conv_call_us");
    if (!rc && !cJSON_IsObject(u))
        rc = cp_jfail(c, "issue_per_conv_call_us", "missing or not an object {p10, median, p90}");
    if (!rc) {
        size_t m = cp_jpush_key(c, "issue_per_conv_call_us");
        for (int i = 0; i < 3 && !rc; i++)
            rc = cp_jnum(c, u, q[i], true, 0, 0.1, 1e6, &d->legacy_host.issue_us[i]);
        if (!rc && !(d->legacy_host.issue_us[0] <= d->legacy_host.issue_us[1] &&
                     d->legacy_host.issue_us[1] <= d->legacy_host.issue_us[2]))
            rc = cp_jfail(c, NULL, "must have p10 <= median <= p90");
        cp_jpop(c, m);
    }
    const cJSON *src = rc ? NULL : cp_jget(o, "source");
    if (cJSON_IsString(src))
        snprintf(d->legacy_host.source, sizeof d->legacy_host.source, "%s", src->valuestring);
    cp_jpop(c, mark);
    d->legacy_host.runs = (int)runs;
    d->legacy_host.loaded = !rc;
    return rc;
}

int cp_device_parse(const char *text, size_t len, const char *file, cp_device *d, cp_error *err)
{
    memset(d, 0, sizeof *d);
    snprintf(d->file, sizeof d->file, "%s", file);
    cJSON *root = cp_json_parse(text, len, file, err);
    if (!root)
        return -1;
    cp_jctx c = {.file = file, .path = "$", .err = err};
    int rc = -1;
    const char *format = NULL;
    if (!cJSON_IsObject(root)) {
        cp_jfail(&c, NULL, "a device profile must be a JSON object");
        goto done;
    }
    if (cp_jstr(&c, root, "format", true, &format))
        goto done;
    if (strcmp(format, "cnnperf-device/1") != 0) {
        cp_jfail(&c, "format", "unsupported format '%s' (expected 'cnnperf-device/1')", format);
        goto done;
    }
    if (get_text(&c, root, "id", 1, d->id, sizeof d->id) || get_text(&c, root, "name", 1, d->name, sizeof d->name) ||
        get_text(&c, root, "compute_capability", 0, d->compute_capability, sizeof d->compute_capability) ||
        get_text(&c, root, "host_link", 0, d->host_link, sizeof d->host_link))
        goto done;
    for (const cJSON *it = root->child; it; it = it->next) {
        static const char *const text_keys[] = {"format", "id", "name", "compute_capability", "host_link",
                                                "description", "eager", "nccl_overlap", "legacy_host", NULL};
        int known = 0;
        for (const char *const *k = text_keys; *k && !known; k++)
            known = strcmp(*k, it->string) == 0;
        for (size_t i = 0; i < sizeof fields / sizeof fields[0] && !known; i++)
            known = strcmp(fields[i].key, it->string) == 0;
        if (!known) {
            cp_jfail(&c, it->string, "unknown field");
            goto done;
        }
    }
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const field *f = &fields[i];
        char *dst = (char *)d + f->offset;
        int required = !f->optional && strncmp(f->key, "tensor_", 7) != 0;
        if (f->is_int) {
            long long v;
            if (cp_jint(&c, root, f->key, required, (long long)f->def, (long long)f->min, (long long)f->max, &v))
                goto done;
            *(int *)dst = (int)v;
        } else {
            double v;
            if (cp_jnum(&c, root, f->key, required, f->def, f->min, f->max, &v))
                goto done;
            *(double *)dst = v;
        }
    }
    const cJSON *eager = cp_jget(root, "eager");
    if (eager) {
        size_t mark = cp_jpush_key(&c, "eager");
        int bad = cp_eager_costs_parse(&c, eager, &d->eager);
        cp_jpop(&c, mark);
        if (bad)
            goto done;
    }
    const cJSON *co = cp_jget(root, "nccl_overlap");
    if (co && parse_nccl_overlap(&c, co, d))
        goto done;
    const cJSON *lh = cp_jget(root, "legacy_host");
    if (lh && parse_legacy_host(&c, lh, d))
        goto done;
    /* Consistency the model relies on. */
    if (d->max_warps_per_sm * d->warp_size != d->max_threads_per_sm) {
        cp_jfail(&c, "max_warps_per_sm", "must equal max_threads_per_sm / warp_size (Eq. 3-4): %d x %d != %d",
                 d->max_warps_per_sm, d->warp_size, d->max_threads_per_sm);
        goto done;
    }
    if (d->max_threads_per_block > d->max_threads_per_sm) {
        cp_jfail(&c, "max_threads_per_block", "exceeds max_threads_per_sm");
        goto done;
    }
    if (d->smem_per_block > d->smem_per_sm) {
        cp_jfail(&c, "smem_per_block", "exceeds smem_per_sm");
        goto done;
    }
    d->cycles_per_ms = d->core_clock_mhz * 1e3;
    d->l2_bytes_per_cycle = d->l2_bandwidth_gbs * 1e9 / (d->sm_count * d->core_clock_mhz * 1e6);
    d->dram_bytes_per_cycle = d->dram_bandwidth_gbs * 1e9 * d->dram_efficiency / (d->core_clock_mhz * 1e6);
    d->launch_cycles = d->launch_overhead_us * d->core_clock_mhz;
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}

static int parse_device(const char *text, size_t len, const char *file, void *d, cp_error *err)
{
    return cp_device_parse(text, len, file, d, err);
}

int cp_device_id_from_name(const char *gpu_name, char *id, size_t size)
{
    char flat[256];
    size_t k = 0;
    for (const char *p = gpu_name; *p && k + 1 < sizeof flat; p++)
        if (!isspace((unsigned char)*p))
            flat[k++] = (char)tolower((unsigned char)*p);
    flat[k] = 0;
    if (strstr(flat, "gh200"))
        return -1;
    size_t best = 0;
    for (size_t i = 0; i < cp_resource_count; i++) {
        const cp_resource *r = &cp_resources[i];
        size_t len = strlen(r->name);
        if (strcmp(r->dir, "devices") == 0 && len > best && strstr(flat, r->name)) {
            snprintf(id, size, "%s", r->name);
            best = len;
        }
    }
    return best ? 0 : -1;
}

int cp_device_load(const char *spec, cp_device *d, cp_error *err)
{
    memset(d, 0, sizeof *d);
    if (cp_resource_load("devices", "device", spec, parse_device, d, err))
        return -1;
    const char *cal = cp_calibration_default();
    if (strcmp(cal, "none") == 0)
        return 0;
    if (strcmp(cal, "auto") == 0) {
        /* calibration/<id> when one is embedded; a device nobody calibrated stays analytic */
        char graph[sizeof d->id + 8];
        snprintf(graph, sizeof graph, "%s-graph", d->id);
        if (cp_resource_find("calibration", graph) && cp_calibration_load(graph, &d->calib_graph, err))
            return -1;
        if (!cp_resource_find("calibration", d->id))
            return 0;
        cal = d->id;
    }
    return cp_calibration_load(cal, &d->calib, err);
}

double cp_device_peak_flops(const cp_device *d, cp_precision p)
{
    if (p != CP_PREC_FP32 && d->tensor_tflops[p] > 0)
        return d->tensor_tflops[p] * 1e12;
    return d->fp32_tflops * 1e12;
}

int cp_device_supports(const cp_device *d, cp_precision p)
{
    /* TF32 exists only as a tensor-core format; FP16/BF16 storage can always
     * fall back to FP32 arithmetic, as cuDNN does on GPUs without tensor cores. */
    return p != CP_PREC_TF32 || d->tensor_tflops[CP_PREC_TF32] > 0;
}
