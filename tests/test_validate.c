/* cnnperf validate's metrics (src/validate.c) on numbers worked by hand:
 * relative errors and MAPE, which runs and passes count, the PS-vs-NCCL
 * verdict, the targets, the baseline tolerance, `**` patterns on a
 * directory tree made here, and the hand-written tail of a document. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#ifdef CP_HAVE_ZLIB
#include <zlib.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/validate.h"
#include "util/jsonread.h"

static cp_val_run run(const char *net, const char *dev, const char *prec, int batch, int gpus, const char *comm,
                      double meas, double pred)
{
    cp_val_run r;
    memset(&r, 0, sizeof r);
    snprintf(r.network, sizeof r.network, "%s", net);
    snprintf(r.device, sizeof r.device, "%s", dev);
    snprintf(r.precision, sizeof r.precision, "%s", prec);
    snprintf(r.comm, sizeof r.comm, "%s", comm);
    r.batch = batch;
    r.gpus = gpus;
    r.meas_ms = meas;
    r.pred_ms = pred;
    return r;
}

/* --- errors and MAPE ------------------------------------------------------------- */

static void test_relative_error(void **state)
{
    (void)state;
    assert_float_equal(cp_val_rel_pct(110, 100), 10.0, 1e-12);
    assert_float_equal(cp_val_rel_pct(50, 100), -50.0, 1e-12);
    assert_float_equal(cp_val_rel_pct(5, 0), 0.0, 0); /* nothing measured: no error to speak of */
}

static void test_mape(void **state)
{
    (void)state;
    /* |+10%|, |-20%|, |+30%| -> 20% */
    double pred[] = {1.1, 8, 13}, meas[] = {1, 10, 10};
    assert_float_equal(cp_mape(pred, meas, 3), 20.0, 1e-9);
    assert_float_equal(cp_mape(pred, meas, 0), 0.0, 0);
    cp_val_stat s = {0};
    for (int i = 0; i < 3; i++)
        cp_val_stat_add(&s, pred[i], meas[i]);
    assert_int_equal(s.n, 3);
    assert_float_equal(cp_val_mape(&s), 20.0, 1e-9);
    assert_float_equal(s.worst_pct, 30.0, 1e-9);
}

/* --- PS or NCCL -------------------------------------------------------------------- */

static void test_winner(void **state)
{
    (void)state;
    /* measured: PS 100, NCCL 150 (PS wins by 50%) */
    assert_int_equal(cp_val_winner(100, 150, 10, 20), CP_VAL_RIGHT);
    assert_int_equal(cp_val_winner(100, 150, 20, 10), CP_VAL_WRONG);
    /* NCCL wins */
    assert_int_equal(cp_val_winner(150, 100, 20, 10), CP_VAL_RIGHT);
    assert_int_equal(cp_val_winner(150, 100, 10, 20), CP_VAL_WRONG);
    /* within 10%: no winner to get right, whatever was predicted */
    assert_int_equal(cp_val_winner(100, 110, 10, 20), CP_VAL_TIE);
    assert_int_equal(cp_val_winner(105, 100, 1, 2), CP_VAL_TIE);
    assert_int_equal(cp_val_winner(100, 110.5, 20, 10), CP_VAL_WRONG);
}

static void test_pairs(void **state)
{
    (void)state;
    cp_val_run r[6] = {
        run("resnet50", "h200", "fp32", 64, 2, "nccl", 120, 100),
        run("resnet50", "h200", "fp32", 64, 2, "nccl", 110, 105), /* overlap off: the faster of NCCL counts */
        run("resnet50", "h200", "fp32", 64, 2, "ps", 200, 90),
        run("resnet50", "h200", "fp32", 64, 4, "ps", 200, 90),    /* no NCCL run with 4 GPUs: no pair */
        run("resnet50", "h200", "fp32", 64, 1, "none", 60, 50),
        run("vgg16", "h200", "fp32", 64, 2, "nccl", 100, 100),
    };
    cp_val_pair p[6];
    int n = cp_val_pairs(r, 6, p, 6);
    assert_int_equal(n, 1);
    assert_string_equal(p[0].label, "resnet50 b64 fp32 2xh200");
    assert_float_equal(p[0].meas_nccl, 110, 0);
    assert_float_equal(p[0].pred_nccl, 100, 0);
    assert_float_equal(p[0].meas_ps, 200, 0);
    assert_float_equal(p[0].pred_ps, 90, 0);
    assert_int_equal(p[0].verdict, CP_VAL_WRONG); /* NCCL measured faster, PS predicted faster */
    /* the same stack only: a PyTorch DDP job's NCCL is not the harness's, nor is the legacy API's the graph
     * API's (the key names the harness) */
    snprintf(r[2].harness, sizeof r[2].harness, "graph API");
    assert_int_equal(cp_val_pairs(r, 6, p, 6), 0);
    snprintf(r[1].harness, sizeof r[1].harness, "PyTorch");
    assert_int_equal(cp_val_pairs(r, 6, p, 6), 0);
    snprintf(r[0].harness, sizeof r[0].harness, "graph API");
    n = cp_val_pairs(r, 6, p, 6);
    assert_int_equal(n, 1);
    assert_string_equal(p[0].label, "resnet50 b64 fp32 2xh200, graph API");
    assert_float_equal(p[0].meas_nccl, 120, 0); /* the PyTorch job's 110 is another stack's */
    /* an emulated two-node run is another job */
    r[2].emulated = 1;
    assert_int_equal(cp_val_pairs(r, 6, p, 6), 0);
}

/* --- targets -------------------------------------------------------------------- */

static void test_one_gpu_scope(void **state)
{
    (void)state;
    cp_val_run r = run("resnet50", "h100", "fp32", 64, 1, "none", 10, 11);
    assert_true(cp_val_one_gpu_scope(&r));
    r.batch = 16;
    assert_false(cp_val_one_gpu_scope(&r));
    r.batch = 256;
    assert_true(cp_val_one_gpu_scope(&r));
    snprintf(r.precision, sizeof r.precision, "tf32");
    assert_false(cp_val_one_gpu_scope(&r));
    snprintf(r.precision, sizeof r.precision, "fp16");
    snprintf(r.device, sizeof r.device, "a100");
    assert_false(cp_val_one_gpu_scope(&r));
    snprintf(r.device, sizeof r.device, "h200");
    assert_true(cp_val_one_gpu_scope(&r));
    r.gpus = 2;
    assert_false(cp_val_one_gpu_scope(&r));
}

/* A run counts against its host range where the range is a tenth of the
 * prediction or wider, in the one-GPU scope, of the set and source asked;
 * below, inside (ends included) and above. */
static void test_host_range(void **state)
{
    (void)state;
    cp_val_run r[8];
    double meas[8] = {8, 10, 12, 13, 9, 10, 10, 10};
    for (int i = 0; i < 8; i++) {
        r[i] = run("lenet5", "h100", "fp32", 64, 1, "none", meas[i], 10);
        r[i].has_range = 1;
        r[i].pred_low_ms = 9;
        r[i].pred_high_ms = 12;
    }
    r[4].pred_high_ms = 9.5;  /* 0.5 wide: the host barely moves it, not counted */
    r[5].source = CP_VAL_PYTORCH;
    r[6].calibration = 1;
    r[7].batch = 8;           /* out of the one-GPU scope */
    cp_val_range_count c = cp_val_host_range(r, 8, CP_VAL_CNNPERF, 0);
    assert_int_equal(c.below, 1);  /* 8 < 9 */
    assert_int_equal(c.inside, 2); /* 10, and 12 at the high end */
    assert_int_equal(c.above, 1);  /* 13 */
    c = cp_val_host_range(r, 8, CP_VAL_PYTORCH, 0);
    assert_true(c.inside == 1 && c.below == 0 && c.above == 0);
    c = cp_val_host_range(r, 8, CP_VAL_CNNPERF, 1);
    assert_true(c.inside == 1 && c.below == 0 && c.above == 0);
    r[1].has_range = 0;
    assert_int_equal(cp_val_host_range(r, 8, CP_VAL_CNNPERF, 0).inside, 1);
}

static void test_targets(void **state)
{
    (void)state;
    cp_val_layer conv = {"c", "conv", {1.0, 0.002, 2.0}, {1.1, 5.0, 1.0}, {0}}; /* +10%, (2 us: skipped), -50% */
    cp_val_layer bn = {"b", "batchnorm", {1.0, 1.0, 0}, {3.0, 3.0, 0}, {0}};     /* not conv or fc: not counted */
    cp_val_layer fc = {"f", "fc", {0.5, 0, 0.5}, {0.6, 0, 0.5}, {0}};            /* +20%, (0: skipped), 0% */
    /* a pass that held the exchange's wait: shown, not scored */
    cp_val_layer waited = {"w", "conv", {0, 0, 50.0}, {0, 0, 1.0}, {0, 0, 1}};
    cp_val_layer layers[] = {conv, bn, fc, waited};
    cp_val_run r[5] = {
        run("resnet50", "h100", "fp32", 64, 1, "none", 10, 11),    /* +10% */
        run("resnet50", "h200", "fp16", 32, 1, "none", 10, 7),     /* -30% */
        run("resnet50", "h100", "tf32", 64, 1, "none", 10, 1),     /* out of the one-GPU target's scope */
        run("resnet18", "h100", "fp32", 64, 1, "none", 10, 1),     /* calibration set */
        run("resnet50", "h100", "fp32", 64, 2, "nccl", 10, 10.4),  /* +4% */
    };
    r[0].layers = layers;
    r[0].n_layers = 4;
    r[3].calibration = 1;
    r[3].layers = layers; /* calibration runs' layers do not count either */
    r[3].n_layers = 3;
    cp_val_ar ar[2] = {{.bytes = 1e6, .meas_us = 100, .pred_us = 104}, {.bytes = 1e9, .meas_us = 1000, .pred_us = 1060}};
    cp_val_pair pairs[2] = {{.verdict = CP_VAL_RIGHT}, {.verdict = CP_VAL_TIE}};
    cp_val_target t[CP_T_COUNT];
    cp_val_targets(r, 5, ar, 2, pairs, 2, 0, t);

    assert_string_equal(t[CP_T_ONE_GPU_MAPE].key, "one_gpu_iteration_mape");
    assert_int_equal(t[CP_T_ONE_GPU_MAPE].n, 2);
    assert_float_equal(t[CP_T_ONE_GPU_MAPE].value, 20.0, 1e-9);
    assert_false(t[CP_T_ONE_GPU_MAPE].met);
    assert_float_equal(t[CP_T_ONE_GPU_WORST].value, 30.0, 1e-9);
    assert_false(t[CP_T_ONE_GPU_WORST].met);
    assert_int_equal(t[CP_T_LAYER_MAPE].n, 4); /* 10, 50, 20, 0 */
    assert_float_equal(t[CP_T_LAYER_MAPE].value, 20.0, 1e-9);
    assert_int_equal(t[CP_T_MULTI_GPU_MAPE].n, 1);
    assert_float_equal(t[CP_T_MULTI_GPU_MAPE].value, 4.0, 1e-9);
    assert_true(t[CP_T_MULTI_GPU_MAPE].met);
    assert_float_equal(t[CP_T_NCCL_MAPE].value, 5.0, 1e-9);
    assert_true(t[CP_T_NCCL_MAPE].met); /* at the limit is met */
    assert_int_equal(t[CP_T_WINNER].n, 1);  /* the tie is not counted */
    assert_float_equal(t[CP_T_WINNER].value, 0, 0);
    assert_true(t[CP_T_WINNER].met);
    assert_string_equal(cp_val_status(&t[CP_T_WINNER]), "met");
    assert_string_equal(cp_val_status(&t[CP_T_ONE_GPU_MAPE]), "NOT met");

    /* as printed: a third decimal only where two would round onto the limit */
    char buf[32];
    cp_val_target_value(&t[CP_T_MULTI_GPU_MAPE], 0, buf, sizeof buf);
    assert_string_equal(buf, "4.00%");
    cp_val_target shown = {.limit = 5, .value = 5.0037, .n = 365};
    cp_val_target_value(&shown, 0, buf, sizeof buf);
    assert_string_equal(buf, "5.004%");
    shown.value = 4.9962;
    cp_val_target_value(&shown, 0, buf, sizeof buf);
    assert_string_equal(buf, "4.996%");
    cp_val_target_value(&t[CP_T_WINNER], 1, buf, sizeof buf);
    assert_string_equal(buf, "0 wrong");
    shown.n = 0;
    cp_val_target_value(&shown, 0, buf, sizeof buf);
    assert_string_equal(buf, "-");

    /* restricted to the runs a baseline knows */
    r[1].selected = 1;
    cp_val_targets(r, 5, ar, 2, pairs, 2, 1, t);
    assert_int_equal(t[CP_T_ONE_GPU_MAPE].n, 1);
    assert_float_equal(t[CP_T_ONE_GPU_MAPE].value, 30.0, 1e-9);
    assert_int_equal(t[CP_T_NCCL_MAPE].n, 0);
    assert_string_equal(cp_val_status(&t[CP_T_NCCL_MAPE]), "no data");
    assert_int_equal(t[CP_T_WINNER].n, 0);
    assert_false(t[CP_T_WINNER].met);
}

static void test_groups(void **state)
{
    (void)state;
    cp_val_run r[3] = {
        run("resnet50", "h100", "fp32", 64, 1, "none", 10, 11),
        run("vgg16", "h100", "fp32", 64, 1, "none", 10, 7),
        run("resnet50", "h200", "fp16", 64, 1, "none", 10, 9),
    };
    cp_val_group g[3];
    int n = cp_val_groups(r, 3, CP_DIM_NETWORK, 0, g, 3);
    assert_int_equal(n, 2);
    assert_string_equal(g[0].value, "resnet50");
    assert_int_equal(g[0].st.n, 2);
    assert_float_equal(cp_val_mape(&g[0].st), 10.0, 1e-9);
    assert_float_equal(g[1].st.worst_pct, 30.0, 1e-9);
    assert_int_equal(cp_val_groups(r, 3, CP_DIM_DEVICE, 1, g, 3), 0); /* no calibration runs */
    /* by harness and by the host: the second run bound by the host, the third's file silent on it */
    snprintf(r[0].harness, sizeof r[0].harness, "graph API");
    snprintf(r[1].harness, sizeof r[1].harness, "legacy API");
    snprintf(r[2].harness, sizeof r[2].harness, "graph API");
    r[0].has_host = r[1].has_host = 1;
    r[1].host_bound = 1;
    n = cp_val_groups(r, 3, CP_DIM_HARNESS, 0, g, 3);
    assert_int_equal(n, 2);
    assert_string_equal(g[0].value, "graph API");
    assert_int_equal(g[0].st.n, 2);
    n = cp_val_groups(r, 3, CP_DIM_HOST, 0, g, 3);
    assert_int_equal(n, 3);
    assert_string_equal(g[0].value, "not bound");
    assert_string_equal(g[1].value, "bound");
    assert_float_equal(g[1].st.worst_pct, 30.0, 1e-9);
    assert_string_equal(g[2].value, "unknown");
    /* by the draw: one GPU and several apart, the rest "other" */
    r[0].drawn = r[2].drawn = 1;
    r[2].gpus = 2;
    n = cp_val_groups(r, 3, CP_DIM_DRAWN, 0, g, 3);
    assert_int_equal(n, 3);
    assert_string_equal(g[0].value, "one GPU, before its call");
    assert_string_equal(g[1].value, "other");
    assert_string_equal(g[2].value, "several GPUs, before its call");
    assert_float_equal(g[1].st.worst_pct, 30.0, 1e-9);
}

/* Three runs of one configuration measured 10, 20 and 40 ms: a prediction of
 * 10 errs 0 + 50 + 75 = 125% in total, of 20 100 + 0 + 50, of 40 300 + 100 + 0,
 * so 125% over the three runs at best; at worst one is (40 - 10) / (40 + 10) =
 * 60% off whatever is predicted. A fourth configuration measured once adds a
 * run and no error; a calibration-set run and a run without a configuration
 * key count as nothing repeated. */
static void test_floor(void **state)
{
    (void)state;
    cp_val_run r[6] = {
        run("resnet50", "h100", "fp32", 64, 1, "none", 10, 11),
        run("resnet50", "h100", "fp32", 64, 1, "none", 20, 11),
        run("vgg16", "h100", "fp32", 64, 1, "none", 30, 31),
        run("resnet50", "h100", "fp32", 64, 1, "none", 40, 11),
        run("resnet18", "h100", "fp32", 64, 1, "none", 5, 9),
        run("resnet18", "h100", "fp32", 64, 1, "none", 50, 9),
    };
    for (int i = 0; i < 4; i++) {
        char net[sizeof r[i].network];
        memcpy(net, r[i].network, sizeof net); /* not from the struct written: GCC's -Wrestrict */
        snprintf(r[i].config, sizeof r[i].config, "%s b64 fp32 1xh100 | graph API | 9.14.0", net);
    }
    snprintf(r[4].config, sizeof r[4].config, "resnet18 calibration");
    snprintf(r[5].config, sizeof r[5].config, "resnet18 calibration");
    r[4].calibration = r[5].calibration = 1;
    cp_val_floor f;
    cp_val_floor_of(r, 6, 0, NULL, 12, &f);
    assert_int_equal(f.runs, 4);
    assert_int_equal(f.configs, 2);
    assert_int_equal(f.repeated_configs, 1);
    assert_int_equal(f.repeated_runs, 3);
    assert_float_equal(f.mape_floor_pct, 125.0 / 4, 1e-9);
    assert_float_equal(f.worst_floor_pct, 60.0, 1e-9);
    assert_int_equal(f.worst_run, 0);
    assert_int_equal(f.worst_n, 3);
    assert_float_equal(f.worst_min_ms, 10, 1e-12);
    assert_float_equal(f.worst_max_ms, 40, 1e-12);
    assert_int_equal(f.wide_configs, 1);
    assert_float_equal(f.repeated_floor_pct, 125.0 / 3, 1e-9);
    /* by harness: the runs are of none yet */
    cp_val_floor_of(r, 6, 0, "graph API", 12, &f);
    assert_int_equal(f.runs, 0);
    for (int i = 0; i < 4; i++)
        snprintf(r[i].harness, sizeof r[i].harness, "graph API");
    cp_val_floor_of(r, 6, 0, "graph API", 12, &f);
    assert_int_equal(f.runs, 4);
    assert_int_equal(f.repeated_runs, 3);
    /* another harness is another configuration; an empty key matches nothing */
    snprintf(r[1].config, sizeof r[1].config, "resnet50 b64 fp32 1xh100 | legacy API | 9.14.0");
    r[3].config[0] = 0;
    cp_val_floor_of(r, 6, 0, NULL, 12, &f);
    assert_int_equal(f.configs, 4);
    assert_int_equal(f.repeated_configs, 0);
    assert_float_equal(f.mape_floor_pct, 0, 1e-12);
    assert_int_equal(f.worst_run, -1);
    cp_val_floor_of(r, 6, 1, NULL, 12, &f); /* no multi-GPU runs */
    assert_int_equal(f.runs, 0);
    assert_float_equal(f.mape_floor_pct, 0, 1e-12);
}

static void test_worst_layers(void **state)
{
    (void)state;
    cp_val_layer l[5] = {
        {"a", "conv", {1, 0, 0}, {1.1, 0, 0}, {0}},        /* 0.1 */
        {"b", "conv", {1, 1, 1}, {0, 0, 0}, {0}},          /* 3 */
        {"c", "fc", {2, 0, 0}, {2.5, 0, 0}, {0}},          /* 0.5 */
        {"d", "relu", {1, 1, 0}, {2, 0, 0}, {0}},          /* passes cancel: 0 */
        {"e", "conv", {0, 0, 100}, {0, 0, 1}, {0, 0, 1}},  /* an unscored pass: 0 */
    };
    cp_val_run r = run("x", "h100", "fp32", 1, 1, "none", 1, 1);
    r.layers = l;
    r.n_layers = 5;
    int idx[3];
    assert_int_equal(cp_val_worst_layers(&r, idx, 3), 3);
    assert_int_equal(idx[0], 1);
    assert_int_equal(idx[1], 2);
    assert_int_equal(idx[2], 0);
}

/* A baseline and today compare over the runs both know, with the
 * baseline's own numbers for them. */
/* cuDNN's batch-norm backward is one call, measured as backward-data: the
 * model's reduction (backward-weight) joins its dx there; a layer measured
 * in both passes, or predicted in one, keeps its passes. */
static void test_merged_backward(void **state)
{
    (void)state;
    cp_val_layer bn = {.meas = {0.46, 1.16, 0}}, conv = {.meas = {0.22, 0.23, 0.53}}, relu = {.meas = {0.1, 0.2, 0}};
    cp_val_layer_set_predicted(&bn, (const double[]){0.46, 0.70, 0.47});
    assert_float_equal(bn.pred[1], 1.17, 1e-12);
    assert_float_equal(bn.pred[2], 0, 0);
    cp_val_layer_set_predicted(&conv, (const double[]){0.22, 0.23, 0.67});
    assert_float_equal(conv.pred[1], 0.23, 0);
    assert_float_equal(conv.pred[2], 0.67, 0);
    cp_val_layer_set_predicted(&relu, (const double[]){0.1, 0.19, 0});
    assert_float_equal(relu.pred[1], 0.19, 0);
    assert_float_equal(relu.pred[2], 0, 0);
}

static void test_baseline_targets(void **state)
{
    (void)state;
    cp_val_run r[3] = {
        run("resnet50", "h100", "fp32", 64, 1, "none", 10, 12), /* today +20% */
        run("vgg16", "h100", "fp32", 64, 1, "none", 10, 5),     /* not in the baseline: no say */
        run("resnet50", "h200", "fp32", 64, 2, "nccl", 10, 9),  /* today -10% */
    };
    r[0].selected = r[2].selected = 1;
    r[0].base_meas_ms = 10, r[0].base_pred_ms = 11;  /* +10% then */
    r[2].base_meas_ms = 10, r[2].base_pred_ms = 9.5; /* -5% then */
    r[0].base_layer_n = 4, r[0].base_layer_sum_pct = 40;
    cp_val_ar ar[2] = {{.bytes = 1e6, .meas_us = 100, .pred_us = 130, .selected = 1, .base_error_pct = -20},
                       {.bytes = 1e9, .meas_us = 100, .pred_us = 100}};
    cp_val_target base[CP_T_COUNT], now[CP_T_COUNT];
    cp_val_baseline_targets(r, 3, ar, 2, base);
    cp_val_targets(r, 3, ar, 2, NULL, 0, 1, now);
    assert_int_equal(base[CP_T_ONE_GPU_MAPE].n, 1);
    assert_float_equal(base[CP_T_ONE_GPU_MAPE].value, 10.0, 1e-9);
    assert_float_equal(now[CP_T_ONE_GPU_MAPE].value, 20.0, 1e-9);
    assert_true(cp_val_regressed(base[CP_T_ONE_GPU_MAPE].value, now[CP_T_ONE_GPU_MAPE].value));
    assert_float_equal(base[CP_T_MULTI_GPU_MAPE].value, 5.0, 1e-9);
    assert_float_equal(now[CP_T_MULTI_GPU_MAPE].value, 10.0, 1e-9);
    assert_int_equal(base[CP_T_LAYER_MAPE].n, 4);
    assert_float_equal(base[CP_T_LAYER_MAPE].value, 10.0, 1e-9);
    assert_int_equal(base[CP_T_NCCL_MAPE].n, 1);
    assert_float_equal(base[CP_T_NCCL_MAPE].value, 20.0, 1e-9);
    assert_float_equal(now[CP_T_NCCL_MAPE].value, 30.0, 1e-9);
    assert_int_equal(base[CP_T_WINNER].n, 0);
}

static void test_regressed(void **state)
{
    (void)state;
    assert_false(cp_val_regressed(40.0, 40.5)); /* within 0.5 percentage points */
    assert_true(cp_val_regressed(40.0, 40.51));
    assert_false(cp_val_regressed(40.0, 10.0)); /* better is never a regression */
}

/* --- paths -------------------------------------------------------------------------- */

static void test_glob_match(void **state)
{
    (void)state;
    const char *p = "validation/**/*.json";
    assert_true(cp_glob_match(p, "validation/a.json")); /* "**" may be no directory at all */
    assert_true(cp_glob_match(p, "validation/h100/resnet50.json"));
    assert_true(cp_glob_match(p, "validation/h200x2/calib/raw/x.json"));
    assert_false(cp_glob_match(p, "validation/h100/run.log"));
    assert_false(cp_glob_match(p, "other/h100/x.json"));
    assert_false(cp_glob_match(p, "validation/.cache/x.json")); /* hidden folders only when named */
    assert_false(cp_glob_match(p, "validation/h100/.x.json"));
    assert_true(cp_glob_match("validation/*/*.json", "validation/h100/x.json"));
    assert_false(cp_glob_match("validation/*/*.json", "validation/h100/deep/x.json"));
    assert_false(cp_glob_match("validation/*/*.json", "validation/x.json"));
    assert_true(cp_glob_match("**/x.json", "a/b/c/x.json"));
    assert_true(cp_glob_match("**/x.json", "x.json"));
    assert_true(cp_glob_match("a/**", "a/b/c"));
    assert_true(cp_glob_match("a/**/b/**/c.json", "a/x/b/y/z/c.json"));
    assert_false(cp_glob_match("a/**/b/**/c.json", "a/x/y/z/c.json"));
    assert_true(cp_glob_match("/abs/**/h1[0-9]0/*.json", "/abs/v/h100/r.json"));
    assert_true(cp_glob_match("validation//h100/*.json", "validation/h100/a.json"));
}

static char tree[64];

static void touch(const char *rel)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", tree, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("{}\n", f);
    fclose(f);
}

static int make_tree(void **state)
{
    (void)state;
    snprintf(tree, sizeof tree, "/tmp/cnnperf-test-validate-XXXXXX");
    if (!mkdtemp(tree))
        return -1;
    char p[256];
    const char *dirs[] = {"v", "v/h100", "v/h200x2", "v/h200x2/calib", "v/.hidden"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", tree, dirs[i]);
        if (mkdir(p, 0700))
            return -1;
    }
    const char *files[] = {"v/top.json", "v/h100/b.json", "v/h100/a.json", "v/h100/run.log",
                           "v/h200x2/calib/raw.json", "v/.hidden/h.json", "v/h100/c.json.gz"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        touch(files[i]);
    return 0;
}

static int remove_tree(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tree);
    return system(cmd) == 0 ? 0 : -1;
}

static void free_list(char **l, int n)
{
    for (int i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

static void test_glob_expand(void **state)
{
    (void)state;
    char pat[256], want[256];
    char **l = NULL;
    int n = 0, cap = 0;
    cp_error err;
    snprintf(pat, sizeof pat, "%s/v/**/*.json", tree);
    assert_int_equal(cp_glob_expand(pat, &l, &n, &cap, &err), 5);
    assert_int_equal(n, 5);
    /* sorted, a measurement kept compressed (*.json.gz) among the others */
    const char *expect[] = {"v/h100/a.json", "v/h100/b.json", "v/h100/c.json.gz", "v/h200x2/calib/raw.json",
                            "v/top.json"};
    for (int i = 0; i < 5; i++) {
        snprintf(want, sizeof want, "%s/%s", tree, expect[i]);
        assert_string_equal(l[i], want);
    }
    /* a second pattern naming the same files adds none twice */
    snprintf(pat, sizeof pat, "%s/v/h100/*.json", tree);
    assert_int_equal(cp_glob_expand(pat, &l, &n, &cap, &err), 3);
    assert_int_equal(n, 5);
    /* a folder: its *.json at any depth */
    free_list(l, n);
    l = NULL, n = cap = 0;
    snprintf(pat, sizeof pat, "%s/v/h200x2", tree);
    assert_int_equal(cp_glob_expand(pat, &l, &n, &cap, &err), 1);
    /* nothing matches, a missing file: errors naming the pattern */
    snprintf(pat, sizeof pat, "%s/v/**/*.csv", tree);
    assert_int_equal(cp_glob_expand(pat, &l, &n, &cap, &err), -1);
    assert_non_null(strstr(err.msg, "no file matches"));
    snprintf(pat, sizeof pat, "%s/v/none.json", tree);
    assert_int_equal(cp_glob_expand(pat, &l, &n, &cap, &err), -1);
    assert_non_null(strstr(err.msg, "cannot open"));
    assert_non_null(strstr(err.msg, "none.json")); /* the name given, not a .gz it tried */
    assert_null(strstr(err.msg, ".gz"));
    /* a file named x.json that the project keeps as x.json.gz */
    free_list(l, n);
    l = NULL, n = cap = 0;
    snprintf(pat, sizeof pat, "%s/v/h100/c.json", tree);
    assert_int_equal(cp_glob_expand(pat, &l, &n, &cap, &err), 1);
    snprintf(want, sizeof want, "%s/v/h100/c.json.gz", tree);
    assert_string_equal(l[0], want);
    free_list(l, n);
}

/* A measurement kept gzip-compressed reads as the same JSON; a cut one is an
 * error naming the file, not a crash or half a file. */
static void test_gzip_file(void **state)
{
    (void)state;
    char path[256];
    cp_error err;
    snprintf(path, sizeof path, "%s/m.json.gz", tree);
    const char *text = "{\"schema\": \"cnnperf-result/1\", \"batch\": 64}";
#ifdef CP_HAVE_ZLIB
    gzFile z = gzopen(path, "wb9");
    assert_non_null(z);
    assert_int_equal(gzputs(z, text), (int)strlen(text));
    assert_int_equal(gzclose(z), Z_OK);
    cJSON *root = cp_json_read_file(path, &err);
    assert_non_null(root);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(root, "batch")->valueint, 64);
    cJSON_Delete(root);
    /* the same file cut short: zlib's own complaint, under the file's name */
    FILE *f = fopen(path, "rb");
    unsigned char buf[256];
    size_t got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    f = fopen(path, "wb");
    fwrite(buf, 1, got / 2, f);
    fclose(f);
    assert_null(cp_json_read_file(path, &err));
    assert_non_null(strstr(err.msg, "m.json.gz"));
#else
    FILE *f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
    assert_null(cp_json_read_file(path, &err));
    assert_non_null(strstr(err.msg, "without zlib"));
#endif
}

/* --- the hand-written tail --------------------------------------------------------------- */

static void test_handwritten(void **state)
{
    (void)state;
    const char *doc = "# Accuracy\n\n| generated |\n" CP_VAL_MARKER "\n## Why\n\nkept text\n";
    const char *tail = cp_val_handwritten(doc);
    assert_non_null(tail);
    assert_string_equal(tail, "## Why\n\nkept text\n");
    /* blanks and a CR around the marker, the marker as the last line */
    assert_string_equal(cp_val_handwritten("x\n  " CP_VAL_MARKER " \r\nt\n"), "t\n");
    assert_string_equal(cp_val_handwritten("x\n" CP_VAL_MARKER), "");
    /* no marker, or the marker inside a line: nothing to keep */
    assert_null(cp_val_handwritten("# Accuracy\nno marker here\n"));
    assert_null(cp_val_handwritten("see " CP_VAL_MARKER " in text\n"));
    assert_null(cp_val_handwritten(""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relative_error),
        cmocka_unit_test(test_mape),
        cmocka_unit_test(test_winner),
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_one_gpu_scope),
        cmocka_unit_test(test_host_range),
        cmocka_unit_test(test_targets),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_floor),
        cmocka_unit_test(test_worst_layers),
        cmocka_unit_test(test_merged_backward),
        cmocka_unit_test(test_baseline_targets),
        cmocka_unit_test(test_regressed),
        cmocka_unit_test(test_glob_match),
        cmocka_unit_test_setup_teardown(test_glob_expand, make_tree, remove_tree),
        cmocka_unit_test_setup_teardown(test_gzip_file, make_tree, remove_tree),
        cmocka_unit_test(test_handwritten),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
