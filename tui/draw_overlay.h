/*
 * draw_overlay.h: the overlays over the panes: help, explain, pickers
 * (draw_overlay.c); above paint.h.
 */
#ifndef VRAMLAB_TUI_DRAW_OVERLAY_H
#define VRAMLAB_TUI_DRAW_OVERLAY_H

#include "tui/paint.h"

void tui_draw_overlay(struct tui_ui *ui, const struct tui_state *st);

#endif
