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

/* The user's decimal point and thousands separator ("." and "," in C),
 * and the space between a number and its unit (a no-break space in a
 * UTF-8 locale, so "350 GB/s" never breaks across lines). */
static char i18n_point[8] = ".";
static char i18n_sep[8] = ",";
static char i18n_space[8] = " ";
static char i18n_num_lang[8] = "en"; /* the language of LC_NUMERIC's locale */

/* gettext for the formatter's unit words. */
static const char *i18n_translate(const char *msgid) {
    return _(msgid);
}

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
    const char *codeset = nl_langinfo(CODESET);
    if (codeset && (!strcmp(codeset, "UTF-8") || !strcmp(codeset, "utf8")))
        snprintf(i18n_space, sizeof(i18n_space), "\xc2\xa0");
    const char *num = setlocale(LC_NUMERIC, NULL);
    if (num && strcmp(num, "C") && strcmp(num, "POSIX") && strncmp(num, "C.", 2)) {
        size_t k = strcspn(num, "_.@");
        snprintf(i18n_num_lang, sizeof(i18n_num_lang), "%.*s", (int)(k < 7 ? k : 7), num);
    }
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

/* The formatter's conventions for this reader (see header). */
const struct engine_numfmt *i18n_numfmt(bool binary) {
    static struct engine_numfmt f[2];
    struct engine_numfmt *p = &f[binary ? 1 : 0];
    p->binary = binary;
    p->point = i18n_point;
    p->group = i18n_sep;
    /* --lang chose a language other than the locale's: its marks too, as a
     * reader of that language writes numbers (es: 1.234,5; en: 1,234.5). */
    const char *forced = getenv("VRAMLAB_LANG");
    if (forced && *forced && strncmp(forced, i18n_num_lang, 2) != 0) {
        bool es = !strncmp(forced, "es", 2);
        p->point = es ? "," : ".";
        p->group = es ? "." : ",";
    }
    p->space = i18n_space;
    p->translate = i18n_translate;
    return p;
}

/* The language of messages: LANGUAGE first, then LC_MESSAGES. */
void i18n_language(char *buf, size_t len) {
    const char *forced = getenv("VRAMLAB_LANG"); /* --lang es|en */
    if (forced && *forced) {
        snprintf(buf, len, "%s", forced);
        return;
    }
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

/* Decode one UTF-8 character (see header). */
int i18n_utf8_next(const char *s, unsigned *cp) {
    const unsigned char *u = (const unsigned char *)s;
    int k = u[0] < 0x80 ? 1 : (u[0] & 0xe0) == 0xc0 ? 2 : (u[0] & 0xf0) == 0xe0 ? 3
                          : (u[0] & 0xf8) == 0xf0 ? 4 : 1;
    if (k == 1) {
        *cp = u[0] < 0x80 ? u[0] : 0xfffd;
        return 1;
    }
    unsigned v = u[0] & (0x7f >> k);
    for (int i = 1; i < k; i++) {
        if ((u[i] & 0xc0) != 0x80) { /* cut or stray: one byte, one cell */
            *cp = 0xfffd;
            return 1;
        }
        v = (v << 6) | (u[i] & 0x3f);
    }
    *cp = v;
    return k;
}

/* Display cells of one code point: the zero-width and wide ranges of
 * Unicode's East Asian Width (W, F) and combining marks (Mn), in the
 * blocks a catalog name or a translation can hold. */
int i18n_cp_width(unsigned cp) {
    static const unsigned zero[][2] = {
        {0x0300, 0x036f}, {0x0483, 0x0489}, {0x0591, 0x05bd}, {0x0610, 0x061a},
        {0x064b, 0x065f}, {0x0e31, 0x0e31}, {0x0e34, 0x0e3a}, {0x1ab0, 0x1aff},
        {0x1dc0, 0x1dff}, {0x200b, 0x200f}, {0x202a, 0x202e}, {0x2060, 0x2064},
        {0x20d0, 0x20ff}, {0xfe00, 0xfe0f}, {0xfe20, 0xfe2f}, {0xfeff, 0xfeff},
    };
    static const unsigned wide[][2] = {
        {0x1100, 0x115f}, {0x231a, 0x231b}, {0x2329, 0x232a}, {0x23e9, 0x23ec},
        {0x25fd, 0x25fe}, {0x2614, 0x2615}, {0x2e80, 0x303e}, {0x3041, 0x33ff},
        {0x3400, 0x4dbf}, {0x4e00, 0x9fff}, {0xa000, 0xa4cf}, {0xa960, 0xa97f},
        {0xac00, 0xd7a3}, {0xf900, 0xfaff}, {0xfe10, 0xfe19}, {0xfe30, 0xfe6f},
        {0xff00, 0xff60}, {0xffe0, 0xffe6}, {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff},
        {0x20000, 0x3fffd},
    };
    if (cp < 0x300)
        return 1;
    for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
        if (cp >= zero[i][0] && cp <= zero[i][1])
            return 0;
    for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
        if (cp >= wide[i][0] && cp <= wide[i][1])
            return 2;
    return 1;
}

/* Display cells of UTF-8 text (see header). */
int i18n_width(const char *s) {
    int n = 0;
    while (*s) {
        unsigned cp;
        s += i18n_utf8_next(s, &cp);
        n += i18n_cp_width(cp);
    }
    return n;
}
