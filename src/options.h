/* options: the command line shared by predict, layers, choose and sweep.
 *
 * Values are kept as given; each command converts what it uses, so a bad
 * value is reported by the command that needs it, once. */
#ifndef CP_OPTIONS_H
#define CP_OPTIONS_H

#include <stddef.h>

typedef struct {
    const char *network, *device, *cluster, *precision, *format, *layer, *output, *trace;
    const char *batch, *gpus, *comm, *nccl_algo, *overlap, *bucket_mb, *ps_servers, *ps_on;
    const char *mode, *eager_profile; /* --mode harness|eager, --eager-profile FILE */
    const char *calibration;          /* --calibration auto|none|FILE */
    const char *conv_api;             /* --conv-api legacy|graph */
    const char *workspace_mb;         /* --workspace-mb N: harness mode's convolution workspace limit */
    const char *memory_format;        /* --memory-format nchw|channels_last: eager mode's activation layout */
    const char *host_mpi;             /* --host-mpi FILE: cnnperf-calibrate's MPI ping-pong (comm/cluster.h) */
    const char *ps_bench;             /* --ps-bench FILE: cnnperf-psbench's server pass (comm/cluster.h) */
    const char *net_link;             /* --net-link FILE: an NCCL sweep of one rank per node (comm/cluster.h) */
    int explain;
} cp_options;

/* Parses argv[1..argc-1] (argv[0] is the command). Returns 0, or 2 after
 * printing one line for an unknown option or a missing value; exits 0 after
 * printing the usage for -h/--help. */
int cp_options_parse(int argc, char **argv, cp_options *o);

/* A command's options that take a value: a flag and where the value goes. */
typedef struct {
    const char *flag;
    size_t offset; /* of a const char * in the command's options struct */
} cp_valued_option;

/* argv[*i] must be one of table's flags: stores argv[*i + 1] at the flag's
 * offset in opts and steps *i over it. Returns 0, or 2 after one line for
 * an unknown option or a missing value. */
int cp_take_valued(int argc, char **argv, int *i, const cp_valued_option *table, size_t n, void *opts);

/* One line "cnnperf: <message>" on stderr; returns the exit status 2. */
int cp_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A positive integer no larger than max; -1 if s is not one. */
long cp_parse_count(const char *s, long max);

/* Writes through fn (see cp_atomic_write) to path, or standard output for
 * NULL; returns the exit status: 0, 2 when path cannot be created, 1 when
 * writing failed. */
#include <stdio.h>
int cp_write_result(const char *path, int (*fn)(FILE *, const void *, int), const void *what, int arg);

extern const char cp_usage[];

#endif
