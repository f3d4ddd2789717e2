/*
 * test_lesson.c: lesson files (tui/lesson.c): broken lessons get exact
 * file:line:col messages, all of them at once; the shipped lessons of seed
 * 000 load in English and Spanish, every step valid, the two languages on
 * the same scenarios.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/lesson.h"

#define FIXTURES TOP_SRCDIR "/tests/fixtures/lessons/"
#define LESSONS  TOP_SRCDIR "/share/lessons/"

static struct catalog cat;

/* Load the embedded catalog. */
static void setup(void) {
    struct catalog_diag d = {0};

    catalog_init(&cat);
    cr_assert_eq(catalog_load_default(&cat, &d), 0, "%s", d.text ? d.text : "");
    catalog_diag_free(&d);
}

/* Free the catalog. */
static void teardown(void) {
    catalog_free(&cat);
}

TestSuite(lesson, .init = setup, .fini = teardown);

/* Load a broken fixture; its messages, with the path prefix of each line
 * replaced by the bare file name, must equal want. */
static void expect_errors(const char *name, const char *want) {
    struct lesson l;
    char path[512], err[8192], got[8192];
    size_t plen, o = 0;

    snprintf(path, sizeof(path), FIXTURES "%s", name);
    cr_assert_eq(lesson_load(path, &cat, &l, err, sizeof(err)), -1, "%s loaded", name);
    cr_expect_eq(lesson_count(&l), 0, "a refused lesson must be empty");
    /* Drop the directory part wherever the path starts a message line. */
    plen = strlen(path) - strlen(name);
    for (const char *p = err; *p; p++) {
        if ((p == err || p[-1] == '\n') && !strncmp(p, path, plen))
            p += plen;
        got[o++] = *p;
    }
    got[o] = '\0';
    cr_expect_str_eq(got, want);
}

Test(lesson, unknown_key_is_refused_with_a_suggestion) {
    expect_errors("unknown_key.yaml",
                  "unknown_key.yaml:5:5: captoin: unknown key; did you mean caption? (expected "
                  "title, scenario, caption, pane or explain)\n"
                  "        captoin: A typo in a key.\n"
                  "        ^\n"
                  "unknown_key.yaml:4:5: caption: expected a caption in every step, found none\n"
                  "      - scenario: {params: 70B}\n"
                  "        ^\n");
}

Test(lesson, unknown_pane) {
    expect_errors("bad_pane.yaml",
                  "bad_pane.yaml:6:11: pane: expected model, format, gpu, layout, memory, speed "
                  "or measure, found 'memroy'\n"
                  "        pane: memroy\n"
                  "              ^\n");
}

Test(lesson, unknown_engine_key_with_closest) {
    expect_errors("bad_explain.yaml",
                  "bad_explain.yaml:6:14: explain: expected an engine key like "
                  "decode.tokens_per_s_memory_bound (closest: decode.tokens_per_s_memory_bound, "
                  "decode.tokens_per_s_compute_bound), found 'decode.tokens_per_s_memorybound'\n"
                  "        explain: decode.tokens_per_s_memorybound\n"
                  "                 ^\n");
}

Test(lesson, engine_key_must_apply_to_the_mode) {
    expect_errors("explain_mode.yaml",
                  "explain_mode.yaml:6:14: explain: expected a key that applies in infer mode, "
                  "found 'training.days'\n"
                  "        explain: training.days\n"
                  "                 ^\n");
}

Test(lesson, bad_scenario_value_points_at_the_value) {
    expect_errors("bad_scenario.yaml",
                  "bad_scenario.yaml:8:13: gpus: expected a positive integer up to 16777216, "
                  "found 'two'\n"
                  "          gpus: two\n"
                  "                ^\n");
}

Test(lesson, wrong_types_are_all_reported) {
    expect_errors("wrong_types.yaml",
                  "wrong_types.yaml:1:8: title: expected a lesson title, found a sequence\n"
                  "    title: [not, text]\n"
                  "           ^\n"
                  "wrong_types.yaml:4:15: scenario: expected a mapping of scenario options "
                  "(model: ..., gpu: ...), found 'llama-3.1-8b'\n"
                  "      - scenario: llama-3.1-8b\n"
                  "                  ^\n"
                  "wrong_types.yaml:6:7: caption: expected caption text, found a sequence\n"
                  "          - one\n"
                  "          ^\n"
                  "wrong_types.yaml:8:5: steps: expected a step (a mapping with scenario: and "
                  "caption:), found 'just a string'\n"
                  "      - just a string\n"
                  "        ^\n");
}

Test(lesson, missing_fields_and_empty_steps) {
    expect_errors("missing.yaml",
                  "missing.yaml:1:1: title: expected a lesson title, found none\n"
                  "    steps:\n"
                  "    ^\n"
                  "missing.yaml:1:1: language: expected a language code like en or es, found "
                  "none\n"
                  "    steps:\n"
                  "    ^\n"
                  "missing.yaml:2:5: scenario: expected a scenario mapping in every step, found "
                  "none\n"
                  "      - caption: No scenario here.\n"
                  "        ^\n");
    expect_errors("no_steps.yaml", "no_steps.yaml:3:8: steps: expected 1 to 1000 steps, found 0\n"
                                   "    steps: []\n"
                                   "           ^\n");
    expect_errors("bad_language.yaml",
                  "bad_language.yaml:2:11: language: expected a language code like en or es, "
                  "found 'English'\n"
                  "    language: English\n"
                  "              ^\n");
}

Test(lesson, yaml_syntax_error) {
    expect_errors("syntax.yaml",
                  "syntax.yaml:5:12: YAML syntax: did not find expected ',' or '}' while "
                  "parsing a flow mapping\n"
                  "        caption: Unclosed.\n"
                  "               ^\n");
}

Test(lesson, good_fixture_steps) {
    struct lesson l;
    char err[4096];
    const struct lesson_step *s;

    cr_assert_eq(lesson_load(FIXTURES "good.yaml", &cat, &l, err, sizeof(err)), 0, "%s", err);
    cr_expect_str_eq(l.title, "A tiny lesson");
    cr_expect_str_eq(l.language, "en");
    cr_assert_eq(lesson_count(&l), 2);
    s = lesson_step(&l, 0);
    cr_expect_str_eq(s->title, "Weights");
    cr_expect_str_eq(s->caption, "70 billion parameters in FP16 are 140 GB of weights.");
    cr_expect_eq(s->pane, LESSON_PANE_MEMORY);
    cr_expect(s->has_explain);
    cr_expect_eq(s->explain, ENGINE_KEY_MEM_WEIGHTS);
    cr_expect_eq(s->line, 5);
    cr_expect_eq(s->options.sc.model.params_size, 70e9);
    cr_expect(s->options.model_custom);
    s = lesson_step(&l, 1);
    cr_expect_str_eq(s->title, "");
    cr_expect_str_eq(s->caption, "About 209 tokens/s.", "block scalars lose the final newline");
    cr_expect_eq(s->pane, LESSON_PANE_NONE);
    cr_expect_not(s->has_explain);
    cr_expect_str_eq(s->options.sc.model.id, "llama-3.1-8b");
    cr_expect_eq(s->options.sc.context, 64);
    /* Steps do not inherit: the second step is back at FP16 defaults. */
    cr_expect_str_eq(s->options.sc.weight_format.id, "fp16");
    cr_expect_null(lesson_step(&l, 2));
    lesson_free(&l);
    lesson_free(&l); /* safe twice */
    cr_expect_eq(lesson_count(&l), 0);
}

Test(lesson, pane_names_round_trip) {
    for (int p = LESSON_PANE_MODEL; p < LESSON_PANE_COUNT; p++) {
        enum lesson_pane back;
        cr_assert_eq(lesson_pane_parse(lesson_pane_name((enum lesson_pane)p), &back), 0);
        cr_expect_eq(back, p);
    }
    cr_expect_eq(lesson_pane_parse("roofline", &(enum lesson_pane){0}), -1);
}

/* Load a shipped lesson; asserts success. */
static void load_shipped(const char *file, struct lesson *l) {
    char err[16384];
    cr_assert_eq(lesson_load(file, &cat, l, err, sizeof(err)), 0, "%s", err);
}

Test(lesson, shipped_lessons_load_and_every_step_is_valid) {
    static const char *const files[] = {LESSONS "seed-000.en.yaml", LESSONS "seed-000.es.yaml"};

    for (size_t f = 0; f < 2; f++) {
        struct lesson l;
        load_shipped(files[f], &l);
        cr_expect_geq(lesson_count(&l), 15, "%s: the seed has more claims than that", files[f]);
        for (size_t i = 0; i < lesson_count(&l); i++) {
            const struct lesson_step *s = lesson_step(&l, i);
            struct engine_estimate e;
            cr_expect_gt(strlen(s->caption), 40, "%s step %zu: caption too short", files[f], i + 1);
            cr_expect_gt(strlen(s->title), 0, "%s step %zu: no title", files[f], i + 1);
            engine_estimate(&s->options.sc, &e);
            cr_expect_eq(e.invalid, 0, "%s step %zu: invalid scenario", files[f], i + 1);
            if (s->has_explain) {
                struct engine_explanation x;
                cr_expect(engine_key_applies(&s->options.sc, s->explain));
                engine_explain(&s->options.sc, &e, s->explain, &x);
                cr_expect_gt(strlen(x.formula), 0);
            }
        }
        lesson_free(&l);
    }
}

/* The languages differ in words only: the same scenarios, panes and keys. */
Test(lesson, english_and_spanish_walk_the_same_scenarios) {
    struct lesson en, es;

    load_shipped(LESSONS "seed-000.en.yaml", &en);
    load_shipped(LESSONS "seed-000.es.yaml", &es);
    cr_expect_str_eq(en.language, "en");
    cr_expect_str_eq(es.language, "es");
    cr_assert_eq(lesson_count(&en), lesson_count(&es));
    for (size_t i = 0; i < lesson_count(&en); i++) {
        const struct lesson_step *a = lesson_step(&en, i), *b = lesson_step(&es, i);
        struct engine_estimate ea, eb;
        engine_estimate(&a->options.sc, &ea);
        engine_estimate(&b->options.sc, &eb);
        cr_expect_eq(memcmp(&ea, &eb, sizeof(ea)), 0, "step %zu: estimates differ", i + 1);
        cr_expect_eq(a->pane, b->pane, "step %zu", i + 1);
        cr_expect_eq(a->has_explain, b->has_explain, "step %zu", i + 1);
        cr_expect_eq(a->explain, b->explain, "step %zu", i + 1);
        cr_expect_str_neq(a->caption, b->caption, "step %zu: not translated", i + 1);
    }
    lesson_free(&en);
    lesson_free(&es);
}

/* Find the first step whose scenario matches, by its estimate. */
static const struct lesson_step *step_titled(const struct lesson *l, const char *title) {
    for (size_t i = 0; i < lesson_count(l); i++) {
        if (!strcmp(lesson_step(l, i)->title, title))
            return lesson_step(l, i);
    }
    cr_assert_fail("no step titled '%s'", title);
    return NULL;
}

/*
 * The figures the captions state, as the engine computes them (seed 000;
 * the tolerance is the rounding of the caption).
 */
Test(lesson, captions_state_what_the_engine_shows) {
    struct lesson l;
    struct engine_estimate e;

    load_shipped(LESSONS "seed-000.en.yaml", &l);
    engine_estimate(&step_titled(&l, "Bytes per parameter")->options.sc, &e);
    cr_expect_float_eq(e.memory.weights, 140e9, 1e6);
    /* the caption's "the bar needs 141.3 GB" (weights, KV cache, reserve) */
    cr_expect_float_eq(e.memory.total, 141.3e9, 0.05e9);
    cr_expect_not(e.fits);
    engine_estimate(&step_titled(&l, "FP32: 4 bytes")->options.sc, &e);
    cr_expect_float_eq(e.memory.weights, 280e9, 1e6);
    engine_estimate(&step_titled(&l, "INT8: 1 byte")->options.sc, &e);
    cr_expect_float_eq(e.memory.weights, 70.03e9, 0.01e9);
    cr_expect(e.fits);
    engine_estimate(&step_titled(&l, "INT4 is 4.5 bits")->options.sc, &e);
    cr_expect_float_eq(e.bits_per_weight, 4.5, 1e-9);
    cr_expect_float_eq(e.memory.weights, 39.4e9, 0.05e9);
    engine_estimate(&step_titled(&l, "Training: 16 bytes per parameter")->options.sc, &e);
    cr_expect_float_eq(e.memory.weights + e.memory.gradients + e.memory.master_weights +
                           e.memory.optimizer,
                       1120e9, 1e6);
    engine_estimate(&step_titled(&l, "The bandwidth ceiling")->options.sc, &e);
    cr_expect_eq(lround(e.decode_tokens_per_s_memory_bound), 209);
    cr_expect_eq(lround(e.ridge_flop_per_byte), 295);
    engine_estimate(&step_titled(&l, "Three ways to split")->options.sc, &e);
    cr_expect_eq(e.gpus, 16384);
    cr_expect_eq(e.tp * e.pp * e.dp, 16384);
    cr_expect(e.fits);
    engine_estimate(&step_titled(&l, "405B does not fit one server")->options.sc, &e);
    cr_expect_not(e.fits);
    engine_estimate(&step_titled(&l, "Training Llama 3.1 405B")->options.sc, &e);
    /* MFU 0.41 end to end (issue 12): (6 N + 12 L h s) * 15.6T / (989e12 *
     * 0.41) at s = 8192 = 28.2M GPU-hours, 71.7 days: the caption's "about
     * 72 days", "28.2 million GPU-hours" and the 19% bubble it names. */
    cr_expect_eq(lround(e.train_days), 72);
    cr_expect_float_eq(e.train_gpu_hours, 28.19e6, 0.05e6);
    cr_expect_eq(lround(100 * e.train_bubble_fraction), 19);
    cr_expect_float_eq(e.memory.total, 73.9e9, 0.05e9);
    engine_estimate(&step_titled(&l, "Activations")->options.sc, &e);
    /* Korthikanti's 34 s b h generalised to the derived shape of 70B
     * (h 9216, 72 heads, 8 KV heads, gated MLP f 32256): 10 + 4 + 4 kv/a +
     * 6 f/h = 35.44 (engine/engine.c act_per_layer). */
    cr_expect_float_eq(e.act_per_layer_bytes,
                       (10 + 4 + 4.0 * 8 / 72 + 6.0 * 32256 / 9216) * 1024 * 9216, 1.0);
    engine_estimate(&step_titled(&l, "The pipeline bubble")->options.sc, &e);
    cr_expect_float_eq(e.train_bubble_fraction, 15.0 / 31.0, 1e-9);
    engine_estimate(&step_titled(&l, "More micro-batches")->options.sc, &e);
    cr_expect_float_eq(e.train_bubble_fraction, 15.0 / 79.0, 1e-9);
    cr_expect_eq(step_titled(&l, "Measure")->pane, LESSON_PANE_MEASURE);
    lesson_free(&l);
}

Test(lesson, resolve_by_name_and_language) {
    char path[1024];

    unsetenv("VRAMLAB_LESSONS");
    cr_assert_eq(lesson_resolve("seed-000", "es", path, sizeof(path)), 0);
    cr_expect_not_null(strstr(path, "/seed-000.es.yaml"), "%s", path);
    cr_assert_eq(lesson_resolve("seed-000", "fr", path, sizeof(path)), 0);
    cr_expect_not_null(strstr(path, "/seed-000.en.yaml"), "English when there is no French");
    cr_assert_eq(lesson_resolve("seed-000.es", NULL, path, sizeof(path)), 0);
    cr_expect_not_null(strstr(path, "/seed-000.es.yaml"), "%s", path);
    cr_assert_eq(lesson_resolve(FIXTURES "good.yaml", "es", path, sizeof(path)), 0);
    cr_expect_str_eq(path, FIXTURES "good.yaml");
    cr_expect_eq(lesson_resolve("no-such-lesson", "en", path, sizeof(path)), -1);
    setenv("VRAMLAB_LESSONS", TOP_SRCDIR "/tests/fixtures/lessons", 1);
    cr_assert_eq(lesson_resolve("good", NULL, path, sizeof(path)), 0);
    cr_expect_str_eq(path, TOP_SRCDIR "/tests/fixtures/lessons/good.yaml");
}

/*
 * Seed 001 (model size and quantization): the figures its captions state,
 * as the engine computes them, in both languages (the tolerance is the
 * rounding of the caption; GB = 1e9 bytes). The course's own figures:
 * 175B x 4 bytes = 700 GB in FP32, 175 GB in INT8.
 */
static void check_seed_001(const struct lesson *l) {
    struct engine_estimate e;
    const double cap = 85.9e9; /* the H100's 80 GiB, as the captions say */

    cr_assert_eq(lesson_count(l), 8);
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
    /* 3: INT8: 175 GB, 175.09 with a 16-bit scale per row of 4,096 */
    engine_estimate(&lesson_step(l, 2)->options.sc, &e);
    cr_expect_float_eq(e.bits_per_weight, 8.0 + 16.0 / 4096, 1e-9);
    cr_expect_float_eq(e.memory.weights, 175.09e9, 0.005e9);
    /* 4: INT4 per group of 32: 4.5 bits, 98.4 GB; half a byte is 87.5 GB */
    engine_estimate(&lesson_step(l, 3)->options.sc, &e);
    cr_expect_float_eq(e.bits_per_weight, 4.5, 1e-9);
    cr_expect_float_eq(e.memory.weights, 98.4e9, 0.05e9);
    cr_expect_float_eq(e.memory.weights * 4.0 / e.bits_per_weight, 87.5e9, 1e6);
    /* 5-7: the mapping, rounding, PTQ/QAT on the Format pane, words only */
    for (size_t i = 4; i < 7; i++)
        cr_expect_eq(lesson_step(l, i)->pane, LESSON_PANE_FORMAT, "step %zu", i + 1);
    /* 8: the error lab, no figures */
    cr_expect_eq(lesson_step(l, 7)->pane, LESSON_PANE_MEASURE);
    for (const char *c = lesson_step(l, 7)->caption; *c; c++)
        cr_expect(*c < '0' || *c > '9', "the error lab's caption states no number");
}

Test(lesson, seed_001_captions_state_what_the_engine_shows) {
    static const char *const files[] = {LESSONS "seed-001.en.yaml", LESSONS "seed-001.es.yaml"};
    struct lesson en, es;

    for (size_t f = 0; f < 2; f++) {
        struct lesson l;
        load_shipped(files[f], &l);
        check_seed_001(&l);
        for (size_t i = 0; i < lesson_count(&l); i++) {
            const struct lesson_step *s = lesson_step(&l, i);
            struct engine_estimate e;
            engine_estimate(&s->options.sc, &e);
            cr_expect_eq(e.invalid, 0, "%s step %zu: invalid scenario", files[f], i + 1);
            cr_expect_gt(strlen(s->caption), 40, "%s step %zu", files[f], i + 1);
        }
        lesson_free(&l);
    }
    /* The languages differ in words only: the same scenarios, panes, keys. */
    load_shipped(files[0], &en);
    load_shipped(files[1], &es);
    cr_expect_str_eq(en.language, "en");
    cr_expect_str_eq(es.language, "es");
    cr_assert_eq(lesson_count(&en), lesson_count(&es));
    for (size_t i = 0; i < lesson_count(&en); i++) {
        const struct lesson_step *a = lesson_step(&en, i), *b = lesson_step(&es, i);
        struct engine_estimate ea, eb;
        engine_estimate(&a->options.sc, &ea);
        engine_estimate(&b->options.sc, &eb);
        cr_expect_eq(memcmp(&ea, &eb, sizeof(ea)), 0, "step %zu: estimates differ", i + 1);
        cr_expect_eq(a->pane, b->pane, "step %zu", i + 1);
        cr_expect_eq(a->has_explain, b->has_explain, "step %zu", i + 1);
        cr_expect_eq(a->explain, b->explain, "step %zu", i + 1);
        cr_expect_str_neq(a->caption, b->caption, "step %zu: not translated", i + 1);
    }
    lesson_free(&en);
    lesson_free(&es);
    cr_expect_eq(lesson_resolve("seed-001", "es", (char[1024]){0}, 1024), 0);
}
