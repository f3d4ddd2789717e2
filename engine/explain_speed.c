/*
 * explain_speed.c: the values of the decode ceilings, the roofline
 * figures, prefill, energy per token and the serving figures (vLLM's
 * KV blocks, llama.cpp's buffers and offload), each a translated template
 * filled through the one formatter (explain_internal.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/explain_internal.h"

/* Marks a text for xgettext (po/Makevars: N_); translated where shown. */
#define N_(s) s

/* The vLLM KV blocks: the available bytes over one block's page. */
static void kv_blocks(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    const struct engine_model *m = &sc->model;
    double kvb = engine_format_bits(&sc->kv_format) / 8;
    unsigned kvh = m->kv_heads ? m->kv_heads : m->heads;
    unsigned per = m->kv_lora_rank ? 1 : (kvh + sc->tp - 1) / sc->tp;
    unsigned dim = m->kv_lora_rank ? m->kv_lora_rank + m->rope_dim
                                   : (m->head_dim ? m->head_dim : m->hidden / m->heads);
    xp_set(x,
           XT("floor(%s / (%s%s tokens * %u KV heads * %u * %s = the page) / %u layers) = %s "
              "blocks"),
           XBYTES(e->serving.available_kv_bytes), m->kv_lora_rank ? "" : "2 * ",
           XINT(engine_runtime_block(sc)), per, dim, XB(kvb), (m->layers + sc->pp - 1) / sc->pp,
           XINT(e->serving.kv_blocks));
}

/* Whether vLLM's max_model_len fits the KV blocks. */
static void max_model_len(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    double block = engine_runtime_block(sc);
    double need = ceil(e->serving.max_model_len / block);
    if (e->serving.max_model_len_that_fits >= e->serving.max_model_len)
        xp_set(x, XT("one request of max_model_len %s fits (%s blocks of %s)"),
               XINT(e->serving.max_model_len), XINT(need), XINT(e->serving.kv_blocks));
    else
        xp_set(x,
               XT("max_model_len %s needs %s blocks, there are %s: the runtime refuses to start; "
                  "the longest that fits is %s * %s = %s"),
               XINT(e->serving.max_model_len), XINT(need), XINT(e->serving.kv_blocks),
               XINT(e->serving.kv_blocks), XINT(block), XINT(e->serving.max_model_len_that_fits));
}

/* The energy of a token at the ceiling, by board or system power. */
static void joules(struct xp *x, bool system) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    if (system)
        xp_set(x, XT("ceil(%u / %u) = %s %s * %s / %s = %s per token"), sc->gpus,
               sc->system_gpus, XINT(e->systems), sc->system_id,
               xp_num(x, ENGINE_UNIT_WATTS, sc->system_power_w), XTOKS(e->decode_tokens_per_s),
               xp_num(x, ENGINE_UNIT_ENERGY, e->decode_system_joules_per_token));
    else
        xp_set(x, XT("%u GPUs * %s / %s = %s per token"), sc->gpus,
               xp_num(x, ENGINE_UNIT_WATTS, sc->gpu.tdp_w), XTOKS(e->decode_tokens_per_s),
               xp_num(x, ENGINE_UNIT_ENERGY, e->decode_joules_per_token));
}

/* What the runtime requests of the memory CUDA reports. */
static void requested(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    const struct engine_serving_estimate *v = &e->serving;
    if (sc->serving.runtime == ENGINE_RUNTIME_SGLANG)
        xp_set(x, XT("mem_fraction_static %s * (%s - CUDA context %s) = %s"),
               XPLAIN(v->memory_fraction), XBYTES(v->memory_reported_bytes),
               XBYTES(v->cuda_context_bytes), XBYTES(v->requested_bytes));
    else if (sc->serving.runtime == ENGINE_RUNTIME_TRTLLM)
        xp_set(x, XT("weights %s + peak %s + %s * (%s - %s - %s) = %s"),
               XBYTES(e->memory.weights), XBYTES(e->memory.overhead), XPLAIN(v->memory_fraction),
               XBYTES(v->memory_reported_bytes), XBYTES(e->memory.weights),
               XBYTES(e->memory.overhead), XBYTES(v->requested_bytes));
    else
        xp_set(x, "%s * %s = %s", XPLAIN(v->memory_fraction), XBYTES(v->memory_reported_bytes),
               XBYTES(v->requested_bytes));
}

/* The workload's steady state: its average context and concurrency. */
static void steady(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    uint32_t prompt = sc->prompt ? sc->prompt : sc->context;
    if (!isfinite(e->serving.steady_concurrency)) {
        xp_set(x, XT("prompt %s of context %s, or a sliding window: not modelled"),
               XINT(prompt), XINT(sc->context));
        return;
    }
    xp_set(x, XT("prompt %s + output %s: %s tokens a sequence on average; %s sequences at once"),
           XINT(prompt), XINT(sc->context - prompt), XNUM(e->serving.steady_context),
           XNUM(e->serving.steady_concurrency));
    xp_add(x, "%s",
           sc->serving.request_rate > 0 ? XT(" (Little's law at --request-rate)")
                                        : XT(" (saturated)"));
}

/* A CPU's core-bound decode: each width class's weights over the rate its
 * cores measured, the step, the tokens/s. */
static void core_bound(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    static const char *const widths[ENGINE_WIDTHS] = {
        N_("under 6 bits"),
        N_("6 to 11 bits"),
        N_("12 bits or more"),
    };
    struct engine_core_term t[ENGINE_WIDTHS];
    int n = engine_core_terms(sc, t);
    x->v[0] = '\0';
    for (int i = 0; i < n; i++)
        xp_add(x, XT("%s%s of the weights (%s) at %s weights/s (%s, measured at batch %s, %u threads)"),
               i ? " + " : "", XPCT(t[i].share), xp_tr(x, widths[t[i].width]),
               XCOUNT(t[i].weights_per_s), t[i].kernel, XINT(t[i].batch), sc->gpu.core.threads);
    xp_add(x, XT(": a step %s for %s tokens = %s"), XSECS(e->core_seconds_per_step),
           XINT((double)sc->batch * sc->dp), XTOKS(e->decode_tokens_per_s_core_bound));
}

bool explain_speed(struct xp *x, enum engine_key k) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    const struct engine_model *m = &sc->model;
    switch (k) {
    case ENGINE_KEY_DECODE_TOKENS:
        if (isfinite(e->decode_tokens_per_s_core_bound))
            xp_set(x, XT("min(%s * %s, %s * %s, core-bound %s) = %s"),
                   XTOKS(e->decode_tokens_per_s_memory_bound), XPLAIN(sc->bw_efficiency),
                   XTOKS(e->decode_tokens_per_s_compute_bound), XPLAIN(sc->flops_efficiency),
                   XTOKS(e->decode_tokens_per_s_core_bound), XTOKS(e->decode_tokens_per_s));
        else
            xp_set(x, "min(%s * %s, %s * %s) = %s", XTOKS(e->decode_tokens_per_s_memory_bound),
                   XPLAIN(sc->bw_efficiency), XTOKS(e->decode_tokens_per_s_compute_bound),
                   XPLAIN(sc->flops_efficiency), XTOKS(e->decode_tokens_per_s));
        return true;
    case ENGINE_KEY_DECODE_CORE_BOUND:
        core_bound(x);
        return true;
    case ENGINE_KEY_DECODE_MEMORY_BOUND:
        xp_set(x, "%u * %s / (%u * %s / %s", sc->dp, XINT(sc->batch), sc->pp,
               XBYTES(e->decode_bytes_per_step), XBW(e->bandwidth_bytes_per_s));
        if (sc->tp > 1)
            xp_add(x, XT(" + 2 * %u layers * %s"), m->layers, XSECS(sc->allreduce_latency_s));
        xp_add(x, ") = %s", XTOKS(e->decode_tokens_per_s_memory_bound));
        return true;
    case ENGINE_KEY_DECODE_COMPUTE_BOUND:
        xp_set(x, "%u * %s / %s = %s", sc->gpus, XFLOPS(e->peak_flop_per_s),
               XFLOP(e->decode_flops_per_token), XTOKS(e->decode_tokens_per_s_compute_bound));
        return true;
    case ENGINE_KEY_DECODE_PER_SEQUENCE:
        xp_set(x, "%s / (%u * %s) = %s", XTOKS(e->decode_tokens_per_s), sc->dp, XINT(sc->batch),
               XTOKS(e->decode_tokens_per_s_per_sequence));
        return true;
    case ENGINE_KEY_DECODE_BYTES_PER_STEP:
        xp_set(x, XT("weights read %s + KV cache %s = %s"),
               XBYTES(e->decode_bytes_per_step - e->memory.kv_cache), XBYTES(e->memory.kv_cache),
               XBYTES(e->decode_bytes_per_step));
        return true;
    case ENGINE_KEY_DECODE_FLOPS_PER_TOKEN:
        xp_set(x, XT("2 * %s + attention at %s tokens = %s"), XCOUNT(e->params_active),
               XINT(sc->context), XFLOP(e->decode_flops_per_token));
        return true;
    case ENGINE_KEY_RIDGE:
        xp_set(x, "%s / %s = %s", XFLOPS(e->peak_flop_per_s), XBW(e->bandwidth_bytes_per_s),
               xp_num(x, ENGINE_UNIT_FLOP_PER_BYTE, e->ridge_flop_per_byte));
        return true;
    case ENGINE_KEY_ARITHMETIC_INTENSITY:
        xp_set(x, XT("%s * %s / %u GPUs / %s = %s (ridge %s)"), XINT(sc->batch),
               XFLOP(e->decode_flops_per_token), sc->tp * sc->pp,
               XBYTES(e->decode_bytes_per_step),
               xp_num(x, ENGINE_UNIT_FLOP_PER_BYTE, e->arithmetic_intensity),
               xp_num(x, ENGINE_UNIT_FLOP_PER_BYTE, e->ridge_flop_per_byte));
        return true;
    case ENGINE_KEY_COMPUTE_BOUND_BATCH:
        xp_set(x, "%s * %s / 2 = %s",
               xp_num(x, ENGINE_UNIT_FLOP_PER_BYTE, e->ridge_flop_per_byte),
               XB(e->bits_per_weight / 8), XNUM(e->compute_bound_batch));
        return true;
    case ENGINE_KEY_BANDWIDTH:
        if (sc->measured_bytes_per_s > 0)
            xp_set(x, XT("measured %s (the data sheet: %s)"), XBW(e->bandwidth_bytes_per_s),
                   XBW(sc->gpu.bandwidth_bytes_per_s));
        else
            xp_set(x, XT("%s: %s (data sheet)"), sc->gpu.name, XBW(e->bandwidth_bytes_per_s));
        return true;
    case ENGINE_KEY_PEAK_FLOPS:
        if (sc->measured_flop_per_s > 0)
            xp_set(x, XT("measured %s"), XFLOPS(e->peak_flop_per_s));
        else
            xp_set(x, XT("%s, %s column: %s (data sheet, dense)"), sc->gpu.name,
                   engine_compute_name(engine_compute_column(sc)), XFLOPS(e->peak_flop_per_s));
        return true;
    case ENGINE_KEY_DECODE_JOULES_PER_TOKEN:
        joules(x, false);
        return true;
    case ENGINE_KEY_DECODE_SYSTEM_JOULES_PER_TOKEN:
        joules(x, true);
        return true;
    case ENGINE_KEY_PREFILL:
        if (engine_core_prefill_flops(sc) > 0 && !(sc->measured_flop_per_s > 0)) {
            /* a CPU: the compute rate is its cores' dot products (core.c) */
            xp_set(x,
                   XT("prompt %s tokens in %s step(s) of %s (%s): compute alone %s at min(FMA "
                      "peak %s, the cores' measured dot rate %s), bytes alone %s at %s; the "
                      "larger per step = %s"),
                   XINT(sc->prompt ? sc->prompt : sc->context), XINT(e->serving.prefill_chunks),
                   XINT(e->serving.prefill_chunk_tokens), engine_runtime_name(sc->serving.runtime),
                   XSECS(e->serving.prefill_compute_s), XFLOPS(e->peak_flop_per_s),
                   XFLOPS(engine_core_prefill_flops(sc)), XSECS(e->serving.prefill_bytes_s),
                   XBW(e->bandwidth_bytes_per_s), XSECS(e->prefill_seconds));
            return true;
        }
        xp_set(x,
               XT("prompt %s tokens in %s step(s) of %s (%s) over t=%u p=%u: compute alone %s at "
                  "%s, bytes alone %s at %s, TP/PP communication %s; the larger per step, "
                  "pipelined = %s"),
               XINT(sc->prompt ? sc->prompt : sc->context), XINT(e->serving.prefill_chunks),
               XINT(e->serving.prefill_chunk_tokens), engine_runtime_name(sc->serving.runtime),
               sc->tp, sc->pp, XSECS(e->serving.prefill_compute_s), XFLOPS(e->peak_flop_per_s),
               XSECS(e->serving.prefill_bytes_s), XBW(e->bandwidth_bytes_per_s),
               XSECS(e->serving.prefill_comm_s), XSECS(e->prefill_seconds));
        return true;
    case ENGINE_KEY_SERVING_TTFT:
        xp_set(x,
               XT("prompt %s tokens, %s other sequence(s) decoding at %s tokens, steps of %s "
                  "tokens (%s) = %s (alone: prefill %s)"),
               XINT(sc->prompt ? sc->prompt : sc->context), XINT(sc->batch - 1),
               XINT(sc->context), XINT(e->serving.prefill_chunk_tokens),
               engine_runtime_name(sc->serving.runtime), XSECS(e->serving.ttft_s),
               XSECS(e->prefill_seconds));
        return true;
    case ENGINE_KEY_SERVING_TPOT:
        xp_set(x, XT("1 / %s = %s (GPU %s + host %s per step)"),
               XTOKS(e->decode_tokens_per_s_per_sequence), XSECS(e->serving.tpot_s),
               XSECS(e->serving.decode_gpu_s), XSECS(e->serving.decode_host_s));
        return true;
    case ENGINE_KEY_SERVING_AVAILABLE_KV:
        xp_set(x, XT("requested %s - weights %s - runtime buffers %s = %s"),
               XBYTES(e->serving.requested_bytes), XBYTES(e->memory.weights),
               XBYTES(e->memory.overhead), XBYTES(e->serving.available_kv_bytes));
        return true;
    case ENGINE_KEY_SERVING_KV_BLOCKS:
        kv_blocks(x);
        return true;
    case ENGINE_KEY_SERVING_KV_TOKENS:
        xp_set(x, XT("%s blocks * %s = %s tokens (this load needs %s blocks)"),
               XINT(e->serving.kv_blocks), XINT(engine_runtime_block(sc)),
               XINT(e->serving.kv_tokens), XINT(e->serving.kv_blocks_needed));
        return true;
    case ENGINE_KEY_SERVING_MAX_CONCURRENCY:
        xp_set(x, "%s / ceil(%s / %s) = %s / %s = %s", XINT(e->serving.kv_blocks),
               XINT(e->serving.max_model_len), XINT(engine_runtime_block(sc)),
               XINT(e->serving.kv_blocks),
               XINT(ceil(e->serving.max_model_len / engine_runtime_block(sc))),
               xp_num(x, ENGINE_UNIT_RATIO, e->serving.max_concurrency));
        return true;
    case ENGINE_KEY_SERVING_MAX_MODEL_LEN:
        max_model_len(x);
        return true;
    case ENGINE_KEY_SERVING_COMPUTE_BUFFER:
        xp_set(x,
               XT("u=%s, n_kv=%s (n_ctx %s padded to %s x %s sequences), heads %u/t=%u, %s = %s"),
               XINT(engine_runtime_ubatch(sc)), XINT(e->serving.context_padded * sc->batch),
               XINT(sc->context), XINT(e->serving.context_padded), XINT(sc->batch), m->heads,
               sc->tp,
               engine_runtime_flash_attention(sc) ? XT("with flash attention")
                                                  : XT("without flash attention"),
               XBYTES(e->serving.compute_buffer_bytes));
        return true;
    case ENGINE_KEY_SERVING_GPU_LAYERS:
        xp_set(x, XT("%s of %u layers on the GPUs"), XINT(e->serving.gpu_layers), m->layers);
        if (e->gpu_layers_fitted)
            xp_add(x, "%s", XT(" (the most that fit: the runtime chooses)"));
        if (e->serving.gpu_layers >= 1)
            xp_add(x, "%s", XT(", the output layer with them"));
        return true;
    case ENGINE_KEY_SERVING_HOST_BW:
        xp_set(x, "%s", XBW(e->serving.host_bytes_per_s));
        if (sc->serving.host_bytes_per_s > 0 && sc->serving.host_measured)
            xp_add(x, "%s", XT(" (measured)"));
        else if (!(sc->serving.host_bytes_per_s > 0))
            xp_add(x, "%s", XT(" (assumed: dual-channel DDR5)"));
        xp_add(x, XT(": %s / %s = %s per decode step"), XBYTES(e->serving.decode_host_bytes),
               XBW(e->serving.host_bytes_per_s), XSECS(e->serving.decode_host_s));
        return true;
    case ENGINE_KEY_SERVING_MEMORY_REPORTED:
        xp_set(x, XT("%s (the data sheet: %s)"), XBYTES(e->serving.memory_reported_bytes),
               XBYTES(e->capacity));
        if (!(sc->gpu.memory_reported_bytes > 0))
            xp_add(x, "%s", XT(": not known, the data sheet's taken"));
        return true;
    case ENGINE_KEY_SERVING_REQUESTED:
        requested(x);
        return true;
    case ENGINE_KEY_SERVING_ROTARY_CACHE:
        xp_set(x, XT("%s positions * %u * 2 B = %s"),
               XINT(m->max_context ? m->max_context : sc->context),
               m->kv_lora_rank ? m->rope_dim : (m->head_dim ? m->head_dim : m->hidden / m->heads),
               XBYTES(e->serving.rotary_cache_bytes));
        return true;
    case ENGINE_KEY_SERVING_ACTIVATION_PEAK:
        xp_set(x,
               XT("max(forward %s, sampler %s) + cuBLAS workspaces %s = %s (T = %s tokens, R = %s "
                  "requests)"),
               XBYTES(e->serving.forward_peak_bytes), XBYTES(e->serving.sampler_peak_bytes),
               XBYTES(e->serving.cublas_workspace_bytes), XBYTES(e->serving.activation_peak_bytes),
               XINT(e->serving.max_num_batched_tokens),
               XINT(fmin(e->serving.max_num_seqs, e->serving.max_num_batched_tokens)));
        return true;
    case ENGINE_KEY_SERVING_NON_TORCH:
        xp_set(x, XT("%s (%s, %u GPU(s) a replica)"), XBYTES(e->serving.non_torch_bytes),
               sc->tp * sc->pp > 1 ? XT("with NCCL's buffers") : XT("one GPU: no NCCL buffers"),
               sc->tp * sc->pp);
        return true;
    case ENGINE_KEY_SERVING_CUDA_GRAPHS:
        xp_set(x, XT("%s counted before the KV cache"), XBYTES(e->serving.cuda_graph_bytes));
        if (sc->serving.cuda_graph_bytes > 0)
            xp_add(x, " (--cuda-graph-memory)");
        return true;
    case ENGINE_KEY_SERVING_MEMORY_FRACTION:
        xp_set(x, XT("%s of the memory CUDA reports"), XPLAIN(e->serving.memory_fraction));
        return true;
    case ENGINE_KEY_SERVING_REFUSES:
        if (e->serving.runtime_refuses > 0)
            xp_set(x, XT("yes: %s of KV cache available, %s blocks of %s needed by one request"),
                   XBYTES(e->serving.available_kv_bytes), XINT(e->serving.kv_blocks),
                   XINT(ceil(e->serving.max_model_len / engine_runtime_block(sc))));
        else
            xp_set(x, XT("no: %s blocks, one request of max_model_len needs %s"),
                   XINT(e->serving.kv_blocks),
                   XINT(ceil(e->serving.max_model_len / engine_runtime_block(sc))));
        return true;
    case ENGINE_KEY_SERVING_STEADY_CONCURRENCY:
        steady(x);
        return true;
    case ENGINE_KEY_SERVING_STEADY_TOKENS:
        if (!(e->serving.steady_concurrency > 0)) {
            xp_set(x, XT("not one sequence of this workload fits the KV cache: %s"),
                   XTOKS(e->serving.steady_tokens_per_s));
            return true;
        }
        xp_set(x, XT("%s sequences / step %s = %s (%s requests/s)"),
               XNUM(e->serving.steady_concurrency), XSECS(e->serving.steady_step_s),
               XTOKS(e->serving.steady_tokens_per_s), XNUM(e->serving.steady_request_rate));
        return true;
    case ENGINE_KEY_SERVING_STEADY_RATE:
        xp_set(x, XT("%s / %s output tokens a request = %s requests/s"),
               XTOKS(e->serving.steady_tokens_per_s),
               XINT(sc->context - (sc->prompt ? sc->prompt : sc->context)),
               XNUM(e->serving.steady_request_rate));
        return true;
    case ENGINE_KEY_DECODE_BATCH1: {
        double bytes_s = 1.0 / e->serving.batch1_tokens_per_s - e->serving.token_fixed_s;
        xp_set(x, XT("1 / (bytes %s + kernels %s + sampler %s) = %s (the bandwidth alone: %s)"),
               XSECS(bytes_s), XSECS(e->serving.token_launch_s), XSECS(e->serving.token_sample_s),
               XTOKS(e->serving.batch1_tokens_per_s), XTOKS(1.0 / bytes_s));
        return true;
    }
    case ENGINE_KEY_PREFILL_ALLREDUCE:
        xp_set(x, XT("%s step(s) of %s tokens, t=%u: %s of TP all-reduces"),
               XINT(e->serving.prefill_chunks), XINT(e->serving.prefill_chunk_tokens), sc->tp,
               XSECS(e->serving.prefill_allreduce_s));
        return true;
    default:
        return false;
    }
}
