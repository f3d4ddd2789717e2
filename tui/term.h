/*
 * term.h: putting the terminal into curses mode and always getting it back.
 *
 * tui_term_start() refuses without a terminal, reads the locale
 * (setlocale + nl_langinfo(CODESET)) to choose UTF-8 or ASCII, starts
 * curses, picks the colour scheme (monochrome when the terminal has no
 * colours, NO_COLOR is set or --no-color), enables the mouse unless told
 * not to, and installs signal handlers: SIGINT, SIGTERM and SIGHUP set a
 * flag that the loop polls (a second one is fatal); every other signal
 * whose default action ends the process (SIGQUIT, SIGUSR1/2, SIGPIPE,
 * SIGALRM, the crash signals...) restores the terminal with async-signal-
 * safe writes and re-raises with the default action (term.c has the list).
 * tui_term_stop() is idempotent and also runs at exit.
 */
#ifndef VRAMLAB_TUI_TERM_H
#define VRAMLAB_TUI_TERM_H

#include <stdbool.h>

#include "tui/theme.h"

struct tui_term_opts {
    bool no_color, no_mouse, ascii;
    enum tui_scheme scheme; /* wanted colour scheme (ignored in mono) */
};

struct tui_term_info {
    bool utf8;  /* UTF-8 drawing in use */
    bool mono;  /* the monochrome scheme is in use */
    bool mouse; /* mouse events enabled */
};

/* Whether stdin and stdout are both terminals. */
bool tui_term_is_tty(void);

/* Whether the locale's character set is UTF-8 (after setlocale). */
bool tui_term_locale_utf8(void);

/* Whether colour is off by the environment (NO_COLOR set and non-empty). */
bool tui_term_no_color_env(void);

/* Start curses; returns 0, or -1 with a message in err. */
int tui_term_start(const struct tui_term_opts *o, struct tui_term_info *info, char *err,
                   unsigned errlen);

/* Restore the terminal (idempotent; safe at exit and on fatal paths). */
void tui_term_stop(void);

/* The signal that asked us to stop (SIGINT, SIGTERM, SIGHUP), or 0. */
int tui_term_stop_signal(void);

#endif
