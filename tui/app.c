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
#include "tui/draw.h"
#include "tui/i18n.h"
#include "tui/lecture_ui.h"
#include "tui/probe_client.h"
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

/* The probe run behind the Measure pane (quick, bandwidth tests only: the
 * pane compares rates, the full report is `vramlab measure`). */
struct tui_probe {
    struct probe_client pc;
    bool running;
};

/* Start the probe for a measure request; failures land in the pane. */
static void probe_start(struct tui_probe *p, struct tui_measure *m) {
    static const char *const args[] = {"--quick", "--tests", "copy,read,gemv-fp16,w8a16,w4a16",
                                       NULL};
    char path[512], err[256];
    m->start_request = false;
    m->cancel_request = false;
    m->n_rows = 0;
    m->device[0] = m->progress[0] = m->error[0] = '\0';
    if (probe_client_find(path, sizeof(path), err, sizeof(err)) != 0 ||
        probe_client_start(&p->pc, path, args, err, sizeof(err)) != 0) {
        snprintf(m->error, sizeof(m->error), "%.150s", err);
        m->status = TUI_MEASURE_FAILED;
        return;
    }
    p->running = true;
    m->status = TUI_MEASURE_RUNNING;
}

/* Take one probe event into the pane's data. */
static void probe_event(struct tui_measure *m, const struct probe_event *ev) {
    const struct probe_json *j = &ev->j;
    const char *s, *s2;
    switch (ev->kind) {
    case PROBE_EV_DEVICE:
        s = probe_json_str(j, "name");
        s2 = probe_json_str(j, "backend");
        snprintf(m->device, sizeof(m->device), "%.60s (%.20s)", s ? s : "?", s2 ? s2 : "?");
        break;
    case PROBE_EV_PROGRESS:
        snprintf(m->progress, sizeof(m->progress), "%s %.0f%%",
                 (s = probe_json_str(j, "test")) ? s : "?",
                 100 * probe_json_num(j, "fraction", 0));
        break;
    case PROBE_EV_RESULT:
        tui_measure_add(m, probe_json_str(j, "test"), probe_json_num(j, "bytes_per_s", 0),
                        probe_json_num(j, "threads", 0), probe_json_num(j, "batch", 0));
        break;
    case PROBE_EV_ERROR:
        snprintf(m->error, sizeof(m->error), "%s",
                 (s = probe_json_str(j, "message")) ? s : "the probe reported an error");
        break;
    case PROBE_EV_BAD:
    case PROBE_EV_TRUNCATED:
        snprintf(m->error, sizeof(m->error), "probe output: %.140s", ev->error);
        break;
    default:
        break;
    }
}

/* Read what the probe has written; returns dirty flags. */
static unsigned probe_poll(struct tui_probe *p, struct tui_measure *m) {
    static struct probe_event ev;
    unsigned dirty = 0;
    if (!p->running)
        return 0;
    if (m->cancel_request) {
        probe_client_cancel(&p->pc, 200);
        p->running = false;
        m->cancel_request = false;
        m->status = TUI_MEASURE_FAILED;
        snprintf(m->error, sizeof(m->error), "cancelled");
        return TUI_DIRTY_REPAINT;
    }
    while (probe_client_read(&p->pc) > 0)
        ;
    while (probe_client_next(&p->pc, &ev) > 0) {
        probe_event(m, &ev);
        dirty = TUI_DIRTY_REPAINT;
    }
    if (p->pc.eof) {
        int rc = probe_client_finish(&p->pc);
        p->running = false;
        m->status = rc == 0 && m->n_rows > 0 ? TUI_MEASURE_DONE : TUI_MEASURE_FAILED;
        if (m->status == TUI_MEASURE_FAILED && !m->error[0])
            snprintf(m->error, sizeof(m->error), "the probe exited with status %d", rc);
        dirty = TUI_DIRTY_REPAINT;
    }
    return dirty;
}

/* Print the explorer's usage. */
static void usage(FILE *f) {
    fputs(_("usage: vramlab [scenario options] [--theme dark|light|high-contrast]\n"
            "               [--no-color] [--no-mouse] [--ascii]\n"
            "               [--scenario FILE] [--lesson FILE|NAME] [--present] [--fresh]\n"
            "The interactive explorer; the scenario options are those of `vramlab plan`.\n"
            "Inside: ? lists every key, q quits.\n"
            "Lessons: n, Space or PgDn next step; p, Backspace or PgUp back; r returns\n"
            "to the step. F presentation mode, c compare, s save, o open a scenario.\n"
            "The last scenario is restored from $XDG_STATE_HOME/vramlab/last.yaml unless\n"
            "--fresh, --scenario, --lesson or a scenario option is given; it is saved\n"
            "there on quit (q).\n\n"),
          f);
    options_print_explorer_help(f);
    options_print_help(f);
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
    static struct tui_probe probe;
    unsigned dirty = TUI_DIRTY_ALL;
    memset(&ui, 0, sizeof(ui));
    ui.g = tui_glyphs_get(ti->utf8);
    ui.mono = ti->mono;
    session_theme(ss, st->lx.present);

    while (!st->quit && !tui_term_stop_signal()) {
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
        if (dirty)
            tui_draw_frame(&ui, st);
        dirty = 0;

        /* Poll the keyboard briefly while the probe runs. */
        timeout(probe.running ? 30 : 250);
        int ch = getch();
        dirty |= probe_poll(&probe, &st->measure);
        if (ch == ERR)
            continue;
        if (ch == KEY_MOUSE) {
            dirty |= on_mouse(st, &ui);
        } else {
            int k = key_from_curses(ch);
            unsigned d = 0;
            if (k && !tui_lecture_key(&ss->lecture, st, k, &d)) {
                d = tui_state_key(st, k);
                tui_lecture_after(st, d);
            }
            dirty |= d;
            if (st->lx.present != ss->shown_present) {
                session_theme(ss, st->lx.present);
                dirty |= TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
            }
        }
        if (st->measure.start_request && !probe.running) {
            probe_start(&probe, &st->measure);
            dirty |= TUI_DIRTY_REPAINT;
        }
        dirty |= probe_poll(&probe, &st->measure);
        /* Compact layout follows the focused input pane. */
        if (st->compact && !st->lx.present && !ui.layout.pane[st->last_input].visible)
            dirty |= TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
    }
    if (probe.running)
        probe_client_cancel(&probe.pc, 200);
    tui_ui_free(&ui);
    int sig = tui_term_stop_signal();
    return sig ? 128 + sig : VRAMLAB_EXIT_OK;
}

/* Restore the last scenario into o unless the command line chose one
 * (see usage). A broken file leaves the defaults and a message, and is
 * not overwritten on quit (*keep_state), so it can be looked at. */
static void restore_last(struct options *o, int argc, char **argv, const struct catalog *cat,
                         char *msg, size_t msglen, bool *keep_state) {
    char path[1024], err[SCENARIO_FILE_ERR_MAX];
    struct options loaded;
    msg[0] = '\0';
    *keep_state = false;
    if (o->fresh || o->scenario_file || o->lesson || options_has_scenario_flags(argc, argv))
        return;
    if (scenario_file_state_path(path, sizeof(path), false, err, sizeof(err)) != 0)
        return;
    int rc = scenario_file_load(path, cat, &loaded, err, sizeof(err));
    if (rc == SCENARIO_FILE_OK) {
        scenario_file_apply(o, &loaded);
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

    catalog_init(&cat);
    rc = options_load_catalog(argc, argv, &cat);
    if (rc != 0) {
        catalog_free(&cat);
        return rc;
    }
    rc = options_parse(argc, argv, &cat, &o, false);
    if (rc == 0 && !o.help)
        rc = options_apply_scenario_file(&o, argc, argv, &cat);
    if (rc != 0 || o.help) {
        if (o.help)
            usage(stdout);
        catalog_free(&cat);
        return rc;
    }
    memset(&to, 0, sizeof(to));
    to.no_color = o.no_color;
    to.no_mouse = o.no_mouse;
    to.ascii = o.ascii;
    to.scheme = TUI_SCHEME_DARK;
    if (o.theme && tui_scheme_parse(o.theme, &to.scheme) != 0) {
        fprintf(stderr, _("vramlab: --theme: expected dark, light, high-contrast or mono, found '%s'\n"),
                o.theme);
        catalog_free(&cat);
        return VRAMLAB_EXIT_USAGE;
    }
    if (to.scheme == TUI_SCHEME_MONO)
        to.no_color = true;

    restore_last(&o, argc, argv, &cat, msg, sizeof(msg), &keep_state);
    tui_state_init(&st, &o, &cat);
    tui_lecture_init(&ss.lecture);
    if (o.lesson && tui_lecture_open(&ss.lecture, &st, o.lesson, err, sizeof(err)) != 0) {
        fprintf(stderr, "vramlab: --lesson: %s", err);
        tui_lecture_free(&ss.lecture);
        catalog_free(&cat);
        return VRAMLAB_EXIT_USAGE;
    }
    if (!tui_term_is_tty()) {
        fputs(_("vramlab: the explorer needs a terminal on stdin and stdout.\n"
                "For scripts and pipes use `vramlab plan` (add --json), e.g.\n"
                "  vramlab plan --model llama-3.1-70b --gpu h100-sxm --gpus 2\n"),
              stderr);
        tui_lecture_free(&ss.lecture);
        catalog_free(&cat);
        return VRAMLAB_EXIT_USAGE;
    }
    st.lx.present = o.present;
    if (msg[0])
        snprintf(st.message, sizeof(st.message), "%s", msg);
    if (tui_term_start(&to, &ti, err, sizeof(err)) != 0) {
        fprintf(stderr, "vramlab: %s\n", err);
        tui_lecture_free(&ss.lecture);
        catalog_free(&cat);
        return VRAMLAB_EXIT_USAGE;
    }
    ss.ti = &ti;
    ss.scheme = to.scheme;
    ss.theme_given = o.theme != NULL;
    rc = run_loop(&st, &ss);
    tui_term_stop();
    /* Only a normal quit saves: a signal may come from a crash or a kill. */
    if (rc == VRAMLAB_EXIT_OK && !keep_state)
        save_last(&st);
    tui_lecture_free(&ss.lecture);
    catalog_free(&cat);
    if (rc > 128)
        fprintf(stderr, _("vramlab: stopped by signal %d; terminal restored\n"), rc - 128);
    return rc;
}
