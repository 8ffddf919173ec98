#include "hostinfo.h"
#include "provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef CNNPERF_HAVE_NCCL
#include <nccl.h>
#endif
#ifdef CNNPERF_HAVE_MPI
#include <mpi.h>
#endif

void cm_device_id(const char *gpu_name, char *id, size_t size)
{
    if (cp_device_id_from_name(gpu_name, id, size))
        snprintf(id, size, "%s", gpu_name);
}

/* The command line as a shell would take it back. */
static char *command_line(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++)
        len += 4 * strlen(argv[i]) + 3;
    char *s = cm_xcalloc(len, 1), *p = s;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool plain = *a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@") ==
                               strlen(a);
        if (i)
            *p++ = ' ';
        if (plain) {
            p += sprintf(p, "%s", a);
            continue;
        }
        *p++ = '\'';
        for (; *a; a++) {
            if (*a == '\'')
                p += sprintf(p, "'\\''");
            else
                *p++ = *a;
        }
        *p++ = '\'';
    }
    *p = 0;
    return s;
}

static void add_version(cJSON *o, const char *key, int major, int minor, int patch)
{
    char v[48];
    if (patch >= 0)
        snprintf(v, sizeof v, "%d.%d.%d", major, minor, patch);
    else
        snprintf(v, sizeof v, "%d.%d", major, minor);
    cJSON_AddStringToObject(o, key, v);
}

cJSON *cm_provenance(const cm_net *n, const cm_run_info *run)
{
    const cm_gpu *g = n->gpu;
    cJSON *o = cJSON_CreateObject();
    char *cmd = command_line(run->argc, run->argv);
    cJSON_AddStringToObject(o, "command", cmd);
    free(cmd);

    char buf[256];
    cJSON_AddStringToObject(o, "gpu_name", g->name);
    snprintf(buf, sizeof buf, "%d.%d", g->cc_major, g->cc_minor);
    cJSON_AddStringToObject(o, "gpu_compute_capability", buf);
    cJSON_AddNumberToObject(o, "gpu_sm_count", g->sm_count);
    cJSON_AddNumberToObject(o, "gpu_memory_gib", g->memory_gb);
    cm_driver_version("/proc", buf, sizeof buf);
    cJSON_AddStringToObject(o, "driver_version", buf);

    int v = 0;
    if (cudaDriverGetVersion(&v) == cudaSuccess)
        add_version(o, "cuda_driver_api", v / 1000, (v % 1000) / 10, -1);
    if (cudaRuntimeGetVersion(&v) == cudaSuccess)
        add_version(o, "cuda_runtime", v / 1000, (v % 1000) / 10, -1);
    size_t dnn = cudnnGetVersion(); /* 9.x: major*10000 + minor*100 + patch */
    add_version(o, "cudnn", (int)(dnn / 10000), (int)(dnn % 10000 / 100), (int)(dnn % 100));
    int ma = 0, mi = 0, pa = 0;
    if (cublasGetProperty(MAJOR_VERSION, &ma) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &mi) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &pa) == CUBLAS_STATUS_SUCCESS)
        add_version(o, "cublas", ma, mi, pa);
    if (nvrtcVersion(&ma, &mi) == NVRTC_SUCCESS)
        add_version(o, "nvrtc", ma, mi, -1);
#ifdef CNNPERF_HAVE_NCCL
    if (ncclGetVersion(&v) == ncclSuccess) {
        /* NCCL 2.9 and later: major*10000 + minor*100 + patch; before: *1000. */
        if (v >= 20900)
            add_version(o, "nccl", v / 10000, v % 10000 / 100, v % 100);
        else
            add_version(o, "nccl", v / 1000, v % 1000 / 100, v % 100);
    }
#endif
#ifdef CNNPERF_HAVE_MPI
    {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        if (MPI_Get_library_version(lib, &len) == MPI_SUCCESS) { /* allowed before MPI_Init */
            lib[strcspn(lib, "\r\n,")] = 0;
            cJSON_AddStringToObject(o, "mpi", lib);
        }
    }
#endif

    if (gethostname(buf, sizeof buf) != 0)
        snprintf(buf, sizeof buf, "unknown");
    buf[sizeof buf - 1] = 0;
    cJSON_AddStringToObject(o, "hostname", buf);
    cm_cpu_model("/proc", buf, sizeof buf); /* a host-paced run goes at its host's speed */
    cJSON_AddStringToObject(o, "cpu_model", buf);
    cJSON_AddNumberToObject(o, "cpu_count", (double)sysconf(_SC_NPROCESSORS_ONLN));
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON_AddStringToObject(o, "date_utc", buf);
    cm_git_commit(buf, sizeof buf);
    cJSON_AddStringToObject(o, "git_commit", buf);

    cJSON_AddNumberToObject(o, "warmup_iterations", run->warmup);
    cJSON_AddNumberToObject(o, "timed_iterations", run->iters);
    cJSON_AddStringToObject(o, "launch", run->launch ? run->launch : "stream");
    cJSON_AddStringToObject(o, "conv_api", run->conv_api ? run->conv_api : "legacy");
    cJSON_AddNumberToObject(o, "workspace_limit_mib", run->workspace_mb);
    cJSON_AddNumberToObject(o, "workspace_used_mib", (double)g->workspace_size / 1048576.0);
    /* after the timed iterations: all this process holds on the GPU (context,
     * libraries, tensors, workspace), and the harness's own buffers of it */
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
        cJSON_AddNumberToObject(o, "memory_used_mib", (double)(total_b - free_b) / 1048576.0);
    cJSON_AddNumberToObject(o, "memory_harness_mib", (double)cm_allocated_bytes / 1048576.0);
    cJSON_AddNumberToObject(o, "setup_s", run->setup_s);
    cJSON_AddNumberToObject(o, "sgd_lr", n->lr);
    cJSON_AddNumberToObject(o, "sgd_momentum", n->momentum);
    cJSON_AddStringToObject(o, "timing",
                            "CUDA events around every layer pass and phase on one stream; per-layer and phase "
                            "values are medians over the timed iterations, so they need not add up exactly");
    cJSON *algos = cJSON_AddObjectToObject(o, "conv_algorithms");
    for (int i = 0; i < n->n; i++)
        if (n->layers[i].note[0])
            cJSON_AddStringToObject(algos, n->layers[i].l->name, n->layers[i].note);
    /* every candidate the choice timed ("fwd 70:411 1:520~; ..."; train.h), equal shapes sharing one search */
    cJSON *tried = cJSON_AddObjectToObject(o, "conv_candidates");
    for (int i = 0; i < n->n; i++)
        if (n->layers[i].candidates[0])
            cJSON_AddStringToObject(tried, n->layers[i].l->name, n->layers[i].candidates);
    return o;
}
