/*
 * lesson_seed_002.c: the shipped lesson of seed 002 (fine-tuning
 * requirements), both languages. Every figure a caption shows is cited
 * ({memory.optimizer}: the engine's by construction,
 * tests/test_lesson_lint.c), so what is checked here is that each step
 * cites the figures its claim rests on, that the engine gives the course
 * text's own numbers (the ones the texts quote: «~112 GB», «~84 GB»,
 * «15,360 seconds», «$4.00», «$1.20») on the step's scenario, and that every
 * claim a caption or a note makes about those figures (it fits, it does not,
 * six times the weights, the largest Qwen2.5 that fits, the same cost on an
 * H100) holds.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "tests/lesson_check.h"

TestSuite(seed_002, .init = lesson_check_setup, .fini = lesson_check_teardown);

#define GB  1e9
#define GIB 1073741824.0

/* The estimate of step i (0-based). */
static void step_estimate(const struct lesson *l, size_t i, struct engine_estimate *e) {
    engine_estimate(&lesson_step(l, i)->options.sc, e);
    cr_assert_eq(e->invalid, 0, "step %zu", i + 1);
}

/* Step i's caption (or question) cites every key of keys, up to
 * ENGINE_KEY_COUNT: CITES(l, i, ENGINE_KEY_MEM_TOTAL, ENGINE_KEY_CAPACITY). */
static void cites_all(const struct lesson *l, size_t i, const enum engine_key *keys) {
    for (; *keys != ENGINE_KEY_COUNT; keys++)
        cr_expect(lesson_cites_key(&lesson_step(l, i)->cites, *keys), "step %zu does not cite {%s}",
                  i + 1, engine_key_name(*keys));
}
#define CITES(l, i, ...) cites_all(l, i, (const enum engine_key[]){__VA_ARGS__, ENGINE_KEY_COUNT})

/* The estimate of sc, a valid scenario. */
static void sc_estimate(const struct engine_scenario *sc, struct engine_estimate *e) {
    engine_estimate(sc, e);
    cr_assert_eq(e->invalid, 0, "%s on %s", sc->model.id, sc->gpu.id);
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
    return e->memory.weights + e->memory.gradients + e->memory.master_weights + e->memory.optimizer;
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
static size_t layouts_fitting(const struct engine_scenario *sc, uint32_t gpus, size_t *candidates,
                              struct engine_layout *first) {
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
 * Seed 002 (fine-tuning requirements). The course's own figures for 7B:
 * «weights_fp32 = parameters * 4  # 28 GB», «gradients_fp32 ... # 28 GB»,
 * «optimizer_fp32 = parameters * 4 * 2  # 56 GB (2 states)», «Total: ~112
 * GB»; in BF16 «# 14 GB» + «# 14 GB» + «# 56 GB (kept in fp32)», «Total:
 * ~84 GB ⚠️ Still requires A100-80GB»; «Total: ~60-70 GB» with
 * checkpointing; «Effective batch size = 1 * 16 = 16»; its worked example:
 * «10,000 examples, 512 tokens each», «3 epochs», «~1,000 tokens/s» on an
 * A100-40GB, «15,360 seconds», «4.3 hours», «4 × $4.00 = $16 (on-demand)»,
 * «4 × $1.20 = $4.80 (spot)», «60-70%» saved on spot; its GPU tables (A100
 * and H100 «80 GB», RTX 3090/4090 «24 GB», «~2,000 tokens/s» on an H100 at
 * «$8.00» an hour).
 */
static void check_seed_002(const struct lesson *l) {
    struct engine_estimate e, fp32, bf16, mixed, adam8, zero0, zero1, zero2;

    cr_assert_eq(lesson_count(l), 17);
    /* Every step trains on the text's data set: «10,000 examples, 512 tokens
     * each» x «3 epochs» = «15_360_000» tokens. */
    for (size_t i = 0; i < lesson_count(l); i++) {
        step_estimate(l, i, &e);
        cr_expect_float_eq(e.train_tokens, 15360000, 1, "step %zu", i + 1);
        cr_expect_eq(step_scenario(l, i).context, 512, "step %zu", i + 1);
    }

    /* 1: the four parts, 7B in FP32, «4 bytes» each: «28 GB», «28 GB», «56
     * GB (2 states)», and activations; no master copy in this recipe; the
     * notes: the activations are per layer, the course's rough «batch_size *
     * seq_len * 4096 * 4» far smaller */
    step_estimate(l, 0, &fp32);
    cr_expect_float_eq(fp32.params_total, 7e9, 1);
    cr_expect_float_eq(fp32.memory.weights, 28 * GB, 1e6);
    cr_expect_float_eq(fp32.memory.gradients, 28 * GB, 1e6);
    cr_expect_float_eq(fp32.memory.optimizer, 56 * GB, 1e6);
    cr_expect_float_eq(fp32.memory.master_weights, 0, 1e-9);
    cr_expect_gt(fp32.memory.activations, 0);
    cr_expect_gt(fp32.memory.activations, 100 * (1.0 * 512 * 4096 * 4));
    cr_expect_gt(fp32.act_per_layer_bytes, 0);
    cr_expect_eq(lesson_step(l, 0)->hide, 1u << LESSON_PANE_MEMORY);
    CITES(l, 0, ENGINE_KEY_MEM_WEIGHTS, ENGINE_KEY_MEM_GRADIENTS, ENGINE_KEY_MEM_OPTIMIZER,
          ENGINE_KEY_MEM_ACTIVATIONS);
    /* 2: 7e9 x 4 x 4 = «~112 GB», exactly weights, gradients and two
     * states; with the activations and the reserve more than one A100
     * 80GB, whose «80 GB» are GiB; the multiplier the bar implies is just
     * over 4 (the notes) */
    step_estimate(l, 1, &e);
    cr_expect_float_eq(e.memory.weights * 4, 112 * GB, 1e6);
    cr_expect_float_eq(state_bytes(&e), 112 * GB, 1e6);
    cr_expect_float_eq(e.capacity, 80 * GIB, 1);
    cr_expect_gt(e.memory.total, e.capacity);
    cr_expect_not(e.fits);
    cr_expect_gt(e.memory.total / e.memory.weights, 4);
    cr_expect_lt(e.memory.total / e.memory.weights, 4.5);
    CITES(l, 1, ENGINE_KEY_MEM_TOTAL, ENGINE_KEY_MEM_RATIO, ENGINE_KEY_CAPACITY);
    /* 3: BF16: «14 GB» + «14 GB» + «56 GB» = «~84 GB», 6 times the weights;
     * with the activations and the reserve more than the A100-80GB the text
     * says it «Still requires»: the activations and reserve push it over */
    step_estimate(l, 2, &bf16);
    cr_expect_float_eq(bf16.memory.weights, 14 * GB, 1e6);
    cr_expect_float_eq(bf16.memory.gradients, 14 * GB, 1e6);
    cr_expect_float_eq(bf16.memory.optimizer, 56 * GB, 1e6);
    cr_expect_float_eq(state_bytes(&bf16), 84 * GB, 1e6);
    cr_expect_float_eq(state_bytes(&bf16) / bf16.memory.weights, 6, 1e-9);
    cr_expect_float_eq(bf16.capacity, 80 * GIB, 1);
    cr_expect_lt(state_bytes(&bf16), bf16.capacity, "the text's sum alone would fit");
    cr_expect_not(bf16.fits);
    CITES(l, 2, ENGINE_KEY_MEM_WEIGHTS, ENGINE_KEY_MEM_GRADIENTS, ENGINE_KEY_MEM_OPTIMIZER,
          ENGINE_KEY_MEM_ACTIVATIONS, ENGINE_KEY_MEM_TOTAL, ENGINE_KEY_CAPACITY);
    /* 4: vramlab's default, adam-mixed: the FP32 master copy, 2 + 2 + 4 + 8
     * = 16 bytes per parameter, 8 times the BF16 weights; the text's «~84
     * GB» is the recipe without the copy (step 3); twelve of the sixteen
     * bytes are the master copy and the states (step 9's notes) */
    step_estimate(l, 3, &mixed);
    cr_expect_eq(step_scenario(l, 3).recipe, ENGINE_RECIPE_ADAM_MIXED);
    cr_expect_float_eq(mixed.memory.master_weights, 28 * GB, 1e6);
    cr_expect_float_eq(state_bytes(&mixed) / mixed.params_total, 16, 1e-9);
    cr_expect_float_eq(state_bytes(&mixed) / mixed.memory.weights, 8, 1e-9);
    cr_expect_float_eq(state_bytes(&mixed) - mixed.memory.master_weights, state_bytes(&bf16), 1);
    cr_expect_float_eq((mixed.memory.master_weights + mixed.memory.optimizer) / mixed.params_total,
                       12, 1e-9);
    CITES(l, 3, ENGINE_KEY_MEM_MASTER, ENGINE_KEY_MEM_TOTAL);
    /* 5: checkpointing: the activations shrink (far more than the text's
     * «~30%») and the 7B fits, just; the «~84 GB» of state stay, so the
     * total stays above «~60-70 GB»; the backward pass recomputes the
     * forward: more hardware FLOPs per token */
    step_estimate(l, 4, &e);
    cr_expect_eq(step_scenario(l, 4).recompute, ENGINE_RECOMPUTE_FULL);
    cr_expect_lt(e.memory.activations, 0.7 * bf16.memory.activations);
    cr_expect_float_eq(state_bytes(&e), 84 * GB, 1e6);
    cr_expect_gt(e.memory.total, 70 * GB);
    cr_expect(e.fits);
    cr_expect_lt(e.spare_bytes, 1 * GB, "fits just");
    cr_expect_gt(e.train_hw_flops_per_token, e.train_flops_per_token);
    CITES(l, 4, ENGINE_KEY_MEM_ACTIVATIONS, ENGINE_KEY_MEM_TOTAL, ENGINE_KEY_CAPACITY);
    /* 6: 8-bit Adam: one byte per state, a quarter of FP32's; 2 + 2 + 4 + 2
     * = 10 bytes per parameter */
    step_estimate(l, 5, &adam8);
    cr_expect_eq(step_scenario(l, 5).recipe, ENGINE_RECIPE_ADAM_8BIT);
    cr_expect_float_eq(adam8.memory.optimizer * 4, fp32.memory.optimizer, 1);
    cr_expect_float_eq(state_bytes(&adam8) / adam8.params_total, 10, 1e-9);
    cr_expect_lt(adam8.memory.total, e.memory.total);
    CITES(l, 5, ENGINE_KEY_MEM_OPTIMIZER, ENGINE_KEY_MEM_TOTAL);
    /* 7: Adafactor: n + m numbers per n x m matrix, tiny next to 8-bit
     * Adam's; 2 + 2 + 4 = 8 bytes per parameter left; below «~60-70 GB» */
    step_estimate(l, 6, &e);
    cr_expect_eq(step_scenario(l, 6).recipe, ENGINE_RECIPE_ADAFACTOR);
    cr_expect_lt(e.memory.optimizer, 0.01 * adam8.memory.optimizer);
    cr_expect_float_eq((state_bytes(&e) - e.memory.optimizer) / e.params_total, 8, 1e-9);
    cr_expect_lt(e.memory.total, 60 * GB);
    CITES(l, 6, ENGINE_KEY_MEM_OPTIMIZER, ENGINE_KEY_MEM_TOTAL);
    /* 8: «per_device_train_batch_size=1», «gradient_accumulation_steps=16»:
     * «Effective batch size = 1 * 16 = 16», 16 x 512 tokens per step; the
     * memory of one sequence (step 6's, the same scenario without
     * accumulation), one gradient buffer; 16 sequences at once would hold 16
     * times the activations; the tokens per second stay step 6's */
    step_estimate(l, 7, &e);
    cr_expect_eq(step_scenario(l, 7).batch, 1);
    cr_expect_float_eq(e.train_micro_batches, 16, 1e-9);
    cr_expect_float_eq(e.train_global_batch, 1 * 16, 1e-9);
    cr_expect_float_eq(e.train_tokens_per_step, 16 * 512, 1e-9);
    cr_expect_float_eq(e.memory.activations, adam8.memory.activations, 1);
    cr_expect_float_eq(e.memory.gradients, adam8.memory.gradients, 1);
    cr_expect_float_eq(e.memory.total, adam8.memory.total, 1);
    cr_expect_float_eq(e.train_tokens_per_s_per_gpu, adam8.train_tokens_per_s_per_gpu,
                       1e-6 * adam8.train_tokens_per_s_per_gpu);
    {
        struct engine_scenario at_once = step_scenario(l, 7);
        struct engine_estimate e16;
        at_once.batch = 16;
        sc_estimate(&at_once, &e16);
        cr_expect_float_eq(e16.train_micro_batches, 1, 1e-9);
        cr_expect_float_eq(e16.memory.activations / e.memory.activations, 16, 1e-6);
    }
    cr_expect(lesson_step_hides(lesson_step(l, 7), LESSON_PANE_MEMORY));
    CITES(l, 7, ENGINE_KEY_TRAIN_MICRO_BATCHES, ENGINE_KEY_TRAIN_GLOBAL_BATCH,
          ENGINE_KEY_TRAIN_TOKENS_PER_STEP, ENGINE_KEY_MEM_ACTIVATIONS, ENGINE_KEY_MEM_TOTAL);
    /* 9: ZeRO-1 on 8 A100 40GB: without ZeRO each holds step 4's total;
     * the states and the master copy an eighth each; still short, by less
     * than a GB */
    step_estimate(l, 8, &zero1);
    cr_expect_eq(step_scenario(l, 8).zero, 1);
    cr_expect_eq(zero1.dp, 8);
    cr_expect_float_eq(zero1.capacity, 40 * GIB, 1);
    cr_expect_float_eq(zero1.memory.optimizer * 8, mixed.memory.optimizer, 1);
    cr_expect_float_eq(zero1.memory.master_weights * 8, mixed.memory.master_weights, 1);
    cr_expect_float_eq(zero1.memory.weights, mixed.memory.weights, 1);
    cr_expect_float_eq(zero1.memory.gradients, mixed.memory.gradients, 1);
    cr_expect_not(zero1.fits);
    cr_expect_lt(zero1.spare_bytes, 0);
    cr_expect_gt(zero1.spare_bytes, -1 * GB, "short by little");
    {
        struct engine_scenario sc0 = step_scenario(l, 8);
        sc0.zero = 0;
        sc_estimate(&sc0, &zero0);
        cr_expect_float_eq(zero0.memory.total, mixed.memory.total, 1, "step 4's total");
    }
    CITES(l, 8, ENGINE_KEY_MEM_OPTIMIZER, ENGINE_KEY_MEM_MASTER, ENGINE_KEY_MEM_TOTAL,
          ENGINE_KEY_CAPACITY);
    /* 10: ZeRO-2, «"stage": 2»: the gradients an eighth, it fits; the
     * weights still whole; no more communication than plain data
     * parallelism (the notes) */
    step_estimate(l, 9, &zero2);
    cr_expect_eq(step_scenario(l, 9).zero, 2);
    cr_expect_float_eq(zero2.memory.gradients * 8, mixed.memory.gradients, 1);
    cr_expect_float_eq(zero2.memory.weights, mixed.memory.weights, 1);
    cr_expect(zero2.fits);
    cr_expect_gt(zero2.train_dp_comm_seconds, 0);
    cr_expect_float_eq(zero2.train_dp_comm_seconds, zero0.train_dp_comm_seconds,
                       1e-9 * zero0.train_dp_comm_seconds);
    CITES(l, 9, ENGINE_KEY_MEM_GRADIENTS, ENGINE_KEY_MEM_TOTAL, ENGINE_KEY_CAPACITY,
          ENGINE_KEY_MEM_WEIGHTS);
    /* 11: ZeRO-3: the weights an eighth too; eight shares of the state are
     * more than one GPU holds; about 1.5 times stage 2's communication */
    step_estimate(l, 10, &e);
    cr_expect_eq(step_scenario(l, 10).zero, 3);
    cr_expect_float_eq(e.memory.weights * 8, mixed.memory.weights, 1);
    cr_expect_float_eq(8 * state_bytes(&e), state_bytes(&mixed), 1);
    cr_expect_gt(8 * state_bytes(&e), e.capacity);
    cr_expect(e.fits);
    cr_expect_float_eq(e.train_dp_comm_seconds / zero2.train_dp_comm_seconds, 1.5, 0.05);
    CITES(l, 10, ENGINE_KEY_MEM_WEIGHTS, ENGINE_KEY_MEM_TOTAL);

    /* 12: one A100 80GB («80 GB»), the default recipe: the largest Qwen2.5
     * is the 3B; the 7B does not fit, its 16 bytes per parameter alone are
     * more than the card; the text's 7B sums (steps 2 and 3) do not fit
     * either */
    {
        struct engine_scenario sc = step_scenario(l, 11);
        step_estimate(l, 11, &e);
        cr_expect_str_eq(sc.model.family, "qwen2.5");
        cr_expect_str_eq(sc.model.id, "qwen2.5-3b");
        cr_expect_eq(sc.recipe, ENGINE_RECIPE_ADAM_MIXED);
        cr_expect_str_eq(largest_in_family(&sc), "qwen2.5-3b");
        cr_expect(e.fits);
        cr_expect_float_eq(e.capacity, 80 * GIB, 1);
        struct engine_scenario s7 = with_model(sc, "qwen2.5-7b");
        sc_estimate(&s7, &e);
        cr_expect_not(e.fits);
        cr_expect_gt(state_bytes(&e), e.capacity);
        cr_expect_not(fp32.fits);
        cr_expect_not(bf16.fits);
        CITES(l, 11, ENGINE_KEY_MEM_TOTAL, ENGINE_KEY_CAPACITY);
    }
    /* 13: with 8-bit Adam and checkpointing: the 7B; the 14B does not fit,
     * its 10 bytes per parameter alone are more than the card; an H100
     * («80 GB» too) gives the same answer; with LoRA the 14B fits with room
     * to spare (the notes) */
    {
        struct engine_scenario sc = step_scenario(l, 12);
        step_estimate(l, 12, &e);
        cr_expect_str_eq(sc.model.id, "qwen2.5-7b");
        cr_expect_str_eq(largest_in_family(&sc), "qwen2.5-7b");
        cr_expect(e.fits);
        struct engine_scenario s14 = with_model(sc, "qwen2.5-14b");
        sc_estimate(&s14, &e);
        cr_expect_not(e.fits);
        cr_expect_gt(state_bytes(&e), e.capacity);
        struct engine_scenario h100 = with_gpus(sc, "h100-sxm", 1);
        sc_estimate(&h100, &e);
        cr_expect_float_eq(e.capacity, 80 * GIB, 1);
        cr_expect_str_eq(largest_in_family(&h100), "qwen2.5-7b");
        s14.mode = ENGINE_MODE_LORA;
        sc_estimate(&s14, &e);
        cr_expect(e.fits, "LoRA fits the 14B");
        cr_expect_gt(e.spare_bytes, 0.25 * e.capacity, "with room to spare");
        CITES(l, 12, ENGINE_KEY_MEM_TOTAL, ENGINE_KEY_CAPACITY);
    }
    /* 14: an RTX 4090 (and a 3090), «24 GB», 24 GiB: with the savings the
     * 1.5B, not the 3B (whose 10 bytes per parameter alone are more than
     * the card); with the default recipe the 0.5B (the 1.5B's 16 bytes per
     * parameter nearly fill the card) */
    {
        struct engine_scenario sc = step_scenario(l, 13);
        step_estimate(l, 13, &e);
        cr_expect_float_eq(e.capacity, 24 * GIB, 1);
        cr_expect_str_eq(sc.model.id, "qwen2.5-1.5b");
        cr_expect_str_eq(largest_in_family(&sc), "qwen2.5-1.5b");
        cr_expect(e.fits);
        struct engine_scenario s3 = with_model(sc, "qwen2.5-3b");
        sc_estimate(&s3, &e);
        cr_expect_gt(state_bytes(&e), e.capacity);
        struct engine_scenario r3090 = with_gpus(sc, "rtx-3090", 1);
        cr_expect_str_eq(largest_in_family(&r3090), "qwen2.5-1.5b");
        struct engine_scenario full = step_scenario(l, 11); /* the default recipe */
        const char *gpus[] = {"rtx-4090", "rtx-3090"};
        for (size_t g = 0; g < 2; g++) {
            struct engine_scenario s = with_gpus(full, gpus[g], 1);
            cr_expect_str_eq(largest_in_family(&s), "qwen2.5-0.5b", "%s", gpus[g]);
            s.recompute = ENGINE_RECOMPUTE_SELECTIVE; /* the default recompute too */
            cr_expect_str_eq(largest_in_family(&s), "qwen2.5-0.5b", "%s", gpus[g]);
            s = with_model(s, "qwen2.5-1.5b");
            sc_estimate(&s, &e);
            cr_expect_gt(state_bytes(&e), 0.9 * e.capacity, "%s", gpus[g]);
            cr_expect_lt(state_bytes(&e), e.capacity, "%s", gpus[g]);
        }
        CITES(l, 13, ENGINE_KEY_CAPACITY, ENGINE_KEY_MEM_TOTAL);
    }
    /* 15: «8× H100» with 8-bit Adam, checkpointing, ZeRO-3: of the 10
     * layouts none fits the 72B (its 10 bytes per parameter over 8 GPUs are
     * more than one), all 10 fit the 32B, TP 8 ranked first; on «4×
     * A100-80GB» the 32B fits and the 72B does not («30-40B»); with
     * Adafactor some layouts fit the 72B (the notes) */
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
        cr_expect_float_eq(e.capacity, 80 * GIB, 1);
        struct engine_scenario s72 = with_model(sc, "qwen2.5-72b");
        cr_expect_eq(layouts_fitting(&s72, 8, &cand, NULL), 0);
        cr_expect_eq(cand, 10);
        {
            struct engine_estimate e72;
            sc_estimate(&s72, &e72);
            cr_expect_gt(state_bytes(&e72), e72.capacity, "the state alone");
        }
        struct engine_scenario a4 = with_gpus(sc, "a100-80gb", 4);
        cr_expect_gt(layouts_fitting(&a4, 4, NULL, NULL), 0);
        a4 = with_model(a4, "qwen2.5-72b");
        cr_expect_eq(layouts_fitting(&a4, 4, NULL, NULL), 0);
        s72.recipe = ENGINE_RECIPE_ADAFACTOR;
        cr_expect_gt(layouts_fitting(&s72, 8, NULL, NULL), 0);
        CITES(l, 14, ENGINE_KEY_MEM_TOTAL, ENGINE_KEY_CAPACITY);
    }

    /* 16: «15_360_000 / 1_000 = 15,360 seconds», «4.3 hours» rounded; the
     * time from the throughput alone; LoRA fits the A100-40GB, full
     * fine-tuning does not; at the text's «~2,000 tokens/s» an H100 takes
     * half the time at twice the price: the same cost (the notes) */
    {
        struct engine_scenario sc = step_scenario(l, 15);
        step_estimate(l, 15, &e);
        cr_expect_eq(sc.mode, ENGINE_MODE_LORA);
        cr_expect_float_eq(sc.throughput_tokens_per_s, 1000, 1e-9);
        cr_expect_float_eq(e.train_tokens, 10000.0 * 512 * 3, 1);
        cr_expect_float_eq(e.train_days * 86400, 15360, 1e-6);
        cr_expect_float_eq(e.train_gpu_hours, 15360 / 3600.0, 1e-9);
        cr_expect_float_eq(round(e.train_gpu_hours * 10) / 10, 4.3, 1e-9);
        cr_expect_float_eq(e.capacity, 40 * GIB, 1);
        cr_expect(e.fits);
        struct engine_scenario full = sc;
        full.mode = ENGINE_MODE_TRAIN;
        struct engine_estimate ef;
        sc_estimate(&full, &ef);
        cr_expect_not(ef.fits);
        struct engine_scenario h100 = with_gpus(sc, "h100-sxm", 1);
        struct engine_estimate eh;
        h100.throughput_tokens_per_s = 2000;
        sc_estimate(&h100, &eh);
        cr_expect_float_eq(engine_price_per_hour(&h100), 8.00, 0.005);
        cr_expect_float_eq(eh.train_gpu_hours * 2, e.train_gpu_hours, 1e-9);
        cr_expect_float_eq(eh.train_cost_usd, e.train_cost_usd, 1e-9);
        CITES(l, 15, ENGINE_KEY_TRAIN_GPU_HOURS, ENGINE_KEY_TRAIN_TOKENS, ENGINE_KEY_CAPACITY);
    }
    /* 17: at the text's «$4.00» and «$1.20» an hour: spot saves 70%, the top
     * of «60-70%»; «4 × $4.00 = $16» and «4 × $1.20 = $4.80» are the
     * rounded «4 hours» (the engine's golden test: tests/test_engine.c) */
    step_estimate(l, 16, &e);
    cr_expect_float_eq(engine_price_per_hour(&lesson_step(l, 16)->options.sc), 4.00, 0.005);
    cr_expect_float_eq(e.train_cost_usd, e.train_gpu_hours * 4.00, 1e-9);
    cr_expect_float_eq(e.train_cost_spot_usd, e.train_gpu_hours * 1.20, 1e-9);
    cr_expect_float_eq(1 - e.train_cost_spot_usd / e.train_cost_usd, 0.70, 1e-9);
    cr_expect_float_eq(4 * e.train_cost_usd / e.train_gpu_hours, 16, 1e-9);
    cr_expect_float_eq(4 * e.train_cost_spot_usd / e.train_gpu_hours, 4.80, 1e-9);
    CITES(l, 16, ENGINE_KEY_TRAIN_GPU_HOURS, ENGINE_KEY_TRAIN_COST, ENGINE_KEY_TRAIN_COST_SPOT);

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
        lesson_check_cited(files[f], &l);
        lesson_free(&l);
    }
    lesson_check_pair(&lesson_check_cat, files[0], files[1], 3);
    cr_expect_eq(lesson_resolve("seed-002", "es", (char[1024]){0}, 1024), 0);
}

/* The course's own numbers are quoted where the texts use them, in both
 * languages (the course's code and its figures are the same in both). */
Test(seed_002, the_course_numbers_are_quoted) {
    static const char *const files[] = {LESSONS "seed-002.en.yaml", LESSONS "seed-002.es.yaml"};
    static const struct {
        size_t step;
        int question; /* 1: in the question, 0: in the caption */
        const char *quote;
    } quotes[] = {
        {2, 0, "~112 GB"},
        {3, 0, "~84 GB"},
        {5, 0, "~60-70 GB"},
        {8, 1, "gradient_accumulation_steps=16"},
        {15, 1, "8\xc3\x97 H100"},
        {15, 0, "30-40B"},
        {16, 1, "~1,000 tokens/s"},
        {16, 0, "15_360_000 / 1_000 = 15,360 seconds"},
        {16, 0, "4.3 hours"},
        {17, 0, "$4.00"},
        {17, 0, "$1.20"},
        {17, 0, "60-70%"},
        {17, 0, "$16"},
        {17, 0, "$4.80"},
    };

    for (size_t f = 0; f < 2; f++) {
        struct lesson l;
        char want[128];
        lesson_check_load(&lesson_check_cat, files[f], &l);
        for (size_t i = 0; i < sizeof(quotes) / sizeof(quotes[0]); i++) {
            const struct lesson_step *s = lesson_step(&l, quotes[i].step - 1);
            const char *text = quotes[i].question ? s->question : s->caption;
            snprintf(want, sizeof(want), "\xc2\xab%s\xc2\xbb", quotes[i].quote);
            cr_expect_not_null(text && strstr(text, want) ? text : NULL, "%s step %zu: no %s",
                               files[f], quotes[i].step, want);
        }
        /* The notes quote the course's code for the four parts. */
        cr_expect_not_null(strstr(lesson_step(&l, 0)->notes, "# 56 GB (2 states)\xc2\xbb"), "%s",
                           files[f]);
        lesson_free(&l);
    }
}
