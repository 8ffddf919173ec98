#include "task.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void cp_tree_init(cp_tree *tr)
{
    memset(tr, 0, sizeof *tr);
}

void cp_tree_free(cp_tree *tr)
{
    free(tr->t);
    free(tr->k);
    free(tr->ke);
    cp_tree_init(tr);
}

int cp_tree_reserve(cp_tree *tr, int nodes, int kernels)
{
    if (nodes > tr->cap) {
        cp_task *nt = realloc(tr->t, (size_t)nodes * sizeof *nt);
        if (!nt)
            return -1;
        tr->t = nt;
        tr->cap = nodes;
    }
    if (kernels > tr->capk) {
        cp_kernel *nk = realloc(tr->k, (size_t)kernels * sizeof *nk);
        if (!nk)
            return -1;
        tr->k = nk;
        cp_kernel_eval *ne = realloc(tr->ke, (size_t)kernels * sizeof *ne);
        if (!ne)
            return -1;
        tr->ke = ne;
        tr->capk = kernels;
    }
    return 0;
}

#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
_Static_assert(sizeof(cp_task) == 160, "cp_tree_node sets every field of cp_task: set the new one there");
#endif

int cp_tree_node(cp_tree *tr, int parent, cp_task_type type, const char *name, int unit)
{
    if (tr->n == tr->cap) {
        int cap = tr->cap ? tr->cap * 2 : 256;
        cp_task *nt = realloc(tr->t, (size_t)cap * sizeof *nt);
        if (!nt)
            return -1;
        tr->t = nt;
        tr->cap = cap;
    }
    /* field by field: a zeroing initialiser compiles to `rep stos`, slow
     * for one small struct, and the tree builder makes hundreds of nodes */
    int i = tr->n++;
    cp_task *t = &tr->t[i];
    t->type = type;
    t->name = name;
    t->detail = NULL;
    t->unit = unit;
    t->link = t->kernel = -1;
    t->bytes = 0;
    t->msgs = 0;
    t->first = t->last = t->next = -1;
    t->count = 0;
    t->time_ms = 0;
    t->scale = 1;
    t->offset_ms = 0;
    t->same_as = -1;
    t->resource = 0;
    for (int d = 0; d < CP_MAX_DEPS; d++)
        t->dep[d] = -1;
    t->ndeps = 0;
    t->start_ms = t->end_ms = 0;
    t->interference = 0;
    t->co_rate = t->co_other_rate = -1;
    if (parent >= 0) {
        cp_task *p = &tr->t[parent];
        if (p->last >= 0)
            tr->t[p->last].next = i;
        else
            p->first = i;
        p->last = i;
        p->count++;
    }
    return i;
}

int cp_tree_compute(cp_tree *tr, int parent, int unit, const cp_kernel *k)
{
    if (tr->nk == tr->capk) {
        int cap = tr->capk ? tr->capk * 2 : 256;
        cp_kernel *nk = realloc(tr->k, (size_t)cap * sizeof *nk);
        if (!nk)
            return -1;
        tr->k = nk;
        cp_kernel_eval *ne = realloc(tr->ke, (size_t)cap * sizeof *ne);
        if (!ne)
            return -1;
        tr->ke = ne;
        tr->capk = cap;
    }
    int i = cp_tree_node(tr, parent, CP_TASK_COMPUTE, NULL, unit);
    if (i < 0)
        return -1;
    tr->k[tr->nk] = *k;
    tr->t[i].kernel = tr->nk++;
    tr->t[i].name = tr->k[tr->t[i].kernel].name;
    return i;
}

int cp_tree_compute_ref(cp_tree *tr, int parent, int unit, int kernel)
{
    if (kernel < 0 || kernel >= tr->nk)
        return -1;
    int i = cp_tree_node(tr, parent, CP_TASK_COMPUTE, tr->k[kernel].name, unit);
    if (i >= 0)
        tr->t[i].kernel = kernel;
    return i;
}

int cp_tree_repeat(cp_tree *tr, int parent, int of, const char *name)
{
    if (of < 0 || of >= tr->n || tr->t[of].type != CP_TASK_SEQ)
        return -1;
    of = cp_tree_body(tr, of);
    int i = cp_tree_node(tr, parent, CP_TASK_SEQ, name, -1);
    if (i >= 0)
        tr->t[i].same_as = of;
    return i;
}

int cp_tree_fixed(cp_tree *tr, int parent, const char *name, double time_ms)
{
    int i = cp_tree_node(tr, parent, CP_TASK_FIXED, name, -1);
    if (i >= 0)
        tr->t[i].time_ms = time_ms;
    return i;
}

int cp_tree_place(cp_tree *tr, int child, int resource, int after)
{
    if (child < 0 || child >= tr->n || resource < 0 || resource >= CP_DAG_RESOURCES || after >= tr->n)
        return -1;
    cp_task *t = &tr->t[child];
    t->resource = resource;
    if (after >= 0) {
        if (t->ndeps == CP_MAX_DEPS)
            return -1;
        t->dep[t->ndeps++] = after;
    }
    return 0;
}

int cp_tree_transfer(cp_tree *tr, int parent, const char *name, int link, double bytes, int msgs)
{
    int i = cp_tree_node(tr, parent, CP_TASK_TRANSFER, name, -1);
    if (i < 0)
        return -1;
    tr->t[i].link = link;
    tr->t[i].bytes = bytes;
    tr->t[i].msgs = msgs;
    return i;
}

/* A network repeats identical layers, and so identical kernels on the same
 * unit: each distinct (kernel, unit) pair is timed once per evaluation. */
static unsigned kernel_hash(const cp_kernel *k, int unit)
{
    /* a few fields that tell kernels apart; equality is checked in full */
    double f[] = {(double)k->blocks, k->threads, (double)k->iters, k->I, k->M, k->L, k->K, k->dram_bytes, unit};
    unsigned long long h = (unsigned long long)(size_t)k->name;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        unsigned long long x;
        memcpy(&x, &f[i], sizeof x);
        h = (h ^ x) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 31;
    }
    return (unsigned)(h ^ (h >> 32));
}

static int compute_leaf(cp_tree *tr, cp_task *t, const cp_system *s, cp_error *err)
{
    const cp_kernel *k = &tr->k[t->kernel];
    if (tr->timed && tr->timed[t->kernel]) { /* a shared kernel, already timed */
        t->time_ms = tr->ke[t->kernel].time_ms;
        return 0;
    }
    if (tr->timed)
        tr->timed[t->kernel] = 1;
    unsigned slot = 0;
    if (tr->memo) {
        slot = kernel_hash(k, t->unit) & (unsigned)(tr->memo_slots - 1);
        for (;; slot = (slot + 1) & (unsigned)(tr->memo_slots - 1)) {
            int j = tr->memo[slot];
            if (j < 0)
                break;
            const cp_task *o = &tr->t[j];
            if (o->unit == t->unit && memcmp(&tr->k[o->kernel], k, sizeof *k) == 0) {
                tr->ke[t->kernel] = tr->ke[o->kernel];
                t->time_ms = o->time_ms;
                return 0;
            }
        }
    }
    if (cp_unit_compute(&s->units[t->unit], k, &tr->ke[t->kernel], err))
        return -1;
    t->time_ms = tr->ke[t->kernel].time_ms;
    if (tr->memo)
        tr->memo[slot] = (int)(t - tr->t);
    return 0;
}

static int eval_node(cp_tree *tr, int root, const cp_system *s, cp_error *err);

/* List scheduling of a DAG's children with the children's own times as
 * work: each resource runs its children in order, a child starts when the
 * resource is free and its dependencies are done, and work on resource 0
 * advances at (1 - interference) while resource 1 is busy (or at its own
 * co_rate, slowing resource 1 to its co_other_rate). Time advances
 * from one completion to the next. */
static int schedule_dag(cp_tree *tr, int dag, cp_error *err)
{
    cp_task *d = &tr->t[dag];
    int next[CP_DAG_RESOURCES], run[CP_DAG_RESOURCES];
    double left[CP_DAG_RESOURCES];
    for (int r = 0; r < CP_DAG_RESOURCES; r++) {
        run[r] = -1;
        left[r] = 0;
        next[r] = -1;
    }
    /* the first child on each resource; children are chained in list order */
    for (int c = d->first; c >= 0; c = tr->t[c].next) {
        tr->t[c].start_ms = tr->t[c].end_ms = -1;
        if (next[tr->t[c].resource] < 0)
            next[tr->t[c].resource] = c;
    }
    double now = 0, slow = 1.0 - (d->interference < 0 ? 0 : d->interference > 0.95 ? 0.95 : d->interference);
    int remaining = d->count;
    while (remaining > 0) {
        /* start what can start */
        for (int r = 0; r < CP_DAG_RESOURCES; r++) {
            while (run[r] < 0 && next[r] >= 0) {
                cp_task *c = &tr->t[next[r]];
                int ready = 1;
                for (int k = 0; k < c->ndeps; k++)
                    ready &= tr->t[c->dep[k]].end_ms >= 0;
                if (!ready)
                    break;
                run[r] = next[r];
                c->start_ms = now;
                left[r] = c->time_ms;
                int n = c->next;
                while (n >= 0 && tr->t[n].resource != r)
                    n = tr->t[n].next;
                next[r] = n;
                if (left[r] <= 0) { /* nothing to do: done at once */
                    c->end_ms = now;
                    run[r] = -1;
                    remaining--;
                }
            }
        }
        if (remaining == 0)
            break;
        double rate[CP_DAG_RESOURCES], step = -1;
        const cp_task *w = run[0] >= 0 ? &tr->t[run[0]] : NULL;
        for (int r = 0; r < CP_DAG_RESOURCES; r++) {
            rate[r] = 1.0;
            if (r == 0 && w && run[1] >= 0)
                rate[r] = w->co_rate >= 0 ? w->co_rate : slow;
            else if (r == 1 && w && w->co_other_rate >= 0)
                rate[r] = w->co_other_rate;
            if (run[r] >= 0 && (step < 0 || left[r] / rate[r] < step))
                step = left[r] / rate[r];
        }
        if (step < 0)
            return cp_fail(err, NULL, NULL, "task '%s': its dependencies form a cycle or wait on a later task",
                           d->name ? d->name : "?");
        now += step;
        for (int r = 0; r < CP_DAG_RESOURCES; r++) {
            if (run[r] < 0)
                continue;
            left[r] -= step * rate[r];
            if (left[r] <= 1e-12 * (1 + now)) {
                tr->t[run[r]].end_ms = now;
                run[r] = -1;
                remaining--;
            }
        }
    }
    d->time_ms = now;
    return 0;
}

int cp_tree_eval(cp_tree *tr, int root, const cp_system *s, cp_error *err)
{
    int slots = 16;
    while (slots < 2 * tr->nk)
        slots *= 2;
    tr->memo = malloc((size_t)slots * sizeof *tr->memo); /* without it, every kernel is simply timed */
    tr->memo_slots = slots;
    if (tr->memo)
        memset(tr->memo, 0xff, (size_t)slots * sizeof *tr->memo);
    tr->timed = calloc((size_t)tr->nk + 1, 1);
    int rc = eval_node(tr, root, s, err);
    free(tr->memo);
    free(tr->timed);
    tr->memo = NULL;
    tr->timed = NULL;
    return rc;
}

static int eval_node(cp_tree *tr, int root, const cp_system *s, cp_error *err)
{
    cp_task *t = &tr->t[root];
    switch (t->type) {
    case CP_TASK_COMPUTE:
        if (t->unit < 0 || t->unit >= s->n_units)
            return cp_fail(err, NULL, NULL, "task '%s' runs on unknown unit %d", t->name, t->unit);
        return compute_leaf(tr, t, s, err);
    case CP_TASK_TRANSFER:
        if (t->link < 0 || t->link >= s->n_links)
            return cp_fail(err, NULL, NULL, "transfer '%s' uses unknown link %d", t->name, t->link);
        t->time_ms = cp_transfer_ms(&s->links[t->link], t->bytes, t->msgs);
        return 0;
    case CP_TASK_SEQ: { /* Eq. 5-1, 5-3, 5-6, 5-7: a sum */
        if (t->same_as >= 0) { /* the same tasks again: the same time */
            t->time_ms = tr->t[t->same_as].time_ms;
            return 0;
        }
        double sum = 0;
        for (int c = t->first; c >= 0; c = tr->t[c].next) {
            if (eval_node(tr, c, s, err))
                return -1;
            sum += tr->t[c].time_ms;
        }
        t = &tr->t[root];
        tr->t[root].time_ms = t->scale * sum + t->offset_ms;
        return 0;
    }
    case CP_TASK_FIXED:
        return 0;
    case CP_TASK_DAG:
        for (int c = t->first; c >= 0; c = tr->t[c].next)
            if (eval_node(tr, c, s, err))
                return -1;
        return schedule_dag(tr, root, err);
    case CP_TASK_PAR: { /* Eq. 5-2b, 5-5: by the unit's class rule */
        if (t->unit < 0 || t->unit >= s->n_units)
            return cp_fail(err, NULL, NULL, "parallel task '%s' has no processing unit", t->name ? t->name : "?");
        cp_flynn cls = s->units[t->unit].cls;
        double acc = 0;
        for (int c = t->first; c >= 0; c = tr->t[c].next) {
            if (eval_node(tr, c, s, err))
                return -1;
            double v[2] = {acc, tr->t[c].time_ms};
            acc = cp_flynn_combine(cls, v, 2);
        }
        tr->t[root].time_ms = acc;
        return 0;
    }
    }
    return cp_fail(err, NULL, NULL, "internal: bad task type");
}
