/*
 * draw.c: windows, the frame, the title and status rows.
 *
 * The top of the drawing code: it calls every pane (draw_panes.c,
 * draw_speed.c, draw_measure.c), the lecture screens and the overlays, which
 * use only the primitives of paint.c.
 *
 * A frame: every visible pane is erased, redrawn and wnoutrefresh()ed
 * (touched first, so an overlay closed since the last frame leaves nothing
 * behind), then the overlay if one is open, then one doupdate(). curses
 * compares with what the terminal shows, so only changed cells are sent.
 */
#include "config.h"

#include "tui/draw.h"
#include "tui/draw_lecture.h"
#include "tui/draw_measure.h"
#include "tui/draw_overlay.h"
#include "tui/draw_panes.h"
#include "tui/draw_speed.h"

#include <stdio.h>
#include <string.h>

#include "tui/i18n.h"
#include "tui/measure_model.h"
#include "tui/report.h"

/* The long name of a mode. */
static const char *tui_mode_label(enum engine_mode m) {
    static const char *const names[] = {N_("inference"), N_("training"), N_("LoRA"), N_("QLoRA")};
    return (unsigned)m < 4 ? names[m] : "?";
}

static const char *const tui_pane_titles[TUI_PANE_COUNT] = {
    N_("Model"), N_("Format"), N_("GPU"),     N_("Layout"),
    N_("Memory per GPU"), N_("Speed"), N_("Roofline"), N_("Measure"),
};

/* The field drawn at a screen cell or, failing that, the nearest field on
 * the same row of the same pane (a click on a label picks its value);
 * TUI_F_COUNT when none. */
enum tui_field tui_ui_hit_field(const struct tui_ui *ui, int y, int x) {
    int pane = tui_layout_hit(&ui->layout, y, x), best = -1, best_d = 1 << 30;
    for (int i = 0; i < ui->n_hits; i++) {
        const struct tui_hit *h = &ui->hits[i];
        if (h->y != y)
            continue;
        if (x >= h->x && x < h->x + h->w)
            return h->field;
        int d = x < h->x ? h->x - x : x - (h->x + h->w - 1);
        if (pane >= 0 && tui_layout_hit(&ui->layout, h->y, h->x) == pane && d < best_d) {
            best = i;
            best_d = d;
        }
    }
    return best >= 0 ? ui->hits[best].field : TUI_F_COUNT;
}

/* Delete every window. */
void tui_ui_free(struct tui_ui *ui) {
    for (int p = 0; p < TUI_PANE_COUNT; p++) {
        if (ui->pane[p])
            delwin(ui->pane[p]);
        ui->pane[p] = NULL;
    }
    if (ui->title)
        delwin(ui->title);
    if (ui->status)
        delwin(ui->status);
    if (ui->caption)
        delwin(ui->caption);
    if (ui->big)
        delwin(ui->big);
    ui->title = ui->status = ui->caption = ui->big = NULL;
}

/* A window for a rectangle, or NULL when it is not shown. */
static WINDOW *rect_win(const struct tui_rect *r) {
    if (!r->visible)
        return NULL;
    return newwin(r->h, r->w, r->y, r->x);
}

/* Rebuild the windows for the current size and state. */
void tui_ui_reflow(struct tui_ui *ui, const struct tui_state *st, int rows, int cols) {
    tui_ui_free(ui);
    ui->screen_rows = rows;
    ui->screen_cols = cols;
    /* A lesson's caption bar takes the bottom rows; the layout the rest.
     * Without room for it, the caption goes on the title row. */
    int cap = tui_caption_rows(st, rows, cols);
    tui_layout_compute(rows - cap, cols, st->last_input, &ui->layout);
    if (tui_measure_grows(st))
        tui_layout_grow_measure(&ui->layout);
    ui->caption_inline = st->lx.lesson && cap == 0;
    if (ui->layout.kind == TUI_LAYOUT_TOO_SMALL)
        return;
    ui->title = rect_win(&ui->layout.title);
    ui->status = rect_win(&ui->layout.status);
    if (cap > 0)
        ui->caption = newwin(cap, cols, rows - cap, 0);
    if (st->lx.present) {
        /* Presentation: one big window between the title and the status
         * row; no panes (the mouse finds none). */
        int top = 1, bottom = ui->layout.status.visible ? ui->layout.status.y : rows - cap;
        for (int p = 0; p < TUI_PANE_COUNT; p++)
            ui->layout.pane[p].visible = false;
        if (bottom > top)
            ui->big = newwin(bottom - top, cols, top, 0);
        return;
    }
    for (int p = 0; p < TUI_PANE_COUNT; p++)
        ui->pane[p] = rect_win(&ui->layout.pane[p]);
}

/* Draw a pane's border and title. */
static void draw_box(struct tui_ui *ui, WINDOW *w, const char *title, bool focused) {
    int wd = getmaxx(w);
    tui_draw_border(ui, w, focused ? TUI_ROLE_BORDER_FOCUS : TUI_ROLE_BORDER);
    if (wd > 6) {
        char t[64];
        snprintf(t, sizeof(t), " %s ", title);
        tui_put(ui, w, 0, 1, wd - 2, focused ? TUI_ROLE_BORDER_FOCUS : TUI_ROLE_PANE_TITLE, t);
    }
    wattrset(w, tui_attr(TUI_ROLE_NORMAL));
}

/* The top row: what the scenario is, at a glance. */
static void draw_title(struct tui_ui *ui, const struct tui_state *st) {
    const struct engine_scenario *sc = &st->opt.sc;
    const struct tui_glyphs *g = ui->g;
    WINDOW *w = ui->title;
    int wd = getmaxx(w);
    char buf[512], right[32];
    wbkgdset(w, ' ' | tui_attr(TUI_ROLE_TITLE));
    werase(w);
    char lay[48] = "";
    int n = 0;
    /* Only the parallel degrees above one: "TP2", "TP8 PP16 DP128". */
    if (sc->tp > 1)
        n += snprintf(lay + n, sizeof(lay) - (size_t)n, "TP%u ", sc->tp);
    if (sc->pp > 1 && n < (int)sizeof(lay))
        n += snprintf(lay + n, sizeof(lay) - (size_t)n, "PP%u ", sc->pp);
    if (sc->dp > 1 && n < (int)sizeof(lay))
        n += snprintf(lay + n, sizeof(lay) - (size_t)n, "DP%u ", sc->dp);
    if (n > 0 && n < (int)sizeof(lay))
        snprintf(lay + n, sizeof(lay) - (size_t)n, "%s ", g->dot);
    /* Full training stores the weights as the recipe says (2 bytes: BF16). */
    const char *wf = sc->weight_format.name[0] ? sc->weight_format.name : sc->weight_format.id;
    /* Inference from a model file: the weights are the file's tensors. */
    if (st->opt.model_file && sc->model.file_bytes && sc->mode == ENGINE_MODE_INFER)
        wf = _("file's types");
    char wshort[ENGINE_NAME_MAX];
    const char *par = strstr(wf, " (");
    if (par && wd < 100) { /* "INT8 (per-channel)" -> "INT8" on narrow screens */
        snprintf(wshort, sizeof(wshort), "%.*s", (int)(par - wf), wf);
        wf = wshort;
    }
    if (sc->mode == ENGINE_MODE_TRAIN) {
        double wb = engine_recipe_info(sc->recipe)->weights;
        wf = wb == 2 ? "BF16" : wb == 4 ? "FP32" : engine_recipe_info(sc->recipe)->id;
    }
    snprintf(right, sizeof(right), _("%s  ? help "), st->opt.units == UNITS_GIB ? "GiB" : "GB");
    int rw = tui_width(right);
    /* Training modes say their recompute next to the mode: the memory
     * depends on it ("QLoRA, full recompute"). */
    char mode[2][64];
    snprintf(mode[0], sizeof(mode[0]), "%s", _(tui_mode_label(sc->mode)));
    snprintf(mode[1], sizeof(mode[1]), "%s", mode[0]);
    /* Inference under a runtime's accounting names it (--runtime vllm). */
    if (sc->mode == ENGINE_MODE_INFER && sc->serving.runtime != ENGINE_RUNTIME_PLAIN) {
        snprintf(mode[0], sizeof(mode[0]), "%s, %s", _(tui_mode_label(sc->mode)),
                 engine_runtime_name(sc->serving.runtime));
        snprintf(mode[1], sizeof(mode[1]), "%s", mode[0]);
    }
    if (sc->mode != ENGINE_MODE_INFER) {
        const char *rc = _(engine_recompute_name(sc->recompute));
        snprintf(mode[0], sizeof(mode[0]), _("%s, %s recompute"), _(tui_mode_label(sc->mode)), rc);

    }
    char ngpus[24], model[ENGINE_NAME_MAX + 32];
    report_int(sc->gpus, ngpus, sizeof(ngpus));
    lesson_model_name(i18n_numfmt(false), &sc->model, model, sizeof(model));
    /* Narrow screens drop the program's name, then shorten the GPU's name
     * at a word (always the name, never the catalog id), then leave the
     * recompute to the Layout pane: one vocabulary whatever the width. */
    const char *gname = sc->gpu.name[0] ? sc->gpu.name : sc->gpu.id;
    char gshort[ENGINE_NAME_MAX];
    snprintf(gshort, sizeof(gshort), "%s", gname); /* "B300 (HGX, Blackwell Ultra)": "B300" */
    char *gpar = strstr(gshort, " (");
    if (gpar && gpar > gshort)
        *gpar = '\0';
    /* A bare size names itself by its size last ("70B" for "70B-parameter
     * model"). */
    const char *mshort = sc->model.derived && !strncmp(sc->model.id, "params-", 7)
                             ? sc->model.id + 7
                             : model;
    for (int form = 0; form < 5; form++) {
        const char *gpu = form < 2 ? gname : gshort;
        snprintf(buf, sizeof(buf), "%s%s %s %s %s %s %s %s %s %s%s",
                 form == 0 ? " vramlab   " : " ", form < 4 ? model : mshort,
                 g->dot, wf, g->dot, ngpus, g->times, gpu, g->dot, lay, mode[form < 3 ? 0 : 1]);
        if (tui_width(buf) <= wd - rw - 1)
            break;
    }
    if (st->lx.pinned)
        tui_compare_title(ui, st, buf, sizeof(buf));
    tui_put(ui, w, 0, 0, wd - rw - 1, TUI_ROLE_TITLE, buf);
    if (wd > rw + 20)
        tui_put(ui, w, 0, wd - rw, rw, TUI_ROLE_TITLE, right);
}

/* Key hints on the status row: as many as fit from the left, but the last
 * two ("? help", "q quit") always, at the end: a user who sees nothing
 * else must still see how to get help and how to leave. */
static void draw_hints(struct tui_ui *ui, WINDOW *w, const char *const (*keys)[2], size_t n) {
    int wd = getmaxx(w), x = 1, tail = 0;
    size_t keep = n >= 2 ? n - 2 : 0;
    for (size_t i = keep; i < n; i++)
        tail += tui_width(keys[i][0]) + 1 + tui_width(_(keys[i][1])) + 2;
    bool full = false;
    for (size_t i = 0; i < n; i++) {
        int need = tui_width(keys[i][0]) + 1 + tui_width(_(keys[i][1])) + 2;
        if (i < keep && (full || x + need + tail - 2 > wd)) {
            full = true; /* the rest is dropped: the essentials keep their room */
            continue;
        }
        if (x + need - 2 > wd)
            break;
        x += tui_put(ui, w, 0, x, wd - x, TUI_ROLE_KEY, keys[i][0]);
        x += tui_put(ui, w, 0, x, wd - x, TUI_ROLE_STATUS, " ");
        x += tui_put(ui, w, 0, x, wd - x, TUI_ROLE_STATUS, _(keys[i][1]));
        x += tui_put(ui, w, 0, x, wd - x, TUI_ROLE_STATUS, "  ");
    }
}

/* The bottom row: the last message, or the key hints. */
static void draw_status(struct tui_ui *ui, const struct tui_state *st) {
    const struct tui_glyphs *g = ui->g;
    WINDOW *w = ui->status;
    int wd = getmaxx(w);
    wbkgdset(w, ' ' | tui_attr(TUI_ROLE_STATUS));
    werase(w);
    if (st->lx.prompt != TUI_PROMPT_NONE) {
        tui_draw_prompt(ui, w, 0, st);
        return;
    }
    if (st->overlay == TUI_OVERLAY_FILE) {
        /* The model-file prompt: the end of a long path, then the cursor;
         * a completion's note (no match) after it when there is room. */
        int x = tui_put(ui, w, 0, 1, wd - 1, TUI_ROLE_KEY, _("model file (Tab completes): ")) + 2;
        const char *t = st->file.text;
        while (*t && tui_width(t) > wd - x - 2)
            t++;
        x += tui_put(ui, w, 0, x, wd - x,
                     st->file.selected ? TUI_ROLE_FIELD_FOCUS : TUI_ROLE_VALUE, t);
        tui_put(ui, w, 0, x, 1, TUI_ROLE_FIELD_FOCUS, " ");
        if (st->message[0] && wd - x - 3 > 10)
            tui_put(ui, w, 0, x + 2, wd - x - 2, TUI_ROLE_BAD, st->message);
        return;
    }
    if (st->message[0]) {
        tui_put(ui, w, 0, 1, wd - 1, TUI_ROLE_STATUS, st->message);
        return;
    }
    const char *keys[][2] = {
        {"Tab", N_("pane")},    {g->arrows, N_("change")}, {g->enter, N_("pick")},
        {"/", N_("filter")},    {"e", N_("explain")},      {"u", N_("GB/GiB")},
        {"t", N_("mode")},      {"m", N_("measure")},      {"?", N_("help")},
        {"q", N_("quit")},
    };
    const char *lesson_keys[][2] = {
        {"n p", N_("step")}, {"r", N_("back to step")}, {"F", N_("present")},
        {":", N_("go to")},  {"e", N_("explain")},      {"?", N_("help")},
        {"q", N_("quit")},
    };
    if (st->lx.present && !st->lx.lesson) {
        lesson_keys[0][0] = "F";
        lesson_keys[0][1] = N_("panes");
        lesson_keys[1][0] = "c";
        lesson_keys[1][1] = N_("compare");
        lesson_keys[2][0] = "s o";
        lesson_keys[2][1] = N_("save/open");
    }
    /* A question not yet answered: the hints say what n does. */
    const char *question_keys[][2] = {
        {"n", N_("reveals")}, {"p", N_("back")}, {"r", N_("back to step")},
        {"F", N_("present")}, {"?", N_("help")}, {"q", N_("quit")},
    };
    if (tui_lecture_asking(&st->lx))
        draw_hints(ui, w, question_keys, sizeof(question_keys) / sizeof(question_keys[0]));
    else if (st->lx.lesson || st->lx.present)
        draw_hints(ui, w, lesson_keys, sizeof(lesson_keys) / sizeof(lesson_keys[0]));
    else
        draw_hints(ui, w, keys, sizeof(keys) / sizeof(keys[0]));
}

/* The notice shown when the terminal is below 40x12. */
static void draw_too_small(struct tui_ui *ui) {
    int rows = ui->layout.rows, cols = ui->layout.cols;
    char need[64];
    werase(stdscr);
    snprintf(need, sizeof(need), _("(need %dx%d)"), TUI_MIN_COLS, TUI_MIN_ROWS);
    const char *lines[] = {_("terminal too small"), need, _("q quits")};
    for (int i = 0; i < 3; i++) {
        int y = rows / 2 - 1 + i, wd = tui_width(lines[i]);
        int x = wd < cols ? (cols - wd) / 2 : 0;
        if (y >= 0 && y < rows)
            tui_put(ui, stdscr, y, x, cols - x, i == 0 ? TUI_ROLE_BAD : TUI_ROLE_NORMAL,
                    lines[i]);
    }
    wnoutrefresh(stdscr);
}

typedef void (*tui_pane_fn)(struct tui_pen *p);
static const tui_pane_fn tui_pane_draw[TUI_PANE_COUNT] = {
    tui_draw_model, tui_draw_format, tui_draw_gpu,  tui_draw_layout,
    tui_draw_memory, tui_draw_speed, tui_draw_roof, tui_draw_measure,
};

/* Paint every pane and the overlay, then one doupdate(). */
void tui_draw_frame(struct tui_ui *ui, const struct tui_state *st) {
    ui->n_hits = 0;
    ui->pick_rows = 0;
    ui->caption_pages = 1; /* the caption bar, when drawn, says how many */
    ui->overlay_max = 0;
    ui->overlay_page = 1;
    if (ui->layout.kind == TUI_LAYOUT_TOO_SMALL) {
        draw_too_small(ui);
        doupdate();
        return;
    }
    draw_title(ui, st);
    if (ui->caption_inline)
        tui_draw_caption(ui, st);
    if (st->lx.prompt != TUI_PROMPT_NONE && !ui->status)
        tui_draw_prompt(ui, ui->title, 0, st);
    touchwin(ui->title);
    wnoutrefresh(ui->title);
    if (ui->big) {
        tui_draw_present(ui, st);
        touchwin(ui->big);
        wnoutrefresh(ui->big);
    }
    if (ui->caption) {
        tui_draw_caption(ui, st);
        touchwin(ui->caption);
        wnoutrefresh(ui->caption);
    }
    for (int p = 0; p < TUI_PANE_COUNT; p++) {
        WINDOW *w = ui->pane[p];
        if (!w)
            continue;
        struct tui_pen pen = {
            .ui = ui, .st = st, .w = w, .pane = (enum tui_pane)p,
            .y0 = ui->layout.pane[p].y, .x0 = ui->layout.pane[p].x,
            .ih = ui->layout.pane[p].h - 2, .iw = ui->layout.pane[p].w - 2,
            .focused = st->focus_pane == (enum tui_pane)p,
            .masked = tui_lecture_hides(&st->lx, (enum tui_pane)p),
        };
        wbkgdset(w, ' ' | tui_attr(TUI_ROLE_NORMAL));
        werase(w);
        const char *pt = _(tui_pane_titles[p]);
        if (st->lx.pinned && p == TUI_PANE_MEMORY)
            pt = _("Memory per GPU: pinned vs current");
        else if (st->lx.pinned && p == TUI_PANE_SPEED)
            pt = st->opt.sc.mode == ENGINE_MODE_INFER && st->lx.pin_opt.sc.mode == ENGINE_MODE_INFER
                     ? _("Speed, tok/s: pinned vs current")
                     : _("Speed: pinned vs current");
        draw_box(ui, w, pt, pen.focused);
        tui_pane_draw[p](&pen);
        touchwin(w);
        wnoutrefresh(w);
    }
    if (ui->status) {
        draw_status(ui, st);
        touchwin(ui->status);
        wnoutrefresh(ui->status);
    }
    if (st->overlay != TUI_OVERLAY_NONE)
        tui_draw_overlay(ui, st);
    doupdate();
}
