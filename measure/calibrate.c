/* cnnperf-calibrate: microbenchmarks of the GPU(s) it runs on, written as a
 * device profile that `cnnperf predict --device FILE` accepts, plus a raw
 * file with every sweep (issue 4, part 5; docs/CALIBRATION.md).
 *
 *   cnnperf-calibrate -o h100-calibrated.json
 *   mpirun -np 2 cnnperf-calibrate -o h200-calibrated.json      # + NCCL and MPI sweeps
 *
 * Rank 0 measures its GPU (GEMM peaks, device memory bandwidth, launch
 * overhead, global load latency, host link) while the other ranks wait;
 * then all ranks sweep NCCL all-reduce, and ranks 0 and 1 MPI ping-pong.
 * Rank 0 prints nccl-tests style tables and writes the files atomically.
 *
 * Exit status: 0 success, 1 a CUDA/cuBLAS/NVRTC/NCCL/MPI failure or an
 * output error (one line: rank, host, benchmark, file:line, call, the
 * library's message; every rank ends), 2 bad usage or no profile to start
 * from, 77 no GPU ("cnnperf-calibrate: skipped: no GPU (...)"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hostinfo.h"
#include "../model/device.h"
#include "../util/atomic_file.h"
#include "../util/jsonwrite.h"
#include "calib_check.h"
#include "calib_comm.h"
#include "calib_fit.h"
#include "calib_gpu.h"
#include "calib_profile.h"
#include "calib_selftest.h"
#include "gpus.h"

static const char usage[] =
    "usage: cnnperf-calibrate [options]            (one process: GPU 0)\n"
    "       mpirun -np N cnnperf-calibrate [options] (one rank per GPU: adds the NCCL and MPI sweeps)\n"
    "\n"
    "Measures the GPU and writes a device profile (cnnperf-device/1) for `cnnperf predict --device FILE`:\n"
    "the built-in profile of the same GPU model with fp32_tflops, tensor_tflops_*, dram_efficiency,\n"
    "launch_overhead_us, global_latency_cycles, host_link_bandwidth_gbs and host_link_latency_us replaced\n"
    "by measured values (docs/CALIBRATION.md).\n"
    "\n"
    "  -o, --output FILE   the profile (default standard output)\n"
    "  --raw FILE          every measurement and sweep, with provenance (default: next to -o, '.json'\n"
    "                      replaced by '-raw.json'; none when the profile goes to standard output)\n"
    "  --base ID|FILE      profile to start from (default: the built-in one named in the GPU's name:\n"
    "                      h100, h200, a100, v100, gtx1080, gtx1080ti)\n"
    "  --only LIST         comma-separated subset of gemm,memory,launch,latency,hostlink,p2p,nccl,mpi,overlap\n"
    "                      (default all; overlap: all-reduces of 32 MiB beside a GEMM and a copy, both ways)\n"
    "  --gemm-size N       GEMM m = n = k (default 8192)\n"
    "  --trials N          timed trials of GEMM and memory bandwidth, the best counts (default 5)\n"
    "  --mem-mib N         buffer size of the memory bandwidth test in MiB (default 1024)\n"
    "  --min-bytes N       smallest size of the host link, NCCL and MPI sweeps (default 8)\n"
    "  --max-bytes N       largest size (default 1073741824)\n"
    "  --step F            size factor between sweep points, 2 or more (default 2)\n"
    "  --iters N           NCCL all-reduces timed per size (default 20, as nccl-tests)\n"
    "  --warmup N          NCCL warm-up all-reduces per size (default 5)\n"
    "  --timeout-s S       no NCCL all-reduce finishing for S seconds aborts every rank (default 20)\n"
    "  --quick             small sizes for a smoke test: GEMM 2048, 64 MiB buffers, sweeps up to 64 MiB,\n"
    "                      2 trials (the profile's sources say so)\n"
    "  --self-test         no GPU needed: checks the fit and the profile writer on synthetic numbers; with\n"
    "                      -o, writes a synthetic h100 profile there\n"
    "  --check-kernels CC  only compile the NVRTC kernels for compute capability CC (e.g. 90) and exit:\n"
    "                      no GPU needed\n"
    "  -h, --help          this text\n"
    "\n"
    "Exit status: 0 success, 1 GPU/library or output error, 2 bad usage, 77 no GPU (skipped).\n";

enum { B_GEMM, B_MEMORY, B_LAUNCH, B_LATENCY, B_HOSTLINK, B_P2P, B_NCCL, B_MPI, B_OVERLAP, B_COUNT };
static const char *const bench_names[B_COUNT] = {"gemm", "memory", "launch", "latency", "hostlink",
                                                 "p2p",  "nccl",   "mpi",    "overlap"};

typedef struct {
    const char *output, *raw, *base;
    int only[B_COUNT];
    int gemm_size, trials, mem_mib, iters, warmup, quick, self_test, check_kernels;
    double min_bytes, max_bytes, step, timeout_s;
} options;

static int bad(const char *fmt, const char *a)
{
    fprintf(stderr, "cnnperf-calibrate: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return CAL_EXIT_BAD_INPUT;
}

static int parse_num(const char *s, double min, double max, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (!*s || *end || !isfinite(v) || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_only(const char *list, int *only)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    memset(only, 0, B_COUNT * sizeof *only);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        int found = 0;
        for (int i = 0; i < B_COUNT; i++)
            if (strcmp(t, bench_names[i]) == 0)
                only[i] = found = 1;
        if (!found)
            return -1;
    }
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            exit(0);
        }
        if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
            continue;
        }
        if (strcmp(a, "--self-test") == 0) {
            o->self_test = 1;
            continue;
        }
        const char **text = NULL;
        double *num = NULL, min = 1, max = 1 << 30;
        int *inum = NULL;
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)
            text = &o->output;
        else if (strcmp(a, "--raw") == 0)
            text = &o->raw;
        else if (strcmp(a, "--base") == 0)
            text = &o->base;
        else if (strcmp(a, "--only") == 0) {
            if (i + 1 >= argc)
                return bad("%s needs a value", a);
            if (parse_only(argv[++i], o->only))
                return bad("--only: expected a comma-separated subset of gemm,memory,launch,latency,hostlink,p2p,nccl,"
                           "mpi,overlap, got '%s'",
                           argv[i]);
            continue;
        } else if (strcmp(a, "--gemm-size") == 0)
            inum = &o->gemm_size, min = 64, max = 65536;
        else if (strcmp(a, "--trials") == 0)
            inum = &o->trials, max = 1000;
        else if (strcmp(a, "--mem-mib") == 0)
            inum = &o->mem_mib, max = 1 << 20;
        else if (strcmp(a, "--iters") == 0)
            inum = &o->iters, max = 1 << 20;
        else if (strcmp(a, "--warmup") == 0)
            inum = &o->warmup, min = 0, max = 1 << 20;
        else if (strcmp(a, "--min-bytes") == 0)
            num = &o->min_bytes, min = 4, max = 1ULL << 34;
        else if (strcmp(a, "--max-bytes") == 0)
            num = &o->max_bytes, min = 4, max = 1ULL << 34;
        else if (strcmp(a, "--step") == 0)
            num = &o->step, min = 1.1, max = 1024;
        else if (strcmp(a, "--timeout-s") == 0)
            num = &o->timeout_s, min = 1, max = 3600;
        else if (strcmp(a, "--check-kernels") == 0)
            inum = &o->check_kernels, min = 10, max = 199;
        else
            return bad("unknown option '%s' (see cnnperf-calibrate --help)", a);
        if (i + 1 >= argc)
            return bad("%s needs a value", a);
        const char *v = argv[++i];
        if (text) {
            *text = v;
            continue;
        }
        double x;
        if (parse_num(v, min, max, &x) || (inum && x != floor(x))) {
            fprintf(stderr, "cnnperf-calibrate: %s: expected %s from %g to %g, got '%s'\n", a,
                    inum ? "an integer" : "a number", min, max, v);
            return CAL_EXIT_BAD_INPUT;
        }
        if (inum)
            *inum = (int)x;
        else
            *num = x;
    }
    if (o->min_bytes > o->max_bytes)
        return bad("--min-bytes is larger than --max-bytes%s", "");
    return 0;
}

/* --- provenance -------------------------------------------------------------- */

static void command_line(int argc, char **argv, char *out, size_t size)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < argc && n + 1 < size; i++)
        n += (size_t)snprintf(out + n, size - n, "%s%s", i ? " " : "", argv[i]);
}

static void version_text(int v, char *out, size_t size)
{
    snprintf(out, size, "%d.%d", v / 1000, (v % 1000) / 10);
}

typedef struct {
    char date[32], driver[64], cuda_runtime[16], cuda_driver[16], cublas[24], nvrtc[16], mpi[256], git[128];
    char command[1024];
    char *hosts; /* all ranks' host names, rank order, comma-separated */
} provenance;

static void collect_provenance(provenance *p, int argc, char **argv)
{
    memset(p, 0, sizeof *p);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(p->date, sizeof p->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cm_driver_version("/proc", p->driver, sizeof p->driver);
    int v = 0;
    snprintf(p->cuda_runtime, sizeof p->cuda_runtime, "unknown");
    snprintf(p->cuda_driver, sizeof p->cuda_driver, "unknown");
    if (cudaRuntimeGetVersion(&v) == cudaSuccess)
        version_text(v, p->cuda_runtime, sizeof p->cuda_runtime);
    if (cudaDriverGetVersion(&v) == cudaSuccess)
        version_text(v, p->cuda_driver, sizeof p->cuda_driver);
    int ma = 0, mi = 0, pa = 0;
    snprintf(p->cublas, sizeof p->cublas, "unknown");
    if (cublasGetProperty(MAJOR_VERSION, &ma) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &mi) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &pa) == CUBLAS_STATUS_SUCCESS)
        snprintf(p->cublas, sizeof p->cublas, "%d.%d.%d", ma, mi, pa);
    snprintf(p->nvrtc, sizeof p->nvrtc, "unknown");
    if (nvrtcVersion(&ma, &mi) == NVRTC_SUCCESS)
        snprintf(p->nvrtc, sizeof p->nvrtc, "%d.%d", ma, mi);
    snprintf(p->mpi, sizeof p->mpi, "none");
#ifdef CNNPERF_HAVE_MPI
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(lib, &len) == MPI_SUCCESS) {
        lib[strcspn(lib, "\r\n,")] = 0;
        snprintf(p->mpi, sizeof p->mpi, "%s", lib);
    }
#endif
    cm_git_commit(p->git, sizeof p->git);
    command_line(argc, argv, p->command, sizeof p->command);
}

/* --- ranks ------------------------------------------------------------------- */

/* Started by an MPI launcher? Then MPI_Init; a plain run needs no MPI (an
 * Open MPI singleton would fork a daemon, and root would need a flag). */
static int launched_by_mpi(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

/* Sets cal_rank/cal_ranks/cal_host; returns the local rank (the GPU). */
static int start_ranks(int *argc, char ***argv, int gpus, char **hosts)
{
    if (gethostname(cal_host, sizeof cal_host) != 0)
        snprintf(cal_host, sizeof cal_host, "unknown");
    cal_host[sizeof cal_host - 1] = 0;
    *hosts = cal_xcalloc(1, sizeof cal_host);
    snprintf(*hosts, sizeof cal_host, "%s", cal_host);
    cal_rank = 0;
    cal_ranks = 1;
    if (!launched_by_mpi())
        return 0;
#ifdef CNNPERF_HAVE_MPI
    cal_where = "MPI set-up";
    mpiCheck(MPI_Init(argc, argv));
    cal_mpi_up = 1;
    mpiCheck(MPI_Comm_rank(MPI_COMM_WORLD, &cal_rank));
    mpiCheck(MPI_Comm_size(MPI_COMM_WORLD, &cal_ranks));
    MPI_Comm local;
    int local_rank = 0, local_size = 1;
    mpiCheck(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, cal_rank, MPI_INFO_NULL, &local));
    mpiCheck(MPI_Comm_rank(local, &local_rank));
    mpiCheck(MPI_Comm_size(local, &local_size));
    mpiCheck(MPI_Comm_free(&local));
    char *all = cal_rank == 0 ? cal_xcalloc((size_t)cal_ranks, sizeof cal_host) : NULL;
    mpiCheck(
        MPI_Gather(cal_host, (int)sizeof cal_host, MPI_CHAR, all, (int)sizeof cal_host, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (cal_rank == 0) {
        free(*hosts);
        *hosts = cal_xcalloc((size_t)cal_ranks, sizeof cal_host + 2);
        for (int r = 0; r < cal_ranks; r++) {
            if (r)
                strcat(*hosts, ",");
            strncat(*hosts, all + (size_t)r * sizeof cal_host, sizeof cal_host - 1);
        }
        free(all);
    }
    if (local_size > gpus)
        cal_fail(CAL_EXIT_BAD_INPUT, "%d ranks on host %s but only %d GPUs: run one rank per GPU", local_size, cal_host,
                 gpus);
    return local_rank;
#else
    (void)argc, (void)argv, (void)gpus;
    fprintf(stderr, "cnnperf-calibrate: started by an MPI launcher but built without MPI; run it as one process "
                    "or rebuild with MPI found\n");
    exit(CAL_EXIT_BAD_INPUT);
#endif
}

static void barrier(void)
{
#ifdef CNNPERF_HAVE_MPI
    if (cal_mpi_up) {
        cal_where = "MPI barrier";
        mpiCheck(MPI_Barrier(MPI_COMM_WORLD));
    }
#endif
}

static void finish_ranks(void)
{
#ifdef CNNPERF_HAVE_MPI
    if (cal_mpi_up) {
        cal_where = "MPI finalize";
        mpiCheck(MPI_Finalize());
        cal_mpi_up = 0;
    }
#endif
}

/* --self-test under mpirun: the MPI half (ranks, host names, the ping-pong
 * sweep and its fit) on CPUs, no GPU needed. */
static int mpi_self_test(int *argc, char ***argv)
{
    char *hosts = NULL;
    start_ranks(argc, argv, 1 << 30, &hosts);
    int rc = 0;
    if (cal_ranks < 2) {
        cal_say("self-test: MPI ping-pong needs 2 ranks, got %d", cal_ranks);
        rc = 1;
    } else {
        cal_mpi mp;
        cal_run_mpi(8, 1048576, 4, &mp);
        if (cal_rank == 0) {
            cal_print_legend(stdout);
            cal_print_table(stdout, "MPI ping-pong rank 0 <-> rank 1 (self-test)", &mp.sweep, NULL, &mp.fit);
            if (!mp.done || mp.sweep.n != 9 || !mp.fit.ok) {
                cal_say("self-test FAILED: MPI ping-pong: %d sizes, fit %s", mp.sweep.n, mp.fit.ok ? "ok" : "failed");
                rc = 1;
            } else {
                cal_say("self-test: MPI ping-pong over %d ranks on %s passed", cal_ranks, hosts);
            }
        }
        cal_sweep_free(&mp.sweep);
    }
    free(hosts);
    finish_ranks();
    return rc;
}

/* --- output ------------------------------------------------------------------ */

static cJSON *gemm_json(const cal_gemm *g)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "precision", g->precision);
    cJSON_AddBoolToObject(o, "measured", g->done);
    cJSON_AddStringToObject(o, "compute_type", g->compute_type);
    cJSON_AddStringToObject(o, "math_mode", g->math_mode);
    cJSON_AddNumberToObject(o, "m_n_k", g->size);
    if (g->done) {
        cJSON_AddStringToObject(o, "best_layout", g->best_layout);
        cJSON_AddNumberToObject(o, "trials", g->trials);
        cJSON_AddNumberToObject(o, "gemms_per_trial", g->reps);
        cJSON_AddNumberToObject(o, "best_ms", g->best_ms);
        cJSON_AddNumberToObject(o, "median_ms", g->median_ms);
        cJSON_AddNumberToObject(o, "tflops", g->tflops);
    }
    return o;
}

static cJSON *sweep_with_fit(const cal_sweep *s, const cal_fit *f)
{
    cJSON *o = cal_sweep_json(s);
    cJSON_AddItemToObject(o, "fit", cal_fit_json(f));
    return o;
}

/* One NCCL sweep's section of the raw file: root.key with what every NCCL
 * sweep of the run shares (NCCL's version, the ranks, the data type). */
static cJSON *nccl_section(cJSON *root, const char *key, const cal_nccl *nc)
{
    cJSON *o = cJSON_AddObjectToObject(root, key);
    cJSON_AddStringToObject(o, "nccl", nc->version);
    cJSON_AddNumberToObject(o, "ranks", nc->ranks);
    cJSON_AddStringToObject(o, "datatype", "float32");
    return o;
}

static cJSON *raw_json(const options *o, const provenance *pv, const cal_gpu *g, const char *base_file,
                       const cal_device_results *r, const cal_nccl *nc, const cal_mpi *mp, const cal_overlap *ov,
                       cJSON *changes)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "cnnperf-calibration/1");
    cJSON_AddStringToObject(root, "profile", o->output ? o->output : "-");
    cJSON_AddStringToObject(root, "base_profile", base_file);

    cJSON *p = cJSON_AddObjectToObject(root, "provenance");
    cJSON_AddStringToObject(p, "command", pv->command);
    cJSON_AddStringToObject(p, "date_utc", pv->date);
    cJSON_AddStringToObject(p, "hostnames", pv->hosts);
    cJSON_AddNumberToObject(p, "ranks", cal_ranks);
    cJSON_AddStringToObject(p, "gpu_name", g->name);
    cJSON_AddStringToObject(p, "gpu_pci_bus_id", g->pci_bus_id);
    char buf[64];
    snprintf(buf, sizeof buf, "%d.%d", g->cc_major, g->cc_minor);
    cJSON_AddStringToObject(p, "gpu_compute_capability", buf);
    cJSON_AddNumberToObject(p, "gpu_sm_count", g->sm_count);
    cJSON_AddNumberToObject(p, "gpu_memory_gib", g->memory_gib);
    cJSON_AddNumberToObject(p, "gpu_l2_bytes", (double)g->l2_bytes);
    cJSON_AddNumberToObject(p, "gpu_clock_khz_reported", g->clock_khz);
    cJSON_AddNumberToObject(p, "gpu_memory_clock_khz_reported", g->memory_clock_khz);
    cJSON_AddNumberToObject(p, "gpu_memory_bus_bits", g->memory_bus_bits);
    cJSON_AddStringToObject(p, "driver_version", pv->driver);
    cJSON_AddStringToObject(p, "cuda_runtime", pv->cuda_runtime);
    cJSON_AddStringToObject(p, "cuda_driver_api", pv->cuda_driver);
    cJSON_AddStringToObject(p, "cublas", pv->cublas);
    cJSON_AddStringToObject(p, "nvrtc", pv->nvrtc);
    cJSON_AddStringToObject(p, "nccl", nc->done ? nc->version : "not run");
    cJSON_AddStringToObject(p, "mpi", pv->mpi);
    cJSON_AddStringToObject(p, "git_commit", pv->git);
    /* NCCL_DEBUG_SUBSYS: TUNING prints a line per call, which slows small sizes */
    const char *env[] = {"NCCL_NVLS_ENABLE", "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE",  "NCCL_ALGO",
                         "NCCL_PROTO",       "NCCL_DEBUG",       "NCCL_DEBUG_SUBSYS", "CUDA_VISIBLE_DEVICES"};
    cJSON *e = cJSON_AddObjectToObject(p, "environment");
    for (size_t i = 0; i < sizeof env / sizeof env[0]; i++)
        if (getenv(env[i]))
            cJSON_AddStringToObject(e, env[i], getenv(env[i]));
    cJSON_AddStringToObject(p, "policy",
                            "calibration data: microbenchmarks only; network measurements in "
                            "validation/ are evaluation data and are never fitted");

    cJSON *s = cJSON_AddObjectToObject(root, "settings");
    cJSON_AddBoolToObject(s, "quick", o->quick);
    cJSON_AddNumberToObject(s, "gemm_size", o->gemm_size);
    cJSON_AddNumberToObject(s, "trials", o->trials);
    cJSON_AddNumberToObject(s, "mem_mib", o->mem_mib);
    cJSON_AddNumberToObject(s, "min_bytes", o->min_bytes);
    cJSON_AddNumberToObject(s, "max_bytes", o->max_bytes);
    cJSON_AddNumberToObject(s, "step", o->step);
    cJSON_AddNumberToObject(s, "nccl_iters", o->iters);
    cJSON_AddNumberToObject(s, "nccl_warmup", o->warmup);
    cJSON_AddNumberToObject(s, "timeout_s", o->timeout_s);

    cJSON_AddItemToObject(root, "profile_changes", changes ? changes : cJSON_CreateArray());

    if (o->only[B_GEMM]) {
        cJSON *arr = cJSON_AddArrayToObject(root, "gemm");
        for (int k = 0; k < CAL_GEMM_KINDS; k++)
            cJSON_AddItemToArray(arr, gemm_json(&r->gemm[k]));
    }
    if (r->mem.done) {
        cJSON *m = cJSON_AddObjectToObject(root, "device_memory");
        cJSON_AddStringToObject(m, "bytes_counted", "read + written: 2 x buffer for memcpy and copy, 3 x for triad");
        cJSON_AddNumberToObject(m, "buffer_bytes", r->mem.bytes);
        cJSON_AddNumberToObject(m, "memcpy_d2d_gbs", r->mem.memcpy_gbs);
        cJSON_AddNumberToObject(m, "copy_kernel_gbs", r->mem.copy_gbs);
        cJSON_AddNumberToObject(m, "triad_kernel_gbs", r->mem.triad_gbs);
    }
    if (r->launch.done) {
        cJSON *l = cJSON_AddObjectToObject(root, "launch");
        cJSON_AddNumberToObject(l, "queued_kernels", r->launch.launches);
        cJSON_AddNumberToObject(l, "gpu_us_per_empty_kernel", r->launch.gpu_us);
        cJSON_AddNumberToObject(l, "gpu_us_per_tiny_kernel", r->launch.gpu_tiny_us);
        cJSON_AddNumberToObject(l, "host_enqueue_us", r->launch.host_us);
        cJSON_AddNumberToObject(l, "launch_and_sync_us", r->launch.sync_us);
    }
    if (r->lat.done) {
        cJSON *l = cJSON_AddObjectToObject(root, "global_latency");
        cJSON_AddStringToObject(l, "method", "1 thread, dependent ld.global.cg through a random single cycle");
        cJSON_AddNumberToObject(l, "stride_bytes", r->lat.stride);
        cJSON_AddNumberToObject(l, "loads", r->lat.steps);
        cJSON_AddNumberToObject(l, "l2_footprint_bytes", r->lat.l2_bytes);
        cJSON_AddNumberToObject(l, "l2_ns", r->lat.l2_ns);
        cJSON_AddNumberToObject(l, "l2_clock64_cycles", r->lat.l2_cycles);
        cJSON_AddNumberToObject(l, "dram_footprint_bytes", r->lat.dram_bytes);
        cJSON_AddNumberToObject(l, "dram_ns", r->lat.dram_ns);
        cJSON_AddNumberToObject(l, "dram_clock64_cycles", r->lat.dram_cycles);
    }
    if (r->host.done) {
        cJSON *h = cJSON_AddObjectToObject(root, "host_link");
        cJSON_AddItemToObject(h, "host_to_device", sweep_with_fit(&r->host.h2d, &r->host.h2d_fit));
        cJSON_AddItemToObject(h, "device_to_host", sweep_with_fit(&r->host.d2h, &r->host.d2h_fit));
    }
    if (r->p2p.done) {
        cJSON *q = cJSON_AddObjectToObject(root, "peer_to_peer");
        cJSON_AddNumberToObject(q, "peer_device", r->p2p.peer);
        cJSON_AddItemToObject(q, "one_way", sweep_with_fit(&r->p2p.one_way, &r->p2p.one_way_fit));
        cJSON_AddNumberToObject(q, "both_ways_gbs_each", r->p2p.both_ways_gbs);
    }
    if (nc->done) {
        cJSON *n = nccl_section(root, "nccl_allreduce", nc);
        cJSON_AddStringToObject(n, "op", "sum");
        cJSON_AddNumberToObject(n, "iters", nc->iters);
        cJSON_AddNumberToObject(n, "warmup", nc->warmup);
        cJSON_AddItemToObject(n, "out_of_place", sweep_with_fit(&nc->oop, &nc->oop_fit));
        cJSON_AddItemToObject(n, "in_place", sweep_with_fit(&nc->ip, &nc->ip_fit));
        cJSON *sr = nccl_section(root, "nccl_sendrecv", nc);
        cJSON_AddStringToObject(sr, "pattern", "every rank sends to rank+1 and receives from rank-1 at once");
        cJSON_AddItemToObject(sr, "sweep", sweep_with_fit(&nc->sendrecv, &nc->sendrecv_fit));
        const char *names[2] = {"nccl_allgather", "nccl_reducescatter"};
        const cal_sweep *sw[2] = {&nc->allgather, &nc->reducescatter};
        const cal_fit *fit[2] = {&nc->allgather_fit, &nc->reducescatter_fit};
        for (int i = 0; i < 2; i++)
            if (sw[i]->n)
                cJSON_AddItemToObject(nccl_section(root, names[i], nc), "sweep", sweep_with_fit(sw[i], fit[i]));
    }
    if (mp->done) {
        cJSON *m = cJSON_AddObjectToObject(root, "mpi_pingpong");
        cJSON_AddItemToObject(m, "sweep", sweep_with_fit(&mp->sweep, &mp->fit));
    }
    if (ov->done) {
        cJSON *c = cJSON_AddObjectToObject(root, "nccl_overlap");
        cJSON_AddNumberToObject(c, "ranks", ov->ranks);
        cJSON_AddNumberToObject(c, "allreduce_bytes", ov->bytes);
        cJSON_AddStringToObject(c, "timing",
                                "per kind of work, every rank: 10 rounds of work timed (CUDA events) alone and beside "
                                "a stream of in-place all-reduces (float sum) that outlasts them 3x, which starts "
                                "first; 50 all-reduces alone and beside work that outlasts them 3x; medians of 3, mean "
                                "over the ranks; gemm_fp32: cublasSgemm 4096^3 (FMA lanes), copy: 512 MiB read and "
                                "written, gemm_fp16: cublasGemmEx FP16 8192^3, FP32 accumulation (tensor cores)");
        cJSON *ws = cJSON_AddArrayToObject(c, "work");
        for (int k = 0; k < CAL_OVERLAP_WORKS; k++) {
            const cal_overlap_work *w = &ov->w[k];
            cJSON *item = cJSON_CreateObject();
            cJSON_AddStringToObject(item, "kind", w->kind);
            cJSON_AddNumberToObject(item, "work_alone_ms", w->work_alone_ms);
            cJSON_AddNumberToObject(item, "work_beside_allreduce_ms", w->work_beside_ms);
            cJSON_AddNumberToObject(item, "allreduce_alone_us", w->ar_alone_us);
            cJSON_AddNumberToObject(item, "allreduce_beside_work_us", w->ar_beside_us);
            cJSON_AddNumberToObject(item, "work_rate", w->work_alone_ms / w->work_beside_ms);
            cJSON_AddNumberToObject(item, "allreduce_rate", w->ar_alone_us / w->ar_beside_us);
            cJSON_AddItemToArray(ws, item);
        }
    }
    return root;
}

static int write_text(const char *path, const char *text, const char *what)
{
    cp_error err;
    cp_atomic_file out;
    if (cp_atomic_open(&out, path, &err)) {
        fprintf(stderr, "cnnperf-calibrate: %s: %s\n", what, err.msg);
        return CAL_EXIT_RUNTIME;
    }
    fputs(text, out.f);
    if (ferror(out.f)) {
        cp_atomic_abort(&out);
        fprintf(stderr, "cnnperf-calibrate: write error on %s\n", path ? path : "standard output");
        return CAL_EXIT_RUNTIME;
    }
    if (cp_atomic_commit(&out, &err)) {
        fprintf(stderr, "cnnperf-calibrate: %s: %s\n", what, err.msg);
        return CAL_EXIT_RUNTIME;
    }
    return 0;
}

/* Writes root and frees it. */
static int write_json(const char *path, cJSON *root, const char *what)
{
    cp_error err;
    if (cp_json_write_file(path, root, false, &err)) {
        fprintf(stderr, "cnnperf-calibrate: %s: %s\n", what, err.msg);
        return CAL_EXIT_RUNTIME;
    }
    return 0;
}

/* "x/run.json" -> "x/run-raw.json"; "x/run" -> "x/run-raw.json". */
static char *raw_path_for(const char *output)
{
    size_t n = strlen(output);
    char *p = cal_xcalloc(n + 16, 1);
    memcpy(p, output, n);
    if (n > 5 && strcmp(output + n - 5, ".json") == 0)
        n -= 5;
    strcpy(p + n, "-raw.json");
    return p;
}

/* --- main ---------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    options o = {.output = NULL,
                 .gemm_size = 8192,
                 .trials = 5,
                 .mem_mib = 1024,
                 .iters = 20,
                 .warmup = 5,
                 .min_bytes = 8,
                 .max_bytes = 1073741824.0,
                 .step = 2,
                 .timeout_s = 20};
    for (int i = 0; i < B_COUNT; i++)
        o.only[i] = 1;
    int argc0 = argc;
    char **argv0 = argv;
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc;
    if (o.self_test)
        return launched_by_mpi() ? mpi_self_test(&argc, &argv) : cal_self_test(o.output);
    if (o.check_kernels) { /* NVRTC needs no GPU: a mistake in the kernels' source shows here */
        size_t size = 0;
        free(cal_kernels_compile(o.check_kernels / 10, o.check_kernels % 10, &size));
        fprintf(stderr, "cnnperf-calibrate: NVRTC built the kernels for sm_%d (%zu bytes)\n", o.check_kernels, size);
        return 0;
    }
    if (o.quick) {
        o.gemm_size = o.gemm_size == 8192 ? 2048 : o.gemm_size;
        o.mem_mib = o.mem_mib == 1024 ? 64 : o.mem_mib;
        o.max_bytes = o.max_bytes == 1073741824.0 ? 67108864.0 : o.max_bytes;
        o.trials = o.trials == 5 ? 2 : o.trials;
    }

    /* No GPU is not a failure: tests that need one are skipped. */
    int gpus = gpus_or_skip("cnnperf-calibrate", "");
    if (gpus == 0)
        return CAL_EXIT_SKIP;

    provenance pv;
    collect_provenance(&pv, argc0, argv0);
    int dev = start_ranks(&argc, &argv, gpus, &pv.hosts);
    cal_gpu g;
    cal_gpu_init(&g, dev);

    /* The profile to start from, before minutes of measuring. */
    char base_file[256] = "";
    char *base_text = NULL;
    if (cal_rank == 0) {
        char id[64];
        const char *spec = o.base;
        if (!spec) {
            if (cp_device_id_from_name(g.name, id, sizeof id))
                cal_fail(CAL_EXIT_BAD_INPUT,
                         "no built-in profile matches GPU '%s' (built in: h100, h200, a100, v100, gtx1080, "
                         "gtx1080ti): give --base ID|FILE, a profile of the same GPU model",
                         g.name);
            spec = id;
        }
        cp_error err;
        base_text = cal_base_load(spec, base_file, sizeof base_file, &err);
        if (!base_text)
            cal_fail(CAL_EXIT_BAD_INPUT, "--base: %s", err.msg);
        cJSON *b = cJSON_Parse(base_text);
        const cJSON *sms = cJSON_GetObjectItemCaseSensitive(b, "sm_count");
        if (cJSON_IsObject(sms))
            sms = cJSON_GetObjectItemCaseSensitive(sms, "value");
        if (cJSON_IsNumber(sms) && sms->valueint != g.sm_count)
            cal_say("warning: %s describes %d SMs but %s has %d: a different variant of the GPU? its datasheet "
                    "fields (dram_bandwidth_gbs, clocks) may not fit; consider --base FILE",
                    base_file, sms->valueint, g.name, g.sm_count);
        cJSON_Delete(b);
        cal_say("%s (sm_%d%d, %d SMs, %.0f GiB, %s), driver %s, CUDA %s; starting from %s; %d rank%s", g.name,
                g.cc_major, g.cc_minor, g.sm_count, g.memory_gib, g.pci_bus_id, pv.driver, pv.cuda_runtime, base_file,
                cal_ranks, cal_ranks > 1 ? "s" : "");
    }

    cal_device_results r;
    memset(&r, 0, sizeof r);
    double t0 = cal_now_s();
    if (cal_rank == 0) {
        if (o.only[B_GEMM])
            cal_run_gemm(&g, o.gemm_size, o.trials, 10, r.gemm);
        if (o.only[B_MEMORY])
            cal_run_membw(&g, (size_t)o.mem_mib << 20, o.trials, &r.mem);
        if (o.only[B_LAUNCH])
            cal_run_launch(&g, 500, &r.launch);
        if (o.only[B_LATENCY])
            cal_run_latency(&g, o.quick ? 20000 : 100000, &r.lat);
        if (o.only[B_HOSTLINK])
            cal_run_hostlink(&g, o.min_bytes, o.max_bytes, o.step, &r.host);
        if (o.only[B_P2P])
            cal_run_p2p(&g, o.min_bytes, o.max_bytes, o.step, &r.p2p);
        cal_say("device benchmarks took %.1f s", cal_now_s() - t0);
    }
    barrier();

    cal_nccl nc;
    cal_mpi mp;
    memset(&nc, 0, sizeof nc);
    memset(&mp, 0, sizeof mp);
#ifdef CNNPERF_HAVE_NCCL
    if (cal_ranks > 1 && o.only[B_NCCL])
        cal_run_nccl(&g, o.min_bytes, o.max_bytes, o.step, o.iters, o.warmup, o.timeout_s, &nc);
#else
    if (cal_rank == 0 && cal_ranks > 1 && o.only[B_NCCL])
        cal_say("built without NCCL: no all-reduce sweep");
#endif
    if (cal_ranks > 1 && o.only[B_MPI])
        cal_run_mpi(o.min_bytes, o.max_bytes, o.step, &mp);
    cal_overlap ov;
    memset(&ov, 0, sizeof ov);
#ifdef CNNPERF_HAVE_NCCL
    if (cal_ranks > 1 && o.only[B_OVERLAP])
        cal_run_overlap(&g, 32.0 * 1048576, o.timeout_s, &ov);
#endif
    if (cal_rank == 0 && cal_ranks == 1 && (o.only[B_NCCL] || o.only[B_MPI]))
        cal_say("one rank: no NCCL or MPI sweep (run one rank per GPU under mpirun for those)");

    rc = 0;
    if (cal_rank == 0) {
        cal_where = "writing the results";
        int device_measured = r.mem.done || r.launch.done || r.lat.done || r.host.done;
        for (int k = 0; k < CAL_GEMM_KINDS; k++)
            device_measured |= r.gemm[k].done;
        char *profile_text = NULL;
        cJSON *changes = cJSON_CreateArray();
        if (device_measured || ov.done) {
            cal_stamp st = {pv.date, g.name, pv.driver, pv.cuda_runtime, cal_host, 0, o.quick};
            cp_error err;
            cJSON *prof = cal_profile_build(base_text, base_file, &r, &st, changes, &err);
            if (!prof)
                cal_die("building the profile: %s", err.msg);
            if (ov.done)
                cal_profile_set_overlap(prof, &ov, &st, changes);
            profile_text = cal_profile_text(prof);
            cJSON_Delete(prof);
            if (cal_profile_check(profile_text, o.output ? o.output : "<profile>", &err))
                cal_die("the profile written would not load (a bug): %s", err.msg);
        }

        /* Report: standard output, unless the profile goes there. */
        FILE *rep = (!o.output || strcmp(o.output, "-") == 0) ? stderr : stdout;
        cal_print_legend(rep);
        if (r.p2p.done)
            cal_print_table(rep, "peer to peer, one way (time: median of repetitions)", &r.p2p.one_way, NULL,
                            &r.p2p.one_way_fit);
        if (r.host.done) {
            cal_print_table(rep, "host link, pinned memory: host-to-device (time: median of repetitions)", &r.host.h2d,
                            NULL, &r.host.h2d_fit);
            cal_print_table(rep, "host link, pinned memory: device-to-host (time: median of repetitions)", &r.host.d2h,
                            NULL, &r.host.d2h_fit);
        }
        if (nc.done) {
            char title[256];
            snprintf(title, sizeof title,
                     "NCCL %s all-reduce, float sum, %d ranks, %d iterations per size after %d warm-up (time: mean "
                     "over the ranks); fit of out-of-place",
                     nc.version, nc.ranks, nc.iters, nc.warmup);
            cal_print_table(rep, title, &nc.oop, &nc.ip, &nc.oop_fit);
            snprintf(title, sizeof title,
                     "NCCL %s send/receive around a ring of %d ranks, float, %d iterations per size after %d warm-up "
                     "(time: mean over the ranks)",
                     nc.version, nc.ranks, nc.iters, nc.warmup);
            cal_print_table(rep, title, &nc.sendrecv, NULL, &nc.sendrecv_fit);
            snprintf(title, sizeof title,
                     "NCCL %s all-gather, float, %d ranks, bytes = the gathered buffer (time: mean over the ranks)",
                     nc.version, nc.ranks);
            cal_print_table(rep, title, &nc.allgather, NULL, &nc.allgather_fit);
            snprintf(title, sizeof title,
                     "NCCL %s reduce-scatter, float sum, %d ranks, bytes = each rank's input (time: mean over the "
                     "ranks)",
                     nc.version, nc.ranks);
            cal_print_table(rep, title, &nc.reducescatter, NULL, &nc.reducescatter_fit);
        }
        if (mp.done)
            cal_print_table(rep, "MPI ping-pong rank 0 <-> rank 1, host memory (time: one way = round trip / 2)",
                            &mp.sweep, NULL, &mp.fit);
        fprintf(rep, "#\n# profile fields replaced (%s -> %s):\n", base_file, o.output ? o.output : "stdout");
        for (const cJSON *c = changes->child; c; c = c->next) {
            const cJSON *f = cJSON_GetObjectItemCaseSensitive(c, "field");
            const cJSON *old = cJSON_GetObjectItemCaseSensitive(c, "old");
            const cJSON *nw = cJSON_GetObjectItemCaseSensitive(c, "new");
            const cJSON *why = cJSON_GetObjectItemCaseSensitive(c, "why");
            if (nw)
                fprintf(rep, "#   %-24s %10g -> %g\n", f->valuestring, cJSON_IsNumber(old) ? old->valuedouble : NAN,
                        nw->valuedouble);
            else
                fprintf(rep, "#   %-24s kept: %s\n", f->valuestring, why ? why->valuestring : "");
        }
        fflush(rep);

        char *raw_owned = NULL;
        const char *raw_path = o.raw;
        if (!raw_path && o.output && strcmp(o.output, "-") != 0)
            raw_path = raw_owned = raw_path_for(o.output);
        if (profile_text)
            rc = write_text(o.output, profile_text, "profile");
        else
            cal_say("no device benchmark ran (--only): no profile written");
        cJSON *raw = raw_json(&o, &pv, &g, base_file, &r, &nc, &mp, &ov, changes);
        if (raw_path && !rc) {
            rc = write_json(raw_path, raw, "raw measurements");
            raw = NULL;
        }
        if (!rc && (profile_text || raw_path))
            cal_say("wrote %s%s%s", profile_text ? (o.output ? o.output : "the profile to standard output") : "",
                    profile_text && raw_path ? " and " : "", raw_path ? raw_path : "");
        cJSON_Delete(raw);
        free(raw_owned);
        free(profile_text);
    }
    cal_sweep_free(&r.host.h2d);
    cal_sweep_free(&r.host.d2h);
    cal_sweep_free(&nc.oop);
    cal_sweep_free(&nc.ip);
    cal_sweep_free(&nc.sendrecv);
    cal_sweep_free(&nc.allgather);
    cal_sweep_free(&nc.reducescatter);
    cal_sweep_free(&mp.sweep);
    free(base_text);
    free(pv.hosts);
    cal_gpu_free(&g);
    barrier();
    finish_ranks();
    return rc;
}
