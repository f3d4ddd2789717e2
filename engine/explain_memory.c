/*
 * explain_memory.c: the values of the parameter counts and of the memory
 * figures (weights, KV cache, activations, training states, reserve,
 * runtime buffers, host RAM, NVMe, the total against the capacity), each
 * a translated template filled through the one formatter
 * (explain_internal.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/explain_internal.h"

/* The runtime buffers (memory.overhead, serving.overhead_bytes). */
static void overhead(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    switch (sc->serving.runtime) {
    case ENGINE_RUNTIME_VLLM:
    case ENGINE_RUNTIME_TRTLLM:
        xp_set(x,
               XT("activation peak of a profile run of %s tokens over %s requests %s + non-torch "
                  "memory %s"),
               XINT(e->serving.max_num_batched_tokens),
               XINT(fmin(e->serving.max_num_seqs, e->serving.max_num_batched_tokens)),
               XBYTES(e->serving.activation_peak_bytes), XBYTES(e->serving.non_torch_bytes));
        if (isfinite(e->serving.cuda_graph_bytes))
            xp_add(x, XT(" + CUDA graphs %s"), XBYTES(e->serving.cuda_graph_bytes));
        xp_add(x, " = %s", XBYTES(e->memory.overhead));
        break;
    case ENGINE_RUNTIME_SGLANG:
        xp_set(x, XT("%s: SGLang's activations and CUDA graphs live in the (1 - "
                     "mem_fraction_static) it leaves (the reserve)"),
               XBYTES(0));
        break;
    case ENGINE_RUNTIME_LLAMACPP:
        xp_set(x, XT("compute buffer of one ubatch of %s tokens = %s"),
               XINT(engine_runtime_ubatch(sc)), XBYTES(e->memory.overhead));
        break;
    case ENGINE_RUNTIME_OLLAMA:
        xp_set(x, XT("graph %s + one layer's worth of buffer = %s"),
               XBYTES(e->serving.compute_buffer_bytes), XBYTES(e->memory.overhead));
        break;
    default:
        xp_set(x, "%s", XT("plain: no runtime buffers beyond one step's logits (activations)"));
        break;
    }
}

/* Which module is the largest of the fullest stage (memory.zero3_working). */
static const char *largest_name(struct xp *x) {
    const struct engine_model *m = &x->sc->model;
    double emb = (double)m->vocab * m->hidden;
    double ffn = (double)m->hidden * m->ffn;
    if (m->vocab && x->sc->pp == 1 && emb >= ffn)
        return XT("the embedding V x h");
    return XT("its largest matrix");
}

/* The gradients, master copy and optimizer states in full training: the
 * recipe's bytes, the convention, ZeRO and offload. */
static void states(struct xp *x, bool gradients, double recipe_bytes, double bytes) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_recipe_info *r = engine_recipe_info(sc->recipe);
    const char *how = "";
    if (gradients && r->master > 0 && sc->memory_convention == ENGINE_MEMCONV_DEEPSPEED)
        how = sc->zero >= 3 ? XT(" (deepspeed: FP32 gradients 4 B / d; the 16-bit ones in the "
                                 "gathered layer)")
              : sc->zero == 2 ? XT(" (deepspeed: 16-bit partition 2 B / d + FP32 partition 4 B "
                                   "/ d)")
                              : XT(" (deepspeed: 16-bit gradients whole + FP32 partition 4 B / "
                                   "d)");
    else if (gradients && r->master > 0 && sc->memory_convention == ENGINE_MEMCONV_MEGATRON)
        how = XT(" (megatron: FP32 main gradients 4 B, whole)");
    xp_set(x, XT("recipe %s: %s per parameter, --memory-convention %s%s, ZeRO-%u over d=%u"), r->id,
           XB(recipe_bytes), engine_memory_convention_name(sc->memory_convention), how, sc->zero,
           sc->dp);
    if (sc->offload == ENGINE_OFFLOAD_CPU)
        xp_add(x, XT("; --offload %s: in host RAM, not on the GPU"),
               engine_offload_name(sc->offload));
    else if (sc->offload != ENGINE_OFFLOAD_NONE)
        xp_add(x, XT("; --offload %s: in host RAM or on NVMe, not on the GPU"),
               engine_offload_name(sc->offload));
    xp_add(x, " = %s", XBYTES(bytes));
}

/* A LoRA or QLoRA state: the adapters' bytes by the recipe. */
static void adapter_state(struct xp *x, double recipe_bytes, double bytes) {
    const struct engine_scenario *sc = x->sc;
    xp_set(x, XT("recipe %s: %s per parameter of the adapters, ZeRO-%u over d=%u = %s"),
           engine_recipe_info(sc->recipe)->id, XB(recipe_bytes), sc->zero, sc->dp,
           XBYTES(bytes));
}

/* The weights on the fullest GPU. */
static void weights(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    const struct engine_model *m = &sc->model;
    const struct engine_recipe_info *r = engine_recipe_info(sc->recipe);
    bool train = sc->mode == ENGINE_MODE_TRAIN;
    double per = train ? r->weights : e->bits_per_weight / 8;
    double on_gpu = e->memory.weights / per * (train && sc->zero >= 3 ? sc->dp : 1);
    if (sc->mode == ENGINE_MODE_LORA || sc->mode == ENGINE_MODE_QLORA) {
        xp_set(x,
               XT("frozen base %s parameters / (t=%u * p=%u) * %s bits / 8 + adapters %s "
                  "parameters * %s = %s"),
               XCOUNT(e->params_total), sc->tp, sc->pp, XPLAIN(e->bits_per_weight),
               XCOUNT(e->params_trainable), XB(r->weights), XBYTES(e->memory.weights));
        return;
    }
    if (!train && m->file_bytes && m->has_arch) {
        xp_set(x,
               XT("the model file's tensor bytes: %s in all (%s parameters, %s bits per weight); "
                  "on the fullest GPU its layers' and embedding/head bytes / t=%u, p=%u, %s of %u "
                  "layers on the GPUs = %s"),
               XBYTES(e->params_total * e->bits_per_weight / 8.0), XCOUNT(e->params_total),
               XPLAIN(e->bits_per_weight), sc->tp, sc->pp, XINT(e->serving.gpu_layers),
               m->layers, XBYTES(e->memory.weights));
        return;
    }
    if (train && sc->offload == ENGINE_OFFLOAD_NVME) {
        xp_set(x,
               XT("--offload nvme: the parameters live on NVMe (memory.nvme), gathered a layer at "
                  "a time (memory.zero3_working) = %s"),
               XBYTES(e->memory.weights));
        return;
    }
    xp_set(x, XT("%s parameters on the fullest GPU (%s in all, t=%u x p=%u) * %s"),
           XCOUNT(on_gpu), XCOUNT(e->params_total), sc->tp, sc->pp, XB(per));
    if (train && sc->zero >= 3)
        xp_add(x, " / d");
    if (sc->pp > 1)
        xp_add(x, "%s", XT("; stage 0 adds the embedding, the last stage the head"));
    if (engine_ep(sc) > 1)
        xp_add(x, XT("; the routed experts / (t x ep=%u), under ZeRO-3 / (d / ep = %u)"),
               engine_ep(sc), sc->dp / engine_ep(sc));
    if (!train && e->serving.gpu_layers < m->layers)
        xp_add(x, XT("; %s of %u layers on the GPUs, the rest in host RAM"),
               XINT(e->serving.gpu_layers), m->layers);
    if (!train && e->serving.embed_16bit_bytes > 0)
        xp_add(x, XT("; embedding and head in 16-bit (+%s in all)"),
               XBYTES(e->serving.embed_16bit_bytes));
    xp_add(x, " = %s", XBYTES(e->memory.weights));
}

/* The KV cache on the fullest GPU. */
static void kv_cache(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    const struct engine_model *m = &sc->model;
    double kvb = engine_format_bits(&sc->kv_format) / 8;
    unsigned kvh = m->kv_heads ? m->kv_heads : m->heads;
    if (m->kv_lora_rank)
        xp_set(x,
               XT("MLA latent: %u layers * (%u + %u) * %s tokens * batch %s * %s / p=%u (each TP "
                  "rank keeps the whole latent)"),
               m->layers, m->kv_lora_rank, m->rope_dim, XINT(sc->context), XINT(sc->batch),
               XB(kvb), sc->pp);
    else
        xp_set(x,
               XT("2 * %u layers * %u KV heads * %u * %s tokens * batch %s * %s, %u KV heads per "
                  "GPU (t=%u), layers / p=%u"),
               m->layers, kvh, m->head_dim ? m->head_dim : m->hidden / m->heads,
               XINT(sc->context), XINT(sc->batch), XB(kvb), (kvh + sc->tp - 1) / sc->tp, sc->tp,
               sc->pp);
    if (!m->kv_lora_rank && m->sliding_window && m->sliding_window < sc->context)
        xp_add(x, XT("; %u of %u layers keep only the last %s tokens"),
               m->sliding_layers ? m->sliding_layers : m->layers, m->layers,
               XINT(m->sliding_window));
    if (sc->mode == ENGINE_MODE_INFER && sc->serving.runtime == ENGINE_RUNTIME_VLLM)
        xp_add(x, XT("; vLLM whole blocks of %u tokens: %s blocks"), sc->serving.block_size,
               XINT(e->serving.kv_blocks_needed));
    else if (sc->mode == ENGINE_MODE_INFER && isfinite(e->serving.context_padded))
        xp_add(x, XT("; llama.cpp pads n_ctx to %s"), XINT(e->serving.context_padded));
    if (sc->mode == ENGINE_MODE_INFER && e->serving.gpu_layers < m->layers)
        xp_add(x, XT("; %s of %u layers on the GPUs"), XINT(e->serving.gpu_layers), m->layers);
    xp_add(x, " = %s", XBYTES(e->memory.kv_cache));
}

/* The reserve: vramlab's, or what the runtime keeps free. */
static void reserve(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    bool infer = sc->mode == ENGINE_MODE_INFER;
    if (infer && (sc->serving.runtime == ENGINE_RUNTIME_VLLM ||
                  sc->serving.runtime == ENGINE_RUNTIME_SGLANG ||
                  sc->serving.runtime == ENGINE_RUNTIME_TRTLLM)) {
        xp_set(x,
               XT("the data sheet's %s - the %s the runtime requests (fraction %s) = %s: what CUDA "
                  "does not report (%s), the CUDA context, other processes"),
               XBYTES(e->capacity), XBYTES(e->serving.requested_bytes),
               XPLAIN(e->serving.memory_fraction), XBYTES(e->memory.reserve),
               XBYTES(e->capacity - e->serving.memory_reported_bytes));
        if (sc->serving.runtime == ENGINE_RUNTIME_SGLANG)
            xp_add(x, "%s", XT(", SGLang's activations and CUDA graphs"));
        else if (!isfinite(e->serving.cuda_graph_bytes))
            xp_add(x, "%s", XT(", the CUDA graphs (captured after the KV cache is sized)"));
    }
    else if (infer && sc->serving.runtime == ENGINE_RUNTIME_LLAMACPP)
        xp_set(x, XT("%s kept free on the device (llama.cpp --fit-target 1024 MiB)"),
               XBYTES(e->memory.reserve));
    else if (infer && sc->serving.runtime == ENGINE_RUNTIME_OLLAMA)
        xp_set(x, XT("%s: Ollama's per-GPU minimum (CUDA: 457 MiB)"), XBYTES(e->memory.reserve));
    else
        xp_set(x, XT("--reserve %s"), XBYTES(e->memory.reserve));
}

/* Host RAM: layers and buffers off the GPU (inference), offloaded states
 * (training). */
static void host(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    if (sc->mode != ENGINE_MODE_INFER) {
        if (sc->offload == ENGINE_OFFLOAD_NONE)
            xp_set(x, "%s", XT("no offload (--offload none): no training state in host RAM"));
        else
            xp_set(x,
                   XT("--memory-convention %s, --offload %s: %s per GPU in host RAM, %s per "
                      "node (DeepSpeed's estimator adds 1.5x as a buffer)"),
                   engine_memory_convention_name(sc->memory_convention),
                   engine_offload_name(sc->offload), XBYTES(e->memory.host),
                   XBYTES(e->host_bytes_per_node));
        return;
    }
    xp_set(x, XT("%s of %u layers in host RAM"), XINT(e->serving.host_layers), sc->model.layers);
    if (sc->serving.cpu_moe_layers)
        xp_add(x, "%s", XT(", the experts of the first --n-cpu-moe layers"));
    if (sc->serving.runtime == ENGINE_RUNTIME_LLAMACPP ||
        sc->serving.runtime == ENGINE_RUNTIME_OLLAMA)
        xp_add(x, "%s", XT(", the token embedding (llama.cpp keeps it on the CPU)"));
    xp_add(x, XT(": %s (a decode step reads %s of it)"), XBYTES(e->memory.host),
           XBYTES(e->serving.decode_host_bytes));
}

/* The transients and the allocator's waste of --memory-convention peak. */
static void peak(struct xp *x, enum engine_key k) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    if (sc->memory_convention != ENGINE_MEMCONV_PEAK || sc->mode != ENGINE_MODE_TRAIN)
        xp_set(x,
               XT("%s: --memory-convention %s counts the states and activations, not the step's "
                  "peak (--memory-convention peak)"),
               XBYTES(0), engine_memory_convention_name(sc->memory_convention));
    else if (k == ENGINE_KEY_MEM_TRANSIENT)
        xp_set(x, XT("peak at the %s (ZeRO-%u: %s): %s beside %s of activations"),
               xp_tr(x, engine_peak_phase_name(e->peak_phase)), sc->zero,
               sc->offload != ENGINE_OFFLOAD_NONE || sc->zero == 2 ? "DeepSpeed"
               : sc->zero >= 3 ? XT("FSDP2 as torchtitan runs it")
                               : "Megatron-LM",
               XBYTES(e->memory.transient), XBYTES(e->memory.activations));
    else
        xp_set(x, "0.05 * (%s + %s)%s = %s", XBYTES(e->memory.activations),
               XBYTES(e->memory.transient),
               e->peak_phase == ENGINE_PEAK_LOSS_BACKWARD && sc->zero >= 2
                   ? XT(" + the freed 16-bit logits")
                   : "",
               XBYTES(e->memory.allocator));
}

/* Training states in inference: none. */
static bool no_states(struct xp *x) {
    if (x->sc->mode != ENGINE_MODE_INFER)
        return false;
    xp_set(x, XT("no training state in inference: %s"), XBYTES(0));
    return true;
}

bool explain_memory(struct xp *x, enum engine_key k) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    const struct engine_model *m = &sc->model;
    const struct engine_recipe_info *r = engine_recipe_info(sc->recipe);
    switch (k) {
    case ENGINE_KEY_PARAMS_TOTAL:
        if (m->has_arch)
            xp_set(x, "V=%u h=%u L=%u a=%u kv=%u d=%u f=%u%s%s -> %s", m->vocab, m->hidden,
                   m->layers, m->heads, m->kv_heads ? m->kv_heads : m->heads,
                   m->head_dim ? m->head_dim : m->hidden / (m->heads ? m->heads : 1), m->ffn,
                   m->gated ? XT(" gated") : "", m->tied ? XT(" tied") : "",
                   XINT(e->params_total));
        else
            xp_set(x,
                   XT("bare size N = %s; x = (N / 196608)^(1/3) = %s: the shape derived h=%u "
                      "L=%u a=%u kv=%u d=%u f=%u%s V=%u"),
                   XCOUNT(e->params_total), XNUM(cbrt(e->params_total / 196608.0)), m->hidden,
                   m->layers, m->heads, m->kv_heads ? m->kv_heads : m->heads, m->head_dim,
                   m->ffn, m->gated ? XT(" gated") : "", m->vocab);
        return true;
    case ENGINE_KEY_PARAMS_ACTIVE:
        if (m->experts)
            xp_set(x, XT("%s of %s (%u of %u experts + %u shared per MoE layer)"),
                   XCOUNT(e->params_active), XCOUNT(e->params_total), m->active_experts,
                   m->experts, m->shared_experts);
        else
            xp_set(x, XT("a dense model: all %s parameters are active"), XCOUNT(e->params_total));
        return true;
    case ENGINE_KEY_PARAMS_TRAINABLE:
        if (sc->mode == ENGINE_MODE_TRAIN)
            xp_set(x, XT("full training: all %s parameters"), XCOUNT(e->params_trainable));
        else
            xp_set(x, XT("rank r=%u adapters on the %u layers = %s parameters (%s of the model)"),
                   sc->lora_rank, m->layers, XCOUNT(e->params_trainable),
                   XPCT(e->params_trainable / e->params_total));
        return true;
    case ENGINE_KEY_BITS_PER_WEIGHT:
        if (sc->mode == ENGINE_MODE_TRAIN)
            xp_set(x, XT("recipe %s: %s per weight = %s bits"), r->id, XB(r->weights),
                   XPLAIN(e->bits_per_weight));
        else if (m->file_bytes)
            xp_set(x, XT("the model file: its tensor bytes * 8 / its elements = %s bits"),
                   XPLAIN(e->bits_per_weight));
        else if (sc->weight_format.block)
            xp_set(x, XT("%s: %s bits + scales per block of %u = %s bits"),
                   sc->weight_format.name, XPLAIN(sc->weight_format.bits),
                   sc->weight_format.block, XPLAIN(e->bits_per_weight));
        else
            xp_set(x, XT("%s: %s bits"), sc->weight_format.name, XPLAIN(e->bits_per_weight));
        return true;
    case ENGINE_KEY_MEM_WEIGHTS:
        weights(x);
        return true;
    case ENGINE_KEY_MEM_KV_CACHE:
        kv_cache(x);
        return true;
    case ENGINE_KEY_MEM_ACTIVATIONS:
        if (sc->mode == ENGINE_MODE_INFER) {
            if (sc->serving.runtime == ENGINE_RUNTIME_PLAIN)
                xp_set(x,
                       XT("inference: one decode step's FP32 logits, 4 * b=%s * V=%u / t=%u on "
                          "the last stage = %s"),
                       XINT(sc->batch), m->vocab, sc->tp, XBYTES(e->memory.activations));
            else
                xp_set(x, XT("inference under %s: in its buffers (memory.overhead) = %s"),
                       engine_runtime_name(sc->serving.runtime), XBYTES(e->memory.activations));
            return true;
        }
        xp_set(x, XT("%s per layer * %s layers + logits %s = %s"),
               XBYTES(isnan(e->act_per_layer_bytes) ? 0 : e->act_per_layer_bytes),
               XNUM(isnan(e->act_layers_held) ? 0 : e->act_layers_held),
               XBYTES(isnan(e->act_logits_bytes) ? 0 : e->act_logits_bytes),
               XBYTES(e->memory.activations));
        return true;
    case ENGINE_KEY_MEM_GRADIENTS:
        if (no_states(x))
            return true;
        if (sc->mode == ENGINE_MODE_TRAIN)
            states(x, true, r->grads, e->memory.gradients);
        else
            adapter_state(x, r->grads, e->memory.gradients);
        return true;
    case ENGINE_KEY_MEM_MASTER:
        if (no_states(x))
            return true;
        if (sc->mode == ENGINE_MODE_TRAIN)
            states(x, false, r->master, e->memory.master_weights);
        else
            adapter_state(x, r->master, e->memory.master_weights);
        return true;
    case ENGINE_KEY_MEM_OPTIMIZER:
        if (no_states(x))
            return true;
        if (r->factored)
            xp_set(x,
                   XT("recipe %s: a factored FP32 second moment, 4 B * (rows + columns) per "
                      "matrix (vectors whole), / t=%u, ZeRO-%u over d=%u = %s"),
                   r->id, sc->tp, sc->zero, sc->dp, XBYTES(e->memory.optimizer));
        else if (engine_ep(sc) > 1)
            xp_set(x,
                   XT("recipe %s: %s per parameter, ZeRO-%u over d=%u (the experts over d/ep = "
                      "%u) = %s"),
                   r->id, XB(r->optimizer), sc->zero, sc->dp, sc->dp / engine_ep(sc),
                   XBYTES(e->memory.optimizer));
        else if (sc->mode == ENGINE_MODE_TRAIN)
            states(x, false, r->optimizer, e->memory.optimizer);
        else
            adapter_state(x, r->optimizer, e->memory.optimizer);
        return true;
    case ENGINE_KEY_MEM_RESERVE:
        reserve(x);
        return true;
    case ENGINE_KEY_MEM_TOTAL:
        xp_set(x, XT("%s + %s + %s + %s + %s + %s + %s + buffers %s"),
               XBYTES(e->memory.weights), XBYTES(e->memory.kv_cache),
               XBYTES(e->memory.activations), XBYTES(e->memory.gradients),
               XBYTES(e->memory.master_weights), XBYTES(e->memory.optimizer),
               XBYTES(e->memory.reserve),
               XBYTES(isnan(e->memory.overhead) ? 0 : e->memory.overhead));
        if (e->memory.zero3_working > 0)
            xp_add(x, XT(" + gathered layer %s"), XBYTES(e->memory.zero3_working));
        if (e->memory.transient > 0 || e->memory.allocator > 0 || e->memory.fp8_weights > 0)
            xp_add(x, XT(" + transient %s + allocator %s + FP8 copies %s"),
                   XBYTES(e->memory.transient), XBYTES(e->memory.allocator),
                   XBYTES(e->memory.fp8_weights));
        xp_add(x, " = %s", XBYTES(e->memory.total));
        return true;
    case ENGINE_KEY_MEM_TRANSIENT:
    case ENGINE_KEY_MEM_ALLOCATOR:
        peak(x, k);
        return true;
    case ENGINE_KEY_MEM_FP8_WEIGHTS:
        if (!engine_train_fp8(sc))
            xp_set(x, XT("%s: training in %s (--format fp8 or mxfp8 trains in FP8)"), XBYTES(0),
                   engine_compute_name(engine_compute_column(sc)));
        else
            xp_set(x, XT("2 x %s bits / 8 per GEMM parameter%s = %s"),
                   XPLAIN(engine_format_bits(&sc->weight_format)),
                   sc->zero >= 3 ? XT(" of one gathered layer") : XT(" of the stage over t"),
                   XBYTES(e->memory.fp8_weights));
        return true;
    case ENGINE_KEY_MEM_ZERO3_WORKING:
        if (no_states(x))
            return true;
        if (!(e->memory.zero3_working > 0))
            xp_set(x, "%s: %s", XBYTES(0),
                   sc->zero < 3 ? XT("ZeRO below 3 keeps whole layers")
                                : XT("the paper's idealised ZeRO-3 counts none "
                                     "(--memory-convention deepspeed does)"));
        else
            xp_set(x, XT("the largest module %s parameters (%s) / t=%u * 2 * %s = %s"),
                   XINT(e->largest_layer_params), largest_name(x), sc->tp, XB(r->weights),
                   XBYTES(e->memory.zero3_working));
        return true;
    case ENGINE_KEY_MEM_NVME:
        if (no_states(x))
            return true;
        xp_set(x, XT("--memory-convention %s, --offload %s: %s per GPU, %s in all"),
               engine_memory_convention_name(sc->memory_convention),
               engine_offload_name(sc->offload), XBYTES(e->memory.nvme),
               XBYTES(e->memory.nvme * sc->gpus));
        return true;
    case ENGINE_KEY_MEM_HOST:
        host(x);
        return true;
    case ENGINE_KEY_MEM_HOST_PER_NODE:
        xp_set(x, XT("%s per GPU * %u GPUs of a node = %s"), XBYTES(e->memory.host),
               sc->gpus_per_node   ? (sc->gpus < sc->gpus_per_node ? sc->gpus : sc->gpus_per_node)
               : sc->gpu.gpus_per_node ? (sc->gpus < sc->gpu.gpus_per_node ? sc->gpus
                                                                           : sc->gpu.gpus_per_node)
                                       : 1,
               XBYTES(e->host_bytes_per_node));
        return true;
    case ENGINE_KEY_MEM_OVERHEAD:
    case ENGINE_KEY_SERVING_OVERHEAD:
        overhead(x);
        return true;
    case ENGINE_KEY_CAPACITY:
        xp_set(x, "%s: %s", sc->gpu.name, XBYTES(e->capacity));
        return true;
    case ENGINE_KEY_FITS:
        xp_set(x, "%s %s %s", XBYTES(e->memory.total), e->fits ? "<=" : ">", XBYTES(e->capacity));
        return true;
    case ENGINE_KEY_MEM_SPARE:
        xp_set(x, "%s - %s = %s", XBYTES(e->capacity), XBYTES(e->memory.total),
               XBYTES(e->spare_bytes));
        return true;
    case ENGINE_KEY_MEM_RATIO:
        xp_set(x, "%s / %s = %s", XBYTES(e->memory.total), XBYTES(e->capacity),
               XPCT(e->memory_ratio));
        return true;
    case ENGINE_KEY_KV_PER_TOKEN:
        xp_set(x, XT("%s per token of one sequence (%s)"), XBYTES(e->kv_bytes_per_token),
               sc->kv_format.name);
        return true;
    case ENGINE_KEY_ACT_PER_LAYER:
        if (sc->recompute == ENGINE_RECOMPUTE_FULL &&
            (sc->recompute_method == ENGINE_RECOMPUTE_BLOCK || sc->recompute_num_layers > 1))
            xp_set(x,
                   XT("s=%s b=%s h=%u a=%u t=%u, --recompute full, --recompute-method %s, "
                      "--recompute-num-layers %u%s: on average %s per layer"),
                   XINT(sc->context), XINT(sc->batch), m->hidden, m->heads, sc->tp,
                   engine_recompute_method_name(sc->recompute_method), sc->recompute_num_layers,
                   sc->sequence_parallel ? ", SP" : "", XBYTES(e->act_per_layer_bytes));
        else
            xp_set(x, XT("s=%s b=%s h=%u a=%u t=%u, --recompute %s%s = %s"), XINT(sc->context),
                   XINT(sc->batch), m->hidden, m->heads, sc->tp,
                   engine_recompute_name(sc->recompute), sc->sequence_parallel ? ", SP" : "",
                   XBYTES(e->act_per_layer_bytes));
        return true;
    case ENGINE_KEY_ACT_LAYERS_HELD:
        if (sc->interleave > 1 && sc->pp > 1)
            xp_set(x,
                   XT("%u layers / p=%u, interleaved v=%u: the first stage holds p (1 + (p-1)/(p "
                      "v)) = %s micro-batches' worth (m=%u) = %s"),
                   m->layers, sc->pp, sc->interleave,
                   XNUM(sc->pp * (1.0 + (sc->pp - 1.0) / ((double)sc->pp * sc->interleave))),
                   engine_micro_batches(sc), XNUM(e->act_layers_held));
        else
            xp_set(x, "%u / p=%u * min(m=%u, p) = %s", m->layers, sc->pp,
                   engine_micro_batches(sc), XNUM(e->act_layers_held));
        return true;
    case ENGINE_KEY_ACT_LOGITS:
        xp_set(x, XT("4 * %s * %s * %u / t=%u on the last stage"),
               XINT(sc->mode == ENGINE_MODE_INFER ? 1 : sc->context), XINT(sc->batch), m->vocab,
               sc->tp);
        if (sc->pp > 1 && e->act_logits_bytes == 0)
            xp_add(x, "%s", XT(" (the fullest GPU is an earlier stage)"));
        xp_add(x, " = %s", XBYTES(e->act_logits_bytes));
        return true;
    case ENGINE_KEY_TRAIN_LARGEST_LAYER:
        xp_set(x, XT("%s parameters: %s of the fullest stage"),
               XINT(e->largest_layer_params), largest_name(x));
        return true;
    default:
        return false;
    }
}
