/*
 * draw_lecture.h: the lecture kit's screens (draw_lecture.c): the caption
 * bar, presentation mode, the save/load prompt, the comparison's title;
 * above paint.h and draw_panes.h (the bar).
 */
#ifndef VRAMLAB_TUI_DRAW_LECTURE_H
#define VRAMLAB_TUI_DRAW_LECTURE_H

#include <stddef.h>

#include "tui/paint.h"

/* Rows the caption bar takes on a rows x cols screen (0: none, or inline). */
int tui_caption_rows(const struct tui_state *st, int rows, int cols);
/* The caption bar (step number, title, wrapped caption) into ui->caption,
 * or one truncated line into the title row when ui->caption_inline. */
void tui_draw_caption(struct tui_ui *ui, const struct tui_state *st);
/* Presentation mode's headline, large, into ui->big. */
void tui_draw_present(struct tui_ui *ui, const struct tui_state *st);
/* The open save/load prompt on row y of w. */
void tui_draw_prompt(struct tui_ui *ui, WINDOW *w, int y, const struct tui_state *st);
/* The title row of a comparison: "pinned: FP16 . current: INT4". */
void tui_compare_title(const struct tui_ui *ui, const struct tui_state *st, char *buf, size_t len);

#endif
