/*
 * paint.h: the lowest layer of the explorer's drawing: the windows of a
 * layout (struct tui_ui), a pane being drawn (struct tui_pen), and the
 * primitives every draw_*.c file uses: text clipped to a pane, display
 * widths, pens, borders.
 *
 * All text goes through tui_put(), which clips to the pane and, in ASCII
 * mode, turns any non-ASCII character (from a catalog name or an
 * explanation) into '?', so that LANG=C output is pure ASCII. Widths are
 * display cells: a wide (East Asian) character takes two, a combining mark
 * none, and in ASCII mode every character is one '?'.
 *
 * Layering (docs/architecture.md): paint.c uses only state, layout and
 * theme; the panes (draw_panes.c, draw_speed.c, draw_measure.c), the
 * lecture screens and the overlays use paint.h; draw.c, the frame, uses
 * them all and is used only by the app.
 */
#ifndef VRAMLAB_TUI_PAINT_H
#define VRAMLAB_TUI_PAINT_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

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
    int screen_rows, screen_cols; /* the screen the windows were made for */
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
    /* A lesson's question hides this pane's figures (issue 17): every
     * number its text and read-outs show is '?' (editable fields, the
     * question's inputs, stay), runs of a glyph (bars) show as the free
     * glyph over their whole width, and fit colours are neutral. */
    bool masked;
};

/* Copy s into out with every number ("141.3", "1,024", "19" of "19%")
 * replaced by one '?', so that neither the figure nor its digit count
 * shows; digits inside a name ("FP16", "H100", "g32") stay. */
void tui_mask_figures(const char *s, char *out, size_t len);
/* Display cells of s as a pen draws it (masked: with its numbers as '?'),
 * for placing what follows it: a hidden figure's width says nothing. */
int tui_pen_width(const struct tui_pen *p, const char *s);

/* A catalog name for room cells: the whole name when it fits, else without
 * its parenthesised note ("B300 (HGX, Blackwell Ultra)" -> "B300"), else
 * without its last words ("GeForce RTX 3060 12GB" -> "GeForce RTX 3060"):
 * never cut inside a word (a first word longer than room is returned as it
 * is, and tui_put marks its cut). Returns name or buf. */
const char *tui_fit_name(const char *name, int room, char *buf, size_t len);

/* Put at most width cells of s at (y, x) of w with a role; text longer
 * than width is cut short and ends with an ellipsis ("…", "..." in ASCII).
 * Returns the cells written. */
int tui_put(const struct tui_ui *ui, WINDOW *w, int y, int x, int width, enum tui_role role,
            const char *s);
/* Display cells of a string (wide characters two, combining marks none;
 * i18n_width). */
int tui_width(const char *s);
/* snprintf into buf, returning the display cells of the result (for
 * "does this form fit the pane": snprintf's count is bytes). */
int tui_printw(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Content line i of a pen: the window row, or -1 when scrolled out. */
int tui_pen_row(const struct tui_pen *p, int line);
/* Draw a field's text at content line, column x (inner coordinates);
 * focused fields are highlighted, fields that do not apply are dim.
 * Returns the columns written. */
int tui_pen_field(struct tui_pen *p, int line, int x, enum tui_field f, const char *text);
/* Whether the lesson step shown cites the figure or input field f shows
 * ({memory.kv_cache}, {scenario.context}): drawn in TUI_ROLE_CITED. */
bool tui_field_cited(const struct tui_state *st, enum tui_field f);
/* A figure that is not a field (the capacity, bits per weight) at content
 * line, column x: in role, or in TUI_ROLE_CITED while the lesson step
 * cites k. Returns the columns written. */
int tui_pen_figure(struct tui_pen *p, int line, int x, enum tui_role role, enum engine_key k,
                   const char *text);
/* Plain text at content line, column x; returns columns written. */
int tui_pen_text(struct tui_pen *p, int line, int x, enum tui_role role, const char *text);
/* A glyph repeated n times at content line, column x (one curses call);
 * returns the columns written. */
int tui_pen_repeat(struct tui_pen *p, int line, int x, int n, enum tui_role role,
                   const char *glyph);
/* Scroll so that content line `line` is visible. */
void tui_pen_show(struct tui_pen *p, int line);

/* Draw the border of a window (lines and corners) in a role's colour. */
void tui_draw_border(const struct tui_ui *ui, WINDOW *w, enum tui_role role);

#endif
