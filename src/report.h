/* report: prediction and network listings as a table, JSON or CSV.
 *
 * The per-layer columns are defined once (name, JSON key, width, unit) and
 * drive all three formats; the JSON field names are the stable schema
 * documented in README.md and shared with the measurement backend. */
#ifndef CP_REPORT_H
#define CP_REPORT_H

#include <stdio.h>

#include "../model/distributed.h"
#include "../model/eager.h"
#include "../util/csv.h"

typedef enum { CP_FMT_TABLE, CP_FMT_JSON, CP_FMT_CSV } cp_format;

int cp_format_parse(const char *s, cp_format *f); /* 0 ok, -1 unknown */

/* Each returns 0, or -1 on a write error (the caller reports it). */
/* root printed (indented) and freed; NULL (out of memory) is an error. */
int cp_report_json(FILE *f, cJSON *root);
int cp_report_prediction(FILE *f, const cp_prediction *p, cp_format fmt);
/* The same with the mode: e is the eager time line of p, NULL in harness mode. */
int cp_report_prediction_mode(FILE *f, const cp_prediction *p, const cp_eager *e, cp_format fmt);
/* A warning on stderr ("cnnperf <what>: warning: ...") when the network at
 * this batch does not fit the GPU as the harness (or, eager, PyTorch) trains
 * it (model/memory.h), on a worker of a job of nccl_gpus GPUs exchanging by
 * NCCL (1: none). */
void cp_report_memory_warning(const cp_prediction *p, bool eager, int nccl_gpus, const char *what);
int cp_report_layers(FILE *f, const cp_network *n, int batch, cp_format fmt);
/* A multi-GPU prediction: the slowest GPU's layers, the groups, the exchange. */
int cp_report_distributed(FILE *f, const cp_dist_prediction *d, cp_format fmt);
/* The task tree with every node's time; kernels with their queue-model
 * counts, occupancy, regime and cycles. only_layer (or NULL) restricts the
 * listing to one layer's passes. */
int cp_report_explain(FILE *f, const cp_prediction *p, const char *only_layer);
/* The same for several GPUs: the phases, then the exchange bucket by
 * bucket (its layers, when backward produced them, when it ran, and for
 * NCCL the algorithm and protocol with NCCL's own estimates that picked it). */
int cp_report_dist_explain(FILE *f, const cp_dist_prediction *d);

#endif
