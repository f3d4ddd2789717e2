/*
 * commands.h: the entry points that tui/main.c dispatches to, and the
 * scenario options shared by `vramlab plan|search` and the explorer.
 *
 * Exit codes (product.md): 0 ok, 2 usage error, 3 catalog error,
 * 4 device error (measure).
 */
#ifndef VRAMLAB_COMMANDS_H
#define VRAMLAB_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "catalog/catalog.h"
#include "catalog/modelfile.h"
#include "engine/engine.h"

enum { VRAMLAB_EXIT_OK = 0, VRAMLAB_EXIT_USAGE = 2, VRAMLAB_EXIT_CATALOG = 3, VRAMLAB_EXIT_DEVICE = 4 };

enum units { UNITS_GB = 0, UNITS_GIB };

/* Everything the scenario flags set, plus what the front ends need to show. */
struct options {
    struct engine_scenario sc;
    enum units units;
    bool json;
    bool no_color, no_mouse, ascii;
    const char *theme;     /* "dark", "light", "high-contrast"; NULL = dark */
    const char *catalog_file; /* --catalog */
    bool model_custom;     /* model built from --params or an architecture */
    /* --model-file: what the file's header gave (the type mix); NULL else.
     * Points to storage that lives as long as the process. */
    const struct catalog_model_file *model_file;
    bool gpu_custom;       /* GPU built from --gpu-memory ... */
    bool help;             /* --help or -h was given */
    bool explain;          /* plan --explain: formulas under each line */
    const char *scenario_file; /* --scenario FILE: the starting scenario */
    const char *lesson;    /* explorer: --lesson FILE|NAME */
    bool fresh;            /* explorer: --fresh, do not restore the last scenario */
    /* --recompute (or the explorer's recompute field) was set: otherwise
     * recompute follows the mode (selective; full for LoRA and QLoRA),
     * however the mode was reached. */
    bool recompute_given;
    bool present;          /* explorer: --present, start in presentation mode */
    /* Serving (tui/options_serving.c). */
    bool max_concurrency;  /* --max-concurrency: the batch becomes the most that fit */
    bool layout_given;     /* --tp, --pp or --dp was given (else plan picks the layout) */
    bool layout_picked;    /* --gpus N alone: the layout is the engine's best */
    bool layout_fits;      /* ... and it fits (else: the least memory per GPU) */
    bool context_given;    /* --context was given (else the runtime's default) */
    /* Training knobs no option set (engine_knob bits: --zero,
     * --sequence-parallel, --recompute): the layout searches may choose
     * them (plan --gpus N alone, search, the fewest GPUs); and those the
     * pick of --gpus N alone changed, for its note. */
    unsigned knobs_free, knobs_picked;
    /* Training: the micro-batches come from the model's published global
     * batch (catalog global_batch_tokens): its sequences, for the note. */
    uint32_t recipe_batch_sequences;
    enum engine_rank rank; /* search --rank */
    const char *host_cpu;  /* --host-cpu: the catalog CPU's name, or NULL */
    /* --system: the catalog system (a copy; its source points into the
     * catalog's strings). The scenario keeps its id, GPUs and power. */
    bool has_system;
    struct catalog_system system;
};

/* Load the catalog the way every command does: embedded default, then the
 * user's directory, then --catalog FILE (found by scanning argv). Prints
 * diagnostics to stderr. Returns 0, or VRAMLAB_EXIT_CATALOG when --catalog
 * FILE itself is bad. */
int options_load_catalog(int argc, char **argv, struct catalog *cat);
/* The same, keeping the messages in *diag instead of printing them (the
 * explorer shows them on its status line); options_print_diag prints them. */
int options_load_catalog_diag(int argc, char **argv, struct catalog *cat,
                              struct catalog_diag *diag);
void options_print_diag(const struct catalog_diag *d);
/* The catalog id a (Hugging Face) model name would have: the part after the
 * last '/', lower-cased, runs of other characters than [a-z0-9.] as one '-'. */
void options_model_id_of(const char *name, char *out, size_t len);

/* Parse scenario options (product.md "Scenario options") starting from the
 * defaults; unknown options are an error unless allow_unknown is set (then
 * they are left for the caller). Errors name the flag and print the closest
 * valid names to stderr; returns 0 or VRAMLAB_EXIT_USAGE. */
int options_parse(int argc, char **argv, const struct catalog *cat, struct options *o,
                  bool allow_unknown);

/* Up to n notes (translated, static strings) about options argv gave that
 * have no effect in o's scenario: --zero in inference, --lora-rank outside
 * LoRA, --sequence-parallel with TP 1, ...; returns how many. The
 * commands print them among the warnings (text and JSON warnings[]), the
 * explorer on its status line. */
size_t options_ignored_notes(int argc, char **argv, const struct options *o, const char **out,
                             size_t n);

/* Print the scenario options with one line of help each (for --help). */
void options_print_help(FILE *f);
/* Print the explorer's own options (--lesson, --fresh, --present). */
void options_print_explorer_help(FILE *f);
/* Whether argv sets any option that changes the scenario (not --theme,
 * --catalog, --units, --scenario, --lesson, ... ). */
bool options_has_scenario_flags(int argc, char **argv);
/* Apply --scenario FILE to options parsed from argv: the file becomes the
 * scenario (the session's flags and --units are kept); refused together
 * with other scenario flags. Prints the error to stderr; returns 0 or
 * VRAMLAB_EXIT_USAGE (tui/scenario_save.c). */
int options_apply_scenario_file(struct options *o, int argc, char **argv,
                                const struct catalog *cat);
/* The config.json a --model-config or import argument names (a directory
 * stands for DIR/config.json), into buf. */
void options_config_path(const char *arg, char *buf, size_t len);
/* Up to n names of names[] closest to word (edit distance, prefixes);
 * returns how many were written to out. */
size_t options_closest(const char *word, const char *const *names, size_t n_names,
                       const char **out, size_t n);

/* Headless commands (tui/cli*.c). */
int cmd_plan(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_catalog(int argc, char **argv);
int cmd_import(int argc, char **argv);
/* Measure and quantize (tui/measure.c, tui/quantize.c). */
int cmd_measure(int argc, char **argv);
int cmd_quantize(int argc, char **argv);
/* The interactive explorer (tui/app.c). */
int tui_main(int argc, char **argv);

#endif
