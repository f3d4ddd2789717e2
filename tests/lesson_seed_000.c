/*
 * lesson_seed_000.c: the shipped lesson of seed 000 (GPUs, memory and
 * quantization): both languages walk the same scenarios; every figure a
 * caption shows is cited ({memory.weights}: the engine's by construction,
 * tests/test_lesson_lint.c), so what is checked here is that the engine,
 * on each step's scenario, gives the course text's own numbers, the ones
 * the captions and notes quote («140 GB», «209 tokens per second»); at
 * least three steps are the course's check questions ("Compruébalo"),
 * asked before the screen answers; and no step's scenario contradicts its
 * caption (a warning that the model's context is exceeded, a figure the
 * scenario does not have).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "tests/lesson_check.h"

TestSuite(seed_000, .init = lesson_check_setup, .fini = lesson_check_teardown);

Test(seed_000, both_languages_every_step_valid) {
    struct lesson l;

    lesson_check_pair(&lesson_check_cat, LESSONS "seed-000.en.yaml", LESSONS "seed-000.es.yaml",
                      3);
    lesson_check_load(&lesson_check_cat, LESSONS "seed-000.en.yaml", &l);
    cr_expect_geq(lesson_count(&l), 15, "the seed has more claims than that");
    lesson_free(&l);
}

/* Every caption cites what it shows, and no step shows a warning its
 * caption would have to explain away (seed-000 steps 24-25 ran Pythia-1.4B
 * past its 2,048-token maximum). */
Test(seed_000, captions_cite_and_steps_are_consistent) {
    const char *files[] = {LESSONS "seed-000.en.yaml", LESSONS "seed-000.es.yaml"};
    for (int k = 0; k < 2; k++) {
        struct lesson l;
        lesson_check_load(&lesson_check_cat, files[k], &l);
        for (size_t i = 0; i < lesson_count(&l); i++) {
            const struct lesson_step *s = lesson_step(&l, i);
            struct engine_estimate e;
            size_t n;
            engine_estimate(&s->options.sc, &e);
            cr_expect_eq(e.warnings & ENGINE_WARN_CONTEXT_OVER_MAX, 0,
                         "%s step %zu: the context exceeds the model's", files[k], i + 1);
            cr_expect_null(lesson_text_literal(s->caption, &n), "%s step %zu", files[k], i + 1);
            cr_expect_null(strstr(s->caption, "Lesson 26"), "no such lesson in vramlab");
            cr_expect_null(strstr(s->caption, "lección 26"), "no such lesson in vramlab");
        }
        lesson_free(&l);
    }
}

/*
 * The course text's figures (the captions' and notes' quotations), as the
 * engine computes them for each step's scenario (seed 000; the tolerance
 * is the course's rounding).
 */
Test(seed_000, captions_state_what_the_engine_shows) {
    struct lesson l;
    struct engine_estimate e;

    lesson_check_load(&lesson_check_cat, LESSONS "seed-000.en.yaml", &l);
    engine_estimate(&lesson_check_step_titled(&l, "Bytes per parameter")->options.sc, &e);
    cr_expect_float_eq(e.memory.weights, 140e9, 1e6);
    /* the caption's "the bar needs 141.3 GB" (weights, KV cache, reserve) */
    cr_expect_float_eq(e.memory.total, 141.3e9, 0.05e9);
    cr_expect_not(e.fits);
    engine_estimate(&lesson_check_step_titled(&l, "FP32: 4 bytes")->options.sc, &e);
    cr_expect_float_eq(e.memory.weights, 280e9, 1e6);
    engine_estimate(&lesson_check_step_titled(&l, "INT8: 1 byte")->options.sc, &e);
    cr_expect_float_eq(e.memory.weights, 70.03e9, 0.01e9);
    /* the caption's "71.3 GB of 85.9" (it said 73.6, unchecked) */
    cr_expect_float_eq(e.memory.total, 71.3e9, 0.05e9);
    cr_expect_float_eq(e.capacity, 85.9e9, 0.05e9);
    cr_expect(e.fits);
    engine_estimate(&lesson_check_step_titled(&l, "INT4 is 4.5 bits")->options.sc, &e);
    cr_expect_float_eq(e.bits_per_weight, 4.5, 1e-9);
    cr_expect_float_eq(e.memory.weights, 39.4e9, 0.05e9);
    engine_estimate(&lesson_check_step_titled(&l, "Training: 16 bytes per parameter")->options.sc, &e);
    cr_expect_float_eq(e.memory.weights + e.memory.gradients + e.memory.master_weights +
                           e.memory.optimizer,
                       1120e9, 1e6);
    engine_estimate(&lesson_check_step_titled(&l, "The bandwidth ceiling")->options.sc, &e);
    cr_expect_eq(lround(e.decode_tokens_per_s_memory_bound), 209);
    cr_expect_eq(lround(e.ridge_flop_per_byte), 295);
    engine_estimate(&lesson_check_step_titled(&l, "Three ways to split")->options.sc, &e);
    cr_expect_eq(e.gpus, 16384);
    cr_expect_eq(e.tp * e.pp * e.dp, 16384);
    cr_expect(e.fits);
    engine_estimate(&lesson_check_step_titled(&l, "405B does not fit one server")->options.sc, &e);
    cr_expect_not(e.fits);
    engine_estimate(&lesson_check_step_titled(&l, "Training Llama 3.1 405B")->options.sc, &e);
    /* MFU 0.41 end to end (issue 12): (6 N + 12 L h s) * 15.6T / (989e12 *
     * 0.41) at s = 8192 = 28.2M GPU-hours, 71.7 days: the caption's "about
     * 72 days", "28.2 million GPU-hours" and the 19% bubble it names. */
    cr_expect_eq(lround(e.train_days), 72);
    cr_expect_float_eq(e.train_gpu_hours, 28.19e6, 0.05e6);
    cr_expect_eq(lround(100 * e.train_bubble_fraction), 19);
    cr_expect_float_eq(e.memory.total, 73.9e9, 0.05e9);
    engine_estimate(&lesson_check_step_titled(&l, "Activations")->options.sc, &e);
    /* Korthikanti's 34 s b h generalised to the derived shape of 70B
     * (h 9216, 72 heads, 8 KV heads, gated MLP f 32256): 10 + 4 + 4 kv/a +
     * 6 f/h = 35.44 (engine/engine.c act_per_layer). */
    cr_expect_float_eq(e.act_per_layer_bytes,
                       (10 + 4 + 4.0 * 8 / 72 + 6.0 * 32256 / 9216) * 1024 * 9216, 1.0);
    engine_estimate(&lesson_check_step_titled(&l, "The pipeline bubble")->options.sc, &e);
    cr_expect_float_eq(e.train_bubble_fraction, 15.0 / 31.0, 1e-9);
    engine_estimate(&lesson_check_step_titled(&l, "More micro-batches")->options.sc, &e);
    cr_expect_float_eq(e.train_bubble_fraction, 15.0 / 79.0, 1e-9);
    cr_expect_eq(lesson_check_step_titled(&l, "Measure")->pane, LESSON_PANE_MEASURE);

    /* The check questions (the caption is the answer). 70B FP16 over two
     * H100 (TP 2): 70.0 GB of weights per GPU, 71.1 GB in all of 85.9. */
    const struct lesson_step *q = lesson_check_step_titled(&l, "Check: 70B on two H100");
    cr_expect_not_null(q->question);
    cr_expect(lesson_step_hides(q, LESSON_PANE_MEMORY), "the default hides Memory");
    engine_estimate(&q->options.sc, &e);
    cr_expect_float_eq(e.memory.weights, 70.0e9, 0.05e9);
    cr_expect_float_eq(e.memory.total, 71.1e9, 0.05e9);
    cr_expect_float_eq(e.capacity, 85.9e9, 0.05e9);
    cr_expect(e.fits);
    /* 7B with Adam in mixed precision: 16 bytes x 7e9 = 112 GB of states,
     * 118.5 GB with activations and reserve; 14 GB of FP16 weights. */
    q = lesson_check_step_titled(&l, "Check: training 7B");
    cr_expect_not_null(q->question);
    engine_estimate(&q->options.sc, &e);
    cr_expect_float_eq(e.memory.weights + e.memory.gradients + e.memory.master_weights +
                           e.memory.optimizer,
                       112e9, 1e6);
    cr_expect_float_eq(e.memory.weights, 14e9, 1e6);
    cr_expect_float_eq(e.memory.total, 118.5e9, 0.05e9);
    cr_expect_not(e.fits);
    /* 8B in INT8 on one H100: 3.35 TB/s over 8.0 GB read per token, 418
     * tokens/s (the FP16 step's 209). */
    q = lesson_check_step_titled(&l, "Check: the ceiling in INT8");
    cr_expect_not_null(q->question);
    cr_expect(lesson_step_hides(q, LESSON_PANE_SPEED));
    cr_expect_not(lesson_step_hides(q, LESSON_PANE_MEMORY), "hide: speed only");
    engine_estimate(&q->options.sc, &e);
    cr_expect_eq(lround(e.decode_tokens_per_s_memory_bound), 418);
    cr_expect_float_eq(e.decode_bytes_per_step, 8.0e9, 0.05e9);
    cr_expect_float_eq(e.bandwidth_bytes_per_s, 3.35e12, 1e9);
    lesson_free(&l);
}

