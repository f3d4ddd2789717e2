/*
 * units.c: strict parsers for the human units of the catalog and the CLI.
 *
 * A value is a decimal number (digits, an optional fraction, an optional
 * e-exponent), optional spaces, then a unit from the kind's table. The
 * number is scanned by hand into an integer mantissa and a power of ten, so
 * the result does not depend on the C locale (the TUI sets LC_ALL) and
 * "3.35 TB/s" is exactly 335e10, not 3.35 * 1e12 rounded twice. Binary
 * units (GiB) scale by an exact power of two.
 *
 * Refused, with "expected ..., found '...'": an unknown unit, trailing junk,
 * a sign, NaN or infinity (not numbers here), hex, and values past the
 * kind's ceiling (1e30 in base units for physical quantities: no real GPU
 * or model comes near, so anything above is a typo or an overflow).
 * Zero is accepted; whether zero makes sense is the caller's decision.
 */
#include "catalog/internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* One unit: its spelling and its factor 10^exp10 * 2^exp2. */
struct unit {
    const char *name;
    int exp10, exp2;
};

/* A kind of quantity: how messages name it, and its units. */
struct unit_kind {
    const char *what;    /* "size" */
    const char *example; /* "80 GiB" */
    const char *units;   /* the accepted units, for the message */
    const struct unit *table;
    size_t n_table;
    bool dollar;    /* an optional leading '$' (prices) */
    double ceiling; /* largest accepted value in base units */
    bool need_unit; /* a bare number is refused (4800 alone is not 4800 MT/s) */
};

#define PHYSICAL_CEILING 1e30

static const struct unit bytes_units[] = {
    {"B", 0, 0},   {"KB", 3, 0},   {"kB", 3, 0},   {"MB", 6, 0},   {"GB", 9, 0},   {"TB", 12, 0},
    {"PB", 15, 0}, {"KiB", 0, 10}, {"MiB", 0, 20}, {"GiB", 0, 30}, {"TiB", 0, 40}, {"PiB", 0, 50},
};
static const struct unit bandwidth_units[] = {
    {"B/s", 0, 0},   {"KB/s", 3, 0},   {"kB/s", 3, 0},   {"MB/s", 6, 0},   {"GB/s", 9, 0},
    {"TB/s", 12, 0}, {"KiB/s", 0, 10}, {"MiB/s", 0, 20}, {"GiB/s", 0, 30}, {"TiB/s", 0, 40},
};
static const struct unit flops_units[] = {
    {"FLOPS", 0, 0},   {"GFLOPS", 9, 0},   {"TFLOPS", 12, 0},  {"PFLOPS", 15, 0}, {"FLOP/s", 0, 0},
    {"GFLOP/s", 9, 0}, {"TFLOP/s", 12, 0}, {"PFLOP/s", 15, 0}, {"OPS", 0, 0},     {"GOPS", 9, 0},
    {"TOPS", 12, 0},   {"POPS", 15, 0},    {"G", 9, 0},        {"T", 12, 0},      {"P", 15, 0},
};
static const struct unit price_units[] = {{"/h", 0, 0}};
static const struct unit power_units[] = {{"W", 0, 0}, {"kW", 3, 0}};
static const struct unit count_units[] = {{"K", 3, 0}, {"M", 6, 0}, {"B", 9, 0}, {"T", 12, 0}};
static const struct unit transfer_units[] = {{"MT/s", 6, 0}, {"GT/s", 9, 0}};
static const struct unit seconds_units[] = {
    {"s", 0, 0}, {"ms", -3, 0}, {"us", -6, 0}, {"\xc2\xb5s", -6, 0}, {"ns", -9, 0},
};

#define KIND(what, example, units, table, dollar, ceiling)                                         \
    { what, example, units, table, sizeof(table) / sizeof(table[0]), dollar, ceiling, false }

static const struct unit_kind kind_bytes = KIND(
    "size", "80 GiB", "B KB MB GB TB PB KiB MiB GiB TiB PiB", bytes_units, false, PHYSICAL_CEILING);
static const struct unit_kind kind_bandwidth =
    KIND("bandwidth", "3.35 TB/s", "B/s KB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s TiB/s",
         bandwidth_units, false, PHYSICAL_CEILING);
static const struct unit_kind kind_flops =
    KIND("FLOP rate", "989 TFLOPS", "FLOPS GFLOPS TFLOPS PFLOPS TOPS POPS G T P", flops_units,
         false, PHYSICAL_CEILING);
static const struct unit_kind kind_price =
    KIND("price", "$2.49/h", "$X/h, US dollars per GPU-hour", price_units, true, PHYSICAL_CEILING);
static const struct unit_kind kind_power =
    KIND("power", "700 W", "W kW", power_units, false, PHYSICAL_CEILING);
static const struct unit_kind kind_count =
    KIND("count", "70B", "K M B T or e notation", count_units, false, PHYSICAL_CEILING);
static const struct unit_kind kind_seconds =
    KIND("duration", "2 ms", "s ms us ns", seconds_units, false, PHYSICAL_CEILING);
/* Memory transfer rates: DDR5-4800 is 4800 MT/s (million transfers per
 * second per pin); the unit is required. */
static const struct unit_kind kind_transfers = {
    "transfer rate", "4800 MT/s", "MT/s GT/s", transfer_units,
    sizeof(transfer_units) / sizeof(transfer_units[0]), false, PHYSICAL_CEILING, true};

/* A decimal number as scanned: mantissa * 10^exp10, and where it ended. */
struct decimal {
    uint64_t mantissa;
    long exp10;
    bool negative;
    const char *end;
};

/* Exact powers of ten that a double holds exactly. */
static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Whether c is an ASCII decimal digit (locale-free isdigit). */
static bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

/* Scan [-]digits[.digits][(e|E)[+-]digits] at s; false when there is none. */
static bool scan_decimal(const char *s, struct decimal *dec) {
    const char *p = s;
    int significant = 0;
    bool any = false;

    dec->mantissa = 0;
    dec->exp10 = 0;
    dec->negative = false;
    if (*p == '-') {
        dec->negative = true;
        p++;
    }
    for (; is_digit(*p); p++) {
        any = true;
        if (dec->mantissa == 0 && *p == '0')
            continue;
        if (significant < 19) {
            dec->mantissa = dec->mantissa * 10 + (uint64_t)(*p - '0');
            significant++;
        } else {
            dec->exp10++; /* digits past 19 only scale */
        }
    }
    if (*p == '.') {
        p++;
        for (; is_digit(*p); p++) {
            any = true;
            if (dec->mantissa == 0 && *p == '0') {
                dec->exp10--;
                continue;
            }
            if (significant < 19) {
                dec->mantissa = dec->mantissa * 10 + (uint64_t)(*p - '0');
                significant++;
                dec->exp10--;
            }
        }
    }
    if (!any)
        return false;
    if ((*p == 'e' || *p == 'E') &&
        (is_digit(p[1]) || ((p[1] == '+' || p[1] == '-') && is_digit(p[2])))) {
        long e = 0;
        int esign = 1;
        p++;
        if (*p == '+' || *p == '-')
            esign = *p++ == '-' ? -1 : 1;
        for (; is_digit(*p); p++) {
            if (e < 100000) /* far past any double; keeps e from overflowing */
                e = e * 10 + (*p - '0');
        }
        dec->exp10 += esign * e;
    }
    dec->end = p;
    return true;
}

/* The value mantissa * 10^exp10 * 2^exp2, rounded once where possible. */
static double decimal_value(uint64_t mantissa, long exp10, int exp2) {
    double v = (double)mantissa;

    if (mantissa == 0)
        return 0.0;
    if (exp10 > 0)
        v = exp10 <= 22 ? v * pow10_exact[exp10]
                        : (exp10 > 400 ? INFINITY : v * pow(10.0, (double)exp10));
    else if (exp10 < 0)
        v = -exp10 <= 22 ? v / pow10_exact[-exp10]
                         : (exp10 < -400 ? 0.0 : v / pow(10.0, (double)-exp10));
    return ldexp(v, exp2);
}

/* Copy s for a message: at most 40 bytes, control characters as '?'. */
void catalog_quote(const char *s, char *buf, size_t len) {
    size_t i, n = 0;
    const size_t max = 40;

    if (len == 0)
        return;
    for (i = 0; s[i] != '\0' && n + 1 < len; i++) {
        if (i == max) {
            if (n + 4 < len) {
                memcpy(buf + n, "...", 3);
                n += 3;
            }
            break;
        }
        buf[n++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    }
    buf[n] = '\0';
}

/* Whether c is a space or a tab (the only blanks a value may carry). */
static bool is_blank(char c) {
    return c == ' ' || c == '\t';
}

/* Parse s as a quantity of kind k into *out (base units), or explain. */
static int parse_quantity(const struct unit_kind *k, const char *s, double *out, char *err,
                          size_t errlen) {
    char found[64];
    const char *p = s, *unit, *end;
    struct decimal dec;
    size_t i, ulen;
    int exp2 = 0;
    long exp10;
    double v;

    if (s == NULL)
        s = p = "";
    catalog_quote(s, found, sizeof found);
    while (is_blank(*p))
        p++;
    if (k->dollar && *p == '$')
        p++;
    if (!scan_decimal(p, &dec))
        goto syntax;
    unit = dec.end;
    while (is_blank(*unit))
        unit++;
    end = unit + strlen(unit);
    while (end > unit && is_blank(end[-1]))
        end--;
    ulen = (size_t)(end - unit);
    exp10 = dec.exp10;
    if (ulen == 0 && k->need_unit)
        goto syntax;
    if (ulen > 0) {
        for (i = 0; i < k->n_table; i++) {
            if (strlen(k->table[i].name) == ulen && memcmp(k->table[i].name, unit, ulen) == 0)
                break;
        }
        if (i == k->n_table)
            goto syntax;
        exp10 += k->table[i].exp10;
        exp2 = k->table[i].exp2;
    }
    if (dec.negative) {
        snprintf(err, errlen, "expected a %s that is not negative, found '%s'", k->what, found);
        return -1;
    }
    v = decimal_value(dec.mantissa, exp10, exp2);
    if (!isfinite(v) || v > k->ceiling) {
        snprintf(err, errlen, "expected a %s of at most %g, found '%s'", k->what, k->ceiling,
                 found);
        return -1;
    }
    *out = v;
    return 0;

syntax:
    snprintf(err, errlen, "expected a %s like '%s' (%s), found '%s'", k->what, k->example, k->units,
             found);
    return -1;
}

/* Parse a size in bytes: "80 GiB", "141 GB", or plain bytes. */
int catalog_parse_bytes(const char *s, double *out, char *err, size_t errlen) {
    return parse_quantity(&kind_bytes, s, out, err, errlen);
}

/* Parse a bandwidth in bytes/s: "3.35 TB/s", or plain bytes/s. */
int catalog_parse_bandwidth(const char *s, double *out, char *err, size_t errlen) {
    return parse_quantity(&kind_bandwidth, s, out, err, errlen);
}

/* Parse a FLOP (or integer op) rate: "989 TFLOPS", "989T", "1979 TOPS". */
int catalog_parse_flops(const char *s, double *out, char *err, size_t errlen) {
    return parse_quantity(&kind_flops, s, out, err, errlen);
}

/* Parse a price in USD per GPU-hour: "$2.49/h", or a plain number. */
int catalog_parse_price(const char *s, double *out, char *err, size_t errlen) {
    return parse_quantity(&kind_price, s, out, err, errlen);
}

/* Parse a count: "70B", "405e9", "15.6T", or a plain number. */
int catalog_parse_count(const char *s, double *out, char *err, size_t errlen) {
    return parse_quantity(&kind_count, s, out, err, errlen);
}

/* Parse a power in watts: "700 W", "1.2 kW". */
int catalog_parse_power(const char *s, double *out, char *err, size_t errlen) {
    return parse_quantity(&kind_power, s, out, err, errlen);
}

/* Parse a memory transfer rate in transfers/s: "4800 MT/s", "8.533 GT/s". */
int catalog_parse_transfers(const char *s, double *out, char *err, size_t errlen) {
    return parse_quantity(&kind_transfers, s, out, err, errlen);
}

/* Parse a duration in seconds: "5us", "2 ms", "0.1 s". */
int catalog_parse_seconds(const char *s, double *out, char *err, size_t errlen) {
    return parse_quantity(&kind_seconds, s, out, err, errlen);
}

/* Parse a plain real number without units ("4.5", "3.4e38"); finite, not negative. */
int catalog_parse_number(const char *s, double *out, char *err, size_t errlen) {
    static const struct unit none[1] = {{"", 0, 0}};
    static const struct unit_kind kind_number = {
        "number", "4.5", "no unit", none, 0, false, 1.7976931348623157e308, false};
    return parse_quantity(&kind_number, s, out, err, errlen);
}

/* Parse a whole number 0..max without units ("32"); refuses fractions and suffixes. */
int catalog_parse_uint(const char *s, uint64_t max, uint64_t *out, char *err, size_t errlen) {
    char found[64];
    const char *p = s ? s : "";
    uint64_t v = 0;
    bool any = false;

    catalog_quote(p, found, sizeof found);
    while (is_blank(*p))
        p++;
    if (*p == '-' && is_digit(p[1])) {
        snprintf(err, errlen, "expected a whole number that is not negative, found '%s'", found);
        return -1;
    }
    for (; is_digit(*p); p++) {
        any = true;
        if (v > (UINT64_MAX - 9) / 10) {
            v = UINT64_MAX; /* saturate; reported below */
            continue;
        }
        v = v * 10 + (uint64_t)(*p - '0');
    }
    while (is_blank(*p))
        p++;
    if (!any || *p != '\0') {
        snprintf(err, errlen, "expected a whole number like '32', found '%s'", found);
        return -1;
    }
    if (v > max) {
        snprintf(err, errlen, "expected a whole number of at most %llu, found '%s'",
                 (unsigned long long)max, found);
        return -1;
    }
    *out = v;
    return 0;
}
