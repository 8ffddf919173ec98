/* Host costs of eager operators: the tables, their lookup and their two readers. */
#include "eager_costs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fit.h"

static const char *const keys[CP_EAGER_KEYS] = {
    "default", "pool",    "conv",    "fc",      "batchnorm", "relu",   "relu6",  "maxpool",          "avgpool",
    "global_avgpool",    "adaptive_avgpool", "lrn",     "dropout", "softmax", "concat", "add",    "flatten",
    "grad_accumulate",
};
enum { K_DEFAULT, K_POOL, K_ACCUMULATE = CP_EAGER_KEYS - 1 };

static const char *const table_names[CP_EAGER_TABLES] = {"forward_op_us", "backward_op_us",
                                                         "autocast_forward_op_us", "autocast_backward_op_us"};

const char cp_eager_default_source[] =
    "defaults, not calibrated: typical PyTorch 2.x eager costs on a recent x86 server CPU (devices/FORMAT.md); "
    "measure them with tools/torch_bench.py --eager-overhead";

/* Built-in values, µs per operator (a module call forward, an autograd node
 * backward). Typical PyTorch 2.x figures: a Python module call with its
 * checks ~3-5 µs, a dispatcher trip and launch ~5-10 µs per ATen op; BN
 * adds its Python checks and num_batches_tracked += 1; LRN is ~7 ATen ops;
 * the loss is log_softmax + nll_loss, and its backward starts the engine.
 * Autocast adds the weight casts (conv, fc) and their backward nodes, the
 * loss's cast to fp32, and ~1 µs of autocast dispatch elsewhere. -1: take
 * the group's or the default. */
static const double builtin[CP_EAGER_TABLES][CP_EAGER_KEYS] = {
    /*         default pool conv fc  bn  relu relu6 max avg gavg aavg lrn drop soft cat add flat acc */
    [CP_EAGER_FWD] = {10, 10, 20, 16, 25, 8, -1, -1, -1, -1, -1, 35, 12, 25, 10, 7, 4, 0},
    [CP_EAGER_BWD] = {8, 8, 15, 14, 12, 6, -1, -1, -1, -1, -1, 25, 6, 30, 6, 4, 3, 5},
    [CP_EAGER_AC_FWD] = {11, 11, 28, 24, 26, 9, -1, -1, -1, -1, -1, 36, 13, 31, 11, 8, 5, 0},
    [CP_EAGER_AC_BWD] = {8, 8, 20, 19, 12, 6, -1, -1, -1, -1, -1, 25, 6, 34, 6, 4, 3, 5},
};
static const double builtin_opt_step_us = 80, builtin_opt_tensor_us = 2.0;

static int key_index(const char *s)
{
    for (int k = 0; k < CP_EAGER_KEYS; k++)
        if (strcmp(keys[k], s) == 0)
            return k;
    return -1;
}

/* The lookup chain of a kind: itself, its group, "default". An autograd
 * gradient accumulation is no module call: its own entry only. */
static int chain(const char *kind, int out[3])
{
    int n = 0, k = key_index(kind);
    if (k == K_ACCUMULATE) {
        out[0] = k;
        return 1;
    }
    if (k >= 0)
        out[n++] = k;
    if (strstr(kind, "pool") && k != K_POOL)
        out[n++] = K_POOL;
    if (strcmp(kind, "relu6") == 0)
        out[n++] = key_index("relu");
    if (k != K_DEFAULT)
        out[n++] = K_DEFAULT;
    return n;
}

static double builtin_of(const double *v, const int *ch, int n)
{
    for (int i = 0; i < n; i++)
        if (v[ch[i]] >= 0)
            return v[ch[i]];
    return 0; /* not reached: "default" has every table */
}

static double given_of(const cp_eager_costs *c, cp_eager_table t, const int *ch, int n)
{
    for (int i = 0; i < n; i++)
        if (c->has[t][ch[i]])
            return c->us[t][ch[i]];
    return -1;
}

/* A value of the call's moved toward the machine's (cp_toward), or the machine's where the call gave none. */
static double toward_or(int call_has, double call, double machine)
{
    return call_has ? cp_toward(call, machine) : machine;
}

void cp_eager_costs_toward(cp_eager_costs *call, const cp_eager_costs *machine)
{
    if (!machine->given)
        return;
    for (int t = 0; t < CP_EAGER_TABLES; t++)
        for (int k = 0; k < CP_EAGER_KEYS; k++)
            if (machine->has[t][k]) {
                call->us[t][k] = toward_or(call->has[t][k], call->us[t][k], machine->us[t][k]);
                call->has[t][k] = 1;
            }
    if (machine->has_opt) {
        call->opt_step_us = toward_or(call->has_opt, call->opt_step_us, machine->opt_step_us);
        call->opt_tensor_us = toward_or(call->has_opt, call->opt_tensor_us, machine->opt_tensor_us);
        call->has_opt = 1;
    }
    if (machine->has_fixed) {
        for (int a = 0; a < 2; a++)
            for (int ph = 0; ph < 3; ph++)
                call->fixed_us[a][ph] = toward_or(call->has_fixed, call->fixed_us[a][ph], machine->fixed_us[a][ph]);
        call->has_fixed = 1;
    }
    if (machine->has_ddp && call->has_ddp)
        for (int i = 0; i < 3; i++)
            call->ddp_us[i] = cp_toward(call->ddp_us[i], machine->ddp_us[i]);
}

static double scale_of(const cp_eager_costs *c)
{
    return c->scale > 0 ? c->scale : 1;
}

static double op_us(const cp_eager_costs *c, const char *kind, cp_eager_table t, int *builtin_used)
{
    int ch[3], n = chain(kind, ch);
    double v = given_of(c, t, ch, n);
    if (v >= 0)
        return v;
    if (t == CP_EAGER_AC_FWD || t == CP_EAGER_AC_BWD) {
        /* the measured plain cost plus what autocast adds by the built-in values */
        cp_eager_table plain = t == CP_EAGER_AC_FWD ? CP_EAGER_FWD : CP_EAGER_BWD;
        double p = given_of(c, plain, ch, n);
        if (p >= 0) {
            if (builtin_used)
                *builtin_used = 1;
            return p + builtin_of(builtin[t], ch, n) - builtin_of(builtin[plain], ch, n);
        }
    }
    if (builtin_used)
        *builtin_used = 1;
    return builtin_of(builtin[t], ch, n);
}

double cp_eager_op_us(const cp_eager_costs *c, const char *kind, cp_eager_table t, int *builtin_used)
{
    return scale_of(c) * op_us(c, kind, t, builtin_used);
}

/* One optimizer step over `tensors` parameter tensors as c measured it (else the built-in values), unscaled */
static double optimizer_us(const cp_eager_costs *c, int tensors)
{
    return c->has_opt ? c->opt_step_us + tensors * c->opt_tensor_us
                      : builtin_opt_step_us + tensors * builtin_opt_tensor_us;
}

double cp_eager_optimizer_us(const cp_eager_costs *c, int tensors, int *builtin_used)
{
    if (!c->has_opt && builtin_used)
        *builtin_used = 1;
    return scale_of(c) * optimizer_us(c, tensors);
}

double cp_eager_fixed_us(const cp_eager_costs *c, const cp_eager_costs *machine, int autocast, int phase)
{
    const cp_eager_costs *from = c && c->has_fixed ? c : machine && machine->has_fixed ? machine : NULL;
    if (!from || phase < 0 || phase > 2)
        return 0;
    cp_eager_table fwd = autocast ? CP_EAGER_AC_FWD : CP_EAGER_FWD, bwd = autocast ? CP_EAGER_AC_BWD : CP_EAGER_BWD;
    double head;
    if (phase == 0)
        head = 2 * op_us(from, "default", CP_EAGER_FWD, NULL) + op_us(from, "flatten", fwd, NULL) +
               op_us(from, "fc", fwd, NULL) + op_us(from, "softmax", fwd, NULL);
    else if (phase == 1)
        head = op_us(from, "flatten", bwd, NULL) + op_us(from, "fc", bwd, NULL) + op_us(from, "softmax", bwd, NULL);
    else
        head = optimizer_us(from, 2);
    double rest = from->fixed_us[autocast != 0][phase] - head;
    return rest > 0 ? scale_of(c ? c : from) * rest : 0;
}

double cp_eager_ddp_us(const cp_eager_costs *c, const cp_eager_costs *machine, int which, int *builtin_used)
{
    const cp_eager_costs *from = c && c->has_ddp ? c : machine && machine->has_ddp ? machine : NULL;
    if (!from) {
        if (builtin_used)
            *builtin_used = 1;
        return 0;
    }
    return scale_of(c ? c : from) * from->ddp_us[which];
}

/* The run's own value where given (> 0), else the machine's, else the default. */
static double given_or(double own, double machine, double dflt)
{
    return own > 0 ? own : machine > 0 ? machine : dflt;
}

double cp_eager_ddp_operator_scale(const cp_eager_costs *c, const cp_eager_costs *machine)
{
    return given_or(c ? c->ddp_operator_scale : 0, machine ? machine->ddp_operator_scale : 0, 1.0);
}

double cp_eager_ddp_rank_spread(const cp_eager_costs *c, const cp_eager_costs *machine)
{
    return given_or(c ? c->ddp_rank_spread : 0, machine ? machine->ddp_rank_spread : 0, 0.0);
}

/* --- readers ------------------------------------------------------------------ */

int cp_eager_ddp_parse(cp_jctx *c, const cJSON *parent, cp_eager_costs *out)
{
    const cJSON *o = cp_jget(parent, "ddp");
    if (!o)
        return 0;
    if (!cJSON_IsObject(o))
        return cp_jfail(c, "ddp", "must be an object {per_param_us, per_bn_us, per_step_us}");
    static const char *const known[] = {"per_param_us", "per_bn_us", "per_step_us", "operator_scale", "rank_spread",
                                        "source", NULL};
    static const char *const ddp_keys[3] = {"per_param_us", "per_bn_us", "per_step_us"};
    size_t mark = cp_jpush_key(c, "ddp");
    int rc = cp_jonly(c, o, known);
    for (int i = 0; i < 3 && !rc; i++)
        rc = cp_jnum(c, o, ddp_keys[i], true, 0, 0, 1e6, &out->ddp_us[i]);
    if (!rc) /* optional: 0 where absent */
        rc = cp_jnum(c, o, "operator_scale", false, 0, 0.25, 8, &out->ddp_operator_scale) ||
             cp_jnum(c, o, "rank_spread", false, 0, 0, 1, &out->ddp_rank_spread);
    cp_jpop(c, mark);
    out->has_ddp = !rc;
    return rc ? -1 : 0;
}

static int parse_table(cp_jctx *c, const cJSON *obj, const char *name, double *out, unsigned char *has)
{
    const cJSON *t = cp_jget(obj, name);
    if (!t)
        return 0;
    if (!cJSON_IsObject(t))
        return cp_jfail(c, name, "must be an object of layer kind -> host microseconds per operator");
    size_t mark = cp_jpush_key(c, name);
    for (const cJSON *it = t->child; it; it = it->next) {
        int k = key_index(it->string);
        if (k < 0) {
            char list[256];
            size_t n = 0;
            for (int i = 0; i < CP_EAGER_KEYS && n < sizeof list; i++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", keys[i]);
            cp_jfail(c, it->string, "unknown layer kind (expected one of %s)", list);
            cp_jpop(c, mark);
            return -1;
        }
        if (cp_jnum(c, t, it->string, true, 0, 0, 1e6, &out[k])) {
            cp_jpop(c, mark);
            return -1;
        }
        has[k] = 1;
    }
    cp_jpop(c, mark);
    return 0;
}

/* "iteration_fixed_us": {forward, backward, step, autocast_forward, autocast_backward, autocast_step} µs,
 * each the intercept of a line through two chain lengths: the host's noise can put one a little below
 * zero, read as 0 */
static int parse_fixed(cp_jctx *c, const cJSON *obj, cp_eager_costs *out)
{
    const cJSON *o = cp_jget(obj, "iteration_fixed_us");
    if (!o)
        return 0;
    if (!cJSON_IsObject(o))
        return cp_jfail(c, "iteration_fixed_us",
                        "must be an object {forward, backward, step, autocast_forward, autocast_backward, "
                        "autocast_step} of host microseconds");
    static const char *const known[] = {"forward",       "backward", "step",   "autocast_forward", "autocast_backward",
                                        "autocast_step", "head",     "source", NULL};
    size_t mark = cp_jpush_key(c, "iteration_fixed_us");
    int rc = cp_jonly(c, o, known);
    for (int i = 0; i < 6 && !rc; i++) {
        double *v = &out->fixed_us[i / 3][i % 3];
        rc = cp_jnum(c, o, known[i], true, 0, -1000, 1e6, v);
        if (*v < 0)
            *v = 0;
    }
    cp_jpop(c, mark);
    out->has_fixed = !rc;
    return rc ? -1 : 0;
}

/* The tables, the fixed walls and the optimizer object, common to both readers. */
static int parse_common(cp_jctx *c, const cJSON *obj, cp_eager_costs *out)
{
    for (int t = 0; t < CP_EAGER_TABLES; t++)
        if (parse_table(c, obj, table_names[t], out->us[t], out->has[t]))
            return -1;
    if (parse_fixed(c, obj, out))
        return -1;
    const cJSON *o = cp_jget(obj, "optimizer");
    if (!o)
        return 0;
    if (!cJSON_IsObject(o))
        return cp_jfail(c, "optimizer", "must be an object {\"per_step_us\": N, \"per_tensor_us\": N}");
    size_t mark = cp_jpush_key(c, "optimizer");
    static const char *const known[] = {"per_step_us", "per_tensor_us", "kind", "source", NULL};
    /* per_step_us is the intercept of a line through two step lengths: the
     * host's noise between them can put it a little below zero (-11 us in
     * validation/h100/torch/chlast29-holdout/), read as no fixed cost */
    int rc = cp_jonly(c, o, known) || cp_jnum(c, o, "per_step_us", true, 0, -1000, 1e7, &out->opt_step_us) ||
             cp_jnum(c, o, "per_tensor_us", true, 0, 0, 1e6, &out->opt_tensor_us);
    if (out->opt_step_us < 0)
        out->opt_step_us = 0;
    cp_jpop(c, mark);
    out->has_opt = !rc;
    return rc ? -1 : 0;
}

/* "host_spread": {"low": L, "high": H, "calls": N}, 0 < L <= 1 <= H. */
static int parse_spread(cp_jctx *c, const cJSON *obj, cp_eager_costs *out)
{
    const cJSON *o = cp_jget(obj, "host_spread");
    if (!o)
        return 0;
    if (!cJSON_IsObject(o))
        return cp_jfail(c, "host_spread", "must be an object {\"low\": L, \"high\": H, \"calls\": N}");
    size_t mark = cp_jpush_key(c, "host_spread");
    static const char *const known[] = {"low", "high", "calls", "source", NULL};
    double calls = 0;
    int rc = cp_jonly(c, o, known) || cp_jnum(c, o, "low", true, 0, 1e-3, 1, &out->spread_low) ||
             cp_jnum(c, o, "high", true, 0, 1, 1e3, &out->spread_high) ||
             cp_jnum(c, o, "calls", true, 0, 2, 1e6, &calls);
    cp_jpop(c, mark);
    out->spread_calls = (int)calls;
    return rc ? -1 : 0;
}

int cp_eager_costs_parse(cp_jctx *c, const cJSON *obj, cp_eager_costs *out)
{
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(obj))
        return cp_jfail(c, NULL, "must be an object (see devices/FORMAT.md, \"eager\")");
    static const char *const known[] = {"forward_op_us",
                                        "backward_op_us",
                                        "autocast_forward_op_us",
                                        "autocast_backward_op_us",
                                        "optimizer",
                                        "host_spread",
                                        "iteration_fixed_us",
                                        "ddp",
                                        "source",
                                        "description",
                                        NULL};
    const char *src = NULL;
    if (cp_jonly(c, obj, known) || parse_common(c, obj, out) || cp_jstr(c, obj, "source", false, &src) ||
        parse_spread(c, obj, out) || cp_eager_ddp_parse(c, obj, out))
        return -1;
    out->given = 1;
    const char *text = src ? src : "device profile, no source given";
    snprintf(out->source, sizeof out->source, "%s", text);
    if (strlen(text) >= sizeof out->source) /* a long list of files: say it goes on (the profile has it all) */
        memcpy(out->source + sizeof out->source - 4, "...", 4);
    return 0;
}

int cp_eager_costs_parse_root(const cJSON *root, const char *file, cp_eager_costs *out, cp_error *err)
{
    memset(out, 0, sizeof *out);
    cp_jctx c = {.file = file, .path = "$", .err = err};
    const char *schema = NULL;
    int rc = -1;
    if (!cJSON_IsObject(root)) {
        cp_jfail(&c, NULL, "an eager-overhead file must be a JSON object");
    } else if (cp_jstr(&c, root, "schema", true, &schema)) {
    } else if (strcmp(schema, "cnnperf-eager-overhead/1") != 0) {
        cp_jfail(&c, "schema", "unsupported schema '%s' (expected 'cnnperf-eager-overhead/1')", schema);
    } else if (parse_common(&c, root, out) == 0 && cp_eager_ddp_parse(&c, root, out) == 0) {
        /* Other top-level fields are the benchmark's own record and are kept
         * out of the model; the provenance names what was measured. */
        const cJSON *pv = cp_jget(root, "provenance");
        const cJSON *torch = cJSON_GetObjectItemCaseSensitive(pv, "torch");
        const cJSON *host = cJSON_GetObjectItemCaseSensitive(pv, "hostname");
        const cJSON *date = cJSON_GetObjectItemCaseSensitive(pv, "date_utc");
        snprintf(out->source, sizeof out->source, "measured: %s (torch_bench --eager-overhead, torch %s, host %s, %s)",
                 file, cJSON_IsString(torch) ? torch->valuestring : "?", cJSON_IsString(host) ? host->valuestring : "?",
                 cJSON_IsString(date) ? date->valuestring : "undated");
        out->given = 1;
        rc = 0;
    }
    return rc;
}

int cp_eager_costs_parse_text(const char *text, size_t len, const char *file, cp_eager_costs *out, cp_error *err)
{
    memset(out, 0, sizeof *out);
    cJSON *root = cp_json_parse(text, len, file, err);
    if (!root)
        return -1;
    int rc = cp_eager_costs_parse_root(root, file, out, err);
    cJSON_Delete(root);
    return rc;
}

int cp_eager_costs_load(const char *path, cp_eager_costs *out, cp_error *err)
{
    size_t len;
    char *text = cp_read_file(path, &len, err);
    if (!text)
        return -1;
    int rc = cp_eager_costs_parse_text(text, len, path, out, err);
    free(text);
    return rc;
}
