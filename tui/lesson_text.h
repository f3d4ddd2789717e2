/*
 * lesson_text.h: what a lesson's texts may say and how they are shown
 * (issue 24 item 1).
 *
 * A caption, a question and a step's presenter notes cite figures, never
 * write them: {memory.kv_cache} is the figure of the registry
 * (engine/figures.h) for the step's own scenario, {scenario.context} one of
 * the scenario's inputs (the table below), each written by the one
 * formatter in the reader's units (GB or GiB) and locale (decimal mark,
 * thousands separator, a no-break space before the unit). "{{" is a
 * literal "{". So a caption is the engine's by construction: when the
 * engine changes, the caption changes with it.
 *
 * The course text's own words and measurements are quoted, between « and
 * » (the file's marks whatever the language): "the course measured «333
 * GB/s» copying 1 GiB". A quotation is shown as it is written, with the
 * lesson language's quotation marks (“ ” in English, « » in Spanish),
 * and is exempt from the rule against literal figures.
 *
 * The lint (tests/test_lesson_lint.c, `vramlab lesson check`): outside
 * quotations and references a text holds no number followed by a unit
 * ("140 GB", "209 tokens/s", "19%", "$1,234"), and a caption or a question
 * shown on the screen is at most LESSON_MAX_WORDS words; presenter notes
 * may be as long as they need.
 *
 * Pure functions over text: no I/O, no allocation.
 */
#ifndef VRAMLAB_LESSON_TEXT_H
#define VRAMLAB_LESSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/figures.h"

#define LESSON_QUOTE_OPEN "\xc2\xab"  /* « */
#define LESSON_QUOTE_CLOSE "\xc2\xbb" /* » */
/* Most words a caption or a question shows (the projector rule). */
#define LESSON_MAX_WORDS 60
/* The prefix of a scenario input: {scenario.context}. */
#define LESSON_INPUT_PREFIX "scenario."

/* The figures a text cites: one bit per enum engine_key, and one per
 * scenario input (lesson_input_*). */
struct lesson_cites {
    uint64_t keys[(ENGINE_KEY_COUNT + 63) / 64];
    uint32_t inputs;
};

static inline bool lesson_cites_key(const struct lesson_cites *c, enum engine_key k) {
    return (unsigned)k < ENGINE_KEY_COUNT && (c->keys[k / 64] >> (k % 64) & 1u) != 0;
}

/* The scenario inputs a text may cite, {scenario.NAME}: how many, the
 * i-th's full path ("scenario.context"); the index of a path, or -1. */
size_t lesson_input_count(void);
const char *lesson_input_path(size_t i);
int lesson_input_find(const char *path, size_t len);
/* The i-th input of sc as a reader reads it ("1,024", "H100 SXM", "41.0%"). */
size_t lesson_input_format(const struct engine_numfmt *f, const struct engine_scenario *sc,
                           size_t i, char *buf, size_t len);

/* What lesson_text_check found wrong. */
enum lesson_text_error {
    LESSON_TEXT_OK = 0,
    LESSON_TEXT_UNKNOWN,      /* {path} names no figure and no input */
    LESSON_TEXT_NOT_APPLY,    /* the figure does not apply to the scenario's mode */
    LESSON_TEXT_BRACE,        /* a { without its } */
    LESSON_TEXT_QUOTE_NESTED, /* a second « before the » */
    LESSON_TEXT_QUOTE_OPEN,   /* a « never closed */
    LESSON_TEXT_QUOTE_CLOSE,  /* a » never opened */
};
struct lesson_text_problem {
    enum lesson_text_error code;
    const char *path; /* the reference's path in the text (not terminated) */
    size_t n;         /* its length */
    const char *closest; /* the closest known path to an unknown one, or NULL */
};

/* A model's name as a reader reads it: a catalog model's name; a bare size
 * "70B-parameter model" in the reader's language (f's translate). Returns
 * strlen(buf). */
size_t lesson_model_name(const struct engine_numfmt *f, const struct engine_model *m, char *buf,
                         size_t len);

/*
 * Check a text's references and quotation marks against the scenario it
 * will be rendered for: every {path} names a figure of the registry that
 * applies to sc (engine_key_applies) or a scenario input, and every « is
 * closed by a » before the next «. Returns 0, or -1 with what is wrong.
 */
int lesson_text_check(const struct engine_scenario *sc, const char *text,
                      struct lesson_text_problem *p);

/*
 * Render a text for a reader: each {path} becomes the figure of sc and est
 * (engine_figure_format) or the input, formatted with f; quotations keep
 * their words, between the marks of lang ("en": “ ”, any other: « »).
 * Returns strlen(out); the output is cut at len and always terminated.
 */
size_t lesson_text_render(const struct engine_numfmt *f, const struct engine_scenario *sc,
                          const struct engine_estimate *est, const char *lang, const char *text,
                          char *out, size_t len);

/* Add the figures and inputs a text cites to *c. */
void lesson_text_cites(const char *text, struct lesson_cites *c);

/* Words of a rendered text: runs of characters between spaces (a no-break
 * space joins a number to its unit: one word) that hold a letter or a digit. */
size_t lesson_text_words(const char *text);

/*
 * The first literal figure of a text, outside quotations and references:
 * a number ("140", "1,120", "0.949", "16 384") followed by a unit ("GB",
 * "GB/s", "tok/s", "tokens per second", "bits", "ms", "days", "%", ...),
 * or an amount of dollars ("$1,234"). Digits inside a name (H100, FP16,
 * int4-g32, 405B, Llama 3.1) are not figures. Returns a pointer to it in
 * text and its length in *n, or NULL when there is none.
 */
const char *lesson_text_literal(const char *text, size_t *n);

#endif
