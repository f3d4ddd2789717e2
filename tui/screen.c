/*
 * screen.c: the explorer's screen without a terminal (see screen.h).
 *
 * curses runs on /dev/null: every frame is drawn and sent as usual (to
 * nowhere), and curscr, curses' picture of the terminal, is what the
 * terminal would show. Reading it back cell by cell gives the screen
 * model: characters (wide ones take two cells), colour pairs turned back
 * into colours, attributes.
 */
#include "config.h"

#include "tui/screen.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui/i18n.h"
#include "tui/theme.h"

static SCREEN *scr;
static FILE *scr_out, *scr_in;
static struct tui_ui scr_ui;
static bool scr_utf8;

/* Whether the C library's character set is UTF-8 now. */
static bool codeset_utf8(void) {
    const char *cs = nl_langinfo(CODESET);
    return cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
}

int tui_screen_open(int rows, int cols, char *err, size_t len) {
    char n[16];
    if (scr) {
        snprintf(err, len, "%s", _("a headless screen is open already"));
        return -1;
    }
    /* UTF-8 glyphs where the system has a UTF-8 locale. */
    if (!codeset_utf8())
        setlocale(LC_CTYPE, "C.UTF-8");
    scr_utf8 = codeset_utf8();
    snprintf(n, sizeof(n), "%d", rows);
    setenv("LINES", n, 1);
    snprintf(n, sizeof(n), "%d", cols);
    setenv("COLUMNS", n, 1);
    scr_out = fopen("/dev/null", "w");
    scr_in = fopen("/dev/null", "r");
    if (!scr_out || !scr_in) {
        snprintf(err, len, "%s", _("cannot open /dev/null"));
        tui_screen_close();
        return -1;
    }
    scr = newterm("xterm-256color", scr_out, scr_in);
    if (!scr) {
        snprintf(err, len, "%s", _("curses cannot start (no xterm-256color in the terminfo database)"));
        tui_screen_close();
        return -1;
    }
    start_color();
    use_default_colors();
    tui_theme_init(TUI_SCHEME_DARK);
    memset(&scr_ui, 0, sizeof(scr_ui));
    scr_ui.g = tui_glyphs_get(scr_utf8);
    resize_term(rows, cols);
    return 0;
}

void tui_screen_resize(int rows, int cols) {
    if (scr)
        resize_term(rows, cols);
}

bool tui_screen_utf8(void) {
    return scr_utf8;
}

void tui_screen_close(void) {
    if (scr) {
        tui_ui_free(&scr_ui);
        endwin();
        delscreen(scr);
        scr = NULL;
    }
    if (scr_out)
        fclose(scr_out);
    if (scr_in)
        fclose(scr_in);
    scr_out = scr_in = NULL;
}

/* Encode one code point as UTF-8 into out (at least 5 bytes). */
static void utf8_put(unsigned cp, char *out) {
    if (cp < 0x80) {
        out[0] = (char)cp, out[1] = '\0';
    } else if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6), out[1] = (char)(0x80 | (cp & 0x3f)), out[2] = '\0';
    } else if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12), out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f)), out[3] = '\0';
    } else {
        out[0] = (char)(0xf0 | cp >> 18), out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), out[3] = (char)(0x80 | (cp & 0x3f));
        out[4] = '\0';
    }
}

int tui_screen_draw(struct tui_state *st, struct tui_screen *s) {
    int rows = LINES, cols = COLS;
    memset(s, 0, sizeof(*s));
    if (!scr)
        return -1;
    werase(stdscr);
    wnoutrefresh(stdscr);
    /* As the app's loop: the layout for this size, compact follows it. */
    tui_ui_reflow(&scr_ui, st, rows, cols);
    st->compact = scr_ui.layout.kind == TUI_LAYOUT_COMPACT;
    if (st->compact && (st->focus_pane == TUI_PANE_ROOF || st->focus_pane == TUI_PANE_MEASURE))
        st->focus_pane = TUI_PANE_SPEED;
    tui_draw_frame(&scr_ui, st);
    st->overlay_scroll_max = scr_ui.overlay_max;
    st->overlay_page = scr_ui.overlay_page;
    st->lx.caption_pages = scr_ui.caption_pages;
    s->cells = calloc((size_t)rows * (size_t)cols, sizeof(*s->cells));
    if (!s->cells)
        return -1;
    s->rows = rows;
    s->cols = cols;
    for (int y = 0; y < rows; y++) {
        for (int x = 0; x < cols; x++) {
            struct tui_cell *c = &s->cells[y * cols + x];
            cchar_t cc;
            wchar_t wc[CCHARW_MAX + 1] = {0};
            attr_t a = 0;
            short pair = 0, fg = -1, bg = -1;
            c->fg = c->bg = -1;
            if (mvwin_wch(curscr, y, x, &cc) == ERR || getcchar(&cc, wc, &a, &pair, NULL) == ERR) {
                snprintf(c->ch, sizeof(c->ch), " ");
                continue;
            }
            if (pair > 0 && pair_content(pair, &fg, &bg) != ERR)
                c->fg = fg, c->bg = bg;
            c->attr = (a & A_BOLD ? TUI_CELL_BOLD : 0) | (a & A_DIM ? TUI_CELL_DIM : 0) |
                      (a & A_UNDERLINE ? TUI_CELL_UNDERLINE : 0) |
                      (a & A_REVERSE ? TUI_CELL_REVERSE : 0);
            utf8_put(wc[0] ? (unsigned)wc[0] : ' ', c->ch);
            int w = wc[0] ? wcwidth(wc[0]) : 1;
            if (w == 2 && x + 1 < cols) { /* the right half of a wide character */
                struct tui_cell *r = &s->cells[y * cols + x + 1];
                *r = *c;
                r->ch[0] = '\0';
                x++;
            }
        }
    }
    return 0;
}

void tui_screen_free(struct tui_screen *s) {
    free(s->cells);
    memset(s, 0, sizeof(*s));
}

size_t tui_screen_row(const struct tui_screen *s, int y, char *buf, size_t len) {
    size_t n = 0, keep = 0;
    if (len == 0)
        return 0;
    for (int x = 0; y >= 0 && y < s->rows && x < s->cols; x++) {
        const char *ch = s->cells[y * s->cols + x].ch;
        size_t cl = strlen(ch);
        if (n + cl + 1 > len)
            break;
        memcpy(buf + n, ch, cl);
        n += cl;
        if (strcmp(ch, " ") != 0)
            keep = n;
    }
    buf[keep] = '\0';
    return keep;
}

void tui_screen_text(const struct tui_screen *s, FILE *f) {
    char line[4096];
    for (int y = 0; y < s->rows; y++) {
        tui_screen_row(s, y, line, sizeof(line));
        fprintf(f, "%s\n", line);
    }
}

/* ---- SVG --------------------------------------------------------------------- */

/* The terminal's default colours in the picture (a dark terminal). */
#define SVG_BG "#1c1c1c"
#define SVG_FG "#d0d0d0"
#define CELL_W 9.6
#define CELL_H 20.0
#define FONT_PX 16

/* xterm's colour n as #rrggbb. */
static void xterm_rgb(int n, char out[8]) {
    static const char *const base[16] = {
        "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
        "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
    };
    if (n < 0) {
        snprintf(out, 8, "%s", SVG_FG);
    } else if (n < 16) {
        snprintf(out, 8, "%s", base[n]);
    } else if (n < 232) {
        static const unsigned char lv[6] = {0, 95, 135, 175, 215, 255};
        n -= 16;
        snprintf(out, 8, "#%02x%02x%02x", lv[n / 36 % 6], lv[n / 6 % 6], lv[n % 6]);
    } else {
        unsigned g = (unsigned)(8 + (n < 256 ? n - 232 : 23) * 10) & 0xffu;
        snprintf(out, 8, "#%02x%02x%02x", g, g, g);
    }
}

/* A cell's colours as drawn: reverse swaps them, bold brightens the eight
 * basic foreground colours (as most terminals do). */
static void cell_colours(const struct tui_cell *c, char fg[8], char bg[8], bool *has_bg) {
    int f = c->fg, b = c->bg;
    if ((c->attr & TUI_CELL_BOLD) && f >= 0 && f < 8)
        f += 8;
    if (c->attr & TUI_CELL_REVERSE) {
        int t = f;
        f = b;
        b = t;
        xterm_rgb(f, fg);
        if (f < 0)
            snprintf(fg, 8, "%s", SVG_BG);
        xterm_rgb(b, bg);
        *has_bg = true;
        return;
    }
    xterm_rgb(f, fg);
    xterm_rgb(b, bg);
    *has_bg = b >= 0;
}

/* Whether two cells draw alike (one run). */
static bool same_style(const struct tui_cell *a, const struct tui_cell *b) {
    return a->fg == b->fg && a->bg == b->bg && a->attr == b->attr;
}

/* Write text escaped for XML. */
static void xml_put(FILE *f, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

void tui_screen_svg(const struct tui_screen *s, const char *title, FILE *f) {
    double w = s->cols * CELL_W, h = s->rows * CELL_H;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.1f %.1f\" font-family=\"'DejaVu Sans Mono', 'Liberation Mono', "
            "Menlo, Consolas, monospace\" font-size=\"%d\">\n",
            w, h, w, h, FONT_PX);
    fputs("<title>", f);
    xml_put(f, title ? title : "vramlab");
    fputs("</title>\n", f);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"%s\"/>\n", SVG_BG);
    /* Backgrounds first, then the text over them. */
    for (int pass = 0; pass < 2; pass++) {
        for (int y = 0; y < s->rows; y++) {
            int x = 0;
            while (x < s->cols) {
                const struct tui_cell *c = &s->cells[y * s->cols + x];
                int end = x + 1;
                while (end < s->cols && same_style(c, &s->cells[y * s->cols + end]))
                    end++;
                char fg[8], bg[8];
                bool has_bg;
                cell_colours(c, fg, bg, &has_bg);
                if (pass == 0 && has_bg) {
                    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                            x * CELL_W, y * CELL_H, (end - x) * CELL_W, CELL_H, bg);
                } else if (pass == 1) {
                    /* Each non-blank cell at its own column: terminal glyphs
                     * (boxes, blocks, braille) keep the grid whatever the font. */
                    bool blank = true;
                    for (int k = x; k < end && blank; k++)
                        blank = !strcmp(s->cells[y * s->cols + k].ch, " ") ||
                                !s->cells[y * s->cols + k].ch[0];
                    if (!blank) {
                        fprintf(f, "<text y=\"%.1f\" fill=\"%s\"%s%s%s xml:space=\"preserve\">",
                                y * CELL_H + CELL_H * 0.75, fg,
                                c->attr & TUI_CELL_BOLD ? " font-weight=\"bold\"" : "",
                                c->attr & TUI_CELL_UNDERLINE ? " text-decoration=\"underline\""
                                                             : "",
                                c->attr & TUI_CELL_DIM ? " opacity=\"0.6\"" : "");
                        for (int k = x; k < end;) {
                            const char *ch = s->cells[y * s->cols + k].ch;
                            if (!ch[0] || !strcmp(ch, " ")) {
                                k++;
                                continue;
                            }
                            /* A run of ASCII (fixed width in any monospace
                             * font) in one piece; any other glyph alone. */
                            int j = k + 1;
                            if ((unsigned char)ch[0] < 0x80) {
                                int last = k;
                                while (j < end && (unsigned char)s->cells[y * s->cols + j].ch[0] < 0x80 &&
                                       s->cells[y * s->cols + j].ch[0]) {
                                    if (strcmp(s->cells[y * s->cols + j].ch, " "))
                                        last = j;
                                    j++;
                                }
                                j = last + 1;
                            }
                            fprintf(f, "<tspan x=\"%.1f\">", k * CELL_W);
                            for (int q = k; q < j; q++)
                                xml_put(f, s->cells[y * s->cols + q].ch);
                            fputs("</tspan>", f);
                            k = j;
                        }
                        fputs("</text>\n", f);
                    }
                }
                x = end;
            }
        }
    }
    fputs("</svg>\n", f);
}
