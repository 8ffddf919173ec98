/* validate_report: what `cnnperf validate` prints (table, JSON, CSV,
 * Markdown for docs/ACCURACY.md) and draws (SVG through gnuplot).
 *
 * The JSON field names are the stable schema documented in README.md
 * ("cnnperf-validation/1"). */
#ifndef CP_VALIDATE_REPORT_H
#define CP_VALIDATE_REPORT_H

#include <stdio.h>

#include "validate.h"

typedef enum { CP_VFMT_TABLE, CP_VFMT_JSON, CP_VFMT_CSV, CP_VFMT_MARKDOWN } cp_val_format;

typedef struct {
    char file[512];
    char reason[192];
} cp_val_skip;

#define CP_VAL_MAX_CALIB 64
#define CP_VAL_MAX_DRAWN 1024 /* one or two folders per drawn call; 256 ran out in session 74 */
#define CP_VAL_MAX_PLOTS 64

/* Everything one validation found; filled by cmd_validate.c. */
typedef struct {
    char command[1024];    /* how it was run, for the generated document */
    char calibration[512]; /* the layer-pass corrections the predictions used */
    cp_val_run *runs;
    int n_runs;
    cp_val_ar *ar;
    int n_ar;
    cp_val_pair *pairs;
    int n_pairs;
    cp_val_skip *skipped;
    int n_skipped;
    /* provenance: the measured files read (runs and NCCL sweeps) and, of them, those with a field every
     * measurement must carry missing or malformed (reason: which, and how; cmd_validate.c's check_provenance);
     * --check fails on any */
    int n_provenance_files;
    cp_val_skip *unproven;
    int n_unproven;
    char calib_file[512]; /* the calibration-set list read, "" if none */
    char calib_networks[CP_VAL_MAX_CALIB][64];
    int n_calib_networks;
    char calib_sweeps[CP_VAL_MAX_CALIB][256]; /* NCCL sweeps the model's link was fitted on */
    int n_calib_sweeps;
    char drawn_folders[CP_VAL_MAX_DRAWN][128]; /* folders of configurations drawn before their calls */
    int n_drawn_folders;
    cp_val_target targets[CP_T_COUNT];
    cp_val_floor floor[2]; /* repeatability: [0] the one-GPU target's runs, [1] the multi-GPU target's */
    cp_val_floor floor_by_harness[3]; /* the one-GPU target's, per cp_val_harnesses[] */

    /* --baseline: its metrics and today's, both over the runs it knows
     * measured as it recorded them; which regressed, the decisions that
     * flipped, the runs it has that were not measured now */
    int has_baseline;
    char baseline_file[512];
    int base_has[CP_T_COUNT];
    double base_value[CP_T_COUNT];
    cp_val_target base_now[CP_T_COUNT];
    int regressed[CP_T_COUNT];
    char (*flips)[192];
    int n_flips;
    char (*missing)[192];
    int n_missing;
    char (*remeasured)[192]; /* in the baseline with another measured time: not checked */
    int n_remeasured;

    /* --plot: the SVGs written, for the Markdown to show */
    char plots[CP_VAL_MAX_PLOTS][600];
    int n_plots;
    const char *doc_path;    /* the Markdown's own path, to link plots relative to it */
    const char *handwritten; /* Markdown: the tail to keep after CP_VAL_MARKER */
} cp_validation;

/* Returns 0, or -1 on a write error. */
int cp_validation_report(FILE *f, const cp_validation *v, cp_val_format fmt);

/* Writes PREFIX-iterations.svg, PREFIX-layers-<run>.svg (one run per
 * network) and, with multi-GPU runs, PREFIX-scaling.svg through the
 * gnuplot found on PATH, recording them in v->plots. spec is PREFIX, or a
 * file name ending in .svg or .png: the iterations plot is that file, the
 * others are named from it less its extension, in its format
 * (accuracy.png: accuracy.png, accuracy-layers-<run>.png,
 * accuracy-scaling.png). Returns 0, or -1 with err filled (gnuplot missing
 * or failing, a file not writable, an empty name). */
int cp_validation_plots(cp_validation *v, const char *spec, cp_error *err);
/* The gnuplot on PATH into buf; 0 found, -1 not. */
int cp_find_gnuplot(char *buf, size_t n);

#endif
