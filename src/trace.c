#include "trace.h"

#include "../util/jsonwrite.h"

static void slice(cJSON *events, const char *name, const char *cat, int pid, int tid, double start_ms,
                  double dur_ms)
{
    cJSON *e = cJSON_CreateObject();
    if (!e)
        return;
    cJSON_AddStringToObject(e, "name", name);
    cJSON_AddStringToObject(e, "cat", cat);
    cJSON_AddStringToObject(e, "ph", "X");
    cJSON_AddNumberToObject(e, "ts", start_ms * 1e3); /* microseconds */
    cJSON_AddNumberToObject(e, "dur", dur_ms * 1e3);
    cJSON_AddNumberToObject(e, "pid", pid);
    cJSON_AddNumberToObject(e, "tid", tid);
    cJSON_AddItemToArray(events, e);
}

static void label(cJSON *events, const char *what, int pid, int tid, const char *name)
{
    cJSON *e = cJSON_CreateObject();
    if (!e)
        return;
    cJSON_AddStringToObject(e, "name", what);
    cJSON_AddStringToObject(e, "ph", "M");
    cJSON_AddNumberToObject(e, "pid", pid);
    cJSON_AddNumberToObject(e, "tid", tid);
    cJSON *args = cJSON_AddObjectToObject(e, "args");
    cJSON_AddStringToObject(args, "name", name);
    cJSON_AddItemToArray(events, e);
}

/* Children of a sequential node laid end to end from `start`. */
static double lay_out(cJSON *ev, const cp_tree *tr, int node, const char *cat, int pid, int tid, double start)
{
    for (int c = tr->t[node].first; c >= 0; c = tr->t[c].next) {
        const cp_task *t = &tr->t[c];
        char name[192];
        snprintf(name, sizeof name, "%s%s%s", t->name ? t->name : "?", t->detail ? " " : "",
                 t->detail ? t->detail : "");
        if (t->time_ms > 0)
            slice(ev, name, cat, pid, tid, start, t->time_ms);
        start += t->time_ms;
    }
    return start;
}

int cp_trace_single(FILE *f, const cp_prediction *p)
{
    cJSON *root = cJSON_CreateObject(), *ev = cJSON_AddArrayToObject(root, "traceEvents");
    label(ev, "process_name", 0, 0, p->dev->name);
    label(ev, "thread_name", 0, 0, "host link");
    label(ev, "thread_name", 0, 1, "compute stream");
    static const char *const phases[] = {"loading", "forward", "backward", "update"};
    double t = lay_out(ev, &p->tree, p->phase[0], phases[0], 0, 0, 0);
    for (int k = 1; k < 4; k++)
        t = lay_out(ev, &p->tree, p->phase[k], phases[k], 0, 1, t);
    return cp_json_write(f, root, true);
}

/* --mode eager: the host's operators on one track, the GPU's kernels and
 * copies on another, as the time line placed them. */
int cp_trace_eager(FILE *f, const cp_eager *e)
{
    cJSON *root = cJSON_CreateObject(), *ev = cJSON_AddArrayToObject(root, "traceEvents");
    label(ev, "process_name", 0, 0, e->pred->dev->name);
    label(ev, "thread_name", 0, 0, "host (Python, dispatcher, autograd)");
    label(ev, "thread_name", 0, 1, "GPU stream");
    for (int i = 0; i < e->n_events; i++) {
        const cp_eager_event *x = &e->events[i];
        char name[192];
        int with_detail = x->gpu && x->detail;
        snprintf(name, sizeof name, "%s%s%s", x->name, with_detail ? " " : "", with_detail ? x->detail : "");
        slice(ev, name, x->gpu ? "gpu" : x->detail ? x->detail : "host", 0, x->gpu, x->start_ms,
              x->end_ms - x->start_ms);
    }
    return cp_json_write(f, root, true);
}

int cp_trace_distributed(FILE *f, const cp_dist_prediction *p)
{
    cJSON *root = cJSON_CreateObject(), *ev = cJSON_AddArrayToObject(root, "traceEvents");
    const cp_tree *tr = &p->tree;
    double t_load = p->loading_ms, t_fwd = t_load + p->forward_ms, t_upd = t_fwd + p->backward_ms;
    static const char *const streams[] = {"compute stream", "communication stream", "server",
                                          "host-to-device stream (PS pulls)"};
    for (int g = 0; g < p->n_groups; g++) {
        char name[160];
        snprintf(name, sizeof name, "%d x %s%s", p->group_gpus[g], p->group_dev[g]->name,
                 g == p->slowest && p->n_groups > 1 ? " (slowest)" : "");
        label(ev, "process_name", g, 0, name);
        label(ev, "thread_name", g, 0, "host link");
        label(ev, "thread_name", g, 1, streams[0]);
        label(ev, "thread_name", g, 2, streams[1]);
        if (p->comm == CP_COMM_PS)
            label(ev, "thread_name", g, 3, streams[3]);
        const cp_prediction *q = p->group[g];
        const cp_eager *e = p->group_eager[g];
        slice(ev, "load batch", "loading", g, 0, 0, e ? e->loading_ms : q->loading_ms);
        /* each group's own forward (eager: each layer's span of the time
         * line), then backward as scheduled for the slowest */
        if (e) {
            double t = t_load;
            for (int i = 0; i < q->net->n_layers; t += e->layers[i++].fwd_ms)
                if (e->layers[i].fwd_ms > 0)
                    slice(ev, q->net->layers[i].name, "forward", g, 1, t, e->layers[i].fwd_ms);
        } else {
            lay_out(ev, &q->tree, q->phase[1], "forward", g, 1, t_load);
        }
        for (int c = tr->t[p->phase[2]].first; c >= 0; c = tr->t[c].next) {
            const cp_task *t = &tr->t[c];
            if (t->resource == 2)
                continue;
            char what[192];
            snprintf(what, sizeof what, "%s%s", t->name, t->resource == 0 ? " backward" : "");
            /* DAG resources 0 compute, 1 communication, 3 PS pulls: tracks 1, 2, 3 */
            slice(ev, what, t->resource == 0 ? "backward" : "exchange", g, t->resource == 0 ? 1 : t->resource == 3 ? 3 : 2,
                  t_fwd + t->start_ms, t->end_ms - t->start_ms);
        }
        slice(ev, "update", "update", g, 1, t_upd, p->update_ms);
    }
    if (p->comm == CP_COMM_PS) {
        int pid = p->n_groups;
        label(ev, "process_name", pid, 0, "parameter server");
        label(ev, "thread_name", pid, 0, streams[2]);
        for (int c = tr->t[p->phase[2]].first; c >= 0; c = tr->t[c].next)
            if (tr->t[c].resource == 2)
                slice(ev, tr->t[c].name, "exchange", pid, 0, t_fwd + tr->t[c].start_ms,
                      tr->t[c].end_ms - tr->t[c].start_ms);
    }
    return cp_json_write(f, root, true);
}
