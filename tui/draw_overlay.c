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

#include "tui/draw_overlay.h"

#include "engine/figures.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/i18n.h"

static const char *const tui_help_lines[] = {
    N_("Tab / Shift-Tab    next / previous pane"),
    N_("Up Down (k j)      field within the pane"),
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
    N_("Shift-Right Left   lesson: next, back (Right Left too while presenting)"),
    N_(": g                lesson: go to a step (a number, Enter)"),
    N_("r                  lesson: return to the step after exploring"),
    N_("                   a question step: n reveals the answer ('?' figures)"),
    N_("F                  presentation mode: the headline, large"),
    N_("c                  compare: pin this scenario (c again unpins)"),
    N_("s o                save / open a scenario file (YAML)"),
    N_("O (Model pane)     open a model file: GGUF, safetensors, HF folder (Tab completes)"),
    N_("                   prompts: typing replaces the name; Ctrl-U clears, Ctrl-W a word, ~ HOME"),
    N_("? F1               this help (Up Down PgUp PgDn scroll it)"),
    N_("q Esc              close an overlay, or quit (a lesson asks first)"),
    N_("mouse              click focuses and picks (--no-mouse)"),
    "",
    N_("Only valid layouts are reachable: TP divides the heads and fits one node, "
       "PP <= layers, GPUs = TP x PP x DP; a new GPU count takes the best layout for it. "
       "Same flags as plan."),
};

/* An overlay window of h x w at (y, x), already clipped by the caller. */
static WINDOW *overlay_open_at(struct tui_ui *ui, int y, int x, int h, int w, const char *title) {
    if (h < 3 || w < 10)
        return NULL;
    WINDOW *win = newwin(h, w, y, x);
    if (!win)
        return NULL;
    wbkgdset(win, ' ' | tui_attr(TUI_ROLE_OVERLAY));
    werase(win);
    tui_draw_border(ui, win, TUI_ROLE_BORDER_FOCUS);
    char t[96];
    snprintf(t, sizeof(t), " %s ", title);
    tui_put(ui, win, 0, 2, w - 4, TUI_ROLE_PANE_TITLE, t);
    return win;
}

/* A centred overlay window of about h x w, clipped to the screen. */
static WINDOW *overlay_open(struct tui_ui *ui, int h, int w, const char *title, int *oy,
                            int *ox) {
    int rows = ui->layout.rows, cols = ui->layout.cols;
    if (h > rows - 2)
        h = rows - 2;
    if (w > cols - 2)
        w = cols - 2;
    *oy = (rows - h) / 2;
    *ox = (cols - w) / 2;
    return overlay_open_at(ui, *oy, *ox, h, w, title);
}

/*
 * Where a lesson's explain overlay goes: beside or below what the caption
 * talks about, never over it. The rectangle kept free is the Memory pane
 * (the bar) joined with the focused pane (the number explained); in
 * presentation mode, the headline and its bar. Of the free regions around
 * it (below, above, right, left) the one that shows most of the text wins;
 * the overlay scrolls when it is cut. Returns false when no region can
 * hold even a three-row box.
 */
static bool explain_place(const struct tui_ui *ui, const struct tui_state *st, int want_h,
                          int want_w, int *y, int *x, int *h, int *w, bool *above) {
    const struct tui_layout *l = &ui->layout;
    int top = 1, bottom = l->status.visible ? l->status.y : l->rows, cols = l->cols;
    struct tui_rect keep = {0, 0, 0, 0, false};
    if (st->lx.present) {
        /* The figure (title row, 5 rows of digits, a spacing row) and the bar. */
        int big_h = bottom - top;
        keep = (struct tui_rect){top, 0, 1 + 5 + (big_h >= 17 ? 1 : 0) + 1, cols, true};
    } else {
        const struct tui_rect *m = &l->pane[TUI_PANE_MEMORY], *f = &l->pane[st->focus_pane];
        if (m->visible)
            keep = *m;
        if (f->visible) {
            if (!keep.visible) {
                keep = *f;
            } else {
                int y0 = keep.y < f->y ? keep.y : f->y, x0 = keep.x < f->x ? keep.x : f->x;
                int y1 = keep.y + keep.h > f->y + f->h ? keep.y + keep.h : f->y + f->h;
                int x1 = keep.x + keep.w > f->x + f->w ? keep.x + keep.w : f->x + f->w;
                keep = (struct tui_rect){y0, x0, y1 - y0, x1 - x0, true};
            }
        }
    }
    if (!keep.visible)
        return false;
    /* Candidate regions: y, x, h, w. */
    int reg[4][4] = {
        {keep.y + keep.h, 0, bottom - (keep.y + keep.h), cols},  /* below */
        {top, 0, keep.y - top, cols},                              /* above */
        {top, keep.x + keep.w, bottom - top, cols - keep.x - keep.w}, /* right */
        {top, 0, bottom - top, keep.x},                            /* left */
    };
    int best = -1, best_score = 0;
    for (int i = 0; i < 4; i++) {
        int rh = reg[i][2] < want_h ? reg[i][2] : want_h;
        int rw = reg[i][3] < want_w ? reg[i][3] : want_w;
        if (rh < 3 || rw < 24)
            continue;
        /* Text rows shown, weighted by how little the width wraps. */
        int score = (rh - 2) * rw;
        if (score > best_score)
            best = i, best_score = score;
    }
    if (best < 0)
        return false;
    *h = reg[best][2] < want_h ? reg[best][2] : want_h;
    *w = reg[best][3] < want_w ? reg[best][3] : want_w;
    *y = reg[best][0];
    *above = best == 1; /* a shorter box then moves down against the bar */
    *x = reg[best][1] + (reg[best][3] - *w) / 2;
    return true;
}

/* Show and free an overlay window. */
static void overlay_close(WINDOW *win) {
    wnoutrefresh(win);
    delwin(win);
}

/* Bytes of s to put on one line of width columns: whole words when they
 * fit, else as many characters as fit. */
static size_t wrap_take(const char *s, int width) {
    if (tui_width(s) <= width)
        return strlen(s);
    size_t take = 0, last_space = 0;
    int cols = 0;
    for (size_t i = 0; s[i] && cols < width; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            cols++;
        if (s[i] == ' ')
            last_space = i;
        take = i + 1;
    }
    while (((unsigned char)s[take] & 0xc0) == 0x80) /* finish a UTF-8 character */
        take++;
    if (last_space > 0 && s[take] != ' ' && s[take] != '\0')
        take = last_space;
    return take;
}

/* The text of a scrolling overlay, wrapped to its width. */
#define OV_LINES 192
struct ov_text {
    int n;
    struct {
        enum tui_role role;
        int x;
        char text[256];
    } l[OV_LINES];
};

/* Add text wrapped at word boundaries: the first line at column x, the
 * rest at x + hang; width is the columns from the box's inner edge. */
static void ov_add(struct ov_text *t, int x, int hang, int width, enum tui_role role,
                   const char *text) {
    const char *s = text;
    int cx = x;
    do {
        int room = width - cx > 4 ? width - cx : 4;
        size_t take = wrap_take(s, room);
        if (take >= sizeof(t->l[0].text))
            take = sizeof(t->l[0].text) - 1;
        if (t->n < OV_LINES) {
            t->l[t->n].role = role;
            t->l[t->n].x = cx;
            memcpy(t->l[t->n].text, s, take);
            t->l[t->n].text[take] = '\0';
            t->n++;
        }
        s += take;
        while (*s == ' ')
            s++;
        cx = x + hang;
    } while (*s);
}

/* Draw the lines of t from st's scroll in win, with "more" marks on the
 * borders and the footer; tell the app how far it can scroll. */
static void ov_show(struct tui_ui *ui, WINDOW *win, const struct ov_text *t,
                    const struct tui_state *st, const char *footer) {
    int h = getmaxy(win), w = getmaxx(win), rows = h - 2;
    unsigned max = t->n > rows ? (unsigned)(t->n - rows) : 0;
    unsigned first = st->overlay_scroll < max ? st->overlay_scroll : max;
    for (int r = 0; r < rows && (int)first + r < t->n; r++) {
        int i = (int)first + r;
        tui_put(ui, win, 1 + r, 1 + t->l[i].x, w - 2 - t->l[i].x, t->l[i].role, t->l[i].text);
    }
    char mark[64];
    int fw = footer ? tui_width(footer) : 0, mw = 0;
    if (first + (unsigned)rows < (unsigned)t->n) { /* the mark before the footer */
        snprintf(mark, sizeof(mark), _(" %s more "), ui->g->utf8 ? "↓" : "v");
        mw = tui_width(mark);
        tui_put(ui, win, h - 1, w - mw - 2, mw, TUI_ROLE_WARN, mark);
    }
    if (footer && fw <= w - 4 - (mw ? mw + 1 : 0))
        tui_put(ui, win, h - 1, 2, fw, TUI_ROLE_DIM, footer);
    if (first > 0) {
        snprintf(mark, sizeof(mark), _(" %s more "), ui->g->utf8 ? "↑" : "^");
        mw = tui_width(mark);
        tui_put(ui, win, 0, w - mw - 2, mw, TUI_ROLE_WARN, mark);
    }
    ui->overlay_max = max;
    ui->overlay_page = (unsigned)(rows > 0 ? rows : 1);
}

/* The width of the help's key column ("Tab / Shift-Tab    "). */
#define HELP_KEYS 19

/* Help: every key, wrapped under its description; scrolls. */
static void draw_help(struct tui_ui *ui, const struct tui_state *st) {
    static struct ov_text t;
    int n = (int)(sizeof(tui_help_lines) / sizeof(tui_help_lines[0]));
    int oy, ox, width = 62, notes = n;
    /* As wide as the longest line in the user's language; the keys come
     * before the first empty line, the notes (dim) after it. */
    for (int i = 0; i < n; i++) {
        int lw = tui_help_lines[i][0] ? tui_width(_(tui_help_lines[i])) : 0;
        if (!tui_help_lines[i][0] && notes == n)
            notes = i;
        if (lw + 4 > width && i < notes) /* the notes wrap to the keys' width */
            width = lw + 4;
    }
    int cols = ui->layout.cols - 2 < width ? ui->layout.cols - 2 : width;
    t.n = 0;
    bool split = cols - 4 < HELP_KEYS + 30; /* narrow: keys above their text */
    for (int i = 0; i < n; i++) {
        const char *line = tui_help_lines[i][0] ? _(tui_help_lines[i]) : "";
        const char *gap = i < notes ? strstr(line, "  ") : NULL;
        if (split && gap) {
            char keys[64];
            size_t k = (size_t)(gap - line) < sizeof(keys) ? (size_t)(gap - line) : sizeof(keys) - 1;
            memcpy(keys, line, k);
            keys[k] = '\0';
            while (*gap == ' ')
                gap++;
            ov_add(&t, 1, 0, cols - 2, TUI_ROLE_LABEL, keys);
            ov_add(&t, 3, 0, cols - 2, TUI_ROLE_OVERLAY, gap);
        } else {
            ov_add(&t, 1, i < notes ? HELP_KEYS : 0, cols - 2,
                   i < notes ? TUI_ROLE_OVERLAY : TUI_ROLE_DIM, line);
        }
    }
    WINDOW *win = overlay_open(ui, t.n + 2, width, _("keys (q, Esc or ? closes)"), &oy, &ox);
    if (!win)
        return;
    ov_show(ui, win, &t, st, t.n + 2 > getmaxy(win) ? _(" arrows, PgUp PgDn: scroll ") : NULL);
    overlay_close(win);
}

/* Explain: formula, values, source of the focused field's number; wraps
 * and scrolls so the result and the source can always be reached. */
static void draw_explain(struct tui_ui *ui, const struct tui_state *st) {
    static struct ov_text t;
    enum tui_field f = st->focus[st->focus_pane];
    struct engine_explanation ex;
    char title[96], buf[64];
    int oy, ox;
    memset(&ex, 0, sizeof(ex));
    int key = st->explain_key >= 0   ? st->explain_key
              : f < TUI_F_COUNT ? tui_field_key(st, f)
                                : ENGINE_KEY_MEM_TOTAL;
    engine_explain_for(i18n_numfmt(st->opt.units == UNITS_GIB), &st->opt.sc, &st->est,
                       (enum engine_key)key, &ex);
    snprintf(title, sizeof(title), _("explain: %s"), ex.label ? ex.label : engine_key_name(key));
    /* In a lesson the box sits beside or below the bar (explain_place);
     * its width is known before the text is wrapped to it. */
    int py = 0, px = 0, ph = 0, pw = 0;
    bool above = false;
    bool placed = st->lx.lesson &&
                  explain_place(ui, st, ui->layout.rows, 76, &py, &px, &ph, &pw, &above);
    int w = placed ? pw : ui->layout.cols - 2 < 76 ? ui->layout.cols - 2 : 76, inner = w - 2;
    bool applies = engine_key_applies(&st->opt.sc, (enum engine_key)key);
    t.n = 0;
    snprintf(buf, sizeof(buf), _("key  %s"), ex.key ? ex.key : engine_key_name(key));
    ov_add(&t, 1, 2, inner, TUI_ROLE_DIM, buf);
    if (!applies)
        ov_add(&t, 1, 0, inner, TUI_ROLE_WARN,
               _("does not apply to this scenario (switch the mode with t)"));
    ov_add(&t, 1, 0, inner, TUI_ROLE_LABEL, _("formula"));
    ov_add(&t, 3, 0, inner, TUI_ROLE_VALUE, ex.formula ? ex.formula : "");
    ov_add(&t, 1, 0, inner, TUI_ROLE_LABEL, _("with this scenario's values"));
    ov_add(&t, 3, 0, inner, TUI_ROLE_VALUE, ex.values);
    ov_add(&t, 1, 0, inner, TUI_ROLE_LABEL, _("source"));
    ov_add(&t, 3, 0, inner, TUI_ROLE_DIM, ex.source ? ex.source : "-");
    WINDOW *win;
    if (placed) {
        if (ph > t.n + 2) {
            if (above)
                py += ph - (t.n + 2);
            ph = t.n + 2;
        }
        win = overlay_open_at(ui, py, px, ph, pw, title);
    } else {
        win = overlay_open(ui, t.n + 2, 76, title, &oy, &ox);
    }
    if (!win)
        return;
    bool scrolls = t.n + 2 > getmaxy(win);
    const char *foot = _(" left/right: next number  q: close ");
    if (scrolls)
        foot = tui_width(_(" up/down scroll  left/right: next  q ")) <= getmaxx(win) - 14
                   ? _(" up/down scroll  left/right: next  q ")
                   : _(" up/down: scroll ");
    ov_show(ui, win, &t, st, foot);
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
    ui->overlay_max = 0;
    ui->overlay_page = 1;
    switch (st->overlay) {
    case TUI_OVERLAY_HELP:
        draw_help(ui, st);
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
