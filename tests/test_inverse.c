/*
 * test_inverse.c: the inverse questions against exhaustive searches.
 *
 * The fewest-GPU search prunes (one check per (t, p) at the largest d that
 * could still win, binary searches over d, only the knob settings that can
 * hold the least memory): on a grid of small cases it must give what a
 * scan of every count 1..G_MAX gives, each count searched whole (every
 * (t, p, d) with every setting of the free knobs, engine_search_space).
 * The largest batch and the longest context (binary searches) must give
 * what a scan gives. The one best layout is the search's first.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "tests/helpers.h"

#define G_MAX 48

/* A small model: 8 layers of hidden 512, 8 heads (kv as given), 1000 tokens. */
static struct engine_model tiny(uint32_t layers, uint32_t kv, uint32_t experts) {
    struct engine_model m = th_llama31_8b();
    snprintf(m.id, sizeof m.id, "tiny-%u-%u-%u", layers, kv, experts);
    m.layers = layers;
    m.hidden = 512;
    m.heads = 8;
    m.kv_heads = kv;
    m.head_dim = 64;
    m.ffn = 1536;
    m.vocab = 1000;
    m.max_context = 0;
    m.params_published = 0;
    m.global_batch_tokens = 0;
    if (experts) {
        m.experts = experts;
        m.active_experts = 2;
        m.moe_ffn = 768;
    }
    return m;
}

/* Memory per GPU of the scenario on one GPU (its knobs as they are). */
static double one_gpu_memory(struct engine_scenario sc) {
    struct engine_estimate e;
    sc.gpus = sc.tp = sc.pp = sc.dp = 1;
    sc.global_batch = 0;
    engine_estimate(&sc, &e);
    return e.memory.total;
}

/* The fewest GPUs by brute force: the first count whose whole search
 * (every layout, every setting of the free knobs) has a fitting layout. */
static uint32_t brute_fewest(const struct engine_scenario *sc, const struct engine_space *sp,
                             uint32_t above, uint32_t max) {
    static struct engine_layout v[512];
    for (uint32_t g = above + 1; g <= max; g++) {
        size_t n = engine_search_space(sc, g, sp, v, 512);
        cr_assert_leq(n, 512);
        for (size_t i = 0; i < n; i++)
            if (v[i].fits && v[i].reject == ENGINE_REJECT_NONE)
                return g;
    }
    return 0;
}

/* Check one case: the fast answer equals the scan, its layout is the best
 * layout of that count, and it fits when applied. */
static void check_case(const struct engine_scenario *sc, unsigned knobs, uint32_t above,
                       const char *what) {
    struct engine_space sp = {ENGINE_RANK_THROUGHPUT, knobs};
    struct engine_fewest_query q = {.space = sp, .above = above, .max_gpus = G_MAX};
    struct engine_fewest f;
    uint32_t fast = engine_fewest_gpus(sc, &q, NULL, &f);
    uint32_t slow = brute_fewest(sc, &sp, above, G_MAX);
    cr_assert_eq(fast, slow, "%s: fast %u, exhaustive %u (status %d)", what, fast, slow, f.status);
    if (!fast) {
        cr_assert_neq(f.status, ENGINE_FEWEST_FOUND, "%s", what);
        if (f.status == ENGINE_FEWEST_NONE_AT_ALL && sc->mode == ENGINE_MODE_INFER)
            cr_assert_eq(brute_fewest(sc, &sp, G_MAX, 2 * G_MAX), 0, "%s: none at all?", what);
        return;
    }
    cr_assert_eq(f.status, ENGINE_FEWEST_FOUND, "%s", what);
    struct engine_layout best;
    cr_assert(engine_best_layout_in(sc, fast, &sp, &best), "%s", what);
    cr_assert_eq(best.tp, f.layout.tp, "%s", what);
    cr_assert_eq(best.pp, f.layout.pp, "%s", what);
    cr_assert_eq(best.dp, f.layout.dp, "%s", what);
    cr_assert_eq(best.zero, f.layout.zero, "%s", what);
    cr_assert_eq(best.recompute, f.layout.recompute, "%s", what);
    struct engine_scenario s = *sc;
    struct engine_estimate e;
    engine_layout_apply(&s, &f.layout);
    engine_estimate(&s, &e);
    cr_assert(!e.invalid && e.fits, "%s: the answer's layout fits (invalid %x, %.4g of %.4g)",
              what, e.invalid, e.memory.total, e.capacity);
    cr_assert_eq(s.gpus, fast, "%s", what);
}

/* The grid: modes, conventions, offload, global batches, MoE with EP,
 * nodes of 4 and 8, knobs free or not (all of them: CP too), memories from
 * 1/1.5 to 1/20 of what one GPU needs. */
Test(fewest, agrees_with_an_exhaustive_search_on_a_grid) {
    static const double shrink[] = {1.5, 3.0, 7.0, 20.0};
    static const enum engine_mode modes[] = {ENGINE_MODE_INFER, ENGINE_MODE_TRAIN,
                                             ENGINE_MODE_LORA};
    static const unsigned knob_sets[] = {0, ENGINE_KNOBS_TRAINING, ENGINE_KNOB_ZERO};
    int cases = 0, found = 0, with_cp = 0;
    for (int mi = 0; mi < 3; mi++)
        for (int variant = 0; variant < 6; variant++)
            for (int ki = 0; ki < 3; ki++)
                for (int si = 0; si < 4; si++) {
                    enum engine_mode mode = modes[mi];
                    if (mode == ENGINE_MODE_INFER && ki > 0)
                        continue; /* no knobs in inference */
                    struct engine_scenario sc =
                        th_scenario(tiny(variant == 3 ? 6 : 8, variant == 1 ? 2 : 8,
                                         variant == 4 ? 4 : 0));
                    sc.mode = mode;
                    sc.context = 2048;
                    sc.batch = variant == 2 ? 2 : 1;
                    sc.reserve_bytes = 0;
                    sc.gpus_per_node = variant == 1 ? 4 : 8;
                    sc.micro_batches = 6;
                    sc.recompute = mode == ENGINE_MODE_LORA ? ENGINE_RECOMPUTE_FULL
                                                            : ENGINE_RECOMPUTE_SELECTIVE;
                    if (mode == ENGINE_MODE_LORA)
                        sc.lora_rank = 16;
                    if (mode != ENGINE_MODE_INFER && variant == 2)
                        sc.global_batch = 24; /* b = 2: d divides 12 */
                    if (mode == ENGINE_MODE_TRAIN && variant == 4)
                        sc.ep = 2;
                    if (mode == ENGINE_MODE_TRAIN && variant == 5) {
                        sc.memory_convention = ENGINE_MEMCONV_DEEPSPEED;
                        sc.zero = 1;
                        sc.offload = ENGINE_OFFLOAD_CPU;
                    }
                    if (mode == ENGINE_MODE_TRAIN && variant == 3)
                        sc.memory_convention = ENGINE_MEMCONV_MEGATRON;
                    sc.gpu.memory_bytes = one_gpu_memory(sc) / shrink[si];
                    char what[160];
                    snprintf(what, sizeof what, "mode %d variant %d knobs %u memory /%.1f", mode,
                             variant, knob_sets[ki], shrink[si]);
                    check_case(&sc, knob_sets[ki], 0, what);
                    /* The explorer's advice: counts above the one on screen. */
                    check_case(&sc, knob_sets[ki], 5, what);
                    struct engine_fewest_query q = {.space = {0, knob_sets[ki]},
                                                    .max_gpus = G_MAX};
                    struct engine_fewest f;
                    found += engine_fewest_gpus(&sc, &q, NULL, &f) > 0;
                    with_cp += f.status == ENGINE_FEWEST_FOUND && f.layout.cp > 1;
                    cases++;
                }
    /* The grid is not all "none" nor all "1". */
    cr_assert_gt(found, cases / 3, "%d of %d found", found, cases);
    cr_assert_lt(found, cases, "%d of %d found", found, cases);
    /* Context parallelism is a degree of the space, and some answers take it. */
    cr_assert_gt(with_cp, 0);
}

/* Free knobs never need more GPUs than fixed ones, and find counts where
 * the fixed ones find none (activations that only sequence parallelism or
 * recompute shrink). */
Test(fewest, free_knobs_never_need_more) {
    static const double shrink[] = {1.2, 1.5, 2.0, 3.0, 6.0};
    int fixed_found = 0, only_free = 0;
    for (int i = 0; i < 5; i++) {
        struct engine_scenario sc = th_scenario(tiny(8, 8, 0));
        sc.mode = ENGINE_MODE_TRAIN;
        sc.micro_batches = 8;
        sc.zero = 1;
        sc.gpu.memory_bytes = one_gpu_memory(sc) / shrink[i];
        struct engine_fewest_query q = {.max_gpus = 256};
        struct engine_fewest a, b;
        uint32_t fixed = engine_fewest_gpus(&sc, &q, NULL, &a);
        q.space.knobs = ENGINE_KNOBS_TRAINING;
        uint32_t free = engine_fewest_gpus(&sc, &q, NULL, &b);
        if (fixed) {
            fixed_found++;
            cr_assert_gt(free, 0);
            cr_assert_leq(free, fixed, "memory /%.1f", shrink[i]);
        } else if (free) {
            only_free++;
        }
    }
    cr_assert_gt(fixed_found, 0);
    cr_assert_gt(only_free, 0);
}

/* Done-criterion of issue 27: Llama 3.1 405B training (adam-mixed, its
 * published 16M-token batch: 4,096 sequences of 4,096) fits on 256 H100
 * or fewer; Meta trained it on 8 x 16 x DP with ZeRO-1 and sequence
 * parallelism (Llama 3 paper, Table 4), which vramlab's plan shows fits at
 * 256 (TP 8, PP 16, DP 2). The weights and states alone, 16 B x 406B over
 * 80 GiB less 1 GB reserve, need at least 77. */
Test(fewest, llama_405b_training_fits_on_256_h100_or_fewer) {
    struct engine_scenario sc = th_scenario(th_llama31_405b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.recompute = ENGINE_RECOMPUTE_SELECTIVE;
    sc.global_batch = 4096;
    sc.reserve_bytes = 1e9;
    struct engine_fewest_query q = {.space = {ENGINE_RANK_THROUGHPUT, ENGINE_KNOBS_TRAINING},
                                    .max_gpus = 16384};
    struct engine_fewest f;
    uint32_t g = engine_fewest_gpus(&sc, &q, NULL, &f);
    cr_assert_eq(f.status, ENGINE_FEWEST_FOUND);
    cr_assert_leq(g, 256);
    cr_assert_geq(g, 77);
    /* Meta's layout fits, so the answer is no larger than it. */
    struct engine_scenario meta = sc;
    struct engine_estimate e;
    meta.gpus = 256;
    meta.tp = 8;
    meta.pp = 16;
    meta.dp = 2;
    meta.zero = 1;
    meta.sequence_parallel = true;
    meta.micro_batches = engine_micro_batches(&meta);
    engine_estimate(&meta, &e);
    cr_assert(!e.invalid && e.fits, "%.4g of %.4g", e.memory.total, e.capacity);
    /* One count less has no fitting layout at all. */
    struct engine_layout l;
    if (engine_best_layout_in(&sc, g - 1, &q.space, &l))
        cr_assert_not(l.fits && l.reject == ENGINE_REJECT_NONE, "%u GPUs fit too", g - 1);
}

/* The cache answers a scenario asked again, whatever its own layout, and
 * not a different one. */
Test(fewest, cache_per_scenario) {
    static struct engine_search_cache cache;
    memset(&cache, 0, sizeof cache);
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    struct engine_fewest_query q = {.max_gpus = 1024};
    struct engine_fewest a, b;
    uint32_t g = engine_fewest_gpus(&sc, &q, &cache, &a);
    cr_assert_eq(cache.misses, 1);
    sc.tp = 2;
    sc.gpus = 2;
    cr_assert_eq(engine_fewest_gpus(&sc, &q, &cache, &b), g);
    cr_assert_eq(cache.hits, 1);
    cr_assert_eq(b.layout.tp, a.layout.tp);
    sc.batch = 64;
    engine_fewest_gpus(&sc, &q, &cache, &b);
    cr_assert_eq(cache.misses, 2);
    q.above = g;
    cr_assert_gt(engine_fewest_gpus(&sc, &q, &cache, &b), g);
    cr_assert_eq(cache.misses, 3);
}

static bool always(void *arg) {
    (void)arg;
    return true;
}

Test(fewest, cancel_stops_it) {
    struct engine_scenario sc = th_scenario(th_llama31_405b());
    struct engine_fewest_query q = {.max_gpus = 1024, .cancel = always};
    struct engine_fewest f;
    cr_assert_eq(engine_fewest_gpus(&sc, &q, NULL, &f), 0);
    cr_assert_eq(f.status, ENGINE_FEWEST_CANCELLED);
}

/* A model too big for any layout says so, and a count past the search's
 * bound says that instead. */
Test(fewest, none_at_all_or_past_the_bound) {
    struct engine_scenario sc = th_scenario(th_llama31_405b());
    sc.gpu = th_rtx3060();
    sc.batch = 4096;
    sc.context = 1u << 20;
    struct engine_fewest_query q = {.max_gpus = 65536};
    struct engine_fewest f;
    cr_assert_eq(engine_fewest_gpus(&sc, &q, NULL, &f), 0);
    cr_assert_eq(f.status, ENGINE_FEWEST_NONE_AT_ALL);
    sc = th_scenario(th_llama31_405b());
    q.max_gpus = 4; /* 812 GB of weights: more than 4 H100 */
    cr_assert_eq(engine_fewest_gpus(&sc, &q, NULL, &f), 0);
    cr_assert_eq(f.status, ENGINE_FEWEST_NONE_UP_TO_MAX);
}

/* The largest batch and the longest context are what a scan finds. */
Test(limits, batch_and_context_agree_with_a_scan) {
    struct engine_scenario sc = th_scenario(tiny(8, 2, 0));
    sc.context = 4096;
    sc.gpu.memory_bytes = one_gpu_memory(sc) * 37.5; /* room for a few dozen sequences */
    uint32_t b = engine_max_batch(&sc), scan = 0;
    struct engine_scenario s = sc;
    for (uint32_t k = 1; k <= 4096; k++) {
        struct engine_estimate e;
        s.batch = k;
        engine_estimate(&s, &e);
        if (!(e.fits && !e.invalid))
            break;
        scan = k;
    }
    cr_assert_gt(scan, 1);
    cr_assert_eq(b, scan);
    s = sc;
    s.batch = 1;
    uint32_t c = engine_max_context(&s), hi = ENGINE_MAX_CONTEXT_SEARCH;
    /* A scan to 2^26 is too long: the boundary instead (c fits, c + 1 does
     * not, unless c is the bound). */
    struct engine_estimate e;
    s.prompt = 0;
    s.context = c;
    engine_estimate(&s, &e);
    cr_assert(e.fits && !e.invalid);
    if (c < hi) {
        s.context = c + 1;
        engine_estimate(&s, &e);
        cr_assert_not(e.fits && !e.invalid);
    }
}

/* The one best layout is the search's first when one fits, the one needing
 * least memory otherwise. */
Test(layout, best_is_the_searchs_first) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.global_batch = 64;
    for (int k = 0; k < 2; k++) {
        struct engine_space sp = {ENGINE_RANK_THROUGHPUT, k ? ENGINE_KNOBS_TRAINING : 0};
        struct engine_layout v[64], best;
        size_t n = engine_search_space(&sc, 32, &sp, v, 64);
        cr_assert_gt(n, 0);
        cr_assert(engine_best_layout_in(&sc, 32, &sp, &best));
        if (v[0].fits && v[0].reject == ENGINE_REJECT_NONE) {
            cr_assert_eq(best.tp, v[0].tp);
            cr_assert_eq(best.pp, v[0].pp);
            cr_assert_eq(best.dp, v[0].dp);
            cr_assert_eq(best.zero, v[0].zero);
        } else {
            for (size_t i = 0; i < n && i < 64; i++)
                if (v[i].reject == ENGINE_REJECT_MEMORY)
                    cr_assert_leq(best.memory_total, v[i].memory_total);
        }
    }
}
