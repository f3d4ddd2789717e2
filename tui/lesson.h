/*
 * lesson.h: scripted lessons, a YAML file of steps for a live lecture.
 *
 *     title: GPUs, memory and quantization
 *     language: en
 *     steps:
 *       - title: Bytes per parameter          # optional, a short heading
 *         scenario:                           # a scenario file's mapping
 *           params: 70B
 *           format: fp16
 *         caption: >-
 *           70 billion parameters at «2 bytes» each: {memory.weights}.
 *         pane: memory                        # optional: the pane to highlight
 *         explain: memory.weights             # optional: open explain on it
 *       - scenario: {params: 70B, format: int4-g32}
 *         question: How many GB do 70B weights take in INT4?  # a question step
 *         hide: [memory]                      # optional: the panes shown as ?
 *         caption: >-
 *           {memory.weights}: {params.bits_per_weight} per weight with the
 *           group scales.
 *         notes: Ask first; «unos 39 GB» is the course's figure.
 *
 * Captions, questions and notes cite figures by their registry key and the
 * scenario's inputs by scenario.NAME, and quote the course text between
 * « and » (lesson_text.h); every reference is checked against the step's
 * scenario when the file is loaded.
 * A question step asks before it shows: the screen shows the question and
 * the figures of the hidden panes as '?' until `n` reveals them (and the
 * caption, which is the answer); the next `n` goes on. Without `hide`, a
 * question hides the Memory and Speed panes and the step's own pane.
 * Every step's scenario starts from the defaults (steps do not inherit from
 * each other), so `r` can always return to exactly the step. The whole file
 * is validated when it is loaded, like the catalog: unknown keys, wrong
 * types, missing fields, an unknown pane or engine key, an engine key that
 * does not apply to the step's mode, and bad scenario values are reported
 * as "file:line:col: key: expected ..., found ..." with the line quoted,
 * and a file with any error is refused as a whole. Each step's struct
 * options is computed at load time, so stepping never fails.
 *
 * The screen's part (keys n/p, Space/Backspace, PgDn/PgUp, r): keep an
 * index, call lesson_step(), hand step->options to the explorer's state
 * (tui_state_init), show "step i/n", the step title and the caption, focus
 * step->pane when it is not LESSON_PANE_NONE, and open the explain overlay
 * on step->explain when step->has_explain.
 *
 * Format documented in docs/lessons.md; shipped lessons in share/lessons/.
 */
#ifndef VRAMLAB_LESSON_H
#define VRAMLAB_LESSON_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/commands.h"
#include "tui/lesson_text.h"

/* The panes a step may highlight (names as in the file). */
enum lesson_pane {
    LESSON_PANE_NONE = 0,
    LESSON_PANE_MODEL,
    LESSON_PANE_FORMAT,
    LESSON_PANE_GPU,
    LESSON_PANE_LAYOUT,
    LESSON_PANE_MEMORY,
    LESSON_PANE_SPEED,
    LESSON_PANE_MEASURE,
    LESSON_PANE_COUNT
};

/* One step, ready to show. Strings are owned by the lesson. */
struct lesson_step {
    struct options options; /* the step's scenario, parsed and validated */
    const char *title;      /* short heading; "" when the step has none */
    const char *caption;    /* one or more sentences, UTF-8, no trailing newline */
    enum lesson_pane pane;  /* LESSON_PANE_NONE: no highlight */
    bool has_explain;
    enum engine_key explain; /* valid when has_explain */
    size_t line;             /* 1-based line of the step in the file */
    /* A question step: NULL for a plain step. The caption is its answer. */
    const char *question;
    unsigned hide; /* panes whose figures show as '?' until revealed: bit 1u << pane */
    /* Presenter notes (what to say, what to ask, the answers expected);
     * NULL when the step has none. */
    const char *notes;
    /* The figures and inputs the caption and the question cite (the panes
     * highlight them while the step is shown). */
    struct lesson_cites cites;
};

/* Whether a question step hides pane p's figures before it is revealed. */
static inline bool lesson_step_hides(const struct lesson_step *s, enum lesson_pane p) {
    return s && s->question && (s->hide & (1u << (unsigned)p)) != 0;
}

struct lesson {
    char *path; /* the file as given */
    char *title;
    char *language; /* "en", "es", ... as written in the file */
    struct lesson_step *steps;
    size_t n_steps;
};

/* Most messages one load reports before giving up on the file. */
#define LESSON_MAX_ERRORS 20

/*
 * Load and validate a lesson file; cat resolves the scenarios' ids and must
 * outlive nothing (the options copy what they need). Returns 0, or -1 with
 * every error found (up to LESSON_MAX_ERRORS) in err, one
 * "file:line:col: key: message" plus the quoted line each; *l is then empty.
 * Writes nothing to stdout or stderr.
 */
int lesson_load(const char *path, const struct catalog *cat, struct lesson *l, char *err,
                size_t errlen);

/* The same from YAML text in memory; name is used in messages. */
int lesson_load_buffer(const char *name, const char *text, size_t len, const struct catalog *cat,
                       struct lesson *l, char *err, size_t errlen);

/* Number of steps (at least one in a loaded lesson). */
size_t lesson_count(const struct lesson *l);

/* Step i (0-based), or NULL when i is out of range. */
const struct lesson_step *lesson_step(const struct lesson *l, size_t i);

/* Free what a lesson holds and leave it empty (safe on an empty lesson). */
void lesson_free(struct lesson *l);

/* The file name of a pane ("memory"), and back; parse returns 0 or -1. */
const char *lesson_pane_name(enum lesson_pane p);
int lesson_pane_parse(const char *s, enum lesson_pane *out);

/*
 * Find a lesson by what the user typed after --lesson: a path as is, else a
 * name looked up in $VRAMLAB_LESSONS, the installed share/lessons and the
 * source tree, trying NAME, NAME.yaml, NAME.LANG.yaml and NAME.en.yaml
 * (lang is a language code like "es", or NULL). Writes the path into buf
 * and returns 0, or -1 when nothing was found.
 */
int lesson_resolve(const char *name, const char *lang, char *buf, size_t len);

/* The directories a lesson name is looked up in, first match wins:
 * $VRAMLAB_LESSONS, the installed share/vramlab/lessons, the source tree's
 * share/lessons. Returns how many it wrote. */
#define LESSON_DIRS_MAX 3
size_t lesson_dirs(const char *dirs[LESSON_DIRS_MAX]);

/*
 * Where a lesson's step is kept between sessions (the explorer resumes it
 * unless --fresh; `--notes` follows it): $XDG_STATE_HOME/vramlab/lessons/
 * KEY.step, or $HOME/.local/state/vramlab/lessons/KEY.step when
 * XDG_STATE_HOME is unset or not absolute, KEY the lesson file's name
 * without its language and .yaml ("seed-000"), so both languages of a
 * lesson share it. Without either variable there is none: -1 and a
 * message in err, nothing created; with create, the directories are made
 * (0700) or -1 says why.
 */
int lesson_progress_path(const char *lesson_path, char *buf, size_t len, bool create, char *err,
                         size_t errlen);
/* The step kept in the file at path (0-based), or -1 when there is none. */
long lesson_progress_read(const char *path);
/* Keep step (0-based) of n in the file at path, atomically (a temporary
 * file renamed over it). Returns 0, or -1 with errno set. */
int lesson_progress_write(const char *path, size_t step, size_t n);

#endif
