/*
 * warnings.c: the text of each warning and each invalid-input bit, with
 * the scenario's numbers (engine_warning_text, engine_invalid_text).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/internal.h"

#define GIB_ 1073741824.0

/* Text of one warning. */
void engine_warning_text(const struct engine_scenario *sc, const struct engine_estimate *e,
                         enum engine_warning w, char *buf, size_t n) {
    uint32_t gpn =
        sc->gpus_per_node ? sc->gpus_per_node : (sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node : 1);
    switch (w) {
    case ENGINE_WARN_TP_ACROSS_NODES:
        snprintf(buf, n,
                 "TP=%u spans nodes of %u GPUs: its all-reduces leave the node's fast links",
                 sc->tp, gpn);
        break;
    case ENGINE_WARN_BUBBLE:
        snprintf(buf, n,
                 "pipeline bubble %.0f%%: %u micro-batches on %u stages; use at least 4 x p = %u "
                 "micro-batches (GPipe), a global batch of %llu sequences at this micro-batch "
                 "size and dp",
                 100 * e->train_bubble_fraction, engine_micro_batches(sc), sc->pp, 4 * sc->pp,
                 4ull * sc->pp * sc->batch * sc->dp);
        break;
    case ENGINE_WARN_CONTEXT_OVER_MAX:
        snprintf(buf, n, "context %u exceeds the model's maximum %u", sc->context,
                 sc->model.max_context);
        break;
    case ENGINE_WARN_DERIVED_SHAPE:
        snprintf(
            buf, n,
            "shape derived from the size: h=%u, L=%u, %u heads, %u KV heads (KV and activations "
            "approximate)",
            sc->model.hidden, sc->model.layers, sc->model.heads,
            sc->model.kv_heads ? sc->model.kv_heads : sc->model.heads);
        break;
    case ENGINE_WARN_KV_REPLICATED:
        snprintf(buf, n, "TP=%u exceeds the %u KV heads: each GPU keeps a full KV head", sc->tp,
                 sc->model.kv_heads);
        break;
    case ENGINE_WARN_NO_FORMAT_FLOPS:
        if (engine_train_mxfp8(sc) && sc->gpu.flops[ENGINE_COMPUTE_FP8] > 0)
            snprintf(buf, n, "%s has no block-scaled (MX) tensor cores: MXFP8 training needs "
                             "Blackwell; its GEMMs counted at BF16",
                     sc->gpu.name);
        else if (engine_train_fp8(sc))
            snprintf(buf, n, "%s has no FP8 tensor cores (Transformer Engine refuses FP8 "
                             "there): the GEMMs counted at BF16",
                     sc->gpu.name);
        else
            snprintf(buf, n, "%s has no %s figure: FP16 FLOP/s used", sc->gpu.name,
                     engine_compute_name(engine_compute_column(sc)));
        break;
    case ENGINE_WARN_DOES_NOT_FIT:
        snprintf(buf, n, "needs %.3gx the memory of one GPU (%.4g GB short)", e->memory_ratio,
                 -e->spare_bytes / 1e9);
        break;
    case ENGINE_WARN_ZERO_WITHOUT_DP:
        snprintf(buf, n, "ZeRO-%u has no effect with DP=1", sc->zero);
        break;
    case ENGINE_WARN_COMM_BOUND:
        snprintf(buf, n, "communication (%.3g s) exceeds compute (%.3g s) per step",
                 e->train_tp_comm_seconds + e->train_pp_comm_seconds + e->train_dp_comm_seconds,
                 e->train_step_seconds);
        break;
    case ENGINE_WARN_NO_PRICE:
        snprintf(buf, n, "no price for %s: pass --price to get a cost", sc->gpu.name);
        break;
    case ENGINE_WARN_CALIBRATED:
        /* name only what was measured: the other figure is the data sheet's */
        if (sc->measured_bytes_per_s > 0 && sc->measured_flop_per_s > 0)
            snprintf(buf, n,
                     "calibrated: measured %.4g GB/s and %.4g TFLOP/s replace the data sheet",
                     e->bandwidth_bytes_per_s / 1e9, e->peak_flop_per_s / 1e12);
        else if (sc->measured_bytes_per_s > 0)
            snprintf(buf, n, "calibrated: measured %.4g GB/s replaces the data-sheet bandwidth",
                     e->bandwidth_bytes_per_s / 1e9);
        else
            snprintf(buf, n, "calibrated: measured %.4g TFLOP/s replace the data-sheet FLOP/s",
                     e->peak_flop_per_s / 1e12);
        break;
    case ENGINE_WARN_MOE_ROUTING:
        snprintf(buf, n,
                 "MoE at batch %u: a step reads the experts any sequence routes to, "
                 "not just %u",
                 sc->batch, sc->model.active_experts);
        break;
    case ENGINE_WARN_UNEVEN_STAGES:
        snprintf(buf, n,
                 "pp=%u does not divide the %u layers: the fullest stage holds %u "
                 "(Llama 3.1 405B ran 126 layers on 16 stages)",
                 sc->pp, sc->model.layers, (sc->model.layers + sc->pp - 1) / sc->pp);
        break;
    case ENGINE_WARN_KV_POOL_SHORT:
        snprintf(buf, n,
                 "vLLM: %u sequences of %u tokens need %.0f KV blocks, the cache has %.0f (at most "
                 "%.0f such sequences at once): more concurrency runs out of KV cache",
                 sc->batch, sc->context, e->serving.kv_blocks_needed, e->serving.kv_blocks,
                 floor(e->serving.kv_blocks / ceil((double)sc->context / sc->serving.block_size)));
        break;
    case ENGINE_WARN_RUNTIME_REFUSES: {
        char who[48];
        engine_runtime_profile_name(&sc->serving, who, sizeof who);
        const struct engine_serving_estimate *v = &e->serving;
        if (sc->serving.runtime != ENGINE_RUNTIME_VLLM)
            snprintf(buf, n,
                     "%s would refuse to start: no memory left for the KV cache (%.4g GiB "
                     "requested, weights %.4g GiB); %s",
                     who, v->requested_bytes / GIB_, e->memory.weights / GIB_,
                     sc->serving.runtime == ENGINE_RUNTIME_SGLANG
                         ? "SGLang: \"Not enough memory. Please try to increase "
                           "--mem-fraction-static.\""
                         : "raise --free-gpu-memory-fraction or use more GPUs");
        else if (v->available_kv_bytes <= 0)
            snprintf(buf, n,
                     "%s would refuse to start: weights %.4g GiB + runtime buffers %.4g GiB exceed "
                     "the %.4g GiB requested; vLLM: \"No available memory for the cache blocks. "
                     "Try increasing `gpu_memory_utilization` when initializing the engine.\"",
                     who, e->memory.weights / GIB_, e->memory.overhead / GIB_,
                     v->requested_bytes / GIB_);
        else
            snprintf(buf, n,
                     "%s would refuse to start: one request of max_model_len %.0f needs %.2f GiB "
                     "of KV cache, more than the %.2f GiB available; the largest --max-model-len "
                     "that fits is %.0f; vLLM: \"Try increasing `gpu_memory_utilization` or "
                     "decreasing `max_model_len` when initializing the engine.\"",
                     who, v->max_model_len,
                     ceil(v->max_model_len / engine_runtime_block(sc)) * engine_runtime_block(sc) *
                         e->kv_bytes_per_token / sc->tp / sc->pp / GIB_,
                     v->available_kv_bytes / GIB_, v->max_model_len_that_fits);
        break;
    }
    case ENGINE_WARN_CONTEXT_OVER_NATIVE:
        snprintf(buf, n,
                 "context %u exceeds the %u tokens %s had before rope scaling (%s, factor %.3g) "
                 "extended it to %u: past its native length the positions are interpolated",
                 sc->context, sc->model.native_context,
                 sc->model.name[0] ? sc->model.name : sc->model.id,
                 sc->model.rope_scaling[0] ? sc->model.rope_scaling : "rope",
                 sc->model.rope_factor, sc->model.max_context);
        break;
    case ENGINE_WARN_OFFLOADED:
        snprintf(buf, n,
                 "%.0f of %u layers in host RAM%s: each token reads %.4g GB there at %.4g GB/s "
                 "(%.4g ms of %.4g ms per step)",
                 e->serving.host_layers, sc->model.layers,
                 sc->serving.cpu_moe_layers ? " (and the experts of --n-cpu-moe layers)" : "",
                 e->serving.decode_host_bytes / 1e9, e->serving.host_bytes_per_s / 1e9,
                 e->serving.decode_host_s * 1e3, e->serving.tpot_s * 1e3);
        break;
    case ENGINE_WARN_HOST_BW_ASSUMED:
        snprintf(buf, n,
                 "host bandwidth assumed %.4g GB/s (dual-channel DDR5): give --host-bandwidth or "
                 "--host-cpu ID, or measure it (Measure pane)",
                 ENGINE_DEFAULT_HOST_BW / 1e9);
        break;
    default:
        snprintf(buf, n, "unknown warning");
    }
}

/* Text of one invalid-input bit. */
void engine_invalid_text(const struct engine_scenario *sc, uint32_t bit, char *buf, size_t n) {
    switch (bit) {
    case ENGINE_INVALID_LAYOUT:
        if (engine_cp(sc) > 1)
            snprintf(buf, n, "tp x cp x pp x dp = %u x %u x %u x %u = %llu, not the %u GPUs",
                     sc->tp, engine_cp(sc), sc->pp, sc->dp,
                     (unsigned long long)sc->tp * engine_cp(sc) * sc->pp * sc->dp, sc->gpus);
        else
            snprintf(buf, n, "tp x pp x dp = %u x %u x %u = %llu, not the %u GPUs", sc->tp,
                     sc->pp, sc->dp, (unsigned long long)sc->tp * sc->pp * sc->dp, sc->gpus);
        break;
    case ENGINE_INVALID_TP_HEADS:
        snprintf(buf, n, "tp=%u does not divide the %u attention heads", sc->tp, sc->model.heads);
        break;
    case ENGINE_INVALID_PP_LAYERS:
        snprintf(buf, n, "pp=%u exceeds the %u layers", sc->pp, sc->model.layers);
        break;
    case ENGINE_INVALID_ZERO:
        snprintf(buf, n, "ZeRO stage %u does not exist (0..3)", sc->zero);
        break;
    case ENGINE_INVALID_SIZE:
        snprintf(buf, n, "the model has no size (zero or negative parameters or shape)");
        break;
    case ENGINE_INVALID_GPU:
        snprintf(buf, n, "the GPU needs positive memory, bandwidth and FP16 FLOP/s");
        break;
    case ENGINE_INVALID_WORKLOAD:
        snprintf(buf, n, "gpus, batch, context, tp, pp, dp and micro-batches must be at least 1");
        break;
    case ENGINE_INVALID_FORMAT:
        snprintf(buf, n, "the weight or KV format has no bits");
        break;
    case ENGINE_INVALID_EFFICIENCY:
        snprintf(buf, n, "efficiencies and MFU must be in (0, 1]");
        break;
    case ENGINE_INVALID_PROMPT:
        snprintf(buf, n, "--prompt %u is longer than --context %u (the context holds the prompt)",
                 sc->prompt, sc->context);
        break;
    case ENGINE_INVALID_BATCH:
        snprintf(buf, n,
                 "--global-batch %u sequences is not a multiple of --micro-batch-size %u x --dp "
                 "%u = %llu (gradient accumulation = global / (micro x dp) must be whole)",
                 sc->global_batch, sc->batch, sc->dp, (unsigned long long)sc->batch * sc->dp);
        break;
    case ENGINE_INVALID_OFFLOAD:
        if (sc->mode != ENGINE_MODE_TRAIN)
            snprintf(buf, n, "--offload %s needs --mode train (ZeRO-Offload moves full "
                             "training's states)", engine_offload_name(sc->offload));
        else if (sc->memory_convention == ENGINE_MEMCONV_MEGATRON)
            snprintf(buf, n, "--offload %s is DeepSpeed's (ZeRO-Offload): give "
                             "--memory-convention paper or deepspeed, not megatron",
                     engine_offload_name(sc->offload));
        else if (sc->zero == 0)
            snprintf(buf, n, "--offload %s needs --zero 1, 2 or 3 (ZeRO-Offload partitions the "
                             "offloaded states over --dp)", engine_offload_name(sc->offload));
        else if (sc->offload == ENGINE_OFFLOAD_NVME && sc->zero < 3)
            snprintf(buf, n, "--offload nvme needs --zero 3 (ZeRO-Infinity offloads the "
                             "parameters, which only ZeRO-3 partitions); --zero %u", sc->zero);
        else
            snprintf(buf, n, "--offload or --host-link-bw out of range");
        break;
    case ENGINE_INVALID_CONVENTION:
        snprintf(buf, n, "--memory-convention megatron has no ZeRO-%u: Megatron-LM's "
                         "distributed optimizer is ZeRO-1 (--zero 0 or 1, or --memory-convention "
                         "paper or deepspeed)", sc->zero);
        break;
    case ENGINE_INVALID_CP:
        if (sc->mode == ENGINE_MODE_INFER)
            snprintf(buf, n, "--cp %u applies to training (--mode train, lora, qlora)", sc->cp);
        else
            snprintf(buf, n, "--cp %u needs a context divisible by 2 x %u = %u (each rank takes "
                             "a chunk from each end; Megatron-LM), not %u",
                     sc->cp, sc->cp, 2 * sc->cp, sc->context);
        break;
    case ENGINE_INVALID_MOE:
        snprintf(buf, n, "--moe-imbalance %.3g must be at least 1 (the busiest expert rank's "
                         "tokens over the mean); recompute modules must be Megatron-LM's",
                 sc->moe_imbalance);
        break;
    case ENGINE_INVALID_SERVING:
        snprintf(buf, n,
                 "runtime settings out of range: --gpu-memory-utilization in (0, 1], --block-size "
                 "at least 1, --cuda-graph-memory and --request-rate not negative, --gpu-layers and --n-cpu-moe at most the %u layers (--gpu-layers at "
                 "least --pp), --host-bandwidth positive",
                 sc->model.layers);
        break;
    case ENGINE_INVALID_EP:
        if (sc->mode == ENGINE_MODE_INFER)
            snprintf(buf, n, "--ep %u applies to training (--mode train, lora, qlora)", sc->ep);
        else if (!sc->model.has_arch || sc->model.experts == 0)
            snprintf(buf, n, "--ep %u needs a mixture-of-experts model (%s has no experts)",
                     sc->ep, sc->model.id);
        else if (sc->model.experts % sc->ep)
            snprintf(buf, n, "--ep %u does not divide the %u experts of each MoE layer", sc->ep,
                     sc->model.experts);
        else
            snprintf(buf, n,
                     "--ep %u does not divide --dp %u (expert parallelism runs inside data "
                     "parallelism, as in Megatron-LM)",
                     sc->ep, sc->dp);
        break;
    case ENGINE_INVALID_RECOMPUTE:
        snprintf(buf, n,
                 "--recompute-num-layers %u exceeds the %u layers, or the recompute method is "
                 "unknown",
                 sc->recompute_num_layers, sc->model.layers);
        break;
    default:
        snprintf(buf, n, "invalid scenario");
    }
}
