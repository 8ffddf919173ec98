#include "report.h"

#include "../model/memory.h"
#include "../util/jsonwrite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Why a host-paced prediction's range is wide on the machines it was measured on (docs/ACCURACY.md, session 33) */
#define VM_HOST_SPEEDS "a virtual machine's CPU runs at one of two speeds about 1.5x apart, the hypervisor's choice"

int cp_format_parse(const char *s, cp_format *f)
{
    static const char *const names[] = {"table", "json", "csv"};
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *f = (cp_format)i;
            return 0;
        }
    return -1;
}

/* --- one row per layer, columns defined once ------------------------------ */

typedef enum { COL_TEXT, COL_NUM, COL_INT } col_type;

typedef struct {
    const char *header; /* table and CSV */
    const char *key;    /* JSON */
    col_type type;
    int width;      /* table width; negative: left-aligned */
    int precision;  /* digits after the point in table and CSV */
} column;

typedef struct {
    const cp_network *net;
    const cp_prediction *pred;
    int batch;
    int i;
} row;

typedef union {
    const char *s;
    double d;
} cell;

static void shape_text(cp_shape s, char *buf, size_t n)
{
    snprintf(buf, n, "%dx%dx%d", s.c, s.h, s.w);
}

enum { MAX_COLS = 16 }; /* the most columns a table here has (print_rows sizes its widths by it) */

/* Prediction columns. */
static const column pred_cols[] = {
    {"layer", "name", COL_TEXT, -24, 0},
    {"kind", "kind", COL_TEXT, -9, 0},
    {"output", "output", COL_TEXT, -13, 0},
    {"fwd_ms", "forward_ms", COL_NUM, 9, 4},
    {"bwd_data_ms", "backward_data_ms", COL_NUM, 11, 4},
    {"bwd_wgt_ms", "backward_weight_ms", COL_NUM, 10, 4},
    {"update_ms", "update_ms", COL_NUM, 9, 4},
    {"GFLOP", "flops", COL_NUM, 8, 3},
    {"MB", "bytes", COL_NUM, 8, 2},
    {"FLOP/B", "arithmetic_intensity", COL_NUM, 7, 1},
    {"bound", "bound", COL_TEXT, -8, 0},
    {"roofline_ms", "roofline_ms", COL_NUM, 11, 4},
};
enum { PC_NAME, PC_KIND, PC_OUT, PC_FWD, PC_BWD_D, PC_BWD_W, PC_UPD, PC_FLOPS, PC_BYTES, PC_AI, PC_BOUND, PC_ROOF,
       PC_COUNT };
_Static_assert((int)PC_COUNT <= (int)MAX_COLS, "pred_cols: raise MAX_COLS");

static double sum4(const double *v)
{
    return v[0] + v[1] + v[2] + v[3];
}

/* JSON carries raw units (FLOPs, bytes); the table shows GFLOP and MB. */
static cell pred_cell(const row *r, int col, char *buf, size_t n, int scaled)
{
    const cp_layer *l = &r->net->layers[r->i];
    const cp_layer_pred *lp = &r->pred->layers[r->i];
    double flops = sum4(lp->flops), bytes = sum4(lp->bytes);
    cell c = {0};
    switch (col) {
    case PC_NAME: c.s = l->name; break;
    case PC_KIND: c.s = l->kind->name; break;
    case PC_OUT: shape_text(l->out, buf, n); c.s = buf; break;
    case PC_FWD: c.d = lp->ms[CP_PASS_FWD]; break;
    case PC_BWD_D: c.d = lp->ms[CP_PASS_BWD_DATA]; break;
    case PC_BWD_W: c.d = lp->ms[CP_PASS_BWD_WEIGHT]; break;
    case PC_UPD: c.d = lp->ms[CP_PASS_UPDATE]; break;
    case PC_FLOPS: c.d = scaled ? flops / 1e9 : flops; break;
    case PC_BYTES: c.d = scaled ? bytes / 1e6 : bytes; break;
    case PC_AI: c.d = bytes > 0 ? flops / bytes : 0; break;
    case PC_BOUND: c.s = lp->kernels ? cp_bound_name(lp->bound) : "-"; break;
    case PC_ROOF: c.d = lp->roofline_ms; break;
    }
    return c;
}

/* Network listing columns. */
static const column layer_cols[] = {
    {"layer", "name", COL_TEXT, -28, 0},
    {"kind", "kind", COL_TEXT, -16, 0},
    {"input", "input", COL_TEXT, -14, 0},
    {"output", "output", COL_TEXT, -14, 0},
    {"window", "window", COL_TEXT, -11, 0},
    {"params", "params", COL_INT, 12, 0},
    {"fwd_MFLOP", "forward_flops", COL_NUM, 12, 2},
    {"calib_class", "calibration_class", COL_TEXT, -13, 0},
};
_Static_assert(sizeof layer_cols / sizeof layer_cols[0] <= MAX_COLS, "layer_cols: raise MAX_COLS");

/* A convolution's or pooling's window: kernel, stride where not 1, groups
 * where more than 1 ("3x3/2", "3x3 g32"); "-" for layers without one. */
static void window_text(const cp_layer *l, char *buf, size_t n)
{
    if (l->kh <= 0 || l->kw <= 0) {
        snprintf(buf, n, "-");
        return;
    }
    int k = snprintf(buf, n, "%dx%d", l->kh, l->kw);
    if (k > 0 && (size_t)k < n && cp_layer_strided(l))
        k += l->sh == l->sw ? snprintf(buf + k, n - (size_t)k, "/%d", l->sh)
                            : snprintf(buf + k, n - (size_t)k, "/%dx%d", l->sh, l->sw);
    if (k > 0 && (size_t)k < n && l->groups > 1)
        snprintf(buf + k, n - (size_t)k, " g%d", l->groups);
}

static cell layer_cell(const row *r, int col, char *buf, size_t n, int scaled)
{
    const cp_layer *l = &r->net->layers[r->i];
    cell c = {0};
    switch (col) {
    case 0: c.s = l->name; break;
    case 1: c.s = l->kind->name; break;
    case 2: shape_text(l->in[0], buf, n); c.s = buf; break;
    case 3: shape_text(l->out, buf, n); c.s = buf; break;
    case 4: window_text(l, buf, n); c.s = buf; break;
    case 5: c.d = (double)l->params; break;
    case 6: c.d = l->kind->flops(l, CP_PASS_FWD, r->batch) / (scaled ? 1e6 : 1); break;
    case 7: c.s = cp_calib_class_name(cp_layer_calib_class(l)); break;
    }
    return c;
}

typedef cell (*cell_fn)(const row *r, int col, char *buf, size_t n, int scaled);

static void print_rows(FILE *f, const column *cols, int ncols, cell_fn get, row *r, int nrows, cp_format fmt)
{
    char buf[64];
    /* a table's text columns widen to their longest cell (a network file's long
     * layer names, "adaptive_avgpool"), so the columns after them stay aligned */
    int width[MAX_COLS];
    for (int c = 0; c < ncols && c < MAX_COLS; c++) {
        width[c] = cols[c].width;
        for (r->i = 0; fmt == CP_FMT_TABLE && cols[c].type == COL_TEXT && r->i < nrows; r->i++) {
            int len = (int)strlen(get(r, c, buf, sizeof buf, 1).s);
            if (len > abs(width[c]))
                width[c] = width[c] < 0 ? -len : len;
        }
    }
    for (int c = 0; c < ncols; c++) {
        if (fmt == CP_FMT_CSV)
            fprintf(f, "%s%s", c ? "," : "", cols[c].key);
        else
            fprintf(f, "%s%*s", c ? " " : "", width[c], cols[c].header);
    }
    fputc('\n', f);
    for (r->i = 0; r->i < nrows; r->i++) {
        for (int c = 0; c < ncols; c++) {
            cell v = get(r, c, buf, sizeof buf, fmt == CP_FMT_TABLE);
            if (c)
                fputc(fmt == CP_FMT_CSV ? ',' : ' ', f);
            if (cols[c].type == COL_TEXT) {
                if (fmt == CP_FMT_CSV)
                    cp_csv_text(f, v.s);
                else
                    fprintf(f, "%*s", width[c], v.s);
            } else if (fmt == CP_FMT_CSV) {
                fprintf(f, cols[c].type == COL_INT ? "%.0f" : "%.6g", v.d);
            } else {
                fprintf(f, "%*.*f", width[c], cols[c].precision, v.d);
            }
        }
        fputc('\n', f);
    }
}

static cJSON *rows_json(const column *cols, int ncols, cell_fn get, row *r, int nrows)
{
    char buf[64];
    cJSON *arr = cJSON_CreateArray();
    for (r->i = 0; arr && r->i < nrows; r->i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddItemToArray(arr, o);
        for (int c = 0; c < ncols; c++) {
            cell v = get(r, c, buf, sizeof buf, 0);
            if (cols[c].type == COL_TEXT)
                cJSON_AddStringToObject(o, cols[c].key, v.s);
            else
                cJSON_AddNumberToObject(o, cols[c].key, v.d);
        }
    }
    return arr;
}

int cp_report_json(FILE *f, cJSON *root)
{
    return cp_json_write(f, root, false);
}

/* --- predict ---------------------------------------------------------------- */

static int cmp_desc(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] < y[0]) - (x[0] > y[0]);
}

/* The top-level fields both reports share; gpus and the exchange fields are
 * the distributed report's to add. */
static cJSON *result_json(const cp_prediction *p, double iteration_ms, double images_per_s, double loading_ms,
                          double forward_ms, double backward_ms, double update_ms)
{
    row r = {p->net, p, p->batch, 0};
    int ncols = (int)(sizeof pred_cols / sizeof pred_cols[0]);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "schema", "cnnperf-result/1");
    cJSON_AddStringToObject(o, "source", "prediction");
    cJSON_AddStringToObject(o, "network", p->net->name);
    cJSON_AddStringToObject(o, "device", p->dev->id);
    cJSON_AddStringToObject(o, "device_name", p->dev->name);
    cJSON_AddNumberToObject(o, "batch", p->batch);
    cJSON_AddStringToObject(o, "precision", cp_precision_name(p->prec));
    cJSON_AddNumberToObject(o, "iteration_ms", iteration_ms);
    cJSON_AddNumberToObject(o, "images_per_s", images_per_s);
    cJSON_AddNumberToObject(o, "flops", p->flops);
    cJSON *ph = cJSON_AddObjectToObject(o, "phases");
    cJSON_AddNumberToObject(ph, "loading_ms", loading_ms);
    cJSON_AddNumberToObject(ph, "forward_ms", forward_ms);
    cJSON_AddNumberToObject(ph, "backward_ms", backward_ms);
    cJSON_AddNumberToObject(ph, "update_ms", update_ms);
    cJSON *layers = rows_json(pred_cols, ncols, pred_cell, &r, p->net->n_layers);
    /* a convolution's algorithm per pass, as the model chose it (cp_conv_pass_algorithm) */
    int li = 0;
    for (cJSON *e = layers ? layers->child : NULL; e; e = e->next, li++) {
        cJSON *a = NULL;
        for (int ps = 0; ps < CP_PASS_COUNT; ps++)
            if (p->layers[li].algorithm[ps] && (a || (a = cJSON_AddObjectToObject(e, "algorithms"))))
                cJSON_AddStringToObject(a, cp_pass_name((cp_pass)ps), p->layers[li].algorithm[ps]);
    }
    cJSON_AddItemToObject(o, "layers", layers);
    /* the convolution algorithms' library path, and which layer-pass
     * calibration made these numbers (null: the analytic model alone) */
    cJSON_AddStringToObject(o, "conv_api", p->algos == CP_ALGOS_PYTORCH ? "graph" : "legacy");
    cJSON_AddStringToObject(o, "memory_format", p->net->channels_last ? "channels_last" : "nchw");
    if (p->workspace_mb >= 0) { /* the algorithms' workspace limit (cnnperf-measure's --workspace-mb); none: eager */
        cJSON_AddNumberToObject(o, "conv_workspace_limit_mib", p->workspace_mb <= CP_NO_WORKSPACE_MB ? 0 : p->workspace_mb);
        /* what cuDNN may use: less where the run's buffers leave less free */
        cJSON_AddNumberToObject(o, "conv_workspace_mib",
                                p->workspace_left_mb <= CP_NO_WORKSPACE_MB ? 0 : p->workspace_left_mb);
    } else {
        cJSON_AddNullToObject(o, "conv_workspace_limit_mib");
        cJSON_AddNullToObject(o, "conv_workspace_mib");
    }
    const cp_calibration *cal = cp_device_calibration(p->dev, p->algos);
    if (cal->loaded) {
        cJSON *c = cJSON_AddObjectToObject(o, "calibration");
        cJSON_AddStringToObject(c, "file", cal->file);
        cJSON_AddStringToObject(c, "source", cal->source);
    } else {
        cJSON_AddNullToObject(o, "calibration");
    }
    return o;
}

/* The per-layer table and the layers that dominate. */
static void layer_table(FILE *f, const cp_prediction *p)
{
    row r = {p->net, p, p->batch, 0};
    print_rows(f, pred_cols, (int)(sizeof pred_cols / sizeof pred_cols[0]), pred_cell, &r, p->net->n_layers,
               CP_FMT_TABLE);
    int n = p->net->n_layers;
    double (*order)[2] = malloc((size_t)n * sizeof *order);
    if (!order)
        return;
    for (int i = 0; i < n; i++) {
        order[i][0] = sum4(p->layers[i].ms);
        order[i][1] = i;
    }
    qsort(order, (size_t)n, sizeof *order, cmp_desc);
    double compute = p->forward_ms + p->backward_ms + p->update_ms;
    fprintf(f, "\nlayers that dominate (share of forward + backward + update):\n");
    for (int k = 0; k < n && k < 5; k++) {
        int i = (int)order[k][1];
        fprintf(f, "  %-28s %-16s %9.3f ms  %5.1f%%  %s-bound\n", p->net->layers[i].name,
                p->net->layers[i].kind->name, order[k][0], compute > 0 ? 100 * order[k][0] / compute : 0,
                cp_bound_name(p->layers[i].bound));
    }
    free(order);
}

int cp_report_prediction(FILE *f, const cp_prediction *p, cp_format fmt)
{
    return cp_report_prediction_mode(f, p, NULL, fmt);
}

/* --mode eager: the host/GPU time line's summary, in JSON and as text. */
static void eager_json(cJSON *o, const cp_eager *e)
{
    cJSON_AddBoolToObject(o, "host_bound", e->host_bound != 0);
    cJSON_AddNumberToObject(o, "host_share", e->host_share);
    cJSON *x = cJSON_AddObjectToObject(o, "eager");
    cJSON_AddNumberToObject(x, "host_ms", e->host_ms);
    cJSON *hp = cJSON_AddObjectToObject(x, "host_phase_ms"); /* as PyTorch's host_wall_ms divides it */
    for (int k = 0; k < CP_EAGER_HOST_PHASES; k++)
        cJSON_AddNumberToObject(hp, cp_eager_host_phase_names[k], e->host_phase_ms[k]);
    cJSON_AddNumberToObject(x, "gpu_busy_ms", e->gpu_busy_ms);
    cJSON_AddNumberToObject(x, "gpu_idle_ms", e->gpu_idle_ms);
    cJSON_AddNumberToObject(x, "harness_iteration_ms", e->harness_ms);
    cJSON_AddNumberToObject(x, "optimizer_gpu_ms", e->optimizer_ms);
    cJSON_AddNumberToObject(x, "operators", e->ops);
    cJSON_AddNumberToObject(x, "kernels", e->kernels);
    cJSON_AddNumberToObject(x, "extra_kernels", e->extra_kernels);
    cJSON_AddNumberToObject(x, "gradient_accumulations", e->accumulations);
    if (e->has_range) {
        cJSON *r = cJSON_AddObjectToObject(x, "host_spread");
        cJSON_AddNumberToObject(r, "low", e->spread[0]);
        cJSON_AddNumberToObject(r, "high", e->spread[1]);
        cJSON_AddBoolToObject(r, "one_call", e->range_one_call);
        cJSON_AddNumberToObject(r, "iteration_low_ms", e->range_ms[0]);
        cJSON_AddNumberToObject(r, "iteration_high_ms", e->range_ms[1]);
    }
    cJSON_AddNumberToObject(x, "optimizer_kernels", e->optimizer_kernels);
    cJSON_AddNumberToObject(x, "parameter_tensors", e->param_tensors);
    cJSON_AddBoolToObject(x, "host_costs_calibrated", !e->builtin_costs);
    cJSON_AddStringToObject(x, "host_costs", e->costs_source);
    cJSON_AddNumberToObject(x, "host_cost_scale", e->base_scale);
    cJSON_AddNumberToObject(x, "host_fixed_ms", e->fixed_ms);
    cJSON_AddNumberToObject(x, "host_levels", e->host_levels);
    if (e->ddp_workers > 1) {
        cJSON_AddNumberToObject(x, "ddp_processes_per_host", e->ddp_local);
        cJSON_AddNumberToObject(x, "ddp_operator_scale", e->operator_scale);
        cJSON_AddNumberToObject(x, "ddp_slowest_rank_scale", e->rank_scale);
    }
}

/* Which of the calibration set's PyTorch runs e's host scale was fitted on (rule 53) */
static const char *scale_fitted_on(const cp_eager *e)
{
    return e->ddp_workers > 1 ? "DDP" : "one-GPU";
}

static void eager_text(FILE *f, const cp_eager *e)
{
    fprintf(f, "\neager mode (as PyTorch runs it): %.3f ms = %.3f + %.3f + %.3f + %.3f ms on the host/GPU time "
               "line\n",
            e->iteration_ms, e->loading_ms, e->forward_ms, e->backward_ms, e->update_ms);
    fprintf(f, "  the host issues %d operators in %.3f ms (forward %.3f, loss.backward() %.3f, opt.step() %.3f); "
               "the GPU runs %d kernels and copies in %.3f ms\n",
            e->ops, e->host_ms, e->host_phase_ms[0], e->host_phase_ms[1], e->host_phase_ms[2], e->kernels,
            e->gpu_busy_ms);
    fprintf(f, "  (%d kernels that harness mode has not: autocast casts, BN counters, loss, %d of the foreach "
               "optimizer; autograd sums %d gradients)\n",
            e->extra_kernels, e->optimizer_kernels, e->accumulations);
    fprintf(f, "  %s: the GPU waits %.3f ms for the host, %.0f%% of the iteration; harness mode: %.3f ms "
               "(eager %+.1f%%)\n",
            e->host_bound ? "host-bound" : "GPU-bound", e->gpu_idle_ms, 100 * e->host_share, e->harness_ms,
            100 * (e->iteration_ms / e->harness_ms - 1));
    if (e->has_range)
        fprintf(f, "  with the host %.2f-%.2fx as costly, as it was from call to call on this kind of machine%s: %.3f-%.3f ms "
                   "(" VM_HOST_SPEEDS ")\n",
                e->spread[0], e->spread[1],
                e->range_one_call ? " (against one call's costs: both move, sqrt(2) as far)" : "", e->range_ms[0],
                e->range_ms[1]);
    int partly = e->builtin_costs && strncmp(e->costs_source, "defaults", 8) != 0;
    fprintf(f, "  eager host costs: %s%s (each x%.2f: a network's operators against the microbenchmark's, fitted on "
               "the calibration set's %s PyTorch runs)\n",
            partly ? "partly defaults, not calibrated; given: " : "", e->costs_source, e->base_scale,
            scale_fitted_on(e));
    if (e->host_levels > 1)
        fprintf(f, "  the times are the mean over the host's two speeds (%.2fx apart, as likely): every host cost "
                   "/%.2f and x%.2f\n",
                e->host_levels, sqrt(e->host_levels), sqrt(e->host_levels));
    if (e->fixed_ms > 0)
        fprintf(f, "  of the host's time, %.3f ms is what a training iteration pays once (zero_grad, the model's and "
                   "the loss's calls, loss.backward()'s and opt.step()'s own)\n",
                e->fixed_ms);
    fprintf(f, "  %.1f images/s\n", e->images_per_s);
}

/* Within this share of the GPU's memory an eager step's fit is uncertain:
 * the allocator's fragments at a failure measured 0.2-2.9 GiB by network. */
#define EAGER_TIGHT_SHARE 0.03

/* One GPU's worker in harness or eager mode (model/memory.h); where the
 * host had no memory to work it out the reports leave it out. */
static int memory_of(const cp_prediction *p, bool eager, int nccl_gpus, cp_memory *m)
{
    return cp_memory_worker(p->net, p->dev, p->batch, p->prec, eager, nccl_gpus, m);
}

static void memory_json(cJSON *o, const cp_prediction *p, bool eager)
{
    cp_memory m;
    if (memory_of(p, eager, 1, &m))
        return;
    const double gib = 1073741824.0;
    cJSON *j = cJSON_AddObjectToObject(o, "memory");
    cJSON_AddNumberToObject(j, "total_gib", m.total / gib);
    cJSON_AddNumberToObject(j, "params_gib", m.params / gib);
    cJSON_AddNumberToObject(j, "activations_gib", m.activations / gib);
    cJSON_AddNumberToObject(j, "gradients_gib", m.gradients / gib);
    cJSON_AddNumberToObject(j, "pages_gib", m.pages / gib);
    cJSON_AddNumberToObject(j, "runtime_gib", m.runtime / gib);
    cJSON_AddNumberToObject(j, "device_gib", m.device / gib);
    cJSON_AddBoolToObject(j, "fits", m.fits);
    cJSON_AddNumberToObject(j, "margin_gib", (m.device - m.total) / gib);
    cJSON_AddStringToObject(j, "scope", eager ? "a PyTorch training step (tools/torch_bench.py): its peak allocation "
                                                "with 512 MiB of headroom, without cuDNN's larger workspaces"
                                              : "one worker as cnnperf-measure trains it, without cuDNN's workspace "
                                                "(sized to what is left)");
}

static void memory_text(FILE *f, const cp_prediction *p, bool eager)
{
    cp_memory m;
    if (memory_of(p, eager, 1, &m))
        return;
    const double gib = 1073741824.0;
    if (eager)
        fprintf(f, "  memory: %.1f GiB of %.1f (PyTorch: the input and what autograd saves %.1f, weights, momentum "
                   "and 16-bit copies %.1f, backward's gradients %.1f, headroom %.1f, CUDA and PyTorch %.1f; "
                   "cuDNN's larger workspaces not counted)%s\n",
                m.total / gib, m.device / gib, m.activations / gib, m.params / gib, m.gradients / gib, m.pages / gib,
                m.runtime / gib,
                !m.fits ? ": DOES NOT FIT"
                : m.total > (1 - EAGER_TIGHT_SHARE) * m.device
                    ? ": fits, but within 3% of the limit, where PyTorch's allocator held 0.2-2.9 GiB unusable when "
                      "steps failed (validation/memory-h100/)"
                    : "");
    else {
        fprintf(f, "  memory: %.1f GiB of %.1f (activations %.1f, their gradients %.1f, parameters %.1f, cudaMalloc's "
                   "2 MiB pages %.1f, CUDA and libraries %.1f; cuDNN's workspace takes what is left)%s\n",
                m.total / gib, m.device / gib, m.activations / gib, m.gradients / gib, m.params / gib, m.pages / gib,
                m.runtime / gib, m.fits ? "" : ": DOES NOT FIT");
        if (m.fits && p->workspace_mb >= 0 && p->workspace_left_mb < p->workspace_mb)
            fprintf(f, "  workspace: %.0f MiB left of the %.0f MiB limit: convolution algorithms that need more are "
                       "not candidates\n",
                    p->workspace_left_mb <= CP_NO_WORKSPACE_MB ? 0 : p->workspace_left_mb, p->workspace_mb);
    }
}

void cp_report_memory_warning(const cp_prediction *p, bool eager, int nccl_gpus, const char *what)
{
    cp_memory m;
    if (!memory_of(p, eager, nccl_gpus, &m) && !m.fits)
        fprintf(stderr,
                "cnnperf %s: warning: %s at batch %d in %s needs %.1f GiB on %s, which has %.1f: the time is "
                "for a run that cannot start (try a smaller batch)\n",
                what, p->net->name, p->batch, cp_precision_name(p->prec), m.total / 1073741824.0, p->dev->name,
                m.device / 1073741824.0);
}

int cp_report_prediction_mode(FILE *f, const cp_prediction *p, const cp_eager *e, cp_format fmt)
{
    if (fmt == CP_FMT_JSON) {
        cJSON *o = e ? result_json(p, e->iteration_ms, e->images_per_s, e->loading_ms, e->forward_ms,
                                   e->backward_ms, e->update_ms)
                     : result_json(p, p->iteration_ms, p->images_per_s, p->loading_ms, p->forward_ms,
                                   p->backward_ms, p->update_ms);
        cJSON_AddNumberToObject(o, "gpus", 1);
        cJSON_AddStringToObject(o, "mode", e ? "eager" : "harness");
        cp_legacy_host lh = cp_legacy_host_estimate(p);
        if (lh.calls > 0 && !e && p->timeline < 0) {
            cJSON *h = cJSON_AddObjectToObject(o, "legacy_host");
            cJSON_AddNumberToObject(h, "conv_calls", lh.calls);
            cJSON_AddNumberToObject(h, "median_ms", lh.median_ms);
            cJSON_AddNumberToObject(h, "p10_ms", lh.p10_ms);
            cJSON_AddNumberToObject(h, "p90_ms", lh.p90_ms);
            cJSON_AddBoolToObject(h, "host_may_pace", lh.host_may_pace);
            cJSON_AddBoolToObject(h, "calibrated", lh.calibrated);
            cJSON_AddStringToObject(h, "source", lh.calibrated ? p->dev->legacy_host.source
                                                                : "the H100 host's (validation/h100/host-profile/), "
                                                                  "reported only");
            cJSON_AddBoolToObject(h, "host_paced", p->legacy_paced);
            cJSON_AddNumberToObject(h, "gpu_iteration_ms", p->kernels_ms);
            cJSON_AddNumberToObject(h, "gpu_tail_ms", lh.tail_ms);
            double range[2];
            if (cp_legacy_host_range(p, &lh, range)) { /* the host as fast as its 10th percentile, as slow as its 90th */
                cJSON_AddNumberToObject(h, "iteration_low_ms", range[0]);
                cJSON_AddNumberToObject(h, "iteration_high_ms", range[1]);
            }
        }
        if (e)
            eager_json(o, e);
        memory_json(o, p, e != NULL);
        if (!e && p->timeline >= 0) { /* the calibration's host costs: measurements name it host_issue_ms */
            cJSON_AddNumberToObject(o, "host_issue_ms", p->host_ms);
            cJSON_AddNumberToObject(o, "kernels_ms", p->kernels_ms);
            cJSON_AddBoolToObject(o, "host_bound", p->host_bound);
        }
        return cp_report_json(f, o);
    }
    if (fmt == CP_FMT_CSV) {
        row r = {p->net, p, p->batch, 0};
        print_rows(f, pred_cols, (int)(sizeof pred_cols / sizeof pred_cols[0]), pred_cell, &r, p->net->n_layers, fmt);
        return ferror(f) ? -1 : 0;
    }
    fprintf(f, "cnnperf predict: %s on %s, batch %d, %s, %s mode, convolutions by cuDNN's %s API%s\n\n", p->net->name,
            p->dev->name, p->batch, cp_precision_name(p->prec), e ? "eager" : "harness",
            p->algos == CP_ALGOS_PYTORCH ? "graph" : "legacy", p->net->channels_last ? ", channels-last" : "");
    layer_table(f, p);
    fprintf(f, "\n%siteration (Eq. 6-4): t_total = t_loading + t_forward + t_backward + t_update\n",
            e ? "harness-mode " : "");
    fprintf(f, "  %.3f ms = %.3f + %.3f + %.3f + %.3f ms\n", p->iteration_ms, p->loading_ms, p->forward_ms,
            p->backward_ms, p->update_ms);
    fprintf(f, "  %.1f images/s, %.1f TFLOP/s achieved of %.1f peak (%s)\n", p->images_per_s,
            p->flops / (p->iteration_ms * 1e-3) / 1e12, cp_device_peak_flops(p->dev, p->prec) / 1e12,
            cp_precision_name(p->prec));
    const cp_calibration *cal = cp_device_calibration(p->dev, p->algos);
    if (p->timeline >= 0)
        fprintf(f, "  the host issues the passes in %.3f ms, the kernels take %.3f ms back to back: %s (host "
                   "costs: %s)\n",
                p->host_ms, p->kernels_ms, p->host_bound ? "the GPU waits for the host" : "the GPU sets the pace",
                cal->host_source);
    cp_legacy_host lh = cp_legacy_host_estimate(p);
    if (lh.calls > 0 && p->timeline < 0 && lh.calibrated)
        fprintf(f, "  the host's cuDNN legacy calls: %d convolution calls take it %.1f ms (%.1f-%.1f at the 10th and "
                   "90th percentile; %s), the GPU's work %.1f ms: %s\n",
                lh.calls, lh.median_ms, lh.p10_ms, lh.p90_ms, p->dev->legacy_host.source, p->kernels_ms,
                p->legacy_paced ? "the host sets the pace (the layer passes are the GPU's; a graph-API call, "
                                  "--conv-api graph, costs the host about a sixth as much)"
                                : "the GPU sets the pace");
    double range[2];
    if (cp_legacy_host_range(p, &lh, range) && range[1] > p->kernels_ms)
        fprintf(f, "  with the host at its 10th and 90th percentile: %.3f-%.3f ms, the GPU's %.3f ms after the host's "
                   "last convolution call included (the calibration runs' host moved %.1fx; " VM_HOST_SPEEDS
                   ": docs/ACCURACY.md, session 33)\n",
                range[0], range[1], lh.tail_ms, lh.p90_ms / lh.p10_ms);
    else if (lh.calls > 0 && p->timeline < 0 && !lh.calibrated)
        fprintf(f, "  not modelled: the host's cuDNN legacy calls; these %d convolution calls alone take the host "
                   "%.1f ms (%.1f-%.1f, as profiled on an H100 host)%s\n",
                lh.calls, lh.median_ms, lh.p10_ms, lh.p90_ms,
                lh.host_may_pace ? ": about the GPU's time, so the host may set the pace (a graph-API call, "
                                   "--conv-api graph, costs it about a sixth as much)"
                                 : "");
    if (cal->loaded)
        fprintf(f, "  layer passes calibrated by %s (%s; --calibration none: the analytic model alone)\n",
                cal->file, cal->source);
    else
        fprintf(f, "  analytic model, no layer-pass calibration for %s\n", p->dev->id);
    if (e)
        eager_text(f, e);
    memory_text(f, p, e != NULL);
    return ferror(f) ? -1 : 0;
}

/* The exchange bucket by bucket, times from the start of backward. */
static void bucket_json(cJSON *o, const cp_dist_prediction *d)
{
    cJSON *a = cJSON_AddArrayToObject(o, "bucket_schedule");
    const cp_task *t = d->tree.t;
    for (int i = 0; a && i < d->buckets; i++) {
        const cp_dist_bucket *b = &d->bucket[i];
        cJSON *e = cJSON_CreateObject();
        if (!e || !cJSON_AddItemToArray(a, e))
            return;
        cJSON_AddNumberToObject(e, "bytes", b->bytes);
        cJSON_AddStringToObject(e, "first_layer", d->net->layers[b->first_layer].name);
        cJSON_AddStringToObject(e, "last_layer", d->net->layers[b->last_layer].name);
        cJSON_AddNumberToObject(e, "ready_ms", t[b->after].end_ms);
        cJSON_AddNumberToObject(e, "start_ms", t[b->first_node].start_ms);
        cJSON_AddNumberToObject(e, "end_ms", t[b->node].end_ms);
        if (d->comm == CP_COMM_NCCL) {
            cJSON_AddStringToObject(e, "algorithm", cp_ar_algo_name(b->ar.algo));
            cJSON_AddStringToObject(e, "protocol", cp_proto_name(b->ar.proto));
            cJSON_AddNumberToObject(e, "allreduce_ms", b->ar.time_ms);
        } else if (d->comm == CP_COMM_PS) { /* --explain's PS estimate, to set beside a job's ranks[] */
            cJSON_AddNumberToObject(e, "push_ms", b->ps.push_ms);
            cJSON_AddNumberToObject(e, "aggregate_ms", b->ps.aggregate_ms);
            cJSON_AddNumberToObject(e, "round_ms", b->ps.round_ms);
            cJSON_AddNumberToObject(e, "pull_ms", b->ps.pull_ms);
            cJSON_AddStringToObject(e, "bottleneck", b->ps.bottleneck);
        }
    }
}

int cp_report_distributed(FILE *f, const cp_dist_prediction *d, cp_format fmt)
{
    const cp_prediction *s = d->group[d->slowest];
    if (fmt == CP_FMT_CSV) {
        row r = {s->net, s, s->batch, 0};
        print_rows(f, pred_cols, (int)(sizeof pred_cols / sizeof pred_cols[0]), pred_cell, &r, s->net->n_layers, fmt);
        return ferror(f) ? -1 : 0;
    }
    if (fmt == CP_FMT_JSON) {
        /* phases.backward_ms is backward with the overlapped exchange, so
         * the phases still add up to iteration_ms */
        cJSON *o = result_json(s, d->iteration_ms, d->images_per_s, d->loading_ms, d->forward_ms, d->backward_ms,
                               d->update_ms);
        cJSON_AddNumberToObject(o, "gpus", d->cfg.gpus);
        cJSON_AddStringToObject(o, "cluster", d->cluster->name);
        cJSON_AddStringToObject(o, "comm", cp_comm_name(d->comm));
        cJSON_AddBoolToObject(o, "overlap", d->cfg.overlap != 0);
        cJSON_AddNumberToObject(o, "exchange_ms", d->exchange_ms);
        cJSON_AddNumberToObject(o, "exposed_exchange_ms", d->exposed_exchange_ms);
        cJSON_AddNumberToObject(o, "gradient_bytes", d->grad_bytes);
        cJSON_AddNumberToObject(o, "buckets", d->buckets);
        bucket_json(o, d);
        if (d->ps_pool) {
            cJSON *r = cJSON_AddObjectToObject(o, "ps_stream_range");
            if (r) {
                cJSON_AddNumberToObject(r, "median_gbs", d->ps_pool->link.bandwidth_gbs);
                cJSON_AddNumberToObject(r, "min_gbs", d->ps_pool->min_gbs);
                cJSON_AddNumberToObject(r, "max_gbs", d->ps_pool->max_gbs);
                cJSON_AddNumberToObject(r, "calls", d->ps_pool->sweeps);
                cJSON_AddNumberToObject(r, "iteration_slow_ms", d->ps_range_slow_ms);
                cJSON_AddNumberToObject(r, "iteration_fast_ms", d->ps_range_fast_ms);
            }
        }
        cJSON_AddNumberToObject(o, "scaling_efficiency", d->scaling_efficiency);
        cJSON_AddStringToObject(o, "slowest_device", d->group_dev[d->slowest]->id);
        cJSON_AddStringToObject(o, "dominant", d->dominant);
        cJSON_AddStringToObject(o, "mode", cp_mode_name(d->cfg.mode));
        if (d->group_eager[d->slowest])
            eager_json(o, d->group_eager[d->slowest]);
        return cp_report_json(f, o);
    }
    fprintf(f, "cnnperf predict: %s on %d GPU%s of %s, batch %d per GPU, %s, exchange %s%s, %s mode%s\n\n",
            s->net->name, d->cfg.gpus, d->cfg.gpus == 1 ? "" : "s", d->cluster->name, s->batch,
            cp_precision_name(s->prec), cp_comm_name(d->comm),
            d->cfg.overlap ? " overlapped with backward" : " after backward", cp_mode_name(d->cfg.mode),
            s->net->channels_last ? ", channels-last" : "");
    fprintf(f, "per-layer times of one %s (the slowest GPU)\n", s->dev->name);
    layer_table(f, s);
    fprintf(f, "\nGPU groups (every step waits for the slowest, Eq. 5-15):\n");
    for (int g = 0; g < d->n_groups; g++)
        fprintf(f, "  %3d x %-32s single-GPU iteration %9.3f ms%s\n", d->group_gpus[g], d->group_dev[g]->name,
                d->group_eager[g] ? d->group_eager[g]->iteration_ms : d->group[g]->iteration_ms,
                g == d->slowest && d->n_groups > 1 ? "  <- bounds the step" : "");
    if (d->cfg.gpus > 1 && d->comm != CP_COMM_NONE) {
        fprintf(f, "\ngradient exchange: %.1f MB in %d bucket%s, %.3f ms on its own, %.3f ms not hidden by backward\n",
                d->grad_bytes / 1e6, d->buckets, d->buckets == 1 ? "" : "s", d->exchange_ms, d->exposed_exchange_ms);
        fprintf(f, "  %s\n", d->dominant);
        if (d->comm == CP_COMM_PS) {
            fprintf(f, "  whole model: push %.3f ms, aggregate %.3f ms, pull %.3f ms\n", d->ps.push_ms,
                    d->ps.aggregate_ms, d->ps.pull_ms);
            if (d->ps_pool)
                fprintf(f, "  the server's stream: %.2f GB/s, the median of %d device calls' hosts, which moved "
                           "%.2f-%.2f GB/s (--host-mpi with your host's cnnperf-psexchange file replaces them)\n",
                        d->ps_pool->link.bandwidth_gbs, d->ps_pool->sweeps, d->ps_pool->min_gbs, d->ps_pool->max_gbs);
        } else
            fprintf(f, "  whole model in one all-reduce: %.3f ms (latency %.3f, volume %.3f), algbw %.1f GB/s\n",
                    d->ar.time_ms, d->ar.latency_ms, d->ar.bandwidth_ms, d->ar.algbw_gbs);
    }
    fprintf(f, "\niteration: t_total = t_loading + t_forward + t_backward+exchange + t_update\n");
    fprintf(f, "  %.3f ms = %.3f + %.3f + %.3f + %.3f ms\n", d->iteration_ms, d->loading_ms, d->forward_ms,
            d->backward_ms, d->update_ms);
    fprintf(f, "  %.1f images/s, scaling efficiency %.1f%% of %d x one %s\n", d->images_per_s,
            100 * d->scaling_efficiency, d->cfg.gpus, s->dev->name);
    if (d->ps_pool)
        fprintf(f, "  %.3f-%.3f ms with the PS stream of the fastest and the slowest call measured\n",
                d->ps_range_fast_ms, d->ps_range_slow_ms);
    const cp_eager *e = d->group_eager[d->slowest];
    if (e)
        fprintf(f, "  every GPU's compute is its eager time line: one %s alone %.3f ms, %s (the GPU waits %.0f%% "
                   "of it for the host; %.3f ms of the host's is what the iteration pays once)\n  eager host costs: %s "
                   "(each x%.2f, fitted on the calibration set's %s PyTorch runs)\n",
                s->dev->name, e->iteration_ms, e->host_bound ? "host-bound" : "GPU-bound", 100 * e->host_share,
                e->fixed_ms, e->costs_source, e->base_scale, scale_fitted_on(e));
    if (e && e->ddp_workers > 1)
        fprintf(f, "  DistributedDataParallel's own kernels (gradients into buckets, / %d, back): %.3f ms of it; "
                   "%d processes on a host, each operator's host cost x%.2f against one process alone; the slowest "
                   "of the %d processes' hosts x%.3f a typical one's (they step together)\n",
                e->ddp_workers, e->ddp_gpu_ms, e->ddp_local, e->operator_scale, e->ddp_workers, e->rank_scale);
    return ferror(f) ? -1 : 0;
}

/* --- layers ------------------------------------------------------------------ */

static cJSON *pair_json(int a, int b)
{
    const int v[2] = {a, b};
    return cJSON_CreateIntArray(v, 2);
}

/* What a program needs to rebuild the layer from the JSON alone (tools/torch_bench.py builds PyTorch modules from
 * it): the layers it reads ("data": the network's input), every input's shape, and the hyper-parameters its kind
 * uses (networks/FORMAT.md): out and bias (conv, fc), a window's kernel, stride, pad, dilation, groups and
 * ceil_mode, LRN's size, alpha, beta and k, dropout's p. */
static void add_layer_structure(cJSON *o, const cp_network *n, const cp_layer *l)
{
    char buf[64];
    cJSON *in = cJSON_AddArrayToObject(o, "inputs"), *shapes = cJSON_AddArrayToObject(o, "input_shapes");
    for (int k = 0; k < l->n_inputs; k++) {
        int r = l->inputs[k];
        cJSON_AddItemToArray(in, cJSON_CreateString(r == CP_INPUT_DATA ? "data" : n->layers[r].name));
        shape_text(l->in[k], buf, sizeof buf);
        cJSON_AddItemToArray(shapes, cJSON_CreateString(buf));
    }
    cJSON *h = cJSON_AddObjectToObject(o, "hyper");
    if (l->out_c > 0) {
        cJSON_AddNumberToObject(h, "out", l->out_c);
        cJSON_AddBoolToObject(h, "bias", l->bias);
    }
    if (l->kh > 0 && l->sh > 0) { /* adaptive pools have their output's shape, no window of their own */
        cJSON_AddItemToObject(h, "kernel", pair_json(l->kh, l->kw));
        cJSON_AddItemToObject(h, "stride", pair_json(l->sh, l->sw));
        cJSON_AddItemToObject(h, "pad", pair_json(l->ph, l->pw));
        cJSON_AddItemToObject(h, "dilation", pair_json(l->dh > 0 ? l->dh : 1, l->dw > 0 ? l->dw : 1));
        cJSON_AddNumberToObject(h, "groups", l->groups > 0 ? l->groups : 1);
        cJSON_AddBoolToObject(h, "ceil_mode", l->ceil_mode);
    }
    if (l->size > 0) {
        cJSON_AddNumberToObject(h, "size", l->size);
        cJSON_AddNumberToObject(h, "alpha", l->alpha);
        cJSON_AddNumberToObject(h, "beta", l->beta);
        cJSON_AddNumberToObject(h, "k", l->k);
    }
    if (l->p > 0)
        cJSON_AddNumberToObject(h, "p", l->p);
}

int cp_report_layers(FILE *f, const cp_network *n, int batch, cp_format fmt)
{
    row r = {n, NULL, batch, 0};
    int ncols = (int)(sizeof layer_cols / sizeof layer_cols[0]);
    double total = 0;
    for (int i = 0; i < n->n_layers; i++)
        total += n->layers[i].kind->flops(&n->layers[i], CP_PASS_FWD, batch);
    if (fmt == CP_FMT_JSON) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "network", n->name);
        cJSON_AddStringToObject(o, "source", n->source);
        cJSON_AddNumberToObject(o, "batch", batch);
        cJSON_AddNumberToObject(o, "params", (double)n->params);
        cJSON_AddNumberToObject(o, "forward_flops", total);
        cJSON *rows = rows_json(layer_cols, ncols, layer_cell, &r, n->n_layers);
        for (int i = 0; rows && i < n->n_layers && i < cJSON_GetArraySize(rows); i++)
            add_layer_structure(cJSON_GetArrayItem(rows, i), n, &n->layers[i]);
        cJSON_AddItemToObject(o, "layers", rows);
        char shape[64];
        shape_text(n->input, shape, sizeof shape);
        cJSON_AddStringToObject(o, "input", shape);
        return cp_report_json(f, o);
    }
    if (fmt == CP_FMT_TABLE)
        fprintf(f, "%s (%s): input %dx%dx%d, batch %d\n\n", n->name, n->source[0] ? n->source : n->file,
                n->input.c, n->input.h, n->input.w, batch);
    print_rows(f, layer_cols, ncols, layer_cell, &r, n->n_layers, fmt);
    if (fmt == CP_FMT_TABLE)
        fprintf(f, "\n%d layers, %lld parameters, %.3f GFLOP forward\n", n->n_layers, n->params, total / 1e9);
    return ferror(f) ? -1 : 0;
}

/* --- explain ----------------------------------------------------------------- */

static void explain_kernel(FILE *f, const cp_prediction *p, const cp_task *t, int depth)
{
    const cp_kernel *k = &p->tree.k[t->kernel];
    const cp_kernel_eval *e = &p->tree.ke[t->kernel];
    int ind = 2 * depth;
    char tile[64] = "";
    if (k->tile_m)
        snprintf(tile, sizeof tile, " %dx%dx%d %s%s", k->tile_m, k->tile_n, k->tile_k,
                 k->pipe == CP_PIPE_TENSOR ? (p->dev->compute_capability[0] >= '9' ? "wgmma" : "mma") : "fma",
                 k->splits > 1 ? " split-K" : "");
    if (k->splits > 1)
        snprintf(tile + strlen(tile), sizeof tile - strlen(tile), " x%d", k->splits);
    fprintf(f, "%*skernel %s%s: %.4f ms, %s-bound\n", ind, "", k->name, tile, t->time_ms, cp_bound_name(e->bound));
    fprintf(f, "%*s  grid %lld blocks x %d threads, %d regs/thread, %d B smem/block, %d stages, %lld iterations/block\n",
            ind, "", k->blocks, k->threads, k->regs, k->smem, k->stages, k->iters);
    fprintf(f, "%*s  occupancy: %d blocks/SM (%d warps, %.0f%%), limited by %s; %lld wave%s\n", ind, "",
            e->occ.blocks_per_sm, e->occ.active_warps, 100 * e->occ.occupancy, cp_limiter_name(e->occ.limiter),
            e->waves, e->waves == 1 ? "" : "s");
    fprintf(f, "%*s  per block iteration: I=%.1f global loads, M=%.1f shared, L=%.1f %s, K=%.2f global stores, %.1f other\n",
            ind, "", k->I, k->M, k->L, k->pipe == CP_PIPE_TENSOR ? "MMA" : "FMA/ALU", k->K, k->other);
    fprintf(f, "%*s  round of %d blocks: issue %.0f, compute %.0f, shared %.0f, L2 %.0f, exposed latency %.0f -> C_b %.0f cycles\n",
            ind, "", e->occ.blocks_per_sm, e->c_issue, e->c_compute, e->c_shared, e->c_global, e->c_latency,
            e->c_round);
    double launches = cp_kernel_launches(k);
    fprintf(f, "%*s  %s (Eq. %s): C = C_b x N_block + %s = %.0f x %.0f rounds (SM %.0f, DRAM %.0f) + %.0f + launch %.0f = %.0f cycles",
            ind, "", e->memory_intensive ? "memory-intensive" : "compute-intensive",
            e->memory_intensive ? "6-10" : "6-11", e->memory_intensive ? "L_GL" : "L_GS", e->c_round, e->rounds,
            e->sm_cycles, e->dram_cycles, e->tail_cycles, e->launch_cycles, e->cycles / launches);
    if (launches > 1)
        fprintf(f, ", x %.0f launches = %.0f cycles", launches, e->cycles);
    fprintf(f, "\n%*s  %.3f GFLOP, %.2f MB DRAM%s\n", ind, "", k->flops * launches / 1e9,
            k->dram_bytes * launches / 1e6, launches > 1 ? " (all launches)" : "");
}

static void explain_node(FILE *f, const cp_prediction *p, int idx, int depth, const char *only)
{
    const cp_task *t = &p->tree.t[idx];
    if (t->type == CP_TASK_COMPUTE) {
        explain_kernel(f, p, t, depth);
        return;
    }
    int is_layer = t->detail != NULL;
    if (only && is_layer && strcmp(t->name, only) != 0)
        return;
    if (t->type == CP_TASK_TRANSFER) {
        const cp_link *l = &p->sys.links[t->link];
        fprintf(f, "%*s%s: %.4f ms  (Eq. 5-10: %.0f B / %.1f GB/s + %d x %.1f us over %s)\n", 2 * depth, "", t->name,
                t->time_ms, t->bytes, l->bandwidth_gbs, t->msgs, l->latency_us, l->name);
        return;
    }
    if (!only || is_layer || depth == 0) {
        char cal[96] = "";
        if (t->type == CP_TASK_SEQ && (t->scale != 1 || t->offset_ms != 0)) /* calibration.h */
            snprintf(cal, sizeof cal, "; calibrated: %.3f x sum + %.1f us", t->scale, t->offset_ms * 1e3);
        fprintf(f, "%*s%s%s%s: %.4f ms  [%s, %d subtask%s%s]\n", 2 * depth, "", t->name, is_layer ? " " : "",
                is_layer ? t->detail : "", t->time_ms, t->type == CP_TASK_SEQ ? "sequential, sum" : "parallel",
                p->tree.t[cp_tree_body(&p->tree, idx)].count, p->tree.t[cp_tree_body(&p->tree, idx)].count == 1 ? "" : "s", cal);
    }
    if (only && !is_layer && depth > 0 && t->type != CP_TASK_TRANSFER) {
        /* phase nodes: look for the layer inside without printing the phase */
        for (int c = t->first; c >= 0; c = p->tree.t[c].next)
            explain_node(f, p, c, depth, only);
        return;
    }
    for (int c = p->tree.t[cp_tree_body(&p->tree, idx)].first; c >= 0; c = p->tree.t[c].next)
        explain_node(f, p, c, depth + 1, only);
}

int cp_report_explain(FILE *f, const cp_prediction *p, const char *only_layer)
{
    fprintf(f, "task tree of one iteration: %s on %s (system: %s; units: %s [%s], %s [%s])\n", p->net->name,
            p->dev->name, cp_flynn_name(p->sys.cls), p->sys.units[CP_UNIT_HOST].name,
            cp_flynn_name(p->sys.units[CP_UNIT_HOST].cls), p->sys.units[CP_UNIT_GPU].name,
            cp_flynn_name(p->sys.units[CP_UNIT_GPU].cls));
    explain_node(f, p, p->root, 0, only_layer);
    return ferror(f) ? -1 : 0;
}

static void explain_nccl_bucket(FILE *f, const cp_dist_prediction *d, const cp_dist_bucket *b)
{
    const cp_task *t = d->tree.t;
    fprintf(f, "      all-reduce %.4f -> %.4f ms: %s/%s, %.4f ms on its own (latency %.4f, volume %.4f, %s)\n",
            t[b->node].start_ms, t[b->node].end_ms, cp_ar_algo_name(b->ar.algo), cp_proto_name(b->ar.proto),
            b->ar.time_ms, b->ar.latency_ms, b->ar.bandwidth_ms, b->ar.bottleneck ? b->ar.bottleneck : "link");
    if (b->ar.algo == CP_AR_HIERARCHICAL)
        return; /* not NCCL's: no tuner estimate picked its protocol */
    fprintf(f, "      NCCL's tuner, latency + bytes / algbw (us):");
    const cp_ar_algo algos[] = {CP_AR_RING, CP_AR_TREE};
    for (int a = 0; a < 2; a++)
        for (int q = CP_PROTO_LL; q <= CP_PROTO_SIMPLE; q++) {
            double lat, bw;
            cp_error err;
            if (cp_nccl_tuner_estimate(d->cluster, d->cfg.gpus, b->bytes, algos[a], (cp_proto)q, &lat, &bw, &err))
                continue;
            int picked = b->ar.algo == algos[a] && b->ar.proto == (cp_proto)q;
            fprintf(f, " %s%s/%s %.1f", picked ? "*" : "", cp_ar_algo_name(algos[a]), cp_proto_name((cp_proto)q),
                    lat + b->bytes / (bw * 1e3));
        }
    fprintf(f, "\n");
}

static void explain_ps_bucket(FILE *f, const cp_dist_prediction *d, const cp_dist_bucket *b)
{
    const cp_task *t = d->tree.t;
    int push = b->first_node, agg = t[push].next, pull = b->node;
    fprintf(f, "      push %.4f -> %.4f, aggregate + SGD %.4f -> %.4f, pull %.4f -> %.4f ms%s\n", t[push].start_ms,
            t[push].end_ms, t[agg].start_ms, t[agg].end_ms, t[pull].start_ms, t[pull].end_ms,
            b->ps.one_stream ? " (one server process: push, sum and pull queue on it)" : "");
    fprintf(f, "      on its own %.4f ms, bounded by the %s: %s\n", b->ps.time_ms, b->ps.bottleneck, b->ps.why);
    if (b->ps.round_ms > 0)
        fprintf(f, "      the sum's %.4f ms include %.4f ms of a round for the server's thread team (rules 13 and 15)\n",
                b->ps.aggregate_ms, b->ps.round_ms);
}

int cp_report_dist_explain(FILE *f, const cp_dist_prediction *d)
{
    const cp_task *t = d->tree.t, *dag = &t[d->phase[2]];
    const cp_network *net = d->net;
    fprintf(f, "task tree of one iteration: %s on %d GPU%s of %s, batch %d per GPU, %s (system: %s)\n", net->name,
            d->cfg.gpus, d->cfg.gpus == 1 ? "" : "s", d->cluster->name, d->cfg.batch, cp_precision_name(d->cfg.prec),
            cp_flynn_name(d->sys.cls));
    fprintf(f, "iteration: %.4f ms  [sequential, sum, 4 subtasks]\n", d->iteration_ms);
    fprintf(f, "  loading: %.4f ms  [every GPU group; the slowest, Eq. 5-15]\n", d->loading_ms);
    fprintf(f, "  forward: %.4f ms  [every GPU group; the slowest, Eq. 5-15]\n", d->forward_ms);
    const cp_device *slow = d->group_dev[d->slowest];
    if (d->comm == CP_COMM_NCCL && slow->nccl_overlap.loaded && d->cluster->nodes == 1)
        fprintf(f, "  %s: %.4f ms  [DAG: each layer's backward on the compute stream, %d bucket%s exchanged beside it; "
                   "while both run, compute-bound layers at %.0f%% and the all-reduce at %.0f%%, memory-bound %.0f%% "
                   "and %.0f%% (%s nccl_overlap)]\n",
                dag->name, d->backward_ms, d->buckets, d->buckets == 1 ? "" : "s",
                100 * slow->nccl_overlap.work_rate[0], 100 * slow->nccl_overlap.allreduce_rate[0],
                100 * slow->nccl_overlap.work_rate[1], 100 * slow->nccl_overlap.allreduce_rate[1], slow->id);
    else
        fprintf(f, "  %s: %.4f ms  [DAG: each layer's backward on the compute stream, %d bucket%s exchanged beside it; "
                   "compute at %.0f%% while the exchange holds SMs]\n",
                dag->name, d->backward_ms, d->buckets, d->buckets == 1 ? "" : "s", 100 * (1 - dag->interference));
    fprintf(f, "    backward alone %.4f ms; exchange %.4f ms on its own, %.4f ms not hidden; times below from the "
               "start of backward\n",
            d->compute_backward_ms, d->exchange_ms, d->exposed_exchange_ms);
    for (int i = 0; i < d->buckets; i++) {
        const cp_dist_bucket *b = &d->bucket[i];
        fprintf(f, "    bucket %d: %.2f MB of gradients of %s .. %s, ready at %.4f ms\n", i + 1, b->bytes / 1e6,
                net->layers[b->first_layer].name, net->layers[b->last_layer].name, t[b->after].end_ms);
        if (d->comm == CP_COMM_NCCL)
            explain_nccl_bucket(f, d, b);
        else
            explain_ps_bucket(f, d, b);
    }
    fprintf(f, "  update: %.4f ms  [%s]\n", d->update_ms,
            d->comm == CP_COMM_PS && d->cfg.gpus > 1 ? "applied by the parameter server" : "SGD on every GPU");
    return ferror(f) ? -1 : 0;
}
