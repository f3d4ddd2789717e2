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
 *
 * On a CPU (issue 11, "compare like with like") nothing is divided by a
 * GPU's data sheet: predicted is the catalog CPU's (catalog_match_cpu on
 * the reported model name; none for a virtual machine or an unknown
 * part), and the scenario is shown twice, as two devices: "on this
 * machine" (tui_measure_here: one device whose bandwidth is C, the
 * ceiling, then the measured kernel of the scenario's weight width, and
 * whose FLOP/s is the measured fma-peak) next to the catalog prediction
 * on the scenario's GPU. a on a measurement of another device than the
 * scenario's GPU (a CPU, an unmatched or another GPU) asks first, naming
 * both (tui_measure_toggle_calibration, then y: tui_measure_confirm).
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
 * wf (NULL: FP16): the GEMV kernel of that width (measure_decode_kernel:
 * gemv-fp16 / gemv-bf16 for 16 bits, w8a16 for 8, w4a16 for 4, else the
 * nearest measured width), else the copy rate, else 0. *test names the one
 * used; *nearest (may be NULL) is set when it is not the format's own. */
double tui_measure_decode_bw(const struct tui_measure *m, const struct engine_format *wf,
                             const char **test, bool *nearest);

/* The measured FMA peak of a CPU (the fma-peak row), 0 when absent. */
double tui_measure_fma_peak(const struct tui_measure *m);

/* The scenario on this machine (a CPU): one device, no parallelism, the
 * efficiencies 1, the measured rates; and the catalog's prediction for the
 * scenario as it is (its GPU's data sheet). */
struct tui_measure_here {
    bool valid;                    /* inference, a valid scenario, C measured */
    double ceiling_tokens_per_s;   /* at the bandwidth C */
    double kernel_tokens_per_s;    /* at the kernel's bandwidth (0: none measured) */
    double c_bytes_per_s, kernel_bytes_per_s, fma_peak;
    const char *test;              /* the kernel used, or NULL */
    bool nearest;                  /* the kernel is not the format's own width */
    bool fits;                     /* the scenario's memory fits the device's (when known) */
    double need_bytes;             /* what it needs on one device */
    double catalog_tokens_per_s;   /* the scenario on its GPU, data sheet */
};
void tui_measure_here(const struct tui_measure *m, const struct engine_scenario *sc,
                      struct tui_measure_here *out);

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
 * note says what happened. A measurement of another device than the
 * scenario's GPU is not applied: m->confirm_calibrate is set and the note
 * asks, naming both. */
bool tui_measure_toggle_calibration(struct tui_measure *m, struct engine_scenario *sc);

/* The answer to that question: yes applies the other device's figures to
 * the scenario (the note says whose they are), no keeps the data sheet.
 * Returns true when the scenario changed. */
bool tui_measure_confirm(struct tui_measure *m, struct engine_scenario *sc, bool yes);

/* After the scenario's GPU changed: a calibration the pane made for the
 * previous GPU is dropped (the note says so). Returns true when the
 * scenario changed. A calibration from the command line stays. */
bool tui_measure_recheck_calibration(struct tui_measure *m, struct engine_scenario *sc);

/* The all-reduce (x): forget the last one (a new run). */
void tui_measure_ar_clear(struct tui_measure *m);

/* The fit a calibrates with (FP32 first), or NULL. */
const struct measure_ar_fit *tui_measure_ar_fit(const struct tui_measure *m);

/* a in the all-reduce view: set --intra-node-bw (every rank on one host)
 * or --inter-node-bw, and --allreduce-latency, from the fit (measure_ar.h);
 * again: the scenario's figures before. Returns true when the scenario
 * changed; the note says what happened. */
bool tui_measure_toggle_ar_calibration(struct tui_measure *m, struct engine_scenario *sc);

/* An error-lab row, or NULL. */
const struct tui_measure_lab *tui_measure_lab_find(const struct tui_measure *m, unsigned bits,
                                                   unsigned group, bool outliers);

/* The seed's Pythia-1.4B loss at the evidence point nearest to bits:
 * per group, per matrix and the FP16 baseline; false without evidence. */
bool tui_measure_seed_loss(const struct catalog *cat, double bits, double *at_bits,
                           double *per_group, double *per_matrix, double *baseline);

#endif
