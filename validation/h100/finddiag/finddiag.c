/* finddiag: what cudnnFind reports for a convolution pass against what each
 * (algorithm, math type) it reports takes when run back to back afterwards. */
#include <cuda_runtime.h>
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
#define CK(x) do { cudnnStatus_t s_ = (x); if (s_ != CUDNN_STATUS_SUCCESS) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudnnGetErrorString(s_)); exit(1);} } while (0)
#define CC(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
static const char *mname(cudnnMathType_t m) { static const char *n[] = {"default", "tensor_op", "tensor_op_conv", "fma"}; return (unsigned)m < 4 ? n[m] : "?"; }
static int fill = 'r';
static volatile int gate_open;
static void CUDART_CB gate_fn(void *p) { (void)p; while (!__atomic_load_n(&gate_open, __ATOMIC_SEQ_CST)) ; }
static void *buf(size_t bytes) {
    void *d; CC(cudaMalloc(&d, bytes));
    unsigned short *h = malloc(bytes); size_t n = bytes / 2;
    for (size_t i = 0; i < n; i++) {
        if (fill == 'z') h[i] = 0;                                      /* zeros */
        else if (fill == 'h') h[i] = (rand() & 1) ? 0 : (0x2000 | (rand() & 0x7ff)); /* half zeros, small positive */
        else if (fill == 's') h[i] = ((rand() & 1) << 15) | (0x2800 | (rand() & 0x7ff)); /* random signs */
        else h[i] = 0x3000 | (rand() & 0x3ff); /* fp16 in [0.125, 0.25) */
    }
    CC(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice)); free(h); return d;
}
int main(int argc, char **argv) {
    int shapes[][6] = { /* N C H K R(=S) stride */
        {64, 512, 28, 128, 1, 1}, {64, 64, 56, 256, 1, 1}, {64, 128, 28, 512, 1, 1}, {32, 512, 28, 128, 1, 1}, {64, 256, 14, 1024, 1, 1}};
    cudnnDataType_t dt = argc > 1 && argv[1][0] == 'b' ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
    if (argc > 2) fill = argv[2][0];
    int only = argc > 3 ? atoi(argv[3]) : 99;
    cudnnHandle_t h; CK(cudnnCreate(&h));
    cudaStream_t st; CC(cudaStreamCreate(&st)); CK(cudnnSetStream(h, st));
    size_t wsb = (size_t)1 << 30; void *ws; CC(cudaMalloc(&ws, wsb));
    cudaEvent_t e0, e1; CC(cudaEventCreate(&e0)); CC(cudaEventCreate(&e1));
    float one = 1, zero = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0] && (int)s < only; s++) {
        int N = shapes[s][0], C = shapes[s][1], H = shapes[s][2], K = shapes[s][3], R = shapes[s][4], U = shapes[s][5];
        int P = (H + 2 * (R / 2) - R) / U + 1;
        cudnnTensorDescriptor_t xd, yd; cudnnFilterDescriptor_t wd; cudnnConvolutionDescriptor_t cd;
        CK(cudnnCreateTensorDescriptor(&xd)); CK(cudnnCreateTensorDescriptor(&yd)); CK(cudnnCreateFilterDescriptor(&wd)); CK(cudnnCreateConvolutionDescriptor(&cd));
        CK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, dt, N, C, H, H));
        CK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, dt, N, K, P, P));
        CK(cudnnSetFilter4dDescriptor(wd, dt, CUDNN_TENSOR_NCHW, K, C, R, R));
        CK(cudnnSetConvolution2dDescriptor(cd, R / 2, R / 2, U, U, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        void *x = buf((size_t)N * C * H * H * 2), *y = buf((size_t)N * K * P * P * 2), *w = buf((size_t)K * C * R * R * 2), *dw = buf((size_t)K * C * R * R * 2), *dx = buf((size_t)N * C * H * H * 2);
        double gf = 2.0 * N * K * P * P * C * R * R / 1e9;
        for (int pass = 0; pass < 3; pass++) {
            for (int rep = 0; rep < 2; rep++) {
                if (pass == 1) continue;
                CK(cudnnSetConvolutionMathType(cd, CUDNN_TENSOR_OP_MATH));
                int got = 0;
                cudnnConvolutionFwdAlgoPerf_t pf[16]; cudnnConvolutionBwdDataAlgoPerf_t pd[16]; cudnnConvolutionBwdFilterAlgoPerf_t pw[16];
                if (pass == 0) CK(cudnnFindConvolutionForwardAlgorithmEx(h, xd, x, wd, w, cd, yd, y, 16, &got, pf, ws, wsb));
                if (pass == 1) CK(cudnnFindConvolutionBackwardDataAlgorithmEx(h, wd, w, yd, y, cd, xd, dx, 16, &got, pd, ws, wsb));
                if (pass == 2) CK(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, xd, x, yd, y, cd, wd, dw, 16, &got, pw, ws, wsb));
                printf("fill %c N%d C%d H%d K%d R%d %s %s find #%d (%.2f GFLOP):\n", fill, N, C, H, K, R, dt == CUDNN_DATA_HALF ? "fp16" : "bf16", pass == 0 ? "fwd" : pass == 1 ? "bwd_data" : "bwd_filter", rep, gf);
                for (int i = 0; i < got; i++) {
                    int algo; cudnnStatus_t status; float t; size_t mem; cudnnMathType_t m;
                    if (pass == 0) algo = pf[i].algo, status = pf[i].status, t = pf[i].time, mem = pf[i].memory, m = pf[i].mathType;
                    else if (pass == 1) algo = pd[i].algo, status = pd[i].status, t = pd[i].time, mem = pd[i].memory, m = pd[i].mathType;
                    else algo = pw[i].algo, status = pw[i].status, t = pw[i].time, mem = pw[i].memory, m = pw[i].mathType;
                    if (status != CUDNN_STATUS_SUCCESS) continue;
                    CK(cudnnSetConvolutionMathType(cd, m));
                    float ms = 0; int reps = 50; double h0 = 0;
                    CC(cudaStreamSynchronize(st));
                    for (int k = 0; k < reps + 3; k++) {
                        if (k == 3) { CC(cudaEventRecord(e0, st)); h0 = now_us(); }
                        if (pass == 0) CK(cudnnConvolutionForward(h, &one, xd, x, wd, w, cd, (cudnnConvolutionFwdAlgo_t)algo, ws, wsb, &zero, yd, y));
                        if (pass == 1) CK(cudnnConvolutionBackwardData(h, &one, wd, w, yd, y, cd, (cudnnConvolutionBwdDataAlgo_t)algo, ws, wsb, &zero, xd, dx));
                        if (pass == 2) CK(cudnnConvolutionBackwardFilter(h, &one, xd, x, yd, y, cd, (cudnnConvolutionBwdFilterAlgo_t)algo, ws, wsb, &zero, wd, dw));
                    }
                    double host = (now_us() - h0) / reps;
                    CC(cudaEventRecord(e1, st)); CC(cudaEventSynchronize(e1)); CC(cudaEventElapsedTime(&ms, e0, e1));
                    /* the GPU alone: every call queued behind a gate (a host function
                     * that waits until the host has enqueued them all) */
                    CC(cudaStreamSynchronize(st));
                    float gms = 0;
                    cudaEvent_t a; CC(cudaEventCreate(&a));
                    gate_open = 0;
                    CC(cudaLaunchHostFunc(st, gate_fn, NULL));
                    CC(cudaEventRecord(a, st));
                    for (int k = 0; k < reps; k++) {
                        if (pass == 0) CK(cudnnConvolutionForward(h, &one, xd, x, wd, w, cd, (cudnnConvolutionFwdAlgo_t)algo, ws, wsb, &zero, yd, y));
                        if (pass == 2) CK(cudnnConvolutionBackwardFilter(h, &one, xd, x, yd, y, cd, (cudnnConvolutionBwdFilterAlgo_t)algo, ws, wsb, &zero, wd, dw));
                    }
                    CC(cudaEventRecord(e1, st));
                    __atomic_store_n(&gate_open, 1, __ATOMIC_SEQ_CST);
                    CC(cudaEventSynchronize(e1)); CC(cudaEventElapsedTime(&gms, a, e1));
                    printf("   #%d algo %d %-14s find %8.1f us  run %8.1f us  host enqueue %8.1f us/call  gated GPU %8.1f us  ws %6.1f MiB\n", i, algo, mname(m), t * 1e3, ms / reps * 1e3, host, gms / reps * 1e3, mem / 1048576.0);
                }
            }
        }
        cudaFree(x); cudaFree(y); cudaFree(w); cudaFree(dw); cudaFree(dx);
    }
    return 0;
}
