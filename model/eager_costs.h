/* eager_costs: what a framework's host spends per operator in eager mode.
 *
 * PyTorch eager runs every layer from Python: before a layer's kernels reach
 * the GPU the host spends the module call, the dispatcher, autograd's
 * bookkeeping and the launches; backward, each autograd node costs the
 * engine a little; the optimizer step costs a fixed part plus a part per
 * parameter tensor. These costs depend on the host CPU and the framework,
 * not on the GPU, so they come from a measurement (tools/torch_bench.py
 * --eager-overhead) or, where none is given, from documented typical
 * values (devices/FORMAT.md, "eager"). Read from a device profile's
 * optional "eager" section or from the benchmark's own JSON file. */
#ifndef CP_EAGER_COSTS_H
#define CP_EAGER_COSTS_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "../util/cp_error.h"
#include "../util/jsonread.h"

/* Keys of the per-kind tables: "default", "pool" (every pooling kind),
 * the layer kinds themselves, and "grad_accumulate": autograd summing two
 * gradients of one tensor (a tensor read by several layers), in the
 * backward tables, looked up on its own (no "default"). */
#define CP_EAGER_KEYS 18

typedef enum { CP_EAGER_FWD, CP_EAGER_BWD, CP_EAGER_AC_FWD, CP_EAGER_AC_BWD, CP_EAGER_TABLES } cp_eager_table;

typedef struct {
    double us[CP_EAGER_TABLES][CP_EAGER_KEYS]; /* µs per operator, where has[][] says given */
    unsigned char has[CP_EAGER_TABLES][CP_EAGER_KEYS];
    double opt_step_us, opt_tensor_us; /* optimizer step: fixed + per parameter tensor, where has_opt */
    int has_opt;
    int given;        /* a section or file was read */
    /* a device profile's "host_spread": the lowest and highest of its calls'
     * costs relative to the profile's (0: none given) */
    double spread_low, spread_high;
    int spread_calls;
    double scale;     /* every cost times this (0 or 1: as given); for the spread's bounds */
    /* "ddp": what DistributedDataParallel adds to the host, per parameter
     * tensor (its hook and bucket copy, in backward), per batch-norm layer
     * (its buffers broadcast before each forward) and per step (has_ddp:
     * given; torch_bench.py --ddp-overhead) */
    double ddp_us[3];
    int has_ddp;
    /* "ddp" "operator_scale": an operator's host cost in one of two or more
     * processes at work on one host (torch_bench.py --eager-overhead under
     * torchrun, every rank at once) against one process alone; 0: not given */
    double ddp_operator_scale;
    /* "ddp" "rank_spread": the relative standard deviation of one process's
     * host time among a job's processes doing the same work at once
     * (torch_bench.py --ddp-split, calibration-set networks); 0: not given */
    double ddp_rank_spread;
    /* "iteration_fixed_us": a training iteration's host wall per phase (forward, backward, step) with no
     * layers but a Flatten + Linear head and its loss, [0] plain, [1] autocast (torch_bench.py's
     * iteration_fixed): what an iteration pays once, which the chains' differences leave out; has_fixed: given */
    double fixed_us[2][3];
    int has_fixed;
    char source[192]; /* where the given values come from */
} cp_eager_costs;
/* A zeroed cp_eager_costs gives nothing: every lookup takes the built-in
 * typical values. */

/* Reads an "eager" section (obj; c's path points at it) of a device profile. */
int cp_eager_costs_parse(cp_jctx *c, const cJSON *obj, cp_eager_costs *out);

/* Reads the JSON that tools/torch_bench.py --eager-overhead writes
 * (schema "cnnperf-eager-overhead/1"). */
int cp_eager_costs_load(const char *path, cp_eager_costs *out, cp_error *err);
int cp_eager_costs_parse_text(const char *text, size_t len, const char *file, cp_eager_costs *out, cp_error *err);
/* The same from a file's parsed root (file names it in errors). */
int cp_eager_costs_parse_root(const cJSON *root, const char *file, cp_eager_costs *out, cp_error *err);

/* One call's costs (a torch_bench.py --eager-overhead file) moved toward a
 * machine's (a device profile's median over its calls): each value both
 * give becomes their geometric mean, one only the machine gives is taken
 * from it (rule 59: one microbenchmark is one sample of a host whose speed
 * moves; the profile is many). */
void cp_eager_costs_toward(cp_eager_costs *call, const cp_eager_costs *machine);

/* Host µs of one operator of layer kind `kind` (its JSON name) in table t:
 * the kind's own entry, else its group's ("pool"; "relu" for relu6), else
 * "default"; each first from the given costs, then from the built-in
 * values. An autocast table that is not given falls back to the plain
 * table's value plus the built-in autocast surcharge. *builtin (may be
 * NULL) is set when a built-in value was used. */
double cp_eager_op_us(const cp_eager_costs *c, const char *kind, cp_eager_table t, int *builtin);
/* DistributedDataParallel's host µs: which 0 per parameter tensor, 1 per
 * batch-norm layer, 2 per step; from c, else from `machine` (a device
 * profile's section, may be NULL), else none (0, *builtin set). */
enum { CP_DDP_PER_PARAM, CP_DDP_PER_BN, CP_DDP_PER_STEP };
double cp_eager_ddp_us(const cp_eager_costs *c, const cp_eager_costs *machine, int which, int *builtin);
/* What sharing its host with other DDP processes does to an operator's host
 * cost: c's operator_scale, else machine's (may be NULL), else 1. */
double cp_eager_ddp_operator_scale(const cp_eager_costs *c, const cp_eager_costs *machine);
/* Likewise the spread of the processes' hosts: c's rank_spread, else machine's, else 0. */
double cp_eager_ddp_rank_spread(const cp_eager_costs *c, const cp_eager_costs *machine);
/* Reads a "ddp" object {per_param_us, per_bn_us, per_step_us[, operator_scale, rank_spread]} (obj; c's path
 * points at its parent) into out; absent: nothing. */
int cp_eager_ddp_parse(cp_jctx *c, const cJSON *parent, cp_eager_costs *out);
/* Host µs of one optimizer step over `tensors` parameter tensors. */
double cp_eager_optimizer_us(const cp_eager_costs *c, int tensors, int *builtin);
/* Host µs a training iteration pays once in phase `phase` (0 forward, 1
 * backward, 2 step; the autocast walls where autocast): the "iteration_fixed_us"
 * wall of c, else of machine (may be NULL), less what that same section's
 * tables charge the head it was measured with (forward: the two input copies
 * at "default", flatten, fc and the loss, "softmax"; backward: flatten, fc and
 * softmax; step: the optimizer over two tensors), never below 0, times c's
 * scale. 0 where neither gives the walls. */
double cp_eager_fixed_us(const cp_eager_costs *c, const cp_eager_costs *machine, int autocast, int phase);

/* Where the built-in values come from, for provenance lines. */
extern const char cp_eager_default_source[];

#endif
