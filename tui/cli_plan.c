/*
 * cli_plan.c: `vramlab plan`, one scenario's full breakdown as an aligned
 * text table or one JSON object (product.md "Headless commands").
 *
 * The JSON keys of product.md are a contract: they come from one table
 * (plan_fields) that also drives the text output, so both always show the
 * same figures. JSON numbers are the engine's doubles in base units (bytes,
 * seconds, FLOP, parameters), exact; null where a key does not apply
 * (engine_key_applies, or NaN). The whole output is built in memory and
 * written only when complete: nothing half-written on error.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/cli.h"
#include "tui/json.h"
#include "tui/i18n.h"
#include "tui/report.h"

enum plan_kind {
    K_BYTES,
    K_COUNT,
    K_TOKS,
    K_SECONDS,
    K_FRACTION,
    K_FLOP,
    K_FLOP_PER_BYTE,
    K_BATCH,
    K_NUMBER,
    K_BW,
    K_FLOPS,
    K_DAYS,
    K_HOURS,
    K_MONEY,
    K_BITS,
    K_INT,
    K_TIMES,
    K_JOULES
};
enum plan_section { S_NONE, S_PARAMS, S_MEMORY, S_DECODE, S_TRAINING, S_SERVING };

/* One output figure: JSON path, engine key (-1: none), estimate field. */
struct plan_field {
    const char *group, *name;
    int key;
    size_t offset;
    enum plan_kind kind;
    enum plan_section section;
    const char *label; /* text label; NULL = JSON only */
};

#define F(g, n, k, field, kind, sec, label)                                                        \
    { g, n, k, offsetof(struct engine_estimate, field), kind, sec, label }

/* Every figure of `plan`, in output order (product.md's keys plus extras). */
static const struct plan_field plan_fields[] = {
    F("params", "total", ENGINE_KEY_PARAMS_TOTAL, params_total, K_COUNT, S_PARAMS, N_("total")),
    F("params", "active", ENGINE_KEY_PARAMS_ACTIVE, params_active, K_COUNT, S_PARAMS,
      N_("active per token")),
    F("params", "trainable", -1, params_trainable, K_COUNT, S_PARAMS, N_("trainable")),
    F("params", "bits_per_weight", -1, bits_per_weight, K_BITS, S_PARAMS, N_("bits per weight")),
    F("memory", "weights", ENGINE_KEY_MEM_WEIGHTS, memory.weights, K_BYTES, S_MEMORY,
      N_("weights")),
    F("memory", "kv_cache", ENGINE_KEY_MEM_KV_CACHE, memory.kv_cache, K_BYTES, S_MEMORY,
      N_("KV cache")),
    F("memory", "activations", ENGINE_KEY_MEM_ACTIVATIONS, memory.activations, K_BYTES, S_MEMORY,
      N_("activations")),
    F("memory", "gradients", ENGINE_KEY_MEM_GRADIENTS, memory.gradients, K_BYTES, S_MEMORY,
      N_("gradients")),
    F("memory", "master_weights", ENGINE_KEY_MEM_MASTER, memory.master_weights, K_BYTES, S_MEMORY,
      N_("master weights")),
    F("memory", "optimizer", ENGINE_KEY_MEM_OPTIMIZER, memory.optimizer, K_BYTES, S_MEMORY,
      N_("optimizer states")),
    F("memory", "reserve", ENGINE_KEY_MEM_RESERVE, memory.reserve, K_BYTES, S_MEMORY,
      N_("reserve")),
    F("memory", "zero3_working", ENGINE_KEY_MEM_ZERO3_WORKING, memory.zero3_working, K_BYTES,
      S_MEMORY, N_("ZeRO-3 gathered layer")),
    F("memory", "overhead", ENGINE_KEY_MEM_OVERHEAD, memory.overhead, K_BYTES, S_MEMORY,
      N_("runtime buffers")),
    F("memory", "transient", ENGINE_KEY_MEM_TRANSIENT, memory.transient, K_BYTES, S_MEMORY,
      N_("transient buffers")),
    F("memory", "allocator", ENGINE_KEY_MEM_ALLOCATOR, memory.allocator, K_BYTES, S_MEMORY,
      N_("allocator")),
    F("memory", "fp8_weights", ENGINE_KEY_MEM_FP8_WEIGHTS, memory.fp8_weights, K_BYTES, S_MEMORY,
      N_("FP8 weight copies")),
    F("memory", "total", ENGINE_KEY_MEM_TOTAL, memory.total, K_BYTES, S_MEMORY, N_("total")),
    F("memory", "host", ENGINE_KEY_MEM_HOST, memory.host, K_BYTES, S_MEMORY,
      N_("host RAM (not in total)")),
    F("memory", "nvme", ENGINE_KEY_MEM_NVME, memory.nvme, K_BYTES, S_MEMORY,
      N_("NVMe (not in total)")),
    F("memory", "host_per_node", -1, host_bytes_per_node, K_BYTES, S_NONE, NULL),
    F("memory", "spare_bytes", -1, spare_bytes, K_BYTES, S_NONE, NULL),
    F("memory", "ratio", -1, memory_ratio, K_FRACTION, S_NONE, NULL),
    F("", "capacity", ENGINE_KEY_CAPACITY, capacity, K_BYTES, S_MEMORY, N_("capacity")),
    F("decode", "tokens_per_s", ENGINE_KEY_DECODE_TOKENS, decode_tokens_per_s, K_TOKS, S_DECODE,
      N_("decode (lower ceiling)")),
    F("decode", "tokens_per_s_memory_bound", ENGINE_KEY_DECODE_MEMORY_BOUND,
      decode_tokens_per_s_memory_bound, K_TOKS, S_DECODE, N_("memory-bound ceiling")),
    F("decode", "tokens_per_s_compute_bound", ENGINE_KEY_DECODE_COMPUTE_BOUND,
      decode_tokens_per_s_compute_bound, K_TOKS, S_DECODE, N_("compute-bound ceiling")),
    F("decode", "tokens_per_s_per_sequence", ENGINE_KEY_DECODE_PER_SEQUENCE,
      decode_tokens_per_s_per_sequence, K_TOKS, S_DECODE, N_("per sequence")),
    F("decode", "bytes_per_step", ENGINE_KEY_DECODE_BYTES_PER_STEP, decode_bytes_per_step, K_BYTES,
      S_DECODE, N_("bytes read per step")),
    F("decode", "flops_per_token", ENGINE_KEY_DECODE_FLOPS_PER_TOKEN, decode_flops_per_token,
      K_FLOP, S_DECODE, N_("FLOP per token")),
    F("decode", "ridge_flop_per_byte", ENGINE_KEY_RIDGE, ridge_flop_per_byte, K_FLOP_PER_BYTE,
      S_DECODE, N_("ridge point")),
    F("decode", "arithmetic_intensity", ENGINE_KEY_ARITHMETIC_INTENSITY, arithmetic_intensity,
      K_FLOP_PER_BYTE, S_DECODE, N_("arithmetic intensity")),
    F("decode", "compute_bound_batch", ENGINE_KEY_COMPUTE_BOUND_BATCH, compute_bound_batch, K_BATCH,
      S_DECODE, N_("compute bound from batch")),
    F("decode", "joules_per_token", ENGINE_KEY_DECODE_JOULES_PER_TOKEN, decode_joules_per_token,
      K_JOULES, S_DECODE, N_("energy per token (board power)")),
    F("decode", "system_joules_per_token", ENGINE_KEY_DECODE_SYSTEM_JOULES_PER_TOKEN,
      decode_system_joules_per_token, K_JOULES, S_DECODE,
      N_("energy per token (system power)")),
    F("decode", "bandwidth_bytes_per_s", -1, bandwidth_bytes_per_s, K_BW, S_DECODE,
      N_("bandwidth used")),
    F("decode", "peak_flop_per_s", -1, peak_flop_per_s, K_FLOPS, S_DECODE, N_("peak used")),
    F("decode", "batch1_tokens_per_s", ENGINE_KEY_DECODE_BATCH1, serving.batch1_tokens_per_s,
      K_TOKS, S_DECODE, N_("batch-1 decode (as run)")),
    F("kv_cache", "bytes_per_token", ENGINE_KEY_KV_PER_TOKEN, kv_bytes_per_token, K_BYTES, S_DECODE,
      N_("KV cache per token")),
    F("prefill", "seconds", ENGINE_KEY_PREFILL, prefill_seconds, K_SECONDS, S_DECODE,
      N_("prefill (one prompt)")),
    F("prefill", "allreduce_seconds", ENGINE_KEY_PREFILL_ALLREDUCE, serving.prefill_allreduce_s,
      K_SECONDS, S_DECODE, N_("prefill TP all-reduce")),
    F("serving", "ttft_s", ENGINE_KEY_SERVING_TTFT, serving.ttft_s, K_SECONDS, S_SERVING,
      N_("time to first token")),
    F("serving", "tpot_s", ENGINE_KEY_SERVING_TPOT, serving.tpot_s, K_SECONDS, S_SERVING,
      N_("time per output token")),
    F("serving", "available_kv_bytes", ENGINE_KEY_SERVING_AVAILABLE_KV, serving.available_kv_bytes,
      K_BYTES, S_SERVING, N_("available KV cache")),
    F("serving", "kv_blocks", ENGINE_KEY_SERVING_KV_BLOCKS, serving.kv_blocks, K_INT, S_SERVING,
      N_("KV blocks")),
    F("serving", "kv_tokens", ENGINE_KEY_SERVING_KV_TOKENS, serving.kv_tokens, K_INT, S_SERVING,
      N_("KV cache tokens")),
    F("serving", "max_concurrency", ENGINE_KEY_SERVING_MAX_CONCURRENCY, serving.max_concurrency,
      K_TIMES, S_SERVING, N_("maximum concurrency")),
    F("serving", "max_model_len_that_fits", ENGINE_KEY_SERVING_MAX_MODEL_LEN,
      serving.max_model_len_that_fits, K_INT, S_SERVING, N_("longest max_model_len")),
    F("serving", "compute_buffer_bytes", ENGINE_KEY_SERVING_COMPUTE_BUFFER,
      serving.compute_buffer_bytes, K_BYTES, S_SERVING, N_("compute buffer")),
    F("serving", "overhead_bytes", ENGINE_KEY_SERVING_OVERHEAD, serving.overhead_bytes, K_BYTES,
      S_NONE, NULL),
    F("serving", "gpu_layers", ENGINE_KEY_SERVING_GPU_LAYERS, serving.gpu_layers, K_INT, S_SERVING,
      N_("layers on the GPUs")),
    F("serving", "host_bytes_per_s", ENGINE_KEY_SERVING_HOST_BW, serving.host_bytes_per_s, K_BW,
      S_SERVING, N_("host bandwidth")),
    F("serving", "memory_reported_bytes", ENGINE_KEY_SERVING_MEMORY_REPORTED,
      serving.memory_reported_bytes, K_BYTES, S_SERVING, N_("memory CUDA reports")),
    F("serving", "requested_bytes", ENGINE_KEY_SERVING_REQUESTED, serving.requested_bytes,
      K_BYTES, S_SERVING, N_("requested by the runtime")),
    F("serving", "rotary_cache_bytes", ENGINE_KEY_SERVING_ROTARY_CACHE, serving.rotary_cache_bytes,
      K_BYTES, S_SERVING, N_("rotary cache (in weights)")),
    F("serving", "activation_peak_bytes", ENGINE_KEY_SERVING_ACTIVATION_PEAK,
      serving.activation_peak_bytes, K_BYTES, S_SERVING, N_("profile-run activation peak")),
    F("serving", "non_torch_bytes", ENGINE_KEY_SERVING_NON_TORCH, serving.non_torch_bytes, K_BYTES,
      S_SERVING, N_("non-torch memory")),
    F("serving", "cuda_graph_bytes", ENGINE_KEY_SERVING_CUDA_GRAPHS, serving.cuda_graph_bytes,
      K_BYTES, S_SERVING, N_("CUDA graphs (before KV)")),
    F("serving", "memory_fraction", -1, serving.memory_fraction, K_FRACTION, S_NONE, NULL),
    F("serving", "runtime_refuses", -1, serving.runtime_refuses, K_INT, S_NONE, NULL),
    F("serving", "steady_concurrency", ENGINE_KEY_SERVING_STEADY_CONCURRENCY,
      serving.steady_concurrency, K_NUMBER, S_SERVING, N_("steady-state concurrency")),
    F("serving", "steady_tokens_per_s", ENGINE_KEY_SERVING_STEADY_TOKENS,
      serving.steady_tokens_per_s, K_TOKS, S_SERVING, N_("steady-state output ceiling")),
    F("serving", "steady_request_rate", -1, serving.steady_request_rate, K_NUMBER, S_NONE, NULL),
    F("activations", "per_layer_bytes", ENGINE_KEY_ACT_PER_LAYER, act_per_layer_bytes, K_BYTES,
      S_TRAINING, N_("activations per layer")),
    F("activations", "layers_held", ENGINE_KEY_ACT_LAYERS_HELD, act_layers_held, K_COUNT,
      S_TRAINING, N_("layers held")),
    F("activations", "logits_bytes", ENGINE_KEY_ACT_LOGITS, act_logits_bytes, K_BYTES, S_TRAINING,
      N_("logits")),
    F("training", "flops_per_token", ENGINE_KEY_TRAIN_FLOPS_PER_TOKEN, train_flops_per_token,
      K_FLOP, S_TRAINING, N_("FLOP per token")),
    F("training", "hw_flops_per_token", ENGINE_KEY_TRAIN_HW_FLOPS_PER_TOKEN,
      train_hw_flops_per_token, K_FLOP, S_TRAINING, N_("with recompute (HFU)")),
    F("training", "tokens_per_step", ENGINE_KEY_TRAIN_TOKENS_PER_STEP, train_tokens_per_step,
      K_COUNT, S_TRAINING, N_("tokens per step")),
    F("training", "global_batch", ENGINE_KEY_TRAIN_GLOBAL_BATCH, train_global_batch, K_INT,
      S_TRAINING, N_("global batch (sequences)")),
    F("training", "gradient_accumulation_steps", ENGINE_KEY_TRAIN_MICRO_BATCHES,
      train_micro_batches, K_INT, S_TRAINING, N_("micro-batches per replica")),
    F("training", "tokens", -1, train_tokens, K_COUNT, S_TRAINING, N_("tokens in all")),
    F("training", "compute_seconds", -1, train_compute_seconds, K_SECONDS, S_TRAINING,
      N_("kernels' time per step")),
    F("training", "step_seconds", ENGINE_KEY_TRAIN_STEP, train_step_seconds, K_SECONDS, S_TRAINING,
      N_("step time")),
    F("training", "tokens_per_s_per_gpu", ENGINE_KEY_TRAIN_TOKENS_PER_GPU,
      train_tokens_per_s_per_gpu, K_TOKS, S_TRAINING, N_("tokens/s per GPU")),
    F("training", "stage_imbalance", ENGINE_KEY_TRAIN_STAGE_IMBALANCE, train_stage_imbalance,
      K_TIMES, S_TRAINING, N_("slowest stage / mean")),
    F("training", "fp8_cast_seconds", ENGINE_KEY_TRAIN_FP8_CAST, train_fp8_cast_seconds,
      K_SECONDS, S_TRAINING, N_("FP8 scaling casts per step")),
    F("training", "moe_seconds", ENGINE_KEY_TRAIN_MOE, train_moe_seconds, K_SECONDS, S_TRAINING,
      N_("MoE routing and experts per step")),
    F("training", "cp_comm_seconds", ENGINE_KEY_TRAIN_CP_COMM, train_cp_comm_seconds, K_SECONDS,
      S_TRAINING, N_("CP ring exposed per step")),
    F("training", "bubble_fraction", ENGINE_KEY_TRAIN_BUBBLE, train_bubble_fraction, K_FRACTION,
      S_TRAINING, N_("pipeline bubble")),
    F("training", "tp_comm_seconds", ENGINE_KEY_TRAIN_TP_COMM, train_tp_comm_seconds, K_SECONDS,
      S_TRAINING, N_("TP all-reduce per step")),
    F("training", "pp_comm_seconds", ENGINE_KEY_TRAIN_PP_COMM, train_pp_comm_seconds, K_SECONDS,
      S_TRAINING, N_("PP hand-offs per step")),
    F("training", "dp_comm_seconds", ENGINE_KEY_TRAIN_DP_COMM, train_dp_comm_seconds, K_SECONDS,
      S_TRAINING, N_("DP all-reduce per step")),
    F("training", "all_to_all_seconds", ENGINE_KEY_TRAIN_ALL_TO_ALL, train_all_to_all_seconds,
      K_SECONDS, S_TRAINING, N_("EP all-to-all per step")),
    F("training", "offload_bytes_per_step", ENGINE_KEY_TRAIN_OFFLOAD_BYTES,
      train_offload_bytes_per_step, K_BYTES, S_TRAINING, N_("offload traffic per step")),
    F("training", "offload_seconds", ENGINE_KEY_TRAIN_OFFLOAD_SECONDS, train_offload_seconds,
      K_SECONDS, S_TRAINING, N_("offload time per step")),
    F("training", "host_link_bytes_per_s", -1, host_link_bytes_per_s, K_BW, S_NONE, NULL),
    F("training", "largest_layer_params", -1, largest_layer_params, K_COUNT, S_NONE, NULL),
    F("training", "mfu", ENGINE_KEY_TRAIN_MFU, train_mfu, K_FRACTION, S_TRAINING, N_("MFU")),
    F("training", "hfu", ENGINE_KEY_TRAIN_HFU, train_hfu, K_FRACTION, S_TRAINING, N_("HFU")),
    F("training", "days", ENGINE_KEY_TRAIN_DAYS, train_days, K_DAYS, S_TRAINING,
      N_("training time")),
    F("training", "gpu_hours", ENGINE_KEY_TRAIN_GPU_HOURS, train_gpu_hours, K_HOURS, S_TRAINING,
      N_("GPU-hours")),
    F("training", "cost_usd", ENGINE_KEY_TRAIN_COST, train_cost_usd, K_MONEY, S_TRAINING,
      N_("cost")),
    F("training", "cost_spot_usd", ENGINE_KEY_TRAIN_COST_SPOT, train_cost_spot_usd, K_MONEY,
      S_TRAINING, N_("cost at spot prices")),
    F("training", "energy_joules", ENGINE_KEY_TRAIN_ENERGY, train_energy_joules, K_JOULES,
      S_TRAINING, N_("energy (board power, upper bound)")),
    F("training", "energy_joules_per_token", -1, train_energy_joules_per_token, K_JOULES,
      S_TRAINING, N_("energy per token")),
    F("training", "system_energy_joules", ENGINE_KEY_TRAIN_SYSTEM_ENERGY,
      train_system_energy_joules, K_JOULES, S_TRAINING,
      N_("energy (system power, upper bound)")),
};
#undef F
#define PLAN_N_FIELDS (sizeof(plan_fields) / sizeof(plan_fields[0]))

/* The value of a field, NaN where it does not apply. */
static double plan_value(const struct engine_scenario *sc, const struct engine_estimate *est,
                         const struct plan_field *f) {
    double v = *(const double *)((const char *)est + f->offset);

    /* Full training keeps the weights as the recipe says, whatever --format. */
    if (f->offset == offsetof(struct engine_estimate, bits_per_weight) &&
        sc->mode == ENGINE_MODE_TRAIN)
        return engine_recipe_info(sc->recipe)->weights * 8.0;
    if (f->key >= 0 && !engine_key_applies(sc, (enum engine_key)f->key))
        return NAN;
    return v;
}

/* Format a value of the given kind for the text table. */
static void plan_format(double v, enum plan_kind kind, enum units u, char *buf, size_t len) {
    char num[40];

    switch (kind) {
    case K_BYTES:
        report_bytes(v, u, buf, len);
        return;
    case K_COUNT:
        report_count(v, buf, len);
        return;
    case K_SECONDS:
        report_seconds(v, buf, len);
        return;
    case K_FRACTION:
        report_percent(v, buf, len);
        return;
    case K_BW:
        report_bandwidth(v, buf, len);
        return;
    case K_FLOPS:
        report_flops(v, buf, len);
        return;
    case K_MONEY:
        report_money(v, buf, len);
        return;
    case K_INT:
        report_int(v, buf, len);
        return;
    case K_JOULES:
        /* Energy in watt-hours as meters show it: Wh, kWh, MWh, GWh. */
        if (v >= 3.6e12)
            snprintf(num, sizeof(num), "%.3g GWh", v / 3.6e12);
        else if (v >= 3.6e9)
            snprintf(num, sizeof(num), "%.3g MWh", v / 3.6e9);
        else if (v >= 3.6e6)
            snprintf(num, sizeof(num), "%.3g kWh", v / 3.6e6);
        else if (v >= 3.6e3)
            snprintf(num, sizeof(num), "%.3g Wh", v / 3.6e3);
        else
            snprintf(num, sizeof(num), "%.3g J", v);
        i18n_number(num, sizeof(num));
        snprintf(buf, len, "%s", num);
        return;
    case K_TIMES:
        snprintf(num, sizeof(num), "%.2f", v);
        i18n_number(num, sizeof(num));
        snprintf(buf, len, "%sx", num);
        return;
    default:
        break;
    }
    report_number(v, num, sizeof(num));
    switch (kind) {
    case K_TOKS:
        snprintf(buf, len, _("%s tok/s"), num);
        break;
    case K_FLOP:
        report_count(v, num, sizeof(num));
        snprintf(buf, len, "%s FLOP", num);
        break;
    case K_FLOP_PER_BYTE:
        snprintf(buf, len, "%s FLOP/B", num);
        break;
    case K_BATCH:
        snprintf(buf, len, "B ~ %s", num);
        break;
    case K_DAYS:
        snprintf(buf, len, _("%s days"), num);
        break;
    case K_HOURS:
        snprintf(buf, len, "%s h", num);
        break;
    case K_BITS:
        snprintf(num, sizeof(num), "%.4g", v);
        i18n_number(num, sizeof(num));
        snprintf(buf, len, _("%s bits"), num);
        break;
    default:
        snprintf(buf, len, "%s", num);
        break;
    }
}

/* The JSON path "group.name" of a field. */
static void plan_path(const struct plan_field *f, char *buf, size_t len) {
    if (f->group[0])
        snprintf(buf, len, "%s.%s", f->group, f->name);
    else
        snprintf(buf, len, "%s", f->name);
}

/* Write the scenario echo object (inputs, for scripts that log runs). */
static void plan_json_scenario(struct json_writer *w, const struct options *o) {
    const struct engine_scenario *sc = &o->sc;

    json_key(w, "scenario");
    json_begin_object(w);
    json_key(w, "model");
    json_string(w, sc->model.id);
    json_key(w, "model_name");
    json_string(w, sc->model.name);
    json_key(w, "format");
    json_string(w, sc->weight_format.id);
    json_key(w, "kv_format");
    json_string(w, sc->kv_format.id);
    json_key(w, "gpu");
    json_string(w, sc->gpu.id);
    json_key(w, "system");
    if (sc->system_gpus > 0)
        json_string(w, sc->system_id);
    else
        json_null(w);
    json_key(w, "systems");
    if (sc->system_gpus > 0 && sc->gpus > 0)
        json_number(w, ceil((double)sc->gpus / sc->system_gpus));
    else
        json_null(w);
    json_key(w, "mode");
    json_string(w, engine_mode_name(sc->mode));
    json_key(w, "batch");
    json_number(w, sc->batch);
    json_key(w, "context");
    json_number(w, sc->context);
    json_key(w, "prompt");
    json_number(w, sc->prompt ? sc->prompt : sc->context);
    json_key(w, "zero");
    json_number(w, sc->zero);
    json_key(w, "memory_convention");
    json_string(w, engine_memory_convention_name(sc->memory_convention));
    json_key(w, "offload");
    json_string(w, engine_offload_name(sc->offload));
    json_key(w, "micro_batches");
    json_number(w, sc->micro_batches);
    json_key(w, "ep");
    json_number(w, engine_ep(sc));
    json_key(w, "cp");
    json_number(w, engine_cp(sc));
    json_key(w, "moe_imbalance");
    json_number(w, engine_moe_imbalance(sc));
    json_key(w, "fine_tune");
    json_bool(w, sc->fine_tune);
    json_key(w, "interleave");
    json_number(w, sc->interleave);
    json_key(w, "recompute");
    json_string(w, engine_recompute_name(sc->recompute));
    json_key(w, "recompute_method");
    json_string(w, engine_recompute_method_name(sc->recompute_method));
    json_key(w, "recompute_num_layers");
    json_number(w, sc->recompute_num_layers);
    json_key(w, "recompute_modules");
    json_begin_array(w);
    for (unsigned i = 0; sc->mode != ENGINE_MODE_INFER && sc->recompute == ENGINE_RECOMPUTE_SELECTIVE &&
                         i < ENGINE_RECOMPUTE_MODULE_COUNT;
         i++)
        if (engine_recompute_modules(sc) & (1u << i))
            json_string(w, engine_recompute_module_name(i));
    json_end_array(w);
    json_key(w, "optimizer");
    json_string(w, engine_recipe_info(sc->recipe)->id);
    json_key(w, "flops_model");
    json_string(w, engine_flops_model_name(sc->flops_model));
    json_key(w, "mfu_given");
    json_bool(w, sc->mfu > 0);
    json_key(w, "runtime");
    json_string(w, engine_runtime_name(sc->serving.runtime));
    {
        char who[48];
        engine_runtime_profile_name(&sc->serving, who, sizeof who);
        json_key(w, "runtime_profile");
        json_string(w, who);
    }
    json_key(w, "request_rate");
    if (sc->serving.request_rate > 0)
        json_number(w, sc->serving.request_rate);
    else
        json_null(w);
    json_key(w, "units");
    json_string(w, o->units == UNITS_GIB ? "gib" : "gb");
    json_end_object(w);
}

/* The model file's object (--model-file): its path and the tensor types,
 * as gguf-dump names them, with their tensors, parameters and bytes. */
static void plan_json_model_file(struct json_writer *w, const struct catalog_model_file *mf) {
    json_key(w, "model");
    json_begin_object(w);
    json_key(w, "file");
    json_string(w, mf->path);
    json_key(w, "format");
    json_string(w, mf->format);
    json_key(w, "version");
    json_number(w, mf->version);
    json_key(w, "architecture");
    json_string(w, mf->arch);
    json_key(w, "files");
    json_number(w, mf->shards);
    json_key(w, "file_bytes");
    json_number(w, mf->file_size);
    json_key(w, "quantization");
    json_string(w, mf->quant);
    json_key(w, "tensors");
    json_number(w, (double)mf->tensors);
    json_key(w, "parameters");
    json_number(w, mf->params);
    json_key(w, "bytes");
    json_number(w, mf->bytes);
    json_key(w, "bits_per_weight");
    json_number(w, mf->params > 0 ? mf->bytes * 8.0 / mf->params : 0);
    json_key(w, "tensor_types");
    json_begin_array(w);
    for (size_t i = 0; i < mf->n_types; i++) {
        json_begin_object(w);
        json_key(w, "type");
        json_string(w, mf->types[i].name);
        json_key(w, "tensors");
        json_number(w, (double)mf->types[i].tensors);
        json_key(w, "parameters");
        json_number(w, mf->types[i].params);
        json_key(w, "bytes");
        json_number(w, mf->types[i].bytes);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}

/* Write the whole plan as one JSON object. */
void plan_write_json(FILE *f, const struct options *o, const struct engine_estimate *est,
                     const struct plan_limits *limits, const struct cli_notes *notes) {
    const struct engine_scenario *sc = &o->sc;
    struct json_writer w;
    const char *open_group = NULL;
    char path[96];

    json_init(&w, f);
    json_begin_object(&w);
    plan_json_scenario(&w, o);
    if (o->model_file)
        plan_json_model_file(&w, o->model_file);
    for (size_t i = 0; i < PLAN_N_FIELDS; i++) {
        const struct plan_field *p = &plan_fields[i];
        /* Consecutive fields of a group share one nested object. */
        if (open_group && strcmp(open_group, p->group) != 0) {
            json_end_object(&w);
            open_group = NULL;
        }
        if (!open_group && p->group[0]) {
            json_key(&w, p->group);
            json_begin_object(&w);
            open_group = p->group;
        }
        json_key(&w, p->name);
        json_number(&w, plan_value(sc, est, p));
        if (!strcmp(p->group, "memory") && !strcmp(p->name, "total")) {
            json_key(&w, "peak_phase");
            if (est->peak_phase != ENGINE_PEAK_NONE)
                json_string(&w, engine_peak_phase_name(est->peak_phase));
            else
                json_null(&w);
        }
        if (!strcmp(p->group, "") && !strcmp(p->name, "capacity")) {
            json_key(&w, "fits");
            json_bool(&w, est->fits);
            json_key(&w, "layout");
            json_begin_object(&w);
            json_key(&w, "tp");
            json_number(&w, est->tp);
            json_key(&w, "pp");
            json_number(&w, est->pp);
            json_key(&w, "dp");
            json_number(&w, est->dp);
            json_key(&w, "gpus");
            json_number(&w, est->gpus);
            json_end_object(&w);
        }
    }
    if (open_group)
        json_end_object(&w);

    json_key(&w, "explain");
    json_begin_object(&w);
    for (size_t i = 0; i < PLAN_N_FIELDS; i++) {
        const struct plan_field *p = &plan_fields[i];
        struct engine_explanation ex;
        if (p->key < 0)
            continue;
        plan_path(p, path, sizeof(path));
        json_key(&w, path);
        if (!engine_key_applies(sc, (enum engine_key)p->key)) {
            json_null(&w);
            continue;
        }
        memset(&ex, 0, sizeof(ex));
        engine_explain(sc, est, (enum engine_key)p->key, &ex);
        json_begin_object(&w);
        json_key(&w, "formula");
        json_string(&w, ex.formula ? ex.formula : "");
        json_key(&w, "values");
        json_string(&w, ex.values);
        json_key(&w, "source");
        json_string(&w, ex.source ? ex.source : "");
        json_end_object(&w);
    }
    json_end_object(&w);

    if (limits)
        plan_limits_json(&w, sc, limits);

    json_key(&w, "warnings");
    json_begin_array(&w);
    for (size_t i = 0; notes && i < notes->n; i++)
        json_string(&w, notes->text[i]);
    for (int b = 0; b < ENGINE_WARNING_COUNT; b++) {
        char text[512];
        if (!(est->warnings & (1u << b)))
            continue;
        report_warning(sc, est, (enum engine_warning)(1u << b), o->units, text, sizeof(text));
        json_string(&w, text);
    }
    json_end_array(&w);
    json_end_object(&w);
}

/* The text lines of one section; training-only memory lines that are zero
 * are left out in inference so the table stays short. */
static void plan_text_section(FILE *f, const struct options *o, const struct engine_estimate *est,
                              enum plan_section sec) {
    for (size_t i = 0; i < PLAN_N_FIELDS; i++) {
        const struct plan_field *p = &plan_fields[i];
        char value[64];
        double v;

        if (p->section != sec || !p->label)
            continue;
        v = plan_value(&o->sc, est, p);
        if (!isfinite(v))
            continue;
        if (sec == S_MEMORY && v == 0 && o->sc.mode == ENGINE_MODE_INFER &&
            (p->key == ENGINE_KEY_MEM_ACTIVATIONS || p->key == ENGINE_KEY_MEM_GRADIENTS ||
             p->key == ENGINE_KEY_MEM_MASTER || p->key == ENGINE_KEY_MEM_OPTIMIZER))
            continue;
        if (sec == S_PARAMS && p->key == ENGINE_KEY_PARAMS_ACTIVE && v == est->params_total)
            continue;
        if (sec == S_PARAMS && p->key < 0 && !strcmp(p->name, "trainable") &&
            o->sc.mode == ENGINE_MODE_INFER)
            continue;
        /* Runtime buffers and host RAM only where there are some; the
         * offload lines only when something sits in host RAM. */
        if (v == 0 && (p->key == ENGINE_KEY_MEM_OVERHEAD || p->key == ENGINE_KEY_MEM_HOST ||
                       p->key == ENGINE_KEY_MEM_NVME || p->key == ENGINE_KEY_MEM_ZERO3_WORKING ||
                       p->key == ENGINE_KEY_MEM_TRANSIENT || p->key == ENGINE_KEY_MEM_ALLOCATOR ||
                       p->key == ENGINE_KEY_MEM_FP8_WEIGHTS || p->key == ENGINE_KEY_TRAIN_FP8_CAST ||
                       p->key == ENGINE_KEY_TRAIN_MOE || p->key == ENGINE_KEY_TRAIN_CP_COMM))
            continue;
        /* Under the peak convention, the phase that makes the peak. */
        if (sec == S_MEMORY && p->key == ENGINE_KEY_MEM_TOTAL &&
            est->peak_phase != ENGINE_PEAK_NONE) {
            plan_format(v, p->kind, o->units, value, sizeof(value));
            plan_line(f, _(p->label), value, NULL);
            /* The phase names, for the catalogue (engine_peak_phase_name's). */
            static const char *const phase[ENGINE_PEAK_PHASE_COUNT] = {
                "", N_("loss forward"), N_("loss backward"), N_("layer backward"),
                N_("optimizer step")};
            plan_line(f, _("peak at"), _(phase[est->peak_phase]), NULL);
            continue;
        }
        if (o->sc.offload == ENGINE_OFFLOAD_NONE && (p->key == ENGINE_KEY_TRAIN_OFFLOAD_BYTES ||
                                                     p->key == ENGINE_KEY_TRAIN_OFFLOAD_SECONDS))
            continue;
        /* The prefill's TP all-reduces only above TP 1 (JSON: 0 there). */
        if (p->key == ENGINE_KEY_PREFILL_ALLREDUCE && o->sc.tp == 1)
            continue;
        /* The expert-parallel all-to-all only under --ep (JSON: 0 without). */
        if (p->key == ENGINE_KEY_TRAIN_ALL_TO_ALL && engine_ep(&o->sc) == 1)
            continue;
        if ((p->key == ENGINE_KEY_SERVING_GPU_LAYERS || p->key == ENGINE_KEY_SERVING_HOST_BW) &&
            !(est->memory.host > 0 && est->serving.decode_host_bytes > 0))
            continue;
        plan_format(v, p->kind, o->units, value, sizeof(value));
        plan_line(f, _(p->label), value, NULL);
        if (o->explain && p->key >= 0) {
            struct engine_explanation ex;
            memset(&ex, 0, sizeof(ex));
            engine_explain(&o->sc, est, (enum engine_key)p->key, &ex);
            fprintf(f, "      = %s\n      = %s\n      [%s]\n", ex.formula ? ex.formula : "",
                    ex.values, ex.source ? ex.source : "");
        }
    }
}

/* The training budget of the title line (issue 25 item 8): the tokens and
 * the global batch, each with where it comes from: given, or the default
 * and its source (pre-training: Hoffmann et al. 2022's 20 tokens per
 * parameter; fine-tuning, LoRA and QLoRA: a fine-tuning set, engine.h's
 * ENGINE_FINE_TUNE_TOKENS; the batch: the model's published one, or one
 * micro-batch per replica). */
static void plan_header_budget(FILE *f, const struct options *o) {
    const struct engine_scenario *sc = &o->sc;
    double params = sc->model.has_arch ? engine_params_total(&sc->model) : sc->model.params_size;
    if (o->model_file)
        params = o->model_file->params;
    char nt[32], ns[24], nc[24];
    report_count(engine_training_tokens(sc, params), nt, sizeof(nt));
    switch (engine_training_tokens_source(sc)) {
    case ENGINE_TOKENS_CHINCHILLA:
        fprintf(f, _(": %s tokens (20 per parameter, Hoffmann et al. 2022)"), nt);
        break;
    case ENGINE_TOKENS_FINE_TUNE:
        fprintf(f, _(": %s tokens (a fine-tuning set, not a pre-training run)"), nt);
        break;
    case ENGINE_TOKENS_GIVEN:
        fprintf(f, _(": %s tokens (given)"), nt);
        break;
    }
    double seqs = (double)sc->batch * engine_micro_batches(sc) * sc->dp;
    report_int((uint64_t)seqs, ns, sizeof(ns));
    report_int(sc->context, nc, sizeof(nc));
    if (sc->global_batch)
        fprintf(f, _(", global batch %s x %s (--global-batch)"), ns, nc);
    else if (o->recipe_batch_sequences)
        fprintf(f, _(", global batch %s x %s (%s's published)"), ns, nc,
                sc->model.name[0] ? sc->model.name : sc->model.id);
    else
        fprintf(f, _(", global batch %s x %s (micro-batch x micro-batches x DP)"), ns, nc);
}

/* Write the scenario header shared by plan and search (search leaves the
 * layout out: it is what is being searched). */
void plan_write_header(FILE *f, const struct options *o, bool with_layout) {
    const struct engine_scenario *sc = &o->sc;
    char count[32];

    double params =
        sc->model.has_arch ? engine_params_total(&sc->model) : sc->model.params_size;
    if (o->model_file)
        params = o->model_file->params;
    report_count(params, count, sizeof(count));
    fprintf(f, "%s (%s params) | ", sc->model.name[0] ? sc->model.name : sc->model.id, count);
    /* Full training stores the weights as the recipe says (--format has no
     * effect there); the KV cache is an inference figure. */
    if (o->model_file && sc->mode == ENGINE_MODE_INFER)
        fprintf(f, _("weights as in the file, %s KV cache"), sc->kv_format.name);
    else if (sc->mode == ENGINE_MODE_TRAIN && engine_train_fp8(sc))
        fprintf(f, _("%s (%g B weights), %s GEMMs"), engine_recipe_info(sc->recipe)->id,
                engine_recipe_info(sc->recipe)->weights, sc->weight_format.name);
    else if (sc->mode == ENGINE_MODE_TRAIN)
        fprintf(f, _("%s (%g B weights)"), engine_recipe_info(sc->recipe)->id,
                engine_recipe_info(sc->recipe)->weights);
    else
        fprintf(f, _("%s weights, %s KV cache"), sc->weight_format.name, sc->kv_format.name);
    char ng[24];
    report_int(sc->gpus, ng, sizeof(ng));
    fprintf(f, " | %s x %s", ng, sc->gpu.name);
    if (o->has_system && sc->system_gpus > 0) {
        char ns[24];
        report_int((uint64_t)ceil((double)sc->gpus / sc->system_gpus), ns, sizeof(ns));
        fprintf(f, _(" in %s x %s"), ns, o->system.name);
    }
    fputs(" | ", f);
    if (with_layout && engine_cp(sc) > 1)
        fprintf(f, "TP %u x CP %u x PP %u x DP %u | ", sc->tp, engine_cp(sc), sc->pp, sc->dp);
    else if (with_layout)
        fprintf(f, "TP %u x PP %u x DP %u | ", sc->tp, sc->pp, sc->dp);
    else if (engine_cp(sc) > 1)
        fprintf(f, _("CP %u in every layout | "), engine_cp(sc));
    if (engine_ep(sc) > 1)
        fprintf(f, _("EP %u inside DP | "), engine_ep(sc));
    if (sc->mode == ENGINE_MODE_INFER && sc->serving.runtime != ENGINE_RUNTIME_PLAIN)
        fprintf(f, "%s | ", engine_runtime_name(sc->serving.runtime));
    fprintf(f, "%s", engine_mode_name(sc->mode));
    if (sc->mode != ENGINE_MODE_INFER)
        plan_header_budget(f, o);
    fputc('\n', f);
    char nb[24], nc[24], np[24];
    report_int(sc->batch, nb, sizeof(nb));
    report_int(sc->context, nc, sizeof(nc));
    report_int(sc->prompt ? sc->prompt : sc->context, np, sizeof(np));
    fprintf(f, _("batch %s, context %s tokens"), nb, nc);
    if (sc->mode == ENGINE_MODE_INFER)
        fprintf(f, _(", prompt %s"), np);
    else if (engine_micro_batches(sc) == 1)
        fprintf(f, _(", %s recompute, %s, ZeRO %u, 1 micro-batch"),
                engine_recompute_name(sc->recompute), engine_recipe_info(sc->recipe)->id, sc->zero);
    else
        fprintf(f, _(", %s recompute, %s, ZeRO %u, %u micro-batches"),
                engine_recompute_name(sc->recompute), engine_recipe_info(sc->recipe)->id, sc->zero,
                engine_micro_batches(sc));
    if (sc->mode != ENGINE_MODE_INFER && sc->recompute == ENGINE_RECOMPUTE_FULL &&
        (sc->recompute_method != ENGINE_RECOMPUTE_UNIFORM || sc->recompute_num_layers > 1)) {
        if (sc->recompute_method == ENGINE_RECOMPUTE_BLOCK)
            fprintf(f, _(" (full recompute of %u layers per stage, --recompute-method block)"),
                    sc->recompute_num_layers ? sc->recompute_num_layers : sc->model.layers);
        else
            fprintf(f, _(" (a checkpoint every %u layers, --recompute-method uniform)"),
                    sc->recompute_num_layers);
    }
    /* The training-state accounting and offload, when not the defaults. */
    if (sc->mode != ENGINE_MODE_INFER &&
        (sc->memory_convention != ENGINE_MEMCONV_PAPER || sc->offload != ENGINE_OFFLOAD_NONE))
        fprintf(f, _("; memory as %s counts it, offload %s"),
                engine_memory_convention_name(sc->memory_convention),
                engine_offload_name(sc->offload));
    fputc('\n', f);
    if (o->model_file) {
        char mix[256], size[48];
        const struct catalog_model_file *mf = o->model_file;
        report_bytes(mf->bytes, o->units, size, sizeof(size));
        catalog_model_file_mix(mf, mix, sizeof(mix));
        if (strcmp(mf->format, "gguf") == 0)
            fprintf(f, _("model file %s (GGUF v%u, %s): %s of tensors: %s\n"), mf->path,
                    mf->version, mf->arch, size, mix);
        else {
            char what[160];
            if (mf->shards > 1)
                snprintf(what, sizeof(what), _("safetensors, %u shards, %s"), mf->shards,
                         mf->arch);
            else
                snprintf(what, sizeof(what), _("safetensors, %s"), mf->arch);
            if (mf->quant[0]) {
                size_t n = strlen(what);
                snprintf(what + n, sizeof(what) - n, ", %s", mf->quant);
            }
            fprintf(f, _("model file %s (%s): %s of tensors: %s\n"), mf->path, what, size, mix);
        }
    }
}

/* Write the readable breakdown: verdict, memory, speed, training, warnings. */
void plan_write_text(FILE *f, const struct options *o, const struct engine_estimate *est,
                     const struct plan_limits *limits, const struct cli_notes *notes) {
    char total[48], cap[48], spare[48], pct[48];
    bool any = false;

    plan_write_header(f, o, true);
    report_bytes(est->memory.total, o->units, total, sizeof(total));
    report_bytes(est->capacity, o->units, cap, sizeof(cap));
    report_bytes(fabs(est->spare_bytes), o->units, spare, sizeof(spare));
    report_percent(est->memory_ratio, pct, sizeof(pct));
    if (est->fits)
        fprintf(f, _("\nFITS: %s of %s per GPU (%s), %s spare\n"), total, cap, pct, spare);
    else
        fprintf(f, _("\nDOES NOT FIT: %s needed per GPU, %s available (%s), %s short\n"), total,
                cap, pct, spare);

    fputs(_("\nMemory per GPU\n"), f);
    plan_text_section(f, o, est, S_MEMORY);
    fputs(_("\nParameters\n"), f);
    plan_text_section(f, o, est, S_PARAMS);
    fputs(_("\nSpeed ceilings (whole deployment)\n"), f);
    plan_text_section(f, o, est, S_DECODE);
    if (o->sc.mode == ENGINE_MODE_INFER) {
        char who[48];
        engine_runtime_profile_name(&o->sc.serving, who, sizeof who);
        fprintf(f, _("\nServing (%s)\n"), who);
        plan_text_section(f, o, est, S_SERVING);
    }
    if (o->sc.mode != ENGINE_MODE_INFER) {
        fputs(_("\nTraining\n"), f);
        plan_text_section(f, o, est, S_TRAINING);
    }
    if (limits)
        plan_limits_text(f, o, limits);
    for (size_t i = 0; notes && i < notes->n; i++) {
        if (!any)
            fputs(_("\nWarnings\n"), f);
        any = true;
        fprintf(f, "  - %s\n", notes->text[i]);
    }
    for (int b = 0; b < ENGINE_WARNING_COUNT; b++) {
        char text[512];
        if (!(est->warnings & (1u << b)))
            continue;
        if (!any)
            fputs(_("\nWarnings\n"), f);
        any = true;
        report_warning(&o->sc, est, (enum engine_warning)(1u << b), o->units, text, sizeof(text));
        fprintf(f, "  - %s\n", text);
    }
}

/* Print `vramlab plan --help`. */
static void plan_usage(FILE *f) {
    fputs(_("usage: vramlab plan [scenario options] [--json]\n"
            "\n"
            "One scenario's full breakdown: whether it fits, per-GPU memory, speed\n"
            "ceilings, training time and cost, warnings. --json prints one object\n"
            "(keys in vramlab(1)); numbers are in bytes, seconds, FLOP.\n"
            "\n"
            "Scenario options:\n"),
          f);
    options_print_help(f, OPTIONS_HELP_JSON | OPTIONS_HELP_EXPLAIN);
}

/* --gpus N alone took the engine's best layout (tui/options_serving.c):
 * a note says which. */
static void plan_layout_note(struct cli_run *run) {
    static char note[320];
    const struct engine_scenario *sc = &run->o.sc;
    if (!run->o.layout_picked || run->o.scenario_file)
        return;
    snprintf(note, sizeof(note),
             run->o.layout_fits
                 ? _("layout TP %u x PP %u x DP %u: the best of %u GPUs that fits (by %s; "
                     "--tp/--pp/--dp choose another)")
                 : _("layout TP %u x PP %u x DP %u: no layout of %u GPUs fits, this one needs the "
                     "least memory (by %s)"),
             sc->tp, sc->pp, sc->dp, sc->gpus, engine_rank_name(run->o.rank));
    /* The training knobs the pick changed (no option had set them). */
    unsigned k = run->o.knobs_picked;
    char knobs[96] = "";
    size_t n = 0;
    if ((k & ENGINE_KNOB_CP) && n < sizeof(knobs))
        n += (size_t)snprintf(knobs + n, sizeof(knobs) - n, "%sCP %u", n ? ", " : "", sc->cp);
    if ((k & ENGINE_KNOB_ZERO) && n < sizeof(knobs))
        n += (size_t)snprintf(knobs + n, sizeof(knobs) - n, "%sZeRO %u", n ? ", " : "", sc->zero);
    if ((k & ENGINE_KNOB_SEQUENCE_PARALLEL) && n < sizeof(knobs))
        n += (size_t)snprintf(knobs + n, sizeof(knobs) - n, "%s%s", n ? ", " : "",
                              sc->sequence_parallel ? _("sequence parallel")
                                                    : _("no sequence parallelism"));
    if ((k & ENGINE_KNOB_RECOMPUTE) && n < sizeof(knobs))
        snprintf(knobs + n, sizeof(knobs) - n, _("%s%s recompute"), n ? ", " : "",
                 _(engine_recompute_name(sc->recompute)));
    size_t m = strlen(note);
    if (knobs[0] && m < sizeof(note))
        snprintf(note + m, sizeof(note) - m,
                 _("; with %s (--zero, --sequence-parallel, --recompute keep yours)"), knobs);
    if (run->notes.n < CLI_MAX_NOTES)
        run->notes.text[run->notes.n++] = note;
}

/* Training with neither --global-batch nor --micro-batches: the model's
 * published global batch set the micro-batches; a note says so. */
static void plan_recipe_batch_note(struct cli_run *run) {
    static char note[256];
    const struct engine_scenario *sc = &run->o.sc;
    if (!run->o.recipe_batch_sequences)
        return;
    char nt[24], ns[24];
    report_count(sc->model.global_batch_tokens, nt, sizeof(nt));
    report_int(run->o.recipe_batch_sequences, ns, sizeof(ns));
    snprintf(note, sizeof(note),
             _("batch: %s's published global batch, %s tokens = %s sequences of %u: %u "
               "micro-batches of %u on each of %u replicas (--global-batch or --micro-batches "
               "to choose)"),
             sc->model.name[0] ? sc->model.name : sc->model.id, nt, ns, sc->context,
             sc->micro_batches, sc->batch, sc->dp);
    if (run->notes.n < CLI_MAX_NOTES)
        run->notes.text[run->notes.n++] = note;
}

/* --max-concurrency: the batch becomes the most sequences of --context
 * tokens that fit; a note says how many. */
static void plan_max_concurrency(struct cli_run *run) {
    static char note[160];
    const struct engine_scenario *sc = &run->o.sc;
    if (!run->o.max_concurrency)
        return;
    uint32_t b = run->o.max_concurrency_batch; /* the options set the batch to it */
    char nb[24], nc[24];
    report_int(b, nb, sizeof(nb));
    report_int(sc->context, nc, sizeof(nc));
    if (b == 0)
        snprintf(note, sizeof(note),
                 _("--max-concurrency: not even one sequence of %s tokens fits"), nc);
    else
        snprintf(note, sizeof(note),
                 _("--max-concurrency: %s sequences of %s tokens at once, the most that fit"), nb,
                 nc);
    if (run->notes.n < CLI_MAX_NOTES)
        run->notes.text[run->notes.n++] = note;
}

/* `vramlab plan`: parse, estimate, print. */
int cmd_plan(int argc, char **argv) {
    struct cli_run run;
    struct engine_estimate est;
    int rc;

    if (cli_wants_help(argc, argv)) {
        plan_usage(stdout);
        return 0;
    }
    rc = cli_begin(&run, argc, argv);
    if (rc != 0)
        return rc;
    plan_layout_note(&run);
    plan_recipe_batch_note(&run);
    plan_max_concurrency(&run);
    engine_estimate(&run.o.sc, &est);
    if (est.invalid) {
        cli_report_invalid(&run.o.sc, est.invalid);
        cli_end(&run);
        return VRAMLAB_EXIT_USAGE;
    }
    struct plan_limits limits;
    plan_limits_compute(&run.cat, &run.o, &limits);
    if (run.o.json)
        plan_write_json(run.out, &run.o, &est, &limits, &run.notes);
    else
        plan_write_text(run.out, &run.o, &est, &limits, &run.notes);
    return cli_finish(&run);
}
