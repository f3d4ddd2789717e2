/*
 * test_units.c: the strict unit parsers of catalog.h, by golden tables.
 * Values are exact where the decimal is exact in binary after scaling
 * (3.35 TB/s is 3350000000000 bytes/s exactly); the rest within 1e-12
 * relative. Every refusal is checked with its whole message.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "catalog/catalog.h"

typedef int (*parser_fn)(const char *, double *, char *, size_t);

struct golden {
    parser_fn parse;
    const char *in;
    double want;
};

/* Check every golden row parses to its value. */
static void check_golden(const struct golden *g, size_t n) {
    size_t i;

    for (i = 0; i < n; i++) {
        char err[256] = "";
        double v = -1;
        int rc = g[i].parse(g[i].in, &v, err, sizeof err);
        cr_expect_eq(rc, 0, "'%s' refused: %s", g[i].in, err);
        cr_expect(fabs(v - g[i].want) <= 1e-12 * g[i].want, "'%s' gave %.17g, want %.17g", g[i].in,
                  v, g[i].want);
    }
}

Test(units, sizes_decimal_and_binary) {
    const struct golden g[] = {
        {catalog_parse_bytes, "80 GiB", 80.0 * 1073741824.0},
        {catalog_parse_bytes, "80GiB", 80.0 * 1073741824.0},
        {catalog_parse_bytes, "141 GB", 141e9},
        {catalog_parse_bytes, "24 GiB", 24.0 * 1073741824.0},
        {catalog_parse_bytes, "1.5 TiB", 1.5 * 1099511627776.0},
        {catalog_parse_bytes, "512 MiB", 512.0 * 1048576.0},
        {catalog_parse_bytes, "4 KB", 4000},
        {catalog_parse_bytes, "100", 100},
        {catalog_parse_bytes, "0 B", 0},
        {catalog_parse_bytes, "  16 GB  ", 16e9},
    };
    check_golden(g, sizeof g / sizeof g[0]);
}

Test(units, bandwidth_is_exact) {
    const struct golden g[] = {
        {catalog_parse_bandwidth, "3.35 TB/s", 3.35e12},
        {catalog_parse_bandwidth, "900 GB/s", 900e9},
        {catalog_parse_bandwidth, "4.8 TB/s", 4.8e12},
        {catalog_parse_bandwidth, "64 GB/s", 64e9},
        {catalog_parse_bandwidth, "2e12", 2e12},
    };
    double v;
    char err[128];

    check_golden(g, sizeof g / sizeof g[0]);
    /* Exact, not 3.35 * 1e12 rounded twice. */
    cr_assert_eq(catalog_parse_bandwidth("3.35 TB/s", &v, err, sizeof err), 0);
    cr_assert(v == 3350000000000.0, "%.17g", v);
}

Test(units, flops_spellings) {
    const struct golden g[] = {
        {catalog_parse_flops, "989 TFLOPS", 989e12},   {catalog_parse_flops, "989T", 989e12},
        {catalog_parse_flops, "989 T", 989e12},        {catalog_parse_flops, "1979 TOPS", 1979e12},
        {catalog_parse_flops, "1.2 PFLOPS", 1.2e15},   {catalog_parse_flops, "67 TFLOP/s", 67e12},
        {catalog_parse_flops, "27.2 TFLOPS", 27.2e12}, {catalog_parse_flops, "312e12", 312e12},
    };
    check_golden(g, sizeof g / sizeof g[0]);
}

Test(units, price_power_seconds) {
    const struct golden g[] = {
        {catalog_parse_price, "$2.49/h", 2.49},  {catalog_parse_price, "$0.92/h", 0.92},
        {catalog_parse_price, "2.49", 2.49},     {catalog_parse_power, "700 W", 700},
        {catalog_parse_power, "1.2 kW", 1200},   {catalog_parse_seconds, "5us", 5e-6},
        {catalog_parse_seconds, "2 ms", 2e-3},   {catalog_parse_seconds, "0.1 s", 0.1},
        {catalog_parse_seconds, "40 ns", 40e-9}, {catalog_parse_seconds, "3", 3},
    };
    check_golden(g, sizeof g / sizeof g[0]);
}

Test(units, counts_with_suffixes) {
    const struct golden g[] = {
        {catalog_parse_count, "70B", 70e9},      {catalog_parse_count, "405e9", 405e9},
        {catalog_parse_count, "15.6T", 15.6e12}, {catalog_parse_count, "8030261248", 8030261248.0},
        {catalog_parse_count, "7.5M", 7.5e6},    {catalog_parse_count, "32K", 32000},
        {catalog_parse_count, "1.5e+3", 1500},   {catalog_parse_count, "0.5B", 0.5e9},
    };
    check_golden(g, sizeof g / sizeof g[0]);
}

struct refusal {
    parser_fn parse;
    const char *in;
    const char *msg;
};

Test(units, refusals_say_expected_and_found) {
    const struct refusal r[] = {
        {catalog_parse_bytes, "80 GX",
         "expected a size like '80 GiB' (B KB MB GB TB PB KiB MiB GiB TiB PiB), found '80 GX'"},
        {catalog_parse_bytes, "80 GiB extra",
         "expected a size like '80 GiB' (B KB MB GB TB PB KiB MiB GiB TiB PiB), found '80 GiB "
         "extra'"},
        {catalog_parse_bytes, "-80 GiB", "expected a size that is not negative, found '-80 GiB'"},
        {catalog_parse_bytes, "",
         "expected a size like '80 GiB' (B KB MB GB TB PB KiB MiB GiB "
         "TiB PiB), found ''"},
        {catalog_parse_bytes, "1e400 GB", "expected a size of at most 1e+30, found '1e400 GB'"},
        {catalog_parse_bytes, "1e31", "expected a size of at most 1e+30, found '1e31'"},
        {catalog_parse_bandwidth, "3.35 TB",
         "expected a bandwidth like '3.35 TB/s' (B/s KB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s "
         "TiB/s), found '3.35 TB'"},
        {catalog_parse_bandwidth, "nan",
         "expected a bandwidth like '3.35 TB/s' (B/s KB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s "
         "TiB/s), found 'nan'"},
        {catalog_parse_flops, "inf TFLOPS",
         "expected a FLOP rate like '989 TFLOPS' (FLOPS GFLOPS TFLOPS PFLOPS TOPS POPS G T P), "
         "found 'inf TFLOPS'"},
        {catalog_parse_flops, "989 tflops",
         "expected a FLOP rate like '989 TFLOPS' (FLOPS GFLOPS TFLOPS PFLOPS TOPS POPS G T P), "
         "found '989 tflops'"},
        {catalog_parse_flops, "0x10T",
         "expected a FLOP rate like '989 TFLOPS' (FLOPS GFLOPS TFLOPS PFLOPS TOPS POPS G T P), "
         "found '0x10T'"},
        {catalog_parse_price, "2.49 EUR/h",
         "expected a price like '$2.49/h' ($X/h, US dollars per GPU-hour), found '2.49 EUR/h'"},
        {catalog_parse_price, "$-1/h", "expected a price that is not negative, found '$-1/h'"},
        {catalog_parse_power, "700 J", "expected a power like '700 W' (W kW), found '700 J'"},
        {catalog_parse_count, "70G",
         "expected a count like '70B' (K M B T or e notation), "
         "found '70G'"},
        {catalog_parse_count, "+70B",
         "expected a count like '70B' (K M B T or e notation), "
         "found '+70B'"},
        {catalog_parse_count, "1.2.3",
         "expected a count like '70B' (K M B T or e notation), "
         "found '1.2.3'"},
        {catalog_parse_count, "70 B B",
         "expected a count like '70B' (K M B T or e notation), "
         "found '70 B B'"},
        {catalog_parse_seconds, "5 fortnights",
         "expected a duration like '2 ms' (s ms us ns), found '5 fortnights'"},
        {catalog_parse_number, "4.5 bits",
         "expected a number like '4.5' (no unit), found '4.5 bits'"},
    };
    size_t i;

    for (i = 0; i < sizeof r / sizeof r[0]; i++) {
        char err[256] = "";
        double v = 12345;
        cr_expect_eq(r[i].parse(r[i].in, &v, err, sizeof err), -1, "'%s' accepted", r[i].in);
        cr_expect_str_eq(err, r[i].msg, "for '%s'", r[i].in);
        cr_expect_eq(v, 12345, "'%s' wrote the output on failure", r[i].in);
    }
}

Test(units, long_input_is_cut_in_messages) {
    char in[200], err[256];
    double v;

    memset(in, '9', sizeof in - 4);
    strcpy(in + sizeof in - 4, " Q");
    cr_assert_eq(catalog_parse_bytes(in, &v, err, sizeof err), -1);
    cr_assert(strstr(err, "found '9999999999999999999999999999999999999999...'") != NULL, "%s",
              err);
}

Test(units, small_message_buffers_are_safe) {
    char err[8];
    double v;

    cr_assert_eq(catalog_parse_bytes("80 GX", &v, err, sizeof err), -1);
    cr_assert_str_eq(err, "expecte");
}
