/*
 * paint.c: the drawing primitives every pane uses (see paint.h): display
 * widths, text clipped to a window, pens over a pane's content lines,
 * borders.
 */
#include "config.h"

#include "tui/paint.h"

#include <stdio.h>
#include <string.h>

/* Bytes of the UTF-8 sequence starting with c (1 for stray bytes). */
static int utf8_len(unsigned char c) {
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0)
        return 2;
    if ((c & 0xf0) == 0xe0)
        return 3;
    if ((c & 0xf8) == 0xf0)
        return 4;
    return 1;
}

/* Display columns of a string: one per code point. */
int tui_width(const char *s) {
    int n = 0;
    while (*s) {
        int k = utf8_len((unsigned char)*s);
        for (int i = 1; i < k; i++)
            if (s[i] == '\0')
                return n + 1;
        s += k;
        n++;
    }
    return n;
}

/* Put at most width columns of s, sanitised for ASCII terminals. */
int tui_put(const struct tui_ui *ui, WINDOW *w, int y, int x, int width, enum tui_role role,
            const char *s) {
    int cols = 0, maxy, maxx;
    getmaxyx(w, maxy, maxx);
    if (y < 0 || y >= maxy || x < 0 || x >= maxx)
        return 0;
    if (width > maxx - x)
        width = maxx - x;
    wattrset(w, tui_attr(role));
    wmove(w, y, x);
    while (*s && cols < width) {
        int k = utf8_len((unsigned char)*s);
        bool whole = true;
        for (int i = 1; i < k; i++)
            if (s[i] == '\0')
                whole = false;
        if (!whole)
            break;
        if (k == 1 && (unsigned char)*s < 0x80) {
            waddch(w, (unsigned char)*s >= 32 ? (chtype)(unsigned char)*s : '?');
        } else if (ui->g->utf8) {
            waddnstr(w, s, k);
        } else {
            waddch(w, '?');
        }
        s += k;
        cols++;
    }
    wattrset(w, tui_attr(TUI_ROLE_NORMAL));
    return cols;
}

/* Window row of content line `line`, or -1 when scrolled out of view. */
int tui_pen_row(const struct tui_pen *p, int line) {
    int r = line - p->offset;
    if (r < 0 || r >= p->ih)
        return -1;
    return r + 1;
}

/* Scroll the pen so that a content line is visible. */
void tui_pen_show(struct tui_pen *p, int line) {
    if (line >= p->offset + p->ih)
        p->offset = line - p->ih + 1;
    if (line < p->offset)
        p->offset = line;
}

/* Plain text on a content line. */
int tui_pen_text(struct tui_pen *p, int line, int x, enum tui_role role, const char *text) {
    int row = tui_pen_row(p, line);
    if (row < 0 || x >= p->iw)
        return 0;
    return tui_put(p->ui, p->w, row, x + 1, p->iw - x, role, text);
}

/* A glyph repeated n times, written with one call. */
int tui_pen_repeat(struct tui_pen *p, int line, int x, int n, enum tui_role role,
                   const char *glyph) {
    char buf[1024];
    size_t gl = strlen(glyph), used = 0;
    if (n <= 0 || gl == 0)
        return 0;
    for (int i = 0; i < n && used + gl < sizeof(buf); i++) {
        memcpy(buf + used, glyph, gl);
        used += gl;
    }
    buf[used] = '\0';
    return tui_pen_text(p, line, x, role, buf);
}

/* A field's value on a content line, highlighted when focused; records
 * where it went for the mouse. */
int tui_pen_field(struct tui_pen *p, int line, int x, enum tui_field f, const char *text) {
    int row = tui_pen_row(p, line);
    enum tui_role role = TUI_ROLE_VALUE;
    if (!tui_field_applies(p->st, f))
        role = TUI_ROLE_DIM;
    else if (p->focused && p->st->focus[p->pane] == f)
        role = TUI_ROLE_FIELD_FOCUS;
    if (row < 0 || x >= p->iw)
        return 0;
    int n = tui_put(p->ui, p->w, row, x + 1, p->iw - x, role, text);
    struct tui_ui *ui = p->ui;
    if (ui->n_hits < TUI_MAX_HITS && n > 0) {
        ui->hits[ui->n_hits++] = (struct tui_hit){f, p->y0 + row, p->x0 + x + 1, n};
    }
    return n;
}

/* Draw the border of a window (lines and corners) in a role's colour. */
void tui_draw_border(const struct tui_ui *ui, WINDOW *w, enum tui_role role) {
    const struct tui_glyphs *g = ui->g;
    int h, wd;
    getmaxyx(w, h, wd);
    wattrset(w, tui_attr(role));
    for (int x = 1; x < wd - 1; x++) {
        mvwaddstr(w, 0, x, g->h);
        mvwaddstr(w, h - 1, x, g->h);
    }
    for (int y = 1; y < h - 1; y++) {
        mvwaddstr(w, y, 0, g->v);
        mvwaddstr(w, y, wd - 1, g->v);
    }
    mvwaddstr(w, 0, 0, g->tl);
    mvwaddstr(w, 0, wd - 1, g->tr);
    mvwaddstr(w, h - 1, 0, g->bl);
    mvwaddstr(w, h - 1, wd - 1, g->br);
}

