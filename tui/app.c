/*
 * app.c: tui_main, the explorer's event loop.
 *
 * One iteration: honour the dirty flags (reflow the windows, recompute the
 * estimate, repaint every pane with one doupdate), then wait for a key, a
 * mouse event, a resize or a stop signal, and turn it into new flags
 * through the state machine (state.c), which never draws.
 */
#include "config.h"

#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "tui/commands.h"
#include "tui/cpu_device.h"
#include "tui/draw.h"
#include "tui/i18n.h"
#include "tui/lecture_ui.h"
#include "tui/measure_model.h"
#include "tui/measure_pane.h"
#include "tui/scenario_file.h"
#include "tui/state.h"
#include "tui/term.h"

/* Translate a curses key into a TUI_KEY_* code (0: ignore). */
static int key_from_curses(int ch) {
    switch (ch) {
    case KEY_UP:
        return TUI_KEY_UP;
    case KEY_DOWN:
        return TUI_KEY_DOWN;
    case KEY_LEFT:
        return TUI_KEY_LEFT;
    case KEY_RIGHT:
        return TUI_KEY_RIGHT;
    case KEY_PPAGE:
        return TUI_KEY_PGUP;
    case KEY_NPAGE:
        return TUI_KEY_PGDN;
    case KEY_HOME:
        return TUI_KEY_HOME;
    case KEY_END:
        return TUI_KEY_END;
    case KEY_BTAB:
        return TUI_KEY_BTAB;
    case KEY_F(1):
        return TUI_KEY_F1;
    case KEY_RESIZE:
        return TUI_KEY_RESIZE;
    case KEY_SRIGHT:
        return TUI_KEY_SRIGHT;
    case KEY_SLEFT:
        return TUI_KEY_SLEFT;
    case KEY_ENTER:
    case '\r':
    case '\n':
        return TUI_KEY_ENTER;
    case KEY_BACKSPACE:
    case 127:
    case 8:
        return TUI_KEY_BACKSPACE;
    default:
        return ch >= 0 && ch < 256 ? ch : 0;
    }
}

/* Turn a mouse event into state changes; returns dirty flags. */
static unsigned on_mouse(struct tui_state *st, struct tui_ui *ui) {
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return 0;
    bool click = ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED);
    int wheel = 0;
#if NCURSES_MOUSE_VERSION > 1
    if (ev.bstate & BUTTON4_PRESSED)
        wheel = 1;
    if (ev.bstate & BUTTON5_PRESSED)
        wheel = -1;
#endif
    if (st->overlay == TUI_OVERLAY_PICKER) {
        if (wheel)
            return tui_state_key(st, wheel > 0 ? TUI_KEY_UP : TUI_KEY_DOWN);
        if (click && ev.y >= ui->pick_y && ev.y < ui->pick_y + ui->pick_rows &&
            ev.x >= ui->pick_x && ev.x < ui->pick_x + ui->pick_w) {
            size_t i = ui->pick_first + (size_t)(ev.y - ui->pick_y);
            if (i < tui_picker_count(st))
                return tui_picker_choose(st, i);
        }
        return 0;
    }
    if (st->overlay != TUI_OVERLAY_NONE)
        return click ? tui_state_key(st, TUI_KEY_ESC) : 0;
    enum tui_field f = tui_ui_hit_field(ui, ev.y, ev.x);
    unsigned dirty = 0;
    if (f < TUI_F_COUNT) {
        bool again = st->focus[st->focus_pane] == f;
        dirty |= tui_state_focus(st, f);
        if (click && again)
            dirty |= tui_state_key(st, TUI_KEY_ENTER); /* second click picks */
    } else {
        int p = tui_layout_hit(&ui->layout, ev.y, ev.x);
        if (p >= 0 && st->focus[p] < TUI_F_COUNT)
            dirty |= tui_state_focus(st, st->focus[p]);
    }
    if (wheel)
        dirty |= tui_state_change(st, wheel);
    return dirty;
}

/* Print the explorer's usage. */
static void usage(FILE *f) {
    fputs(_("usage: vramlab [scenario options] [--theme dark|light|high-contrast]\n"
            "               [--no-color] [--no-mouse] [--ascii]\n"
            "               [--scenario FILE] [--lesson FILE|NAME] [--present] [--fresh]\n"
            "The interactive explorer; the scenario options are those of `vramlab plan`.\n"
            "Inside: ? lists every key, q quits.\n"
            "Lessons: n, Space or PgDn next step; p, Backspace or PgUp back; : or g and a\n"
            "number go to a step; r returns to the step; q asks before leaving. A lesson\n"
            "resumes where it was left (--fresh starts over); --notes shows its presenter\n"
            "notes in a second terminal. F presentation mode, c compare, s save, o open.\n"
            "The last scenario is restored from $XDG_STATE_HOME/vramlab/last.yaml unless\n"
            "--fresh, --scenario, --lesson or a scenario option is given; it is saved\n"
            "there on quit (q), except with --fresh.\n\n"),
          f);
    options_print_help(f, OPTIONS_HELP_EXPLORER);
}

/* The explorer's session: the terminal's choices and the lecture kit. */
struct tui_session {
    const struct tui_term_info *ti;
    enum tui_scheme scheme; /* the scheme asked for (or dark) */
    bool theme_given;       /* --theme: presentation mode keeps it */
    bool shown_present;     /* presentation mode as last drawn */
    struct tui_lecture lecture;
};

/* The colour scheme for the mode: high contrast while presenting, unless
 * a --theme was given; monochrome stays monochrome. */
static void session_theme(struct tui_session *ss, bool present) {
    ss->shown_present = present;
    if (ss->ti->mono)
        return;
    tui_theme_init(present && !ss->theme_given ? TUI_SCHEME_CONTRAST : ss->scheme);
}

/* Run the loop until q or a stop signal; returns the exit status. */
static int run_loop(struct tui_state *st, struct tui_session *ss) {
    const struct tui_term_info *ti = ss->ti;
    struct tui_ui ui;
    static struct tui_mpane probe;
    unsigned dirty = TUI_DIRTY_ALL;
    memset(&ui, 0, sizeof(ui));
    ui.g = tui_glyphs_get(ti->utf8);
    ui.mono = ti->mono;
    session_theme(ss, st->lx.present);

    while (!st->quit && !tui_term_stop_signal()) {
        /* curses may have resized the screen inside doupdate() (a SIGWINCH
         * seen there) before its KEY_RESIZE is read: never draw the old
         * windows into the new screen. */
        /* A lesson caption follows the reader's units (u). */
        dirty |= tui_lecture_sync(&ss->lecture, st);
        if (dirty && (LINES != ui.screen_rows || COLS != ui.screen_cols))
            dirty |= TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
        if (dirty & TUI_DIRTY_REFLOW) {
            int rows, cols;
            getmaxyx(stdscr, rows, cols);
            werase(stdscr);
            wnoutrefresh(stdscr);
            tui_ui_reflow(&ui, st, rows, cols);
            st->compact = ui.layout.kind == TUI_LAYOUT_COMPACT;
            /* Roofline and Measure are not shown compact: focus Speed. */
            if (st->compact &&
                (st->focus_pane == TUI_PANE_ROOF || st->focus_pane == TUI_PANE_MEASURE))
                st->focus_pane = TUI_PANE_SPEED;
        }
        if (dirty & TUI_DIRTY_RECOMPUTE)
            tui_state_recompute(st);
        if (dirty) {
            tui_draw_frame(&ui, st);
            st->overlay_scroll_max = ui.overlay_max;
            st->overlay_page = ui.overlay_page;
            st->lx.caption_pages = ui.caption_pages;
            if (st->lx.caption_page >= ui.caption_pages) /* a resize made it shorter */
                st->lx.caption_page = ui.caption_pages ? ui.caption_pages - 1 : 0;
        }
        dirty = 0;

        /* Poll the keyboard briefly while the probe or the runtime bench
         * runs, and while the advice worker searches (its spinner turns,
         * its answer shows). */
        timeout(probe.running || probe.rt_running ? 30 : tui_state_advice_pending(st) ? 100 : 250);
        int ch = getch();
        dirty |= tui_mpane_poll(&probe, st);
        dirty |= tui_state_advice_poll(st);
        if (ch == ERR)
            continue;
        /* A question revealed by a change (not by n) shows its answer: the
         * caption bar takes that text's rows. */
        bool asking = tui_lecture_asking(&st->lx);
        if (ch == KEY_MOUSE) {
            /* A wheel change leaves the lesson step (and reveals a
             * question), a click on a read-out waits for its answer. */
            unsigned d = on_mouse(st, &ui);
            tui_lecture_after(st, d);
            dirty |= d;
        } else {
            int k = key_from_curses(ch);
            unsigned d = 0;
            /* The Model pane's model-file prompt takes every key (typed
             * into the path, not lesson or lecture keys). */
            bool file_key = st->overlay == TUI_OVERLAY_FILE;
            if (k && file_key) {
                d = tui_state_key(st, k);
                tui_lecture_after(st, d);
            } else if (k && !tui_mpane_key(&probe, st, k, &d) &&
                       !tui_lecture_key(&ss->lecture, st, k, &d)) {
                d = tui_state_key(st, k);
                tui_lecture_after(st, d);
            }
            dirty |= d;
            if (st->lx.present != ss->shown_present) {
                session_theme(ss, st->lx.present);
                dirty |= TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
            }
        }
        if (asking != tui_lecture_asking(&st->lx))
            dirty |= TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
        dirty |= tui_mpane_poll(&probe, st);
        /* The focused Measure pane with results grows over Speed and Roofline. */
        if (tui_measure_grows(st) != ui.layout.measure_grown)
            dirty |= TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
        /* Compact layout follows the focused input pane. */
        if (st->compact && !st->lx.present && !ui.layout.pane[st->last_input].visible)
            dirty |= TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
    }
    tui_mpane_stop(&probe);
    tui_ui_free(&ui);
    int sig = tui_term_stop_signal();
    return sig ? 128 + sig : VRAMLAB_EXIT_OK;
}

/* Restore the last scenario into o unless the command line chose one
 * (see usage). A broken file leaves the defaults and a message, and is
 * not overwritten on quit (*keep_state), so it can be looked at. */
static void restore_last(struct options *o, const struct catalog *cat, char *msg, size_t msglen,
                         bool *keep_state) {
    char path[1024], err[SCENARIO_FILE_ERR_MAX];
    struct options loaded;
    msg[0] = '\0';
    *keep_state = false;
    if (o->fresh || o->scenario_file || o->lesson || options_has_scenario_flags(o))
        return;
    if (scenario_file_state_path(path, sizeof(path), false, err, sizeof(err)) != 0)
        return;
    int rc = scenario_file_load(path, cat, &loaded, err, sizeof(err));
    if (rc == SCENARIO_FILE_OK) {
        enum units units = o->units;
        scenario_file_apply(o, &loaded);
        /* --units is the session's choice: it wins over the file's. */
        if (o->given.set[PARAM_UNITS])
            o->units = units;
    } else if (rc == SCENARIO_FILE_ERROR) {
        size_t n = strcspn(err, "\n");
        snprintf(msg, msglen, _("last scenario not restored (kept, not overwritten): %.*s"),
                 (int)(n < 100 ? n : 100), err);
        *keep_state = true;
    }
}

/* Save the scenario for the next start (a normal quit only). */
static void save_last(const struct tui_state *st) {
    char path[1024], err[SCENARIO_FILE_ERR_MAX];
    if (scenario_file_state_path(path, sizeof(path), true, err, sizeof(err)) != 0 ||
        scenario_file_save(path, &st->opt, st->cat, true, err, sizeof(err)) != 0)
        fprintf(stderr, _("vramlab: the last scenario was not saved: %s"), err);
}

/* The status-line form of the catalog's messages: the first line, and how
 * many more there are. */
static void diag_message(const struct catalog_diag *d, char *msg, size_t len) {
    const char *t = d->text, *y = strstr(t, ".yaml:");
    size_t first = strcspn(t, "\n"), lines = 0;
    if (y && (size_t)(y - t) < first) { /* the file's name without its directory */
        for (const char *s = t; s < y; s++)
            if (*s == '/')
                t = s + 1;
        first -= (size_t)(t - d->text);
    }
    for (const char *s = d->text; *s; s++)
        lines += *s == '\n' && s[1] != '\0';
    if (lines > 0)
        snprintf(msg, len, _("catalog: %.*s (+%zu more after quitting)"), (int)first, t, lines);
    else
        snprintf(msg, len, _("catalog: %.*s"), (int)first, t);
}

/* Leave before the screen starts: the catalog's messages go to stderr. */
static int early_exit(struct catalog *cat, struct catalog_diag *diag, int rc) {
    tui_state_advice_stop();
    options_print_diag(diag);
    catalog_diag_free(diag);
    catalog_free(cat);
    return rc;
}

/* The interactive explorer: vramlab [scenario options]. */
int tui_main(int argc, char **argv) {
    struct catalog cat;
    struct options o;
    struct tui_term_opts to;
    struct tui_term_info ti;
    static struct tui_state st;
    static struct tui_session ss;
    static char err[LESSON_MAX_ERRORS * SCENARIO_FILE_ERR_MAX];
    char msg[TUI_MSG_MAX];
    bool keep_state = false;
    int rc;

    struct catalog_diag diag = {0};
    rc = options_scan(argc, argv, false, &o);
    if (rc != 0)
        return rc;
    rc = options_load_catalog_diag(o.catalog_file, &cat, &diag);
    if (rc != 0)
        return early_exit(&cat, &diag, rc);
    rc = options_build(&cat, &o);
    if (rc == 0 && !o.help)
        rc = options_apply_scenario_file(&o, &cat);
    if (rc != 0 || o.help) {
        if (o.help)
            usage(stdout);
        return early_exit(&cat, &diag, rc);
    }
    memset(&to, 0, sizeof(to));
    to.no_color = o.no_color;
    to.no_mouse = o.no_mouse;
    to.ascii = o.ascii;
    to.scheme = TUI_SCHEME_DARK;
    int scheme; /* the table's order is enum tui_scheme's */
    if (o.theme && options_enum(PARAM_THEME, o.theme, &scheme) != 0)
        return early_exit(&cat, &diag, VRAMLAB_EXIT_USAGE);
    if (o.theme)
        to.scheme = (enum tui_scheme)scheme;
    if (to.scheme == TUI_SCHEME_MONO)
        to.no_color = true;

    /* This machine's CPU in the GPU picker once it has been measured
     * (vramlab measure --device cpu, the Measure pane, --device cpu). */
    struct cpu_device cpu;
    char cpu_err[256];
    if (!catalog_find_gpu(&cat, "cpu") && cpu_device_load(&cpu, true, cpu_err, sizeof(cpu_err)) == 0) {
        struct engine_gpu g;
        /* a GGUF file: llama.cpp's own kernels where plan --device cpu (or
         * the explorer's --device cpu) timed them; not timed here, where the
         * explorer may never show the CPU */
        if (o.model_file && cpu_device_runtime(&cpu, o.model_file, &o.sc.model, false, cpu_err,
                                               sizeof(cpu_err)) < 0)
            fprintf(stderr,
                    _("vramlab: --device cpu: the probe's kernels stand for llama.cpp's: %s\n"),
                    cpu_err);
        cpu_device_gpu(&cpu, &g);
        catalog_add_gpu(&cat, &g);
    }
    restore_last(&o, &cat, msg, sizeof(msg), &keep_state);
    /* A scenario's model file gone (--scenario, last.yaml): said at once. */
    if (!msg[0] && o.note[0])
        snprintf(msg, sizeof(msg), "%.*s", (int)sizeof(msg) - 1, o.note);
    /* Options given that have no effect here: said on the status line. */
    const char *notes[1];
    if (!msg[0] && options_ignored_notes(&o, notes, 1) == 1)
        snprintf(msg, sizeof(msg), "%s", notes[0]);
    /* The verdict's searches run off the input thread (if no thread starts,
     * they run at once). */
    tui_state_advice_start();
    tui_state_init(&st, &o, &cat);
    tui_lecture_init(&ss.lecture);
    /* Before the first step: --present shows its headline, not the step's
     * explanation over it (e opens that). */
    st.lx.present = o.present;
    if (o.lesson && tui_lecture_open(&ss.lecture, &st, o.lesson, err, sizeof(err)) != 0) {
        fprintf(stderr, "vramlab: --lesson: %s", err);
        tui_lecture_free(&ss.lecture);
        return early_exit(&cat, &diag, VRAMLAB_EXIT_USAGE);
    }
    if (!tui_term_is_tty()) {
        fputs(_("vramlab: the explorer needs a terminal on stdin and stdout.\n"
                "For scripts and pipes use `vramlab plan` (add --json), e.g.\n"
                "  vramlab plan --model llama-3.1-70b --gpu h100-sxm --gpus 2\n"),
              stderr);
        tui_lecture_free(&ss.lecture);
        return early_exit(&cat, &diag, VRAMLAB_EXIT_USAGE);
    }
    if (msg[0])
        snprintf(st.message, sizeof(st.message), "%s", msg);
    else if (diag.text && *diag.text)
        diag_message(&diag, st.message, sizeof(st.message));
    /* A lesson resumes where the last session left it (unless --fresh). */
    if (o.lesson)
        tui_lecture_keep(&ss.lecture, &st, o.fresh);
    if (tui_term_start(&to, &ti, err, sizeof(err)) != 0) {
        fprintf(stderr, "vramlab: %s\n", err);
        tui_lecture_free(&ss.lecture);
        return early_exit(&cat, &diag, VRAMLAB_EXIT_USAGE);
    }
    ss.ti = &ti;
    ss.scheme = to.scheme;
    ss.theme_given = o.theme != NULL;
    rc = run_loop(&st, &ss);
    tui_state_advice_stop();
    tui_term_stop();
    options_print_diag(&diag);
    catalog_diag_free(&diag);
    /* Only a normal quit saves: a signal may come from a crash or a kill;
     * --fresh leaves the user's saved last scenario alone. */
    if (rc == VRAMLAB_EXIT_OK && !keep_state && !o.fresh)
        save_last(&st);
    tui_lecture_free(&ss.lecture);
    catalog_free(&cat);
    if (rc > 128)
        fprintf(stderr, _("vramlab: stopped by signal %d; terminal restored\n"), rc - 128);
    return rc;
}
