/*
 * test_report.c: the one number formatter of the screen and the text
 * output (tui/report.c), in the C locale. The cases of issue 16, where the
 * explorer and `vramlab plan` disagreed or a figure read wrong: days with
 * separators, ratios with three figures, TB past 1000 GB, money, rates and
 * times past their units, whole counts with separators; then properties:
 * the unit climbs exactly where the shown value would reach 1000, and no
 * figure is ever longer than its bound.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/i18n.h"
#include "tui/report.h"

/* Each formatter into a fresh buffer, for the expectations below. */
static const char *bytes(double v) {
    static char b[64];
    report_bytes(v, UNITS_GB, b, sizeof b);
    return b;
}
static const char *gib(double v) {
    static char b[64];
    report_bytes(v, UNITS_GIB, b, sizeof b);
    return b;
}
static const char *secs(double v) {
    static char b[64];
    report_seconds(v, b, sizeof b);
    return b;
}
static const char *money(double v) {
    static char b[64];
    report_money(v, b, sizeof b);
    return b;
}
static const char *bw(double v) {
    static char b[64];
    report_bandwidth(v, b, sizeof b);
    return b;
}
static const char *flops(double v) {
    static char b[64];
    report_flops(v, b, sizeof b);
    return b;
}
static const char *whole(double v) {
    static char b[64];
    report_int(v, b, sizeof b);
    return b;
}
static const char *ratio(double v) {
    static char b[64];
    report_ratio(v, b, sizeof b);
    return b;
}
static const char *number(double v) {
    static char b[64];
    report_number(v, b, sizeof b);
    return b;
}

#define SAME(got, want) cr_expect_str_eq((got), (want), "%s, want %s", (got), (want))

/* The seed figures as the course text writes them (seed 000: 280, 140, 39.4
 * GB; 16 GB of an 8B model in FP16; the 80 GiB of an H100). */
Test(report, seed_figures) {
    SAME(bytes(280e9), "280.0 GB");
    SAME(bytes(140e9), "140.0 GB");
    SAME(bytes(39.375e9), "39.4 GB");
    SAME(bytes(16.06e9), "16.1 GB");
    SAME(gib(80.0 * 1073741824.0), "80.0 GiB");
    SAME(bytes(0), "0 B");
    SAME(bytes(512), "512 B");
}

/* Issue 16: "1000.0 GB" and "13496.8 GB" where 1.00 TB and 13.5 TB are
 * meant; the unit climbs at the value that would show 1000. */
Test(report, terabytes_past_a_thousand_gigabytes) {
    SAME(bytes(1000e9), "1.00 TB");
    SAME(bytes(999.96e9), "1.00 TB");
    SAME(bytes(999.94e9), "999.9 GB");
    SAME(bytes(13496.8e9), "13.5 TB");
    SAME(bytes(1120e9), "1.12 TB");
    SAME(gib(1024.0 * 1073741824.0), "1.00 TiB");
    SAME(bytes(-13496.8e9), "-13.5 TB");
    SAME(bytes(2.5e18), "2.50 EB");
    SAME(bytes(1e24), "1.00e+24 B");
}

/* Issue 16: the explorer's "17476.4 days" against plan's "17,476 days". */
Test(report, days_with_separators) {
    SAME(secs(17476.4 * 86400), "17,476 days");
    SAME(secs(226.3 * 86400), "226 days");
    SAME(secs(54.0 * 86400), "54.0 days");
    SAME(secs(3.1 * 3600), "3.10 h");
    SAME(secs(0.629), "629 ms");
    SAME(secs(0), "0 s");
}

/* Issue 16: "7.02e-11 us" (7.02e-17 s): below a microsecond in ns, below a
 * nanosecond in e-notation seconds. */
Test(report, tiny_times) {
    SAME(secs(5e-6), "5.00 us");
    SAME(secs(12.3e-9), "12.3 ns");
    SAME(secs(0.99999e-6), "1.00 us");
    SAME(secs(7.02e-17), "7.02e-17 s");
}

/* Issue 16: costs of 30 digits; "1000000000000 EB/s" for --measured-bw 1e30. */
Test(report, money_and_rates_past_their_units) {
    SAME(money(12.345), "$12.35");
    SAME(money(1234567), "$1,234,567");
    SAME(money(5.43e38), "$5.43e+38");
    SAME(money(999e12), "$999,000,000,000,000");
    SAME(bw(3.35e12), "3.35 TB/s");
    SAME(bw(900e9), "900 GB/s");
    SAME(bw(1e30), "1.00e+30 B/s");
    SAME(bw(5e18), "5.00 EB/s");
    SAME(flops(989e12), "989 TFLOP/s");
    SAME(flops(1.979e15), "1.98 PFLOP/s");
}

/* Issue 16: "1.0x" in the explorer where plan says 1.02x; counts with
 * thousands separators ("largest batch 6031"). */
Test(report, ratios_and_whole_numbers) {
    SAME(ratio(1.0234), "1.02x");
    SAME(ratio(13.46), "13.5x");
    SAME(ratio(101.7), "102x");
    SAME(ratio(2746.2), "2,746x");
    SAME(whole(6031), "6,031");
    SAME(whole(16384), "16,384");
    SAME(whole(64), "64");
    SAME(whole(1e18), "1.00e+18");
    SAME(number(64), "64.0");
    SAME(number(NAN), "n/a");
    SAME(ratio(INFINITY), "n/a");
}

/* Properties: every figure fits 20 columns ("$999,999,999,999,999") from 1 B
 * to 1e40, and the decimal bytes never show four integer digits. */
Test(report, bounded_width_and_three_digits) {
    for (double v = 1; v < 1e40; v *= 1.37) {
        const char *fs[] = {bytes(v), secs(v), money(v), bw(v), flops(v), whole(v), ratio(v)};
        for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
            cr_expect(strlen(fs[i]) <= 20, "%g -> '%s' is %zu long", v, fs[i], strlen(fs[i]));
        const char *b = bytes(v);
        int digits = 0;
        for (const char *c = b; *c >= '0' && *c <= '9'; c++)
            digits++;
        cr_expect(digits <= 3 || strchr(b, 'e'), "%g -> '%s'", v, b);
    }
}

/* Display cells, not bytes or code points (issue 16: the GPU pane dropped
 * "· 8/node" in UTF-8, where '·' is two bytes, but not in ASCII). */
Test(report, display_cells) {
    cr_expect_eq(i18n_width("link 900 GB/s \xc2\xb7 8/node"), 22);
    cr_expect_eq(i18n_width("ma\xc3\xb1" "ana"), 6);             /* ñ: one cell */
    cr_expect_eq(i18n_width("\xe6\xbc\xa2\xe5\xad\x97"), 4);      /* two CJK: two cells each */
    cr_expect_eq(i18n_width("e\xcc\x81"), 1);                     /* e + combining acute */
    cr_expect_eq(i18n_width("\xe2\x80\x8b"), 0);                  /* zero-width space */
    cr_expect_eq(i18n_width("\xe2\x94\x80\xe2\x94\x80"), 2);      /* box drawing: one each */
    cr_expect_eq(i18n_width("\xc3"), 1);                          /* a cut sequence: one */
    cr_expect_eq(i18n_width("\xff" "a"), 2);                      /* a stray byte: one */
    cr_expect_eq(i18n_width(""), 0);
}
