/*
 * lesson_seed_001.c: the shipped lesson of seed 001 (model size and
 * quantization), both languages.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "tests/lesson_check.h"

TestSuite(seed_001, .init = lesson_check_setup, .fini = lesson_check_teardown);

/*
 * Seed 001 (model size and quantization): the figures its captions state,
 * as the engine computes them, in both languages (the tolerance is the
 * rounding of the caption; GB = 1e9 bytes). The course's own figures:
 * 175B x 4 bytes = 700 GB in FP32, 175 GB in INT8. Steps 3, 5 and 7 are
 * check questions on the same rules (the caption is the answer).
 */
static void check_seed_001(const struct lesson *l) {
    struct engine_estimate e;
    const double cap = 85.9e9; /* the H100's 80 GiB, as the captions say */

    cr_assert_eq(lesson_count(l), 11);
    /* 1: 175e9 x 4 = 700 GB; 701.4 GB in all, 8.2 times one H100's 85.9 GB */
    engine_estimate(&lesson_step(l, 0)->options.sc, &e);
    cr_expect_float_eq(e.bits_per_weight, 32.0, 1e-9);
    cr_expect_float_eq(e.memory.weights, 700e9, 1e6);
    cr_expect_float_eq(e.memory.total, 701.4e9, 0.05e9);
    cr_expect_float_eq(e.capacity, cap, 0.05e9);
    cr_expect_float_eq(e.memory_ratio, 8.2, 0.05);
    cr_expect_not(e.fits);
    cr_expect_eq(lesson_step(l, 0)->pane, LESSON_PANE_MEMORY);
    /* 2: FP16, 2 bytes: 350 GB, does not fit */
    engine_estimate(&lesson_step(l, 1)->options.sc, &e);
    cr_expect_float_eq(e.bits_per_weight, 16.0, 1e-9);
    cr_expect_float_eq(e.memory.weights, 350e9, 1e6);
    cr_expect_not(e.fits);
    /* 3, a question: 14B in FP16 on an RTX 4090: 14 x 2 = 28.0 GB, 29.2 GB
     * in all, over the card's 25.8 GB (24 GiB) */
    const struct lesson_step *q = lesson_step(l, 2);
    cr_expect_not_null(q->question, "step 3 asks");
    cr_expect(lesson_step_hides(q, LESSON_PANE_MEMORY));
    engine_estimate(&q->options.sc, &e);
    cr_expect_float_eq(e.memory.weights, 28.0e9, 1e6);
    cr_expect_float_eq(e.memory.total, 29.2e9, 0.05e9);
    cr_expect_float_eq(e.capacity, 25.8e9, 0.05e9);
    cr_expect_not(e.fits);
    /* 4: INT8: 175 GB, 175.09 with a 16-bit scale per row of 4,096 */
    engine_estimate(&lesson_step(l, 3)->options.sc, &e);
    cr_expect_float_eq(e.bits_per_weight, 8.0 + 16.0 / 4096, 1e-9);
    cr_expect_float_eq(e.memory.weights, 175.09e9, 0.005e9);
    /* 5, a question: 72B in INT8: 72.0 GB of weights, 73.3 GB, fits 85.9 */
    q = lesson_step(l, 4);
    cr_expect_not_null(q->question, "step 5 asks");
    engine_estimate(&q->options.sc, &e);
    cr_expect_float_eq(e.memory.weights, 72.0e9, 0.05e9);
    cr_expect_float_eq(e.memory.total, 73.3e9, 0.05e9);
    cr_expect_float_eq(e.capacity, cap, 0.05e9);
    cr_expect(e.fits);
    /* 6: INT4 per group of 32: 4.5 bits, 98.4 GB; half a byte is 87.5 GB */
    engine_estimate(&lesson_step(l, 5)->options.sc, &e);
    cr_expect_float_eq(e.bits_per_weight, 4.5, 1e-9);
    cr_expect_float_eq(e.memory.weights, 98.4e9, 0.05e9);
    cr_expect_float_eq(e.memory.weights * 4.0 / e.bits_per_weight, 87.5e9, 1e6);
    /* 7, a question: 7B in INT4 g32: 7e9 x 4.5 / 8 = 3.94 GB (3.5 at half a
     * byte); the Format pane's formula is hidden too */
    q = lesson_step(l, 6);
    cr_expect_not_null(q->question, "step 7 asks");
    cr_expect(lesson_step_hides(q, LESSON_PANE_FORMAT));
    engine_estimate(&q->options.sc, &e);
    cr_expect_float_eq(e.bits_per_weight, 4.5, 1e-9);
    cr_expect_float_eq(e.memory.weights, 3.9375e9, 1e3);
    cr_expect_float_eq(e.memory.weights * 4.0 / e.bits_per_weight, 3.5e9, 1e3);
    /* 8-10: the mapping, rounding, PTQ/QAT on the Format pane, words only */
    for (size_t i = 7; i < 10; i++)
        cr_expect_eq(lesson_step(l, i)->pane, LESSON_PANE_FORMAT, "step %zu", i + 1);
    /* 11: the error lab, no figures */
    cr_expect_eq(lesson_step(l, 10)->pane, LESSON_PANE_MEASURE);
    for (const char *c = lesson_step(l, 10)->caption; *c; c++)
        cr_expect(*c < '0' || *c > '9', "the error lab's caption states no number");
}

Test(seed_001, captions_state_what_the_engine_shows) {
    static const char *const files[] = {LESSONS "seed-001.en.yaml", LESSONS "seed-001.es.yaml"};

    for (size_t f = 0; f < 2; f++) {
        struct lesson l;
        lesson_check_load(&lesson_check_cat, files[f], &l);
        check_seed_001(&l);
        lesson_free(&l);
    }
    lesson_check_pair(&lesson_check_cat, files[0], files[1], 3);
    cr_expect_eq(lesson_resolve("seed-001", "es", (char[1024]){0}, 1024), 0);
}
