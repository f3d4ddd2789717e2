/*
 * draw.h: painting the state into curses windows, one WINDOW per pane.
 *
 * tui_ui owns the windows of the current layout. tui_ui_reflow() rebuilds
 * them after a resize; tui_draw_frame() repaints every pane into its own
 * window with wnoutrefresh and ends with exactly one doupdate(). While
 * drawing, the position of every field is recorded (hits) so a mouse click
 * can be turned into "focus this field" or "pick this entry".
 *
 * The top of the drawing code, used only by the app: the windows and the
 * primitives are in paint.h, each pane in its own draw_*.c (draw_*.h).
 */
#ifndef VRAMLAB_TUI_DRAW_H
#define VRAMLAB_TUI_DRAW_H

#include "tui/paint.h"

/* Create the windows for a rows x cols screen (after a resize). */
void tui_ui_reflow(struct tui_ui *ui, const struct tui_state *st, int rows, int cols);
/* Delete all windows. */
void tui_ui_free(struct tui_ui *ui);
/* Paint everything and doupdate() once. */
void tui_draw_frame(struct tui_ui *ui, const struct tui_state *st);

/* The field at screen cell (y, x), or TUI_F_COUNT. */
enum tui_field tui_ui_hit_field(const struct tui_ui *ui, int y, int x);

#endif
