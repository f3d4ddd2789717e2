/*
 * paint.c: the drawing primitives every pane uses (see paint.h): display
 * widths, text clipped to a window, pens over a pane's content lines,
 * borders.
 */
#include "config.h"

#include "tui/paint.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tui/i18n.h"

/* Display cells of a string (i18n_width: wide characters two, combining
 * marks none). */
int tui_width(const char *s) {
    return i18n_width(s);
}

/* Cells one character takes as drawn: in ASCII mode every character that
 * is not ASCII is one '?' (a zero-width one is left out). */
static int put_cells(const struct tui_ui *ui, unsigned cp) {
    int cw = i18n_cp_width(cp);
    if (cp >= 0x80 && !ui->g->utf8)
        return cw > 0 ? 1 : 0;
    return cw;
}

/* Put at most width cells of s, sanitised for ASCII terminals; text that
 * does not fit is cut short and ends with an ellipsis. */
int tui_put(const struct tui_ui *ui, WINDOW *w, int y, int x, int width, enum tui_role role,
            const char *s) {
    int cols = 0, maxy, maxx, total = 0;
    getmaxyx(w, maxy, maxx);
    if (y < 0 || y >= maxy || x < 0 || x >= maxx || width <= 0)
        return 0;
    if (width > maxx - x)
        width = maxx - x;
    /* Cells up to the last character that is not a space: trailing blanks
     * that do not fit are clipped, not marked as cut. */
    int pos = 0;
    for (const char *t = s; *t;) {
        unsigned cp;
        t += i18n_utf8_next(t, &cp);
        pos += put_cells(ui, cp);
        if (cp != ' ')
            total = pos;
    }
    /* A cut is marked when the mark fits ("..." takes three cells in ASCII). */
    int ew = tui_width(ui->g->ellipsis);
    bool cut = total > width && width > ew;
    int room = cut ? width - ew : width;
    wattrset(w, tui_attr(role));
    wmove(w, y, x);
    while (*s) {
        unsigned cp;
        int k = i18n_utf8_next(s, &cp), cw = put_cells(ui, cp);
        if (cols + cw > room)
            break;
        if (cp < 0x80) {
            waddch(w, cp >= 32 && cp != 127 ? (chtype)cp : '?');
        } else if (ui->g->utf8 && cp != 0xfffd) {
            waddnstr(w, s, k);
        } else if (cw > 0) {
            waddch(w, '?');
        }
        s += k;
        cols += cw;
    }
    if (cut) {
        waddstr(w, ui->g->ellipsis);
        cols += ew;
    }
    wattrset(w, tui_attr(TUI_ROLE_NORMAL));
    return cols;
}

/* A name that fits room cells (see paint.h). */
const char *tui_fit_name(const char *name, int room, char *buf, size_t len) {
    if (tui_width(name) <= room || len == 0)
        return name;
    snprintf(buf, len, "%s", name);
    char *par = strstr(buf, " (");
    if (par && par > buf) {
        *par = '\0';
        if (tui_width(buf) <= room)
            return buf;
    }
    /* Drop words from the end; the first word stays. */
    for (;;) {
        char *sp = strrchr(buf, ' ');
        if (!sp || sp == buf)
            break;
        *sp = '\0';
        while (sp > buf && (sp[-1] == ',' || sp[-1] == ' ')) /* no dangling comma */
            *--sp = '\0';
        if (tui_width(buf) <= room)
            return buf;
    }
    return buf;
}

/* Print into buf (as snprintf) and return the display cells of the
 * result: what fitting text into a pane compares (snprintf counts bytes,
 * and a '·' is two of them). */
int tui_printw(char *buf, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return tui_width(buf);
}

/* Replace every number of s by '?' (see paint.h). */
void tui_mask_figures(const char *s, char *out, size_t len) {
    size_t n = 0;
    bool word = false; /* inside a name: "FP16", "g32", "llama-3.1-70b" */
    if (len == 0)
        return;
    while (*s && n + 1 < len) {
        unsigned char c = (unsigned char)*s;
        bool digit = c >= '0' && c <= '9';
        if (digit && !word) {
            /* The number: digits, and a decimal mark or thousands
             * separator between digits. */
            while ((*s >= '0' && *s <= '9') ||
                   ((*s == '.' || *s == ',') && s[1] >= '0' && s[1] <= '9'))
                s++;
            out[n++] = '?';
            continue;
        }
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
            word = true;
        else if (!digit && !(word && (c == '-' || c == '.') && s[1] >= '0' && s[1] <= '9'))
            word = false;
        out[n++] = (char)c;
        s++;
    }
    out[n] = '\0';
}

/* Cells of s as the pen draws it (see paint.h). */
int tui_pen_width(const struct tui_pen *p, const char *s) {
    if (!p->masked)
        return tui_width(s);
    char buf[1024];
    tui_mask_figures(s, buf, sizeof(buf));
    return tui_width(buf);
}

/* A role that does not say whether it fits (a hidden pane's). */
static enum tui_role mask_role(enum tui_role r) {
    switch (r) {
    case TUI_ROLE_GOOD:
    case TUI_ROLE_BAD:
    case TUI_ROLE_WARN:
    case TUI_ROLE_BINDING:
        return TUI_ROLE_LABEL;
    default:
        return r;
    }
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
    if (p->masked) {
        char buf[1024];
        tui_mask_figures(text, buf, sizeof(buf));
        return tui_put(p->ui, p->w, row, x + 1, p->iw - x, mask_role(role), buf);
    }
    return tui_put(p->ui, p->w, row, x + 1, p->iw - x, role, text);
}

/* A glyph repeated n times, written with one call. */
int tui_pen_repeat(struct tui_pen *p, int line, int x, int n, enum tui_role role,
                   const char *glyph) {
    char buf[1024];
    size_t gl = strlen(glyph), used = 0;
    if (n > p->iw - x) /* a run of glyphs is clipped, never cut with an ellipsis */
        n = p->iw - x;
    if (n <= 0 || gl == 0)
        return 0;
    if (p->masked) { /* a bar's parts would show its lengths */
        glyph = p->ui->g->free;
        gl = strlen(glyph);
        role = TUI_ROLE_FREE;
    }
    for (int i = 0; i < n && used + gl < sizeof(buf); i++) {
        memcpy(buf + used, glyph, gl);
        used += gl;
    }
    buf[used] = '\0';
    return tui_pen_text(p, line, x, role, buf);
}

/* The figure a field shows: a read-out's is the one it explains
 * (tui_field_key); the model's name and size show the parameters; the other
 * inputs show none (ENGINE_KEY_COUNT: their value is a scenario input). */
static enum engine_key field_figure(const struct tui_state *st, enum tui_field f) {
    if (f == TUI_F_MODEL || f == TUI_F_SIZE)
        return ENGINE_KEY_PARAMS_TOTAL;
    if (f >= TUI_F_MEM_WEIGHTS && f < TUI_F_MEASURE)
        return (enum engine_key)tui_field_key(st, f);
    return ENGINE_KEY_COUNT;
}

/* The scenario input an input field edits ({scenario.context}), or -1. */
static int field_input(enum tui_field f) {
    static const struct {
        enum tui_field f;
        const char *path;
    } map[] = {
        {TUI_F_MODEL, "scenario.model"},     {TUI_F_WFORMAT, "scenario.format"},
        {TUI_F_KVFORMAT, "scenario.kv_format"}, {TUI_F_GPU, "scenario.gpu"},
        {TUI_F_GPUS, "scenario.gpus"},       {TUI_F_BATCH, "scenario.batch"},
        {TUI_F_CONTEXT, "scenario.context"}, {TUI_F_TP, "scenario.tp"},
        {TUI_F_PP, "scenario.pp"},           {TUI_F_DP, "scenario.dp"},
        {TUI_F_ZERO, "scenario.zero"},       {TUI_F_MICRO, "scenario.micro_batches"},
        {TUI_F_EP, "scenario.ep"},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (map[i].f == f)
            return lesson_input_find(map[i].path, strlen(map[i].path));
    return -1;
}

/* Whether a lesson step cites what field f shows (see state.h). */
bool tui_field_cited(const struct tui_state *st, enum tui_field f) {
    enum engine_key k = field_figure(st, f);
    return (k < ENGINE_KEY_COUNT && tui_lecture_cites(&st->lx, k)) ||
           tui_lecture_cites_input(&st->lx, field_input(f));
}

/* A figure the lesson step cites, in the cited role (see paint.h). */
int tui_pen_figure(struct tui_pen *p, int line, int x, enum tui_role role, enum engine_key k,
                   const char *text) {
    if (!p->masked && tui_lecture_cites(&p->st->lx, k))
        role = TUI_ROLE_CITED;
    return tui_pen_text(p, line, x, role, text);
}

/* A field's value on a content line, highlighted when focused (or cited
 * by the lesson step shown); records where it went for the mouse. */
int tui_pen_field(struct tui_pen *p, int line, int x, enum tui_field f, const char *text) {
    int row = tui_pen_row(p, line);
    enum tui_role role = TUI_ROLE_VALUE;
    if (!tui_field_applies(p->st, f))
        role = TUI_ROLE_DIM;
    else if (p->focused && p->st->focus[p->pane] == f)
        role = TUI_ROLE_FIELD_FOCUS;
    else if (!p->masked && tui_field_cited(p->st, f))
        role = TUI_ROLE_CITED;
    if (row < 0 || x >= p->iw)
        return 0;
    char buf[512];
    if (p->masked && f >= TUI_F_MEM_WEIGHTS) { /* a read-out, not an input */
        tui_mask_figures(text, buf, sizeof(buf));
        text = buf;
    }
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

