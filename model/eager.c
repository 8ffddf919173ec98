#include "eager.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = {"harness", "eager"};

const char *cp_mode_name(cp_mode m)
{
    return m == CP_MODE_HARNESS || m == CP_MODE_EAGER ? mode_names[m] : "?";
}

int cp_mode_parse(const char *s, cp_mode *m)
{
    for (int i = 0; i < 2; i++)
        if (strcmp(s, mode_names[i]) == 0) {
            *m = (cp_mode)i;
            return 0;
        }
    return -1;
}

/* fmax without the NaN rules (none reach here): it inlines. */
static inline double dmax(double a, double b) { return a > b ? a : b; }

void cp_eager_op(cp_eager_clock *c, double host_ms, const double *kernel_ms, int n)
{
    c->host_ms += host_ms;
    for (int i = 0; i < n; i++) {
        c->gpu_ms = dmax(c->gpu_ms, c->host_ms) + kernel_ms[i];
        c->busy_ms += kernel_ms[i];
    }
}

double cp_eager_end(const cp_eager_clock *c)
{
    return dmax(c->host_ms, c->gpu_ms);
}

double cp_eager_slowest_rank(int ranks, double spread)
{
    if (ranks < 2 || !(spread > 0))
        return 1;
    /* E[max] = integral of x n phi(x) Phi(x)^(n-1): Simpson's rule over
     * [-8, 10], far beyond where the integrand matters for any n here */
    const double SQRT_2PI = 2.5066282746310002;
    const int steps = 2000;
    const double lo = -8, hi = 10, h = (hi - lo) / steps;
    double sum = 0;
    for (int i = 0; i <= steps; i++) {
        double x = lo + i * h;
        double f = x * ranks * exp(-0.5 * x * x) / SQRT_2PI * pow(0.5 * erfc(-x / sqrt(2)), ranks - 1);
        sum += (i == 0 || i == steps ? 1 : i % 2 ? 4 : 2) * f;
    }
    return 1 + spread * sum * h / 3;
}

/* --- the run over one prediction ------------------------------------------------ */

const char *const cp_eager_host_phase_names[CP_EAGER_HOST_PHASES] = {"forward", "backward", "step"};

/* Extra kernels recur (casts of twin layers' weights, BN counters): each
 * distinct one is timed once per run. */
#define MEMO 256
typedef struct {
    const char *name; /* NULL: empty */
    double items, in, out, ms;
} memo;

typedef struct {
    cp_eager *e;
    const cp_prediction *p;
    const cp_device *dev;
    cp_eager_clock c;
    double host_scale; /* an operator's measured host cost to a network's in this process (CP_EAGER_HOST_SCALE,
                          times DDP's operator_scale where processes share the host and its slowest-rank factor) */
    double ddp_scale;  /* DDP's own measured costs to the network's: CP_EAGER_HOST_SCALE x the slowest-rank factor */
    cp_error *err;
    int failed;
    memo m[MEMO];
} run;

static void record(run *r, const char *name, const char *detail, double start, double end, int gpu)
{
    cp_eager *e = r->e;
    if (!e->record || r->failed)
        return;
    if (e->n_events == e->events_cap) {
        int cap = e->events_cap ? 2 * e->events_cap : 1024;
        cp_eager_event *ev = realloc(e->events, (size_t)cap * sizeof *ev);
        if (!ev) {
            r->failed = cp_fail(r->err, NULL, NULL, "out of memory");
            return;
        }
        e->events = ev;
        e->events_cap = cap;
    }
    e->events[e->n_events++] = (cp_eager_event){name, detail, start, end, gpu};
}

static void host_work(run *r, double host_ms, const char *name, const char *detail)
{
    double start = r->c.host_ms;
    cp_eager_op(&r->c, host_ms, NULL, 0);
    record(r, name, detail, start, r->c.host_ms, 0);
}

static void op_ms(run *r, double host_ms, const char *name, const char *detail)
{
    host_work(r, host_ms, name, detail);
    r->e->ops++;
}

static void op(run *r, double host_us, const char *name, const char *detail)
{
    op_ms(r, r->host_scale * host_us * 1e-3, name, detail);
}

/* Host work a training iteration pays once (cp_eager_fixed_us): at the same
 * scale as an operator, but not one (e->ops counts operators) */
static void fixed(run *r, double host_us, const char *name, const char *detail)
{
    if (host_us <= 0)
        return;
    double ms = r->host_scale * host_us * 1e-3;
    host_work(r, ms, name, detail);
    r->e->fixed_ms += ms;
}

/* DistributedDataParallel's own host work: measured under torchrun with every
 * rank at work (torch_bench.py --ddp-overhead), so not scaled for them again;
 * the slowest rank's host is slower at it too */
static void ddp_op(run *r, double host_us, const char *name, const char *detail)
{
    op_ms(r, r->ddp_scale * host_us * 1e-3, name, detail);
}

static void kernel(run *r, double ms, const char *name, const char *detail)
{
    double start = dmax(r->c.gpu_ms, r->c.host_ms);
    cp_eager_op(&r->c, 0, &ms, 1);
    r->e->kernels++;
    record(r, name, detail, start, r->c.gpu_ms, 1);
}

/* A kernel PyTorch runs and the harness does not: a memory-streaming kernel
 * (cp_stream_kernel) of `items` elements, bytes in and out, flops per
 * element, timed by the kernel model; its time. */
static double stream_ms(run *r, const char *name, double items, double in, double out, double flops)
{
    unsigned long long h = (unsigned long long)(size_t)name;
    const double key[3] = {items, in, out};
    for (int i = 0; i < 3; i++) {
        unsigned long long b;
        memcpy(&b, &key[i], sizeof b);
        h = (h ^ b) * 0x100000001B3ull;
    }
    memo *m = &r->m[(h ^ (h >> 32)) & (MEMO - 1)];
    if (m->name == name && m->items == items && m->in == in && m->out == out)
        return m->ms;
    cp_kernel k = cp_stream_kernel(r->dev, CP_PREC_FP32, name, items, in, out, flops * items);
    cp_kernel_eval ev;
    if (cp_kernel_evaluate(&k, r->dev, &ev, r->err)) {
        r->failed = -1;
        return 0;
    }
    *m = (memo){name, items, in, out, ev.time_ms};
    return ev.time_ms;
}

/* Runs such a kernel on the time line; in and out are bytes in total. */
static void extra(run *r, const char *name, double items, double in, double out, double flops, const char *detail)
{
    kernel(r, stream_ms(r, name, items, in, out, flops), name, detail);
    r->e->extra_kernels++;
}

/* Whether PyTorch runs the layer's passes as element-wise kernels of its
 * own (ReLU: clamp_min_, threshold_backward; ReLU6: hardtanh) where the
 * harness calls cuDNN, whose kernels the calibration's terms were fitted on. */
static bool torch_own_elementwise(const cp_layer *l)
{
    return strcmp(l->kind->name, "relu") == 0 || strcmp(l->kind->name, "relu6") == 0;
}

/* A windowed pooling pass as PyTorch's own kernel (max_pool2d_with_indices,
 * avg_pool2d and their backwards; rule 36): one kernel whose time is a rate
 * per element, the same in every precision, fitted on the calibration set's
 * traces of the run's layout (the shipped files: NCHW only); global and
 * adaptive average pooling are other kernels (aten::mean) and keep the
 * harness's. Its time in ms, or -1 where the file has no rate. */
static double torch_pool_ms(const run *r, const cp_calibration *cal, int layout, const cp_layer *l, cp_pass pass)
{
    int kind = strcmp(l->kind->name, "maxpool") == 0 ? 0 : strcmp(l->kind->name, "avgpool") == 0 ? 1 : -1;
    if (kind < 0)
        return -1;
    const cp_eager_pool_rate *rate = &cal->eager_pool[layout][kind];
    if (!rate->set)
        return -1;
    double batch = r->p->batch, ps;
    if (pass == CP_PASS_FWD)
        ps = batch * cp_shape_elems(l->out) * (rate->fwd_per_output_ps + rate->fwd_per_tap_ps * l->kh * l->kw);
    else if (pass == CP_PASS_BWD_DATA)
        ps = batch * cp_shape_elems(l->in[0]) * (rate->bwd_per_input_ps + rate->bwd_per_cover_ps * cp_pool_cover(l));
    else
        return -1;
    return ps * 1e-9 + r->dev->launch_overhead_us * 1e-3;
}

/* The prediction's kernels of one layer pass, with their predicted times,
 * but for the harness's gradient sums (predict.c's "grad_accumulate"): eager
 * mode runs autograd's own (accumulate below). */
static void pass_kernels(run *r, int node, const cp_layer *l, cp_pass pass)
{
    const cp_tree *tr = &r->p->tree;
    if (node < 0)
        return;
    /* the pass's calibration (calibration.h): its scale on every kernel, its
     * per-call offset on the first; PyTorch's own kernels are timed as the
     * calibration set's traces show them instead, where the file has them
     * (rules 33 and 36) */
    double scale = tr->t[node].scale, offset = tr->t[node].offset_ms;
    const cp_calibration *cal = cp_device_calibration(r->dev, r->p->algos);
    int layout = r->p->net->channels_last ? CP_LAYOUT_CHANNELS_LAST : CP_LAYOUT_NCHW;
    double pool_ms = torch_pool_ms(r, cal, layout, l, pass);
    if (pool_ms >= 0) {
        kernel(r, pool_ms, pass == CP_PASS_FWD ? "torch_pool_fwd" : "torch_pool_bwd", l->name);
        return;
    }
    if (cal->has_eager && torch_own_elementwise(l)) {
        /* TF32 is the math of convolutions and matrix products only: PyTorch's
         * ReLU on a TF32 run is its FP32 kernel on the same FP32 tensors */
        cp_precision own = r->p->prec == CP_PREC_TF32 ? CP_PREC_FP32 : r->p->prec;
        double f = cal->eager_scale[layout][cp_calib_group_of(own)][cp_layer_calib_class(l)][pass];
        if (f > 0)
            scale = f, offset = 0;
    }
    for (int c = tr->t[cp_tree_body(tr, node)].first; c >= 0; c = tr->t[c].next) {
        const char *name = tr->k[tr->t[c].kernel].name;
        if (strcmp(name, "grad_accumulate") == 0)
            continue;
        kernel(r, scale * tr->t[c].time_ms + offset, name, l->name);
        offset = 0;
    }
}

/* --- autograd's gradient sums -------------------------------------------------- */

static int is_concat(const cp_layer *l)
{
    return strcmp(l->kind->name, "concat") == 0;
}

/* Counts, per layer, the concatenations that hold its output (through
 * concatenations of concatenations) and have a reader that is not one. */
static void count_in_concats(const cp_network *net, int c, int *held)
{
    const cp_layer *l = &net->layers[c];
    for (int j = 0; j < l->n_inputs; j++) {
        int in = l->inputs[j];
        if (in < 0)
            continue;
        if (is_concat(&net->layers[in]))
            count_in_concats(net, in, held);
        else
            held[in]++;
    }
}

/* How many times autograd sums two gradients of each layer's output: one
 * fewer than the gradients it receives. PyTorch writes a concatenation that
 * takes a concatenation as one torch.cat of the inner one's inputs
 * (torchvision's DenseNet: every dense layer concatenates all earlier
 * features), so each of those inputs receives a gradient from every
 * concatenation that holds it and is read by a layer other than a
 * concatenation; the harness sums once per concatenation instead
 * (predict.c). Elsewhere the two agree: one fewer than the readers. */
static int accumulations(const cp_network *net, int *acc, cp_error *err)
{
    int n = net->n_layers;
    int *real = calloc((size_t)n, sizeof *real), *held = calloc((size_t)n, sizeof *held);
    if (!real || !held) {
        free(real);
        free(held);
        return cp_fail(err, NULL, NULL, "out of memory");
    }
    for (int i = 0; i < n; i++) /* readers that are not concatenations */
        real[i] = net->layers[i].consumers;
    for (int i = 0; i < n; i++)
        if (is_concat(&net->layers[i]))
            for (int j = 0; j < net->layers[i].n_inputs; j++)
                if (net->layers[i].inputs[j] >= 0)
                    real[net->layers[i].inputs[j]]--;
    for (int i = 0; i < n; i++)
        if (is_concat(&net->layers[i]) && real[i] > 0)
            count_in_concats(net, i, held);
    for (int i = 0; i < n; i++) {
        int got = is_concat(&net->layers[i]) ? real[i] : real[i] + held[i];
        acc[i] = got > 1 ? got - 1 : 0;
    }
    free(real);
    free(held);
    return 0;
}

/* Autograd sums a gradient into another: an ATen add from the engine (its
 * host cost) and its kernel over the activation's elements. */
static void accumulate(run *r, const cp_layer *l, double us, int autocast)
{
    double e = r->p->batch * cp_shape_elems(l->out), b = autocast ? 2 : 4;
    op(r, us, "grad_accumulate", l->name);
    kernel(r, stream_ms(r, "grad_accumulate", e, 2 * b * e, b * e, 1), "grad_accumulate", l->name);
    r->e->accumulations++;
}

/* Parameter tensors of a layer as torch holds them (weight and bias, or BN's
 * gamma and beta); returns how many, sizes in elements. */
static int tensors_of(const cp_layer *l, double size[2])
{
    if (l->params <= 0)
        return 0;
    double all = (double)l->params;
    if (strcmp(l->kind->name, "batchnorm") == 0) {
        size[0] = size[1] = all / 2;
        return 2;
    }
    if (l->bias && l->out_c > 0 && all > l->out_c) {
        size[0] = all - l->out_c;
        size[1] = l->out_c;
        return 2;
    }
    size[0] = all;
    return 1;
}

/* Per layer kind: host costs and what PyTorch adds. */
#define KINDS 32
typedef struct {
    const cp_layer_kind *kind;
    double fwd_us, bwd_us;
    int casts; /* autocast casts its weights to 16 bits (conv, linear) */
    int bn, loss;
} kind_info;

static const kind_info *info_of(kind_info *cache, int *n, const cp_layer_kind *kind, const cp_eager_costs *costs,
                                int autocast, int *builtin)
{
    for (int i = 0; i < *n; i++)
        if (cache[i].kind == kind)
            return &cache[i];
    kind_info *k = &cache[*n < KINDS ? (*n)++ : KINDS - 1]; /* the registry has fewer */
    k->kind = kind;
    k->fwd_us = cp_eager_op_us(costs, kind->name, autocast ? CP_EAGER_AC_FWD : CP_EAGER_FWD, builtin);
    k->bwd_us = cp_eager_op_us(costs, kind->name, autocast ? CP_EAGER_AC_BWD : CP_EAGER_BWD, builtin);
    /* torch_bench times an add as x + x, whose backward also sums x's two
     * gradients: that sum is charged where it happens (accumulate) */
    if (strcmp(kind->name, "add") == 0)
        k->bwd_us = dmax(k->bwd_us - cp_eager_op_us(costs, "grad_accumulate",
                                                    autocast ? CP_EAGER_AC_BWD : CP_EAGER_BWD, builtin), 0);
    k->casts = strcmp(kind->name, "conv") == 0 || strcmp(kind->name, "fc") == 0;
    k->bn = strcmp(kind->name, "batchnorm") == 0;
    k->loss = strcmp(kind->name, "softmax") == 0;
    return k;
}

/* CrossEntropyLoss is log_softmax + nll_loss: the harness's fused softmax
 * cross-entropy kernel stands for log_softmax; nll_loss gathers one value
 * per sample (int64 labels). Under autocast log_softmax runs in fp32. */
static void loss_forward(run *r, double logits, int autocast, const char *layer)
{
    double b = r->p->batch;
    if (autocast)
        extra(r, "autocast_cast_logits_fp32", logits, 2 * logits, 4 * logits, 0, layer);
    extra(r, "nll_loss_fwd", b, 12 * b, 8, 1, layer);
}

/* loss.backward(): the seed gradient (ones), nll_loss_backward (zero the
 * logits' gradient, scatter -1/N), then log_softmax's backward (the
 * harness's kernel), cast back to 16 bits under autocast. */
static void loss_backward(run *r, double logits, int autocast, const char *layer)
{
    double b = r->p->batch;
    extra(r, "loss_grad_seed", 1, 0, 4, 0, layer);
    extra(r, "nll_loss_bwd_zero", logits, 0, 4 * logits, 0, layer);
    extra(r, "nll_loss_bwd_scatter", b, 12 * b, 4 * b, 1, layer);
    if (autocast)
        extra(r, "autocast_cast_logits_grad", logits, 4 * logits, 2 * logits, 0, layer);
}

/* One torch._foreach_* op through multi_tensor_apply: chunks of 65536
 * elements, a launch whenever 320 chunks or the depth's tensor limit are
 * reached (ATen's MultiTensorApply.cuh). Bytes per element in and out. */
static void foreach_op(run *r, const double *size, int n, int depth, double in, double out, double flops,
                       const char *name)
{
    static const int max_tensors[] = {110, 64, 48, 36, 30};
    const double chunk = 65536;
    const int max_blocks = 320;
    int tensors = 0, blocks = 0;
    double elems = 0;
    for (int t = 0; t < n && !r->failed; t++) {
        long long chunks = (long long)cp_cdiv(size[t], chunk);
        double left = size[t];
        tensors++;
        while (chunks > 0) { /* as many chunks as the launch takes at once */
            long long take = chunks < max_blocks - blocks ? chunks : max_blocks - blocks;
            double e = take == chunks ? left : (double)take * chunk;
            blocks += (int)take;
            elems += e;
            left -= e;
            chunks -= take;
            int last = chunks == 0;
            if ((tensors == max_tensors[depth - 1] && last) || blocks == max_blocks || (t == n - 1 && last)) {
                double ms = stream_ms(r, name, elems, in * elems, out * elems, flops);
                kernel(r, ms, name, "optimizer");
                r->e->extra_kernels++;
                r->e->optimizer_kernels++;
                r->e->optimizer_ms += ms;
                blocks = 0;
                elems = 0;
                tensors = last ? 0 : 1;
            }
        }
    }
}

static int grow_layers(cp_eager *e, int n, cp_error *err)
{
    if (n <= e->layers_cap)
        return 0;
    cp_eager_layer *l = realloc(e->layers, (size_t)n * sizeof *l);
    if (!l)
        return cp_fail(err, NULL, NULL, "out of memory");
    e->layers = l;
    e->layers_cap = n;
    return 0;
}

/* What follows from the iteration, the host's issue and the GPU's busy time: the throughput, the GPU's wait for
 * the host, its share, and whether the host alone takes as long as the kernels */
static void derive(cp_eager *e)
{
    e->images_per_s = e->pred->batch / (e->iteration_ms * 1e-3);
    e->gpu_idle_ms = e->iteration_ms - e->gpu_busy_ms;
    e->host_share = e->gpu_idle_ms / e->iteration_ms;
    e->host_bound = e->host_ms >= e->gpu_busy_ms;
}

/* One run of the pipeline with every host cost at `level` times the fitted scale (1: the typical host). */
static int eager_at(const cp_prediction *p, const cp_eager_costs *costs, cp_eager *e, double level, cp_error *err)
{
    /* keep the buffers, clear the rest */
    cp_eager_layer *layers = e->layers;
    cp_eager_event *events = e->events;
    int layers_cap = e->layers_cap, events_cap = e->events_cap, rec = e->record, ddp = e->ddp_workers,
        local = e->ddp_local;
    memset(e, 0, sizeof *e);
    e->layers = layers;
    e->layers_cap = layers_cap;
    e->events = events;
    e->events_cap = events_cap;
    e->record = rec;
    e->ddp_workers = ddp;
    e->ddp_local = local;
    e->pred = p;
    e->harness_ms = p->iteration_ms;
    const cp_network *net = p->net;
    if (!costs)
        costs = &p->dev->eager;
    if (grow_layers(e, net->n_layers, err))
        return -1;
    memset(e->layers, 0, (size_t)net->n_layers * sizeof *e->layers);

    int *acc = malloc((size_t)net->n_layers * sizeof *acc);
    if (!acc)
        return cp_fail(err, NULL, NULL, "out of memory");
    if (accumulations(net, acc, err)) {
        free(acc);
        return -1;
    }
    double base_scale = e->ddp_workers > 1 ? CP_EAGER_DDP_HOST_SCALE : CP_EAGER_HOST_SCALE;
    e->base_scale = base_scale;
    base_scale *= level;
    run r = {.e = e, .p = p, .dev = p->dev, .err = err, .host_scale = base_scale};
    e->operator_scale = e->ddp_workers > 1 && e->ddp_local > 1 ? cp_eager_ddp_operator_scale(costs, &p->dev->eager) : 1;
    e->rank_scale = cp_eager_slowest_rank(e->ddp_workers, cp_eager_ddp_rank_spread(costs, &p->dev->eager));
    e->host_scale = r.host_scale *= e->operator_scale * e->rank_scale;
    r.ddp_scale = base_scale * e->rank_scale;
    int autocast = p->prec == CP_PREC_FP16 || p->prec == CP_PREC_BF16;
    kind_info cache[KINDS];
    int n_kinds = 0, builtin = 0;
    double acc_us = cp_eager_op_us(costs, "grad_accumulate", autocast ? CP_EAGER_AC_BWD : CP_EAGER_BWD, &builtin);
    /* the layer that is the loss; a network without one gets
     * CrossEntropyLoss on its output, as a training script adds it */
    const cp_layer_kind *softmax = cp_layer_kind_find("softmax");
    int loss_layer = -1;
    for (int i = 0; i < net->n_layers && loss_layer < 0; i++)
        if (net->layers[i].kind == softmax)
            loss_layer = i;
    const cp_layer *last = &net->layers[net->n_layers - 1];
    double logits = p->batch * cp_shape_elems(loss_layer >= 0 ? net->layers[loss_layer].out : last->out);
    double default_us = cp_eager_op_us(costs, "default", CP_EAGER_FWD, &builtin);
    double loss_fwd_us = cp_eager_op_us(costs, "softmax", autocast ? CP_EAGER_AC_FWD : CP_EAGER_FWD, &builtin);
    double loss_bwd_us = cp_eager_op_us(costs, "softmax", autocast ? CP_EAGER_AC_BWD : CP_EAGER_BWD, &builtin);

    /* Loading: x_host.to(dev, non_blocking=True) and y_host.to(...): fp32
     * images and int64 labels from pinned memory, each an operator. */
    const cp_link *link = &p->sys.links[CP_LINK_HOST_DATA];
    op(&r, default_us, "input.to(cuda)", "loading");
    kernel(&r, cp_transfer_ms(link, 4.0 * p->batch * cp_shape_elems(net->input), 1), "input batch", "loading");
    op(&r, default_us, "labels.to(cuda)", "loading");
    kernel(&r, cp_transfer_ms(link, 8.0 * p->batch, 1), "labels", "loading");
    e->loading_ms = r.c.gpu_ms;

    /* What the iteration pays once (rule 52): zero_grad, autocast, the model's
     * and the loss's calls before the first layer; loss.backward()'s start;
     * opt.step()'s own beyond the optimizer's fixed part. */
    const cp_eager_costs *machine = &p->dev->eager;
    double fixed_us[CP_EAGER_HOST_PHASES];
    for (int i = 0; i < CP_EAGER_HOST_PHASES; i++)
        fixed_us[i] = cp_eager_fixed_us(costs, machine, autocast, i);
    fixed(&r, fixed_us[0], "training iteration (fixed part): zero_grad, autocast, model and loss calls", "forward");

    /* DistributedDataParallel before the forward: its per-step work and the
     * broadcast of every batch norm's buffers from rank 0 */
    double ddp_param_us = 0;
    if (e->ddp_workers > 1) {
        int n_bn = 0;
        for (int i = 0; i < net->n_layers; i++)
            n_bn += strcmp(net->layers[i].kind->name, "batchnorm") == 0;
        double step = cp_eager_ddp_us(costs, machine, CP_DDP_PER_STEP, &builtin) +
                      n_bn * cp_eager_ddp_us(costs, machine, CP_DDP_PER_BN, &builtin);
        ddp_param_us = cp_eager_ddp_us(costs, machine, CP_DDP_PER_PARAM, &builtin);
        ddp_op(&r, step, "DistributedDataParallel.forward (buffers, prepare)", "ddp");
    }

    /* Forward: one operator per layer. */
    for (int i = 0; i < net->n_layers && !r.failed; i++) {
        const cp_layer *l = &net->layers[i];
        const kind_info *k = info_of(cache, &n_kinds, l->kind, costs, autocast, &builtin);
        double g0 = r.c.gpu_ms, size[2];
        op(&r, k->fwd_us, l->name, "forward");
        if (autocast && k->casts) {
            for (int j = 0; j < l->n_inputs; j++)
                if (l->inputs[j] == CP_INPUT_DATA) {
                    double x = p->batch * cp_shape_elems(l->in[j]);
                    extra(&r, "autocast_cast_input", x, 4 * x, 2 * x, 0, l->name);
                }
            for (int j = 0, n = tensors_of(l, size); j < n; j++)
                extra(&r, "autocast_cast_weight", size[j], 4 * size[j], 2 * size[j], 0, l->name);
        }
        pass_kernels(&r, p->layers[i].node[CP_PASS_FWD], l, CP_PASS_FWD);
        if (k->bn) /* self.num_batches_tracked.add_(1) */
            extra(&r, "bn_num_batches_tracked", 1, 8, 8, 1, l->name);
        if (k->loss && i == loss_layer)
            loss_forward(&r, logits, autocast, l->name);
        e->layers[i].fwd_ms = r.c.gpu_ms - g0;
    }
    if (loss_layer < 0 && !r.failed) { /* counted with the last layer */
        double g0 = r.c.gpu_ms;
        op(&r, loss_fwd_us, "CrossEntropyLoss", "forward");
        extra(&r, "log_softmax_fwd", logits, 4 * logits, 4 * logits, 4, "loss");
        loss_forward(&r, logits, 0, "loss");
        e->layers[net->n_layers - 1].fwd_ms += r.c.gpu_ms - g0;
    }
    double fwd_end = r.c.gpu_ms, host_fwd_end = r.c.host_ms;

    /* Backward: loss.backward(), then one autograd node per layer that has
     * parameters or a parameter upstream, in reverse. */
    if (!r.failed)
        fixed(&r, fixed_us[1], "training iteration (fixed part): loss.backward()'s start", "backward");
    if (loss_layer < 0 && !r.failed) {
        double g0 = r.c.gpu_ms;
        op(&r, loss_bwd_us, "loss.backward()", "backward");
        loss_backward(&r, logits, 0, "loss");
        extra(&r, "log_softmax_bwd", logits, 8 * logits, 4 * logits, 2, "loss");
        e->layers[net->n_layers - 1].bwd_ms += r.c.gpu_ms - g0;
    }
    for (int i = net->n_layers - 1; i >= 0 && !r.failed; i--) {
        const cp_layer *l = &net->layers[i];
        if (l->params <= 0 && !l->needs_input_grad)
            continue;
        const kind_info *k = info_of(cache, &n_kinds, l->kind, costs, autocast, &builtin);
        double g0 = r.c.gpu_ms, size[2];
        op(&r, k->bwd_us, l->name, "backward");
        if (k->loss && i == loss_layer)
            loss_backward(&r, logits, autocast, l->name);
        for (int j = 0; j < acc[i] && !r.failed; j++)
            accumulate(&r, l, acc_us, autocast);
        pass_kernels(&r, p->layers[i].node[CP_PASS_BWD_DATA], l, CP_PASS_BWD_DATA);
        pass_kernels(&r, p->layers[i].node[CP_PASS_BWD_WEIGHT], l, CP_PASS_BWD_WEIGHT);
        int n = tensors_of(l, size);
        if (autocast && k->casts) /* ToCopyBackward: the weight gradients back to fp32 */
            for (int j = 0; j < n; j++)
                extra(&r, "autocast_grad_to_fp32", size[j], 2 * size[j], 4 * size[j], 0, l->name);
        for (int j = 0; e->ddp_workers > 1 && j < n; j++) { /* DDP: the gradient into its bucket */
            double g1 = r.c.gpu_ms;
            ddp_op(&r, ddp_param_us, "DDP autograd hook", l->name);
            extra(&r, "ddp_copy_grad_to_bucket", size[j], 4 * size[j], 4 * size[j], 0, l->name);
            e->ddp_gpu_ms += r.c.gpu_ms - g1;
        }
        e->layers[i].bwd_ms += r.c.gpu_ms - g0;
    }
    /* the buckets / world size, then back into the gradients: counted with the first layer, whose backward runs last */
    if (e->ddp_workers > 1 && !r.failed) {
        double g1 = r.c.gpu_ms, all = p->net->params;
        extra(&r, "ddp_bucket_div_world_size", all, 4 * all, 4 * all, 1, "ddp");
        extra(&r, "ddp_copy_bucket_to_grad", all, 4 * all, 4 * all, 0, "ddp");
        e->ddp_gpu_ms += r.c.gpu_ms - g1;
        e->layers[0].bwd_ms += r.c.gpu_ms - g1;
    }
    double bwd_end = r.c.gpu_ms, host_bwd_end = r.c.host_ms;

    /* opt.step(): torch.optim.SGD(momentum) foreach, fp32 parameters,
     * gradients and momentum: bufs *= mu; bufs += g; params -= lr bufs. */
    double *sizes = NULL;
    int n_tensors = 0;
    if (!r.failed) {
        sizes = malloc((size_t)(2 * net->n_layers + 1) * sizeof *sizes);
        if (!sizes)
            r.failed = cp_fail(err, NULL, NULL, "out of memory");
    }
    if (!r.failed) {
        for (int i = 0; i < net->n_layers; i++)
            n_tensors += tensors_of(&net->layers[i], sizes + n_tensors);
        e->param_tensors = n_tensors;
        fixed(&r, fixed_us[2], "training iteration (fixed part): opt.step()'s own", "update");
        op(&r, cp_eager_optimizer_us(costs, n_tensors, &builtin), "optimizer.step()", "update");
        foreach_op(&r, sizes, n_tensors, 1, 4, 4, 1, "foreach_mul_(momentum_buffers)");
        foreach_op(&r, sizes, n_tensors, 2, 8, 4, 1, "foreach_add_(momentum_buffers, grads)");
        foreach_op(&r, sizes, n_tensors, 2, 8, 4, 2, "foreach_add_(params, momentum_buffers)");
    }
    free(sizes);
    free(acc);
    if (r.failed)
        return -1;

    e->iteration_ms = cp_eager_end(&r.c);
    e->forward_ms = fwd_end - e->loading_ms;
    e->backward_ms = bwd_end - fwd_end;
    e->update_ms = e->iteration_ms - bwd_end;
    e->host_ms = r.c.host_ms;
    e->host_phase_ms[0] = host_fwd_end;
    e->host_phase_ms[1] = host_bwd_end - host_fwd_end;
    e->host_phase_ms[2] = r.c.host_ms - host_bwd_end;
    e->gpu_busy_ms = r.c.busy_ms;
    derive(e);
    e->host_levels = 1;
    e->builtin_costs = builtin;
    e->costs_source = costs->given ? costs->source : cp_eager_default_source;
    return 0;
}

/* e's spans and host times := the mean of a's and b's, two runs of e's prediction at other host speeds (rule 55);
 * what does not depend on the host's speed (the GPU's busy time, the counts) and e's events stay e's */
static void mean_of(cp_eager *e, const cp_eager *a, const cp_eager *b)
{
#define MEAN(f) e->f = 0.5 * (a->f + b->f)
    MEAN(iteration_ms);
    MEAN(loading_ms);
    MEAN(forward_ms);
    MEAN(backward_ms);
    MEAN(update_ms);
    MEAN(host_ms);
    for (int i = 0; i < CP_EAGER_HOST_PHASES; i++)
        MEAN(host_phase_ms[i]);
    MEAN(fixed_ms);
    MEAN(ddp_gpu_ms);
    for (int i = 0; i < e->pred->net->n_layers; i++) {
        MEAN(layers[i].fwd_ms);
        MEAN(layers[i].bwd_ms);
    }
#undef MEAN
    derive(e);
}

int cp_eager_run(const cp_prediction *p, const cp_eager_costs *costs, cp_eager *e, cp_error *err)
{
    if (!(CP_EAGER_HOST_LEVELS > 1))
        return eager_at(p, costs, e, 1, err);
    /* rule 55: the host at its fast and at its slow level, as likely; e itself is the typical host's run (its
     * events for a trace, its scale), its times then the two levels' mean */
    double k = sqrt(CP_EAGER_HOST_LEVELS);
    cp_eager fast = {.ddp_workers = e->ddp_workers, .ddp_local = e->ddp_local}, slow = fast;
    int failed = eager_at(p, costs, &fast, 1 / k, err) || eager_at(p, costs, &slow, k, err) ||
                 eager_at(p, costs, e, 1, err);
    if (!failed) {
        mean_of(e, &fast, &slow);
        e->host_levels = CP_EAGER_HOST_LEVELS;
    }
    cp_eager_free(&fast);
    cp_eager_free(&slow);
    return failed ? -1 : 0;
}

int cp_eager_range(const cp_prediction *p, const cp_eager_costs *costs, cp_eager *e, cp_error *err)
{
    const cp_eager_costs *spread = &p->dev->eager; /* how the machine's host moves: the profile's own calls */
    e->has_range = e->range_one_call = 0;
    if (spread->spread_calls < 2)
        return 0;
    cp_eager_costs c = costs ? *costs : p->dev->eager;
    double base = c.scale > 0 ? c.scale : 1;
    /* costs of one call (a torch_bench.py --eager-overhead file, not a profile's median over its calls): the run's
     * host and that call's each move as the profile's calls do, their ratio sqrt(2) times as far in logarithm */
    double widen = costs && costs->given && costs->spread_calls < 2 ? sqrt(2.0) : 1;
    cp_eager bound = {.ddp_workers = e->ddp_workers, .ddp_local = e->ddp_local};
    for (int i = 0; i < 2; i++) {
        double f = pow(i ? spread->spread_high : spread->spread_low, widen);
        c.scale = base * f;
        if (eager_at(p, &c, &bound, 1, err)) { /* one host, as cheap or as dear as measured: no mean (rule 55) */
            cp_eager_free(&bound);
            return -1;
        }
        e->range_ms[i] = bound.iteration_ms;
        e->spread[i] = f;
    }
    cp_eager_free(&bound);
    e->has_range = 1;
    e->range_one_call = widen > 1;
    return 0;
}

void cp_eager_free(cp_eager *e)
{
    free(e->layers);
    free(e->events);
    e->layers = NULL;
    e->events = NULL;
    e->layers_cap = e->events_cap = e->n_events = 0;
}
