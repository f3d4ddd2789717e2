/*
 * search.c: the inverse questions, the layout space and its search, the one
 * best layout, and the fewest GPUs.
 *
 * Memory is monotone in batch and context (tests/test_engine_props.c), so
 * the largest batch and the longest context that fit are binary searches.
 * The layout search enumerates the divisors of G: t divides the attention
 * heads and stays inside a node (Megatron-LM keeps TP on NVLink), p is at
 * most the layer count (uneven stages are allowed, as Llama 3.1 405B ran 126
 * layers on 16 stages, and ranked by their fullest stage), d = G / (t p) (seed 000: G = T * P * D);
 * in training the knobs the caller leaves free (sequence parallelism, ZeRO
 * stage, recompute) are chosen per (t, p, d).
 * Fitting layouts rank first, then by throughput: decode tokens/s in inference; in training, tokens
 * per second of the engine's step (compute stretched by the pipeline bubble, plus the communication
 * the step cannot hide): the figure plan shows.
 *
 * The fewest GPUs walk the (t, p) pairs and, memory never rising with d,
 * bound each by the best count found so far (see engine.h); the tests hold
 * it to an exhaustive scan of every count on a grid of small cases.
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

/* ---- ranking ------------------------------------------------------------- */

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

/* Order: valid and fitting before not, then by the ranking (throughput
 * breaks its ties), then smaller t, cp, p. */
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
    if (a->cp != b->cp)
        return a->cp < b->cp;
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

/* ---- the layout space ----------------------------------------------------
 * THE ONE PLACE the space is defined; every search walks it through these
 * functions. A point (struct point): t (space_tp_ok: divides the heads,
 * within a node), cp (space_cp_ok: training only, 2 cp divides the
 * context; the scenario's unless ENGINE_KNOB_CP is free), p (space_pp_max:
 * at most the layers, and the GPU layers when given), d (space_dp_ok: b x
 * d divides a given global batch, ep divides d), with G = t x cp x p x d,
 * and the knobs (knob_list; point_set puts a point into a scenario). To
 * add a degree: a field in struct point and struct engine_layout, its
 * range and its check here, its factor in G in space_walk and in
 * engine_fewest_gpus' loops (with its own bound if memory does not fall
 * with it), and its value in point_set, point_eval and
 * engine_layout_apply. */

/* One point of the space: the degrees. */
struct point {
    uint32_t t, cp, p, d;
};

/* GPUs per node of the scenario (Megatron-LM keeps TP inside one). */
static uint32_t space_gpn(const struct engine_scenario *sc) {
    return sc->gpus_per_node ? sc->gpus_per_node
                             : (sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node : 1);
}

/* Why t cannot be a TP degree (ENGINE_REJECT_NONE when it can). */
static enum engine_reject space_tp_ok(const struct engine_scenario *sc, uint32_t t) {
    if (sc->model.heads == 0 || sc->model.heads % t)
        return ENGINE_REJECT_TP_HEADS;
    if (t > space_gpn(sc))
        return ENGINE_REJECT_TP_NODE;
    return ENGINE_REJECT_NONE;
}

/* The largest PP degree: the layers (the GPU layers when given). */
static uint32_t space_pp_max(const struct engine_scenario *sc) {
    uint32_t p = sc->model.layers;
    if (sc->serving.gpu_layers_given && sc->serving.gpu_layers >= 0 &&
        (uint32_t)sc->serving.gpu_layers < p)
        p = (uint32_t)sc->serving.gpu_layers;
    return p;
}

/* Whether cp can be the context-parallel degree (Megatron-LM: training
 * only, the context in 2 cp chunks). */
static bool space_cp_ok(const struct engine_scenario *sc, uint32_t cp) {
    return cp == 1 || (sc->mode != ENGINE_MODE_INFER && cp > 0 && sc->context % (2u * cp) == 0);
}

/* Whether the space takes cp: the scenario's own, or any valid one when
 * the search may choose it (training). */
static bool space_cp_in(const struct engine_scenario *sc, unsigned knobs, uint32_t cp) {
    if (sc->mode == ENGINE_MODE_INFER || !(knobs & ENGINE_KNOB_CP))
        return cp == engine_cp(sc);
    return space_cp_ok(sc, cp);
}

/* Why d cannot be the DP degree (ENGINE_REJECT_NONE when it can). */
static enum engine_reject space_dp_ok(const struct engine_scenario *sc, uint32_t d) {
    if (sc->mode != ENGINE_MODE_INFER && sc->global_batch &&
        sc->global_batch % ((uint64_t)(sc->batch ? sc->batch : 1) * d))
        return ENGINE_REJECT_BATCH;
    if (engine_ep(sc) > 1 && d % engine_ep(sc))
        return ENGINE_REJECT_EP;
    return ENGINE_REJECT_NONE;
}

/* Why the point is not a valid layout, memory aside. */
static enum engine_reject space_point_ok(const struct engine_scenario *sc, const struct point *x) {
    enum engine_reject r = space_tp_ok(sc, x->t);
    if (r == ENGINE_REJECT_NONE)
        r = space_dp_ok(sc, x->d);
    if (r == ENGINE_REJECT_NONE && (sc->model.layers == 0 || x->p > space_pp_max(sc)))
        r = ENGINE_REJECT_PP_LAYERS;
    return r;
}

/* One setting of the training knobs. */
struct knobs {
    uint32_t zero;
    bool sp;
    enum engine_recompute recompute;
};

/* The knobs a point may take: each free one over its values (training
 * only; sequence parallelism only with t > 1), the rest the scenario's;
 * the scenario's own setting first. Returns how many (at most 24). */
static size_t knob_list(const struct engine_scenario *sc, unsigned free, uint32_t t,
                        struct knobs *out) {
    struct knobs own = {sc->zero, sc->sequence_parallel, sc->recompute};
    size_t n = 0;
    out[n++] = own;
    if (sc->mode == ENGINE_MODE_INFER)
        return n;
    bool f_sp = (free & ENGINE_KNOB_SEQUENCE_PARALLEL) && t > 1;
    bool f_z = free & ENGINE_KNOB_ZERO, f_r = free & ENGINE_KNOB_RECOMPUTE;
    for (int sp = 0; sp < 2; sp++)
        for (uint32_t z = 0; z <= 3; z++)
            for (int r = ENGINE_RECOMPUTE_NONE; r <= ENGINE_RECOMPUTE_FULL; r++) {
                struct knobs k = {z, sp != 0, (enum engine_recompute)r};
                if ((!f_sp && k.sp != own.sp) || (!f_z && k.zero != own.zero) ||
                    (!f_r && k.recompute != own.recompute))
                    continue;
                if (k.zero == own.zero && k.sp == own.sp && k.recompute == own.recompute)
                    continue; /* listed first */
                out[n++] = k;
            }
    return n;
}

/* Among settings that tie: the lower ZeRO stage, sequence parallelism
 * off, then selective, none, full recompute (a fixed order, so that what a
 * scenario happens to hold, a pick of --gpus N say, does not sway it). */
static int knob_order(const struct engine_layout *l) {
    static const int rc[] = {1, 0, 2}; /* none, selective, full */
    return (int)l->zero * 6 + (l->sequence_parallel ? 3 : 0) +
           ((unsigned)l->recompute <= ENGINE_RECOMPUTE_FULL ? rc[l->recompute] : 2);
}

/* The scenario s at point x with knobs k (s starts as the scenario, its
 * MFU cleared: see space_walk). */
static void point_set(struct engine_scenario *s, const struct point *x, const struct knobs *k) {
    s->gpus = x->t * x->cp * x->p * x->d;
    s->tp = x->t;
    s->cp = x->cp;
    s->pp = x->p;
    s->dp = x->d;
    s->zero = k->zero;
    s->sequence_parallel = k->sp;
    s->recompute = k->recompute;
}

/* Throughput score of an estimate for ranking layouts. */
static double layout_throughput(const struct engine_scenario *sc, const struct engine_estimate *e) {
    if (sc->mode == ENGINE_MODE_INFER)
        return e->decode_tokens_per_s;
    return e->train_tokens_per_step / e->train_step_seconds;
}

/* A layout record of point x, before its verdict. */
static struct engine_layout layout_of(const struct point *x) {
    return (struct engine_layout){.tp = x->t, .cp = x->cp, .pp = x->p, .dp = x->d};
}

/* Estimate one point into a layout record. */
static void point_eval(struct engine_scenario *s, const struct point *x, const struct knobs *k,
                       struct engine_layout *l) {
    struct engine_estimate e;
    point_set(s, x, k);
    engine_estimate(s, &e);
    *l = layout_of(x);
    l->zero = k->zero;
    l->sequence_parallel = k->sp;
    l->recompute = k->recompute;
    l->micro_batches = engine_micro_batches(s);
    l->fits = !e.invalid && e.fits;
    l->memory_total = e.memory.total;
    l->step_seconds = e.train_step_seconds;
    l->bubble_fraction = e.train_bubble_fraction;
    l->throughput = layout_throughput(s, &e);
    l->per_sequence = s->mode == ENGINE_MODE_INFER ? e.decode_tokens_per_s_per_sequence : NAN;
    l->reject = l->fits ? ENGINE_REJECT_NONE : ENGINE_REJECT_MEMORY;
}

/* Whether knob setting a beats b at the same (t, p, d): valid and fitting
 * first; among fitting ones the ranking, then throughput; among the rest
 * the least memory (a setting the scenario refuses, such as ZeRO-2 under
 * the megatron convention, has none: NaN, last); then knob_order. */
static bool knob_better(const struct engine_layout *a, const struct engine_layout *b,
                        enum engine_rank rank) {
    if (a->fits != b->fits)
        return a->fits;
    bool tie;
    bool better = a->fits ? higher_better(rank_score(a, rank), rank_score(b, rank), &tie)
                          : higher_better(-a->memory_total, -b->memory_total, &tie);
    if (!tie)
        return better;
    if (a->fits) {
        better = higher_better(a->throughput, b->throughput, &tie);
        if (!tie)
            return better;
    }
    return knob_order(a) < knob_order(b);
}

/* The point x with the best of its knobs into *l. */
static void point_best(const struct engine_scenario *sc, struct engine_scenario *s,
                       const struct engine_space *space, const struct point *x,
                       struct engine_layout *l) {
    struct knobs k[24];
    size_t n = knob_list(sc, space->knobs, x->t, k);
    point_eval(s, x, &k[0], l);
    for (size_t i = 1; i < n; i++) {
        struct engine_layout c;
        point_eval(s, x, &k[i], &c);
        if (knob_better(&c, l, space->rank))
            *l = c;
    }
}

/* The working copy of a scenario for a search: a given MFU is end to end
 * and would make every layout equally fast, so layouts are compared at the
 * MFU each one is predicted to reach. */
static void space_scratch(const struct engine_scenario *sc, struct engine_scenario *s) {
    *s = *sc;
    s->mfu = 0;
}

static const struct engine_space default_space = {ENGINE_RANK_THROUGHPUT, 0};

/* Walk every (t, cp, p, d) of G GPUs in the space, calling visit with each
 * candidate (its best knobs, or why it is rejected); returns how many
 * there are. */
static size_t space_walk(const struct engine_scenario *sc, uint32_t gpus,
                         const struct engine_space *space,
                         void (*visit)(void *arg, const struct engine_layout *l), void *arg) {
    size_t total = 0;
    struct engine_scenario s;
    if (gpus == 0)
        return 0;
    if (!space)
        space = &default_space;
    space_scratch(sc, &s);
    for (uint32_t t = 1; t <= gpus; t++) {
        if (gpus % t)
            continue;
        for (uint32_t cp = 1; cp <= gpus / t; cp++) {
            if ((gpus / t) % cp || !space_cp_in(sc, space->knobs, cp))
                continue;
            uint32_t rest = gpus / t / cp;
            for (uint32_t p = 1; p <= rest; p++) {
                if (rest % p)
                    continue;
                struct point x = {t, cp, p, rest / p};
                struct engine_layout l = layout_of(&x);
                l.reject = space_point_ok(sc, &x);
                if (l.reject == ENGINE_REJECT_NONE) {
                    point_best(sc, &s, space, &x, &l);
                } else {
                    l.zero = sc->zero;
                    l.sequence_parallel = sc->sequence_parallel;
                    l.recompute = sc->recompute;
                    l.micro_batches = sc->micro_batches;
                    l.throughput = l.step_seconds = l.bubble_fraction = l.memory_total = NAN;
                    l.per_sequence = NAN;
                }
                total++;
                visit(arg, &l);
            }
        }
    }
    return total;
}

/* The ranked array a search fills. */
struct ranked {
    struct engine_layout *out;
    size_t cap, used;
    enum engine_rank rank;
};

static void visit_rank(void *arg, const struct engine_layout *l) {
    struct ranked *r = arg;
    if (r->cap)
        rank_insert(r->out, r->cap, &r->used, l, r->rank);
}

/* Enumerate and rank the layouts of G GPUs (see engine.h). */
size_t engine_search_space(const struct engine_scenario *sc, uint32_t gpus,
                           const struct engine_space *space, struct engine_layout *out,
                           size_t cap) {
    struct ranked r = {out, cap, 0, space ? space->rank : ENGINE_RANK_THROUGHPUT};
    return space_walk(sc, gpus, space, visit_rank, &r);
}

/* Enumerate and rank (t, p, d) layouts for G GPUs (by throughput). */
size_t engine_search_layouts(const struct engine_scenario *sc, uint32_t gpus,
                             struct engine_layout *out, size_t cap) {
    return engine_search_space(sc, gpus, NULL, out, cap);
}

/* Enumerate and rank (t, p, d) layouts for G GPUs. */
size_t engine_search_layouts_ranked(const struct engine_scenario *sc, uint32_t gpus,
                                    enum engine_rank rank, struct engine_layout *out,
                                    size_t cap) {
    struct engine_space space = {rank, 0};
    return engine_search_space(sc, gpus, &space, out, cap);
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

/* ---- the one best layout ------------------------------------------------- */

/* The best fitting candidate, and the valid one needing the least memory. */
struct pick {
    enum engine_rank rank;
    bool have_fit, have_mem;
    struct engine_layout fit, mem;
};

static void visit_pick(void *arg, const struct engine_layout *l) {
    struct pick *k = arg;
    if (l->reject == ENGINE_REJECT_NONE) {
        if (!k->have_fit || layout_better_by(l, &k->fit, k->rank)) {
            k->fit = *l;
            k->have_fit = true;
        }
    } else if (l->reject == ENGINE_REJECT_MEMORY &&
               (!k->have_mem || l->memory_total < k->mem.memory_total)) {
        k->mem = *l;
        k->have_mem = true;
    }
}

/* The best layout of G GPUs (see engine.h). */
bool engine_best_layout_in(const struct engine_scenario *sc, uint32_t gpus,
                           const struct engine_space *space, struct engine_layout *out) {
    struct pick k = {.rank = space ? space->rank : ENGINE_RANK_THROUGHPUT};
    space_walk(sc, gpus, space, visit_pick, &k);
    if (!k.have_fit && !k.have_mem)
        return false;
    *out = k.have_fit ? k.fit : k.mem;
    return true;
}

/* The best layout of G GPUs, no knob free, by throughput. */
bool engine_best_layout(const struct engine_scenario *sc, uint32_t gpus,
                        struct engine_layout *out) {
    return engine_best_layout_in(sc, gpus, NULL, out);
}

/* Give a scenario a layout (see engine.h). */
void engine_layout_apply(struct engine_scenario *sc, const struct engine_layout *l) {
    uint32_t cp = l->cp ? l->cp : 1;
    sc->gpus = l->tp * cp * l->pp * l->dp;
    sc->tp = l->tp;
    sc->pp = l->pp;
    sc->dp = l->dp;
    if (sc->mode != ENGINE_MODE_INFER) {
        sc->cp = cp;
        sc->zero = l->zero;
        sc->sequence_parallel = l->sequence_parallel;
        sc->recompute = l->recompute;
        sc->micro_batches = engine_micro_batches(sc);
    }
}

/* ---- fewest GPUs ----------------------------------------------------------- */

/* Most divisors a 32-bit number has (2^6 3^3 5^2 7 11 13 17 19 23 has 1344). */
#define DIVISORS_MAX 1344

/* The DP degrees of the space, in order: the multiples of ep (step), or,
 * under a global batch, the divisors of global / b that ep divides. */
struct dset {
    bool listed;
    uint32_t step; /* unlisted: the k-th degree is k x step */
    size_t n;
    uint32_t v[DIVISORS_MAX];
};

/* Fill the DP degrees of a scenario; false when none exists (b does not
 * divide the global batch). */
static bool dset_init(const struct engine_scenario *sc, struct dset *ds) {
    ds->step = engine_ep(sc);
    ds->n = 0;
    ds->listed = sc->mode != ENGINE_MODE_INFER && sc->global_batch;
    if (!ds->listed)
        return true;
    uint32_t b = sc->batch ? sc->batch : 1;
    if (sc->global_batch % b)
        return false;
    uint32_t n = sc->global_batch / b, hi[DIVISORS_MAX];
    size_t nh = 0;
    for (uint32_t i = 1; (uint64_t)i * i <= n; i++) {
        if (n % i)
            continue;
        if (i % ds->step == 0)
            ds->v[ds->n++] = i;
        uint32_t j = n / i;
        if (j != i && j % ds->step == 0)
            hi[nh++] = j;
    }
    while (nh > 0)
        ds->v[ds->n++] = hi[--nh];
    return ds->n > 0;
}

/* The degrees of ds in [lo, hi] as an index range [*a, *b]; false if none.
 * Unlisted degrees are indexed by k (the degree k x step). */
static bool dset_range(const struct dset *ds, uint64_t lo, uint64_t hi, size_t *a, size_t *b) {
    if (lo < 1)
        lo = 1;
    if (lo > hi)
        return false;
    if (!ds->listed) {
        uint64_t ka = (lo + ds->step - 1) / ds->step, kb = hi / ds->step;
        if (ka > kb)
            return false;
        *a = (size_t)ka;
        *b = (size_t)kb;
        return true;
    }
    size_t i = 0, j = ds->n;
    while (i < ds->n && ds->v[i] < lo)
        i++;
    while (j > i && ds->v[j - 1] > hi)
        j--;
    if (i >= j)
        return false;
    *a = i;
    *b = j - 1;
    return true;
}

/* The degree at index i of ds. */
static uint32_t dset_at(const struct dset *ds, size_t i) {
    return ds->listed ? ds->v[i] : (uint32_t)(i * ds->step);
}

/* State of one fewest-GPU search. */
struct fewest_run {
    const struct engine_scenario *sc;
    struct engine_scenario s; /* scratch */
    unsigned knobs;
    uint64_t estimates;
};

/* Whether point x fits with some setting of the free knobs. Only the
 * settings that can hold the least memory are tried (engine.h): sequence
 * parallelism on when free (t > 1), recompute selective or full when free
 * (none never holds less than selective), ZeRO-3 and ZeRO-2 when free
 * (ZeRO-1 only where ZeRO-2 is refused: it never holds more than 1, nor 1
 * than 0). */
static bool point_fits(struct fewest_run *r, const struct point *x) {
    const struct engine_scenario *sc = r->sc;
    bool train = sc->mode != ENGINE_MODE_INFER;
    unsigned free = train ? r->knobs : 0;
    struct knobs k = {sc->zero, sc->sequence_parallel, sc->recompute};
    if ((free & ENGINE_KNOB_SEQUENCE_PARALLEL) && x->t > 1)
        k.sp = true;
    static const enum engine_recompute rc_free[] = {ENGINE_RECOMPUTE_FULL,
                                                    ENGINE_RECOMPUTE_SELECTIVE};
    const enum engine_recompute *rc = (free & ENGINE_KNOB_RECOMPUTE) ? rc_free : &sc->recompute;
    size_t n_rc = (free & ENGINE_KNOB_RECOMPUTE) ? 2 : 1;
    uint32_t zeros[3] = {sc->zero}, n_z = 1;
    if (free & ENGINE_KNOB_ZERO) {
        zeros[0] = 3;
        zeros[1] = 2;
        zeros[2] = 1;
        n_z = 3;
    }
    for (uint32_t zi = 0; zi < n_z; zi++) {
        bool valid = false;
        k.zero = zeros[zi];
        for (size_t ri = 0; ri < n_rc; ri++) {
            struct engine_estimate e;
            k.recompute = rc[ri];
            point_set(&r->s, x, &k);
            engine_estimate(&r->s, &e);
            r->estimates++;
            if (!e.invalid && e.fits)
                return true;
            valid = valid || !e.invalid;
        }
        /* ZeRO-1 holds no less than a valid ZeRO-2. */
        if (k.zero == 2 && valid)
            break;
    }
    return false;
}

/* Bytes the GPUs must hold whatever the layout and the free knobs: in
 * inference the weights of one replica (its t x p GPUs together), in
 * training the weights and the optimizer's own states once over all G
 * GPUs (ZeRO can shard them, never drop them; gradients are left out, the
 * conventions differ on them); what offload or partial offload moves to
 * the host is left out; 0 when nothing can be said. Used as bounds only:
 * t x p (inference) or G (training) below bytes / capacity cannot fit. */
static double bytes_lower_bound(const struct engine_scenario *sc) {
    const struct engine_model *m = &sc->model;
    double n = engine_params_total(m);
    if (!(n > 0) || !isfinite(n))
        return 0;
    if (sc->mode == ENGINE_MODE_INFER) {
        if (sc->serving.gpu_layers_given || sc->serving.cpu_moe_layers > 0)
            return 0; /* layers or experts in host RAM */
        if (m->file_bytes && m->has_arch) {
            double f = m->file_embed_bytes + m->file_head_bytes;
            for (uint32_t i = 0; i < m->layers && i < ENGINE_FILE_LAYERS_MAX; i++)
                f += m->file_layer_bytes[i];
            return f > 0 ? f : 0;
        }
        return n * engine_format_bits(&sc->weight_format) / 8.0;
    }
    if (sc->mode != ENGINE_MODE_TRAIN) /* LoRA, QLoRA: the frozen base */
        return n * engine_format_bits(&sc->weight_format) / 8.0;
    const struct engine_recipe_info *r = engine_recipe_info(sc->recipe);
    if (!r || sc->offload == ENGINE_OFFLOAD_NVME)
        return 0;
    return n * (sc->offload == ENGINE_OFFLOAD_CPU ? r->weights
                                                  : r->weights + r->master + r->optimizer);
}

/* The least count of GPUs bytes need at this GPU's capacity (1 when
 * nothing can be said), saturating at UINT64_MAX / 2. */
static uint64_t gpus_for_bytes(const struct engine_scenario *sc, double bytes) {
    double room = sc->gpu.memory_bytes - (sc->reserve_bytes > 0 ? sc->reserve_bytes : 0);
    if (!(bytes > 0) || !(room > 0))
        return 1;
    double g = ceil(bytes / room);
    return g < 1 ? 1 : g > 9e18 ? (uint64_t)9e18 : (uint64_t)g;
}

/* Whether the search was asked to stop. */
static bool cancelled(const struct engine_fewest_query *q) {
    return q->cancel && q->cancel(q->cancel_arg);
}

/* Look the query up in the cache; the slot to fill into *slot. */
static bool cache_find(struct engine_search_cache *c, const struct engine_scenario *key,
                       const struct engine_fewest_query *q, uint32_t max, struct engine_fewest *out,
                       int *slot) {
    int free_slot = 0;
    for (int i = 0; i < ENGINE_SEARCH_CACHE_SLOTS; i++) {
        if (c->slot[i].used && c->slot[i].above == q->above && c->slot[i].max_gpus == max &&
            c->slot[i].space.rank == q->space.rank && c->slot[i].space.knobs == q->space.knobs &&
            memcmp(&c->slot[i].key, key, sizeof *key) == 0) {
            *out = c->slot[i].answer;
            c->slot[i].age = ++c->clock;
            c->hits++;
            return true;
        }
        if (!c->slot[i].used || (c->slot[free_slot].used && c->slot[i].age < c->slot[free_slot].age))
            free_slot = i;
    }
    c->misses++;
    *slot = free_slot;
    return false;
}

/* The fewest GPUs (see engine.h). */
uint32_t engine_fewest_gpus(const struct engine_scenario *sc, const struct engine_fewest_query *q,
                            struct engine_search_cache *cache, struct engine_fewest *out) {
    struct fewest_run r = {.sc = sc, .knobs = q->space.knobs};
    struct dset ds;
    uint32_t max = q->max_gpus ? q->max_gpus : ENGINE_FEWEST_MAX_GPUS;
    int slot = 0;
    struct engine_scenario key;
    *out = (struct engine_fewest){.status = ENGINE_FEWEST_NONE_AT_ALL};

    if (cache) {
        /* The answer does not depend on the scenario's own layout. */
        memcpy(&key, sc, sizeof key);
        key.gpus = key.tp = key.pp = key.dp = 0;
        if (key.mode != ENGINE_MODE_INFER && key.global_batch)
            key.micro_batches = 0;
        if (cache_find(cache, &key, q, max, out, &slot))
            return out->gpus;
    }
    space_scratch(sc, &r.s);
    bool infer = sc->mode == ENGINE_MODE_INFER;
    uint64_t lo = (uint64_t)q->above + 1, best = (uint64_t)max + 1;
    struct point bx = {0, 1, 0, 0};
    uint32_t pmax = space_pp_max(sc), cps[DIVISORS_MAX];
    size_t n_cp = 0;
    bool any_d = dset_init(sc, &ds), stopped = false;
    /* The CP degrees, ascending: the scenario's, or every one 2 cp of
     * which divides the context when the search may choose it. */
    if (!infer && (q->space.knobs & ENGINE_KNOB_CP)) {
        for (uint32_t c = 1; c <= sc->context / 2 && n_cp < DIVISORS_MAX; c++)
            if (space_cp_ok(sc, c))
                cps[n_cp++] = c;
    }
    if (n_cp == 0)
        cps[n_cp++] = engine_cp(sc);
    /* The bounds: in inference t x p at least `replica` (a replica's
     * weights over the GPUs' memory), in training G at least that. */
    uint64_t need = gpus_for_bytes(sc, bytes_lower_bound(sc)), replica = 1;
    if (infer)
        replica = need;
    else if (need > lo)
        lo = need;
    /* Whether every (t, cp, p) is visited with t cp p < best (then "none
     * at all" can be checked over them all). */
    uint64_t widest = 0;
    for (uint32_t t = space_gpn(sc); t >= 1; t--)
        if (space_tp_ok(sc, t) == ENGINE_REJECT_NONE &&
            widest < (uint64_t)t * cps[n_cp - 1] * pmax)
            widest = (uint64_t)t * cps[n_cp - 1] * pmax;
    /* Widest TP first: the fewest GPUs come from the most memory per
     * replica split, so good counts are found early and bound the rest. */
    for (uint32_t t = space_gpn(sc); any_d && t >= 1 && !stopped; t--) {
        if (space_tp_ok(sc, t) != ENGINE_REJECT_NONE)
            continue;
        for (size_t ci = 0; ci < n_cp && !stopped && (uint64_t)t * cps[ci] < best; ci++) {
            for (uint32_t p = 1; p <= pmax; p++) {
                uint64_t unit = (uint64_t)t * cps[ci] * p;
                if (unit >= best)
                    break;
                if (unit < replica)
                    continue; /* a replica's weights alone do not fit */
                if (cancelled(q)) {
                    stopped = true;
                    break;
                }
                size_t a, b;
                /* d from the least that reaches `lo` to the most below `best`. */
                if (!dset_range(&ds, (lo + unit - 1) / unit, (best - 1) / unit, &a, &b))
                    continue;
                if (infer)
                    b = a; /* memory does not depend on d: the least d will do */
                struct point x = {t, cps[ci], p, dset_at(&ds, b)};
                if (!point_fits(&r, &x))
                    continue;
                while (a < b) { /* the least index that fits; b fits */
                    size_t mid = a + (b - a) / 2;
                    x.d = dset_at(&ds, mid);
                    if (point_fits(&r, &x))
                        b = mid;
                    else
                        a = mid + 1;
                }
                x.d = dset_at(&ds, b);
                best = unit * x.d;
                bx = x;
            }
        }
    }
    if (stopped) {
        out->status = ENGINE_FEWEST_CANCELLED;
    } else if (best <= max) {
        struct engine_space sp = q->space;
        out->status = ENGINE_FEWEST_FOUND;
        out->gpus = (uint32_t)best;
        if (!engine_best_layout_in(sc, out->gpus, &sp, &out->layout) || !out->layout.fits) {
            /* Not reached: bx fits; keep it if it were. */
            struct knobs k = {sc->zero, sc->sequence_parallel, sc->recompute};
            point_eval(&r.s, &bx, &k, &out->layout);
        }
    } else if (any_d && (widest > max || (!infer && lo > max))) {
        /* Some (t, cp, p) was never tried, or the bound says more than max
         * GPUs: more may fit. */
        out->status = ENGINE_FEWEST_NONE_UP_TO_MAX;
    } else if (any_d) {
        /* Nothing up to max: does any count fit? Each (t, cp, p) at its
         * largest degree (inference: any; a global batch bounds d;
         * otherwise the most a 32-bit count allows). */
        for (uint32_t t = space_gpn(sc); t >= 1 && out->status == ENGINE_FEWEST_NONE_AT_ALL; t--) {
            if (space_tp_ok(sc, t) != ENGINE_REJECT_NONE)
                continue;
            for (size_t ci = 0; ci < n_cp && out->status == ENGINE_FEWEST_NONE_AT_ALL; ci++)
                for (uint32_t p = 1; p <= pmax; p++) {
                    uint64_t unit = (uint64_t)t * cps[ci] * p;
                    size_t a, b;
                    if (unit < replica)
                        continue;
                    if (cancelled(q)) {
                        out->status = ENGINE_FEWEST_CANCELLED;
                        break;
                    }
                    if (!dset_range(&ds, 1, UINT32_MAX / unit, &a, &b))
                        continue;
                    struct point x = {t, cps[ci], p, dset_at(&ds, infer ? a : b)};
                    if (point_fits(&r, &x)) {
                        out->status = ENGINE_FEWEST_NONE_UP_TO_MAX;
                        break;
                    }
                }
        }
    }
    out->estimates = r.estimates;
    if (cache && out->status != ENGINE_FEWEST_CANCELLED) {
        cache->slot[slot].used = true;
        cache->slot[slot].age = ++cache->clock;
        memcpy(&cache->slot[slot].key, &key, sizeof key);
        cache->slot[slot].space = q->space;
        cache->slot[slot].above = q->above;
        cache->slot[slot].max_gpus = max;
        cache->slot[slot].answer = *out;
    }
    return out->gpus;
}

/* Fewest GPUs with no knob free (see engine.h). */
uint32_t engine_min_gpus(const struct engine_scenario *sc, uint32_t max_gpus,
                         struct engine_scenario *best) {
    struct engine_fewest_query q = {.max_gpus = max_gpus};
    struct engine_fewest f;
    uint32_t g = engine_fewest_gpus(sc, &q, NULL, &f);
    if (g && best) {
        *best = *sc;
        engine_layout_apply(best, &f.layout);
    }
    return g;
}
