/* task: the parallel application abstract model (dissertation 5.3.1).
 *
 * An application is a tree of tasks. A sequential task takes the sum of its
 * subtasks (Eq. 5-1, 5-3, 5-6, 5-7); a parallel task combines its subtasks
 * by the rule of the processing unit it runs on (Eq. 5-2, 5-5, and
 * 5-13...5-15); leaves are compute tasks (a kernel on a unit) or transfers
 * (bytes over a link, Eq. 5-10). Evaluating the root gives Eq. 5-8. Nodes
 * live in one growable array and refer to each other by index.
 *
 * Training on several GPUs overlaps communication with computation, which
 * a tree of sums and maxima cannot say. A DAG task extends the model: its
 * children run on resources (streams: 0 computes, 1 communicates, ...) in
 * the order they are listed, each after the children it depends on, and
 * computation slows by the DAG's `interference` while communication runs
 * (communication kernels take SMs). Its time is the schedule's length. */
#ifndef CP_TASK_H
#define CP_TASK_H

#include "kernel.h"
#include "system.h"

typedef enum { CP_TASK_SEQ, CP_TASK_PAR, CP_TASK_COMPUTE, CP_TASK_TRANSFER, CP_TASK_FIXED, CP_TASK_DAG } cp_task_type;

#define CP_DAG_RESOURCES 4
#define CP_MAX_DEPS 2

typedef struct {
    cp_task_type type;
    const char *name; /* not owned: a layer name or a literal */
    const char *detail;
    int unit;         /* PAR and COMPUTE: index into the system's units */
    int link;         /* TRANSFER */
    int kernel;       /* COMPUTE: index into the tree's kernels */
    double bytes;     /* TRANSFER: V */
    int msgs;         /* TRANSFER: N_msg */
    int first, last, next; /* children, as indices (-1: none) */
    int count;        /* number of children */
    double time_ms;   /* filled by cp_tree_eval; FIXED: given */
    /* SEQ: time = scale x sum + offset_ms; a layer pass's calibration
     * (calibration.h), 1 and 0 otherwise */
    double scale, offset_ms;
    /* SEQ: -1, or an earlier node this one repeats (a repeated layer's pass:
     * the same kernels): it takes that node's time, and its children are
     * that node's (cp_tree_body). */
    int same_as;
    /* as a child of a DAG */
    int resource;            /* the stream it runs on */
    int dep[CP_MAX_DEPS];    /* nodes that must finish first */
    int ndeps;
    double start_ms, end_ms; /* its place in the schedule, from the DAG's start */
    /* on resource 0, where >= 0: its own rate while resource 1 runs (else
     * the DAG's 1 - interference), and resource 1's rate while it runs
     * (else full speed): co-execution measured per kind of work */
    double co_rate, co_other_rate;
    /* as a DAG */
    double interference;     /* resource 0 runs at (1 - interference) while resource 1 is busy */
} cp_task;

typedef struct {
    cp_task *t;
    int n, cap;
    cp_kernel *k;
    cp_kernel_eval *ke;
    int nk, capk;
    int *memo; /* during evaluation: kernels already timed, by content */
    int memo_slots;
    unsigned char *timed; /* during evaluation: per kernel, whether ke[] is set */
} cp_tree;

void cp_tree_init(cp_tree *tr);
void cp_tree_free(cp_tree *tr);
/* Sizes the arrays for about this many nodes and kernels, so that building
 * the tree does not copy them while it grows. Returns -1 when out of memory. */
int cp_tree_reserve(cp_tree *tr, int nodes, int kernels);

/* Each returns the new node's index, or -1 when out of memory. parent -1
 * makes a root. */
int cp_tree_node(cp_tree *tr, int parent, cp_task_type type, const char *name, int unit);
int cp_tree_compute(cp_tree *tr, int parent, int unit, const cp_kernel *k);
/* A compute task running a kernel the tree already holds (index kernel):
 * repeated layers share their kernels, and each is timed once. */
int cp_tree_compute_ref(cp_tree *tr, int parent, int unit, int kernel);
/* A sequential task that repeats node `of`, which must be evaluated first
 * (built earlier in the same sequence, or in an earlier one). */
int cp_tree_repeat(cp_tree *tr, int parent, int of, const char *name);
/* The node whose children make up node i: i itself, or what i repeats. */
static inline int cp_tree_body(const cp_tree *tr, int i)
{
    return tr->t[i].same_as >= 0 ? tr->t[i].same_as : i;
}
int cp_tree_transfer(cp_tree *tr, int parent, const char *name, int link, double bytes, int msgs);
/* A task whose time is already known (taken from another evaluated tree). */
int cp_tree_fixed(cp_tree *tr, int parent, const char *name, double time_ms);
/* Places child (of a DAG) on a resource and makes it wait for `after`
 * (-1: nothing). Returns -1 on a bad index or too many dependencies. */
int cp_tree_place(cp_tree *tr, int child, int resource, int after);

/* Evaluates the subtree at root on the system; every node's time_ms is set. */
int cp_tree_eval(cp_tree *tr, int root, const cp_system *s, cp_error *err);

#endif
