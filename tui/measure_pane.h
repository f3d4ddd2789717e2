/*
 * measure_pane.h: the probe behind the explorer's Measure pane, and the
 * pane's own keys.
 *
 * m (state.c) asks for a run; tui_mpane_poll starts vramlab-probe (quick
 * sizes: copy, read, FP16 GEMV, the GEMM sweep, W8A16/W4A16 and the error
 * lab; CUDA first, the CPU when there is no GPU, with the CPU's fma-peak
 * instead of the GEMM sweep; a probe too old to know fma-peak is run again
 * without it), reads its events without
 * blocking and fills st->measure; Esc (state.c) asks for a cancel, which
 * is SIGTERM through probe_client_cancel. The run's events are kept for
 * the session (struct measure_run) so that w can save the same JSON object
 * as `vramlab measure --json`.
 *
 * Keys while the Measure pane has focus (tui_mpane_key): a calibrates the
 * scenario with the measured rates (again: the data sheet; a measurement
 * of another device than the scenario's GPU, a CPU's above all, asks
 * first and y applies it), w saves the
 * results to vramlab-measure.json in the current directory (written to a
 * temporary file and linked or renamed into place; an existing file is
 * only replaced after y), v switches between the rates, the error lab and
 * the all-reduce, x measures the all-reduce (NCCL over this machine's
 * GPUs, quick sizes 8 B to 64 MiB; on a CPU alone it explains that one
 * rank has nothing to reduce: `vramlab measure --allreduce --mpirun`),
 * and a in the all-reduce view calibrates the scenario's links and
 * latency from its fit (again: the figures before).
 *
 * r benchmarks the inference server at $VRAMLAB_BENCH_URL (llama-server,
 * vLLM, Ollama; m does too after the kernels when it is set): this
 * program's own `vramlab bench --events` in a child process, read like
 * the probe (probe_client), its predictions for the scenario's GPU (or
 * this machine's CPU, --device cpu, when the scenario's device is it); the
 * runtime row shows measured decode and time to first token beside them.
 */
#ifndef VRAMLAB_TUI_MEASURE_PANE_H
#define VRAMLAB_TUI_MEASURE_PANE_H

#include <stdbool.h>

#include "tui/measure_run.h"
#include "tui/probe_client.h"
#include "tui/state.h"

#define TUI_MEASURE_FILE "vramlab-measure.json"

struct tui_mpane {
    struct probe_client pc;
    bool running;
    bool on_cpu;            /* this run is the CPU fallback */
    bool got_data;          /* this run produced a result */
    bool fallback;          /* it said "no GPU": the CPU is measured next */
    bool with_fma;          /* this CPU run asked for fma-peak */
    bool retry_old;         /* the probe refused fma-peak: run again without it */
    bool with_a8;           /* the run asked for w8a8 and w4a8 */
    bool retry_a16;         /* the probe refused w8a8: run again without the A8 tests */
    bool ar_run;            /* this run is the all-reduce (x) */
    struct measure_run run; /* the last run's events, for w */
    struct probe_client rtc; /* r: vramlab bench --events */
    bool rt_running;
};

/* Start, cancel and read the probe as st->measure asks; returns dirty
 * flags (TUI_DIRTY_*). Call often while mp->running. */
unsigned tui_mpane_poll(struct tui_mpane *mp, struct tui_state *st);

/* The pane's keys (see above); returns true when the key was used, with
 * the dirty flags in *dirty. */
bool tui_mpane_key(struct tui_mpane *mp, struct tui_state *st, int key, unsigned *dirty);

/* Stop a running probe and free the run (on quit). */
void tui_mpane_stop(struct tui_mpane *mp);

/* Write the run as JSON to path without replacing an existing file unless
 * overwrite: 0, 1 when the file exists (nothing written), -1 with err. */
int tui_mpane_save(const struct measure_run *run, const struct engine_gpu *g,
                   const struct catalog_cpu *cpu, const char *path, bool overwrite, char *err,
                   size_t errlen);

#endif
