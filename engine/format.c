/*
 * format.c: the one number formatter (see format.h for the rules).
 *
 * Each kind formats its number in the C locale ("1234.5", "1.00e+24"),
 * then localize() writes it with the reader's decimal mark and thousands
 * separator, and the unit follows after the reader's space (a no-break
 * space in UTF-8, so "350 GB/s" never breaks across lines). The rules are
 * those tui/report.c had (issue 16's cases: tests/test_format.c).
 */
#include "engine/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Bare numbers, counts and money from here on print in e-notation
 * (1.00e+18): a thousand trillion is past anything a scenario means. */
#define E_NOTATION 1e15

/* Marks the unit words for xgettext (po/Makevars: N_); translated where
 * written, through the caller's function. */
#define N_(s) s

/* An output buffer that truncates and stays terminated. */
struct out {
    char *b;
    size_t len, n;
};

static void put(struct out *o, const char *s) {
    for (; *s && o->len > 0; s++) {
        if (o->n + 1 >= o->len)
            break;
        o->b[o->n++] = *s;
    }
    if (o->len > 0)
        o->b[o->n] = '\0';
}

const char *engine_numfmt_tr(const struct engine_numfmt *f, const char *msgid) {
    return f && f->translate ? f->translate(msgid) : msgid;
}

void engine_numfmt_english(struct engine_numfmt *f) {
    f->binary = false;
    f->point = ".";
    f->group = ",";
    f->space = " ";
    f->translate = NULL;
}

/* Write a C-formatted number with the reader's marks: '.' becomes the
 * decimal mark, and the integer part of a plain (not e-notation) number
 * of four digits or more gets the thousands separator. */
static void localize(struct out *o, const struct engine_numfmt *f, const char *c) {
    const char *point = f->point && *f->point ? f->point : ".";
    const char *group = f->group ? f->group : "";
    bool expo = strchr(c, 'e') != NULL || strchr(c, 'E') != NULL;
    size_t start = (c[0] == '-' || c[0] == '+') ? 1 : 0;
    size_t digits = start;
    while (c[digits] >= '0' && c[digits] <= '9')
        digits++;
    size_t int_len = digits - start;
    char one[2] = {0, 0};
    for (size_t i = 0; c[i]; i++) {
        if (!expo && i > start && i < digits && (digits - i) % 3 == 0 && int_len > 3)
            put(o, group);
        if (c[i] == '.') {
            put(o, point);
            continue;
        }
        one[0] = c[i];
        put(o, one);
    }
}

/* A number with `decimals` decimals (or %.Ng with decimals < 0: -N). */
static void num_fixed(struct out *o, const struct engine_numfmt *f, double v, int decimals) {
    char c[64];
    if (decimals >= 0)
        snprintf(c, sizeof c, "%.*f", decimals, v);
    else
        snprintf(c, sizeof c, "%.*g", -decimals, v);
    localize(o, f, c);
}

/* Three significant figures below 100, whole above (with separators);
 * 0.9999 shows "1.00", as 1 does. */
static void num3(struct out *o, const struct engine_numfmt *f, double v) {
    double a = fabs(v);
    if (a >= 99.95 || a == 0)
        num_fixed(o, f, v, 0);
    else if (a >= 9.995)
        num_fixed(o, f, v, 1);
    else if (a >= 0.9995)
        num_fixed(o, f, v, 2);
    else
        num_fixed(o, f, v, -3);
}

/* e-notation with two decimals: "1.00e+24". */
static void num_e(struct out *o, const struct engine_numfmt *f, double v) {
    char c[48];
    snprintf(c, sizeof c, "%.2e", v);
    localize(o, f, c);
}

/* The unit after the reader's space. */
static void unit(struct out *o, const struct engine_numfmt *f, const char *u) {
    put(o, f->space ? f->space : " ");
    put(o, u);
}

/* A scaled value with one or two decimals (9.996 is "10.0", not "10.00"). */
static void scaled(struct out *o, const struct engine_numfmt *f, double v, const char *u) {
    num_fixed(o, f, v, fabs(v) >= 9.995 || v == 0 ? 1 : 2);
    unit(o, f, u);
}

/* Bytes in decimal or binary units, climbing where the shown value would
 * round up to a whole step (999.96 GB is "1.00 TB"). */
static void fmt_bytes(struct out *o, const struct engine_numfmt *f, double bytes) {
    static const char *const dec[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
    static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double step = f->binary ? 1024.0 : 1000.0, v = bytes;
    const char *const *names = f->binary ? bin : dec;
    int i = 0;
    if (bytes == 0) {
        put(o, "0");
        unit(o, f, "B");
        return;
    }
    while (i < 6 && fabs(v) >= step - 0.05) {
        v /= step;
        i++;
    }
    if (fabs(v) >= step - 0.05) { /* past 1000 EB: no unit says more */
        num_e(o, f, bytes);
        unit(o, f, "B");
        return;
    }
    if (i == 0) {
        num_fixed(o, f, v, 0);
        unit(o, f, "B");
    } else {
        scaled(o, f, v, names[i]);
    }
}

/* A decimal rate with an SI prefix: three significant figures ("KB/s" as
 * vramlab has always written it, "kW" as the SI does). */
static void fmt_si(struct out *o, const struct engine_numfmt *f, double v, const char *u) {
    static const char *const prefix[] = {"", "K", "M", "G", "T", "P", "E"};
    bool si_kilo = !strcmp(u, "W");
    double x = v;
    int i = 0;
    char name[32];
    while (i < 6 && fabs(x) >= 999.5) {
        x /= 1000;
        i++;
    }
    if (fabs(x) >= 999.5) { /* past 1000 E: no prefix says more */
        num_e(o, f, v);
        unit(o, f, u);
        return;
    }
    num_fixed(o, f, x, fabs(x) >= 99.95 || x == 0 ? 0 : fabs(x) >= 9.995 ? 1 : 2);
    snprintf(name, sizeof name, "%s%s", i == 1 && si_kilo ? "k" : prefix[i], u);
    unit(o, f, name);
}

/* A count with K/M/B/T (999.9M is "1.00B", never "1000M"). */
static void fmt_count(struct out *o, const struct engine_numfmt *f, double n) {
    static const char *const suffix[] = {"", "K", "M", "B", "T"};
    double v = n;
    int i = 0;
    if (fabs(n) >= 999.5e12) {
        num_e(o, f, n);
        return;
    }
    while (i < 4 && fabs(v) >= 999.5) {
        v /= 1000;
        i++;
    }
    if (i == 0)
        num_fixed(o, f, v, 0);
    else
        num_fixed(o, f, v, fabs(v) >= 99.95 ? 0 : fabs(v) >= 9.995 ? 1 : 2);
    put(o, suffix[i]);
}

/* A whole number with separators; e-notation from 1e15. */
static void fmt_int(struct out *o, const struct engine_numfmt *f, double v) {
    if (fabs(v) >= E_NOTATION)
        num_e(o, f, v);
    else
        num_fixed(o, f, v, 0);
}

/* A bare number (see num3), e-notation from 1e15. */
static void fmt_number(struct out *o, const struct engine_numfmt *f, double v) {
    if (fabs(v) >= E_NOTATION)
        num_e(o, f, v);
    else
        num3(o, f, v);
}

/* Seconds in the largest readable unit; below a nanosecond in
 * e-notation seconds, past a billion days (2.7 million years) too. */
static void fmt_seconds(struct out *o, const struct engine_numfmt *f, double s) {
    static const struct {
        double below, scale;
        const char *name;
    } steps[] = {
        {0.9995e-6, 1e-9, "ns"}, {1e-3, 1e-6, "us"}, {1, 1e-3, "ms"},
        {120, 1, "s"},           {7200, 60, "min"},  {3 * 86400, 3600, "h"},
    };
    double a = fabs(s);
    if (s == 0 || a < 0.9995e-9) {
        if (s == 0)
            put(o, "0");
        else
            num_e(o, f, s);
        unit(o, f, "s");
        return;
    }
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (a < steps[i].below) {
            num3(o, f, s / steps[i].scale);
            unit(o, f, steps[i].name);
            return;
        }
    if (a / 86400 >= 1e9)
        num_e(o, f, s / 86400);
    else
        num3(o, f, s / 86400);
    unit(o, f, engine_numfmt_tr(f, N_("days")));
}

/* Ratios: three figures and an "x" ("1.02x", "13.5x", "2,746x"). */
static void fmt_ratio(struct out *o, const struct engine_numfmt *f, double r) {
    double a = fabs(r);
    if (a >= E_NOTATION)
        num_e(o, f, r);
    else if (a >= 99.95)
        num_fixed(o, f, r, 0);
    else
        num_fixed(o, f, r, a >= 9.995 ? 1 : 2);
    put(o, "x");
}

/* US dollars: cents below $100, whole dollars with separators above. */
static void fmt_money(struct out *o, const struct engine_numfmt *f, double usd) {
    if (usd < 0)
        put(o, "-");
    put(o, "$");
    if (fabs(usd) >= E_NOTATION)
        num_e(o, f, fabs(usd));
    else
        num_fixed(o, f, fabs(usd), fabs(usd) < 100 ? 2 : 0);
}

/* Energy as meters show it: J below a watt-hour, then Wh, kWh, MWh, GWh. */
static void fmt_energy(struct out *o, const struct engine_numfmt *f, double j) {
    static const double scale[] = {3.6e12, 3.6e9, 3.6e6, 3.6e3};
    static const char *const name[] = {"GWh", "MWh", "kWh", "Wh"};
    for (int i = 0; i < 4; i++)
        if (fabs(j) >= scale[i]) {
            if (fabs(j) / scale[i] >= E_NOTATION)
                num_e(o, f, j / scale[i]);
            else
                num_fixed(o, f, j / scale[i], -3);
            unit(o, f, name[i]);
            return;
        }
    num_fixed(o, f, j, -3);
    unit(o, f, "J");
}

size_t engine_format(const struct engine_numfmt *f, enum engine_unit u, double v, char *buf,
                     size_t len) {
    struct engine_numfmt english;
    struct out o = {buf, len, 0};
    if (!f) {
        engine_numfmt_english(&english);
        f = &english;
    }
    if (len > 0)
        buf[0] = '\0';
    if (!isfinite(v)) {
        put(&o, engine_numfmt_tr(f, N_("n/a")));
        return o.n;
    }
    switch (u) {
    case ENGINE_UNIT_NUMBER:
        fmt_number(&o, f, v);
        break;
    case ENGINE_UNIT_PLAIN:
        num_fixed(&o, f, v, -4);
        break;
    case ENGINE_UNIT_INT:
        fmt_int(&o, f, v);
        break;
    case ENGINE_UNIT_COUNT:
        fmt_count(&o, f, v);
        break;
    case ENGINE_UNIT_BYTES:
        fmt_bytes(&o, f, v);
        break;
    case ENGINE_UNIT_BYTE_SIZE:
        num_fixed(&o, f, v, -4);
        unit(&o, f, "B");
        break;
    case ENGINE_UNIT_BYTES_PER_S:
        fmt_si(&o, f, v, "B/s");
        break;
    case ENGINE_UNIT_FLOP:
        fmt_count(&o, f, v);
        unit(&o, f, "FLOP");
        break;
    case ENGINE_UNIT_FLOP_PER_S:
        fmt_si(&o, f, v, "FLOP/s");
        break;
    case ENGINE_UNIT_FLOP_PER_BYTE:
        fmt_number(&o, f, v);
        unit(&o, f, "FLOP/B");
        break;
    case ENGINE_UNIT_TOKENS_PER_S:
        fmt_number(&o, f, v);
        unit(&o, f, engine_numfmt_tr(f, N_("tok/s")));
        break;
    case ENGINE_UNIT_SECONDS:
        fmt_seconds(&o, f, v);
        break;
    case ENGINE_UNIT_DAYS:
        fmt_number(&o, f, v);
        unit(&o, f, engine_numfmt_tr(f, N_("days")));
        break;
    case ENGINE_UNIT_HOURS:
        fmt_number(&o, f, v);
        unit(&o, f, "h");
        break;
    case ENGINE_UNIT_FRACTION:
        /* Past 999.9% a fill reads ">999%": 2328341.2% says nothing more
         * (the JSON keeps the ratio, the verdict the bytes). */
        if (isfinite(v) && v * 100 >= 999.95)
            put(&o, ">999");
        else if (fabs(v * 100) >= E_NOTATION)
            num_e(&o, f, v * 100);
        else
            num_fixed(&o, f, v * 100, 1);
        put(&o, "%");
        break;
    case ENGINE_UNIT_RATIO:
        fmt_ratio(&o, f, v);
        break;
    case ENGINE_UNIT_MONEY:
        fmt_money(&o, f, v);
        break;
    case ENGINE_UNIT_ENERGY:
        fmt_energy(&o, f, v);
        break;
    case ENGINE_UNIT_WATTS:
        fmt_si(&o, f, v, "W");
        break;
    case ENGINE_UNIT_BITS:
        num_fixed(&o, f, v, -4);
        unit(&o, f, engine_numfmt_tr(f, N_("bits")));
        break;
    case ENGINE_UNIT_BOOL:
        put(&o, engine_numfmt_tr(f, v != 0 ? N_("yes") : N_("no")));
        break;
    case ENGINE_UNIT_KIND_COUNT:
        break;
    }
    return o.n;
}

size_t engine_format_fixed(const struct engine_numfmt *f, double v, int decimals, char *buf,
                           size_t len) {
    struct engine_numfmt english;
    struct out o = {buf, len, 0};
    if (!f) {
        engine_numfmt_english(&english);
        f = &english;
    }
    if (len > 0)
        buf[0] = '\0';
    if (!isfinite(v))
        put(&o, engine_numfmt_tr(f, N_("n/a")));
    else
        num_fixed(&o, f, v, decimals > 20 ? 20 : decimals < -17 ? -17 : decimals);
    return o.n;
}

const char *engine_unit_name(enum engine_unit u) {
    static const char *const names[ENGINE_UNIT_KIND_COUNT] = {
        [ENGINE_UNIT_NUMBER] = "number",       [ENGINE_UNIT_PLAIN] = "plain",
        [ENGINE_UNIT_INT] = "integer",         [ENGINE_UNIT_COUNT] = "count",
        [ENGINE_UNIT_BYTES] = "bytes",         [ENGINE_UNIT_BYTE_SIZE] = "byte size",
        [ENGINE_UNIT_BYTES_PER_S] = "bytes/s", [ENGINE_UNIT_FLOP] = "FLOP",
        [ENGINE_UNIT_FLOP_PER_S] = "FLOP/s",   [ENGINE_UNIT_FLOP_PER_BYTE] = "FLOP/byte",
        [ENGINE_UNIT_TOKENS_PER_S] = "tokens/s", [ENGINE_UNIT_SECONDS] = "seconds",
        [ENGINE_UNIT_DAYS] = "days",           [ENGINE_UNIT_HOURS] = "hours",
        [ENGINE_UNIT_FRACTION] = "fraction",   [ENGINE_UNIT_RATIO] = "ratio",
        [ENGINE_UNIT_MONEY] = "money",         [ENGINE_UNIT_ENERGY] = "energy",
        [ENGINE_UNIT_WATTS] = "power",         [ENGINE_UNIT_BITS] = "bits",
        [ENGINE_UNIT_BOOL] = "yes/no",
    };
    return (unsigned)u < ENGINE_UNIT_KIND_COUNT ? names[u] : "?";
}
