/*
 * test_lesson.c: lesson files (tui/lesson.c): broken lessons get exact
 * file:line:col messages, all of them at once; question steps; names
 * resolve to files. The shipped lessons are checked in lesson_seed_*.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/lesson.h"

#define FIXTURES TOP_SRCDIR "/tests/fixtures/lessons/"

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
                  "title, scenario, caption, pane, explain, question, hide or notes)\n"
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
                  "decode.tokens_per_s_core_bound), found 'decode.tokens_per_s_memorybound'\n"
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
                  "bad_scenario.yaml:8:13: gpus: expected a whole number from 1 to 16777216, "
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

Test(lesson, figure_references_are_checked_against_the_step) {
    expect_errors("bad_refs.yaml",
                  "bad_refs.yaml:6:14: caption: unknown figure {memroy.weights}; did you mean "
                  "{memory.weights}?\n"
                  "        caption: The weights take {memroy.weights}.\n"
                  "                 ^\n"
                  "bad_refs.yaml:8:14: caption: expected a figure that applies in infer mode, "
                  "found {training.days}\n"
                  "        caption: Training would take {training.days}.\n"
                  "                 ^\n"
                  "bad_refs.yaml:10:14: caption: expected \xc2\xbb to close the quotation, found "
                  "none\n"
                  "        caption: The course says \xc2\xab" "140 GB, and stops.\n"
                  "                 ^\n"
                  "bad_refs.yaml:11:12: notes: expected } after {, found none (write {{ for a "
                  "brace)\n"
                  "        notes: A brace { left open.\n"
                  "               ^\n");
}

/* A step's notes, and the figures its caption and question cite. */
Test(lesson, notes_and_cites) {
    struct lesson l;
    char err[4096];
    const char *text = "title: t\nlanguage: en\nsteps:\n"
                       "  - scenario: {params: 70B, context: 2048}\n"
                       "    question: How much for {scenario.context} tokens?\n"
                       "    caption: '{memory.kv_cache}, {{x}, \xc2\xab" "140 GB\xc2\xbb.'\n"
                       "    notes: Ask about {memory.weights}.\n";
    cr_assert_eq(lesson_load_buffer("n.yaml", text, strlen(text), &cat, &l, err, sizeof(err)), 0,
                 "%s", err);
    const struct lesson_step *s = lesson_step(&l, 0);
    cr_expect_str_eq(s->notes, "Ask about {memory.weights}.");
    cr_expect(lesson_cites_key(&s->cites, ENGINE_KEY_MEM_KV_CACHE));
    cr_expect_not(lesson_cites_key(&s->cites, ENGINE_KEY_MEM_WEIGHTS), "notes do not highlight");
    cr_expect_eq(s->cites.inputs,
                 1u << lesson_input_find("scenario.context", strlen("scenario.context")));
    lesson_free(&l);
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

/* Question steps: the question, the caption as its answer, the hidden panes
 * as written or, without hide:, Memory, Speed and the step's own pane. */
Test(lesson, question_steps) {
    struct lesson l;
    char err[4096];
    const struct lesson_step *s;

    cr_assert_eq(lesson_load(FIXTURES "question.yaml", &cat, &l, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(lesson_count(&l), 4);
    s = lesson_step(&l, 0);
    cr_expect_str_eq(s->question, "How many GB do 70B weights take in INT4 with group scales?");
    cr_expect_str_eq(s->caption, "39.4 GB, at 4.5 bits per weight.");
    cr_expect_eq(s->hide, 1u << LESSON_PANE_MEMORY | 1u << LESSON_PANE_FORMAT);
    cr_expect(lesson_step_hides(s, LESSON_PANE_FORMAT));
    cr_expect_not(lesson_step_hides(s, LESSON_PANE_SPEED));
    s = lesson_step(&l, 1);
    cr_expect_str_eq(s->question, "Does it fit one H100?", "folded");
    cr_expect_eq(s->hide, 1u << LESSON_PANE_MEMORY | 1u << LESSON_PANE_SPEED |
                              1u << LESSON_PANE_GPU);
    s = lesson_step(&l, 2);
    cr_expect_eq(s->hide, 1u << LESSON_PANE_SPEED, "a single pane name");
    s = lesson_step(&l, 3);
    cr_expect_null(s->question);
    cr_expect_eq(s->hide, 0);
    for (int p = 0; p < LESSON_PANE_COUNT; p++)
        cr_expect_not(lesson_step_hides(s, (enum lesson_pane)p), "a plain step hides nothing");
    cr_expect_not(lesson_step_hides(NULL, LESSON_PANE_MEMORY));
    lesson_free(&l);
}

Test(lesson, broken_questions_are_all_reported) {
    expect_errors("bad_question.yaml",
                  "bad_question.yaml:5:5: hide: expected a question in the same step (hide: "
                  "belongs to a question step), found none\n"
                  "        hide: [memory]\n"
                  "        ^\n"
                  "bad_question.yaml:9:20: hide: expected model, format, gpu, layout, memory, "
                  "speed or measure, found 'roofline'\n"
                  "        hide: [memory, roofline]\n"
                  "                       ^\n"
                  "bad_question.yaml:13:11: hide: expected at least one pane name, found an "
                  "empty sequence\n"
                  "        hide: []\n"
                  "              ^\n"
                  "bad_question.yaml:16:15: question: expected question text, found a mapping\n"
                  "        question: {not: text}\n"
                  "                  ^\n");
}
