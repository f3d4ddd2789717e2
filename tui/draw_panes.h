/*
 * draw_panes.h: the input panes and the Memory pane with its stacked bar
 * (draw_panes.c); above paint.h and draw_measure.h.
 */
#ifndef VRAMLAB_TUI_DRAW_PANES_H
#define VRAMLAB_TUI_DRAW_PANES_H

#include "tui/paint.h"

void tui_draw_model(struct tui_pen *p);
void tui_draw_format(struct tui_pen *p);
void tui_draw_gpu(struct tui_pen *p);
void tui_draw_layout(struct tui_pen *p);
void tui_draw_memory(struct tui_pen *p);
/* A stacked memory bar of e against capacity, width cells from column x0
 * of a content line. */
void tui_draw_bar(struct tui_pen *p, int line, int x0, int width, const struct engine_estimate *e);

#endif
