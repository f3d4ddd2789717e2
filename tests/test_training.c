/*
 * test_training.c: issue 25's training mechanisms, checked against their
 * sources by hand-computed figures: the component model of a layer's
 * activations (torchtitan's op checkpointing, Megatron-LM's recompute
 * modules), the peak convention's phases, FP8 training, context
 * parallelism, MoE training speed, the default token budgets. The measured
 * rows (torchtitan, Megatron-Bridge) are tests/golden/measured_training.tsv.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "tests/helpers.h"

static bool close_rel(double a, double b, double rel) {
    return fabs(a - b) <= rel * fabs(b);
}

/* Llama 3.1 8B trained as torchtitan's Table 1 (8 GPUs, FSDP, local batch
 * 2 of 8192). */
static struct engine_scenario tt_8b(void) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.weight_format = th_format("bf16", 16, 0, 0);
    sc.gpus = sc.dp = 8;
    sc.zero = 3;
    sc.batch = 2;
    sc.context = 8192;
    sc.recompute = ENGINE_RECOMPUTE_OP;
    sc.reserve_bytes = 0;
    return sc;
}

/* torchtitan's op policy (parallelize_llama.py: _save_list, every second
 * mm not kept) keeps per token of a Llama 3.1 8B layer its input (2h), wq's
 * output (2h), wv's (2 x 8 x 128), the attention's output (2h) and
 * log-sum-exp (4 x 32 heads, FP32, under the peak convention), w1's (2f)
 * and w2's (2h): 15.5 h + 2f... = 2 (4096 x 4 + 1024 + 14336) bytes. */
Test(activations, torchtitan_op_keeps_every_other_product) {
    struct engine_scenario sc = tt_8b();
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    double tok = 2.0 * 8192, h = 4096, f = 14336;
    double want = (2 * h + 2 * h + 2 * 8 * 128 + 2 * h + 2 * f + 2 * h) * tok;
    cr_assert(close_rel(e.act_per_layer_bytes, want, 1e-12), "%.8g vs %.8g", e.act_per_layer_bytes,
              want);
    /* The peak convention adds the FP32 log-sum-exp of the fused attention. */
    sc.memory_convention = ENGINE_MEMCONV_PEAK;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.act_per_layer_bytes, want + 4 * 32 * tok, 1e-12));
    /* Full keeps the input; none keeps more than op. */
    sc.recompute = ENGINE_RECOMPUTE_FULL;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.act_per_layer_bytes, 2 * h * tok, 1e-12));
    sc.recompute = ENGINE_RECOMPUTE_NONE;
    struct engine_estimate n;
    engine_estimate(&sc, &n);
    cr_assert_gt(n.act_per_layer_bytes, want * 1.5);
}

/* Megatron-LM's --recompute-modules (transformer_config.py): layernorm
 * drops both norms' outputs (2 x 2h), mlp the dense interior (3 x 2f for a
 * gated MLP), moe_act the experts' activation output (2 k f_e); the default
 * core_attn matches Korthikanti's selective (same bytes as before). */
Test(activations, megatron_recompute_modules) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    struct engine_estimate base, e;
    engine_estimate(&sc, &base);
    sc.recompute_modules = ENGINE_RECOMPUTE_CORE_ATTN;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(e.act_per_layer_bytes, base.act_per_layer_bytes, 1e-12));
    double tok = 4096, h = 4096, f = 14336;
    /* The component model without dropout masks: Korthikanti's 34 minus 2. */
    sc.memory_convention = ENGINE_MEMCONV_PEAK;
    sc.recompute_modules = ENGINE_RECOMPUTE_CORE_ATTN;
    engine_estimate(&sc, &base);
    sc.recompute_modules = ENGINE_RECOMPUTE_CORE_ATTN | ENGINE_RECOMPUTE_LAYERNORM;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(base.act_per_layer_bytes - e.act_per_layer_bytes, 4 * h * tok, 1e-12));
    sc.recompute_modules = ENGINE_RECOMPUTE_MLP;
    engine_estimate(&sc, &e);
    cr_assert(close_rel(base.act_per_layer_bytes - e.act_per_layer_bytes, 6 * f * tok, 1e-12));
    /* The hardware FLOPs grow by the MLP's forward: 2 x 3 h f per token and layer. */
    cr_assert(close_rel(e.train_hw_flops_per_token - e.train_flops_per_token,
                        32 * 2 * 3 * h * f, 1e-12));
    /* moe_act on Mixtral: k = 2 experts of f_e = 14336. */
    struct engine_scenario mx = th_scenario(th_mixtral_8x7b());
    mx.mode = ENGINE_MODE_TRAIN;
    mx.memory_convention = ENGINE_MEMCONV_PEAK;
    mx.recompute_modules = ENGINE_RECOMPUTE_CORE_ATTN;
    engine_estimate(&mx, &base);
    mx.recompute_modules = ENGINE_RECOMPUTE_MOE_ACT;
    engine_estimate(&mx, &e);
    cr_assert(close_rel(base.act_per_layer_bytes - e.act_per_layer_bytes, 2 * 2 * f * tok, 1e-12));
    /* Names round-trip; unknown ones are refused with their place. */
    uint32_t bits;
    const char *bad = NULL;
    cr_assert_eq(engine_recompute_modules_parse("core_attn,mlp,moe_act", &bits, &bad), 0);
    cr_assert_eq(bits, ENGINE_RECOMPUTE_CORE_ATTN | ENGINE_RECOMPUTE_MLP | ENGINE_RECOMPUTE_MOE_ACT);
    cr_assert_neq(engine_recompute_modules_parse("mlp,attn", &bits, &bad), 0);
    cr_assert_str_eq(bad, "attn");
}

/* The peak convention (engine/peak.c) on torchtitan's Table 1 scenario:
 * FSDP2's states 16 B / d (4 + 4 + 8), the peak at the loss's backward (12
 * B per token and vocabulary entry), the transient and allocator parts
 * adding up, the allocator 5% of what churns plus the freed 16-bit logits. */
Test(peak, torchtitan_8b_phases_add_up) {
    struct engine_scenario sc = tt_8b();
    sc.memory_convention = ENGINE_MEMCONV_PEAK;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    const double n = 8030261248.0;
    cr_assert_eq(e.memory.weights, 0);
    cr_assert(close_rel(e.memory.master_weights, 4 * n / 8, 1e-12));
    cr_assert(close_rel(e.memory.gradients, 4 * n / 8, 1e-12));
    cr_assert(close_rel(e.memory.optimizer, 8 * n / 8, 1e-12));
    cr_assert_eq(e.peak_phase, ENGINE_PEAK_LOSS_BACKWARD);
    double tok = 2.0 * 8192, v = 128256;
    cr_assert(close_rel(e.act_logits_bytes, 12 * tok * v, 1e-12));
    cr_assert(close_rel(e.memory.allocator,
                        0.05 * (e.memory.activations + e.memory.transient) + 2 * tok * v, 1e-12));
    double sum = e.memory.weights + e.memory.gradients + e.memory.master_weights +
                 e.memory.optimizer + e.memory.activations + e.memory.transient +
                 e.memory.allocator + e.memory.reserve;
    cr_assert(close_rel(e.memory.total, sum, 1e-12));
    /* torchtitan measured 77.0 GiB (Table 1, FSDP + torch.compile). */
    cr_assert(close_rel(e.memory.total / GIB, 77.0, 0.03), "%.4g GiB", e.memory.total / GIB);
    /* The idealised sum stays the paper convention's, well above: it holds
     * the logits once but every layer at Korthikanti's size. */
    struct engine_scenario paper = sc;
    paper.memory_convention = ENGINE_MEMCONV_PAPER;
    struct engine_estimate p;
    engine_estimate(&paper, &p);
    cr_assert_eq(p.peak_phase, ENGINE_PEAK_NONE);
    cr_assert_eq(p.memory.transient + p.memory.allocator, 0);
}

/* Without activations to speak of the optimizer step peaks (foreach Adam's
 * FP32 temporary under FSDP); with pipeline stages the first stage (no
 * loss) peaks in a layer's backward when it holds p micro-batches. */
Test(peak, optimizer_and_layer_phases) {
    struct engine_scenario sc = tt_8b();
    sc.memory_convention = ENGINE_MEMCONV_PEAK;
    sc.batch = 1;
    sc.context = 16;
    sc.gpus = sc.dp = 1;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    cr_assert_eq(e.peak_phase, ENGINE_PEAK_OPTIMIZER, "%d", e.peak_phase);
    cr_assert_eq(e.memory.activations, 0);
    cr_assert(close_rel(e.memory.transient, 4 * 8030261248.0, 1e-12));
    /* Megatron-LM (ZeRO-1, 4 stages, 16 micro-batches), 8K, the last stage
     * smaller than the first's four micro-batches of layers. */
    sc = tt_8b();
    sc.memory_convention = ENGINE_MEMCONV_PEAK;
    sc.zero = 1;
    sc.pp = 4;
    sc.dp = 2;
    sc.micro_batches = 16;
    sc.batch = 1;
    sc.recompute = ENGINE_RECOMPUTE_SELECTIVE;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    cr_assert_eq(e.peak_phase, ENGINE_PEAK_LAYER_BACKWARD, "%d", e.peak_phase);
    cr_assert(close_rel(e.act_layers_held, 8 * 4, 1e-12));
}

/* FP8 training (--format fp8 in --mode train): the layers' GEMMs at the
 * FP8 rate, the attention and head in BF16; two FP8 copies of the GEMM
 * weights; no FP8 on an A100 (a warning, BF16 rate); MXFP8 needs
 * block-scaled tensor cores (Blackwell: FP4 too). */
Test(fp8, gemms_at_the_fp8_rate_copies_and_warnings) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.weight_format = th_format("bf16", 16, 0, 0);
    sc.gpus = 64;
    sc.tp = 4;
    sc.pp = 8;
    sc.dp = 2;
    sc.micro_batches = 128;
    sc.sequence_parallel = true;
    sc.zero = 1;
    struct engine_estimate bf, f8;
    engine_estimate(&sc, &bf);
    struct engine_format fp8 = th_format("fp8", 8, 0, 0);
    fp8.compute = ENGINE_COMPUTE_FP8;
    sc.weight_format = fp8;
    engine_estimate(&sc, &f8);
    cr_assert_eq(bf.invalid | f8.invalid, 0);
    cr_assert(engine_train_fp8(&sc));
    /* Same model FLOPs, less time; not twice as fast (attention, head, casts). */
    cr_assert(close_rel(f8.train_flops_per_token, bf.train_flops_per_token, 1e-12));
    cr_assert_lt(f8.train_step_seconds, bf.train_step_seconds * 0.85);
    cr_assert_gt(f8.train_step_seconds, bf.train_step_seconds * 0.5);
    cr_assert_gt(f8.train_fp8_cast_seconds, 0);
    cr_assert_eq(bf.memory.fp8_weights, 0);
    /* 10 layers of 856M parameters over t = 4, 2 bytes (copy and transpose). */
    struct engine_model m = th_llama31_70b();
    double layer = engine_params_layer(&m, 0, false);
    cr_assert(close_rel(f8.memory.fp8_weights, 2.0 * 10 * layer / 4, 1e-12), "%.6g",
              f8.memory.fp8_weights);
    cr_assert_not(f8.warnings & ENGINE_WARN_NO_FORMAT_FLOPS);
    /* An A100 has no FP8: warned, and no faster than BF16 on it. */
    sc.gpu.flops[ENGINE_COMPUTE_FP8] = 0;
    engine_estimate(&sc, &f8);
    cr_assert(f8.warnings & ENGINE_WARN_NO_FORMAT_FLOPS);
    char buf[256];
    engine_warning_text(NULL, &sc, &f8, ENGINE_WARN_NO_FORMAT_FLOPS, buf, sizeof buf);
    cr_assert(strstr(buf, "FP8"), "%s", buf);
    cr_assert_gt(f8.train_step_seconds, bf.train_step_seconds);
    /* MXFP8 (blocks of 32 with an 8-bit scale: 8.25 bits) on an H100: no MX. */
    sc.gpu = th_h100_sxm();
    struct engine_format mx = th_format("mxfp8", 8, 32, 8);
    mx.compute = ENGINE_COMPUTE_FP8;
    sc.weight_format = mx;
    engine_estimate(&sc, &f8);
    cr_assert(engine_train_mxfp8(&sc));
    cr_assert(f8.warnings & ENGINE_WARN_NO_FORMAT_FLOPS);
    sc.gpu.flops[ENGINE_COMPUTE_FP4] = 3958e12; /* a GPU with block-scaled cores */
    engine_estimate(&sc, &f8);
    cr_assert_not(f8.warnings & ENGINE_WARN_NO_FORMAT_FLOPS);
}

/* Context parallelism: a GPU holds s / cp of each sequence (activations
 * and logits divided by cp), the states shard over dp x cp, the ring's K/V
 * exchange is what the attention does not hide; G = tp cp pp dp; the
 * context must split into 2 cp chunks; training only. */
Test(cp, activations_states_ring_and_validation) {
    struct engine_scenario sc = tt_8b();
    sc.recompute = ENGINE_RECOMPUTE_FULL;
    sc.batch = 1;
    sc.context = 65536;
    sc.gpus = 8;
    sc.dp = 8;
    struct engine_estimate one, two;
    engine_estimate(&sc, &one);
    sc.dp = 4;
    sc.cp = 2;
    engine_estimate(&sc, &two);
    cr_assert_eq(one.invalid | two.invalid, 0);
    cr_assert(close_rel(two.act_per_layer_bytes, one.act_per_layer_bytes / 2, 1e-12));
    cr_assert(close_rel(two.act_logits_bytes, one.act_logits_bytes / 2, 1e-12));
    /* States over dp x cp = 8 either way. */
    cr_assert(close_rel(two.memory.optimizer, one.memory.optimizer, 1e-12));
    cr_assert(close_rel(two.train_tokens_per_step, one.train_tokens_per_step / 2, 1e-12));
    cr_assert_geq(two.train_cp_comm_seconds, 0);
    cr_assert_eq(one.train_cp_comm_seconds, 0);
    /* A slow ring over the network is exposed. */
    sc.gpus_per_node = 1;
    sc.inter_node_bytes_per_s = 1e9;
    engine_estimate(&sc, &two);
    cr_assert_gt(two.train_cp_comm_seconds, 0);
    /* Invalid: the layout product, a context not split in 2 cp, inference. */
    sc = tt_8b();
    sc.cp = 2;
    engine_estimate(&sc, &two);
    cr_assert(two.invalid & ENGINE_INVALID_LAYOUT);
    sc.dp = 4;
    sc.context = 8190;
    engine_estimate(&sc, &two);
    cr_assert(two.invalid & ENGINE_INVALID_CP);
    sc.context = 8192;
    sc.mode = ENGINE_MODE_INFER;
    engine_estimate(&sc, &two);
    cr_assert(two.invalid & ENGINE_INVALID_CP);
    /* The search keeps --cp and lays out t, p, d over G / cp. */
    sc = tt_8b();
    sc.cp = 2;
    sc.dp = 4;
    struct engine_layout l[16];
    size_t n = engine_search_layouts(&sc, 8, l, 16);
    cr_assert_gt(n, 0);
    for (size_t i = 0; i < n && i < 16; i++)
        cr_assert_eq(l[i].tp * l[i].pp * l[i].dp * 2, 8);
}

/* MoE training speed: the all-to-all of an EP group spanning nodes goes in
 * part over the network (Qwen3-30B-A3B's EP 16 on two nodes of 8: half of
 * it), the busiest rank's imbalance scales it, and an expert with few
 * tokens is bound by its weights (the roofline), so moe_seconds grows as
 * the tokens per expert fall. */
Test(moe, all_to_all_tiers_imbalance_and_roofline) {
    struct engine_scenario sc = th_scenario(th_mixtral_8x7b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.zero = 1;
    sc.gpus = sc.dp = 16;
    sc.ep = 16 / 2; /* 8 experts: EP 8 inside a node */
    sc.moe_imbalance = 1;
    sc.micro_batches = 1;
    struct engine_estimate in, out;
    engine_estimate(&sc, &in);
    cr_assert_eq(in.invalid, 0);
    sc.gpus_per_node = 4; /* the same EP group over two nodes */
    engine_estimate(&sc, &out);
    cr_assert_gt(out.train_all_to_all_seconds, 3 * in.train_all_to_all_seconds);
    sc.gpus_per_node = 0;
    sc.moe_imbalance = 2;
    engine_estimate(&sc, &out);
    cr_assert(close_rel(out.train_all_to_all_seconds - 32 * 4 * 5e-6,
                        2 * (in.train_all_to_all_seconds - 32 * 4 * 5e-6), 1e-9));
    cr_assert_gt(out.train_moe_seconds, in.train_moe_seconds);
    /* Few tokens per expert (a short context): weight-bound experts. */
    sc.moe_imbalance = 1;
    sc.context = 64;
    engine_estimate(&sc, &out);
    struct engine_estimate big;
    sc.context = 4096;
    engine_estimate(&sc, &big);
    cr_assert_gt(out.train_moe_seconds / 64, big.train_moe_seconds / 4096);
    /* --moe-imbalance below 1 is invalid. */
    sc.moe_imbalance = 0.5;
    engine_estimate(&sc, &out);
    cr_assert(out.invalid & ENGINE_INVALID_MOE);
}

/* The default token budgets (issue 25 item 8): pre-training 20 per
 * parameter (Hoffmann et al. 2022), full fine-tuning a fine-tuning set as
 * LoRA's, given tokens as given. */
Test(training, default_token_budgets) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    cr_assert_eq(engine_training_tokens_source(&sc), ENGINE_TOKENS_CHINCHILLA);
    cr_assert(close_rel(engine_training_tokens(&sc, 8e9), 160e9, 1e-12));
    sc.fine_tune = true;
    cr_assert_eq(engine_training_tokens_source(&sc), ENGINE_TOKENS_FINE_TUNE);
    cr_assert(close_rel(engine_training_tokens(&sc, 8e9), ENGINE_FINE_TUNE_TOKENS, 1e-12));
    sc.fine_tune = false;
    sc.mode = ENGINE_MODE_LORA;
    cr_assert_eq(engine_training_tokens_source(&sc), ENGINE_TOKENS_FINE_TUNE);
    sc.training_tokens = 1e9;
    cr_assert_eq(engine_training_tokens_source(&sc), ENGINE_TOKENS_GIVEN);
    cr_assert(close_rel(engine_training_tokens(&sc, 8e9), 1e9, 1e-12));
}

/* Sliding-window layers attend to their window: the attention FLOPs use
 * the mean context per layer (gpt-oss: 128 on half the layers). */
Test(training, sliding_window_attention_flops) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    struct engine_estimate full, win;
    engine_estimate(&sc, &full);
    sc.model.sliding_window = 128;
    sc.model.sliding_layers = 16;
    engine_estimate(&sc, &win);
    double per_layer = 6.0 * 32 * 128 * 2; /* 6 a (d_qk + d_v) per key */
    double want = full.train_flops_per_token - 16 * per_layer * (4096 - 128);
    cr_assert(close_rel(win.train_flops_per_token, want, 1e-12), "%.8g vs %.8g",
              win.train_flops_per_token, want);
}
