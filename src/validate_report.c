/* The output of `cnnperf validate`: a table for people, JSON with every
 * number, CSV with one row per run, and Markdown for docs/ACCURACY.md. */
#include "validate_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *const phase_names[4] = {"loading", "forward", "backward", "update"};
static const char *const pass_names[CP_VAL_PASSES] = {"forward", "backward_data", "backward_weight"};

static const char *set_name(const cp_val_run *r)
{
    return r->calibration ? "calibration" : r->excluded ? "excluded" : "evaluation";
}

static int count_runs(const cp_validation *v, int calibration, int multi)
{
    int n = 0;
    for (int i = 0; i < v->n_runs; i++)
        n += (v->runs[i].calibration != 0) == calibration && (calibration || !v->runs[i].excluded) &&
             (multi < 0 || (v->runs[i].gpus > 1) == multi);
    return n;
}

/* The distinct layer kinds of the evaluation runs, in order of appearance. */
static int layer_kinds(const cp_validation *v, const char *kinds[], int cap)
{
    int n = 0;
    for (int i = 0; i < v->n_runs; i++) {
        if (!cp_val_in_targets(&v->runs[i]))
            continue;
        for (int l = 0; l < v->runs[i].n_layers; l++) {
            const char *k = v->runs[i].layers[l].kind;
            int j = 0;
            while (j < n && strcmp(kinds[j], k) != 0)
                j++;
            if (j == n && n < cap)
                kinds[n++] = k;
        }
    }
    return n;
}

/* A run the baseline has with another measured time. */
static int remeasured(const cp_validation *v, const char *label)
{
    for (int k = 0; k < v->n_remeasured; k++)
        if (strcmp(v->remeasured[k], label) == 0)
            return 1;
    return 0;
}

static double layer_sum(const double *x)
{
    return x[0] + x[1] + x[2];
}

static const char *winner(double ps, double nccl)
{
    return ps < nccl ? "ps" : "nccl";
}

/* --- JSON -------------------------------------------------------------------------- */

static cJSON *err_json(double meas, double pred, const char *unit)
{
    char k[32];
    cJSON *o = cJSON_CreateObject();
    snprintf(k, sizeof k, "measured_%s", unit);
    cJSON_AddNumberToObject(o, k, meas);
    snprintf(k, sizeof k, "predicted_%s", unit);
    cJSON_AddNumberToObject(o, k, pred);
    snprintf(k, sizeof k, "error_%s", unit);
    cJSON_AddNumberToObject(o, k, pred - meas);
    cJSON_AddNumberToObject(o, "error_pct", cp_val_rel_pct(pred, meas));
    return o;
}

/* What a run's memory figure is (cmd_validate.c, measured_memory_mib). */
static const char *memory_what(const cp_val_run *r)
{
    return r->source == CP_VAL_PYTORCH ? "PyTorch's peak allocation" : "rank 0's GPU memory besides the workspace";
}

static cJSON *stat_json(const cp_val_stat *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", s->n);
    if (s->n) {
        cJSON_AddNumberToObject(o, "mape_pct", cp_val_mape(s));
        cJSON_AddNumberToObject(o, "worst_pct", s->worst_pct);
    } else {
        cJSON_AddNullToObject(o, "mape_pct");
        cJSON_AddNullToObject(o, "worst_pct");
    }
    return o;
}

/* Whether a set's group tables have dimension d: draws are of the evaluation set only. */
static int dim_of_set(int d, int calibration)
{
    return !(calibration && d == CP_DIM_DRAWN);
}

static cJSON *groups_json(const cp_validation *v, int calibration)
{
    cJSON *o = cJSON_CreateObject();
    cp_val_stat all = {0};
    for (int i = 0; i < v->n_runs; i++)
        if (!v->runs[i].excluded && (v->runs[i].calibration != 0) == calibration)
            cp_val_stat_add(&all, v->runs[i].pred_ms, v->runs[i].meas_ms);
    cJSON_AddItemToObject(o, "iteration", stat_json(&all));
    cp_val_group *g = malloc((size_t)(v->n_runs ? v->n_runs : 1) * sizeof *g);
    for (int d = 0; g && d < CP_DIM_COUNT; d++) {
        if (!dim_of_set(d, calibration))
            continue;
        char key[32];
        snprintf(key, sizeof key, "by_%s", cp_val_dim_names[d]);
        cJSON *arr = cJSON_AddArrayToObject(o, key);
        int ng = cp_val_groups(v->runs, v->n_runs, (cp_val_dim)d, calibration, g, v->n_runs);
        for (int k = 0; k < ng; k++) {
            cJSON *e = stat_json(&g[k].st);
            cJSON_AddStringToObject(e, "value", g[k].value);
            cJSON_AddItemToArray(arr, e);
        }
    }
    free(g);
    return o;
}

static cJSON *run_json(const cp_val_run *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", r->file);
    cJSON_AddStringToObject(o, "label", r->label);
    cJSON_AddStringToObject(o, "source", r->source == CP_VAL_PYTORCH ? "pytorch" : "measurement");
    cJSON_AddStringToObject(o, "network", r->network);
    cJSON_AddStringToObject(o, "device", r->device);
    cJSON_AddNumberToObject(o, "batch", r->batch);
    cJSON_AddStringToObject(o, "precision", r->precision);
    cJSON_AddNumberToObject(o, "gpus", r->gpus);
    cJSON_AddStringToObject(o, "comm", r->comm);
    cJSON_AddBoolToObject(o, "overlap", r->overlap != 0);
    cJSON_AddNumberToObject(o, "ps_servers", r->ps_servers);
    cJSON_AddBoolToObject(o, "nccl_network_emulation", r->emulated != 0);
    cJSON_AddStringToObject(o, "set", set_name(r));
    cJSON_AddBoolToObject(o, "drawn", r->drawn != 0);
    cJSON_AddStringToObject(o, "note", r->note);
    if (r->has_host) {
        cJSON_AddNumberToObject(o, "host_enqueue_ms", r->host_enqueue_ms);
        cJSON_AddBoolToObject(o, "host_bound", r->host_bound != 0);
    }
    if (r->has_pred_host)
        cJSON_AddNumberToObject(o, "host_enqueue_predicted_ms", r->pred_host_ms);
    if (r->has_host_phase && r->has_pred_host) {
        cJSON *hp = cJSON_AddObjectToObject(o, "host_phases");
        for (int k = 0; k < CP_EAGER_HOST_PHASES; k++)
            cJSON_AddItemToObject(hp, cp_eager_host_phase_names[k],
                                  err_json(r->host_phase_ms[k], r->pred_host_phase_ms[k], "ms"));
    }
    if (r->host_probe_us[0] > 0)
        cJSON_AddItemToObject(o, "host_probe_us", cJSON_CreateDoubleArray(r->host_probe_us, 2));
    if (r->has_range) {
        cJSON *hr = cJSON_AddObjectToObject(o, "host_range");
        cJSON_AddNumberToObject(hr, "low_ms", r->pred_low_ms);
        cJSON_AddNumberToObject(hr, "high_ms", r->pred_high_ms);
        static const char *const side[] = {"below", "inside", "above"};
        cJSON_AddStringToObject(hr, "measured", side[cp_val_range_side(r) + 1]);
    }
    cJSON_AddItemToObject(o, "iteration", err_json(r->meas_ms, r->pred_ms, "ms"));
    if (r->has_phases) {
        cJSON *ph = cJSON_AddObjectToObject(o, "phases");
        for (int k = 0; k < 4; k++)
            cJSON_AddItemToObject(ph, phase_names[k], err_json(r->meas_phase[k], r->pred_phase[k], "ms"));
    }
    if (r->has_exchange)
        cJSON_AddItemToObject(o, "exchange", err_json(r->meas_exchange_ms, r->pred_exchange_ms, "ms"));
    if (r->has_memory) {
        cJSON *m = err_json(r->meas_memory_mib, r->pred_memory_mib, "mib");
        cJSON_AddStringToObject(m, "what", memory_what(r));
        cJSON_AddBoolToObject(m, "predicted_fits", r->pred_fits != 0);
        cJSON_AddItemToObject(o, "memory", m);
    }
    cJSON *ls = cJSON_AddArrayToObject(o, "layers");
    for (int l = 0; l < r->n_layers; l++) {
        const cp_val_layer *y = &r->layers[l];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", y->name);
        cJSON_AddStringToObject(e, "kind", y->kind);
        for (int p = 0; p < CP_VAL_PASSES; p++)
            cJSON_AddItemToObject(e, pass_names[p], err_json(y->meas[p], y->pred[p], "ms"));
        cJSON_AddItemToArray(ls, e);
    }
    int idx[5], nw = cp_val_worst_layers(r, idx, 5);
    cJSON *w = cJSON_AddArrayToObject(o, "worst_layers");
    for (int k = 0; k < nw; k++) {
        const cp_val_layer *y = &r->layers[idx[k]];
        cJSON *e = err_json(layer_sum(y->meas), layer_sum(y->pred), "ms");
        cJSON_AddStringToObject(e, "name", y->name);
        cJSON_AddStringToObject(e, "kind", y->kind);
        cJSON_AddItemToArray(w, e);
    }
    return o;
}

/* parent[key]: [{file, why_key: reason}] of a list of files (skipped, unproven) */
static void file_notes(cJSON *parent, const char *key, const cp_val_skip *list, int n, const char *why_key)
{
    cJSON *a = cJSON_AddArrayToObject(parent, key);
    for (int i = 0; i < n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "file", list[i].file);
        cJSON_AddStringToObject(e, why_key, list[i].reason);
        cJSON_AddItemToArray(a, e);
    }
}

static int report_json(FILE *f, const cp_validation *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "schema", "cnnperf-validation/1");
    cJSON_AddStringToObject(o, "command", v->command);
    cJSON_AddStringToObject(o, "calibration", v->calibration);
    cJSON *cs = cJSON_AddObjectToObject(o, "calibration_set");
    cJSON_AddStringToObject(cs, "file", v->calib_file);
    cJSON *nets = cJSON_AddArrayToObject(cs, "networks");
    for (int i = 0; i < v->n_calib_networks; i++)
        cJSON_AddItemToArray(nets, cJSON_CreateString(v->calib_networks[i]));
    cJSON *sweeps = cJSON_AddArrayToObject(cs, "nccl_sweeps");
    for (int i = 0; i < v->n_calib_sweeps; i++)
        cJSON_AddItemToArray(sweeps, cJSON_CreateString(v->calib_sweeps[i]));
    cJSON *ts = cJSON_AddArrayToObject(o, "targets");
    for (int t = 0; t < CP_T_COUNT; t++) {
        const cp_val_target *x = &v->targets[t];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "key", x->key);
        cJSON_AddStringToObject(e, "target", x->what);
        cJSON_AddNumberToObject(e, "limit", x->limit);
        if (x->n)
            cJSON_AddNumberToObject(e, "value", x->value);
        else
            cJSON_AddNullToObject(e, "value");
        cJSON_AddNumberToObject(e, "n", x->n);
        cJSON_AddStringToObject(e, "status", x->n == 0 ? "no data" : x->met ? "met" : "not met");
        cJSON_AddItemToArray(ts, e);
    }
    cJSON *rep = cJSON_AddArrayToObject(o, "repeatability");
    for (int m = 0; m < 2; m++) {
        const cp_val_floor *fl = &v->floor[m];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "scope", m ? "multi-GPU target's runs" : "one-GPU target's runs");
        cJSON_AddNumberToObject(e, "runs", fl->runs);
        cJSON_AddNumberToObject(e, "configurations", fl->configs);
        cJSON_AddNumberToObject(e, "repeated_configurations", fl->repeated_configs);
        cJSON_AddNumberToObject(e, "repeated_runs", fl->repeated_runs);
        cJSON_AddNumberToObject(e, "mape_floor_pct", fl->mape_floor_pct);
        cJSON_AddNumberToObject(e, "repeated_floor_pct", fl->repeated_floor_pct);
        cJSON_AddNumberToObject(e, "worst_floor_pct", fl->worst_floor_pct);
        cJSON_AddNumberToObject(e, "limit_pct", fl->limit_pct);
        cJSON_AddNumberToObject(e, "configurations_wider_than_limit", fl->wide_configs);
        if (fl->worst_run >= 0) {
            cJSON *w = cJSON_AddObjectToObject(e, "widest");
            cJSON_AddStringToObject(w, "run", v->runs[fl->worst_run].label);
            cJSON_AddNumberToObject(w, "runs", fl->worst_n);
            cJSON_AddNumberToObject(w, "min_ms", fl->worst_min_ms);
            cJSON_AddNumberToObject(w, "max_ms", fl->worst_max_ms);
        }
        if (m == 0) {
            cJSON *hs = cJSON_AddArrayToObject(e, "by_harness");
            for (int h = 0; h < 3; h++) {
                const cp_val_floor *fh = &v->floor_by_harness[h];
                cJSON *x = cJSON_CreateObject();
                cJSON_AddStringToObject(x, "harness", cp_val_harnesses[h]);
                cJSON_AddNumberToObject(x, "runs", fh->runs);
                cJSON_AddNumberToObject(x, "repeated_runs", fh->repeated_runs);
                cJSON_AddNumberToObject(x, "repeated_floor_pct", fh->repeated_floor_pct);
                cJSON_AddNumberToObject(x, "worst_floor_pct", fh->worst_floor_pct);
                cJSON_AddItemToArray(hs, x);
            }
        }
        cJSON_AddItemToArray(rep, e);
    }
    cJSON *sum = cJSON_AddObjectToObject(o, "summary");
    cJSON_AddItemToObject(sum, "evaluation", groups_json(v, 0));
    cJSON_AddItemToObject(sum, "calibration", groups_json(v, 1));
    cJSON *mem = cJSON_AddObjectToObject(sum, "memory");
    for (int src = CP_VAL_CNNPERF; src <= CP_VAL_PYTORCH; src++) {
        int wrong;
        cp_val_stat st = cp_val_memory_stat(v->runs, v->n_runs, (cp_val_source)src, &wrong);
        cJSON *e = stat_json(&st);
        cJSON_AddNumberToObject(e, "ran_predicted_not_to_fit", wrong);
        cJSON_AddItemToObject(mem, src == CP_VAL_PYTORCH ? "pytorch" : "measurement", e);
    }
    cJSON *range = cJSON_AddObjectToObject(sum, "host_range");
    for (int set = 0; set < 2; set++) {
        cJSON *e = cJSON_AddObjectToObject(range, set ? "calibration" : "evaluation");
        for (int src = CP_VAL_CNNPERF; src <= CP_VAL_PYTORCH; src++) {
            cp_val_range_count c = cp_val_host_range(v->runs, v->n_runs, (cp_val_source)src, set);
            cJSON *x = cJSON_AddObjectToObject(e, src == CP_VAL_PYTORCH ? "pytorch" : "measurement");
            cJSON_AddNumberToObject(x, "runs", c.below + c.inside + c.above);
            cJSON_AddNumberToObject(x, "below", c.below);
            cJSON_AddNumberToObject(x, "inside", c.inside);
            cJSON_AddNumberToObject(x, "above", c.above);
        }
    }
    cJSON *host = cJSON_AddObjectToObject(sum, "pytorch_host");
    for (int set = 0; set < 2; set++)
        for (int ddp = 0; ddp < 2; ddp++) {
            char key[48];
            snprintf(key, sizeof key, "%s_%s", set ? "calibration" : "evaluation", ddp ? "ddp" : "one_gpu");
            cp_val_stat st = cp_val_host_stat(v->runs, v->n_runs, set, ddp);
            cJSON *h = stat_json(&st);
            double med[CP_EAGER_HOST_PHASES];
            int np = cp_val_host_phase_ratios(v->runs, v->n_runs, set, ddp, med);
            if (np) { /* measured / predicted, the median over the host-bound runs with the wall by phase */
                cJSON *ph = cJSON_AddObjectToObject(h, "phase_ratio_median");
                cJSON_AddNumberToObject(ph, "runs", np);
                for (int k = 0; k < CP_EAGER_HOST_PHASES; k++)
                    cJSON_AddNumberToObject(ph, cp_eager_host_phase_names[k], med[k]);
            }
            cJSON_AddItemToObject(host, key, h);
        }
    cJSON *lp = cJSON_AddArrayToObject(sum, "layer_passes");
    const char *kinds[64];
    int nk = layer_kinds(v, kinds, 64);
    for (int k = 0; k < nk; k++)
        for (int p = 0; p < CP_VAL_PASSES; p++) {
            cp_val_stat st = cp_val_layer_stat(v->runs, v->n_runs, kinds[k], p, 0);
            if (!st.n)
                continue;
            cJSON *e = stat_json(&st);
            cJSON_AddStringToObject(e, "kind", kinds[k]);
            cJSON_AddStringToObject(e, "pass", pass_names[p]);
            cJSON_AddItemToArray(lp, e);
        }
    cJSON *runs = cJSON_AddArrayToObject(o, "runs");
    for (int i = 0; i < v->n_runs; i++)
        cJSON_AddItemToArray(runs, run_json(&v->runs[i]));
    cJSON *ar = cJSON_AddArrayToObject(o, "nccl_allreduce");
    for (int i = 0; i < v->n_ar; i++) {
        const cp_val_ar *a = &v->ar[i];
        cJSON *e = err_json(a->meas_us, a->pred_us, "us");
        cJSON_AddStringToObject(e, "label", a->label);
        cJSON_AddStringToObject(e, "file", a->file);
        cJSON_AddStringToObject(e, "device", a->device);
        cJSON_AddNumberToObject(e, "ranks", a->ranks);
        cJSON_AddNumberToObject(e, "nodes", a->nodes);
        cJSON_AddBoolToObject(e, "nccl_network_emulation", a->emulated != 0);
        cJSON_AddNumberToObject(e, "bytes", a->bytes);
        cJSON_AddStringToObject(e, "set", a->calibration ? "calibration" : "evaluation");
        cJSON_AddItemToArray(ar, e);
    }
    cJSON *pairs = cJSON_AddArrayToObject(o, "ps_vs_nccl");
    for (int i = 0; i < v->n_pairs; i++) {
        const cp_val_pair *p = &v->pairs[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "label", p->label);
        cJSON_AddNumberToObject(e, "measured_ps_ms", p->meas_ps);
        cJSON_AddNumberToObject(e, "measured_nccl_ms", p->meas_nccl);
        cJSON_AddNumberToObject(e, "predicted_ps_ms", p->pred_ps);
        cJSON_AddNumberToObject(e, "predicted_nccl_ms", p->pred_nccl);
        cJSON_AddStringToObject(e, "measured_winner", winner(p->meas_ps, p->meas_nccl));
        cJSON_AddStringToObject(e, "predicted_winner", winner(p->pred_ps, p->pred_nccl));
        cJSON_AddStringToObject(e, "verdict", cp_val_verdict_name(p->verdict));
        cJSON_AddStringToObject(e, "set", p->calibration ? "calibration" : p->excluded ? "excluded" : "evaluation");
        cJSON_AddItemToArray(pairs, e);
    }
    file_notes(o, "skipped", v->skipped, v->n_skipped, "reason");
    cJSON *pv = cJSON_AddObjectToObject(o, "provenance");
    cJSON_AddNumberToObject(pv, "files", v->n_provenance_files);
    file_notes(pv, "incomplete", v->unproven, v->n_unproven, "flaws");
    if (v->has_baseline) {
        cJSON *b = cJSON_AddObjectToObject(o, "baseline");
        cJSON_AddStringToObject(b, "file", v->baseline_file);
        cJSON *m = cJSON_AddArrayToObject(b, "metrics");
        for (int t = 0; t < CP_T_COUNT; t++) {
            if (t == CP_T_WINNER)
                continue;
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "key", v->targets[t].key);
            if (v->base_has[t])
                cJSON_AddNumberToObject(e, "baseline", v->base_value[t]);
            else
                cJSON_AddNullToObject(e, "baseline");
            if (v->base_now[t].n)
                cJSON_AddNumberToObject(e, "now", v->base_now[t].value);
            else
                cJSON_AddNullToObject(e, "now");
            cJSON_AddBoolToObject(e, "regressed", v->regressed[t] != 0);
            cJSON_AddItemToArray(m, e);
        }
        cJSON *fl = cJSON_AddArrayToObject(b, "decisions_now_wrong");
        for (int i = 0; i < v->n_flips; i++)
            cJSON_AddItemToArray(fl, cJSON_CreateString(v->flips[i]));
        cJSON *nw = cJSON_AddArrayToObject(b, "new_runs");
        for (int i = 0; i < v->n_runs; i++)
            if (!v->runs[i].selected && !remeasured(v, v->runs[i].label))
                cJSON_AddItemToArray(nw, cJSON_CreateString(v->runs[i].label));
        cJSON *ms = cJSON_AddArrayToObject(b, "missing_runs");
        for (int i = 0; i < v->n_missing; i++)
            cJSON_AddItemToArray(ms, cJSON_CreateString(v->missing[i]));
        cJSON *rm = cJSON_AddArrayToObject(b, "remeasured_runs");
        for (int i = 0; i < v->n_remeasured; i++)
            cJSON_AddItemToArray(rm, cJSON_CreateString(v->remeasured[i]));
    }
    if (v->n_plots) { /* --plot: the files written */
        cJSON *pl = cJSON_AddArrayToObject(o, "plots");
        for (int i = 0; i < v->n_plots; i++)
            cJSON_AddItemToArray(pl, cJSON_CreateString(v->plots[i]));
    }
    return cp_report_json(f, o);
}

/* --- CSV: one row per run ------------------------------------------------------------- */

static int report_csv(FILE *f, const cp_validation *v)
{
    fputs("file,label,source,network,device,batch,precision,gpus,comm,overlap,ps_servers,nccl_network_emulation,set,"
          "measured_ms,predicted_ms,error_ms,error_pct",
          f);
    for (int k = 0; k < 4; k++)
        fprintf(f, ",%s_measured_ms,%s_predicted_ms", phase_names[k], phase_names[k]);
    fputs(",exchange_measured_ms,exchange_predicted_ms,host_enqueue_ms,host_bound,host_enqueue_predicted_ms,"
          "memory_measured_mib,memory_predicted_mib,note\n",
          f);
    for (int i = 0; i < v->n_runs; i++) {
        const cp_val_run *r = &v->runs[i];
        cp_csv_text(f, r->file);
        fputc(',', f);
        cp_csv_text(f, r->label);
        fprintf(f, ",%s,", r->source == CP_VAL_PYTORCH ? "pytorch" : "measurement");
        cp_csv_text(f, r->network);
        fputc(',', f);
        cp_csv_text(f, r->device);
        fprintf(f, ",%d,%s,%d,%s,%d,%d,%d,%s,%.6g,%.6g,%.6g,%.4g", r->batch, r->precision, r->gpus, r->comm,
                r->overlap, r->ps_servers, r->emulated, set_name(r), r->meas_ms, r->pred_ms, r->pred_ms - r->meas_ms,
                cp_val_rel_pct(r->pred_ms, r->meas_ms));
        for (int k = 0; k < 4; k++)
            if (r->has_phases)
                fprintf(f, ",%.6g,%.6g", r->meas_phase[k], r->pred_phase[k]);
            else
                fputs(",,", f);
        if (r->has_exchange)
            fprintf(f, ",%.6g,%.6g,", r->meas_exchange_ms, r->pred_exchange_ms);
        else
            fputs(",,,", f);
        if (r->has_host)
            fprintf(f, "%.6g,%d,", r->host_enqueue_ms, r->host_bound);
        else
            fputs(",,", f);
        if (r->has_pred_host)
            fprintf(f, "%.6g,", r->pred_host_ms);
        else
            fputc(',', f);
        if (r->has_memory)
            fprintf(f, "%.6g,%.6g,", r->meas_memory_mib, r->pred_memory_mib);
        else
            fputs(",,", f);
        cp_csv_text(f, r->note);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* --- table and Markdown share their layout through these --------------------------------- */

typedef struct {
    FILE *f;
    int md;
    const char *doc; /* the Markdown's path, NULL on standard output */
} out;

/* "../" for every folder of the document's relative path, so a relative
 * file name links from the document's folder. */
static void link_prefix(const char *file, const char *doc, char *buf, size_t n)
{
    buf[0] = 0;
    if (!doc || file[0] == '/' || doc[0] == '/')
        return;
    while (doc[0] == '.' && doc[1] == '/')
        doc += 2;
    for (const char *p = doc; (p = strchr(p, '/')) && strlen(buf) + 3 < n; p++)
        strcat(buf, "../");
}

static void heading(out *o, const char *title)
{
    if (o->md)
        fprintf(o->f, "\n## %s\n\n", title);
    else
        fprintf(o->f, "\n%s:\n", title);
}

/* One table row: cells separated by " | " in Markdown, by widths in text
 * (negative: left-aligned). */
static void row(out *o, const int *widths, int n, const char *const *cells)
{
    if (o->md) {
        fputs("|", o->f);
        for (int i = 0; i < n; i++) {
            fputc(' ', o->f);
            for (const char *c = cells[i]; *c; c++) /* a '|' in a cell would end it */
                fputs(*c == '|' ? "\\|" : (char[2]){*c, 0}, o->f);
            fputs(" |", o->f);
        }
        fputc('\n', o->f);
        return;
    }
    fputs(" ", o->f);
    for (int i = 0; i < n; i++)
        fprintf(o->f, " %*s", i == n - 1 && widths[i] < 0 ? 0 : widths[i], cells[i]); /* no trailing blanks */
    fputc('\n', o->f);
}

/* A run column's width: at least `least` wide, and as wide as the longest
 * run label, so the columns after it stay in line (left-aligned: negative). */
static int run_column(const cp_validation *v, int least)
{
    size_t w = (size_t)least;
    for (int i = 0; i < v->n_runs; i++)
        if (strlen(v->runs[i].label) > w)
            w = strlen(v->runs[i].label);
    return -(int)w;
}

static void header(out *o, const int *widths, int n, const char *const *cells)
{
    row(o, widths, n, cells);
    if (!o->md)
        return;
    fputs("|", o->f);
    for (int i = 0; i < n; i++)
        fputs(widths[i] < 0 ? " --- |" : " ---: |", o->f);
    fputc('\n', o->f);
}

static void fmt_pct(char *b, size_t n, double pct)
{
    snprintf(b, n, "%+.1f%%", pct);
}

static void fmt_stat(char *mape, char *worst, size_t n, const cp_val_stat *s)
{
    if (!s->n) {
        snprintf(mape, n, "-");
        snprintf(worst, n, "-");
        return;
    }
    snprintf(mape, n, "%.1f%%", cp_val_mape(s));
    snprintf(worst, n, "%.1f%%", s->worst_pct);
}

static void targets_section(out *o, const cp_validation *v)
{
    heading(o, o->md ? "Targets (evaluation set)" : "targets (evaluation set, issue 5)");
    static const int w[] = {-70, 9, 10, -28};
    const char *h[] = {"target", "status", "value", "over"};
    header(o, w, 4, h);
    static const char *const over[CP_T_COUNT] = {"run", "run", "layer pass", "run", "all-reduce size", "decision"};
    for (int t = 0; t < CP_T_COUNT; t++) {
        const cp_val_target *x = &v->targets[t];
        char val[32], n[48], status[32];
        cp_val_target_value(x, t == CP_T_WINNER, val, sizeof val);
        snprintf(n, sizeof n, "%d %s%s", x->n, over[t], x->n == 1 ? "" : t == CP_T_LAYER_MAPE ? "es" : "s");
        snprintf(status, sizeof status, o->md && x->n ? "**%s**" : "%s", cp_val_status(x));
        const char *c[] = {x->what, status, val, n};
        row(o, w, 4, c);
    }
}

/* What the measurements' own spread leaves to any model: the targets'
 * configurations measured more than once (validate.h, cp_val_floor). */
static void repeatability_section(out *o, const cp_validation *v)
{
    heading(o, o->md ? "Repeatability: the error no prediction can avoid (evaluation set)" : "repeatability");
    const char *li = o->md ? "- " : "  ";
    for (int m = 0; m < 2; m++) {
        const cp_val_floor *fl = &v->floor[m];
        fprintf(o->f, "%s%s: %d runs of %d configurations, %d measured more than once (%d runs). One prediction "
                      "per configuration can reach at best %.2f%% MAPE",
                li, m ? "multi-GPU target" : "one-GPU target", fl->runs, fl->configs, fl->repeated_configs,
                fl->repeated_runs, fl->mape_floor_pct);
        if (fl->worst_run >= 0)
            fprintf(o->f, " and %.1f%% worst case (%s%s%s: %d runs, %.3f to %.3f ms)", fl->worst_floor_pct,
                    o->md ? "`" : "", v->runs[fl->worst_run].label, o->md ? "`" : "", fl->worst_n, fl->worst_min_ms,
                    fl->worst_max_ms);
        fprintf(o->f, "; %d configuration%s spread wider than %.0f%% ((max - min) / (max + min)).", fl->wide_configs,
                fl->wide_configs == 1 ? " is" : "s are", fl->limit_pct);
        if (fl->repeated_runs)
            fprintf(o->f, " Over the repeated configurations' runs alone, %.2f%% per run", fl->repeated_floor_pct);
        if (m == 0) {
            const char *sep = " (";
            for (int h = 0; h < 3; h++) {
                const cp_val_floor *fh = &v->floor_by_harness[h];
                if (!fh->repeated_runs)
                    continue;
                fprintf(o->f, "%s%s %.2f%% over %d, worst %.1f%%", sep, cp_val_harnesses[h], fh->repeated_floor_pct,
                        fh->repeated_runs, fh->worst_floor_pct);
                sep = "; ";
            }
            if (strcmp(sep, " (") != 0)
                fputc(')', o->f);
        }
        fputs(fl->repeated_runs ? ": what run-to-run noise alone costs a model where every configuration is measured "
                                  "more than once.\n"
                                : "\n",
              o->f);
    }
}

/* Where the host's speed moves a one-GPU prediction, predict shows a range
 * beside it: how often the runs fell inside it. */
static void range_section(out *o, const cp_validation *v)
{
    static const char *const what[] = {
        "cnnperf-measure, legacy API (cudnnFind's calls at their 10th and 90th percentile)",
        "PyTorch (eager operators at the cheapest and the dearest call of the device profile's)"};
    int any = 0;
    for (int set = 0; set < 2; set++)
        for (int src = CP_VAL_CNNPERF; src <= CP_VAL_PYTORCH; src++) {
            cp_val_range_count c = cp_val_host_range(v->runs, v->n_runs, (cp_val_source)src, set);
            int n = c.below + c.inside + c.above;
            if (!n)
                continue;
            if (!any++)
                heading(o, "The host's range: one-GPU runs the host's speed moves by a tenth or more, against the "
                           "range predict gives them");
            fprintf(o->f, "%s%s set, %s: %d of %d inside (%.0f%%), %d below, %d above\n", o->md ? "- " : "  ",
                    set ? "calibration" : "evaluation", what[src == CP_VAL_PYTORCH], c.inside, n,
                    100.0 * c.inside / n, c.below, c.above);
        }
}

static void sets_section(out *o, const cp_validation *v)
{
    int ev = count_runs(v, 0, -1), ca = count_runs(v, 1, -1), excl = 0, ar_ca = 0;
    for (int i = 0; i < v->n_runs; i++)
        excl += v->runs[i].excluded && !v->runs[i].calibration;
    for (int i = 0; i < v->n_ar; i++)
        ar_ca += v->ar[i].calibration;
    heading(o, o->md ? "Data" : "data");
    const char *li = o->md ? "- " : "  ";
    fprintf(o->f, "%sevaluation set: %d runs (%d one-GPU, %d multi-GPU); %d NCCL all-reduce sizes; %d PS/NCCL pairs\n",
            li, ev, count_runs(v, 0, 0), count_runs(v, 0, 1), v->n_ar - ar_ca, v->n_pairs);
    if (excl)
        fprintf(o->f, "%s%d run%s kept out of the targets (the note says why)\n", li, excl, excl == 1 ? "" : "s");
    fprintf(o->f, "%scalibration set (%s): ", li, v->calib_file[0] ? v->calib_file : "no list found");
    for (int i = 0; i < v->n_calib_networks; i++)
        fprintf(o->f, "%s%s", i ? ", " : "", v->calib_networks[i]);
    fprintf(o->f, "%s%d run%s measured, kept out of the targets\n", v->n_calib_networks ? "; " : "", ca,
            ca == 1 ? "" : "s");
    if (v->n_calib_sweeps) {
        fprintf(o->f, "%sNCCL sweeps a link parameter was fitted on (calibration set, %d all-reduce sizes kept out of "
                      "the target): ",
                li, ar_ca);
        for (int i = 0; i < v->n_calib_sweeps; i++)
            fprintf(o->f, o->md ? "%s`%s`" : "%s%s", i ? ", " : "", v->calib_sweeps[i]);
        fputc('\n', o->f);
    }
    if (v->n_skipped) {
        fprintf(o->f, "%s%d file%s skipped: ", li, v->n_skipped, v->n_skipped == 1 ? "" : "s");
        for (int i = 0; i < v->n_skipped; i++)
            fprintf(o->f, "%s%s%s%s (%s)", i ? ", " : "", o->md ? "`" : "", v->skipped[i].file, o->md ? "`" : "",
                    v->skipped[i].reason);
        fputc('\n', o->f);
    }
    if (v->n_provenance_files && !v->n_unproven)
        fprintf(o->f, "%sprovenance: all %d measured files name their command, commit, date, GPU, driver and library "
                      "versions\n",
                li, v->n_provenance_files);
    for (int i = 0; i < v->n_unproven; i++)
        fprintf(o->f, "%sprovenance incomplete: %s%s%s: %s\n", li, o->md ? "`" : "", v->unproven[i].file,
                o->md ? "`" : "", v->unproven[i].reason);
}

static void runs_section(out *o, const cp_validation *v)
{
    heading(o, o->md ? "Runs: iteration time" : "runs: iteration time (ms)");
    const int w[] = {run_column(v, 44), -11, 11, 12, 10, 8, -1};
    const char *h[] = {"run", "set", "measured", "predicted", "error", "error %", "note"};
    header(o, w, 7, h);
    for (int i = 0; i < v->n_runs; i++) {
        const cp_val_run *r = &v->runs[i];
        char m[32], p[32], e[32], pc[32], lab[256];
        snprintf(m, sizeof m, "%.3f", r->meas_ms);
        snprintf(p, sizeof p, "%.3f", r->pred_ms);
        snprintf(e, sizeof e, "%+.3f", r->pred_ms - r->meas_ms);
        fmt_pct(pc, sizeof pc, cp_val_rel_pct(r->pred_ms, r->meas_ms));
        char up[64] = "";
        link_prefix(r->file, o->doc, up, sizeof up);
        snprintf(lab, sizeof lab, o->md ? "[%s](%s%s)" : "%s", r->label, up, r->file);
        const char *c[] = {o->md ? lab : r->label, set_name(r), m, p, e, pc, r->note};
        row(o, w, 7, c);
    }
}

static void groups_section(out *o, const cp_validation *v, int calibration)
{
    if (count_runs(v, calibration, -1) == 0)
        return;
    heading(o, calibration ? "Iteration time, calibration set (not in the targets)"
                           : "Iteration time by network, device, precision, exchange, GPU count, harness, host and "
                             "draw (evaluation set)");
    static const int w[] = {-10, -30, 5, 8, 8};
    const char *h[] = {"by", "value", "runs", "MAPE", "worst"};
    header(o, w, 5, h);
    cp_val_group *g = malloc((size_t)v->n_runs * sizeof *g);
    for (int d = 0; g && d < CP_DIM_COUNT; d++) {
        if (!dim_of_set(d, calibration))
            continue;
        int ng = cp_val_groups(v->runs, v->n_runs, (cp_val_dim)d, calibration, g, v->n_runs);
        for (int k = 0; k < ng; k++) {
            char n[16], mape[32], worst[32];
            snprintf(n, sizeof n, "%d", g[k].st.n);
            fmt_stat(mape, worst, sizeof mape, &g[k].st);
            const char *c[] = {cp_val_dim_names[d], g[k].value, n, mape, worst};
            row(o, w, 5, c);
        }
    }
    free(g);
}

static void layers_section(out *o, const cp_validation *v)
{
    const char *kinds[64];
    int nk = layer_kinds(v, kinds, 64);
    if (!nk)
        return;
    heading(o, o->md ? "Layer passes by kind (evaluation set, passes measured at 5 us or more)"
                     : "layer passes by kind (evaluation set, passes measured >= 5 us)");
    static const int w[] = {-16, -16, 7, 8, 9};
    const char *h[] = {"kind", "pass", "passes", "MAPE", "worst"};
    header(o, w, 5, h);
    for (int k = 0; k < nk; k++)
        for (int p = 0; p < CP_VAL_PASSES; p++) {
            cp_val_stat st = cp_val_layer_stat(v->runs, v->n_runs, kinds[k], p, 0);
            if (!st.n)
                continue;
            char n[16], mape[32], worst[32];
            snprintf(n, sizeof n, "%d", st.n);
            fmt_stat(mape, worst, sizeof mape, &st);
            const char *c[] = {kinds[k], pass_names[p], n, mape, worst};
            row(o, w, 5, c);
        }
}

/* The conv and fc passes again, by whether the host bound the run (the iteration tables' "host"): in a run the
 * host paces, the events around a pass also time the wait for the host's next call, which no kernel model holds
 * (docs/ACCURACY.md, session 63). */
static void layers_by_host_section(out *o, const cp_validation *v)
{
    static const char *const verdicts[] = {"not bound", "bound", "unknown"};
    heading(o, o->md ? "Conv and fc passes by host (evaluation set, passes measured at 5 us or more)"
                     : "conv and fc passes by host (evaluation set, passes measured >= 5 us)");
    static const int w[] = {-16, 7, 8, 9};
    const char *h[] = {"host", "passes", "MAPE", "worst"};
    header(o, w, 4, h);
    for (size_t b = 0; b < sizeof verdicts / sizeof verdicts[0]; b++) {
        cp_val_stat st = {0};
        for (int i = 0; i < v->n_runs; i++) {
            if (strcmp(cp_val_host_verdict(&v->runs[i]), verdicts[b]) != 0)
                continue;
            cp_val_stat one = cp_val_layer_stat(&v->runs[i], 1, NULL, CP_VAL_PASSES, 0);
            st.n += one.n;
            st.sum_pct += one.sum_pct;
            st.worst_pct = fmax(st.worst_pct, one.worst_pct);
        }
        if (!st.n)
            continue;
        char count[16], mape[32], worst[32];
        snprintf(count, sizeof count, "%d", st.n);
        fmt_stat(mape, worst, sizeof mape, &st);
        const char *c[] = {verdicts[b], count, mape, worst};
        row(o, w, 4, c);
    }
}

static void phases_section(out *o, const cp_validation *v)
{
    int any = 0, exchange = 0;
    for (int i = 0; i < v->n_runs; i++) {
        any |= v->runs[i].has_phases;
        exchange |= v->runs[i].has_exchange;
    }
    if (!any)
        return;
    heading(o, o->md ? "Phases: measured / predicted ms (error)" : "phases: measured / predicted ms (error)");
    const int w[] = {run_column(v, 44), -25, -25, -25, -25, -25};
    const char *h[] = {"run", "loading", "forward", "backward", "update", "exchange"};
    int cols = exchange ? 6 : 5;
    header(o, w, cols, h);
    for (int i = 0; i < v->n_runs; i++) {
        const cp_val_run *r = &v->runs[i];
        if (!r->has_phases)
            continue;
        char cell[5][64];
        for (int k = 0; k < 4; k++)
            snprintf(cell[k], sizeof cell[k], "%.3f / %.3f (%+.0f%%)", r->meas_phase[k], r->pred_phase[k],
                     cp_val_rel_pct(r->pred_phase[k], r->meas_phase[k]));
        if (r->has_exchange)
            snprintf(cell[4], sizeof cell[4], "%.3f / %.3f (%+.0f%%)", r->meas_exchange_ms, r->pred_exchange_ms,
                     cp_val_rel_pct(r->pred_exchange_ms, r->meas_exchange_ms));
        else
            snprintf(cell[4], sizeof cell[4], "-");
        const char *c[] = {r->label, cell[0], cell[1], cell[2], cell[3], cell[4]};
        row(o, w, cols, c);
    }
}

/* A table row per layer: three per run keep docs/ACCURACY.md readable (and within
 * the GPU machine's 64 MiB tree); the JSON report keeps five. */
enum { WORST_IN_TABLE = 3 };

static void worst_section(out *o, const cp_validation *v)
{
    int any = 0;
    for (int i = 0; i < v->n_runs; i++)
        any |= v->runs[i].n_layers > 0;
    if (!any)
        return;
    heading(o, o->md ? "Worst layers (3 per run, forward + both backward passes, ms; 5 in --format json)"
                     : "worst layers (3 per run, forward + both backward passes, ms; 5 in --format json)");
    const int w[] = {run_column(v, 44), -28, -10, 9, 10, 9, 8};
    const char *h[] = {"run", "layer", "kind", "measured", "predicted", "error", "error %"};
    header(o, w, 7, h);
    for (int i = 0; i < v->n_runs; i++) {
        const cp_val_run *r = &v->runs[i];
        int idx[WORST_IN_TABLE], n = cp_val_worst_layers(r, idx, WORST_IN_TABLE);
        for (int k = 0; k < n; k++) {
            const cp_val_layer *y = &r->layers[idx[k]];
            double m = layer_sum(y->meas), p = layer_sum(y->pred);
            char ms[32], ps[32], es[32], pc[32];
            snprintf(ms, sizeof ms, "%.3f", m);
            snprintf(ps, sizeof ps, "%.3f", p);
            snprintf(es, sizeof es, "%+.3f", p - m);
            fmt_pct(pc, sizeof pc, cp_val_rel_pct(p, m));
            const char *c[] = {k ? "" : r->label, y->name, y->kind, ms, ps, es, pc};
            row(o, w, 7, c);
        }
    }
}

static void nccl_section(out *o, const cp_validation *v)
{
    if (!v->n_ar)
        return;
    heading(o, o->md ? "NCCL all-reduce, in place (1 MB to 1 GB)" : "NCCL all-reduce, in place (1 MB to 1 GB)");
    static const int w[] = {-34, 12, 12, 13, 8, -11};
    const char *h[] = {"sweep", "bytes", "measured us", "predicted us", "error %", "set"};
    header(o, w, 6, h);
    for (int i = 0; i < v->n_ar; i++) {
        const cp_val_ar *a = &v->ar[i];
        char b[32], m[32], p[32], pc[32];
        snprintf(b, sizeof b, "%.0f", a->bytes);
        snprintf(m, sizeof m, "%.1f", a->meas_us);
        snprintf(p, sizeof p, "%.1f", a->pred_us);
        fmt_pct(pc, sizeof pc, cp_val_rel_pct(a->pred_us, a->meas_us));
        /* several sweeps of one setup: which folder each came from */
        char sweep[sizeof a->label + 80], dir[sizeof a->file];
        snprintf(dir, sizeof dir, "%s", a->file);
        char *slash = strrchr(dir, '/');
        if (slash) {
            *slash = 0;
            slash = strrchr(dir, '/');
        }
        snprintf(sweep, sizeof sweep, "%s [%.60s]", a->label, slash ? slash + 1 : dir);
        const char *c[] = {sweep, b, m, p, pc, a->calibration ? "calibration" : "evaluation"};
        row(o, w, 6, c);
    }
}

/* Every run that recorded its GPU memory: measured, predicted, and a summary per source. */
static void memory_section(out *o, const cp_validation *v)
{
    int n = 0;
    for (int i = 0; i < v->n_runs; i++)
        n += v->runs[i].has_memory;
    if (!n)
        return;
    heading(o, "GPU memory: measured and predicted (MiB)");
    for (int src = CP_VAL_CNNPERF; src <= CP_VAL_PYTORCH; src++) {
        int wrong;
        cp_val_stat st = cp_val_memory_stat(v->runs, v->n_runs, (cp_val_source)src, &wrong);
        if (st.n)
            fprintf(o->f, "%s%s: %.1f%% mean error over %d run%s, worst %.1f%%; %d that ran predicted not to fit\n",
                    o->md ? "- " : "  ", src == CP_VAL_PYTORCH ? "PyTorch, peak allocation" :
                                                                 "cnnperf-measure, rank 0 besides the workspace",
                    cp_val_mape(&st), st.n, st.n == 1 ? "" : "s", st.worst_pct, wrong);
    }
    if (o->md)
        fputc('\n', o->f);
    const int w[] = {run_column(v, 58), 10, 10, 8, -5};
    const char *h[] = {"run", "measured", "predicted", "error", "fits"};
    header(o, w, 5, h);
    for (int i = 0; i < v->n_runs; i++) {
        const cp_val_run *r = &v->runs[i];
        if (!r->has_memory)
            continue;
        char a[32], b[32], e[32];
        snprintf(a, sizeof a, "%.0f", r->meas_memory_mib);
        snprintf(b, sizeof b, "%.0f", r->pred_memory_mib);
        fmt_pct(e, sizeof e, cp_val_rel_pct(r->pred_memory_mib, r->meas_memory_mib));
        const char *c[] = {r->label, a, b, e, r->pred_fits ? "yes" : "no"};
        row(o, w, 5, c);
    }
}

/* PyTorch's runs that timed their host: the wall time the host spent issuing an iteration against the
 * eager model's, by set and GPU count, then run by run. */
static void host_section(out *o, const cp_validation *v)
{
    int n = 0;
    for (int i = 0; i < v->n_runs; i++)
        n += v->runs[i].has_host && v->runs[i].has_pred_host;
    if (!n)
        return;
    heading(o, "PyTorch's host: measured host wall and the eager model's issue time (ms; by phase measured / predicted)");
    for (int set = 0; set < 2; set++)
        for (int ddp = 0; ddp < 2; ddp++) {
            cp_val_stat st = cp_val_host_stat(v->runs, v->n_runs, set, ddp);
            double med[CP_EAGER_HOST_PHASES];
            int np = cp_val_host_phase_ratios(v->runs, v->n_runs, set, ddp, med);
            if (!st.n)
                continue;
            fprintf(o->f, "%s%s set, %s, host-bound runs: %.1f%% mean error over %d run%s, worst %.1f%%",
                    o->md ? "- " : "  ", set ? "calibration" : "evaluation", ddp ? "DDP" : "one GPU",
                    cp_val_mape(&st), st.n, st.n == 1 ? "" : "s", st.worst_pct);
            if (np) {
                fprintf(o->f, "; measured / predicted by phase (median of %d):", np);
                for (int k = 0; k < CP_EAGER_HOST_PHASES; k++)
                    fprintf(o->f, "%s %s %.2f", k ? "," : "", cp_eager_host_phase_names[k], med[k]);
            }
            fputc('\n', o->f);
        }
    if (o->md)
        fputc('\n', o->f);
    const int w[] = {run_column(v, 58), 10, 10, 8, 12, 12, 12, 10, -5};
    const char *h[] = {"run", "measured", "predicted", "error", cp_eager_host_phase_names[0],
                       cp_eager_host_phase_names[1], cp_eager_host_phase_names[2], "iteration", "bound"};
    header(o, w, 9, h);
    for (int i = 0; i < v->n_runs; i++) {
        const cp_val_run *r = &v->runs[i];
        if (!r->has_host || !r->has_pred_host)
            continue;
        char a[32], b[32], e[32], ph[CP_EAGER_HOST_PHASES][32], it[32];
        snprintf(a, sizeof a, "%.1f", r->host_enqueue_ms);
        snprintf(b, sizeof b, "%.1f", r->pred_host_ms);
        fmt_pct(e, sizeof e, cp_val_rel_pct(r->pred_host_ms, r->host_enqueue_ms));
        for (int k = 0; k < CP_EAGER_HOST_PHASES; k++) /* measured / predicted */
            if (r->has_host_phase)
                snprintf(ph[k], sizeof ph[k], "%.1f / %.1f", r->host_phase_ms[k], r->pred_host_phase_ms[k]);
            else
                snprintf(ph[k], sizeof ph[k], "-");
        snprintf(it, sizeof it, "%.1f", r->meas_ms);
        const char *c[] = {r->label, a, b, e, ph[0], ph[1], ph[2], it, r->host_bound ? "yes" : "no"};
        row(o, w, 9, c);
    }
}

static void pairs_section(out *o, const cp_validation *v)
{
    if (!v->n_pairs)
        return;
    heading(o, o->md ? "PS or NCCL: the faster of each, measured and predicted (ms)"
                     : "PS or NCCL: the faster of each, measured and predicted (ms)");
    static const int w[] = {-34, 11, 11, 11, 11, -12, -11};
    const char *h[] = {"job", "meas. ps", "meas. nccl", "pred. ps", "pred. nccl", "verdict", "set"};
    header(o, w, 7, h);
    for (int i = 0; i < v->n_pairs; i++) {
        const cp_val_pair *p = &v->pairs[i];
        char a[32], b[32], c2[32], d[32];
        snprintf(a, sizeof a, "%.3f", p->meas_ps);
        snprintf(b, sizeof b, "%.3f", p->meas_nccl);
        snprintf(c2, sizeof c2, "%.3f", p->pred_ps);
        snprintf(d, sizeof d, "%.3f", p->pred_nccl);
        const char *c[] = {p->label, a, b, c2, d, cp_val_verdict_name(p->verdict),
                           p->calibration ? "calibration" : p->excluded ? "excluded" : "evaluation"};
        row(o, w, 7, c);
    }
}

static void baseline_section(out *o, const cp_validation *v)
{
    if (!v->has_baseline)
        return;
    heading(o, "baseline");
    fprintf(o->f, "  %s (tolerance %.1f percentage points; metrics recomputed over the runs it knows)\n",
            v->baseline_file, CP_VAL_TOLERANCE_PP);
    static const int w[] = {-28, 10, 10, -10};
    const char *h[] = {"metric", "baseline", "now", "status"};
    header(o, w, 4, h);
    for (int t = 0; t < CP_T_COUNT; t++) {
        if (t == CP_T_WINNER)
            continue;
        char b[32], n[32];
        snprintf(b, sizeof b, v->base_has[t] ? "%.2f%%" : "-", v->base_value[t]);
        snprintf(n, sizeof n, v->base_now[t].n ? "%.2f%%" : "-", v->base_now[t].value);
        const char *c[] = {v->targets[t].key, b, n, v->regressed[t] ? "REGRESSED" : "ok"};
        row(o, w, 4, c);
    }
    for (int i = 0; i < v->n_flips; i++)
        fprintf(o->f, "  PS/NCCL decision right in the baseline, wrong now: %s\n", v->flips[i]);
    for (int i = 0; i < v->n_remeasured; i++)
        fprintf(o->f, "  measured again since the baseline (reported, not checked): %s\n", v->remeasured[i]);
    for (int i = 0; i < v->n_runs; i++) {
        if (!v->runs[i].selected && !remeasured(v, v->runs[i].label))
            fprintf(o->f, "  new run, not in the baseline (reported, not checked): %s\n", v->runs[i].label);
    }
    for (int i = 0; i < v->n_missing; i++)
        fprintf(o->f, "  in the baseline, not measured now: %s\n", v->missing[i]);
}

/* The plot's path as the document links it: relative to the document's folder. */
static const char *relative_to_doc(const char *plot, const char *doc)
{
    const char *slash = doc ? strrchr(doc, '/') : NULL;
    size_t dir = slash ? (size_t)(slash - doc + 1) : 0;
    if (dir && strncmp(plot, doc, dir) == 0)
        return plot + dir;
    return plot;
}

static int report_text(FILE *f, const cp_validation *v, int md)
{
    out o = {f, md, v->doc_path && strcmp(v->doc_path, "-") != 0 ? v->doc_path : NULL};
    if (md) {
        fprintf(f, "# Accuracy: predictions against measurements\n\n");
        fprintf(f, "<!-- generated by cnnperf validate: edit only below the hand-written marker line -->\n\n");
        fprintf(f, "Generated by `tools/accuracy.sh`, which runs\n`%s`.\nEverything above the line "
                   "`%s` is regenerated; the text below it is kept.\n",
                v->command, CP_VAL_MARKER);
        fprintf(f, "Predictions with the layer-pass calibration %s.\n", v->calibration[0] ? v->calibration : "-");
    } else {
        fprintf(f, "cnnperf validate: %d run%s, %d NCCL all-reduce size%s, %d file%s skipped\n", v->n_runs,
                v->n_runs == 1 ? "" : "s", v->n_ar, v->n_ar == 1 ? "" : "s", v->n_skipped,
                v->n_skipped == 1 ? "" : "s");
        fprintf(f, "layer-pass calibration: %s\n", v->calibration[0] ? v->calibration : "-");
    }
    targets_section(&o, v);
    repeatability_section(&o, v);
    range_section(&o, v);
    sets_section(&o, v);
    runs_section(&o, v);
    groups_section(&o, v, 0);
    groups_section(&o, v, 1);
    layers_section(&o, v);
    layers_by_host_section(&o, v);
    phases_section(&o, v);
    worst_section(&o, v);
    nccl_section(&o, v);
    pairs_section(&o, v);
    memory_section(&o, v);
    host_section(&o, v);
    if (!md)
        baseline_section(&o, v);
    if (!md && v->n_plots) { /* the table's: where --plot wrote them */
        fputs("\nplots (gnuplot):\n", f);
        for (int i = 0; i < v->n_plots; i++)
            fprintf(f, "  %s\n", v->plots[i]);
    }
    if (md && v->n_plots) {
        heading(&o, "Plots");
        for (int i = 0; i < v->n_plots; i++)
            fprintf(f, "![%s](%s)\n\n", relative_to_doc(v->plots[i], v->doc_path),
                    relative_to_doc(v->plots[i], v->doc_path));
    }
    if (md) {
        fprintf(f, "\n%s\n", CP_VAL_MARKER);
        fputs(v->handwritten ? v->handwritten : "\n## Why the model is off\n\n(hand-written: explain the gaps here)\n",
              f);
    }
    return ferror(f) ? -1 : 0;
}

int cp_validation_report(FILE *f, const cp_validation *v, cp_val_format fmt)
{
    switch (fmt) {
    case CP_VFMT_JSON: return report_json(f, v);
    case CP_VFMT_CSV: return report_csv(f, v);
    case CP_VFMT_MARKDOWN: return report_text(f, v, 1);
    default: return report_text(f, v, 0);
    }
}
