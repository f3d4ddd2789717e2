/*
 * i18n.c: the locale at start, the message catalogue, and localised
 * figures (see i18n.h).
 *
 * Where the catalogue is: a program run from the build tree (its
 * /proc/self/exe lies in VRAMLAB_ABS_BUILDDIR) reads the .mo files the
 * build compiled into $(builddir)/locale, so `make check` tests Spanish
 * without installing; an installed one reads $(localedir).
 */
#include "tui/i18n.h"

#include <langinfo.h>
#include <stdbool.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef VRAMLAB_LOCALEDIR
#define VRAMLAB_LOCALEDIR "/usr/local/share/locale"
#endif

/* The user's decimal point and thousands separator ("." and "," in C). */
static char i18n_point[8] = ".";
static char i18n_sep[8] = ",";

/* Whether the running program is the build tree's (not an installed one). */
static bool i18n_in_build_tree(void) {
#ifdef VRAMLAB_ABS_BUILDDIR
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    size_t bl = strlen(VRAMLAB_ABS_BUILDDIR);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    return strncmp(exe, VRAMLAB_ABS_BUILDDIR, bl) == 0 && exe[bl] == '/';
#else
    return false;
#endif
}

/* Set up the locale and the catalogue (see header). */
void i18n_init(const char *argv0) {
    (void)argv0;
    setlocale(LC_ALL, "");
    const struct lconv *lc = localeconv();
    if (lc && lc->decimal_point && *lc->decimal_point)
        snprintf(i18n_point, sizeof(i18n_point), "%s", lc->decimal_point);
    if (lc && lc->thousands_sep && *lc->thousands_sep)
        snprintf(i18n_sep, sizeof(i18n_sep), "%s", lc->thousands_sep);
    else if (strcmp(i18n_point, ",") == 0)
        snprintf(i18n_sep, sizeof(i18n_sep), ".");
    /* A separator outside ASCII (a narrow no-break space) would reach an
     * ASCII terminal: fall back to a plain space. */
    if ((unsigned char)i18n_sep[0] >= 0x80)
        snprintf(i18n_sep, sizeof(i18n_sep), " ");
    if ((unsigned char)i18n_point[0] >= 0x80)
        snprintf(i18n_point, sizeof(i18n_point), ".");
    setlocale(LC_NUMERIC, "C");
#ifdef ENABLE_NLS
    const char *dir = VRAMLAB_LOCALEDIR;
#ifdef VRAMLAB_ABS_BUILDDIR
    struct stat sb;
    if (i18n_in_build_tree() && stat(VRAMLAB_ABS_BUILDDIR "/locale", &sb) == 0)
        dir = VRAMLAB_ABS_BUILDDIR "/locale";
#endif
    bindtextdomain(PACKAGE, dir);
    bind_textdomain_codeset(PACKAGE, "UTF-8");
    textdomain(PACKAGE);
#else
    (void)i18n_in_build_tree;
#endif
}

/* Swap '.' and ',' for the locale's characters (see header). */
void i18n_number(char *buf, size_t len) {
    char out[256];
    size_t o = 0;
    if (strcmp(i18n_point, ".") == 0 && strcmp(i18n_sep, ",") == 0)
        return;
    for (const char *s = buf; *s && o + 8 < sizeof(out); s++) {
        /* Only between digits: "1.5" and "1,234", not "e.g." or "x, y". */
        bool digits = s > buf && s[-1] >= '0' && s[-1] <= '9' && s[1] >= '0' && s[1] <= '9';
        const char *rep = NULL;
        if (digits && *s == '.')
            rep = i18n_point;
        else if (digits && *s == ',')
            rep = i18n_sep;
        if (rep) {
            size_t rl = strlen(rep);
            memcpy(out + o, rep, rl);
            o += rl;
        } else {
            out[o++] = *s;
        }
    }
    out[o] = '\0';
    snprintf(buf, len, "%s", out);
}

/* The language of messages: LANGUAGE first, then LC_MESSAGES. */
void i18n_language(char *buf, size_t len) {
    const char *l = getenv("LANGUAGE");
    const char *msg = setlocale(LC_MESSAGES, NULL);
    /* LANGUAGE only counts when a locale is set (gettext's own rule). */
    if (!l || !*l || !msg || !strcmp(msg, "C") || !strcmp(msg, "POSIX"))
        l = msg;
    if (!l || !strcmp(l, "C") || !strcmp(l, "POSIX") || !strncmp(l, "C.", 2))
        l = "en";
    size_t n = strcspn(l, "_.@:");
    if (n >= len)
        n = len - 1;
    memcpy(buf, l, n);
    buf[n] = '\0';
}
