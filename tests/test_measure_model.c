/*
 * test_measure_model.c: the Measure pane's figures without a screen
 * (tui/measure_model.c) and its atomic save (tui/measure_pane.c): probe
 * events into the pane, predicted versus measured, the scenario redone
 * with a measured bandwidth, calibration, the seed's loss table, and
 * never overwriting a file without being asked. The shipped catalog gives
 * the H100 (3.35 TB/s data sheet) and the Pythia-1.4B evidence (seed 000).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "tui/measure_model.h"
#include "tui/measure_pane.h"
#include "tui/measure_run.h"

static struct catalog cat;

/* Load the shipped catalog once per test. */
static void setup(void) {
    catalog_init(&cat);
    cr_assert_eq(catalog_load_default(&cat, NULL), 0);
}

/* Free it. */
static void teardown(void) {
    catalog_free(&cat);
}

TestSuite(measure_model, .init = setup, .fini = teardown);

/* Feed one JSON line to the pane. */
static void feed(struct tui_measure *m, const char *line) {
    static struct probe_event ev;
    probe_event_from_line(line, strlen(line), &ev);
    tui_measure_take(m, &ev, &cat);
}

/* A scenario: Llama 3.1 8B, weights in format fmt, one H100 SXM. */
static struct engine_scenario scenario(const char *fmt) {
    struct engine_scenario sc;
    struct engine_scenario d;
    memset(&sc, 0, sizeof(sc));
    engine_scenario_defaults(&d);
    sc.serving = d.serving; /* the runtime settings' defaults (plain) */
    sc.model = *catalog_find_model(&cat, "llama-3.1-8b");
    sc.gpu = *catalog_find_gpu(&cat, "h100-sxm");
    sc.weight_format = *catalog_find_format(&cat, fmt);
    sc.kv_format = *catalog_find_format(&cat, "fp16");
    sc.gpus = sc.tp = sc.pp = sc.dp = 1;
    sc.batch = 1;
    sc.context = 4096;
    sc.micro_batches = 1;
    sc.interleave = 1;
    sc.mode = ENGINE_MODE_INFER;
    sc.mfu = 0.4;
    sc.bw_efficiency = sc.flops_efficiency = 1;
    return sc;
}

Test(measure_model, events_fill_rows_bars_and_the_lab) {
    static struct tui_measure m;
    feed(&m, "{\"event\":\"device\",\"backend\":\"cuda\",\"name\":\"NVIDIA H100 80GB HBM3\","
             "\"l2_bytes\":52428800}");
    cr_assert_not_null(m.match, "the H100's driver name matches the catalog");
    cr_assert_str_eq(m.backend, "cuda");
    feed(&m, "{\"event\":\"progress\",\"test\":\"copy\",\"fraction\":0.5}");
    cr_assert_eq(m.n_bars, 1);
    cr_assert_float_eq(m.bars[0].fraction, 0.5, 1e-12);
    feed(&m, "{\"event\":\"result\",\"test\":\"copy\",\"bytes\":2e9,\"bytes_per_s\":3e12,"
             "\"verified\":true}");
    cr_assert_float_eq(m.bars[0].fraction, 1, 1e-12, "a result fills its bar");
    /* GEMV: batch 1 kept, batch 4 ignored; GEMM: the highest FLOP/s kept */
    feed(&m, "{\"event\":\"result\",\"test\":\"w4a16\",\"batch\":1,\"bytes\":1.5e8,"
             "\"bytes_per_s\":2.4e12,\"verified\":true}");
    feed(&m, "{\"event\":\"result\",\"test\":\"w4a16\",\"batch\":4,\"bytes\":1.5e8,"
             "\"bytes_per_s\":9e12,\"verified\":true}");
    feed(&m, "{\"event\":\"result\",\"test\":\"gemm\",\"batch\":4096,\"bytes\":8e8,"
             "\"bytes_per_s\":2.6e11,\"flop_per_s\":7e14,\"verified\":true}");
    feed(&m, "{\"event\":\"result\",\"test\":\"gemm\",\"batch\":64,\"bytes\":6e8,"
             "\"bytes_per_s\":1e12,\"flop_per_s\":1e14,\"verified\":true}");
    cr_assert_float_eq(tui_measure_find(&m, "w4a16")->bytes_per_s, 2.4e12, 1);
    cr_assert_float_eq(tui_measure_find(&m, "gemm")->flop_per_s, 7e14, 1);
    cr_assert(tui_measure_in_cache(&m, tui_measure_find(&m, "w4a16")), "150 MB < 4 x 52 MB");
    cr_assert_not(tui_measure_in_cache(&m, tui_measure_find(&m, "copy")));
    /* the error lab: "matrix" is group 0 */
    feed(&m, "{\"event\":\"result\",\"test\":\"error\",\"bits\":4,\"group\":\"matrix\","
             "\"weights\":\"outliers\",\"relative_error\":0.528,\"zero_fraction\":0.643}");
    const struct tui_measure_lab *l = tui_measure_lab_find(&m, 4, 0, true);
    cr_assert_not_null(l);
    cr_assert_float_eq(l->zero_fraction, 0.643, 1e-12);
    cr_assert_null(tui_measure_lab_find(&m, 4, 32, true));
    /* a skip marks its bar; an error and a truncated stream are messages */
    feed(&m, "{\"event\":\"skip\",\"test\":\"gemm\",\"reason\":\"no cuBLAS\"}");
    feed(&m, "{\"event\":\"error\",\"message\":\"out of memory\",\"code\":\"out-of-memory\"}");
    cr_assert_str_eq(m.error, "out of memory [out-of-memory]");
    static struct probe_event ev;
    ev.kind = PROBE_EV_TRUNCATED;
    ev.j.n = 0;
    tui_measure_take(&m, &ev, &cat);
    cr_assert(strstr(m.error, "middle of a line") != NULL, "%s", m.error);
}

Test(measure_model, predicted_is_the_matched_data_sheet_else_the_scenario_gpu) {
    static struct tui_measure m;
    const struct engine_gpu *h100 = catalog_find_gpu(&cat, "h100-sxm");
    const struct engine_gpu *a100 = catalog_find_gpu(&cat, "a100-80gb");
    cr_assert_not_null(a100);
    feed(&m, "{\"event\":\"result\",\"test\":\"read\",\"bytes\":1e9,\"bytes_per_s\":1e11}");
    const struct tui_measure_row *r = tui_measure_find(&m, "read");
    cr_assert_float_eq(tui_measure_predicted(&m, r, a100), a100->bandwidth_bytes_per_s, 1,
                       "no device match: the scenario's GPU");
    m.match = h100;
    cr_assert_float_eq(tui_measure_predicted(&m, r, a100), 3.35e12, 1e6);
}

Test(measure_model, scenario_redone_scales_the_memory_bound_ceiling) {
    struct engine_scenario sc = scenario("fp16");
    struct tui_measure_redo rd;
    tui_measure_redo(&sc, 3.0e12, 0, &rd);
    cr_assert(rd.valid);
    /* batch 1 decode is memory bound: the ceiling scales with bandwidth */
    cr_assert_float_eq(rd.measured_tokens_per_s / rd.predicted_tokens_per_s, 3.0 / 3.35, 1e-9);
    /* ~16 GB of FP16 weights and KV per step on 3.35 TB/s: about 200 tok/s */
    cr_assert(rd.predicted_tokens_per_s > 190 && rd.predicted_tokens_per_s < 215, "%g",
              rd.predicted_tokens_per_s);
    /* already calibrated: "predicted" stays the data sheet's */
    sc.measured_bytes_per_s = 1e12;
    struct tui_measure_redo rd2;
    tui_measure_redo(&sc, 3.0e12, 0, &rd2);
    cr_assert_float_eq(rd2.predicted_tokens_per_s, rd.predicted_tokens_per_s, 1e-9);
    sc.mode = ENGINE_MODE_TRAIN;
    tui_measure_redo(&sc, 3.0e12, 0, &rd);
    cr_assert_not(rd.valid, "training has no decode ceiling");
}

Test(measure_model, decode_bandwidth_follows_the_weight_width) {
    static struct tui_measure m;
    const char *test;
    cr_assert_eq(tui_measure_decode_bw(&m, NULL, &test, NULL), 0);
    cr_assert_null(test);
    feed(&m, "{\"event\":\"result\",\"test\":\"copy\",\"bytes\":2e9,\"bytes_per_s\":3e12}");
    cr_assert_float_eq(tui_measure_decode_bw(&m, NULL, &test, NULL), 3e12, 1);
    cr_assert_str_eq(test, "copy");
    feed(&m, "{\"event\":\"result\",\"test\":\"gemv-fp16\",\"batch\":1,\"bytes\":5e8,"
             "\"bytes_per_s\":2.9e12}");
    feed(&m, "{\"event\":\"result\",\"test\":\"w4a16\",\"batch\":1,\"bytes\":1.5e8,"
             "\"bytes_per_s\":2.4e12}");
    struct engine_scenario fp16 = scenario("fp16"), int4 = scenario("int4-g32");
    cr_assert_float_eq(tui_measure_decode_bw(&m, &fp16.weight_format, &test, NULL), 2.9e12, 1);
    cr_assert_str_eq(test, "gemv-fp16");
    cr_assert_float_eq(tui_measure_decode_bw(&m, &int4.weight_format, &test, NULL), 2.4e12, 1);
    cr_assert_str_eq(test, "w4a16");
}

/* The H100's device event (the scenario's GPU). */
#define H100_DEVICE                                                                                \
    "{\"event\":\"device\",\"backend\":\"cuda\",\"name\":\"NVIDIA H100 80GB HBM3\"}"

Test(measure_model, calibration_toggles) {
    static struct tui_measure m;
    struct engine_scenario sc = scenario("fp16");
    cr_assert_not(tui_measure_toggle_calibration(&m, &sc), "nothing measured");
    cr_assert(strstr(m.note, "m runs the probe") != NULL);
    feed(&m, H100_DEVICE);
    feed(&m, "{\"event\":\"result\",\"test\":\"gemv-fp16\",\"batch\":1,\"bytes\":5e8,"
             "\"bytes_per_s\":2.9e12}");
    cr_assert(tui_measure_toggle_calibration(&m, &sc));
    cr_assert_float_eq(sc.measured_bytes_per_s, 2.9e12, 1);
    cr_assert_eq(sc.measured_flop_per_s, 0, "no GEMM measured: the data-sheet FLOP/s");
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert(e.warnings & ENGINE_WARN_CALIBRATED);
    cr_assert_float_eq(e.bandwidth_bytes_per_s, 2.9e12, 1);
    cr_assert(tui_measure_toggle_calibration(&m, &sc));
    cr_assert_eq(sc.measured_bytes_per_s, 0, "again: back to the data sheet");
}

Test(measure_model, calibration_belongs_to_the_gpu_it_was_made_for) {
    static struct tui_measure m;
    struct engine_scenario sc = scenario("fp16");
    feed(&m, H100_DEVICE);
    feed(&m, "{\"event\":\"result\",\"test\":\"copy\",\"bytes\":2e9,\"bytes_per_s\":3e12}");
    cr_assert(tui_measure_toggle_calibration(&m, &sc));
    cr_assert_not(tui_measure_recheck_calibration(&m, &sc), "same GPU: kept");
    cr_assert_float_eq(sc.measured_bytes_per_s, 3e12, 1);
    sc.gpu = *catalog_find_gpu(&cat, "a100-80gb");
    cr_assert(tui_measure_recheck_calibration(&m, &sc), "another GPU: dropped");
    cr_assert_eq(sc.measured_bytes_per_s, 0);
    /* a calibration from the command line (no pane record) stays */
    sc.measured_bytes_per_s = 1e12;
    cr_assert_not(tui_measure_recheck_calibration(&m, &sc));
    cr_assert_float_eq(sc.measured_bytes_per_s, 1e12, 1);
}

Test(measure_model, seed_loss_at_the_nearest_width) {
    double at, pg, pm, base;
    cr_assert(tui_measure_seed_loss(&cat, 4, &at, &pg, &pm, &base));
    cr_assert_eq(at, 4);
    cr_assert_float_eq(pg, 2.6565, 1e-9);   /* seed 000: per group of 32 holds */
    cr_assert_float_eq(pm, 10.692, 1e-9);   /* per matrix breaks */
    cr_assert_float_eq(base, 2.5805, 1e-9); /* FP16 */
    cr_assert(tui_measure_seed_loss(&cat, 4.5, &at, &pg, &pm, &base));
    cr_assert(at == 4 || at == 5);
    cr_assert(tui_measure_seed_loss(&cat, 16, &at, &pg, &pm, &base));
    cr_assert_eq(at, 16);
    cr_assert_not(tui_measure_seed_loss(NULL, 4, &at, &pg, &pm, &base));
}

Test(measure_model, save_never_replaces_without_being_asked) {
    static struct measure_run run;
    static struct probe_event ev;
    char dir[] = "/tmp/vramlab-save-XXXXXX", path[128], err[256], text[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/out.json", dir);
    const char *l = "{\"event\":\"device\",\"backend\":\"cpu\",\"name\":\"Test CPU\"}";
    probe_event_from_line(l, strlen(l), &ev);
    measure_run_take(&run, &ev);
    cr_assert_eq(tui_mpane_save(&run, NULL, NULL, path, false, err, sizeof(err)), 0, "%s", err);
    FILE *f = fopen(path, "w");
    fputs("mine\n", f);
    fclose(f);
    cr_assert_eq(tui_mpane_save(&run, NULL, NULL, path, false, err, sizeof(err)), 1, "exists: ask");
    f = fopen(path, "r");
    cr_assert(fgets(text, sizeof(text), f) && strcmp(text, "mine\n") == 0, "left alone");
    fclose(f);
    cr_assert_eq(tui_mpane_save(&run, NULL, NULL, path, true, err, sizeof(err)), 0, "%s", err);
    f = fopen(path, "r");
    cr_assert(fgets(text, sizeof(text), f) && text[0] == '{', "replaced after yes");
    fclose(f);
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0);
    cr_assert(sb.st_mode & S_IRUSR);
    /* no temporary file left behind */
    snprintf(text, sizeof(text), "ls -A %s | grep -v '^out.json$'", dir);
    cr_assert_neq(system(text), 0);
    /* a link is followed and kept; a FIFO is refused and kept (issue 27) */
    char link[600], fifo[600];
    snprintf(link, sizeof(link), "%s/link.json", dir);
    cr_assert_eq(symlink("out.json", link), 0);
    cr_assert_eq(tui_mpane_save(&run, NULL, NULL, link, false, err, sizeof(err)), 1);
    cr_assert_eq(tui_mpane_save(&run, NULL, NULL, link, true, err, sizeof(err)), 0, "%s", err);
    cr_assert(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode), "the link was replaced");
    snprintf(fifo, sizeof(fifo), "%s/fifo.json", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(tui_mpane_save(&run, NULL, NULL, fifo, true, err, sizeof(err)), -1);
    cr_assert(strstr(err, "FIFO") && !strchr(err, '\n'), "%s", err);
    cr_assert(lstat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode), "the FIFO was replaced");
    unlink(fifo);
    unlink(link);
    unlink(path);
    rmdir(dir);
    measure_run_free(&run);
}

/* ---- the CPU against itself (issue 11) ---------------------------------- */

/* A CPU device event with this name and "virtual" member (NULL: absent). */
static void feed_cpu(struct tui_measure *m, const char *name, const char *virt) {
    char line[512];
    snprintf(line, sizeof(line),
             "{\"event\":\"device\",\"backend\":\"cpu\",\"name\":\"%s\",\"memory_bytes\":8e9,"
             "\"isa\":\"avx2\"%s%s}",
             name, virt ? ",\"virtual\":" : "", virt ? virt : "");
    feed(m, line);
}

/* The 2-core EPYC VM of tests/fixtures/probe/fake-cpu.sh, batch 1. */
static void feed_cpu_rates(struct tui_measure *m) {
    feed(m, "{\"event\":\"result\",\"test\":\"copy\",\"threads\":2,\"bytes\":5.4e8,"
            "\"bytes_per_s\":9.8e9,\"reference_bytes_per_s\":1.01e10,\"verified\":true}");
    feed(m, "{\"event\":\"result\",\"test\":\"fma-peak\",\"threads\":2,\"bytes\":null,"
            "\"bytes_per_s\":null,\"flop_per_s\":1.8e11,\"verified\":true}");
    feed(m, "{\"event\":\"result\",\"test\":\"gemv-fp16\",\"threads\":2,\"batch\":1,"
            "\"bytes\":6.7e7,\"bytes_per_s\":8.9e9,\"flop_per_s\":8.9e9,\"verified\":true}");
    feed(m, "{\"event\":\"result\",\"test\":\"w4a16\",\"threads\":2,\"batch\":1,\"bytes\":1.9e7,"
            "\"bytes_per_s\":8e9,\"verified\":true,\"note\":\"bound by unpacking\"}");
}

Test(measure_model, a_cpu_is_never_a_gpu_data_sheet) {
    static struct tui_measure m;
    const struct engine_gpu *h100 = catalog_find_gpu(&cat, "h100-sxm");
    feed_cpu(&m, "AMD EPYC", "true");
    feed_cpu_rates(&m);
    cr_assert(m.on_cpu);
    cr_assert_null(m.match);
    cr_assert_null(m.cpu, "a bare \"AMD EPYC\" is no catalog part");
    cr_assert_eq(m.virt, 1);
    cr_assert_str_eq(m.isa, "avx2");
    const struct tui_measure_row *copy = tui_measure_find(&m, "copy");
    cr_assert(isnan(tui_measure_predicted(&m, copy, h100)), "never the scenario's GPU");
    cr_assert_float_eq(copy->reference_bytes_per_s, 1.01e10, 1);
    cr_assert_str_eq(tui_measure_find(&m, "w4a16")->note, "bound by unpacking");
    cr_assert_float_eq(tui_measure_fma_peak(&m), 1.8e11, 1, "fma-peak kept without bytes");
    feed(&m, "{\"event\":\"progress\",\"test\":\"fma-peak\",\"fraction\":0.4,\"index\":3,"
             "\"count\":9,\"eta_seconds\":3}");
    cr_assert_str_eq(m.progress, "fma-peak 40% (test 3 of 9)");
    /* a known part on bare metal: its data sheet (AMD: 460.8 GB/s) */
    tui_measure_clear(&m);
    feed_cpu(&m, "AMD EPYC 9654 96-Core Processor", "false");
    feed_cpu_rates(&m);
    cr_assert_not_null(m.cpu);
    cr_assert_str_eq(m.cpu->id, "epyc-9654");
    copy = tui_measure_find(&m, "copy");
    cr_assert_float_eq(tui_measure_predicted(&m, copy, h100), 460.8e9, 1);
    cr_assert(isnan(tui_measure_predicted(&m, tui_measure_find(&m, "fma-peak"), h100)),
              "the catalog gives no FP32 peak for it");
    /* the same part in a VM: named, no data sheet */
    tui_measure_clear(&m);
    feed_cpu(&m, "AMD EPYC 9654 96-Core Processor", "true");
    feed_cpu_rates(&m);
    cr_assert_not_null(m.cpu);
    cr_assert(isnan(tui_measure_predicted(&m, tui_measure_find(&m, "copy"), h100)));
    /* an older probe (no "virtual"): unknown, and a known part keeps its sheet */
    tui_measure_clear(&m);
    feed_cpu(&m, "AMD EPYC 9654 96-Core Processor", NULL);
    cr_assert_eq(m.virt, -1);
    /* Apple's CPU name is the CPU table's, not the GPU table's */
    tui_measure_clear(&m);
    feed_cpu(&m, "Apple M2 Ultra", "false");
    cr_assert_null(m.match);
    cr_assert_str_eq(m.cpu->id, "apple-m2-ultra-cpu");
}

Test(measure_model, the_kernel_of_each_weight_width) {
    static struct tui_measure m;
    const char *test;
    bool nearest;
    feed(&m, "{\"event\":\"result\",\"test\":\"copy\",\"bytes\":2e9,\"bytes_per_s\":1e10}");
    struct engine_scenario f16 = scenario("fp16"), b16 = scenario("bf16"),
                           i4 = scenario("int4-g32"), f32 = scenario("fp32");
    /* only the copy: it stands in, named as not the format's own */
    cr_assert_float_eq(tui_measure_decode_bw(&m, &b16.weight_format, &test, &nearest), 1e10, 1);
    cr_assert_str_eq(test, "copy");
    cr_assert(nearest);
    feed(&m, "{\"event\":\"result\",\"test\":\"gemv-fp16\",\"batch\":1,\"bytes\":5e8,"
             "\"bytes_per_s\":9e9}");
    feed(&m, "{\"event\":\"result\",\"test\":\"w8a16\",\"batch\":1,\"bytes\":3e8,"
             "\"bytes_per_s\":8.5e9}");
    cr_assert_float_eq(tui_measure_decode_bw(&m, &b16.weight_format, &test, &nearest), 9e9, 1);
    cr_assert_str_eq(test, "gemv-fp16");
    cr_assert(nearest, "BF16 weights on the FP16 kernel: the nearest, said so");
    tui_measure_decode_bw(&m, &f16.weight_format, &test, &nearest);
    cr_assert_str_eq(test, "gemv-fp16");
    cr_assert_not(nearest);
    tui_measure_decode_bw(&m, &i4.weight_format, &test, &nearest);
    cr_assert_str_eq(test, "w8a16", "no w4a16: the nearest width");
    cr_assert(nearest);
    tui_measure_decode_bw(&m, &f32.weight_format, &test, &nearest);
    cr_assert_str_eq(test, "gemv-fp16");
    cr_assert(nearest);
    feed(&m, "{\"event\":\"result\",\"test\":\"gemv-bf16\",\"batch\":1,\"bytes\":5e8,"
             "\"bytes_per_s\":8.8e9}");
    feed(&m, "{\"event\":\"result\",\"test\":\"w4a16\",\"batch\":1,\"bytes\":1.5e8,"
             "\"bytes_per_s\":8e9}");
    cr_assert_float_eq(tui_measure_decode_bw(&m, &b16.weight_format, &test, &nearest), 8.8e9, 1);
    cr_assert_str_eq(test, "gemv-bf16");
    cr_assert_not(nearest);
    tui_measure_decode_bw(&m, &i4.weight_format, &test, &nearest);
    cr_assert_str_eq(test, "w4a16");
    cr_assert_not(nearest);
}

/* measure_decode_kernel's have: every test listed in ctx (comma-separated). */
static bool listed(const char *test, const void *ctx) {
    char want[40];
    snprintf(want, sizeof(want), ",%s,", test);
    return strstr(ctx, want) != NULL;
}

Test(measure_model, decode_kernel_by_width) {
    static const char all[] = ",gemv-fp16,gemv-bf16,w8a16,w4a16,";
    bool nearest;
    static const struct {
        double bits;
        bool bf16;
        const char *want;
        bool nearest;
    } cases[] = {
        {16, false, "gemv-fp16", false}, {16, true, "gemv-bf16", false},
        {8, false, "w8a16", false},      {4, false, "w4a16", false},
        {32, false, "gemv-fp16", true},  {2, false, "w4a16", true},
        {3, false, "w4a16", true},       {5, false, "w4a16", true},
        {6, false, "w8a16", true}, /* a tie: the wider */
        {12, false, "gemv-fp16", true},  {7, false, "w8a16", true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *t = measure_decode_kernel(cases[i].bits, cases[i].bf16, listed, all, &nearest);
        cr_expect_str_eq(t, cases[i].want, "%g bits", cases[i].bits);
        cr_expect_eq(nearest, cases[i].nearest, "%g bits", cases[i].bits);
    }
    cr_expect_null(measure_decode_kernel(16, false, listed, ",copy,", &nearest));
    cr_expect_str_eq(measure_decode_kernel(16, false, listed, ",gemv-bf16,", &nearest), "gemv-bf16");
    cr_expect(nearest);
}

Test(measure_model, cpu_roofline) {
    /* min(fma-peak, C x FLOP/byte): a 2-core VM at C = 9.8 GB/s and 180 GFLOP/s,
     * ridge 18.4 FLOP/byte */
    cr_expect_float_eq(measure_roofline(180e9, 9.8e9, 1), 9.8e9, 1);
    cr_expect_float_eq(measure_roofline(180e9, 9.8e9, 16), 156.8e9, 1);
    cr_expect_float_eq(measure_roofline(180e9, 9.8e9, 64), 180e9, 1, "past the ridge: the peak");
    cr_expect_float_eq(measure_roofline(NAN, 9.8e9, 4), 39.2e9, 1, "no peak: the memory roof");
    cr_expect_float_eq(measure_roofline(180e9, NAN, 4), 180e9, 1, "no C: the peak");
    cr_expect(isnan(measure_roofline(NAN, 0, 4)));
    cr_expect(isnan(measure_roofline(180e9, 9.8e9, NAN)));
    /* never above either roof, and monotone in the intensity */
    double prev = 0;
    for (double i = 0.25; i < 100; i *= 1.5) {
        double r = measure_roofline(180e9, 9.8e9, i);
        cr_expect(r <= 180e9 && r <= 9.8e9 * i + 1e-3 && r >= prev, "%g", i);
        prev = r;
    }
}

Test(measure_model, progress_text) {
    static struct probe_event ev;
    char buf[160];
    const char *l = "{\"event\":\"progress\",\"test\":\"fma-peak\",\"fraction\":0.4,\"index\":3,"
                    "\"count\":11,\"eta_seconds\":12.4}";
    probe_event_from_line(l, strlen(l), &ev);
    measure_progress_text(&ev.j, buf, sizeof(buf));
    cr_expect_str_eq(buf, "test 3 of 11, fma-peak,  40%, about 12 s left");
    l = "{\"event\":\"progress\",\"test\":\"copy\",\"fraction\":1,\"index\":1,\"count\":11,"
        "\"eta_seconds\":125}";
    probe_event_from_line(l, strlen(l), &ev);
    measure_progress_text(&ev.j, buf, sizeof(buf));
    cr_expect_str_eq(buf, "test 1 of 11, copy, 100%, about 2 min 05 s left");
    l = "{\"event\":\"progress\",\"test\":\"copy\",\"fraction\":0.5,\"index\":1,\"count\":11,"
        "\"eta_seconds\":null}";
    probe_event_from_line(l, strlen(l), &ev);
    measure_progress_text(&ev.j, buf, sizeof(buf));
    cr_expect_str_eq(buf, "test 1 of 11, copy,  50%", "no time left when it is null");
    l = "{\"event\":\"progress\",\"test\":\"copy\",\"fraction\":0.5}";
    probe_event_from_line(l, strlen(l), &ev);
    measure_progress_text(&ev.j, buf, sizeof(buf));
    cr_expect_str_eq(buf, "copy  50%", "an older probe");
    char small[12];
    l = "{\"event\":\"progress\",\"test\":\"fma-peak\",\"fraction\":0.4,\"index\":3,"
        "\"count\":11,\"eta_seconds\":12}";
    probe_event_from_line(l, strlen(l), &ev);
    cr_expect_eq(measure_progress_text(&ev.j, small, sizeof(small)), 11);
    cr_expect_eq(strlen(small), 11);
}

Test(measure_model, the_scenario_on_this_machine) {
    static struct tui_measure m;
    struct engine_scenario sc = scenario("fp16");
    struct tui_measure_here h;
    feed_cpu(&m, "AMD EPYC", "true");
    tui_measure_here(&m, &sc, &h);
    cr_assert_not(h.valid, "nothing measured");
    feed_cpu_rates(&m);
    tui_measure_here(&m, &sc, &h);
    cr_assert(h.valid);
    cr_assert_str_eq(h.test, "gemv-fp16");
    cr_assert_not(h.nearest);
    /* batch 1 is memory bound: the two rates are in the ratio of the bandwidths */
    cr_assert_float_eq(h.kernel_tokens_per_s / h.ceiling_tokens_per_s, 8.9 / 9.8, 1e-9);
    /* ~16 GB of FP16 weights and KV per token at 9.8 GB/s: about 0.6 tok/s */
    cr_assert(h.ceiling_tokens_per_s > 0.55 && h.ceiling_tokens_per_s < 0.65, "%g",
              h.ceiling_tokens_per_s);
    /* the catalog's prediction is the scenario on its H100, as plan gives it */
    struct tui_measure_redo rd;
    tui_measure_redo(&sc, 3e12, 0, &rd);
    cr_assert_float_eq(h.catalog_tokens_per_s, rd.predicted_tokens_per_s, 1e-9);
    /* 16 GB of weights do not fit this 8 GB machine: said, still computed */
    cr_assert_not(h.fits);
    cr_assert_gt(h.need_bytes, 16e9);
    /* one machine: the scenario's parallel layout does not multiply it */
    struct engine_scenario tp2 = sc;
    tp2.gpus = tp2.tp = 2;
    struct tui_measure_here h2;
    tui_measure_here(&m, &tp2, &h2);
    cr_assert(h2.valid);
    cr_assert_float_eq(h2.ceiling_tokens_per_s, h.ceiling_tokens_per_s, 1e-12);
    cr_assert_gt(h2.catalog_tokens_per_s, h.catalog_tokens_per_s, "the catalog's TP2 is faster");
    /* INT4 weights read the W4A16 kernel's rate */
    struct engine_scenario i4 = scenario("int4-g32");
    tui_measure_here(&m, &i4, &h);
    cr_assert_str_eq(h.test, "w4a16");
    cr_assert_float_eq(h.kernel_bytes_per_s, 8e9, 1);
    sc.mode = ENGINE_MODE_TRAIN;
    tui_measure_here(&m, &sc, &h);
    cr_assert_not(h.valid, "training has no decode ceiling");
}

Test(measure_model, a_cpu_figure_for_a_gpu_scenario_asks_first) {
    static struct tui_measure m;
    struct engine_scenario sc = scenario("fp16");
    feed_cpu(&m, "AMD EPYC", "true");
    feed_cpu_rates(&m);
    cr_assert_not(tui_measure_toggle_calibration(&m, &sc), "not applied: asked");
    cr_assert(m.confirm_calibrate);
    cr_assert_eq(sc.measured_bytes_per_s, 0);
    cr_assert(strstr(m.note, "CPU AMD EPYC") && strstr(m.note, "H100 SXM") &&
                  strstr(m.note, "y yes"),
              "names both: %s", m.note);
    cr_assert_not(tui_measure_confirm(&m, &sc, false), "no: the data sheet stays");
    cr_assert_eq(sc.measured_bytes_per_s, 0);
    cr_assert(strstr(m.note, "kept the H100 SXM data sheet"), "%s", m.note);
    cr_assert_not(m.confirm_calibrate);
    tui_measure_toggle_calibration(&m, &sc);
    cr_assert(tui_measure_confirm(&m, &sc, true), "y applies");
    cr_assert_float_eq(sc.measured_bytes_per_s, 8.9e9, 1, "the FP16 GEMV of the CPU");
    cr_assert_float_eq(sc.measured_flop_per_s, 1.8e11, 1, "and its FMA peak");
    cr_assert(strstr(m.note, "AMD EPYC's figures, not H100 SXM's"), "%s", m.note);
    cr_assert(tui_measure_toggle_calibration(&m, &sc), "a again: the data sheet, no question");
    cr_assert_eq(sc.measured_bytes_per_s, 0);
    cr_assert_not(m.confirm_calibrate);
    /* an unmatched GPU, or another catalog GPU than the scenario's, asks too */
    tui_measure_clear(&m);
    feed(&m, "{\"event\":\"device\",\"backend\":\"cuda\",\"name\":\"NVIDIA A100-SXM4-40GB\"}");
    feed(&m, "{\"event\":\"result\",\"test\":\"copy\",\"bytes\":2e9,\"bytes_per_s\":1.3e12}");
    cr_assert_not_null(m.match);
    cr_assert_not(tui_measure_toggle_calibration(&m, &sc));
    cr_assert(m.confirm_calibrate && strstr(m.note, "NVIDIA A100-SXM4-40GB"), "%s", m.note);
}
