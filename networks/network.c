#include "network.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/resources.h"

#define MAX_BLOCK_DEPTH 16

/* Names visible in one layer list: local name -> layer index. */
typedef struct {
    const char **names;
    int *index;
    int n, cap;
} scope;

typedef struct {
    cp_network *net;
    cp_jctx *c;
    const cJSON *blocks; /* the "blocks" object, may be NULL */
    const char *active[MAX_BLOCK_DEPTH];
    int depth;
    char *owned[4096]; /* strings created for scope names */
    int n_owned;
    int cap; /* allocated layers */
} loader;

static int scope_find(const scope *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->names[i], name) == 0)
            return i;
    return -1;
}

static int scope_add(scope *s, const char *name, int index)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        const char **nn = realloc(s->names, (size_t)cap * sizeof *nn);
        if (!nn)
            return -1;
        s->names = nn;
        int *ni = realloc(s->index, (size_t)cap * sizeof *ni);
        if (!ni)
            return -1;
        s->index = ni;
        s->cap = cap;
    }
    s->names[s->n] = name;
    s->index[s->n] = index;
    s->n++;
    return 0;
}

static void scope_free(scope *s)
{
    free(s->names);
    free(s->index);
}

static const char *own(loader *L, const char *text)
{
    if (L->n_owned == (int)(sizeof L->owned / sizeof L->owned[0]))
        return NULL;
    char *s = strdup(text);
    if (s)
        L->owned[L->n_owned++] = s;
    return s;
}

/* Replaces every "$arg" string inside v by the number args[arg]. */
static int substitute(loader *L, cJSON *v, const cJSON *args, const char *block)
{
    int index = 0;
    for (cJSON *it = v->child; it; it = it->next, index++) {
        if (cJSON_IsString(it) && it->valuestring && it->valuestring[0] == '$') {
            const cJSON *a = args ? cJSON_GetObjectItemCaseSensitive(args, it->valuestring + 1) : NULL;
            if (!a) {
                size_t mark = it->string ? cp_jpush_key(L->c, it->string) : cp_jpush_index(L->c, index);
                cp_jfail(L->c, NULL, "'%s' is not an argument of block '%s'", it->valuestring, block);
                cp_jpop(L->c, mark);
                return -1;
            }
            cJSON *num = cJSON_CreateNumber(a->valuedouble);
            if (!num)
                return cp_jfail(L->c, NULL, "out of memory");
            /* this very item, not the first of its key: the number takes over its key */
            num->string = it->string;
            it->string = NULL;
            cJSON_ReplaceItemViaPointer(v, it, num);
            it = num;
        } else if (cJSON_IsArray(it) || cJSON_IsObject(it)) {
            size_t mark = it->string ? cp_jpush_key(L->c, it->string) : cp_jpush_index(L->c, index);
            int rc = substitute(L, it, args, block);
            cp_jpop(L->c, mark);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static cp_layer *new_layer(loader *L)
{
    cp_network *n = L->net;
    if (n->n_layers == L->cap) {
        int cap = L->cap ? L->cap * 2 : 64;
        cp_layer *nl = realloc(n->layers, (size_t)cap * sizeof *nl);
        if (!nl)
            return NULL;
        n->layers = nl;
        L->cap = cap;
    }
    cp_layer *l = &n->layers[n->n_layers];
    memset(l, 0, sizeof *l);
    return l;
}

static cp_shape shape_of(const cp_network *n, int index)
{
    return index == CP_INPUT_DATA ? n->input : n->layers[index].out;
}

static int expand_list(loader *L, const cJSON *list, const char *prefix, int in_ref, const cJSON *args,
                       const char *block, const char *output, int *out_ref);

static int resolve_inputs(loader *L, const cJSON *entry, const scope *s, int in_ref, int prev, int *refs,
                          int *n_refs, int max)
{
    const cJSON *inputs = cp_jget(entry, "inputs");
    if (!inputs) {
        refs[0] = prev;
        *n_refs = 1;
        return 0;
    }
    if (!cJSON_IsArray(inputs) || cJSON_GetArraySize(inputs) == 0)
        return cp_jfail(L->c, "inputs", "must be a non-empty array of layer names");
    int n = cJSON_GetArraySize(inputs);
    if (n > max)
        return cp_jfail(L->c, "inputs", "at most %d inputs allowed here, got %d", max, n);
    size_t mark = cp_jpush_key(L->c, "inputs");
    int i = 0, rc = 0;
    for (const cJSON *it = inputs->child; it && !rc; it = it->next, i++) {
        size_t m2 = cp_jpush_index(L->c, i);
        if (!cJSON_IsString(it) || !it->valuestring) {
            rc = cp_jfail(L->c, NULL, "must be a layer name");
        } else if (strcmp(it->valuestring, "@in") == 0) {
            refs[i] = in_ref;
        } else {
            int k = scope_find(s, it->valuestring);
            if (k < 0)
                rc = cp_jfail(L->c, NULL,
                              "unknown input '%s' (an input must be '@in' or a layer listed earlier in the same list)",
                              it->valuestring);
            else
                refs[i] = s->index[k];
        }
        cp_jpop(L->c, m2);
    }
    cp_jpop(L->c, mark);
    *n_refs = n;
    return rc;
}

static int add_kind_layer(loader *L, const cJSON *entry, const char *full, const cp_layer_kind *kind,
                          const scope *s, int in_ref, int prev, const char *prefix)
{
    static const char *const common[] = {"name", "kind", "inputs"};
    /* unknown fields: the kind's own plus the common ones */
    for (const cJSON *it = entry->child; it; it = it->next) {
        int ok = 0;
        for (size_t i = 0; i < 3 && !ok; i++)
            ok = strcmp(it->string, common[i]) == 0;
        for (const char *const *f = kind->fields; f && *f && !ok; f++)
            ok = strcmp(it->string, *f) == 0;
        if (!ok)
            return cp_jfail(L->c, it->string, "unknown field for a '%s' layer", kind->name);
    }
    cp_layer *l = new_layer(L);
    if (!l)
        return cp_jfail(L->c, NULL, "out of memory");
    snprintf(l->name, sizeof l->name, "%s", full);
    l->kind = kind;
    if (resolve_inputs(L, entry, s, in_ref, prev, l->inputs, &l->n_inputs, CP_MAX_INPUTS))
        return -1;
    if (l->n_inputs < kind->min_inputs || l->n_inputs > kind->max_inputs) {
        if (kind->min_inputs == kind->max_inputs)
            return cp_jfail(L->c, "inputs", "a '%s' layer takes exactly %d input%s, got %d", kind->name,
                            kind->min_inputs, kind->min_inputs == 1 ? "" : "s", l->n_inputs);
        return cp_jfail(L->c, "inputs", "a '%s' layer takes %d to %d inputs, got %d", kind->name, kind->min_inputs,
                        kind->max_inputs, l->n_inputs);
    }
    for (int i = 0; i < l->n_inputs; i++)
        l->in[i] = shape_of(L->net, l->inputs[i]);
    if (kind->parse && kind->parse(l, entry, L->c))
        return -1;
    if (kind->infer(l, L->c)) {
        if (prefix && *prefix) {
            size_t len = strlen(L->c->err->msg);
            snprintf(L->c->err->msg + len, sizeof L->c->err->msg - len, " (in %s)", prefix);
        }
        return -1;
    }
    L->net->n_layers++;
    return 0;
}

static int add_block_use(loader *L, const cJSON *entry, const char *local, const char *full, const char *bname,
                         scope *s, int in_ref, int prev, int *out_ref)
{
    static const char *const fields[] = {"name", "block", "repeat", "with", "inputs", NULL};
    if (cp_jonly(L->c, entry, fields))
        return -1;
    const cJSON *def = L->blocks ? cp_jget(L->blocks, bname) : NULL;
    if (!def || !cJSON_IsObject(def))
        return cp_jfail(L->c, "block", "unknown block '%s'", bname);
    for (int i = 0; i < L->depth; i++)
        if (strcmp(L->active[i], bname) == 0)
            return cp_jfail(L->c, "block", "block '%s' uses itself (cycle through blocks)", bname);
    if (L->depth == MAX_BLOCK_DEPTH)
        return cp_jfail(L->c, "block", "blocks nested deeper than %d", MAX_BLOCK_DEPTH);
    long long repeat = 0;
    if (cp_jint(L->c, entry, "repeat", false, 0, 1, 100000, &repeat))
        return -1;
    int refs[1], n_refs = 0;
    if (resolve_inputs(L, entry, s, in_ref, prev, refs, &n_refs, 1))
        return -1;

    /* Check the arguments against the block's declaration. */
    const cJSON *with = cp_jget(entry, "with");
    const cJSON *declared = cp_jget(def, "args");
    if (with && !cJSON_IsObject(with))
        return cp_jfail(L->c, "with", "must be an object of block arguments");
    if (declared && !cJSON_IsArray(declared))
        return cp_jfail(L->c, NULL, "block '%s': 'args' must be an array of names", bname);
    for (const cJSON *a = declared ? declared->child : NULL; a; a = a->next) {
        if (!cJSON_IsString(a))
            return cp_jfail(L->c, NULL, "block '%s': 'args' must be an array of names", bname);
        const cJSON *v = with ? cp_jget(with, a->valuestring) : NULL;
        if (!v)
            return cp_jfail(L->c, "with", "missing argument '%s' of block '%s'", a->valuestring, bname);
        if (!cJSON_IsNumber(v)) {
            size_t m = cp_jpush_key(L->c, "with");
            int rc = cp_jfail(L->c, a->valuestring, "must be a number");
            cp_jpop(L->c, m);
            return rc;
        }
    }
    for (const cJSON *v = with ? with->child : NULL; v; v = v->next) {
        int ok = 0;
        for (const cJSON *a = declared ? declared->child : NULL; a && !ok; a = a->next)
            ok = strcmp(a->valuestring, v->string) == 0;
        if (!ok) {
            size_t m = cp_jpush_key(L->c, "with");
            int rc = cp_jfail(L->c, v->string, "block '%s' has no argument '%s'", bname, v->string);
            cp_jpop(L->c, m);
            return rc;
        }
    }
    const cJSON *layers = cp_jget(def, "layers");
    const char *output = NULL;
    const cJSON *o = cp_jget(def, "output");
    if (o)
        output = cJSON_IsString(o) ? o->valuestring : "";

    /* Expand: errors inside point into the block's definition. */
    char saved[sizeof L->c->path];
    memcpy(saved, L->c->path, sizeof saved);
    snprintf(L->c->path, sizeof L->c->path, "$.blocks.%s", bname);
    if (!cJSON_IsArray(layers) || cJSON_GetArraySize(layers) == 0) {
        int rc = cp_jfail(L->c, "layers", "a block needs a non-empty 'layers' array");
        return rc;
    }
    L->active[L->depth++] = bname;
    int cur = refs[0];
    int rc = 0;
    int n = repeat ? (int)repeat : 1;
    for (int r = 0; r < n && !rc; r++) {
        char inst[160];
        if (repeat)
            snprintf(inst, sizeof inst, "%s.%d", full, r);
        else
            snprintf(inst, sizeof inst, "%s", full);
        rc = expand_list(L, layers, inst, cur, with, bname, output, &cur);
        if (!rc && repeat) {
            /* "name.k" names the k-th repetition in the enclosing list */
            char loc[160];
            snprintf(loc, sizeof loc, "%s.%d", local, r);
            const char *nm = own(L, loc);
            if (!nm || scope_add(s, nm, cur))
                rc = cp_jfail(L->c, NULL, "out of memory");
        }
    }
    L->depth--;
    if (!rc)
        memcpy(L->c->path, saved, sizeof saved);
    *out_ref = cur;
    return rc;
}

static int expand_list(loader *L, const cJSON *list, const char *prefix, int in_ref, const cJSON *args,
                       const char *block, const char *output, int *out_ref)
{
    scope s = {0};
    int prev = in_ref, rc = 0, i = 0;
    size_t base = cp_jpush_key(L->c, "layers");
    for (const cJSON *raw = list->child; raw && !rc; raw = raw->next, i++) {
        size_t mark = cp_jpush_index(L->c, i);
        cJSON *entry = NULL;
        if (!cJSON_IsObject(raw)) {
            rc = cp_jfail(L->c, NULL, "a layer must be a JSON object");
            break;
        }
        entry = cJSON_Duplicate(raw, 1);
        if (!entry) {
            rc = cp_jfail(L->c, NULL, "out of memory");
            break;
        }
        if (block && (rc = substitute(L, entry, args, block)) != 0) {
            cJSON_Delete(entry);
            break;
        }
        const char *name = NULL, *kind = NULL, *bname = NULL;
        if (cp_jstr(L->c, entry, "name", true, &name) || cp_jstr(L->c, entry, "kind", false, &kind) ||
            cp_jstr(L->c, entry, "block", false, &bname)) {
            rc = -1;
        } else if (strcmp(name, "@in") == 0 || strchr(name, '$')) {
            rc = cp_jfail(L->c, "name", "'%s' is reserved", name);
        } else if (scope_find(&s, name) >= 0) {
            rc = cp_jfail(L->c, "name", "duplicate layer name '%s'", name);
        } else if (!kind == !bname) {
            rc = cp_jfail(L->c, NULL, "a layer needs exactly one of 'kind' or 'block'");
        }
        char full[sizeof L->net->layers[0].name];
        if (!rc) {
            int len = *prefix ? snprintf(full, sizeof full, "%s.%s", prefix, name)
                              : snprintf(full, sizeof full, "%s", name);
            if (len >= (int)sizeof full)
                rc = cp_jfail(L->c, "name", "full layer name longer than %zu characters", sizeof full - 1);
        }
        int ref = -2;
        if (!rc && kind) {
            const cp_layer_kind *k = cp_layer_kind_find(kind);
            if (!k)
                rc = cp_jfail(L->c, "kind", "unknown layer kind '%s' (known: %s)", kind, cp_layer_kind_list());
            else if ((rc = add_kind_layer(L, entry, full, k, &s, in_ref, prev, prefix)) == 0)
                ref = L->net->n_layers - 1;
        } else if (!rc) {
            rc = add_block_use(L, entry, name, full, bname, &s, in_ref, prev, &ref);
        }
        if (!rc) {
            const char *nm = own(L, name);
            if (!nm || scope_add(&s, nm, ref))
                rc = cp_jfail(L->c, NULL, "out of memory");
            prev = ref;
        }
        cJSON_Delete(entry);
        if (!rc)
            cp_jpop(L->c, mark);
    }
    if (!rc && i == 0)
        rc = cp_jfail(L->c, NULL, "must contain at least one layer");
    if (!rc) {
        *out_ref = prev;
        if (output) {
            int k = scope_find(&s, output);
            if (k < 0) {
                cp_jpop(L->c, base);
                rc = cp_jfail(L->c, "output", "unknown output layer '%s'", output);
            } else {
                *out_ref = s.index[k];
            }
        }
        if (!rc)
            cp_jpop(L->c, base);
    }
    scope_free(&s);
    return rc;
}

/* Which layers need a gradient with respect to their input: only those with
 * a layer that has parameters somewhere upstream (frameworks skip the rest). */
static void mark_gradients(cp_network *n)
{
    char *upstream = calloc((size_t)n->n_layers, 1);
    for (int i = 0; i < n->n_layers; i++) {
        cp_layer *l = &n->layers[i];
        bool any = false;
        for (int j = 0; j < l->n_inputs; j++) {
            int r = l->inputs[j];
            if (r == CP_INPUT_DATA)
                continue;
            n->layers[r].consumers++;
            if (n->layers[r].params > 0 || (upstream && upstream[r]))
                any = true;
        }
        l->needs_input_grad = any;
        if (upstream)
            upstream[i] = any;
    }
    free(upstream);
}

int cp_network_parse(const char *text, size_t len, const char *file, cp_network *n, cp_error *err)
{
    memset(n, 0, sizeof *n);
    snprintf(n->file, sizeof n->file, "%s", file);
    cJSON *root = cp_json_parse(text, len, file, err);
    if (!root)
        return -1;
    cp_jctx c = {.file = file, .path = "$", .err = err};
    loader L = {.net = n, .c = &c};
    static const char *const fields[] = {"format", "name", "source", "description", "input", "blocks", "layers",
                                         NULL};
    const char *format = NULL, *name = NULL, *source = NULL;
    int rc = 0;
    if (!cJSON_IsObject(root)) {
        rc = cp_jfail(&c, NULL, "a network file must be a JSON object");
        goto done;
    }
    if (cp_jonly(&c, root, fields) || cp_jstr(&c, root, "format", true, &format) ||
        cp_jstr(&c, root, "name", true, &name) || cp_jstr(&c, root, "source", false, &source)) {
        rc = -1;
        goto done;
    }
    if (strcmp(format, "cnnperf-network/1") != 0) {
        rc = cp_jfail(&c, "format", "unsupported format '%s' (expected 'cnnperf-network/1')", format);
        goto done;
    }
    snprintf(n->name, sizeof n->name, "%s", name);
    snprintf(n->source, sizeof n->source, "%s", source ? source : "");

    const cJSON *input = cp_jget(root, "input");
    if (!cJSON_IsObject(input)) {
        rc = cp_jfail(&c, "input", input ? "must be an object {channels, height, width}" : "missing required field");
        goto done;
    }
    static const char *const in_fields[] = {"channels", "height", "width", NULL};
    long long ch, h, w;
    size_t mark = cp_jpush_key(&c, "input");
    if (cp_jonly(&c, input, in_fields) || cp_jint(&c, input, "channels", true, 0, 1, 1 << 20, &ch) ||
        cp_jint(&c, input, "height", true, 0, 1, 1 << 16, &h) || cp_jint(&c, input, "width", true, 0, 1, 1 << 16, &w)) {
        rc = -1;
        goto done;
    }
    cp_jpop(&c, mark);
    n->input = (cp_shape){(int)ch, (int)h, (int)w};

    L.blocks = cp_jget(root, "blocks");
    if (L.blocks && !cJSON_IsObject(L.blocks)) {
        rc = cp_jfail(&c, "blocks", "must be an object of named blocks");
        goto done;
    }
    for (const cJSON *b = L.blocks ? L.blocks->child : NULL; b; b = b->next) {
        static const char *const bfields[] = {"args", "layers", "output", "description", NULL};
        size_t m = cp_jpush_key(&c, "blocks");
        cp_jpush_key(&c, b->string);
        if (!cJSON_IsObject(b) || cp_jonly(&c, b, bfields)) {
            if (!cJSON_IsObject(b))
                cp_jfail(&c, NULL, "a block must be an object {args, layers}");
            rc = -1;
            goto done;
        }
        cp_jpop(&c, m);
    }
    const cJSON *layers = cp_jget(root, "layers");
    if (!cJSON_IsArray(layers)) {
        rc = cp_jfail(&c, "layers", layers ? "must be an array of layers" : "missing required field");
        goto done;
    }
    int out_ref = CP_INPUT_DATA;
    rc = expand_list(&L, layers, "", CP_INPUT_DATA, NULL, NULL, NULL, &out_ref);
    if (!rc) {
        for (int i = 0; i < n->n_layers; i++)
            n->params += n->layers[i].params;
        mark_gradients(n);
    }
done:
    for (int i = 0; i < L.n_owned; i++)
        free(L.owned[i]);
    cJSON_Delete(root);
    if (rc)
        cp_network_free(n);
    return rc;
}

static int parse_network(const char *text, size_t len, const char *file, void *n, cp_error *err)
{
    return cp_network_parse(text, len, file, n, err);
}

int cp_network_load(const char *spec, cp_network *n, cp_error *err)
{
    memset(n, 0, sizeof *n);
    return cp_resource_load("networks", "network", spec, parse_network, n, err);
}

void cp_network_free(cp_network *n)
{
    free(n->layers);
    n->layers = NULL;
    n->n_layers = 0;
}

int cp_network_find(const cp_network *n, const char *name)
{
    for (int i = 0; i < n->n_layers; i++)
        if (strcmp(n->layers[i].name, name) == 0)
            return i;
    return -1;
}
