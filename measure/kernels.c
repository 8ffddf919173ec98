#include "kernels.h"

#include <stdio.h>
#include <stdlib.h>

#include "spin_kernel.h"

/* Conversions are written in PTX and bit operations so that the source needs
 * no header (NVRTC then needs no include path on the GPU machine). */
static const char source[] =
    "typedef unsigned short u16;\n"
    "__device__ __forceinline__ float ld_f32(const float *p, long long i) { return p[i]; }\n"
    "__device__ __forceinline__ float ld_f16(const u16 *p, long long i) {\n"
    "    float f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(p[i])); return f; }\n"
    "__device__ __forceinline__ float ld_bf16(const u16 *p, long long i) {\n"
    "    return __uint_as_float(((unsigned)p[i]) << 16); }\n"
    "__device__ __forceinline__ void st_f32(float *p, long long i, float x) { p[i] = x; }\n"
    "__device__ __forceinline__ void st_f16(u16 *p, long long i, float x) {\n"
    "    u16 h; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(x)); p[i] = h; }\n"
    "__device__ __forceinline__ void st_bf16(u16 *p, long long i, float x) {\n" /* round to nearest even */
    "    unsigned u = __float_as_uint(x);\n"
    "    u = (u & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : u + 0x7fffu + ((u >> 16) & 1u);\n"
    "    p[i] = (u16)(u >> 16); }\n"
    "#define GRID_STRIDE(i, n) for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n);"
    " i += (long long)gridDim.x * blockDim.x)\n"
    /* torch.optim.SGD with momentum (dampening 0): v = mu v + g; w -= lr v. */
    "extern \"C\" __global__ void sgd_f32(float *w, float *v, const float *g, float *wl, long long n,"
    " float lr, float mu) {\n"
    "    GRID_STRIDE(i, n) { float vi = mu * v[i] + g[i]; v[i] = vi; w[i] -= lr * vi; } }\n"
    "#define SGD_LOW(T) extern \"C\" __global__ void sgd_##T(float *w, float *v, const u16 *g, u16 *wl,"
    " long long n, float lr, float mu) { \\\n"
    "    GRID_STRIDE(i, n) { float vi = mu * v[i] + ld_##T(g, i); float wi = w[i] - lr * vi;"
    " v[i] = vi; w[i] = wi; st_##T(wl, i, wi); } }\n"
    "SGD_LOW(f16)\n"
    "SGD_LOW(bf16)\n"
    "#define XENT(T, S) extern \"C\" __global__ void xent_##T(const S *p, const int *label, S *dx,"
    " float *loss, int batch, int classes) { \\\n"
    "    long long n = (long long)batch * classes; \\\n"
    "    GRID_STRIDE(i, n) { int b = (int)(i / classes), c = (int)(i % classes); float pi = ld_##T(p, i); \\\n"
    "        int hit = c == label[b]; st_##T(dx, i, (pi - (hit ? 1.0f : 0.0f)) / (float)batch); \\\n"
    "        if (hit) loss[b] = -logf(fmaxf(pi, 1e-30f)); } }\n"
    "XENT(f32, float)\n"
    "XENT(f16, u16)\n"
    "XENT(bf16, u16)\n"
    /* db[c] = sum over n and hw of dy[n][c][hw] (NCHW), fp32 accumulation,
     * in two steps as a framework's sum over (0, 2, 3) does: blocks
     * (channel, slice) each sum a slice of the images' planes of one channel,
     * contiguous rows, into part[]; then one thread per channel adds its
     * slices. One block per channel (cuDNN's cudnnConvolutionBackwardBias,
     * and this kernel before) leaves most SMs idle when channels are few and
     * planes large: 0.5 ms for SqueezeNet's 16-channel 55x55 layers at b64. */
    "#define BIAS(T, S) extern \"C\" __global__ void bias_part_##T(const S *dy, float *part, int n, int c,"
    " long long hw, int slices) { \\\n"
    "    __shared__ float sh[256]; float acc = 0.0f; int per = (n + slices - 1) / slices; \\\n"
    "    int b0 = blockIdx.y * per, b1 = b0 + per < n ? b0 + per : n; \\\n"
    "    for (int b = b0; b < b1; b++) { const S *row = dy + ((long long)b * c + blockIdx.x) * hw; \\\n"
    "        for (long long k = threadIdx.x; k < hw; k += blockDim.x) acc += ld_##T(row, k); } \\\n"
    "    sh[threadIdx.x] = acc; __syncthreads(); \\\n"
    "    for (int s = blockDim.x / 2; s > 0; s >>= 1) { \\\n"
    "        if ((int)threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s]; __syncthreads(); } \\\n"
    "    if (threadIdx.x == 0) part[(long long)blockIdx.x * slices + blockIdx.y] = sh[0]; } \\\n"
    /* A fully connected layer's dy (hw = 1) is rows of c values, one per
     * image: there the kernel above would leave 255 of 256 threads idle and
     * walk the rows one dependent load at a time (0.1-0.4 ms per layer). One
     * thread per channel walks the rows of its slice instead, neighbouring
     * threads reading neighbouring values. */
    "extern \"C\" __global__ void bias_rows_##T(const S *dy, float *part, int n, int c, int slices) { \\\n"
    "    int ch = blockIdx.x * blockDim.x + threadIdx.x; if (ch >= c) return; \\\n"
    "    int per = (n + slices - 1) / slices, b0 = blockIdx.y * per, b1 = b0 + per < n ? b0 + per : n; \\\n"
    "    float acc = 0.0f; for (int b = b0; b < b1; b++) acc += ld_##T(dy, (long long)b * c + ch); \\\n"
    "    part[(long long)ch * slices + blockIdx.y] = acc; } \\\n"
    "extern \"C\" __global__ void bias_sum_##T(const float *part, S *db, int c, int slices) { \\\n"
    "    int ch = blockIdx.x * blockDim.x + threadIdx.x; if (ch >= c) return; float t = 0.0f; \\\n"
    "    for (int i = 0; i < slices; i++) t += part[(long long)ch * slices + i]; st_##T(db, ch, t); }\n"
    /* Dropout with a one-byte mask, as a framework's fused dropout runs it, for
     * the type cuDNN's dropout does not take (bf16: CUDNN_STATUS_NOT_SUPPORTED).
     * The mask comes from a counter hash of (seed, element), the same each
     * iteration: what is timed is the traffic (x, y and the mask; dy, the
     * mask and dx), not the draw. */
    "__device__ __forceinline__ unsigned drop_hash(unsigned long long seed, long long i) {\n"
    "    unsigned long long z = seed + (unsigned long long)i * 0x9e3779b97f4a7c15ull;\n"
    "    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;\n"
    "    return (unsigned)((z ^ (z >> 31)) >> 32); }\n"
    "#define DROP(T, S) extern \"C\" __global__ void dropout_fwd_##T(const S *x, S *y, unsigned char *mask,"
    " long long n, unsigned long long keep, float scale, unsigned long long seed) { \\\n"
    "    GRID_STRIDE(i, n) { unsigned char m = (unsigned long long)drop_hash(seed, i) < keep; mask[i] = m; \\\n"
    "        st_##T(y, i, m ? ld_##T(x, i) * scale : 0.0f); } } \\\n"
    "extern \"C\" __global__ void dropout_bwd_##T(const S *dy, const unsigned char *mask, S *dx, long long n,"
    " float scale) { \\\n"
    "    GRID_STRIDE(i, n) st_##T(dx, i, mask[i] ? ld_##T(dy, i) * scale : 0.0f); }\n"
    "DROP(bf16, u16)\n"
    CM_SPIN_KERNEL_SRC /* --host-profile-behind */
    "BIAS(f32, float)\n"
    "BIAS(f16, u16)\n"
    "BIAS(bf16, u16)\n";

static const char *const type_names[CM_DTYPE_COUNT] = {"f32", "f16", "bf16"};

char *cm_kernels_compile(int major, int minor, size_t *size)
{
    nvrtcProgram prog;
    nvrtcCheck(nvrtcCreateProgram(&prog, source, "cnnperf_measure_kernels.cu", 0, NULL, NULL));
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    const char *opts[] = {arch};
    nvrtcResult r = nvrtcCompileProgram(prog, 1, opts);
    if (r != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        char *log = cm_xcalloc(n + 1, 1);
        nvrtcGetProgramLog(prog, log);
        fprintf(stderr, "cnnperf-measure: NVRTC could not compile the SGD/loss kernels for sm_%d%d: %s\n%s\n", major,
                minor, nvrtcGetErrorString(r), log);
        free(log);
        exit(CM_EXIT_RUNTIME);
    }
    nvrtcCheck(nvrtcGetCUBINSize(prog, size));
    char *cubin = cm_xcalloc(*size, 1);
    nvrtcCheck(nvrtcGetCUBIN(prog, cubin));
    nvrtcCheck(nvrtcDestroyProgram(&prog));
    return cubin;
}

void cm_kernels_load(cm_kernels *k)
{
    int dev, major, minor, sms;
    cudaCheck(cudaGetDevice(&dev));
    cudaCheck(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    cudaCheck(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    size_t size = 0;
    char *cubin = cm_kernels_compile(major, minor, &size);
    cudaCheck(cudaLibraryLoadData(&k->lib, cubin, NULL, NULL, 0, NULL, NULL, 0));
    free(cubin);
    for (int t = 0; t < CM_DTYPE_COUNT; t++) {
        char name[32];
        snprintf(name, sizeof name, "sgd_%s", type_names[t]);
        cudaCheck(cudaLibraryGetKernel(&k->sgd[t], k->lib, name));
        snprintf(name, sizeof name, "xent_%s", type_names[t]);
        cudaCheck(cudaLibraryGetKernel(&k->xent[t], k->lib, name));
        snprintf(name, sizeof name, "bias_part_%s", type_names[t]);
        cudaCheck(cudaLibraryGetKernel(&k->bias_part[t], k->lib, name));
        snprintf(name, sizeof name, "bias_rows_%s", type_names[t]);
        cudaCheck(cudaLibraryGetKernel(&k->bias_rows[t], k->lib, name));
        snprintf(name, sizeof name, "bias_sum_%s", type_names[t]);
        cudaCheck(cudaLibraryGetKernel(&k->bias_sum[t], k->lib, name));
    }
    cudaCheck(cudaLibraryGetKernel(&k->dropout_fwd_bf16, k->lib, "dropout_fwd_bf16"));
    cudaCheck(cudaLibraryGetKernel(&k->dropout_bwd_bf16, k->lib, "dropout_bwd_bf16"));
    cudaCheck(cudaLibraryGetKernel(&k->spin, k->lib, "spin"));
    /* Grid-stride loops: enough blocks to fill every SM several times over. */
    k->max_blocks = 16 * sms;
    k->sms = sms;
}

#define GRID_THREADS 256

/* A grid-stride kernel over n elements: GRID_THREADS threads a block, a block
 * for each GRID_THREADS elements up to max_blocks. A cudaKernel_t is launched
 * through the runtime by passing it as the function. */
static void launch_over(const cm_kernels *k, cudaKernel_t fn, long long n, void **args, cudaStream_t s)
{
    long long blocks = (n + GRID_THREADS - 1) / GRID_THREADS;
    if (blocks > k->max_blocks)
        blocks = k->max_blocks;
    if (blocks < 1)
        blocks = 1;
    dim3 grid = {(unsigned)blocks, 1, 1}, block = {GRID_THREADS, 1, 1};
    cudaCheck(cudaLaunchKernel((const void *)fn, grid, block, args, 0, s));
}

void cm_sgd(const cm_kernels *k, cm_dtype gtype, float *w, float *v, const void *g, void *wlow, long long n,
            float lr, float momentum, cudaStream_t s)
{
    void *args[] = {&w, &v, &g, &wlow, &n, &lr, &momentum};
    launch_over(k, k->sgd[gtype], n, args, s);
}

void cm_xent_backward(const cm_kernels *k, cm_dtype t, const void *p, const int *labels, void *dx, float *loss,
                      int batch, int classes, cudaStream_t s)
{
    void *args[] = {&p, &labels, &dx, &loss, &batch, &classes};
    launch_over(k, k->xent[t], (long long)batch * classes, args, s);
}

#define BIAS_THREADS 256

int cm_bias_slices(const cm_kernels *k, int n, int c, long long hw)
{
    /* about four blocks per SM in all, at most one slice per image; rows
     * (hw = 1) have a block per BIAS_THREADS channels, planes one per channel */
    int across = hw == 1 ? (c + BIAS_THREADS - 1) / BIAS_THREADS : c;
    int slices = (4 * k->sms + across - 1) / across;
    return slices < 1 ? 1 : slices > n ? n : slices;
}

void cm_bias_grad(const cm_kernels *k, cm_dtype t, const void *dy, void *db, int n, int c, long long hw,
                  float *part, cudaStream_t s)
{
    int slices = cm_bias_slices(k, n, c, hw);
    dim3 block = {BIAS_THREADS, 1, 1};
    if (hw == 1) {
        void *args[] = {&dy, &part, &n, &c, &slices};
        dim3 grid = {(unsigned)((c + BIAS_THREADS - 1) / BIAS_THREADS), (unsigned)slices, 1};
        cudaCheck(cudaLaunchKernel((const void *)k->bias_rows[t], grid, block, args, 0, s));
    } else {
        void *args[] = {&dy, &part, &n, &c, &hw, &slices};
        dim3 grid = {(unsigned)c, (unsigned)slices, 1};
        cudaCheck(cudaLaunchKernel((const void *)k->bias_part[t], grid, block, args, 0, s));
    }
    void *args2[] = {&part, &db, &c, &slices};
    dim3 grid2 = {(unsigned)((c + BIAS_THREADS - 1) / BIAS_THREADS), 1, 1};
    cudaCheck(cudaLaunchKernel((const void *)k->bias_sum[t], grid2, block, args2, 0, s));
}

/* what a kept element is multiplied by: 1 / (1 - p), 0 where all are dropped */
static float dropout_scale(double p)
{
    return p < 1.0 ? (float)(1.0 / (1.0 - p)) : 0.0f;
}

void cm_dropout_bf16_forward(const cm_kernels *k, const void *x, void *y, unsigned char *mask, long long n, double p,
                             unsigned long long seed, cudaStream_t s)
{
    /* keep an element when its 32-bit draw is under (1 - p) 2^32; p = 0 keeps all */
    unsigned long long keep = (unsigned long long)((1.0 - p) * 4294967296.0);
    float scale = dropout_scale(p);
    void *args[] = {&x, &y, &mask, &n, &keep, &scale, &seed};
    launch_over(k, k->dropout_fwd_bf16, n, args, s);
}

void cm_dropout_bf16_backward(const cm_kernels *k, const void *dy, const unsigned char *mask, void *dx, long long n,
                              double p, cudaStream_t s)
{
    float scale = dropout_scale(p);
    void *args[] = {&dy, &mask, &dx, &n, &scale};
    launch_over(k, k->dropout_bwd_bf16, n, args, s);
}

void cm_spin(const cm_kernels *k, double us, cudaStream_t s)
{
    long long ns = (long long)(us * 1e3);
    void *args[] = {&ns};
    dim3 one = {1, 1, 1};
    cudaCheck(cudaLaunchKernel((const void *)k->spin, one, one, args, 0, s));
}
