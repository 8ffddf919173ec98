/* Every shipped network loads, chains its shapes and has exactly the
 * parameter count torchvision reports (LeNet-5: the classic 61,706). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "networks/network.h"

typedef struct {
    const char *name;
    long long params;
    int layers;
    int classes;
    int in_c, in_hw;
} expect;

static const expect shipped[] = {
    {"lenet5", 61706, 13, 10, 1, 32},
    {"alexnet", 61100840, 23, 1000, 3, 224},
    {"vgg11", 132863336, 31, 1000, 3, 224},
    {"vgg16", 138357544, 41, 1000, 3, 224},
    {"vgg19", 143667240, 47, 1000, 3, 224},
    {"googlenet", 6624904, 198, 1000, 3, 224},
    {"inception_v3", 23834568, 315, 1000, 3, 299},
    {"resnet18", 11689512, 70, 1000, 3, 224},
    {"resnet34", 21797672, 126, 1000, 3, 224},
    {"resnet50", 25557032, 176, 1000, 3, 224},
    {"resnet101", 44549160, 346, 1000, 3, 224},
    {"resnet152", 60192808, 516, 1000, 3, 224},
    {"mobilenet_v2", 3504872, 154, 1000, 3, 224},
    {"densenet121", 7978856, 428, 1000, 3, 224},
    {"squeezenet1_1", 1235496, 67, 1000, 3, 224},
    /* added in session 27 for networks neither validation set had seen */
    {"vgg13", 133047848, 35, 1000, 3, 224},
    {"resnext50_32x4d", 25028904, 176, 1000, 3, 224},
    {"wide_resnet50_2", 68883240, 176, 1000, 3, 224},
    {"densenet169", 14149480, 596, 1000, 3, 224},
    {"mnasnet1_0", 4383312, 154, 1000, 3, 224},
};

static void test_shipped_networks(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        const expect *e = &shipped[i];
        cp_network n;
        cp_error err = {{0}};
        int rc = cp_network_load(e->name, &n, &err);
        if (rc)
            fail_msg("%s: %s", e->name, err.msg);
        if (n.params != e->params)
            fail_msg("%s: %lld parameters, expected %lld", e->name, n.params, e->params);
        assert_int_equal(n.n_layers, e->layers);
        assert_int_equal(n.input.c, e->in_c);
        assert_int_equal(n.input.h, e->in_hw);
        /* The last layer is the loss over a flat vector of classes. */
        const cp_layer *last = &n.layers[n.n_layers - 1];
        assert_string_equal(last->kind->name, "softmax");
        assert_int_equal(last->out.c, e->classes);
        assert_int_equal(last->out.h, 1);
        assert_int_equal(last->out.w, 1);
        cp_network_free(&n);
    }
}

static const cp_layer *layer(const cp_network *n, const char *name)
{
    int i = cp_network_find(n, name);
    if (i < 0)
        fail_msg("no layer %s in %s", name, n->name);
    return &n->layers[i];
}

static void assert_shape(const cp_layer *l, int c, int h, int w)
{
    if (l->out.c != c || l->out.h != h || l->out.w != w)
        fail_msg("%s: output %dx%dx%d, expected %dx%dx%d", l->name, l->out.c, l->out.h, l->out.w, c, h, w);
}

/* Intermediate shapes as torchvision computes them. */
static void test_intermediate_shapes(void **state)
{
    (void)state;
    cp_network n;
    cp_error err;
    assert_int_equal(cp_network_load("resnet50", &n, &err), 0);
    assert_shape(layer(&n, "conv1"), 64, 112, 112);
    assert_shape(layer(&n, "maxpool"), 64, 56, 56);
    assert_shape(layer(&n, "layer1.0.relu"), 256, 56, 56);
    assert_shape(layer(&n, "layer2.0.relu"), 512, 28, 28);
    assert_shape(layer(&n, "layer4.0.relu"), 2048, 7, 7);
    /* stride on the 3x3 conv (ResNet v1.5) */
    assert_shape(layer(&n, "layer2.0.conv1"), 128, 56, 56);
    assert_shape(layer(&n, "layer2.0.conv2"), 128, 28, 28);
    cp_network_free(&n);

    assert_int_equal(cp_network_load("alexnet", &n, &err), 0);
    assert_shape(layer(&n, "features.0"), 64, 55, 55);
    cp_network_free(&n);

    assert_int_equal(cp_network_load("inception_v3", &n, &err), 0);
    int found7 = 0;
    for (int i = 0; i < n.n_layers; i++)
        found7 += n.layers[i].out.h == 8 && n.layers[i].out.c == 2048;
    assert_true(found7 > 0); /* Mixed_7c: 2048x8x8 */
    cp_network_free(&n);

    assert_int_equal(cp_network_load("googlenet", &n, &err), 0);
    int found = 0;
    for (int i = 0; i < n.n_layers; i++)
        found += strcmp(n.layers[i].kind->name, "concat") == 0 && n.layers[i].out.c == 1024 &&
                 n.layers[i].out.h == 7;
    assert_true(found > 0); /* inception5b: 1024x7x7 */
    cp_network_free(&n);
}

/* The first layer needs no input gradient; forks are counted. */
static void test_graph_facts(void **state)
{
    (void)state;
    cp_network n;
    cp_error err;
    assert_int_equal(cp_network_load("resnet18", &n, &err), 0);
    assert_false(layer(&n, "conv1")->needs_input_grad);
    assert_true(layer(&n, "bn1")->needs_input_grad);
    assert_int_equal(layer(&n, "maxpool")->consumers, 2); /* residual fork */
    cp_network_free(&n);
}

/* Block expansion and naming rules of networks/FORMAT.md. */
static void test_blocks(void **state)
{
    (void)state;
    const char *text =
        "{\"format\":\"cnnperf-network/1\",\"name\":\"t\",\"input\":{\"channels\":4,\"height\":8,\"width\":8},"
        "\"blocks\":{\"b\":{\"args\":[\"o\",\"k\"],\"layers\":["
        "{\"name\":\"c\",\"kind\":\"conv\",\"out\":\"$o\",\"kernel\":[1,\"$k\"],\"pad\":[0,1]},"
        "{\"name\":\"r\",\"kind\":\"relu\"},{\"name\":\"a\",\"kind\":\"add\",\"inputs\":[\"r\",\"@in\"]}]}},"
        "\"layers\":[{\"name\":\"s\",\"block\":\"b\",\"repeat\":2,\"with\":{\"o\":4,\"k\":3}},"
        "{\"name\":\"one\",\"block\":\"b\",\"with\":{\"o\":4,\"k\":3},\"inputs\":[\"s.0\"]},"
        "{\"name\":\"cat\",\"kind\":\"concat\",\"inputs\":[\"s\",\"one\"]}]}";
    cp_network n;
    cp_error err;
    if (cp_network_parse(text, strlen(text), "t.json", &n, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(n.n_layers, 10);
    assert_string_equal(n.layers[0].name, "s.0.c");
    assert_string_equal(n.layers[3].name, "s.1.c");
    assert_string_equal(n.layers[6].name, "one.c");
    assert_int_equal(n.layers[0].kw, 3);
    assert_int_equal(n.layers[0].kh, 1);
    /* one.c reads s.0's output (its add), cat joins s (= s.1) and one */
    assert_int_equal(n.layers[6].inputs[0], 2);
    assert_int_equal(n.layers[9].inputs[0], 5);
    assert_int_equal(n.layers[9].inputs[1], 8);
    assert_int_equal(n.layers[9].out.c, 8);
    assert_int_equal(n.params, 3 * (4 * 4 * 3 + 4));
    cp_network_free(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_networks),
        cmocka_unit_test(test_intermediate_shapes),
        cmocka_unit_test(test_graph_facts),
        cmocka_unit_test(test_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
