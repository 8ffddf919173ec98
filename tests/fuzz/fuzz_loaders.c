/* fuzz_loaders: libFuzzer over every loader of user input -- device
 * profiles, networks, clusters, calibrations, eager costs, the measured
 * sweeps (MPI link, network link, parameter-server pass) and whole files
 * given to `cnnperf validate`. The first byte picks the loader, the rest is
 * the file's text. A loader may refuse (that is the point); it must not
 * crash, leak or trip a sanitizer. Built by tools/fuzz.sh (clang). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "comm/cluster.h"
#include "model/advisor.h"
#include "model/calibration.h"
#include "model/device.h"
#include "model/eager_costs.h"
#include "networks/network.h"
#include "src/commands.h"
#include "util/jsonread.h"

enum { L_DEVICE, L_NETWORK, L_CLUSTER, L_CALIBRATION, L_EAGER, L_SWEEPS, L_VALIDATE, L_KERNEL, L_COUNT };

/* validate reads files: the input goes to a folder of its own, the report elsewhere */
static char in_dir[64], in_file[96], out_file[96];

static void setup_dirs(void)
{
    if (in_dir[0])
        return;
    snprintf(in_dir, sizeof in_dir, "/tmp/cnnperf-fuzz-%d", (int)getpid());
    char out_dir[80];
    snprintf(out_dir, sizeof out_dir, "%s-out", in_dir);
    if ((mkdir(in_dir, 0700) && access(in_dir, W_OK)) || (mkdir(out_dir, 0700) && access(out_dir, W_OK)))
        abort();
    snprintf(in_file, sizeof in_file, "%s/run.json", in_dir);
    snprintf(out_file, sizeof out_file, "%s/report.json", out_dir);
}

static void validate_text(const char *text, size_t len)
{
    setup_dirs();
    FILE *f = fopen(in_file, "wb");
    if (!f)
        abort();
    fwrite(text, 1, len, f);
    fclose(f);
    char *argv[] = {"validate", "--measured", in_file, "--format", "json", "-o", out_file, NULL};
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w"); /* one line per refusal: not the fuzzer's output */
    cp_cmd_validate(7, argv);
    fclose(stderr);
    stderr = saved;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* the loaders' contract (util/jsonread.h): text[len] is a NUL, as files
     * read and embedded resources are */
    size_t len = size - 1;
    char *text = malloc(len + 1);
    if (!text)
        return 0;
    memcpy(text, data + 1, len);
    text[len] = 0;
    cp_error err;
    switch (data[0] % L_COUNT) {
    case L_DEVICE: {
        cp_device d;
        cp_device_parse(text, len, "fuzz", &d, &err);
        break;
    }
    case L_NETWORK: {
        cp_network n;
        if (cp_network_parse(text, len, "fuzz", &n, &err) == 0)
            cp_network_free(&n);
        break;
    }
    case L_CLUSTER: {
        cp_cluster c;
        cp_cluster_parse(text, len, "fuzz", &c, &err);
        break;
    }
    case L_CALIBRATION: {
        cp_calibration c;
        cp_calibration_parse(text, len, "fuzz", &c, &err);
        break;
    }
    case L_EAGER: {
        cp_eager_costs e;
        cp_eager_costs_parse_text(text, len, "fuzz", &e, &err);
        break;
    }
    case L_SWEEPS: {
        cJSON *root = cp_json_parse(text, len, "fuzz", &err);
        if (root) {
            cp_link l;
            cp_ps_server ps;
            cp_cluster_ipc_parse(root, "fuzz", &l, &err);
            cp_cluster_net_parse(root, "fuzz", &l, &err);
            cp_cluster_ps_server_parse(root, "fuzz", &ps, &err);
            cJSON_Delete(root);
        }
        break;
    }
    case L_KERNEL: {
        cp_kernel_spec k;
        cp_kernel_spec_parse(text, len, "fuzz", &k, &err);
        break;
    }
    default:
        validate_text(text, len);
    }
    free(text);
    return 0;
}
