/*
 * test_format.c: the one number formatter (engine/format.c), pure: golden
 * figures in English and in Spanish (es_ES's marks: ',' decimal, '.'
 * thousands, a no-break space before the unit), GB and GiB, the
 * significant figures of each unit kind, huge and tiny values, NaN and
 * truncation; then properties: the Spanish text is the English one with
 * the marks and words swapped, a figure read back is within its rounding
 * of the value, and no figure is wider than 28 cells.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/format.h"

#define NBSP "\xc2\xa0"

/* The Spanish words of po/es.po for the formatter's units. */
static const char *es_tr(const char *s) {
    static const char *const pairs[][2] = {
        {"days", "d\xc3\xad" "as"}, {"n/a", "n/d"}, {"yes", "s\xc3\xad"}, {"no", "no"},
        {"tok/s", "tok/s"},         {"bits", "bits"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (!strcmp(s, pairs[i][0]))
            return pairs[i][1];
    return s;
}

static struct engine_numfmt en(bool binary) {
    struct engine_numfmt f;
    engine_numfmt_english(&f);
    f.binary = binary;
    return f;
}

static struct engine_numfmt es(bool binary) {
    struct engine_numfmt f = {binary, ",", ".", NBSP, es_tr};
    return f;
}

/* Format into one of a few rotating buffers. */
static const char *fmt(struct engine_numfmt f, enum engine_unit u, double v) {
    static char b[8][96];
    static int i;
    char *p = b[i++ % 8];
    engine_format(&f, u, v, p, sizeof b[0]);
    return p;
}

#define SAME(got, want) cr_expect_str_eq((got), (want), "got '%s', want '%s'", (got), (want))

/* The course text's figures (seed 000: 280, 140, 39.4 GB; an H100's 80
 * GiB; 3.35 TB/s; 989 TFLOP/s) in English and Spanish. */
Test(format, seed_figures_english_and_spanish) {
    SAME(fmt(en(false), ENGINE_UNIT_BYTES, 280e9), "280.0 GB");
    SAME(fmt(en(false), ENGINE_UNIT_BYTES, 39.375e9), "39.4 GB");
    SAME(fmt(en(true), ENGINE_UNIT_BYTES, 80.0 * 1073741824.0), "80.0 GiB");
    SAME(fmt(es(false), ENGINE_UNIT_BYTES, 141.3e9), "141,3" NBSP "GB");
    SAME(fmt(es(true), ENGINE_UNIT_BYTES, 80.0 * 1073741824.0), "80,0" NBSP "GiB");
    /* the same bytes: 140 GB are 130.4 GiB */
    SAME(fmt(en(true), ENGINE_UNIT_BYTES, 140e9), "130.4 GiB");
    SAME(fmt(es(false), ENGINE_UNIT_BYTES_PER_S, 3.35e12), "3,35" NBSP "TB/s");
    SAME(fmt(es(false), ENGINE_UNIT_BYTES_PER_S, 350e9), "350" NBSP "GB/s");
    SAME(fmt(en(false), ENGINE_UNIT_FLOP_PER_S, 989e12), "989 TFLOP/s");
    SAME(fmt(es(false), ENGINE_UNIT_TOKENS_PER_S, 12166), "12.166" NBSP "tok/s");
    SAME(fmt(en(false), ENGINE_UNIT_TOKENS_PER_S, 806.2), "806 tok/s");
}

/* Significant figures by unit kind. */
Test(format, significant_figures_by_kind) {
    struct engine_numfmt e = en(false);
    SAME(fmt(e, ENGINE_UNIT_NUMBER, 12.345), "12.3");
    SAME(fmt(e, ENGINE_UNIT_NUMBER, 0.012345), "0.0123");
    SAME(fmt(e, ENGINE_UNIT_NUMBER, 64), "64.0");
    SAME(fmt(e, ENGINE_UNIT_NUMBER, 1234.5), "1,234");
    SAME(fmt(e, ENGINE_UNIT_PLAIN, 0.9), "0.9");
    SAME(fmt(e, ENGINE_UNIT_PLAIN, 4.5), "4.5");
    SAME(fmt(e, ENGINE_UNIT_INT, 16384), "16,384");
    SAME(fmt(e, ENGINE_UNIT_COUNT, 70.6e9), "70.6B");
    SAME(fmt(e, ENGINE_UNIT_COUNT, 8.03e9), "8.03B");
    SAME(fmt(e, ENGINE_UNIT_COUNT, 512), "512");
    SAME(fmt(e, ENGINE_UNIT_FLOP, 163e9), "163B FLOP");
    SAME(fmt(e, ENGINE_UNIT_FLOP_PER_BYTE, 295.2), "295 FLOP/B");
    SAME(fmt(e, ENGINE_UNIT_BYTE_SIZE, 0.5), "0.5 B");
    SAME(fmt(e, ENGINE_UNIT_BITS, 4.5), "4.5 bits");
    SAME(fmt(e, ENGINE_UNIT_FRACTION, 0.368), "36.8%");
    /* Issue 27 item 6: a fill past 999.9% reads ">999%", not 2328341.2%. */
    SAME(fmt(e, ENGINE_UNIT_FRACTION, 9.999), "999.9%");
    SAME(fmt(e, ENGINE_UNIT_FRACTION, 9.9996), ">999%");
    SAME(fmt(e, ENGINE_UNIT_FRACTION, 23283.412), ">999%");
    SAME(fmt(e, ENGINE_UNIT_FRACTION, -0.5), "-50.0%");
    SAME(fmt(e, ENGINE_UNIT_RATIO, 1.0234), "1.02x");
    SAME(fmt(e, ENGINE_UNIT_RATIO, 2746.2), "2,746x");
    SAME(fmt(e, ENGINE_UNIT_MONEY, 12.345), "$12.35");
    SAME(fmt(e, ENGINE_UNIT_MONEY, 1234567), "$1,234,567");
    SAME(fmt(e, ENGINE_UNIT_ENERGY, 1.74), "1.74 J");
    SAME(fmt(e, ENGINE_UNIT_ENERGY, 3.2 * 3.6e9), "3.2 MWh");
    SAME(fmt(e, ENGINE_UNIT_WATTS, 700), "700 W");
    SAME(fmt(e, ENGINE_UNIT_WATTS, 10.2e3), "10.2 kW");
    SAME(fmt(e, ENGINE_UNIT_SECONDS, 0.677), "677 ms");
    SAME(fmt(e, ENGINE_UNIT_SECONDS, 17476.4 * 86400), "17,476 days");
    SAME(fmt(e, ENGINE_UNIT_DAYS, 54.04), "54.0 days");
    SAME(fmt(e, ENGINE_UNIT_HOURS, 2.5e6), "2,500,000 h");
    SAME(fmt(e, ENGINE_UNIT_BOOL, 1), "yes");
    SAME(fmt(es(false), ENGINE_UNIT_BOOL, 0), "no");
    SAME(fmt(es(false), ENGINE_UNIT_SECONDS, 17476.4 * 86400), "17.476" NBSP "d\xc3\xad" "as");
    SAME(fmt(es(false), ENGINE_UNIT_FRACTION, 0.368), "36,8%");
    SAME(fmt(es(false), ENGINE_UNIT_MONEY, 1234567.0), "$1.234.567");
}

/* Huge and tiny values: e-notation past every unit, in the reader's marks. */
Test(format, huge_and_tiny) {
    SAME(fmt(en(false), ENGINE_UNIT_BYTES, 1e24), "1.00e+24 B");
    SAME(fmt(es(false), ENGINE_UNIT_BYTES, 1e24), "1,00e+24" NBSP "B");
    SAME(fmt(en(false), ENGINE_UNIT_BYTES, 999.96e9), "1.00 TB");
    SAME(fmt(en(false), ENGINE_UNIT_BYTES, -13496.8e9), "-13.5 TB");
    SAME(fmt(en(false), ENGINE_UNIT_BYTES_PER_S, 1e30), "1.00e+30 B/s");
    SAME(fmt(en(false), ENGINE_UNIT_MONEY, 5.43e38), "$5.43e+38");
    SAME(fmt(en(false), ENGINE_UNIT_INT, 1e18), "1.00e+18");
    SAME(fmt(en(false), ENGINE_UNIT_COUNT, 2e15), "2.00e+15");
    SAME(fmt(en(false), ENGINE_UNIT_SECONDS, 7.02e-17), "7.02e-17 s");
    SAME(fmt(en(false), ENGINE_UNIT_SECONDS, 12.3e-9), "12.3 ns");
    SAME(fmt(en(false), ENGINE_UNIT_BYTES, 0), "0 B");
    SAME(fmt(en(false), ENGINE_UNIT_NUMBER, 0), "0");
}

/* Not a number: "n/a", translated; every kind. */
Test(format, not_a_number) {
    for (int u = 0; u < ENGINE_UNIT_KIND_COUNT; u++) {
        SAME(fmt(en(false), (enum engine_unit)u, NAN), "n/a");
        SAME(fmt(es(true), (enum engine_unit)u, INFINITY), "n/d");
    }
}

/* Fixed decimals in the reader's marks (the Format pane's 4.50 b/w). */
Test(format, fixed_decimals) {
    char b[32];
    struct engine_numfmt e = es(false);
    engine_format_fixed(&e, 4.5, 2, b, sizeof b);
    SAME(b, "4,50");
    engine_format_fixed(NULL, 4.125, 3, b, sizeof b);
    SAME(b, "4.125");
    engine_format_fixed(&e, 12345.5, 1, b, sizeof b);
    SAME(b, "12.345,5");
    engine_format_fixed(&e, 0.000123456, -3, b, sizeof b);
    SAME(b, "0,000123");
    engine_format_fixed(&e, NAN, 2, b, sizeof b);
    SAME(b, "n/d");
}

/* A short buffer truncates and stays terminated; len 0 writes nothing. */
Test(format, truncation) {
    struct engine_numfmt e = es(false);
    char b[6];
    memset(b, 'x', sizeof b);
    size_t n = engine_format(&e, ENGINE_UNIT_BYTES, 141.3e9, b, sizeof b);
    cr_expect_eq(n, strlen(b));
    cr_expect_lt(strlen(b), sizeof b);
    char z = 'z';
    cr_expect_eq(engine_format(&e, ENGINE_UNIT_BYTES, 1, &z, 0), 0);
    cr_expect_eq(z, 'z');
    cr_expect_str_eq(engine_numfmt_tr(NULL, "days"), "days");
}

/* The English text with es_ES's marks and words: '.' and ',' between
 * digits swapped, the space before the unit a no-break space. */
static void to_spanish(const char *in, char *out, size_t len) {
    size_t o = 0;
    for (size_t i = 0; in[i] && o + 4 < len; i++) {
        bool digits = i > 0 && in[i - 1] >= '0' && in[i - 1] <= '9' && in[i + 1] >= '0' &&
                      in[i + 1] <= '9';
        if (digits && in[i] == '.')
            out[o++] = ',';
        else if (digits && in[i] == ',')
            out[o++] = '.';
        else if (in[i] == ' ') {
            memcpy(out + o, NBSP, 2);
            o += 2;
        } else
            out[o++] = in[i];
    }
    out[o] = '\0';
    char *d = strstr(out, "days");
    if (d && o + 2 < len) {
        memmove(d + 5, d + 4, strlen(d + 4) + 1);
        memcpy(d, "d\xc3\xad" "as", 5);
    }
}

/* Properties over 1e-12 .. 1e40 for every kind: Spanish is English with
 * the marks swapped; no figure is wider than 28 bytes (a bare number
 * below 1e15 with its separators and unit); bytes read back within their
 * rounding (half a unit of the last digit shown: 0.5%, or half a byte). */
Test(format, properties) {
    for (double v = 1e-12; v < 1e40; v *= 1.37) {
        for (int u = 0; u < ENGINE_UNIT_KIND_COUNT; u++) {
            if (u == ENGINE_UNIT_BOOL)
                continue;
            for (int sign = 1; sign >= -1; sign -= 2) {
                char want[128];
                const char *e = fmt(en(false), (enum engine_unit)u, sign * v);
                to_spanish(e, want, sizeof want);
                SAME(fmt(es(false), (enum engine_unit)u, sign * v), want);
                size_t cells = strlen(e);
                cr_expect(cells <= 28, "%s %g -> '%s' is %zu wide", engine_unit_name(u),
                          sign * v, e, cells);
            }
        }
        if (v < 1)
            continue;
        const char *b = fmt(en(false), ENGINE_UNIT_BYTES, v);
        static const char *const units[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
        char unit[8];
        double x;
        cr_assert_eq(sscanf(b, "%lf %7s", &x, unit), 2, "%s", b);
        double scale = 0;
        for (int i = 0; i < 7; i++)
            if (!strcmp(unit, units[i]))
                scale = pow(1000, i);
        cr_assert_gt(scale, 0, "unit of '%s'", b);
        cr_expect_leq(fabs(x * scale - v), fmax(0.005 * v, 0.5), "%g -> '%s'", v, b);
    }
}
