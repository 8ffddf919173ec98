/* Tests of the block-size advisor (model/advisor.c, src/cmd_kernel.c):
 * hand-worked occupancy limits (Eq. 3-10, 3-14, 3-15), the recommendation
 * rule, every bad kernel file, and the command line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/advisor.h"
#include "src/commands.h"
#include "util/jsonread.h"

#ifndef CNNPERF_SOURCE_DIR
#error "CNNPERF_SOURCE_DIR must name the repository root"
#endif

#define BAD_DIR CNNPERF_SOURCE_DIR "/tests/data/bad"
#define EXAMPLES_DIR CNNPERF_SOURCE_DIR "/examples/kernels"

/* cmocka's assert_float_equal works in float; these values need double. */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static const char *const device_ids[] = {"h100", "h200", "a100", "v100", "gtx1080", "gtx1080ti"};
#define NDEV (sizeof device_ids / sizeof device_ids[0])

/* cp_advice is a few tens of KiB: one shared instance off the stack. */
static cp_advice advice;

static void load_device(const char *id, cp_device *d)
{
    cp_error err;
    int rc = cp_device_load(id, d, &err);
    if (rc)
        fail_msg("%s", err.msg);
}

/* A spec from JSON text, failing the test on a parse error. */
static void parse_spec(const char *json, cp_kernel_spec *s)
{
    cp_error err;
    if (cp_kernel_spec_parse(json, strlen(json), "inline.json", s, &err))
        fail_msg("%s", err.msg);
}

static const cp_advice_row *row_at(const cp_advice *a, int threads)
{
    for (int i = 0; i < a->count; i++)
        if (a->rows[i].threads == threads)
            return &a->rows[i];
    fail_msg("no row for %d threads", threads);
    return NULL;
}

/* --- Eq. 3-10: shared memory per thread caps the block -------------------- */

/* GTX 1080 shared memory (Table 3-2): M_MSB = 49152 B per block, M_MSM =
 * 98304 B per SM, allocated in 256 B units, nothing reserved. Set here
 * explicitly so the hand calculation does not depend on the profile. With
 * M_TS = 100 B per thread and 1024 B fixed per block,
 *   Eq. 3-10: N_TB <= (49152 - 1024) / 100 = 481.28 -> 480 is the largest
 *   multiple of 32; 512...1024 cannot launch.
 *   At 480 threads: M_BS = 1024 + 48000 = 49024 -> 49152 allocated;
 *   Eq. 3-9: N_BS <= 98304 / 49152 = 2, while threads allow 2048 / 480 = 4
 *   and registers (32 x 32 = 1024 per warp, 15 warps) 65536 / 15360 = 4:
 *   2 blocks, 30 of 64 warps, limited by shared memory.
 *   At 32 threads: M_BS = 4224 -> 4352; 98304 / 4352 = 22 < 32 (Eq. 3-3). */
static void test_smem_per_thread_limits_block(void **state)
{
    (void)state;
    cp_device d;
    load_device("gtx1080", &d);
    d.smem_per_block = 49152;
    d.smem_per_sm = 98304;
    d.smem_alloc_unit = 256;
    d.smem_reserved_per_block = 0;
    d.regs_per_sm = d.regs_per_block = 65536;
    d.reg_alloc_unit = 256;
    cp_kernel_spec s;
    parse_spec("{\"format\": \"cnnperf-kernel/1\", \"name\": \"smem_heavy\", \"total_threads\": 1048576,"
               " \"regs_per_thread\": 32, \"smem_per_thread\": 100, \"smem_per_block_fixed\": 1024,"
               " \"iterations\": 16, \"global_loads\": 1, \"shared_loads\": 8, \"compute\": 8, \"other\": 2}",
               &s);
    cp_error err;
    assert_int_equal(cp_advise(&s, &d, &advice, &err), 0);
    assert_int_equal(advice.count, 32);
    for (int t = 32; t <= 480; t += 32)
        assert_true(row_at(&advice, t)->feasible);
    for (int t = 512; t <= 1024; t += 32) {
        const cp_advice_row *r = row_at(&advice, t);
        assert_false(r->feasible);
        assert_non_null(strstr(r->reason, "Eq. 3-10"));
        assert_non_null(strstr(r->reason, "at most 481 threads"));
    }
    const cp_advice_row *r480 = row_at(&advice, 480);
    assert_int_equal(r480->smem, 49024);
    assert_int_equal(r480->eval.occ.blocks_per_sm, 2);
    assert_int_equal(r480->eval.occ.by_smem, 2);
    assert_int_equal(r480->eval.occ.by_threads, 4);
    assert_int_equal(r480->eval.occ.limiter, CP_LIMIT_SMEM);
    assert_int_equal(r480->eval.occ.active_warps, 30);
    const cp_advice_row *r32 = row_at(&advice, 32);
    assert_int_equal(r32->eval.occ.by_smem, 22);
    assert_int_equal(r32->eval.occ.limiter, CP_LIMIT_SMEM);
    assert_true(advice.rows[advice.best].threads <= 480);
}

/* --- Eq. 3-14/3-15: registers ---------------------------------------------- */

/* H100: 65536 registers per SM and per block, allocated per warp in units
 * of 256. 64 registers x 32 threads = 2048 per warp; a 1024-thread block
 * needs 32 x 2048 = 65536, exactly R_MRB, so it launches, but only one fits
 * (Eq. 3-14) where threads alone would allow 2048 / 1024 = 2: 50 %. */
static void test_registers_limit_occupancy_at_1024(void **state)
{
    (void)state;
    cp_device d;
    load_device("h100", &d);
    d.regs_per_sm = d.regs_per_block = 65536;
    d.reg_alloc_unit = 256;
    cp_kernel_spec s;
    parse_spec("{\"format\": \"cnnperf-kernel/1\", \"name\": \"reg_heavy\", \"total_threads\": 4194304,"
               " \"regs_per_thread\": 64, \"iterations\": 32, \"global_loads\": 1, \"compute\": 64,"
               " \"global_stores\": 0.03125, \"other\": 4}",
               &s);
    cp_error err;
    assert_int_equal(cp_advise(&s, &d, &advice, &err), 0);
    const cp_advice_row *r = row_at(&advice, 1024);
    assert_true(r->feasible);
    assert_int_equal(r->eval.occ.limiter, CP_LIMIT_REGS);
    assert_int_equal(r->eval.occ.by_regs, 1);
    assert_int_equal(r->eval.occ.by_threads, 2);
    assert_int_equal(r->eval.occ.blocks_per_sm, 1);
    assert_near(r->eval.occ.occupancy, 0.5, 1e-12);
}

/* 72 registers: 2304 per warp; Eq. 3-15 allows 65536 / 2304 = 28 warps =
 * 896 threads; 928 and up cannot launch. */
static void test_registers_cap_block_size(void **state)
{
    (void)state;
    cp_device d;
    load_device("h100", &d);
    d.regs_per_sm = d.regs_per_block = 65536;
    d.reg_alloc_unit = 256;
    cp_kernel_spec s;
    parse_spec("{\"format\": \"cnnperf-kernel/1\", \"name\": \"reg72\", \"total_threads\": 1000000,"
               " \"regs_per_thread\": 72, \"compute\": 100, \"global_loads\": 1, \"global_stores\": 1}",
               &s);
    cp_error err;
    assert_int_equal(cp_advise(&s, &d, &advice, &err), 0);
    assert_true(row_at(&advice, 896)->feasible);
    for (int t = 928; t <= 1024; t += 32) {
        assert_false(row_at(&advice, t)->feasible);
        assert_non_null(strstr(row_at(&advice, t)->reason, "registers"));
    }
    /* ceil(1000000 / 896) blocks */
    assert_int_equal(row_at(&advice, 896)->blocks, 1117);
}

/* --- the recommendation rule ------------------------------------------------- */

static void check_recommendation(const cp_advice *a, const char *what)
{
    assert_true(a->best >= 0 && a->best < a->count);
    const cp_advice_row *b = &a->rows[a->best];
    assert_true(b->feasible);
    for (int i = 0; i < a->count; i++) {
        const cp_advice_row *r = &a->rows[i];
        if (!r->feasible)
            continue;
        /* Never slower than another size beyond the 0.5 % tie window ... */
        if (b->time_us > r->time_us * 1.005 + 1e-9)
            fail_msg("%s: recommended %d threads (%.3f us) is slower than %d threads (%.3f us)", what, b->threads,
                     b->time_us, r->threads, r->time_us);
        /* ... and inside it, only for higher occupancy or a smaller block. */
        if (r->time_us < b->time_us) {
            assert_true(b->eval.occ.active_warps > r->eval.occ.active_warps ||
                        (b->eval.occ.active_warps == r->eval.occ.active_warps && b->threads < r->threads));
        }
    }
}

static void for_each_example(void (*fn)(const char *path))
{
    DIR *dir = opendir(EXAMPLES_DIR);
    assert_non_null(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", EXAMPLES_DIR, e->d_name);
        fn(path);
        n++;
    }
    closedir(dir);
    assert_true(n >= 3);
}

static void recommend_on_all_devices(const char *path)
{
    cp_kernel_spec s;
    cp_error err;
    if (cp_kernel_spec_load(path, &s, &err))
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < NDEV; i++) {
        cp_device d;
        load_device(device_ids[i], &d);
        if (cp_advise(&s, &d, &advice, &err))
            fail_msg("%s on %s: %s", path, device_ids[i], err.msg);
        char what[1100];
        snprintf(what, sizeof what, "%s on %s", path, device_ids[i]);
        check_recommendation(&advice, what);
    }
}

static void test_recommended_never_slower(void **state)
{
    (void)state;
    for_each_example(recommend_on_all_devices);
}

static void example_has_description(const char *path)
{
    size_t len;
    cp_error err;
    char *text = cp_read_file(path, &len, &err);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    assert_true(cJSON_IsString(desc) && strlen(desc->valuestring) > 40);
    cJSON_Delete(root);
}

static void test_examples_are_described(void **state)
{
    (void)state;
    for_each_example(example_has_description);
}

/* A DRAM-bound kernel takes the same time at every size, so the tie rule
 * decides: 32 threads reach only 50 % (32 blocks per SM, Eq. 3-3), 64 is the
 * smallest block with full occupancy. */
static void test_ties_prefer_occupancy_then_small_blocks(void **state)
{
    (void)state;
    cp_device d;
    load_device("h100", &d);
    cp_kernel_spec s;
    parse_spec("{\"format\": \"cnnperf-kernel/1\", \"name\": \"copy\", \"total_threads\": 268435456,"
               " \"regs_per_thread\": 16, \"global_loads\": 1, \"global_stores\": 1, \"other\": 2}",
               &s);
    cp_error err;
    assert_int_equal(cp_advise(&s, &d, &advice, &err), 0);
    assert_int_equal(advice.rows[advice.best].threads, 64);
    assert_near(advice.rows[advice.best].eval.occ.occupancy, 1.0, 1e-12);
    check_recommendation(&advice, "copy");
}

/* Eq. 3-25: R_Co = N_Co / (N_Co + N_Unco). */
static void test_coalescing_from_request_counts(void **state)
{
    (void)state;
    cp_kernel_spec s;
    parse_spec("{\"format\": \"cnnperf-kernel/1\", \"name\": \"c\", \"total_threads\": 1024,"
               " \"regs_per_thread\": 16, \"global_loads\": 1, \"coalesced_requests\": 5,"
               " \"uncoalesced_requests\": 2}",
               &s);
    assert_near(s.coalesced, 5.0 / 7.0, 1e-12);
    /* Uncoalesced accesses cost time: the same kernel fully coalesced is faster. */
    cp_kernel_spec co = s;
    co.coalesced = 1.0;
    co.total_threads = s.total_threads = 1 << 24;
    cp_device d;
    load_device("h100", &d);
    cp_kernel_eval e1, e2;
    cp_error err;
    cp_kernel k1 = cp_kernel_spec_instance(&s, &d, 256), k2 = cp_kernel_spec_instance(&co, &d, 256);
    assert_int_equal(cp_kernel_evaluate(&k1, &d, &e1, &err), 0);
    assert_int_equal(cp_kernel_evaluate(&k2, &d, &e2, &err), 0);
    assert_true(e1.time_ms > e2.time_ms);
}

/* The per-thread description scales to warp instructions per block. */
static void test_instance_scales_with_block(void **state)
{
    (void)state;
    cp_device d;
    load_device("h100", &d);
    cp_kernel_spec s;
    parse_spec("{\"format\": \"cnnperf-kernel/1\", \"name\": \"scale\", \"total_threads\": 100000,"
               " \"regs_per_thread\": 32, \"smem_per_thread\": 8, \"smem_per_block_fixed\": 512,"
               " \"iterations\": 10, \"global_loads\": 2, \"shared_loads\": 3, \"compute\": 4,"
               " \"global_stores\": 0.5, \"other\": 1, \"bytes_per_access\": 8}",
               &s);
    cp_kernel k = cp_kernel_spec_instance(&s, &d, 256);
    assert_int_equal(k.threads, 256);
    assert_int_equal(k.blocks, 391); /* ceil(100000 / 256) */
    assert_int_equal(k.smem, 512 + 256 * 8);
    assert_int_equal(k.iters, 10);
    assert_near(k.I, 2 * 8, 1e-12); /* 8 warps */
    assert_near(k.M, 3 * 8, 1e-12);
    assert_near(k.L, 4 * 8, 1e-12);
    assert_near(k.K, 0.5 * 8, 1e-12);
    assert_near(k.other, 8, 1e-12);
    assert_near(k.ld_bytes, 8 * 32, 1e-12);
    /* default DRAM traffic: every access, 100000 x 10 x 2.5 x 8 B */
    assert_near(k.dram_bytes, 100000.0 * 10 * 2.5 * 8, 1e-6);
}

/* --- nothing can launch: an error naming the limit --------------------------- */

static void test_no_feasible_size_is_an_error(void **state)
{
    (void)state;
    cp_device d;
    load_device("h100", &d);
    cp_kernel_spec s;
    cp_error err;
    parse_spec("{\"format\": \"cnnperf-kernel/1\", \"name\": \"too_many_regs\", \"total_threads\": 1024,"
               " \"regs_per_thread\": 300, \"compute\": 1}",
               &s);
    assert_int_equal(cp_advise(&s, &d, &advice, &err), -1);
    assert_non_null(strstr(err.msg, "inline.json"));
    assert_non_null(strstr(err.msg, "300 registers"));

    parse_spec("{\"format\": \"cnnperf-kernel/1\", \"name\": \"too_much_smem\", \"total_threads\": 1024,"
               " \"regs_per_thread\": 32, \"smem_per_block_fixed\": 1000000, \"compute\": 1}",
               &s);
    assert_int_equal(cp_advise(&s, &d, &advice, &err), -1);
    assert_non_null(strstr(err.msg, "shared memory"));
}

/* --- bad kernel files ----------------------------------------------------------- */

typedef struct {
    const char *file;
    const char *path; /* JSON path the message must name */
    const char *words;
} bad_case;

static const bad_case bad_cases[] = {
    {"kernel-malformed.json", "$", "malformed JSON"},
    {"kernel-empty.json", "$", "empty"},
    {"kernel-not-object.json", "$", "object"},
    {"kernel-unknown-field.json", "$.threads_per_block", "unknown field"},
    {"kernel-missing-total-threads.json", "$.total_threads", "missing"},
    {"kernel-missing-format.json", "$.format", "missing"},
    {"kernel-wrong-format.json", "$.format", "cnnperf-kernel/1"},
    {"kernel-zero-regs.json", "$.regs_per_thread", "positive integer"},
    {"kernel-negative-loads.json", "$.global_loads", "got -2"},
    {"kernel-negative-smem.json", "$.smem_per_thread", "got -8"},
    {"kernel-coalesced-ratio-1.5.json", "$.coalesced_ratio", "got 1.5"},
    {"kernel-string-number.json", "$.total_threads", "integer"},
    {"kernel-fractional-threads.json", "$.total_threads", "integer"},
    {"kernel-bytes-per-access-12.json", "$.bytes_per_access", "got 12"},
    {"kernel-both-coalescing-forms.json", "$.coalesced_ratio", "not both"},
    {"kernel-zero-requests.json", "$.coalesced_requests", "positive"},
    {"kernel-no-instructions.json", "$", "no instructions"},
    {"kernel-precision-tf32.json", "$.precision", "tf32"},
};
#define NBAD (sizeof bad_cases / sizeof bad_cases[0])

static void test_bad_kernel_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < NBAD; i++) {
        char file[1024], want[128];
        snprintf(file, sizeof file, "%s/%s", BAD_DIR, bad_cases[i].file);
        snprintf(want, sizeof want, "%s: ", bad_cases[i].path);
        cp_kernel_spec s;
        cp_error err;
        memset(&err, 0, sizeof err);
        if (cp_kernel_spec_load(file, &s, &err) == 0)
            fail_msg("%s: loaded, expected an error at %s", bad_cases[i].file, bad_cases[i].path);
        if (!strstr(err.msg, bad_cases[i].file) || !strstr(err.msg, want) || !strstr(err.msg, bad_cases[i].words))
            fail_msg("%s: message '%s' should name the file, '%s' and '%s'", bad_cases[i].file, err.msg,
                     bad_cases[i].path, bad_cases[i].words);
        assert_null(strchr(err.msg, '\n'));
    }
}

/* Every kernel-*.json under tests/data/bad has an expectation above. */
static void test_bad_files_all_listed(void **state)
{
    (void)state;
    DIR *dir = opendir(BAD_DIR);
    assert_non_null(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (strncmp(e->d_name, "kernel-", 7) != 0)
            continue;
        int listed = 0;
        for (size_t i = 0; i < NBAD && !listed; i++)
            listed = strcmp(bad_cases[i].file, e->d_name) == 0;
        if (!listed)
            fail_msg("%s has no expected JSON path in test_advisor.c", e->d_name);
        n++;
    }
    closedir(dir);
    assert_int_equal(n, (int)NBAD);
}

/* --- the command line ------------------------------------------------------------ */

static int run_cli(int argc, const char *const *args)
{
    char *argv[16];
    for (int i = 0; i < argc; i++)
        argv[i] = (char *)args[i];
    argv[argc] = NULL;
    return cp_cmd_kernel(argc, argv);
}

static void test_cli_json_output(void **state)
{
    (void)state;
    char out[256];
    snprintf(out, sizeof out, "/tmp/cnnperf-test-advisor-%ld.json", (long)getpid());
    const char *args[] = {"kernel", "--kernel", EXAMPLES_DIR "/tiled_matmul.json", "--device", "gtx1080",
                          "--format", "json", "-o", out};
    assert_int_equal(run_cli(9, args), 0);
    size_t len;
    cp_error err;
    char *text = cp_read_file(out, &len, &err);
    remove(out);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "rows");
    assert_int_equal(cJSON_GetArraySize(rows), 32);
    /* 64 B per thread: 49152 / 64 = 768 threads at most on a GTX 1080 (Eq. 3-10). */
    const cJSON *r768 = cJSON_GetArrayItem(rows, 23), *r800 = cJSON_GetArrayItem(rows, 24);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(r768, "threads")->valueint, 768);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r768, "time_us")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r800, "time_us")));
    assert_non_null(strstr(cJSON_GetObjectItemCaseSensitive(r800, "note")->valuestring, "Eq. 3-10"));
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(root, "recommended_threads");
    assert_true(cJSON_IsNumber(rec) && rec->valueint <= 768);
    cJSON_Delete(root);
}

static void test_cli_bad_input_exits_2(void **state)
{
    (void)state;
    const char *no_kernel[] = {"kernel", "--device", "h100"};
    assert_int_equal(run_cli(3, no_kernel), 2);
    const char *bad_file[] = {"kernel", "--kernel", BAD_DIR "/kernel-zero-regs.json"};
    assert_int_equal(run_cli(3, bad_file), 2);
    const char *bad_format[] = {"kernel", "--kernel", EXAMPLES_DIR "/vector_add.json", "--format", "xml"};
    assert_int_equal(run_cli(5, bad_format), 2);
    const char *bad_device[] = {"kernel", "--kernel", EXAMPLES_DIR "/vector_add.json", "--device", "nosuchgpu"};
    assert_int_equal(run_cli(5, bad_device), 2);
    const char *dangling[] = {"kernel", "--kernel"};
    assert_int_equal(run_cli(2, dangling), 2);
    const char *unknown[] = {"kernel", "--blocksize", "256"};
    assert_int_equal(run_cli(3, unknown), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_smem_per_thread_limits_block),
        cmocka_unit_test(test_registers_limit_occupancy_at_1024),
        cmocka_unit_test(test_registers_cap_block_size),
        cmocka_unit_test(test_recommended_never_slower),
        cmocka_unit_test(test_examples_are_described),
        cmocka_unit_test(test_ties_prefer_occupancy_then_small_blocks),
        cmocka_unit_test(test_coalescing_from_request_counts),
        cmocka_unit_test(test_instance_scales_with_block),
        cmocka_unit_test(test_no_feasible_size_is_an_error),
        cmocka_unit_test(test_bad_kernel_files),
        cmocka_unit_test(test_bad_files_all_listed),
        cmocka_unit_test(test_cli_json_output),
        cmocka_unit_test(test_cli_bad_input_exits_2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
