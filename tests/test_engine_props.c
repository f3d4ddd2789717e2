/*
 * test_engine_props.c: properties that must hold for every scenario:
 * memory never falls as context, batch or model grows; per-GPU weights never
 * rise as t or p grow; ZeRO stage k+1 never uses more than stage k; fewer
 * bits never need more memory; more expert parallelism never more expert
 * memory per GPU; interleaving never holds fewer activations; recomputing
 * more layers never holds more.
 */
#include <criterion/criterion.h>
#include <criterion/theories.h>
#include <math.h>

#include "tests/helpers.h"

/* The models the properties run over. */
static struct engine_model model_of(int i) {
    switch (i) {
    case 0: return th_llama31_8b();
    case 1: return th_llama31_70b();
    case 2: return th_mixtral_8x7b();
    case 3: return th_deepseek_v3();
    case 4: return th_gpt3_175b();
    default: return th_pythia_1_4b();
    }
}

/* Estimate a scenario and require it valid. */
static struct engine_estimate est(const struct engine_scenario *sc) {
    struct engine_estimate e;
    engine_estimate(sc, &e);
    cr_assert_eq(e.invalid, 0, "invalid %#x", e.invalid);
    return e;
}

TheoryDataPoints(props, more_context_never_less_memory) = {
    DataPoints(int, 0, 1, 2, 3, 4, 5),
    DataPoints(int, 0, 1, 2, 3),
    DataPoints(unsigned, 1, 7, 512, 4096, 32768),
};

Theory((int mi, int mode, unsigned ctx), props, more_context_never_less_memory) {
    struct engine_scenario sc = th_scenario(model_of(mi));
    sc.mode = (enum engine_mode)mode;
    sc.context = ctx;
    struct engine_estimate a = est(&sc);
    sc.context = ctx * 2;
    struct engine_estimate b = est(&sc);
    cr_assert_geq(b.memory.total, a.memory.total, "ctx %u -> %u: %.6g -> %.6g", ctx, ctx * 2,
                  a.memory.total, b.memory.total);
    cr_assert_geq(b.memory.kv_cache, a.memory.kv_cache);
    cr_assert_geq(b.memory.activations, a.memory.activations);
}

TheoryDataPoints(props, more_batch_never_less_memory) = {
    DataPoints(int, 0, 1, 2, 3, 4, 5),
    DataPoints(int, 0, 1, 2, 3),
    DataPoints(unsigned, 1, 3, 16, 256),
};

Theory((int mi, int mode, unsigned b), props, more_batch_never_less_memory) {
    struct engine_scenario sc = th_scenario(model_of(mi));
    sc.mode = (enum engine_mode)mode;
    sc.batch = b;
    struct engine_estimate a = est(&sc);
    sc.batch = b + 1;
    struct engine_estimate c = est(&sc);
    cr_assert_geq(c.memory.total, a.memory.total);
}

TheoryDataPoints(props, bigger_model_never_less_memory) = {
    DataPoints(double, 1e8, 1e9, 7e9, 70e9, 405e9, 1e12),
    DataPoints(int, 0, 1, 2, 3),
};

Theory((double n, int mode), props, bigger_model_never_less_memory) {
    struct engine_model m1, m2;
    engine_model_from_size(&m1, n);
    engine_model_from_size(&m2, n * 1.5);
    struct engine_scenario a = th_scenario(m1), b = th_scenario(m2);
    a.mode = b.mode = (enum engine_mode)mode;
    struct engine_estimate ea = est(&a), eb = est(&b);
    cr_assert_geq(eb.memory.total, ea.memory.total, "%.3g -> %.3g", n, n * 1.5);
    cr_assert_geq(eb.memory.weights, ea.memory.weights);
}

TheoryDataPoints(props, more_tp_or_pp_never_more_weights_per_gpu) = {
    DataPoints(int, 0, 1, 2, 3, 4, 5),
    DataPoints(int, 0, 1, 2, 3),
    DataPoints(unsigned, 1, 2, 4),
};

Theory((int mi, int mode, unsigned k), props, more_tp_or_pp_never_more_weights_per_gpu) {
    struct engine_scenario sc = th_scenario(model_of(mi));
    sc.mode = (enum engine_mode)mode;
    sc.gpus_per_node = 64;
    cr_assume(sc.model.heads % (2 * k) == 0);
    sc.gpus = sc.tp = k;
    struct engine_estimate a = est(&sc);
    sc.gpus = sc.tp = 2 * k;
    struct engine_estimate b = est(&sc);
    cr_assert_leq(b.memory.weights, a.memory.weights, "tp %u -> %u", k, 2 * k);
    sc.gpus = sc.tp = 1;
    sc.pp = k;
    sc.gpus = k;
    a = est(&sc);
    sc.pp = 2 * k;
    sc.gpus = 2 * k;
    b = est(&sc);
    cr_assert_leq(b.memory.weights, a.memory.weights, "pp %u -> %u", k, 2 * k);
}

TheoryDataPoints(props, higher_zero_stage_never_more_memory) = {
    DataPoints(int, 0, 1, 2, 3, 4, 5),
    DataPoints(int, 1, 2, 3),
    DataPoints(unsigned, 2, 8, 64),
    DataPoints(int, 0, 1, 2, 3, 4, 5, 6, 7, 8),
};

Theory((int mi, int mode, unsigned d, int recipe), props, higher_zero_stage_never_more_memory) {
    struct engine_scenario sc = th_scenario(model_of(mi));
    sc.mode = (enum engine_mode)mode;
    sc.recipe = (enum engine_recipe)recipe;
    sc.gpus = sc.dp = d;
    for (unsigned z = 0; z < 3; z++) {
        sc.zero = z;
        struct engine_estimate a = est(&sc);
        sc.zero = z + 1;
        struct engine_estimate b = est(&sc);
        cr_assert_leq(b.memory.total, a.memory.total, "ZeRO %u -> %u", z, z + 1);
    }
}

TheoryDataPoints(props, fewer_bits_never_more_memory) = {
    DataPoints(int, 0, 1, 2, 3, 4, 5),
    DataPoints(double, 2, 3, 4, 5, 6, 8, 16),
};

Theory((int mi, double bits), props, fewer_bits_never_more_memory) {
    struct engine_scenario sc = th_scenario(model_of(mi));
    sc.weight_format = th_format("x", bits, 32, 16);
    struct engine_estimate a = est(&sc);
    sc.weight_format = th_format("y", bits * 2, 32, 16);
    struct engine_estimate b = est(&sc);
    cr_assert_leq(a.memory.total, b.memory.total);
    cr_assert_geq(a.decode_tokens_per_s_memory_bound, b.decode_tokens_per_s_memory_bound);
}

TheoryDataPoints(props, total_is_sum_of_parts) = {
    DataPoints(int, 0, 1, 2, 3, 4, 5),
    DataPoints(int, 0, 1, 2, 3),
    DataPoints(unsigned, 1, 4096, 131072),
};

/* Totals are the sum of their parts, and every part is non-negative. */
Theory((int mi, int mode, unsigned ctx), props, total_is_sum_of_parts) {
    struct engine_scenario sc = th_scenario(model_of(mi));
    sc.mode = (enum engine_mode)mode;
    sc.context = ctx;
    struct engine_estimate e = est(&sc);
    const struct engine_memory *m = &e.memory;
    double parts[] = {m->weights,        m->kv_cache,  m->activations, m->gradients,
                      m->master_weights, m->optimizer, m->reserve,     m->zero3_working};
    double sum = 0;
    for (int i = 0; i < 8; i++) {
        cr_assert_geq(parts[i], 0);
        sum += parts[i];
    }
    cr_assert_eq(sum, m->total);
    cr_assert_eq(e.fits, m->total <= e.capacity);
}


/* MFU (issue 12): a predicted MFU never exceeds the kernels' efficiency
 * (the bubble and communication only take away), HFU >= MFU, and a given
 * MFU is end to end: the step does not depend on the layout's bubble or
 * communication, only on model FLOPs / (G peak MFU). */
TheoryDataPoints(props, mfu_bounded_and_end_to_end) = {
    DataPoints(int, 0, 1, 4, 5),
    DataPoints(int, 1, 2, 3),
    DataPoints(unsigned, 1, 2, 4),
    DataPoints(unsigned, 1, 8),
};

Theory((int mi, int mode, unsigned pp, unsigned m), props, mfu_bounded_and_end_to_end) {
    struct engine_scenario sc = th_scenario(model_of(mi));
    sc.mode = (enum engine_mode)mode;
    sc.gpus = 8 * pp;
    sc.tp = 2;
    sc.pp = pp;
    sc.dp = 4;
    sc.micro_batches = m;
    sc.mfu = 0;
    struct engine_estimate e = est(&sc);
    cr_assert_leq(e.train_hfu, e.train_kernel_efficiency * (1 + 1e-12), "hfu %.6g", e.train_hfu);
    cr_assert_leq(e.train_mfu, e.train_hfu * (1 + 1e-12));
    cr_assert_gt(e.train_mfu, 0);
    sc.mfu = 0.4;
    struct engine_estimate a = est(&sc);
    double want = a.train_flops_per_token * a.train_tokens_per_step /
                  (sc.gpus * a.peak_flop_per_s * 0.4);
    cr_assert_float_eq(a.train_step_seconds, want, want * 1e-12);
    cr_assert_float_eq(a.train_mfu, 0.4, 1e-15);
}

/* ZeRO and offload (issue 12 item 4), every convention, recipe and model:
 *  - under ZeRO-3 more data-parallel GPUs never need more memory per GPU;
 *  - offload never raises the GPU's memory (cpu <= none, nvme <= cpu);
 *  - offload only moves states: GPU + host + NVMe states are at least the
 *    paper's partitioned (w + g + m + o) / d of the GPU's parameters;
 *  - the deepspeed convention never counts less than the paper's. */
static double gpu_states(const struct engine_memory *m) {
    return m->weights + m->gradients + m->master_weights + m->optimizer + m->zero3_working;
}

TheoryDataPoints(props, zero_and_offload) = {
    DataPoints(int, 0, 2, 3, 4),
    DataPoints(int, 0, 1, 2),
    DataPoints(int, 0, 1, 2, 3, 4, 5),
    DataPoints(unsigned, 1, 2, 8, 64),
};

Theory((int mi, int conv, int recipe, unsigned dp), props, zero_and_offload) {
    struct engine_scenario sc = th_scenario(model_of(mi));
    sc.mode = ENGINE_MODE_TRAIN;
    sc.recipe = (enum engine_recipe)recipe;
    sc.memory_convention = (enum engine_memory_convention)conv;
    sc.gpus = sc.dp = dp;
    sc.zero = conv == ENGINE_MEMCONV_MEGATRON ? 1 : 3;
    struct engine_estimate a = est(&sc);
    sc.gpus = sc.dp = dp * 2;
    struct engine_estimate b = est(&sc);
    cr_assert_leq(b.memory.total, a.memory.total, "dp %u -> %u: %.6g -> %.6g", dp, dp * 2,
                  a.memory.total, b.memory.total);
    sc.gpus = sc.dp = dp;
    if (conv != ENGINE_MEMCONV_MEGATRON) {
        struct engine_scenario p = sc;
        p.memory_convention = ENGINE_MEMCONV_PAPER;
        struct engine_estimate ep = est(&p);
        if (conv == ENGINE_MEMCONV_DEEPSPEED)
            cr_assert_geq(a.memory.total, ep.memory.total);
        const struct engine_recipe_info *r = engine_recipe_info(sc.recipe);
        double per = r->weights + r->grads + r->master + r->optimizer;
        double last = a.memory.total;
        for (int off = ENGINE_OFFLOAD_CPU; off <= ENGINE_OFFLOAD_NVME; off++) {
            sc.offload = (enum engine_offload)off;
            struct engine_estimate o = est(&sc);
            cr_assert_leq(o.memory.total, last * (1 + 1e-12), "offload %d raised %.6g -> %.6g",
                          off, last, o.memory.total);
            last = o.memory.total;
            double params = ep.memory.weights / r->weights * dp; /* the GPU's, before ZeRO-3 */
            cr_assert_geq((gpu_states(&o.memory) + o.memory.host + o.memory.nvme) * (1 + 1e-12),
                          params * per / dp, "offload %d lost states", off);
            cr_assert_geq(o.train_offload_bytes_per_step, 0);
        }
    }
}

/* More micro-batches never less offload traffic per step. */
TheoryDataPoints(props, offload_traffic_grows_with_micro_batches) = {
    DataPoints(int, 0, 1),
    DataPoints(unsigned, 1, 2, 16),
};

Theory((int off, unsigned m), props, offload_traffic_grows_with_micro_batches) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = sc.dp = 8;
    sc.zero = 3;
    sc.offload = off ? ENGINE_OFFLOAD_NVME : ENGINE_OFFLOAD_CPU;
    sc.micro_batches = m;
    struct engine_estimate a = est(&sc);
    sc.micro_batches = m + 1;
    struct engine_estimate b = est(&sc);
    cr_assert_gt(b.train_offload_bytes_per_step, a.train_offload_bytes_per_step);
    cr_assert_gt(b.train_offload_seconds, a.train_offload_seconds);
}

/* Expert parallelism (issue 12): more ep never more memory per GPU, nor
 * more of any training state, at every ZeRO stage; the all-to-all is 0
 * without it and positive with it. */
TheoryDataPoints(props, more_ep_never_more_expert_memory) = {
    DataPoints(int, 2, 3),
    DataPoints(int, 1, 2),
    DataPoints(unsigned, 0, 1, 2, 3),
    DataPoints(unsigned, 1, 2, 4),
};

Theory((int mi, int mode, unsigned z, unsigned ep), props, more_ep_never_more_expert_memory) {
    struct engine_scenario sc = th_scenario(model_of(mi));
    sc.mode = (enum engine_mode)mode;
    sc.zero = z;
    sc.gpus = sc.dp = 8;
    sc.ep = ep;
    struct engine_estimate a = est(&sc);
    sc.ep = 2 * ep;
    struct engine_estimate b = est(&sc);
    cr_assert_leq(b.memory.total, a.memory.total, "ep %u -> %u", ep, 2 * ep);
    cr_assert_leq(b.memory.weights, a.memory.weights);
    cr_assert_leq(b.memory.gradients, a.memory.gradients);
    cr_assert_leq(b.memory.master_weights, a.memory.master_weights);
    cr_assert_leq(b.memory.optimizer, a.memory.optimizer);
    cr_assert_gt(b.train_all_to_all_seconds, 0);
    cr_assert_eq(b.memory.activations, a.memory.activations);
    if (ep == 1)
        cr_assert_eq(a.train_all_to_all_seconds, 0);
}

/* Interleaving (v chunks) holds between 1 and 2 times the plain 1F1B
 * activations on the first stage, never fewer as v falls. */
TheoryDataPoints(props, interleave_holds_more_but_less_than_twice) = {
    DataPoints(int, 0, 4),
    DataPoints(unsigned, 2, 4, 8),
    DataPoints(unsigned, 1, 8, 64),
};

Theory((int mi, unsigned pp, unsigned m), props, interleave_holds_more_but_less_than_twice) {
    struct engine_scenario sc = th_scenario(model_of(mi));
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = sc.pp = pp;
    sc.micro_batches = m;
    struct engine_estimate plain = est(&sc);
    double prev = INFINITY;
    for (unsigned v = 2; v <= 4; v *= 2) {
        sc.interleave = v;
        struct engine_estimate e = est(&sc);
        cr_assert_geq(e.act_layers_held, plain.act_layers_held * (1 - 1e-12), "v %u", v);
        cr_assert_leq(e.act_layers_held, 2 * plain.act_layers_held * (1 + 1e-12), "v %u", v);
        cr_assert_leq(e.act_layers_held, prev * (1 + 1e-12));
        prev = e.act_layers_held;
    }
}

/* Replicated K/V projections: a GPU never holds less than its 1/t of the
 * whole, exactly 1/t where t divides the KV heads. */
TheoryDataPoints(props, kv_replication_never_below_an_even_split) = {
    DataPoints(int, 0, 1, 4),
    DataPoints(unsigned, 1, 2, 4, 8, 16, 32),
};

Theory((int mi, unsigned t), props, kv_replication_never_below_an_even_split) {
    struct engine_scenario sc = th_scenario(model_of(mi));
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus_per_node = 64;
    cr_assume(sc.model.heads % t == 0);
    sc.gpus = sc.tp = t;
    struct engine_estimate e = est(&sc);
    double even = e.params_total / t * 2;
    unsigned kv = sc.model.kv_heads ? sc.model.kv_heads : sc.model.heads;
    if (kv % t == 0)
        cr_assert_float_eq(e.memory.weights, even, even * 1e-12);
    else
        cr_assert_gt(e.memory.weights, even);
}

/* Full recompute, block method: recomputing more of a stage's layers never
 * holds more activations and never runs fewer hardware FLOPs. */
TheoryDataPoints(props, more_recomputed_layers_never_more_activations) = {
    DataPoints(int, 0, 1, 4, 5),
    DataPoints(unsigned, 1, 2),
    DataPoints(unsigned, 0, 1, 3, 8),
};

Theory((int mi, unsigned pp, unsigned n), props, more_recomputed_layers_never_more_activations) {
    struct engine_scenario sc = th_scenario(model_of(mi));
    sc.mode = ENGINE_MODE_TRAIN;
    sc.gpus = sc.pp = pp;
    sc.recompute = ENGINE_RECOMPUTE_FULL;
    sc.recompute_method = ENGINE_RECOMPUTE_BLOCK;
    sc.recompute_num_layers = n;
    cr_assume(n == 0 || n + 1 <= sc.model.layers);
    struct engine_estimate a = est(&sc);
    if (n == 0) {
        /* 0 is every layer: the most recompute. */
        sc.recompute_num_layers = 1;
        struct engine_estimate one = est(&sc);
        cr_assert_leq(a.memory.activations, one.memory.activations);
        return;
    }
    sc.recompute_num_layers = n + 1;
    struct engine_estimate b = est(&sc);
    cr_assert_leq(b.memory.activations, a.memory.activations, "N %u -> %u", n, n + 1);
    cr_assert_geq(b.train_hw_flops_per_token, a.train_hw_flops_per_token);
}

/* One-state and factored recipes never keep more optimizer state than Adam. */
TheoryDataPoints(props, lion_and_adafactor_never_above_adam) = {
    DataPoints(int, 0, 1, 2, 3, 4, 5),
    DataPoints(unsigned, 1, 2),
};

Theory((int mi, unsigned t), props, lion_and_adafactor_never_above_adam) {
    struct engine_scenario sc = th_scenario(model_of(mi));
    sc.mode = ENGINE_MODE_TRAIN;
    cr_assume(sc.model.heads % t == 0);
    sc.gpus = sc.tp = t;
    struct engine_estimate adam = est(&sc);
    sc.recipe = ENGINE_RECIPE_LION;
    struct engine_estimate lion = est(&sc);
    sc.recipe = ENGINE_RECIPE_ADAFACTOR;
    struct engine_estimate ada = est(&sc);
    cr_assert_leq(lion.memory.optimizer, adam.memory.optimizer);
    cr_assert_leq(ada.memory.optimizer, lion.memory.optimizer);
    cr_assert_gt(ada.memory.optimizer, 0);
}
