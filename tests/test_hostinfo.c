/* What the measurement tools say about the node they ran on
 * (measure/hostinfo.c), read from a proc tree built here: the CPU model,
 * the NVIDIA driver's version and its GPUs in bus order, and what each
 * reader says when the files are not there (a machine without the driver). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/hostinfo.h"

static char root[64];

static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        mkdir(path, 0700);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int make_tree(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/cnnperf-hostinfo-XXXXXX");
    if (!mkdtemp(root))
        return -1;
    put("cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+  \n\n"
                   "processor\t: 1\nmodel name\t: something else\n");
    put("driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 30 2025\n"
                                 "GCC version:  gcc version 13.3.0\n");
    /* listed out of bus order; the second's name holds a quote */
    put("driver/nvidia/gpus/0000:c1:00.0/information", "Model: \t NVIDIA H100 \"80GB\" HBM3\nIRQ:   17\n");
    put("driver/nvidia/gpus/0000:18:00.0/information", "Model:           NVIDIA H200\nIRQ:   16\n");
    put("driver/nvidia/gpus/0000:3a:00.0/information", "IRQ:   18\n"); /* no Model line: skipped */
    return 0;
}

static int remove_tree(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_cpu_model_first_line(void **state)
{
    (void)state;
    char cpu[128];
    cm_cpu_model(root, cpu, sizeof cpu);
    assert_string_equal(cpu, "Intel(R) Xeon(R) Platinum 8480+");
}

static void test_driver_version(void **state)
{
    (void)state;
    char v[64];
    cm_driver_version(root, v, sizeof v);
    assert_string_equal(v, "580.95.05");
}

static void test_gpus_in_bus_order(void **state)
{
    (void)state;
    char names[4][CM_GPU_NAME_SIZE];
    assert_int_equal(cm_node_gpus(root, names, 4), 2);
    assert_string_equal(names[0], "NVIDIA H200");
    assert_string_equal(names[1], "NVIDIA H100 _80GB_ HBM3");
    /* no more than asked for */
    assert_int_equal(cm_node_gpus(root, names, 1), 1);
    assert_string_equal(names[0], "NVIDIA H200");
}

static void test_without_the_files(void **state)
{
    (void)state;
    char missing[128], s[64], names[2][CM_GPU_NAME_SIZE];
    snprintf(missing, sizeof missing, "%s/absent", root);
    cm_cpu_model(missing, s, sizeof s);
    assert_string_equal(s, "unknown");
    cm_driver_version(missing, s, sizeof s);
    assert_string_equal(s, "unknown");
    assert_int_equal(cm_node_gpus(missing, names, 2), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_model_first_line),
        cmocka_unit_test(test_driver_version),
        cmocka_unit_test(test_gpus_in_bus_order),
        cmocka_unit_test(test_without_the_files),
    };
    return cmocka_run_group_tests(tests, make_tree, remove_tree);
}
