/*
 * draw_measure.h: the Measure pane and the Format pane's evidence lines
 * (draw_measure.c); above paint.h, below draw_panes.c.
 */
#ifndef VRAMLAB_TUI_DRAW_MEASURE_H
#define VRAMLAB_TUI_DRAW_MEASURE_H

#include "tui/paint.h"

/* The Measure pane. */
void tui_draw_measure(struct tui_pen *p);
/* The Format pane's evidence lines from content line `line`: the seed's
 * Pythia-1.4B loss at the chosen width, per group and per matrix, and the
 * error lab's measured error when the session has one. */
void tui_draw_format_evidence(struct tui_pen *p, int line);

#endif
