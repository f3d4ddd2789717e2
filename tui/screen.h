/*
 * screen.h: the explorer's screen without a terminal (issue 24): curses
 * started on /dev/null at a chosen size, a frame drawn exactly as the app
 * draws it (tui_ui_reflow, tui_draw_frame), and the screen curses believes
 * it wrote read back cell by cell (curscr): each cell's character, its
 * colours and attributes. `vramlab lesson export --format svg` turns it
 * into an SVG picture; the tests read it as text (every step of every
 * lesson, in each language, at 100x30 and 80x24, in a few seconds and
 * without tmux).
 *
 * One headless screen per process at a time; it owns curses while it is
 * open (nothing else may start curses then).
 */
#ifndef VRAMLAB_TUI_SCREEN_H
#define VRAMLAB_TUI_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tui/draw.h"

/* Attributes of a cell. */
enum {
    TUI_CELL_BOLD = 1u << 0,
    TUI_CELL_DIM = 1u << 1,
    TUI_CELL_UNDERLINE = 1u << 2,
    TUI_CELL_REVERSE = 1u << 3,
};

/* One cell: its character (UTF-8; "" for the right half of a wide one),
 * colours (curses colour numbers 0..255, -1 the terminal's default) and
 * attributes. */
struct tui_cell {
    char ch[8];
    short fg, bg;
    unsigned attr;
};

struct tui_screen {
    int rows, cols;
    struct tui_cell *cells; /* rows * cols */
};

/*
 * Start curses on /dev/null at rows x cols (TERM=xterm-256color, colours,
 * the dark scheme; UTF-8 glyphs when the locale's character set is UTF-8,
 * which it tries to make so: C.UTF-8). Returns 0, or -1 with a message.
 */
int tui_screen_open(int rows, int cols, char *err, size_t len);
/* Resize the headless screen (curses' resize_term). */
void tui_screen_resize(int rows, int cols);
/* Whether the open screen draws UTF-8 glyphs. */
bool tui_screen_utf8(void);
/* End curses and free what it held. */
void tui_screen_close(void);

/* Draw st as the app does (a fresh layout for the screen's size) and read
 * the screen back into s (allocated here; tui_screen_free). */
int tui_screen_draw(struct tui_state *st, struct tui_screen *s);
void tui_screen_free(struct tui_screen *s);

/* Row y as text (trailing spaces dropped) into buf; returns strlen(buf). */
size_t tui_screen_row(const struct tui_screen *s, int y, char *buf, size_t len);
/* The whole screen as text, one row per line. */
void tui_screen_text(const struct tui_screen *s, FILE *f);

/* The screen as an SVG picture: a monospace grid of cells, each run of one
 * colour and attribute a <text> (its background a <rect>), in the dark
 * scheme's xterm colours; title becomes the picture's <title>. */
void tui_screen_svg(const struct tui_screen *s, const char *title, FILE *f);

#endif
