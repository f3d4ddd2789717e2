/*
 * test_layout.c: the explorer's layout as a pure function, checked by
 * properties at every size from 1x1 to 300x120 and for every input pane
 * the compact layout can show (nvtop's approach): visible rectangles lie
 * inside the screen, never overlap, and every visible pane has room inside
 * its border; the kind of layout follows the documented thresholds.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "tui/layout.h"

/* Whether a visible rectangle lies inside the screen. */
static bool inside(const struct tui_rect *r, int rows, int cols) {
    return !r->visible || (r->y >= 0 && r->x >= 0 && r->y + r->h <= rows && r->x + r->w <= cols);
}

/* Every visible rectangle of a layout, title and status included. */
static int rects(const struct tui_layout *l, const struct tui_rect *out[TUI_PANE_COUNT + 2]) {
    int n = 0;
    out[n++] = &l->title;
    out[n++] = &l->status;
    for (int p = 0; p < TUI_PANE_COUNT; p++)
        out[n++] = &l->pane[p];
    return n;
}

Test(layout, inside_the_screen_at_every_size) {
    struct tui_layout l;
    const struct tui_rect *r[TUI_PANE_COUNT + 2];
    for (int rows = 1; rows <= 120; rows++)
        for (int cols = 1; cols <= 300; cols++)
            for (int shown = 0; shown < TUI_INPUT_PANES; shown++) {
                tui_layout_compute(rows, cols, (enum tui_pane)shown, &l);
                int n = rects(&l, r);
                for (int i = 0; i < n; i++)
                    cr_assert(inside(r[i], rows, cols), "rect %d outside at %dx%d", i, cols,
                              rows);
            }
}

Test(layout, no_two_rectangles_overlap) {
    struct tui_layout l;
    const struct tui_rect *r[TUI_PANE_COUNT + 2];
    for (int rows = 1; rows <= 120; rows++)
        for (int cols = 1; cols <= 300; cols += (cols < 100 ? 1 : 7))
            for (int shown = 0; shown < TUI_INPUT_PANES; shown++) {
                tui_layout_compute(rows, cols, (enum tui_pane)shown, &l);
                int n = rects(&l, r);
                for (int i = 0; i < n; i++)
                    for (int j = i + 1; j < n; j++)
                        cr_assert(!tui_rect_overlap(r[i], r[j]), "%d and %d overlap at %dx%d",
                                  i, j, cols, rows);
            }
}

Test(layout, every_visible_pane_has_room_inside) {
    struct tui_layout l;
    for (int rows = TUI_MIN_ROWS; rows <= 120; rows++)
        for (int cols = TUI_MIN_COLS; cols <= 300; cols++)
            for (int shown = 0; shown < TUI_INPUT_PANES; shown++) {
                tui_layout_compute(rows, cols, (enum tui_pane)shown, &l);
                int visible = 0;
                for (int p = 0; p < TUI_PANE_COUNT; p++) {
                    const struct tui_rect *r = &l.pane[p];
                    if (!r->visible)
                        continue;
                    visible++;
                    cr_assert_geq(r->h - 2, TUI_PANE_MIN_INNER_H, "pane %d at %dx%d", p, cols,
                                  rows);
                    cr_assert_geq(r->w - 2, TUI_PANE_MIN_INNER_W, "pane %d at %dx%d", p, cols,
                                  rows);
                }
                cr_assert_geq(visible, 3);
                cr_assert(l.title.visible);
            }
}

Test(layout, kind_follows_the_thresholds) {
    struct tui_layout l;
    tui_layout_compute(11, 200, TUI_PANE_MODEL, &l);
    cr_assert_eq(l.kind, TUI_LAYOUT_TOO_SMALL);
    tui_layout_compute(60, 39, TUI_PANE_MODEL, &l);
    cr_assert_eq(l.kind, TUI_LAYOUT_TOO_SMALL);
    tui_layout_compute(8, 20, TUI_PANE_MODEL, &l);
    cr_assert_eq(l.kind, TUI_LAYOUT_TOO_SMALL);
    for (int p = 0; p < TUI_PANE_COUNT; p++)
        cr_assert(!l.pane[p].visible, "nothing is drawn when too small");
    tui_layout_compute(12, 40, TUI_PANE_MODEL, &l);
    cr_assert_eq(l.kind, TUI_LAYOUT_COMPACT);
    tui_layout_compute(23, 200, TUI_PANE_MODEL, &l);
    cr_assert_eq(l.kind, TUI_LAYOUT_COMPACT);
    tui_layout_compute(24, 80, TUI_PANE_MODEL, &l);
    cr_assert_eq(l.kind, TUI_LAYOUT_FULL);
    tui_layout_compute(30, 100, TUI_PANE_MODEL, &l);
    cr_assert_eq(l.kind, TUI_LAYOUT_FULL);
}

Test(layout, full_layout_shows_every_pane) {
    struct tui_layout l;
    for (int rows = TUI_FULL_ROWS; rows <= 120; rows += 3)
        for (int cols = TUI_FULL_COLS; cols <= 300; cols += 5) {
            tui_layout_compute(rows, cols, TUI_PANE_GPU, &l);
            for (int p = 0; p < TUI_PANE_COUNT; p++)
                cr_assert(l.pane[p].visible, "pane %d hidden at %dx%d", p, cols, rows);
            cr_assert(l.status.visible);
        }
}

Test(layout, compact_shows_the_chosen_input_pane_only) {
    struct tui_layout l;
    for (int shown = 0; shown < TUI_INPUT_PANES; shown++) {
        tui_layout_compute(16, 60, (enum tui_pane)shown, &l);
        for (int p = 0; p < TUI_INPUT_PANES; p++)
            cr_assert_eq(l.pane[p].visible, p == shown);
        cr_assert(l.pane[TUI_PANE_MEMORY].visible);
        cr_assert(l.pane[TUI_PANE_SPEED].visible);
    }
}

Test(layout, full_layout_covers_every_cell) {
    /* No stale cells: title, panes and status tile the whole screen. */
    struct tui_layout l;
    static unsigned char seen[120][300];
    for (int rows = TUI_FULL_ROWS; rows <= 120; rows += 7)
        for (int cols = TUI_FULL_COLS; cols <= 300; cols += 11) {
            memset(seen, 0, sizeof(seen));
            tui_layout_compute(rows, cols, TUI_PANE_MODEL, &l);
            const struct tui_rect *r[TUI_PANE_COUNT + 2];
            int n = rects(&l, r);
            for (int i = 0; i < n; i++)
                for (int y = r[i]->y; r[i]->visible && y < r[i]->y + r[i]->h; y++)
                    for (int x = r[i]->x; x < r[i]->x + r[i]->w; x++)
                        seen[y][x] = 1;
            for (int y = 0; y < rows; y++)
                for (int x = 0; x < cols; x++)
                    cr_assert(seen[y][x], "cell %d,%d uncovered at %dx%d", x, y, cols, rows);
        }
}

Test(layout, hit_finds_the_pane_under_a_cell) {
    struct tui_layout l;
    tui_layout_compute(30, 100, TUI_PANE_MODEL, &l);
    for (int p = 0; p < TUI_PANE_COUNT; p++) {
        const struct tui_rect *r = &l.pane[p];
        cr_assert_eq(tui_layout_hit(&l, r->y + r->h / 2, r->x + r->w / 2), p);
    }
    cr_assert_eq(tui_layout_hit(&l, 0, 5), -1, "the title row is no pane");
}

Test(layout, grown_measure_pane_tiles_where_speed_and_roofline_were) {
    /* tui_layout_grow_measure: inside the screen, no overlap, every cell
     * covered, Measure taller, Speed and Roofline hidden; a no-op (but
     * recorded) in the compact layout and when too small. */
    struct tui_layout l, g;
    static unsigned char seen[120][300];
    const struct tui_rect *r[TUI_PANE_COUNT + 2];
    for (int rows = 1; rows <= 120; rows += 3)
        for (int cols = 1; cols <= 300; cols += 13) {
            tui_layout_compute(rows, cols, TUI_PANE_MODEL, &l);
            g = l;
            tui_layout_grow_measure(&g);
            cr_assert(g.measure_grown);
            if (l.kind != TUI_LAYOUT_FULL) {
                cr_assert_eq(memcmp(g.pane, l.pane, sizeof(l.pane)), 0, "%dx%d", cols, rows);
                continue;
            }
            cr_assert_not(g.pane[TUI_PANE_SPEED].visible);
            cr_assert_not(g.pane[TUI_PANE_ROOF].visible);
            cr_assert_gt(g.pane[TUI_PANE_MEASURE].h, l.pane[TUI_PANE_MEASURE].h);
            memset(seen, 0, sizeof(seen));
            int n = rects(&g, r);
            for (int i = 0; i < n; i++) {
                cr_assert(inside(r[i], rows, cols), "rect %d outside at %dx%d", i, cols, rows);
                for (int j = i + 1; j < n; j++)
                    cr_assert(!tui_rect_overlap(r[i], r[j]), "%d, %d at %dx%d", i, j, cols, rows);
                for (int y = r[i]->y; r[i]->visible && y < r[i]->y + r[i]->h; y++)
                    for (int x = r[i]->x; x < r[i]->x + r[i]->w; x++)
                        seen[y][x] = 1;
            }
            for (int y = 0; y < rows; y++)
                for (int x = 0; x < cols; x++)
                    cr_assert(seen[y][x], "cell %d,%d uncovered at %dx%d", x, y, cols, rows);
        }
}
