/*
 * layout.c: the pure layout function (see layout.h for the shapes).
 *
 * Invariants, checked by tests/test_layout.c at every size from 1x1 to
 * 300x120: every visible rectangle lies inside the screen, no two visible
 * rectangles overlap, and each visible pane has at least
 * TUI_PANE_MIN_INNER_W x TUI_PANE_MIN_INNER_H cells inside its border.
 * Heights: the input row needs 5 content lines (the Layout pane's), the
 * memory pane 3 (bar, legend, verdict); Speed and Roofline take the rest.
 */
#include "config.h"

#include "tui/layout.h"

#include <string.h>

/* Set a rectangle and make it visible. */
static void rect_set(struct tui_rect *r, int y, int x, int h, int w) {
    r->y = y;
    r->x = x;
    r->h = h;
    r->w = w;
    r->visible = h > 0 && w > 0;
}

/* The full layout: everything on screen at once. */
static void layout_full(int rows, int cols, struct tui_layout *l) {
    int top_h = rows >= 34 ? 8 : 7;
    int mem_h = rows >= 28 ? 6 : 5;
    int meas_h = rows >= 28 ? 4 : 3; /* 4: the measured rates get a line */
    int y = 1;

    /* Four input panes, weighted so the Format line fits at 80 columns. */
    int wm = cols * 26 / 100, wf = cols * 24 / 100, wg = cols * 24 / 100;
    int wl = cols - wm - wf - wg;
    rect_set(&l->pane[TUI_PANE_MODEL], y, 0, top_h, wm);
    rect_set(&l->pane[TUI_PANE_FORMAT], y, wm, top_h, wf);
    rect_set(&l->pane[TUI_PANE_GPU], y, wm + wf, top_h, wg);
    rect_set(&l->pane[TUI_PANE_LAYOUT], y, wm + wf + wg, top_h, wl);
    y += top_h;

    rect_set(&l->pane[TUI_PANE_MEMORY], y, 0, mem_h, cols);
    y += mem_h;

    int speed_h = rows - 1 - meas_h - y;
    int ws = cols * 48 / 100;
    rect_set(&l->pane[TUI_PANE_SPEED], y, 0, speed_h, ws);
    rect_set(&l->pane[TUI_PANE_ROOF], y, ws, speed_h, cols - ws);
    y += speed_h;
    rect_set(&l->pane[TUI_PANE_MEASURE], y, 0, meas_h, cols);
    rect_set(&l->status, rows - 1, 0, 1, cols);
}

/* The compact layout: one input pane, memory and speed, stacked. */
static void layout_compact(int rows, int cols, enum tui_pane shown, struct tui_layout *l) {
    bool status = rows >= 14;
    int avail = rows - 1 - (status ? 1 : 0);
    /* Minimums: input 4, memory 4 (bar, verdict), speed 3; spare rows go
     * to the input pane (up to its 5 lines), memory, then speed. */
    int in_h = 4 + (avail >= 14) + (avail >= 18) + (avail >= 20);
    int mem_h = 4 + (avail >= 15);
    int speed_h = avail - in_h - mem_h;
    if ((unsigned)shown >= TUI_INPUT_PANES)
        shown = TUI_PANE_MODEL;

    rect_set(&l->pane[shown], 1, 0, in_h, cols);
    rect_set(&l->pane[TUI_PANE_MEMORY], 1 + in_h, 0, mem_h, cols);
    rect_set(&l->pane[TUI_PANE_SPEED], 1 + in_h + mem_h, 0, speed_h, cols);
    if (status)
        rect_set(&l->status, rows - 1, 0, 1, cols);
}

/* Compute the layout of a rows x cols screen. */
void tui_layout_compute(int rows, int cols, enum tui_pane shown_input, struct tui_layout *out) {
    memset(out, 0, sizeof(*out));
    out->rows = rows;
    out->cols = cols;
    if (rows < TUI_MIN_ROWS || cols < TUI_MIN_COLS) {
        out->kind = TUI_LAYOUT_TOO_SMALL;
        return;
    }
    rect_set(&out->title, 0, 0, 1, cols);
    if (rows >= TUI_FULL_ROWS && cols >= TUI_FULL_COLS) {
        out->kind = TUI_LAYOUT_FULL;
        layout_full(rows, cols, out);
    } else {
        out->kind = TUI_LAYOUT_COMPACT;
        layout_compact(rows, cols, shown_input, out);
    }
}

/* Give the Measure pane the rows of Speed and Roofline (the full layout
 * only; the explorer does this while the focused pane has results). */
void tui_layout_grow_measure(struct tui_layout *l) {
    struct tui_rect *sp = &l->pane[TUI_PANE_SPEED], *me = &l->pane[TUI_PANE_MEASURE];
    l->measure_grown = true; /* asked for, even where it cannot apply */
    if (l->kind != TUI_LAYOUT_FULL || !sp->visible || !me->visible)
        return;
    rect_set(me, sp->y, me->x, me->y + me->h - sp->y, me->w);
    l->pane[TUI_PANE_SPEED].visible = false;
    l->pane[TUI_PANE_ROOF].visible = false;
}

/* Whether two visible rectangles share a cell. */
bool tui_rect_overlap(const struct tui_rect *a, const struct tui_rect *b) {
    if (!a->visible || !b->visible)
        return false;
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

/* The visible pane that contains screen cell (y, x), or -1. */
int tui_layout_hit(const struct tui_layout *l, int y, int x) {
    for (int p = 0; p < TUI_PANE_COUNT; p++) {
        const struct tui_rect *r = &l->pane[p];
        if (r->visible && y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w)
            return p;
    }
    return -1;
}
