#include "validate.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../util/strutil.h"

/* --- errors ------------------------------------------------------------------- */

double cp_val_rel_pct(double pred, double meas)
{
    return meas > 0 ? 100.0 * (pred - meas) / meas : 0;
}

void cp_val_stat_add(cp_val_stat *s, double pred, double meas)
{
    double e = fabs(cp_val_rel_pct(pred, meas));
    s->n++;
    s->sum_pct += e;
    if (e > s->worst_pct)
        s->worst_pct = e;
}

double cp_val_mape(const cp_val_stat *s)
{
    return s->n ? s->sum_pct / s->n : 0;
}

double cp_mape(const double *pred, const double *meas, int n)
{
    cp_val_stat s = {0};
    for (int i = 0; i < n; i++)
        cp_val_stat_add(&s, pred[i], meas[i]);
    return cp_val_mape(&s);
}

/* --- PS or NCCL ----------------------------------------------------------------- */

cp_val_verdict cp_val_winner(double meas_ps, double meas_nccl, double pred_ps, double pred_nccl)
{
    double lo = meas_ps < meas_nccl ? meas_ps : meas_nccl;
    if (!(lo > 0) || fabs(meas_ps - meas_nccl) <= CP_VAL_WINNER_MARGIN * lo)
        return CP_VAL_TIE;
    int ps_measured = meas_ps < meas_nccl, ps_predicted = pred_ps < pred_nccl;
    return ps_measured == ps_predicted ? CP_VAL_RIGHT : CP_VAL_WRONG;
}

const char *cp_val_verdict_name(cp_val_verdict v)
{
    return v == CP_VAL_RIGHT ? "right" : v == CP_VAL_WRONG ? "wrong" : "within 10%";
}

int cp_val_pairs(const cp_val_run *runs, int n, cp_val_pair *out, int cap)
{
    int np = 0;
    /* has[i]: bit 0 a PS run seen, bit 1 an NCCL run */
    int *has = calloc((size_t)(cap > 0 ? cap : 1), sizeof *has);
    if (!has)
        return 0;
    for (int i = 0; i < n; i++) {
        const cp_val_run *r = &runs[i];
        int ps = strcmp(r->comm, "ps") == 0, nccl = strcmp(r->comm, "nccl") == 0;
        if (r->gpus < 2 || (!ps && !nccl))
            continue;
        /* one training stack's two exchanges: cnnperf-measure's PS job against its own NCCL job through the
         * same convolution API, never against a PyTorch DDP job (Python's host costs, channels-last) */
        char key[192];
        snprintf(key, sizeof key, "%s b%d %s %dx%s%s%s%s", r->network, r->batch, r->precision, r->gpus, r->device,
                 r->emulated ? " emulated" : "", *r->harness ? ", " : "", r->harness);
        int k = 0;
        while (k < np && strcmp(out[k].label, key) != 0)
            k++;
        if (k == np) {
            if (np == cap)
                continue;
            memset(&out[k], 0, sizeof out[k]);
            snprintf(out[k].label, sizeof out[k].label, "%s", key);
            np++;
        }
        cp_val_pair *p = &out[k];
        double *m = ps ? &p->meas_ps : &p->meas_nccl, *q = ps ? &p->pred_ps : &p->pred_nccl;
        int bit = ps ? 1 : 2;
        if (!(has[k] & bit) || r->meas_ms < *m)
            *m = r->meas_ms;
        if (!(has[k] & bit) || r->pred_ms < *q)
            *q = r->pred_ms;
        has[k] |= bit;
        p->calibration |= r->calibration;
        p->excluded |= r->excluded;
    }
    int kept = 0;
    for (int k = 0; k < np; k++) {
        if (has[k] != 3)
            continue;
        out[kept] = out[k];
        out[kept].verdict = cp_val_winner(out[k].meas_ps, out[k].meas_nccl, out[k].pred_ps, out[k].pred_nccl);
        kept++;
    }
    free(has);
    return kept;
}

/* --- scopes ----------------------------------------------------------------------- */

int cp_val_in_targets(const cp_val_run *r)
{
    return !r->calibration && !r->excluded;
}

int cp_val_one_gpu_scope(const cp_val_run *r)
{
    return r->gpus == 1 && (strcmp(r->device, "h100") == 0 || strcmp(r->device, "h200") == 0) &&
           (strcmp(r->precision, "fp32") == 0 || strcmp(r->precision, "fp16") == 0) && r->batch >= 32 &&
           r->batch <= 256;
}

int cp_val_pass_counts(double meas_ms)
{
    return meas_ms >= CP_VAL_MIN_PASS_MS;
}

/* --- targets ----------------------------------------------------------------------- */

cp_val_stat cp_val_memory_stat(const cp_val_run *runs, int n, cp_val_source source, int *wrong)
{
    cp_val_stat s = {0};
    *wrong = 0;
    for (int i = 0; i < n; i++)
        if (runs[i].has_memory && runs[i].source == source) {
            cp_val_stat_add(&s, runs[i].pred_memory_mib, runs[i].meas_memory_mib);
            *wrong += !runs[i].pred_fits;
        }
    return s;
}

cp_val_range_count cp_val_host_range(const cp_val_run *runs, int n, cp_val_source source, int calibration)
{
    cp_val_range_count c = {0};
    for (int i = 0; i < n; i++) {
        const cp_val_run *r = &runs[i];
        if (!r->has_range || r->pred_high_ms - r->pred_low_ms < CP_VAL_RANGE_WIDTH * r->pred_ms ||
            r->source != source || r->excluded || r->calibration != calibration || !cp_val_one_gpu_scope(r))
            continue;
        int side = cp_val_range_side(r);
        c.below += side < 0;
        c.inside += side == 0;
        c.above += side > 0;
    }
    return c;
}

int cp_val_range_side(const cp_val_run *r)
{
    return r->meas_ms < r->pred_low_ms ? -1 : r->meas_ms > r->pred_high_ms ? 1 : 0;
}

cp_val_stat cp_val_host_stat(const cp_val_run *runs, int n, int calibration, int ddp)
{
    cp_val_stat s = {0};
    for (int i = 0; i < n; i++) {
        const cp_val_run *r = &runs[i];
        if (r->has_host && r->host_bound && r->has_pred_host && !r->excluded && r->calibration == calibration &&
            (r->gpus > 1) == ddp)
            cp_val_stat_add(&s, r->pred_host_ms, r->host_enqueue_ms);
    }
    return s;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Whether the eager model predicted a host time for every phase of r (each ratio's denominator). */
static int host_phases_predicted(const cp_val_run *r)
{
    for (int k = 0; k < CP_VAL_HOST_PHASES; k++)
        if (!(r->pred_host_phase_ms[k] > 0))
            return 0;
    return 1;
}

int cp_val_host_phase_ratios(const cp_val_run *runs, int n, int calibration, int ddp,
                             double median[CP_VAL_HOST_PHASES])
{
    double *q = malloc((size_t)(n > 0 ? n : 1) * CP_VAL_HOST_PHASES * sizeof *q); /* phase k's ratios from q + k n */
    int count = 0;
    for (int k = 0; k < CP_VAL_HOST_PHASES; k++)
        median[k] = 0;
    if (!q)
        return 0;
    for (int i = 0; i < n; i++) {
        const cp_val_run *r = &runs[i];
        if (r->has_host_phase && r->host_bound && r->has_pred_host && !r->excluded && r->calibration == calibration &&
            (r->gpus > 1) == ddp && host_phases_predicted(r)) {
            for (int k = 0; k < CP_VAL_HOST_PHASES; k++)
                q[k * n + count] = r->host_phase_ms[k] / r->pred_host_phase_ms[k];
            count++;
        }
    }
    for (int k = 0; count && k < CP_VAL_HOST_PHASES; k++) {
        double *a = q + k * n;
        qsort(a, (size_t)count, sizeof *a, by_value);
        median[k] = count % 2 ? a[count / 2] : 0.5 * (a[count / 2 - 1] + a[count / 2]);
    }
    free(q);
    return count;
}

static int conv_or_fc(const char *kind)
{
    return strcmp(kind, "conv") == 0 || strcmp(kind, "fc") == 0;
}

cp_val_stat cp_val_layer_stat(const cp_val_run *runs, int n, const char *kind, int pass, int only_selected)
{
    cp_val_stat s = {0};
    for (int i = 0; i < n; i++) {
        const cp_val_run *r = &runs[i];
        if (!cp_val_in_targets(r) || (only_selected && !r->selected))
            continue;
        for (int l = 0; l < r->n_layers; l++) {
            const cp_val_layer *y = &r->layers[l];
            if (kind ? strcmp(y->kind, kind) != 0 : !conv_or_fc(y->kind))
                continue;
            for (int p = 0; p < CP_VAL_PASSES; p++)
                if ((pass == CP_VAL_PASSES || pass == p) && cp_val_pass_counts(y->meas[p]) && !y->unscored[p])
                    cp_val_stat_add(&s, y->pred[p], y->meas[p]);
        }
    }
    return s;
}

static void set_stat(cp_val_target *t, const cp_val_stat *s, int worst)
{
    t->n = s->n;
    t->value = worst ? s->worst_pct : cp_val_mape(s);
    t->met = s->n > 0 && t->value <= t->limit;
}

void cp_val_targets(const cp_val_run *runs, int n, const cp_val_ar *ar, int nar, const cp_val_pair *pairs,
                    int npairs, int only_selected, cp_val_target out[CP_T_COUNT])
{
    static const cp_val_target defs[CP_T_COUNT] = {
        [CP_T_ONE_GPU_MAPE] = {"one_gpu_iteration_mape",
                               "one-GPU iteration MAPE <= 5% (H100/H200, fp32/fp16, batch 32-256)", 5, 0, 0, 0},
        [CP_T_ONE_GPU_WORST] = {"one_gpu_iteration_worst", "one-GPU iteration worst |error| <= 12% (same runs)", 12,
                                0, 0, 0},
        [CP_T_LAYER_MAPE] = {"conv_fc_layer_pass_mape",
                             "conv+fc per-layer pass MAPE <= 10% (passes measured >= 5 us)", 10, 0, 0, 0},
        [CP_T_MULTI_GPU_MAPE] = {"multi_gpu_iteration_mape", "multi-GPU iteration MAPE <= 5%", 5, 0, 0, 0},
        [CP_T_NCCL_MAPE] = {"nccl_allreduce_mape", "NCCL all-reduce MAPE <= 5% (1 MB-1 GB)", 5, 0, 0, 0},
        [CP_T_WINNER] = {"ps_vs_nccl_wrong", "PS vs NCCL: predicted winner always right (>10% apart)", 0, 0, 0, 0},
    };
    memcpy(out, defs, sizeof defs);
    cp_val_stat one = {0}, multi = {0}, nccl = {0};
    for (int i = 0; i < n; i++) {
        const cp_val_run *r = &runs[i];
        if (!cp_val_in_targets(r) || (only_selected && !r->selected))
            continue;
        if (cp_val_one_gpu_scope(r))
            cp_val_stat_add(&one, r->pred_ms, r->meas_ms);
        if (r->gpus > 1)
            cp_val_stat_add(&multi, r->pred_ms, r->meas_ms);
    }
    for (int i = 0; i < nar; i++)
        if (!ar[i].calibration && (!only_selected || ar[i].selected))
            cp_val_stat_add(&nccl, ar[i].pred_us, ar[i].meas_us);
    cp_val_stat layer = cp_val_layer_stat(runs, n, NULL, CP_VAL_PASSES, only_selected);
    set_stat(&out[CP_T_ONE_GPU_MAPE], &one, 0);
    set_stat(&out[CP_T_ONE_GPU_WORST], &one, 1);
    set_stat(&out[CP_T_LAYER_MAPE], &layer, 0);
    set_stat(&out[CP_T_MULTI_GPU_MAPE], &multi, 0);
    set_stat(&out[CP_T_NCCL_MAPE], &nccl, 0);
    cp_val_target *w = &out[CP_T_WINNER];
    for (int i = 0; i < npairs; i++) {
        const cp_val_pair *p = &pairs[i];
        if (p->calibration || p->excluded || (only_selected && !p->selected) || p->verdict == CP_VAL_TIE)
            continue;
        w->n++;
        w->value += p->verdict == CP_VAL_WRONG;
    }
    w->met = w->n > 0 && w->value <= w->limit;
}

void cp_val_baseline_targets(const cp_val_run *runs, int n, const cp_val_ar *ar, int nar,
                             cp_val_target out[CP_T_COUNT])
{
    cp_val_run *r = calloc((size_t)(n ? n : 1), sizeof *r);
    cp_val_ar *a = calloc((size_t)(nar ? nar : 1), sizeof *a);
    cp_val_stat layer = {0};
    for (int i = 0; r && i < n; i++) {
        r[i] = runs[i];
        r[i].meas_ms = runs[i].base_meas_ms;
        r[i].pred_ms = runs[i].base_pred_ms;
        r[i].layers = NULL;
        r[i].n_layers = 0;
        if (runs[i].selected && cp_val_in_targets(&runs[i])) {
            layer.n += runs[i].base_layer_n;
            layer.sum_pct += runs[i].base_layer_sum_pct;
        }
    }
    for (int i = 0; a && i < nar; i++) {
        a[i] = ar[i];
        a[i].meas_us = 100;
        a[i].pred_us = 100 + ar[i].base_error_pct;
    }
    cp_val_targets(r ? r : runs, r ? n : 0, a, a ? nar : 0, NULL, 0, 1, out);
    set_stat(&out[CP_T_LAYER_MAPE], &layer, 0);
    free(r);
    free(a);
}

const char *cp_val_status(const cp_val_target *t)
{
    return t->n == 0 ? "no data" : t->met ? "met" : "NOT met";
}

static double round_to(double x, int digits)
{
    double k = pow(10, digits);
    return round(x * k) / k;
}

void cp_val_target_value(const cp_val_target *t, int is_count, char *buf, size_t n)
{
    if (!t->n)
        snprintf(buf, n, "-");
    else if (is_count)
        snprintf(buf, n, "%.0f wrong", t->value);
    else /* the digit that shows which side of its limit a value is on */
        snprintf(buf, n, "%.*f%%", round_to(t->value, 2) == round_to(t->limit, 2) ? 3 : 2, t->value);
}

int cp_val_regressed(double base, double now)
{
    return now > base + CP_VAL_TOLERANCE_PP;
}

/* --- repeatability --------------------------------------------------------------- */

int cp_val_same_config(const cp_val_run *a, const cp_val_run *b)
{
    return a->config[0] && strcmp(a->config, b->config) == 0;
}

static int in_floor_scope(const cp_val_run *r, int multi, const char *harness)
{
    return cp_val_in_targets(r) && r->meas_ms > 0 && (multi ? r->gpus > 1 : cp_val_one_gpu_scope(r)) &&
           (!harness || strcmp(r->harness, harness) == 0);
}

int cp_val_floor_of(const cp_val_run *runs, int n, int multi, const char *harness, double limit_pct,
                    cp_val_floor *out)
{
    memset(out, 0, sizeof *out);
    out->worst_run = -1;
    out->limit_pct = limit_pct;
    /* each run in scope once, grouped by configuration: group[i] the first run of i's */
    int *group = malloc(sizeof *group * (size_t)(n ? n : 1)), *member = malloc(sizeof *member * (size_t)(n ? n : 1));
    if (!group || !member) {
        free(group);
        free(member);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        group[i] = -1;
        if (!in_floor_scope(&runs[i], multi, harness))
            continue;
        group[i] = i;
        for (int j = 0; j < i && group[i] == i; j++)
            if (group[j] == j && cp_val_same_config(&runs[i], &runs[j]))
                group[i] = j;
    }
    double sum_pct = 0, repeated_pct = 0;
    for (int i = 0; i < n; i++) {
        out->runs += group[i] >= 0;
        if (group[i] != i)
            continue;
        out->configs++;
        int count = 0;
        for (int j = i; j < n; j++)
            if (group[j] == i)
                member[count++] = j;
        double lo = runs[i].meas_ms, hi = lo, best = -1;
        /* sum over the runs of |p - m| / m is convex and piecewise linear in p with its
         * kinks at the measured times: its least value is at one of them */
        for (int a = 0; a < count; a++) {
            double t = runs[member[a]].meas_ms, s = 0;
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
            for (int b = 0; b < count; b++)
                s += fabs(t - runs[member[b]].meas_ms) / runs[member[b]].meas_ms;
            best = best < 0 || s < best ? s : best;
        }
        sum_pct += 100 * best;
        if (count < 2)
            continue;
        out->repeated_configs++;
        out->repeated_runs += count;
        repeated_pct += 100 * best;
        double w = 100 * (hi - lo) / (hi + lo);
        out->wide_configs += w > limit_pct;
        if (w > out->worst_floor_pct || out->worst_run < 0) {
            out->worst_floor_pct = w;
            out->worst_run = i;
            out->worst_min_ms = lo;
            out->worst_max_ms = hi;
            out->worst_n = count;
        }
    }
    free(group);
    free(member);
    out->mape_floor_pct = out->runs ? sum_pct / out->runs : 0;
    out->repeated_floor_pct = out->repeated_runs ? repeated_pct / out->repeated_runs : 0;
    return 0;
}

const char *const cp_val_harnesses[3] = {"legacy API", "graph API", "PyTorch"};

const char *const cp_val_dim_names[CP_DIM_COUNT] = {"network", "device",  "precision", "comm",
                                                     "gpus",    "harness", "host",      "drawn"};

const char *cp_val_host_verdict(const cp_val_run *r)
{
    return !r->has_host ? "unknown" : r->host_bound ? "bound" : "not bound";
}

static void dim_value(const cp_val_run *r, cp_val_dim d, char *buf, size_t n)
{
    switch (d) {
    case CP_DIM_NETWORK: snprintf(buf, n, "%s", r->network); break;
    case CP_DIM_DEVICE: snprintf(buf, n, "%s", r->device); break;
    case CP_DIM_PRECISION: snprintf(buf, n, "%s", r->precision); break;
    case CP_DIM_COMM: snprintf(buf, n, "%s", r->comm); break;
    case CP_DIM_HARNESS: snprintf(buf, n, "%s", r->harness); break;
    case CP_DIM_HOST: snprintf(buf, n, "%s", cp_val_host_verdict(r)); break;
    case CP_DIM_DRAWN:
        snprintf(buf, n, "%s",
                 !r->drawn ? "other" : r->gpus > 1 ? "several GPUs, before its call" : "one GPU, before its call");
        break;
    default: snprintf(buf, n, "%d", r->gpus); break;
    }
}

int cp_val_groups(const cp_val_run *runs, int n, cp_val_dim d, int calibration, cp_val_group *out, int cap)
{
    int ng = 0;
    for (int i = 0; i < n; i++) {
        const cp_val_run *r = &runs[i];
        if (r->excluded || (r->calibration != 0) != (calibration != 0))
            continue;
        char v[64];
        dim_value(r, d, v, sizeof v);
        int g = 0;
        while (g < ng && strcmp(out[g].value, v) != 0)
            g++;
        if (g == ng) {
            if (ng == cap)
                continue;
            memset(&out[g], 0, sizeof out[g]);
            snprintf(out[g].value, sizeof out[g].value, "%s", v);
            ng++;
        }
        cp_val_stat_add(&out[g].st, r->pred_ms, r->meas_ms);
    }
    return ng;
}

/* --- worst layers ---------------------------------------------------------------------- */

static double layer_abs_error(const cp_val_layer *y)
{
    double m = 0, p = 0;
    for (int k = 0; k < CP_VAL_PASSES; k++)
        if (!y->unscored[k]) {
            m += y->meas[k];
            p += y->pred[k];
        }
    return fabs(p - m);
}

void cp_val_layer_set_predicted(cp_val_layer *y, const double pred[CP_VAL_PASSES])
{
    for (int k = 0; k < CP_VAL_PASSES; k++)
        y->pred[k] = pred[k];
    if (y->meas[1] > 0 && y->meas[2] == 0 && pred[1] > 0 && pred[2] > 0)
        y->pred[1] += pred[2], y->pred[2] = 0;
}

int cp_val_worst_layers(const cp_val_run *r, int *idx, int k)
{
    int got = 0;
    for (int l = 0; l < r->n_layers; l++) {
        double e = layer_abs_error(&r->layers[l]);
        int pos = got < k ? got++ : k;
        /* insertion into the sorted top k; equal errors keep network order */
        while (pos > 0 && layer_abs_error(&r->layers[idx[pos - 1]]) < e) {
            if (pos < k)
                idx[pos] = idx[pos - 1];
            pos--;
        }
        if (pos < k)
            idx[pos] = l;
    }
    return got;
}

/* --- paths -------------------------------------------------------------------------- */

static int match_from(const char *pat, const char *path)
{
    while (*pat == '/')
        pat++;
    while (*path == '/')
        path++;
    if (!*pat)
        return !*path;
    size_t pl = strcspn(pat, "/"), sl = strcspn(path, "/");
    if (pl == 2 && pat[0] == '*' && pat[1] == '*') {
        if (match_from(pat + 2, path)) /* no directory */
            return 1;
        /* one more directory (never a hidden one), "**" still to match */
        return *path && *path != '.' && match_from(pat, path + sl);
    }
    char p[512], s[512];
    if (!*path || pl >= sizeof p || sl >= sizeof s)
        return 0;
    memcpy(p, pat, pl);
    p[pl] = 0;
    memcpy(s, path, sl);
    s[sl] = 0;
    return fnmatch(p, s, FNM_PERIOD) == 0 && match_from(pat + pl, path + sl);
}

int cp_glob_match(const char *pattern, const char *path)
{
    return match_from(pattern, path);
}

static int add_path(const char *path, char ***list, int *n, int *cap)
{
    for (int i = 0; i < *n; i++)
        if (strcmp((*list)[i], path) == 0)
            return 0; /* named twice: read once */
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 32;
        char **nl = realloc(*list, (size_t)nc * sizeof *nl);
        if (!nl)
            return -1;
        *list = nl;
        *cap = nc;
    }
    char *s = strdup(path);
    if (!s)
        return -1;
    (*list)[(*n)++] = s;
    return 1;
}

static int has_magic(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] == '*' || s[i] == '?' || s[i] == '[')
            return 1;
    return 0;
}

typedef struct {
    const char *pattern;
    char **found;
    int n, cap;
    int enter_hidden;
} walk_state;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file under dir that matches; symbolic links to
 * directories are not followed (no cycles), as bash's globstar. */
static int walk(walk_state *w, const char *dir, int depth)
{
    DIR *d = opendir(*dir ? dir : ".");
    if (!d)
        return 0; /* unreadable directories hold no matches */
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096];
        int len = snprintf(path, sizeof path, "%s%s%s", dir, *dir && dir[strlen(dir) - 1] != '/' ? "/" : "",
                           e->d_name);
        if (len < 0 || (size_t)len >= sizeof path)
            continue;
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth < 64 && (e->d_name[0] != '.' || w->enter_hidden))
                rc = walk(w, path, depth + 1);
        } else if ((S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && stat(path, &st) == 0 && S_ISREG(st.st_mode))) &&
                   cp_glob_match(w->pattern, path)) {
            rc = add_path(path, &w->found, &w->n, &w->cap) < 0;
        }
    }
    closedir(d);
    return rc;
}

static int expand_globstar(const char *pattern, char ***list, int *n, int *cap, cp_error *err)
{
    /* walk from the directories the pattern names literally */
    char root[4096];
    size_t end = 0;
    for (size_t i = 0; pattern[i];) {
        size_t sl = strcspn(pattern + i, "/");
        if (has_magic(pattern + i, sl))
            break;
        end = i + sl;
        i += sl;
        while (pattern[i] == '/')
            i++;
        if (!pattern[i])
            end = 0; /* the last segment is a file name, not a directory */
    }
    if (end >= sizeof root)
        return cp_fail(err, pattern, NULL, "path too long");
    memcpy(root, pattern, end);
    root[end] = 0;
    if (end == 0 && pattern[0] == '/')
        snprintf(root, sizeof root, "/");
    walk_state w = {pattern, NULL, 0, 0, strstr(pattern, "/.") != NULL || pattern[0] == '.'};
    int rc = walk(&w, root, 0);
    if (w.n > 1)
        qsort(w.found, (size_t)w.n, sizeof *w.found, cmp_str);
    for (int i = 0; i < w.n; i++) {
        rc |= !rc && add_path(w.found[i], list, n, cap) < 0;
        free(w.found[i]);
    }
    free(w.found);
    if (rc)
        return cp_fail(err, pattern, NULL, "out of memory");
    return w.n;
}

static int has_globstar(const char *p)
{
    for (const char *s = p; (s = strstr(s, "**")); s += 2)
        if ((s == p || s[-1] == '/') && (s[2] == '/' || s[2] == 0))
            return 1;
    return 0;
}

/* The files one pattern (or one file's name) names: a count, or -1 with err
 * set; none is no error here. */
static int glob_one(const char *pattern, char ***list, int *n, int *cap, cp_error *err)
{
    int matched = 0;
    if (!has_magic(pattern, strlen(pattern))) {
        struct stat st;
        char gz[4300];
        const char *name = pattern;
        if (stat(name, &st) != 0) {
            int e = errno;
            /* x.json, kept only as x.json.gz, is that file; the error names the name given */
            snprintf(gz, sizeof gz, "%s.gz", pattern);
            if (!cp_has_suffix(pattern, ".json") || stat(gz, &st) != 0 || !S_ISREG(st.st_mode))
                return cp_fail(err, pattern, NULL, "cannot open: %s", strerror(e));
            name = gz;
        }
        return add_path(name, list, n, cap) < 0 ? cp_fail(err, pattern, NULL, "out of memory") : 1;
    } else if (has_globstar(pattern)) {
        matched = expand_globstar(pattern, list, n, cap, err);
    } else {
        glob_t g;
        int rc = glob(pattern, 0, NULL, &g);
        if (rc == GLOB_NOSPACE)
            return cp_fail(err, pattern, NULL, "out of memory");
        for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++) {
            struct stat st;
            if (stat(g.gl_pathv[i], &st) != 0 || !S_ISREG(st.st_mode))
                continue;
            matched++;
            if (add_path(g.gl_pathv[i], list, n, cap) < 0) {
                globfree(&g);
                return cp_fail(err, pattern, NULL, "out of memory");
            }
        }
        if (rc == 0)
            globfree(&g);
    }
    return matched;
}

/* A folder stands for its *.json at any depth, and a pattern of JSON files
 * also takes the same names kept gzip-compressed ("*.json" finds x.json and
 * y.json.gz: validation/README.md says which measurements are kept so); so
 * does a file's own name (x.json, kept only as x.json.gz, is that file). */
int cp_glob_expand(const char *given, char ***list, int *n, int *cap, cp_error *err)
{
    const char *pattern = given;
    size_t len = strlen(pattern);
    char sub[4200];
    struct stat st;
    if (!has_magic(pattern, len) && stat(pattern, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(sub, sizeof sub, "%s%s**/*.json", pattern, pattern[len - 1] == '/' ? "" : "/");
        pattern = sub;
        len = strlen(sub);
    }
    int start = *n, matched = glob_one(pattern, list, n, cap, err);
    if (matched < 0)
        return -1;
    if (has_magic(pattern, len) && cp_has_suffix(pattern, ".json")) {
        char gz[4300];
        snprintf(gz, sizeof gz, "%s.gz", pattern);
        int more = glob_one(gz, list, n, cap, err);
        if (more < 0)
            return -1;
        matched += more;
        /* one order for both: by name, as a folder lists them */
        if (*n - start > 1)
            qsort(*list + start, (size_t)(*n - start), sizeof **list, cmp_str);
    }
    if (matched == 0)
        return cp_fail(err, NULL, NULL, "--measured: no file matches '%s'", given);
    return matched;
}

/* --- generated documents --------------------------------------------------------------- */

const char *cp_val_handwritten(const char *doc)
{
    size_t ml = strlen(CP_VAL_MARKER);
    for (const char *p = doc; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *s = p;
        while (len && (*s == ' ' || *s == '\t')) {
            s++;
            len--;
        }
        while (len && strchr(" \t\r", s[len - 1]))
            len--;
        if (len == ml && memcmp(s, CP_VAL_MARKER, ml) == 0)
            return eol ? eol + 1 : s + len;
        p = eol ? eol + 1 : NULL;
    }
    return NULL;
}
