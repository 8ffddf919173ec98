/* options: the command line shared by predict, layers, choose and sweep.
 *
 * Values are kept as given; each command converts what it uses, so a bad
 * value is reported by the command that needs it, once. */
#ifndef CP_OPTIONS_H
#define CP_OPTIONS_H

typedef struct {
    const char *network, *device, *cluster, *precision, *format, *layer, *output, *trace;
    const char *batch, *gpus, *comm, *nccl_algo, *overlap, *bucket_mb, *ps_servers, *ps_on;
    const char *mode, *eager_profile; /* --mode harness|eager, --eager-profile FILE */
    const char *calibration;          /* --calibration auto|none|FILE */
    int explain;
} cp_options;

/* Parses argv[1..argc-1] (argv[0] is the command). Returns 0, or 2 after
 * printing one line for an unknown option or a missing value; exits 0 after
 * printing the usage for -h/--help. */
int cp_options_parse(int argc, char **argv, cp_options *o);

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
