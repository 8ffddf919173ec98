#include "calibration.h"

#include <stdio.h>
#include <string.h>

#include "../util/jsonread.h"
#include "../util/resources.h"

static const char *const class_names[CP_CC_COUNT] = {"conv_first", "conv_grouped", "conv_1x1",    "conv_3x3",
                                                     "conv_3x3_wide", "conv_kxk", "conv_large",  "fc",
                                                     "batchnorm",  "elementwise", "concat",      "maxpool",
                                                     "pool",       "other"};
static const char *const group_names[CP_CG_COUNT] = {"fp32", "tf32", "half"};
static const char *const pass_keys[CP_CALIB_PASSES] = {"forward", "backward_data", "backward_weight", "update"};

const char *cp_calib_class_name(cp_calib_class c) { return (unsigned)c < CP_CC_COUNT ? class_names[c] : "?"; }
const char *cp_calib_group_name(cp_calib_group g) { return (unsigned)g < CP_CG_COUNT ? group_names[g] : "?"; }

/* The index of item's key among names[n], or -1 with the error naming it (what: "layout", ...). */
static int key_index(cp_jctx *c, const cJSON *item, const char *const *names, int n, const char *what,
                     const char *known)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], item->string) == 0)
            return i;
    cp_jfail(c, item->string, "unknown %s (known: %s)", what, known);
    return -1;
}

static int parse_pass(cp_jctx *c, const cJSON *obj, cp_calib_term *t)
{
    static const char *const known[] = {"scale", "offset_us", "points", "host_us", "host_points", NULL};
    if (!cJSON_IsObject(obj))
        return cp_jfail(c, NULL, "must be an object {\"scale\": S, \"offset_us\": O}");
    double off = 0, host = 0;
    if (cp_jonly(c, obj, known) || cp_jnum(c, obj, "scale", true, 1, 0.05, 100, &t->scale) ||
        cp_jnum(c, obj, "offset_us", false, 0, 0, 1e5, &off) || cp_jnum(c, obj, "host_us", false, 0, 0, 1e5, &host))
        return -1;
    t->offset_ms = off * 1e-3;
    t->host_ms = host * 1e-3;
    return 0;
}

static int parse_table(cp_jctx *c, const cJSON *obj, cp_calib_term (*terms)[CP_CALIB_PASSES])
{
    if (!cJSON_IsObject(obj))
        return cp_jfail(c, NULL, "must be an object of layer classes");
    bool concat = false;
    for (const cJSON *cl = obj->child; cl; cl = cl->next) {
        int k = key_index(c, cl, class_names, CP_CC_COUNT, "layer class",
                          "conv_first, conv_grouped, conv_1x1, conv_3x3, conv_3x3_wide, conv_kxk, conv_large, fc, "
                          "batchnorm, elementwise, concat, maxpool, pool, other");
        if (k < 0)
            return -1;
        concat |= k == CP_CC_CONCAT;
        size_t mark = cp_jpush_key(c, cl->string);
        if (!cJSON_IsObject(cl))
            return cp_jfail(c, NULL, "must be an object of passes");
        for (const cJSON *ps = cl->child; ps; ps = ps->next) {
            int p = key_index(c, ps, pass_keys, CP_CALIB_PASSES, "pass",
                              "forward, backward_data, backward_weight, update");
            if (p < 0)
                return -1;
            size_t m2 = cp_jpush_key(c, ps->string);
            if (parse_pass(c, ps, &terms[k][p]))
                return -1;
            cp_jpop(c, m2);
        }
        cp_jpop(c, mark);
    }
    if (!concat) /* fitted before concatenation had a class of its own (session 50) */
        memcpy(terms[CP_CC_CONCAT], terms[CP_CC_ELEMENTWISE], sizeof terms[CP_CC_CONCAT]);
    return 0;
}

/* A table per activation layout, {"nchw" | "channels_last": {...}}: fn parses each (eager_terms, eager_pool). */
typedef int (*layout_table_fn)(cp_jctx *c, const cJSON *table, int layout, cp_calibration *cal);

static int each_layout(cp_jctx *c, const cJSON *obj, const char *holds, layout_table_fn fn, cp_calibration *cal)
{
    static const char *const layouts[CP_LAYOUT_COUNT] = {"nchw", "channels_last"};
    if (!cJSON_IsObject(obj))
        return cp_jfail(c, NULL, "must be an object with nchw and channels_last tables");
    for (const cJSON *lo = obj->child; lo; lo = lo->next) {
        int li = key_index(c, lo, layouts, CP_LAYOUT_COUNT, "layout", "nchw, channels_last");
        if (li < 0)
            return -1;
        size_t mark = cp_jpush_key(c, lo->string);
        if (!cJSON_IsObject(lo))
            return cp_jfail(c, NULL, "must be an object of %s", holds);
        if (fn(c, lo, li, cal))
            return -1;
        cp_jpop(c, mark);
    }
    return 0;
}

/* "eager_terms": {layout: {group: {class: {pass: {"scale": S}}}}}, scales only. */
static int eager_terms_table(cp_jctx *c, const cJSON *lo, int li, cp_calibration *cal)
{
    for (const cJSON *g = lo->child; g; g = g->next) {
        int gi = key_index(c, g, group_names, CP_CG_COUNT, "precision group", "fp32, tf32, half");
        if (gi < 0)
            return -1;
        cp_calib_term t[CP_CC_COUNT][CP_CALIB_PASSES];
        memset(t, 0, sizeof t);
        size_t m2 = cp_jpush_key(c, g->string);
        if (parse_table(c, g, t))
            return -1;
        cp_jpop(c, m2);
        for (int k = 0; k < CP_CC_COUNT; k++)
            for (int p = 0; p < CP_CALIB_PASSES; p++)
                cal->eager_scale[li][gi][k][p] = k == CP_CC_CONCAT ? 0 : t[k][p].scale;
    }
    cal->has_eager = true;
    return 0;
}

/* "eager_pool": {layout: {"maxpool" | "avgpool": {"forward_ps_per_output": A, "forward_ps_per_tap": B,
 * "backward_ps_per_input": C, "backward_ps_per_cover": D, "layers": N}}} */
static int eager_pool_table(cp_jctx *c, const cJSON *lo, int li, cp_calibration *cal)
{
    static const char *const kinds[2] = {"maxpool", "avgpool"};
    static const char *const known[] = {"forward_ps_per_output", "forward_ps_per_tap", "backward_ps_per_input",
                                        "backward_ps_per_cover", "layers", NULL};
    for (const cJSON *k = lo->child; k; k = k->next) {
        int ki = key_index(c, k, kinds, 2, "pooling kind", "maxpool, avgpool");
        if (ki < 0)
            return -1;
        size_t m2 = cp_jpush_key(c, k->string);
        if (!cJSON_IsObject(k))
            return cp_jfail(c, NULL, "must be an object of per-element times in ps");
        cp_eager_pool_rate *r = &cal->eager_pool[li][ki];
        if (cp_jonly(c, k, known) || cp_jnum(c, k, "forward_ps_per_output", true, 0, 0, 1e4, &r->fwd_per_output_ps) ||
            cp_jnum(c, k, "forward_ps_per_tap", true, 0, 0, 1e4, &r->fwd_per_tap_ps) ||
            cp_jnum(c, k, "backward_ps_per_input", true, 0, 0, 1e4, &r->bwd_per_input_ps) ||
            cp_jnum(c, k, "backward_ps_per_cover", true, 0, 0, 1e4, &r->bwd_per_cover_ps))
            return -1;
        r->set = true;
        cp_jpop(c, m2);
    }
    return 0;
}

int cp_calibration_parse(const char *text, size_t len, const char *file, cp_calibration *cal, cp_error *err)
{
    static const char *const known[] = {"format", "device", "source", "library", "training_set", "method",
                                        "fitted", "git_commit", "terms", "description",
                                        "host_source", "host_training_set", "host_method",
                                        "eager_terms", "eager_source", "eager_training_set",
                                        "eager_pool", "eager_pool_source", "eager_pool_training_set",
                                        "cl_half_conv_factors", "cl_half_conv_source", NULL};
    memset(cal, 0, sizeof *cal);
    for (int g = 0; g < CP_CG_COUNT; g++)
        for (int k = 0; k < CP_CC_COUNT; k++)
            for (int p = 0; p < CP_CALIB_PASSES; p++)
                cal->term[g][k][p].scale = 1;
    cJSON *root = cp_json_parse(text, len, file, err);
    if (!root)
        return -1;
    cp_jctx c = {file, "$", err};
    const char *format = NULL, *source = NULL, *host_source = NULL;
    int rc = -1;
    if (!cJSON_IsObject(root)) {
        cp_jfail(&c, NULL, "must be an object");
        goto out;
    }
    if (cp_jonly(&c, root, known) || cp_jstr(&c, root, "format", true, &format) ||
        cp_jstr(&c, root, "source", true, &source) || cp_jstr(&c, root, "host_source", false, &host_source))
        goto out;
    if (strcmp(format, "cnnperf-calibration-factors/1") != 0) {
        cp_jfail(&c, "format", "expected \"cnnperf-calibration-factors/1\", got \"%s\"", format);
        goto out;
    }
    const cJSON *terms = cp_jget(root, "terms");
    if (!terms) {
        cp_jfail(&c, "terms", "missing: the fitted terms by precision group, class and pass");
        goto out;
    }
    if (!cJSON_IsObject(terms)) {
        cp_jfail(&c, "terms", "must be an object with fp32, tf32 and half tables");
        goto out;
    }
    size_t mark = cp_jpush_key(&c, "terms");
    for (const cJSON *g = terms->child; g; g = g->next) {
        int gi = key_index(&c, g, group_names, CP_CG_COUNT, "precision group", "fp32, tf32, half");
        if (gi < 0)
            goto out;
        size_t m2 = cp_jpush_key(&c, g->string);
        if (parse_table(&c, g, cal->term[gi]))
            goto out;
        cp_jpop(&c, m2);
    }
    cp_jpop(&c, mark);
    static const struct {
        const char *key, *holds;
        layout_table_fn fn;
    } eager_sections[] = {{"eager_terms", "precision groups", eager_terms_table},
                          {"eager_pool", "maxpool and avgpool rates", eager_pool_table}};
    for (size_t i = 0; i < sizeof eager_sections / sizeof *eager_sections; i++) {
        const cJSON *section = cp_jget(root, eager_sections[i].key);
        if (!section)
            continue;
        size_t m3 = cp_jpush_key(&c, eager_sections[i].key);
        if (each_layout(&c, section, eager_sections[i].holds, eager_sections[i].fn, cal))
            goto out;
        cp_jpop(&c, m3);
    }
    const cJSON *cl = cp_jget(root, "cl_half_conv_factors");
    if (cl) {
        static const char *const cl_known[] = {"conv_3x3", "other", NULL};
        size_t m4 = cp_jpush_key(&c, "cl_half_conv_factors");
        if (!cJSON_IsObject(cl)) {
            cp_jfail(&c, NULL, "must be an object with conv_3x3 and other");
            goto out;
        }
        if (cp_jonly(&c, cl, cl_known) || cp_jnum(&c, cl, "conv_3x3", true, 0, 0.01, 10, &cal->cl_half_conv_3x3) ||
            cp_jnum(&c, cl, "other", true, 0, 0.01, 10, &cal->cl_half_conv_other))
            goto out;
        cp_jpop(&c, m4);
    }
    snprintf(cal->file, sizeof cal->file, "%s", file);
    snprintf(cal->source, sizeof cal->source, "%s", source);
    for (int g = 0; g < CP_CG_COUNT; g++)
        for (int k = 0; k < CP_CC_COUNT; k++)
            for (int p = 0; p < CP_CALIB_PASSES; p++)
                cal->has_host |= cal->term[g][k][p].host_ms > 0;
    if (cal->has_host && !host_source) {
        cp_jfail(&c, "host_source", "missing: terms give host_us, so say what the host costs were measured on");
        goto out;
    }
    snprintf(cal->host_source, sizeof cal->host_source, "%s", host_source ? host_source : "");
    cal->loaded = true;
    rc = 0;
out:
    cJSON_Delete(root);
    return rc;
}

static int parse_cb(const char *text, size_t len, const char *file, void *obj, cp_error *err)
{
    return cp_calibration_parse(text, len, file, obj, err);
}

int cp_calibration_load(const char *spec, cp_calibration *c, cp_error *err)
{
    return cp_resource_load("calibration", "calibration", spec, parse_cb, c, err);
}

static const char *default_spec = "none";

void cp_calibration_set_default(const char *spec) { default_spec = spec ? spec : "none"; }
const char *cp_calibration_default(void) { return default_spec; }
