/*
 * draw_speed.h: the Speed and Roofline panes (draw_speed.c); above paint.h.
 */
#ifndef VRAMLAB_TUI_DRAW_SPEED_H
#define VRAMLAB_TUI_DRAW_SPEED_H

#include "tui/paint.h"

void tui_draw_speed(struct tui_pen *p);
void tui_draw_roof(struct tui_pen *p);

#endif
