/*
 * warnings.c: the text of each warning and each invalid-input bit, with
 * the scenario's numbers (engine_warning_text, engine_invalid_text), in
 * the reader's language and units: each text is a template marked XT (an
 * English msgid for xgettext, po/POTFILES.in) translated through the
 * numfmt's translate, its numbers written by the one formatter (xp_num,
 * explain_internal.h), as the explanations are. Structural integers (TP=8,
 * 80 layers, ZeRO-3) and a flag's value the reader may type back
 * (--prompt 8192, --max-model-len 43136) print with %u or %.0f; figures
 * with separators (XINT: a context of 131,072 tokens).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/explain_internal.h"

/* Gigabytes as a figure: the formatter's unit (GB or GiB) for a value in
 * bytes. */
#define XGB(v) XBYTES(v)

/* Text of one warning. */
void engine_warning_text(const struct engine_numfmt *f, const struct engine_scenario *sc,
                         const struct engine_estimate *e, enum engine_warning w, char *buf,
                         size_t n) {
    struct xp xs, *x = &xs;
    struct engine_numfmt en;
    xp_begin(x, &en, f, sc, e, buf, n);
    uint32_t gpn =
        sc->gpus_per_node ? sc->gpus_per_node : (sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node : 1);
    const char *model = sc->model.name[0] ? sc->model.name : sc->model.id;
    switch (w) {
    case ENGINE_WARN_TP_ACROSS_NODES:
        xp_set(x, XT("TP=%u spans nodes of %u GPUs: its all-reduces leave the node's fast links"),
               sc->tp, gpn);
        break;
    case ENGINE_WARN_BUBBLE:
        xp_set(x,
               XT("pipeline bubble %s: %u micro-batches on %u stages; use at least 4 x p = %u "
                  "micro-batches (GPipe), a global batch of %s sequences at this micro-batch "
                  "size and dp"),
               XPCT(e->train_bubble_fraction), engine_micro_batches(sc), sc->pp, 4 * sc->pp,
               XINT(4.0 * sc->pp * sc->batch * sc->dp));
        break;
    case ENGINE_WARN_CONTEXT_OVER_MAX:
        xp_set(x, XT("context %s exceeds the model's maximum %s"), XINT(sc->context),
               XINT(sc->model.max_context));
        break;
    case ENGINE_WARN_DERIVED_SHAPE:
        xp_set(x,
               XT("shape derived from the size: h=%u, L=%u, %u heads, %u KV heads (KV and "
                  "activations approximate)"),
               sc->model.hidden, sc->model.layers, sc->model.heads,
               sc->model.kv_heads ? sc->model.kv_heads : sc->model.heads);
        break;
    case ENGINE_WARN_KV_REPLICATED:
        xp_set(x, XT("TP=%u exceeds the %u KV heads: each GPU keeps a full KV head"), sc->tp,
               sc->model.kv_heads);
        break;
    case ENGINE_WARN_NO_FORMAT_FLOPS:
        if (engine_train_mxfp8(sc) && sc->gpu.flops[ENGINE_COMPUTE_FP8] > 0)
            xp_set(x,
                   XT("%s has no block-scaled (MX) tensor cores: MXFP8 training needs "
                      "Blackwell; its GEMMs counted at BF16"),
                   sc->gpu.name);
        else if (engine_train_fp8(sc))
            xp_set(x,
                   XT("%s has no FP8 tensor cores (Transformer Engine refuses FP8 there): the "
                      "GEMMs counted at BF16"),
                   sc->gpu.name);
        else
            xp_set(x, XT("%s has no %s figure: FP16 FLOP/s used"), sc->gpu.name,
                   engine_compute_name(engine_compute_column(sc)));
        break;
    case ENGINE_WARN_DOES_NOT_FIT:
        xp_set(x, XT("needs %s the memory of one GPU (%s short)"), xp_num(x, ENGINE_UNIT_RATIO,
                                                                       e->memory_ratio),
               XGB(-e->spare_bytes));
        break;
    case ENGINE_WARN_ZERO_WITHOUT_DP:
        xp_set(x, XT("ZeRO-%u has no effect with DP=1"), sc->zero);
        break;
    case ENGINE_WARN_COMM_BOUND:
        xp_set(x, XT("communication (%s) exceeds compute (%s) per step"),
               XSECS(e->train_tp_comm_seconds + e->train_pp_comm_seconds +
                     e->train_dp_comm_seconds),
               XSECS(e->train_step_seconds));
        break;
    case ENGINE_WARN_NO_PRICE:
        xp_set(x, XT("no price for %s: pass --price to get a cost"), sc->gpu.name);
        break;
    case ENGINE_WARN_CALIBRATED:
        /* name only what was measured: the other figure is the data sheet's */
        if (sc->measured_bytes_per_s > 0 && sc->measured_flop_per_s > 0)
            xp_set(x, XT("calibrated: measured %s and %s replace the data sheet"),
                   XBW(e->bandwidth_bytes_per_s), XFLOPS(e->peak_flop_per_s));
        else if (sc->measured_bytes_per_s > 0)
            xp_set(x, XT("calibrated: measured %s replaces the data-sheet bandwidth"),
                   XBW(e->bandwidth_bytes_per_s));
        else
            xp_set(x, XT("calibrated: measured %s replace the data-sheet FLOP/s"),
                   XFLOPS(e->peak_flop_per_s));
        break;
    case ENGINE_WARN_MOE_ROUTING:
        xp_set(x,
               XT("MoE at batch %u: a step reads the experts any sequence routes to, not just "
                  "%u"),
               sc->batch, sc->model.active_experts);
        break;
    case ENGINE_WARN_UNEVEN_STAGES:
        xp_set(x,
               XT("pp=%u does not divide the %u layers: the fullest stage holds %u (Llama 3.1 "
                  "405B ran 126 layers on 16 stages)"),
               sc->pp, sc->model.layers, (sc->model.layers + sc->pp - 1) / sc->pp);
        break;
    case ENGINE_WARN_KV_POOL_SHORT:
        xp_set(x,
               XT("vLLM: %s sequences of %s tokens need %s KV blocks, the cache has %s (at most "
                  "%s such sequences at once): more concurrency runs out of KV cache"),
               XINT(sc->batch), XINT(sc->context), XINT(e->serving.kv_blocks_needed),
               XINT(e->serving.kv_blocks),
               XINT(floor(e->serving.kv_blocks /
                          ceil((double)sc->context / sc->serving.block_size))));
        break;
    case ENGINE_WARN_RUNTIME_REFUSES: {
        char who[48];
        engine_runtime_profile_name(&sc->serving, who, sizeof who);
        const struct engine_serving_estimate *v = &e->serving;
        /* the runtimes' own messages are quoted as they print them */
        if (sc->serving.runtime == ENGINE_RUNTIME_SGLANG)
            xp_set(x,
                   XT("%s would refuse to start: no memory left for the KV cache (%s "
                      "requested, weights %s); SGLang: \"Not enough memory. Please try to "
                      "increase --mem-fraction-static.\""),
                   who, XGB(v->requested_bytes), XGB(e->memory.weights));
        else if (sc->serving.runtime != ENGINE_RUNTIME_VLLM)
            xp_set(x,
                   XT("%s would refuse to start: no memory left for the KV cache (%s "
                      "requested, weights %s); raise --free-gpu-memory-fraction or use more "
                      "GPUs"),
                   who, XGB(v->requested_bytes), XGB(e->memory.weights));
        else if (v->available_kv_bytes <= 0)
            xp_set(x,
                   XT("%s would refuse to start: weights %s + runtime buffers %s exceed the %s "
                      "requested; vLLM: \"No available memory for the cache blocks. Try "
                      "increasing `gpu_memory_utilization` when initializing the engine.\""),
                   who, XGB(e->memory.weights), XGB(e->memory.overhead), XGB(v->requested_bytes));
        else
            xp_set(x,
                   XT("%s would refuse to start: one request of max_model_len %s needs %s of KV "
                      "cache, more than the %s available; the largest --max-model-len that fits "
                      "is %.0f; vLLM: \"Try increasing `gpu_memory_utilization` or decreasing "
                      "`max_model_len` when initializing the engine.\""),
                   who, XINT(v->max_model_len),
                   XGB(ceil(v->max_model_len / engine_runtime_block(sc)) *
                       engine_runtime_block(sc) * e->kv_bytes_per_token / sc->tp / sc->pp),
                   XGB(v->available_kv_bytes), v->max_model_len_that_fits);
        break;
    }
    case ENGINE_WARN_CONTEXT_OVER_NATIVE:
        xp_set(x,
               XT("context %s exceeds the %s tokens %s had before rope scaling (%s, factor %s) "
                  "extended it to %s: past its native length the positions are interpolated"),
               XINT(sc->context), XINT(sc->model.native_context), model,
               sc->model.rope_scaling[0] ? sc->model.rope_scaling : "rope",
               XPLAIN(sc->model.rope_factor), XINT(sc->model.max_context));
        break;
    case ENGINE_WARN_OFFLOADED:
        xp_set(x,
               sc->serving.cpu_moe_layers
                   ? XT("%s of %u layers in host RAM (and the experts of --n-cpu-moe layers): "
                        "each token reads %s there at %s (%s of %s per step)")
                   : XT("%s of %u layers in host RAM: each token reads %s there at %s (%s of %s "
                        "per step)"),
               XINT(e->serving.host_layers), sc->model.layers, XGB(e->serving.decode_host_bytes),
               XBW(e->serving.host_bytes_per_s), XSECS(e->serving.decode_host_s),
               XSECS(e->serving.tpot_s));
        break;
    case ENGINE_WARN_HOST_BW_ASSUMED:
        xp_set(x,
               XT("host bandwidth assumed %s (dual-channel DDR5): give --host-bandwidth or "
                  "--host-cpu ID, or measure it (Measure pane)"),
               XBW(ENGINE_DEFAULT_HOST_BW));
        break;
    default:
        xp_set(x, "%s", XT("unknown warning"));
    }
}

/* Text of one invalid-input bit. */
void engine_invalid_text(const struct engine_numfmt *f, const struct engine_scenario *sc,
                         uint32_t bit, char *buf, size_t n) {
    struct xp xs, *x = &xs;
    struct engine_numfmt en;
    xp_begin(x, &en, f, sc, NULL, buf, n);
    switch (bit) {
    case ENGINE_INVALID_LAYOUT:
        if (engine_cp(sc) > 1)
            xp_set(x, XT("tp x cp x pp x dp = %u x %u x %u x %u = %s, not the %u GPUs"), sc->tp,
                   engine_cp(sc), sc->pp, sc->dp,
                   XINT((double)sc->tp * engine_cp(sc) * sc->pp * sc->dp), sc->gpus);
        else
            xp_set(x, XT("tp x pp x dp = %u x %u x %u = %s, not the %u GPUs"), sc->tp, sc->pp,
                   sc->dp, XINT((double)sc->tp * sc->pp * sc->dp), sc->gpus);
        break;
    case ENGINE_INVALID_TP_HEADS:
        xp_set(x, XT("tp=%u does not divide the %u attention heads"), sc->tp, sc->model.heads);
        break;
    case ENGINE_INVALID_PP_LAYERS:
        xp_set(x, XT("pp=%u exceeds the %u layers"), sc->pp, sc->model.layers);
        break;
    case ENGINE_INVALID_ZERO:
        xp_set(x, XT("ZeRO stage %u does not exist (0..3)"), sc->zero);
        break;
    case ENGINE_INVALID_SIZE:
        xp_set(x, "%s", XT("the model has no size (zero or negative parameters or shape)"));
        break;
    case ENGINE_INVALID_GPU:
        xp_set(x, "%s", XT("the GPU needs positive memory, bandwidth and FP16 FLOP/s"));
        break;
    case ENGINE_INVALID_WORKLOAD:
        xp_set(x, "%s",
               XT("gpus, batch, context, tp, pp, dp and micro-batches must be at least 1"));
        break;
    case ENGINE_INVALID_FORMAT:
        xp_set(x, "%s", XT("the weight or KV format has no bits"));
        break;
    case ENGINE_INVALID_EFFICIENCY:
        xp_set(x, "%s", XT("efficiencies and MFU must be in (0, 1]"));
        break;
    case ENGINE_INVALID_PROMPT:
        xp_set(x, XT("--prompt %u is longer than --context %u (the context holds the prompt)"),
               sc->prompt, sc->context);
        break;
    case ENGINE_INVALID_BATCH:
        xp_set(x,
               XT("--global-batch %u sequences is not a multiple of --micro-batch-size %u x --dp "
                  "%u = %s (gradient accumulation = global / (micro x dp) must be whole)"),
               sc->global_batch, sc->batch, sc->dp, XINT((double)sc->batch * sc->dp));
        break;
    case ENGINE_INVALID_OFFLOAD:
        if (sc->mode != ENGINE_MODE_TRAIN)
            xp_set(x,
                   XT("--offload %s needs --mode train (ZeRO-Offload moves full training's "
                      "states)"),
                   engine_offload_name(sc->offload));
        else if (sc->memory_convention == ENGINE_MEMCONV_MEGATRON)
            xp_set(x,
                   XT("--offload %s is DeepSpeed's (ZeRO-Offload): give --memory-convention "
                      "paper or deepspeed, not megatron"),
                   engine_offload_name(sc->offload));
        else if (sc->zero == 0)
            xp_set(x,
                   XT("--offload %s needs --zero 1, 2 or 3 (ZeRO-Offload partitions the "
                      "offloaded states over --dp)"),
                   engine_offload_name(sc->offload));
        else if (sc->offload == ENGINE_OFFLOAD_NVME && sc->zero < 3)
            xp_set(x,
                   XT("--offload nvme needs --zero 3 (ZeRO-Infinity offloads the parameters, "
                      "which only ZeRO-3 partitions); --zero %u"),
                   sc->zero);
        else
            xp_set(x, "%s", XT("--offload or --host-link-bw out of range"));
        break;
    case ENGINE_INVALID_CONVENTION:
        xp_set(x,
               XT("--memory-convention megatron has no ZeRO-%u: Megatron-LM's distributed "
                  "optimizer is ZeRO-1 (--zero 0 or 1, or --memory-convention paper or "
                  "deepspeed)"),
               sc->zero);
        break;
    case ENGINE_INVALID_CP:
        if (sc->mode == ENGINE_MODE_INFER)
            xp_set(x, XT("--cp %u applies to training (--mode train, lora, qlora)"), sc->cp);
        else
            xp_set(x,
                   XT("--cp %u needs a context divisible by 2 x %u = %u (each rank takes a chunk "
                      "from each end; Megatron-LM), not %u"),
                   sc->cp, sc->cp, 2 * sc->cp, sc->context);
        break;
    case ENGINE_INVALID_MOE:
        xp_set(x,
               XT("--moe-imbalance %s must be at least 1 (the busiest expert rank's tokens over "
                  "the mean); recompute modules must be Megatron-LM's"),
               XPLAIN(sc->moe_imbalance));
        break;
    case ENGINE_INVALID_SERVING:
        xp_set(x,
               XT("runtime settings out of range: --gpu-memory-utilization in (0, 1], "
                  "--block-size at least 1, --cuda-graph-memory and --request-rate not "
                  "negative, --gpu-layers and --n-cpu-moe at most the %u layers (--gpu-layers "
                  "at least --pp), --host-bandwidth positive"),
               sc->model.layers);
        break;
    case ENGINE_INVALID_EP:
        if (sc->mode == ENGINE_MODE_INFER)
            xp_set(x, XT("--ep %u applies to training (--mode train, lora, qlora)"), sc->ep);
        else if (!sc->model.has_arch || sc->model.experts == 0)
            xp_set(x, XT("--ep %u needs a mixture-of-experts model (%s has no experts)"), sc->ep,
                   sc->model.id);
        else if (sc->model.experts % sc->ep)
            xp_set(x, XT("--ep %u does not divide the %u experts of each MoE layer"), sc->ep,
                   sc->model.experts);
        else
            xp_set(x,
                   XT("--ep %u does not divide --dp %u (expert parallelism runs inside data "
                      "parallelism, as in Megatron-LM)"),
                   sc->ep, sc->dp);
        break;
    case ENGINE_INVALID_RECOMPUTE:
        xp_set(x,
               XT("--recompute-num-layers %u exceeds the %u layers, or the recompute method is "
                  "unknown"),
               sc->recompute_num_layers, sc->model.layers);
        break;
    default:
        xp_set(x, "%s", XT("invalid scenario"));
    }
}
