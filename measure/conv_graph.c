/* Convolutions through cuDNN's graph API: one operation graph per pass, an
 * engine chosen as PyTorch's cudnn.benchmark chooses (conv_graph.h). */
#include "conv_graph.h"

#include <stdint.h>

typedef cudnnBackendDescriptor_t desc_t;

/* The tensors' unique ids in every variant pack: by shape, whatever the pass. */
enum { UID_X = 1, UID_W = 2, UID_Y = 3 };

enum { D_X, D_W, D_Y, D_CONV, D_OP, D_GRAPH, D_COUNT };

struct cm_conv_plan {
    desc_t d[D_COUNT]; /* what the plan was built from, kept for its lifetime */
    desc_t cfg, plan;
    size_t workspace;
    long long engine;
};

static desc_t make(cudnnBackendDescriptorType_t type)
{
    desc_t d;
    cudnnCheck(cudnnBackendCreateDescriptor(type, &d));
    return d;
}

#define SET(d, name, type, count, values) cudnnCheck(cudnnBackendSetAttribute((d), (name), (type), (count), (values)))

static desc_t tensor(int64_t uid, cudnnDataType_t type, int64_t n, int64_t c, int64_t h, int64_t w)
{
    int64_t dims[4] = {n, c, h, w}, strides[4] = {c * h * w, h * w, w, 1}, align = 16;
    desc_t d = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    SET(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
    SET(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
    SET(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
    SET(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    SET(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
    cudnnCheck(cudnnBackendFinalize(d));
    return d;
}

static desc_t convolution(const cm_conv_shape *s)
{
    cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    int64_t dims = 2, pad[2] = {s->ph, s->pw}, stride[2] = {s->sh, s->sw}, dilation[2] = {s->dh, s->dw};
    desc_t d = make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    SET(d, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
    SET(d, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    SET(d, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims);
    SET(d, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
    SET(d, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
    SET(d, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, stride);
    SET(d, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dilation);
    cudnnCheck(cudnnBackendFinalize(d));
    return d;
}

/* The operation of one pass; its attribute names are the pass's own. */
static desc_t operation(int pass, desc_t conv, desc_t x, desc_t w, desc_t y)
{
    static const cudnnBackendDescriptorType_t type[3] = {
        CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR};
    /* alpha, beta, convolution, x, w, y */
    static const cudnnBackendAttributeName_t attr[3][6] = {
        {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
         CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
         CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y},
        {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
         CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
         CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY},
        {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
         CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
         CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY}};
    float alpha = 1.0f, beta = 0.0f; /* FLOAT: the compute type's own */
    desc_t d = make(type[pass]);
    SET(d, attr[pass][0], CUDNN_TYPE_FLOAT, 1, &alpha);
    SET(d, attr[pass][1], CUDNN_TYPE_FLOAT, 1, &beta);
    SET(d, attr[pass][2], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv);
    SET(d, attr[pass][3], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    SET(d, attr[pass][4], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
    SET(d, attr[pass][5], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    cudnnCheck(cudnnBackendFinalize(d));
    return d;
}

static void destroy(desc_t *d)
{
    if (*d)
        cudnnBackendDestroyDescriptor(*d);
    *d = NULL;
}

/* The engine configurations one heuristic mode lists for the graph, at most
 * max; each a descriptor the caller destroys. */
static int heuristic_configs(desc_t graph, cudnnBackendHeurMode_t mode, desc_t *out, int max)
{
    desc_t heur = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    SET(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    SET(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
    int64_t count = 0;
    if (cudnnBackendFinalize(heur) != CUDNN_STATUS_SUCCESS ||
        cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                 NULL) != CUDNN_STATUS_SUCCESS) {
        destroy(&heur);
        return 0;
    }
    if (count > max)
        count = max;
    for (int64_t i = 0; i < count; i++)
        out[i] = make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    int64_t got = 0;
    if (count > 0 && cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                              count, &got, out) != CUDNN_STATUS_SUCCESS)
        got = 0;
    for (int64_t i = got; i < count; i++)
        destroy(&out[i]);
    destroy(&heur);
    return (int)got;
}

/* Whether the engine's notes under attr (numerical or behaviour notes, both
 * enums) include one of bad[]. */
static bool has_note(desc_t eng, cudnnBackendAttributeName_t attr, cudnnBackendAttributeType_t type,
                     const int *bad, int n_bad)
{
    int notes[32]; /* more than either kind of note has */
    int64_t n = 0;
    if (cudnnBackendGetAttribute(eng, attr, type, 32, &n, notes) != CUDNN_STATUS_SUCCESS)
        return false;
    for (int64_t i = 0; i < n; i++)
        for (int j = 0; j < n_bad; j++)
            if (notes[i] == bad[j])
                return true;
    return false;
}

/* Whether PyTorch's filters (and ours) keep the configuration's engine; its
 * global index in *engine. */
static bool wanted(desc_t cfg, bool fp32_exact, long long *engine)
{
    desc_t eng = make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    int64_t got = 0, index = -1;
    bool keep = cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got,
                                         &eng) == CUDNN_STATUS_SUCCESS &&
                got == 1;
    if (keep && cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got, &index) !=
                    CUDNN_STATUS_SUCCESS)
        index = -1;
    /* down-converting inputs always out; tensor cores (TF32) out in exact fp32 */
    const int numerical[2] = {CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS, CUDNN_NUMERICAL_NOTE_TENSOR_CORE};
    const int behaviour[1] = {CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION};
    keep = keep &&
           !has_note(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, numerical, fp32_exact ? 2 : 1) &&
           !has_note(eng, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, behaviour, 1);
    destroy(&eng);
    *engine = index;
    return keep;
}

/* An execution plan for cfg, or NULL where the engine cannot run this graph. */
static desc_t build_plan(cudnnHandle_t h, desc_t cfg, size_t *workspace)
{
    desc_t plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    SET(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    SET(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
    int64_t ws = 0, got = 0;
    if (cudnnBackendFinalize(plan) != CUDNN_STATUS_SUCCESS ||
        cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got, &ws) !=
            CUDNN_STATUS_SUCCESS ||
        ws < 0) {
        destroy(&plan);
        return NULL;
    }
    *workspace = (size_t)ws;
    return plan;
}

enum { MAX_CONFIGS = 64 };

cm_conv_plan *cm_conv_graph_choose(cudnnHandle_t h, const cm_conv_shape *s, int pass, size_t ws_limit,
                                   cm_conv_timer timer, void *ctx, double *best_us, int *timed)
{
    desc_t d[D_COUNT];
    d[D_X] = tensor(UID_X, s->type, s->n, s->c, s->h, s->w);
    d[D_W] = tensor(UID_W, s->type, s->k, s->c / s->groups, s->r, s->s);
    d[D_Y] = tensor(UID_Y, s->type, s->n, s->k, s->oh, s->ow);
    d[D_CONV] = convolution(s);
    d[D_OP] = operation(pass, d[D_CONV], d[D_X], d[D_W], d[D_Y]);
    d[D_GRAPH] = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    SET(d[D_GRAPH], CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d[D_OP]);
    SET(d[D_GRAPH], CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    cm_conv_plan *best = NULL;
    *timed = 0;
    if (cudnnBackendFinalize(d[D_GRAPH]) == CUDNN_STATUS_SUCCESS) {
        static const cudnnBackendHeurMode_t modes[2] = {CUDNN_HEUR_MODE_INSTANT, CUDNN_HEUR_MODE_FALLBACK};
        for (int m = 0; m < 2 && *timed < CM_CONV_GRAPH_BENCH_LIMIT; m++) {
            desc_t cfg[MAX_CONFIGS];
            int n_cfg = heuristic_configs(d[D_GRAPH], modes[m], cfg, MAX_CONFIGS);
            for (int i = 0; i < n_cfg; i++) {
                cm_conv_plan c = {.cfg = cfg[i]};
                cfg[i] = NULL;
                if (*timed < CM_CONV_GRAPH_BENCH_LIMIT && wanted(c.cfg, s->fp32_exact, &c.engine) &&
                    (c.plan = build_plan(h, c.cfg, &c.workspace)) != NULL && c.workspace <= ws_limit) {
                    double us = timer(&c, ctx);
                    ++*timed;
                    /* an untimed candidate (us < 0) is kept only until one is timed */
                    if (!best || (us >= 0 && (*best_us < 0 || us < *best_us))) {
                        if (!best)
                            best = cm_xcalloc(1, sizeof *best);
                        else {
                            destroy(&best->plan);
                            destroy(&best->cfg);
                        }
                        *best = c;
                        *best_us = us;
                        continue; /* kept */
                    }
                }
                destroy(&c.plan);
                destroy(&c.cfg);
            }
        }
    }
    if (!best) {
        for (int i = D_COUNT - 1; i >= 0; i--)
            destroy(&d[i]);
        return NULL;
    }
    for (int i = 0; i < D_COUNT; i++)
        best->d[i] = d[i];
    return best;
}

void cm_conv_graph_run(cudnnHandle_t h, const cm_conv_plan *p, const void *x, const void *w, const void *y,
                       void *workspace)
{
    int64_t uids[3] = {UID_X, UID_W, UID_Y};
    void *ptrs[3] = {(void *)x, (void *)w, (void *)y};
    desc_t pack = make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    SET(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
    SET(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs);
    SET(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
    cudnnCheck(cudnnBackendFinalize(pack));
    cudnnCheck(cudnnBackendExecute(h, p->plan, pack));
    cudnnCheck(cudnnBackendDestroyDescriptor(pack));
}

size_t cm_conv_graph_workspace(const cm_conv_plan *p)
{
    return p->workspace;
}

long long cm_conv_graph_engine(const cm_conv_plan *p)
{
    return p->engine;
}
