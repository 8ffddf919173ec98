/* The block-size advisor (dissertation chapter 3): one per-thread kernel
 * description, instantiated for every block size and run through the
 * occupancy model (Eq. 3-1...3-15) and the instruction-queue model with
 * latency hiding (Eq. 3-16...3-23) and coalescing (Eq. 3-24...3-26). */
#include "advisor.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/csv.h"
#include "../util/jsonread.h"
#include "../util/jsonwrite.h"

#define TIE_TOLERANCE 0.005 /* sizes within 0.5 % of the fastest count as equally fast */

/* --- loading ---------------------------------------------------------------- */

static int spec_fields(cp_jctx *c, const cJSON *root, cp_kernel_spec *s)
{
    static const char *const known[] = {
        "format", "name", "description", "total_threads", "regs_per_thread", "smem_per_thread",
        "smem_per_block_fixed", "iterations", "global_loads", "shared_loads", "compute", "global_stores", "other",
        "bytes_per_access", "coalesced_ratio", "coalesced_requests", "uncoalesced_requests", "precision",
        "dram_bytes", NULL};
    const char *format = NULL, *name = NULL, *desc = NULL, *prec = NULL;
    long long regs, bpa;
    /* The format first: a network or device file given by mistake should
     * be named as such, not by its first unknown field. */
    if (cp_jstr(c, root, "format", true, &format))
        return -1;
    if (strcmp(format, CP_KERNEL_SPEC_FORMAT) != 0)
        return cp_jfail(c, "format", "unsupported format '%s' (expected '%s')", format, CP_KERNEL_SPEC_FORMAT);
    if (cp_jonly(c, root, known))
        return -1;
    if (cp_jstr(c, root, "name", true, &name) || cp_jstr(c, root, "description", false, &desc))
        return -1;
    snprintf(s->name, sizeof s->name, "%s", name);

    /* Sizes: the problem and the per-thread resources of Tables 3-1 and 3-2.
     * The device decides later which of them fit; here only sanity. */
    if (cp_jint(c, root, "total_threads", true, 0, 1, 1000000000000000LL, &s->total_threads) ||
        cp_jint(c, root, "regs_per_thread", true, 0, 1, 65536, &regs) ||
        cp_jint(c, root, "smem_per_thread", false, 0, 0, 1LL << 30, &s->smem_per_thread) ||
        cp_jint(c, root, "smem_per_block_fixed", false, 0, 0, 1LL << 30, &s->smem_per_block_fixed) ||
        cp_jint(c, root, "iterations", false, 1, 1, 1000000000000LL, &s->iterations))
        return -1;
    s->regs_per_thread = (int)regs;

    /* Instructions of one thread in one loop iteration; fractions are
     * allowed (an access every other iteration, a branch taken half the time). */
    if (cp_jnum(c, root, "global_loads", false, 0, 0, 1e9, &s->global_loads) ||
        cp_jnum(c, root, "shared_loads", false, 0, 0, 1e9, &s->shared_loads) ||
        cp_jnum(c, root, "compute", false, 0, 0, 1e9, &s->compute) ||
        cp_jnum(c, root, "global_stores", false, 0, 0, 1e9, &s->global_stores) ||
        cp_jnum(c, root, "other", false, 0, 0, 1e9, &s->other))
        return -1;
    if (s->global_loads + s->shared_loads + s->compute + s->global_stores + s->other <= 0)
        return cp_jfail(c, NULL, "the kernel issues no instructions: give at least one of global_loads, "
                                 "shared_loads, compute, global_stores, other");

    if (cp_jint(c, root, "bytes_per_access", false, 4, 1, 16, &bpa))
        return -1;
    if (bpa & (bpa - 1))
        return cp_jfail(c, "bytes_per_access", "must be 1, 2, 4, 8 or 16 (bytes one thread moves per access), got %lld",
                        bpa);
    s->bytes_per_access = (int)bpa;

    /* R_Co: given directly, or from the request counts of Eq. 3-24/3-25. */
    int has_ratio = cp_jget(root, "coalesced_ratio") != NULL;
    int has_counts = cp_jget(root, "coalesced_requests") || cp_jget(root, "uncoalesced_requests");
    if (has_ratio && has_counts)
        return cp_jfail(c, "coalesced_ratio",
                        "give either coalesced_ratio or coalesced_requests/uncoalesced_requests, not both");
    if (has_counts) {
        long long co, unco;
        if (cp_jint(c, root, "coalesced_requests", false, 0, 0, 1000000000000000LL, &co) ||
            cp_jint(c, root, "uncoalesced_requests", false, 0, 0, 1000000000000000LL, &unco))
            return -1;
        if (co + unco == 0)
            return cp_jfail(c, cp_jget(root, "coalesced_requests") ? "coalesced_requests" : "uncoalesced_requests",
                            "coalesced_requests + uncoalesced_requests must be positive (Eq. 3-25)");
        s->coalesced = (double)co / (double)(co + unco); /* Eq. 3-25 */
    } else if (cp_jnum(c, root, "coalesced_ratio", false, 1.0, 0.0, 1.0, &s->coalesced)) {
        return -1;
    }

    if (cp_jstr(c, root, "precision", false, &prec))
        return -1;
    s->precision = CP_PREC_FP32;
    if (prec && (cp_precision_parse(prec, &s->precision) || s->precision == CP_PREC_TF32))
        return cp_jfail(c, "precision", "must be fp32, fp16 or bf16 (the advisor models the FMA pipe), got '%s'",
                        prec);
    return cp_jnum(c, root, "dram_bytes", false, -1.0, 0.0, 1e18, &s->dram_bytes);
}

int cp_kernel_spec_parse(const char *text, size_t len, const char *file, cp_kernel_spec *s, cp_error *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->file, sizeof s->file, "%s", file);
    cJSON *root = cp_json_parse(text, len, file, err);
    if (!root)
        return -1;
    cp_jctx c = {.file = file, .path = "$", .err = err};
    int rc = cJSON_IsObject(root) ? spec_fields(&c, root, s)
                                  : cp_jfail(&c, NULL, "a kernel spec must be a JSON object");
    cJSON_Delete(root);
    return rc;
}

int cp_kernel_spec_load(const char *path, cp_kernel_spec *s, cp_error *err)
{
    size_t len = 0;
    char *text = cp_read_file(path, &len, err);
    if (!text)
        return -1;
    int rc = cp_kernel_spec_parse(text, len, path, s, err);
    free(text);
    return rc;
}

/* --- one block size ---------------------------------------------------------- */

cp_kernel cp_kernel_spec_instance(const cp_kernel_spec *s, const cp_device *d, int threads)
{
    cp_kernel k;
    memset(&k, 0, sizeof k);
    k.name = s->name;
    /* A partial warp still issues whole warp instructions (N_WB of Eq. 3-5). */
    double warps = (double)((threads + d->warp_size - 1) / d->warp_size);
    double ws = d->warp_size;
    long long smem = s->smem_per_block_fixed + (long long)threads * s->smem_per_thread; /* M_BS, Eq. 3-6 */
    k.blocks = (s->total_threads + threads - 1) / threads;                                  /* N_CB */
    k.threads = threads;
    k.regs = s->regs_per_thread;
    k.smem = smem > d->smem_per_block ? d->smem_per_block + 1 : (int)smem; /* clamp: over the limit is over */
    k.stages = 1; /* a plain loop: each iteration waits for its own loads */
    k.iters = s->iterations;
    k.I = s->global_loads * warps;
    k.M = s->shared_loads * warps;
    k.L = s->compute * warps;
    k.K = s->global_stores * warps;
    k.other = s->other * warps;
    k.ld_bytes = k.st_bytes = k.sm_bytes = s->bytes_per_access * ws;
    k.coalesced = s->coalesced;
    k.pipe = CP_PIPE_FMA;
    k.precision = s->precision;
    k.flops_per_L = 2.0 * ws; /* one FMA per lane */
    double thread_iters = (double)s->total_threads * (double)s->iterations;
    k.flops = 2.0 * s->compute * thread_iters;
    if (s->dram_bytes >= 0) {
        k.dram_bytes = s->dram_bytes;
    } else {
        /* No reuse: every access reaches DRAM, an uncoalesced one as a whole
         * 32-byte sector (Eq. 3-24...3-26, as cp_kernel_evaluate counts it). */
        double per_access = s->coalesced * s->bytes_per_access +
                            (1.0 - s->coalesced) * fmax(s->bytes_per_access, 32.0);
        k.dram_bytes = thread_iters * (s->global_loads + s->global_stores) * per_access;
    }
    return k;
}

static void evaluate_row(const cp_kernel_spec *s, const cp_device *d, int threads, cp_advice_row *r)
{
    memset(r, 0, sizeof *r);
    r->threads = threads;
    r->blocks = (s->total_threads + threads - 1) / threads;
    r->smem = s->smem_per_block_fixed + (long long)threads * s->smem_per_thread;
    cp_error err;
    if (r->smem > d->smem_per_block) {
        /* Said here rather than by cp_occupancy_calc so the message can give
         * the largest block Eq. 3-10 allows. */
        if (s->smem_per_thread > 0 && s->smem_per_block_fixed < d->smem_per_block)
            cp_fail(&err, NULL, NULL,
                    "%lld B of shared memory per block (%lld + %d x %lld) exceed the %d B a block may use "
                    "(Eq. 3-7); Eq. 3-10 allows at most %lld threads per block",
                    r->smem, s->smem_per_block_fixed, threads, s->smem_per_thread, d->smem_per_block,
                    (d->smem_per_block - s->smem_per_block_fixed) / s->smem_per_thread);
        else
            cp_fail(&err, NULL, NULL, "%lld B of shared memory per block exceed the %d B a block may use (Eq. 3-7)",
                    r->smem, d->smem_per_block);
        snprintf(r->reason, sizeof r->reason, "%s", err.msg);
        return;
    }
    cp_kernel k = cp_kernel_spec_instance(s, d, threads);
    if (cp_kernel_evaluate(&k, d, &r->eval, &err)) {
        snprintf(r->reason, sizeof r->reason, "%s", err.msg);
        return;
    }
    r->feasible = 1;
    r->time_us = r->eval.time_ms * 1e3;
}

int cp_advise(const cp_kernel_spec *s, const cp_device *d, cp_advice *a, cp_error *err)
{
    memset(a, 0, sizeof *a);
    snprintf(a->kernel, sizeof a->kernel, "%s", s->name);
    snprintf(a->device, sizeof a->device, "%s", d->id);
    snprintf(a->device_name, sizeof a->device_name, "%s", d->name);
    int top = d->max_threads_per_block < CP_ADVISOR_MAX_THREADS ? d->max_threads_per_block : CP_ADVISOR_MAX_THREADS;
    double fastest = INFINITY;
    for (int t = CP_ADVISOR_STEP; t <= top; t += CP_ADVISOR_STEP) {
        cp_advice_row *r = &a->rows[a->count++];
        evaluate_row(s, d, t, r);
        if (r->feasible && r->time_us < fastest)
            fastest = r->time_us;
    }
    a->best = -1;
    if (a->count == 0 || !isfinite(fastest))
        return cp_fail(err, s->file, NULL, "no block size from %d to %d threads can launch on %s: at %d threads, %s",
                       CP_ADVISOR_STEP, top, d->id, CP_ADVISOR_STEP, a->count ? a->rows[0].reason : "(none tried)");
    /* Rows run from small to large blocks, so a strict comparison keeps the
     * smaller block on equal occupancy. */
    for (int i = 0; i < a->count; i++) {
        const cp_advice_row *r = &a->rows[i];
        if (!r->feasible || r->time_us > fastest * (1.0 + TIE_TOLERANCE))
            continue;
        if (a->best < 0 || r->eval.occ.active_warps > a->rows[a->best].eval.occ.active_warps)
            a->best = i;
    }
    return 0;
}

/* --- output: the columns, defined once for table, CSV and JSON --------------- */

/* Writes a cell's text; sets *num for numeric cells. Returns 0 when the row
 * has no value (an infeasible size): "-" in the table, empty in CSV, null in
 * JSON. */
typedef int (*cell_fn)(const cp_advice *a, int row, char *buf, size_t n, double *num);

typedef struct {
    const char *key;  /* JSON and CSV name */
    const char *head; /* table heading */
    int numeric;      /* JSON number rather than string */
    cell_fn cell;
} column;

static int c_threads(const cp_advice *a, int i, char *b, size_t n, double *num)
{
    *num = a->rows[i].threads;
    snprintf(b, n, "%d", a->rows[i].threads);
    return 1;
}

static int c_blocks(const cp_advice *a, int i, char *b, size_t n, double *num)
{
    *num = (double)a->rows[i].blocks;
    snprintf(b, n, "%lld", a->rows[i].blocks);
    return 1;
}

static int c_active(const cp_advice *a, int i, char *b, size_t n, double *num)
{
    const cp_advice_row *r = &a->rows[i];
    *num = r->eval.occ.blocks_per_sm;
    snprintf(b, n, "%d", r->eval.occ.blocks_per_sm);
    return r->feasible;
}

static int c_occupancy(const cp_advice *a, int i, char *b, size_t n, double *num)
{
    const cp_advice_row *r = &a->rows[i];
    *num = 100.0 * r->eval.occ.occupancy;
    snprintf(b, n, "%.1f", *num);
    return r->feasible;
}

static int c_limiter(const cp_advice *a, int i, char *b, size_t n, double *num)
{
    const cp_advice_row *r = &a->rows[i];
    *num = 0;
    snprintf(b, n, "%s", r->feasible ? cp_limiter_name(r->eval.occ.limiter) : "");
    return r->feasible;
}

static int c_regime(const cp_advice *a, int i, char *b, size_t n, double *num)
{
    const cp_advice_row *r = &a->rows[i];
    *num = 0;
    snprintf(b, n, "%s", r->eval.memory_intensive ? "memory" : "compute"); /* Eq. 6-10 vs 6-11 */
    return r->feasible;
}

static int c_bound(const cp_advice *a, int i, char *b, size_t n, double *num)
{
    const cp_advice_row *r = &a->rows[i];
    *num = 0;
    snprintf(b, n, "%s", cp_bound_name(r->eval.bound));
    return r->feasible;
}

static const char *fmt_us(char *b, size_t n, double us)
{
    snprintf(b, n, us < 1e9 ? "%.2f" : "%.4g", us); /* absurd inputs stay readable */
    return b;
}

static int c_time(const cp_advice *a, int i, char *b, size_t n, double *num)
{
    const cp_advice_row *r = &a->rows[i];
    *num = r->time_us;
    fmt_us(b, n, r->time_us);
    return r->feasible;
}

static int c_note(const cp_advice *a, int i, char *b, size_t n, double *num)
{
    const cp_advice_row *r = &a->rows[i];
    *num = 0;
    if (!r->feasible)
        snprintf(b, n, "infeasible: %s", r->reason);
    else
        snprintf(b, n, "%s", i == a->best ? "recommended" : "");
    return 1;
}

static const column columns[] = {
    {"threads", "threads", 1, c_threads},
    {"blocks", "blocks", 1, c_blocks},
    {"blocks_per_sm", "blocks/SM", 1, c_active},
    {"occupancy_pct", "occupancy %", 1, c_occupancy},
    {"limiter", "limiter", 0, c_limiter},
    {"regime", "regime", 0, c_regime},
    {"bound", "bound", 0, c_bound},
    {"time_us", "time (us)", 1, c_time},
    {"note", "note", 0, c_note},
};
#define NCOL (sizeof columns / sizeof columns[0])

int cp_advice_format_parse(const char *name, cp_advice_format *f)
{
    static const char *const names[] = {"table", "json", "csv"};
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) {
            *f = (cp_advice_format)i;
            return 0;
        }
    return -1;
}

static void spec_summary(FILE *f, const cp_kernel_spec *s)
{
    fprintf(f, "%lld threads x %lld iterations; per thread: %d registers, %lld B shared memory (+ %lld B per block)\n",
            s->total_threads, s->iterations, s->regs_per_thread, s->smem_per_thread, s->smem_per_block_fixed);
    fprintf(f,
            "per thread and iteration: %g global loads, %g shared accesses, %g compute, %g global stores, %g other; "
            "%d B per access, %.0f%% coalesced, %s\n",
            s->global_loads, s->shared_loads, s->compute, s->global_stores, s->other, s->bytes_per_access,
            100.0 * s->coalesced, cp_precision_name(s->precision));
}

static void write_table(FILE *f, const cp_advice *a, const cp_kernel_spec *s)
{
    char buf[sizeof(cp_error) + 32];
    double num;
    size_t width[NCOL];
    for (size_t c = 0; c < NCOL; c++) {
        width[c] = strlen(columns[c].head);
        for (int i = 0; i < a->count; i++) {
            size_t len = columns[c].cell(a, i, buf, sizeof buf, &num) ? strlen(buf) : 1;
            if (len > width[c])
                width[c] = len;
        }
    }
    fprintf(f, "kernel %s (%s) on %s (%s)\n", s->name, s->file, a->device_name, a->device);
    spec_summary(f, s);
    fputc('\n', f);
    for (int i = -1; i < a->count; i++) { /* row -1: the headings */
        char line[sizeof buf + 256];
        size_t len = 0;
        for (size_t c = 0; c < NCOL && len < sizeof line; c++) {
            const char *text = i < 0 ? columns[c].head : columns[c].cell(a, i, buf, sizeof buf, &num) ? buf : "-";
            int w = c + 1 < NCOL ? (int)width[c] : 0; /* the last column is not padded */
            len += (size_t)snprintf(line + len, sizeof line - len, columns[c].numeric ? "%*s  " : "%-*s  ", w, text);
        }
        if (len >= sizeof line)
            len = sizeof line - 1;
        while (len > 0 && line[len - 1] == ' ')
            len--;
        fprintf(f, "%.*s\n", (int)len, line);
    }
    const cp_advice_row *b = &a->rows[a->best];
    int slow = a->best;
    for (int i = 0; i < a->count; i++)
        if (a->rows[i].feasible && a->rows[i].time_us > a->rows[slow].time_us)
            slow = i;
    char t1[32], t2[32];
    fprintf(f,
            "\nrecommended: %d threads per block (%lld blocks, %d blocks/SM, occupancy %.1f%%, limited by %s): "
            "%s us, %s-bound",
            b->threads, b->blocks, b->eval.occ.blocks_per_sm, 100.0 * b->eval.occ.occupancy,
            cp_limiter_name(b->eval.occ.limiter), fmt_us(t1, sizeof t1, b->time_us), cp_bound_name(b->eval.bound));
    if (slow != a->best)
        fprintf(f, "; the slowest feasible size, %d, takes %s us (%.2fx)", a->rows[slow].threads,
                fmt_us(t2, sizeof t2, a->rows[slow].time_us), a->rows[slow].time_us / b->time_us);
    fputc('\n', f);
}

static void write_csv(FILE *f, const cp_advice *a)
{
    char buf[sizeof(cp_error) + 32];
    double num;
    for (size_t c = 0; c < NCOL; c++)
        fprintf(f, "%s%s", columns[c].key, c + 1 < NCOL ? "," : "\n");
    for (int i = 0; i < a->count; i++)
        for (size_t c = 0; c < NCOL; c++) {
            if (columns[c].cell(a, i, buf, sizeof buf, &num))
                cp_csv_text(f, buf);
            fputs(c + 1 < NCOL ? "," : "\n", f);
        }
}

static cJSON *json_row(const cp_advice *a, int i)
{
    char buf[sizeof(cp_error) + 32];
    double num;
    cJSON *o = cJSON_CreateObject();
    for (size_t c = 0; o && c < NCOL; c++) {
        cJSON *v;
        if (!columns[c].cell(a, i, buf, sizeof buf, &num))
            v = cJSON_CreateNull();
        else
            v = columns[c].numeric ? cJSON_CreateNumber(num) : cJSON_CreateString(buf);
        if (!cJSON_AddItemToObject(o, columns[c].key, v)) {
            cJSON_Delete(v);
            cJSON_Delete(o);
            return NULL;
        }
    }
    return o;
}

static int write_json(FILE *f, const cp_advice *a, const cp_kernel_spec *s)
{
    cJSON *root = cJSON_CreateObject(), *rows = NULL;
    int ok = root && cJSON_AddStringToObject(root, "format", "cnnperf-kernel-advice/1") &&
             cJSON_AddStringToObject(root, "kernel", s->name) && cJSON_AddStringToObject(root, "file", s->file) &&
             cJSON_AddStringToObject(root, "device", a->device) &&
             cJSON_AddNumberToObject(root, "total_threads", (double)s->total_threads) &&
             cJSON_AddNumberToObject(root, "recommended_threads", a->rows[a->best].threads) &&
             cJSON_AddNumberToObject(root, "recommended_time_us", a->rows[a->best].time_us) &&
             (rows = cJSON_AddArrayToObject(root, "rows")) != NULL;
    for (int i = 0; ok && i < a->count; i++) {
        cJSON *r = json_row(a, i);
        ok = r && cJSON_AddItemToArray(rows, r);
    }
    if (!ok) {
        cJSON_Delete(root);
        return -1;
    }
    return cp_json_write(f, root, false);
}

int cp_advice_write(FILE *f, const cp_advice *a, const cp_kernel_spec *s, cp_advice_format fmt)
{
    if (a->best < 0 || a->best >= a->count)
        return -1;
    if (fmt == CP_ADVICE_JSON) {
        if (write_json(f, a, s))
            return -1;
    } else if (fmt == CP_ADVICE_CSV) {
        write_csv(f, a);
    } else {
        write_table(f, a, s);
    }
    return ferror(f) ? -1 : 0;
}
