/* The cnnperf commands other than the one-GPU predict in main.c. Each takes
 * (argc, argv) with argv[0] the command's name and returns the exit status. */
#ifndef CP_COMMANDS_H
#define CP_COMMANDS_H

#include <stdbool.h>

#include "../model/distributed.h"
#include "../model/eager.h"
#include "options.h"

int cp_cmd_kernel(int argc, char **argv);
int cp_cmd_choose(int argc, char **argv);
int cp_cmd_sweep(int argc, char **argv);
int cp_cmd_validate(int argc, char **argv);

/* Multi-GPU prediction for `cnnperf predict` with --gpus > 1 or --cluster. */
int cp_cmd_predict_distributed(const cp_options *o);

/* --mode, --eager-profile, --conv-api, --workspace-mb and --memory-format:
 * 0, or the exit status after one line on stderr. *have_costs says whether
 * costs were read from --eager-profile; *algos is the convolution algorithm
 * set (PyTorch's, the default and always in eager mode; cudnnFind's with
 * --conv-api legacy); *channels_last: the network's activations are NHWC
 * (eager mode only: cnnperf-measure trains NCHW). */
int cp_mode_option(const cp_options *o, cp_mode *mode, cp_eager_costs *costs, int *have_costs, cp_algos *algos,
                   double *workspace_mb, bool *channels_last);

#endif
