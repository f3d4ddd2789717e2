/*
 * options_internal.h: what tui/options.c (the first pass, help),
 * tui/options_build.c and tui/options_serving.c (the second pass that
 * builds the scenario) share. The parameters are engine/param_table.h's;
 * the value readers, which read each value by its row's type and range
 * with one wording, are in tui/options_values.c, below them all. Not for
 * other modules: they use tui/commands.h.
 */
#ifndef VRAMLAB_OPTIONS_INTERNAL_H
#define VRAMLAB_OPTIONS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/param_table.h"
#include "tui/commands.h"

/* The name (without dashes) of a parameter. */
const char *opt_name(enum param_id id);

/* Print "vramlab: " and a formatted message to stderr. */
void opt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the one wording of a bad value: "vramlab: --FLAG: expected WHAT,
 * found 'TEXT'". */
void opt_expected_of(const char *flag, const char *expected, const char *found);

/* ---- value readers (tui/options_values.c): each reads by the row's type
 * and range and, on error, prints "vramlab: --NAME: expected ..., found
 * '...'" and returns -1. */
/* A whole number (INT, TOKENS: k = 1024, M = 1024k) in the row's range. */
int opt_uint(enum param_id id, const char *s, uint32_t *out);
/* A token count of another option's text (--global-batch's N-tokens). */
int opt_token_count(const char *flag, const char *s, uint32_t *out);
/* An ENUM or SWITCH value's index ("" for a switch alone: the first). */
int opt_enum(enum param_id id, const char *s, int *out);
/* A RATIO, AMOUNT or quantity with a unit, in base units. */
int opt_number(enum param_id id, const char *s, double *out);
/* Every given row stored as one plain field of the scenario (other than
 * the architecture's and the custom GPU's, which opt_model and opt_gpu
 * apply), read by type into sc. */
int opt_read_stored(const struct options_given *s, struct engine_scenario *sc);
/* Choose the model: --model-config, --model, --params or an architecture. */
int opt_model(const struct options_given *s, const struct catalog *cat, struct options *o);
/* Look up a format by id, with suggestions on failure. */
int opt_format(const struct catalog *cat, const char *flag, const char *id, bool given,
               struct engine_format *out);
/* Choose the GPU (catalog or custom) and apply --gpu-* overrides. */
int opt_gpu(const struct options_given *s, const struct catalog *cat, struct options *o);
/* Work out G, t, p, d from what was given; check the combination. */
int opt_layout(const struct options_given *s, struct options *o);
/* Workload, training and communication options. */
int opt_workload(const struct options_given *s, struct options *o);
/* Training batch defaults once the layout is settled: with neither
 * --global-batch nor --micro-batches, the model's published global batch
 * (catalog global_batch_tokens) sets the micro-batches. */
void opt_train_batch_defaults(const struct options_given *s, struct options *o);
/* Value parsers of tui/options_build.c that the serving options share. */
int opt_unit(const char *flag, const char *s,
             int (*parse)(const char *, double *, char *, size_t), double *out);
/* Runtime, concurrency and offload options, after the workload
 * (tui/options_serving.c); and the runtime's defaults for what was not
 * given (its context, reserve). Returns 0 or -1 (message printed). */
int opt_serving(const struct options_given *s, const struct catalog *cat, struct options *o);

#endif
