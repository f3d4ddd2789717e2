/*
 * probe_options.h: vramlab-probe's options, once: the probe scans its
 * command line with them, and `vramlab measure`, which passes them on to
 * the probe, takes the same rows (tui/measure.c). Scanned by the one
 * scanner, kernels/argv.h (a leaf kernels/ may include).
 */
#ifndef VRAMLAB_PROBE_OPTIONS_H
#define VRAMLAB_PROBE_OPTIONS_H

#include "kernels/argv.h"

enum probe_opt {
    PROBE_OPT_HELP = 0,
    PROBE_OPT_DEVICE,
    PROBE_OPT_QUICK,
    PROBE_OPT_TESTS,
    PROBE_OPT_THREADS,
    PROBE_OPT_ALLREDUCE,
    PROBE_OPT_SIZES,
    PROBE_OPT_DTYPES,
    PROBE_OPT_ITERS,
    PROBE_OPT_DEADLINE,
    PROBE_OPT_BATCHES,
    PROBE_OPT_FULL,
    PROBE_OPT_BUDGET,
    PROBE_OPT_BUILD_INFO, /* the probe's own: measure does not take it */
    PROBE_OPT_COUNT
};

static const struct argv_option probe_options[PROBE_OPT_COUNT] = {
    [PROBE_OPT_HELP] = {"help", ARGV_NONE, NULL},
    [PROBE_OPT_DEVICE] = {"device", ARGV_REQUIRED, "cpu|cuda[:N]"},
    [PROBE_OPT_QUICK] = {"quick", ARGV_NONE, NULL},
    [PROBE_OPT_TESTS] = {"tests", ARGV_REQUIRED, "LIST"},
    [PROBE_OPT_THREADS] = {"threads", ARGV_REQUIRED, "N"},
    [PROBE_OPT_ALLREDUCE] = {"allreduce", ARGV_NONE, NULL},
    [PROBE_OPT_SIZES] = {"sizes", ARGV_REQUIRED, "LIST"},
    [PROBE_OPT_DTYPES] = {"dtypes", ARGV_REQUIRED, "LIST"},
    [PROBE_OPT_ITERS] = {"iters", ARGV_REQUIRED, "N"},
    [PROBE_OPT_DEADLINE] = {"deadline", ARGV_REQUIRED, "SECONDS"},
    [PROBE_OPT_BATCHES] = {"batches", ARGV_REQUIRED, "LIST"},
    [PROBE_OPT_FULL] = {"full", ARGV_NONE, NULL},
    [PROBE_OPT_BUDGET] = {"budget", ARGV_REQUIRED, "SECONDS"},
    [PROBE_OPT_BUILD_INFO] = {"build-info", ARGV_NONE, NULL},
};

#endif
