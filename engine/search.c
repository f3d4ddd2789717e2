/*
 * search.c: the inverse questions and the (t, p, d) layout search.
 *
 * Memory is monotone in batch and context (tests/test_engine_props.c), so
 * the largest batch and the longest context that fit are binary searches.
 * The layout search enumerates the divisors of G: t divides the attention
 * heads and stays inside a node (Megatron-LM keeps TP on NVLink), p is at
 * most the layer count (uneven stages are allowed, as Llama 3.1 405B ran 126
 * layers on 16 stages, and ranked by their fullest stage), d = G / (t p) (seed 000: G = T * P * D).
 * Fitting layouts rank first, then by throughput: decode tokens/s in inference; in training, tokens
 * per second of the engine's step (compute stretched by the pipeline bubble, plus the communication
 * the step cannot hide): the figure plan shows.
 */
#include <math.h>
#include <string.h>

#include "engine/internal.h"

/* Whether a scenario fits (and is valid). */
static bool fits(const struct engine_scenario *sc) {
    struct engine_estimate e;
    engine_estimate(sc, &e);
    return !e.invalid && e.fits;
}

/* Largest x in [1, hi] with pred true, given pred monotone decreasing; 0 if none. */
static uint32_t bsearch_max(struct engine_scenario *sc, uint32_t *field, uint32_t hi) {
    *field = 1;
    if (!fits(sc))
        return 0;
    uint32_t lo = 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        *field = mid;
        if (fits(sc))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Largest batch that fits. */
uint32_t engine_max_batch(const struct engine_scenario *sc) {
    struct engine_scenario s = *sc;
    return bsearch_max(&s, &s.batch, 1u << 20);
}

/* Longest context that fits, up to the model's maximum when it has one. A
 * prompt longer than the context is invalid, so the prompt follows the
 * context down (it is the context's when not given). */
uint32_t engine_max_context_capped(const struct engine_scenario *sc, bool *capped) {
    struct engine_scenario s = *sc;
    uint32_t hi = ENGINE_MAX_CONTEXT_SEARCH;
    if (sc->model.max_context && sc->model.max_context < hi)
        hi = sc->model.max_context;
    s.prompt = 0;
    uint32_t c = bsearch_max(&s, &s.context, hi);
    if (capped)
        *capped = c == hi && sc->model.max_context && hi == sc->model.max_context;
    return c;
}

/* Longest context that fits. */
uint32_t engine_max_context(const struct engine_scenario *sc) {
    return engine_max_context_capped(sc, NULL);
}

/* Most GPU layers that fit (memory rises with the layers: a binary search). */
int32_t engine_max_gpu_layers(const struct engine_scenario *sc) {
    struct engine_scenario s = *sc;
    uint32_t L = sc->model.layers, lo = sc->pp > 1 ? sc->pp : 0;
    s.serving.gpu_layers = (int32_t)L;
    s.serving.gpu_layers_given = true;
    if (fits(&s))
        return (int32_t)L;
    s.serving.gpu_layers = (int32_t)lo;
    if (!fits(&s))
        return -1;
    uint32_t hi = L;
    while (lo + 1 < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        s.serving.gpu_layers = (int32_t)mid;
        if (fits(&s))
            lo = mid;
        else
            hi = mid;
    }
    return (int32_t)lo;
}

/* Throughput score of an estimate for ranking layouts. */
static double layout_throughput(const struct engine_scenario *sc, const struct engine_estimate *e) {
    if (sc->mode == ENGINE_MODE_INFER)
        return e->decode_tokens_per_s;
    return e->train_tokens_per_step / e->train_step_seconds;
}

static const char *const rank_names[] = {"throughput", "latency", "memory"};

/* Name of a ranking. */
const char *engine_rank_name(enum engine_rank r) {
    return (unsigned)r < 3 ? rank_names[r] : "?";
}

/* Parse a ranking name; 0 on success. */
int engine_rank_parse(const char *s, enum engine_rank *out) {
    for (int i = 0; s && i < 3; i++)
        if (strcmp(rank_names[i], s) == 0) {
            *out = (enum engine_rank)i;
            return 0;
        }
    return -1;
}

/* Whether x beats y when higher is better (NaN last); *tie when neither. */
static bool higher_better(double x, double y, bool *tie) {
    *tie = false;
    if (x == y || (isnan(x) && isnan(y))) {
        *tie = true;
        return false;
    }
    if (isnan(y))
        return true;
    if (isnan(x))
        return false;
    return x > y;
}

/* The ranking's score of a layout (higher is better). */
static double rank_score(const struct engine_layout *l, enum engine_rank r) {
    switch (r) {
    case ENGINE_RANK_LATENCY:
        /* inference: per-sequence tokens/s; training: the shorter step */
        return isnan(l->per_sequence) ? -l->step_seconds : l->per_sequence;
    case ENGINE_RANK_MEMORY:
        return -l->memory_total;
    default:
        return l->throughput;
    }
}

/* Order: fitting before not, then by the ranking (throughput breaks its
 * ties), then smaller t, p. */
static bool layout_better_by(const struct engine_layout *a, const struct engine_layout *b,
                             enum engine_rank rank) {
    bool va = a->reject == ENGINE_REJECT_NONE, vb = b->reject == ENGINE_REJECT_NONE;
    if (va != vb)
        return va;
    if (a->fits != b->fits)
        return a->fits;
    bool tie;
    bool better = higher_better(rank_score(a, rank), rank_score(b, rank), &tie);
    if (!tie)
        return better;
    better = higher_better(a->throughput, b->throughput, &tie);
    if (!tie)
        return better;
    if (a->tp != b->tp)
        return a->tp < b->tp;
    return a->pp < b->pp;
}

/* Insert a candidate into the ranked array (capacity cap, n used). */
static void rank_insert(struct engine_layout *out, size_t cap, size_t *n,
                        const struct engine_layout *l, enum engine_rank rank) {
    size_t pos = *n < cap ? *n : cap;
    while (pos > 0 && layout_better_by(l, &out[pos - 1], rank))
        pos--;
    if (pos >= cap)
        return;
    size_t last = *n < cap ? *n : cap - 1;
    memmove(&out[pos + 1], &out[pos], (last - pos) * sizeof *out);
    out[pos] = *l;
    if (*n < cap)
        (*n)++;
}

/* Enumerate and rank (t, p, d) layouts for G GPUs (by throughput). */
size_t engine_search_layouts(const struct engine_scenario *sc, uint32_t gpus,
                             struct engine_layout *out, size_t cap) {
    return engine_search_layouts_ranked(sc, gpus, ENGINE_RANK_THROUGHPUT, out, cap);
}

/* Enumerate and rank (t, p, d) layouts for G GPUs. */
size_t engine_search_layouts_ranked(const struct engine_scenario *sc, uint32_t gpus,
                                    enum engine_rank rank, struct engine_layout *out,
                                    size_t cap) {
    size_t total = 0, used = 0;
    /* Context parallelism (issue 25 item 4): the scenario's --cp is kept
     * and (t, p, d) enumerated over G / cp. Searching cp itself waits for
     * this file's rewrite (fast-answers). */
    uint32_t cp = engine_cp(sc), all = gpus;
    if (gpus == 0 || gpus % cp)
        return 0;
    gpus /= cp;
    struct engine_scenario s = *sc;
    s.gpus = all;
    /* A given MFU is end to end and would make every layout equally fast:
     * layouts are compared at the MFU each one is predicted to reach. */
    s.mfu = 0;
    uint32_t gpn =
        sc->gpus_per_node ? sc->gpus_per_node : (sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node : 1);
    for (uint32_t t = 1; t <= gpus; t++) {
        if (gpus % t)
            continue;
        for (uint32_t p = 1; p <= gpus / t; p++) {
            if ((gpus / t) % p)
                continue;
            struct engine_layout l = {.tp = t, .pp = p, .dp = gpus / (t * p)};
            l.throughput = l.step_seconds = l.bubble_fraction = l.memory_total = NAN;
            l.per_sequence = NAN;
            if (sc->model.heads == 0 || sc->model.heads % t)
                l.reject = ENGINE_REJECT_TP_HEADS;
            else if (t > gpn)
                l.reject = ENGINE_REJECT_TP_NODE;
            else if (sc->mode != ENGINE_MODE_INFER && sc->global_batch &&
                     sc->global_batch % ((uint64_t)(sc->batch ? sc->batch : 1) * (gpus / (t * p))))
                l.reject = ENGINE_REJECT_BATCH;
            else if (engine_ep(sc) > 1 && (gpus / (t * p)) % engine_ep(sc))
                l.reject = ENGINE_REJECT_EP;
            else if (sc->model.layers == 0 || p > sc->model.layers ||
                     (sc->serving.gpu_layers_given && p > (uint32_t)sc->serving.gpu_layers))
                l.reject = ENGINE_REJECT_PP_LAYERS;
            else {
                struct engine_estimate e;
                s.tp = t;
                s.pp = p;
                s.dp = l.dp;
                engine_estimate(&s, &e);
                l.fits = !e.invalid && e.fits;
                l.memory_total = e.memory.total;
                l.step_seconds = e.train_step_seconds;
                l.bubble_fraction = e.train_bubble_fraction;
                l.throughput = layout_throughput(&s, &e);
                if (s.mode == ENGINE_MODE_INFER)
                    l.per_sequence = e.decode_tokens_per_s_per_sequence;
                if (!l.fits)
                    l.reject = ENGINE_REJECT_MEMORY;
            }
            total++;
            if (cap)
                rank_insert(out, cap, &used, &l, rank);
        }
    }
    return total;
}

/* Reason text of a rejection. */
const char *engine_reject_text(enum engine_reject r) {
    switch (r) {
    case ENGINE_REJECT_NONE:
        return "ok";
    case ENGINE_REJECT_TP_HEADS:
        return "t does not divide the attention heads";
    case ENGINE_REJECT_TP_NODE:
        return "t exceeds the GPUs of one node";
    case ENGINE_REJECT_PP_LAYERS:
        return "p exceeds the layers";
    case ENGINE_REJECT_MEMORY:
        return "does not fit in memory";
    case ENGINE_REJECT_BATCH:
        return "micro-batch size x d does not divide the global batch";
    case ENGINE_REJECT_EP:
        return "ep does not divide d (expert parallelism runs inside data parallelism)";
    }
    return "?";
}

/* The best layout of G GPUs (see engine.h). */
bool engine_best_layout(const struct engine_scenario *sc, uint32_t gpus,
                        struct engine_layout *out) {
    struct engine_layout l[256];
    size_t n = engine_search_layouts(sc, gpus, l, 256);
    const struct engine_layout *pick = NULL;
    if (n > 256)
        n = 256;
    for (size_t i = 0; i < n; i++) {
        if (l[i].reject == ENGINE_REJECT_NONE) {
            pick = &l[i];
            break;
        }
        if (l[i].reject == ENGINE_REJECT_MEMORY &&
            (!pick || l[i].memory_total < pick->memory_total))
            pick = &l[i];
    }
    if (!pick)
        return false;
    *out = *pick;
    return true;
}

/* A lower bound of the GPUs a scenario needs: its weights (training: the
 * recipe's states; ZeRO-3 divides them by the GPUs anyway) over the memory
 * each GPU has left after the reserve. Counts below it cannot fit. */
static double gpus_lower_bound(const struct engine_scenario *sc) {
    double n = engine_params_total(&sc->model);
    double per = engine_format_bits(&sc->weight_format) / 8.0;
    if (sc->mode == ENGINE_MODE_TRAIN) {
        const struct engine_recipe_info *r = engine_recipe_info(sc->recipe);
        per = r ? r->weights + r->grads + r->master + r->optimizer : 16;
    }
    double room = sc->gpu.memory_bytes - sc->reserve_bytes;
    if (sc->mode == ENGINE_MODE_INFER && sc->serving.gpu_layers_given)
        return 1; /* layers in host RAM: no bound from the weights */
    if (!(room > 0) || !(n > 0) || !isfinite(n * per / room))
        return 1;
    return floor(n * per / room);
}

/* Fewest GPUs (with their best layout) for which the scenario fits. */
uint32_t engine_min_gpus(const struct engine_scenario *sc, uint32_t max_gpus,
                         struct engine_scenario *best) {
    struct engine_layout l;
    double lb = gpus_lower_bound(sc);
    /* Inference memory per GPU depends on t and p only (a replica is whole):
     * past the widest t x p (t dividing the heads within a node, p at most
     * the layers) more GPUs only add replicas, so a model that does not fit
     * there fits nowhere (searching on to 65,536 GPUs took 38 s). */
    if (sc->mode == ENGINE_MODE_INFER && sc->model.layers > 0 && sc->model.heads > 0) {
        uint32_t gpn = sc->gpus_per_node ? sc->gpus_per_node
                                         : (sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node : 1);
        uint32_t tmax = 1;
        for (uint32_t t = 1; t <= gpn && t <= sc->model.heads; t++)
            if (sc->model.heads % t == 0)
                tmax = t;
        uint32_t pmax = sc->model.layers;
        if (sc->serving.gpu_layers_given && sc->serving.gpu_layers >= 1 &&
            (uint32_t)sc->serving.gpu_layers < pmax)
            pmax = (uint32_t)sc->serving.gpu_layers;
        if ((uint64_t)tmax * pmax < max_gpus)
            max_gpus = tmax * pmax;
    }
    uint32_t start = lb < 1 ? 1 : lb > max_gpus ? max_gpus + 1 : (uint32_t)lb;
    for (uint32_t g = start; g <= max_gpus; g++) {
        if (engine_search_layouts(sc, g, &l, 1) == 0 || !l.fits || l.reject != ENGINE_REJECT_NONE)
            continue;
        if (best) {
            *best = *sc;
            best->gpus = g;
            best->tp = l.tp;
            best->pp = l.pp;
            best->dp = l.dp;
        }
        return g;
    }
    return 0;
}

/* Largest model of the list that fits the scenario's GPUs and layout. */
int engine_largest_fitting(const struct engine_scenario *sc, const struct engine_model *models,
                           size_t n) {
    int best = -1;
    double best_params = -1;
    struct engine_scenario s = *sc;
    for (size_t i = 0; i < n; i++) {
        s.model = models[i];
        double p = engine_params_total(&models[i]);
        if (p > best_params && fits(&s)) {
            best = (int)i;
            best_params = p;
        }
    }
    return best;
}
