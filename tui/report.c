/*
 * report.c: human formatting of bytes, rates, counts, times and money.
 *
 * The one number formatter of the explorer's screen and of the text output
 * of the commands: a figure reads the same in both.
 *
 * Memory: decimal GB (1e9) by default, GiB (2^30) with --units gib
 * (engine.md "Units"). Values at or above 10 get one decimal, below 10 two,
 * so the seed figures read as in the course text: 280.0, 140.0, 39.4 GB;
 * the unit climbs when the value would show 1000 (999.96 GB is "1.00 TB",
 * 13,496.8 GB "13.5 TB"), up to EB; past 1000 EB, e-notation.
 * Rates (B/s, FLOP/s) climb to E, then e-notation; seconds go down to ns,
 * then e-notation; days get thousands separators ("17,476 days"); money
 * past a thousand trillion dollars, counts and bare numbers of 1e15 and
 * more print in e-notation (1.00e+18); whole numbers (batches, GPUs) get
 * thousands separators ("6,031"); ratios three significant figures
 * ("1.02x"). Non-finite values print "n/a".
 */
#include "tui/report.h"

#include "tui/i18n.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Bare numbers from here on print in e-notation (1.00e+18): a thousand
 * trillion is past anything a scenario means. */
#define REPORT_E_NOTATION 1e15

/* Write "n/a" for values that are not numbers; returns whether it did. */
static int report_not_finite(double v, char *buf, size_t len) {
    if (isfinite(v))
        return 0;
    snprintf(buf, len, "n/a");
    return 1;
}

/* A scaled value with one or two decimals and its unit (9.996 is "10.0",
 * not "10.00"). */
static void report_scaled(double v, const char *unit, char *buf, size_t len) {
    if (fabs(v) >= 9.995 || v == 0)
        snprintf(buf, len, "%.1f %s", v, unit);
    else
        snprintf(buf, len, "%.2f %s", v, unit);
}

/* Bytes in decimal or binary units. */
static void report_bytes_c(double bytes, enum units u, char *buf, size_t len) {
    static const char *const dec[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
    static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double step = u == UNITS_GIB ? 1024.0 : 1000.0;
    const char *const *names = u == UNITS_GIB ? bin : dec;
    double v = bytes;
    int i = 0;

    if (report_not_finite(bytes, buf, len))
        return;
    if (bytes == 0) {
        snprintf(buf, len, "0 B");
        return;
    }
    /* Climb when the shown value would round up to a whole step (999.96
     * shows "1000.0": it is 1.00 of the next unit). */
    while (i < 6 && fabs(v) >= step - 0.05) {
        v /= step;
        i++;
    }
    if (fabs(v) >= step - 0.05) { /* past 1000 EB: no unit says more */
        snprintf(buf, len, "%.2e B", bytes);
        return;
    }
    if (i == 0)
        snprintf(buf, len, "%.0f B", v);
    else
        report_scaled(v, names[i], buf, len);
}

/* Insert thousands separators into the integer part of a formatted number. */
static void report_group(const char *in, char *buf, size_t len) {
    const char *dot = strchr(in, '.');
    size_t int_len = dot ? (size_t)(dot - in) : strlen(in);
    size_t start = (in[0] == '-') ? 1 : 0;
    size_t o = 0;

    for (size_t i = 0; in[i] && o + 1 < len; i++) {
        if (i > start && i < int_len && (int_len - i) % 3 == 0 && o + 2 < len)
            buf[o++] = ',';
        buf[o++] = in[i];
    }
    buf[o < len ? o : len - 1] = '\0';
}

/* A bare number: 3 significant figures below 1000, integers with
 * separators above. */
static void report_number_c(double v, char *buf, size_t len) {
    char tmp[64];
    double a = fabs(v);

    if (report_not_finite(v, buf, len))
        return;
    if (a >= REPORT_E_NOTATION) {
        snprintf(buf, len, "%.2e", v);
        return;
    }
    if (a >= 99.95 || a == 0)
        snprintf(tmp, sizeof(tmp), "%.0f", v);
    else if (a >= 9.995)
        snprintf(tmp, sizeof(tmp), "%.1f", v);
    else if (a >= 0.9995) /* 0.9999 shows "1.00", as 1 does */
        snprintf(tmp, sizeof(tmp), "%.2f", v);
    else
        snprintf(tmp, sizeof(tmp), "%.3g", v);
    report_group(tmp, buf, len);
}

/* A whole number with thousands separators ("6,031"); past 1e15 in
 * e-notation. */
static void report_int_c(double v, char *buf, size_t len) {
    char tmp[64];

    if (report_not_finite(v, buf, len))
        return;
    if (fabs(v) >= REPORT_E_NOTATION) {
        snprintf(buf, len, "%.2e", v);
        return;
    }
    snprintf(tmp, sizeof(tmp), "%.0f", v);
    report_group(tmp, buf, len);
}

/* A ratio with three significant figures and an "x": "1.02x", "13.5x",
 * "102x", "1,234x"; past 1e15 in e-notation. */
static void report_ratio_c(double r, char *buf, size_t len) {
    char num[64];
    double a = fabs(r);

    if (report_not_finite(r, buf, len))
        return;
    if (a >= REPORT_E_NOTATION)
        snprintf(num, sizeof(num), "%.2e", r);
    else if (a >= 99.95)
        report_int_c(r, num, sizeof(num));
    else if (a >= 9.995)
        snprintf(num, sizeof(num), "%.1f", r);
    else
        snprintf(num, sizeof(num), "%.2f", r);
    snprintf(buf, len, "%sx", num);
}

/* A count with K/M/B/T suffixes; past 1e15 (1000T) in e-notation. The
 * suffix climbs when the shown value would round to 1000 (999.9M is
 * "1.00B", never "1000M"). */
static void report_count_c(double n, char *buf, size_t len) {
    static const char *const suffix[] = {"", "K", "M", "B", "T"};
    double v = n;
    int i = 0;

    if (report_not_finite(n, buf, len))
        return;
    if (fabs(n) >= 999.5e12) {
        snprintf(buf, len, "%.2e", n);
        return;
    }
    while (i < 4 && fabs(v) >= 999.5) {
        v /= 1000;
        i++;
    }
    if (i == 0)
        snprintf(buf, len, "%.0f", v);
    else if (fabs(v) >= 99.95)
        snprintf(buf, len, "%.0f%s", v, suffix[i]);
    else if (fabs(v) >= 9.995)
        snprintf(buf, len, "%.1f%s", v, suffix[i]);
    else
        snprintf(buf, len, "%.2f%s", v, suffix[i]);
}

/* Seconds in the largest readable unit. */
static void report_seconds_c(double s, char *buf, size_t len) {
    char num[48];

    if (report_not_finite(s, buf, len))
        return;
    if (s == 0) {
        snprintf(buf, len, "0 s");
    } else if (fabs(s) < 0.9995e-9) { /* below a nanosecond: no unit says less */
        snprintf(buf, len, "%.2e s", s);
    } else if (fabs(s) < 0.9995e-6) {
        report_number_c(s * 1e9, num, sizeof(num));
        snprintf(buf, len, "%s ns", num);
    } else if (s < 1e-3) {
        report_number_c(s * 1e6, num, sizeof(num));
        snprintf(buf, len, "%s us", num);
    } else if (s < 1) {
        report_number_c(s * 1e3, num, sizeof(num));
        snprintf(buf, len, "%s ms", num);
    } else if (s < 120) {
        report_number_c(s, num, sizeof(num));
        snprintf(buf, len, "%s s", num);
    } else if (s < 7200) {
        report_number_c(s / 60, num, sizeof(num));
        snprintf(buf, len, "%s min", num);
    } else if (s < 3 * 86400) {
        report_number_c(s / 3600, num, sizeof(num));
        snprintf(buf, len, "%s h", num);
    } else {
        /* Past a billion days (2.7 million years) the digits mean nothing. */
        if (s / 86400 >= 1e9)
            snprintf(num, sizeof(num), "%.2e", s / 86400);
        else
            report_number_c(s / 86400, num, sizeof(num));
        snprintf(buf, len, _("%s days"), num);
    }
}

/* A decimal rate with an SI prefix and a unit. */
static void report_si(double v, const char *unit, char *buf, size_t len) {
    static const char *const prefix[] = {"", "K", "M", "G", "T", "P", "E"};
    double x = v;
    int i = 0;

    if (report_not_finite(v, buf, len))
        return;
    while (i < 6 && fabs(x) >= 999.5) {
        x /= 1000;
        i++;
    }
    if (fabs(x) >= 999.5) { /* past 1000 E: no prefix says more */
        snprintf(buf, len, "%.2e %s", v, unit);
        return;
    }
    if (fabs(x) >= 99.95 || x == 0)
        snprintf(buf, len, "%.0f %s%s", x, prefix[i], unit);
    else if (fabs(x) >= 9.995)
        snprintf(buf, len, "%.1f %s%s", x, prefix[i], unit);
    else
        snprintf(buf, len, "%.2f %s%s", x, prefix[i], unit);
}

/* Bytes per second, decimal. */
static void report_bandwidth_c(double bytes_per_s, char *buf, size_t len) {
    report_si(bytes_per_s, "B/s", buf, len);
}

/* FLOP per second, decimal. */
static void report_flops_c(double flop_per_s, char *buf, size_t len) {
    report_si(flop_per_s, "FLOP/s", buf, len);
}

/* US dollars: cents below $100, whole dollars with separators above. */
static void report_money_c(double usd, char *buf, size_t len) {
    char tmp[64], grouped[80];

    if (report_not_finite(usd, buf, len))
        return;
    if (fabs(usd) >= REPORT_E_NOTATION) { /* no sum of money has 16 digits */
        snprintf(buf, len, "$%.2e", usd);
        return;
    }
    if (fabs(usd) < 100)
        snprintf(tmp, sizeof(tmp), "%.2f", usd);
    else
        snprintf(tmp, sizeof(tmp), "%.0f", usd);
    report_group(tmp, grouped, sizeof(grouped));
    snprintf(buf, len, "$%s", grouped);
}

/* A fraction as a percentage with one decimal; past 999.9% it reads
 * ">999%" (a fill of 2328341.2% says nothing more; the JSON keeps the
 * ratio, and the verdict the bytes). */
static void report_percent_c(double fraction, char *buf, size_t len) {
    if (report_not_finite(fraction, buf, len))
        return;
    if (fraction * 100 >= 999.95) {
        snprintf(buf, len, ">999%%");
        return;
    }
    if (fabs(fraction * 100) >= REPORT_E_NOTATION)
        snprintf(buf, len, "%.2e%%", fraction * 100);
    else
        snprintf(buf, len, "%.1f%%", fraction * 100);
}

/* report_bytes, with the locale's decimal point and separators. */
void report_bytes(double bytes, enum units u, char *buf, size_t len) {
    report_bytes_c(bytes, u, buf, len);
    i18n_number(buf, len);
}

/* report_count, with the locale's decimal point and separators. */
void report_count(double n, char *buf, size_t len) {
    report_count_c(n, buf, len);
    i18n_number(buf, len);
}

/* report_seconds, with the locale's decimal point and separators. */
void report_seconds(double s, char *buf, size_t len) {
    report_seconds_c(s, buf, len);
    i18n_number(buf, len);
}

/* report_bandwidth, with the locale's decimal point and separators. */
void report_bandwidth(double bytes_per_s, char *buf, size_t len) {
    report_bandwidth_c(bytes_per_s, buf, len);
    i18n_number(buf, len);
}

/* report_flops, with the locale's decimal point and separators. */
void report_flops(double flop_per_s, char *buf, size_t len) {
    report_flops_c(flop_per_s, buf, len);
    i18n_number(buf, len);
}

/* report_money, with the locale's decimal point and separators. */
void report_money(double usd, char *buf, size_t len) {
    report_money_c(usd, buf, len);
    i18n_number(buf, len);
}

/* report_percent, with the locale's decimal point and separators. */
void report_percent(double fraction, char *buf, size_t len) {
    report_percent_c(fraction, buf, len);
    i18n_number(buf, len);
}

/* report_number, with the locale's decimal point and separators. */
void report_number(double v, char *buf, size_t len) {
    report_number_c(v, buf, len);
    i18n_number(buf, len);
}

/* report_int, with the locale's separators. */
void report_int(double v, char *buf, size_t len) {
    report_int_c(v, buf, len);
    i18n_number(buf, len);
}

/* report_ratio, with the locale's decimal point and separators. */
void report_ratio(double r, char *buf, size_t len) {
    report_ratio_c(r, buf, len);
    i18n_number(buf, len);
}

/* The text of one engine warning with its figures in this formatter's
 * words (see report.h). */
void report_warning(const struct engine_scenario *sc, const struct engine_estimate *e,
                    enum engine_warning w, enum units u, char *buf, size_t len) {
    char a[48], b[48];
    switch (w) {
    case ENGINE_WARN_DOES_NOT_FIT:
        report_ratio(e->memory_ratio, a, sizeof(a));
        report_bytes(-e->spare_bytes, u, b, sizeof(b));
        snprintf(buf, len, _("needs %s the memory of one GPU (%s short)"), a, b);
        return;
    case ENGINE_WARN_COMM_BOUND:
        report_seconds(e->train_tp_comm_seconds + e->train_pp_comm_seconds +
                           e->train_dp_comm_seconds,
                       a, sizeof(a));
        report_seconds(e->train_step_seconds, b, sizeof(b));
        snprintf(buf, len, _("communication (%s) exceeds compute (%s) per step"), a, b);
        return;
    default:
        engine_warning_text(sc, e, w, buf, len);
    }
}
