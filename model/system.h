/* system: the parallel system abstract model (dissertation 5.3.2, 5.3.3).
 *
 * A system is a set of processing units, each classed by the extended Flynn
 * taxonomy, and links between them. A unit's class says how the times of
 * parallel subtasks placed on it combine (Eq. 5-13...5-15) and how a compute
 * task's time is found; a link gives a transfer's time (Eq. 5-10...5-12). */
#ifndef CP_SYSTEM_H
#define CP_SYSTEM_H

#include "device.h"
#include "kernel.h"

typedef enum { CP_SISD, CP_SIMD, CP_MISD, CP_MIMD, CP_HETEROGENEOUS } cp_flynn;

const char *cp_flynn_name(cp_flynn f);

#define CP_MAX_UNITS 16
#define CP_MAX_LINKS 16

typedef struct {
    char name[128];
    cp_flynn cls;
    const cp_device *gpu; /* SIMD (SIMT) units: the GPU the kernel model runs on */
    double gflops;        /* SISD/MIMD units: sustained rate of one instruction stream */
    int streams;          /* MIMD: independent instruction streams (cores) */
} cp_unit;

typedef struct {
    char name[128];
    double bandwidth_gbs; /* B */
    double latency_us;    /* L_D per message */
} cp_link;

typedef struct {
    cp_flynn cls; /* the whole system: heterogeneous when host and GPU cooperate */
    cp_unit units[CP_MAX_UNITS];
    int n_units;
    cp_link links[CP_MAX_LINKS];
    int n_links;
} cp_system;

/* Unit and link indices of the one-GPU system built by cp_system_single_gpu. */
enum { CP_UNIT_HOST = 0, CP_UNIT_GPU = 1 };
enum { CP_LINK_HOST_DATA = 0, CP_LINK_HOST_INSTR = 1 };

/* A host CPU and one GPU joined by the host link: a heterogeneous system. */
int cp_system_single_gpu(cp_system *s, const cp_device *d, cp_error *err);

int cp_system_add_unit(cp_system *s, const char *name, cp_flynn cls, const cp_device *gpu, double gflops,
                       int streams, cp_error *err);
int cp_system_add_link(cp_system *s, const char *name, double bandwidth_gbs, double latency_us, cp_error *err);

/* Combines the times of n parallel subtasks placed on a unit of class f:
 * one instruction stream (SISD) runs them one after another; SIMD, MISD and
 * MIMD units run them together and finish with the slowest (Eq. 5-13...5-15). */
double cp_flynn_combine(cp_flynn f, const double *t, int n);

/* One measurement of a link moved toward a steadier one (the median of many
 * of its kind): bandwidth and latency each the geometric mean of the two
 * (their mean where one is 0); the name says so. */
void cp_link_toward(cp_link *l, const cp_link *steady);

/* Eq. 5-10: T = V / B + L x N_msg, in milliseconds. */
double cp_transfer_ms(const cp_link *l, double bytes, int msgs);

/* Time of a compute task on a unit: the instruction-queue kernel model on a
 * SIMT unit, FLOPs over the instruction stream's rate on a CPU unit. */
int cp_unit_compute(const cp_unit *u, const cp_kernel *k, cp_kernel_eval *e, cp_error *err);

#endif
