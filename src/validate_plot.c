/* `cnnperf validate --plot PREFIX|FILE.svg|FILE.png`: plots drawn by gnuplot.
 *
 * Each plot is a data file and a script in $TMPDIR (removed afterwards),
 * gnuplot run on the script without a shell, and its image written beside
 * the target and renamed into place only when gnuplot succeeded. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/csv.h"
#include "../util/strutil.h"
#include "validate_report.h"

extern char **environ;

#define TOP_LAYERS 20

int cp_find_gnuplot(char *buf, size_t n)
{
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t len = strcspn(p, ":");
        snprintf(buf, n, "%.*s/gnuplot", (int)len, len ? p : ".");
        if (access(buf, X_OK) == 0)
            return 0;
        p += len + (p[len] == ':');
    }
    return -1;
}

/* A gnuplot single-quoted string: quotes are doubled, nothing else is special. */
static void gp_string(FILE *f, const char *s)
{
    cp_put_quoted(f, s, '\'');
}

/* A double-quoted column of a data file; the text may not hold a quote. */
static void gp_column(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        fputc(*s == '"' ? '\'' : *s, f);
    fputc('"', f);
}

static int make_temp(char *path, size_t n, FILE **f, cp_error *err)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, n, "%s/cnnperf-plot-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return cp_fail(err, path, NULL, "cannot create a temporary file: %s", strerror(errno));
    *f = fdopen(fd, "w");
    if (!*f) {
        close(fd);
        remove(path);
        return cp_fail(err, path, NULL, "cannot open a temporary file: %s", strerror(errno));
    }
    return 0;
}

static int run_gnuplot(const char *gnuplot, const char *script, const char *svg, cp_error *err)
{
    char *argv[] = {"gnuplot", (char *)script, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, gnuplot, NULL, NULL, argv, environ);
    if (rc != 0)
        return cp_fail(err, gnuplot, NULL, "cannot run: %s", strerror(rc));
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return cp_fail(err, gnuplot, NULL, "lost: %s", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return cp_fail(err, svg, NULL, "gnuplot failed (%s %d)", WIFEXITED(status) ? "exit status" : "signal",
                       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    return 0;
}

/* Writes the data file and the plot commands of one figure. */
typedef void (*plot_fn)(const cp_validation *v, const void *arg, FILE *data, FILE *script, const char *data_path);

/* The image format of a plot: gnuplot's terminal and the file's extension. */
typedef struct {
    const char *terminal, *ext;
} plot_format;

static const plot_format PLOT_SVG = {"svg size 960,600 dynamic noenhanced font 'sans,11' background rgb 'white'",
                                     ".svg"};
/* libgd's png, which Debian's gnuplot-nox has (pngcairo needs cairo) */
static const plot_format PLOT_PNG = {"png size 960,600 noenhanced font 'sans,11' background rgb 'white'", ".png"};

static int plot(cp_validation *v, const char *gnuplot, const plot_format *fmt, const char *path, plot_fn fn,
                const void *arg, cp_error *err)
{
    if (v->n_plots == CP_VAL_MAX_PLOTS)
        return 0;
    char dpath[1024], spath[1024], tmp[700];
    FILE *d, *s;
    if (make_temp(dpath, sizeof dpath, &d, err))
        return -1;
    if (make_temp(spath, sizeof spath, &s, err)) {
        fclose(d);
        remove(dpath);
        return -1;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    fprintf(s, "set terminal %s\nset output ", fmt->terminal);
    gp_string(s, tmp);
    fputs("\nset grid\n", s);
    fn(v, arg, d, s, dpath);
    fputs("unset output\n", s);
    int bad = ferror(d) || ferror(s);
    bad |= fclose(d) != 0;
    bad |= fclose(s) != 0;
    int rc = bad ? cp_fail(err, dpath, NULL, "cannot write the plot's temporary files")
                 : run_gnuplot(gnuplot, spath, path, err);
    if (!rc && rename(tmp, path) != 0)
        rc = cp_fail(err, path, NULL, "cannot write: %s", strerror(errno));
    if (rc)
        remove(tmp);
    remove(dpath);
    remove(spath);
    if (!rc)
        snprintf(v->plots[v->n_plots++], sizeof v->plots[0], "%s", path);
    return rc;
}

/* --- predicted against measured iteration times ------------------------------------- */

static void iterations(const cp_validation *v, const void *arg, FILE *d, FILE *s, const char *dp)
{
    (void)arg;
    double lo = 0, hi = 0;
    for (int i = 0; i < v->n_runs; i++) {
        const cp_val_run *r = &v->runs[i];
        double a = r->meas_ms < r->pred_ms ? r->meas_ms : r->pred_ms, b = r->meas_ms + r->pred_ms - a;
        if (a > 0 && (lo == 0 || a < lo))
            lo = a;
        if (b > hi)
            hi = b;
    }
    static const char *const sets[] = {"evaluation", "calibration", "excluded"};
    static const char *const colours[] = {"#1f77b4", "#2ca02c", "#999999"};
    int labels = v->n_runs <= 30, block = 0;
    fprintf(s, "set title 'Iteration time: predicted against measured (%d runs)'\n", v->n_runs);
    fprintf(s, "set logscale xy\nset size square\nset key top left\nset xlabel 'measured (ms)'\n"
               "set ylabel 'predicted (ms)'\nset xrange [%g:%g]\nset yrange [%g:%g]\n",
            lo * 0.7, hi * 1.4, lo * 0.7, hi * 1.4);
    fputs("plot x title 'predicted = measured' lc rgb '#444444', x*1.05 title '+/- 5%' dt 2 lc rgb '#aaaaaa', "
          "x*0.95 notitle dt 2 lc rgb '#aaaaaa'",
          s);
    for (int k = 0; k < 3; k++) {
        int n = 0;
        for (int i = 0; i < v->n_runs; i++) {
            const cp_val_run *r = &v->runs[i];
            int set = r->calibration ? 1 : r->excluded ? 2 : 0;
            if (set != k || !(r->meas_ms > 0 && r->pred_ms > 0))
                continue;
            fprintf(d, "%g %g ", r->meas_ms, r->pred_ms);
            gp_column(d, r->label);
            fputc('\n', d);
            n++;
        }
        if (!n)
            continue;
        fputs("\n\n", d);
        fputs(", ", s);
        gp_string(s, dp);
        fprintf(s, " index %d using 1:2 with points pt 7 ps 0.9 lc rgb '%s' title '%s set'", block, colours[k],
                sets[k]);
        if (labels) {
            fputs(", ", s);
            gp_string(s, dp);
            fprintf(s, " index %d using 1:2:3 with labels left offset 0.7,0 font ',7' tc rgb '#555555' notitle", block);
        }
        block++;
    }
    fputc('\n', s);
}

/* --- per-layer bars of one run ----------------------------------------------------------- */

static double layer_total(const cp_val_layer *y, int predicted)
{
    const double *x = predicted ? y->pred : y->meas;
    return x[0] + x[1] + x[2];
}

static void layers(const cp_validation *v, const void *arg, FILE *d, FILE *s, const char *dp)
{
    (void)v;
    const cp_val_run *r = arg;
    int top[TOP_LAYERS], n = 0;
    for (int l = 0; l < r->n_layers; l++) {
        double m = layer_total(&r->layers[l], 0);
        int pos = n < TOP_LAYERS ? n++ : TOP_LAYERS;
        while (pos > 0 && layer_total(&r->layers[top[pos - 1]], 0) < m) {
            if (pos < TOP_LAYERS)
                top[pos] = top[pos - 1];
            pos--;
        }
        if (pos < TOP_LAYERS)
            top[pos] = l;
    }
    for (int k = 0; k < n; k++) {
        const cp_val_layer *y = &r->layers[top[k]];
        gp_column(d, y->name);
        fprintf(d, " %g %g\n", layer_total(y, 0), layer_total(y, 1));
    }
    fputs("set title ", s);
    char title[320];
    snprintf(title, sizeof title, "%s: the %d slowest layers, forward + backward (ms)", r->label, n);
    gp_string(s, title);
    fputs("\nset style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.85 border -1\n"
          "set boxwidth 0.9\nset xtics rotate by 45 right scale 0 font ',8'\nset ylabel 'ms'\nset yrange [0:*]\n"
          "set key top right\nset bmargin 11\nplot ",
          s);
    gp_string(s, dp);
    fputs(" using 2:xtic(1) title 'measured' lc rgb '#1f77b4', '' using 3 title 'predicted' lc rgb '#ff7f0e'\n", s);
}

/* The run of each network whose layers are drawn: one GPU before several,
 * fp32 before other precisions, then the largest batch. */
static int better(const cp_val_run *a, const cp_val_run *b)
{
    if ((a->gpus == 1) != (b->gpus == 1))
        return a->gpus == 1;
    int fa = strcmp(a->precision, "fp32") == 0, fb = strcmp(b->precision, "fp32") == 0;
    if (fa != fb)
        return fa;
    return a->batch > b->batch;
}

static void slug(const char *label, char *out, size_t n)
{
    size_t k = 0;
    for (const char *p = label; *p && k + 1 < n; p++) {
        char c = *p;
        int keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_';
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a'), keep = 1;
        if (keep)
            out[k++] = c;
        else if (k && out[k - 1] != '-')
            out[k++] = '-';
    }
    while (k && out[k - 1] == '-')
        k--;
    out[k] = 0;
    /* a label told apart by its file's name ("... [x-graphapi.json]": validate's unique_labels, which
     * already drops a .gz) names the plot without the extension */
    if (cp_has_suffix(out, ".json"))
        out[strlen(out) - strlen(".json")] = 0;
}

/* --- iteration time against GPU count ---------------------------------------------------- */

static int same_job(const cp_val_run *a, const cp_val_run *b)
{
    return strcmp(a->network, b->network) == 0 && a->batch == b->batch && strcmp(a->precision, b->precision) == 0 &&
           strcmp(a->device, b->device) == 0 && a->source == b->source;
}

static int same_series(const cp_val_run *a, const cp_val_run *b)
{
    return same_job(a, b) && strcmp(a->comm, b->comm) == 0 && a->overlap == b->overlap &&
           a->ps_servers == b->ps_servers && a->emulated == b->emulated;
}

static void scaling(const cp_validation *v, const void *arg, FILE *d, FILE *s, const char *dp)
{
    (void)arg;
    int block = 0, most = 1;
    for (int i = 0; i < v->n_runs; i++)
        if (v->runs[i].gpus > most)
            most = v->runs[i].gpus;
    fprintf(s, "set title 'Iteration time against GPU count, configurations measured at two counts or more: measured "
               "(solid), predicted (dashed)' font ',10'\n"
               "set logscale x 2\nset xrange [0.8:%g]\nset xlabel 'GPUs'\nset ylabel 'iteration (ms)'\n"
               "set yrange [0:*]\nset key outside right top font ',9'\nplot ",
            most * 1.25);
    for (int i = 0; i < v->n_runs; i++) {
        const cp_val_run *r = &v->runs[i];
        int first = r->gpus > 1;
        for (int j = 0; first && j < i; j++)
            first = !(v->runs[j].gpus > 1 && same_series(&v->runs[j], r));
        if (!first)
            continue;
        /* a curve needs two GPU counts: the one-GPU run of the same job, or
         * runs of the series at another count (a lone point says nothing
         * of scaling; the iterations plot has it) */
        int one = -1, counts = 0;
        for (int j = 0; j < v->n_runs; j++)
            if (v->runs[j].gpus == 1 && same_job(&v->runs[j], r) && one < 0)
                one = j;
        for (int j = 0; j < v->n_runs && counts < 2; j++) {
            if (v->runs[j].gpus < 2 || !same_series(&v->runs[j], r))
                continue;
            int seen = 0; /* its GPU count met before in the series */
            for (int k = 0; k < j && !seen; k++)
                seen = v->runs[k].gpus == v->runs[j].gpus && same_series(&v->runs[k], r);
            counts += !seen;
        }
        if (counts + (one >= 0) < 2)
            continue;
        /* the series: its one-GPU run, then its runs by GPU count */
        if (one >= 0)
            fprintf(d, "1 %g %g\n", v->runs[one].meas_ms, v->runs[one].pred_ms);
        for (int g = 2, next; g > 0; g = next) {
            next = 0;
            for (int j = 0; j < v->n_runs; j++) {
                const cp_val_run *q = &v->runs[j];
                if (q->gpus == g && same_series(q, r))
                    fprintf(d, "%d %g %g\n", g, q->meas_ms, q->pred_ms);
                if (q->gpus > g && same_series(q, r) && (!next || q->gpus < next))
                    next = q->gpus;
            }
        }
        fputs("\n\n", d);
        char title[256], ex[32];
        if (strcmp(r->comm, "ps") == 0)
            snprintf(ex, sizeof ex, "ps%d", r->ps_servers);
        else
            snprintf(ex, sizeof ex, "%.16s", r->comm);
        snprintf(title, sizeof title, "%s b%d %s %.48s %s%s%s", r->network, r->batch, r->precision, r->device, ex,
                 r->overlap ? "" : " no-overlap", r->emulated ? " emulated" : "");
        fputs(block ? ", " : "", s);
        gp_string(s, dp);
        fprintf(s, " index %d using 1:2 with linespoints lc %d pt 7 title ", block, block + 1);
        gp_string(s, title);
        fputs(", ", s);
        gp_string(s, dp);
        fprintf(s, " index %d using 1:3 with linespoints lc %d dt 2 pt 6 notitle", block, block + 1);
        block++;
    }
    if (!block) /* nothing measured at two GPU counts: an empty plot that says so (gnuplot refuses a plot of NaN
                 * under an autoscaled y range) */
        fputs("1 lc rgb 'white' title 'no configuration measured at two GPU counts or more'", s);
    fputc('\n', s);
}

int cp_validation_plots(cp_validation *v, const char *spec, cp_error *err)
{
    /* prefix + "-layers-" + a run's slug (under 200) + ".svg" fits an image name and v->plots */
    char gnuplot[1024], image[600], prefix[384];
    if (cp_find_gnuplot(gnuplot, sizeof gnuplot))
        return cp_fail(err, NULL, NULL, "gnuplot not found on PATH (install it, e.g. apt-get install gnuplot-nox)");
    /* FILE.svg or FILE.png: the iterations plot is FILE itself, the others FILE-less-its-extension-*.ext;
     * anything else is a prefix of SVGs */
    const plot_format *fmt = cp_has_suffix(spec, ".png") ? &PLOT_PNG : &PLOT_SVG;
    int named = cp_has_suffix(spec, ".svg") || cp_has_suffix(spec, ".png");
    size_t len = strlen(spec) - (named ? 4 : 0);
    if (len == 0 || (named && spec[len - 1] == '/'))
        return cp_fail(err, NULL, NULL, "'%s': a file name prefix, or a file name ending in .svg or .png", spec);
    if (len >= sizeof prefix)
        return cp_fail(err, NULL, NULL, "'%.60s...': longer than the %zu characters a plot's name may start with", spec,
                       sizeof prefix - 1);
    snprintf(prefix, sizeof prefix, "%.*s", (int)len, spec);
    v->n_plots = 0;
    if (v->n_runs) {
        if (named)
            snprintf(image, sizeof image, "%s", spec);
        else
            snprintf(image, sizeof image, "%s-iterations%s", prefix, fmt->ext);
        if (plot(v, gnuplot, fmt, image, iterations, NULL, err))
            return -1;
    }
    /* one per network, of the runs the targets count where there are any
     * (the calibration set's and the memory checks' runs are not judged) */
    int judged = 0;
    for (int i = 0; i < v->n_runs && !judged; i++)
        judged = v->runs[i].n_layers > 0 && cp_val_in_targets(&v->runs[i]);
    for (int i = 0; i < v->n_runs; i++) {
        const cp_val_run *r = &v->runs[i], *best = r;
        int first = r->n_layers > 0 && (!judged || cp_val_in_targets(r));
        for (int j = 0; first && j < v->n_runs; j++) {
            const cp_val_run *q = &v->runs[j];
            if (q->n_layers && (!judged || cp_val_in_targets(q)) && strcmp(q->network, r->network) == 0) {
                first = j >= i;
                if (better(q, best))
                    best = q;
            }
        }
        if (!first)
            continue;
        char s[200];
        slug(best->label, s, sizeof s);
        snprintf(image, sizeof image, "%s-layers-%s%s", prefix, s, fmt->ext);
        if (plot(v, gnuplot, fmt, image, layers, best, err))
            return -1;
    }
    int multi = 0;
    for (int i = 0; i < v->n_runs; i++)
        multi |= v->runs[i].gpus > 1;
    if (multi) {
        snprintf(image, sizeof image, "%s-scaling%s", prefix, fmt->ext);
        if (plot(v, gnuplot, fmt, image, scaling, NULL, err))
            return -1;
    }
    return 0;
}
