/*
 * cli.h: what the headless commands (tui/cli_*.c) share: loading the
 * catalog, parsing the scenario, and writing output only when complete.
 */
#ifndef VRAMLAB_CLI_H
#define VRAMLAB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tui/commands.h"

/* Notes of the front end about the options (not the engine's warnings):
 * shown first among the warnings, in text and JSON. */
#define CLI_MAX_NOTES 16
struct cli_notes {
    const char *text[CLI_MAX_NOTES]; /* translated, static strings */
    size_t n;
};

/* One command run: catalog, options and the in-memory output. */
struct cli_run {
    struct catalog cat;
    struct options o;
    struct cli_notes notes;
    FILE *out; /* an open_memstream; written to stdout by cli_finish */
    char *buf;
    size_t len;
};

/* Whether argv (after the command name) asks for --help / -h. */
bool cli_wants_help(int argc, char **argv);
/* Load the catalog, parse the scenario options, open the output buffer.
 * Returns 0, or an exit code (everything already freed). */
int cli_begin(struct cli_run *run, int argc, char **argv);
/* Load the catalog (file: --catalog FILE, or NULL) and open the output
 * buffer without parsing options. */
int cli_begin_catalog(struct cli_run *run, const char *file);
/* Free everything; nothing is printed. */
void cli_end(struct cli_run *run);
/* Write the buffered output to stdout and free; returns the exit code. */
int cli_finish(struct cli_run *run);
/* Print the reasons a scenario is invalid to stderr. */
void cli_report_invalid(const struct engine_scenario *sc, uint32_t invalid);
/* One aligned line of plan's text table: label, value, optional note
 * (cli_common.c: used by cli_plan.c and cli_limits.c). */
void plan_line(FILE *f, const char *label, const char *value, const char *note);

/* The inverse questions of a scenario (cli_limits.c). */
struct plan_limits {
    uint32_t max_batch, max_context; /* 0: not even 1 fits */
    bool max_context_capped;         /* stopped by the model's max_context, not memory */
    bool max_context_bound;          /* stopped by the search bound */
    bool max_batch_bound;            /* stopped by the search bound */
    bool batch_fits;                 /* the scenario's batch fits at its context */
    int32_t max_gpu_layers;          /* most layers on the GPUs that fit; -1 none; -2 n/a */
    uint32_t min_gpus;               /* 0: none (min_status says why) */
    enum engine_fewest_status min_status;
    struct engine_layout min_layout; /* the best layout of min_gpus */
    unsigned min_knobs;              /* the training knobs the fewest-GPU search chose */
    bool has_family;                 /* the model belongs to a catalog family */
    const struct engine_model *largest; /* largest of the family that fits, or NULL */
};
void plan_limits_compute(const struct catalog *cat, const struct options *o,
                         struct plan_limits *l);
/* The limits as the text section and the JSON object "limits" (cli_limits.c). */
void plan_limits_text(FILE *f, const struct options *o, const struct plan_limits *l);
struct json_writer;
void plan_limits_json(struct json_writer *w, const struct engine_scenario *sc,
                      const struct plan_limits *l);

/* Shared by plan and search (cli_plan.c); limits may be NULL. */
void plan_write_header(FILE *f, const struct options *o, bool with_layout);
void plan_write_text(FILE *f, const struct options *o, const struct engine_estimate *est,
                     const struct plan_limits *limits, const struct cli_notes *notes);
void plan_write_json(FILE *f, const struct options *o, const struct engine_estimate *est,
                     const struct plan_limits *limits, const struct cli_notes *notes);

#endif
