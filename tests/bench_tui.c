/*
 * bench_tui.c: CPU time from a key press to a finished frame at 200x60.
 *
 * The explorer's own code path without a terminal: curses is started with
 * newterm() on /dev/null (TERM=xterm-256color, LINES=60, COLUMNS=200), the
 * default catalog is loaded, and a scripted session of key presses runs
 * through the state machine, the engine (estimate, verdict, batch curve)
 * and a full repaint with doupdate(). Each press is timed on the process
 * CPU clock; the mean, median, 99th percentile and maximum are printed,
 * for a scenario that fits and one that does not (whose verdict searches
 * formats and GPU counts for advice). Target: under 2 ms per press.
 */
#include "config.h"

#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "catalog/catalog.h"
#include "tui/draw.h"
#include "tui/state.h"

#define PRESSES 4000

/* CPU seconds of this process. */
static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Ascending order of doubles for qsort. */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Run the scripted session on a state; print the timing line. */
static void run(const char *label, struct tui_state *st, struct tui_ui *ui) {
    static const int script[] = {
        TUI_KEY_RIGHT, TUI_KEY_LEFT, TUI_KEY_TAB, TUI_KEY_RIGHT, TUI_KEY_RIGHT,
        TUI_KEY_LEFT,  TUI_KEY_TAB,  TUI_KEY_RIGHT, TUI_KEY_LEFT, TUI_KEY_TAB,
        TUI_KEY_DOWN,  TUI_KEY_PGUP, TUI_KEY_PGDN, TUI_KEY_DOWN, TUI_KEY_RIGHT,
        TUI_KEY_LEFT,  't',          't',          't',           't',
        'u',           'u',          TUI_KEY_TAB,  TUI_KEY_RIGHT, 'e',
        TUI_KEY_ESC,   TUI_KEY_TAB,  TUI_KEY_TAB,  TUI_KEY_TAB,   TUI_KEY_TAB,
        TUI_KEY_TAB,
    };
    static double t[PRESSES];
    size_t n = sizeof(script) / sizeof(script[0]);
    double sum = 0;
    for (int i = 0; i < PRESSES; i++) {
        double t0 = cpu_now();
        unsigned d = tui_state_key(st, script[(size_t)i % n]);
        if (d & TUI_DIRTY_REFLOW)
            tui_ui_reflow(ui, st, LINES, COLS);
        if (d & TUI_DIRTY_RECOMPUTE)
            tui_state_recompute(st);
        tui_draw_frame(ui, st);
        t[i] = cpu_now() - t0;
        sum += t[i];
        st->quit = false;
    }
    qsort(t, PRESSES, sizeof(t[0]), cmp_double);
    printf("%-34s mean %.3f ms  median %.3f ms  p99 %.3f ms  max %.3f ms  (%d presses)\n",
           label, sum / PRESSES * 1e3, t[PRESSES / 2] * 1e3, t[PRESSES * 99 / 100] * 1e3,
           t[PRESSES - 1] * 1e3, PRESSES);
}

/* Set up curses on /dev/null at 200x60 and time two scenarios. */
int main(void) {
    struct catalog cat;
    struct catalog_diag d = {0};
    struct options o;
    static struct tui_state st;
    struct tui_ui ui;

    /* A UTF-8 terminal, as most users have: the heavier glyph path. */
    if (!setlocale(LC_ALL, "C.UTF-8"))
        setlocale(LC_ALL, "");
    setenv("TERM", "xterm-256color", 1);
    setenv("LINES", "60", 1);
    setenv("COLUMNS", "200", 1);
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    SCREEN *scr = newterm(NULL, out, in);
    if (!scr) {
        fprintf(stderr, "bench_tui: newterm failed\n");
        return 1;
    }
    start_color();
    use_default_colors();
    tui_theme_init(TUI_SCHEME_DARK);

    catalog_init(&cat);
    if (catalog_load_default(&cat, &d) != 0)
        fprintf(stderr, "bench_tui: catalog: %s\n", d.text ? d.text : "?");
    catalog_diag_free(&d);

    memset(&ui, 0, sizeof(ui));
    ui.g = tui_glyphs_get(true);
    printf("explorer key press -> finished frame, %dx%d, CPU time per press\n", COLS, LINES);

    memset(&o, 0, sizeof(o));
    engine_scenario_defaults(&o.sc);
    tui_state_init(&st, &o, &cat);
    tui_ui_reflow(&ui, &st, LINES, COLS);
    run("fits (Llama 3.1 8B, 1 x H100)", &st, &ui);

    const struct engine_model *big = catalog_find_model(&cat, "llama-3.1-405b");
    if (big) {
        o.sc.model = *big;
        tui_state_init(&st, &o, &cat);
        tui_ui_reflow(&ui, &st, LINES, COLS);
        run("does not fit (405B, 1 x H100)", &st, &ui);
    }

    tui_ui_free(&ui);
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
    catalog_free(&cat);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak resident set of the benchmark: %.1f MB\n", ru.ru_maxrss / 1024.0);
    return 0;
}
