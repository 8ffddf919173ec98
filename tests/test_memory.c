/* The harness's memory footprint (model/memory.c): a network small enough
 * to count its buffers by hand, and the fit decision on configurations
 * cnnperf-measure ran or failed to allocate on an H100. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "model/memory.h"

/* conv -> relu -> conv, added to the relu's output -> flatten -> fc -> loss */
static const char *const small_net =
    "{\"format\":\"cnnperf-network/1\",\"name\":\"m\",\"input\":{\"channels\":3,\"height\":8,\"width\":8},"
    "\"layers\":[{\"name\":\"c1\",\"kind\":\"conv\",\"out\":4,\"kernel\":3,\"pad\":1},"
    "{\"name\":\"r1\",\"kind\":\"relu\"},"
    "{\"name\":\"c2\",\"kind\":\"conv\",\"out\":4,\"kernel\":3,\"pad\":1},"
    "{\"name\":\"a\",\"kind\":\"add\",\"inputs\":[\"c2\",\"r1\"]},"
    "{\"name\":\"f\",\"kind\":\"flatten\"},"
    "{\"name\":\"fc\",\"kind\":\"fc\",\"out\":10},"
    "{\"name\":\"loss\",\"kind\":\"softmax\"}]}";

static void load(cp_network *n, cp_device *d)
{
    cp_error err;
    if (cp_network_parse(small_net, strlen(small_net), "m.json", n, &err) || cp_device_load("h100", d, &err))
        fail_msg("%s", err.msg);
}

static void test_counted_by_hand(void **state)
{
    (void)state;
    cp_network n;
    cp_device d;
    load(&n, &d);
    cp_memory m;
    cp_memory_harness(&n, &d, 2, CP_PREC_FP32, &m);
    /* the batch 2x3x8x8, labels and losses, c1 r1 c2 a (4x8x8 each), fc and
     * loss (10 each); flatten is a's memory */
    assert_true(m.activations == 1536 + 16 + 4 * 2048 + 80 + 80);
    /* own gradients: c1, r1 (two readers), f (fc reads it), fc; c2 and a
     * take theirs from a and f, the loss seeds its own; scratch 2048 */
    assert_true(m.gradients == 2048 + 2048 + 2048 + 80 + 2048);
    /* 112, 148 and 2570 parameters, each from a multiple of 128, 12 bytes each */
    assert_true(m.params == 12.0 * (128 + 256 + 2688));
    /* the peak: both parameter copies while they are made one flat buffer */
    assert_true(m.total - m.runtime == m.activations + 2 * m.params);
    assert_true(m.runtime > 0);

    cp_memory h;
    cp_memory_harness(&n, &d, 2, CP_PREC_FP16, &h);
    assert_true(h.activations == 768 + 16 + 4 * 1024 + 40 + 40);
    assert_true(h.params == m.params); /* FP32 master weights and momentum beside 16-bit copies */
    cp_network_free(&n);
}

typedef struct {
    const char *net;
    int batch;
    cp_precision prec;
    bool fits;
} fit_case;

/* cnnperf-measure on an H100 (80 GB HBM3, 79.2 GiB to CUDA): these ran
 * (validation/h100/) or failed to allocate (session 27's holdouts). */
static const fit_case h100_cases[] = {
    {"resnext50_32x4d", 224, CP_PREC_FP32, true}, /* holdout28 */
    {"resnet50", 256, CP_PREC_FP32, true},        /* graph-api, and the legacy API */
    {"vgg16", 224, CP_PREC_FP32, true},           /* holdout26 */
    {"resnet152", 168, CP_PREC_FP32, false},      /* holdout27's draw, out of memory */
    {"densenet169", 240, CP_PREC_FP32, false},    /* holdout27, out of memory */
    {"densenet169", 192, CP_PREC_FP32, false},    /* holdout28, out of memory */
};

static void test_fits_as_measured(void **state)
{
    (void)state;
    cp_device d;
    cp_error err;
    if (cp_device_load("h100", &d, &err))
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < sizeof h100_cases / sizeof h100_cases[0]; i++) {
        const fit_case *c = &h100_cases[i];
        cp_network n;
        if (cp_network_load(c->net, &n, &err))
            fail_msg("%s", err.msg);
        cp_memory m;
        cp_memory_harness(&n, &d, c->batch, c->prec, &m);
        if (m.fits != c->fits)
            fail_msg("%s b%d: %.1f GiB of %.1f, predicted %s", c->net, c->batch, m.total / 1073741824.0,
                     m.device / 1073741824.0, m.fits ? "to fit" : "not to fit");
        cp_network_free(&n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counted_by_hand),
        cmocka_unit_test(test_fits_as_measured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
