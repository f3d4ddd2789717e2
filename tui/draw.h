/*
 * draw.h: painting the state into curses windows, one WINDOW per pane.
 *
 * tui_ui owns the windows of the current layout. tui_ui_reflow() rebuilds
 * them after a resize; tui_draw_frame() repaints every pane into its own
 * window with wnoutrefresh and ends with exactly one doupdate(). While
 * drawing, the position of every field is recorded (hits) so a mouse click
 * can be turned into "focus this field" or "pick this entry".
 *
 * All text goes through tui_put(), which clips to the pane and, in ASCII
 * mode, turns any non-ASCII character (from a catalog name or an
 * explanation) into '?', so that LANG=C output is pure ASCII.
 */
#ifndef VRAMLAB_TUI_DRAW_H
#define VRAMLAB_TUI_DRAW_H

#include <curses.h>
#include <stdbool.h>

#include "tui/layout.h"
#include "tui/state.h"
#include "tui/theme.h"

#define TUI_MAX_HITS 96

/* Where a field was drawn, in screen coordinates. */
struct tui_hit {
    enum tui_field field;
    int y, x, w;
};

struct tui_ui {
    struct tui_layout layout;
    WINDOW *title, *status;
    WINDOW *pane[TUI_PANE_COUNT];
    WINDOW *caption;     /* a lesson's caption bar, or NULL */
    WINDOW *big;         /* presentation mode's headline, or NULL */
    bool caption_inline; /* no room for the bar: the caption is on the title row */
    const struct tui_glyphs *g;
    bool mono;
    struct tui_hit hits[TUI_MAX_HITS];
    int n_hits;
    /* The open picker's list on screen: first row, columns, rows, first entry. */
    int pick_y, pick_x, pick_w, pick_rows;
    size_t pick_first;
    /* Help and explain: the most they can scroll and a page's lines (the
     * app copies them into the state after each frame). */
    unsigned overlay_max, overlay_page;
    size_t caption_pages; /* pages the lesson caption takes at this size */
};

/* A pane being drawn: its window, inner size, scroll offset for the
 * focused line, and whether it has focus. */
struct tui_pen {
    struct tui_ui *ui;
    const struct tui_state *st;
    WINDOW *w;
    enum tui_pane pane;
    int y0, x0;  /* screen position of the window */
    int ih, iw;  /* inner size */
    int offset;  /* first content line shown */
    bool focused;
};

/* Create the windows for a rows x cols screen (after a resize). */
void tui_ui_reflow(struct tui_ui *ui, const struct tui_state *st, int rows, int cols);
/* Delete all windows. */
void tui_ui_free(struct tui_ui *ui);
/* Paint everything and doupdate() once. */
void tui_draw_frame(struct tui_ui *ui, const struct tui_state *st);

/* The field at screen cell (y, x), or TUI_F_COUNT. */
enum tui_field tui_ui_hit_field(const struct tui_ui *ui, int y, int x);

/* ---- helpers shared by draw*.c ---------------------------------------- */

/* Put at most width columns of s at (y, x) of w with a role; returns the
 * columns written. */
int tui_put(const struct tui_ui *ui, WINDOW *w, int y, int x, int width, enum tui_role role,
            const char *s);
/* Display columns of a string (UTF-8 code points; ASCII mode: bytes ->
 * one '?' per code point). */
int tui_width(const char *s);
/* Content line i of a pen: the window row, or -1 when scrolled out. */
int tui_pen_row(const struct tui_pen *p, int line);
/* Draw a field's text at content line, column x (inner coordinates);
 * focused fields are highlighted, fields that do not apply are dim.
 * Returns the columns written. */
int tui_pen_field(struct tui_pen *p, int line, int x, enum tui_field f, const char *text);
/* Plain text at content line, column x; returns columns written. */
int tui_pen_text(struct tui_pen *p, int line, int x, enum tui_role role, const char *text);
/* A glyph repeated n times at content line, column x (one curses call);
 * returns the columns written. */
int tui_pen_repeat(struct tui_pen *p, int line, int x, int n, enum tui_role role,
                   const char *glyph);
/* Scroll so that content line `line` is visible. */
void tui_pen_show(struct tui_pen *p, int line);

/* Panes (draw_panes.c, draw_speed.c). */
void tui_draw_model(struct tui_pen *p);
void tui_draw_format(struct tui_pen *p);
void tui_draw_gpu(struct tui_pen *p);
void tui_draw_layout(struct tui_pen *p);
void tui_draw_memory(struct tui_pen *p);
void tui_draw_speed(struct tui_pen *p);
void tui_draw_roof(struct tui_pen *p);
void tui_draw_measure(struct tui_pen *p);
/* The Format pane's evidence lines from content line `line`: the seed's
 * Pythia-1.4B loss at the chosen width, per group and per matrix, and the
 * error lab's measured error when the session has one (draw_measure.c). */
void tui_draw_format_evidence(struct tui_pen *p, int line);
/* A stacked memory bar of e against capacity, width cells from column x0
 * of a content line (draw_panes.c). */
void tui_draw_bar(struct tui_pen *p, int line, int x0, int width, const struct engine_estimate *e);

/* The lecture kit's screens (draw_lecture.c). */
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

/* Overlays (draw_overlay.c). */
void tui_draw_overlay(struct tui_ui *ui, const struct tui_state *st);

/* Draw the border of a window (lines and corners) in a role's colour. */
void tui_draw_border(const struct tui_ui *ui, WINDOW *w, enum tui_role role);

#endif
