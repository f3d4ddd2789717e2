/*
 * engine.c: scenario -> estimate, the orchestration: the shape, the working
 * values (struct engine_ctx), the fullest pipeline stage, then memory
 * (engine/memory.c), speed (engine/speed.c), training (engine/training.c)
 * and serving (engine/serving.c) figures, and the warnings; llama.cpp's
 * --fit and Ollama's layer search around it.
 *
 * All quantities in bytes, seconds, FLOP; memory is per GPU, for the most
 * loaded GPU (the pipeline stage whose total is largest). Sources:
 *  - weights N * bits_eff / 8, bits_eff = bits + scale/group (+ zero/group):
 *    seed 000 ("INT4 son en realidad 4.5 bits", 70B INT4 ~ 39 GB);
 *  - KV cache 2 * L * kv * d * ctx * batch * bytes (GQA-aware), MLA stores
 *    kv_lora + rope per token and layer (DeepSeek-V2 §2.1.2);
 *  - training states per parameter by recipe (ZeRO §3.1: 2+2+12 = 16 B;
 *    seed 000, 002, 003), divided by d under ZeRO stages 1/2/3;
 *  - activations per layer (Korthikanti et al. 2022, §4, eq. 1-2 and
 *    Table 2), generalised to GQA and gated MLPs (see act_per_layer); the
 *    interleaved schedule's first stage holds 1 + (p-1)/(p v) times more
 *    (§4.2.3); full recompute by Megatron-LM's uniform or block method with
 *    --recompute-num-layers;
 *  - expert parallelism as Megatron-LM's theoretical_memory_usage.py counts
 *    it (experts / (t ep), their states over d / ep), its all-to-all per
 *    MoE layer; Lion's one state, Adafactor's factored second moment
 *    (Shazeer and Stern 2018 §3); K/V projections replicated per TP rank
 *    where t exceeds the KV heads (vLLM's QKVParallelLinear);
 *  - decode ceiling BW / bytes read per step (seed 000: 3350 GB/s / 16 GB
 *    = 209 tokens/s), compute ceiling peak / FLOP per token, ridge peak/BW
 *    (seed 000: 989e12 / 3.35e12 = 295 FLOP/byte);
 *  - training model FLOPs 6 N + 12 L h s per token (PaLM appendix B;
 *    --flops-model 6n drops the attention term), recompute adding to the
 *    hardware FLOPs only (Korthikanti §5); a given MFU is end to end:
 *    step = model FLOPs / (G * peak * MFU), nothing added. Without one the
 *    MFU is predicted: hardware FLOPs at the kernel efficiency, stretched
 *    by the GPipe bubble (p-1)/(m+p-1) (Huang et al. 2019; interleaved
 *    (p-1)/(v m + p-1), Narayanan et al. 2021 §2.2), plus the TP
 *    all-reduces, the PP hand-offs and the part of the DP all-reduce the
 *    backward pass cannot hide; ring all-reduce 2 (n-1)/n * bytes / BW.
 * The function never allocates and never fails: invalid input sets bits in
 * est->invalid and leaves the figures NaN.
 */
#include <math.h>
#include <string.h>

#include "engine/internal.h"

/* Fill every figure with NaN (what does not apply or cannot be computed). */
static void fill_nan(struct engine_estimate *e) {
    double *fields[] = {
        &e->params_total,
        &e->params_active,
        &e->params_trainable,
        &e->bits_per_weight,
        &e->memory.weights,
        &e->memory.kv_cache,
        &e->memory.activations,
        &e->memory.gradients,
        &e->memory.master_weights,
        &e->memory.optimizer,
        &e->memory.reserve,
        &e->memory.total,
        &e->memory.overhead,
        &e->memory.host,
        &e->capacity,
        &e->spare_bytes,
        &e->memory_ratio,
        &e->decode_tokens_per_s,
        &e->decode_tokens_per_s_memory_bound,
        &e->decode_tokens_per_s_compute_bound,
        &e->decode_tokens_per_s_per_sequence,
        &e->decode_tokens_per_s_core_bound,
        &e->core_seconds_per_step,
        &e->decode_bytes_per_step,
        &e->decode_flops_per_token,
        &e->ridge_flop_per_byte,
        &e->arithmetic_intensity,
        &e->compute_bound_batch,
        &e->bandwidth_bytes_per_s,
        &e->peak_flop_per_s,
        &e->kv_bytes_per_token,
        &e->prefill_seconds,
        &e->act_per_layer_bytes,
        &e->act_layers_held,
        &e->act_logits_bytes,
        &e->train_flops_per_token,
        &e->train_hw_flops_per_token,
        &e->train_pp_comm_seconds,
        &e->train_kernel_efficiency,
        &e->train_mfu,
        &e->train_hfu,
        &e->train_tokens_per_step,
        &e->train_global_batch,
        &e->train_micro_batches,
        &e->train_tokens,
        &e->train_compute_seconds,
        &e->train_step_seconds,
        &e->train_bubble_fraction,
        &e->train_tp_comm_seconds,
        &e->train_dp_comm_seconds,
        &e->train_all_to_all_seconds,
        &e->train_days,
        &e->train_gpu_hours,
        &e->train_cost_usd,
        &e->train_cost_spot_usd,
        &e->train_energy_joules,
        &e->train_energy_joules_per_token,
        &e->decode_joules_per_token,
        &e->systems,
        &e->train_system_energy_joules,
        &e->decode_system_joules_per_token,
        &e->largest_layer_params,
        &e->train_offload_bytes_per_step,
        &e->train_offload_seconds,
        &e->host_link_bytes_per_s,
        &e->host_bytes_per_node,
        &e->memory.transient,
        &e->memory.allocator,
        &e->memory.fp8_weights,
        &e->train_tokens_per_s_per_gpu,
        &e->train_stage_imbalance,
        &e->train_cp_comm_seconds,
        &e->train_fp8_cast_seconds,
        &e->train_moe_seconds,
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        *fields[i] = NAN;
    double *v = (double *)&e->serving; /* a struct of doubles only */
    for (size_t i = 0; i < sizeof e->serving / sizeof(double); i++)
        v[i] = NAN;
}

/* The estimate of a scenario whose GPU layers are settled. */
static void estimate_core(const struct engine_scenario *sc, struct engine_estimate *e) {
    memset(e, 0, sizeof *e);
    fill_nan(e);
    struct engine_ctx c = {.sc = sc};
    engine_shape_of(&sc->model, &c.s);
    e->params_total = c.s.params_total;
    e->params_active = c.s.params_active;
    e->tp = sc->tp;
    e->pp = sc->pp;
    e->dp = sc->dp;
    e->gpus = sc->gpus;
    e->capacity = sc->gpu.memory_bytes;
    e->invalid = engine_validate(sc, &c.s);
    if (e->invalid) {
        e->fits = false;
        return;
    }
    const struct engine_model *m = &sc->model;
    c.t = sc->tp;
    c.p = sc->pp;
    c.d = sc->dp;
    c.b = sc->batch;
    c.ctx = sc->context;
    c.L = c.s.layers;
    c.training = sc->mode != ENGINE_MODE_INFER;
    c.lora = sc->mode == ENGINE_MODE_LORA || sc->mode == ENGINE_MODE_QLORA;
    c.rt = c.training ? ENGINE_RUNTIME_PLAIN : sc->serving.runtime;
    c.ep = c.training ? engine_ep(sc) : 1;
    c.cp = c.training ? engine_cp(sc) : 1;
    c.dz = c.d * c.cp;
    c.s_loc = c.ctx / c.cp;
    c.fp8 = engine_train_fp8(sc);
    c.mx = engine_train_mxfp8(sc);
    /* Partial offload (inference): the last Lg layers on the GPUs, the rest
     * in host RAM; the output layer goes to the GPU with the first
     * offloaded layer and llama.cpp keeps the token embedding in host RAM
     * (llama-model.cpp), plain and vLLM keep it on stage 0 unless a layer
     * stays behind in host RAM. */
    c.Lg = c.L;
    if (!c.training && sc->serving.gpu_layers_given)
        c.Lg = fmin(c.L, sc->serving.gpu_layers);
    c.first_gpu = c.L - c.Lg;
    c.cpu_moe = c.training ? 0 : sc->serving.cpu_moe_layers;
    bool ggml = c.rt == ENGINE_RUNTIME_LLAMACPP || c.rt == ENGINE_RUNTIME_OLLAMA;
    c.head_gpu = c.training || c.Lg >= 1;
    c.embed_gpu = c.training || (!ggml && c.Lg >= c.L);
    c.lps = c.Lg > 0 ? ceil(c.Lg / c.p) : 0;
    c.gpn =
        sc->gpus_per_node ? sc->gpus_per_node : (sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node : 1);
    c.bits_w = engine_format_bits(&sc->weight_format); /* QLoRA: the caller picks NF4 */
    c.bits_e = c.bits_w;
    if (!c.training && sc->serving.keep_embeddings_16bit && c.bits_w < 16)
        c.bits_e = 16;
    c.file = !c.training && m->file_bytes && m->has_arch;
    if (c.file) {
        /* The file's own bits: its layers' bytes over their parameters. */
        double lb = engine_file_layers_bytes(&c, 0, c.L);
        c.bits_w = m->file_layer_params > 0 ? lb * 8.0 / m->file_layer_params : c.bits_w;
        c.bits_e = c.bits_w;
        double moe_layers = c.L - c.s.dense_layers;
        if (c.s.moe && m->file_expert_params > 0 && moe_layers > 0) {
            c.expert_bpp = m->file_expert_bytes / m->file_expert_params;
            c.expert_layer_bytes = m->file_expert_bytes / moe_layers;
        }
    }
    c.bytes_kv = engine_format_bits(&sc->kv_format) / 8.0;
    double win = m->sliding_window, sl = m->sliding_layers ? m->sliding_layers : m->layers;
    if (win > 0 && win < c.ctx)
        c.kv_frac_ctx = ((c.L - sl) * c.ctx + sl * win) / c.L;
    else
        c.kv_frac_ctx = c.ctx;
    /* The KV cells each runtime allocates per layer for the batch: vLLM
     * whole blocks, llama.cpp n_ctx padded to 256 per sequence. */
    c.kv_tokens = c.kv_frac_ctx * c.b;
    bool paged = c.rt == ENGINE_RUNTIME_VLLM || c.rt == ENGINE_RUNTIME_SGLANG ||
                 c.rt == ENGINE_RUNTIME_TRTLLM;
    if (paged) {
        double bs = engine_runtime_block(sc);
        c.kv_tokens = c.b * ceil(c.kv_frac_ctx / bs) * bs;
    } else if (ggml)
        c.kv_tokens = c.b * ceil(c.kv_frac_ctx / 256.0) * 256.0;
    e->bits_per_weight =
        sc->mode == ENGINE_MODE_TRAIN ? engine_recipe_info(sc->recipe)->weights * 8.0 : c.bits_w;
    if (c.file && m->file_params > 0)
        e->bits_per_weight =
            (engine_file_layers_bytes(&c, 0, c.L) + m->file_embed_bytes + m->file_head_bytes) *
            8.0 / m->file_params;
    e->params_trainable = sc->mode == ENGINE_MODE_TRAIN ? e->params_total : 0;
    if (sc->mode == ENGINE_MODE_INFER)
        e->params_trainable = NAN;

    /* Most loaded GPU: compare every stage (p is at most the layer count). */
    double best = -1, best_stage = 0;
    struct engine_memory mem;
    struct engine_estimate scratch = *e;
    for (double i = 0; i < c.p; i++) {
        double tot = engine_stage_memory_peak(&c, i, &mem, &scratch);
        if (tot > best) {
            best = tot;
            best_stage = i;
        }
    }
    engine_stage_memory_peak(&c, best_stage, &e->memory, e);
    if (!c.training)
        e->memory.host = engine_host_bytes(&c, NULL, NULL);
    if (!c.training && c.first_gpu == 0 && c.cpu_moe == 0 && c.embed_gpu && !ggml)
        e->memory.host = 0;
    e->spare_bytes = e->capacity - e->memory.total;
    e->fits = e->memory.total <= e->capacity;
    e->memory_ratio = e->memory.total / e->capacity;

    bool fallback = false;
    enum engine_compute col = engine_compute_column(sc);
    e->peak_flop_per_s = engine_peak_flops(sc, col, &fallback);
    e->bandwidth_bytes_per_s = sc->gpu.bandwidth_bytes_per_s;
    if (engine_pos(sc->measured_bytes_per_s))
        e->bandwidth_bytes_per_s = sc->measured_bytes_per_s;
    if (engine_pos(sc->measured_flop_per_s))
        e->peak_flop_per_s = sc->measured_flop_per_s;
    e->ridge_flop_per_byte = e->peak_flop_per_s / e->bandwidth_bytes_per_s;
    if (!c.training)
        e->compute_bound_batch = e->ridge_flop_per_byte * c.bits_w / 8.0 / 2.0;
    e->kv_bytes_per_token =
        c.L * (c.s.mla ? c.s.kv_elems_per_token_layer : 2.0 * c.s.kv_heads * c.s.head_dim) *
        c.bytes_kv;

    if (c.training) {
        engine_estimate_training(&c, best_stage, e);
    } else {
        if (paged) /* the pool first: the steady state sizes its concurrency by it */
            engine_vllm_blocks(&c, best_stage, e);
        engine_estimate_decode(&c, best_stage, e);
        struct engine_serving_estimate *v = &e->serving;
        v->gpu_layers = c.Lg;
        v->host_layers = c.first_gpu;
        if (isnan(v->overhead_bytes))
            v->overhead_bytes = e->memory.overhead;
        if (ggml)
            v->context_padded = ceil(c.kv_frac_ctx / 256.0) * 256.0;
        if (m->has_arch && c.bits_e != c.bits_w)
            v->embed_16bit_bytes =
                (c.s.params_embed_in + c.s.params_head) * (c.bits_e - c.bits_w) / 8.0;
    }

    /* Warnings. */
    uint32_t w = 0;
    if (c.t > c.gpn)
        w |= ENGINE_WARN_TP_ACROSS_NODES;
    if (c.training && c.p > 1 && sc->micro_batches < 4 * sc->pp)
        w |= ENGINE_WARN_BUBBLE;
    if (m->max_context && sc->context > m->max_context)
        w |= ENGINE_WARN_CONTEXT_OVER_MAX;
    if (!m->has_arch)
        w |= ENGINE_WARN_DERIVED_SHAPE;
    if (!c.training && !c.s.mla && c.t > c.s.kv_heads)
        w |= ENGINE_WARN_KV_REPLICATED;
    if (fallback && !engine_pos(sc->measured_flop_per_s))
        w |= ENGINE_WARN_NO_FORMAT_FLOPS;
    /* FP8 training on a GPU without FP8 tensor cores (or MXFP8 without
     * block-scaled ones: Blackwell's, which also run FP4) runs in BF16. */
    if (c.fp8 && (!engine_pos(sc->gpu.flops[ENGINE_COMPUTE_FP8]) ||
                  (c.mx && !engine_pos(sc->gpu.flops[ENGINE_COMPUTE_FP4]))))
        w |= ENGINE_WARN_NO_FORMAT_FLOPS;
    if (!e->fits)
        w |= ENGINE_WARN_DOES_NOT_FIT;
    if (c.training && sc->zero > 0 && sc->dp == 1 && sc->offload == ENGINE_OFFLOAD_NONE)
        w |= ENGINE_WARN_ZERO_WITHOUT_DP;
    if (c.training && e->train_tp_comm_seconds + e->train_pp_comm_seconds +
                              e->train_dp_comm_seconds + e->train_all_to_all_seconds +
                              e->train_cp_comm_seconds >
                          e->train_step_seconds)
        w |= ENGINE_WARN_COMM_BOUND;
    if (c.training && !isfinite(e->train_cost_usd))
        w |= ENGINE_WARN_NO_PRICE;
    if (engine_pos(sc->measured_bytes_per_s) || engine_pos(sc->measured_flop_per_s))
        w |= ENGINE_WARN_CALIBRATED;
    if (!c.training && c.s.moe && sc->batch > 1)
        w |= ENGINE_WARN_MOE_ROUTING;
    if (m->layers % sc->pp)
        w |= ENGINE_WARN_UNEVEN_STAGES;
    if (paged && e->serving.kv_blocks_needed > e->serving.kv_blocks)
        w |= ENGINE_WARN_KV_POOL_SHORT;
    if (paged && e->serving.runtime_refuses > 0)
        w |= ENGINE_WARN_RUNTIME_REFUSES;
    if (!c.training && m->native_context && sc->context > m->native_context)
        w |= ENGINE_WARN_CONTEXT_OVER_NATIVE;
    if (!c.training && (c.first_gpu > 0 || c.cpu_moe > 0 || !c.head_gpu)) {
        w |= ENGINE_WARN_OFFLOADED;
        if (!(sc->serving.host_bytes_per_s > 0))
            w |= ENGINE_WARN_HOST_BW_ASSUMED;
    }
    e->warnings = w;
}

/* Whether the runtime picks the GPU layers itself: llama.cpp with --fit and
 * no -ngl, Ollama unless num_gpu is set (not on unified memory, where host
 * RAM is the GPU's). */
static bool fits_layers_itself(const struct engine_scenario *sc) {
    enum engine_runtime r = sc->serving.runtime;
    return sc->mode == ENGINE_MODE_INFER && !sc->serving.gpu_layers_given &&
           !sc->gpu.unified_memory &&
           ((r == ENGINE_RUNTIME_LLAMACPP && sc->serving.fit) || r == ENGINE_RUNTIME_OLLAMA);
}

/* The whole estimate: llama.cpp's --fit and Ollama's scheduler put as many
 * layers on the GPUs as fit (common/fit.cpp, llm/memory.go), all of them
 * when they can; memory rises with the layers, so a binary search. */
void engine_estimate(const struct engine_scenario *given, struct engine_estimate *e) {
    /* A global batch sets the micro-batches (gradient accumulation) of
     * this layout: global / (micro-batch size x dp). */
    struct engine_scenario derived;
    const struct engine_scenario *sc = given;
    if (given->mode != ENGINE_MODE_INFER && given->global_batch) {
        derived = *given;
        derived.micro_batches = engine_micro_batches(given);
        sc = &derived;
    }
    /* A llama.cpp mix (Q4_K_M...) in inference: the model's bytes as
     * llama-quantize lays them out, tensor by tensor (engine/gguf_mix.c),
     * as a model file of that type would give them. */
    if (given->mode == ENGINE_MODE_INFER && given->weight_format.mix != ENGINE_MIX_NONE &&
        !given->model.file_bytes) {
        derived = *given;
        if (engine_gguf_mix_model(&given->model, given->weight_format.mix, &derived.model))
            sc = &derived;
    }
    if (!fits_layers_itself(sc)) {
        estimate_core(sc, e);
        return;
    }
    struct engine_scenario r = *sc;
    uint32_t L = sc->model.layers, lo = sc->pp > 1 ? sc->pp : 0, hi = L;
    r.serving.gpu_layers = (int32_t)L;
    r.serving.gpu_layers_given = true;
    estimate_core(&r, e);
    if (e->invalid || e->fits || L == 0) {
        e->gpu_layers_fitted = !e->invalid;
        return;
    }
    r.serving.gpu_layers = (int32_t)lo;
    estimate_core(&r, e);
    if (!e->invalid && e->fits) {
        /* Largest n in [lo, L) that fits; lo fits. */
        while (lo + 1 < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            r.serving.gpu_layers = (int32_t)mid;
            estimate_core(&r, e);
            if (!e->invalid && e->fits)
                lo = mid;
            else
                hi = mid;
        }
        r.serving.gpu_layers = (int32_t)lo;
        estimate_core(&r, e);
    }
    e->gpu_layers_fitted = !e->invalid;
}
