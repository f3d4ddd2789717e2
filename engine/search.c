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

/* Longest context that fits. */
uint32_t engine_max_context(const struct engine_scenario *sc) {
    struct engine_scenario s = *sc;
    return bsearch_max(&s, &s.context, 1u << 26);
}

/* Throughput score of an estimate for ranking layouts. */
static double layout_throughput(const struct engine_scenario *sc, const struct engine_estimate *e) {
    if (sc->mode == ENGINE_MODE_INFER)
        return e->decode_tokens_per_s;
    return e->train_tokens_per_step / e->train_step_seconds;
}

/* Order: fitting before not, then higher throughput, then smaller t, p. */
static bool layout_better(const struct engine_layout *a, const struct engine_layout *b) {
    bool va = a->reject == ENGINE_REJECT_NONE, vb = b->reject == ENGINE_REJECT_NONE;
    if (va != vb)
        return va;
    if (a->fits != b->fits)
        return a->fits;
    if (a->throughput != b->throughput && !(isnan(a->throughput) && isnan(b->throughput))) {
        if (isnan(b->throughput))
            return true;
        if (isnan(a->throughput))
            return false;
        return a->throughput > b->throughput;
    }
    if (a->tp != b->tp)
        return a->tp < b->tp;
    return a->pp < b->pp;
}

/* Insert a candidate into the ranked array (capacity cap, n used). */
static void rank_insert(struct engine_layout *out, size_t cap, size_t *n,
                        const struct engine_layout *l) {
    size_t pos = *n < cap ? *n : cap;
    while (pos > 0 && layout_better(l, &out[pos - 1]))
        pos--;
    if (pos >= cap)
        return;
    size_t last = *n < cap ? *n : cap - 1;
    memmove(&out[pos + 1], &out[pos], (last - pos) * sizeof *out);
    out[pos] = *l;
    if (*n < cap)
        (*n)++;
}

/* Enumerate and rank (t, p, d) layouts for G GPUs. */
size_t engine_search_layouts(const struct engine_scenario *sc, uint32_t gpus,
                             struct engine_layout *out, size_t cap) {
    size_t total = 0, used = 0;
    if (gpus == 0)
        return 0;
    struct engine_scenario s = *sc;
    s.gpus = gpus;
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
            if (sc->model.heads == 0 || sc->model.heads % t)
                l.reject = ENGINE_REJECT_TP_HEADS;
            else if (t > gpn)
                l.reject = ENGINE_REJECT_TP_NODE;
            else if (sc->model.layers == 0 || p > sc->model.layers)
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
                if (!l.fits)
                    l.reject = ENGINE_REJECT_MEMORY;
            }
            total++;
            if (cap)
                rank_insert(out, cap, &used, &l);
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
    }
    return "?";
}

/* Fewest GPUs (with their best layout) for which the scenario fits. */
uint32_t engine_min_gpus(const struct engine_scenario *sc, uint32_t max_gpus,
                         struct engine_scenario *best) {
    struct engine_layout l;
    for (uint32_t g = 1; g <= max_gpus; g++) {
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
