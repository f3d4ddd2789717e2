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
#include "kernels/argv.h"
#include "catalog/modelfile.h"
#include "engine/engine.h"
#include "engine/param_table.h"

enum { VRAMLAB_EXIT_OK = 0, VRAMLAB_EXIT_USAGE = 2, VRAMLAB_EXIT_CATALOG = 3, VRAMLAB_EXIT_DEVICE = 4 };

enum units { UNITS_GB = 0, UNITS_GIB };

/* What the command line gave, scanned once: the last value of each
 * parameter (pointers into argv; the values of a scenario file's are
 * NULL once it is loaded). */
struct options_given {
    bool set[PARAM_COUNT];
    const char *val[PARAM_COUNT];
};

/* Everything the scenario flags set, plus what the front ends need to show. */
struct options {
    struct options_given given; /* the command line as scanned */
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
    /* The file the model came from (--model-file, or --model-config when
     * model_file is NULL), made absolute: a saved scenario names it and
     * loading it reads the file again; "" for any other model. */
    char model_path[4096];
    /* A scenario file's note on loading it (its model file gone, the saved
     * shape used), shown by the front end; "" when none. */
    char note[320];
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
    uint32_t max_concurrency_batch; /* ... which it is (0: not even one fits) */
    bool layout_given;     /* --tp, --pp or --dp was given (else plan picks the layout) */
    bool layout_picked;    /* --gpus N alone: the layout is the engine's best */
    bool layout_fits;      /* ... and it fits (else: the least memory per GPU) */
    bool context_given;    /* --context was given (else the runtime's default) */
    /* Training knobs no option set (engine_knob bits: --zero,
     * --sequence-parallel, --recompute, --cp): the layout searches may
     * choose them (plan --gpus N alone, search, the fewest GPUs); and those
     * the pick of --gpus N alone changed, for its note. */
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
 * user's directory, then file (--catalog FILE; NULL: none). Prints
 * diagnostics to stderr. Returns 0, or VRAMLAB_EXIT_CATALOG when --catalog
 * FILE itself is bad. */
int options_load_catalog(const char *file, struct catalog *cat);
/* The same, keeping the messages in *diag instead of printing them (the
 * explorer shows them on its status line); options_print_diag prints them. */
int options_load_catalog_diag(const char *file, struct catalog *cat, struct catalog_diag *diag);
void options_print_diag(const struct catalog_diag *d);
/* The catalog id a (Hugging Face) model name would have: the part after the
 * last '/', lower-cased, runs of other characters than [a-z0-9.] as one '-'. */
void options_model_id_of(const char *name, char *out, size_t len);

/* Parse scenario options (product.md "Scenario options") starting from the
 * defaults; unknown options are an error unless allow_unknown is set (then
 * they are left for the caller). Errors name the flag and print the closest
 * valid names to stderr; returns 0 or VRAMLAB_EXIT_USAGE. The two passes
 * apart: options_scan reads argv once into o (o->given, the session's
 * flags: --catalog, --json, --help, ...), options_build builds the scenario
 * from it with the catalog (0, 2 or 3). */
int options_parse(int argc, char **argv, const struct catalog *cat, struct options *o,
                  bool allow_unknown);
int options_scan(int argc, char **argv, bool allow_unknown, struct options *o);
int options_build(const struct catalog *cat, struct options *o);

/* Up to n notes (translated, static strings) about options argv gave that
 * have no effect in o's scenario: --zero in inference, --lora-rank outside
 * LoRA, --sequence-parallel with TP 1, ...; returns how many. The
 * commands print them among the warnings (text and JSON warnings[]), the
 * explorer on its status line. */
size_t options_ignored_notes(const struct options *o, const char **out, size_t n);

/* The one scanner's rows of some parameters, for a command that takes a
 * few of them (catalog: --json, --units, --catalog); and gettext, for its
 * spec's tr, so that every command words its errors alike. */
void options_argv_rows(const enum param_id *ids, size_t n, struct argv_option *out);
const char *options_tr(const char *msgid);
/* Read an ENUM or SWITCH parameter's value to its index; on a bad one,
 * print the one wording ("vramlab: --units: expected gb or gib, found
 * 'tb'") and return -1. */
int options_enum(enum param_id id, const char *s, int *out);
/* Read an INT or TOKENS parameter's value (--context 8k) in its row's
 * range; on a bad one, print the one wording and return -1. */
int options_uint(enum param_id id, const char *s, uint32_t *out);

/* Print a command's options from the parameter table, one line of help
 * each: the explorer's own (OPTIONS_HELP_EXPLORER), the scenario's, --json
 * and --explain when asked, then the multiplier rule of each kind of size. */
enum { OPTIONS_HELP_EXPLORER = 1u << 0, OPTIONS_HELP_JSON = 1u << 1, OPTIONS_HELP_EXPLAIN = 1u << 2 };
void options_print_help(FILE *f, unsigned what);
/* Whether argv sets any option that changes the scenario (not --theme,
 * --catalog, --units, --scenario, --lesson, ... ). */
bool options_has_scenario_flags(const struct options *o);
/* Apply --scenario FILE to options parsed from argv: the file becomes the
 * scenario (the session's flags and --units are kept); refused together
 * with other scenario flags. Prints the error to stderr; returns 0 or
 * VRAMLAB_EXIT_USAGE (tui/scenario_save.c). */
int options_apply_scenario_file(struct options *o, const struct catalog *cat);
/* The config.json a --model-config or import argument names (a directory
 * stands for DIR/config.json), into buf. */
void options_config_path(const char *arg, char *buf, size_t len);
/* Headless commands (tui/cli*.c). */
int cmd_plan(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_catalog(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_lesson(int argc, char **argv);
/* Measure and quantize (tui/measure.c, tui/quantize.c). */
int cmd_measure(int argc, char **argv);
int cmd_quantize(int argc, char **argv);
/* Benchmark a running inference server (tui/bench.c). */
int cmd_bench(int argc, char **argv);
/* The interactive explorer (tui/app.c). */
int tui_main(int argc, char **argv);

#endif
