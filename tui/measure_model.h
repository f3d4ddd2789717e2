/*
 * measure_model.h: the Measure pane's figures, with no screen and no
 * process: probe events into struct tui_measure, predicted versus
 * measured, the user's scenario redone with the measured bandwidth, the
 * calibration toggle, and the seed's Pythia-1.4B loss for a width.
 * Tested by tests/test_measure_model.c.
 *
 * Predicted rates (shared spec measure.md): the data sheet of the catalog
 * GPU the probe's device matches (catalog_match_device), else the
 * scenario's GPU (then the pane says so). Bandwidths count read + write
 * bytes; the GEMM sweep compares FLOP/s with the roofline
 * min(FP16 FLOP/s, bandwidth x FLOP/byte).
 *
 * The scenario redone: decode at batch b reads the weights once per step,
 * so its ceiling scales with the bandwidth; engine_estimate is run twice,
 * with the data sheet and with measured_bytes_per_s = the measured FP16
 * GEMV rate (the kernel a decode step is), or the copy rate without one.
 */
#ifndef VRAMLAB_TUI_MEASURE_MODEL_H
#define VRAMLAB_TUI_MEASURE_MODEL_H

#include <stdbool.h>

#include "catalog/catalog.h"
#include "tui/probe_client.h"
#include "tui/state.h"

/* Whether the Measure pane grows over Speed and Roofline: it has focus
 * in the full layout and something to show (a run or its results). */
bool tui_measure_grows(const struct tui_state *st);

/* Clear the results of a run (keeps the view and the session's note). */
void tui_measure_clear(struct tui_measure *m);

/* Take one probe event into the pane (device, progress, result, error-lab
 * row, error, a malformed line, a truncated stream). cat matches the
 * device to a catalog GPU; may be NULL. */
void tui_measure_take(struct tui_measure *m, const struct probe_event *ev,
                      const struct catalog *cat);

/* The row of a test, or NULL. */
const struct tui_measure_row *tui_measure_find(const struct tui_measure *m, const char *test);

/* The bandwidth a decode step gets on this machine with weights in format
 * wf (NULL: FP16): the GEMV kernel of that width (W4A16 for group formats
 * of up to 4 bits, W8A16 up to 8, else FP16), else the FP16 GEMV, else the
 * copy rate, else 0. *test names the one used. */
double tui_measure_decode_bw(const struct tui_measure *m, const struct engine_format *wf,
                             const char **test);

/* The predicted rate of a row: bytes/s, or FLOP/s for the GEMM sweep;
 * against the matched GPU, else gpu_fallback (the scenario's). */
double tui_measure_predicted(const struct tui_measure *m, const struct tui_measure_row *r,
                             const struct engine_gpu *gpu_fallback);

/* Whether a row's working set is under 4x the device's cache (its figure
 * is then partly an in-cache one). */
bool tui_measure_in_cache(const struct tui_measure *m, const struct tui_measure_row *r);

/* The scenario's decode ceiling with the data sheet and with a measured
 * bandwidth (and FLOP/s, 0 = the data sheet). */
struct tui_measure_redo {
    double predicted_tokens_per_s; /* data sheet */
    double measured_tokens_per_s;  /* measured bandwidth */
    bool valid;                    /* inference, a valid scenario, a rate */
};
void tui_measure_redo(const struct engine_scenario *sc, double measured_bytes_per_s,
                      double measured_flop_per_s, struct tui_measure_redo *out);

/* a: calibrate the scenario with the measured rates, or (when calibrated)
 * go back to the data sheet. Returns true when the scenario changed; the
 * note says what happened. */
bool tui_measure_toggle_calibration(struct tui_measure *m, struct engine_scenario *sc);

/* After the scenario's GPU changed: a calibration the pane made for the
 * previous GPU is dropped (the note says so). Returns true when the
 * scenario changed. A calibration from the command line stays. */
bool tui_measure_recheck_calibration(struct tui_measure *m, struct engine_scenario *sc);

/* An error-lab row, or NULL. */
const struct tui_measure_lab *tui_measure_lab_find(const struct tui_measure *m, unsigned bits,
                                                   unsigned group, bool outliers);

/* The seed's Pythia-1.4B loss at the evidence point nearest to bits:
 * per group, per matrix and the FP16 baseline; false without evidence. */
bool tui_measure_seed_loss(const struct catalog *cat, double bits, double *at_bits,
                           double *per_group, double *per_matrix, double *baseline);

#endif
