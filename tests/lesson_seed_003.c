/*
 * lesson_seed_003.c: the shipped lesson of seed 003 (AI, scale and
 * hardware), both languages. Its texts cite every figure they state
 * ({memory.kv_cache}: the engine's by construction, tests/test_lesson_lint),
 * so what is checked here is:
 *
 * - the course text's own numbers, the ones the captions and notes quote
 *   («14 GB», «~18 bytes», «126 GB», «18 TB», «32 GB», «614 GB/s», «575 W»),
 *   as the engine computes them for the step that quotes them;
 * - the claims the steps' words make about the figures they cite: "it does
 *   not fit", "more than the weights", "the cache stays FP16", "barely
 *   faster than one server", "neither the same energy nor eight times";
 *   and the hardware the words name without a figure ("eight servers",
 *   "100G Ethernet", "400G InfiniBand", the course's GB300 rack);
 * - what each step's caption or question cites (the figures its claim
 *   rests on), and that no text of either language writes a figure out
 *   (lesson_check_cited) or lacks presenter notes;
 * - the three decision scenarios are questions that hide their answers.
 *
 * The numbers a step cites are not pinned here: they follow the engine.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "tests/lesson_check.h"

TestSuite(seed_003, .init = lesson_check_setup, .fini = lesson_check_teardown);

#define GB 1e9
#define TB 1e12
#define GIB (1024.0 * 1024.0 * 1024.0)

/* The estimate of step i (0-based); valid, with no warning that the
 * context exceeds the model's. */
static void est(const struct lesson *l, size_t i, struct engine_estimate *e) {
    engine_estimate(&lesson_step(l, i)->options.sc, e);
    cr_assert_eq(e->invalid, 0, "step %zu", i + 1);
    cr_expect_eq(e->warnings & ENGINE_WARN_CONTEXT_OVER_MAX, 0, "step %zu", i + 1);
}

/* The scenario of step i. */
static const struct engine_scenario *scn(const struct lesson *l, size_t i) {
    return &lesson_step(l, i)->options.sc;
}

/* The four parts of the model state on one GPU. */
static double model_state(const struct engine_estimate *e) {
    return e->memory.weights + e->memory.gradients + e->memory.master_weights +
           e->memory.optimizer;
}

/* Step i's scenario with its weights in another catalog format. */
static void with_format(const struct lesson *l, size_t i, const char *format,
                        struct engine_estimate *e) {
    struct engine_scenario sc = *scn(l, i);
    const struct engine_format *f = catalog_find_format(&lesson_check_cat, format);
    cr_assert_not_null(f, "%s", format);
    sc.weight_format = *f;
    engine_estimate(&sc, e);
    cr_assert_eq(e->invalid, 0);
}

/* Steps 1-7: the course's memory budget. */
static void check_memory(const struct lesson *l) {
    struct engine_estimate e, f;

    /* 1: «M = N x b/8»; 7B: «BF16 = 7 x 10^9 x 2 bytes = 14 GB; INT8 = 7 GB;
     * INT4 = 3.5 GB», «2 bytes» each. Inference holds weights, KV cache and
     * temporaries, no training state. */
    est(l, 0, &e);
    cr_expect_float_eq(e.params_total, 7e9, 1.0);
    cr_expect_float_eq(e.bits_per_weight, 16, 1e-12, "«2 bytes»");
    cr_expect_float_eq(e.memory.weights, 14 * GB, 1e6, "«14 GB»");
    cr_expect_float_eq(e.params_total * 8 / 8, 7 * GB, 1e6, "«INT8 = 7 GB»");
    cr_expect_float_eq(e.params_total * 4 / 8, 3.5 * GB, 1e6, "«INT4 = 3.5 GB»");
    cr_expect_gt(e.memory.kv_cache, 0);
    cr_expect_gt(e.memory.activations, 0, "the temporaries of one decode step");
    cr_expect_eq(e.memory.gradients + e.memory.optimizer + e.memory.master_weights, 0,
                 "inference holds no training state");
    cr_expect(e.fits);

    /* 2: more context, a batch: the cache outgrows the weights; decode
     * rises in all and falls per sequence against step 1. */
    est(l, 1, &f);
    cr_expect_gt(f.memory.kv_cache, f.memory.weights, "more than the weights");
    cr_expect_gt(f.memory.kv_cache, e.memory.kv_cache, "more context, more cache");
    cr_expect_gt(f.decode_tokens_per_s, e.decode_tokens_per_s, "decode rises in all");
    cr_expect_lt(f.decode_tokens_per_s_per_sequence, e.decode_tokens_per_s_per_sequence,
                 "each sequence gets less");
    cr_expect_eq(scn(l, 1)->batch, 4);

    /* 3: mixed precision with classic Adam: «2 + 4 + 4 + 8 = 18 bytes», the
     * course's «126 GB» for 7B; vramlab's default recipe, adam-mixed, is
     * seed 000's «16 bytes». It does not fit one H100. */
    est(l, 2, &e);
    cr_expect_float_eq(e.memory.weights / e.params_total, 2.0, 1e-12);
    cr_expect_float_eq(e.memory.master_weights / e.params_total, 4.0, 1e-12);
    cr_expect_float_eq(e.memory.gradients / e.params_total, 4.0, 1e-12);
    cr_expect_float_eq(e.memory.optimizer / e.params_total, 8.0, 1e-12);
    cr_expect_float_eq(model_state(&e), 126 * GB, 1e6, "«126 GB»");
    cr_expect_gt(e.memory.activations, 0, "activations on top");
    cr_expect_not(e.fits);
    cr_expect_gt(e.memory.total, e.capacity);
    {
        struct engine_scenario sc = *scn(l, 2);
        cr_assert_eq(engine_recipe_parse("adam-mixed", &sc.recipe), 0);
        engine_estimate(&sc, &f);
        cr_expect_float_eq(model_state(&f) / f.params_total, 16.0, 1e-12, "«16 bytes»");
    }

    /* 4: 1T: «18 TB» of state, sharded by ZeRO-3 over the «72» GPUs of the
     * course's GB300 rack («20 TB» of GPU memory: barely the state); it
     * fits, and the weights are gathered again every step. */
    est(l, 3, &e);
    cr_expect_float_eq(e.params_total, 1e12, 1.0);
    cr_expect_str_eq(scn(l, 3)->system_id, "gb300-nvl72");
    cr_expect_eq(scn(l, 3)->system_gpus, 72, "«72» GPUs");
    cr_expect_eq(e.dp, 72);
    cr_expect_eq(e.gpus, scn(l, 3)->system_gpus, "one rack");
    cr_expect_eq(scn(l, 3)->zero, 3);
    cr_expect_float_eq(model_state(&e) * e.dp, 18 * TB, 1e6, "«18 TB»");
    cr_expect_gt(e.dp * e.capacity, 18 * TB, "the rack holds the state...");
    cr_expect_lt(e.dp * e.capacity, 1.3 * 18 * TB, "...barely («20 TB»)");
    cr_expect(e.fits);
    cr_expect_gt(e.train_dp_comm_seconds, 0, "gathered again every step");
    cr_expect_float_eq(scn(l, 3)->system_power_w, 142e3, 1e-6, "«up to 142 kW» (step 20's notes)");

    /* 5: 70B: «BF16 = 140 GB; INT8 = 70 GB; INT4 = 35 GB», and «1.26 TB» of
     * state with the 18-byte recipe; vramlab's INT8 row scale adds a little;
     * it fits one H100, which BF16 does not (two would). */
    est(l, 4, &e);
    cr_expect_float_eq(e.params_total * 16 / 8, 140 * GB, 1e6, "«140 GB»");
    cr_expect_float_eq(e.params_total * 8 / 8, 70 * GB, 1e6, "«70 GB»");
    cr_expect_float_eq(e.params_total * 4 / 8, 35 * GB, 1e6, "«35 GB»");
    cr_expect_float_eq(e.params_total * 18, 1.26 * TB, 1e6, "«1.26 TB»");
    cr_expect_gt(e.bits_per_weight, 8);
    cr_expect_lt(e.bits_per_weight, 8.01, "one FP16 scale per row");
    cr_expect(e.fits);
    with_format(l, 4, "bf16", &f);
    cr_expect_gt(f.memory.weights, f.capacity, "BF16: not one H100");
    cr_expect_lt(f.memory.weights, 2 * f.capacity, "two");

    /* 6: 1T in INT4: «0.5 TB» at half a byte (BF16 «2 TB», INT8 «1 TB»);
     * the scales add 16/128 of a bit: the physical memory is larger. */
    est(l, 5, &e);
    cr_expect_float_eq(e.params_total * 4 / 8, 0.5 * TB, 1e6, "«0.5 TB»");
    cr_expect_float_eq(e.params_total * 8 / 8, 1 * TB, 1e6, "«1 TB»");
    cr_expect_float_eq(e.params_total * 16 / 8, 2 * TB, 1e6, "«2 TB»");
    cr_expect_eq(scn(l, 5)->weight_format.block, 128);
    cr_expect_float_eq(scn(l, 5)->weight_format.scale_bits, 16, 1e-12, "an FP16 scale");
    cr_expect_float_eq(e.bits_per_weight, 4 + 16.0 / 128, 1e-12);
    cr_expect_gt(e.memory.weights, 0.5 * TB);

    /* 7: INT4 weights, the KV cache in FP16 as with BF16 weights (which
     * alone would overflow the card); an FP8 cache would halve it. */
    est(l, 6, &e);
    cr_expect_float_eq(scn(l, 6)->kv_format.bits, 16, 1e-12, "FP16 cache");
    cr_expect(e.fits);
    with_format(l, 6, "bf16", &f);
    cr_expect_float_eq(f.memory.kv_cache, e.memory.kv_cache, 1.0, "the cache stays");
    cr_expect_gt(f.memory.weights, f.capacity, "BF16 weights alone overflow the card");
    {
        struct engine_scenario sc = *scn(l, 6);
        const struct engine_format *fp8 = catalog_find_format(&lesson_check_cat, "fp8");
        cr_assert_not_null(fp8);
        sc.kv_format = *fp8;
        engine_estimate(&sc, &f);
        cr_expect_float_eq(f.memory.kv_cache, e.memory.kv_cache / 2, 1.0, "FP8 halves it");
    }
}

/* Steps 8-14: the decision scenarios 1 and 2. */
static void check_scenarios_1_2(const struct lesson *l) {
    struct engine_estimate e, f, g;

    /* 8: the RTX 5090: «32 GB GDDR7, 1,792 GB/s ... 575 W TGP» (32 GB counted
     * as 32 GiB); the 70B's «35 GB» at half a byte, more with the scales;
     * it does not fit. */
    est(l, 7, &e);
    cr_expect_float_eq(e.capacity, 32 * GIB, 0.5, "«32 GB»");
    cr_expect_float_eq(e.bandwidth_bytes_per_s, 1792 * GB, 1e6, "«1,792 GB/s»");
    cr_expect_float_eq(scn(l, 7)->gpu.tdp_w, 575, 1e-9, "«575 W»");
    cr_expect_float_eq(e.params_total * 4 / 8, 35 * GB, 1e6, "«35 GB»");
    cr_expect_gt(e.memory.weights, 35 * GB, "the scales");
    cr_expect_not(e.fits);
    cr_expect_lt(e.spare_bytes, 0, "a negative spare: what is missing");

    /* 9: the M5 Max: «up to 128 GB» unified (128 GiB), «614 GB/s»: it fits;
     * decode is the bandwidth over the bytes; the first token is slow. */
    est(l, 8, &f);
    cr_expect(scn(l, 8)->gpu.unified_memory);
    cr_expect_float_eq(f.capacity, 128 * GIB, 0.5, "«128 GB»");
    cr_expect_float_eq(f.bandwidth_bytes_per_s, 614 * GB, 1e6, "«614 GB/s»");
    cr_expect(f.fits);
    cr_expect_float_eq(f.decode_tokens_per_s, f.decode_tokens_per_s_memory_bound, 1e-9);
    cr_expect_gt(f.serving.prefill_compute_s, f.serving.prefill_bytes_s, "a compute-bound prompt");
    cr_expect_eq(scn(l, 8)->prompt ? scn(l, 8)->prompt : scn(l, 8)->context, 4096);

    /* 10: a smaller model on the 5090: it fits with room for context and
     * answers several times faster than the M5 Max; its energy per token is
     * the board's «575 W» over the ceiling. */
    est(l, 9, &g);
    cr_expect(g.fits);
    cr_expect_gt(g.spare_bytes, 0);
    cr_expect_gt(g.decode_tokens_per_s, 3 * f.decode_tokens_per_s, "several times faster");
    cr_expect_float_eq(scn(l, 9)->gpu.tdp_w, 575, 1e-9);
    cr_expect_float_eq(g.decode_joules_per_token, 575 / g.decode_tokens_per_s, 1e-9);

    /* 11: scenario 2: 16 requests of 8,192 tokens on an L4 under vLLM do
     * not fit; one does ("the model fits"); vLLM's maximum concurrency is
     * the cache's tokens over one request's, fewer than 16. */
    est(l, 10, &e);
    cr_expect_float_eq(e.bits_per_weight, 16, 1e-12, "BF16");
    cr_expect_eq(scn(l, 10)->batch, 16);
    cr_expect_eq(scn(l, 10)->context, 8192);
    cr_expect_not(e.fits);
    cr_expect_lt(e.serving.max_concurrency, 16);
    cr_expect_float_eq(e.serving.max_concurrency, e.serving.kv_tokens / 8192, 1e-9);
    cr_expect_lt(e.serving.available_kv_bytes, e.memory.kv_cache);
    /* the notes: vLLM 0.11 holds back its profile run's peak, here the
     * sampler's (the larger of the forward's and the sampler's), before the
     * cache gets the rest of what it takes */
    cr_expect_gt(e.serving.sampler_peak_bytes, e.serving.forward_peak_bytes, "the sampler's");
    cr_expect_float_eq(e.serving.activation_peak_bytes,
                       e.serving.sampler_peak_bytes + e.serving.cublas_workspace_bytes, 1.0);
    cr_expect_float_eq(e.serving.available_kv_bytes,
                       e.serving.requested_bytes - e.memory.weights - e.memory.overhead -
                           e.memory.activations,
                       1.0);
    cr_expect_geq(e.memory.overhead, e.serving.activation_peak_bytes, "held back");
    cr_expect_float_eq(e.serving.requested_bytes,
                       e.serving.memory_fraction * e.serving.memory_reported_bytes, 1.0);
    {
        struct engine_scenario sc = *scn(l, 10);
        sc.batch = 1;
        engine_estimate(&sc, &f);
        cr_expect(f.fits, "the model fits");
    }

    /* 12: a shorter context: the 16 fit, the concurrency covers them, and
     * the same cache holds the same tokens whatever their split. */
    est(l, 11, &f);
    cr_expect_eq(scn(l, 11)->batch, 16);
    cr_expect_lt(scn(l, 11)->context, scn(l, 10)->context);
    cr_expect(f.fits);
    cr_expect_geq(f.serving.max_concurrency, 16);
    cr_expect_float_eq(f.serving.kv_tokens, e.serving.kv_tokens, 1e-9, "the same cache");

    /* 13: INT4 weights leave more for the cache, which stays FP16: the
     * requests of 8,192 tokens the caption counts fit. */
    est(l, 12, &f);
    cr_expect_eq(scn(l, 12)->context, 8192);
    cr_expect(f.fits);
    cr_expect_lt(f.memory.weights, e.memory.weights / 3);
    cr_expect_gt(f.serving.available_kv_bytes, e.serving.available_kv_bytes);
    cr_expect_geq(f.serving.max_concurrency, scn(l, 12)->batch);
    cr_expect_float_eq(scn(l, 12)->kv_format.bits, 16, 1e-12, "the cache stays FP16");
    cr_expect_float_eq(f.memory.kv_cache, e.memory.kv_cache * scn(l, 12)->batch / 16, 1.0);

    /* 14: replicas: each card holds a copy and serves its share of the 16. */
    est(l, 13, &f);
    cr_expect(f.fits);
    cr_expect_eq(f.gpus, f.dp);
    cr_expect_eq(f.tp * f.pp, 1, "a full copy on each card");
    cr_expect_geq(f.dp * scn(l, 13)->batch, 16);
    cr_expect_gt(f.decode_tokens_per_s, e.decode_tokens_per_s, "together");
}

/* Steps 15-21: the roofline, scenario 3 and energy. */
static void check_roofline_and_scenario_3(const struct lesson *l) {
    struct engine_estimate e, f, g, r;

    /* 15: decode of one sequence is memory-bound, the prompt's prefill
     * compute-bound. */
    est(l, 14, &e);
    cr_expect_float_eq(e.ridge_flop_per_byte, e.peak_flop_per_s / e.bandwidth_bytes_per_s, 1e-9);
    cr_expect_lt(e.arithmetic_intensity, e.ridge_flop_per_byte, "decode is memory-bound");
    cr_expect_float_eq(e.decode_tokens_per_s, e.decode_tokens_per_s_memory_bound, 1e-9);
    cr_expect_gt(e.serving.prefill_compute_s, e.serving.prefill_bytes_s, "prefill: compute");
    cr_expect_eq(scn(l, 14)->batch, 1);

    /* 16: one server: its 8 H100 on NVLink; the all-reduce hides behind the
     * backward pass (the step is the compute). */
    est(l, 15, &e);
    cr_expect_eq(e.gpus, 8);
    cr_expect_eq(scn(l, 15)->gpu.gpus_per_node, 8, "one server");
    cr_expect_gt(e.train_dp_comm_seconds, 0);
    cr_expect_float_eq(e.train_step_seconds, e.train_compute_seconds, 1e-12, "hidden");

    /* 17: 64 H100 in eight servers, one 100G Ethernet port per GPU (100
     * Gb/s = 12.5 GB/s): the all-reduce outlasts the compute, the step
     * grows, and the run is barely faster than one server. */
    est(l, 16, &f);
    cr_expect_eq(f.gpus, 64);
    cr_expect_eq(f.gpus / scn(l, 16)->gpu.gpus_per_node, 8, "eight servers");
    cr_expect_float_eq(scn(l, 16)->inter_node_bytes_per_s, 100e9 / 8, 1e-3, "100G Ethernet");
    cr_expect_gt(f.train_dp_comm_seconds, f.train_compute_seconds, "the GPUs wait");
    cr_expect_gt(f.train_step_seconds, f.train_compute_seconds);
    cr_expect_lt(f.train_mfu, e.train_mfu, "MFU falls");
    cr_expect_lt(f.train_days, e.train_days, "faster...");
    cr_expect_gt(f.train_days, 0.75 * e.train_days, "...barely");

    /* 18: 400G InfiniBand per GPU (50 GB/s): four times the bandwidth, a
     * shorter all-reduce and run. */
    est(l, 17, &g);
    cr_expect_float_eq(scn(l, 17)->inter_node_bytes_per_s, 400e9 / 8, 1e-3, "400G InfiniBand");
    cr_expect_float_eq(scn(l, 17)->inter_node_bytes_per_s / scn(l, 16)->inter_node_bytes_per_s, 4,
                       1e-12, "four times the bandwidth");
    cr_expect_lt(g.train_dp_comm_seconds, f.train_dp_comm_seconds);
    cr_expect_lt(g.train_days, f.train_days);

    /* 19: accumulation on the slow network: the same all-reduce hides
     * behind 16 micro-batches of compute; the global batch grows to 64 x 16
     * sequences. */
    est(l, 18, &g);
    cr_expect_eq(scn(l, 18)->micro_batches, 16);
    cr_expect_float_eq(scn(l, 18)->inter_node_bytes_per_s, scn(l, 16)->inter_node_bytes_per_s,
                       1e-12, "the slow network");
    cr_expect_float_eq(g.train_dp_comm_seconds, f.train_dp_comm_seconds, 1e-12, "the same");
    cr_expect_float_eq(g.train_step_seconds, g.train_compute_seconds, 1e-12, "hidden");
    cr_expect_float_eq(g.train_global_batch, 64 * 16, 1e-9);
    cr_expect_lt(g.train_days, f.train_days);

    /* 20: step 16's run in a DGX H100: energy at board power, and the whole
     * server at its maximum (more). */
    est(l, 19, &r);
    cr_expect_str_eq(scn(l, 19)->system_id, "dgx-h100");
    cr_expect_eq(r.gpus, 8);
    cr_expect_float_eq(r.train_energy_joules, e.train_energy_joules, 1e-6 * e.train_energy_joules,
                       "step 16's run");
    cr_expect_float_eq(r.train_energy_joules, r.train_gpu_hours * 3600 * scn(l, 19)->gpu.tdp_w,
                       1e-6 * r.train_energy_joules, "board power x time");
    cr_expect_gt(r.train_system_energy_joules, r.train_energy_joules);

    /* 21: step 17's run: eight times the power, more energy than one
     * server but less than eight times it (neither answer); the
     * repartitioned run (step 19) takes about one server's energy in far
     * less time. */
    est(l, 16, &e);
    est(l, 20, &f);
    cr_expect_str_eq(scn(l, 20)->system_id, "dgx-h100");
    cr_expect_eq(f.gpus, 8 * r.gpus, "eight times the power");
    cr_expect_float_eq(f.train_days, e.train_days, 1e-9, "step 17's run");
    cr_expect_gt(f.train_energy_joules, 2 * r.train_energy_joules, "far more");
    cr_expect_lt(f.train_energy_joules, 8 * r.train_energy_joules, "less than eight times");
    cr_expect_float_eq(g.train_energy_joules, r.train_energy_joules, 0.05 * r.train_energy_joules,
                       "about one server's energy");
    cr_expect_lt(g.train_days, r.train_days / 4, "in far less time");
    cr_expect_gt(f.train_system_energy_joules, f.train_energy_joules);
}

/* What each step's caption or question cites: the figures its claim rests
 * on, in both languages. */
static const char *const cited[21] = {
    /* 1 */ "params.total memory.weights memory.kv_cache memory.total scenario.context",
    /* 2 */ "memory.kv_cache memory.weights decode.tokens_per_s "
            "decode.tokens_per_s_per_sequence scenario.batch scenario.context",
    /* 3 */ "params.total memory.weights memory.master_weights memory.gradients memory.optimizer "
            "memory.activations memory.total capacity",
    /* 4 */ "memory.total capacity training.dp_comm_seconds scenario.dp",
    /* 5 */ "memory.weights params.bits_per_weight memory.total capacity",
    /* 6 */ "params.bits_per_weight memory.weights",
    /* 7 */ "memory.weights memory.kv_cache memory.total capacity scenario.kv_format",
    /* 8 */ "memory.weights memory.total memory.ratio capacity",
    /* 9 */ "memory.total capacity decode.tokens_per_s prefill.seconds decode.peak_flop_per_s",
    /* 10 */ "memory.weights memory.total memory.spare_bytes decode.tokens_per_s "
             "decode.joules_per_token",
    /* 11 */ "memory.kv_cache memory.weights serving.available_kv_bytes serving.kv_blocks "
             "serving.kv_tokens serving.max_concurrency scenario.batch scenario.context",
    /* 12 */ "memory.kv_cache serving.max_concurrency decode.tokens_per_s_per_sequence",
    /* 13 */ "memory.weights serving.available_kv_bytes memory.kv_cache "
             "decode.tokens_per_s_per_sequence scenario.kv_format",
    /* 14 */ "memory.total decode.tokens_per_s scenario.dp scenario.batch",
    /* 15 */ "decode.peak_flop_per_s decode.bandwidth_bytes_per_s decode.ridge_flop_per_byte "
             "decode.arithmetic_intensity decode.tokens_per_s "
             "decode.tokens_per_s_compute_bound prefill.seconds",
    /* 16 */ "training.dp_comm_seconds training.step_seconds training.mfu training.days",
    /* 17 */ "training.dp_comm_seconds training.compute_seconds training.step_seconds "
             "training.mfu training.days",
    /* 18 */ "training.dp_comm_seconds training.step_seconds training.mfu training.days",
    /* 19 */ "training.dp_comm_seconds training.compute_seconds training.mfu training.days "
             "training.global_batch scenario.micro_batches",
    /* 20 */ "training.gpu_hours training.energy_joules training.system_energy_joules",
    /* 21 */ "training.days training.gpu_hours training.energy_joules",
};

Test(seed_003, the_course_text_holds_on_every_step) {
    static const char *const files[] = {LESSONS "seed-003.en.yaml", LESSONS "seed-003.es.yaml"};

    for (size_t k = 0; k < 2; k++) {
        struct lesson l;
        lesson_check_load(&lesson_check_cat, files[k], &l);
        cr_assert_eq(lesson_count(&l), 21, "%s", files[k]);
        check_memory(&l);
        check_scenarios_1_2(&l);
        check_roofline_and_scenario_3(&l);
        for (size_t i = 0; i < lesson_count(&l); i++)
            lesson_check_cites(files[k], &l, i, cited[i]);
        lesson_check_cited(files[k], &l);
        lesson_free(&l);
    }
    lesson_check_pair(&lesson_check_cat, files[0], files[1], 3);
    cr_expect_eq(lesson_resolve("seed-003", "es", (char[1024]){0}, 1024), 0);
}

/* The three decision scenarios are questions the room decides: the steps
 * that ask them hide the figures that answer them. */
Test(seed_003, the_decision_scenarios_are_questions) {
    struct lesson l;
    static const size_t asked[] = {7, 8, 10, 16};

    lesson_check_load(&lesson_check_cat, LESSONS "seed-003.en.yaml", &l);
    for (size_t k = 0; k < sizeof(asked) / sizeof(asked[0]); k++) {
        const struct lesson_step *s = lesson_step(&l, asked[k]);
        cr_expect_not_null(s->question, "step %zu", asked[k] + 1);
        cr_expect(s->hide & (1u << LESSON_PANE_MEMORY | 1u << LESSON_PANE_SPEED), "step %zu",
                  asked[k] + 1);
    }
    lesson_free(&l);
}
