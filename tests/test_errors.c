/* Bad input: every file under tests/data/bad/ (net-*.json, dev-*.json) must
 * be refused with one line "FILE: JSONPATH: message" that names the file and
 * the offending value, without leaking (this suite also runs under ASan).
 * Plus a few loader semantics the error paths rely on: block instance names
 * and the list of built-in names in "unknown network/device" messages; and
 * the writer every JSON result goes through, which must leave an earlier file
 * whole when it cannot write a new one. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/device.h"
#include "networks/network.h"
#include "util/jsonwrite.h"

#define BAD_DIR CNNPERF_SOURCE_DIR "/tests/data/bad"

typedef struct {
    const char *file; /* under tests/data/bad/ */
    const char *path; /* the JSON path the message must name, exactly */
    const char *msg;  /* a substring of the message after the path */
} bad_case;

static const bad_case cases[] = {
    /* malformed JSON and the top level */
    {"net-malformed-truncated.json", "$", "malformed JSON"},
    {"net-duplicate-key.json", "$.layers[3].out", "duplicate key"},
    {"net-malformed-trailing-comma.json", "$", "malformed JSON near line 8"},
    {"net-malformed-trailing-garbage.json", "$", "malformed JSON near line 10"},
    {"net-not-object.json", "$", "must be a JSON object"},
    {"net-empty-file.json", "$", "empty file"},
    {"net-format-wrong.json", "$.format", "unsupported format 'cnnperf-network/2'"},
    {"net-format-missing.json", "$.format", "missing required field"},
    {"net-input-missing.json", "$.input", "missing required field"},
    {"net-input-field-unknown.json", "$.input.depth", "unknown field"},
    {"net-input-height-zero.json", "$.input.height", "must be a positive integer"},
    {"net-layers-missing.json", "$.layers", "missing required field"},
    {"net-layers-empty.json", "$.layers", "at least one layer"},
    {"net-layer-not-object.json", "$.layers[1]", "must be a JSON object"},
    /* one layer's fields */
    {"net-kind-unknown.json", "$.layers[1].kind", "unknown layer kind 'rectifier'"},
    {"net-kind-and-block.json", "$.layers[1]", "exactly one of 'kind' or 'block'"},
    {"net-field-unknown-typo.json", "$.layers[0].strid", "unknown field for a 'conv' layer"},
    {"net-conv-missing-out.json", "$.layers[0].out", "missing required field"},
    {"net-conv-missing-kernel.json", "$.layers[0].kernel", "missing required field"},
    {"net-conv-out-zero.json", "$.layers[0].out", "must be a positive integer"},
    {"net-conv-kernel-negative.json", "$.layers[0].kernel", "got -3"},
    {"net-conv-stride-zero.json", "$.layers[0].stride", "got 0"},
    {"net-conv-out-string.json", "$.layers[0].out", "must be an integer"},
    {"net-conv-bias-string.json", "$.layers[0].bias", "must be true or false"},
    {"net-name-duplicate.json", "$.layers[2].name", "duplicate layer name 'c1'"},
    {"net-name-reserved.json", "$.layers[1].name", "'@in' is reserved"},
    /* the graph */
    {"net-input-unknown-name.json", "$.layers[1].inputs[0]", "unknown input 'conv1'"},
    {"net-cycle-forward-ref.json", "$.layers[0].inputs[0]", "unknown input 'a2'"},
    {"net-block-cycle-forward-ref.json", "$.blocks.b.layers[0].inputs[0]", "unknown input 'r2'"},
    {"net-relu-two-inputs.json", "$.layers[2].inputs", "exactly 1 input, got 2"},
    {"net-concat-one-input.json", "$.layers[1].inputs", "takes 2 to 8 inputs, got 1"},
    /* blocks */
    {"net-block-self-direct.json", "$.blocks.b.layers[1].block", "block 'b' uses itself"},
    {"net-block-self-indirect.json", "$.blocks.b.layers[1].block", "block 'a' uses itself"},
    {"net-block-unknown.json", "$.layers[1].block", "unknown block 'basci'"},
    {"net-block-arg-missing.json", "$.layers[1].with", "missing argument 'stride' of block 'b'"},
    {"net-block-arg-undeclared.json", "$.layers[1].with.groups", "block 'b' has no argument 'groups'"},
    {"net-block-arg-not-number.json", "$.layers[1].with.out", "must be a number"},
    {"net-block-dollar-undeclared.json", "$.blocks.b.layers[0].stride", "'$stride' is not an argument of block 'b'"},
    /* inside an array the path must end at the element, not at the array */
    {"net-block-dollar-undeclared-in-array.json", "$.blocks.b.layers[0].kernel[1]",
     "'$k' is not an argument of block 'b'"},
    {"net-block-repeat-zero.json", "$.layers[1].repeat", "must be a positive integer"},
    {"net-block-output-unknown.json", "$.blocks.b.output", "unknown output layer 'nosuch'"},
    /* 8x8 -> 6 -> 4 -> 2: the fourth repetition's 3x3 kernel no longer fits */
    {"net-block-shape-error-in-repeat.json", "$.blocks.b.layers[0].kernel", "(in l1.3)"},
    /* shapes that do not chain */
    {"net-add-shape-mismatch.json", "$.layers[2].inputs", "add inputs differ in shape"},
    {"net-concat-height-mismatch.json", "$.layers[2].inputs", "concat inputs differ in height"},
    {"net-fc-unflattened.json", "$.layers[2].inputs", "needs a flat input"},
    {"net-conv-kernel-larger-than-input.json", "$.layers[0].kernel", "larger than the padded input 10x10"},
    {"net-pool-window-larger-than-input.json", "$.layers[1].kernel", "larger than the padded input 8x8"},
    {"net-pool-pad-over-half-kernel.json", "$.layers[1].pad", "at most half the kernel"},
    {"net-conv-groups-indivisible.json", "$.layers[0].groups", "not divisible by groups 2"},

    /* device profiles */
    {"dev-malformed-truncated.json", "$", "malformed JSON"},
    {"dev-not-object.json", "$", "must be a JSON object"},
    {"dev-format-wrong.json", "$.format", "unsupported format 'cnnperf-network/1'"},
    {"dev-id-missing.json", "$.id", "missing required field"},
    {"dev-field-unknown.json", "$.sm_cuont", "unknown field"},
    {"dev-sm-count-missing.json", "$.sm_count", "missing required field"},
    {"dev-sm-count-string.json", "$.sm_count", "must be an integer"},
    {"dev-value-object-string.json", "$.sm_count.value", "must be an integer"},
    /* a typo in a {"value", "source"} object must not pass silently */
    {"dev-value-object-unknown-key.json", "$.sm_count.sorce", "unknown field"},
    {"dev-warp-size-fraction.json", "$.warp_size", "got 32.5"},
    {"dev-dram-bandwidth-negative.json", "$.dram_bandwidth_gbs", "got -320"},
    {"dev-clock-zero.json", "$.core_clock_mhz", "got 0"},
    {"dev-efficiency-over-one.json", "$.dram_efficiency", "got 1.5"},
    {"dev-warps-inconsistent-eq3-4.json", "$.max_warps_per_sm", "Eq. 3-4"},
    {"dev-threads-block-exceeds-sm.json", "$.max_threads_per_block", "exceeds max_threads_per_sm"},
    {"dev-smem-block-exceeds-sm.json", "$.smem_per_block", "exceeds smem_per_sm"},
    /* the optional eager section (--mode eager host costs) */
    {"dev-eager-kind-unknown.json", "$.eager.forward_op_us.convv", "unknown layer kind (expected one of default"},
    {"dev-eager-cost-negative.json", "$.eager.backward_op_us.relu", "got -3"},
    {"dev-nccl-overlap-rate-zero.json", "$.nccl_overlap.compute_bound.work_rate", "in [0.01, 1], got 0"},
    {"dev-nccl-overlap-field-unknown.json", "$.nccl_overlap.pcie", "unknown field"},
    {"dev-eager-table-not-object.json", "$.eager.forward_op_us", "must be an object"},
    {"dev-eager-optimizer-missing.json", "$.eager.optimizer.per_tensor_us", "missing required field"},
    {"dev-eager-field-unknown.json", "$.eager.forward_ops_us", "unknown field"},
    {"dev-eager-ddp-negative.json", "$.eager.ddp.per_bn_us", "got -4"},
    {"dev-eager-spread-high-below-one.json", "$.eager.host_spread.high", "got 0.9"},
    /* the optional legacy_host section (the host's issue per convolution call) */
    {"dev-legacy-host-order.json", "$.legacy_host.issue_per_conv_call_us", "p10 <= median <= p90"},
    {"dev-legacy-host-field-unknown.json", "$.legacy_host.calls", "unknown field"},
};

#define N_CASES (sizeof cases / sizeof cases[0])

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Checks one message; returns 0 or prints why and returns -1 (so every case
 * is reported, not only the first failing one). */
static int check_message(const bad_case *c, const char *file, int rc, const char *msg)
{
    if (rc == 0) {
        print_error("%s: loaded, expected an error at %s (%s)\n", c->file, c->path, c->msg);
        return -1;
    }
    char head[600];
    snprintf(head, sizeof head, "%s: %s: ", file, c->path);
    if (strchr(msg, '\n') || strchr(msg, '\r')) {
        print_error("%s: message spans lines: %s\n", c->file, msg);
        return -1;
    }
    if (!starts_with(msg, file)) {
        print_error("%s: message does not begin with the file path\n  got:      %s\n", c->file, msg);
        return -1;
    }
    if (!starts_with(msg, head)) {
        print_error("%s: message does not name the JSON path %s\n  got:      %s\n  expected: %s...\n", c->file,
                    c->path, msg, head);
        return -1;
    }
    if (!strstr(msg + strlen(head), c->msg)) {
        print_error("%s: message lacks '%s'\n  got:      %s\n", c->file, c->msg, msg);
        return -1;
    }
    return 0;
}

static void test_bad_files(void **state)
{
    (void)state;
    int failed = 0, n_net = 0, n_dev = 0;
    for (size_t i = 0; i < N_CASES; i++) {
        const bad_case *c = &cases[i];
        char file[512];
        snprintf(file, sizeof file, "%s/%s", BAD_DIR, c->file);
        cp_error err;
        memset(&err, 0, sizeof err);
        int rc;
        if (starts_with(c->file, "net-")) {
            cp_network n;
            rc = cp_network_load(file, &n, &err);
            if (rc == 0) {
                cp_network_free(&n);
            } else {
                /* a failed load leaves nothing to free */
                assert_null(n.layers);
                assert_int_equal(n.n_layers, 0);
                cp_network_free(&n); /* and freeing it anyway is harmless */
            }
            n_net++;
        } else {
            assert_true(starts_with(c->file, "dev-"));
            cp_device d;
            rc = cp_device_load(file, &d, &err);
            n_dev++;
        }
        if (check_message(c, file, rc, err.msg))
            failed++;
    }
    if (failed)
        fail_msg("%d of %zu bad input files gave a wrong or no message", failed, N_CASES);
    assert_true(n_net >= 26);
    assert_true(n_dev >= 8);
}

/* Every net-*.json / dev-*.json in the directory is in the table, once. */
static void test_every_file_is_tested(void **state)
{
    (void)state;
    DIR *dir = opendir(BAD_DIR);
    assert_non_null(dir);
    int missing = 0, seen = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        const char *name = e->d_name;
        if (!(starts_with(name, "net-") || starts_with(name, "dev-")) || !ends_with(name, ".json"))
            continue;
        seen++;
        int found = 0;
        for (size_t i = 0; i < N_CASES; i++)
            found += strcmp(cases[i].file, name) == 0;
        if (found != 1) {
            print_error("%s: listed %d times in the table of test_errors.c (want 1)\n", name, found);
            missing++;
        }
    }
    closedir(dir);
    if (missing)
        fail_msg("%d file(s) of tests/data/bad not tested exactly once", missing);
    /* and the table names no file that is not there */
    assert_int_equal(seen, (int)N_CASES);
}

/* ---- loader semantics ---- */

static int parse_text(const char *text, cp_network *n)
{
    cp_error err;
    memset(&err, 0, sizeof err);
    int rc = cp_network_parse(text, strlen(text), "inline.json", n, &err);
    if (rc)
        print_error("%s\n", err.msg);
    return rc;
}

static int find(const cp_network *n, const char *name)
{
    int i = cp_network_find(n, name);
    if (i < 0)
        fail_msg("no layer named '%s'", name);
    return i;
}

/* FORMAT.md: without repeat, "one.conv1"; with repeat n, "layer1.0.conv1" ...
 * "layer1.<n-1>.conv1"; "layer1.0" names one repetition and "layer1" the last;
 * "$arg" is substituted inside arrays too. */
static void test_block_instance_names(void **state)
{
    (void)state;
    static const char text[] =
        "{\"format\": \"cnnperf-network/1\", \"name\": \"blocks\","
        " \"input\": {\"channels\": 3, \"height\": 8, \"width\": 8},"
        " \"blocks\": {"
        "  \"basic\": {\"args\": [\"out\", \"k\"], \"layers\": ["
        "   {\"name\": \"conv1\", \"kind\": \"conv\", \"out\": \"$out\", \"kernel\": [1, \"$k\"], \"pad\": [0, 1]},"
        "   {\"name\": \"relu1\", \"kind\": \"relu\"},"
        "   {\"name\": \"add\", \"kind\": \"add\", \"inputs\": [\"relu1\", \"@in\"]}]}"
        " },"
        " \"layers\": ["
        "  {\"name\": \"stem\", \"kind\": \"conv\", \"out\": 4, \"kernel\": 1},"
        "  {\"name\": \"layer1\", \"block\": \"basic\", \"repeat\": 2, \"with\": {\"out\": 4, \"k\": 3}},"
        "  {\"name\": \"one\", \"block\": \"basic\", \"with\": {\"out\": 4, \"k\": 3}},"
        "  {\"name\": \"cat\", \"kind\": \"concat\", \"inputs\": [\"layer1.0\", \"layer1\", \"one\"]}"
        " ]}";
    cp_network n;
    assert_int_equal(parse_text(text, &n), 0);
    assert_int_equal(n.n_layers, 1 + 2 * 3 + 3 + 1);

    int stem = find(&n, "stem");
    int c0 = find(&n, "layer1.0.conv1"), a0 = find(&n, "layer1.0.add");
    int c1 = find(&n, "layer1.1.conv1"), a1 = find(&n, "layer1.1.add");
    int oc = find(&n, "one.conv1"), oa = find(&n, "one.add");
    int cat = find(&n, "cat");
    assert_int_equal(cp_network_find(&n, "layer1.conv1"), -1); /* repeated: always numbered */
    assert_int_equal(cp_network_find(&n, "one.0.conv1"), -1);  /* single: never numbered */

    /* repetitions chain, and @in is the instance's input */
    assert_int_equal(n.layers[c0].inputs[0], stem);
    assert_int_equal(n.layers[a0].inputs[1], stem);
    assert_int_equal(n.layers[c1].inputs[0], a0);
    assert_int_equal(n.layers[a1].inputs[1], a0);
    assert_int_equal(n.layers[oc].inputs[0], a1);
    /* "layer1.0" is the first repetition's output, "layer1" the last one's */
    assert_int_equal(n.layers[cat].n_inputs, 3);
    assert_int_equal(n.layers[cat].inputs[0], a0);
    assert_int_equal(n.layers[cat].inputs[1], a1);
    assert_int_equal(n.layers[cat].inputs[2], oa);
    assert_int_equal(n.layers[cat].out.c, 12);
    /* "kernel": [1, "$k"] became 1x3 */
    assert_int_equal(n.layers[c1].kh, 1);
    assert_int_equal(n.layers[c1].kw, 3);
    assert_int_equal(n.layers[c1].out.h, 8);
    assert_int_equal(n.layers[c1].out.w, 8);
    cp_network_free(&n);
}

/* Blocks inside blocks: names nest ("outer.inner.conv"), and inside a block a
 * repeated instance is referred to by its local name ("rep.0", "rep"), just as
 * at top level. */
static void test_nested_block_names(void **state)
{
    (void)state;
    static const char text[] =
        "{\"format\": \"cnnperf-network/1\", \"name\": \"nested\","
        " \"input\": {\"channels\": 4, \"height\": 8, \"width\": 8},"
        " \"blocks\": {"
        "  \"unit\": {\"layers\": [{\"name\": \"conv\", \"kind\": \"conv\", \"out\": 4, \"kernel\": 3, \"pad\": 1}]},"
        "  \"pair\": {\"layers\": ["
        "   {\"name\": \"inner\", \"block\": \"unit\"},"
        "   {\"name\": \"rep\", \"block\": \"unit\", \"repeat\": 2},"
        "   {\"name\": \"cat\", \"kind\": \"concat\", \"inputs\": [\"inner\", \"rep.0\", \"rep\"]}]}"
        " },"
        " \"layers\": ["
        "  {\"name\": \"outer\", \"block\": \"pair\"},"
        "  {\"name\": \"relu\", \"kind\": \"relu\"}"
        " ]}";
    cp_network n;
    assert_int_equal(parse_text(text, &n), 0);
    int inner = find(&n, "outer.inner.conv");
    int r0 = find(&n, "outer.rep.0.conv"), r1 = find(&n, "outer.rep.1.conv");
    int cat = find(&n, "outer.cat");
    assert_int_equal(n.layers[inner].inputs[0], CP_INPUT_DATA);
    assert_int_equal(n.layers[r0].inputs[0], inner);
    assert_int_equal(n.layers[r1].inputs[0], r0);
    assert_int_equal(n.layers[cat].inputs[0], inner);
    assert_int_equal(n.layers[cat].inputs[1], r0);
    assert_int_equal(n.layers[cat].inputs[2], r1);
    assert_int_equal(n.layers[find(&n, "relu")].inputs[0], cat);
    cp_network_free(&n);
}

static void assert_lists(const char *msg, const char *const *names)
{
    assert_null(strchr(msg, '\n'));
    for (const char *const *p = names; *p; p++) {
        char quoted[64];
        /* a whole name of the list: preceded by ": " or ", " */
        snprintf(quoted, sizeof quoted, " %s", *p);
        if (!strstr(msg, quoted))
            fail_msg("message does not list '%s': %s", *p, msg);
    }
}

static void test_unknown_names_list_builtins(void **state)
{
    (void)state;
    cp_error err;
    memset(&err, 0, sizeof err);
    cp_network n;
    assert_int_not_equal(cp_network_load("resnet5", &n, &err), 0);
    assert_non_null(strstr(err.msg, "unknown network 'resnet5'"));
    static const char *const nets[] = {"lenet5", "alexnet", "vgg16", "resnet50", "resnet152", "mobilenet_v2",
                                       "densenet121", "squeezenet1_1", "inception_v3", "googlenet", NULL};
    assert_lists(err.msg, nets);
    cp_network_free(&n);

    memset(&err, 0, sizeof err);
    cp_device d;
    assert_int_not_equal(cp_device_load("h10", &d, &err), 0);
    assert_non_null(strstr(err.msg, "unknown device 'h10'"));
    static const char *const devs[] = {"gtx1080", "gtx1080ti", "v100", "a100", "h100", "h200", NULL};
    assert_lists(err.msg, devs);
}

/* A path that does not exist names the path, not a JSON path. */
static void test_missing_file(void **state)
{
    (void)state;
    static const char file[] = BAD_DIR "/no-such-network.json";
    cp_error err;
    memset(&err, 0, sizeof err);
    cp_network n;
    assert_int_not_equal(cp_network_load(file, &n, &err), 0);
    assert_true(starts_with(err.msg, file));
    assert_non_null(strstr(err.msg, "cannot open"));
    assert_null(strchr(err.msg, '\n'));
    cp_network_free(&n);

    memset(&err, 0, sizeof err);
    cp_device d;
    assert_int_not_equal(cp_device_load(BAD_DIR "/no-such-device.json", &d, &err), 0);
    assert_true(starts_with(err.msg, BAD_DIR "/no-such-device.json: "));
    assert_non_null(strstr(err.msg, "cannot open"));
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = calloc(1, 4096);
    size_t n = buf ? fread(buf, 1, 4095, f) : 0;
    (void)n;
    fclose(f);
    return buf;
}

/* cp_json_write_file: the text lands whole; a tree that cannot be written or
 * a folder that does not exist gives one line naming the file and leaves what
 * was there before, with no temporary beside it. */
static void test_json_write_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/cnnperf-jsonwrite-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], missing[256];
    snprintf(path, sizeof path, "%s/out.json", dir);
    snprintf(missing, sizeof missing, "%s/no-such-folder/out.json", dir);
    cp_error err;

    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "iteration_ms", 1.5);
    assert_int_equal(cp_json_write_file(path, root, true, &err), 0);
    char *text = read_all(path);
    assert_non_null(text);
    assert_string_equal(text, "{\"iteration_ms\":1.5}\n");
    free(text);

    memset(&err, 0, sizeof err);
    assert_int_equal(cp_json_write_file(path, NULL, true, &err), -1); /* a tree that was never built */
    assert_true(starts_with(err.msg, path));
    assert_null(strchr(err.msg, '\n'));
    text = read_all(path);
    assert_string_equal(text, "{\"iteration_ms\":1.5}\n");
    free(text);

    memset(&err, 0, sizeof err);
    assert_int_equal(cp_json_write_file(missing, cJSON_CreateObject(), false, &err), -1); /* freed, as promised */
    assert_true(starts_with(err.msg, missing));
    assert_non_null(strstr(err.msg, "cannot write"));

    DIR *d = opendir(dir);
    assert_non_null(d);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            entries++;
    closedir(d);
    assert_int_equal(entries, 1); /* out.json alone: no temporary left */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_every_file_is_tested),
        cmocka_unit_test(test_block_instance_names),
        cmocka_unit_test(test_nested_block_names),
        cmocka_unit_test(test_unknown_names_list_builtins),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_json_write_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
