/*
 * draw_overlay.c: the overlays drawn over the panes: help (every key),
 * explain (the focused number's formula, values and source, from
 * engine_explain) and pickers (a filtered list).
 *
 * An overlay is a window created for the frame, centred, sized to its text
 * and the screen; it is wnoutrefresh()ed after the panes and deleted at
 * once (its cells are already in curses' virtual screen).
 */
#include "config.h"

#include "tui/draw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/i18n.h"

static const char *const tui_help_lines[] = {
    N_("Tab / Shift-Tab    next / previous pane"),
    N_("Up Down  (k j)     field within the pane"),
    N_("Left Right (h l)   change the field (mouse wheel too)"),
    N_("PgUp PgDn          big steps (x2, /2); in a lesson: step"),
    N_("Enter              pick from a list (or explain a read-out)"),
    N_("/                  filter: type to narrow the list"),
    N_("e                  explain the focused number"),
    N_("u                  GB (1e9) or GiB (2^30)"),
    N_("t                  mode: inference, training, LoRA, QLoRA"),
    N_("m                  measure: run the probe here (Esc cancels)"),
    N_("a w v              Measure pane: apply measured figures, save JSON, error lab"),
    N_("n Space PgDn       lesson: next step (p Backspace PgUp: back)"),
    N_("r                  lesson: return to the step after exploring"),
    N_("F                  presentation mode: the headline, large"),
    N_("c                  compare: pin this scenario (c again unpins)"),
    N_("s o                save / open a scenario file (YAML)"),
    N_("? F1               this help"),
    N_("q Esc              close an overlay, or quit"),
    N_("mouse              click focuses and picks (--no-mouse)"),
    "",
    N_("Only valid layouts are reachable: TP divides the heads,"),
    N_("PP <= layers, GPUs = TP x PP x DP. Same flags as plan."),
};

/* A centred overlay window of about h x w, clipped to the screen. */
static WINDOW *overlay_open(struct tui_ui *ui, int h, int w, const char *title, int *oy,
                            int *ox) {
    int rows = ui->layout.rows, cols = ui->layout.cols;
    if (h > rows - 2)
        h = rows - 2;
    if (w > cols - 2)
        w = cols - 2;
    if (h < 3 || w < 10)
        return NULL;
    *oy = (rows - h) / 2;
    *ox = (cols - w) / 2;
    WINDOW *win = newwin(h, w, *oy, *ox);
    if (!win)
        return NULL;
    wbkgdset(win, ' ' | tui_attr(TUI_ROLE_OVERLAY));
    werase(win);
    const struct tui_glyphs *g = ui->g;
    wattrset(win, tui_attr(TUI_ROLE_BORDER_FOCUS));
    for (int x = 1; x < w - 1; x++) {
        mvwaddstr(win, 0, x, g->h);
        mvwaddstr(win, h - 1, x, g->h);
    }
    for (int y = 1; y < h - 1; y++) {
        mvwaddstr(win, y, 0, g->v);
        mvwaddstr(win, y, w - 1, g->v);
    }
    mvwaddstr(win, 0, 0, g->tl);
    mvwaddstr(win, 0, w - 1, g->tr);
    mvwaddstr(win, h - 1, 0, g->bl);
    mvwaddstr(win, h - 1, w - 1, g->br);
    char t[96];
    snprintf(t, sizeof(t), " %s ", title);
    tui_put(ui, win, 0, 2, w - 4, TUI_ROLE_PANE_TITLE, t);
    return win;
}

/* Show and free an overlay window. */
static void overlay_close(WINDOW *win) {
    wnoutrefresh(win);
    delwin(win);
}

/* Write text wrapped at word boundaries from row y (count only when win is
 * NULL); returns the next row. */
static int put_wrapped(struct tui_ui *ui, WINDOW *win, int y, int x, int width, int max_y,
                       enum tui_role role, const char *text) {
    char line[512];
    const char *s = text;
    while (*s && y < max_y) {
        /* Take as many whole words as fit (bytes ~ columns for ASCII text). */
        size_t n = strlen(s), take = n;
        if (tui_width(s) > width) {
            take = 0;
            size_t last_space = 0;
            int cols = 0;
            for (size_t i = 0; s[i] && cols < width; i++) {
                if (((unsigned char)s[i] & 0xc0) != 0x80)
                    cols++;
                if (s[i] == ' ')
                    last_space = i;
                take = i + 1;
            }
            if (last_space > 0 && s[take] != ' ' && s[take] != '\0')
                take = last_space;
        }
        if (take >= sizeof(line))
            take = sizeof(line) - 1;
        memcpy(line, s, take);
        line[take] = '\0';
        if (win) /* NULL: only count the lines */
            tui_put(ui, win, y, x, width, role, line);
        y++;
        s += take;
        while (*s == ' ')
            s++;
    }
    return y;
}

/* Help: every key. */
static void draw_help(struct tui_ui *ui) {
    int n = (int)(sizeof(tui_help_lines) / sizeof(tui_help_lines[0]));
    int oy, ox, width = 62, notes = n;
    /* As wide as the longest line in the user's language; the keys come
     * before the first empty line, the notes (dim) after it. */
    for (int i = 0; i < n; i++) {
        int lw = tui_help_lines[i][0] ? tui_width(_(tui_help_lines[i])) : 0;
        if (lw + 4 > width)
            width = lw + 4;
        if (!tui_help_lines[i][0] && notes == n)
            notes = i;
    }
    WINDOW *win = overlay_open(ui, n + 3, width, _("keys (q, Esc or ? closes)"), &oy, &ox);
    if (!win)
        return;
    int h = getmaxy(win), w = getmaxx(win);
    for (int i = 0; i < n && i + 1 < h - 1; i++)
        tui_put(ui, win, i + 1, 2, w - 4, i < notes ? TUI_ROLE_OVERLAY : TUI_ROLE_DIM,
                tui_help_lines[i][0] ? _(tui_help_lines[i]) : "");
    overlay_close(win);
}

/* Explain: formula, values, source of the focused field's number. */
static void draw_explain(struct tui_ui *ui, const struct tui_state *st) {
    enum tui_field f = st->focus[st->focus_pane];
    struct engine_explanation ex;
    char title[96];
    int oy, ox;
    memset(&ex, 0, sizeof(ex));
    int key = st->explain_key >= 0   ? st->explain_key
              : f < TUI_F_COUNT ? tui_field_key(st, f)
                                : ENGINE_KEY_MEM_TOTAL;
    engine_explain(&st->opt.sc, &st->est, (enum engine_key)key, &ex);
    snprintf(title, sizeof(title), _("explain: %s"), ex.label ? ex.label : engine_key_name(key));
    /* Size the box to the text: key, three headings, the wrapped parts. */
    int w0 = ui->layout.cols - 2 < 76 ? ui->layout.cols - 2 : 76, big = 1000;
    bool applies = engine_key_applies(&st->opt.sc, (enum engine_key)key);
    int need = 2 + 4 + (applies ? 0 : 1) +
               put_wrapped(ui, NULL, 0, 4, w0 - 6, big, TUI_ROLE_VALUE,
                           ex.formula ? ex.formula : "") +
               put_wrapped(ui, NULL, 0, 4, w0 - 6, big, TUI_ROLE_VALUE, ex.values) +
               put_wrapped(ui, NULL, 0, 4, w0 - 6, big, TUI_ROLE_DIM, ex.source ? ex.source : "-");
    WINDOW *win = overlay_open(ui, need, 76, title, &oy, &ox);
    if (!win)
        return;
    int h = getmaxy(win), w = getmaxx(win), y = 1, max_y = h - 1;
    char buf[64];
    snprintf(buf, sizeof(buf), _("key  %s"), ex.key ? ex.key : engine_key_name(key));
    tui_put(ui, win, y++, 2, w - 4, TUI_ROLE_DIM, buf);
    if (!applies) {
        y = put_wrapped(ui, win, y, 2, w - 4, max_y, TUI_ROLE_WARN,
                        _("does not apply to this scenario (switch the mode with t)"));
    }
    if (y < max_y)
        tui_put(ui, win, y++, 2, w - 4, TUI_ROLE_LABEL, _("formula"));
    y = put_wrapped(ui, win, y, 4, w - 6, max_y, TUI_ROLE_VALUE, ex.formula ? ex.formula : "");
    if (y < max_y)
        tui_put(ui, win, y++, 2, w - 4, TUI_ROLE_LABEL, _("with this scenario's values"));
    y = put_wrapped(ui, win, y, 4, w - 6, max_y, TUI_ROLE_VALUE, ex.values);
    if (y < max_y)
        tui_put(ui, win, y++, 2, w - 4, TUI_ROLE_LABEL, _("source"));
    put_wrapped(ui, win, y, 4, w - 6, max_y, TUI_ROLE_DIM, ex.source ? ex.source : "-");
    tui_put(ui, win, h - 1, 2, w - 4, TUI_ROLE_DIM, _(" left/right: next number  q: close "));
    overlay_close(win);
}

/* A picker: filter line, then the filtered entries around the cursor. */
static void draw_picker(struct tui_ui *ui, const struct tui_state *st) {
    static const char *const titles[] = {N_("model"), N_("weight format"), N_("KV cache format"),
                                         N_("GPU"), N_("mode"), N_("recompute"),
                                         N_("optimizer recipe")};
    const struct tui_picker *pk = &st->picker;
    size_t n = tui_picker_count(st);
    char title[64], buf[96];
    int oy, ox;
    snprintf(title, sizeof(title), _("pick a %s (%zu)"), _(titles[pk->kind]), n);
    int want = (int)n + 3;
    WINDOW *win = overlay_open(ui, want < 6 ? 6 : want, 48, title, &oy, &ox);
    if (!win)
        return;
    int h = getmaxy(win), w = getmaxx(win);
    snprintf(buf, sizeof(buf), "/ %s_", pk->filter);
    tui_put(ui, win, 1, 2, w - 4, TUI_ROLE_VALUE, buf);
    int rows = h - 3;
    size_t first = 0;
    if (rows > 0 && pk->cursor >= (size_t)rows)
        first = pk->cursor - (size_t)rows + 1;
    for (int r = 0; r < rows && first + (size_t)r < n; r++) {
        bool cur;
        size_t i = first + (size_t)r;
        const char *label = tui_picker_label(st, i, &cur);
        snprintf(buf, sizeof(buf), "%s %s", cur ? ui->g->bullet : " ", label);
        enum tui_role role = i == pk->cursor ? TUI_ROLE_OVERLAY_SEL : TUI_ROLE_OVERLAY;
        wattrset(win, tui_attr(role));
        mvwhline(win, 2 + r, 1, ' ', w - 2);
        tui_put(ui, win, 2 + r, 2, w - 4, role, buf);
    }
    if (n == 0)
        tui_put(ui, win, 2, 2, w - 4, TUI_ROLE_DIM, _("nothing matches; Backspace edits"));
    ui->pick_y = oy + 2;
    ui->pick_x = ox + 1;
    ui->pick_w = w - 2;
    ui->pick_rows = rows;
    ui->pick_first = first;
    overlay_close(win);
}

/* Draw the open overlay over the panes. */
void tui_draw_overlay(struct tui_ui *ui, const struct tui_state *st) {
    switch (st->overlay) {
    case TUI_OVERLAY_HELP:
        draw_help(ui);
        break;
    case TUI_OVERLAY_EXPLAIN:
        draw_explain(ui, st);
        break;
    case TUI_OVERLAY_PICKER:
        draw_picker(ui, st);
        break;
    default:
        break;
    }
}
