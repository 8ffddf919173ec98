/* cnnperf kernel: the block-size advisor on the command line.
 *
 * Exit status: 0 success, 2 bad input or usage (one line on stderr), 1 an
 * output error. argv[0] is "kernel". */
#include <stdio.h>
#include <string.h>

#include "../model/advisor.h"
#include "commands.h"
#include "options.h"

static const char usage[] =
    "usage: cnnperf kernel --kernel FILE [--device ID|FILE] [--format table|json|csv] [-o FILE]\n"
    "\n"
    "Predicts a CUDA kernel's time for every block size from 32 to 1024 threads (step 32),\n"
    "says which resource limits occupancy at each size and recommends the fastest.\n"
    "\n"
    "  --kernel FILE           the kernel, described per thread (cnnperf-kernel/1, docs/KERNELS.md)\n"
    "  --device ID|FILE        built-in device or a cnnperf-device/1 JSON file (default h100)\n"
    "  --format F              table, json or csv (default table)\n"
    "  -o, --output FILE       write the result to FILE (atomically) instead of standard output\n"
    "  -h, --help              this text\n";

typedef struct {
    const cp_advice *advice;
    const cp_kernel_spec *spec;
} advice_job;

static int put_advice(FILE *f, const void *what, int fmt)
{
    const advice_job *j = what;
    return cp_advice_write(f, j->advice, j->spec, (cp_advice_format)fmt);
}

int cp_cmd_kernel(int argc, char **argv)
{
    const char *kernel = NULL, *device = "h100", *format = "table", *output = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--kernel") == 0) {
            slot = &kernel;
        } else if (strcmp(a, "--device") == 0) {
            slot = &device;
        } else if (strcmp(a, "--format") == 0) {
            slot = &format;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            slot = &output;
        } else {
            return cp_bad("kernel: unknown option '%s' (see 'cnnperf kernel --help')", a);
        }
        if (i + 1 >= argc || !argv[i + 1][0])
            return cp_bad("kernel: %s needs a value", a);
        *slot = argv[++i];
    }
    if (!kernel)
        return cp_bad("kernel: --kernel FILE is required (see '%s --help')", "cnnperf kernel");
    cp_advice_format fmt;
    if (cp_advice_format_parse(format, &fmt))
        return cp_bad("--format: expected table, json or csv, got '%s'", format);

    cp_error err;
    cp_device dev;
    cp_kernel_spec spec;
    if (cp_device_load(device, &dev, &err) || cp_kernel_spec_load(kernel, &spec, &err))
        return cp_bad("%s", err.msg);
    cp_advice advice;
    if (cp_advise(&spec, &dev, &advice, &err))
        return cp_bad("%s", err.msg);

    advice_job job = {&advice, &spec};
    return cp_write_result(output, put_advice, &job, fmt);
}
