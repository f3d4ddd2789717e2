/*
 * figures.h: the figure registry, every figure the engine computes, once.
 *
 * One row per figure (enum engine_key): its stable key, the JSON path
 * ("memory.kv_cache": the member kv_cache of the object memory), its unit
 * kind (engine/format.h), a translatable label, where the text report
 * lists it, and its explanation: the formula with named inputs, the values
 * of a scenario substituted, and the source (a paper with its section or
 * table, a data sheet, a runtime's source file and version, or the course
 * text; never a file of vramlab's). Every view renders from it: `plan`'s
 * text and JSON, `--explain`, the explorer's panes and explain overlay,
 * lesson captions ({memory.kv_cache}).
 *
 * Pure: the reader's language and units come in a struct engine_numfmt
 * (the decimal mark, thousands separator, GB or GiB, a translate
 * function); the labels, formulas and sources are English msgids marked
 * for xgettext (po/es.po translates them), returned translated through
 * that function.
 *
 * Rendering {memory.kv_cache} for a lesson caption in Spanish and GiB:
 *     struct engine_numfmt f = {true, ",", ".", "\xc2\xa0", gettext_fn};
 *     engine_estimate(&sc, &est);
 *     engine_figures_render(&f, &sc, &est, "the KV cache takes {memory.kv_cache}",
 *                           buf, sizeof buf, NULL);
 * gives "the KV cache takes 1,25 GiB" (the caption's own words are the
 * caller's to translate); engine_figure_format() formats one figure.
 */
#ifndef VRAMLAB_FIGURES_H
#define VRAMLAB_FIGURES_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"
#include "engine/format.h"

/* Where the text report lists a figure. */
enum engine_figure_group {
    ENGINE_GROUP_MEMORY = 0, /* "Memory per GPU" */
    ENGINE_GROUP_PARAMS,     /* "Parameters" */
    ENGINE_GROUP_SPEED,      /* "Speed ceilings (whole deployment)" */
    ENGINE_GROUP_SERVING,    /* "Serving (runtime)", inference */
    ENGINE_GROUP_TRAINING,   /* "Training" */
    ENGINE_GROUP_VERDICT,    /* the verdict line: fits, the ratio, what is spare */
    ENGINE_GROUP_COUNT
};

/* One figure of the registry. The texts are English msgids: translate
 * them with engine_numfmt_tr() (or gettext) where they are shown. */
struct engine_figure {
    const char *path; /* JSON path: "memory.kv_cache" */
    size_t offset;    /* internal: the double in struct engine_estimate */
    enum engine_unit unit;
    enum engine_figure_group group;
    unsigned modes;    /* internal: engine_key_applies' rule */
    unsigned runtimes; /* internal: the runtimes it applies to (0: all) */
    unsigned text;     /* internal: engine_figure_shown's rule */
    /* The figure whose text line stands for this one (serving.overhead_bytes
     * is memory.overhead); ENGINE_KEY_COUNT: none. */
    enum engine_key same_as;
    const char *label;   /* "KV cache" */
    const char *formula; /* with named inputs */
    const char *source;  /* paper and section, data sheet, runtime file and version, course text */
};

/* The registry row of a key; NULL past the end. */
const struct engine_figure *engine_figure(enum engine_key key);
/* How many figures; the i-th in output order (the JSON's and the text
 * report's): i < engine_figure_count(). */
size_t engine_figure_count(void);
enum engine_key engine_figure_at(size_t i);

/* The figure's value in this estimate, NaN where it does not apply
 * (engine_key_applies); fits as 1 or 0. */
double engine_figure_value(const struct engine_scenario *sc, const struct engine_estimate *est,
                           enum engine_key key);
/* Whether the text report gives the figure a line: it applies, is a
 * number, and says something (no zero training state in inference, no
 * offload lines without offload, the active parameters only when they
 * differ from the total...). Verdict figures are on the verdict line. */
bool engine_figure_shown(const struct engine_scenario *sc, const struct engine_estimate *est,
                         enum engine_key key);
/* The figure's value for a reader: "1,25 GiB"; "n/a" where it does not
 * apply. Returns strlen(buf). */
size_t engine_figure_format(const struct engine_numfmt *f, const struct engine_scenario *sc,
                            const struct engine_estimate *est, enum engine_key key, char *buf,
                            size_t len);
/* The label in the reader's language. */
const char *engine_figure_label(const struct engine_numfmt *f, enum engine_key key);

/* Explain a figure in a reader's language and units: the label, formula
 * and source through f's translate function, the values with f's marks
 * and units (engine_explain is the same with English, decimal GB). */
void engine_explain_for(const struct engine_numfmt *f, const struct engine_scenario *sc,
                        const struct engine_estimate *est, enum engine_key key,
                        struct engine_explanation *out);

/* Render text with figure references: each {path} (a registry path,
 * "{memory.kv_cache}") becomes that figure of est formatted for the
 * reader; "{{" is a literal "{". Returns the number of references that
 * named no figure (0: all rendered; they are left as written); when bad
 * is not NULL, *bad points into text at the first of them ("{memory.nope}
 * ...", NULL when none). The output is truncated to len and always
 * terminated. */
int engine_figures_render(const struct engine_numfmt *f, const struct engine_scenario *sc,
                          const struct engine_estimate *est, const char *text, char *out,
                          size_t len, const char **bad);

#endif
