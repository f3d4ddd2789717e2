/*
 * i18n.h: translations (gettext) and locale-aware number display.
 *
 * Every user-visible string of the explorer and of the headless commands'
 * text output goes through _(); tables of constants are marked with N_()
 * and translated where they are shown. JSON keys, machine output and
 * file formats never are.
 *
 * Numbers: the process keeps LC_NUMERIC "C" at all times, so that every
 * parser (options, YAML, JSON) and the JSON writer read and write '.'.
 * Human-readable figures are written by the one formatter
 * (engine/format.h) with the conventions i18n_numfmt() gives: the
 * locale's decimal point and thousands separator (es_ES: "1.234,5"), a
 * no-break space before a unit in a UTF-8 locale, unit words through
 * gettext.
 */
#ifndef VRAMLAB_I18N_H
#define VRAMLAB_I18N_H

#include "config.h"

#include <stdbool.h>
#include <stddef.h>

#include "engine/format.h"

#ifdef ENABLE_NLS
#include <libintl.h>
#define _(s) gettext(s)
#else
#define _(s) ((const char *)(s))
#endif
#define N_(s) s

/* Read the user's locale (setlocale(LC_ALL, "")), remember its decimal
 * point and thousands separator, put LC_NUMERIC back to "C", and bind the
 * message catalogue: the build tree's locale/ when the program runs from
 * it, else the installed localedir. Call once, first thing in main(). */
void i18n_init(const char *argv0);

/* The reader's conventions for engine_format(): the locale's decimal mark
 * and thousands separator, a no-break space between a number and its unit
 * in a UTF-8 locale (a plain space otherwise), unit words through
 * gettext; memory in GiB when binary. Before i18n_init: the C locale's. */
const struct engine_numfmt *i18n_numfmt(bool binary);

/* Display cells of UTF-8 text, whatever the locale: one per character,
 * two for a wide (East Asian, emoji) one, none for a combining mark or a
 * zero-width character; a stray or cut byte counts one. What a terminal
 * shows, for padding and fitting text (the explorer's panes, plan's
 * table). */
int i18n_width(const char *s);
/* Decode one UTF-8 character at s into *cp; returns its bytes (1 for a
 * stray or cut byte, *cp = 0xFFFD). */
int i18n_utf8_next(const char *s, unsigned *cp);
/* Display cells of one code point (0, 1 or 2). */
int i18n_cp_width(unsigned cp);

/* The locale's language code for messages ("es", "en", ...) into buf. */
void i18n_language(char *buf, size_t len);

#endif
