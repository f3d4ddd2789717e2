/*
 * measure_run.h: everything one vramlab-probe run said, collected from its
 * events, and the `vramlab measure --json` object written from it. Shared
 * by `vramlab measure` (tui/measure.c) and the explorer's Measure pane,
 * which saves the same object with its w key (tui/measure_pane.c).
 *
 * Predicted figures come from the catalog GPU matched to the device
 * (bandwidth tests: its data-sheet bandwidth; the GEMM sweep: its roofline
 * min(FP16 FLOP/s, bandwidth x FLOP/byte)); C is the copy result with the
 * most threads (read + write bytes / s).
 */
#ifndef VRAMLAB_TUI_MEASURE_RUN_H
#define VRAMLAB_TUI_MEASURE_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "catalog/catalog.h"
#include "tui/probe_client.h"

/* Everything the probe said. */
struct measure_run {
    struct probe_json device;
    bool have_device;
    struct probe_json *results, *lab, *skips;
    size_t n_results, n_lab, n_skips, cap_results, cap_lab, cap_skips;
    char error[512], error_code[64];
    bool failed, truncated;
    unsigned bad_lines;
};

/* Record one event (device, result, error-lab row, skip, error, a
 * truncated stream); progress and unknown events are ignored here. A
 * malformed line is counted in bad_lines. */
void measure_run_take(struct measure_run *m, const struct probe_event *ev);

/* Free the arrays and zero the run. */
void measure_run_free(struct measure_run *m);

/* s, or d when s is NULL. */
const char *measure_str_or(const char *s, const char *d);

/* The predicted rate of a result from the catalog GPU g: bytes/s, or FLOP/s
 * for the GEMM sweep (*is_flop set); NAN when unknown. */
double measure_predicted(const struct engine_gpu *g, const struct probe_json *r, bool *is_flop);

/* C: the median bytes/s of the copy result with the most threads, NAN when
 * absent. */
double measure_copy_c(const struct measure_run *m);

/* The catalog GPU matching the device's name, or NULL. */
const struct engine_gpu *measure_match(const struct measure_run *m, const struct catalog *cat);

/* Write the --json object (one line of indented JSON, then a newline). */
void measure_run_json(FILE *f, const struct measure_run *m, const struct engine_gpu *g);

#endif
