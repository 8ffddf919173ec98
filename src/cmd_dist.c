/* The multi-GPU commands: predict on a cluster, choose between a parameter
 * server and NCCL, and sweep a grid of configurations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/atomic_file.h"
#include "commands.h"
#include "../model/memory.h"
#include "report.h"
#include "trace.h"

/* Everything a multi-GPU command needs, built from the options. */
typedef struct {
    cp_network net;
    cp_cluster cl;
    cp_dist_config cfg;
    cp_format fmt;
    cp_eager_costs eager_costs; /* from --eager-profile */
} dist_setup;

static int parse_algo(const char *s, cp_ar_algo *a)
{
    static const char *const names[] = {"ring", "tree", "hierarchical"};
    if (strcmp(s, "auto") == 0) {
        *a = CP_AR_AUTO;
        return 0;
    }
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *a = (cp_ar_algo)i;
            return 0;
        }
    return -1;
}

/* The GPU counts a sweep predicts without --gpus. */
#define SWEEP_DEFAULT_GPUS "1,2,4,8"

/* lists: the sweep reads --gpus, --batch, --comm and --precision itself. */
static int setup(const cp_options *o, dist_setup *s, int lists)
{
    memset(s, 0, sizeof *s);
    cp_error err;
    s->cfg = (cp_dist_config){.gpus = 1, .batch = 64, .prec = CP_PREC_FP32, .comm = CP_COMM_AUTO,
                              .algo = CP_AR_AUTO, .ps = {.servers = 1}, .overlap = 1, .bucket_mb = 25};
    if (!lists) {
        long v;
        if (o->batch && (v = cp_parse_count(o->batch, 1 << 20)) < 0)
            return cp_bad("--batch: expected a positive integer, got '%s'", o->batch);
        if (o->batch)
            s->cfg.batch = (int)v;
        if (o->gpus && (v = cp_parse_count(o->gpus, 1 << 24)) < 0)
            return cp_bad("--gpus: expected a positive integer, got '%s'", o->gpus);
        if (o->gpus)
            s->cfg.gpus = (int)v;
        if (o->precision && cp_precision_parse(o->precision, &s->cfg.prec))
            return cp_bad("--precision: expected fp32, tf32, fp16 or bf16, got '%s'", o->precision);
        if (o->comm && cp_comm_parse(o->comm, &s->cfg.comm))
            return cp_bad("--comm: expected nccl, ps, none or auto, got '%s'", o->comm);
    }
    if (o->format && cp_format_parse(o->format, &s->fmt))
        return cp_bad("--format: expected table, json or csv, got '%s'", o->format);
    bool channels_last;
    int have_costs, rc = cp_mode_option(o, &s->cfg.mode, &s->eager_costs, &have_costs, &s->cfg.algos,
                                        &s->cfg.workspace_mb, &channels_last);
    if (rc)
        return rc;
    s->cfg.eager_costs = have_costs ? &s->eager_costs : NULL;
    if (o->nccl_algo && parse_algo(o->nccl_algo, &s->cfg.algo))
        return cp_bad("--nccl-algo: expected ring, tree, hierarchical or auto, got '%s'", o->nccl_algo);
    if (o->overlap && strcmp(o->overlap, "on") != 0 && strcmp(o->overlap, "off") != 0)
        return cp_bad("--overlap: expected on or off, got '%s'", o->overlap);
    s->cfg.overlap = !o->overlap || strcmp(o->overlap, "on") == 0;
    if (o->bucket_mb) {
        char *end = NULL;
        s->cfg.bucket_mb = strtod(o->bucket_mb, &end);
        if (!*o->bucket_mb || *end || !(s->cfg.bucket_mb > 0) || s->cfg.bucket_mb > 1e6)
            return cp_bad("--bucket-mb: expected a positive number of megabytes, got '%s'", o->bucket_mb);
    }
    if (o->ps_servers) {
        char *end = NULL;
        long k = strtol(o->ps_servers, &end, 10);
        if (!*o->ps_servers || *end || k < 1 || k > 1 << 20)
            return cp_bad("--ps-servers: expected a positive number of servers, got '%s'", o->ps_servers);
        s->cfg.ps.servers = (int)k;
        s->cfg.ps.colocated = k > 1; /* sharded servers live beside the workers */
    }
    if (o->ps_on && strcmp(o->ps_on, "cpu") != 0 && strcmp(o->ps_on, "gpu") != 0)
        return cp_bad("--ps-on: expected cpu or gpu, got '%s'", o->ps_on);
    s->cfg.ps.on_gpu = o->ps_on && strcmp(o->ps_on, "gpu") == 0;

    if (o->cluster) {
        if (o->device)
            return cp_bad("--device and --cluster exclude each other: a cluster names its GPUs");
        if (cp_cluster_load(o->cluster, &s->cl, &err))
            return cp_bad("%s", err.msg);
        if (!o->gpus && !lists)
            s->cfg.gpus = cp_cluster_gpus(&s->cl);
    } else {
        cp_device dev;
        if (cp_device_load(o->device ? o->device : "h100", &dev, &err))
            return cp_bad("%s", err.msg);
        /* sized for the largest request; a sweep asks for its largest count */
        int most = s->cfg.gpus;
        const char *counts = o->gpus ? o->gpus : SWEEP_DEFAULT_GPUS;
        if (lists)
            for (const char *p = counts; *p;) {
                long v = strtol(p, (char **)&p, 10);
                if (v > most)
                    most = (int)v;
                while (*p == ',')
                    p++;
                if (*p && (*p < '0' || *p > '9'))
                    break;
            }
        if (cp_cluster_homogeneous(&s->cl, &dev, most > 0 ? most : 1, &err))
            return cp_bad("%s", err.msg);
    }
    if (o->host_mpi) {
        cp_link ipc;
        if (cp_cluster_ipc_measured(o->host_mpi, &ipc, &err))
            return cp_bad("%s", err.msg);
        cp_cluster_use_ipc(&s->cl, &ipc);
    }
    if (o->ps_bench && cp_cluster_ps_server_measured(o->ps_bench, &s->cl.ps_server, &err))
        return cp_bad("%s", err.msg);
    if (o->net_link) {
        if (cp_cluster_net_measured(o->net_link, &s->cl.inter, &err))
            return cp_bad("%s", err.msg);
        char *ib = strstr(s->cl.name, ", IB NDR)"); /* the assumed cluster's name no longer holds */
        if (ib)
            snprintf(ib, sizeof s->cl.name - (size_t)(ib - s->cl.name), ", net measured)");
    }
    if (cp_network_load(o->network ? o->network : "resnet50", &s->net, &err))
        return cp_bad("%s", err.msg);
    s->net.channels_last = channels_last;
    return 0;
}

static int put_dist(FILE *f, const void *d, int fmt)
{
    return cp_report_distributed(f, d, (cp_format)fmt);
}

static int put_dist_explain(FILE *f, const void *d, int unused)
{
    (void)unused;
    return cp_report_dist_explain(f, d);
}

static int put_dist_trace(FILE *f, const void *d, int unused)
{
    (void)unused;
    return cp_trace_distributed(f, d);
}

int cp_cmd_predict_distributed(const cp_options *o)
{
    if (o->layer)
        return cp_bad("--layer is for one GPU's --explain; several GPUs explain their exchange bucket by bucket");
    dist_setup s;
    int rc = setup(o, &s, 0);
    if (rc)
        return rc;
    cp_error err;
    cp_single_cache cache = {0};
    cp_dist_prediction p = {0};
    if (cp_predict_distributed(&s.net, &s.cl, &s.cfg, &cache, &p, &err)) {
        rc = cp_bad("%s", err.msg);
    } else {
        /* each worker holds what one GPU's run holds, and NCCL's buffers */
        for (int g = 0; g < p.n_groups; g++)
            cp_report_memory_warning(p.group[g], s.cfg.mode == CP_MODE_EAGER, cp_dist_nccl_gpus(&p), "predict");
        rc = cp_write_result(o->output, o->explain ? put_dist_explain : put_dist, &p, s.fmt);
        if (!rc && o->trace)
            rc = cp_write_result(o->trace, put_dist_trace, &p, 0);
    }
    cp_dist_prediction_free(&p);
    cp_single_cache_free(&cache);
    cp_network_free(&s.net);
    return rc;
}

/* Writes s as a JSON string literal. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* --- choose ------------------------------------------------------------------ */

/* Whether the choice holds across the hosts the PS stream was measured on:
 * 1 where PS (on the device machines' pooled stream) wins or loses at both
 * ends of its range, 0 where an end flips it, -1 with no range. *end_ms: the
 * PS iteration at the end that would flip it, or that confirms it. */
static int choice_holds(const cp_dist_prediction *nccl, const cp_dist_prediction *ps, double *end_ms)
{
    if (!ps->ps_pool)
        return -1;
    int ps_wins = ps->iteration_ms < nccl->iteration_ms;
    *end_ms = ps_wins ? ps->ps_range_slow_ms : ps->ps_range_fast_ms;
    return ps_wins ? *end_ms < nccl->iteration_ms : *end_ms >= nccl->iteration_ms;
}

int cp_cmd_choose(int argc, char **argv)
{
    cp_options o = {0};
    int rc = cp_options_parse(argc, argv, &o);
    if (rc)
        return rc;
    if (o.comm)
        return cp_bad("choose compares nccl and ps itself; drop --comm");
    dist_setup s;
    if ((rc = setup(&o, &s, 0)))
        return rc;
    cp_error err;
    cp_single_cache cache = {0};
    cp_dist_prediction nccl = {0}, ps = {0};
    s.cfg.comm = CP_COMM_NCCL;
    rc = cp_predict_distributed(&s.net, &s.cl, &s.cfg, &cache, &nccl, &err);
    s.cfg.comm = CP_COMM_PS;
    if (!rc)
        rc = cp_predict_distributed(&s.net, &s.cl, &s.cfg, &cache, &ps, &err);
    if (rc) {
        rc = cp_bad("%s", err.msg);
    } else {
        const cp_dist_prediction *win = ps.iteration_ms < nccl.iteration_ms ? &ps : &nccl;
        const cp_dist_prediction *lose = win == &ps ? &nccl : &ps;
        double end = 0; /* PS's iteration at the end of its range that could flip the choice */
        int holds = choice_holds(&nccl, &ps, &end);
        cp_atomic_file out;
        if (cp_atomic_open(&out, o.output, &err)) {
            rc = cp_bad("%s", err.msg);
        } else {
            FILE *f = out.f;
            if (s.fmt == CP_FMT_JSON) {
                const cp_dist_prediction *both[] = {&nccl, &ps};
                fputs("{\"network\": ", f);
                json_str(f, s.net.name);
                fputs(", \"cluster\": ", f);
                json_str(f, s.cl.name);
                fprintf(f, ", \"gpus\": %d, \"batch\": %d, \"precision\": \"%s\", \"recommended\": \"%s\", \"speedup\": %.6g",
                        s.cfg.gpus, s.cfg.batch, cp_precision_name(s.cfg.prec), cp_comm_name(win->comm),
                        lose->iteration_ms / win->iteration_ms);
                fprintf(f, ", \"mode\": \"%s\"", cp_mode_name(s.cfg.mode));
                if (holds >= 0)
                    fprintf(f, ", \"ps_stream_range\": {\"iteration_fast_ms\": %.6g, \"iteration_slow_ms\": %.6g, "
                               "\"choice_holds\": %s}",
                            ps.ps_range_fast_ms, ps.ps_range_slow_ms, holds ? "true" : "false");
                for (int i = 0; i < 2; i++) {
                    fprintf(f, ", \"%s\": {\"iteration_ms\": %.6g, \"images_per_s\": %.6g, \"exchange_ms\": %.6g, "
                               "\"exposed_exchange_ms\": %.6g, \"dominant\": ",
                            cp_comm_name(both[i]->comm), both[i]->iteration_ms, both[i]->images_per_s,
                            both[i]->exchange_ms, both[i]->exposed_exchange_ms);
                    json_str(f, both[i]->dominant);
                    fputc('}', f);
                }
                fputs("}\n", f);
            } else {
                fprintf(f, "%s, %d GPU%s of %s, batch %d per GPU, %s, %s mode:\n", s.net.name, s.cfg.gpus,
                        s.cfg.gpus == 1 ? "" : "s", s.cl.name, s.cfg.batch, cp_precision_name(s.cfg.prec),
                        cp_mode_name(s.cfg.mode));
                const cp_dist_prediction *both[] = {&nccl, &ps};
                for (int i = 0; i < 2; i++)
                    fprintf(f, "  %-4s %10.3f ms/iteration  %10.1f images/s  exchange %9.3f ms (%8.3f ms exposed)\n"
                               "       %s\n",
                            cp_comm_name(both[i]->comm), both[i]->iteration_ms, both[i]->images_per_s,
                            both[i]->exchange_ms, both[i]->exposed_exchange_ms, both[i]->dominant);
                if (s.cfg.gpus == 1)
                    fprintf(f, "one GPU exchanges nothing: either mode costs the same\n");
                else
                    fprintf(f, "recommended: %s, %.2fx faster per iteration (%.3f ms saved); %s loses because: %s\n",
                            cp_comm_name(win->comm), lose->iteration_ms / win->iteration_ms,
                            lose->iteration_ms - win->iteration_ms, cp_comm_name(lose->comm), lose->dominant);
                if (holds >= 0)
                    fprintf(f, "%s: ps takes %.3f ms with the %s PS stream of the %d device calls that measured it "
                               "(%.2f GB/s)%s\n",
                            holds ? "the choice holds" : "the choice may flip", end,
                            win == &ps ? "slowest" : "fastest", ps.ps_pool->sweeps,
                            win == &ps ? ps.ps_pool->min_gbs : ps.ps_pool->max_gbs,
                            holds ? "" : ": measure your host's exchange (mpirun -np W+K cnnperf-psexchange) and pass it "
                                         "as --host-mpi");
            }
            if (ferror(f)) {
                cp_atomic_abort(&out);
                rc = 1;
            } else if (cp_atomic_commit(&out, &err)) {
                rc = 1;
                fprintf(stderr, "cnnperf: %s\n", err.msg);
            }
        }
    }
    cp_dist_prediction_free(&nccl);
    cp_dist_prediction_free(&ps);
    cp_single_cache_free(&cache);
    cp_network_free(&s.net);
    return rc;
}

/* --- sweep -------------------------------------------------------------------- */

#define MAX_LIST 64

/* A comma-separated list through `parse`; returns the count or -1. */
static int split_list(const char *s, int (*parse)(const char *, int *), int *out)
{
    char buf[1024];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == MAX_LIST || parse(tok, &out[n]))
            return -1;
        n++;
    }
    return n;
}

static int parse_int(const char *s, int *v)
{
    long x = cp_parse_count(s, 1 << 24);
    *v = (int)x;
    return x < 0;
}
static int parse_comm(const char *s, int *v)
{
    cp_comm_mode m;
    int rc = cp_comm_parse(s, &m);
    *v = m;
    return rc;
}
static int parse_prec(const char *s, int *v)
{
    cp_precision p;
    int rc = cp_precision_parse(s, &p);
    *v = p;
    return rc;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The largest worker's footprint over the cluster's GPU models, GiB, and
 * whether every worker fits its GPU (model/memory.h), as the harness or
 * (eager mode) PyTorch trains it; -1 where the host ran out of memory. */
static int worker_memory(const cp_dist_prediction *p, const cp_dist_config *cfg, double *gib, bool *fits)
{
    *gib = 0, *fits = true;
    for (int g = 0; g < p->n_groups; g++) {
        cp_memory m;
        if (cp_memory_worker(p->net, p->group_dev[g], cfg->batch, cfg->prec, cfg->mode == CP_MODE_EAGER,
                             cp_dist_nccl_gpus(p), &m))
            return -1;
        *gib = fmax(*gib, m.total / 1073741824.0);
        *fits = *fits && m.fits;
    }
    return 0;
}

int cp_cmd_sweep(int argc, char **argv)
{
    cp_options o = {0};
    int rc = cp_options_parse(argc, argv, &o);
    if (rc)
        return rc;
    int gpus[MAX_LIST], batch[MAX_LIST], comm[MAX_LIST], prec[MAX_LIST];
    int ng = split_list(o.gpus ? o.gpus : SWEEP_DEFAULT_GPUS, parse_int, gpus);
    int nb = split_list(o.batch ? o.batch : "64", parse_int, batch);
    int nc = split_list(o.comm ? o.comm : "nccl,ps", parse_comm, comm);
    int np = split_list(o.precision ? o.precision : "fp32", parse_prec, prec);
    if (ng < 0)
        return cp_bad("--gpus: expected a comma-separated list of positive integers, got '%s'", o.gpus);
    if (nb < 0)
        return cp_bad("--batch: expected a comma-separated list of positive integers, got '%s'", o.batch);
    if (nc < 0)
        return cp_bad("--comm: expected a comma-separated list of nccl, ps, none, auto, got '%s'", o.comm);
    if (np < 0)
        return cp_bad("--precision: expected a comma-separated list of fp32, tf32, fp16, bf16, got '%s'",
                      o.precision);
    dist_setup s;
    if ((rc = setup(&o, &s, 1)))
        return rc;
    cp_format fmt = o.format ? s.fmt : CP_FMT_CSV;
    if (fmt == CP_FMT_TABLE)
        fmt = CP_FMT_CSV;
    cp_error err;
    cp_atomic_file out;
    if (cp_atomic_open(&out, o.output, &err)) {
        cp_network_free(&s.net);
        return cp_bad("%s", err.msg);
    }
    FILE *f = out.f;
    if (fmt == CP_FMT_CSV)
        fprintf(f, "network,cluster,gpus,batch,precision,comm,iteration_ms,images_per_s,scaling_efficiency,"
                   "exchange_ms,exposed_exchange_ms,slowest_device,memory_gib,fits\n");
    else {
        fputs("{\"network\": ", f);
        json_str(f, s.net.name);
        fputs(", \"cluster\": ", f);
        json_str(f, s.cl.name);
        fprintf(f, ", \"mode\": \"%s\", \"rows\": [\n", cp_mode_name(s.cfg.mode));
    }
    cp_single_cache cache = {0};
    cp_dist_prediction p = {0};
    long total = (long)ng * nb * nc * np, done = 0;
    double t0 = now_s(), shown = 0;
    for (int a = 0; a < np && !rc; a++)
        for (int b = 0; b < nb && !rc; b++)
            for (int c = 0; c < nc && !rc; c++)
                for (int g = 0; g < ng && !rc; g++) {
                    s.cfg.gpus = gpus[g];
                    s.cfg.batch = batch[b];
                    s.cfg.comm = (cp_comm_mode)comm[c];
                    s.cfg.prec = (cp_precision)prec[a];
                    if (cp_predict_distributed(&s.net, &s.cl, &s.cfg, &cache, &p, &err)) {
                        rc = cp_bad("%s", err.msg);
                        break;
                    }
                    double gib;
                    bool fits;
                    if (worker_memory(&p, &s.cfg, &gib, &fits)) {
                        rc = cp_bad("out of memory");
                        break;
                    }
                    if (fmt == CP_FMT_CSV) {
                        cp_csv_text(f, s.net.name);
                        fputc(',', f);
                        cp_csv_text(f, s.cl.name);
                        fprintf(f, ",%d,%d,%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,", gpus[g], batch[b],
                                cp_precision_name(s.cfg.prec), cp_comm_name(p.comm), p.iteration_ms, p.images_per_s,
                                p.scaling_efficiency, p.exchange_ms, p.exposed_exchange_ms);
                        cp_csv_text(f, p.group_dev[p.slowest]->id);
                        fprintf(f, ",%.4g,%s\n", gib, fits ? "yes" : "no");
                    } else {
                        fprintf(f, "%s{\"gpus\": %d, \"batch\": %d, \"precision\": \"%s\", \"comm\": \"%s\", "
                                   "\"iteration_ms\": %.6g, \"images_per_s\": %.6g, \"scaling_efficiency\": %.6g, "
                                   "\"exchange_ms\": %.6g, \"exposed_exchange_ms\": %.6g, \"slowest_device\": \"%s\", ",
                                done ? ",\n" : "", gpus[g], batch[b], cp_precision_name(s.cfg.prec),
                                cp_comm_name(p.comm), p.iteration_ms, p.images_per_s, p.scaling_efficiency,
                                p.exchange_ms, p.exposed_exchange_ms, p.group_dev[p.slowest]->id);
                        fprintf(f, "\"memory_gib\": %.4g, \"fits\": %s}", gib, fits ? "true" : "false");
                    }
                    done++;
                    /* a progress bar once the sweep has run a second */
                    double t = now_s() - t0;
                    if (t > 1.0 && (t - shown > 0.2 || done == total)) {
                        int w = (int)(40.0 * done / total);
                        fprintf(stderr, "\rsweep [%.*s%*s] %ld/%ld, %.1f s", w,
                                "########################################", 40 - w, "", done, total, t);
                        shown = t;
                        if (done == total)
                            fputc('\n', stderr);
                    }
                }
    if (fmt == CP_FMT_JSON && !rc)
        fprintf(f, "\n]}\n");
    if (rc) {
        cp_atomic_abort(&out);
    } else if (ferror(f)) {
        cp_atomic_abort(&out);
        rc = 1;
    } else if (cp_atomic_commit(&out, &err)) {
        fprintf(stderr, "cnnperf: %s\n", err.msg);
        rc = 1;
    }
    cp_dist_prediction_free(&p);
    cp_single_cache_free(&cache);
    cp_network_free(&s.net);
    return rc;
}
