/*
 * lesson_seed_003.c: the shipped lesson of seed 003 (AI, scale and
 * hardware), both languages: every figure a caption states is the engine's
 * for that step's scenario, and the claims the captions make between steps
 * (quantized weights leave the cache alone, accumulation hides the same
 * all-reduce) hold.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "tests/lesson_check.h"

TestSuite(seed_003, .init = lesson_check_setup, .fini = lesson_check_teardown);

#define GB 1e9
#define TB 1e12

/* The estimate of step i (0-based). */
static void est(const struct lesson *l, size_t i, struct engine_estimate *e) {
    engine_estimate(&lesson_step(l, i)->options.sc, e);
    cr_assert_eq(e->invalid, 0, "step %zu", i + 1);
}

/* The four parts of the model state on one GPU. */
static double model_state(const struct engine_estimate *e) {
    return e->memory.weights + e->memory.gradients + e->memory.master_weights +
           e->memory.optimizer;
}

/*
 * The figures the captions state, as the engine computes them, with the
 * caption's rounding as tolerance. The course's own figures (seed 003):
 * M = N b / 8, 7B BF16 = 14 GB, 70B = 140 / 70 / 35 GB, 1T = 2 / 1 / 0.5 TB;
 * mixed precision with classic Adam ~18 bytes per parameter (2 + 4 + 4 +
 * 8), 126 GB for 7B and 18 TB for 1T; RTX 5090 32 GB, 1,792 GB/s, 575 W;
 * M5 Max up to 128 GB unified, 614 GB/s.
 */
static void check_seed_003(const struct lesson *l) {
    struct engine_estimate e, f;

    cr_assert_eq(lesson_count(l), 21);

    /* 1: inference: 7e9 x 2 = 14 GB, 0.55 GB of KV at 4,096 tokens, 15.6 GB */
    est(l, 0, &e);
    cr_expect_float_eq(e.memory.weights, 14 * GB, 1e6);
    cr_expect_float_eq(e.memory.kv_cache, 0.55 * GB, 0.005 * GB);
    cr_expect_float_eq(e.memory.total, 15.6 * GB, 0.05 * GB);
    cr_expect_eq(e.memory.gradients + e.memory.optimizer + e.memory.master_weights, 0,
                 "inference holds no training state");
    /* 2: 4 x 32k: 17.7 GB of KV, more than the weights; 422 and 106 tokens/s */
    est(l, 1, &f);
    cr_expect_float_eq(f.memory.kv_cache, 17.7 * GB, 0.05 * GB);
    cr_expect_gt(f.memory.kv_cache, f.memory.weights);
    cr_expect_gt(f.memory.kv_cache, e.memory.kv_cache, "more context, more cache");
    cr_expect_eq(lround(f.decode_tokens_per_s), 422);
    cr_expect_eq(lround(f.decode_tokens_per_s_per_sequence), 106);
    cr_expect_gt(f.decode_tokens_per_s, e.decode_tokens_per_s, "batching lifts throughput");
    cr_expect_lt(f.decode_tokens_per_s_per_sequence, e.decode_tokens_per_s_per_sequence);

    /* 3: the recipe's 2 + 4 + 4 + 8 = 18 bytes per parameter (seed 003):
     * 14 + 28 + 28 + 56 = 126 GB, 22.0 GB of activations, 149.0 GB */
    est(l, 2, &e);
    cr_expect_float_eq(e.memory.weights / e.params_total, 2.0, 1e-12);
    cr_expect_float_eq(e.memory.master_weights / e.params_total, 4.0, 1e-12);
    cr_expect_float_eq(e.memory.gradients / e.params_total, 4.0, 1e-12);
    cr_expect_float_eq(e.memory.optimizer / e.params_total, 8.0, 1e-12);
    cr_expect_float_eq(e.memory.weights, 14 * GB, 1e6);
    cr_expect_float_eq(e.memory.master_weights, 28 * GB, 1e6);
    cr_expect_float_eq(e.memory.gradients, 28 * GB, 1e6);
    cr_expect_float_eq(e.memory.optimizer, 56 * GB, 1e6);
    cr_expect_float_eq(model_state(&e), 126 * GB, 1e6);
    cr_expect_float_eq(e.memory.activations, 22.0 * GB, 0.05 * GB);
    cr_expect_float_eq(e.memory.total, 149.0 * GB, 0.05 * GB);
    cr_expect_not(e.fits);
    /* 4: 1T: 18 TB in all, 250 GB per GPU under ZeRO-3 over 72; 286.5 of 309.2 GB */
    est(l, 3, &e);
    cr_expect_eq(e.dp, 72);
    cr_expect_float_eq(model_state(&e) * e.dp, 18 * TB, 1e6);
    cr_expect_float_eq(model_state(&e), 250 * GB, 1e3);
    cr_expect_float_eq(e.memory.total, 286.5 * GB, 0.05 * GB);
    cr_expect_float_eq(e.capacity, 309.2 * GB, 0.05 * GB);
    cr_expect(e.fits);

    /* 5: 70B: BF16 would be 140 GB; INT8 70 GB, 70.03 with row scales; 72.2 GB, fits */
    est(l, 4, &e);
    cr_expect_float_eq(e.params_total * 16 / 8, 140 * GB, 1e6);
    cr_expect_float_eq(e.params_total * 8 / 8, 70 * GB, 1e6);
    cr_expect_float_eq(e.memory.weights, 70.03 * GB, 0.005 * GB);
    cr_expect_float_eq(e.memory.total, 72.2 * GB, 0.05 * GB);
    cr_expect(e.fits);
    /* 6: 1T INT4: 0.5 TB bare, 2 TB in BF16; 4.125 bits, 515.6 GB */
    est(l, 5, &e);
    cr_expect_float_eq(e.params_total * 4 / 8, 0.5 * TB, 1e6);
    cr_expect_float_eq(e.params_total * 16 / 8, 2 * TB, 1e6);
    cr_expect_float_eq(e.bits_per_weight, 4 + 16.0 / 128, 1e-12);
    cr_expect_float_eq(e.memory.weights, 515.6 * GB, 0.05 * GB);
    /* 7: INT4 weights 39.4 GB, the FP16 cache 38.1 GB, 78.5 of 85.9 GB */
    est(l, 6, &e);
    cr_expect_float_eq(e.memory.weights, 39.4 * GB, 0.05 * GB);
    cr_expect_float_eq(e.memory.kv_cache, 38.1 * GB, 0.05 * GB);
    cr_expect_float_eq(e.memory.total, 78.5 * GB, 0.05 * GB);
    cr_expect_float_eq(e.capacity, 85.9 * GB, 0.05 * GB);
    {
        /* "does not shrink the KV cache": the same scenario in FP16 */
        struct engine_scenario sc = lesson_step(l, 6)->options.sc;
        sc.weight_format = lesson_step(l, 0)->options.sc.weight_format; /* bf16 */
        engine_estimate(&sc, &f);
        cr_expect_float_eq(f.memory.kv_cache, e.memory.kv_cache, 1.0);
        cr_expect_gt(f.memory.weights, 3 * e.memory.weights);
    }

    /* 8: scenario 1 on the RTX 5090: 35 GB at 4 bits, 39.4 with scales,
     * 41.6 GB in all, 7.21 GB short of 34.4 GB (32 GiB) */
    est(l, 7, &e);
    cr_expect_float_eq(e.memory.weights * 4 / e.bits_per_weight, 35 * GB, 1e6);
    cr_expect_float_eq(e.memory.weights, 39.4 * GB, 0.05 * GB);
    cr_expect_float_eq(e.memory.total, 41.6 * GB, 0.05 * GB);
    cr_expect_float_eq(-e.spare_bytes, 7.21 * GB, 0.005 * GB);
    cr_expect_float_eq(e.capacity, 32.0 * 1024 * 1024 * 1024, 0.5);
    cr_expect_float_eq(e.capacity, 34.4 * GB, 0.05 * GB);
    cr_expect_float_eq(e.bandwidth_bytes_per_s, 1792 * GB, 1e6);
    cr_expect_not(e.fits);
    /* 9: the M5 Max: fits, 41.6 of 137.4 GB; 15.1 tokens/s; an 8.5 s prompt */
    est(l, 8, &e);
    cr_expect(e.fits);
    cr_expect(lesson_step(l, 8)->options.sc.gpu.unified_memory);
    cr_expect_float_eq(e.memory.total, 41.6 * GB, 0.05 * GB);
    cr_expect_float_eq(e.capacity, 128.0 * 1024 * 1024 * 1024, 0.5);
    cr_expect_float_eq(e.capacity, 137.4 * GB, 0.05 * GB);
    cr_expect_float_eq(e.bandwidth_bytes_per_s, 614 * GB, 1e6);
    cr_expect_float_eq(e.peak_flop_per_s, 70e12, 1e6);
    cr_expect_float_eq(e.decode_tokens_per_s, 15.1, 0.05);
    cr_expect_float_eq(e.prefill_seconds, 8.5, 0.05);
    /* 10: a smaller model on the 5090: 18.4 GB, 20.5 GB, 13.9 spare,
     * 91.9 tokens/s, 6.26 J per token at 575 W */
    est(l, 9, &e);
    cr_expect(e.fits);
    cr_expect_float_eq(e.memory.weights, 18.4 * GB, 0.05 * GB);
    cr_expect_float_eq(e.memory.total, 20.5 * GB, 0.05 * GB);
    cr_expect_float_eq(e.spare_bytes, 13.9 * GB, 0.05 * GB);
    cr_expect_float_eq(e.decode_tokens_per_s, 91.9, 0.05);
    cr_expect_float_eq(e.decode_joules_per_token, 6.26, 0.005);
    cr_expect_float_eq(lesson_step(l, 9)->options.sc.gpu.tdp_w, 575, 1e-9);

    /* 11: scenario 2: 16 x 8,192 tokens need 17.2 GB of KV; 16.1 GB of
     * weights; vLLM 0.11 on an L4 (22.05 GiB as CUDA reports it): 3.77 GB
     * available, 1,798 blocks of 16: at most 3 at once */
    est(l, 10, &e);
    cr_expect_not(e.fits);
    cr_expect_float_eq(e.bits_per_weight, 16, 1e-12, "BF16");
    cr_expect_float_eq(e.memory.kv_cache, 17.2 * GB, 0.05 * GB);
    cr_expect_float_eq(e.memory.weights, 16.1 * GB, 0.05 * GB);
    cr_expect_float_eq(e.serving.available_kv_bytes, 3.77 * GB, 0.005 * GB);
    cr_expect_float_eq(e.serving.kv_blocks, 1798, 0.5);
    cr_expect_float_eq(e.serving.sampler_peak_bytes, 1.3 * GB, 0.05 * GB);
    cr_expect_eq(lesson_step(l, 10)->options.sc.serving.block_size, 16);
    cr_expect_eq(floor(e.serving.max_concurrency), 3);
    cr_expect_lt(e.serving.max_concurrency, 16);
    {
        /* "the model fits": the same scenario with one request */
        struct engine_scenario sc = lesson_step(l, 10)->options.sc;
        sc.batch = 1;
        engine_estimate(&sc, &f);
        cr_expect(f.fits);
    }
    /* 12: 16 x 1,536 tokens: 3.22 GB, up to 18 at once, 15.6 tokens/s each */
    est(l, 11, &e);
    cr_expect(e.fits);
    cr_expect_float_eq(e.memory.kv_cache, 3.22 * GB, 0.005 * GB);
    cr_expect_eq(floor(e.serving.max_concurrency), 18);
    cr_expect_float_eq(e.decode_tokens_per_s_per_sequence, 15.6, 0.05);
    /* 13: INT4 weights 4.17 GB, 15.7 GB for the cache, 14 x 8,192 (15.0 GB)
     * fit, 15.6 each */
    est(l, 12, &f);
    cr_expect(f.fits);
    cr_expect_float_eq(f.memory.weights, 4.17 * GB, 0.005 * GB);
    cr_expect_float_eq(f.serving.available_kv_bytes, 15.7 * GB, 0.05 * GB);
    cr_expect_float_eq(f.memory.kv_cache, 15.0 * GB, 0.05 * GB);
    cr_expect_geq(f.serving.max_concurrency, 14);
    cr_expect_lt(f.serving.max_concurrency, 16);
    cr_expect_float_eq(f.decode_tokens_per_s_per_sequence, 15.6, 0.05);
    est(l, 10, &e);
    cr_expect_float_eq(f.memory.kv_cache, e.memory.kv_cache * 14 / 16, 1.0,
                       "the cache stays FP16");
    /* 14: six replicas of 3 requests: 25.2 GB per card, 280 tokens/s */
    est(l, 13, &e);
    cr_expect(e.fits);
    cr_expect_eq(e.gpus, 6);
    cr_expect_eq(e.dp, 6);
    cr_expect_geq(e.dp * lesson_step(l, 13)->options.sc.batch, 16);
    cr_expect_float_eq(e.memory.total, 25.2 * GB, 0.05 * GB);
    cr_expect_eq(lround(e.decode_tokens_per_s), 280);

    /* 15: the roofline: 989 / 3.35 = 295 FLOP/byte; decode 1.1 FLOP/byte,
     * 230 tokens/s of 61,000; prefill 0.063 s of compute, 0.004 s of bytes */
    est(l, 14, &e);
    cr_expect_float_eq(e.peak_flop_per_s, 989e12, 1e6);
    cr_expect_float_eq(e.bandwidth_bytes_per_s, 3.35e12, 1e6);
    cr_expect_eq(lround(e.ridge_flop_per_byte), 295);
    cr_expect_float_eq(e.arithmetic_intensity, 1.1, 0.05);
    cr_expect_lt(e.arithmetic_intensity, e.ridge_flop_per_byte, "decode is memory-bound");
    cr_expect_eq(lround(e.decode_tokens_per_s), 230);
    cr_expect_float_eq(e.decode_tokens_per_s, e.decode_tokens_per_s_memory_bound, 1e-9);
    cr_expect_float_eq(e.decode_tokens_per_s_compute_bound, 61000, 500);
    {
        const struct engine_scenario *sc = &lesson_step(l, 14)->options.sc;
        cr_expect_eq(sc->prompt ? sc->prompt : sc->context, 4096);
    }
    cr_expect_float_eq(e.serving.prefill_compute_s, 0.063, 0.0005);
    cr_expect_float_eq(e.serving.prefill_bytes_s, 0.004, 0.0005);
    cr_expect_gt(e.serving.prefill_compute_s, e.serving.prefill_bytes_s, "prefill is compute-bound");

    /* 16: scenario 3, one server: all-reduce 0.062 s hidden in a 0.412 s
     * step; MFU 55%, 23.4 days */
    est(l, 15, &e);
    cr_expect_eq(e.gpus, 8);
    cr_expect_eq(lesson_step(l, 15)->options.sc.gpu.gpus_per_node, 8, "one server");
    cr_expect_float_eq(e.train_dp_comm_seconds, 0.062, 0.0005);
    cr_expect_float_eq(e.train_step_seconds, 0.412, 0.0005);
    cr_expect_float_eq(e.train_step_seconds, e.train_compute_seconds, 1e-12, "hidden");
    cr_expect_eq(lround(100 * e.train_mfu), 55);
    cr_expect_float_eq(e.train_days, 23.4, 0.05);
    /* 17: across 8 servers at 12.5 GB/s: 2.53 s of all-reduce, 0.412 s of
     * compute, 2.67 s steps, MFU 8%, 18.9 days */
    est(l, 16, &f);
    cr_expect_eq(f.gpus, 64);
    {
        const struct engine_scenario *sc = &lesson_step(l, 16)->options.sc;
        uint32_t gpn = sc->gpus_per_node ? sc->gpus_per_node : sc->gpu.gpus_per_node;
        cr_expect_eq(f.gpus / gpn, 8, "8 servers");
        cr_expect_float_eq(sc->inter_node_bytes_per_s, 12.5e9, 1e-3, "12.5 GB/s, 100 Gb/s");
    }
    cr_expect_float_eq(f.train_dp_comm_seconds, 2.53, 0.005);
    cr_expect_float_eq(f.train_compute_seconds, 0.412, 0.0005);
    cr_expect_float_eq(f.train_step_seconds, 2.67, 0.005);
    cr_expect_eq(lround(100 * f.train_mfu), 8);
    cr_expect_float_eq(f.train_days, 18.9, 0.05);
    cr_expect_lt(f.train_days, e.train_days, "barely faster than one server");
    cr_expect_gt(f.train_days, 0.75 * e.train_days);
    /* 18: at 50 GB/s: 0.632 s, 0.770 s, MFU 29%, 5.46 days */
    est(l, 17, &e);
    cr_expect_float_eq(e.train_dp_comm_seconds, 0.632, 0.0005);
    cr_expect_float_eq(e.train_step_seconds, 0.770, 0.0005);
    cr_expect_eq(lround(100 * e.train_mfu), 29);
    cr_expect_float_eq(e.train_days, 5.46, 0.005);
    /* 19: 16 micro-batches: the same 2.53 s behind 6.60 s of compute, MFU
     * 55%, 2.92 days, 1,024 sequences per step */
    est(l, 18, &e);
    cr_expect_float_eq(e.train_dp_comm_seconds, f.train_dp_comm_seconds, 1e-12, "the same 2.53 s");
    cr_expect_float_eq(e.train_compute_seconds, 6.60, 0.005);
    cr_expect_float_eq(e.train_step_seconds, e.train_compute_seconds, 1e-12, "hidden");
    cr_expect_eq(lround(100 * e.train_mfu), 55);
    cr_expect_float_eq(e.train_days, 2.92, 0.005);
    cr_expect_float_eq(e.train_global_batch, 1024, 1e-9);

    /* 20: power 8 x 700 W = 5.6 kW; 4,493 GPU-hours, 3.14 MWh */
    est(l, 19, &e);
    cr_expect_float_eq(e.gpus * lesson_step(l, 19)->options.sc.gpu.tdp_w, 5600, 1e-9);
    cr_expect_eq(lround(e.train_gpu_hours), 4493);
    cr_expect_float_eq(e.train_energy_joules / 3.6e9, 3.14, 0.005);
    /* 21: 44.8 kW for 18.9 days, 29,049 GPU-hours: 20.3 MWh, far more than
     * one server and less than 8 times it (neither answer) */
    est(l, 20, &f);
    cr_expect_float_eq(f.gpus * lesson_step(l, 20)->options.sc.gpu.tdp_w, 44800, 1e-9);
    cr_expect_float_eq(f.train_days, 18.9, 0.05);
    cr_expect_eq(lround(f.train_gpu_hours), 29049);
    cr_expect_float_eq(f.train_energy_joules / 3.6e9, 20.3, 0.05);
    cr_expect_gt(f.train_energy_joules, 2 * e.train_energy_joules);
    cr_expect_lt(f.train_energy_joules, 8 * e.train_energy_joules);
    {
        /* the repartitioned run (step 19) takes one server's energy */
        struct engine_estimate r;
        est(l, 18, &r);
        cr_expect_float_eq(r.train_energy_joules, e.train_energy_joules, 1e-3 * e.train_energy_joules);
    }
}

Test(seed_003, captions_state_what_the_engine_shows) {
    static const char *const files[] = {LESSONS "seed-003.en.yaml", LESSONS "seed-003.es.yaml"};

    for (size_t f = 0; f < 2; f++) {
        struct lesson l;
        lesson_check_load(&lesson_check_cat, files[f], &l);
        check_seed_003(&l);
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
