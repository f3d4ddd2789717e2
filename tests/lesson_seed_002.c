/*
 * lesson_seed_002.c: the shipped lesson of seed 002 (fine-tuning
 * requirements), both languages.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "tests/lesson_check.h"

TestSuite(seed_002, .init = lesson_check_setup, .fini = lesson_check_teardown);

#define GB 1e9

/* The estimate of step i (0-based). */
static void step_estimate(const struct lesson *l, size_t i, struct engine_estimate *e) {
    engine_estimate(&lesson_step(l, i)->options.sc, e);
    cr_assert_eq(e->invalid, 0, "step %zu", i + 1);
}

/* The scenario of step i. */
static struct engine_scenario step_scenario(const struct lesson *l, size_t i) {
    return lesson_step(l, i)->options.sc;
}

/* The scenario sc with the catalog model id instead. */
static struct engine_scenario with_model(struct engine_scenario sc, const char *id) {
    const struct engine_model *m = catalog_find_model(&lesson_check_cat, id);
    cr_assert_not_null(m, "%s", id);
    sc.model = *m;
    return sc;
}

/* The scenario sc on n GPUs of catalog kind id, data parallel. */
static struct engine_scenario with_gpus(struct engine_scenario sc, const char *id, uint32_t n) {
    const struct engine_gpu *g = catalog_find_gpu(&lesson_check_cat, id);
    cr_assert_not_null(g, "%s", id);
    sc.gpu = *g;
    sc.gpus = n;
    sc.tp = sc.pp = 1;
    sc.dp = n;
    return sc;
}

/* Weights + gradients + master copy + optimizer states: the training state. */
static double state_bytes(const struct engine_estimate *e) {
    return e->memory.weights + e->memory.gradients + e->memory.master_weights +
           e->memory.optimizer;
}

/* The largest model of sc's catalog family that fits sc (as `vramlab plan`
 * reports it: "largest of its family that fits"); NULL when none. */
static const char *largest_in_family(const struct engine_scenario *sc) {
    static struct engine_model fam[256];
    const struct catalog *c = &lesson_check_cat;
    size_t n = 0;
    for (size_t i = 0; i < c->n_models && n < 256; i++)
        if (!strcmp(c->models[i].family, sc->model.family))
            fam[n++] = c->models[i];
    cr_assert_geq(n, 5, "family %s", sc->model.family);
    int k = engine_largest_fitting(sc, fam, n);
    return k >= 0 ? fam[k].id : NULL;
}

/* How many of the layouts of `gpus` GPUs (`vramlab search --gpus N`) fit sc;
 * *candidates gets how many there are, *first the first one ranked. */
static size_t layouts_fitting(const struct engine_scenario *sc, uint32_t gpus,
                              size_t *candidates, struct engine_layout *first) {
    struct engine_layout out[64];
    size_t n = engine_search_layouts(sc, gpus, out, 64), fit = 0;
    cr_assert_leq(n, 64);
    for (size_t i = 0; i < n; i++)
        fit += out[i].fits;
    if (candidates)
        *candidates = n;
    if (first && n)
        *first = out[0];
    return fit;
}

/*
 * Seed 002 (fine-tuning requirements): the figures its captions state, as
 * the engine computes them, in both languages (the tolerance is the
 * rounding of the caption; GB = 1e9 bytes). The course's own figures for
 * 7B: 28 + 28 + 56 = 112 GB in FP32, 14 + 14 + 56 = 84 GB in BF16 with the
 * states in FP32, "60-70 GB" with checkpointing; its worked example:
 * 10,000 x 512 tokens x 3 epochs at 1,000 tokens/s = 4.3 h, $16 on demand
 * and $4.80 spot at $4.00 and $1.20 an hour on an A100-40GB.
 */
static void check_seed_002(const struct lesson *l) {
    struct engine_estimate e;
    const double a100_80 = 85.9 * GB, a100_40 = 42.9 * GB;

    cr_assert_eq(lesson_count(l), 17);
    /* Every step trains on the text's data set: 10,000 x 512 x 3 epochs. */
    for (size_t i = 0; i < lesson_count(l); i++) {
        step_estimate(l, i, &e);
        cr_expect_float_eq(e.train_tokens, 15.36e6, 1, "step %zu", i + 1);
        cr_expect_eq(step_scenario(l, i).context, 512, "step %zu", i + 1);
    }

    /* 1: the four parts, 7B in FP32: 28, 28, 56 GB and 4.1 GB of activations */
    step_estimate(l, 0, &e);
    cr_expect_float_eq(e.memory.weights, 28 * GB, 1e6);
    cr_expect_float_eq(e.memory.gradients, 28 * GB, 1e6);
    cr_expect_float_eq(e.memory.optimizer, 56 * GB, 1e6);
    cr_expect_float_eq(e.memory.master_weights, 0, 1e-9);
    cr_expect_float_eq(e.memory.activations, 4.1 * GB, 0.05 * GB);
    cr_expect_eq(lesson_step(l, 0)->hide, 1u << LESSON_PANE_MEMORY);
    /* 2: 7e9 x 4 x 4 = 112 GB; 117.1 GB with the 1 GB reserve, 4.2 times the
     * 28 GB of weights, 1.4 times the A100's 85.9 GB */
    step_estimate(l, 1, &e);
    cr_expect_float_eq(e.params_total, 7e9, 1);
    cr_expect_float_eq(e.memory.weights * 4, 112 * GB, 1e6);
    cr_expect_float_eq(state_bytes(&e), 112 * GB, 1e6);
    cr_expect_float_eq(e.memory.reserve, 1 * GB, 1e6);
    cr_expect_float_eq(e.memory.total, 117.1 * GB, 0.05 * GB);
    cr_expect_float_eq(e.memory.total / e.memory.weights, 4.2, 0.05);
    cr_expect_float_eq(e.memory_ratio, 1.4, 0.05);
    cr_expect_float_eq(e.capacity, a100_80, 0.05 * GB);
    cr_expect_not(e.fits);
    /* 3: BF16: 14 + 14 + 56 = 84 GB, 6 times the weights; 89.1 GB with 4.1 GB
     * of activations and the reserve: does not fit 85.9 GB */
    step_estimate(l, 2, &e);
    cr_expect_float_eq(e.memory.weights, 14 * GB, 1e6);
    cr_expect_float_eq(e.memory.gradients, 14 * GB, 1e6);
    cr_expect_float_eq(e.memory.optimizer, 56 * GB, 1e6);
    cr_expect_float_eq(state_bytes(&e), 84 * GB, 1e6);
    cr_expect_float_eq(state_bytes(&e) / e.memory.weights, 6, 1e-9);
    cr_expect_float_eq(e.memory.activations, 4.1 * GB, 0.05 * GB);
    cr_expect_float_eq(e.memory.total, 89.1 * GB, 0.05 * GB);
    cr_expect_float_eq(e.capacity, a100_80, 0.05 * GB);
    cr_expect_not(e.fits);
    /* 4: vramlab's default, adam-mixed: the master copy 28 GB more, 16 bytes,
     * 112 GB, 8 times the BF16 weights, 117.1 GB in all */
    step_estimate(l, 3, &e);
    cr_expect_eq(step_scenario(l, 3).recipe, ENGINE_RECIPE_ADAM_MIXED);
    cr_expect_float_eq(e.memory.master_weights, 28 * GB, 1e6);
    cr_expect_float_eq(state_bytes(&e), 112 * GB, 1e6);
    cr_expect_float_eq(state_bytes(&e) / e.params_total, 16, 1e-9);
    cr_expect_float_eq(state_bytes(&e) / e.memory.weights, 8, 1e-9);
    cr_expect_float_eq(e.memory.total, 117.1 * GB, 0.05 * GB);
    /* 5: checkpointing: activations 0.48 GB, 85.5 GB of 85.9, it fits; the
     * 84 GB of state stay */
    step_estimate(l, 4, &e);
    cr_expect_eq(step_scenario(l, 4).recompute, ENGINE_RECOMPUTE_FULL);
    cr_expect_float_eq(e.memory.activations, 0.48 * GB, 0.005 * GB);
    cr_expect_float_eq(e.memory.total, 85.5 * GB, 0.05 * GB);
    cr_expect_float_eq(state_bytes(&e), 84 * GB, 1e6);
    cr_expect(e.fits);
    /* 6: 8-bit Adam: states 14 GB, 10 bytes per parameter, 70 GB, 71.5 GB
     * in all */
    step_estimate(l, 5, &e);
    cr_expect_eq(step_scenario(l, 5).recipe, ENGINE_RECIPE_ADAM_8BIT);
    cr_expect_float_eq(e.memory.optimizer, 14 * GB, 1e6);
    cr_expect_float_eq(state_bytes(&e), 70 * GB, 1e6);
    cr_expect_float_eq(state_bytes(&e) / e.params_total, 10, 1e-9);
    cr_expect_float_eq(e.memory.total, 71.5 * GB, 0.05 * GB);
    /* 7: Adafactor: 10.8 MB of factored state instead of 14 GB; with the
     * weights, gradients and master copy 8 bytes per parameter, 57.5 GB in
     * all, below 60 GB */
    step_estimate(l, 6, &e);
    cr_expect_eq(step_scenario(l, 6).recipe, ENGINE_RECIPE_ADAFACTOR);
    cr_expect_float_eq(e.memory.optimizer, 10.8e6, 0.05e6);
    cr_expect_float_eq((state_bytes(&e) - e.memory.optimizer) / e.params_total, 8, 1e-9);
    cr_expect_float_eq(e.memory.total, 57.5 * GB, 0.05 * GB);
    cr_expect_lt(e.memory.total, 60 * GB);
    /* 8: batch 1 x accumulation 16 = 16 sequences, 8,192 tokens per step;
     * activations of one sequence, 0.48 GB, 71.5 GB in all; 16 at once
     * would hold 16 times the activations */
    step_estimate(l, 7, &e);
    cr_expect_float_eq(e.train_micro_batches, 16, 1e-9);
    cr_expect_float_eq(e.train_global_batch, 16, 1e-9);
    cr_expect_float_eq(e.train_tokens_per_step, 8192, 1e-9);
    cr_expect_float_eq(e.memory.activations, 0.48 * GB, 0.005 * GB);
    cr_expect_float_eq(e.memory.total, 71.5 * GB, 0.05 * GB);
    {
        struct engine_scenario at_once = step_scenario(l, 7);
        struct engine_estimate e16;
        at_once.batch = 16;
        engine_estimate(&at_once, &e16);
        cr_assert_eq(e16.invalid, 0);
        cr_expect_float_eq(e16.train_micro_batches, 1, 1e-9);
        cr_expect_float_eq(e16.memory.activations / e.memory.activations, 16, 1e-6);
    }
    /* 9: ZeRO-1 on 8 A100 40GB: 117.1 GB without ZeRO; optimizer 7 GB and
     * master 3.5 GB per GPU, 43.6 GB, 0.7 GB more than 42.9 GB */
    step_estimate(l, 8, &e);
    cr_expect_eq(step_scenario(l, 8).zero, 1);
    cr_expect_eq(e.dp, 8);
    cr_expect_float_eq(e.memory.optimizer, 7 * GB, 1e6);
    cr_expect_float_eq(e.memory.master_weights, 3.5 * GB, 1e6);
    cr_expect_float_eq(e.memory.total, 43.6 * GB, 0.05 * GB);
    cr_expect_float_eq(-e.spare_bytes, 0.7 * GB, 0.05 * GB);
    cr_expect_float_eq(e.capacity, a100_40, 0.05 * GB);
    cr_expect_not(e.fits);
    {
        struct engine_scenario zero0 = step_scenario(l, 8);
        struct engine_estimate e0;
        zero0.zero = 0;
        engine_estimate(&zero0, &e0);
        cr_expect_float_eq(e0.memory.total, 117.1 * GB, 0.05 * GB);
    }
    /* 10: ZeRO-2: gradients 1.75 GB instead of 14, 31.4 GB of 42.9, fits;
     * weights still 14 GB */
    step_estimate(l, 9, &e);
    cr_expect_eq(step_scenario(l, 9).zero, 2);
    cr_expect_float_eq(e.memory.gradients, 1.75 * GB, 1e6);
    cr_expect_float_eq(e.memory.weights, 14 * GB, 1e6);
    cr_expect_float_eq(e.memory.total, 31.4 * GB, 0.05 * GB);
    cr_expect(e.fits);
    /* 11: ZeRO-3: weights 1.75 GB per GPU, 19.1 GB; the 8 hold 112 GB of
     * state, which one alone could not */
    step_estimate(l, 10, &e);
    cr_expect_eq(step_scenario(l, 10).zero, 3);
    cr_expect_float_eq(e.memory.weights, 1.75 * GB, 1e6);
    cr_expect_float_eq(e.memory.total, 19.1 * GB, 0.05 * GB);
    cr_expect_float_eq(8 * state_bytes(&e), 112 * GB, 1e6);
    cr_expect_gt(state_bytes(&e) * 8, e.capacity);
    cr_expect(e.fits);

    /* 12: one A100 80GB, the default recipe: the largest Qwen2.5 is the 3B,
     * 53.2 GB of 85.9; the 7B does not fit */
    {
        struct engine_scenario sc = step_scenario(l, 11);
        step_estimate(l, 11, &e);
        cr_expect_str_eq(sc.model.family, "qwen2.5");
        cr_expect_eq(sc.recipe, ENGINE_RECIPE_ADAM_MIXED);
        cr_expect_str_eq(largest_in_family(&sc), "qwen2.5-3b");
        cr_expect_float_eq(e.memory.total, 53.2 * GB, 0.05 * GB);
        cr_expect_float_eq(e.capacity, a100_80, 0.05 * GB);
        struct engine_scenario s7 = with_model(sc, "qwen2.5-7b");
        engine_estimate(&s7, &e);
        cr_expect_not(e.fits);
    }
    /* 13: with 8-bit Adam and checkpointing: the 7B, 77.7 GB of 85.9; the
     * 14B does not fit; an H100 (the same 80 GiB) gives the same answer */
    {
        struct engine_scenario sc = step_scenario(l, 12);
        step_estimate(l, 12, &e);
        cr_expect_str_eq(sc.model.id, "qwen2.5-7b");
        cr_expect_str_eq(largest_in_family(&sc), "qwen2.5-7b");
        cr_expect_float_eq(e.memory.total, 77.7 * GB, 0.05 * GB);
        cr_expect(e.fits);
        struct engine_scenario s14 = with_model(sc, "qwen2.5-14b");
        engine_estimate(&s14, &e);
        cr_expect_not(e.fits);
        struct engine_scenario h100 = with_gpus(sc, "h100-sxm", 1);
        cr_expect_str_eq(largest_in_family(&h100), "qwen2.5-7b");
    }
    /* 14: an RTX 4090 (and a 3090), 24 GiB = 25.8 GB: with the savings the
     * 1.5B, 16.8 GB, not the 3B; with the default recipe the 0.5B */
    {
        struct engine_scenario sc = step_scenario(l, 13);
        step_estimate(l, 13, &e);
        cr_expect_float_eq(e.capacity, 25.8 * GB, 0.05 * GB);
        cr_expect_float_eq(e.capacity, 24.0 * 1073741824.0, 1);
        cr_expect_str_eq(largest_in_family(&sc), "qwen2.5-1.5b");
        cr_expect_str_eq(sc.model.id, "qwen2.5-1.5b");
        cr_expect_float_eq(e.memory.total, 16.8 * GB, 0.05 * GB);
        struct engine_scenario r3090 = with_gpus(sc, "rtx-3090", 1);
        cr_expect_str_eq(largest_in_family(&r3090), "qwen2.5-1.5b");
        struct engine_scenario full = step_scenario(l, 11); /* the default recipe */
        const char *gpus[] = {"rtx-4090", "rtx-3090"};
        for (size_t g = 0; g < 2; g++) {
            struct engine_scenario s = with_gpus(full, gpus[g], 1);
            cr_expect_str_eq(largest_in_family(&s), "qwen2.5-0.5b", "%s", gpus[g]);
            s.recompute = ENGINE_RECOMPUTE_SELECTIVE; /* the default recompute too */
            cr_expect_str_eq(largest_in_family(&s), "qwen2.5-0.5b", "%s", gpus[g]);
        }
    }
    /* 15: 8 H100 with 8-bit Adam, checkpointing, ZeRO-3: of the 10 layouts
     * none fits the 72B, all 10 fit the 32B, TP 8 ranked first, 42.4 GB per
     * GPU of 85.9; on 4 A100 80GB the 32B fits and the 72B does not */
    {
        struct engine_scenario sc = step_scenario(l, 14);
        struct engine_layout first;
        size_t cand;
        step_estimate(l, 14, &e);
        cr_expect_str_eq(sc.model.id, "qwen2.5-32b");
        cr_expect_eq(sc.zero, 3);
        cr_expect_eq(layouts_fitting(&sc, 8, &cand, &first), 10);
        cr_expect_eq(cand, 10);
        cr_expect_eq(first.tp, 8);
        cr_expect_eq(first.pp, 1);
        cr_expect_eq(first.dp, 1);
        cr_expect_eq(e.tp, 8);
        cr_expect_float_eq(e.memory.total, first.memory_total, 1);
        cr_expect_float_eq(e.memory.total, 42.4 * GB, 0.05 * GB);
        cr_expect_float_eq(e.capacity, 85.9 * GB, 0.05 * GB);
        struct engine_scenario s72 = with_model(sc, "qwen2.5-72b");
        cr_expect_eq(layouts_fitting(&s72, 8, &cand, NULL), 0);
        cr_expect_eq(cand, 10);
        struct engine_scenario a4 = with_gpus(sc, "a100-80gb", 4);
        cr_expect_gt(layouts_fitting(&a4, 4, NULL, NULL), 0);
        a4 = with_model(a4, "qwen2.5-72b");
        cr_expect_eq(layouts_fitting(&a4, 4, NULL, NULL), 0);
    }

    /* 16: 10,000 x 512 x 3 = 15.36M tokens / 1,000 tokens/s = 15,360 s,
     * 4.27 h (the text: 4.3); LoRA fits the A100's 42.9 GB */
    step_estimate(l, 15, &e);
    cr_expect_eq(step_scenario(l, 15).mode, ENGINE_MODE_LORA);
    cr_expect_float_eq(e.train_tokens, 15.36e6, 1);
    cr_expect_float_eq(e.train_days * 86400, 15360, 1e-6);
    cr_expect_float_eq(e.train_gpu_hours, 4.27, 0.005);
    cr_expect_float_eq(e.capacity, a100_40, 0.05 * GB);
    cr_expect(e.fits);
    /* 17: 4.27 GPU-hours at $4.00 = $17.07 on demand; at $1.20 spot $5.12,
     * 70% less; $16 and $4.80 are 4 h at those prices (the engine's golden
     * test: tests/test_engine.c) */
    step_estimate(l, 16, &e);
    cr_expect_float_eq(e.train_gpu_hours, 4.27, 0.005);
    cr_expect_float_eq(engine_price_per_hour(&lesson_step(l, 16)->options.sc), 4.00, 0.005);
    cr_expect_float_eq(e.train_cost_usd, 17.07, 0.005);
    cr_expect_float_eq(e.train_cost_spot_usd, 5.12, 0.005);
    cr_expect_float_eq(e.train_cost_spot_usd / e.train_gpu_hours, 1.20, 0.005);
    cr_expect_float_eq(1 - e.train_cost_spot_usd / e.train_cost_usd, 0.70, 0.005);
    cr_expect_float_eq(4 * e.train_cost_usd / e.train_gpu_hours, 16, 1e-9);
    cr_expect_float_eq(4 * e.train_cost_spot_usd / e.train_gpu_hours, 4.80, 1e-9);

    /* The questions: the four parts, BF16, accumulation, ZeRO-2, one GPU
     * with the savings, several GPUs, the training time. */
    {
        static const size_t q[] = {0, 2, 7, 9, 12, 14, 15};
        size_t n = 0;
        for (size_t i = 0; i < lesson_count(l); i++)
            n += lesson_step(l, i)->question != NULL;
        cr_expect_eq(n, sizeof(q) / sizeof(q[0]));
        for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
            cr_expect_not_null(lesson_step(l, q[i])->question, "step %zu", q[i] + 1);
    }
}

Test(seed_002, captions_state_what_the_engine_shows) {
    static const char *const files[] = {LESSONS "seed-002.en.yaml", LESSONS "seed-002.es.yaml"};

    for (size_t f = 0; f < 2; f++) {
        struct lesson l;
        lesson_check_load(&lesson_check_cat, files[f], &l);
        check_seed_002(&l);
        lesson_free(&l);
    }
    lesson_check_pair(&lesson_check_cat, files[0], files[1], 3);
    cr_expect_eq(lesson_resolve("seed-002", "es", (char[1024]){0}, 1024), 0);
}
