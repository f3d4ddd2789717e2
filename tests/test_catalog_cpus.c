/*
 * test_catalog_cpus.c: the catalog's CPU table (cpus:, share/catalog/cpus.yaml):
 * the data-sheet bandwidth arithmetic against the vendors' own figures, the
 * loader's values, defaults and exact file:line:col messages, matching a
 * CPU's reported model name (exact, never a prefix), and overrides by id.
 *
 * Golden figures (data-sheet bandwidth = channels x channel bits / 8 x MT/s):
 * - AMD EPYC 9654: 12 channels DDR5-4800 = 460.8 GB/s, AMD's "per socket
 *   memory bandwidth" on its product page;
 * - AMD EPYC 7763: 8 channels DDR4-3200 = 204.8 GB/s (AMD, same field);
 * - Intel Core i9-13900K: 2 channels DDR5-5600 = 89.6 GB/s, ARK's "max
 *   memory bandwidth"; Core Ultra 7 258V: LPDDR5X-8533 x 128 bits =
 *   136.5 GB/s (ARK); Core Ultra 7 155H: LPDDR5X-7467 = 119.5 GB/s, ARK
 *   rounds it to 120 GB/s;
 * - Apple M2: 128-bit LPDDR5-6400 = 102.4 GB/s, Apple says "100GB/s"; M4:
 *   LPDDR5X-7500 = 120 GB/s (Apple: 120GB/s); M2 Ultra: 1024 bits = 819.2
 *   GB/s (Apple: 800GB/s).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"

#define EXACT 1e-12

/* Load text as t.yaml into c; returns the loader's status. */
static int load_text(struct catalog *c, const char *text, struct catalog_diag *d) {
    return catalog_load_buffer(c, "t.yaml", text, strlen(text), d);
}

/* A CPU entry with one field replaced (or added) by `extra`. */
#define CPU_YAML(extra)                                                                            \
    "cpus:\n"                                                                                      \
    "  - id: test-cpu\n"                                                                           \
    "    name: Test CPU\n"                                                                         \
    "    vendor: amd\n"                                                                            \
    "    cores: 8\n"                                                                               \
    "    memory_type: ddr5\n"                                                                      \
    "    memory_speed: 4800 MT/s\n"                                                                \
    "    memory_channels: 2\n" extra "    source: a data sheet\n"

Test(cpu_bandwidth, published_figures) {
    /* AMD EPYC 9654: 12 x DDR5-4800 = 460.8 GB/s (AMD product page) */
    cr_expect_float_eq(catalog_memory_bandwidth(12, 64, 4800e6), 460.8e9, 460.8e9 * EXACT);
    /* AMD EPYC 7763: 8 x DDR4-3200 = 204.8 GB/s (AMD product page) */
    cr_expect_float_eq(catalog_memory_bandwidth(8, 64, 3200e6), 204.8e9, 204.8e9 * EXACT);
    /* Intel Core i9-13900K: 2 x DDR5-5600 = 89.6 GB/s (Intel ARK) */
    cr_expect_float_eq(catalog_memory_bandwidth(2, 64, 5600e6), 89.6e9, 89.6e9 * EXACT);
    /* Intel Core Ultra 7 258V: 128 bits of LPDDR5X-8533 = 136.528 GB/s, ARK "136.5 GB/s" */
    cr_expect_float_eq(catalog_memory_bandwidth(2, 64, 8533e6), 136.528e9, 136.528e9 * EXACT);
    /* the same bus as 16-bit LPDDR channels: the same bytes */
    cr_expect_float_eq(catalog_memory_bandwidth(8, 16, 8533e6), 136.528e9, 136.528e9 * EXACT);
}

Test(cpu_bandwidth, properties) {
    /* zero in any factor is no memory system */
    cr_expect_eq(catalog_memory_bandwidth(0, 64, 4800e6), 0);
    cr_expect_eq(catalog_memory_bandwidth(2, 0, 4800e6), 0);
    cr_expect_eq(catalog_memory_bandwidth(2, 64, 0), 0);
    cr_expect_eq(catalog_memory_bandwidth(2, 64, NAN), 0);
    /* linear in each factor; channels x width is what counts, not how the
     * bus is split */
    for (uint32_t ch = 1; ch <= 24; ch++) {
        double one = catalog_memory_bandwidth(1, 64, 3200e6);
        cr_expect_float_eq(catalog_memory_bandwidth(ch, 64, 3200e6), ch * one, ch * one * EXACT);
        cr_expect_float_eq(catalog_memory_bandwidth(4 * ch, 16, 3200e6),
                           catalog_memory_bandwidth(ch, 64, 3200e6), ch * one * EXACT);
        cr_expect_float_eq(catalog_memory_bandwidth(ch, 64, 6400e6),
                           2 * catalog_memory_bandwidth(ch, 64, 3200e6), 2 * ch * one * EXACT);
    }
}

Test(cpu_units, transfer_rates_need_their_unit) {
    double v = 0;
    char err[200];
    cr_assert_eq(catalog_parse_transfers("4800 MT/s", &v, err, sizeof err), 0, "%s", err);
    cr_expect_float_eq(v, 4.8e9, 4.8e9 * EXACT);
    cr_assert_eq(catalog_parse_transfers("8.533 GT/s", &v, err, sizeof err), 0, "%s", err);
    cr_expect_float_eq(v, 8.533e9, 8.533e9 * EXACT);
    cr_expect_eq(catalog_parse_transfers("4800", &v, err, sizeof err), -1);
    cr_expect_str_eq(err,
                     "expected a transfer rate like '4800 MT/s' (MT/s GT/s), found '4800'");
    cr_expect_eq(catalog_parse_transfers("4800 MHz", &v, err, sizeof err), -1);
    cr_expect_eq(catalog_parse_transfers("-4800 MT/s", &v, err, sizeof err), -1);
    cr_expect_str_eq(err, "expected a transfer rate that is not negative, found '-4800 MT/s'");
}

Test(cpu_loader, values_and_defaults) {
    struct catalog c;
    struct catalog_diag d = {0};
    catalog_init(&c);
    cr_assert_eq(load_text(&c, CPU_YAML("    device_names: [\"Test CPU 8-Core Processor\"]\n"), &d),
                 0, "%s", d.text);
    const struct catalog_cpu *cpu = catalog_find_cpu(&c, "test-cpu");
    cr_assert_not_null(cpu);
    cr_expect_str_eq(cpu->name, "Test CPU");
    cr_expect_str_eq(cpu->vendor, "amd");
    cr_expect_str_eq(cpu->memory_type, "ddr5");
    cr_expect_eq(cpu->cores, 8);
    cr_expect_eq(cpu->threads, 8, "threads default to the cores");
    cr_expect_eq(cpu->channel_bits, 64, "a channel is 64 bits unless said");
    cr_expect_eq(cpu->fp32_flop_per_s, 0, "no FP32 peak without a source");
    cr_expect_float_eq(cpu->bandwidth_bytes_per_s, 76.8e9, 76.8e9 * EXACT, "2 x DDR5-4800");
    cr_expect_str_eq(cpu->source, "a data sheet");
    cr_expect_eq(catalog_match_cpu(&c, "Test CPU 8-Core Processor"), cpu);
    cr_expect_eq(catalog_match_cpu(&c, "test cpu 8 core processor"), cpu, "normalised");
    cr_expect_eq(catalog_match_cpu(&c, "Test CPU"), cpu, "the name itself");
    cr_expect_null(catalog_match_cpu(&c, "Test"), "never a prefix");
    cr_expect_null(catalog_match_cpu(&c, "Test CPU 8-Core Processor 2"));
    cr_expect_null(catalog_match_device(&c, "Test CPU"), "a CPU is not a GPU");
    catalog_free(&c);

    catalog_init(&c);
    cr_assert_eq(load_text(&c,
                           CPU_YAML("    threads: 16\n    channel_width: 16\n"
                                    "    flops: {fp32: 1.5 TFLOPS}\n"),
                           &d),
                 0, "%s", d.text);
    cpu = catalog_find_cpu(&c, "test-cpu");
    cr_assert_not_null(cpu);
    cr_expect_eq(cpu->threads, 16);
    cr_expect_float_eq(cpu->bandwidth_bytes_per_s, 19.2e9, 19.2e9 * EXACT, "2 x 16 bits");
    cr_expect_float_eq(cpu->fp32_flop_per_s, 1.5e12, 1.5e12 * EXACT);
    catalog_free(&c);
    catalog_diag_free(&d);
}

Test(cpu_loader, mistakes_are_named_where_they_are) {
    static const struct {
        const char *text;
        const char *message;
    } cases[] = {
        {CPU_YAML("    threads: 4\n"),
         "t.yaml:9:14: threads: expected at least cores (8), found '4'\n"},
        {CPU_YAML("    channel_width: 12\n"),
         "t.yaml:9:20: channel_width: expected whole bytes in bits (16, 32, 64), found '12'\n"},
        {"cpus:\n  - {id: c, name: C, vendor: amd, cores: 8, memory_type: ddr5,"
         " memory_speed: 4800, memory_channels: 2, source: s}\n",
         "t.yaml:2:78: memory_speed: expected a transfer rate like '4800 MT/s' (MT/s GT/s), "
         "found '4800'\n"},
        {"cpus:\n  - {id: c, name: C, vendor: amd, cores: 8, memory_type: ddr5,"
         " memory_speed: 4800 GT/s, memory_channels: 2, source: s}\n",
         "t.yaml:2:78: memory_speed: expected 400 to 20000 MT/s (DDR5-4800 is 4800 MT/s), "
         "found '4800 GT/s'\n"},
        {"cpus:\n  - {id: c, name: C, vendor: amd, cores: 8, memory_type: ddr6,"
         " memory_speed: 4800 MT/s, memory_channels: 2, source: s}\n",
         "t.yaml:2:58: memory_type: expected one of ddr4, ddr5, lpddr4x, lpddr5, lpddr5x, "
         "found 'ddr6'\n"},
        {"cpus:\n  - {id: c, name: C, vendor: amd, cores: 0, memory_type: ddr5,"
         " memory_speed: 4800 MT/s, memory_channels: 2, source: s}\n",
         "t.yaml:2:42: cores: expected a whole number above zero, found '0'\n"},
        {"cpus:\n  - {id: c, name: C, vendor: amd, cores: 8, memory_type: ddr5,"
         " memory_speed: 4800 MT/s, source: s}\n",
         "t.yaml:2:5: memory_channels: expected in every cpus entry, found none\n"},
        {"cpus:\n  - {id: c, name: C, vendor: amd, cores: 8, memory_type: ddr5,"
         " memory_speed: 4800 MT/s, memory_channels: 2, bandwidth: 76.8 GB/s, source: s}\n",
         "t.yaml:2:109: bandwidth: unknown key in a cpus entry; expected one of id, name, vendor, "
         "cores, threads, memory_type, memory_speed, memory_channels, channel_width, flops, "
         "device_names, source\n"},
        {"cpus:\n  - {id: c, name: C, vendor: amd, cores: 8, memory_type: ddr5,"
         " memory_speed: 4800 MT/s, memory_channels: 2, flops: {fp16: 1T}, source: s}\n",
         "t.yaml:2:117: flops.fp16: unknown key in a cpus flops mapping (did you mean 'fp32'?)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct catalog c;
        struct catalog_diag d = {0};
        catalog_init(&c);
        cr_expect_eq(load_text(&c, cases[i].text, &d), -1, "case %zu", i);
        cr_expect_eq(c.n_cpus, 0, "case %zu: a bad file adds nothing", i);
        /* the message line; the quoted line follows it */
        char *nl = d.text ? strchr(d.text, '\n') : NULL;
        if (nl != NULL)
            nl[1] = '\0';
        cr_expect_str_eq(d.text ? d.text : "", cases[i].message, "case %zu", i);
        catalog_free(&c);
        catalog_diag_free(&d);
    }
}

Test(cpu_loader, duplicates_and_overrides) {
    struct catalog c;
    struct catalog_diag d = {0};
    catalog_init(&c);
    const char *twice = CPU_YAML("") "  - id: test-cpu\n    name: Again\n    vendor: amd\n"
                                     "    cores: 8\n    memory_type: ddr5\n"
                                     "    memory_speed: 4800 MT/s\n    memory_channels: 2\n"
                                     "    source: s\n";
    cr_expect_eq(load_text(&c, twice, &d), -1);
    cr_expect(d.text && strstr(d.text, "t.yaml:10:9: id: expected a unique id, found "
                                       "'test-cpu' again (first at line 2)") != NULL,
              "%s", d.text);
    catalog_diag_free(&d);
    catalog_free(&c);

    /* a user file replaces the shipped entry with the same id, names and all */
    catalog_init(&c);
    cr_assert_eq(catalog_load_default(&c, NULL), 0);
    size_t n = c.n_cpus;
    cr_assert_not_null(catalog_match_cpu(&c, "AMD EPYC 9654 96-Core Processor"));
    const char *mine = "cpus:\n  - id: epyc-9654\n    name: My EPYC\n    vendor: amd\n"
                       "    cores: 96\n    memory_type: ddr5\n    memory_speed: 4000 MT/s\n"
                       "    memory_channels: 12\n    device_names: [\"My EPYC\"]\n"
                       "    source: my own DIMMs\n";
    cr_assert_eq(load_text(&c, mine, &d), 0, "%s", d.text);
    cr_expect_eq(c.n_cpus, n);
    const struct catalog_cpu *cpu = catalog_find_cpu(&c, "epyc-9654");
    cr_expect_float_eq(cpu->bandwidth_bytes_per_s, 384e9, 384e9 * EXACT, "12 x DDR5-4000");
    cr_expect_null(catalog_match_cpu(&c, "AMD EPYC 9654 96-Core Processor"), "old names gone");
    cr_expect_eq(catalog_match_cpu(&c, "My EPYC"), cpu);
    catalog_free(&c);
    catalog_diag_free(&d);
}

/* ---- the shipped table ---------------------------------------------------- */

static struct catalog cat;

static void load(void) {
    struct catalog_diag d = {0};
    catalog_init(&cat);
    cr_assert_eq(catalog_load_default(&cat, &d), 0, "%s", d.text ? d.text : "");
    catalog_diag_free(&d);
}
static void unload(void) {
    catalog_free(&cat);
}
TestSuite(cpu_data, .init = load, .fini = unload);

/* The shipped CPU by the model name it reports: its bandwidth. */
static double bw_of(const char *model_name) {
    const struct catalog_cpu *c = catalog_match_cpu(&cat, model_name);
    cr_assert_not_null(c, "no catalog CPU reports '%s'", model_name);
    return c->bandwidth_bytes_per_s;
}

Test(cpu_data, bandwidths_are_the_data_sheets) {
    /* exact where the vendor states the product (see the file comment) */
    cr_expect_float_eq(bw_of("AMD EPYC 9654 96-Core Processor"), 460.8e9, 460.8e9 * EXACT);
    cr_expect_float_eq(bw_of("AMD EPYC 7763 64-Core Processor"), 204.8e9, 204.8e9 * EXACT);
    cr_expect_float_eq(bw_of("13th Gen Intel(R) Core(TM) i9-13900K"), 89.6e9, 89.6e9 * EXACT);
    cr_expect_float_eq(bw_of("Intel(R) Xeon(R) Platinum 8480+"), 307.2e9, 307.2e9 * EXACT);
    cr_expect_float_eq(bw_of("Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz"), 204.8e9,
                       204.8e9 * EXACT);
    cr_expect_float_eq(bw_of("AMD Ryzen 9 7950X 16-Core Processor"), 83.2e9, 83.2e9 * EXACT);
    cr_expect_float_eq(bw_of("Apple M4"), 120e9, 120e9 * EXACT);
    /* within the vendor's rounding where it rounds */
    cr_expect(fabs(bw_of("Intel(R) Core(TM) Ultra 7 258V") / 136.5e9 - 1) < 0.001);
    cr_expect(fabs(bw_of("Intel(R) Core(TM) Ultra 7 155H") / 120e9 - 1) < 0.005);
    cr_expect(fabs(bw_of("Apple M2") / 100e9 - 1) < 0.03, "Apple: 100GB/s");
    cr_expect(fabs(bw_of("Apple M2 Ultra") / 800e9 - 1) < 0.03, "Apple: 800GB/s");
}

Test(cpu_data, every_entry_is_whole_and_sourced) {
    cr_expect_geq(cat.n_cpus, 8, "a few desktop, laptop and server parts");
    bool vendor[3] = {false, false, false};
    for (size_t i = 0; i < cat.n_cpus; i++) {
        const struct catalog_cpu *c = &cat.cpus[i];
        cr_expect(c->source && strstr(c->source, "https://") != NULL, "%s: a source URL", c->id);
        cr_expect_gt(c->bandwidth_bytes_per_s, 0, "%s", c->id);
        cr_expect_geq(c->threads, c->cores, "%s", c->id);
        vendor[0] |= strcmp(c->vendor, "amd") == 0;
        vendor[1] |= strcmp(c->vendor, "intel") == 0;
        vendor[2] |= strcmp(c->vendor, "apple") == 0;
        /* every reported name finds its own entry */
        for (size_t k = 0; k < cat.n_cpu_names; k++)
            if (strcmp(cat.cpu_names[k].gpu_id, c->id) == 0)
                cr_expect_eq(catalog_match_cpu(&cat, cat.cpu_names[k].name), c, "%s", c->id);
    }
    cr_expect(vendor[0] && vendor[1] && vendor[2], "AMD, Intel and Apple parts");
}

Test(cpu_data, a_vm_or_an_unknown_part_matches_nothing) {
    /* what this project's KVM box reports, and other bare names */
    cr_expect_null(catalog_match_cpu(&cat, "AMD EPYC"));
    cr_expect_null(catalog_match_cpu(&cat, "CPU"));
    cr_expect_null(catalog_match_cpu(&cat, ""));
    cr_expect_null(catalog_match_cpu(&cat, "Intel(R) Xeon(R) Platinum"));
    /* the entry's own name or id find it too */
    cr_expect_str_eq(catalog_match_cpu(&cat, "AMD EPYC 9654")->id, "epyc-9654");
    cr_expect_str_eq(catalog_match_cpu(&cat, "epyc-9654")->id, "epyc-9654");
    /* Apple's CPU names are the CPU table's; the GPU table keeps its own */
    cr_expect_str_eq(catalog_match_cpu(&cat, "Apple M2 Ultra")->id, "apple-m2-ultra-cpu");
    cr_expect_str_eq(catalog_match_device(&cat, "Apple M2 Ultra")->id, "m2-ultra");
}
