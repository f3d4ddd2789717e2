/*
 * internal.h: helpers shared by the engine's own files; not for front ends.
 */
#ifndef VRAMLAB_ENGINE_INTERNAL_H
#define VRAMLAB_ENGINE_INTERNAL_H

#include <math.h>

#include "engine/engine.h"

/* The shape the estimate works with: the model's own, or derived from a size. */
struct engine_shape {
    double layers, hidden, heads, kv_heads, head_dim, ffn, vocab;
    double params_total, params_active;
    double params_embed_in;                      /* token (+ position) embedding */
    double params_head;                          /* output head (0 when tied) + final norm */
    double params_dense_layer, params_moe_layer; /* totals per layer */
    double params_moe_layer_active, params_experts_layer; /* routed experts only */
    double dense_layers;                                  /* layers with a dense MLP */
    double mlp_width;                /* intermediate width a token flows through */
    double qk_dim, v_dim;            /* per-head dims of scores and values (MLA differs) */
    double kv_elems_per_token_layer; /* stored KV elements per token per layer */
    bool gated, moe, mla;
};

/* Fill the working shape of a model (has_arch or bare size). */
void engine_shape_of(const struct engine_model *m, struct engine_shape *s);

/* Runtime buffers (engine/runtime.c); bytes per GPU, t the TP degree. */
double engine_runtime_forward_peak(const struct engine_shape *s, double t, double tokens);
double engine_vllm_sampler_peak(const struct engine_shape *s, double tokens, double requests);
/* The memory CUDA reports for a GPU (memory_reported_bytes, else the data sheet's). */
double engine_gpu_reported_memory(const struct engine_gpu *g);
double engine_llamacpp_compute_buffer(const struct engine_shape *s, double t, double u, double n_kv,
                                      bool flash, bool output);
double engine_llamacpp_host_buffer(const struct engine_shape *s, double u);
double engine_ollama_graph(const struct engine_shape *s, double t, double b, double ctx, bool full);

/* ZeRO, memory conventions and offload (engine/zero.c). */
uint32_t engine_zero_validate(const struct engine_scenario *sc);
double engine_largest_layer_of(const struct engine_model *m, const struct engine_shape *s,
                               bool embed, bool head, double dense_layers, double moe_layers);
void engine_zero_states_of(const struct engine_scenario *sc, const struct engine_recipe_info *r,
                           double params, double largest, struct engine_memory *mem);
/* GPU <-> host bytes of one GPU per step: w weight bytes, params its parameters. */
double engine_offload_bytes(const struct engine_scenario *sc, double w, double params,
                            double micro);

/* Validation of a scenario (engine/scenario.c); returns the engine_invalid bits. */
uint32_t engine_validate(const struct engine_scenario *sc, const struct engine_shape *s);

/* True when x is a finite positive number. */
static inline bool engine_pos(double x) {
    return isfinite(x) && x > 0;
}

/* ---- the estimate's working values and the files that share them ---------
 * engine.c fills a struct engine_ctx once per estimate; memory.c (bytes per
 * stage), speed.c (ceilings, communication), training.c (the step) and
 * serving.c (the runtime's start-up figures) read it, each only the files
 * below it (docs/architecture.md). */

/* Working values of one estimate, shared by the helpers below. */
struct engine_ctx {
    const struct engine_scenario *sc;
    struct engine_shape s;
    double t, p, d, b, ctx, L;
    bool training, lora;
    double lps;         /* GPU layers per stage (ceil) */
    double bits_w;      /* bits per weight of the (frozen) weights */
    double bits_e;      /* bits of the embedding and head (16 with --keep-embeddings-16bit) */
    double bytes_kv;    /* bytes per KV element */
    double kv_frac_ctx; /* average stored context per layer (sliding windows) */
    double kv_tokens;   /* KV cells per layer of the whole batch, as the runtime allocates */
    double gpn;         /* GPUs per node */
    enum engine_runtime rt;
    double Lg;                 /* transformer layers on the GPUs: the last Lg of the L */
    double first_gpu;          /* index of the first layer on a GPU: L - Lg */
    double cpu_moe;            /* layers whose routed experts stay in host RAM */
    bool embed_gpu;            /* the token embedding is on stage 0's GPU */
    bool head_gpu;             /* the output head is on the last stage's GPU */
    bool file;                 /* inference weights are a model file's exact bytes */
    double expert_bpp;         /* file: bytes per routed-expert parameter */
    double expert_layer_bytes; /* file: routed-expert bytes of one MoE layer */
    double ep;                 /* expert-parallel degree (training; 1 = none) */
    double cp;                 /* context-parallel degree (training; 1 = none) */
    double dz;                 /* ranks the states shard over: d x cp */
    double s_loc;              /* tokens of one sequence on a GPU: ctx / cp */
    bool fp8, mx;              /* training GEMMs in FP8 (MXFP8) */
};

/* engine/memory.c */
/* Dense and MoE layers among the layers [first, first + n). */
void engine_layer_split(const struct engine_ctx *c, double first, double n, double *dense,
                        double *moe);
/* The layers [first, first + n) of GPU stage i. */
void engine_stage_range(const struct engine_ctx *c, double i, double *first, double *n);
/* Routed-expert parameters of stage i's GPUs that a step of `tokens`
 * tokens does not read. */
double engine_stage_unread_expert_params(const struct engine_ctx *c, double i, double tokens);
/* Weight bytes on one GPU of stage i: the layers at the format's bits, the
 * embedding and head at bits_e, the replicated K/V projections. */
double engine_stage_weight_bytes_gpu(const struct engine_ctx *c, double i, double unread);
/* KV cache bytes of one token of one sequence on one layer of one GPU. */
double engine_kv_bytes_token_layer_gpu(const struct engine_ctx *c);
/* Host RAM of one replica: the layers below first_gpu (weights and KV), the
 * routed experts --n-cpu-moe keeps there, the embedding and head where they
 * are not on a GPU, llama.cpp's host compute buffer. */
double engine_host_bytes(const struct engine_ctx *c, double *weights_read_per_step,
                         double *kv_read);
/* A model file's bytes of the layers [first, first + n) (whole layers). */
double engine_file_layers_bytes(const struct engine_ctx *c, double first, double n);
/* Memory of pipeline stage i on one GPU into *mem; returns the total. */
double engine_stage_memory(const struct engine_ctx *c, double i, struct engine_memory *mem,
                           struct engine_estimate *est);
/* Layers of GPU stage i: dense and MoE counts. */
void engine_stage_layers(const struct engine_ctx *c, double i, double *dense, double *moe);
/* Parameters held by pipeline stage i on its GPUs (before TP and ZeRO
 * division): its layers, less the experts kept in host RAM, plus the
 * embedding (stage 0) and head (last stage) where they live on the GPU. */
double engine_stage_params(const struct engine_ctx *c, double i);
/* Layers per checkpointed group of full recompute (uniform), or layers
 * recomputed per stage (block), of a stage of n layers. */
double engine_recompute_layers(const struct engine_ctx *c, double n);
/* Routed-expert parameters of GPU stage i (all its MoE layers, undivided). */
double engine_stage_expert_params(const struct engine_ctx *c, double i);
/* Parameters one GPU of stage i holds whose states shard over the whole
 * data-parallel group: the stage's over t, plus the K/V projections each
 * TP rank replicates where t exceeds the KV heads; under expert
 * parallelism the routed experts are left to ep_expert_states. */
double engine_stage_params_gpu(const struct engine_ctx *c, double i);

/* Activation bytes of one layer of one micro-batch on one GPU at the
 * scenario's recompute (held until its backward), and the working set of
 * one layer's backward (its recomputed forward and the gradients it makes);
 * `moe` picks an MoE layer. The component model of engine/peak.c. */
double engine_act_layer_components(const struct engine_ctx *c, bool moe, double *working);
/* Micro-batches' worth of the stage's layers GPU stage i holds at the
 * peak of the pipeline schedule. */
double engine_inflight_microbatches(const struct engine_ctx *c, double i);

/* engine/peak.c */
/* Memory of pipeline stage i on one GPU as engine_stage_memory counts it,
 * and under --memory-convention peak (full training) the step's peak: the
 * activations held at the phase that peaks, its transient buffers and
 * the allocator's waste (est->peak_phase says which); returns the total. */
double engine_stage_memory_peak(const struct engine_ctx *c, double i, struct engine_memory *mem,
                                struct engine_estimate *est);

/* engine/core.c: a CPU as the device (its cores' measured dot rates). */
/* Whether the scenario's device is a CPU with measured core rates. */
bool engine_core_measured(const struct engine_scenario *sc);
/* The weights one token multiplies: active parameters less the input
 * embedding, plus a tied head. */
double engine_core_dot_weights(const struct engine_ctx *c, double params_active);
/* Seconds of one decode step's dot products over `weights` at batch b
 * (per tensor-parallel rank); NaN without measured rates. */
double engine_core_step_seconds(const struct engine_ctx *c, double weights, double b);
/* The prefill FLOP/s of the cores (their rates at the largest measured
 * batch); 0 without measured rates. */
double engine_core_prefill_flops(const struct engine_scenario *sc);
/* The terms of the core-bound step, for explain: the width classes the
 * dotted weights fall in (ENGINE_WIDTH_*), each one's share and the
 * measured rate (weights/s at its first measured batch) that times it.
 * Returns how many (0 without measured rates). */
struct engine_core_term {
    int width;
    double share, weights_per_s;
    uint32_t batch;
    const char *kernel; /* the probe's test ("w4a16") */
};
int engine_core_terms(const struct engine_scenario *sc, struct engine_core_term t[ENGINE_WIDTHS]);

/* engine/speed.c */
/* Peak FLOP/s for the format's compute column (FP16 where the GPU lacks it). */
double engine_peak_flops(const struct engine_scenario *sc, enum engine_compute col, bool *fallback);
/* Decode and prefill ceilings, TTFT and TPOT of stage `stage` (inference). */
void engine_estimate_decode(const struct engine_ctx *c, double stage, struct engine_estimate *e);
/* Ring all-reduce time of n bytes over k ranks at bw bytes/s, plus latency
 * (engine.h: engine_allreduce_seconds). */
double engine_allreduce_s(double bytes, double k, double bw, double latency);
/* One-way bandwidth of a collective over `ranks` GPUs: half the vendor's
 * both-ways NVLink figure inside a node (as in training), the network's
 * per-GPU figure across nodes. */
double engine_link_bw(const struct engine_ctx *c, double ranks);
/* The whole systems G GPUs take (--system), into e->systems; 0 without
 * a system (or without its power). */
double engine_system_count(const struct engine_scenario *sc, struct engine_estimate *e);

/* engine/training.c */
/* Training time, bubble, communication and MFU (training modes). */
void engine_estimate_training(const struct engine_ctx *c, double stage, struct engine_estimate *e);

/* engine/runtime.c */
/* Start-up memory of vLLM, SGLang or TensorRT-LLM on GPU stage i:
 * mem->weights gains vLLM's rotary cache, mem->overhead the buffers the
 * runtime counts before its KV cache, mem->reserve what it leaves outside
 * its request; the parts into est->serving. */
void engine_runtime_memory(const struct engine_ctx *c, double i, struct engine_memory *mem,
                           struct engine_estimate *est);

/* engine/serving.c */
/* The serving figures vLLM prints at start-up, from the fullest stage's
 * memory (kv_cache_utils.py): blocks of the available KV, the concurrency
 * at max_model_len, the longest max_model_len one request fits in. */
void engine_vllm_blocks(const struct engine_ctx *c, double stage, struct engine_estimate *e);
/* Tokens per KV block of the scenario's runtime (vLLM block_size,
 * TensorRT-LLM 32, else 1). */
double engine_runtime_block(const struct engine_scenario *sc);

/* Ceiling division and divisibility on unsigned counts. */
static inline uint32_t engine_ceil_div(uint32_t a, uint32_t b) {
    return b ? (a + b - 1) / b : 0;
}

#endif
