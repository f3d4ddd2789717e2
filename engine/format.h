/*
 * format.h: the one number formatter of vramlab.
 *
 * Every number a user reads (the text report, the explorer's panes and
 * overlays, the explanations, lesson captions) is written by
 * engine_format(): a value, its unit kind and the reader's conventions in,
 * text out. Pure: the caller passes the conventions (struct engine_numfmt:
 * GB or GiB, the locale's decimal mark and thousands separator, the space
 * between a number and its unit, and a translate function for the unit
 * words); nothing is read from the environment, nothing is allocated.
 * The values are formatted in the C numeric locale (the program keeps
 * LC_NUMERIC "C": tui/i18n.h) and the marks swapped for the reader's.
 *
 * Significant figures by unit kind, so a figure reads the same wherever
 * it is shown (the course text's 280.0, 140.0, 39.4 GB):
 *  - bytes: one decimal at 10 and above, two below ("140.0 GB", "1.07 GB"),
 *    the unit climbing where the value would show 1000 ("1.00 TB"), to EB,
 *    then e-notation; decimal GB (1e9) or binary GiB (2^30) as asked;
 *  - rates (B/s, FLOP/s) and bare numbers: three significant figures
 *    ("3.35 TB/s", "989 TFLOP/s", "12.5"), whole numbers with separators
 *    from 100 up ("12,166 tok/s");
 *  - seconds in the largest readable unit (ns .. days), days with
 *    separators ("17,476 days");
 *  - counts with K/M/B/T ("70.6B"), whole numbers with separators
 *    ("16,384"), ratios with three figures ("1.02x"), fractions as percent
 *    with one decimal ("36.8%"), money in dollars ("$1,234", "$12.35"),
 *    energy in J, Wh, kWh, MWh, GWh (three figures);
 *  - from 1e15 bare numbers, counts and money print in e-notation, and
 *    not-a-number prints "n/a" (translated).
 */
#ifndef VRAMLAB_FORMAT_H
#define VRAMLAB_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

/* What a figure measures; picks its unit words and significant figures. */
enum engine_unit {
    ENGINE_UNIT_NUMBER = 0,    /* a bare number, three significant figures: "12.5", "1,234" */
    ENGINE_UNIT_PLAIN,         /* an input as given, up to 4 figures: "0.9", "4.5", "128" */
    ENGINE_UNIT_INT,           /* a whole number with separators: "6,031" */
    ENGINE_UNIT_COUNT,         /* parameters, tokens: "70.6B", "512" */
    ENGINE_UNIT_BYTES,         /* memory, GB or GiB: "140.0 GB" */
    ENGINE_UNIT_BYTE_SIZE,     /* a few bytes as given: "0.5 B", "2 B" */
    ENGINE_UNIT_BYTES_PER_S,   /* bandwidth: "3.35 TB/s" */
    ENGINE_UNIT_FLOP,          /* operations: "163B FLOP" */
    ENGINE_UNIT_FLOP_PER_S,    /* "989 TFLOP/s" */
    ENGINE_UNIT_FLOP_PER_BYTE, /* "295 FLOP/B" */
    ENGINE_UNIT_TOKENS_PER_S,  /* "806 tok/s" */
    ENGINE_UNIT_SECONDS,       /* "677 ms", "54.0 days" */
    ENGINE_UNIT_DAYS,          /* a value in days: "54.0 days" */
    ENGINE_UNIT_HOURS,         /* a value in hours (GPU-hours): "1,234 h" */
    ENGINE_UNIT_FRACTION,      /* a fraction shown as percent: "36.8%" */
    ENGINE_UNIT_RATIO,         /* "1.02x" */
    ENGINE_UNIT_MONEY,         /* US dollars: "$1,234" */
    ENGINE_UNIT_ENERGY,        /* joules, shown as J or Wh: "1.74 J", "3.20 MWh" */
    ENGINE_UNIT_WATTS,         /* power: "700 W", "10.2 kW" */
    ENGINE_UNIT_BITS,          /* bits per weight: "4.5 bits" */
    ENGINE_UNIT_BOOL,          /* "yes" / "no" */
    ENGINE_UNIT_KIND_COUNT
};

/* The reader's conventions. */
struct engine_numfmt {
    bool binary;       /* memory in KiB, MiB, GiB (--units gib); else KB, MB, GB */
    const char *point; /* decimal mark: "." (C, English), "," (es_ES) */
    const char *group; /* thousands separator: "," (C), "." (es_ES); "" none */
    const char *space; /* between a number and its unit: "\xc2\xa0" (no-break
                        * space, UTF-8) or " " (ASCII) */
    /* Translate a unit word or a text ("days", "n/a"); NULL: English. */
    const char *(*translate)(const char *msgid);
};

/* English, '.', ',', a plain space, decimal GB: what the JSON's
 * explanations and the tests' C locale read. */
void engine_numfmt_english(struct engine_numfmt *f);

/* Write value v of kind u into buf (never more than len bytes, always
 * terminated when len > 0); returns strlen(buf). */
size_t engine_format(const struct engine_numfmt *f, enum engine_unit u, double v, char *buf,
                     size_t len);

/* A bare number with exactly `decimals` decimals in the reader's marks
 * ("4,50" in es_ES), for figures whose digits carry meaning (the bits of
 * a format: 4.50, 4.125); decimals < 0: that many significant figures.
 * Returns strlen(buf). */
size_t engine_format_fixed(const struct engine_numfmt *f, double v, int decimals, char *buf,
                           size_t len);

/* A text through f's translate function (itself when there is none). */
const char *engine_numfmt_tr(const struct engine_numfmt *f, const char *msgid);

/* The unit kind's name ("bytes", "tokens/s"...), for documentation and tests. */
const char *engine_unit_name(enum engine_unit u);

#endif
