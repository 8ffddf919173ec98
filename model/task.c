#include "task.h"

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
    int i = tr->n++;
    tr->t[i] = (cp_task){.type = type, .name = name, .unit = unit, .link = -1, .kernel = -1,
                         .first = -1, .last = -1, .next = -1};
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
        double sum = 0;
        for (int c = t->first; c >= 0; c = tr->t[c].next) {
            if (eval_node(tr, c, s, err))
                return -1;
            sum += tr->t[c].time_ms;
        }
        tr->t[root].time_ms = sum;
        return 0;
    }
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
