/*
 * draw_lecture.c: what the lecture kit adds to the screen: a lesson's
 * caption bar, presentation mode's large headline, the save/load prompt
 * and the comparison's title row.
 *
 * Presentation mode draws the memory total and the tokens/s ceiling (in
 * training, the days) in block digits from a 3x5 font, each font pixel two
 * cells wide where the width allows, so that at 80x24 on a projector the
 * figures are readable from the back of a room; full blocks in UTF-8, '#'
 * in ASCII. The bar against capacity and the verdict sit between them.
 */
#include "config.h"

#include "tui/draw_lecture.h"
#include "tui/draw_panes.h"

#include <stdio.h>
#include <string.h>

#include "tui/i18n.h"
#include "tui/report.h"

/* ---- word wrap ------------------------------------------------------------- */

#define WRAP_MAX 64

/* Break text into lines of at most width columns at spaces (a word longer
 * than a line is cut); fills starts/bytes for up to max lines and returns
 * how many lines the whole text needs. */
static int wrap_text(const char *s, int width, const char **starts, int *bytes, int max) {
    int n = 0;
    if (width < 1)
        return 0;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        const char *line = s, *brk = NULL, *p = s;
        int cols = 0;
        while (*p && *p != '\n' && cols < width) {
            if (*p == ' ')
                brk = p;
            p++;
            while (((unsigned char)*p & 0xc0) == 0x80)
                p++;
            cols++;
        }
        const char *end = p;
        if (*p && *p != ' ' && *p != '\n' && brk)
            end = brk; /* break at the last space that fits */
        if (n < max) {
            starts[n] = line;
            bytes[n] = (int)(end - line);
        }
        n++;
        s = end;
        if (*s == '\n')
            s++;
    }
    return n;
}

#define CAPTION_TEXT_MAX 4096
/* Columns a caption line leaves free at its end, for the ellipsis ("...")
 * that says the next page goes on: no word is ever covered by it. */
#define CAPTION_ELL 3

/* What the caption bar shows: a question not yet answered, marked as one
 * ("Question: How many GB..."), else the caption (the answer). */
static const char *caption_text(const struct tui_state *st, char *buf, size_t len) {
    if (tui_lecture_asking(&st->lx)) {
        int n = snprintf(buf, len, "%s %s", _("Question:"), st->lx.question);
        return n >= 0 && (size_t)n < len ? buf : st->lx.question;
    }
    return st->lx.caption ? st->lx.caption : "";
}

/* Rows of the caption bar (see draw.h). */
int tui_caption_rows(const struct tui_state *st, int rows, int cols) {
    const char *starts[WRAP_MAX];
    int bytes[WRAP_MAX];
    char text[CAPTION_TEXT_MAX];
    if (!st->lx.lesson || !st->lx.caption || cols < TUI_MIN_COLS)
        return 0;
    int lines = wrap_text(caption_text(st, text, sizeof(text)), cols - 2 - CAPTION_ELL, starts,
                          bytes, WRAP_MAX);
    int most = rows >= 40 ? 8 : rows >= 30 ? 5 : 3; /* longer captions page */
    int k = 1 + (lines < most ? lines : most);
    if (rows - k < TUI_MIN_ROWS)
        k = rows - TUI_MIN_ROWS;
    return k >= 2 ? k : 0;
}

/* Put n bytes of s (a piece of a longer string). */
static int put_bytes(const struct tui_ui *ui, WINDOW *w, int y, int x, int width,
                     enum tui_role role, const char *s, int n) {
    char buf[512];
    if (n >= (int)sizeof(buf))
        n = (int)sizeof(buf) - 1;
    memcpy(buf, s, (size_t)n);
    buf[n] = '\0';
    return tui_put(ui, w, y, x, width, role, buf);
}

/* The caption bar, or the caption on the title row (see draw.h). */
void tui_draw_caption(struct tui_ui *ui, const struct tui_state *st) {
    const char *starts[WRAP_MAX];
    int bytes[WRAP_MAX];
    const char *ell = ui->g->utf8 ? "\xe2\x80\xa6" : "...";
    char head[256], text[CAPTION_TEXT_MAX];
    const char *cap = caption_text(st, text, sizeof(text));
    bool asking = tui_lecture_asking(&st->lx) && cap == text;
    int qlen = asking ? (int)strlen(_("Question:")) : 0; /* drawn in its own colour */
    snprintf(head, sizeof(head), " %zu/%zu ", st->lx.step + 1, st->lx.n_steps);

    if (ui->caption_inline) {
        /* One line: "3/24 caption..." over the title row; n pages it. */
        WINDOW *w = ui->title;
        int wd = getmaxx(w);
        werase(w);
        int x = tui_put(ui, w, 0, 0, wd, TUI_ROLE_KEY, head);
        int n = wrap_text(cap, wd - x - 4, starts, bytes, WRAP_MAX);
        size_t pg = st->lx.caption_page < (size_t)n ? st->lx.caption_page : 0;
        ui->caption_pages = n > 0 ? (size_t)n : 1;
        if (n > 0 && pg < WRAP_MAX) {
            x += put_bytes(ui, w, 0, x, wd - x, TUI_ROLE_TITLE, starts[pg], bytes[pg]);
            if ((int)pg + 1 < n)
                tui_put(ui, w, 0, x + 1, wd - x - 1, TUI_ROLE_DIM, ell);
        }
        return;
    }
    WINDOW *w = ui->caption;
    int h, wd;
    getmaxyx(w, h, wd);
    wbkgdset(w, ' ' | tui_attr(TUI_ROLE_NORMAL));
    werase(w);
    int n = wrap_text(cap, wd - 2 - CAPTION_ELL, starts, bytes, WRAP_MAX);
    int per = h - 1 > 0 ? h - 1 : 1;
    if (n > WRAP_MAX)
        n = WRAP_MAX;
    size_t pages = n > 0 ? (size_t)((n + per - 1) / per) : 1;
    size_t pg = st->lx.caption_page < pages ? st->lx.caption_page : pages - 1;
    ui->caption_pages = pages;
    /* Heading: step number (and caption page), step title, what n does. */
    if (pages > 1)
        snprintf(head, sizeof(head), " %zu/%zu (%zu/%zu) ", st->lx.step + 1, st->lx.n_steps,
                 pg + 1, pages);
    int x = tui_put(ui, w, 0, 0, wd, TUI_ROLE_KEY, head);
    x += tui_put(ui, w, 0, x, wd - x, TUI_ROLE_NORMAL, " ");
    if (st->lx.step_title && *st->lx.step_title)
        x += tui_put(ui, w, 0, x, wd - x, TUI_ROLE_PANE_TITLE, st->lx.step_title);
    const char *hint = st->lx.off_step                     ? _("changed: r returns to the step")
                       : pg + 1 < pages                    ? _("n: more of the caption")
                       : tui_lecture_asking(&st->lx)       ? _("n reveals the answer")
                       : st->lx.step + 1 >= st->lx.n_steps ? _("last step; p goes back")
                                                           : _("n next, p back");
    int hw = tui_width(hint);
    if (x + hw + 3 <= wd)
        tui_put(ui, w, 0, wd - hw - 1, hw,
                st->lx.off_step || pg + 1 < pages || tui_lecture_asking(&st->lx) ? TUI_ROLE_WARN
                                                                                 : TUI_ROLE_DIM,
                hint);
    for (int r = 0; r < per; r++) {
        int i = (int)pg * per + r;
        if (i >= n)
            break;
        int cx = 1;
        const char *line = starts[i];
        int len = bytes[i];
        if (i == 0 && asking && len >= qlen) { /* "Question:" in the warning colour */
            cx += put_bytes(ui, w, 1 + r, cx, wd - 2, TUI_ROLE_WARN, line, qlen);
            line += qlen;
            len -= qlen;
        }
        cx += put_bytes(ui, w, 1 + r, cx, wd - 1 - cx, TUI_ROLE_VALUE, line, len);
        if (r == per - 1 && i + 1 < n) {
            /* The caption goes on: the next page (n) shows the rest. */
            tui_put(ui, w, 1 + r, cx, CAPTION_ELL, TUI_ROLE_WARN, ell);
        }
    }
}

/* ---- the prompt -------------------------------------------------------------- */

/* The save/load prompt (see draw.h). */
void tui_draw_prompt(struct tui_ui *ui, WINDOW *w, int y, const struct tui_state *st) {
    char label[TUI_PROMPT_MAX + 64];
    int wd = getmaxx(w);
    switch (st->lx.prompt) {
    case TUI_PROMPT_SAVE:
        snprintf(label, sizeof(label), "%s", _("save scenario to: "));
        break;
    case TUI_PROMPT_LOAD:
        snprintf(label, sizeof(label), "%s", _("open scenario file: "));
        break;
    case TUI_PROMPT_OVERWRITE:
        snprintf(label, sizeof(label), _("%s exists; overwrite? y/n "), st->lx.prompt_text);
        break;
    case TUI_PROMPT_GOTO:
        snprintf(label, sizeof(label), _("go to step (1-%zu, Enter; Esc cancels): "),
                 st->lx.n_steps);
        break;
    case TUI_PROMPT_QUIT:
        snprintf(label, sizeof(label), "%s", _("leave the lesson? y/n "));
        break;
    default:
        return;
    }
    werase(w);
    int x = tui_put(ui, w, y, 1, wd - 1, TUI_ROLE_KEY, label) + 1;
    if (st->lx.prompt != TUI_PROMPT_OVERWRITE && st->lx.prompt != TUI_PROMPT_QUIT) {
        /* Show the end of a long name, then the cursor; the offered
         * name is shown selected (typing replaces it). */
        const char *t = st->lx.prompt_text;
        while (tui_width(t) > wd - x - 2 && *t)
            t++;
        x += tui_put(ui, w, y, x, wd - x,
                     st->lx.prompt_selected ? TUI_ROLE_FIELD_FOCUS : TUI_ROLE_VALUE, t);
        tui_put(ui, w, y, x, 1, TUI_ROLE_FIELD_FOCUS, " ");
    }
}

/* ---- the comparison's title --------------------------------------------------- */

/* Append " text" to a list being built in buf. */
static void list_add(char *buf, size_t len, const char *text) {
    size_t n = strlen(buf);
    if (n + 2 < len)
        snprintf(buf + n, len - n, "%s%s", n ? " " : "", text);
}

/* The title of a comparison (see draw.h): only what differs. */
void tui_compare_title(const struct tui_ui *ui, const struct tui_state *st, char *buf, size_t len) {
    const struct engine_scenario *a = &st->lx.pin_opt.sc, *b = &st->opt.sc;
    char pa[160] = "", pb[160] = "", x[96], y[96];
#define NAME(e) ((e).name[0] ? (e).name : (e).id)
    if (strcmp(a->model.id, b->model.id) || strcmp(NAME(a->model), NAME(b->model)) ||
        engine_params_total(&a->model) != engine_params_total(&b->model)) {
        list_add(pa, sizeof(pa), NAME(a->model));
        list_add(pb, sizeof(pb), NAME(b->model));
    }
    if (strcmp(a->weight_format.id, b->weight_format.id)) {
        list_add(pa, sizeof(pa), NAME(a->weight_format));
        list_add(pb, sizeof(pb), NAME(b->weight_format));
    }
    if (strcmp(a->kv_format.id, b->kv_format.id)) {
        snprintf(x, sizeof(x), "KV %s", NAME(a->kv_format));
        snprintf(y, sizeof(y), "KV %s", NAME(b->kv_format));
        list_add(pa, sizeof(pa), x);
        list_add(pb, sizeof(pb), y);
    }
    if (a->gpus != b->gpus || strcmp(a->gpu.id, b->gpu.id)) {
        snprintf(x, sizeof(x), "%u %s %s", a->gpus, ui->g->times, NAME(a->gpu));
        snprintf(y, sizeof(y), "%u %s %s", b->gpus, ui->g->times, NAME(b->gpu));
        list_add(pa, sizeof(pa), x);
        list_add(pb, sizeof(pb), y);
    }
    if (a->tp != b->tp || a->pp != b->pp || a->dp != b->dp) {
        snprintf(x, sizeof(x), "TP%u PP%u DP%u", a->tp, a->pp, a->dp);
        snprintf(y, sizeof(y), "TP%u PP%u DP%u", b->tp, b->pp, b->dp);
        list_add(pa, sizeof(pa), x);
        list_add(pb, sizeof(pb), y);
    }
    if (a->mode != b->mode) {
        list_add(pa, sizeof(pa), engine_mode_name(a->mode));
        list_add(pb, sizeof(pb), engine_mode_name(b->mode));
    }
    if (a->batch != b->batch) {
        snprintf(x, sizeof(x), _("batch %u"), a->batch);
        snprintf(y, sizeof(y), _("batch %u"), b->batch);
        list_add(pa, sizeof(pa), x);
        list_add(pb, sizeof(pb), y);
    }
    if (a->context != b->context) {
        snprintf(x, sizeof(x), _("context %u"), a->context);
        snprintf(y, sizeof(y), _("context %u"), b->context);
        list_add(pa, sizeof(pa), x);
        list_add(pb, sizeof(pb), y);
    }
#undef NAME
    if (!pa[0])
        snprintf(buf, len, " %s", _("pinned = current: change something to compare"));
    else
        snprintf(buf, len, " %s %s %s %s %s", _("pinned:"), pa, ui->g->dot, _("current:"), pb);
}

/* ---- presentation mode ---------------------------------------------------------- */

/* A 3x5 font: each row three bits, the high bit on the left. */
static const struct {
    char c;
    unsigned char rows[5];
} big_font[] = {
    {'0', {7, 5, 5, 5, 7}}, {'1', {2, 6, 2, 2, 7}}, {'2', {7, 1, 7, 4, 7}}, {'3', {7, 1, 7, 1, 7}},
    {'4', {5, 5, 7, 1, 1}}, {'5', {7, 4, 7, 1, 7}}, {'6', {7, 4, 7, 5, 7}}, {'7', {7, 1, 1, 2, 2}},
    {'8', {7, 5, 7, 5, 7}}, {'9', {7, 5, 7, 1, 7}}, {'.', {0, 0, 0, 0, 2}}, {',', {0, 0, 0, 2, 4}},
    {'-', {0, 0, 7, 0, 0}}, {'$', {3, 6, 2, 3, 6}}, {'%', {5, 1, 2, 4, 5}}, {' ', {0, 0, 0, 0, 0}},
    {'?', {7, 1, 2, 0, 2}}, /* a hidden figure */
};
#define BIG_H 5

/* The font rows of a character, or NULL when the font has none. */
static const unsigned char *big_glyph(char c) {
    for (size_t i = 0; i < sizeof(big_font) / sizeof(big_font[0]); i++)
        if (big_font[i].c == c)
            return big_font[i].rows;
    return NULL;
}

/* Columns a string takes in block digits, pixel sx cells wide. */
static int big_width(const char *s, int sx) {
    int w = 0;
    for (; *s; s++)
        if (big_glyph(*s))
            w += (*s == '.' || *s == ',' ? 1 : 3) * sx + 1;
    return w > 0 ? w - 1 : 0;
}

/* Draw s in block digits with its top-left corner at (y, x). */
static void big_draw(struct tui_ui *ui, WINDOW *w, int y, int x, int sx, enum tui_role role,
                     const char *s) {
    const char *fill = ui->g->utf8 ? ui->g->full : "#";
    char run[3 * 4 * 8 + 1];
    for (; *s; s++) {
        const unsigned char *g = big_glyph(*s);
        if (!g)
            continue;
        /* '.' and ',' are one pixel wide: their pixel is the middle column. */
        bool narrow = *s == '.' || *s == ',';
        int cols = narrow ? 1 : 3;
        for (int r = 0; r < BIG_H; r++) {
            for (int c = 0; c < cols; c++) {
                int bit = narrow ? (g[r] >> 1) & 1 : (g[r] >> (2 - c)) & 1;
                if (narrow && *s == ',' && r == 4)
                    bit = (g[r] >> 2) & 1;
                if (!bit)
                    continue;
                size_t n = 0, fl = strlen(fill);
                for (int k = 0; k < sx && n + fl < sizeof(run); k++, n += fl)
                    memcpy(run + n, fill, fl);
                run[n] = '\0';
                tui_put(ui, w, y + r, x + c * sx, sx, role, run);
            }
        }
        x += cols * sx + 1;
    }
}

/* A figure in block digits, then its unit and a note in plain text on the
 * middle row, centred in the window; returns the rows used (5), or draws
 * one plain line and returns 1 when the digits do not fit. */
static int big_figure(struct tui_ui *ui, WINDOW *w, int y, int rows_left, enum tui_role role,
                      const char *number, const char *unit, const char *note) {
    int wd = getmaxx(w);
    char tail[160];
    snprintf(tail, sizeof(tail), " %s%s%s", unit, note[0] ? "  " : "", note);
    int tw = tui_width(tail);
    int sx = 2;
    if (big_width(number, sx) + tw + 4 > wd)
        sx = 1;
    int bw = big_width(number, sx);
    if (rows_left < BIG_H || bw + 4 > wd) {
        char line[200];
        snprintf(line, sizeof(line), "%s%s", number, tail);
        tui_put(ui, w, y, 2, wd - 4, role, line);
        return 1;
    }
    int total = bw + (bw + tw + 4 <= wd ? tw : 0);
    int x = (wd - total) / 2;
    if (x < 1)
        x = 1;
    big_draw(ui, w, y, x, sx, role, number);
    if (bw + tw + 4 <= wd)
        tui_put(ui, w, y + BIG_H / 2, x + bw, wd - x - bw, TUI_ROLE_LABEL, tail);
    else
        tui_put(ui, w, y + BIG_H, x, wd - x, TUI_ROLE_LABEL, tail);
    return BIG_H;
}

/* A question not yet answered, at the top of presentation mode: "Question"
 * and the question in bold, each line centred, double-spaced when the
 * window has the rows (the figures it asks about follow, as '?'); a
 * question longer than the window ends with an ellipsis (the caption bar
 * pages it). Returns the first row left. */
static int big_question(struct tui_ui *ui, WINDOW *w, const struct tui_state *st) {
    const char *starts[WRAP_MAX];
    int bytes[WRAP_MAX], h, wd;
    getmaxyx(w, h, wd);
    const char *ell = ui->g->utf8 ? "\xe2\x80\xa6" : "...";
    int width = wd - 8 - CAPTION_ELL;
    int n = wrap_text(st->lx.question, width, starts, bytes, WRAP_MAX);
    if (n > WRAP_MAX)
        n = WRAP_MAX;
    /* Double spacing when the question and the memory figure both fit. */
    int gap = 1 + 2 * n + 8 <= h ? 2 : 1;
    int room = (h - 2) / gap; /* lines of the question that fit */
    if (room < 1)
        room = 1;
    tui_put(ui, w, 0, 2, wd - 4, TUI_ROLE_WARN, _("Question"));
    int y = gap;
    for (int i = 0; i < n && i < room; i++) {
        char line[512];
        int len = bytes[i] < (int)sizeof(line) - 1 ? bytes[i] : (int)sizeof(line) - 1;
        memcpy(line, starts[i], (size_t)len);
        line[len] = '\0';
        int lw = tui_width(line);
        int x = (wd - lw) / 2 > 4 ? (wd - lw) / 2 : 4;
        x += tui_put(ui, w, y, x, width, TUI_ROLE_VALUE, line);
        if (i == room - 1 && i + 1 < n)
            tui_put(ui, w, y, x, CAPTION_ELL, TUI_ROLE_WARN, ell);
        y += gap;
    }
    return y;
}

/* Presentation mode (see draw.h). */
void tui_draw_present(struct tui_ui *ui, const struct tui_state *st) {
    WINDOW *w = ui->big;
    const struct engine_estimate *e = &st->est;
    int h, wd;
    char a[64], num[48], unit[32], note[128], cap[48];
    getmaxyx(w, h, wd);
    wbkgdset(w, ' ' | tui_attr(TUI_ROLE_NORMAL));
    werase(w);
    /* A question hides the figures of its panes: the Memory block with
     * Memory, the tokens/s or days with Speed. */
    bool hide_mem = tui_lecture_hides(&st->lx, TUI_PANE_MEMORY);
    bool hide_speed = tui_lecture_hides(&st->lx, TUI_PANE_SPEED);
    bool ok = e->invalid == 0 && e->fits;
    int y = tui_lecture_asking(&st->lx) && st->lx.question ? big_question(ui, w, st) : 0;
    /* Spacing rows only when there is room for them. */
    bool airy = h - y >= 17;

    tui_put(ui, w, y++, 2, wd - 4, TUI_ROLE_PANE_TITLE, _("Memory per GPU"));
    report_bytes(e->memory.total, st->opt.units, a, sizeof(a));
    report_split_unit(a, num, sizeof(num), unit, sizeof(unit));
    report_bytes(e->capacity, st->opt.units, cap, sizeof(cap));
    snprintf(a, sizeof(a), _("of %s"), cap);
    if (hide_mem) {
        snprintf(num, sizeof(num), "?");
        tui_mask_figures(a, note, sizeof(note));
    } else {
        snprintf(note, sizeof(note), "%s", a);
    }
    y += big_figure(ui, w, y, h - y - 2,
                    hide_mem ? TUI_ROLE_VALUE : ok ? TUI_ROLE_GOOD : TUI_ROLE_BAD, num, unit,
                    note);
    if (airy)
        y++;
    if (y < h) {
        struct tui_pen pen = {.ui = ui, .st = st, .w = w, .pane = TUI_PANE_MEMORY,
                              .ih = h - 1, .iw = wd - 2, .masked = hide_mem};
        tui_draw_bar(&pen, y - 1, 1, wd - 4, e);
        y++;
    }
    bool two = false;
    if (y < h) {
        /* A verdict wider than the screen takes two lines (when free). */
        const char *v = hide_mem ? _("fits? ?") : st->verdict;
        enum tui_role vr = hide_mem ? TUI_ROLE_VALUE : ok ? TUI_ROLE_GOOD : TUI_ROLE_BAD;
        int n = (int)strlen(v), cut = n;
        if (tui_width(v) > wd - 4 && y + 2 < h) {
            for (int i = 0; i < n && i <= wd - 4; i++)
                if (v[i] == ' ')
                    cut = i;
        }
        if (cut < n) {
            put_bytes(ui, w, y++, 2, wd - 4, vr, v, cut);
            tui_put(ui, w, y++, 4, wd - 6, vr, v + cut + 1);
            two = true;
        } else {
            tui_put(ui, w, y++, 2, wd - 4, vr, v);
        }
    }
    if (airy && !two)
        y++;
    if (y + 1 >= h)
        return;

    if (st->opt.sc.mode == ENGINE_MODE_INFER) {
        tui_put(ui, w, y++, 2, wd - 4, TUI_ROLE_PANE_TITLE, _("Tokens per second, ceiling"));
        report_number(e->decode_tokens_per_s, num, sizeof(num));
        bool mem = e->decode_tokens_per_s_memory_bound <= e->decode_tokens_per_s_compute_bound;
        snprintf(note, sizeof(note), "%s", mem ? _("memory-bound") : _("compute-bound"));
        if (hide_speed) { /* what binds would be half the answer */
            snprintf(num, sizeof(num), "?");
            note[0] = '\0';
        }
        y += big_figure(ui, w, y, h - y, TUI_ROLE_VALUE, num, _("tok/s"), note);
    } else {
        tui_put(ui, w, y++, 2, wd - 4, TUI_ROLE_PANE_TITLE, _("Training time"));
        report_number(e->train_days, num, sizeof(num)); /* plan's days: "17,476" */
        note[0] = '\0';
        if (e->train_cost_usd > 0)
            report_money(e->train_cost_usd, note, sizeof(note));
        if (hide_speed) {
            snprintf(num, sizeof(num), "?");
            tui_mask_figures(note[0] ? note : "", a, sizeof(a));
            snprintf(note, sizeof(note), "%s", a);
        }
        y += big_figure(ui, w, y, h - y, TUI_ROLE_VALUE, num, _("days"), note);
    }
}
