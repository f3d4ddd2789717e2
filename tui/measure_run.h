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
 *
 * On the CPU backend the CPU is compared with itself (issue 11, "compare
 * like with like"): C is its ceiling, every kernel a fraction of C, the
 * FLOP rates a fraction of its own roofline min(fma-peak, C x FLOP/byte).
 * "Predicted" is the data sheet of the catalog CPU whose model name the
 * device reports (catalog_match_cpu), never a GPU's; a virtual machine
 * (the device event's "virtual": true, which shares the host's memory
 * system) or an unknown part gets no prediction and no ratio, and says
 * so (measure_cpu_verdict).
 */
#ifndef VRAMLAB_TUI_MEASURE_RUN_H
#define VRAMLAB_TUI_MEASURE_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "catalog/catalog.h"
#include "tui/measure_ar.h"
#include "tui/probe_client.h"

/* Everything the probe said. */
struct measure_run {
    struct probe_json device;
    bool have_device;
    struct probe_json *results, *lab, *skips;
    size_t n_results, n_lab, n_skips, cap_results, cap_lab, cap_skips;
    /* The all-reduce (issue 15): its sizes and its fits, apart from the
     * kernels' results (they have no bytes_per_s to compare). */
    struct probe_json *ar, *fits;
    size_t n_ar, n_fits, cap_ar, cap_fits;
    /* The scenario whose ring model is written beside them (the pane's,
     * or measure_run_ar_scenario's); engine defaults when not set. */
    struct engine_scenario ar_sc;
    bool have_ar_sc;
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
/* A result's note for the reader: the probe's English note, except the one
 * with a figure (a GEMV bound by the cores), said again in the reader's
 * language and marks from its in_cache_bytes_per_s. */
void measure_result_note(const struct probe_json *j, char *buf, size_t len);

/* Whether a result's rate is FLOP/s rather than bytes/s (the GEMM sweep
 * and the CPU's fma-peak). */
bool measure_is_flop_test(const char *test);

/* The predicted rate of a result from the catalog GPU g: bytes/s, or FLOP/s
 * for the GEMM sweep (*is_flop set); NAN when unknown. */
double measure_predicted(const struct engine_gpu *g, const struct probe_json *r, bool *is_flop);

/* The same from the catalog CPU c (the CPU backend): its data-sheet
 * bandwidth, or for fma-peak its FP32 peak where the catalog has one; NAN
 * when c is NULL or has no such figure. */
double measure_predicted_cpu(const struct catalog_cpu *c, const struct probe_json *r,
                             bool *is_flop);

/* Whether the device is the CPU (the probe's backend "cpu"). */
bool measure_on_cpu(const struct measure_run *m);

/* The device event's "virtual": 1 under a hypervisor, 0 on bare metal, -1
 * when the probe did not say (an older probe). */
int measure_virtual(const struct measure_run *m);

/* The catalog CPU whose model name the device reports (CPU backend only),
 * or NULL. */
const struct catalog_cpu *measure_match_cpu(const struct measure_run *m,
                                            const struct catalog *cat);

/* What a CPU measurement can be compared with. */
enum measure_cpu_kind {
    MEASURE_CPU_KNOWN = 0,    /* a catalog CPU on bare metal: data sheet and ratio */
    MEASURE_CPU_VIRTUAL,      /* a virtual machine: a share of a host, no ratio */
    MEASURE_CPU_UNKNOWN,      /* not in the catalog, no ratio */
    MEASURE_CPU_UNKNOWN_VIRTUAL,
};
/* The kind (cpu: the catalog match, or NULL; virt: measure_virtual) and a
 * short English phrase for it ("unknown CPU (virtual machine)"), marked
 * N_() for the text report to translate (the --json keeps it English). */
enum measure_cpu_kind measure_cpu_kind(const struct catalog_cpu *cpu, int virt);
const char *measure_cpu_phrase(enum measure_cpu_kind k);
/* The JSON word of the kind ("data-sheet", "virtual-machine", "unknown-cpu",
 * "unknown-cpu-virtual-machine"). */
const char *measure_cpu_word(enum measure_cpu_kind k);

/* The CPU's measured peak FP32 FMA rate: flop_per_s of the fma-peak result
 * with the most threads, NAN when absent. */
double measure_fma_peak(const struct measure_run *m);

/* The roofline at an arithmetic intensity: min(peak, c x flop_per_byte);
 * with one of peak and c unknown (NAN or <= 0), the other's bound; NAN when
 * neither or the intensity is unknown. */
double measure_roofline(double peak_flop_per_s, double c_bytes_per_s, double flop_per_byte);

/* The GEMV kernel that decodes weights of `bits` bits on this machine,
 * among those have(test, ctx) says were measured: the same width first (at
 * 16 bits the same type first: gemv-bf16 for bf16, else gemv-fp16), else
 * the nearest width of gemv-fp16/gemv-bf16 (16), w8a16 (8), w4a16 (4), a
 * tie going to the wider; NULL when none was measured. *nearest (may be
 * NULL) is set when the kernel is not the format's own width and type. */
const char *measure_decode_kernel(double bits, bool bf16,
                                  bool (*have)(const char *test, const void *ctx),
                                  const void *ctx, bool *nearest);

/* A progress event as the terminal line of `vramlab measure`: "test 3 of 11,
 * fma-peak, 40%, about 12 s left" (index, count and eta_seconds when the
 * probe sends them; without them "fma-peak 40%"), in the reader's language
 * and numbers (gettext, tui/report.h). Returns the length. */
int measure_progress_text(const struct probe_json *ev, char *buf, size_t len);

/* C: the median bytes/s of the copy result with the most threads, NAN when
 * absent. */
double measure_copy_c(const struct measure_run *m);

/* The catalog GPU matching the device's name, or NULL (always NULL on the
 * CPU backend: a CPU is never compared with a GPU's data sheet). */
const struct engine_gpu *measure_match(const struct measure_run *m, const struct catalog *cat);

/* The engine's ring model beside the all-reduce rows of `vramlab measure`:
 * the engine's defaults on GPU g (the matched one, else the explorer's
 * default GPU, h100-sxm: 900 GB/s NVLink, so 450 GB/s one way; without a
 * GPU the intra-node link is the inter-node 50 GB/s), 5 us latency. */
void measure_run_ar_scenario(const struct engine_gpu *g, struct engine_scenario *sc);

/* Write the --json object (one line of indented JSON, then a newline); g is
 * the matched GPU, cpu the matched CPU (either may be NULL). */
void measure_run_json(FILE *f, const struct measure_run *m, const struct engine_gpu *g,
                      const struct catalog_cpu *cpu);

#endif
