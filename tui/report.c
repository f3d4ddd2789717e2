/*
 * report.c: the explorer's and the commands' calls to the one number
 * formatter (engine/format.c) with the reader's conventions
 * (tui/i18n.c: --units, the locale's marks, a no-break space in UTF-8,
 * gettext), and the warnings' texts with their figures through it.
 */
#include "tui/report.h"

#include "engine/figures.h"
#include "tui/i18n.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* One figure through the formatter with this reader's conventions. */
void report_value(double v, enum engine_unit kind, enum units u, char *buf, size_t len) {
    engine_format(i18n_numfmt(u == UNITS_GIB), kind, v, buf, len);
}

void report_figure(const struct engine_scenario *sc, const struct engine_estimate *e,
                   enum engine_key k, enum units u, char *buf, size_t len) {
    engine_figure_format(i18n_numfmt(u == UNITS_GIB), sc, e, k, buf, len);
}

void report_bytes(double bytes, enum units u, char *buf, size_t len) {
    report_value(bytes, ENGINE_UNIT_BYTES, u, buf, len);
}

void report_count(double n, char *buf, size_t len) {
    report_value(n, ENGINE_UNIT_COUNT, UNITS_GB, buf, len);
}

void report_seconds(double s, char *buf, size_t len) {
    report_value(s, ENGINE_UNIT_SECONDS, UNITS_GB, buf, len);
}

void report_bandwidth(double bytes_per_s, char *buf, size_t len) {
    report_value(bytes_per_s, ENGINE_UNIT_BYTES_PER_S, UNITS_GB, buf, len);
}

void report_flops(double flop_per_s, char *buf, size_t len) {
    report_value(flop_per_s, ENGINE_UNIT_FLOP_PER_S, UNITS_GB, buf, len);
}

void report_money(double usd, char *buf, size_t len) {
    report_value(usd, ENGINE_UNIT_MONEY, UNITS_GB, buf, len);
}

void report_percent(double fraction, char *buf, size_t len) {
    report_value(fraction, ENGINE_UNIT_FRACTION, UNITS_GB, buf, len);
}

void report_number(double v, char *buf, size_t len) {
    report_value(v, ENGINE_UNIT_NUMBER, UNITS_GB, buf, len);
}

void report_int(double v, char *buf, size_t len) {
    report_value(v, ENGINE_UNIT_INT, UNITS_GB, buf, len);
}

void report_ratio(double r, char *buf, size_t len) {
    report_value(r, ENGINE_UNIT_RATIO, UNITS_GB, buf, len);
}

/* The printf width that pads s to `cells` display cells (see header). */
int report_pad(const char *s, int cells) {
    return cells + (int)strlen(s) - i18n_width(s);
}

/* Split a formatted figure at the space before its unit (see header). */
void report_split_unit(const char *s, char *num, size_t nl, char *unit, size_t ul) {
    const char *space = i18n_numfmt(false)->space;
    const char *sp = strstr(s, space);
    size_t skip = strlen(space);
    if (!sp) {
        sp = strchr(s, ' ');
        skip = 1;
    }
    size_t n = sp ? (size_t)(sp - s) : strlen(s);
    if (nl > 0) {
        if (n >= nl)
            n = nl - 1;
        memcpy(num, s, n);
        num[n] = '\0';
    }
    if (ul > 0)
        snprintf(unit, ul, "%s", sp ? sp + skip : "");
}

/* The text of one engine warning in the reader's language, units and
 * marks (see report.h). */
void report_warning(const struct engine_scenario *sc, const struct engine_estimate *e,
                    enum engine_warning w, enum units u, char *buf, size_t len) {
    engine_warning_text(i18n_numfmt(u == UNITS_GIB), sc, e, w, buf, len);
}
