/*
 * cli_fallback.c: weak stand-ins for entry points another module provides
 * (measure's cmd_measure and cmd_quantize), so the headless commands build
 * and test while those land. A real definition in
 * any linked object replaces these. Remove once every module is in.
 */
#include <stdio.h>

#include "tui/commands.h"

/* Say that a part of vramlab is not in this build. */
static int fallback_missing(const char *what) {
    fprintf(stderr, "vramlab: %s is not built into this binary\n", what);
    return 1;
}

/* `vramlab measure`, until tui/measure.c provides it. */
__attribute__((weak)) int cmd_measure(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return fallback_missing("measure");
}

/* `vramlab quantize`, until tui/quantize.c provides it. */
__attribute__((weak)) int cmd_quantize(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return fallback_missing("quantize");
}
