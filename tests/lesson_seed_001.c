/*
 * lesson_seed_001.c: the shipped lesson of seed 001 (model size and
 * quantization), both languages. Every figure a caption shows is cited
 * ({memory.weights}: the engine's by construction, tests/test_lesson_lint.c),
 * so what is checked here is that each step cites the figures its claim
 * rests on, that the engine gives the course text's own numbers (the ones
 * the texts quote: «700 GB», «175 GB») on the step's scenario, and that
 * every claim a caption or a note makes about those figures (it fits, it
 * does not, half of FP32, how many H100) holds.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "tests/lesson_check.h"

TestSuite(seed_001, .init = lesson_check_setup, .fini = lesson_check_teardown);

#define GB 1e9
#define GIB 1073741824.0

/* The estimate of step i (0-based), a valid scenario. */
static void est(const struct lesson *l, size_t i, struct engine_estimate *e) {
    engine_estimate(&lesson_step(l, i)->options.sc, e);
    cr_assert_eq(e->invalid, 0, "step %zu", i + 1);
}

/* Step i's caption (or question) cites key. */
static void cites(const struct lesson *l, size_t i, enum engine_key k) {
    cr_expect(lesson_cites_key(&lesson_step(l, i)->cites, k), "step %zu does not cite {%s}",
              i + 1, engine_key_name(k));
}

/* How many GPUs of this capacity the weights alone fill. */
static double gpus_for_weights(const struct engine_estimate *e) {
    return ceil(e->memory.weights / e->capacity);
}

/*
 * Seed 001 (model size and quantization). The course's own figures:
 * «175 mil millones de parámetros * 4 bytes/parámetro = 700 mil millones de
 * bytes = 700 GB»; INT8 «requeriría aproximadamente 175 GB», «se reduce de
 * 700 GB a 175 GB». Steps 3, 5 and 7 are check questions on the same rules
 * (the caption is the answer).
 */
static void check_seed_001(const struct lesson *l) {
    struct engine_estimate e, fp32;

    cr_assert_eq(lesson_count(l), 11);
    /* 1: 175B x «4 bytes» = «700 GB»; with the KV cache and the reserve it
     * does not fit one H100, whose «80 GB» are 80 GiB; the weights alone fill
     * nine (the notes' answer). */
    est(l, 0, &fp32);
    cr_expect_float_eq(fp32.params_total, 175e9, 1);
    cr_expect_float_eq(fp32.bits_per_weight, 32.0, 1e-9);
    cr_expect_float_eq(fp32.memory.weights, 700 * GB, 1e6);
    cr_expect_gt(fp32.memory.total, fp32.memory.weights);
    cr_expect_float_eq(fp32.capacity, 80 * GIB, 1);
    cr_expect_not(fp32.fits);
    cr_expect_eq(gpus_for_weights(&fp32), 9);
    cr_expect_eq(lesson_step(l, 0)->pane, LESSON_PANE_MEMORY);
    cites(l, 0, ENGINE_KEY_MEM_WEIGHTS);
    cites(l, 0, ENGINE_KEY_MEM_TOTAL);
    cites(l, 0, ENGINE_KEY_MEM_RATIO);
    /* 2: FP16, «2 bytes»: half of FP32, still does not fit; five H100 for
     * the weights */
    est(l, 1, &e);
    cr_expect_float_eq(e.bits_per_weight, 16.0, 1e-9);
    cr_expect_float_eq(e.memory.weights * 2, fp32.memory.weights, 1);
    cr_expect_not(e.fits);
    cr_expect_eq(gpus_for_weights(&e), 5);
    cites(l, 1, ENGINE_KEY_MEM_WEIGHTS);
    /* 3, a question: 14B in FP16 on an RTX 4090 (24 GiB): 14 x 2 = 28 GB of
     * weights, more than the card even before the KV cache; in INT8 it fits */
    const struct lesson_step *q = lesson_step(l, 2);
    cr_expect_not_null(q->question, "step 3 asks");
    cr_expect(lesson_step_hides(q, LESSON_PANE_MEMORY));
    est(l, 2, &e);
    cr_expect_float_eq(e.memory.weights, 28 * GB, 1e6);
    cr_expect_float_eq(e.capacity, 24 * GIB, 1);
    cr_expect_gt(e.memory.weights, e.capacity, "the weights alone do not fit");
    cr_expect_not(e.fits);
    {
        struct engine_scenario int8 = q->options.sc; /* step 4's INT8 */
        struct engine_estimate e8;
        int8.weight_format = lesson_step(l, 3)->options.sc.weight_format;
        cr_assert_str_eq(int8.weight_format.id, "int8");
        engine_estimate(&int8, &e8);
        cr_expect(e8.fits, "in INT8 it would fit");
    }
    cites(l, 2, ENGINE_KEY_MEM_WEIGHTS);
    cites(l, 2, ENGINE_KEY_CAPACITY);
    /* 4: INT8, «1 byte»: about «175 GB» (within the 16-bit scale per row,
     * 16/4096 of a bit), a quarter of FP32's «700 GB»; three H100 for the
     * weights; still does not fit one */
    est(l, 3, &e);
    cr_expect_float_eq(e.bits_per_weight, 8.0 + 16.0 / 4096, 1e-9);
    cr_expect_float_eq(e.memory.weights, 175 * GB, 0.001 * 175 * GB);
    cr_expect_float_eq(fp32.memory.weights / e.memory.weights, 4.0, 0.01);
    cr_expect_not(e.fits);
    cr_expect_eq(gpus_for_weights(&e), 3);
    cites(l, 3, ENGINE_KEY_MEM_WEIGHTS);
    cites(l, 3, ENGINE_KEY_BITS_PER_WEIGHT);
    /* 5, a question: 72B in INT8, about as many GB as billions: fits one
     * H100 */
    q = lesson_step(l, 4);
    cr_expect_not_null(q->question, "step 5 asks");
    est(l, 4, &e);
    cr_expect_float_eq(e.memory.weights, 72 * GB, 0.001 * 72 * GB);
    cr_expect(e.fits);
    cr_expect_gt(e.spare_bytes, 0);
    cites(l, 4, ENGINE_KEY_MEM_WEIGHTS);
    cites(l, 4, ENGINE_KEY_MEM_TOTAL);
    /* 6: INT4 per group of 32: 4 + 16/32 = 4.5 bits; 87.5 at half a byte
     * (the notes' first answer); one H100 is still not enough */
    est(l, 5, &e);
    cr_expect_float_eq(e.bits_per_weight, 4 + 16.0 / 32, 1e-9);
    cr_expect_float_eq(e.memory.weights * 4.0 / e.bits_per_weight, 87.5 * GB, 1e3);
    cr_expect_not(e.fits);
    cites(l, 5, ENGINE_KEY_BITS_PER_WEIGHT);
    cites(l, 5, ENGINE_KEY_MEM_WEIGHTS);
    /* 7, a question: 7B in INT4 g32: 7e9 x 4.5 / 8 (3.5 at half a byte); the
     * Format pane's formula is hidden too */
    q = lesson_step(l, 6);
    cr_expect_not_null(q->question, "step 7 asks");
    cr_expect(lesson_step_hides(q, LESSON_PANE_FORMAT));
    est(l, 6, &e);
    cr_expect_float_eq(e.bits_per_weight, 4.5, 1e-9);
    cr_expect_float_eq(e.memory.weights, 7e9 * 4.5 / 8, 1e3);
    cr_expect_float_eq(e.memory.weights * 4.0 / e.bits_per_weight, 3.5 * GB, 1e3);
    cites(l, 6, ENGINE_KEY_MEM_WEIGHTS);
    /* 8-10: the mapping, rounding, PTQ/QAT on the Format pane, words only;
     * the rounding step's groups of 32 */
    for (size_t i = 7; i < 10; i++)
        cr_expect_eq(lesson_step(l, i)->pane, LESSON_PANE_FORMAT, "step %zu", i + 1);
    est(l, 8, &e);
    cr_expect_float_eq(e.bits_per_weight, 4.5, 1e-9);
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
        lesson_check_cited(files[f], &l);
        lesson_free(&l);
    }
    lesson_check_pair(&lesson_check_cat, files[0], files[1], 3);
    cr_expect_eq(lesson_resolve("seed-001", "es", (char[1024]){0}, 1024), 0);
}

/* The course's own numbers are quoted where the texts use them, in both
 * languages: the FP32 step quotes «700 GB», the INT8 step «175 GB». */
Test(seed_001, the_course_numbers_are_quoted) {
    static const char *const files[] = {LESSONS "seed-001.en.yaml", LESSONS "seed-001.es.yaml"};

    for (size_t f = 0; f < 2; f++) {
        struct lesson l;
        lesson_check_load(&lesson_check_cat, files[f], &l);
        cr_expect_not_null(strstr(lesson_step(&l, 0)->notes, "700 GB\xc2\xbb"), "%s", files[f]);
        cr_expect_not_null(strstr(lesson_step(&l, 3)->caption, "175 GB"), "%s", files[f]);
        cr_expect_not_null(strstr(lesson_step(&l, 3)->caption, "\xc2\xab" "700 GB\xc2\xbb"), "%s",
                           files[f]);
        lesson_free(&l);
    }
}
