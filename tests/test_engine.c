/*
 * test_engine.c: golden figures from the seeds, papers and data sheets.
 * Each test names its source; tolerances are stated next to the value.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/helpers.h"

/* Relative closeness: |a - b| <= rel * |b|. */
static bool close_rel(double a, double b, double rel) {
    return fabs(a - b) <= rel * fabs(b);
}

/* A bare-size scenario of N parameters in a given format. */
static struct engine_scenario bare(double n, struct engine_format f) {
    struct engine_model m;
    engine_model_from_size(&m, n);
    struct engine_scenario sc = th_scenario(m);
    sc.weight_format = f;
    return sc;
}

/* Seed 000, "En código": 70e9 params in FP32/FP16/INT8 = 280/140/70 GB, and
 * INT4 with a FP16 scale per group of 32 = 4.5 bits -> 39.4 GB ("unos 39 GB, no 35"). */
Test(weights, seed_70b_in_four_formats) {
    struct engine_format f[] = {th_format("fp32", 32, 0, 0), th_format("fp16", 16, 0, 0),
                                th_format("int8", 8, 0, 0), th_format("int4-g32", 4, 32, 16)};
    double want[] = {280e9, 140e9, 70e9, 39.375e9};
    for (int i = 0; i < 4; i++) {
        struct engine_scenario sc = bare(70e9, f[i]);
        struct engine_estimate e;
        engine_estimate(&sc, &e);
        cr_assert_eq(e.invalid, 0, "%s invalid: %#x", f[i].id, e.invalid);
        cr_assert(close_rel(e.memory.weights, want[i], 1e-12), "%s: %.6g bytes, want %.6g",
                  f[i].id, e.memory.weights, want[i]);
    }
    cr_assert(close_rel(engine_format_bits(&f[3]), 4.5, 1e-15));
}

/* Seed 000: Adam in mixed precision, (2 + 2 + 4 + 4 + 4) N = 16 N -> 1120 GB for 70B
 * (ZeRO §3.1); Megatron's FP32 gradients make it 18 N (seed 003, llm-analysis). */
Test(training, seed_sixteen_bytes_per_parameter) {
    struct engine_scenario sc = bare(70e9, th_format("bf16", 16, 0, 0));
    sc.mode = ENGINE_MODE_TRAIN;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    double states = e.memory.weights + e.memory.gradients + e.memory.master_weights +
                    e.memory.optimizer;
    cr_assert(close_rel(states, 1120e9, 1e-12), "states %.6g", states);
    sc.recipe = ENGINE_RECIPE_ADAM_MIXED_FP32_GRADS;
    engine_estimate(&sc, &e);
    states = e.memory.weights + e.memory.gradients + e.memory.master_weights + e.memory.optimizer;
    cr_assert(close_rel(states, 18 * 70e9, 1e-12), "states %.6g", states);
    /* "Ocho veces lo que pide usarlo": 16 B vs 2 B in FP16 inference. */
    struct engine_scenario inf = bare(70e9, th_format("fp16", 16, 0, 0));
    struct engine_estimate ei;
    engine_estimate(&inf, &ei);
    cr_assert(close_rel(1120e9 / ei.memory.weights, 8.0, 1e-12));
}

/* Seed 000: H100 SXM 3350 GB/s, 8B in FP16 = 16 GB -> about 209 tokens/s. */
Test(decode, seed_209_tokens_per_second) {
    struct engine_scenario sc = bare(8e9, th_format("fp16", 16, 0, 0));
    sc.context = 1;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    cr_assert_eq((int)lround(e.decode_tokens_per_s_memory_bound), 209, "%.3f",
                 e.decode_tokens_per_s_memory_bound);
    /* Memory bound: the compute ceiling is far above. */
    cr_assert_gt(e.decode_tokens_per_s_compute_bound, 100 * e.decode_tokens_per_s_memory_bound);
    cr_assert_eq(e.decode_tokens_per_s, e.decode_tokens_per_s_memory_bound);
}

/* Seed 000: ridge 989e12 / 3.35e12 = 295 FLOP/byte; about 590 per 2-byte parameter,
 * so FP16 decode turns compute bound near batch 295. */
Test(decode, seed_h100_ridge_point) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq((int)lround(e.ridge_flop_per_byte), 295, "%.3f", e.ridge_flop_per_byte);
    cr_assert(close_rel(e.compute_bound_batch, 989e12 / 3.35e12, 1e-12));
    /* product.md sketch: INT4 g32 weights turn compute bound at B ~ 83. */
    sc.weight_format = th_format("int4-g32", 4, 32, 16);
    engine_estimate(&sc, &e);
    cr_assert_eq((int)lround(e.compute_bound_batch), 83, "%.3f", e.compute_bound_batch);
}

/* Seed 000 (Llama Team 2024, Table 4): 8 x 16 x 128 = 16,384 H100 is a valid layout
 * for Llama 3.1 405B (126 layers on 16 stages: uneven, warned). */
Test(layout, seed_llama_405b_16384_gpus) {
    struct engine_scenario sc = th_scenario(th_llama31_405b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = 16384;
    sc.tp = 8;
    sc.pp = 16;
    sc.dp = 128;
    sc.micro_batches = 64;
    sc.context = 8192;
    sc.zero = 1;
    /* Activations of 16 in-flight micro-batches of 8 layers at 8192 tokens need
     * sequence parallelism and recomputation to fit in 80 GiB. */
    sc.sequence_parallel = true;
    sc.recompute = ENGINE_RECOMPUTE_FULL;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0, "invalid %#x", e.invalid);
    cr_assert_eq(e.gpus, 8u * 16u * 128u);
    cr_assert(e.warnings & ENGINE_WARN_UNEVEN_STAGES);
    cr_assert(e.fits, "405B 8x16x128 should fit: %.4g of %.4g", e.memory.total, e.capacity);
    /* 15.6T tokens at 41% MFU, end to end as Meta reports it (Llama 3
     * paper, Table 4: 38-43% BF16 MFU); selective recompute. Meta reports
     * 30.84M H100-hours for 405B (model card). With the attention term at
     * s = 8192 the model FLOPs are 6 N + 12 L h s per token (PaLM appendix
     * B): 6 * 405.85e9 + 12 * 126 * 16384 * 8192 = 2.638e12, so 15.6T tokens
     * / (989e12 * 0.41) = 28.19M GPU-hours, 8.6% under Meta's figure (which
     * includes restarts and the long-context stage). */
    sc.recompute = ENGINE_RECOMPUTE_SELECTIVE;
    sc.training_tokens = 15.6e12;
    sc.mfu = 0.41;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.train_gpu_hours, 30.84e6, 0.10), "%.4g GPU-hours", e.train_gpu_hours);
    double fpt = 6 * e.params_total + 12.0 * 126 * 16384 * 8192;
    cr_assert(close_rel(e.train_flops_per_token, fpt, 1e-12), "%.6g", e.train_flops_per_token);
    double hours = fpt * 15.6e12 / (989e12 * 0.41) / 3600;
    cr_assert(close_rel(e.train_gpu_hours, hours, 1e-12), "%.6g vs %.6g", e.train_gpu_hours, hours);
    cr_assert(close_rel(e.train_days, e.train_gpu_hours / 24 / 16384, 1e-12));
    cr_assert(close_rel(e.train_mfu, 0.41, 1e-12));
}

/* Issue 12's headline (the seed's arithmetic, Meta's paper): Llama 3.1 405B,
 * 16,384 H100 SXM (dense BF16 peak 989 TFLOP/s), TP 8 x PP 16 x DP 128, MFU
 * 0.41 end to end, 15.6T tokens, --flops-model 6n: 6 N T / (G peak MFU) =
 * 6 * 405.85e9 * 15.6e12 / (16384 * 989e12 * 0.41) s = 66.2 days, 26.0M
 * GPU-hours. Nothing (bubble, communication) is added to a given MFU. */
Test(training, mfu_end_to_end_405b_66_days) {
    struct engine_scenario sc = th_scenario(th_llama31_405b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = 16384;
    sc.tp = 8;
    sc.pp = 16;
    sc.dp = 128;
    sc.mfu = 0.41;
    sc.training_tokens = 15.6e12;
    sc.flops_model = ENGINE_FLOPS_6N;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0, "invalid %#x", e.invalid);
    cr_assert(close_rel(e.train_days, 66.2, 0.001), "%.4f days", e.train_days);
    cr_assert(close_rel(e.train_gpu_hours, 26.0e6, 0.002), "%.4g GPU-hours", e.train_gpu_hours);
    cr_assert(close_rel(e.train_flops_per_token, 6 * e.params_total, 1e-12));
    /* One micro-batch on 16 stages idles 94%: inside the MFU, not added. */
    cr_assert_gt(e.train_bubble_fraction, 0.9);
    double step = 6 * e.params_total * e.train_tokens_per_step / (16384 * 989e12 * 0.41);
    cr_assert(close_rel(e.train_step_seconds, step, 1e-12));
}

/* Seed 003: a rack's power is a capacity, not a draw, and a system draws
 * more than its GPUs (CPUs, NICs, fans). The 405B run above on 16,384 H100
 * in DGX H100 servers (8 GPUs, ~10.2 kW max, NVIDIA's DGX H100 data sheet):
 * 2,048 systems x 10.2 kW x 66.2 days = 1.19e14 J = 33.2 GWh, against the
 * boards' 16,384 x 700 W x 66.2 days = 18.2 GWh. A partly used system
 * counts whole (ceil); without a system there is no system figure. */
Test(training, energy_at_system_power_405b_in_dgx_h100) {
    struct engine_scenario sc = th_scenario(th_llama31_405b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = 16384;
    sc.tp = 8;
    sc.pp = 16;
    sc.dp = 128;
    sc.mfu = 0.41;
    sc.training_tokens = 15.6e12;
    sc.flops_model = ENGINE_FLOPS_6N;
    sc.gpu.tdp_w = 700;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert(isnan(e.train_system_energy_joules), "no system: no system energy");
    cr_assert(isnan(e.systems));
    cr_assert(close_rel(e.train_energy_joules / 3.6e12, 18.2, 0.003), "%.4g GWh",
              e.train_energy_joules / 3.6e12);
    memcpy(sc.system_id, "dgx-h100", sizeof "dgx-h100");
    sc.system_gpus = 8;
    sc.system_power_w = 10200;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    cr_assert_eq(e.systems, 2048);
    cr_assert(close_rel(e.train_system_energy_joules / 3.6e12, 33.2, 0.003), "%.4g GWh",
              e.train_system_energy_joules / 3.6e12);
    cr_assert(close_rel(e.train_system_energy_joules / e.train_energy_joules,
                        2048 * 10200.0 / (16384 * 700.0), 1e-12));
    /* 16,383 GPUs still take 2,048 whole systems */
    sc.gpus = 16383;
    sc.tp = 1;
    sc.pp = 1;
    sc.dp = 16383;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.systems, 2048);
    sc.gpus = 1;
    sc.dp = 1;
    sc.mode = ENGINE_MODE_INFER;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.systems, 1);
    cr_assert(close_rel(e.decode_system_joules_per_token, 10200 / e.decode_tokens_per_s, 1e-12));
    cr_assert_gt(e.decode_system_joules_per_token, e.decode_joules_per_token);
}

/* Predicted MFU (no --mfu): one GPU, no pipeline, no communication: the
 * kernels' rate alone, MFU = efficiency * model / hardware FLOPs. The
 * default efficiency is Korthikanti et al. 2022 Table 5's 57% HFU. */
Test(training, predicted_mfu_one_gpu_is_the_kernel_efficiency) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.mfu = 0;
    sc.recompute = ENGINE_RECOMPUTE_FULL;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    /* The step is the kernels' time, nothing else on one GPU. */
    cr_assert(close_rel(e.train_step_seconds, e.train_compute_seconds, 1e-12));
    double kernels = e.train_compute_seconds / e.train_step_seconds;
    cr_assert(close_rel(e.train_hfu, 0.57 * kernels, 1e-12), "%.6g", e.train_hfu);
    cr_assert(close_rel(e.train_mfu,
                        0.57 * kernels * e.train_flops_per_token / e.train_hw_flops_per_token,
                        1e-12));
    /* Full recompute runs the forward again: 2 N + 2 L s a (d_qk + d_v). */
    double attn_fwd = 2.0 * 32 * 4096 * 32 * (128 + 128);
    cr_assert(close_rel(e.train_hw_flops_per_token,
                        e.train_flops_per_token + 2 * e.params_active + attn_fwd, 1e-12));
    sc.flops_efficiency = 0.5;
    sc.flops_efficiency_given = true;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.train_hfu, 0.5 * e.train_compute_seconds / e.train_step_seconds, 1e-12),
              "%.6g", e.train_hfu);
    /* A pipeline of 4 stages and 4 micro-batches idles 3/7: MFU falls so,
     * and runs at its slowest stage (8 layers and the head and loss, or 8
     * and the embedding: above the mean of 8 and a quarter of both). */
    sc.gpus = sc.pp = 4;
    sc.micro_batches = 4;
    engine_estimate(&sc, &e);
    cr_assert_gt(e.train_stage_imbalance, 1.05, "%.6g", e.train_stage_imbalance);
    cr_assert_lt(e.train_stage_imbalance, 1.2, "%.6g", e.train_stage_imbalance);
    cr_assert_lt(e.train_hfu, 0.5 * (1 - 3.0 / 7.0) / e.train_stage_imbalance + 1e-12, "%.6g",
                 e.train_hfu);
    cr_assert_gt(e.train_hfu, 0.5 * (1 - 3.0 / 7.0) / e.train_stage_imbalance * 0.95, "%.6g",
                 e.train_hfu);
}

/* PaLM appendix B: 6 N + 12 L h s per token; Narayanan et al. 2021 eq. 3
 * has the same 1 + s/6h term. Issue 12 held Llama 3.1 8B, s 4096, DP 8,
 * ZeRO 2 against llm-analysis/DeepSpeed: vramlab's 0.932 s (6 N) against
 * their 1.110 s (x1.191). The attention term alone is 1 + 12 L h s / 6 N
 * = 1 + 12 * 32 * 4096 * 4096 / (6 * 8.03e9) = 1.1337, which moves 0.932 s
 * to 1.057 s, within 5% of 1.110 s (the rest: their logits term V/16Lh,
 * Narayanan eq. 3). At a fixed MFU the step scales by exactly that ratio. */
Test(training, attention_flops_llama_8b_4096) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = sc.dp = 8;
    sc.zero = 2;
    sc.context = 4096;
    sc.mfu = 0.4;
    struct engine_estimate a, b;
    engine_estimate(&sc, &a);
    sc.flops_model = ENGINE_FLOPS_6N;
    engine_estimate(&sc, &b);
    cr_assert_eq(a.invalid | b.invalid, 0);
    double ratio = 1 + 12.0 * 32 * 4096 * 4096 / (6 * a.params_active);
    cr_assert(close_rel(a.train_step_seconds / b.train_step_seconds, ratio, 1e-12), "%.6g",
              a.train_step_seconds / b.train_step_seconds);
    cr_assert(close_rel(ratio, 1.1337, 0.0005), "%.6g", ratio);
    cr_assert(close_rel(0.932 * ratio, 1.110, 0.05), "%.4g", 0.932 * ratio);
    /* Recompute is hardware work: it never changes a given MFU's step. */
    sc.flops_model = ENGINE_FLOPS_6N_ATTENTION;
    sc.recompute = ENGINE_RECOMPUTE_FULL;
    engine_estimate(&sc, &b);
    cr_assert(close_rel(b.train_step_seconds, a.train_step_seconds, 1e-12));
    cr_assert_gt(b.train_hfu, b.train_mfu);
}

/* GPipe (Huang et al. 2019): bubble (p-1)/(m+p-1); Narayanan et al. 2021: /(v m + p - 1). */
Test(training, gpipe_bubble) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = 4;
    sc.pp = 4;
    sc.micro_batches = 4;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.train_bubble_fraction, 3.0 / 7.0, 1e-12));
    cr_assert(e.warnings & ENGINE_WARN_BUBBLE);
    sc.micro_batches = 16; /* m >= 4p: negligible, no warning */
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.train_bubble_fraction, 3.0 / 19.0, 1e-12));
    cr_assert_not(e.warnings & ENGINE_WARN_BUBBLE);
    sc.interleave = 2;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.train_bubble_fraction, 3.0 / 35.0, 1e-12));
}

/* Exact parameter counts: published totals of the HF checkpoints (safetensors). */
Test(params, published_counts) {
    struct {
        struct engine_model m;
        double want, rel;
    } cases[] = {
        {th_llama31_8b(), 8030261248.0, 0},       /* exact (engine.md) */
        {th_llama31_70b(), 70553706496.0, 0},     /* exact, HF model page */
        {th_llama31_405b(), 405853388800.0, 0},   /* exact, HF model page */
        {th_mixtral_8x7b(), 46702792704.0, 0},    /* exact, HF model page */
        {th_qwen25_7b(), 7615616512.0, 0},        /* exact, HF model page (qkv bias) */
        {th_pythia_1_4b(), 1414647808.0, 0},      /* exact, HF model page (GPT-NeoX) */
        {th_gpt3_175b(), 175e9, 0.005},           /* Brown et al. 2020, Table 2.1 */
        {th_deepseek_v3(), 671e9, 0.005},         /* DeepSeek-V3 report: 671B total */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = engine_params_total(&cases[i].m);
        if (cases[i].rel == 0)
            cr_expect_eq(got, cases[i].want, "%s: %.0f, published %.0f", cases[i].m.id, got,
                         cases[i].want);
        else
            cr_expect(close_rel(got, cases[i].want, cases[i].rel), "%s: %.0f, published %.0f",
                      cases[i].m.id, got, cases[i].want);
    }
}

/* Active parameters: Mixtral 8x7B ~12.9B active (Mistral AI), DeepSeek-V3 37B (report). */
Test(params, moe_active) {
    struct engine_model mx = th_mixtral_8x7b(), ds = th_deepseek_v3();
    cr_assert(close_rel(engine_params_active(&mx), 12.9e9, 0.01), "%.4g",
              engine_params_active(&mx));
    cr_assert(close_rel(engine_params_active(&ds), 37e9, 0.02), "%.4g", engine_params_active(&ds));
}

/* Llama 3.1 8B KV cache: 2 * 32 layers * 8 kv heads * 128 * 8192 tokens * 2 B = 1 GiB. */
Test(kv_cache, llama_8b_one_gib_at_8192) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.context = 8192;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.memory.kv_cache, GIB, "%.0f", e.memory.kv_cache);
    cr_assert_eq(e.kv_bytes_per_token, 131072.0);
}

/* GQA: KV divides by the KV heads over t, never below one head per GPU. */
Test(kv_cache, gqa_divides_by_kv_heads_and_replicates) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.context = 8192;
    sc.gpus = sc.tp = 8;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.memory.kv_cache, GIB / 8);
    cr_assert_not(e.warnings & ENGINE_WARN_KV_REPLICATED);
    sc.model.heads = 64;
    sc.gpus = sc.tp = 16; /* 16 ranks, 8 KV heads: each keeps one */
    sc.gpus_per_node = 16;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.memory.kv_cache, GIB / 8);
    cr_assert(e.warnings & ENGINE_WARN_KV_REPLICATED);
}

/* Korthikanti et al. 2022, Table 2, on the paper's GPT-3 175B shape
 * (s = 2048, b = 1, h = 12288, a = 96, t = 8): bytes per layer. */
Test(activations, korthikanti_table2_gpt3) {
    struct engine_scenario sc = th_scenario(th_gpt3_175b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.context = 2048;
    sc.batch = 1;
    double sbh = 2048.0 * 1 * 12288;
    struct {
        unsigned t;
        bool sp;
        enum engine_recompute r;
        double want;
    } cases[] = {
        {1, false, ENGINE_RECOMPUTE_NONE, sbh * (34 + 5 * 96 * 2048.0 / 12288)},
        {8, false, ENGINE_RECOMPUTE_NONE, sbh * (10 + 24.0 / 8 + 5 * 96 * 2048.0 / (12288 * 8))},
        {8, true, ENGINE_RECOMPUTE_NONE, sbh * (34.0 / 8 + 5 * 96 * 2048.0 / (12288 * 8))},
        {8, false, ENGINE_RECOMPUTE_SELECTIVE, sbh * (10 + 24.0 / 8)},
        {8, true, ENGINE_RECOMPUTE_SELECTIVE, sbh * 34.0 / 8},
        {1, false, ENGINE_RECOMPUTE_SELECTIVE, sbh * 34}, /* seed 000: "unos 34 s b h" */
        {1, false, ENGINE_RECOMPUTE_FULL, sbh * 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sc.gpus = sc.tp = cases[i].t;
        sc.sequence_parallel = cases[i].sp;
        sc.recompute = cases[i].r;
        struct engine_estimate e;
        engine_estimate(&sc, &e);
        cr_assert_eq(e.invalid, 0);
        cr_expect(close_rel(e.act_per_layer_bytes, cases[i].want, 1e-12),
                  "case %zu: %.6g, want %.6g", i, e.act_per_layer_bytes, cases[i].want);
    }
    /* The paper's headline: 5as/h = 80 for GPT-3, more than the 34 of everything else. */
    cr_assert(close_rel(cases[0].want / sbh, 114.0, 1e-12));
}

/* Seed 000 / Llama 3 paper §6.1: 405B in BF16 (810 GB) does not fit 8 x H100 (640 GB). */
Test(fit, llama_405b_bf16_not_on_8_h100) {
    struct engine_scenario sc = th_scenario(th_llama31_405b());
    sc.gpus = sc.tp = 8;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    cr_assert_not(e.fits);
    cr_assert_gt(e.memory.weights * 8, 800e9);
    cr_assert(e.warnings & ENGINE_WARN_DOES_NOT_FIT);
}

/* Seed 000, "Lente de decisión": an 8B model in INT8 fits a 12 GB card;
 * 70B in FP16 needs at least two H100. */
Test(fit, seed_8b_int8_on_12gb_and_70b_needs_two_h100) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.weight_format = th_format("int8", 8, 0, 0);
    sc.gpu = th_rtx3060();
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert(e.fits, "8B INT8: %.4g of %.4g", e.memory.total, e.capacity);
    struct engine_scenario big = bare(70e9, th_format("fp16", 16, 0, 0));
    engine_estimate(&big, &e);
    cr_assert_not(e.fits);
    struct engine_scenario best;
    cr_assert_eq(engine_min_gpus(&big, 64, &best), 2);
    cr_assert_eq(best.tp * best.pp * best.dp, 2);
}

/* Inference: more GPUs than the widest TP x PP only add replicas, so the
 * search for the fewest GPUs stops there. A model too big for every TP x PP
 * gets 0 at once (it searched on to 65,536 GPUs, 38 s); one that fits gets
 * the same answer as a search capped at the widest TP x PP, with TP dividing
 * the heads inside a node and PP at most the layers. */
Test(fit, fewest_gpus_stops_at_the_widest_tp_pp) {
    struct engine_scenario sc = th_scenario(th_llama31_405b());
    sc.gpu = th_rtx3060();
    struct engine_scenario best;
    uint32_t g = engine_min_gpus(&sc, 65536, &best);
    cr_assert_gt(g, 1);
    cr_assert_leq(best.tp, 8);
    cr_assert_leq(best.pp, sc.model.layers);
    cr_assert_eq(engine_min_gpus(&sc, 8 * sc.model.layers, NULL), g);
    /* a model 8 times as wide (~64 times the weights): no TP x PP of a
     * 12 GB card holds it */
    sc.model.hidden *= 8;
    sc.model.ffn *= 8;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    double widest = e.memory.weights / (8.0 * sc.model.layers);
    cr_assert_gt(widest, sc.gpu.memory_bytes, "the weights per GPU at TP 8 x PP L: %.4g", widest);
    cr_assert_eq(engine_min_gpus(&sc, 65536, NULL), 0);
}

/* Seed 000: "80 GB" of H100 are 80 * 2^30 bytes = 85.9e9 (7% more than 80e9). */
Test(units, h100_80gb_is_80_gib) {
    struct engine_gpu g = th_h100_sxm();
    cr_assert_eq(g.memory_bytes, 85899345920.0);
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.capacity, 85899345920.0);
}

/* product.md sketch: Llama 3.1 70B INT4 g32, batch 8, 8192 tokens, TP2 on H100 SXM:
 * weights 19.9 GB, KV 10.7 GB per GPU, <= 110 tokens/s per sequence, 876 for the batch
 * (the sketch leaves out the all-reduce latency; with it the ceiling is lower). */
Test(decode, product_sketch_70b_int4_tp2) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    sc.weight_format = th_format("int4-g32", 4, 32, 16);
    sc.batch = 8;
    sc.context = 8192;
    sc.gpus = sc.tp = 2;
    sc.allreduce_latency_s = 0;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.memory.weights, 19.85e9, 0.005), "%.4g", e.memory.weights);
    cr_assert(close_rel(e.memory.kv_cache, 10.74e9, 0.005), "%.4g", e.memory.kv_cache);
    cr_assert(e.fits);
    cr_assert(close_rel(e.decode_tokens_per_s_memory_bound, 876, 0.01), "%.4g",
              e.decode_tokens_per_s_memory_bound);
    /* 2 all-reduces per layer per token: 160 x 5 us on top of 9.1 ms of reads. */
    sc.allreduce_latency_s = 5e-6;
    struct engine_estimate l;
    engine_estimate(&sc, &l);
    double step = 1.0 / (e.decode_tokens_per_s_memory_bound / 8);
    cr_assert(close_rel(l.decode_tokens_per_s_memory_bound, 8 / (step + 160 * 5e-6), 1e-9));
}

/* Seed 000: "Agrupar peticiones": batch reuses each weight read; more batch, more tokens/s,
 * until the compute ceiling. */
Test(decode, batching_raises_throughput_until_compute_bound) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.context = 512;
    struct engine_estimate e1, e64;
    engine_estimate(&sc, &e1);
    sc.batch = 64;
    engine_estimate(&sc, &e64);
    cr_assert_gt(e64.decode_tokens_per_s, 30 * e1.decode_tokens_per_s);
    cr_assert_lt(e64.decode_tokens_per_s_per_sequence, e1.decode_tokens_per_s_per_sequence);
    sc.batch = 4096;
    sc.context = 16; /* short sequences: the weights dominate what a step reads */
    engine_estimate(&sc, &e64);
    cr_assert_eq(e64.decode_tokens_per_s, e64.decode_tokens_per_s_compute_bound);
    /* Long sequences: the KV cache read grows with the batch and keeps decode memory bound. */
    sc.context = 8192;
    sc.batch = 256;
    engine_estimate(&sc, &e64);
    cr_assert_eq(e64.decode_tokens_per_s, e64.decode_tokens_per_s_memory_bound);
}

/* ZeRO (Rajbhandari et al. 2020, Figure 1): 7.5B params, 64 GPUs, K = 12:
 * baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.88 GB per GPU. */
Test(training, zero_paper_figure1) {
    struct engine_scenario sc = bare(7.5e9, th_format("fp16", 16, 0, 0));
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = sc.dp = 64;
    double want[] = {120e9, 31.4e9, 16.6e9, 1.875e9};
    for (unsigned z = 0; z <= 3; z++) {
        sc.zero = z;
        struct engine_estimate e;
        engine_estimate(&sc, &e);
        double states = e.memory.weights + e.memory.gradients + e.memory.master_weights +
                        e.memory.optimizer;
        cr_expect(close_rel(states, want[z], 0.01), "stage %u: %.4g, want %.4g", z, states,
                  want[z]);
    }
}

/* Bad input never crashes: the estimate says what is invalid. */
Test(invalid, reports_bad_input) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    struct engine_estimate e;
    sc.gpus = 4;
    sc.tp = 2; /* 2 x 1 x 1 != 4 */
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_LAYOUT);
    cr_assert_not(e.fits);
    cr_assert(isnan(e.memory.total));
    sc = th_scenario(th_llama31_8b());
    sc.gpus = sc.tp = 3; /* 3 does not divide 32 heads */
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_TP_HEADS);
    sc = th_scenario(th_llama31_8b());
    sc.gpu.bandwidth_bytes_per_s = 0;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_GPU);
    sc = th_scenario(th_llama31_8b());
    sc.model.layers = 0;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_SIZE);
    struct engine_model neg;
    engine_model_from_size(&neg, -5e9);
    sc = th_scenario(neg);
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_SIZE);
    sc = th_scenario(th_llama31_8b());
    sc.zero = 4;
    sc.mfu = 1.5; /* 0 is "predict"; above 1 is not a fraction */
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_ZERO);
    cr_assert(e.invalid & ENGINE_INVALID_EFFICIENCY);
    char buf[200];
    engine_invalid_text(NULL, &sc, ENGINE_INVALID_ZERO, buf, sizeof buf);
    cr_assert(strstr(buf, "ZeRO stage 4"), "%s", buf);
}

/* Every key explains itself: formula, values and source, and the JSON names are unique. */
Test(explain, every_key_has_formula_values_source) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    for (int mode = 0; mode < 2; mode++) {
        sc.mode = mode ? ENGINE_MODE_TRAIN : ENGINE_MODE_INFER;
        struct engine_estimate e;
        engine_estimate(&sc, &e);
        for (int k = 0; k < ENGINE_KEY_COUNT; k++) {
            struct engine_explanation x;
            engine_explain(&sc, &e, (enum engine_key)k, &x);
            cr_assert(x.key && x.formula && x.source && x.label, "key %d", k);
            cr_assert_gt(strlen(x.values), 0, "%s", x.key);
            enum engine_key back;
            cr_assert_eq(engine_key_parse(x.key, &back), 0);
            cr_assert_eq((int)back, k);
            if (!engine_key_applies(&sc, (enum engine_key)k))
                cr_assert(isnan(engine_key_value(&e, (enum engine_key)k)), "%s should be NaN",
                          x.key);
            else
                cr_assert_not(isnan(engine_key_value(&e, (enum engine_key)k)), "%s is NaN",
                              x.key);
        }
    }
    struct engine_estimate e;
    sc.mode = ENGINE_MODE_INFER;
    engine_estimate(&sc, &e);
    struct engine_explanation x;
    engine_explain(&sc, &e, ENGINE_KEY_RIDGE, &x);
    cr_assert(strstr(x.values, "295"), "%s", x.values);
    cr_assert(strstr(x.source, "lesson seed-000"), "%s", x.source);
}

/* Layout search: ranks fitting layouts first, each rejection has its reason. */
Test(layout, search_ranks_and_rejects) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    struct engine_layout l[64];
    size_t n = engine_search_layouts(&sc, 16, l, 64);
    cr_assert_eq(n, 15); /* (t, p) pairs over the divisors of 16 */
    cr_assert(l[0].fits && l[0].reject == ENGINE_REJECT_NONE);
    bool saw_node = false;
    for (size_t i = 0; i < n; i++) {
        cr_assert(l[i].tp * l[i].pp * l[i].dp == 16);
        if (l[i].tp == 16) {
            cr_assert_eq(l[i].reject, ENGINE_REJECT_TP_NODE);
            saw_node = true;
        }
        if (i > 0 && l[i - 1].fits && l[i].fits)
            cr_assert_geq(l[i - 1].throughput, l[i].throughput);
        if (l[i].fits)
            cr_assert(i == 0 || l[i - 1].fits);
    }
    cr_assert(saw_node);
    cr_assert_str_eq(engine_reject_text(ENGINE_REJECT_TP_HEADS),
                     "t does not divide the attention heads");
}

/* Inverse questions agree with the forward estimate at their boundary. */
Test(inverse, max_batch_and_context_are_the_boundary) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.context = 8192;
    uint32_t b = engine_max_batch(&sc);
    cr_assert_gt(b, 1);
    struct engine_estimate e;
    sc.batch = b;
    engine_estimate(&sc, &e);
    cr_assert(e.fits);
    sc.batch = b + 1;
    engine_estimate(&sc, &e);
    cr_assert_not(e.fits);
    sc.batch = 1;
    /* Llama 3.1 8B fits far more than its 131,072 tokens on an H100: the
     * model's maximum stops the search, and says so. */
    bool capped = false;
    uint32_t c = engine_max_context_capped(&sc, &capped);
    cr_assert(capped);
    cr_assert_eq(c, sc.model.max_context);
    sc.model.max_context = 0; /* then memory is the boundary */
    c = engine_max_context_capped(&sc, &capped);
    cr_assert_not(capped);
    cr_assert_gt(c, 131072);
    sc.context = c;
    engine_estimate(&sc, &e);
    cr_assert(e.fits);
    sc.context = c + 1;
    engine_estimate(&sc, &e);
    cr_assert_not(e.fits);
    sc.model = th_llama31_8b();
    struct engine_model family[] = {th_llama31_8b(), th_llama31_70b(), th_llama31_405b()};
    sc.context = 4096;
    cr_assert_eq(engine_largest_fitting(&sc, family, 3), 0); /* 70B FP16 needs 2 GPUs */
    sc.weight_format = th_format("int4-g32", 4, 32, 16);
    cr_assert_eq(engine_largest_fitting(&sc, family, 3), 1); /* 70B INT4 fits one H100 */
}

/* Bare size: the derived shape is marked and its count is N itself. */
Test(params, bare_size_derived_shape) {
    struct engine_model m;
    engine_model_from_size(&m, 175e9);
    cr_assert(m.derived && !m.has_arch);
    cr_assert_eq(m.hidden, 12288); /* GPT-3's width */
    cr_assert_eq(m.heads, 96);
    cr_assert_eq(engine_params_total(&m), 175e9);
    struct engine_scenario sc = th_scenario(m);
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert(e.warnings & ENGINE_WARN_DERIVED_SHAPE);
}

/* A price of 0 given by the user is one's own GPUs: no cost, not the
 * catalog's on-demand price (H100 SXM $X/h); 0 tokens given is no training,
 * not Chinchilla's 20 per parameter (Hoffmann et al. 2022). */
Test(training, price_and_tokens_given_zero_mean_zero) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    struct engine_estimate e;
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpu.price_per_hour = 2.0;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.train_tokens, 20 * e.params_total, 1e-12), "%.4g", e.train_tokens);
    cr_assert(close_rel(e.train_cost_usd, e.train_gpu_hours * 2.0, 1e-12));
    sc.price_given = true; /* --price 0 */
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    cr_assert(e.train_gpu_hours > 0);
    cr_assert_eq(e.train_cost_usd, 0.0, "cost %.4g", e.train_cost_usd);
    sc.price_per_hour = 3.5;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.train_cost_usd, e.train_gpu_hours * 3.5, 1e-12));
    sc.training_tokens_given = true; /* --tokens 0 */
    sc.training_tokens = 0;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.train_tokens, 0.0);
    cr_assert_eq(e.train_days, 0.0);
    cr_assert_eq(e.train_cost_usd, 0.0);
    /* Not given and no catalog price: no cost (NaN), as before. */
    sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpu.price_per_hour = 0;
    engine_estimate(&sc, &e);
    cr_assert(isnan(e.train_cost_usd));
    cr_assert(e.warnings & ENGINE_WARN_NO_PRICE);
    /* Not finite or negative: invalid, never silently the catalog's. */
    sc.price_per_hour = INFINITY;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_WORKLOAD);
    sc.price_per_hour = -1;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_WORKLOAD);
}

/* The FLOP/s column: the weight format's in inference, the recipe's in full
 * training (BF16 mixed precision; FP32 for adam-fp32), BF16 for LoRA/QLoRA
 * whatever the stored format (an FP8 E5M2 pick does not make training FP8). */
Test(decode, compute_column_follows_what_runs) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    struct engine_estimate e;
    sc.weight_format.compute = ENGINE_COMPUTE_FP8;
    sc.gpu.flops[ENGINE_COMPUTE_FP8] = 1979e12;
    sc.gpu.flops[ENGINE_COMPUTE_BF16] = 989e12;
    cr_assert_eq(engine_compute_column(&sc), ENGINE_COMPUTE_FP8);
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.peak_flop_per_s, 1979e12, 1e-12));
    sc.mode = ENGINE_MODE_TRAIN;
    cr_assert_eq(engine_compute_column(&sc), ENGINE_COMPUTE_BF16);
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.peak_flop_per_s, 989e12, 1e-12));
    sc.recipe = ENGINE_RECIPE_ADAM_FP32;
    cr_assert_eq(engine_compute_column(&sc), ENGINE_COMPUTE_FP32);
    sc.mode = ENGINE_MODE_QLORA;
    cr_assert_eq(engine_compute_column(&sc), ENGINE_COMPUTE_BF16);
}

/* Megatron/DeepSpeed batches: global = micro-batch size x micro-batches x
 * dp. Seed 002: per-device batch 1 x gradient accumulation 16 = effective
 * 16. Llama 3 Table 4: 16M tokens of 8,192 on DP 128 = 16 sequences per
 * replica. A global batch that micro x dp does not divide is invalid. */
Test(training, global_batch_derives_gradient_accumulation) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.global_batch = 16;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    cr_assert_eq(engine_micro_batches(&sc), 16u);
    cr_assert_eq(e.train_micro_batches, 16);
    cr_assert_eq(e.train_global_batch, 16);
    cr_assert_eq(e.train_tokens_per_step, 16.0 * 4096);
    sc = th_scenario(th_llama31_405b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = 16384;
    sc.tp = 8;
    sc.pp = 16;
    sc.dp = 128;
    sc.context = 8192;
    sc.global_batch = 16777216 / 8192;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.train_micro_batches, 16);
    cr_assert_eq(e.train_tokens_per_step, 16777216.0);
    cr_assert(e.warnings & ENGINE_WARN_BUBBLE, "16 micro-batches < 4 x 16 stages");
    sc.global_batch = 1000; /* not a multiple of 1 x 128 */
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_BATCH);
    char buf[256];
    engine_invalid_text(NULL, &sc, ENGINE_INVALID_BATCH, buf, sizeof buf);
    cr_assert(strstr(buf, "--global-batch 1000") && strstr(buf, "--dp 128"), "%s", buf);
}

/* Seed 002: Training Time = (Dataset Size x Epochs) / Throughput; 15.36M
 * tokens at 1,000 tokens/s = 15,360 s = 4.267 h on one A100-40GB; cost at
 * $4.00/h on-demand and $1.20/h spot (seed 002's table). The throughput
 * implies an MFU: FLOP per token x tokens/s / (G peak). */
Test(training, seed_002_throughput_method) {
    struct engine_model m;
    engine_model_from_size(&m, 7e9);
    struct engine_scenario sc = th_scenario(m);
    sc.mode = ENGINE_MODE_LORA;
    sc.training_tokens = 10000.0 * 512 * 3;
    sc.training_tokens_given = true;
    sc.throughput_tokens_per_s = 1000;
    sc.gpu.flops[ENGINE_COMPUTE_BF16] = 312e12;
    sc.gpu.price_per_hour = 4.00;
    sc.gpu.spot_price_per_hour = 1.20;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0, "%#x", e.invalid);
    cr_assert(close_rel(e.train_gpu_hours, 15360.0 / 3600, 1e-12), "%.6g", e.train_gpu_hours);
    cr_assert(close_rel(e.train_cost_usd, 15360.0 / 3600 * 4.00, 1e-12));
    cr_assert(close_rel(e.train_cost_spot_usd, 15360.0 / 3600 * 1.20, 1e-12));
    cr_assert(close_rel(e.train_mfu, e.train_flops_per_token * 1000 / 312e12, 1e-12));
    sc.gpu.spot_price_per_hour = 0;
    engine_estimate(&sc, &e);
    cr_assert(isnan(e.train_cost_spot_usd), "no spot price: no spot cost");
}

/* Seed 003: power in W and energy in Wh answer different questions. At the
 * board power (H100 SXM 700 W, the data sheet's maximum) training energy is
 * GPU-hours x 3600 x 700 J, an upper bound; decode energy per token is
 * G x 700 W / tokens/s. */
Test(training, energy_at_board_power) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.gpu.tdp_w = 700;
    sc.mode = ENGINE_MODE_TRAIN;
    sc.training_tokens = 1e9;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.train_energy_joules, e.train_gpu_hours * 3600 * 700, 1e-12));
    cr_assert(close_rel(e.train_energy_joules_per_token, e.train_energy_joules / 1e9, 1e-12));
    sc.mode = ENGINE_MODE_INFER;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.decode_joules_per_token, 700 / e.decode_tokens_per_s, 1e-12));
    sc.gpu.tdp_w = 0;
    engine_estimate(&sc, &e);
    cr_assert(isnan(e.decode_joules_per_token), "no tdp: no energy");
}

/* Per-GPU model states of a scenario: weights, gradients, master, optimizer
 * and ZeRO-3's gathered layer (what DeepSpeed's estimators count). */
static double model_states(const struct engine_memory *m) {
    return m->weights + m->gradients + m->master_weights + m->optimizer + m->zero3_working;
}

/* Llama 3.1 8B full training on 8 GPUs, DP 8 (issue 12 item 4). */
static struct engine_scenario llama8b_dp8(unsigned zero, enum engine_memory_convention conv) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = sc.dp = 8;
    sc.zero = zero;
    sc.memory_convention = conv;
    return sc;
}

/* DeepSpeed's model_to_params takes the largest module's own parameters:
 * for Llama 3.1 8B the embedding, 128256 x 4096 = 525,336,576 (the untied
 * lm_head is the same shape). */
Test(zero, largest_layer_llama_8b_is_the_embedding) {
    cr_assert_eq(engine_params_largest_layer(&(struct engine_model){0}), 0);
    struct engine_model m = th_llama31_8b();
    cr_assert(close_rel(engine_params_largest_layer(&m), 128256.0 * 4096, 1e-15), "%.10g",
              engine_params_largest_layer(&m));
    /* Without the vocabulary the MLP matrix, h x f = 4096 x 14336, is the largest. */
    m.vocab = 0;
    cr_assert(close_rel(engine_params_largest_layer(&m), 4096.0 * 14336, 1e-15));
}

/* Issue 12 item 4, figures from DeepSpeed's estimators (v0.17
 * stage3.py estimate_zero3_model_states_mem_needs: 4 x largest layer +
 * 18 N / G; stage_1_and_2.py keeps the 16-bit and the FP32 gradient
 * partitions: 2 + 18/d), Llama 3.1 8B (8,030,261,248 parameters) on 8 GPUs:
 * ZeRO-3 18.07e9 B without the gathered layer, 20.17e9 with it; ZeRO-2
 * 32.1e9 with the idealised FP32 gradients, 34.1e9 as DeepSpeed keeps them. */
Test(zero, deepspeed_llama_8b_on_8_gpus) {
    const double n = 8030261248.0, llp = 128256.0 * 4096;
    struct engine_estimate e;
    struct engine_scenario sc = llama8b_dp8(3, ENGINE_MEMCONV_DEEPSPEED);
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    cr_assert(close_rel(e.memory.zero3_working, 4 * llp, 1e-12), "%.6g", e.memory.zero3_working);
    cr_assert(close_rel(model_states(&e.memory), 4 * llp + 18 * n / 8, 1e-12));
    cr_assert(close_rel(model_states(&e.memory), 20.17e9, 5e-4), "ZeRO-3 %.6g",
              model_states(&e.memory));
    /* The paper convention with FP32 gradients (18 B): vramlab's old 18.07e9. */
    sc = llama8b_dp8(3, ENGINE_MEMCONV_PAPER);
    sc.recipe = ENGINE_RECIPE_ADAM_MIXED_FP32_GRADS;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.memory.zero3_working, 0);
    cr_assert(close_rel(model_states(&e.memory), 18.07e9, 5e-4), "%.6g", model_states(&e.memory));
    /* ZeRO-2: paper 2 + 16/d with FP32 gradients = 32.1e9; DeepSpeed 2 + 18/d = 34.1e9
     * with either mixed recipe (it builds the FP32 copy itself). */
    sc = llama8b_dp8(2, ENGINE_MEMCONV_PAPER);
    sc.recipe = ENGINE_RECIPE_ADAM_MIXED_FP32_GRADS;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(model_states(&e.memory), 32.1e9, 1e-3), "%.6g", model_states(&e.memory));
    for (int r = 0; r < 2; r++) {
        sc = llama8b_dp8(2, ENGINE_MEMCONV_DEEPSPEED);
        sc.recipe = r ? ENGINE_RECIPE_ADAM_MIXED_FP32_GRADS : ENGINE_RECIPE_ADAM_MIXED;
        engine_estimate(&sc, &e);
        cr_assert(close_rel(model_states(&e.memory), (2 + 18.0 / 8) * n, 1e-12));
        cr_assert(close_rel(model_states(&e.memory), 34.1e9, 1e-3), "%.6g",
                  model_states(&e.memory));
    }
    /* ZeRO-1 under DeepSpeed: 4 N + 16 N / G, what its ZeRO-2 estimator prints. */
    sc = llama8b_dp8(1, ENGINE_MEMCONV_DEEPSPEED);
    engine_estimate(&sc, &e);
    cr_assert(close_rel(model_states(&e.memory), 4 * n + 16 * n / 8, 1e-12));
}

/* Megatron-LM theoretical_memory_usage.py: 18 B per parameter, 6 + 12/d
 * with --use-distributed-optimizer (ZeRO-1); it has no ZeRO-2 or 3. */
Test(zero, megatron_bytes_per_parameter) {
    const double n = 8030261248.0;
    struct engine_estimate e;
    struct engine_scenario sc = llama8b_dp8(0, ENGINE_MEMCONV_MEGATRON);
    engine_estimate(&sc, &e);
    cr_assert(close_rel(model_states(&e.memory), 18 * n, 1e-12));
    sc.zero = 1;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(model_states(&e.memory), (6 + 12.0 / 8) * n, 1e-12));
    sc.zero = 2;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_CONVENTION);
    char buf[256];
    engine_invalid_text(NULL, &sc, ENGINE_INVALID_CONVENTION, buf, sizeof buf);
    cr_assert(strstr(buf, "--memory-convention megatron") && strstr(buf, "ZeRO-2"), "%s", buf);
}

/* DeepSpeed's worked examples (docs/code-docs/source/memory.rst, "Memory
 * Requirements"), per GPU in GiB as printed, through engine_zero_states
 * with DeepSpeed's own inputs (total and largest-layer parameters):
 *  - ZeRO-3, 2851M params, 32M largest layer, 1 node of 8 GPUs: 6.09 GB
 *    (no offload), 0.78 GB (offload_optimizer=cpu), 0.12 GB (params and
 *    optimizer offloaded: --offload nvme here); per CPU with zero.Init,
 *    1.5x buffer: 63.72 GB and 71.69 GB;
 *  - ZeRO-2, 2851M params, 8 GPUs: 15.93 GB (none; our ZeRO-1 figure, see
 *    engine/zero.c), 5.31 GB (offload_optimizer=cpu);
 *  - t5-large, 737.67M params, 32.90M largest layer, 4 GPUs: case 1 3291
 *    MB, case 2 125 MB, case 3 477 MB (MiB, >> 20). */
Test(zero, deepspeed_memory_rst_worked_examples) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.memory_convention = ENGINE_MEMCONV_DEEPSPEED;
    sc.dp = sc.gpus = 8;
    struct engine_memory m;
    const double n = 2851e6, llp = 32e6;
    struct {
        unsigned zero;
        enum engine_offload off;
        double gpu_gib, node_host_gib; /* node host x 1.5; < 0: not printed as such */
    } rows[] = {
        {3, ENGINE_OFFLOAD_NONE, 6.09, -1},   {3, ENGINE_OFFLOAD_CPU, 0.78, 63.72},
        {3, ENGINE_OFFLOAD_NVME, 0.12, 71.69}, {1, ENGINE_OFFLOAD_NONE, 15.93, -1},
        {2, ENGINE_OFFLOAD_CPU, 5.31, -1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        sc.zero = rows[i].zero;
        sc.offload = rows[i].off;
        engine_zero_states(&sc, n, llp, &m);
        double gib = model_states(&m) / GIB;
        cr_expect(fabs(gib - rows[i].gpu_gib) <= 0.005, "row %zu: %.4f GiB, want %.2f", i, gib,
                  rows[i].gpu_gib);
        if (rows[i].node_host_gib > 0) {
            double node = (m.host + m.nvme) * 8 * 1.5 / GIB;
            cr_expect(fabs(node - rows[i].node_host_gib) <= 0.005, "row %zu host %.4f, want %.2f",
                      i, node, rows[i].node_host_gib);
        }
    }
    /* t5-large on 4 GPUs, ZeRO-3. */
    sc.dp = sc.gpus = 4;
    sc.zero = 3;
    enum engine_offload offs[] = {ENGINE_OFFLOAD_NONE, ENGINE_OFFLOAD_NVME, ENGINE_OFFLOAD_CPU};
    double mib[] = {3291, 125, 477};
    for (int i = 0; i < 3; i++) {
        sc.offload = offs[i];
        /* The GPU's parameters before ZeRO: all of them (t = p = 1). */
        engine_zero_states(&sc, 737.67e6, 32.90e6, &m);
        cr_expect_eq(floor(model_states(&m) / 1048576.0), mib[i], "case %d: %.2f MiB", i + 1,
                     model_states(&m) / 1048576.0);
    }
}

/* ZeRO-Offload (Ren et al. 2021 §4.1): the 16-bit parameters stay on the
 * GPU, the gradients, master copy and Adam states (2 + 12 = 14 B) go to
 * the host: "from 16M to 2M" of GPU memory on one GPU; the traffic per step
 * is 2M gradients out and 2M parameters in (§4.2), here at PCIe 5.0 x16. */
Test(zero, zero_offload_paper_16m_to_2m) {
    const double n = 8030261248.0;
    struct engine_scenario sc = llama8b_dp8(2, ENGINE_MEMCONV_PAPER);
    sc.gpus = sc.dp = 1;
    sc.zero = 1; /* ZeRO-Offload on one GPU: the whole model is its partition */
    sc.offload = ENGINE_OFFLOAD_CPU;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0, "%#x", e.invalid);
    cr_assert(close_rel(model_states(&e.memory), 2 * n, 1e-12));
    cr_assert(close_rel(e.memory.host, 14 * n, 1e-12));
    cr_assert_eq(e.memory.nvme, 0);
    cr_assert(close_rel(e.train_offload_bytes_per_step, (2 * e.train_micro_batches + 2) * n, 1e-12));
    cr_assert(close_rel(e.host_link_bytes_per_s, 63.015e9, 1e-4), "%.6g", e.host_link_bytes_per_s);
    cr_assert(close_rel(e.train_offload_seconds, e.train_offload_bytes_per_step / 63.0154e9, 1e-4));
    /* --host-link-bw replaces the default; the predicted step grows by exactly that time. */
    struct engine_estimate f;
    sc.host_link_bytes_per_s = 32e9;
    engine_estimate(&sc, &f);
    cr_assert(close_rel(f.train_offload_seconds, f.train_offload_bytes_per_step / 32e9, 1e-12));
    cr_assert(close_rel(f.train_step_seconds - e.train_step_seconds,
                        f.train_offload_seconds - e.train_offload_seconds, 1e-9));
    /* ZeRO-Infinity (nvme) needs ZeRO-3; offload needs a ZeRO stage and full training. */
    sc.offload = ENGINE_OFFLOAD_NVME;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_OFFLOAD);
    sc.zero = 0;
    sc.offload = ENGINE_OFFLOAD_CPU;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_OFFLOAD);
    char buf[256];
    engine_invalid_text(NULL, &sc, ENGINE_INVALID_OFFLOAD, buf, sizeof buf);
    cr_assert(strstr(buf, "--zero"), "%s", buf);
    sc.zero = 1;
    sc.mode = ENGINE_MODE_LORA;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_OFFLOAD);
}

/* ZeRO-Infinity (Rajbhandari et al. 2021 §5): every model state on NVMe,
 * (2 + 2 + 12) / d; the paper's idealised GPU side is empty. DeepSpeed
 * keeps the gathered layer on the GPU (its "model-state working memory",
 * §3: the largest operator's 16-bit parameters and gradients, 4 B x its
 * parameters), the FP32 gradients pinned in host RAM (memory.rst, "Pinned
 * Memory") and the 16-bit parameters, master and Adam states on NVMe. */
Test(zero, zero_infinity_nvme) {
    const double n = 8030261248.0, llp = 128256.0 * 4096;
    struct engine_scenario sc = llama8b_dp8(3, ENGINE_MEMCONV_PAPER);
    sc.offload = ENGINE_OFFLOAD_NVME;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0, "%#x", e.invalid);
    cr_assert_eq(model_states(&e.memory), 0);
    cr_assert(close_rel(e.memory.nvme, 16 * n / 8, 1e-12));
    cr_assert_eq(e.memory.host, 0);
    sc.memory_convention = ENGINE_MEMCONV_DEEPSPEED;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(model_states(&e.memory), 4 * llp, 1e-12));
    cr_assert(close_rel(e.memory.zero3_working, 4 * llp, 1e-12));
    cr_assert(close_rel(e.memory.nvme, 14 * n / 8, 1e-12));
    cr_assert(close_rel(e.memory.host, 4 * n / 8, 1e-12));
    /* Per micro-batch: parameters in for the forward and the backward, gradients out. */
    cr_assert(close_rel(e.train_offload_bytes_per_step, 3 * 2 * n / 8 * e.train_micro_batches,
                        1e-12));
    cr_assert(close_rel(e.host_bytes_per_node, e.memory.host * 8, 1e-12));
}

/* Megatron-LM's theoretical_memory_usage.py (compute_weight_and_optimizer_memory,
 * the version that splits the parameters into TP-sharded, replicated and
 * expert-sharded ones): with the distributed optimizer each parameter costs
 * 6 + 12 / d bytes (BF16 weights, FP32 main gradients, FP32 main params and
 * Adam states sharded over its data-parallel group: vramlab's
 * adam-mixed-fp32-grads at ZeRO-1); the routed experts are divided by
 * etp * ep (etp = t by default) and their states shard over the expert
 * data-parallel group world / (etp * ep * p) = d / ep. Mixtral 8x7B
 * (mistralai/Mixtral-8x7B-v0.1 config.json) at t = p = 1, d = 8, EP 8:
 * non-expert 1,605,636,096 params x (6 + 12/8) + experts 45,097,156,608 / 8
 * x (6 + 12/1) = 113.5e9 bytes per GPU (issue 12: "against Megatron's
 * 113.5e9"); without EP it is 46.7e9 x 7.5 = 350e9 (the "today"). */
Test(training, megatron_expert_parallel_mixtral_113_5e9) {
    struct engine_scenario sc = th_scenario(th_mixtral_8x7b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.recipe = ENGINE_RECIPE_ADAM_MIXED_FP32_GRADS;
    sc.zero = 1;
    sc.gpus = sc.dp = 8;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    double states0 = e.memory.weights + e.memory.gradients + e.memory.master_weights +
                     e.memory.optimizer;
    cr_assert(close_rel(states0, 46702792704.0 * 7.5, 1e-12), "%.6g", states0);
    cr_assert(close_rel(states0, 350e9, 0.001), "%.6g", states0);
    cr_assert(close_rel(e.train_all_to_all_seconds, 0, 0));

    sc.ep = 8;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    /* Megatron's split, written out from the config: attention q, k, v, o;
     * two RMSNorms and the router per layer; embedding and untied head;
     * the final norm. */
    double h = 4096, L = 32, attn = 2 * h * h + 2 * h * 8 * 128;
    double other = L * (attn + 2 * h + 8 * h) + 2 * 32000 * h + h;
    double experts = L * 8 * 3 * h * 14336;
    cr_assert_eq(other + experts, 46702792704.0);
    double megatron = other * (6 + 12.0 / 8) + experts / 8 * (6 + 12.0 / 1);
    double states = e.memory.weights + e.memory.gradients + e.memory.master_weights +
                    e.memory.optimizer;
    cr_assert(close_rel(states, megatron, 1e-12), "%.10g, Megatron %.10g", states, megatron);
    cr_assert(close_rel(states, 113.5e9, 0.0005), "%.6g", states);
    /* Weights alone: BF16, experts / 8. */
    cr_assert(close_rel(e.memory.weights, (other + experts / 8) * 2, 1e-12));
}

/* The all-to-all of expert parallelism (Megatron-LM's all-to-all token
 * dispatcher): two forward (dispatch, combine) and two backward per MoE
 * layer and micro-batch, each GPU sending (ep-1)/ep of its s b k h 2 bytes
 * (nccl-tests' all-to-all bus bandwidth: algorithm bandwidth x (n-1)/n),
 * over NVLink (900 GB/s both ways: 450 one way) inside an 8-GPU node, over
 * the 50 GB/s network when t x ep spans nodes. Added to a predicted step,
 * never to a given MFU's. */
Test(training, expert_parallel_all_to_all) {
    struct engine_scenario sc = th_scenario(th_mixtral_8x7b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.zero = 1;
    sc.gpus = sc.dp = 8;
    sc.ep = 8;
    sc.micro_batches = 4;
    sc.context = 4096;
    sc.gpu.gpus_per_node = 8;
    sc.moe_imbalance = 1; /* balanced routing first */
    struct engine_estimate e, none;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    double bytes = 4096.0 * 1 * 2 * 4096 * 2; /* s b k h, 2 bytes */
    double one = 7.0 / 8 * bytes / 450e9 + 5e-6;
    cr_assert(close_rel(e.train_all_to_all_seconds, 4 * 32 * 4 * one, 1e-12), "%.6g",
              e.train_all_to_all_seconds);
    /* The default imbalance: the busiest rank receives 1.25x its share
     * (Switch Transformer's capacity factor). */
    sc.moe_imbalance = 0;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.train_all_to_all_seconds, 4 * 32 * 4 * (7.0 / 8 * bytes * 1.25 / 450e9 + 5e-6),
                        1e-12),
              "%.6g", e.train_all_to_all_seconds);
    sc.moe_imbalance = 1;
    sc.ep = 1;
    engine_estimate(&sc, &none);
    cr_assert_gt(e.train_step_seconds, none.train_step_seconds);
    /* t = 2: the EP group's 8 ranks are 2 apart (rank order tp-cp-ep-dp-pp),
     * 4 in each node of 8: 3/8 of what a rank sends stays on NVLink, 4/8
     * crosses the network, at once; each TP rank sends 1/t. */
    sc.ep = 8;
    sc.gpus = 16;
    sc.tp = 2;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    one = fmax(3.0 / 8 * bytes / 2 / 450e9, 4.0 / 8 * bytes / 2 / 50e9) + 5e-6;
    cr_assert(close_rel(e.train_all_to_all_seconds, 4 * 32 * 4 * one, 1e-12), "%.6g",
              e.train_all_to_all_seconds);
    /* A given MFU is end to end: the all-to-all is inside it. */
    double step = e.train_step_seconds;
    sc.mfu = 0.4;
    engine_estimate(&sc, &e);
    sc.ep = 1;
    engine_estimate(&sc, &none);
    cr_assert(close_rel(e.train_step_seconds, none.train_step_seconds, 1e-12));
    cr_assert(step > 0);
}

/* Bad expert-parallel layouts are invalid, each with its reason. */
Test(invalid, expert_parallel_layouts) {
    struct engine_scenario sc = th_scenario(th_mixtral_8x7b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = sc.dp = 8;
    struct engine_estimate e;
    char buf[320];
    sc.ep = 3; /* divides neither the 8 experts nor d = 8 */
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_EP);
    engine_invalid_text(NULL, &sc, ENGINE_INVALID_EP, buf, sizeof buf);
    cr_assert(strstr(buf, "--ep 3") && strstr(buf, "8 experts"), "%s", buf);
    sc.ep = 8;
    sc.gpus = sc.dp = 4; /* ep above d */
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_EP);
    engine_invalid_text(NULL, &sc, ENGINE_INVALID_EP, buf, sizeof buf);
    cr_assert(strstr(buf, "--ep 8") && strstr(buf, "--dp 4"), "%s", buf);
    sc = th_scenario(th_llama31_8b()); /* dense */
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = sc.dp = 2;
    sc.ep = 2;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_EP);
    engine_invalid_text(NULL, &sc, ENGINE_INVALID_EP, buf, sizeof buf);
    cr_assert(strstr(buf, "mixture-of-experts"), "%s", buf);
    /* The layout search rejects the d that ep does not divide. */
    sc = th_scenario(th_mixtral_8x7b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.ep = 4;
    struct engine_layout l[16];
    size_t n = engine_search_layouts(&sc, 8, l, 16);
    cr_assert_gt(n, 0);
    for (size_t i = 0; i < n && i < 16; i++)
        if (l[i].dp % 4)
            cr_assert_eq(l[i].reject, ENGINE_REJECT_EP, "t%u p%u d%u", l[i].tp, l[i].pp, l[i].dp);
        else
            cr_assert_neq(l[i].reject, ENGINE_REJECT_EP);
}

/* Korthikanti et al. 2022 §4.2.3: with the interleaved schedule of
 * Narayanan et al. 2021 the first stage holds L (1 + (p - 1) / (p v))
 * layers' activations instead of L, the factor Megatron-LM's
 * theoretical_memory_usage.py multiplies by (its in-flight micro-batches
 * ceil(penalty x p)). GPT-3 175B on the paper's Table 3 layout (t = 8,
 * p = 8, L = 96) with v = 2: 96 x (1 + 7/16) = 138 layers, 11.5
 * micro-batches of 12 layers (Megatron: ceil(1.4375 x 8) = 12 in flight). */
Test(activations, interleaved_schedule_first_stage) {
    struct engine_scenario sc = th_scenario(th_gpt3_175b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.context = 2048;
    sc.tp = 8;
    sc.pp = 8;
    sc.dp = 1;
    sc.gpus = 64;
    sc.sequence_parallel = true;
    sc.micro_batches = 64;
    struct engine_estimate plain, inter;
    engine_estimate(&sc, &plain);
    cr_assert_eq(plain.invalid, 0);
    cr_assert(close_rel(plain.act_layers_held, 96, 1e-12), "%.6g", plain.act_layers_held);
    sc.interleave = 2;
    engine_estimate(&sc, &inter);
    cr_assert_eq(inter.invalid, 0);
    cr_assert(close_rel(inter.act_layers_held, 96 * (1 + 7.0 / 16), 1e-12), "%.6g",
              inter.act_layers_held);
    cr_assert(close_rel(inter.act_layers_held, 138, 1e-12));
    cr_assert_eq(ceil(1.4375 * 8), 12);
    /* Stage 0 (no logits, selective recompute: no working set) grows by the factor. */
    cr_assert(close_rel(inter.memory.activations, plain.memory.activations * 1.4375, 1e-12),
                        "%.6g vs %.6g", inter.memory.activations, plain.memory.activations);
    /* v = 4: 1 + 7/32. */
    sc.interleave = 4;
    engine_estimate(&sc, &inter);
    cr_assert(close_rel(inter.act_layers_held, 96 * (1 + 7.0 / 32), 1e-12));
}

/* K/V projections replicated when t exceeds the KV heads (vLLM's
 * QKVParallelLinear: num_kv_head_replicas = t / kv; each rank keeps whole
 * heads). Llama 3.1 70B (8 KV heads of 128, h = 8192, 80 layers) at t = 16:
 * every rank holds one KV head where an even split would be half a head,
 * 80 x 2 x 8192 x 128 x 1/2 = 83,886,080 parameters more per GPU, with
 * their gradients and states in training; the K and V activations are one
 * head's (4 x 1/64 of s b h instead of 4 x 8/64 / 16). */
Test(training, kv_projections_replicated_beyond_kv_heads) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = sc.tp = 16;
    sc.context = 4096;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    double per_gpu = 70553706496.0 / 16 + 80.0 * 2 * 8192 * 128 * 0.5;
    cr_assert(close_rel(e.memory.weights, per_gpu * 2, 1e-12), "%.10g vs %.10g", e.memory.weights,
              per_gpu * 2);
    cr_assert(close_rel(e.memory.optimizer, per_gpu * 8, 1e-12));
    double sbh = 4096.0 * 8192, f = 28672;
    double want = sbh * (10 + (4 + 6 * f / 8192) / 16 + 4.0 / 64); /* selective */
    cr_assert(close_rel(e.act_per_layer_bytes, want, 1e-12), "%.6g vs %.6g",
              e.act_per_layer_bytes, want);
    /* At t = 8 the 8 heads split evenly: nothing replicated. */
    sc.gpus = sc.tp = 8;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.memory.weights, 70553706496.0 / 8 * 2, 1e-12));
}

/* One-state recipes: Lion keeps only the momentum (Chen et al. 2023,
 * "Symbolic Discovery of Optimization Algorithms" §2: more memory-efficient
 * than AdamW, which keeps two), so its optimizer state is half of Adam's:
 * 2 + 2 + 4 + 4 = 12 B per parameter; with FP32 gradients (Megatron-LM's
 * main_grad) 2 + 4 + 4 + 4 = 14. */
Test(training, lion_one_state) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    double n = 8030261248.0;
    struct engine_estimate adam, lion, lion32;
    engine_estimate(&sc, &adam);
    sc.recipe = ENGINE_RECIPE_LION;
    engine_estimate(&sc, &lion);
    sc.recipe = ENGINE_RECIPE_LION_FP32_GRADS;
    engine_estimate(&sc, &lion32);
    cr_assert_eq(adam.invalid | lion.invalid | lion32.invalid, 0);
    cr_assert(close_rel(lion.memory.optimizer, adam.memory.optimizer / 2, 1e-12));
    double s12 = lion.memory.weights + lion.memory.gradients + lion.memory.master_weights +
                 lion.memory.optimizer;
    double s14 = lion32.memory.weights + lion32.memory.gradients + lion32.memory.master_weights +
                 lion32.memory.optimizer;
    cr_assert(close_rel(s12, 12 * n, 1e-12), "%.6g", s12);
    cr_assert(close_rel(s14, 14 * n, 1e-12), "%.6g", s14);
    enum engine_recipe r;
    cr_assert_eq(engine_recipe_parse("lion", &r), 0);
    cr_assert_eq(r, ENGINE_RECIPE_LION);
    cr_assert_eq(engine_recipe_parse("lion-fp32-grads", &r), 0);
    cr_assert_eq(engine_recipe_parse("adafactor", &r), 0);
    cr_assert_eq(r, ENGINE_RECIPE_ADAFACTOR);
}

/* Adafactor (Shazeer and Stern 2018 §3; seed 002: optim="adafactor", "no
 * momentum"): the second moment of an n x m matrix is factored into n + m
 * floats instead of n m; vectors keep theirs whole. Llama 3.1 8B, per layer:
 * q 4096 + 4096, k and v 1024 + 4096 each, o 4096 + 4096, gate, up, down
 * 14336 + 4096 each, two norms 2 x 4096 = 90,112; x 32 layers; embedding
 * and head 128256 + 4096 each; final norm 4096: 3,152,384 FP32 floats =
 * 12,609,536 bytes, against Adam's 8 x 8.03e9 = 64.2e9. */
Test(training, adafactor_factored_second_moment) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.recipe = ENGINE_RECIPE_ADAFACTOR;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    double layer = (4096 + 4096) + 2 * (1024 + 4096) + (4096 + 4096) + 3 * (14336 + 4096) + 8192;
    cr_assert_eq(layer, 90112);
    double floats = 32 * layer + 2 * (128256 + 4096) + 4096;
    cr_assert_eq(floats, 3152384);
    cr_assert(close_rel(e.memory.optimizer, floats * 4, 1e-12), "%.10g", e.memory.optimizer);
    double n = 8030261248.0;
    cr_assert(close_rel(e.memory.weights + e.memory.gradients + e.memory.master_weights,
                        8 * n, 1e-12));
    /* ZeRO-1 over 8 replicas shards the factors with the rest; t = 2 halves them. */
    sc.zero = 1;
    sc.gpus = sc.dp = 8;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.memory.optimizer, floats * 4 / 8, 1e-12));
    /* LoRA rank 16 on q, k, v, o, gate, up, down: A is 16 x d_in, B d_out x 16,
     * factored 16 + d_in and d_out + 16: per layer 81,920 + 2 x 16 x 7. */
    sc.mode = ENGINE_MODE_LORA;
    sc.zero = 0;
    sc.gpus = sc.dp = 1;
    sc.lora_rank = 16;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    double dims = (4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096) + 3 * (4096 + 14336);
    cr_assert_eq(dims, 81920);
    cr_assert(close_rel(e.memory.optimizer, 4.0 * 32 * (dims + 2 * 16 * 7), 1e-12), "%.10g",
              e.memory.optimizer);
}

/* Full recompute with Megatron-LM's --recompute-method and
 * --recompute-num-layers N, on Korthikanti et al. 2022 Table 2's per-layer
 * figures (GPT-3 175B, s = 2048, b = 1, t = 8 with sequence parallelism):
 * a checkpoint keeps 2 s b h / t, a layer not recomputed s b h (34 + 5 a s
 * / h) / t, one re-run layer needs its 34 s b h / t (attention scores
 * recomputed, as flash attention does). Block N: the first N of the
 * stage's layers recomputed, the rest stored whole, and N / L of the
 * forward re-run (HFU); uniform N: ceil(L / N) checkpoints and N layers
 * re-run at once, every layer's forward re-run. */
Test(activations, recompute_num_layers_block_and_uniform) {
    struct engine_scenario sc = th_scenario(th_gpt3_175b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.context = 2048;
    sc.gpus = sc.tp = 8;
    sc.sequence_parallel = true;
    sc.recompute = ENGINE_RECOMPUTE_FULL;
    double sbh_t = 2048.0 * 12288 / 8, logits = 4.0 * 2048 * 50257 / 8;
    double ckpt = 2 * sbh_t, whole = sbh_t * (34 + 5 * 96 * 2048.0 / 12288), work = 34 * sbh_t;
    struct engine_estimate full, e;
    engine_estimate(&sc, &full);
    cr_assert_eq(full.invalid, 0);
    cr_assert(close_rel(full.memory.activations, 96 * ckpt + work + logits, 1e-12));
    sc.recompute_method = ENGINE_RECOMPUTE_BLOCK;
    sc.recompute_num_layers = 48;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    cr_assert(close_rel(e.memory.activations, 48 * ckpt + 48 * whole + work + logits, 1e-12),
              "%.6g", e.memory.activations);
    double again = full.train_hw_flops_per_token - full.train_flops_per_token;
    cr_assert(close_rel(e.train_hw_flops_per_token - e.train_flops_per_token, again / 2, 1e-12));
    /* Block over every layer is full recompute. */
    sc.recompute_num_layers = 96;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.memory.activations, full.memory.activations, 1e-12));
    cr_assert(close_rel(e.train_hw_flops_per_token, full.train_hw_flops_per_token, 1e-12));
    /* Uniform, groups of 4: 24 checkpoints, 4 layers re-run at once. */
    sc.recompute_method = ENGINE_RECOMPUTE_UNIFORM;
    sc.recompute_num_layers = 4;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.memory.activations, 24 * ckpt + 4 * work + logits, 1e-12));
    cr_assert(close_rel(e.train_hw_flops_per_token, full.train_hw_flops_per_token, 1e-12));
    /* The paper's Table 2 full-recompute figure per layer: 2 s b h (/ t with SP). */
    cr_assert(close_rel(full.act_per_layer_bytes, ckpt, 1e-12));
}

/* ---- a CPU as the device (issue 26, engine/core.c) ---------------------- */

/* A CPU device: read 30 GB/s, FMA peak 150 GFLOP/s, the 4-bit class's
 * GEMV at 20e9 weights/s (batch 1) and 3e9 (batch 16: 48e9 weight-vector
 * products a second), the 16-bit one at 8e9 (batch 1 only). Made-up rates
 * of the shape `vramlab measure --device cpu` gives. */
static struct engine_scenario core_scenario(void) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    struct engine_gpu *g = &sc.gpu;
    memset(g, 0, sizeof *g);
    snprintf(g->id, sizeof g->id, "cpu");
    snprintf(g->name, sizeof g->name, "CPU: test");
    g->memory_bytes = 64e9;
    g->bandwidth_bytes_per_s = 30e9;
    for (int c = 0; c < ENGINE_COMPUTE_COUNT; c++)
        g->flops[c] = 150e9;
    g->gpus_per_node = 1;
    g->cpu = true;
    g->core.threads = 8;
    g->core.batch[ENGINE_WIDTH_4][0] = 1;
    g->core.weights_per_s[ENGINE_WIDTH_4][0] = 20e9;
    g->core.batch[ENGINE_WIDTH_4][1] = 16;
    g->core.weights_per_s[ENGINE_WIDTH_4][1] = 3e9;
    snprintf(g->core.kernel[ENGINE_WIDTH_4], sizeof g->core.kernel[0], "w4a16");
    g->core.batch[ENGINE_WIDTH_16][0] = 1;
    g->core.weights_per_s[ENGINE_WIDTH_16][0] = 8e9;
    snprintf(g->core.kernel[ENGINE_WIDTH_16], sizeof g->core.kernel[0], "gemv-fp16");
    sc.weight_format.bits = 4.5; /* the 4-bit class */
    sc.weight_format.kind = ENGINE_FMT_BLOCK;
    sc.weight_format.block = 0;
    sc.context = 640;
    sc.prompt = 512;
    return sc;
}

/* The core-bound ceiling is its formula: the dotted weights (Llama 3.1 8B:
 * 8.03B active less the 128,256 x 4,096 untied embedding) over the class's
 * rate; decode takes the lowest ceiling; a GPU has none. */
Test(core, the_core_bound_is_weights_over_the_measured_rate) {
    struct engine_scenario sc = core_scenario();
    struct engine_estimate e, g;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    double w = e.params_active - 128256.0 * 4096;
    cr_assert(close_rel(e.decode_tokens_per_s_core_bound, 20e9 / w, 1e-12), "%.6g",
              e.decode_tokens_per_s_core_bound);
    cr_assert(close_rel(e.decode_tokens_per_s,
                        fmin(fmin(e.decode_tokens_per_s_memory_bound,
                                  e.decode_tokens_per_s_compute_bound),
                             e.decode_tokens_per_s_core_bound),
                        1e-12));
    cr_assert(engine_key_applies(&sc, ENGINE_KEY_DECODE_CORE_BOUND));
    struct engine_explanation x;
    engine_explain(&sc, &e, ENGINE_KEY_DECODE_CORE_BOUND, &x);
    cr_assert(strstr(x.values, "at 20.0B weights/s (w4a16, measured at batch 1, 8 threads)"), "%s",
              x.values);
    /* a GPU: no core-bound ceiling, the decode as before */
    struct engine_scenario gs = th_scenario(th_llama31_8b());
    engine_estimate(&gs, &g);
    cr_assert(isnan(g.decode_tokens_per_s_core_bound));
    cr_assert_not(engine_key_applies(&gs, ENGINE_KEY_DECODE_CORE_BOUND));
}

/* Properties: twice the rate, twice the ceiling; more sequences never
 * fewer tokens/s in all; a class not measured takes the nearest one; the
 * batch between two measured ones interpolates the step time. */
Test(core, properties_of_the_core_bound) {
    struct engine_scenario sc = core_scenario();
    struct engine_estimate a, b;
    engine_estimate(&sc, &a);
    sc.gpu.core.weights_per_s[ENGINE_WIDTH_4][0] *= 2;
    engine_estimate(&sc, &b);
    cr_assert(close_rel(b.decode_tokens_per_s_core_bound, 2 * a.decode_tokens_per_s_core_bound,
                        1e-12));
    sc = core_scenario();
    double prev = 0;
    for (uint32_t batch = 1; batch <= 64; batch *= 2) {
        sc.batch = batch;
        engine_estimate(&sc, &a);
        cr_assert_geq(a.decode_tokens_per_s_core_bound, prev * (1 - 1e-12), "batch %u", batch);
        prev = a.decode_tokens_per_s_core_bound;
    }
    /* batch 16: one pass of W at 3e9 weights/s serves 16 sequences */
    sc.batch = 16;
    engine_estimate(&sc, &a);
    double w = a.params_active - 128256.0 * 4096;
    cr_assert(close_rel(a.decode_tokens_per_s_core_bound, 16 * 3e9 / w, 1e-12));
    /* batch 4: the step time a quarter of the way from batch 1 to 16's
     * (w / 20e9 to w / 3e9, by (4 - 1) / 15) */
    sc.batch = 4;
    engine_estimate(&sc, &a);
    double s = w / 20e9 + (w / 3e9 - w / 20e9) * 3 / 15;
    cr_assert(close_rel(a.decode_tokens_per_s_core_bound, 4 / s, 1e-12));
    /* 8-bit weights: no 8-bit kernel measured, the nearest class (4-bit) */
    sc = core_scenario();
    sc.weight_format.bits = 8.5;
    engine_estimate(&sc, &a);
    cr_assert(close_rel(a.decode_tokens_per_s_core_bound, 20e9 / w, 1e-12));
    /* FP16 weights: the 16-bit class's own rate */
    sc.weight_format.bits = 16;
    engine_estimate(&sc, &a);
    cr_assert(close_rel(a.decode_tokens_per_s_core_bound, 8e9 / w, 1e-12));
}

/* A model file's tensors by width: the step is the sum of each class's
 * weights over its rate; prefill computes at the cores' rate at the
 * largest measured batch when below the FMA peak. */
Test(core, a_files_classes_and_the_prefill_rate) {
    struct engine_scenario sc = core_scenario();
    struct engine_estimate a, f;
    engine_estimate(&sc, &a);
    /* the same model as a file: 3/4 of its elements in 4-bit types, 1/4
     * in FP16 (the per-layer bytes only set the memory, not this) */
    sc.model.file_bytes = true;
    sc.model.file_params = a.params_total;
    sc.model.file_width_params[ENGINE_WIDTH_4] = 0.75 * a.params_total;
    sc.model.file_width_params[ENGINE_WIDTH_16] = 0.25 * a.params_total;
    sc.model.file_embed_params = 128256.0 * 4096;
    sc.model.file_layer_params = a.params_total - sc.model.file_embed_params;
    for (uint32_t l = 0; l < sc.model.layers; l++)
        sc.model.file_layer_bytes[l] = a.memory.weights / sc.model.layers;
    engine_estimate(&sc, &f);
    cr_assert_eq(f.invalid, 0);
    double wf = f.params_active - 128256.0 * 4096;
    cr_assert(close_rel(f.decode_tokens_per_s_core_bound, 1 / (0.75 * wf / 20e9 + 0.25 * wf / 8e9),
                        1e-12),
              "%.6g", f.decode_tokens_per_s_core_bound);
    /* prefill: 2 x 3e9 x 16 = 96 GFLOP/s, below the 150 GFLOP/s peak */
    sc = core_scenario();
    engine_estimate(&sc, &a);
    struct engine_scenario gpu = sc;
    gpu.gpu.cpu = false; /* the same rates without the cores: the FMA peak */
    struct engine_estimate g;
    engine_estimate(&gpu, &g);
    cr_assert(close_rel(a.serving.prefill_compute_s, g.serving.prefill_compute_s * 150.0 / 96.0,
                        1e-9),
              "%.6g vs %.6g", a.serving.prefill_compute_s, g.serving.prefill_compute_s);
    struct engine_explanation x;
    engine_explain(&sc, &a, ENGINE_KEY_PREFILL, &x);
    cr_assert(strstr(x.values, "the cores' measured dot rate 96.0 GFLOP/s"), "%s", x.values);
}
