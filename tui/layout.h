/*
 * layout.h: where each pane goes, as a pure function of the terminal size
 * and of which input pane is shown (no curses here; tested by properties).
 *
 * Full layout from 80x24: a title row, four input panes side by side
 * (Model, Format, GPU, Layout), the Memory pane across, Speed and Roofline
 * side by side, Measure across, a status row.
 * Compact layout from 40x12: the title row, one input pane (the focused
 * one), Memory, Speed; the status row when there is room.
 * Below 40x12: nothing but a "terminal too small" notice.
 */
#ifndef VRAMLAB_TUI_LAYOUT_H
#define VRAMLAB_TUI_LAYOUT_H

#include <stdbool.h>

#define TUI_MIN_ROWS 12
#define TUI_MIN_COLS 40
#define TUI_FULL_ROWS 24
#define TUI_FULL_COLS 80

enum tui_pane {
    TUI_PANE_MODEL = 0,
    TUI_PANE_FORMAT,
    TUI_PANE_GPU,
    TUI_PANE_LAYOUT,
    TUI_PANE_MEMORY,
    TUI_PANE_SPEED,
    TUI_PANE_ROOF,
    TUI_PANE_MEASURE,
    TUI_PANE_COUNT
};
#define TUI_INPUT_PANES 4 /* Model, Format, GPU, Layout come first */

struct tui_rect {
    int y, x, h, w;
    bool visible;
};

enum tui_layout_kind { TUI_LAYOUT_TOO_SMALL = 0, TUI_LAYOUT_COMPACT, TUI_LAYOUT_FULL };

struct tui_layout {
    enum tui_layout_kind kind;
    int rows, cols;
    struct tui_rect title;  /* one row */
    struct tui_rect status; /* one row; may be invisible in compact */
    struct tui_rect pane[TUI_PANE_COUNT];
    bool measure_grown; /* tui_layout_grow_measure was called (Measure over Speed, Roofline) */
};

/* Compute the layout of a rows x cols screen; shown_input is the input pane
 * the compact layout shows (ignored by the full one). */
void tui_layout_compute(int rows, int cols, enum tui_pane shown_input, struct tui_layout *out);

/* Give the Measure pane the rows of Speed and Roofline, which are hidden
 * (the full layout only; a no-op otherwise). */
void tui_layout_grow_measure(struct tui_layout *l);

/* The smallest inner size (inside the border) a visible pane gets. */
#define TUI_PANE_MIN_INNER_W 8
#define TUI_PANE_MIN_INNER_H 1

/* Whether two rectangles overlap. */
bool tui_rect_overlap(const struct tui_rect *a, const struct tui_rect *b);

/* The pane at screen cell (y, x), or -1. */
int tui_layout_hit(const struct tui_layout *l, int y, int x);

#endif
