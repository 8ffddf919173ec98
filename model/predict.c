#include "predict.h"

#include "memory.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const pass_names[CP_PASS_COUNT] = {"forward", "backward-data", "backward-weight", "update"};

/* Layers with the same kind, shapes and hyper-parameters (the repeated
 * blocks of a ResNet) run the same kernels: each pass's kernels are built
 * once for such a group and copied to the others. */
static int same_layer(const cp_layer *a, const cp_layer *b)
{
    size_t off = offsetof(cp_layer, in);
    return a->kind == b->kind && a->n_inputs == b->n_inputs && a->consumers == b->consumers &&
           a->needs_input_grad == b->needs_input_grad &&
           memcmp((const char *)a + off, (const char *)b + off, sizeof *a - off) == 0;
}

static void find_twins(const cp_network *net, int *twin, int *slot, int slots)
{
    for (int i = 0; i < slots; i++)
        slot[i] = -1;
    for (int i = 0; i < net->n_layers; i++) {
        const cp_layer *l = &net->layers[i];
        unsigned long long h = (unsigned long long)(size_t)l->kind;
        const int f[] = {l->in[0].c, l->in[0].h, l->out.c, l->out.h, l->out.w, l->kh, l->sh, l->consumers};
        for (size_t j = 0; j < sizeof f / sizeof f[0]; j++)
            h = (h ^ (unsigned)f[j]) * 0x100000001B3ull;
        unsigned at = (unsigned)(h ^ (h >> 29)) & (unsigned)(slots - 1);
        twin[i] = i;
        for (;; at = (at + 1) & (unsigned)(slots - 1)) {
            if (slot[at] < 0) {
                slot[at] = i;
                break;
            }
            if (same_layer(&net->layers[slot[at]], l)) {
                twin[i] = slot[at];
                break;
            }
        }
    }
}

/* The calibration class of a layer (calibration.h). */
cp_calib_class cp_layer_calib_class(const cp_layer *l)
{
    const char *k = l->kind->name;
    if (strcmp(k, "conv") == 0) {
        if (l->in[0].c <= 4)
            return CP_CC_CONV_FIRST;
        /* depthwise: one input channel a group (the calibration set's
         * MobileNet-v2); other grouped layers run dense kernels group by group
         * or a grouped GEMM (layers/conv.c) and take their filter's class */
        if (cp_layer_depthwise(l))
            return CP_CC_CONV_GROUPED;
        if (l->kh == 1 && l->kw == 1)
            return CP_CC_CONV_1X1;
        if (l->kh == 3 && l->kw == 3)
            return l->in[0].h >= CP_CONV_3X3_WIDE_PLANE && l->in[0].w >= CP_CONV_3X3_WIDE_PLANE ? CP_CC_CONV_3X3_WIDE
                                                                                               : CP_CC_CONV_3X3;
        return l->kh * l->kw > 9 ? CP_CC_CONV_LARGE : CP_CC_CONV_KXK;
    }
    if (strcmp(k, "fc") == 0)
        return CP_CC_FC;
    if (strcmp(k, "batchnorm") == 0)
        return CP_CC_BATCHNORM;
    if (strcmp(k, "maxpool") == 0)
        return CP_CC_MAXPOOL;
    if (strstr(k, "pool"))
        return CP_CC_POOL;
    if (strcmp(k, "lrn") == 0)
        return CP_CC_OTHER;
    if (strcmp(k, "concat") == 0)
        return CP_CC_CONCAT;
    return CP_CC_ELEMENTWISE;
}

const cp_calibration *cp_device_calibration(const cp_device *d, cp_algos algos)
{
    return algos == CP_ALGOS_PYTORCH && d->calib_graph.loaded ? &d->calib_graph : &d->calib;
}

cp_calib_group cp_calib_group_of(cp_precision prec)
{
    return prec == CP_PREC_FP32 ? CP_CG_FP32 : prec == CP_PREC_TF32 ? CP_CG_TF32 : CP_CG_HALF;
}

/* A layout transpose of layers/conv.c's layout_transposes. */
static bool is_transpose(const cp_kernel *k)
{
    return strcmp(k->name, "nchw_to_nhwc") == 0 || strcmp(k->name, "nhwc_to_nchw") == 0;
}

/* The share of a pass's kernel time that is layout transposes; 0 on error. */
static double transpose_share(const cp_kernel *k, int n, const cp_device *d)
{
    int any = 0;
    for (int i = 0; i < n && !any; i++)
        any = is_transpose(&k[i]);
    if (!any) /* no time to spend on a pass without them */
        return 0;
    double all = 0, tr = 0;
    for (int i = 0; i < n; i++) {
        double t = cp_kernels_ms(&k[i], 1, d, INFINITY, NULL);
        if (t < 0)
            return 0;
        all += t;
        tr += is_transpose(&k[i]) ? t : 0;
    }
    return all > 0 ? tr / all : 0;
}

/* A pass node's calibration: t = scale x (its kernels) + offset. */
static void calibrate_pass(cp_prediction *p, int node, const cp_layer *l, cp_pass pass, const cp_exec *x,
                           const cp_kernel *k, int n)
{
    const cp_calibration *cal = cp_device_calibration(x->dev, x->algos);
    if (!cal->loaded)
        return;
    cp_calib_group g = cp_calib_group_of(x->prec);
    cp_calib_class cls = cp_layer_calib_class(l);
    /* timed by its own microbenchmark constants (layers/conv.c), not its filter class's fit */
    if (pass != CP_PASS_UPDATE && strcmp(l->kind->name, "conv") == 0 && cp_layer_packed_grouped(l, x))
        return;
    const cp_calib_term *t = &cal->term[g][cls][pass];
    p->tree.t[node].scale = t->scale;
    p->tree.t[node].offset_ms = t->offset_ms;
    /* The calibration is fitted on NCHW runs. Channels-last batch norm and
     * average pooling run other kernels (batchnorm.c, pool.c), timed as they
     * are; a convolution keeps its class's scale (16-bit: times the
     * device's cl_half_conv_factors, else CP_CL_HALF_CONV_FACTOR_3X3 or
     * _OTHER) but not the offset, a pass's
     * fixed cost that stood for the NCHW pass's extra launches (layout
     * transposes) */
    if (x->channels_last && (strcmp(l->kind->name, "batchnorm") == 0 || strcmp(l->kind->name, "avgpool") == 0) &&
        pass != CP_PASS_UPDATE) {
        p->tree.t[node].scale = 1;
        p->tree.t[node].offset_ms = 0;
    } else if (x->channels_last && strcmp(l->kind->name, "conv") == 0) {
        p->tree.t[node].offset_ms = 0;
        /* FP32's NCHW engines run a channels-last pass between transposes
         * the NCHW runs the scale was fitted on never had: the scale is the
         * engines', the transposes keep their own time */
        double tr = transpose_share(k, n, x->dev);
        bool is_3x3 = cls == CP_CC_CONV_3X3 || cls == CP_CC_CONV_3X3_WIDE;
        double own = is_3x3 ? cal->cl_half_conv_3x3 : cal->cl_half_conv_other; /* the device's (rule 38) */
        double half = own > 0 ? own : is_3x3 ? CP_CL_HALF_CONV_FACTOR_3X3 : CP_CL_HALF_CONV_FACTOR_OTHER;
        double engine = g == CP_CG_HALF ? t->scale * half : t->scale;
        p->tree.t[node].scale = engine * (1 - tr) + tr;
    }
    /* a strided gradient's correction of its class's fitted term (a file without one has nothing to correct):
     * the data gradient's in every precision, the weight gradient's in FP32 */
    bool fitted = t->scale != 1 || t->offset_ms != 0;
    double f = pass == CP_PASS_BWD_DATA                        ? CP_STRIDED_DGRAD_FACTOR
               : pass == CP_PASS_BWD_WEIGHT && g == CP_CG_FP32 ? CP_STRIDED_WGRAD_FP32_FACTOR
                                                               : 1;
    /* the kind's name compared last: this runs for every calibrated pass, and few are strided gradients */
    if (f != 1 && fitted && cp_layer_strided(l) && cls != CP_CC_CONV_FIRST && cls != CP_CC_CONV_GROUPED &&
        strcmp(l->kind->name, "conv") == 0) {
        p->tree.t[node].scale *= f;
        p->tree.t[node].offset_ms *= f;
    }
}

/* Adds the kernels of one layer pass under parent; returns the pass node,
 * -2 when the pass runs nothing, -1 on error. built[] holds, per group
 * representative and pass, the first node built for the group. */
static int add_pass(cp_prediction *p, int parent, int li, cp_pass pass, const cp_exec *x, const int *twin,
                    int (*built)[CP_PASS_COUNT], cp_error *err)
{
    const cp_layer *l = &p->net->layers[li];
    cp_layer_pred *lp = &p->layers[li];
    int *first = &built[twin[li]][pass];
    if (*first == -2)
        return -2;
    cp_kernel k[CP_MAX_KERNELS];
    int n = 0;
    if (*first >= 0) {
        /* a twin's pass: the same kernels, so the same task repeated */
        int node = cp_tree_repeat(&p->tree, parent, *first, l->name);
        if (node < 0)
            return cp_fail(err, NULL, NULL, "out of memory");
        /* the same layer: the first one's counts (held by the group's
         * representative) and calibration */
        const cp_layer_pred *fp = &p->layers[twin[li]];
        cp_task *t = &p->tree.t[node];
        t->detail = pass_names[pass];
        t->scale = p->tree.t[*first].scale;
        t->offset_ms = p->tree.t[*first].offset_ms;
        lp->bytes[pass] = fp->bytes[pass];
        lp->exec_flops[pass] = fp->exec_flops[pass];
        lp->flops[pass] = fp->flops[pass];
        lp->algorithm[pass] = fp->algorithm[pass];
        lp->kernels += p->tree.t[*first].count;
        lp->node[pass] = node;
        return node;
    } else {
        /* Gradients that meet where a tensor forks must be summed first. */
        if (pass == CP_PASS_BWD_DATA && l->consumers > 1) {
            double e = x->batch * cp_shape_elems(l->out), b = cp_act_bytes(x, l->out);
            for (int i = 1; i < l->consumers && n < CP_MAX_KERNELS / 2; i++)
                k[n++] = cp_stream_kernel(x->dev, x->prec, "grad_accumulate", e, 2 * b, b, e);
        }
        if (!(pass == CP_PASS_BWD_DATA && !l->needs_input_grad)) {
            int r = l->kind->kernels(l, pass, x, k + n, CP_MAX_KERNELS - n, err);
            if (r < 0)
                return -1;
            n += r;
            lp->flops[pass] = l->kind->flops(l, pass, x->batch);
        }
        if (n == 0) {
            *first = -2;
            return -2;
        }
    }
    int node = cp_tree_node(&p->tree, parent, CP_TASK_SEQ, l->name, -1);
    if (node < 0)
        return cp_fail(err, NULL, NULL, "out of memory");
    p->tree.t[node].detail = pass_names[pass];
    for (int i = 0; i < n; i++) {
        if (cp_tree_compute(&p->tree, node, CP_UNIT_GPU, &k[i]) < 0)
            return cp_fail(err, NULL, NULL, "out of memory");
        lp->bytes[pass] += k[i].dram_bytes * cp_kernel_launches(&k[i]);
        lp->exec_flops[pass] += k[i].flops * cp_kernel_launches(&k[i]);
    }
    *first = node;
    lp->node[pass] = node;
    if (strcmp(l->kind->name, "conv") == 0 && pass != CP_PASS_UPDATE)
        lp->algorithm[pass] = cp_conv_pass_algorithm(k, n);
    calibrate_pass(p, node, l, pass, x, k, n);
    lp->kernels += n;
    /* The group's twins copy these counts from its representative, which
     * (backward runs in reverse) may come later: give it them now. */
    cp_layer_pred *rep = &p->layers[twin[li]];
    rep->bytes[pass] = lp->bytes[pass];
    rep->exec_flops[pass] = lp->exec_flops[pass];
    rep->flops[pass] = lp->flops[pass];
    rep->algorithm[pass] = lp->algorithm[pass];
    return node;
}

static int build_tree(cp_prediction *p, const cp_exec *x, const int *twin, int (*built)[CP_PASS_COUNT], cp_error *err)
{
    cp_tree *tr = &p->tree;
    const cp_network *net = p->net;
    /* Eq. 6-4 (from Eq. 5-9): the iteration is its four phases in sequence. */
    int root = p->root = cp_tree_node(tr, -1, CP_TASK_SEQ, "iteration", -1);
    int load = p->phase[0] = cp_tree_node(tr, root, CP_TASK_SEQ, "loading", -1);
    int fwd = p->phase[1] = cp_tree_node(tr, root, CP_TASK_SEQ, "forward", -1);
    int bwd = p->phase[2] = cp_tree_node(tr, root, CP_TASK_SEQ, "backward", -1);
    int upd = p->phase[3] = cp_tree_node(tr, root, CP_TASK_SEQ, "update", -1);
    if (root < 0 || load < 0 || fwd < 0 || bwd < 0 || upd < 0)
        return cp_fail(err, NULL, NULL, "out of memory");

    /* Eq. 6-2: loading data (the batch and its labels over the host link,
     * Eq. 5-10) and loading instructions (the first launch, Eq. 5-11; later
     * launches overlap with execution and their gaps are in each kernel). */
    double images = x->batch * cp_shape_elems(net->input) * cp_precision_bytes(x->prec);
    if (cp_tree_transfer(tr, load, "input batch", CP_LINK_HOST_DATA, images, 1) < 0 ||
        cp_tree_transfer(tr, load, "labels", CP_LINK_HOST_DATA, 4.0 * x->batch, 1) < 0 ||
        cp_tree_transfer(tr, load, "first kernel launch", CP_LINK_HOST_INSTR, 0, 1) < 0)
        return cp_fail(err, NULL, NULL, "out of memory");

    /* Eq. 6-5 / 6-7: forward, layer by layer, each a sequence of kernels. */
    for (int i = 0; i < net->n_layers; i++)
        if (add_pass(p, fwd, i, CP_PASS_FWD, x, twin, built, err) == -1)
            return -1;
    /* Eq. 6-6 / 6-8: backward in reverse order; data then weight gradients. */
    for (int i = net->n_layers - 1; i >= 0; i--) {
        if (add_pass(p, bwd, i, CP_PASS_BWD_DATA, x, twin, built, err) == -1 ||
            add_pass(p, bwd, i, CP_PASS_BWD_WEIGHT, x, twin, built, err) == -1)
            return -1;
    }
    /* t_update on one GPU: SGD with momentum on every parameter tensor. */
    for (int i = 0; i < net->n_layers; i++)
        if (add_pass(p, upd, i, CP_PASS_UPDATE, x, twin, built, err) == -1)
            return -1;
    return 0;
}

/* The passes in the order the harness issues them: forward, backward in
 * reverse (data, then weight), update; -1 ends. */
static int next_pass(const cp_network *net, int k, int *layer, cp_pass *pass)
{
    int n = net->n_layers;
    if (k < n) {
        *layer = k, *pass = CP_PASS_FWD;
    } else if (k < 3 * n) {
        *layer = n - 1 - (k - n) / 2, *pass = (k - n) % 2 ? CP_PASS_BWD_WEIGHT : CP_PASS_BWD_DATA;
    } else if (k < 4 * n) {
        *layer = k - 3 * n, *pass = CP_PASS_UPDATE;
    } else {
        return -1;
    }
    return 0;
}

/* The host issues each pass (its library calls) before the GPU can run it
 * (Eq. 5-9 over a heterogeneous system: the host unit and the GPU in a
 * pipeline): a DAG with the host's issues on one resource, the passes'
 * GPU times (the tree's) on another, each pass after its issue. The DAG
 * starts both at once, as a host that has just caught up would. A host
 * whose whole issue takes less than the GPU's kernels has not: from one
 * iteration to the next it runs ahead, the launch queue fills, and the GPU
 * sets the pace (the passes keep their GPU times; the DAG stays in the tree
 * for --explain). */
static int host_timeline(cp_prediction *p, const cp_calibration *cal, cp_error *err)
{
    const cp_network *net = p->net;
    cp_calib_group g = cp_calib_group_of(p->prec);
    cp_tree *tr = &p->tree;
    int dag = p->timeline = cp_tree_node(tr, -1, CP_TASK_DAG, "iteration (host issue, GPU)", -1);
    int load = cp_tree_fixed(tr, dag, "loading", p->loading_ms);
    if (dag < 0 || load < 0 || cp_tree_place(tr, load, 0, -1))
        return cp_fail(err, NULL, NULL, "out of memory");
    int layer;
    cp_pass pass;
    for (int k = 0; next_pass(net, k, &layer, &pass) == 0; k++) {
        cp_layer_pred *lp = &p->layers[layer];
        if (lp->node[pass] < 0)
            continue;
        const cp_layer *l = &net->layers[layer];
        double h = cal->term[g][cp_layer_calib_class(l)][pass].host_ms;
        int hi = cp_tree_fixed(tr, dag, l->name, h);
        int gi = cp_tree_fixed(tr, dag, l->name, lp->ms[pass]);
        if (hi < 0 || gi < 0 || cp_tree_place(tr, hi, 2, -1) || cp_tree_place(tr, gi, 0, hi))
            return cp_fail(err, NULL, NULL, "out of memory");
        tr->t[hi].detail = "host issue";
        tr->t[gi].detail = pass_names[pass];
        p->host_ms += h;
    }
    if (cp_tree_eval(tr, dag, &p->sys, err))
        return -1;
    if (p->host_ms < p->kernels_ms) {
        p->host_bound = 0;
        return 0;
    }
    /* each pass: from the end of the GPU's previous work to its own end */
    double phase[4] = {0}, prev = tr->t[load].end_ms;
    int c = tr->t[load].next;
    for (int k = 0; next_pass(net, k, &layer, &pass) == 0; k++) {
        cp_layer_pred *lp = &p->layers[layer];
        if (lp->node[pass] < 0)
            continue;
        int gi = tr->t[c].next;
        lp->ms[pass] = tr->t[gi].end_ms - prev;
        prev = tr->t[gi].end_ms;
        phase[pass == CP_PASS_FWD ? 1 : pass == CP_PASS_UPDATE ? 3 : 2] += lp->ms[pass];
        c = tr->t[gi].next;
    }
    p->forward_ms = phase[1];
    p->backward_ms = phase[2];
    p->update_ms = phase[3];
    p->iteration_ms = p->loading_ms + phase[1] + phase[2] + phase[3];
    p->host_bound = p->iteration_ms - p->kernels_ms >= 0.1 * p->iteration_ms;
    return 0;
}

/* What the GPU still has to run once the host has issued its last
 * convolution call (the first convolution layer's last backward pass) and
 * hands the rest out faster than it runs: that pass and the update. */
static double legacy_tail_ms(const cp_prediction *p)
{
    for (int i = 0; i < p->net->n_layers; i++) {
        const cp_layer_pred *lp = &p->layers[i];
        if (strcmp(p->net->layers[i].kind->name, "conv") != 0)
            continue;
        int last = lp->node[CP_PASS_BWD_WEIGHT] >= 0 ? CP_PASS_BWD_WEIGHT : CP_PASS_BWD_DATA;
        return (lp->node[last] >= 0 ? lp->ms[last] : 0) + p->update_ms;
    }
    return p->update_ms;
}

/* cudnnFind's path where the device profile calibrates its host's legacy
 * calls: the host issues the iteration while the GPU runs the kernels, two
 * stages of one pipeline (Eq. 5-9 over the heterogeneous system), so the
 * iteration is the longer of the two. The host's time is the convolution
 * calls times its median issue per call (cp_legacy_host_estimate), and the
 * GPU ends its tail after it (tail_ms); when that is the longer, forward
 * and backward take on the difference in proportion to their calls. */
static void legacy_host_pace(cp_prediction *p)
{
    if (p->algos != CP_ALGOS_FIND || p->timeline >= 0 || !p->dev->legacy_host.loaded)
        return;
    cp_legacy_host h = cp_legacy_host_estimate(p);
    double excess = cp_legacy_host_iteration_ms(p, &h, h.median_ms) - p->iteration_ms; /* iteration: kernels */
    if (h.calls == 0 || excess <= 0)
        return;
    double bwd = p->backward_ms;
    p->forward_ms += excess * h.forward_calls / h.calls;
    p->backward_ms += excess * (h.calls - h.forward_calls) / h.calls;
    p->legacy_backward_scale = bwd > 0 ? p->backward_ms / bwd : 1;
    p->iteration_ms = p->loading_ms + p->forward_ms + p->backward_ms + p->update_ms;
    p->host_ms = h.median_ms;
    p->host_bound = 1;
    p->legacy_paced = 1;
}

/* The workspace cuDNN may use in a harness run with the limit limit_mb:
 * cnnperf-measure sizes it to what the GPU has left after the run's
 * buffers, when that is less (model/memory.h); under 1 MiB it allocates
 * none. Eager mode (negative: no limit) is left as it is, and so is a run
 * that does not fit: it never gets to choose (the memory report says so). */
static double harness_workspace_mb(const cp_network *net, const cp_device *dev, int batch, cp_precision prec,
                                   double limit_mb)
{
    cp_memory m;
    if (limit_mb < 0 || cp_memory_harness(net, dev, batch, prec, &m) || !(m.device > 0) || !m.fits)
        return limit_mb;
    double left = cp_memory_workspace_left_mb(&m);
    return left >= limit_mb ? limit_mb : left >= 1 ? left : CP_NO_WORKSPACE_MB;
}

int cp_predict(const cp_network *net, const cp_device *dev, int batch, cp_precision prec, cp_prediction *p,
               cp_error *err)
{
    return cp_predict_with(net, dev, batch, prec, CP_ALGOS_FIND, p, err);
}

int cp_predict_with(const cp_network *net, const cp_device *dev, int batch, cp_precision prec, cp_algos algos,
                    cp_prediction *p, cp_error *err)
{
    return cp_predict_ws(net, dev, batch, prec, algos, CP_HARNESS_WORKSPACE_MB, p, err);
}

int cp_predict_ws(const cp_network *net, const cp_device *dev, int batch, cp_precision prec, cp_algos algos,
                  double workspace_mb, cp_prediction *p, cp_error *err)
{
    /* Keep the buffers of an earlier prediction, clear everything else. */
    cp_tree tree = p->tree;
    cp_layer_pred *layers = p->layers;
    int layers_cap = p->layers_cap;
    memset(p, 0, sizeof *p);
    p->tree = tree;
    p->tree.n = p->tree.nk = 0;
    p->layers = layers;
    p->layers_cap = layers_cap;
    p->net = net;
    p->dev = dev;
    p->batch = batch;
    p->prec = prec;
    p->algos = algos;
    p->workspace_mb = workspace_mb;
    p->timeline = -1;
    if (batch < 1)
        return cp_fail(err, NULL, "batch", "must be a positive integer, got %d", batch);
    p->workspace_left_mb = harness_workspace_mb(net, dev, batch, prec, workspace_mb);
    if (!cp_device_supports(dev, prec))
        return cp_fail(err, dev->file, "$.tensor_tflops_tf32", "%s has no tensor cores for %s", dev->name,
                       cp_precision_name(prec));
    if (cp_system_single_gpu(&p->sys, dev, err))
        return -1;
    if (net->n_layers > p->layers_cap) {
        cp_layer_pred *nl = realloc(p->layers, (size_t)net->n_layers * sizeof *nl);
        if (!nl)
            return cp_fail(err, NULL, NULL, "out of memory");
        p->layers = nl;
        p->layers_cap = net->n_layers;
    }
    memset(p->layers, 0, (size_t)net->n_layers * sizeof *p->layers);
    for (int i = 0; i < net->n_layers; i++)
        for (int j = 0; j < CP_PASS_COUNT; j++)
            p->layers[i].node[j] = -1;
    /* A layer has at most four pass nodes, each with its kernels; a repeated
     * layer's passes repeat the first one's nodes. The shipped networks need
     * 3.5-6.3 nodes and 0.4-3.1 kernels per layer: reserve about that (a
     * fresh prediction pays a page fault per 4 KB it touches) and let the
     * arrays grow where a network needs more. */
    if (cp_tree_reserve(&p->tree, 16 + 6 * net->n_layers, 16 + 2 * net->n_layers))
        return cp_fail(err, NULL, NULL, "out of memory");
    int n = net->n_layers, slots = 16;
    while (slots < 2 * n)
        slots *= 2;
    /* 17 KB a family: only their two counters need clearing */
    cp_gemm_tiles *tiles = malloc(CP_GEMM_FAMILY_COUNT * sizeof *tiles);
    for (int f = 0; tiles && f < CP_GEMM_FAMILY_COUNT; f++)
        tiles[f].ready = tiles[f].n_memo = 0;
    int *twin = malloc((size_t)(n + slots) * sizeof *twin);
    int(*built)[CP_PASS_COUNT] = malloc((size_t)n * sizeof *built);
    int rc = -1;
    if (!tiles || !twin || !built) {
        cp_fail(err, NULL, NULL, "out of memory");
    } else {
        find_twins(net, twin, twin + n, slots);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < CP_PASS_COUNT; j++)
                built[i][j] = -1;
        double ws = p->workspace_left_mb;
        cp_exec x = {dev, prec, batch, tiles, algos, ws < 0 ? 0 : ws * 1048576.0,
                     net->channels_last};
        rc = build_tree(p, &x, twin, built, err) || cp_tree_eval(&p->tree, p->root, &p->sys, err);
    }
    free(tiles);
    free(twin);
    free(built);
    if (rc)
        return -1;

    const cp_task *t = p->tree.t;
    p->loading_ms = t[p->phase[0]].time_ms;
    p->forward_ms = t[p->phase[1]].time_ms;
    p->backward_ms = t[p->phase[2]].time_ms;
    p->update_ms = t[p->phase[3]].time_ms;
    p->iteration_ms = p->kernels_ms = t[p->root].time_ms;

    double peak = cp_device_peak_flops(dev, prec), bw = dev->dram_bandwidth_gbs * 1e9;
    for (int i = 0; i < net->n_layers; i++) {
        cp_layer_pred *lp = &p->layers[i];
        double worst = -1;
        for (int j = 0; j < CP_PASS_COUNT; j++) {
            p->flops += lp->flops[j];
            if (lp->node[j] < 0)
                continue;
            lp->ms[j] = t[lp->node[j]].time_ms;
            lp->roofline_ms += fmax(lp->exec_flops[j] / peak, lp->bytes[j] / bw) * 1e3;
            for (int c = t[cp_tree_body(&p->tree, lp->node[j])].first; c >= 0; c = t[c].next) {
                const cp_kernel_eval *e = &p->tree.ke[t[c].kernel];
                if (e->time_ms > worst) {
                    worst = e->time_ms;
                    lp->bound = e->bound;
                }
            }
        }
    }
    const cp_calibration *cal = cp_device_calibration(dev, algos);
    if (cal->loaded && cal->has_host && host_timeline(p, cal, err))
        return -1;
    legacy_host_pace(p);
    p->images_per_s = batch / (p->iteration_ms * 1e-3);
    return 0;
}

void cp_prediction_free(cp_prediction *p)
{
    cp_tree_free(&p->tree);
    free(p->layers);
    p->layers = NULL;
    p->layers_cap = 0;
}

double cp_legacy_host_iteration_ms(const cp_prediction *p, const cp_legacy_host *h, double host_ms)
{
    return fmax(p->kernels_ms, host_ms + h->tail_ms);
}

int cp_legacy_host_range(const cp_prediction *p, const cp_legacy_host *h, double range[2])
{
    if (h->calls == 0 || !h->calibrated || p->timeline >= 0)
        return 0;
    range[0] = cp_legacy_host_iteration_ms(p, h, h->p10_ms);
    range[1] = cp_legacy_host_iteration_ms(p, h, h->p90_ms);
    return 1;
}

cp_legacy_host cp_legacy_host_estimate(const cp_prediction *p)
{
    cp_legacy_host h = {0};
    if (p->algos != CP_ALGOS_FIND)
        return h;
    for (int i = 0; i < p->net->n_layers; i++) {
        if (strcmp(p->net->layers[i].kind->name, "conv") != 0)
            continue;
        for (int k = CP_PASS_FWD; k <= CP_PASS_BWD_WEIGHT; k++)
            h.calls += p->layers[i].node[k] >= 0;
        h.forward_calls += p->layers[i].node[CP_PASS_FWD] >= 0;
    }
    const double builtin_us[3] = {CP_LEGACY_CONV_HOST_US_P10, CP_LEGACY_CONV_HOST_US_MEDIAN,
                                  CP_LEGACY_CONV_HOST_US_P90};
    h.calibrated = p->dev->legacy_host.loaded;
    const double *us = h.calibrated ? p->dev->legacy_host.issue_us : builtin_us;
    h.p10_ms = h.calls * us[0] * 1e-3;
    h.median_ms = h.calls * us[1] * 1e-3;
    h.p90_ms = h.calls * us[2] * 1e-3;
    h.tail_ms = legacy_tail_ms(p);
    h.host_may_pace = h.calls > 0 && h.median_ms >= 0.8 * p->kernels_ms;
    return h;
}
