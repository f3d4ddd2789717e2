/*
 * term.c: terminal set-up, restore and signals (see term.h).
 *
 * One handler path for every signal that ends us. SIGINT, SIGTERM and
 * SIGHUP first only record the signal (installed without SA_RESTART so a
 * blocking read returns; the loop also polls with a short timeout), so the
 * explorer stops cleanly and saves its state; a second one while the first
 * is pending, and every other signal whose default action ends the process
 * (SIGQUIT from Ctrl-\, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGVTALRM,
 * SIGPROF, SIGXCPU, SIGXFSZ, SIGSYS, SIGTRAP and the crash signals SIGSEGV,
 * SIGBUS, SIGFPE, SIGABRT, SIGILL) take the fatal path: only async-signal-
 * safe calls: write(2) of the reset sequences prepared at start-up (mouse
 * tracking off, attributes off, keypad off, cursor shown, the main screen
 * back) and tcsetattr(3) of the terminal modes saved before curses started,
 * then the signal re-raised with its default action (unblocked, so it is
 * delivered at once): the exit status and any core dump stay true. An
 * exit() path restores through tui_term_stop() (atexit).
 */
#include "config.h"

#include "tui/term.h"
#include "tui/i18n.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <unistd.h>

static volatile sig_atomic_t tui_stop_signal;
static volatile sig_atomic_t tui_curses_on;
static SCREEN *tui_screen;

/* What the fatal path writes and restores, prepared while starting: the
 * terminal's modes before curses, and the bytes that undo curses' modes. */
static struct termios tui_saved_tio;
static bool tui_have_tio;
static char tui_reset[512];
static size_t tui_reset_len;

/* Append a terminfo string capability (if the terminal has it). */
static void reset_add_cap(const char *cap) {
    const char *s = tigetstr(cap);
    if (s == NULL || s == (const char *)-1)
        return;
    size_t n = strlen(s);
    if (tui_reset_len + n < sizeof tui_reset) {
        memcpy(tui_reset + tui_reset_len, s, n);
        tui_reset_len += n;
    }
}

/* Append literal bytes. */
static void reset_add(const char *s) {
    size_t n = strlen(s);
    if (tui_reset_len + n < sizeof tui_reset) {
        memcpy(tui_reset + tui_reset_len, s, n);
        tui_reset_len += n;
    }
}

/* The bytes that undo what curses set: mouse tracking (the xterm modes
 * ncurses turns on: 1000 normal, 1002 button-event, 1003 any-event, 1006
 * SGR coordinates), attributes, keypad transmit mode, the hidden cursor and
 * the alternate screen. Built once, after newterm(), from terminfo. */
static void reset_prepare(bool mouse) {
    tui_reset_len = 0;
    if (mouse)
        reset_add("\033[?1000l\033[?1002l\033[?1003l\033[?1006l");
    reset_add_cap("sgr0");
    reset_add_cap("rmkx");
    reset_add_cap("cnorm");
    reset_add_cap("rmcup");
}

/* Undo curses with async-signal-safe calls only (the fatal path). */
static void reset_now(void) {
    if (!tui_curses_on)
        return;
    tui_curses_on = 0;
    size_t off = 0;
    while (off < tui_reset_len) {
        ssize_t k = write(STDOUT_FILENO, tui_reset + off, tui_reset_len - off);
        if (k <= 0)
            break;
        off += (size_t)k;
    }
    if (tui_have_tio)
        tcsetattr(STDIN_FILENO, TCSANOW, &tui_saved_tio);
}

/* Restore the terminal, then die of the same signal with its default
 * action, so the exit status (128 + sig) and a core dump stay what they
 * would be. */
static void on_fatal(int sig) {
    reset_now();
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    /* The signal is blocked while its handler runs: unblock it so that it
     * is delivered now, not after returning to a faulting instruction. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
}

/* Record a polite stop request; a second one while the first is still
 * pending (a loop that does not answer) takes the fatal path. */
static void on_stop(int sig) {
    if (tui_stop_signal)
        on_fatal(sig);
    tui_stop_signal = sig;
}

/* Whether stdin and stdout are terminals. */
bool tui_term_is_tty(void) {
    return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

/* Whether the current locale's codeset is UTF-8. */
bool tui_term_locale_utf8(void) {
    const char *cs = nl_langinfo(CODESET);
    return cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
}

/* NO_COLOR (https://no-color.org/): set and not empty. */
bool tui_term_no_color_env(void) {
    const char *v = getenv("NO_COLOR");
    return v && v[0] != '\0';
}

/* Install one handler. */
static void handle(int sig, void (*fn)(int)) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: interrupt the read */
    sigaction(sig, &sa, NULL);
}

/* Start curses with the options; see term.h. */
int tui_term_start(const struct tui_term_opts *o, struct tui_term_info *info, char *err,
                   unsigned errlen) {
    memset(info, 0, sizeof(*info));
    if (!tui_term_is_tty()) {
        snprintf(err, errlen, "%s",
                 _("the explorer needs a terminal (stdin and stdout); "
                   "for scripts use `vramlab plan` (--json for machines)"));
        return -1;
    }
    /* The locale was read by i18n_init() (LC_NUMERIC stays "C" for the
     * parsers); this repeats it for callers that did not (the benchmark). */
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    info->utf8 = !o->ascii && tui_term_locale_utf8();
    /* Esc must close overlays at once, not after a second. */
    if (!getenv("ESCDELAY"))
        setenv("ESCDELAY", "25", 1);
    /* The modes the shell left, for the fatal path to put back. */
    tui_have_tio = tcgetattr(STDIN_FILENO, &tui_saved_tio) == 0;
    tui_screen = newterm(NULL, stdout, stdin);
    if (!tui_screen) {
        snprintf(err, errlen,
                 _("cannot start the terminal (TERM=%s); try TERM=xterm or `vramlab plan`"), getenv("TERM") ? getenv("TERM") : "unset");
        return -1;
    }
    /* A terminal that cannot move the cursor (TERM=dumb) cannot show panes. */
    const char *cup = tigetstr("cup");
    if (cup == NULL || cup == (const char *)-1) {
        endwin();
        delscreen(tui_screen);
        tui_screen = NULL;
        snprintf(err, errlen,
                 _("TERM=%s cannot position the cursor; set TERM (e.g. xterm-256color) "
                   "or use `vramlab plan`"), getenv("TERM") ? getenv("TERM") : "unset");
        return -1;
    }
    tui_curses_on = 1;
    atexit(tui_term_stop);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    timeout(250);

    info->mono = o->no_color || tui_term_no_color_env() || !has_colors();
    if (!info->mono) {
        start_color();
        use_default_colors();
        tui_theme_init(o->scheme);
    } else {
        tui_theme_init(TUI_SCHEME_MONO);
    }
    if (!o->no_mouse) {
        mmask_t want = BUTTON1_PRESSED | BUTTON1_CLICKED;
#if NCURSES_MOUSE_VERSION > 1
        want |= BUTTON4_PRESSED | BUTTON5_PRESSED;
#endif
        info->mouse = mousemask(want, NULL) != 0;
        mouseinterval(0);
    }

    reset_prepare(info->mouse);
    handle(SIGINT, on_stop);
    handle(SIGTERM, on_stop);
    handle(SIGHUP, on_stop);
    static const int fatal[] = {SIGQUIT, SIGUSR1,   SIGUSR2, SIGPIPE, SIGALRM, SIGVTALRM,
                                SIGPROF, SIGXCPU,   SIGXFSZ, SIGSYS,  SIGTRAP, SIGSEGV,
                                SIGBUS,  SIGFPE,    SIGABRT, SIGILL};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        handle(fatal[i], on_fatal);
    return 0;
}

/* Restore the terminal once. */
void tui_term_stop(void) {
    if (!tui_curses_on)
        return;
    tui_curses_on = 0;
    if (!isendwin()) {
        mousemask(0, NULL);
        curs_set(1);
        /* Without an alternate screen (TERM=vt100) the frame stays: clear
         * the last line and leave the cursor there, so the shell's output
         * does not land on top of the footer. */
        move(LINES - 1, 0);
        clrtoeol();
        refresh();
        endwin();
    }
    fflush(stdout);
    if (tui_screen) {
        delscreen(tui_screen);
        tui_screen = NULL;
    }
}

/* The signal that asked us to stop, or 0. */
int tui_term_stop_signal(void) {
    return tui_stop_signal;
}
