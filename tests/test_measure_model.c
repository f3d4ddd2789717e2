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
    memset(&sc, 0, sizeof(sc));
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
    cr_assert_eq(tui_measure_decode_bw(&m, NULL, &test), 0);
    cr_assert_null(test);
    feed(&m, "{\"event\":\"result\",\"test\":\"copy\",\"bytes\":2e9,\"bytes_per_s\":3e12}");
    cr_assert_float_eq(tui_measure_decode_bw(&m, NULL, &test), 3e12, 1);
    cr_assert_str_eq(test, "copy");
    feed(&m, "{\"event\":\"result\",\"test\":\"gemv-fp16\",\"batch\":1,\"bytes\":5e8,"
             "\"bytes_per_s\":2.9e12}");
    feed(&m, "{\"event\":\"result\",\"test\":\"w4a16\",\"batch\":1,\"bytes\":1.5e8,"
             "\"bytes_per_s\":2.4e12}");
    struct engine_scenario fp16 = scenario("fp16"), int4 = scenario("int4-g32");
    cr_assert_float_eq(tui_measure_decode_bw(&m, &fp16.weight_format, &test), 2.9e12, 1);
    cr_assert_str_eq(test, "gemv-fp16");
    cr_assert_float_eq(tui_measure_decode_bw(&m, &int4.weight_format, &test), 2.4e12, 1);
    cr_assert_str_eq(test, "w4a16");
}

Test(measure_model, calibration_toggles) {
    static struct tui_measure m;
    struct engine_scenario sc = scenario("fp16");
    cr_assert_not(tui_measure_toggle_calibration(&m, &sc), "nothing measured");
    cr_assert(strstr(m.note, "m runs the probe") != NULL);
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
    cr_assert_eq(tui_mpane_save(&run, NULL, path, false, err, sizeof(err)), 0, "%s", err);
    FILE *f = fopen(path, "w");
    fputs("mine\n", f);
    fclose(f);
    cr_assert_eq(tui_mpane_save(&run, NULL, path, false, err, sizeof(err)), 1, "exists: ask");
    f = fopen(path, "r");
    cr_assert(fgets(text, sizeof(text), f) && strcmp(text, "mine\n") == 0, "left alone");
    fclose(f);
    cr_assert_eq(tui_mpane_save(&run, NULL, path, true, err, sizeof(err)), 0, "%s", err);
    f = fopen(path, "r");
    cr_assert(fgets(text, sizeof(text), f) && text[0] == '{', "replaced after yes");
    fclose(f);
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0);
    cr_assert(sb.st_mode & S_IRUSR);
    /* no temporary file left behind */
    snprintf(text, sizeof(text), "ls -A %s | grep -v '^out.json$'", dir);
    cr_assert_neq(system(text), 0);
    unlink(path);
    rmdir(dir);
    measure_run_free(&run);
}
