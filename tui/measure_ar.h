/*
 * measure_ar.h: the all-reduce measurement on vramlab's side (issue 15):
 * the probe's fit read back (from its `fit` event, a saved `vramlab
 * measure --json` object or a file of the probe's JSON lines), the
 * engine's ring model beside each measured size, and the calibration of
 * a scenario's communication inputs from the fit. Shared by `plan
 * --measured-allreduce`, `vramlab measure --allreduce` and the Measure
 * pane's a; below all of them (it uses the engine and probe_client.c).
 *
 * Definitions (kernels/probe_allreduce.h, those of nccl-tests): algbw =
 * bytes / t, busbw = algbw x 2(n-1)/n; the fit t = alpha + bytes / beta,
 * so the link bandwidth of the ring model is bus_beta = beta x 2(n-1)/n.
 * Calibration: with every rank on one host (hosts = 1) --intra-node-bw =
 * 2 x bus_beta (the engine halves intra-node figures, quoted as vendors do
 * both directions together), across hosts --inter-node-bw = bus_beta (per
 * direction already); --allreduce-latency = alpha (the engine has one
 * latency for both). The FP32 fit is used, as all_reduce_perf's default
 * type, else the BF16 one.
 */
#ifndef VRAMLAB_TUI_MEASURE_AR_H
#define VRAMLAB_TUI_MEASURE_AR_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"
#include "tui/probe_client.h"

/* One dtype's fit. */
struct measure_ar_fit {
    bool valid; /* ranks >= 2 and a finite alpha >= 0 and beta > 0 */
    char dtype[8], transport[16];
    unsigned ranks, hosts, points;
    double alpha_s, beta_bytes_per_s, bus_beta_bytes_per_s, residual;
};

/* 2(n-1)/n (0 for n <= 1). */
double measure_ar_bus_factor(unsigned ranks);

/* A fit event (or a saved "allreduce_fit" element) into f; false when it
 * is none (f->valid then says whether it can calibrate). */
bool measure_ar_fit_read(const struct probe_json *j, struct measure_ar_fit *f);

/* The engine's ring model for the scenario: the seconds of an all-reduce
 * of bytes over ranks, within a node when hosts <= 1, across nodes
 * otherwise; and its bus bandwidth bytes / t x 2(n-1)/n. NAN for n < 2. */
double measure_ar_predicted_seconds(const struct engine_scenario *sc, double bytes, unsigned ranks,
                                    unsigned hosts);
double measure_ar_predicted_busbw(const struct engine_scenario *sc, double bytes, unsigned ranks,
                                  unsigned hosts);

/* Set the scenario's communication inputs from a fit (see above).
 * Returns 0, or -1 (nothing changed) for one rank or an unusable fit. */
int measure_ar_calibrate(struct engine_scenario *sc, const struct measure_ar_fit *f);

/* The fit to calibrate with from a file: the probe's JSON lines or a
 * `vramlab measure --json` object (its "allreduce_fit" array). FP32 first,
 * else BF16. Returns 0, or -1 with a message naming the file and what is
 * wrong. */
int measure_ar_load(const char *path, struct measure_ar_fit *f, char *err, size_t len);

/* From fits[0..n): the one calibration uses (FP32 first), or NULL. */
const struct measure_ar_fit *measure_ar_pick(const struct measure_ar_fit *fits, size_t n);

#endif
