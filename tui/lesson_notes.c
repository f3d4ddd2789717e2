/*
 * lesson_notes.c: vramlab --lesson NAME --notes, the presenter's view
 * (issue 24 item 4), for a second terminal beside the projected one.
 *
 * The explorer running the lesson keeps its step in a small file
 * (lesson_progress_path: $XDG_STATE_HOME/vramlab/lessons/NAME.step); this
 * view polls it four times a second and, whenever the step changes, shows
 * that step's presenter notes (what to say, what to ask, the answers
 * expected), its question and caption as the room sees them, and what
 * comes next. Plain text, no curses: on a terminal each step clears the
 * screen; piped, each step follows the last. Enter on a line with q (or
 * Ctrl-C) quits; the terminal is never put in another mode, so there is
 * nothing to restore.
 */
#include "config.h"

#include "tui/lesson_notes.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "tui/i18n.h"
#include "tui/lesson.h"

#define NOTES_TEXT_MAX 8192

/* Columns of the terminal on stdout (80 when it is not one). */
static int notes_cols(void) {
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

/* Print text wrapped at spaces to width columns, each line indented. */
static void notes_wrap(FILE *f, const char *text, int width, const char *indent) {
    char line[NOTES_TEXT_MAX];
    size_t n = 0;
    int cols = 0, iw = i18n_width(indent);
    const char *s = text;
    while (*s) {
        while (*s == ' ')
            s++;
        const char *w = s;
        while (*s && *s != ' ' && *s != '\n')
            s++;
        size_t wl = (size_t)(s - w);
        char word[1024];
        snprintf(word, sizeof(word), "%.*s", (int)(wl < sizeof(word) ? wl : sizeof(word) - 1), w);
        int ww = i18n_width(word);
        if (n > 0 && iw + cols + 1 + ww > width) {
            fprintf(f, "%s%.*s\n", indent, (int)n, line);
            n = 0;
            cols = 0;
        }
        if (n + wl + 2 < sizeof(line)) {
            if (n > 0)
                line[n++] = ' ', cols++;
            memcpy(line + n, w, wl);
            n += wl;
            cols += ww;
        }
        if (*s == '\n') {
            s++;
            fprintf(f, "%s%.*s\n", indent, (int)n, line);
            n = 0;
            cols = 0;
        }
    }
    if (n > 0)
        fprintf(f, "%s%.*s\n", indent, (int)n, line);
}

/* Show step i of the lesson. */
static void notes_show(const struct lesson *l, size_t i, const char *progress, bool tty,
                       enum units units) {
    static char buf[NOTES_TEXT_MAX];
    const struct lesson_step *s = lesson_step(l, i);
    const struct engine_numfmt *fmt = i18n_numfmt(units == UNITS_GIB);
    struct engine_estimate e;
    int width = notes_cols();
    if (!s)
        return;
    engine_estimate(&s->options.sc, &e);
    if (tty)
        fputs("\033[H\033[2J", stdout);
    else
        puts("----------------------------------------------------------------");
    printf("%s %zu/%zu: %s\n", l->title, i + 1, lesson_count(l), s->title);
    printf(_("(follows the presenter's step in %s; q and Enter quit)\n\n"), progress);
    printf("%s\n", _("Notes:"));
    if (s->notes) {
        lesson_text_render(fmt, &s->options.sc, &e, l->language, s->notes, buf, sizeof(buf));
        notes_wrap(stdout, buf, width, "  ");
    } else {
        printf("  %s\n", _("(this step has no notes)"));
    }
    if (s->question) {
        lesson_text_render(fmt, &s->options.sc, &e, l->language, s->question, buf, sizeof(buf));
        printf("\n%s\n", _("Question:"));
        notes_wrap(stdout, buf, width, "  ");
    }
    lesson_text_render(fmt, &s->options.sc, &e, l->language, s->caption, buf, sizeof(buf));
    printf("\n%s\n", s->question ? _("Answer:") : _("On the screen:"));
    notes_wrap(stdout, buf, width, "  ");
    const struct lesson_step *next = lesson_step(l, i + 1);
    if (next)
        printf(_("\nNext: %zu. %s\n"), i + 2, next->title);
    else
        printf("\n%s\n", _("This is the last step."));
    fflush(stdout);
}

int lesson_notes_main(const char *name, const struct catalog *cat, enum units units) {
    static char err[LESSON_MAX_ERRORS * 1024];
    char lang[16], path[4096], progress[4096];
    struct lesson l;
    i18n_language(lang, sizeof(lang));
    if (lesson_resolve(name, lang, path, sizeof(path)) != 0) {
        fprintf(stderr, _("vramlab: --lesson: no lesson file or name '%s'"), name);
        fputs(_(" (or a lesson file's path; see docs/lessons.md)\n"), stderr);
        return VRAMLAB_EXIT_USAGE;
    }
    if (lesson_load(path, cat, &l, err, sizeof(err)) != 0) {
        fprintf(stderr, "vramlab: --lesson: %s", err);
        return VRAMLAB_EXIT_USAGE;
    }
    if (lesson_progress_path(l.path, progress, sizeof(progress), false, err, sizeof(err)) != 0) {
        fprintf(stderr, _("vramlab: --notes: cannot follow the presenter: %s\n"), err);
        lesson_free(&l);
        return 1;
    }
    bool tty = isatty(STDOUT_FILENO), input = true;
    long shown = -2;
    for (;;) {
        long k = lesson_progress_read(progress);
        if (k < 0 || (size_t)k >= lesson_count(&l))
            k = 0; /* the presenter has not started: the first step */
        if (k != shown) {
            notes_show(&l, (size_t)k, progress, tty, units);
            shown = k;
        }
        /* Wait a quarter of a second, or for a line on stdin. */
        struct pollfd p = {STDIN_FILENO, POLLIN, 0};
        if (input && poll(&p, 1, 250) > 0) {
            char line[64];
            ssize_t r = read(STDIN_FILENO, line, sizeof(line) - 1);
            if (r <= 0) {
                input = false; /* no more input (a pipe, /dev/null): follow until killed */
            } else if (line[0] == 'q' || line[0] == 'Q') {
                break;
            }
        } else if (!input) {
            struct timespec ts = {0, 250 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    lesson_free(&l);
    return 0;
}
